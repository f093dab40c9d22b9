/* The programming-guide rules the model checks: one row per rule id that a
 * unit passes to dla_rule(), with the unit, the guide section the rule comes
 * from and what the guide asks, in our words.  Each unit keeps its rows
 * beside its code and hands them over in its unit table entry (.rules);
 * this file numbers them all.  dla_rule() counts every hit here, so "info
 * rules" can say how often each fired; the counts live in the model's state
 * and follow checkpoints and resets.
 *
 * Sections: "NVDLA v1 programming guide" (BDMA, Rubik, convolution pipeline,
 * SDP, PDP, CDP programming and its list of limitations) and "LUT
 * programming" (the LUT chapter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_table.h"

/* Every entry's rows, in table order (which "info rules" lists), indexed
 * once before main: the table is constant data. */
static const struct dla_rule_info *rows[DLA_MAX_RULES];
static size_t n_rows;

__attribute__((constructor)) static void index_rules(void)
{
    for (size_t i = 0; dla_unit_table[i]; i++) {
        const struct dla_unit_entry *e = dla_unit_table[i];
        for (size_t k = 0; k < e->n_rules; k++) {
            if (n_rows == DLA_MAX_RULES) {
                fprintf(stderr, "dladbg: more rule rows than DLA_MAX_RULES (%s)\n", e->name);
                abort(); /* their hits would have no counter: raise DLA_MAX_RULES */
            }
            rows[n_rows++] = &e->rules[k];
        }
    }
}

size_t dla_rule_count(void)
{
    return n_rows;
}

const struct dla_rule_info *dla_rule_info(size_t i)
{
    return i < dla_rule_count() ? rows[i] : NULL;
}

long dla_rule_find(const char *id)
{
    for (size_t i = 0; id && i < dla_rule_count(); i++)
        if (!strcmp(rows[i]->id, id))
            return (long)i;
    return -1;
}

uint64_t dla_rule_hits(const struct dla *d, size_t i)
{
    return i < dla_rule_count() ? d->rule_hits[i] : 0;
}

void rule_count_hit(struct dla *d, const char *id)
{
    long i = dla_rule_find(id);
    if (i >= 0)
        d->rule_hits[i]++;
}
