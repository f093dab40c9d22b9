/* One SDP operation, memory to memory (a 4x4x8 int8 cube from address
 * index 4 to index 5 of six), built as a loadable with the loadable writer.
 * Shared by test_engine (the network broken in one way at a time) and
 * test_cmd_hang (the operation waiting on a dependency): both start from the
 * same healthy descriptors, change what their case needs, then encode;
 * test_low_bits adds an X1 operand, test_config_detect replaces the operation
 * by a convolution, sets its memories' size and adds a tensor; test_runtime
 * writes it in every loadable format.
 * Header-only (static inline) so each suite stays one binary; include it
 * after <cmocka.h>. */
#ifndef DLADBG_TEST_SDP_NET_H
#define DLADBG_TEST_SDP_NET_H

#include <stddef.h>
#include <stdint.h>

#include "loadable/fw_desc.h"
#include "loadable/loadable_writer.h"

struct sdp_net {
    struct fw_network nd;
    struct fw_common_op dep;
    struct fw_op op;
    uint32_t mem_bytes;      /* size of memories 4 and 5 (512) */
    struct ld_tensor tensor; /* a tensor descriptor in memory 4 when its name is set */
};

/* The healthy network: one SDP operation, no dependencies, no LUT. */
static inline void sdp_net_init(struct sdp_net *n)
{
    n->nd = (struct fw_network){.operation_desc_index = 1,
                                .surface_desc_index = 2,
                                .dependency_graph_index = 3,
                                .lut_data_index = -1,
                                .roi_array_index = -1,
                                .surface_index = -1,
                                .stat_list_index = -1,
                                .num_rois = 1,
                                .num_operations = 1,
                                .num_addresses = 6};
    for (int i = 0; i < FW_OP_TYPES; i++)
        n->nd.op_head[i] = -1;
    n->nd.op_head[FW_OP_SDP] = 0;
    n->dep = (struct fw_common_op){.index = 0, .op_type = FW_OP_SDP};
    for (int i = 0; i < FW_OP_TYPES; i++)
        n->dep.consumers[i].index = -1;
    n->dep.fused_parent.index = -1;
    n->op = (struct fw_op){.type = FW_OP_SDP};
    n->mem_bytes = 512;
    n->tensor = (struct ld_tensor){0};
    struct fw_sdp_op *o = &n->op.u.sdp.op;
    o->batch_num = 1;
    o->lut_index = -1;
    o->out_cvt.scale = 1;
    struct fw_cube c = {.type = FW_MEM_MC,
                        .address = 4,
                        .size = 512,
                        .width = 4,
                        .height = 4,
                        .channel = 8,
                        .line_stride = 128,
                        .surf_stride = 512};
    n->op.u.sdp.surface.src = c;
    c.address = 5;
    n->op.u.sdp.surface.dst = c;
}

/* The loadable of the network (one DLA task) in loadable format `format`
 * (0.5, 0.6 or 0.7: see loadable_format), its descriptors in `layout` and
 * its blobs marked version v; *buf is malloc'ed. */
static inline void sdp_net_encode_format(const struct sdp_net *n, enum fw_layout layout,
                                         struct ld_version v, struct ld_version format,
                                         uint8_t **buf, size_t *len)
{
    uint8_t ndb[FW_NETWORK_SIZE], opb[FW_OP_SIZE], sb[FW_SURFACE_SIZE], db[FW_COMMON_OP_SIZE];
    fw_encode_network(&n->nd, ndb);
    fw_encode_op(layout, &n->op, opb, sb);
    fw_encode_common_op(&n->dep, db);
    struct lw *w = lw_create();
    lw_blob(w, "nd", 1, 1, v, ndb, sizeof ndb);
    lw_blob(w, "op", 1, 3, v, opb, sizeof opb);
    lw_blob(w, "surf", 1, 4, v, sb, sizeof sb);
    lw_blob(w, "dep", 1, 2, v, db, sizeof db);
    lw_memory(w, 0, 3, sizeof ndb, 0, "nd", 0, 0);
    lw_memory(w, 0, 3, sizeof opb, 0, "op", 0, 0);
    lw_memory(w, 0, 3, sizeof sb, 0, "surf", 0, 0);
    lw_memory(w, 0, 3, sizeof db, 0, "dep", 0, 0);
    lw_memory(w, 0, 1, n->mem_bytes, 0, NULL, 0, 0);
    lw_memory(w, 0, 1, n->mem_bytes, 0, NULL, 0, 0);
    uint16_t addrs[6], task = 0;
    for (uint16_t i = 0; i < 6; i++)
        addrs[i] = (uint16_t)lw_address(w, i, 0, 0);
    if (n->tensor.name)
        lw_tensor(w, &n->tensor);
    lw_task(w, LD_IF_DLA1, addrs, 6, NULL, 0, NULL, 0);
    lw_submit(w, &task, 1);
    assert_true(lw_finish(w, format, buf, len));
    lw_destroy(w);
}

/* The same in format 0.7 (today's). */
static inline void sdp_net_encode_as(const struct sdp_net *n, enum fw_layout layout,
                                     struct ld_version v, uint8_t **buf, size_t *len)
{
    sdp_net_encode_format(n, layout, v, (struct ld_version){0, 7, 0}, buf, len);
}

/* The same in the current layout, version 0.12.0 (NVIDIA's compiler). */
static inline void sdp_net_encode(const struct sdp_net *n, uint8_t **buf, size_t *len)
{
    sdp_net_encode_as(n, FW_LAYOUT_CURRENT, (struct ld_version){0, 12, 0}, buf, len);
}

#endif
