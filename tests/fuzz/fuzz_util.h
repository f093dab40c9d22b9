/* Shared by the fuzz harnesses (tests/fuzz/fuzz_*.c): a scratch folder per
 * process, inputs that carry several files (a "bundle"), and a bounded run
 * of a session.  Static functions only: each harness is one program, built
 * with libFuzzer (make fuzz) or with the plain replay driver (make check).
 *
 * Bundle format: the first file's bytes, then for every further file a line
 * "#@ NAME" followed by its bytes, up to the next such line.  NAME is kept
 * only when it is a plain file name ([A-Za-z0-9_.-], not starting with '.',
 * at most 40 characters), so a harness never writes outside its folder. */
#ifndef DLADBG_FUZZ_UTIL_H
#define DLADBG_FUZZ_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug/session.h"

/* Resource bounds of one run: small enough for thousands of runs a second,
 * large enough for the project's sample networks and traces. */
#define FUZZ_MEM_BUDGET  (32ull << 20)
#define FUZZ_WORK_BUDGET (20ull << 20)
#define FUZZ_MAX_STEPS   4000

static char fuzz_dir[256];

/* The process's scratch folder, created on first use (removed at exit). */
static void fuzz_cleanup(void);
static inline const char *fuzz_scratch(void)
{
    if (!fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/dladbg-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir)) {
            perror("dladbg fuzz: scratch folder");
            abort();
        }
        atexit(fuzz_cleanup);
        setenv("DLADBG_THREADS", "1", 1); /* one core per fuzzer */
    }
    return fuzz_dir;
}

/* Remove every file in folder (one level; sub-folders are emptied too). */
static inline void fuzz_empty(const char *folder)
{
    DIR *dir = opendir(folder);
    if (!dir)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) >= (int)sizeof path)
            continue;
        if (unlink(path) != 0) {
            fuzz_empty(path);
            rmdir(path);
        }
    }
    closedir(dir);
}

static void fuzz_cleanup(void)
{
    if (fuzz_dir[0]) {
        fuzz_empty(fuzz_dir);
        rmdir(fuzz_dir);
    }
}

static inline void fuzz_write(const char *folder, const char *name, const uint8_t *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return;
    if (len)
        fwrite(data, 1, len, fp);
    fclose(fp);
}

static inline bool fuzz_plain_name(const char *s, size_t n)
{
    if (n == 0 || n > 40 || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

/* Write a bundle into the emptied scratch folder: its first file as
 * main_name, the others under their own names.  Returns the folder. */
static inline const char *fuzz_unbundle(const uint8_t *data, size_t size, const char *main_name)
{
    const char *dir = fuzz_scratch();
    fuzz_empty(dir);
    static const char mark[] = "\n#@ ";
    const size_t mlen = sizeof mark - 1;
    char name[64];
    snprintf(name, sizeof name, "%s", main_name);
    size_t start = 0, i = 0;
    bool keep = true;
    for (;;) {
        const uint8_t *hit = NULL;
        for (i = start; i + mlen <= size; i++)
            if (memcmp(data + i, mark, mlen) == 0) {
                hit = data + i;
                break;
            }
        size_t end = hit ? i + 1 : size; /* the newline ends this file */
        if (keep)
            fuzz_write(dir, name, data + start, end - start);
        if (!hit)
            break;
        size_t n0 = i + mlen, n1 = n0;
        while (n1 < size && data[n1] != '\n')
            n1++;
        snprintf(name, sizeof name, "%.*s", (int)(n1 - n0 < 40 ? n1 - n0 : 40),
                 (const char *)data + n0);
        /* the first file is never replaced by a later one of its name */
        keep = fuzz_plain_name((const char *)data + n0, n1 - n0) && strcmp(name, main_name) != 0;
        start = n1 < size ? n1 + 1 : size;
    }
    return dir;
}

static void fuzz_quiet(void *ctx, enum report_level level, const char *text)
{
    (void)ctx;
    (void)level;
    (void)text;
}

/* Open path as the debugger would and run it for a bounded number of steps. */
static inline void fuzz_run_session(const char *path, const char *config)
{
    struct report rep = {.print = fuzz_quiet};
    char out[512], err[1024];
    snprintf(out, sizeof out, "%s/out", fuzz_scratch());
    struct session_opts opt = {.cfg = config ? dla_config_find(config) : NULL,
                               .outdir = out,
                               .mem_budget = FUZZ_MEM_BUDGET,
                               .work_budget = FUZZ_WORK_BUDGET};
    struct session *s = session_open(path, &opt, &rep, err, sizeof err);
    if (!s)
        return;
    for (int i = 0; i < FUZZ_MAX_STEPS; i++) {
        enum session_stop r = session_step(s, SESSION_EVENT, 1);
        if (r == SESSION_DONE || r == SESSION_HANG)
            break;
    }
    char summary[512];
    session_summary(s, summary, sizeof summary);
    (void)session_exit_status(s);
    session_close(s);
}

#endif
