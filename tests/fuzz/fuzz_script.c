/* Fuzz harness: whole debugging scripts against a real network.  The input
 * is a bundle (fuzz_util.h): script.dladbg, then the scripts it sources,
 * each run as `dladbg -x script.dladbg sample:lenet` would (a first line
 * "# conv" picks sample:conv instead): sourcing, nesting and its limit,
 * breakpoints and conditions, stepping, going back, checkpoints, exports
 * into the scratch folder, expressions of any depth, and the simulation
 * they drive, across lines and files where fuzz_cmd runs one line at a time.
 *
 * Bounded: each file keeps its first MAX_LINES lines and at most one source
 * line (so sourcing makes a chain, at most the nesting limit deep, never a
 * tree); lines that would leave the scratch folder (plugins, file, a path
 * with '/' or '~', shell) become comments. */
#include <ctype.h>
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd_priv.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 16

/* FUZZ_SCRIPT_SHOW=1 shows what a seed does (when writing seeds). */
static void discard(void *ctx, enum dbg_out_kind kind, const char *text)
{
    (void)ctx;
    (void)kind;
    if (getenv("FUZZ_SCRIPT_SHOW"))
        fprintf(stderr, "%s\n", text);
}

static const struct dbg_sink sink = {discard, NULL};

/* The command of a line, as the tokenizer would look it up. */
static const struct cmd_entry *command_of(const char *line)
{
    char word[64];
    size_t n = 0;
    while (isspace((unsigned char)*line))
        line++;
    while (*line && !isspace((unsigned char)*line) && *line != '/' && *line != '"' &&
           n + 1 < sizeof word)
        word[n++] = *line++;
    word[n] = 0;
    bool ambiguous;
    return n ? cmd_lookup(NULL, word, &ambiguous) : NULL;
}

/* Whether a line may run: nothing outside the scratch folder, one source
 * line a file (*sources counts them). */
static bool allowed(const char *line, int *sources)
{
    if (strchr(line, '/') || strchr(line, '~') || strchr(line, '|') || strchr(line, '!'))
        return false;
    const struct cmd_entry *e = command_of(line);
    if (!e)
        return true;
    if (!strcmp(e->name, "plugins") || !strcmp(e->name, "file") || !strcmp(e->name, "shell") ||
        !strcmp(e->name, "open"))
        return false;
    if (!strcmp(e->name, "source"))
        return ++*sources <= 1;
    return true;
}

/* Rewrite a file of the scratch folder: its first MAX_LINES lines, each
 * kept or made a comment. */
static void filter_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return;
    char *text = NULL;
    size_t len = 0, cap = 0;
    int c;
    while ((c = fgetc(fp)) != EOF) {
        if (len + 2 > cap) {
            cap = cap ? cap * 2 : 256;
            char *grown = realloc(text, cap);
            if (!grown)
                abort();
            text = grown;
        }
        text[len++] = (char)c;
    }
    fclose(fp);
    if (!text)
        return;
    text[len] = 0;
    fp = fopen(path, "wb");
    int lines = 0, sources = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); fp && line && lines < MAX_LINES;
         line = strtok_r(NULL, "\n", &save), lines++)
        fprintf(fp, "%s%s\n", allowed(line, &sources) ? "" : "# ", line);
    if (fp)
        fclose(fp);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_unbundle(data, size, "script.dladbg");
    if (chdir(dir) != 0) /* sourced names and exports are the scratch folder's */
        abort();
    DIR *dp = opendir(".");
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        if (e->d_name[0] != '.')
            filter_file(".", e->d_name);
    if (dp)
        closedir(dp);
    bool conv = size >= 6 && memcmp(data, "# conv", 6) == 0;
    struct dbg_options opt = {.batch = true, .no_builtin_plugins = true};
    opt.session.mem_budget = FUZZ_MEM_BUDGET;
    opt.session.work_budget = FUZZ_WORK_BUDGET;
    struct dbg *d = dbg_create(&opt, &sink);
    char err[1024];
    if (d && dbg_open(d, conv ? "sample:conv" : "sample:lenet", err, sizeof err))
        (void)dbg_source(d, "script.dladbg", &sink);
    else if (d && getenv("FUZZ_SCRIPT_SHOW"))
        fprintf(stderr, "%s\n", err);
    dbg_destroy(d);
    fuzz_empty(dir);
    return 0;
}
