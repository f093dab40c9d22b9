/* Internals shared by the files of sim/.  Not installed, not used outside sim/
 * (the debugger sees sim/core/dla.h only).
 *
 * State is kept as plain data wherever possible so that a checkpoint is a
 * copy: registers are arrays, the scheduler is an array of small records that
 * name pipelines by slot number, and the only owned buffers (memories,
 * pending writes, layers) have explicit clone functions in snapshot.c (CBUF,
 * owned by the CONV unit, is cloned through its unit table entry).
 */
#ifndef DLA_DLA_PRIV_H
#define DLA_DLA_PRIV_H

#include <stdarg.h>

#include "cube.h"
#include "dla.h"
#include "scratch.h"

/* Register storage per unit: the unit's window is 4 KiB, but no register of
 * either map lies past byte 0x19c (test_regdb checks every map against
 * this), and a smaller struct dla makes every checkpoint smaller. */
#define DLA_REG_WORDS         128
#define DLA_CSB_SPACE         0x40000u
#define DLA_CSB_RESERVED_FROM 0x14000u
#define DLA_MAX_LISTENERS     16
#define DLA_MAX_STAGES        3
#define DLA_MAX_PIPES         16
#define DLA_MAX_MILESTONES    8
#define DLA_BDMA_SLOTS        20

/* ---------------------------------------------------------------- units' plain state */
/* The core includes no unit's header: it reaches the units through the unit
 * table (unit_table.h, sim/units.c).  The two structs below are unit state
 * all the same, kept here only because struct dla embeds them, so that a
 * checkpoint copies them with the rest of the plain data; the core never
 * reads them (the units reset them from their hooks). */

/* ---------------------------------------------------------------- LUT RAM */
#define DLA_LUT_LE_ENTRIES 65
#define DLA_LUT_LO_ENTRIES 257

/* The LUT memory behind S_LUT_ACCESS_CFG / S_LUT_ACCESS_DATA (SDP and CDP
 * each have one, shared by both register groups; sim/lut/lut.h works it). */
struct dla_lut_ram {
    uint16_t le[DLA_LUT_LE_ENTRIES];
    uint16_t lo[DLA_LUT_LO_ENTRIES];
    uint16_t index;  /* next entry the access port reads or writes */
    uint8_t table;   /* 0 = LE, 1 = LO */
    bool write_mode; /* LUT_ACCESS_TYPE: write */
};

/* ---------------------------------------------------------------- BDMA */
struct dla_bdma_op {
    uint64_t src, dst;
    uint32_t line_bytes, line_repeat, surf_repeat;
    uint32_t src_line, dst_line, src_surf, dst_surf;
    uint8_t src_ram, dst_ram; /* RAM_TYPE field values: 0 CV-SRAM, 1 MC */
};

/* BDMA's staged and launched operations (sim/bdma/bdma.c). */
struct dla_bdma_state {
    uint8_t n_queued; /* operations staged by CFG_OP since the last launch */
    struct dla_bdma_op queued[DLA_BDMA_SLOTS];
    uint8_t n_ops[2]; /* operations of each launched group */
    struct dla_bdma_op ops[2][DLA_BDMA_SLOTS];
    bool grp_busy[2];
    int32_t programming_layer; /* BDMA layer being queued, -1 none */
    /* CFG_OP, CFG_LAUNCH0/1 and CFG_STATUS in the map, found at the first
     * write (each write asked by name: a tenth of a run of one-line layers) */
    const struct regdb_reg *cfg_op, *launch[2], *cfg_status;
};

/* ---------------------------------------------------------------- pipelines */
struct dla_stage {
    uint8_t proc;       /* enum dla_proc */
    uint8_t group;      /* the processor's register group */
    uint8_t rdma_group; /* the RDMA sub-unit's group (SDP/PDP/CDP), 0xff when not used */
    int32_t layer;
    uint64_t compute_cycles;
    /* A convolution's datapath waits for its input data (CSC starts once
     * CDMA has fetched the data cube), and the cycles of its last kernel
     * group wait for the last weights as well. */
    bool compute_waits_data;
    uint64_t last_group_cycles;
    uint64_t macs;
    uint64_t client_bytes[DLA_C_COUNT];
    uint64_t client_transactions[DLA_C_COUNT];
    uint64_t client_start[DLA_C_COUNT]; /* cycle the client's first transfer starts */
    uint64_t client_done[DLA_C_COUNT];  /* cycle the client's last transfer ends */
    uint64_t client_stall[DLA_C_COUNT];
    uint64_t space_bytes[DLA_SPACE_COUNT][2]; /* [space][write]: AXI's read and write channels */
    /* of the reads, those of the units' read DMA engines, which issue a
     * request every other cycle (TIMING_PACED_READ_CYCLES); BDMA's are not */
    uint64_t paced_read_bytes[DLA_SPACE_COUNT];
    uint64_t start, end;
    uint64_t stall_cycles;
    bool done;
};

struct dla_milestone {
    uint64_t at;
    uint8_t stage;
    uint8_t intr_bit; /* GLB status bit to set, 0xff none */
    bool completes;   /* the stage completes here */
};

/* A DMA write held back until the stage that produced it completes. */
struct dla_pending_write {
    uint8_t stage, space, client;
    uint64_t addr;
    size_t len;
    size_t cap; /* bytes allocated at data: appends grow it geometrically */
    uint8_t *data;
};

/* One coalesced DMA transfer, published as a DLA_EV_DMA once timed. */
struct dla_transfer {
    uint8_t stage, client, space;
    bool write;
    uint64_t addr, bytes;
};

struct dla_pipe {
    bool active;
    uint8_t n_stages;
    struct dla_stage stage[DLA_MAX_STAGES];
    uint8_t n_ms;
    struct dla_milestone ms[DLA_MAX_MILESTONES];
    size_t n_writes, cap_writes;
    struct dla_pending_write *writes;
    size_t n_xfers, cap_xfers;
    struct dla_transfer *xfers;
    uint64_t working_bytes; /* cubes and held writes, against d->working_budget */
};

/* Execution context handed to a unit's execute function: which pipeline and
 * stage it runs in, so that DMA is attributed and timed correctly. */
struct dla_exec {
    struct dla *d;
    struct dla_pipe *pipe;
    uint8_t stage;
    bool failed;           /* a DMA access failed: outputs are not committed */
    uint64_t write_expect; /* exec_write_expect's bytes, for the next write */
};

/* ---------------------------------------------------------------- scheduler */
struct dla_sched_item {
    uint64_t at;
    uint64_t seq; /* insertion order breaks ties deterministically */
    uint8_t pipe; /* a pipeline slot, or SCHED_TIMER */
    uint8_t ms;   /* the pipeline's milestone, or the timer's unit table index */
};

/* Scheduled events that belong to no pipeline: a unit's timer
 * (dla_unit_timer_at, unit_table.h). */
#define SCHED_TIMER 0xffu

/* ---------------------------------------------------------------- the model */
struct dla_listener {
    dla_listener_fn fn;
    void *ctx;
};

struct cbuf;

#define DLA_MAX_RULES 96 /* rows of the rule table (rules.c) */

struct dla {
    const struct dla_config *cfg;
    const struct regdb_map *map;
    const struct regdb_unit *udb[DLA_U_COUNT]; /* NULL: unit absent in this map */
    bool present[DLA_U_COUNT];                 /* decoded in this configuration */

    /* register file: single copies (S_ registers, units without groups) and
     * per-group copies of D_ registers */
    uint32_t regs[DLA_U_COUNT][DLA_REG_WORDS];
    uint32_t dregs[DLA_U_COUNT][2][DLA_REG_WORDS];

    uint64_t now;
    uint64_t seq;
    bool cbuf_flushed; /* CDMA S_CBUF_FLUSH_STATUS.FLUSH_DONE (the CONV entry's, as below) */
    uint64_t csb_debt; /* cycles of CSB accesses not yet let pass (dla_csb_settle) */
    size_t n_sched, cap_sched;
    struct dla_sched_item *sched; /* binary min-heap on (at, seq) */

    struct dla_mem *mem[DLA_SPACE_COUNT];
    uint64_t mem_budget;
    uint64_t work_budget;
    uint64_t working_budget; /* bytes of cubes and held writes per pipeline */
    uint64_t bus_free_at[DLA_SPACE_COUNT][2]; /* bandwidth model: [space][write] channel reserved until */
    uint64_t client_bytes[DLA_C_COUNT];
    uint64_t client_transactions[DLA_C_COUNT];
    uint64_t client_cvsram_bytes[DLA_C_COUNT]; /* of client_bytes, CV-SRAM's */

    struct dla_pipe pipe[DLA_MAX_PIPES];
    bool proc_busy[DLA_P_COUNT];       /* an operation of the processor is running */
    uint64_t proc_idle_at[DLA_P_COUNT]; /* cycle its last operation completed */
    uint64_t op_enable_at[DLA_U_COUNT][2]; /* cycle each group's OP_EN was last set */
    uint16_t off_pointer[DLA_U_COUNT]; /* S_POINTER offset, 0xffff none */
    uint16_t off_status[DLA_U_COUNT];  /* S_STATUS offset, 0xffff none */

    /* layer records in reference-counted chunks under a tree of nodes,
     * shared with checkpoints and copied on write (layers.c) */
    size_t n_layers, n_chunks;
    struct layer_node *layer_root;
    unsigned layer_depth; /* levels of nodes above the chunks, 0 when none */
    /* The chunk layer_at last made writable (its number), while no tree has
     * been shared since (layers.c's share count then still reads
     * hot_shares): every register write updates the record being
     * programmed, and the walk down the tree was a twentieth of a run of
     * one-line layers. */
    struct layer_chunk *hot_chunk;
    size_t hot_chunk_no;
    unsigned long long hot_shares;
    int32_t cur_layer[DLA_P_COUNT][2]; /* layer being programmed/run per group, -1 none */

    /* units' state (see above); cbuf is owned by the CONV entry, which makes,
     * resets, clones and frees it through the entry's state callbacks */
    struct dla_bdma_state bdma;
    struct dla_lut_ram lut_sdp, lut_cdp;
    struct cbuf *cbuf;

    /* per-layer working buffers kept across layers (scratch.h); the live
     * model's only: a clone's are empty */
    struct dla_scratch scratch;

    size_t n_listeners;
    struct dla_listener listeners[DLA_MAX_LISTENERS];
    int listener_handle[DLA_MAX_LISTENERS];
    int next_handle;
    char diag_buf[512];
    uint64_t rule_hits[DLA_MAX_RULES]; /* dla_rule() calls per rules.c row */
};

/* ---------------------------------------------------------------- helpers */
void dla_emit(struct dla *d, struct dla_event *ev);
/* Count one violation of rule id (rules.c); ids not in the table are not counted. */
void rule_count_hit(struct dla *d, const char *id);

/* Room for element n of a growable array v of *cap elements of elem bytes:
 * v itself, or v reallocated to twice the capacity (first when empty).
 * Running out of memory aborts, as everywhere in the model.  Shared by the
 * model's appends (layer chunks, schedule, transfers, held writes). */
void *dla_grow(void *v, size_t n, size_t *cap, size_t first, size_t elem);

/* Free what a model owns besides the struct itself (memories, CBUF,
 * schedule, layer records, pipeline buffers): dla_destroy and snapshots. */
void dla_free_owned(struct dla *d);

/* Diagnostics: formatted message, published as DLA_EV_DIAG. */
void dla_diag(struct dla *d, enum dla_diag_kind kind, enum dla_severity sev, enum dla_unit unit,
              uint32_t addr, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
void dla_vdiag(struct dla *d, enum dla_diag_kind kind, enum dla_severity sev, enum dla_unit unit,
               uint32_t addr, const char *rule, const char *fmt, va_list ap);
/* A programming-guide rule violation found by a unit at launch. */
void dla_rule(struct dla *d, enum dla_unit unit, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Register access for unit code, by name.  Names are resolved in the
 * configuration's map; an unknown name is a bug in the model and aborts.
 * group selects the copy of D_ registers; S_ registers ignore it. */
uint32_t dla_reg(const struct dla *d, enum dla_unit u, int group, const char *reg);
uint32_t dla_field(const struct dla *d, enum dla_unit u, int group, const char *reg,
                   const char *field);
/* A field that holds a size or count minus one (cube sizes, kernel sizes,
 * strides, split counts): its value + 1.  Shared by every unit's decoder. */
static inline unsigned dla_field_plus1(const struct dla *d, enum dla_unit u, int group,
                                       const char *reg, const char *field)
{
    return dla_field(d, u, group, reg, field) + 1u;
}
/* True when the field holds the enum value of that name. */
bool dla_field_is(const struct dla *d, enum dla_unit u, int group, const char *reg,
                  const char *field, const char *enum_name);
/* The model counts in 64 bits; a 32-bit status or perf register saturates.
 * Shared by every unit that publishes counters (SDP, PDP, CDP, perf.c). */
static inline uint32_t dla_sat32(uint64_t v)
{
    return v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
}
/* Hardware-side update of a register (status, perf counters): no CSB event. */
void dla_reg_hw_set(struct dla *d, enum dla_unit u, int group, const char *reg, uint32_t value);
void dla_field_hw_set(struct dla *d, enum dla_unit u, int group, const char *reg, const char *field,
                      uint32_t value);
/* Hardware side of the group handshake. */
void dla_flip_consumer(struct dla *d, enum dla_unit u);
void dla_op_clear(struct dla *d, enum dla_unit u, int group);

/* Sign-extend the low bits of a register field value. */
static inline int32_t dla_sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    v &= (bits >= 32) ? 0xffffffffu : ((1u << bits) - 1u);
    return (int32_t)((v ^ m) - m);
}
/* 64-bit address from a HIGH/LOW register pair (names without _0 suffix). */
uint64_t dla_reg_addr64(const struct dla *d, enum dla_unit u, int group, const char *high,
                        const char *low);

/* Memory space selected by a RAM_TYPE field value (1 = MC/DRAM, 0 = CV-SRAM).
 * Reports a diagnostic and returns DRAM when the configuration has no CV-SRAM. */
enum dla_space dla_ram_space(struct dla *d, enum dla_unit u, uint32_t ram_type);

/* GLB: set an interrupt status bit (publishes DLA_EV_INTR). */
void glb_raise(struct dla *d, unsigned bit);

/* Layers (layers.c).  layer_at() gives a record for writing (NULL for a bad
 * index); dla_layer_get() in dla.h reads one. */
struct dla_layer *layer_at(struct dla *d, int32_t index);
/* Share src's layer records with dst (a checkpoint); free d's records. */
bool layers_share(struct dla *dst, const struct dla *src);
void layers_release(struct dla *d);
/* Bytes of a layer tree's nodes and chunks (a checkpoint's) live does not
 * hold, each divided among the trees sharing it (as mem_bytes_apart). */
size_t layers_bytes_apart(const struct layer_node *root, unsigned depth, const struct dla *live);
int32_t layer_begin(struct dla *d, enum dla_proc p, int group);
int32_t layer_ensure(struct dla *d, enum dla_proc p, int group);
/* Set (or add) a named counter on a layer record; name must be a static string. */
void layer_counter(struct dla_layer *l, const char *name, uint64_t value);
/* A completed layer's counters as the layer before's (or the one before
 * that: two groups take turns) when they read the same: a run of alike
 * layers keeps one set. */
void layer_counters_settle(struct dla *d, struct dla_layer *l);
/* Set a layer record's LUT statistics (a copy of s). */
void layer_lut_stats(struct dla_layer *l, const struct dla_lut_stats *s);
/* Set a layer record's description (a copy of text, or the previous
 * layer's when it reads the same). */
void layer_desc(struct dla *d, struct dla_layer *l, const char *text);
/* Count DMA of client c on a layer record. */
void layer_client_add(struct dla_layer *l, enum dla_client c, uint64_t bytes, uint64_t transactions);

/* Pipelines (pipeline.c) */
void pipeline_try_launch(struct dla *d);
void pipeline_process_milestone(struct dla *d, uint8_t pipe, uint8_t ms);
/* Free a pipeline's held writes and transfer list and clear it. */
void pipeline_free(struct dla_pipe *p);
/* Start group of a self-launched processor (BDMA's CFG_LAUNCHn) as a
 * pipeline of its own. */
void pipeline_launch_one(struct dla *d, enum dla_proc proc, int group);

/* Scheduler (sched.c) */
void sched_push(struct dla *d, uint64_t at, uint8_t pipe, uint8_t ms);
bool sched_pop(struct dla *d, struct dla_sched_item *out);
const struct dla_sched_item *sched_peek(const struct dla *d);
void sched_clear(struct dla *d);

/* Execution context services for units (pipeline.c) */
/* Read memory through a DMA client; false (and a diagnostic) on a bad access. */
bool exec_read(struct dla_exec *x, enum dla_client c, enum dla_space s, uint64_t addr, void *buf,
               size_t len);
/* Write memory through a DMA client; the bytes reach memory when the stage completes. */
bool exec_write(struct dla_exec *x, enum dla_client c, enum dla_space s, uint64_t addr,
                const void *buf, size_t len);
/* The next exec_write begins a run of contiguous writes of this many bytes
 * in all (a BDMA operation's lines): the buffer that holds them is then
 * allocated whole, not grown by realloc as they come, which moves it
 * whenever the heap has something just after it. */
void exec_write_expect(struct dla_exec *x, uint64_t bytes);
/* A unit that writes surfaces of lines, line by line in address order, says
 * before each surface's first line how many bytes follow contiguously: the
 * surface when its lines are packed, all the surfaces from the first when
 * they are packed too, nothing when the lines have gaps (each is then a
 * buffer of its own).  BDMA, SDP, PDP and RUBIK's contraction write this way. */
struct exec_surfaces {
    uint64_t line_bytes, line_stride, surf_stride;
    uint64_t lines, surfs;
};
void exec_write_expect_surface(struct dla_exec *x, const struct exec_surfaces *s, uint64_t surf);
/* Before computing, a unit states how much work the layer asks for, in
 * int8-MAC equivalents (an operation costlier than one vectorised int8 MAC
 * counts as several).  False, with a
 * DLA_DIAG_UNSUPPORTED diagnostic naming what, when it exceeds the model's work
 * budget; the unit then returns -1 (the layer completes without output). */
bool exec_budget(struct dla_exec *x, enum dla_unit unit, uint64_t ops, const char *what);
/* Working memory: a pipeline's int32 cubes and held writes share one budget
 * (dla_options.working_budget).  exec_working: false, with a diagnostic
 * naming what, when `bytes` more would exceed it (a unit asks before it
 * loads anything, for all it will hold).  exec_cube_alloc: cube_alloc
 * counted against it (false with a diagnostic when over it or out of
 * memory); exec_cube_free gives the bytes back. */
bool exec_working(struct dla_exec *x, enum dla_unit unit, uint64_t bytes, const char *what);
bool exec_cube_alloc(struct dla_exec *x, enum dla_unit unit, struct dla_cube *cb, uint32_t w,
                     uint32_t h, uint32_t c, uint32_t n, enum dla_cube_kind kind,
                     const char *what);
void exec_cube_free(struct dla_exec *x, struct dla_cube *cb);
/* Datapath work of the stage: cycles at full throughput, and MACs/element ops. */
void exec_compute(struct dla_exec *x, uint64_t cycles, uint64_t ops);
/* A convolution's schedule (struct dla_stage): its datapath starts after the
 * data fetch and its last kernel group's last_group_cycles after the weights. */
void exec_conv_schedule(struct dla_exec *x, uint64_t last_group_cycles);
struct dla_layer *exec_layer(struct dla_exec *x);
void exec_desc(struct dla_exec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void exec_lut_stats(struct dla_exec *x, const struct dla_lut_stats *s);
/* Add a named counter to the layer's record (perf registers are filled by the unit). */
void exec_counter(struct dla_exec *x, const char *name, uint64_t value);

/* Timing figures a completed stage publishes into its unit's perf registers. */
void perf_publish(struct dla *d, const struct dla_stage *st);

#endif
