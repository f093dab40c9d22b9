/* Running and stepping: run, continue, step, next, finish, advance, until,
 * back, restart, file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "format.h"

static void describe_action(struct dbg *d, const struct drv_action *act, char *buf, size_t len)
{
    char name[96];
    switch (act->kind) {
    case DRV_WRITE:
        format_reg_name(dla_regmap(session_dla(d->session)), act->addr, name, sizeof name);
        snprintf(buf, len, "write %s = 0x%08x", name, act->value);
        break;
    case DRV_WAIT:
        snprintf(buf, len, "wait for %s", act->wait.what);
        break;
    case DRV_TASK:
        if (act->task.name[0])
            snprintf(buf, len, "%s %s", act->task.name, act->task.begin ? "begins" : "ends");
        else
            snprintf(buf, len, "%s task %d %s", act->task.emu ? "CPU" : "DLA", act->task.index,
                     act->task.begin ? "begins" : "ends");
        break;
    default:
        snprintf(buf, len, "end of the run");
        break;
    }
}

void cmd_where_line(struct dbg *d, char *buf, size_t len)
{
    struct session *s = d->session;
    struct drv_action act;
    char what[200];
    unsigned long long cycle = (unsigned long long)dla_now(session_dla(s));
    unsigned long long layers = (unsigned long long)session_layers_done(s);
    if (!session_last_action(s, &act)) {
        snprintf(buf, len, "at the start, cycle %llu", cycle);
        return;
    }
    describe_action(d, &act, what, sizeof what);
    bool said = strstr(act.where, what) != NULL; /* the driver's location may tell it already */
    snprintf(buf, len, "at %s%s%s%s, cycle %llu, %llu layer%s done", act.where[0] ? act.where : "?",
             said ? "" : " (", said ? "" : what, said ? "" : ")", cycle, layers,
             layers == 1 ? "" : "s");
}

/* "; hardware N cycles, first launch to last interrupt (BASIS)", or "" when
 * no layer ran: every cycle figure says where it comes from. */
static void run_cycles_note(const struct dla *dla, char *buf, size_t len)
{
    uint64_t cycles;
    buf[0] = 0;
    if (format_run_cycles(dla, &cycles))
        snprintf(buf, len, "; hardware %llu cycles, first launch to last interrupt (%s)",
                 (unsigned long long)cycles, format_run_basis(dla_cfg(dla)));
}

/* Why and where the run stopped, in hardware terms. */
static void tell_stop(struct dbg *d, enum session_stop r, const struct cmd_step_mark *mark)
{
    char where[512], summary[512], hw[1024];
    struct session *s = d->session;
    switch (r) {
    case SESSION_DONE:
        /* kept across restarts: "break layer" checks indices against it */
        d->layers_of_run = format_layers_of_run(session_dla(s), true);
        session_summary(s, summary, sizeof summary);
        run_cycles_note(session_dla(s), hw, sizeof hw);
        cmd_out(d, DBG_OUT_STOP, "Run finished: %s%s", summary, hw);
        cmd_compare_run_finished(d);
        return;
    case SESSION_HANG:
        d->hung = true;
        cmd_out(d, DBG_OUT_ERROR, "no progress: %s", session_stop_message(s));
        cmd_hang_report(d, DBG_OUT_STOP);
        return;
    case SESSION_BREAK:
        cmd_out(d, DBG_OUT_STOP, "%s", session_stop_message(s));
        break;
    case SESSION_INTERRUPTED:
        cmd_out(d, DBG_OUT_STOP, "Interrupted.");
        break;
    default:
        break;
    }
    cmd_hw_stop_line(d, mark, hw, sizeof hw);
    cmd_out(d, DBG_OUT_STOP, "%s", hw);
    cmd_where_line(d, where, sizeof where);
    cmd_out(d, DBG_OUT_STOP, "  %s", where);
}

void cmd_report_stop(struct dbg *d, enum session_stop r, const struct cmd_step_mark *mark)
{
    size_t n = 0;
    int *bps = r == SESSION_BREAK ? bps_stop_hits(d->bps, &n) : NULL;
    if (!cmd_stop_silent(d, bps, n)) { /* gdb's silent leaves out the stop and the displays */
        tell_stop(d, r, mark);
        cmd_show_displays(d); /* gdb's auto-display: after every stop's own lines */
    }
    cmd_lists_stopped(d, bps, n);
    free(bps);
}

/* Said so when the run has finished: not an error, a script written for
 * more layers than this file has goes on. */
static bool run_is_over(struct dbg *d)
{
    if (!session_finished(d->session))
        return false;
    cmd_out(d, DBG_OUT_STOP, "The run has finished (\"run\" starts it again).");
    return true;
}

enum cmd_status cmd_run_step(struct dbg *d, struct cmd_args *a, enum session_unit unit, uint64_t n)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (run_is_over(d))
        return CMD_OK;
    struct cmd_step_mark mark;
    cmd_step_mark(d, &mark);
    enum session_stop r = session_step(d->session, unit, n);
    cmd_report_stop(d, r, &mark);
    return CMD_OK;
}

static bool restart(struct dbg *d, struct cmd_args *a)
{
    char err[1024];
    if (!session_restart(d->session, err, sizeof err)) {
        cmd_fail(d, a, "%s", err);
        return false;
    }
    /* a new run counts its own checks */
    d->rep = (struct report){.print = d->rep.print, .ctx = d->rep.ctx};
    dbg_session_changed(d);
    return true;
}

static bool has_run(struct dbg *d)
{
    struct drv_action act;
    return session_last_action(d->session, &act) || session_finished(d->session);
}

bool cmd_run_from_start(struct dbg *d, struct cmd_args *a)
{
    if (!has_run(d))
        return true;
    cmd_print(d, "Restarting %s from power-on reset.", session_path(d->session));
    return restart(d, a);
}

static enum cmd_status do_run(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (!cmd_run_from_start(d, a))
        return CMD_ERROR;
    return cmd_run_step(d, a, SESSION_RUN, 0);
}

static enum cmd_status do_continue(struct dbg *d, struct cmd_args *a)
{
    uint64_t n;
    if (!cmd_count(d, a, 0, 1, &n))
        return CMD_ERROR;
    size_t n_bps = 0;
    int *bps = n > 1 ? bps_stop_hits(d->bps, &n_bps) : NULL;
    for (size_t i = 0; i < n_bps; i++) { /* as gdb: each breakpoint the run stopped at */
        struct breakpoint *bp = bps_find(d->bps, bps[i]);
        if (bp) {
            bp->ignore = n - 1;
            cmd_print(d, "Will ignore the next %llu crossings of breakpoint %d.",
                      (unsigned long long)(n - 1), bp->number);
        }
    }
    free(bps);
    return cmd_run_step(d, a, SESSION_RUN, 0);
}

static enum cmd_status step_by(struct dbg *d, struct cmd_args *a, enum session_unit unit)
{
    uint64_t n;
    if (!cmd_count(d, a, 0, 1, &n))
        return CMD_ERROR;
    return cmd_run_step(d, a, unit, n);
}

static enum cmd_status do_step(struct dbg *d, struct cmd_args *a)
{
    return step_by(d, a, SESSION_WRITE);
}

static enum cmd_status do_step_event(struct dbg *d, struct cmd_args *a)
{
    return step_by(d, a, SESSION_EVENT);
}

static enum cmd_status do_step_layer(struct dbg *d, struct cmd_args *a)
{
    return step_by(d, a, SESSION_LAYER);
}

static enum cmd_status do_step_task(struct dbg *d, struct cmd_args *a)
{
    return step_by(d, a, SESSION_TASK);
}

static bool layer_done(void *ctx, struct session *s)
{
    const struct dla_layer *l = dla_layer_get(session_dla(s), (size_t)(long)(intptr_t)ctx);
    return !l || l->state == DLA_LAYER_DONE;
}

static enum cmd_status do_finish(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (run_is_over(d))
        return CMD_OK;
    /* the layer the run is at (session_layer_at), as gdb's finish ends the current frame */
    const struct dla_layer *l = session_layer_at(d->session);
    if (!l || l->state == DLA_LAYER_DONE)
        return cmd_fail(d, a, "no hardware layer is in progress (\"step layer\" runs to the next)");
    long li = (long)l->index;
    cmd_print(d, "Run till layer %ld (%s, group %u) completes.", li,
              dla_proc_name((enum dla_proc)l->proc), l->group);
    struct cmd_step_mark mark;
    cmd_step_mark(d, &mark);
    enum session_stop r = session_step_until(d->session, layer_done, (void *)(intptr_t)li);
    cmd_report_stop(d, r, &mark);
    return CMD_OK;
}

enum cmd_status cmd_run_to_location(struct dbg *d, struct cmd_args *a, const struct breakpoint *loc,
                                    const char *cond)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (run_is_over(d))
        return CMD_OK;
    char err[256];
    if (!bps_set_location(d->bps, loc, cond, err, sizeof err))
        return cmd_fail(d, a, "condition: %s", err);
    /* until also stops where gdb's stops when the frame returns: the layer
     * the run is at completes (as finish's) */
    const struct dla_layer *l = !strncmp(a->path, "until", 5) ? session_layer_at(d->session) : NULL;
    struct cmd_step_mark mark;
    cmd_step_mark(d, &mark);
    enum session_stop r =
        l && l->state != DLA_LAYER_DONE
            ? session_step_until(d->session, layer_done, (void *)(intptr_t)(long)l->index)
            : session_step(d->session, SESSION_RUN, 0);
    bps_clear_location(d->bps); /* before a command list of the stop runs on */
    cmd_report_stop(d, r, &mark);
    return CMD_OK;
}

/* "until" alone is gdb's next that does not go back: here every layer is
 * ahead, so it is next. */
static enum cmd_status do_until(struct dbg *d, struct cmd_args *a)
{
    if (cmd_nargs(a)) /* no location's kind: "until 5", "until sdp" or an error */
        return cmd_break_shorthand(d, a);
    return cmd_run_step(d, a, SESSION_LAYER, 1);
}

/* Step back n layer boundaries or register writes (cps_back, cps_back_writes),
 * then say where the run is, as a stop does. */
static enum cmd_status go_back(struct dbg *d, struct cmd_args *a, bool writes)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    uint64_t n;
    if (!cmd_count(d, a, 0, 1, &n))
        return CMD_ERROR;
    char err[256];
    d->internal_depth++; /* replaying forward must print nothing */
    bool ok = writes ? cps_back_writes(d->cps, n, err, sizeof err)
                     : cps_back(d->cps, n, err, sizeof err);
    d->internal_depth--;
    if (!ok)
        return cmd_fail(d, a, "%s", err);
    char where[512];
    cmd_where_line(d, where, sizeof where);
    unsigned long long cycle = dla_now(session_dla(d->session));
    if (writes)
        cmd_out(d, DBG_OUT_STOP, "Back after register write %llu, cycle %llu.",
                (unsigned long long)session_writes(d->session), cycle);
    else
        cmd_out(d, DBG_OUT_STOP, "Back at layer boundary %llu, cycle %llu.",
                (unsigned long long)session_layers_done(d->session), cycle);
    cmd_out(d, DBG_OUT_STOP, "  %s", where);
    cmd_show_displays(d);
    cmd_lists_stopped(d, NULL, 0); /* a move, as a step is: it ends a command list */
    return CMD_OK;
}

static enum cmd_status do_back(struct dbg *d, struct cmd_args *a)
{
    return go_back(d, a, false);
}

static enum cmd_status do_back_write(struct dbg *d, struct cmd_args *a)
{
    return go_back(d, a, true);
}

static enum cmd_status do_restart(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a) || !restart(d, a))
        return CMD_ERROR;
    cmd_print(d, "Power-on reset; %s will run from its start.", session_path(d->session));
    return CMD_OK;
}

static enum cmd_status do_file(struct dbg *d, struct cmd_args *a)
{
    const char *path = cmd_arg(a, 0);
    if (!path)
        return cmd_fail(d, a, "expected a FILE");
    char err[1024];
    if (!dbg_open(d, path, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    cmd_print(d, "Opened %s (configuration %s).", session_path(d->session),
              dla_cfg(session_dla(d->session))->name);
    return CMD_OK;
}

static const struct cmd_entry step_subs[] = {
    {"write", "w", "[N]", "step write [N]", "Execute N register writes (default 1).", do_step, NULL,
     true},
    {"event", "e", "[N]", "step event [N]",
     "Process N hardware events (a unit finishing, an interrupt) or driver actions.", do_step_event,
     NULL, true},
    {"layer", "l", "[N]", "step layer [N]", "Run until N more hardware layers have completed.",
     do_step_layer, NULL, true},
    {"task", "t", "[N]", "step task [N]", "Run until N more tasks (loadables) have completed.",
     do_step_task, NULL, true},
    END_OF_TABLE,
};

static const struct cmd_entry back_subs[] = {
    {"layer", "l", "[N]", "back layer [N]",
     "Go back N hardware layer boundaries (default 1).  From inside a layer the first boundary\n"
     "is the start of that layer.  The whole simulated state is restored exactly: stepping\n"
     "forward again repeats the run.",
     do_back, NULL, true},
    {"write", "w", "[N]", "back write [N]",
     "Go back N register writes (default 1): to the point right after the run's write\n"
     "($writes - N), where \"step\" would have stopped, or to the start of the run.  The\n"
     "nearest layer boundary before it is restored and the writes between replayed.",
     do_back_write, NULL, true},
    END_OF_TABLE,
};

const struct cmd_entry cmd_run_entries[] = {
    {"run", "r", NULL, "run",
     "Run from the start until a breakpoint, the end, or a hang.  A run that has begun is\n"
     "restarted from power-on reset first.",
     do_run, NULL, false},
    {"continue", "c cont", "[N]", "continue [N]",
     "Continue until a breakpoint, the end or a hang.  With N, ignore the breakpoints the\n"
     "run stopped at N-1 more times.",
     do_continue, NULL, true},
    {"step", "s", "[write|event|layer|task] [N]", "step [write|event|layer|task] [N]",
     "Execute N register writes (default), hardware events, hardware layers or tasks.", do_step,
     step_subs, true},
    {"next", "n", "[N]", "next [N]",
     "Run until N more hardware layers have completed (step layer).", do_step_layer, NULL, true},
    {"finish", "fin", NULL, "finish",
     "Run until the hardware layer the run is at completes: the first running, else\n"
     "enabled, else being programmed (the layer \"info regs\" shows).",
     do_finish, NULL, true},
    {"advance", NULL, NULL, "advance layer|unit|reg|intr|lut|rule|diag|mismatch ...",
     "Run until a location (what tbreak takes: \"advance layer 5 done\") is reached.  A\n"
     "breakpoint, the end or a hang may stop the run first; the one-shot stop at the\n"
     "location is no numbered breakpoint and is gone afterwards either way.  break's\n"
     "shorthands too: \"advance 5\" is advance layer 5.",
     cmd_break_shorthand, cmd_break_subs, false},
    {"until", "u", NULL, "until [layer|unit|reg|intr|lut|rule|diag|mismatch ...]",
     "Run until a location is reached or the hardware layer the run is at completes.  As\n"
     "advance, with the stop gdb's until makes when the frame returns (here: finish's).\n"
     "Alone: next (one layer).",
     do_until, cmd_break_subs, true},
    {"back", "reverse", "[layer|write] [N]", "back [layer|write] [N]",
     "Step back N hardware layer boundaries (see \"help back layer\"), or with \"write\" N\n"
     "register writes.",
     do_back, back_subs, true},
    {"reverse-step", "rs", "[N]", "reverse-step [N]",
     "gdb's name for \"back write [N]\": back N register writes, the steps \"step\" makes.",
     do_back_write, NULL, true},
    {"reverse-next", "rn", "[N]", "reverse-next [N]",
     "gdb's name for \"back layer [N]\": back N hardware layer boundaries, the steps\n"
     "\"next\" makes.",
     do_back, NULL, true},
    {"reverse-finish", NULL, NULL, "reverse-finish",
     "Back to the start of the hardware layer the run is in (at a boundary: the one\n"
     "before), as \"back layer\".",
     do_back, NULL, true},
    {"restart", "reset", NULL, "restart",
     "Power-on reset of the simulated NVDLA and a fresh start of the driver (breakpoints\n"
     "are kept).",
     do_restart, NULL, false},
    {"file", "load open", "FILE", "file FILE",
     "Open a trace folder, input.txn, .cfg trace, loadable or sample:NAME instead of the\n"
     "current file (breakpoints are kept).  A file that cannot be opened leaves the current\n"
     "one open as it was.  A misspelt sample NAME gets the nearest one (\"did you mean\").",
     do_file, NULL, false},
    END_OF_TABLE,
};
