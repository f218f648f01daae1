/*
 * pk_encode_kernels.c: the writer's kernels: bit-packing of dictionary indices
 * (pack32), the search for RLE runs in them (rle_scan32), and the min/max of a
 * page of 32- and 64-bit integers (minmax_i32 / minmax_i64). Contracts in
 * pk_kernels.h.
 *
 * pack32: Parquet's bit-packed layout is horizontal (value i at bits
 * [i*bw, (i+1)*bw) of one little-endian stream), so a group of 8 values is bw
 * bytes. The scalar kernel packs a group into a 64-bit accumulator with the
 * width a constant (one loop per width, PK_PACK_WIDTHS), the reference the
 * vector kernels are tested against. For widths up to 16 (dictionaries of up
 * to 65,536 entries, nearly all of them) the vector kernels merge the values
 * of a group pairwise in 64-bit lanes: 8 values of bw bits become 4 of 2*bw,
 * then 2 of 4*bw (each still in one 64-bit lane), and the last merge of two
 * 64-bit words is done on general registers; AVX-512 does two groups per
 * 512-bit register. Wider values take the scalar loop.
 *
 * rle_scan32: a group is a run candidate when its 8 values are equal: one
 * compare of the group against its first value broadcast, a 256-bit register
 * per group (the AVX-512 table takes it: two groups per 512-bit register
 * measured slower, bench/README.md "Writer kernels").
 *
 * minmax: running min and max registers over the values, the sign bit flipped
 * first for unsigned order (the caller's flip), reduced at the end.
 *
 * pack64: 64-bit values at widths up to 64 (DELTA miniblocks of INT64 deltas wider than
 * 32 bits), the scalar loop stamped per width; AVX-512 for widths 33..64 (below, at its
 * code), 7x the scalar loop (bench/README.md "Writer kernels"). AVX2 keeps the scalar
 * loop: it has no two-register 64-bit lane permute, and building one from vpermd and
 * blends costs about 4 operations per value, what the scalar loop spends.
 *
 * delta_block: the values of a DELTA_BINARY_PACKED block behind the previous
 * one in one array, so that the deltas are a subtraction of two overlapping
 * loads; the minimum over the block's live lanes; then the deltas less it,
 * ORed per miniblock (whose widths the encoder takes from the ORs).
 */
#include "pk_kernels.h"

#include <math.h>

/* ---- scalar ------------------------------------------------------------------------ */

/* One group of 8 values of bw bits (a constant in every stamped copy) at o. */
PK_INLINE uint8_t *pack_group(const uint32_t *v, int bw, uint8_t *o) {
    if (bw == 0) return o;
    if (bw <= 8) {
        uint64_t acc = 0;
        for (int k = 0; k < 8; k++) acc |= (uint64_t)v[k] << (k * bw);
        pk_store_u64(o, acc); /* 8 bytes: the bw after o belong to the group */
        return o + bw;
    }
    /* 8*bw bits in 64-bit words, filled in order */
    pk_bitw w = {0, 0, o};
    for (int k = 0; k < 8; k++) pk_bitw_put(&w, v[k], bw);
    if (w.nb) pk_store_u64(w.o, w.acc);
    return w.o + (w.nb + 7) / 8;
}

PK_INLINE void pack_groups(const uint32_t *in, size_t n, int bw, uint8_t *out) {
    for (size_t g = 0; g < n; g += 8) out = pack_group(in + g, bw, out);
}

#define PK_PACK_CASE(W) case (W): pack_groups(in, n, (W), out); return;
#define PK_PACK_WIDTHS(lo)                                                                   \
    PK_PACK_CASE(lo) PK_PACK_CASE((lo) + 1) PK_PACK_CASE((lo) + 2) PK_PACK_CASE((lo) + 3)     \
    PK_PACK_CASE((lo) + 4) PK_PACK_CASE((lo) + 5) PK_PACK_CASE((lo) + 6) PK_PACK_CASE((lo) + 7)

/* Widths 17..32 at every level (and all widths in the scalar kernel). */
static void pack32_wide(const uint32_t *in, size_t n, int bw, uint8_t *out) {
    switch (bw) {
        PK_PACK_WIDTHS(16)
        PK_PACK_WIDTHS(24)
    default: pack_groups(in, n, 32, out); return;
    }
}

void pk_pack32_scalar(const uint32_t *in, size_t n, int bw, uint8_t *out) {
    switch (bw) {
        PK_PACK_WIDTHS(0)
        PK_PACK_WIDTHS(8)
    default: pack32_wide(in, n, bw, out); return;
    }
}

/* pack64: the values as one LSB-first stream (a group of 8 is bw bytes, so groups
 * follow each other), bw a constant in every stamped copy. */
PK_INLINE void pack64_stream(const uint64_t *v, size_t n, int bw, uint8_t *o) {
    if (bw == 0) return;
    pk_bitw w = {0, 0, o};
    for (size_t i = 0; i < n; i++) pk_bitw_put(&w, v[i], bw);
    pk_bitw_end(&w); /* the last partial word, then zeros: at most 8 bytes past */
}

#define PK_PACK64_CASE(W) case (W): pack64_stream(in, n, (W), out); return;
#define PK_PACK64_WIDTHS(lo)                                                                 \
    PK_PACK64_CASE(lo) PK_PACK64_CASE((lo) + 1) PK_PACK64_CASE((lo) + 2)                     \
    PK_PACK64_CASE((lo) + 3) PK_PACK64_CASE((lo) + 4) PK_PACK64_CASE((lo) + 5)               \
    PK_PACK64_CASE((lo) + 6) PK_PACK64_CASE((lo) + 7)

void pk_pack64_scalar(const uint64_t *in, size_t n, int bw, uint8_t *out) {
    switch (bw) {
        PK_PACK64_WIDTHS(0) PK_PACK64_WIDTHS(8) PK_PACK64_WIDTHS(16) PK_PACK64_WIDTHS(24)
        PK_PACK64_WIDTHS(32) PK_PACK64_WIDTHS(40) PK_PACK64_WIDTHS(48) PK_PACK64_WIDTHS(56)
    default: pack64_stream(in, n, 64, out); return;
    }
}

size_t pk_rle_scan32_scalar(const uint32_t *v, size_t n, uint32_t *any) {
    uint32_t a = 0;
    size_t g = 0;
    for (; g + 8 <= n; g += 8) {
        uint32_t x = v[g], d = 0;
        for (int k = 0; k < 8; k++) {
            d |= v[g + k] ^ x;
            a |= v[g + k];
        }
        if (!d) break;
    }
    *any |= a;
    return g / 8;
}

void pk_minmax_i32_scalar(const int32_t *v, size_t n, uint32_t flip, int32_t *mn, int32_t *mx) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        int32_t x = (int32_t)(pk_load_u32((const uint8_t *)v + 4 * i) ^ flip);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    *mn = (int32_t)((uint32_t)lo ^ flip);
    *mx = (int32_t)((uint32_t)hi ^ flip);
}

void pk_minmax_i64_scalar(const int64_t *v, size_t n, uint64_t flip, int64_t *mn, int64_t *mx) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t x = (int64_t)(pk_load_u64((const uint8_t *)v + 8 * i) ^ flip);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    *mn = (int64_t)((uint64_t)lo ^ flip);
    *mx = (int64_t)((uint64_t)hi ^ flip);
}

/* Floats: NaN takes no part (the statistics leave it out), and a zero bound
 * comes out as the spec stores it (-0.0 as a min, +0.0 as a max) so that the
 * result does not depend on which zero came first. */
#define PK_MINMAX_FLOAT_SCALAR(T, LOAD)                                                        \
    bool any = false;                                                                          \
    T lo = 0, hi = 0;                                                                          \
    for (size_t i = 0; i < n; i++) {                                                           \
        T x = LOAD;                                                                            \
        if (x != x) continue;                                                                  \
        if (!any) {                                                                            \
            lo = hi = x;                                                                       \
            any = true;                                                                        \
        }                                                                                      \
        lo = x < lo ? x : lo;                                                                  \
        hi = x > hi ? x : hi;                                                                  \
    }                                                                                          \
    if (!any) return false;                                                                    \
    *mn = lo == 0 ? -(T)0.0 : lo;                                                              \
    *mx = hi == 0 ? (T)0.0 : hi;                                                               \
    return true;

bool pk_minmax_f32_scalar(const float *v, size_t n, float *mn, float *mx) {
    PK_MINMAX_FLOAT_SCALAR(float, pk_load_f32((const uint8_t *)v + 4 * i))
}

bool pk_minmax_f64_scalar(const double *v, size_t n, double *mn, double *mx) {
    PK_MINMAX_FLOAT_SCALAR(double, pk_load_f64((const uint8_t *)v + 8 * i))
}

/* DELTA_BINARY_PACKED blocks. The deltas of a block are taken with 64-bit
 * wrapping arithmetic; INT32 values are sign-extended first and their
 * deltas reduced to the sign-extended 32-bit wrapping difference, as the
 * format's 32-bit readers take them. */
PK_INLINE uint64_t sext32_u(uint64_t v) {
    return (uint64_t)((uint32_t)v ^ 0x80000000u) - UINT64_C(0x80000000);
}

/* The block's minimum (signed), d[j] -= it for j < k, zeros up to 128, the
 * miniblock ORs: shared by every level after its deltas are taken. */
PK_INLINE void delta_finish(uint64_t *d, size_t k, uint64_t min, uint64_t *ors) {
    for (size_t j = 0; j < k; j++) d[j] -= min;
    for (size_t j = k; j < PK_DELTA_BLOCK; j++) d[j] = 0;
    for (size_t m = 0; m < PK_DELTA_BLOCK / 32; m++) {
        uint64_t o = 0;
        for (size_t j = 0; j < 32; j++) o |= d[32 * m + j];
        ors[m] = o;
    }
}

uint64_t pk_delta_block64_scalar(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                                 uint64_t *min, uint64_t *ors) {
    uint64_t lo = UINT64_MAX; /* the minimum with the sign bit flipped */
    for (size_t j = 0; j < k; j++) {
        uint64_t cur = pk_load_u64(v + 8 * j);
        d[j] = cur - prev;
        prev = cur;
        uint64_t f = d[j] ^ (UINT64_C(1) << 63);
        lo = f < lo ? f : lo;
    }
    *min = lo ^ (UINT64_C(1) << 63);
    delta_finish(d, k, *min, ors);
    return prev;
}

uint64_t pk_delta_block32_scalar(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                                 uint64_t *min, uint64_t *ors) {
    uint64_t lo = UINT64_MAX;
    for (size_t j = 0; j < k; j++) {
        uint64_t cur = sext32_u(pk_load_u32(v + 4 * j));
        d[j] = sext32_u(cur - prev);
        prev = cur;
        uint64_t f = d[j] ^ (UINT64_C(1) << 63);
        lo = f < lo ? f : lo;
    }
    *min = lo ^ (UINT64_C(1) << 63);
    delta_finish(d, k, *min, ors);
    return prev;
}

#ifdef PK_KERNELS_X86
#include <immintrin.h>

#define PK_AVX2_FN __attribute__((target("avx2,bmi2")))
#define PK_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi2")))

/* ---- AVX2 -------------------------------------------------------------------------- */

/* The last merge of a group: 8*bw bits from two words of 4*bw bits each,
 * stored as bw bytes (and zeros up to 16 bytes from o). */
PK_INLINE uint8_t *put_merged(uint64_t u0, uint64_t u1, int bw, uint8_t *o) {
    int s = 4 * bw; /* 0 < s <= 64 */
    uint64_t lo = s == 64 ? u0 : u0 | u1 << s;
    uint64_t hi = s == 64 ? u1 : u1 >> (64 - s);
    pk_store_u64(o, lo);
    pk_store_u64(o + 8, hi);
    return o + bw;
}

/* Widths 1..16, a constant in each stamped copy: per 64-bit lane, its two
 * values joined (v0 | v1 << bw), then per 128-bit half the two lanes joined
 * (2*bw-bit values), leaving 4*bw bits in the low lane of each half. */
PK_AVX2_FN static inline void pack_narrow_avx2(const uint32_t *in, size_t n, const int bw,
                                               uint8_t *out) {
    const __m256i lo32 = _mm256_set1_epi64x(0xFFFFFFFF);
    for (size_t g = 0; g < n; g += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(in + g));
        __m256i t = _mm256_or_si256(_mm256_and_si256(x, lo32),
                                    _mm256_slli_epi64(_mm256_srli_epi64(x, 32), bw));
        __m256i u = _mm256_or_si256(t, _mm256_slli_epi64(_mm256_srli_si256(t, 8), 2 * bw));
        uint64_t u0 = (uint64_t)_mm256_extract_epi64(u, 0);
        uint64_t u1 = (uint64_t)_mm256_extract_epi64(u, 2);
        out = put_merged(u0, u1, bw, out);
    }
}

#define PK_NARROW_CASE(W, isa) case (W): pack_narrow_##isa(in, n, (W), out); return;
#define PK_NARROW_CASES(isa)                                                                  \
    PK_NARROW_CASE(1, isa) PK_NARROW_CASE(2, isa) PK_NARROW_CASE(3, isa)                      \
    PK_NARROW_CASE(4, isa) PK_NARROW_CASE(5, isa) PK_NARROW_CASE(6, isa)                      \
    PK_NARROW_CASE(7, isa) PK_NARROW_CASE(8, isa) PK_NARROW_CASE(9, isa)                      \
    PK_NARROW_CASE(10, isa) PK_NARROW_CASE(11, isa) PK_NARROW_CASE(12, isa)                   \
    PK_NARROW_CASE(13, isa) PK_NARROW_CASE(14, isa) PK_NARROW_CASE(15, isa)                   \
    PK_NARROW_CASE(16, isa)

/* put_merged stores 16 bytes from a group's start, into the groups after it:
 * the last ceil(16 / bw) groups are packed by the scalar loop, which writes
 * over those bytes and stores at most 8 (zero) bytes past the end. */
#define PK_PACK_VECTOR(isa)                                                                   \
    void pk_pack32_##isa(const uint32_t *in, size_t n, int bw, uint8_t *out) {                \
        size_t tail = bw > 0 ? (size_t)(16 + bw - 1) / (size_t)bw : 0;                        \
        if (bw == 0 || bw > 16 || n / 8 <= tail) {                                            \
            pk_pack32_scalar(in, n, bw, out);                                                 \
            return;                                                                           \
        }                                                                                     \
        size_t body = n - 8 * tail;                                                           \
        pack_body_##isa(in, body, bw, out);                                                   \
        pk_pack32_scalar(in + body, n - body, bw, out + body / 8 * (size_t)bw);               \
    }

PK_AVX2_FN static void pack_body_avx2(const uint32_t *in, size_t n, int bw, uint8_t *out) {
    switch (bw) { PK_NARROW_CASES(avx2) default: break; }
}
PK_AVX2_FN PK_PACK_VECTOR(avx2)

PK_AVX2_FN size_t pk_rle_scan32_avx2(const uint32_t *v, size_t n, uint32_t *any) {
    __m256i a = _mm256_setzero_si256();
    size_t g = 0;
    for (; g + 8 <= n; g += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(v + g));
        a = _mm256_or_si256(a, x);
        __m256i first = _mm256_broadcastd_epi32(_mm256_castsi256_si128(x));
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(x, first)) == -1) break;
    }
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    h = _mm_or_si128(h, _mm_shuffle_epi32(h, 0x4E));
    h = _mm_or_si128(h, _mm_shuffle_epi32(h, 0xB1));
    *any |= (uint32_t)_mm_cvtsi128_si32(h);
    return g / 8;
}

PK_AVX2_FN void pk_minmax_i32_avx2(const int32_t *v, size_t n, uint32_t flip, int32_t *mn,
                                   int32_t *mx) {
    const __m256i f = _mm256_set1_epi32((int32_t)flip);
    __m256i lo = _mm256_set1_epi32(INT32_MAX), hi = _mm256_set1_epi32(INT32_MIN);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(v + i)), f);
        lo = _mm256_min_epi32(lo, x);
        hi = _mm256_max_epi32(hi, x);
    }
    int32_t l[8], h[8];
    _mm256_storeu_si256((__m256i *)(void *)l, lo);
    _mm256_storeu_si256((__m256i *)(void *)h, hi);
    int32_t a = INT32_MAX, b = INT32_MIN;
    for (int k = 0; k < 8; k++) {
        a = l[k] < a ? l[k] : a;
        b = h[k] > b ? h[k] : b;
    }
    for (; i < n; i++) {
        int32_t x = (int32_t)(pk_load_u32((const uint8_t *)v + 4 * i) ^ flip);
        a = x < a ? x : a;
        b = x > b ? x : b;
    }
    *mn = (int32_t)((uint32_t)a ^ flip);
    *mx = (int32_t)((uint32_t)b ^ flip);
}

/* AVX2 has no 64-bit min/max: a compare and two blends per register. */
PK_AVX2_FN void pk_minmax_i64_avx2(const int64_t *v, size_t n, uint64_t flip, int64_t *mn,
                                   int64_t *mx) {
    const __m256i f = _mm256_set1_epi64x((int64_t)flip);
    __m256i lo = _mm256_set1_epi64x(INT64_MAX), hi = _mm256_set1_epi64x(INT64_MIN);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(v + i)), f);
        lo = _mm256_blendv_epi8(lo, x, _mm256_cmpgt_epi64(lo, x));
        hi = _mm256_blendv_epi8(hi, x, _mm256_cmpgt_epi64(x, hi));
    }
    int64_t l[4], h[4];
    _mm256_storeu_si256((__m256i *)(void *)l, lo);
    _mm256_storeu_si256((__m256i *)(void *)h, hi);
    int64_t a = INT64_MAX, b = INT64_MIN;
    for (int k = 0; k < 4; k++) {
        a = l[k] < a ? l[k] : a;
        b = h[k] > b ? h[k] : b;
    }
    for (; i < n; i++) {
        int64_t x = (int64_t)(pk_load_u64((const uint8_t *)v + 8 * i) ^ flip);
        a = x < a ? x : a;
        b = x > b ? x : b;
    }
    *mn = (int64_t)((uint64_t)a ^ flip);
    *mx = (int64_t)((uint64_t)b ^ flip);
}

/* ---- AVX-512 ------------------------------------------------------------------------ */

/* Two groups per register: the same two merges as AVX2 in each 128-bit lane. */
PK_AVX512_FN static inline void pack_narrow_avx512(const uint32_t *in, size_t n, const int bw,
                                                   uint8_t *out) {
    const __m512i lo32 = _mm512_set1_epi64(0xFFFFFFFF);
    size_t g = 0;
    for (; g + 16 <= n; g += 16) {
        __m512i x = _mm512_loadu_si512((const void *)(in + g));
        __m512i t = _mm512_or_si512(_mm512_and_si512(x, lo32),
                                    _mm512_slli_epi64(_mm512_srli_epi64(x, 32), bw));
        __m512i u = _mm512_or_si512(t, _mm512_slli_epi64(_mm512_bsrli_epi128(t, 8), 2 * bw));
        /* the low lane of each 128-bit part: u0, u1 of the first group, then the second's */
        __m256i q = _mm512_castsi512_si256(_mm512_permutexvar_epi64(
            _mm512_set_epi64(0, 0, 0, 0, 6, 4, 2, 0), u));
        uint64_t w[4];
        _mm256_storeu_si256((__m256i *)(void *)w, q);
        out = put_merged(w[0], w[1], bw, out);
        out = put_merged(w[2], w[3], bw, out);
    }
    pack_narrow_avx2(in + g, n - g, bw, out);
}

PK_AVX512_FN static void pack_body_avx512(const uint32_t *in, size_t n, int bw, uint8_t *out) {
    switch (bw) { PK_NARROW_CASES(avx512) default: break; }
}
PK_AVX512_FN PK_PACK_VECTOR(avx512)

PK_AVX512_FN void pk_minmax_i32_avx512(const int32_t *v, size_t n, uint32_t flip, int32_t *mn,
                                       int32_t *mx) {
    const __m512i f = _mm512_set1_epi32((int32_t)flip);
    __m512i lo = _mm512_set1_epi32(INT32_MAX), hi = _mm512_set1_epi32(INT32_MIN);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i x = _mm512_xor_si512(_mm512_loadu_si512((const void *)(v + i)), f);
        lo = _mm512_min_epi32(lo, x);
        hi = _mm512_max_epi32(hi, x);
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi32(m, v + i), f);
        lo = _mm512_mask_min_epi32(lo, m, lo, x);
        hi = _mm512_mask_max_epi32(hi, m, hi, x);
    }
    *mn = (int32_t)((uint32_t)_mm512_reduce_min_epi32(lo) ^ flip);
    *mx = (int32_t)((uint32_t)_mm512_reduce_max_epi32(hi) ^ flip);
}

PK_AVX512_FN void pk_minmax_i64_avx512(const int64_t *v, size_t n, uint64_t flip, int64_t *mn,
                                       int64_t *mx) {
    const __m512i f = _mm512_set1_epi64((int64_t)flip);
    __m512i lo = _mm512_set1_epi64(INT64_MAX), hi = _mm512_set1_epi64(INT64_MIN);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i x = _mm512_xor_si512(_mm512_loadu_si512((const void *)(v + i)), f);
        lo = _mm512_min_epi64(lo, x);
        hi = _mm512_max_epi64(hi, x);
    }
    if (i < n) {
        __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi64(m, v + i), f);
        lo = _mm512_mask_min_epi64(lo, m, lo, x);
        hi = _mm512_mask_max_epi64(hi, m, hi, x);
    }
    *mn = (int64_t)((uint64_t)_mm512_reduce_min_epi64(lo) ^ flip);
    *mx = (int64_t)((uint64_t)_mm512_reduce_max_epi64(hi) ^ flip);
}

/* ---- float min/max (AVX2, AVX-512) -------------------------------------------------- */

/* NaN lanes replaced by +inf (for the minimum) and -inf (for the maximum);
 * a lane that ever held a number is counted, so that all-NaN input is told
 * apart from a column of infinities. The tail goes through the scalar loop
 * and is merged. */
#define PK_MINMAX_FLOAT_VEC(T, VT, W, LOADU, SET1, CMPORD, BLEND, MIN, MAX, MASK, STOREU,      \
                            SCALAR)                                                            \
    VT lo = SET1((T)INFINITY), hi = SET1(-(T)INFINITY);                                        \
    int seen = 0;                                                                              \
    size_t i = 0;                                                                              \
    for (; i + (W) <= n; i += (W)) {                                                           \
        VT x = LOADU(v + i);                                                                   \
        VT ord = CMPORD(x);                                                                    \
        seen |= MASK(ord);                                                                     \
        lo = MIN(lo, BLEND(SET1((T)INFINITY), x, ord));                                        \
        hi = MAX(hi, BLEND(SET1(-(T)INFINITY), x, ord));                                       \
    }                                                                                          \
    T l[W], h[W];                                                                              \
    STOREU(l, lo);                                                                             \
    STOREU(h, hi);                                                                             \
    T a = (T)INFINITY, b = -(T)INFINITY;                                                       \
    for (int q = 0; q < (W); q++) {                                                            \
        a = l[q] < a ? l[q] : a;                                                               \
        b = h[q] > b ? h[q] : b;                                                               \
    }                                                                                          \
    T ta, tb;                                                                                  \
    if (SCALAR(v + i, n - i, &ta, &tb)) {                                                      \
        a = ta < a ? ta : a;                                                                   \
        b = tb > b ? tb : b;                                                                   \
        seen = 1;                                                                              \
    }                                                                                          \
    if (!seen) return false;                                                                   \
    *mn = a == 0 ? -(T)0.0 : a;                                                                \
    *mx = b == 0 ? (T)0.0 : b;                                                                 \
    return true;

#define PK_ORD_PS(x) _mm256_cmp_ps((x), (x), _CMP_ORD_Q)
#define PK_ORD_PD(x) _mm256_cmp_pd((x), (x), _CMP_ORD_Q)

PK_AVX2_FN bool pk_minmax_f32_avx2(const float *v, size_t n, float *mn, float *mx) {
    PK_MINMAX_FLOAT_VEC(float, __m256, 8, _mm256_loadu_ps, _mm256_set1_ps, PK_ORD_PS,
                        _mm256_blendv_ps, _mm256_min_ps, _mm256_max_ps, _mm256_movemask_ps,
                        _mm256_storeu_ps, pk_minmax_f32_scalar)
}

PK_AVX2_FN bool pk_minmax_f64_avx2(const double *v, size_t n, double *mn, double *mx) {
    PK_MINMAX_FLOAT_VEC(double, __m256d, 4, _mm256_loadu_pd, _mm256_set1_pd, PK_ORD_PD,
                        _mm256_blendv_pd, _mm256_min_pd, _mm256_max_pd, _mm256_movemask_pd,
                        _mm256_storeu_pd, pk_minmax_f64_scalar)
}

/* ---- DELTA blocks (AVX2, AVX-512) ------------------------------------------------ */

/* The values preceded by prev in one array (8-byte lanes): the deltas are
 * then one subtraction of two overlapping loads. */
#define PK_DELTA_PREP(IS32)                                                                    \
    uint64_t t[PK_DELTA_BLOCK + 8];                                                            \
    t[0] = prev;                                                                               \
    for (size_t j = 0; j < k; j++)                                                             \
        t[j + 1] = (IS32) ? sext32_u(pk_load_u32(v + 4 * j)) : pk_load_u64(v + 8 * j);         \
    for (size_t j = k + 1; j < PK_DELTA_BLOCK + 8; j++) t[j] = t[k]; /* deltas of 0 */

PK_AVX2_FN static inline uint64_t delta_block_avx2(const uint8_t *v, size_t k, uint64_t prev,
                                                   uint64_t *d, uint64_t *min, uint64_t *ors,
                                                   const bool is32) {
    PK_DELTA_PREP(is32)
    __m256i lo = _mm256_set1_epi64x(INT64_MAX); /* the signed minimum */
    for (size_t j = 0; j < PK_DELTA_BLOCK; j += 4) {
        __m256i cur = _mm256_loadu_si256((const __m256i *)(const void *)(t + j + 1));
        __m256i pre = _mm256_loadu_si256((const __m256i *)(const void *)(t + j));
        __m256i x = _mm256_sub_epi64(cur, pre);
        if (is32) /* sign-extend the low 32 bits */
            x = _mm256_sub_epi64(_mm256_xor_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0xFFFFFFFF)),
                                                  _mm256_set1_epi64x(0x80000000)),
                                 _mm256_set1_epi64x(0x80000000));
        _mm256_storeu_si256((__m256i *)(void *)(d + j), x);
        if (j < k) {
            /* lanes past k hold 0 deltas: leave them out of the minimum */
            __m256i idx = _mm256_add_epi64(_mm256_set1_epi64x((int64_t)j), _mm256_set_epi64x(3, 2, 1, 0));
            __m256i live = _mm256_cmpgt_epi64(_mm256_set1_epi64x((int64_t)k), idx);
            __m256i f = _mm256_blendv_epi8(_mm256_set1_epi64x(INT64_MAX), x, live);
            lo = _mm256_blendv_epi8(lo, f, _mm256_cmpgt_epi64(lo, f));
        }
    }
    int64_t l[4];
    _mm256_storeu_si256((__m256i *)(void *)l, lo);
    int64_t m = l[0];
    for (int q = 1; q < 4; q++) m = l[q] < m ? l[q] : m;
    uint64_t mn = (uint64_t)m;
    *min = mn;
    const __m256i mv = _mm256_set1_epi64x((int64_t)mn);
    for (size_t b = 0; b < PK_DELTA_BLOCK / 32; b++) {
        __m256i o = _mm256_setzero_si256();
        for (size_t j = 32 * b; j < 32 * b + 32; j += 4) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(d + j));
            __m256i idx = _mm256_add_epi64(_mm256_set1_epi64x((int64_t)j), _mm256_set_epi64x(3, 2, 1, 0));
            __m256i live = _mm256_cmpgt_epi64(_mm256_set1_epi64x((int64_t)k), idx);
            x = _mm256_and_si256(_mm256_sub_epi64(x, mv), live);
            _mm256_storeu_si256((__m256i *)(void *)(d + j), x);
            o = _mm256_or_si256(o, x);
        }
        __m128i h = _mm_or_si128(_mm256_castsi256_si128(o), _mm256_extracti128_si256(o, 1));
        ors[b] = (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(h, _mm_unpackhi_epi64(h, h)));
    }
    return t[k];
}

PK_AVX2_FN uint64_t pk_delta_block64_avx2(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                                          uint64_t *min, uint64_t *ors) {
    return delta_block_avx2(v, k, prev, d, min, ors, false);
}

PK_AVX2_FN uint64_t pk_delta_block32_avx2(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                                          uint64_t *min, uint64_t *ors) {
    return delta_block_avx2(v, k, prev, d, min, ors, true);
}

PK_AVX512_FN static inline uint64_t delta_block_avx512(const uint8_t *v, size_t k, uint64_t prev,
                                                       uint64_t *d, uint64_t *min, uint64_t *ors,
                                                       const bool is32) {
    PK_DELTA_PREP(is32)
    __m512i lo = _mm512_set1_epi64(INT64_MAX);
    for (size_t j = 0; j < PK_DELTA_BLOCK; j += 8) {
        __m512i x = _mm512_sub_epi64(_mm512_loadu_si512((const void *)(t + j + 1)),
                                     _mm512_loadu_si512((const void *)(t + j)));
        if (is32) x = _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(x));
        _mm512_storeu_si512((void *)(d + j), x);
        __mmask8 live = j >= k ? 0 : k - j >= 8 ? 0xFF : (__mmask8)((1u << (k - j)) - 1);
        lo = _mm512_mask_min_epi64(lo, live, lo, x);
    }
    uint64_t mn = (uint64_t)_mm512_reduce_min_epi64(lo);
    *min = mn;
    const __m512i mv = _mm512_set1_epi64((int64_t)mn);
    for (size_t b = 0; b < PK_DELTA_BLOCK / 32; b++) {
        __m512i o = _mm512_setzero_si512();
        for (size_t j = 32 * b; j < 32 * b + 32; j += 8) {
            __mmask8 live = j >= k ? 0 : k - j >= 8 ? 0xFF : (__mmask8)((1u << (k - j)) - 1);
            __m512i x = _mm512_maskz_sub_epi64(live, _mm512_loadu_si512((const void *)(d + j)), mv);
            _mm512_storeu_si512((void *)(d + j), x);
            o = _mm512_or_si512(o, x);
        }
        ors[b] = (uint64_t)_mm512_reduce_or_epi64(o);
    }
    return t[k];
}

PK_AVX512_FN uint64_t pk_delta_block64_avx512(const uint8_t *v, size_t k, uint64_t prev,
                                              uint64_t *d, uint64_t *min, uint64_t *ors) {
    return delta_block_avx512(v, k, prev, d, min, ors, false);
}

PK_AVX512_FN uint64_t pk_delta_block32_avx512(const uint8_t *v, size_t k, uint64_t prev,
                                              uint64_t *d, uint64_t *min, uint64_t *ors) {
    return delta_block_avx512(v, k, prev, d, min, ors, true);
}


/* ---- pack64, AVX-512 ----------------------------------------------------------------- */

/* Widths 33..64 (the DELTA miniblocks wider than pack32 takes): a group of 8 values is
 * bw bytes, at most 8 words, and a word of it holds parts of at most 3 values (each has
 * 33 bits or more): the tail of value p from bit s, then values p + 1 and p + 2 shifted
 * up to where they start. Three lane permutes (an index past 7 picks the zero register),
 * three shifts by per-word counts, and one masked store of the bw bytes per group. */
PK_AVX512_FN void pk_pack64_avx512(const uint64_t *in, size_t n, int bw, uint8_t *out) {
    if (bw <= 32) {
        pk_pack64_scalar(in, n, bw, out);
        return;
    }
    int64_t i0[8], i1[8], i2[8], r0[8], l1[8], l2[8];
    for (int j = 0; j < 8; j++) {
        int p = 64 * j / bw, s = 64 * j - p * bw;
        i0[j] = p < 15 ? p : 15;
        i1[j] = p + 1 < 15 ? p + 1 : 15;
        i2[j] = p + 2 < 15 ? p + 2 : 15;
        r0[j] = s;
        l1[j] = bw - s;
        l2[j] = 2 * bw - s; /* 64 or more: shifted out */
    }
    const __m512i x0 = _mm512_loadu_si512((const void *)i0), x1 = _mm512_loadu_si512((const void *)i1),
                  x2 = _mm512_loadu_si512((const void *)i2), s0 = _mm512_loadu_si512((const void *)r0),
                  s1 = _mm512_loadu_si512((const void *)l1), s2 = _mm512_loadu_si512((const void *)l2);
    const __m512i zero = _mm512_setzero_si512();
    const __mmask64 bytes = bw == 64 ? ~(__mmask64)0 : (((__mmask64)1 << bw) - 1);
    for (size_t g = 0; g < n; g += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(in + g));
        __m512i w = _mm512_srlv_epi64(_mm512_permutex2var_epi64(v, x0, zero), s0);
        w = _mm512_or_si512(w, _mm512_sllv_epi64(_mm512_permutex2var_epi64(v, x1, zero), s1));
        w = _mm512_or_si512(w, _mm512_sllv_epi64(_mm512_permutex2var_epi64(v, x2, zero), s2));
        _mm512_mask_storeu_epi8(out, bytes, w);
        out += bw;
    }
}

#endif /* PK_KERNELS_X86 */
