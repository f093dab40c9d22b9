/* The discrete-event scheduler: a binary min-heap of plain records ordered by
 * (cycle, insertion sequence), so equal-time events run in the order they
 * were scheduled and every run is deterministic. */
#include <stdlib.h>

#include "dla_priv.h"

static bool before(const struct dla_sched_item *a, const struct dla_sched_item *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void swap(struct dla_sched_item *a, struct dla_sched_item *b)
{
    struct dla_sched_item t = *a;
    *a = *b;
    *b = t;
}

void sched_push(struct dla *d, uint64_t at, uint8_t pipe, uint8_t ms)
{
    d->sched = dla_grow(d->sched, d->n_sched, &d->cap_sched, 32, sizeof *d->sched);
    size_t i = d->n_sched++;
    d->sched[i] = (struct dla_sched_item){.at = at, .seq = d->seq++, .pipe = pipe, .ms = ms};
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&d->sched[i], &d->sched[parent]))
            break;
        swap(&d->sched[i], &d->sched[parent]);
        i = parent;
    }
}

const struct dla_sched_item *sched_peek(const struct dla *d)
{
    return d->n_sched ? &d->sched[0] : NULL;
}

bool sched_pop(struct dla *d, struct dla_sched_item *out)
{
    if (!d->n_sched)
        return false;
    *out = d->sched[0];
    d->sched[0] = d->sched[--d->n_sched];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < d->n_sched && before(&d->sched[l], &d->sched[m]))
            m = l;
        if (r < d->n_sched && before(&d->sched[r], &d->sched[m]))
            m = r;
        if (m == i)
            break;
        swap(&d->sched[i], &d->sched[m]);
        i = m;
    }
    return true;
}

void sched_clear(struct dla *d)
{
    d->n_sched = 0;
}
