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

#endif /* PK_BITS_H */
