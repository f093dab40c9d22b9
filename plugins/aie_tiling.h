/* AMD AI Engine-ML tiling parameters (UG1603, "Tiling Parameters and Buffer
 * Descriptors"; seed 003): the address sequence a tiling_parameters object
 * generates, its 32-bit alignment rule, zero padding, and the conversion of
 * a strided DMA access (a contiguous run repeated by nested loops, as NVDLA's
 * DMA engines walk a cube) into tiling parameters and a buffer-descriptor
 * count.  Header-only like plugin_util.h: the aie plugin and its unit test
 * include it; it is not part of the plugin ABI.
 *
 * Semantics, as the seed gives them:
 *   - buffer_dimension[0] is contiguous: element (p0, p1, ...) is at
 *     p0 + p1*B0 + p2*B0*B1 + ... (in elements of the buffer's type);
 *   - a tile is tiling_dimension elements, dimension 0 fastest, starting at
 *     offset plus the traversal position;
 *   - tile_traversal[i] is loop i, loop 0 innermost: it moves the tile
 *     stride elements of dimension `dimension`, wrap times;
 *   - a stride smaller than the tile makes tiles overlap;
 *   - an element outside the buffer (negative offset, traversal past the
 *     end) or past boundary_dimension is zero padding;
 *   - generated addresses are 32-bit aligned: 16-bit data move in pairs,
 *     8-bit in fours, 4-bit in eights, so every dimension-0 quantity
 *     (buffer and tiling size, offset, traversal stride, boundary) must be a
 *     multiple of the group.
 * Padding hardware limits (memory tile only, dimensions 0-2, at most 64, 32
 * and 16 32-bit words before or after) are reported, not enforced. */
#ifndef DLADBG_AIE_TILING_H
#define DLADBG_AIE_TILING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define AIE_MAX_DIMS   4 /* a memory tile addresses 4 dimensions */
#define AIE_MAX_LOOPS  8
#define AIE_MAX_BUFFER (1ull << 40) /* elements: positions and addresses stay far from overflow */

struct aie_traversal {
    uint32_t dimension, stride, wrap;
};

struct aie_tiling {
    unsigned n_dims; /* of buffer_dimension; tiling_dimension and offset have as many */
    uint32_t buffer_dim[AIE_MAX_DIMS];
    uint32_t tiling_dim[AIE_MAX_DIMS];
    int32_t offset[AIE_MAX_DIMS];
    unsigned n_loops;
    struct aie_traversal loop[AIE_MAX_LOOPS];
    bool has_boundary;
    uint32_t boundary_dim[AIE_MAX_DIMS];
    unsigned elem_bits; /* 4, 8, 16, 32 or 64 */
};

/* ---------------------------------------------------------------- types */

struct aie_type {
    const char *name;
    unsigned bits;
};

static const struct aie_type aie_types[] = {
    {"int4", 4},    {"uint4", 4},     {"int8", 8},    {"uint8", 8},   {"int16", 16},
    {"uint16", 16}, {"bfloat16", 16}, {"fp16", 16},   {"int32", 32},  {"uint32", 32},
    {"fp32", 32},   {"float", 32},    {"cint16", 32}, {"cint32", 64}, {"cfloat", 64},
};

static inline unsigned aie_type_bits(const char *name)
{
    for (size_t i = 0; i < sizeof aie_types / sizeof aie_types[0]; i++)
        if (!strcmp(aie_types[i].name, name))
            return aie_types[i].bits;
    return 0;
}

/* ---------------------------------------------------------------- checks */

/* Elements that make one 32-bit word (1 for 32- and 64-bit data). */
static inline unsigned aie_group(const struct aie_tiling *t)
{
    return t->elem_bits < 32 ? 32 / t->elem_bits : 1;
}

/* What breaks the rules, naming the member; false when the object is fine. */
static inline bool aie_tiling_invalid(const struct aie_tiling *t, char *why, size_t len)
{
    if (t->n_dims < 1 || t->n_dims > AIE_MAX_DIMS) {
        snprintf(why, len, "buffer_dimension has %u dimensions (1 to %d)", t->n_dims, AIE_MAX_DIMS);
        return true;
    }
    uint64_t elements = 1;
    for (unsigned d = 0; d < t->n_dims; d++) {
        if (!t->buffer_dim[d] || !t->tiling_dim[d]) {
            snprintf(why, len, "%s[%u] is 0",
                     t->buffer_dim[d] ? "tiling_dimension" : "buffer_dimension", d);
            return true;
        }
        elements *= t->buffer_dim[d];
        if (elements > AIE_MAX_BUFFER) {
            snprintf(why, len, "buffer_dimension holds more than 2^40 elements");
            return true;
        }
    }
    for (unsigned i = 0; i < t->n_loops; i++) {
        if (t->loop[i].dimension >= t->n_dims) {
            snprintf(why, len, "tile_traversal[%u].dimension = %u, but the buffer has %u", i,
                     t->loop[i].dimension, t->n_dims);
            return true;
        }
        if (!t->loop[i].wrap) {
            snprintf(why, len, "tile_traversal[%u].wrap is 0", i);
            return true;
        }
        if ((uint64_t)t->loop[i].stride * (t->loop[i].wrap - 1) > AIE_MAX_BUFFER) {
            snprintf(why, len, "tile_traversal[%u] moves more than 2^40 elements", i);
            return true;
        }
    }
    unsigned g = aie_group(t);
    if (g == 1)
        return false;
    const char *how = g == 2   ? "16-bit data are accessed as pairs"
                      : g == 4 ? "8-bit data are accessed as fours"
                               : "4-bit data are accessed as eights";
    struct {
        const char *member;
        long long v;
    } dim0[AIE_MAX_LOOPS + 4];
    unsigned n = 0;
    dim0[n].member = "buffer_dimension[0]";
    dim0[n++].v = t->buffer_dim[0];
    dim0[n].member = "tiling_dimension[0]";
    dim0[n++].v = t->tiling_dim[0];
    dim0[n].member = "offset[0]";
    dim0[n++].v = t->offset[0];
    if (t->has_boundary) {
        dim0[n].member = "boundary_dimension[0]";
        dim0[n++].v = t->boundary_dim[0];
    }
    static const char *const strides[AIE_MAX_LOOPS] = {
        "tile_traversal[0].stride", "tile_traversal[1].stride", "tile_traversal[2].stride",
        "tile_traversal[3].stride", "tile_traversal[4].stride", "tile_traversal[5].stride",
        "tile_traversal[6].stride", "tile_traversal[7].stride"};
    for (unsigned i = 0; i < t->n_loops; i++)
        if (t->loop[i].dimension == 0) {
            dim0[n].member = strides[i];
            dim0[n++].v = t->loop[i].stride;
        }
    for (unsigned i = 0; i < n; i++) {
        if (dim0[i].v % (long long)g) {
            snprintf(why, len,
                     "%s = %lld is not a multiple of %u: all generated addresses are 32-bit "
                     "aligned and %s",
                     dim0[i].member, dim0[i].v, g, how);
            return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- generation */

/* One piece of the sequence: n elements from element address addr on, or
 * n zero-padding elements (pad; addr is where they would have been). */
typedef bool (*aie_piece_fn)(void *ctx, bool pad, int64_t addr, uint64_t n);

static inline int64_t aie_limit(const struct aie_tiling *t, unsigned d)
{
    if (t->has_boundary && t->boundary_dim[d] < t->buffer_dim[d])
        return t->boundary_dim[d];
    return t->buffer_dim[d];
}

/* One dimension-0 row of a tile whose row starts at position p. */
static inline bool aie_row(const struct aie_tiling *t, const int64_t *p, aie_piece_fn fn, void *ctx)
{
    /* unsigned: a padded row's position may lie far outside the buffer,
     * where only its (unused) address could overflow */
    uint64_t where = 0, unit = 1;
    bool outside = false;
    for (unsigned d = 0; d < t->n_dims; d++) {
        if (d > 0 && (p[d] < 0 || p[d] >= aie_limit(t, d)))
            outside = true;
        where += (uint64_t)p[d] * unit;
        unit *= t->buffer_dim[d];
    }
    int64_t addr = (int64_t)where;
    int64_t len = t->tiling_dim[0], x0 = p[0], lim = aie_limit(t, 0);
    if (outside)
        return fn(ctx, true, addr, (uint64_t)len);
    int64_t lo = x0 < 0 ? -x0 : 0;                    /* padding before */
    int64_t hi = x0 + len > lim ? x0 + len - lim : 0; /* padding after */
    if (lo > len)
        lo = len;
    if (hi > len - lo)
        hi = len - lo;
    if (lo && !fn(ctx, true, addr, (uint64_t)lo))
        return false;
    if (len - lo - hi > 0 && !fn(ctx, false, addr + lo, (uint64_t)(len - lo - hi)))
        return false;
    return !hi || fn(ctx, true, addr + len - hi, (uint64_t)hi);
}

/* Every tile in traversal order, each row by row: the whole sequence.
 * tile_fn (may be NULL) hears of each tile's origin first.  false when a
 * callback stopped it. */
static inline bool aie_generate(const struct aie_tiling *t,
                                bool (*tile_fn)(void *ctx, uint64_t index, const int64_t *origin),
                                aie_piece_fn fn, void *ctx)
{
    uint32_t k[AIE_MAX_LOOPS] = {0};
    for (uint64_t tile = 0;; tile++) {
        int64_t origin[AIE_MAX_DIMS] = {0};
        for (unsigned d = 0; d < t->n_dims; d++)
            origin[d] = t->offset[d];
        for (unsigned i = 0; i < t->n_loops; i++)
            origin[t->loop[i].dimension] += (int64_t)k[i] * t->loop[i].stride;
        if (tile_fn && !tile_fn(ctx, tile, origin))
            return false;
        /* the rows of the tile: dimensions 1.. as an odometer */
        uint32_t r[AIE_MAX_DIMS] = {0};
        for (;;) {
            int64_t p[AIE_MAX_DIMS] = {0};
            for (unsigned d = 0; d < t->n_dims; d++)
                p[d] = origin[d] + (d ? r[d] : 0);
            if (!aie_row(t, p, fn, ctx))
                return false;
            unsigned d = 1;
            while (d < t->n_dims && ++r[d] == t->tiling_dim[d])
                r[d++] = 0;
            if (d >= t->n_dims)
                break;
        }
        unsigned i = 0;
        while (i < t->n_loops && ++k[i] == t->loop[i].wrap)
            k[i++] = 0;
        if (i >= t->n_loops)
            return true;
    }
}

/* Elements the object generates (padding included). */
static inline uint64_t aie_elements(const struct aie_tiling *t)
{
    uint64_t n = 1;
    for (unsigned d = 0; d < t->n_dims; d++)
        n *= t->tiling_dim[d];
    for (unsigned i = 0; i < t->n_loops; i++)
        n *= t->loop[i].wrap;
    return n;
}

/* ---------------------------------------------------------------- strided accesses */

/* A DMA access: from base, run_bytes contiguous bytes, repeated by loops
 * (innermost first) of count times, byte stride apart. */
struct aie_access {
    uint64_t base;
    int64_t offset_bytes; /* where the first run starts, from base (tiling offset[0]) */
    uint64_t run_bytes;
    unsigned n_loops;
    struct {
        uint64_t count;
        int64_t stride;
    } loop[AIE_MAX_LOOPS];
};

/* One attempt of aie_from_access with the dimension units given. */
static inline bool aie_try_units(const struct aie_access *a, unsigned elem_bytes,
                                 const uint64_t *units, unsigned n_units, struct aie_tiling *t)
{
    memset(t, 0, sizeof *t);
    t->elem_bits = elem_bytes * 8;
    uint64_t unit[AIE_MAX_DIMS] = {elem_bytes};
    unsigned dims = 1;
    for (unsigned i = 0; i < n_units && dims < AIE_MAX_DIMS; i++)
        if (units[i] > unit[dims - 1] && units[i] % unit[dims - 1] == 0 && units[i] >= a->run_bytes)
            unit[dims++] = units[i];
    /* extent each dimension needs: the run, then every loop's last step */
    if (a->offset_bytes % (int64_t)elem_bytes)
        return false;
    t->offset[0] = (int32_t)(a->offset_bytes / (int64_t)elem_bytes);
    uint64_t reach[AIE_MAX_DIMS] = {a->run_bytes / elem_bytes, 1, 1, 1};
    if (t->offset[0] > 0)
        reach[0] += (uint64_t)t->offset[0];
    t->n_loops = a->n_loops;
    for (unsigned i = 0; i < a->n_loops; i++) {
        /* a zero stride repeats the same tile (AIE allows it); negative ones
         * have no tiling form */
        if (a->loop[i].stride < 0 || a->loop[i].count > UINT32_MAX)
            return false;
        unsigned d = dims - 1;
        while (d > 0 && (uint64_t)a->loop[i].stride % unit[d])
            d--;
        if ((uint64_t)a->loop[i].stride % unit[d])
            return false;
        uint64_t s = (uint64_t)a->loop[i].stride / unit[d];
        if (s > UINT32_MAX)
            return false;
        t->loop[i] = (struct aie_traversal){d, (uint32_t)s, (uint32_t)a->loop[i].count};
        reach[d] += s * (a->loop[i].count - 1);
    }
    t->n_dims = dims;
    for (unsigned d = 0; d < dims; d++) {
        uint64_t size = d + 1 < dims ? unit[d + 1] / unit[d] : reach[d];
        /* a loop running past a lower dimension would read the next row,
         * where the generator pads: such units do not describe the access */
        if (size > UINT32_MAX || reach[d] > size)
            return false;
        t->buffer_dim[d] = (uint32_t)size;
        t->tiling_dim[d] = 1;
    }
    t->tiling_dim[0] = (uint32_t)(a->run_bytes / elem_bytes);
    /* fold the innermost loops into the tile while they step one row of a
     * dimension above every dimension the tile already spans */
    unsigned top = 0;
    while (t->n_loops && t->loop[0].stride == 1 && t->loop[0].dimension > top) {
        top = t->loop[0].dimension;
        t->tiling_dim[top] = t->loop[0].wrap;
        memmove(&t->loop[0], &t->loop[1], (t->n_loops - 1) * sizeof t->loop[0]);
        t->n_loops--;
    }
    return true;
}

/* The tiling parameters of an access, over a buffer starting at its base,
 * in elements of elem_bytes.  units lists the byte sizes of buffer
 * dimensions 1.. the caller would like (a feature surface's line and
 * surface strides); a unit that does not divide the next is dropped, and a
 * loop runs on the highest dimension whose unit divides its stride; when
 * the units do not describe the access, fewer are used (at worst a
 * one-dimensional buffer with every loop on dimension 0).  The innermost
 * loops that step whole rows of the next dimension become part of the tile.
 * false when the access cannot be expressed (too many loops, a negative
 * stride, sizes not in whole elements). */
static inline bool aie_from_access(const struct aie_access *acc, unsigned elem_bytes,
                                   const uint64_t *units, unsigned n_units, struct aie_tiling *t)
{
    struct aie_access a = *acc;
    unsigned n = 0;
    for (unsigned i = 0; i < a.n_loops; i++)
        if (a.loop[i].count > 1)
            a.loop[n++] = a.loop[i];
    a.n_loops = n;
    if (!elem_bytes || a.run_bytes % elem_bytes || !a.run_bytes || a.n_loops > AIE_MAX_LOOPS)
        return false;
    for (unsigned k = n_units + 1; k-- > 0;)
        if (aie_try_units(&a, elem_bytes, units, k, t))
            return true;
    return false;
}

/* The same with the access's own strides as the dimension units (a
 * feature surface's line and surface strides become buffer dimensions when
 * they divide evenly). */
static inline bool aie_from_access_natural(const struct aie_access *a, unsigned elem_bytes,
                                           struct aie_tiling *t)
{
    uint64_t units[AIE_MAX_LOOPS];
    unsigned n = 0;
    for (unsigned i = 0; i < a->n_loops && i < AIE_MAX_LOOPS; i++)
        if (a->loop[i].stride > 0 && a->loop[i].count > 1)
            units[n++] = (uint64_t)a->loop[i].stride;
    for (unsigned i = 1; i < n; i++) /* ascending, so each can divide the next */
        for (unsigned k = i; k > 0 && units[k - 1] > units[k]; k--) {
            uint64_t x = units[k];
            units[k] = units[k - 1];
            units[k - 1] = x;
        }
    return aie_from_access(a, elem_bytes, units, n, t);
}

/* Buffer descriptors the object needs, in this model of the seed's BDs: a BD
 * addresses `bd_dims` dimensions (3 for external memory, 4 for a memory
 * tile) and repeats them once more ("multiple iterations"); the tile's
 * dimensions of more than one element and each traversal loop are one
 * address dimension each, innermost first; the loops beyond what one BD
 * holds are unrolled into chained BDs. */
static inline uint64_t aie_bd_count(const struct aie_tiling *t, unsigned bd_dims)
{
    unsigned used = 0;
    for (unsigned d = 0; d < t->n_dims; d++)
        if (t->tiling_dim[d] > 1 || d == 0)
            used++;
    uint64_t bds = 1;
    unsigned capacity = bd_dims + 1;
    for (unsigned i = 0; i < t->n_loops; i++) {
        if (used < capacity)
            used++;
        else
            bds *= t->loop[i].wrap;
    }
    return bds;
}

/* "{a,b,c}" of n numbers of one of the dimension vectors: unsigned
 * (buffer_dimension, tiling_dimension, boundary_dimension) or signed
 * (offset). */
static inline void aie_format_dims(char *buf, size_t len, const void *v, unsigned n, bool sign)
{
    size_t used = (size_t)snprintf(buf, len, "{");
    for (unsigned i = 0; i < n && used < len; i++) {
        long long x = sign ? ((const int32_t *)v)[i] : (long long)((const uint32_t *)v)[i];
        used += (size_t)snprintf(buf + used, len - used, "%s%lld", i ? "," : "", x);
    }
    if (used < len)
        snprintf(buf + used, len - used, "}");
}

/* "{{dim,stride,wrap},...}" */
static inline void aie_format_traversal(char *buf, size_t len, const struct aie_tiling *t)
{
    size_t used = (size_t)snprintf(buf, len, "{");
    for (unsigned i = 0; i < t->n_loops && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s{%u,%u,%u}", i ? "," : "",
                                 t->loop[i].dimension, t->loop[i].stride, t->loop[i].wrap);
    if (used < len)
        snprintf(buf + used, len - used, "}");
}

#endif
