/* Breakpoints and watchpoints as model-event listeners. */
#include "breakpoints.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/expr.h"
#include "cmd/format.h"
#include "util/grow.h"

/* A breakpoint that caused the stop being made, as its stop line tells it. */
struct stop_hit {
    int number;
    bool watch;
    char text[400];
};

struct breakpoints {
    size_t n, cap;
    struct breakpoint *bp;
    int next_number;
    struct session *s;
    struct dla *d;
    int listener;
    bool suspended;
    struct breakpoint location; /* the one-shot stop of "advance" and "until", number 0 */
    bool has_location;
    struct stop_hit *hits; /* of the last stop, in number order (the location's first) */
    size_t n_hits, cap_hits;
    uint64_t seen_events, seen_host; /* memory watch: what changed since the last check */
};

struct breakpoints *bps_create(void)
{
    struct breakpoints *b = calloc(1, sizeof *b);
    if (b) {
        b->next_number = 1;
        b->listener = -1;
    }
    return b;
}

void bps_destroy(struct breakpoints *b)
{
    if (!b)
        return;
    bps_attach(b, NULL);
    for (size_t i = 0; i < b->n; i++)
        free(b->bp[i].shadow);
    free(b->bp);
    free(b->hits);
    free(b);
}

/* ---------------------------------------------------------------- matching */

static const char *when_names[] = {"programmed", "enabled", "started", "done"};

bool bps_parse_when(const char *word, enum bp_when *when)
{
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(word, when_names[i]) ||
            (strlen(word) >= 3 && !strncmp(word, when_names[i], strlen(word)))) {
            *when = (enum bp_when)i;
            return true;
        }
    return false;
}

const char *bps_when_name(enum bp_when w)
{
    return w <= BP_DONE ? when_names[w] : "?";
}

static enum bp_when when_of(uint8_t kind)
{
    switch (kind) {
    case DLA_EV_LAYER_ENABLE:
        return BP_ENABLED;
    case DLA_EV_LAYER_START:
        return BP_STARTED;
    case DLA_EV_LAYER_DONE:
        return BP_DONE;
    default:
        return BP_PROGRAMMED;
    }
}

static bool is_layer_event(uint8_t kind)
{
    return kind == DLA_EV_LAYER_PROGRAM || kind == DLA_EV_LAYER_ENABLE ||
           kind == DLA_EV_LAYER_START || kind == DLA_EV_LAYER_DONE;
}

static uint32_t stored_value(struct dla *d, const struct dla_event *ev)
{
    const struct regdb_unit *u;
    const struct regdb_reg *r = regdb_reg_at(dla_regmap(d), ev->u.reg.addr, &u);
    if (!r || ev->u.reg.unit == DLA_U_NONE)
        return ev->u.reg.value;
    int g = ev->u.reg.group == 0xff ? 0 : ev->u.reg.group;
    return dla_reg_value(d, (enum dla_unit)ev->u.reg.unit, g, r->offset);
}

static bool reg_value_matches(const struct breakpoint *bp, uint32_t value)
{
    uint32_t v = bp->field ? regdb_field_get(bp->field, value) : value;
    switch (bp->cmp) {
    case BP_EQ:
        return v == bp->value;
    case BP_NE:
        return v != bp->value;
    default:
        return true;
    }
}

static bool diag_matches(const struct breakpoint *bp, const struct dla_event *ev)
{
    if (bp->kind == BP_RULE) {
        if (ev->u.diag.kind != DLA_DIAG_RULE)
            return false;
        const char *rule = ev->u.diag.rule ? ev->u.diag.rule : "";
        return !bp->pattern[0] || !strncmp(rule, bp->pattern, strlen(bp->pattern));
    }
    return !bp->pattern[0] ||
           !strcmp(dla_diag_kind_name((enum dla_diag_kind)ev->u.diag.kind), bp->pattern);
}

/* Does the event hit bp (before condition and ignore count)?  msg receives the stop text. */
static bool matches(struct breakpoints *b, struct breakpoint *bp, const struct dla_event *ev,
                    char *msg, size_t len)
{
    char name[96];
    switch (bp->kind) {
    case BP_LAYER:
    case BP_UNIT:
        if (!is_layer_event(ev->kind) || when_of(ev->kind) != bp->when)
            return false;
        if (bp->kind == BP_LAYER ? ev->layer != (int32_t)bp->layer : ev->u.layer.proc != bp->proc)
            return false;
        format_layer_event(ev->layer, (enum dla_proc)ev->u.layer.proc, ev->u.layer.group,
                           bps_when_name(bp->when), msg, len);
        return true;
    case BP_REG:
        if (ev->kind != DLA_EV_REG_WRITE || ev->u.reg.addr != bp->addr ||
            !reg_value_matches(bp, ev->u.reg.value))
            return false;
        format_reg_name(dla_regmap(b->d), bp->addr, name, sizeof name);
        if (ev->u.reg.group != 0xff)
            snprintf(msg, len, "%s (group %u) written: 0x%08x (was 0x%08x)", name, ev->u.reg.group,
                     ev->u.reg.value, ev->u.reg.old);
        else
            snprintf(msg, len, "%s written: 0x%08x (was 0x%08x)", name, ev->u.reg.value,
                     ev->u.reg.old);
        return true;
    case BP_WATCH_REG: {
        if (ev->kind != DLA_EV_REG_WRITE || ev->u.reg.addr != bp->addr)
            return false;
        int g = ev->u.reg.group == 0xff ? 0 : ev->u.reg.group & 1;
        uint32_t now = stored_value(b->d, ev);
        uint32_t was = bp->last[g];
        bp->last[g] = now;
        if (now == was)
            return false;
        format_reg_name(dla_regmap(b->d), bp->addr, name, sizeof name);
        snprintf(msg, len, "%s%s: 0x%08x -> 0x%08x", name,
                 ev->u.reg.group != 0xff ? (g ? " (group 1)" : " (group 0)") : "", was, now);
        return true;
    }
    case BP_INTR:
        if (ev->kind != DLA_EV_INTR || ev->u.intr.bit != bp->intr_bit)
            return false;
        snprintf(msg, len, "interrupt %s raised (GLB.S_INTR_STATUS 0x%08x, line %s)",
                 dla_intr_bit_name(bp->intr_bit), ev->u.intr.status,
                 ev->u.intr.line ? "asserted" : "low: masked");
        return true;
    case BP_LUT: {
        if (ev->kind != DLA_EV_LUT || !ev->u.lut.stats)
            return false;
        uint64_t n = bp->overflow ? ev->u.lut.stats->overflow : ev->u.lut.stats->underflow;
        if (!n)
            return false;
        snprintf(msg, len, "layer %d (%s): LUT %s in %llu of %llu lookups", ev->layer,
                 dla_unit_name((enum dla_unit)ev->u.lut.unit),
                 bp->overflow ? "overflow" : "underflow", (unsigned long long)n,
                 (unsigned long long)ev->u.lut.stats->lookups);
        return true;
    }
    case BP_RULE:
    case BP_DIAG:
        if (ev->kind != DLA_EV_DIAG || !diag_matches(bp, ev))
            return false;
        if (bp->kind == BP_RULE)
            snprintf(msg, len, "rule %s violated: %s", ev->u.diag.rule ? ev->u.diag.rule : "?",
                     ev->u.diag.msg ? ev->u.diag.msg : "");
        else
            snprintf(msg, len, "%s (%s): %s",
                     dla_severity_name((enum dla_severity)ev->u.diag.severity),
                     dla_diag_kind_name((enum dla_diag_kind)ev->u.diag.kind),
                     ev->u.diag.msg ? ev->u.diag.msg : "");
        return true;
    default:
        return false;
    }
}

static int event_group(const struct dla_event *ev)
{
    if (is_layer_event(ev->kind))
        return ev->u.layer.group & 1;
    if ((ev->kind == DLA_EV_REG_WRITE || ev->kind == DLA_EV_REG_READ) && ev->u.reg.group != 0xff)
        return ev->u.reg.group & 1;
    return -1;
}

/* Condition holds?  A condition that fails to evaluate stops, with the reason. */
static bool condition_holds(struct breakpoints *b, const struct breakpoint *bp,
                            const struct dla_event *ev, char *msg, size_t len)
{
    if (!bp->cond[0])
        return true;
    struct expr_env env = {.dla = b->d, .group = event_group(ev)};
    if (b->s) {
        env.layers = session_layers_done(b->s);
        env.writes = session_writes(b->s);
    }
    int64_t v;
    char err[160];
    if (!expr_eval(bp->cond, &env, &v, err, sizeof err)) {
        size_t n = strlen(msg);
        if (snprintf(msg + n, len - n, " (condition \"%s\" failed: %s)", bp->cond, err) < 0)
            msg[n] = 0;
        return true;
    }
    return v != 0;
}

static bool says_the_same(const struct stop_hit *a, const struct stop_hit *b)
{
    return a->watch == b->watch && !strcmp(a->text, b->text);
}

/* Formatted text after the *used bytes of msg, cut at its len. */
static void __attribute__((format(printf, 4, 5)))
append(char *msg, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
}

/* The stop line of the hits: breakpoints that say the same share it
 * ("Breakpoint 1, 3, layer 2 (SDP, group 0) done": a layer and a unit
 * breakpoint), in the order of their first number, "; " between others.
 * The location of "advance" (number 0, first) is no breakpoint: alone, its
 * event is the line, as gdb's advance shows where it stopped; beside a
 * breakpoint, the breakpoint tells it. */
static void stop_message(const struct breakpoints *b, char *msg, size_t len)
{
    size_t used = 0;
    msg[0] = 0;
    if (b->n_hits == 1 && b->hits[0].number == 0) {
        snprintf(msg, len, "%s", b->hits[0].text);
        return;
    }
    size_t first = b->n_hits && b->hits[0].number == 0 ? 1 : 0;
    for (size_t i = first; i < b->n_hits; i++) {
        const struct stop_hit *h = &b->hits[i];
        bool named = false;
        for (size_t j = first; j < i && !named; j++)
            named = says_the_same(&b->hits[j], h);
        if (named)
            continue;
        append(msg, len, &used, "%s%s %d", used ? "; " : "", h->watch ? "Watchpoint" : "Breakpoint",
               h->number);
        for (size_t j = i + 1; j < b->n_hits; j++)
            if (says_the_same(&b->hits[j], h))
                append(msg, len, &used, ", %d", b->hits[j].number);
        append(msg, len, &used, ", %s", h->text);
    }
}

/* bp joins the hits of the stop being made (the first hit of a step begins
 * a new one), in number order: watchpoints of memory are checked after the
 * action's events.  A breakpoint hit twice in one action keeps its first text. */
static void add_hit(struct breakpoints *b, const struct breakpoint *bp, const char *text)
{
    if (!b->s || !session_stop_requested(b->s))
        b->n_hits = 0;
    size_t at = 0;
    while (at < b->n_hits && b->hits[at].number < bp->number)
        at++;
    if (at < b->n_hits && b->hits[at].number == bp->number)
        return;
    struct stop_hit *v = grow_for_one(b->hits, b->n_hits, &b->cap_hits, 4, sizeof *v);
    if (!v)
        return; /* the stop is made all the same; this one goes unnamed */
    b->hits = v;
    memmove(&v[at + 1], &v[at], (b->n_hits - at) * sizeof *v);
    v[at].number = bp->number;
    v[at].watch = bp->kind == BP_WATCH_REG || bp->kind == BP_WATCH_MEM;
    snprintf(v[at].text, sizeof v[at].text, "%s", text);
    b->n_hits++;
}

static void stop(struct breakpoints *b, struct breakpoint *bp, const char *text)
{
    char msg[512];
    add_hit(b, bp, text);
    stop_message(b, msg, sizeof msg);
    if (b->s)
        session_request_stop(b->s, SESSION_BREAK, msg);
    if (bp->temporary)
        bp->enabled = false; /* deleted after the action, outside the listener */
}

/* An event reached bp (kind and condition hold): counted, ignored or stopped at. */
static void reached(struct breakpoints *b, struct breakpoint *bp, const char *text)
{
    bp->hits++;
    if (bp->ignore) {
        bp->ignore--;
        return;
    }
    stop(b, bp, text);
}

static void consider_event(struct breakpoints *b, struct breakpoint *bp, const struct dla_event *ev)
{
    char text[400];
    if (!bp->enabled || bp->kind == BP_WATCH_MEM)
        return;
    if (!matches(b, bp, ev, text, sizeof text) || b->suspended)
        return;
    if (condition_holds(b, bp, ev, text, sizeof text))
        reached(b, bp, text);
}

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct breakpoints *b = ctx;
    if (b->has_location)
        consider_event(b, &b->location, ev);
    for (size_t i = 0; i < b->n; i++)
        consider_event(b, &b->bp[i], ev);
}

static void consider_failed(struct breakpoints *b, struct breakpoint *bp, enum bp_kind kind,
                            const struct dla_event *ev, const char *text)
{
    char msg[400];
    if (!bp->enabled || bp->kind != kind || b->suspended)
        return;
    snprintf(msg, sizeof msg, "%s", text);
    if (condition_holds(b, bp, ev, msg, sizeof msg))
        reached(b, bp, msg);
}

void bps_check_failed(struct breakpoints *b, enum bp_kind kind, int32_t layer, const char *text)
{
    /* no group: a condition reads D_ registers of the producer group */
    struct dla_event ev = {.kind = DLA_EV_DIAG, .layer = layer};
    if (b->has_location)
        consider_failed(b, &b->location, kind, &ev, text);
    for (size_t i = 0; i < b->n; i++)
        consider_failed(b, &b->bp[i], kind, &ev, text);
}

/* ---------------------------------------------------------------- memory watches */

static enum mem_status read_range(struct breakpoints *b, const struct breakpoint *bp, uint8_t *buf)
{
    return dla_mem_read(b->d, (enum dla_space)bp->space, bp->mem_addr, buf, bp->mem_len);
}

static void check_memory(struct breakpoints *b, struct breakpoint *bp)
{
    uint8_t *now = malloc(bp->mem_len);
    if (!now || read_range(b, bp, now) != MEM_OK) {
        free(now);
        return;
    }
    size_t i = 0;
    while (i < bp->mem_len && now[i] == bp->shadow[i])
        i++;
    if (i < bp->mem_len && !b->suspended) {
        char text[256];
        snprintf(text, sizeof text, "%s 0x%llx+%llu changed: first at 0x%llx: 0x%02x -> 0x%02x",
                 dla_space_name((enum dla_space)bp->space), (unsigned long long)bp->mem_addr,
                 (unsigned long long)bp->mem_len, (unsigned long long)(bp->mem_addr + i),
                 bp->shadow[i], now[i]);
        reached(b, bp, text);
    }
    free(bp->shadow);
    bp->shadow = now;
}

void bps_after_execute(struct breakpoints *b)
{
    for (size_t i = 0; i < b->n;) {
        if (b->bp[i].temporary && !b->bp[i].enabled && b->bp[i].hits)
            bps_delete(b, b->bp[i].number);
        else
            i++;
    }
    if (!b->d)
        return;
    /* memory changes only when the hardware advances or the host writes */
    uint64_t events = b->s ? session_events(b->s) : 0;
    uint64_t host = dla_client_bytes(b->d, DLA_C_HOST);
    if (events == b->seen_events && host == b->seen_host)
        return;
    b->seen_events = events;
    b->seen_host = host;
    for (size_t i = 0; i < b->n; i++)
        if (b->bp[i].kind == BP_WATCH_MEM && b->bp[i].enabled && b->bp[i].shadow)
            check_memory(b, &b->bp[i]);
}

/* ---------------------------------------------------------------- management */

static void resync_one(struct breakpoints *b, struct breakpoint *bp)
{
    if (!b->d)
        return;
    if (bp->kind == BP_WATCH_REG) {
        const struct regdb_unit *u;
        const struct regdb_reg *r = regdb_reg_at(dla_regmap(b->d), bp->addr, &u);
        if (r)
            for (int g = 0; g < 2; g++)
                bp->last[g] = dla_reg_value(b->d, dla_unit_of(b->d, u), g, r->offset);
    } else if (bp->kind == BP_WATCH_MEM && bp->shadow) {
        if (read_range(b, bp, bp->shadow) != MEM_OK)
            memset(bp->shadow, 0, bp->mem_len);
    }
}

void bps_resync(struct breakpoints *b)
{
    for (size_t i = 0; i < b->n; i++)
        resync_one(b, &b->bp[i]);
    if (b->d) {
        b->seen_events = b->s ? session_events(b->s) : 0;
        b->seen_host = dla_client_bytes(b->d, DLA_C_HOST);
    }
}

void bps_attach(struct breakpoints *b, struct session *s)
{
    if (b->d && b->listener >= 0)
        dla_unlisten(b->d, b->listener);
    b->s = s;
    b->d = s ? session_dla(s) : NULL;
    b->listener = b->d ? dla_listen(b->d, on_event, b) : -1;
    bps_resync(b);
}

int bps_add(struct breakpoints *b, const struct breakpoint *tmpl, char *err, size_t errlen)
{
    if (tmpl->kind == BP_WATCH_MEM && (tmpl->mem_len == 0 || tmpl->mem_len > BP_MEM_MAX)) {
        snprintf(err, errlen, "watched memory must be 1 to %u bytes", BP_MEM_MAX);
        return -1;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        struct breakpoint *n = realloc(b->bp, cap * sizeof *n);
        if (!n) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        b->bp = n;
        b->cap = cap;
    }
    struct breakpoint *bp = &b->bp[b->n];
    *bp = *tmpl;
    bp->shadow = NULL;
    bp->hits = 0;
    if (bp->kind == BP_WATCH_MEM) {
        bp->shadow = calloc(1, bp->mem_len);
        if (!bp->shadow) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    bp->number = b->next_number++;
    b->n++;
    resync_one(b, bp);
    return bp->number;
}

bool bps_delete(struct breakpoints *b, int number)
{
    for (size_t i = 0; i < b->n; i++) {
        if (b->bp[i].number != number)
            continue;
        free(b->bp[i].shadow);
        memmove(&b->bp[i], &b->bp[i + 1], (b->n - i - 1) * sizeof *b->bp);
        b->n--;
        return true;
    }
    return false;
}

void bps_delete_all(struct breakpoints *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->bp[i].shadow);
    b->n = 0;
}

struct breakpoint *bps_find(struct breakpoints *b, int number)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->bp[i].number == number)
            return &b->bp[i];
    return NULL;
}

size_t bps_count(const struct breakpoints *b)
{
    return b->n;
}

int bps_last_number(const struct breakpoints *b)
{
    return b->next_number - 1;
}

struct breakpoint *bps_get(struct breakpoints *b, size_t i)
{
    return i < b->n ? &b->bp[i] : NULL;
}

/* cond parses (values do not matter) and fits a breakpoint, so that a typo
 * is reported when typed; false with err. */
static bool condition_fits(struct breakpoints *b, const char *cond, char *err, size_t errlen)
{
    struct expr_env env = {.dla = b->d, .group = -1};
    int64_t v;
    if (b->d && !expr_eval(cond, &env, &v, err, errlen))
        return false;
    if (strlen(cond) >= sizeof b->location.cond) {
        snprintf(err, errlen, "condition too long (at most %zu characters)",
                 sizeof b->location.cond - 1);
        return false;
    }
    return true;
}

bool bps_set_condition(struct breakpoints *b, int number, const char *cond, char *err,
                       size_t errlen)
{
    struct breakpoint *bp = bps_find(b, number);
    if (!bp) {
        snprintf(err, errlen, "no breakpoint number %d", number);
        return false;
    }
    if (cond && cond[0] && !condition_fits(b, cond, err, errlen))
        return false;
    snprintf(bp->cond, sizeof bp->cond, "%s", cond ? cond : "");
    return true;
}

bool bps_set_location(struct breakpoints *b, const struct breakpoint *tmpl, const char *cond,
                      char *err, size_t errlen)
{
    if (cond && cond[0] && !condition_fits(b, cond, err, errlen))
        return false;
    b->location = *tmpl;
    b->location.number = 0;
    b->location.enabled = true;
    b->location.temporary = false;
    b->location.ignore = b->location.hits = 0;
    b->location.shadow = NULL;
    snprintf(b->location.cond, sizeof b->location.cond, "%s", cond ? cond : "");
    b->has_location = true;
    return true;
}

void bps_clear_location(struct breakpoints *b)
{
    b->has_location = false;
}

void bps_suspend(struct breakpoints *b, bool suspended)
{
    b->suspended = suspended;
}

int *bps_stop_hits(const struct breakpoints *b, size_t *n)
{
    *n = 0;
    if (!b->s || !session_stop_requested(b->s) || !b->n_hits)
        return NULL; /* the last step stopped at no breakpoint */
    int *numbers = malloc(b->n_hits * sizeof *numbers);
    for (size_t i = 0; numbers && i < b->n_hits; i++)
        if (b->hits[i].number != 0) /* the location of "advance" is no breakpoint */
            numbers[(*n)++] = b->hits[i].number;
    if (!*n) {
        free(numbers);
        return NULL;
    }
    return numbers;
}
