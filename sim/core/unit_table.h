/* The unit table: how the core reaches the hardware units without knowing
 * them.  Each unit folder (sim/conv, sim/sdp, ...) describes itself in one
 * struct dla_unit_entry, declared in its own header; sim/units.c, the board
 * file, lists the entries.  The core (csb.c, dla.c, pipeline.c, timing.c,
 * perf.c, rules.c, snapshot.c) only walks that list: it decodes a register to
 * the entry that serves it, launches an entry's processor when its units are
 * armed, fuses on-the-fly stages by asking the entries, and runs a stage
 * through the entry's execute function.  Adding a unit is a new folder, its
 * entry and a line in sim/units.c; no core file changes beyond the names the
 * public API gives units and processors (dla.h's enums, dla.c's names). */
#ifndef DLA_UNIT_TABLE_H
#define DLA_UNIT_TABLE_H

#include "dla_priv.h"

/* Register units one entry serves (CONV: CDMA, CSC, CMAC_A, CMAC_B, CACC). */
#define DLA_UNIT_MAX_PORTS 6
/* Entries that own state outside struct dla (CBUF's banks): a checkpoint
 * keeps that many pointers beside its packed copy of the model. */
#define DLA_UNIT_STATES 1

/* Unit behaviour beyond plain storage.  A hook returns true when it handled
 * the access itself (the generic code then does not store / not read the
 * register file). */
struct dla_unit_hooks {
    void (*reset)(struct dla *d);
    bool (*write)(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value);
    bool (*read)(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                 bool peek /* no side effects (debugger view) */);
    /* called after a stored write (e.g. to react to OP_EN) */
    void (*written)(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value);
    /* The layer a write programs, for a unit whose layers are not its
     * register groups' (BDMA queues operations); NULL: the D_ group's. */
    int32_t (*layer_of_write)(struct dla *d, const struct regdb_reg *reg);
};

/* A D_PERF register a completed stage fills from the timing model (perf.c):
 * its unit (the RDMA sub-unit's group when on_rdma_group), the enable field
 * that lets the hardware count, and the client whose stall cycles or read
 * latency it holds; label names the counter on the layer record. */
enum dla_perf_source { DLA_PERF_STALL, DLA_PERF_LATENCY };
struct dla_perf_reg {
    enum dla_unit unit;
    bool on_rdma_group;
    const char *enable_reg, *enable_field;
    const char *reg;
    const char *label;
    enum dla_perf_source source;
    enum dla_client client;
};

/* An interrupt a stage raises before it completes, when one client's last
 * transfer ends (CDMA's DAT and WT done): bit bit_base + group. */
struct dla_client_intr {
    enum dla_client client;
    uint8_t bit_base;
};

/* One register unit of an entry and its behaviour (hooks NULL: storage only). */
struct dla_unit_port {
    enum dla_unit unit;
    const struct dla_unit_hooks *hooks;
};

struct dla_unit_entry {
    const char *name;
    enum dla_proc proc; /* DLA_P_NONE: registers only (GLB) */
    /* Whether a configuration has it (NULL: always); its units are then
     * not decoded on the CSB. */
    bool (*present)(const struct dla_config *cfg);
    /* The units it serves.  Those other than rdma are the ones whose OP_EN
     * a stage needs and consumes, released in this order. */
    uint8_t n_ports;
    struct dla_unit_port ports[DLA_UNIT_MAX_PORTS];
    enum dla_unit main; /* its consumer group is the stage's group */
    enum dla_unit rdma; /* the optional read DMA sub-unit, DLA_U_NONE */
    /* Launched by its own registers rather than by OP_EN (BDMA's CFG_LAUNCH):
     * pipeline_launch_one starts it, its groups run side by side, and it
     * has no OP_EN to release. */
    bool self_launched;

    /* A stage's work, at launch: in is the on-the-fly input of the stage
     * before (NULL when it reads memory), out where the stage after takes
     * its on-the-fly output (NULL when it writes memory).  0 on success,
     * -1 when the layer cannot be computed (the layer still completes). */
    int (*execute)(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                   const struct dla_cube *in, struct dla_cube *out);

    /* Fusion.  feeds: the processor that can take this one's output on the
     * fly (DLA_P_NONE: memory only); output_on_the_fly says whether a group
     * does (NULL: always, as CACC into SDP).  input_on_the_fly: whether a
     * group waits for the processor feeding it (NULL: never).  needs_rdma:
     * for a fused stage, whether it still reads memory; such a stage takes
     * its RDMA group when armed and waits for it when needed (NULL: a fused
     * stage takes none). */
    enum dla_proc feeds;
    bool (*output_on_the_fly)(const struct dla *d, int group);
    bool (*input_on_the_fly)(const struct dla *d, int group);
    bool (*needs_rdma)(const struct dla *d, int group);

    /* Timing (timing.c): pipeline fill beyond the common stage overhead,
     * and the interrupts raised as clients finish, in order; a client that
     * moved nothing raises its bit with the one before (the first at the
     * stage's start). */
    uint16_t fill_cycles;
    /* A head stage that reads memory through rdma starts reading at the
     * RDMA's own OP_EN, not at the launch (the main unit's OP_EN), if the
     * processor was idle by then: nv_full's RTL ends an SDP from memory a
     * fixed time after SDP_RDMA's enable, whenever SDP's follows. */
    bool reads_from_rdma_enable;
    uint8_t n_client_intrs;
    struct dla_client_intr client_intrs[2];
    /* The D_PERF registers its completed stages fill (perf.c). */
    const struct dla_perf_reg *perf_regs;
    size_t n_perf_regs;

    /* After the stage's units are released (BDMA frees its group). */
    void (*stage_done)(struct dla *d, const struct dla_stage *st);
    /* Publish a completed stage's perf figures itself instead of through
     * perf_regs (BDMA's STATUS_GRPn counters). */
    void (*publish_perf)(struct dla *d, const struct dla_stage *st, struct dla_layer *l);

    /* The programming-guide rules its units check: a row for every id they
     * pass to dla_rule() (rules.c numbers every entry's rows, in table order,
     * for "info rules"). */
    const struct dla_rule_info *rules;
    size_t n_rules;

    /* The unit's timer fired (started with dla_unit_timer_at). */
    void (*timer)(struct dla *d);

    /* State the unit owns outside struct dla (CBUF): made with the model
     * (false: out of memory), emptied by dla_reset, freed (also when half
     * made), and copied for checkpoints: state_clone gives dst, whose fields
     * equal src's, a copy of its own, leaving nothing of src's in dst even
     * when it fails.  state_of and state_bytes_apart count what a
     * checkpoint's state holds that the live model's does not. */
    bool (*state_create)(struct dla *d);
    void (*state_destroy)(struct dla *d);
    void (*state_reset)(struct dla *d);
    bool (*state_clone)(struct dla *dst, const struct dla *src);
    const void *(*state_of)(const struct dla *d);
    size_t (*state_bytes_apart)(const void *state, const void *live);
};

/* The board (sim/units.c): every entry, NULL-terminated.  Their order is
 * the launch order when several processors could start at once. */
extern const struct dla_unit_entry *const dla_unit_table[];

/* The entry serving a register unit or running a processor, NULL: none. */
const struct dla_unit_entry *dla_unit_entry_of(enum dla_unit u);
const struct dla_unit_entry *dla_proc_entry(enum dla_proc p);
const struct dla_unit_hooks *dla_hooks(enum dla_unit u);

/* Start e's timer: its timer callback runs at cycle at (a scheduler event,
 * kept by checkpoints). */
void dla_unit_timer_at(struct dla *d, const struct dla_unit_entry *e, uint64_t at);

/* GLB's registers live in the core (glb.c); sim/units.c lists it too. */
extern const struct dla_unit_entry glb_unit;

#endif
