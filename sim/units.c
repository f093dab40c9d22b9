/* The board: which units this model is built of.  The one file that includes
 * every unit's header; the core reaches the units only through this table
 * (core/unit_table.h).  A new unit is a folder of its own with an entry in
 * its header, and a line here.
 *
 * The order is the launch order when several processors could start at
 * once: the convolution core first (its pipeline takes SDP and maybe PDP
 * with it), then SDP, PDP, CDP and RUBIK reading memory.  GLB and BDMA are
 * never launched by OP_EN (GLB runs nothing, BDMA launches itself). */
#include <stddef.h>

#include "bdma/bdma.h"
#include "cdp/cdp.h"
#include "conv/conv.h"
#include "pdp/pdp.h"
#include "rubik/rubik.h"
#include "sdp/sdp.h"

const struct dla_unit_entry *const dla_unit_table[] = {
    &glb_unit, &bdma_unit, &conv_unit, &sdp_unit, &pdp_unit, &cdp_unit, &rubik_unit, NULL,
};
