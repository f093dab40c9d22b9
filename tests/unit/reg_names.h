/* Registers by "UNIT.REG[.FIELD]" name in the model suites: the name is
 * resolved in the model's own register map (v1 and v2 maps differ), and a
 * name the map lacks fails the test.  Shared by post_harness.h and the
 * suites that drive a bare struct dla (test_sdp, test_sdp_lut), which
 * keep their own wr()/rd(): how each reads back differs on purpose (a peek
 * has no side effects; a read is what a driver sees).  Header-only (static
 * inline); include it after <cmocka.h>. */
#ifndef DLADBG_TEST_REG_NAMES_H
#define DLADBG_TEST_REG_NAMES_H

#include <stdint.h>

#include "core/dla.h"

static inline void reg_resolve_named(struct dla *d, const char *name, struct regdb_ref *ref)
{
    if (!regdb_resolve(dla_regmap(d), name, ref))
        fail_msg("no register %s", name);
}

/* CSB byte address of a whole register. */
static inline uint32_t reg_addr_named(struct dla *d, const char *name)
{
    struct regdb_ref ref;
    reg_resolve_named(d, name, &ref);
    return regdb_addr(ref.unit, ref.reg);
}

#endif
