/* DLA_HOT_CLONES before a hot loop's function: GCC on x86-64 compiles it
 * for the baseline, for x86-64-v3 (AVX2) and for x86-64-v4 (AVX-512), and
 * the loader picks one for the host, so the default build needs no -march
 * and the same binary runs anywhere.  Elsewhere (other compilers or
 * targets, and under ASan, whose interceptors do not mix with the ifunc
 * resolver) it is nothing.  Helpers the function calls should be static
 * inline so that they are compiled into each clone. */
#ifndef DLA_HOT_CLONES_H
#define DLA_HOT_CLONES_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define DLA_HOT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define DLA_HOT_CLONES
#endif

#endif
