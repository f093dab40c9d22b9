/* DRAM line sets of the model's DMA traffic (see dma_lines.h). */
#include "dma_lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

/* ---------------------------------------------------------------- the set */

/* The index of the chunk holding line, or where it would be inserted
 * (*found false). */
static size_t chunk_find(const struct line_set *s, uint64_t line, bool *found)
{
    uint64_t first = line - line % LINE_CHUNK_LINES;
    if (s->last < s->nchunks && s->chunks[s->last].first == first) {
        *found = true;
        return s->last;
    }
    size_t lo = 0, hi = s->nchunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->chunks[mid].first < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < s->nchunks && s->chunks[lo].first == first;
    return lo;
}

static bool chunk_insert(struct line_set *s, size_t at, uint64_t first)
{
    if (s->nchunks == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct line_chunk *c = realloc(s->chunks, cap * sizeof *c);
        if (!c)
            return false;
        s->chunks = c;
        s->cap = cap;
    }
    memmove(&s->chunks[at + 1], &s->chunks[at], (s->nchunks - at) * sizeof *s->chunks);
    memset(&s->chunks[at], 0, sizeof *s->chunks);
    s->chunks[at].first = first;
    s->nchunks++;
    return true;
}

void line_set_free(struct line_set *s)
{
    free(s->chunks);
    memset(s, 0, sizeof *s);
}

bool line_set_has(const struct line_set *s, uint64_t line)
{
    bool found;
    size_t at = chunk_find(s, line, &found);
    uint64_t bit = line % LINE_CHUNK_LINES;
    return found && (s->chunks[at].bits[bit / 64] >> (bit % 64) & 1u);
}

bool line_set_add(struct line_set *s, uint64_t line)
{
    bool found;
    size_t at = chunk_find(s, line, &found);
    if (!found && !chunk_insert(s, at, line - line % LINE_CHUNK_LINES))
        return false;
    s->last = at;
    uint64_t bit = line % LINE_CHUNK_LINES, mask = 1ull << (bit % 64);
    uint64_t *word = &s->chunks[at].bits[bit / 64];
    s->count += !(*word & mask);
    *word |= mask;
    return true;
}

uint64_t *line_set_sorted(const struct line_set *s)
{
    if (!s->count)
        return NULL;
    uint64_t *v = malloc(s->count * sizeof *v);
    if (!v)
        return NULL;
    size_t n = 0;
    for (size_t c = 0; c < s->nchunks; c++)
        for (uint32_t w = 0; w < LINE_CHUNK_LINES / 64; w++)
            for (uint64_t bits = s->chunks[c].bits[w]; bits; bits &= bits - 1)
                v[n++] = s->chunks[c].first + 64u * w + (uint64_t)__builtin_ctzll(bits);
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
