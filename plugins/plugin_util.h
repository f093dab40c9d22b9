/* Helpers the bundled decoders share.  Not part of the plugin ABI (that is
 * dladbg/decoder.h alone): header-only, so each decoder stays one .c file
 * built into one .so. */
#ifndef DLADBG_PLUGIN_UTIL_H
#define DLADBG_PLUGIN_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dladbg/decoder.h"

/* Room for any number a cell holds. */
#define PLUGIN_CELL_LEN 24

/* open and close of a decoder that keeps no state between events. */
static inline void *plugin_stateless_open(const struct dladbg_host *host)
{
    (void)host;
    return NULL;
}

static inline void plugin_stateless_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
}

/* event of a test decoder that writes no rows. */
static inline void plugin_ignore_event(void *state, const struct dladbg_host *host,
                                       const struct dladbg_event *ev)
{
    (void)state;
    (void)host;
    (void)ev;
}

/* Cells are text: a number is printed into a buffer of PLUGIN_CELL_LEN
 * bytes, which the row's cells then point to.  Digits are written by hand:
 * a decoder formats several numbers per row, and snprintf's cost showed in
 * CSV export. */
static inline const char *plugin_cell_u64(char *buf, uint64_t v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    *--p = 0;
    do {
        *--p = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    memcpy(buf, p, (size_t)(tmp + sizeof tmp - p));
    return buf;
}

static inline const char *plugin_cell_int(char *buf, long long v)
{
    if (v >= 0)
        return plugin_cell_u64(buf, (uint64_t)v);
    buf[0] = '-';
    plugin_cell_u64(buf + 1, 0u - (uint64_t)v);
    return buf;
}

/* "0x" and v in lower-case hex, zero-padded to at least digits (<= 16). */
static inline const char *plugin_cell_hex(char *buf, uint64_t v, unsigned digits)
{
    char tmp[20], *p = tmp + sizeof tmp;
    *--p = 0;
    unsigned n = 0;
    do {
        *--p = "0123456789abcdef"[v & 15u];
        v >>= 4;
        n++;
    } while (v || n < digits);
    *--p = 'x';
    *--p = '0';
    memcpy(buf, p, (size_t)(tmp + sizeof tmp - p));
    return buf;
}

/* A layer or group number, or an empty cell when there is none (negative). */
static inline const char *plugin_cell_index_or_blank(char *buf, long long v)
{
    if (v < 0) {
        buf[0] = 0;
        return buf;
    }
    return plugin_cell_int(buf, v);
}

#endif
