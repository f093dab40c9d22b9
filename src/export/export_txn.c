/* "export txn DIR": the run's register programming and the memory it needs,
 * as an nvdlav1 traceplayer folder (input.txn + .dat files) that dladbg and
 * NVIDIA's RTL testbench (verif/verilator) replay to the same outputs:
 *   load_mem   first, the bytes of random memory (a .cfg's mem_init RANDOM,
 *              made when read) the run saw; then every change the host made
 *              to memory, when it made it
 *   write_reg  every CSB write, in order (driver and debugger pokes)
 *   read_reg   every CSB read, checking the bits of the value the run saw
 *              that do not depend on timing (trace_timing_bits)
 *   wait       for each interrupt the driver then handled, one bit at a time
 *   until      where it polled a register instead
 *   dump_mem   what each layer wrote, as it completed, checked once the driver
 *              has read its interrupt and before a host step or a later
 *              layer can change it (the programming log places them)
 * The RTL's interrupt line follows its status a few cycles late (a register
 * and a synchroniser in GLB), and its layers finish in their own time, so
 * nothing here rests on the model's timing: before each wait every
 * interrupt but the one awaited is masked and a read lets the line settle;
 * a read of GLB.S_INTR_STATUS checks only the bits handled.  Lines the
 * export adds to the run's traffic say "(export: ...)".
 * Memory addresses follow the traceplayer convention: bit 31 set is DRAM,
 * clear is CV-SRAM. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/afile.h"
#include "trace/dat.h"
#include "export.h"
#include "cmd/format.h"
#include "util/path.h"
#include "core/mem.h"
#include "core/regdb.h"
#include "debug/proglog.h"
#include "trace/trace.h"

struct txn_writer {
    struct session *s;
    struct dla *d;
    struct proglog *log;
    const char *dir;
    FILE *fp;
    struct export_result *res;
    size_t unrepresentable;
    char *err;
    size_t errlen;
    /* GLB's interrupt registers (byte addresses; 0 when the map has none) */
    uint32_t intr_status, intr_mask, mask_bits;
    uint32_t awaited; /* status bits waited for and not written back since */
    uint32_t cleared; /* the bits of the last status write-back */
};

/* The traceplayer tells memories apart by address bit 31. */
static bool addr_fits_space(uint64_t addr, uint8_t space)
{
    bool dram = (addr & 0x80000000u) != 0;
    return space == DLA_DRAM ? dram : !dram;
}

static uint32_t word_addr(uint32_t byte_addr)
{
    return 0xffff0000u | (byte_addr >> 2);
}

/* The bytes into the folder's next data file, PREFIX_NNNN.dat, and the
 * trace's COMMAND line naming it (load_mem or dump_mem). */
static bool emit_data_file(struct txn_writer *w, const char *command, const char *prefix,
                           uint64_t addr, uint8_t space, const uint8_t *buf, size_t len)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%04zu.dat", prefix, w->res->files);
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    if (dat_write_hexlines(path, addr, dla_space_name((enum dla_space)space), buf, len, w->err,
                           w->errlen) != 0)
        return false;
    w->res->files++;
    fprintf(w->fp, "%s 0x%llx 0x%llx %s\n", command, (unsigned long long)addr,
            (unsigned long long)len, name);
    return true;
}

static bool emit_load(struct txn_writer *w, const struct plog_entry *e)
{
    if (!addr_fits_space(e->mem_addr, e->space)) {
        w->unrepresentable++;
        fprintf(w->fp, "# host wrote %s 0x%llx+0x%llx: not expressible in a traceplayer trace\n",
                dla_space_name((enum dla_space)e->space), (unsigned long long)e->mem_addr,
                (unsigned long long)e->mem_len);
        return true;
    }
    uint8_t *buf = malloc(e->mem_len);
    if (!buf || !proglog_mem_read(w->log, e, e->mem_addr, buf, e->mem_len)) {
        free(buf);
        snprintf(w->err, w->errlen, "cannot read the recorded memory at 0x%llx",
                 (unsigned long long)e->mem_addr);
        return false;
    }
    bool ok = emit_data_file(w, "load_mem", "load", e->mem_addr, e->space, buf, e->mem_len);
    free(buf);
    return ok;
}

/* One run of consecutive random blocks, as they were before anything was
 * written to them. */
static bool emit_random_run(struct txn_writer *w, enum dla_space sp, uint64_t addr, size_t blocks)
{
    uint64_t len = (uint64_t)blocks * MEM_BLOCK_SIZE;
    if (!addr_fits_space(addr, (uint8_t)sp) || !addr_fits_space(addr + len - 1, (uint8_t)sp)) {
        w->unrepresentable++;
        fprintf(w->fp, "# random %s 0x%llx+0x%llx read by the run: not expressible in a "
                       "traceplayer trace\n",
                dla_space_name(sp), (unsigned long long)addr, (unsigned long long)len);
        return true;
    }
    uint8_t *buf = malloc(len);
    if (!buf) {
        snprintf(w->err, w->errlen, "out of memory for the random memory at 0x%llx",
                 (unsigned long long)addr);
        return false;
    }
    const struct dla_mem *m = dla_memory(w->d, sp);
    for (size_t i = 0; i < blocks; i++)
        mem_random_initial(m, addr + (uint64_t)i * MEM_BLOCK_SIZE, buf + i * MEM_BLOCK_SIZE);
    fprintf(w->fp, "# (export: random memory the run read)\n");
    bool ok = emit_data_file(w, "load_mem", "load", addr, (uint8_t)sp, buf, len);
    free(buf);
    if (ok)
        w->res->rows++;
    return ok;
}

/* Random memory is made when read, so no host write ever put it there: the
 * blocks the run saw are loaded first, as the run first saw them, in runs
 * of up to 1 MiB. */
static bool emit_random(struct txn_writer *w)
{
    for (int sp = 0; sp < DLA_SPACE_COUNT; sp++) {
        const struct dla_mem *m = dla_memory(w->d, (enum dla_space)sp);
        uint64_t *base;
        size_t n = m ? mem_random_blocks(m, &base) : 0;
        bool ok = true;
        for (size_t i = 0, run; ok && i < n; i += run) {
            for (run = 1; i + run < n && run < (1u << 20) / MEM_BLOCK_SIZE &&
                          base[i + run] == base[i] + (uint64_t)run * MEM_BLOCK_SIZE;
                 run++)
                ;
            ok = emit_random_run(w, (enum dla_space)sp, base[i], run);
        }
        free(base);
        if (!ok)
            return false;
    }
    return true;
}

static void emit_access(struct txn_writer *w, const struct plog_entry *e, uint32_t mask)
{
    char name[96];
    format_reg_name(dla_regmap(w->d), e->addr, name, sizeof name);
    if (e->kind == PLOG_WRITE)
        fprintf(w->fp, "write_reg 0x%08x 0x%08x #%s\n", word_addr(e->addr), e->value, name);
    else
        fprintf(w->fp, "read_reg 0x%08x 0x%08x 0x%08x #%s\n", word_addr(e->addr), mask, e->value,
                name);
}

/* Wait for one interrupt bit alone: the others masked, and a read of the
 * mask back (which checks the bit is open) so the line has settled to the
 * new mask before the testbench looks at it. */
static void emit_wait_for_bit(struct txn_writer *w, unsigned bit)
{
    uint32_t b = 1u << bit;
    fprintf(w->fp,
            "write_reg 0x%08x 0x%08x #GLB.S_INTR_MASK (export: only bit %u may end the wait)\n",
            word_addr(w->intr_mask), w->mask_bits & ~b, bit);
    fprintf(w->fp, "read_reg 0x%08x 0x%08x 0x00000000 #GLB.S_INTR_MASK (export: settle)\n",
            word_addr(w->intr_mask), b);
    fprintf(w->fp, "wait\n");
    w->res->rows += 3;
}

/* The driver read GLB.S_INTR_STATUS: each bit it saw that was not awaited
 * yet is waited for first, and only the bits it saw (or, reading 0, the
 * bits it just wrote back) are checked: others may be up on hardware of
 * other timing. */
static void emit_status_read(struct txn_writer *w, const struct plog_entry *e)
{
    uint32_t fresh = e->value & ~w->awaited & w->mask_bits;
    for (unsigned bit = 0; bit < 32; bit++)
        if (fresh & (1u << bit))
            emit_wait_for_bit(w, bit);
    w->awaited |= e->value;
    emit_access(w, e, e->value ? e->value : w->cleared);
}

static bool is_status_read(const struct txn_writer *w, const struct plog_entry *e)
{
    return e && e->kind == PLOG_READ && w->intr_status && e->addr == w->intr_status;
}

/* A wait the interrupt line ended needs no line of its own when the driver
 * then reads an interrupt it had not awaited (before it writes anything):
 * that read brings its own waits, one bit at a time. */
static bool wait_is_implied(const struct txn_writer *w, size_t i)
{
    struct plog_entry e;
    while (proglog_get(w->log, ++i, &e) && e.kind == PLOG_READ)
        if (is_status_read(w, &e))
            return (e.value & ~w->awaited & w->mask_bits) != 0;
    return false;
}

static void emit_reg(struct txn_writer *w, const struct plog_entry *e)
{
    if (is_status_read(w, e)) {
        emit_status_read(w, e);
        return;
    }
    if (e->kind == PLOG_WRITE && w->intr_status && e->addr == w->intr_status) {
        /* a later read of 0 checks these only: a write of all ones clears
         * what was handled, and says nothing of the rest */
        w->cleared = e->value & w->awaited;
        w->awaited &= ~e->value;
    }
    uint32_t mask = 0xffffffffu;
    if (e->kind == PLOG_READ && w->intr_mask && e->addr == w->intr_mask)
        mask = 0; /* the driver's own read: the waits here change the mask */
    else if (e->kind == PLOG_READ)
        mask &= ~trace_timing_bits(dla_regmap(w->d), e->addr);
    emit_access(w, e, mask);
}

/* A wait: "wait" when the interrupt line ended it; "until" when the driver
 * then read the register it polled; returns true when it consumed that read. */
static bool emit_wait(struct txn_writer *w, const struct plog_entry *e,
                      const struct plog_entry *next)
{
    if (e->intr || !e->ok) {
        fprintf(w->fp, "wait\n");
        return false;
    }
    if (next && next->kind == PLOG_READ) {
        char name[96];
        format_reg_name(dla_regmap(w->d), next->addr, name, sizeof name);
        fprintf(w->fp, "until 0x%08x 0x%08x #%s\n", word_addr(next->addr), next->value, name);
        return true;
    }
    w->unrepresentable++;
    fprintf(w->fp, "# the run let %u hardware events pass here without an interrupt\n", e->value);
    return false;
}

/* What the hardware wrote, compared where the log placed the check. */
static bool emit_check(struct txn_writer *w, const struct plog_entry *e)
{
    uint8_t *bytes = addr_fits_space(e->mem_addr, e->space) ? proglog_check_copy(w->log, e) : NULL;
    if (!bytes) {
        w->unrepresentable++;
        fprintf(w->fp,
                "# the hardware wrote %s 0x%llx+0x%llx: not expressible in a traceplayer "
                "trace\n",
                dla_space_name((enum dla_space)e->space), (unsigned long long)e->mem_addr,
                (unsigned long long)e->mem_len);
        return true;
    }
    bool written = emit_data_file(w, "dump_mem", "golden", e->mem_addr, e->space, bytes, e->mem_len);
    free(bytes);
    return written;
}

static bool emit_log(struct txn_writer *w)
{
    size_t n = proglog_count(w->log);
    for (size_t i = 0; i < n; i++) {
        struct plog_entry entry, next;
        proglog_get(w->log, i, &entry);
        const struct plog_entry *e = &entry;
        switch (e->kind) {
        case PLOG_WRITE:
        case PLOG_READ:
            emit_reg(w, e);
            break;
        case PLOG_WAIT:
            if (e->intr && e->ok && wait_is_implied(w, i))
                continue;
            if (emit_wait(w, e, proglog_get(w->log, i + 1, &next) ? &next : NULL))
                i++;
            break;
        case PLOG_MEM:
            if (!emit_load(w, e))
                return false;
            break;
        case PLOG_CHECK:
            if (!emit_check(w, e))
                return false;
            break;
        }
        w->res->rows++;
    }
    return true;
}

/* Stopped inside a wait: the hardware has moved on since the last access.
 * When the interrupt line is up, a "wait" gets the replay to the same point. */
static void emit_trailing_wait(struct txn_writer *w)
{
    if (session_events(w->s) <= proglog_events_at_end(w->log))
        return;
    /* the bits up, each awaited alone as the driver's would be */
    uint32_t up = dla_intr_status(w->d) & ~w->awaited & w->mask_bits;
    if (dla_intr_line(w->d) && up && w->intr_mask) {
        for (unsigned bit = 0; bit < 32; bit++)
            if (up & (1u << bit))
                emit_wait_for_bit(w, bit);
        w->awaited |= up;
    } else if (dla_intr_line(w->d)) {
        fprintf(w->fp, "wait\n");
        w->res->rows++;
    } else {
        w->unrepresentable++;
        fprintf(w->fp,
                "# the run is stopped inside a wait; the hardware has advanced %llu events\n",
                (unsigned long long)(session_events(w->s) - proglog_events_at_end(w->log)));
    }
}

/* Outputs whose interrupt the run has not read yet (it stopped first):
 * checked at the end, once the interrupts they came with are up. */
static bool emit_unchecked(struct txn_writer *w)
{
    const struct plog_entry *outs;
    size_t n = proglog_unchecked(w->log, &outs);
    for (size_t i = 0; i < n; i++) {
        uint32_t bit = outs[i].value;
        bool up = bit < 32 && (dla_intr_status(w->d) & (1u << bit));
        if (up && w->intr_mask && !(w->awaited & (1u << bit))) {
            emit_wait_for_bit(w, bit);
            w->awaited |= 1u << bit;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!emit_check(w, &outs[i]))
            return false;
        w->res->rows++;
    }
    return true;
}

/* GLB's interrupt registers in the run's register map. */
static void find_intr_regs(struct txn_writer *w)
{
    struct regdb_ref st, mk;
    const struct regdb_map *map = dla_regmap(w->d);
    if (!regdb_resolve(map, "GLB.S_INTR_STATUS", &st) ||
        !regdb_resolve(map, "GLB.S_INTR_MASK", &mk))
        return;
    w->intr_status = regdb_addr(st.unit, st.reg);
    w->intr_mask = regdb_addr(mk.unit, mk.reg);
    w->mask_bits = mk.reg->write_mask;
}

/* The files an export writes: a folder holding only these may be replaced. */
static bool export_file_name(const char *name)
{
    size_t n = strlen(name);
    bool dat = n > 4 && strcmp(name + n - 4, ".dat") == 0;
    return strcmp(name, "input.txn") == 0 || (dat && strncmp(name, "load_", 5) == 0) ||
           (dat && strncmp(name, "golden_", 7) == 0);
}

static bool write_folder(struct session *s, struct proglog *log, const char *dir,
                         const char *final_dir, struct export_result *res, char *err,
                         size_t errlen);

/* The trace folder appears complete or not at all: written into a
 * temporary folder next to dir, which then takes its place. */
bool export_txn(struct session *s, struct proglog *log, const char *dir, struct export_result *res,
                char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    char why[160];
    if (!proglog_complete(log, why, sizeof why)) {
        snprintf(err, errlen, "the programming log is incomplete: %s", why);
        return false;
    }
    struct adir ad;
    if (!adir_open(&ad, dir, export_file_name, err, errlen))
        return false;
    if (!write_folder(s, log, ad.tmp, ad.path, res, err, errlen)) {
        adir_abort(&ad);
        return false;
    }
    return adir_commit(&ad, err, errlen);
}

static bool write_folder(struct session *s, struct proglog *log, const char *dir,
                         const char *final_dir, struct export_result *res, char *err,
                         size_t errlen)
{
    proglog_fetched(log); /* host changes not yet compared */
    char path[4300];
    snprintf(path, sizeof path, "%s/input.txn", dir);
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return false;
    struct txn_writer w = {.s = s,
                           .d = session_dla(s),
                           .log = log,
                           .dir = dir,
                           .fp = af.fp,
                           .res = res,
                           .err = err,
                           .errlen = errlen};
    fprintf(af.fp, "# exported by dladbg %s from %s (configuration %s)\n", DLADBG_VERSION,
            session_path(s), dla_cfg(w.d)->name);
    fprintf(af.fp, "# replay: dladbg --batch %s (it reads the configuration above)\n", final_dir);
    find_intr_regs(&w);
    bool ok = emit_random(&w) && emit_log(&w);
    if (ok)
        emit_trailing_wait(&w);
    if (!ok || !emit_unchecked(&w)) {
        afile_abort(&af);
        return false;
    }
    if (!afile_commit(&af, err, errlen))
        return false;
    res->files++;
    if (w.unrepresentable)
        snprintf(res->note, sizeof res->note,
                 "%zu step%s could not be expressed in the trace language (see the comments)",
                 w.unrepresentable, w.unrepresentable == 1 ? "" : "s");
    return true;
}
