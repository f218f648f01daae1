/*
 * pk_bits_avx2.c: the bitmap kernels with AVX2 and BMI2.
 *
 * copy_bits: once the destination is on a byte boundary, 256 bits per step
 * from two overlapping loads one byte apart: (lo >> s) | (hi << (8 - s)) in
 * 64-bit lanes puts source byte k + 1 where lo's shifted byte k ends.
 * spread_bits: 64 slots per step, pdep deposits the next popcount(validity)
 * dense bits at the valid positions.
 * spread_fixed (w 4 and 8): from the back, 8 dword lanes per step (8 slots
 * of 4 bytes or 4 of 8); the popcount dense lanes are loaded with a masked
 * load (nothing past them is touched), put in place by vpermd with indices
 * from pdep (lane k takes the rank of k among the valid lanes) and the null
 * lanes zeroed.
 * compact_fixed (w 4 and 8): the reverse, 8 dword lanes per step, vpermd with
 * indices from pext (lane k takes the k-th kept lane), stored whole; words
 * keeping few values, and every word of 16-byte values, by the walk over their
 * set bits. compact_bits: pext of each 64-bit word by its keep word, the
 * results appended to a 64-bit accumulator.
 */
#include "pk_bits.h"
#include "pk_kernels.h"

#ifdef PK_KERNELS_X86
#include <immintrin.h>

#define PK_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define PK_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,bmi,bmi2,popcnt")))

PK_AVX2 void pk_copy_bits_avx2(const uint8_t *src, int64_t src_bit, uint8_t *dst,
                               int64_t dst_bit, size_t n) {
    uint64_t s = (uint64_t)src_bit, d = (uint64_t)dst_bit;
    unsigned head = (unsigned)((8 - (d & 7)) & 7);
    if (head > n) head = (unsigned)n;
    if (head) {
        pk_bits_put(dst, d, head, pk_bits_get(src, s, head));
        s += head, d += head, n -= head;
    }
    /* Source bytes holding the range: [s >> 3, end); a step reads 33 of them. */
    const uint8_t *end = src + ((s + n + 7) >> 3);
    const uint8_t *p = src + (s >> 3);
    uint8_t *o = dst + (d >> 3);
    const __m128i sr = _mm_cvtsi32_si128((int)(s & 7)), sl = _mm_cvtsi32_si128(8 - (int)(s & 7));
    size_t done = 0;
    for (; n - done >= 256 && end - p >= 33; done += 256, p += 32, o += 32) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)p);
        __m256i hi = _mm256_loadu_si256((const __m256i *)(p + 1));
        __m256i v = _mm256_or_si256(_mm256_srl_epi64(lo, sr), _mm256_sll_epi64(hi, sl));
        _mm256_storeu_si256((__m256i *)o, v);
    }
    s += done, d += done, n -= done;
    while (n > 0) {
        unsigned len = n < 64 ? (unsigned)n : 64;
        pk_bits_put(dst, d, len, pk_bits_get(src, s, len));
        s += len, d += len, n -= len;
    }
}

PK_AVX2 void pk_spread_bits_avx2(const uint8_t *dense, size_t nn, const uint8_t *valid,
                                 uint8_t *dst, int64_t off, size_t n) {
    (void)nn;
    uint64_t at = (uint64_t)off, j = 0;
    /* The head up to a byte boundary, then whole 64-slot words (byte aligned in
     * both bitmaps, which share the offset), then the tail. */
    size_t step = (size_t)((8 - (at & 7)) & 7);
    while (n > 0) {
        if (step > n || step == 0) step = n < 64 ? n : 64;
        unsigned len = (unsigned)step;
        uint64_t v = len == 64 && !(at & 7) ? pk_load_u64(valid + (at >> 3))
                                            : pk_bits_get(valid, at, len);
        unsigned c = (unsigned)_mm_popcnt_u64(v);
        uint64_t bits = c ? _pdep_u64(pk_bits_get(dense, j, c), v) : 0;
        if (len == 64 && !(at & 7)) pk_store_u64(dst + (at >> 3), bits);
        else pk_bits_put(dst, at, len, bits);
        j += c, at += len, n -= len;
        step = 64;
    }
}

/* 16 all-ones then 16 zero dwords: the 8 from (first + 8 - k) keep lanes < k. */
static const int32_t first_lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* Expands the popcount(m) dwords at src over the 8 lanes set in m (zeros
 * elsewhere) into dst (32 bytes). */
PK_AVX2_INLINE void expand_dwords(const uint8_t *src, unsigned m, uint8_t *dst) {
    unsigned c = (unsigned)_mm_popcnt_u32(m);
    __m256i keep = _mm256_loadu_si256((const __m256i *)(first_lanes + 8 - c));
    __m256i x = _mm256_maskload_epi32((const int *)(const void *)src, keep);
    /* Nibble k of the deposit = rank of lane k among the set lanes. */
    uint64_t nib = _pdep_u64(m, UINT64_C(0x11111111)) * 0xF;
    uint64_t rank = _pdep_u64(UINT64_C(0x76543210), nib);
    uint64_t bytes = _pdep_u64(rank, UINT64_C(0x0F0F0F0F0F0F0F0F));
    __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)bytes));
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i on = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), bit), bit);
    x = _mm256_and_si256(_mm256_permutevar8x32_epi32(x, idx), on);
    _mm256_storeu_si256((__m256i *)(void *)dst, x);
}

/* W = 4: 8 slots per step; W = 8: 4 slots (each valid slot is two lanes). */
PK_AVX2_INLINE void spread_vec(uint8_t *vals, size_t n, size_t nn, const uint8_t *valid,
                               int64_t off, size_t W) {
    const size_t per = W == 4 ? 8 : 4;
    size_t i = n, j = nn;
    while (i > j && (i & (per - 1))) pk_spread_step(vals, W, &i, &j, valid, off);
    /* Up to 64 validity bits per load, consumed from the top per step. */
    while (i > j) {
        unsigned len = i < 64 ? (unsigned)i : 64; /* a multiple of per */
        uint64_t v = pk_bits_get(valid, (uint64_t)off + i - len, len);
        for (unsigned left = len; left > 0 && i > j; left -= (unsigned)per) {
            i -= per;
            unsigned m = (unsigned)(v >> (left - per)) & ((1u << per) - 1);
            j -= (size_t)_mm_popcnt_u32(m);
            if (W == 8) m = (unsigned)_pdep_u32(m, 0x55) * 3;
            expand_dwords(vals + j * W, m, vals + i * W);
        }
    }
}

PK_AVX2 void pk_spread_fixed_avx2(uint8_t *vals, size_t w, size_t n, size_t nn,
                                  const uint8_t *valid, int64_t off) {
    if (w == 4) spread_vec(vals, n, nn, valid, off, 4);
    else if (w == 8) spread_vec(vals, n, nn, valid, off, 8);
    else pk_spread_fixed_scalar(vals, w, n, nn, valid, off);
}

/* The indices of vpermd that put the lanes set in m (8 bits) first, in order:
 * the nibbles 0..7 of the set lanes packed by pext, spread one per byte. */
PK_AVX2_INLINE __m256i kept_lanes(unsigned m) {
    uint64_t nib = _pdep_u64(m, UINT64_C(0x11111111)) * 0xF;
    uint64_t packed = _pext_u64(UINT64_C(0x76543210), nib);
    uint64_t bytes = _pdep_u64(packed, UINT64_C(0x0F0F0F0F0F0F0F0F));
    return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)bytes));
}

/* PK_COMPACT_BODY's WORD: a step loads 32 bytes (8, 4 or 2 values) and stores them
 * whole at the output, which is never ahead of the step's input. */
PK_AVX2_INLINE size_t compact_word_avx2(uint8_t *d, const uint8_t *s, size_t W, uint64_t m) {
    size_t k = 0;
    if (W == 16) return pk_compact_word_scalar(d, s, 16, m);
    const size_t per = 32 / W;
    for (size_t j = 0; j < 64; j += per) {
        unsigned mv = (unsigned)(m >> j) & ((1u << per) - 1);
        unsigned m8 = W == 4 ? mv : (unsigned)_pdep_u32(mv, 0x55) * 3;
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + j * W));
        _mm256_storeu_si256((__m256i *)(void *)(d + k * W),
                            _mm256_permutevar8x32_epi32(v, kept_lanes(m8)));
        k += (size_t)_mm_popcnt_u32(mv);
    }
    return k;
}

/* Kept values per word below which the walk beats the vector steps (bench_kernels
 * bits, 4096 slots: the walk moves about 1.9 values a nanosecond, a word of vector
 * steps takes 8 / 20 ns at w 4 / 8). 16-byte values always take the walk: a
 * branch-free 16-byte store per slot, advancing by the keep bit, measured 1.5-2.1
 * G slots/s at any density against the walk's 1.6 at 90% kept and more below. */
#define PK_SPARSE_AVX2(W) ((W) == 4 ? 14 : (W) == 8 ? 36 : 64)
PK_COMPACT_KERNEL(avx2, PK_AVX2, PK_AVX2_INLINE, compact_word_avx2, PK_SPARSE_AVX2)

/* A word's kept bits are appended to acc (fill bits held, always < 64); a full
 * accumulator is stored as the next output word, which is never ahead of the
 * input word just loaded. */
PK_AVX2 int64_t pk_compact_bits_avx2(uint8_t *dst, const uint8_t *src, const uint8_t *keep,
                                     size_t n) {
    uint64_t acc = 0;
    unsigned fill = 0;
    size_t out = 0;
    int64_t ones = 0;
    for (size_t i = 0; i < n; i += 64) {
        unsigned len = n - i < 64 ? (unsigned)(n - i) : 64;
        uint64_t m = len == 64 ? pk_load_u64(keep + i / 8) : pk_bits_get(keep, i, len);
        uint64_t b = len == 64 ? pk_load_u64(src + i / 8) : pk_bits_get(src, i, len);
        uint64_t v = _pext_u64(b, m);
        unsigned c = (unsigned)_mm_popcnt_u64(m);
        ones += _mm_popcnt_u64(v);
        acc |= v << fill;
        if (fill + c >= 64) {
            pk_store_u64(dst + out, acc);
            out += 8;
            unsigned used = 64 - fill; /* bits of v in the stored word */
            acc = used < 64 ? v >> used : 0;
            fill = fill + c - 64;
        } else {
            fill += c;
        }
    }
    for (unsigned b = 0; b < (fill + 7) / 8; b++) dst[out + b] = (uint8_t)(acc >> (8 * b));
    return ones;
}

/* The AVX2 and AVX-512 tables count with the POPCNT instruction (every
 * machine with AVX2 has it). */
PK_AVX2_INLINE int pop_word(uint64_t x) { return __builtin_popcountll(x); }
PK_COUNT_KERNELS(avx2, PK_AVX2, pop_word)

#endif /* PK_KERNELS_X86 */
