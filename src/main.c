/* dladbg: command line entry point. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

static const char usage_text[] =
    "usage: dladbg [options] FILE\n"
    "       dladbg --batch [options] FILE\n"
    "\n"
    "FILE is an NVDLA loadable, a register trace folder, an input.txn or a .cfg trace.\n"
    "\n"
    "options:\n"
    "  --batch            run without a terminal UI and exit with the run's status\n"
    "  --config NAME      hardware configuration (default nv_full; .cfg traces: from the path)\n"
    "  --list-configs     list the hardware configurations\n"
    "  -o, --output PATH  loadable: output DIMG file; trace: folder for dumps without a golden\n"
    "  -q, --quiet        only errors and the summary\n"
    "  -h, --help         this help\n"
    "  -V, --version      version\n"
    "\n"
    "exit status: 0 ok, 1 a check or golden mismatch, 2 usage or input error\n";

struct batch_out {
    bool quiet;
};

static void print_report(void *ctx, enum report_level level, const char *text)
{
    struct batch_out *o = ctx;
    if (level == REPORT_INFO && o->quiet)
        return;
    FILE *f = level >= REPORT_WARNING ? stderr : stdout;
    fprintf(f, "%s%s\n",
            level == REPORT_ERROR     ? "error: "
            : level == REPORT_WARNING ? "warning: "
                                      : "",
            text);
}

static void print_diag(void *ctx, const struct dla_event *ev)
{
    (void)ctx;
    if (ev->kind != DLA_EV_DIAG)
        return;
    fprintf(stderr, "%s: cycle %llu: %s%s%s%s\n", dla_severity_name(ev->u.diag.severity),
            (unsigned long long)ev->cycle, ev->u.diag.msg, ev->u.diag.rule ? " [" : "",
            ev->u.diag.rule ? ev->u.diag.rule : "", ev->u.diag.rule ? "]" : "");
}

static void list_configs(void)
{
    size_t n;
    const struct dla_config *c = dla_config_all(&n);
    for (size_t i = 0; i < n; i++)
        printf("%-20s %s\n", c[i].name, c[i].summary);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"batch", no_argument, NULL, 'b'},        {"config", required_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
        {"list-configs", no_argument, NULL, 'L'}, {0, 0, 0, 0},
    };
    struct session_opts opt = {0};
    struct batch_out out = {0};
    bool batch = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "c:o:qhV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'b':
            batch = true;
            break;
        case 'c':
            opt.cfg = dla_config_find(optarg);
            if (!opt.cfg) {
                fprintf(stderr, "dladbg: unknown configuration \"%s\" (see --list-configs)\n",
                        optarg);
                return 2;
            }
            break;
        case 'o':
            opt.outdir = optarg;
            opt.output = optarg;
            break;
        case 'q':
            out.quiet = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case 'V':
            printf("dladbg %s\n", DLADBG_VERSION);
            return 0;
        case 'L':
            list_configs();
            return 0;
        default:
            fputs(usage_text, stderr);
            return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "dladbg: expected one FILE\n%s", usage_text);
        return 2;
    }
    (void)batch;
    struct report rep = {.print = print_report, .ctx = &out};
    char err[1024];
    struct session *s = session_open(argv[optind], &opt, &rep, err, sizeof err);
    if (!s) {
        fprintf(stderr, "dladbg: %s\n", err);
        return 2;
    }
    dla_listen(session_dla(s), print_diag, NULL);
    for (;;) {
        enum session_stop r = session_step(s, SESSION_RUN, 0);
        if (r == SESSION_DONE)
            break;
        if (r == SESSION_HANG) {
            fprintf(stderr, "error: %s\n", session_stop_message(s));
            session_hang_report(s, stderr);
        }
    }
    char summary[512];
    session_summary(s, summary, sizeof summary);
    printf("%s\n", summary);
    int status = session_exit_status(s);
    session_close(s);
    return status;
}
