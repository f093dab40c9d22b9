/* The command dispatcher and the debugger context: parsing, unique-prefix
 * lookup, dispatch, completion, scripts, and the glue that routes driver
 * messages and model diagnostics to the sink of the running command. */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "compare/compare.h"
#include "util/textfile.h"
#include "trace/dma_lines.h"
#include "expr.h"
#include "format.h"
#include "debug/layer_origin.h"
#include "loadable/loadable_plan.h"
#include "util/heap_policy.h"
#include "util/path.h"
#include "loadable/loadable_driver.h"
#include "reg_suggest.h"
#include "util/suggest.h"

const struct cmd_entry *const cmd_groups[] = {
    cmd_run_entries,
    cmd_break_entries,
    cmd_commands_entries,
    cmd_display_entries,
    cmd_info_entries,
    cmd_data_entries,
    cmd_tensor_entries,
    cmd_export_entries,
    cmd_compare_entries,
    cmd_misc_entries,
    cmd_echo_entries,
    cmd_shell_entries,
    cmd_set_entries,
    cmd_save_entries,
    cmd_plugin_entries,
    NULL,
};

/* ---------------------------------------------------------------- output */

static void sink_whole_line(struct dbg *d, enum dbg_out_kind kind, const char *text)
{
    if (d->internal_depth > 0 || !d->out || !d->out->line)
        return;
    d->out->line(d->out->ctx, kind, text);
}

/* The line echo, printf or output left open, as a line of its own. */
static void end_open_line(struct dbg *d)
{
    if (!d->open_len)
        return;
    d->open_line[d->open_len] = 0;
    d->open_len = 0;
    sink_whole_line(d, DBG_OUT_TEXT, d->open_line);
}

/* An open line is kept whole up to this; a longer one goes on in a new line. */
#define OPEN_LINE_MAX (64u << 10)

/* Room for one more byte and the terminator; false: the line must be ended. */
static bool open_line_room(struct dbg *d)
{
    if (d->open_len + 2 <= d->open_cap)
        return true;
    if (d->open_cap >= OPEN_LINE_MAX)
        return false;
    size_t cap = d->open_cap ? d->open_cap * 2 : 256;
    char *more = realloc(d->open_line, cap);
    if (!more)
        return false;
    d->open_line = more;
    d->open_cap = cap;
    return true;
}

/* Other output ends an open line first: a sink takes whole lines, so the
 * stop line after an "echo x" without "\n" stands on a line of its own. */
static void sink_line(struct dbg *d, enum dbg_out_kind kind, const char *text)
{
    if (d->internal_depth > 0)
        return;
    end_open_line(d);
    sink_whole_line(d, kind, text);
}

void cmd_out_stream(struct dbg *d, const char *text, size_t len)
{
    if (d->internal_depth > 0)
        return;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            if (!d->open_len)
                sink_whole_line(d, DBG_OUT_TEXT, "");
            end_open_line(d);
            continue;
        }
        if (!open_line_room(d)) { /* a bounded line: the rest goes on the next */
            end_open_line(d);
            if (!open_line_room(d))
                continue; /* out of memory: the byte is lost, not the program */
        }
        d->open_line[d->open_len++] = text[i];
    }
}

/* Hand text over line by line (a final newline ends the last line). */
static void sink_lines(struct dbg *d, enum dbg_out_kind kind, char *text)
{
    char *line = text;
    for (;;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (nl || *line)
            sink_line(d, kind, line);
        if (!nl)
            break;
        line = nl + 1;
    }
}

void cmd_vout(struct dbg *d, enum dbg_out_kind kind, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    sink_lines(d, kind, buf);
}

void cmd_out(struct dbg *d, enum dbg_out_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cmd_vout(d, kind, fmt, ap);
    va_end(ap);
}

enum cmd_status cmd_fail(struct dbg *d, struct cmd_args *a, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cmd_out(d, DBG_OUT_ERROR, "%s%s%s: %s", d->where, d->where[0] ? ": " : "",
            a && a->path[0] ? a->path : "dladbg", msg);
    return CMD_ERROR;
}

void cmd_hang_report(struct dbg *d, enum dbg_out_kind kind)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp)
        return;
    session_hang_report(d->session, fp);
    fclose(fp);
    /* unbounded, unlike cmd_out's buffer */
    if (text)
        sink_lines(d, kind, text);
    free(text);
}

static void on_report(void *ctx, enum report_level level, const char *text)
{
    struct dbg *d = ctx;
    static const enum dbg_out_kind kinds[] = {
        [REPORT_INFO] = DBG_OUT_NOTE,
        [REPORT_NOTE] = DBG_OUT_TEXT,
        [REPORT_WARNING] = DBG_OUT_WARNING,
        [REPORT_ERROR] = DBG_OUT_ERROR,
    };
    sink_line(d, kinds[level <= REPORT_ERROR ? level : REPORT_ERROR], text);
}

/* A layer programmed by a loadable's operation: remember which. */
static void record_origin(struct dbg *d, const struct dla_event *ev)
{
    struct drv_op op = {.known = false};
    if (ev->layer < 0 || !d->session)
        return;
    session_action_op(d->session, &op);
    layer_origins_set(d->origins, (size_t)ev->layer, &op);
}

static void on_model_event(void *ctx, const struct dla_event *ev)
{
    struct dbg *d = ctx;
    if (ev->kind == DLA_EV_LAYER_PROGRAM)
        record_origin(d, ev);
    if (ev->kind != DLA_EV_DIAG)
        return;
    const char *rule = ev->u.diag.rule;
    const char *where = d->session ? session_where(d->session) : "";
    char text[800];
    snprintf(text, sizeof text, "%s%scycle %llu: %s%s%s%s", where, *where ? ": " : "",
             (unsigned long long)ev->cycle, ev->u.diag.msg ? ev->u.diag.msg : "", rule ? " [" : "",
             rule ? rule : "", rule ? "]" : "");
    enum dbg_out_kind kind = ev->u.diag.severity == DLA_SEV_ERROR     ? DBG_OUT_ERROR
                             : ev->u.diag.severity == DLA_SEV_WARNING ? DBG_OUT_WARNING
                                                                      : DBG_OUT_NOTE;
    sink_line(d, kind, text);
}

/* ---------------------------------------------------------------- context */

static void hook_fetched(void *ctx, struct session *s, const struct drv_action *act)
{
    struct dbg *d = ctx;
    (void)s;
    (void)act;
    proglog_fetched(d->log);
}

static void hook_wait_done(void *ctx, struct session *s, const struct drv_action *act, bool ok,
                           uint64_t events)
{
    struct dbg *d = ctx;
    (void)s;
    (void)act;
    proglog_wait_done(d->log, ok, events);
}

#define POLL_EVERY 4096 /* actions between calls of opt.poll */

static void hook_after_execute(void *ctx, struct session *s)
{
    struct dbg *d = ctx;
    (void)s;
    cps_after_execute(d->cps);
    bps_after_execute(d->bps);
    if (d->cmp)
        compare_after_execute(d->cmp);
    if (d->opt.poll && ++d->poll_count % POLL_EVERY == 0) {
        if (d->opt.poll(d->opt.poll_ctx))
            session_interrupt = 1;
    }
}

static const struct session_hooks dbg_hooks = {
    .fetched = hook_fetched,
    .wait_done = hook_wait_done,
    .after_execute = hook_after_execute,
};

void dbg_session_changed(struct dbg *d)
{
    struct session *s = d->session;
    d->hung = false;
    trace_ring_clear(d->ring);
    dma_lines_clear(d->lines);
    if (s)
        session_set_hooks(s, &dbg_hooks, d);
    proglog_attach(d->log, s);
    bps_attach(d->bps, s);
    cps_attach(d->cps, s, d->ring, d->log, d->bps);
    cmd_compare_session_changed(d);
}

static void refusal(void *ctx, const char *message)
{
    sink_line(ctx, DBG_OUT_WARNING, message);
}

struct dbg *dbg_create(const struct dbg_options *opt, const struct dbg_sink *out)
{
    struct dbg *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (opt)
        d->opt = *opt;
    d->quit_status = -1;
    d->rep.print = on_report;
    d->rep.ctx = d;
    d->bps = bps_create();
    d->cps = cps_create(0);
    d->ring = trace_ring_create(d->opt.trace_ring_events);
    d->lines = calloc(1, sizeof *d->lines);
    if (d->lines)
        dma_lines_init(d->lines);
    d->log = proglog_create();
    d->plugins = plugin_host_create();
    d->origins = layer_origins_create();
    if (!d->bps || !d->cps || !d->ring || !d->lines || !d->log || !d->plugins || !d->origins) {
        dbg_destroy(d);
        return NULL;
    }
    d->out = out;
    plugin_host_reserve(d->plugins, cmd_builtin_taken, NULL);
    plugin_host_limit_commands(d->plugins, CMD_PLUGIN_ROWS); /* never a command silently left out */
    if (!d->opt.no_builtin_plugins)
        plugin_host_scan_default(d->plugins, d->opt.plugin_path, refusal, d);
    else
        plugin_host_scan_list(d->plugins, d->opt.plugin_path, refusal, d);
    cmd_plugin_sync(d);
    /* the default sink: output of runs driven directly through the session */
    return d;
}

static void close_session(struct dbg *d)
{
    if (!d->session)
        return;
    trace_ring_detach(d->ring);
    dma_lines_detach(d->lines);
    bps_attach(d->bps, NULL);
    cps_attach(d->cps, NULL, NULL, NULL, NULL);
    cmd_compare_detach(d);
    proglog_attach(d->log, NULL);
    session_close(d->session);
    d->session = NULL;
    layer_origins_clear(d->origins);
    if (d->plan)
        loadable_plan_free(d->plan);
    free(d->plan);
    d->plan = NULL;
    d->plan_read = false;
    d->layers_of_run = 0;
}

void dbg_destroy(struct dbg *d)
{
    if (!d)
        return;
    close_session(d);
    bps_destroy(d->bps);
    cps_destroy(d->cps);
    trace_ring_destroy(d->ring);
    if (d->lines)
        dma_lines_free(d->lines);
    free(d->lines);
    proglog_destroy(d->log);
    cmd_plugin_forget(d);
    plugin_host_destroy(d->plugins);
    layer_origins_destroy(d->origins);
    compare_destroy(d->cmp);
    cmd_displays_free(d);
    cmd_lists_free(d);
    free(d->open_line);
    free(d);
}

/* What the open network's memories take (0 for a trace): the size the
 * process's malloc policy follows. */
static uint64_t network_bytes(struct dbg *d)
{
    struct loadable *ld;
    struct rt_bound *bound;
    uint64_t n = 0;
    if (loadable_driver_parsed(session_driver(d->session), &ld, &bound))
        for (uint32_t i = 0; i < ld->n_memories; i++)
            n += ld->memories[i].size;
    return n;
}

bool dbg_open(struct dbg *d, const char *path, char *err, size_t errlen)
{
    /* The new file is opened before the old session is closed: a mistyped
     * "file" path must not cost the run in progress, its saved states and
     * its position (gdb keeps its program too).  What opening counted goes
     * with the new session; a failed open gives the old one its counts back. */
    struct report kept = d->rep;
    struct report fresh = {.print = on_report, .ctx = d};
    d->rep = fresh;
    struct session *opened = session_open(path, &d->opt.session, &d->rep, err, errlen);
    if (!opened) {
        d->rep = kept;
        return false;
    }
    close_session(d);
    d->opens++;
    d->session = opened;
    struct dla *dla = session_dla(d->session);
    trace_ring_attach(d->ring, dla);
    dma_lines_attach(d->lines, dla);
    dla_listen(dla, on_model_event, d); /* the model goes with the session: never unlistened */
    heap_policy_for_network(network_bytes(d));
    /* the model keeps across layers the scratch glibc would give back to
     * the kernel: none while its own threshold moves and keeps freed
     * blocks in the heap */
    uint64_t fixed = heap_policy_mmap_threshold();
    dla_scratch_keep_from(dla, fixed ? fixed : UINT64_MAX);
    dbg_session_changed(d);
    return true;
}

bool dbg_load_plugin(struct dbg *d, const char *path, char *err, size_t errlen)
{
    if (!plugin_host_load(d->plugins, path, err, errlen))
        return false;
    cmd_plugin_sync(d);
    return true;
}

int dbg_exit_status(const struct dbg *d)
{
    if (d->failed_cmds)
        return 2;
    if (d->quit_status >= 0)
        return d->quit_status;
    int st = d->session ? session_exit_status(d->session) : 0;
    return st == 0 && d->hung ? 1 : st;
}

/* ---------------------------------------------------------------- arguments */

int cmd_nargs(const struct cmd_args *a)
{
    return a->argc - a->first;
}

const char *cmd_arg(const struct cmd_args *a, int i)
{
    int k = a->first + i;
    return i >= 0 && k < a->argc ? a->argv[k] : NULL;
}

const char *cmd_rest(const struct cmd_args *a, int i)
{
    int k = a->first + i;
    return i >= 0 && k < a->argc ? a->line + a->offset[k] : "";
}

void cmd_trimmed(const char *text, char *buf, size_t len)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    snprintf(buf, len, "%.*s", (int)n, text);
}

bool cmd_need_session(struct dbg *d, struct cmd_args *a)
{
    if (d->session)
        return true;
    cmd_fail(d, a, "no file is open (use \"file FILE\")");
    return false;
}

bool cmd_asks(const struct dbg *d)
{
    return d->opt.confirm && !d->confirm_off && !d->where[0] && d->internal_depth == 0;
}

bool cmd_confirm(struct dbg *d, const char *question)
{
    if (!cmd_asks(d))
        return true;
    return d->opt.confirm(d->opt.confirm_ctx, question);
}

bool cmd_eval(struct dbg *d, const char *text, int64_t *v, char *err, size_t errlen)
{
    struct expr_env env = {.dla = d->session ? session_dla(d->session) : NULL,
                           .group = -1,
                           .bpnum = d->bps ? bps_last_number(d->bps) : 0};
    if (d->session) {
        env.layers = session_layers_done(d->session);
        env.writes = session_writes(d->session);
    }
    return expr_eval(text, &env, v, err, errlen);
}

bool cmd_number(struct dbg *d, struct cmd_args *a, const char *text, int64_t *v)
{
    char err[256];
    if (cmd_eval(d, text, v, err, sizeof err))
        return true;
    cmd_fail(d, a, "%s", err);
    return false;
}

/* The field whose enum names a value may use: the one named, or the only
 * field of a register named whole (SDP.D_OP_ENABLE: OP_EN). */
static const struct regdb_field *enum_field(const struct regdb_ref *ref)
{
    if (ref->field)
        return ref->field;
    return ref->reg->n_fields == 1 ? &ref->reg->fields[0] : NULL;
}

static bool is_plain_word(const char *t)
{
    if (!isalpha((unsigned char)*t) && *t != '_')
        return false;
    while (isalnum((unsigned char)*t) || *t == '_')
        t++;
    return *t == 0;
}

/* A word that is no enum name of f: fails naming the names there are. */
static bool fail_enum(struct dbg *d, struct cmd_args *a, const struct regdb_ref *ref,
                      const struct regdb_field *f, const char *text)
{
    char names[512] = "", hint[128] = "";
    struct suggest s;
    suggest_init(&s, text);
    for (uint16_t i = 0; i < f->n_enums; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s, ", f->enums[i].name);
        suggest_consider(&s, f->enums[i].name);
    }
    if (suggest_best(&s))
        snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", suggest_best(&s));
    cmd_fail(d, a, "\"%s\" is not a value of %s.%s.%s%s; expected one of: %sor a number", text,
             ref->unit->name, ref->reg->name, f->name, hint, names);
    return false;
}

/* x as the bits of a field or register: what fits its width unsigned, or
 * negative in two's complement (offsets are signed fields); anything else
 * fails naming the limits instead of being cut to the low bits. */
static bool value_fits(struct dbg *d, struct cmd_args *a, const struct regdb_ref *ref, int64_t x,
                       uint32_t *v)
{
    unsigned width = ref->field ? (unsigned)(ref->field->msb - ref->field->lsb + 1) : 32;
    int64_t max = (int64_t)((UINT64_C(1) << width) - 1), min = -(INT64_C(1) << (width - 1));
    if (x >= min && x <= max) {
        *v = (uint32_t)((uint64_t)x & (uint64_t)max);
        return true;
    }
    char name[160];
    snprintf(name, sizeof name, "%s.%s%s%s", ref->unit->name, ref->reg->name, ref->field ? "." : "",
             ref->field ? ref->field->name : "");
    cmd_fail(d, a,
             "%s%llx does not fit the %u bits of %s: 0..0x%llx, or -0x%llx..-1 as two's "
             "complement",
             x < 0 ? "-0x" : "0x", (unsigned long long)(x < 0 ? -(uint64_t)x : (uint64_t)x), width,
             name, (unsigned long long)max, (unsigned long long)-min);
    return false;
}

bool cmd_reg_value(struct dbg *d, struct cmd_args *a, const struct regdb_ref *ref, const char *text,
                   uint32_t *v)
{
    const struct regdb_field *f = enum_field(ref);
    if (f && regdb_enum_value(f, text, v)) {
        if (!ref->field) /* a whole register: the field's bits in place */
            *v = regdb_field_set(f, 0, *v);
        return true;
    }
    if (f && f->n_enums && is_plain_word(text))
        return fail_enum(d, a, ref, f, text);
    int64_t x;
    if (!cmd_number(d, a, text, &x))
        return false;
    return value_fits(d, a, ref, x, v);
}

bool cmd_resolve_reg(struct dbg *d, struct cmd_args *a, const char *name, struct regdb_ref *ref)
{
    const struct regdb_map *map = dla_regmap(session_dla(d->session));
    char absent[160];
    if (regdb_resolve(map, name, ref)) {
        if (!format_unit_absent(session_dla(d->session), ref->unit, absent, sizeof absent))
            return true;
        cmd_fail(d, a, "%s: %s", name, absent);
        return false;
    }
    char hint[160];
    reg_suggest(map, name, hint, sizeof hint);
    cmd_fail(d, a, "no register or field \"%s\" in the %s map%s", name, map->name, hint);
    return false;
}

bool cmd_count(struct dbg *d, struct cmd_args *a, int i, uint64_t def, uint64_t *n)
{
    *n = def;
    const char *t = cmd_arg(a, i);
    if (!t)
        return true;
    int64_t v;
    if (!cmd_number(d, a, t, &v))
        return false;
    if (v < 1) {
        cmd_fail(d, a, "count must be at least 1, not %lld", (long long)v);
        return false;
    }
    *n = (uint64_t)v;
    return true;
}

enum tokenize_result { TOKENS_OK, TOKENS_UNBALANCED_QUOTE, TOKENS_TOO_MANY_WORDS, TOKENS_NO_MEMORY };

/* Split into words: blanks separate, "double quotes" group, '#' at the start
 * of a word begins a comment.  The words are copied into storage sized for the
 * whole line (the words and their terminators never exceed strlen(line) + 1
 * bytes), so no line is too long; more than CMD_MAX_WORDS words is an error
 * rather than a silently shortened command.  Free with args_free. */
static enum tokenize_result tokenize(const char *line, struct cmd_args *a)
{
    memset(a, 0, sizeof *a);
    a->line = line;
    a->suffix = "";
    a->storage = malloc(strlen(line) + 1);
    if (!a->storage)
        return TOKENS_NO_MEMORY;
    size_t out = 0, i = 0;
    while (line[i]) {
        while (isspace((unsigned char)line[i]))
            i++;
        if (!line[i] || line[i] == '#')
            break;
        if (a->argc == CMD_MAX_WORDS)
            return TOKENS_TOO_MANY_WORDS;
        a->offset[a->argc] = i;
        a->argv[a->argc++] = &a->storage[out];
        bool quoted = false;
        while (line[i] && (quoted || !isspace((unsigned char)line[i]))) {
            if (quoted && line[i] == '\\' && line[i + 1] == '"') {
                /* a quote escaped inside quotes is text: printf "say \"%d\"\n", 1 */
                a->storage[out++] = line[i++];
                a->storage[out++] = line[i++];
                continue;
            }
            if (line[i] == '"')
                quoted = !quoted;
            else
                a->storage[out++] = line[i];
            i++;
        }
        if (quoted)
            return TOKENS_UNBALANCED_QUOTE;
        a->storage[out++] = 0;
    }
    return TOKENS_OK;
}

static void args_free(struct cmd_args *a)
{
    if (a)
        free(a->storage);
    free(a);
}

/* ---------------------------------------------------------------- lookup */

static bool has_alias(const struct cmd_entry *e, const char *word)
{
    if (!e->alias)
        return false;
    size_t n = strlen(word);
    for (const char *p = e->alias; *p;) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncasecmp(p, word, n))
            return true;
        p += len;
        while (*p == ' ')
            p++;
    }
    return false;
}

typedef bool (*entry_fn)(const struct cmd_entry *e, void *ctx);

/* Visit the entries of a table, or of every top-level group when table is NULL. */
static void each_entry(const struct cmd_entry *table, entry_fn fn, void *ctx)
{
    if (table) {
        for (const struct cmd_entry *e = table; e->name; e++)
            if (!fn(e, ctx))
                return;
        return;
    }
    for (const struct cmd_entry *const *g = cmd_groups; *g; g++)
        for (const struct cmd_entry *e = *g; e->name; e++)
            if (!fn(e, ctx))
                return;
}

struct lookup {
    const char *word;
    const struct cmd_entry *exact, *alias, *prefix;
    int n_prefix;
};

static bool lookup_one(const struct cmd_entry *e, void *ctx)
{
    struct lookup *l = ctx;
    if (!strcasecmp(e->name, l->word)) {
        l->exact = e;
    } else if (has_alias(e, l->word)) {
        l->alias = e;
    } else if (!strncasecmp(e->name, l->word, strlen(l->word))) {
        l->n_prefix++;
        l->prefix = e;
    }
    return true;
}

const struct cmd_entry *cmd_lookup(const struct cmd_entry *table, const char *word, bool *ambiguous)
{
    struct lookup l = {.word = word};
    if (ambiguous)
        *ambiguous = false;
    if (!word || !*word)
        return NULL;
    each_entry(table, lookup_one, &l);
    if (l.exact)
        return l.exact;
    if (l.alias)
        return l.alias;
    if (l.n_prefix == 1)
        return l.prefix;
    if (l.n_prefix > 1 && ambiguous)
        *ambiguous = true;
    return NULL;
}

struct names {
    const char *prefix;
    char buf[512];
};

static bool collect_name(const struct cmd_entry *e, void *ctx)
{
    struct names *n = ctx;
    if (n->prefix && strncasecmp(e->name, n->prefix, strlen(n->prefix)))
        return true;
    size_t used = strlen(n->buf);
    snprintf(n->buf + used, sizeof n->buf - used, "%s%s", used ? ", " : "", e->name);
    return true;
}

/* "a, b, c" of a table's names, optionally only those starting with prefix. */
static void entry_names(const struct cmd_entry *table, const char *prefix, char *buf, size_t len)
{
    struct names n = {.prefix = prefix};
    each_entry(table, collect_name, &n);
    snprintf(buf, len, "%s", n.buf);
}

static bool consider_name(const struct cmd_entry *e, void *ctx)
{
    suggest_consider(ctx, e->name);
    return true;
}

/* The name of the table closest to a mistyped word, or NULL. */
static const char *closest_name(const struct cmd_entry *table, const char *word)
{
    struct suggest s;
    suggest_init(&s, word);
    each_entry(table, consider_name, &s);
    return suggest_best(&s);
}

/* An unknown or ambiguous command word.  A top-level word gets no command
 * name in front ("error: tour.dladbg:4: unknown command \"brek\"; did you
 * mean \"break\"?"); a subcommand is named after its command. */
/* also: what a command takes besides its subcommands ("a layer number"), or NULL. */
static enum cmd_status fail_lookup(struct dbg *d, const struct cmd_entry *table,
                                   struct cmd_args *a, const char *word, bool ambiguous,
                                   const char *also)
{
    char names[512], hint[600] = "";
    entry_names(table, ambiguous ? word : NULL, names, sizeof names);
    const char *best = ambiguous ? NULL : closest_name(table, word);
    if (table) {
        if (best)
            snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", best);
        return cmd_fail(d, a, "%s \"%s\"%s; expected one of: %s%s%s%s",
                        ambiguous ? "ambiguous" : "unknown", word, hint, names,
                        also ? " (or " : "", also ? also : "", also ? ")" : "");
    }
    if (ambiguous)
        snprintf(hint, sizeof hint, " (%s)", names);
    else if (best)
        snprintf(hint, sizeof hint, "; did you mean \"%s\"?", best);
    else
        snprintf(hint, sizeof hint, " (try \"help\")");
    cmd_out(d, DBG_OUT_ERROR, "%s%s%s command \"%s\"%s", d->where, d->where[0] ? ": " : "",
            ambiguous ? "ambiguous" : "unknown", word, hint);
    return CMD_ERROR;
}

enum cmd_status cmd_fail_kind(struct dbg *d, struct cmd_args *a, const struct cmd_entry *subs,
                              const char *also)
{
    const char *word = cmd_arg(a, 0);
    if (!word) {
        char names[512];
        entry_names(subs, NULL, names, sizeof names);
        return cmd_fail(d, a, "expected one of: %s (or %s)", names, also);
    }
    bool ambiguous;
    cmd_lookup(subs, word, &ambiguous);
    return fail_lookup(d, subs, a, word, ambiguous, also);
}

/* ---------------------------------------------------------------- dispatch */

static void append_path(struct cmd_args *a, const char *name)
{
    size_t n = strlen(a->path);
    snprintf(a->path + n, sizeof a->path - n, "%s%s", n ? " " : "", name);
}

static enum cmd_status dispatch(struct dbg *d, const struct cmd_entry *table, struct cmd_args *a,
                                int index, const struct cmd_entry **ran)
{
    const char *word = a->argv[index];
    bool ambiguous;
    const struct cmd_entry *e = cmd_lookup(table, word, &ambiguous);
    if (!e)
        return fail_lookup(d, table, a, word, ambiguous, NULL);
    append_path(a, e->name);
    if (e->subs && index + 1 < a->argc) {
        const struct cmd_entry *sub = cmd_lookup(e->subs, a->argv[index + 1], &ambiguous);
        if (sub || !e->exec)
            return dispatch(d, e->subs, a, index + 1, ran);
    }
    if (!e->exec) {
        char names[512];
        entry_names(e->subs, NULL, names, sizeof names);
        return cmd_fail(d, a, "expected one of: %s", names);
    }
    a->first = index + 1;
    *ran = e;
    return e->exec(d, a);
}

static void split_suffix(struct cmd_args *a);

enum cmd_status cmd_exec_as(struct dbg *d, const char *line)
{
    struct cmd_args *a = malloc(sizeof *a);
    enum tokenize_result tr = a ? tokenize(line, a) : TOKENS_NO_MEMORY;
    enum cmd_status st;
    const struct cmd_entry *ran = NULL;
    if (tr != TOKENS_OK || !a->argc)
        st = cmd_fail(d, NULL, "cannot read \"%s\"", line);
    else {
        split_suffix(a);
        st = dispatch(d, NULL, a, 0, &ran);
    }
    args_free(a);
    return st;
}

/* "x/4w ADDR": the command word ends at '/'; the rest is a format suffix. */
static void split_suffix(struct cmd_args *a)
{
    char *slash = a->argc ? strchr(a->argv[0], '/') : NULL;
    if (!slash || slash == a->argv[0])
        return;
    static char suffix[32];
    snprintf(suffix, sizeof suffix, "%s", slash);
    a->suffix = suffix;
    *slash = 0;
}

static bool blank(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return *line == 0 || *line == '#';
}

/* "!CMD" as "shell CMD" (malloc'd), else NULL. */
static char *shell_bang(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    if (*line != '!')
        return NULL;
    size_t n = strlen(line) + sizeof "shell ";
    char *text = malloc(n);
    if (text)
        snprintf(text, n, "shell %s", line + 1);
    return text;
}

static enum cmd_status exec_line(struct dbg *d, const char *line);

/* A line echo, printf or output leave open is ended when the line typed
 * (or the script sourced) ends, in the sink it was written for: gdb's
 * "echo x: " "output v" "echo \n" make one line inside a command list or a
 * script, and the next prompt starts on a line of its own. */
static void exec_enter(struct dbg *d, const struct dbg_sink *out, const struct dbg_sink **saved)
{
    *saved = d->out;
    if (out)
        d->out = out;
    d->exec_depth++;
}

static void exec_leave(struct dbg *d, const struct dbg_sink *saved)
{
    if (--d->exec_depth == 0)
        end_open_line(d);
    d->out = saved;
}

enum cmd_status dbg_exec(struct dbg *d, const char *line, const struct dbg_sink *out)
{
    const struct dbg_sink *saved;
    exec_enter(d, out, &saved);
    enum cmd_status st = exec_line(d, line);
    exec_leave(d, saved);
    return st;
}

static enum cmd_status exec_line(struct dbg *d, const char *line)
{
    enum cmd_status st = CMD_ERROR;
    if (cmd_lists_take_line(d, line, &st)) { /* a line of "commands N": kept, not run */
        if (st == CMD_ERROR)
            d->failed_cmds++;
        return st;
    }
    cmd_plugin_sync(d); /* plugins may have been loaded through d->plugins directly */
    char repeat[sizeof d->last_cmd];
    if (blank(line)) {
        if (strchr(line, '#') || !d->last_cmd[0]) {
            return CMD_OK; /* a comment, or nothing to repeat */
        }
        snprintf(repeat, sizeof repeat, "%s", d->last_cmd);
        line = repeat;
    }
    char *bang = shell_bang(line); /* gdb's "!ls" is "shell ls" */
    if (bang)
        line = bang;
    struct cmd_args *a = malloc(sizeof *a);
    enum tokenize_result tr = a ? tokenize(line, a) : TOKENS_NO_MEMORY;
    if (tr == TOKENS_NO_MEMORY) {
        cmd_fail(d, NULL, "out of memory");
    } else if (tr == TOKENS_UNBALANCED_QUOTE) {
        cmd_fail(d, NULL, "unbalanced quotes in \"%s\"", line);
    } else if (tr == TOKENS_TOO_MANY_WORDS) {
        cmd_fail(d, NULL, "too many words (at most %d) in \"%.40s...\"", CMD_MAX_WORDS, line);
    } else if (a->argc) {
        split_suffix(a);
        const struct cmd_entry *ran = NULL;
        st = dispatch(d, NULL, a, 0, &ran);
        if (st == CMD_OK && cmd_lists_failed(d)) /* a breakpoint's command list it ran */
            st = CMD_ERROR;
        if (st == CMD_OK && ran && ran->repeat && line != repeat)
            snprintf(d->last_cmd, sizeof d->last_cmd, "%s", line);
        else if (ran && !ran->repeat)
            d->last_cmd[0] = 0;
    } else {
        st = CMD_OK;
    }
    args_free(a);
    free(bang);
    if (st == CMD_ERROR)
        d->failed_cmds++;
    if (d->quit)
        st = CMD_QUIT;
    return st;
}

/* Scripts that source each other (or themselves) would otherwise recurse
 * until the stack runs out; gdb users nest a few levels at most. */
#define SOURCE_MAX_DEPTH 32

static enum cmd_status source_fail(struct dbg *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static enum cmd_status source_fail(struct dbg *d, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cmd_out(d, DBG_OUT_ERROR, "%s%s%s", d->where, d->where[0] ? ": " : "", msg);
    d->failed_cmds++;
    return CMD_ERROR;
}

/* Executes the lines of fp; stops at quit, or at an error in batch mode. */
static enum cmd_status source_lines(struct dbg *d, FILE *fp, const char *path)
{
    char *line = NULL;
    size_t cap = 0, len;
    unsigned lineno = 0;
    enum cmd_status st = CMD_OK;
    enum textfile_line_status ls;
    while ((ls = textfile_read_line(fp, &line, &cap, &len)) != TEXTFILE_END) {
        lineno++;
        if (ls != TEXTFILE_LINE) {
            char err[512];
            textfile_line_error(ls, path, lineno, len, err, sizeof err);
            st = source_fail(d, "source: %s", err);
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        snprintf(d->where, sizeof d->where, "%.200s:%u", path, lineno);
        /* in a script an empty line is nothing, not "repeat the last step" */
        if (blank(line))
            continue;
        st = dbg_exec(d, line, NULL);
        if (st == CMD_QUIT || (st == CMD_ERROR && d->opt.batch))
            break;
    }
    free(line);
    if (!dbg_input_ended(d) && st != CMD_QUIT)
        st = CMD_ERROR;
    return st;
}

enum cmd_status dbg_source(struct dbg *d, const char *path, const struct dbg_sink *out)
{
    const struct dbg_sink *saved;
    exec_enter(d, out, &saved);
    enum cmd_status st;
    FILE *fp = NULL;
    char why[4200];
    if (d->source_depth >= SOURCE_MAX_DEPTH)
        st = source_fail(d, "source: %s: source nested too deep (at most %d scripts, one inside "
                            "another)",
                         path, SOURCE_MAX_DEPTH);
    else if (!(fp = file_open_input(path, "r", why, sizeof why)))
        st = source_fail(d, "source: %s", why);
    else {
        char outer[sizeof d->where];
        memcpy(outer, d->where, sizeof outer);
        d->source_depth++;
        st = source_lines(d, fp, path);
        d->source_depth--;
        fclose(fp);
        memcpy(d->where, outer, sizeof d->where);
    }
    exec_leave(d, saved);
    return st;
}

/* ---------------------------------------------------------------- completion */

struct completion {
    struct dbg *d;
    const char *prev; /* the word before the one being completed, NULL: none */
    const char *word;
    size_t wlen;
    dbg_candidate_fn fn;
    void *ctx;
    size_t n;
};

static void offer(struct completion *c, const char *cand)
{
    if (strncasecmp(cand, c->word, c->wlen))
        return;
    c->fn(c->ctx, cand);
    c->n++;
}

static void offer_word(void *ctx, const char *cand)
{
    offer(ctx, cand);
}

static bool offer_entry(const struct cmd_entry *e, void *ctx)
{
    offer(ctx, e->name);
    return true;
}

static void offer_registers(struct completion *c)
{
    if (!c->d->session)
        return;
    const struct regdb_map *map = dla_regmap(session_dla(c->d->session));
    const char *dot = strchr(c->word, '.');
    char cand[160];
    if (!dot) {
        for (uint16_t u = 0; u < map->n_units; u++) {
            snprintf(cand, sizeof cand, "%s.", map->units[u].name);
            offer(c, cand);
        }
        return;
    }
    char unit_name[32];
    snprintf(unit_name, sizeof unit_name, "%.*s", (int)(dot - c->word), c->word);
    const struct regdb_unit *u = regdb_unit_named(map, unit_name);
    if (!u)
        return;
    const char *dot2 = strchr(dot + 1, '.');
    if (!dot2) {
        for (uint16_t r = 0; r < u->n_regs; r++) {
            snprintf(cand, sizeof cand, "%s.%s", u->name, u->regs[r].name);
            offer(c, cand);
        }
        return;
    }
    char reg_name[96];
    snprintf(reg_name, sizeof reg_name, "%.*s", (int)(dot2 - dot - 1), dot + 1);
    const struct regdb_reg *r = regdb_reg_named(u, reg_name);
    for (uint16_t f = 0; r && f < r->n_fields; f++) {
        snprintf(cand, sizeof cand, "%s.%s.%s", u->name, r->name, r->fields[f].name);
        offer(c, cand);
    }
}

static void offer_file(void *ctx, const char *cand)
{
    struct completion *c = ctx;
    if (strncmp(cand, c->word, c->wlen)) /* file names are case-sensitive */
        return;
    c->fn(c->ctx, cand);
    c->n++;
}

static void offer_placeholder(struct completion *c, const char *tok, size_t len)
{
    char cand[64];
    if (len == 3 && !strncmp(tok, "REG", 3)) {
        offer_registers(c);
    } else if (len == 4 && !strncmp(tok, "UNIT", 4) && c->d->session) {
        const struct regdb_map *map = dla_regmap(session_dla(c->d->session));
        for (uint16_t u = 0; u < map->n_units; u++)
            offer(c, map->units[u].name);
    } else if (len == 4 && !strncmp(tok, "PROC", 4)) {
        for (int p = 0; p < DLA_P_COUNT; p++) {
            snprintf(cand, sizeof cand, "%s", dla_proc_name((enum dla_proc)p));
            for (char *q = cand; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            offer(c, cand);
        }
    } else if (len == 4 && !strncmp(tok, "INTR", 4)) {
        for (unsigned b = 0; b < 32; b++)
            if (dla_intr_bit_name(b))
                offer(c, dla_intr_bit_name(b));
    } else if (len == 2 && !strncmp(tok, "BP", 2)) {
        for (size_t i = 0; i < bps_count(c->d->bps); i++) {
            snprintf(cand, sizeof cand, "%d", bps_get(c->d->bps, i)->number);
            offer(c, cand);
        }
    } else if (len == 7 && !strncmp(tok, "DECODER", 7)) {
        for (size_t i = 0; i < plugin_host_count(c->d->plugins); i++)
            offer(c, plugin_host_get(c->d->plugins, i)->facts->name);
    } else if (len == 3 && !strncmp(tok, "CMD", 3)) {
        each_entry(NULL, offer_entry, c);
    } else if ((len == 4 && !strncmp(tok, "FILE", 4)) || (len == 3 && !strncmp(tok, "DIR", 3))) {
        path_complete(c->word, len == 3, offer_file, c);
    } else if (len == 6 && !strncmp(tok, "TENSOR", 6)) {
        cmd_tensor_offer_names(c->d, offer_word, c);
    } else if (len == 4 && !strncmp(tok, "TOPT", 4)) {
        /* the tensor command's options; after "save" a file name */
        if (c->prev && !strcasecmp(c->prev, "save"))
            path_complete(c->word, false, offer_file, c);
        else
            cmd_tensor_offer_options(c->prev, offer_word, c);
    }
}

/* Offer what template token number k (0-based) of args allows. */
static void offer_template(struct completion *c, const char *args, int k)
{
    const char *p = args, *last = NULL;
    size_t last_len = 0;
    for (int i = 0; p && *p; i++) {
        while (*p == ' ' || *p == '[' || *p == ']')
            p++;
        const char *end = p;
        while (*end && *end != ' ' && *end != ']')
            end++;
        size_t len = (size_t)(end - p);
        if (len == 3 && !strncmp(p, "...", 3)) {
            if (last)
                offer_placeholder(c, last, last_len);
            return;
        }
        if (i == k) {
            if (len && isupper((unsigned char)p[0])) {
                offer_placeholder(c, p, len);
                return;
            }
            for (const char *q = p; q < end;) { /* keyword alternatives a|b|c */
                const char *bar = memchr(q, '|', (size_t)(end - q));
                size_t n = bar ? (size_t)(bar - q) : (size_t)(end - q);
                char cand[64];
                snprintf(cand, sizeof cand, "%.*s", (int)n, q);
                offer(c, cand);
                q += n + (bar ? 1 : 0);
            }
            return;
        }
        last = p;
        last_len = len;
        p = *end ? end + 1 : end;
    }
}

size_t dbg_complete(struct dbg *d, const char *line, size_t cursor, size_t *word_start,
                    dbg_candidate_fn fn, void *ctx)
{
    char buf[1024];
    if (cursor >= sizeof buf)
        cursor = sizeof buf - 1;
    memcpy(buf, line, cursor);
    buf[cursor] = 0;
    size_t start = cursor;
    while (start > 0 && !isspace((unsigned char)buf[start - 1]))
        start--;
    if (word_start)
        *word_start = start;
    char word[1024];
    snprintf(word, sizeof word, "%s", buf + start);
    cmd_plugin_sync(d);
    struct completion c = {.d = d, .word = word, .wlen = cursor - start, .fn = fn, .ctx = ctx};
    /* the words before the one being completed */
    buf[start] = 0;
    struct cmd_args *a = malloc(sizeof *a);
    if (!a || tokenize(buf, a) != TOKENS_OK) {
        args_free(a);
        return 0;
    }
    if (a->argc == 0) {
        each_entry(NULL, offer_entry, &c);
        args_free(a);
        return c.n;
    }
    split_suffix(a);
    c.prev = a->argv[a->argc - 1];
    const struct cmd_entry *e = cmd_lookup(NULL, a->argv[0], NULL);
    int i = 1;
    while (e && e->subs && i < a->argc) {
        const struct cmd_entry *sub = cmd_lookup(e->subs, a->argv[i], NULL);
        if (!sub)
            break; /* not a subcommand: the entry's own arguments begin here */
        e = sub;
        i++;
    }
    if (e && cmd_plugin_entry(e)) {
        cmd_plugin_complete(d, e, a->argc, a->argv, word, offer_word, &c);
    } else if (e) {
        int k = a->argc - i; /* argument index being completed */
        if (e->subs && k == 0)
            each_entry(e->subs, offer_entry, &c);
        if (e->args && (e->exec || !e->subs))
            offer_template(&c, e->args, k);
    }
    args_free(a);
    return c.n;
}

bool dbg_completion_continues(const char *candidate)
{
    size_t n = strlen(candidate);
    return n && (candidate[n - 1] == '.' || candidate[n - 1] == '/' || candidate[n - 1] == '=');
}
