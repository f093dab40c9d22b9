/* How far a layer's output (got: the raw elements the hardware wrote) is
 * from its reference (expected: a blob's values), and whether that is
 * within tolerance.
 *
 * Three kinds of comparison, by what the two sides hold:
 *   CMP_FLOAT   got is fp16 (or the reference is float and got is not a
 *               quantized integer): both in real units; the tolerance is
 *               relative to the reference's largest magnitude (rel)
 *   CMP_SCALED  got is an integer type (int8...), the reference float:
 *               got * scale against the reference, with the reference first
 *               saturated to the type's range (the hardware saturates
 *               there too); errors are also measured in LSB (units of
 *               scale), the 99th percentile against lsb
 *   CMP_RAW     both hold raw integers (a "dump tensors" reference of an
 *               int8 run): errors in LSB directly
 * Every kind also checks the cosine similarity against cos, where it means
 * something: not for a reference below a few LSB or all zero, where
 * quantization alone decides the angle. */
#ifndef DLADBG_METRICS_H
#define DLADBG_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensor/npy.h"

enum cmp_mode { CMP_FLOAT, CMP_SCALED, CMP_RAW };

/* Tolerances; NAN is "the default of the comparison's kind". */
struct cmp_tolerance {
    double cos; /* cosine similarity at least */
    double lsb; /* integer layers: 99th percentile of |error| in LSB at most */
    double rel; /* float layers: max |error| at most rel * max |reference| */
};

/* The defaults (documented in "help compare"):
 *   int8 vs float  cos 0.9, lsb 24 (ordinary drift of a deep int8 network:
 *                  up to ~20 LSB at the 99th percentile, cosine down to ~0.96)
 *   fp16 vs float  cos 0.99, rel 0.01
 *   raw vs raw     cos 0.99, lsb 2 (another run of the same network) */
#define CMP_DEFAULT_COS_SCALED 0.9
#define CMP_DEFAULT_LSB_SCALED 24.0
#define CMP_DEFAULT_COS_FLOAT  0.99
#define CMP_DEFAULT_REL_FLOAT  0.01
#define CMP_DEFAULT_COS_RAW    0.99
#define CMP_DEFAULT_LSB_RAW    2.0

/* "cos=0.95,lsb=24,rel=0.01" (any of the three, in any order; "default"
 * for all defaults).  false with what was expected. */
bool cmp_tolerance_parse(const char *spec, struct cmp_tolerance *t, char *err, size_t errlen);
void cmp_tolerance_default(struct cmp_tolerance *t);
/* The tolerances that apply to a kind, defaults filled in. */
struct cmp_tolerance cmp_tolerance_for(const struct cmp_tolerance *t, enum cmp_mode mode);
/* "cos=0.95,lsb=24,rel=0.01" of what is set. */
void cmp_tolerance_format(const struct cmp_tolerance *t, char *buf, size_t len);

/* One side of a comparison. */
struct cmp_got {
    uint8_t elem; /* enum tensor_elem */
    const void *data;
    uint32_t n, c, h, w;
};

struct cmp_metrics {
    enum cmp_mode mode;
    uint64_t count;
    double scale;   /* CMP_SCALED: the scale applied to got; 0 otherwise */
    double max_abs; /* real units (LSB for CMP_RAW) */
    double mean_abs;
    double cosine;  /* 1 for two all-zero tensors */
    double sqnr_db; /* INFINITY when equal */
    double ref_max; /* max |expected| (after saturation) */
    double lsb_p99; /* CMP_SCALED / CMP_RAW: errors in LSB; NAN otherwise */
    double lsb_max;
    uint64_t saturated; /* CMP_SCALED: reference values beyond the type's range */
    uint64_t nonfinite; /* NaN or infinity in got (fp16) or the reference */
    bool cos_checked;   /* the reference is large enough for the angle to mean something */

    bool departed;
    char why[160]; /* "cosine 0.123 < 0.95", "p99 error 31.0 LSB > 24" */
    /* the first element (NCHW order) beyond the element tolerance, else the
     * largest error; values as compared (real units, LSB for CMP_RAW) */
    uint32_t at[4];
    double at_got, at_expected;
};

/* Cosine similarity of got against reference values (raw units: scale-free),
 * for choosing among candidate blobs.  -2 when the sizes differ. */
double cmp_cosine(const struct cmp_got *g, const struct npy_array *ref);

/* Least-squares scale s minimising |s * got - ref| over the elements got
 * holds inside its type's range (saturated ones say nothing of the scale);
 * 0 when got is all zero there. */
double cmp_fit_scale(const struct cmp_got *g, const struct npy_array *ref);

/* Compare got against ref (same element count) as mode with scale
 * (CMP_SCALED) under tolerance tol.  false only when memory runs out. */
bool cmp_measure(const struct cmp_got *g, const struct npy_array *ref, enum cmp_mode mode,
                 double scale, const struct cmp_tolerance *tol, struct cmp_metrics *m);

/* Element i as compared: got and expected in real units (LSB for CMP_RAW;
 * CMP_SCALED: got * scale, the reference saturated to got's range), the
 * error in LSB for the integer kinds (NAN for CMP_FLOAT), and whether the
 * reference lay beyond the range. */
struct cmp_element {
    double got, expected, err_lsb;
    bool saturated;
};
void cmp_element_at(const struct cmp_got *g, const struct npy_array *ref, enum cmp_mode mode,
                    double scale, uint64_t i, struct cmp_element *e);
/* Whether an element differs beyond the element tolerance of t (its LSB for
 * the integer kinds, rel x ref_max for CMP_FLOAT), or one side is NaN or
 * infinite: the rule that names a departing layer's first differing element. */
bool cmp_element_beyond(const struct cmp_element *e, enum cmp_mode mode,
                        const struct cmp_tolerance *t, double ref_max);

/* Raw element i of got as a double (fp16 widened). */
double cmp_got_value(const struct cmp_got *g, uint64_t i);
/* The range of an integer element type (int8: -128..127). */
void cmp_elem_range(uint8_t elem, double *lo, double *hi);
bool cmp_elem_is_integer(uint8_t elem);

#endif
