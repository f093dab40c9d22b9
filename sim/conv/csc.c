/* CSC: the convolution sequencer.  It reads feature data and weights back
 * from CBUF and lays them out as MAC operands (struct conv_operands): one
 * row per output position holding, for every channel block and kernel tap,
 * the input values the atomic operation multiplies (the pad value where the
 * tap falls in the padding, zero for channels past the cube), and one row
 * per kernel holding the weights in the same order. */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "core/threads.h"

static uint32_t round16(uint64_t v)
{
    return (uint32_t)((v + 15) & ~15ull);
}

/* The input cube CSC sees, unpacked from the data banks: [b][y][x][c], in
 * the model's scratch (SCRATCH_CSC_FEATURE). */
static int16_t *unpack_feature(struct dla *d, const struct conv_params *p,
                               const struct conv_cbuf_plan *plan)
{
    const unsigned eb = d->cfg->cbuf_entry_bytes, atom = d->cfg->mem_atom;
    const struct cbuf_region dr = conv_data_region(p);
    size_t n = (size_t)p->batches * p->ext_h * p->ext_w * p->ext_c;
    int16_t *f = dla_scratch_get(d, SCRATCH_CSC_FEATURE, n * sizeof *f);
    uint8_t *buf = malloc((size_t)p->ext_w * eb);
    if (!f || !buf) {
        free(buf);
        return NULL;
    }
    unsigned groups = conv_channel_groups(p, eb);
    unsigned per_group = eb / p->bpe;
    for (uint32_t y = 0; y < p->ext_h; y++) {
        for (uint32_t b = 0; b < p->batches; b++) {
            uint64_t base = plan->data_start + ((uint64_t)y * p->batches + b) * p->entry_per_slice;
            int16_t *row = f + (((size_t)b * p->ext_h + y) * p->ext_w) * p->ext_c;
            for (unsigned j = 0; j < groups; j++) {
                /* a full group's pixels are one run of entries (conv_layout.c):
                 * read in one call, entry by entry as CBUF counts its reads */
                struct conv_slot first = conv_feature_slot(p, eb, atom, 0, j);
                bool full = first.len == eb;
                if (full)
                    cbuf_read(d->cbuf, &dr, (base + first.entry) * eb, buf, (size_t)p->ext_w * eb);
                uint32_t c0 = j * per_group;
                for (uint32_t x = 0; x < p->ext_w; x++) {
                    const uint8_t *at = buf + (size_t)x * eb;
                    struct conv_slot sl = first;
                    if (!full) {
                        sl = conv_feature_slot(p, eb, atom, x, j);
                        cbuf_read(d->cbuf, &dr, (base + sl.entry) * eb + sl.byte, buf, sl.len);
                        at = buf;
                    }
                    for (uint32_t c = c0; c < p->ext_c && c < c0 + sl.len / p->bpe; c++)
                        row[(size_t)x * p->ext_c + c] = conv_element(at, c - c0, p);
                }
            }
        }
    }
    free(buf);
    return f;
}

static void fill(int16_t *dst, int16_t v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        dst[i] = v;
}

/* One output position's row: blocks of atomic_c channels, taps in r, s order. */
static void gather_row(const struct conv_params *p, const int16_t *f, uint32_t b, uint32_t oy,
                       uint32_t ox, int16_t pad, int16_t *row)
{
    const uint32_t taps = p->k_w * p->k_h, c = p->ext_c;
    for (uint32_t c0 = 0; c0 < c; c0 += p->atomic_c) {
        uint32_t nj = c - c0 < p->atomic_c ? c - c0 : p->atomic_c;
        for (uint32_t t = 0; t < taps; t++) {
            int64_t iy = (int64_t)oy * p->stride_y + (int64_t)(t / p->k_w) * p->dil_y -
                         (int64_t)p->csc_pad_t;
            int64_t ix = (int64_t)ox * p->stride_x + (int64_t)(t % p->k_w) * p->dil_x -
                         (int64_t)p->csc_pad_l;
            int16_t *dst = row + (size_t)taps * c0 + (size_t)t * nj;
            if (iy < 0 || ix < 0 || iy >= p->ext_h || ix >= p->ext_w)
                fill(dst, pad, nj);
            else
                memcpy(dst,
                       f + (((size_t)b * p->ext_h + (size_t)iy) * p->ext_w + (size_t)ix) * c + c0,
                       nj * sizeof *dst);
        }
    }
}

/* The data rows' gathering, split by rows among workers: each writes only
 * its own rows, so the operands are the same for any thread count.  Only a
 * layer of at least GATHER_PART_BYTES of rows a worker is split: handing a
 * job to the workers (dla_parallel) costs microseconds; the bench's 56x56x64
 * layer's 3.6 MB of rows took about half of csc_prepare_data's 0.9 ms on one
 * thread (perf). */
#define GATHER_PART_BYTES (512u << 10)

struct gather_job {
    const struct conv_params *p;
    const int16_t *f; /* unpack_feature's cube */
    int16_t pad;
    struct conv_operands *ops;
};

/* Rows [from, to) of the job, each padded with zeros from taps x c to depth
 * (the scratch holds a previous layer's bytes). */
static void gather_rows(void *ctx, unsigned worker, unsigned workers)
{
    const struct gather_job *j = ctx;
    const struct conv_params *p = j->p;
    struct conv_operands *ops = j->ops;
    uint64_t from = dla_share_start(ops->rows, worker, workers);
    uint64_t to = dla_share_start(ops->rows, worker + 1, workers);
    size_t used = (size_t)ops->taps * ops->c;
    for (uint64_t r = from; r < to; r++) {
        uint32_t ox = (uint32_t)(r % p->out_w), oy = (uint32_t)(r / p->out_w % p->out_h);
        uint32_t b = (uint32_t)(r / p->out_w / p->out_h);
        int16_t *row = ops->data + r * ops->depth;
        gather_row(p, j->f, b, oy, ox, j->pad, row);
        memset(row + used, 0, (ops->depth - used) * sizeof *row);
    }
}

bool csc_prepare_data(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                      struct conv_operands *ops)
{
    uint64_t need = (uint64_t)p->ext_h * p->batches * p->entry_per_slice;
    if (need > (uint64_t)p->data_banks * dla_cbuf_bank_entries(d->cfg)) {
        dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "CSC reads %llu entries of input but DATA_BANK holds %u", (unsigned long long)need,
                 p->data_banks * dla_cbuf_bank_entries(d->cfg));
        return false;
    }
    ops->taps = p->k_w * p->k_h;
    ops->c = p->image ? p->k_c : p->ext_c; /* image: S x C elements of a line per tap */
    if (p->image && p->y_extension) {      /* one operation takes several kernel rows */
        uint32_t lines = 1u << p->y_extension;
        ops->taps = (p->k_h + lines - 1) / lines;
        ops->c = p->k_c * lines;
    }
    ops->seg_len = p->atomic_c;
    ops->rows = p->out_w * p->out_h * p->batches;
    ops->kernels = p->kernels;
    ops->depth = round16((uint64_t)ops->taps * ops->c);
    /* the rows live in the model's scratch, kept for the next layer; zeroed:
     * a row's padding to depth is part of the operands */
    size_t data_bytes = (size_t)ops->rows * ops->depth * sizeof *ops->data;
    if (p->image) {
        ops->data = dla_scratch_zeroed(d, SCRATCH_CSC_DATA, data_bytes);
        if (ops->data && csc_image_rows(d, p, plan, ops))
            return true;
        dla_diag(d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "out of host memory for the convolution operands");
        return false;
    }
    int16_t *f = unpack_feature(d, p, plan);
    ops->data = f ? dla_scratch_get(d, SCRATCH_CSC_DATA, data_bytes) : NULL;
    if (!f || !ops->data) {
        dla_scratch_done(d, SCRATCH_CSC_FEATURE);
        dla_diag(d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "out of host memory for the convolution operands");
        return false;
    }
    struct gather_job j = {p, f, csc_pad_operand(p), ops};
    dla_parallel(dla_workers_for(data_bytes / GATHER_PART_BYTES), gather_rows, &j);
    dla_scratch_done(d, SCRATCH_CSC_FEATURE);
    return true;
}

/* ---------------------------------------------------------------- weights */

/* Element i of kernel group g's uncompressed stream, read from the ring
 * directly or through the WMB bits and the compressed stream. */
int16_t csc_decompress_next(struct dla *d, const struct conv_params *p,
                            const struct conv_cbuf_plan *plan, struct csc_decomp *dec)
{
    const struct cbuf_region wr = conv_weight_region(p);
    uint8_t b[2] = {0, 0};
    const struct cbuf_region mr = conv_wmb_region(d);
    uint8_t m;
    cbuf_read(d->cbuf, &mr, dec->mask_bit / 8, &m, 1);
    bool present = (m >> (dec->mask_bit % 8)) & 1;
    dec->mask_bit++;
    if (!present)
        return 0;
    cbuf_read(d->cbuf, &wr, plan->weight_start + dec->packed * p->bpe, b, p->bpe);
    dec->packed++;
    return conv_element(b, 0, p);
}

static int16_t stream_element(struct dla *d, const struct conv_params *p,
                              const struct conv_cbuf_plan *plan, const uint8_t *group, uint64_t i,
                              struct csc_decomp *dec)
{
    if (!p->compressed)
        return conv_element(group, i, p);
    return csc_decompress_next(d, p, plan, dec);
}

bool csc_weight_group(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                      const struct conv_wt_stream *ws, uint32_t g, struct csc_decomp *dec,
                      struct conv_operands *ops)
{
    const uint32_t taps = ops->taps, c = ops->c;
    uint32_t k0 = g * p->kernel_group;
    uint32_t n = p->kernels - k0 < p->kernel_group ? p->kernels - k0 : p->kernel_group;
    uint8_t *group = NULL;
    if (!p->compressed) { /* the group's bytes, read from the ring in one go */
        size_t need = (size_t)n * taps * c * p->bpe;
        group = dla_scratch_zeroed(d, SCRATCH_CSC_GROUP, need);
        if (!group)
            return false;
        const struct cbuf_region wr = conv_weight_region(p);
        cbuf_read(d->cbuf, &wr, ws->group_off, group,
                  ws->bytes[g] < need ? (size_t)ws->bytes[g] : need);
    }
    uint64_t i = 0; /* element index in the group's stream: [block][r][s][k][c] */
    for (uint32_t c0 = 0; c0 < c; c0 += p->atomic_c) {
        uint32_t nj = c - c0 < p->atomic_c ? c - c0 : p->atomic_c;
        for (uint32_t t = 0; t < taps; t++)
            for (uint32_t k = 0; k < n; k++) {
                int16_t *dst = ops->weight + (size_t)(k0 - ops->k_first + k) * ops->depth +
                               (size_t)taps * c0 + (size_t)t * nj;
                for (uint32_t ci = 0; ci < nj; ci++)
                    dst[ci] = stream_element(d, p, plan, group, i++, dec);
            }
    }
    if (group)
        dla_scratch_done(d, SCRATCH_CSC_GROUP);
    return true;
}
