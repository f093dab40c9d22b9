/* Decoder plugins (plugins/include/dladbg/decoder.h): probing, validating the descriptor and the
 * optional command set (a wrong ABI version, a missing symbol or an incomplete descriptor is refused
 * with a message naming the file, never loaded half-way), finding decoders by name, and mapping a
 * plugin at its first use.
 *
 * A plugin is read at start in a child process (plugin_child_probe_load): the checks run there and
 * what listings, help, completion and the command table need comes back as a copy (struct
 * plugin_facts).  The session itself maps a plugin only when it is used (plugin_host_map: an export
 * through its decoder, one of its commands run or completed), so a run that uses none carries none
 * of their pages (0.2 MiB for the eight shipped ones, issue 34). */
#ifndef DLADBG_PLUGIN_HOST_H
#define DLADBG_PLUGIN_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dladbg/decoder.h"

struct plugin_command_facts {
    const char *name, *usage, *help;
    bool completes; /* it has a complete() callback */
};

/* A plugin's descriptor and command set as its probe read them: names and
 * texts copied, no callback. */
struct plugin_facts {
    const char *name;
    const char *description; /* NULL: none */
    uint32_t abi_version;
    uint32_t n_columns;
    const char *const *columns;
    uint32_t n_commands; /* 0: the plugin adds no commands */
    const struct plugin_command_facts *commands;
    /* the file probed (st_dev, st_ino, size, mtime in ns; all 0 when stat
     * failed): another file found at the path later is not mapped for it */
    uint64_t dev, ino, size, mtime_ns;
};

struct plugin_info {
    const struct plugin_facts *facts; /* one allocation, strings included */
    char *path; /* its own copy: a 4 KiB array in each made the table 66 KiB in every run */
    /* NULL until plugin_host_map: */
    void *handle;
    const struct dladbg_decoder *dec;
    const struct dladbg_command_set *cmds; /* also NULL when the plugin adds no commands */
};

struct plugin_host;

typedef void (*plugin_refusal_fn)(void *ctx, const char *message);
/* true when a command word is taken by the host itself (a built-in command). */
typedef bool (*plugin_name_taken_fn)(void *ctx, const char *name);

struct plugin_host *plugin_host_create(void);
void plugin_host_destroy(struct plugin_host *ph);

/* Plugins whose commands clash with names fn calls taken are refused. */
void plugin_host_reserve(struct plugin_host *ph, plugin_name_taken_fn fn, void *ctx);

/* A plugin whose commands would bring all plugins' commands past max (the
 * rows the command table has for them) is refused; 0, the default: no limit. */
void plugin_host_limit_commands(struct plugin_host *ph, uint32_t max);

/* Probe one plugin file and add it; false with err ("FILE: refused: ...")
 * when refused.  The file is not mapped here (plugin_host_map). */
bool plugin_host_load(struct plugin_host *ph, const char *path, char *err, size_t errlen);

/* Map the plugin into this process, setting pi->handle, dec and cmds, if
 * that is not done yet: before its first callback.  false with err ("FILE:
 * ...") when the file changed since it was probed or no longer loads. */
bool plugin_host_map(struct plugin_host *ph, const struct plugin_info *pi, char *err,
                     size_t errlen);

/* Load every *.so of a folder (a missing folder is not an error); refusals
 * are passed to fn.  Returns the number loaded. */
size_t plugin_host_scan(struct plugin_host *ph, const char *dir, plugin_refusal_fn fn, void *ctx);

/* Load every *.so of each folder of a ':' separated list (may be NULL). */
size_t plugin_host_scan_list(struct plugin_host *ph, const char *list, plugin_refusal_fn fn,
                             void *ctx);

/* The folders searched by default, in order: each entry of $DLADBG_PLUGIN_PATH
 * (':' separated), extra (same syntax, may be NULL), the folders next to the
 * executable (plugins/, build/plugins/) and the installed folder. */
size_t plugin_host_scan_default(struct plugin_host *ph, const char *extra, plugin_refusal_fn fn,
                                void *ctx);

size_t plugin_host_count(const struct plugin_host *ph);
const struct plugin_info *plugin_host_get(const struct plugin_host *ph, size_t i);
const struct plugin_info *plugin_host_find(const struct plugin_host *ph, const char *name);
/* The event kinds a decoder wants (DLADBG_EV_BIT each), 0 for all: its
 * event_kinds when its descriptor is new enough to hold them. */
uint32_t plugin_decoder_kinds(const struct dladbg_decoder *d);
/* The plugin providing the command named name (exact), and the command's
 * index in its set (may be NULL); NULL when no plugin provides it. */
const struct plugin_info *plugin_host_command(const struct plugin_host *ph, const char *name,
                                              uint32_t *index);
/* Command i of a mapped plugin (the set's stride is its command_size); NULL
 * when the plugin is not mapped or has no command i. */
const struct dladbg_command *plugin_command_at(const struct plugin_info *pi, uint32_t i);

#endif
