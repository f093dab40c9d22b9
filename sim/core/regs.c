/* Register access for the model's own code: by name, per group.  Units read
 * their configuration with these at launch; names are resolved against the
 * configuration's map so field widths that differ between nv_full and the
 * v2 map come out right without the unit knowing. */
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

/* The model asks for the same registers by the same names at every launch
 * and write (a run of a million one-line BDMA layers asked eleven million
 * times, each a search of the unit's registers by name): the answers of
 * this thread, by unit and the name's address, the name itself compared
 * before an answer is taken (a name may be built in a buffer). */
#define NAME_CACHE 128
struct named {
    const struct regdb_unit *unit;
    const char *name;
    const struct regdb_reg *reg;
    char text[48];
};
static _Thread_local struct named named_cache[NAME_CACHE];

static const struct regdb_reg *must_reg(const struct dla *d, enum dla_unit u, const char *reg)
{
    const struct regdb_unit *ru = d->udb[u];
    struct named *c = &named_cache[((uintptr_t)reg >> 3 ^ (uintptr_t)ru >> 6) % NAME_CACHE];
    if (ru && c->unit == ru && c->name == reg && strcmp(c->text, reg) == 0)
        return c->reg;
    const struct regdb_reg *r = ru ? regdb_reg_named(ru, reg) : NULL;
    if (!r)
        model_bug(d, u, reg, NULL);
    if (strlen(reg) < sizeof c->text) {
        *c = (struct named){.unit = ru, .name = reg, .reg = r};
        strcpy(c->text, reg);
    }
    return r;
}

static uint32_t *slot(struct dla *d, enum dla_unit u, int group, const struct regdb_reg *r)
{
    unsigned w = r->offset / 4u;
    return r->dual ? &d->dregs[u][group & 1][w] : &d->regs[u][w];
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
    const struct regdb_reg *r = must_reg(d, u, reg);
    return dla_reg_value(d, u, group, r->offset);
}

uint32_t dla_field(const struct dla *d, enum dla_unit u, int group, const char *reg,
                   const char *field)
{
    const struct regdb_reg *r = must_reg(d, u, reg);
    const struct regdb_field *f = regdb_field_named(r, field);
    if (!f)
        model_bug(d, u, reg, field);
    return regdb_field_get(f, dla_reg_value(d, u, group, r->offset));
}

bool dla_field_is(const struct dla *d, enum dla_unit u, int group, const char *reg,
                  const char *field, const char *enum_name)
{
    const struct regdb_reg *r = must_reg(d, u, reg);
    const struct regdb_field *f = regdb_field_named(r, field);
    uint32_t want;
    if (!f || !regdb_enum_value(f, enum_name, &want))
        model_bug(d, u, reg, field);
    return regdb_field_get(f, dla_reg_value(d, u, group, r->offset)) == want;
}

void dla_reg_hw_set(struct dla *d, enum dla_unit u, int group, const char *reg, uint32_t value)
{
    *slot(d, u, group, must_reg(d, u, reg)) = value;
}

void dla_field_hw_set(struct dla *d, enum dla_unit u, int group, const char *reg, const char *field,
                      uint32_t value)
{
    const struct regdb_reg *r = must_reg(d, u, reg);
    const struct regdb_field *f = regdb_field_named(r, field);
    if (!f)
        model_bug(d, u, reg, field);
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

enum dla_unit dla_unit_of(const struct dla *d, const struct regdb_unit *ru)
{
    for (int u = 0; u < DLA_U_COUNT; u++)
        if (d->udb[u] == ru)
            return (enum dla_unit)u;
    return DLA_U_NONE;
}
