/* Fuzz harness: a compare reference folder (src/compare/refdir.h) as a
 * bundle, its first file order.txt, then NAME.npy blobs, calib.json and
 * map.txt; and the calibration table reader on the whole input.  Anything
 * is refused with a message or loaded, never a crash or an allocation
 * beyond what the files justify. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare/calib_json.h"
#include "compare/refdir.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    struct calib_table t;
    if (calib_parse("fuzz.json", (const char *)data, size, &t, err, sizeof err))
        calib_free(&t);
    const char *dir = fuzz_unbundle(data, size, "order.txt");
    struct ref_dir r;
    if (ref_dir_load(dir, NULL, &r, err, sizeof err))
        ref_dir_free(&r);
    return 0;
}
