/* Register and field decoding for display. */
#include "format.h"

#include <stdio.h>
#include <string.h>

static void append(char *buf, size_t len, size_t *used, const char *text)
{
    if (*used + 1 >= len)
        return;
    int n = snprintf(buf + *used, len - *used, "%s", text);
    if (n > 0)
        *used += (size_t)n;
    if (*used >= len)
        *used = len - 1;
}

/* append() without the formatting: n bytes of text, cut where buf ends. */
static void append_bytes(char *buf, size_t len, size_t *used, const char *text, size_t n)
{
    if (*used + 1 >= len)
        return;
    size_t room = len - 1 - *used, k = n < room ? n : room;
    memcpy(buf + *used, text, k);
    *used += k;
    buf[*used] = 0;
}

/* v as "%u" (below 10) or "0x%x". */
static void append_value(char *buf, size_t len, size_t *used, uint32_t v)
{
    char digits[16], *p = digits + sizeof digits;
    if (v <= 9) {
        *--p = (char)('0' + v);
    } else {
        do {
            *--p = "0123456789abcdef"[v & 15u];
            v >>= 4;
        } while (v);
        *--p = 'x';
        *--p = '0';
    }
    append_bytes(buf, len, used, p, (size_t)(digits + sizeof digits - p));
}

/* Called for every register event an export decodes: built by hand rather
 * than with snprintf, which dominated CSV export. */
void format_fields_inline(const struct regdb_reg *reg, uint32_t value, char *buf, size_t len)
{
    size_t used = 0;
    if (!len)
        return;
    buf[0] = 0;
    for (uint16_t i = 0; i < reg->n_fields; i++) {
        const struct regdb_field *f = &reg->fields[i];
        uint32_t v = regdb_field_get(f, value);
        const char *e = regdb_enum_name(f, v);
        if (i)
            append_bytes(buf, len, &used, " ", 1);
        append_bytes(buf, len, &used, f->name, strlen(f->name));
        append_bytes(buf, len, &used, "=", 1);
        if (e)
            append_bytes(buf, len, &used, e, strlen(e));
        else
            append_value(buf, len, &used, v);
    }
}

void format_field_bits(const struct regdb_field *f, char *buf, size_t len)
{
    if (f->msb == f->lsb)
        snprintf(buf, len, "[%u]", f->lsb);
    else
        snprintf(buf, len, "[%u:%u]", f->msb, f->lsb);
}

void format_field_line(const struct regdb_field *f, uint32_t value, char *buf, size_t len)
{
    uint32_t v = regdb_field_get(f, value);
    char bits[16];
    format_field_bits(f, bits, sizeof bits);
    const char *e = regdb_enum_name(f, v);
    if (e)
        snprintf(buf, len, "  %-28s %-8s = %u (%s)", f->name, bits, v, e);
    else
        snprintf(buf, len, "  %-28s %-8s = %u (0x%x)", f->name, bits, v, v);
}

void format_reg_name(const struct regdb_map *map, uint32_t addr, char *buf, size_t len)
{
    const struct regdb_unit *u;
    const struct regdb_reg *r = map ? regdb_reg_at(map, addr, &u) : NULL;
    if (r)
        snprintf(buf, len, "%s.%s", u->name, r->name);
    else
        snprintf(buf, len, "0x%05x", addr);
}

const char *format_access(enum regdb_access a)
{
    switch (a) {
    case REGDB_RW:
        return "rw";
    case REGDB_RO:
        return "ro";
    case REGDB_WO:
        return "wo";
    case REGDB_W1C:
        return "w1c";
    }
    return "?";
}

void format_intr_bits(uint32_t bits, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (unsigned b = 0; b < 32; b++)
        if ((bits & (1u << b)) && dla_intr_bit_name(b)) {
            append(buf, len, &used, " ");
            append(buf, len, &used, dla_intr_bit_name(b));
        }
}

void format_layer_event(int layer, enum dla_proc proc, unsigned group, const char *verb, char *buf,
                        size_t len)
{
    if (group > 1) /* a BDMA layer gets its group at launch */
        snprintf(buf, len, "layer %d (%s) %s", layer, dla_proc_name(proc), verb);
    else
        snprintf(buf, len, "layer %d (%s, group %u) %s", layer, dla_proc_name(proc), group, verb);
}
