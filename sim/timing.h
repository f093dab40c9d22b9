/* The timing model: turns what a stage computed and moved into cycles.
 * Documented in share/timing-model.md; every figure is model-derived. */
#ifndef DLA_TIMING_H
#define DLA_TIMING_H

#include "dla_priv.h"

/* Fixed cycles a stage needs beyond its datapath and memory time (pipeline
 * fill and the completion handshake), and the extra cycles a downstream
 * stage of a fused pipeline finishes after its producer. */
#define TIMING_STAGE_OVERHEAD 16
#define TIMING_DRAIN          8

/* Time every stage of a started pipeline and fill its milestones. */
void timing_plan(struct dla *d, struct dla_pipe *p);

/* Publish the stage's DMA transfers (DLA_EV_DMA) with their modelled cycles. */
void timing_publish_transfers(struct dla *d, struct dla_pipe *p, uint8_t stage);

/* Bytes per cycle and first-access latency of a memory space. */
unsigned timing_bus_bytes(const struct dla_config *cfg, enum dla_space s);
unsigned timing_latency(const struct dla_config *cfg, enum dla_space s);

#endif
