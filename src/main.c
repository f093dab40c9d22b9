/* dladbg: command line entry point.  Batch mode runs scripts (-x, -ex) or,
 * without them, the whole file; on a terminal the TUI opens; otherwise
 * (stdin or stdout not a terminal) the plain readline console reads commands. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_compare.h"
#include "util/suggest.h"
#include "util/afile.h"
#include "util/heap_policy.h"
#include "cmd/console.h"
#include "tui.h"

static const char usage_text[] =
    "usage: dladbg [options] [FILE]\n"
    "       dladbg --batch [options] FILE\n"
    "\n"
    "FILE is an NVDLA loadable, a register trace folder, an input.txn, a .cfg trace or\n"
    "sample:NAME (a built-in sample network; a misspelt NAME gets the nearest one);\n"
    "without FILE, sample:lenet.\n"
    "\n"
    "options:\n"
    "  --batch             run without a terminal UI and exit with the run's status; without\n"
    "                      -x/-ex, run FILE to the end and print one line per hardware layer\n"
    "  -x FILE             execute the commands of FILE (repeatable)\n"
    "  -ex CMD             execute one command (repeatable; in order with -x)\n"
    "  --config NAME       hardware configuration (default: told from the file, else nv_full;\n"
    "                      one the file cannot run on is refused; one other than a .cfg\n"
    "                      trace's folder names runs after a warning)\n"
    "  --list-configs      list the hardware configurations\n"
    "  --plugin FILE       load a decoder plugin (repeatable)\n"
    "  --loadable FILE     FILE, as nvdla_runtime takes it (--loadable X --image Y works)\n"
    "  --image FILE        loadable: input image (JPEG, PGM, PPM or DIMG) converted to the\n"
    "                      input tensor as nvdla_runtime --image does\n"
    "  --mean V[,V...]     --image into an fp16 tensor: subtract V per channel (B,G,R order)\n"
    "  --normalize N       --image into an fp16 tensor: then divide by N (1..255)\n"
    "  --input FILE        loadable: the input tensor's bytes (raw, or a DIMG), or a NumPy\n"
    "                      .npy of its type, shape (1,C,H,W) or (C,H,W) (fp16: float32 too)\n"
    "  --input-scale S     --input .npy of real values into an int8/int16 tensor: round(x/S)\n"
    "  -o, --output PATH   loadable: output DIMG file; trace: folder for dumps without a golden\n"
    "  --rawdump           loadable: print the output tensor as nvdla_runtime --rawdump does\n"
    "                      (with -o, the file holds that text instead of a DIMG)\n"
    "  --compare DIR       loadable: compare each layer's output with the reference blobs of\n"
    "                      DIR (NAME.npy, order.txt; see \"help compare\") and print a line per\n"
    "                      layer; exit 1 at a layer that departs, 2 for an unusable reference\n"
    "  --calibtable FILE   --compare: the calibration table (JSON) instead of DIR/calib.json\n"
    "  --tolerance SPEC    --compare: cos=C,lsb=N,rel=R instead of the defaults\n"
    "  -q, --quiet         only errors and the summary (with --rawdump the summary goes\n"
    "                      to stderr: stdout holds the tensor only)\n"
    "  --nx                do not read ~/.dladbgrc\n"
    "  --no-color          plain text output\n"
    "  -h, --help          this help\n"
    "  -V, --version       version\n"
    "\n"
    "exit status: 0 ok, 1 a check or golden mismatch or a hang, 2 usage or input error, or\n"
    "a command of a batch script failed\n";

enum {
    OPT_BATCH = 256,
    OPT_CONFIG,
    OPT_LIST,
    OPT_PLUGIN,
    OPT_INPUT,
    OPT_INPUT_SCALE,
    OPT_IMAGE,
    OPT_MEAN,
    OPT_NORMALIZE,
    OPT_NX,
    OPT_NOCOLOR,
    OPT_EX,
    OPT_RAWDUMP,
    OPT_LOADABLE,
    OPT_COMPARE,
    OPT_CALIBTABLE,
    OPT_TOLERANCE
};

struct script_item {
    bool is_file; /* -x FILE, else -ex CMD */
    const char *text;
};

struct cli {
    bool batch, quiet, nx, no_color;
    struct dbg_options opt;
    size_t n_items;
    struct script_item *items;
    size_t n_plugins;
    const char **plugins;
    const char *file;
    const char *compare, *calibtable, *tolerance; /* --compare DIR and its options */
};

/* ---------------------------------------------------------------- output */

static void print_line(void *ctx, enum dbg_out_kind kind, const char *text)
{
    const struct cli *cli = ctx;
    switch (kind) {
    case DBG_OUT_ERROR:
        fprintf(stderr, "error: %s\n", text);
        break;
    case DBG_OUT_WARNING:
        fprintf(stderr, "warning: %s\n", text);
        break;
    case DBG_OUT_NOTE:
        if (!cli->quiet)
            printf("%s\n", text);
        break;
    default:
        printf("%s\n", text);
        break;
    }
    fflush(stdout);
}

/* ---------------------------------------------------------------- options */

static void list_configs(void)
{
    size_t n;
    const struct dla_config *c = dla_config_all(&n);
    for (size_t i = 0; i < n; i++)
        printf("%-20s %s\n", c[i].name, c[i].summary);
}

static bool push(void **v, size_t *n, size_t size, const void *item)
{
    void *grown = realloc(*v, (*n + 1) * size);
    if (!grown)
        return false;
    *v = grown;
    memcpy((char *)grown + *n * size, item, size);
    (*n)++;
    return true;
}

/* gdb spells it "-ex": let getopt see "--ex". */
static void rewrite_ex(int argc, char **argv)
{
    static char long_ex[] = "--ex";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "-ex"))
            argv[i] = long_ex;
    }
}

/* The argument getopt stopped at: a short option in the middle of a word
 * ("-batch" stops at its b) leaves optind at that word, a finished word or a
 * long option leaves it after. */
static const char *bad_option_word(int argc, char **argv)
{
    if (optopt > 0 && optopt < 128 && optind < argc && argv[optind][0] == '-' &&
        argv[optind][1] != '-' && strchr(argv[optind], optopt))
        return argv[optind];
    return argv[optind > 1 ? optind - 1 : 1];
}

/* A mistyped option gets one line: the word, the options it could start
 * or the nearest one ("-batch", gdb's spelling, is "--batch"), and where the
 * list is; the whole usage after getopt's line buried the line. */
static void bad_option(int ch, const char *arg, const struct option *longopts)
{
    char word[64];
    snprintf(word, sizeof word, "%s", arg);
    word[strcspn(word, "=")] = 0;
    if (ch == ':') {
        fprintf(stderr, "dladbg: option %s needs a value (\"dladbg --help\" lists the options)\n",
                word);
        return;
    }
    const char *bare = word + strspn(word, "-");
    char starts[256] = "";
    size_t n_starts = 0;
    struct suggest near;
    suggest_init(&near, bare);
    const char *exact = NULL; /* "-batch": the name right, one dash short */
    for (const struct option *o = longopts; o->name; o++) {
        suggest_consider(&near, o->name);
        if (!strcmp(o->name, bare))
            exact = o->name;
        if (bare[0] && !strncmp(o->name, bare, strlen(bare)) && strlen(starts) + 40 < sizeof starts)
            snprintf(starts + strlen(starts), sizeof starts - strlen(starts), "%s--%s",
                     n_starts++ ? ", " : "", o->name);
    }
    const char *best = exact ? exact : suggest_best(&near);
    if (!strncmp(word, "--", 2) && n_starts > 1)
        fprintf(stderr, "dladbg: option %s is ambiguous: %s\n", word, starts);
    else if (best)
        fprintf(stderr, "dladbg: unknown option %s; did you mean --%s? (\"dladbg --help\" lists "
                        "the options)\n", word, best);
    else
        fprintf(stderr, "dladbg: unknown option %s (\"dladbg --help\" lists the options)\n", word);
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct cli *cli)
{
    static const struct option longopts[] = {
        {"batch", no_argument, NULL, OPT_BATCH},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"list-configs", no_argument, NULL, OPT_LIST},
        {"plugin", required_argument, NULL, OPT_PLUGIN},
        {"input", required_argument, NULL, OPT_INPUT},
        {"input-scale", required_argument, NULL, OPT_INPUT_SCALE},
        {"image", required_argument, NULL, OPT_IMAGE},
        {"mean", required_argument, NULL, OPT_MEAN},
        {"normalize", required_argument, NULL, OPT_NORMALIZE},
        {"output", required_argument, NULL, 'o'},
        {"rawdump", no_argument, NULL, OPT_RAWDUMP},
        {"loadable", required_argument, NULL, OPT_LOADABLE},
        {"compare", required_argument, NULL, OPT_COMPARE},
        {"calibtable", required_argument, NULL, OPT_CALIBTABLE},
        {"tolerance", required_argument, NULL, OPT_TOLERANCE},
        {"quiet", no_argument, NULL, 'q'},
        {"nx", no_argument, NULL, OPT_NX},
        {"no-color", no_argument, NULL, OPT_NOCOLOR},
        {"ex", required_argument, NULL, OPT_EX},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {0, 0, 0, 0},
    };
    rewrite_ex(argc, argv);
    char err[256];
    int ch;
    opterr = 0; /* bad_option says it */
    while ((ch = getopt_long(argc, argv, ":x:o:qhV", longopts, NULL)) != -1) {
        struct script_item item = {.is_file = ch == 'x', .text = optarg};
        switch (ch) {
        case OPT_BATCH:
            cli->batch = true;
            break;
        case OPT_CONFIG:
            cli->opt.session.cfg = dla_config_find(optarg);
            if (!cli->opt.session.cfg) {
                fprintf(stderr, "dladbg: unknown configuration \"%s\" (see --list-configs)\n",
                        optarg);
                return 2;
            }
            break;
        case OPT_LIST:
            list_configs();
            return 0;
        case OPT_PLUGIN:
            if (!push((void **)&cli->plugins, &cli->n_plugins, sizeof *cli->plugins, &optarg))
                return 2;
            break;
        case OPT_INPUT:
            cli->opt.session.input.raw = optarg;
            break;
        case OPT_INPUT_SCALE:
            if (!input_parse_scale(optarg, &cli->opt.session.input.scale, err, sizeof err)) {
                fprintf(stderr, "dladbg: %s\n", err);
                return 2;
            }
            break;
        case OPT_IMAGE:
            cli->opt.session.input.image = optarg;
            break;
        case OPT_MEAN:
        case OPT_NORMALIZE:
            if (!(ch == OPT_MEAN ? input_parse_mean : input_parse_normalize)(
                    optarg, &cli->opt.session.input.norm, err, sizeof err)) {
                fprintf(stderr, "dladbg: %s\n", err);
                return 2;
            }
            break;
        case 'o':
            cli->opt.session.outdir = optarg;
            cli->opt.session.output = optarg;
            break;
        case OPT_RAWDUMP:
            cli->opt.session.rawdump = true;
            break;
        case OPT_LOADABLE:
            if (cli->file) {
                fprintf(stderr, "dladbg: --loadable given twice: one FILE\n");
                return 2;
            }
            cli->file = optarg;
            break;
        case OPT_COMPARE:
            cli->compare = optarg;
            break;
        case OPT_CALIBTABLE:
            cli->calibtable = optarg;
            break;
        case OPT_TOLERANCE:
            cli->tolerance = optarg;
            break;
        case 'q':
            cli->quiet = true;
            break;
        case OPT_NX:
            cli->nx = true;
            break;
        case OPT_NOCOLOR:
            cli->no_color = true;
            break;
        case 'x':
        case OPT_EX:
            if (!push((void **)&cli->items, &cli->n_items, sizeof item, &item))
                return 2;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case 'V':
            printf("dladbg %s\n", DLADBG_VERSION);
            return 0;
        default:
            bad_option(ch, bad_option_word(argc, argv), longopts);
            return 2;
        }
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "dladbg: expected one FILE\n%s", usage_text);
        return 2;
    }
    if (cli->file && optind < argc) {
        fprintf(stderr, "dladbg: --loadable %s and FILE %s: give the file once\n", cli->file,
                argv[optind]);
        return 2;
    }
    if (cli->opt.session.input.image && cli->opt.session.input.raw) {
        fprintf(stderr, "dladbg: --image and --input both give the input tensor: use one\n");
        return 2;
    }
    if (cli->opt.session.input.scale > 0 && !cli->opt.session.input.raw) {
        fprintf(stderr, "dladbg: --input-scale quantizes the real values of an --input .npy: "
                        "give one, or drop it\n");
        return 2;
    }
    if (input_norm_given(&cli->opt.session.input.norm) && !cli->opt.session.input.image) {
        fprintf(stderr, "dladbg: --mean and --normalize convert an --image: give one, or drop "
                        "them\n");
        return 2;
    }
    if ((cli->calibtable || cli->tolerance) && !cli->compare) {
        fprintf(stderr, "dladbg: --%s applies to --compare DIR: give one, or drop it\n",
                cli->calibtable ? "calibtable" : "tolerance");
        return 2;
    }
    if (!cli->file)
        cli->file = optind < argc ? argv[optind] : "sample:lenet";
    cli->opt.batch = cli->batch;
    return -1;
}

/* ---------------------------------------------------------------- running */

static void read_rc(struct dbg *d, const struct dbg_sink *out)
{
    const char *home = getenv("HOME");
    char path[4096];
    if (!home || !home[0])
        return;
    snprintf(path, sizeof path, "%s/.dladbgrc", home);
    if (access(path, R_OK) == 0)
        dbg_source(d, path, out);
}

/* The commands of -x and -ex, in command-line order. */
static bool run_items(struct dbg *d, const struct cli *cli, const struct dbg_sink *out)
{
    for (size_t i = 0; i < cli->n_items; i++) {
        const struct script_item *it = &cli->items[i];
        enum cmd_status st;
        if (it->is_file) {
            st = dbg_source(d, it->text, out);
        } else {
            snprintf(d->where, sizeof d->where, "-ex %zu", i + 1);
            st = dbg_exec(d, it->text, out);
            d->where[0] = 0;
        }
        if (st == CMD_QUIT || (st == CMD_ERROR && cli->batch))
            return false;
    }
    /* later lines would come from the console: only batch mode ends here */
    return !cli->batch || dbg_input_ended(d);
}

/* The -x/-ex items as console command lines for the TUI, NULL-terminated
 * ("-x FILE" becomes "source FILE"); NULL when out of memory. */
static char **items_as_commands(const struct cli *cli)
{
    char **cmds = calloc(cli->n_items + 1, sizeof *cmds);
    for (size_t i = 0; cmds && i < cli->n_items; i++) {
        const struct script_item *it = &cli->items[i];
        size_t n = strlen(it->text) + sizeof "source ";
        cmds[i] = malloc(n);
        if (!cmds[i])
            return cmds; /* the list stays NULL-terminated: run what we have */
        snprintf(cmds[i], n, "%s%s", it->is_file ? "source " : "", it->text);
    }
    return cmds;
}

/* The file and what goes with it: --compare DIR, then ~/.dladbgrc (its
 * output to the debugger's sink: stdout, or the TUI's console). */
static bool open_file(struct dbg *d, const struct cli *cli, const struct dbg_sink *out, char *err,
                      size_t errlen)
{
    if (!dbg_open(d, cli->file, err, errlen))
        return false;
    char why[1024];
    if (cli->compare && !dbg_compare_arm(d, cli->compare, cli->calibtable, cli->tolerance, why,
                                         sizeof why)) {
        snprintf(err, errlen, "--compare: %s", why);
        return false;
    }
    if (!cli->nx)
        read_rc(d, out);
    return true;
}

static bool open_in_tui(void *ctx, struct dbg *d, char *err, size_t errlen)
{
    return open_file(d, ctx, NULL, err, errlen);
}

static int run_tui(struct dbg *d, const struct cli *cli)
{
    char **cmds = items_as_commands(cli);
    struct tui_options to = {.no_color = cli->no_color,
                             .commands = (const char *const *)cmds,
                             .open = open_in_tui,
                             .open_ctx = (void *)cli,
                             .opening = cli->file};
    int status = tui_run(d, &to);
    for (size_t i = 0; cmds && cmds[i]; i++)
        free(cmds[i]);
    free(cmds);
    return status;
}

static bool on_terminal(void)
{
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/* --batch FILE with no script: the whole run, a line per layer, the summary. */
static void run_whole(struct dbg *d, const struct cli *cli, const struct dbg_sink *out)
{
    while (!session_finished(d->session)) {
        enum session_stop r = session_step(d->session, SESSION_RUN, 0);
        if (r == SESSION_HANG || r == SESSION_INTERRUPTED) {
            d->hung = true;
            fprintf(stderr, "error: no progress: %s\n", session_stop_message(d->session));
            (void)dbg_exec(d, "info hang", out);
            if (r == SESSION_INTERRUPTED)
                break;
        }
    }
    if (!cli->quiet)
        dbg_exec(d, "info layers brief", out);
    char summary[512];
    session_summary(d->session, summary, sizeof summary);
    /* -q --rawdump: stdout holds the tensor only, as nvdla_runtime's */
    fprintf(cli->quiet && cli->opt.session.rawdump ? stderr : stdout, "%s\n", summary);
}

int main(int argc, char **argv)
{
    heap_policy_start();
    struct cli cli = {0};
    int status = parse_options(argc, argv, &cli);
    if (status >= 0)
        return status;
    /* batch and the line console: a SIGTERM/SIGINT/SIGHUP in the middle of an
     * export leaves no temporary behind (the console then takes SIGINT for
     * interrupting runs; the TUI handles its signals itself) */
    if (cli.batch || !on_terminal())
        afile_cleanup_on_signals();
    struct dbg_sink out = {.line = print_line, .ctx = &cli};
    /* batch and piped runs print the comparison's report as they end */
    cli.opt.compare_verdict_at_run_end = !cli.batch && on_terminal();
    struct dbg *d = dbg_create(&cli.opt, &out);
    if (!d) {
        fprintf(stderr, "dladbg: out of memory\n");
        return 2;
    }
    char err[1024];
    for (size_t i = 0; i < cli.n_plugins; i++)
        if (!dbg_load_plugin(d, cli.plugins[i], err, sizeof err)) {
            fprintf(stderr, "dladbg: plugin %s\n", err);
            status = 2;
        }
    bool tui = !cli.batch && on_terminal();
    /* the TUI opens the file itself, once its first frame is on the screen */
    if (status < 0 && !tui && !open_file(d, &cli, &out, err, sizeof err)) {
        fprintf(stderr, "dladbg: %s\n", err);
        status = 2;
    }
    if (status < 0) {
        if (cli.batch && !cli.n_items && !d->failed_cmds) {
            run_whole(d, &cli, &out);
        } else if (tui) {
            status = run_tui(d, &cli);
        } else if (run_items(d, &cli, &out) && !cli.batch && !d->quit) {
            struct console *c = console_create(d, &out);
            if (c) {
                console_run(c);
                console_destroy(c);
            }
        }
        if (cli.compare && (cli.batch || !on_terminal()))
            dbg_compare_report(d, &out, !cli.n_items);
        if (status < 0)
            status = dbg_exit_status(d);
    }
    dbg_destroy(d);
    free(cli.items);
    free(cli.plugins);
    return status;
}
