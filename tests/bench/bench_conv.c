#include <stdio.h>

#include "bench.h"

void bench_conv(void)
{
    printf("conv: not measured yet (the convolution model has not landed)\n");
}
