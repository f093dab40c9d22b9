/* A model, a loadable, the runtime and the engine around them: the rig
 * test_engine and test_engine_samples drive by hand (each with its own loop,
 * so that a test sees the engine's actions and log).  Header-only. */
#ifndef ENGINE_RIG_H
#define ENGINE_RIG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/engine.h"
#include "runtime/runtime.h"
#include "sample/sample_net.h"

struct rig {
    struct dla *d;
    struct loadable *l;
    struct runtime rt;
    struct engine *e;
    struct report rep;
    bool unsupported; /* for a listener of the caller's that sets it */
};

/* The loadable in buf on the default configuration, loaded and with an
 * engine; the test fails if any step does. */
static inline void rig_open_buf(struct rig *r, const uint8_t *buf, size_t len)
{
    char err[512];
    memset(r, 0, sizeof *r);
    r->d = dla_create(dla_config_default(), NULL);
    r->l = loadable_parse(buf, len, "net", err, sizeof err);
    if (!r->l)
        fail_msg("%s", err);
    assert_true(runtime_load(&r->rt, r->l, r->d, err, sizeof err));
    r->e = engine_create(r->d, &r->rep, err, sizeof err);
    assert_non_null(r->e);
}

/* The same for a built-in sample network ("lenet", "conv" ...). */
static inline void rig_open(struct rig *r, const char *sample)
{
    uint8_t *buf;
    size_t len;
    char err[256];
    assert_true(sample_net_build(sample, &buf, &len, err, sizeof err));
    rig_open_buf(r, buf, len);
    free(buf);
}

static inline void rig_close(struct rig *r)
{
    engine_destroy(r->e);
    runtime_free(&r->rt);
    loadable_free(r->l);
    dla_destroy(r->d);
}

/* Carry out one engine action as the loadable driver does: writes, reads
 * (the value the engine decided from must be what the read returns), the
 * write of a read-modify-write, polls (the hardware advances until the
 * awaited bit reads 1).  *last holds the last value read. */
static inline void rig_do_action(struct rig *r, const struct eng_action *a, uint32_t *last)
{
    switch (a->kind) {
    case ENG_ACT_WRITE:
        dla_csb_write(r->d, a->addr, a->value);
        break;
    case ENG_ACT_READ:
        *last = dla_csb_read(r->d, a->addr);
        assert_true(eng_read_as_decided(a, *last));
        break;
    case ENG_ACT_MODIFY:
        dla_csb_write(r->d, a->addr, eng_modified_value(a, *last));
        break;
    case ENG_ACT_POLL:
        while (!eng_poll_done(a, dla_csb_peek(r->d, a->addr)))
            assert_true(dla_advance(r->d));
        *last = dla_csb_read(r->d, a->addr);
        break;
    }
}

/* A minimal driver loop around the engine of the rig (engine_rig.h), so the
 * test sees its log: run DLA task `task`; false when it failed.  Never loops forever: the
 * hardware going idle without an interrupt ends the run. */
static inline bool rig_run(struct rig *r, uint32_t task)
{
    uint32_t last = 0;
    engine_start(r->e, r->d, &r->rt, task);
    for (int guard = 0; guard < 100000; guard++) {
        struct eng_action a;
        while (engine_next_action(r->e, &a))
            rig_do_action(r, &a, &last);
        if (engine_task_done(r->e))
            return !engine_task_failed(r->e);
        while (!dla_intr_line(r->d))
            if (!dla_advance(r->d)) {
                engine_abort(r->e, "idle");
                return false;
            }
        engine_interrupt(r->e, r->d);
    }
    fail_msg("engine loop did not end");
    return false;
}

#endif
