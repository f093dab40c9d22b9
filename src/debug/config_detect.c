/* Which configuration a loadable or trace was made for (see config_detect.h). */
#include "config_detect.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadable/fw_desc.h"
#include "loadable/loadable.h"
#include "core/regdb.h"
#include "trace/txn_prog.h"

#define MAX_CASES 256 /* evidence kept per kind: plenty to tell configurations apart */

/* A direct convolution's input and the entries per slice its compiler chose. */
struct eps_case {
    uint32_t w, c, bpe, eps;
};

/* A memory feature surface: width, line and surface stride in bytes. */
struct surf_case {
    uint32_t w, line, surf;
};

struct needs {
    unsigned dtypes;    /* enum dla_dtype_bits of the precisions used */
    unsigned max_banks; /* most CBUF banks (data + weight) one convolution takes */
    bool winograd, compressed, batch, bdma, rubik, cvsram, sdp_ew, sdp_lut;
    size_t n_eps, n_surf;
    struct eps_case eps[MAX_CASES];
    struct surf_case surf[MAX_CASES];
    unsigned x8_tensors, x32_tensors; /* runtime tensors in FEATURE_X8 / FEATURE format */
    unsigned ops;
    /* register traces: addresses that are no register of the v1 / v2 map */
    bool have_map_evidence;
    unsigned v1_misses, v2_misses;
    uint32_t v1_miss_at, v2_miss_at;
};

/* ---------------------------------------------------------------- reading a loadable */

struct task_view {
    const struct loadable *l;
    const struct ld_task *t;
};

/* The bytes behind address-list index i of the task: a pointer into the blob
 * that fills that part of its memory and how many follow.  false when
 * nothing fills it. */
static bool task_bytes(const struct task_view *v, int32_t i, const uint8_t **p, uint64_t *len)
{
    if (i < 0 || (uint32_t)i >= v->t->n_addresses)
        return false;
    int ai = loadable_address_index(v->l, v->t->addresses[i]);
    if (ai < 0)
        return false;
    const struct ld_address *a = &v->l->addresses[ai];
    const struct ld_memory *m = &v->l->memories[a->mem];
    for (uint32_t j = 0; j < m->n_contents; j++) {
        const struct ld_blob *b = &v->l->blobs[m->content_blob[j]];
        if (a->offset >= m->offsets[j] && a->offset - m->offsets[j] < b->data_len) {
            uint64_t at = a->offset - m->offsets[j];
            *p = b->data + at;
            *len = b->data_len - at;
            return true;
        }
    }
    return false;
}

/* The blob behind address-list index 0 (the network descriptor), or NULL. */
static const struct ld_blob *network_blob(const struct task_view *v)
{
    int ai = v->t->n_addresses ? loadable_address_index(v->l, v->t->addresses[0]) : -1;
    if (ai < 0)
        return NULL;
    const struct ld_memory *m = &v->l->memories[v->l->addresses[ai].mem];
    return m->n_contents ? &v->l->blobs[m->content_blob[0]] : NULL;
}

struct op_lists {
    const uint8_t *ops, *surfs, *deps;
    uint32_t n;
};

/* Decode operation i in layout l; false when it cannot be. */
static bool decode_op(const struct op_lists *o, enum fw_layout l, uint32_t i, struct fw_op *op)
{
    struct fw_common_op dep;
    fw_decode_common_op(o->deps + (size_t)FW_COMMON_OP_SIZE * i, &dep);
    return fw_decode_op(l, dep.op_type, o->ops + (size_t)FW_OP_SIZE * i,
                        o->surfs + (size_t)FW_SURFACE_SIZE * i, op);
}

/* The layout the engine reads the task in (engine.c pick_layout): the blob's
 * version and sub-interface tag tell it; an unnumbered blob is current. */
static enum fw_layout task_layout(const struct task_view *v)
{
    const struct ld_blob *b = network_blob(v);
    if (b && (b->version.major || b->version.minor || b->version.sub_minor))
        return fw_layout_for_blob(b->version.major, b->version.minor, b->sub_interface);
    return FW_LAYOUT_CURRENT;
}

/* ---------------------------------------------------------------- evidence */

static void use_precision(struct needs *n, unsigned prec)
{
    if (prec <= FW_PREC_FP16)
        n->dtypes |= 1u << prec;
}

static void add_surface(struct needs *n, const struct fw_cube *c)
{
    if (c->type == FW_MEM_CV)
        n->cvsram = true;
    if (c->type == FW_MEM_HW || c->address < 0 || c->width == 0 || n->n_surf == MAX_CASES)
        return;
    n->surf[n->n_surf++] = (struct surf_case){c->width, c->line_stride, c->surf_stride};
}

static void conv_evidence(struct needs *n, const struct fw_op *op)
{
    const struct fw_conv_op *o = &op->u.conv.op;
    const struct fw_conv_surface *s = &op->u.conv.surface;
    use_precision(n, o->in_precision);
    use_precision(n, o->out_precision);
    if ((unsigned)o->data_bank + o->weight_bank > n->max_banks)
        n->max_banks = (unsigned)o->data_bank + o->weight_bank;
    n->winograd |= o->conv_mode == 1;
    n->compressed |= o->weight_format == 1;
    n->batch |= o->batch > 1;
    if (s->weight.type == FW_MEM_CV)
        n->cvsram = true;
    bool feature = o->data_format == 36 || o->data_format == 37; /* FEATURE, FEATURE_X8 */
    if (!feature)
        return; /* image input: pitch-linear lines, not atoms */
    add_surface(n, &s->src);
    add_surface(n, &s->dst);
    if (o->conv_mode == 0 && s->src.type != FW_MEM_HW && s->src.width && n->n_eps < MAX_CASES)
        n->eps[n->n_eps++] =
            (struct eps_case){s->src.width, s->src.channel,
                              o->in_precision == FW_PREC_INT8 ? 1u : 2u, o->entry_per_slice};
}

static void sdp_evidence(struct needs *n, const struct fw_op *op)
{
    const struct fw_sdp_op *o = &op->u.sdp.op;
    use_precision(n, o->src_precision);
    use_precision(n, o->dst_precision);
    n->sdp_ew |= o->y.enable != 0;
    n->sdp_lut |= o->lut_index >= 0 || (o->y.enable && o->y.act == FW_ACT_LUT);
    add_surface(n, &op->u.sdp.surface.src);
    add_surface(n, &op->u.sdp.surface.dst);
}

static void op_evidence(struct needs *n, const struct fw_op *op)
{
    n->ops++;
    switch (op->type) {
    case FW_OP_BDMA:
        n->bdma = true;
        break;
    case FW_OP_CONV:
        conv_evidence(n, op);
        break;
    case FW_OP_SDP:
        sdp_evidence(n, op);
        break;
    case FW_OP_PDP:
        use_precision(n, op->u.pdp.op.precision);
        add_surface(n, &op->u.pdp.surface.src);
        add_surface(n, &op->u.pdp.surface.dst);
        break;
    case FW_OP_CDP:
        use_precision(n, op->u.cdp.op.in_precision);
        use_precision(n, op->u.cdp.op.out_precision);
        add_surface(n, &op->u.cdp.surface.src);
        add_surface(n, &op->u.cdp.surface.dst);
        break;
    case FW_OP_RUBIK:
        n->rubik = true;
        break;
    default:
        break;
    }
}

static void task_evidence(struct needs *n, const struct loadable *l, const struct ld_task *t)
{
    struct task_view v = {l, t};
    const uint8_t *p;
    uint64_t len;
    struct fw_network net;
    if (!task_bytes(&v, 0, &p, &len) || len < FW_NETWORK_SIZE)
        return;
    fw_decode_network(p, &net);
    struct op_lists o = {.n = net.num_operations};
    uint64_t ol, sl, dl;
    if (!task_bytes(&v, net.operation_desc_index, &o.ops, &ol) ||
        !task_bytes(&v, net.surface_desc_index, &o.surfs, &sl) ||
        !task_bytes(&v, net.dependency_graph_index, &o.deps, &dl) ||
        ol < (uint64_t)o.n * FW_OP_SIZE || sl < (uint64_t)o.n * FW_SURFACE_SIZE ||
        dl < (uint64_t)o.n * FW_COMMON_OP_SIZE)
        return; /* the engine reports broken descriptors when it runs them */
    enum fw_layout layout = task_layout(&v);
    struct fw_op op;
    for (uint32_t i = 0; i < o.n; i++)
        if (decode_op(&o, layout, i, &op))
            op_evidence(n, &op);
}

static void tensor_evidence(struct needs *n, const struct loadable *l)
{
    for (uint32_t i = 0; i < l->n_tensors; i++) {
        if (l->tensors[i].pixel_format == 37)
            n->x8_tensors++;
        else if (l->tensors[i].pixel_format == 36)
            n->x32_tensors++;
    }
}

/* ---------------------------------------------------------------- judging */

static void violate(struct cfg_fit *f, const char *fmt, ...)
{
    if (f->violations++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->why_not, sizeof f->why_not, fmt, ap);
        va_end(ap);
    }
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

/* The entries per slice NVIDIA's compiler computes for a direct convolution
 * on c: the input's channel atoms grouped by entry (entry / atom of them fill
 * one entry per pixel), a partial group taking its share of the width. */
static uint32_t expected_eps(const struct eps_case *e, const struct dla_config *c)
{
    uint32_t per_entry = c->cbuf_entry_bytes >= c->mem_atom ? c->cbuf_entry_bytes / c->mem_atom : 1;
    uint32_t atoms = ceil_div(e->c * e->bpe, c->mem_atom);
    uint32_t last = atoms % per_entry;
    uint32_t whole = atoms / per_entry * e->w;
    /* the compiler gives three atoms of four a whole entry per pixel */
    uint32_t part = last == 3 ? e->w : ceil_div(last * e->w, per_entry);
    return whole + part;
}

static void judge_features(const struct needs *n, const struct dla_config *c, struct cfg_fit *f)
{
    for (unsigned p = 0; p <= FW_PREC_FP16; p++)
        if ((n->dtypes >> p & 1u) && !dla_config_has_precision(c, p))
            violate(f, "it has no %s", dla_precision_name(p));
    if (n->max_banks > c->cbuf_banks)
        violate(f, "a convolution takes %u CBUF banks, it has %u", n->max_banks, c->cbuf_banks);
    static const struct {
        size_t need, have;
        const char *what;
    } features[] = {
        {offsetof(struct needs, winograd), offsetof(struct dla_config, winograd), "Winograd"},
        {offsetof(struct needs, compressed), offsetof(struct dla_config, weight_compression),
         "weight compression"},
        {offsetof(struct needs, batch), offsetof(struct dla_config, batch), "batches"},
        {offsetof(struct needs, bdma), offsetof(struct dla_config, bdma), "BDMA"},
        {offsetof(struct needs, rubik), offsetof(struct dla_config, rubik), "Rubik"},
        {offsetof(struct needs, cvsram), offsetof(struct dla_config, cvsram), "CV-SRAM"},
        {offsetof(struct needs, sdp_ew), offsetof(struct dla_config, sdp_ew), "SDP's EW stage"},
        {offsetof(struct needs, sdp_lut), offsetof(struct dla_config, sdp_lut), "SDP's LUT"},
    };
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (*(const bool *)((const char *)n + features[i].need) &&
            !*(const bool *)((const char *)c + features[i].have))
            violate(f, "it has no %s", features[i].what);
}

static void judge(const struct needs *n, const struct dla_config *c, struct cfg_fit *f)
{
    memset(f, 0, sizeof *f);
    f->cfg = c;
    judge_features(n, c, f);
    for (size_t i = 0; i < n->n_eps; i++) {
        uint32_t want = expected_eps(&n->eps[i], c);
        if (n->eps[i].eps != want)
            violate(f,
                    "entries per slice %u for a %u-wide, %u-channel input; its %u-byte CBUF "
                    "entries give %u",
                    n->eps[i].eps, n->eps[i].w, n->eps[i].c, c->cbuf_entry_bytes, want);
    }
    for (size_t i = 0; i < n->n_surf; i++) {
        const struct surf_case *s = &n->surf[i];
        if (s->line % c->mem_atom || s->surf % c->mem_atom)
            violate(f, "line stride %u / surface stride %u are not multiples of its %u-byte atom",
                    s->line, s->surf, c->mem_atom);
        else if (s->line < s->w * c->mem_atom) /* a line is width atoms: they would overlap */
            violate(f, "line stride %u is shorter than %u of its %u-byte atoms", s->line, s->w,
                    c->mem_atom);
        else if (s->w && s->line == s->w * c->mem_atom)
            f->agree++;
    }
    f->agree += c->mem_atom == 8 ? n->x8_tensors : c->mem_atom == 32 ? n->x32_tensors : 0;
    const char *map = strcmp(c->regmap, "nv_full") == 0 ? "v1" : "v2";
    unsigned misses = strcmp(map, "v1") == 0 ? n->v1_misses : n->v2_misses;
    if (n->have_map_evidence && misses)
        violate(f, "%u of the registers it uses are not in its %s map (first 0x%05x)", misses, map,
                strcmp(map, "v1") == 0 ? n->v1_miss_at : n->v2_miss_at);
}

/* NVIDIA's compiler targets (umd TargetConfig: opendla-full, -small, -large)
 * come first when the evidence ties. */
static int preference(const struct dla_config *c)
{
    static const char *const targets[] = {"nv_full", "nv_small", "nv_large"};
    for (int i = 0; i < 3; i++)
        if (strcmp(c->name, targets[i]) == 0)
            return i;
    return 3;
}

static int by_likelihood(const void *a, const void *b)
{
    const struct cfg_fit *x = a, *y = b;
    if (x->violations != y->violations)
        return x->violations < y->violations ? -1 : 1;
    if (x->agree != y->agree)
        return x->agree > y->agree ? -1 : 1;
    int px = preference(x->cfg), py = preference(y->cfg);
    if (px != py)
        return px - py;
    return x->cfg < y->cfg ? -1 : x->cfg > y->cfg;
}

/* The most common atom the surfaces imply (line stride / width), or 0. */
static unsigned implied_atom(const struct needs *n)
{
    static const unsigned atoms[] = {8, 16, 32};
    unsigned best = 0, best_count = 0;
    for (size_t a = 0; a < 3; a++) {
        unsigned count = 0;
        for (size_t i = 0; i < n->n_surf; i++)
            count += n->surf[i].line == n->surf[i].w * atoms[a];
        if (count > best_count)
            best = atoms[a], best_count = count;
    }
    return best;
}

static void describe(const struct needs *n, struct cfg_detection *d)
{
    const struct dla_config *best = d->fits[0].cfg;
    char *p = d->facts;
    size_t left = sizeof d->facts;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        int k = snprintf(p, left, "%s", p == d->facts ? "" : ", ");                                \
        k += snprintf(p + k, left > (size_t)k ? left - (size_t)k : 0, __VA_ARGS__);                \
        if ((size_t)k < left)                                                                      \
            p += k, left -= (size_t)k;                                                             \
    } while (0)
    if (n->have_map_evidence)
        ADD("registers of the %s map", n->v1_misses < n->v2_misses ? "v1 (nv_full)" : "v2");
    unsigned atom = implied_atom(n);
    if (atom)
        ADD("atom %u bytes", atom);
    if (n->n_eps && d->fits[0].violations == 0)
        ADD("%u-byte CBUF entries", best->cbuf_entry_bytes);
    if (n->max_banks)
        ADD("convolutions take up to %u of %u CBUF banks", n->max_banks, best->cbuf_banks);
    for (unsigned prec = 0; prec <= FW_PREC_FP16; prec++)
        if (n->dtypes >> prec & 1u)
            ADD("%s", dla_precision_name(prec));
    const bool used[] = {n->winograd, n->compressed, n->batch,  n->bdma,
                         n->rubik,    n->cvsram,     n->sdp_ew, n->sdp_lut};
    static const char *const names[] = {
        "Winograd", "compressed weights", "batches", "BDMA", "Rubik", "CV-SRAM", "SDP EW",
        "SDP LUT"};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i])
            ADD("%s", names[i]);
#undef ADD
}

static void conclude(const struct needs *n, struct cfg_detection *d)
{
    size_t count;
    const struct dla_config *all = dla_config_all(&count);
    memset(d, 0, sizeof *d);
    d->evidence = n->ops > 0 || n->have_map_evidence || n->x8_tensors || n->x32_tensors;
    for (size_t i = 0; i < count && i < CFG_DETECT_MAX; i++)
        judge(n, &all[i], &d->fits[d->n++]);
    qsort(d->fits, d->n, sizeof d->fits[0], by_likelihood);
    describe(n, d);
}

void config_detect_loadable(const struct loadable *l, struct cfg_detection *out)
{
    struct needs *n = calloc(1, sizeof *n);
    if (!n) {
        memset(out, 0, sizeof *out);
        return;
    }
    for (uint32_t i = 0; i < l->n_tasks; i++)
        if (l->tasks[i].interface == LD_IF_DLA1)
            task_evidence(n, l, &l->tasks[i]);
    tensor_evidence(n, l);
    conclude(n, out);
    free(n);
}

/* ---------------------------------------------------------------- traces */

/* One register access of a trace's command: false when the command is none
 * (value: what a write wrote). */
static bool txn_access(const struct txn_cmd *c, bool *write, uint32_t *addr, uint32_t *value)
{
    if (c->op != TXN_WRITE && c->op != TXN_READ && c->op != TXN_UNTIL)
        return false;
    *write = c->op == TXN_WRITE;
    *addr = c->addr;
    *value = c->value;
    return true;
}

/* Which maps have a register at each CSB word a trace uses: a trace of a
 * million layers uses a few dozen addresses fourteen million times. */
#define MAP_KNOWN 1u
#define MAP_V1    2u
#define MAP_V2    4u

static void txn_map_cmd(struct needs *n, uint8_t *maps, const struct txn_cmd *c)
{
    bool write;
    uint32_t addr, value;
    if (!txn_access(c, &write, &addr, &value))
        return;
    uint8_t *m = &maps[(addr >> 2) & 0xffffu];
    const struct regdb_unit *u;
    if (!*m)
        *m = (uint8_t)(MAP_KNOWN | (regdb_reg_at(regdb_map("nv_full"), addr, &u) ? MAP_V1 : 0) |
                       (regdb_reg_at(regdb_map("nv_small"), addr, &u) ? MAP_V2 : 0));
    if (!(*m & MAP_V1) && n->v1_misses++ == 0)
        n->v1_miss_at = addr;
    if (!(*m & MAP_V2) && n->v2_misses++ == 0)
        n->v2_miss_at = addr;
}

static bool name_ends(const char *name, const char *end)
{
    size_t a = strlen(name), b = strlen(end);
    return a >= b && strcmp(name + a - b, end) == 0;
}

/* Within the v2 map the values written tell more: the CBUF banks a
 * convolution takes (CDMA.D_BANK) and the alignment of the data processors'
 * addresses and strides (their memory atom; CDMA's are left out, as an
 * image's pitch-linear lines need not be whole atoms). */
static void txn_v2_cmd(struct needs *n, const struct txn_cmd *c)
{
    bool write;
    uint32_t addr, value;
    const struct regdb_unit *u;
    if (!txn_access(c, &write, &addr, &value) || !write)
        return;
    const struct regdb_reg *r = regdb_reg_at(regdb_map("nv_small"), addr, &u);
    if (!r)
        return;
    if (strcmp(u->name, "CDMA") == 0 && strcmp(r->name, "D_BANK") == 0) {
        unsigned banks = regdb_field_get(regdb_field_named(r, "DATA_BANK"), value) + 1u +
                         regdb_field_get(regdb_field_named(r, "WEIGHT_BANK"), value) + 1u;
        if (banks > n->max_banks)
            n->max_banks = banks;
        n->ops++;
        return;
    }
    bool processor =
        !strncmp(u->name, "SDP", 3) || !strncmp(u->name, "PDP", 3) || !strncmp(u->name, "CDP", 3);
    bool placed = name_ends(r->name, "BASE_ADDR_LOW") || name_ends(r->name, "LINE_STRIDE") ||
                  name_ends(r->name, "SURFACE_STRIDE");
    if (processor && placed && value && n->n_surf < MAX_CASES)
        n->surf[n->n_surf++] = (struct surf_case){0, value, value}; /* alignment only */
}

void config_detect_txn_prog(const struct txn_prog *p, struct cfg_detection *out)
{
    struct needs *n = calloc(1, sizeof *n);
    uint8_t *maps = calloc(1u << 16, 1);
    if (!n || !maps) {
        memset(out, 0, sizeof *out);
        free(n);
        free(maps);
        return;
    }
    size_t count = txn_prog_count(p);
    struct txn_cmd c;
    for (size_t i = 0; i < count; i++) {
        txn_prog_get(p, i, &c);
        txn_map_cmd(n, maps, &c);
    }
    free(maps);
    /* a map tells only when the other one misses more of the addresses */
    n->have_map_evidence = n->v1_misses != n->v2_misses;
    for (size_t i = 0; n->v2_misses < n->v1_misses && i < count; i++) {
        txn_prog_get(p, i, &c);
        txn_v2_cmd(n, &c);
    }
    conclude(n, out);
    free(n);
}

bool config_detect_txn(const char *path, struct cfg_detection *out, char *err, size_t errlen)
{
    struct txn_prog *p = txn_prog_parse(path, err, errlen);
    if (!p)
        return false;
    config_detect_txn_prog(p, out);
    txn_prog_free(p);
    return true;
}

/* ---------------------------------------------------------------- verdicts */

const struct cfg_fit *config_detection_fit(const struct cfg_detection *d,
                                           const struct dla_config *c)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->fits[i].cfg == c)
            return &d->fits[i];
    return NULL;
}

void config_detection_line(const struct cfg_detection *d, const char *what, const char *verb,
                           char *buf, size_t len)
{
    if (!d->n || !d->evidence) {
        snprintf(buf, len, "%s: nothing in it tells its configuration", what);
        return;
    }
    const struct cfg_fit *best = &d->fits[0];
    if (best->violations) {
        snprintf(buf, len, "%s: fits no configuration; closest %s (%s)", what, best->cfg->name,
                 best->why_not);
        return;
    }
    int k = snprintf(buf, len, "%s: %s %s (%s)", what, verb, best->cfg->name, d->facts);
    size_t others = 0;
    for (size_t i = 1; i < d->n && d->fits[i].violations == 0; i++) {
        if (k < 0 || (size_t)k >= len)
            return;
        k += snprintf(buf + k, len - (size_t)k, "%s%s", others++ ? ", " : "; also fits ",
                      d->fits[i].cfg->name);
    }
}
