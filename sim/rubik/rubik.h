/* RUBIK, the data reshaper, as the core sees it: one entry of the unit
 * table (core/unit_table.h), listed by sim/units.c. */
#ifndef DLA_RUBIK_H
#define DLA_RUBIK_H

#include "core/unit_table.h"

extern const struct dla_unit_entry rubik_unit;

#endif
