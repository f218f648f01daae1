/*
 * pk_length_kernels.c: the kernels over the length arrays of the byte-array
 * encodings (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY): their sums and the
 * check of a DELTA_BYTE_ARRAY page's prefix chain; and the writer's check of
 * the offsets it is given. Contracts in pk_kernels.h.
 *
 * One body, stamped per instruction set with its target attribute: the
 * loops carry no dependency but their sums, which the compiler turns into
 * vector accumulators as wide as the target gives (4 lanes on the baseline
 * x86-64 of the scalar table, 8 with AVX2). A DELTA_BYTE_ARRAY page
 * of short strings spent a quarter of its decode here at 4 lanes (the
 * scan's sparse reads of Q12's l_shipmode, bench/README.md).
 *
 * Depends on: common, simd.
 */
#include "pk_kernels.h"

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
                                     uint32_t lim, bool exact, uint64_t *sum,                \
                                     uint32_t *longest) {                                    \
        *sum = 0;                                                                            \
        *longest = 0;                                                                        \
        if (n == 0) return 0;                                                                \
        uint32_t bad = pre[0], hi = 0, mx = 0, ex = exact ? 1u : 0u;                         \
        uint64_t s = 0;                                                                      \
        for (size_t i = 0; i + 1 < n; i++) {                                                 \
            uint32_t t = pre[i] + len[i];                                                    \
            bad |= (uint32_t)(pre[i + 1] > t) | (uint32_t)(t > lim) | (ex & (uint32_t)(t != lim)); \
            hi |= pre[i] | len[i];                                                           \
            mx = t > mx ? t : mx;                                                            \
            s += len[i];                                                                     \
        }                                                                                    \
        uint32_t t = pre[n - 1] + len[n - 1];                                                \
        bad |= (uint32_t)(t > lim) | (ex & (uint32_t)(t != lim));                            \
        hi |= pre[n - 1] | len[n - 1];                                                       \
        mx = t > mx ? t : mx;                                                                \
        *sum = s + len[n - 1];                                                               \
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
