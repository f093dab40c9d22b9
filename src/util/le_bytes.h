/* Little-endian integers in byte buffers.  Every binary format the debugger
 * reads or writes stores them so (DIMG images, EMU task descriptors,
 * loadables, firmware descriptors, tensor elements); its readers and writers
 * share these instead of each keeping its own copy. */
#ifndef DLADBG_LE_BYTES_H
#define DLADBG_LE_BYTES_H

#include <stdint.h>

static inline uint16_t le_get16(const uint8_t *b)
{
    return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t le_get32(const uint8_t *b)
{
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline void le_put16(uint8_t *b, uint16_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}

static inline void le_put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

#endif
