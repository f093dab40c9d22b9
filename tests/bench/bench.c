#include <stdio.h>

#include "bench.h"

int main(void)
{
    printf(
        "dladbg bench (every figure measured in this process; cycle figures are model-derived)\n");
    bench_conv();
    bench_trace();
    bench_calibration();
    return 0;
}
