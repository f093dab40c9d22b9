/* Breakpoints and watchpoints: model-event listeners that ask the session to
 * stop after the current action.
 *
 *   layer N [when]        a hardware layer (index N) is programmed (default),
 *                         enabled, started or done
 *   unit PROC [when]      a layer of conv|sdp|pdp|cdp|rubik|bdma ...
 *   reg NAME [OP VALUE]   a CSB write to a register (any group), optionally a
 *                         field, and a comparison of the written value
 *   intr NAME             a GLB interrupt status bit is raised
 *   lut overflow|underflow  a layer's LUT statistics show out-of-range inputs
 *   rule [ID]             a programming-guide rule violation (DLA_DIAG_RULE)
 *   diag [KIND]           any model diagnostic, or one kind
 *   watch reg NAME        the stored value of a register changes
 *   watch mem ADDR LEN    bytes of memory change (checked after each action)
 *   mismatch              a layer departs from its reference ("compare"),
 *                         reported by the comparison through bps_check_failed
 *
 * Each has a number, an enabled flag, an ignore count, a hit count and an
 * optional condition (an expression, expr.h) evaluated when it matches. */
#ifndef DLADBG_BREAKPOINTS_H
#define DLADBG_BREAKPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"

enum bp_kind {
    BP_LAYER,
    BP_UNIT,
    BP_REG,
    BP_INTR,
    BP_LUT,
    BP_RULE,
    BP_DIAG,
    BP_WATCH_REG,
    BP_WATCH_MEM,
    BP_MISMATCH,
};

/* The layer event a layer/unit breakpoint stops at. */
enum bp_when { BP_PROGRAMMED, BP_ENABLED, BP_STARTED, BP_DONE };

enum bp_cmp { BP_ANY, BP_EQ, BP_NE };

#define BP_MEM_MAX (1u << 20) /* largest watched memory range */

struct breakpoint {
    int number;
    uint8_t kind; /* enum bp_kind */
    bool enabled;
    bool temporary;  /* deleted after its first stop (tbreak) */
    uint64_t ignore; /* matches still to ignore */
    uint64_t hits;

    uint32_t layer;                  /* BP_LAYER */
    uint8_t proc;                    /* BP_UNIT: enum dla_proc */
    uint8_t when;                    /* BP_LAYER, BP_UNIT: enum bp_when */
    uint32_t addr;                   /* BP_REG, BP_WATCH_REG: CSB byte address */
    const struct regdb_field *field; /* BP_REG: compare this field of the written value */
    uint8_t cmp;                     /* BP_REG: enum bp_cmp */
    uint32_t value;
    uint8_t intr_bit; /* BP_INTR */
    bool overflow;    /* BP_LUT: overflow (else underflow) */
    char pattern[64]; /* BP_RULE: rule id prefix; BP_DIAG: kind name; "" = any */
    uint8_t space;    /* BP_WATCH_MEM */
    uint64_t mem_addr, mem_len;
    uint8_t *shadow;  /* BP_WATCH_MEM: the bytes as last seen */
    uint32_t last[2]; /* BP_WATCH_REG: value per group as last seen */

    char cond[256]; /* "" = none */
    char what[160]; /* description for listings: "layer 1 programmed" */
    char spec[200]; /* the command that set it, its condition left out ("tbreak layer 3
                     * done"), for "save breakpoints" */
};

struct breakpoints;

struct breakpoints *bps_create(void);
void bps_destroy(struct breakpoints *b);

/* Follow a session (NULL: none).  Watchpoints re-read their values. */
void bps_attach(struct breakpoints *b, struct session *s);

/* Add a breakpoint described by tmpl (number, hits and shadow are set here).
 * Returns its number, or -1 with err. */
int bps_add(struct breakpoints *b, const struct breakpoint *tmpl, char *err, size_t errlen);
bool bps_delete(struct breakpoints *b, int number);
void bps_delete_all(struct breakpoints *b);
struct breakpoint *bps_find(struct breakpoints *b, int number);
size_t bps_count(const struct breakpoints *b);
/* The number the last breakpoint set was given (gdb's $bpnum), deleted or
 * not; 0 before the first. */
int bps_last_number(const struct breakpoints *b);
struct breakpoint *bps_get(struct breakpoints *b, size_t i);

/* Set or clear (cond NULL or "") a condition; false with err when it does not parse. */
bool bps_set_condition(struct breakpoints *b, int number, const char *cond, char *err,
                       size_t errlen);

/* The location "advance" and "until" run to: matched as a breakpoint of
 * tmpl's kind (a breakpoint, as tbreak takes it; no watchpoint), with its
 * optional condition, but numbered 0, listed nowhere and never among
 * bps_stop_hits; a stop there alone says its event ("layer 3 (CONV, group
 * 1) done"), beside breakpoints it leaves them the line.  One at a time,
 * until bps_clear_location.  false with err when cond does not parse. */
bool bps_set_location(struct breakpoints *b, const struct breakpoint *tmpl, const char *cond,
                      char *err, size_t errlen);
void bps_clear_location(struct breakpoints *b);

/* While suspended nothing stops (replaying forward for "back"). */
void bps_suspend(struct breakpoints *b, bool suspended);

/* Check memory watchpoints (the session's after_execute hook calls this). */
void bps_after_execute(struct breakpoints *b);

/* A check that is no model event failed: a layer departed from its
 * reference (kind BP_MISMATCH, src/compare/compare.c).  Breakpoints of that
 * kind stop with text ("layer 3 (SDP) departs from ..."), their conditions,
 * ignore counts and suspension honoured; layer is the hardware layer
 * concerned, -1 for none. */
void bps_check_failed(struct breakpoints *b, enum bp_kind kind, int32_t layer, const char *text);

/* Re-read watched values (after a jump in time: back, restart). */
void bps_resync(struct breakpoints *b);

/* The breakpoints that caused the last stop (every one hit by the action
 * that stopped, as gdb's stop chain holds them; the location of "advance"
 * is none), in number order: their numbers, *n of them, in an array of the
 * caller's to free.  NULL and *n 0 when the last step stopped at none (or
 * there was no memory for the copy).  A copy: the command lists that run
 * after the stop may stop again, making new hits. */
int *bps_stop_hits(const struct breakpoints *b, size_t *n);

/* Parse "programmed|enabled|started|done"; false when word is none of them. */
bool bps_parse_when(const char *word, enum bp_when *when);
const char *bps_when_name(enum bp_when w);

#endif
