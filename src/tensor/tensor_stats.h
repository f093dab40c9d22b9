/* Statistics of a tensor's elements (a dense array of raw values of one
 * type, as tensor_read.h produces): count, min, max, mean, standard
 * deviation (population, as NumPy's std), zeros, elements at the integer
 * type's saturation limits (int8 -128 and 127, int16 -32768 and 32767),
 * fp16 NaNs and infinities, and a histogram of equal bins over [min, max].
 *
 * The figures are of the raw values (fp16 as their value); with a scale
 * (one integer step in real units), tensor_stats_scaled gives the same
 * figures in real values.  NaNs and infinities take no part in min, max,
 * mean, std and the histogram. */
#ifndef DLADBG_TENSOR_STATS_H
#define DLADBG_TENSOR_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TENSOR_STATS_DEFAULT_BINS 20
#define TENSOR_STATS_MAX_BINS     200

struct tensor_stats {
    uint8_t elem;               /* enum tensor_elem of the values */
    double scale;               /* 1: raw values; else what tensor_stats_scaled applied */
    uint64_t count;             /* elements */
    uint64_t finite;            /* elements other than NaN and infinities */
    double min, max, mean, std; /* over the finite elements (0 when there are none) */
    uint64_t zeros;
    uint64_t at_low, at_high;       /* at the type's limits (int8, int16); 0 for others */
    int32_t low, high;              /* those limits (0 and 0 for uint8 and fp16) */
    uint64_t nan, pos_inf, neg_inf; /* fp16 */
    unsigned bins;
    uint64_t hist[TENSOR_STATS_MAX_BINS]; /* bin i: [min + i*w, min + (i+1)*w), the last closed */
};

/* The statistics of count elements of elem at data, with bins bins
 * (1..TENSOR_STATS_MAX_BINS; 0 means TENSOR_STATS_DEFAULT_BINS).  When min
 * equals max every finite element is in bin 0. */
void tensor_stats_compute(uint8_t elem, const void *data, uint64_t count, unsigned bins,
                          struct tensor_stats *s);

/* The figures of raw in real values: value * scale for integer types
 * (scale > 0; fp16 figures are real already and stay as they are). */
void tensor_stats_scaled(const struct tensor_stats *raw, double scale, struct tensor_stats *real);

/* Bin i's edges [*lo, *hi) in the statistics' units. */
void tensor_stats_bin_edges(const struct tensor_stats *s, unsigned i, double *lo, double *hi);

#endif
