/*
 * simd_sets.h: the kernel tables of every dispatch level this machine has
 * (detected, capped by PLANK_SIMD), for the DELTA / dictionary / BSS tests.
 */
#ifndef SIMD_SETS_H
#define SIMD_SETS_H

#include <stdio.h>

#include "simd/pk_kernels.h"

/* Fills sets[] with the distinct tables of this machine (pk_kernels_available:
 * scalar first, at most PK_SIMD_AVX512 + 1) and returns how many; prints them. */
static inline int simd_sets(const pk_kernels **sets) {
    int n = pk_kernels_available(sets);
    for (int i = 0; i < n; i++) fprintf(stderr, "level: %s\n", pk_simd_level_name(sets[i]->level));
    return n;
}

#endif
