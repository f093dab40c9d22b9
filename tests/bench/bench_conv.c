/* Convolution model speed: a 56x56x64 input, 192 kernels 3x3 (stride 1,
 * padding 1) on nv_full, int8, int16 and fp16, run through the whole convolution
 * core (CDMA fetch into CBUF, CSC sequencing, exact MAC, CACC), timed in
 * wall-clock time and reported as simulated MAC/s next to an OpenBLAS sgemm
 * of the same im2col shape (M = 192 kernels, N = 56*56 positions, K =
 * 3*3*64) run in this process.  OpenBLAS runs once with its default thread
 * count and once on one thread; the model uses dla_threads() workers.  A
 * dgemm of the shape is timed too: the exact fp16 cells are double FMAs,
 * and dgemm's rate is what those FMAs alone can reach on this CPU. */
#include <cblas.h>
#include <stdio.h>
#include <time.h>

#include "../unit/conv_harness.h"
#include "bench.h"

void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);

static struct spec layer(unsigned prec)
{
    struct spec s = spec_3x3_same("nv_full", prec, 56, 56, 64, 192);
    s.clip = prec == 1 ? 8 : 0;
    /* input: 28 (int8) or 56 (int16) entries per slice x 56 lines; weights
     * stream through the remaining banks kernel group by kernel group */
    s.data_banks = prec ? 13 : 7;
    s.weight_banks = 16 - s.data_banks;
    return s;
}

/* Best wall time of a few runs of the convolution core; checks a sample of
 * outputs against the reference so that the figure is for exact results. */
static double time_model(const struct spec *s, uint64_t *macs, bool *exact)
{
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    struct layer_data ld = {0};
    prepare(d, s, &ld);
    double best = 1e30;
    struct dla_cube out = {0};
    int reps = s->prec == 2 ? 2 : 3;
    for (int rep = 0; rep < reps; rep++) {
        cube_free(&out);
        double t0 = bench_seconds();
        int rc = run_conv(d, &out);
        double t = bench_seconds() - t0;
        if (rc != 0) {
            printf("conv: model failed on the bench layer\n");
            break;
        }
        if (t < best)
            best = t;
    }
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    *exact = out.v != NULL;
    if (s->prec == 2) { /* fp16: sampled outputs against the bit-level reference */
        for (uint32_t k = 0; *exact && k < s->k; k += 23)
            for (uint32_t y = 0; *exact && y < oh; y += 11)
                for (uint32_t x = 0; x < ow; x += 13)
                    if ((uint32_t)out.v[cube_index(&out, 0, k, y, x)] !=
                        ref_fp16_output_bits(s, &ld, dla_config_find(s->config)->atomic_c, 0, k,
                                             y, x))
                        *exact = false;
    } else {
        int32_t *want = malloc(sizeof *want * (size_t)s->k * ow * oh);
        ref_conv_int(s, &ld, want);
        for (uint32_t k = 0; *exact && k < s->k; k += 7)
            for (uint32_t y = 0; y < oh; y += 5)
                for (uint32_t x = 0; x < ow; x += 3)
                    if (out.v[cube_index(&out, 0, k, y, x)] != want[(k * oh + y) * ow + x])
                        *exact = false;
        free(want);
    }
    *macs = (uint64_t)ow * oh * s->k * s->kw * s->kh * s->c;
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
    return best;
}

static void set_element(void *array, size_t i, bool dbl, double v)
{
    if (dbl)
        ((double *)array)[i] = v;
    else
        ((float *)array)[i] = (float)v;
}

/* Best of five OpenBLAS products of the im2col shape: single precision, or
 * double (the precision of the FMAs the exact fp16 cells are built on,
 * whose lanes per instruction are half single precision's). */
static double time_gemm(int m, int n, int k, bool dbl)
{
    size_t elem = dbl ? sizeof(double) : sizeof(float);
    void *a = malloc(elem * (size_t)m * k), *b = malloc(elem * (size_t)k * n);
    void *c = malloc(elem * (size_t)m * n);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return 1e30;
    }
    for (size_t i = 0; i < (size_t)m * k; i++)
        set_element(a, i, dbl, (double)(i % 13) - 6.0);
    for (size_t i = 0; i < (size_t)k * n; i++)
        set_element(b, i, dbl, (double)(i % 7) - 3.0);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = bench_seconds();
        if (dbl)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c,
                        n);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f,
                        c, n);
        double t = bench_seconds() - t0;
        if (t < best)
            best = t;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

double bench_conv(void)
{
    const int m = 192, n = 56 * 56, k = 3 * 3 * 64;
    double macs_blas = (double)m * n * k;
    int threads = openblas_get_num_threads();
    double t_blas = time_gemm(m, n, k, false), t_dgemm = time_gemm(m, n, k, true);
    openblas_set_num_threads(1);
    double t_blas1 = time_gemm(m, n, k, false);
    openblas_set_num_threads(threads);
    printf("conv: 56x56x64 -> 56x56x192, 3x3, nv_full; sgemm M=%d N=%d K=%d\n", m, n, k);
    printf("conv: openblas sgemm   %8.2f GMAC/s (%d threads), %8.2f GMAC/s (1 thread)\n",
           macs_blas / t_blas * 1e-9, threads, macs_blas / t_blas1 * 1e-9);
    printf("conv: openblas dgemm   %8.2f GMAC/s (%d threads), %.2f x sgemm: the rate of the "
           "double FMAs the exact fp16 cells are built on\n",
           macs_blas / t_dgemm * 1e-9, threads, t_blas / t_dgemm);
    for (unsigned prec = 0; prec < 3; prec++) {
        struct spec s = layer(prec);
        uint64_t macs;
        bool exact;
        double t = time_model(&s, &macs, &exact);
        double rate = (double)macs / t;
        printf("conv: model %-5s      %8.2f GMAC/s (%.1f ms/layer, %s); ratio %.2f vs sgemm "
               "(%d threads), %.2f vs 1 thread\n",
               prec == 2 ? "fp16" : prec ? "int16" : "int8", rate * 1e-9, t * 1e3,
               exact ? "bit-exact on samples" : "NOT EXACT", rate / (macs_blas / t_blas), threads,
               rate / (macs_blas / t_blas1));
        if (prec == 2) {
            double ratio = rate / (macs_blas / t_blas);
            printf("target: fp16 convolution >= 0.25 x sgemm (%d threads), bit-exact: %.2f x "
                   "(%.2f x dgemm) %s\n",
                   threads, ratio, rate / (macs_blas / t_dgemm),
                   ratio >= 0.25 && exact ? "PASS" : "FAIL");
        }
    }
    return macs_blas / t_blas;
}
