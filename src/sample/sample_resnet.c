/* ResNet-shaped sample networks (sample_net_priv.h): the layer shapes of
 * ResNet-18 and ResNet-50 on a 224x224x3 ImageNet input (stem 7x7/2 and max
 * pool 3x3/2, four stages, global average pool, a 1000-way classifier as a
 * 1x1 convolution) with seeded weights and no batch normalisation (its scale
 * and shift fold into the convolution).  For speed and memory figures, not
 * for accuracy: the classes mean nothing. */
#include "sample_net_priv.h"

static const uint16_t widths[4] = {64, 128, 256, 512};

/* int8: the shift that keeps a layer of fan-in inputs in range. */
static uint8_t shift_for(uint32_t fan_in)
{
    uint8_t s = 6;
    while (fan_in > 1) {
        fan_in >>= 2;
        s++;
    }
    return s;
}

static int16_t stem(struct net *n, uint8_t prec)
{
    int16_t x = layer_input(n, 3, 224, 224, prec);
    x = layer_conv(n, x, 64, 7, 2, 3, true, -1, shift_for(7 * 7 * 3));
    return layer_pool(n, x, 3, 2, 1, true);
}

static void head(struct net *n, int16_t x)
{
    x = layer_pool(n, x, 7, 7, 0, false);
    uint16_t c = n->surf[x - A_DATA].c;
    int16_t out = layer_conv(n, x, 1000, 1, 1, 0, false, -1, shift_for(c));
    n->output = out - A_DATA;
}

/* Two 3x3 convolutions and the shortcut (a 1x1 convolution when the shape
 * changes). */
static int16_t basic_block(struct net *n, int16_t x, uint16_t width, uint8_t stride)
{
    int16_t shortcut = x;
    uint16_t c = n->surf[x - A_DATA].c;
    if (stride != 1 || c != width)
        shortcut = layer_conv(n, x, width, 1, stride, 0, false, -1, shift_for(c));
    int16_t y = layer_conv(n, x, width, 3, stride, 1, true, -1, shift_for(9u * c));
    return layer_conv(n, y, width, 3, 1, 1, true, shortcut, shift_for(9u * width));
}

/* 1x1 down to width, 3x3 (carrying the stride), 1x1 up to 4 x width. */
static int16_t bottleneck(struct net *n, int16_t x, uint16_t width, uint8_t stride)
{
    int16_t shortcut = x;
    uint16_t c = n->surf[x - A_DATA].c, out_c = (uint16_t)(4 * width);
    if (stride != 1 || c != out_c)
        shortcut = layer_conv(n, x, out_c, 1, stride, 0, false, -1, shift_for(c));
    int16_t y = layer_conv(n, x, width, 1, 1, 0, true, -1, shift_for(c));
    y = layer_conv(n, y, width, 3, stride, 1, true, -1, shift_for(9u * width));
    return layer_conv(n, y, out_c, 1, 1, 0, true, shortcut, shift_for(width));
}

void build_resnet18(struct net *n)
{
    net_init(n, 0x12e518u);
    int16_t x = stem(n, FW_PREC_FP16);
    for (int stage = 0; stage < 4; stage++)
        for (int b = 0; b < 2; b++)
            x = basic_block(n, x, widths[stage], stage > 0 && b == 0 ? 2 : 1);
    head(n, x);
}

void build_resnet50(struct net *n)
{
    static const int blocks[4] = {3, 4, 6, 3};
    net_init(n, 0x12e550u);
    int16_t x = stem(n, FW_PREC_INT8);
    for (int stage = 0; stage < 4; stage++)
        for (int b = 0; b < blocks[stage]; b++)
            x = bottleneck(n, x, widths[stage], stage > 0 && b == 0 ? 2 : 1);
    head(n, x);
}
