/*
 * pk_bss_kernels.c: BYTE_STREAM_SPLIT decode (scalar for any width, AVX2
 * byte/word/dword unpacks for widths 2, 4 and 8) and encode (scalar for any
 * width, AVX2 byte shuffles for widths 4 and 8).
 *
 * Bounds are the caller's: decode reads src[b*stride + i] for b < width,
 * i < n only (the vector loops load whole 32-byte blocks that lie inside
 * that range), encode writes out[b*stride + i] likewise.
 */
#include "pk_decode_kernels.h"

/* Value by value: with a constant width the bytes of a value are gathered
 * from the streams into one register and stored at once. */
PK_INLINE void bss_decode_body(const uint8_t *src, size_t stride, const size_t width, size_t n,
                               uint8_t *out) {
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < width; b++) out[i * width + b] = src[b * stride + i];
}

void pk_bss_decode_scalar(const uint8_t *src, size_t stride, size_t width, size_t n,
                          uint8_t *out) {
    /* Constant widths for the common types let the compiler unroll. */
    switch (width) {
    case 2: bss_decode_body(src, stride, 2, n, out); break;
    case 4: bss_decode_body(src, stride, 4, n, out); break;
    case 8: bss_decode_body(src, stride, 8, n, out); break;
    default: bss_decode_body(src, stride, width, n, out); break;
    }
}

void pk_bss_encode(const uint8_t *src, size_t width, size_t n, size_t stride, uint8_t *out) {
    for (size_t i0 = 0; i0 < n; i0 += 256) {
        size_t m = n - i0 < 256 ? n - i0 : 256;
        for (size_t b = 0; b < width; b++) {
            const uint8_t *s = src + i0 * width + b;
            uint8_t *o = out + b * stride + i0;
            for (size_t i = 0; i < m; i++) o[i] = s[i * width];
        }
    }
}

#ifdef PK_HAVE_X86_KERNELS
#include <immintrin.h>

#define PK_AVX2_FN __attribute__((target("avx2,bmi2")))
#define LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))

/* Unpacks interleave within 128-bit lanes: after them a register holds
 * values from the first and the third quarter of the 32-value block, and
 * permute2x128 puts the lanes back in order. */
PK_AVX2_FN static size_t bss2(const uint8_t *src, size_t stride, size_t n, uint8_t *out) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32, out += 64) {
        __m256i a = LD(src + i), b = LD(src + stride + i);
        __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
        ST(out, _mm256_permute2x128_si256(lo, hi, 0x20));
        ST(out + 32, _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    return i;
}

PK_AVX2_FN static size_t bss4(const uint8_t *src, size_t stride, size_t n, uint8_t *out) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32, out += 128) {
        __m256i a = LD(src + i), b = LD(src + stride + i);
        __m256i c = LD(src + 2 * stride + i), d = LD(src + 3 * stride + i);
        __m256i ab0 = _mm256_unpacklo_epi8(a, b), ab1 = _mm256_unpackhi_epi8(a, b);
        __m256i cd0 = _mm256_unpacklo_epi8(c, d), cd1 = _mm256_unpackhi_epi8(c, d);
        __m256i r0 = _mm256_unpacklo_epi16(ab0, cd0), r1 = _mm256_unpackhi_epi16(ab0, cd0);
        __m256i r2 = _mm256_unpacklo_epi16(ab1, cd1), r3 = _mm256_unpackhi_epi16(ab1, cd1);
        ST(out, _mm256_permute2x128_si256(r0, r1, 0x20));
        ST(out + 32, _mm256_permute2x128_si256(r2, r3, 0x20));
        ST(out + 64, _mm256_permute2x128_si256(r0, r1, 0x31));
        ST(out + 96, _mm256_permute2x128_si256(r2, r3, 0x31));
    }
    return i;
}

PK_AVX2_FN static size_t bss8(const uint8_t *src, size_t stride, size_t n, uint8_t *out) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32, out += 256) {
        __m256i p[8], q[8], r[8];
        for (int k = 0; k < 4; k++) {
            __m256i a = LD(src + (size_t)(2 * k) * stride + i);
            __m256i b = LD(src + (size_t)(2 * k + 1) * stride + i);
            p[2 * k] = _mm256_unpacklo_epi8(a, b);     /* values 0..7 | 16..23 */
            p[2 * k + 1] = _mm256_unpackhi_epi8(a, b); /* values 8..15 | 24..31 */
        }
        for (int k = 0; k < 2; k++) {
            /* bytes 4k..4k+3 of values 0..3, 4..7, 8..11, 12..15 (| +16) */
            q[4 * k] = _mm256_unpacklo_epi16(p[4 * k], p[4 * k + 2]);
            q[4 * k + 1] = _mm256_unpackhi_epi16(p[4 * k], p[4 * k + 2]);
            q[4 * k + 2] = _mm256_unpacklo_epi16(p[4 * k + 1], p[4 * k + 3]);
            q[4 * k + 3] = _mm256_unpackhi_epi16(p[4 * k + 1], p[4 * k + 3]);
        }
        for (int k = 0; k < 4; k++) {
            r[2 * k] = _mm256_unpacklo_epi32(q[k], q[4 + k]);     /* values 4k, 4k+1 */
            r[2 * k + 1] = _mm256_unpackhi_epi32(q[k], q[4 + k]); /* values 4k+2, 4k+3 */
        }
        for (int m = 0; m < 4; m++) {
            ST(out + 32 * m, _mm256_permute2x128_si256(r[2 * m], r[2 * m + 1], 0x20));
            ST(out + 128 + 32 * m, _mm256_permute2x128_si256(r[2 * m], r[2 * m + 1], 0x31));
        }
    }
    return i;
}

PK_AVX2_FN void pk_bss_decode_avx2(const uint8_t *src, size_t stride, size_t width, size_t n,
                                   uint8_t *out) {
    size_t done = 0;
    if (width == 2) done = bss2(src, stride, n, out);
    else if (width == 4) done = bss4(src, stride, n, out);
    else if (width == 8) done = bss8(src, stride, n, out);
    if (done < n) pk_bss_decode_scalar(src + done, stride, width, n - done, out + done * width);
}

/* Encode, 8 values of 4 bytes in x: one byte shuffle per lane gathers byte b
 * of the lane's 4 values into dword b, a dword permute puts the two lanes'
 * dwords b side by side, and each stream gets its 8 bytes. */
PK_AVX2_FN static inline void enc4x8(__m256i x, uint8_t *out, size_t stride) {
    const __m256i sh = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m256i z = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(x, sh),
                                            _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    __m128i lo = _mm256_castsi256_si128(z), hi = _mm256_extracti128_si256(z, 1);
    _mm_storel_epi64((__m128i *)(void *)out, lo);
    _mm_storel_epi64((__m128i *)(void *)(out + stride), _mm_unpackhi_epi64(lo, lo));
    _mm_storel_epi64((__m128i *)(void *)(out + 2 * stride), hi);
    _mm_storel_epi64((__m128i *)(void *)(out + 3 * stride), _mm_unpackhi_epi64(hi, hi));
}

/* Widths 4 (FLOAT, INT32) and 8 (DOUBLE, INT64: the low and the high dwords of
 * 8 values separated first, each then as width 4) 8 values at a time; other
 * widths and the tail take the scalar encoder. */
PK_AVX2_FN void pk_bss_encode_avx2(const uint8_t *src, size_t width, size_t n, size_t stride,
                                   uint8_t *out) {
    size_t i = 0;
    if (width == 4) {
        for (; i + 8 <= n; i += 8) enc4x8(LD(src + 4 * i), out + i, stride);
    } else if (width == 8) {
        const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
        for (; i + 8 <= n; i += 8) {
            __m256 a = _mm256_castsi256_ps(LD(src + 8 * i));
            __m256 b = _mm256_castsi256_ps(LD(src + 8 * i + 32));
            /* per lane: low (high) dwords of a's two values, then b's */
            __m256i lows = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88));
            __m256i highs = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xDD));
            enc4x8(_mm256_permutevar8x32_epi32(lows, order), out + i, stride);
            enc4x8(_mm256_permutevar8x32_epi32(highs, order), out + 4 * stride + i, stride);
        }
    }
    if (i < n) pk_bss_encode(src + i * width, width, n - i, stride, out + i);
}
#endif /* PK_HAVE_X86_KERNELS */
