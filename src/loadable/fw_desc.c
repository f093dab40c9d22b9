/* Firmware descriptor layouts.  Each structure is described once, as the
 * sequence of its fields in memory order; the same description decodes
 * (bytes -> struct) and encodes (struct -> bytes), so the two directions
 * cannot disagree.  Offsets follow the packed little-endian layout of the
 * firmware interface (see fw_desc.h for the two data-cube layouts). */
#include "fw_desc.h"

#include <string.h>

#include "util/le_bytes.h"

struct codec {
    uint8_t *b;
    size_t pos;
    bool enc;
    enum fw_layout layout;
};

static void c_u8(struct codec *c, uint8_t *v)
{
    if (c->enc)
        c->b[c->pos] = *v;
    else
        *v = c->b[c->pos];
    c->pos += 1;
}

static void c_s8(struct codec *c, int8_t *v)
{
    uint8_t u = (uint8_t)*v;
    c_u8(c, &u);
    *v = (int8_t)u;
}

static void c_u16(struct codec *c, uint16_t *v)
{
    if (c->enc)
        le_put16(c->b + c->pos, *v);
    else
        *v = le_get16(c->b + c->pos);
    c->pos += 2;
}

static void c_s16(struct codec *c, int16_t *v)
{
    uint16_t u = (uint16_t)*v;
    c_u16(c, &u);
    *v = (int16_t)u;
}

static void c_u32(struct codec *c, uint32_t *v)
{
    if (c->enc)
        le_put32(c->b + c->pos, *v);
    else
        *v = le_get32(c->b + c->pos);
    c->pos += 4;
}

static void c_s32(struct codec *c, int32_t *v)
{
    uint32_t u = (uint32_t)*v;
    c_u32(c, &u);
    *v = (int32_t)u;
}

static void c_u64(struct codec *c, uint64_t *v)
{
    uint32_t lo = (uint32_t)*v, hi = (uint32_t)(*v >> 32);
    c_u32(c, &lo);
    c_u32(c, &hi);
    *v = ((uint64_t)hi << 32) | lo;
}

static void c_s64(struct codec *c, int64_t *v)
{
    uint64_t u = (uint64_t)*v;
    c_u64(c, &u);
    *v = (int64_t)u;
}

static void c_skip(struct codec *c, size_t n)
{
    if (c->enc)
        memset(c->b + c->pos, 0, n);
    c->pos += n;
}

/* ---------------------------------------------------------------- structures */

static void cube(struct codec *c, struct fw_cube *q)
{
    c_u16(c, &q->type);
    c_s16(c, &q->address);
    if (c->layout == FW_LAYOUT_CURRENT)
        c_u32(c, &q->offset);
    else if (!c->enc)
        q->offset = 0;
    c_u32(c, &q->size);
    c_u16(c, &q->width);
    c_u16(c, &q->height);
    c_u16(c, &q->channel);
    c_skip(c, 2);
    c_u32(c, &q->line_stride);
    c_u32(c, &q->surf_stride);
    c_u32(c, &q->plane_stride);
}

static void cvt(struct codec *c, struct fw_cvt *v)
{
    c_s16(c, &v->scale);
    c_u8(c, &v->truncate);
    c_u8(c, &v->enable);
    c_s32(c, &v->offset);
}

static void network(struct codec *c, struct fw_network *n)
{
    c_s16(c, &n->operation_desc_index);
    c_s16(c, &n->surface_desc_index);
    c_s16(c, &n->dependency_graph_index);
    c_s16(c, &n->lut_data_index);
    c_s16(c, &n->roi_array_index);
    c_s16(c, &n->surface_index);
    c_s16(c, &n->stat_list_index);
    c_skip(c, 2);
    for (int i = 0; i < FW_OP_TYPES; i++)
        c_s16(c, &n->op_head[i]);
    c_u16(c, &n->num_rois);
    c_u16(c, &n->num_operations);
    c_u16(c, &n->num_luts);
    c_u16(c, &n->num_addresses);
    c_s16(c, &n->input_layer);
    c_u8(c, &n->dynamic_roi);
    c_skip(c, 1);
}

static void consumer(struct codec *c, struct fw_consumer *k)
{
    c_s16(c, &k->index);
    c_u8(c, &k->event);
    c_skip(c, 1);
}

static void common_op(struct codec *c, struct fw_common_op *o)
{
    c_s16(c, &o->index);
    c_s8(c, &o->roi_index);
    c_u8(c, &o->op_type);
    c_u8(c, &o->dependency_count);
    c_skip(c, 3);
    for (int i = 0; i < FW_OP_TYPES; i++)
        consumer(c, &o->consumers[i]);
    consumer(c, &o->fused_parent);
}

static void bdma_surface(struct codec *c, struct fw_bdma_surface *s)
{
    c_u8(c, &s->source_type);
    c_u8(c, &s->destination_type);
    c_u16(c, &s->num_transfers);
    for (int i = 0; i < FW_MAX_BDMA_TRANSFERS; i++) {
        struct fw_bdma_transfer *t = &s->transfers[i];
        c_s16(c, &t->source_address);
        c_s16(c, &t->destination_address);
        c_u32(c, &t->line_size);
        c_u32(c, &t->line_repeat);
        c_u32(c, &t->source_line);
        c_u32(c, &t->destination_line);
        c_u32(c, &t->surface_repeat);
        c_u32(c, &t->source_surface);
        c_u32(c, &t->destination_surface);
    }
}

static void conv_surface(struct codec *c, struct fw_conv_surface *s)
{
    cube(c, &s->weight);
    cube(c, &s->wmb);
    cube(c, &s->wgs);
    cube(c, &s->src);
    cube(c, &s->dst);
    c_s64(c, &s->offset_u);
    c_u32(c, &s->in_line_uv_stride);
}

static void conv_op(struct codec *c, struct fw_conv_op *o)
{
    c_u8(c, &o->conv_mode);
    c_u8(c, &o->data_reuse);
    c_u8(c, &o->weight_reuse);
    c_u8(c, &o->skip_data_rls);
    c_u8(c, &o->skip_weight_rls);
    c_skip(c, 1);
    c_u16(c, &o->entry_per_slice);
    c_u8(c, &o->data_format);
    c_u8(c, &o->pixel_mapping);
    c_u16(c, &o->fetch_grain);
    c_skip(c, 8);
    c_u8(c, &o->batch);
    c_u8(c, &o->weight_format);
    c_u8(c, &o->data_bank);
    c_u8(c, &o->weight_bank);
    c_u32(c, &o->batch_stride);
    c_u8(c, &o->post_extension);
    c_u8(c, &o->pixel_override);
    c_u16(c, &o->release);
    c_u16(c, &o->input_width_csc);
    c_u16(c, &o->input_height_csc);
    c_u16(c, &o->input_channel_csc);
    c_u16(c, &o->kernel_width_csc);
    c_u16(c, &o->kernel_height_csc);
    c_u16(c, &o->kernel_channel_csc);
    c_u16(c, &o->input_width_cmac);
    c_u16(c, &o->input_height_cmac);
    c_u32(c, &o->bytes_per_kernel);
    c_s16(c, &o->mean_ry);
    c_s16(c, &o->mean_gu);
    c_s16(c, &o->mean_bv);
    c_s16(c, &o->mean_ax);
    c_u8(c, &o->mean_format);
    c_u8(c, &o->conv_stride_x);
    c_u8(c, &o->conv_stride_y);
    c_u8(c, &o->pad_x_left);
    c_u8(c, &o->pad_x_right);
    c_u8(c, &o->pad_y_top);
    c_u8(c, &o->pad_y_bottom);
    c_u8(c, &o->dilation_x);
    c_u8(c, &o->dilation_y);
    c_skip(c, 2);
    c_u8(c, &o->pra_truncate);
    c_u8(c, &o->in_precision);
    c_u8(c, &o->out_precision);
    c_s16(c, &o->pad_val);
    cvt(c, &o->in_cvt);
    cvt(c, &o->out_cvt);
}

static void sdp_stage(struct codec *c, struct fw_sdp_stage *s)
{
    c_u8(c, &s->enable);
    c_u8(c, &s->alu_type);
    c_u8(c, &s->type);
    c_u8(c, &s->mode);
    c_u8(c, &s->act);
    c_u8(c, &s->shift_value);
    c_u8(c, &s->truncate);
    c_u8(c, &s->precision);
    c_s32(c, &s->alu_operand);
    c_s32(c, &s->mul_operand);
    cvt(c, &s->alu_cvt);
    cvt(c, &s->mul_cvt);
}

static void sdp_op(struct codec *c, struct fw_sdp_op *o)
{
    c_u8(c, &o->src_precision);
    c_u8(c, &o->dst_precision);
    c_s16(c, &o->lut_index);
    cvt(c, &o->out_cvt);
    c_u8(c, &o->conv_mode);
    c_u8(c, &o->batch_num);
    c_skip(c, 2);
    c_u32(c, &o->batch_stride);
    sdp_stage(c, &o->x1);
    sdp_stage(c, &o->x2);
    sdp_stage(c, &o->y);
}

static void sdp_surface(struct codec *c, struct fw_sdp_surface *s)
{
    cube(c, &s->src);
    cube(c, &s->x1);
    cube(c, &s->x2);
    cube(c, &s->y);
    cube(c, &s->dst);
}

static void two_cubes(struct codec *c, struct fw_pdp_surface *s)
{
    cube(c, &s->src);
    cube(c, &s->dst);
}

static void pdp_op(struct codec *c, struct fw_pdp_op *o)
{
    c_u16(c, &o->partial_in_width_first);
    c_u16(c, &o->partial_in_width_mid);
    c_u16(c, &o->partial_in_width_last);
    c_u16(c, &o->partial_width_first);
    c_u16(c, &o->partial_width_mid);
    c_u16(c, &o->partial_width_last);
    c_u8(c, &o->split_num);
    c_u8(c, &o->pool_mode);
    c_u8(c, &o->pool_width);
    c_u8(c, &o->pool_height);
    c_u8(c, &o->stride_x);
    c_u8(c, &o->stride_y);
    c_u8(c, &o->pad_left);
    c_u8(c, &o->pad_right);
    c_u8(c, &o->pad_top);
    c_u8(c, &o->pad_bottom);
    c_u8(c, &o->precision);
    c_skip(c, 1);
    for (int i = 0; i < 7; i++)
        c_s32(c, &o->padding_value[i]);
}

static void cdp_op(struct codec *c, struct fw_cdp_op *o)
{
    c_u8(c, &o->in_precision);
    c_u8(c, &o->out_precision);
    c_s16(c, &o->lut_index);
    cvt(c, &o->in_cvt);
    cvt(c, &o->out_cvt);
    c_u8(c, &o->local_size);
    c_u8(c, &o->bypass_sqsum);
    c_u8(c, &o->bypass_out_mul);
    c_skip(c, 1);
}

static void rubik_op(struct codec *c, struct fw_rubik_op *o)
{
    c_u8(c, &o->mode);
    c_u8(c, &o->precision);
    c_u8(c, &o->stride_x);
    c_u8(c, &o->stride_y);
}

/* The slope union: integer (scale s16, shifter s8, pad) or fp16 (u16). */
static void slope(struct codec *c, int16_t *scale, int8_t *shift, uint16_t *f)
{
    size_t at = c->pos;
    if (c->enc) {
        /* the integer form is authoritative unless only the fp16 form is set */
        uint16_t s = *scale ? (uint16_t)*scale : *f;
        c_u16(c, &s);
        c_s8(c, shift);
        c_skip(c, 1);
    } else {
        c_s16(c, scale);
        c_s8(c, shift);
        c_skip(c, 1);
        *f = (uint16_t)*scale;
    }
    c->pos = at + 4;
}

static void lut(struct codec *c, struct fw_lut *l)
{
    for (int i = 0; i < 65; i++)
        c_s16(c, &l->le_table[i]);
    for (int i = 0; i < 257; i++)
        c_s16(c, &l->lo_table[i]);
    c_s8(c, &l->le_offset_exp);
    c_skip(c, 1);
    c_s8(c, &l->lo_offset_exp);
    c_skip(c, 1);
    if (!c->enc) {
        l->le_offset_frac = l->le_offset_exp;
        l->lo_offset_frac = l->lo_offset_exp;
    }
    c_u64(c, &l->le_start);
    c_u64(c, &l->le_end);
    c_u64(c, &l->lo_start);
    c_u64(c, &l->lo_end);
    slope(c, &l->le_uflow_scale, &l->le_uflow_shift, &l->le_uflow_f);
    slope(c, &l->le_oflow_scale, &l->le_oflow_shift, &l->le_oflow_f);
    slope(c, &l->lo_uflow_scale, &l->lo_uflow_shift, &l->lo_uflow_f);
    slope(c, &l->lo_oflow_scale, &l->lo_oflow_shift, &l->lo_oflow_f);
    c_u8(c, &l->hybrid_priority);
    c_u8(c, &l->underflow_priority);
    c_u8(c, &l->overflow_priority);
    c_u8(c, &l->method);
}

/* ---------------------------------------------------------------- API */

enum fw_layout fw_layout_for_blob(uint8_t major, uint8_t minor, uint32_t sub_interface)
{
    if (major == 0) /* NVIDIA's firmware numbering: the offset field came with 0.12 */
        return minor <= 11 ? FW_LAYOUT_LEGACY : FW_LAYOUT_CURRENT;
    /* another compiler's own numbering (ONNC tags its blobs 1.2.0 and writes
     * the data cube without offset): NVIDIA's DLA1 sub-interface tags came
     * with the current layout, an untagged blob is the legacy one */
    return sub_interface ? FW_LAYOUT_CURRENT : FW_LAYOUT_LEGACY;
}

bool fw_version_known(uint8_t major, uint8_t minor)
{
    if (major == 0) /* NVIDIA's regression blobs 0.10/0.11, its compiler 0.12.3, firmware 0.12.5 */
        return minor == 0 || (minor >= 10 && minor <= 12);
    return major == 1 && (minor == 2 || minor == 3); /* ONNC's BLOB_DLA_VERSION */
}

const char *fw_versions_known(void)
{
    return "NVIDIA's 0.10.x and 0.11.x (legacy layout) and 0.12.x, ONNC's 1.2.x and 1.3.x, "
           "or untagged 0.0.x";
}

void fw_decode_network(const uint8_t b[FW_NETWORK_SIZE], struct fw_network *n)
{
    struct codec c = {.b = (uint8_t *)b};
    network(&c, n);
}

void fw_encode_network(const struct fw_network *n, uint8_t b[FW_NETWORK_SIZE])
{
    struct codec c = {.b = b, .enc = true};
    struct fw_network copy = *n;
    network(&c, &copy);
}

void fw_decode_common_op(const uint8_t b[FW_COMMON_OP_SIZE], struct fw_common_op *o)
{
    struct codec c = {.b = (uint8_t *)b};
    common_op(&c, o);
}

void fw_encode_common_op(const struct fw_common_op *o, uint8_t b[FW_COMMON_OP_SIZE])
{
    struct codec c = {.b = b, .enc = true};
    struct fw_common_op copy = *o;
    common_op(&c, &copy);
}

static void op_codec(struct codec *oc, struct codec *sc, struct fw_op *op)
{
    switch (op->type) {
    case FW_OP_BDMA: {
        uint16_t reserved = 0;
        c_u16(oc, &op->u.bdma.num_transfers);
        c_u16(oc, &reserved);
        bdma_surface(sc, &op->u.bdma.surface);
        break;
    }
    case FW_OP_CONV:
        conv_op(oc, &op->u.conv.op);
        conv_surface(sc, &op->u.conv.surface);
        break;
    case FW_OP_SDP:
        sdp_op(oc, &op->u.sdp.op);
        sdp_surface(sc, &op->u.sdp.surface);
        break;
    case FW_OP_PDP:
        pdp_op(oc, &op->u.pdp.op);
        two_cubes(sc, &op->u.pdp.surface);
        break;
    case FW_OP_CDP:
        cdp_op(oc, &op->u.cdp.op);
        two_cubes(sc, &op->u.cdp.surface);
        break;
    case FW_OP_RUBIK:
        rubik_op(oc, &op->u.rubik.op);
        two_cubes(sc, &op->u.rubik.surface);
        break;
    default:
        break;
    }
}

bool fw_decode_op(enum fw_layout layout, uint8_t type, const uint8_t opb[FW_OP_SIZE],
                  const uint8_t surface[FW_SURFACE_SIZE], struct fw_op *out)
{
    memset(out, 0, sizeof *out);
    if (type > FW_OP_RUBIK)
        return false;
    out->type = type;
    struct codec oc = {.b = (uint8_t *)opb, .layout = layout};
    struct codec sc = {.b = (uint8_t *)surface, .layout = layout};
    op_codec(&oc, &sc, out);
    return true;
}

void fw_encode_op(enum fw_layout layout, const struct fw_op *op, uint8_t opb[FW_OP_SIZE],
                  uint8_t surface[FW_SURFACE_SIZE])
{
    memset(opb, 0, FW_OP_SIZE);
    memset(surface, 0, FW_SURFACE_SIZE);
    struct codec oc = {.b = opb, .enc = true, .layout = layout};
    struct codec sc = {.b = surface, .enc = true, .layout = layout};
    struct fw_op copy = *op;
    op_codec(&oc, &sc, &copy);
}

void fw_decode_lut(const uint8_t b[FW_LUT_SIZE], struct fw_lut *l)
{
    struct codec c = {.b = (uint8_t *)b};
    lut(&c, l);
}

void fw_encode_lut(const struct fw_lut *l, uint8_t b[FW_LUT_SIZE])
{
    struct codec c = {.b = b, .enc = true};
    struct fw_lut copy = *l;
    lut(&c, &copy);
}

const char *fw_op_type_name(uint8_t type)
{
    static const char *const names[] = {"BDMA", "CONV", "SDP", "PDP", "CDP", "RUBIK"};
    return type < FW_OP_TYPES ? names[type] : "?";
}

const char *fw_event_name(uint8_t event)
{
    static const char *const names[] = {"none",       "OP_COMPLETED", "OP_PROGRAMMED",
                                        "OP_ENABLED", "CDMA_WT_DONE", "CDMA_DT_DONE"};
    return event <= FW_EV_CDMA_DT_DONE ? names[event] : "?";
}
