/* CDP, the channel data processor (LRN), as the core sees it: one entry of
 * the unit table (core/unit_table.h), listed by sim/units.c. */
#ifndef DLA_CDP_H
#define DLA_CDP_H

#include "core/unit_table.h"

extern const struct dla_unit_entry cdp_unit;

#endif
