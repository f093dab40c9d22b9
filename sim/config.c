/* Configuration table.  Figures from nvdla/hw spec/defs (nv_full from the
 * nvdlav1 branch, the others from master), as summarised in
 * ../shared/docs/nvdla-v2-traces.md section 5; tests/unit/test_config.c
 * checks them against the .spec figures.  A CBUF entry is one bank-RAM line:
 * the bank width on the v2 configurations (nv_large's traces program 16
 * entries a slice for 8 pixels x 128 int8 channels: 64 bytes), and 128 bytes
 * on nv_full, whose int16/fp16 atomic-C slice is 64 x 2 bytes (the cmod
 * models its CBUF as 16 banks x 256 entries x 128 bytes).
 *
 * nv_large follows master's spec/defs/nv_large.spec, the branch its trace tests
 * come from: INT8 only, no Winograd, weight compression, batch, BDMA or Rubik.
 * The nv_small branch's nv_large.spec differs (those features on); the
 * reference doc's table 7.1 quotes that one. */
#include "config.h"

#include <string.h>

#define KIB 1024u

static const struct dla_config configs[] = {
    {
        .name = "nv_full",
        .regmap = "nv_full",
        .summary = "nvdlav1 full: 2048 MACs, int8/int16/fp16, 512 KiB CBUF, BDMA, Rubik, CV-SRAM",
        .atomic_c = 64,
        .atomic_k = 32,
        .mem_atom = 32,
        .dtypes = DLA_DT_INT8 | DLA_DT_INT16 | DLA_DT_FP16,
        .cbuf_banks = 16,
        .cbuf_bank_bytes = 32 * KIB,
        .cbuf_entry_bytes = 128,
        .winograd = true,
        .weight_compression = true,
        .batch = true,
        .max_batch = 32,
        .bdma = true,
        .rubik = true,
        .cvsram = true,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_ew = true,
        .sdp_lut = true,
        .sdp_bs_throughput = 16,
        .sdp_bn_throughput = 16,
        .sdp_ew_throughput = 4,
        .pdp_throughput = 8,
        .cdp_throughput = 8,
        .pri_bus_bits = 512,
        .pri_burst = 1,
        .pri_latency = 1200,
        .sec_bus_bits = 512,
        .sec_burst = 4,
        .sec_latency = 128,
        .addr_bits = 64,
        .cbuf_flush_cycles = 4096,
    },
    {
        .name = "nv_large",
        .regmap = "nv_small",
        .summary = "v2 large: 2048 MACs, int8, 512 KiB CBUF, CV-SRAM",
        .atomic_c = 64,
        .atomic_k = 32,
        .mem_atom = 32,
        .dtypes = DLA_DT_INT8,
        .cbuf_banks = 16,
        .cbuf_bank_bytes = 32 * KIB,
        .cbuf_entry_bytes = 64, /* the trace registers: 8x128 int8 = 16 entries a slice */
        .max_batch = 32,
        .cvsram = true,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_ew = true,
        .sdp_lut = true,
        .sdp_bs_throughput = 16,
        .sdp_bn_throughput = 16,
        .sdp_ew_throughput = 4,
        .pdp_throughput = 8,
        .cdp_throughput = 8,
        .pri_bus_bits = 256,
        .pri_burst = 1,
        .pri_latency = 1024,
        .sec_bus_bits = 256,
        .sec_burst = 1,
        .sec_latency = 1024,
        .addr_bits = 64,
        .cbuf_flush_cycles = 8192,
    },
    {
        .name = "nv_small",
        .regmap = "nv_small",
        .summary = "v2 small: 64 MACs, int8, 128 KiB CBUF, no BDMA/Rubik/CV-SRAM/SDP LUT",
        .atomic_c = 8,
        .atomic_k = 8,
        .mem_atom = 8,
        .dtypes = DLA_DT_INT8,
        .cbuf_banks = 32,
        .cbuf_bank_bytes = 4 * KIB,
        .cbuf_entry_bytes = 8,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_bs_throughput = 1,
        .sdp_bn_throughput = 1,
        .pdp_throughput = 1,
        .cdp_throughput = 1,
        .pri_bus_bits = 64,
        .pri_burst = 1,
        .pri_latency = 64,
        .addr_bits = 32,
        .cbuf_flush_cycles = 8192,
    },
    {
        .name = "nv_small_256",
        .regmap = "nv_small",
        .summary = "v2 small_256: 256 MACs, int8, 128 KiB CBUF",
        .atomic_c = 32,
        .atomic_k = 8,
        .mem_atom = 8,
        .dtypes = DLA_DT_INT8,
        .cbuf_banks = 32,
        .cbuf_bank_bytes = 4 * KIB,
        .cbuf_entry_bytes = 32,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_bs_throughput = 1,
        .sdp_bn_throughput = 1,
        .pdp_throughput = 1,
        .cdp_throughput = 1,
        .pri_bus_bits = 64,
        .pri_burst = 1,
        .pri_latency = 64,
        .addr_bits = 32,
        .cbuf_flush_cycles = 8192,
    },
    {
        .name = "nv_small_256_full",
        .regmap = "nv_small",
        .summary = "v2 small_256_full: 256 MACs, int8, 128 KiB CBUF, CV-SRAM, SDP EW and LUT",
        .atomic_c = 32,
        .atomic_k = 8,
        .mem_atom = 8,
        .dtypes = DLA_DT_INT8,
        .cbuf_banks = 32,
        .cbuf_bank_bytes = 4 * KIB,
        .cbuf_entry_bytes = 32,
        .cvsram = true,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_ew = true,
        .sdp_lut = true,
        .sdp_bs_throughput = 2,
        .sdp_bn_throughput = 2,
        .sdp_ew_throughput = 1,
        .pdp_throughput = 1,
        .cdp_throughput = 1,
        .pri_bus_bits = 64,
        .pri_burst = 4,
        .pri_latency = 64,
        .sec_bus_bits = 64,
        .sec_burst = 4,
        .sec_latency = 64,
        .addr_bits = 32,
        .cbuf_flush_cycles = 8192,
    },
    {
        .name = "nv_medium_512",
        .regmap = "nv_small",
        .summary = "v2 medium_512: 512 MACs, int8, 512 KiB CBUF",
        .atomic_c = 32,
        .atomic_k = 16,
        .mem_atom = 16,
        .dtypes = DLA_DT_INT8,
        .cbuf_banks = 32,
        .cbuf_bank_bytes = 16 * KIB,
        .cbuf_entry_bytes = 32,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_bs_throughput = 4,
        .sdp_bn_throughput = 4,
        .pdp_throughput = 2,
        .cdp_throughput = 2,
        .pri_bus_bits = 128,
        .pri_burst = 4,
        .pri_latency = 256,
        .addr_bits = 64,
        .cbuf_flush_cycles = 16384,
    },
    {
        .name = "nv_medium_1024_full",
        .regmap = "nv_small",
        .summary = "v2 medium_1024_full: 1024 MACs, int8, 512 KiB CBUF, CV-SRAM, SDP EW and LUT",
        .atomic_c = 32,
        .atomic_k = 32,
        .mem_atom = 32,
        .dtypes = DLA_DT_INT8,
        .cbuf_banks = 32,
        .cbuf_bank_bytes = 16 * KIB,
        .cbuf_entry_bytes = 32,
        .cvsram = true,
        .sdp_bs = true,
        .sdp_bn = true,
        .sdp_ew = true,
        .sdp_lut = true,
        .sdp_bs_throughput = 8,
        .sdp_bn_throughput = 8,
        .sdp_ew_throughput = 2,
        .pdp_throughput = 4,
        .cdp_throughput = 4,
        .pri_bus_bits = 256,
        .pri_burst = 4,
        .pri_latency = 1024,
        .sec_bus_bits = 256,
        .sec_burst = 4,
        .sec_latency = 1024,
        .addr_bits = 64,
        .cbuf_flush_cycles = 8192,
    },
};

const struct dla_config *dla_config_find(const char *name)
{
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        if (strcmp(configs[i].name, name) == 0)
            return &configs[i];
    return NULL;
}

const struct dla_config *dla_config_all(size_t *n)
{
    *n = sizeof configs / sizeof configs[0];
    return configs;
}

const struct dla_config *dla_config_default(void)
{
    return &configs[0];
}
