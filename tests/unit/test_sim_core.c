/* The model's core through its public API: register groups and access
 * semantics, CSB diagnostics, interrupts, layers, BDMA geometry, snapshots
 * (and, through dla_priv.h, that a snapshot's packing keeps every byte, and
 * that registers by name read the same on worker threads). */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/mem.h"

#include "core/dla.h"
#include "core/dla_priv.h"
#include "core/threads.h"
#include "one_stage.h"

/* ---------------------------------------------------------------- helpers */

#define MAX_EVENTS 4096

struct recorder {
    size_t n;
    struct dla_event ev[MAX_EVENTS];
    char msg[MAX_EVENTS][160];
};

static void record(void *ctx, const struct dla_event *ev)
{
    struct recorder *r = ctx;
    if (r->n == MAX_EVENTS)
        return;
    r->ev[r->n] = *ev;
    if (ev->kind == DLA_EV_DIAG)
        snprintf(r->msg[r->n], sizeof r->msg[0], "%s", ev->u.diag.msg);
    r->n++;
}

static size_t count_kind(const struct recorder *r, enum dla_event_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->ev[i].kind == k;
    return n;
}

static const struct dla_event *find_diag(const struct recorder *r, enum dla_diag_kind k,
                                         const char **msg)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->ev[i].kind == DLA_EV_DIAG && r->ev[i].u.diag.kind == k) {
            if (msg)
                *msg = r->msg[i];
            return &r->ev[i];
        }
    }
    return NULL;
}

struct fixture {
    struct dla *d;
    struct recorder *rec;
};

static struct fixture make(const char *config)
{
    struct fixture f;
    f.d = dla_create(dla_config_find(config), NULL);
    assert_non_null(f.d);
    f.rec = calloc(1, sizeof *f.rec);
    assert_non_null(f.rec);
    dla_listen(f.d, record, f.rec);
    return f;
}

static void drop(struct fixture *f)
{
    dla_destroy(f->d);
    free(f->rec);
}

static uint32_t addr_of(struct dla *d, const char *name)
{
    struct regdb_ref ref;
    assert_true(regdb_resolve(dla_regmap(d), name, &ref));
    return regdb_addr(ref.unit, ref.reg);
}

static void wr(struct dla *d, const char *name, uint32_t v)
{
    dla_csb_write(d, addr_of(d, name), v);
}

static uint32_t rd(struct dla *d, const char *name)
{
    return dla_csb_read(d, addr_of(d, name));
}

/* ---------------------------------------------------------------- registers */

/* CSB accesses take bus time (nv_full calibrated: a posted write 1 cycle, a
 * read 18), let pass by dla_csb_settle between driver actions; peeks are
 * free, and the time lets due hardware events happen. */
static void test_csb_access_time(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    const struct dla_config *cfg = dla_cfg(f.d);
    wr(f.d, "BDMA.CFG_LINE", 7);
    (void)rd(f.d, "BDMA.CFG_LINE");
    (void)dla_csb_peek(f.d, addr_of(f.d, "BDMA.CFG_LINE"));
    assert_int_equal(dla_now(f.d), 0); /* accesses happen now */
    dla_csb_settle(f.d);
    assert_int_equal(dla_now(f.d), cfg->csb_write_cycles + cfg->csb_read_cycles);
    assert_int_equal(cfg->csb_write_cycles, 1);
    assert_int_equal(cfg->csb_read_cycles, 18);
    dla_csb_settle(f.d); /* nothing more owed */
    assert_int_equal(dla_now(f.d), 19);
    /* the CBUF flush (cycle 4096) happens during reads that span it */
    for (int i = 0; i < 230; i++)
        (void)rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS");
    dla_csb_settle(f.d);
    assert_int_equal(dla_now(f.d), 19 + 230 * 18);
    assert_int_equal(rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS"), 1);
    drop(&f);
}

/* After reset the CBUF flush runs for the configuration's count of core
 * clocks (nv_full 4096: NV_NVDLA_CDMA_cvt.v's 13-bit counter; nv_small 8192;
 * nv_medium_512 16384) before S_CBUF_FLUSH_STATUS reads FLUSH_DONE, which
 * then stays set whatever is written; a reset starts it again. */
static void test_cbuf_flush_after_reset(void **state)
{
    (void)state;
    static const struct {
        const char *config;
        uint64_t cycles;
    } cases[] = {{"nv_full", 4096}, {"nv_small", 8192}, {"nv_medium_512", 16384}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fixture f = make(cases[i].config);
        assert_int_equal(rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS"), 0);
        assert_false(dla_busy(f.d)); /* the flush is no operation */
        assert_int_equal(dla_next_event_cycle(f.d), cases[i].cycles);
        dla_idle(f.d, cases[i].cycles - 1);
        assert_int_equal(rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS"), 0);
        assert_true(dla_advance(f.d));
        assert_int_equal(dla_now(f.d), cases[i].cycles);
        assert_int_equal(rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS"), 1);
        wr(f.d, "CDMA.S_CBUF_FLUSH_STATUS", 0);
        assert_int_equal(rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS"), 1);
        assert_false(dla_advance(f.d));
        dla_reset(f.d);
        assert_int_equal(rd(f.d, "CDMA.S_CBUF_FLUSH_STATUS"), 0);
        drop(&f);
    }
}

static void test_reset_values(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    assert_int_equal(rd(f.d, "GLB.S_NVDLA_HW_VERSION"), 0x303031);
    assert_int_equal(rd(f.d, "BDMA.STATUS") & 0xff, 20); /* all slots free */
    drop(&f);
    f = make("nv_small");
    assert_int_equal(rd(f.d, "CFGROM.CFGROM_HW_VERSION"), 0x00010001);
    assert_int_equal(rd(f.d, "SDP.D_DP_BS_CFG"), 0x73); /* v2 reset: bypass bits set */
    drop(&f);
}

static void test_ping_pong_groups(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    /* D_ registers: one copy per group, selected by S_POINTER.PRODUCER */
    wr(f.d, "PDP.S_POINTER", 0);
    wr(f.d, "PDP.D_DATA_CUBE_IN_WIDTH", 7);
    wr(f.d, "PDP.S_POINTER", 1);
    assert_int_equal(dla_producer_group(f.d, DLA_U_PDP), 1);
    assert_int_equal(rd(f.d, "PDP.D_DATA_CUBE_IN_WIDTH"), 0);
    wr(f.d, "PDP.D_DATA_CUBE_IN_WIDTH", 9);
    wr(f.d, "PDP.S_POINTER", 0);
    assert_int_equal(rd(f.d, "PDP.D_DATA_CUBE_IN_WIDTH"), 7);
    uint16_t off = (uint16_t)(addr_of(f.d, "PDP.D_DATA_CUBE_IN_WIDTH") & 0xfff);
    assert_int_equal(dla_reg_value(f.d, DLA_U_PDP, 1, off), 9);
    assert_int_equal(dla_reg_value(f.d, DLA_U_PDP, 0, off), 7);
    /* S_ registers exist once: visible from both producers */
    wr(f.d, "PDP.S_POINTER", 1);
    assert_int_equal(rd(f.d, "PDP.S_POINTER") & 1, 1);
    /* CONSUMER is hardware-owned: a write cannot move it */
    wr(f.d, "PDP.S_POINTER", 0x10001);
    assert_int_equal(dla_consumer_group(f.d, DLA_U_PDP), 0);
    drop(&f);
}

static void test_read_only_and_w1c(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    /* read-only: ignored */
    wr(f.d, "GLB.S_NVDLA_HW_VERSION", 0);
    assert_int_equal(rd(f.d, "GLB.S_NVDLA_HW_VERSION"), 0x303031);
    /* S_INTR_SET raises status bits; writing ones to S_INTR_STATUS clears them */
    wr(f.d, "GLB.S_INTR_SET", (1u << 6) | (1u << 20));
    assert_int_equal(rd(f.d, "GLB.S_INTR_STATUS"), (1u << 6) | (1u << 20));
    assert_true(dla_intr_line(f.d));
    assert_int_equal(count_kind(f.rec, DLA_EV_INTR), 2);
    wr(f.d, "GLB.S_INTR_STATUS", 1u << 6);
    assert_int_equal(rd(f.d, "GLB.S_INTR_STATUS"), 1u << 20);
    /* masking drops the line, not the status */
    wr(f.d, "GLB.S_INTR_MASK", 1u << 20);
    assert_false(dla_intr_line(f.d));
    assert_int_equal(rd(f.d, "GLB.S_INTR_STATUS"), 1u << 20);
    /* masked bits outside the write mask are dropped */
    wr(f.d, "GLB.S_INTR_MASK", 0xffffffffu);
    assert_int_equal(rd(f.d, "GLB.S_INTR_MASK"), 0x3f03ff);
    drop(&f);
}

static void test_write_mask_v1_addresses(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    /* nv_full address registers keep bits 31:5 only; v2 keeps all 32 */
    wr(f.d, "CDMA.D_DAIN_ADDR_LOW_0", 0x12345678);
    assert_int_equal(rd(f.d, "CDMA.D_DAIN_ADDR_LOW_0"), 0x12345660);
    drop(&f);
    f = make("nv_small");
    wr(f.d, "CDMA.D_DAIN_ADDR_LOW_0", 0x12345678);
    assert_int_equal(rd(f.d, "CDMA.D_DAIN_ADDR_LOW_0"), 0x12345678);
    drop(&f);
}

/* ---------------------------------------------------------------- CSB diagnostics */

static void test_reserved_and_unmapped(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    const char *msg = NULL;
    dla_csb_write(f.d, 0x14000, 1);
    const struct dla_event *ev = find_diag(f.rec, DLA_DIAG_CSB_RESERVED, &msg);
    assert_non_null(ev);
    assert_int_equal(ev->u.diag.addr, 0x14000);
    assert_non_null(strstr(msg, "0x14000"));
    assert_int_equal(dla_csb_read(f.d, 0x3fffc), 0);
    assert_int_equal(count_kind(f.rec, DLA_EV_DIAG), 2);
    /* nv_full decodes nothing at 0x11000-0x13fff */
    dla_csb_write(f.d, 0x11000, 1);
    assert_non_null(find_diag(f.rec, DLA_DIAG_CSB_UNMAPPED, NULL));
    /* inside a unit, but not a register (CMAC_A ends at 0xc) */
    dla_csb_write(f.d, 0x7100, 1);
    assert_non_null(find_diag(f.rec, DLA_DIAG_CSB_HOLE, &msg));
    assert_non_null(strstr(msg, "CMAC_A"));
    /* unaligned */
    f.rec->n = 0;
    dla_csb_write(f.d, 0x5002, 1);
    assert_non_null(find_diag(f.rec, DLA_DIAG_CSB_HOLE, NULL));
    drop(&f);
}

static void test_absent_units(void **state)
{
    (void)state;
    struct fixture f = make("nv_small");
    const char *msg = NULL;
    wr(f.d, "BDMA.CFG_OP", 1); /* nv_small has no BDMA */
    assert_non_null(find_diag(f.rec, DLA_DIAG_FEATURE_ABSENT, &msg));
    assert_non_null(strstr(msg, "nv_small has no BDMA"));
    f.rec->n = 0;
    wr(f.d, "RBK.D_OP_ENABLE", 1);
    assert_non_null(find_diag(f.rec, DLA_DIAG_FEATURE_ABSENT, NULL));
    assert_int_equal(count_kind(f.rec, DLA_EV_LAYER_PROGRAM), 0);
    drop(&f);
}

/* ---------------------------------------------------------------- layers */

static void test_layer_tracking(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    wr(f.d, "PDP.S_POINTER", 0); /* S_ register: no layer */
    assert_int_equal(dla_layer_count(f.d), 0);
    wr(f.d, "PDP.D_DATA_CUBE_IN_WIDTH", 7);
    wr(f.d, "PDP.D_DATA_CUBE_IN_HEIGHT", 7);
    assert_int_equal(dla_layer_count(f.d), 1);
    const struct dla_layer *l = dla_layer_get(f.d, 0);
    assert_int_equal(l->proc, DLA_P_PDP);
    assert_int_equal(l->group, 0);
    assert_int_equal(l->state, DLA_LAYER_PROGRAMMING);
    assert_int_equal(l->reg_writes, 2);
    /* the other group is another layer */
    wr(f.d, "PDP.S_POINTER", 1);
    wr(f.d, "PDP.D_DATA_CUBE_IN_WIDTH", 3);
    assert_int_equal(dla_layer_count(f.d), 2);
    assert_int_equal(dla_layer_get(f.d, 1)->group, 1);
    /* OP_EN without PDP_RDMA: enabled, waiting for the rest of its pipeline */
    wr(f.d, "PDP.S_POINTER", 0);
    wr(f.d, "PDP.D_OPERATION_MODE_CFG", 1u << 4); /* offline */
    wr(f.d, "PDP.D_OP_ENABLE", 1);
    assert_int_equal(dla_layer_get(f.d, 0)->state, DLA_LAYER_ENABLED);
    assert_int_equal(count_kind(f.rec, DLA_EV_LAYER_ENABLE), 1);
    assert_false(dla_busy(f.d));
    /* S_STATUS reports group 0 pending */
    assert_int_equal(rd(f.d, "PDP.S_STATUS") & 3, 2);
    /* writing an enabled group is flagged */
    wr(f.d, "PDP.D_DATA_CUBE_IN_WIDTH", 5);
    assert_non_null(find_diag(f.rec, DLA_DIAG_GROUP_BUSY, NULL));
    drop(&f);
}

/* ---------------------------------------------------------------- BDMA */

struct bdma_op {
    uint64_t src, dst;
    uint32_t line_bytes, lines, surfs, src_line, dst_line, src_surf, dst_surf;
    int src_mc, dst_mc;
};

static void bdma_stage(struct dla *d, const struct bdma_op *op)
{
    wr(d, "BDMA.CFG_SRC_ADDR_LOW", (uint32_t)op->src);
    wr(d, "BDMA.CFG_SRC_ADDR_HIGH", (uint32_t)(op->src >> 32));
    wr(d, "BDMA.CFG_DST_ADDR_LOW", (uint32_t)op->dst);
    wr(d, "BDMA.CFG_DST_ADDR_HIGH", (uint32_t)(op->dst >> 32));
    wr(d, "BDMA.CFG_LINE", op->line_bytes / 32 - 1);
    wr(d, "BDMA.CFG_LINE_REPEAT", op->lines - 1);
    wr(d, "BDMA.CFG_SURF_REPEAT", op->surfs - 1);
    wr(d, "BDMA.CFG_SRC_LINE", op->src_line);
    wr(d, "BDMA.CFG_DST_LINE", op->dst_line);
    wr(d, "BDMA.CFG_SRC_SURF", op->src_surf);
    wr(d, "BDMA.CFG_DST_SURF", op->dst_surf);
    wr(d, "BDMA.CFG_CMD", (uint32_t)(op->src_mc | (op->dst_mc << 1)));
    wr(d, "BDMA.CFG_OP", 1);
}

static void run_until_idle(struct dla *d)
{
    while (dla_advance(d))
        ;
}

/* The copy written out plainly: every line of every surface. */
static void reference_copy(uint8_t *dst, const uint8_t *src, const struct bdma_op *op,
                           uint64_t src_base, uint64_t dst_base)
{
    for (uint32_t s = 0; s < op->surfs; s++)
        for (uint32_t l = 0; l < op->lines; l++)
            memcpy(dst + (op->dst - dst_base) + s * op->dst_surf + l * op->dst_line,
                   src + (op->src - src_base) + s * op->src_surf + l * op->src_line,
                   op->line_bytes);
}

static void test_bdma_geometry(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    enum { SRC_SIZE = 0x4000, DST_SIZE = 0x4000 };
    uint8_t *src = malloc(SRC_SIZE), *want = calloc(1, DST_SIZE), *got = malloc(DST_SIZE);
    for (int i = 0; i < SRC_SIZE; i++)
        src[i] = (uint8_t)(i * 7 + 3);
    const uint64_t src_base = 0x80000000, dst_base = 0x50000000;
    dla_mem_write(f.d, DLA_DRAM, src_base, src, SRC_SIZE);
    /* DRAM -> CV-SRAM, 64-byte lines, 3 lines per surface, 2 surfaces, padded strides */
    struct bdma_op op = {.src = src_base + 0x100,
                         .dst = dst_base + 0x40,
                         .line_bytes = 64,
                         .lines = 3,
                         .surfs = 2,
                         .src_line = 0x60,
                         .dst_line = 0x80,
                         .src_surf = 0x400,
                         .dst_surf = 0x800,
                         .src_mc = 1,
                         .dst_mc = 0};
    bdma_stage(f.d, &op);
    assert_int_equal(rd(f.d, "BDMA.STATUS") & 0xff, 19);
    assert_int_equal((rd(f.d, "BDMA.STATUS") >> 8) & 1, 0); /* not idle: one op staged */
    wr(f.d, "BDMA.CFG_LAUNCH1", 1);
    assert_int_equal((rd(f.d, "BDMA.STATUS") >> 10) & 1, 1); /* group 1 busy */
    assert_int_equal(dla_mem_read(f.d, DLA_CVSRAM, dst_base, got, DST_SIZE), MEM_OK);
    for (int i = 0; i < DST_SIZE; i++)
        assert_int_equal(got[i], 0); /* nothing written before completion */
    run_until_idle(f.d);
    assert_int_equal(rd(f.d, "GLB.S_INTR_STATUS"), 1u << 7);
    assert_int_equal(rd(f.d, "BDMA.STATUS"), 0x114); /* idle, 20 free */
    reference_copy(want, src, &op, src_base, dst_base);
    dla_mem_read(f.d, DLA_CVSRAM, dst_base, got, DST_SIZE);
    assert_memory_equal(got, want, DST_SIZE);
    /* the layer saw the bytes and the clients */
    const struct dla_layer *l = dla_layer_get(f.d, 0);
    assert_int_equal(l->proc, DLA_P_BDMA);
    assert_int_equal(l->group, 1);
    assert_int_equal(l->state, DLA_LAYER_DONE);
    assert_int_equal(dla_layer_client_bytes(l, DLA_C_BDMA_RD), 64 * 3 * 2);
    assert_int_equal(dla_layer_client_bytes(l, DLA_C_BDMA_WR), 64 * 3 * 2);
    assert_true(l->end_cycle > l->start_cycle);
    free(src);
    free(want);
    free(got);
    drop(&f);
}

/* A BDMA operation's lines, written one after another, are held in one
 * buffer allocated for all of them at the first line: grown by realloc line
 * by line (doubling) it had room for 4 of 3 lines here, and moved whenever
 * the heap held something just after it (make bench's BDMA trace copied 7 MB
 * a run that way; share/performance-history.md).  Lines with gaps between
 * surfaces get a buffer per surface; the copy is the same either way. */
static void test_bdma_holds_an_operation_whole(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    enum { LINE = 4096, LINES = 3, SURFS = 2 };
    uint8_t *src = malloc(2 * LINES * LINE), *got = malloc(2 * LINES * LINE);
    for (int i = 0; i < 2 * LINES * LINE; i++)
        src[i] = (uint8_t)(i * 13 + 5);
    dla_mem_write(f.d, DLA_DRAM, 0x80000000, src, 2 * LINES * LINE);
    struct bdma_op packed = {.src = 0x80000000,
                             .dst = 0x81000000,
                             .line_bytes = LINE,
                             .lines = LINES,
                             .surfs = SURFS,
                             .src_line = LINE,
                             .dst_line = LINE,
                             .src_surf = LINES * LINE,
                             .dst_surf = LINES * LINE,
                             .src_mc = 1,
                             .dst_mc = 1};
    struct bdma_op gapped = packed;
    gapped.dst = 0x82000000;
    gapped.dst_surf = 2 * LINES * LINE;
    bdma_stage(f.d, &packed);
    bdma_stage(f.d, &gapped);
    wr(f.d, "BDMA.CFG_LAUNCH0", 1);
    const struct dla_pipe *p = one_stage_launched(f.d);
    assert_non_null(p);
    assert_int_equal(p->n_writes, 3);
    assert_int_equal(p->writes[0].len, SURFS * LINES * LINE);
    assert_int_equal(p->writes[0].cap, SURFS * LINES * LINE);
    for (int i = 1; i < 3; i++) {
        assert_int_equal(p->writes[i].len, LINES * LINE);
        assert_int_equal(p->writes[i].cap, LINES * LINE);
    }
    run_until_idle(f.d);
    dla_mem_read(f.d, DLA_DRAM, 0x81000000, got, SURFS * LINES * LINE);
    assert_memory_equal(got, src, SURFS * LINES * LINE);
    for (int s = 0; s < SURFS; s++) {
        dla_mem_read(f.d, DLA_DRAM, 0x82000000 + (uint64_t)s * 2 * LINES * LINE, got,
                     LINES * LINE);
        assert_memory_equal(got, src + s * LINES * LINE, LINES * LINE);
    }
    free(src);
    free(got);
    drop(&f);
}

static void test_bdma_slots_and_perf(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    struct bdma_op op = {.src = 0x80000000,
                         .dst = 0x81000000,
                         .line_bytes = 32,
                         .lines = 1,
                         .surfs = 1,
                         .src_line = 32,
                         .dst_line = 32,
                         .src_surf = 32,
                         .dst_surf = 32,
                         .src_mc = 1,
                         .dst_mc = 1};
    for (int i = 0; i < 20; i++)
        bdma_stage(f.d, &op);
    assert_int_equal(rd(f.d, "BDMA.STATUS") & 0xff, 0);
    const char *msg = NULL;
    assert_null(find_diag(f.rec, DLA_DIAG_RULE, NULL));
    bdma_stage(f.d, &op); /* a 21st operation has no slot */
    const struct dla_event *ev = find_diag(f.rec, DLA_DIAG_RULE, &msg);
    assert_non_null(ev);
    assert_string_equal(ev->u.diag.rule, "bdma.free_slot");
    wr(f.d, "BDMA.CFG_STATUS", 1); /* stall counters on */
    wr(f.d, "BDMA.CFG_LAUNCH0", 1);
    run_until_idle(f.d);
    assert_int_equal(rd(f.d, "GLB.S_INTR_STATUS"), 1u << 6);
    const struct dla_layer *l = dla_layer_get(f.d, 0);
    assert_int_equal(dla_layer_client_bytes(l, DLA_C_BDMA_RD), 20 * 32);
    bool found = false;
    for (uint32_t i = 0; i < l->n_counters; i++)
        found |= strcmp(l->counters[i].name, "BDMA.STATUS_GRP0_READ_STALL") == 0;
    assert_true(found);
    drop(&f);
}

static void test_bdma_out_of_range(void **state)
{
    (void)state;
    struct fixture f = make("nv_small_256_full"); /* 32-bit addresses, has CV-SRAM, no BDMA */
    drop(&f);
    f = make("nv_full");
    struct bdma_op op = {.src = 0xfffffffffffff000ull,
                         .dst = 0x80000000,
                         .line_bytes = 8192,
                         .lines = 1,
                         .surfs = 1,
                         .src_mc = 1,
                         .dst_mc = 1};
    bdma_stage(f.d, &op);
    wr(f.d, "BDMA.CFG_LAUNCH0", 1);
    assert_non_null(find_diag(f.rec, DLA_DIAG_MEM, NULL));
    run_until_idle(f.d);
    /* the layer completes (nothing hangs), its interrupt fires */
    assert_int_equal(rd(f.d, "GLB.S_INTR_STATUS"), 1u << 6);
    drop(&f);
}

/* ---------------------------------------------------------------- snapshots */

static void test_snapshot_restore(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    uint8_t pattern[256];
    for (int i = 0; i < 256; i++)
        pattern[i] = (uint8_t)i;
    dla_mem_write(f.d, DLA_DRAM, 0x80000000, pattern, sizeof pattern);
    struct bdma_op op = {.src = 0x80000000,
                         .dst = 0x80010000,
                         .line_bytes = 256,
                         .lines = 1,
                         .surfs = 1,
                         .src_mc = 1,
                         .dst_mc = 1};
    bdma_stage(f.d, &op);
    struct dla_snapshot *snap = dla_snapshot_take(f.d);
    assert_non_null(snap);
    /* packed: the register file and idle pipes are mostly zeros, and a
     * checkpoint of every layer of a run must not cost 70 KiB each */
    assert_true(dla_snapshot_bytes(snap) < 16 * 1024);
    wr(f.d, "BDMA.CFG_LAUNCH0", 1);
    run_until_idle(f.d);
    uint64_t t1 = dla_now(f.d);
    uint8_t got[256];
    dla_mem_read(f.d, DLA_DRAM, 0x80010000, got, sizeof got);
    assert_memory_equal(got, pattern, sizeof got);
    /* back to before the launch: copy not done, one slot staged, no layer done */
    dla_snapshot_restore(f.d, snap);
    dla_mem_read(f.d, DLA_DRAM, 0x80010000, got, sizeof got);
    for (int i = 0; i < 256; i++)
        assert_int_equal(got[i], 0);
    assert_int_equal(rd(f.d, "BDMA.STATUS") & 0xff, 19);
    assert_int_equal(dla_layer_get(f.d, 0)->state, DLA_LAYER_PROGRAMMING);
    /* replaying gives the same result at the same cycle; listeners survived */
    size_t events_before = f.rec->n;
    wr(f.d, "BDMA.CFG_LAUNCH0", 1);
    run_until_idle(f.d);
    assert_true(f.rec->n > events_before);
    assert_int_equal(dla_now(f.d), t1);
    dla_mem_read(f.d, DLA_DRAM, 0x80010000, got, sizeof got);
    assert_memory_equal(got, pattern, sizeof got);
    /* the snapshot is still usable after a restore */
    dla_snapshot_restore(f.d, snap);
    assert_int_equal(rd(f.d, "BDMA.STATUS") & 0xff, 19);
    dla_snapshot_free(snap);
    drop(&f);
}

/* A snapshot keeps the plain state packed, all-zero blocks left out: every
 * byte comes back, from stored blocks and left-out ones alike, up to the
 * counters at the struct's very end (its last block, shorter than the
 * others). */
static void fill_pattern(void *p, size_t n, uint32_t seed)
{
    uint32_t *w = p;
    for (size_t i = 0; i < n / 4; i++) /* runs of zeros and of values, blocks apart */
        w[i] = (i / 13) % 3 == 0 ? 0 : seed * (uint32_t)(i + 1) | 1u;
}

static void test_snapshot_packs_every_byte(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    struct dla *d = f.d;
    fill_pattern(d->regs, sizeof d->regs, 0x9e3779b9u);
    fill_pattern(d->dregs, sizeof d->dregs, 0x85ebca6bu);
    fill_pattern(d->rule_hits, sizeof d->rule_hits, 0xc2b2ae35u);
    memset(d->diag_buf, 'x', sizeof d->diag_buf);
    struct dla *want = malloc(sizeof *want);
    assert_non_null(want);
    memcpy(want, d, sizeof *d);
    struct dla_snapshot *snap = dla_snapshot_take(d);
    assert_non_null(snap);
    memset(d->regs, 0x5a, sizeof d->regs);
    memset(d->dregs, 0, sizeof d->dregs);
    memset(d->rule_hits, 0xa5, sizeof d->rule_hits);
    memset(d->diag_buf, 0, sizeof d->diag_buf);
    dla_snapshot_restore(d, snap);
    assert_memory_equal(d->regs, want->regs, sizeof d->regs);
    assert_memory_equal(d->dregs, want->dregs, sizeof d->dregs);
    assert_memory_equal(d->rule_hits, want->rule_hits, sizeof d->rule_hits);
    assert_memory_equal(d->diag_buf, want->diag_buf, sizeof d->diag_buf);
    assert_int_equal(d->now, want->now);
    /* what it holds: the blocks with values, not the zero runs between */
    size_t plain = sizeof d->regs + sizeof d->dregs + sizeof d->rule_hits;
    assert_true(dla_snapshot_bytes(snap) > plain / 2);
    assert_true(dla_snapshot_bytes(snap) < sizeof *d);
    dla_snapshot_free(snap);
    free(want);
    drop(&f);
}

/* What a snapshot costs is what the model overwrote since: nothing of the
 * memory at first, one 4 KiB block (not the 64 KiB page) once the model
 * writes a byte into it, half a block each when two snapshots share the
 * block the model left. */
static void test_snapshot_bytes_apart(void **state)
{
    (void)state;
    struct fixture f = make("nv_full");
    uint8_t b = 1;
    dla_mem_write(f.d, DLA_DRAM, 0x80000000, &b, 1);
    dla_mem_write(f.d, DLA_DRAM, 0x80008000, &b, 1); /* another block of the page */
    struct dla_snapshot *first = dla_snapshot_take(f.d);
    size_t own = dla_snapshot_bytes(first);
    assert_true(dla_snapshot_bytes_apart(first, f.d) < own + 1024);
    b = 2;
    dla_mem_write(f.d, DLA_DRAM, 0x80000000, &b, 1);
    size_t block = dla_snapshot_bytes_apart(first, f.d) - own;
    assert_true(block >= MEM_BLOCK_SIZE && block < MEM_BLOCK_SIZE + 1024);
    struct dla_snapshot *second = dla_snapshot_take(f.d), *third = dla_snapshot_take(f.d);
    b = 3;
    dla_mem_write(f.d, DLA_DRAM, 0x80000000, &b, 1);
    size_t a1 = dla_snapshot_bytes_apart(first, f.d) - own;
    size_t a2 = dla_snapshot_bytes_apart(second, f.d) - dla_snapshot_bytes(second);
    assert_true(a1 >= MEM_BLOCK_SIZE && a1 < MEM_BLOCK_SIZE + 1024); /* its own block, alone */
    assert_true(a2 >= MEM_BLOCK_SIZE / 2 && a2 < MEM_BLOCK_SIZE / 2 + 1024); /* shared with third */
    assert_int_equal(dla_snapshot_bytes_apart(third, f.d) - dla_snapshot_bytes(third), a2);
    /* and restoring gives each its bytes back */
    uint8_t got;
    dla_snapshot_restore(f.d, second);
    dla_mem_read(f.d, DLA_DRAM, 0x80000000, &got, 1);
    assert_int_equal(got, 2);
    dla_snapshot_restore(f.d, first);
    dla_mem_read(f.d, DLA_DRAM, 0x80000000, &got, 1);
    assert_int_equal(got, 1);
    dla_mem_read(f.d, DLA_DRAM, 0x80008000, &got, 1);
    assert_int_equal(got, 1);
    dla_snapshot_free(third);
    dla_snapshot_free(second);
    dla_snapshot_free(first);
    drop(&f);
}

/* ---------------------------------------------------------------- threads */

/* The size of the program's own thread-local storage (its PT_TLS segment). */
static int program_tls(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    if (info->dlpi_name && info->dlpi_name[0])
        return 0; /* a shared library: the program comes first */
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS)
            *(size_t *)ctx = info->dlpi_phdr[i].p_memsz;
    return 1;
}

struct by_name_job {
    struct dla *d;
    uint32_t line[4], number[4];
};

static void read_by_name(void *ctx, unsigned worker, unsigned workers)
{
    (void)workers;
    struct by_name_job *j = ctx;
    for (int twice = 0; twice < 2; twice++) { /* the second from the thread's cache */
        j->line[worker] = dla_reg(j->d, DLA_U_BDMA, 0, "CFG_LINE");
        j->number[worker] = dla_field(j->d, DLA_U_BDMA, 0, "CFG_LINE_REPEAT", "NUMBER");
    }
}

/* The C library zeroes all of a thread's static thread-local storage when
 * it starts the thread: the model's 36 KiB cache of registers by name was
 * resident in every worker of the datapath loops (dla_parallel), which never
 * look a name up (issue 34).  Each thread's cache is allocated at its first
 * lookup instead, and a worker that does look up gets the same answers. */
static void test_names_on_workers(void **state)
{
    (void)state;
    size_t tls = 0;
    dl_iterate_phdr(program_tls, &tls);
    if (tls > 1024)
        fail_msg("%zu bytes of thread-local storage, each thread's in full", tls);
    struct fixture f = make("nv_full");
    wr(f.d, "BDMA.CFG_LINE", 0x1f);
    wr(f.d, "BDMA.CFG_LINE_REPEAT", 5);
    assert_int_equal(dla_reg(f.d, DLA_U_BDMA, 0, "CFG_LINE"), 0x1f);
    struct by_name_job j = {.d = f.d};
    dla_parallel(4, read_by_name, &j);
    for (int w = 0; w < 4; w++) {
        assert_int_equal(j.line[w], 0x1f);
        assert_int_equal(j.number[w], 5);
    }
    drop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset_values),
        cmocka_unit_test(test_ping_pong_groups),
        cmocka_unit_test(test_read_only_and_w1c),
        cmocka_unit_test(test_write_mask_v1_addresses),
        cmocka_unit_test(test_reserved_and_unmapped),
        cmocka_unit_test(test_absent_units),
        cmocka_unit_test(test_layer_tracking),
        cmocka_unit_test(test_bdma_geometry),
        cmocka_unit_test(test_bdma_holds_an_operation_whole),
        cmocka_unit_test(test_bdma_slots_and_perf),
        cmocka_unit_test(test_bdma_out_of_range),
        cmocka_unit_test(test_snapshot_restore),
        cmocka_unit_test(test_snapshot_bytes_apart),
        cmocka_unit_test(test_snapshot_packs_every_byte),
        cmocka_unit_test(test_cbuf_flush_after_reset),
        cmocka_unit_test(test_csb_access_time),
        cmocka_unit_test(test_names_on_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
