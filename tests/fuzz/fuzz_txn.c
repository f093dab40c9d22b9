/* Fuzz harness: an nvdlav1 traceplayer folder (input.txn and the .dat files
 * it loads and compares, as a bundle: see fuzz_util.h) replayed through the
 * session for a bounded number of steps. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_unbundle(data, size, "input.txn");
    fuzz_run_session(dir, NULL);
    return 0;
}
