/* Fuzz harness: a loadable through the whole stack the debugger uses: the
 * reader, the runtime's memory binding and tensors, the engine scheduler
 * programming the simulated NVDLA, EMU tasks, and the session, for a bounded
 * number of steps with small memory and work budgets. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_scratch();
    fuzz_empty(dir);
    fuzz_write(dir, "net.nvdla", data, size);
    char path[512];
    snprintf(path, sizeof path, "%s/net.nvdla", dir);
    fuzz_run_session(path, NULL);
    return 0;
}
