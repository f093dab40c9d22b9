/* Helpers the bundled plugins' commands share (aie, sophon).  Not part of the
 * plugin ABI: header-only, so each plugin stays one .c file built into one .so. */
#ifndef DLADBG_PLUGIN_CONSOLE_H
#define DLADBG_PLUGIN_CONSOLE_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dladbg/decoder.h"

/* Format one message and hand it to the console's print or error. */
static inline void plugin_vemit(const struct dladbg_console *con,
                                void (*out)(const struct dladbg_console *, const char *),
                                const char *fmt, va_list ap)
{
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    out(con, buf);
}

/* printf to the console: one call may print several lines. */
static inline void plugin_say(const struct dladbg_console *con, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline void plugin_say(const struct dladbg_console *con, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plugin_vemit(con, con->print, fmt, ap);
    va_end(ap);
}

/* Fail the command with a message; returns the exec status (1). */
static inline int plugin_fail(const struct dladbg_console *con, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline int plugin_fail(const struct dladbg_console *con, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plugin_vemit(con, con->error, fmt, ap);
    va_end(ap);
    return 1;
}

/* A whole word as an unsigned number (decimal or 0x...); 0, or -1. */
static inline int plugin_parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (!*s || *end || errno || *s == '-')
        return -1;
    *v = x;
    return 0;
}

/* Completion: the run's layer numbers. */
static inline void plugin_offer_layers(const struct dladbg_console *con, dladbg_offer_fn offer,
                                       void *ctx)
{
    char num[16];
    for (uint32_t i = 0; i < con->run->layer_count(con->run); i++) {
        snprintf(num, sizeof num, "%u", i);
        offer(ctx, num);
    }
}

#endif
