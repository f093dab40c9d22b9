/* Plugin "sophon": tensors in Sophon BM1684x local memory (seed 004).
 *
 *   sophon layout N,C,H,W [options]     strides and the lane/bank map of a tensor
 *   sophon matrix ROWS COLS w W [options]
 *   sophon vector M w W [options]
 *   sophon kernel IC,OC,KH,KW [dtype]   64IC (int8) / 32IC (fp16, bf16) layout
 *   sophon layer L [input|output] [options]
 *                                       the NVDLA cube of layer L placed the same way
 *   decoder: every element of every layer's input and output cube, 64-byte
 *            aligned from NPU 0: lane, bank, byte
 *
 * Options: dtype int8|uint8|int16|uint16|fp16|bf16|int32|uint32|fp32,
 * aligned|compact|line|strides n,c,h,w, npu Q (start NPU), npus X (lanes;
 * the seed's figures use 4), addr A (byte address in the start lane),
 * elements (list every element's place), limit N (elements listed). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_console.h"
#include "plugin_util.h"
#include "sophon_layout.h"

#define GRID_MAX_COLUMNS 24 /* feature blocks shown per lane */
#define LIST_LIMIT       64 /* elements listed by "elements" unless "limit N" */

struct dtype {
    const char *name;
    unsigned bytes;
};

static const struct dtype dtypes[] = {
    {"int8", 1}, {"uint8", 1}, {"int16", 2},  {"uint16", 2}, {"fp16", 2},
    {"bf16", 2}, {"int32", 4}, {"uint32", 4}, {"fp32", 4},
};

static const struct dtype *dtype_named(const char *name)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(dtypes[i].name, name))
            return &dtypes[i];
    return NULL;
}

static const char *dtype_of(unsigned bytes, const char *given)
{
    if (given)
        return given;
    return bytes == 1 ? "int8" : bytes == 2 ? "fp16" : "fp32";
}

/* ---------------------------------------------------------------- output helpers */

/* "2,3,4,5" or "(2,3,4,5)": exactly n positive numbers. */
static int parse_tuple(const char *s, uint64_t *v, unsigned n)
{
    if (*s == '(' || *s == '{')
        s++;
    for (unsigned i = 0; i < n; i++) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(s, &end, 0);
        if (end == s || errno || *s == '-')
            return -1;
        v[i] = x;
        s = end;
        if (i + 1 < n) {
            if (*s != ',' && *s != 'x')
                return -1;
            s++;
        }
    }
    if (*s == ')' || *s == '}')
        s++;
    return *s ? -1 : 0;
}

/* ---------------------------------------------------------------- options */

struct opts {
    const char *dtype; /* NULL: the command's default */
    bool elements;
    uint64_t limit;
    bool have_strides;
    uint64_t strides[4];
    int layout; /* -1: the command's default */
    uint64_t start, npus, addr;
    const char *which; /* layer: "input" / "output" */
};

static int parse_opts(const struct dladbg_console *con, int argc, const char *const *argv,
                      int first, struct opts *o)
{
    *o = (struct opts){.limit = LIST_LIMIT, .layout = -1, .npus = SOPHON_NPUS};
    for (int i = first; i < argc; i++) {
        const char *w = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(w, "aligned"))
            o->layout = SOPHON_ALIGNED;
        else if (!strcmp(w, "compact"))
            o->layout = SOPHON_COMPACT;
        else if (!strcmp(w, "line"))
            o->layout = SOPHON_LINE_ALIGNED;
        else if (!strcmp(w, "elements"))
            o->elements = true;
        else if (!strcmp(w, "input") || !strcmp(w, "output"))
            o->which = w;
        else if (!strcmp(w, "strides") && next) {
            if (parse_tuple(next, o->strides, 4))
                return plugin_fail(con, "strides \"%s\": expected N,C,H,W element strides", next);
            o->layout = SOPHON_STRIDES;
            o->have_strides = true;
            i++;
        } else if (!strcmp(w, "dtype") && next) {
            if (!dtype_named(next))
                return plugin_fail(con,
                                   "dtype \"%s\": expected int8, uint8, int16, uint16, fp16, "
                                   "bf16, int32, uint32 or fp32",
                                   next);
            o->dtype = next;
            i++;
        } else if ((!strcmp(w, "npu") || !strcmp(w, "npus") || !strcmp(w, "addr") ||
                    !strcmp(w, "limit")) &&
                   next) {
            uint64_t v;
            if (plugin_parse_u64(next, &v))
                return plugin_fail(con, "%s \"%s\": expected a number", w, next);
            if (!strcmp(w, "npu"))
                o->start = v;
            else if (!strcmp(w, "npus"))
                o->npus = v;
            else if (!strcmp(w, "addr"))
                o->addr = v;
            else
                o->limit = v;
            i++;
        } else {
            return plugin_fail(con, "unexpected \"%s\" (\"help sophon\" lists the options)", w);
        }
    }
    if (o->npus < 1 || o->npus > SOPHON_NPUS)
        return plugin_fail(con, "npus %" PRIu64 ": BM1684x has 1 to %d lanes", o->npus,
                           SOPHON_NPUS);
    if (o->start >= o->npus)
        return plugin_fail(con, "npu %" PRIu64 ": the start NPU must be below npus (%" PRIu64 ")",
                           o->start, o->npus);
    if (o->addr >= SOPHON_LANE_BYTES)
        return plugin_fail(con, "addr 0x%" PRIx64 " is past the 256 KiB of a lane", o->addr);
    return 0;
}

/* Fill the tensor's common fields from the options; false after an error. */
static int apply_opts(const struct dladbg_console *con, const struct opts *o,
                      struct sophon_tensor *t, unsigned default_bytes)
{
    const struct dtype *dt = o->dtype ? dtype_named(o->dtype) : NULL;
    t->bytes = dt ? dt->bytes : default_bytes;
    t->npus = (unsigned)o->npus;
    t->start = (unsigned)o->start;
    t->addr = o->addr;
    if (o->layout >= 0 && t->layout != SOPHON_IC)
        t->layout = (enum sophon_layout)o->layout;
    if (o->have_strides)
        memcpy(t->stride, o->strides, sizeof t->stride);
    if (!t->n || !t->c || !t->h || !t->w)
        return plugin_fail(con, "every dimension must be at least 1");
    uint64_t dims[4] = {t->n, t->c, t->h, t->w}, total = 1;
    for (int i = 0; i < 4; i++) {
        if (dims[i] > (1ull << 32) / total) /* before it could overflow */
            return plugin_fail(con, "the tensor has more than 2^32 elements");
        total *= dims[i];
    }
    sophon_strides(t);
    unsigned align = sophon_addr_alignment(t);
    if (t->addr % align)
        return plugin_fail(con,
                           "addr 0x%" PRIx64 ": the %s layout needs an address divisible by %u",
                           t->addr, t->layout == SOPHON_COMPACT ? "compact" : "aligned", align);
    return 0;
}

/* ---------------------------------------------------------------- the map */

static const char *layout_name(const struct sophon_tensor *t)
{
    switch (t->layout) {
    case SOPHON_ALIGNED:
        return "64-byte aligned (tpu_aligned_stride)";
    case SOPHON_COMPACT:
        return "compact (tpu_compact_stride)";
    case SOPHON_LINE_ALIGNED:
        return "line 64-byte aligned (tpu_line_aligned_stride)";
    case SOPHON_IC:
        return t->bytes == 1 ? "64IC kernel" : "32IC kernel";
    case SOPHON_STRIDES:
        break;
    }
    return "given strides";
}

static void describe(const struct dladbg_console *con, const struct sophon_tensor *t,
                     const char *what, const char *dtype)
{
    uint64_t lane = sophon_lane_bytes(t);
    plugin_say(con,
               "%s (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ") %s, %s, from NPU %u of %u:",
               what, t->n, t->c, t->h, t->w, dtype, layout_name(t), t->start, t->npus);
    plugin_say(con,
               "  strides (elements): N %" PRIu64 ", C %" PRIu64 ", H %" PRIu64 ", W %" PRIu64
               "; %" PRIu64 " channel%s per NPU; %" PRIu64 " bytes per lane from 0x%" PRIx64
               ", banks %" PRIu64 "..%" PRIu64 " (16 KiB each)",
               t->stride[0], t->stride[1], t->stride[2], t->stride[3], sophon_channels_per_npu(t),
               sophon_channels_per_npu(t) == 1 ? "" : "s", lane, t->addr,
               t->addr / SOPHON_BANK_BYTES,
               lane ? (t->addr + lane - 1) / SOPHON_BANK_BYTES : t->addr / SOPHON_BANK_BYTES);
}

/* One row per lane, one cell per feature block (batch n, channel row r):
 * the feature (n, c) it holds, its byte offset in the lane and its bank;
 * "-" where the lane holds nothing of this tensor (the seed's empty blocks). */
static void grid(const struct dladbg_console *con, const struct sophon_tensor *t)
{
    uint64_t rows = sophon_channels_per_npu(t);
    uint64_t batches = t->layout == SOPHON_IC ? 1 : t->n;
    uint64_t cols = rows * batches, shown = cols < GRID_MAX_COLUMNS ? cols : GRID_MAX_COLUMNS;
    unsigned lanes = t->c + t->start < t->npus ? (unsigned)(t->c + t->start) : t->npus;
    char line[GRID_MAX_COLUMNS * 24 + 64];
    for (unsigned lane = 0; lane < lanes; lane++) {
        size_t used = (size_t)snprintf(line, sizeof line, "  NPU %2u |", lane);
        for (uint64_t k = 0; k < shown; k++) {
            uint64_t n = k / rows, r = k % rows;
            int64_t c = (int64_t)(r * t->npus + lane) - (int64_t)t->start;
            char cell[40];
            if (c < 0 || (uint64_t)c >= t->c) {
                snprintf(cell, sizeof cell, "-");
            } else {
                struct sophon_place p = sophon_place(t, n, (uint64_t)c, 0, 0);
                if (t->layout == SOPHON_IC)
                    snprintf(cell, sizeof cell, "oc%" PRId64 " @0x%" PRIx64 " b%u", c, p.offset,
                             p.bank);
                else
                    snprintf(cell, sizeof cell, "n%" PRIu64 "c%" PRId64 " @0x%" PRIx64 " b%u", n, c,
                             p.offset, p.bank);
            }
            used += (size_t)snprintf(line + used, sizeof line - used, " %-18s|", cell);
            if (used >= sizeof line)
                break;
        }
        con->print(con, line);
    }
    if (lanes < t->npus)
        plugin_say(con, "  (NPU%s %u%s%.0u hold%s nothing of this tensor)",
                   lanes + 1 < t->npus ? "s" : "", lanes, lanes + 1 < t->npus ? ".." : "",
                   lanes + 1 < t->npus ? t->npus - 1 : 0, lanes + 1 < t->npus ? "" : "s");
    if (shown < cols)
        plugin_say(con, "  ... %" PRIu64 " more blocks per lane", cols - shown);
}

static void list_elements(const struct dladbg_console *con, const struct sophon_tensor *t,
                          uint64_t limit)
{
    uint64_t listed = 0, total = t->n * t->c * t->h * t->w;
    for (uint64_t n = 0; n < t->n; n++)
        for (uint64_t c = 0; c < t->c; c++)
            for (uint64_t h = 0; h < t->h; h++)
                for (uint64_t w = 0; w < t->w; w++) {
                    if (listed == limit) {
                        plugin_say(con, "  ... %" PRIu64 " more elements (\"limit N\")",
                                   total - listed);
                        return;
                    }
                    struct sophon_place p = sophon_place(t, n, c, h, w);
                    plugin_say(con,
                               "  n%" PRIu64 "c%" PRIu64 "h%" PRIu64 "w%" PRIu64
                               ": NPU %u bank %u offset 0x%" PRIx64 " address 0x%" PRIx64 "%s",
                               n, c, h, w, p.lane, p.bank, p.offset, p.address,
                               sophon_holds_data(t, c, h, w) ? "" : " (padding)");
                    listed++;
                }
}

static void show(const struct dladbg_console *con, const struct sophon_tensor *t,
                 const struct opts *o, const char *what)
{
    describe(con, t, what, dtype_of(t->bytes, o->dtype));
    grid(con, t);
    if (o->elements)
        list_elements(con, t, o->limit);
}

/* ---------------------------------------------------------------- commands */

static int cmd_layout(const struct dladbg_console *con, int argc, const char *const *argv)
{
    struct sophon_tensor t = {.layout = SOPHON_ALIGNED};
    uint64_t shape[4];
    if (argc < 3 || parse_tuple(argv[2], shape, 4))
        return plugin_fail(con,
                           "usage: sophon layout N,C,H,W [dtype T] [aligned|compact|line|strides "
                           "n,c,h,w] [npu Q] [npus X] [addr A] [elements]");
    struct opts o;
    if (parse_opts(con, argc, argv, 3, &o))
        return 1;
    t.n = shape[0], t.c = shape[1], t.h = shape[2], t.w = shape[3];
    if (apply_opts(con, &o, &t, 1))
        return 1;
    show(con, &t, &o, "tensor");
    return 0;
}

/* matrix ROWS COLS w W / vector M w W */
static int cmd_matrix(const struct dladbg_console *con, int argc, const char *const *argv)
{
    bool vector = !strcmp(argv[1], "vector");
    int first = vector ? 5 : 6; /* where the options begin */
    uint64_t rows = 1, cols, w;
    if (argc < first || (!vector && plugin_parse_u64(argv[2], &rows)) ||
        plugin_parse_u64(argv[vector ? 2 : 3], &cols) || strcmp(argv[first - 2], "w") ||
        plugin_parse_u64(argv[first - 1], &w))
        return plugin_fail(con, vector ? "usage: sophon vector M w W [options]"
                                       : "usage: sophon matrix ROWS COLS w W [options]");
    if (!w || w > cols)
        return plugin_fail(con, "w = %" PRIu64 " must be in [1, %" PRIu64 "]", w, cols);
    struct opts o;
    if (parse_opts(con, argc, argv, first, &o))
        return 1;
    if (o.layout >= 0 && o.layout != SOPHON_ALIGNED)
        return plugin_fail(con, "the %s layout is the 64-byte aligned one", argv[1]);
    struct sophon_tensor t;
    memset(&t, 0, sizeof t);
    sophon_matrix(&t, rows, cols, w);
    if (apply_opts(con, &o, &t, 2))
        return 1;
    char what[96];
    snprintf(what, sizeof what, "%s %" PRIu64 "x%" PRIu64 " with w = %" PRIu64 " as", argv[1], rows,
             cols, w);
    show(con, &t, &o, what);
    return 0;
}

static int cmd_kernel(const struct dladbg_console *con, int argc, const char *const *argv)
{
    uint64_t k[4];
    if (argc < 3 || parse_tuple(argv[2], k, 4))
        return plugin_fail(con, "usage: sophon kernel IC,OC,KH,KW [dtype int8|fp16|bf16] [npu Q] "
                                "[npus X] [addr A] [elements]");
    struct opts o;
    if (parse_opts(con, argc, argv, 3, &o))
        return 1;
    if (o.layout >= 0)
        return plugin_fail(con, "a kernel has the 64IC/32IC layout (dtype chooses which)");
    const char *dt = o.dtype ? o.dtype : "int8";
    if (strcmp(dt, "int8") && strcmp(dt, "fp16") && strcmp(dt, "bf16"))
        return plugin_fail(con, "dtype %s: 64IC holds int8, 32IC fp16 or bf16", dt);
    struct sophon_tensor t = {.n = k[0], .c = k[1], .h = k[2], .w = k[3], .layout = SOPHON_IC};
    if (apply_opts(con, &o, &t, 1))
        return 1;
    show(con, &t, &o, "kernel (ic,oc,kh,kw)");
    return 0;
}

/* ---------------------------------------------------------------- NVDLA layers */

/* The cube a layer reads or writes, from its registers. */
struct cube {
    uint64_t w, h, c, n;
    unsigned bytes;
    const char *dtype;
};

static uint32_t reg(const struct dladbg_run *run, uint32_t layer, const char *unit,
                    const char *name, const char *field, bool *ok)
{
    uint32_t v = 0;
    if (run->layer_reg(run, layer, unit, name, field, &v))
        *ok = false;
    return v;
}

static void prec_type(uint32_t prec, struct cube *cb)
{
    cb->bytes = prec == 0 ? 1 : 2;
    cb->dtype = prec == 0 ? "int8" : prec == 1 ? "int16" : "fp16";
}

/* A unit's W/H/C size registers (each holds size - 1). */
static void cube_regs(const struct dladbg_run *run, uint32_t l, const char *unit,
                      const char *const names[6], struct cube *cb, bool *ok)
{
    cb->w = reg(run, l, unit, names[0], names[1], ok) + 1ull;
    cb->h = reg(run, l, unit, names[2], names[3], ok) + 1ull;
    cb->c = reg(run, l, unit, names[4], names[5], ok) + 1ull;
    cb->n = 1;
}

static const char *const cube_names[] = {
    "D_DATA_CUBE_WIDTH", "WIDTH", "D_DATA_CUBE_HEIGHT", "HEIGHT", "D_DATA_CUBE_CHANNEL", "CHANNEL"};
static const char *const pdp_in[] = {"D_DATA_CUBE_IN_WIDTH",   "CUBE_IN_WIDTH",
                                     "D_DATA_CUBE_IN_HEIGHT",  "CUBE_IN_HEIGHT",
                                     "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL"};
static const char *const pdp_out[] = {"D_DATA_CUBE_OUT_WIDTH",   "CUBE_OUT_WIDTH",
                                      "D_DATA_CUBE_OUT_HEIGHT",  "CUBE_OUT_HEIGHT",
                                      "D_DATA_CUBE_OUT_CHANNEL", "CUBE_OUT_CHANNEL"};
static const char *const dain[] = {"D_DATAIN_SIZE_0", "DATAIN_WIDTH",    "D_DATAIN_SIZE_0",
                                   "DATAIN_HEIGHT",   "D_DATAIN_SIZE_1", "DATAIN_CHANNEL"};
static const char *const cacc_out[] = {"D_DATAOUT_SIZE_0", "DATAOUT_WIDTH",    "D_DATAOUT_SIZE_0",
                                       "DATAOUT_HEIGHT",   "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL"};

/* 0, or -1 with why when the layer has no such cube. */
static int layer_cube(const struct dladbg_run *run, uint32_t l, const char *unit, bool output,
                      struct cube *cb, char *why, size_t len)
{
    bool ok = true;
    memset(cb, 0, sizeof *cb);
    if (!strcmp(unit, "SDP")) {
        cube_regs(run, l, output ? "SDP" : "SDP_RDMA", cube_names, cb, &ok);
        cb->n = output ? reg(run, l, "SDP", "D_FEATURE_MODE_CFG", "BATCH_NUMBER", &ok) + 1ull : 1;
        prec_type(output ? reg(run, l, "SDP", "D_DATA_FORMAT", "OUT_PRECISION", &ok)
                         : reg(run, l, "SDP_RDMA", "D_FEATURE_MODE_CFG", "IN_PRECISION", &ok),
                  cb);
    } else if (!strcmp(unit, "PDP")) {
        cube_regs(run, l, "PDP", output ? pdp_out : pdp_in, cb, &ok);
        prec_type(reg(run, l, "PDP", "D_DATA_FORMAT", "INPUT_DATA", &ok), cb);
    } else if (!strcmp(unit, "CDP")) {
        cube_regs(run, l, "CDP_RDMA", cube_names, cb, &ok);
        prec_type(reg(run, l, "CDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA", &ok), cb);
    } else if (!strcmp(unit, "CONV")) {
        cube_regs(run, l, output ? "CACC" : "CDMA", output ? cacc_out : dain, cb, &ok);
        cb->n = reg(run, l, "CDMA", "D_BATCH_NUMBER", "BATCHES", &ok) + 1ull;
        uint32_t prec = reg(run, l, "CDMA", "D_MISC_CFG", "IN_PRECISION", &ok);
        prec_type(prec, cb);
        if (output) { /* the accumulator's output to SDP */
            cb->bytes = 4;
            cb->dtype = prec == 2 ? "fp32" : "int32";
        }
    } else if (!strcmp(unit, "RUBIK")) {
        cube_regs(run, l, "RBK", dain, cb, &ok);
        prec_type(reg(run, l, "RBK", "D_MISC_CFG", "IN_PRECISION", &ok), cb);
        if (output) {
            cb->c = reg(run, l, "RBK", "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL", &ok) + 1ull;
            if (reg(run, l, "RBK", "D_MISC_CFG", "RUBIK_MODE", &ok) == 0) {
                cb->w *= reg(run, l, "RBK", "D_DECONV_STRIDE", "DECONV_X_STRIDE", &ok) + 1ull;
                cb->h *= reg(run, l, "RBK", "D_DECONV_STRIDE", "DECONV_Y_STRIDE", &ok) + 1ull;
            }
        }
    } else {
        snprintf(why, len, "a %s layer moves bytes, not a tensor cube", unit);
        return -1;
    }
    if (!ok) {
        snprintf(why, len, "the registers layer %u ran with are no longer known (event ring)", l);
        return -1;
    }
    return 0;
}

static int cmd_layer(const struct dladbg_console *con, int argc, const char *const *argv)
{
    const struct dladbg_run *run = con->run;
    uint64_t l;
    if (argc < 3 || plugin_parse_u64(argv[2], &l))
        return plugin_fail(con,
                           "usage: sophon layer L [input|output] [aligned|compact|line] [npu Q] "
                           "[npus X] [addr A] [elements]");
    if (l >= run->layer_count(run))
        return plugin_fail(con, "no layer %" PRIu64 " (the run has %u)", l, run->layer_count(run));
    struct opts o;
    if (parse_opts(con, argc, argv, 3, &o))
        return 1;
    if (o.dtype || o.have_strides)
        return plugin_fail(con, "the layer's registers give the type and shape");
    struct dladbg_layer info;
    run->layer(run, (uint32_t)l, &info);
    bool output = o.which && !strcmp(o.which, "output");
    struct cube cb;
    char why[160];
    if (layer_cube(run, (uint32_t)l, info.unit, output, &cb, why, sizeof why))
        return plugin_fail(con, "layer %" PRIu64 ": %s", l, why);
    struct sophon_tensor t = {.n = cb.n, .c = cb.c, .h = cb.h, .w = cb.w, .layout = SOPHON_ALIGNED};
    o.dtype = cb.dtype;
    if (apply_opts(con, &o, &t, cb.bytes))
        return 1;
    t.bytes = cb.bytes;
    sophon_strides(&t);
    char what[96];
    snprintf(what, sizeof what, "layer %" PRIu64 " (%s) %s cube", l, info.unit,
             output ? "output" : "input");
    show(con, &t, &o, what);
    return 0;
}

static int sophon_exec(const struct dladbg_console *con, int argc, const char *const *argv)
{
    const char *sub = argc >= 2 ? argv[1] : "";
    if (!strcmp(sub, "layout"))
        return cmd_layout(con, argc, argv);
    if (!strcmp(sub, "matrix") || !strcmp(sub, "vector"))
        return cmd_matrix(con, argc, argv);
    if (!strcmp(sub, "kernel"))
        return cmd_kernel(con, argc, argv);
    if (!strcmp(sub, "layer"))
        return cmd_layer(con, argc, argv);
    return plugin_fail(con, "expected layout, matrix, vector, kernel or layer (\"help sophon\")");
}

static void sophon_complete(const struct dladbg_console *con, int argc, const char *const *argv,
                            const char *prefix, dladbg_offer_fn offer, void *ctx)
{
    (void)prefix;
    static const char *const subs[] = {"layout", "matrix", "vector", "kernel", "layer"};
    if (argc == 1) {
        for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
            offer(ctx, subs[i]);
        return;
    }
    const char *prev = argv[argc - 1];
    if (!strcmp(prev, "dtype")) {
        for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
            offer(ctx, dtypes[i].name);
        return;
    }
    if (!strcmp(argv[1], "layer") && argc == 2) {
        plugin_offer_layers(con, offer, ctx);
        return;
    }
    static const char *const takes_value[] = {"strides", "npu", "npus", "addr", "limit", "w"};
    for (size_t i = 0; i < sizeof takes_value / sizeof takes_value[0]; i++)
        if (!strcmp(prev, takes_value[i]))
            return;
    if (argc < 3)
        return;
    static const char *const words[] = {"aligned", "compact", "line", "strides",  "dtype",
                                        "npu",     "npus",    "addr", "elements", "limit"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        offer(ctx, words[i]);
    if (!strcmp(argv[1], "layer")) {
        offer(ctx, "input");
        offer(ctx, "output");
    }
}

static const struct dladbg_command commands[] = {
    {"sophon",
     "sophon layout|matrix|vector|kernel|layer ... [dtype T] [aligned|compact|line|strides "
     "n,c,h,w] [npu Q] [npus X] [addr A] [elements]",
     "Sophon BM1684x local-memory layouts over 64 NPU lanes and 16 banks.\n"
     "sophon layout N,C,H,W: strides (tpu_aligned_stride, tpu_compact_stride, line aligned, or\n"
     "  given with strides n,c,h,w) and a map: one row per NPU lane, one cell per feature (n,c)\n"
     "  with its byte offset in the lane and its bank (b0..b15); \"elements\" lists each element.\n"
     "sophon matrix ROWS COLS w W, sophon vector M w W: the matrix/vector layouts.\n"
     "sophon kernel IC,OC,KH,KW: the 64IC (int8) / 32IC (fp16, bf16) convolution-kernel layout.\n"
     "sophon layer L [input|output]: layer L's NVDLA cube placed the same way.\n"
     "npu Q starts at NPU Q; npus X sets the lanes (the seed's figures use 4).",
     sophon_exec, sophon_complete},
};

const struct dladbg_command_set dladbg_commands = {
    .abi_version = DLADBG_COMMANDS_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_command_set),
    .command_size = sizeof(struct dladbg_command),
    .n_commands = 1,
    .commands = commands,
};

/* ---------------------------------------------------------------- the decoder */

static const char *const columns[] = {"layer", "unit",  "cube", "n",    "c",      "h",
                                      "w",     "dtype", "npu",  "bank", "offset", "address"};

/* Rows per cube at most: a register-programmed cube may be huge, an export
 * may not run forever. */
#define DECODER_MAX_ELEMENTS (1ull << 24)

static void cube_rows(const struct dladbg_host *host, const struct dladbg_layer *l,
                      const char *which, const struct cube *cb)
{
    if (cb->n * cb->c * cb->h * cb->w > DECODER_MAX_ELEMENTS) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "layer %u's %s cube has %llu elements, more than the 2^24 this decoder lists",
                 l->index, which, (unsigned long long)(cb->n * cb->c * cb->h * cb->w));
        host->error(host, msg);
        return;
    }
    struct sophon_tensor t = {.n = cb->n,
                              .c = cb->c,
                              .h = cb->h,
                              .w = cb->w,
                              .bytes = cb->bytes,
                              .npus = SOPHON_NPUS,
                              .layout = SOPHON_ALIGNED};
    sophon_strides(&t);
    char num[10][PLUGIN_CELL_LEN];
    for (uint64_t n = 0; n < t.n; n++)
        for (uint64_t c = 0; c < t.c; c++)
            for (uint64_t h = 0; h < t.h; h++)
                for (uint64_t w = 0; w < t.w; w++) {
                    struct sophon_place p = sophon_place(&t, n, c, h, w);
                    snprintf(num[8], sizeof num[8], "0x%" PRIx64, p.offset);
                    snprintf(num[9], sizeof num[9], "0x%" PRIx64, p.address);
                    const char *cells[] = {plugin_cell_u64(num[0], l->index),
                                           l->unit,
                                           which,
                                           plugin_cell_u64(num[1], n),
                                           plugin_cell_u64(num[2], c),
                                           plugin_cell_u64(num[3], h),
                                           plugin_cell_u64(num[4], w),
                                           cb->dtype,
                                           plugin_cell_u64(num[5], p.lane),
                                           plugin_cell_u64(num[6], p.bank),
                                           num[8],
                                           num[9]};
                    host->row(host, cells);
                }
}

static void *sophon_open(const struct dladbg_host *host)
{
    if (host->struct_size < DLADBG_HOST_HAS_RUN || !host->run)
        host->error(host, "this dladbg gives decoders no access to the run (host->run)");
    return NULL;
}

static void sophon_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD || host->struct_size < DLADBG_HOST_HAS_RUN || !host->run)
        return;
    static const char *const which[2] = {"input", "output"};
    for (int out = 0; out < 2; out++) {
        struct cube cb;
        char why[160];
        if (layer_cube(host->run, ev->u.layer.index, ev->u.layer.unit, out, &cb, why, sizeof why) ==
            0)
            cube_rows(host, &ev->u.layer, which[out], &cb);
    }
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "sophon",
    .description = "every element of each layer's input and output cube placed in BM1684x "
                   "local memory (64-byte aligned from NPU 0): lane, bank, byte",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = sophon_open,
    .event = sophon_event,
    .close = plugin_stateless_close,
};
