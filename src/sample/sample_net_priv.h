/* The sample-network builder shared by sample_net.c (small samples and
 * serialisation), sample_layers.c (layers of any size and precision) and
 * sample_resnet.c (the ResNet-shaped samples).  Not an API: these files
 * only. */
#ifndef DLADBG_SAMPLE_NET_PRIV_H
#define DLADBG_SAMPLE_NET_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadable/fw_desc.h"

#define MAX_OPS      256
#define MAX_SURFACES 192
#define ATOM         32u         /* bytes of one memory atom */
#define ENTRY_BYTES  128u        /* nv_full CBUF entry */
#define BANK_BYTES   (32u << 10) /* nv_full CBUF bank */
#define CBUF_BANKS   16u

/* One feature surface (or raw buffer) of the network. */
struct surface {
    char name[32];
    uint16_t c, h, w;
    uint8_t bpe;  /* bytes per element of a feature: 1 int8, 2 int16 or fp16 */
    uint8_t prec; /* enum fw_precision of a feature */
    uint64_t size;
    uint8_t *data; /* NULL: allocated, not set */
    uint16_t flags;
};

struct net {
    struct fw_network nd;
    unsigned n_ops;
    struct fw_common_op deps[MAX_OPS];
    struct fw_op ops[MAX_OPS];
    bool has_lut;
    struct fw_lut lut;
    unsigned n_surfaces;
    struct surface surf[MAX_SURFACES];
    int output;       /* surface index of the network output, -1 none */
    int input;        /* surface index bound as input, -1 none */
    bool emu_softmax; /* append an EMU softmax task on the output */
    uint32_t seed;
    int last_op;                   /* the op added last (sample_layers.c), -1 none */
    int last_of_type[FW_OP_TYPES]; /* per op type, -1 none */
    bool overflow;                 /* more ops or surfaces than the limits */
};

/* Positions in the DLA task's address list. */
enum { A_NETWORK, A_OPS, A_SURFACES, A_DEPS, A_LUTS, A_DATA };

/* sample_net.c */
uint32_t next_random(struct net *n);
void net_init(struct net *n, uint32_t seed);
struct fw_cube cube_of(const struct net *n, int16_t index);
struct fw_cube flying(uint16_t c, uint16_t h, uint16_t w);
int add_op(struct net *n, uint8_t type);
void depend(struct net *n, int producer, int consumer, uint8_t event);
void fuse(struct net *n, int conv, int sdp);
int16_t add_raw(struct net *n, const char *name, uint64_t size, int lo, int hi);
uint16_t ceil_div(uint32_t a, uint32_t b);
void lrn_lut(struct net *n);
bool net_serialise(struct net *n, uint8_t **buf, size_t *len);

/* sample_layers.c: layers in one serial chain (every op waits for the one
 * added before it, so any earlier output may be read).  prec is
 * FW_PREC_INT8, FW_PREC_INT16 or FW_PREC_FP16 (convolutions: int8 or fp16). */
int16_t layer_feature(struct net *n, const char *name, uint16_t c, uint16_t h, uint16_t w,
                      uint8_t prec);
/* The input: int8 values in [-64, 63], int16 in [-4096, 4095] or fp16 in
 * [-1, 1). */
int16_t layer_input(struct net *n, uint16_t c, uint16_t h, uint16_t w, uint8_t prec);
/* Convolution k x k, stride, padding (k - 1) / 2 ... as given, seeded weights
 * (He-uniform for fp16, [-8, 8] for int8), then SDP: ReLU when relu, the
 * element-wise sum with `residual` (a feature of the output's shape, or -1)
 * before it, int8 outputs shifted right by `shift`.  Split into bands of
 * output rows when the input does not fit the CBUF.  Returns the output. */
int16_t layer_conv(struct net *n, int16_t in, uint16_t kernels, uint8_t k, uint8_t stride,
                   uint8_t pad, bool relu, int16_t residual, uint8_t shift);
/* Pooling k x k (max or average) with stride and padding. */
int16_t layer_pool(struct net *n, int16_t in, uint8_t k, uint8_t stride, uint8_t pad, bool max);
/* SDP from memory: in + other (a feature of the same shape), then ReLU. */
int16_t layer_sdp_sum(struct net *n, int16_t in, int16_t other);
/* CDP: local response normalisation over 5 channels with the samples' LUT. */
int16_t layer_lrn(struct net *n, int16_t in);

/* sample_resnet.c */
void build_resnet18(struct net *n);
void build_resnet50(struct net *n);

#endif
