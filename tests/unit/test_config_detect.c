/* Telling the configuration a file was made for (config_detect.c) and
 * choosing the session's configuration with it (config_choice.c), on
 * loadables built here with the loadable writer: one direct convolution laid
 * out as NVIDIA's compiler lays it out for a given atom and CBUF entry width,
 * the project's own samples, and small register traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "debug/config_choice.h"
#include "debug/config_detect.h"
#include "dbg_fixture.h"
#include "loadable/fw_desc.h"
#include "loadable/loadable.h"
#include "loadable/loadable_driver.h"
#include "loadable/loadable_writer.h"
#include "sample/sample_net.h"
#include "sdp_net.h"
#include "trace/txn_prog.h"

/* A direct convolution's input as a compiler for one configuration writes it. */
struct conv_shape {
    unsigned atom;    /* bytes of a memory atom: line stride = width x atom */
    unsigned prec;    /* FW_PREC_* */
    uint16_t w, h, c; /* input cube */
    uint16_t eps;     /* entries per slice the compiler chose */
    uint8_t data_bank, weight_bank;
    uint8_t tensor_format; /* runtime tensor pixel format: 36 FEATURE, 37 FEATURE_X8 */
};

static struct fw_cube feature_cube(int16_t address, unsigned atom, uint16_t w, uint16_t h,
                                   uint16_t c)
{
    uint32_t line = (uint32_t)w * atom;
    return (struct fw_cube){.type = FW_MEM_MC,
                            .address = address,
                            .size = line * h,
                            .width = w,
                            .height = h,
                            .channel = c,
                            .line_stride = line,
                            .surf_stride = line * h};
}

/* The shared one-operation network (sdp_net.h) with the convolution instead. */
static void encode_conv(const struct conv_shape *s, uint8_t **buf, size_t *len)
{
    struct sdp_net n;
    sdp_net_init(&n);
    n.nd.op_head[FW_OP_SDP] = -1;
    n.nd.op_head[FW_OP_CONV] = 0;
    n.dep.op_type = FW_OP_CONV;
    n.op = (struct fw_op){.type = FW_OP_CONV};
    struct fw_conv_op *o = &n.op.u.conv.op;
    o->data_format = 36;
    o->batch = 1;
    o->in_precision = o->out_precision = (uint8_t)s->prec;
    o->entry_per_slice = s->eps;
    o->data_bank = s->data_bank;
    o->weight_bank = s->weight_bank;
    n.op.u.conv.surface.src = feature_cube(4, s->atom, s->w, s->h, s->c);
    n.op.u.conv.surface.dst = feature_cube(5, s->atom, s->w, s->h, 8);
    n.op.u.conv.surface.weight = (struct fw_cube){
        .type = FW_MEM_MC, .address = 5, .size = 64, .width = 1, .height = 1, .channel = 1};
    n.op.u.conv.surface.wmb.address = n.op.u.conv.surface.wgs.address = -1;
    n.mem_bytes = 1u << 16;
    n.tensor =
        (struct ld_tensor){.name = "data",
                           .mem_id = 4,
                           .size = 64,
                           .data_format = 1,
                           .data_type = s->prec == FW_PREC_FP16 ? LD_TYPE_HALF : LD_TYPE_INT8,
                           .data_category = 2,
                           .pixel_format = s->tensor_format,
                           .n = 1,
                           .c = s->c,
                           .h = s->h,
                           .w = s->w};
    sdp_net_encode_as(&n, FW_LAYOUT_CURRENT, (struct ld_version){0, 12, 3}, buf, len);
}

static void detect_shape(const struct conv_shape *s, struct cfg_detection *d)
{
    uint8_t *buf;
    size_t len;
    char err[256];
    encode_conv(s, &buf, &len);
    struct loadable *l = loadable_parse(buf, len, "net", err, sizeof err);
    if (!l)
        fail_msg("%s", err);
    config_detect_loadable(l, d);
    loadable_free(l);
    free(buf);
}

static bool fits(const struct cfg_detection *d, const char *name)
{
    const struct cfg_fit *f = config_detection_fit(d, dla_config_find(name));
    assert_non_null(f);
    return f->violations == 0;
}

/* LeNet's first layer for nv_small: 28x28x1 int8, 8-byte atoms, one 8-byte
 * entry per atom, so 28 entries per slice (a 32-byte entry would hold it in 7). */
static const struct conv_shape small_lenet = {.atom = 8,
                                              .prec = FW_PREC_INT8,
                                              .w = 28,
                                              .h = 28,
                                              .c = 1,
                                              .eps = 28,
                                              .data_bank = 20,
                                              .weight_bank = 6,
                                              .tensor_format = 37};

static void test_nv_small_network(void **state)
{
    (void)state;
    struct cfg_detection d;
    detect_shape(&small_lenet, &d);
    assert_true(d.evidence);
    assert_string_equal(d.fits[0].cfg->name, "nv_small");
    assert_int_equal(d.fits[0].violations, 0);
    assert_false(fits(&d, "nv_small_256"));        /* 32-byte entries: 7 per slice */
    assert_false(fits(&d, "nv_full"));             /* 16 banks and 32-byte atoms */
    assert_false(fits(&d, "nv_medium_1024_full")); /* 224-byte lines hold 7 32-byte atoms */
    assert_non_null(strstr(config_detection_fit(&d, dla_config_find("nv_full"))->why_not,
                           "CBUF banks, it has 16"));
    char line[600];
    config_detection_line(&d, "net.nvdla", "compiled for", line, sizeof line);
    assert_string_equal(line, "net.nvdla: compiled for nv_small (atom 8 bytes, 8-byte CBUF "
                              "entries, convolutions take up to 26 of 32 CBUF banks, int8)");
}

static void test_nv_full_fp16_network(void **state)
{
    (void)state;
    /* 28x28x1 fp16: one 32-byte atom of channels, four atoms an entry: 28/4 */
    struct conv_shape s = {.atom = 32,
                           .prec = FW_PREC_FP16,
                           .w = 28,
                           .h = 28,
                           .c = 1,
                           .eps = 7,
                           .data_bank = 2,
                           .weight_bank = 1,
                           .tensor_format = 36};
    struct cfg_detection d;
    detect_shape(&s, &d);
    assert_string_equal(d.fits[0].cfg->name, "nv_full");
    assert_int_equal(d.fits[0].violations, 0);
    assert_false(fits(&d, "nv_large")); /* int8 only */
    assert_string_equal(config_detection_fit(&d, dla_config_find("nv_large"))->why_not,
                        "it has no fp16");
}

static void test_int8_nv_full_network_names_the_others(void **state)
{
    (void)state;
    /* 8x8x16 int8 on 32-byte atoms: one atom, a quarter of a 128-byte entry a
     * pixel: 2 entries per slice; nv_large's 64-byte entries would give 4 and
     * nv_medium_1024_full's 32-byte ones 8 */
    struct conv_shape s = {.atom = 32,
                           .prec = FW_PREC_INT8,
                           .w = 8,
                           .h = 8,
                           .c = 16,
                           .eps = 2,
                           .data_bank = 1,
                           .weight_bank = 1,
                           .tensor_format = 36};
    struct cfg_detection d;
    detect_shape(&s, &d);
    assert_string_equal(d.fits[0].cfg->name, "nv_full");
    assert_false(fits(&d, "nv_large"));
    assert_false(fits(&d, "nv_medium_1024_full"));
    /* a 1x1x16 input (a fully-connected layer) takes one entry on all three */
    s.w = s.h = 1;
    s.eps = 1;
    detect_shape(&s, &d);
    assert_string_equal(d.fits[0].cfg->name, "nv_full"); /* the compiler's target first */
    assert_true(fits(&d, "nv_large"));
    assert_true(fits(&d, "nv_medium_1024_full"));
    assert_false(fits(&d, "nv_small")); /* 16 channels are two 8-byte entries */
    char line[600];
    config_detection_line(&d, "net.nvdla", "compiled for", line, sizeof line);
    assert_non_null(strstr(line, "; also fits nv_large, nv_medium_1024_full"));
}

static void test_samples_and_units(void **state)
{
    (void)state;
    static const char *const only_full[] = {"bdma", "rubik"}; /* units nv_full alone has */
    for (size_t i = 0; i < 2; i++) {
        char err[256];
        char name[32];
        snprintf(name, sizeof name, "sample:%s", only_full[i]);
        struct loadable *l = sample_net_load(name, err, sizeof err);
        assert_non_null(l);
        struct cfg_detection d;
        config_detect_loadable(l, &d);
        loadable_free(l);
        assert_string_equal(d.fits[0].cfg->name, "nv_full");
        assert_int_equal(d.fits[0].violations, 0);
        assert_false(fits(&d, "nv_large"));
    }
}

static void test_txn_register_map(void **state)
{
    (void)state;
    char path[400], err[512];
    struct cfg_detection d;
    /* CDMA.D_OP_ENABLE and CDMA.S_STATUS of the v1 map (CDMA at 0x5000) */
    fixture_write("v1.txn", "write_reg 0xffff1404 0x1\nread_reg 0xffff1400 0xffffffff 0x0\n");
    fixture_path(path, sizeof path, "v1.txn");
    assert_true(config_detect_txn(path, &d, err, sizeof err));
    assert_true(d.evidence);
    assert_string_equal(d.fits[0].cfg->name, "nv_full");
    assert_false(fits(&d, "nv_small"));
    /* RUBIK.D_OP_ENABLE and S_STATUS of the v2 map (RBK at 0x11000; nothing there in v1) */
    fixture_write("v2.txn", "write_reg 0xffff4402 0x1\nread_reg 0xffff4400 0xffffffff 0x0\n");
    fixture_path(path, sizeof path, "v2.txn");
    assert_true(config_detect_txn(path, &d, err, sizeof err));
    assert_false(fits(&d, "nv_full"));
    assert_true(fits(&d, "nv_small"));
    /* v2 values: CDMA.D_BANK 20 + 5 banks, SDP.D_DST_LINE_STRIDE 72 (8-byte atoms) */
    fixture_write("v2b.txn", "write_reg 0xffff4402 0x1\nwrite_reg 0xffff0c2f 0x00040013\n"
                             "write_reg 0xffff2414 0x48\n");
    fixture_path(path, sizeof path, "v2b.txn");
    assert_true(config_detect_txn(path, &d, err, sizeof err));
    assert_string_equal(d.fits[0].cfg->name, "nv_small");
    assert_true(fits(&d, "nv_small_256"));
    assert_false(fits(&d, "nv_large"));      /* 16 banks */
    assert_false(fits(&d, "nv_medium_512")); /* 16-byte atoms */
    assert_non_null(strstr(config_detection_fit(&d, dla_config_find("nv_medium_512"))->why_not,
                           "line stride 72"));
    assert_false(config_detect_txn("/nonexistent.txn", &d, err, sizeof err));
}

static char notes[1024];

static void keep_note(void *ctx, enum report_level level, const char *text)
{
    (void)ctx, (void)level;
    snprintf(notes, sizeof notes, "%s", text);
}

static void test_choose(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    encode_conv(&small_lenet, &buf, &len);
    char path[400], err[512];
    fixture_path(path, sizeof path, "small.nvdla");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
    free(buf);
    struct report rep = {.print = keep_note};
    /* told from the file, and said */
    notes[0] = 0;
    const struct dla_config *c = config_choose(path, NULL, &rep, err, sizeof err);
    assert_non_null(c);
    assert_string_equal(c->name, "nv_small");
    assert_non_null(strstr(notes, "small.nvdla: compiled for nv_small (atom 8 bytes"));
    /* asked for one it fits: silently that one */
    notes[0] = 0;
    assert_ptr_equal(config_choose(path, dla_config_find("nv_small"), &rep, err, sizeof err),
                     dla_config_find("nv_small"));
    assert_string_equal(notes, "");
    /* asked for one it cannot run on: refused, naming the one it needs */
    assert_null(config_choose(path, dla_config_find("nv_full"), &rep, err, sizeof err));
    assert_non_null(strstr(err, "small.nvdla: compiled for nv_small, it cannot run on nv_full: "));
    assert_non_null(strstr(err, "(use --config nv_small)"));
    /* a file that cannot be read: the default, the loader reports it later */
    assert_ptr_equal(config_choose("/nonexistent.nvdla", NULL, &rep, err, sizeof err),
                     dla_config_default());

    /* the parse is handed on when a configuration is chosen, never on a refusal */
    struct config_parse kept;
    c = config_choose_parsed(path, NULL, &rep, &kept, err, sizeof err);
    assert_ptr_equal(c, dla_config_find("nv_small"));
    assert_non_null(kept.loadable);
    assert_null(kept.txn);
    assert_true(kept.loadable->n_tasks > 0);
    config_parse_free(&kept);
    kept.loadable = (struct loadable *)&kept; /* any value: it must come back NULL */
    assert_null(config_choose_parsed(path, dla_config_find("nv_full"), &rep, &kept, err,
                                     sizeof err));
    assert_null(kept.loadable);
    kept.loadable = (struct loadable *)&kept;
    assert_non_null(config_choose_parsed("/nonexistent.nvdla", NULL, &rep, &kept, err,
                                         sizeof err));
    assert_null(kept.loadable);
}

/* Opening a loadable parses (and opening a sample generates) it once: the
 * parse that told the configuration is the one the driver runs. */
static void test_open_parses_once(void **state)
{
    (void)state;
    char err[512];
    struct report rep = {.print = keep_note};
    struct config_parse kept;
    assert_non_null(config_choose_parsed("sample:conv", NULL, &rep, &kept, err, sizeof err));
    assert_non_null(kept.loadable);
    struct dla *d = dla_create(dla_config_default(), NULL);
    assert_non_null(d);
    /* a path that names nothing: the driver can only have used the parse it was given */
    struct driver *drv =
        loadable_driver_open_parsed(kept.loadable, "/nonexistent/elsewhere.nvdla", NULL, d, &rep,
                                    err, sizeof err);
    assert_non_null(drv);
    drv->ops->destroy(drv);
    dla_destroy(d);
}

/* A .txn trace is read once too: the parse that told its configuration is
 * the one the replay runs (reading it twice was a third of the time of a
 * million-layer trace, issue 36). */
static void test_txn_parsed_once(void **state)
{
    (void)state;
    char path[400], err[512];
    /* a v2 trace (RUBIK.D_OP_ENABLE, CDMA.D_BANK): its configuration is told from it */
    fixture_write("once.txn", "write_reg 0xffff4402 0x1\nwrite_reg 0xffff0c2f 0x00040013\n");
    fixture_path(path, sizeof path, "once.txn");
    struct report rep = {.print = keep_note};
    unsigned long long before = txn_prog_parses();
    struct config_parse kept;
    const struct dla_config *c = config_choose_parsed(path, NULL, &rep, &kept, err, sizeof err);
    assert_non_null(c);
    assert_non_null(kept.txn);
    assert_null(kept.loadable);
    assert_int_equal(txn_prog_count(kept.txn), 2);
    assert_int_equal(txn_prog_parses() - before, 1);
    config_parse_free(&kept);
    /* a whole session: detection and replay, one parse */
    before = txn_prog_parses();
    struct session *s = session_open(path, NULL, &rep, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(txn_prog_parses() - before, 1);
    session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nv_small_network),
        cmocka_unit_test(test_nv_full_fp16_network),
        cmocka_unit_test(test_int8_nv_full_network_names_the_others),
        cmocka_unit_test(test_samples_and_units),
        cmocka_unit_test(test_txn_register_map),
        cmocka_unit_test(test_choose),
        cmocka_unit_test(test_open_parses_once),
        cmocka_unit_test(test_txn_parsed_once),
    };
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
