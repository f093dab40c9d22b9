/* The register database's generated tables: build/gen/regdb_tables.c, written
 * by sim/gen/regdb_gen.c from share/regdb/<map>.regs.  Internal to sim/core/regdb.c;
 * everyone else goes through the lookups of regdb.h.
 */
#ifndef DLA_REGDB_TABLES_H
#define DLA_REGDB_TABLES_H

#include "regdb.h"

/* One map per .regs file, in the order the build passed the files. */
extern const struct regdb_map regdb_maps[];
extern const size_t regdb_n_maps;

#endif
