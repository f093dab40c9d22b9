/* EMU tasks: the fp16 rounding of the emulator's half type (ties away from
 * zero) against a nearest-value search over every half, and POWER/SOFTMAX
 * tasks in both descriptor layouts (legacy and current), fp16, int8 and
 * int8 on 8-byte atoms, built with the writer and checked against the
 * emulator's float arithmetic computed here independently; every operation
 * ONNC's runtime knows (POWER, SOFTMAX, LOG) in ONNC's form, the legacy
 * emulators' one operation per task, and the refusals: unknown operation
 * types, LOG where ONNC's runtime does not compute it, unknown versions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/emu.h"
#include "num/fp16.h"
#include "loadable/loadable_writer.h"
#include "runtime/runtime.h"

/* Reference: the half nearest to f, ties to the larger magnitude, overflow
 * to infinity at and above 65520 (half way to 65536). */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return (h & 0x8000) ? -v : v;
}

static uint16_t reference_half(float f)
{
    if (isnan(f))
        return 0x7e00; /* not compared */
    double a = fabs((double)f);
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    if (a >= 65520.0)
        return sign | 0x7c00;
    /* positive halves are ordered like their bit patterns */
    uint16_t lo = 0, hi = 0x7bff;
    while (lo < hi) { /* largest half <= a */
        uint16_t mid = (uint16_t)((lo + hi + 1) / 2);
        if (half_value(mid) <= a)
            lo = mid;
        else
            hi = (uint16_t)(mid - 1);
    }
    uint16_t below = lo;
    if (half_value(below) == a || below == 0x7bff)
        return sign | below;
    double d_lo = a - half_value(below), d_hi = half_value((uint16_t)(below + 1)) - a;
    return sign | (d_hi <= d_lo ? (uint16_t)(below + 1) : below);
}

static void test_half_rounding(void **state)
{
    (void)state;
    /* ties: 1 + 2^-11 lies half way between 1 and 1 + 2^-10: away -> up */
    assert_int_equal(emu_half_from_float(1.0f + 0x1p-11f), 0x3c01);
    assert_int_equal(emu_half_from_float(-(1.0f + 0x1p-11f)), 0xbc01);
    assert_int_equal(emu_half_from_float(0x1p-25f), 0x0001); /* half the smallest subnormal */
    assert_int_equal(emu_half_from_float(65519.0f), 0x7bff);
    assert_int_equal(emu_half_from_float(65520.0f), 0x7c00);
    assert_int_equal(emu_half_from_float(INFINITY), 0x7c00);
    uint32_t seed = 7;
    for (int i = 0; i < 300000; i++) {
        seed = seed * 1664525u + 1013904223u;
        /* exponents around the half range: subnormals to overflow */
        uint32_t bits = (seed & 0x807fffffu) | ((uint32_t)(96 + (seed >> 24) % 52) << 23);
        float f = f32_from_bits(bits);
        uint16_t got = emu_half_from_float(f), want = reference_half(f);
        if (got != want)
            fail_msg("%a: got 0x%04x, want 0x%04x", (double)f, got, want);
    }
}

/* One EMU task: network descriptor at address 0, src at 1, dst at 2, the
 * operation list at 3, the buffer list at 4; fields placed as the layout
 * under test keeps them. */
struct emu_case {
    bool legacy;
    uint8_t op_type;
    float power, scale, shift, in_scale, out_scale;
    uint16_t format; /* the layout's own code */
    uint16_t c, h, w;
    uint32_t line, surf, size;
    struct ld_version version;
    uint32_t op_sub_interface;
    uint32_t op_mem_size; /* 0: exactly one operation container per operation */
    const void *src;
    bool second_op; /* a second operation: POWER doubling the source in place */
};

static void put_f32(uint8_t *b, float f)
{
    memcpy(b, &f, 4);
}

static void put_buffer(const struct emu_case *k, uint8_t *b, int16_t index)
{
    memcpy(b, &index, 2);
    uint8_t *p = b + (k->legacy ? 2 : 6); /* the current layout has addressIndexOffset */
    memcpy(p, &k->size, 4);
    memcpy(p + 4, &k->format, 2);
    memcpy(p + 6, &k->w, 2);
    memcpy(p + 8, &k->h, 2);
    memcpy(p + 10, &k->c, 2);
    memcpy(p + 12, &k->line, 4);
    memcpy(p + 16, &k->surf, 4);
}

/* One operation container at op (the layout k has). */
static void put_op(const struct emu_case *k, uint8_t *op, uint8_t type, float power, float scale,
                   float shift)
{
    op[0] = type;
    size_t at = k->legacy ? 1 : 12; /* legacy: packed after the one-byte type */
    if (!k->legacy) {
        put_f32(op + 4, k->in_scale);
        put_f32(op + 8, k->out_scale);
    }
    if (type == EMU_OP_SOFTMAX) {
        op[at] = 1;
    } else if (type != EMU_OP_LOG) { /* LOG: the type alone */
        put_f32(op + at, power);
        put_f32(op + at + 4, scale);
        put_f32(op + at + 8, shift);
    }
}

static void build_case(const struct emu_case *k, uint8_t **buf, size_t *len)
{
    struct lw *lw = lw_create();
    uint8_t nd[256] = {0}, op[48] = {0}, bufs[1024] = {0};
    size_t op_size = k->legacy ? 16 : 24;
    unsigned n_ops = k->second_op ? 2 : 1;
    nd[0] = 3;
    nd[2] = 4;
    nd[4] = (uint8_t)n_ops;
    put_op(k, op, k->op_type, k->power, k->scale, k->shift);
    put_buffer(k, bufs, 1);
    put_buffer(k, bufs + 256, 2);
    if (k->second_op) {
        put_op(k, op + op_size, EMU_OP_POWER, 1.0f, 2.0f, 0.0f);
        put_buffer(k, bufs + 512, 1);
        put_buffer(k, bufs + 768, 1);
    }
    uint32_t op_mem = k->op_mem_size ? k->op_mem_size : (uint32_t)(op_size * n_ops);
    lw_blob(lw, "nd", LD_IF_EMU1, 1, k->version, nd, sizeof nd);
    lw_blob(lw, "src", LD_IF_NONE, 0, (struct ld_version){0, 0, 0}, k->src, k->size);
    lw_blob(lw, "op", LD_IF_EMU1, k->op_sub_interface, k->version, op, op_size * n_ops);
    lw_blob(lw, "bufs", LD_IF_EMU1, 4, k->version, bufs, 512 * n_ops);
    lw_memory(lw, 0, 3, 256, 0, "nd", 0, 0);
    lw_memory(lw, 0, 3, k->size, 0, "src", 0, 0);
    lw_memory(lw, 0, 1, k->size, 0, NULL, 0, 0);
    lw_memory(lw, 0, 3, op_mem, 0, "op", 0, 0);
    lw_memory(lw, 0, 3, 512 * n_ops, 0, "bufs", 0, 0);
    for (uint16_t i = 0; i < 5; i++)
        lw_address(lw, i, 0, 0);
    uint16_t addrs[5] = {0, 1, 2, 3, 4}, task = 0;
    lw_task(lw, LD_IF_EMU1, addrs, 5, NULL, 0, NULL, 0);
    lw_submit(lw, &task, 1);
    assert_true(lw_finish(lw, (struct ld_version){0, 7, 0}, buf, len));
    lw_destroy(lw);
}

/* A current-layout fp16 case as NVIDIA's compiler writes one today
 * (version 0.0.1, sub-interface EMU1_OPS). */
static struct emu_case fp16_case(uint8_t op_type, uint16_t c, uint16_t h, uint16_t w,
                                 const uint16_t *src)
{
    struct emu_case k = {.op_type = op_type, .in_scale = 1, .out_scale = 1, .format = 3,
                         .c = c, .h = h, .w = w, .version = {0, 0, 1},
                         .op_sub_interface = 3, .src = src};
    k.line = (uint32_t)w * 32;
    k.surf = k.line * h;
    k.size = k.surf * ((c + 15u) / 16u);
    return k;
}

struct run {
    struct dla *d;
    struct loadable *l;
    struct runtime rt;
    bool ok;
    char err[512];
};

static void run_case(struct run *r, const struct emu_case *k)
{
    uint8_t *buf;
    size_t len;
    build_case(k, &buf, &len);
    r->d = dla_create(dla_config_default(), NULL);
    r->l = loadable_parse(buf, len, "emu", r->err, sizeof r->err);
    free(buf);
    if (!r->l)
        fail_msg("%s", r->err);
    assert_true(runtime_load(&r->rt, r->l, r->d, r->err, sizeof r->err));
    r->ok = emu_run_task(r->d, &r->rt, 0, r->err, sizeof r->err);
}

static void run_ok(struct run *r, const struct emu_case *k)
{
    run_case(r, k);
    if (!r->ok)
        fail_msg("%s", r->err);
}

/* Bytes of the destination (address 2) at off. */
static void read_dst(struct run *r, uint64_t off, void *v, size_t n)
{
    assert_int_equal(
        dla_mem_read(r->d, (enum dla_space)r->rt.mem[2].space, r->rt.mem[2].addr + off, v, n),
        MEM_OK);
}

static uint16_t result(struct run *r, uint64_t off)
{
    uint16_t v;
    read_dst(r, off, &v, 2);
    return v;
}

static int8_t result8(struct run *r, uint64_t off)
{
    int8_t v;
    read_dst(r, off, &v, 1);
    return v;
}

/* The source (address 1) at off, as a half: the second operation of a task
 * (second_op) doubles it in place when it runs. */
static uint16_t source_half(struct run *r, uint64_t off)
{
    uint16_t v;
    assert_int_equal(
        dla_mem_read(r->d, (enum dla_space)r->rt.mem[1].space, r->rt.mem[1].addr + off, &v, 2),
        MEM_OK);
    return v;
}

static void run_free(struct run *r)
{
    runtime_free(&r->rt);
    loadable_free(r->l);
    dla_destroy(r->d);
}

/* fp16 surface of two 16-channel groups: element (c, y, x) of a C x H x W cube */
enum { PC = 20, PH = 2, PW = 3 };

static size_t x16_at(int c, int y, int x)
{
    return (size_t)(c / 16) * PH * PW * 16 + (size_t)(y * PW + x) * 16 + c % 16;
}

static void fill_power_source(uint16_t *src)
{
    for (int c = 0; c < PC; c++)
        for (int y = 0; y < PH; y++)
            for (int x = 0; x < PW; x++)
                src[x16_at(c, y, x)] =
                    fp16_from_float((float)(c - 7) * 0.37f + (float)y - (float)x * 0.5f);
}

/* A POWER case over the x16 source: run it (the layout given by k) and
 * compare every element with powf in float, rounded as the half type does. */
static void check_power(const struct emu_case *k, const uint16_t *src)
{
    struct run r;
    run_ok(&r, k);
    for (int c = 0; c < PC; c++)
        for (int y = 0; y < PH; y++)
            for (int x = 0; x < PW; x++) {
                size_t at = x16_at(c, y, x);
                float want = powf(k->shift + k->scale * fp16_to_float(src[at]), k->power);
                assert_int_equal(result(&r, 2 * at), reference_half(want));
            }
    run_free(&r);
}

static struct emu_case power_case(const uint16_t *src, float power, float scale, float shift)
{
    struct emu_case k = fp16_case(EMU_OP_POWER, PC, PH, PW, src);
    k.power = power;
    k.scale = scale;
    k.shift = shift;
    return k;
}

static void make_legacy(struct emu_case *k)
{
    k->legacy = true;
    k->format = 2;          /* FF16 in the old numbering */
    k->op_sub_interface = 0; /* the old compiler and ONNC leave it 0 */
}

/* ONNC's form: the legacy layout tagged with ONNC's own 1.2.0. */
static void make_onnc(struct emu_case *k)
{
    make_legacy(k);
    k->version = (struct ld_version){1, 2, 0};
}

static void test_power(void **state)
{
    (void)state;
    uint16_t src[2 * PH * PW * 16] = {0};
    fill_power_source(src);
    struct emu_case k = power_case(src, 2.0f, 0.5f, 1.25f);
    check_power(&k, src);
}

/* The layout of nvdla/sw before int8 support (NN_L0_0): power, scale and
 * shift packed right after the type byte (offsets 1, 5, 9), buffers without
 * addressIndexOffset, FF16 coded 2; NVIDIA's compilers tag it 0.0.1 just
 * like the current layout.  Reading the floats at 4/8/12 made NN_L0_0's
 * power operation write +inf. */
static void test_power_legacy_layout(void **state)
{
    (void)state;
    uint16_t src[2 * PH * PW * 16] = {0};
    fill_power_source(src);
    struct emu_case k = power_case(src, 3.0f, -0.25f, 0.5f);
    make_legacy(&k);
    check_power(&k, src);
    /* ONNC writes the same layout and tags it 1.2.0 */
    k.version = (struct ld_version){1, 2, 0};
    check_power(&k, src);
}

/* When the operation list's memory is padded, its size says nothing; the
 * blob's sub-interface does: only the current compiler tags it EMU1_OPS. */
static void test_layout_from_sub_interface(void **state)
{
    (void)state;
    uint16_t src[2 * PH * PW * 16] = {0};
    fill_power_source(src);
    struct emu_case k = power_case(src, 1.0f, 2.0f, -1.0f);
    k.op_mem_size = 4096;
    check_power(&k, src);
    make_legacy(&k);
    check_power(&k, src);
}

static void test_softmax(void **state)
{
    (void)state;
    enum { C = 10 };
    uint16_t src[16] = {0};
    for (int c = 0; c < C; c++)
        src[c] = fp16_from_float((float)c * 0.75f - 3.0f);
    struct emu_case k = fp16_case(EMU_OP_SOFTMAX, C, 1, 1, src);
    struct run r;
    run_ok(&r, &k);
    /* the emulator's arithmetic: float max, float sum of expf in order */
    float max = -INFINITY, sum = 0;
    for (int c = 0; c < C; c++)
        max = fmaxf(max, fp16_to_float(src[c]));
    for (int c = 0; c < C; c++)
        sum += expf(fp16_to_float(src[c]) - max);
    for (int c = 0; c < C; c++)
        assert_int_equal(result(&r, 2 * (uint64_t)c),
                         reference_half(expf(fp16_to_float(src[c]) - max) / sum));
    run_free(&r);
}

/* int8 softmax (nv_small, INT8_8): inputs times the input scale rounded to
 * half, probabilities rounded to half, divided by the output scale, then
 * clamped and truncated toward zero into int8.  Scales of the ResNet-18 /
 * LeNet loadables. */
static void test_softmax_int8(void **state)
{
    (void)state;
    enum { C = 10 };
    int8_t src[16] = {12, -40, 77, 3, 0, -128, 127, 55, 54, -1};
    const float in_scale = 0.14163326f, out_scale = 0.0083160335f;
    struct emu_case k = {.op_type = EMU_OP_SOFTMAX, .in_scale = in_scale, .out_scale = out_scale,
                         .format = 1, .c = C, .h = 1, .w = 1, .line = 8, .surf = 8, .size = 16,
                         .version = {0, 0, 1}, .op_sub_interface = 3, .src = src};
    struct run r;
    run_ok(&r, &k);
    float x[C], max = -INFINITY, sum = 0;
    for (int c = 0; c < C; c++) {
        x[c] = fp16_to_float(reference_half((float)src[c] * in_scale));
        max = fmaxf(max, x[c]);
    }
    for (int c = 0; c < C; c++)
        sum += expf(x[c] - max);
    for (int c = 0; c < C; c++) {
        float q = fp16_to_float(reference_half(expf(x[c] - max) / sum)) / out_scale;
        int8_t want = q >= 127 ? 127 : q <= -128 ? -128 : (int8_t)q;
        assert_int_equal(result8(&r, (uint64_t)c), want);
    }
    assert_int_equal(result8(&r, 6), 120); /* the largest: 0.9985 / out_scale, truncated */
    run_free(&r);
}

/* int8 POWER on 8-byte atoms: scaled into float, powf, scaled back,
 * clamped and truncated; channel 9 lives in the second surface. */
static void test_power_int8_x8(void **state)
{
    (void)state;
    enum { C = 10, W = 2 };
    int8_t src[2 * W * 8] = {0};
    for (int c = 0; c < C; c++)
        for (int x = 0; x < W; x++)
            src[(c / 8) * W * 8 + x * 8 + c % 8] = (int8_t)(c * 13 - 60 + x * 7);
    struct emu_case k = {.op_type = EMU_OP_POWER, .power = 2.0f, .scale = 1.0f, .shift = 0.5f,
                         .in_scale = 0.25f, .out_scale = 0.5f, .format = 1, .c = C, .h = 1,
                         .w = W, .line = W * 8, .surf = W * 8, .size = 2 * W * 8,
                         .version = {0, 0, 1}, .op_sub_interface = 3, .src = src};
    struct run r;
    run_ok(&r, &k);
    for (int c = 0; c < C; c++)
        for (int x = 0; x < W; x++) {
            size_t at = (size_t)(c / 8) * W * 8 + (size_t)x * 8 + c % 8;
            float y = powf(0.5f + (float)src[at] * 0.25f, 2.0f) / 0.5f;
            assert_int_equal(result8(&r, at), emu_int8_from_float(y));
        }
    run_free(&r);
}

static void test_int8_store(void **state)
{
    (void)state;
    assert_int_equal(emu_int8_from_float(126.99f), 126);
    assert_int_equal(emu_int8_from_float(-127.99f), -127);
    assert_int_equal(emu_int8_from_float(1e9f), 127);
    assert_int_equal(emu_int8_from_float(-1e9f), -128);
    assert_int_equal(emu_int8_from_float(-0.7f), 0);
    assert_int_equal(emu_int8_from_float(NAN), 0);
}

/* INT16 and the unsigned formats: NVIDIA's emulator refuses them too. */
static void test_int16_refused(void **state)
{
    (void)state;
    uint16_t src[16] = {0};
    struct emu_case k = fp16_case(EMU_OP_SOFTMAX, 4, 1, 1, src);
    k.format = 2; /* INT16 in the current layout */
    struct run r;
    run_case(&r, &k);
    assert_false(r.ok);
    assert_non_null(strstr(r.err, "INT16 surfaces (format code 2) are not computed"));
    run_free(&r);
    k.format = 9;
    run_case(&r, &k);
    assert_false(r.ok);
    assert_non_null(strstr(r.err, "unknown format code 9"));
    run_free(&r);
}

/* ONNC's SOFTMAX (the one EMU operation its compiler emits): the legacy
 * runtime's arithmetic, the channels read as consecutive halves whatever the
 * strides say. */
static void test_softmax_onnc(void **state)
{
    (void)state;
    enum { C = 12 };
    uint16_t src[16] = {0};
    for (int c = 0; c < C; c++)
        src[c] = fp16_from_float((float)(c * c % 7) * 1.5f - 4.0f);
    struct emu_case k = fp16_case(EMU_OP_SOFTMAX, C, 1, 1, src);
    make_onnc(&k);
    struct run r;
    run_ok(&r, &k);
    float max = -INFINITY, sum = 0;
    for (int c = 0; c < C; c++)
        max = fmaxf(max, fp16_to_float(src[c]));
    for (int c = 0; c < C; c++)
        sum += expf(fp16_to_float(src[c]) - max);
    for (int c = 0; c < C; c++)
        assert_int_equal(result(&r, 2 * (uint64_t)c),
                         reference_half(expf(fp16_to_float(src[c]) - max) / sum));
    run_free(&r);
}

static bool half_is_nan(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* ONNC's LOG (onnc-tutorial's CPU fallback lab, NVDLA_EMU_OP_LOG = 2): each
 * half widened, logf in float, rounded back to half ties away; log 0 is
 * -inf, log of a negative value NaN, log of +inf +inf. */
static void test_log_onnc(void **state)
{
    (void)state;
    uint16_t src[2 * PH * PW * 16] = {0};
    static const uint16_t specials[] = {0x3c00, 0x0000, 0xc000, 0x0001, 0x7bff,
                                        0x3800, 0x4200, 0x7c00, 0x8000, 0x03ff};
    size_t n_special = sizeof specials / sizeof specials[0], e = 0;
    for (int c = 0; c < PC; c++)
        for (int y = 0; y < PH; y++)
            for (int x = 0; x < PW; x++, e++)
                src[x16_at(c, y, x)] =
                    e < n_special ? specials[e]
                                  : fp16_from_float((float)(c + 1) * 0.37f + (float)y + (float)x * 0.5f);
    struct emu_case k = fp16_case(EMU_OP_LOG, PC, PH, PW, src);
    make_onnc(&k);
    struct run r;
    run_ok(&r, &k);
    for (int c = 0; c < PC; c++)
        for (int y = 0; y < PH; y++)
            for (int x = 0; x < PW; x++) {
                size_t at = x16_at(c, y, x);
                float want = logf(fp16_to_float(src[at]));
                uint16_t got = result(&r, 2 * at);
                if (isnan(want))
                    assert_true(half_is_nan(got));
                else
                    assert_int_equal(got, reference_half(want));
            }
    assert_int_equal(result(&r, 2 * x16_at(0, 0, 0)), 0x0000); /* log 1 */
    assert_int_equal(result(&r, 2 * x16_at(0, 0, 1)), 0xfc00); /* log 0 */
    assert_int_equal(result(&r, 2 * x16_at(1, 0, 1)), 0x7c00); /* log inf */
    run_free(&r);
}

/* LOG where ONNC's runtime does not compute it: int8 and int16 surfaces
 * (its address calculation refuses all but FF16) and the current layout
 * (NVIDIA's current emulator has no LOG). */
static void test_log_refused(void **state)
{
    (void)state;
    uint16_t src[16] = {0};
    struct emu_case k = fp16_case(EMU_OP_LOG, 4, 1, 1, src);
    struct run r;
    run_case(&r, &k);
    assert_false(r.ok);
    assert_non_null(strstr(r.err, "operation type 2 (LOG) is ONNC's"));
    run_free(&r);
    make_onnc(&k);
    static const char *const names[] = {"LOG on INT8 surfaces (format code 0)",
                                        "LOG on INT16 surfaces (format code 1)"};
    for (uint16_t f = 0; f < 2; f++) {
        k.format = f;
        run_case(&r, &k);
        assert_false(r.ok);
        assert_non_null(strstr(r.err, names[f]));
        assert_non_null(strstr(r.err, "not computed by ONNC's emulator either"));
        run_free(&r);
    }
}

/* The legacy emulators (NVIDIA's before int8, ONNC's) compute operation 0
 * of a task and no other; the current one computes them all.  The second
 * operation here doubles the source in place. */
static void test_legacy_runs_first_operation_only(void **state)
{
    (void)state;
    uint16_t src[2 * PH * PW * 16] = {0};
    fill_power_source(src);
    struct emu_case k = power_case(src, 2.0f, 1.0f, 0.0f);
    k.second_op = true;
    make_onnc(&k);
    check_power(&k, src);
    struct run r;
    run_ok(&r, &k);
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        assert_int_equal(source_half(&r, 2 * i), src[i]);
    assert_non_null(strstr(r.err, "operation 0 of 2 run")); /* said, as a note */
    run_free(&r);
    k = power_case(src, 2.0f, 1.0f, 0.0f);
    k.second_op = true;
    run_ok(&r, &k);
    size_t at = x16_at(3, 1, 2);
    assert_int_equal(source_half(&r, 2 * at), reference_half(2.0f * fp16_to_float(src[at])));
    assert_string_equal(r.err, "");
    run_free(&r);
}

/* An EMU version neither NVIDIA's nor ONNC's is refused when the loadable
 * is loaded, naming it and the known ones. */
static void test_emu_version_refused(void **state)
{
    (void)state;
    uint16_t src[16] = {0};
    struct emu_case k = fp16_case(EMU_OP_SOFTMAX, 4, 1, 1, src);
    static const struct ld_version bad[] = {{0, 1, 0}, {2, 0, 0}, {1, 1, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        k.version = bad[i];
        uint8_t *buf;
        size_t len;
        build_case(&k, &buf, &len);
        struct run r = {.d = dla_create(dla_config_default(), NULL)};
        r.l = loadable_parse(buf, len, "emu", r.err, sizeof r.err);
        free(buf);
        assert_non_null(r.l);
        assert_false(runtime_load(&r.rt, r.l, r.d, r.err, sizeof r.err));
        char want[64];
        snprintf(want, sizeof want, "tagged EMU version %u.%u.%u", bad[i].major, bad[i].minor,
                 bad[i].sub_minor);
        assert_non_null(strstr(r.err, want));
        assert_non_null(strstr(r.err, "NVIDIA's 0.0.1"));
        assert_non_null(strstr(r.err, "\"nd\""));
        run_free(&r);
    }
}

static void test_bad_descriptor(void **state)
{
    (void)state;
    uint16_t src[16] = {0};
    struct emu_case k = fp16_case(7, 4, 1, 1, src); /* unknown op type */
    struct run r;
    run_case(&r, &k);
    assert_false(r.ok);
    assert_non_null(strstr(r.err, "unknown operation type 7"));
    assert_non_null(strstr(r.err, "known are 0 POWER and 1 SOFTMAX"));
    assert_non_null(strstr(r.err, "2 LOG (ONNC's"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_rounding),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_power_legacy_layout),
        cmocka_unit_test(test_layout_from_sub_interface),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_softmax_int8),
        cmocka_unit_test(test_power_int8_x8),
        cmocka_unit_test(test_int8_store),
        cmocka_unit_test(test_int16_refused),
        cmocka_unit_test(test_bad_descriptor),
        cmocka_unit_test(test_softmax_onnc),
        cmocka_unit_test(test_log_onnc),
        cmocka_unit_test(test_log_refused),
        cmocka_unit_test(test_legacy_runs_first_operation_only),
        cmocka_unit_test(test_emu_version_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
