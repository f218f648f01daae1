/*
 * pk_bits_scalar.c: portable bitmap kernels, the reference of the vector
 * ones: copying a bit range (booleans: bit-packed runs of width 1 and PLAIN
 * pages are bitmaps), and spreading densely decoded values over the slots
 * that the validity bitmap marks non-null (bits for booleans, w-byte values
 * in place, from the back, for everything else), and the reverse: compacting
 * the values a bitmap keeps.
 */
#include "pk_bits.h"
#include "pk_kernels.h"

void pk_copy_bits_scalar(const uint8_t *src, int64_t src_bit, uint8_t *dst, int64_t dst_bit,
                         size_t n) {
    uint64_t s = (uint64_t)src_bit, d = (uint64_t)dst_bit;
    while (n > 0) {
        unsigned len = n < 64 ? (unsigned)n : 64;
        pk_bits_put(dst, d, len, pk_bits_get(src, s, len));
        s += len, d += len, n -= len;
    }
}

void pk_spread_bits_scalar(const uint8_t *dense, size_t nn, const uint8_t *valid, uint8_t *dst,
                           int64_t off, size_t n) {
    (void)nn;
    uint64_t j = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t at = (uint64_t)off + i;
        unsigned v = 0;
        if (pk_bit_get(valid, (int64_t)at)) v = pk_bit_get(dense, (int64_t)j++);
        pk_bit_put(dst, (int64_t)at, v);
    }
}

/* From the back; once i == j every slot below is valid and its value is
 * already in place. */
PK_INLINE void spread_body(uint8_t *vals, size_t w, size_t n, size_t nn, const uint8_t *valid,
                           int64_t off) {
    size_t i = n, j = nn;
    while (i > j) pk_spread_step(vals, w, &i, &j, valid, off);
}

void pk_spread_fixed_scalar(uint8_t *vals, size_t w, size_t n, size_t nn, const uint8_t *valid,
                            int64_t off) {
    if (w == 4) spread_body(vals, 4, n, nn, valid, off);
    else if (w == 8) spread_body(vals, 8, n, nn, valid, off);
    else spread_body(vals, w, n, nn, valid, off);
}

/* Every word walked bit by bit: the scalar kernel is that walk. */
#define PK_SPARSE_SCALAR(W) 64
PK_COMPACT_KERNEL(scalar, , PK_INLINE, pk_compact_word_scalar, PK_SPARSE_SCALAR)

/* Bit by bit: writing bit k <= i changes no bit above it, so in place the bits
 * still to read are intact. */
int64_t pk_compact_bits_scalar(uint8_t *dst, const uint8_t *src, const uint8_t *keep, size_t n) {
    int64_t k = 0, ones = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pk_bit_get(keep, (int64_t)i)) continue;
        unsigned b = pk_bit_get(src, (int64_t)i);
        ones += b;
        pk_bit_put(dst, k++, b);
    }
    if (k & 7) dst[k >> 3] &= (uint8_t)((1u << (k & 7)) - 1);
    return ones;
}

PK_COUNT_KERNELS(scalar, , pk_bits_popcount)
