/* Exports and plugins: export csv|chrome|vcd|txn, plugins [load FILE]. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_priv.h"

/* Whether the session has executed anything: an export before it holds nothing. */
static bool nothing_ran(struct dbg *d)
{
    struct drv_action act;
    return !session_last_action(d->session, &act);
}

/* Every export ends alike: the exporter's error, or what it wrote and its note. */
static enum cmd_status report_export(struct dbg *d, struct cmd_args *a, bool ok, const char *err,
                                     const char *what, const char *unit, const char *path,
                                     const struct export_result *res)
{
    if (!ok)
        return cmd_fail(d, a, "%s", err);
    cmd_print(d, "Wrote %s %s (%zu %s%s).", what, path, res->rows, unit, res->rows == 1 ? "" : "s");
    if (res->note[0])
        cmd_out(d, DBG_OUT_NOTE, "note: %s", res->note);
    if (nothing_ran(d)) /* exports say what happened: a user may expect them to run it */
        cmd_out(d, DBG_OUT_NOTE, "note: nothing has run yet (\"run\" first, then export what "
                                 "it did)");
    return CMD_OK;
}

/* Exports of more rows than this are large enough to surprise (a
 * per-element decoder writes millions): asked about first at the terminal,
 * their size noted afterwards. */
#define CSV_LARGE_ROWS 100000u

static void format_size(uint64_t bytes, char *buf, size_t len)
{
    if (bytes >= 1000000)
        snprintf(buf, len, "%.1f MB", (double)bytes / 1e6);
    else
        snprintf(buf, len, "%llu kB", (unsigned long long)((bytes + 999) / 1000));
}

/* What the decoder's rows are, from its description. */
static const char *decoder_says(struct dbg *d, const char *decoder)
{
    const struct plugin_info *pi = plugin_host_find(d->plugins, decoder);
    return pi && pi->facts->description ? pi->facts->description : decoder;
}

/* At the terminal: a large export is measured first (the decoder run
 * without writing) and written only if the user agrees to its size. */
enum size_answer { SIZE_WRITE, SIZE_DECLINED, SIZE_FAILED };

static enum size_answer csv_size_agreed(struct dbg *d, struct cmd_args *a, const char *decoder,
                                        const char *file)
{
    size_t rows;
    uint64_t bytes;
    char err[512];
    if (!export_csv_measure(d->plugins, decoder, d->session, d->ring, &rows, &bytes, err,
                            sizeof err)) {
        cmd_fail(d, a, "%s", err);
        return SIZE_FAILED;
    }
    if (rows <= CSV_LARGE_ROWS)
        return SIZE_WRITE;
    char size[32], question[768];
    format_size(bytes, size, sizeof size);
    cmd_print(d, "Decoder %s writes %zu rows, %s: %s.", decoder, rows, size,
              decoder_says(d, decoder));
    snprintf(question, sizeof question, "Write %zu rows (%s) to %s? (y or n) ", rows, size, file);
    if (cmd_confirm(d, question))
        return SIZE_WRITE;
    cmd_print(d, "Nothing written.");
    return SIZE_DECLINED;
}

static enum cmd_status do_export_csv(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    const char *file = NULL, *decoder = NULL;
    for (int i = 0; i < cmd_nargs(a); i++) {
        const char *w = cmd_arg(a, i);
        if (!strcmp(w, "--decoder") || !strcmp(w, "-d")) {
            decoder = cmd_arg(a, ++i);
        } else if (!strncmp(w, "--decoder=", 10)) {
            decoder = w + 10;
        } else if (!file) {
            file = w;
        } else {
            return cmd_fail(d, a, "unexpected \"%s\"", w);
        }
    }
    if (!file || !decoder)
        return cmd_fail(d, a, "expected FILE --decoder NAME");
    struct export_result res;
    char err[1024];
    enum size_answer ans = cmd_asks(d) ? csv_size_agreed(d, a, decoder, file) : SIZE_WRITE;
    if (ans != SIZE_WRITE)
        return ans == SIZE_DECLINED ? CMD_OK : CMD_ERROR;
    bool ok = export_csv(d->plugins, decoder, d->session, d->ring, file, &res, err, sizeof err);
    enum cmd_status st = report_export(d, a, ok, err, "CSV", "row", file, &res);
    if (ok && res.rows > CSV_LARGE_ROWS) {
        struct stat sb;
        char size[32] = "";
        if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode))
            format_size((uint64_t)sb.st_size, size, sizeof size);
        cmd_out(d, DBG_OUT_NOTE, "note: %s%s%s: %s", size, size[0] ? " in " : "", file,
                decoder_says(d, decoder));
    }
    return st;
}

static bool one_path(struct dbg *d, struct cmd_args *a, const char **path)
{
    if (!cmd_need_session(d, a))
        return false;
    *path = cmd_arg(a, 0);
    if (!*path || cmd_nargs(a) != 1) {
        cmd_fail(d, a, "expected one %s", strstr(a->path, "txn") ? "DIR" : "FILE");
        return false;
    }
    return true;
}

static enum cmd_status do_export_chrome(struct dbg *d, struct cmd_args *a)
{
    const char *path;
    struct export_result res;
    char err[1024];
    if (!one_path(d, a, &path))
        return CMD_ERROR;
    bool ok = export_chrome(d->session, d->ring, path, &res, err, sizeof err);
    return report_export(d, a, ok, err, "Chrome trace", "event", path, &res);
}

static enum cmd_status do_export_vcd(struct dbg *d, struct cmd_args *a)
{
    const char *path;
    struct export_result res;
    char err[1024];
    if (!one_path(d, a, &path))
        return CMD_ERROR;
    bool ok = export_vcd(d->session, d->ring, path, &res, err, sizeof err);
    return report_export(d, a, ok, err, "VCD", "value change", path, &res);
}

static enum cmd_status do_export_txn(struct dbg *d, struct cmd_args *a)
{
    const char *path;
    struct export_result res;
    char err[1024];
    if (!one_path(d, a, &path))
        return CMD_ERROR;
    /* before anything ran, the trace would replay nothing and pass: not
     * written (over an earlier export, perhaps) */
    if (nothing_ran(d))
        return cmd_fail(d, a, "%s: nothing has run yet, so the trace would replay nothing "
                              "(\"run\" or a step first)", path);
    bool ok = export_txn(d->session, d->log, path, &res, err, sizeof err);
    return report_export(d, a, ok, err, "trace folder", "command", path, &res);
}

static enum cmd_status do_plugins(struct dbg *d, struct cmd_args *a)
{
    if (cmd_nargs(a))
        return cmd_fail(d, a, "unexpected \"%s\" (\"plugins load FILE\" loads one)", cmd_arg(a, 0));
    size_t n = plugin_host_count(d->plugins);
    if (!n) {
        cmd_print(d, "No decoder plugins loaded (searched $DLADBG_PLUGIN_PATH, the folders "
                     "next to dladbg and the installed folder).");
        return CMD_OK;
    }
    for (size_t i = 0; i < n; i++) {
        const struct plugin_info *p = plugin_host_get(d->plugins, i);
        const struct plugin_facts *f = p->facts;
        cmd_print(d, "%-8s %s", f->name, f->description ? f->description : "");
        char cols[1024] = "";
        for (uint32_t c = 0; c < f->n_columns; c++) {
            size_t len = strlen(cols);
            snprintf(cols + len, sizeof cols - len, "%s%s", c ? "," : "", f->columns[c]);
        }
        cmd_print(d, "         columns: %s", cols);
        if (f->n_commands) {
            char names[512] = "";
            for (uint32_t c = 0; c < f->n_commands; c++) {
                size_t len = strlen(names);
                snprintf(names + len, sizeof names - len, "%s%s", c ? ", " : "",
                         f->commands[c].name);
            }
            cmd_print(d, "         commands: %s (\"help NAME\")", names);
        }
        /* a plugin is mapped into dladbg at its first use (plugin_host.h) */
        cmd_print(d, "         from %s (ABI %u, %s)", p->path, f->abi_version,
                  p->handle ? "mapped" : "not mapped until first used");
    }
    return CMD_OK;
}

static enum cmd_status do_plugins_load(struct dbg *d, struct cmd_args *a)
{
    const char *path = cmd_arg(a, 0);
    if (!path || cmd_nargs(a) != 1)
        return cmd_fail(d, a, "expected one FILE");
    char err[1024];
    if (!dbg_load_plugin(d, path, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    const struct plugin_info *p = plugin_host_get(d->plugins, plugin_host_count(d->plugins) - 1);
    cmd_print(d, "Loaded decoder %s from %s.", p->facts->name, path);
    return CMD_OK;
}

static const struct cmd_entry export_subs[] = {
    {"csv", NULL, "FILE --decoder DECODER", "export csv FILE --decoder NAME",
     "Events of the run through a decoder plugin as CSV (RFC 4180 quoting by libcsv).",
     do_export_csv, NULL, false},
    {"chrome", "perfetto json", "FILE", "export chrome FILE",
     "Chrome trace-event JSON for Perfetto UI: a track per unit, layers as slices,\n"
     "interrupts, a bandwidth counter per memory (\"dram bandwidth\", \"cvsram bandwidth\":\n"
     "bytes per cycle); model-derived cycles shown as ns.",
     do_export_chrome, NULL, false},
    {"vcd", NULL, "FILE", "export vcd FILE",
     "Unit busy signals, interrupt status, mask and line over cycles, for GTKWave.", do_export_vcd,
     NULL, false},
    {"txn", "trace", "DIR", "export txn DIR",
     "The run's register programming and the memory it needs as an input.txn trace folder\n"
     "(load_mem, write_reg, read_reg, wait, dump_mem of the outputs) that replays it.",
     do_export_txn, NULL, false},
    END_OF_TABLE,
};

static const struct cmd_entry plugins_subs[] = {
    {"load", NULL, "FILE", "plugins load FILE", "Load one decoder plugin.", do_plugins_load, NULL,
     false},
    END_OF_TABLE,
};

const struct cmd_entry cmd_export_entries[] = {
    {"export", NULL, NULL, "export csv|chrome|vcd|txn ...", "Write what the run did to files.",
     NULL, export_subs, false},
    {"plugins", NULL, NULL, "plugins [load FILE]", "List the decoder plugins, or load one.",
     do_plugins, plugins_subs, false},
    END_OF_TABLE,
};
