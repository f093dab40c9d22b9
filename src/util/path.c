/* File-name helpers shared by the core and the UI. */
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A trace folder is named by its last component whether or not it is
 * written with a trailing slash: trace names and the status line agree. */
void path_last_component(const char *path, char *buf, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = 0;
    const char *slash = strrchr(tmp, '/');
    snprintf(buf, len, "%s", slash && slash[1] ? slash + 1 : tmp);
}

static bool made_or_there(const char *dir, mode_t mode)
{
    return mkdir(dir, mode) == 0 || errno == EEXIST;
}

int path_make_dirs(const char *path, mode_t mode)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* one level at a time: mkdir makes only the last component */
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        bool ok = made_or_there(tmp, mode);
        *p = '/';
        if (!ok)
            return -1;
    }
    return made_or_there(tmp, mode) ? 0 : -1;
}

bool path_history_file(char *buf, size_t len)
{
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char dir[4000];
    buf[0] = 0;
    if (state && state[0] == '/') /* relative paths are invalid per the XDG spec */
        snprintf(dir, sizeof dir, "%s/dladbg", state);
    else if (home && home[0])
        snprintf(dir, sizeof dir, "%s/.local/state/dladbg", home);
    else
        return false;
    if (path_make_dirs(dir, 0700) != 0)
        return false;
    snprintf(buf, len, "%s/history", dir);
    return true;
}

void path_complete(const char *word, bool dirs_only, void (*fn)(void *ctx, const char *cand),
                   void *ctx)
{
    const char *slash = strrchr(word, '/');
    size_t dir_len = slash ? (size_t)(slash - word) + 1 : 0; /* "share/" of "share/ex" */
    const char *base = word + dir_len;
    char dir[4096];
    const char *home = getenv("HOME");
    if (!dir_len)
        snprintf(dir, sizeof dir, ".");
    else if (!strncmp(word, "~/", 2) && home)
        snprintf(dir, sizeof dir, "%s/%.*s", home, (int)dir_len - 2, word + 2);
    else
        snprintf(dir, sizeof dir, "%.*s", (int)dir_len, word);
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    size_t blen = strlen(base);
    for (struct dirent *e; (e = readdir(dp));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (e->d_name[0] == '.' && base[0] != '.')
            continue;
        if (strncmp(e->d_name, base, blen))
            continue;
        char full[4096 + 256];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        struct stat sb;
        bool is_dir = stat(full, &sb) == 0 && S_ISDIR(sb.st_mode);
        if (dirs_only && !is_dir)
            continue;
        char cand[4096];
        snprintf(cand, sizeof cand, "%.*s%.255s%s", (int)dir_len, word, e->d_name, is_dir ? "/" : "");
        fn(ctx, cand);
    }
    closedir(dp);
}
