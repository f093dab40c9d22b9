/* Register database lookups over the tables generated from share/regdb/<map>.regs.
 *
 * Address lookups run on every simulated CSB access, so they bisect the
 * generated tables (units sorted by base, registers by offset).  Name lookups
 * serve the command line and trace loading; they scan the few dozen registers
 * of one unit.  Names arrive as parts of longer strings ("CDMA.D_BANK.DATA_BANK"),
 * so they are compared in place as (pointer, length) slices: nothing here
 * allocates or copies.
 */
#include "regdb.h"

#include <stdlib.h>
#include <string.h>

#include "regdb_tables.h"

#define UNIT_WINDOW 0x1000u /* bytes decoded by every unit */

/* Prefix of the block names in NVIDIA's headers and traces (NVDLA_CDMA). */
static const char unit_prefix[] = "NVDLA_";
/* Array suffix of register names in headers and traces (D_BANK_0). */
static const char array_suffix[] = "_0";

struct slice {
    const char *s;
    size_t n;
};

static struct slice slice_of(const char *s)
{
    return (struct slice){s, strlen(s)};
}

static int lower_ascii(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static bool chars_equal_ci(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (lower_ascii((unsigned char)a[i]) != lower_ascii((unsigned char)b[i]))
            return false;
    }
    return true;
}

/* Case-insensitive equality of a slice and a whole NUL-terminated name. */
static bool slice_is(struct slice a, const char *name)
{
    size_t n = strlen(name);
    return a.n == n && chars_equal_ci(a.s, name, n);
}

static bool slice_starts_with(struct slice a, const char *prefix)
{
    size_t n = strlen(prefix);
    return a.n >= n && chars_equal_ci(a.s, prefix, n);
}

static bool slice_ends_with(struct slice a, const char *suffix)
{
    size_t n = strlen(suffix);
    return a.n >= n && chars_equal_ci(a.s + a.n - n, suffix, n);
}

/* ------------------------------------------------------------------- maps */

const struct regdb_map *regdb_map(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < regdb_n_maps; i++) {
        if (slice_is(slice_of(name), regdb_maps[i].name))
            return &regdb_maps[i];
    }
    return NULL;
}

/* ------------------------------------------------------------------ units */

/* By bisection in place, without bsearch's call a comparison: every
 * simulated CSB access decodes its address (fourteen million in a trace of a
 * million one-line layers). */
const struct regdb_unit *regdb_unit_at(const struct regdb_map *map, uint32_t addr)
{
    if (!map)
        return NULL;
    /* the maps' windows lie side by side from 0: the window's number is
     * the unit's, when it holds */
    size_t guess = addr / UNIT_WINDOW;
    if (guess < map->n_units && addr - map->units[guess].base < UNIT_WINDOW) /* wraps below */
        return &map->units[guess];
    size_t lo = 0, hi = map->n_units; /* units[lo..hi) may hold addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct regdb_unit *u = &map->units[mid];
        if (addr < u->base)
            hi = mid;
        else if (addr - u->base >= UNIT_WINDOW)
            lo = mid + 1;
        else
            return u;
    }
    return NULL;
}

static const struct regdb_unit *unit_exactly_named(const struct regdb_map *map, struct slice name)
{
    for (size_t i = 0; i < map->n_units; i++) {
        const struct regdb_unit *u = &map->units[i];
        if (slice_is(name, u->name) || (u->alias && slice_is(name, u->alias)))
            return u;
    }
    return NULL;
}

/* The name as written first, so that a unit whose own name began with
 * "NVDLA_" would still win over the prefix rule. */
static const struct regdb_unit *unit_named(const struct regdb_map *map, struct slice name)
{
    const struct regdb_unit *u = unit_exactly_named(map, name);
    if (!u && slice_starts_with(name, unit_prefix)) {
        size_t skip = strlen(unit_prefix);
        u = unit_exactly_named(map, (struct slice){name.s + skip, name.n - skip});
    }
    return u;
}

const struct regdb_unit *regdb_unit_named(const struct regdb_map *map, const char *name)
{
    if (!map || !name)
        return NULL;
    return unit_named(map, slice_of(name));
}

/* -------------------------------------------------------------- registers */

const struct regdb_reg *regdb_reg_in(const struct regdb_unit *unit, uint32_t offset)
{
    if (!unit)
        return NULL;
    /* offsets are distinct words in order, so register i is at offset 4i
     * or later: offset's is at index offset / 4 at most, and there when
     * the registers from 0 leave no gap (most units) */
    size_t hi = unit->n_regs < offset / 4u + 1u ? unit->n_regs : offset / 4u + 1u;
    if (hi && unit->regs[hi - 1].offset == offset)
        return &unit->regs[hi - 1];
    size_t lo = 0; /* regs[lo..hi) may hold offset */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t at = unit->regs[mid].offset;
        if (offset < at)
            hi = mid;
        else if (offset > at)
            lo = mid + 1;
        else
            return &unit->regs[mid];
    }
    return NULL;
}

const struct regdb_reg *regdb_reg_at(const struct regdb_map *map, uint32_t addr,
                                     const struct regdb_unit **unit)
{
    const struct regdb_unit *u = regdb_unit_at(map, addr);
    if (unit)
        *unit = u;
    return u ? regdb_reg_in(u, addr - u->base) : NULL;
}

static const struct regdb_reg *reg_exactly_named(const struct regdb_unit *unit, struct slice name)
{
    for (size_t i = 0; i < unit->n_regs; i++) {
        if (slice_is(name, unit->regs[i].name))
            return &unit->regs[i];
    }
    return NULL;
}

/* Exact name first: D_DATAIN_SIZE_0 is a register of its own, and only
 * D_DATAIN_SIZE_0_0 (its trace spelling) should lose one "_0". */
static const struct regdb_reg *reg_named(const struct regdb_unit *unit, struct slice name)
{
    const struct regdb_reg *r = reg_exactly_named(unit, name);
    if (!r && slice_ends_with(name, array_suffix))
        r = reg_exactly_named(unit, (struct slice){name.s, name.n - strlen(array_suffix)});
    return r;
}

const struct regdb_reg *regdb_reg_named(const struct regdb_unit *unit, const char *name)
{
    if (!unit || !name)
        return NULL;
    return reg_named(unit, slice_of(name));
}

/* ----------------------------------------------------------------- fields */

static const struct regdb_field *field_named(const struct regdb_reg *reg, struct slice name)
{
    for (size_t i = 0; i < reg->n_fields; i++) {
        if (slice_is(name, reg->fields[i].name))
            return &reg->fields[i];
    }
    return NULL;
}

const struct regdb_field *regdb_field_named(const struct regdb_reg *reg, const char *name)
{
    if (!reg || !name)
        return NULL;
    return field_named(reg, slice_of(name));
}

/* ---------------------------------------------------------- dotted names */

#define MAX_NAME_PARTS 3 /* UNIT.REG.FIELD */

/* Split at dots into at most MAX_NAME_PARTS non-empty parts; 0 when the name
 * has more parts or an empty one ("CDMA..X", "CDMA.", ".X"). */
static size_t split_dotted(const char *name, struct slice parts[MAX_NAME_PARTS])
{
    size_t n = 0;
    const char *start = name;
    for (const char *s = name;; s++) {
        if (*s != '.' && *s != '\0')
            continue;
        if (s == start || n == MAX_NAME_PARTS)
            return 0;
        parts[n++] = (struct slice){start, (size_t)(s - start)};
        if (*s == '\0')
            return n;
        start = s + 1;
    }
}

bool regdb_resolve(const struct regdb_map *map, const char *name, struct regdb_ref *out)
{
    struct regdb_ref ref = {NULL, NULL, NULL};
    struct slice parts[MAX_NAME_PARTS];
    size_t n = (map && name) ? split_dotted(name, parts) : 0;
    bool found = false;

    if (n >= 2) {
        ref.unit = unit_named(map, parts[0]);
        ref.reg = ref.unit ? reg_named(ref.unit, parts[1]) : NULL;
        ref.field = (ref.reg && n == 3) ? field_named(ref.reg, parts[2]) : NULL;
        found = ref.reg && (n == 2 || ref.field);
    }
    /* On failure the caller gets an empty reference, never a half-resolved one. */
    if (out)
        *out = found ? ref : (struct regdb_ref){NULL, NULL, NULL};
    return found;
}

/* ------------------------------------------------------------------ enums */

const char *regdb_enum_name(const struct regdb_field *f, uint32_t value)
{
    if (!f)
        return NULL;
    for (size_t i = 0; i < f->n_enums; i++) {
        if (f->enums[i].value == value)
            return f->enums[i].name;
    }
    return NULL;
}

bool regdb_enum_value(const struct regdb_field *f, const char *name, uint32_t *value)
{
    if (!f || !name)
        return false;
    for (size_t i = 0; i < f->n_enums; i++) {
        if (slice_is(slice_of(name), f->enums[i].name)) {
            if (value)
                *value = f->enums[i].value;
            return true;
        }
    }
    return false;
}
