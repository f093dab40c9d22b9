/* The configuration a session runs a file on: the one asked for (--config),
 * checked against what the file needs, or the one the file tells. */
#ifndef DLADBG_CONFIG_CHOICE_H
#define DLADBG_CONFIG_CHOICE_H

#include <stddef.h>

#include "config.h"
#include "report.h"

/* asked: --config, or NULL.  The choice is said as a note ("NET.nvdla:
 * compiled for nv_small (...)") when it was told from the file.  NULL with
 * err when asked names a configuration the file cannot run on while another
 * fits it (the message names that one). */
const struct dla_config *config_choose(const char *path, const struct dla_config *asked,
                                       struct report *rep, char *err, size_t errlen);

#endif
