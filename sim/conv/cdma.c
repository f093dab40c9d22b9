/* CDMA: register behaviour, and the fetch of a convolution layer's input
 * (feature data) and weights from memory into CBUF, in the entry layout CSC
 * reads back (conv_layout.c).  Reuse and release follow the cmod's CSC/CDMA
 * bookkeeping: what the previous layer left (struct cbuf_carry) decides
 * where this layer's data starts and whether the fetch is skipped. */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "num/fp16.h"

/* After reset the RTL clears the CBUF data banks, one step a clock, and
 * raises FLUSH_DONE when done (config cbuf_flush_cycles, a scheduled timer in
 * dla.c); it then stays done, whatever is written to the register (the v2
 * traces write 0 first).  Drivers poll it before the first convolution. */
static bool cdma_read(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                      bool peek)
{
    (void)group;
    (void)peek;
    if (!regdb_reg_is(reg, "S_CBUF_FLUSH_STATUS"))
        return false;
    *value = d->cbuf_flushed ? 1u : 0u;
    return true;
}

/* The programming guide enables the convolution units downstream first
 * (CACC, CMAC, CSC, then CDMA): a unit enabled before the units it feeds
 * is a rule violation. */
static void conv_op_en_written(struct dla *d, const struct regdb_reg *reg, int group,
                               uint32_t value, enum dla_unit self)
{
    static const enum dla_unit order[] = {DLA_U_CDMA, DLA_U_CSC, DLA_U_CMAC_A, DLA_U_CMAC_B,
                                          DLA_U_CACC};
    if (!regdb_reg_is(reg, "D_OP_ENABLE") || !(value & 1u))
        return;
    size_t i = 0;
    while (i < sizeof order / sizeof order[0] && order[i] != self)
        i++;
    /* CMAC_A and CMAC_B are peers: only CACC must come before either */
    size_t first = (self == DLA_U_CMAC_A) ? i + 2 : i + 1;
    for (size_t j = first; j < sizeof order / sizeof order[0]; j++) {
        if (!d->present[order[j]] || dla_op_enabled(d, order[j], group))
            continue;
        dla_rule(d, self, "conv.op_en_order",
                 "%s enabled in group %d before %s: enable CACC, CMAC, CSC, then CDMA",
                 dla_unit_name(self), group, dla_unit_name(order[j]));
        return;
    }
}

static void cdma_written(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    conv_op_en_written(d, reg, group, value, DLA_U_CDMA);
}

static void csc_written(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    conv_op_en_written(d, reg, group, value, DLA_U_CSC);
}

static void cmac_a_written(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    conv_op_en_written(d, reg, group, value, DLA_U_CMAC_A);
}

static void cmac_b_written(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    conv_op_en_written(d, reg, group, value, DLA_U_CMAC_B);
}

const struct dla_unit_hooks cdma_hooks = {.read = cdma_read, .written = cdma_written};
const struct dla_unit_hooks csc_hooks = {.written = csc_written};
const struct dla_unit_hooks cmac_a_hooks = {.written = cmac_a_written};
const struct dla_unit_hooks cmac_b_hooks = {.written = cmac_b_written};

/* ---------------------------------------------------------------- regions */

struct cbuf_region conv_data_region(const struct conv_params *p)
{
    return (struct cbuf_region){.first_bank = 0, .n_banks = p->data_banks};
}

struct cbuf_region conv_weight_region(const struct conv_params *p)
{
    return (struct cbuf_region){.first_bank = p->data_banks, .n_banks = p->weight_banks};
}

struct cbuf_region conv_wmb_region(const struct dla *d)
{
    return (struct cbuf_region){.first_bank = d->cfg->cbuf_banks - 1, .n_banks = 1};
}

static uint32_t data_entries(const struct dla *d, const struct conv_params *p)
{
    return p->data_banks * dla_cbuf_bank_entries(d->cfg);
}

/* ---------------------------------------------------------------- planning */

static bool same_setup(const struct cbuf_carry *c, const struct conv_params *p)
{
    return c->valid && c->conv_mode == p->winograd && c->data_format == p->image &&
           c->data_banks == p->data_banks && c->weight_banks == p->weight_banks;
}

void cdma_plan(struct dla *d, const struct conv_params *p, struct conv_cbuf_plan *plan)
{
    const struct cbuf_carry *c = cbuf_carry(d->cbuf);
    uint32_t entries = data_entries(d, p);
    bool same = same_setup(c, p);
    /* where the previous layer's released slices end */
    uint32_t released = c->data_slices - c->data_left;
    uint32_t after_release = c->data_start + released * c->entry_per_slice;
    plan->fetch_data = true;
    plan->fetch_weight = true;
    if (!c->valid || c->data_banks != p->data_banks) {
        plan->data_start = 0;
    } else if (same && p->data_reuse && c->skip_data_rls) {
        plan->data_start = c->data_start; /* the whole previous input is still there */
        plan->fetch_data = false;
    } else if (same && p->data_reuse) {
        plan->data_start = after_release % entries; /* kept slices first, new ones after */
    } else {
        plan->data_start = (after_release + c->data_left * c->entry_per_slice) % entries;
    }
    /* the weight ring pointer carries on from layer to layer while the
     * banks stay the same; reused weights are where they were */
    bool same_banks =
        c->valid && c->data_banks == p->data_banks && c->weight_banks == p->weight_banks;
    plan->weight_start = same_banks ? c->weight_next : 0;
    if (same && p->weight_reuse && c->skip_weight_rls && c->weight_whole) {
        plan->fetch_weight = false;
        plan->weight_start = c->weight_start;
    }
    if (p->data_reuse && plan->fetch_data && !(same && c->skip_data_rls) && c->data_left == 0)
        dla_rule(d, DLA_U_CDMA, "cdma.data_reuse",
                 "DATA_REUSE set but the previous layer kept no data in CBUF");
    if (p->weight_reuse && plan->fetch_weight)
        dla_rule(d, DLA_U_CDMA, "cdma.weight_reuse",
                 "WEIGHT_REUSE set but the previous layer did not keep its weights "
                 "(SKIP_WEIGHT_RLS, same mode and banks)");
}

void cdma_finish(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan)
{
    struct cbuf_carry *c = cbuf_carry(d->cbuf);
    uint64_t wt_room = (uint64_t)p->weight_banks * d->cfg->cbuf_bank_bytes;
    uint32_t slices = p->ext_h * p->batches;
    c->valid = true;
    c->conv_mode = p->winograd;
    c->data_format = p->image;
    c->data_banks = (uint8_t)p->data_banks;
    c->weight_banks = (uint8_t)p->weight_banks;
    c->skip_data_rls = p->skip_data_rls;
    c->skip_weight_rls = p->skip_weight_rls;
    c->data_start = plan->data_start;
    c->data_slices = slices;
    c->data_left =
        p->skip_data_rls ? slices : (p->rls_slices < slices ? slices - p->rls_slices : 0);
    c->entry_per_slice = p->entry_per_slice;
    if (plan->fetch_weight) {
        uint64_t eb = d->cfg->cbuf_entry_bytes;
        c->weight_start = plan->weight_start;
        c->weight_next = (plan->weight_start + (p->wt_bytes + eb - 1) / eb * eb) % wt_room;
        c->weight_whole = p->wt_bytes <= wt_room;
    }
}

/* ---------------------------------------------------------------- feature data */

struct fetch_stats {
    uint64_t nan, inf;
};

void cdma_fp16_input(const struct conv_params *p, uint8_t *b, size_t n, uint64_t *nan,
                     uint64_t *inf)
{
    feature_count_fp16_specials(b, n, nan, inf);
    if (!p->nan_to_zero)
        return;
    for (size_t i = 0; i + 1 < n; i += 2)
        if (fp16_is_nan((uint16_t)feature_load(b + i, 2, true)))
            b[i] = b[i + 1] = 0;
}

/* The convertor on one atom of feature data (DC mode keeps the element width). */
static void convert_atom(const struct conv_params *p, uint8_t *b, size_t n, uint64_t *sat_count)
{
    if (p->in_prec == CONV_FP16)
        return; /* fp16 input goes through untouched */
    const unsigned bpe = p->in_prec == CONV_INT8 ? 1 : 2;
    for (size_t i = 0; i < n; i += bpe) {
        bool sat;
        uint16_t r = conv_cvt(feature_load(b + i, bpe, false), p->cvt_offset, p->cvt_scale,
                              p->cvt_truncate, (enum conv_prec)p->in_prec, &sat);
        feature_store(b + i, bpe, r);
        *sat_count += sat;
    }
}

/* One line of one surface (width atoms) of one batch, read in one DMA burst. */
static bool fetch_surface_line(struct dla_exec *x, const struct conv_params *p, uint32_t b,
                               uint32_t y, uint32_t surf, unsigned atom, uint8_t *line)
{
    uint64_t a = p->dat_addr + (uint64_t)b * p->batch_stride + (uint64_t)surf * p->surf_stride +
                 (uint64_t)y * p->line_stride;
    return exec_read(x, DLA_C_CDMA_DAT, p->dat_space, a, line, (size_t)p->in_w * atom);
}

static bool load_feature(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                         uint32_t first_slice, const struct conv_cbuf_plan *plan, int32_t layer,
                         struct fetch_stats *st, uint64_t *sat)
{
    const unsigned atom = d->cfg->mem_atom, eb = d->cfg->cbuf_entry_bytes;
    const unsigned per_entry = eb / atom;
    const unsigned surfaces = (unsigned)(((uint64_t)p->in_c * p->bpe + atom - 1) / atom);
    const struct cbuf_region dr = conv_data_region(p);
    uint8_t *line = malloc((size_t)p->in_w * atom);
    if (!line)
        return false;
    bool ok = true;
    for (uint32_t y = 0; y < p->in_h && ok; y++) {
        for (uint32_t b = 0; b < p->batches && ok; b++) {
            uint64_t slice = first_slice + (uint64_t)y * p->batches + b;
            uint64_t base = plan->data_start + slice * p->entry_per_slice;
            for (unsigned s = 0; s < surfaces && ok; s++) {
                ok = fetch_surface_line(x, p, b, y, s, atom, line);
                if (p->in_prec == CONV_FP16) /* every atom's elements, a line at once */
                    cdma_fp16_input(p, line, (size_t)p->in_w * atom, &st->nan, &st->inf);
                /* a full group's pixel x is its first pixel's entry + x */
                struct conv_slot first = conv_feature_slot(p, eb, atom, 0, s / per_entry);
                bool full = first.len == eb;
                for (uint32_t px = 0; px < p->in_w; px++) {
                    uint8_t *a = line + (size_t)px * atom;
                    if (p->cvt_en)
                        convert_atom(p, a, atom, sat);
                    struct conv_slot sl = full ? (struct conv_slot){first.entry + px, 0, eb}
                                               : conv_feature_slot(p, eb, atom, px, s / per_entry);
                    uint64_t off = (base + sl.entry) * eb + sl.byte + (s % per_entry) * atom;
                    cbuf_write(d->cbuf, &dr, off, a, atom, layer, CBUF_DATA);
                }
            }
        }
    }
    free(line);
    return ok;
}

bool cdma_load_data(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                    const struct conv_cbuf_plan *plan, int32_t layer)
{
    if (!plan->fetch_data)
        return true;
    const struct cbuf_carry *c = cbuf_carry(d->cbuf);
    /* with partial reuse the kept slices come first; CDMA appends its lines */
    uint32_t kept = (p->data_reuse && same_setup(c, p)) ? c->data_left : 0;
    uint64_t need = (uint64_t)(kept + p->in_h) * p->batches * p->entry_per_slice;
    if (need > data_entries(d, p)) {
        dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "input needs %llu CBUF entries (%u slices x %u entries) but DATA_BANK gives %u",
                 (unsigned long long)need, (kept + p->in_h) * p->batches, p->entry_per_slice,
                 data_entries(d, p));
        return false;
    }
    struct fetch_stats st = {0};
    uint64_t sat = 0;
    bool ok;
    if (p->image)
        ok = conv_image_load(d, x, p, plan, layer, &sat) == 0;
    else
        ok = load_feature(d, x, p, kept * p->batches, plan, layer, &st, &sat);
    dla_reg_hw_set(d, DLA_U_CDMA, p->group, "D_NAN_INPUT_DATA_NUM", (uint32_t)st.nan);
    dla_reg_hw_set(d, DLA_U_CDMA, p->group, "D_INF_INPUT_DATA_NUM", (uint32_t)st.inf);
    exec_counter(x, "CDMA.cvt_saturations", sat);
    struct cbuf_region dr = conv_data_region(p);
    cbuf_publish(d, &dr, CBUF_DATA, need * d->cfg->cbuf_entry_bytes, layer);
    return ok;
}

/* ---------------------------------------------------------------- weights */

static bool copy_to_cbuf(struct dla *d, struct dla_exec *x, enum dla_client cl, enum dla_space sp,
                         uint64_t src, uint64_t len, const struct cbuf_region *r, uint64_t off,
                         int32_t layer, enum cbuf_kind kind, struct fetch_stats *st, bool fp16)
{
    uint8_t buf[4096];
    while (len > 0) {
        size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
        if (!exec_read(x, cl, sp, src, buf, n))
            return false;
        if (fp16)
            feature_count_fp16_specials(buf, n, &st->nan, &st->inf);
        cbuf_write(d->cbuf, r, off, buf, n, layer, kind);
        src += n;
        off += n;
        len -= n;
    }
    return true;
}

/* Bytes of the weight stream each kernel group occupies: uncompressed,
 * kernels x BYTE_PER_KERNEL; compressed, the group sizes CDMA reads from WGS
 * (4 bytes per kernel group). */
static bool group_sizes(struct dla_exec *x, const struct conv_params *p, struct conv_wt_stream *ws)
{
    for (uint32_t g = 0; g < ws->groups; g++) {
        uint32_t first = g * p->kernel_group;
        uint32_t n = p->cdma_kernels - first < p->kernel_group ? p->cdma_kernels - first
                                                               : p->kernel_group;
        if (!p->compressed) {
            ws->bytes[g] = (uint64_t)n * p->byte_per_kernel;
            continue;
        }
        uint8_t w[4];
        if (!exec_read(x, DLA_C_CDMA_WT, p->wt_space, p->wgs_addr + 4ull * g, w, 4))
            return false;
        ws->bytes[g] = (uint32_t)(w[0] | w[1] << 8 | w[2] << 16 | (uint32_t)w[3] << 24);
    }
    return true;
}

static bool load_wmb(struct dla *d, struct dla_exec *x, const struct conv_params *p, int32_t layer)
{
    struct cbuf_region mr = conv_wmb_region(d);
    if (p->wmb_bytes > cbuf_region_bytes(d->cbuf, &mr)) {
        dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "WMB of %llu bytes exceeds its one CBUF bank", (unsigned long long)p->wmb_bytes);
        return false;
    }
    struct fetch_stats st = {0};
    bool ok = copy_to_cbuf(d, x, DLA_C_CDMA_WT, p->wt_space, p->wmb_addr, p->wmb_bytes, &mr, 0,
                           layer, CBUF_WMB, &st, false);
    cbuf_publish(d, &mr, CBUF_WMB, p->wmb_bytes, layer);
    return ok;
}

bool cdma_weights_begin(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                        const struct conv_cbuf_plan *plan, int32_t layer, struct conv_wt_stream *ws)
{
    *ws = (struct conv_wt_stream){0};
    ws->groups = (p->cdma_kernels + p->kernel_group - 1) / p->kernel_group;
    ws->bytes = calloc(ws->groups, sizeof *ws->bytes);
    if (!ws->bytes || !group_sizes(x, p, ws))
        return false;
    struct cbuf_region wr = conv_weight_region(p);
    uint64_t room = cbuf_region_bytes(d->cbuf, &wr);
    for (uint32_t g = 0; g < ws->groups; g++) {
        ws->total += ws->bytes[g];
        if (ws->bytes[g] > room) {
            dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                     "kernel group %u needs %llu bytes but WEIGHT_BANK holds %llu", g,
                     (unsigned long long)ws->bytes[g], (unsigned long long)room);
            return false;
        }
    }
    if (!plan->fetch_weight && ws->total > room) {
        dla_rule(d, DLA_U_CDMA, "cdma.weight_reuse",
                 "WEIGHT_REUSE of %llu bytes of weights that did not all stay in CBUF",
                 (unsigned long long)ws->total);
    }
    ws->fp16 = p->prec == CONV_FP16 && !p->compressed;
    if (plan->fetch_weight && p->compressed && !load_wmb(d, x, p, layer))
        return false;
    return true;
}

/* The weight DMA fetches D_WEIGHT_BYTES, which compilers round up to 128
 * bytes (nv_full's field is [31:7]): the padding after the last kernel is
 * read too (NVIDIA's VP reads those lines), though no kernel uses it.  A
 * larger gap is a programming error the rule checker reports; it is not read. */
static bool read_weight_padding(struct dla_exec *x, const struct conv_params *p,
                                const struct conv_wt_stream *ws)
{
    uint8_t pad[128];
    if (p->compressed || p->wt_bytes <= ws->fetched || p->wt_bytes - ws->fetched >= sizeof pad)
        return true;
    return exec_read(x, DLA_C_CDMA_WT, p->wt_space, p->wt_addr + ws->fetched, pad,
                     (size_t)(p->wt_bytes - ws->fetched));
}

bool cdma_weight_group(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                       const struct conv_cbuf_plan *plan, int32_t layer, struct conv_wt_stream *ws,
                       uint32_t g)
{
    struct cbuf_region wr = conv_weight_region(p);
    uint64_t off = plan->weight_start + ws->fetched;
    uint64_t n = ws->bytes[g];
    bool ok = true;
    if (plan->fetch_weight) {
        struct fetch_stats st = {0};
        ok = copy_to_cbuf(d, x, DLA_C_CDMA_WT, p->wt_space, p->wt_addr + ws->fetched, n, &wr, off,
                          layer, CBUF_WEIGHT, &st, ws->fp16);
        ws->nan += st.nan;
        ws->inf += st.inf;
    }
    ws->group_off = off;
    ws->fetched += n;
    if (ok && plan->fetch_weight && g + 1 == ws->groups)
        ok = read_weight_padding(x, p, ws);
    return ok;
}

void cdma_weights_end(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                      int32_t layer, struct conv_wt_stream *ws)
{
    if (plan->fetch_weight) {
        struct cbuf_region wr = conv_weight_region(p);
        uint64_t room = cbuf_region_bytes(d->cbuf, &wr);
        cbuf_publish(d, &wr, CBUF_WEIGHT, ws->fetched < room ? ws->fetched : room, layer);
        dla_reg_hw_set(d, DLA_U_CDMA, p->group, "D_NAN_INPUT_WEIGHT_NUM", (uint32_t)ws->nan);
        dla_reg_hw_set(d, DLA_U_CDMA, p->group, "D_INF_INPUT_WEIGHT_NUM", (uint32_t)ws->inf);
    }
    free(ws->bytes);
    ws->bytes = NULL;
}
