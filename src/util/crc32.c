#include "crc32.h"

static uint32_t table[256];
static int table_ready;

static void build_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xedb88320u : c >> 1;
        table[i] = c;
    }
    table_ready = 1;
}

/* Running CRC: start with 0xffffffff, finish by XOR with 0xffffffff. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
    if (!table_ready)
        build_table();
    const uint8_t *p = buf;
    while (len--)
        crc = table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    return crc;
}
