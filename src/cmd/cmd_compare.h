/* "compare" and "dump tensors" for main.c's --compare, --calibtable and
 * --tolerance (src/cmd/cmd_compare.c; the comparison itself is
 * src/compare/compare.h, which the TUI reads through d->cmp). */
#ifndef DLADBG_CMD_COMPARE_H
#define DLADBG_CMD_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd.h"

/* Load reference folder dir (calibtable: NULL, or a calibration table that
 * replaces dir/calib.json; tolerance: NULL or a --tolerance spec) and compare
 * the open session's layers against it from the start of the next run on.
 * false with a message (the file, where, what was expected). */
bool dbg_compare_arm(struct dbg *d, const char *dir, const char *calibtable, const char *tolerance,
                     char *err, size_t errlen);

/* The comparison's mapping, table and verdict (what "compare" alone
 * prints), or only the verdict (a batch script printed what it wanted). */
void dbg_compare_report(struct dbg *d, const struct dbg_sink *out, bool full);

#endif
