/* The loadable's input tensor filled before the run, from what the user
 * gave on the command line:
 *   --image FILE  a JPEG, PGM, PPM (decoded and converted exactly as
 *                 nvdla_runtime --image does, see input_image.h) or a DIMG;
 *   --input FILE  the tensor's bytes: raw (exactly the tensor's buffer, in
 *                 its memory layout), a DIMG or a NumPy .npy.
 * A DIMG holds the elements packed c, h, w; they are placed in the tensor's
 * surface unchanged, so its shape and element size must be the tensor's.
 * A .npy holds them in C order, shape (1, C, H, W), (C, H, W), the same
 * without its dimensions of 1, or C * H * W in one dimension; its dtype is
 * the tensor's (int8, int16, float16), or for an fp16 tensor float32 or
 * float64, rounded to fp16 as the runtime rounds (ties away from zero, from
 * float).  Real values (float16/32/64) for an int8 or int16 tensor need
 * the tensor's scale, which a loadable does not carry: with --input-scale S
 * each becomes round(x / S) (to nearest, ties to even, as numpy.round),
 * saturated to the type's range (a warning counts the saturated ones);
 * without it they are refused. */
#ifndef DLADBG_INPUT_TENSOR_H
#define DLADBG_INPUT_TENSOR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/dla.h"
#include "input_image.h"
#include "runtime/runtime.h"

struct input_opts {
    const char *image;      /* --image, or NULL */
    const char *raw;        /* --input, or NULL */
    struct input_norm norm; /* --mean / --normalize (fp16 tensors only) */
    double scale;           /* --input-scale: real value of one int8/int16 step, 0: none */
};

/* Fill the input tensor of rt in d; nothing to do without a file.  false
 * with a message naming the file (and both shapes when they differ); warn
 * (empty when none) says what the runtime would only warn about. */
bool input_tensor_fill(const struct runtime *rt, struct dla *d, const struct input_opts *o,
                       char *warn, size_t warnlen, char *err, size_t errlen);

/* The same conversion without a model, when the file is opened: false with
 * the message input_tensor_fill would give at the start of the run (a file
 * that does not fit the tensor, cannot be read or decoded), so nothing runs
 * with an input that cannot be used.  Warnings wait for the run. */
bool input_tensor_check(const struct loadable *ld, const struct input_opts *o, char *err,
                        size_t errlen);

/* Whether --mean or --normalize was given (they only act on --image). */
bool input_norm_given(const struct input_norm *norm);

/* Parse --mean's value: up to four comma-separated numbers.  false with a
 * message. */
bool input_parse_mean(const char *text, struct input_norm *norm, char *err, size_t errlen);
/* Parse --normalize's value: an integer 1..255 (the runtime keeps it in
 * 8 bits).  false with a message. */
bool input_parse_normalize(const char *text, struct input_norm *norm, char *err, size_t errlen);
/* Parse --input-scale's value: a finite number > 0.  false with a message. */
bool input_parse_scale(const char *text, double *scale, char *err, size_t errlen);

#endif
