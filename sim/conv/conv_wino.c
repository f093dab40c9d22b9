/* Winograd convolution F(2x2, 3x3): int8, int16 and fp16.
 *
 * CDMA pads the input (with its pad value, as is) and, for strided layers,
 * folds the stride phases into channels: extended pixel (X, Y), phase
 * (px, py) is padded pixel (X*sx + px, Y*sy + py), and its channels come
 * phase by phase, each phase holding the input's surfaces of whole memory
 * atoms.  In CBUF an entry is a 4x4 block of extended pixels, 8 bytes each
 * (4 int16 or 8 int8 channels); a slice is four extended lines.
 *
 * CSC takes, for every 2x2 block of outputs, the 4x4 input tile of each
 * channel and transforms it (the PRA cell: B^T d B, exact in 18 bits, then
 * PRA_TRUNCATE bits off with rounding half away from zero and saturation to
 * int8/int16).  The weights arrive pre-transformed (4x4 per kernel and
 * channel).  CMAC multiplies position by position, sums each group of four
 * channels, applies the output transform A^T M A (exact), and CACC adds the
 * groups with 48-bit saturation, then truncates and saturates as usual.
 * In fp16 the PRA sums run in the cmod's fp17 arithmetic (sim/num/fpnum.c) and
 * the cell and CACC use the fp16 datapath of cacc_fp16.c. */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "core/threads.h"
#include "num/fixpt.h"
#include "num/fp16.h"
#include "num/fpnum.h"

#define TILE       16
#define SLOT_BYTES 8

struct wino_geom {
    uint32_t total_w, total_h; /* padded input */
    uint32_t ext_w, ext_h;     /* extended cube CSC sees */
    uint32_t surfaces, cpa;    /* input surfaces, channels per memory atom */
    uint32_t ext_c;            /* channels of the extended cube */
    uint32_t slots;            /* 8-byte channel slots per extended pixel */
};

static bool wino_geometry(struct dla *d, const struct conv_params *p, struct wino_geom *g)
{
    unsigned atom = d->cfg->mem_atom;
    g->cpa = atom / p->bpe;
    g->surfaces = (p->in_c + g->cpa - 1) / g->cpa;
    g->total_w = p->pad_l + p->in_w + p->pad_r;
    g->total_h = p->pad_t + p->in_h + p->pad_b;
    g->ext_w = g->total_w / p->cdma_stride_x;
    g->ext_h = g->total_h / p->cdma_stride_y;
    g->ext_c = p->cdma_stride_x * p->cdma_stride_y * g->surfaces * g->cpa;
    g->slots = g->ext_c * p->bpe / SLOT_BYTES;
    if (d->cfg->cbuf_entry_bytes != TILE * SLOT_BYTES) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "Winograd needs 128-byte CBUF entries; %s has %u", d->cfg->name,
                 d->cfg->cbuf_entry_bytes);
        return false;
    }
    if (g->total_w % (4 * p->cdma_stride_x) || g->total_h % (4 * p->cdma_stride_y)) {
        dla_rule(d, DLA_U_CDMA, "cdma.winograd_size",
                 "padded input %ux%u must be a multiple of 4 x stride (%ux%u)", g->total_w,
                 g->total_h, p->cdma_stride_x, p->cdma_stride_y);
        return false;
    }
    if (p->ext_w != g->ext_w || p->ext_h != g->ext_h || p->ext_c != g->ext_c)
        dla_rule(d, DLA_U_CSC, "csc.winograd_ext",
                 "CSC DATAIN_SIZE_EXT %ux%ux%u, the extended cube is %ux%ux%u", p->ext_w, p->ext_h,
                 p->ext_c, g->ext_w, g->ext_h, g->ext_c);
    if (p->out_w % 4 || p->out_h % 4 || p->out_w < 8 || p->out_h < 8)
        dla_rule(d, DLA_U_CSC, "csc.winograd_output",
                 "Winograd output %ux%u must be multiples of 4 and at least 8", p->out_w, p->out_h);
    if (p->out_w + 2 > g->ext_w || p->out_h + 2 > g->ext_h || p->k_w != 4 || p->k_h != 4) {
        dla_rule(d, DLA_U_CSC, "csc.winograd_kernel",
                 "Winograd needs 4x4 pre-transformed kernels and output = input - 2 "
                 "(kernel %ux%u, output %ux%u, input %ux%u)",
                 p->k_w, p->k_h, p->out_w, p->out_h, g->ext_w, g->ext_h);
        return false;
    }
    return true;
}

/* CBUF byte offset of slot s of extended pixel (X, Y). */
static uint64_t slot_offset(const struct conv_params *p, const struct wino_geom *g,
                            const struct conv_cbuf_plan *plan, unsigned eb, uint32_t x, uint32_t y,
                            uint32_t s)
{
    uint64_t slice = 4ull * p->entry_per_slice;
    uint64_t entry =
        plan->data_start + (uint64_t)(y / 4) * slice + (uint64_t)s * (g->ext_w / 4) + x / 4;
    return entry * eb + (y % 4) * 32 + (x % 4) * SLOT_BYTES;
}

/* ---------------------------------------------------------------- CDMA */

static bool wino_load(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                      const struct wino_geom *g, const struct conv_cbuf_plan *plan, int32_t layer)
{
    const unsigned atom = d->cfg->mem_atom, eb = d->cfg->cbuf_entry_bytes;
    const struct cbuf_region dr = conv_data_region(p);
    uint8_t *line = malloc((size_t)p->in_w * atom), *pad = malloc(atom);
    if (!line || !pad) {
        free(line);
        free(pad);
        return false;
    }
    for (unsigned i = 0; i < atom; i += p->bpe)
        feature_store(pad + i, p->bpe, p->cdma_pad_value);
    const uint32_t slots_per_atom = atom / SLOT_BYTES;
    bool ok = true;
    for (uint32_t ty = 0; ok && ty < g->ext_h * p->cdma_stride_y; ty++) {
        uint32_t py = ty % p->cdma_stride_y, ey = ty / p->cdma_stride_y;
        bool row_in = ty >= p->pad_t && ty < p->pad_t + p->in_h;
        for (uint32_t s = 0; ok && s < g->surfaces; s++) {
            if (row_in)
                ok = exec_read(x, DLA_C_CDMA_DAT, p->dat_space,
                               p->dat_addr + (uint64_t)s * p->surf_stride +
                                   (uint64_t)(ty - p->pad_t) * p->line_stride,
                               line, (size_t)p->in_w * atom);
            for (uint32_t tx = 0; tx < g->ext_w * p->cdma_stride_x; tx++) {
                uint32_t px = tx % p->cdma_stride_x, ex = tx / p->cdma_stride_x;
                bool in = row_in && tx >= p->pad_l && tx < p->pad_l + p->in_w;
                const uint8_t *a = in ? line + (size_t)(tx - p->pad_l) * atom : pad;
                uint32_t phase = py * p->cdma_stride_x + px;
                for (uint32_t j = 0; j < slots_per_atom; j++) {
                    uint32_t slot = (phase * g->surfaces + s) * slots_per_atom + j;
                    cbuf_write(d->cbuf, &dr, slot_offset(p, g, plan, eb, ex, ey, slot),
                               a + j * SLOT_BYTES, SLOT_BYTES, layer, CBUF_DATA);
                }
            }
        }
    }
    free(line);
    free(pad);
    return ok;
}

/* ---------------------------------------------------------------- CSC */

/* The PRA cell on one 4x4 tile (row-major). */
void csc_pra_transform(const int16_t in[TILE], unsigned truncate, enum conv_prec prec,
                       int16_t out[TILE])
{
    int32_t m[TILE], t[TILE];
    for (int i = 0; i < 4; i++) { /* rows: B^T d */
        m[i] = in[i] - in[8 + i];
        m[4 + i] = in[4 + i] + in[8 + i];
        m[8 + i] = in[8 + i] - in[4 + i];
        m[12 + i] = in[4 + i] - in[12 + i];
    }
    for (int r = 0; r < 4; r++) { /* columns: (B^T d) B */
        t[4 * r] = m[4 * r] - m[4 * r + 2];
        t[4 * r + 1] = m[4 * r + 1] + m[4 * r + 2];
        t[4 * r + 2] = m[4 * r + 2] - m[4 * r + 1];
        t[4 * r + 3] = m[4 * r + 1] - m[4 * r + 3];
    }
    unsigned bits = prec == CONV_INT8 ? 8 : 16;
    for (int i = 0; i < TILE; i++)
        out[i] = (int16_t)fix_sat(fix_shr_round(t[i], truncate & 3u), bits);
}

/* The PRA cell in fp16: the same sums and differences in the cmod's fp17
 * arithmetic, converted back to fp16 (PRA_TRUNCATE does not apply). */
static void pra_fp16(const int16_t in[TILE], int16_t out[TILE])
{
    uint64_t d[TILE], m[TILE], t[TILE];
    for (int i = 0; i < TILE; i++)
        d[i] = fpnum_fp16_to_fp17((uint16_t)in[i]);
    for (int i = 0; i < 4; i++) {
        m[i] = fp_sub(FP17, d[i], d[8 + i]);
        m[4 + i] = fp_add(FP17, d[4 + i], d[8 + i]);
        m[8 + i] = fp_sub(FP17, d[8 + i], d[4 + i]);
        m[12 + i] = fp_sub(FP17, d[4 + i], d[12 + i]);
    }
    for (int r = 0; r < 4; r++) {
        t[4 * r] = fp_sub(FP17, m[4 * r], m[4 * r + 2]);
        t[4 * r + 1] = fp_add(FP17, m[4 * r + 1], m[4 * r + 2]);
        t[4 * r + 2] = fp_sub(FP17, m[4 * r + 2], m[4 * r + 1]);
        t[4 * r + 3] = fp_sub(FP17, m[4 * r + 1], m[4 * r + 3]);
    }
    for (int i = 0; i < TILE; i++)
        out[i] = (int16_t)fpnum_fp17_to_fp16((uint32_t)t[i]);
}

/* Transformed tiles of every 2x2 output block: [block][position][channel]. */
static int16_t *wino_data(struct dla *d, const struct conv_params *p, const struct wino_geom *g,
                          const struct conv_cbuf_plan *plan)
{
    const unsigned eb = d->cfg->cbuf_entry_bytes;
    const struct cbuf_region dr = conv_data_region(p);
    const uint32_t bw = p->out_w / 2, bh = p->out_h / 2, c = g->ext_c;
    const uint32_t per_slot = SLOT_BYTES / p->bpe;
    /* the extended cube, unpacked: [y][x][c] */
    int16_t *cube = malloc(sizeof *cube * g->ext_w * g->ext_h * c);
    int16_t *tiles = malloc(sizeof *tiles * bw * bh * TILE * c);
    if (!cube || !tiles) {
        free(cube);
        free(tiles);
        return NULL;
    }
    uint8_t slot[SLOT_BYTES];
    for (uint32_t y = 0; y < g->ext_h; y++)
        for (uint32_t x = 0; x < g->ext_w; x++)
            for (uint32_t s = 0; s < g->slots; s++) {
                cbuf_read(d->cbuf, &dr, slot_offset(p, g, plan, eb, x, y, s), slot, SLOT_BYTES);
                for (uint32_t i = 0; i < per_slot; i++)
                    cube[((size_t)y * g->ext_w + x) * c + s * per_slot + i] =
                        conv_element(slot, i, p);
            }
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++)
            for (uint32_t ch = 0; ch < c; ch++) {
                int16_t in[TILE], out[TILE];
                for (int i = 0; i < TILE; i++)
                    in[i] = cube[(((size_t)2 * by + i / 4) * g->ext_w + 2 * bx + i % 4) * c + ch];
                if (p->prec == CONV_FP16)
                    pra_fp16(in, out);
                else
                    csc_pra_transform(in, p->pra_truncate, (enum conv_prec)p->prec, out);
                int16_t *dst = tiles + ((size_t)by * bw + bx) * TILE * c;
                for (int i = 0; i < TILE; i++)
                    dst[(size_t)i * c + ch] = out[i];
            }
    free(cube);
    return tiles;
}

/* Pre-transformed weights of kernel group g: stream [4-channel block][kernel]
 * [position][channel] -> wt[k - k_first][position][channel]. */
static bool wino_weight_group(struct dla *d, const struct conv_params *p,
                              const struct conv_cbuf_plan *plan, const struct conv_wt_stream *ws,
                              uint32_t grp, uint32_t c, uint32_t k_first, struct csc_decomp *dec,
                              int16_t *wt)
{
    uint32_t k0 = grp * p->kernel_group;
    uint32_t n = p->kernels - k0 < p->kernel_group ? p->kernels - k0 : p->kernel_group;
    size_t need = (size_t)n * TILE * c * p->bpe;
    uint8_t *b = calloc(need ? need : 1, 1);
    if (!b)
        return false;
    struct cbuf_region wr = conv_weight_region(p);
    cbuf_read(d->cbuf, &wr, ws->group_off, b,
              ws->bytes[grp] < need ? (size_t)ws->bytes[grp] : need);
    size_t i = 0;
    for (uint32_t c0 = 0; c0 < c; c0 += 4)
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t pos = 0; pos < TILE; pos++)
                for (uint32_t ch = c0; ch < c0 + 4; ch++, i++)
                    wt[((size_t)(k0 - k_first + k) * TILE + pos) * c + ch] =
                        p->compressed ? csc_decompress_next(d, p, plan, dec)
                                      : conv_element(b, i, p);
    free(b);
    return true;
}

/* ---------------------------------------------------------------- CMAC + CACC */

void cmac_wino_output_transform(const int64_t m[TILE], int64_t o[4])
{
    int64_t r[8];
    for (int i = 0; i < 4; i++) {
        r[i] = m[i] + m[4 + i] + m[8 + i];
        r[4 + i] = m[4 + i] - m[8 + i] - m[12 + i];
    }
    for (int j = 0; j < 2; j++) {
        o[2 * j] = r[4 * j] + r[4 * j + 1] + r[4 * j + 2];
        o[2 * j + 1] = r[4 * j + 1] - r[4 * j + 2] - r[4 * j + 3];
    }
}

/* One cell (a 2x2 output block of one kernel), integer: per 4-channel atomic
 * operation the 16 CMAC dot products and the output transform, summed in
 * CACC's 48-bit accumulators and truncated to the cell's four outputs. */
static void wino_cell_int(const struct conv_params *p, uint32_t c, const int16_t *a,
                          const int16_t *w, int32_t res[4], struct cacc_stats *st)
{
    int64_t acc[4] = {0};
    for (uint32_t c0 = 0; c0 < c; c0 += 4) { /* one atomic operation per 4 channels */
        int64_t m[TILE], o[4];
        for (int pos = 0; pos < TILE; pos++)
            m[pos] = cmac_dot_i16(a + (size_t)pos * c + c0, w + (size_t)pos * c + c0, 4);
        cmac_wino_output_transform(m, o);
        for (int q = 0; q < 4; q++)
            acc[q] = c0 == 0 ? o[q] : cacc_sat48(acc[q] + o[q]);
    }
    for (int q = 0; q < 4; q++) {
        bool sat;
        res[q] = cacc_truncate(acc[q], p->clip_truncate, &sat);
        st->saturated += sat;
    }
}

/* One cell, fp16: the cell's float partial sums into CACC's float
 * accumulators; the outputs are fp32 bit patterns. */
static void wino_cell_fp16(uint32_t c, const int16_t *a, const int16_t *w, int32_t res[4],
                           struct cacc_stats *st)
{
    uint64_t acc[4] = {0};
    for (uint32_t c0 = 0; c0 < c; c0 += 4) {
        int16_t dl[64], wl[64];
        for (int pos = 0; pos < TILE; pos++)
            for (int cc = 0; cc < 4; cc++) {
                dl[pos * 4 + cc] = a[(size_t)pos * c + c0 + cc];
                wl[pos * 4 + cc] = w[(size_t)pos * c + c0 + cc];
            }
        cmac_fp16_wino_op(dl, wl, acc);
    }
    for (int q = 0; q < 4; q++) {
        uint32_t f = cacc_fp16_result(acc[q]);
        st->nan_out += fp_is_nan(FP32, f);
        res[q] = (int32_t)f;
    }
}

/* Every cell of the layer: the walk over 2x2 output blocks and kernels and
 * where a cell's four outputs land are the same for both precisions; only
 * the cell's arithmetic differs.  Output blocks are shared out among
 * dla_threads() workers, each with its own statistics. */
struct wino_job {
    const struct conv_params *p;
    uint32_t c;
    uint32_t k_first, k_end; /* the pass's kernels, row 0 of wt the first */
    const int16_t *tiles, *wt;
    struct dla_cube *out;
    struct cacc_stats st[DLA_MAX_THREADS];
};

static void wino_worker(void *ctx, unsigned worker, unsigned workers)
{
    struct wino_job *j = ctx;
    const struct conv_params *p = j->p;
    const uint32_t bw = p->out_w / 2, bh = p->out_h / 2, c = j->c;
    for (uint32_t blk = worker; blk < bw * bh; blk += workers)
        for (uint32_t k = j->k_first; k < j->k_end && k < j->out->c; k++) { /* CACC's channels */
            const int16_t *a = j->tiles + (size_t)blk * TILE * c;
            const int16_t *w = j->wt + (size_t)(k - j->k_first) * TILE * c;
            int32_t res[4];
            if (p->prec == CONV_FP16)
                wino_cell_fp16(c, a, w, res, &j->st[worker]);
            else
                wino_cell_int(p, c, a, w, res, &j->st[worker]);
            uint32_t oy = blk / bw * 2, ox = blk % bw * 2;
            for (int q = 0; q < 4; q++)
                j->out->v[cube_index(j->out, 0, k, oy + q / 2, ox + q % 2)] = res[q];
        }
}

static void wino_compute(const struct conv_params *p, uint32_t c, const int16_t *tiles,
                         const int16_t *wt, uint32_t k_first, uint32_t k_end, struct dla_cube *out,
                         struct cacc_stats *st)
{
    struct wino_job j = {
        .p = p, .c = c, .k_first = k_first, .k_end = k_end, .tiles = tiles, .wt = wt, .out = out};
    unsigned blocks = (p->out_w / 2) * (p->out_h / 2);
    dla_parallel(dla_workers_for(blocks), wino_worker, &j);
    for (unsigned t = 0; t < DLA_MAX_THREADS; t++) {
        st->saturated += j.st[t].saturated;
        st->nan_out += j.st[t].nan_out;
    }
}

/* ---------------------------------------------------------------- layer */

bool conv_wino_run(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                   const struct conv_cbuf_plan *plan, int32_t layer, struct dla_cube *out,
                   struct cacc_stats *st)
{
    struct wino_geom g;
    if (p->batches > 1 || p->dil_x > 1 || p->dil_y > 1) { /* the guide's feature crossing */
        dla_rule(d, DLA_U_CSC, "csc.winograd_crossing",
                 "Winograd cannot be combined with batches (%u) or dilation (%ux%u)", p->batches,
                 p->dil_x, p->dil_y);
        return false;
    }
    if (!wino_geometry(d, p, &g))
        return false;
    uint64_t need = (uint64_t)(g.ext_h / 4) * 4 * p->entry_per_slice;
    if (need > (uint64_t)p->data_banks * dla_cbuf_bank_entries(d->cfg) ||
        (uint64_t)g.ext_w / 4 * g.slots > 4ull * p->entry_per_slice) {
        dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "Winograd input needs %llu entries (%u per slice); DATA_BANK holds %u",
                 (unsigned long long)need, 4 * p->entry_per_slice,
                 p->data_banks * dla_cbuf_bank_entries(d->cfg));
        return false;
    }
    if (plan->fetch_data && !wino_load(d, x, p, &g, plan, layer))
        return false;
    struct cbuf_region dr = conv_data_region(p);
    cbuf_publish(d, &dr, CBUF_DATA, need * d->cfg->cbuf_entry_bytes, layer);
    int16_t *tiles = wino_data(d, p, &g, plan);
    /* the weights in passes of kernel groups, as a direct convolution's
     * (conv.c): one pass's pre-transformed kernels held at a time */
    uint32_t blocks = (p->out_w / 2) * (p->out_h / 2), depth = TILE * g.ext_c;
    uint32_t per_pass = conv_kernels_per_pass(p, blocks, depth);
    uint32_t rows = p->kernels < per_pass ? p->kernels : per_pass;
    int16_t *wt = calloc((size_t)(rows ? rows : 1) * depth, sizeof *wt);
    bool ok = tiles && wt;
    if (!ok)
        dla_diag(d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "out of host memory for the Winograd operands");
    bool fp16 = p->prec == CONV_FP16;
    if (ok && out)
        ok = exec_cube_alloc(x, DLA_U_CACC, out, p->out_w, p->out_h, p->out_k, 1,
                             fp16 ? DLA_CUBE_FP32 : DLA_CUBE_INT, "the CACC output cube");
    if (ok) {
        struct conv_wt_stream ws;
        struct csc_decomp dec = {0};
        ok = cdma_weights_begin(d, x, p, plan, layer, &ws);
        for (uint32_t grp = 0; ok && grp < ws.groups; grp++) {
            ok = cdma_weight_group(d, x, p, plan, layer, &ws, grp);
            if (!ok || !conv_csc_uses_group(p, grp))
                continue;
            uint32_t k0 = grp * p->kernel_group, k_first = k0 - k0 % per_pass;
            uint32_t end = k0 + p->kernel_group < p->kernels ? k0 + p->kernel_group : p->kernels;
            ok = wino_weight_group(d, p, plan, &ws, grp, g.ext_c, k_first, &dec, wt);
            if (ok && out && conv_group_ends_pass(p, grp, per_pass))
                wino_compute(p, g.ext_c, tiles, wt, k_first, end, out, st);
        }
        cdma_weights_end(d, p, plan, layer, &ws);
    }
    if (!ok && out)
        exec_cube_free(x, out);
    free(tiles);
    free(wt);
    return ok;
}
