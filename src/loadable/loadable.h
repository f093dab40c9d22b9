/* The NVDLA loadable: a flatbuffers file (schema share/loadable.fbs) holding
 * the memory list, blobs, address list, tasks, submit list, events, tensor
 * descriptors and relocations of a compiled network.
 *
 * loadable_parse() reads every table and field and validates the whole file
 * before anything runs: offsets and sizes inside the file, vtables, vector
 * lengths, string termination, enum values, memory sizes and alignments, and
 * every id that refers to another list.  A violation is reported as
 * "FILE: offset N: what was expected" and nothing is returned.  The result is
 * plain data: strings and blob bytes point into the loadable's own copy of
 * the file.  Once a blob's bytes are bound elsewhere (the runtime copies them
 * into simulated memory), loadable_release_blob() gives the pages under them
 * back, so a network's weights are not held twice. */
#ifndef DLADBG_LOADABLE_H
#define DLADBG_LOADABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ld_interface { LD_IF_NONE = 0, LD_IF_DLA1 = 1, LD_IF_EMU1 = 2 };
enum ld_domain { LD_DOMAIN_SYSTEM = 0, LD_DOMAIN_SRAM = 1 };
enum ld_mem_flags { LD_MEM_ALLOC = 1, LD_MEM_SET = 2, LD_MEM_INPUT = 4, LD_MEM_OUTPUT = 8 };
enum ld_event_op { LD_EVENT_WAIT = 0, LD_EVENT_SIGNAL = 1 };
enum ld_data_type {
    LD_TYPE_UNKNOWN = 0,
    LD_TYPE_FLOAT = 1,
    LD_TYPE_HALF = 2,
    LD_TYPE_INT16 = 3,
    LD_TYPE_INT8 = 4,
};

/* Limits that keep hostile files from asking for absurd amounts of memory. */
#define LD_MAX_MEMORY_BYTES (1ull << 30) /* one memory-list entry */
#define LD_MAX_TOTAL_BYTES  (2ull << 30) /* all memories together */
#define LD_MAX_ALIGNMENT    (1u << 20)
#define LD_MAX_FILE_BYTES   (1ull << 30)

/* ld_tensor.pixel_format: the pixel formats (pitch-linear rows) come first,
 * the feature formats (32-byte atoms) from this value on. */
#define LD_FIRST_FEATURE_FORMAT 36

/* The lists looked up by id (blobs by name), for struct loadable's order. */
enum ld_list { LD_LIST_MEMORIES, LD_LIST_ADDRESSES, LD_LIST_TASKS, LD_LIST_EVENTS,
               LD_LIST_TENSORS, LD_LIST_BLOBS, LD_LISTS };

struct ld_version {
    uint8_t major, minor, sub_minor;
};

/* The formats NVIDIA's schema went through (nvdla/sw, umd/core/common/
 * loadable.fbs and Loadable.cpp): a file names its own in Loadable.version,
 * and, as NVIDIA's Runtime::versionsCompatible has it, a major.minor decides
 * the layout whatever the sub-minor.
 *   0.5 (Dec 2017, EMU1 added Jan 2018 without a new number): Blob without
 *       sub_interface (its version and data one field earlier); tensor
 *       descriptors without a name, with line, surface and plane strides
 *       (then four reserved fields); no reloc_list (submit_list one earlier).
 *   0.6 (Apr 12 2018): Blob.sub_interface, stride_0..7, RelocListEntry.
 *   0.7 (Apr 13 2018 on): TensorDescListEntry.name first.  A 2019 change
 *       added DataFormat NCxHWx (3) without a new number. */
struct ld_format {
    uint8_t major, minor;
    bool blob_sub_interface; /* Blob field 3 is sub_interface */
    bool tensor_name;        /* TensorDescListEntry field 0 is name */
    bool tensor_strides8;    /* stride_0..7; else line, surf, plane strides */
    bool reloc_list;         /* Loadable field 7 is reloc_list, submit_list 8 */
};

/* The format of version v; NULL when this reader does not know it. */
const struct ld_format *loadable_format(struct ld_version v);
/* The formats known, for messages: "0.5.x, 0.6.x and 0.7.x". */
const char *loadable_formats_known(void);

struct ld_blob {
    uint32_t at; /* file offset of the entry's table, for messages */
    const char *name;
    uint64_t size;
    uint32_t interface, sub_interface;
    struct ld_version version;
    const uint8_t *data; /* NULL once released (loadable_release_blob) */
    uint64_t data_len;
    uint64_t data_at; /* file offset of the bytes, for messages (kept after a release) */
};

struct ld_memory {
    uint32_t at; /* file offset of the entry's table, for messages */
    uint16_t id;
    uint8_t domain;
    uint16_t flags;
    uint64_t size;
    uint32_t alignment;
    uint32_t n_contents;
    const char **contents;
    uint64_t *offsets;
    uint32_t *content_blob; /* index into blobs of each content */
    uint16_t bind_id, tensor_desc_id;
};

struct ld_address {
    uint32_t at; /* file offset of the entry's table, for messages */
    uint16_t id, mem_id;
    uint64_t offset, size;
    uint32_t mem; /* index into memories */
};

struct ld_task {
    uint32_t at; /* file offset of the entry's table, for messages */
    uint16_t id;
    uint32_t interface;
    int16_t instance;
    uint32_t n_addresses, n_pre, n_post;
    uint16_t *addresses;  /* address-list ids */
    uint16_t *pre, *post; /* event ids */
};

struct ld_submit {
    uint32_t at; /* file offset of the entry's table, for messages */
    uint16_t id;
    uint32_t n_tasks;
    uint16_t *tasks;
};

struct ld_event {
    uint32_t at; /* file offset of the entry's table, for messages */
    uint16_t id;
    uint8_t type;
    uint16_t target;
    uint32_t val;
    uint8_t op;
};

struct ld_tensor {
    uint32_t at; /* file offset of the entry's table, for messages */
    const char *name; /* "" in formats before 0.7 */
    uint16_t id, mem_id;
    uint64_t size, offset;
    uint8_t data_format, data_type, data_category, pixel_format, pixel_mapping;
    int32_t n, c, h, w;
    uint32_t stride[8]; /* 0 element, 1 line, 2 surface, 3 plane (format 0.5: 1..3 only) */
};

struct ld_reloc {
    uint32_t at; /* file offset of the entry's table, for messages */
    uint16_t address_id, write_id;
    uint64_t offset;
    uint32_t interface, sub_interface;
    uint8_t reloc_type;
};

struct loadable {
    char name[256]; /* file name for messages */
    uint8_t *buf;
    size_t len;
    struct ld_version version;
    const struct ld_format *format; /* from version */
    uint32_t n_tasks, n_memories, n_addresses, n_events, n_blobs, n_tensors, n_relocs, n_submits;
    struct ld_task *tasks;
    struct ld_memory *memories;
    struct ld_address *addresses;
    struct ld_event *events;
    struct ld_blob *blobs;
    struct ld_tensor *tensors;
    struct ld_reloc *relocs;
    struct ld_submit *submits;
    /* each list's indices in id order (blobs: name order), so that lookups
     * take log time; NULL in a struct not made by loadable_parse (lookups
     * then scan the list) */
    uint32_t *order[LD_LISTS];
};

/* Parse and validate a loadable held in memory (the bytes are copied).
 * name is used in messages.  NULL with err set on any problem. */
struct loadable *loadable_parse(const void *buf, size_t len, const char *name, char *err,
                                size_t errlen);
/* The same for a malloc'd buffer the loadable takes over (freed on failure
 * too): no second copy of a file of tens of MB. */
struct loadable *loadable_parse_owned(uint8_t *buf, size_t len, const char *name, char *err,
                                      size_t errlen);
/* Read and parse a file. */
struct loadable *loadable_read_file(const char *path, char *err, size_t errlen);
void loadable_free(struct loadable *l);
/* The blob's bytes are no longer needed here: the whole pages under them go
 * back to the system and data becomes NULL (name, size and data_at stay).
 * Returns the bytes given back (0 for a blob smaller than a page or one
 * already released). */
uint64_t loadable_release_blob(struct loadable *l, uint32_t blob);
/* Once the blobs are in simulated memory: the names and the blobs still
 * held move to an allocation of their own and the file's buffer is freed
 * (the tables were parsed out of it already; offsets kept for messages
 * stay valid).  Returns the bytes given back (0: kept, nothing to gain). */
size_t loadable_detach_buffer(struct loadable *l);

/* Lookups by id; -1 when absent. */
int loadable_memory_index(const struct loadable *l, uint16_t id);
int loadable_address_index(const struct loadable *l, uint16_t id);
int loadable_task_index(const struct loadable *l, uint16_t id);
int loadable_event_index(const struct loadable *l, uint16_t id);
int loadable_tensor_index(const struct loadable *l, uint16_t id);
int loadable_blob_index(const struct loadable *l, const char *name);
/* Sort each list's indices for the lookups (loadable_parse does it); false
 * when out of memory.  loadable_free frees them. */
bool loadable_index_build(struct loadable *l);
void loadable_index_free(struct loadable *l);
/* For tests: the list entries all lookups so far have compared. */
unsigned long long loadable_lookup_steps(void);

#endif
