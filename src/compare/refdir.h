/* A reference folder for "compare": what a framework (or an earlier dladbg
 * run, "dump tensors") computed, blob by blob.
 *
 *   order.txt    the blob names in network order, one a line; further words
 *                on a line are ignored ("conv1 1 20 24 24"); blank lines and
 *                lines starting with '#' are skipped
 *   NAME.npy     each blob's values (any dtype npy.h reads), shape (N,C,H,W);
 *                fewer dimensions are padded: (C) and (N,C) -> (N,C,1,1),
 *                (C,H,W) -> (1,C,H,W); more than four only with leading 1s
 *   calib.json   optional: the compiler's calibration table (calib_json.h);
 *                --calibtable FILE names another
 *   map.txt      optional: "LAYER BLOB" lines (hardware layer index as in
 *                "info layers", a blob of order.txt) that replace the
 *                automatic mapping
 *
 * Loading checks everything a run needs from the folder; a problem is
 * reported naming the file, the line or byte offset, and what was expected. */
#ifndef DLADBG_REFDIR_H
#define DLADBG_REFDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calib_json.h"
#include "tensor/npy.h"

#define REF_NAME_MAX 64
/* Reference values held at most (the arrays as their files store them). */
#define REF_MAX_BYTES (1ull << 30)

struct ref_blob {
    char name[REF_NAME_MAX];
    char file[4200];     /* DIR/NAME.npy, for messages */
    unsigned line;       /* of order.txt */
    uint32_t n, c, h, w; /* padded to NCHW */
    struct npy_array a;
    /* integer arrays are raw values of a quantized run ("dump tensors" of an
     * int8 run): compared in LSB, never through a scale */
    bool raw;
};

struct ref_map_line {
    uint32_t layer;
    size_t blob; /* index into ref_dir.blobs */
    unsigned line;
};

struct ref_dir {
    char path[4096];
    struct ref_blob *blobs; /* in order.txt's order */
    size_t n_blobs;
    struct calib_table calib; /* n == 0: none */
    char calib_path[4200];    /* "" when there is none */
    struct ref_map_line *map; /* map.txt, NULL when absent */
    size_t n_map;
    char map_path[4200];
};

/* Load DIR; calibtable overrides DIR/calib.json (NULL: that one, if present). */
bool ref_dir_load(const char *dir, const char *calibtable, struct ref_dir *r, char *err,
                  size_t errlen);
void ref_dir_free(struct ref_dir *r);

/* Index of a blob by name, -1 when order.txt has none. */
long ref_dir_find(const struct ref_dir *r, const char *name);
/* The blob's calibration scale, 0 when the table has none. */
double ref_dir_scale(const struct ref_dir *r, const char *name);

/* Pads an npy shape to NCHW (see above); false with what was expected. */
bool ref_shape_nchw(const struct npy_array *a, uint32_t nchw[4], char *err, size_t errlen);

#endif
