/* Exporters: what a run did, written to files for other tools.
 *   CSV through a decoder plugin (export_csv.c, libcsv quoting)
 *   Chrome trace-event JSON for Perfetto UI (export_chrome.c)
 *   VCD for GTKWave (export_vcd.c)
 *   an NVIDIA input.txn trace folder that replays the run (export_txn.c)
 * Every file is written to a temporary name and renamed when complete. */
#ifndef DLADBG_EXPORT_H
#define DLADBG_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug/session.h"

struct trace_ring;
struct proglog;
struct plugin_host;

/* What an export wrote, for the one-line message after it. */
struct export_result {
    size_t rows;    /* CSV rows, JSON events, VCD changes, txn commands */
    size_t files;   /* txn: data files written */
    char note[256]; /* caveat worth telling ("1200 older events were dropped from the ring") */
};

bool export_csv(struct plugin_host *ph, const char *decoder, struct session *s,
                struct trace_ring *ring, const char *path, struct export_result *res, char *err,
                size_t errlen);
/* What export_csv would write, without writing it: rows (the header not
 * counted) and bytes (with it), from the same decoder pass. */
bool export_csv_measure(struct plugin_host *ph, const char *decoder, struct session *s,
                        struct trace_ring *ring, size_t *rows, uint64_t *bytes, char *err,
                        size_t errlen);
bool export_chrome(struct session *s, struct trace_ring *ring, const char *path,
                   struct export_result *res, char *err, size_t errlen);
bool export_vcd(struct session *s, struct trace_ring *ring, const char *path,
                struct export_result *res, char *err, size_t errlen);
bool export_txn(struct session *s, struct proglog *log, const char *dir, struct export_result *res,
                char *err, size_t errlen);

#endif
