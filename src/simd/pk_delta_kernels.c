/*
 * pk_delta_kernels.c: DELTA_BINARY_PACKED miniblock kernels, one body per bit
 * width 0..64 stamped out by macro (the width is a compile-time constant in
 * each copy, so every shift, mask and byte offset folds), for scalar code and
 * AVX2. Width 0 is an arithmetic sequence: no bits are extracted.
 *
 * A kernel call decodes whole groups of 32 values; the caller (pk_delta.c)
 * handles partial groups and the bounds: a group is 4*bw bytes and the
 * kernels may read up to PK_DELTA_KERNEL_SLACK bytes past the last group.
 * All arithmetic is unsigned, so wrapping is defined.
 */
#include "pk_decode_kernels.h"

#define PK_BW_0_32(X)                                                                         \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) \
    X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)  \
    X(32)
#define PK_BW_33_64(X)                                                                        \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)  \
    X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62)  \
    X(63) X(64)
#define PK_BW_ALL(X) PK_BW_0_32(X) PK_BW_33_64(X)


/* ---- scalar ------------------------------------------------------------------------- */

/* Value j (0..31) of a group of width bw: one unaligned 8-byte load (two
 * when the value straddles it, widths 58..64), reading at most 8 bytes past
 * the group. */
PK_INLINE uint64_t group_get(const uint8_t *in, unsigned j, const int bw) {
    if (bw == 0) return 0;
    unsigned bit = j * (unsigned)bw, sh = bit & 7;
    const uint8_t *p = in + (bit >> 3);
    uint64_t v = pk_load_u64(p) >> sh;
    if (sh && (unsigned)bw + sh > 64) v |= (uint64_t)p[8] << (64 - sh);
    return bw == 64 ? v : v & ((UINT64_C(1) << (bw & 63)) - 1);
}

PK_INLINE uint64_t delta64_body(const uint8_t *in, size_t groups, uint64_t md, uint64_t last,
                                uint8_t *out, const int bw) {
    for (size_t g = 0; g < groups; g++, in += 4 * bw, out += 32 * 8) {
#if defined(__GNUC__)
#pragma GCC unroll 32
#endif
        for (unsigned j = 0; j < 32; j++) {
            last += md + group_get(in, j, bw);
            pk_store_u64(out + 8 * j, last);
        }
    }
    return last;
}

PK_INLINE uint32_t delta32_body(const uint8_t *in, size_t groups, uint32_t md, uint32_t last,
                                uint8_t *out, const int bw) {
    for (size_t g = 0; g < groups; g++, in += 4 * bw, out += 32 * 4) {
#if defined(__GNUC__)
#pragma GCC unroll 32
#endif
        for (unsigned j = 0; j < 32; j++) {
            last += md + (uint32_t)group_get(in, j, bw);
            pk_store_u32(out + 4 * j, last);
        }
    }
    return last;
}

typedef uint64_t (*delta64_fixed)(const uint8_t *, size_t, uint64_t, uint64_t, uint8_t *);
typedef uint32_t (*delta32_fixed)(const uint8_t *, size_t, uint32_t, uint32_t, uint8_t *);

#define fn_STAMP64(bw)                                                                       \
    static uint64_t s64_##bw(const uint8_t *in, size_t g, uint64_t md, uint64_t last,        \
                             uint8_t *out) {                                                 \
        return delta64_body(in, g, md, last, out, bw);                                       \
    }
#define fn_STAMP32(bw)                                                                       \
    static uint32_t s32_##bw(const uint8_t *in, size_t g, uint32_t md, uint32_t last,        \
                             uint8_t *out) {                                                 \
        return delta32_body(in, g, md, last, out, bw);                                       \
    }
PK_BW_ALL(fn_STAMP64)
PK_BW_ALL(fn_STAMP32)
#define REF_S64(bw) s64_##bw,
#define REF_S32(bw) s32_##bw,
static const delta64_fixed scalar64[65] = {PK_BW_ALL(REF_S64)};
static const delta32_fixed scalar32[65] = {PK_BW_ALL(REF_S32)};

uint64_t pk_delta_i64_scalar(const uint8_t *in, int bw, size_t groups, uint64_t min_delta,
                             uint64_t last, uint8_t *out) {
    return scalar64[(unsigned)bw <= 64 ? bw : 0](in, groups, min_delta, last, out);
}

uint32_t pk_delta_i32_scalar(const uint8_t *in, int bw, size_t groups, uint32_t min_delta,
                             uint32_t last, uint8_t *out) {
    return scalar32[(unsigned)bw <= 64 ? bw : 0](in, groups, min_delta, last, out);
}

/* ---- AVX2 ----------------------------------------------------------------------------- */

#ifdef PK_HAVE_X86_KERNELS
#include <immintrin.h>

#define PK_AVX2_FN __attribute__((target("avx2,bmi2")))
#define PK_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,bmi2")))

/* Bit position of value j (0..3) of the 128-bit lane L of an 8-value chunk;
 * lane 1 is loaded from byte (4*bw)/8, so it starts (4*bw)%8 bits in. */
#define LBIT(L, j) ((L) * ((4 * bw) % 8) + (j) * bw)
/* Shuffle index of byte k of value j's dword (0x80: zero). */
#define SIX(L, j, k) (char)(LBIT(L, j) / 8 + (k) <= 15 ? LBIT(L, j) / 8 + (k) : 0x80)
#define SIX4(L, j, k0)                                                                       \
    SIX(L, j, k0), SIX(L, j, k0 + 1), SIX(L, j, k0 + 2), SIX(L, j, k0 + 3)
#define SIX5(L, j) (char)(LBIT(L, j) / 8 + 4 <= 15 ? LBIT(L, j) / 8 + 4 : 0x80), \
    (char)0x80, (char)0x80, (char)0x80

/* The 8 values (bw <= 32) of the bw bytes at p as 32-bit lanes. Reads 16
 * bytes at p and at p + (4*bw)/8: at most 16 bytes past the chunk. */
PK_AVX2_INLINE __m256i unpack8(const uint8_t *p, const int bw) {
    __m256i x = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p)),
        _mm_loadu_si128((const __m128i *)(const void *)(p + (4 * bw) / 8)), 1);
    const __m256i ctl = _mm256_setr_epi8(SIX4(0, 0, 0), SIX4(0, 1, 0), SIX4(0, 2, 0),
                                         SIX4(0, 3, 0), SIX4(1, 0, 0), SIX4(1, 1, 0),
                                         SIX4(1, 2, 0), SIX4(1, 3, 0));
    const __m256i shr = _mm256_setr_epi32(LBIT(0, 0) % 8, LBIT(0, 1) % 8, LBIT(0, 2) % 8,
                                          LBIT(0, 3) % 8, LBIT(1, 0) % 8, LBIT(1, 1) % 8,
                                          LBIT(1, 2) % 8, LBIT(1, 3) % 8);
    __m256i v = _mm256_srlv_epi32(_mm256_shuffle_epi8(x, ctl), shr);
    if (bw > 25) {
        /* A value may reach into a fifth byte: shift it in from the left. */
        const __m256i ctl5 = _mm256_setr_epi8(SIX5(0, 0), SIX5(0, 1), SIX5(0, 2), SIX5(0, 3),
                                              SIX5(1, 0), SIX5(1, 1), SIX5(1, 2), SIX5(1, 3));
        const __m256i shl = _mm256_sub_epi32(_mm256_set1_epi32(32), shr);
        v = _mm256_or_si256(v, _mm256_sllv_epi32(_mm256_shuffle_epi8(x, ctl5), shl));
    }
    if (bw < 32) v = _mm256_and_si256(v, _mm256_set1_epi32((int)((1u << (bw & 31)) - 1)));
    return v;
}

/* Inclusive prefix sum of 8 uint32 lanes. The carry (the previous value in
 * all lanes) is added by the caller, so that the only loop-carried
 * dependency is one add per 8 values. */
PK_AVX2_INLINE __m256i scan32(__m256i v) {
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
    __m256i t = _mm256_shuffle_epi32(v, 0xFF);
    t = _mm256_permute2x128_si256(t, t, 0x08);
    return _mm256_add_epi32(v, t);
}

PK_AVX2_INLINE uint32_t avx2_delta32_body(const uint8_t *in, size_t groups, uint32_t md,
                                          uint32_t last, uint8_t *out, const int bw) {
    const __m256i vmd = _mm256_set1_epi32((int)md);
    const __m256i seven = _mm256_set1_epi32(7);
    __m256i carry = _mm256_set1_epi32((int)last);
    if (bw == 0) {
        /* last + md*(j+1): the sequence, 8 values per step of 8*md. */
        const __m256i seq = _mm256_mullo_epi32(vmd, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8));
        const __m256i step = _mm256_set1_epi32((int)(md * 8u));
        for (size_t i = 0; i < groups * 4; i++, out += 32) {
            _mm256_storeu_si256((__m256i *)(void *)out, _mm256_add_epi32(carry, seq));
            carry = _mm256_add_epi32(carry, step);
        }
        return last + (uint32_t)(groups * 32) * md;
    }
    for (size_t i = 0; i < groups * 4; i++, in += bw, out += 32) {
        __m256i s = scan32(_mm256_add_epi32(unpack8(in, bw), vmd));
        _mm256_storeu_si256((__m256i *)(void *)out, _mm256_add_epi32(s, carry));
        carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(s, seven));
    }
    return (uint32_t)_mm256_cvtsi256_si32(carry);
}

/* INT64, width 0 only: the arithmetic sequence, 4 values per store. For
 * widths 1..32 an AVX2 version (unpack8, widen, two 64-bit scans per 8
 * values) measured slower than the scalar stamps on Zen 3 (about 1.5 vs
 * 2.3 G values/s), so the table keeps the scalar ones there. */
PK_AVX2_FN static uint64_t a64_0(const uint8_t *in, size_t groups, uint64_t md, uint64_t last,
                                 uint8_t *out) {
    (void)in;
    __m256i carry = _mm256_set1_epi64x((long long)last);
    const __m256i seq = _mm256_setr_epi64x((long long)md, (long long)(md * 2),
                                           (long long)(md * 3), (long long)(md * 4));
    const __m256i step = _mm256_set1_epi64x((long long)(md * 4));
    for (size_t i = 0; i < groups * 8; i++, out += 32) {
        _mm256_storeu_si256((__m256i *)(void *)out, _mm256_add_epi64(carry, seq));
        carry = _mm256_add_epi64(carry, step);
    }
    return last + (uint64_t)(groups * 32) * md;
}

#define fn_AVX32(bw)                                                                         \
    PK_AVX2_FN static uint32_t a32_##bw(const uint8_t *in, size_t g, uint32_t md,            \
                                        uint32_t last, uint8_t *out) {                       \
        return avx2_delta32_body(in, g, md, last, out, bw);                                  \
    }
PK_BW_0_32(fn_AVX32)
#define REF_A32(bw) a32_##bw,
/* Widths above 32 (rare: INT32 columns with 33-bit deltas, or INT64 data
 * with huge deltas), and INT64 widths 1..32 (see a64_0), use the scalar
 * stamps. */
#define REF_S64_(bw) s64_##bw,
#define REF_S32_(bw) s32_##bw,
#define PK_BW_1_32(X)                                                                         \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17)  \
    X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)
static const delta64_fixed avx2_64[65] = {a64_0, PK_BW_1_32(REF_S64_) PK_BW_33_64(REF_S64_)};
static const delta32_fixed avx2_32[65] = {PK_BW_0_32(REF_A32) PK_BW_33_64(REF_S32_)};

uint64_t pk_delta_i64_avx2(const uint8_t *in, int bw, size_t groups, uint64_t min_delta,
                           uint64_t last, uint8_t *out) {
    return avx2_64[(unsigned)bw <= 64 ? bw : 0](in, groups, min_delta, last, out);
}

uint32_t pk_delta_i32_avx2(const uint8_t *in, int bw, size_t groups, uint32_t min_delta,
                           uint32_t last, uint8_t *out) {
    return avx2_32[(unsigned)bw <= 64 ? bw : 0](in, groups, min_delta, last, out);
}
#endif /* PK_HAVE_X86_KERNELS */
