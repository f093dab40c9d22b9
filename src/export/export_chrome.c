/* "export chrome FILE": Chrome trace-event JSON (the format Perfetto UI and
 * chrome://tracing open).  One track per processor with its hardware layers
 * as slices (their bytes, DRAM's and CV-SRAM's apart, among the args),
 * instant events for interrupts, and counter tracks for the memory bandwidth
 * of each memory.  Time: model-derived cycles shown as
 * nanoseconds (a nominal 1 GHz clock), since the format counts microseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/afile.h"
#include "export.h"
#include "cmd/format.h"
#include "debug/trace_ring.h"

struct json_out {
    FILE *fp;
    size_t events;
};

static void json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

static double us(uint64_t cycles)
{
    return (double)cycles / 1000.0;
}

static void begin_event(struct json_out *o)
{
    fprintf(o->fp, "%s\n  ", o->events++ ? "," : "");
}

static void metadata(struct json_out *o, const char *what, int tid, const char *name)
{
    begin_event(o);
    fprintf(o->fp, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":", what,
            tid);
    json_string(o->fp, name);
    fprintf(o->fp, "}}");
}

static void layer_slice(struct json_out *o, const struct dla_layer *l, uint64_t now)
{
    if (l->state != DLA_LAYER_RUNNING && l->state != DLA_LAYER_DONE)
        return;
    uint64_t end = l->state == DLA_LAYER_DONE ? l->end_cycle : now;
    char name[64];
    snprintf(name, sizeof name, "layer %u %s", l->index, dla_proc_name((enum dla_proc)l->proc));
    begin_event(o);
    fprintf(o->fp, "{\"name\":");
    json_string(o->fp, name);
    fprintf(o->fp,
            ",\"cat\":\"layer\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
            "\"args\":{\"group\":%u,\"op\":",
            l->proc + 1, us(l->start_cycle), us(end - l->start_cycle), l->group);
    json_string(o->fp, l->desc);
    fprintf(o->fp, ",\"cycles\":%llu", (unsigned long long)(end - l->start_cycle));
    if (l->proc == DLA_P_CONV) /* "macs" only where they are MACs */
        fprintf(o->fp, ",\"macs\":%llu", (unsigned long long)l->macs);
    fprintf(o->fp, ",\"work\":%llu,\"work_unit\":", (unsigned long long)l->macs);
    json_string(o->fp, format_work_unit((enum dla_proc)l->proc));
    fprintf(o->fp, ",\"bytes_read\":%llu,\"bytes_written\":%llu,\"stall_cycles\":%llu",
            (unsigned long long)l->bytes_read, (unsigned long long)l->bytes_written,
            (unsigned long long)l->stall_cycles);
    /* of its bytes, DRAM's (what bandwidth is tuned for) and on-chip CV-SRAM's */
    fprintf(o->fp, ",\"bytes_dram\":%llu,\"bytes_cvsram\":%llu}}",
            (unsigned long long)dla_layer_dram_bytes(l), (unsigned long long)l->bytes_cvsram);
}

/* ---------------------------------------------------------------- bandwidth */

struct bw_step {
    uint64_t at;
    double delta; /* bytes per cycle */
};

static int cmp_step(const void *a, const void *b)
{
    const struct bw_step *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

static bool bandwidth(struct json_out *o, const struct trace_ring *ring, enum dla_space sp)
{
    size_t n = trace_ring_count(ring), k = 0;
    struct bw_step *st = malloc((2 * n + 1) * sizeof *st);
    if (!st)
        return false;
    for (size_t i = 0; i < n; i++) {
        struct trace_rec rec;
        const struct trace_rec *r = &rec;
        trace_ring_get(ring, i, &rec);
        if (r->kind != DLA_EV_DMA || r->b != sp || r->s <= r->r)
            continue;
        double rate = (double)r->q / (double)(r->s - r->r);
        st[k++] = (struct bw_step){r->r, rate};
        st[k++] = (struct bw_step){r->s, -rate};
    }
    if (k)
        qsort(st, k, sizeof *st, cmp_step);
    char name[48];
    snprintf(name, sizeof name, "%s bandwidth", dla_space_name(sp));
    double level = 0;
    for (size_t i = 0; i < k; i++) {
        level += st[i].delta;
        if (i + 1 < k && st[i + 1].at == st[i].at)
            continue; /* one sample per instant */
        if (level < 1e-9)
            level = 0; /* rounding of the running sum */
        begin_event(o);
        fprintf(o->fp, "{\"name\":\"%s\",\"ph\":\"C\",\"pid\":1,\"ts\":%.3f,", name, us(st[i].at));
        fprintf(o->fp, "\"args\":{\"bytes_per_cycle\":%.4f}}", level);
    }
    free(st);
    return true;
}

static void interrupts(struct json_out *o, const struct trace_ring *ring)
{
    for (size_t i = 0; i < trace_ring_count(ring); i++) {
        struct trace_rec rec;
        const struct trace_rec *r = &rec;
        trace_ring_get(ring, i, &rec);
        if (r->kind != DLA_EV_INTR)
            continue;
        const char *name = dla_intr_bit_name(r->a);
        begin_event(o);
        fprintf(o->fp, "{\"name\":");
        json_string(o->fp, name ? name : "interrupt");
        fprintf(o->fp,
                ",\"cat\":\"interrupt\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
                "\"args\":{\"status\":\"0x%08x\",\"line\":%s}}",
                us(r->cycle), r->x, r->b ? "true" : "false");
    }
}

bool export_chrome(struct session *s, struct trace_ring *ring, const char *path,
                   struct export_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return false;
    struct dla *d = session_dla(s);
    struct json_out o = {.fp = af.fp};
    fprintf(af.fp,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"dladbg %s\","
            "\"source\":",
            DLADBG_VERSION);
    json_string(af.fp, session_path(s));
    fprintf(af.fp,
            ",\"configuration\":\"%s\",\"time\":\"model-derived cycles, 1 cycle shown as 1 "
            "ns\"},\n\"traceEvents\":[",
            dla_cfg(d)->name);
    char pname[64];
    snprintf(pname, sizeof pname, "NVDLA %s", dla_cfg(d)->name);
    metadata(&o, "process_name", 0, pname);
    metadata(&o, "thread_name", 0, "interrupts");
    for (int p = 0; p < DLA_P_COUNT; p++)
        metadata(&o, "thread_name", p + 1, dla_proc_name((enum dla_proc)p));
    for (size_t i = 0; i < dla_layer_count(d); i++)
        layer_slice(&o, dla_layer_get(d, i), dla_now(d));
    bool ok = true;
    if (ring) {
        interrupts(&o, ring);
        for (int sp = 0; sp < DLA_SPACE_COUNT && ok; sp++)
            ok = bandwidth(&o, ring, (enum dla_space)sp);
    }
    fprintf(af.fp, "\n]}\n");
    if (!ok) {
        afile_abort(&af);
        snprintf(err, errlen, "%s: out of memory", path);
        return false;
    }
    if (!afile_commit(&af, err, errlen))
        return false;
    res->rows = o.events;
    res->files = 1;
    if (ring && trace_ring_dropped(ring))
        snprintf(res->note, sizeof res->note,
                 "bandwidth and interrupts cover the newest %zu events of the ring only",
                 trace_ring_count(ring));
    return true;
}
