/* Register database: every NVDLA register of every unit, for the nv_full map
 * ("v1") and the map of nv_small and its siblings ("v2").
 *
 * The tables are generated at build time from share/regdb/<map>.regs by
 * sim/gen/regdb_gen.c; nothing here is typed by hand twice.  Lookups never
 * allocate and never fail loudly: they return NULL and let the caller say what
 * was wrong in its own context (trace line, command, ...).
 */
#ifndef DLA_REGDB_H
#define DLA_REGDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum regdb_access {
    REGDB_RW,  /* read/write storage */
    REGDB_RO,  /* read only: writes are ignored (status, perf counters, ROM) */
    REGDB_WO,  /* write only: reads return 0 (trigger registers) */
    REGDB_W1C, /* write one to clear (GLB S_INTR_STATUS) */
};

struct regdb_enum {
    const char *name;
    uint32_t value;
};

struct regdb_field {
    const char *name;
    uint8_t lsb, msb; /* inclusive bit range */
    uint8_t access;   /* enum regdb_access */
    uint32_t reset;   /* field reset value, already shifted down to bit 0 */
    uint16_t n_enums;
    const struct regdb_enum *enums;
};

struct regdb_reg {
    const char *name; /* canonical name without the trailing array "_0", e.g. "D_DATAIN_SIZE_0" */
    uint16_t offset;  /* byte offset inside the unit's 4 KiB window */
    uint8_t access;   /* enum regdb_access of the register as a whole */
    bool dual;        /* one copy per ping-pong register group (the D_ registers) */
    uint32_t reset;
    uint32_t write_mask; /* bits that a CSB write can change */
    uint32_t read_mask;  /* bits that a CSB read returns */
    uint16_t n_fields;
    const struct regdb_field *fields;
};

struct regdb_unit {
    const char *name;   /* GLB, CDMA, ..., RBK, CFGROM */
    const char *alias;  /* other accepted name (RBK: "RUBIK"), or NULL */
    uint32_t base;      /* byte address of the unit window */
    uint16_t op_enable; /* offset of D_OP_ENABLE, 0xffff when the unit has no groups */
    uint16_t n_regs;    /* sorted by offset */
    const struct regdb_reg *regs;
};

struct regdb_map {
    const char *name; /* "nv_full" or "nv_small" (the v2 map) */
    uint16_t n_units; /* sorted by base */
    const struct regdb_unit *units;
};

/* A resolved name: unit and register always set on success, field optional. */
struct regdb_ref {
    const struct regdb_unit *unit;
    const struct regdb_reg *reg;
    const struct regdb_field *field; /* NULL when the name stopped at the register */
};

/* "nv_full" or "nv_small"; NULL for any other name. */
const struct regdb_map *regdb_map(const char *name);

/* The unit whose 4 KiB window holds byte address addr, or NULL. */
const struct regdb_unit *regdb_unit_at(const struct regdb_map *map, uint32_t addr);

/* Unit by name (case-insensitive, optional "NVDLA_" prefix, alias accepted). */
const struct regdb_unit *regdb_unit_named(const struct regdb_map *map, const char *name);

/* The register at byte address addr (unit base + offset), or NULL when that
 * word is not a register; *unit is set whenever the address is inside a unit. */
const struct regdb_reg *regdb_reg_at(const struct regdb_map *map, uint32_t addr,
                                     const struct regdb_unit **unit);

/* Register of a unit by offset, or NULL. */
const struct regdb_reg *regdb_reg_in(const struct regdb_unit *unit, uint32_t offset);

/* Register of a unit by name (case-insensitive, with or without the array
 * suffix "_0"), or NULL. */
const struct regdb_reg *regdb_reg_named(const struct regdb_unit *unit, const char *name);

/* Field of a register by name (case-insensitive), or NULL. */
const struct regdb_field *regdb_field_named(const struct regdb_reg *reg, const char *name);

/* Resolve "UNIT.REG[.FIELD]" as users and traces write it: case-insensitive,
 * optional "NVDLA_" prefix, register with or without the "_0" array suffix
 * ("cdma.d_datain_size_0_0", "CDMA.D_DATAIN_SIZE_0_0.DATAIN_WIDTH",
 * "NVDLA_GLB.S_INTR_MASK_0").  Returns false when nothing matches. */
bool regdb_resolve(const struct regdb_map *map, const char *name, struct regdb_ref *out);

/* Whether reg is the register of that canonical name (unit hooks react to
 * a few registers by name). */
static inline bool regdb_reg_is(const struct regdb_reg *reg, const char *name)
{
    return strcmp(reg->name, name) == 0;
}

/* Byte address of a register. */
static inline uint32_t regdb_addr(const struct regdb_unit *unit, const struct regdb_reg *reg)
{
    return unit->base + reg->offset;
}

/* Value of a field inside a register value. */
static inline uint32_t regdb_field_get(const struct regdb_field *f, uint32_t value)
{
    unsigned width = (unsigned)(f->msb - f->lsb + 1);
    uint32_t mask = width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
    return (value >> f->lsb) & mask;
}

/* value with field f replaced by v (v is truncated to the field width). */
static inline uint32_t regdb_field_set(const struct regdb_field *f, uint32_t value, uint32_t v)
{
    unsigned width = (unsigned)(f->msb - f->lsb + 1);
    uint32_t mask = width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
    return (value & ~(mask << f->lsb)) | ((v & mask) << f->lsb);
}

/* Name of an enum value of a field, or NULL. */
const char *regdb_enum_name(const struct regdb_field *f, uint32_t value);

/* Enum value by name (case-insensitive); false when the field has no such name. */
bool regdb_enum_value(const struct regdb_field *f, const char *name, uint32_t *value);

#endif
