/*
 * pk_simd.h: run-time CPU dispatch for the decoding kernels.
 *
 * The CPU is detected with CPUID and the OS support of the wider registers
 * is checked in XCR0 (XGETBV) before AVX2 or AVX-512 is used. The level can
 * be capped by the environment variable PLANK_SIMD=scalar|avx2|avx512 and by
 * the build option PLANK_SIMD_MAX (CMake: PLANK_SIMD_MAX=scalar|avx2|avx512),
 * so every path is testable on one machine. The CPU and PLANK_SIMD are read
 * once per process, at the first detection (the only state plank keeps
 * beyond its objects: written once, then read-only); a reader or writer
 * takes its kernels at open and keeps them.
 *
 * Depends on: common.
 */
#ifndef PK_SIMD_H
#define PK_SIMD_H

#include "../common/pk_common.h"

typedef enum pk_simd_level {
    PK_SIMD_SCALAR = 0,
    PK_SIMD_AVX2 = 1,   /* AVX2 + BMI2 (Haswell and later, Zen) */
    PK_SIMD_AVX512 = 2  /* AVX-512 F, BW, VL, DQ (+ VBMI recorded separately) */
} pk_simd_level;

typedef struct pk_cpu {
    pk_simd_level level;  /* the level to use: detected, then capped */
    pk_simd_level detected;
    bool avx512vbmi;      /* usable only when level == PK_SIMD_AVX512 */
    /* An AMD (or Hygon) core: its vpgatherdd / vpgatherqq are microcoded
     * (scalar loads are faster) and its AVX-512 DELTA kernels measured slower
     * than the AVX2 ones (pk_kernels_for_cpu: the AMD table) */
    bool amd_core;
} pk_cpu;

/* The CPU's level with the caps applied (PLANK_SIMD, PLANK_SIMD_MAX). */
void pk_cpu_detect(pk_cpu *cpu);
/* PLANK_READ_WINDOW as read with PLANK_SIMD, once per process (0: unset). */
uint64_t pk_env_read_window(void);
/* As pk_cpu_detect, further capped at `cap` (for tests sweeping levels). */
void pk_cpu_detect_capped(pk_cpu *cpu, pk_simd_level cap);
const char *pk_simd_level_name(pk_simd_level level);

#endif /* PK_SIMD_H */
