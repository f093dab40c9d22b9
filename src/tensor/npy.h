/* NumPy's .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read), so that a
 * tensor goes to and from NumPy without Python: numpy.load() opens what
 * npy_write writes, and npy_read takes what numpy.save() writes.
 *
 * Arrays are C order (fortran_order False); the element types are those an
 * NVDLA tensor or a framework reference holds.  Data is held in host order
 * (little-endian on every machine dladbg runs on); big-endian files are
 * swapped on reading. */
#ifndef DLADBG_NPY_H
#define DLADBG_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8

enum npy_dtype { NPY_I8, NPY_U8, NPY_I16, NPY_U16, NPY_I32, NPY_F16, NPY_F32, NPY_F64 };

struct npy_array {
    enum npy_dtype dtype;
    unsigned ndim; /* 0 (a scalar) .. NPY_MAX_DIMS */
    uint64_t shape[NPY_MAX_DIMS];
    uint64_t count; /* elements: the product of the shape */
    void *data;     /* count elements of dtype, host order, malloc'ed */
};

/* Bytes of one element; the dtype's NumPy name ("int8", "float16"...). */
size_t npy_dtype_size(enum npy_dtype t);
const char *npy_dtype_name(enum npy_dtype t);

/* Reads path into *a.  Arrays of more than max_bytes of data are refused
 * before anything is allocated, their dtype and shape left in *a (data NULL)
 * for the caller to say what the file holds.  false with a message naming the file, the
 * byte offset and what was expected (a bad magic, an unsupported dtype,
 * fortran_order, a shape whose product overflows, a file shorter than its
 * header says). */
bool npy_read(const char *path, uint64_t max_bytes, struct npy_array *a, char *err, size_t errlen);
/* The same from a buffer; name is used in messages. */
bool npy_parse(const char *name, const uint8_t *buf, size_t len, uint64_t max_bytes,
               struct npy_array *a, char *err, size_t errlen);
void npy_free(struct npy_array *a);

/* Element i as a double (float16 widened exactly, integers as they are). */
double npy_get(const struct npy_array *a, uint64_t i);

/* Writes a format 1.0 file, whole or not at all (a temporary name renamed). */
bool npy_write(const char *path, enum npy_dtype dtype, unsigned ndim, const uint64_t *shape,
               const void *data, char *err, size_t errlen);

#endif
