/*
 * pk_bits.h: bounded bit-field access for the bitmap kernels (pk_bits_*.c).
 * Both helpers touch only the bytes that hold the bits asked for, so kernels
 * built on them never read or write outside the ranges their contracts name.
 *
 * Depends on: common.
 */
#ifndef PK_BITS_H
#define PK_BITS_H

#include "../common/pk_common.h"

/* Bits [bit, bit + len) of p (len 1..64) as the low bits of the result. */
PK_INLINE uint64_t pk_bits_get(const uint8_t *p, uint64_t bit, unsigned len) {
    const uint8_t *b = p + (bit >> 3);
    unsigned s = (unsigned)(bit & 7);
    unsigned nbytes = (s + len + 7) >> 3; /* 1..9 */
    uint64_t v;
    if (nbytes >= 8) {
        v = pk_load_u64(b) >> s;
        if (nbytes == 9) v |= (uint64_t)b[8] << (64 - s);
    } else {
        v = 0;
        for (unsigned i = 0; i < nbytes; i++) v |= (uint64_t)b[i] << (8 * i);
        v >>= s;
    }
    return len == 64 ? v : v & ((UINT64_C(1) << len) - 1);
}

/* Writes the low len bits (1..64) of v to bits [bit, bit + len) of p,
 * keeping the other bits of the bytes it touches. */
PK_INLINE void pk_bits_put(uint8_t *p, uint64_t bit, unsigned len, uint64_t v) {
    uint8_t *b = p + (bit >> 3);
    unsigned s = (unsigned)(bit & 7);
    uint64_t m = len == 64 ? ~UINT64_C(0) : (UINT64_C(1) << len) - 1;
    v &= m;
    unsigned nbytes = (s + len + 7) >> 3;
    if (nbytes >= 8) {
        pk_store_u64(b, (pk_load_u64(b) & ~(m << s)) | (v << s));
        if (nbytes == 9)
            b[8] = (uint8_t)((b[8] & ~(m >> (64 - s))) | (v >> (64 - s)));
    } else {
        uint64_t w = 0;
        for (unsigned i = 0; i < nbytes; i++) w |= (uint64_t)b[i] << (8 * i);
        w = (w & ~(m << s)) | (v << s);
        for (unsigned i = 0; i < nbytes; i++) b[i] = (uint8_t)(w >> (8 * i));
    }
}

/* count_bits and count_runs of one instruction set, on its popcount of a
 * word: POP is a function of uint64_t (the portable one for the scalar
 * table, the POPCNT instruction where the table's target has it). Whole
 * words are loaded where the range covers them; the ends bit by bit. */
#define PK_COUNT_KERNELS(isa, ATTR, POP)                                                    \
    ATTR int64_t pk_count_bits_##isa(const uint8_t *bits, int64_t from, int64_t to) {        \
        int64_t c = 0;                                                                       \
        while (from < to && (from & 7)) c += pk_bit_get(bits, from++);                      \
        for (; to - from >= 64; from += 64) c += POP(pk_load_u64(bits + from / 8));          \
        for (; to - from >= 8; from += 8) c += POP(bits[from / 8]);                          \
        while (from < to) c += pk_bit_get(bits, from++);                                     \
        return c;                                                                            \
    }                                                                                        \
    ATTR int64_t pk_count_runs_##isa(const uint8_t *bits, int64_t n) {                       \
        int64_t runs = 0, i = 0;                                                             \
        uint64_t carry = 0; /* the last bit of the previous word */                          \
        for (; i + 64 <= n; i += 64) {                                                       \
            uint64_t w = pk_load_u64(bits + i / 8);                                          \
            runs += POP(w & ~((w << 1) | carry));                                            \
            carry = w >> 63;                                                                 \
        }                                                                                    \
        for (; i < n; i++) {                                                                 \
            uint64_t b = pk_bit_get(bits, i);                                                \
            runs += b && !carry;                                                             \
            carry = b;                                                                       \
        }                                                                                    \
        return runs;                                                                         \
    }

/* One step of the in-place spread from the back (spread_fixed): slot *i - 1
 * takes dense value *j - 1 when valid, else w zero bytes. A dense value moves
 * only up (j <= i), and only to a slot above every value still to move. */
PK_INLINE void pk_spread_step(uint8_t *vals, size_t w, size_t *i, size_t *j,
                              const uint8_t *valid, int64_t off) {
    size_t s = --*i;
    if (pk_bit_get(valid, off + (int64_t)s)) {
        size_t from = --*j;
        memcpy(vals + s * w, vals + from * w, w);
    } else {
        memset(vals + s * w, 0, w);
    }
}

/* compact_fixed's walk, shared by every instruction set (the body of a function of
 * dst, src, keep and n whose value width W is a constant where it is inlined): 64 slots
 * per keep word; a word of all ones moves as one block and an empty one is skipped,
 * so clustered rows cost a memmove; a word keeping at most SPARSE values has its set
 * bits walked one by one (pk_compact_word_scalar: a vector step costs the same
 * whatever it keeps, so few kept values are cheaper moved alone; SPARSE from
 * bench_kernels); any other word goes through WORD(d, s, W, m), which writes the
 * values of the 64 at s whose bit of m is set to d onward and returns how many.
 * WORD loads each value before a store can reach it and stores nothing past the
 * slot of the last value it has loaded, so in place (d <= s) it overwrites only
 * values already read, and it never writes past dst + n*W. The last n % 64 slots go
 * value by value. */
#define PK_COMPACT_BODY(WORD, W, SPARSE)                                                    \
    size_t k_ = 0, i_ = 0;                                                                   \
    for (; n - i_ >= 64; i_ += 64) {                                                         \
        uint64_t m_ = pk_load_u64(keep + i_ / 8);                                            \
        if (m_ == ~UINT64_C(0)) {                                                            \
            if (k_ != i_ || dst != src) memmove(dst + k_ * (W), src + i_ * (W), 64 * (W));    \
            k_ += 64;                                                                        \
        } else if ((SPARSE) >= 64 || (unsigned)__builtin_popcountll(m_) <= (unsigned)(SPARSE)) { \
            k_ += pk_compact_word_scalar(dst + k_ * (W), src + i_ * (W), (W), m_);           \
        } else {                                                                             \
            k_ += WORD(dst + k_ * (W), src + i_ * (W), (W), m_);                             \
        }                                                                                    \
    }                                                                                        \
    for (; i_ < n; i_++) {                                                                   \
        if (pk_bit_get(keep, (int64_t)i_)) {                                                 \
            memmove(dst + k_ * (W), src + i_ * (W), (W));                                    \
            k_++;                                                                            \
        }                                                                                    \
    }                                                                                        \
    return (int64_t)k_;

/* compact_fixed of one instruction set: the walk inlined with the constant widths
 * 4, 8 and 16 (INLINE is the set's always-inline attribute; SPARSE(W) the walk's
 * threshold), other widths by the scalar kernel. */
#define PK_COMPACT_KERNEL(isa, ATTR, INLINE, WORD, SPARSE)                                  \
    INLINE int64_t compact_##isa(uint8_t *dst, const uint8_t *src, size_t W,                 \
                                 const uint8_t *keep, size_t n) {                            \
        PK_COMPACT_BODY(WORD, W, SPARSE(W))                                                  \
    }                                                                                        \
    ATTR int64_t pk_compact_fixed_##isa(uint8_t *dst, const uint8_t *src, size_t w,          \
                                        const uint8_t *keep, size_t n) {                     \
        if (w == 4) return compact_##isa(dst, src, 4, keep, n);                              \
        if (w == 8) return compact_##isa(dst, src, 8, keep, n);                              \
        if (w == 16) return compact_##isa(dst, src, 16, keep, n);                            \
        return pk_compact_fixed_generic(dst, src, w, keep, n);                               \
    }

/* The scalar WORD of PK_COMPACT_BODY: the set bits of m one by one. */
PK_INLINE size_t pk_compact_word_scalar(uint8_t *d, const uint8_t *s, size_t w, uint64_t m) {
    size_t k = 0;
    while (m) {
        size_t j = (size_t)__builtin_ctzll(m);
        m &= m - 1;
        memmove(d + k * w, s + j * w, w);
        k++;
    }
    return k;
}

/* Any width, value by value: the scalar kernel's path for widths other than 4, 8
 * and 16, and every other set's. */
PK_INLINE int64_t pk_compact_fixed_generic(uint8_t *dst, const uint8_t *src, size_t w,
                                           const uint8_t *keep, size_t n) {
    PK_COMPACT_BODY(pk_compact_word_scalar, w, 64)
}

#endif /* PK_BITS_H */
