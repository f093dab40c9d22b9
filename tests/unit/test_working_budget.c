/* A tiny loadable declaring a huge surface (issue 36 item 4): one SDP layer
 * of 8192x4000x32 int8 (a 1 GB output in a 3 KB file) once took 9.2 GB and
 * 216 s before its output was refused.  The layer's int32 cubes and held
 * writes share one working budget, checked before anything is read: the
 * layer is refused with an error diagnostic naming what it needed (which
 * a session counts as bad input), and the process's peak memory stays far below one cube. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_rig.h"
#include "peak_rss.h"
#include "sdp_net.h"

struct diags {
    unsigned errors;
    char first[512];
};

static void keep_diag(void *ctx, const struct dla_event *ev)
{
    struct diags *g = ctx;
    if (ev->kind != DLA_EV_DIAG || ev->u.diag.severity != DLA_SEV_ERROR)
        return;
    if (!g->errors++)
        snprintf(g->first, sizeof g->first, "%s", ev->u.diag.msg);
}

static void quiet(void *ctx, enum report_level level, const char *text)
{
    (void)ctx;
    (void)level;
    (void)text;
}

/* One SDP layer, memory to memory, of w x h x 32 int8 channels. */
static void build_surface(uint16_t w, uint16_t h, uint8_t **buf, size_t *len)
{
    struct sdp_net n;
    sdp_net_init(&n);
    uint32_t line = (uint32_t)w * 32, surf = line * h;
    struct fw_cube c = {.type = FW_MEM_MC,
                        .address = 4,
                        .size = surf,
                        .width = w,
                        .height = h,
                        .channel = 32,
                        .line_stride = line,
                        .surf_stride = surf};
    n.op.u.sdp.surface.src = c;
    c.address = 5;
    n.op.u.sdp.surface.dst = c;
    n.mem_bytes = surf;
    sdp_net_encode(&n, buf, len);
}

static struct diags run_surface(uint16_t w, uint16_t h, struct report *rep_out)
{
    uint8_t *buf;
    size_t len;
    build_surface(w, h, &buf, &len);
    struct rig r;
    rig_open_buf(&r, buf, len);
    r.rep.print = quiet;
    struct diags g = {0};
    dla_listen(r.d, keep_diag, &g);
    (void)rig_run(&r, 0);
    *rep_out = r.rep;
    rig_close(&r);
    free(buf);
    return g;
}

static void test_huge_surface_refused_before_reading(void **state)
{
    (void)state;
    assert_true(peak_rss_reset() || peak_rss_kb() < 0);
    struct report rep;
    struct diags g = run_surface(8192, 4000, &rep);
    if (g.errors == 0 || !strstr(g.first, "working budget") || !strstr(g.first, "SDP"))
        fail_msg("no working-budget diagnostic: %u errors, first \"%s\"", g.errors, g.first);
    /* an error diagnostic: the session counts it as bad input (exit 2) */
    /* four 4 GB cubes were never allocated: the peak is the model's own */
    long kb = peak_rss_kb();
    if (kb > 0 && kb > 512 * 1024)
        fail_msg("peak RSS %ld KiB for a refused layer", kb);
}

static void test_ordinary_surface_runs(void **state)
{
    (void)state;
    struct report rep;
    struct diags g = run_surface(64, 32, &rep);
    if (g.errors)
        fail_msg("an ordinary layer was refused: %s", g.first);
}

/* The budget is one for cubes and held writes together: a model with a
 * small budget refuses a layer whose cubes fit but whose output does not. */
static void test_held_writes_share_the_budget(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    build_surface(64, 32, &buf, &len);
    char err[512];
    /* 64x32x32 elements: 256 KiB of result cube, 64 KiB of output; the
     * up-front check sees both (320 KiB) */
    struct dla_options opt = {.working_budget = 300 << 10};
    struct dla *d = dla_create(dla_config_default(), &opt);
    struct loadable *l = loadable_parse(buf, len, "net", err, sizeof err);
    assert_non_null(l);
    struct rig r = {.d = d, .l = l};
    assert_true(runtime_load(&r.rt, r.l, r.d, err, sizeof err));
    r.e = engine_create(r.d, &r.rep, err, sizeof err);
    assert_non_null(r.e);
    r.rep.print = quiet;
    struct diags g = {0};
    dla_listen(r.d, keep_diag, &g);
    (void)rig_run(&r, 0);
    if (!strstr(g.first, "working budget"))
        fail_msg("a layer over a small budget was not refused: \"%s\"", g.first);
    rig_close(&r);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_surface_refused_before_reading),
        cmocka_unit_test(test_ordinary_surface_runs),
        cmocka_unit_test(test_held_writes_share_the_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
