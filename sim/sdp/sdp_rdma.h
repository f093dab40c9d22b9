/* SDP_RDMA: the SDP's read DMAs.  MRDMA reads the input cube of an offline
 * SDP layer; BRDMA, NRDMA and ERDMA read the operands of the BS, BN and EW
 * stages, per channel (PER_KERNEL) or per element (PER_ELEMENT), one or two
 * components (ALU, MUL or BOTH) of one or two bytes each. */
#ifndef DLA_SDP_RDMA_H
#define DLA_SDP_RDMA_H

#include "core/dla_priv.h"

/* The part of an SDP layer the read DMAs need to know. */
struct sdp_shape {
    uint32_t w, h;
    uint32_t cw;       /* channels computed: real channels padded to whole atoms */
    uint8_t proc_prec; /* enum sdp_prec: operand surfaces group atom / bpe channels */
    unsigned atom;     /* memory atom bytes */
};

enum sdp_operand_source { SDP_SRC_BS, SDP_SRC_BN, SDP_SRC_EW, SDP_SRC_COUNT };

/* The memory operands of one stage, as 16-bit values (one-byte operands
 * sign-extended). */
struct sdp_operands {
    bool want_alu, want_mul; /* the SDP stage takes these from memory */
    bool per_element;
    int16_t *alu, *mul; /* [c] per channel, [(c * h + y) * w + x] per element */
};

/* Read the input cube (offline SDP) as the RDMA's IN_PRECISION lays it out:
 * DLA_CUBE_INT values for int8/int16, DLA_CUBE_FP16 bit patterns for fp16.
 * False (diagnostic emitted) on a failed access or allocation. */
bool sdp_rdma_input(struct dla_exec *x, int rdma_group, const struct sdp_shape *s,
                    struct dla_cube *out);

/* Read the operands o->want_* ask for.  False (diagnostic emitted) when the
 * RDMA's configuration cannot deliver them or memory access fails. */
bool sdp_rdma_operands(struct dla_exec *x, int rdma_group, enum sdp_operand_source src,
                       const struct sdp_shape *s, struct sdp_operands *o);
void sdp_operands_free(struct sdp_operands *o);
/* The SDP takes nothing from memory for this source: report an enabled
 * stream (the guide: with the source REG the RDMA must not be enabled). */
void sdp_rdma_check_unused(struct dla_exec *x, int rdma_group, enum sdp_operand_source src);

static inline size_t sdp_operand_index(const struct sdp_operands *o, const struct sdp_shape *s,
                                       uint32_t c, uint32_t y, uint32_t x)
{
    return o->per_element ? ((size_t)c * s->h + y) * s->w + x : c;
}

/* Bytes per element of a precision. */
static inline unsigned sdp_prec_bytes(unsigned prec)
{
    return prec == 0 ? 1u : 2u;
}

#endif
