/* PDP, the planar data processor, as the rest of sim/ sees it: its entry of
 * the unit table (core/unit_table.h, listed by sim/units.c) and the
 * functions behind it, which the tests call directly. */
#ifndef DLA_PDP_H
#define DLA_PDP_H

#include "core/unit_table.h"

extern const struct dla_unit_entry pdp_unit;

/* A layer of group: in = SDP's on-the-fly output, or NULL (from memory
 * through PDP_RDMA's rdma_group).  0 on success, -1 when the layer cannot
 * be computed (a diagnostic has been emitted; the layer still completes). */
int pdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group,
                const struct dla_cube *in);
/* Whether group takes SDP's output on the fly (FLYING_MODE). */
bool pdp_input_on_the_fly(const struct dla *d, int group);

#endif
