/* Resolving and explaining the path given to "file" or on the command line. */
#include "open_path.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/trace.h"

const char open_path_kinds[] = "a loadable (.nvdla), a register trace folder (holding input.txn "
                               "or one .cfg), an input.txn, a .cfg trace test, or sample:NAME";

#define NAMES_SHOWN 4 /* names listed in a message; the rest are counted */

struct folder_scan {
    int loadables, cfgs, others;
    char loadable[1024]; /* the last .nvdla seen */
    char loadable_names[256], cfg_names[256], other_names[256];
};

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Appends name to a ", "-separated list of at most NAMES_SHOWN names. */
static void list_name(char *list, size_t len, int count_before, const char *name)
{
    size_t used = strlen(list);
    if (count_before > NAMES_SHOWN || used + 1 >= len)
        return;
    snprintf(list + used, len - used, "%s%s", count_before ? ", " : "",
             count_before == NAMES_SHOWN ? "..." : name);
}

static bool scan_folder(const char *path, struct folder_scan *s)
{
    memset(s, 0, sizeof *s);
    DIR *dir = opendir(path);
    if (!dir)
        return false;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.')
            continue;
        if (has_suffix(e->d_name, ".nvdla")) {
            list_name(s->loadable_names, sizeof s->loadable_names, s->loadables++, e->d_name);
            snprintf(s->loadable, sizeof s->loadable, "%s/%s", path, e->d_name);
        } else if (has_suffix(e->d_name, ".cfg")) {
            list_name(s->cfg_names, sizeof s->cfg_names, s->cfgs++, e->d_name);
        } else {
            list_name(s->other_names, sizeof s->other_names, s->others++, e->d_name);
        }
    }
    closedir(dir);
    return true;
}

static void explain_folder(const char *path, const struct folder_scan *s, char *err, size_t errlen)
{
    if (s->loadables > 1) {
        snprintf(err, errlen, "%s: no input.txn, and %d loadables (%s): name the one to open", path,
                 s->loadables, s->loadable_names);
    } else if (s->cfgs > 1) {
        snprintf(err, errlen, "%s: no input.txn, and %d .cfg trace tests (%s): name the one to open",
                 path, s->cfgs, s->cfg_names);
    } else if (s->others) {
        snprintf(err, errlen, "%s: nothing dladbg opens (%s); found %d other entr%s (%s)", path,
                 open_path_kinds, s->others, s->others == 1 ? "y" : "ies", s->other_names);
    } else {
        snprintf(err, errlen, "%s: an empty folder; dladbg opens %s", path, open_path_kinds);
    }
}

/* A FIFO, socket or device: reading one as a loadable would wait forever
 * (a FIFO without a writer) or never end (/dev/zero). */
static bool special_file(const struct stat *sb)
{
    return !S_ISREG(sb->st_mode) && !S_ISDIR(sb->st_mode);
}

static const char *special_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "FIFO";
    return S_ISSOCK(mode) ? "socket" : "device";
}

bool open_path_resolve(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
    char file[4096];
    struct stat sb;
    snprintf(out, outlen, "%s", path);
    if (stat(path, &sb) == 0 && special_file(&sb)) {
        snprintf(err, errlen, "%s: a %s, not a kind dladbg opens (%s)", path,
                 special_kind(sb.st_mode), open_path_kinds);
        return false;
    }
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) || trace_detect(path, file, sizeof file))
        return true;
    struct folder_scan s;
    if (!scan_folder(path, &s)) {
        snprintf(err, errlen, "%s: cannot read the folder", path);
        return false;
    }
    if (s.loadables == 1 && s.cfgs == 0) {
        snprintf(out, outlen, "%s", s.loadable);
        return true;
    }
    explain_folder(path, &s, err, errlen);
    return false;
}

/* "a text file (34777 bytes)", "a binary file (12 bytes)", "an empty file". */
static void describe_file(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(buf, len, "a file that cannot be read");
        return;
    }
    unsigned char head[512];
    size_t n = fread(head, 1, sizeof head, fp);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fclose(fp);
    if (n == 0) {
        snprintf(buf, len, "an empty file");
        return;
    }
    bool text = true;
    for (size_t i = 0; i < n && text; i++)
        text = isprint(head[i]) || isspace(head[i]) || head[i] >= 0x80;
    snprintf(buf, len, "%s file (%ld bytes)", text ? "a text" : "a binary", size);
}

void open_path_explain(const char *path, char *err, size_t errlen)
{
    if (has_suffix(path, ".nvdla") || !strncmp(path, "sample:", 7))
        return; /* meant as a loadable: the reader's message says what is wrong */
    struct stat sb;
    if (stat(path, &sb) != 0)
        return; /* "cannot open: No such file or directory" says it */
    char what[128], reader[1024];
    describe_file(path, what, sizeof what);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bn = strlen(base);
    /* the reader names the file itself: once is enough */
    snprintf(reader, sizeof reader, "%s",
             !strncmp(err, base, bn) && !strncmp(err + bn, ": ", 2) ? err + bn + 2 : err);
    snprintf(err, errlen, "%s: %s, not a kind dladbg opens (%s); read as a loadable: %s", path,
             what, open_path_kinds, reader);
}
