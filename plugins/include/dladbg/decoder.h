/* dladbg decoder plugins: the public, versioned ABI.
 *
 * A decoder turns the events of a run into rows of a table, which dladbg
 * writes as CSV ("export csv FILE --decoder NAME").  A plugin is a shared
 * object exporting one data symbol:
 *
 *     const struct dladbg_decoder dladbg_decoder = {
 *         .abi_version = DLADBG_DECODER_ABI_VERSION,
 *         .name = "layers",
 *         .description = "one row per hardware layer",
 *         .n_columns = 3,
 *         .columns = (const char *const[]){"index", "unit", "cycles"},
 *         .open = my_open, .event = my_event, .close = my_close,
 *     };
 *
 * dladbg refuses (with a message, never a crash) a plugin without that
 * symbol, with another ABI version, or whose descriptor is incomplete.
 *
 * Calls, all from one thread: open() once per export; event() for every
 * recorded event, oldest first (the ring keeps the newest events of a long
 * run), then one DLADBG_EV_LAYER_RECORD per hardware layer from the model's
 * complete layer records; close() at the end.  A decoder emits rows with
 * host->row(host, cells): exactly n_columns strings, copied before it returns.
 * Pointers inside events are valid only during the call.
 *
 * Every cycle figure is model-derived (dladbg's timing model, not RTL).
 *
 * The ABI version changes whenever a structure below changes incompatibly;
 * new fields are only ever appended, and struct_size says how much is there.
 * Version 1 grew, compatibly: struct dladbg_run (read-only access to the run,
 * also reachable from a decoder through host->run), the optional
 * "dladbg_commands" symbol that adds console commands (end of this file),
 * a decoder's event_kinds (the events it wants; all when absent) and a
 * layer's bytes_cvsram (1.3: its bytes by memory). */
#ifndef DLADBG_DECODER_H
#define DLADBG_DECODER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLADBG_DECODER_ABI_VERSION 1
#define DLADBG_DECODER_SYMBOL      "dladbg_decoder"
#define DLADBG_DECODER_MAX_COLUMNS 64

enum dladbg_event_kind {
    DLADBG_EV_REG_WRITE = 1, /* u.reg */
    DLADBG_EV_REG_READ,      /* u.reg */
    DLADBG_EV_LAYER_PROGRAM, /* u.layer: first register write of a layer */
    DLADBG_EV_LAYER_ENABLE,  /* u.layer: an OP_ENABLE of the layer written */
    DLADBG_EV_LAYER_START,   /* u.layer: its pipeline started */
    DLADBG_EV_LAYER_DONE,    /* u.layer: it completed */
    DLADBG_EV_INTR,          /* u.intr */
    DLADBG_EV_DMA,           /* u.dma */
    DLADBG_EV_CBUF,          /* u.cbuf */
    DLADBG_EV_LUT,           /* u.layer (lut set) */
    DLADBG_EV_PERF,          /* u.layer */
    DLADBG_EV_DIAG,          /* u.diag */
    DLADBG_EV_LAYER_RECORD,  /* u.layer: complete record, after all events */
};

struct dladbg_reg_event {
    uint32_t addr;      /* CSB byte address */
    uint32_t value;     /* written value, or value a read returned */
    uint32_t old;       /* value before a write */
    int32_t group;      /* register group of a D_ register, -1 for others */
    const char *unit;   /* "CDMA", or "" when the address is no register */
    const char *name;   /* "D_DATAIN_SIZE_0", or "" */
    const char *fields; /* decoded fields: "DATAIN_WIDTH=7 DATAIN_HEIGHT=7" */
};

struct dladbg_counter {
    const char *name; /* "CDMA.D_PERF_DAT_READ_STALL" */
    uint64_t value;
};

struct dladbg_lut_stats {
    uint64_t lookups, le_hit, lo_hit, underflow, overflow, hybrid;
    uint64_t le_underflow, le_overflow, lo_underflow, lo_overflow;
};

struct dladbg_layer {
    uint32_t index;
    const char *unit;  /* processor: "BDMA" "CONV" "SDP" "PDP" "CDP" "RUBIK" */
    const char *op;    /* what it does: "conv direct int16 8x8x128 -> 8x8x32" (may be "") */
    const char *state; /* "programming" "enabled" "running" "done" */
    uint32_t group;
    int32_t fed_by; /* layer feeding it on the fly, or -1 */
    uint64_t program_cycle, enable_cycle, start_cycle, end_cycle;
    uint64_t cycles; /* end - start when done, else 0 */
    uint64_t macs, compute_cycles, stall_cycles;
    uint64_t bytes_read, bytes_written;
    uint32_t reg_writes;
    uint32_t n_counters;
    const struct dladbg_counter *counters;
    const struct dladbg_lut_stats *lut; /* NULL when the layer used no LUT */
    const char *lut_unit;               /* "SDP" or "CDP" with lut */
    /* what macs counts for this unit: "MACs" (CONV), "bytes" (BDMA),
     * "elements" (SDP, RUBIK), "pool reads" (PDP), "LRN terms" (CDP) */
    const char *work_unit;
    /* Appended in dladbg 1.3: of bytes_read + bytes_written, those to and
     * from on-chip CV-SRAM; the rest are DRAM's, what memory bandwidth is
     * tuned for.  An event holds it when ev->struct_size >=
     * DLADBG_EVENT_HAS_CVSRAM; run->layer_sized() fills it, run->layer()
     * does not (it fills the record as a plugin built before 1.3 holds it). */
    uint64_t bytes_cvsram;
};

struct dladbg_intr_event {
    uint32_t bit;
    const char *name; /* "SDP_DONE_STATUS0" */
    uint32_t status;  /* GLB.S_INTR_STATUS after setting */
    int line;         /* interrupt line asserted (not masked) */
};

struct dladbg_dma_event {
    const char *client; /* "cdma.dat", "sdp.wdma", ... */
    const char *space;  /* "dram" or "cvsram" */
    int write;
    uint64_t addr, bytes;
    uint64_t start_cycle, end_cycle;
};

struct dladbg_cbuf_event {
    uint32_t first_bank, n_banks;
    const char *kind; /* "data" "weight" "wmb" */
    uint64_t bytes;
};

struct dladbg_diag_event {
    const char *kind;     /* "csb-hole", "rule", ... */
    const char *severity; /* "info" "warning" "error" */
    const char *unit;     /* unit name or "" */
    const char *rule;     /* rule id for rule violations, else "" */
    const char *message;
    uint32_t addr;
};

struct dladbg_event {
    uint32_t struct_size; /* sizeof(struct dladbg_event) of the host */
    uint32_t kind;        /* enum dladbg_event_kind */
    uint64_t seq;         /* position in the run's event stream */
    uint64_t cycle;
    int32_t layer; /* hardware layer the event belongs to, or -1 */
    union {
        struct dladbg_reg_event reg;
        struct dladbg_layer layer;
        struct dladbg_intr_event intr;
        struct dladbg_dma_event dma;
        struct dladbg_cbuf_event cbuf;
        struct dladbg_diag_event diag;
    } u;
};

#define DLADBG_EVENT_HAS_CVSRAM                                                                    \
    (offsetof(struct dladbg_event, u.layer.bytes_cvsram) + sizeof(uint64_t))

/* ---------------------------------------------------------------- the run
 * Read-only access to the current run, for views that need more than the
 * event stream: layers, the register values a layer ran with, the events
 * again, memory.  Handed to commands (below) and, appended to struct
 * dladbg_host, to decoders.  Every function returns 0 on success and -1 when
 * what was asked for does not exist. */
typedef void (*dladbg_event_fn)(void *ctx, const struct dladbg_event *ev);

struct dladbg_run {
    uint32_t struct_size; /* sizeof(struct dladbg_run) of the host */
    const char *config;   /* hardware configuration, "nv_full"; "" without an open file */
    uint32_t atom_bytes;  /* memory atom of the configuration (32 nv_full, 8 nv_small) */
    /* Hardware layers recorded so far (0 without an open file). */
    uint32_t (*layer_count)(const struct dladbg_run *run);
    /* Layer index's record; its strings stay valid until the next call.
     * The record as 1.2 had it, all a plugin built before 1.3 holds:
     * layer_sized (below) fills the fields appended since. */
    int (*layer)(const struct dladbg_run *run, uint32_t index, struct dladbg_layer *out);
    /* The value register unit.reg ("SDP", "D_DST_LINE_STRIDE"), or one field
     * of it (field non-NULL), held in the layer's register group when the
     * layer started (now, if it has not started).  -1 also when the event
     * ring no longer reaches back to the layer's start. */
    int (*layer_reg)(const struct dladbg_run *run, uint32_t layer, const char *unit,
                     const char *reg, const char *field, uint32_t *value);
    /* The events of the run, oldest first, then one DLADBG_EV_LAYER_RECORD
     * per layer: the same stream an export gives a decoder. */
    void (*each_event)(const struct dladbg_run *run, dladbg_event_fn fn, void *ctx);
    /* Memory as it is now; space "dram" or "cvsram". */
    int (*read_mem)(const struct dladbg_run *run, const char *space, uint64_t addr, void *buf,
                    size_t len);
    void *host_private; /* dladbg's, do not touch */
    /* Appended in dladbg 1.3 (check struct_size >= DLADBG_RUN_HAS_LAYER_SIZED):
     * layer() for a record of size bytes, sizeof *out: the fields appended
     * since 1.0 too (bytes_cvsram), those this dladbg does not know 0. */
    int (*layer_sized)(const struct dladbg_run *run, uint32_t index, struct dladbg_layer *out,
                       size_t size);
};

#define DLADBG_RUN_HAS_LAYER_SIZED                                                                 \
    (offsetof(struct dladbg_run, layer_sized) + sizeof(((struct dladbg_run *)0)->layer_sized))

/* Services of the host. */
struct dladbg_host {
    uint32_t struct_size;
    /* Emit one row: n_columns cells (NULL cells are written empty). */
    void (*row)(const struct dladbg_host *host, const char *const *cells);
    /* Report a problem; the export fails with this message. */
    void (*error)(const struct dladbg_host *host, const char *message);
    const char *config; /* hardware configuration name, "nv_full" */
    void *host_private; /* dladbg's, do not touch */
    /* Appended in dladbg 1.1 (check struct_size >= DLADBG_HOST_HAS_RUN): */
    const struct dladbg_run *run;
};

#define DLADBG_HOST_HAS_RUN (offsetof(struct dladbg_host, run) + sizeof(const void *))

struct dladbg_decoder {
    uint32_t abi_version; /* DLADBG_DECODER_ABI_VERSION */
    uint32_t struct_size; /* sizeof(struct dladbg_decoder) when built */
    const char *name;     /* [a-z0-9_-], at most 31 characters */
    const char *description;
    uint32_t n_columns; /* 1 .. DLADBG_DECODER_MAX_COLUMNS */
    const char *const *columns;
    /* Start an export; returns the decoder's state (NULL is a valid state). */
    void *(*open)(const struct dladbg_host *host);
    void (*event)(void *state, const struct dladbg_host *host, const struct dladbg_event *ev);
    /* Flush remaining rows and free the state. */
    void (*close)(void *state, const struct dladbg_host *host);
    /* Appended in dladbg 1.2 (dladbg reads it when struct_size >=
     * DLADBG_DECODER_HAS_KINDS): the event kinds event() is called with,
     * DLADBG_EV_BIT(kind) each; 0 means every kind.  dladbg builds only the
     * events asked for, so a decoder of DMA transfers does not pay for the
     * decoded fields of every register write. */
    uint32_t event_kinds;
};

#define DLADBG_EV_BIT(kind) (1u << (kind))
#define DLADBG_DECODER_HAS_KINDS                                                                   \
    (offsetof(struct dladbg_decoder, event_kinds) + sizeof(uint32_t))

/* ---------------------------------------------------------------- commands
 * Optional: a plugin that also exports
 *
 *     const struct dladbg_command_set dladbg_commands = {
 *         .abi_version = DLADBG_COMMANDS_ABI_VERSION,
 *         .struct_size = sizeof(struct dladbg_command_set),
 *         .command_size = sizeof(struct dladbg_command),
 *         .n_commands = 1,
 *         .commands = (const struct dladbg_command[]){
 *             {"hello", "hello [NAME]", "Greet NAME.", hello_exec, hello_complete}},
 *     };
 *
 * adds console commands: they run from the console, the TUI's console pane
 * and batch scripts, "help" lists them and Tab completes their words.  A
 * plugin without the symbol loads as before; one whose command set is
 * malformed (another version, a name that clashes with a built-in or loaded
 * command), or whose commands would bring all plugins' past the 64 dladbg
 * holds, is refused as a whole. */
#define DLADBG_COMMANDS_ABI_VERSION 1
#define DLADBG_COMMANDS_SYMBOL      "dladbg_commands"
#define DLADBG_COMMANDS_MAX         16

/* What a command's exec and complete get from dladbg. */
struct dladbg_console {
    uint32_t struct_size;
    /* Output text (may hold several lines); error() also makes the command fail. */
    void (*print)(const struct dladbg_console *con, const char *text);
    void (*error)(const struct dladbg_console *con, const char *text);
    const struct dladbg_run *run; /* never NULL; layer_count is 0 without a file */
    void *host_private;           /* dladbg's, do not touch */
};

typedef void (*dladbg_offer_fn)(void *ctx, const char *candidate);

struct dladbg_command {
    const char *name;  /* the command word, [a-z0-9_-]{1,31} */
    const char *usage; /* one line: "aie tiling BUFFER_DIM TILING_DIM OFFSET TRAVERSAL..." */
    const char *help;  /* a few lines; the first sentence is help's summary */
    /* argv[0] is the command word; return 0, or nonzero when it failed (after
     * con->error() says why). */
    int (*exec)(const struct dladbg_console *con, int argc, const char *const *argv);
    /* Offer candidates for word argc (argv[0..argc-1] are complete, the
     * partial word is prefix; dladbg filters by it).  May be NULL. */
    void (*complete)(const struct dladbg_console *con, int argc, const char *const *argv,
                     const char *prefix, dladbg_offer_fn offer, void *ctx);
};

struct dladbg_command_set {
    uint32_t abi_version;  /* DLADBG_COMMANDS_ABI_VERSION */
    uint32_t struct_size;  /* sizeof(struct dladbg_command_set) when built */
    uint32_t command_size; /* sizeof(struct dladbg_command) when built: the array's stride */
    uint32_t n_commands;   /* 1 .. DLADBG_COMMANDS_MAX */
    const struct dladbg_command *commands;
};

#ifdef __cplusplus
}
#endif

#endif
