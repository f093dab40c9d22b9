/* A hardware layer's data in memory as a tensor (struct tensor_info,
 * loadable_tensors.h; read it with tensor/tensor_read.h): the output
 * surface it writes and the input surface it reads, from its unit's
 * registers in its register group, read by name through the register
 * database (the nv_full and nv_small maps differ):
 *
 *   SDP    out: D_DST_BASE_ADDR, D_DST_LINE/SURFACE/BATCH_STRIDE,
 *              D_DATA_CUBE_*, D_DATA_FORMAT.OUT_PRECISION, D_DST_DMA_CFG;
 *              none when D_FEATURE_MODE_CFG.OUTPUT_DST is PDP (on the fly)
 *          in: SDP_RDMA's D_SRC_* and cube, IN_PRECISION; none when
 *              FLYING_MODE is ON (CONV feeds it)
 *   PDP    out: D_DST_*, D_DATA_CUBE_OUT_*, D_DATA_FORMAT.INPUT_DATA
 *          in: PDP_RDMA's D_SRC_* and D_DATA_CUBE_IN_*; none on the fly
 *   CDP    out: CDP's D_DST_*, in: CDP_RDMA's D_SRC_*; the cube is CDP_RDMA's
 *   RUBIK  out/in: D_DAOUT_* / D_DAIN_*: feature cubes, or one plane per
 *              channel (split's output, merge's input); contract's output
 *              is C channels sx wider and sy taller
 *   BDMA   the last transfer staged (CFG_DST_* / CFG_SRC_*) as bytes: W the
 *              line's bytes, H its lines, C its surfaces (uint8)
 *   CONV   in: CDMA's D_DAIN_ADDR_*_0, strides, D_DATAIN_SIZE_*,
 *              IN_PRECISION (feature), or the pixel surface of an image
 *              input (pitch-linear pixels of 1 to 4 components); out: none,
 *              its output always feeds SDP on the fly.
 * Feature surfaces are NVDLA's atoms of the configuration's memory atom,
 * channels packed atom / bytes-per-element at a time; the element type
 * follows the unit's precision field (INT8, INT16, FP16).
 *
 * Two sources of register values:
 *   - the live registers of group G (layer_regs_live), for a layer
 *     completing now (at DLA_EV_LAYER_DONE its writes are in memory and its
 *     group still holds its programming);
 *   - the registers as layer L was programmed (layer_regs_of_layer), from
 *     the event ring (debug/reg_history.h): what it started with, although
 *     later layers reprogrammed its group.  A layer not yet started has its
 *     live values.
 * The RDMA sub-units (SDP_RDMA, PDP_RDMA, CDP_RDMA) are read in the layer's
 * own group, as the firmware programs them. */
#ifndef DLADBG_LAYER_SURFACE_H
#define DLADBG_LAYER_SURFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"
#include "loadable/loadable_tensors.h"

struct reg_history;

/* Where register values come from. */
struct layer_regs {
    struct dla *dla;
    uint8_t group;               /* the register group (0/1) */
    struct reg_history *history; /* NULL: the live registers */
    size_t at;                   /* with history: values just before this ring record */
    char missing[96];            /* the first "UNIT.REG[.FIELD]" the map lacks, "" if none */
};

/* The live registers of group (0/1). */
void layer_regs_live(struct layer_regs *r, struct dla *d, int group);

/* The registers as hardware layer `layer` was programmed: its group's
 * values when it started (h built over the event ring with
 * reg_history_create), or the live ones while it is still being programmed
 * or waits to start.  false with a message when there is no such layer, a
 * BDMA layer has not been launched yet, or the ring no longer reaches back
 * to its start (its records were overwritten). */
bool layer_regs_of_layer(struct layer_regs *r, struct dla *d, struct reg_history *h, uint32_t layer,
                         char *err, size_t errlen);

/* Register reg (or its field) of unit by name ("SDP", "D_DST_LINE_STRIDE",
 * NULL or "DST_RAM_TYPE"); 0 when the map has no such name (noted in
 * r->missing). */
uint32_t layer_reg(struct layer_regs *r, const char *unit, const char *reg, const char *field);

enum layer_side { LAYER_OUT, LAYER_IN };

/* The surface proc writes (LAYER_OUT) or reads (LAYER_IN) with the
 * registers of r.  false with why (a sentence: "SDP's output goes to PDP
 * on the fly; it never reaches memory") when that side does not reach
 * memory or cannot be described as a tensor; *t is then zeroed.  t->name
 * is "layer output" / "layer input" style text left to the caller ("" here),
 * t->id is -1. */
bool layer_surface(struct layer_regs *r, enum dla_proc proc, enum layer_side side,
                   struct tensor_info *t, char *why, size_t whylen);

/* The same from the live registers of group: for a layer completing now
 * (DLA_EV_LAYER_DONE gives proc and group). */
bool layer_surface_live(struct dla *d, enum dla_proc proc, int group, enum layer_side side,
                        struct tensor_info *t, char *why, size_t whylen);

/* The same for hardware layer `layer` as it was programmed (see
 * layer_regs_of_layer; h may be NULL for a layer not yet started).  t->name
 * is set to "layer N output" / "layer N input".  A CONV layer's output names
 * the SDP layer it feeds, an SDP layer flying to PDP the PDP layer. */
bool layer_surface_of_layer(struct dla *d, struct reg_history *h, uint32_t layer,
                            enum layer_side side, struct tensor_info *t, char *why, size_t whylen);

#endif
