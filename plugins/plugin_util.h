/* Helpers the bundled decoders share.  Not part of the plugin ABI (that is
 * dladbg/decoder.h alone): header-only, so each decoder stays one .c file
 * built into one .so. */
#ifndef DLADBG_PLUGIN_UTIL_H
#define DLADBG_PLUGIN_UTIL_H

#include <stdint.h>
#include <stdio.h>

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

/* Cells are text: a number is printed into a buffer of PLUGIN_CELL_LEN
 * bytes, which the row's cells then point to. */
static inline const char *plugin_cell_u64(char *buf, uint64_t v)
{
    snprintf(buf, PLUGIN_CELL_LEN, "%llu", (unsigned long long)v);
    return buf;
}

static inline const char *plugin_cell_int(char *buf, long long v)
{
    snprintf(buf, PLUGIN_CELL_LEN, "%lld", v);
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
