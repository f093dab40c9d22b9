/* Engine scheduler on the project's own loadables: dependency order and
 * events along the graph, the conv pipeline's enable order, the registers a
 * program writes, interrupt handling, BDMA copies, EMU tasks in the submit
 * list, hostile descriptors (errors, never hangs), and deterministic replay
 * after restoring a saved session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/engine.h"
#include "engine_rig.h"
#include "num/fp16.h"
#include "loadable/fw_desc.h"
#include "loadable/loadable_writer.h"
#include "runtime/runtime.h"
#include "sample/sample_net.h"
#include "sdp_net.h"
#include "debug/session.h"

/* Position of the first log entry of kind for op, or -1. */
static int log_at(const struct engine *e, uint8_t kind, int16_t op)
{
    for (size_t i = 0; i < engine_log_count(e); i++) {
        const struct eng_log *g = engine_log_get(e, i);
        if (g->kind == kind && g->op == op)
            return (int)i;
    }
    return -1;
}

static void test_lenet_dependency_order(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "lenet");
    assert_true(rig_run(&r, 0));
    assert_int_equal(engine_ops_done(r.e), 5);
    /* ops: 0 conv1, 1 sdp1, 2 pool, 3 conv2 (fc), 4 sdp2 */
    for (int16_t op = 0; op < 5; op++) {
        assert_true(log_at(r.e, ENG_LOG_PROGRAM, op) >= 0);
        assert_true(log_at(r.e, ENG_LOG_PROGRAM, op) < log_at(r.e, ENG_LOG_ENABLE, op));
        assert_true(log_at(r.e, ENG_LOG_ENABLE, op) < log_at(r.e, ENG_LOG_COMPLETE, op));
    }
    /* the fused SDP is enabled before its convolution */
    assert_true(log_at(r.e, ENG_LOG_ENABLE, 1) < log_at(r.e, ENG_LOG_ENABLE, 0));
    assert_true(log_at(r.e, ENG_LOG_ENABLE, 4) < log_at(r.e, ENG_LOG_ENABLE, 3));
    /* pooling waits for sdp1's output, the fc layer for the pooling */
    assert_true(log_at(r.e, ENG_LOG_COMPLETE, 1) < log_at(r.e, ENG_LOG_ENABLE, 2));
    assert_true(log_at(r.e, ENG_LOG_COMPLETE, 2) < log_at(r.e, ENG_LOG_ENABLE, 3));
    assert_true(log_at(r.e, ENG_LOG_COMPLETE, 0) < log_at(r.e, ENG_LOG_ENABLE, 3));
    /* conv2 is programmed into the other group while conv1 runs */
    const struct eng_log *p0 = engine_log_get(r.e, (size_t)log_at(r.e, ENG_LOG_PROGRAM, 0));
    const struct eng_log *p3 = engine_log_get(r.e, (size_t)log_at(r.e, ENG_LOG_PROGRAM, 3));
    assert_int_not_equal(p0->group, p3->group);
    /* the dependency counters went back to memory, all at zero */
    enum dla_space s;
    uint64_t base, size;
    assert_true(runtime_task_buffer(&r.rt, 0, 3, &s, &base, &size));
    for (int i = 0; i < 5; i++) {
        uint8_t count = 0xff;
        dla_mem_read(r.d, s, base + 36 * (uint64_t)i + 4, &count, 1);
        assert_int_equal(count, 0);
    }
    rig_close(&r);
}

struct writes {
    size_t n;
    uint32_t addr[8192];
    uint32_t value[8192];
};

static void record_writes(void *ctx, const struct dla_event *ev)
{
    struct writes *w = ctx;
    if (ev->kind == DLA_EV_REG_WRITE && w->n < 8192) {
        w->addr[w->n] = ev->u.reg.addr;
        w->value[w->n++] = ev->u.reg.value;
    }
}

static uint32_t reg_addr(struct dla *d, const char *name)
{
    struct regdb_ref ref;
    assert_true(regdb_resolve(dla_regmap(d), name, &ref));
    return regdb_addr(ref.unit, ref.reg);
}

static void test_conv_enable_order_and_registers(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "conv");
    static struct writes w;
    w.n = 0;
    dla_listen(r.d, record_writes, &w);
    assert_true(rig_run(&r, 0));
    static const char *const order[] = {"SDP.D_OP_ENABLE",    "CACC.D_OP_ENABLE",
                                        "CMAC_A.D_OP_ENABLE", "CMAC_B.D_OP_ENABLE",
                                        "CSC.D_OP_ENABLE",    "CDMA.D_OP_ENABLE"};
    size_t k = 0;
    uint32_t rdma_enable = reg_addr(r.d, "SDP_RDMA.D_OP_ENABLE");
    for (size_t i = 0; i < w.n; i++) {
        assert_int_not_equal(w.addr[i], rdma_enable); /* on-the-fly input: no RDMA */
        if (k < 6 && w.addr[i] == reg_addr(r.d, order[k]))
            k++;
    }
    assert_int_equal(k, 6);
    /* geometry of the sample: 6x6x16 input, 3x3 kernels, 8 of them */
    struct regdb_ref ref;
    assert_true(regdb_resolve(dla_regmap(r.d), "CDMA.D_DATAIN_SIZE_0", &ref));
    assert_int_equal(dla_reg_value(r.d, DLA_U_CDMA, 0, ref.reg->offset), 5u | (5u << 16));
    assert_true(regdb_resolve(dla_regmap(r.d), "CDMA.D_WEIGHT_SIZE_0", &ref));
    assert_int_equal(dla_reg_value(r.d, DLA_U_CDMA, 0, ref.reg->offset), 3 * 3 * 16 - 1);
    assert_true(regdb_resolve(dla_regmap(r.d), "CSC.D_ATOMICS", &ref));
    assert_int_equal(dla_reg_value(r.d, DLA_U_CSC, 0, ref.reg->offset), 4 * 4 - 1);
    assert_true(regdb_resolve(dla_regmap(r.d), "CACC.D_DATAOUT_SIZE_1", &ref));
    assert_int_equal(dla_reg_value(r.d, DLA_U_CACC, 0, ref.reg->offset), 7);
    assert_true(regdb_resolve(dla_regmap(r.d), "SDP.D_DST_BASE_ADDR_LOW", &ref));
    enum dla_space s;
    uint64_t out;
    assert_true(runtime_task_address(&r.rt, 0, 6, &s, &out)); /* input 5, output 6, weights 7 */
    assert_int_equal(dla_reg_value(r.d, DLA_U_SDP, 0, ref.reg->offset), (uint32_t)out);
    rig_close(&r);
}

static void test_bdma_copy_and_interrupts(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "bdma");
    assert_true(rig_run(&r, 0));
    enum dla_space s1, s2;
    uint64_t src, dst;
    assert_true(runtime_task_address(&r.rt, 0, 5, &s1, &src));
    assert_true(runtime_task_address(&r.rt, 0, 6, &s2, &dst));
    static uint8_t a[1024], b[1024];
    dla_mem_read(r.d, s1, src, a, sizeof a);
    dla_mem_read(r.d, s2, dst, b, sizeof b);
    assert_memory_equal(a, b, sizeof a);
    /* the interrupt was cleared and the BDMA sources unmasked */
    assert_int_equal(dla_intr_status(r.d), 0);
    assert_int_equal(dla_intr_mask(r.d) & 0xc0u, 0);
    rig_close(&r);
}

/* ---------------------------------------------------------------- KMD traffic */

/* Every CSB access in order, reads and writes, as NVIDIA's KMD would make them. */
struct accesses {
    size_t n;
    bool read[16384];
    uint32_t addr[16384];
    uint32_t value[16384];
};

static void record_accesses(void *ctx, const struct dla_event *ev)
{
    struct accesses *a = ctx;
    if ((ev->kind == DLA_EV_REG_WRITE || ev->kind == DLA_EV_REG_READ) && a->n < 16384) {
        a->read[a->n] = ev->kind == DLA_EV_REG_READ;
        a->addr[a->n] = ev->u.reg.addr;
        a->value[a->n++] = ev->u.reg.value;
    }
}

/* Where the accesses "R NAME" / "W NAME" of want[] follow each other
 * directly, from position `from` on; -1 when they never do. */
static long find_run(struct dla *d, const struct accesses *a, size_t from, const char *const *want,
                     size_t n_want)
{
    for (size_t i = from; i + n_want <= a->n; i++) {
        size_t k = 0;
        while (k < n_want && a->read[i + k] == (want[k][0] == 'R') &&
               a->addr[i + k] == reg_addr(d, want[k] + 2))
            k++;
        if (k == n_want)
            return (long)i;
    }
    return -1;
}

static size_t count_reads(struct dla *d, const struct accesses *a, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++)
        n += a->read[i] && a->addr[i] == reg_addr(d, name);
    return n;
}

static struct accesses acc;

/* The firmware's reads around its writes (nvdla/sw kmd/firmware): the
 * consumer pointer before a group is chosen (engine.c
 * utils_get_free_group), S_STATUS of the five convolution units before
 * they are programmed (conv.c), GLB.S_INTR_MASK read before it is written
 * (dla_enable_intr), the CBUF flush poll before the enables, and the
 * interrupt handler's reads (engine_isr.c). */
static void test_kmd_reads(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "conv");
    acc.n = 0;
    dla_listen(r.d, record_accesses, &acc);
    assert_true(rig_run(&r, 0));
    static const char *const conv_program[] = {
        "R CACC.S_POINTER",  "W CACC.S_POINTER", "W CMAC_A.S_POINTER", "W CMAC_B.S_POINTER",
        "W CSC.S_POINTER",   "W CDMA.S_POINTER", "R CACC.S_STATUS",    "R CMAC_A.S_STATUS",
        "R CMAC_B.S_STATUS", "R CSC.S_STATUS",   "R CDMA.S_STATUS",    "W CACC.D_MISC_CFG"};
    assert_int_equal(find_run(r.d, &acc, 0, conv_program, 12), 0);
    static const char *const sdp_program[] = {"R SDP.S_POINTER",
                                              "R SDP_RDMA.S_POINTER",
                                              "W SDP.S_POINTER",
                                              "W SDP_RDMA.S_POINTER",
                                              "R GLB.S_INTR_MASK",
                                              "W GLB.S_INTR_MASK",
                                              "W SDP_RDMA.D_FEATURE_MODE_CFG"};
    assert_true(find_run(r.d, &acc, 0, sdp_program, 7) > 0);
    static const char *const conv_enable[] = {"R CDMA.S_CBUF_FLUSH_STATUS", "W CACC.D_OP_ENABLE"};
    long at = find_run(r.d, &acc, 0, conv_enable, 2);
    assert_true(at > 0);
    assert_int_equal(acc.value[at] & 1u, 1); /* polled until the flush was done */
    static const char *const handler[] = {"R GLB.S_INTR_MASK", "R GLB.S_INTR_STATUS",
                                          "W GLB.S_INTR_STATUS", "R GLB.S_INTR_MASK",
                                          "R GLB.S_INTR_STATUS"};
    size_t runs = 0;
    for (long h = find_run(r.d, &acc, 0, handler, 5); h >= 0;
         h = find_run(r.d, &acc, (size_t)h + 5, handler, 5)) {
        assert_int_not_equal(acc.value[h + 1], 0);            /* something came */
        assert_int_equal(acc.value[h + 2], acc.value[h + 1]); /* all of it cleared at once */
        runs++;
    }
    assert_true(runs >= 2);
    /* every S_INTR_STATUS access belongs to a handler run */
    assert_int_equal(count_reads(r.d, &acc, "GLB.S_INTR_STATUS"), 2 * runs);
    rig_close(&r);
}

/* Interrupts that came together are cleared by one write, each handled. */
static void test_interrupts_together(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "conv");
    uint32_t last = 0;
    engine_start(r.e, r.d, &r.rt, 0);
    struct eng_action a;
    while (engine_next_action(r.e, &a))
        rig_do_action(&r, &a, &last);
    while (dla_advance(r.d)) /* the CPU was slow: every source is up */
        ;
    uint32_t status = dla_intr_status(r.d);
    assert_true(status & 1u);         /* SDP group 0 */
    assert_true(status & (1u << 20)); /* CACC group 0 */
    acc.n = 0;
    dla_listen(r.d, record_accesses, &acc);
    engine_interrupt(r.e, r.d);
    while (engine_next_action(r.e, &a))
        rig_do_action(&r, &a, &last);
    assert_true(engine_task_done(r.e));
    assert_false(engine_task_failed(r.e));
    size_t clears = 0;
    for (size_t i = 0; i < acc.n; i++)
        if (!acc.read[i] && acc.addr[i] == reg_addr(r.d, "GLB.S_INTR_STATUS")) {
            assert_int_equal(acc.value[i], status);
            clears++;
        }
    assert_int_equal(clears, 1);
    assert_int_equal(dla_intr_status(r.d), 0);
    rig_close(&r);
}

/* dla_enable_intr is a read-modify-write: sources masked by someone else
 * stay masked. */
static void test_intr_mask_read_modify_write(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "conv");
    uint32_t mask = reg_addr(r.d, "GLB.S_INTR_MASK");
    dla_csb_write(r.d, mask, 0x3cu | 0x3u); /* CDP, PDP and SDP sources masked */
    assert_true(rig_run(&r, 0));
    assert_int_equal(dla_csb_peek(r.d, mask), 0x3cu); /* SDP unmasked, the rest kept */
    rig_close(&r);
}

/* The firmware writes the three SDP_RDMA operand streams' configurations 0
 * (DISABLE=NO, its map_ena[1]) before anything else of an SDP operation;
 * an operation that reads no operand leaves them so. */
static void test_sdp_stream_cfgs_start_at_zero(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "conv");
    acc.n = 0;
    dla_listen(r.d, record_accesses, &acc);
    assert_true(rig_run(&r, 0));
    static const char *const start[] = {"W SDP_RDMA.D_FEATURE_MODE_CFG", "W SDP_RDMA.D_BRDMA_CFG",
                                        "W SDP_RDMA.D_NRDMA_CFG", "W SDP_RDMA.D_ERDMA_CFG"};
    long at = find_run(r.d, &acc, 0, start, 4);
    assert_true(at > 0);
    for (int k = 0; k < 4; k++)
        assert_int_equal(acc.value[at + k], 0);
    static const char *const cfgs[] = {"SDP_RDMA.D_BRDMA_CFG", "SDP_RDMA.D_NRDMA_CFG",
                                       "SDP_RDMA.D_ERDMA_CFG"};
    for (int k = 0; k < 3; k++) {
        struct regdb_ref ref;
        assert_true(regdb_resolve(dla_regmap(r.d), cfgs[k], &ref));
        assert_int_equal(dla_reg_value(r.d, DLA_U_SDP_RDMA, 0, ref.reg->offset), 0);
    }
    rig_close(&r);
}

/* BDMA: STATUS read to choose the group, then polled for a free slot
 * before each transfer is staged. */
static void test_bdma_free_slot_polls(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "bdma");
    acc.n = 0;
    dla_listen(r.d, record_accesses, &acc);
    assert_true(rig_run(&r, 0));
    static const char *const slot[] = {"R BDMA.STATUS", "W BDMA.CFG_SRC_ADDR_LOW"};
    size_t transfers = 0;
    for (long at = find_run(r.d, &acc, 0, slot, 2); at >= 0;
         at = find_run(r.d, &acc, (size_t)at + 2, slot, 2)) {
        assert_true(acc.value[at] & 0xffu); /* a free slot */
        transfers++;
    }
    assert_true(transfers >= 1);
    assert_int_equal(count_reads(r.d, &acc, "BDMA.STATUS"), 1 + transfers);
    rig_close(&r);
}

/* ---------------------------------------------------------------- hostile */

enum breakage {
    BREAK_OP_HEAD,
    BREAK_OP_TYPE,
    BREAK_CONSUMER,
    BREAK_ADDRESS,
    BREAK_HUGE_GRAPH,
    BREAK_NEVER_READY,
};

/* One SDP op from memory to memory, broken in one way. */
static void build_broken(enum breakage how, uint8_t **buf, size_t *len)
{
    struct sdp_net n;
    sdp_net_init(&n);
    if (how == BREAK_OP_HEAD)
        n.nd.op_head[FW_OP_SDP] = 3;
    if (how == BREAK_HUGE_GRAPH) { /* far more than the 36-byte graph holds */
        n.nd.num_operations = 60000;
        n.nd.num_rois = 64;
    }
    if (how == BREAK_OP_TYPE)
        n.dep.op_type = 9;
    if (how == BREAK_CONSUMER)
        n.dep.consumers[FW_OP_PDP] = (struct fw_consumer){.index = 40, .event = FW_EV_OP_COMPLETED};
    if (how == BREAK_NEVER_READY)
        n.dep.dependency_count = 1; /* nothing will ever signal it */
    if (how == BREAK_ADDRESS)
        n.op.u.sdp.surface.dst.address = 30;
    sdp_net_encode(&n, buf, len);
}

/* The first error message of a run. */
static void keep_message(void *ctx, enum report_level level, const char *text)
{
    char *msg = ctx;
    if (level == REPORT_ERROR && !msg[0])
        snprintf(msg, 2048, "%s", text);
}

static void test_hostile_descriptors(void **state)
{
    (void)state;
    for (int how = BREAK_OP_HEAD; how <= BREAK_NEVER_READY; how++) {
        uint8_t *buf;
        size_t len;
        build_broken((enum breakage)how, &buf, &len);
        struct rig r;
        rig_open_buf(&r, buf, len);
        char msg[2048] = "";
        r.rep.print = keep_message;
        r.rep.ctx = msg;
        if (rig_run(&r, 0))
            fail_msg("breakage %d was not detected", how);
        /* bad input is placed: the file, the descriptor and its file offset */
        if (how != BREAK_NEVER_READY &&
            (strncmp(msg, "net: task 0", 11) != 0 || !strstr(msg, ", file offset 0x")))
            fail_msg("breakage %d: no place in \"%s\"", how, msg);
        if (how == BREAK_OP_TYPE) { /* the offset is that of the broken entry: op_type at +3 */
            const char *at = strstr(msg, "dependency graph entry 0 at ");
            const char *off = at ? strstr(at, "file offset 0x") : NULL;
            assert_non_null(off);
            unsigned long file_off = strtoul(off + strlen("file offset 0x"), NULL, 16);
            assert_true(file_off + 3 < len);
            assert_int_equal(buf[file_off + 3], 9);
        }
        /* a network that never becomes ready hangs: a failed run (exit 1), the others are bad input */
        if (how == BREAK_NEVER_READY)
            assert_true(r.rep.checks_failed > 0 && r.rep.input_errors == 0);
        else
            assert_true(r.rep.input_errors > 0);
        rig_close(&r);
        free(buf);
    }
    /* the unbroken network runs */
    struct rig r;
    uint8_t *buf;
    size_t len;
    build_broken((enum breakage) - 1, &buf, &len);
    rig_open_buf(&r, buf, len);
    assert_true(rig_run(&r, 0));
    rig_close(&r);
    free(buf);
}

/* ---------------------------------------------------------------- sessions */

static void quiet(void *ctx, enum report_level level, const char *text)
{
    (void)ctx;
    (void)level;
    (void)text;
}

static void test_lenet_session_with_emu(void **state)
{
    (void)state;
    struct report rep = {.print = quiet};
    char err[512], out[] = "/tmp/dladbg-lenet-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    struct session_opts opt = {.output = out};
    struct session *s = session_open("sample:lenet", &opt, &rep, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    assert_int_equal(session_step(s, SESSION_RUN, 0), SESSION_DONE);
    assert_int_equal(session_tasks_done(s), 2);
    assert_int_equal(rep.input_errors, 0);
    /* the EMU softmax wrote int8 probabilities scaled by 127 */
    FILE *fp = fopen(out, "rb");
    assert_non_null(fp);
    uint8_t b[36 + 10];
    assert_int_equal(fread(b, 1, sizeof b, fp), sizeof b);
    fclose(fp);
    assert_memory_equal(b, "DIMG", 4);
    int sum = 0;
    for (int i = 0; i < 10; i++) {
        int8_t p = (int8_t)b[36 + i];
        assert_true(p >= 0);
        sum += p;
    }
    assert_true(sum > 100 && sum <= 127);
    session_close(s);
    remove(out);
}

/* NVIDIA's compiled MNIST network (NN_L0_0, when ../shared is present):
 * power on the CPU, eleven DLA layers, softmax on the CPU; the ten fp16
 * probabilities sum to 1 within fp16 precision, and the DIMG equals the
 * regression's golden.dimg byte for byte. */
static void test_nn_l0_0_softmax(void **state)
{
    (void)state;
    const char *data = getenv("NVDLA_TESTDATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/loadables/NN_L0_0/NN_L0_0.nvdla",
             data ? data : "../shared/testdata");
    FILE *probe = fopen(path, "rb");
    if (!probe)
        skip();
    fclose(probe);
    struct report rep = {.print = quiet};
    char err[512], out[] = "/tmp/dladbg-nn-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    struct session_opts opt = {.output = out};
    struct session *s = session_open(path, &opt, &rep, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    assert_int_equal(session_step(s, SESSION_RUN, 0), SESSION_DONE);
    assert_int_equal(session_tasks_done(s), 3);
    assert_int_equal(rep.input_errors, 0);
    session_close(s);
    FILE *fp = fopen(out, "rb");
    assert_non_null(fp);
    uint8_t b[36 + 20], g[sizeof b + 1];
    assert_int_equal(fread(b, 1, sizeof b, fp), sizeof b);
    fclose(fp);
    remove(out);
    snprintf(path, sizeof path, "%s/loadables/NN_L0_0/golden.dimg",
             data ? data : "../shared/testdata");
    FILE *golden = fopen(path, "rb");
    if (golden) {
        assert_int_equal(fread(g, 1, sizeof g, golden), sizeof b);
        fclose(golden);
        assert_memory_equal(b, g, sizeof b);
    }
    double sum = 0;
    for (int i = 0; i < 10; i++) {
        float p = fp16_to_float((uint16_t)(b[36 + 2 * i] | (b[37 + 2 * i] << 8)));
        assert_true(p >= 0.0f && p <= 1.0f);
        sum += p;
    }
    assert_true(sum > 1.0 - 10 * 0x1p-11 && sum < 1.0 + 10 * 0x1p-11);
}

/* The DLA descriptor layout: NVIDIA's blob versions say it; ONNC numbers
 * its blobs 1.2.0, leaves them untagged and writes the legacy data cube
 * (the AlexNet slice decoded as current read garbage addresses). */
static void test_layout_for_blob(void **state)
{
    (void)state;
    assert_int_equal(fw_layout_for_blob(0, 11, 0), FW_LAYOUT_LEGACY); /* NN_L0_0 */
    assert_int_equal(fw_layout_for_blob(0, 12, 1), FW_LAYOUT_CURRENT); /* nvdla_compiler */
    assert_int_equal(fw_layout_for_blob(0, 12, 0), FW_LAYOUT_CURRENT);
    assert_int_equal(fw_layout_for_blob(1, 2, 0), FW_LAYOUT_LEGACY); /* ONNC */
    assert_int_equal(fw_layout_for_blob(1, 2, 1), FW_LAYOUT_CURRENT);
}

static struct writes after_a, after_b;

/* sample:lenet 120 register writes in, and a state saved there. */
static struct session *lenet_saved_early(struct session_state **st)
{
    static struct report rep = {.print = quiet};
    char err[512];
    struct session *s = session_open("sample:lenet", NULL, &rep, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_step(s, SESSION_WRITE, 120), SESSION_STEPPED);
    *st = session_save(s);
    assert_non_null(*st);
    return s;
}

static void test_restore_replays_identically(void **state)
{
    (void)state;
    struct session_state *st;
    struct session *s = lenet_saved_early(&st);
    after_a.n = after_b.n = 0;
    int h = dla_listen(session_dla(s), record_writes, &after_a);
    assert_int_equal(session_step(s, SESSION_RUN, 0), SESSION_DONE);
    dla_unlisten(session_dla(s), h);
    session_load(s, st);
    h = dla_listen(session_dla(s), record_writes, &after_b);
    assert_int_equal(session_step(s, SESSION_RUN, 0), SESSION_DONE);
    dla_unlisten(session_dla(s), h);
    assert_true(after_a.n > 100);
    assert_int_equal(after_a.n, after_b.n);
    assert_memory_equal(after_a.addr, after_b.addr, after_a.n * sizeof after_a.addr[0]);
    assert_memory_equal(after_a.value, after_b.value, after_a.n * sizeof after_a.value[0]);
    session_state_free(st);
    session_close(s);
}

/* A saved state's cost, which the checkpoints' memory budget weighs,
 * counts the driver's copy of its engine: right after the save the model's
 * snapshot shares everything with the live model, so nearly all it holds is
 * that copy (the engine's register map and arrays, some 13 KB a state on
 * resnet18-cifar10, 0.5 MB over a run's 24 states, were left out). */
static void test_saved_state_counts_the_driver(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "lenet");
    size_t fresh_engine = engine_bytes(r.e);
    rig_close(&r);
    struct session_state *st;
    struct session *s = lenet_saved_early(&st);
    assert_true(session_state_bytes(st, s) >= fresh_engine);
    session_state_free(st);
    session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_dependency_order),
        cmocka_unit_test(test_conv_enable_order_and_registers),
        cmocka_unit_test(test_bdma_copy_and_interrupts),
        cmocka_unit_test(test_kmd_reads),
        cmocka_unit_test(test_interrupts_together),
        cmocka_unit_test(test_intr_mask_read_modify_write),
        cmocka_unit_test(test_sdp_stream_cfgs_start_at_zero),
        cmocka_unit_test(test_bdma_free_slot_polls),
        cmocka_unit_test(test_hostile_descriptors),
        cmocka_unit_test(test_lenet_session_with_emu),
        cmocka_unit_test(test_restore_replays_identically),
        cmocka_unit_test(test_saved_state_counts_the_driver),
        cmocka_unit_test(test_nn_l0_0_softmax),
        cmocka_unit_test(test_layout_for_blob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
