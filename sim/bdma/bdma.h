/* BDMA, the bridge DMA, as the core sees it: one entry of the unit table
 * (core/unit_table.h), listed by sim/units.c. */
#ifndef DLA_BDMA_H
#define DLA_BDMA_H

#include "core/unit_table.h"

extern const struct dla_unit_entry bdma_unit;

#endif
