#!/usr/bin/env python3
"""Writes the calibration traces: small nv_full input.txn traces, one hardware
layer each, that the timing model is compared on with NVIDIA's RTL
(tests/calibration/rtl_nv_full.tsv holds the RTL's cycle counts).

    python3 tests/calibration/make_traces.py OUTDIR

Each trace programs one BDMA copy, one PDP pooling layer or one SDP ReLU read from
memory, launches it,
waits for the interrupt and checks GLB.S_INTR_STATUS for its done bit, in the nvdlav1 traceplayer
language (write_reg/read_reg with 0xffffNNNN word addresses).  Memory is not
loaded: the layers' timing does not depend on the data (zeros).
"""
import os
import sys

BDMA = 0xffff1000  # word addresses of BDMA's CFG registers
GLB_INTR_STATUS = 0xffff0003
BDMA_DONE0 = 1 << 6
PDP_DONE0 = 1 << 4
SDP_DONE0 = 1 << 0


def wr(lines, addr, value, name):
    lines.append("write_reg 0x%08x 0x%x #%s" % (addr, value, name))


def poll(lines, bit, name):
    """Wait for the interrupt line (the RTL testbench's read_reg gives up after
    ten tries), then check and clear the unit's done bit."""
    lines.append("wait")
    lines.append("read_reg 0x%08x 0x%08x 0x%08x #GLB.S_INTR_STATUS %s" %
                 (GLB_INTR_STATUS, bit, bit, name))
    wr(lines, GLB_INTR_STATUS, bit, "GLB.S_INTR_STATUS (clear)")


def bdma_trace(line_bytes, lines_n, surfaces, cvsram):
    """One BDMA copy: surfaces x lines of line_bytes, packed."""
    src = 0x50000000 if cvsram else 0x80000000
    dst = src + 0x01000000
    ram = 0 if cvsram else 3  # CFG_CMD: source and destination on MC (1) or CV-SRAM (0)
    line_stride = line_bytes
    surf_stride = line_bytes * lines_n
    out = []
    wr(out, BDMA + 0x0, src, "BDMA.CFG_SRC_ADDR_LOW")
    wr(out, BDMA + 0x1, 0, "BDMA.CFG_SRC_ADDR_HIGH")
    wr(out, BDMA + 0x2, dst, "BDMA.CFG_DST_ADDR_LOW")
    wr(out, BDMA + 0x3, 0, "BDMA.CFG_DST_ADDR_HIGH")
    wr(out, BDMA + 0x4, line_bytes // 32 - 1, "BDMA.CFG_LINE")
    wr(out, BDMA + 0x5, ram, "BDMA.CFG_CMD")
    wr(out, BDMA + 0x6, lines_n - 1, "BDMA.CFG_LINE_REPEAT")
    wr(out, BDMA + 0x7, line_stride, "BDMA.CFG_SRC_LINE")
    wr(out, BDMA + 0x8, line_stride, "BDMA.CFG_DST_LINE")
    wr(out, BDMA + 0x9, surfaces - 1, "BDMA.CFG_SURF_REPEAT")
    wr(out, BDMA + 0xa, surf_stride, "BDMA.CFG_SRC_SURF")
    wr(out, BDMA + 0xb, surf_stride, "BDMA.CFG_DST_SURF")
    wr(out, BDMA + 0xc, 1, "BDMA.CFG_OP (EN)")
    wr(out, BDMA + 0xd, 1, "BDMA.CFG_LAUNCH0")
    poll(out, BDMA_DONE0, "BDMA_DONE_STATUS0")
    return out


def pdp_trace(w, h, c, k, s, prec):
    """One offline PDP max pooling layer, w x h x c, kernel k x k, stride s."""
    atom = 32
    ow, oh = (w - k) // s + 1, (h - k) // s + 1
    src, dst = 0x80000000, 0x80100000
    line, surf = w * atom, w * h * atom
    oline, osurf = ow * atom, ow * oh * atom
    fmt = 0x101 if prec else 0x0
    kcfg = (k - 1) | (k - 1) << 8 | (s - 1) << 16 | (s - 1) << 20
    pw = lambda x: (x - 1) | (x - 1) << 10 | (x - 1) << 20
    out = []
    for base, unit in ((0xffff3000, "PDP_RDMA"), (0xffff3400, "PDP")):
        rdma = unit == "PDP_RDMA"
        wr(out, base + 3, w - 1, unit + ".D_DATA_CUBE_IN_WIDTH")
        wr(out, base + 4, h - 1, unit + ".D_DATA_CUBE_IN_HEIGHT")
        wr(out, base + 5, c - 1, unit + ".D_DATA_CUBE_IN_CHANNEL")
        if rdma:
            wr(out, base + 6, 1, unit + ".D_FLYING_MODE (off)")
            wr(out, base + 7, src, unit + ".D_SRC_BASE_ADDR_LOW")
            wr(out, base + 8, 0, unit + ".D_SRC_BASE_ADDR_HIGH")
            wr(out, base + 9, line, unit + ".D_SRC_LINE_STRIDE")
            wr(out, base + 0xa, surf, unit + ".D_SRC_SURFACE_STRIDE")
            wr(out, base + 0xb, 1, unit + ".D_SRC_RAM_CFG")
            wr(out, base + 0xc, fmt, unit + ".D_DATA_FORMAT")
            wr(out, base + 0xd, 0, unit + ".D_OPERATION_MODE_CFG")
            wr(out, base + 0xe, (k - 1) | (s - 1) << 4, unit + ".D_POOLING_KERNEL_CFG")
            wr(out, base + 0x10, pw(w), unit + ".D_PARTIAL_WIDTH_IN")
        else:
            wr(out, base + 6, ow - 1, unit + ".D_DATA_CUBE_OUT_WIDTH")
            wr(out, base + 7, oh - 1, unit + ".D_DATA_CUBE_OUT_HEIGHT")
            wr(out, base + 8, c - 1, unit + ".D_DATA_CUBE_OUT_CHANNEL")
            wr(out, base + 9, 0x11, unit + ".D_OPERATION_MODE_CFG (max, offline)")
            wr(out, base + 0xb, pw(w), unit + ".D_PARTIAL_WIDTH_IN")
            wr(out, base + 0xc, pw(ow), unit + ".D_PARTIAL_WIDTH_OUT")
            wr(out, base + 0xd, kcfg, unit + ".D_POOLING_KERNEL_CFG")
            wr(out, base + 0x10, 0, unit + ".D_POOLING_PADDING_CFG")
            wr(out, base + 0x18, src, unit + ".D_SRC_BASE_ADDR_LOW")
            wr(out, base + 0x19, 0, unit + ".D_SRC_BASE_ADDR_HIGH")
            wr(out, base + 0x1a, line, unit + ".D_SRC_LINE_STRIDE")
            wr(out, base + 0x1b, surf, unit + ".D_SRC_SURFACE_STRIDE")
            wr(out, base + 0x1c, dst, unit + ".D_DST_BASE_ADDR_LOW")
            wr(out, base + 0x1d, 0, unit + ".D_DST_BASE_ADDR_HIGH")
            wr(out, base + 0x1e, oline, unit + ".D_DST_LINE_STRIDE")
            wr(out, base + 0x1f, osurf, unit + ".D_DST_SURFACE_STRIDE")
            wr(out, base + 0x20, 1, unit + ".D_DST_RAM_CFG")
            wr(out, base + 0x21, fmt, unit + ".D_DATA_FORMAT")
    wr(out, 0xffff3002, 1, "PDP_RDMA.D_OP_ENABLE")
    wr(out, 0xffff3402, 1, "PDP.D_OP_ENABLE")
    poll(out, PDP_DONE0, "PDP_DONE_STATUS0")
    return out


def sdp_trace(w, h, c, reads_between, sdp_first=False):
    """One int16 ReLU of a w x h x c cube read from memory through SDP_RDMA
    (as NVIDIA's sdp_relu_int16 programs it), the two op enables apart by
    reads_between CSB reads of SDP_RDMA's D_OP_ENABLE (NVIDIA's trace has one),
    or SDP's enable first: when the layer starts (share/timing-model.md)."""
    atom = 32
    src, dst = 0x80000000, 0x80100000
    line, surf = w * atom, w * h * atom
    rdma, sdp = 0xffff2800, 0xffff2c00
    program = [
        (rdma + 0x1c, 0x54, "SDP_RDMA.D_FEATURE_MODE_CFG (offline, int16)"),
        (rdma + 0x03, w - 1, "SDP_RDMA.D_DATA_CUBE_WIDTH"),
        (rdma + 0x04, h - 1, "SDP_RDMA.D_DATA_CUBE_HEIGHT"),
        (rdma + 0x05, c - 1, "SDP_RDMA.D_DATA_CUBE_CHANNEL"),
        (rdma + 0x06, src, "SDP_RDMA.D_SRC_BASE_ADDR_LOW"),
        (rdma + 0x07, 0, "SDP_RDMA.D_SRC_BASE_ADDR_HIGH"),
        (rdma + 0x08, line, "SDP_RDMA.D_SRC_LINE_STRIDE"),
        (rdma + 0x09, surf, "SDP_RDMA.D_SRC_SURFACE_STRIDE"),
        (rdma + 0x1d, 1, "SDP_RDMA.D_SRC_DMA_CFG (MC)"),
        (rdma + 0x0a, 0x39, "SDP_RDMA.D_BRDMA_CFG (disabled)"),
        (rdma + 0x10, 0x31, "SDP_RDMA.D_NRDMA_CFG (disabled)"),
        (rdma + 0x16, 0x31, "SDP_RDMA.D_ERDMA_CFG (disabled)"),
        (sdp + 0x0f, w - 1, "SDP.D_DATA_CUBE_WIDTH"),
        (sdp + 0x10, h - 1, "SDP.D_DATA_CUBE_HEIGHT"),
        (sdp + 0x11, c - 1, "SDP.D_DATA_CUBE_CHANNEL"),
        (sdp + 0x13, 0, "SDP.D_DST_BASE_ADDR_HIGH"),
        (sdp + 0x12, dst, "SDP.D_DST_BASE_ADDR_LOW"),
        (sdp + 0x14, line, "SDP.D_DST_LINE_STRIDE"),
        (sdp + 0x15, surf, "SDP.D_DST_SURFACE_STRIDE"),
        (sdp + 0x16, 0x1a, "SDP.D_DP_BS_CFG (ReLU only)"),
        (sdp + 0x18, 0, "SDP.D_DP_BS_ALU_SRC_VALUE"),
        (sdp + 0x1a, 1, "SDP.D_DP_BS_MUL_SRC_VALUE"),
        (sdp + 0x19, 0, "SDP.D_DP_BS_MUL_CFG"),
        (sdp + 0x1b, 0x53, "SDP.D_DP_BN_CFG (bypass)"),
        (sdp + 0x20, 0x53, "SDP.D_DP_EW_CFG (bypass)"),
        (sdp + 0x2c, 0, "SDP.D_FEATURE_MODE_CFG (offline)"),
        (sdp + 0x2d, 1, "SDP.D_DST_DMA_CFG (MC)"),
        (sdp + 0x2f, 5, "SDP.D_DATA_FORMAT (int16)"),
        (sdp + 0x30, 0, "SDP.D_CVT_OFFSET"),
        (sdp + 0x31, 1, "SDP.D_CVT_SCALE"),
        (sdp + 0x32, 0, "SDP.D_CVT_SHIFT"),
    ]
    out = []
    for addr, value, name in program:
        wr(out, addr, value, name)
    enables = [(rdma + 0x02, "SDP_RDMA.D_OP_ENABLE"), (sdp + 0x0e, "SDP.D_OP_ENABLE")]
    if sdp_first:
        enables.reverse()
    wr(out, enables[0][0], 1, enables[0][1])
    for _ in range(reads_between):
        out.append("read_reg 0x%08x 0x00000001 0x00000001 #%s (between the enables)" % enables[0])
    wr(out, enables[1][0], 1, enables[1][1])
    poll(out, SDP_DONE0, "SDP_DONE_STATUS0")
    return out


CASES = {
    "bdma_1x32": lambda: bdma_trace(32, 1, 1, False),
    "bdma_8x256": lambda: bdma_trace(256, 8, 1, False),
    "bdma_64x256": lambda: bdma_trace(256, 64, 1, False),
    "bdma_16x1024x4": lambda: bdma_trace(1024, 16, 4, False),
    "bdma_cvsram_1x32": lambda: bdma_trace(32, 1, 1, True),
    "bdma_cvsram_64x256": lambda: bdma_trace(256, 64, 1, True),
    "pdp_int8_8x8x32_k2s2": lambda: pdp_trace(8, 8, 32, 2, 2, 0),
    "pdp_int8_16x16x64_k3s1": lambda: pdp_trace(16, 16, 64, 3, 1, 0),
    "pdp_int16_8x8x64_k2s1": lambda: pdp_trace(8, 8, 64, 2, 1, 1),
    "pdp_int16_16x16x32_k2s2": lambda: pdp_trace(16, 16, 32, 2, 2, 1),
    "sdp_relu_int16_8x8x32_reads0": lambda: sdp_trace(8, 8, 32, 0),
    "sdp_relu_int16_8x8x32_reads1": lambda: sdp_trace(8, 8, 32, 1),
    "sdp_relu_int16_8x8x32_reads5": lambda: sdp_trace(8, 8, 32, 5),
    "sdp_relu_int16_8x8x32_reads12": lambda: sdp_trace(8, 8, 32, 12),
    "sdp_relu_int16_8x8x32_sdp_first": lambda: sdp_trace(8, 8, 32, 1, sdp_first=True),
    "sdp_relu_int16_1x1x512_reads0": lambda: sdp_trace(1, 1, 512, 0),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_traces.py OUTDIR")
    for name, make in CASES.items():
        d = os.path.join(sys.argv[1], name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input.txn"), "w") as f:
            f.write("# calibration trace %s (tests/calibration/make_traces.py)\n" % name)
            f.write("\n".join(make()) + "\n")


if __name__ == "__main__":
    main()
