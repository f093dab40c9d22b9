/* Decoder plugins (plugins/include/dladbg/decoder.h): loading with dlopen,
 * validating the descriptor and the optional command set (a wrong ABI version, a missing symbol or
 * an incomplete descriptor is refused with a message naming the file, never loaded half-way), and
 * finding decoders by name. */
#ifndef DLADBG_PLUGIN_HOST_H
#define DLADBG_PLUGIN_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dladbg/decoder.h"

struct plugin_info {
    const struct dladbg_decoder *dec;
    const struct dladbg_command_set *cmds; /* NULL: the plugin adds no commands */
    char *path; /* its own copy: a 4 KiB array in each made the table 66 KiB in every run */
    void *handle;
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

/* Load one plugin file; false with err ("FILE: refused: ...") when refused. */
bool plugin_host_load(struct plugin_host *ph, const char *path, char *err, size_t errlen);

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
/* The plugin command named name (exact), and the plugin it came from. */
const struct dladbg_command *plugin_host_command(const struct plugin_host *ph, const char *name,
                                                 const struct plugin_info **from);
/* Command i of a plugin (the set's stride is its command_size). */
const struct dladbg_command *plugin_command_at(const struct plugin_info *pi, uint32_t i);

#endif
