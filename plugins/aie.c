/* Plugin "aie": NVDLA DMA streams in AMD AI Engine-ML terms (seed 003).
 *
 *   decoder  one row per DMA stream of every layer: the equivalent
 *            tiling_parameters, buffer descriptors, and whether the addresses
 *            they generate are the ones the model's DMA transfers hit
 *   aie tiling BUFFER_DIM TILING_DIM OFFSET [TRAVERSAL...] [boundary DIM] [type T]
 *            the element address sequence of one tiling_parameters object
 *   aie streams [LAYER]
 *            the decoder's view as text
 *
 * Addresses are compared as the model records them: transfers per DMA
 * client, contiguous accesses merged (sim/core/pipeline.c). */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aie_streams.h"
#include "aie_tiling.h"
#include "plugin_console.h"
#include "plugin_util.h"

/* External memory BDs address 3 dimensions (the seed); NVDLA tensors live there. */
#define AIE_EXT_BD_DIMS  3
#define AIE_MAX_BDMA_OPS 256
#define AIE_PRINT_TILES  256 /* "aie tiling" prints this many tiles unless "limit N" */

/* ---------------------------------------------------------------- collecting the run */

struct dma_rec {
    int32_t layer;
    char client[16];
    bool write;
    uint64_t addr, bytes;
};

struct bdma_reg {
    char name[32];
    uint32_t value;
    char fields[96];
};

struct bdma_rec {
    int32_t layer;
    struct aie_bdma_op op;
};

/* One stream's verdict, for a row or a text block. */
struct verdict {
    char check[160];
    uint64_t transfers, bytes;
};

typedef void (*stream_fn)(void *ctx, const struct dladbg_layer *l, const struct aie_stream *st,
                          const struct verdict *v);

struct collector {
    const struct dladbg_run *run;
    size_t n_dma, cap_dma;
    struct dma_rec *dma;
    size_t n_ops, cap_ops;
    struct bdma_rec *ops;
    unsigned n_regs;
    struct bdma_reg regs[24];
    bool oom;
    int32_t only_layer; /* -1: all */
    stream_fn emit;
    void *emit_ctx;
};

static bool grow(void **p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 256;
    void *q = realloc(*p, c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static struct bdma_reg *bdma_reg_named(struct collector *c, const char *name)
{
    for (unsigned i = 0; i < c->n_regs; i++)
        if (!strcmp(c->regs[i].name, name))
            return &c->regs[i];
    return NULL;
}

/* A field of a BDMA register as its last write decoded it ("SIZE=7",
 * "SRC_RAM_TYPE=MC"), else from the registers the layer started with. */
static uint64_t bdma_field(struct collector *c, int32_t layer, const char *reg, const char *field)
{
    struct bdma_reg *r = bdma_reg_named(c, reg);
    if (r) {
        char key[40];
        snprintf(key, sizeof key, "%s=", field);
        for (const char *p = strstr(r->fields, key); p; p = strstr(p + 1, key))
            if (p == r->fields || p[-1] == ' ')
                return strtoull(p + strlen(key), NULL, 0);
    }
    uint32_t v = 0;
    c->run->layer_reg(c->run, (uint32_t)layer, "BDMA", reg, field, &v);
    return v;
}

static uint64_t bdma_value(struct collector *c, int32_t layer, const char *reg)
{
    struct bdma_reg *r = bdma_reg_named(c, reg);
    uint32_t v = 0;
    if (r)
        return r->value;
    c->run->layer_reg(c->run, (uint32_t)layer, "BDMA", reg, NULL, &v);
    return v;
}

/* CFG_OP with EN staged the registers written so far as one operation. */
static void bdma_write(struct collector *c, const struct dladbg_event *ev)
{
    const struct dladbg_reg_event *w = &ev->u.reg;
    struct bdma_reg *r = bdma_reg_named(c, w->name);
    if (!r && c->n_regs < sizeof c->regs / sizeof c->regs[0])
        r = &c->regs[c->n_regs++];
    if (r) {
        snprintf(r->name, sizeof r->name, "%s", w->name);
        r->value = w->value;
        snprintf(r->fields, sizeof r->fields, "%s", w->fields);
    }
    if (strcmp(w->name, "CFG_OP") || !(w->value & 1) || ev->layer < 0)
        return;
    if (!grow((void **)&c->ops, c->n_ops, &c->cap_ops, sizeof *c->ops)) {
        c->oom = true;
        return;
    }
    int32_t l = ev->layer;
    struct aie_bdma_op op = {
        .src = bdma_value(c, l, "CFG_SRC_ADDR_HIGH") << 32 | bdma_value(c, l, "CFG_SRC_ADDR_LOW"),
        .dst = bdma_value(c, l, "CFG_DST_ADDR_HIGH") << 32 | bdma_value(c, l, "CFG_DST_ADDR_LOW"),
        .line_bytes = (bdma_field(c, l, "CFG_LINE", "SIZE") + 1) * 32,
        .line_repeat = bdma_field(c, l, "CFG_LINE_REPEAT", "NUMBER") + 1,
        .surf_repeat = bdma_field(c, l, "CFG_SURF_REPEAT", "NUMBER") + 1,
        .src_line = bdma_value(c, l, "CFG_SRC_LINE"),
        .dst_line = bdma_value(c, l, "CFG_DST_LINE"),
        .src_surf = bdma_value(c, l, "CFG_SRC_SURF"),
        .dst_surf = bdma_value(c, l, "CFG_DST_SURF")};
    c->ops[c->n_ops++] = (struct bdma_rec){l, op};
}

/* ---------------------------------------------------------------- the check */

struct walk {
    const struct dma_rec *const *model; /* the stream's transfers, in order */
    size_t n_model, next;
    uint64_t base;
    unsigned elem;
    bool have; /* a pending merged run */
    uint64_t run_addr, run_len;
    bool padded;
    char diff[160];
};

/* Compare one merged run with the next model transfer. */
static bool walk_flush(struct walk *w)
{
    if (!w->have)
        return true;
    w->have = false;
    if (w->next >= w->n_model) {
        snprintf(w->diff, sizeof w->diff,
                 "mismatch: generated 0x%" PRIx64 " +%" PRIu64 " after the model's %zu transfers",
                 w->run_addr, w->run_len, w->n_model);
        return false;
    }
    const struct dma_rec *m = w->model[w->next];
    if (m->addr != w->run_addr || m->bytes != w->run_len) {
        snprintf(w->diff, sizeof w->diff,
                 "mismatch at transfer %zu: generated 0x%" PRIx64 " +%" PRIu64 ", model 0x%" PRIx64
                 " +%" PRIu64,
                 w->next, w->run_addr, w->run_len, m->addr, m->bytes);
        return false;
    }
    w->next++;
    return true;
}

static bool walk_piece(void *ctx, bool pad, int64_t addr, uint64_t n)
{
    struct walk *w = ctx;
    if (pad) {
        w->padded = true;
        snprintf(w->diff, sizeof w->diff, "mismatch: the derived tiling pads, NVDLA never does");
        return false;
    }
    uint64_t a = w->base + (uint64_t)addr * w->elem, len = n * w->elem;
    if (w->have && w->run_addr + w->run_len == a) {
        w->run_len += len;
        return true;
    }
    if (!walk_flush(w))
        return false;
    w->have = true;
    w->run_addr = a;
    w->run_len = len;
    return true;
}

/* Tiling parameters of each part, and the verdict on the whole stream. */
static void check_stream(struct collector *c, int32_t layer, const struct aie_stream *st,
                         struct aie_tiling *tiles, struct verdict *v)
{
    memset(v, 0, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < c->n_dma; i++)
        if (c->dma[i].layer == layer && c->dma[i].write == st->write &&
            !strcmp(c->dma[i].client, st->client))
            n++;
    const struct dma_rec **model = calloc(n ? n : 1, sizeof *model);
    if (!model) {
        snprintf(v->check, sizeof v->check, "out of memory");
        return;
    }
    n = 0;
    for (size_t i = 0; i < c->n_dma; i++)
        if (c->dma[i].layer == layer && c->dma[i].write == st->write &&
            !strcmp(c->dma[i].client, st->client)) {
            model[n++] = &c->dma[i];
            v->bytes += c->dma[i].bytes;
        }
    v->transfers = n;
    struct walk w = {.model = model, .n_model = n, .elem = st->elem_bytes};
    bool ok = !st->why_not[0];
    for (unsigned p = 0; ok && p < st->n_parts; p++) {
        if (!aie_from_access_natural(&st->part[p], st->elem_bytes, &tiles[p])) {
            snprintf(v->check, sizeof v->check, "not derived: part %u has no tiling form", p);
            free(model);
            return;
        }
    }
    if (st->why_not[0])
        snprintf(v->check, sizeof v->check, "not derived: %s", st->why_not);
    else if (!n)
        snprintf(v->check, sizeof v->check, "no transfer recorded");
    for (unsigned p = 0; ok && n && p < st->n_parts; p++) {
        w.base = st->part[p].base;
        ok = aie_generate(&tiles[p], NULL, walk_piece, &w);
    }
    if (ok && n)
        ok = walk_flush(&w);
    if (n && !st->why_not[0]) {
        if (ok && w.next != n)
            snprintf(v->check, sizeof v->check,
                     "mismatch: generated %zu transfers, the model made %zu", w.next, n);
        else if (ok)
            snprintf(v->check, sizeof v->check, "match");
        else
            snprintf(v->check, sizeof v->check, "%s", w.diff);
    }
    free(model);
}

static void layer_done(struct collector *c, const struct dladbg_event *ev)
{
    const struct dladbg_layer *l = &ev->u.layer;
    if (c->only_layer >= 0 && (int32_t)l->index != c->only_layer)
        return;
    struct aie_bdma_op ops[AIE_MAX_PARTS];
    unsigned n_ops = 0;
    for (size_t i = 0; i < c->n_ops && n_ops < AIE_MAX_PARTS; i++)
        if (c->ops[i].layer == (int32_t)l->index)
            ops[n_ops++] = c->ops[i].op;
    struct aie_regs r = {.run = c->run, .layer = l->index};
    struct aie_stream *st = calloc(AIE_MAX_STREAMS, sizeof *st);
    struct aie_tiling *tiles = calloc(AIE_MAX_PARTS, sizeof *tiles);
    if (!st || !tiles) {
        c->oom = true;
        free(st);
        free(tiles);
        return;
    }
    unsigned n = aie_layer_streams(&r, l->unit, c->run->atom_bytes, ops, n_ops, st);
    for (unsigned i = 0; i < n; i++) {
        struct verdict v;
        if (r.missing) {
            memset(&v, 0, sizeof v);
            snprintf(v.check, sizeof v.check, "not derived: register %.100s unavailable",
                     r.first_missing);
            st[i].n_parts = 0;
        } else {
            check_stream(c, (int32_t)l->index, &st[i], tiles, &v);
        }
        c->emit(c->emit_ctx, l, &st[i], &v);
    }
    free(st);
    free(tiles);
}

static void collect(void *ctx, const struct dladbg_event *ev)
{
    struct collector *c = ctx;
    if (c->oom)
        return;
    if (ev->kind == DLADBG_EV_DMA && ev->layer >= 0) {
        if (!grow((void **)&c->dma, c->n_dma, &c->cap_dma, sizeof *c->dma)) {
            c->oom = true;
            return;
        }
        struct dma_rec *d = &c->dma[c->n_dma++];
        d->layer = ev->layer;
        snprintf(d->client, sizeof d->client, "%s", ev->u.dma.client);
        d->write = ev->u.dma.write != 0;
        d->addr = ev->u.dma.addr;
        d->bytes = ev->u.dma.bytes;
    } else if (ev->kind == DLADBG_EV_REG_WRITE && !strcmp(ev->u.reg.unit, "BDMA")) {
        bdma_write(c, ev);
    } else if (ev->kind == DLADBG_EV_LAYER_RECORD) {
        layer_done(c, ev);
    }
}

static void collector_free(struct collector *c)
{
    free(c->dma);
    free(c->ops);
    free(c);
}

/* ---------------------------------------------------------------- formatting a stream part */

struct part_text {
    char base[24], type[16], buffer[64], tiling[64], offset[64], traversal[160];
    uint64_t bds, elements;
};

static void describe_part(const struct aie_stream *st, unsigned p, struct part_text *out)
{
    struct aie_tiling t;
    memset(out, 0, sizeof *out);
    snprintf(out->base, sizeof out->base, "0x%" PRIx64, st->part[p].base);
    snprintf(out->type, sizeof out->type, "%s", st->type);
    if (!aie_from_access_natural(&st->part[p], st->elem_bytes, &t)) {
        snprintf(out->buffer, sizeof out->buffer, "-");
        snprintf(out->tiling, sizeof out->tiling, "-");
        snprintf(out->offset, sizeof out->offset, "-");
        snprintf(out->traversal, sizeof out->traversal, "-");
        return;
    }
    aie_format_dims(out->buffer, sizeof out->buffer, t.buffer_dim, t.n_dims, false);
    aie_format_dims(out->tiling, sizeof out->tiling, t.tiling_dim, t.n_dims, false);
    aie_format_dims(out->offset, sizeof out->offset, t.offset, t.n_dims, true);
    aie_format_traversal(out->traversal, sizeof out->traversal, &t);
    out->bds = aie_bd_count(&t, AIE_EXT_BD_DIMS);
    out->elements = aie_elements(&t);
}

/* ---------------------------------------------------------------- the decoder */

static const char *const columns[] = {"layer",
                                      "unit",
                                      "client",
                                      "direction",
                                      "what",
                                      "shape",
                                      "part",
                                      "base",
                                      "type",
                                      "buffer_dimension",
                                      "tiling_dimension",
                                      "offset",
                                      "tile_traversal",
                                      "bd_count",
                                      "elements",
                                      "model_transfers",
                                      "model_bytes",
                                      "model_check"};

static void emit_rows(void *ctx, const struct dladbg_layer *l, const struct aie_stream *st,
                      const struct verdict *v)
{
    const struct dladbg_host *host = ctx;
    char num[6][PLUGIN_CELL_LEN];
    unsigned parts = st->n_parts ? st->n_parts : 1;
    for (unsigned p = 0; p < parts; p++) {
        struct part_text t;
        memset(&t, 0, sizeof t);
        if (st->n_parts)
            describe_part(st, p, &t);
        const char *cells[] = {plugin_cell_u64(num[0], l->index),
                               l->unit,
                               st->client,
                               st->write ? "write" : "read",
                               st->what,
                               st->shape,
                               plugin_cell_u64(num[1], p),
                               t.base,
                               st->n_parts ? t.type : "",
                               t.buffer,
                               t.tiling,
                               t.offset,
                               t.traversal,
                               st->n_parts ? plugin_cell_u64(num[2], t.bds) : "",
                               st->n_parts ? plugin_cell_u64(num[3], t.elements) : "",
                               plugin_cell_u64(num[4], v->transfers),
                               plugin_cell_u64(num[5], v->bytes),
                               v->check};
        host->row(host, cells);
    }
}

static void *aie_open(const struct dladbg_host *host)
{
    if (host->struct_size < DLADBG_HOST_HAS_RUN || !host->run) {
        host->error(host, "this dladbg gives decoders no access to the run (host->run)");
        return NULL;
    }
    struct collector *c = calloc(1, sizeof *c);
    if (!c) {
        host->error(host, "out of memory");
        return NULL;
    }
    c->run = host->run;
    c->only_layer = -1;
    c->emit = emit_rows;
    c->emit_ctx = (void *)(uintptr_t)host;
    return c;
}

static void aie_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    struct collector *c = state;
    if (!c)
        return;
    c->emit_ctx = (void *)(uintptr_t)host;
    collect(c, ev);
    if (c->oom) {
        host->error(host, "out of memory");
        c->oom = false;
    }
}

static void aie_close(void *state, const struct dladbg_host *host)
{
    (void)host;
    if (state)
        collector_free(state);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "aie",
    .description = "each layer's DMA streams as AMD AIE-ML tiling parameters, checked against "
                   "the model's transfers",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = aie_open,
    .event = aie_event,
    .close = aie_close,
};

/* ---------------------------------------------------------------- aie streams */

struct text_ctx {
    const struct dladbg_console *con;
    unsigned streams, matched, mismatched;
};

static void emit_text(void *ctx, const struct dladbg_layer *l, const struct aie_stream *st,
                      const struct verdict *v)
{
    struct text_ctx *t = ctx;
    plugin_say(t->con, "layer %u (%s) %s %s, %s %s:", l->index, l->unit, st->client,
               st->write ? "write" : "read", st->what, st->shape);
    uint64_t bds = 0;
    for (unsigned p = 0; p < st->n_parts; p++) {
        struct part_text pt;
        describe_part(st, p, &pt);
        plugin_say(t->con,
                   "  %s%s buffer_dimension %s, tiling_dimension %s, offset %s, tile_traversal %s, "
                   "type %s; %" PRIu64 " elements, %" PRIu64 " buffer descriptor%s",
                   st->n_parts > 1 ? "part " : "", pt.base, pt.buffer, pt.tiling, pt.offset,
                   pt.traversal, pt.type, pt.elements, pt.bds, pt.bds == 1 ? "" : "s");
        bds += pt.bds;
    }
    if (st->n_parts > 1) /* the parts run one after the other: chained BDs */
        plugin_say(t->con, "  %u parts, %" PRIu64 " buffer descriptors in all", st->n_parts, bds);
    plugin_say(t->con, "  model: %" PRIu64 " transfer%s, %" PRIu64 " bytes: %s", v->transfers,
               v->transfers == 1 ? "" : "s", v->bytes, v->check);
    t->streams++;
    t->matched += !strcmp(v->check, "match");
    t->mismatched += !strncmp(v->check, "mismatch", 8);
}

static int cmd_streams(const struct dladbg_console *con, int argc, const char *const *argv)
{
    const struct dladbg_run *run = con->run;
    int32_t only = -1;
    if (argc > 3) {
        con->error(con, "usage: aie streams [LAYER]");
        return 1;
    }
    if (argc == 3) {
        uint64_t v;
        if (plugin_parse_u64(argv[2], &v) || v >= run->layer_count(run)) {
            char msg[160];
            snprintf(msg, sizeof msg, "no layer \"%s\" (the run has %u)", argv[2],
                     run->layer_count(run));
            con->error(con, msg);
            return 1;
        }
        only = (int32_t)v;
    }
    if (!run->layer_count(run)) {
        con->print(con, "No hardware layer has been programmed yet.");
        return 0;
    }
    struct collector *c = calloc(1, sizeof *c);
    if (!c) {
        con->error(con, "out of memory");
        return 1;
    }
    struct text_ctx t = {.con = con};
    c->run = run;
    c->only_layer = only;
    c->emit = emit_text;
    c->emit_ctx = &t;
    run->each_event(run, collect, c);
    bool oom = c->oom;
    collector_free(c);
    if (oom) {
        con->error(con, "out of memory");
        return 1;
    }
    plugin_say(
        con,
        "%u stream%s: %u match the model's transfers, %u do not, %u not checked "
        "(element addresses; buffer descriptors of external memory: 3D + one iteration each)",
        t.streams, t.streams == 1 ? "" : "s", t.matched, t.mismatched,
        t.streams - t.matched - t.mismatched);
    return 0;
}

/* ---------------------------------------------------------------- aie tiling */

/* "{8,8}", "8,8" or "8": up to max numbers. */
static int parse_list(const char *s, int64_t *v, unsigned max, unsigned *n)
{
    *n = 0;
    if (*s == '{')
        s++;
    for (;;) {
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 0);
        if (end == s || errno || *n == max)
            return -1;
        v[(*n)++] = x;
        s = end;
        if (*s == ',' || *s == ':') {
            s++;
            continue;
        }
        if (*s == '}')
            s++;
        return *s ? -1 : 0;
    }
}

static int dims_arg(const struct dladbg_console *con, const char *member, const char *s,
                    unsigned want, bool sign, int64_t *v)
{
    unsigned n;
    if (parse_list(s, v, AIE_MAX_DIMS, &n))
        return plugin_fail(con, "%s \"%s\": expected up to %d comma-separated numbers, e.g. {8,8}",
                           member, s, AIE_MAX_DIMS);
    if (want && n != want)
        return plugin_fail(con, "%s has %u dimensions, buffer_dimension %u", member, n, want);
    for (unsigned i = 0; i < n; i++)
        if ((!sign && v[i] < 0) || v[i] > INT32_MAX || v[i] < INT32_MIN)
            return plugin_fail(con, "%s[%u] = %lld is out of range", member, i, (long long)v[i]);
    return 0;
}

static int parse_tiling(const struct dladbg_console *con, int argc, const char *const *argv,
                        struct aie_tiling *t, uint64_t *limit)
{
    memset(t, 0, sizeof *t);
    t->elem_bits = 32;
    *limit = AIE_PRINT_TILES;
    if (argc < 5)
        return plugin_fail(con, "usage: aie tiling BUFFER_DIM TILING_DIM OFFSET [TRAVERSAL...] "
                                "[boundary DIM] [type T] [limit N]");
    int64_t v[AIE_MAX_DIMS];
    unsigned n;
    if (parse_list(argv[2], v, AIE_MAX_DIMS, &n))
        return plugin_fail(con,
                           "buffer_dimension \"%s\": expected 1 to %d comma-separated numbers, "
                           "e.g. {8,8}",
                           argv[2], AIE_MAX_DIMS);
    t->n_dims = n;
    for (unsigned i = 0; i < n; i++) {
        if (v[i] <= 0 || v[i] > UINT32_MAX)
            return plugin_fail(con, "buffer_dimension[%u] = %lld is out of range", i,
                               (long long)v[i]);
        t->buffer_dim[i] = (uint32_t)v[i];
    }
    if (dims_arg(con, "tiling_dimension", argv[3], n, false, v))
        return 1;
    for (unsigned i = 0; i < n; i++)
        t->tiling_dim[i] = (uint32_t)v[i];
    if (dims_arg(con, "offset", argv[4], n, true, v))
        return 1;
    for (unsigned i = 0; i < n; i++)
        t->offset[i] = (int32_t)v[i];
    for (int i = 5; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "boundary") && i + 1 < argc) {
            if (dims_arg(con, "boundary_dimension", argv[++i], n, false, v))
                return 1;
            for (unsigned k = 0; k < n; k++)
                t->boundary_dim[k] = (uint32_t)v[k];
            t->has_boundary = true;
        } else if (!strcmp(w, "type") && i + 1 < argc) {
            t->elem_bits = aie_type_bits(argv[++i]);
            if (!t->elem_bits)
                return plugin_fail(con,
                                   "type \"%s\": expected int4, uint4, int8, uint8, int16, "
                                   "uint16, bfloat16, fp16, int32, uint32, fp32, float, cint16, "
                                   "cint32 or cfloat",
                                   argv[i]);
        } else if (!strcmp(w, "limit") && i + 1 < argc) {
            if (plugin_parse_u64(argv[++i], limit))
                return plugin_fail(con, "limit \"%s\": expected a number of tiles", argv[i]);
        } else {
            if (t->n_loops == AIE_MAX_LOOPS)
                return plugin_fail(con, "more than %d tile_traversal loops", AIE_MAX_LOOPS);
            int64_t tv[3];
            unsigned k;
            if (parse_list(w, tv, 3, &k) || k != 3 || tv[0] < 0 || tv[1] < 0 || tv[2] < 0 ||
                tv[1] > UINT32_MAX || tv[2] > UINT32_MAX)
                return plugin_fail(con,
                                   "tile_traversal[%u] \"%s\": expected {dimension,stride,wrap} or "
                                   "dimension:stride:wrap",
                                   t->n_loops, w);
            t->loop[t->n_loops++] =
                (struct aie_traversal){(uint32_t)tv[0], (uint32_t)tv[1], (uint32_t)tv[2]};
        }
    }
    char why[256];
    if (aie_tiling_invalid(t, why, sizeof why))
        return plugin_fail(con, "%s", why);
    return 0;
}

/* Printing the sequence: one line per tile, rows separated by " |". */
struct printer {
    const struct dladbg_console *con;
    const struct aie_tiling *t;
    uint64_t limit, tiles, elements, padding, row_left;
    char line[4096];
    size_t used;
    bool truncated;
    int64_t min_origin[AIE_MAX_DIMS], max_end[AIE_MAX_DIMS];
    uint8_t *seen; /* one bit per buffer element, for overlaps (NULL: too large) */
    uint64_t seen_size, overlaps;
};

static void flush_line(struct printer *p)
{
    if (p->used && p->tiles <= p->limit)
        p->con->print(p->con, p->line);
    p->used = 0;
}

static void put(struct printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct printer *p, const char *fmt, ...)
{
    if (p->tiles > p->limit)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (p->used < sizeof p->line) {
        int n = vsnprintf(p->line + p->used, sizeof p->line - p->used, fmt, ap);
        if (n > 0)
            p->used += (size_t)n;
    }
    va_end(ap);
    if (p->used >= sizeof p->line - 1) {
        p->line[sizeof p->line - 5] = 0;
        strcat(p->line, " ...");
        p->used = sizeof p->line - 1;
    }
}

static bool print_tile(void *ctx, uint64_t index, const int64_t *origin)
{
    struct printer *p = ctx;
    flush_line(p);
    p->tiles = index + 1;
    for (unsigned d = 0; d < p->t->n_dims; d++) {
        if (origin[d] < p->min_origin[d])
            p->min_origin[d] = origin[d];
        int64_t end = origin[d] + p->t->tiling_dim[d];
        if (end > p->max_end[d])
            p->max_end[d] = end;
    }
    put(p, "tile %" PRIu64 " at (", index);
    for (unsigned d = 0; d < p->t->n_dims; d++)
        put(p, "%s%" PRId64, d ? "," : "", origin[d]);
    put(p, "):");
    p->row_left = p->t->tiling_dim[0];
    return true;
}

static bool print_piece(void *ctx, bool pad, int64_t addr, uint64_t n)
{
    struct printer *p = ctx;
    for (uint64_t i = 0; i < n; i++) {
        if (p->row_left == 0) {
            put(p, " |");
            p->row_left = p->t->tiling_dim[0];
        }
        p->row_left--;
        p->elements++;
        if (pad) {
            p->padding++;
            put(p, " pad");
            continue;
        }
        uint64_t a = (uint64_t)addr + i;
        put(p, " %" PRIu64, a);
        if (p->seen && a < p->seen_size) {
            if (p->seen[a / 8] & (1u << (a % 8)))
                p->overlaps++;
            p->seen[a / 8] |= (uint8_t)(1u << (a % 8));
        }
    }
    return true;
}

/* Overlapping tiles are found with one bit per buffer element: 16 MiB at most. */
#define AIE_OVERLAP_CHECKED (1ull << 27)

/* The seed's padding limits: memory tile only, dimensions 0-2, at most 64,
 * 32 and 16 words before or after. */
static void padding_notes(struct printer *p)
{
    static const int64_t limit[3] = {64, 32, 16};
    const struct aie_tiling *t = p->t;
    for (unsigned d = 0; d < t->n_dims; d++) {
        int64_t before = p->min_origin[d] < 0 ? -p->min_origin[d] : 0;
        int64_t after = p->max_end[d] > aie_limit(t, d) ? p->max_end[d] - aie_limit(t, d) : 0;
        if (!before && !after)
            continue;
        if (d == 0) { /* dimension 0 counts 32-bit words */
            before = (before * t->elem_bits + 31) / 32;
            after = (after * t->elem_bits + 31) / 32;
        }
        if (d >= 3)
            plugin_say(
                p->con,
                "warning: dimension %u is zero padded, but only dimensions 0, 1 and 2 support "
                "zero padding",
                d);
        else if (before > limit[d] || after > limit[d])
            plugin_say(p->con,
                       "warning: dimension %u pads %" PRId64 " before and %" PRId64
                       " after, more than the %" PRId64 " a memory tile allows",
                       d, before, after, limit[d]);
        else
            plugin_say(p->con,
                       "note: dimension %u pads %" PRId64 " before and %" PRId64
                       " after (zero padding needs a memory tile MM2S port; at most %" PRId64 ")",
                       d, before, after, limit[d]);
    }
}

static int cmd_tiling(const struct dladbg_console *con, int argc, const char *const *argv)
{
    struct aie_tiling t;
    uint64_t limit;
    if (parse_tiling(con, argc, argv, &t, &limit))
        return 1;
    char b[64], ti[64], o[64], tr[200];
    aie_format_dims(b, sizeof b, t.buffer_dim, t.n_dims, false);
    aie_format_dims(ti, sizeof ti, t.tiling_dim, t.n_dims, false);
    aie_format_dims(o, sizeof o, t.offset, t.n_dims, true);
    aie_format_traversal(tr, sizeof tr, &t);
    plugin_say(con,
               "tiling_parameters: buffer_dimension %s, tiling_dimension %s, offset %s, "
               "tile_traversal %s, %u-bit elements (addresses in elements)",
               b, ti, o, tr, t.elem_bits);
    if (aie_elements(&t) > (1ull << 26))
        return plugin_fail(con, "%" PRIu64 " elements is more than this command lists (2^26)",
                           aie_elements(&t));
    struct printer *p = calloc(1, sizeof *p);
    if (!p)
        return plugin_fail(con, "out of memory");
    p->con = con;
    p->t = &t;
    p->limit = limit;
    p->seen_size = 1; /* parse_tiling keeps the product within 2^40 */
    for (unsigned d = 0; d < t.n_dims; d++)
        p->seen_size *= t.buffer_dim[d];
    if (p->seen_size <= AIE_OVERLAP_CHECKED)
        p->seen = calloc((size_t)(p->seen_size + 7) / 8, 1);
    for (unsigned d = 0; d < t.n_dims; d++) {
        p->min_origin[d] = INT64_MAX;
        p->max_end[d] = INT64_MIN;
    }
    aie_generate(&t, print_tile, print_piece, p);
    flush_line(p);
    if (p->tiles > limit)
        plugin_say(con, "... %" PRIu64 " more tiles (\"limit N\" prints more)", p->tiles - limit);
    plugin_say(con,
               "%" PRIu64 " tile%s, %" PRIu64 " elements: %" PRIu64 " from the buffer, %" PRIu64
               " zero padding%s",
               p->tiles, p->tiles == 1 ? "" : "s", p->elements, p->elements - p->padding,
               p->padding, p->overlaps ? "; tiles overlap" : "");
    if (p->overlaps)
        plugin_say(con, "overlap: %" PRIu64 " element reads repeat an address an earlier tile read",
                   p->overlaps);
    else if (!p->seen)
        plugin_say(con, "overlap not checked: the buffer holds %" PRIu64 " elements (2^27 at most)",
                   p->seen_size);
    padding_notes(p);
    plugin_say(con,
               "buffer descriptors: %" PRIu64 " for external memory (3D), %" PRIu64
               " for a memory tile (4D), one iteration each",
               aie_bd_count(&t, 3), aie_bd_count(&t, 4));
    free(p->seen);
    free(p);
    return 0;
}

/* ---------------------------------------------------------------- the command */

static int aie_exec(const struct dladbg_console *con, int argc, const char *const *argv)
{
    if (argc >= 2 && !strcmp(argv[1], "tiling"))
        return cmd_tiling(con, argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "streams"))
        return cmd_streams(con, argc, argv);
    return plugin_fail(con, "expected \"aie tiling ...\" or \"aie streams [LAYER]\"");
}

static void aie_complete(const struct dladbg_console *con, int argc, const char *const *argv,
                         const char *prefix, dladbg_offer_fn offer, void *ctx)
{
    (void)prefix;
    if (argc == 1) {
        offer(ctx, "tiling");
        offer(ctx, "streams");
        return;
    }
    if (!strcmp(argv[1], "streams") && argc == 2) {
        plugin_offer_layers(con, offer, ctx);
        return;
    }
    if (strcmp(argv[1], "tiling") || argc < 5)
        return;
    if (!strcmp(argv[argc - 1], "type")) {
        for (size_t i = 0; i < sizeof aie_types / sizeof aie_types[0]; i++)
            offer(ctx, aie_types[i].name);
        return;
    }
    if (strcmp(argv[argc - 1], "boundary") && strcmp(argv[argc - 1], "limit")) {
        offer(ctx, "boundary");
        offer(ctx, "type");
        offer(ctx, "limit");
    }
}

static const struct dladbg_command commands[] = {
    {"aie",
     "aie tiling BUFFER_DIM TILING_DIM OFFSET [TRAVERSAL...] [boundary DIM] [type T] | aie streams "
     "[LAYER]",
     "AMD AI Engine-ML tiling parameters (UG1603).\n"
     "aie tiling {8,8} {4,4} {0,0} {0,4,2} {1,4,2} type int16: the element addresses a\n"
     "  tiling_parameters object generates, tile by tile (rows separated by |): TRAVERSAL is\n"
     "  {dimension,stride,wrap} (or d:s:w), loop 0 innermost; a stride below the tile size\n"
     "  overlaps tiles; a negative offset or running past the buffer or boundary pads zeros;\n"
     "  16-bit data move in pairs, 8-bit in fours, 4-bit in eights (32-bit aligned addresses).\n"
     "aie streams [LAYER]: every DMA stream of the run's layers as tiling parameters and\n"
     "  buffer descriptors, and whether their addresses equal the model's DMA transfers.",
     aie_exec, aie_complete},
};

const struct dladbg_command_set dladbg_commands = {
    .abi_version = DLADBG_COMMANDS_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_command_set),
    .command_size = sizeof(struct dladbg_command),
    .n_commands = 1,
    .commands = commands,
};
