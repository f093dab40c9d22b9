/* Register database: the generated tables against facts read by hand from the
 * upstream headers (nvdla/hw nvdlav1 cmod/include/arnvdla.h, nvdla/hw master
 * spec/manual/NVDLA_*.rdl), the name lookup rules, and every register name that
 * NVIDIA's traces use (read from $NVDLA_TESTDATA at test time when present).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "core/dla_priv.h"
#include "core/regdb.h"
#include "core/regdb_tables.h"

/* ---------------------------------------------------------------- helpers */

static const struct regdb_map *full(void)
{
    const struct regdb_map *m = regdb_map("nv_full");
    assert_non_null(m);
    return m;
}

static const struct regdb_map *small(void)
{
    const struct regdb_map *m = regdb_map("nv_small");
    assert_non_null(m);
    return m;
}

/* The register a dotted name resolves to; fails the test when it does not. */
static struct regdb_ref must_resolve(const struct regdb_map *map, const char *name)
{
    struct regdb_ref ref;
    if (!regdb_resolve(map, name, &ref))
        fail_msg("%s does not resolve in %s", name, map->name);
    return ref;
}

static const struct regdb_reg *reg_of(const struct regdb_map *map, const char *name)
{
    return must_resolve(map, name).reg;
}

static uint32_t addr_of(const struct regdb_map *map, const char *name)
{
    struct regdb_ref ref = must_resolve(map, name);
    return regdb_addr(ref.unit, ref.reg);
}

static void assert_field(const struct regdb_map *map, const char *name, unsigned msb, unsigned lsb,
                         uint32_t reset, enum regdb_access access)
{
    struct regdb_ref ref = must_resolve(map, name);
    assert_non_null(ref.field);
    assert_int_equal(ref.field->msb, msb);
    assert_int_equal(ref.field->lsb, lsb);
    assert_int_equal(ref.field->reset, reset);
    assert_int_equal(ref.field->access, access);
}

static size_t count_regs(const struct regdb_map *map, size_t *n_fields, size_t *n_dual)
{
    size_t regs = 0, fields = 0, dual = 0;
    for (size_t u = 0; u < map->n_units; u++) {
        regs += map->units[u].n_regs;
        for (size_t r = 0; r < map->units[u].n_regs; r++) {
            fields += map->units[u].regs[r].n_fields;
            dual += map->units[u].regs[r].dual;
        }
    }
    if (n_fields)
        *n_fields = fields;
    if (n_dual)
        *n_dual = dual;
    return regs;
}

/* ------------------------------------------------------------------- maps */

static void test_maps_by_name(void **state)
{
    (void)state;
    assert_string_equal(full()->name, "nv_full");
    assert_string_equal(small()->name, "nv_small");
    assert_ptr_equal(regdb_map("NV_SMALL"), small());
    assert_null(regdb_map("nv_large"));
    assert_null(regdb_map(""));
    assert_null(regdb_map(NULL));
}

/* Reference doc section 4: registers, last offset and D_ count per unit, and
 * the bases of both maps (nv_full has no CFGROM). */
static const struct unit_fact {
    const char *name;
    uint32_t full_base, small_base; /* full_base UINT32_MAX: not in nv_full */
    unsigned regs;
    uint16_t last_offset;
    unsigned dual;
    uint16_t op_enable;
} unit_facts[] = {
    {"CFGROM", UINT32_MAX, 0x00000, 104, 0x19c, 0, 0xffff},
    {"GLB", 0x00000, 0x01000, 4, 0x00c, 0, 0xffff},
    {"GEC", 0x01000, 0x0e000, 32, 0x0b0, 0, 0xffff},
    {"MCIF", 0x02000, 0x02000, 7, 0x018, 0, 0xffff},
    {"CVIF", 0x03000, 0x0f000, 7, 0x018, 0, 0xffff},
    {"BDMA", 0x04000, 0x10000, 21, 0x050, 0, 0xffff},
    {"CDMA", 0x05000, 0x03000, 59, 0x0e8, 55, 0x010},
    {"CSC", 0x06000, 0x04000, 26, 0x064, 24, 0x008},
    {"CMAC_A", 0x07000, 0x05000, 4, 0x00c, 2, 0x008},
    {"CMAC_B", 0x08000, 0x06000, 4, 0x00c, 2, 0x008},
    {"CACC", 0x09000, 0x07000, 14, 0x034, 12, 0x008},
    {"SDP_RDMA", 0x0a000, 0x08000, 37, 0x090, 35, 0x008},
    {"SDP", 0x0b000, 0x09000, 63, 0x0f8, 49, 0x038},
    {"PDP_RDMA", 0x0c000, 0x0a000, 20, 0x04c, 18, 0x008},
    {"PDP", 0x0d000, 0x0b000, 40, 0x09c, 38, 0x008},
    {"CDP_RDMA", 0x0e000, 0x0c000, 17, 0x040, 15, 0x008},
    {"CDP", 0x0f000, 0x0d000, 47, 0x0b8, 29, 0x048},
    {"RBK", 0x10000, 0x11000, 25, 0x060, 23, 0x008},
};

static void check_unit_fact(const struct regdb_map *map, const struct unit_fact *f, uint32_t base)
{
    const struct regdb_unit *u = regdb_unit_named(map, f->name);
    if (base == UINT32_MAX) {
        assert_null(u);
        return;
    }
    assert_non_null(u);
    assert_int_equal(u->base, base);
    assert_int_equal(u->n_regs, f->regs);
    assert_int_equal(u->regs[u->n_regs - 1].offset, f->last_offset);
    assert_int_equal(u->op_enable, f->op_enable);
    unsigned dual = 0;
    for (size_t i = 0; i < u->n_regs; i++)
        dual += u->regs[i].dual;
    assert_int_equal(dual, f->dual);
    assert_ptr_equal(regdb_unit_at(map, base), u);
    assert_ptr_equal(regdb_unit_at(map, base + 0xfff), u);
}

static void test_units_and_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof unit_facts / sizeof unit_facts[0]; i++) {
        check_unit_fact(full(), &unit_facts[i], unit_facts[i].full_base);
        check_unit_fact(small(), &unit_facts[i], unit_facts[i].small_base);
    }
    size_t fields, dual;
    assert_int_equal(full()->n_units, 17);
    assert_int_equal(count_regs(full(), &fields, &dual), 427); /* arnvdla.h, incl. GEC */
    assert_int_equal(fields, 1178);
    assert_int_equal(dual, 302);
    assert_int_equal(small()->n_units, 18);
    assert_int_equal(count_regs(small(), &fields, &dual), 531); /* all 18 RDL units */
    assert_int_equal(fields, 1282);
    assert_int_equal(dual, 302);
    /* opendla_initial.h has everything but GEC. */
    assert_int_equal(427 - regdb_unit_named(full(), "GEC")->n_regs, 395);
}

/* Sorted tables, masks inside fields, names and addresses that round-trip. */
static void check_map_invariants(const struct regdb_map *map)
{
    char name[160];
    for (size_t ui = 0; ui < map->n_units; ui++) {
        const struct regdb_unit *u = &map->units[ui];
        if (ui > 0)
            assert_true(map->units[ui - 1].base < u->base);
        for (size_t ri = 0; ri < u->n_regs; ri++) {
            const struct regdb_reg *r = &u->regs[ri];
            if (ri > 0)
                assert_true(u->regs[ri - 1].offset < r->offset);
            assert_int_equal(r->offset % 4, 0);
            assert_int_equal(r->dual, u->op_enable != 0xffff && r->offset >= u->op_enable);
            assert_true(r->offset / 4u < DLA_REG_WORDS); /* the model's register storage */
            uint32_t all = 0, reset = 0;
            for (size_t fi = 0; fi < r->n_fields; fi++) {
                const struct regdb_field *f = &r->fields[fi];
                uint32_t mask = regdb_field_set(f, 0, 0xffffffffu);
                assert_int_equal(all & mask, 0);
                all |= mask;
                reset = regdb_field_set(f, reset, f->reset);
                assert_int_equal(regdb_field_get(f, reset), f->reset);
            }
            assert_int_equal(r->reset, reset);
            assert_int_equal(r->write_mask & ~all, 0);
            assert_int_equal(r->read_mask & ~all, 0);

            const struct regdb_unit *at_unit = NULL;
            assert_ptr_equal(regdb_reg_at(map, regdb_addr(u, r), &at_unit), r);
            assert_ptr_equal(at_unit, u);
            snprintf(name, sizeof name, "%s.%s", u->name, r->name);
            assert_ptr_equal(reg_of(map, name), r);
            snprintf(name, sizeof name, "NVDLA_%s.%s_0", u->name, r->name);
            assert_ptr_equal(reg_of(map, name), r);
            for (size_t fi = 0; fi < r->n_fields; fi++) {
                snprintf(name, sizeof name, "%s.%s.%s", u->name, r->name, r->fields[fi].name);
                assert_ptr_equal(must_resolve(map, name).field, &r->fields[fi]);
            }
        }
    }
}

static void test_invariants(void **state)
{
    (void)state;
    check_map_invariants(full());
    check_map_invariants(small());
}

/* ---------------------------------------------- facts from the headers */

static void test_glb(void **state)
{
    (void)state;
    const struct regdb_reg *v1 = reg_of(full(), "GLB.S_NVDLA_HW_VERSION");
    const struct regdb_reg *v2 = reg_of(small(), "GLB.S_NVDLA_HW_VERSION");
    assert_int_equal(v1->reset, 0x303031);
    assert_int_equal(v2->reset, 0x303031);
    assert_int_equal(v1->access, REGDB_RO);
    assert_int_equal(v1->write_mask, 0);
    assert_int_equal(addr_of(full(), "GLB.S_NVDLA_HW_VERSION"), 0x0000);
    assert_int_equal(addr_of(small(), "GLB.S_NVDLA_HW_VERSION"), 0x1000);
    assert_field(full(), "GLB.S_NVDLA_HW_VERSION.MAJOR", 7, 0, 0x31, REGDB_RO);
    assert_field(full(), "GLB.S_NVDLA_HW_VERSION.MINOR", 23, 8, 0x3030, REGDB_RO);

    /* Section 3.4: MASK, SET and STATUS share one layout, write mask 0x3f03ff. */
    const struct regdb_map *maps[] = {full(), small()};
    for (size_t i = 0; i < 2; i++) {
        const struct regdb_reg *mask = reg_of(maps[i], "GLB.S_INTR_MASK");
        const struct regdb_reg *set = reg_of(maps[i], "GLB.S_INTR_SET");
        const struct regdb_reg *status = reg_of(maps[i], "GLB.S_INTR_STATUS");
        assert_int_equal(mask->access, REGDB_RW);
        assert_int_equal(mask->write_mask, 0x3f03ff);
        assert_int_equal(mask->read_mask, 0x3f03ff);
        assert_int_equal(set->access, REGDB_WO);
        assert_int_equal(set->write_mask, 0x3f03ff);
        assert_int_equal(set->read_mask, 0);
        assert_int_equal(status->access, REGDB_W1C);
        assert_int_equal(status->write_mask, 0x3f03ff);
        assert_int_equal(status->read_mask, 0x3f03ff);
        assert_int_equal(status->offset, 0xc);
        assert_field(maps[i], "GLB.S_INTR_STATUS.CACC_DONE_STATUS1", 21, 21, 0, REGDB_W1C);
        assert_field(maps[i], "GLB.S_INTR_STATUS.RUBIK_DONE_STATUS0", 8, 8, 0, REGDB_W1C);
        assert_field(maps[i], "GLB.S_INTR_STATUS.CDMA_DAT_DONE_STATUS0", 16, 16, 0, REGDB_W1C);
    }
}

static void test_cfgrom(void **state)
{
    (void)state;
    const struct regdb_unit *u = NULL;
    const struct regdb_reg *r = regdb_reg_at(small(), 0x0, &u);
    assert_non_null(r);
    assert_string_equal(u->name, "CFGROM");
    assert_string_equal(r->name, "CFGROM_HW_VERSION");
    assert_int_equal(r->reset, 0x00010001);
    assert_int_equal(r->access, REGDB_RO);
    assert_int_equal(r->write_mask, 0);
    assert_int_equal(r->read_mask, 0xffffffff);
    /* Field resets are stored unshifted; the word is what the ROM returns. */
    assert_int_equal(reg_of(small(), "CFGROM.CFGROM_CIF_BASE_BURST_LENGTH_MAX")->reset, 0x80);
    assert_field(small(), "CFGROM.CFGROM_CIF_BASE_BURST_LENGTH_MAX.BASE_BURST_LENGTH_MAX", 31, 5,
                 0x4, REGDB_RO);
    assert_int_equal(reg_of(small(), "CFGROM.CFGROM_CIF_BASE_MEM_ADDR_WIDTH")->reset, 0x400);
    assert_int_equal(reg_of(small(), "CFGROM.CFGROM_CDMA_BASE_ATOMIC_C")->reset, 8);
    assert_int_equal(reg_of(small(), "CFGROM.CFGROM_CDMA_BASE_CBUF_BANK_NUM")->reset, 32);
    assert_int_equal(reg_of(small(), "CFGROM.CFGROM_END_OF_LIST")->offset, 0x19c);

    /* nv_full has no CFGROM: address 0 is GLB. */
    r = regdb_reg_at(full(), 0x0, &u);
    assert_string_equal(u->name, "GLB");
    assert_string_equal(r->name, "S_NVDLA_HW_VERSION");
    assert_false(regdb_resolve(full(), "CFGROM.CFGROM_HW_VERSION", NULL));
}

static void test_bdma(void **state)
{
    (void)state;
    assert_int_equal(addr_of(full(), "BDMA.CFG_DST_SURF"), 0x402c);
    assert_int_equal(addr_of(small(), "BDMA.CFG_DST_SURF"), 0x1002c);
    assert_field(full(), "BDMA.CFG_DST_SURF.STRIDE", 31, 5, 0, REGDB_RW);
    assert_field(small(), "BDMA.CFG_DST_SURF.STRIDE", 31, 5, 0, REGDB_RW); /* unchanged in v2 */
    assert_int_equal(reg_of(full(), "BDMA.CFG_DST_SURF")->write_mask, 0xffffffe0);
    assert_int_equal(reg_of(full(), "BDMA.CFG_OP")->offset, 0x30);
    assert_int_equal(reg_of(full(), "BDMA.CFG_OP")->access, REGDB_RW);
    assert_int_equal(reg_of(full(), "BDMA.CFG_LAUNCH0")->access, REGDB_RW);
    assert_int_equal(reg_of(full(), "BDMA.CFG_LAUNCH1")->offset, 0x38);
    /* Idle with 20 free slots out of reset. */
    assert_int_equal(reg_of(full(), "BDMA.STATUS")->reset, 0x114);
    assert_field(full(), "BDMA.STATUS.FREE_SLOT", 7, 0, 0x14, REGDB_RO);
    assert_field(full(), "BDMA.STATUS.IDLE", 8, 8, 1, REGDB_RO);
    assert_field(full(), "BDMA.STATUS.GRP1_BUSY", 10, 10, 0, REGDB_RO);
    assert_false(reg_of(full(), "BDMA.CFG_OP")->dual);
}

static void test_cdma(void **state)
{
    (void)state;
    assert_field(full(), "CDMA.D_BANK.DATA_BANK", 3, 0, 0, REGDB_RW);
    assert_field(full(), "CDMA.D_BANK.WEIGHT_BANK", 19, 16, 0, REGDB_RW);
    assert_field(small(), "CDMA.D_BANK.DATA_BANK", 4, 0, 0, REGDB_RW);
    assert_field(small(), "CDMA.D_BANK.WEIGHT_BANK", 20, 16, 0, REGDB_RW);
    assert_field(full(), "CSC.D_BANK.DATA_BANK", 3, 0, 0, REGDB_RW);
    assert_field(small(), "CSC.D_BANK.WEIGHT_BANK", 20, 16, 0, REGDB_RW);
    assert_field(full(), "CDMA.D_ENTRY_PER_SLICE.ENTRIES", 11, 0, 0, REGDB_RW);
    assert_field(small(), "CDMA.D_ENTRY_PER_SLICE.ENTRIES", 13, 0, 0, REGDB_RW);
    assert_field(full(), "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", 31, 7, 0, REGDB_RW);
    assert_field(small(), "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", 31, 0, 0, REGDB_RW);
    assert_field(full(), "CDMA.D_WMB_BYTES.WMB_BYTES", 27, 7, 0, REGDB_RW);
    assert_field(small(), "CDMA.D_WMB_BYTES.WMB_BYTES", 27, 0, 0, REGDB_RW);
    assert_int_equal(reg_of(full(), "CDMA.D_DAIN_ADDR_LOW_0")->write_mask, 0xffffffe0);
    assert_int_equal(reg_of(small(), "CDMA.D_DAIN_ADDR_LOW_0")->write_mask, 0xffffffff);
    assert_int_equal(reg_of(full(), "CDMA.D_SURF_STRIDE")->write_mask, 0xffffffe0);
    assert_int_equal(reg_of(small(), "CDMA.D_SURF_STRIDE")->write_mask, 0xffffffff);

    /* Ping-pong: D_OP_ENABLE at 0x10 starts the dual registers. */
    assert_int_equal(addr_of(full(), "CDMA.D_OP_ENABLE"), 0x5010);
    assert_int_equal(addr_of(small(), "CDMA.D_OP_ENABLE"), 0x3010);
    const struct regdb_reg *op = reg_of(full(), "CDMA.D_OP_ENABLE");
    assert_true(op->dual);
    assert_int_equal(op->access, REGDB_RW);
    assert_int_equal(op->write_mask, 1);
    const struct regdb_reg *flush = reg_of(full(), "CDMA.S_CBUF_FLUSH_STATUS");
    assert_int_equal(flush->offset, 0xc);
    assert_false(flush->dual);
    assert_int_equal(flush->access, REGDB_RO);
    assert_int_equal(flush->read_mask, 1);
    const struct regdb_reg *arb = reg_of(full(), "CDMA.S_ARBITER");
    assert_int_equal(arb->reset, 0x3000f);
    assert_false(arb->dual);

    /* S_POINTER: PRODUCER writable, CONSUMER read only. */
    const struct regdb_reg *ptr = reg_of(small(), "CDMA.S_POINTER");
    assert_int_equal(ptr->access, REGDB_RW);
    assert_int_equal(ptr->write_mask, 0x1);
    assert_int_equal(ptr->read_mask, 0x10001);
    assert_field(small(), "CDMA.S_POINTER.CONSUMER", 16, 16, 0, REGDB_RO);
    assert_field(full(), "CDMA.S_STATUS.STATUS_1", 17, 16, 0, REGDB_RO);

    assert_int_equal(reg_of(full(), "CDMA.D_NAN_INPUT_DATA_NUM")->access, REGDB_RO);
    assert_int_equal(reg_of(full(), "CDMA.D_PERF_DAT_READ_LATENCY")->access, REGDB_RO);
    assert_int_equal(reg_of(full(), "CDMA.D_CYA")->offset, 0xe8);
}

static void test_cacc_and_datapath(void **state)
{
    (void)state;
    assert_field(full(), "CACC.D_LINE_STRIDE.LINE_STRIDE", 23, 5, 0, REGDB_RW);
    assert_field(small(), "CACC.D_LINE_STRIDE.LINE_STRIDE", 23, 0, 0, REGDB_RW);
    assert_field(full(), "CACC.D_DATAOUT_ADDR.DATAOUT_ADDR", 31, 5, 0, REGDB_RW);
    assert_field(small(), "CACC.D_DATAOUT_ADDR.DATAOUT_ADDR", 31, 0, 0, REGDB_RW);
    assert_field(full(), "PDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW", 31, 5, 0, REGDB_RW);
    assert_field(small(), "PDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW", 31, 0, 0, REGDB_RW);
    assert_field(full(), "RBK.D_DAIN_ADDR_LOW.DAIN_ADDR_LOW", 31, 5, 0, REGDB_RW);
    assert_field(small(), "RBK.D_DAIN_ADDR_LOW.DAIN_ADDR_LOW", 31, 5, 0, REGDB_RW);
    assert_int_equal(reg_of(full(), "CDP_RDMA.D_OPERATION_MODE")->access, REGDB_RO);
    assert_int_equal(reg_of(small(), "CDP_RDMA.D_SRC_COMPRESSION_EN")->access, REGDB_RO);
    assert_int_equal(reg_of(small(), "CDP.D_NAN_INPUT_NUM")->access, REGDB_RO);
    assert_int_equal(reg_of(full(), "SDP.D_PERF_LUT_LO_HIT")->offset, 0xf8);
    assert_int_equal(reg_of(full(), "SDP.D_PERF_LUT_LO_HIT")->access, REGDB_RO);
    assert_int_equal(reg_of(full(), "SDP.S_LUT_ACCESS_DATA")->access, REGDB_RW);
    assert_int_equal(reg_of(full(), "SDP.S_LUT_ACCESS_DATA")->offset, 0xc);
    assert_int_equal(reg_of(full(), "CDP.S_LUT_ACCESS_CFG")->offset, 0x8);
    assert_int_equal(addr_of(full(), "SDP.D_OP_ENABLE"), 0xb038);
    assert_int_equal(addr_of(small(), "CDP.D_OP_ENABLE"), 0xd048);
    assert_int_equal(addr_of(full(), "CDMA.S_POINTER"), 0x5004);
}

/* Section 4.3: v2 resets with the bypass / disable bits set. */
static void test_v2_resets(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint32_t v1, v2;
    } resets[] = {
        {"SDP.D_DP_BS_CFG", 0, 0x73},     {"SDP.D_DP_BN_CFG", 0, 0x53},
        {"SDP.D_DP_EW_CFG", 0, 0x53},     {"SDP.D_DP_EW_ALU_CFG", 0, 0x2},
        {"SDP.D_DP_EW_MUL_CFG", 0, 0x2},  {"SDP_RDMA.D_BRDMA_CFG", 0, 0x1},
        {"SDP_RDMA.D_NRDMA_CFG", 0, 0x1}, {"SDP_RDMA.D_ERDMA_CFG", 0, 0x1},
    };
    for (size_t i = 0; i < sizeof resets / sizeof resets[0]; i++) {
        assert_int_equal(reg_of(full(), resets[i].name)->reset, resets[i].v1);
        assert_int_equal(reg_of(small(), resets[i].name)->reset, resets[i].v2);
    }
    assert_field(small(), "SDP.D_DP_BS_CFG.BS_BYPASS", 0, 0, 1, REGDB_RW);
    assert_field(full(), "SDP.D_DP_BS_CFG.BS_BYPASS", 0, 0, 0, REGDB_RW);
}

/* ---------------------------------------------------------- name lookups */

static void test_name_variants(void **state)
{
    (void)state;
    struct regdb_ref ref = must_resolve(full(), "cdma.d_datain_size_0_0");
    assert_string_equal(ref.unit->name, "CDMA");
    assert_string_equal(ref.reg->name, "D_DATAIN_SIZE_0");
    assert_null(ref.field);
    assert_ptr_equal(reg_of(full(), "CDMA.D_DATAIN_SIZE_0"), ref.reg); /* canonical name */
    assert_ptr_not_equal(reg_of(full(), "CDMA.D_DATAIN_SIZE_1_0"), ref.reg);

    ref = must_resolve(full(), "CDMA.D_DATAIN_SIZE_0_0.DATAIN_WIDTH");
    assert_string_equal(ref.field->name, "DATAIN_WIDTH");
    assert_int_equal(ref.field->msb, 12);
    assert_int_equal(ref.field->lsb, 0);

    ref = must_resolve(full(), "NVDLA_GLB.S_INTR_MASK_0");
    assert_string_equal(ref.unit->name, "GLB");
    assert_string_equal(ref.reg->name, "S_INTR_MASK");
    assert_int_equal(regdb_addr(ref.unit, ref.reg), 0x4);
    assert_int_equal(addr_of(small(), "nvdla_glb.s_intr_mask_0"), 0x1004);

    ref = must_resolve(full(), "rubik.d_op_enable");
    assert_string_equal(ref.unit->name, "RBK");
    assert_int_equal(regdb_addr(ref.unit, ref.reg), 0x10008);
    assert_int_equal(addr_of(small(), "NVDLA_RUBIK.D_OP_ENABLE_0.OP_EN"), 0x11008);

    /* D_DAIN_ADDR_LOW_0 is a register name; its trace spelling adds "_0". */
    assert_string_equal(reg_of(full(), "CDMA.D_DAIN_ADDR_LOW_0_0")->name, "D_DAIN_ADDR_LOW_0");
    assert_string_equal(reg_of(full(), "CDMA.D_DAIN_ADDR_LOW_1_0")->name, "D_DAIN_ADDR_LOW_1");
    assert_string_equal(reg_of(small(), "NVDLA_CFGROM.CFGROM_HW_VERSION_0")->name,
                        "CFGROM_HW_VERSION");

    /* Unit lookups: prefix, alias, case, and SDP is not SDP_RDMA. */
    assert_string_equal(regdb_unit_named(full(), "nvdla_sdp_rdma")->name, "SDP_RDMA");
    assert_string_equal(regdb_unit_named(full(), "SDP")->name, "SDP");
    assert_string_equal(regdb_unit_named(small(), "Rubik")->name, "RBK");
    assert_string_equal(regdb_unit_named(small(), "NVDLA_RBK")->name, "RBK");

    const struct regdb_unit *cdma = regdb_unit_named(full(), "CDMA");
    assert_string_equal(regdb_reg_named(cdma, "s_status_0")->name, "S_STATUS");
    assert_string_equal(regdb_reg_named(cdma, "S_STATUS")->name, "S_STATUS");
    assert_string_equal(regdb_field_named(regdb_reg_named(cdma, "D_BANK"), "weight_bank")->name,
                        "WEIGHT_BANK");
    assert_int_equal(regdb_reg_in(cdma, 0xbc)->offset, 0xbc);
    assert_string_equal(regdb_reg_in(cdma, 0xbc)->name, "D_BANK");
}

static void test_name_failures(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "FOO.S_STATUS",              /* unknown unit */
        "NVDLA_.S_STATUS",           /* prefix alone */
        "NVDLA_NVDLA_CDMA.S_STATUS", /* prefix only once */
        "CDMA.NO_SUCH_REG",          /* unknown register */
        "CDMA.S_STATUS_0_0",         /* only one "_0" is stripped */
        "CDMA.S_STATUS.NOPE",        /* unknown field */
        "CDMA.S_STATUS.STATUS_0_0",  /* fields have no array suffix */
        "CDMA",                      /* no register */
        "CDMA.",                     /* empty register */
        ".S_STATUS",                 /* empty unit */
        "CDMA..S_STATUS",            /* empty part */
        "CDMA.S_STATUS.",            /* empty field */
        "CDMA.S_STATUS.STATUS_0.X",  /* too many parts */
        "",
        "CDMA S_STATUS",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* Start from a full reference to see that failure clears it. */
        struct regdb_ref ref = must_resolve(full(), "CDMA.S_STATUS.STATUS_0");
        if (regdb_resolve(full(), bad[i], &ref))
            fail_msg("'%s' should not resolve", bad[i]);
        assert_null(ref.unit);
        assert_null(ref.reg);
        assert_null(ref.field);
    }
    assert_false(regdb_resolve(NULL, "CDMA.S_STATUS", NULL));
    assert_false(regdb_resolve(full(), NULL, NULL));
    assert_null(regdb_unit_named(full(), "CDMA_X"));
    assert_null(regdb_unit_named(full(), "CFGROM"));
    assert_null(regdb_unit_named(full(), NULL));
    const struct regdb_unit *glb = regdb_unit_named(full(), "GLB");
    assert_null(regdb_reg_named(glb, "S_INTR"));
    assert_null(regdb_reg_named(glb, "_0"));
    assert_null(regdb_reg_named(NULL, "S_INTR_MASK"));
    assert_null(regdb_field_named(regdb_reg_named(glb, "S_INTR_MASK"), "SDP_DONE_MASK"));
    assert_null(regdb_field_named(NULL, "X"));
}

static void test_addresses(void **state)
{
    (void)state;
    const struct regdb_unit *u = (void *)1;
    /* A hole inside GEC (offset 0x10 is not a register). */
    assert_null(regdb_reg_at(full(), 0x1010, &u));
    assert_non_null(u);
    assert_string_equal(u->name, "GEC");
    /* Past the last CDMA register, still inside its window. */
    assert_null(regdb_reg_at(full(), 0x50ec, &u));
    assert_string_equal(u->name, "CDMA");
    assert_null(regdb_reg_at(full(), 0x5ffc, &u));
    assert_string_equal(u->name, "CDMA");
    /* Not a word address. */
    assert_null(regdb_reg_at(full(), 0x5002, NULL));
    /* Outside every unit. */
    assert_null(regdb_reg_at(full(), 0x11000, &u));
    assert_null(u);
    assert_null(regdb_reg_at(small(), 0x12000, &u));
    assert_null(u);
    assert_null(regdb_reg_at(small(), 0xffffffffu, &u));
    assert_null(u);
    assert_null(regdb_unit_at(NULL, 0));
    assert_null(regdb_reg_in(NULL, 0));
    assert_null(regdb_reg_in(regdb_unit_named(small(), "CDMA"), 0x1000));

    assert_string_equal(regdb_reg_at(full(), 0x402c, &u)->name, "CFG_DST_SURF");
    assert_string_equal(u->name, "BDMA");
    assert_string_equal(regdb_reg_at(small(), 0x3010, &u)->name, "D_OP_ENABLE");
    assert_string_equal(u->name, "CDMA");
    assert_string_equal(regdb_reg_at(small(), 0x1000c, NULL)->name, "CFG_DST_ADDR_HIGH");
    /* every byte address of the CSB space decodes as a walk through every
     * unit and register would */
    for (size_t m = 0; m < regdb_n_maps; m++) {
        const struct regdb_map *map = &regdb_maps[m];
        for (uint32_t addr = 0; addr < 0x14000; addr++) {
            const struct regdb_unit *want_unit = NULL;
            const struct regdb_reg *want = NULL;
            for (size_t i = 0; i < map->n_units; i++) {
                const struct regdb_unit *w = &map->units[i];
                if (addr >= w->base && addr - w->base < 0x1000)
                    want_unit = w;
            }
            for (size_t i = 0; want_unit && i < want_unit->n_regs; i++)
                if (addr - want_unit->base == want_unit->regs[i].offset)
                    want = &want_unit->regs[i];
            assert_ptr_equal(regdb_reg_at(map, addr, &u), want);
            assert_ptr_equal(u, want_unit);
        }
    }
}

static void test_enums(void **state)
{
    (void)state;
    const struct regdb_field *f = must_resolve(full(), "CDMA.S_STATUS.STATUS_0").field;
    assert_int_equal(f->n_enums, 3);
    assert_string_equal(regdb_enum_name(f, 0), "IDLE");
    assert_string_equal(regdb_enum_name(f, 1), "RUNNING");
    assert_string_equal(regdb_enum_name(f, 2), "PENDING");
    assert_null(regdb_enum_name(f, 3));
    uint32_t v = 99;
    assert_true(regdb_enum_value(f, "pending", &v));
    assert_int_equal(v, 2);
    assert_false(regdb_enum_value(f, "STOPPED", &v));
    assert_int_equal(v, 2);
    assert_false(regdb_enum_value(NULL, "IDLE", &v));
    assert_null(regdb_enum_name(NULL, 0));

    f = must_resolve(full(), "BDMA.CFG_CMD.SRC_RAM_TYPE").field;
    assert_string_equal(regdb_enum_name(f, 0), "CVSRAM");
    assert_string_equal(regdb_enum_name(f, 1), "MC");
    f = must_resolve(small(), "CDP.D_LRN_CFG.NORMALZ_LEN").field;
    assert_true(regdb_enum_value(f, "LEN9", &v));
    assert_int_equal(v, 3);
    f = must_resolve(full(), "RBK.D_MISC_CFG.RUBIK_MODE").field;
    assert_true(regdb_enum_value(f, "merge", &v));
    assert_int_equal(v, 2);
    f = must_resolve(full(), "CDMA.D_BANK.DATA_BANK").field;
    assert_int_equal(f->n_enums, 0);
    assert_null(regdb_enum_name(f, 0));
}

static void test_field_get_set(void **state)
{
    (void)state;
    const struct regdb_field *w = must_resolve(full(), "CDMA.D_BANK.WEIGHT_BANK").field;
    assert_int_equal(regdb_field_get(w, 0x000a0003), 0xa);
    assert_int_equal(regdb_field_set(w, 0x000a0003, 0x1f), 0x000f0003); /* truncated to 4 bits */
    const struct regdb_field *whole =
        must_resolve(small(), "CFGROM.CFGROM_HW_VERSION.HW_VERSION").field;
    assert_int_equal(regdb_field_get(whole, 0xdeadbeef), 0xdeadbeef);
    assert_int_equal(regdb_field_set(whole, 0, 0x12345678), 0x12345678);
}

/* ----------------------------------------------------- NVIDIA's traces */

/* NVIDIA's test data is read where it lies and never copied into the project. */
static const char *testdata_dir(void)
{
    static char found[512];
    static const char *const candidates[] = {"../shared/testdata", "../../shared/testdata"};
    const char *env = getenv("NVDLA_TESTDATA");
    struct stat st;
    if (env && *env)
        return stat(env, &st) == 0 && S_ISDIR(st.st_mode) ? env : NULL;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (stat(candidates[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(found, sizeof found, "%s", candidates[i]);
            return found;
        }
    }
    return NULL;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Calls fn(path, ctx) for every dir/<sub>/<file> whose name ends in suffix. */
static size_t for_each_trace_file(const char *dir, const char *suffix,
                                  void (*fn)(const char *path, void *ctx), void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *sub;
    while ((sub = readdir(d)) != NULL) {
        if (sub->d_name[0] == '.')
            continue;
        char subdir[1024];
        snprintf(subdir, sizeof subdir, "%s/%s", dir, sub->d_name);
        DIR *s = opendir(subdir);
        if (!s)
            continue;
        struct dirent *file;
        while ((file = readdir(s)) != NULL) {
            size_t len = strlen(file->d_name), slen = strlen(suffix);
            if (len < slen || strcmp(file->d_name + len - slen, suffix) != 0)
                continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", subdir, file->d_name);
            fn(path, ctx);
            n++;
        }
        closedir(s);
    }
    closedir(d);
    return n;
}

#define MAX_DISTINCT 1024

struct name_set {
    char names[MAX_DISTINCT][96];
    size_t n;
};

static void add_name(struct name_set *set, const char *s, size_t len)
{
    assert_true(len < sizeof set->names[0]);
    for (size_t i = 0; i < set->n; i++) {
        if (strlen(set->names[i]) == len && memcmp(set->names[i], s, len) == 0)
            return;
    }
    assert_true(set->n < MAX_DISTINCT);
    memcpy(set->names[set->n], s, len);
    set->names[set->n][len] = '\0';
    set->n++;
}

/* Every NVDLA_<UNIT>.<REG> token of a .cfg file (reg_write, poll_reg_equal). */
static void collect_cfg_names(const char *path, void *ctx)
{
    char *text = read_file(path);
    assert_non_null(text);
    for (char *p = strstr(text, "NVDLA_"); p; p = strstr(p, "NVDLA_")) {
        const char *start = p;
        while (is_name_char(*p))
            p++;
        if (*p != '.')
            continue;
        p++;
        while (is_name_char(*p))
            p++;
        add_name(ctx, start, (size_t)(p - start));
    }
    free(text);
}

static void test_v2_trace_names(void **state)
{
    (void)state;
    const char *root = testdata_dir();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/traces_v2/nv_small", root ? root : "");
    struct stat st;
    if (!root || stat(dir, &st) != 0) {
        skip();
        return;
    }
    struct name_set *set = calloc(1, sizeof *set);
    assert_non_null(set);
    size_t files = for_each_trace_file(dir, ".cfg", collect_cfg_names, set);
    assert_true(files > 0);
    size_t unresolved = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (!regdb_resolve(small(), set->names[i], NULL)) {
            print_error("unresolved: %s\n", set->names[i]);
            unresolved++;
        }
    }
    assert_int_equal(unresolved, 0);
    assert_int_equal(set->n, 332); /* nvdla-v2-traces.md section 4.1 */
    free(set);
}

struct txn_stats {
    size_t checked;
    size_t failed;
};

/* The comment names a register as #NVDLA_UNIT.REG_0, but some comments run
 * straight into more text ("..._0LINE_PACKED", "..._081000000>>32=0x0").  The
 * name is the longest prefix ending in "_0" that resolves; the address check
 * below is what proves the choice right. */
static const struct regdb_reg *resolve_txn_comment(const char *comment, const struct regdb_unit **u)
{
    size_t len = 0;
    bool dot = false;
    while (is_name_char(comment[len]) || (!dot && comment[len] == '.')) {
        dot = dot || comment[len] == '.';
        len++;
    }
    char name[128];
    if (len >= sizeof name)
        return NULL;
    for (size_t end = len; end >= 2; end--) {
        if (comment[end - 2] != '_' || comment[end - 1] != '0')
            continue;
        memcpy(name, comment, end);
        name[end] = '\0';
        struct regdb_ref ref;
        if (regdb_resolve(full(), name, &ref)) {
            *u = ref.unit;
            return ref.reg;
        }
    }
    return NULL;
}

static void check_txn_file(const char *path, void *ctx)
{
    struct txn_stats *stats = ctx;
    char *text = read_file(path);
    assert_non_null(text);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char cmd[32];
        unsigned long addr;
        char *comment = strstr(line, "#NVDLA_");
        if (!comment || sscanf(line, "%31s %lx", cmd, &addr) != 2)
            continue;
        if (strcmp(cmd, "write_reg") != 0 && strcmp(cmd, "read_reg") != 0)
            continue;
        const struct regdb_unit *u = NULL;
        const struct regdb_reg *r = resolve_txn_comment(comment + 1, &u);
        uint32_t byte_addr = (uint32_t)(addr & 0xffff) * 4;
        stats->checked++;
        if (!r || regdb_addr(u, r) != byte_addr) {
            print_error("%s: %s (trace address 0x%x)\n", path, comment, byte_addr);
            stats->failed++;
        }
    }
    free(text);
}

static void test_v1_trace_names(void **state)
{
    (void)state;
    const char *root = testdata_dir();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/traces", root ? root : "");
    struct stat st;
    if (!root || stat(dir, &st) != 0) {
        skip();
        return;
    }
    struct txn_stats stats = {0, 0};
    size_t files = for_each_trace_file(dir, "input.txn", check_txn_file, &stats);
    assert_true(files > 0);
    assert_true(stats.checked > 0);
    assert_int_equal(stats.failed, 0);
}

/* The model's by-name reads remember their answers by the name's address:
 * a name built in a buffer, then another in the same buffer, is still read
 * by what it says. */
static void test_model_names_in_a_buffer(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    assert_non_null(d);
    dla_reg_hw_set(d, DLA_U_CDMA, 0, "D_DATAIN_SIZE_0", 0x00070005u);
    dla_reg_hw_set(d, DLA_U_CDMA, 0, "D_DATAIN_SIZE_1", 0x00000009u);
    char reg[32], field[32];
    for (int round = 0; round < 3; round++) { /* the second and third from the cache */
        strcpy(reg, "D_DATAIN_SIZE_0");
        strcpy(field, "DATAIN_WIDTH");
        assert_int_equal(dla_field(d, DLA_U_CDMA, 0, reg, field), 5);
        strcpy(field, "DATAIN_HEIGHT");
        assert_int_equal(dla_field(d, DLA_U_CDMA, 0, reg, field), 7);
        assert_int_equal(dla_reg(d, DLA_U_CDMA, 0, reg), 0x00070005u);
        strcpy(reg, "D_DATAIN_SIZE_1");
        assert_int_equal(dla_reg(d, DLA_U_CDMA, 0, reg), 9);
        strcpy(field, "DATAIN_CHANNEL");
        assert_int_equal(dla_field(d, DLA_U_CDMA, 0, reg, field), 9);
    }
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps_by_name),   cmocka_unit_test(test_units_and_counts),
        cmocka_unit_test(test_model_names_in_a_buffer),
        cmocka_unit_test(test_invariants),     cmocka_unit_test(test_glb),
        cmocka_unit_test(test_cfgrom),         cmocka_unit_test(test_bdma),
        cmocka_unit_test(test_cdma),           cmocka_unit_test(test_cacc_and_datapath),
        cmocka_unit_test(test_v2_resets),      cmocka_unit_test(test_name_variants),
        cmocka_unit_test(test_name_failures),  cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_enums),          cmocka_unit_test(test_field_get_set),
        cmocka_unit_test(test_v2_trace_names), cmocka_unit_test(test_v1_trace_names),
    };
    return cmocka_run_group_tests_name("regdb", tests, NULL, NULL);
}
