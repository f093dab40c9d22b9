/* The convolution core, direct mode, against a plain reference convolution:
 * int8/int16 on small cubes with padding (CSC pad value), strides, dilation,
 * multi-batch, CDMA convertor, CACC clip/truncate and int32 saturation,
 * compressed weights, every configuration with its own CBUF geometry, and
 * hostile programming. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "conv_harness.h"

struct diag_log {
    unsigned n[DLA_DIAG_HANG + 1];
    char last[256];
    char all[2048]; /* every message, one a line */
};

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct diag_log *l = ctx;
    if (ev->kind != DLA_EV_DIAG)
        return;
    l->n[ev->u.diag.kind]++;
    snprintf(l->last, sizeof l->last, "%s", ev->u.diag.msg);
    size_t n = strlen(l->all);
    snprintf(l->all + n, sizeof l->all - n, "%s\n", ev->u.diag.msg);
}

/* Run a spec and compare every output with the reference. */
static void check_spec(const struct spec *s, unsigned zero_every)
{
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    assert_non_null(d);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct layer_data ld = {.zero_every = (int32_t)zero_every};
    prepare(d, s, &ld);
    struct dla_cube out;
    int rc = run_conv(d, &out);
    if (rc != 0)
        fail_msg("%s: conv failed: %s", s->config, log.last);
    assert_int_equal(log.n[DLA_DIAG_RULE], 0);
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    assert_int_equal(out.w, ow);
    assert_int_equal(out.h, oh);
    assert_int_equal(out.c, s->k);
    assert_int_equal(out.n, s->batches);
    assert_int_equal(out.kind, DLA_CUBE_INT);
    int32_t *want = malloc(sizeof *want * cube_elems(&out));
    uint64_t sat = ref_conv_int(s, &ld, want);
    for (uint32_t b = 0; b < s->batches; b++)
        for (uint32_t k = 0; k < s->k; k++)
            for (uint32_t y = 0; y < oh; y++)
                for (uint32_t x = 0; x < ow; x++) {
                    int32_t w = want[((b * s->k + k) * oh + y) * ow + x];
                    int32_t g = out.v[cube_index(&out, b, k, y, x)];
                    if (w != g)
                        fail_msg("%s b%u k%u y%u x%u: want %d got %d", s->config, b, k, y, x, w, g);
                }
    assert_int_equal(get_reg(d, "CACC.D_OUT_SATURATION"), sat);
    free(want);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

static struct spec base(const char *config, unsigned prec)
{
    struct spec s = spec_3x3_same(config, prec, 6, 5, 11, 7);
    s.data_banks = 2;
    s.weight_banks = 2;
    return s;
}

/* Two layers of the same shape: with the model keeping its scratch, the
 * second takes its operand rows from the arena, allocating nothing (the
 * arena's own counters), and computes the same outputs; layers under half
 * the size give the larger buffers back after three in a row (the arena
 * does not hold a network's largest layer to the end of the run, nor flaps
 * at one small layer).  By default buffers under 128 KiB, which the heap
 * recycles itself, are not kept. */
static void test_scratch_reused_by_next_layer(void **state)
{
    (void)state;
    struct spec s = base("nv_small", 0);
    s.w = 16;
    s.h = 12;
    struct dla *d = dla_create(dla_config_find(s.config), NULL);
    assert_non_null(d);
    assert_int_equal(dla_scratch_grows(d), 0);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube first, second;
    assert_int_equal(run_conv(d, &first), 0); /* 43 KB of data rows: not kept */
    cube_free(&first);
    assert_true(dla_scratch_grows(d) > 0);
    assert_int_equal(dla_scratch_bytes(d), 0);
    assert_int_equal(dla_scratch_reuses(d), 0);

    dla_scratch_keep_from(d, 0); /* every buffer kept */
    assert_int_equal(run_conv(d, &first), 0);
    uint64_t grows = dla_scratch_grows(d), held = dla_scratch_bytes(d);
    assert_true(held >= (uint64_t)spec_ow(&s) * spec_oh(&s) * 16 * 2); /* the data rows */
    assert_int_equal(run_conv(d, &second), 0);
    assert_int_equal(dla_scratch_grows(d), grows);
    assert_int_equal(dla_scratch_bytes(d), held);
    assert_true(dla_scratch_reuses(d) >= 2); /* data and weight rows */
    assert_memory_equal(first.v, second.v, cube_elems(&first) * sizeof *first.v);
    cube_free(&first);
    cube_free(&second);
    free_layer_data(&ld);

    struct spec small = base("nv_small", 0); /* 6 x 5: under a sixth of the rows */
    prepare(d, &small, &ld);
    for (int layer = 1; layer <= 3; layer++) {
        assert_int_equal(run_conv(d, &first), 0);
        cube_free(&first);
        if (layer < 3) /* one small layer between large ones: kept */
            assert_int_equal(dla_scratch_grows(d), grows);
    }
    assert_true(dla_scratch_grows(d) > grows);
    assert_true(dla_scratch_bytes(d) < held / 2);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* CSC's data operand rows of the layer programmed on d, with n threads:
 * a copy of them (the model's scratch holds them until its next layer). */
static int16_t *operand_rows(struct dla *d, const char *threads, struct conv_operands *ops)
{
    setenv("DLADBG_THREADS", threads, 1);
    struct one_stage f;
    one_stage_open(&f, d, DLA_P_CONV, layer_ensure(d, DLA_P_CONV, 0), 0);
    struct conv_params p;
    struct conv_cbuf_plan plan;
    assert_true(conv_params_read(d, 0, &p));
    cdma_plan(d, &p, &plan);
    *ops = (struct conv_operands){0};
    assert_true(cdma_load_data(d, &f.x, &p, &plan, (int32_t)exec_layer(&f.x)->index));
    assert_true(csc_prepare_data(d, &p, &plan, ops));
    size_t n = (size_t)ops->rows * ops->depth;
    int16_t *rows = malloc(n * sizeof *rows);
    assert_non_null(rows);
    memcpy(rows, ops->data, n * sizeof *rows);
    cdma_finish(d, &p, &plan);
    dla_scratch_done(d, SCRATCH_CSC_DATA);
    one_stage_close(&f);
    unsetenv("DLADBG_THREADS");
    return rows;
}

/* The data rows live in a scratch kept from the previous layer and are
 * gathered by several workers when large: a row's padding to depth (3 x 3
 * x 5 channels = 45 values, 48 a row) is zeros though the previous layer
 * (16 channels, 144 values a row) left its values there, and the rows,
 * 1.3 MiB of them, are the same on one thread and on four. */
static void test_operand_rows_any_threads(void **state)
{
    (void)state;
    struct spec large = spec_3x3_same("nv_full", 1, 64, 64, 16, 32);
    struct spec padded = spec_3x3_same("nv_full", 1, 128, 112, 5, 32);
    large.data_banks = padded.data_banks = 15;
    large.weight_banks = padded.weight_banks = 1;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    assert_non_null(d);
    dla_scratch_keep_from(d, 0); /* every buffer kept */
    struct layer_data ld = {0};
    struct conv_operands ops;
    prepare(d, &large, &ld);
    free(operand_rows(d, "1", &ops));
    free_layer_data(&ld);
    prepare(d, &padded, &ld);
    int16_t *one = operand_rows(d, "1", &ops);
    assert_int_equal(ops.depth, 48);
    assert_true((size_t)ops.rows * ops.depth * sizeof *one >= (1u << 20));
    for (uint32_t r = 0; r < ops.rows; r++)
        for (uint32_t i = 45; i < 48; i++)
            if (one[(size_t)r * 48 + i] != 0)
                fail_msg("row %u value %u: %d, not padding", r, i, one[(size_t)r * 48 + i]);
    free_layer_data(&ld);
    prepare(d, &large, &ld);
    free(operand_rows(d, "1", &ops)); /* the scratch full of the large layer's rows again */
    free_layer_data(&ld);
    prepare(d, &padded, &ld);
    int16_t *four = operand_rows(d, "4", &ops);
    assert_memory_equal(one, four, (size_t)ops.rows * ops.depth * sizeof *one);
    free(one);
    free(four);
    free_layer_data(&ld);
    dla_destroy(d);
}

static void test_int8_small(void **state)
{
    (void)state;
    struct spec s = base("nv_small", 0);
    s.pad = 0xfff3; /* -13 in the low byte */
    s.clip = 3;
    check_spec(&s, 0);
}

static void test_int8_full_channels_pack(void **state)
{
    (void)state;
    /* 150 int8 channels: one full 128-byte entry plus a packed tail */
    struct spec s = base("nv_full", 0);
    s.c = 150;
    s.k = 40; /* two kernel groups of 32 */
    s.w = 7;
    check_spec(&s, 0);
    s.c = 20; /* one atom per pixel: four pixels share an entry */
    check_spec(&s, 0);
    s.c = 40; /* two atoms: two pixels per entry */
    check_spec(&s, 0);
}

static void test_int16_full(void **state)
{
    (void)state;
    struct spec s = base("nv_full", 1);
    s.c = 70;
    s.k = 19;
    s.pad = 0x8123;
    s.clip = 9;
    check_spec(&s, 0);
}

static void test_int16_saturation(void **state)
{
    (void)state;
    /* full-range int16 products summed over 3x3x64 and no truncation
     * overflow int32: CACC saturates and counts */
    struct spec s = base("nv_full", 1);
    s.c = 64;
    s.k = 4;
    s.clip = 0;
    s.seed = 99;
    check_spec(&s, 0);
    struct layer_data ld = {0};
    make_layer_data(&s, &ld);
    int32_t *want = malloc(sizeof *want * s.k * spec_ow(&s) * spec_oh(&s));
    assert_true(ref_conv_int(&s, &ld, want) > 0); /* the case does saturate */
    free(want);
    free_layer_data(&ld);
}

/* The integer cells' row blocks go to whichever worker is free
 * (dla_parts): on 1 and 3 threads every output of a layer of six blocks
 * (384 rows) and CACC's saturation count, summed from the workers', are
 * the reference's. */
static void test_int16_saturation_any_threads(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 1, 24, 16, 64, 4);
    s.data_banks = 13;
    s.weight_banks = 3;
    s.seed = 99;
    struct layer_data ld = {0};
    make_layer_data(&s, &ld);
    int32_t *want = malloc(sizeof *want * s.k * spec_ow(&s) * spec_oh(&s));
    assert_true(ref_conv_int(&s, &ld, want) > 100); /* many outputs saturate */
    free(want);
    free_layer_data(&ld);
    setenv("DLADBG_THREADS", "1", 1);
    check_spec(&s, 0);
    setenv("DLADBG_THREADS", "3", 1);
    check_spec(&s, 0);
    unsetenv("DLADBG_THREADS");
}

static void test_strides_dilation_padding(void **state)
{
    (void)state;
    struct spec s = base("nv_small", 0);
    s.w = 9;
    s.h = 8;
    s.sx = 2;
    s.sy = 3;
    s.dx = 2;
    s.dy = 2;
    s.pl = 2;
    s.pt = 1;
    s.pr = 2;
    s.pb = 2;
    s.pad = 0x7f;
    check_spec(&s, 0);
}

static void test_multi_batch(void **state)
{
    (void)state;
    struct spec s = base("nv_full", 0);
    s.batches = 3;
    s.w = 1;
    s.h = 1;
    s.kw = s.kh = 1;
    s.pl = s.pr = s.pt = s.pb = 0;
    s.c = 100;
    s.k = 33;
    check_spec(&s, 0);
    s = base("nv_full", 1);
    s.batches = 2;
    check_spec(&s, 0);
}

static void test_cdma_convertor(void **state)
{
    (void)state;
    struct spec s = base("nv_small", 0);
    s.cvt = true;
    s.cvt_offset = -20;
    s.cvt_scale = 77;
    s.cvt_truncate = 5; /* rounding half away and saturation both happen */
    check_spec(&s, 0);
    s = base("nv_full", 1);
    s.cvt = true;
    s.cvt_offset = 1000;
    s.cvt_scale = -3;
    s.cvt_truncate = 1;
    check_spec(&s, 0);
}

static void test_convertor_arithmetic(void **state)
{
    (void)state;
    bool sat;
    /* (x - offset) * scale >> truncate, rounded half away from zero */
    assert_int_equal((int8_t)conv_cvt(5, 0, 1, 1, CONV_INT8, &sat), 3); /* 2.5 -> 3 */
    assert_false(sat);
    assert_int_equal((int8_t)conv_cvt(-5, 0, 1, 1, CONV_INT8, &sat), -3);
    assert_int_equal((int8_t)conv_cvt(100, -100, 2, 0, CONV_INT8, &sat), 127);
    assert_true(sat);
    assert_int_equal((int16_t)conv_cvt(-32768, 32767, 32767, 0, CONV_INT16, &sat), -32768);
    assert_true(sat);
    /* fp16 output: the 17-bit saturated integer rounded to nearest even */
    assert_int_equal(conv_cvt(2049, 0, 1, 0, CONV_FP16, &sat), fp16_from_float(2048.0f));
    assert_int_equal(conv_cvt(2051, 0, 1, 0, CONV_FP16, &sat), fp16_from_float(2052.0f));
    assert_int_equal(conv_cvt(65535, 0, 1, 0, CONV_FP16, &sat), 0x7c00); /* overflow: inf */
    assert_int_equal(conv_cvt(70000, 0, 2, 0, CONV_FP16, &sat), 0x7c00);
}

static void test_cacc_truncate(void **state)
{
    (void)state;
    bool sat;
    assert_int_equal(cacc_truncate(12, 3, &sat), 2);   /* 1.5 -> 2 */
    assert_int_equal(cacc_truncate(-12, 3, &sat), -2); /* -1.5 -> -2 */
    assert_int_equal(cacc_truncate(-11, 3, &sat), -1);
    assert_false(sat);
    assert_int_equal(cacc_truncate(1ll << 40, 0, &sat), INT32_MAX);
    assert_true(sat);
    assert_int_equal(cacc_truncate(-(1ll << 40), 8, &sat), INT32_MIN);
    assert_true(sat);
    assert_int_equal(cacc_sat48(1ll << 50), 0x7fffffffffffll);
    assert_int_equal(cacc_sat48(-(1ll << 50)), -0x800000000000ll);
}

/* Partial sums that overflow 48 bits: the hardware saturates after each
 * atomic operation, in channel-block then tap order, so a large positive run
 * followed by a negative one does not cancel out. */
static void test_cacc_48bit_order(void **state)
{
    (void)state;
    enum { SEG = 64, SEGS = 4608, DEPTH = SEG * SEGS };
    int16_t *data = malloc(sizeof *data * DEPTH), *wt = malloc(sizeof *wt * DEPTH);
    for (int i = 0; i < DEPTH; i++) {
        data[i] = 32767;
        wt[i] = i < DEPTH / 2 ? 32767 : -32767;
    }
    /* one channel block of DEPTH channels would be one tap; use taps = SEGS
     * with SEG channels so every SEG values are one atomic operation */
    struct conv_operands ops = {.rows = 1,
                                .kernels = 1,
                                .depth = DEPTH,
                                .taps = SEGS,
                                .seg_len = SEG,
                                .c = SEG,
                                .data = data,
                                .weight = wt};
    struct conv_params p = {
        .out_w = 1, .out_h = 1, .out_k = 1, .batches = 1, .clip_truncate = 16, .prec = CONV_INT16};
    struct dla_cube out;
    assert_true(cube_alloc(&out, 1, 1, 1, 1, DLA_CUBE_INT));
    struct cacc_stats st = {0};
    cmac_cacc_int(&p, &ops, &out, &st);
    /* reference: saturate after every partial sum */
    int64_t acc = 0, lim = (1ll << 47) - 1;
    for (int sgi = 0; sgi < SEGS; sgi++) {
        int64_t part = 0;
        for (int i = 0; i < SEG; i++)
            part += (int64_t)data[sgi * SEG + i] * wt[sgi * SEG + i];
        acc += part;
        acc = acc > lim ? lim : acc < -lim - 1 ? -lim - 1 : acc;
    }
    assert_true(acc != 0); /* the exact sum would be 0 */
    assert_int_equal(out.v[0], ref_round_shift(acc, 16));
    cube_free(&out);
    free(data);
    free(wt);
}

/* The SIMD kernels (AVX2 and AVX-512 where the host has them) against plain
 * dot products, with full-range int16 operands split the way cmac.c does,
 * odd row and kernel counts, and blocks not starting at kernel 0. */
static void test_simd_kernels(void **state)
{
    (void)state;
    unsigned have = cmac_simd_lanes();
    enum { ROWS_N = 11, KERN = 45, DEPTH = 592 };
    int16_t *a = malloc(sizeof *a * ROWS_N * DEPTH), *w = malloc(sizeof *w * KERN * DEPTH);
    uint32_t st = 5;
    for (int i = 0; i < ROWS_N * DEPTH; i++)
        a[i] = (int16_t)lcg(&st);
    for (int i = 0; i < KERN * DEPTH; i++)
        w[i] = (int8_t)lcg(&st);
    for (unsigned lanes = 8; lanes <= 16; lanes *= 2) {
        if (have < lanes)
            continue;
        int16_t *packed = cmac_simd_pack(w, KERN, DEPTH, lanes);
        for (uint32_t k0 = 0; k0 < KERN; k0 += 16) {
            uint32_t kn = KERN - k0 < 32 ? KERN - k0 : 32;
            int64_t acc[ROWS_N * 32] = {0};
            /* int8 weights, full int16 data: products below 2^23, 256 per chunk */
            cmac_simd_block(a, DEPTH, ROWS_N, packed, k0, kn, lanes, 256, 1, acc);
            for (uint32_t k = 0; k < kn; k++)
                for (uint32_t r = 0; r < ROWS_N; r++) {
                    int64_t want = 0;
                    for (int i = 0; i < DEPTH; i++)
                        want += (int64_t)a[r * DEPTH + i] * w[(k0 + k) * DEPTH + i];
                    if (acc[k * ROWS_N + r] != want)
                        fail_msg("lanes %u k%u r%u: want %lld got %lld", lanes, k0 + k, r,
                                 (long long)want, (long long)acc[k * ROWS_N + r]);
                }
        }
        free(packed);
    }
    free(a);
    free(w);
}

static void test_compressed_weights(void **state)
{
    (void)state;
    struct spec s = base("nv_full", 0);
    s.compressed = true;
    s.c = 70;
    s.k = 40;
    check_spec(&s, 3);
    s = base("nv_full", 1);
    s.compressed = true;
    s.k = 20;
    check_spec(&s, 2);
}

static void test_every_configuration(void **state)
{
    (void)state;
    size_t n;
    const struct dla_config *all = dla_config_all(&n);
    for (size_t i = 0; i < n; i++) {
        struct spec s = base(all[i].name, 0);
        s.c = 37;
        s.k = 19;
        s.w = 9;
        s.h = 4;
        s.clip = 2;
        check_spec(&s, 0);
    }
}

/* Weights split over several trips through a weight ring smaller than the
 * whole weight set, as on nv_small with few weight banks. */
static void test_weight_streaming(void **state)
{
    (void)state;
    struct spec s = base("nv_small", 0);
    s.c = 64;
    s.k = 32;
    s.weight_banks = 1; /* 4 KiB ring for 18 KiB of weights, 4.6 KiB... per group 4.6 KiB */
    s.kw = s.kh = 2;
    check_spec(&s, 0); /* 8 kernels x 2x2x64 = 2 KiB per group */
}

/* CSC computes a layer in passes of whole kernel groups when its weights
 * are many; forced to one group a pass, every output and the saturation
 * count stay the reference's: a kernel count that ends in a partial group,
 * two batches (each pass copied into the cube), compressed weights, and a
 * weight ring smaller than the weights. */
static void test_weight_passes(void **state)
{
    (void)state;
    conv_set_weight_pass_values(1);
    struct spec s = base("nv_small", 0);
    s.k = 37; /* 4 groups of 8 and 5 kernels */
    check_spec(&s, 0);
    s = base("nv_full", 1);
    s.k = 40;
    s.batches = 2;
    check_spec(&s, 0);
    s = base("nv_full", 0);
    s.k = 70;
    s.compressed = true;
    check_spec(&s, 3);
    s = base("nv_small", 0);
    s.c = 64;
    s.k = 32;
    s.weight_banks = 1;
    s.kw = s.kh = 2;
    check_spec(&s, 0);
    s = base("nv_full", 1);
    s.k = 24;
    s.clip = 6;
    check_spec(&s, 0); /* int16 with truncation in passes of 16 and 8 */
    conv_set_weight_pass_values(0);
}

/* ---------------------------------------------------------------- bad input */

static void test_bank_overflow_is_a_diagnostic(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct spec s = base("nv_full", 0);
    s.data_banks = 10;
    s.weight_banks = 8;
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), -1);
    assert_int_equal(log.n[DLA_DIAG_CBUF], 1);
    cube_free(&out);
    /* compression needs the last bank for WMB */
    s.data_banks = 8;
    s.compressed = true;
    free_layer_data(&ld);
    prepare(d, &s, &ld);
    assert_int_equal(run_conv(d, &out), -1);
    assert_int_equal(log.n[DLA_DIAG_CBUF], 2);
    free_layer_data(&ld);
    dla_destroy(d);
}

static void test_hostile_sizes(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct spec s = base("nv_full", 0);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    /* absurd output, input and kernel sizes straight into the registers */
    set_field(d, "CSC.D_DATAOUT_SIZE_0", NULL, 0x1fff1fff);
    set_field(d, "CSC.D_DATAOUT_SIZE_1", NULL, 0x1fff);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_0", NULL, 0x1f001f);
    set_field(d, "CDMA.D_DATAIN_SIZE_0", NULL, 0x1fff1fff);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), -1);
    assert_true(log.n[DLA_DIAG_UNSUPPORTED] + log.n[DLA_DIAG_CBUF] > 0);
    cube_free(&out);
    /* input larger than the data banks: a CBUF diagnostic, no wrap-around */
    free_layer_data(&ld);
    s.w = 200;
    s.h = 60;
    s.c = 64;
    s.data_banks = 1;
    prepare(d, &s, &ld);
    unsigned before = log.n[DLA_DIAG_CBUF];
    assert_int_equal(run_conv(d, &out), -1);
    assert_int_equal(log.n[DLA_DIAG_CBUF], before + 1);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
    /* weights running past the 32-bit address space: memory diagnostic */
    d = dla_create(dla_config_find("nv_small"), NULL);
    dla_listen(d, on_event, &log);
    s = base("nv_small", 0);
    prepare(d, &s, &ld);
    set_field(d, "CDMA.D_WEIGHT_ADDR_LOW", NULL, 0xffffff00);
    assert_int_equal(run_conv(d, &out), -1);
    assert_true(log.n[DLA_DIAG_MEM] > 0);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* A layer asking for more MACs than the model's work budget is refused. */
static void test_work_budget(void **state)
{
    (void)state;
    struct dla_options opt = {.work_budget = 10000};
    struct dla *d = dla_create(dla_config_find("nv_small"), &opt);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct spec s = base("nv_small", 0); /* 6x5 outputs x 7 kernels x 99 MACs = 20790 */
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), -1);
    assert_int_equal(log.n[DLA_DIAG_UNSUPPORTED], 1);
    free_layer_data(&ld);
    dla_destroy(d);
}

static void test_absent_precision(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_small"), NULL);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct spec s = base("nv_small", 1);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), -1);
    assert_int_equal(log.n[DLA_DIAG_FEATURE_ABSENT], 1);
    free_layer_data(&ld);
    dla_destroy(d);
}

static void test_rule_output_size(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_small"), NULL);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct spec s = base("nv_small", 0);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    set_field(d, "CDMA.D_ZERO_PADDING", "PAD_RIGHT", 0); /* output no longer fits */
    set_field(d, "CACC.D_CLIP_CFG", NULL, 20);
    struct dla_cube out;
    run_conv(d, &out);
    assert_true(log.n[DLA_DIAG_RULE] >= 2);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* Kernel counts that disagree (nvdla/hw cmod: CSC computes its own
 * WEIGHT_KERNEL kernels, CDMA fetches its own count into CBUF, CACC delivers
 * its DATAOUT_CHANNEL channels).  More kernels than output channels once
 * wrote past the output cube. */
static void expect_channels(const struct spec *s, const struct layer_data *ld,
                            const struct dla_cube *out, uint32_t channels)
{
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    int32_t *want = malloc(sizeof *want * (size_t)s->k * ow * oh);
    ref_conv_int(s, ld, want);
    assert_int_equal(out->c, channels);
    for (uint32_t k = 0; k < channels; k++)
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t x = 0; x < ow; x++)
                if (want[(k * oh + y) * ow + x] != out->v[cube_index(out, 0, k, y, x)])
                    fail_msg("k%u y%u x%u: want %d got %d", k, y, x, want[(k * oh + y) * ow + x],
                             out->v[cube_index(out, 0, k, y, x)]);
    free(want);
}

static void test_kernel_count_mismatch(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct diag_log log = {0};
    dla_listen(d, on_event, &log);
    struct spec s = base("nv_full", 0);
    s.k = 40; /* a full group of 32 kernels and one of 8 */
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    /* CSC and CACC produce 32 channels of CSC's 40 kernels: the rest are dropped */
    set_field(d, "CSC.D_DATAOUT_SIZE_1", NULL, 31);
    set_field(d, "CACC.D_DATAOUT_SIZE_1", NULL, 31);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), 0);
    assert_int_equal(log.n[DLA_DIAG_RULE], 1); /* csc.kernels */
    expect_channels(&s, &ld, &out, 32);
    cube_free(&out);
    /* CDMA fetches 41 kernels, CSC computes its 40: the output is unchanged */
    free_layer_data(&ld);
    prepare(d, &s, &ld);
    set_field(d, "CDMA.D_WEIGHT_SIZE_1", NULL, 40);
    assert_int_equal(run_conv(d, &out), 0);
    assert_non_null(strstr(log.all, "CDMA fetches 41 kernels but CSC WEIGHT_KERNEL uses 40"));
    expect_channels(&s, &ld, &out, 40);
    cube_free(&out);
    /* CSC asking for more kernels than CDMA fetched would wait for ever: refused */
    free_layer_data(&ld);
    prepare(d, &s, &ld);
    set_field(d, "CDMA.D_WEIGHT_SIZE_1", NULL, 38);
    unsigned before = log.n[DLA_DIAG_UNSUPPORTED];
    assert_int_equal(run_conv(d, &out), -1);
    assert_int_equal(log.n[DLA_DIAG_UNSUPPORTED], before + 1);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* WEIGHT_BYTES: the compiler's padding to a CBUF entry (nv_small LeNet: 504
 * for 500 bytes of kernels) is fine; too few bytes, or more than one
 * granule of padding, break the guide's rule. */
struct rule_count {
    const char *id;
    unsigned n;
};

static void count_rule(void *ctx, const struct dla_event *ev)
{
    struct rule_count *r = ctx;
    if (ev->kind == DLA_EV_DIAG && ev->u.diag.kind == DLA_DIAG_RULE && ev->u.diag.rule &&
        !strcmp(ev->u.diag.rule, r->id))
        r->n++;
}

static unsigned weight_bytes_rules(uint32_t wt_bytes)
{
    struct dla *d = dla_create(dla_config_find("nv_small"), NULL);
    struct rule_count rc = {.id = "cdma.weight_bytes"};
    dla_listen(d, count_rule, &rc);
    struct spec s = base("nv_small", 0); /* 3*3*11*1*7 = 693 bytes of kernels */
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    set_field(d, "CDMA.D_WEIGHT_BYTES", NULL, wt_bytes);
    set_field(d, "CSC.D_WEIGHT_BYTES", NULL, wt_bytes);
    struct dla_cube out = {0};
    run_conv(d, &out);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
    return rc.n;
}

/* The datapath cycles the convolution core reports for a spec's layer. */
static uint64_t conv_compute_cycles(const struct spec *s, uint64_t *last_group)
{
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    assert_non_null(d);
    struct layer_data ld = {0};
    prepare(d, s, &ld);
    struct one_stage f;
    one_stage_open(&f, d, DLA_P_CONV, layer_ensure(d, DLA_P_CONV, 0), 0);
    struct dla_cube out = {0};
    assert_int_equal(conv_execute(d, &f.x, 0, &out), 0);
    uint64_t cycles = f.pipe.stage[0].compute_cycles;
    assert_true(f.pipe.stage[0].compute_waits_data);
    *last_group = f.pipe.stage[0].last_group_cycles;
    one_stage_close(&f);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
    return cycles;
}

/* Stripes (sim/conv/conv.c): on nv_small a stripe lasts no less than its 8-cycle
 * weight load, and a stripe's outputs take 9 cycles a position plus 38 to
 * reach SDP, overlapping the next stripe's multiplies. */
static void test_stripe_timing(void **state)
{
    (void)state;
    uint64_t last;
    /* 2 positions x 2 channel blocks x 1 kernel group: one stripe of 2
     * atomic operations, each pass held to the weight load (not 4) */
    struct spec s = base("nv_small", 0);
    s.w = 2, s.h = 1, s.c = 16, s.k = 8, s.kw = s.kh = 1;
    s.pl = s.pr = s.pt = s.pb = 0;
    assert_int_equal(conv_compute_cycles(&s, &last), 2 * 8);
    assert_int_equal(last, 16);
    /* 40 positions of a 1x1x8 layer: stripes of 16 and 24 positions; the
     * first is its 16 multiplies, the second its delivery, 24 x 9 + 38 */
    s.w = 40, s.c = 8;
    assert_int_equal(conv_compute_cycles(&s, &last), 16 + 24 * 9 + 38);
    /* two kernel groups: the last group's share is half */
    s.k = 16;
    uint64_t two = conv_compute_cycles(&s, &last);
    assert_int_equal(last, two / 2);
    /* a layer with enough to multiply per stripe: one cycle an atomic op */
    s.w = 40, s.h = 1, s.c = 64, s.k = 8, s.kw = s.kh = 3, s.pl = s.pr = s.pt = s.pb = 1;
    assert_int_equal(conv_compute_cycles(&s, &last), 40 * 1 * 9 * 8);
    /* one position (a fully connected layer, 1x1x64 -> 10 as ResNet-18's
     * classifier): 12 cycles a channel block, not the 8 of the weight load;
     * two kernel groups of 8 passes each */
    s.w = 1, s.h = 1, s.c = 64, s.k = 10, s.kw = s.kh = 1, s.pl = s.pr = s.pt = s.pb = 0;
    assert_int_equal(conv_compute_cycles(&s, &last), 2 * 8 * 12);
    assert_int_equal(last, 8 * 12);
}

static void test_rule_weight_bytes_padding(void **state)
{
    (void)state;
    assert_int_equal(weight_bytes_rules(693), 0);
    assert_int_equal(weight_bytes_rules(696), 0); /* padded to the 8-byte entry */
    assert_int_equal(weight_bytes_rules(768), 0); /* padded to 128 */
    assert_int_equal(weight_bytes_rules(692), 1); /* the last kernel is short */
    assert_int_equal(weight_bytes_rules(896), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8_small),
        cmocka_unit_test(test_int8_full_channels_pack),
        cmocka_unit_test(test_int16_full),
        cmocka_unit_test(test_int16_saturation),
        cmocka_unit_test(test_int16_saturation_any_threads),
        cmocka_unit_test(test_strides_dilation_padding),
        cmocka_unit_test(test_multi_batch),
        cmocka_unit_test(test_cdma_convertor),
        cmocka_unit_test(test_convertor_arithmetic),
        cmocka_unit_test(test_cacc_truncate),
        cmocka_unit_test(test_cacc_48bit_order),
        cmocka_unit_test(test_simd_kernels),
        cmocka_unit_test(test_compressed_weights),
        cmocka_unit_test(test_every_configuration),
        cmocka_unit_test(test_weight_streaming),
        cmocka_unit_test(test_weight_passes),
        cmocka_unit_test(test_bank_overflow_is_a_diagnostic),
        cmocka_unit_test(test_hostile_sizes),
        cmocka_unit_test(test_absent_precision),
        cmocka_unit_test(test_work_budget),
        cmocka_unit_test(test_rule_output_size),
        cmocka_unit_test(test_kernel_count_mismatch),
        cmocka_unit_test(test_rule_weight_bytes_padding),
        cmocka_unit_test(test_stripe_timing),
        cmocka_unit_test(test_scratch_reused_by_next_layer),
        cmocka_unit_test(test_operand_rows_any_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
