/* The always-on event recorder: every model event (register reads and
 * writes, layers programmed/enabled/started/done, interrupts, DMA transfers,
 * CBUF allocation, LUT and perf records, diagnostics) kept as a small fixed
 * record in a bounded ring buffer.  When full, the oldest records are
 * overwritten; every record has a sequence number, so "what was dropped" is
 * always known.  Recording encodes a few words per event (some 16 bytes for
 * a register write; struct trace_rec, 56, is the unpacked form readers get):
 * cheap enough to leave on (make bench measures it).
 *
 * LUT and PERF records keep only the layer index: the complete figures live
 * in the model's layer records (dla_layer_get), which the exporters read. */
#ifndef DLADBG_TRACE_RING_H
#define DLADBG_TRACE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"

struct trace_rec {
    uint64_t seq;
    uint64_t cycle;
    int32_t layer;
    uint8_t kind;        /* enum dla_event_kind */
    uint8_t a, b, c;     /* reg: unit, group; layer: proc, group, unit; intr: bit, line;
                            dma: client, space, write; cbuf: first bank, banks, kind;
                            lut: unit; diag: kind, severity, unit */
    /* No kind has both: a record takes 56 bytes, not 72 (a ResNet's run
     * records some 10,000 events). */
    union {
        struct {
            uint32_t x, y, z; /* reg: addr, value, old; intr: status; diag: addr, message slot */
        };
        struct {
            uint64_t p, q, r, s; /* dma: addr, bytes, start, end; cbuf: q, bytes */
        };
    };
};

struct trace_ring;

/* capacity: records kept (0: default).  Memory grows as records arrive. */
struct trace_ring *trace_ring_create(size_t capacity);
void trace_ring_destroy(struct trace_ring *r);

/* Start/stop listening to a model (one model at a time). */
void trace_ring_attach(struct trace_ring *r, struct dla *d);
void trace_ring_detach(struct trace_ring *r);

/* Record one event (the listener; exposed for the benchmark and tests). */
void trace_ring_record(void *ring, const struct dla_event *ev);

size_t trace_ring_capacity(const struct trace_ring *r);
/* Memory the ring holds now (it grows with the records, up to the capacity). */
size_t trace_ring_bytes(const struct trace_ring *r);
/* Records held now, oldest first: index 0 .. count-1. */
size_t trace_ring_count(const struct trace_ring *r);
/* Record i, unpacked into *out (the ring keeps its records encoded);
 * false past the end. */
bool trace_ring_get(const struct trace_ring *r, size_t i, struct trace_rec *out);
/* The kind (enum dla_event_kind) of record i without unpacking the rest,
 * for walks that want a few kinds of many records; -1 past the end. */
int trace_ring_kind(const struct trace_ring *r, size_t i);
/* The first record at or after i whose kind (enum dla_event_kind) has its
 * bit set in kinds (bit k: kind k), or the count when none has: a walk
 * that wants one kind in seven steps over the others without a call for
 * each. */
size_t trace_ring_next_of(const struct trace_ring *r, size_t i, uint32_t kinds);
/* Sequence number the next record will get (= events recorded since clear). */
uint64_t trace_ring_next_seq(const struct trace_ring *r);
/* Records overwritten because the ring was full. */
uint64_t trace_ring_dropped(const struct trace_ring *r);

/* Forget records with seq >= seq (stepping back in time). */
void trace_ring_truncate(struct trace_ring *r, uint64_t seq);
void trace_ring_clear(struct trace_ring *r);

/* Text of a DIAG record's message and rule id ("" when overwritten). */
const char *trace_ring_diag_msg(const struct trace_ring *r, const struct trace_rec *rec);
const char *trace_ring_diag_rule(const struct trace_ring *r, const struct trace_rec *rec);

/* One line describing a record, e.g. "cycle 120 layer 1 write CDMA.D_MISC_CFG_0 = 0x00001100". */
void trace_ring_describe(const struct trace_ring *r, const struct trace_rec *rec,
                         const struct regdb_map *map, char *buf, size_t len);

#endif
