/*
 * pk_hash_kernels.c: the dictionary builder's hashes, a block of values at a time
 * (hash_fixed32 / hash_fixed64 for 4- and 8-byte values, hash_short for byte strings by
 * their first 16 bytes). Contracts and the hash functions themselves (pk_hash_fixed,
 * pk_hash_words) in pk_kernels.h; every level returns the same hashes, so the table a
 * dictionary builds, and the file, do not depend on the level.
 *
 * The hashes are 64-bit xor-shift-multiply mixers. AVX-512 DQ multiplies 64-bit lanes
 * (vpmullq); AVX2 has only 32 x 32 -> 64-bit multiplies, so a 64-bit product by a
 * constant c is three of them: lo(x) * lo(c) + ((hi(x) * lo(c) + lo(x) * hi(c)) << 32).
 *
 * hash_short loads each string's two words from its offset with scalar loads put into
 * lanes (the caller guarantees 16 readable bytes from every value's start; gathers
 * measured slower, bench/README.md "Writer kernels"), and masks them to the string's
 * length with variable shifts: keep = ~(ones << 8 * len), which is all ones from 8
 * bytes up (a shift of 64 or more gives 0).
 */
#include "pk_kernels.h"

/* ---- scalar ------------------------------------------------------------------------ */

void pk_hash_fixed32_scalar(const uint8_t *v, size_t n, uint64_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = pk_hash_fixed(pk_load_u32(v + 4 * i));
}

void pk_hash_fixed64_scalar(const uint8_t *v, size_t n, uint64_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = pk_hash_fixed(pk_load_u64(v + 8 * i));
}

void pk_hash_short_scalar(const uint8_t *data, const int64_t *off, size_t n, uint64_t *wa,
                          uint64_t *wb, uint64_t *out) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = data + off[i];
        uint64_t len = (uint64_t)(off[i + 1] - off[i]);
        uint64_t a = pk_load_u64(p), b = pk_load_u64(p + 8);
        if (len < 8) a &= ~(UINT64_MAX << (8 * len));
        if (len < 16) b &= len <= 8 ? 0 : ~(UINT64_MAX << (8 * (len - 8)));
        wa[i] = a;
        wb[i] = b;
        out[i] = pk_hash_words(a, b, len);
    }
}

#ifdef PK_KERNELS_X86
#include "pk_unpack_avx512.h" /* PK_AVX512, PK_AVX512_INLINE (and immintrin.h) */

#define PK_HASH_AVX2 __attribute__((target("avx2,bmi2")))
#define PK_HASH_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,bmi2")))

/* ---- AVX2 ------------------------------------------------------------------------- */

/* The low 64 bits of x * c per lane; chi = c >> 32 in every lane. */
PK_HASH_AVX2_INLINE __m256i mul64_avx2(__m256i x, __m256i c, __m256i chi) {
    __m256i lo = _mm256_mul_epu32(x, c);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), c),
                                     _mm256_mul_epu32(x, chi));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

#define PK_K1_AVX2 _mm256_set1_epi64x((int64_t)PK_HASH_K1)
#define PK_K2_AVX2 _mm256_set1_epi64x((int64_t)PK_HASH_K2)
#define PK_K1HI_AVX2 _mm256_set1_epi64x((int64_t)(PK_HASH_K1 >> 32))
#define PK_K2HI_AVX2 _mm256_set1_epi64x((int64_t)(PK_HASH_K2 >> 32))

/* pk_hash_finish per lane. */
PK_HASH_AVX2_INLINE __m256i finish_avx2(__m256i h) {
    h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 31));
    h = mul64_avx2(h, PK_K2_AVX2, PK_K2HI_AVX2);
    h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 29));
    h = mul64_avx2(h, PK_K1_AVX2, PK_K1HI_AVX2);
    return _mm256_xor_si256(h, _mm256_srli_epi64(h, 32));
}

PK_HASH_AVX2 void pk_hash_fixed32_avx2(const uint8_t *v, size_t n, uint64_t *out) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i x = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)(v + 4 * i)));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), finish_avx2(_mm256_add_epi64(x, PK_K1_AVX2)));
    }
    pk_hash_fixed32_scalar(v + 4 * i, n - i, out + i);
}

PK_HASH_AVX2 void pk_hash_fixed64_avx2(const uint8_t *v, size_t n, uint64_t *out) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(v + 8 * i));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), finish_avx2(_mm256_add_epi64(x, PK_K1_AVX2)));
    }
    pk_hash_fixed64_scalar(v + 8 * i, n - i, out + i);
}

PK_HASH_AVX2 void pk_hash_short_avx2(const uint8_t *data, const int64_t *off, size_t n,
                                     uint64_t *wa, uint64_t *wb, uint64_t *out) {
    const __m256i ones = _mm256_set1_epi64x(-1), eight = _mm256_set1_epi64x(8);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i o0 = _mm256_loadu_si256((const __m256i *)(const void *)(off + i));
        __m256i len = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(off + i + 1)), o0);
        /* four scalar loads per word: AVX2's gathers measured slower than them */
        const uint8_t *p0 = data + off[i], *p1 = data + off[i + 1], *p2 = data + off[i + 2],
                      *p3 = data + off[i + 3];
        __m256i a = _mm256_set_epi64x((int64_t)pk_load_u64(p3), (int64_t)pk_load_u64(p2),
                                      (int64_t)pk_load_u64(p1), (int64_t)pk_load_u64(p0));
        __m256i b = _mm256_set_epi64x((int64_t)pk_load_u64(p3 + 8), (int64_t)pk_load_u64(p2 + 8),
                                      (int64_t)pk_load_u64(p1 + 8), (int64_t)pk_load_u64(p0 + 8));
        a = _mm256_andnot_si256(_mm256_sllv_epi64(ones, _mm256_slli_epi64(len, 3)), a);
        __m256i over8 = _mm256_cmpgt_epi64(len, eight);
        b = _mm256_and_si256(
            _mm256_andnot_si256(_mm256_sllv_epi64(ones, _mm256_slli_epi64(_mm256_sub_epi64(len, eight), 3)), b),
            over8);
        _mm256_storeu_si256((__m256i *)(void *)(wa + i), a);
        _mm256_storeu_si256((__m256i *)(void *)(wb + i), b);
        /* len * K2 for len < 2^32 (the hash is only used up to 16 bytes) */
        __m256i lk = _mm256_add_epi64(_mm256_mul_epu32(len, PK_K2_AVX2),
                                      _mm256_slli_epi64(_mm256_mul_epu32(len, PK_K2HI_AVX2), 32));
        __m256i t = _mm256_add_epi64(b, lk);
        t = _mm256_or_si256(_mm256_slli_epi64(t, 29), _mm256_srli_epi64(t, 35));
        __m256i h = mul64_avx2(_mm256_xor_si256(a, PK_K2_AVX2), PK_K1_AVX2, PK_K1HI_AVX2);
        _mm256_storeu_si256((__m256i *)(void *)(out + i), finish_avx2(_mm256_xor_si256(h, t)));
    }
    pk_hash_short_scalar(data, off + i, n - i, wa + i, wb + i, out + i);
}

/* ---- AVX-512 ---------------------------------------------------------------------- */

PK_AVX512_INLINE __m512i finish_avx512(__m512i h) {
    h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 31));
    h = _mm512_mullo_epi64(h, _mm512_set1_epi64((int64_t)PK_HASH_K2));
    h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 29));
    h = _mm512_mullo_epi64(h, _mm512_set1_epi64((int64_t)PK_HASH_K1));
    return _mm512_xor_si512(h, _mm512_srli_epi64(h, 32));
}

PK_AVX512 void pk_hash_fixed32_avx512(const uint8_t *v, size_t n, uint64_t *out) {
    const __m512i k1 = _mm512_set1_epi64((int64_t)PK_HASH_K1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i x = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(v + 4 * i)));
        _mm512_storeu_si512((void *)(out + i), finish_avx512(_mm512_add_epi64(x, k1)));
    }
    if (i < n) {
        __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        __m512i x = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, v + 4 * i));
        _mm512_mask_storeu_epi64(out + i, m, finish_avx512(_mm512_add_epi64(x, k1)));
    }
}

PK_AVX512 void pk_hash_fixed64_avx512(const uint8_t *v, size_t n, uint64_t *out) {
    const __m512i k1 = _mm512_set1_epi64((int64_t)PK_HASH_K1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i x = _mm512_loadu_si512((const void *)(v + 8 * i));
        _mm512_storeu_si512((void *)(out + i), finish_avx512(_mm512_add_epi64(x, k1)));
    }
    if (i < n) {
        __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        __m512i x = _mm512_maskz_loadu_epi64(m, v + 8 * i);
        _mm512_mask_storeu_epi64(out + i, m, finish_avx512(_mm512_add_epi64(x, k1)));
    }
}

PK_AVX512 void pk_hash_short_avx512(const uint8_t *data, const int64_t *off, size_t n,
                                         uint64_t *wa, uint64_t *wb, uint64_t *out) {
    const __m512i ones = _mm512_set1_epi64(-1), eight = _mm512_set1_epi64(8);
    const __m512i k1 = _mm512_set1_epi64((int64_t)PK_HASH_K1);
    const __m512i k2 = _mm512_set1_epi64((int64_t)PK_HASH_K2);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i o0 = _mm512_loadu_si512((const void *)(off + i));
        __m512i len = _mm512_sub_epi64(_mm512_loadu_si512((const void *)(off + i + 1)), o0);
        __m512i a, b;
        {
            const uint8_t *p[8];
            for (int k = 0; k < 8; k++) p[k] = data + off[i + (size_t)k];
            a = _mm512_set_epi64((int64_t)pk_load_u64(p[7]), (int64_t)pk_load_u64(p[6]),
                                 (int64_t)pk_load_u64(p[5]), (int64_t)pk_load_u64(p[4]),
                                 (int64_t)pk_load_u64(p[3]), (int64_t)pk_load_u64(p[2]),
                                 (int64_t)pk_load_u64(p[1]), (int64_t)pk_load_u64(p[0]));
            b = _mm512_set_epi64((int64_t)pk_load_u64(p[7] + 8), (int64_t)pk_load_u64(p[6] + 8),
                                 (int64_t)pk_load_u64(p[5] + 8), (int64_t)pk_load_u64(p[4] + 8),
                                 (int64_t)pk_load_u64(p[3] + 8), (int64_t)pk_load_u64(p[2] + 8),
                                 (int64_t)pk_load_u64(p[1] + 8), (int64_t)pk_load_u64(p[0] + 8));
        }
        a = _mm512_andnot_si512(_mm512_sllv_epi64(ones, _mm512_slli_epi64(len, 3)), a);
        __mmask8 over8 = _mm512_cmpgt_epi64_mask(len, eight);
        b = _mm512_maskz_andnot_epi64(
            over8, _mm512_sllv_epi64(ones, _mm512_slli_epi64(_mm512_sub_epi64(len, eight), 3)), b);
        _mm512_storeu_si512((void *)(wa + i), a);
        _mm512_storeu_si512((void *)(wb + i), b);
        __m512i t = _mm512_rol_epi64(_mm512_add_epi64(b, _mm512_mullo_epi64(len, k2)), 29);
        __m512i h = _mm512_mullo_epi64(_mm512_xor_si512(a, k2), k1);
        _mm512_storeu_si512((void *)(out + i), finish_avx512(_mm512_xor_si512(h, t)));
    }
    pk_hash_short_scalar(data, off + i, n - i, wa + i, wb + i, out + i);
}

#endif /* PK_KERNELS_X86 */
