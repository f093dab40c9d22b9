/* Breakpoints and watchpoints: break, tbreak, watch, delete, enable, disable,
 * condition, ignore. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_priv.h"
#include "format.h"
#include "loadable/loadable_plan.h"
#include "util/path.h"
#include "util/suggest.h"

/* Index of the "if" word among the arguments, or nargs when there is none. */
static int if_index(const struct cmd_args *a)
{
    for (int i = 0; i < cmd_nargs(a); i++)
        if (!strcmp(cmd_arg(a, i), "if"))
            return i;
    return cmd_nargs(a);
}

/* "break layer 3 done": the command's full name and its words up to "if",
 * one space apart, for "save breakpoints" to set it again. */
static void set_spec(struct breakpoint *bp, const struct cmd_args *a, int cond_at)
{
    size_t k = (size_t)snprintf(bp->spec, sizeof bp->spec, "%s", a->path);
    for (int i = 0; i < cond_at && k < sizeof bp->spec; i++)
        k += (size_t)snprintf(bp->spec + k, sizeof bp->spec - k, " %s", cmd_arg(a, i));
}

/* "advance LOCATION" and "until LOCATION" take their locations from the
 * table break takes them from: a->path is "advance layer" then. */
static bool runs_to_location(const struct cmd_args *a)
{
    return !strncmp(a->path, "advance ", 8) || !strncmp(a->path, "until ", 6);
}

static enum cmd_status add(struct dbg *d, struct cmd_args *a, struct breakpoint *bp)
{
    if (runs_to_location(a)) {
        int cond_at = if_index(a);
        if (cond_at < cmd_nargs(a) && !cmd_rest(a, cond_at + 1)[0])
            return cmd_fail(d, a, "condition: expected an expression");
        return cmd_run_to_location(d, a, bp,
                                   cond_at < cmd_nargs(a) ? cmd_rest(a, cond_at + 1) : NULL);
    }
    bp->enabled = true;
    bp->temporary = !strncmp(a->path, "tbreak", 6);
    int cond_at = if_index(a);
    set_spec(bp, a, cond_at);
    char err[256];
    int n = bps_add(d->bps, bp, err, sizeof err);
    if (n < 0)
        return cmd_fail(d, a, "%s", err);
    if (cond_at < cmd_nargs(a)) {
        const char *cond = cmd_rest(a, cond_at + 1);
        if (!cond[0] || !bps_set_condition(d->bps, n, cond, err, sizeof err)) {
            bps_delete(d->bps, n);
            return cmd_fail(d, a, "condition: %s", cond[0] ? err : "expected an expression");
        }
    }
    bool watch = bp->kind == BP_WATCH_REG || bp->kind == BP_WATCH_MEM;
    cmd_print(d, "%s %d: %s%s%s",
              watch           ? "Watchpoint"
              : bp->temporary ? "Temporary breakpoint"
                              : "Breakpoint",
              n, bp->what, cond_at < cmd_nargs(a) ? " if " : "",
              cond_at < cmd_nargs(a) ? cmd_rest(a, cond_at + 1) : "");
    return CMD_OK;
}

/* Arguments before "if" beyond the first `used` are an error. */
static bool no_extra(struct dbg *d, struct cmd_args *a, int used)
{
    if (if_index(a) <= used)
        return true;
    cmd_fail(d, a, "unexpected \"%s\"", cmd_arg(a, used));
    return false;
}

static bool when_arg(struct dbg *d, struct cmd_args *a, int i, struct breakpoint *bp, int *used)
{
    bp->when = BP_PROGRAMMED;
    *used = i;
    const char *w = cmd_arg(a, i);
    if (!w || !strcmp(w, "if"))
        return true;
    enum bp_when when;
    if (!bps_parse_when(w, &when)) {
        cmd_fail(d, a, "expected programmed, enabled, started or done, not \"%s\"", w);
        return false;
    }
    bp->when = (uint8_t)when;
    *used = i + 1;
    return true;
}

/* How many hardware layers a run of the open file has, when that is known
 * before the layer is reached: a loadable's plan runs one layer per DLA
 * operation; a trace's count is known once its run is over.  *how says
 * where the number comes from. */
static bool layer_count_known(struct dbg *d, size_t *n, char *how, size_t len)
{
    if (!d->session)
        return false;
    if (session_finished(d->session)) {
        *n = format_layers_of_run(session_dla(d->session), true);
        snprintf(how, len, "this run had %zu", *n);
        return true;
    }
    const struct loadable_plan *p = dbg_plan(d);
    bool plan_complete = p != NULL;
    size_t ops = 0; /* per task run: a task the submit list runs twice counts twice */
    for (size_t i = 0; p && i < p->n_tasks; i++) {
        if (p->tasks[i].problem[0]) /* a task whose operations could not be read */
            plan_complete = false;
        ops += p->tasks[i].emu ? 0 : p->tasks[i].n_ops;
    }
    if (plan_complete) {
        *n = ops;
        char name[128];
        path_last_component(session_path(d->session), name, sizeof name);
        snprintf(how, len, "%s runs %zu, one per DLA operation", name, *n);
        return true;
    }
    if (d->layers_of_run) {
        *n = d->layers_of_run;
        snprintf(how, len, "the last complete run had %zu", *n);
        return true;
    }
    return false;
}

/* A word that cannot start a layer index: a name that is no register. */
static bool is_bare_name(const char *w)
{
    return (isalpha((unsigned char)w[0]) || w[0] == '_') && !strchr(w, '.');
}

static enum cmd_status do_break_layer(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_LAYER};
    int64_t n;
    int used;
    const char *w = cmd_arg(a, 0);
    if (!w)
        return cmd_fail(d, a, "expected a layer index");
    if (is_bare_name(w))
        return cmd_fail(d, a,
                        "expected a layer index (a hardware layer's number, as \"info layers\" "
                        "lists them), not \"%s\"; then optionally programmed, enabled, started "
                        "or done",
                        w);
    if (!cmd_number(d, a, w, &n))
        return CMD_ERROR;
    size_t count;
    char how[160];
    bool known = layer_count_known(d, &count, how, sizeof how);
    if (known && (n < 0 || (uint64_t)n >= count))
        return count ? cmd_fail(d, a, "no layer %lld: layers are 0..%zu (%s)", (long long)n,
                                count - 1, how)
                     : cmd_fail(d, a, "no layer %lld: no hardware layers (%s)", (long long)n, how);
    if (n < 0 || n > 0x7fffffff)
        return cmd_fail(d, a, "layer index %lld out of range", (long long)n);
    bp.layer = (uint32_t)n;
    if (!when_arg(d, a, 1, &bp, &used) || !no_extra(d, a, used))
        return CMD_ERROR;
    snprintf(bp.what, sizeof bp.what, "layer %u %s", bp.layer, bps_when_name(bp.when));
    enum cmd_status st = add(d, a, &bp);
    size_t seen = d->session ? dla_layer_count(session_dla(d->session)) : 0;
    if (st == CMD_OK && d->session && !known && bp.layer >= seen && !runs_to_location(a))
        cmd_print(d,
                  "(how many layers this file runs is known only once a run is over; %zu so "
                  "far)",
                  seen);
    return st;
}

static bool parse_proc(const char *word, uint8_t *proc)
{
    for (int p = 0; p < DLA_P_COUNT; p++)
        if (!strcasecmp(word, dla_proc_name((enum dla_proc)p))) {
            *proc = (uint8_t)p;
            return true;
        }
    if (!strcasecmp(word, "rbk")) {
        *proc = DLA_P_RUBIK;
        return true;
    }
    return false;
}

/* A misspelt processor: the nearest name too, as other misspelt values get
 * (the names as break unit takes them, lower case, in the list's order). */
static enum cmd_status unknown_proc(struct dbg *d, struct cmd_args *a, const char *word)
{
    static const char *const procs[] = {"conv", "sdp", "pdp", "cdp", "rubik", "bdma"};
    static const char expected[] = "expected conv, sdp, pdp, cdp, rubik or bdma";
    if (!word)
        return cmd_fail(d, a, "%s", expected);
    char hint[64] = "";
    struct suggest s;
    suggest_init(&s, word);
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
        suggest_consider(&s, procs[i]);
    if (suggest_best(&s))
        snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", suggest_best(&s));
    return cmd_fail(d, a, "no unit \"%s\"%s; %s", word, hint, expected);
}

static enum cmd_status do_break_unit(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_UNIT};
    int used;
    if (!cmd_arg(a, 0) || !parse_proc(cmd_arg(a, 0), &bp.proc))
        return unknown_proc(d, a, cmd_arg(a, 0));
    if (!when_arg(d, a, 1, &bp, &used) || !no_extra(d, a, used))
        return CMD_ERROR;
    snprintf(bp.what, sizeof bp.what, "any %s layer %s", dla_proc_name((enum dla_proc)bp.proc),
             bps_when_name(bp.when));
    return add(d, a, &bp);
}

/* Register (and field) of a name; fails with a message. */
static bool resolve_reg(struct dbg *d, struct cmd_args *a, const char *name, struct regdb_ref *ref)
{
    if (!cmd_need_session(d, a))
        return false;
    if (!name) {
        cmd_fail(d, a, "expected a register name (UNIT.REG[.FIELD])");
        return false;
    }
    return cmd_resolve_reg(d, a, name, ref);
}

static enum cmd_status do_break_reg(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_REG};
    struct regdb_ref ref;
    if (!resolve_reg(d, a, cmd_arg(a, 0), &ref))
        return CMD_ERROR;
    bp.addr = regdb_addr(ref.unit, ref.reg);
    bp.field = ref.field;
    int used = 1;
    const char *op = cmd_arg(a, 1);
    if (op && (!strcmp(op, "==") || !strcmp(op, "!="))) {
        if (!cmd_arg(a, 2) || !strcmp(cmd_arg(a, 2), "if"))
            return cmd_fail(d, a, "expected a value after %s", op);
        if (!cmd_reg_value(d, a, &ref, cmd_arg(a, 2), &bp.value))
            return CMD_ERROR;
        bp.cmp = !strcmp(op, "==") ? BP_EQ : BP_NE;
        used = 3;
    }
    if (!no_extra(d, a, used))
        return CMD_ERROR;
    if (bp.cmp != BP_ANY)
        snprintf(bp.what, sizeof bp.what, "write to %s.%s%s%s %s 0x%x", ref.unit->name,
                 ref.reg->name, ref.field ? "." : "", ref.field ? ref.field->name : "",
                 bp.cmp == BP_EQ ? "==" : "!=", bp.value);
    else
        snprintf(bp.what, sizeof bp.what, "write to %s.%s", ref.unit->name, ref.reg->name);
    return add(d, a, &bp);
}

/* SDP_DONE_STATUS0 -> SDP_DONE0 */
static void intr_short_name(const char *name, char *buf, size_t len)
{
    const char *st = strstr(name, "_STATUS");
    snprintf(buf, len, "%.*s%s", st ? (int)(st - name) : (int)strlen(name), name, st ? st + 7 : "");
}

static bool parse_intr(const char *word, uint8_t *bit)
{
    for (unsigned b = 0; b < 32; b++) {
        const char *name = dla_intr_bit_name(b);
        if (!name)
            continue;
        char shortname[64];
        intr_short_name(name, shortname, sizeof shortname);
        if (!strcasecmp(word, name) || !strcasecmp(word, shortname)) {
            *bit = (uint8_t)b;
            return true;
        }
    }
    return false;
}

/* No such interrupt: every name there is (the short forms), and the nearest. */
static enum cmd_status fail_intr(struct dbg *d, struct cmd_args *a, const char *word)
{
    char names[512] = "", hint[128] = "";
    static char shortnames[32][64]; /* suggest keeps pointers */
    struct suggest s;
    suggest_init(&s, word ? word : "");
    for (unsigned b = 0; b < 32; b++) {
        const char *name = dla_intr_bit_name(b);
        if (!name)
            continue;
        intr_short_name(name, shortnames[b], sizeof shortnames[b]);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%.63s", used ? " " : "", shortnames[b]);
        suggest_consider(&s, shortnames[b]);
        suggest_consider(&s, name);
    }
    if (word && suggest_best(&s))
        snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", suggest_best(&s));
    if (!word)
        return cmd_fail(d, a, "expected an interrupt name: %s (or as SDP_DONE_STATUS0)", names);
    return cmd_fail(d, a, "no interrupt \"%s\"%s; expected one of: %s (or as SDP_DONE_STATUS0)",
                    word, hint, names);
}

static enum cmd_status do_break_intr(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_INTR};
    if (!cmd_arg(a, 0) || !parse_intr(cmd_arg(a, 0), &bp.intr_bit))
        return fail_intr(d, a, cmd_arg(a, 0));
    if (!no_extra(d, a, 1))
        return CMD_ERROR;
    snprintf(bp.what, sizeof bp.what, "interrupt %s", dla_intr_bit_name(bp.intr_bit));
    return add(d, a, &bp);
}

static enum cmd_status do_break_lut(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_LUT};
    const char *w = cmd_arg(a, 0);
    if (!w || (strcmp(w, "overflow") && strcmp(w, "underflow")))
        return cmd_fail(d, a, "expected overflow or underflow");
    bp.overflow = !strcmp(w, "overflow");
    if (!no_extra(d, a, 1))
        return CMD_ERROR;
    snprintf(bp.what, sizeof bp.what, "LUT %s", w);
    return add(d, a, &bp);
}

/* A diagnostic kind the model reports ("csb-hole"), else fails naming them. */
static bool diag_kind_known(struct dbg *d, struct cmd_args *a, const char *word)
{
    char names[256] = "", hint[128] = "";
    struct suggest s;
    suggest_init(&s, word);
    for (int k = 0; k <= DLA_DIAG_HANG; k++) {
        const char *name = dla_diag_kind_name((enum dla_diag_kind)k);
        if (!strcmp(word, name))
            return true;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
        suggest_consider(&s, name);
    }
    if (suggest_best(&s))
        snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", suggest_best(&s));
    cmd_fail(d, a, "no diagnostic kind \"%s\"%s; expected one of: %s", word, hint, names);
    return false;
}

static enum cmd_status break_diag(struct dbg *d, struct cmd_args *a, uint8_t kind)
{
    struct breakpoint bp = {.kind = kind};
    const char *w = cmd_arg(a, 0);
    int used = 0;
    if (w && strcmp(w, "if") && kind == BP_DIAG && !diag_kind_known(d, a, w))
        return CMD_ERROR;
    if (w && strcmp(w, "if")) {
        snprintf(bp.pattern, sizeof bp.pattern, "%s", w);
        used = 1;
    }
    if (!no_extra(d, a, used))
        return CMD_ERROR;
    snprintf(bp.what, sizeof bp.what, "%s%s%s", kind == BP_RULE ? "rule violation" : "diagnostic",
             bp.pattern[0] ? " " : "", bp.pattern);
    return add(d, a, &bp);
}

static enum cmd_status do_break_rule(struct dbg *d, struct cmd_args *a)
{
    return break_diag(d, a, BP_RULE);
}

static enum cmd_status do_break_diag(struct dbg *d, struct cmd_args *a)
{
    return break_diag(d, a, BP_DIAG);
}

static enum cmd_status do_break_mismatch(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_MISMATCH};
    if (!no_extra(d, a, 0))
        return CMD_ERROR;
    snprintf(bp.what, sizeof bp.what, "a layer departing from its reference (compare)");
    return add(d, a, &bp);
}

static enum cmd_status do_watch_reg(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_WATCH_REG};
    struct regdb_ref ref;
    if (!resolve_reg(d, a, cmd_arg(a, 0), &ref))
        return CMD_ERROR;
    if (ref.field)
        return cmd_fail(d, a, "watch a whole register (%s.%s), not a field", ref.unit->name,
                        ref.reg->name);
    if (!no_extra(d, a, 1))
        return CMD_ERROR;
    bp.addr = regdb_addr(ref.unit, ref.reg);
    snprintf(bp.what, sizeof bp.what, "value of %s.%s", ref.unit->name, ref.reg->name);
    return add(d, a, &bp);
}

static enum cmd_status do_watch_mem(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint bp = {.kind = BP_WATCH_MEM};
    int64_t addr, len;
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (!cmd_arg(a, 0) || !cmd_arg(a, 1))
        return cmd_fail(d, a, "expected ADDR LEN");
    if (!cmd_number(d, a, cmd_arg(a, 0), &addr) || !cmd_number(d, a, cmd_arg(a, 1), &len))
        return CMD_ERROR;
    if (len <= 0 || len > (int64_t)BP_MEM_MAX)
        return cmd_fail(d, a, "LEN must be 1 to %u bytes", BP_MEM_MAX);
    if (!no_extra(d, a, 2))
        return CMD_ERROR;
    struct dla *dla = session_dla(d->session);
    bp.space = (dla_cfg(dla)->cvsram && !((uint64_t)addr & 0x80000000u)) ? DLA_CVSRAM : DLA_DRAM;
    if (!mem_in_range(dla_memory(dla, (enum dla_space)bp.space), (uint64_t)addr, (uint64_t)len))
        return cmd_fail(d, a, "0x%llx+%lld is outside %s", (unsigned long long)addr, (long long)len,
                        dla_space_name((enum dla_space)bp.space));
    bp.mem_addr = (uint64_t)addr;
    bp.mem_len = (uint64_t)len;
    snprintf(bp.what, sizeof bp.what, "%s 0x%llx+%lld", dla_space_name((enum dla_space)bp.space),
             (unsigned long long)addr, (long long)len);
    return add(d, a, &bp);
}

/* The breakpoint a word names: a number, or a $ variable (gdb's "disable
 * $bpnum", as "save breakpoints" writes it). */
static struct breakpoint *named_bp(struct dbg *d, const char *word)
{
    char *end;
    long n = strtol(word, &end, 10);
    if (word[0] == '$') {
        int64_t v;
        char err[256];
        if (!cmd_eval(d, word, &v, err, sizeof err) || v <= 0 || v > 0x7fffffff)
            return NULL;
        return bps_find(d->bps, (int)v);
    }
    return word[0] && !*end ? bps_find(d->bps, (int)n) : NULL;
}

/* Breakpoint numbers of the arguments (all when none); fn applied to each. */
static enum cmd_status each_number(struct dbg *d, struct cmd_args *a,
                                   void (*fn)(struct dbg *d, struct breakpoint *bp))
{
    if (cmd_nargs(a) == 0) {
        for (size_t i = bps_count(d->bps); i-- > 0;)
            fn(d, bps_get(d->bps, i));
        return CMD_OK;
    }
    for (int i = 0; i < cmd_nargs(a); i++) {
        struct breakpoint *bp = named_bp(d, cmd_arg(a, i));
        if (!bp)
            return cmd_fail(d, a, "no breakpoint number %s", cmd_arg(a, i));
        fn(d, bp);
    }
    return CMD_OK;
}

static void delete_one(struct dbg *d, struct breakpoint *bp)
{
    bps_delete(d->bps, bp->number);
}

static void enable_one(struct dbg *d, struct breakpoint *bp)
{
    (void)d;
    bp->enabled = true;
}

static void disable_one(struct dbg *d, struct breakpoint *bp)
{
    (void)d;
    bp->enabled = false;
}

static enum cmd_status do_delete(struct dbg *d, struct cmd_args *a)
{
    size_t n = bps_count(d->bps);
    if (cmd_nargs(a) > 0 || n == 0)
        return each_number(d, a, delete_one);
    if (!cmd_confirm(d, "Delete all breakpoints? (y or n) ")) {
        cmd_print(d, "Not confirmed: %zu breakpoint%s kept.", n, n == 1 ? "" : "s");
        return CMD_OK;
    }
    each_number(d, a, delete_one);
    cmd_print(d, "Deleted %zu breakpoint%s.", n, n == 1 ? "" : "s");
    return CMD_OK;
}

static enum cmd_status do_enable(struct dbg *d, struct cmd_args *a)
{
    return each_number(d, a, enable_one);
}

static enum cmd_status do_disable(struct dbg *d, struct cmd_args *a)
{
    return each_number(d, a, disable_one);
}

static bool bp_number(struct dbg *d, struct cmd_args *a, struct breakpoint **bp)
{
    const char *t = cmd_arg(a, 0);
    *bp = t ? named_bp(d, t) : NULL;
    if (!*bp)
        cmd_fail(d, a, t ? "no breakpoint number %s" : "expected a breakpoint number%s",
                 t ? t : "");
    return *bp != NULL;
}

static enum cmd_status do_condition(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint *bp;
    if (!bp_number(d, a, &bp))
        return CMD_ERROR;
    char err[256];
    if (!bps_set_condition(d->bps, bp->number, cmd_rest(a, 1), err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    if (cmd_rest(a, 1)[0])
        cmd_print(d, "Breakpoint %d stops only if %s.", bp->number, cmd_rest(a, 1));
    else
        cmd_print(d, "Breakpoint %d now unconditional.", bp->number);
    return CMD_OK;
}

static enum cmd_status do_ignore(struct dbg *d, struct cmd_args *a)
{
    struct breakpoint *bp;
    int64_t n;
    if (!bp_number(d, a, &bp))
        return CMD_ERROR;
    if (!cmd_arg(a, 1))
        return cmd_fail(d, a, "expected a count");
    if (!cmd_number(d, a, cmd_arg(a, 1), &n))
        return CMD_ERROR;
    if (n < 0)
        return cmd_fail(d, a, "count must not be negative");
    bp->ignore = (uint64_t)n;
    cmd_print(d, "Will ignore the next %lld crossings of breakpoint %d.", (long long)n, bp->number);
    return CMD_OK;
}

/* ---------------------------------------------------------------- gdb's shorthands */

static bool all_digits(const char *w)
{
    if (!*w)
        return false;
    while (*w >= '0' && *w <= '9')
        w++;
    return !*w;
}

/* The kind a shorthand stands for ("break 3": layer; "break sdp": unit;
 * "break CDMA.D_OP_ENABLE": reg), or NULL. */
static const char *break_kind_of(const char *w)
{
    if (all_digits(w))
        return "layer";
    uint8_t proc;
    if (parse_proc(w, &proc))
        return "unit";
    if (strchr(w, '.') && (isalpha((unsigned char)*w) || *w == '_'))
        return "reg";
    return NULL;
}

/* The line again with kind between the command's name and its arguments. */
static enum cmd_status run_as(struct dbg *d, struct cmd_args *a, const char *kind,
                              const char *rest)
{
    char line[1200];
    if ((size_t)snprintf(line, sizeof line, "%s %s %s", a->path, kind, rest) >= sizeof line)
        return cmd_fail(d, a, "line too long");
    return cmd_exec_as(d, line);
}

static const struct cmd_entry watch_subs[];

enum cmd_status cmd_break_shorthand(struct dbg *d, struct cmd_args *a)
{
    const char *w = cmd_arg(a, 0);
    const char *kind = w ? break_kind_of(w) : NULL;
    if (!kind)
        return cmd_fail_kind(d, a, cmd_break_subs, "a layer number, a unit or UNIT.REG");
    return run_as(d, a, kind, cmd_rest(a, 0));
}

/* "watch CDMA.D_OP_ENABLE" is watch reg; gdb's "watch *ADDR" (and "watch -l
 * *ADDR") the 4 bytes of an int there. */
static enum cmd_status do_watch_shorthand(struct dbg *d, struct cmd_args *a)
{
    int i = 0;
    const char *w = cmd_arg(a, 0);
    if (w && !strcmp(w, "-l"))
        w = cmd_arg(a, ++i);
    if (w && w[0] == '*' && w[1]) {
        if (cmd_nargs(a) > i + 1)
            return cmd_fail(d, a, "unexpected \"%s\" after %s (a memory watchpoint takes no "
                                  "condition)",
                            cmd_arg(a, i + 1), w);
        char rest[300];
        snprintf(rest, sizeof rest, "%s 4", w + 1);
        return run_as(d, a, "mem", rest);
    }
    if (!w || i || !strchr(w, '.'))
        return cmd_fail_kind(d, a, watch_subs, "UNIT.REG, or *ADDR as gdb writes it");
    return run_as(d, a, "reg", cmd_rest(a, 0));
}

const struct cmd_entry cmd_break_subs[] = {
    {"layer", "l", "N [programmed|enabled|started|done] [if EXPR]",
     "break layer N [programmed|enabled|started|done] [if EXPR]",
     "Stop when hardware layer N (0-based, in programming order) is programmed (its first\n"
     "register write; default), enabled, started or done.",
     do_break_layer, NULL, false},
    {"unit", "u", "PROC [programmed|enabled|started|done] [if EXPR]",
     "break unit conv|sdp|pdp|cdp|rubik|bdma [programmed|enabled|started|done] [if EXPR]",
     "Stop when any layer of a processor is programmed (default), enabled, started or done.",
     do_break_unit, NULL, false},
    {"reg", "r", "REG [==|!=] [VALUE] [if EXPR]",
     "break reg UNIT.REG[.FIELD] [==|!= VALUE] [if EXPR]",
     "Stop on a CSB write to a register (any group); with a comparison, only when the\n"
     "written value (or its field) matches.  VALUE may be an enum name of the field.",
     do_break_reg, NULL, false},
    {"intr", "i", "INTR [if EXPR]", "break intr NAME [if EXPR]",
     "Stop when a GLB interrupt status bit is raised (SDP_DONE_STATUS0 or SDP_DONE0).",
     do_break_intr, NULL, false},
    {"lut", NULL, "overflow|underflow [if EXPR]", "break lut overflow|underflow [if EXPR]",
     "Stop when a layer's LUT statistics show inputs above (below) both tables.", do_break_lut,
     NULL, false},
    {"rule", NULL, "[TEXT] [if EXPR]", "break rule [ID] [if EXPR]",
     "Stop on a programming-guide rule violation (any, or rule ids starting with ID).",
     do_break_rule, NULL, false},
    {"diag", NULL, "[TEXT] [if EXPR]", "break diag [KIND] [if EXPR]",
     "Stop on any model diagnostic, or on one kind (\"info breakpoints\" shows kinds used).",
     do_break_diag, NULL, false},
    {"mismatch", NULL, "[if EXPR]", "break mismatch [if EXPR]",
     "Stop after a hardware layer (or a CPU task) whose output departs from its reference\n"
     "(see \"help compare\"): the layer has completed; the stop says which blob it was\n"
     "compared with, how it departs and the first differing element.",
     do_break_mismatch, NULL, false},
    END_OF_TABLE,
};

static const struct cmd_entry watch_subs[] = {
    {"reg", "r", "REG [if EXPR]", "watch reg UNIT.REG [if EXPR]",
     "Stop when the stored value of a register changes (either group).", do_watch_reg, NULL, false},
    {"mem", "m", "ADDR N", "watch mem ADDR LEN",
     "Stop when any of LEN bytes at ADDR changes (DRAM when bit 31 is set, else CV-SRAM).",
     do_watch_mem, NULL, false},
    END_OF_TABLE,
};

const struct cmd_entry cmd_break_entries[] = {
    {"break", "b br", NULL, "break layer|unit|reg|intr|lut|rule|diag|mismatch ...",
     "Set a breakpoint; \"help break layer\" and so on describe each kind.  A condition\n"
     "\"if EXPR\" is an expression over register fields (see \"help print\"), evaluated when\n"
     "the breakpoint is reached, with D_ registers read in the group of the event.  gdb's\n"
     "shorthands: \"break 3\" is break layer 3, \"break sdp\" break unit sdp, \"break\n"
     "CDMA.D_OP_ENABLE\" break reg CDMA.D_OP_ENABLE.",
     cmd_break_shorthand, cmd_break_subs, false},
    {"tbreak", "tb", NULL, "tbreak layer|unit|reg|intr|lut|rule|diag|mismatch ...",
     "Set a breakpoint that is deleted when it first stops (the shorthands of break too).",
     cmd_break_shorthand, cmd_break_subs, false},
    {"watch", "wa", NULL, "watch reg|mem ...",
     "Set a watchpoint.  \"watch UNIT.REG\" is watch reg; gdb's \"watch *ADDR\" (or \"watch -l\n"
     "*ADDR\") watches the 4 bytes at ADDR, as watch mem ADDR 4.",
     do_watch_shorthand, watch_subs, false},
    {"delete", "d del", "[BP] ...", "delete [N...] | delete display [N...]",
     "Delete breakpoints (all without numbers: asked first at the terminal, then counted);\n"
     "\"delete display\" deletes auto-display expressions, as undisplay does.",
     do_delete, cmd_delete_subs, false},
    {"enable", "en", "[BP] ...", "enable [N...]", "Enable breakpoints (all without numbers).",
     do_enable, NULL, false},
    {"disable", "dis", "[BP] ...", "disable [N...]", "Disable breakpoints (all without numbers).",
     do_disable, NULL, false},
    {"condition", "cond", "BP [EXPR]", "condition N [EXPR]",
     "Stop at breakpoint N only when EXPR is non-zero; without EXPR, always.", do_condition, NULL,
     false},
    {"ignore", NULL, "BP N", "ignore N COUNT", "Ignore the next COUNT hits of breakpoint N.",
     do_ignore, NULL, false},
    END_OF_TABLE,
};
