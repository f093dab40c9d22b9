/* Checkpoints: a deep copy of the model's state.  Memories, CBUF banks and
 * layer records share their blocks with the live model until either side
 * writes them, and the plain fields (register files, idle pipes, tables:
 * 70 KiB, mostly zeros) are kept packed: only the blocks of bytes that are
 * not all zero.  A checkpoint thus costs a few KiB plus what changes after
 * it. */
#include <stdlib.h>
#include <string.h>

#include "unit_table.h"

#define PACK_BLOCK 64 /* bytes of struct dla per bit of the packed form's map */
#define PACK_BLOCKS ((sizeof(struct dla) + PACK_BLOCK - 1) / PACK_BLOCK)

/* struct dla with its all-zero blocks left out: bit i of map set when block i
 * is stored, the stored blocks in order in bytes[].  own_bytes: what the
 * snapshot holds besides its shared parts (the packed state, pipeline
 * buffers), counted when it is taken. */
struct dla_snapshot {
    size_t own_bytes;
    const struct dla_mem *mem[DLA_SPACE_COUNT]; /* its parts, for dla_snapshot_bytes_apart */
    const void *unit_state[DLA_UNIT_STATES];    /* the units' owned state, in table order */
    const struct layer_node *layer_root;
    unsigned layer_depth;
    uint64_t map[(PACK_BLOCKS + 63) / 64];
    uint8_t bytes[]; /* listeners are not part of it */
};

#define PACK_WORDS ((PACK_BLOCKS + 63) / 64)
/* Bytes of the last block: struct dla need not end on a block boundary. */
#define LAST_BLOCK_LEN (sizeof(struct dla) - (PACK_BLOCKS - 1) * PACK_BLOCK)

static uint64_t word_at(const uint8_t *p, size_t k)
{
    uint64_t w;
    memcpy(&w, p + 8 * k, 8);
    return w;
}

/* A whole block's eight words ORed, unrolled: a state is taken at one
 * boundary in twenty of a run of one-line layers, and a scan of the 74 KB a
 * block of variable length at a time, then a bit at a time over the map,
 * was a tenth of such a run (issue 36). */
static bool block_is_zero(const uint8_t *p)
{
    _Static_assert(PACK_BLOCK == 64, "block_is_zero ORs eight words");
    return ((word_at(p, 0) | word_at(p, 1)) | (word_at(p, 2) | word_at(p, 3)) |
            (word_at(p, 4) | word_at(p, 5)) | (word_at(p, 6) | word_at(p, 7))) == 0;
}

/* Block i of the struct at base, the last one zero-padded into pad. */
static const uint8_t *block_at(const uint8_t *base, size_t i, uint8_t pad[PACK_BLOCK])
{
    if (i + 1 < PACK_BLOCKS)
        return base + i * PACK_BLOCK;
    memset(pad, 0, PACK_BLOCK);
    memcpy(pad, base + i * PACK_BLOCK, LAST_BLOCK_LEN);
    return pad;
}

static size_t block_len(size_t i)
{
    return i + 1 < PACK_BLOCKS ? PACK_BLOCK : LAST_BLOCK_LEN;
}

/* Bytes the blocks set in map hold. */
static size_t map_bytes(const uint64_t *map)
{
    size_t blocks = 0;
    for (size_t k = 0; k < PACK_WORDS; k++)
        blocks += (size_t)__builtin_popcountll(map[k]);
    bool last = map[(PACK_BLOCKS - 1) / 64] >> ((PACK_BLOCKS - 1) % 64) & 1;
    return blocks * PACK_BLOCK - (last ? PACK_BLOCK - LAST_BLOCK_LEN : 0);
}

static struct dla_snapshot *pack(const struct dla *d)
{
    const uint8_t *src = (const uint8_t *)d;
    uint64_t map[PACK_WORDS] = {0};
    uint8_t pad[PACK_BLOCK];
    for (size_t i = 0; i < PACK_BLOCKS; i++)
        if (!block_is_zero(block_at(src, i, pad)))
            map[i / 64] |= 1ull << (i % 64);
    struct dla_snapshot *s = malloc(sizeof *s + map_bytes(map));
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    memcpy(s->map, map, sizeof map);
    uint8_t *out = s->bytes;
    for (size_t k = 0; k < PACK_WORDS; k++) /* the stored blocks, by their bits */
        for (uint64_t bits = map[k]; bits; bits &= bits - 1) {
            size_t i = k * 64 + (size_t)__builtin_ctzll(bits);
            if (i + 1 < PACK_BLOCKS)
                memcpy(out, src + i * PACK_BLOCK, PACK_BLOCK); /* fixed size: inlined */
            else
                memcpy(out, src + i * PACK_BLOCK, LAST_BLOCK_LEN);
            out += block_len(i);
        }
    return s;
}

static void unpack(const struct dla_snapshot *s, struct dla *d)
{
    uint8_t *dst = (uint8_t *)d;
    const uint8_t *in = s->bytes;
    for (size_t i = 0; i + 1 < PACK_BLOCKS; i++) {
        if (s->map[i / 64] >> (i % 64) & 1) {
            memcpy(dst + i * PACK_BLOCK, in, PACK_BLOCK);
            in += PACK_BLOCK;
        } else {
            memset(dst + i * PACK_BLOCK, 0, PACK_BLOCK);
        }
    }
    size_t last = PACK_BLOCKS - 1;
    if (s->map[last / 64] >> (last % 64) & 1)
        memcpy(dst + last * PACK_BLOCK, in, LAST_BLOCK_LEN);
    else
        memset(dst + last * PACK_BLOCK, 0, LAST_BLOCK_LEN);
}

static bool clone_array(void **dst, const void *src, size_t n, size_t size)
{
    *dst = NULL;
    if (!n)
        return true;
    *dst = malloc(n * size);
    if (!*dst)
        return false;
    memcpy(*dst, src, n * size);
    return true;
}

static bool clone_pipe(struct dla_pipe *dst, const struct dla_pipe *src)
{
    *dst = *src;
    dst->writes = NULL;
    dst->xfers = NULL;
    dst->cap_writes = src->n_writes;
    dst->cap_xfers = src->n_xfers;
    if (!clone_array((void **)&dst->xfers, src->xfers, src->n_xfers, sizeof *src->xfers) ||
        !clone_array((void **)&dst->writes, src->writes, src->n_writes, sizeof *src->writes))
        return false;
    for (size_t i = 0; i < src->n_writes; i++) {
        dst->writes[i].data = NULL;
        dst->writes[i].cap = src->writes[i].len; /* the copy holds exactly the bytes */
        if (src->writes[i].data &&
            !clone_array((void **)&dst->writes[i].data, src->writes[i].data, src->writes[i].len, 1))
            return false;
    }
    return true;
}

/* Each unit's owned state (CBUF) copied into dst; every entry's clone runs
 * even after one fails, so that dst holds nothing of src's to free. */
static bool clone_unit_states(struct dla *dst, const struct dla *src)
{
    bool ok = true;
    for (size_t i = 0; dla_unit_table[i]; i++)
        if (dla_unit_table[i]->state_clone && !dla_unit_table[i]->state_clone(dst, src))
            ok = false;
    return ok;
}

/* Copy the owned parts of src into dst, whose plain fields already equal src's. */
static bool clone_owned(struct dla *dst, const struct dla *src)
{
    /* nothing of src's may be freed through dst if a clone below fails */
    dst->mem[DLA_DRAM] = dst->mem[DLA_CVSRAM] = NULL;
    dst->sched = NULL;
    dst->layer_root = NULL;
    dst->layer_depth = 0;
    dst->n_chunks = 0;
    dst->scratch = (struct dla_scratch){0}; /* the live model's alone */
    for (int i = 0; i < DLA_MAX_PIPES; i++) {
        dst->pipe[i].writes = NULL;
        dst->pipe[i].n_writes = 0;
        dst->pipe[i].xfers = NULL;
    }
    dst->mem[DLA_DRAM] = mem_clone(src->mem[DLA_DRAM]);
    dst->mem[DLA_CVSRAM] = mem_clone(src->mem[DLA_CVSRAM]);
    bool states = clone_unit_states(dst, src);
    dst->cap_sched = src->n_sched;

    bool ok = dst->mem[DLA_DRAM] && dst->mem[DLA_CVSRAM] && states &&
              clone_array((void **)&dst->sched, src->sched, src->n_sched, sizeof *src->sched) &&
              layers_share(dst, src);
    for (int i = 0; ok && i < DLA_MAX_PIPES; i++)
        ok = clone_pipe(&dst->pipe[i], &src->pipe[i]);
    return ok;
}

struct dla_snapshot *dla_snapshot_take(const struct dla *d)
{
    struct dla *state = malloc(sizeof *state);
    if (!state)
        return NULL;
    *state = *d;
    state->n_listeners = 0;
    memset(state->listeners, 0, sizeof state->listeners);
    memset(state->listener_handle, 0, sizeof state->listener_handle);
    struct dla_snapshot *s = clone_owned(state, d) ? pack(state) : NULL;
    if (!s) {
        dla_free_owned(state);
        free(state);
        return NULL;
    }
    s->own_bytes = dla_snapshot_bytes(s) + state->cap_sched * sizeof *state->sched;
    for (int i = 0; i < DLA_MAX_PIPES; i++) {
        const struct dla_pipe *p = &state->pipe[i];
        s->own_bytes += p->cap_writes * sizeof *p->writes + p->cap_xfers * sizeof *p->xfers;
        for (size_t w = 0; w < p->n_writes; w++)
            s->own_bytes += p->writes[w].cap;
    }
    for (int m = 0; m < DLA_SPACE_COUNT; m++)
        s->mem[m] = state->mem[m];
    size_t k = 0;
    for (size_t i = 0; dla_unit_table[i]; i++)
        if (dla_unit_table[i]->state_of && k < DLA_UNIT_STATES)
            s->unit_state[k++] = dla_unit_table[i]->state_of(state);
    s->layer_root = state->layer_root;
    s->layer_depth = state->layer_depth;
    free(state);
    return s;
}

void dla_snapshot_restore(struct dla *d, const struct dla_snapshot *s)
{
    struct dla *saved = malloc(sizeof *saved);
    if (!saved)
        abort(); /* as below: a restore that cannot happen must not leave half a state */
    unpack(s, saved);
    struct dla fresh = *saved;
    bool ok = clone_owned(&fresh, saved);
    free(saved);
    if (!ok)
        abort(); /* a checkpoint we cannot copy back is lost state; do not continue half-restored */
    /* listeners survive a restore */
    fresh.n_listeners = d->n_listeners;
    memcpy(fresh.listeners, d->listeners, sizeof d->listeners);
    memcpy(fresh.listener_handle, d->listener_handle, sizeof d->listener_handle);
    fresh.next_handle = d->next_handle;
    fresh.scratch = d->scratch; /* the arena stays the live model's */
    d->scratch = (struct dla_scratch){0};
    dla_free_owned(d);
    *d = fresh;
}

void dla_snapshot_free(struct dla_snapshot *s)
{
    if (!s)
        return;
    struct dla *state = malloc(sizeof *state);
    if (state) {
        unpack(s, state);
        dla_free_owned(state);
    }
    /* without room to unpack, the owned parts leak rather than corrupt */
    free(state);
    free(s);
}

size_t dla_snapshot_bytes(const struct dla_snapshot *s)
{
    return sizeof *s + map_bytes(s->map);
}

size_t dla_snapshot_bytes_apart(const struct dla_snapshot *s, const struct dla *live)
{
    size_t n = s->own_bytes + layers_bytes_apart(s->layer_root, s->layer_depth, live);
    size_t k = 0;
    for (size_t i = 0; dla_unit_table[i]; i++) {
        const struct dla_unit_entry *e = dla_unit_table[i];
        if (e->state_of && k < DLA_UNIT_STATES)
            n += e->state_bytes_apart(s->unit_state[k++], e->state_of(live));
    }
    for (int m = 0; m < DLA_SPACE_COUNT; m++)
        if (s->mem[m] && live->mem[m])
            n += (size_t)mem_bytes_apart(s->mem[m], live->mem[m]);
    return n;
}
