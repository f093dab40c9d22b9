/* Layer-by-layer comparison with a reference: "compare DIR", "compare",
 * "compare off", and "dump tensors DIR" (a run's outputs as a reference for
 * another).  The comparison is src/compare/compare.h; this file arms it for
 * the open session, runs, and prints. */
#include "cmd_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "compare/compare.h"
#include "loadable/loadable_plan.h"
#include "loadable/loadable_tensors.h"
#include "tensor/npy.h"
#include "tensor/tensor_read.h"
#include "util/afile.h"

/* ---------------------------------------------------------------- arming */

/* Does some operation of the plan read tensor `name` ("data ->" reads data)? */
static bool plan_reads(const struct loadable_plan *p, const char *name)
{
    for (size_t i = 0; p && i < p->n_ops; i++) {
        const char *names = p->ops[i].names, *arrow = strstr(names, "->");
        size_t n = strlen(name);
        for (const char *w = names; arrow && w < arrow;) {
            size_t len = strcspn(w, " ");
            if (len == n && !strncmp(w, name, n))
                return true;
            w += len;
            while (*w == ' ')
                w++;
        }
    }
    return false;
}

/* The loadable's named tensors, inputs told from outputs by the plan. */
static void set_tensors(struct dbg *d)
{
    struct tensor_info *t = NULL;
    size_t n = 0;
    char err[256];
    if (!dbg_tensors(d, &t, &n, err, sizeof err))
        n = 0; /* a register trace: layers only */
    bool *in = calloc(n ? n : 1, sizeof *in);
    const struct loadable_plan *p = dbg_plan(d);
    for (size_t i = 0; in && i < n; i++)
        in[i] = plan_reads(p, t[i].name);
    compare_set_tensors(d->cmp, t, in, in ? n : 0);
    free(in);
    free(t);
}

void cmd_compare_session_changed(struct dbg *d)
{
    if (!d->cmp)
        return;
    compare_attach(d->cmp, d->session, &d->rep, d->bps);
    if (d->session && compare_enabled(d->cmp))
        set_tensors(d);
}

void cmd_compare_detach(struct dbg *d)
{
    if (d->cmp)
        compare_attach(d->cmp, NULL, NULL, NULL);
}

static struct compare *need_compare(struct dbg *d)
{
    if (!d->cmp) {
        d->cmp = compare_create();
        if (d->cmp)
            compare_attach(d->cmp, d->session, &d->rep, d->bps);
    }
    return d->cmp;
}

static bool enable(struct dbg *d)
{
    if (!need_compare(d))
        return false;
    if (!compare_enabled(d->cmp)) {
        compare_enable(d->cmp, true);
        set_tensors(d);
    }
    return true;
}

bool dbg_compare_arm(struct dbg *d, const char *dir, const char *calibtable, const char *tolerance,
                     char *err, size_t errlen)
{
    struct cmp_tolerance tol;
    cmp_tolerance_default(&tol);
    if (tolerance && !cmp_tolerance_parse(tolerance, &tol, err, errlen))
        return false;
    if (!d->session) {
        snprintf(err, errlen, "no file is open");
        return false;
    }
    if (!enable(d)) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    if (!compare_load(d->cmp, dir, calibtable, err, errlen))
        return false;
    compare_set_tolerance(d->cmp, &tol);
    return true;
}

/* ---------------------------------------------------------------- running */


/* ---------------------------------------------------------------- the report */

static const char *unit_of(const struct compare_result *r)
{
    switch (r->source) {
    case COMPARE_LAYER:
        return dla_proc_name((enum dla_proc)r->proc);
    case COMPARE_INPUT:
        return "input";
    default:
        return "CPU";
    }
}

static void row_name(const struct compare_result *r, char *buf, size_t len)
{
    if (r->source == COMPARE_LAYER)
        snprintf(buf, len, "%d", r->layer);
    else if (r->source == COMPARE_INPUT)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "task %d", r->task);
}

static void print_mapping(struct dbg *d, const struct ref_dir *ref)
{
    size_t n = compare_count(d->cmp);
    cmd_print(d, "Mapping (%s):",
              ref->map ? ref->map_path : "automatic: network order, shape and similarity");
    for (size_t i = 0; i < n; i++) {
        const struct compare_result *r = compare_get(d->cmp, i);
        char name[64], shape[48];
        compare_result_name(r, name, sizeof name);
        compare_shape_text(r->n, r->c, r->h, r->w, shape, sizeof shape);
        cmd_print(d, "  %-22s %-12s -> %-16s %s", name, shape,
                  r->blob >= 0 ? ref->blobs[r->blob].name : "(none)", r->map_note);
    }
}

static void print_table(struct dbg *d, const struct ref_dir *ref, size_t *compared)
{
    size_t n = compare_count(d->cmp);
    cmd_print(d, "%-8s %-5s %-16s %-12s %10s %10s %8s %8s %8s  %s", "layer", "unit", "blob",
              "shape", "max|err|", "mean|err|", "cosine", "SQNR dB", "p99 LSB", "result");
    for (size_t i = 0; i < n; i++) {
        const struct compare_result *r = compare_get(d->cmp, i);
        if (!r->compared)
            continue;
        (*compared)++;
        const struct cmp_metrics *m = &r->m;
        char row[32], shape[48], sqnr[16], p99[16], extra[64] = "";
        row_name(r, row, sizeof row);
        compare_shape_text(r->n, r->c, r->h, r->w, shape, sizeof shape);
        if (isinf(m->sqnr_db))
            snprintf(sqnr, sizeof sqnr, "%s", m->sqnr_db > 0 ? "inf" : "-inf");
        else
            snprintf(sqnr, sizeof sqnr, "%.1f", m->sqnr_db);
        if (isnan(m->lsb_p99))
            snprintf(p99, sizeof p99, "-");
        else
            snprintf(p99, sizeof p99, "%.2f", m->lsb_p99);
        if (m->saturated)
            snprintf(extra, sizeof extra, " (%llu saturated)", (unsigned long long)m->saturated);
        cmd_print(d, "%-8s %-5s %-16s %-12s %10.4g %10.4g %8.5f %8s %8s  %s%s%s", row, unit_of(r),
                  ref->blobs[r->blob].name, shape, m->max_abs, m->mean_abs, m->cosine, sqnr, p99,
                  m->departed ? "DEPARTS: " : "ok", m->departed ? m->why : "", extra);
    }
}

static void print_leftovers(struct dbg *d, const struct ref_dir *ref)
{
    char list[1024] = "";
    size_t used = 0, left = 0;
    for (size_t j = 0; j < ref->n_blobs; j++) {
        if (compare_blob_mapped(d->cmp, j))
            continue;
        left++;
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, " %s", ref->blobs[j].name);
    }
    if (left)
        cmd_print(d, "Blobs not compared (%zu):%s", left, list);
    size_t n = compare_count(d->cmp);
    for (size_t i = 0; i < n; i++) {
        const struct compare_result *r = compare_get(d->cmp, i);
        char name[64];
        compare_result_name(r, name, sizeof name);
        if (r->scale_note[0])
            cmd_print(d, "Note: %s: %s.", name, r->scale_note);
    }
    if (compare_dropped(d->cmp))
        cmd_print(d,
                  "Note: %llu captured outputs were over the capture budget: measured, not kept.",
                  (unsigned long long)compare_dropped(d->cmp));
}

static void print_verdict(struct dbg *d, const struct ref_dir *ref, size_t compared)
{
    const struct compare_result *r = compare_first_departure(d->cmp);
    if (r) {
        char name[64];
        compare_result_name(r, name, sizeof name);
        const struct ref_blob *b = &ref->blobs[r->blob];
        cmd_out(d, DBG_OUT_ERROR,
                "compare: %s departs first from blob \"%s\" (%s): %s; first differing element "
                "(n,c,h,w) = (%u,%u,%u,%u): got %.6g, expected %.6g",
                name, b->name, b->file, r->m.why, r->m.at[0], r->m.at[1], r->m.at[2], r->m.at[3],
                r->m.at_got, r->m.at_expected);
        return;
    }
    if (compared)
        cmd_print(d, "compare: all %zu compared outputs are within tolerance.", compared);
    else
        cmd_print(d, "compare: no output compared (yet).");
}

static void report(struct dbg *d)
{
    const struct ref_dir *ref = compare_reference(d->cmp);
    char tol[96];
    cmp_tolerance_format(compare_tolerance(d->cmp), tol, sizeof tol);
    cmd_print(d, "Comparing with %s: %zu blobs, %s%s, tolerance %s.", ref->path, ref->n_blobs,
              ref->calib_path[0] ? "calibration " : "no calibration table",
              ref->calib_path[0] ? ref->calib_path : "", tol);
    print_mapping(d, ref);
    size_t compared = 0;
    print_table(d, ref, &compared);
    print_leftovers(d, ref);
    print_verdict(d, ref, compared);
}

/* The verdict alone, from the results so far. */
static void print_verdict_so_far(struct dbg *d)
{
    size_t compared = 0, n = compare_count(d->cmp);
    for (size_t i = 0; i < n; i++)
        compared += compare_get(d->cmp, i)->compared;
    print_verdict(d, compare_reference(d->cmp), compared);
}

void cmd_compare_run_finished(struct dbg *d)
{
    if (d->opt.compare_verdict_at_run_end && d->cmp && compare_reference(d->cmp))
        print_verdict_so_far(d);
}

void dbg_compare_report(struct dbg *d, const struct dbg_sink *out, bool full)
{
    const struct dbg_sink *saved = d->out;
    if (out)
        d->out = out;
    if (d->cmp && compare_reference(d->cmp) && full) {
        report(d);
    } else if (d->cmp && compare_reference(d->cmp)) {
        print_verdict_so_far(d);
    }
    d->out = saved;
}

/* ---------------------------------------------------------------- compare */

static enum cmd_status compare_off(struct dbg *d)
{
    if (d->cmp) {
        compare_enable(d->cmp, false);
        compare_unload(d->cmp);
    }
    cmd_print(d, "Comparison off.");
    return CMD_OK;
}

static enum cmd_status do_compare(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const char *dir = cmd_arg(a, 0);
    if (!dir) {
        if (!d->cmp || !compare_reference(d->cmp))
            return cmd_fail(d, a, "no reference loaded (\"compare DIR\" loads one and runs)");
        report(d);
        return CMD_OK;
    }
    if (!strcmp(dir, "off") && cmd_nargs(a) == 1)
        return compare_off(d);
    const char *calib = NULL, *tol = NULL;
    for (int i = 1; i < cmd_nargs(a); i++) {
        const char *w = cmd_arg(a, i);
        if (!strncmp(w, "calib=", 6) && w[6])
            calib = w + 6;
        else if (!tol)
            tol = w;
        else
            return cmd_fail(d, a, "unexpected \"%s\"; expected compare DIR [calib=FILE] [SPEC]", w);
    }
    char err[1024];
    if (!dbg_compare_arm(d, dir, calib, tol, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    if (!cmd_run_from_start(d, a))
        return CMD_ERROR;
    enum cmd_status st = cmd_run_step(d, a, SESSION_RUN, 0);
    report(d);
    return st;
}

/* ---------------------------------------------------------------- dump tensors */

static bool dump_file_ours(const char *name)
{
    size_t n = strlen(name);
    return !strcmp(name, "order.txt") || (n > 4 && !strcmp(name + n - 4, ".npy"));
}

static enum npy_dtype npy_type_of(uint8_t elem)
{
    switch (elem) {
    case TENSOR_UINT8:
        return NPY_U8;
    case TENSOR_INT16:
        return NPY_I16;
    case TENSOR_FP16:
        return NPY_F16;
    default:
        return NPY_I8;
    }
}

/* "layer2_sdp" for a layer, the tensor's own name for the others. */
static void dump_name(const struct compare_result *r, char *buf, size_t len)
{
    if (r->source != COMPARE_LAYER) {
        snprintf(buf, len, "%s", r->surface.name);
        return;
    }
    snprintf(buf, len, "layer%d_%s", r->layer, dla_proc_name((enum dla_proc)r->proc));
    for (char *p = buf; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
}

static bool write_dump(struct dbg *d, struct cmd_args *a, const char *dir, size_t *written)
{
    struct adir ad;
    char err[1024];
    if (!adir_open(&ad, dir, dump_file_ours, err, sizeof err)) {
        cmd_fail(d, a, "%s", err);
        return false;
    }
    char order[4200];
    snprintf(order, sizeof order, "%s/order.txt", ad.tmp);
    FILE *fp = fopen(order, "w");
    bool ok = fp != NULL;
    if (!ok)
        snprintf(err, sizeof err, "%.900s: cannot write", order);
    size_t n = compare_count(d->cmp);
    for (size_t i = 0; ok && i < n; i++) {
        const struct compare_result *r = compare_get(d->cmp, i);
        char name[80], path[4300];
        dump_name(r, name, sizeof name);
        if (!name[0] || strchr(name, '/'))
            continue; /* a tensor name no file can carry */
        if (!r->got) {
            snprintf(err, sizeof err, "%s: its output was over the capture budget, not kept", name);
            ok = false;
            break;
        }
        uint64_t shape[4] = {r->n, r->c, r->h, r->w};
        snprintf(path, sizeof path, "%s/%s.npy", ad.tmp, name);
        ok = npy_write(path, npy_type_of(r->elem), 4, shape, r->got, err, sizeof err);
        if (ok)
            fprintf(fp, "%s %u %u %u %u\n", name, r->n, r->c, r->h, r->w);
        *written += ok;
    }
    if (fp && fclose(fp) != 0 && ok) {
        snprintf(err, sizeof err, "%.900s: cannot write", order);
        ok = false;
    }
    if (!ok || !adir_commit(&ad, err, sizeof err)) {
        if (!ok)
            adir_abort(&ad);
        cmd_fail(d, a, "%s", err);
        return false;
    }
    return true;
}

/* The whole run, captured from its start, breakpoints suspended. */
static bool run_captured(struct dbg *d, struct cmd_args *a)
{
    bool was_on = d->cmp && compare_enabled(d->cmp);
    if (!enable(d)) {
        cmd_fail(d, a, "out of memory");
        return false;
    }
    if (!was_on || !session_finished(d->session)) {
        if (!cmd_run_from_start(d, a))
            return false;
        bps_suspend(d->bps, true);
        while (!session_finished(d->session)) {
            enum session_stop r = session_step(d->session, SESSION_RUN, 0);
            if (r == SESSION_HANG || r == SESSION_INTERRUPTED) {
                bps_suspend(d->bps, false);
                cmd_fail(d, a, "the run did not finish: %s", session_stop_message(d->session));
                return false;
            }
        }
        bps_suspend(d->bps, false);
    }
    return true;
}

enum cmd_status cmd_dump_tensors(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const char *dir = cmd_arg(a, 0);
    if (!dir || cmd_nargs(a) > 1)
        return cmd_fail(d, a, "expected one DIR");
    if (!run_captured(d, a))
        return CMD_ERROR;
    size_t written = 0;
    if (!write_dump(d, a, dir, &written))
        return CMD_ERROR;
    cmd_print(d, "Wrote %zu tensor%s and order.txt to %s (a reference for \"compare %s\").",
              written, written == 1 ? "" : "s", dir, dir);
    return CMD_OK;
}

/* ---------------------------------------------------------------- the table */

const struct cmd_entry cmd_compare_entries[] = {
    {"compare", "cmp", "[DIR] [TEXT]", "compare [DIR [calib=FILE] [cos=C,lsb=N,rel=R] | off]",
     "Compare every hardware layer's output with a reference, layer by layer, to find the\n"
     "first that goes wrong.  DIR holds one NAME.npy per blob of the framework (shapes\n"
     "N,C,H,W; (C) and (N,C) count as (N,C,1,1)), order.txt (the blob names in network\n"
     "order, one a line; further words ignored), optionally calib.json (the compiler's\n"
     "calibration table: per blob scale, min, max, offset; calib=FILE names another) and\n"
     "map.txt (\"LAYER BLOB\" lines that replace the automatic mapping).  \"compare DIR\"\n"
     "loads DIR and runs from the start (restarting a run that has begun) to the end or a\n"
     "breakpoint (\"break mismatch\" stops after the first layer that departs); \"compare\"\n"
     "prints the results so far; \"compare off\" stops comparing.\n"
     "Each layer whose output reaches memory is read when it completes and mapped to a blob:\n"
     "the blobs of its shape near the place in order.txt the previous layers reached, the\n"
     "one of the best cosine similarity (a fused conv+bn+scale+relu or add+relu writes the\n"
     "last blob of its chain); a layer split into bands of rows is joined and compared\n"
     "whole at its last band (the layer map.txt names).  The input tensor and the CPU\n"
     "tasks' outputs are compared with the blob of their own name.  Per layer: max and\n"
     "mean absolute error, cosine similarity, SQNR (dB), in real units: int8 outputs are\n"
     "dequantized with the blob's calibration scale (or, where the data show the hardware\n"
     "applied another table entry's scale, as for tensors feeding an element-wise add,\n"
     "that one, with a note), the reference saturated to the int8 range; without a table\n"
     "the scale is fitted.\n"
     "A layer departs when (defaults in brackets; SPEC sets them as cos=C,lsb=N,rel=R):\n"
     "  int8 vs float   99th percentile error > lsb LSB [24] or cosine < cos [0.9]\n"
     "  fp16 vs float   max error > rel x max |reference| [0.01] or cosine < cos [0.99]\n"
     "  int8 vs int8    (a \"dump tensors\" reference) p99 > lsb [2] or cosine < cos [0.99]\n"
     "The cosine is not judged where the reference stays within a few LSB.  A departure\n"
     "counts as a failed check (batch exit status 1); an unusable reference (a missing or\n"
     "malformed file, a blob whose shape fits no layer) as an input error (2).",
     do_compare, NULL, false},
    END_OF_TABLE,
};
