/* Register access for the model's own code: by name, per group.  Units read
 * their configuration with these at launch; names are resolved against the
 * configuration's map so field widths that differ between nv_full and the
 * v2 map come out right without the unit knowing. */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

/* A name the model asks for that the database lacks is a bug in the model,
 * never a user error: stop loudly rather than compute with zeros. */
static _Noreturn void model_bug(const struct dla *d, enum dla_unit u, const char *reg,
                                const char *field)
{
    fprintf(stderr, "dladbg: internal error: %s.%s%s%s is not in the %s register map\n",
            dla_unit_name(u), reg, field ? "." : "", field ? field : "", d->map->name);
    abort();
}

/* The model asks for the same registers and fields by the same names at
 * every launch and write (a run of a million one-line BDMA layers asked
 * eleven million times, each a search by name): the answers of this thread,
 * by owner (the unit a register is named in, the register a field is) and
 * the name's address, the name itself compared before an answer is taken (a
 * name may be built in a buffer). */
#define NAME_CACHE_BITS 9
#define NAME_CACHE (1u << NAME_CACHE_BITS)
struct named {
    const void *owner;
    const char *name;
    const void *found;
    char text[48];
};
/* Allocated at the thread's first lookup, not a thread-local array: the C
 * library zeroes every thread's thread-local storage when it starts the
 * thread, so the array's 36 KiB were resident in each worker the datapath
 * loops start (dla_parallel), and those never ask for a name (issue 34). */
static _Thread_local struct named *named_cache;
static pthread_key_t named_cache_key; /* frees a thread's table when it ends */
static pthread_once_t named_cache_once = PTHREAD_ONCE_INIT;
static _Thread_local unsigned long long searches;

unsigned long long dla_name_searches(void)
{
    return searches;
}

static void named_cache_key_create(void)
{
    (void)pthread_key_create(&named_cache_key, free);
}

/* This thread's table; NULL when memory ran out (every lookup searches). */
static struct named *named_table(void)
{
    if (!named_cache) {
        pthread_once(&named_cache_once, named_cache_key_create);
        named_cache = calloc(NAME_CACHE, sizeof *named_cache);
        if (named_cache)
            (void)pthread_setspecific(named_cache_key, named_cache);
    }
    return named_cache;
}

/* A multiplicative hash of both addresses (names are literals side by
 * side, and their low bits alone put a launch's few dozen names in the same
 * slots), then CACHE_WAYS slots from there: with one slot a name, two names
 * that met in it took turns to miss at every layer. */
#define CACHE_WAYS 4
static size_t cache_home(const void *owner, const char *name)
{
    uint64_t h = ((uint64_t)(uintptr_t)name ^ (uint64_t)(uintptr_t)owner * 31u) *
                 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> (64 - NAME_CACHE_BITS));
}

/* The slot of the name's ways that holds it, else the first free one, else
 * the first (nothing is ever removed, so a name is never past a free slot);
 * NULL without a table. */
static struct named *slot_for(const void *owner, const char *name)
{
    struct named *table = named_table();
    if (!table)
        return NULL;
    size_t home = cache_home(owner, name);
    for (size_t k = 0; k < CACHE_WAYS; k++) {
        struct named *c = &table[(home + k) % NAME_CACHE];
        if ((c->name == name && c->owner == owner) || !c->owner)
            return c;
    }
    return &table[home];
}

static const void *cached(const void *owner, const char *name)
{
    const struct named *c = slot_for(owner, name);
    return c && c->name == name && c->owner == owner && strcmp(c->text, name) == 0 ? c->found
                                                                                    : NULL;
}

static void remember(const void *owner, const char *name, const void *found)
{
    searches++;
    struct named *c = slot_for(owner, name);
    if (c && strlen(name) < sizeof c->text) {
        *c = (struct named){.owner = owner, .name = name, .found = found};
        strcpy(c->text, name);
    }
}

static const struct regdb_reg *must_reg(const struct dla *d, enum dla_unit u, const char *reg)
{
    const struct regdb_unit *ru = d->udb[u];
    const struct regdb_reg *r = ru ? cached(ru, reg) : NULL;
    if (r)
        return r;
    r = ru ? regdb_reg_named(ru, reg) : NULL;
    if (!r)
        model_bug(d, u, reg, NULL);
    remember(ru, reg, r);
    return r;
}

/* The field of a register must_reg found. */
static const struct regdb_field *must_field(const struct dla *d, enum dla_unit u,
                                            const struct regdb_reg *r, const char *reg,
                                            const char *field)
{
    const struct regdb_field *f = cached(r, field);
    if (f)
        return f;
    f = regdb_field_named(r, field);
    if (!f)
        model_bug(d, u, reg, field);
    remember(r, field, f);
    return f;
}

static uint32_t *slot(struct dla *d, enum dla_unit u, int group, const struct regdb_reg *r)
{
    unsigned w = r->offset / 4u;
    return r->dual ? &d->dregs[u][group & 1][w] : &d->regs[u][w];
}

/* The value of a register already found: no second search by its offset. */
static uint32_t value_of(const struct dla *d, enum dla_unit u, int group, const struct regdb_reg *r)
{
    unsigned w = r->offset / 4u;
    return r->dual ? d->dregs[u][group & 1][w] : d->regs[u][w];
}

uint32_t dla_reg_value(const struct dla *d, enum dla_unit u, int group, uint16_t offset)
{
    const struct regdb_reg *r = d->udb[u] ? regdb_reg_in(d->udb[u], offset) : NULL;
    if (!r)
        return 0;
    return r->dual ? d->dregs[u][group & 1][offset / 4u] : d->regs[u][offset / 4u];
}

uint32_t dla_reg(const struct dla *d, enum dla_unit u, int group, const char *reg)
{
    return value_of(d, u, group, must_reg(d, u, reg));
}

uint32_t dla_field(const struct dla *d, enum dla_unit u, int group, const char *reg,
                   const char *field)
{
    const struct regdb_reg *r = must_reg(d, u, reg);
    const struct regdb_field *f = must_field(d, u, r, reg, field);
    return regdb_field_get(f, value_of(d, u, group, r));
}

bool dla_field_is(const struct dla *d, enum dla_unit u, int group, const char *reg,
                  const char *field, const char *enum_name)
{
    const struct regdb_reg *r = must_reg(d, u, reg);
    const struct regdb_field *f = must_field(d, u, r, reg, field);
    uint32_t want;
    if (!regdb_enum_value(f, enum_name, &want))
        model_bug(d, u, reg, field);
    return regdb_field_get(f, value_of(d, u, group, r)) == want;
}

void dla_reg_hw_set(struct dla *d, enum dla_unit u, int group, const char *reg, uint32_t value)
{
    *slot(d, u, group, must_reg(d, u, reg)) = value;
}

void dla_field_hw_set(struct dla *d, enum dla_unit u, int group, const char *reg, const char *field,
                      uint32_t value)
{
    const struct regdb_reg *r = must_reg(d, u, reg);
    const struct regdb_field *f = must_field(d, u, r, reg, field);
    uint32_t *p = slot(d, u, group, r);
    *p = regdb_field_set(f, *p, value);
}

uint64_t dla_reg_addr64(const struct dla *d, enum dla_unit u, int group, const char *high,
                        const char *low)
{
    return ((uint64_t)dla_reg(d, u, group, high) << 32) | dla_reg(d, u, group, low);
}

int dla_producer_group(const struct dla *d, enum dla_unit u)
{
    if (u >= DLA_U_COUNT || d->off_pointer[u] == 0xffff)
        return 0;
    return (int)(d->regs[u][d->off_pointer[u] / 4u] & 1u);
}

int dla_consumer_group(const struct dla *d, enum dla_unit u)
{
    if (u >= DLA_U_COUNT || d->off_pointer[u] == 0xffff)
        return 0;
    return (int)((d->regs[u][d->off_pointer[u] / 4u] >> 16) & 1u);
}

/* The hardware's consumer pointer moves to the other group when an operation ends. */
void dla_flip_consumer(struct dla *d, enum dla_unit u)
{
    if (d->off_pointer[u] != 0xffff)
        d->regs[u][d->off_pointer[u] / 4u] ^= 1u << 16;
}

bool dla_op_enabled(const struct dla *d, enum dla_unit u, int group)
{
    if (u >= DLA_U_COUNT || !d->udb[u] || d->udb[u]->op_enable == 0xffff)
        return false;
    return d->dregs[u][group & 1][d->udb[u]->op_enable / 4u] & 1u;
}

void dla_op_clear(struct dla *d, enum dla_unit u, int group)
{
    if (d->udb[u] && d->udb[u]->op_enable != 0xffff)
        d->dregs[u][group & 1][d->udb[u]->op_enable / 4u] &= ~1u;
}

const struct regdb_unit *dla_unit_db(const struct dla *d, enum dla_unit u)
{
    return u < DLA_U_COUNT ? d->udb[u] : NULL;
}

bool dla_unit_present(const struct dla *d, enum dla_unit u)
{
    return u < DLA_U_COUNT && d->present[u];
}

enum dla_unit dla_unit_of(const struct dla *d, const struct regdb_unit *ru)
{
    for (int u = 0; u < DLA_U_COUNT; u++)
        if (d->udb[u] == ru)
            return (enum dla_unit)u;
    return DLA_U_NONE;
}
