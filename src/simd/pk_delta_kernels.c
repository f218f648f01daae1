/*
 * pk_delta_kernels.c: DELTA_BINARY_PACKED miniblock kernels. A call decodes
 * a run of miniblocks (a whole block, from pk_delta.c) with their widths, so
 * the block's header is parsed once and the running sum stays in a register
 * from one miniblock to the next.
 *
 * Scalar: one body per bit width 0..64 stamped out by macro (the width is a
 * compile-time constant in each copy, so every shift, mask and byte offset
 * folds), one call per run of miniblocks of the same width. AVX2: one body
 * whose shuffle and shift constants come from the unpack tables, chosen per
 * run of miniblocks without an indirect branch; width 0 is an arithmetic
 * sequence (no bits are extracted). AVX-512: the same structure, 16 values per
 * step with the unpack of pk_unpack_avx512.h and the running sum as an in-register
 * scan (INT64: widths up to 28, in 32-bit lanes).
 *
 * The caller (pk_delta.c) handles partial groups and the bounds: a group of
 * 32 values is 4*bw bytes and the kernels may read up to
 * PK_DELTA_KERNEL_SLACK bytes past the last group. All arithmetic is
 * unsigned, so wrapping is defined.
 */
#include "pk_decode_kernels.h"

#define PK_BW_0_32(X)                                                                         \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) \
    X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)  \
    X(32)
#define PK_BW_33_64(X)                                                                        \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)  \
    X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62)  \
    X(63) X(64)
#define PK_BW_ALL(X) PK_BW_0_32(X) PK_BW_33_64(X)


/* ---- scalar ------------------------------------------------------------------------- */

/* Value j (0..31) of a group of width bw: one unaligned 8-byte load (two
 * when the value straddles it, widths 58..64), reading at most 8 bytes past
 * the group. */
PK_INLINE uint64_t group_get(const uint8_t *in, unsigned j, const int bw) {
    if (bw == 0) return 0;
    unsigned bit = j * (unsigned)bw, sh = bit & 7;
    const uint8_t *p = in + (bit >> 3);
    uint64_t v = pk_load_u64(p) >> sh;
    if (sh && (unsigned)bw + sh > 64) v |= (uint64_t)p[8] << (64 - sh);
    return bw == 64 ? v : v & ((UINT64_C(1) << (bw & 63)) - 1);
}

PK_INLINE uint64_t delta64_body(const uint8_t *in, size_t groups, uint64_t md, uint64_t last,
                                uint8_t *out, const int bw) {
    for (size_t g = 0; g < groups; g++, in += 4 * bw, out += 32 * 8) {
#if defined(__GNUC__)
#pragma GCC unroll 32
#endif
        for (unsigned j = 0; j < 32; j++) {
            last += md + group_get(in, j, bw);
            pk_store_u64(out + 8 * j, last);
        }
    }
    return last;
}

PK_INLINE uint32_t delta32_body(const uint8_t *in, size_t groups, uint32_t md, uint32_t last,
                                uint8_t *out, const int bw) {
    for (size_t g = 0; g < groups; g++, in += 4 * bw, out += 32 * 4) {
#if defined(__GNUC__)
#pragma GCC unroll 32
#endif
        for (unsigned j = 0; j < 32; j++) {
            last += md + (uint32_t)group_get(in, j, bw);
            pk_store_u32(out + 4 * j, last);
        }
    }
    return last;
}

typedef uint64_t (*delta64_fixed)(const uint8_t *, size_t, uint64_t, uint64_t, uint8_t *);
typedef uint32_t (*delta32_fixed)(const uint8_t *, size_t, uint32_t, uint32_t, uint8_t *);

#define fn_STAMP64(bw)                                                                       \
    static uint64_t s64_##bw(const uint8_t *in, size_t g, uint64_t md, uint64_t last,        \
                             uint8_t *out) {                                                 \
        return delta64_body(in, g, md, last, out, bw);                                       \
    }
#define fn_STAMP32(bw)                                                                       \
    static uint32_t s32_##bw(const uint8_t *in, size_t g, uint32_t md, uint32_t last,        \
                             uint8_t *out) {                                                 \
        return delta32_body(in, g, md, last, out, bw);                                       \
    }
PK_BW_ALL(fn_STAMP64)
PK_BW_ALL(fn_STAMP32)
#define REF_S64(bw) s64_##bw,
#define REF_S32(bw) s32_##bw,
static const delta64_fixed scalar64[65] = {PK_BW_ALL(REF_S64)};
static const delta32_fixed scalar32[65] = {PK_BW_ALL(REF_S32)};

/* Miniblocks m.. that share widths[m]: one stamp call covers them all (a
 * writer often gives the miniblocks of a block one width). */
PK_INLINE size_t same_width_run(const uint8_t *widths, size_t m, size_t minis) {
    size_t run = 1;
    while (m + run < minis && widths[m + run] == widths[m]) run++;
    return run;
}

/* True when every miniblock is wider than `max` (all go to scalar stamps). */
PK_INLINE bool all_wider(const uint8_t *widths, size_t minis, int max) {
    for (size_t m = 0; m < minis; m++)
        if (widths[m] <= max) return false;
    return true;
}

/* The scalar kernels: one stamp call per run of miniblocks of one width. */
#define fn_SCALAR_RUNS(bits)                                                                 \
    uint##bits##_t pk_delta_i##bits##_scalar(const uint8_t *in, const uint8_t *widths,        \
                                             size_t minis, size_t groups, uint##bits##_t md,  \
                                             uint##bits##_t last, uint8_t *out) {             \
        for (size_t m = 0; m < minis;) {                                                      \
            size_t run = same_width_run(widths, m, minis);                                    \
            int bw = widths[m] <= 64 ? widths[m] : 0;                                         \
            last = scalar##bits[bw](in, groups * run, md, last, out);                         \
            in += groups * run * 4 * (size_t)bw;                                              \
            out += groups * run * 32 * (bits / 8);                                            \
            m += run;                                                                         \
        }                                                                                     \
        return last;                                                                          \
    }
fn_SCALAR_RUNS(32)
fn_SCALAR_RUNS(64)

/* ---- Sums of packed deltas (runs passed over by a bounded read) ---------------------- */

/* The sum of the packed values of `groups` groups of width bw, without the
 * running sums: where a reader only needs the value after a run. The empty
 * asm keeps the sum in a register: left alone, gcc -O3 vectorizes the 32
 * unrolled extractions (SLP) into code 6x slower than this loop at widths
 * such as 12, 20, 24 and 48 (bench_decode). */
PK_INLINE uint64_t sum_body(const uint8_t *in, size_t groups, const int bw) {
    uint64_t s = 0;
    for (size_t g = 0; g < groups; g++, in += 4 * bw) {
#if defined(__GNUC__)
#pragma GCC unroll 32
#endif
        for (unsigned j = 0; j < 32; j++) {
            s += group_get(in, j, bw);
#if defined(__GNUC__)
            __asm__("" : "+r"(s));
#endif
        }
    }
    return s;
}

typedef uint64_t (*sum_fixed)(const uint8_t *, size_t);
#define fn_STAMP_SUM(bw)                                                                     \
    static uint64_t sum_##bw(const uint8_t *in, size_t g) { return sum_body(in, g, bw); }
PK_BW_ALL(fn_STAMP_SUM)
#define REF_SUM(bw) sum_##bw,
static const sum_fixed scalar_sum[65] = {PK_BW_ALL(REF_SUM)};

uint64_t pk_delta_sum_scalar(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups) {
    uint64_t s = 0;
    for (size_t m = 0; m < minis;) {
        size_t run = same_width_run(widths, m, minis);
        int bw = widths[m] <= 64 ? widths[m] : 0;
        s += scalar_sum[bw](in, groups * run);
        in += groups * run * 4 * (size_t)bw;
        m += run;
    }
    return s;
}

/* ---- AVX2 ----------------------------------------------------------------------------- */

#ifdef PK_HAVE_X86_KERNELS
#include <immintrin.h>

#include "pk_unpack_tables_avx2.h"

#define PK_AVX2_FN __attribute__((target("avx2,bmi2")))
#define PK_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,bmi2")))

/* One width's unpack constants, loaded from the generated tables of
 * pk_unpack_avx2.c once per run of miniblocks. The width is a run-time value:
 * a loop per width would cost an indirect branch per miniblock, which
 * mispredicts when the widths of consecutive miniblocks differ (real data),
 * while these constants cost the same instructions per value as immediates. */
typedef struct dk_regs {
    __m256i lo, hi, shr, shl, mask;
    size_t lane1; /* byte offset of the high 128-bit half's load */
    bool two;     /* some value spans five bytes: second shuffle and shift */
} dk_regs;

PK_AVX2_INLINE dk_regs dk_setup(int bw) {
    dk_regs r;
    if (bw == 32) {
        /* The tables stop at 31 (unpack32 copies width 32): the identity. */
        r.lo = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2,
                                3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        r.hi = r.shr = r.shl = _mm256_setzero_si256();
        r.mask = _mm256_set1_epi32(-1);
        r.lane1 = 16;
        r.two = false;
        return r;
    }
    const pk_unpack_avx2_table *t = &pk_unpack_avx2_tables[bw];
    r.lo = _mm256_loadu_si256((const __m256i *)(const void *)t->shuf_lo);
    r.hi = _mm256_loadu_si256((const __m256i *)(const void *)t->shuf_hi);
    r.shr = _mm256_loadu_si256((const __m256i *)(const void *)t->shr);
    r.shl = _mm256_loadu_si256((const __m256i *)(const void *)t->shl);
    r.mask = _mm256_set1_epi32((int)((1u << bw) - 1));
    r.lane1 = t->lane1;
    r.two = t->two_words != 0;
    return r;
}

/* The 8 values (bw <= 32) of the bw bytes at p as 32-bit lanes. Reads 16
 * bytes at p and at p + lane1 (lane1 <= bw/2): less than 16 bytes past the
 * chunk. */
PK_AVX2_INLINE __m256i dk_unpack(const uint8_t *p, const dk_regs *r, const int two) {
    __m256i x = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p)),
        _mm_loadu_si128((const __m128i *)(const void *)(p + r->lane1)), 1);
    __m256i v = _mm256_srlv_epi32(_mm256_shuffle_epi8(x, r->lo), r->shr);
    if (two) v = _mm256_or_si256(v, _mm256_sllv_epi32(_mm256_shuffle_epi8(x, r->hi), r->shl));
    return _mm256_and_si256(v, r->mask);
}

/* Running sums in 32 bits: an inclusive prefix sum of the 8 lanes, plus the
 * carry (the previous value in all lanes) added after it, so that the only
 * loop-carried dependency is one add per 8 values. */
PK_AVX2_INLINE __m256i d32_chunks(const uint8_t *p, int bw, const dk_regs *r, size_t chunks,
                                  __m256i vmd, __m256i carry, uint8_t *out, const int two) {
    const __m256i seven = _mm256_set1_epi32(7);
    for (size_t i = 0; i < chunks; i++, p += bw, out += 32) {
        __m256i v = _mm256_add_epi32(dk_unpack(p, r, two), vmd);
        v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
        v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
        __m256i t = _mm256_shuffle_epi32(v, 0xFF);
        v = _mm256_add_epi32(v, _mm256_permute2x128_si256(t, t, 0x08));
        _mm256_storeu_si256((__m256i *)(void *)out, _mm256_add_epi32(v, carry));
        carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(v, seven));
    }
    return carry;
}

/* Width 0: the arithmetic sequence last + md*(j+1), no input read. */
PK_AVX2_INLINE __m256i d32_seq(size_t chunks, uint32_t md, __m256i carry, uint8_t *out) {
    const __m256i seq = _mm256_mullo_epi32(_mm256_set1_epi32((int)md),
                                           _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8));
    const __m256i step = _mm256_set1_epi32((int)(md * 8u));
    for (size_t i = 0; i < chunks; i++, out += 32) {
        _mm256_storeu_si256((__m256i *)(void *)out, _mm256_add_epi32(carry, seq));
        carry = _mm256_add_epi32(carry, step);
    }
    return carry;
}

PK_AVX2_INLINE __m256i d64_seq(size_t quads, uint64_t md, __m256i carry, uint8_t *out) {
    const __m256i seq = _mm256_setr_epi64x((long long)md, (long long)(md * 2),
                                           (long long)(md * 3), (long long)(md * 4));
    const __m256i step = _mm256_set1_epi64x((long long)(md * 4));
    for (size_t i = 0; i < quads; i++, out += 32) {
        _mm256_storeu_si256((__m256i *)(void *)out, _mm256_add_epi64(carry, seq));
        carry = _mm256_add_epi64(carry, step);
    }
    return carry;
}

/* The carry stays in a register across the miniblocks of the call; widths
 * above 32 (INT32 columns with 33-bit deltas, rare) use the scalar stamps. */
PK_AVX2_FN uint32_t pk_delta_i32_avx2(const uint8_t *in, const uint8_t *widths, size_t minis,
                                      size_t groups, uint32_t min_delta, uint32_t last,
                                      uint8_t *out) {
    /* Calls with only scalar-stamp widths skip the vector state (ymm spills
     * around the stamp calls, carry moves in and out of a register). */
    if (all_wider(widths, minis, 32))
        return pk_delta_i32_scalar(in, widths, minis, groups, min_delta, last, out);
    const __m256i vmd = _mm256_set1_epi32((int)min_delta);
    __m256i carry = _mm256_set1_epi32((int)last);
    for (size_t m = 0; m < minis;) {
        size_t run = same_width_run(widths, m, minis);
        int bw = widths[m] <= 64 ? widths[m] : 0;
        size_t chunks = groups * run * 4;
        if (bw == 0) {
            carry = d32_seq(chunks, min_delta, carry, out);
        } else if (bw <= 32) {
            dk_regs r = dk_setup(bw);
            if (r.two) carry = d32_chunks(in, bw, &r, chunks, vmd, carry, out, 1);
            else carry = d32_chunks(in, bw, &r, chunks, vmd, carry, out, 0);
        } else {
            uint32_t l = (uint32_t)_mm256_cvtsi256_si32(carry);
            carry = _mm256_set1_epi32((int)scalar32[bw](in, groups * run, min_delta, l, out));
        }
        in += chunks * (size_t)bw;
        out += chunks * 32;
        m += run;
    }
    return (uint32_t)_mm256_cvtsi256_si32(carry);
}

/* INT64, widths 1..16, one group of 32 values per step, transposed: 64-bit
 * lane j holds the 8 values 8j..8j+7 of the group (one little-endian word at
 * byte j*bw holds all of them for widths <= 8; two words, at j*bw and
 * j*bw + 4*bw/8, for 9..16), so the running sums within each lane are plain
 * vertical adds. The four lanes' totals are then prefix-summed once (two
 * shifted adds) with the carry, added to the 8 sums, and a 4x4 transpose of
 * 64-bit elements puts the values back in order for the stores. Reading a
 * value costs an and and a shift; no lane-crossing op runs per value, which
 * is what made the in-order layout slower than the scalar stamps. */
PK_AVX2_INLINE __m256i d64_words(const uint8_t *p, size_t bw) {
    __m128i a = _mm_castpd_si128(_mm_loadh_pd(
        _mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(const void *)p)),
        (const double *)(const void *)(p + bw)));
    __m128i b = _mm_castpd_si128(_mm_loadh_pd(
        _mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(const void *)(p + 2 * bw))),
        (const double *)(const void *)(p + 3 * bw)));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

/* Stores the 4x4 64-bit block whose column t is c[t] (lane j of c[t] is value
 * 8j + t of the group) as rows: out + 64*j gets lane j of c[0..3]. */
PK_AVX2_INLINE void d64_store_t(const __m256i *c, uint8_t *out) {
    __m256i t0 = _mm256_unpacklo_epi64(c[0], c[1]), t1 = _mm256_unpackhi_epi64(c[0], c[1]);
    __m256i t2 = _mm256_unpacklo_epi64(c[2], c[3]), t3 = _mm256_unpackhi_epi64(c[2], c[3]);
    _mm256_storeu_si256((__m256i *)(void *)out, _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(out + 64), _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(out + 128), _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256((__m256i *)(void *)(out + 192), _mm256_permute2x128_si256(t1, t3, 0x31));
}

PK_AVX2_INLINE __m256i d64_small(const uint8_t *p, size_t bw, size_t groups, uint64_t md,
                                 __m256i carry, uint8_t *out, const int two_words) {
    const __m256i mask = _mm256_set1_epi64x((long long)((UINT64_C(1) << bw) - 1));
    const __m256i vmd = _mm256_set1_epi64x((long long)md);
    const __m128i cnt = _mm_cvtsi32_si128((int)bw), cnt1 = _mm_cvtsi32_si128((int)(4 * bw % 8));
    const size_t o1 = 4 * bw / 8;
    for (size_t g = 0; g < groups; g++, p += 4 * bw, out += 32 * 8) {
        __m256i c[8], w = d64_words(p, bw), s = _mm256_setzero_si256();
        for (int t = 0; t < 8; t++) {
            if (two_words && t == 4) w = _mm256_srl_epi64(d64_words(p + o1, bw), cnt1);
            s = _mm256_add_epi64(s, _mm256_add_epi64(_mm256_and_si256(w, mask), vmd));
            w = _mm256_srl_epi64(w, cnt);
            c[t] = s;
        }
        /* Lane totals S; inclusive prefix I over the lanes; each lane's values
         * get the carry plus the totals of the lanes before it (I - S). */
        __m256i sh1 = _mm256_blend_epi32(_mm256_permute4x64_epi64(s, 0x90),
                                         _mm256_setzero_si256(), 0x03);
        __m256i x = _mm256_add_epi64(s, sh1);
        __m256i incl = _mm256_add_epi64(x, _mm256_permute2x128_si256(x, x, 0x08));
        __m256i e = _mm256_add_epi64(carry, _mm256_sub_epi64(incl, s));
        carry = _mm256_add_epi64(carry, _mm256_permute4x64_epi64(incl, 0xFF));
        for (int t = 0; t < 8; t++) c[t] = _mm256_add_epi64(c[t], e);
        d64_store_t(c, out);
        d64_store_t(c + 4, out + 32);
    }
    return carry;
}

/* INT64: width 0 is the sequence, widths 1..16 the transposed kernel above,
 * wider ones the scalar stamps. An in-order AVX2 version for widths <= 30
 * (the 32-bit unpack, a 32-bit scan, vpmovzxdq to 64-bit lanes, the half's
 * total broadcast with vpermq) ran at about 10 cycles per 8 values against
 * 7.4 for the stamps, which issue about 5-6 instructions per value: on Zen 3
 * the lane-crossing widen and broadcast ops cost 0.5-1 cycle each
 * (bench/README.md). */
PK_AVX2_FN uint64_t pk_delta_i64_avx2(const uint8_t *in, const uint8_t *widths, size_t minis,
                                      size_t groups, uint64_t min_delta, uint64_t last,
                                      uint8_t *out) {
    if (all_wider(widths, minis, 16))
        return pk_delta_i64_scalar(in, widths, minis, groups, min_delta, last, out);
    __m256i carry = _mm256_set1_epi64x((long long)last);
    for (size_t m = 0; m < minis;) {
        size_t run = same_width_run(widths, m, minis);
        int bw = widths[m] <= 64 ? widths[m] : 0;
        if (bw == 0) {
            carry = d64_seq(groups * run * 8, min_delta, carry, out);
        } else if (bw <= 8) {
            carry = d64_small(in, (size_t)bw, groups * run, min_delta, carry, out, 0);
        } else if (bw <= 16) {
            carry = d64_small(in, (size_t)bw, groups * run, min_delta, carry, out, 1);
        } else {
            uint64_t l = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(carry));
            l = scalar64[bw](in, groups * run, min_delta, l, out);
            carry = _mm256_set1_epi64x((long long)l);
        }
        in += groups * run * 4 * (size_t)bw;
        out += groups * run * 32 * 8;
        m += run;
    }
    return (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(carry));
}

/* The sum of `chunks` chunks of 8 values of width bw <= 32 (bw bytes each),
 * widened to 64-bit lanes as they are added. */
PK_AVX2_INLINE __m256i s32_chunks(const uint8_t *p, int bw, const dk_regs *r, size_t chunks,
                                  __m256i acc, const int two) {
    for (size_t i = 0; i < chunks; i++, p += bw) {
        __m256i v = dk_unpack(p, r, two);
        acc = _mm256_add_epi64(acc, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
        acc = _mm256_add_epi64(acc, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
    }
    return acc;
}

PK_AVX2_INLINE uint64_t hsum64_avx2(__m256i v) {
    __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
}

/* Widths 1..32 through the unpack of the INT32 kernel, wider ones the scalar
 * stamps. */
PK_AVX2_FN uint64_t pk_delta_sum_avx2(const uint8_t *in, const uint8_t *widths, size_t minis,
                                      size_t groups) {
    __m256i acc = _mm256_setzero_si256();
    uint64_t s = 0;
    for (size_t m = 0; m < minis;) {
        size_t run = same_width_run(widths, m, minis);
        int bw = widths[m] <= 64 ? widths[m] : 0;
        size_t chunks = groups * run * 4;
        if (bw > 32) {
            s += scalar_sum[bw](in, groups * run);
        } else if (bw > 0) {
            dk_regs r = dk_setup(bw);
            acc = r.two ? s32_chunks(in, bw, &r, chunks, acc, 1)
                        : s32_chunks(in, bw, &r, chunks, acc, 0);
        }
        in += chunks * (size_t)bw;
        m += run;
    }
    return s + hsum64_avx2(acc);
}

/* ---- AVX-512 -------------------------------------------------------------------------- */

#include "pk_unpack_avx512.h"

/* Inclusive prefix sums of the 16 lanes: four steps of an add of the register moved
 * up by 1, 2, 4 and 8 lanes with zeros in (valignd). */
PK_AVX512_INLINE __m512i scan32(__m512i v) {
    const __m512i z = _mm512_setzero_si512();
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 15));
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 14));
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 12));
    return _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 8));
}

PK_AVX512_INLINE __m512i last32(__m512i v) {
    return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v);
}

PK_AVX512_INLINE __m512i last64(__m512i v) {
    return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), v);
}

/* The 16 deltas (bw 1..30 or 32) of the step at p, of which p[0..left) are readable. */
PK_AVX512_INLINE __m512i e32_deltas(const pk_f32 *f, const uint8_t *p, size_t left, int bw,
                                    const int permute, const int fifth) {
    if (bw == 32) return _mm512_loadu_si512((const void *)p);
    return pk_f32_get(f, pk_f32_load(p, left, bw, permute), permute, fifth);
}

/* INT32: `steps` steps of 16 values. The step's scan is added to the carry (the
 * previous value in every lane), and the carry moves on by the scan's last lane, so
 * the only loop-carried dependency is one add per 16 values. */
PK_AVX512_INLINE __m512i e32_steps(const uint8_t *p, size_t left, int bw, size_t steps,
                                   __m512i vmd, __m512i carry, uint8_t *out,
                                   const int permute, const int fifth) {
    const pk_f32 f = pk_f32_setup(bw < 32 ? bw : 1);
    for (size_t i = 0; i < steps; i++, p += 2 * bw, left -= 2 * (size_t)bw, out += 64) {
        __m512i v = scan32(_mm512_add_epi32(e32_deltas(&f, p, left, bw, permute, fifth), vmd));
        _mm512_storeu_si512((void *)out, _mm512_add_epi32(v, carry));
        carry = _mm512_add_epi32(carry, last32(v));
    }
    return carry;
}

/* INT64, widths 1..28: the scan in 32-bit lanes (16 deltas of up to 28 bits sum to
 * less than 2^32), widened, plus (lane + 1) * min_delta and the carry. Half the scan
 * steps of scanning two 64-bit halves. */
PK_AVX512_INLINE __m512i e64_narrow(const uint8_t *p, size_t left, int bw, size_t steps,
                                    uint64_t md, __m512i carry, uint8_t *out,
                                    const int permute, const int fifth) {
    const pk_f32 f = pk_f32_setup(bw);
    const __m512i vmd = _mm512_set1_epi64((long long)md);
    const __m512i seq_lo = _mm512_mullo_epi64(vmd, _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8));
    const __m512i seq_hi = _mm512_add_epi64(seq_lo, _mm512_slli_epi64(vmd, 3));
    const __m512i md16 = _mm512_slli_epi64(vmd, 4);
    for (size_t i = 0; i < steps; i++, p += 2 * bw, left -= 2 * (size_t)bw, out += 128) {
        __m512i v = scan32(e32_deltas(&f, p, left, bw, permute, fifth));
        __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v));
        __m512i hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(v, 1));
        _mm512_storeu_si512((void *)out, _mm512_add_epi64(lo, _mm512_add_epi64(carry, seq_lo)));
        _mm512_storeu_si512((void *)(out + 64),
                            _mm512_add_epi64(hi, _mm512_add_epi64(carry, seq_hi)));
        carry = _mm512_add_epi64(carry, _mm512_add_epi64(last64(hi), md16));
    }
    return carry;
}

/* Width 0: the arithmetic sequences, 16 / 8 values per step. */
PK_AVX512_INLINE __m512i e32_seq(size_t steps, uint32_t md, __m512i carry, uint8_t *out) {
    const __m512i seq = _mm512_mullo_epi32(
        _mm512_set1_epi32((int)md),
        _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
    const __m512i step = _mm512_set1_epi32((int)(md * 16u));
    for (size_t i = 0; i < steps; i++, out += 64) {
        _mm512_storeu_si512((void *)out, _mm512_add_epi32(carry, seq));
        carry = _mm512_add_epi32(carry, step);
    }
    return carry;
}

PK_AVX512_INLINE __m512i e64_seq(size_t steps, uint64_t md, __m512i carry, uint8_t *out) {
    const __m512i vmd = _mm512_set1_epi64((long long)md);
    const __m512i seq = _mm512_mullo_epi64(vmd, _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8));
    const __m512i step = _mm512_slli_epi64(vmd, 3);
    for (size_t i = 0; i < steps; i++, out += 64) {
        _mm512_storeu_si512((void *)out, _mm512_add_epi64(carry, seq));
        carry = _mm512_add_epi64(carry, step);
    }
    return carry;
}

/* The bytes of all the miniblocks of a call plus the slack the caller guarantees:
 * how far the loads of pk_f32_load may reach (they mask what lies past it). */
PK_INLINE size_t readable_bytes(const uint8_t *widths, size_t minis, size_t groups) {
    size_t total = PK_DELTA_KERNEL_SLACK;
    for (size_t m = 0; m < minis; m++) total += groups * 4 * (size_t)(widths[m] <= 64 ? widths[m] : 0);
    return total;
}

/* One run of `values` INT32 values of width bw. The unpack flags are constants in
 * each call (one call per combination), so no test of them runs per value. Width 31
 * does not fit pk_f32 and takes the AVX2 steps; widths above 32 the scalar stamps (as
 * in the AVX2 kernel). */
PK_AVX512_INLINE __m512i e32_run(const uint8_t *in, size_t left, int bw, size_t values,
                                 uint32_t md, __m512i carry, uint8_t *out) {
    const __m512i vmd = _mm512_set1_epi32((int)md);
    size_t steps = values / 16;
    if (bw == 0) return e32_seq(steps, md, carry, out);
    if (bw == 31) {
        dk_regs r = dk_setup(bw);
        __m256i c = d32_chunks(in, bw, &r, values / 8, _mm512_castsi512_si256(vmd),
                               _mm512_castsi512_si256(carry), out, 1);
        return _mm512_broadcastd_epi32(_mm256_castsi256_si128(c));
    }
    if (bw > 32) {
        uint32_t l = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(carry));
        return _mm512_set1_epi32((int)scalar32[bw](in, values / PK_DELTA_GROUP, md, l, out));
    }
    if (!PK_F32_PERMUTE(bw)) return e32_steps(in, left, bw, steps, vmd, carry, out, 0, 0);
    if (!PK_F32_FIFTH(bw)) return e32_steps(in, left, bw, steps, vmd, carry, out, 1, 0);
    return e32_steps(in, left, bw, steps, vmd, carry, out, 1, 1);
}

/* One run of INT64 values: width 0 the sequence, 1..28 the 32-bit scan, wider ones
 * the scalar stamps. An AVX-512 version for 29..62 (8 values per step in 64-bit lanes
 * of pk_f64, a three-step scan) measured 0.8-0.9x the stamps (bench/README.md). */
PK_AVX512_INLINE __m512i e64_run(const uint8_t *in, size_t left, int bw, size_t values,
                                 uint64_t md, __m512i carry, uint8_t *out) {
    if (bw == 0) return e64_seq(values / 8, md, carry, out);
    if (bw > 28) {
        uint64_t l = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(carry));
        return _mm512_set1_epi64((long long)scalar64[bw](in, values / PK_DELTA_GROUP, md, l, out));
    }
    size_t steps = values / 16;
    if (!PK_F32_PERMUTE(bw)) return e64_narrow(in, left, bw, steps, md, carry, out, 0, 0);
    if (!PK_F32_FIFTH(bw)) return e64_narrow(in, left, bw, steps, md, carry, out, 1, 0);
    return e64_narrow(in, left, bw, steps, md, carry, out, 1, 1);
}

/* Both kernels: one run of miniblocks of one width at a time, the carry (the last
 * value in every lane) kept in a register from run to run. Calls with only
 * scalar-stamp widths take the scalar kernel (no vector state to keep). */
PK_AVX512_INLINE __m512i delta_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                                      size_t groups, uint64_t md, uint64_t last, uint8_t *out,
                                      const int is64) {
    if (is64 && all_wider(widths, minis, 28))
        return _mm512_set1_epi64((long long)pk_delta_i64_scalar(in, widths, minis, groups, md,
                                                                last, out));
    if (!is64 && all_wider(widths, minis, 32))
        return _mm512_set1_epi32((int)pk_delta_i32_scalar(in, widths, minis, groups,
                                                          (uint32_t)md, (uint32_t)last, out));
    __m512i carry = is64 ? _mm512_set1_epi64((long long)last) : _mm512_set1_epi32((int)last);
    size_t left = readable_bytes(widths, minis, groups);
    for (size_t m = 0, run; m < minis; m += run) {
        run = same_width_run(widths, m, minis);
        int bw = widths[m] <= 64 ? widths[m] : 0;
        size_t values = groups * run * PK_DELTA_GROUP, bytes = values / 8 * (size_t)bw;
        if (is64) carry = e64_run(in, left, bw, values, md, carry, out);
        else carry = e32_run(in, left, bw, values, (uint32_t)md, carry, out);
        in += bytes;
        left -= bytes;
        out += values * (is64 ? 8 : 4);
    }
    return carry;
}

/* The sum of `steps` steps of 16 values of width bw (1..30, 32), widened to
 * 64-bit lanes as they are added. */
PK_AVX512_INLINE __m512i s32_steps(const uint8_t *p, size_t left, int bw, size_t steps,
                                   __m512i acc, const int permute, const int fifth) {
    const pk_f32 f = pk_f32_setup(bw < 32 ? bw : 1);
    for (size_t i = 0; i < steps; i++, p += 2 * bw, left -= 2 * (size_t)bw) {
        __m512i v = e32_deltas(&f, p, left, bw, permute, fifth);
        acc = _mm512_add_epi64(acc, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v)));
        acc = _mm512_add_epi64(acc, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(v, 1)));
    }
    return acc;
}

/* Widths 1..30 and 32 through the unpack of the INT32 kernel, 31 the AVX2
 * steps, wider ones the scalar stamps. */
PK_AVX512 uint64_t pk_delta_sum_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                                       size_t groups) {
    __m512i acc = _mm512_setzero_si512();
    uint64_t s = 0;
    size_t left = readable_bytes(widths, minis, groups);
    for (size_t m = 0, run; m < minis; m += run) {
        run = same_width_run(widths, m, minis);
        int bw = widths[m] <= 64 ? widths[m] : 0;
        size_t values = groups * run * PK_DELTA_GROUP, bytes = values / 8 * (size_t)bw;
        if (bw > 32) {
            s += scalar_sum[bw](in, groups * run);
        } else if (bw == 31) {
            dk_regs r = dk_setup(bw);
            s += hsum64_avx2(s32_chunks(in, bw, &r, values / 8, _mm256_setzero_si256(), 1));
        } else if (bw > 0) {
            size_t steps = values / 16;
            if (!PK_F32_PERMUTE(bw)) acc = s32_steps(in, left, bw, steps, acc, 0, 0);
            else if (!PK_F32_FIFTH(bw)) acc = s32_steps(in, left, bw, steps, acc, 1, 0);
            else acc = s32_steps(in, left, bw, steps, acc, 1, 1);
        }
        in += bytes;
        left -= bytes;
    }
    return s + (uint64_t)_mm512_reduce_add_epi64(acc);
}

PK_AVX512 uint32_t pk_delta_i32_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                                       size_t groups, uint32_t min_delta, uint32_t last,
                                       uint8_t *out) {
    __m512i c = delta_avx512(in, widths, minis, groups, min_delta, last, out, 0);
    return (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(c));
}

PK_AVX512 uint64_t pk_delta_i64_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                                       size_t groups, uint64_t min_delta, uint64_t last,
                                       uint8_t *out) {
    __m512i c = delta_avx512(in, widths, minis, groups, min_delta, last, out, 1);
    return (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(c));
}
#endif /* PK_HAVE_X86_KERNELS */
