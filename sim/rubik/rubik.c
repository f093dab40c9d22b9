/* RUBIK: data reshapes between memory layouts (nv_full only), as NVIDIA's C
 * model does them (cmod/rubik/NV_NVDLA_rbk.cpp):
 *
 *   contract  the deconvolution output of stride_x * stride_y * C channels
 *             becomes a C-channel cube stride_x wider and stride_y taller:
 *             output atom (w * sx_total + sx) of line (h * sy_total + sy),
 *             surface s, is input atom w of line h of input surface
 *             (sy * sx_total + sx) * S_out + s;
 *   split     a feature cube becomes one plane per channel;
 *   merge     planes become a feature cube.
 *
 * Split and merge move the data through a 2 KiB reorder buffer in chunks of
 * 64 elements of a line: a planar line is written in whole atoms, the
 * bytes past the line's last element zero; a merged atom's channels past
 * the last plane are zero. */
#include <stdlib.h>
#include <string.h>

#include "rubik.h"

#define RBK_CHUNK              64 /* elements per reorder-buffer pass (2 KiB / 32 B) */
#define RBK_CONTRACT_MAX_ATOMS 8192u
/* Bytes a layer may write: the writes are held until it completes. */
#define RBK_MAX_LAYER_BYTES (1ull << 30)

enum rbk_mode { RBK_CONTRACT = 0, RBK_SPLIT = 1, RBK_MERGE = 2 };

struct rbk_job {
    unsigned mode, bpe, cpa, atom;
    unsigned w, h, c_in, c_out, sx, sy;
    uint64_t src, src_line, src_surf, src_planar;
    uint64_t dst, dst_line, dst_surf, dst_planar, dst_super_line;
    enum dla_space src_space, dst_space;
};

/* ---------------------------------------------------------------- configuration */

static unsigned field1(const struct dla *d, int g, const char *reg, const char *field)
{
    return dla_field_plus1(d, DLA_U_RBK, g, reg, field);
}

static void read_job(struct dla *d, int g, struct rbk_job *j)
{
    memset(j, 0, sizeof *j);
    j->mode = dla_field(d, DLA_U_RBK, g, "D_MISC_CFG", "RUBIK_MODE");
    unsigned precision = dla_field(d, DLA_U_RBK, g, "D_MISC_CFG", "IN_PRECISION");
    j->atom = d->cfg->mem_atom;
    j->bpe = precision == 0 ? 1 : 2;
    j->cpa = j->atom / j->bpe;
    j->w = field1(d, g, "D_DATAIN_SIZE_0", "DATAIN_WIDTH");
    j->h = field1(d, g, "D_DATAIN_SIZE_0", "DATAIN_HEIGHT");
    j->c_in = field1(d, g, "D_DATAIN_SIZE_1", "DATAIN_CHANNEL");
    j->c_out = field1(d, g, "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL");
    j->sx = field1(d, g, "D_DECONV_STRIDE", "DECONV_X_STRIDE");
    j->sy = field1(d, g, "D_DECONV_STRIDE", "DECONV_Y_STRIDE");
    j->src = dla_reg_addr64(d, DLA_U_RBK, g, "D_DAIN_ADDR_HIGH", "D_DAIN_ADDR_LOW");
    j->src_line = dla_reg(d, DLA_U_RBK, g, "D_DAIN_LINE_STRIDE");
    j->src_surf = dla_reg(d, DLA_U_RBK, g, "D_DAIN_SURF_STRIDE");
    j->src_planar = dla_reg(d, DLA_U_RBK, g, "D_DAIN_PLANAR_STRIDE");
    j->dst = dla_reg_addr64(d, DLA_U_RBK, g, "D_DAOUT_ADDR_HIGH", "D_DAOUT_ADDR_LOW");
    j->dst_line = dla_reg(d, DLA_U_RBK, g, "D_DAOUT_LINE_STRIDE");
    j->dst_surf = dla_reg(d, DLA_U_RBK, g, "D_DAOUT_SURF_STRIDE");
    j->dst_planar = dla_reg(d, DLA_U_RBK, g, "D_DAOUT_PLANAR_STRIDE");
    j->dst_super_line = dla_reg(d, DLA_U_RBK, g, "D_CONTRACT_STRIDE_1");
    j->src_space = dla_ram_space(d, DLA_U_RBK,
                                 dla_field(d, DLA_U_RBK, g, "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE"));
    j->dst_space = dla_ram_space(
        d, DLA_U_RBK, dla_field(d, DLA_U_RBK, g, "D_DAOUT_RAM_TYPE", "DATAOUT_RAM_TYPE"));
    if (precision > 2)
        dla_rule(d, DLA_U_RBK, "rbk.precision", "IN_PRECISION %u is reserved", precision);
}

/* Guide limitations: planar addresses and strides 64-byte aligned, the
 * contracted width within 8192 atoms, matching channel counts. */
static bool check_job(struct dla *d, const struct rbk_job *j)
{
    if (j->mode > RBK_MERGE) {
        dla_rule(d, DLA_U_RBK, "rbk.mode", "RUBIK_MODE 3 is reserved");
        return false;
    }
    if (j->mode == RBK_CONTRACT && j->sx * j->w > RBK_CONTRACT_MAX_ATOMS)
        dla_rule(d, DLA_U_RBK, "rbk.contract_width",
                 "DECONV_X_STRIDE * DATAIN_WIDTH is %u, more than 8192", j->sx * j->w);
    bool planar_in = j->mode == RBK_MERGE, planar_out = j->mode == RBK_SPLIT;
    if ((planar_in && ((j->src | j->src_line | j->src_planar) & 63u)) ||
        (planar_out && ((j->dst | j->dst_line | j->dst_planar) & 63u)))
        dla_rule(d, DLA_U_RBK, "rbk.planar_align",
                 "planar address, line stride and planar stride must be 64-byte aligned");
    uint64_t surfaces = ((j->mode == RBK_CONTRACT ? j->c_out : j->c_in) + j->cpa - 1) / j->cpa;
    uint64_t bytes = (uint64_t)j->w * j->h * surfaces * j->atom;
    if (j->mode == RBK_CONTRACT)
        bytes *= (uint64_t)j->sx * j->sy;
    else if (j->mode == RBK_SPLIT)
        bytes *= 2; /* planar lines are padded to whole atoms */
    if (bytes > RBK_MAX_LAYER_BYTES) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_RBK, 0, NULL,
                 "RUBIK layer would write %llu bytes, too large to model",
                 (unsigned long long)bytes);
        return false;
    }
    if (j->mode != RBK_CONTRACT && j->c_in != j->c_out)
        dla_rule(d, DLA_U_RBK, "rbk.channels",
                 "split/merge: DATAIN_CHANNEL (%u) and DATAOUT_CHANNEL (%u) differ", j->c_in,
                 j->c_out);
    return true;
}

/* ---------------------------------------------------------------- contract */

static int contract(struct dla_exec *x, const struct rbk_job *j, uint8_t *line)
{
    unsigned s_out = (j->c_out + j->cpa - 1) / j->cpa;
    size_t in_bytes = (size_t)j->w * j->atom;
    uint8_t *in = line + (size_t)j->w * j->sx * j->atom;
    /* a surface's h x sy lines follow one another a line stride apart when
     * the super lines are packed too: held in one buffer sized at the first
     * (otherwise the stride 0 says they are not packed) */
    bool supers_packed = j->dst_super_line == (uint64_t)j->sy * j->dst_line;
    const struct exec_surfaces written = {.line_bytes = in_bytes * j->sx,
                                          .line_stride = supers_packed ? j->dst_line : 0,
                                          .surf_stride = j->dst_surf,
                                          .lines = (uint64_t)j->h * j->sy,
                                          .surfs = s_out};
    for (unsigned so = 0; so < s_out; so++) {
        exec_write_expect_surface(x, &written, so);
        for (unsigned h = 0; h < j->h; h++) {
            for (unsigned sy = 0; sy < j->sy; sy++) {
                for (unsigned sx = 0; sx < j->sx; sx++) {
                    uint64_t surf = (uint64_t)(sy * j->sx + sx) * s_out + so;
                    uint64_t addr = j->src + surf * j->src_surf + (uint64_t)h * j->src_line;
                    if (!exec_read(x, DLA_C_RBK_RDMA, j->src_space, addr, in, in_bytes))
                        return -1;
                    for (unsigned w = 0; w < j->w; w++)
                        memcpy(line + ((size_t)w * j->sx + sx) * j->atom, in + (size_t)w * j->atom,
                               j->atom);
                }
                uint64_t addr = j->dst + (uint64_t)h * j->dst_super_line +
                                (uint64_t)sy * j->dst_line + (uint64_t)so * j->dst_surf;
                if (!exec_write(x, DLA_C_RBK_WDMA, j->dst_space, addr, line, in_bytes * j->sx))
                    return -1;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- split and merge */

static unsigned planes_in_surface(unsigned channels, unsigned surf, unsigned cpa)
{
    unsigned left = channels - surf * cpa;
    return left < cpa ? left : cpa;
}

/* Bytes a planar transfer of n elements moves: whole atoms, at least one. */
static size_t planar_bytes(const struct rbk_job *j, unsigned n)
{
    size_t bytes = (size_t)n * j->bpe;
    if (bytes < j->atom)
        bytes = j->atom;
    return (bytes + j->atom - 1) / j->atom * j->atom;
}

static int split(struct dla_exec *x, const struct rbk_job *j)
{
    unsigned channels = j->c_in < j->c_out ? j->c_in : j->c_out;
    unsigned surfaces = (channels + j->cpa - 1) / j->cpa;
    uint8_t atoms[RBK_CHUNK * 32], plane[RBK_CHUNK * 2 + 32];
    for (unsigned s = 0; s < surfaces; s++) {
        unsigned planes = planes_in_surface(channels, s, j->cpa);
        for (unsigned h = 0; h < j->h; h++) {
            for (unsigned w0 = 0; w0 < j->w; w0 += RBK_CHUNK) {
                unsigned n = j->w - w0 < RBK_CHUNK ? j->w - w0 : RBK_CHUNK;
                uint64_t addr = j->src + (uint64_t)s * j->src_surf + (uint64_t)h * j->src_line +
                                (uint64_t)w0 * j->atom;
                if (!exec_read(x, DLA_C_RBK_RDMA, j->src_space, addr, atoms, (size_t)n * j->atom))
                    return -1;
                size_t bytes = planar_bytes(j, n);
                for (unsigned k = 0; k < planes; k++) {
                    memset(plane, 0, bytes);
                    for (unsigned e = 0; e < n; e++)
                        memcpy(plane + e * j->bpe, atoms + (size_t)e * j->atom + k * j->bpe,
                               j->bpe);
                    uint64_t to = j->dst + (uint64_t)h * j->dst_line +
                                  (uint64_t)(s * j->cpa + k) * j->dst_planar +
                                  (uint64_t)w0 * j->bpe;
                    if (!exec_write(x, DLA_C_RBK_WDMA, j->dst_space, to, plane, bytes))
                        return -1;
                }
            }
        }
    }
    return 0;
}

static int merge(struct dla_exec *x, const struct rbk_job *j)
{
    unsigned surfaces = (j->c_in + j->cpa - 1) / j->cpa;
    uint8_t atoms[RBK_CHUNK * 32], plane[RBK_CHUNK * 2 + 32];
    for (unsigned s = 0; s < surfaces; s++) {
        unsigned planes = planes_in_surface(j->c_in, s, j->cpa);
        for (unsigned h = 0; h < j->h; h++) {
            for (unsigned w0 = 0; w0 < j->w; w0 += RBK_CHUNK) {
                unsigned n = j->w - w0 < RBK_CHUNK ? j->w - w0 : RBK_CHUNK;
                memset(atoms, 0, (size_t)n * j->atom);
                for (unsigned k = 0; k < planes; k++) {
                    uint64_t from = j->src + (uint64_t)h * j->src_line +
                                    (uint64_t)(s * j->cpa + k) * j->src_planar +
                                    (uint64_t)w0 * j->bpe;
                    if (!exec_read(x, DLA_C_RBK_RDMA, j->src_space, from, plane,
                                   planar_bytes(j, n)))
                        return -1;
                    for (unsigned e = 0; e < n; e++)
                        memcpy(atoms + (size_t)e * j->atom + k * j->bpe, plane + e * j->bpe,
                               j->bpe);
                }
                uint64_t to = j->dst + (uint64_t)h * j->dst_line + (uint64_t)s * j->dst_surf +
                              (uint64_t)w0 * j->atom;
                if (!exec_write(x, DLA_C_RBK_WDMA, j->dst_space, to, atoms, (size_t)n * j->atom))
                    return -1;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- the unit */

static const char *mode_name(unsigned m)
{
    return m == RBK_CONTRACT ? "contract" : m == RBK_SPLIT ? "split" : "merge";
}

static int rubik_execute(struct dla *d, struct dla_exec *x, int group)
{
    struct rbk_job j;
    if (!d->cfg->rubik) {
        exec_desc(x, "rubik: absent in %s", d->cfg->name);
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_RBK, 0, NULL, "%s has no RUBIK",
                 d->cfg->name);
        return -1;
    }
    read_job(d, group, &j);
    if (!check_job(d, &j)) {
        exec_desc(x, "rubik: not computed (see diagnostics)");
        return -1;
    }
    exec_desc(x, "rubik %s %s %ux%ux%u -> %u channels s%ux%u", mode_name(j.mode),
              j.bpe == 1 ? "int8" : "16-bit", j.w, j.h, j.c_in, j.c_out, j.sx, j.sy);
    int rc;
    uint64_t bytes;
    if (j.mode == RBK_CONTRACT) {
        uint8_t *line = malloc((size_t)j.w * (j.sx + 1) * j.atom);
        if (!line)
            return -1;
        rc = contract(x, &j, line);
        free(line);
        bytes = (uint64_t)j.w * j.h * j.sx * j.sy * ((j.c_out + j.cpa - 1) / j.cpa) * j.atom;
    } else {
        rc = j.mode == RBK_SPLIT ? split(x, &j) : merge(x, &j);
        bytes = (uint64_t)j.w * j.h * ((j.c_in + j.cpa - 1) / j.cpa) * j.atom;
    }
    /* RUBIK moves one atom per cycle */
    exec_compute(x, bytes / j.atom, bytes / j.bpe);
    return rc;
}

static int rubik_run(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                     const struct dla_cube *in, struct dla_cube *out)
{
    (void)in;
    (void)out;
    return rubik_execute(d, x, st->group);
}

/* The programming-guide rules this unit checks: one row per id it passes to
 * dla_rule() (core/rules.c lists every entry's rows for "info rules"). */
static const struct dla_rule_info rubik_rules[] = {
    {"rbk.precision", DLA_U_RBK, "Rubik programming", "IN_PRECISION is INT8, INT16 or FP16"},
    {"rbk.mode", DLA_U_RBK, "Rubik programming", "RUBIK_MODE is contract, split or merge"},
    {"rbk.contract_width", DLA_U_RBK, "Rubik programming (limitations)",
     "contract: DECONV_X_STRIDE * DATAIN_WIDTH at most 8192"},
    {"rbk.planar_align", DLA_U_RBK, "Rubik programming (limitations)",
     "planar address, line stride and planar stride 64-byte aligned"},
    {"rbk.channels", DLA_U_RBK, "Rubik programming",
     "split and merge keep the channel count (DATAIN_CHANNEL = DATAOUT_CHANNEL)"},
};

static bool rubik_present(const struct dla_config *cfg)
{
    return cfg->rubik;
}

static const struct dla_perf_reg rubik_perf_regs[] = {
    {DLA_U_RBK, false, "D_PERF_ENABLE", "PERF_EN", "D_PERF_READ_STALL", "RBK.D_PERF_READ_STALL",
     DLA_PERF_STALL, DLA_C_RBK_RDMA},
    {DLA_U_RBK, false, "D_PERF_ENABLE", "PERF_EN", "D_PERF_WRITE_STALL", "RBK.D_PERF_WRITE_STALL",
     DLA_PERF_STALL, DLA_C_RBK_WDMA},
};

const struct dla_unit_entry rubik_unit = {
    .name = "RUBIK",
    .proc = DLA_P_RUBIK,
    .present = rubik_present,
    .n_ports = 1,
    .ports = {{DLA_U_RBK, NULL}},
    .main = DLA_U_RBK,
    .rdma = DLA_U_NONE,
    .execute = rubik_run,
    .perf_regs = rubik_perf_regs,
    .n_perf_regs = sizeof rubik_perf_regs / sizeof rubik_perf_regs[0],
    .feeds = DLA_P_NONE,
    .rules = rubik_rules,
    .n_rules = sizeof rubik_rules / sizeof rubik_rules[0],
};
