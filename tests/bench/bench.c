#include <stdio.h>

#include "bench.h"

int main(void)
{
    printf(
        "dladbg bench (every figure measured in this process; cycle figures are model-derived)\n");
    double sgemm = bench_conv();
    bench_trace();
    bench_nets(sgemm);
    return 0;
}
