/* Hardware layers: one record per operation of a processor group, from the
 * first register write that programs it to its completion. */
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

struct dla_layer *layer_at(struct dla *d, int32_t index)
{
    return index >= 0 && (size_t)index < d->n_layers ? &d->layers[index] : NULL;
}

int32_t layer_begin(struct dla *d, enum dla_proc p, int group)
{
    if (d->n_layers == d->cap_layers) {
        size_t cap = d->cap_layers ? d->cap_layers * 2 : 64;
        struct dla_layer *l = realloc(d->layers, cap * sizeof *l);
        if (!l)
            abort(); /* a few hundred bytes per layer: running out here means the host is gone */
        d->layers = l;
        d->cap_layers = cap;
    }
    int32_t li = (int32_t)d->n_layers++;
    struct dla_layer *l = &d->layers[li];
    memset(l, 0, sizeof *l);
    l->index = (uint32_t)li;
    l->proc = (uint8_t)p;
    l->group = (uint8_t)group;
    l->state = DLA_LAYER_PROGRAMMING;
    l->fed_by = -1;
    l->program_cycle = d->now;
    if (group == 0 || group == 1)
        d->cur_layer[p][group] = li;
    struct dla_event ev = {.kind = DLA_EV_LAYER_PROGRAM, .layer = li};
    ev.u.layer.proc = (uint8_t)p;
    ev.u.layer.group = (uint8_t)group;
    ev.u.layer.unit = DLA_U_NONE;
    dla_emit(d, &ev);
    return li;
}

/* The layer being programmed on (p, group), started if the group holds none
 * or only a finished one. */
int32_t layer_ensure(struct dla *d, enum dla_proc p, int group)
{
    int32_t li = d->cur_layer[p][group];
    if (li >= 0 && d->layers[li].state != DLA_LAYER_DONE)
        return li;
    return layer_begin(d, p, group);
}

size_t dla_layer_count(const struct dla *d)
{
    return d->n_layers;
}

const struct dla_layer *dla_layer_get(const struct dla *d, size_t index)
{
    return index < d->n_layers ? &d->layers[index] : NULL;
}

const struct dla_layer *dla_layer_current(const struct dla *d, enum dla_proc p, int group)
{
    if (p >= DLA_P_COUNT || group < 0 || group > 1)
        return NULL;
    int32_t li = d->cur_layer[p][group];
    return li >= 0 ? &d->layers[li] : NULL;
}

void layer_counter(struct dla_layer *l, const char *name, uint64_t value)
{
    for (uint32_t i = 0; i < l->n_counters; i++) {
        if (strcmp(l->counters[i].name, name) == 0) {
            l->counters[i].value = value;
            return;
        }
    }
    if (l->n_counters < DLA_MAX_COUNTERS)
        l->counters[l->n_counters++] = (struct dla_counter){name, value};
}
