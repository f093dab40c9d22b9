/* SDP, the single-point data processor, as the rest of sim/ sees it: its
 * entry of the unit table (core/unit_table.h, listed by sim/units.c) and
 * the functions behind it, which the tests call directly. */
#ifndef DLA_SDP_H
#define DLA_SDP_H

#include "core/unit_table.h"

extern const struct dla_unit_entry sdp_unit;

/* A layer of group: in = on-the-fly input from CACC, or NULL (from memory
 * through SDP_RDMA's rdma_group); to_pdp = on-the-fly output to PDP, or NULL
 * (to memory).  0 on success, -1 when the layer cannot be computed (a
 * diagnostic has been emitted; the layer still completes). */
int sdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group,
                const struct dla_cube *in, struct dla_cube *to_pdp);

/* The pipeline's shape, from group's registers: input from CACC on the fly,
 * output to PDP on the fly, and whether SDP_RDMA must run. */
bool sdp_input_on_the_fly(const struct dla *d, int group);
bool sdp_output_to_pdp(const struct dla *d, int group);
bool sdp_needs_rdma(const struct dla *d, int group);

#endif
