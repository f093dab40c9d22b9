/* Sparse memory: an open-addressing hash table from page number to a
 * reference-counted page, itself a table of reference-counted blocks of
 * MEM_BLOCK_SIZE bytes.  Copy on write works at both levels: a clone shares
 * the pages; writing a shared page copies its table of block pointers (the
 * blocks stay shared) and then only the block written.  A checkpoint thus
 * keeps 4 KiB for an activation written after it, not the 64 KiB page it
 * lies in.  A block never written is no block: zeros, or in a range given
 * random contents (mem_fill_random) the generator's bytes, made when the
 * block is read and kept only once it is written. */
#include "mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MEM_BLOCKS (MEM_PAGE_SIZE / MEM_BLOCK_SIZE)

struct block {
    unsigned refs;
    uint8_t bytes[MEM_BLOCK_SIZE];
};

struct page {
    unsigned refs;
    struct block *blk[MEM_BLOCKS]; /* NULL: zeros */
};

static const uint8_t zeros[MEM_BLOCK_SIZE];

struct slot {
    uint64_t pno;      /* page number */
    struct page *page; /* NULL: empty slot */
};

/* A range of random contents: bytes of blocks never written. */
struct random_range {
    uint64_t addr, end; /* [addr, end) */
    uint64_t seed;
};

/* The blocks whose random bytes were made (read, or written in part) so
 * far, shared by a memory and its clones: what a replay of the run must be
 * given (mem_random_blocks).  A set of block numbers plus one (0: an empty
 * slot), locked: workers read memory in parallel. */
struct random_seen {
    pthread_mutex_t lock;
    unsigned refs;
    size_t n, cap; /* cap a power of two, or 0 */
    uint64_t *slot;
};

struct dla_mem {
    const char *name;
    unsigned addr_bits;
    uint64_t budget;
    size_t n_random;               /* later ranges cover earlier ones */
    struct random_range *random;
    struct random_seen *seen; /* NULL until a random range is given */
    size_t cap;  /* slots, a power of two */
    size_t used; /* occupied slots */
    struct slot *slots;
};

static size_t hash_pno(uint64_t pno, size_t cap)
{
    pno ^= pno >> 33;
    pno *= 0xff51afd7ed558ccdull;
    pno ^= pno >> 33;
    return (size_t)pno & (cap - 1);
}

struct dla_mem *mem_create(const char *name, unsigned addr_bits, uint64_t budget)
{
    struct dla_mem *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->name = name;
    m->addr_bits = addr_bits;
    m->budget = budget;
    m->cap = 64;
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots) {
        free(m);
        return NULL;
    }
    return m;
}

static void block_release(struct block *b)
{
    if (b && --b->refs == 0)
        free(b);
}

static void page_release(struct page *p)
{
    if (!p || --p->refs > 0)
        return;
    for (unsigned i = 0; i < MEM_BLOCKS; i++)
        block_release(p->blk[i]);
    free(p);
}

void mem_clear(struct dla_mem *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        page_release(m->slots[i].page);
        m->slots[i].page = NULL;
    }
    m->used = 0;
    free(m->random);
    m->random = NULL;
    m->n_random = 0;
}

static void seen_release(struct random_seen *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->lock);
    bool last = --v->refs == 0;
    pthread_mutex_unlock(&v->lock);
    if (last) {
        pthread_mutex_destroy(&v->lock);
        free(v->slot);
        free(v);
    }
}

static void seen_share(struct random_seen *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->lock);
    v->refs++;
    pthread_mutex_unlock(&v->lock);
}

static bool seen_insert_locked(struct random_seen *v, uint64_t key)
{
    if (2 * (v->n + 1) > v->cap) { /* at most half full */
        size_t cap = v->cap ? 2 * v->cap : 64;
        uint64_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return false;
        for (size_t i = 0; i < v->cap; i++)
            if (v->slot[i])
                for (size_t k = hash_pno(v->slot[i], cap);; k = (k + 1) & (cap - 1))
                    if (!slot[k]) {
                        slot[k] = v->slot[i];
                        break;
                    }
        free(v->slot);
        v->slot = slot;
        v->cap = cap;
    }
    for (size_t k = hash_pno(key, v->cap);; k = (k + 1) & (v->cap - 1)) {
        if (v->slot[k] == key)
            return true;
        if (!v->slot[k]) {
            v->slot[k] = key;
            v->n++;
            return true;
        }
    }
}

/* The block at base had its random bytes made: remembered for the export.
 * (A block the table has no room for is left out: a replay then reads
 * zeros there, as before random ranges were remembered.) */
static void seen_add(const struct dla_mem *m, uint64_t base)
{
    struct random_seen *v = m->seen;
    pthread_mutex_lock(&v->lock);
    seen_insert_locked(v, (base >> MEM_BLOCK_SHIFT) + 1);
    pthread_mutex_unlock(&v->lock);
}

void mem_destroy(struct dla_mem *m)
{
    if (!m)
        return;
    mem_clear(m);
    seen_release(m->seen);
    free(m->slots);
    free(m);
}

struct dla_mem *mem_clone(const struct dla_mem *m)
{
    struct dla_mem *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *m;
    c->slots = malloc(m->cap * sizeof *m->slots);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    c->random = m->n_random ? malloc(m->n_random * sizeof *m->random) : NULL;
    if (m->n_random && !c->random) {
        free(c->slots);
        free(c);
        return NULL;
    }
    if (m->n_random)
        memcpy(c->random, m->random, m->n_random * sizeof *m->random);
    seen_share(c->seen);
    memcpy(c->slots, m->slots, m->cap * sizeof *m->slots);
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].page)
            c->slots[i].page->refs++;
    return c;
}

const char *mem_name(const struct dla_mem *m)
{
    return m->name;
}

bool mem_in_range(const struct dla_mem *m, uint64_t addr, uint64_t len)
{
    if (addr + len < addr)
        return false;
    if (m->addr_bits >= 64)
        return true;
    uint64_t limit = 1ull << m->addr_bits;
    return addr <= limit && len <= limit - addr;
}

static struct slot *find_slot(const struct dla_mem *m, uint64_t pno)
{
    size_t i = hash_pno(pno, m->cap);
    for (;;) {
        struct slot *s = &m->slots[i];
        if (!s->page || s->pno == pno)
            return s;
        i = (i + 1) & (m->cap - 1);
    }
}

static const struct page *page_lookup(const struct dla_mem *m, uint64_t pno)
{
    return find_slot(m, pno)->page;
}

static bool grow(struct dla_mem *m)
{
    size_t old_cap = m->cap;
    struct slot *old = m->slots;
    struct slot *slots = calloc(old_cap * 2, sizeof *slots);
    if (!slots)
        return false;
    m->slots = slots;
    m->cap = old_cap * 2;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].page)
            *find_slot(m, old[i].pno) = old[i];
    free(old);
    return true;
}

/* An empty slot for a new page pno (not resident), within the budget and
 * the table's load factor.  NULL when the budget or the allocator refuses. */
static struct slot *slot_for_new(struct dla_mem *m, uint64_t pno)
{
    if ((uint64_t)(m->used + 1) * MEM_PAGE_SIZE > m->budget)
        return NULL;
    if ((m->used + 1) * 4 > m->cap * 3 && !grow(m))
        return NULL;
    return find_slot(m, pno);
}

/* The page for writing: created if absent, unshared if shared (its block
 * table copied, the blocks still shared).  NULL when the budget or the
 * allocator refuses. */
static struct page *page_for_write(struct dla_mem *m, uint64_t pno)
{
    struct slot *s = find_slot(m, pno);
    if (s->page && s->page->refs == 1)
        return s->page;
    if (!s->page) {
        struct page *p;
        if (!(s = slot_for_new(m, pno)) || !(p = calloc(1, sizeof *p)))
            return NULL;
        p->refs = 1;
        s->pno = pno;
        s->page = p;
        m->used++;
        return p;
    }
    struct page *copy = malloc(sizeof *copy);
    if (!copy)
        return NULL;
    *copy = *s->page;
    copy->refs = 1;
    for (unsigned i = 0; i < MEM_BLOCKS; i++)
        if (copy->blk[i])
            copy->blk[i]->refs++;
    page_release(s->page);
    s->page = copy;
    return copy;
}

/* splitmix64: the random contents' bytes at an 8-byte word depend on the
 * seed and the word's address only, so any block can be made on its own,
 * the same on every run. */
static uint64_t random_word(uint64_t seed, uint64_t word)
{
    uint64_t z = seed + (word + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool overlaps_random(const struct dla_mem *m, uint64_t addr, uint64_t len)
{
    for (size_t i = 0; i < m->n_random; i++)
        if (addr < m->random[i].end && m->random[i].addr < addr + len)
            return true;
    return false;
}

/* The bytes of the block at `base` never written: zeros, and the random
 * ranges over them in order; whether any range lies over it. */
static bool initial_block(const struct dla_mem *m, uint64_t base, uint8_t *out)
{
    memset(out, 0, MEM_BLOCK_SIZE);
    bool random = false;
    for (size_t i = 0; i < m->n_random; i++) {
        const struct random_range *r = &m->random[i];
        uint64_t from = r->addr > base ? r->addr : base;
        uint64_t to = r->end < base + MEM_BLOCK_SIZE ? r->end : base + MEM_BLOCK_SIZE;
        for (uint64_t a = from; a < to; a++)
            out[a - base] = (uint8_t)(random_word(r->seed, a >> 3) >> ((a & 7) * 8));
        random |= from < to;
    }
    return random;
}

/* initial_block, for a block the run now sees: remembered when random. */
static void absent_block(const struct dla_mem *m, uint64_t base, uint8_t *out)
{
    if (initial_block(m, base, out))
        seen_add(m, base);
}

/* Block i of an unshared page for writing: created if absent (its bytes
 * never written, absent_block), copied if shared.  NULL when the allocator
 * refuses. */
static uint8_t *block_for_write(const struct dla_mem *m, uint64_t pno, struct page *p, unsigned i)
{
    struct block *b = p->blk[i];
    if (b && b->refs == 1)
        return b->bytes;
    struct block *own = malloc(sizeof *own);
    if (!own)
        return NULL;
    if (b)
        memcpy(own->bytes, b->bytes, MEM_BLOCK_SIZE);
    else
        absent_block(m, pno << MEM_PAGE_SHIFT | (uint64_t)i << MEM_BLOCK_SHIFT, own->bytes);
    own->refs = 1;
    block_release(b);
    p->blk[i] = own;
    return own->bytes;
}

/* A page's block i for reading (zeros when absent). */
static const uint8_t *block_bytes(const struct page *p, unsigned i)
{
    return p && p->blk[i] ? p->blk[i]->bytes : zeros;
}

/* The piece of [addr, addr + len) that lies in addr's block: mem_read,
 * mem_write and mem_fill walk their range one piece at a time. */
struct piece {
    uint64_t pno; /* page number */
    unsigned blk; /* block in the page */
    size_t off;   /* offset of addr in the block */
    size_t n;     /* bytes up to the block's end or the range's */
};

static struct piece piece_at(uint64_t addr, uint64_t len)
{
    struct piece pc;
    pc.pno = addr >> MEM_PAGE_SHIFT;
    pc.blk = (unsigned)((addr & (MEM_PAGE_SIZE - 1)) >> MEM_BLOCK_SHIFT);
    pc.off = (size_t)(addr & (MEM_BLOCK_SIZE - 1));
    pc.n = MEM_BLOCK_SIZE - pc.off;
    if (pc.n > len)
        pc.n = (size_t)len;
    return pc;
}

/* libc's memcpy, called: GCC inlines it into mem_read, where a piece is
 * known to be at most a block, as a rep movsq, whose start-up was most of a
 * 32-byte read (a BDMA line: 5% of a run of a million one-line layers).
 * Through a volatile pointer the size is nothing the compiler knows. */
static void *(*volatile copy_piece)(void *, const void *, size_t) = memcpy;

enum mem_status mem_read(const struct dla_mem *m, uint64_t addr, void *buf, size_t len)
{
    if (!mem_in_range(m, addr, len))
        return MEM_OUT_OF_RANGE;
    uint8_t *out = buf;
    uint8_t absent[MEM_BLOCK_SIZE];
    while (len) {
        struct piece pc = piece_at(addr, len);
        const struct page *p = page_lookup(m, pc.pno);
        if (m->n_random && !(p && p->blk[pc.blk])) {
            absent_block(m, addr - pc.off, absent);
            copy_piece(out, absent + pc.off, pc.n);
        } else {
            copy_piece(out, block_bytes(p, pc.blk) + pc.off, pc.n);
        }
        out += pc.n;
        addr += pc.n;
        len -= pc.n;
    }
    return MEM_OK;
}

/* Each block-sized piece of [addr, addr + len) made writable, handed to put
 * with its length: the one page walk of mem_write and mem_fill_bytes. */
typedef void (*piece_put_fn)(uint8_t *dst, size_t n, void *ctx);

static enum mem_status each_piece_for_write(struct dla_mem *m, uint64_t addr, uint64_t len,
                                            piece_put_fn put, void *ctx)
{
    while (len) {
        struct piece pc = piece_at(addr, len);
        struct page *p = page_for_write(m, pc.pno);
        uint8_t *b = p ? block_for_write(m, pc.pno, p, pc.blk) : NULL;
        if (!b)
            return MEM_OVER_BUDGET;
        put(b + pc.off, pc.n, ctx);
        addr += pc.n;
        len -= pc.n;
    }
    return MEM_OK;
}

static void put_copied(uint8_t *dst, size_t n, void *ctx)
{
    const uint8_t **in = ctx;
    memcpy(dst, *in, n);
    *in += n;
}

static void put_byte(uint8_t *dst, size_t n, void *ctx)
{
    memset(dst, *(const uint8_t *)ctx, n);
}

enum mem_status mem_write(struct dla_mem *m, uint64_t addr, const void *buf, size_t len)
{
    if (!mem_in_range(m, addr, len))
        return MEM_OUT_OF_RANGE;
    const uint8_t *in = buf;
    return each_piece_for_write(m, addr, len, put_copied, &in);
}

/* Every byte of the range set, block by block (a range of random contents
 * holds no zero blocks to drop). */
static enum mem_status mem_fill_bytes(struct dla_mem *m, uint64_t addr, uint8_t byte, uint64_t len)
{
    return each_piece_for_write(m, addr, len, put_byte, &byte);
}

/* Remove a page from the table, keeping the probe chains intact (backward
 * shift deletion for linear probing). */
static void drop_page(struct dla_mem *m, struct slot *s)
{
    page_release(s->page);
    s->page = NULL;
    m->used--;
    size_t hole = (size_t)(s - m->slots);
    size_t i = (hole + 1) & (m->cap - 1);
    while (m->slots[i].page) {
        size_t home = hash_pno(m->slots[i].pno, m->cap);
        bool movable = (hole <= i) ? (home <= hole || home > i) : (home <= hole && home > i);
        if (movable) {
            m->slots[hole] = m->slots[i];
            m->slots[i].page = NULL;
            hole = i;
        }
        i = (i + 1) & (m->cap - 1);
    }
}

enum mem_status mem_fill(struct dla_mem *m, uint64_t addr, uint8_t byte, uint64_t len)
{
    if (!mem_in_range(m, addr, len))
        return MEM_OUT_OF_RANGE;
    if (byte == 0 && overlaps_random(m, addr, len)) /* no block is no longer zeros there */
        return mem_fill_bytes(m, addr, 0, len);
    while (len) {
        uint64_t in_page = addr & (MEM_PAGE_SIZE - 1), n;
        struct slot *s = find_slot(m, addr >> MEM_PAGE_SHIFT);
        if (byte == 0 && !s->page) { /* already zero */
            n = MEM_PAGE_SIZE - in_page < len ? MEM_PAGE_SIZE - in_page : len;
        } else if (byte == 0 && in_page == 0 && len >= MEM_PAGE_SIZE) {
            drop_page(m, s);
            n = MEM_PAGE_SIZE;
        } else {
            struct piece pc = piece_at(addr, len);
            struct page *p = page_for_write(m, pc.pno);
            if (!p)
                return MEM_OVER_BUDGET;
            if (byte == 0 && pc.n == MEM_BLOCK_SIZE) { /* a whole block of zeros: none */
                block_release(p->blk[pc.blk]);
                p->blk[pc.blk] = NULL;
            } else if (byte != 0 || p->blk[pc.blk]) {
                uint8_t *b = block_for_write(m, pc.pno, p, pc.blk);
                if (!b)
                    return MEM_OVER_BUDGET;
                memset(b + pc.off, byte, pc.n);
            }
            n = pc.n;
        }
        addr += n;
        len -= n;
    }
    return MEM_OK;
}

static enum mem_status copy_bytes(struct dla_mem *m, const struct dla_mem *src, uint64_t addr,
                                  uint64_t len)
{
    uint8_t buf[MEM_BLOCK_SIZE];
    while (len) {
        size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
        enum mem_status st = mem_read(src, addr, buf, n);
        if (st == MEM_OK)
            st = mem_write(m, addr, buf, n);
        if (st != MEM_OK)
            return st;
        addr += n;
        len -= n;
    }
    return MEM_OK;
}

/* Drop the blocks of [addr, addr + len) that lie wholly inside it and set
 * the bytes of those that do not: what was written there is replaced. */
static enum mem_status forget_range(struct dla_mem *m, uint64_t addr, uint64_t len)
{
    while (len) {
        struct piece pc = piece_at(addr, len);
        struct slot *s = find_slot(m, pc.pno);
        if (s->page && s->page->blk[pc.blk]) {
            struct page *p = page_for_write(m, pc.pno);
            if (!p)
                return MEM_OVER_BUDGET;
            if (pc.n == MEM_BLOCK_SIZE) {
                block_release(p->blk[pc.blk]);
                p->blk[pc.blk] = NULL;
            } else { /* part of a block: its bytes, made now from the new range */
                uint8_t *b = block_for_write(m, pc.pno, p, pc.blk), fresh[MEM_BLOCK_SIZE];
                if (!b)
                    return MEM_OVER_BUDGET;
                absent_block(m, addr - pc.off, fresh);
                memcpy(b + pc.off, fresh + pc.off, pc.n);
            }
        }
        addr += pc.n;
        len -= pc.n;
    }
    return MEM_OK;
}

enum mem_status mem_fill_random(struct dla_mem *m, uint64_t addr, uint64_t len, uint64_t seed)
{
    if (!mem_in_range(m, addr, len))
        return MEM_OUT_OF_RANGE;
    if (len == 0)
        return MEM_OK;
    if (!m->seen) {
        m->seen = calloc(1, sizeof *m->seen);
        if (!m->seen)
            return MEM_OVER_BUDGET;
        pthread_mutex_init(&m->seen->lock, NULL);
        m->seen->refs = 1;
    }
    struct random_range *grown = realloc(m->random, (m->n_random + 1) * sizeof *grown);
    if (!grown)
        return MEM_OVER_BUDGET;
    m->random = grown;
    m->random[m->n_random++] = (struct random_range){addr, addr + len, seed};
    /* blocks written before hold the old bytes: the range's are newer */
    return forget_range(m, addr, len);
}

/* Page pno of m becomes src's page `from` (shared). */
static enum mem_status share_page(struct dla_mem *m, uint64_t pno, struct page *from)
{
    struct slot *s = find_slot(m, pno);
    if (s->page == from)
        return MEM_OK;
    if (s->page)
        page_release(s->page);
    else if ((s = slot_for_new(m, pno)) != NULL)
        m->used++;
    else
        return MEM_OVER_BUDGET;
    s->pno = pno;
    s->page = from;
    from->refs++;
    return MEM_OK;
}

enum mem_status mem_copy_from(struct dla_mem *m, const struct dla_mem *src, uint64_t addr,
                              uint64_t len)
{
    if (!mem_in_range(m, addr, len) || !mem_in_range(src, addr, len))
        return MEM_OUT_OF_RANGE;
    if (overlaps_random(m, addr, len) || overlaps_random(src, addr, len))
        return copy_bytes(m, src, addr, len); /* absent blocks differ: no sharing */
    while (len) {
        struct page *from = find_slot(src, addr >> MEM_PAGE_SHIFT)->page;
        if (from && (addr & (MEM_PAGE_SIZE - 1)) == 0 && len >= MEM_PAGE_SIZE) {
            if (share_page(m, addr >> MEM_PAGE_SHIFT, from) != MEM_OK)
                return MEM_OVER_BUDGET;
            addr += MEM_PAGE_SIZE;
            len -= MEM_PAGE_SIZE;
            continue;
        }
        struct piece pc = piece_at(addr, len);
        if (pc.n == MEM_BLOCK_SIZE) { /* a whole block: shared (or none, for zeros) */
            struct block *fb = from ? from->blk[pc.blk] : NULL;
            struct page *p = page_for_write(m, pc.pno);
            if (!p)
                return MEM_OVER_BUDGET;
            if (p->blk[pc.blk] != fb) {
                block_release(p->blk[pc.blk]);
                p->blk[pc.blk] = fb;
                if (fb)
                    fb->refs++;
            }
        } else if (mem_write(m, addr, block_bytes(from, pc.blk) + pc.off, pc.n) != MEM_OK) {
            return MEM_OVER_BUDGET;
        }
        addr += pc.n;
        len -= pc.n;
    }
    return MEM_OK;
}

bool mem_page_shared(const struct dla_mem *a, const struct dla_mem *b, uint64_t addr)
{
    const struct page *p = page_lookup(a, addr >> MEM_PAGE_SHIFT);
    return p && p == page_lookup(b, addr >> MEM_PAGE_SHIFT);
}

bool mem_blocks_shared(const struct dla_mem *a, const struct dla_mem *b, uint64_t addr,
                       uint64_t len)
{
    while (len) {
        struct piece pc = piece_at(addr, len);
        const struct page *pa = page_lookup(a, pc.pno), *pb = page_lookup(b, pc.pno);
        if (pa == pb) { /* one table: every block of the page is shared */
            uint64_t to_page_end = MEM_PAGE_SIZE - (addr & (MEM_PAGE_SIZE - 1));
            pc.n = to_page_end < len ? to_page_end : len;
        } else if (pc.n == MEM_BLOCK_SIZE &&
                   (pa ? pa->blk[pc.blk] : NULL) != (pb ? pb->blk[pc.blk] : NULL)) {
            return false;
        }
        addr += pc.n;
        len -= pc.n;
    }
    return true;
}

enum mem_status mem_check_extent(const struct dla_mem *m, uint64_t addr, uint64_t len)
{
    if (!mem_in_range(m, addr, len))
        return MEM_OUT_OF_RANGE;
    if (len == 0)
        return MEM_OK;
    uint64_t pages = ((addr + len - 1) >> MEM_PAGE_SHIFT) - (addr >> MEM_PAGE_SHIFT) + 1;
    uint64_t room = (m->budget - mem_resident_bytes(m)) >> MEM_PAGE_SHIFT;
    return pages > room ? MEM_OVER_BUDGET : MEM_OK;
}

bool mem_page_resident(const struct dla_mem *m, uint64_t addr)
{
    return page_lookup(m, addr >> MEM_PAGE_SHIFT) != NULL;
}

uint64_t mem_resident_bytes(const struct dla_mem *m)
{
    return (uint64_t)m->used * MEM_PAGE_SIZE;
}

uint64_t mem_page_span(const struct dla_mem *m, uint64_t *lo, uint64_t *hi)
{
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].page) {
            first = m->slots[i].pno < first ? m->slots[i].pno : first;
            last = m->slots[i].pno > last ? m->slots[i].pno : last;
        }
    *lo = m->used ? first << MEM_PAGE_SHIFT : 0;
    *hi = m->used ? (last + 1) << MEM_PAGE_SHIFT : 0;
    return m->used;
}

uint64_t mem_bytes_apart(const struct dla_mem *m, const struct dla_mem *live)
{
    uint64_t n = 0;
    for (size_t i = 0; i < m->cap; i++) {
        const struct page *p = m->slots[i].page, *lp;
        if (!p || (lp = page_lookup(live, m->slots[i].pno)) == p)
            continue;
        /* a block held by k tables, each shared by its own clones: each of
         * those clones gets 1/k of it divided among the table's holders, so
         * the shares add up to the block */
        n += sizeof *p / p->refs;
        for (unsigned k = 0; k < MEM_BLOCKS; k++)
            if (p->blk[k] && (!lp || lp->blk[k] != p->blk[k]))
                n += sizeof *p->blk[k] / ((uint64_t)p->blk[k]->refs * p->refs);
    }
    return n;
}

const char *mem_status_str(enum mem_status s)
{
    switch (s) {
    case MEM_OK:
        return "ok";
    case MEM_OUT_OF_RANGE:
        return "address out of range";
    case MEM_OVER_BUDGET:
        return "memory budget exhausted";
    }
    return "?";
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void mem_each_page(const struct dla_mem *m, bool (*fn)(void *ctx, uint64_t base, const uint8_t *p),
                   void *ctx)
{
    if (m->used == 0)
        return;
    uint64_t *pnos = malloc(m->used * sizeof *pnos);
    if (!pnos)
        return;
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].page)
            pnos[n++] = m->slots[i].pno;
    qsort(pnos, n, sizeof *pnos, cmp_u64);
    uint8_t *bytes = malloc(MEM_PAGE_SIZE); /* each page gathered from its blocks */
    for (size_t i = 0; bytes && i < n; i++) {
        const struct page *p = page_lookup(m, pnos[i]);
        for (unsigned k = 0; k < MEM_BLOCKS; k++) {
            uint8_t *out = bytes + (size_t)k * MEM_BLOCK_SIZE;
            if (m->n_random && !p->blk[k])
                absent_block(m, pnos[i] << MEM_PAGE_SHIFT | (uint64_t)k << MEM_BLOCK_SHIFT, out);
            else
                memcpy(out, block_bytes(p, k), MEM_BLOCK_SIZE);
        }
        if (!fn(ctx, pnos[i] << MEM_PAGE_SHIFT, bytes))
            break;
    }
    free(bytes);
    free(pnos);
}

size_t mem_random_blocks(const struct dla_mem *m, uint64_t **out)
{
    *out = NULL;
    struct random_seen *v = m->seen;
    if (!v || !m->n_random)
        return 0;
    pthread_mutex_lock(&v->lock);
    uint64_t *bases = v->n ? malloc(v->n * sizeof *bases) : NULL;
    size_t n = 0;
    for (size_t i = 0; bases && i < v->cap; i++)
        if (v->slot[i] && overlaps_random(m, (v->slot[i] - 1) << MEM_BLOCK_SHIFT, MEM_BLOCK_SIZE))
            bases[n++] = (v->slot[i] - 1) << MEM_BLOCK_SHIFT;
    pthread_mutex_unlock(&v->lock);
    if (n)
        qsort(bases, n, sizeof *bases, cmp_u64);
    *out = bases;
    return n;
}

void mem_random_initial(const struct dla_mem *m, uint64_t base, uint8_t *out)
{
    initial_block(m, base & ~(uint64_t)(MEM_BLOCK_SIZE - 1), out);
}
