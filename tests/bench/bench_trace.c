#include <stdio.h>

#include "bench.h"

void bench_trace(void)
{
    printf("trace: not measured yet (the event ring buffer has not landed)\n");
}
