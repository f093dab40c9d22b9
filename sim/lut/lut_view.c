/* Read-only view of the LUT RAM for the debugger (dla_lut_table in dla.h):
 * the access port itself cannot show a table without writing
 * S_LUT_ACCESS_CFG, which would change the state being looked at. */
#include "core/dla_priv.h"

size_t dla_lut_table(const struct dla *d, enum dla_unit u, bool lo, int16_t *out, size_t max)
{
    const struct dla_lut_ram *r = u == DLA_U_SDP   ? &d->lut_sdp
                                  : u == DLA_U_CDP ? &d->lut_cdp
                                                   : NULL;
    if (!r)
        return 0;
    const uint16_t *t = lo ? r->lo : r->le;
    size_t n = lo ? DLA_LUT_LO_ENTRIES : DLA_LUT_LE_ENTRIES;
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++)
        out[i] = (int16_t)t[i];
    return n;
}
