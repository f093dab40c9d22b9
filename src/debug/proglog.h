/* The programming log: what the run did to the hardware, in order, for
 * "export txn": every CSB write and read (driver, debugger pokes), every wait
 * for the hardware (with whether the interrupt line ended it), and every
 * change the host made to memory (loading inputs, CPU tasks), kept as
 * copy-on-write memory clones so a page costs memory only once it changes.
 * It also remembers which memory the hardware wrote (the outputs to dump),
 * and what each layer wrote as it completed: a check of those bytes enters
 * the log where the driver learnt of the completion (its read of
 * GLB.S_INTR_STATUS showing the interrupt the layer raised), or before the
 * host next changes memory, so a replay compares what the hardware wrote
 * before a host step or a later layer can touch it. */
#ifndef DLADBG_PROGLOG_H
#define DLADBG_PROGLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"

enum plog_kind {
    PLOG_WRITE, /* addr, value */
    PLOG_READ,  /* addr, value (returned) */
    PLOG_WAIT,  /* flag: the interrupt line was up at the end; value: hardware events; ok */
    PLOG_MEM,   /* host memory changed: pages [addr, addr+len) of space, contents in clone */
    PLOG_CHECK, /* what the hardware wrote at [mem_addr, +mem_len) of space: proglog_check_copy */
};

struct plog_entry {
    uint8_t kind;
    uint8_t space;
    bool intr; /* PLOG_WAIT: interrupt line asserted when it ended */
    bool ok;   /* PLOG_WAIT: its condition held */
    uint32_t addr, value;
    uint32_t clone; /* PLOG_MEM: index of the memory clone holding the bytes; PLOG_CHECK: of the
                       bytes */
    uint64_t mem_addr, mem_len;
    uint64_t events; /* hardware events the session had processed when recorded */
};

/* A range the hardware wrote. */
struct plog_range {
    uint8_t space;
    uint64_t addr, len;
};

struct proglog;

struct proglog *proglog_create(void);
void proglog_destroy(struct proglog *l);

/* Follow a session from its start (clears the log). */
void proglog_attach(struct proglog *l, struct session *s);

/* Session hooks. */
void proglog_fetched(struct proglog *l);
void proglog_wait_done(struct proglog *l, bool ok, uint64_t events);

size_t proglog_count(const struct proglog *l);
/* Entry i into *out (the log keeps its entries packed); false past the end. */
bool proglog_get(const struct proglog *l, size_t i, struct plog_entry *out);
/* The memory the log holds: its entries, and the bytes its checks keep
 * besides the live model's memory. */
size_t proglog_bytes(const struct proglog *l);
/* Read bytes of a PLOG_MEM entry. */
bool proglog_mem_read(const struct proglog *l, const struct plog_entry *e, uint64_t addr, void *buf,
                      size_t len);
/* The bytes a PLOG_CHECK entry (or an unchecked output) expects, in a
 * malloc'd copy the caller frees; NULL when there are none (or no memory). */
uint8_t *proglog_check_copy(const struct proglog *l, const struct plog_entry *e);

/* What the checks' bytes hold in memory besides the live model's memory
 * (they share its blocks until the run overwrites them), and the bytes the
 * checks cover. */
uint64_t proglog_check_bytes_apart(const struct proglog *l, uint64_t *covered);

/* Outputs of completed layers whose check has not entered the log yet (the
 * driver has not read the interrupt they raised): PLOG_CHECK entries for
 * the end of an export, their value the GLB interrupt bit raised with them
 * (32 or more: none), valid until the log next changes. */
size_t proglog_unchecked(const struct proglog *l, const struct plog_entry **out);

/* Ranges the hardware wrote (merged, sorted by space and address). */
size_t proglog_written(struct proglog *l, const struct plog_range **out);
/* Hardware events processed by the time of the last entry (0 when empty). */
uint64_t proglog_events_at_end(const struct proglog *l);
/* false when the log stopped recording (too long, out of memory). */
bool proglog_complete(const struct proglog *l, char *why, size_t len);

/* Cut back to an earlier length (stepping back); memory is re-synchronised. */
size_t proglog_mark(const struct proglog *l);
void proglog_truncate(struct proglog *l, size_t mark);

#endif
