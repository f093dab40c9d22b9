/* The firmware interface structures a DLA task carries in memory: network
 * descriptor, dependency graph entries, operation and surface descriptors of
 * each processor, LUT parameters.  Decoded from little-endian bytes into
 * plain C structs; two layouts exist:
 *   legacy (blob version <= 0.11, and ONNC's untagged 1.2.0 blobs): data
 *           cubes are 28 bytes, no offset field;
 *   current (0.12): data cubes are 32 bytes with an offset after the address.
 * The containers keep their sizes in both layouts (operation 116 bytes,
 * surface 644 bytes, common op 36 bytes, LUT 700 bytes, network 40 bytes). */
#ifndef DLADBG_FW_DESC_H
#define DLADBG_FW_DESC_H

#include <stdbool.h>
#include <stdint.h>

#define FW_NETWORK_SIZE       40
#define FW_COMMON_OP_SIZE     36
#define FW_OP_SIZE            116
#define FW_SURFACE_SIZE       644
#define FW_LUT_SIZE           700
#define FW_OP_TYPES           6
#define FW_MAX_BDMA_TRANSFERS 20

/* Byte offset of dependency_count in a common op descriptor: the firmware
 * writes the count back there when it releases the descriptor. */
#define FW_DEPENDENCY_COUNT_AT 4

enum fw_layout { FW_LAYOUT_LEGACY, FW_LAYOUT_CURRENT };

enum fw_op_type { FW_OP_BDMA, FW_OP_CONV, FW_OP_SDP, FW_OP_PDP, FW_OP_CDP, FW_OP_RUBIK };

enum fw_event {
    FW_EV_OP_COMPLETED = 1,
    FW_EV_OP_PROGRAMMED = 2,
    FW_EV_OP_ENABLED = 3,
    FW_EV_CDMA_WT_DONE = 4,
    FW_EV_CDMA_DT_DONE = 5,
};

enum fw_mem_type { FW_MEM_MC = 0, FW_MEM_CV = 1, FW_MEM_HW = 2 };
enum fw_precision { FW_PREC_INT8 = 0, FW_PREC_INT16 = 1, FW_PREC_FP16 = 2 };
enum fw_sdp_op_type { FW_SDP_NONE = 0, FW_SDP_MUL = 1, FW_SDP_ADD = 2, FW_SDP_BOTH = 3 };
enum fw_sdp_mode { FW_SDP_PER_LAYER = 0, FW_SDP_PER_KERNEL = 1, FW_SDP_PER_POINT = 2 };
enum fw_act { FW_ACT_NONE = 0, FW_ACT_RELU = 1, FW_ACT_LUT = 2, FW_ACT_PRELU = 3 };
enum fw_rubik_mode { FW_RUBIK_CONTRACT = 0, FW_RUBIK_SPLIT = 1, FW_RUBIK_MERGE = 2 };

struct fw_network {
    int16_t operation_desc_index, surface_desc_index, dependency_graph_index, lut_data_index;
    int16_t roi_array_index, surface_index, stat_list_index;
    int16_t op_head[FW_OP_TYPES];
    uint16_t num_rois, num_operations, num_luts, num_addresses;
    int16_t input_layer;
    uint8_t dynamic_roi;
};

struct fw_consumer {
    int16_t index;
    uint8_t event;
};

struct fw_common_op {
    int16_t index;
    int8_t roi_index;
    uint8_t op_type;
    uint8_t dependency_count;
    struct fw_consumer consumers[FW_OP_TYPES];
    struct fw_consumer fused_parent;
};

struct fw_cube {
    uint16_t type;
    int16_t address;
    uint32_t offset; /* 0 in the legacy layout */
    uint32_t size;
    uint16_t width, height, channel;
    uint32_t line_stride, surf_stride, plane_stride;
};

struct fw_cvt {
    int16_t scale;
    uint8_t truncate, enable;
    int32_t offset;
};

struct fw_bdma_transfer {
    int16_t source_address, destination_address;
    uint32_t line_size, line_repeat, source_line, destination_line;
    uint32_t surface_repeat, source_surface, destination_surface;
};

struct fw_bdma_surface {
    uint8_t source_type, destination_type;
    uint16_t num_transfers;
    struct fw_bdma_transfer transfers[FW_MAX_BDMA_TRANSFERS];
};

struct fw_conv_surface {
    struct fw_cube weight, wmb, wgs, src, dst;
    int64_t offset_u;
    uint32_t in_line_uv_stride;
};

struct fw_conv_op {
    uint8_t conv_mode, data_reuse, weight_reuse, skip_data_rls, skip_weight_rls;
    uint16_t entry_per_slice;
    uint8_t data_format, pixel_mapping;
    uint16_t fetch_grain;
    uint8_t batch, weight_format, data_bank, weight_bank;
    uint32_t batch_stride;
    uint8_t post_extension, pixel_override;
    uint16_t release;
    uint16_t input_width_csc, input_height_csc, input_channel_csc;
    uint16_t kernel_width_csc, kernel_height_csc, kernel_channel_csc;
    uint16_t input_width_cmac, input_height_cmac;
    uint32_t bytes_per_kernel;
    int16_t mean_ry, mean_gu, mean_bv, mean_ax;
    uint8_t mean_format, conv_stride_x, conv_stride_y;
    uint8_t pad_x_left, pad_x_right, pad_y_top, pad_y_bottom, dilation_x, dilation_y;
    uint8_t pra_truncate, in_precision, out_precision;
    int16_t pad_val;
    struct fw_cvt in_cvt, out_cvt;
};

struct fw_sdp_stage {
    uint8_t enable, alu_type, type, mode, act, shift_value, truncate, precision;
    int32_t alu_operand, mul_operand;
    struct fw_cvt alu_cvt, mul_cvt;
};

struct fw_sdp_surface {
    struct fw_cube src, x1, x2, y, dst;
};

struct fw_sdp_op {
    uint8_t src_precision, dst_precision;
    int16_t lut_index;
    struct fw_cvt out_cvt;
    uint8_t conv_mode, batch_num;
    uint32_t batch_stride;
    struct fw_sdp_stage x1, x2, y;
};

struct fw_pdp_surface {
    struct fw_cube src, dst;
};

struct fw_pdp_op {
    uint16_t partial_in_width_first, partial_in_width_mid, partial_in_width_last;
    uint16_t partial_width_first, partial_width_mid, partial_width_last;
    uint8_t split_num, pool_mode, pool_width, pool_height, stride_x, stride_y;
    uint8_t pad_left, pad_right, pad_top, pad_bottom, precision;
    int32_t padding_value[7];
};

struct fw_cdp_op {
    uint8_t in_precision, out_precision;
    int16_t lut_index;
    struct fw_cvt in_cvt, out_cvt;
    uint8_t local_size, bypass_sqsum, bypass_out_mul;
};

struct fw_rubik_op {
    uint8_t mode, precision, stride_x, stride_y;
};

/* One operation: its processor's op and surface descriptors. */
struct fw_op {
    uint8_t type; /* enum fw_op_type */
    union {
        struct {
            uint16_t num_transfers;
            struct fw_bdma_surface surface;
        } bdma;
        struct {
            struct fw_conv_op op;
            struct fw_conv_surface surface;
        } conv;
        struct {
            struct fw_sdp_op op;
            struct fw_sdp_surface surface;
        } sdp;
        struct {
            struct fw_pdp_op op;
            struct fw_pdp_surface surface; /* same shape for CDP and RUBIK */
        } pdp;
        struct {
            struct fw_cdp_op op;
            struct fw_pdp_surface surface;
        } cdp;
        struct {
            struct fw_rubik_op op;
            struct fw_pdp_surface surface;
        } rubik;
    } u;
};

struct fw_lut {
    int16_t le_table[65];
    int16_t lo_table[257];
    int8_t le_offset_exp, le_offset_frac; /* the same byte read two ways */
    int8_t lo_offset_exp, lo_offset_frac;
    uint64_t le_start, le_end, lo_start, lo_end;
    /* slopes: integer form (scale, shifter) and fp16 form share storage */
    int16_t le_uflow_scale, le_oflow_scale, lo_uflow_scale, lo_oflow_scale;
    int8_t le_uflow_shift, le_oflow_shift, lo_uflow_shift, lo_oflow_shift;
    uint16_t le_uflow_f, le_oflow_f, lo_uflow_f, lo_oflow_f;
    uint8_t hybrid_priority, underflow_priority, overflow_priority, method;
};

/* Layout of a DLA blob: NVIDIA's versions 0.x say it (<= 0.11 is legacy);
 * under another compiler's numbering (ONNC's 1.2.0) an untagged blob
 * (sub-interface 0) is legacy, a tagged one current. */
enum fw_layout fw_layout_for_blob(uint8_t major, uint8_t minor, uint32_t sub_interface);
/* Whether a DLA task's descriptors may carry version major.minor: NVIDIA's
 * 0.10 and 0.11 (legacy) and 0.12 (current), ONNC's 1.2 and 1.3, untagged
 * 0.0.  fw_versions_known() lists them for messages. */
bool fw_version_known(uint8_t major, uint8_t minor);
const char *fw_versions_known(void);

void fw_decode_network(const uint8_t b[FW_NETWORK_SIZE], struct fw_network *n);
void fw_decode_common_op(const uint8_t b[FW_COMMON_OP_SIZE], struct fw_common_op *c);
/* false when type is not an operation type */
bool fw_decode_op(enum fw_layout layout, uint8_t type, const uint8_t op[FW_OP_SIZE],
                  const uint8_t surface[FW_SURFACE_SIZE], struct fw_op *out);
void fw_decode_lut(const uint8_t b[FW_LUT_SIZE], struct fw_lut *l);

/* Encoders used by the loadable writer and tests (the inverse of the above). */
void fw_encode_network(const struct fw_network *n, uint8_t b[FW_NETWORK_SIZE]);
void fw_encode_common_op(const struct fw_common_op *c, uint8_t b[FW_COMMON_OP_SIZE]);
void fw_encode_op(enum fw_layout layout, const struct fw_op *op, uint8_t opb[FW_OP_SIZE],
                  uint8_t surface[FW_SURFACE_SIZE]);
void fw_encode_lut(const struct fw_lut *l, uint8_t b[FW_LUT_SIZE]);

const char *fw_op_type_name(uint8_t type);

const char *fw_event_name(uint8_t event);

#endif
