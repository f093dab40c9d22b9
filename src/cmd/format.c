/* Register and field decoding for display. */
#include "format.h"

#include <stdio.h>
#include <string.h>

#include "num/fp16.h"

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

/* Text copied a byte at a time up to end (where the buffer's last byte, kept
 * for the terminator, is): field and enum names are short, so this beats
 * strlen and memcpy per name.  Returns the new end of the text. */
static char *put_text(char *p, const char *end, const char *text)
{
    while (*text && p < end)
        *p++ = *text++;
    return p;
}

/* v as "%u" (below 10) or "0x%x". */
static char *put_value(char *p, const char *end, uint32_t v)
{
    char digits[16], *d = digits + sizeof digits;
    *--d = 0;
    if (v <= 9) {
        *--d = (char)('0' + v);
    } else {
        do {
            *--d = "0123456789abcdef"[v & 15u];
            v >>= 4;
        } while (v);
        *--d = 'x';
        *--d = '0';
    }
    return put_text(p, end, d);
}

/* Called for every register event an export decodes: built by hand rather
 * than with snprintf, which dominated CSV export.  Cut where buf ends. */
void format_fields_inline(const struct regdb_reg *reg, uint32_t value, char *buf, size_t len)
{
    if (!len)
        return;
    char *p = buf;
    const char *end = buf + len - 1;
    for (uint16_t i = 0; i < reg->n_fields; i++) {
        const struct regdb_field *f = &reg->fields[i];
        uint32_t v = regdb_field_get(f, value);
        const char *e = regdb_enum_name(f, v);
        if (i)
            p = put_text(p, end, " ");
        p = put_text(p, end, f->name);
        p = put_text(p, end, "=");
        p = e ? put_text(p, end, e) : put_value(p, end, v);
    }
    *p = 0;
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

const char *format_layer_state(const struct dla_layer *l, bool run_over)
{
    if (format_layer_never_enabled(l, run_over))
        return "never enabled";
    return dla_layer_state_name((enum dla_layer_state)l->state);
}

bool format_layer_never_enabled(const struct dla_layer *l, bool run_over)
{
    return run_over && l->state == DLA_LAYER_PROGRAMMING;
}

size_t format_layers_of_run(const struct dla *d, bool run_over)
{
    size_t n = 0;
    for (size_t i = 0; i < dla_layer_count(d); i++)
        n += !format_layer_never_enabled(dla_layer_get(d, i), run_over);
    return n;
}

const char *format_cycles_basis(const struct dla_config *cfg, enum dla_proc p)
{
    return dla_cycles_calibrated(cfg, p) ? "calibrated against RTL" : "estimated";
}

void format_timing_basis(const struct dla_config *cfg, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int p = 0; p < DLA_P_COUNT && n < len; p++)
        if (dla_cycles_calibrated(cfg, (enum dla_proc)p))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
                                  dla_proc_name((enum dla_proc)p));
    if (n == 0)
        snprintf(buf, len, "estimated (%s is not calibrated against RTL)", cfg->name);
    else if (n < len)
        snprintf(buf + n, len - n, " calibrated against RTL%s, the others estimated",
                 dla_network_calibrated(cfg) ? ", whole networks too" : "");
}

bool format_run_cycles(const struct dla *d, uint64_t *cycles)
{
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->state != DLA_LAYER_DONE)
            continue;
        first = l->start_cycle < first ? l->start_cycle : first;
        last = l->end_cycle > last ? l->end_cycle : last;
    }
    if (first > last)
        return false;
    *cycles = last - first;
    return true;
}

const char *format_run_basis(const struct dla_config *cfg)
{
    return dla_network_calibrated(cfg) ? "calibrated against RTL" : "estimated";
}

const char *format_work_unit(enum dla_proc p)
{
    switch (p) {
    case DLA_P_CONV:
        return "MACs";
    case DLA_P_BDMA:
        return "bytes";
    case DLA_P_PDP:
        return "pool reads"; /* output elements x kernel window */
    case DLA_P_CDP:
        return "LRN terms"; /* elements x normalisation window */
    default:
        return "elements"; /* SDP, RUBIK: elements processed */
    }
}

bool format_is_read_only(const struct regdb_reg *reg, const struct regdb_field *field)
{
    if (field)
        return field->access == REGDB_RO || reg->access == REGDB_RO;
    return reg->access == REGDB_RO;
}

/* " SDP_DONE_STATUS0 BDMA_DONE_STATUS1": the fields of reg with a bit in bits. */
static void fields_touching(const struct regdb_reg *reg, uint32_t bits, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint16_t i = 0; i < reg->n_fields; i++) {
        const struct regdb_field *f = &reg->fields[i];
        if (regdb_field_get(f, bits)) {
            append(buf, len, &used, " ");
            append(buf, len, &used, f->name);
        }
    }
}

void format_reg_bits(const struct regdb_map *map, const char *reg, uint32_t bits, char *buf,
                     size_t len)
{
    struct regdb_ref ref;
    buf[0] = 0;
    if (map && regdb_resolve(map, reg, &ref))
        fields_touching(ref.reg, bits, buf, len);
}

void format_write_effect(const struct regdb_reg *reg, const struct regdb_field *field,
                         uint32_t written, uint32_t before, uint32_t after, char *buf, size_t len)
{
    if (format_is_read_only(reg, field)) {
        snprintf(buf, len, "ignored: read-only (wrote 0x%08x, still 0x%08x)", written, after);
        return;
    }
    if (reg->access == REGDB_W1C) {
        uint32_t cleared = before & ~after;
        if (!cleared) {
            snprintf(buf, len, "no bit cleared (the bits written, 0x%08x, were not set): 0x%08x",
                     written, after);
            return;
        }
        char names[256];
        fields_touching(reg, cleared, names, sizeof names);
        snprintf(buf, len, "cleared bits%s: 0x%08x -> 0x%08x", names[0] ? names : " (unnamed)",
                 before, after);
        return;
    }
    if (reg->access == REGDB_WO) {
        snprintf(buf, len, "wrote 0x%08x (write-only: reads return 0)", written);
        return;
    }
    if (before == after)
        snprintf(buf, len, "0x%08x unchanged", after);
    else
        snprintf(buf, len, "0x%08x -> 0x%08x", before, after);
}

bool format_unit_absent(const struct dla *dla, const struct regdb_unit *unit, char *buf,
                        size_t len)
{
    if (dla_unit_present(dla, dla_unit_of(dla, unit)))
        return false;
    snprintf(buf, len, "%s is not in this configuration (%s)", unit->name, dla_cfg(dla)->name);
    return true;
}

static void format_binary(uint64_t v, unsigned width, char *buf, size_t len)
{
    unsigned top = 63;
    while (top > 0 && !(v >> top & 1))
        top--;
    if (width && width - 1 > top)
        top = width - 1;
    size_t n = 0;
    for (unsigned b = top + 1; b-- > 0 && n + 1 < len;)
        buf[n++] = (char)('0' + (v >> b & 1));
    buf[n] = 0;
}

static void format_float(uint64_t v, unsigned bytes, char *buf, size_t len)
{
    if (bytes == 2) {
        snprintf(buf, len, "%.5g", (double)fp16_to_float((uint16_t)v));
    } else if (bytes == 4) {
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, sizeof f);
        snprintf(buf, len, "%.9g", (double)f);
    } else {
        double f;
        memcpy(&f, &v, sizeof f);
        snprintf(buf, len, "%.17g", f);
    }
}

bool format_number(char how, uint64_t bits, unsigned bytes, bool pad, char *buf, size_t len)
{
    unsigned width = bytes * 8;
    uint64_t v = width < 64 ? bits & ((UINT64_C(1) << width) - 1) : bits;
    int64_t sv = width < 64 && (v >> (width - 1) & 1) ? (int64_t)(v | ~((UINT64_C(1) << width) - 1))
                                                       : (int64_t)v;
    switch (how) {
    case 'x':
        snprintf(buf, len, "0x%0*llx", pad ? (int)bytes * 2 : 1, (unsigned long long)v);
        return true;
    case 'd':
        snprintf(buf, len, "%lld", (long long)sv);
        return true;
    case 'u':
        snprintf(buf, len, "%llu", (unsigned long long)v);
        return true;
    case 'o':
        snprintf(buf, len, v ? "0%llo" : "0", (unsigned long long)v);
        return true;
    case 't':
        format_binary(v, pad ? width : 0, buf, len);
        return true;
    case 'c': {
        unsigned char c = (unsigned char)v;
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            snprintf(buf, len, "%lld '%c'", (long long)(int8_t)c, c);
        else
            snprintf(buf, len, "%lld '\\%03o'", (long long)(int8_t)c, c);
        return true;
    }
    case 'f':
        if (bytes < 2)
            return false;
        format_float(v, bytes, buf, len);
        return true;
    default:
        return false;
    }
}
