/* Messages and check results of a run.  Drivers (trace replay, loadable
 * engine) report through this; the session decides where text goes
 * (stdout/stderr in batch mode, the console pane in the TUI). */
#ifndef DLADBG_REPORT_H
#define DLADBG_REPORT_H

#include <stdarg.h>

enum report_level { REPORT_INFO, REPORT_NOTE, REPORT_WARNING, REPORT_ERROR };

struct report {
    void (*print)(void *ctx, enum report_level level, const char *text);
    void *ctx;
    unsigned checks_passed, checks_failed; /* register read checks, CRC checks */
    unsigned dumps_matched, dumps_failed;  /* memory dumps compared with goldens */
    unsigned dumps_written;                /* dumps without a golden, written out */
    unsigned input_errors;                 /* malformed input found while running */
};

void report_msg(struct report *r, enum report_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void report_vmsg(struct report *r, enum report_level level, const char *fmt, va_list ap);

/* 0 all checks passed, 1 a check or golden mismatch, 2 an input error. */
int report_exit_status(const struct report *r);

#endif
