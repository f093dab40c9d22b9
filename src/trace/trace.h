/* Register-trace replay: NVIDIA's input.txn traces (nvdlav1) and .cfg trace
 * tests (v2), both as drivers of the session. */
#ifndef DLADBG_TRACE_H
#define DLADBG_TRACE_H

#include "debug/driver.h"

struct trace_opts {
    const char *outdir; /* where dumps without a golden go; NULL/"": "dladbg-out/<name>" */
    const struct dla_config *cfg;
};

struct driver *trace_txn_open(const char *path, const struct trace_opts *opt, struct report *rep,
                              char *err, size_t errlen);
struct txn_prog;
/* The same with the trace already parsed (txn_prog_parse of the file path
 * names, taken over; NULL: parse it here). */
struct driver *trace_txn_open_prog(struct txn_prog *prog, const char *path,
                                   const struct trace_opts *opt, struct report *rep, char *err,
                                   size_t errlen);
struct driver *trace_cfg_open(const char *path, const struct trace_opts *opt, struct report *rep,
                              char *err, size_t errlen);

/* What a path holds: a trace folder, a .txn, a .cfg, or something else. */
enum trace_kind { TRACE_NONE, TRACE_TXN, TRACE_CFG };
/* For a folder, *file receives the trace file found in it. */
enum trace_kind trace_detect(const char *path, char *file, size_t len);

/* The configuration a .cfg trace is written for, from the folders that
 * hold it (NVIDIA's trace_tests/<config>/<test>/, traces_v2/<config>/...;
 * the file itself names none), or NULL. */
const char *trace_cfg_config_hint(const char *path);

/* Shared helpers of the two replayers. */
/* A whole token as a number, 0x-hex or decimal; false when it is not one (or
 * NULL, or too large). */
bool trace_parse_u64(const char *tok, uint64_t *v);
bool trace_parse_u32(const char *tok, uint32_t *v);
/* "0x" and 1 to 16 hex digits at *text, *text moved past them; false (and
 * *text as it was) when it holds no such number or a longer one. */
bool trace_scan_hex(const char **text, uint64_t *v);
/* A regular file exists at path. */
bool trace_is_file(const char *path);
void trace_split_path(const char *path, char *dir, size_t dlen, char *file, size_t flen,
                      const char *default_file);
/* "input.txn:34": the file's base name and a line, for messages. */
void trace_where(const char *file, unsigned line, char *buf, size_t len);
/* The "input.txn:" of trace_where, made once: a replayer gives every command
 * it runs its place (fourteen million in a trace of a million one-line
 * layers), and finding the base name each time was a twentieth of the run. */
struct trace_where_base {
    char text[84]; /* at most 80 bytes of the base name, then ':' */
    size_t len;
    char last[96]; /* trace_where_next's last place, "input.txn:1234" */
    size_t last_len;
    unsigned last_line;
    bool have_last;
};
void trace_where_base(const char *file, struct trace_where_base *wb);
/* What trace_where makes of the file wb was made from and line. */
void trace_where_at(const struct trace_where_base *wb, unsigned line, char *buf, size_t len);
/* The same, kept in wb for the next: a replayer's commands come line after
 * line, and the next line's digits are mostly the last one's moved on by
 * one, without a division a digit. */
void trace_where_next(struct trace_where_base *wb, unsigned line, char *buf, size_t len);
void trace_name(const char *dir, const char *file, char *name, size_t len);
void trace_compare_golden(struct report *rep, const char *loc, const char *golden, uint64_t addr,
                          const uint8_t *mem, size_t len);
void trace_write_dump(struct report *rep, const char *loc, const char *outdir, const char *file,
                      uint64_t addr, const char *memtype, const uint8_t *mem, size_t len);
void trace_summary(const struct driver *drv, char *buf, size_t len);
/* The bits of the register at CSB byte address addr whose value says how
 * far the hardware has got rather than what it was told (the CONSUMER of
 * S_POINTER, S_STATUS, BDMA's status, the CBUF flush status, performance
 * counters): two runs of the same programming read them alike only when
 * their timing is alike.  0 for every other register. */
uint32_t trace_timing_bits(const struct regdb_map *map, uint32_t addr);

#endif
