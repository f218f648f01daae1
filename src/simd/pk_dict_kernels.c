/*
 * pk_dict_kernels.c: dictionary gathers of 4- and 8-byte values by index.
 *
 * Hostile input: indices come from the page. Every kernel checks all n
 * indices against the dictionary size before it reads the dictionary (a
 * vectorised max in the AVX2 version; in the AVX-512 one a compare whose mask
 * also masks the gather), so an out-of-range index returns false without any
 * out-of-bounds read.
 */
#include "pk_decode_kernels.h"

/* Largest index (0 for n == 0). Four running maxima: baseline x86-64 (SSE2)
 * has no unsigned 32-bit max to vectorise with, and one chain of compares
 * costs a cycle per index. */
static uint32_t max_index(const uint32_t *idx, size_t n) {
    uint32_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        m0 = idx[i] > m0 ? idx[i] : m0;
        m1 = idx[i + 1] > m1 ? idx[i + 1] : m1;
        m2 = idx[i + 2] > m2 ? idx[i + 2] : m2;
        m3 = idx[i + 3] > m3 ? idx[i + 3] : m3;
    }
    for (; i < n; i++) m0 = idx[i] > m0 ? idx[i] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    return m2 > m0 ? m2 : m0;
}

PK_INLINE bool indices_ok(uint32_t max, size_t n, int64_t count) {
    return n == 0 || (int64_t)max < count;
}

/* Four independent loads, then four stores: the loads issue together (two
 * or three per cycle), and compilers keep this form scalar. The one-value
 * loop was auto-vectorised into element inserts and ran at half the speed
 * (1.3-1.4 G/s against 2.4-2.9 G/s for 4-byte values, 1000 entries, Zen 3);
 * the same loop also beats vpgatherdd/vpgatherqq there (see the AVX2
 * kernels). */
#define PK_GATHER_BODY(T, W)                                                   \
    do {                                                                       \
        size_t i = 0;                                                          \
        for (; i + 4 <= n; i += 4) {                                           \
            T a, b, c, e;                                                      \
            memcpy(&a, dict + (W) * (size_t)idx[i], (W));                      \
            memcpy(&b, dict + (W) * (size_t)idx[i + 1], (W));                  \
            memcpy(&c, dict + (W) * (size_t)idx[i + 2], (W));                  \
            memcpy(&e, dict + (W) * (size_t)idx[i + 3], (W));                  \
            memcpy(out + (W) * i, &a, (W));                                    \
            memcpy(out + (W) * (i + 1), &b, (W));                              \
            memcpy(out + (W) * (i + 2), &c, (W));                              \
            memcpy(out + (W) * (i + 3), &e, (W));                              \
        }                                                                      \
        for (; i < n; i++) memcpy(out + (W) * i, dict + (W) * (size_t)idx[i], (W)); \
    } while (0)

PK_INLINE void gather32_loads(const uint8_t *dict, const uint32_t *idx, size_t n, uint8_t *out) {
    PK_GATHER_BODY(uint32_t, 4);
}

PK_INLINE void gather64_loads(const uint8_t *dict, const uint32_t *idx, size_t n, uint8_t *out) {
    PK_GATHER_BODY(uint64_t, 8);
}

bool pk_dict_gather32_scalar(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out) {
    if (!indices_ok(max_index(idx, n), n, count)) return false;
    gather32_loads(dict, idx, n, out);
    return true;
}

bool pk_dict_gather64_scalar(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out) {
    if (!indices_ok(max_index(idx, n), n, count)) return false;
    gather64_loads(dict, idx, n, out);
    return true;
}

#ifdef PK_HAVE_X86_KERNELS
#include <immintrin.h>

#define PK_AVX2_FN __attribute__((target("avx2,bmi2")))

PK_AVX2_FN static uint32_t max_index_avx2(const uint32_t *idx, size_t n) {
    __m256i m = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        m = _mm256_max_epu32(m, _mm256_loadu_si256((const __m256i *)(const void *)(idx + i)));
    __m128i h = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0x4E));
    h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0xB1));
    uint32_t r = (uint32_t)_mm_cvtsi128_si32(h);
    for (; i < n; i++) r = idx[i] > r ? idx[i] : r;
    return r;
}

/* Dictionaries of up to 16 (4-byte) / 8 (8-byte) entries live in two
 * registers and are looked up with permutes. Larger ones take the scalar
 * loads: vpgatherdd/vpgatherqq are microcoded on Zen 3 and measured slower
 * than four independent loads (4-byte, 1000 entries: 1.6-2.1 against
 * 2.4-2.9 G/s; 8-byte: 1.0 against 1.8 G/s). The indices are all known to
 * be < count here. */
PK_AVX2_FN bool pk_dict_gather32_avx2(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                      size_t n, uint8_t *out) {
    if (!indices_ok(max_index_avx2(idx, n), n, count)) return false;
    size_t i = 0;
    if (count <= 16) {
        uint8_t small[64] = {0};
        memcpy(small, dict, (size_t)count * 4);
        const __m256i d0 = _mm256_loadu_si256((const __m256i *)(const void *)small);
        const __m256i d1 = _mm256_loadu_si256((const __m256i *)(const void *)(small + 32));
        const __m256i seven = _mm256_set1_epi32(7);
        for (; i + 8 <= n; i += 8) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(idx + i));
            __m256i a = _mm256_permutevar8x32_epi32(d0, x);
            __m256i b = _mm256_permutevar8x32_epi32(d1, x);
            __m256i v = _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi32(x, seven));
            _mm256_storeu_si256((__m256i *)(void *)(out + 4 * i), v);
        }
    }
    gather32_loads(dict, idx + i, n - i, out + 4 * i);
    return true;
}

PK_AVX2_FN bool pk_dict_gather64_avx2(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                      size_t n, uint8_t *out) {
    if (!indices_ok(max_index_avx2(idx, n), n, count)) return false;
    size_t i = 0;
    if (count <= 8) {
        uint8_t small[64] = {0};
        memcpy(small, dict, (size_t)count * 8);
        const __m256i d0 = _mm256_loadu_si256((const __m256i *)(const void *)small);
        const __m256i d1 = _mm256_loadu_si256((const __m256i *)(const void *)(small + 32));
        const __m256i three = _mm256_set1_epi64x(3), one = _mm256_set1_epi64x(1);
        for (; i + 4 <= n; i += 4) {
            __m256i x = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)(idx + i)));
            /* Entry k is dwords 2k and 2k+1 (of its register: k & 3). */
            __m256i lo = _mm256_slli_epi64(_mm256_and_si256(x, three), 1);
            __m256i dw = _mm256_or_si256(lo, _mm256_slli_epi64(_mm256_add_epi64(lo, one), 32));
            __m256i a = _mm256_permutevar8x32_epi32(d0, dw);
            __m256i b = _mm256_permutevar8x32_epi32(d1, dw);
            __m256i v = _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(x, three));
            _mm256_storeu_si256((__m256i *)(void *)(out + 8 * i), v);
        }
    }
    gather64_loads(dict, idx + i, n - i, out + 8 * i);
    return true;
}

/* ---- AVX-512 ---------------------------------------------------------------------- */

#include "pk_unpack_avx512.h"

/* One pass: each register of indices is compared with count - 1 into a mask register,
 * which also masks the gather, so an index out of range is never dereferenced and the
 * indices are read once. Dictionaries of up to 32 (4-byte) / 16 (8-byte) entries sit
 * in two registers and are looked up with vpermt2d / vpermt2q, which need no mask
 * (the lookup stays inside the registers; a bad lane only makes the result false).
 * Larger ones are gathered with vpgatherdd / vpgatherdq, whose indices are signed:
 * dictionaries of more than INT32_MAX entries take the scalar kernel. */

/* One register of lookups (16 of 4 bytes, or 8 of 8 bytes: `wide`): the indices
 * idx[lanes of m] (the others load as 0), their entries stored to out under m, from
 * the two registers d[0..1] (`small`) or gathered. Returns the lanes of m whose index
 * is above `top` (count - 1). */
PK_AVX512_INLINE unsigned g_step(const uint8_t *dict, const __m512i *d, __m512i top,
                                 const uint32_t *idx, unsigned m, uint8_t *out, const int wide,
                                 const int small) {
    const __m512i z = _mm512_setzero_si512();
    if (!wide) {
        __m512i x = _mm512_maskz_loadu_epi32((__mmask16)m, idx);
        __mmask16 bad = _mm512_mask_cmpgt_epu32_mask((__mmask16)m, x, top);
        __m512i v = small ? _mm512_permutex2var_epi32(d[0], x, d[1])
                          : _mm512_mask_i32gather_epi32(z, (__mmask16)(m & ~bad), x, dict, 4);
        _mm512_mask_storeu_epi32(out, (__mmask16)m, v);
        return bad;
    }
    __m256i x = _mm256_maskz_loadu_epi32((__mmask8)m, idx);
    __mmask8 bad = _mm256_mask_cmpgt_epu32_mask((__mmask8)m, x, _mm512_castsi512_si256(top));
    __m512i v = small ? _mm512_permutex2var_epi64(d[0], _mm512_cvtepu32_epi64(x), d[1])
                      : _mm512_mask_i32gather_epi64(z, (__mmask8)(m & ~bad), x, dict, 8);
    _mm512_mask_storeu_epi64(out, (__mmask8)m, v);
    return bad;
}

/* All n lookups: whole registers with every lane on (a constant mask, none to
 * compute), then the last lanes. Returns the out-of-range lanes seen. */
PK_AVX512_INLINE unsigned g_loop(const uint8_t *dict, const __m512i *d, __m512i top,
                                 const uint32_t *idx, size_t n, uint8_t *out, const int wide,
                                 const int small) {
    const size_t lanes = wide ? 8 : 16, w = wide ? 8 : 4;
    unsigned bad = 0;
    size_t i = 0;
    for (; i + lanes <= n; i += lanes)
        bad |= g_step(dict, d, top, idx + i, 0xFFFF, out + w * i, wide, small);
    if (i < n)
        bad |= g_step(dict, d, top, idx + i, (unsigned)pk_low_bits(n - i), out + w * i, wide,
                      small);
    return bad;
}

/* hw: dictionaries beyond two registers through vpgather (else by the AVX2
 * kernel's scalar loads, for CPUs whose gathers are slow: AMD's, pk_cpu.amd_core). */
PK_AVX512_INLINE bool gather_avx512(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                    size_t n, uint8_t *out, const int wide, const int hw) {
    if (n == 0 || count <= 0 || count > INT32_MAX)
        return wide ? pk_dict_gather64_scalar(dict, count, idx, n, out)
                    : pk_dict_gather32_scalar(dict, count, idx, n, out);
    const __m512i top = _mm512_set1_epi32((int)(count - 1));
    const size_t w = wide ? 8 : 4;
    if ((size_t)count * w > 128 && !hw)
        return wide ? pk_dict_gather64_avx2(dict, count, idx, n, out)
                    : pk_dict_gather32_avx2(dict, count, idx, n, out);
    if ((size_t)count * w > 128) return g_loop(dict, NULL, top, idx, n, out, wide, 0) == 0;
    /* The first `count` entries in two registers, zeros after them. */
    uint8_t small[128] = {0};
    memcpy(small, dict, (size_t)count * w);
    __m512i d[2] = {_mm512_loadu_si512((const void *)small),
                    _mm512_loadu_si512((const void *)(small + 64))};
    return g_loop(dict, d, top, idx, n, out, wide, 1) == 0;
}

PK_AVX512 bool pk_dict_gather32_avx512(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                       size_t n, uint8_t *out) {
    return gather_avx512(dict, count, idx, n, out, 0, 1);
}

PK_AVX512 bool pk_dict_gather64_avx512(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                       size_t n, uint8_t *out) {
    return gather_avx512(dict, count, idx, n, out, 1, 1);
}

PK_AVX512 bool pk_dict_gather32_avx512_loads(const uint8_t *dict, int64_t count,
                                             const uint32_t *idx, size_t n, uint8_t *out) {
    return gather_avx512(dict, count, idx, n, out, 0, 0);
}

PK_AVX512 bool pk_dict_gather64_avx512_loads(const uint8_t *dict, int64_t count,
                                             const uint32_t *idx, size_t n, uint8_t *out) {
    return gather_avx512(dict, count, idx, n, out, 1, 0);
}
#endif /* PK_HAVE_X86_KERNELS */
