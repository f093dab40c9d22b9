/* "info dma lines [READ WRITE]": the DRAM lines the model's DMA touched, and
 * their difference to golden lists such as NVIDIA's VP_mem_rd / VP_mem_wr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "trace/dma_lines.h"

#define MAX_RANGES_SHOWN 16

/* Lines of `a` that `b` lacks, printed as address ranges; returns their count. */
static size_t print_only_in(struct dbg *d, const char *what, const struct line_set *a,
                            const struct line_set *b)
{
    uint64_t *v = line_set_sorted(a);
    size_t n = 0, ranges = 0;
    for (size_t i = 0; v && i < a->count;) {
        if (line_set_has(b, v[i])) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < a->count && v[j] == v[j - 1] + 1 && !line_set_has(b, v[j]))
            j++;
        n += j - i;
        if (ranges++ < MAX_RANGES_SHOWN)
            cmd_print(d, "    only in %s: 0x%llx-0x%llx (%zu line%s)", what,
                      (unsigned long long)(v[i] * DMA_LINE_BYTES),
                      (unsigned long long)((v[j - 1] + 1) * DMA_LINE_BYTES - 1), j - i,
                      j - i == 1 ? "" : "s");
        i = j;
    }
    if (ranges > MAX_RANGES_SHOWN)
        cmd_print(d, "    ... %zu more range%s only in %s", ranges - MAX_RANGES_SHOWN,
                  ranges - MAX_RANGES_SHOWN == 1 ? "" : "s", what);
    free(v);
    return n;
}

enum lines_verdict { LINES_EQUAL, LINES_DIFFERENT, LINES_NOT_COMPARED };

/* One direction against its golden.  "-" names none; an empty golden
 * while the model's DMA moved lines is a capture that holds nothing (the
 * gem5-NVDLA resnet18 trace's VP_mem_rd is empty beside 90,784 written
 * lines: no network writes without reading), told and not compared. */
static enum lines_verdict compare(struct dbg *d, const char *dir, const struct line_set *model,
                                  const struct line_set *golden, const char *path)
{
    if (!strcmp(path, "-")) {
        cmd_print(d, "%s: model %zu lines, no golden given: not compared", dir, model->count);
        return LINES_NOT_COMPARED;
    }
    if (golden->count == 0 && model->count > 0) {
        cmd_print(d, "%s: model %zu lines; golden %s is empty (was nothing captured?): not "
                     "compared", dir, model->count, path);
        return LINES_NOT_COMPARED;
    }
    cmd_print(d, "%s: model %zu lines, golden %zu (%s)", dir, model->count, golden->count, path);
    size_t extra = print_only_in(d, "the model", model, golden);
    size_t missing = print_only_in(d, "the golden", golden, model);
    cmd_print(d, "  %zu only in the model, %zu only in the golden: %s", extra, missing,
              extra || missing ? "DIFFERENT" : "equal");
    return extra || missing ? LINES_DIFFERENT : LINES_EQUAL;
}

/* A golden list, or none for "-". */
static bool read_golden(struct line_set *set, const char *path, char *err, size_t errlen)
{
    return !strcmp(path, "-") || line_set_read(set, path, err, errlen);
}

enum cmd_status cmd_info_dma(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    int n = cmd_nargs(a);
    if (n < 1 || strcmp(cmd_arg(a, 0), "lines") != 0 || (n != 1 && n != 3))
        return cmd_fail(d, a, "expected: info dma lines [READ_GOLDEN WRITE_GOLDEN]");
    const struct dma_lines *l = d->lines;
    if (l->out_of_memory)
        return cmd_fail(d, a, "out of memory while recording the DMA lines");
    if (n == 1) {
        cmd_print(d, "DMA lines (%u bytes, DRAM): %zu read, %zu written", DMA_LINE_BYTES,
                  l->read.count, l->written.count);
        return CMD_OK;
    }
    struct line_set rd = {0}, wr = {0};
    char err[512];
    if (!read_golden(&rd, cmd_arg(a, 1), err, sizeof err) ||
        !read_golden(&wr, cmd_arg(a, 2), err, sizeof err)) {
        line_set_free(&rd);
        line_set_free(&wr);
        return cmd_fail(d, a, "%s", err);
    }
    enum lines_verdict v_rd = compare(d, "read", &l->read, &rd, cmd_arg(a, 1));
    enum lines_verdict v_wr = compare(d, "written", &l->written, &wr, cmd_arg(a, 2));
    line_set_free(&rd);
    line_set_free(&wr);
    if (v_rd == LINES_DIFFERENT || v_wr == LINES_DIFFERENT) {
        d->rep.checks_failed++;
        cmd_out(d, DBG_OUT_ERROR, "info dma lines: the model's DRAM lines differ from the golden");
    } else if (v_rd == LINES_EQUAL || v_wr == LINES_EQUAL) {
        d->rep.checks_passed++;
    }
    return CMD_OK;
}
