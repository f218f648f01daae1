/*
 * pk_levels_avx2.c: level kernels with AVX2, 16 levels per 256-bit register.
 *
 * Counting compares 16 levels at once and adds the all-ones matches into
 * 16-bit lane counters; each chunk of at most 0xFFFF levels is folded into
 * the 64-bit total (a lane then holds at most 0xFFFF/16 counts, far from
 * wrapping). The last partial register is an overlapping load of the last
 * 16 levels whose compare mask (vpmovmskb) is shifted to the levels not
 * counted yet and popcounted, so no scalar tail loop runs; inputs under 64
 * levels are counted that way alone.
 */
#include "pk_kernels.h"

#ifdef PK_KERNELS_X86
#include <immintrin.h>

#define PK_AVX2 __attribute__((target("avx2,bmi2,popcnt")))
#define PK_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,bmi2,popcnt")))

#define PK_LEVEL_CHUNK 0xFFFF

/* Below this many levels a count is a few compare + movemask + popcnt
 * steps, with no accumulator set-up and no horizontal fold (the fixed cost
 * that made the kernel slower than a plain loop on short inputs). */
#define PK_LEVEL_SHORT 64

/* The levels among p[0..lanes) equal to v as a mask of 2 bits per level
 * (vpmovmskb of the 16-bit compare). */
PK_AVX2_INLINE uint32_t eq_mask16(const int16_t *p, __m256i v) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi16(x, v));
}
PK_AVX2_INLINE uint32_t eq_mask8(const int16_t *p, __m128i v) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(x, v));
}
PK_AVX2_INLINE uint32_t eq_mask4(const int16_t *p, __m128i v) {
    __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(x, v)) & 0xFF;
}

/* n < PK_LEVEL_SHORT. Whole registers, then the last one overlapping the
 * previous and shifted so only its last r levels' bits remain; reads only
 * lv[0..n). Every level sets 2 mask bits, hence the halving. */
PK_AVX2_INLINE int64_t count_short(const int16_t *lv, size_t n, int16_t value) {
    unsigned bits = 0;
    if (n < 4) {
        for (size_t i = 0; i < n; i++) bits += 2u * (lv[i] == value);
    } else if (n < 8) {
        const __m128i v = _mm_set1_epi16(value);
        bits = (unsigned)__builtin_popcount(eq_mask4(lv, v));
        if (n > 4) bits += (unsigned)__builtin_popcount(eq_mask4(lv + n - 4, v) >> (16 - 2 * n));
    } else if (n < 16) {
        const __m128i v = _mm_set1_epi16(value);
        bits = (unsigned)__builtin_popcount(eq_mask8(lv, v));
        if (n > 8) bits += (unsigned)__builtin_popcount(eq_mask8(lv + n - 8, v) >> (32 - 2 * n));
    } else {
        const __m256i v = _mm256_set1_epi16(value);
        size_t i = 0;
        for (; i + 16 <= n; i += 16) bits += (unsigned)__builtin_popcount(eq_mask16(lv + i, v));
        if (i < n)
            bits += (unsigned)__builtin_popcount(eq_mask16(lv + n - 16, v) >> (32 - 2 * (n - i)));
    }
    return (int64_t)(bits / 2);
}

/* One body for counting (SUM = 0: lanes equal to v) and summing 0/1 levels
 * (SUM = 1: the levels themselves). The accumulators collect -1 per match
 * (vpaddw of the all-ones compare, which lets the compiler accumulate in
 * place) and vpmaddwd with -1 folds them to positive 32-bit sums. */
PK_AVX2_INLINE int64_t count_body(const int16_t *lv, size_t n, int16_t value, int sum) {
    if (n < PK_LEVEL_SHORT) return count_short(lv, n, sum ? 1 : value);
    const __m256i v = _mm256_set1_epi16(value);
    int64_t total = 0;
    size_t i = 0, full = n & ~(size_t)15;
    while (i < full) {
        size_t end = full - i > (PK_LEVEL_CHUNK & ~63u) ? i + (PK_LEVEL_CHUNK & ~63u) : full;
        __m256i a0 = _mm256_setzero_si256(), a1 = a0;
        for (; i + 64 <= end; i += 64) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(lv + i));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(lv + i + 16));
            __m256i x2 = _mm256_loadu_si256((const __m256i *)(lv + i + 32));
            __m256i x3 = _mm256_loadu_si256((const __m256i *)(lv + i + 48));
            /* Counting adds pairs of compares first: two adds into the
             * accumulators per 64 levels instead of four (GCC copies the
             * accumulator after each add into it). Summing subtracts the
             * loads directly (memory operands). */
            if (sum) {
                a0 = _mm256_sub_epi16(_mm256_sub_epi16(a0, x0), x2);
                a1 = _mm256_sub_epi16(_mm256_sub_epi16(a1, x1), x3);
            } else {
                a0 = _mm256_add_epi16(
                    a0, _mm256_add_epi16(_mm256_cmpeq_epi16(x0, v), _mm256_cmpeq_epi16(x1, v)));
                a1 = _mm256_add_epi16(
                    a1, _mm256_add_epi16(_mm256_cmpeq_epi16(x2, v), _mm256_cmpeq_epi16(x3, v)));
            }
        }
        for (; i < end; i += 16) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(lv + i));
            a0 = sum ? _mm256_sub_epi16(a0, x) : _mm256_add_epi16(a0, _mm256_cmpeq_epi16(x, v));
        }
        a0 = _mm256_add_epi16(a0, a1);
        /* Lanes hold -count >= -0xFFFF/16: exact in the signed 16-bit madd. */
        __m256i s = _mm256_madd_epi16(a0, _mm256_set1_epi16(-1));
        __m128i x = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
        total += (int64_t)(uint32_t)_mm_cvtsi128_si32(x);
    }
    if (i < n) {
        /* The last 16 levels, keeping only the n - i not counted yet. */
        uint32_t m = eq_mask16(lv + n - 16, sum ? _mm256_set1_epi16(1) : v);
        total += __builtin_popcount(m >> (32 - 2 * (n - i))) / 2;
    }
    return total;
}

PK_AVX2 int64_t pk_count_eq16_avx2(const int16_t *lv, size_t n, int16_t value) {
    return count_body(lv, n, value, 0);
}

PK_AVX2 int64_t pk_sum01_16_avx2(const int16_t *lv, size_t n) {
    return count_body(lv, n, 0, 1);
}

PK_AVX2 bool pk_levels_in_range_avx2(const int16_t *lv, size_t n, int16_t max) {
    if (n < 16) return pk_levels_in_range_scalar(lv, n, max);
    /* v <= max as unsigned (negative levels are large) iff max(v, max) == max. */
    const __m256i m = _mm256_set1_epi16(max);
    __m256i bad = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(lv + i));
        bad = _mm256_or_si256(bad, _mm256_xor_si256(_mm256_max_epu16(x, m), m));
    }
    if (i < n) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(lv + n - 16));
        bad = _mm256_or_si256(bad, _mm256_xor_si256(_mm256_max_epu16(x, m), m));
    }
    return _mm256_testz_si256(bad, bad);
}

PK_AVX2 int64_t pk_def_to_bitmap_avx2(const int16_t *def, size_t n, int16_t max_def,
                                      uint8_t *bits, int64_t bit_offset) {
    int64_t set = 0;
    size_t head = (size_t)((8 - (bit_offset & 7)) & 7);
    if (head > n) head = n;
    if (head) set += pk_def_to_bitmap_scalar(def, head, max_def, bits, bit_offset);
    def += head;
    n -= head;
    uint8_t *b = bits + ((bit_offset + (int64_t)head) >> 3);
    const __m256i m = _mm256_set1_epi16(max_def);
    size_t i = 0;
    for (; i + 32 <= n; i += 32, b += 4) {
        __m256i x0 = _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i *)(def + i)), m);
        __m256i x1 = _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i *)(def + i + 16)), m);
        /* packs interleaves the halves: [x0 0-7, x1 0-7, x0 8-15, x1 8-15]. */
        __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi16(x0, x1), 0xd8);
        uint32_t mask = (uint32_t)_mm256_movemask_epi8(p);
        pk_store_u32(b, mask);
        set += __builtin_popcount(mask);
    }
    if (i < n) set += pk_def_to_bitmap_scalar(def + i, n - i, max_def, b, 0);
    return set;
}


/* ---- level histogram ---- */

/* Levels per accumulator lane before a fold: at most 0x7FFF matches per 16-bit lane,
 * exact in the signed vpmaddwd that folds them. */
#define PK_HIST_CHUNK ((size_t)16 * 0x7FFF)

/* Lanes j >= 16 - r of k_keep + r are all ones: the last r levels of an overlapping
 * load keep their values, the ones counted already become level 0 (never counted). */
static const int16_t k_keep[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   -1, -1, -1, -1, -1, -1, -1, -1,
                                   -1, -1, -1, -1, -1, -1, -1, -1};

PK_AVX2_INLINE uint64_t fold_count(__m256i a) {
    __m256i s = _mm256_madd_epi16(a, _mm256_set1_epi16(1));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(x);
}

/* Counts of levels base .. base + cnt - 1 (cnt a constant in each inlined copy) over
 * lv[0..n), n >= 16, added to hist[base..]: one load per 16 levels, a compare and a
 * subtraction of the all-ones match per level counted. */
PK_AVX2_INLINE void hist_pass(const int16_t *lv, size_t n, int base, const int cnt,
                              int64_t *hist) {
    __m256i lvl[PK_LEVEL_HIST_PASS], acc[PK_LEVEL_HIST_PASS];
    for (int k = 0; k < cnt; k++) lvl[k] = _mm256_set1_epi16((int16_t)(base + k));
    size_t i = 0;
    const size_t full = n & ~(size_t)15;
    while (i < full) {
        size_t end = full - i > PK_HIST_CHUNK ? i + PK_HIST_CHUNK : full;
        for (int k = 0; k < cnt; k++) acc[k] = _mm256_setzero_si256();
        for (; i < end; i += 16) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(lv + i));
            for (int k = 0; k < cnt; k++)
                acc[k] = _mm256_sub_epi16(acc[k], _mm256_cmpeq_epi16(x, lvl[k]));
        }
        for (int k = 0; k < cnt; k++) hist[base + k] += (int64_t)fold_count(acc[k]);
    }
    if (i < n) {
        size_t r = n - i;
        __m256i x = _mm256_and_si256(
            _mm256_loadu_si256((const __m256i *)(const void *)(lv + n - 16)),
            _mm256_loadu_si256((const __m256i *)(const void *)(k_keep + r)));
        for (int k = 0; k < cnt; k++) {
            unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(x, lvl[k]));
            hist[base + k] += __builtin_popcount(m) / 2;
        }
    }
}

PK_AVX2 void pk_level_hist16_avx2(const int16_t *lv, size_t n, int16_t max, int64_t *hist) {
    PK_LEVEL_HIST_BODY(hist_pass, 2 * PK_LEVEL_HIST_PASS)
}

#endif /* PK_KERNELS_X86 */
