/* The model's scratch arena (scratch.h). */
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

/* A slot given a request under half its size this many times in a row is
 * reallocated to that size: a network's later layers are smaller, and
 * holding its largest layer's buffers to the end of the run raised the peak
 * RSS there (resnet18-cifar10: +0.5 MiB); one small layer between larger
 * ones (a ResNet's 1x1 shortcut) does not flap the slot. */
#define SCRATCH_SHRINK_AFTER 3

void *dla_scratch_get(struct dla *d, enum dla_scratch_slot slot, size_t bytes)
{
    struct dla_scratch *s = &d->scratch;
    if (!bytes)
        bytes = 1;
    if (bytes <= s->cap[slot]) {
        bool small = bytes <= s->cap[slot] / 2;
        s->small_run[slot] = small ? s->small_run[slot] + 1 : 0;
        if (s->small_run[slot] < SCRATCH_SHRINK_AFTER) {
            s->reuses++;
            return s->buf[slot];
        }
    }
    /* free, then allocate: the old contents are not wanted, and realloc
     * would copy them */
    free(s->buf[slot]);
    s->buf[slot] = malloc(bytes);
    s->cap[slot] = s->buf[slot] ? bytes : 0;
    s->small_run[slot] = 0;
    s->grows++;
    return s->buf[slot];
}

void dla_scratch_drop(struct dla *d, enum dla_scratch_slot slot)
{
    struct dla_scratch *s = &d->scratch;
    free(s->buf[slot]);
    s->buf[slot] = NULL;
    s->cap[slot] = 0;
    s->small_run[slot] = 0;
}

void dla_scratch_done(struct dla *d, enum dla_scratch_slot slot)
{
    if (d->scratch.cap[slot] < d->scratch.keep_min)
        dla_scratch_drop(d, slot);
}

void *dla_scratch_zeroed(struct dla *d, enum dla_scratch_slot slot, size_t bytes)
{
    void *p = dla_scratch_get(d, slot, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void dla_scratch_keep_from(struct dla *d, uint64_t bytes)
{
    d->scratch.keep_min = bytes;
}

void dla_scratch_release(struct dla_scratch *s)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++)
        free(s->buf[i]);
    *s = (struct dla_scratch){0};
}

uint64_t dla_scratch_bytes(const struct dla *d)
{
    uint64_t n = 0;
    for (int i = 0; i < SCRATCH_SLOTS; i++)
        n += d->scratch.cap[i];
    return n;
}

uint64_t dla_scratch_grows(const struct dla *d)
{
    return d->scratch.grows;
}

uint64_t dla_scratch_reuses(const struct dla *d)
{
    return d->scratch.reuses;
}
