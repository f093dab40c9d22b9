/* Probing, validating and mapping decoder plugins (plugin_host.h). */
#define _GNU_SOURCE /* dladdr */
#include "plugin_host.h"
#include "plugin_child.h"
#include "util/grow.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
        n += ph->p[i].facts->n_commands;
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
        if (ph->p[i].handle)
            dlclose(ph->p[i].handle);
        free((void *)ph->p[i].facts);
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
        return NULL; /* not mapped yet, or no such command */
    return (const struct dladbg_command *)(const void *)((const char *)pi->cmds->commands +
                                                         (size_t)i * pi->cmds->command_size);
}

const struct plugin_info *plugin_host_command(const struct plugin_host *ph, const char *name,
                                              uint32_t *index)
{
    for (size_t i = 0; i < ph->n; i++) {
        const struct plugin_facts *f = ph->p[i].facts;
        for (uint32_t k = 0; k < f->n_commands; k++)
            if (!strcmp(f->commands[k].name, name)) {
                if (index)
                    *index = k;
                return &ph->p[i];
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
        if (!strcmp(ph->p[i].facts->name, name))
            return &ph->p[i];
    return NULL;
}

/* ---------------------------------------------------------------- the probe
 * In the probe's child: the plugin loaded there, checked against the
 * plugins probed before (the child has a copy of the host), and what the
 * parent keeps of it sent back one fact at a time. */
enum fact {
    FACT_REFUSED, /* why it is refused: nothing else follows */
    FACT_NAME,
    FACT_DESCRIPTION,
    FACT_ABI, /* decimal */
    FACT_COLUMN,
    FACT_COMMAND, /* a command's name; its usage, help and completes follow */
    FACT_USAGE,
    FACT_HELP,
    FACT_COMPLETES, /* the command has a complete() callback */
};

/* What is wrong with the plugin dlopen gave handle for (NULL: dlopen
 * failed), or NULL with its descriptor and command set. */
static const char *examine(const struct plugin_host *ph, void *handle,
                           const struct dladbg_decoder **dec,
                           const struct dladbg_command_set **cmds, char *why, size_t len)
{
    if (!handle) {
        const char *e = dlerror();
        snprintf(why, len, "cannot load it: %s", e ? e : "?");
        return why;
    }
    dlerror();
    *dec = dlsym(handle, DLADBG_DECODER_SYMBOL);
    if (!*dec)
        return "not a dladbg decoder: it has no symbol \"" DLADBG_DECODER_SYMBOL "\"";
    const char *problem = check_descriptor(*dec, why, len);
    if (problem)
        return problem;
    const struct plugin_info *dup = plugin_host_find(ph, (*dec)->name);
    if (dup) {
        snprintf(why, len, "a decoder named \"%s\" is already loaded from %.180s", (*dec)->name,
                 dup->path);
        return why;
    }
    *cmds = dlsym(handle, DLADBG_COMMANDS_SYMBOL);
    return *cmds ? check_commands(ph, *cmds, why, len) : NULL;
}

static void inspect_in_child(void *ctx, void *handle)
{
    const struct plugin_host *ph = ctx;
    const struct dladbg_decoder *dec = NULL;
    const struct dladbg_command_set *cmds = NULL;
    char why[256];
    const char *problem = examine(ph, handle, &dec, &cmds, why, sizeof why);
    if (problem) {
        plugin_child_say(FACT_REFUSED, problem);
        return;
    }
    char abi[16];
    snprintf(abi, sizeof abi, "%u", dec->abi_version);
    plugin_child_say(FACT_NAME, dec->name);
    if (dec->description)
        plugin_child_say(FACT_DESCRIPTION, dec->description);
    plugin_child_say(FACT_ABI, abi);
    for (uint32_t i = 0; i < dec->n_columns; i++)
        plugin_child_say(FACT_COLUMN, dec->columns[i]);
    struct plugin_info probed = {.cmds = cmds};
    for (uint32_t i = 0; cmds && i < cmds->n_commands; i++) {
        const struct dladbg_command *c = plugin_command_at(&probed, i);
        plugin_child_say(FACT_COMMAND, c->name);
        plugin_child_say(FACT_USAGE, c->usage);
        plugin_child_say(FACT_HELP, c->help);
        if (c->complete)
            plugin_child_say(FACT_COMPLETES, "");
    }
}

/* In the parent: the facts as they come. */
struct heard_facts {
    size_t n, cap;
    struct heard_fact {
        enum fact kind;
        char *text;
    } *said;
    bool out_of_memory;
};

static void hear_fact(void *ctx, int kind, const char *text)
{
    struct heard_facts *h = ctx;
    struct heard_fact *said = grow_for_one(h->said, h->n, &h->cap, 32, sizeof *said);
    if (said)
        h->said = said;
    char *copy = said ? strdup(text) : NULL;
    if (!copy) {
        h->out_of_memory = true;
        return;
    }
    h->said[h->n++] = (struct heard_fact){(enum fact)kind, copy};
}

static void heard_facts_free(struct heard_facts *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->said[i].text);
    free(h->said);
}

/* The facts heard, in one allocation: the struct, the column and command
 * arrays, then the texts.  NULL when they are incomplete or memory ran out. */
static struct plugin_facts *facts_pack(const struct heard_facts *h)
{
    uint32_t n_columns = 0, n_commands = 0;
    size_t text = 0;
    for (size_t i = 0; i < h->n; i++) {
        n_columns += h->said[i].kind == FACT_COLUMN;
        n_commands += h->said[i].kind == FACT_COMMAND;
        text += strlen(h->said[i].text) + 1;
    }
    size_t arrays = n_columns * sizeof(const char *) +
                    n_commands * sizeof(struct plugin_command_facts);
    struct plugin_facts *f = calloc(1, sizeof *f + arrays + text);
    if (!f)
        return NULL;
    const char **columns = (const char **)(void *)(f + 1);
    struct plugin_command_facts *commands = (void *)(columns + n_columns);
    char *next = (char *)(commands + n_commands);
    f->columns = columns;
    f->commands = commands;
    struct plugin_command_facts *cmd = NULL;
    for (size_t i = 0; i < h->n; i++) {
        const char *s = strcpy(next, h->said[i].text);
        next += strlen(s) + 1;
        enum fact kind = h->said[i].kind;
        if (kind == FACT_NAME)
            f->name = s;
        else if (kind == FACT_DESCRIPTION)
            f->description = s;
        else if (kind == FACT_ABI)
            f->abi_version = (uint32_t)strtoul(s, NULL, 10);
        else if (kind == FACT_COLUMN)
            columns[f->n_columns++] = s;
        else if (kind == FACT_COMMAND)
            (cmd = &commands[f->n_commands++])->name = s;
        else if (cmd && kind == FACT_USAGE)
            cmd->usage = s;
        else if (cmd && kind == FACT_HELP)
            cmd->help = s;
        else if (cmd && kind == FACT_COMPLETES)
            cmd->completes = true;
    }
    bool whole = f->name && f->n_columns;
    for (uint32_t k = 0; k < f->n_commands; k++)
        whole = whole && f->commands[k].usage && f->commands[k].help;
    if (!whole) {
        free(f);
        return NULL;
    }
    return f;
}

/* The file at path, to tell it from another put there later. */
static void note_file(struct plugin_facts *f, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    f->size = (uint64_t)st.st_size;
    f->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
}

static bool same_file(const struct plugin_facts *f, const char *path)
{
    struct plugin_facts now = {0};
    note_file(&now, path);
    return now.dev == f->dev && now.ino == f->ino && now.size == f->size &&
           now.mtime_ns == f->mtime_ns;
}

/* Probe path; its facts, or NULL with why (what follows "FILE: "). */
static struct plugin_facts *probe(struct plugin_host *ph, const char *path, char *why, size_t len)
{
    struct heard_facts h = {0};
    struct plugin_facts *f = NULL;
    if (plugin_child_probe_load(path, inspect_in_child, ph, hear_fact, &h, why, len)) {
        if (h.n && h.said[0].kind == FACT_REFUSED)
            snprintf(why, len, "refused: %s", h.said[0].text);
        else if (h.out_of_memory || !(f = facts_pack(&h)))
            snprintf(why, len, "refused: %s",
                     h.out_of_memory ? "out of memory" : "its probe said too little of it");
        else
            note_file(f, path);
    }
    heard_facts_free(&h);
    return f;
}

bool plugin_host_load(struct plugin_host *ph, const char *path, char *err, size_t errlen)
{
    char why[512];
    struct plugin_facts *f = probe(ph, path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, why);
        return false;
    }
    char *own_path = strdup(path);
    struct plugin_info *p = grow_for_one(ph->p, ph->n, &ph->cap, 16, sizeof *p);
    if (p)
        ph->p = p;
    if (!own_path || !p) {
        snprintf(err, errlen, "%s: refused: out of memory", path);
        free(own_path);
        free(f);
        return false;
    }
    ph->p[ph->n++] = (struct plugin_info){.facts = f, .path = own_path};
    return true;
}

bool plugin_host_map(struct plugin_host *ph, const struct plugin_info *cpi, char *err,
                     size_t errlen)
{
    struct plugin_info *pi = &ph->p[cpi - ph->p];
    if (pi->handle)
        return true;
    /* what was probed is what runs: a file rebuilt or replaced since could
     * have other commands, or a constructor that ends the process */
    if (!same_file(pi->facts, pi->path)) {
        snprintf(err, errlen,
                 "%s: changed since dladbg read it at start (restart dladbg to use the new file)",
                 pi->path);
        return false;
    }
    void *h = dlopen(pi->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, errlen, "%s: cannot load it: %s", pi->path, e ? e : "?");
        return false;
    }
    const struct dladbg_decoder *dec = dlsym(h, DLADBG_DECODER_SYMBOL);
    const struct dladbg_command_set *cmds =
        pi->facts->n_commands ? dlsym(h, DLADBG_COMMANDS_SYMBOL) : NULL;
    if (!dec || (pi->facts->n_commands && (!cmds || cmds->n_commands != pi->facts->n_commands))) {
        snprintf(err, errlen, "%s: cannot load it: not the plugin dladbg read at start", pi->path);
        dlclose(h);
        return false;
    }
    pi->handle = h;
    pi->dec = dec;
    pi->cmds = cmds;
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
