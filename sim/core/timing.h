/* The timing model: turns what a stage computed and moved into cycles.
 * Documented in share/timing-model.md; every figure is model-derived. */
#ifndef DLA_TIMING_H
#define DLA_TIMING_H

#include "dla_priv.h"

/* Fixed cycles a stage needs beyond its datapath and memory time (pipeline
 * fill and the completion handshake: calibrated, SDP, PDP and the
 * convolution match the RTL with it), and the extra cycles a downstream
 * stage of a fused pipeline finishes after its producer (calibrated: SDP's
 * pipeline, its write DMA and the write response after CACC's last output;
 * NVIDIA's nv_full RTL raises SDP_DONE 35 cycles after CACC_DONE on
 * conv_8x8_fc_int16, tests/calibration). */
#define TIMING_STAGE_OVERHEAD 16
#define TIMING_DRAIN          40
/* CDP's pipeline (window sum of squares, LUT, multiply) takes this many
 * cycles more to fill than SDP's and PDP's: nv_small's RTL finishes an LRN
 * of N elements in N + 117-123 cycles, its PDP and SDP in N + 93-96
 * (tests/calibration; calibrated on nv_small, estimated elsewhere). */
#define TIMING_CDP_FILL 24
/* The units' read DMA engines (CDMA's data and weights, SDP's, PDP's, CDP's,
 * Rubik's) issue one read request, one bus beat, every other cycle: NVIDIA's
 * RTL under its testbench, which accepts a request every cycle, on nv_small
 * (8-byte beats) and nv_full (64-byte beats: conv_8x8_fc_int16,
 * sdp_relu_int16) alike.  BDMA reads a beat a cycle. */
#define TIMING_PACED_READ_CYCLES 2
/* BDMA's read-to-write chain takes this many cycles more than the other
 * units' pipelines (nv_full RTL: a 2 KiB copy takes 148 cycles, its 32
 * beats plus 116, where SDP and PDP finish 94 and 85 cycles after their
 * last element). */
#define TIMING_BDMA_FILL 22
/* An SDP reading memory through SDP_RDMA starts reading at SDP_RDMA's own
 * enable, running ahead of SDP's enable (the launch) by at most this many
 * cycles (nv_full's RTL, an 8x8x32 int16 ReLU: the layer ends 241 cycles
 * after SDP_RDMA's enable with SDP's 1, 25 or (SDP first) -25 cycles
 * apart, but 190 after SDP's with the RDMA enabled 101 or 234 cycles
 * before; tests/calibration/rtl_nv_full.tsv; calibrated on nv_full,
 * estimated elsewhere). */
#define TIMING_RDMA_MAX_LEAD 50

/* Time every stage of a started pipeline and fill its milestones. */
void timing_plan(struct dla *d, struct dla_pipe *p);

/* Publish the stage's DMA transfers (DLA_EV_DMA) with their modelled cycles. */
void timing_publish_transfers(struct dla *d, struct dla_pipe *p, uint8_t stage);

/* Cycles from a client's first read request to its last response (a
 * D_PERF_*_READ_LATENCY counter: NVIDIA's nv_full RTL counts 298 and 2218 for
 * conv_8x8_fc_int16's data and weight reads, their windows plus latency). */
uint64_t timing_read_window(const struct dla *d, const struct dla_stage *st, enum dla_client c);

/* Bytes per cycle and first-access latency of a memory space. */
unsigned timing_bus_bytes(const struct dla_config *cfg, enum dla_space s);
unsigned timing_latency(const struct dla_config *cfg, enum dla_space s);
/* Cycles a channel of space s is busy moving bytes in one direction, of
 * which paced_read_bytes are reads of the units' read DMA engines. */
uint64_t timing_transfer_cycles(const struct dla_config *cfg, enum dla_space s, uint64_t bytes,
                                uint64_t paced_read_bytes);

#endif
