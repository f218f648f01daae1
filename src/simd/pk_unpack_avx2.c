/*
 * pk_unpack_avx2.c: AVX2 bit-unpacking into 8-, 16-, 32- and 64-bit outputs
 * (64-bit widths 33..62: unpack64_wide_body; 63 stays scalar), 8 values
 * (one group, bw bytes) per 256-bit register: one or two 16-byte loads, a
 * vpshufb that puts each value's bytes in its 32-bit lane, a variable right
 * shift and a mask (plus a second shuffle and shift for widths whose values
 * can span five bytes). The shuffles come from the generated
 * pk_unpack_tables_avx2.h. Groups whose loads would pass in[avail) are left
 * to the scalar kernel, so nothing outside the readable input is touched.
 *
 * Compiled with target attributes: the file builds with the default flags
 * and its functions are only called when the CPU has AVX2 + BMI2.
 */
#include "pk_kernels.h"

#ifdef PK_KERNELS_X86
#include <immintrin.h>

#include "pk_unpack_tables_avx2.h"

#define PK_AVX2 __attribute__((target("avx2,bmi2")))
#define PK_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,bmi2")))

typedef struct unpack_regs {
    __m256i lo, hi, shr, shl, mask;
} unpack_regs;

PK_AVX2_INLINE unpack_regs unpack_setup(int bw) {
    const pk_unpack_avx2_table *t = &pk_unpack_avx2_tables[bw];
    unpack_regs r;
    r.lo = _mm256_loadu_si256((const __m256i *)t->shuf_lo);
    r.hi = _mm256_loadu_si256((const __m256i *)t->shuf_hi);
    r.shr = _mm256_loadu_si256((const __m256i *)t->shr);
    r.shl = _mm256_loadu_si256((const __m256i *)t->shl);
    r.mask = _mm256_set1_epi32((int)((1u << bw) - 1));
    return r;
}

/* The 8 values of the group at p as 32-bit lanes (reads p[0..span)). */
PK_AVX2_INLINE __m256i unpack_group(const uint8_t *p, const unpack_regs *r, int bw) {
    __m256i x;
    if (bw <= 16) {
        x = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
    } else {
        x = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
            _mm_loadu_si128((const __m128i *)(p + pk_unpack_avx2_tables[bw].lane1)), 1);
    }
    __m256i v = _mm256_srlv_epi32(_mm256_shuffle_epi8(x, r->lo), r->shr);
    if (pk_unpack_avx2_tables[bw].two_words)
        v = _mm256_or_si256(v, _mm256_sllv_epi32(_mm256_shuffle_epi8(x, r->hi), r->shl));
    return _mm256_and_si256(v, r->mask);
}

/* Groups g (from 0) whose loads stay inside in[0..avail) when `per` groups
 * are unpacked per step: g*bw + (per-1)*bw + span <= avail. */
PK_AVX2_INLINE size_t vector_groups(size_t avail, int bw, size_t per) {
    size_t reach = (per - 1) * (size_t)bw + pk_unpack_avx2_tables[bw].span;
    return avail >= reach ? (avail - reach) / (size_t)bw + 1 : 0;
}

/* One body for both outputs: 32-bit lanes are stored as they are; for 16-bit
 * outputs two groups are packed with unsigned saturation (values have at most
 * 16 bits, so nothing saturates) and put back in order (vpackusdw
 * interleaves the 128-bit halves). */
PK_AVX2_INLINE void unpack_body(const uint8_t *in, size_t avail, void *outp, size_t n, int bw,
                                int out16) {
    unpack_regs r = unpack_setup(bw);
    size_t groups = n / 8, g = 0;
    size_t fast = vector_groups(avail, bw, 2);
    if (fast > groups) fast = groups;
    const uint8_t *p = in;
    uint8_t *out = outp;
    size_t esize = out16 ? 2 : 4;
    /* Two independent groups per step keep both load ports busy. */
    for (; g + 2 <= fast; g += 2, p += 2 * bw, out += 16 * esize) {
        __m256i a = unpack_group(p, &r, bw);
        __m256i b = unpack_group(p + bw, &r, bw);
        if (out16) {
            __m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
            _mm256_storeu_si256((__m256i *)out, v);
        } else {
            _mm256_storeu_si256((__m256i *)out, a);
            _mm256_storeu_si256((__m256i *)(out + 32), b);
        }
    }
    if (!out16 && g < groups && vector_groups(avail, bw, 1) > g) {
        _mm256_storeu_si256((__m256i *)out, unpack_group(p, &r, bw));
        g++, p += bw, out += 32;
    }
    if (g * 8 == n) return;
    if (out16)
        pk_unpack16_scalar(p, avail - g * (size_t)bw, (uint16_t *)out, n - g * 8, bw);
    else
        pk_unpack32_scalar(p, avail - g * (size_t)bw, (uint32_t *)out, n - g * 8, bw);
}

#define PK_W16(X)                                                                          \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define PK_W31(X)                                                                          \
    PK_W16(X) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) \
    X(30) X(31)

#define PK_CASE32(W) case W: unpack_body(in, avail, out, n, W, 0); break;

PK_AVX2 void pk_unpack32_avx2(const uint8_t *in, size_t avail, uint32_t *out, size_t n,
                              int bw) {
    switch (bw) {
        PK_W31(PK_CASE32)
    case 32:
        if (n) memcpy(out, in, n * 4);
        break;
    default:
        if (n) memset(out, 0, n * 4);
    }
}

#define PK_CASE16(W) case W: unpack_body(in, avail, out, n, W, 1); break;

PK_AVX2 void pk_unpack16_avx2(const uint8_t *in, size_t avail, uint16_t *out, size_t n,
                              int bw) {
    switch (bw) {
        PK_W16(PK_CASE16)
    default:
        if (n) memset(out, 0, n * 2);
    }
}

/* 8-bit outputs: four groups (32 values) per step, narrowed 32 -> 16 -> 8
 * bits with unsigned saturation (values have at most 8 bits, nothing
 * saturates). The two packs interleave per 128-bit half, leaving dwords in
 * the order a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7; one dword permute puts
 * them back in value order. */
PK_AVX2_INLINE void unpack8_body(const uint8_t *in, size_t avail, uint8_t *out, size_t n,
                                 int bw) {
    unpack_regs r = unpack_setup(bw);
    size_t groups = n / 8, g = 0;
    size_t fast = vector_groups(avail, bw, 4);
    if (fast > groups) fast = groups;
    const uint8_t *p = in;
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; g + 4 <= fast; g += 4, p += 4 * bw, out += 32) {
        __m256i a = unpack_group(p, &r, bw);
        __m256i b = unpack_group(p + bw, &r, bw);
        __m256i c = unpack_group(p + 2 * bw, &r, bw);
        __m256i d = unpack_group(p + 3 * bw, &r, bw);
        __m256i v = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
        _mm256_storeu_si256((__m256i *)out, _mm256_permutevar8x32_epi32(v, order));
    }
    if (g * 8 == n) return;
    pk_unpack8_scalar(p, avail - g * (size_t)bw, out, n - g * 8, bw);
}

#define PK_W7(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define PK_CASE8(W) case W: unpack8_body(in, avail, out, n, W); break;

PK_AVX2 void pk_unpack8_avx2(const uint8_t *in, size_t avail, uint8_t *out, size_t n, int bw) {
    switch (bw) {
        PK_W7(PK_CASE8)
    case 8:
        if (n) memcpy(out, in, n);
        break;
    default:
        if (n) memset(out, 0, n);
    }
}

/* 64-bit outputs of widths 1..31: the 32-bit group widened with vpmovzxdq,
 * two groups per step; width 32 widens the input words directly. */
PK_AVX2_INLINE void unpack64_body(const uint8_t *in, size_t avail, uint64_t *out, size_t n,
                                  int bw) {
    size_t groups = n / 8, g = 0;
    const uint8_t *p = in;
    if (bw == 32) {
        size_t fast = avail / 32; /* whole groups of 32 bytes inside avail */
        if (fast > groups) fast = groups;
        for (; g < fast; g++, p += 32, out += 8) {
            __m128i lo = _mm_loadu_si128((const __m128i *)p);
            __m128i hi = _mm_loadu_si128((const __m128i *)(p + 16));
            _mm256_storeu_si256((__m256i *)out, _mm256_cvtepu32_epi64(lo));
            _mm256_storeu_si256((__m256i *)(out + 4), _mm256_cvtepu32_epi64(hi));
        }
    } else {
        unpack_regs r = unpack_setup(bw);
        size_t fast = vector_groups(avail, bw, 1);
        if (fast > groups) fast = groups;
        for (; g < fast; g++, p += bw, out += 8) {
            __m256i a = unpack_group(p, &r, bw);
            _mm256_storeu_si256((__m256i *)out, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(a)));
            _mm256_storeu_si256((__m256i *)(out + 4),
                                _mm256_cvtepu32_epi64(_mm256_extracti128_si256(a, 1)));
        }
    }
    if (g * 8 == n) return;
    pk_unpack64_scalar(p, avail - g * (size_t)bw, out, n - g * 8, bw);
}

/* 64-bit outputs of widths 33..62: a value is two dword lanes, its low 32
 * bits and its high bw - 32 bits, which put side by side are the value in a
 * qword lane. Each 128-bit lane holds two consecutive values from one 16-byte
 * load at the byte of the first (they span s + 2*bw <= 128 bits for bw <= 62
 * at every start bit s of a group; width 63 can need 17 bytes and stays
 * scalar); a register holds four values, a group of 8 is two registers. Every
 * dword field is a shuffle of its bytes, a right shift, the fifth byte
 * shifted left, and a mask, as in unpack_group; bytes past a field's last bit
 * are shuffled in as zeros, so a lane never needs a byte past its 16. The
 * controls depend only on bw: with the width a constant they fold. */
typedef struct wide_regs {
    __m256i lo[2], hi[2], shr[2], shl[2], mask;
    size_t off[2][2]; /* load offsets within the group: [half][lane] */
} wide_regs;

PK_AVX2_INLINE wide_regs wide_setup(int bw) {
    wide_regs r;
    uint8_t lo[32], hi[32];
    uint32_t shr[8], shl[8];
    for (int h = 0; h < 2; h++) {
        for (int q = 0; q < 2; q++) {
            unsigned first = (unsigned)(4 * h + 2 * q) * (unsigned)bw;
            r.off[h][q] = first >> 3;
            for (int f = 0; f < 4; f++) {
                unsigned rb = (first & 7) + (unsigned)(f >> 1) * (unsigned)bw + (f & 1) * 32u;
                unsigned len = f & 1 ? (unsigned)bw - 32 : 32;
                unsigned b0 = rb >> 3, last = (rb + len - 1) >> 3;
                int d = 4 * q + f; /* dword lane in the register */
                for (unsigned t = 0; t < 4; t++) {
                    lo[4 * d + t] = (uint8_t)(b0 + t <= last ? b0 + t : 0x80);
                    hi[4 * d + t] = (uint8_t)(t == 0 && b0 + 4 <= last ? b0 + 4 : 0x80);
                }
                shr[d] = rb & 7;
                shl[d] = 32 - (rb & 7);
            }
        }
        r.lo[h] = _mm256_loadu_si256((const __m256i *)lo);
        r.hi[h] = _mm256_loadu_si256((const __m256i *)hi);
        r.shr[h] = _mm256_loadu_si256((const __m256i *)shr);
        r.shl[h] = _mm256_loadu_si256((const __m256i *)shl);
    }
    uint32_t top = (UINT32_C(1) << (bw - 32)) - 1;
    r.mask = _mm256_setr_epi32(-1, (int)top, -1, (int)top, -1, (int)top, -1, (int)top);
    return r;
}

PK_AVX2_INLINE void unpack64_wide_body(const uint8_t *in, size_t avail, uint64_t *out, size_t n,
                                       int bw) {
    wide_regs r = wide_setup(bw);
    size_t groups = n / 8, g = 0;
    /* Group g reads up to g*bw + off[1][1] + 16. */
    size_t reach = r.off[1][1] + 16;
    size_t fast = avail >= reach ? (avail - reach) / (size_t)bw + 1 : 0;
    if (fast > groups) fast = groups;
    const uint8_t *p = in;
    for (; g < fast; g++, p += bw, out += 8) {
        for (int h = 0; h < 2; h++) {
            __m256i x = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + r.off[h][0]))),
                _mm_loadu_si128((const __m128i *)(p + r.off[h][1])), 1);
            __m256i v = _mm256_srlv_epi32(_mm256_shuffle_epi8(x, r.lo[h]), r.shr[h]);
            v = _mm256_or_si256(v, _mm256_sllv_epi32(_mm256_shuffle_epi8(x, r.hi[h]), r.shl[h]));
            _mm256_storeu_si256((__m256i *)(out + 4 * h), _mm256_and_si256(v, r.mask));
        }
    }
    if (g * 8 == n) return;
    pk_unpack64_scalar(p, avail - g * (size_t)bw, out, n - g * 8, bw);
}

#define PK_CASE64(W) case W: unpack64_body(in, avail, out, n, W); break;
#define PK_CASE64W(W) case W: unpack64_wide_body(in, avail, out, n, W); break;
#define PK_W33_62(X)                                                                      \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46)   \
    X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60)   \
    X(61) X(62)

PK_AVX2 void pk_unpack64_avx2(const uint8_t *in, size_t avail, uint64_t *out, size_t n,
                              int bw) {
    switch (bw) {
        PK_W31(PK_CASE64)
        PK_CASE64(32)
        PK_W33_62(PK_CASE64W)
    case 64:
        if (n) memcpy(out, in, n * 8);
        break;
    default:
        /* 0 (zeros) and 63: the scalar stamp (see unpack64_wide_body). */
        pk_unpack64_scalar(in, avail, out, n, bw);
    }
}

#endif /* PK_KERNELS_X86 */
