/* The project's own sample networks, built in memory as loadables by the
 * loadable writer: "lenet" (conv -> relu -> pool -> fc -> softmax with
 * seeded weights) and single-unit samples ("bdma", "conv", "sdp", "pdp",
 * "cdp", "rubik", "emu").  Used by "dladbg sample:NAME", by dladbg-mknet
 * and by the tests. */
#ifndef DLADBG_SAMPLE_NET_H
#define DLADBG_SAMPLE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Build sample `name`; *buf is malloc'ed.  false with a message when the
 * name is unknown. */
bool sample_net_build(const char *name, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* The loadable a file argument names: "sample:NAME" builds that sample,
 * anything else is read from the file; NULL with a message.  Shared by the
 * loadable driver and loadable_tensors(), which accept the same names. */
struct loadable;
struct loadable *sample_net_load(const char *path, char *err, size_t errlen);

/* Names of the samples, NULL-terminated. */
const char *const *sample_net_names(void);

#endif
