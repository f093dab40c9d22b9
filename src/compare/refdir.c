/* Reading a reference folder (refdir.h). */
#include "refdir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/suggest.h"
#include "util/textfile.h"

#define MAX_BLOBS 100000 /* order.txt lines; a network has hundreds */

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---------------------------------------------------------------- order.txt */

struct order_ctx {
    struct ref_dir *r;
    size_t cap;
    const char *path;
};

/* A name that stays inside the folder once ".npy" is appended: Caffe names
 * may hold '/' ("inception_3a/1x1"), never a way out. */
static bool safe_name(const char *name)
{
    if (name[0] == '/' || !strcmp(name, "..") || !strncmp(name, "../", 3) || strstr(name, "/../"))
        return false;
    size_t n = strlen(name);
    return !(n >= 3 && !strcmp(name + n - 3, "/.."));
}

static int order_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct order_ctx *o = ctx;
    struct ref_dir *r = o->r;
    char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || *p == '\n' || *p == '\r' || *p == '#')
        return 0;
    size_t len = strcspn(p, " \t\r\n");
    for (size_t i = 0; i < len; i++)
        if (!isprint((unsigned char)p[i])) {
            snprintf(err, errlen,
                     "%s:%u: expected a blob name (printable characters), found byte 0x%02x",
                     o->path, lineno, (unsigned char)p[i]);
            return -1;
        }
    if (len >= REF_NAME_MAX) {
        snprintf(err, errlen, "%s:%u: expected a blob name of at most %d characters, found %zu",
                 o->path, lineno, REF_NAME_MAX - 1, len);
        return -1;
    }
    char name[REF_NAME_MAX];
    memcpy(name, p, len);
    name[len] = 0;
    if (!safe_name(name)) {
        snprintf(err, errlen, "%s:%u: expected a blob name inside the folder, found \"%s\"",
                 o->path, lineno, name);
        return -1;
    }
    long dup = ref_dir_find(r, name);
    if (dup >= 0) {
        snprintf(err, errlen, "%s:%u: blob \"%s\" is listed already (line %u); expected each once",
                 o->path, lineno, name, r->blobs[dup].line);
        return -1;
    }
    if (r->n_blobs == MAX_BLOBS) {
        snprintf(err, errlen, "%s:%u: expected at most %d blobs", o->path, lineno, MAX_BLOBS);
        return -1;
    }
    if (r->n_blobs == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 32;
        struct ref_blob *n = realloc(r->blobs, cap * sizeof *n);
        if (!n) {
            snprintf(err, errlen, "%s: out of memory", o->path);
            return -1;
        }
        r->blobs = n;
        o->cap = cap;
    }
    struct ref_blob *b = &r->blobs[r->n_blobs++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->line = lineno;
    return 0;
}

#define SUBFOLDERS_SHOWN 3

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The folders inside dir that hold an order.txt, sorted, at most
 * SUBFOLDERS_SHOWN of them named: a per-image tree (reference/125_5/) given
 * by its parent is the usual slip (networks/REFERENCE.md's layout).  Returns
 * how many there are. */
static unsigned reference_subfolders(const char *dir, char names[SUBFOLDERS_SHOWN][NAME_MAX + 1])
{
    DIR *dp = opendir(dir);
    unsigned n = 0;
    for (struct dirent *e; dp && (e = readdir(dp));) {
        char order[4096 + NAME_MAX + 16];
        if (e->d_name[0] == '.')
            continue;
        snprintf(order, sizeof order, "%s/%s/order.txt", dir, e->d_name);
        if (!file_exists(order))
            continue;
        if (n < SUBFOLDERS_SHOWN)
            snprintf(names[n], NAME_MAX + 1, "%s", e->d_name);
        n++;
    }
    if (dp)
        closedir(dp);
    qsort(names, n < SUBFOLDERS_SHOWN ? n : SUBFOLDERS_SHOWN, sizeof names[0], by_name);
    return n;
}

static void explain_missing_order(const char *dir, const char *path, char *err, size_t errlen)
{
    char names[SUBFOLDERS_SHOWN][NAME_MAX + 1];
    unsigned n = reference_subfolders(dir, names);
    if (n == 0) {
        snprintf(err, errlen,
                 "%s: no such file; expected the blob names in network order, one a line", path);
        return;
    }
    char list[3 * (NAME_MAX + 3) + 8] = "";
    for (unsigned i = 0; i < n && i < SUBFOLDERS_SHOWN; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    if (n > SUBFOLDERS_SHOWN)
        snprintf(list + strlen(list), sizeof list - strlen(list), ", ...");
    snprintf(err, errlen,
             "%s: no such file; %s holds %u reference folder%s of its own (%s): %s %s/%s", path,
             dir, n, n == 1 ? "" : "s", list,
             n == 1 ? "give that one," : "give the image's one, e.g.", dir, names[0]);
}

static bool read_order(struct ref_dir *r, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/order.txt", r->path);
    struct order_ctx o = {.r = r, .path = path};
    if (!file_exists(path)) {
        explain_missing_order(r->path, path, err, errlen);
        return false;
    }
    if (textfile_each_line(path, order_line, &o, err, errlen) != 0)
        return false;
    if (!r->n_blobs) {
        snprintf(err, errlen, "%s: no blob names; expected the blobs in network order, one a line",
                 path);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- blobs */

bool ref_shape_nchw(const struct npy_array *a, uint32_t nchw[4], char *err, size_t errlen)
{
    uint64_t s[4] = {1, 1, 1, 1};
    unsigned nd = a->ndim;
    const uint64_t *sh = a->shape;
    while (nd > 4 && sh[0] == 1) { /* leading 1s carry nothing */
        sh++;
        nd--;
    }
    switch (nd) {
    case 0:
        break;
    case 1: /* (C) */
        s[1] = sh[0];
        break;
    case 2: /* (N, C) */
        s[0] = sh[0];
        s[1] = sh[1];
        break;
    case 3: /* (C, H, W) */
        s[1] = sh[0];
        s[2] = sh[1];
        s[3] = sh[2];
        break;
    case 4:
        memcpy(s, sh, sizeof s);
        break;
    default:
        snprintf(err, errlen, "expected at most 4 dimensions (N,C,H,W), found %u", a->ndim);
        return false;
    }
    for (int i = 0; i < 4; i++) {
        if (s[i] == 0 || s[i] > UINT32_MAX) {
            snprintf(err, errlen, "expected dimensions of 1 to %u, found %llu", UINT32_MAX,
                     (unsigned long long)s[i]);
            return false;
        }
        nchw[i] = (uint32_t)s[i];
    }
    return true;
}

static bool is_integer_dtype(enum npy_dtype t)
{
    return t == NPY_I8 || t == NPY_U8 || t == NPY_I16 || t == NPY_U16 || t == NPY_I32;
}

static bool read_blobs(struct ref_dir *r, char *err, size_t errlen)
{
    uint64_t used = 0;
    for (size_t i = 0; i < r->n_blobs; i++) {
        struct ref_blob *b = &r->blobs[i];
        snprintf(b->file, sizeof b->file, "%s/%s.npy", r->path, b->name);
        if (!file_exists(b->file)) {
            snprintf(err, errlen,
                     "%s: no such file; expected the values of blob \"%s\" (order.txt line %u)",
                     b->file, b->name, b->line);
            return false;
        }
        char why[512];
        if (!npy_read(b->file, REF_MAX_BYTES - used, &b->a, why, sizeof why)) {
            snprintf(err, errlen, "%s (blob of order.txt line %u)", why, b->line);
            return false;
        }
        used += b->a.count * npy_dtype_size(b->a.dtype);
        uint32_t s[4];
        if (!ref_shape_nchw(&b->a, s, why, sizeof why)) {
            snprintf(err, errlen, "%s: %s", b->file, why);
            return false;
        }
        b->n = s[0];
        b->c = s[1];
        b->h = s[2];
        b->w = s[3];
        b->raw = is_integer_dtype(b->a.dtype);
    }
    return true;
}

/* ---------------------------------------------------------------- map.txt */

struct map_ctx {
    struct ref_dir *r;
    size_t cap;
};

static int map_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct map_ctx *m = ctx;
    struct ref_dir *r = m->r;
    char *words[3] = {NULL, NULL, NULL};
    int nw = 0;
    for (char *save = NULL, *w = strtok_r(line, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (nw == 0 && w[0] == '#')
            return 0;
        if (nw < 3)
            words[nw] = w;
        nw++;
    }
    if (nw == 0)
        return 0;
    char *end;
    errno = 0;
    unsigned long layer = strtoul(words[0], &end, 10);
    if (nw != 2 || *end || !isdigit((unsigned char)words[0][0]) || errno || layer > INT32_MAX) {
        snprintf(err, errlen,
                 "%s:%u: expected \"LAYER BLOB\" (a hardware layer index, as \"info layers\" "
                 "numbers them, and a blob of order.txt)",
                 r->map_path, lineno);
        return -1;
    }
    long b = ref_dir_find(r, words[1]);
    if (b < 0) {
        struct suggest s;
        suggest_init(&s, words[1]);
        for (size_t i = 0; i < r->n_blobs; i++)
            suggest_consider(&s, r->blobs[i].name);
        snprintf(err, errlen, "%s:%u: no blob \"%s\" in order.txt%s%s%s", r->map_path, lineno,
                 words[1], suggest_best(&s) ? " (did you mean \"" : "",
                 suggest_best(&s) ? suggest_best(&s) : "", suggest_best(&s) ? "\"?)" : "");
        return -1;
    }
    for (size_t i = 0; i < r->n_map; i++)
        if (r->map[i].layer == layer || r->map[i].blob == (size_t)b) {
            snprintf(err, errlen, "%s:%u: %s %s is mapped already (line %u); expected each once",
                     r->map_path, lineno, r->map[i].layer == layer ? "layer" : "blob",
                     r->map[i].layer == layer ? words[0] : words[1], r->map[i].line);
            return -1;
        }
    if (r->n_map == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        struct ref_map_line *n = realloc(r->map, cap * sizeof *n);
        if (!n) {
            snprintf(err, errlen, "%s: out of memory", r->map_path);
            return -1;
        }
        r->map = n;
        m->cap = cap;
    }
    r->map[r->n_map++] =
        (struct ref_map_line){.layer = (uint32_t)layer, .blob = (size_t)b, .line = lineno};
    return 0;
}

static bool read_map(struct ref_dir *r, char *err, size_t errlen)
{
    snprintf(r->map_path, sizeof r->map_path, "%s/map.txt", r->path);
    if (!file_exists(r->map_path)) {
        r->map_path[0] = 0;
        return true;
    }
    struct map_ctx m = {.r = r};
    r->map = calloc(1, sizeof *r->map); /* present, even when empty: no automatic mapping */
    if (!r->map) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    m.cap = 1;
    return textfile_each_line(r->map_path, map_line, &m, err, errlen) == 0;
}

/* ---------------------------------------------------------------- calibration */

static bool read_calib(struct ref_dir *r, const char *calibtable, char *err, size_t errlen)
{
    if (calibtable)
        snprintf(r->calib_path, sizeof r->calib_path, "%s", calibtable);
    else
        snprintf(r->calib_path, sizeof r->calib_path, "%s/calib.json", r->path);
    if (!calibtable && !file_exists(r->calib_path)) {
        r->calib_path[0] = 0;
        return true;
    }
    return calib_read(r->calib_path, &r->calib, err, errlen);
}

/* ---------------------------------------------------------------- the folder */

bool ref_dir_load(const char *dir, const char *calibtable, struct ref_dir *r, char *err,
                  size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", dir);
    for (size_t n = strlen(r->path); n > 1 && r->path[n - 1] == '/';)
        r->path[--n] = 0;
    struct stat st;
    if (stat(r->path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen,
                 "%s: %s; expected a reference folder (order.txt and one .npy per blob)", r->path,
                 stat(r->path, &st) != 0 ? strerror(errno) : "not a folder");
        return false;
    }
    bool ok = read_order(r, err, errlen) && read_map(r, err, errlen) &&
              read_calib(r, calibtable, err, errlen) && read_blobs(r, err, errlen);
    if (!ok)
        ref_dir_free(r);
    return ok;
}

void ref_dir_free(struct ref_dir *r)
{
    for (size_t i = 0; i < r->n_blobs; i++)
        npy_free(&r->blobs[i].a);
    free(r->blobs);
    free(r->map);
    calib_free(&r->calib);
    r->blobs = NULL;
    r->map = NULL;
    r->n_blobs = r->n_map = 0;
}

long ref_dir_find(const struct ref_dir *r, const char *name)
{
    for (size_t i = 0; i < r->n_blobs; i++)
        if (!strcmp(r->blobs[i].name, name))
            return (long)i;
    return -1;
}

double ref_dir_scale(const struct ref_dir *r, const char *name)
{
    const struct calib_entry *e = calib_find(&r->calib, name);
    return e ? e->scale : 0;
}
