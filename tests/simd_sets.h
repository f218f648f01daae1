/*
 * simd_sets.h: the kernel tables of every dispatch level this machine has
 * (detected, capped by PLANK_SIMD), for the DELTA / dictionary / BSS tests.
 */
#ifndef SIMD_SETS_H
#define SIMD_SETS_H

#include <stdio.h>

#include "simd/pk_kernels.h"

/* Prints which levels a test runs ("levels: scalar avx2") and, for every
 * level above them, why it is not tested (the CPU or OS lacks it, PLANK_SIMD
 * or PLANK_SIMD_MAX caps it, or the build has no x86 kernels), so that a run
 * on a machine without AVX2 does not pass silently as scalar against scalar. */
static inline void simd_print_levels(const pk_kernels *const *sets, int n) {
    fprintf(stderr, "levels:");
    for (int i = 0; i < n; i++) fprintf(stderr, " %s", pk_simd_level_name(sets[i]->level));
    fputc('\n', stderr);
    pk_cpu cpu;
    pk_cpu_detect(&cpu);
    for (int l = (int)sets[n - 1]->level + 1; l <= PK_SIMD_AVX512; l++) {
        const char *why;
#ifdef PK_KERNELS_X86
        why = (int)cpu.detected < l ? "not supported by this CPU (or not enabled by the OS)"
              : (int)cpu.level < l  ? "capped by PLANK_SIMD or PLANK_SIMD_MAX"
                                    : "no table of its own in this build";
#else
        why = "no kernels for it in this build (not x86-64)";
#endif
        fprintf(stderr, "%s: %s, not tested\n", pk_simd_level_name((pk_simd_level)l), why);
    }
}

/* Fills sets[] with the distinct tables of this machine (pk_kernels_available:
 * scalar first, at most PK_SIMD_AVX512 + 1) and returns how many; prints them
 * (simd_print_levels). */
static inline int simd_sets(const pk_kernels **sets) {
    int n = pk_kernels_available(sets);
    simd_print_levels(sets, n);
    return n;
}

#endif
