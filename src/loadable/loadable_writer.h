/* Writing loadables: collect the lists of a loadable (the same plain structs
 * the reader produces, see loadable.h) and serialise them as a flatbuffers
 * file that our reader, flatc with share/loadable.fbs, and NVIDIA's runtime
 * schema all accept.  Used by the sample networks, dladbg-mknet and tests. */
#ifndef DLADBG_LOADABLE_WRITER_H
#define DLADBG_LOADABLE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadable.h"

struct lw;

struct lw *lw_create(void);
void lw_destroy(struct lw *w);

/* Each adder copies its arguments and returns the new entry's id (the ids
 * are dense from 0 in each list), or -1 when out of memory. */
int lw_blob(struct lw *w, const char *name, uint32_t interface, uint32_t sub_interface,
            struct ld_version version, const void *data, size_t len);
/* lw_blob taking over data (malloc'ed; freed by the writer, also on failure):
 * tens of MB of weights are not copied. */
int lw_blob_take(struct lw *w, const char *name, uint32_t interface, uint32_t sub_interface,
                 struct ld_version version, uint8_t *data, size_t len);
/* content: a blob name placed at offset 0 (SET), or NULL */
int lw_memory(struct lw *w, uint8_t domain, uint16_t flags, uint64_t size, uint32_t alignment,
              const char *content, uint16_t bind_id, uint16_t tensor_desc_id);
int lw_address(struct lw *w, uint16_t mem_id, uint64_t offset, uint64_t size);
int lw_event(struct lw *w, uint8_t type, uint16_t target, uint32_t val, uint8_t op);
int lw_task(struct lw *w, uint32_t interface, const uint16_t *addresses, uint32_t n_addresses,
            const uint16_t *pre, uint32_t n_pre, const uint16_t *post, uint32_t n_post);
int lw_submit(struct lw *w, const uint16_t *tasks, uint32_t n);
/* t->id is assigned by the writer; t->name is copied */
int lw_tensor(struct lw *w, const struct ld_tensor *t);
int lw_reloc(struct lw *w, const struct ld_reloc *r);

/* Serialise in the format `version` names (loadable_format: 0.5, 0.6 or
 * 0.7; a format without tensor names leaves them out); *buf is malloc'ed.
 * false when out of memory, for an unknown format, or for relocations in a
 * format without them (0.5). */
bool lw_finish(struct lw *w, struct ld_version version, uint8_t **buf, size_t *len);
/* lw_finish freeing each blob's bytes as soon as they are serialised, so the
 * weights are held once, not twice, while the file is built; w can only be
 * destroyed afterwards. */
bool lw_finish_consume(struct lw *w, struct ld_version version, uint8_t **buf, size_t *len);

#endif
