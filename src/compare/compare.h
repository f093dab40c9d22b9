/* Layer-by-layer comparison of a run against a reference folder (refdir.h):
 * which hardware layer goes wrong first.
 *
 * Attached to a session, the comparison listens to the model: when a
 * hardware layer completes (DLA_EV_LAYER_DONE: its writes are in memory, its
 * register group still holds its programming) its output surface is read
 * (layer_surface_live, tensor_read) and, with a reference loaded, mapped to
 * a blob and measured (metrics.h).  The loadable's input tensor is read when
 * the first layer starts, the CPU (EMU) tasks' outputs when each such task
 * ends (compare_after_execute); those are compared with the blob of the
 * tensor's own name.
 *
 * Mapping a layer to a blob: map.txt's line for the layer when the folder
 * has one (its layers only), else automatically: the blobs of the layer's
 * shape (C, H, W) near the place in order.txt the previous layers reached
 * (a few back, more ahead: the compiler fuses conv + batch-norm + scale +
 * ReLU and add + ReLU into one layer that writes the *last* blob of such a
 * chain), the one of the best cosine similarity; the place moves past it.
 *
 * A convolution split into bands of rows (the compiler's answer to a
 * layer too large for the convolution buffer) writes one tensor through
 * several hardware layers, one after the other, each the next rows: such
 * bands are joined and compared as that tensor at the last of them.
 *
 * Results are kept per hardware layer index: a layer run again (after "back"
 * or a "restart") is captured and measured again, and results of layers not
 * done at the current point are not reported.  The raw arrays captured stay
 * within a byte budget (COMPARE_CAPTURE_BUDGET); beyond it the metrics are
 * kept without the arrays, which is said once.
 *
 * A departure counts as a failed check of the run's report (exit status 1)
 * and stops at "break mismatch" breakpoints; an unusable reference found
 * while running (a map.txt line whose blob has another shape than its
 * layer, a blob whose shape fits no layer's output) counts as an input error
 * (exit status 2). */
#ifndef DLADBG_COMPARE_H
#define DLADBG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug/report.h"
#include "debug/session.h"
#include "loadable/loadable_tensors.h"
#include "metrics.h"
#include "refdir.h"

#define COMPARE_CAPTURE_BUDGET (256ull << 20)

struct breakpoints;
struct compare;

enum compare_source {
    COMPARE_LAYER, /* a hardware layer's output surface */
    COMPARE_INPUT, /* the loadable's input tensor */
    COMPARE_CPU,   /* a tensor a CPU (EMU) task wrote */
};

struct compare_result {
    enum compare_source source;
    int32_t layer; /* hardware layer index (COMPARE_LAYER), else -1 */
    uint8_t proc;  /* enum dla_proc of the layer */
    uint8_t group;
    int task;                   /* COMPARE_CPU: the task list index */
    uint64_t seq;               /* completion order: 1, 2, ... */
    uint64_t end_cycle;         /* when it was captured */
    struct tensor_info surface; /* where it was read (name: the loadable tensor's, or "") */

    long blob;          /* index into the reference's blobs, -1 unmapped */
    char map_note[160]; /* how the blob was chosen, or why there is none */
    bool compared;      /* metrics hold a measurement */
    struct cmp_metrics m;
    char scale_note[320]; /* a scale other than the blob's own, and why ("" when none) */

    uint8_t elem; /* enum tensor_elem */
    uint32_t n, c, h, w;
    void *got; /* the raw elements read, NULL beyond the capture budget */

    /* A layer the compiler split into bands of rows (each hardware layer
     * writes the next rows of one tensor): the last band's result holds the
     * rows of all of them (h, got, surface), compared as one tensor;
     * band_prev is the layer of the band before (-1: none), first_layer the
     * first band's, bands how many.  A band that a later one continues is
     * not listed on its own (compare_count, compare_get). */
    int32_t band_prev, first_layer;
    uint32_t bands;
};

struct compare *compare_create(void);
void compare_destroy(struct compare *c);

/* Follow a session (NULL: none), reporting to rep and stopping at bps's
 * "break mismatch" breakpoints (either may be NULL).  Forgets the results. */
void compare_attach(struct compare *c, struct session *s, struct report *rep,
                    struct breakpoints *bps);
/* The loadable's named tensors and which of them are inputs (read when the
 * first layer starts; the others when a CPU task ends).  Copied. */
void compare_set_tensors(struct compare *c, const struct tensor_info *t, const bool *is_input,
                         size_t n);
/* Start capturing (with or without a reference: "dump tensors" needs only
 * the captures) or stop. */
void compare_enable(struct compare *c, bool on);
bool compare_enabled(const struct compare *c);
/* Load a reference folder (refdir.h) and compare against it from now on;
 * the previous one is dropped.  false with the reader's message. */
bool compare_load(struct compare *c, const char *dir, const char *calibtable, char *err,
                  size_t errlen);
void compare_unload(struct compare *c);
const struct ref_dir *compare_reference(const struct compare *c); /* NULL: none */
void compare_set_tolerance(struct compare *c, const struct cmp_tolerance *t);
const struct cmp_tolerance *compare_tolerance(const struct compare *c);
/* Capture byte budget (0: COMPARE_CAPTURE_BUDGET). */
void compare_set_budget(struct compare *c, uint64_t bytes);

/* Session hook after every action: CPU task outputs, the end-of-run checks. */
void compare_after_execute(struct compare *c);

/* Results at the current point, in completion order. */
size_t compare_count(const struct compare *c);
const struct compare_result *compare_get(const struct compare *c, size_t i);
/* Hardware layer `layer`'s result, NULL when it has none now. */
const struct compare_result *compare_of_layer(const struct compare *c, uint32_t layer);
/* The first result (in completion order) that departs, NULL when none. */
const struct compare_result *compare_first_departure(const struct compare *c);
/* Element i of a result as compared, in real units (LSB for raw
 * references): got and expected; false without arrays or a blob. */
bool compare_values(const struct compare *c, const struct compare_result *r, uint64_t i,
                    double *got, double *expected);
/* Whether element i differs beyond the element tolerance, by the rule that
 * names a departing layer's first differing element (metrics.h). */
bool compare_element_differs(const struct compare *c, const struct compare_result *r, uint64_t i);
/* Whether the blob is the target of a result now. */
bool compare_blob_mapped(const struct compare *c, size_t blob);
/* Captures dropped for the budget so far. */
uint64_t compare_dropped(const struct compare *c);

/* "1x20x24x24" */
void compare_shape_text(uint32_t n, uint32_t c, uint32_t h, uint32_t w, char *buf, size_t len);
/* What a result is: "layer 3 (SDP)", "input data", "CPU task 1 prob". */
void compare_result_name(const struct compare_result *r, char *buf, size_t len);

#endif
