/* EMU task execution (see emu.h).
 *
 * Descriptor offsets (little-endian):
 *   network: operation_desc_index s16 @0, operation_buffer_desc_index s16 @2,
 *            num_operations u16 @4 (256-byte aligned block)
 *   legacy op (16 bytes, packed after a one-byte common part): op_type u8
 *            @0; POWER power f32 @1, scale @5, shift @9; SOFTMAX axis u8 @1
 *   current op (24 bytes; the common part {u8, f32, f32} is not packed):
 *            op_type u8 @0, input_scale f32 @4, output_scale f32 @8;
 *            POWER power @12, scale @16, shift @20; SOFTMAX axis u8 @12
 *   buffer (256 bytes each; src then dst, 512 per op):
 *     legacy:  addressIndex s16 @0, size u32 @2, format u16 @6, w/h/c u16
 *              @8/10/12, line_stride u32 @14, surf_stride u32 @18
 *     current: addressIndex s16 @0, addressIndexOffset u32 @2, size u32 @6,
 *              format u16 @10, w/h/c u16 @12/14/16, line u32 @18, surf @22
 *   LOG (ONNC, legacy only): the one-byte type alone, no parameters
 *   formats: legacy INT8 0, INT16 1, FF16 2 (the DLA precision codes);
 *            current INT8 0, INT8_8 1, INT16 2, FF16 3, UINT8 4, UINT16 5.
 * The emulator computes FF16, INT8 and INT8_8 only; it refuses the others.
 * ONNC's LOG has int8 and int16 branches, but its address calculation (the
 * legacy getAddrOffset) takes FF16 only, so they never run: FF16 only. */
#include "emu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cube.h"
#include "num/fp16.h"
#include "util/le_bytes.h"

#define EMU_BUFFER_DESC   256u
#define EMU_MAX_ELEMENTS  (16u << 20)
#define EMU_SUB_IF_OPS    3u /* NVDLA_LOADABLE_SUB_INTERFACE_EMU1_OPS */
#define EMU_MAX_OP_BYTES  24u

enum emu_format {
    EMU_FMT_INT8,
    EMU_FMT_INT8_8,
    EMU_FMT_INT16,
    EMU_FMT_FF16,
    EMU_FMT_UINT8,
    EMU_FMT_UINT16,
    EMU_FMT_UNKNOWN,
};

static const char *const format_names[] = {"INT8", "INT8_8", "INT16", "FF16",
                                           "UINT8", "UINT16", "unknown"};

static const char *const op_names[] = {"POWER", "SOFTMAX", "LOG"};
#define EMU_OP_TYPES (sizeof op_names / sizeof op_names[0])

/* Where one layout keeps each field. */
struct emu_layout {
    const char *name;
    size_t op_size;        /* one operation container */
    size_t power_at;       /* power, scale, shift: three f32 from here */
    size_t axis_at;        /* softmax axis */
    bool has_scales;       /* input/output scale factors at 4 and 8 */
    bool has_index_offset; /* buffer descriptors carry addressIndexOffset */
    const enum emu_format *formats;
    size_t n_formats;
};

static const enum emu_format legacy_formats[] = {EMU_FMT_INT8, EMU_FMT_INT16, EMU_FMT_FF16};
static const enum emu_format current_formats[] = {EMU_FMT_INT8, EMU_FMT_INT8_8, EMU_FMT_INT16,
                                                  EMU_FMT_FF16, EMU_FMT_UINT8, EMU_FMT_UINT16};

static const struct emu_layout layout_legacy = {"legacy", 16, 1, 1, false, false,
                                                legacy_formats, 3};
static const struct emu_layout layout_current = {"current", 24, 12, 12, true, true,
                                                 current_formats, 6};

struct emu_buffer {
    int16_t index;
    uint32_t index_offset, size;
    uint16_t format_code;
    uint8_t format; /* enum emu_format */
    uint16_t w, h, c;
    uint32_t line, surf;
    uint8_t space;
    uint64_t addr; /* resolved: address of element 0 */
};

struct emu_op {
    uint8_t type;
    float input_scale, output_scale;
    float power, scale, shift;
    uint8_t axis;
};

struct emu_ctx {
    struct dla *d;
    const struct runtime *rt;
    uint32_t task;
    const struct emu_layout *lay;
    char *msg;
    size_t len;
};

bool emu_version_known(struct ld_version v)
{
    if (v.major == 0 && v.minor == 0)
        return v.sub_minor <= 1; /* NVIDIA's emu_version.h, or untagged */
    return v.major == 1 && (v.minor == 2 || v.minor == 3); /* ONNC's BLOB_EMU_VERSION */
}

const char *emu_versions_known(void)
{
    return "NVIDIA's 0.0.1 (or untagged 0.0.0) and ONNC's 1.2.x and 1.3.x";
}

uint16_t emu_half_from_float(float f)
{
    uint32_t bits = f32_bits(f);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t e = (bits >> 23) & 0xffu;
    uint32_t m = bits & 0x7fffffu;
    uint16_t h;
    uint32_t round;
    if (e == 0xff) { /* inf and NaN keep the top mantissa bits, no rounding */
        return (uint16_t)(sign | 0x7c00u | (m >> 13));
    } else if (e > 142) { /* beyond the largest half: infinity */
        return (uint16_t)(sign | 0x7c00u);
    } else if (e >= 113) { /* normal half */
        h = (uint16_t)(((e - 112) << 10) | (m >> 13));
        round = (m >> 12) & 1u;
    } else if (e >= 103) { /* subnormal half: implicit bit shifted in */
        unsigned shift = 126 - e;
        h = (uint16_t)((1u << (e - 103)) + (m >> shift));
        round = (m >> (shift - 1)) & 1u;
    } else { /* below half of the smallest subnormal, or exactly rounding to it */
        h = 0;
        round = e == 102;
    }
    if ((h & 0x7c00u) != 0x7c00u)
        h = (uint16_t)(h + round); /* a carry may reach the exponent: correct */
    return (uint16_t)(sign | h);
}

int8_t emu_int8_from_float(float y)
{
    if (!(y == y))
        return 0; /* the float->int conversion of NaN; x86 and Arm both give 0 here */
    if (y >= 127.0f)
        return 127;
    if (y <= -128.0f)
        return -128;
    return (int8_t)y;
}

static bool fail(struct emu_ctx *c, const char *fmt, const char *what, long v)
{
    char text[200];
    snprintf(text, sizeof text, fmt, what, v);
    snprintf(c->msg, c->len, "%s (%s EMU layout)", text, c->lay ? c->lay->name : "unknown");
    return false;
}

static float get_f32(const uint8_t *b)
{
    return f32_from_bits(le_get32(b));
}

/* Bytes of the memory behind a task address, from the address on. */
static bool bytes_from(struct emu_ctx *c, int32_t index, uint64_t *avail)
{
    enum dla_space s;
    uint64_t addr, base, size;
    if (!runtime_task_address(c->rt, c->task, index, &s, &addr) ||
        !runtime_task_buffer(c->rt, c->task, index, &s, &base, &size))
        return false;
    *avail = addr - base <= size ? size - (addr - base) : 0;
    return true;
}

static bool read_at(struct emu_ctx *c, int32_t index, uint64_t offset, void *buf, size_t len,
                    const char *what)
{
    enum dla_space s;
    uint64_t addr, avail;
    if (!runtime_task_address(c->rt, c->task, index, &s, &addr) || !bytes_from(c, index, &avail))
        return fail(c, "%s: address index %ld is not in the task's address list", what, index);
    /* descriptors must lie inside their memory */
    if (offset + len > avail)
        return fail(c, "%s: descriptor beyond its memory (%ld bytes)", what, (long)avail);
    if (dla_mem_read(c->d, s, addr + offset, buf, len) != MEM_OK)
        return fail(c, "%s: cannot read memory (index %ld)", what, index);
    return true;
}

/* The operation list holds exactly n containers of the compiler's layout;
 * when its memory is padded, the blob's sub-interface tells: only the
 * current compiler tags its blobs (EMU1_OPS), the old one and ONNC write 0. */
static const struct emu_layout *pick_layout(struct emu_ctx *c, int16_t op_index, uint16_t n)
{
    uint64_t avail;
    if (n && bytes_from(c, op_index, &avail)) {
        if (avail == (uint64_t)layout_current.op_size * n)
            return &layout_current;
        if (avail == (uint64_t)layout_legacy.op_size * n)
            return &layout_legacy;
        const struct ld_blob *b = runtime_task_blob(c->rt, c->task, op_index);
        if (b && b->interface == LD_IF_EMU1)
            return b->sub_interface == EMU_SUB_IF_OPS ? &layout_current : &layout_legacy;
        if (avail < (uint64_t)layout_current.op_size * n)
            return &layout_legacy;
    }
    return &layout_current;
}

static uint8_t format_of(const struct emu_layout *lay, uint16_t code)
{
    return code < lay->n_formats ? (uint8_t)lay->formats[code] : EMU_FMT_UNKNOWN;
}

static void decode_buffer(const struct emu_layout *lay, const uint8_t *b, struct emu_buffer *x)
{
    memset(x, 0, sizeof *x);
    x->index = (int16_t)le_get16(b);
    const uint8_t *p = b + 2;
    if (lay->has_index_offset) {
        x->index_offset = le_get32(p);
        p += 4;
    }
    x->size = le_get32(p);
    x->format_code = le_get16(p + 4);
    x->w = le_get16(p + 6);
    x->h = le_get16(p + 8);
    x->c = le_get16(p + 10);
    x->line = le_get32(p + 12);
    x->surf = le_get32(p + 16);
    x->format = format_of(lay, x->format_code);
}

static bool computed_format(uint8_t f)
{
    return f == EMU_FMT_FF16 || f == EMU_FMT_INT8 || f == EMU_FMT_INT8_8;
}

static bool resolve_buffer(struct emu_ctx *c, struct emu_buffer *x, const char *what)
{
    enum dla_space s;
    if (!runtime_task_address(c->rt, c->task, x->index, &s, &x->addr))
        return fail(c, "%s: address index %ld is not in the task's address list", what, x->index);
    x->addr += x->index_offset;
    x->space = (uint8_t)s;
    if (x->format == EMU_FMT_UNKNOWN)
        return fail(c, "%s: unknown format code %ld", what, x->format_code);
    if (!computed_format(x->format)) {
        snprintf(c->msg, c->len,
                 "%s: %s surfaces (format code %u) are not computed by NVIDIA's emulator either "
                 "(%s EMU layout)",
                 what, format_names[x->format], x->format_code, c->lay->name);
        return false;
    }
    if ((uint64_t)x->w * x->h * x->c > EMU_MAX_ELEMENTS)
        return fail(c, "%s: %ld elements is too many", what, (long)x->w * x->h * x->c);
    return true;
}

/* Byte offset of (w, h, c): channels grouped by one 32-byte atom (8 bytes
 * for INT8_8). */
static uint64_t element_offset(const struct emu_buffer *x, uint32_t w, uint32_t h, uint32_t c)
{
    unsigned bpe = x->format == EMU_FMT_FF16 ? 2 : 1;
    unsigned atom = x->format == EMU_FMT_INT8_8 ? 8u : 32u;
    return feature_offset(c, h, w, x->line, x->surf, atom, bpe);
}

static bool load(struct emu_ctx *c, const struct emu_buffer *x, uint64_t off, void *v, size_t n)
{
    if (dla_mem_read(c->d, (enum dla_space)x->space, x->addr + off, v, n) != MEM_OK)
        return fail(c, "%s: read outside memory at +%ld", "EMU", (long)off);
    return true;
}

static bool store(struct emu_ctx *c, const struct emu_buffer *x, uint64_t off, const void *v,
                  size_t n)
{
    if (dla_mem_write(c->d, (enum dla_space)x->space, x->addr + off, v, n) != MEM_OK)
        return fail(c, "%s: write outside memory at +%ld", "EMU", (long)off);
    return true;
}

static bool load_half(struct emu_ctx *c, const struct emu_buffer *x, uint64_t off, float *v)
{
    uint8_t b[2];
    if (!load(c, x, off, b, 2))
        return false;
    *v = fp16_to_float(le_get16(b));
    return true;
}

static bool store_half(struct emu_ctx *c, const struct emu_buffer *x, uint64_t off, float v)
{
    uint8_t b[2];
    le_put16(b, emu_half_from_float(v));
    return store(c, x, off, b, 2);
}

/* One element of POWER: fp16 in float, int8 scaled into float and back. */
static bool power_element(struct emu_ctx *c, const struct emu_op *op, const struct emu_buffer *src,
                          uint64_t so, const struct emu_buffer *dst, uint64_t dof)
{
    if (src->format == EMU_FMT_FF16) {
        float x;
        return load_half(c, src, so, &x) &&
               store_half(c, dst, dof, powf(op->shift + op->scale * x, op->power));
    }
    int8_t v;
    if (!load(c, src, so, &v, 1))
        return false;
    float x = (float)v * op->input_scale;
    float y = powf(op->shift + op->scale * x, op->power);
    y /= op->output_scale;
    int8_t r = emu_int8_from_float(y);
    return store(c, dst, dof, &r, 1);
}

static bool run_power(struct emu_ctx *c, const struct emu_op *op, const struct emu_buffer *src,
                      const struct emu_buffer *dst)
{
    for (uint32_t ch = 0; ch < src->c; ch++)
        for (uint32_t h = 0; h < src->h; h++)
            for (uint32_t w = 0; w < src->w; w++)
                if (!power_element(c, op, src, element_offset(src, w, h, ch), dst,
                                   element_offset(dst, w, h, ch)))
                    return false;
    return true;
}

/* ONNC's LOG on fp16: the half widened to float, logf, rounded back to
 * half (ties away); log of 0 is -inf, of a negative value NaN, stored as
 * the half type stores them. */
static bool run_log(struct emu_ctx *c, const struct emu_buffer *src, const struct emu_buffer *dst)
{
    for (uint32_t ch = 0; ch < src->c; ch++)
        for (uint32_t h = 0; h < src->h; h++)
            for (uint32_t w = 0; w < src->w; w++) {
                float x;
                if (!load_half(c, src, element_offset(src, w, h, ch), &x) ||
                    !store_half(c, dst, element_offset(dst, w, h, ch), logf(x)))
                    return false;
            }
    return true;
}

/* Softmax over the channels of a 1x1xC vector stored contiguously (the
 * emulator ignores strides here).  int8 inputs are scaled and rounded to
 * half first, the probabilities rounded to half, then divided by the
 * output scale and stored as int8. */
static bool run_softmax(struct emu_ctx *c, const struct emu_op *op, const struct emu_buffer *src,
                        const struct emu_buffer *dst)
{
    uint32_t n = src->c;
    float *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return fail(c, "%s: out of memory (%ld channels)", "softmax", n);
    bool fp16 = src->format == EMU_FMT_FF16;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        if (fp16) {
            ok = load_half(c, src, 2ull * i, &x[i]);
        } else {
            int8_t v = 0;
            ok = load(c, src, i, &v, 1);
            x[i] = fp16_to_float(emu_half_from_float((float)v * op->input_scale));
        }
    }
    float maxval = -INFINITY;
    for (uint32_t i = 0; i < n; i++)
        if (x[i] > maxval)
            maxval = x[i];
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; i++)
        sum += expf(x[i] - maxval);
    for (uint32_t i = 0; i < n && ok; i++) {
        float p = expf(x[i] - maxval) / sum;
        if (fp16) {
            ok = store_half(c, dst, 2ull * i, p);
        } else {
            int8_t v = emu_int8_from_float(fp16_to_float(emu_half_from_float(p)) / op->output_scale);
            ok = store(c, dst, i, &v, 1);
        }
    }
    free(x);
    return ok;
}

static void decode_op(const struct emu_layout *lay, const uint8_t *b, struct emu_op *op)
{
    memset(op, 0, sizeof *op);
    op->type = b[0];
    op->input_scale = op->output_scale = 1.0f; /* the legacy layout has none: unscaled */
    if (lay->has_scales) {
        op->input_scale = get_f32(b + 4);
        op->output_scale = get_f32(b + 8);
    }
    op->power = get_f32(b + lay->power_at);
    op->scale = get_f32(b + lay->power_at + 4);
    op->shift = get_f32(b + lay->power_at + 8);
    op->axis = b[lay->axis_at];
}

/* The operation's type: known, and known to the layout's emulator. */
static bool check_op_type(struct emu_ctx *c, uint8_t type)
{
    if (type >= EMU_OP_TYPES) {
        snprintf(c->msg, c->len,
                 "EMU: unknown operation type %u: known are 0 POWER and 1 SOFTMAX (NVIDIA's "
                 "emulator) and 2 LOG (ONNC's, legacy layout) (%s EMU layout)",
                 type, c->lay->name);
        return false;
    }
    if (type == EMU_OP_LOG && c->lay != &layout_legacy) {
        snprintf(c->msg, c->len,
                 "EMU: operation type %u (%s) is ONNC's, known to its legacy-layout runtime "
                 "only; NVIDIA's current emulator has no such operation (%s EMU layout)",
                 type, op_names[type], c->lay->name);
        return false;
    }
    return true;
}

/* ONNC's LOG reaches its int8/int16 arithmetic only through an address
 * calculation that refuses every format but FF16. */
static bool check_log_format(struct emu_ctx *c, const struct emu_buffer *x, const char *what)
{
    if (x->format == EMU_FMT_FF16 || x->format == EMU_FMT_UNKNOWN)
        return true; /* an unknown code is resolve_buffer's to name */
    snprintf(c->msg, c->len,
             "%s: LOG on %s surfaces (format code %u) is not computed by ONNC's emulator either: "
             "its address calculation takes FF16 only (%s EMU layout)",
             what, format_names[x->format], x->format_code, c->lay->name);
    return false;
}

static bool run_op(struct emu_ctx *c, int16_t op_index, int16_t buf_index, uint16_t i)
{
    size_t op_size = c->lay->op_size;
    uint8_t ob[EMU_MAX_OP_BYTES] = {0}, bb[2 * EMU_BUFFER_DESC];
    if (!read_at(c, op_index, (uint64_t)op_size * i, ob, op_size, "EMU operation list") ||
        !read_at(c, buf_index, (uint64_t)sizeof bb * i, bb, sizeof bb, "EMU buffer list"))
        return false;
    struct emu_op op;
    struct emu_buffer src, dst;
    decode_op(c->lay, ob, &op);
    decode_buffer(c->lay, bb, &src);
    decode_buffer(c->lay, bb + EMU_BUFFER_DESC, &dst);
    if (!check_op_type(c, op.type))
        return false;
    if (op.type == EMU_OP_LOG && (!check_log_format(c, &src, "EMU source") ||
                                  !check_log_format(c, &dst, "EMU destination")))
        return false;
    if (!resolve_buffer(c, &src, "EMU source") || !resolve_buffer(c, &dst, "EMU destination"))
        return false;
    if (src.format != dst.format)
        return fail(c, "%s: source and destination formats differ (%ld)", "EMU", src.format_code);
    switch (op.type) {
    case EMU_OP_POWER:
        return run_power(c, &op, &src, &dst);
    case EMU_OP_SOFTMAX:
        return run_softmax(c, &op, &src, &dst);
    default:
        return run_log(c, &src, &dst);
    }
}

bool emu_run_task(struct dla *d, const struct runtime *rt, uint32_t task, char *msg, size_t len)
{
    struct emu_ctx c = {.d = d, .rt = rt, .task = task, .msg = msg, .len = len};
    if (len)
        msg[0] = 0;
    uint8_t nb[6];
    if (!read_at(&c, 0, 0, nb, sizeof nb, "EMU network descriptor"))
        return false;
    int16_t op_index = (int16_t)le_get16(nb), buf_index = (int16_t)le_get16(nb + 2);
    uint16_t n = le_get16(nb + 4);
    c.lay = pick_layout(&c, op_index, n);
    /* the legacy emulators (NVIDIA's before int8, ONNC's) process operation
     * 0 and return: the others of the task are never computed */
    if (c.lay == &layout_legacy && n > 1) {
        snprintf(msg, len,
                 "operation 0 of %u run: the legacy emulators (NVIDIA's before int8 support, "
                 "ONNC's) compute only a task's first operation (legacy EMU layout)",
                 n);
        n = 1;
    }
    for (uint16_t i = 0; i < n; i++)
        if (!run_op(&c, op_index, buf_index, i))
            return false;
    return true;
}
