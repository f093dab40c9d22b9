/* Inspection: info layers|tasks|regs|cbuf|lut|perf|mem|breakpoints|checkpoints|
 * trace|intr|units|hang, and where. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_priv.h"
#include "format.h"
#include "debug/config_choice.h"
#include "debug/mem_regions.h"
#include "loadable/loadable_plan.h"
#include "util/path.h"
#include "util/proc_status.h"
#include "util/suggest.h"

/* "info mem": regions listed before "... N more" (a trace may load many) */
#define MEM_REGIONS_SHOWN 40

static struct dla *dla_of(struct dbg *d)
{
    return session_dla(d->session);
}

static bool run_over(struct dbg *d)
{
    return session_finished(d->session);
}

/* A brief line's cycles: a layer not launched yet has none (not "0 cycles
 * (calibrated against RTL)"), a running one's are so far. */
static void brief_cycles(struct dla *dla, const struct dla_layer *l, char *buf, size_t len)
{
    if (l->state != DLA_LAYER_DONE && l->state != DLA_LAYER_RUNNING) {
        snprintf(buf, len, "not launched yet");
        return;
    }
    snprintf(buf, len, "%llu cycles%s (%s)", (unsigned long long)perf_layer_cycles(l, dla_now(dla)),
             l->state == DLA_LAYER_RUNNING ? " so far" : "",
             format_cycles_basis(dla_cfg(dla), (enum dla_proc)l->proc));
}

/* "info layers brief": what a batch run prints at its end.  A layer never
 * enabled is no layer of the run: it gets a note, not a line of its own. */
static void layers_brief(struct dbg *d)
{
    struct dla *dla = dla_of(d);
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        char group[8];
        snprintf(group, sizeof group, "%u", l->group);
        if (format_layer_never_enabled(l, run_over(d))) {
            cmd_print(
                d, "(registers of %s group %s written but never enabled: not a layer of the run)",
                dla_proc_name((enum dla_proc)l->proc), l->group > 1 ? "-" : group);
            continue;
        }
        const char *state = format_layer_state(l, run_over(d));
        /* the cycles from launch to interrupt; the programming before the
         * launch (first register write to the op enable) apart */
        char programming[48] = "";
        if (l->state != DLA_LAYER_PROGRAMMING && l->enable_cycle >= l->program_cycle)
            snprintf(programming, sizeof programming, ", programmed in %llu",
                     (unsigned long long)(l->enable_cycle - l->program_cycle));
        char cycles[96];
        brief_cycles(dla, l, cycles, sizeof cycles);
        cmd_print(d, "layer %u: %s group %s, %s%s%s%s", l->index,
                  dla_proc_name((enum dla_proc)l->proc), l->group > 1 ? "-" : group, cycles,
                  programming, l->state == DLA_LAYER_DONE ? "" : ", ",
                  l->state == DLA_LAYER_DONE ? "" : state);
    }
}

/* A loadable's operations no hardware layer has run yet: what is to come. */
static void ops_to_come(struct dbg *d)
{
    const struct loadable_plan *p = dbg_plan(d);
    size_t layer, shown = 0;
    for (size_t i = 0; p && i < p->n_ops; i++) {
        const struct plan_op *o = &p->ops[i];
        if (dbg_op_layer(d, o->task, o->op, &layer))
            continue;
        if (!shown++)
            cmd_print(d, "Operations to come (no hardware layer has run them yet):");
        cmd_print(d, "  %-5s task %u op %-4d %-13s %s%s%s%s", dla_proc_name((enum dla_proc)o->type),
                  o->task, o->op, "to come", o->desc, o->names[0] ? "  [" : "", o->names,
                  o->names[0] ? "]" : "");
    }
}

static enum cmd_status do_info_layers(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const char *opt = cmd_arg(a, 0);
    if (opt && !strcmp(opt, "brief")) {
        layers_brief(d);
        return CMD_OK;
    }
    if (opt)
        return cmd_fail(d, a, "unexpected \"%s\" (only \"brief\")", opt);
    struct dla *dla = dla_of(d);
    size_t n = dla_layer_count(dla);
    if (!n) {
        cmd_print(d, "No hardware layer has been programmed yet.");
        ops_to_come(d);
        return CMD_OK;
    }
    /* read and written are every byte the layer's DMA moved; where the
     * configuration has CV-SRAM, the same bytes by memory after them, as
     * "info perf" gives them (bandwidth is DRAM's) */
    bool two_memories = dla_cfg(dla)->cvsram;
    char memories[32] = "";
    if (two_memories)
        snprintf(memories, sizeof memories, " %10s %10s", "DRAM", "CV-SRAM");
    cmd_print(d, "%-5s %-5s %-5s %-13s %10s %10s %10s %22s %10s %10s%s %s", "layer", "unit",
              "group", "state", "start", "end", "cycles", "work", "read", "written", memories,
              "operation");
    for (size_t i = 0; i < n; i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        char end[24], group[8], work[40], op[160], by_memory[48] = "";
        if (two_memories)
            snprintf(by_memory, sizeof by_memory, " %10llu %10llu",
                     (unsigned long long)dla_layer_dram_bytes(l),
                     (unsigned long long)l->bytes_cvsram);
        dbg_layer_op_text(d, i, false, op, sizeof op);
        snprintf(end, sizeof end, "%llu", (unsigned long long)l->end_cycle);
        snprintf(group, sizeof group, "%u", l->group);
        snprintf(work, sizeof work, "%llu %s", (unsigned long long)l->macs,
                 format_work_unit((enum dla_proc)l->proc));
        cmd_print(d, "%-5u %-5s %-5s %-13s %10llu %10s %10llu %22s %10llu %10llu%s %s%s%s%s",
                  l->index, dla_proc_name((enum dla_proc)l->proc), l->group > 1 ? "-" : group,
                  format_layer_state(l, run_over(d)), (unsigned long long)l->start_cycle,
                  l->state == DLA_LAYER_DONE ? end : "-",
                  (unsigned long long)perf_layer_cycles(l, dla_now(dla)), work,
                  (unsigned long long)l->bytes_read, (unsigned long long)l->bytes_written,
                  by_memory, l->desc, op[0] ? "  [" : "", op, op[0] ? "]" : "");
    }
    ops_to_come(d);
    if (two_memories)
        cmd_print(d, "(read, written: bytes the layer's DMA moved; "
                     "DRAM, CV-SRAM: the same by memory)");
    else
        cmd_print(d, "(read, written: bytes the layer's DMA moved, all DRAM: %s has no CV-SRAM)",
                  dla_cfg(dla)->name);
    char basis[128];
    format_timing_basis(dla_cfg(dla), basis, sizeof basis);
    cmd_print(d, "(cycles from launch to interrupt: %s)", basis);
    return CMD_OK;
}

static void task_state(const struct session_task *t, char *buf, size_t len)
{
    if (!t)
        snprintf(buf, len, "to come");
    else if (t->done)
        snprintf(buf, len, "done, cycles %llu-%llu", (unsigned long long)t->begin_cycle,
                 (unsigned long long)t->end_cycle);
    else
        snprintf(buf, len, "running since cycle %llu", (unsigned long long)t->begin_cycle);
}

/* One line per operation of a DLA task: the layer that ran it, or "to come". */
static void task_ops(struct dbg *d, const struct loadable_plan *p, const struct plan_task *t)
{
    struct dla *dla = dla_of(d);
    for (size_t k = 0; k < t->n_ops; k++) {
        const struct plan_op *o = &p->ops[t->first_op + k];
        char state[48] = "to come";
        size_t layer;
        if (dbg_op_layer(d, o->task, o->op, &layer))
            snprintf(state, sizeof state, "layer %zu %s", layer,
                     format_layer_state(dla_layer_get(dla, layer), run_over(d)));
        cmd_print(d, "    op %-4d %-5s %-22s %s%s%s%s", o->op,
                  dla_proc_name((enum dla_proc)o->type), state, o->desc, o->names[0] ? "  [" : "",
                  o->names, o->names[0] ? "]" : "");
    }
    if (t->problem[0])
        cmd_print(d, "    (operations not listed: %s)", t->problem);
}

static enum cmd_status do_info_tasks(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const struct loadable_plan *p = dbg_plan(d);
    if (!p) {
        bool loadable = !strcmp(session_driver(d->session)->ops->kind, "loadable");
        cmd_print(d, "%s: %s.", session_path(d->session),
                  loadable ? "its tasks cannot be listed (the runtime cannot place it)"
                           : "no tasks (register traces have none)");
        return CMD_OK;
    }
    for (size_t i = 0; i < p->n_tasks; i++) {
        const struct plan_task *t = &p->tasks[i];
        char state[80], ops[32] = "";
        task_state(session_task_of(d->session, (int)t->index), state, sizeof state);
        if (!t->emu)
            snprintf(ops, sizeof ops, ", %zu operation%s", t->n_ops, t->n_ops == 1 ? "" : "s");
        cmd_print(d, "task %u: %s task %u%s%s%s: %s", t->index, t->emu ? "EMU (CPU)" : "DLA", t->id,
                  ops, t->tensors[0] ? ", tensors " : "", t->tensors, state);
        task_ops(d, p, t);
    }
    if (!p->n_tasks)
        cmd_print(d, "The loadable has no tasks.");
    return CMD_OK;
}

/* A register's value and fields; a D_ register's in group `group`, or in
 * both when group is -1. */
static void print_reg(struct dbg *d, const struct regdb_unit *u, const struct regdb_reg *r,
                      int group)
{
    struct dla *dla = dla_of(d);
    enum dla_unit unit = dla_unit_of(dla, u);
    char fields[1024];
    if (r->dual) {
        for (int g = 0; g < 2; g++) {
            if (group >= 0 && g != group)
                continue;
            uint32_t v = dla_reg_value(dla, unit, g, r->offset);
            format_fields_inline(r, v, fields, sizeof fields);
            cmd_print(d, "  %-28s g%d 0x%08x  %s", r->name, g, v, fields);
        }
    } else {
        uint32_t v = dla_reg_value(dla, unit, 0, r->offset);
        format_fields_inline(r, v, fields, sizeof fields);
        cmd_print(d, "  %-28s    0x%08x  %s", r->name, v, fields);
    }
}

/* "CDMA at 0x05000: producer group 0, consumer group 1" (units without
 * register groups: the address alone), then `tail`. */
static void print_unit_line(struct dbg *d, const struct regdb_unit *u, const char *tail)
{
    struct dla *dla = dla_of(d);
    enum dla_unit unit = dla_unit_of(dla, u);
    if (u->op_enable != 0xffff)
        cmd_print(d, "%s at 0x%05x: producer group %d, consumer group %d%s", u->name, u->base,
                  dla_producer_group(dla, unit), dla_consumer_group(dla, unit), tail);
    else
        cmd_print(d, "%s at 0x%05x%s", u->name, u->base, tail);
}

/* "info regs" alone, as gdb's "info registers": the registers of the units
 * of the layer the run is at, its group only. */
static void layer_regs(struct dbg *d, const struct dla_layer *l)
{
    struct dla *dla = dla_of(d);
    char what[96];
    format_layer_event((int)l->index, (enum dla_proc)l->proc, l->group,
                       format_layer_state(l, run_over(d)), what, sizeof what);
    cmd_print(d, "%s: its units' registers, group %u (\"info regs UNIT\": one unit, both groups)",
              what, l->group);
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct regdb_unit *ru = dla_unit_db(dla, (enum dla_unit)u);
        if (!ru || dla_unit_proc((enum dla_unit)u) != (enum dla_proc)l->proc ||
            !dla_unit_present(dla, (enum dla_unit)u))
            continue;
        print_unit_line(d, ru, "");
        for (uint16_t i = 0; i < ru->n_regs; i++)
            print_reg(d, ru, &ru->regs[i], l->group);
    }
}

/* Before any layer: every unit in one line, its groups and S_STATUS. */
static void units_summary(struct dbg *d)
{
    struct dla *dla = dla_of(d);
    const struct regdb_map *map = dla_regmap(dla);
    cmd_print(d, "No hardware layer yet.  The units (\"info regs UNIT\" shows one):");
    for (uint16_t i = 0; i < map->n_units; i++) {
        const struct regdb_unit *u = &map->units[i];
        const struct regdb_reg *st = regdb_reg_named(u, "S_STATUS");
        char status[256] = "";
        if (!dla_unit_present(dla, dla_unit_of(dla, u))) {
            print_unit_line(d, u, "; not in this configuration");
            continue;
        }
        if (st) {
            uint32_t v = dla_reg_value(dla, dla_unit_of(dla, u), 0, st->offset);
            snprintf(status, sizeof status, ", status ");
            format_fields_inline(st, v, status + strlen(status), sizeof status - strlen(status));
        }
        print_unit_line(d, u, status);
    }
}

static enum cmd_status do_info_regs(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const struct regdb_map *map = dla_regmap(dla_of(d));
    const char *name = cmd_arg(a, 0);
    if (!name) {
        const struct dla_layer *l = session_layer_at(d->session);
        if (l)
            layer_regs(d, l);
        else
            units_summary(d);
        return CMD_OK;
    }
    const struct regdb_unit *u = regdb_unit_named(map, name);
    if (!u)
        return cmd_fail(d, a, "no unit \"%s\" in the %s map", name, map->name);
    char absent[160];
    if (format_unit_absent(dla_of(d), u, absent, sizeof absent))
        return cmd_fail(d, a, "%s", absent);
    print_unit_line(d, u, "");
    for (uint16_t i = 0; i < u->n_regs; i++)
        print_reg(d, u, &u->regs[i], -1);
    return CMD_OK;
}

static enum cmd_status do_info_cbuf(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    struct dla_cbuf_bank banks[64];
    size_t n = dla_cbuf_banks(dla_of(d), banks, 64);
    if (n > 64)
        n = 64;
    const struct dla_config *cfg = dla_cfg(dla_of(d));
    cmd_print(d, "CBUF: %u banks of %u bytes (%u entries of %u bytes)", cfg->cbuf_banks,
              cfg->cbuf_bank_bytes, dla_cbuf_bank_entries(cfg), cfg->cbuf_entry_bytes);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const struct dla_cbuf_bank *b = &banks[i];
        if (b->layer < 0 && !b->reads && !b->writes)
            continue;
        used++;
        cmd_print(d, "  bank %2zu: %s of layer %d, %llu bytes used, %llu entry reads, %llu writes",
                  i,
                  b->kind == 0   ? "data"
                  : b->kind == 1 ? "weight"
                                 : "WMB",
                  b->layer, (unsigned long long)b->bytes_used, (unsigned long long)b->reads,
                  (unsigned long long)b->writes);
    }
    if (!used)
        cmd_print(d, "  every bank is free");
    return CMD_OK;
}

static void print_lut(struct dbg *d, const struct dla_layer *l)
{
    const struct dla_lut_stats *s = l->lut;
    cmd_print(d,
              "layer %u (%s, group %u): %llu lookups: LE hit %llu, LO hit %llu, hybrid %llu, "
              "underflow %llu, overflow %llu",
              l->index, dla_proc_name((enum dla_proc)l->proc), l->group,
              (unsigned long long)s->lookups, (unsigned long long)s->le_hit,
              (unsigned long long)s->lo_hit, (unsigned long long)s->hybrid,
              (unsigned long long)s->underflow, (unsigned long long)s->overflow);
    cmd_print(d, "  LE table: underflow %llu overflow %llu; LO table: underflow %llu overflow %llu",
              (unsigned long long)s->le_underflow, (unsigned long long)s->le_overflow,
              (unsigned long long)s->lo_underflow, (unsigned long long)s->lo_overflow);
    uint64_t max = 1;
    for (int i = 0; i < DLA_LUT_HIST_BINS; i++)
        if (s->hist[i] > max)
            max = s->hist[i];
    char bars[DLA_LUT_HIST_BINS + 1];
    static const char shade[] = " .:-=+*#";
    for (int i = 0; i < DLA_LUT_HIST_BINS; i++)
        bars[i] = shade[s->hist[i] ? 1 + (s->hist[i] * 6) / max : 0];
    bars[DLA_LUT_HIST_BINS] = 0;
    cmd_print(d, "  input histogram: %llu below |%s| %llu above", (unsigned long long)s->hist_below,
              bars, (unsigned long long)s->hist_above);
}

static enum cmd_status do_info_lut(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const char *unit = cmd_arg(a, 0);
    int want = -1;
    if (unit) {
        if (!strcasecmp(unit, "sdp"))
            want = DLA_P_SDP;
        else if (!strcasecmp(unit, "cdp"))
            want = DLA_P_CDP;
        else
            return cmd_fail(d, a, "expected sdp or cdp, not \"%s\"", unit);
    }
    struct dla *dla = dla_of(d);
    size_t shown = 0;
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (!l->lut || (want >= 0 && l->proc != want))
            continue;
        print_lut(d, l);
        shown++;
    }
    if (!shown)
        cmd_print(d, "No layer%s%s has used a LUT yet.", unit ? " of " : "", unit ? unit : "");
    return CMD_OK;
}

/* Each DMA client's bytes over the whole run, and where the configuration
 * has CV-SRAM, how many of them were DRAM's and CV-SRAM's, as each layer's
 * line gives them: bandwidth is DRAM's. */
static void client_totals(struct dbg *d, struct dla *dla)
{
    bool two_memories = dla_cfg(dla)->cvsram;
    cmd_print(d, "DMA clients over the whole run%s:", two_memories ? "" : " (all DRAM)");
    for (int c = 0; c < DLA_C_COUNT; c++) {
        enum dla_client client = (enum dla_client)c;
        if (!dla_client_transactions(dla, client))
            continue;
        uint64_t bytes = dla_client_bytes(dla, client);
        uint64_t cvsram = dla_client_cvsram_bytes(dla, client);
        char by_memory[80] = "";
        if (two_memories)
            snprintf(by_memory, sizeof by_memory, " (DRAM %llu, CV-SRAM %llu)",
                     (unsigned long long)(bytes - cvsram), (unsigned long long)cvsram);
        cmd_print(d, "  %-10s %12llu bytes in %llu transactions%s", dla_client_name(client),
                  (unsigned long long)bytes,
                  (unsigned long long)dla_client_transactions(dla, client), by_memory);
    }
}

static enum cmd_status do_info_perf(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    struct dla *dla = dla_of(d);
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        char by_memory[80] = ""; /* where a configuration has two memories, each one's share */
        if (dla_cfg(dla)->cvsram)
            snprintf(by_memory, sizeof by_memory, " (DRAM %llu, CV-SRAM %llu)",
                     (unsigned long long)dla_layer_dram_bytes(l),
                     (unsigned long long)l->bytes_cvsram);
        cmd_print(d,
                  "layer %u (%s, group %u): %llu cycles, %llu compute, %llu stalled, "
                  "%llu bytes read, %llu written%s",
                  l->index, dla_proc_name((enum dla_proc)l->proc), l->group,
                  (unsigned long long)perf_layer_cycles(l, dla_now(dla)),
                  (unsigned long long)l->compute_cycles, (unsigned long long)l->stall_cycles,
                  (unsigned long long)l->bytes_read, (unsigned long long)l->bytes_written,
                  by_memory);
        for (uint32_t c = 0; c < l->n_counters && c < DLA_MAX_COUNTERS; c++)
            cmd_print(d, "  %-36s %llu", l->counters[c].name,
                      (unsigned long long)l->counters[c].value);
    }
    client_totals(d, dla);
    uint64_t run;
    if (format_run_cycles(dla, &run))
        cmd_print(d, "whole run: %llu cycles from the first launch to the last interrupt (%s)",
                  (unsigned long long)run, format_run_basis(dla_cfg(dla)));
    char basis[128];
    format_timing_basis(dla_cfg(dla), basis, sizeof basis);
    cmd_print(d, "(cycles: %s; counters model-derived)", basis);
    return CMD_OK;
}

/* The memory the file binds (what x, dump memory and tensor ADDR read
 * besides what the run wrote), a screenful at most. */
static void print_regions(struct dbg *d)
{
    struct driver *drv = session_driver(d->session);
    if (!drv->ops->regions)
        return;
    const struct drv_region *r;
    size_t n = drv->ops->regions(drv, dla_of(d), &r);
    cmd_print(d, "%s binds %zu region%s of memory%s", drv->name, n, n == 1 ? "" : "s",
              n ? ":" : "");
    for (size_t i = 0; i < n && i < MEM_REGIONS_SHOWN; i++) {
        char text[160];
        region_text(&r[i], text, sizeof text);
        cmd_print(d, "  %s", text);
    }
    if (n > MEM_REGIONS_SHOWN)
        cmd_print(d, "  ... %zu more", n - MEM_REGIONS_SHOWN);
}

static enum cmd_status do_info_mem(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    struct dla *dla = dla_of(d);
    for (int s = 0; s < DLA_SPACE_COUNT; s++) {
        struct dla_mem *m = dla_memory(dla, (enum dla_space)s);
        if (s == DLA_CVSRAM && !dla_cfg(dla)->cvsram)
            continue;
        /* counted in place: gathering every page's bytes (a 64 KiB buffer
         * and a page list) grew the very peak RSS reported below */
        uint64_t lo, hi, pages = mem_page_span(m, &lo, &hi);
        if (pages)
            cmd_print(d, "%-7s %llu bytes resident in %llu pages of %u, 0x%llx-0x%llx",
                      dla_space_name((enum dla_space)s), (unsigned long long)mem_resident_bytes(m),
                      (unsigned long long)pages, MEM_PAGE_SIZE, (unsigned long long)lo,
                      (unsigned long long)hi);
        else
            cmd_print(d, "%-7s nothing written", dla_space_name((enum dla_space)s));
    }
    print_regions(d);
    /* the model's per-layer working buffers, kept from one layer to the next */
    cmd_print(d,
              "model scratch %llu bytes kept across layers (%llu allocations, %llu requests "
              "served by a kept buffer)",
              (unsigned long long)dla_scratch_bytes(dla),
              (unsigned long long)dla_scratch_grows(dla),
              (unsigned long long)dla_scratch_reuses(dla));
    /* what the whole debugger costs, beside what the network holds */
    long now = proc_status_kib("VmRSS"), peak = proc_status_kib("VmHWM");
    long anon = proc_status_kib("RssAnon"), file = proc_status_kib("RssFile");
    if (peak < now) /* the kernel's counters settle lazily: the peak is at least now */
        peak = now;
    if (peak >= 0 && now >= 0)
        cmd_print(d,
                  "process peak RSS %ld KiB, %ld KiB now (this dladbg: simulated memory, "
                  "debugger state, code)",
                  peak, now);
    if (anon >= 0 && file >= 0) /* what the program's code and libraries take of it */
        cmd_print(d, "process now: %ld KiB anonymous (heap, stacks), %ld KiB of files (code, "
                     "libraries)",
                  anon, file);
    return CMD_OK;
}

static const char *bp_type(const struct breakpoint *bp)
{
    switch (bp->kind) {
    case BP_WATCH_REG:
    case BP_WATCH_MEM:
        return "watchpoint";
    default:
        return bp->temporary ? "tbreakpoint" : "breakpoint";
    }
}

static enum cmd_status do_info_breakpoints(struct dbg *d, struct cmd_args *a)
{
    (void)a;
    if (!bps_count(d->bps)) {
        cmd_print(d, "No breakpoints or watchpoints.");
        return CMD_OK;
    }
    cmd_print(d, "%-4s %-11s %-3s %-5s %s", "Num", "Type", "Enb", "Hits", "What");
    for (size_t i = 0; i < bps_count(d->bps); i++) {
        const struct breakpoint *bp = bps_get(d->bps, i);
        cmd_print(d, "%-4d %-11s %-3s %-5llu %s", bp->number, bp_type(bp), bp->enabled ? "y" : "n",
                  (unsigned long long)bp->hits, bp->what);
        if (bp->cond[0])
            cmd_print(d, "        stop only if %s", bp->cond);
        if (bp->ignore)
            cmd_print(d, "        ignore next %llu hits", (unsigned long long)bp->ignore);
        cmd_print_bp_commands(d, bp->number);
    }
    return CMD_OK;
}

static enum cmd_status do_info_checkpoints(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    cmd_print(d,
              "%zu layer boundaries, %zu saved states holding %llu KiB besides the live model "
              "(others are replayed when needed)",
              cps_count(d->cps), cps_stored(d->cps),
              (unsigned long long)((cps_bytes(d->cps) + 1023) / 1024));
    struct checkpoint_info ci;
    for (size_t i = 0; cps_get(d->cps, i, &ci); i++)
        cmd_print(d, "  boundary %-4llu cycle %-10llu after %llu writes%s",
                  (unsigned long long)ci.layers, (unsigned long long)ci.cycle,
                  (unsigned long long)ci.writes, ci.stored ? "" : " (replayed)");
    return CMD_OK;
}

static enum cmd_status do_info_trace(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    uint64_t n;
    if (!cmd_count(d, a, 0, 20, &n))
        return CMD_ERROR;
    size_t count = trace_ring_count(d->ring);
    cmd_print(d, "event ring: %zu of %zu events held, %llu recorded, %llu dropped", count,
              trace_ring_capacity(d->ring), (unsigned long long)trace_ring_next_seq(d->ring),
              (unsigned long long)trace_ring_dropped(d->ring));
    size_t from = count > n ? count - (size_t)n : 0;
    const struct regdb_map *map = dla_regmap(dla_of(d));
    for (size_t i = from; i < count; i++) {
        char line[512];
        struct trace_rec rec;
        trace_ring_get(d->ring, i, &rec);
        trace_ring_describe(d->ring, &rec, map, line, sizeof line);
        cmd_print(d, "  %s", line);
    }
    return CMD_OK;
}

static void print_bits(struct dbg *d, const char *label, uint32_t v)
{
    char names[512];
    format_intr_bits(v, names, sizeof names);
    cmd_print(d, "%s 0x%08x%s", label, v, names);
}

static enum cmd_status do_info_intr(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    struct dla *dla = dla_of(d);
    print_bits(d, "GLB.S_INTR_STATUS", dla_intr_status(dla));
    char mask_names[512];
    format_reg_bits(dla_regmap(dla), "GLB.S_INTR_MASK", dla_intr_mask(dla), mask_names,
                    sizeof mask_names);
    cmd_print(d, "GLB.S_INTR_MASK   0x%08x%s", dla_intr_mask(dla), mask_names);
    print_bits(d, "pending & masked ", dla_intr_status(dla) & dla_intr_mask(dla));
    cmd_print(d, "interrupt line: %s", dla_intr_line(dla) ? "asserted" : "low");
    return CMD_OK;
}

static enum cmd_status do_info_units(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    struct dla *dla = dla_of(d);
    struct regdb_ref ref;
    if (dla_cfg(dla)->bdma && regdb_resolve(dla_regmap(dla), "BDMA.STATUS", &ref)) {
        char fields[256];
        format_fields_inline(ref.reg, dla_csb_peek(dla, regdb_addr(ref.unit, ref.reg)), fields,
                             sizeof fields);
        cmd_print(d, "%-9s STATUS %s", "BDMA", fields);
    }
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct regdb_unit *ru = dla_unit_db(dla, (enum dla_unit)u);
        if (!ru || ru->op_enable == 0xffff)
            continue;
        cmd_print(d, "%-9s group 0 %-7s group 1 %-7s producer %d consumer %d",
                  dla_unit_name((enum dla_unit)u),
                  dla_op_enabled(dla, (enum dla_unit)u, 0) ? "enabled" : "idle",
                  dla_op_enabled(dla, (enum dla_unit)u, 1) ? "enabled" : "idle",
                  dla_producer_group(dla, (enum dla_unit)u),
                  dla_consumer_group(dla, (enum dla_unit)u));
    }
    return CMD_OK;
}

static enum cmd_status do_info_hang(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    /* a run that ended well waits for nothing: "no progress" would read as a hang */
    if (session_finished(d->session) && !d->hung) {
        cmd_print(d, "No hang: the run finished at cycle %llu; nothing waits.",
                  (unsigned long long)dla_now(dla_of(d)));
        return CMD_OK;
    }
    cmd_hang_report(d, DBG_OUT_TEXT);
    return CMD_OK;
}

/* "info config": the configuration the session runs on and what the file
 * tells of its own, with every configuration that fits it (the open line
 * names only the one chosen). */
static enum cmd_status do_info_config(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const struct dla_config *c = dla_cfg(dla_of(d));
    cmd_print(d, "Configuration %s%s: %s", c->name, d->opt.session.cfg ? " (--config)" : "",
              c->summary);
    char line[600], name[256];
    if (config_describe(session_path(d->session), line, sizeof line)) {
        cmd_print(d, "%s", line);
    } else {
        path_last_component(session_path(d->session), name, sizeof name);
        cmd_print(d, "%s: nothing in it tells its configuration", name);
    }
    cmd_print(d, "(dladbg --list-configs lists every configuration; --config NAME chooses one)");
    return CMD_OK;
}

/* Does rule r belong to what the user named: its unit ("cdma"), or a
 * processor's units ("conv": CDMA, CBUF, CSC, CMAC, CACC)? */
static bool rule_of(const struct dla_rule_info *r, const char *unit)
{
    return !unit || !strcasecmp(unit, dla_unit_name(r->unit)) ||
           !strcasecmp(unit, dla_proc_name(dla_unit_proc(r->unit)));
}

/* A word that names no unit with rules: fail listing those that have some. */
static enum cmd_status fail_rule_unit(struct dbg *d, struct cmd_args *a, const char *unit)
{
    char names[256] = "";
    bool listed[DLA_U_COUNT] = {false};
    struct suggest s;
    suggest_init(&s, unit);
    for (size_t i = 0; i < dla_rule_count(); i++) {
        enum dla_unit u = dla_rule_info(i)->unit;
        if (listed[u])
            continue;
        listed[u] = true;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", dla_unit_name(u));
        suggest_consider(&s, dla_unit_name(u));
    }
    char hint[64] = "";
    if (suggest_best(&s))
        snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", suggest_best(&s));
    return cmd_fail(d, a, "no rules of \"%s\"%s; units with rules: %s", unit, hint, names);
}

/* "info rules [UNIT]": every rule the model checks (of one unit), with the
 * hits of this run. */
static enum cmd_status do_info_rules(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const char *unit = cmd_arg(a, 0);
    if (cmd_nargs(a) > 1)
        return cmd_fail(d, a, "unexpected \"%s\"", cmd_arg(a, 1));
    struct dla *dla = dla_of(d);
    size_t fired = 0, shown = 0;
    for (size_t i = 0; i < dla_rule_count(); i++)
        shown += rule_of(dla_rule_info(i), unit);
    if (!shown)
        return fail_rule_unit(d, a, unit);
    cmd_print(d, "%-28s %-8s %6s  %s", "rule", "unit", "fired", "guide section: what it asks");
    for (size_t i = 0; i < dla_rule_count(); i++) {
        const struct dla_rule_info *r = dla_rule_info(i);
        if (!rule_of(r, unit))
            continue;
        uint64_t hits = dla_rule_hits(dla, i);
        fired += hits != 0;
        cmd_print(d, "%-28s %-8s %6llu  %s: %s", r->id, dla_unit_name(r->unit),
                  (unsigned long long)hits, r->section, r->rule);
    }
    if (unit) {
        cmd_print(d, "%zu of %zu %s rules fired in this run (\"break rule ID\" stops at one).",
                  fired, shown, unit);
        return CMD_OK;
    }
    cmd_print(d, "%zu of %zu rules fired in this run (\"break rule ID\" stops at one).", fired,
              dla_rule_count());
    return CMD_OK;
}

void cmd_print_rule_ids(struct dbg *d)
{
    char line[128] = "  ";
    cmd_print(d, "Rule ids (\"info rules\" says what each checks and how often it fired):");
    for (size_t i = 0; i < dla_rule_count(); i++) {
        const char *id = dla_rule_info(i)->id;
        if (strlen(line) + strlen(id) + 1 > 90) {
            cmd_print(d, "%s", line);
            snprintf(line, sizeof line, "  ");
        }
        size_t n = strlen(line);
        snprintf(line + n, sizeof line - n, "%s%s", n > 2 ? " " : "", id);
    }
    if (strlen(line) > 2)
        cmd_print(d, "%s", line);
}

static enum cmd_status do_where(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    char line[512], next[512];
    cmd_where_line(d, line, sizeof line); /* names the file already */
    cmd_print(d, "%s", line);
    struct drv_action act;
    if (!session_pending(d->session, &act)) {
        cmd_print(d, "the run has finished");
        return CMD_OK;
    }
    cmd_hw_next(d, next, sizeof next);
    cmd_print(d, "next: %s", next);
    cmd_print(d, "  driver: %s", act.where[0] ? act.where : "?");
    return CMD_OK;
}

static const struct cmd_entry info_subs[] = {
    {"layers", "l", "[brief]", "info layers [brief]",
     "Hardware layers: unit, group, state (programming, enabled, running, done; never\n"
     "enabled: registers written but no operation enabled by the end of the run, not\n"
     "counted), model-derived cycles, work (CONV: MACs; BDMA: bytes; SDP, RUBIK: elements;\n"
     "PDP: pool reads; CDP: LRN terms), bytes its DMA read and wrote (where the\n"
     "configuration has CV-SRAM, then the same bytes by memory: DRAM, CV-SRAM), operation.",
     do_info_layers, NULL, false},
    {"tasks", "t", NULL, "info tasks",
     "Tasks of a loadable in submit order, before and while they run: DLA or CPU (EMU), the\n"
     "bound tensors each reaches, its state and cycles, and a DLA task's operations with the\n"
     "hardware layer that ran each (or \"to come\").",
     do_info_tasks, NULL, false},
    {"dma", NULL, "lines [READ WRITE]", "info dma lines [READ WRITE]",
     "The 64-byte DRAM lines the model's DMA read and wrote; with two golden lists (one hex\n"
     "address a line, as NVIDIA's VP_mem_rd and VP_mem_wr) the lines only one side has.\n"
     "A difference is a failed check (exit status 1 in batch mode).  \"-\" for a list\n"
     "compares that direction with nothing; an empty list while the model moved lines is\n"
     "taken as not captured and not compared (said so).",
     cmd_info_dma, NULL, false},
    {"tensors", NULL, NULL, "info tensors",
     "The tensors a loadable names: id, name, memory, address, size, shape, type.",
     cmd_info_tensors, NULL, false},
    {"regs", "r registers", "UNIT", "info regs [UNIT]",
     "Every register of a unit, both groups of D_ registers, fields decoded.  Without UNIT,\n"
     "as gdb's \"info registers\": the registers of the units of the hardware layer the run\n"
     "is at (running, else enabled, else being programmed, else the last to finish), the\n"
     "layer's group only; before any layer, one line a unit (address, groups, status).\n"
     "A unit the configuration lacks is refused (its registers are in no expression either).",
     do_info_regs, NULL,
     false},
    {"cbuf", NULL, NULL, "info cbuf", "Convolution buffer banks: owner layer, kind, use.",
     do_info_cbuf, NULL, false},
    {"lut", NULL, "[sdp|cdp]", "info lut [sdp|cdp]",
     "LUT statistics per layer: hits per table, under/overflow, input histogram.", do_info_lut,
     NULL, false},
    {"perf", "p", NULL, "info perf [top [N|all]]",
     "Per-layer performance figures (bytes read and written; where the configuration has\n"
     "CV-SRAM, how many of them were DRAM's and CV-SRAM's) and counters, DMA clients'\n"
     "totals (their bytes by memory likewise; model-derived);\n"
     "\"info perf top\": the layers ranked by cycles (\"help info perf top\").",
     do_info_perf, cmd_perf_subs, false},
    {"mem", "m memory", NULL, "info mem",
     "Memories: resident bytes and address span; the regions of memory the file binds\n"
     "(what x reads besides what the run wrote); the process's peak and current RSS.",
     do_info_mem,
     NULL, false},
    {"breakpoints", "b break watchpoints", NULL, "info breakpoints",
     "Breakpoints and watchpoints with hit counts, conditions and ignore counts.",
     do_info_breakpoints, NULL, false},
    {"display", NULL, NULL, "info display",
     "The auto-display expressions (\"help display\"), by number.", cmd_info_display, NULL, false},
    {"checkpoints", "cp", NULL, "info checkpoints", "Layer boundaries \"back\" can return to.",
     do_info_checkpoints, NULL, false},
    {"trace", "events", "[N]", "info trace [N]",
     "The newest N (default 20) events of the always-on event ring.", do_info_trace, NULL, false},
    {"intr", "interrupts", NULL, "info intr", "Interrupt status and mask by name, and the line.",
     do_info_intr, NULL, false},
    {"units", "u", NULL, "info units", "Which units have an operation enabled in which group.",
     do_info_units, NULL, false},
    {"config", "configuration", NULL, "info config",
     "The hardware configuration the session runs on, and every configuration the file fits.",
     do_info_config, NULL, false},
    {"rules", NULL, "[UNIT]", "info rules [UNIT]",
     "Every programming-guide rule the model checks: id, unit, the guide's section and what\n"
     "it asks, and how often it fired in this run.  With UNIT (cdma, sdp ...; conv: the\n"
     "convolution pipeline's units) only that unit's rules.",
     do_info_rules, NULL, false},
    {"hang", "diagnose", NULL, "info hang",
     "Why nothing progresses: what the driver waits for, layers not running and the units\n"
     "they lack, interrupt status and mask by name (after a run that finished: that it did).",
     do_info_hang, NULL, false},
    END_OF_TABLE,
};

const struct cmd_entry cmd_info_entries[] = {
    {"info", "i", NULL, "info layers|tasks|regs|cbuf|lut|perf|mem|breakpoints|...",
     "Show what the debugger knows; \"help info\" lists the topics.", NULL, info_subs, false},
    {"where", "bt backtrace", NULL, "where",
     "Where the run is: the action executed last and the one about to execute.", do_where, NULL,
     false},
    END_OF_TABLE,
};
