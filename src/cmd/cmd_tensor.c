/* The tensor command: a loadable's tensors, memory described by hand and
 * hardware layers' surfaces, shown whole or in windows, as raw or real
 * values, summarised (statistics and a histogram) or saved as NumPy .npy;
 * and "info tensors".
 *
 *   tensor[/r|/x] WHAT [all] [n=S] [c=S] [h=S] [w=S] [real] [scale=X]
 *                      [stats [bins=N]] [save FILE.npy [float]]
 *   WHAT: NAME | ID | layer N [out|in] | ADDR WxHxC TYPE [LINE [SURF]]
 *   S:    NumPy slices, half-open: I, A:B, A:, :B, : (negative: from the end)
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_priv.h"
#include "compare/compare.h"
#include "debug/layer_surface.h"
#include "debug/mem_regions.h"
#include "debug/reg_history.h"
#include "loadable/loadable_tensors.h"
#include "util/suggest.h"
#include "tensor/npy.h"
#include "tensor/tensor_read.h"
#include "tensor/tensor_stats.h"

/* What is shown without "all" or a window: a tensor this small whole, a
 * larger one 8 channels x 8 rows x 16 columns at a time. */
#define SHOW_WHOLE_ELEMENTS 1024u
#define SHOW_CHANNELS       8u
#define SHOW_ROWS           8u
#define SHOW_COLUMNS        16u
/* Values on one output line. */
#define PER_LINE 16u
/* Most elements one command prints ("save" takes any size). */
#define SHOW_MAX_ELEMENTS (1u << 22)

/* One dimension's window: [lo, hi), given by the user or not. */
struct slice {
    bool given;
    char text[32];  /* as typed, for messages */
    int64_t lo, hi; /* as typed (negative from the end; hi INT64_MAX: to the end) */
};

struct tensor_opts {
    bool all, real, hex, stats, save_float;
    struct slice dim[4]; /* n, c, h, w */
    double scale;        /* 0: none given */
    unsigned bins;       /* 0: default */
    const char *save;    /* FILE, or NULL */
};

static const char *const dim_names[4] = {"n", "c", "h", "w"};

static const char *const option_words[] = {
    "all", "stats", "save", "real", "float", "n=", "c=", "h=", "w=", "scale=", "bins=", NULL};

/* ---------------------------------------------------------------- parsing */

static bool parse_index(const char *s, const char *end, int64_t *v)
{
    if (s == end)
        return false;
    char buf[32];
    if ((size_t)(end - s) >= sizeof buf)
        return false;
    memcpy(buf, s, (size_t)(end - s));
    buf[end - s] = 0;
    char *e;
    errno = 0;
    long long x = strtoll(buf, &e, 10);
    if (*e || errno || x < -(1ll << 40) || x > (1ll << 40))
        return false;
    *v = x;
    return true;
}

/* "I", "A:B", "A:", ":B", ":" */
static bool parse_slice(const char *text, struct slice *s)
{
    const char *colon = strchr(text, ':');
    s->given = true;
    snprintf(s->text, sizeof s->text, "%s", text);
    if (!colon) {
        if (!parse_index(text, text + strlen(text), &s->lo))
            return false;
        s->hi = s->lo == -1 ? INT64_MAX : s->lo + 1;
        return true;
    }
    if (strchr(colon + 1, ':'))
        return false; /* a step: not supported */
    s->lo = 0;
    s->hi = INT64_MAX;
    if (colon > text && !parse_index(text, colon, &s->lo))
        return false;
    if (colon[1] && !parse_index(colon + 1, colon + strlen(colon), &s->hi))
        return false;
    return true;
}

/* A slice against a dimension of size n: NumPy's rules for a range (clamped)
 * but an index (I) must exist. */
static bool resolve_slice(struct dbg *d, struct cmd_args *a, int k, const struct slice *s,
                          uint32_t n, uint32_t *lo, uint32_t *hi)
{
    if (!s->given) {
        *lo = 0;
        *hi = n;
        return true;
    }
    int64_t l = s->lo < 0 ? s->lo + n : s->lo;
    bool index = s->hi != INT64_MAX && s->hi == s->lo + 1;
    index = index || (s->lo == -1 && s->hi == INT64_MAX);
    if (index && (l < 0 || l >= (int64_t)n)) {
        cmd_fail(d, a, "%s=%s is outside 0..%u (the tensor has %s=%u)", dim_names[k], s->text,
                 n - 1, dim_names[k], n);
        return false;
    }
    int64_t h = s->hi == INT64_MAX ? n : s->hi < 0 ? s->hi + n : s->hi;
    if (index)
        h = l + 1;
    l = l < 0 ? 0 : l > (int64_t)n ? n : l;
    h = h < 0 ? 0 : h > (int64_t)n ? n : h;
    if (h <= l) {
        cmd_fail(d, a, "%s=%s selects nothing of the tensor's %s=%u", dim_names[k], s->text,
                 dim_names[k], n);
        return false;
    }
    *lo = (uint32_t)l;
    *hi = (uint32_t)h;
    return true;
}

static enum cmd_status unknown_option(struct dbg *d, struct cmd_args *a, const char *w)
{
    struct suggest sg;
    suggest_init(&sg, w);
    for (size_t i = 0; option_words[i]; i++)
        suggest_consider(&sg, option_words[i]);
    const char *best = suggest_best(&sg);
    char hint[64] = "";
    if (best)
        snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", best);
    return cmd_fail(d, a,
                    "unknown option \"%s\"%s: expected all, n=/c=/h=/w= slices (I, A:B, A:, :B), "
                    "real, scale=X, stats [bins=N], save FILE.npy [float]",
                    w, hint);
}

/* Options from argument i on. */
static bool parse_options(struct dbg *d, struct cmd_args *a, int i, struct tensor_opts *o)
{
    memset(o, 0, sizeof *o);
    o->real = strchr(a->suffix, 'r') != NULL;
    o->hex = strchr(a->suffix, 'x') != NULL;
    for (const char *p = a->suffix[0] ? a->suffix + 1 : ""; *p; p++)
        if (*p != 'r' && *p != 'x') {
            cmd_fail(d, a, "tensor%s: expected /r (real values) or /x (raw hex)", a->suffix);
            return false;
        }
    for (; i < cmd_nargs(a); i++) {
        const char *w = cmd_arg(a, i);
        const char *eq = strchr(w, '=');
        if (!strcasecmp(w, "all")) {
            o->all = true;
        } else if (!strcasecmp(w, "real")) {
            o->real = true;
        } else if (!strcasecmp(w, "stats")) {
            o->stats = true;
        } else if (!strcasecmp(w, "save")) {
            if (!cmd_arg(a, i + 1)) {
                cmd_fail(d, a, "save: expected FILE.npy");
                return false;
            }
            o->save = cmd_arg(a, ++i);
            if (cmd_arg(a, i + 1) && !strcasecmp(cmd_arg(a, i + 1), "float")) {
                o->save_float = true;
                i++;
            }
        } else if (!strcasecmp(w, "float")) {
            cmd_fail(d, a, "\"float\" goes after \"save FILE.npy\"");
            return false;
        } else if (eq && eq - w == 1 && strchr("nchwNCHW", w[0])) {
            int k = (int)(strchr("nchw", tolower((unsigned char)w[0])) - "nchw");
            if (!parse_slice(eq + 1, &o->dim[k])) {
                cmd_fail(d, a,
                         "%s: expected an index or a half-open range as NumPy writes them "
                         "(%s=3, %s=0:4, %s=2:, %s=:-1; no steps)",
                         w, dim_names[k], dim_names[k], dim_names[k], dim_names[k]);
                return false;
            }
        } else if (eq && !strncasecmp(w, "scale=", 6)) {
            char *end;
            errno = 0;
            o->scale = strtod(eq + 1, &end);
            if (*end || errno || !(o->scale > 0) || !isfinite(o->scale)) {
                cmd_fail(d, a, "%s: expected a positive number (the real value of one step)", w);
                return false;
            }
            o->real = true;
        } else if (eq && !strncasecmp(w, "bins=", 5)) {
            char *end;
            long n = strtol(eq + 1, &end, 10);
            if (*end || n < 1 || n > TENSOR_STATS_MAX_BINS) {
                cmd_fail(d, a, "%s: expected 1..%d bins", w, TENSOR_STATS_MAX_BINS);
                return false;
            }
            o->bins = (unsigned)n;
            o->stats = true;
        } else {
            unknown_option(d, a, w);
            return false;
        }
    }
    if (o->stats && o->save) {
        cmd_fail(d, a, "stats and save are separate commands");
        return false;
    }
    if (o->hex && o->real) {
        cmd_fail(d, a, "/x shows raw bits; it does not go with real values");
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- which tensor */

/* The loadable's tensors; false (with a message) when the file names none. */
static bool list_tensors(struct dbg *d, struct cmd_args *a, struct tensor_info **t, size_t *n)
{
    char err[512];
    if (dbg_tensors(d, t, n, err, sizeof err))
        return true;
    cmd_fail(d, a, "%s has no named tensors (%s); use \"tensor ADDR WxHxC TYPE\"",
             session_path(d->session), err);
    return false;
}

static bool parse_dims(const char *s, uint32_t *w, uint32_t *h, uint32_t *c)
{
    unsigned long long x, y, z;
    char tail;
    if (sscanf(s, "%llux%llux%llu%c", &x, &y, &z, &tail) != 3)
        return false;
    if (!x || !y || !z || x > 65536 || y > 65536 || z > 65536)
        return false;
    *w = (uint32_t)x;
    *h = (uint32_t)y;
    *c = (uint32_t)z;
    return true;
}

static bool looks_like_dims(const char *s)
{
    return s && isdigit((unsigned char)s[0]) && strchr(s, 'x') && !strchr(s, '=');
}

/* ADDR WxHxC TYPE [LINE [SURF]]: *next is the first argument after it. */
static bool explicit_tensor(struct dbg *d, struct cmd_args *a, struct tensor_info *t, int *next)
{
    memset(t, 0, sizeof *t);
    t->n = 1;
    t->id = -1;
    enum dla_space space;
    if (!cmd_parse_address(d, a, cmd_arg(a, 0), &space, &t->addr))
        return false;
    t->space = (uint8_t)space;
    if (!parse_dims(cmd_arg(a, 1), &t->w, &t->h, &t->c)) {
        cmd_fail(d, a, "expected dimensions WxHxC (each 1..65536), not \"%s\"", cmd_arg(a, 1));
        return false;
    }
    if (!cmd_arg(a, 2) || !tensor_elem_parse(cmd_arg(a, 2), &t->elem)) {
        cmd_fail(d, a, "expected int8, uint8, int16 or fp16 after %s, not \"%s\"", cmd_arg(a, 1),
                 cmd_arg(a, 2) ? cmd_arg(a, 2) : "");
        return false;
    }
    t->elem_stride = dla_cfg(session_dla(d->session))->mem_atom;
    if (t->elem_stride < tensor_elem_bytes(t->elem))
        t->elem_stride = tensor_elem_bytes(t->elem);
    t->line_stride = (uint64_t)t->w * t->elem_stride;
    t->surf_stride = t->line_stride * t->h;
    int i = 3;
    for (int k = 0; k < 2 && cmd_arg(a, i) && !strchr(cmd_arg(a, i), '=') &&
                    (isdigit((unsigned char)cmd_arg(a, i)[0]) || cmd_arg(a, i)[0] == '(');
         k++, i++) {
        int64_t v;
        if (!cmd_number(d, a, cmd_arg(a, i), &v))
            return false;
        if (v <= 0) {
            cmd_fail(d, a, "%s stride must be positive", k ? "surface" : "line");
            return false;
        }
        if (k == 0) {
            t->line_stride = (uint64_t)v;
            t->surf_stride = t->line_stride * t->h;
        } else {
            t->surf_stride = (uint64_t)v;
        }
    }
    *next = i;
    return true;
}

/* layer N [out|in] */
static bool layer_tensor(struct dbg *d, struct cmd_args *a, struct tensor_info *t, int *next,
                         uint32_t *layer)
{
    struct dla *dla = session_dla(d->session);
    const char *num = cmd_arg(a, 1);
    if (!num || isalpha((unsigned char)num[0])) {
        cmd_fail(d, a,
                 "expected \"layer N [out|in]\", N a hardware layer as \"info layers\" "
                 "numbers them%s%s%s",
                 num ? ", not \"" : "", num ? num : "", num ? "\"" : "");
        return false;
    }
    int64_t v;
    if (!cmd_number(d, a, num, &v))
        return false;
    if (v < 0 || (uint64_t)v >= dla_layer_count(dla)) {
        if (dla_layer_count(dla))
            cmd_fail(d, a, "no hardware layer %lld: the run has layers 0..%zu so far", (long long)v,
                     dla_layer_count(dla) - 1);
        else
            cmd_fail(d, a, "no hardware layer %lld: none has been programmed yet", (long long)v);
        return false;
    }
    enum layer_side side = LAYER_OUT;
    int i = 2;
    if (cmd_arg(a, 2) && (!strcasecmp(cmd_arg(a, 2), "in") || !strcasecmp(cmd_arg(a, 2), "out"))) {
        side = !strcasecmp(cmd_arg(a, 2), "in") ? LAYER_IN : LAYER_OUT;
        i = 3;
    }
    *layer = (uint32_t)v;
    struct reg_history *h = reg_history_create(d->ring, dla_layer_count(dla));
    char why[512];
    bool ok = layer_surface_of_layer(dla, h, *layer, side, t, why, sizeof why);
    reg_history_destroy(h);
    if (!ok) {
        cmd_fail(d, a, "layer %u (%s): %s", *layer,
                 dla_proc_name((enum dla_proc)dla_layer_get(dla, *layer)->proc), why);
        return false;
    }
    *next = i;
    return true;
}

/* NAME or ID of the loadable's tensors. */
static bool named_tensor(struct dbg *d, struct cmd_args *a, struct tensor_info *out)
{
    struct tensor_info *t;
    size_t n;
    if (!list_tensors(d, a, &t, &n))
        return false;
    const char *want = cmd_arg(a, 0);
    char *end;
    long id = strtol(want, &end, 0);
    const struct tensor_info *hit = NULL;
    for (size_t i = 0; i < n && !hit; i++)
        if (!strcasecmp(t[i].name, want) || (!*end && end != want && t[i].id == id))
            hit = &t[i];
    if (hit) {
        *out = *hit;
    } else {
        struct suggest sg;
        suggest_init(&sg, want);
        for (size_t i = 0; i < n; i++)
            suggest_consider(&sg, t[i].name);
        char hint[96] = "";
        if (suggest_best(&sg))
            snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", suggest_best(&sg));
        cmd_fail(d, a, "no tensor named or numbered \"%s\"%s; \"info tensors\" lists them", want,
                 hint);
    }
    free(t);
    return hit != NULL;
}

/* ---------------------------------------------------------------- scale */

/* A scale the comparison knows (compare DIR, --compare): for a hardware
 * layer the one it applied to the layer's output (its blob's calibration
 * scale, or the one the data show for a tensor feeding an add), else the
 * calibration table's entry of the tensor's own name.  0 when none. */
static double compare_scale(struct dbg *d, const struct tensor_info *t, long layer, char *from,
                            size_t len)
{
    const struct ref_dir *ref = d->cmp ? compare_reference(d->cmp) : NULL;
    if (!ref)
        return 0;
    if (layer >= 0) {
        const struct compare_result *r = compare_of_layer(d->cmp, (uint32_t)layer);
        if (!r || r->blob < 0 || (size_t)r->blob >= ref->n_blobs)
            return 0;
        const char *blob = ref->blobs[r->blob].name;
        if (r->compared && r->m.mode == CMP_SCALED && r->m.scale > 0) {
            snprintf(from, len, " (the comparison's, blob %s)", blob);
            return r->m.scale;
        }
        double sc = ref_dir_scale(ref, blob);
        if (sc > 0)
            snprintf(from, len, " (calibration table, blob %s)", blob);
        return sc;
    }
    double sc = t->name[0] ? ref_dir_scale(ref, t->name) : 0;
    if (sc > 0)
        snprintf(from, len, " (calibration table, %s)", t->name);
    return sc;
}

/* The scale of one step of t's integer values: the one given, else the
 * comparison's (compare_scale), else none: a loadable's tensor descriptors
 * carry no scale (the calibration table the compiler read is not in the
 * loadable).  from: where it came from, for the header. */
static bool real_scale(struct dbg *d, struct cmd_args *a, const struct tensor_info *t,
                       const struct tensor_opts *o, long layer, double *scale, char *from,
                       size_t fromlen)
{
    from[0] = 0;
    *scale = o->scale;
    if (t->elem == TENSOR_FP16) {
        *scale = 1; /* fp16 values are real values */
        return true;
    }
    if (o->scale > 0)
        return true;
    *scale = compare_scale(d, t, layer, from, fromlen);
    if (*scale > 0)
        return true;
    cmd_fail(d, a,
             "%s%s holds %s values and its scale is not known (a loadable carries none): give "
             "scale=X, the real value of one step (the calibration table's \"scale\"), or "
             "compare against a reference with one",
             t->name[0] ? "tensor " : "the tensor", t->name, tensor_elem_name(t->elem));
    return false;
}

/* ---------------------------------------------------------------- showing */

static void format_value(const struct tensor_data *td, uint64_t i, const struct tensor_opts *o,
                         double scale, char *buf, size_t len)
{
    uint8_t elem = td->info.elem;
    if (o->hex) {
        int32_t raw = tensor_elem_raw(elem, td->data, i);
        unsigned digits = tensor_elem_bytes(elem) * 2;
        snprintf(buf, len, "0x%0*x", (int)digits, (unsigned)raw & (digits == 2 ? 0xffu : 0xffffu));
    } else if (o->real && elem != TENSOR_FP16) {
        snprintf(buf, len, "%.6g",
                 tensor_real_value(elem, tensor_elem_value(elem, td->data, i), scale));
    } else {
        tensor_elem_format(elem, td->data, i, buf, len);
    }
}

/* "c=0:4" for a window of a dimension, "" when it is whole. */
static void window_text(const struct tensor_info *t, const struct tensor_box *b, char *buf,
                        size_t len)
{
    const uint32_t lo[4] = {b->n0, b->c0, b->h0, b->w0}, hi[4] = {b->n1, b->c1, b->h1, b->w1};
    const uint32_t n[4] = {t->n, t->c, t->h, t->w};
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < 4 && k < len; i++) {
        if (lo[i] == 0 && hi[i] == n[i])
            continue;
        int m = hi[i] == lo[i] + 1
                    ? snprintf(buf + k, len - k, "%s%s=%u", k ? " " : "", dim_names[i], lo[i])
                    : snprintf(buf + k, len - k, "%s%s=%u:%u", k ? " " : "", dim_names[i], lo[i],
                               hi[i]);
        if (m > 0)
            k += (size_t)m;
    }
}

static void print_header(struct dbg *d, const struct tensor_info *t, const struct tensor_box *box,
                         double scale, const char *from)
{
    char win[128], sc[160] = "";
    window_text(t, box, win, sizeof win);
    if (scale > 0 && t->elem != TENSOR_FP16)
        snprintf(sc, sizeof sc, ", scale %g%s", scale, from);
    cmd_print(d,
              "tensor%s%s %s 0x%llx: N=%u C=%u H=%u W=%u %s, %s, line stride %llu, surface "
              "stride %llu%s",
              t->name[0] ? " " : "", t->name, dla_space_name((enum dla_space)t->space),
              (unsigned long long)t->addr, t->n, t->c, t->h, t->w, tensor_elem_name(t->elem),
              t->pitch ? "pitch-linear pixels" : "feature atoms",
              (unsigned long long)t->line_stride, (unsigned long long)t->surf_stride, sc);
    if (win[0])
        cmd_print(d, "showing %s", win);
}

/* Values of one run of elements (a row, or the channels of 1x1 planes),
 * PER_LINE to an output line, each line starting with prefix and, when the
 * run takes several lines or mark is set, "DIM=K" of its first element. */
static void print_values(struct dbg *d, const struct tensor_data *td, const struct tensor_opts *o,
                         double scale, const char *prefix, const char *dim, bool mark,
                         uint32_t first, uint32_t count, uint64_t i0, uint64_t step)
{
    bool fp16 = td->info.elem == TENSOR_FP16;
    bool wide = fp16 ? !o->hex : o->real;
    for (uint32_t k = 0; k < count; k += PER_LINE) {
        char line[512];
        int n = mark || count > PER_LINE
                    ? snprintf(line, sizeof line, "%s%s=%-4u", prefix, dim, first + k)
                    : snprintf(line, sizeof line, "%s", prefix);
        for (uint32_t j = k; j < count && j < k + PER_LINE && n > 0 && (size_t)n < sizeof line;
             j++) {
            char v[40];
            format_value(td, i0 + j * step, o, scale, v, sizeof v);
            n += snprintf(line + n, sizeof line - (size_t)n, wide ? " %11s" : " %7s", v);
        }
        cmd_print(d, "%s", line);
    }
}

static void show_elements(struct dbg *d, const struct tensor_data *td, const struct tensor_opts *o,
                          double scale)
{
    const struct tensor_box *b = &td->box;
    /* 1x1 planes (a vector of logits): the channels side by side */
    bool vector = td->info.h == 1 && td->info.w == 1;
    for (uint32_t n = b->n0; n < b->n1; n++) {
        if (vector) {
            if (td->info.n > 1)
                cmd_print(d, "n=%u:", n);
            print_values(d, td, o, scale, "  ", "c", true, b->c0, td->c,
                         tensor_data_index(td, n, b->c0, b->h0, b->w0), 1);
            continue;
        }
        for (uint32_t c = b->c0; c < b->c1; c++) {
            cmd_print(d, "n=%u c=%u:", n, c);
            for (uint32_t y = b->h0; y < b->h1; y++) {
                char prefix[32];
                snprintf(prefix, sizeof prefix, "  h=%-3u%s", y, td->w > PER_LINE ? " " : "");
                print_values(d, td, o, scale, prefix, "w", false, b->w0, td->w,
                             tensor_data_index(td, n, c, y, b->w0), 1);
            }
        }
    }
}

/* What was left out of a default window, and how to see it. */
static void print_rest(struct dbg *d, const struct tensor_info *t, const struct tensor_box *b,
                       const struct tensor_opts *o, const char *what)
{
    char more[256] = "";
    size_t k = 0;
    const uint32_t lo[4] = {b->n0, b->c0, b->h0, b->w0}, hi[4] = {b->n1, b->c1, b->h1, b->w1};
    const uint32_t n[4] = {t->n, t->c, t->h, t->w};
    static const char *const noun[4] = {"batches", "channels", "rows", "columns"};
    for (int i = 0; i < 4; i++) {
        if (o->dim[i].given || hi[i] >= n[i])
            continue;
        uint32_t next = hi[i] + (hi[i] - lo[i]) < n[i] ? hi[i] + (hi[i] - lo[i]) : n[i];
        int m = snprintf(more + k, sizeof more - k, "%s%u more %s (%s=%u:%u next)", k ? ", " : "",
                         n[i] - hi[i], noun[i], dim_names[i], hi[i], next);
        if (m > 0 && (size_t)m < sizeof more - k)
            k += (size_t)m;
    }
    if (more[0])
        cmd_print(d, "... %s; \"tensor %s all\" shows every element", more, what);
}

/* ---------------------------------------------------------------- stats */

static void print_stats(struct dbg *d, const struct tensor_stats *s, bool real)
{
    char line[512];
    bool ints = s->elem != TENSOR_FP16 && !real;
    const char *fmt = ints ? "%.0f" : "%.6g";
    cmd_print(d, "%llu elements%s", (unsigned long long)s->count,
              real && s->elem != TENSOR_FP16 ? " (real values: raw x scale)" : "");
    if (!s->finite) {
        cmd_print(d, "no finite element");
    } else {
        char mn[40], mx[40];
        snprintf(mn, sizeof mn, fmt, s->min);
        snprintf(mx, sizeof mx, fmt, s->max);
        cmd_print(d, "min %s  max %s  mean %.6g  std %.6g", mn, mx, s->mean, s->std);
    }
    double pct = s->count ? 100.0 / (double)s->count : 0;
    int n = snprintf(line, sizeof line, "zeros %llu (%.2f%%)", (unsigned long long)s->zeros,
                     (double)s->zeros * pct);
    if (s->low != s->high)
        n += snprintf(line + n, sizeof line - (size_t)n,
                      "  at %d: %llu (%.2f%%)  at %d: %llu (%.2f%%)", s->low,
                      (unsigned long long)s->at_low, (double)s->at_low * pct, s->high,
                      (unsigned long long)s->at_high, (double)s->at_high * pct);
    if (s->elem == TENSOR_FP16)
        snprintf(line + n, sizeof line - (size_t)n, "  NaN %llu  +Inf %llu  -Inf %llu",
                 (unsigned long long)s->nan, (unsigned long long)s->pos_inf,
                 (unsigned long long)s->neg_inf);
    cmd_print(d, "%s", line);
    if (!s->finite)
        return;
    uint64_t most = 0;
    for (unsigned i = 0; i < s->bins; i++)
        most = s->hist[i] > most ? s->hist[i] : most;
    char mn[40], mx[40];
    snprintf(mn, sizeof mn, fmt, s->min);
    snprintf(mx, sizeof mx, fmt, s->max);
    cmd_print(d, "histogram: %u bins over [%s, %s]", s->bins, mn, mx);
    for (unsigned i = 0; i < s->bins; i++) {
        double lo, hi;
        tensor_stats_bin_edges(s, i, &lo, &hi);
        char bar[64];
        unsigned len = most ? (unsigned)((s->hist[i] * 40 + most - 1) / most) : 0;
        memset(bar, '#', len);
        bar[len] = 0;
        cmd_print(d, "  [%11.5g, %11.5g%c %10llu  %s", lo, hi, i + 1 == s->bins ? ']' : ')',
                  (unsigned long long)s->hist[i], bar);
    }
}

/* ---------------------------------------------------------------- save */

static enum cmd_status save_npy(struct dbg *d, struct cmd_args *a, const struct tensor_data *td,
                                const struct tensor_opts *o, double scale)
{
    static const enum npy_dtype dtypes[4] = {NPY_I8, NPY_U8, NPY_I16, NPY_F16};
    uint64_t shape[4] = {td->n, td->c, td->h, td->w};
    char err[1024];
    enum npy_dtype dt = dtypes[td->info.elem];
    void *data = td->data;
    float *real = NULL;
    if (o->save_float) {
        real = malloc((size_t)td->count * sizeof *real);
        if (!real)
            return cmd_fail(d, a, "out of memory for %llu float32 values",
                            (unsigned long long)td->count);
        for (uint64_t i = 0; i < td->count; i++)
            real[i] = (float)tensor_real_value(
                td->info.elem, tensor_elem_value(td->info.elem, td->data, i), scale);
        dt = NPY_F32;
        data = real;
    }
    bool ok = npy_write(o->save, dt, 4, shape, data, err, sizeof err);
    free(real);
    if (!ok)
        return cmd_fail(d, a, "%s", err);
    cmd_print(d, "Wrote %ux%ux%ux%u %s (NCHW%s) to %s.", td->n, td->c, td->h, td->w,
              npy_dtype_name(dt),
              o->save_float && td->info.elem != TENSOR_FP16 ? ", raw x scale" : "", o->save);
    return CMD_OK;
}

/* ---------------------------------------------------------------- the command */

/* Every byte of a tensor, first to last element as its shape and strides
 * place them, is memory (mem_accessible), not only its first: a tensor
 * described by hand, a layer's surface as its registers place it, a
 * loadable's tensor as the loadable places it (a hostile one may put it
 * anywhere).  placed says which of the last two, for the message (""
 * by hand).  Asked after the limits on what is shown and read (box), which
 * say more of an absurd shape; an extent that does not fit 64 bits is left
 * to the read, which says so. */
static bool extent_accessible(struct dbg *d, struct cmd_args *a, const struct tensor_info *t,
                              const struct tensor_box *box, const char *placed)
{
    uint64_t span, outside;
    char msg[512];
    if (tensor_box_count(box) * tensor_elem_bytes(t->elem) > TENSOR_READ_MAX_BYTES ||
        !tensor_span(t, &span) ||
        mem_accessible(d->session, (enum dla_space)t->space, t->addr, span, "the tensor", &outside,
                       msg, sizeof msg))
        return true;
    cmd_fail(d, a, "%s%s%s", placed, placed[0] ? ": " : "", msg);
    return false;
}

/* "layer 5 output, as its registers place it", "tensor \"data\" (id 0), as
 * the loadable places it", "" by hand. */
static void placed_text(const struct tensor_info *t, long layer, bool by_hand, char *buf,
                        size_t len)
{
    buf[0] = 0;
    if (by_hand)
        return;
    if (layer >= 0)
        snprintf(buf, len, "%s, as its registers place it", t->name);
    else
        snprintf(buf, len, "tensor \"%s\" (id %d), as the loadable places it", t->name, t->id);
}

/* by_hand: the tensor is ADDR WxHxC TYPE (extent_accessible, placed_text) */
static enum cmd_status run_tensor(struct dbg *d, struct cmd_args *a, const struct tensor_info *t,
                                  const struct tensor_opts *o, long layer, bool by_hand,
                                  const char *what)
{
    struct tensor_box box;
    uint32_t lo[4], hi[4];
    const uint32_t n[4] = {t->n, t->c, t->h, t->w};
    for (int k = 0; k < 4; k++)
        if (!resolve_slice(d, a, k, &o->dim[k], n[k], &lo[k], &hi[k]))
            return CMD_ERROR;
    box = (struct tensor_box){lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]};
    bool show = !o->stats && !o->save;
    /* without "all", a large tensor shows its first batch, 8 channels, 8 rows, 16 columns of
     * each dimension not given */
    if (show && !o->all && tensor_box_count(&box) > SHOW_WHOLE_ELEMENTS) {
        static const uint32_t limit[4] = {1, SHOW_CHANNELS, SHOW_ROWS, SHOW_COLUMNS};
        uint32_t *lows[4] = {&box.n0, &box.c0, &box.h0, &box.w0};
        uint32_t *highs[4] = {&box.n1, &box.c1, &box.h1, &box.w1};
        for (int k = 0; k < 4; k++)
            if (!o->dim[k].given && *highs[k] - *lows[k] > limit[k])
                *highs[k] = *lows[k] + limit[k];
    }
    if (show && tensor_box_count(&box) > SHOW_MAX_ELEMENTS)
        return cmd_fail(d, a,
                        "%llu elements: at most %u are printed; narrow with n=/c=/h=/w=, or "
                        "\"save FILE.npy\"",
                        (unsigned long long)tensor_box_count(&box), SHOW_MAX_ELEMENTS);
    double scale = 0;
    char from[128] = "";
    if ((o->real || o->save_float) && !real_scale(d, a, t, o, layer, &scale, from, sizeof from))
        return CMD_ERROR;
    char placed[160];
    placed_text(t, layer, by_hand, placed, sizeof placed);
    if (!extent_accessible(d, a, t, &box, placed))
        return CMD_ERROR;
    struct tensor_data td;
    char err[1024];
    if (!tensor_read_box(session_dla(d->session), t, &box, &td, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    enum cmd_status st = CMD_OK;
    if (o->save) {
        st = save_npy(d, a, &td, o, scale);
    } else if (o->stats) {
        print_header(d, t, &box, o->real ? scale : 0, from);
        struct tensor_stats s, r;
        tensor_stats_compute(t->elem, td.data, td.count, o->bins, &s);
        if (o->real && t->elem != TENSOR_FP16) {
            tensor_stats_scaled(&s, scale, &r);
            print_stats(d, &r, true);
        } else {
            print_stats(d, &s, false);
        }
    } else {
        print_header(d, t, &box, o->real ? scale : 0, from);
        show_elements(d, &td, o, scale);
        if (!o->all)
            print_rest(d, t, &box, o, what);
    }
    tensor_data_free(&td);
    return st;
}

/* How the tensor is named again in hints: its name, or the words that chose it. */
static void what_text(struct cmd_args *a, int upto, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < upto && k < len; i++) {
        int m = snprintf(buf + k, len - k, "%s%s", i ? " " : "", cmd_arg(a, i));
        if (m > 0)
            k += (size_t)m;
    }
}

static void layer_state_note(struct dbg *d, uint32_t layer)
{
    const struct dla_layer *l = dla_layer_get(session_dla(d->session), layer);
    if (l->state == DLA_LAYER_DONE)
        return;
    cmd_out(d, DBG_OUT_NOTE,
            "(layer %u is %s: its output is written when it completes; memory holds what was "
            "there before)",
            layer, l->state == DLA_LAYER_RUNNING ? "running" : "not started yet");
}

static enum cmd_status do_tensor(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (!cmd_nargs(a))
        return cmd_fail(d, a,
                        "expected NAME|ID, layer N [out|in], or ADDR WxHxC TYPE [LINE [SURF]] "
                        "(\"help tensor\")");
    struct tensor_info t;
    int next = 1;
    long layer = -1;
    bool by_hand = false;
    const char *first = cmd_arg(a, 0);
    if (!strcasecmp(first, "layer") && (!cmd_arg(a, 1) || !strchr(cmd_arg(a, 1), '='))) {
        uint32_t l;
        if (!layer_tensor(d, a, &t, &next, &l))
            return CMD_ERROR;
        layer = l;
    } else if (looks_like_dims(cmd_arg(a, 1))) {
        if (!explicit_tensor(d, a, &t, &next))
            return CMD_ERROR;
        by_hand = true;
    } else if (!named_tensor(d, a, &t)) {
        return CMD_ERROR;
    }
    struct tensor_opts o;
    if (!parse_options(d, a, next, &o))
        return CMD_ERROR;
    char what[256];
    what_text(a, next, what, sizeof what);
    if (layer >= 0 && !o.save)
        layer_state_note(d, (uint32_t)layer);
    return run_tensor(d, a, &t, &o, layer, by_hand, what);
}

enum cmd_status cmd_info_tensors(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    struct tensor_info *t;
    size_t n;
    if (!list_tensors(d, a, &t, &n))
        return CMD_ERROR;
    for (size_t i = 0; i < n; i++)
        cmd_print(d, "%3d %-24s %s 0x%llx %llu bytes, NCHW %ux%ux%ux%u %s", t[i].id, t[i].name,
                  dla_space_name((enum dla_space)t[i].space), (unsigned long long)t[i].addr,
                  (unsigned long long)t[i].size, t[i].n, t[i].c, t[i].h, t[i].w,
                  tensor_elem_name(t[i].elem));
    if (!n)
        cmd_print(d, "The loadable names no tensors.");
    free(t);
    return CMD_OK;
}

/* ---------------------------------------------------------------- completion */

void cmd_tensor_offer_names(struct dbg *d, void (*offer)(void *ctx, const char *cand), void *ctx)
{
    offer(ctx, "layer");
    if (!d->session)
        return;
    struct tensor_info *t;
    size_t n;
    char err[256];
    if (!dbg_tensors(d, &t, &n, err, sizeof err))
        return;
    for (size_t i = 0; i < n; i++)
        if (t[i].name[0])
            offer(ctx, t[i].name);
    free(t);
}

void cmd_tensor_offer_options(const char *prev, void (*offer)(void *ctx, const char *cand),
                              void *ctx)
{
    if (prev && !strcasecmp(prev, "layer"))
        return; /* a layer number */
    for (size_t i = 0; option_words[i]; i++)
        offer(ctx, option_words[i]);
    offer(ctx, "in");
    offer(ctx, "out");
}

const struct cmd_entry cmd_tensor_entries[] = {
    {"tensor", NULL, "TENSOR [TOPT] ...",
     "tensor[/r|/x] NAME|ID|layer N [out|in]|ADDR WxHxC TYPE [LINE [SURF]] [OPTIONS]",
     "Show a tensor: one of the loadable's (by name or id, see \"info tensors\"), a hardware\n"
     "layer's output or input surface as its registers describe it (\"layer N\", N as\n"
     "\"info layers\" numbers them; a past layer as it was programmed), or memory described\n"
     "by hand (ADDR WxHxC int8|uint8|int16|fp16, NVDLA feature atoms, default strides\n"
     "packed).  Elements are printed n, c, h, w; a tensor of up to 1024 elements whole,\n"
     "a larger one 8 channels x 8 rows x 16 columns (\"...\" says what is left and how to\n"
     "see it).  OPTIONS, in any order:\n"
     "  all               every element\n"
     "  n=S c=S h=S w=S   a window, NumPy slices (half-open): 3, 0:4, 2:, :8, -1, :-1\n"
     "  real, /r          real values: raw x scale for int8/int16 (a loadable carries no\n"
     "                    scales: scale=X, else the one \"compare DIR\" knows: the scale it\n"
     "                    applied to the layer, or its calibration table's entry of the name);\n"
     "                    fp16 values are real already\n"
     "  scale=X           the real value of one integer step (implies real)\n"
     "  /x                raw values in hex (fp16: the bits)\n"
     "  stats [bins=N]    min, max, mean, std, zeros, counts at the int8/int16 limits,\n"
     "                    fp16 NaN/Inf, and a histogram of N bins (default 20) over [min, max]\n"
     "  save FILE.npy [float]\n"
     "                    write the tensor (or the window) as NumPy .npy, shape (N,C,H,W),\n"
     "                    dtype int8/uint8/int16/float16 as held; \"float\": float32 real\n"
     "                    values (int8/int16 need a scale, as for real)\n"
     "Every byte of a tensor's extent must be memory, as for x: one that runs out of it\n"
     "(by hand, as a layer's registers or the loadable place it) is refused, named.\n"
     "Examples: tensor prob   tensor layer 2 c=0:4 h=2 w=0:8   tensor layer 3 stats\n"
     "          tensor layer 9 save ip2.npy   tensor data scale=0.0078 stats bins=10",
     do_tensor, NULL, false},
    END_OF_TABLE,
};
