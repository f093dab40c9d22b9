/* Helpers shared by the two trace replayers: paths, golden comparison, dump
 * output and the summary line. */
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dat.h"
#include "util/path.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

bool trace_is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* A folder holds input.txn, or exactly one .cfg file. */
static enum trace_kind detect_dir(const char *path, char *file, size_t len)
{
    snprintf(file, len, "%s/input.txn", path);
    if (trace_is_file(file))
        return TRACE_TXN;
    DIR *dir = opendir(path);
    if (!dir)
        return TRACE_NONE;
    enum trace_kind kind = TRACE_NONE;
    int found = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (ends_with(e->d_name, ".cfg")) {
            found++;
            snprintf(file, len, "%s/%s", path, e->d_name);
            kind = TRACE_CFG;
        }
    }
    closedir(dir);
    return found == 1 ? kind : TRACE_NONE;
}

enum trace_kind trace_detect(const char *path, char *file, size_t len)
{
    if (is_dir(path))
        return detect_dir(path, file, len);
    snprintf(file, len, "%s", path);
    if (ends_with(path, ".txn"))
        return TRACE_TXN;
    if (ends_with(path, ".cfg"))
        return TRACE_CFG;
    return TRACE_NONE;
}

const char *trace_cfg_config_hint(const char *path)
{
    static const char *const names[] = {"nv_small_256_full",   "nv_small_256",  "nv_small",
                                        "nv_medium_1024_full", "nv_medium_512", "nv_large"};
    /* the folders above the file, however it was named ("t.cfg" from
     * inside its folder, "nv_small/t/t.cfg" from the one above) */
    char *full = realpath(path, NULL);
    const char *where = full ? full : path;
    const char *found = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !found; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "/%s/", names[i]);
        if (strstr(where, pat))
            found = names[i];
    }
    free(full);
    return found;
}

/* A byte's value as a hex digit, plus one; 0 for any other byte. */
static const uint8_t hex_digit[256] = {
    ['0'] = 1,   ['1'] = 2,   ['2'] = 3,   ['3'] = 4,   ['4'] = 5,   ['5'] = 6,
    ['6'] = 7,   ['7'] = 8,   ['8'] = 9,   ['9'] = 10,  ['a'] = 11,  ['b'] = 12,
    ['c'] = 13,  ['d'] = 14,  ['e'] = 15,  ['f'] = 16,  ['A'] = 11,  ['B'] = 12,
    ['C'] = 13,  ['D'] = 14,  ['E'] = 15,  ['F'] = 16,
};

/* "0x" and up to 16 hex digits, the traces' every number, without strtoull
 * and a digit a table look-up (a trace of a million layers holds thirty
 * million of them). */
bool trace_scan_hex(const char **text, uint64_t *v)
{
    const unsigned char *p = (const unsigned char *)*text;
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
        return false;
    p += 2;
    uint64_t x = 0;
    size_t n = 0;
    for (unsigned d; (d = hex_digit[p[n]]) != 0; n++) {
        if (n == 16)
            return false;
        x = x << 4 | (d - 1);
    }
    if (!n)
        return false;
    *v = x;
    *text = (const char *)p + n;
    return true;
}

/* A whole token of trace_scan_hex's; false for anything else, which strtoull
 * then reads. */
static bool parse_plain_hex(const char *tok, uint64_t *v)
{
    return trace_scan_hex(&tok, v) && *tok == 0;
}

bool trace_parse_u64(const char *tok, uint64_t *v)
{
    if (!tok)
        return false;
    if (parse_plain_hex(tok, v))
        return true;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(tok, &end, 0);
    if (errno || end == tok || *end)
        return false;
    *v = x;
    return true;
}

bool trace_parse_u32(const char *tok, uint32_t *v)
{
    uint64_t x;
    if (!trace_parse_u64(tok, &x) || x > 0xffffffffu)
        return false;
    *v = (uint32_t)x;
    return true;
}

void trace_split_path(const char *path, char *dir, size_t dlen, char *file, size_t flen,
                      const char *default_file)
{
    if (is_dir(path)) {
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
            n--;
        snprintf(dir, dlen, "%.*s", (int)n, path);
        snprintf(file, flen, "%.*s/%s", (int)n, path, default_file);
        return;
    }
    snprintf(file, flen, "%s", path);
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, dlen, ".");
}

/* The trace's name: its folder's last component (sanity1), or the file's stem. */
void trace_name(const char *dir, const char *file, char *name, size_t len)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (strcmp(base, "input.txn") == 0) {
        path_last_component(dir, name, len);
        return;
    }
    const char *dot = strrchr(base, '.');
    snprintf(name, len, "%.*s", dot ? (int)(dot - base) : (int)strlen(base), base);
}

void trace_where_base(const char *file, struct trace_where_base *wb)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t k = strnlen(base, 80);
    memcpy(wb->text, base, k);
    wb->text[k++] = ':';
    wb->len = k;
    wb->have_last = false;
}

/* The prefix and line's digits into out (room for 91 bytes); their length. */
static size_t where_text(const struct trace_where_base *wb, unsigned line, char *out)
{
    char digits[16];
    size_t nd = 0;
    do
        digits[nd++] = (char)('0' + line % 10);
    while ((line /= 10) != 0);
    memcpy(out, wb->text, wb->len);
    size_t k = wb->len;
    while (nd)
        out[k++] = digits[--nd];
    return k;
}

/* text (n bytes) into buf, cut as snprintf cuts. */
static void copy_cut(const char *text, size_t n, char *buf, size_t len)
{
    if (!len)
        return;
    size_t k = n < len - 1 ? n : len - 1;
    memcpy(buf, text, k);
    buf[k] = 0;
}

/* Without snprintf: "%.80s:%u". */
void trace_where_at(const struct trace_where_base *wb, unsigned line, char *buf, size_t len)
{
    char text[96];
    copy_cut(text, where_text(wb, line, text), buf, len);
}

/* The last place's digits moved on by one; false when they are all nines
 * (the number grows a digit). */
static bool next_line_in_place(struct trace_where_base *wb)
{
    for (size_t i = wb->last_len; i-- > wb->len;) {
        if (wb->last[i] != '9') {
            wb->last[i]++;
            return true;
        }
        wb->last[i] = '0';
    }
    return false;
}

void trace_where_next(struct trace_where_base *wb, unsigned line, char *buf, size_t len)
{
    bool next = wb->have_last && line == wb->last_line + 1u && line != 0;
    if (!(wb->have_last && line == wb->last_line) && !(next && next_line_in_place(wb)))
        wb->last_len = where_text(wb, line, wb->last);
    wb->last_line = line;
    wb->have_last = true;
    copy_cut(wb->last, wb->last_len, buf, len);
}

void trace_where(const char *file, unsigned line, char *buf, size_t len)
{
    struct trace_where_base wb;
    trace_where_base(file, &wb);
    trace_where_at(&wb, line, buf, len);
}

void trace_compare_golden(struct report *rep, const char *loc, const char *golden, uint64_t addr,
                          const uint8_t *mem, size_t len)
{
    char err[512];
    uint8_t *want;
    size_t n;
    if (dat_read_hexlines(golden, len, &want, &n, err, sizeof err) != 0) {
        report_msg(rep, REPORT_ERROR, "%s: dump_mem golden: %s", loc, err);
        rep->input_errors++;
        return;
    }
    size_t diffs = 0, first = 0;
    for (size_t i = 0; i < len; i++) {
        if (mem[i] != want[i]) {
            if (!diffs)
                first = i;
            diffs++;
        }
    }
    if (!diffs) {
        rep->dumps_matched++;
    } else {
        rep->dumps_failed++;
        report_msg(rep, REPORT_ERROR,
                   "%s: dump_mem 0x%llx+0x%zx differs from %s in %zu byte%s; first at 0x%llx: "
                   "expected 0x%02x, got 0x%02x",
                   loc, (unsigned long long)addr, len, golden, diffs, diffs == 1 ? "" : "s",
                   (unsigned long long)(addr + first), want[first], mem[first]);
    }
    free(want);
}

void trace_write_dump(struct report *rep, const char *loc, const char *outdir, const char *file,
                      uint64_t addr, const char *memtype, const uint8_t *mem, size_t len)
{
    char path[8300], err[512];
    const char *dir = outdir && *outdir ? outdir : "dladbg-out";
    if (path_make_dirs(dir, 0777) != 0) {
        report_msg(rep, REPORT_ERROR, "%s: cannot create output folder %s: %s", loc, dir,
                   strerror(errno));
        rep->input_errors++;
        return;
    }
    const char *base = strrchr(file, '/');
    snprintf(path, sizeof path, "%s/%s", dir, base ? base + 1 : file);
    if (dat_write_hexlines(path, addr, memtype, mem, len, err, sizeof err) != 0) {
        report_msg(rep, REPORT_ERROR, "%s: %s", loc, err);
        rep->input_errors++;
        return;
    }
    rep->dumps_written++;
    report_msg(rep, REPORT_NOTE, "%s: dump_mem 0x%llx+0x%zx written to %s (no golden)", loc,
               (unsigned long long)addr, len, path);
}

void trace_summary(const struct driver *drv, char *buf, size_t len)
{
    const struct report *r = drv->rep;
    int n = snprintf(buf, len, "%s: %u check%s passed, %u failed", drv->name, r->checks_passed,
                     r->checks_passed == 1 ? "" : "s", r->checks_failed);
    if (n < 0 || (size_t)n >= len)
        return;
    unsigned dumps = r->dumps_matched + r->dumps_failed;
    if (dumps && r->dumps_failed)
        n += snprintf(buf + n, len - (size_t)n, "; %u of %u dumps differ", r->dumps_failed, dumps);
    else if (dumps)
        n += snprintf(buf + n, len - (size_t)n, "; %u dump%s matched", r->dumps_matched,
                      r->dumps_matched == 1 ? "" : "s");
    if (r->dumps_written && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; %u dump%s written", r->dumps_written,
                      r->dumps_written == 1 ? "" : "s");
    if (r->input_errors && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; %u input error%s", r->input_errors,
                 r->input_errors == 1 ? "" : "s");
}

uint32_t trace_timing_bits(const struct regdb_map *map, uint32_t addr)
{
    const struct regdb_unit *u;
    const struct regdb_reg *r = regdb_reg_at(map, addr, &u);
    if (!r)
        return 0;
    if (strcmp(r->name, "S_POINTER") == 0) {
        /* PRODUCER is what the driver wrote; CONSUMER moves on completion */
        const struct regdb_field *f = regdb_field_named(r, "CONSUMER");
        return f ? regdb_field_set(f, 0, 0xffffffffu) : 0;
    }
    bool bdma_status = strcmp(u->name, "BDMA") == 0 && strncmp(r->name, "STATUS", 6) == 0;
    bool perf_counter = r->access == REGDB_RO && strncmp(r->name, "D_PERF_", 7) == 0;
    if (strcmp(r->name, "S_STATUS") == 0 || strcmp(r->name, "S_CBUF_FLUSH_STATUS") == 0 ||
        bdma_status || perf_counter)
        return 0xffffffffu;
    return 0;
}
