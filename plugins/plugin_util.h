/* Helpers the bundled decoders share.  Not part of the plugin ABI (that is
 * dladbg/decoder.h alone): header-only, so each decoder stays one .c file
 * built into one .so. */
#ifndef DLADBG_PLUGIN_UTIL_H
#define DLADBG_PLUGIN_UTIL_H

#include <stdbool.h>
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
 * bytes, which the row's cells then point to.  Digits are written by hand,
 * in place, two at a time: a decoder formats several numbers per row, and
 * snprintf's cost showed in CSV export, then a digit at a time and a
 * memcpy call per number (a dma export's rows are six numbers and three
 * names). */
static inline unsigned plugin_decimal_digits(uint64_t v)
{
    unsigned n = 1;
    for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
        n++;
    return n;
}

static inline const char *plugin_cell_u64(char *buf, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char *p = buf + plugin_decimal_digits(v);
    *p = 0;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100u);
        v /= 100u;
        p -= 2;
        memcpy(p, pairs + 2 * d, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
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
    unsigned n = 1;
    for (uint64_t t = v >> 4; t; t >>= 4)
        n++;
    if (n < digits)
        n = digits < 16 ? digits : 16;
    char *p = buf + 2 + n;
    *p = 0;
    for (unsigned i = 0; i < n; i++, v >>= 4)
        *--p = "0123456789abcdef"[v & 15u];
    buf[0] = '0';
    buf[1] = 'x';
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

/* A layer event's bytes by memory, DRAM's and CV-SRAM's: false from a
 * dladbg before 1.3, whose events do not hold bytes_cvsram. */
static inline bool plugin_layer_bytes_by_memory(const struct dladbg_event *ev, uint64_t *dram,
                                                uint64_t *cvsram)
{
    if (ev->struct_size < DLADBG_EVENT_HAS_CVSRAM)
        return false;
    const struct dladbg_layer *l = &ev->u.layer;
    *cvsram = l->bytes_cvsram;
    *dram = l->bytes_read + l->bytes_written - l->bytes_cvsram;
    return true;
}

#endif
