/* The NVDLA system model: register file and CSB bus, memories, interrupts,
 * units, timing and performance counters, and the event hooks that the
 * debugger listens to.  No UI and no debugger knowledge lives here.
 *
 * Time: one global cycle count, advanced by a discrete-event scheduler.
 * CSB accesses happen "now"; dla_advance() runs the scheduler to the next
 * hardware event (a unit finishing, an interrupt).  Every cycle figure the
 * model produces is model-derived (see share/timing-model.md).
 *
 * A hardware layer is one operation of one processor (BDMA, CONV, SDP, PDP,
 * CDP, RUBIK) on one register group, from the first register write that
 * programs the group to the completion interrupt.
 */
#ifndef DLA_DLA_H
#define DLA_DLA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "mem.h"
#include "regdb.h"

/* Register blocks, in the order of the nv_full address map. */
enum dla_unit {
    DLA_U_GLB,
    DLA_U_GEC,
    DLA_U_MCIF,
    DLA_U_CVIF,
    DLA_U_BDMA,
    DLA_U_CDMA,
    DLA_U_CSC,
    DLA_U_CMAC_A,
    DLA_U_CMAC_B,
    DLA_U_CACC,
    DLA_U_SDP_RDMA,
    DLA_U_SDP,
    DLA_U_PDP_RDMA,
    DLA_U_PDP,
    DLA_U_CDP_RDMA,
    DLA_U_CDP,
    DLA_U_RBK,
    DLA_U_CFGROM,
    DLA_U_COUNT,
    DLA_U_NONE = 0xff,
};

/* Processors, numbered as the firmware's op types (DLA_OP_*). */
enum dla_proc {
    DLA_P_BDMA,
    DLA_P_CONV,
    DLA_P_SDP,
    DLA_P_PDP,
    DLA_P_CDP,
    DLA_P_RUBIK,
    DLA_P_COUNT,
    DLA_P_NONE = 0xff,
};

enum dla_space { DLA_DRAM, DLA_CVSRAM, DLA_SPACE_COUNT };

/* DMA clients: who read or wrote what. */
enum dla_client {
    DLA_C_HOST, /* loader, trace load_mem, debugger pokes */
    DLA_C_BDMA_RD,
    DLA_C_BDMA_WR,
    DLA_C_CDMA_DAT,
    DLA_C_CDMA_WT,
    DLA_C_SDP_MRDMA,
    DLA_C_SDP_BRDMA,
    DLA_C_SDP_NRDMA,
    DLA_C_SDP_ERDMA,
    DLA_C_SDP_WDMA,
    DLA_C_PDP_RDMA,
    DLA_C_PDP_WDMA,
    DLA_C_CDP_RDMA,
    DLA_C_CDP_WDMA,
    DLA_C_RBK_RDMA,
    DLA_C_RBK_WDMA,
    DLA_C_COUNT,
};

enum dla_layer_state {
    DLA_LAYER_PROGRAMMING, /* registers of the group are being written */
    DLA_LAYER_ENABLED,     /* some OP_EN set, waiting for the rest of its pipeline */
    DLA_LAYER_RUNNING,
    DLA_LAYER_DONE,
};

enum dla_severity { DLA_SEV_INFO, DLA_SEV_WARNING, DLA_SEV_ERROR };

/* What a diagnostic is about. */
enum dla_diag_kind {
    DLA_DIAG_CSB_RESERVED,   /* access to 0x14000..0x3ffff or beyond the CSB space */
    DLA_DIAG_CSB_UNMAPPED,   /* no unit decodes this address in this configuration */
    DLA_DIAG_CSB_HOLE,       /* inside a unit window but not a register */
    DLA_DIAG_GROUP_BUSY,     /* write to a register group whose operation is enabled */
    DLA_DIAG_FEATURE_ABSENT, /* unit or feature not present in this configuration */
    DLA_DIAG_MEM,            /* DMA outside memory, or memory budget exhausted */
    DLA_DIAG_RULE,           /* programming-guide rule violated (rule checker) */
    DLA_DIAG_CBUF,           /* CBUF allocation problem */
    DLA_DIAG_UNSUPPORTED,    /* a mode the model does not implement */
    DLA_DIAG_HANG,           /* nothing can make progress */
};

#define DLA_LUT_HIST_BINS 32

/* LUT statistics of one layer (SDP and CDP publish these). */
struct dla_lut_stats {
    uint64_t lookups;   /* values looked up */
    uint64_t le_hit;    /* hits in the LE (linear/exponential) table */
    uint64_t lo_hit;    /* hits in the LO (linear only) table */
    uint64_t underflow; /* below both tables */
    uint64_t overflow;  /* above both tables */
    uint64_t hybrid;    /* hit in both tables: priority decided */
    /* each table's own under/overflows (whichever the priorities chose), so
     * that a table's hits + underflows + overflows are the lookups */
    uint64_t le_underflow, le_overflow, lo_underflow, lo_overflow;
    /* input histogram across [min start, max end] of the two tables; below
     * and above are the samples that under/overflow both tables */
    uint64_t hist[DLA_LUT_HIST_BINS];
    uint64_t hist_below, hist_above;
};

#define DLA_MAX_COUNTERS 12
#define DLA_LAYER_CLIENTS 6

struct dla_counter {
    const char *name; /* static string, e.g. "CDMA.D_PERF_DAT_READ_STALL" */
    uint64_t value;
};

/* One hardware layer.  All cycle figures are model-derived.  A run of a
 * million layers keeps a million records (issue 36): the small fields come
 * first, packed, and counters, LUT statistics and the description live out
 * of the record, as many as the layer has. */
struct dla_layer {
    uint32_t index;
    uint8_t proc;      /* enum dla_proc */
    uint8_t group;     /* 0/1; 0xff while a BDMA group is still being queued */
    uint8_t state;     /* enum dla_layer_state */
    uint8_t n_clients; /* of client[] below */
    int32_t fed_by;    /* layer that feeds this one on the fly (CONV->SDP, SDP->PDP), or -1 */
    uint32_t reg_writes;
    /* The DMA clients the layer used (its unit's own: SDP's five at most),
     * with their bytes and transactions below: dla_layer_client_bytes() and
     * dla_layer_client_transactions() read them by client. */
    uint8_t client[DLA_LAYER_CLIENTS];
    uint8_t n_counters; /* of counters, at most DLA_MAX_COUNTERS */
    uint64_t program_cycle, enable_cycle, start_cycle, end_cycle;
    uint64_t macs;           /* multiply-accumulates (conv), element operations (others) */
    uint64_t compute_cycles; /* cycles the datapath needs at full throughput */
    uint64_t stall_cycles;   /* cycles waiting for memory */
    uint64_t client_bytes[DLA_LAYER_CLIENTS];
    uint64_t client_transactions[DLA_LAYER_CLIENTS];
    uint64_t bytes_read, bytes_written;
    /* of bytes_read + bytes_written, those to and from CV-SRAM (on-chip);
     * the rest are DRAM's, what memory bandwidth is tuned for */
    uint64_t bytes_cvsram;
    const struct dla_counter *counters; /* NULL when none */
    /* NULL unless the layer looked values up (SDP, CDP) */
    const struct dla_lut_stats *lut;
    /* "conv direct int16 8x8x128 -> 8x8x32 k3x3 s1" ("" until the layer
     * ran); a layer described as the one before it shares its text */
    const char *desc;
};

enum dla_event_kind {
    DLA_EV_REG_WRITE,
    DLA_EV_REG_READ,
    DLA_EV_LAYER_PROGRAM, /* a hardware layer begins (first write to its group) */
    DLA_EV_LAYER_ENABLE,  /* D_OP_ENABLE (or BDMA launch) written for one unit of the layer */
    DLA_EV_LAYER_START,   /* the pipeline has every unit it needs and starts */
    DLA_EV_LAYER_DONE,    /* the layer completed (its interrupt follows) */
    DLA_EV_INTR,          /* a GLB interrupt status bit was set */
    DLA_EV_DMA,           /* one DMA transfer of a layer */
    DLA_EV_CBUF,          /* CBUF banks written for a layer */
    DLA_EV_LUT,           /* LUT statistics of a completed layer */
    DLA_EV_PERF,          /* performance counters of a completed layer */
    DLA_EV_DIAG,          /* diagnostic (bad access, rule violation, hang, ...) */
    DLA_EV_KIND_COUNT,
};

struct dla_event {
    uint8_t kind; /* enum dla_event_kind */
    uint64_t cycle;
    int32_t layer; /* hardware layer index, or -1 */
    union {
        struct {
            uint32_t addr;  /* CSB byte address */
            uint32_t value; /* written value, or value returned by a read */
            uint32_t old;   /* register value before a write */
            uint8_t unit;   /* enum dla_unit, DLA_U_NONE when unmapped */
            uint8_t group;  /* register group a D_ register went to, 0xff for S_ registers */
        } reg;
        struct {
            uint8_t proc, group;
            uint8_t unit; /* the unit whose OP_EN was written (ENABLE) */
        } layer;
        struct {
            uint8_t bit;     /* GLB S_INTR_STATUS bit */
            uint32_t status; /* status after setting */
            bool line;       /* interrupt line (status & ~mask) != 0 */
        } intr;
        struct {
            uint8_t client, space;
            bool write;
            uint64_t addr, bytes;
            uint64_t start, end; /* model-derived cycles of the transfer */
        } dma;
        struct {
            uint8_t first_bank, n_banks;
            uint8_t kind; /* 0 data, 1 weight, 2 WMB */
            uint64_t bytes;
        } cbuf;
        struct {
            uint8_t unit;
            const struct dla_lut_stats *stats;
        } lut;
        struct {
            const struct dla_layer *layer;
        } perf;
        struct {
            uint8_t kind;     /* enum dla_diag_kind */
            uint8_t severity; /* enum dla_severity */
            uint8_t unit;     /* enum dla_unit or DLA_U_NONE */
            uint32_t addr;    /* CSB or memory address when relevant */
            const char *rule; /* rule id for DLA_DIAG_RULE, else NULL */
            const char *msg;
        } diag;
    } u;
};

typedef void (*dla_listener_fn)(void *ctx, const struct dla_event *ev);

struct dla;

struct dla_options {
    uint64_t mem_budget; /* maximum resident bytes per memory space; 0 = default (4 GiB) */
    /* Most work one layer may ask of the model, in int8-MAC equivalents (units
     * weight costlier operations); 0 = default (2^36, seconds of simulation).
     * Hostile register values must not make a run take hours. */
    uint64_t work_budget;
    /* Most host memory one pipeline may hold while it computes: its units'
     * int32 cubes and its held writes together, in bytes; 0 = default
     * (2 GiB).  A tiny loadable can declare a surface of gigabytes. */
    uint64_t working_budget;
};

/* ---------------------------------------------------------------- lifecycle */
struct dla *dla_create(const struct dla_config *cfg, const struct dla_options *opt);
void dla_destroy(struct dla *d);
/* Power-on reset: registers to reset values, memories cleared, time 0, layers forgotten. */
void dla_reset(struct dla *d);

const struct dla_config *dla_cfg(const struct dla *d);
const struct regdb_map *dla_regmap(const struct dla *d);

/* ---------------------------------------------------------------- listeners */
/* Listeners are called synchronously, in registration order.  They must not
 * call back into CSB or scheduler functions. */
int dla_listen(struct dla *d, dla_listener_fn fn, void *ctx);
void dla_unlisten(struct dla *d, int handle);

/* ---------------------------------------------------------------- CSB */
/* 32-bit CSB accesses by byte address (unit base + offset).  Bad addresses
 * produce a DLA_EV_DIAG and are otherwise ignored (reads return 0). */
void dla_csb_write(struct dla *d, uint32_t addr, uint32_t value);
uint32_t dla_csb_read(struct dla *d, uint32_t addr);
/* Read without side effects and without events (debugger views). */
uint32_t dla_csb_peek(struct dla *d, uint32_t addr);

/* ---------------------------------------------------------------- time */
uint64_t dla_now(const struct dla *d);
/* True while an operation is in flight (the post-reset CBUF flush, also a
 * scheduled event, does not count). */
bool dla_busy(const struct dla *d);
/* Run the scheduler to the next hardware event and process it (events of
 * the same cycle are processed one call at a time, in the order they were
 * scheduled).  Returns false when nothing is scheduled. */
bool dla_advance(struct dla *d);
/* Cycle of the next scheduled hardware event (UINT64_MAX when idle). */
uint64_t dla_next_event_cycle(const struct dla *d);
/* Whether a unit's cycle figures are calibrated against NVIDIA's RTL
 * (tests/calibration: nv_full BDMA and PDP) or estimated. */
bool dla_cycles_calibrated(const struct dla_config *cfg, enum dla_proc p);
/* Whether a whole run's cycles (first launch to last interrupt) are
 * calibrated against NVIDIA's RTL (tests/calibration/rtl_networks.tsv:
 * nv_small) or estimated. */
bool dla_network_calibrated(const struct dla_config *cfg);
/* Let time pass with nothing else happening (CPU work, polling). */
void dla_idle(struct dla *d, uint64_t cycles);
/* Let pass the time the CSB accesses since the last call took (config
 * csb_write_cycles / csb_read_cycles each; peeks are free).  Accesses
 * themselves happen "now"; the driver loop settles between actions. */
void dla_csb_settle(struct dla *d);

/* ---------------------------------------------------------------- interrupts */
uint32_t dla_intr_status(const struct dla *d);
uint32_t dla_intr_mask(const struct dla *d);
/* The DLA interrupt line: status & ~mask != 0. */
bool dla_intr_line(const struct dla *d);
/* GLB status bit of a processor group (CONV: the CACC done bit). */
unsigned dla_intr_bit(enum dla_proc p, int group);
/* Name of a GLB status bit, e.g. "SDP_DONE_STATUS0"; NULL for an unused bit. */
const char *dla_intr_bit_name(unsigned bit);

/* ---------------------------------------------------------------- memory */
struct dla_mem *dla_memory(struct dla *d, enum dla_space s);
/* Host-side access (loaders, traces, debugger): counted as DLA_C_HOST, no layer. */
enum mem_status dla_mem_write(struct dla *d, enum dla_space s, uint64_t addr, const void *buf,
                              size_t len);
enum mem_status dla_mem_read(struct dla *d, enum dla_space s, uint64_t addr, void *buf, size_t len);
/* A host write of the bytes src holds at [addr, addr + len) (a memory image
 * kept from an earlier load), counted as dla_mem_write counts it; whole pages
 * are shared with src rather than copied (mem_copy_from). */
enum mem_status dla_mem_write_from(struct dla *d, enum dla_space s, const struct dla_mem *src,
                                   uint64_t addr, uint64_t len);
/* Cumulative bytes and transactions per client over the whole run. */
uint64_t dla_client_bytes(const struct dla *d, enum dla_client c);
uint64_t dla_client_transactions(const struct dla *d, enum dla_client c);
/* Of dla_client_bytes, those to and from CV-SRAM (on-chip); the rest are
 * DRAM's, what memory bandwidth is tuned for. */
uint64_t dla_client_cvsram_bytes(const struct dla *d, enum dla_client c);

/* ---------------------------------------------------------------- layers */
size_t dla_layer_count(const struct dla *d);
const struct dla_layer *dla_layer_get(const struct dla *d, size_t index);
/* The memory the layer records take: their tree and chunks whole, and each
 * record's share of the counters, LUT statistics and text it points to. */
size_t dla_layer_bytes(const struct dla *d);
/* What a layer's DMA moved for one client (0 when it used none). */
uint64_t dla_layer_client_bytes(const struct dla_layer *l, enum dla_client c);
uint64_t dla_layer_client_transactions(const struct dla_layer *l, enum dla_client c);
/* What a layer's DMA read from and wrote to DRAM (bytes_cvsram left out). */
uint64_t dla_layer_dram_bytes(const struct dla_layer *l);
/* The layer currently programmed/running on (proc, group), or NULL. */
const struct dla_layer *dla_layer_current(const struct dla *d, enum dla_proc p, int group);

/* ---------------------------------------------------------------- units */
/* Which register group CSB writes to D_ registers of a unit reach (S_POINTER.PRODUCER). */
int dla_producer_group(const struct dla *d, enum dla_unit u);
/* Which group the hardware runs next (S_POINTER.CONSUMER). */
int dla_consumer_group(const struct dla *d, enum dla_unit u);
bool dla_op_enabled(const struct dla *d, enum dla_unit u, int group);
const struct regdb_unit *dla_unit_db(const struct dla *d, enum dla_unit u);
/* Whether the configuration has the unit (nv_small: no BDMA, RUBIK, CVIF):
 * an absent unit's registers exist in the map but no CSB access reaches them. */
bool dla_unit_present(const struct dla *d, enum dla_unit u);
/* Unit of a regdb unit. */
enum dla_unit dla_unit_of(const struct dla *d, const struct regdb_unit *ru);
enum dla_proc dla_unit_proc(enum dla_unit u);
const char *dla_unit_name(enum dla_unit u);
const char *dla_proc_name(enum dla_proc p);
const char *dla_client_name(enum dla_client c);
const char *dla_space_name(enum dla_space s);
const char *dla_layer_state_name(enum dla_layer_state s);
const char *dla_diag_kind_name(enum dla_diag_kind k);
const char *dla_severity_name(enum dla_severity s);
/* Register value as stored for a group (no side effects; S_ registers ignore group). */
uint32_t dla_reg_value(const struct dla *d, enum dla_unit u, int group, uint16_t offset);

/* ---------------------------------------------------------------- units' views */
/* CBUF bank occupancy, for the debugger's bank map. */
struct dla_cbuf_bank {
    int32_t layer; /* layer whose data the bank holds, -1 when free */
    uint8_t kind;  /* 0 data, 1 weight, 2 WMB */
    uint64_t bytes_used;
    uint64_t reads, writes; /* entry accesses */
};
size_t dla_cbuf_banks(const struct dla *d, struct dla_cbuf_bank *out, size_t max);

/* LUT RAM contents, for the debugger's plot: copies up to max entries of the
 * LE (65 entries) or LO (257 entries) table of DLA_U_SDP or DLA_U_CDP, as
 * stored (16-bit two's complement).  Returns the entries copied; 0 for other
 * units. */
size_t dla_lut_table(const struct dla *d, enum dla_unit u, bool lo, int16_t *out, size_t max);

/* ---------------------------------------------------------------- rule checker */
/* The programming-guide rules the model checks (each unit's rows, numbered by
 * sim/core/rules.c). */
struct dla_rule_info {
    const char *id;      /* "cdma.weight_bytes", as diagnostics and "break rule" name it */
    enum dla_unit unit;  /* the unit whose registers the rule is about */
    const char *section; /* the guide's section: "Convolution pipeline programming" */
    const char *rule;    /* what the guide asks, in short */
};
size_t dla_rule_count(void);
const struct dla_rule_info *dla_rule_info(size_t i);
/* Row of a rule id, -1 when the model checks no such rule. */
long dla_rule_find(const char *id);
/* Violations of rule i found since power-on reset (follows checkpoints). */
uint64_t dla_rule_hits(const struct dla *d, size_t i);

/* The model's scratch arena (the per-layer working buffers it keeps from
 * one layer to the next): the bytes it holds, how many times a buffer was
 * allocated or grown since dla_create, and how many requests a kept buffer
 * served. */
uint64_t dla_scratch_bytes(const struct dla *d);
uint64_t dla_scratch_grows(const struct dla *d);
uint64_t dla_scratch_reuses(const struct dla *d);
/* Buffers of at least bytes are kept from one layer to the next, smaller
 * ones freed when the layer is done (UINT64_MAX: none kept); 128 KiB until
 * set.  The process's malloc policy says which blocks it would give back
 * to the kernel, the ones worth keeping. */
void dla_scratch_keep_from(struct dla *d, uint64_t bytes);

/* ---------------------------------------------------------------- checkpoints */
/* A complete, deterministic copy of the simulated state (registers,
 * memories, CBUF, LUTs, scheduler, layers).  Listeners are not part of it. */
struct dla_snapshot;
struct dla_snapshot *dla_snapshot_take(const struct dla *d);
void dla_snapshot_restore(struct dla *d, const struct dla_snapshot *s);
void dla_snapshot_free(struct dla_snapshot *s);
/* Bytes the snapshot holds of its own besides what it shares with the model
 * (memory pages, CBUF banks, layer records): the packed plain state. */
size_t dla_snapshot_bytes(const struct dla_snapshot *s);
/* The memory the snapshot holds besides the live model d's: its own bytes
 * and the memory pages, CBUF banks and layer records d has overwritten since
 * (each divided among the snapshots still sharing it, so that the sum over
 * all snapshots is what they hold together). */
size_t dla_snapshot_bytes_apart(const struct dla_snapshot *s, const struct dla *d);
/* For tests: the layer-tree slots that sharing, copying and comparing layer
 * records for snapshots have visited so far (linear in a run's layers). */
unsigned long long dla_layer_tree_work(void);
/* For tests: the searches by name the model's register reads of this thread
 * have made, those its cache of names did not answer. */
unsigned long long dla_name_searches(void);

#endif
