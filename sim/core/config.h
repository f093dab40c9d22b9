/* Hardware configurations NVIDIA defines (nvdla/hw spec/defs/<config>.spec),
 * kept as data.  Everything configuration-dependent in the model reads these
 * figures instead of testing configuration names. */
#ifndef DLA_CONFIG_H
#define DLA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* Data types a configuration's convolution core supports (bit set).  Bit n
 * is precision n as every unit's precision field encodes it (0 int8,
 * 1 int16, 2 fp16). */
enum dla_dtype_bits {
    DLA_DT_INT8 = 1u << 0,
    DLA_DT_INT16 = 1u << 1,
    DLA_DT_FP16 = 1u << 2,
};

struct dla_config {
    const char *name;
    const char *regmap; /* register map name for regdb_map(): "nv_full" or "nv_small" */
    const char *summary;

    unsigned atomic_c; /* MAC atomic C: input channels per atomic operation (int8) */
    unsigned atomic_k; /* MAC atomic K: kernels per atomic operation (int8) */
    unsigned mem_atom; /* memory atomic size in bytes (feature surfaces are made of atoms) */
    unsigned dtypes;   /* enum dla_dtype_bits */

    unsigned cbuf_banks;       /* number of CONV_BUF banks */
    unsigned cbuf_bank_bytes;  /* bytes per bank */
    unsigned cbuf_entry_bytes; /* bytes per CBUF entry (one atomic-C slice of a line) */

    bool winograd, weight_compression, batch;
    unsigned max_batch;

    bool bdma, rubik, cvsram; /* cvsram = secondary memory interface (CVIF) */
    bool sdp_bs, sdp_bn, sdp_ew, sdp_lut;
    unsigned sdp_bs_throughput, sdp_bn_throughput, sdp_ew_throughput;
    unsigned pdp_throughput, cdp_throughput;

    unsigned pri_bus_bits, pri_burst, pri_latency; /* primary memory interface (MCIF) */
    unsigned sec_bus_bits, sec_burst, sec_latency; /* secondary interface; 0 bits when absent */
    unsigned addr_bits;                            /* memory address width */

    /* Cycles after reset until CDMA's CBUF flush is done (S_CBUF_FLUSH_STATUS
     * reads FLUSH_DONE): the RTL clears the data banks with a counter that
     * runs one step a core clock and signals done when its top bit sets
     * (NV_NVDLA_CDMA_cvt.v). */
    unsigned cbuf_flush_cycles;

    /* Cycles a CSB access keeps the driver busy: a write is posted, a read
     * waits for its response (nv_full calibrated on the RTL's testbench, see
     * tests/calibration; the v2 figures are the same, not measured). */
    unsigned csb_write_cycles, csb_read_cycles;
    /* Extra fill of an SDP that reads its input through SDP_RDMA (timing.c):
     * nv_full's RTL ends an 8x8x32 int16 ReLU from memory 240 cycles after
     * its launch when the RDMA did not read ahead, 18 more than the common
     * stage timing gives (calibrated); nv_small's SDP rows need none. */
    unsigned rdma_head_fill;

    /* First-access read latency as a DLA unit sees it through MCIF (DRAM) and
     * CVIF (CV-SRAM), memory included: calibrated on nv_full (DRAM 78, CV-SRAM
     * 58) and nv_small (DRAM 80) against the RTL with NVIDIA's testbench
     * memory (32 cycles of AXI read latency); the other configurations take
     * nv_small's 80 and 60, not measured.  The
     * *_latency figures above are the spec's latency-hiding targets (buffer
     * sizing), not what a transfer waits. */
    unsigned dram_read_latency, cvsram_read_latency;

    /* The units (1 << enum dla_proc) whose layer timing was compared with
     * this configuration's RTL (tests/calibration/rtl_*.tsv); the others'
     * figures are estimates.  dla_cycles_calibrated reads it. */
    unsigned calibrated_units;

    /* Whether whole networks, from the first layer's launch to the last
     * interrupt, were compared with this configuration's RTL
     * (tests/calibration/rtl_networks.tsv, within 5%); the run's total is an
     * estimate otherwise.  dla_network_calibrated reads it. */
    bool calibrated_networks;
};

/* Configuration by name, or NULL. */
const struct dla_config *dla_config_find(const char *name);

/* All configurations, nv_full first; *n receives the count. */
const struct dla_config *dla_config_all(size_t *n);

/* The default configuration (nv_full). */
const struct dla_config *dla_config_default(void);

/* Entries per CBUF bank. */
static inline unsigned dla_cbuf_bank_entries(const struct dla_config *c)
{
    return c->cbuf_bank_bytes / c->cbuf_entry_bytes;
}

/* A precision field's value as text: "int8", "int16", "fp16", "reserved". */
static inline const char *dla_precision_name(unsigned prec)
{
    static const char *const names[] = {"int8", "int16", "fp16", "reserved"};
    return names[prec & 3];
}

/* Whether cfg supports the precision a unit's precision field selects;
 * false for the reserved value 3 and above. */
static inline bool dla_config_has_precision(const struct dla_config *cfg, unsigned prec)
{
    return prec <= 2 && (cfg->dtypes & (1u << prec)) != 0;
}

#endif
