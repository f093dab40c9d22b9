/* CONV_BUF: banks of entries holding feature data and weights. */
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

struct cbuf {
    unsigned banks;
    struct dla_cbuf_bank bank[64];
};

struct cbuf *cbuf_create(const struct dla_config *cfg)
{
    struct cbuf *c = calloc(1, sizeof *c);
    if (c)
        c->banks = cfg->cbuf_banks;
    if (c)
        cbuf_reset(c);
    return c;
}

struct cbuf *cbuf_clone(const struct cbuf *c)
{
    struct cbuf *n = malloc(sizeof *n);
    if (n)
        *n = *c;
    return n;
}

void cbuf_destroy(struct cbuf *c)
{
    free(c);
}

void cbuf_reset(struct cbuf *c)
{
    for (unsigned i = 0; i < c->banks; i++)
        c->bank[i] = (struct dla_cbuf_bank){.layer = -1};
}

size_t cbuf_describe(const struct cbuf *c, struct dla_cbuf_bank *out, size_t max)
{
    size_t n = c->banks < max ? c->banks : max;
    memcpy(out, c->bank, n * sizeof *out);
    return c->banks;
}

size_t dla_cbuf_banks(const struct dla *d, struct dla_cbuf_bank *out, size_t max)
{
    return cbuf_describe(d->cbuf, out, max);
}
