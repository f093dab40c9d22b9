/* CONV_BUF byte storage: the convolution buffer as banks of entries holding
 * real bytes, written by CDMA and read by CSC.  A region is a run of
 * consecutive banks (data banks first, weight banks after them, the WMB bank
 * last); entry and byte indexes inside a region wrap around, as the hardware's
 * ring pointers do.
 *
 * The buffer also remembers what the previous convolution layer left behind
 * (struct cbuf_carry), so that the next layer's DATA_REUSE / WEIGHT_REUSE and
 * the releases (D_RELEASE, SKIP_*_RLS) behave as in hardware. */
#ifndef DLA_CBUF_H
#define DLA_CBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cbuf;
struct dla;
struct dla_config;
struct dla_cbuf_bank;

enum cbuf_kind { CBUF_DATA = 0, CBUF_WEIGHT = 1, CBUF_WMB = 2 };

struct cbuf_region {
    unsigned first_bank, n_banks;
};

/* What the previous convolution layer left in the buffer. */
struct cbuf_carry {
    bool valid;
    uint8_t conv_mode;   /* 0 direct, 1 Winograd */
    uint8_t data_format; /* 0 feature, 1 pixel */
    uint8_t data_banks, weight_banks;
    bool skip_data_rls, skip_weight_rls;
    uint32_t data_start;  /* first entry of the previous layer's data in the data region */
    uint32_t data_slices; /* slices the previous layer held */
    uint32_t data_left;   /* slices it did not release */
    uint32_t entry_per_slice;
    bool weight_whole;     /* every weight byte of the layer is still in the buffer */
    uint64_t weight_start; /* ring byte where the previous layer's weights start */
    uint64_t weight_next;  /* ring byte after them (entry aligned): where new weights go */
};

/* Lifecycle (the CONV entry's state callbacks, below, call these for d->cbuf). */
struct cbuf *cbuf_create(const struct dla_config *cfg);
struct cbuf *cbuf_clone(const struct cbuf *c);
void cbuf_destroy(struct cbuf *c);
void cbuf_reset(struct cbuf *c);
/* Whether a and b (a clone of one another) hold bank's bytes in one shared
 * block: the bank was not written by either since the clone. */
bool cbuf_bank_shared(const struct cbuf *a, const struct cbuf *b, unsigned bank);
/* Bytes of c's banks live does not hold, each divided among the clones
 * sharing it (as mem_bytes_apart). */
size_t cbuf_bytes_apart(const struct cbuf *c, const struct cbuf *live);
size_t cbuf_describe(const struct cbuf *c, struct dla_cbuf_bank *out, size_t max);

/* CBUF as the CONV entry's owned state (core/unit_table.h): the model's
 * d->cbuf made, freed, emptied and cloned with the model. */
bool cbuf_state_create(struct dla *d);
void cbuf_state_destroy(struct dla *d);
void cbuf_state_reset(struct dla *d);
/* The CONV entry's timer: the post-reset flush is done. */
void cbuf_flush_done(struct dla *d);
bool cbuf_state_clone(struct dla *dst, const struct dla *src);
const void *cbuf_state_of(const struct dla *d);
size_t cbuf_state_bytes_apart(const void *state, const void *live);

uint64_t cbuf_region_bytes(const struct cbuf *c, const struct cbuf_region *r);

/* Write len bytes at byte offset off of the region (wrapping), on behalf of
 * a layer; updates the banks' owner, kind, high-water mark and entry writes. */
void cbuf_write(struct cbuf *c, const struct cbuf_region *r, uint64_t off, const void *src,
                size_t len, int32_t layer, enum cbuf_kind kind);
/* Read len bytes at byte offset off of the region (wrapping); counts entry reads. */
void cbuf_read(struct cbuf *c, const struct cbuf_region *r, uint64_t off, void *dst, size_t len);
/* Direct view of one entry (no accounting); the region must be non-empty. */
const uint8_t *cbuf_entry_ptr(const struct cbuf *c, const struct cbuf_region *r, uint64_t entry);

struct cbuf_carry *cbuf_carry(struct cbuf *c);

/* Publish DLA_EV_CBUF for the banks of a region a layer has written. */
void cbuf_publish(struct dla *d, const struct cbuf_region *r, enum cbuf_kind kind, uint64_t bytes,
                  int32_t layer);

#endif
