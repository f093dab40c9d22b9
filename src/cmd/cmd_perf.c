/* "info perf top [N|all]": the hardware layers of the run so far ranked by
 * cycles, as `perf report` ranks functions: which layers take the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "format.h"
#include "debug/perf_rank.h"

#define TOP_DEFAULT 10

/* "N" (an expression, at least 1) or "all" (every layer: SIZE_MAX). */
static bool top_count(struct dbg *d, struct cmd_args *a, size_t *shown)
{
    const char *t = cmd_arg(a, 0);
    *shown = TOP_DEFAULT;
    if (!t)
        return true;
    if (!strcmp(t, "all")) {
        *shown = SIZE_MAX;
        return true;
    }
    int64_t v;
    char err[160];
    if (cmd_nargs(a) > 1 || !cmd_eval(d, t, &v, err, sizeof err) || v < 1) {
        cmd_fail(d, a, "expected a positive number of layers or \"all\", not \"%s\"",
                 cmd_rest(a, 0));
        return false;
    }
    *shown = (uint64_t)v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return true;
}

/* The launched layers (running or done) with their cycles so far. */
static size_t launched_layers(struct dla *dla, struct perf_rank_item *items)
{
    size_t n = 0;
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (perf_layer_launched(l))
            items[n++] = (struct perf_rank_item){perf_layer_cycles(l, dla_now(dla)), i};
    }
    return n;
}

/* The run's hardware cycles, what the shares are of: first launch to last
 * interrupt as "Run finished" says it; while a layer still runs, first
 * launch to now (*so_far). */
static bool run_cycles(struct dla *dla, uint64_t *cycles, bool *so_far)
{
    uint64_t first = UINT64_MAX;
    *so_far = false;
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (perf_layer_launched(l) && l->start_cycle < first)
            first = l->start_cycle;
        *so_far |= l->state == DLA_LAYER_RUNNING;
    }
    if (!*so_far)
        return format_run_cycles(dla, cycles);
    *cycles = dla_now(dla) - first;
    return true;
}

/* "12.3%", or "-" when the whole is nothing. */
static void percent(char *buf, size_t len, uint64_t part, uint64_t whole)
{
    if (whole)
        snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)whole);
    else
        snprintf(buf, len, "-");
}

/* "12.5 MACs", "0.3" per cycle, or "-" for no cycles. */
static void per_cycle(char *buf, size_t len, uint64_t amount, uint64_t cycles, const char *what)
{
    if (cycles)
        snprintf(buf, len, "%.1f%s%s", (double)amount / (double)cycles, what[0] ? " " : "", what);
    else
        snprintf(buf, len, "-");
}

static void print_ranked(struct dbg *d, size_t rank, const struct dla_layer *l, uint64_t cycles,
                         uint64_t run)
{
    struct dla *dla = session_dla(d->session);
    char group[8], share[16], compute[16], stall[16], work[40], dram[24], op[160];
    snprintf(group, sizeof group, "%u", l->group);
    percent(share, sizeof share, cycles, run);
    /* a running layer's counters are its whole work, computed at launch:
     * over its cycles so far they would overstate every rate */
    uint64_t whole = l->state == DLA_LAYER_DONE ? cycles : 0;
    percent(compute, sizeof compute, l->compute_cycles, whole);
    percent(stall, sizeof stall, l->stall_cycles, whole);
    per_cycle(work, sizeof work, l->macs, whole, format_work_unit((enum dla_proc)l->proc));
    per_cycle(dram, sizeof dram, dla_layer_dram_bytes(l), whole, "");
    dbg_layer_op_text(d, l->index, false, op, sizeof op);
    cmd_print(d, "%4zu %5u %-5s %5s %10llu%s %-22s %6s %7s %6s %22s %16s %s%s%s", rank, l->index,
              dla_proc_name((enum dla_proc)l->proc), l->group > 1 ? "-" : group,
              (unsigned long long)cycles, l->state == DLA_LAYER_RUNNING ? "+" : " ",
              format_cycles_basis(dla_cfg(dla), (enum dla_proc)l->proc), share, compute, stall,
              work, dram, op[0] ? "[" : "", op, op[0] ? "]" : "");
}

/* "by unit: CONV 1234 cycles (calibrated against RTL) 80.1%, SDP ...": every
 * launched layer's cycles summed per unit. */
static void print_units(struct dbg *d, const struct perf_rank_item *items, size_t n, uint64_t run)
{
    struct dla *dla = session_dla(d->session);
    uint64_t by_proc[DLA_P_COUNT] = {0};
    bool ran[DLA_P_COUNT] = {false};
    for (size_t i = 0; i < n; i++) {
        enum dla_proc proc = (enum dla_proc)dla_layer_get(dla, items[i].index)->proc;
        by_proc[proc] += items[i].cycles;
        ran[proc] = true;
    }
    char line[512] = "by unit:";
    size_t len = strlen(line);
    for (int p = 0; p < DLA_P_COUNT && len < sizeof line; p++) {
        if (!ran[p])
            continue;
        char share[16];
        percent(share, sizeof share, by_proc[p], run);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s %s %llu cycles (%s) %s",
                                len > strlen("by unit:") ? "," : "",
                                dla_proc_name((enum dla_proc)p), (unsigned long long)by_proc[p],
                                format_cycles_basis(dla_cfg(dla), (enum dla_proc)p), share);
    }
    cmd_print(d, "%s", line);
}

static enum cmd_status do_info_perf_top(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    size_t shown;
    if (!top_count(d, a, &shown))
        return CMD_ERROR;
    struct dla *dla = session_dla(d->session);
    struct perf_rank_item *items = malloc((dla_layer_count(dla) + 1) * sizeof *items);
    if (!items)
        return cmd_fail(d, a, "out of memory ranking %zu layers", dla_layer_count(dla));
    size_t n = launched_layers(dla, items);
    uint64_t run = 0;
    bool so_far = false;
    if (!n || !run_cycles(dla, &run, &so_far)) {
        free(items);
        cmd_print(d, "No hardware layer has been launched yet: nothing to rank (run, continue or "
                     "step first).");
        return CMD_OK;
    }
    perf_rank_by_cycles(items, n);
    if (shown > n)
        shown = n;
    cmd_print(
        d,
        "Hardware layers by cycles, %zu of %zu%s; share: of the run's %llu hardware cycles%s, "
        "first launch to %s (%s)",
        shown, n, so_far ? " so far" : "", (unsigned long long)run, so_far ? " so far" : "",
        so_far ? "now" : "last interrupt", format_run_basis(dla_cfg(dla)));
    cmd_print(d, "(layers run concurrently, CONV with its on-the-fly SDP, so shares can sum past "
                 "100%%; compute and stall: shares of the layer's own cycles; DRAM bytes/cycle: "
                 "what its DMA read from and wrote to DRAM, not CV-SRAM; \"info perf\" has both)");
    cmd_print(d, "%4s %5s %-5s %5s %11s %-22s %6s %7s %6s %22s %16s %s", "rank", "layer", "unit",
              "group", "cycles", "cycles are", "share", "compute", "stall", "work/cycle",
              "DRAM bytes/cycle", "operation");
    for (size_t i = 0; i < shown; i++)
        print_ranked(d, i + 1, dla_layer_get(dla, items[i].index), items[i].cycles, run);
    struct perf_rank_rest rest = perf_rank_rest(items, n, shown);
    char share[16];
    percent(share, sizeof share, rest.cycles, run);
    if (rest.layers)
        cmd_print(d, "not shown: %zu layer%s, %llu cycles, %s", rest.layers,
                  rest.layers == 1 ? "" : "s", (unsigned long long)rest.cycles, share);
    else
        cmd_print(d, "not shown: none");
    print_units(d, items, n, run);
    if (so_far)
        cmd_print(d, "(+: still running, its cycles so far; its rates once it is done)");
    free(items);
    return CMD_OK;
}

const struct cmd_entry cmd_perf_subs[] = {
    {"top", NULL, "[N|all]", "info perf top [N|all]",
     "The hardware layers of the run so far ranked by cycles, N of them (default 10; all:\n"
     "every layer): unit, group, cycles (calibrated against RTL or estimated), share of the\n"
     "run's hardware cycles (first launch to last interrupt; layers overlap, so shares can\n"
     "sum past 100%), compute and stall shares of the layer's cycles, work and DRAM bytes\n"
     "per cycle (what its DMA read from and wrote to DRAM: on-chip CV-SRAM does not load\n"
     "the memory bus; \"info perf\" gives both), operation; then the layers not shown, and\n"
     "cycles by unit.  (The TUI's layers pane: o orders them by cycles.)",
     do_info_perf_top, NULL, false},
    END_OF_TABLE,
};
