/* "export vcd FILE": a value change dump for GTKWave.  Signals: one busy
 * wire per processor (from the layer records: high while a layer of it
 * runs), the GLB interrupt status and mask as 32-bit vectors and the
 * interrupt line (from the event ring: interrupts raised, status cleared,
 * mask written).  Time: model-derived cycles, 1 cycle = 1 ns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/afile.h"
#include "export.h"
#include "debug/trace_ring.h"

enum signal {
    SIG_BUSY0, /* + enum dla_proc */
    SIG_STATUS = DLA_P_COUNT,
    SIG_MASK,
    SIG_LINE,
    SIG_COUNT,
};

static const char sig_id[SIG_COUNT] = {'!', '"', '#', '$', '%', '&', '\'', '(', ')'};

struct change {
    uint64_t at;
    uint32_t order; /* keeps changes of one instant in the order they happened */
    uint8_t sig;
    int32_t delta;  /* busy: +1/-1 */
    uint32_t value; /* status, mask */
};

struct changes {
    size_t n, cap;
    struct change *c;
    bool failed;
};

static void add(struct changes *cs, struct change c)
{
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 256;
        struct change *n = realloc(cs->c, cap * sizeof *n);
        if (!n) {
            cs->failed = true;
            return;
        }
        cs->c = n;
        cs->cap = cap;
    }
    c.order = (uint32_t)cs->n;
    cs->c[cs->n++] = c;
}

static int cmp_change(const void *a, const void *b)
{
    const struct change *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static uint32_t glb_addr(struct dla *d, const char *name)
{
    struct regdb_ref ref;
    return regdb_resolve(dla_regmap(d), name, &ref) ? regdb_addr(ref.unit, ref.reg) : 0xffffffffu;
}

static void collect(struct changes *cs, struct dla *d, const struct trace_ring *ring)
{
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->state != DLA_LAYER_RUNNING && l->state != DLA_LAYER_DONE)
            continue;
        add(cs, (struct change){.at = l->start_cycle, .sig = l->proc, .delta = 1});
        if (l->state == DLA_LAYER_DONE)
            add(cs, (struct change){.at = l->end_cycle, .sig = l->proc, .delta = -1});
    }
    uint32_t status_addr = glb_addr(d, "GLB.S_INTR_STATUS");
    uint32_t mask_addr = glb_addr(d, "GLB.S_INTR_MASK");
    for (size_t i = 0; ring && i < trace_ring_count(ring); i++) {
        struct trace_rec rec;
        const struct trace_rec *r = &rec;
        trace_ring_get(ring, i, &rec);
        if (r->kind == DLA_EV_INTR)
            add(cs, (struct change){.at = r->cycle, .sig = SIG_STATUS, .value = r->x});
        else if (r->kind == DLA_EV_REG_WRITE && r->x == status_addr)
            add(cs, (struct change){.at = r->cycle, .sig = SIG_STATUS, .value = r->z & ~r->y});
        else if (r->kind == DLA_EV_REG_WRITE && r->x == mask_addr)
            add(cs, (struct change){.at = r->cycle, .sig = SIG_MASK, .value = r->y});
    }
}

static void bits(FILE *fp, uint32_t v, char id)
{
    fputc('b', fp);
    int top = 31;
    while (top > 0 && !(v & (1u << top)))
        top--;
    for (int b = top; b >= 0; b--)
        fputc(v & (1u << b) ? '1' : '0', fp);
    fprintf(fp, " %c\n", id);
}

static void header(FILE *fp, struct session *s, struct dla *d)
{
    fprintf(fp, "$version dladbg %s $end\n", DLADBG_VERSION);
    fprintf(fp, "$comment %s, configuration %s; model-derived cycles, 1 cycle = 1 ns $end\n",
            session_path(s), dla_cfg(d)->name);
    fprintf(fp, "$timescale 1ns $end\n$scope module nvdla $end\n");
    for (int p = 0; p < DLA_P_COUNT; p++) {
        char name[32];
        snprintf(name, sizeof name, "%s_busy", dla_proc_name((enum dla_proc)p));
        for (char *c = name; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        fprintf(fp, "$var wire 1 %c %s $end\n", sig_id[p], name);
    }
    fprintf(fp, "$var wire 32 %c intr_status $end\n", sig_id[SIG_STATUS]);
    fprintf(fp, "$var wire 32 %c intr_mask $end\n", sig_id[SIG_MASK]);
    fprintf(fp, "$var wire 1 %c intr_line $end\n", sig_id[SIG_LINE]);
    fprintf(fp, "$upscope $end\n$enddefinitions $end\n");
}

/* Write the sorted changes; returns value changes written. */
static size_t body(FILE *fp, const struct changes *cs, uint32_t mask)
{
    int busy[DLA_P_COUNT] = {0};
    uint32_t status = 0;
    bool line = false;
    fprintf(fp, "#0\n$dumpvars\n");
    for (int p = 0; p < DLA_P_COUNT; p++)
        fprintf(fp, "0%c\n", sig_id[p]);
    bits(fp, 0, sig_id[SIG_STATUS]);
    bits(fp, mask, sig_id[SIG_MASK]);
    fprintf(fp, "0%c\n$end\n", sig_id[SIG_LINE]);
    size_t written = 0;
    uint64_t stamp = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct change *c = &cs->c[i];
        if (c->at != stamp) {
            fprintf(fp, "#%llu\n", (unsigned long long)c->at);
            stamp = c->at;
        }
        if (c->sig < DLA_P_COUNT) {
            bool was = busy[c->sig] > 0;
            busy[c->sig] += c->delta;
            if (busy[c->sig] < 0)
                busy[c->sig] = 0;
            if ((busy[c->sig] > 0) != was) {
                fprintf(fp, "%d%c\n", !was, sig_id[c->sig]);
                written++;
            }
            continue;
        }
        if (c->sig == SIG_STATUS)
            status = c->value;
        else
            mask = c->value;
        bits(fp, c->value, sig_id[c->sig]);
        written++;
        bool now = (status & ~mask) != 0;
        if (now != line) {
            fprintf(fp, "%d%c\n", now, sig_id[SIG_LINE]);
            line = now;
            written++;
        }
    }
    return written;
}

bool export_vcd(struct session *s, struct trace_ring *ring, const char *path,
                struct export_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    struct dla *d = session_dla(s);
    struct changes cs = {0};
    collect(&cs, d, ring);
    if (cs.failed) {
        free(cs.c);
        snprintf(err, errlen, "%s: out of memory", path);
        return false;
    }
    if (cs.n)
        qsort(cs.c, cs.n, sizeof *cs.c, cmp_change);
    struct afile af;
    if (!afile_open(&af, path, err, errlen)) {
        free(cs.c);
        return false;
    }
    struct regdb_ref ref;
    uint32_t mask = regdb_resolve(dla_regmap(d), "GLB.S_INTR_MASK", &ref) ? ref.reg->reset : 0;
    header(af.fp, s, d);
    res->rows = body(af.fp, &cs, mask);
    free(cs.c);
    if (!afile_commit(&af, err, errlen))
        return false;
    res->files = 1;
    if (ring && trace_ring_dropped(ring))
        snprintf(res->note, sizeof res->note,
                 "interrupt signals cover the newest %zu events of the ring only",
                 trace_ring_count(ring));
    return true;
}
