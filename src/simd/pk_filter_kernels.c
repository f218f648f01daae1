/*
 * pk_filter_kernels.c: the filter kernels of the pushdown scan. A batch of decoded
 * values is compared with constant bounds, or a batch of dictionary codes is looked up
 * in a bitmap of the entries that pass, into a selection bitmask (bit i for value i,
 * LSB first) whose set bits are counted. Contracts in pk_kernels.h.
 *
 * Integers: x = v ^ flip lies in [lo, hi] exactly when (unsigned)(x - lo) <= hi - lo
 * (lo <= hi; lo > hi writes zeros), so a register takes one subtraction and one
 * unsigned compare: AVX-512 has it (vpcmpud / vpcmpuq); AVX2 compares signed, with the
 * sign bit flipped on both sides. When flip is 0 or the sign bit alone it is an addition
 * (the carry out of the top bit is dropped) and joins the subtraction's constant.
 *
 * Floats: two compares whose predicates are immediates, so the vector bodies are
 * stamped once per flag combination. With PK_FILTER_NAN they are the unordered
 * negations (!(x < lo) is x >= lo or x is NaN), which let NaN through without a third
 * compare; a NaN bound becomes the empty range +inf..-inf, which only NaN gets through
 * that way.
 *
 * Codes: a code passes when it is below npass (an unsigned compare: -1 is above
 * everything) and its bit is set. The bit comes from dword code >> 5 of the bitmap,
 * held in registers for small dictionaries (AVX2: up to 512 entries in two registers,
 * vpermd; AVX-512: up to 1024 in two, vpermt2d, and up to 4096 in eight, four vpermt2d
 * and two blends) and gathered for larger ones. A gather
 * reads whole dwords, so only codes whose dword lies inside pass[0 .. ceil(npass/8)) are
 * gathered; the last, partial dword is assembled from its bytes once and taken from a
 * register by the others.
 *
 * The vector kernels share one body (PK_FILTER_BLOCKS), stamped per instruction set
 * and type: blocks of 64 values, each a 64-bit word of out joined from the masks of
 * its steps (AVX-512: a mask register per register of values; AVX2: movemask, with the
 * compares of four registers of 32-bit lanes packed into one movemask); the last
 * block's steps load only the values left (masked loads) and it is stored as its
 * ceil(left/8) bytes. The scalar kernels are the reference: the predicate of the
 * contract value by value.
 */
#include "pk_kernels.h"

#include <math.h>

/* Codes below the limit go through the bitmap: npass clamped to 0 .. 2^31 (codes are
 * int32, so no code reaches a larger npass). */
PK_INLINE uint32_t code_limit(int64_t npass) {
    return npass <= 0 ? 0 : npass > INT32_MAX ? UINT32_C(0x80000000) : (uint32_t)npass;
}

/* ---- shared, and the scalar reference ---------------------------------------------- */

/* Zeros for out[0 .. ceil(n/8)): a range nothing can pass. */
static int64_t filter_none(size_t n, uint8_t *out) {
    memset(out, 0, (n + 7) / 8);
    return 0;
}

/* A float body stamped once per flag combination (the vector compares take their
 * predicates as immediates; the scalar ones fold). */
#define PK_BY_FLAGS(flags, BODY, ...)                                                        \
    switch ((flags) & 7u) {                                                                  \
    case 0: return BODY(__VA_ARGS__, 0);                                                     \
    case 1: return BODY(__VA_ARGS__, 1);                                                     \
    case 2: return BODY(__VA_ARGS__, 2);                                                     \
    case 3: return BODY(__VA_ARGS__, 3);                                                     \
    case 4: return BODY(__VA_ARGS__, 4);                                                     \
    case 5: return BODY(__VA_ARGS__, 5);                                                     \
    case 6: return BODY(__VA_ARGS__, 6);                                                     \
    default: return BODY(__VA_ARGS__, 7);                                                    \
    }

/* out[0 .. ceil(n/8)) from PASS (an expression of i, evaluated for every i < n),
 * returning the count: words of 64 values (a loop of a constant count, which the
 * compilers unroll), then the bytes of the last. */
#define PK_FILTER_SCALAR(PASS)                                                               \
    do {                                                                                     \
        int64_t set = 0;                                                                     \
        size_t i = 0;                                                                        \
        for (size_t w = 0; w + 64 <= n; w += 64) {                                           \
            uint64_t m = 0;                                                                  \
            for (i = w; i < w + 64; i++) m |= (uint64_t)((PASS) ? 1u : 0u) << (i - w);       \
            pk_store_u64(out + w / 8, m);                                                    \
            set += pk_bits_popcount(m);                                                      \
        }                                                                                    \
        for (unsigned byte = 0; i < n; i++) {                                                \
            unsigned p = (PASS) ? 1u : 0u;                                                   \
            byte |= p << (i & 7);                                                            \
            set += p;                                                                        \
            if ((i & 7) == 7 || i + 1 == n) {                                                \
                out[i / 8] = (uint8_t)byte;                                                  \
                byte = 0;                                                                    \
            }                                                                                \
        }                                                                                    \
        return set;                                                                          \
    } while (0)

/* Value i of a batch that need not be aligned. */
PK_INLINE int32_t at_i32(const int32_t *v, size_t i) {
    return (int32_t)pk_load_u32((const uint8_t *)v + 4 * i);
}
PK_INLINE int64_t at_i64(const int64_t *v, size_t i) {
    return (int64_t)pk_load_u64((const uint8_t *)v + 8 * i);
}
PK_INLINE float at_f32(const float *v, size_t i) { return pk_load_f32((const uint8_t *)v + 4 * i); }
PK_INLINE double at_f64(const double *v, size_t i) { return pk_load_f64((const uint8_t *)v + 8 * i); }

/* The comparisons are joined with & and |, not && and ||: with random verdicts a branch
 * per comparison mispredicts (4096 values, Emerald Rapids: float 0.2 values/ns with
 * branches and byte stores, 0.7 without branches and with word stores; int32 0.4, 1.0). */
#define PK_IN_INT(x, lo, hi) ((unsigned)((lo) <= (x)) & (unsigned)((x) <= (hi)))

int64_t pk_filter_i32_scalar(const int32_t *v, size_t n, int32_t lo, int32_t hi, uint32_t flip,
                             uint8_t *out) {
    PK_FILTER_SCALAR(PK_IN_INT((int32_t)((uint32_t)at_i32(v, i) ^ flip), lo, hi));
}

int64_t pk_filter_i64_scalar(const int64_t *v, size_t n, int64_t lo, int64_t hi, uint64_t flip,
                             uint8_t *out) {
    PK_FILTER_SCALAR(PK_IN_INT((int64_t)((uint64_t)at_i64(v, i) ^ flip), lo, hi));
}

/* The float predicate of the contract under flags f. */
#define PK_IN_FLOAT(x, lo, hi, f)                                                            \
    (((unsigned)((f) & PK_FILTER_LO_OPEN ? (lo) < (x) : (lo) <= (x)) &                       \
      (unsigned)((f) & PK_FILTER_HI_OPEN ? (x) < (hi) : (x) <= (hi))) |                      \
     (unsigned)(((f) & PK_FILTER_NAN) != 0 && isnan(x)))

PK_INLINE int64_t f32_scalar(const float *v, size_t n, float lo, float hi, uint8_t *out,
                             const unsigned f) {
    PK_FILTER_SCALAR(PK_IN_FLOAT(at_f32(v, i), lo, hi, f));
}

PK_INLINE int64_t f64_scalar(const double *v, size_t n, double lo, double hi, uint8_t *out,
                             const unsigned f) {
    PK_FILTER_SCALAR(PK_IN_FLOAT(at_f64(v, i), lo, hi, f));
}

int64_t pk_filter_f32_scalar(const float *v, size_t n, float lo, float hi, unsigned flags,
                             uint8_t *out) {
    PK_BY_FLAGS(flags, f32_scalar, v, n, lo, hi, out);
}

int64_t pk_filter_f64_scalar(const double *v, size_t n, double lo, double hi, unsigned flags,
                             uint8_t *out) {
    PK_BY_FLAGS(flags, f64_scalar, v, n, lo, hi, out);
}

/* A code out of range looks up bit 0 (readable: npass > 0) and is masked off. */
PK_INLINE unsigned code_pass(const int32_t *codes, size_t i, const uint8_t *pass, uint32_t lim) {
    uint32_t c = (uint32_t)at_i32(codes, i), ok = c < lim, k = ok ? c : 0;
    return (pass[k >> 3] >> (k & 7)) & ok;
}

int64_t pk_filter_codes_scalar(const int32_t *codes, size_t n, const uint8_t *pass,
                               int64_t npass, uint8_t *out) {
    if (npass <= 0) return filter_none(n, out);
    const uint32_t lim = code_limit(npass);
    PK_FILTER_SCALAR(code_pass(codes, i, pass, lim));
}

/* Column comparisons come down to a[i] < b[i] or a[i] == b[i], the sides swapped for
 * > and <=, the result inverted for !=, <= and >= (a <= b is !(b < a)). */
typedef struct cmp_plan {
    bool swap, lt;
    uint64_t inv;
} cmp_plan;

PK_INLINE cmp_plan cmp_plan_of(unsigned op) {
    cmp_plan p = {false, true, 0};
    switch (op) {
    case PK_CMP_EQ: p.lt = false; break;
    case PK_CMP_NE: p.lt = false, p.inv = ~UINT64_C(0); break;
    case PK_CMP_LT: break;
    case PK_CMP_GT: p.swap = true; break;
    case PK_CMP_LE: p.swap = true, p.inv = ~UINT64_C(0); break;
    default: p.inv = ~UINT64_C(0); break; /* >= */
    }
    return p;
}

#define PK_CMP_SCALAR(T, load)                                                               \
    do {                                                                                     \
        cmp_plan pl_ = cmp_plan_of(op);                                                      \
        const T *x_ = pl_.swap ? b : a, *y_ = pl_.swap ? a : b;                             \
        unsigned flip_ = pl_.inv ? 1u : 0u;                                                  \
        if (pl_.lt) PK_FILTER_SCALAR((load(x_, i) < load(y_, i)) ^ flip_);                  \
        PK_FILTER_SCALAR((load(x_, i) == load(y_, i)) ^ flip_);                             \
    } while (0)

int64_t pk_compare_i32_scalar(const int32_t *a, const int32_t *b, size_t n, unsigned op,
                              uint8_t *out) {
    PK_CMP_SCALAR(int32_t, at_i32);
}

int64_t pk_compare_i64_scalar(const int64_t *a, const int64_t *b, size_t n, unsigned op,
                              uint8_t *out) {
    PK_CMP_SCALAR(int64_t, at_i64);
}

#ifdef PK_KERNELS_X86
#include <immintrin.h>

#include "pk_unpack_avx512.h"

/* ---- the vector body ---------------------------------------------------------------- */

/* What a vector step compares, a constant of each stamp. Codes find their bitmap dword
 * in one register, in two, or by a gather. */
enum { K_I32, K_I64, K_F32, K_F64, K_CODES1, K_CODES2, K_CODES4, K_GATHER };
#define PK_WIDE(kind) ((kind) == K_I64 || (kind) == K_F64) /* 64-bit values */

/* The low k bits (k < 64). */
PK_INLINE uint64_t low_mask(size_t k) { return (UINT64_C(1) << k) - 1; }

/* The kernel body over v[0..n) into out: STEP(p, left) gives the bits of the `lanes`
 * values at p (left >= lanes: all of them; else only p[0..left) is read, and the bits
 * past left are anything), XORed with `inv` (~0 for steps that give the values that
 * fail). Returns from the enclosing kernel. */
#define PK_FILTER_BLOCKS(v, n, out, lanes, inv, STEP)                                        \
    do {                                                                                     \
        uint64_t set_ = 0;                                                                   \
        size_t i_ = 0;                                                                       \
        for (; i_ + 64 <= (n); i_ += 64) {                                                   \
            uint64_t m_ = 0;                                                                 \
            _Pragma("GCC unroll 16") for (size_t j_ = 0; j_ < 64; j_ += (lanes))             \
                m_ |= (uint64_t)STEP((v) + i_ + j_, (size_t)(lanes)) << j_;                  \
            m_ ^= (inv);                                                                     \
            pk_store_u64((out) + i_ / 8, m_);                                                \
            set_ += (uint64_t)__builtin_popcountll(m_);                                      \
        }                                                                                    \
        if (i_ < (n)) {                                                                      \
            size_t left_ = (n) - i_;                                                         \
            uint64_t m_ = 0;                                                                 \
            for (size_t j_ = 0; j_ < left_; j_ += (lanes))                                   \
                m_ |= (uint64_t)STEP((v) + i_ + j_, left_ - j_) << j_;                       \
            m_ = (m_ ^ (inv)) & low_mask(left_);                                             \
            memcpy((out) + i_ / 8, &m_, (left_ + 7) / 8);                                    \
            set_ += (uint64_t)__builtin_popcountll(m_);                                      \
        }                                                                                    \
        return (int64_t)set_;                                                                \
    } while (0)

/* The compare of x with lo (CMP(x, lo, predicate)) and with hi under flags f. */
#define PK_CMP_LO(CMP, x, lo, f)                                                             \
    ((f) & PK_FILTER_NAN                                                                     \
         ? ((f) & PK_FILTER_LO_OPEN ? CMP(x, lo, _CMP_NLE_UQ) : CMP(x, lo, _CMP_NLT_UQ))     \
         : ((f) & PK_FILTER_LO_OPEN ? CMP(x, lo, _CMP_GT_OQ) : CMP(x, lo, _CMP_GE_OQ)))
#define PK_CMP_HI(CMP, x, hi, f)                                                             \
    ((f) & PK_FILTER_NAN                                                                     \
         ? ((f) & PK_FILTER_HI_OPEN ? CMP(x, hi, _CMP_NGE_UQ) : CMP(x, hi, _CMP_NGT_UQ))     \
         : ((f) & PK_FILTER_HI_OPEN ? CMP(x, hi, _CMP_LT_OQ) : CMP(x, hi, _CMP_LE_OQ)))

/* The constants of a kernel, whatever its instruction set; the steps broadcast them (out
 * of the loops: each body takes its copy by value). Integers: (x ^ flip) - off <= range
 * passes, compared unsigned (see the top). Floats: the bounds. Codes: the limit less one
 * (codes <= lim1 go through the bitmap), the codes <= full whose dword lies whole inside
 * the bitmap, the last, partial dword, and the bitmap (also in `small`, zeros after it,
 * when it fits). */
typedef struct filter_args {
    uint64_t flip, off, range;
    double lo, hi;
    const uint8_t *pass;
    uint32_t lim1, full, tail;
    uint8_t small[128];
    const uint8_t *big; /* K_CODES4: the bitmap in 512 bytes, zeros after it */
} filter_args;

/* Returns whether the xor is needed: not when flip is 0 or the sign bit alone (an
 * addition then, joined to off). */
PK_INLINE int int_args(filter_args *a, uint64_t lo, uint64_t hi, uint64_t flip, uint64_t sign) {
    a->flip = flip;
    a->off = lo;
    a->range = hi - lo;
    if (flip & ~sign) return 1;
    a->off -= flip;
    return 0;
}

/* Returns the flags to stamp: a NaN bound makes the empty range +inf..-inf, whose
 * compares still let NaN through (see the top). */
PK_INLINE unsigned float_args(filter_args *a, double lo, double hi, unsigned flags) {
    if (isnan(lo) || isnan(hi)) {
        lo = INFINITY;
        hi = -INFINITY;
        flags &= PK_FILTER_NAN;
    }
    a->lo = lo;
    a->hi = hi;
    return flags;
}

/* For npass > 0; returns the bitmap's bytes, nbytes. */
PK_INLINE size_t code_args(filter_args *a, const uint8_t *pass, int64_t npass) {
    uint32_t lim = code_limit(npass);
    size_t nbytes = ((size_t)lim + 7) / 8, whole = nbytes / 4 * 4;
    a->pass = pass;
    a->lim1 = lim - 1;
    a->full = (uint32_t)(whole * 8) - 1; /* used by gathers only, whole > 0 then */
    a->tail = 0;
    for (size_t b = whole; b < nbytes; b++) a->tail |= (uint32_t)pass[b] << (8 * (b - whole));
    memset(a->small, 0, sizeof a->small);
    if (nbytes <= sizeof a->small) memcpy(a->small, pass, nbytes);
    return nbytes;
}

/* The five kernels of an instruction set, on its body body_<isa>(v, n, args, out, kind,
 * c), where c is the constant of a stamp (integers: whether to xor; floats: the flags):
 * integers check for the empty range and stamp the body with and without the xor,
 * floats stamp it per flag combination, and codes per way to the bitmap's dword
 * (registers for bitmaps of up to `regs` bytes, 32 a register; above that, eight
 * registers in four pairs for bitmaps of up to `regs4` bytes where regs4 > regs;
 * gathers beyond). */
#define PK_FILTER_ENTRIES(isa, ATTR, regs, regs4)                                            \
    PK_INT_ENTRY(isa, ATTR, 32, K_I32)                                                       \
    PK_INT_ENTRY(isa, ATTR, 64, K_I64)                                                       \
    PK_FLOAT_ENTRY(isa, ATTR, f32, float, K_F32)                                             \
    PK_FLOAT_ENTRY(isa, ATTR, f64, double, K_F64)                                            \
    ATTR int64_t pk_filter_codes_##isa(const int32_t *codes, size_t n, const uint8_t *pass,  \
                                       int64_t npass, uint8_t *out) {                        \
        if (npass <= 0) return filter_none(n, out);                                          \
        filter_args a;                                                                       \
        size_t nbytes = code_args(&a, pass, npass);                                          \
        if ((regs4) > (regs) && nbytes > (regs) && nbytes <= (regs4)) {                      \
            uint8_t big[(regs4) > (regs) ? (regs4) : 1];                                      \
            memset(big, 0, sizeof big);                                                      \
            memcpy(big, pass, nbytes);                                                       \
            a.big = big;                                                                     \
            return body_##isa(codes, n, a, out, K_CODES4, 0);                                \
        }                                                                                    \
        if (nbytes > (regs)) return body_##isa(codes, n, a, out, K_GATHER, 0);               \
        if (nbytes > 32) return body_##isa(codes, n, a, out, K_CODES2, 0);                   \
        return body_##isa(codes, n, a, out, K_CODES1, 0);                                    \
    }
#define PK_INT_ENTRY(isa, ATTR, bits, kind)                                                  \
    ATTR int64_t pk_filter_i##bits##_##isa(const int##bits##_t *v, size_t n, int##bits##_t lo, \
                                           int##bits##_t hi, uint##bits##_t flip,            \
                                           uint8_t *out) {                                   \
        if (lo > hi) return filter_none(n, out);                                             \
        filter_args a;                                                                       \
        if (int_args(&a, (uint##bits##_t)lo, (uint##bits##_t)hi, flip,                      \
                     UINT64_C(1) << ((bits) - 1)))                                           \
            return body_##isa(v, n, a, out, kind, 1);                                        \
        return body_##isa(v, n, a, out, kind, 0);                                            \
    }
#define PK_FLOAT_ENTRY(isa, ATTR, name, T, kind)                                             \
    ATTR int64_t pk_filter_##name##_##isa(const T *v, size_t n, T lo, T hi, unsigned flags,  \
                                          uint8_t *out) {                                    \
        filter_args a;                                                                       \
        flags = float_args(&a, lo, hi, flags);                                               \
        PK_BY_FLAGS(flags, body_##isa, v, n, a, out, kind);                                  \
    }

/* ---- AVX2 ----------------------------------------------------------------------------- */

#define PK_AVX2_ISA "avx2,bmi2,popcnt"
#define PK_AVX2 __attribute__((target(PK_AVX2_ISA)))
#define PK_AVX2_INLINE static inline __attribute__((always_inline, target(PK_AVX2_ISA)))

/* A register of 8 32-bit lanes from p (left < 8: lanes i < left, zeros after). */
PK_AVX2_INLINE __m256i load8x32(const void *p, size_t left) {
    if (left >= 8) return _mm256_loadu_si256((const __m256i *)p);
    __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)left),
                                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_maskload_epi32((const int *)p, lanes);
}

/* A register of 4 64-bit lanes from p (left < 4: lanes i < left). */
PK_AVX2_INLINE __m256i load4x64(const void *p, size_t left) {
    if (left >= 4) return _mm256_loadu_si256((const __m256i *)p);
    __m256i lanes = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)left),
                                       _mm256_setr_epi64x(0, 1, 2, 3));
    return _mm256_maskload_epi64((const long long *)p, lanes);
}

#define PK_CMP_PS(x, b, pred) _mm256_cmp_ps(x, b, pred)
#define PK_CMP_PD(x, b, pred) _mm256_cmp_pd(x, b, pred)

/* 8 codes x: the lanes whose sign bit is set pass. */
PK_AVX2_INLINE __m256i codes_avx2(__m256i x, const filter_args *a, const int kind) {
    __m256i dw = _mm256_srli_epi32(x, 5), w;
    if (kind == K_GATHER) {
        /* Codes <= full are gathered; the others take the last dword (or are out of range). */
        __m256i whole = _mm256_cmpeq_epi32(_mm256_min_epu32(x, _mm256_set1_epi32((int)a->full)), x);
        w = _mm256_mask_i32gather_epi32(_mm256_set1_epi32((int)a->tail),
                                        (const int *)(const void *)a->pass, dw, whole, 4);
    } else {
        /* vpermd takes the low 3 bits of the dword index; bit 8 of the code picks the
         * register. */
        const __m256i *d = (const __m256i *)(const void *)a->small;
        w = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(d), dw);
        if (kind == K_CODES2) {
            __m256i d1 = _mm256_loadu_si256(d + 1);
            __m256 w1 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(d1, dw));
            __m256 hi = _mm256_castsi256_ps(_mm256_slli_epi32(x, 23));
            w = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(w), w1, hi));
        }
    }
    /* Bit code & 31 of the dword to the sign bit. */
    __m256i bit = _mm256_sllv_epi32(w, _mm256_andnot_si256(x, _mm256_set1_epi32(31)));
    __m256i ok = _mm256_cmpeq_epi32(_mm256_min_epu32(x, _mm256_set1_epi32((int)a->lim1)), x);
    return _mm256_and_si256(bit, ok);
}

/* A register of 8 32-bit or 4 64-bit values at p: the sign bit of each lane is its
 * bit. Integers compare signed, so both sides have their sign bit flipped: the lanes
 * (x - off) ^ sign > range ^ sign fail, and (x - off) ^ sign is x - (off ^ sign). */
PK_AVX2_INLINE __m256i vec_avx2(const void *p, size_t left, const filter_args *a,
                                const int kind, const unsigned c) {
    const uint64_t sign = UINT64_C(1) << 63, sign32 = UINT64_C(1) << 31;
    __m256i x = PK_WIDE(kind) ? load4x64(p, left) : load8x32(p, left);
    if (kind == K_I32) {
        x = c ? _mm256_xor_si256(x, _mm256_set1_epi32((int)a->flip)) : x;
        x = _mm256_sub_epi32(x, _mm256_set1_epi32((int)(a->off ^ sign32)));
        return _mm256_cmpgt_epi32(x, _mm256_set1_epi32((int)(a->range ^ sign32)));
    }
    if (kind == K_I64) {
        x = c ? _mm256_xor_si256(x, _mm256_set1_epi64x((long long)a->flip)) : x;
        x = _mm256_sub_epi64(x, _mm256_set1_epi64x((long long)(a->off ^ sign)));
        return _mm256_cmpgt_epi64(x, _mm256_set1_epi64x((long long)(a->range ^ sign)));
    }
    if (kind == K_F32) {
        __m256 f = _mm256_castsi256_ps(x);
        __m256 lo = _mm256_set1_ps((float)a->lo), hi = _mm256_set1_ps((float)a->hi);
        return _mm256_castps_si256(
            _mm256_and_ps(PK_CMP_LO(PK_CMP_PS, f, lo, c), PK_CMP_HI(PK_CMP_PS, f, hi, c)));
    }
    if (kind == K_F64) {
        __m256d d = _mm256_castsi256_pd(x);
        __m256d lo = _mm256_set1_pd(a->lo), hi = _mm256_set1_pd(a->hi);
        return _mm256_castpd_si256(
            _mm256_and_pd(PK_CMP_LO(PK_CMP_PD, d, lo, c), PK_CMP_HI(PK_CMP_PD, d, hi, c)));
    }
    return codes_avx2(x, a, kind);
}

/* The values left after the first k of `left` (0 when none are). */
PK_INLINE size_t after(size_t left, size_t k) { return left > k ? left - k : 0; }

/* The sign bits of four registers of 8 32-bit lanes as 32 bits, in lane order: the packs
 * keep the signs, and vpermd undoes their interleaving of 128-bit halves. One movemask
 * per 32 values instead of four, and no shifts to join them. */
PK_AVX2_INLINE unsigned signs32(__m256i a, __m256i b, __m256i c, __m256i d) {
    __m256i x = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    x = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    return (unsigned)_mm256_movemask_epi8(x);
}

PK_AVX2_INLINE int64_t body_avx2(const void *v, size_t n, filter_args a, uint8_t *out,
                                 const int kind, const unsigned c) {
    const uint64_t inv = kind == K_I32 || kind == K_I64 ? ~UINT64_C(0) : 0;
#define VEC(p, left) vec_avx2(p, left, &a, kind, c)
    /* 64-bit lanes: a movemask per register (packing them would add shuffles on the port
     * that vpcmpgtq needs too). 32-bit lanes: steps of four registers. */
#define STEP4(p, left) (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(VEC(p, left)))
#define STEP32(p, left)                                                                      \
    signs32(VEC(p, left), VEC((p) + 8, after(left, 8)), VEC((p) + 16, after(left, 16)),      \
            VEC((p) + 24, after(left, 24)))
    if (PK_WIDE(kind)) PK_FILTER_BLOCKS((const int64_t *)v, n, out, 4, inv, STEP4);
    PK_FILTER_BLOCKS((const int32_t *)v, n, out, 32, inv, STEP32);
#undef STEP32
#undef STEP4
#undef VEC
}

PK_FILTER_ENTRIES(avx2, PK_AVX2, 64, 0)

/* Column comparisons: lane i of x < y (or ==) as its sign bit, the same blocks as above
 * with an index for a pointer (STEP gets i, the rows of both columns). */
PK_AVX2_INLINE __m256i cmp_avx2(const void *x, const void *y, size_t left, const bool wide,
                                const bool lt) {
    __m256i a = wide ? load4x64(x, left) : load8x32(x, left);
    __m256i b = wide ? load4x64(y, left) : load8x32(y, left);
    if (wide) return lt ? _mm256_cmpgt_epi64(b, a) : _mm256_cmpeq_epi64(a, b);
    return lt ? _mm256_cmpgt_epi32(b, a) : _mm256_cmpeq_epi32(a, b);
}

PK_AVX2_INLINE int64_t cmp_body_avx2(const void *x, const void *y, size_t n, uint64_t inv,
                                     uint8_t *out, const bool wide, const bool lt) {
    const uint8_t *px = x, *py = y;
    const size_t w = wide ? 8 : 4;
#define C(i, left) cmp_avx2(px + (i) * w, py + (i) * w, left, wide, lt)
#define STEP4(i, left) (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(C(i, left)))
#define STEP32(i, left)                                                                      \
    signs32(C(i, left), C((i) + 8, after(left, 8)), C((i) + 16, after(left, 16)),            \
            C((i) + 24, after(left, 24)))
    if (wide) PK_FILTER_BLOCKS((size_t)0, n, out, 4, inv, STEP4);
    PK_FILTER_BLOCKS((size_t)0, n, out, 32, inv, STEP32);
#undef STEP32
#undef STEP4
#undef C
}

#define PK_COMPARE_ENTRIES(isa, ATTR, body)                                                  \
    ATTR int64_t pk_compare_i32_##isa(const int32_t *a, const int32_t *b, size_t n,          \
                                      unsigned op, uint8_t *out) {                           \
        cmp_plan p = cmp_plan_of(op);                                                        \
        const void *x = p.swap ? (const void *)b : (const void *)a;                          \
        const void *y = p.swap ? (const void *)a : (const void *)b;                          \
        if (p.lt) return body(x, y, n, p.inv, out, false, true);                             \
        return body(x, y, n, p.inv, out, false, false);                                      \
    }                                                                                        \
    ATTR int64_t pk_compare_i64_##isa(const int64_t *a, const int64_t *b, size_t n,          \
                                      unsigned op, uint8_t *out) {                           \
        cmp_plan p = cmp_plan_of(op);                                                        \
        const void *x = p.swap ? (const void *)b : (const void *)a;                          \
        const void *y = p.swap ? (const void *)a : (const void *)b;                          \
        if (p.lt) return body(x, y, n, p.inv, out, true, true);                              \
        return body(x, y, n, p.inv, out, true, false);                                       \
    }

PK_COMPARE_ENTRIES(avx2, PK_AVX2, cmp_body_avx2)

/* ---- AVX-512 -------------------------------------------------------------------------- */

/* A register of 16 32-bit (8 64-bit) lanes from p, reading lanes i < left only. */
PK_AVX512_INLINE __m512i load16x32(const void *p, size_t left) {
    if (left >= 16) return _mm512_loadu_si512(p);
    return _mm512_maskz_loadu_epi32((__mmask16)pk_low_bits(left), p);
}

PK_AVX512_INLINE __m512i load8x64(const void *p, size_t left) {
    if (left >= 8) return _mm512_loadu_si512(p);
    return _mm512_maskz_loadu_epi64((__mmask8)pk_low_bits(left), p);
}

#define PK_CMP_PS512(x, b, pred) _mm512_cmp_ps_mask(x, b, pred)
#define PK_CMP_PD512(x, b, pred) _mm512_cmp_pd_mask(x, b, pred)

/* A register of 16 32-bit or 8 64-bit values at p: the mask of those that pass. Codes:
 * vpermt2d takes the low 5 bits of the dword index (bitmaps of up to 128 bytes, one way
 * for K_CODES1 and K_CODES2), vprold the code modulo 32. */
PK_AVX512_INLINE unsigned mask_avx512(const void *p, size_t left, const filter_args *a,
                                      const int kind, const unsigned c) {
    __m512i x = PK_WIDE(kind) ? load8x64(p, left) : load16x32(p, left);
    if (kind == K_I32) {
        x = c ? _mm512_xor_si512(x, _mm512_set1_epi32((int)a->flip)) : x;
        x = _mm512_sub_epi32(x, _mm512_set1_epi32((int)a->off));
        return _mm512_cmple_epu32_mask(x, _mm512_set1_epi32((int)a->range));
    }
    if (kind == K_I64) {
        x = c ? _mm512_xor_si512(x, _mm512_set1_epi64((long long)a->flip)) : x;
        x = _mm512_sub_epi64(x, _mm512_set1_epi64((long long)a->off));
        return _mm512_cmple_epu64_mask(x, _mm512_set1_epi64((long long)a->range));
    }
    if (kind == K_F32) {
        __m512 f = _mm512_castsi512_ps(x);
        __m512 lo = _mm512_set1_ps((float)a->lo), hi = _mm512_set1_ps((float)a->hi);
        return PK_CMP_LO(PK_CMP_PS512, f, lo, c) & PK_CMP_HI(PK_CMP_PS512, f, hi, c);
    }
    if (kind == K_F64) {
        __m512d d = _mm512_castsi512_pd(x);
        __m512d lo = _mm512_set1_pd(a->lo), hi = _mm512_set1_pd(a->hi);
        return PK_CMP_LO(PK_CMP_PD512, d, lo, c) & PK_CMP_HI(PK_CMP_PD512, d, hi, c);
    }
    __m512i dw = _mm512_srli_epi32(x, 5), w;
    if (kind == K_CODES4) {
        /* dword dw of 128: its pair by bits 5-6, vpermt2d by bits 0-5 */
        const uint8_t *t = a->big;
        __m512i w0 = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)t), dw,
                                               _mm512_loadu_si512((const void *)(t + 64)));
        __m512i w1 = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)(t + 128)), dw,
                                               _mm512_loadu_si512((const void *)(t + 192)));
        __m512i w2 = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)(t + 256)), dw,
                                               _mm512_loadu_si512((const void *)(t + 320)));
        __m512i w3 = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)(t + 384)), dw,
                                               _mm512_loadu_si512((const void *)(t + 448)));
        __mmask16 b5 = _mm512_test_epi32_mask(dw, _mm512_set1_epi32(32));
        __mmask16 b6 = _mm512_test_epi32_mask(dw, _mm512_set1_epi32(64));
        w = _mm512_mask_blend_epi32(b6, _mm512_mask_blend_epi32(b5, w0, w1),
                                    _mm512_mask_blend_epi32(b5, w2, w3));
    } else if (kind == K_GATHER)
        w = _mm512_mask_i32gather_epi32(_mm512_set1_epi32((int)a->tail),
                                        _mm512_cmple_epu32_mask(x, _mm512_set1_epi32((int)a->full)),
                                        dw, a->pass, 4);
    else
        w = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)a->small), dw,
                                      _mm512_loadu_si512((const void *)(a->small + 64)));
    __m512i bit = _mm512_rolv_epi32(_mm512_set1_epi32(1), x);
    return _mm512_mask_test_epi32_mask(_mm512_cmple_epu32_mask(x, _mm512_set1_epi32((int)a->lim1)),
                                       w, bit);
}

PK_AVX512_INLINE int64_t body_avx512(const void *v, size_t n, filter_args a, uint8_t *out,
                                     const int kind, const unsigned c) {
#define STEP(p, left) mask_avx512(p, left, &a, kind, c)
    if (PK_WIDE(kind)) PK_FILTER_BLOCKS((const int64_t *)v, n, out, 8, 0, STEP);
    PK_FILTER_BLOCKS((const int32_t *)v, n, out, 16, 0, STEP);
#undef STEP
}

/* Four register pairs for bitmaps of up to 4096 codes (TPC-H's dates: 2,526) instead of
 * vpgatherdd: 2.65 -> 7.3 G codes/s on an AMD EPYC of family 26 (bench/README.md, "Code
 * filters of up to 4096 entries in registers"). */
PK_FILTER_ENTRIES(avx512, PK_AVX512, 128, 512)

PK_AVX512_INLINE unsigned cmp_avx512(const void *x, const void *y, size_t left, const bool wide,
                                     const bool lt) {
    __m512i a = wide ? load8x64(x, left) : load16x32(x, left);
    __m512i b = wide ? load8x64(y, left) : load16x32(y, left);
    if (wide) return lt ? _mm512_cmplt_epi64_mask(a, b) : _mm512_cmpeq_epi64_mask(a, b);
    return lt ? _mm512_cmplt_epi32_mask(a, b) : _mm512_cmpeq_epi32_mask(a, b);
}

PK_AVX512_INLINE int64_t cmp_body_avx512(const void *x, const void *y, size_t n, uint64_t inv,
                                         uint8_t *out, const bool wide, const bool lt) {
    const uint8_t *px = x, *py = y;
    const size_t w = wide ? 8 : 4;
#define STEP(i, left) cmp_avx512(px + (i) * w, py + (i) * w, left, wide, lt)
    if (wide) PK_FILTER_BLOCKS((size_t)0, n, out, 8, inv, STEP);
    PK_FILTER_BLOCKS((size_t)0, n, out, 16, inv, STEP);
#undef STEP
}

PK_COMPARE_ENTRIES(avx512, PK_AVX512, cmp_body_avx512)

#endif /* PK_KERNELS_X86 */
