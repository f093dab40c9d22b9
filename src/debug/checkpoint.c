/* Checkpoints at layer boundaries and stepping back. */
#include "checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakpoints.h"
#include "core/mem.h"
#include "proglog.h"
#include "trace_ring.h"
#include "util/grow.h"

#define DEFAULT_MAX_STATES 24
/* Saved states also stay within a memory budget, a quarter of the network's
 * working set (simulated memory resident) but never under MIN_BUDGET: what a
 * state costs is what the run has overwritten since (memory pages, CBUF
 * banks, layer records) and the driver's copy of its own state, a few MB
 * each on a ResNet.  The floor is small because the whole process is to
 * stay within twice the working set and 4 MiB, most of which the program's
 * code takes (issue 34): a network whose quarter is under it runs in tens
 * of milliseconds, so replaying from a state further back costs little. */
#define MIN_BUDGET (256u << 10)
/* The start, the newest state and the one before it stay whatever they
 * cost. */
#define MIN_STATES 3
/* A boundary gets a state of its own only when replaying to it from the
 * previous state would cost more than taking one: when the run has
 * simulated STATE_CYCLES cycles or made STATE_WRITES register writes since.
 * A layer of a real network does either (each of ResNet's takes thousands
 * of cycles, LeNet's few take 350 to 1,900 between them), so there every
 * boundary or nearly is stored; a run of a million one-line BDMA layers
 * (132 cycles and 13 writes each) stores one boundary in 20 and replays at
 * most 19 tiny layers to step back, where a state at each made the states
 * themselves most of the run's time (issue 36). */
#define STATE_CYCLES 4096
#define STATE_WRITES 256
/* And further apart as the run grows, at least a RUN_SHARE-th of its cycles
 * or writes so far: a state costs the same at any point, so a long run
 * of tiny layers took one every twenty layers to the end (fifty thousand in a
 * million layers, thinned away again all but 24: a tenth of its time); so
 * it takes a few thousand, and a step back replays at most a 1024th of the
 * run (a thousand such layers, milliseconds).  A network's layers, fewer
 * than a thousand, each still get one. */
#define RUN_SHARE 1024

struct boundary {
    struct checkpoint_info info;
    uint64_t events, tasks;      /* with writes: identifies the exact point */
    struct session_state *state; /* NULL when thinned out */
    uint64_t ring_seq;
    size_t log_mark;
};

struct checkpoints {
    size_t max_states;
    uint64_t budget; /* bytes; 0: the default (see MIN_BUDGET) */
    size_t n, cap;
    struct boundary *b;
    /* the boundaries that hold a state, ascending: a layer's checkpoint
     * looks at these few, never at every boundary of the run (a scan of
     * all made a run of N layers cost N^2, issue 36) */
    size_t n_stored, cap_stored;
    size_t *stored;
    uint64_t work;  /* cps_work */
    uint64_t taken; /* cps_states_taken */
    uint64_t spacing_cycles, spacing_writes; /* see STATE_CYCLES; 0: a state at each boundary */
    uint64_t run_share;                      /* see RUN_SHARE; 0: no growth */
    struct session *s;
    struct trace_ring *ring;
    struct proglog *log;
    struct breakpoints *bps;
};

struct checkpoints *cps_create(size_t max_states)
{
    struct checkpoints *c = calloc(1, sizeof *c);
    if (c) {
        c->max_states = max_states ? max_states : DEFAULT_MAX_STATES;
        c->spacing_cycles = STATE_CYCLES;
        c->spacing_writes = STATE_WRITES;
        c->run_share = RUN_SHARE;
    }
    return c;
}

void cps_set_spacing(struct checkpoints *c, uint64_t cycles, uint64_t writes, uint64_t run_share)
{
    c->spacing_cycles = cycles;
    c->spacing_writes = writes;
    c->run_share = run_share;
}

void cps_clear(struct checkpoints *c)
{
    for (size_t i = 0; i < c->n; i++)
        session_state_free(c->b[i].state);
    c->n = 0;
    c->n_stored = 0;
}

void cps_destroy(struct checkpoints *c)
{
    if (!c)
        return;
    cps_clear(c);
    free(c->b);
    free(c->stored);
    free(c);
}

size_t cps_count(const struct checkpoints *c)
{
    return c->n;
}

size_t cps_stored(const struct checkpoints *c)
{
    return c->n_stored;
}

uint64_t cps_work(const struct checkpoints *c)
{
    return c->work;
}

uint64_t cps_states_taken(const struct checkpoints *c)
{
    return c->taken;
}

bool cps_get(const struct checkpoints *c, size_t i, struct checkpoint_info *info)
{
    if (i >= c->n)
        return false;
    *info = c->b[i].info;
    info->stored = c->b[i].state != NULL;
    return true;
}


/* The middle state whose loss costs least: the one whose neighbours are
 * closest together for its distance from the newest boundary.  Dropping by
 * that measure leaves states spaced roughly geometrically back from the end,
 * dense where "back" usually goes and sparse towards the start, so a few
 * states serve as well as many evenly spread ones (each holds the CBUF,
 * registers and the memory pages written since: megabytes on a large
 * network).  Its position in c->stored, 0 when there is no middle state. */
static size_t cheapest_middle(struct checkpoints *c)
{
    c->work += c->n_stored;
    size_t best = 0; /* stored[0] is boundary 0, which always has a state */
    double best_cost = 0;
    for (size_t k = 1; k + 1 < c->n_stored; k++) { /* the newest state is kept */
        size_t prev = c->stored[k - 1], i = c->stored[k], next = c->stored[k + 1];
        double cost = (double)(next - prev) / (double)(c->n - i);
        if (!best || cost < best_cost) {
            best = k;
            best_cost = cost;
        }
    }
    return best;
}

void cps_set_budget(struct checkpoints *c, uint64_t bytes)
{
    c->budget = bytes;
}

static uint64_t budget(const struct checkpoints *c)
{
    if (c->budget)
        return c->budget;
    struct dla *d = session_dla(c->s);
    uint64_t working_set = 0;
    for (int s = 0; s < DLA_SPACE_COUNT; s++)
        if (dla_memory(d, (enum dla_space)s))
            working_set += mem_resident_bytes(dla_memory(d, (enum dla_space)s));
    return working_set / 4 > MIN_BUDGET ? working_set / 4 : MIN_BUDGET;
}

uint64_t cps_bytes(const struct checkpoints *c)
{
    uint64_t n = 0;
    for (size_t k = 0; k < c->n_stored; k++)
        n += session_state_bytes(c->b[c->stored[k]].state, c->s);
    return n;
}

static bool over_limits(struct checkpoints *c, size_t stored)
{
    c->work += c->n_stored; /* cps_bytes looks at each */
    if (stored > c->max_states)
        return true;
    return stored > MIN_STATES && cps_bytes(c) > budget(c);
}

/* Keep memory bounded: drop saved states between the first and the last;
 * those boundaries stay reachable by replaying. */
static void thin_out(struct checkpoints *c)
{
    while (c->n_stored > 2 && over_limits(c, c->n_stored)) {
        size_t k = cheapest_middle(c);
        if (!k)
            break;
        session_state_free(c->b[c->stored[k]].state);
        c->b[c->stored[k]].state = NULL;
        memmove(&c->stored[k], &c->stored[k + 1], (c->n_stored - k - 1) * sizeof *c->stored);
        c->n_stored--;
    }
}

static bool at_point(const struct boundary *b, struct session *s)
{
    return b->info.writes == session_writes(s) && b->events == session_events(s) &&
           b->tasks == session_tasks_done(s) && b->info.layers == session_layers_done(s);
}

static bool remember_stored(struct checkpoints *c, size_t i)
{
    size_t *more = grow_for_one(c->stored, c->n_stored, &c->cap_stored, 32, sizeof *more);
    if (!more)
        return false;
    c->stored = more;
    c->stored[c->n_stored++] = i;
    return true;
}

/* The spacing of states at a point of the run that has come so far:
 * base, or a share of the run when that is more (see RUN_SHARE). */
static uint64_t grown(uint64_t base, uint64_t so_far, uint64_t run_share)
{
    uint64_t share = run_share ? so_far / run_share : 0;
    return share > base ? share : base;
}

/* Whether the boundary being taken deserves a state (see STATE_CYCLES):
 * the start always does, the others when replaying to them from the
 * newest state would cost more than a state. */
static bool worth_a_state(const struct checkpoints *c, const struct boundary *b)
{
    if (!c->n_stored)
        return true;
    const struct boundary *last = &c->b[c->stored[c->n_stored - 1]];
    if (!c->spacing_cycles || !c->spacing_writes)
        return true;
    return b->info.cycle - last->info.cycle >=
               grown(c->spacing_cycles, b->info.cycle, c->run_share) ||
           b->info.writes - last->info.writes >=
               grown(c->spacing_writes, b->info.writes, c->run_share);
}

static void take(struct checkpoints *c)
{
    struct boundary *more = grow_for_one(c->b, c->n, &c->cap, 64, sizeof *more);
    if (!more)
        return; /* stepping back that far will not be possible; running goes on */
    c->b = more;
    struct session *s = c->s;
    struct boundary *b = &c->b[c->n];
    memset(b, 0, sizeof *b);
    b->info.layers = session_layers_done(s);
    b->info.cycle = dla_now(session_dla(s));
    b->info.writes = session_writes(s);
    b->events = session_events(s);
    b->tasks = session_tasks_done(s);
    if (worth_a_state(c, b)) {
        b->state = session_save(s);
        c->taken++;
    }
    b->ring_seq = c->ring ? trace_ring_next_seq(c->ring) : 0;
    b->log_mark = c->log ? proglog_mark(c->log) : 0;
    if (!b->state && c->n == 0)
        return; /* without the start state nothing can be replayed */
    if (b->state && !remember_stored(c, c->n)) {
        session_state_free(b->state);
        b->state = NULL;
        if (c->n == 0)
            return;
    }
    c->n++;
    if (b->state)
        thin_out(c); /* nothing to thin when nothing was added */
}

void cps_attach(struct checkpoints *c, struct session *s, struct trace_ring *ring,
                struct proglog *log, struct breakpoints *bps)
{
    cps_clear(c);
    c->s = s;
    c->ring = ring;
    c->log = log;
    c->bps = bps;
    if (s)
        take(c);
}

void cps_after_execute(struct checkpoints *c)
{
    if (!c->s || !c->n)
        return;
    if (session_layers_done(c->s) > c->b[c->n - 1].info.layers)
        take(c);
}

static void load(struct checkpoints *c, size_t i)
{
    struct boundary *b = &c->b[i];
    session_load(c->s, b->state);
    if (c->ring)
        trace_ring_truncate(c->ring, b->ring_seq);
    if (c->log)
        proglog_truncate(c->log, b->log_mark);
}

/* Index of the boundary to go back to, or -1. */
static long target_index(struct checkpoints *c, uint64_t n)
{
    if (!c->n || n == 0)
        return -1;
    size_t last = c->n - 1;
    /* from inside a layer the first step back goes to its start */
    uint64_t k = at_point(&c->b[last], c->s) ? n : n - 1;
    return k > last ? -1 : (long)(last - k);
}

/* A replay passes the points the run stopped at: the breakpoints must not
 * stop it there, and count from where it lands afterwards. */
static void suspend_breakpoints(struct checkpoints *c, bool suspend)
{
    if (!c->bps)
        return;
    bps_suspend(c->bps, suspend);
    if (!suspend)
        bps_resync(c->bps);
}

/* Restore boundary t: the nearest saved state at or before it, replayed
 * forward layer by layer with the breakpoints suspended. */
static bool back_to_boundary(struct checkpoints *c, size_t t, char *err, size_t errlen)
{
    size_t from = t;
    while (!c->b[from].state)
        from--; /* boundary 0 always has a state */
    struct boundary want = c->b[t];
    /* the boundaries after the state replayed from belong to a future that
     * may now differ (pokes): the replay makes them again as the run made
     * them, states included, so that states lie close behind the target
     * (after a far step back a long run kept none there, and each further
     * step replayed from far away) */
    for (size_t i = from + 1; i < c->n; i++)
        session_state_free(c->b[i].state);
    c->n = from + 1;
    while (c->n_stored && c->stored[c->n_stored - 1] >= c->n)
        c->n_stored--;
    load(c, from);
    suspend_breakpoints(c, true);
    bool ok = true;
    while (session_layers_done(c->s) < want.info.layers) {
        enum session_stop r = session_step(c->s, SESSION_LAYER, 1);
        if (r != SESSION_STEPPED) {
            ok = false;
            break;
        }
    }
    suspend_breakpoints(c, false);
    if (!ok || !at_point(&want, c->s) || c->n != t + 1) {
        snprintf(err, errlen, "replaying to layer boundary %llu did not reproduce the run",
                 (unsigned long long)want.info.layers);
        return false;
    }
    return true;
}

bool cps_back(struct checkpoints *c, uint64_t n, char *err, size_t errlen)
{
    if (!c->s || !c->n) {
        snprintf(err, errlen, "no checkpoints (nothing has run)");
        return false;
    }
    long t = target_index(c, n);
    if (t < 0) {
        snprintf(err, errlen, "cannot go back %llu layer boundar%s: %zu recorded%s",
                 (unsigned long long)n, n == 1 ? "y" : "ies", c->n,
                 c->n == 1 ? " (only the start)" : "");
        return false;
    }
    return back_to_boundary(c, (size_t)t, err, errlen);
}

bool cps_back_writes(struct checkpoints *c, uint64_t n, char *err, size_t errlen)
{
    if (!c->s || !c->n) {
        snprintf(err, errlen, "no checkpoints (nothing has run)");
        return false;
    }
    uint64_t now = session_writes(c->s), first = c->b[0].info.writes;
    if (n == 0 || n > now - first) {
        snprintf(err, errlen, "cannot go back %llu register write%s: the run has made %llu",
                 (unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)(now - first));
        return false;
    }
    uint64_t target = now - n;
    /* the last boundary before the target write: a boundary that made it
     * lies after it (events follow the write), and "right after write k" is
     * where stepping writes from an earlier point stops */
    size_t t = c->n - 1;
    while (t > 0 && c->b[t].info.writes >= target)
        t--;
    if (!back_to_boundary(c, t, err, errlen))
        return false;
    if (session_writes(c->s) == target)
        return true; /* the start of the run */
    suspend_breakpoints(c, true);
    enum session_stop r = session_step(c->s, SESSION_WRITE, target - session_writes(c->s));
    suspend_breakpoints(c, false);
    if (r != SESSION_STEPPED || session_writes(c->s) != target) {
        snprintf(err, errlen, "replaying to register write %llu did not reproduce the run",
                 (unsigned long long)target);
        return false;
    }
    return true;
}
