/* "export txn DIR": the run's register programming and the memory it needs,
 * as an nvdlav1 traceplayer folder (input.txn + .dat files) that dladbg (or
 * an RTL bench) replays to the same outputs:
 *   load_mem   every change the host made to memory, when it made it
 *   write_reg  every CSB write, in order (driver and debugger pokes)
 *   read_reg   every CSB read, checking the value the run saw
 *   wait       where the run waited and the interrupt line ended the wait
 *   until      where it polled a register instead
 *   dump_mem   every range the hardware wrote, compared with its contents now
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
#include "debug/proglog.h"

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

static bool write_data_file(struct txn_writer *w, const char *name, uint64_t addr, uint8_t space,
                            const uint8_t *buf, size_t len)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    if (dat_write_hexlines(path, addr, dla_space_name((enum dla_space)space), buf, len, w->err,
                           w->errlen) != 0)
        return false;
    w->res->files++;
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
    char name[64];
    snprintf(name, sizeof name, "load_%04zu.dat", w->res->files);
    bool ok = write_data_file(w, name, e->mem_addr, e->space, buf, e->mem_len);
    free(buf);
    if (ok)
        fprintf(w->fp, "load_mem 0x%llx 0x%llx %s\n", (unsigned long long)e->mem_addr,
                (unsigned long long)e->mem_len, name);
    return ok;
}

static void emit_reg(struct txn_writer *w, const char *op, const struct plog_entry *e)
{
    char name[96];
    format_reg_name(dla_regmap(w->d), e->addr, name, sizeof name);
    if (e->kind == PLOG_WRITE)
        fprintf(w->fp, "%s 0x%08x 0x%08x #%s\n", op, word_addr(e->addr), e->value, name);
    else
        fprintf(w->fp, "%s 0x%08x 0xffffffff 0x%08x #%s\n", op, word_addr(e->addr), e->value, name);
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

static bool emit_log(struct txn_writer *w)
{
    size_t n = proglog_count(w->log);
    for (size_t i = 0; i < n; i++) {
        const struct plog_entry *e = proglog_get(w->log, i);
        switch (e->kind) {
        case PLOG_WRITE:
            emit_reg(w, "write_reg", e);
            break;
        case PLOG_READ:
            emit_reg(w, "read_reg", e);
            break;
        case PLOG_WAIT:
            if (emit_wait(w, e, proglog_get(w->log, i + 1)))
                i++;
            break;
        case PLOG_MEM:
            if (!emit_load(w, e))
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
    if (dla_intr_line(w->d)) {
        fprintf(w->fp, "wait\n");
        w->res->rows++;
    } else {
        w->unrepresentable++;
        fprintf(w->fp,
                "# the run is stopped inside a wait; the hardware has advanced %llu events\n",
                (unsigned long long)(session_events(w->s) - proglog_events_at_end(w->log)));
    }
}

static bool emit_dumps(struct txn_writer *w)
{
    const struct plog_range *r;
    size_t n = proglog_written(w->log, &r);
    for (size_t i = 0; i < n; i++) {
        if (!addr_fits_space(r[i].addr, r[i].space) || r[i].len > (1ull << 32)) {
            w->unrepresentable++;
            continue;
        }
        uint8_t *buf = malloc(r[i].len);
        if (!buf ||
            dla_mem_read(w->d, (enum dla_space)r[i].space, r[i].addr, buf, r[i].len) != MEM_OK) {
            free(buf);
            w->unrepresentable++;
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "golden_%03zu.dat", i);
        bool ok = write_data_file(w, name, r[i].addr, r[i].space, buf, r[i].len);
        free(buf);
        if (!ok)
            return false;
        fprintf(w->fp, "dump_mem 0x%llx 0x%llx %s\n", (unsigned long long)r[i].addr,
                (unsigned long long)r[i].len, name);
        w->res->rows++;
    }
    return true;
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
    bool ok = emit_log(&w);
    if (ok)
        emit_trailing_wait(&w);
    if (!ok || !emit_dumps(&w)) {
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
