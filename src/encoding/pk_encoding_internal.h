/*
 * pk_encoding_internal.h: bit-level helpers shared by the encoding decoders
 * (not part of the module contract; only the .c files of src/encoding include it).
 */
#ifndef PK_ENCODING_INTERNAL_H
#define PK_ENCODING_INTERNAL_H

#include "pk_encoding.h"

/* Reads a ULEB128 integer of at most max_bytes bytes (10 for 64 bits) from
 * *pp, never reading at or past end. Returns false if the input ends first,
 * the encoding is longer than max_bytes or the value does not fit in 64 bits;
 * *pp is advanced only on success. */
PK_INLINE bool pk_read_uleb128(const uint8_t **pp, const uint8_t *end, int max_bytes,
                               uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        if (p >= end) return false;
        uint8_t b = *p++;
        /* The tenth byte may only carry bit 63. */
        if (i == 9 && (b & 0x7e)) return false;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return true;
        }
    }
    return false;
}

PK_INLINE uint64_t pk_zigzag_decode(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }

/* Extracts the bw-bit (0..64) value at bit position bitpos of an LSB-first
 * packed stream base[0..nbytes). Bytes at or past nbytes read as zero, so a
 * caller that has checked the bits it wants are present never reads outside
 * the stream. */
PK_INLINE uint64_t pk_get_bits(const uint8_t *base, size_t nbytes, uint64_t bitpos, int bw) {
    if (bw == 0) return 0;
    uint64_t byte = bitpos >> 3;
    unsigned shift = (unsigned)(bitpos & 7);
    uint64_t lo;
    uint8_t hi;
    if (byte + 9 <= nbytes) {
        lo = pk_load_u64(base + byte);
        hi = base[byte + 8];
    } else {
        uint8_t tmp[9] = {0};
        size_t have = byte < nbytes ? (size_t)(nbytes - byte) : 0;
        if (have > 9) have = 9;
        if (have) memcpy(tmp, base + byte, have);
        lo = pk_load_u64(tmp);
        hi = tmp[8];
    }
    uint64_t v = lo >> shift;
    if (shift && (unsigned)bw + shift > 64) v |= (uint64_t)hi << (64 - shift);
    return bw == 64 ? v : v & ((UINT64_C(1) << bw) - 1);
}

#endif /* PK_ENCODING_INTERNAL_H */
