/* The configuration a session runs a file on: the one asked for (--config),
 * checked against what the file needs, or the one the file tells. */
#ifndef DLADBG_CONFIG_CHOICE_H
#define DLADBG_CONFIG_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"
#include "report.h"

/* asked: --config, or NULL.  The choice is said as a note ("NET.nvdla:
 * compiled for nv_small (...)") when it was told from the file.  NULL with
 * err when asked names a configuration the file cannot run on while another
 * fits it (the message names that one). */
const struct dla_config *config_choose(const char *path, const struct dla_config *asked,
                                       struct report *rep, char *err, size_t errlen);

struct loadable;
struct txn_prog;
/* The file as configuration detection parsed it, for the driver: a loadable
 * (or sample) or a .txn trace; at most one is set. */
struct config_parse {
    struct loadable *loadable;
    struct txn_prog *txn;
};
/* config_choose, keeping the parse: when the choice was told from the file
 * and a configuration is returned, *kept gets that parse (the caller owns
 * it: config_parse_free), else nothing.  Opening hands it to the driver
 * (loadable_driver_open_parsed, trace_txn_open_prog) instead of reading the
 * file, or generating a sample, a second time. */
const struct dla_config *config_choose_parsed(const char *path, const struct dla_config *asked,
                                              struct report *rep, struct config_parse *kept,
                                              char *err, size_t errlen);
void config_parse_free(struct config_parse *kept);

/* What the file at path tells of its configuration, in one line with every
 * configuration that fits it ("NET.nvdla: compiled for nv_full (...); also
 * fits nv_small_256"), for "info config"; false when it tells nothing. */
bool config_describe(const char *path, char *buf, size_t len);

#endif
