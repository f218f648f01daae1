/*
 * pk_levels_avx512.c: level kernels with AVX-512 (F, BW), 32 levels per register.
 *
 * Compares write mask registers, so counting is a compare, a mask move and a popcount
 * per 32 levels into a 64-bit total (no 16-bit lane counters to fold or to keep from
 * wrapping), and the validity bitmap is the compare masks themselves. The last partial
 * register is a masked load of only the levels left (the mask also keeps the zeros it
 * loads out of the count), so there is no scalar tail and no read past lv[n).
 */
#include "pk_kernels.h"

#ifdef PK_KERNELS_X86
#include "pk_unpack_avx512.h"

/* Lanes i < r of a 32-lane register. */
PK_AVX512_INLINE __mmask32 first_lanes(size_t r) {
    return _cvtu32_mask32((uint32_t)pk_low_bits(r));
}

PK_AVX512_INLINE __m512i load32(const int16_t *p) {
    return _mm512_loadu_si512((const void *)p);
}

PK_AVX512_INLINE unsigned popcount32(__mmask32 m) {
    return (unsigned)_mm_popcnt_u32(_cvtmask32_u32(m));
}

PK_AVX512 int64_t pk_count_eq16_avx512(const int16_t *lv, size_t n, int16_t value) {
    /* Under 8 levels a plain loop: the masked load, compare and mask moves form a
     * chain of about 20 cycles, which made such calls about 7% slower than AVX2's
     * (bench/README.md, "AVX-512 kernels"). */
    if (n < 8) {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++) c += lv[i] == value;
        return c;
    }
    const __m512i v = _mm512_set1_epi16(value);
    uint64_t c0 = 0, c1 = 0;
    size_t i = 0;
    /* Two totals: the two popcounts of a step add independently. */
    for (; i + 64 <= n; i += 64) {
        c0 += popcount32(_mm512_cmpeq_epi16_mask(load32(lv + i), v));
        c1 += popcount32(_mm512_cmpeq_epi16_mask(load32(lv + i + 32), v));
    }
    if (i + 32 <= n) {
        c0 += popcount32(_mm512_cmpeq_epi16_mask(load32(lv + i), v));
        i += 32;
    }
    if (i < n) {
        __mmask32 m = first_lanes(n - i);
        c1 += popcount32(_mm512_mask_cmpeq_epi16_mask(m, _mm512_maskz_loadu_epi16(m, lv + i), v));
    }
    return (int64_t)(c0 + c1);
}

/* Levels 0/1 are added in 16-bit lanes (one add per 32 levels, on two ports, where a
 * compare has one). Each of the two accumulators' lanes takes one level per 64, so in
 * chunks of 64 * 0x3FFF levels their sum stays under 0x8000 for the signed vpmaddwd
 * that folds it. */
#define PK_SUM_CHUNK ((size_t)64 * 0x3FFF)

PK_AVX512_INLINE uint64_t fold16(__m512i a) {
    return (uint64_t)(uint32_t)_mm512_reduce_add_epi32(_mm512_madd_epi16(a, _mm512_set1_epi16(1)));
}

PK_AVX512 int64_t pk_sum01_16_avx512(const int16_t *lv, size_t n) {
    uint64_t total = 0;
    size_t i = 0;
    while (n - i >= 64) {
        size_t end = n - i > PK_SUM_CHUNK ? i + PK_SUM_CHUNK : i + ((n - i) & ~(size_t)63);
        __m512i a0 = _mm512_setzero_si512(), a1 = a0;
        for (; i < end; i += 64) {
            a0 = _mm512_add_epi16(a0, load32(lv + i));
            a1 = _mm512_add_epi16(a1, load32(lv + i + 32));
        }
        total += fold16(_mm512_add_epi16(a0, a1));
    }
    /* Under 64 left: at most two registers, lanes of 0..2. */
    __m512i a = _mm512_setzero_si512();
    if (n - i >= 32) {
        a = load32(lv + i);
        i += 32;
    }
    if (i < n) a = _mm512_add_epi16(a, _mm512_maskz_loadu_epi16(first_lanes(n - i), lv + i));
    return (int64_t)(total + fold16(a));
}

PK_AVX512 bool pk_levels_in_range_avx512(const int16_t *lv, size_t n, int16_t max) {
    /* The unsigned maximum of all levels (negative ones are large), compared once;
     * the zeros of the masked tail never exceed max. */
    __m512i m0 = _mm512_setzero_si512(), m1 = m0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        m0 = _mm512_max_epu16(m0, load32(lv + i));
        m1 = _mm512_max_epu16(m1, load32(lv + i + 32));
    }
    if (i + 32 <= n) {
        m0 = _mm512_max_epu16(m0, load32(lv + i));
        i += 32;
    }
    if (i < n) m1 = _mm512_max_epu16(m1, _mm512_maskz_loadu_epi16(first_lanes(n - i), lv + i));
    __m512i top = _mm512_max_epu16(m0, m1);
    return _cvtmask32_u32(_mm512_cmpgt_epu16_mask(top, _mm512_set1_epi16(max))) == 0;
}

/* The compare masks go through a 64-bit buffer that starts with the bits kept below
 * bit_offset in its byte, so every offset runs the vector loop: each step adds 32 bits
 * above the `keep` pending ones and writes 4 bytes, leaving `keep` bits pending. The
 * last, masked step leaves its bits after the levels cleared. */
PK_AVX512 int64_t pk_def_to_bitmap_avx512(const int16_t *def, size_t n, int16_t max_def,
                                          uint8_t *bits, int64_t bit_offset) {
    if (n == 0) return 0;
    uint8_t *b = bits + (bit_offset >> 3);
    const unsigned keep = (unsigned)(bit_offset & 7);
    uint64_t buf = *b & ((1u << keep) - 1);
    const __m512i m = _mm512_set1_epi16(max_def);
    int64_t set = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32, b += 4) {
        uint64_t mask = _cvtmask32_u32(_mm512_cmpeq_epi16_mask(load32(def + i), m));
        set += _mm_popcnt_u32((uint32_t)mask);
        buf |= mask << keep;
        pk_store_u32(b, (uint32_t)buf);
        buf >>= 32;
    }
    size_t r = n - i;
    if (r) {
        __mmask32 k = first_lanes(r);
        uint64_t mask = _cvtmask32_u32(
            _mm512_mask_cmpeq_epi16_mask(k, _mm512_maskz_loadu_epi16(k, def + i), m));
        set += _mm_popcnt_u32((uint32_t)mask);
        buf |= mask << keep;
    }
    /* x86: little-endian, the bitmap's byte order. */
    if (keep + r) memcpy(b, &buf, (keep + r + 7) / 8);
    return set;
}


/* ---- level histogram ---- */

/* Levels per accumulator lane before a fold (at most 0x7FFF per 16-bit lane). */
#define PK_HIST_CHUNK512 ((size_t)32 * 0x7FFF)

/* As the AVX2 pass, 32 levels per register: the compare writes a mask, the masked add
 * counts it; the tail is a masked load whose zeros are level 0, never counted. */
PK_AVX512_INLINE void hist_pass512(const int16_t *lv, size_t n, int base, const int cnt,
                                   int64_t *hist) {
    __m512i lvl[PK_LEVEL_HIST_PASS], acc[PK_LEVEL_HIST_PASS];
    const __m512i one = _mm512_set1_epi16(1);
    for (int k = 0; k < cnt; k++) lvl[k] = _mm512_set1_epi16((int16_t)(base + k));
    size_t i = 0;
    while (i < n) {
        size_t end = n - i > PK_HIST_CHUNK512 ? i + PK_HIST_CHUNK512 : n;
        for (int k = 0; k < cnt; k++) acc[k] = _mm512_setzero_si512();
        for (; i + 32 <= end; i += 32) {
            __m512i x = load32(lv + i);
            for (int k = 0; k < cnt; k++)
                acc[k] = _mm512_mask_add_epi16(acc[k], _mm512_cmpeq_epi16_mask(x, lvl[k]),
                                               acc[k], one);
        }
        if (i < end) {
            __m512i x = _mm512_maskz_loadu_epi16(first_lanes(end - i), lv + i);
            for (int k = 0; k < cnt; k++)
                acc[k] = _mm512_mask_add_epi16(acc[k], _mm512_cmpeq_epi16_mask(x, lvl[k]),
                                               acc[k], one);
            i = end;
        }
        for (int k = 0; k < cnt; k++) hist[base + k] += (int64_t)fold16(acc[k]);
    }
}

PK_AVX512 void pk_level_hist16_avx512(const int16_t *lv, size_t n, int16_t max,
                                      int64_t *hist) {
    PK_LEVEL_HIST_BODY(hist_pass512, 4 * PK_LEVEL_HIST_PASS)
}

#endif /* PK_KERNELS_X86 */
