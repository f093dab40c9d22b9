/* One unit run as a single-stage pipeline, the way the pipeline launcher
 * runs it, so that a test can call a unit's *_execute() directly and look
 * at the writes it holds back until completion.  Header-only; shared by
 * conv_harness.h, test_pdp.c, test_sdp.c, test_rubik.c and test_sim_core.c. */
#ifndef ONE_STAGE_H
#define ONE_STAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/dla_priv.h"

struct one_stage {
    struct dla_pipe pipe;
    struct dla_exec x; /* hand &x to the unit's execute function */
};

/* layer: from layer_begin() or layer_ensure(); rdma_group as the stage
 * records it (0xff: the unit reads no memory through its RDMA). */
static inline void one_stage_open(struct one_stage *f, struct dla *d, enum dla_proc proc,
                                  int32_t layer, uint8_t rdma_group)
{
    memset(f, 0, sizeof *f);
    f->pipe.n_stages = 1;
    f->pipe.stage[0].proc = (uint8_t)proc;
    f->pipe.stage[0].rdma_group = rdma_group;
    f->pipe.stage[0].layer = layer;
    f->x = (struct dla_exec){.d = d, .pipe = &f->pipe, .stage = 0};
}

static inline void one_stage_close(struct one_stage *f)
{
    for (size_t i = 0; i < f->pipe.n_writes; i++)
        free(f->pipe.writes[i].data);
    free(f->pipe.writes);
    free(f->pipe.xfers);
}

/* The byte the stage wrote at addr, as memory would hold it once the held
 * writes are applied in order (the last one covering addr wins); false if
 * none covers it. */
static inline bool one_stage_written_byte(const struct one_stage *f, uint64_t addr, uint8_t *out)
{
    bool found = false;
    for (size_t i = 0; i < f->pipe.n_writes; i++) {
        const struct dla_pending_write *w = &f->pipe.writes[i];
        if (addr >= w->addr && addr < w->addr + w->len) {
            *out = w->data[addr - w->addr];
            found = true;
        }
    }
    return found;
}

/* The pipeline a register write just launched, with the writes it holds
 * until completion: the model's one active pipeline (NULL when none is). */
static inline const struct dla_pipe *one_stage_launched(const struct dla *d)
{
    for (int i = 0; i < DLA_MAX_PIPES; i++)
        if (d->pipe[i].active)
            return &d->pipe[i];
    return NULL;
}

#endif
