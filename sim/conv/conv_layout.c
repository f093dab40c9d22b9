/* Where feature data sits in CBUF for direct convolution.
 *
 * A slice is one input line of one batch.  Inside a slice, the channels of a
 * pixel are cut into groups of one entry (entry_bytes of channels, i.e.
 * entry_bytes / atom_bytes memory atoms); group j of pixel x is entry
 * j * width + x.  The last group may hold fewer atoms: then several pixels
 * share an entry, each in a slot of the next power of two of atoms (the cmod
 * packs 1 atom four to an entry and 2 atoms two to an entry on 4-atom
 * entries), which is what D_ENTRY_PER_SLICE counts. */
#include "conv.h"

static unsigned atoms_per_pixel(const struct conv_params *p, unsigned atom_bytes)
{
    return (unsigned)(((uint64_t)p->ext_c * p->bpe + atom_bytes - 1) / atom_bytes);
}

static unsigned pow2_at_least(unsigned v)
{
    unsigned r = 1;
    while (r < v)
        r <<= 1;
    return r;
}

/* Atoms of the partial last group (0: every group is full). */
static unsigned tail_atoms(const struct conv_params *p, unsigned entry_bytes, unsigned atom_bytes)
{
    unsigned per_entry = entry_bytes / atom_bytes;
    return atoms_per_pixel(p, atom_bytes) % per_entry;
}

unsigned conv_channel_groups(const struct conv_params *p, unsigned entry_bytes)
{
    return (unsigned)(((uint64_t)p->ext_c * p->bpe + entry_bytes - 1) / entry_bytes);
}

struct conv_slot conv_feature_slot(const struct conv_params *p, unsigned entry_bytes,
                                   unsigned atom_bytes, uint32_t x, unsigned cgroup)
{
    unsigned per_entry = entry_bytes / atom_bytes;
    unsigned full = atoms_per_pixel(p, atom_bytes) / per_entry;
    struct conv_slot s;
    if (cgroup < full) {
        s.entry = cgroup * p->ext_w + x;
        s.byte = 0;
        s.len = entry_bytes;
        return s;
    }
    unsigned tail = tail_atoms(p, entry_bytes, atom_bytes);
    unsigned slot_atoms = pow2_at_least(tail);
    unsigned share = per_entry / slot_atoms;
    s.entry = full * p->ext_w + x / share;
    s.byte = (x % share) * slot_atoms * atom_bytes;
    s.len = tail * atom_bytes;
    return s;
}
