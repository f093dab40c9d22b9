/* The calibration table nvdla_compiler reads (--calibtable): a JSON object
 * with one member per blob, each an object of numbers,
 *
 *   { "conv1": { "scale": 0.0137, "min": 0, "max": 0, "offset": 0 }, ... }
 *
 * so that an int8 value q of that blob stands for the real value q * scale.
 * The reader is strict JSON (RFC 8259) of that shape: anything else is
 * refused with the file, line, column and byte offset and what was expected.
 * Members other than the four are skipped (any JSON value); "scale" is
 * required and must be a finite number > 0. */
#ifndef DLADBG_CALIB_JSON_H
#define DLADBG_CALIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALIB_NAME_MAX 128

struct calib_entry {
    char name[CALIB_NAME_MAX];
    double scale, min, max, offset;
};

struct calib_table {
    struct calib_entry *e; /* malloc'ed */
    size_t n;
};

/* Parse text (len bytes) named `name` in messages. */
bool calib_parse(const char *name, const char *text, size_t len, struct calib_table *t, char *err,
                 size_t errlen);
/* Read and parse a file (at most CALIB_MAX_FILE bytes). */
#define CALIB_MAX_FILE (64u << 20)
bool calib_read(const char *path, struct calib_table *t, char *err, size_t errlen);
void calib_free(struct calib_table *t);

/* The entry of a blob, NULL when the table has none. */
const struct calib_entry *calib_find(const struct calib_table *t, const char *name);

#endif
