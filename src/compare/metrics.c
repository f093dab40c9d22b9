/* Layer-against-reference measures and tolerances (metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadable/loadable_tensors.h"
#include "tensor/tensor_read.h"

/* ---------------------------------------------------------------- tolerances */

void cmp_tolerance_default(struct cmp_tolerance *t)
{
    t->cos = t->lsb = t->rel = NAN;
}

static bool parse_value(const char *key, const char *text, size_t len, double lo, double hi,
                        double *v, char *err, size_t errlen)
{
    char num[64];
    char *end;
    if (len == 0 || len >= sizeof num) {
        snprintf(err, errlen, "expected a number after \"%s=\"", key);
        return false;
    }
    memcpy(num, text, len);
    num[len] = 0;
    *v = strtod(num, &end);
    if (*end || !isfinite(*v) || *v < lo || *v > hi) {
        snprintf(err, errlen, "%s=%s: expected a number from %g to %g", key, num, lo, hi);
        return false;
    }
    return true;
}

bool cmp_tolerance_parse(const char *spec, struct cmp_tolerance *t, char *err, size_t errlen)
{
    cmp_tolerance_default(t);
    if (!strcmp(spec, "default"))
        return true;
    const char *p = spec;
    if (!*p) {
        snprintf(err, errlen, "expected cos=C, lsb=N or rel=R (comma-separated) or \"default\"");
        return false;
    }
    while (*p) {
        size_t item = strcspn(p, ",");
        const char *eq = memchr(p, '=', item);
        size_t klen = eq ? (size_t)(eq - p) : item;
        double *slot = NULL, lo = 0, hi = 0;
        if (klen == 3 && !strncmp(p, "cos", 3)) {
            slot = &t->cos;
            lo = -1;
            hi = 1;
        } else if (klen == 3 && !strncmp(p, "lsb", 3)) {
            slot = &t->lsb;
            hi = 65536;
        } else if (klen == 3 && !strncmp(p, "rel", 3)) {
            slot = &t->rel;
            hi = 1e6;
        }
        if (!slot || !eq) {
            snprintf(err, errlen,
                     "\"%.*s\": expected cos=C (cosine similarity at least C), "
                     "lsb=N (int8: 99th percentile error at most N LSB) or rel=R "
                     "(fp16: error at most R times the reference's largest magnitude)",
                     (int)item, p);
            return false;
        }
        char key[4];
        snprintf(key, sizeof key, "%.3s", p);
        if (!parse_value(key, eq + 1, item - klen - 1, lo, hi, slot, err, errlen))
            return false;
        p += item;
        if (*p == ',' && !*++p) {
            snprintf(err, errlen, "expected another item after the last ','");
            return false;
        }
    }
    return true;
}

struct cmp_tolerance cmp_tolerance_for(const struct cmp_tolerance *t, enum cmp_mode mode)
{
    struct cmp_tolerance r = *t;
    if (isnan(r.cos))
        r.cos = mode == CMP_SCALED ? CMP_DEFAULT_COS_SCALED
                : mode == CMP_RAW  ? CMP_DEFAULT_COS_RAW
                                   : CMP_DEFAULT_COS_FLOAT;
    if (isnan(r.lsb))
        r.lsb = mode == CMP_RAW ? CMP_DEFAULT_LSB_RAW : CMP_DEFAULT_LSB_SCALED;
    if (isnan(r.rel))
        r.rel = CMP_DEFAULT_REL_FLOAT;
    return r;
}

void cmp_tolerance_format(const struct cmp_tolerance *t, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    const double v[3] = {t->cos, t->lsb, t->rel};
    static const char *const names[3] = {"cos", "lsb", "rel"};
    for (int i = 0; i < 3; i++)
        if (!isnan(v[i]) && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%g", n ? "," : "", names[i], v[i]);
    if (!buf[0])
        snprintf(buf, len, "default");
}

/* ---------------------------------------------------------------- elements */

bool cmp_elem_is_integer(uint8_t elem)
{
    return elem != TENSOR_FP16;
}

void cmp_elem_range(uint8_t elem, double *lo, double *hi)
{
    switch (elem) {
    case TENSOR_UINT8:
        *lo = 0;
        *hi = 255;
        break;
    case TENSOR_INT16:
        *lo = -32768;
        *hi = 32767;
        break;
    case TENSOR_FP16:
        *lo = -65504;
        *hi = 65504;
        break;
    default:
        *lo = -128;
        *hi = 127;
        break;
    }
}

double cmp_got_value(const struct cmp_got *g, uint64_t i)
{
    return tensor_elem_value(g->elem, g->data, i);
}

static uint64_t got_count(const struct cmp_got *g)
{
    return (uint64_t)g->n * g->c * g->h * g->w;
}

double cmp_cosine(const struct cmp_got *g, const struct npy_array *ref)
{
    uint64_t n = got_count(g);
    if (n != ref->count)
        return -2;
    double dot = 0, gg = 0, ee = 0;
    for (uint64_t i = 0; i < n; i++) {
        double a = cmp_got_value(g, i), b = npy_get(ref, i);
        if (!isfinite(a) || !isfinite(b))
            continue;
        dot += a * b;
        gg += a * a;
        ee += b * b;
    }
    if (gg == 0 && ee == 0)
        return 1;
    if (gg == 0 || ee == 0)
        return 0;
    return dot / sqrt(gg * ee);
}

double cmp_fit_scale(const struct cmp_got *g, const struct npy_array *ref)
{
    uint64_t n = got_count(g);
    double lo, hi, num = 0, den = 0;
    cmp_elem_range(g->elem, &lo, &hi);
    for (uint64_t i = 0; i < n && i < ref->count; i++) {
        double a = cmp_got_value(g, i), b = npy_get(ref, i);
        if (a <= lo || a >= hi || !isfinite(b))
            continue;
        num += a * b;
        den += a * a;
    }
    return den > 0 ? num / den : 0;
}

/* ---------------------------------------------------------------- measuring */

/* Errors in LSB go to bins of 1/16 LSB up to 256 LSB, the rest to the last
 * bin: the 99th percentile to 1/16 LSB without sorting a copy of the layer. */
#define LSB_BINS_PER 16
#define LSB_BINS     (256 * LSB_BINS_PER + 1)

struct pass {
    const struct cmp_got *g;
    const struct npy_array *ref;
    enum cmp_mode mode;
    double scale, lo, hi;
};

/* Element i as compared: got and expected in real units (LSB for raw), the
 * error in LSB for the integer kinds; *saturated when the reference lies
 * beyond the type's range. */
static void element(const struct pass *p, uint64_t i, double *got, double *exp, double *err_lsb,
                    bool *saturated)
{
    double a = cmp_got_value(p->g, i), b = npy_get(p->ref, i);
    *saturated = false;
    *err_lsb = NAN;
    if (p->mode == CMP_SCALED) {
        double q = b / p->scale;
        /* half an LSB beyond the range is still rounding, not saturation */
        *saturated = q > p->hi + 0.5 || q < p->lo - 0.5;
        q = q > p->hi ? p->hi : q < p->lo ? p->lo : q;
        *err_lsb = fabs(a - q);
        *got = a * p->scale;
        *exp = q * p->scale;
        return;
    }
    *got = a;
    *exp = b;
    if (p->mode == CMP_RAW)
        *err_lsb = fabs(a - b);
}

void cmp_element_at(const struct cmp_got *g, const struct npy_array *ref, enum cmp_mode mode,
                    double scale, uint64_t i, struct cmp_element *e)
{
    struct pass p = {.g = g, .ref = ref, .mode = mode, .scale = scale};
    cmp_elem_range(g->elem, &p.lo, &p.hi);
    element(&p, i, &e->got, &e->expected, &e->err_lsb, &e->saturated);
}

static bool beyond(enum cmp_mode mode, double got, double exp, double err_lsb, double tol_lsb,
                   double tol_abs)
{
    if (!isfinite(got) != !isfinite(exp) || (isnan(got) && isnan(exp)))
        return true;
    return mode == CMP_FLOAT ? fabs(got - exp) > tol_abs : err_lsb > tol_lsb;
}

bool cmp_element_beyond(const struct cmp_element *e, enum cmp_mode mode,
                        const struct cmp_tolerance *t, double ref_max)
{
    struct cmp_tolerance d = cmp_tolerance_for(t, mode);
    return beyond(mode, e->got, e->expected, e->err_lsb, d.lsb, d.rel * ref_max);
}

static double percentile(const uint64_t *bins, uint64_t count, double frac, double max)
{
    uint64_t want = (uint64_t)ceil(frac * (double)count), seen = 0;
    for (int k = 0; k < LSB_BINS; k++) {
        seen += bins[k];
        if (seen >= want && want)
            return k == LSB_BINS - 1 ? max : fmin((double)(k + 1) / LSB_BINS_PER, max);
    }
    return max;
}

/* The element the report shows: the first beyond the element tolerance,
 * else the one of the largest error. */
static void locate(const struct pass *p, struct cmp_metrics *m, double tol_lsb, double tol_abs)
{
    uint64_t n = m->count, worst = 0;
    double worst_err = -1;
    for (uint64_t i = 0; i < n; i++) {
        double got, exp, lsb;
        bool sat;
        element(p, i, &got, &exp, &lsb, &sat);
        double err = fabs(got - exp);
        if (beyond(p->mode, got, exp, lsb, tol_lsb, tol_abs)) {
            worst = i;
            break;
        }
        if (err > worst_err) {
            worst_err = err;
            worst = i;
        }
    }
    double got, exp, lsb;
    bool sat;
    element(p, worst, &got, &exp, &lsb, &sat);
    uint64_t hw = (uint64_t)p->g->h * p->g->w;
    m->at[0] = (uint32_t)(worst / ((uint64_t)p->g->c * hw));
    m->at[1] = (uint32_t)(worst / hw % p->g->c);
    m->at[2] = (uint32_t)(worst / p->g->w % p->g->h);
    m->at[3] = (uint32_t)(worst % p->g->w);
    m->at_got = got;
    m->at_expected = exp;
}

static void judge(struct cmp_metrics *m, const struct cmp_tolerance *t)
{
    m->departed = false;
    m->why[0] = 0;
    if (m->nonfinite) {
        m->departed = true;
        snprintf(m->why, sizeof m->why, "%llu NaN or infinite value%s",
                 (unsigned long long)m->nonfinite, m->nonfinite == 1 ? "" : "s");
    } else if (m->mode == CMP_FLOAT && m->max_abs > t->rel * m->ref_max) {
        m->departed = true;
        snprintf(m->why, sizeof m->why, "max error %.4g > %g x max |expected| %.4g", m->max_abs,
                 t->rel, m->ref_max);
    } else if (m->mode != CMP_FLOAT && m->lsb_p99 > t->lsb) {
        m->departed = true;
        snprintf(m->why, sizeof m->why, "99th percentile error %.2f LSB > %g", m->lsb_p99, t->lsb);
    } else if (m->cos_checked && m->cosine < t->cos) {
        m->departed = true;
        snprintf(m->why, sizeof m->why, "cosine %.4f < %g", m->cosine, t->cos);
    }
}

bool cmp_measure(const struct cmp_got *g, const struct npy_array *ref, enum cmp_mode mode,
                 double scale, const struct cmp_tolerance *tol, struct cmp_metrics *m)
{
    memset(m, 0, sizeof *m);
    struct pass p = {.g = g, .ref = ref, .mode = mode, .scale = scale};
    cmp_elem_range(g->elem, &p.lo, &p.hi);
    m->mode = mode;
    m->scale = mode == CMP_SCALED ? scale : 0;
    m->count = got_count(g) < ref->count ? got_count(g) : ref->count;
    uint64_t *bins = mode != CMP_FLOAT ? calloc(LSB_BINS, sizeof *bins) : NULL;
    if (mode != CMP_FLOAT && !bins)
        return false;
    double dot = 0, gg = 0, ee = 0, noise = 0, sum = 0, lsb_ref_max = 0;
    for (uint64_t i = 0; i < m->count; i++) {
        double got, exp, lsb;
        bool sat;
        element(&p, i, &got, &exp, &lsb, &sat);
        if (!isfinite(got) || !isfinite(exp)) {
            m->nonfinite += !(isinf(got) && got == exp);
            continue;
        }
        m->saturated += sat;
        double err = fabs(got - exp);
        sum += err;
        m->max_abs = fmax(m->max_abs, err);
        m->ref_max = fmax(m->ref_max, fabs(exp));
        dot += got * exp;
        gg += got * got;
        ee += exp * exp;
        noise += err * err;
        if (bins) {
            int k = lsb * LSB_BINS_PER >= LSB_BINS - 1 ? LSB_BINS - 1 : (int)(lsb * LSB_BINS_PER);
            bins[k]++;
            m->lsb_max = fmax(m->lsb_max, lsb);
            lsb_ref_max = fmax(lsb_ref_max, mode == CMP_SCALED ? fabs(exp / scale) : fabs(exp));
        }
    }
    m->mean_abs = m->count ? sum / (double)m->count : 0;
    m->cosine = gg == 0 && ee == 0 ? 1 : gg == 0 || ee == 0 ? 0 : dot / sqrt(gg * ee);
    m->sqnr_db = noise == 0 ? INFINITY : ee == 0 ? -INFINITY : 10 * log10(ee / noise);
    m->lsb_p99 = bins ? percentile(bins, m->count - m->nonfinite, 0.99, m->lsb_max) : NAN;
    if (!bins)
        m->lsb_max = NAN;
    /* below a few LSB quantization alone decides the angle */
    m->cos_checked = mode == CMP_FLOAT ? m->ref_max > 0 : lsb_ref_max >= 4;
    free(bins);
    struct cmp_tolerance t = cmp_tolerance_for(tol, mode);
    judge(m, &t);
    locate(&p, m, t.lsb, t.rel * m->ref_max);
    return true;
}
