/* The text nvdla_runtime writes as output.dimg when run with --rawdump:
 * every element of the output tensor in channel, row, column order, each
 * followed by one space, no newline.
 *
 * The runtime views the tensor as an image: feature formats with 32-byte
 * atoms (int8 x32), 8-byte atoms for FEATURE_X8 int8 (nv_small), and x16
 * groups for int16 and fp16; any other pixel format is read as fp16 x16.
 * int8/int16 print as signed integers; fp16 prints as C++ streams print a
 * float (like %g), after the runtime's "stable hash" substitutions, which
 * compare the half's value with the integers meant as bit patterns: a value
 * of 32768 prints 0 and every NaN prints 31744 (the value of 0x7C00). */
#ifndef DLADBG_RAWDUMP_H
#define DLADBG_RAWDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadable/loadable.h"

/* Format tensor t held in buf (len bytes, the tensor's own layout) into a
 * newly allocated NUL-terminated text.  false with a message when the
 * runtime would refuse (data type it cannot show, element beyond the
 * tensor's size). */
bool rawdump_text(const struct ld_tensor *t, const uint8_t *buf, uint64_t len, char **text,
                  size_t *text_len, char *err, size_t errlen);

/* One fp16 element as the runtime prints it (without the space). */
void rawdump_half(uint16_t h, char *out, size_t len);

#endif
