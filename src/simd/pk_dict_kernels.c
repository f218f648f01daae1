/*
 * pk_dict_kernels.c: dictionary gathers of 4- and 8-byte values by index.
 *
 * Hostile input: indices come from the page. Every kernel checks all n
 * indices against the dictionary size before it reads the dictionary (a
 * vectorised max in the AVX2 version), so an out-of-range index returns false
 * without any out-of-bounds read.
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
#endif /* PK_HAVE_X86_KERNELS */
