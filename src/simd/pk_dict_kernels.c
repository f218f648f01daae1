/*
 * pk_dict_kernels.c: dictionary gathers of 4- and 8-byte values by index.
 *
 * Hostile input: indices come from the page. Every kernel checks all n
 * indices against the dictionary size before it reads the dictionary (a
 * vectorised max in the AVX2 version), so an out-of-range index returns false
 * without any out-of-bounds read.
 */
#include "pk_decode_kernels.h"

/* Largest index (0 for n == 0): a loop compilers vectorise. */
static uint32_t max_index(const uint32_t *idx, size_t n) {
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) m = idx[i] > m ? idx[i] : m;
    return m;
}

PK_INLINE bool indices_ok(uint32_t max, size_t n, int64_t count) {
    return n == 0 || (int64_t)max < count;
}

bool pk_dict_gather32_scalar(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out) {
    if (!indices_ok(max_index(idx, n), n, count)) return false;
    for (size_t i = 0; i < n; i++) memcpy(out + 4 * i, dict + 4 * (size_t)idx[i], 4);
    return true;
}

bool pk_dict_gather64_scalar(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out) {
    if (!indices_ok(max_index(idx, n), n, count)) return false;
    for (size_t i = 0; i < n; i++) memcpy(out + 8 * i, dict + 8 * (size_t)idx[i], 8);
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
 * registers and are looked up with permutes; larger ones are gathered. The
 * indices are all known to be < count here, so the gathers (and the
 * signed 32-bit index they take: count < 2^31 for any page) stay in range. */
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
    } else {
        for (; i + 8 <= n; i += 8) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(idx + i));
            __m256i v = _mm256_i32gather_epi32((const int *)(const void *)dict, x, 4);
            _mm256_storeu_si256((__m256i *)(void *)(out + 4 * i), v);
        }
    }
    for (; i < n; i++) memcpy(out + 4 * i, dict + 4 * (size_t)idx[i], 4);
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
    } else {
        for (; i + 4 <= n; i += 4) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(idx + i));
            __m256i v = _mm256_i32gather_epi64((const long long *)(const void *)dict, x, 8);
            _mm256_storeu_si256((__m256i *)(void *)(out + 8 * i), v);
        }
    }
    for (; i < n; i++) memcpy(out + 8 * i, dict + 8 * (size_t)idx[i], 8);
    return true;
}
#endif /* PK_HAVE_X86_KERNELS */
