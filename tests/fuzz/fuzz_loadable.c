/* Fuzz harness: the loadable reader (flatbuffers validation of every table,
 * offset, vector and id) on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "loadable/loadable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    struct loadable *l = loadable_parse(data, size, "fuzz.nvdla", err, sizeof err);
    if (!l)
        return 0;
    /* the lookups the runtime does on a parsed file */
    for (uint32_t i = 0; i < l->n_tasks; i++)
        for (uint32_t k = 0; k < l->tasks[i].n_addresses; k++)
            (void)loadable_address_index(l, l->tasks[i].addresses[k]);
    for (uint32_t i = 0; i < l->n_memories; i++)
        (void)loadable_memory_index(l, l->memories[i].id);
    loadable_free(l);
    return 0;
}
