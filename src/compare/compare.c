/* Capturing layer outputs and comparing them with a reference (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug/breakpoints.h"
#include "debug/layer_surface.h"
#include "tensor/tensor_read.h"
#include "util/crc32.h"

/* The automatic mapping looks this many blobs ahead of the place order.txt
 * has reached (a fused chain ends a few blobs on: conv, bn, scale, relu,
 * add, relu, plus a projection shortcut's blobs) and this many back (a
 * branch the compiler ran in another order than the prototxt lists it). */
#define MAP_AHEAD 16
#define MAP_BACK  4
/* A blob behind the place must agree this much better to be chosen. */
#define MAP_BACK_PENALTY 0.02
/* A scale fitted to the data that differs from the blob's table entry by
 * more than SCALE_OFF while lying within SCALE_NEAR of another entry is the
 * scale the hardware applies (see pick_scale). */
#define SCALE_OFF  0.03
#define SCALE_NEAR 0.02

struct named {
    struct tensor_info info;
    bool is_input;
    bool read; /* crc holds the bytes as last read */
    uint32_t crc;
};

struct compare {
    struct session *s;
    struct dla *d;
    int listener;
    struct report *rep;
    struct breakpoints *bps;
    bool on;

    bool have_ref;
    struct ref_dir ref;
    struct cmp_tolerance tol;

    uint64_t budget, used, dropped;
    bool budget_said;

    struct compare_result *r; /* every capture, current or not */
    size_t n, cap;
    uint64_t next_seq;

    struct named *tensors;
    size_t n_tensors;

    uint64_t tasks_seen;
    bool end_checked;

    size_t *order; /* scratch for compare_get: current results by seq */
    size_t n_order;
    bool order_stale;
};

/* ---------------------------------------------------------------- life */

struct compare *compare_create(void)
{
    struct compare *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->listener = -1;
    cmp_tolerance_default(&c->tol);
    return c;
}

static void forget_results(struct compare *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->r[i].got);
    c->n = 0;
    c->used = c->dropped = 0;
    c->budget_said = false;
    c->next_seq = 1;
    c->tasks_seen = 0;
    c->end_checked = false;
    c->order_stale = true;
    for (size_t i = 0; i < c->n_tensors; i++)
        c->tensors[i].read = false;
}

void compare_destroy(struct compare *c)
{
    if (!c)
        return;
    compare_attach(c, NULL, NULL, NULL);
    forget_results(c);
    free(c->r);
    free(c->order);
    free(c->tensors);
    compare_unload(c);
    free(c);
}

static void on_event(void *ctx, const struct dla_event *ev);

void compare_attach(struct compare *c, struct session *s, struct report *rep,
                    struct breakpoints *bps)
{
    if (c->d && c->listener >= 0)
        dla_unlisten(c->d, c->listener); /* detached before its session closes */
    c->s = s;
    c->d = s ? session_dla(s) : NULL;
    c->rep = rep;
    c->bps = bps;
    c->listener = c->d ? dla_listen(c->d, on_event, c) : -1;
    forget_results(c);
}

void compare_set_tensors(struct compare *c, const struct tensor_info *t, const bool *is_input,
                         size_t n)
{
    free(c->tensors);
    c->tensors = n ? calloc(n, sizeof *c->tensors) : NULL;
    c->n_tensors = c->tensors ? n : 0;
    for (size_t i = 0; i < c->n_tensors; i++) {
        c->tensors[i].info = t[i];
        c->tensors[i].is_input = is_input[i];
    }
}

void compare_enable(struct compare *c, bool on)
{
    c->on = on;
}

bool compare_enabled(const struct compare *c)
{
    return c->on;
}

bool compare_load(struct compare *c, const char *dir, const char *calibtable, char *err,
                  size_t errlen)
{
    struct ref_dir fresh;
    if (!ref_dir_load(dir, calibtable, &fresh, err, errlen))
        return false;
    compare_unload(c);
    c->ref = fresh;
    c->have_ref = true;
    forget_results(c);
    return true;
}

void compare_unload(struct compare *c)
{
    if (c->have_ref)
        ref_dir_free(&c->ref);
    c->have_ref = false;
}

const struct ref_dir *compare_reference(const struct compare *c)
{
    return c->have_ref ? &c->ref : NULL;
}

void compare_set_tolerance(struct compare *c, const struct cmp_tolerance *t)
{
    c->tol = *t;
}

const struct cmp_tolerance *compare_tolerance(const struct compare *c)
{
    return &c->tol;
}

void compare_set_budget(struct compare *c, uint64_t bytes)
{
    c->budget = bytes;
}

uint64_t compare_dropped(const struct compare *c)
{
    return c->dropped;
}

/* ---------------------------------------------------------------- current results */

static bool layer_started(const struct dla *d, int32_t layer)
{
    if (layer < 0 || (size_t)layer >= dla_layer_count(d))
        return false;
    uint8_t st = dla_layer_get(d, (size_t)layer)->state;
    return st == DLA_LAYER_RUNNING || st == DLA_LAYER_DONE;
}

/* A result describes the run at the current point: its layer (task) is done
 * and completed when it was captured (after "back" a later one is not). */
static bool current(const struct compare *c, const struct compare_result *r)
{
    if (!c->d)
        return false;
    switch (r->source) {
    case COMPARE_LAYER: {
        if ((size_t)r->layer >= dla_layer_count(c->d))
            return false;
        const struct dla_layer *l = dla_layer_get(c->d, (size_t)r->layer);
        return l->state == DLA_LAYER_DONE && l->end_cycle == r->end_cycle;
    }
    case COMPARE_INPUT:
        return layer_started(c->d, r->layer);
    case COMPARE_CPU: {
        const struct session_task *t = session_task_of(c->s, r->task);
        return t && t->done && t->end_cycle == r->end_cycle;
    }
    }
    return false;
}

static int by_seq(const void *a, const void *b, void *ctx)
{
    const struct compare *c = ctx;
    uint64_t x = c->r[*(const size_t *)a].seq, y = c->r[*(const size_t *)b].seq;
    return x < y ? -1 : x > y;
}

/* Insertion sort (a few hundred results): qsort_r is not C11. */
static void sort_order(struct compare *c)
{
    for (size_t i = 1; i < c->n_order; i++)
        for (size_t j = i; j > 0 && by_seq(&c->order[j - 1], &c->order[j], c) > 0; j--) {
            size_t t = c->order[j];
            c->order[j] = c->order[j - 1];
            c->order[j - 1] = t;
        }
}

/* A band a later current band continues: listed as part of that one. */
static bool continued(const struct compare *c, const struct compare_result *r)
{
    if (r->source != COMPARE_LAYER)
        return false;
    for (size_t i = 0; i < c->n; i++)
        if (c->r[i].source == COMPARE_LAYER && c->r[i].band_prev == r->layer &&
            current(c, &c->r[i]))
            return true;
    return false;
}

static void build_order(struct compare *c)
{
    size_t *o = realloc(c->order, (c->n ? c->n : 1) * sizeof *o);
    if (!o) {
        c->n_order = 0;
        return;
    }
    c->order = o;
    c->n_order = 0;
    for (size_t i = 0; i < c->n; i++)
        if (current(c, &c->r[i]) && !continued(c, &c->r[i]))
            c->order[c->n_order++] = i;
    sort_order(c);
}

size_t compare_count(const struct compare *c)
{
    build_order((struct compare *)c); /* cheap, and the point may have moved */
    return c->n_order;
}

const struct compare_result *compare_get(const struct compare *c, size_t i)
{
    return i < c->n_order ? &c->r[c->order[i]] : NULL;
}

const struct compare_result *compare_of_layer(const struct compare *c, uint32_t layer)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->r[i].source == COMPARE_LAYER && c->r[i].layer == (int32_t)layer &&
            current(c, &c->r[i]))
            return &c->r[i];
    return NULL;
}

const struct compare_result *compare_first_departure(const struct compare *c)
{
    size_t n = compare_count(c);
    for (size_t i = 0; i < n; i++) {
        const struct compare_result *r = compare_get(c, i);
        if (r->compared && r->m.departed)
            return r;
    }
    return NULL;
}

bool compare_blob_mapped(const struct compare *c, size_t blob)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->r[i].blob == (long)blob && current(c, &c->r[i]))
            return true;
    return false;
}

void compare_shape_text(uint32_t n, uint32_t ch, uint32_t h, uint32_t w, char *buf, size_t len)
{
    snprintf(buf, len, "%ux%ux%ux%u", n, ch, h, w);
}

void compare_result_name(const struct compare_result *r, char *buf, size_t len)
{
    switch (r->source) {
    case COMPARE_LAYER:
        if (r->bands > 1)
            snprintf(buf, len, "layer %d (%s, %u bands from layer %d)", r->layer,
                     dla_proc_name((enum dla_proc)r->proc), r->bands, r->first_layer);
        else
            snprintf(buf, len, "layer %d (%s)", r->layer, dla_proc_name((enum dla_proc)r->proc));
        break;
    case COMPARE_INPUT:
        snprintf(buf, len, "input %s", r->surface.name);
        break;
    case COMPARE_CPU:
        snprintf(buf, len, "CPU task %d %s", r->task, r->surface.name);
        break;
    }
}

static struct cmp_got got_of(const struct compare_result *r)
{
    return (struct cmp_got){
        .elem = r->elem, .data = r->got, .n = r->n, .c = r->c, .h = r->h, .w = r->w};
}

/* Element i of r and its blob as compared; false without arrays or a blob. */
static bool element_of(const struct compare *c, const struct compare_result *r, uint64_t i,
                       struct cmp_element *e)
{
    if (!r->got || r->blob < 0 || !c->have_ref || !r->compared)
        return false;
    const struct ref_blob *b = &c->ref.blobs[r->blob];
    if (i >= b->a.count || i >= (uint64_t)r->n * r->c * r->h * r->w)
        return false;
    struct cmp_got g = got_of(r);
    cmp_element_at(&g, &b->a, r->m.mode, r->m.scale, i, e);
    return true;
}

bool compare_values(const struct compare *c, const struct compare_result *r, uint64_t i,
                    double *got, double *expected)
{
    struct cmp_element e;
    if (!element_of(c, r, i, &e))
        return false;
    *got = e.got;
    *expected = e.expected;
    return true;
}

bool compare_element_differs(const struct compare *c, const struct compare_result *r, uint64_t i)
{
    struct cmp_element e;
    return element_of(c, r, i, &e) && cmp_element_beyond(&e, r->m.mode, &c->tol, r->m.ref_max);
}

/* ---------------------------------------------------------------- storing */

/* The slot of an earlier capture of the same thing (a layer run again), or a new one. */
static struct compare_result *slot_for(struct compare *c, enum compare_source src, int32_t layer,
                                       const char *tensor)
{
    for (size_t i = 0; i < c->n; i++) {
        struct compare_result *r = &c->r[i];
        if (r->source != src)
            continue;
        bool same = src == COMPARE_LAYER ? r->layer == layer : !strcmp(r->surface.name, tensor);
        if (!same)
            continue;
        if (r->got) {
            c->used -= (uint64_t)r->n * r->c * r->h * r->w * tensor_elem_bytes(r->elem);
            free(r->got);
        }
        memset(r, 0, sizeof *r);
        return r;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct compare_result *n = realloc(c->r, cap * sizeof *n);
        if (!n)
            return NULL;
        c->r = n;
        c->cap = cap;
    }
    struct compare_result *r = &c->r[c->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* Keep the array within the budget, else only the measures. */
static void keep_array(struct compare *c, struct compare_result *r, struct tensor_data *td)
{
    uint64_t bytes = td->count * tensor_elem_bytes(td->info.elem);
    uint64_t budget = c->budget ? c->budget : COMPARE_CAPTURE_BUDGET;
    if (c->used + bytes <= budget) {
        r->got = td->data;
        td->data = NULL;
        c->used += bytes;
        return;
    }
    c->dropped++;
    if (!c->budget_said && c->rep) {
        char name[64];
        compare_result_name(r, name, sizeof name);
        report_msg(c->rep, REPORT_WARNING,
                   "compare: the captured outputs reached the budget of %llu MiB at %s: from "
                   "there on only their measures are kept, not the arrays",
                   (unsigned long long)(budget >> 20), name);
    }
    c->budget_said = true;
}

/* ---------------------------------------------------------------- mapping */

static bool same_shape(const struct compare_result *r, const struct ref_blob *b)
{
    return r->c == b->c && r->h == b->h && r->w == b->w &&
           (uint64_t)r->n * r->c * r->h * r->w == b->a.count;
}

static bool is_input_blob(const struct compare *c, const char *name)
{
    for (size_t i = 0; i < c->n_tensors; i++)
        if (c->tensors[i].is_input && !strcmp(c->tensors[i].info.name, name))
            return true;
    return false;
}

/* Where order.txt stands: past the last blob a current layer mapped to. */
static size_t map_cursor(const struct compare *c, const struct compare_result *self)
{
    size_t cursor = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct compare_result *r = &c->r[i];
        if (r != self && r->source == COMPARE_LAYER && r->blob >= 0 && current(c, r) &&
            (size_t)r->blob + 1 > cursor)
            cursor = (size_t)r->blob + 1;
    }
    return cursor;
}

static bool blob_taken(const struct compare *c, const struct compare_result *self, size_t blob)
{
    for (size_t i = 0; i < c->n; i++)
        if (&c->r[i] != self && c->r[i].blob == (long)blob && current(c, &c->r[i]))
            return true;
    return false;
}

/* The best-agreeing blob of the layer's shape among [lo, hi); -1 when none. */
static long best_candidate(const struct compare *c, const struct compare_result *r, size_t lo,
                           size_t hi, size_t cursor, double *best_cos, unsigned *candidates)
{
    struct cmp_got g = got_of(r);
    long best = -1;
    double best_score = -10;
    for (size_t j = lo; j < hi && j < c->ref.n_blobs; j++) {
        const struct ref_blob *b = &c->ref.blobs[j];
        if (!same_shape(r, b) || blob_taken(c, r, j) || is_input_blob(c, b->name))
            continue;
        double cs = cmp_cosine(&g, &b->a);
        double score = cs - (j < cursor ? MAP_BACK_PENALTY : 0);
        (*candidates)++;
        if (score > best_score) {
            best_score = score;
            best = (long)j;
            *best_cos = cs;
        }
    }
    return best;
}

static void map_auto(struct compare *c, struct compare_result *r)
{
    size_t cursor = map_cursor(c, r);
    size_t lo = cursor > MAP_BACK ? cursor - MAP_BACK : 0;
    double cs = 0;
    unsigned cands = 0;
    long b = best_candidate(c, r, lo, cursor + MAP_AHEAD, cursor, &cs, &cands);
    const char *where = "near the place in";
    if (b < 0) { /* the compiler's order strayed further: any blob of the shape */
        b = best_candidate(c, r, 0, c->ref.n_blobs, cursor, &cs, &cands);
        where = "anywhere in";
    }
    r->blob = b;
    char shape[48];
    compare_shape_text(r->n, r->c, r->h, r->w, shape, sizeof shape);
    if (b < 0)
        snprintf(r->map_note, sizeof r->map_note, "no blob of shape %s left in order.txt", shape);
    else
        snprintf(r->map_note, sizeof r->map_note,
                 "best of %u blob%s of its shape %s order.txt (cosine %.4f)", cands,
                 cands == 1 ? "" : "s", where, cs);
}

static void map_by_file(struct compare *c, struct compare_result *r)
{
    r->blob = -1;
    snprintf(r->map_note, sizeof r->map_note, "not in map.txt");
    if (r->source != COMPARE_LAYER)
        return;
    for (size_t i = 0; i < c->ref.n_map; i++) {
        const struct ref_map_line *m = &c->ref.map[i];
        if (m->layer != (uint32_t)r->layer)
            continue;
        const struct ref_blob *b = &c->ref.blobs[m->blob];
        if (!same_shape(r, b)) {
            char got[48], want[48];
            compare_shape_text(r->n, r->c, r->h, r->w, got, sizeof got);
            compare_shape_text(b->n, b->c, b->h, b->w, want, sizeof want);
            if (c->rep) {
                report_msg(c->rep, REPORT_ERROR,
                           "%s:%u: layer %d writes %s, but blob \"%s\" (%s) is %s; expected a "
                           "blob of the layer's shape",
                           c->ref.map_path, m->line, r->layer, got, b->name, b->file, want);
                c->rep->input_errors++;
            }
            snprintf(r->map_note, sizeof r->map_note, "map.txt line %u: blob of another shape",
                     m->line);
            return;
        }
        r->blob = (long)m->blob;
        snprintf(r->map_note, sizeof r->map_note, "map.txt line %u", m->line);
        return;
    }
}

static void map_named(struct compare *c, struct compare_result *r)
{
    long b = ref_dir_find(&c->ref, r->surface.name);
    r->blob = -1;
    if (b < 0) {
        snprintf(r->map_note, sizeof r->map_note, "no blob \"%s\" in order.txt", r->surface.name);
        return;
    }
    if (!same_shape(r, &c->ref.blobs[b])) {
        char got[48], want[48];
        const struct ref_blob *rb = &c->ref.blobs[b];
        compare_shape_text(r->n, r->c, r->h, r->w, got, sizeof got);
        compare_shape_text(rb->n, rb->c, rb->h, rb->w, want, sizeof want);
        if (c->rep) {
            report_msg(c->rep, REPORT_ERROR,
                       "%s: blob \"%s\" is %s, but the loadable's tensor of that name is %s; "
                       "expected the tensor's shape",
                       rb->file, rb->name, want, got);
            c->rep->input_errors++;
        }
        snprintf(r->map_note, sizeof r->map_note, "blob of the name has another shape");
        return;
    }
    r->blob = b;
    snprintf(r->map_note, sizeof r->map_note, "the loadable's tensor of the blob's name");
}

/* ---------------------------------------------------------------- measuring */

/* The scale an int8 output is at.  By default the blob's own entry of the
 * calibration table.  But the compiler gives the tensors feeding an
 * element-wise add one common scale (networks/REFERENCE.md: within 1.5% of
 * one of the table's entries, not the blob's own; SCALE_NEAR leaves a
 * little room), and dequantizing such a
 * tensor with its own entry shows departures of tens of LSB that are not
 * there.  The data tell: the least-squares scale between got and the
 * reference is then off the blob's entry while close to another entry; it
 * is the scale the hardware applied, and it is used, saying so.  A layer
 * that is really wrong does not agree with a scaled reference, so this
 * cannot hide a departure (the cosine does not depend on the scale). */
static double pick_scale(const struct compare *c, const struct compare_result *r,
                         const struct ref_blob *b, char *note, size_t len)
{
    struct cmp_got g = got_of(r);
    double fit = cmp_fit_scale(&g, &b->a);
    const struct calib_entry *own = calib_find(&c->ref.calib, b->name);
    note[0] = 0;
    if (!own) {
        double s = fit > 0 ? fit : 1;
        snprintf(note, len, "no calibration entry for \"%s\": scale %.6g fitted to the data",
                 b->name, s);
        return s;
    }
    if (fit <= 0 || fabs(fit / own->scale - 1) <= SCALE_OFF)
        return own->scale;
    const struct calib_entry *near = NULL;
    for (size_t i = 0; i < c->ref.calib.n; i++) {
        const struct calib_entry *e = &c->ref.calib.e[i];
        if (e != own && fabs(fit / e->scale - 1) <= SCALE_NEAR &&
            (!near || fabs(fit / e->scale - 1) < fabs(fit / near->scale - 1)))
            near = e;
    }
    if (!near)
        return own->scale;
    snprintf(
        note, len,
        "scale %.6g (fitted; near \"%.40s\" %.6g of the table) instead of \"%.40s\"'s own %.6g: "
        "a tensor feeding an element-wise add sits at the add's common scale",
        fit, near->name, near->scale, b->name, own->scale);
    return fit;
}

static void stop_text(const struct compare *c, const struct compare_result *r, char *buf,
                      size_t len)
{
    char name[64];
    compare_result_name(r, name, sizeof name);
    const struct ref_blob *b = &c->ref.blobs[r->blob];
    snprintf(buf, len,
             "%s departs from \"%s\": %s; first at (%u,%u,%u,%u): got %.6g, "
             "expected %.6g",
             name, b->name, r->m.why, r->m.at[0], r->m.at[1], r->m.at[2], r->m.at[3], r->m.at_got,
             r->m.at_expected);
}

static void measure(struct compare *c, struct compare_result *r)
{
    if (r->blob < 0 || !r->got)
        return;
    const struct ref_blob *b = &c->ref.blobs[r->blob];
    enum cmp_mode mode = !cmp_elem_is_integer(r->elem) ? CMP_FLOAT : b->raw ? CMP_RAW : CMP_SCALED;
    double scale =
        mode == CMP_SCALED ? pick_scale(c, r, b, r->scale_note, sizeof r->scale_note) : 0;
    struct cmp_got g = got_of(r);
    if (!cmp_measure(&g, &b->a, mode, scale, &c->tol, &r->m)) {
        snprintf(r->map_note, sizeof r->map_note, "out of memory measuring");
        return;
    }
    r->compared = true;
    if (!r->m.departed)
        return;
    if (c->rep)
        c->rep->checks_failed++;
    char text[600];
    stop_text(c, r, text, sizeof text);
    if (c->bps)
        bps_check_failed(c->bps, BP_MISMATCH, r->layer, text);
}

/* ---------------------------------------------------------------- capturing */

static bool read_surface(struct compare *c, struct compare_result *r, const struct tensor_info *t)
{
    struct tensor_data td;
    char err[300];
    r->surface = *t;
    r->elem = t->elem;
    r->n = t->n;
    r->c = t->c;
    r->h = t->h;
    r->w = t->w;
    r->blob = -1;
    if (!tensor_read(c->d, t, &td, err, sizeof err)) {
        snprintf(r->map_note, sizeof r->map_note, "not read: %.140s", err);
        return false;
    }
    /* the measures need the array even when the budget keeps none */
    r->got = td.data;
    td.data = NULL;
    return true;
}

/* After measuring: the array stays if the budget allows. */
static void settle_array(struct compare *c, struct compare_result *r)
{
    struct tensor_data td = {.data = r->got, .count = (uint64_t)r->n * r->c * r->h * r->w};
    td.info.elem = r->elem;
    r->got = NULL;
    keep_array(c, r, &td);
    free(td.data);
}

/* The band a layer's output continues: the current result of the same unit
 * and geometry whose rows end where this output begins, within one surface
 * (so two tensors placed back to back are not taken for bands); NULL when
 * none, or its rows were not kept. */
static const struct compare_result *band_before(const struct compare *c,
                                                const struct compare_result *r)
{
    const struct tensor_info *t = &r->surface;
    const struct compare_result *best = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct compare_result *p = &c->r[i];
        const struct tensor_info *q = &p->surface;
        if (p == r || p->source != COMPARE_LAYER || p->proc != r->proc || !p->got || !current(c, p))
            continue;
        bool same = q->space == t->space && q->elem == t->elem && q->pitch == t->pitch &&
                    p->n == r->n && p->c == r->c && p->w == r->w &&
                    q->elem_stride == t->elem_stride && q->line_stride == t->line_stride &&
                    q->surf_stride == t->surf_stride && q->batch_stride == t->batch_stride;
        uint64_t rows = (uint64_t)p->h + r->h;
        if (same && !t->pitch && q->addr + (uint64_t)p->h * q->line_stride == t->addr &&
            rows * q->line_stride <= q->surf_stride && (!best || p->seq > best->seq))
            best = p;
    }
    return best;
}

/* Joins a band to the rows before it: NCHW planes of both, rows after rows. */
static void join_band(struct compare *c, struct compare_result *r)
{
    const struct compare_result *p = band_before(c, r);
    if (!p)
        return;
    size_t bpe = tensor_elem_bytes(r->elem);
    uint64_t before = (uint64_t)p->h * p->w * bpe, own = (uint64_t)r->h * r->w * bpe;
    uint64_t planes = (uint64_t)r->n * r->c;
    uint8_t *joined = malloc(planes * (before + own));
    if (!joined)
        return; /* compared as the band it is */
    for (uint64_t k = 0; k < planes; k++) {
        memcpy(joined + k * (before + own), (const uint8_t *)p->got + k * before, before);
        memcpy(joined + k * (before + own) + before, (const uint8_t *)r->got + k * own, own);
    }
    free(r->got);
    r->got = joined;
    r->h += p->h;
    r->surface.addr = p->surface.addr;
    r->surface.h = r->h;
    r->band_prev = p->layer;
    r->first_layer = p->first_layer;
    r->bands = p->bands + 1;
}

static void capture_layer(struct compare *c, const struct dla_event *ev)
{
    struct tensor_info t;
    char why[200];
    if (!layer_surface_live(c->d, (enum dla_proc)ev->u.layer.proc, ev->u.layer.group, LAYER_OUT, &t,
                            why, sizeof why))
        return; /* its output never reaches memory: nothing to compare */
    struct compare_result *r = slot_for(c, COMPARE_LAYER, ev->layer, NULL);
    if (!r)
        return;
    r->source = COMPARE_LAYER;
    r->layer = ev->layer;
    r->proc = ev->u.layer.proc;
    r->group = ev->u.layer.group;
    r->task = -1;
    r->seq = c->next_seq++;
    r->end_cycle = dla_layer_get(c->d, (size_t)ev->layer)->end_cycle;
    r->band_prev = -1;
    r->first_layer = ev->layer;
    r->bands = 1;
    snprintf(t.name, sizeof t.name, "layer %d output", ev->layer);
    if (!read_surface(c, r, &t))
        return;
    join_band(c, r);
    if (c->have_ref) {
        if (c->ref.map)
            map_by_file(c, r);
        else
            map_auto(c, r);
        measure(c, r);
    }
    settle_array(c, r);
    c->order_stale = true;
}

static void capture_named(struct compare *c, struct named *nt, enum compare_source src,
                          int32_t layer, int task, uint64_t cycle)
{
    struct compare_result *r = slot_for(c, src, -1, nt->info.name);
    if (!r)
        return;
    r->source = src;
    r->layer = layer;
    r->task = task;
    r->band_prev = -1;
    r->first_layer = -1;
    r->bands = 1;
    r->seq = c->next_seq++;
    r->end_cycle = cycle;
    if (!read_surface(c, r, &nt->info))
        return;
    nt->crc = crc32_of(r->got,
                       (size_t)((uint64_t)r->n * r->c * r->h * r->w * tensor_elem_bytes(r->elem)));
    nt->read = true;
    if (c->have_ref) {
        map_named(c, r);
        measure(c, r);
    }
    settle_array(c, r);
}

/* Named output tensors as they are before any CPU task: what "changed" means. */
static void note_outputs(struct compare *c)
{
    for (size_t i = 0; i < c->n_tensors; i++) {
        struct named *nt = &c->tensors[i];
        struct tensor_data td;
        char err[256];
        if (nt->is_input || nt->read || !tensor_read(c->d, &nt->info, &td, err, sizeof err))
            continue;
        nt->crc = crc32_of(td.data, (size_t)(td.count * tensor_elem_bytes(nt->info.elem)));
        nt->read = true;
        tensor_data_free(&td);
    }
}

/* The input tensors when the first layer starts (the driver has loaded
 * them; nothing has overwritten them yet). */
static void capture_inputs(struct compare *c, const struct dla_event *ev)
{
    for (size_t i = 0; i < c->n_tensors; i++) {
        struct named *nt = &c->tensors[i];
        if (!nt->is_input)
            continue;
        bool have = false;
        for (size_t k = 0; k < c->n && !have; k++)
            have = c->r[k].source == COMPARE_INPUT &&
                   !strcmp(c->r[k].surface.name, nt->info.name) && current(c, &c->r[k]);
        if (!have)
            capture_named(c, nt, COMPARE_INPUT, ev->layer, -1, ev->cycle);
    }
    note_outputs(c);
}

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct compare *c = ctx;
    if (!c->on || ev->layer < 0)
        return;
    if (ev->kind == DLA_EV_LAYER_START)
        capture_inputs(c, ev);
    else if (ev->kind == DLA_EV_LAYER_DONE)
        capture_layer(c, ev);
}

/* A CPU task's outputs: the named tensors (not inputs) whose bytes changed
 * since they were last read (an earlier CPU task may not have written one). */
static void capture_cpu(struct compare *c, const struct session_task *t)
{
    for (size_t i = 0; i < c->n_tensors; i++) {
        struct named *nt = &c->tensors[i];
        if (nt->is_input)
            continue;
        struct tensor_data td;
        char err[256];
        if (!tensor_read(c->d, &nt->info, &td, err, sizeof err))
            continue;
        uint32_t crc = crc32_of(td.data, (size_t)(td.count * tensor_elem_bytes(nt->info.elem)));
        tensor_data_free(&td);
        if (nt->read && crc == nt->crc)
            continue;
        capture_named(c, nt, COMPARE_CPU, -1, t->index, t->end_cycle);
    }
}

/* At the end of the run: a blob whose shape fits no output is a reference
 * for another network (or a typo in order.txt's shape column's source). */
static void check_unfitting_blobs(struct compare *c)
{
    size_t n = compare_count(c);
    for (size_t j = 0; j < c->ref.n_blobs; j++) {
        const struct ref_blob *b = &c->ref.blobs[j];
        if (compare_blob_mapped(c, j) || is_input_blob(c, b->name))
            continue;
        bool fits = false;
        for (size_t i = 0; i < n && !fits; i++)
            fits = same_shape(compare_get(c, i), b);
        for (size_t i = 0; i < c->n_tensors && !fits; i++) {
            const struct tensor_info *t = &c->tensors[i].info;
            fits = t->c == b->c && t->h == b->h && t->w == b->w;
        }
        if (fits || !n)
            continue;
        char shape[48];
        compare_shape_text(b->n, b->c, b->h, b->w, shape, sizeof shape);
        if (c->rep) {
            report_msg(c->rep, REPORT_ERROR,
                       "%s: blob \"%s\" (order.txt line %u) is %s, which fits no layer's output "
                       "in memory; expected a blob of this network",
                       b->file, b->name, b->line, shape);
            c->rep->input_errors++;
        }
    }
}

void compare_after_execute(struct compare *c)
{
    if (!c->on || !c->s)
        return;
    uint64_t done = session_tasks_done(c->s);
    if (done < c->tasks_seen) /* back in time */
        c->tasks_seen = 0;
    if (done != c->tasks_seen) {
        c->tasks_seen = done;
        size_t nt = session_task_count(c->s);
        for (size_t i = 0; i < nt; i++) {
            const struct session_task *t = session_task_get(c->s, i);
            if (!t->emu || !t->done)
                continue;
            bool have = false;
            for (size_t k = 0; k < c->n && !have; k++)
                have = c->r[k].source == COMPARE_CPU && c->r[k].task == t->index &&
                       current(c, &c->r[k]);
            if (!have)
                capture_cpu(c, t);
        }
    }
    if (!session_finished(c->s)) {
        c->end_checked = false;
        return;
    }
    if (!c->end_checked && c->have_ref)
        check_unfitting_blobs(c);
    c->end_checked = true;
}
