/* Internals shared by the engine's files: the register list, the processor
 * and group state, and the programming helpers each unit file uses. */
#ifndef DLADBG_ENGINE_PRIV_H
#define DLADBG_ENGINE_PRIV_H

#include "engine.h"
#include "loadable/fw_desc.h"

/* Every register the engine writes or reads, resolved once per engine. */
#define ENG_REGS(X)                                                                                \
    X(GLB, S_INTR_MASK)                                                                            \
    X(GLB, S_INTR_STATUS)                                                                          \
    X(BDMA, CFG_SRC_ADDR_LOW)                                                                      \
    X(BDMA, CFG_SRC_ADDR_HIGH)                                                                     \
    X(BDMA, CFG_DST_ADDR_LOW)                                                                      \
    X(BDMA, CFG_DST_ADDR_HIGH)                                                                     \
    X(BDMA, CFG_LINE)                                                                              \
    X(BDMA, CFG_CMD)                                                                               \
    X(BDMA, CFG_LINE_REPEAT)                                                                       \
    X(BDMA, CFG_SRC_LINE)                                                                          \
    X(BDMA, CFG_DST_LINE)                                                                          \
    X(BDMA, CFG_SURF_REPEAT)                                                                       \
    X(BDMA, CFG_SRC_SURF)                                                                          \
    X(BDMA, CFG_DST_SURF)                                                                          \
    X(BDMA, CFG_OP)                                                                                \
    X(BDMA, CFG_LAUNCH0)                                                                           \
    X(BDMA, CFG_LAUNCH1)                                                                           \
    X(BDMA, STATUS)                                                                                \
    X(CACC, S_POINTER)                                                                             \
    X(CACC, S_STATUS)                                                                              \
    X(CACC, D_MISC_CFG)                                                                            \
    X(CACC, D_DATAOUT_SIZE_0)                                                                      \
    X(CACC, D_DATAOUT_SIZE_1)                                                                      \
    X(CACC, D_DATAOUT_ADDR)                                                                        \
    X(CACC, D_BATCH_NUMBER)                                                                        \
    X(CACC, D_LINE_STRIDE)                                                                         \
    X(CACC, D_SURF_STRIDE)                                                                         \
    X(CACC, D_DATAOUT_MAP)                                                                         \
    X(CACC, D_CLIP_CFG)                                                                            \
    X(CACC, D_OP_ENABLE)                                                                           \
    X(CMAC_A, S_POINTER)                                                                           \
    X(CMAC_A, S_STATUS)                                                                            \
    X(CMAC_A, D_MISC_CFG)                                                                          \
    X(CMAC_A, D_OP_ENABLE)                                                                         \
    X(CMAC_B, S_POINTER)                                                                           \
    X(CMAC_B, S_STATUS)                                                                            \
    X(CMAC_B, D_MISC_CFG)                                                                          \
    X(CMAC_B, D_OP_ENABLE)                                                                         \
    X(CSC, S_POINTER)                                                                              \
    X(CSC, S_STATUS)                                                                               \
    X(CSC, D_MISC_CFG)                                                                             \
    X(CSC, D_DATAIN_FORMAT)                                                                        \
    X(CSC, D_DATAIN_SIZE_EXT_0)                                                                    \
    X(CSC, D_DATAIN_SIZE_EXT_1)                                                                    \
    X(CSC, D_BATCH_NUMBER)                                                                         \
    X(CSC, D_POST_Y_EXTENSION)                                                                     \
    X(CSC, D_ENTRY_PER_SLICE)                                                                      \
    X(CSC, D_WEIGHT_FORMAT)                                                                        \
    X(CSC, D_WEIGHT_SIZE_EXT_0)                                                                    \
    X(CSC, D_WEIGHT_SIZE_EXT_1)                                                                    \
    X(CSC, D_WEIGHT_BYTES)                                                                         \
    X(CSC, D_WMB_BYTES)                                                                            \
    X(CSC, D_DATAOUT_SIZE_0)                                                                       \
    X(CSC, D_DATAOUT_SIZE_1)                                                                       \
    X(CSC, D_ATOMICS)                                                                              \
    X(CSC, D_RELEASE)                                                                              \
    X(CSC, D_CONV_STRIDE_EXT)                                                                      \
    X(CSC, D_DILATION_EXT)                                                                         \
    X(CSC, D_ZERO_PADDING)                                                                         \
    X(CSC, D_ZERO_PADDING_VALUE)                                                                   \
    X(CSC, D_BANK)                                                                                 \
    X(CSC, D_PRA_CFG)                                                                              \
    X(CSC, D_OP_ENABLE)                                                                            \
    X(CDMA, S_POINTER)                                                                             \
    X(CDMA, S_STATUS)                                                                              \
    X(CDMA, S_CBUF_FLUSH_STATUS)                                                                   \
    X(CDMA, D_MISC_CFG)                                                                            \
    X(CDMA, D_DATAIN_FORMAT)                                                                       \
    X(CDMA, D_DATAIN_SIZE_0)                                                                       \
    X(CDMA, D_DATAIN_SIZE_1)                                                                       \
    X(CDMA, D_DATAIN_SIZE_EXT_0)                                                                   \
    X(CDMA, D_DAIN_RAM_TYPE)                                                                       \
    X(CDMA, D_DAIN_ADDR_HIGH_0)                                                                    \
    X(CDMA, D_DAIN_ADDR_LOW_0)                                                                     \
    X(CDMA, D_DAIN_ADDR_HIGH_1)                                                                    \
    X(CDMA, D_DAIN_ADDR_LOW_1)                                                                     \
    X(CDMA, D_LINE_STRIDE)                                                                         \
    X(CDMA, D_SURF_STRIDE)                                                                         \
    X(CDMA, D_LINE_UV_STRIDE)                                                                      \
    X(CDMA, D_DAIN_MAP)                                                                            \
    X(CDMA, D_BATCH_NUMBER)                                                                        \
    X(CDMA, D_BATCH_STRIDE)                                                                        \
    X(CDMA, D_ENTRY_PER_SLICE)                                                                     \
    X(CDMA, D_FETCH_GRAIN)                                                                         \
    X(CDMA, D_WEIGHT_FORMAT)                                                                       \
    X(CDMA, D_WEIGHT_SIZE_0)                                                                       \
    X(CDMA, D_WEIGHT_SIZE_1)                                                                       \
    X(CDMA, D_WEIGHT_RAM_TYPE)                                                                     \
    X(CDMA, D_WEIGHT_ADDR_HIGH)                                                                    \
    X(CDMA, D_WEIGHT_ADDR_LOW)                                                                     \
    X(CDMA, D_WEIGHT_BYTES)                                                                        \
    X(CDMA, D_WGS_ADDR_HIGH)                                                                       \
    X(CDMA, D_WGS_ADDR_LOW)                                                                        \
    X(CDMA, D_WMB_ADDR_HIGH)                                                                       \
    X(CDMA, D_WMB_ADDR_LOW)                                                                        \
    X(CDMA, D_WMB_BYTES)                                                                           \
    X(CDMA, D_MEAN_FORMAT)                                                                         \
    X(CDMA, D_MEAN_GLOBAL_0)                                                                       \
    X(CDMA, D_MEAN_GLOBAL_1)                                                                       \
    X(CDMA, D_CVT_CFG)                                                                             \
    X(CDMA, D_CVT_OFFSET)                                                                          \
    X(CDMA, D_CVT_SCALE)                                                                           \
    X(CDMA, D_CONV_STRIDE)                                                                         \
    X(CDMA, D_ZERO_PADDING)                                                                        \
    X(CDMA, D_ZERO_PADDING_VALUE)                                                                  \
    X(CDMA, D_BANK)                                                                                \
    X(CDMA, D_OP_ENABLE)                                                                           \
    X(SDP_RDMA, S_POINTER)                                                                         \
    X(SDP_RDMA, D_FEATURE_MODE_CFG)                                                                \
    X(SDP_RDMA, D_BRDMA_CFG)                                                                       \
    X(SDP_RDMA, D_NRDMA_CFG)                                                                       \
    X(SDP_RDMA, D_ERDMA_CFG)                                                                       \
    X(SDP_RDMA, D_DATA_CUBE_WIDTH)                                                                 \
    X(SDP_RDMA, D_DATA_CUBE_HEIGHT)                                                                \
    X(SDP_RDMA, D_DATA_CUBE_CHANNEL)                                                               \
    X(SDP_RDMA, D_SRC_BASE_ADDR_LOW)                                                               \
    X(SDP_RDMA, D_SRC_BASE_ADDR_HIGH)                                                              \
    X(SDP_RDMA, D_SRC_LINE_STRIDE)                                                                 \
    X(SDP_RDMA, D_SRC_SURFACE_STRIDE)                                                              \
    X(SDP_RDMA, D_SRC_DMA_CFG)                                                                     \
    X(SDP_RDMA, D_BS_BASE_ADDR_LOW)                                                                \
    X(SDP_RDMA, D_BS_BASE_ADDR_HIGH)                                                               \
    X(SDP_RDMA, D_BS_LINE_STRIDE)                                                                  \
    X(SDP_RDMA, D_BS_SURFACE_STRIDE)                                                               \
    X(SDP_RDMA, D_BN_BASE_ADDR_LOW)                                                                \
    X(SDP_RDMA, D_BN_BASE_ADDR_HIGH)                                                               \
    X(SDP_RDMA, D_BN_LINE_STRIDE)                                                                  \
    X(SDP_RDMA, D_BN_SURFACE_STRIDE)                                                               \
    X(SDP_RDMA, D_EW_BASE_ADDR_LOW)                                                                \
    X(SDP_RDMA, D_EW_BASE_ADDR_HIGH)                                                               \
    X(SDP_RDMA, D_EW_LINE_STRIDE)                                                                  \
    X(SDP_RDMA, D_EW_SURFACE_STRIDE)                                                               \
    X(SDP_RDMA, D_OP_ENABLE)                                                                       \
    X(SDP, S_POINTER)                                                                              \
    X(SDP, S_LUT_ACCESS_CFG)                                                                       \
    X(SDP, S_LUT_ACCESS_DATA)                                                                      \
    X(SDP, S_LUT_CFG)                                                                              \
    X(SDP, S_LUT_INFO)                                                                             \
    X(SDP, S_LUT_LE_START)                                                                         \
    X(SDP, S_LUT_LE_END)                                                                           \
    X(SDP, S_LUT_LO_START)                                                                         \
    X(SDP, S_LUT_LO_END)                                                                           \
    X(SDP, S_LUT_LE_SLOPE_SCALE)                                                                   \
    X(SDP, S_LUT_LE_SLOPE_SHIFT)                                                                   \
    X(SDP, S_LUT_LO_SLOPE_SCALE)                                                                   \
    X(SDP, S_LUT_LO_SLOPE_SHIFT)                                                                   \
    X(SDP, D_DATA_CUBE_WIDTH)                                                                      \
    X(SDP, D_DATA_CUBE_HEIGHT)                                                                     \
    X(SDP, D_DATA_CUBE_CHANNEL)                                                                    \
    X(SDP, D_DST_BASE_ADDR_HIGH)                                                                   \
    X(SDP, D_DST_BASE_ADDR_LOW)                                                                    \
    X(SDP, D_DST_LINE_STRIDE)                                                                      \
    X(SDP, D_DST_SURFACE_STRIDE)                                                                   \
    X(SDP, D_DP_BS_CFG)                                                                            \
    X(SDP, D_DP_BS_ALU_CFG)                                                                        \
    X(SDP, D_DP_BS_ALU_SRC_VALUE)                                                                  \
    X(SDP, D_DP_BS_MUL_SRC_VALUE)                                                                  \
    X(SDP, D_DP_BS_MUL_CFG)                                                                        \
    X(SDP, D_DP_BN_CFG)                                                                            \
    X(SDP, D_DP_BN_ALU_CFG)                                                                        \
    X(SDP, D_DP_BN_ALU_SRC_VALUE)                                                                  \
    X(SDP, D_DP_BN_MUL_SRC_VALUE)                                                                  \
    X(SDP, D_DP_BN_MUL_CFG)                                                                        \
    X(SDP, D_DP_EW_CFG)                                                                            \
    X(SDP, D_DP_EW_ALU_CFG)                                                                        \
    X(SDP, D_DP_EW_ALU_SRC_VALUE)                                                                  \
    X(SDP, D_DP_EW_ALU_CVT_OFFSET_VALUE)                                                           \
    X(SDP, D_DP_EW_ALU_CVT_SCALE_VALUE)                                                            \
    X(SDP, D_DP_EW_ALU_CVT_TRUNCATE_VALUE)                                                         \
    X(SDP, D_DP_EW_MUL_CFG)                                                                        \
    X(SDP, D_DP_EW_MUL_SRC_VALUE)                                                                  \
    X(SDP, D_DP_EW_MUL_CVT_OFFSET_VALUE)                                                           \
    X(SDP, D_DP_EW_MUL_CVT_SCALE_VALUE)                                                            \
    X(SDP, D_DP_EW_MUL_CVT_TRUNCATE_VALUE)                                                         \
    X(SDP, D_DP_EW_TRUNCATE_VALUE)                                                                 \
    X(SDP, D_FEATURE_MODE_CFG)                                                                     \
    X(SDP, D_DST_DMA_CFG)                                                                          \
    X(SDP, D_DST_BATCH_STRIDE)                                                                     \
    X(SDP, D_DATA_FORMAT)                                                                          \
    X(SDP, D_CVT_OFFSET)                                                                           \
    X(SDP, D_CVT_SCALE)                                                                            \
    X(SDP, D_CVT_SHIFT)                                                                            \
    X(SDP, D_OP_ENABLE)                                                                            \
    X(PDP_RDMA, S_POINTER)                                                                         \
    X(PDP_RDMA, D_DATA_CUBE_IN_WIDTH)                                                              \
    X(PDP_RDMA, D_DATA_CUBE_IN_HEIGHT)                                                             \
    X(PDP_RDMA, D_DATA_CUBE_IN_CHANNEL)                                                            \
    X(PDP_RDMA, D_SRC_BASE_ADDR_HIGH)                                                              \
    X(PDP_RDMA, D_SRC_BASE_ADDR_LOW)                                                               \
    X(PDP_RDMA, D_SRC_LINE_STRIDE)                                                                 \
    X(PDP_RDMA, D_SRC_SURFACE_STRIDE)                                                              \
    X(PDP_RDMA, D_DATA_FORMAT)                                                                     \
    X(PDP_RDMA, D_SRC_RAM_CFG)                                                                     \
    X(PDP_RDMA, D_OPERATION_MODE_CFG)                                                              \
    X(PDP_RDMA, D_POOLING_KERNEL_CFG)                                                              \
    X(PDP_RDMA, D_POOLING_PADDING_CFG)                                                             \
    X(PDP_RDMA, D_PARTIAL_WIDTH_IN)                                                                \
    X(PDP_RDMA, D_OP_ENABLE)                                                                       \
    X(PDP, S_POINTER)                                                                              \
    X(PDP, D_DATA_CUBE_IN_WIDTH)                                                                   \
    X(PDP, D_DATA_CUBE_IN_HEIGHT)                                                                  \
    X(PDP, D_DATA_CUBE_IN_CHANNEL)                                                                 \
    X(PDP, D_DATA_CUBE_OUT_WIDTH)                                                                  \
    X(PDP, D_DATA_CUBE_OUT_HEIGHT)                                                                 \
    X(PDP, D_DATA_CUBE_OUT_CHANNEL)                                                                \
    X(PDP, D_OPERATION_MODE_CFG)                                                                   \
    X(PDP, D_PARTIAL_WIDTH_IN)                                                                     \
    X(PDP, D_PARTIAL_WIDTH_OUT)                                                                    \
    X(PDP, D_POOLING_KERNEL_CFG)                                                                   \
    X(PDP, D_RECIP_KERNEL_WIDTH)                                                                   \
    X(PDP, D_RECIP_KERNEL_HEIGHT)                                                                  \
    X(PDP, D_POOLING_PADDING_CFG)                                                                  \
    X(PDP, D_POOLING_PADDING_VALUE_1_CFG)                                                          \
    X(PDP, D_POOLING_PADDING_VALUE_2_CFG)                                                          \
    X(PDP, D_POOLING_PADDING_VALUE_3_CFG)                                                          \
    X(PDP, D_POOLING_PADDING_VALUE_4_CFG)                                                          \
    X(PDP, D_POOLING_PADDING_VALUE_5_CFG)                                                          \
    X(PDP, D_POOLING_PADDING_VALUE_6_CFG)                                                          \
    X(PDP, D_POOLING_PADDING_VALUE_7_CFG)                                                          \
    X(PDP, D_SRC_LINE_STRIDE)                                                                      \
    X(PDP, D_SRC_SURFACE_STRIDE)                                                                   \
    X(PDP, D_DST_BASE_ADDR_LOW)                                                                    \
    X(PDP, D_DST_BASE_ADDR_HIGH)                                                                   \
    X(PDP, D_DST_LINE_STRIDE)                                                                      \
    X(PDP, D_DST_SURFACE_STRIDE)                                                                   \
    X(PDP, D_DST_RAM_CFG)                                                                          \
    X(PDP, D_DATA_FORMAT)                                                                          \
    X(PDP, D_OP_ENABLE)                                                                            \
    X(CDP_RDMA, S_POINTER)                                                                         \
    X(CDP_RDMA, D_DATA_CUBE_WIDTH)                                                                 \
    X(CDP_RDMA, D_DATA_CUBE_HEIGHT)                                                                \
    X(CDP_RDMA, D_DATA_CUBE_CHANNEL)                                                               \
    X(CDP_RDMA, D_SRC_BASE_ADDR_LOW)                                                               \
    X(CDP_RDMA, D_SRC_BASE_ADDR_HIGH)                                                              \
    X(CDP_RDMA, D_SRC_LINE_STRIDE)                                                                 \
    X(CDP_RDMA, D_SRC_SURFACE_STRIDE)                                                              \
    X(CDP_RDMA, D_SRC_DMA_CFG)                                                                     \
    X(CDP_RDMA, D_DATA_FORMAT)                                                                     \
    X(CDP_RDMA, D_OP_ENABLE)                                                                       \
    X(CDP, S_POINTER)                                                                              \
    X(CDP, S_LUT_ACCESS_CFG)                                                                       \
    X(CDP, S_LUT_ACCESS_DATA)                                                                      \
    X(CDP, S_LUT_CFG)                                                                              \
    X(CDP, S_LUT_INFO)                                                                             \
    X(CDP, S_LUT_LE_START_LOW)                                                                     \
    X(CDP, S_LUT_LE_START_HIGH)                                                                    \
    X(CDP, S_LUT_LE_END_LOW)                                                                       \
    X(CDP, S_LUT_LE_END_HIGH)                                                                      \
    X(CDP, S_LUT_LO_START_LOW)                                                                     \
    X(CDP, S_LUT_LO_START_HIGH)                                                                    \
    X(CDP, S_LUT_LO_END_LOW)                                                                       \
    X(CDP, S_LUT_LO_END_HIGH)                                                                      \
    X(CDP, S_LUT_LE_SLOPE_SCALE)                                                                   \
    X(CDP, S_LUT_LE_SLOPE_SHIFT)                                                                   \
    X(CDP, S_LUT_LO_SLOPE_SCALE)                                                                   \
    X(CDP, S_LUT_LO_SLOPE_SHIFT)                                                                   \
    X(CDP, D_DST_BASE_ADDR_LOW)                                                                    \
    X(CDP, D_DST_BASE_ADDR_HIGH)                                                                   \
    X(CDP, D_DST_LINE_STRIDE)                                                                      \
    X(CDP, D_DST_SURFACE_STRIDE)                                                                   \
    X(CDP, D_DST_DMA_CFG)                                                                          \
    X(CDP, D_DATA_FORMAT)                                                                          \
    X(CDP, D_LRN_CFG)                                                                              \
    X(CDP, D_DATIN_OFFSET)                                                                         \
    X(CDP, D_DATIN_SCALE)                                                                          \
    X(CDP, D_DATIN_SHIFTER)                                                                        \
    X(CDP, D_DATOUT_OFFSET)                                                                        \
    X(CDP, D_DATOUT_SCALE)                                                                         \
    X(CDP, D_DATOUT_SHIFTER)                                                                       \
    X(CDP, D_FUNC_BYPASS)                                                                          \
    X(CDP, D_OP_ENABLE)                                                                            \
    X(RBK, S_POINTER)                                                                              \
    X(RBK, D_MISC_CFG)                                                                             \
    X(RBK, D_DAIN_RAM_TYPE)                                                                        \
    X(RBK, D_DATAIN_SIZE_0)                                                                        \
    X(RBK, D_DATAIN_SIZE_1)                                                                        \
    X(RBK, D_DAIN_ADDR_LOW)                                                                        \
    X(RBK, D_DAIN_ADDR_HIGH)                                                                       \
    X(RBK, D_DAIN_PLANAR_STRIDE)                                                                   \
    X(RBK, D_DAIN_SURF_STRIDE)                                                                     \
    X(RBK, D_DAIN_LINE_STRIDE)                                                                     \
    X(RBK, D_DAOUT_RAM_TYPE)                                                                       \
    X(RBK, D_DATAOUT_SIZE_1)                                                                       \
    X(RBK, D_DAOUT_ADDR_LOW)                                                                       \
    X(RBK, D_DAOUT_ADDR_HIGH)                                                                      \
    X(RBK, D_DAOUT_LINE_STRIDE)                                                                    \
    X(RBK, D_DAOUT_SURF_STRIDE)                                                                    \
    X(RBK, D_CONTRACT_STRIDE_0)                                                                    \
    X(RBK, D_CONTRACT_STRIDE_1)                                                                    \
    X(RBK, D_DECONV_STRIDE)                                                                        \
    X(RBK, D_DAOUT_PLANAR_STRIDE)                                                                  \
    X(RBK, D_OP_ENABLE)

enum eng_reg {
#define X(unit, reg) R_##unit##_##reg,
    ENG_REGS(X)
#undef X
        R_COUNT
};

struct eng_group {
    int16_t op; /* operation index, -1 when free */
    uint8_t id, roi, rdma_id;
    bool pending, programming, active, rdma_needed;
    int16_t lut_index;
    uint8_t events; /* bit per fw_event */
    struct fw_op desc;
};

struct eng_proc {
    uint8_t type;
    uint8_t group_status, rdma_status, last_group, roi_index;
    int16_t tail_op;
    struct eng_group groups[2];
};

struct eng_buffer {
    int16_t index; /* the task address index it came from (for messages) */
    uint8_t space;
    uint64_t base, size;
};

struct engine {
    struct report *rep;
    const struct dla_config *cfg;
    const struct runtime *rt; /* not owned; immutable while a task runs */
    uint32_t reg_addr[R_COUNT];
    const struct regdb_reg *reg[R_COUNT];
    bool reg_present[R_COUNT];

    /* the running task */
    uint32_t task;
    bool running, done, failed;
    enum fw_layout layout;
    struct fw_network net;
    struct eng_buffer ops, surfaces, deps_buf, luts;
    uint32_t n_desc; /* num_operations * num_rois */
    struct fw_common_op *deps;
    uint32_t done_ops;
    struct eng_proc proc[FW_OP_TYPES];

    /* queued actions */
    struct eng_action *q;
    size_t q_head, q_len, q_cap;
    char where[64];
    int16_t where_op;   /* operation the queued writes program, -1: none (interrupts) */
    uint8_t where_type; /* its enum fw_op_type */
    /* the descriptor being read or acted on, by its place in the loadable
     * ("dependency graph entry 3 at address list entry 2 (memory 2, blob ...,
     * file offset 0x..)"); eng_fail adds it to every message */
    char place[800];

    struct eng_log *log;
    size_t n_log, cap_log;
};

/* Programming helpers (engine.c) */
void eng_write(struct engine *e, enum eng_reg r, uint32_t value);
/* value placed in a field of register r */
uint32_t eng_field(struct engine *e, enum eng_reg r, const char *field, uint32_t value);
/* write r with one field set to value (the others 0) */
void eng_write_field(struct engine *e, enum eng_reg r, const char *field, uint32_t value);
/* the named enum value of a field, placed in the field */
uint32_t eng_enum(struct engine *e, enum eng_reg r, const char *field, const char *name);
/* Read r as the firmware does: queue the read and return the value the
 * register has now; the engine's choice rests on the bits of decided_bits
 * (0: the value is only read, as the firmware reads it). */
uint32_t eng_read(struct engine *e, struct dla *d, enum eng_reg r, uint32_t decided_bits);
/* The firmware's busy loop on r until one of the bits of `awaited` reads 1. */
void eng_poll(struct engine *e, enum eng_reg r, uint32_t awaited);
/* The mask of a field of register r, placed in the register. */
uint32_t eng_field_mask(struct engine *e, enum eng_reg r, const char *field);
/* Point a unit's S_POINTER (or its RDMA's) at the group to program next. */
void eng_set_producer(struct engine *e, enum eng_reg pointer, int group);
/* Set OP_EN of a D_OP_ENABLE register: launches the group's operation. */
void eng_op_enable(struct engine *e, enum eng_reg op_enable);
/* eng_unit hooks of the units that have no readiness rule beyond a free
 * group (CONV, PDP, RUBIK) and of those without an RDMA of their own to
 * enable (CONV, RUBIK, BDMA). */
bool eng_always_ready(const struct eng_proc *p, const struct eng_group *g);
bool eng_no_rdma(const struct fw_op *op);

/* Report an invalid descriptor and stop the task; returns -1. */
int eng_fail(struct engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* DMA address of a task address index (+ cube offset); false (and a failure) when invalid. */
bool eng_dma_address(struct engine *e, int16_t index, uint32_t offset, uint64_t *addr,
                     uint8_t *space);
/* Unmask two GLB interrupt sources: the firmware's dla_enable_intr, a
 * read-modify-write of GLB.S_INTR_MASK that keeps the other bits as read. */
void eng_enable_intr(struct engine *e, uint32_t mask);
/* Read LUT `index` from the task's LUT list. */
bool eng_read_lut(struct engine *e, struct dla *d, int16_t index, struct fw_lut *lut);
/* Program a LUT through S_LUT_ACCESS_* (SDP or CDP register set). */
void eng_program_lut(struct engine *e, bool sdp, const struct fw_lut *lut, uint8_t precision);
/* One LUT serves both groups of SDP or CDP: group g may load LUT `lut`
 * (-1: none) only when the other group does not hold a different one that
 * is still in use.  The is_ready of both units. */
bool eng_lut_ready(const struct eng_proc *p, const struct eng_group *g, int16_t lut);

static inline uint32_t eng_lo32(uint64_t v)
{
    return (uint32_t)v;
}

static inline uint32_t eng_hi32(uint64_t v)
{
    return (uint32_t)(v >> 32);
}

/* RAM_TYPE register encoding of a descriptor memory type (MC=0 -> 1, CV=1 -> 0). */
static inline uint32_t eng_ram_type(uint16_t desc_type)
{
    return desc_type == FW_MEM_CV ? 0u : 1u;
}

/* One processor's programming routines (engine_<unit>.c). */
struct eng_unit {
    const char *name;
    void (*set_producer)(struct engine *e, int group, int rdma_group);
    int (*program)(struct engine *e, struct dla *d, struct eng_group *g);
    void (*enable)(struct engine *e, struct eng_group *g);
    bool (*rdma_needed)(const struct fw_op *op);
    bool (*is_ready)(const struct eng_proc *p, const struct eng_group *g);
};

extern const struct eng_unit eng_bdma_unit, eng_conv_unit, eng_sdp_unit, eng_pdp_unit, eng_cdp_unit,
    eng_rubik_unit;

#endif
