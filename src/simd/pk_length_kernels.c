/*
 * pk_length_kernels.c: the kernels over the length arrays of the byte-array
 * encodings (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY): their sums, the
 * check of a DELTA_BYTE_ARRAY page's prefix chain with its suffixes' offsets;
 * and the writer's check of the offsets it is given. Contracts in
 * pk_kernels.h.
 *
 * One body, stamped per instruction set with its target attribute: the
 * loops carry no dependency but their sums, which the compiler turns into
 * vector accumulators as wide as the target gives (4 lanes on the baseline
 * x86-64 of the scalar table, 8 with AVX2). The offsets are running sums,
 * which no compiler vectorizes: one small scan per instruction set
 * (pk_scan_u32_*), the body's only part written per set. A DELTA_BYTE_ARRAY page
 * of short strings spent a quarter of its decode here at 4 lanes (the
 * scan's sparse reads of Q12's l_shipmode, bench/README.md).
 *
 * Depends on: common, simd.
 */
#include "pk_kernels.h"

/* Running sums of v[0..n) after `run` into out[0..n) (out[i]: run plus v[0..i]),
 * modulo 2^32; returns the last. The scalar form is one add a value in a
 * chain; the vector forms add each lane's predecessors in log2(lanes) shifted
 * adds, then the sum carried from the previous vector. */
static inline uint32_t pk_scan_u32_scalar(const uint32_t *v, size_t n, uint32_t *out,
                                          uint32_t run) {
    for (size_t i = 0; i < n; i++) out[i] = run += v[i];
    return run;
}

#ifdef PK_KERNELS_X86
#include <immintrin.h>

__attribute__((target("avx2,bmi2"))) static inline uint32_t
pk_scan_u32_avx2(const uint32_t *v, size_t n, uint32_t *out, uint32_t run) {
    __m256i carry = _mm256_set1_epi32((int)run), seven = _mm256_set1_epi32(7);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(v + i));
        x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
        x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
        /* each 128-bit half now holds its own sums: the low half's last
         * added to every lane of the high half */
        __m256i t = _mm256_shuffle_epi32(x, 0xFF);
        x = _mm256_add_epi32(x, _mm256_permute2x128_si256(t, t, 0x08));
        x = _mm256_add_epi32(x, carry);
        _mm256_storeu_si256((__m256i *)(void *)(out + i), x);
        carry = _mm256_permutevar8x32_epi32(x, seven);
    }
    run = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(carry));
    return pk_scan_u32_scalar(v + i, n - i, out + i, run);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi2"))) static inline uint32_t
pk_scan_u32_avx512(const uint32_t *v, size_t n, uint32_t *out, uint32_t run) {
    __m512i carry = _mm512_set1_epi32((int)run), z = _mm512_setzero_si512();
    __m512i fifteen = _mm512_set1_epi32(15);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i x = _mm512_loadu_si512(v + i);
        /* lanes shifted up by 1, 2, 4 and 8, zeros shifted in */
        x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 15));
        x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 14));
        x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
        x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
        x = _mm512_add_epi32(x, carry);
        _mm512_storeu_si512(out + i, x);
        carry = _mm512_permutexvar_epi32(fifteen, x);
    }
    run = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(carry));
    return pk_scan_u32_scalar(v + i, n - i, out + i, run);
}
#endif

/* The chain is checked and the offsets summed a slice at a time, so that the
 * scan reads the lengths the check has just brought to L1 (a page's arrays
 * are larger than L2). */
#define PK_DBA_SLICE 2048

/* No branch on a value: each compare is folded into an accumulated word, so
 * every iteration is the same few vector operations. A length above
 * INT32_MAX makes the result nonzero through `hi`, and the sums that may
 * then wrap are not looked at by the caller. */
#define PK_LENGTH_KERNELS_BODY(isa, ATTR)                                                     \
    ATTR uint64_t pk_sum_u32_##isa(const uint32_t *v, size_t n, uint32_t *ors) {             \
        uint64_t s = 0;                                                                      \
        uint32_t o = 0;                                                                      \
        for (size_t i = 0; i < n; i++) {                                                     \
            s += v[i];                                                                       \
            o |= v[i];                                                                       \
        }                                                                                    \
        *ors = o;                                                                            \
        return s;                                                                            \
    }                                                                                        \
    ATTR uint32_t pk_dba_chain_##isa(const uint32_t *pre, const uint32_t *len, size_t n,     \
                                     uint32_t lim, bool exact, uint32_t *offs,               \
                                     uint64_t *sum, uint32_t *longest) {                     \
        *sum = 0;                                                                            \
        *longest = 0;                                                                        \
        offs[0] = 0;                                                                         \
        if (n == 0) return 0;                                                                \
        uint32_t bad = pre[0], hi = 0, mx = 0, ex = exact ? 1u : 0u, run = 0;                \
        uint64_t s = 0;                                                                      \
        /* BYTE_ARRAY (no exact width, the INT32 limit): a value over the limit    \
         * sets bit 31 of its length like a negative length does, so one OR    \
         * checks both; the suffixes' sum comes from the offsets (below) */      \
        bool bytes = !exact && lim == (uint32_t)INT32_MAX;                                    \
        for (size_t c = 0; c < n; c += PK_DBA_SLICE) {                                       \
            size_t e = n - c > PK_DBA_SLICE ? c + PK_DBA_SLICE : n;                          \
            /* value i against value i + 1's prefix, up to the last value */                \
            size_t last = e < n ? e : n - 1;                                                 \
            if (bytes) {                                                                     \
                for (size_t i = c; i < last; i++) {                                          \
                    uint32_t t = pre[i] + len[i];                                            \
                    bad |= (uint32_t)(pre[i + 1] > t);                                       \
                    hi |= pre[i] | len[i] | t;                                               \
                    mx = t > mx ? t : mx;                                                    \
                }                                                                            \
            } else {                                                                         \
                for (size_t i = c; i < last; i++) {                                          \
                    uint32_t t = pre[i] + len[i];                                            \
                    bad |= (uint32_t)(pre[i + 1] > t) | (uint32_t)(t > lim) |                \
                           (ex & (uint32_t)(t != lim));                                      \
                    hi |= pre[i] | len[i];                                                   \
                    mx = t > mx ? t : mx;                                                    \
                    s += len[i];                                                             \
                }                                                                            \
            }                                                                                \
            run = pk_scan_u32_##isa(len + c, e - c, offs + c + 1, run);                      \
        }                                                                                    \
        uint32_t t = pre[n - 1] + len[n - 1];                                                \
        bad |= (uint32_t)(t > lim) | (ex & (uint32_t)(t != lim));                            \
        hi |= pre[n - 1] | len[n - 1];                                                       \
        mx = t > mx ? t : mx;                                                                \
        if (!bytes) {                                                                        \
            s += len[n - 1];                                                                 \
        } else if ((uint64_t)n * mx <= UINT32_MAX) {                                         \
            s = offs[n]; /* no length above mx: the sum did not wrap */                      \
        } else {                                                                             \
            for (size_t i = 0; i < n; i++) s += len[i];                                      \
        }                                                                                    \
        *sum = s;                                                                            \
        *longest = mx;                                                                       \
        return bad | (hi >> 31);                                                             \
    }                                                                                        \
    ATTR uint64_t pk_offsets_bad_##isa(const int64_t *off, size_t n) {                       \
        /* A decrease wraps to 2^64 - k: like a length above INT32_MAX, it sets          \
         * a bit above 30, so one OR of the differences tells both. */                       \
        uint64_t d = 0;                                                                      \
        for (size_t i = 0; i < n; i++) d |= (uint64_t)off[i + 1] - (uint64_t)off[i];        \
        return (d >> 31) | ((uint64_t)off[0] >> 63);                                         \
    }

PK_LENGTH_KERNELS_BODY(scalar, )

#ifdef PK_KERNELS_X86
PK_LENGTH_KERNELS_BODY(avx2, __attribute__((target("avx2,bmi2"))))
PK_LENGTH_KERNELS_BODY(avx512,
                       __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi2"))))
#endif
