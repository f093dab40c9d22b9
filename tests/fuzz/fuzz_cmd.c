/* Fuzz harness: the command language.  Each input is up to 16 command lines
 * run in one debugger session on the built-in LeNet sample (tokenizer,
 * lookup, argument parsing, every command's checks, the simulation they
 * drive), and every line is also evaluated as an expression.
 *
 * Not run: plugins (dlopen of an arbitrary path), source and file (a FIFO or
 * /dev/stdin would block; reading files is fuzzed by the other harnesses),
 * shell and !CMD (it would run whatever the fuzzer writes),
 * and exports to paths with '/' or '~' (they would write outside the
 * scratch folder, the process's working directory). */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd_priv.h"
#include "cmd/expr.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 16

static void discard(void *ctx, enum dbg_out_kind kind, const char *text)
{
    (void)ctx;
    (void)kind;
    (void)text;
}

static const struct dbg_sink sink = {discard, NULL};

/* The command word as the tokenizer sees it: blanks skipped, quotes
 * removed, ended by a blank outside quotes or by a "/4w" suffix. */
static void first_word(const char *line, char *word, size_t len)
{
    size_t n = 0;
    bool quoted = false;
    while (isspace((unsigned char)*line))
        line++;
    for (; *line && n + 1 < len; line++) {
        if (*line == '"')
            quoted = !quoted;
        else if ((!quoted && isspace((unsigned char)*line)) || *line == '/')
            break;
        else
            word[n++] = *line;
    }
    word[n] = 0;
}

static bool allowed(const char *line)
{
    char word[256];
    const char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '!') /* "!CMD" is "shell CMD" */
        return false;
    first_word(line, word, sizeof word);
    bool amb;
    const struct cmd_entry *e = word[0] ? cmd_lookup(NULL, word, &amb) : NULL;
    if (!e)
        return true;
    if (!strcmp(e->name, "plugins") || !strcmp(e->name, "source") || !strcmp(e->name, "file") ||
        !strcmp(e->name, "shell"))
        return false;
    return strcmp(e->name, "export") != 0 || (!strchr(line, '/') && !strchr(line, '~'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool in_scratch;
    if (!in_scratch) { /* exports land in the scratch folder */
        if (chdir(fuzz_scratch()) != 0)
            abort();
        in_scratch = true;
    }
    struct dbg_options opt = {.batch = true, .no_builtin_plugins = true};
    opt.session.mem_budget = FUZZ_MEM_BUDGET;
    opt.session.work_budget = FUZZ_WORK_BUDGET;
    struct dbg *d = dbg_create(&opt, &sink);
    char err[1024];
    if (!d)
        return 0;
    if (!dbg_open(d, "sample:lenet", err, sizeof err)) {
        dbg_destroy(d);
        return 0;
    }
    char *text = malloc(size + 1);
    if (!text) {
        dbg_destroy(d);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = 0;
    char *save = NULL;
    int n = 0;
    for (char *line = strtok_r(text, "\n", &save); line && n < MAX_LINES && !d->quit;
         line = strtok_r(NULL, "\n", &save), n++) {
        struct expr_env env = {.dla = session_dla(d->session), .group = -1};
        int64_t v;
        (void)expr_eval(line, &env, &v, err, sizeof err);
        if (allowed(line))
            (void)dbg_exec(d, line, &sink);
    }
    free(text);
    dbg_destroy(d);
    fuzz_empty(fuzz_scratch());
    return 0;
}
