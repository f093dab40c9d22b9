/* Statistics of a tensor's elements (tensor_stats.h). */
#include "tensor_stats.h"

#include <math.h>
#include <string.h>

#include "loadable/loadable_tensors.h"
#include "tensor_read.h"

void tensor_stats_compute(uint8_t elem, const void *data, uint64_t count, unsigned bins,
                          struct tensor_stats *s)
{
    memset(s, 0, sizeof *s);
    s->elem = elem;
    s->scale = 1;
    s->count = count;
    s->bins = bins == 0                      ? TENSOR_STATS_DEFAULT_BINS
              : bins > TENSOR_STATS_MAX_BINS ? TENSOR_STATS_MAX_BINS
                                             : bins;
    if (elem == TENSOR_INT8) {
        s->low = -128;
        s->high = 127;
    } else if (elem == TENSOR_INT16) {
        s->low = -32768;
        s->high = 32767;
    }
    bool limits = s->low != s->high;
    double sum = 0, min = INFINITY, max = -INFINITY;
    for (uint64_t i = 0; i < count; i++) {
        double v = tensor_elem_value(elem, data, i);
        if (isnan(v)) {
            s->nan++;
            continue;
        }
        if (isinf(v)) {
            if (v > 0)
                s->pos_inf++;
            else
                s->neg_inf++;
            continue;
        }
        s->finite++;
        sum += v;
        if (v < min)
            min = v;
        if (v > max)
            max = v;
        if (v == 0)
            s->zeros++;
        if (limits && v == s->low)
            s->at_low++;
        if (limits && v == s->high)
            s->at_high++;
    }
    if (!s->finite)
        return;
    s->min = min;
    s->max = max;
    s->mean = sum / (double)s->finite;
    double sq = 0;
    for (uint64_t i = 0; i < count; i++) {
        double v = tensor_elem_value(elem, data, i);
        if (isnan(v) || isinf(v))
            continue;
        sq += (v - s->mean) * (v - s->mean);
        unsigned bin = 0;
        if (max > min) {
            double k = floor((v - min) * s->bins / (max - min));
            bin = k >= s->bins ? s->bins - 1 : (unsigned)k;
        }
        s->hist[bin]++;
    }
    s->std = sqrt(sq / (double)s->finite);
}

void tensor_stats_scaled(const struct tensor_stats *raw, double scale, struct tensor_stats *real)
{
    *real = *raw;
    if (raw->elem == TENSOR_FP16 || scale <= 0)
        return;
    real->scale = raw->scale * scale;
    real->min = raw->min * scale;
    real->max = raw->max * scale;
    real->mean = raw->mean * scale;
    real->std = raw->std * scale;
}

void tensor_stats_bin_edges(const struct tensor_stats *s, unsigned i, double *lo, double *hi)
{
    double w = s->bins ? (s->max - s->min) / s->bins : 0;
    *lo = s->min + w * i;
    *hi = i + 1 == s->bins ? s->max : s->min + w * (i + 1);
}
