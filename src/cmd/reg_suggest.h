/* "did you mean" for register names: the nearest unit, register or field to
 * the part of UNIT.REG[.FIELD] that names nothing, as the command names get. */
#ifndef DLADBG_REG_SUGGEST_H
#define DLADBG_REG_SUGGEST_H

#include <stddef.h>

#include "core/regdb.h"

/* " (did you mean \"CDMA.D_DATAIN_SIZE_0\"?)" for a name regdb_resolve
 * refused, or "" when nothing is close enough (or the name has no dot). */
void reg_suggest(const struct regdb_map *map, const char *name, char *buf, size_t len);

#endif
