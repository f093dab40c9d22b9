/* The programming-guide rules the model checks: one row per rule id that a
 * unit passes to dla_rule(), with the unit, the guide section the rule comes
 * from and what the guide asks, in our words.  dla_rule() counts every hit
 * here, so "info rules" can say how often each fired; the counts live in the
 * model's state and follow checkpoints and resets.
 *
 * Sections: "NVDLA v1 programming guide" (BDMA, Rubik, convolution pipeline,
 * SDP, PDP, CDP programming and its list of limitations) and "LUT
 * programming" (the LUT chapter). */
#include <string.h>

#include "dla_priv.h"

static const struct dla_rule_info rules[] = {
    /* BDMA programming */
    {"bdma.free_slot", DLA_U_BDMA, "BDMA programming",
     "stage an operation (CFG_OP.EN) only while STATUS.FREE_SLOT shows a free slot"},
    {"bdma.group_busy", DLA_U_BDMA, "BDMA programming",
     "launch a group (CFG_LAUNCH0/1) only when that group is idle"},
    {"bdma.same_dst_ram", DLA_U_BDMA, "BDMA programming",
     "all operations of one launched group write the same destination RAM type"},
    {"bdma.size", DLA_U_BDMA, "BDMA programming",
     "one group moves no more than the transfer sizes the registers can describe"},
    /* Convolution pipeline programming */
    {"conv.op_en_order", DLA_U_CDMA, "Convolution pipeline programming",
     "enable the pipeline downstream first: CACC, CMAC, CSC, then CDMA"},
    {"cdma.data_reuse", DLA_U_CDMA, "Convolution pipeline programming",
     "DATA_REUSE only when the previous layer left its input data in CBUF"},
    {"cdma.weight_reuse", DLA_U_CDMA, "Convolution pipeline programming",
     "WEIGHT_REUSE only when the previous layer kept all its weights in CBUF "
     "(SKIP_WEIGHT_RLS, same mode and banks)"},
    {"cdma.pixel_format", DLA_U_CDMA, "Convolution pipeline programming",
     "image input uses one of the defined PIXEL_FORMAT values"},
    {"cdma.image_batch", DLA_U_CDMA, "Convolution pipeline programming (feature crossing)",
     "image input cannot be combined with multi-batch"},
    {"cdma.pixel_y_offset", DLA_U_CDMA, "Convolution pipeline programming",
     "PIXEL_Y_OFFSET is 0 for pitch-linear image input"},
    {"cdma.entry_per_slice", DLA_U_CDMA, "Convolution pipeline programming",
     "ENTRY_PER_SLICE covers one padded input line (CBUF entries per slice)"},
    {"cdma.precision", DLA_U_CDMA, "Convolution pipeline programming",
     "IN_PRECISION and PROC_PRECISION are INT8, INT16 or FP16"},
    {"cdma.precision_convert", DLA_U_CDMA, "Convolution pipeline programming",
     "input and processing precision differ only through the CDMA convertor, which cannot "
     "turn fp16 into an integer format"},
    {"cdma.batch", DLA_U_CDMA, "Convolution pipeline programming",
     "BATCHES within the configuration's maximum batch size"},
    {"cdma.padding_size", DLA_U_CDMA, "Convolution pipeline programming",
     "each padding size smaller than the (dilated) kernel"},
    {"cdma.weight_bytes", DLA_U_CDMA, "Convolution pipeline programming",
     "WEIGHT_BYTES = R*S*C*BPE*K (kernel bytes times kernels, 128-byte aligned)"},
    {"cdma.winograd_size", DLA_U_CDMA, "Convolution pipeline programming (Winograd)",
     "the padded Winograd input is a multiple of 4 x stride in width and height"},
    {"csc.post_extension", DLA_U_CSC, "Convolution pipeline programming (image input)",
     "Y_EXTENSION keeps kernel channels x lines within one atomic operation"},
    {"csc.image_dilation", DLA_U_CSC, "Convolution pipeline programming (feature crossing)",
     "dilation is not available with image input"},
    {"csc.winograd_image", DLA_U_CSC, "Convolution pipeline programming (feature crossing)",
     "Winograd is not available with image input"},
    {"csc.winograd_crossing", DLA_U_CSC, "Convolution pipeline programming (feature crossing)",
     "Winograd cannot be combined with multi-batch or dilation"},
    {"csc.winograd_ext", DLA_U_CSC, "Convolution pipeline programming (Winograd)",
     "DATAIN_SIZE_EXT is the extended (transformed) input cube"},
    {"csc.winograd_output", DLA_U_CSC, "Convolution pipeline programming (Winograd)",
     "Winograd output width and height are multiples of 4 and at least 8"},
    {"csc.winograd_kernel", DLA_U_CSC, "Convolution pipeline programming (Winograd)",
     "Winograd takes 4x4 pre-transformed kernels; output = input - 2"},
    {"csc.output_size", DLA_U_CSC, "Convolution pipeline programming (output size)",
     "output = (pad_left + W + pad_right - S') / stride_x + 1, S' = (S-1)*dilation + 1, "
     "likewise for the height"},
    {"csc.datain_size", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "CSC DATAIN_SIZE_EXT equals CDMA DATAIN_SIZE for direct convolution"},
    {"csc.kernels", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "output channels equal the number of kernels"},
    {"csc.weight_kernel", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "CSC WEIGHT_KERNEL equals CDMA WEIGHT_KERNEL (CSC computes its own count)"},
    {"csc.atomics", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "D_ATOMICS = output width x output height (direct convolution)"},
    {"cacc.dataout_size", DLA_U_CACC, "Convolution pipeline programming (register definition)",
     "CACC DATAOUT_SIZE equals the CSC output cube"},
    {"cacc.clip_truncate", DLA_U_CACC, "Convolution pipeline programming",
     "CLIP_TRUNCATE at most 16 (48-bit accumulator to 32-bit output)"},
    /* SDP programming */
    {"sdp.precision", DLA_U_SDP, "SDP programming", "precision fields select INT8, INT16 or FP16"},
    {"sdp.precision_absent", DLA_U_SDP, "SDP programming",
     "a precision the configuration supports"},
    {"sdp.batch", DLA_U_SDP, "SDP programming (batch mode)",
     "BATCH_NUMBER within the configuration's batch support"},
    {"sdp.offline_batch", DLA_U_SDP, "SDP programming (batch mode)",
     "batch mode takes its input on the fly from CACC"},
    {"sdp.prelu_alu", DLA_U_SDP, "SDP programming",
     "with PReLU enabled the stage's ALU is bypassed"},
    {"sdp.fp16_to_int8", DLA_U_SDP, "SDP programming (precision conversion)",
     "fp16 processing outputs fp16 or int16, not int8"},
    {"sdp.precision_conversion", DLA_U_SDP, "SDP programming (precision conversion)",
     "no precision conversion in EQL mode or when the output goes to PDP"},
    {"sdp.eql_cvt", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode: output converter is identity (offset 0, scale 1, shift 0)"},
    {"sdp.eql_alu_cvt", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode: the EW ALU converter is bypassed"},
    {"sdp.eql_after_alu", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode: everything after the EW ALU (the LUT) is bypassed"},
    {"sdp.eql_mode", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode needs WINOGRAD off and BATCH_NUMBER 0"},
    {"sdp.flying_cube_mismatch", DLA_U_SDP, "SDP programming",
     "on the fly, SDP's cube equals the cube CACC delivers"},
    {"sdp.rdma_needed", DLA_U_SDP, "SDP programming",
     "offline SDP reads its input through SDP_RDMA, which must be enabled"},
    {"sdp_rdma.cube_mismatch", DLA_U_SDP_RDMA, "SDP programming", "SDP_RDMA's cube equals SDP's"},
    {"sdp_rdma.precision_mismatch", DLA_U_SDP_RDMA, "SDP programming",
     "SDP_RDMA PROC_PRECISION equals SDP's"},
    {"sdp_rdma.data_use", DLA_U_SDP_RDMA, "SDP programming (BRDMA/NRDMA/ERDMA data mode)",
     "each operand stream delivers the ALU/MUL operands its SDP stage takes from memory"},
    {"sdp_rdma.operand_disabled", DLA_U_SDP_RDMA, "SDP programming",
     "an SDP stage that takes operands from memory has its SDP_RDMA stream enabled"},
    {"sdp_rdma.unused_stream", DLA_U_SDP_RDMA, "SDP programming",
     "an SDP_RDMA stream is enabled only when its stage takes operands from memory"},
    {"sdp.lut_le_range", DLA_U_SDP, "LUT programming", "LE table end above its start"},
    {"sdp.lut_lo_range", DLA_U_SDP, "LUT programming", "LO table end above its start"},
    /* PDP programming */
    {"pdp.split_width", DLA_U_PDP, "PDP programming (offline with split width)",
     "every split has input: partial width plus overlap above zero"},
    {"pdp.rdma_mismatch", DLA_U_PDP_RDMA, "PDP programming",
     "PDP_RDMA's cube, format, kernel and split registers equal PDP's"},
    {"pdp.split_overlap", DLA_U_PDP, "PDP programming (offline with split width)",
     "partial input widths hold the overlap the kernel and stride need"},
    {"pdp.pad_below_kernel", DLA_U_PDP, "PDP programming", "each padding smaller than the kernel"},
    {"pdp.width_in_out", DLA_U_PDP, "PDP programming",
     "input width + padding = (output width - 1) * stride + kernel, per split"},
    {"pdp.split_out_sum", DLA_U_PDP, "PDP programming (offline with split width)",
     "the splits' output widths add up to CUBE_OUT_WIDTH"},
    {"pdp.channels", DLA_U_PDP, "PDP programming", "CUBE_OUT_CHANNEL equals CUBE_IN_CHANNEL"},
    {"pdp.method", DLA_U_PDP, "PDP programming", "POOLING_METHOD is average, max or min"},
    {"pdp.split_on_the_fly", DLA_U_PDP, "PDP programming (on-the-fly processing)",
     "split width is for offline pooling only"},
    {"pdp.flying_input", DLA_U_PDP, "PDP programming (on-the-fly processing)",
     "on the fly, PDP takes SDP's output cube in its own format"},
    {"pdp.unreached_output", DLA_U_PDP, "PDP programming",
     "every output element is covered by an input window"},
    /* CDP programming */
    {"cdp.rdma_format", DLA_U_CDP_RDMA, "CDP programming", "CDP_RDMA's input format equals CDP's"},
    {"cdp.lut_le_range", DLA_U_CDP, "LUT programming", "LE table end above its start"},
    {"cdp.lut_lo_range", DLA_U_CDP, "LUT programming", "LO table end above its start"},
    /* Rubik programming */
    {"rbk.precision", DLA_U_RBK, "Rubik programming", "IN_PRECISION is INT8, INT16 or FP16"},
    {"rbk.mode", DLA_U_RBK, "Rubik programming", "RUBIK_MODE is contract, split or merge"},
    {"rbk.contract_width", DLA_U_RBK, "Rubik programming (limitations)",
     "contract: DECONV_X_STRIDE * DATAIN_WIDTH at most 8192"},
    {"rbk.planar_align", DLA_U_RBK, "Rubik programming (limitations)",
     "planar address, line stride and planar stride 64-byte aligned"},
    {"rbk.channels", DLA_U_RBK, "Rubik programming",
     "split and merge keep the channel count (DATAIN_CHANNEL = DATAOUT_CHANNEL)"},
};

_Static_assert(sizeof rules / sizeof rules[0] <= DLA_MAX_RULES, "raise DLA_MAX_RULES");

size_t dla_rule_count(void)
{
    return sizeof rules / sizeof rules[0];
}

const struct dla_rule_info *dla_rule_info(size_t i)
{
    return i < dla_rule_count() ? &rules[i] : NULL;
}

long dla_rule_find(const char *id)
{
    for (size_t i = 0; id && i < dla_rule_count(); i++)
        if (!strcmp(rules[i].id, id))
            return (long)i;
    return -1;
}

uint64_t dla_rule_hits(const struct dla *d, size_t i)
{
    return i < dla_rule_count() ? d->rule_hits[i] : 0;
}

void rule_count_hit(struct dla *d, const char *id)
{
    long i = dla_rule_find(id);
    if (i >= 0)
        d->rule_hits[i]++;
}
