/* pk_cpu.c: CPU feature detection with the OS (XCR0) check. */
#include "pk_simd.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define PK_X86 1
#include <cpuid.h>
#endif

#ifndef PLANK_SIMD_MAX
#define PLANK_SIMD_MAX 2
#endif

const char *pk_simd_level_name(pk_simd_level level) {
    switch (level) {
    case PK_SIMD_SCALAR: return "scalar";
    case PK_SIMD_AVX2: return "avx2";
    case PK_SIMD_AVX512: return "avx512";
    }
    return "unknown";
}

#ifdef PK_X86
static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    /* The encoding of XGETBV, so no -mxsave is needed to assemble it. */
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif

static void detect_raw(pk_cpu *cpu) {
    cpu->detected = PK_SIMD_SCALAR;
    cpu->avx512vbmi = false;
    cpu->amd_core = false;
#ifdef PK_X86
    unsigned a, b, c, d;
    /* The vendor (leaf 0: EBX, EDX, ECX spell it): AMD's gathers are
     * microcoded, slower than one load per entry, and its AVX-512 DELTA
     * kernels slower than AVX2's (bench/README.md, "Dictionary gathers on
     * AMD", "DELTA kernels on AMD"). */
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        char v[13];
        memcpy(v, &b, 4);
        memcpy(v + 4, &d, 4);
        memcpy(v + 8, &c, 4);
        v[12] = 0;
        cpu->amd_core = strcmp(v, "AuthenticAMD") == 0 || strcmp(v, "HygonGenuine") == 0;
    }
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    bool osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return;
    uint64_t xcr0 = xgetbv0();
    bool ymm_os = (xcr0 & 0x6) == 0x6;        /* SSE and AVX state */
    bool zmm_os = (xcr0 & 0xe6) == 0xe6;      /* + opmask, ZMM_Hi256, Hi16_ZMM */
    if (!ymm_os) return;
    if (__get_cpuid_max(0, NULL) < 7) return;
    __cpuid_count(7, 0, a, b, c, d);
    bool avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
    bool f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
    bool vbmi = (c >> 1) & 1;
    if (!avx2 || !bmi2) return;
    cpu->detected = PK_SIMD_AVX2;
    if (zmm_os && f && dq && bw && vl) {
        cpu->detected = PK_SIMD_AVX512;
        cpu->avx512vbmi = vbmi;
    }
#endif
}

/* The process's one read of PLANK_SIMD and of the CPU (plank.h, "SIMD
 * dispatch"): written once under pthread_once, read-only afterwards, so
 * that opening a file neither calls getenv (not safe against a concurrent
 * setenv) nor runs CPUID again, and the level cannot change between two
 * objects of one process. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pk_cpu g_raw;
static pk_simd_level g_env_cap = PK_SIMD_AVX512;
static uint64_t g_env_window; /* PLANK_READ_WINDOW, 0 when unset */

static void read_once(void) {
    detect_raw(&g_raw);
    const char *s = getenv("PLANK_SIMD");
    if (s && strcmp(s, "scalar") == 0) g_env_cap = PK_SIMD_SCALAR;
    else if (s && strcmp(s, "avx2") == 0) g_env_cap = PK_SIMD_AVX2;
    s = getenv("PLANK_READ_WINDOW");
    if (s && *s >= '0' && *s <= '9') g_env_window = strtoull(s, NULL, 10);
}

uint64_t pk_env_read_window(void) {
    pthread_once(&g_once, read_once);
    return g_env_window;
}

void pk_cpu_detect_capped(pk_cpu *cpu, pk_simd_level cap) {
    pthread_once(&g_once, read_once);
    *cpu = g_raw;
    pk_simd_level lvl = cpu->detected;
    pk_simd_level e = g_env_cap;
    if (lvl > e) lvl = e;
    if (lvl > (pk_simd_level)PLANK_SIMD_MAX) lvl = (pk_simd_level)PLANK_SIMD_MAX;
    if (lvl > cap) lvl = cap;
    cpu->level = lvl;
    if (lvl != PK_SIMD_AVX512) cpu->avx512vbmi = false;
}

void pk_cpu_detect(pk_cpu *cpu) { pk_cpu_detect_capped(cpu, PK_SIMD_AVX512); }
