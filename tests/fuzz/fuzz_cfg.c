/* Fuzz harness: a v2 .cfg trace test and its .dat record files (a bundle:
 * see fuzz_util.h) replayed on nv_small for a bounded number of steps. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_unbundle(data, size, "test.cfg");
    char path[512];
    snprintf(path, sizeof path, "%s/test.cfg", dir);
    fuzz_run_session(path, "nv_small");
    return 0;
}
