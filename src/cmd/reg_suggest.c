/* Nearest register names for a mistyped UNIT.REG[.FIELD]. */
#include "reg_suggest.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/suggest.h"

#define PART_MAX 64

/* Part i of a dotted name (0: unit, 1: register, 2: field) into part;
 * false when the name has fewer parts or the part does not fit. */
static bool name_part(const char *name, int i, char *part)
{
    for (; i > 0; i--) {
        name = strchr(name, '.');
        if (!name)
            return false;
        name++;
    }
    size_t n = strcspn(name, ".");
    if (n == 0 || n >= PART_MAX)
        return false;
    memcpy(part, name, n);
    part[n] = 0;
    return true;
}

static const char *nearest_unit(const struct regdb_map *map, const char *word)
{
    struct suggest s;
    suggest_init(&s, strncasecmp(word, "NVDLA_", 6) ? word : word + 6);
    for (uint16_t u = 0; u < map->n_units; u++)
        suggest_consider(&s, map->units[u].name);
    return suggest_best(&s);
}

static const char *nearest_reg(const struct regdb_unit *unit, const char *word)
{
    struct suggest s;
    suggest_init(&s, word);
    for (uint16_t r = 0; r < unit->n_regs; r++)
        suggest_consider(&s, unit->regs[r].name);
    return suggest_best(&s);
}

static const char *nearest_field(const struct regdb_reg *reg, const char *word)
{
    struct suggest s;
    suggest_init(&s, word);
    for (uint16_t f = 0; f < reg->n_fields; f++)
        suggest_consider(&s, reg->fields[f].name);
    return suggest_best(&s);
}

void reg_suggest(const struct regdb_map *map, const char *name, char *buf, size_t len)
{
    char unit_word[PART_MAX], reg_word[PART_MAX], field_word[PART_MAX];
    if (len)
        buf[0] = 0;
    if (!map || !name_part(name, 0, unit_word) || !name_part(name, 1, reg_word))
        return;
    bool has_field = name_part(name, 2, field_word);
    const struct regdb_unit *unit = regdb_unit_named(map, unit_word);
    const char *unit_name = unit ? unit->name : nearest_unit(map, unit_word);
    if (!unit && unit_name)
        unit = regdb_unit_named(map, unit_name);
    if (!unit)
        return;
    const struct regdb_reg *reg = regdb_reg_named(unit, reg_word);
    const char *reg_name = reg ? reg->name : nearest_reg(unit, reg_word);
    if (!reg && reg_name)
        reg = regdb_reg_named(unit, reg_name);
    if (!reg)
        return;
    const char *field_name = NULL;
    if (has_field) {
        const struct regdb_field *f = regdb_field_named(reg, field_word);
        field_name = f ? f->name : nearest_field(reg, field_word);
        if (!field_name)
            return;
    }
    snprintf(buf, len, " (did you mean \"%s.%s%s%s\"?)", unit->name, reg->name,
             field_name ? "." : "", field_name ? field_name : "");
}
