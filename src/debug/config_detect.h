/* Which hardware configuration a file was made for, told from what it holds.
 *
 * A loadable does not name its target (the schema has no such field), but
 * its DLA descriptors say a lot: the memory atom (feature surfaces are made
 * of atoms, so a line-packed surface's line stride is width x atom, and the
 * runtime's tensor descriptors say FEATURE_X8 for 8-byte atoms), the CBUF
 * entry width (a direct convolution's entries per slice follow from its
 * width, channels and the entry and atom sizes), the CBUF banks a
 * convolution takes, the precisions, and the units and features used
 * (Winograd, weight compression, batches, BDMA, Rubik, CV-SRAM, SDP's EW
 * stage and LUT).  Each configuration is checked against all of it: a
 * violated need means the file cannot run there; among those that can, the
 * one whose atom the surfaces agree with most is the likeliest (NVIDIA's
 * compiler targets nv_full, nv_small, nv_large first on a tie).
 *
 * A register trace (.txn) tells its register map by the addresses it uses
 * (units sit at different bases in the v1 and v2 maps); within the v2 map,
 * the CBUF banks CDMA.D_BANK gives and the alignment of the data processors'
 * addresses and strides narrow it further. */
#ifndef DLADBG_CONFIG_DETECT_H
#define DLADBG_CONFIG_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"

struct loadable;

#define CFG_DETECT_MAX 16

struct cfg_fit {
    const struct dla_config *cfg;
    unsigned violations; /* needs it does not meet: the file cannot run there */
    char why_not[160];   /* the first of them */
    unsigned agree;      /* surfaces whose layout agrees with its atom */
};

struct cfg_detection {
    bool evidence; /* the file said anything at all */
    size_t n;      /* every configuration, likeliest first */
    struct cfg_fit fits[CFG_DETECT_MAX];
    char facts[200]; /* what was found: "atom 8 bytes, ..." */
};

/* Check every configuration against the loadable's DLA tasks and tensors. */
void config_detect_loadable(const struct loadable *l, struct cfg_detection *out);

/* The same for an input.txn trace: the register map its addresses belong to
 * and, in the v2 map, banks and alignment.  false with err when the file
 * cannot be read or parsed. */
bool config_detect_txn(const char *path, struct cfg_detection *out, char *err, size_t errlen);
struct txn_prog;
/* The same from the trace parsed (the parse the replay then runs). */
void config_detect_txn_prog(const struct txn_prog *p, struct cfg_detection *out);

/* The fit of one configuration (NULL when c is not in the table). */
const struct cfg_fit *config_detection_fit(const struct cfg_detection *d,
                                           const struct dla_config *c);

/* The verdict in one line: "WHAT: VERB nv_small (atom 8 bytes, ...)", naming
 * the others that fit too, or the closest when none fits (VERB: "compiled
 * for", "recorded on"). */
void config_detection_line(const struct cfg_detection *d, const char *what, const char *verb,
                           char *buf, size_t len);

#endif
