/*
 * simd_sets.h: the kernel tables of every dispatch level this machine has
 * (detected, capped by PLANK_SIMD), for the DELTA / dictionary / BSS tests.
 */
#ifndef SIMD_SETS_H
#define SIMD_SETS_H

#include <stdio.h>

#include "simd/pk_kernels.h"

/* Fills sets[] (scalar first; AVX-512 runs the AVX2 table, so it is left
 * out) and returns how many; prints them. */
static inline int simd_sets(const pk_kernels **sets) {
    pk_cpu cpu;
    pk_cpu_detect(&cpu);
    int n = 0;
    for (int l = PK_SIMD_SCALAR; l <= (int)cpu.level && l <= PK_SIMD_AVX2; l++) {
        sets[n] = pk_kernels_for((pk_simd_level)l);
        fprintf(stderr, "level: %s\n", pk_simd_level_name(sets[n]->level));
        n++;
    }
    return n;
}

#endif
