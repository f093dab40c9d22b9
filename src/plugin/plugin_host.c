/* Loading and validating decoder plugins. */
#define _GNU_SOURCE /* dladdr */
#include "plugin_host.h"
#include "plugin_child.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct plugin_host {
    size_t n, cap;
    struct plugin_info *p;
    plugin_name_taken_fn taken;
    void *taken_ctx;
    uint32_t max_commands; /* 0: no limit */
};

void plugin_host_reserve(struct plugin_host *ph, plugin_name_taken_fn fn, void *ctx)
{
    ph->taken = fn;
    ph->taken_ctx = ctx;
}

void plugin_host_limit_commands(struct plugin_host *ph, uint32_t max)
{
    ph->max_commands = max;
}

/* Commands of the plugins loaded so far. */
static uint64_t commands_loaded(const struct plugin_host *ph)
{
    uint64_t n = 0;
    for (size_t i = 0; i < ph->n; i++)
        n += ph->p[i].cmds ? ph->p[i].cmds->n_commands : 0;
    return n;
}

struct plugin_host *plugin_host_create(void)
{
    return calloc(1, sizeof(struct plugin_host));
}

void plugin_host_destroy(struct plugin_host *ph)
{
    if (!ph)
        return;
    for (size_t i = 0; i < ph->n; i++) {
        dlclose(ph->p[i].handle);
        free(ph->p[i].path);
    }
    free(ph->p);
    free(ph);
}

/* An address that belongs to no loaded object is a wild pointer in the descriptor. */
static bool mapped(const void *p)
{
    Dl_info info;
    return p && dladdr(p, &info) != 0;
}

static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 31)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
              s[i] == '-'))
            return false;
    return true;
}

uint32_t plugin_decoder_kinds(const struct dladbg_decoder *d)
{
    return d->struct_size >= DLADBG_DECODER_HAS_KINDS ? d->event_kinds : 0;
}

/* What is wrong with a descriptor, or NULL when it is usable. */
static const char *check_descriptor(const struct dladbg_decoder *d, char *buf, size_t len)
{
    if (d->abi_version != DLADBG_DECODER_ABI_VERSION) {
        snprintf(buf, len,
                 "decoder ABI version %u, but this dladbg speaks version %d (rebuild it against "
                 "dladbg/decoder.h)",
                 d->abi_version, DLADBG_DECODER_ABI_VERSION);
        return buf;
    }
    if (d->struct_size < offsetof(struct dladbg_decoder, close) + sizeof d->close)
        return "the descriptor is smaller than version 1 defines (struct_size)";
    if (!mapped(d->name) || !valid_name(d->name))
        return "the decoder name is missing or not [a-z0-9_-]{1,31}";
    if (d->description && !mapped(d->description))
        return "the description points nowhere";
    if (d->n_columns < 1 || d->n_columns > DLADBG_DECODER_MAX_COLUMNS) {
        snprintf(buf, len, "%u columns (1 to %d expected)", d->n_columns,
                 DLADBG_DECODER_MAX_COLUMNS);
        return buf;
    }
    if (!mapped(d->columns))
        return "the column list points nowhere";
    for (uint32_t i = 0; i < d->n_columns; i++)
        if (!mapped(d->columns[i]) || !d->columns[i][0]) {
            snprintf(buf, len, "column %u has no name", i + 1);
            return buf;
        }
    if (!mapped((const void *)(uintptr_t)d->open) || !mapped((const void *)(uintptr_t)d->event) ||
        !mapped((const void *)(uintptr_t)d->close))
        return "open, event or close is missing";
    return NULL;
}

const struct dladbg_command *plugin_command_at(const struct plugin_info *pi, uint32_t i)
{
    if (!pi->cmds || i >= pi->cmds->n_commands)
        return NULL;
    return (const struct dladbg_command *)(const void *)((const char *)pi->cmds->commands +
                                                         (size_t)i * pi->cmds->command_size);
}

const struct dladbg_command *plugin_host_command(const struct plugin_host *ph, const char *name,
                                                 const struct plugin_info **from)
{
    for (size_t i = 0; i < ph->n; i++)
        for (uint32_t k = 0; ph->p[i].cmds && k < ph->p[i].cmds->n_commands; k++) {
            const struct dladbg_command *c = plugin_command_at(&ph->p[i], k);
            if (!strcmp(c->name, name)) {
                if (from)
                    *from = &ph->p[i];
                return c;
            }
        }
    return NULL;
}

/* What is wrong with one command of a set, or NULL. */
static const char *check_command(const struct plugin_host *ph, const struct dladbg_command *c,
                                 uint32_t i, char *buf, size_t len)
{
    if (!mapped(c->name) || !valid_name(c->name)) {
        snprintf(buf, len, "command %u: the name is missing or not [a-z0-9_-]{1,31}", i + 1);
        return buf;
    }
    if (!mapped(c->usage) || !mapped(c->help) || !mapped((const void *)(uintptr_t)c->exec) ||
        (c->complete && !mapped((const void *)(uintptr_t)c->complete))) {
        snprintf(buf, len, "command \"%.31s\": usage, help or exec is missing", c->name);
        return buf;
    }
    if ((ph->taken && ph->taken(ph->taken_ctx, c->name)) ||
        plugin_host_command(ph, c->name, NULL)) {
        snprintf(buf, len, "command \"%.31s\" is already taken", c->name);
        return buf;
    }
    return NULL;
}

/* What is wrong with the optional command set, or NULL when it is usable. */
static const char *check_commands(const struct plugin_host *ph, const struct dladbg_command_set *cs,
                                  char *buf, size_t len)
{
    if (cs->abi_version != DLADBG_COMMANDS_ABI_VERSION) {
        snprintf(buf, len,
                 "command set ABI version %u, but this dladbg speaks version %d (rebuild it "
                 "against dladbg/decoder.h)",
                 cs->abi_version, DLADBG_COMMANDS_ABI_VERSION);
        return buf;
    }
    if (cs->struct_size < sizeof *cs || cs->command_size < sizeof(struct dladbg_command))
        return "the command set is smaller than version 1 defines (struct_size, command_size)";
    if (cs->n_commands < 1 || cs->n_commands > DLADBG_COMMANDS_MAX) {
        snprintf(buf, len, "%u commands (1 to %d expected)", cs->n_commands, DLADBG_COMMANDS_MAX);
        return buf;
    }
    if (!mapped(cs->commands))
        return "the command list points nowhere";
    if (ph->max_commands && commands_loaded(ph) + cs->n_commands > ph->max_commands) {
        snprintf(buf, len, "%u more command%s would pass the %u plugin commands dladbg holds",
                 cs->n_commands, cs->n_commands == 1 ? "" : "s", ph->max_commands);
        return buf;
    }
    struct plugin_info probe = {.cmds = cs};
    for (uint32_t i = 0; i < cs->n_commands; i++) {
        const struct dladbg_command *c = plugin_command_at(&probe, i);
        const char *problem = check_command(ph, c, i, buf, len);
        for (uint32_t k = 0; !problem && k < i; k++)
            if (!strcmp(plugin_command_at(&probe, k)->name, c->name))
                problem = "two commands have the same name";
        if (problem)
            return problem;
    }
    return NULL;
}

const struct plugin_info *plugin_host_find(const struct plugin_host *ph, const char *name)
{
    for (size_t i = 0; i < ph->n; i++)
        if (!strcmp(ph->p[i].dec->name, name))
            return &ph->p[i];
    return NULL;
}

bool plugin_host_load(struct plugin_host *ph, const char *path, char *err, size_t errlen)
{
    /* a constructor runs at dlopen, before any check: tried apart first */
    char why_not[512];
    if (!plugin_child_probe_load(path, why_not, sizeof why_not)) {
        snprintf(err, errlen, "%s: %s", path, why_not);
        return false;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, errlen, "%s: refused: cannot load it: %s", path, e ? e : "?");
        return false;
    }
    dlerror();
    const struct dladbg_decoder *dec = dlsym(h, DLADBG_DECODER_SYMBOL);
    char why[256];
    const char *problem = NULL;
    if (!dec)
        problem = "not a dladbg decoder: it has no symbol \"" DLADBG_DECODER_SYMBOL "\"";
    else
        problem = check_descriptor(dec, why, sizeof why);
    const struct plugin_info *dup = problem ? NULL : plugin_host_find(ph, dec->name);
    if (!problem && dup) {
        snprintf(why, sizeof why, "a decoder named \"%s\" is already loaded from %.180s", dec->name,
                 dup->path);
        problem = why;
    }
    const struct dladbg_command_set *cmds = problem ? NULL : dlsym(h, DLADBG_COMMANDS_SYMBOL);
    if (!problem && cmds)
        problem = check_commands(ph, cmds, why, sizeof why);
    char *own_path = problem ? NULL : strdup(path);
    if (!problem && !own_path)
        problem = "out of memory";
    if (!problem && ph->n == ph->cap) {
        size_t cap = ph->cap ? ph->cap * 2 : 16;
        struct plugin_info *p = realloc(ph->p, cap * sizeof *p);
        if (p) {
            ph->p = p;
            ph->cap = cap;
        } else {
            problem = "out of memory";
        }
    }
    if (problem) {
        snprintf(err, errlen, "%s: refused: %s", path, problem);
        free(own_path);
        dlclose(h);
        return false;
    }
    struct plugin_info *pi = &ph->p[ph->n++];
    pi->dec = dec;
    pi->cmds = cmds;
    pi->handle = h;
    pi->path = own_path;
    return true;
}

static bool ends_with_so(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && !strcmp(name + n - 3, ".so");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t plugin_host_scan(struct plugin_host *ph, const char *dir, plugin_refusal_fn fn, void *ctx)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    char *names[256];
    size_t n = 0;
    for (struct dirent *de; (de = readdir(dp)) && n < 256;)
        if (ends_with_so(de->d_name))
            names[n++] = strdup(de->d_name);
    closedir(dp);
    qsort(names, n, sizeof *names, cmp_str); /* a stable order whatever the file system does */
    size_t loaded = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096], err[600];
        if (!names[i])
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        free(names[i]);
        if (plugin_host_load(ph, path, err, sizeof err))
            loaded++;
        else if (fn && !strstr(err, "is already loaded from"))
            fn(ctx, err);
    }
    return loaded;
}

size_t plugin_host_scan_list(struct plugin_host *ph, const char *list, plugin_refusal_fn fn,
                             void *ctx)
{
    size_t loaded = 0;
    while (list && *list) {
        const char *colon = strchr(list, ':');
        size_t len = colon ? (size_t)(colon - list) : strlen(list);
        char dir[4096];
        if (len && len < sizeof dir) {
            memcpy(dir, list, len);
            dir[len] = 0;
            loaded += plugin_host_scan(ph, dir, fn, ctx);
        }
        list = colon ? colon + 1 : NULL;
    }
    return loaded;
}

size_t plugin_host_scan_default(struct plugin_host *ph, const char *extra, plugin_refusal_fn fn,
                                void *ctx)
{
    size_t loaded = plugin_host_scan_list(ph, getenv("DLADBG_PLUGIN_PATH"), fn, ctx);
    loaded += plugin_host_scan_list(ph, extra, fn, ctx);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 32);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            /* a build tree: ./dladbg with build/plugins; an installed tree:
             * PREFIX/bin/dladbg with PREFIX/lib/dladbg/plugins, whatever PREFIX
             * (and DESTDIR) the install used */
            strcpy(slash, "/plugins");
            loaded += plugin_host_scan(ph, exe, fn, ctx);
            strcpy(slash, "/build/plugins");
            loaded += plugin_host_scan(ph, exe, fn, ctx);
            strcpy(slash, "/../lib/dladbg/plugins");
            loaded += plugin_host_scan(ph, exe, fn, ctx);
        }
    }
    return loaded;
}

size_t plugin_host_count(const struct plugin_host *ph)
{
    return ph->n;
}

const struct plugin_info *plugin_host_get(const struct plugin_host *ph, size_t i)
{
    return i < ph->n ? &ph->p[i] : NULL;
}
