/* CRC-32 as NVIDIA's trace tests compute it (reflected, polynomial
 * 0xEDB88320, initial value and final XOR 0xFFFFFFFF). */
#ifndef DLADBG_CRC32_H
#define DLADBG_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

static inline uint32_t crc32_of(const void *buf, size_t len)
{
    return crc32_update(0xffffffffu, buf, len) ^ 0xffffffffu;
}

#endif
