/* SDP and SDP_RDMA through the register interface: the test programs a
 * layer, lays its input and operands out in memory as the programming guide
 * describes (feature surfaces of atoms; operands per channel or per element,
 * ALU then MUL component), runs the model and compares every output byte,
 * padding channels included, with plain reference code written here.
 * On-the-fly input (CACC), batches and the SDP -> PDP hand-over are driven
 * through sdp_execute() directly, as the pipeline does. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/dla_priv.h"
#include "num/fp16.h"
#include "one_stage.h"
#include "reg_names.h"
#include "sdp/sdp.h"
#include "sdp/sdp_dp.h"

#define IN_ADDR  0x80000000ull
#define OPS_ADDR 0x81000000ull /* + source * 0x100000 */
#define OUT_ADDR 0x82000000ull

/* ---------------------------------------------------------------- events */

struct recorder {
    size_t n_diag;
    char diag[64][200];
    uint8_t kind[64];
    uint8_t severity[64];
};

static void record(void *ctx, const struct dla_event *ev)
{
    struct recorder *r = ctx;
    if (ev->kind != DLA_EV_DIAG || r->n_diag == 64)
        return;
    snprintf(r->diag[r->n_diag], sizeof r->diag[0], "%s%s%s",
             ev->u.diag.rule ? ev->u.diag.rule : "", ev->u.diag.rule ? ": " : "", ev->u.diag.msg);
    r->kind[r->n_diag] = ev->u.diag.kind;
    r->severity[r->n_diag] = ev->u.diag.severity;
    r->n_diag++;
}

static bool saw(const struct recorder *r, const char *needle)
{
    for (size_t i = 0; i < r->n_diag; i++)
        if (strstr(r->diag[i], needle))
            return true;
    return false;
}

static size_t errors(const struct recorder *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_diag; i++)
        n += r->severity[i] == DLA_SEV_ERROR;
    return n;
}

/* ---------------------------------------------------------------- a test layer */

enum { SRC_BS, SRC_BN, SRC_EW };
enum { USE_MUL = 0, USE_ALU = 1, USE_BOTH = 2 };

struct operand_dma {
    bool enabled;
    unsigned use, size, per_element; /* size: bytes per component */
};

struct layer {
    const char *config;
    uint32_t w, h, c;
    unsigned in_prec, proc_prec, out_prec;
    struct sdp_x_cfg bs, bn;
    struct sdp_y_cfg ew;
    struct sdp_cvt_cfg cvt;
    struct operand_dma dma[3];
    bool perf_sat;
};

struct world {
    struct dla *d;
    struct recorder rec;
    unsigned atom;
    uint32_t cw; /* channels the hardware computes: whole atoms */
    uint64_t in_line, in_surf, out_line, out_surf, op_line[3], op_surf[3];
    uint8_t *input; /* the input surfaces as written */
    size_t input_bytes;
    int16_t *alu[3], *mul[3]; /* operands per (c, y, x), or per c */
};

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned bytes_of(unsigned prec)
{
    return prec == SDP_INT8 ? 1 : 2;
}

static uint32_t round_up(uint32_t v, uint32_t to)
{
    return (v + to - 1) / to * to;
}

static void wr(struct dla *d, const char *name, uint32_t v)
{
    dla_csb_write(d, reg_addr_named(d, name), v);
}

static uint32_t rd(struct dla *d, const char *name)
{
    return dla_csb_peek(d, reg_addr_named(d, name));
}

static uint32_t x_cfg_word(const struct sdp_x_cfg *x)
{
    return (uint32_t)x->bypass | (uint32_t)x->alu_bypass << 1 | (uint32_t)x->alu_algo << 2 |
           (uint32_t)x->mul_bypass << 4 | (uint32_t)x->prelu << 5 | (uint32_t)x->relu_bypass << 6;
}

static void program_x(struct dla *d, const char *st, const struct sdp_x_cfg *x)
{
    char n[64];
    snprintf(n, sizeof n, "SDP.D_DP_%s_CFG", st);
    wr(d, n, x_cfg_word(x));
    snprintf(n, sizeof n, "SDP.D_DP_%s_ALU_CFG", st);
    wr(d, n, (uint32_t)x->alu_from_mem | (uint32_t)x->alu_shift << 8);
    snprintf(n, sizeof n, "SDP.D_DP_%s_ALU_SRC_VALUE", st);
    wr(d, n, (uint16_t)x->alu_operand);
    snprintf(n, sizeof n, "SDP.D_DP_%s_MUL_CFG", st);
    wr(d, n, (uint32_t)x->mul_from_mem | (uint32_t)x->mul_shift << 8);
    snprintf(n, sizeof n, "SDP.D_DP_%s_MUL_SRC_VALUE", st);
    wr(d, n, (uint16_t)x->mul_operand);
}

static void program_ew(struct dla *d, const struct sdp_y_cfg *y)
{
    wr(d, "SDP.D_DP_EW_CFG",
       (uint32_t)y->bypass | (uint32_t)y->alu_bypass << 1 | (uint32_t)y->alu_algo << 2 |
           (uint32_t)y->mul_bypass << 4 | (uint32_t)y->prelu << 5 | (uint32_t)y->lut_bypass << 6);
    wr(d, "SDP.D_DP_EW_ALU_CFG", (uint32_t)y->alu_from_mem | (uint32_t)y->alu_cvt.bypass << 1);
    wr(d, "SDP.D_DP_EW_ALU_SRC_VALUE", (uint32_t)y->alu_operand);
    wr(d, "SDP.D_DP_EW_ALU_CVT_OFFSET_VALUE", (uint32_t)y->alu_cvt.offset);
    wr(d, "SDP.D_DP_EW_ALU_CVT_SCALE_VALUE", (uint16_t)y->alu_cvt.scale);
    wr(d, "SDP.D_DP_EW_ALU_CVT_TRUNCATE_VALUE", y->alu_cvt.truncate);
    wr(d, "SDP.D_DP_EW_MUL_CFG", (uint32_t)y->mul_from_mem | (uint32_t)y->mul_cvt.bypass << 1);
    wr(d, "SDP.D_DP_EW_MUL_SRC_VALUE", (uint32_t)y->mul_operand);
    wr(d, "SDP.D_DP_EW_MUL_CVT_OFFSET_VALUE", (uint32_t)y->mul_cvt.offset);
    wr(d, "SDP.D_DP_EW_MUL_CVT_SCALE_VALUE", (uint16_t)y->mul_cvt.scale);
    wr(d, "SDP.D_DP_EW_MUL_CVT_TRUNCATE_VALUE", y->mul_cvt.truncate);
    wr(d, "SDP.D_DP_EW_TRUNCATE_VALUE", y->truncate);
}

static const char *const dma_cfg[3] = {"SDP_RDMA.D_BRDMA_CFG", "SDP_RDMA.D_NRDMA_CFG",
                                       "SDP_RDMA.D_ERDMA_CFG"};
static const char *const dma_prefix[3] = {"BS", "BN", "EW"};

static void program_rdma_operands(struct world *wd, const struct layer *L)
{
    char n[64];
    for (int s = 0; s < 3; s++) {
        const struct operand_dma *m = &L->dma[s];
        wr(wd->d, dma_cfg[s],
           (uint32_t)!m->enabled | m->use << 1 | (uint32_t)(m->size == 2) << 3 |
               m->per_element << 4 | 1u << 5);
        snprintf(n, sizeof n, "SDP_RDMA.D_%s_BASE_ADDR_LOW", dma_prefix[s]);
        wr(wd->d, n, (uint32_t)(OPS_ADDR + (uint64_t)s * 0x100000));
        snprintf(n, sizeof n, "SDP_RDMA.D_%s_LINE_STRIDE", dma_prefix[s]);
        wr(wd->d, n, (uint32_t)wd->op_line[s]);
        snprintf(n, sizeof n, "SDP_RDMA.D_%s_SURFACE_STRIDE", dma_prefix[s]);
        wr(wd->d, n, (uint32_t)wd->op_surf[s]);
    }
}

static void program(struct world *wd, const struct layer *L, bool flying)
{
    struct dla *d = wd->d;
    wr(d, "SDP.D_DATA_CUBE_WIDTH", L->w - 1);
    wr(d, "SDP.D_DATA_CUBE_HEIGHT", L->h - 1);
    wr(d, "SDP.D_DATA_CUBE_CHANNEL", L->c - 1);
    wr(d, "SDP.D_DST_BASE_ADDR_LOW", (uint32_t)OUT_ADDR);
    wr(d, "SDP.D_DST_LINE_STRIDE", (uint32_t)wd->out_line);
    wr(d, "SDP.D_DST_SURFACE_STRIDE", (uint32_t)wd->out_surf);
    wr(d, "SDP.D_DST_DMA_CFG", 1);
    wr(d, "SDP.D_FEATURE_MODE_CFG", flying ? 1 : 0);
    wr(d, "SDP.D_DATA_FORMAT", L->proc_prec | L->out_prec << 2);
    wr(d, "SDP.D_CVT_OFFSET", (uint32_t)L->cvt.offset);
    wr(d, "SDP.D_CVT_SCALE", (uint16_t)L->cvt.scale);
    wr(d, "SDP.D_CVT_SHIFT", L->cvt.shift);
    wr(d, "SDP.D_PERF_ENABLE", L->perf_sat ? 4 : 0);
    program_x(d, "BS", &L->bs);
    program_x(d, "BN", &L->bn);
    program_ew(d, &L->ew);
    wr(d, "SDP_RDMA.D_DATA_CUBE_WIDTH", L->w - 1);
    wr(d, "SDP_RDMA.D_DATA_CUBE_HEIGHT", L->h - 1);
    wr(d, "SDP_RDMA.D_DATA_CUBE_CHANNEL", L->c - 1);
    wr(d, "SDP_RDMA.D_SRC_BASE_ADDR_LOW", (uint32_t)IN_ADDR);
    wr(d, "SDP_RDMA.D_SRC_LINE_STRIDE", (uint32_t)wd->in_line);
    wr(d, "SDP_RDMA.D_SRC_SURFACE_STRIDE", (uint32_t)wd->in_surf);
    wr(d, "SDP_RDMA.D_SRC_DMA_CFG", 1);
    wr(d, "SDP_RDMA.D_FEATURE_MODE_CFG",
       (flying ? 1u : 0u) | L->in_prec << 2 | L->proc_prec << 4 | L->out_prec << 6);
    program_rdma_operands(wd, L);
}

/* An fp16 value from a set whose sums and products stay exact in fp16, so
 * that host float arithmetic is a plain reference for fp16 layers. */
static uint16_t small_fp16(void)
{
    static const float values[] = {0.0f, 1.0f, -1.0f, 0.5f, -0.25f, 2.0f, -3.0f, 1.5f, 6.0f, -8.0f};
    return fp16_from_float(values[next_random() % (sizeof values / sizeof values[0])]);
}

/* Random input surfaces (padding bytes included: the hardware reads them). */
static void make_input(struct world *wd, const struct layer *L)
{
    unsigned group = wd->atom / bytes_of(L->in_prec);
    uint32_t surfaces = (wd->cw + group - 1) / group;
    wd->input_bytes = (size_t)surfaces * wd->in_surf;
    wd->input = malloc(wd->input_bytes);
    assert_non_null(wd->input);
    for (size_t i = 0; i < wd->input_bytes; i++)
        wd->input[i] = (uint8_t)(next_random() >> 24);
    if (L->in_prec == SDP_FP16) {
        for (size_t i = 0; i + 1 < wd->input_bytes; i += 2) {
            uint16_t h = small_fp16();
            wd->input[i] = (uint8_t)h;
            wd->input[i + 1] = (uint8_t)(h >> 8);
        }
    }
    assert_int_equal(dla_mem_write(wd->d, DLA_DRAM, IN_ADDR, wd->input, wd->input_bytes), MEM_OK);
}

static int32_t input_value(const struct world *wd, const struct layer *L, uint32_t c, uint32_t y,
                           uint32_t x)
{
    unsigned bpe = bytes_of(L->in_prec), group = wd->atom / bpe;
    const uint8_t *p =
        wd->input + (c / group) * wd->in_surf + y * wd->in_line + x * wd->atom + (c % group) * bpe;
    return bpe == 1 ? (int8_t)p[0] : (int16_t)(p[0] | p[1] << 8);
}

/* Random operands, written in the layout the RDMA configuration describes. */
static void make_operands(struct world *wd, const struct layer *L)
{
    unsigned group = wd->atom / bytes_of(L->proc_prec);
    for (int s = 0; s < 3; s++) {
        const struct operand_dma *m = &L->dma[s];
        unsigned comps = m->use == USE_BOTH ? 2 : 1;
        unsigned ebytes = comps * m->size;
        wd->op_line[s] = (uint64_t)L->w * group * ebytes + 32;
        wd->op_surf[s] = wd->op_line[s] * L->h + 64;
        size_t n = m->per_element ? (size_t)wd->cw * L->h * L->w : wd->cw;
        wd->alu[s] = calloc(n, sizeof(int16_t));
        wd->mul[s] = calloc(n, sizeof(int16_t));
        if (!m->enabled)
            continue;
        for (uint32_t c = 0; c < wd->cw; c++) {
            for (uint32_t y = 0; y < (m->per_element ? L->h : 1); y++) {
                for (uint32_t x = 0; x < (m->per_element ? L->w : 1); x++) {
                    size_t i = m->per_element ? ((size_t)c * L->h + y) * L->w + x : c;
                    uint64_t addr =
                        OPS_ADDR + (uint64_t)s * 0x100000 +
                        (m->per_element ? (c / group) * wd->op_surf[s] + y * wd->op_line[s] +
                                              (uint64_t)x * group * ebytes + (c % group) * ebytes
                                        : (uint64_t)c * ebytes);
                    for (unsigned k = 0; k < comps; k++) {
                        int16_t v = (int16_t)(next_random() >> 20);
                        if (L->proc_prec == SDP_FP16)
                            v = (int16_t)small_fp16();
                        if (m->size == 1)
                            v = (int8_t)v;
                        uint8_t b[2] = {(uint8_t)v, (uint8_t)((uint16_t)v >> 8)};
                        dla_mem_write(wd->d, DLA_DRAM, addr + k * m->size, b, m->size);
                        bool is_alu = m->use == USE_ALU || (m->use == USE_BOTH && k == 0);
                        (is_alu ? wd->alu[s] : wd->mul[s])[i] = v;
                    }
                }
            }
        }
    }
}

/* The world is filled in place: the model keeps a pointer to its recorder. */
static void open_world(struct world *w, const struct layer *L)
{
    memset(w, 0, sizeof *w);
    w->d = dla_create(dla_config_find(L->config), NULL);
    assert_non_null(w->d);
    dla_listen(w->d, record, &w->rec);
    w->atom = dla_cfg(w->d)->mem_atom;
    w->cw =
        round_up(round_up(L->c, w->atom / bytes_of(L->proc_prec)), w->atom / bytes_of(L->out_prec));
    w->in_line = (uint64_t)L->w * w->atom + 32;
    w->in_surf = w->in_line * L->h + 96;
    w->out_line = (uint64_t)L->w * w->atom + 64;
    w->out_surf = w->out_line * L->h + 32;
    make_input(w, L);
    make_operands(w, L);
}

static void close_world(struct world *wd)
{
    dla_destroy(wd->d);
    free(wd->input);
    for (int s = 0; s < 3; s++) {
        free(wd->alu[s]);
        free(wd->mul[s]);
    }
}

static void run_offline(struct world *wd, const struct layer *L)
{
    program(wd, L, false);
    wr(wd->d, "SDP.D_OP_ENABLE", 1);
    wr(wd->d, "SDP_RDMA.D_OP_ENABLE", 1);
    for (int i = 0; i < 1000 && dla_advance(wd->d); i++)
        ;
    assert_false(dla_busy(wd->d));
    assert_true(dla_intr_status(wd->d) & (1u << dla_intr_bit(DLA_P_SDP, 0)));
}

/* ---------------------------------------------------------------- reference */

static long double clampl(long double v, int bits)
{
    long double max = ldexpl(1.0L, bits - 1) - 1.0L, min = -ldexpl(1.0L, bits - 1);
    return v > max ? max : v < min ? min : v;
}

static long double shift_round(long double v, unsigned s)
{
    return roundl(ldexpl(v, -(int)s)) + 0.0L;
}

static long double ref_x(const struct sdp_x_cfg *c, long double v, int16_t a, int16_t m)
{
    if (c->bypass)
        return v;
    if (!c->alu_bypass) {
        long double op = clampl(ldexpl(a, c->alu_shift), 32);
        v = c->alu_algo == SDP_ALU_MAX   ? fmaxl(v, op)
            : c->alu_algo == SDP_ALU_MIN ? fminl(v, op)
                                         : v + op;
    }
    if (!c->mul_bypass && c->prelu && v >= 0)
        v = (long double)(int32_t)(uint32_t)((uint64_t)(int64_t)v & 0xffffffffu);
    else
        v = clampl(shift_round(c->mul_bypass ? v : v * m, c->mul_shift), 32);
    return !c->relu_bypass && v < 0 ? 0 : v;
}

static long double ref_y(const struct sdp_y_cfg *c, long double v, long double a, long double m)
{
    if (c->bypass)
        return v;
    if (!c->mul_bypass && !(c->prelu && v >= 0))
        v = clampl(shift_round(v * m, c->truncate), 32);
    if (c->alu_bypass)
        return v;
    if (c->alu_algo == SDP_ALU_EQL)
        return v == a ? 0 : 1;
    return c->alu_algo == SDP_ALU_MAX   ? fmaxl(v, a)
           : c->alu_algo == SDP_ALU_MIN ? fminl(v, a)
                                        : clampl(v + a, 32);
}

static long double ref_y_operand(const struct sdp_y_cvt_cfg *c, int16_t raw)
{
    return c->bypass
               ? raw
               : clampl(shift_round(((long double)raw - c->offset) * c->scale, c->truncate), 32);
}

/* Converter output as stored (int8/int16 value, fp16 bits) and its saturation flag. */
static int32_t ref_cvt(const struct sdp_cvt_cfg *c, long double v, bool *sat)
{
    long double p = (v - c->offset) * c->scale;
    long double t = clampl(shift_round(p, c->shift), 17);
    long double plain = floorl(ldexpl(p, -(int)c->shift));
    *sat = plain > t + 1 || plain < t - 1;
    if (c->out_prec == SDP_FP16) {
        uint16_t h = fp16_from_float((float)t);
        if ((h & 0x7fff) == 0x7c00)
            h = (uint16_t)((h & 0x8000) | 0x7bff); /* overflow saturates to the largest finite */
        *sat = (h & 0x7fff) == 0x7bff;
        return h;
    }
    return (int32_t)clampl(t, c->out_prec == SDP_INT16 ? 16 : 8);
}

static int16_t operand(const struct world *wd, const struct layer *L, int s, bool alu, uint32_t c,
                       uint32_t y, uint32_t x)
{
    size_t i = L->dma[s].per_element ? ((size_t)c * L->h + y) * L->w + x : c;
    return (alu ? wd->alu[s] : wd->mul[s])[i];
}

/* The expected converter output of one element; stages read their operands
 * from memory when the layer says so. */
static int32_t ref_element(const struct world *wd, const struct layer *L, long double in,
                           uint32_t c, uint32_t y, uint32_t x, bool *sat, long double *y_out)
{
    const struct sdp_x_cfg *xs[2] = {&L->bs, &L->bn};
    long double v = in;
    for (int s = 0; s < 2; s++) {
        int16_t a = xs[s]->alu_from_mem ? operand(wd, L, s, true, c, y, x) : xs[s]->alu_operand;
        int16_t m = xs[s]->mul_from_mem ? operand(wd, L, s, false, c, y, x) : xs[s]->mul_operand;
        v = ref_x(xs[s], v, a, m);
    }
    long double a = L->ew.alu_from_mem
                        ? ref_y_operand(&L->ew.alu_cvt, operand(wd, L, SRC_EW, true, c, y, x))
                        : L->ew.alu_operand;
    long double m = L->ew.mul_from_mem
                        ? ref_y_operand(&L->ew.mul_cvt, operand(wd, L, SRC_EW, false, c, y, x))
                        : L->ew.mul_operand;
    v = ref_y(&L->ew, v, a, m);
    if (y_out)
        *y_out = v;
    return ref_cvt(&L->cvt, v, sat);
}

/* fp16 processing with values whose results are exact: host float is the
 * reference.  Returns the stored output (fp16 bits or int16 value). */
static float ref_alu_f(unsigned algo, float a, float b)
{
    return algo == SDP_ALU_MAX ? fmaxf(a, b) : algo == SDP_ALU_MIN ? fminf(a, b) : a + b;
}

static int32_t ref_element_fp(const struct world *wd, const struct layer *L, float v, uint32_t c,
                              uint32_t y, uint32_t x)
{
    const struct sdp_x_cfg *xs[2] = {&L->bs, &L->bn};
    for (int s = 0; s < 2; s++) {
        const struct sdp_x_cfg *st = xs[s];
        if (st->bypass)
            continue;
        int16_t a = st->alu_from_mem ? operand(wd, L, s, true, c, y, x) : st->alu_operand;
        int16_t m = st->mul_from_mem ? operand(wd, L, s, false, c, y, x) : st->mul_operand;
        if (!st->alu_bypass)
            v = ref_alu_f(st->alu_algo, v, fp16_to_float((uint16_t)a));
        if (!st->mul_bypass && !(st->prelu && !signbit(v)))
            v *= fp16_to_float((uint16_t)m);
        if (!st->relu_bypass && (v < 0 || signbit(v)))
            v = 0;
    }
    const struct sdp_y_cfg *e = &L->ew;
    if (!e->bypass) {
        float a = e->alu_from_mem ? fp16_to_float((uint16_t)operand(wd, L, SRC_EW, true, c, y, x))
                                  : f32_from_bits((uint32_t)e->alu_operand);
        float m = e->mul_from_mem ? fp16_to_float((uint16_t)operand(wd, L, SRC_EW, false, c, y, x))
                                  : f32_from_bits((uint32_t)e->mul_operand);
        if (!e->mul_bypass && !(e->prelu && !signbit(v)))
            v *= m;
        if (!e->alu_bypass)
            v = ref_alu_f(e->alu_algo, v, a);
    }
    if (L->out_prec == SDP_FP16)
        return fp16_from_float(v);
    return (int32_t)roundf(v); /* ties away from zero, in int16 range here */
}

/* Compare every output byte (whole surfaces, padding channels included);
 * returns the expected saturation count. */
static uint64_t check_output(const struct world *wd, const struct layer *L)
{
    unsigned bpe = bytes_of(L->out_prec), group = wd->atom / bpe;
    uint64_t saturated = 0;
    uint8_t got[2] = {0};
    for (uint32_t c = 0; c < wd->cw; c++) {
        for (uint32_t y = 0; y < L->h; y++) {
            for (uint32_t x = 0; x < L->w; x++) {
                bool sat = false;
                int32_t in = input_value(wd, L, c, y, x);
                int32_t want = L->proc_prec == SDP_FP16
                                   ? ref_element_fp(wd, L, fp16_to_float((uint16_t)in), c, y, x)
                                   : ref_element(wd, L, in, c, y, x, &sat, NULL);
                saturated += sat;
                uint64_t a = OUT_ADDR + (c / group) * wd->out_surf + y * wd->out_line +
                             x * wd->atom + (c % group) * bpe;
                dla_mem_read(wd->d, DLA_DRAM, a, got, bpe);
                int32_t v = bpe == 1 ? (int8_t)got[0] : (int32_t)(uint16_t)(got[0] | got[1] << 8);
                if (bpe == 2 && L->out_prec != SDP_FP16)
                    v = (int16_t)v;
                if (L->out_prec == SDP_FP16) {
                    want &= 0xffff;
                    if ((want & 0x7fff) == 0 && (v & 0x7fff) == 0)
                        v = want; /* the sign of a zero sum is the cmod's own choice */
                }
                if (v != want)
                    fail_msg("c %u y %u x %u: got %d want %d", c, y, x, v, want);
            }
        }
    }
    return saturated;
}

/* ---------------------------------------------------------------- layers */

static struct layer base_layer(const char *config, uint32_t w, uint32_t h, uint32_t c,
                               unsigned prec)
{
    struct layer L = {.config = config, .w = w, .h = h, .c = c};
    L.in_prec = L.proc_prec = L.out_prec = prec;
    L.bs = L.bn = (struct sdp_x_cfg){
        .bypass = true, .alu_bypass = true, .mul_bypass = true, .relu_bypass = true};
    L.ew = (struct sdp_y_cfg){
        .bypass = true, .alu_bypass = true, .mul_bypass = true, .lut_bypass = true};
    L.cvt = (struct sdp_cvt_cfg){.scale = 1, .out_prec = (uint8_t)prec};
    return L;
}

static void run_and_check(struct layer *L)
{
    struct world wd;
    open_world(&wd, L);
    run_offline(&wd, L);
    uint64_t sat = check_output(&wd, L);
    assert_int_equal(errors(&wd.rec), 0);
    if (L->perf_sat)
        assert_int_equal(rd(wd.d, "SDP.D_PERF_OUT_SATURATION"), sat);
    close_world(&wd);
}

static void test_offline_bypass_int8(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 5, 3, 40, SDP_INT8);
    run_and_check(&L);
    L = base_layer("nv_small", 7, 2, 13, SDP_INT8);
    run_and_check(&L);
}

static void test_bias_per_channel_relu_int16(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 4, 3, 20, SDP_INT16);
    L.bs = (struct sdp_x_cfg){
        .alu_algo = SDP_ALU_SUM, .alu_from_mem = true, .alu_shift = 3, .mul_bypass = true};
    L.dma[SRC_BS] = (struct operand_dma){.enabled = true, .use = USE_ALU, .size = 2};
    run_and_check(&L);
}

static void test_batch_norm_per_element_int8(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 3, 4, 35, SDP_INT8);
    L.bn = (struct sdp_x_cfg){.alu_algo = SDP_ALU_SUM,
                              .alu_from_mem = true,
                              .alu_shift = 2,
                              .mul_from_mem = true,
                              .mul_shift = 5,
                              .relu_bypass = true};
    L.dma[SRC_BN] =
        (struct operand_dma){.enabled = true, .use = USE_BOTH, .size = 1, .per_element = 1};
    L.cvt = (struct sdp_cvt_cfg){.offset = -7, .scale = 3, .shift = 2, .out_prec = SDP_INT8};
    L.perf_sat = true;
    run_and_check(&L);
    /* two-byte components on nv_small, MAX and MIN */
    L = base_layer("nv_small", 5, 2, 19, SDP_INT8);
    L.bs = (struct sdp_x_cfg){.alu_algo = SDP_ALU_MAX, .alu_from_mem = true, .mul_bypass = true};
    L.bn = (struct sdp_x_cfg){.alu_algo = SDP_ALU_MIN,
                              .alu_operand = 40,
                              .mul_operand = -3,
                              .mul_shift = 1,
                              .mul_from_mem = true,
                              .relu_bypass = true};
    L.dma[SRC_BS] =
        (struct operand_dma){.enabled = true, .use = USE_ALU, .size = 2, .per_element = 1};
    L.dma[SRC_BN] =
        (struct operand_dma){.enabled = true, .use = USE_MUL, .size = 2, .per_element = 1};
    run_and_check(&L);
}

static void test_prelu_per_cube_registers(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 6, 2, 32, SDP_INT8);
    L.bs = (struct sdp_x_cfg){.alu_algo = SDP_ALU_SUM,
                              .alu_operand = -20,
                              .alu_shift = 1,
                              .prelu = true,
                              .mul_operand = 5,
                              .mul_shift = 2,
                              .relu_bypass = true};
    run_and_check(&L);
}

static void test_ew_operands(void **state)
{
    (void)state;
    /* registers: multiply by a 32-bit operand, then MAX */
    struct layer L = base_layer("nv_full", 3, 3, 16, SDP_INT16);
    L.ew = (struct sdp_y_cfg){.alu_algo = SDP_ALU_MAX,
                              .alu_operand = -5000,
                              .mul_operand = 70000,
                              .truncate = 9,
                              .lut_bypass = true};
    run_and_check(&L);
    /* memory, per element, through the operand converters */
    L = base_layer("nv_full", 4, 2, 16, SDP_INT16);
    L.ew = (struct sdp_y_cfg){.alu_algo = SDP_ALU_SUM,
                              .alu_from_mem = true,
                              .mul_from_mem = true,
                              .truncate = 3,
                              .prelu = true,
                              .lut_bypass = true};
    L.ew.alu_cvt = (struct sdp_y_cvt_cfg){.offset = 100, .scale = -3, .truncate = 1};
    L.ew.mul_cvt = (struct sdp_y_cvt_cfg){.bypass = true};
    L.dma[SRC_EW] =
        (struct operand_dma){.enabled = true, .use = USE_BOTH, .size = 2, .per_element = 1};
    run_and_check(&L);
}

static void test_precision_conversion(void **state)
{
    (void)state;
    /* int8 processing written as int16: two 16-channel surfaces per 32 channels */
    struct layer L = base_layer("nv_full", 3, 2, 20, SDP_INT8);
    L.out_prec = L.cvt.out_prec = SDP_INT16;
    L.cvt.scale = 300;
    run_and_check(&L);
    /* int16 input processed as int8 (32-channel groups) */
    L = base_layer("nv_full", 3, 2, 20, SDP_INT8);
    L.in_prec = SDP_INT16;
    L.cvt.shift = 4;
    run_and_check(&L);
    /* integer processing written as fp16 */
    L = base_layer("nv_full", 2, 2, 16, SDP_INT16);
    L.out_prec = L.cvt.out_prec = SDP_FP16;
    L.cvt.scale = 5;
    L.perf_sat = true;
    run_and_check(&L);
}

static void test_fp16_processing(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 3, 2, 20, SDP_FP16);
    L.bs = (struct sdp_x_cfg){.alu_algo = SDP_ALU_SUM,
                              .alu_operand = (int16_t)fp16_from_float(1.5f),
                              .mul_from_mem = true};
    L.dma[SRC_BS] =
        (struct operand_dma){.enabled = true, .use = USE_MUL, .size = 2, .per_element = 1};
    L.bn = (struct sdp_x_cfg){.alu_algo = SDP_ALU_MAX,
                              .alu_operand = (int16_t)fp16_from_float(-3.0f),
                              .mul_bypass = true,
                              .relu_bypass = true};
    L.ew = (struct sdp_y_cfg){.alu_algo = SDP_ALU_SUM,
                              .alu_operand = (int32_t)f32_bits(0.5f),
                              .mul_operand = (int32_t)f32_bits(2.0f),
                              .lut_bypass = true};
    run_and_check(&L);
    /* fp16 processing written as int16, EW operands from memory per channel */
    L.out_prec = L.cvt.out_prec = SDP_INT16;
    L.ew.alu_from_mem = L.ew.mul_from_mem = true;
    L.dma[SRC_EW] = (struct operand_dma){.enabled = true, .use = USE_BOTH, .size = 2};
    L.bs.prelu = true;
    L.bs.relu_bypass = true;
    run_and_check(&L);
}

/* NaN and infinity inputs of an fp16 layer: counted by SDP_RDMA, a NaN
 * passes through (or is flushed with NAN_TO_ZERO), an infinity becomes the
 * largest finite value (the cmod's conversions), and SDP counts NaN outputs. */
static void test_fp16_nan_inf_counters(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 4, 2, 16, SDP_FP16);
    const struct {
        uint32_t c, y, x;
        uint16_t bits;
    } special[5] = {
        {0, 0, 0, 0x7e01}, {3, 1, 2, 0xfc10}, {15, 0, 3, 0x7c01},
        {7, 1, 1, 0x7c00}, {8, 0, 2, 0xfc00},
    };
    for (int flush = 0; flush < 2; flush++) {
        struct world wd;
        open_world(&wd, &L);
        for (int i = 0; i < 5; i++) {
            uint8_t b[2] = {(uint8_t)special[i].bits, (uint8_t)(special[i].bits >> 8)};
            dla_mem_write(wd.d, DLA_DRAM,
                          IN_ADDR + special[i].y * wd.in_line + special[i].x * wd.atom +
                              special[i].c * 2u,
                          b, 2);
        }
        program(&wd, &L, false);
        wr(wd.d, "SDP.D_FEATURE_MODE_CFG", flush ? 0x8 : 0);
        wr(wd.d, "SDP.D_PERF_ENABLE", 0x8);
        wr(wd.d, "SDP_RDMA.D_PERF_ENABLE", 0x2);
        wr(wd.d, "SDP.D_OP_ENABLE", 1);
        wr(wd.d, "SDP_RDMA.D_OP_ENABLE", 1);
        while (dla_advance(wd.d))
            ;
        assert_int_equal(rd(wd.d, "SDP_RDMA.D_STATUS_NAN_INPUT_NUM"), 3);
        assert_int_equal(rd(wd.d, "SDP_RDMA.D_STATUS_INF_INPUT_NUM"), 2);
        assert_int_equal(rd(wd.d, "SDP.D_STATUS_NAN_OUTPUT_NUM"), flush ? 0 : 3);
        for (int i = 0; i < 5; i++) {
            uint8_t b[2];
            dla_mem_read(wd.d, DLA_DRAM,
                         OUT_ADDR + special[i].y * wd.out_line + special[i].x * wd.atom +
                             special[i].c * 2u,
                         b, 2);
            uint16_t got = (uint16_t)(b[0] | b[1] << 8);
            uint16_t bits = special[i].bits;
            uint16_t want =
                (bits & 0x3ff) ? (flush ? 0 : bits) : (uint16_t)((bits & 0x8000) | 0x7bff);
            assert_int_equal(got, want);
        }
        close_world(&wd);
    }
}

/* L run with the saturation counter on: its outputs are the reference's
 * and more than `least` of them saturate, each counted. */
static void check_saturation(struct layer *L, uint64_t least)
{
    L->perf_sat = true;
    struct world wd;
    open_world(&wd, L);
    run_offline(&wd, L);
    uint64_t want = check_output(&wd, L);
    assert_true(want > least);
    assert_int_equal(rd(wd.d, "SDP.D_PERF_OUT_SATURATION"), want);
    close_world(&wd);
}

static void test_saturation_counter(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 4, 4, 32, SDP_INT16);
    L.cvt.scale = 32767; /* most values leave the 17-bit range */
    check_saturation(&L, 0);
}

/* Rows split across workers (DLADBG_THREADS=3): integer processing with
 * per-element operands, most outputs saturated, and fp16 processing, each
 * large enough to be split, give the reference's values and the
 * saturation count. */
static void test_threads(void **state)
{
    (void)state;
    setenv("DLADBG_THREADS", "3", 1);
    struct layer L = base_layer("nv_full", 40, 20, 48, SDP_INT16);
    L.bs = (struct sdp_x_cfg){
        .alu_algo = SDP_ALU_SUM, .alu_from_mem = true, .alu_shift = 3, .mul_bypass = true};
    L.dma[SRC_BS] =
        (struct operand_dma){.enabled = true, .use = USE_ALU, .size = 2, .per_element = 1};
    L.cvt.scale = 32767;
    check_saturation(&L, 1000);
    L = base_layer("nv_full", 24, 20, 40, SDP_FP16);
    L.bs = (struct sdp_x_cfg){.alu_algo = SDP_ALU_SUM,
                              .alu_operand = (int16_t)fp16_from_float(1.5f),
                              .mul_from_mem = true};
    L.dma[SRC_BS] =
        (struct operand_dma){.enabled = true, .use = USE_MUL, .size = 2, .per_element = 1};
    run_and_check(&L);
    unsetenv("DLADBG_THREADS");
}

static void test_eql_status(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 2, 2, 16, SDP_INT16);
    L.ew = (struct sdp_y_cfg){
        .alu_algo = SDP_ALU_EQL, .alu_from_mem = true, .mul_bypass = true, .lut_bypass = true};
    L.ew.alu_cvt.bypass = true;
    L.dma[SRC_EW] =
        (struct operand_dma){.enabled = true, .use = USE_ALU, .size = 2, .per_element = 1};
    for (int differ = 0; differ < 2; differ++) {
        struct world wd;
        open_world(&wd, &L);
        /* make the operand cube equal to the input, then maybe change one */
        for (uint32_t c = 0; c < wd.cw; c++)
            for (uint32_t y = 0; y < L.h; y++)
                for (uint32_t x = 0; x < L.w; x++) {
                    int16_t v = (int16_t)input_value(&wd, &L, c, y, x);
                    if (differ && c == 5 && y == 1 && x == 0)
                        v ^= 1;
                    uint64_t a = OPS_ADDR + SRC_EW * 0x100000ull + y * wd.op_line[SRC_EW] +
                                 x * 16u * 2u + c * 2u;
                    uint8_t b[2] = {(uint8_t)v, (uint8_t)((uint16_t)v >> 8)};
                    dla_mem_write(wd.d, DLA_DRAM, a, b, 2);
                }
        wr(wd.d, "SDP.D_STATUS", 0);
        run_offline(&wd, &L);
        assert_int_equal(rd(wd.d, "SDP.D_STATUS") & 1, differ);
        uint8_t out[64];
        dla_mem_read(wd.d, DLA_DRAM, OUT_ADDR, out, sizeof out);
        for (size_t i = 0; i < sizeof out; i++)
            assert_int_equal(out[i], 0); /* EQL writes nothing */
        close_world(&wd);
    }
}

static void test_nv_small_ignores_ew(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_small", 3, 3, 8, SDP_INT8);
    L.ew = (struct sdp_y_cfg){
        .alu_algo = SDP_ALU_SUM, .alu_operand = 50, .mul_bypass = true, .lut_bypass = false};
    struct world wd;
    open_world(&wd, &L);
    run_offline(&wd, &L);
    assert_true(saw(&wd.rec, "no SDP EW"));
    L.ew.bypass = true; /* what nv_small computes */
    check_output(&wd, &L);
    close_world(&wd);
}

/* ---------------------------------------------------------------- pipeline questions */

static void test_needs_rdma(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 2, 2, 8, SDP_INT8);
    struct world wd;
    open_world(&wd, &L);
    program(&wd, &L, true);
    assert_true(sdp_input_on_the_fly(wd.d, 0));
    assert_false(sdp_needs_rdma(wd.d, 0));
    /* a bypassed multiplier with a MEM source reads nothing */
    wr(wd.d, "SDP.D_DP_BS_CFG", 0x50 | 0x2); /* stage on, ALU bypass, MUL bypass, ReLU bypass */
    wr(wd.d, "SDP.D_DP_BS_MUL_CFG", 1);
    wr(wd.d, "SDP.D_DP_BS_ALU_CFG", 1);
    assert_false(sdp_needs_rdma(wd.d, 0));
    wr(wd.d, "SDP.D_DP_BS_CFG", 0x40 | 0x2); /* multiplier on */
    assert_true(sdp_needs_rdma(wd.d, 0));
    wr(wd.d, "SDP.D_DP_BS_CFG", 0x1); /* stage bypassed */
    assert_false(sdp_needs_rdma(wd.d, 0));
    wr(wd.d, "SDP.D_DP_EW_CFG", 0x40 | 0x10); /* EW ALU from memory */
    wr(wd.d, "SDP.D_DP_EW_ALU_CFG", 1);
    assert_true(sdp_needs_rdma(wd.d, 0));
    wr(wd.d, "SDP.D_FEATURE_MODE_CFG", 0); /* offline always needs it */
    wr(wd.d, "SDP.D_DP_EW_CFG", 0x1);
    assert_true(sdp_needs_rdma(wd.d, 0));
    close_world(&wd);
    /* nv_small has no EW: an EW memory operand does not need SDP_RDMA */
    L = base_layer("nv_small", 2, 2, 8, SDP_INT8);
    open_world(&wd, &L);
    program(&wd, &L, true);
    wr(wd.d, "SDP.D_DP_EW_CFG", 0x40 | 0x10);
    wr(wd.d, "SDP.D_DP_EW_ALU_CFG", 1);
    assert_false(sdp_needs_rdma(wd.d, 0));
    close_world(&wd);
}

/* ---------------------------------------------------------------- on the fly */

/* An SDP stage run the way the pipeline runs it, with CACC's cube. */
static void flying_open(struct one_stage *f, struct dla *d)
{
    one_stage_open(f, d, DLA_P_SDP, layer_ensure(d, DLA_P_SDP, 0), 0xff);
}

static void test_on_the_fly_batches_and_pdp(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 3, 2, 10, SDP_INT8);
    L.bs = (struct sdp_x_cfg){
        .alu_algo = SDP_ALU_SUM, .alu_operand = 3, .mul_operand = 7, .mul_shift = 3};
    L.cvt.shift = 2;
    struct world wd;
    open_world(&wd, &L);
    program(&wd, &L, true);
    const uint32_t batches = 3, batch_stride = 0x4000;
    wr(wd.d, "SDP.D_FEATURE_MODE_CFG", 1 | (batches - 1) << 8);
    wr(wd.d, "SDP.D_DST_BATCH_STRIDE", batch_stride);
    struct dla_cube in;
    assert_true(cube_alloc(&in, L.w, L.h, L.c, batches, DLA_CUBE_INT));
    for (size_t i = 0; i < cube_elems(&in); i++)
        in.v[i] = (int32_t)(next_random() >> 40) - (1 << 23); /* CACC's int32 sums */
    struct one_stage f;
    flying_open(&f, wd.d);
    assert_int_equal(sdp_execute(wd.d, &f.x, 0, 0xff, &in, NULL), 0);
    for (uint32_t b = 0; b < batches; b++)
        for (uint32_t c = 0; c < wd.cw; c++)
            for (uint32_t y = 0; y < L.h; y++)
                for (uint32_t x = 0; x < L.w; x++) {
                    bool sat;
                    long double v = c < L.c ? in.v[cube_index(&in, b, c, y, x)] : 0;
                    int32_t want = ref_element(&wd, &L, v, c, y, x, &sat, NULL);
                    uint8_t got = 0;
                    uint64_t a = OUT_ADDR + b * batch_stride + y * wd.out_line + x * wd.atom + c;
                    assert_true(one_stage_written_byte(&f, a, &got));
                    assert_int_equal((int8_t)got, want);
                }
    one_stage_close(&f);
    /* the same layer handed to PDP: whole atoms, the padding channels computed
     * from CACC's zeros as they would be written to memory */
    wr(wd.d, "SDP.D_FEATURE_MODE_CFG", 1 | 2 | (batches - 1) << 8);
    struct dla_cube to_pdp = {0};
    flying_open(&f, wd.d);
    assert_int_equal(sdp_execute(wd.d, &f.x, 0, 0xff, &in, &to_pdp), 0);
    assert_int_equal(f.pipe.n_writes, 0);
    assert_true(wd.cw > L.c);
    assert_int_equal(to_pdp.c, wd.cw);
    assert_int_equal(to_pdp.n, batches);
    assert_int_equal(to_pdp.kind, DLA_CUBE_INT);
    for (uint32_t b = 0; b < batches; b++)
        for (uint32_t c = 0; c < wd.cw; c++) {
            bool sat;
            long double v = c < L.c ? in.v[cube_index(&in, b, c, 1, 2)] : 0;
            int32_t want = ref_element(&wd, &L, v, c, 1, 2, &sat, NULL);
            assert_int_equal(to_pdp.v[cube_index(&to_pdp, b, c, 1, 2)], want);
        }
    one_stage_close(&f);
    cube_free(&to_pdp);
    cube_free(&in);
    close_world(&wd);
}

/* A layer's output lines, written one after another, are held in one
 * buffer sized for all of them at the first line: grown line by line
 * (doubling) it had room for 1,536 bytes of 1,440 here and moved whenever
 * the heap held something just after it, 393 times (5 MB copied) in a
 * sample:resnet18 run (share/performance-history.md).  Surfaces with gaps
 * between them get a buffer each; the bytes are the same either way. */
static void test_output_held_whole(void **state)
{
    (void)state;
    struct layer L = base_layer("nv_full", 3, 5, 70, SDP_INT8);
    L.bs = (struct sdp_x_cfg){
        .alu_algo = SDP_ALU_SUM, .alu_operand = 3, .mul_operand = 7, .mul_shift = 3};
    struct world wd;
    open_world(&wd, &L);
    struct dla_cube in;
    assert_true(cube_alloc(&in, L.w, L.h, L.c, 1, DLA_CUBE_INT));
    for (size_t i = 0; i < cube_elems(&in); i++)
        in.v[i] = (int32_t)(next_random() >> 40) - (1 << 23);
    const uint32_t surfaces = wd.cw / wd.atom; /* int8: an atom's channels */
    assert_int_equal(surfaces, 3);
    const uint64_t gap[2] = {0, 32};
    for (int g = 0; g < 2; g++) {
        wd.out_line = (uint64_t)L.w * wd.atom;
        wd.out_surf = wd.out_line * L.h + gap[g];
        program(&wd, &L, true);
        struct one_stage f;
        flying_open(&f, wd.d);
        assert_int_equal(sdp_execute(wd.d, &f.x, 0, 0xff, &in, NULL), 0);
        size_t surf_bytes = wd.out_line * L.h, runs = gap[g] ? surfaces : 1;
        assert_int_equal(f.pipe.n_writes, runs);
        for (size_t r = 0; r < runs; r++) {
            assert_int_equal(f.pipe.writes[r].len, surf_bytes * surfaces / runs);
            assert_int_equal(f.pipe.writes[r].cap, f.pipe.writes[r].len);
        }
        for (uint32_t c = 0; c < wd.cw; c++)
            for (uint32_t y = 0; y < L.h; y++)
                for (uint32_t x = 0; x < L.w; x++) {
                    bool sat;
                    long double v = c < L.c ? in.v[cube_index(&in, 0, c, y, x)] : 0;
                    int32_t want = ref_element(&wd, &L, v, c, y, x, &sat, NULL);
                    uint8_t got = 0;
                    uint64_t a = OUT_ADDR + c / wd.atom * wd.out_surf + y * wd.out_line +
                                 x * wd.atom + c % wd.atom;
                    assert_true(one_stage_written_byte(&f, a, &got));
                    assert_int_equal((int8_t)got, want);
                }
        one_stage_close(&f);
    }
    cube_free(&in);
    close_world(&wd);
}

/* ---------------------------------------------------------------- bad programming */

static void test_bad_programming_is_diagnosed(void **state)
{
    (void)state;
    /* operands from memory with their DMA disabled */
    struct layer L = base_layer("nv_full", 2, 2, 8, SDP_INT8);
    L.bs = (struct sdp_x_cfg){.alu_algo = SDP_ALU_SUM, .alu_from_mem = true, .mul_bypass = true};
    struct world wd;
    open_world(&wd, &L);
    run_offline(&wd, &L);
    assert_true(saw(&wd.rec, "sdp_rdma.operand_disabled"));
    close_world(&wd);
    /* the stream carries MUL but the ALU wants it */
    L.dma[SRC_BS] = (struct operand_dma){.enabled = true, .use = USE_MUL, .size = 1};
    open_world(&wd, &L);
    run_offline(&wd, &L);
    assert_true(saw(&wd.rec, "sdp_rdma.data_use"));
    close_world(&wd);
    /* an absurd cube: refused, nothing allocated, the layer still completes */
    L = base_layer("nv_full", 8192, 8192, 8192, SDP_INT8);
    wd = (struct world){0};
    wd.d = dla_create(dla_config_find("nv_full"), NULL);
    dla_listen(wd.d, record, &wd.rec);
    wd.in_line = wd.in_surf = wd.out_line = wd.out_surf = 32;
    program(&wd, &L, false);
    wr(wd.d, "SDP.D_OP_ENABLE", 1);
    wr(wd.d, "SDP_RDMA.D_OP_ENABLE", 1);
    while (dla_advance(wd.d))
        ;
    assert_true(saw(&wd.rec, "too large"));
    assert_true(dla_intr_status(wd.d) & (1u << dla_intr_bit(DLA_P_SDP, 0)));
    dla_destroy(wd.d);
    /* the guide's limitations: PReLU with the ALU on, an unused operand
     * stream, precision conversion in EQL mode */
    L = base_layer("nv_full", 2, 2, 16, SDP_INT16);
    L.bs = (struct sdp_x_cfg){.alu_algo = SDP_ALU_SUM, .prelu = true, .relu_bypass = true};
    L.dma[SRC_BN] = (struct operand_dma){.enabled = true, .use = USE_ALU, .size = 2};
    L.ew = (struct sdp_y_cfg){.alu_algo = SDP_ALU_EQL, .mul_bypass = true, .lut_bypass = true};
    L.out_prec = L.cvt.out_prec = SDP_INT8;
    open_world(&wd, &L);
    run_offline(&wd, &L);
    assert_true(saw(&wd.rec, "sdp.prelu_alu"));
    assert_true(saw(&wd.rec, "sdp_rdma.unused_stream"));
    assert_true(saw(&wd.rec, "sdp.precision_conversion"));
    close_world(&wd);
    /* precision 3 is no precision */
    L = base_layer("nv_full", 2, 2, 8, SDP_INT8);
    open_world(&wd, &L);
    program(&wd, &L, false);
    wr(wd.d, "SDP.D_DATA_FORMAT", 3);
    wr(wd.d, "SDP.D_OP_ENABLE", 1);
    wr(wd.d, "SDP_RDMA.D_OP_ENABLE", 1);
    while (dla_advance(wd.d))
        ;
    assert_true(saw(&wd.rec, "sdp.precision"));
    close_world(&wd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offline_bypass_int8),
        cmocka_unit_test(test_bias_per_channel_relu_int16),
        cmocka_unit_test(test_batch_norm_per_element_int8),
        cmocka_unit_test(test_prelu_per_cube_registers),
        cmocka_unit_test(test_ew_operands),
        cmocka_unit_test(test_precision_conversion),
        cmocka_unit_test(test_fp16_processing),
        cmocka_unit_test(test_fp16_nan_inf_counters),
        cmocka_unit_test(test_saturation_counter),
        cmocka_unit_test(test_eql_status),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_nv_small_ignores_ew),
        cmocka_unit_test(test_needs_rdma),
        cmocka_unit_test(test_on_the_fly_batches_and_pdp),
        cmocka_unit_test(test_output_held_whole),
        cmocka_unit_test(test_bad_programming_is_diagnosed),
    };
    return cmocka_run_group_tests_name("sdp", tests, NULL, NULL);
}
