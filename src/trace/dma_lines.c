/* DRAM line sets of the model's DMA traffic (see dma_lines.h). */
#include "dma_lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/textfile.h"

/* ---------------------------------------------------------------- the set */

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull; /* a 64-bit mixer: block numbers are dense */
    key ^= key >> 33;
    return (size_t)(key & (cap - 1));
}

/* The slot of block key (number + 1): its own, or the empty one it would take. */
static struct line_block *find_block(const struct line_set *s, uint64_t key)
{
    size_t i = slot_of(key, s->cap);
    while (s->blocks[i].key && s->blocks[i].key != key)
        i = (i + 1) & (s->cap - 1);
    return &s->blocks[i];
}

static bool grow(struct line_set *s)
{
    struct line_set n = {.cap = s->cap ? s->cap * 2 : 16, .used = s->used, .count = s->count};
    n.blocks = calloc(n.cap, sizeof *n.blocks);
    if (!n.blocks)
        return false;
    for (size_t i = 0; i < s->cap; i++)
        if (s->blocks[i].key)
            *find_block(&n, s->blocks[i].key) = s->blocks[i];
    free(s->blocks);
    *s = n;
    return true;
}

void line_set_free(struct line_set *s)
{
    free(s->blocks);
    memset(s, 0, sizeof *s);
}

bool line_set_has(const struct line_set *s, uint64_t line)
{
    if (!s->cap)
        return false;
    const struct line_block *b = find_block(s, line / LINE_BLOCK_LINES + 1);
    unsigned bit = (unsigned)(line % LINE_BLOCK_LINES);
    return b->key && (b->bits[bit / 64] >> (bit % 64) & 1);
}

bool line_set_add(struct line_set *s, uint64_t line)
{
    uint64_t key = line / LINE_BLOCK_LINES + 1;
    struct line_block *b = s->cap ? find_block(s, key) : NULL;
    if (!b || !b->key) {
        if ((s->used + 1) * 4 > s->cap * 3 && !grow(s)) /* keep the load under 3/4 */
            return false;
        b = find_block(s, key);
        b->key = key;
        s->used++;
    }
    unsigned bit = (unsigned)(line % LINE_BLOCK_LINES);
    uint64_t mask = 1ull << (bit % 64);
    if (!(b->bits[bit / 64] & mask)) {
        b->bits[bit / 64] |= mask;
        s->count++;
    }
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

uint64_t *line_set_sorted(const struct line_set *s)
{
    if (!s->count)
        return NULL;
    uint64_t *keys = malloc(s->used * sizeof *keys);
    uint64_t *v = malloc(s->count * sizeof *v);
    if (!keys || !v) {
        free(keys);
        free(v);
        return NULL;
    }
    size_t nk = 0, n = 0;
    for (size_t i = 0; i < s->cap; i++)
        if (s->blocks[i].key)
            keys[nk++] = s->blocks[i].key;
    qsort(keys, nk, sizeof *keys, cmp_u64);
    for (size_t k = 0; k < nk; k++) {
        const struct line_block *b = find_block(s, keys[k]);
        uint64_t first = (keys[k] - 1) * LINE_BLOCK_LINES;
        for (unsigned bit = 0; bit < LINE_BLOCK_LINES; bit++)
            if (b->bits[bit / 64] >> (bit % 64) & 1)
                v[n++] = first + bit;
    }
    free(keys);
    return v;
}

struct golden_ctx {
    struct line_set *set;
    const char *path;
};

static int golden_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct golden_ctx *g = ctx;
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p || *p == '#')
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 16);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == p || (*end && *end != '#')) {
        snprintf(err, errlen, "%s:%u: expected one hex address, found \"%.40s\"", g->path, lineno,
                 p);
        return 1;
    }
    if (!line_set_add(g->set, v / DMA_LINE_BYTES)) {
        snprintf(err, errlen, "%s:%u: out of memory", g->path, lineno);
        return 1;
    }
    return 0;
}

bool line_set_read(struct line_set *s, const char *path, char *err, size_t errlen)
{
    struct golden_ctx g = {.set = s, .path = path};
    return textfile_each_line(path, golden_line, &g, err, errlen) == 0;
}

/* ---------------------------------------------------------------- the recorder */

void dma_lines_init(struct dma_lines *l)
{
    memset(l, 0, sizeof *l);
    l->listener = -1;
}

void dma_lines_record(void *ctx, const struct dla_event *ev)
{
    struct dma_lines *l = ctx;
    if (ev->kind != DLA_EV_DMA || ev->u.dma.space != DLA_DRAM || ev->u.dma.bytes == 0 ||
        ev->u.dma.client == DLA_C_HOST)
        return;
    struct line_set *s = ev->u.dma.write ? &l->written : &l->read;
    uint64_t first = ev->u.dma.addr / DMA_LINE_BYTES;
    uint64_t last = (ev->u.dma.addr + ev->u.dma.bytes - 1) / DMA_LINE_BYTES;
    for (uint64_t line = first; line <= last; line++)
        if (!line_set_add(s, line)) {
            l->out_of_memory = true;
            return;
        }
}

void dma_lines_attach(struct dma_lines *l, struct dla *d)
{
    dma_lines_detach(l);
    l->dla = d;
    l->listener = dla_listen(d, dma_lines_record, l);
}

void dma_lines_detach(struct dma_lines *l)
{
    if (l->dla && l->listener >= 0)
        dla_unlisten(l->dla, l->listener);
    l->dla = NULL;
    l->listener = -1;
}

void dma_lines_clear(struct dma_lines *l)
{
    line_set_free(&l->read);
    line_set_free(&l->written);
    l->out_of_memory = false;
}

void dma_lines_free(struct dma_lines *l)
{
    dma_lines_detach(l);
    dma_lines_clear(l);
}
