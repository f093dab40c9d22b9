/* EMU tasks: the fp16 rounding of the emulator's half type (ties away from
 * zero) against a nearest-value search over every half, and POWER/SOFTMAX
 * tasks built with the writer, checked against plain float references. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu.h"
#include "fp16.h"
#include "loadable_writer.h"
#include "runtime.h"

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

/* One EMU task in the current layout: src (address 1) -> dst (address 2). */
static void build_task(uint8_t op_type, float power, float scale, float shift, uint16_t c,
                       uint16_t h, uint16_t w, const uint16_t *src, uint8_t **buf, size_t *len)
{
    struct lw *lw = lw_create();
    uint8_t nd[256] = {0}, op[24] = {0}, bufs[512] = {0};
    nd[0] = 3;
    nd[2] = 4;
    nd[4] = 1;
    op[0] = op_type;
    float one = 1.0f;
    memcpy(op + 4, &one, 4);
    memcpy(op + 8, &one, 4);
    if (op_type == EMU_OP_POWER) {
        memcpy(op + 12, &power, 4);
        memcpy(op + 16, &scale, 4);
        memcpy(op + 20, &shift, 4);
    }
    uint32_t line = (uint32_t)w * 32, surf = line * h, size = surf * ((c + 15u) / 16u);
    for (int k = 0; k < 2; k++) {
        uint8_t *b = bufs + 256 * k;
        b[0] = (uint8_t)(1 + k);
        memcpy(b + 6, &size, 4);
        b[10] = 3; /* FF16 */
        memcpy(b + 12, &w, 2);
        memcpy(b + 14, &h, 2);
        memcpy(b + 16, &c, 2);
        memcpy(b + 18, &line, 4);
        memcpy(b + 22, &surf, 4);
    }
    struct ld_version v = {0, 1, 0};
    lw_blob(lw, "nd", LD_IF_EMU1, 1, v, nd, sizeof nd);
    lw_blob(lw, "src", LD_IF_NONE, 0, (struct ld_version){0, 0, 0}, src, size);
    lw_blob(lw, "op", LD_IF_EMU1, 3, v, op, sizeof op);
    lw_blob(lw, "bufs", LD_IF_EMU1, 4, v, bufs, sizeof bufs);
    lw_memory(lw, 0, 3, 256, 0, "nd", 0, 0);
    lw_memory(lw, 0, 3, size, 0, "src", 0, 0);
    lw_memory(lw, 0, 1, size, 0, NULL, 0, 0);
    lw_memory(lw, 0, 3, 24, 0, "op", 0, 0);
    lw_memory(lw, 0, 3, 512, 0, "bufs", 0, 0);
    for (uint16_t i = 0; i < 5; i++)
        lw_address(lw, i, 0, 0);
    uint16_t addrs[5] = {0, 1, 2, 3, 4}, task = 0;
    lw_task(lw, LD_IF_EMU1, addrs, 5, NULL, 0, NULL, 0);
    lw_submit(lw, &task, 1);
    assert_true(lw_finish(lw, (struct ld_version){0, 7, 0}, buf, len));
    lw_destroy(lw);
}

struct run {
    struct dla *d;
    struct loadable *l;
    struct runtime rt;
};

static void run_task(struct run *r, const uint8_t *buf, size_t len)
{
    char err[512];
    r->d = dla_create(dla_config_default(), NULL);
    r->l = loadable_parse(buf, len, "emu", err, sizeof err);
    if (!r->l)
        fail_msg("%s", err);
    assert_true(runtime_load(&r->rt, r->l, r->d, err, sizeof err));
    if (!emu_run_task(r->d, &r->rt, 0, err, sizeof err))
        fail_msg("%s", err);
}

static uint16_t result(struct run *r, uint64_t off)
{
    uint16_t v;
    assert_int_equal(
        dla_mem_read(r->d, (enum dla_space)r->rt.mem[2].space, r->rt.mem[2].addr + off, &v, 2),
        MEM_OK);
    return v;
}

static void run_free(struct run *r)
{
    runtime_free(&r->rt);
    loadable_free(r->l);
    dla_destroy(r->d);
}

static void test_power(void **state)
{
    (void)state;
    enum { C = 20, H = 2, W = 3 };
    /* surface of two 16-channel groups, element (c,h,w) at the x16 offset */
    uint16_t src[2 * H * W * 16] = {0};
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                src[(c / 16) * H * W * 16 + (y * W + x) * 16 + c % 16] =
                    fp16_from_float((float)(c - 7) * 0.37f + (float)y - (float)x * 0.5f);
    uint8_t *buf;
    size_t len;
    build_task(EMU_OP_POWER, 2.0f, 0.5f, 1.25f, C, H, W, src, &buf, &len);
    struct run r;
    run_task(&r, buf, len);
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                size_t at = (size_t)(c / 16) * H * W * 16 + (size_t)(y * W + x) * 16 + c % 16;
                float xv = fp16_to_float(src[at]);
                float want = powf(1.25f + 0.5f * xv, 2.0f);
                assert_int_equal(result(&r, 2 * at), reference_half(want));
            }
    run_free(&r);
    free(buf);
}

static void test_softmax(void **state)
{
    (void)state;
    enum { C = 10 };
    uint16_t src[16] = {0};
    for (int c = 0; c < C; c++)
        src[c] = fp16_from_float((float)c * 0.75f - 3.0f);
    uint8_t *buf;
    size_t len;
    build_task(EMU_OP_SOFTMAX, 0, 0, 0, C, 1, 1, src, &buf, &len);
    struct run r;
    run_task(&r, buf, len);
    /* reference: in double, then rounded; must agree to one half ulp step */
    double sum = 0, e[C], max = -1e30;
    for (int c = 0; c < C; c++)
        max = fmax(max, fp16_to_float(src[c]));
    for (int c = 0; c < C; c++)
        sum += e[c] = exp(fp16_to_float(src[c]) - max);
    double total = 0;
    for (int c = 0; c < C; c++) {
        uint16_t got = result(&r, 2 * (uint64_t)c);
        double want = e[c] / sum;
        total += fp16_to_float(got);
        assert_true(fabs(fp16_to_float(got) - want) <= fabs(want) * 0x1p-10 + 0x1p-24);
    }
    assert_true(fabs(total - 1.0) < 10 * 0x1p-11); /* fp16 precision, ten terms */
    run_free(&r);
    free(buf);
}

static void test_bad_descriptor(void **state)
{
    (void)state;
    uint16_t src[16] = {0};
    uint8_t *buf;
    size_t len;
    build_task(7, 0, 0, 0, 4, 1, 1, src, &buf, &len); /* unknown op type */
    char err[512];
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct loadable *l = loadable_parse(buf, len, "emu", err, sizeof err);
    struct runtime rt;
    assert_true(runtime_load(&rt, l, d, err, sizeof err));
    assert_false(emu_run_task(d, &rt, 0, err, sizeof err));
    assert_non_null(strstr(err, "unknown operation type 7"));
    runtime_free(&rt);
    loadable_free(l);
    dla_destroy(d);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_rounding),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_bad_descriptor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
