/*
 * pk_snappy.c: plank's own SNAPPY codec, both ways (the raw block format of
 * google/snappy's format_description.txt: a varint of the uncompressed
 * length, then literal and copy elements). The compressor is at the end.
 *
 * Why not libsnappy's: Debian builds it for baseline x86-64, where its
 * longer literals go through memcpy calls; on the text columns of a
 * DuckDB-written lineitem its decompression and those calls were 60% of an
 * Arrow read, and its speed varied by half between runs on this project's
 * virtual machines (bench/README.md, Arrow read section). Here a
 * literal or copy is moved in 16-byte blocks wherever the output has room
 * for the overhang (written bytes past the element are overwritten by the
 * elements that follow, since the output must be filled exactly), and a
 * copy whose offset is below 16 first widens its pattern by doubling.
 * Near the ends of the input or output every element is copied exactly.
 *
 * Hostile input: every length and offset is checked before it is used; an
 * element that would read past the input, reach before the output's start
 * or write past its end is PLANK_ERR_CORRUPT naming the element's byte.
 */
#include "pk_codec.h"

#include <string.h>

/* 16 bytes from s to d, which may overlap (a pattern's moves): memmove of a
 * constant size is one load and one store. */
static inline void copy16(uint8_t *d, const uint8_t *s) { memmove(d, s, 16); }

plank_status pk_snappy_length(const uint8_t *src, size_t src_len, size_t *len, size_t *used,
                              plank_error *err) {
    uint64_t v = 0;
    for (size_t i = 0; i < 5; i++) {
        PK_RETURN_IF(i >= src_len, err, PLANK_ERR_CORRUPT,
                     "SNAPPY page (%zu bytes) has no valid length preamble", src_len);
        v |= (uint64_t)(src[i] & 0x7f) << (7 * i);
        if (!(src[i] & 0x80)) {
            PK_RETURN_IF(v > UINT32_MAX, err, PLANK_ERR_CORRUPT,
                         "SNAPPY page declares %llu uncompressed bytes, above 2^32 - 1",
                         (unsigned long long)v);
            *len = (size_t)v;
            *used = i + 1;
            return PLANK_OK;
        }
    }
    return pk_error_set(err, PLANK_ERR_CORRUPT,
                        "SNAPPY page (%zu bytes) has no valid length preamble", src_len);
}

/* One entry per tag byte: bits 0-7 the element's length (0: a literal whose
 * length follows in 1-4 bytes), bits 8-10 the bytes after the tag (a
 * copy's offset), bit 11 set for a literal, bits 12-14 a 1-byte-offset
 * copy's high offset bits. Built at compile time from the format's rules.
 * The fast loop reads the copies' entries; a literal's length and the next
 * element's position come from the tag by arithmetic. */
#define SN_LIT(t) ((((t) >> 2) < 60 ? ((t) >> 2) + 1 : 0) | 0x800)
#define SN_C1(t) ((4 + (((t) >> 2) & 7)) | (1 << 8) | (((t) >> 5) << 12))
#define SN_C2(t) ((((t) >> 2) + 1) | (2 << 8))
#define SN_C4(t) ((((t) >> 2) + 1) | (4 << 8))
#define SN_E(t) ((t) % 4 == 0 ? SN_LIT(t) : (t) % 4 == 1 ? SN_C1(t) : (t) % 4 == 2 ? SN_C2(t) : SN_C4(t))
#define SN_R4(t) SN_E(t), SN_E((t) + 1), SN_E((t) + 2), SN_E((t) + 3)
#define SN_R16(t) SN_R4(t), SN_R4((t) + 4), SN_R4((t) + 8), SN_R4((t) + 12)
#define SN_R64(t) SN_R16(t), SN_R16((t) + 16), SN_R16((t) + 32), SN_R16((t) + 48)
static const uint16_t k_tags[256] = {SN_R64(0), SN_R64(64), SN_R64(128), SN_R64(192)};
/* the offset's bytes after a copy's tag, by their count (a shift by a
 * variable count is three instructions without BMI2) */
static const uint32_t k_trailer_mask[5] = {0, 0xff, 0xffff, 0, 0xffffffff};

/* A copy of len bytes from off bytes back (1 <= off <= bytes written), in
 * 16-byte moves; the output must have len + 15 bytes of room after op. With
 * an offset below 16, each move repeats the pattern of the `dist` bytes
 * before o: the first dist bytes it writes are right (the rest is written
 * again next), and the distance doubles until a 16-byte move reads finished
 * bytes only. No move starts at or past op + len. */
static inline void copy_back(uint8_t *op, size_t off, size_t len) {
    uint8_t *o = op, *e = op + len;
    const uint8_t *s = op - off;
    size_t dist = off;
    while (dist < 16 && o < e) {
        copy16(o, s);
        o += dist;
        dist *= 2;
    }
    for (s = o - dist; o < e; o += 16, s += 16) copy16(o, s);
}

/* One element at ip (its tag byte) by the exact rules: every read and write
 * within the input and output, each length and offset checked. */
static plank_status exact_element(const uint8_t *src, const uint8_t **ipp,
                                  const uint8_t *ip_end, uint8_t *dst, uint8_t **opp,
                                  uint8_t *op_end, plank_error *err) {
    const uint8_t *ip = *ipp, *elem = ip;
    uint8_t *op = *opp;
    size_t dst_len = (size_t)(op_end - dst);
    uint32_t tag = *ip++;
    size_t in_left = (size_t)(ip_end - ip), out_left = (size_t)(op_end - op);
    if ((tag & 3) == 0) {
        size_t len = (tag >> 2) + 1;
        if (len > 60) {
            size_t nb = len - 60;
            PK_RETURN_IF(in_left < nb, err, PLANK_ERR_CORRUPT,
                         "SNAPPY element at byte %zu: literal length truncated",
                         (size_t)(elem - src));
            uint32_t l = 0;
            for (size_t k = 0; k < nb; k++) l |= (uint32_t)ip[k] << (8 * k);
            ip += nb;
            in_left -= nb;
            len = (size_t)l + 1;
        }
        PK_RETURN_IF(len > in_left, err, PLANK_ERR_CORRUPT,
                     "SNAPPY element at byte %zu: literal of %zu bytes, %zu remain",
                     (size_t)(elem - src), len, in_left);
        PK_RETURN_IF(len > out_left, err, PLANK_ERR_CORRUPT,
                     "SNAPPY element at byte %zu: literal of %zu bytes past the %zu "
                     "uncompressed bytes", (size_t)(elem - src), len, dst_len);
        /* 16 bytes at a time up to 128 (where memcpy's call and set-up
         * cost more); longer, and near the ends, memcpy */
        if (len <= 128 && in_left - len >= 16 && out_left - len >= 16) {
            for (size_t i = 0; i < len; i += 16) copy16(op + i, ip + i);
        } else {
            memcpy(op, ip, len);
        }
        *opp = op + len;
        *ipp = ip + len;
        return PLANK_OK;
    }
    size_t len, off;
    size_t nx = (tag & 3) == 3 ? 4 : (tag & 3);
    PK_RETURN_IF(in_left < nx, err, PLANK_ERR_CORRUPT,
                 "SNAPPY element at byte %zu: copy truncated", (size_t)(elem - src));
    if ((tag & 3) == 1) {
        len = 4 + ((tag >> 2) & 7);
        off = ((size_t)(tag >> 5) << 8) | ip[0];
    } else if ((tag & 3) == 2) {
        len = (tag >> 2) + 1;
        off = (size_t)ip[0] | (size_t)ip[1] << 8;
    } else {
        len = (tag >> 2) + 1;
        off = (size_t)pk_load_u32(ip);
    }
    ip += nx;
    PK_RETURN_IF(off == 0 || off > (size_t)(op - dst), err, PLANK_ERR_CORRUPT,
                 "SNAPPY element at byte %zu: copy offset %zu with %zu bytes written",
                 (size_t)(elem - src), off, (size_t)(op - dst));
    PK_RETURN_IF(len > out_left, err, PLANK_ERR_CORRUPT,
                 "SNAPPY element at byte %zu: copy of %zu bytes past the %zu "
                 "uncompressed bytes", (size_t)(elem - src), len, dst_len);
    const uint8_t *s = op - off;
    if (out_left - len >= 16) {
        copy_back(op, off, len);
    } else {
        for (size_t i = 0; i < len; i++) op[i] = s[i];
    }
    *opp = op + len;
    *ipp = ip;
    return PLANK_OK;
}

plank_status pk_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst,
                                  size_t dst_len, plank_error *err) {
    size_t declared = 0, used = 0;
    PK_FORWARD(pk_snappy_length(src, src_len, &declared, &used, err));
    PK_RETURN_IF(declared != dst_len, err, PLANK_ERR_CORRUPT,
                 "SNAPPY page declares %zu uncompressed bytes, header says %zu", declared,
                 dst_len);
    const uint8_t *ip = src + used, *const ip_end = src + src_len;
    uint8_t *op = dst, *const op_end = dst + dst_len;
    while (ip < ip_end) {
        /* While the input has 69 bytes left and the output 64, an element
         * of up to 60 bytes is one 64-byte move from the literal's bytes or
         * the copy's source, with no branch on its kind (the bytes moved
         * past its end are overwritten by the elements after it); a long
         * literal, a copy whose offset is below 16 or invalid, and the
         * elements near the ends take the exact path, one at a time. */
        while (ip_end - ip >= 69 && op_end - op >= 80) {
            /* The next element's position comes from the tag by arithmetic
             * alone (no table load on that chain of dependent loads). */
            uint32_t tag = ip[0];
            size_t len;
            const uint8_t *from;
            if ((tag & 3) == 0) {
                if (PK_UNLIKELY(tag >= 60 << 2)) break; /* the length follows */
                len = (tag >> 2) + 1;
                from = ip + 1;
                ip += 1 + len;
            } else {
                uint32_t e = k_tags[tag];
                size_t nx = (tag & 3) + ((tag & 3) == 3);
                len = e & 0xff;
                size_t off = (size_t)(pk_load_u32(ip + 1) & k_trailer_mask[nx]) |
                             (size_t)(e >> 12) << 8;
                if (PK_UNLIKELY(off - 1 >= (size_t)(op - dst))) break; /* 0, or before dst */
                ip += 1 + nx;
                if (PK_UNLIKELY(off < 16)) {
                    copy_back(op, off, len);
                    op += len;
                    continue;
                }
                from = op - off;
            }
            /* 16 bytes at a time, in order: with an offset of 16 to 63, a
             * move reads what the one before it wrote */
            copy16(op, from);
            if (PK_UNLIKELY(len > 16)) {
                copy16(op + 16, from + 16);
                if (len > 32) {
                    copy16(op + 32, from + 32);
                    copy16(op + 48, from + 48);
                }
            }
            op += len;
        }
        if (ip < ip_end) PK_FORWARD(exact_element(src, &ip, ip_end, dst, &op, op_end, err));
    }
    PK_RETURN_IF(op != op_end, err, PLANK_ERR_CORRUPT,
                 "SNAPPY page decompressed to %zu bytes, header says %zu", (size_t)(op - dst),
                 dst_len);
    return PLANK_OK;
}

/* ---- Compression -------------------------------------------------------------
 *
 * The input is cut into fragments of PK_SNAPPY_FRAGMENT bytes, each matched
 * on its own (offsets then fit 16 bits, so the table holds 16-bit
 * positions and copies use the 2- and 3-byte forms). Matching: a hash of
 * the 4 bytes at each position tried, looked up in a table of the last
 * position with that hash; a hit whose 4 bytes agree is extended 8 bytes at
 * a time and emitted as copies. Between hits the step grows by a 32nd at
 * each miss (1 byte for 32 misses, 2 for the next 16, ...), so
 * incompressible stretches (bit-packed indices, compressed or random bytes)
 * are passed over in ever longer strides (the first 16 positions after a
 * copy are tried one by one, four from each 8-byte load); after a copy the
 * positions just before and at its end are hashed, which finds runs of
 * repeated rows, and the 4 bytes at its end usually come with the match's
 * last compare. */

static inline uint32_t sn_hash(uint32_t v, int shift) { return (v * 0x1e35a7bdu) >> shift; }

/* A literal of the len >= 1 bytes at s: its tag (and length bytes), then
 * its bytes, by 16-byte moves up to 128 bytes where both the input (up to
 * in_end) and the output have room past them (the bound leaves the output
 * room for all but the last literals), else by memcpy. */
PK_INLINE uint8_t *sn_literal(uint8_t *op, const uint8_t *op_end, const uint8_t *s, size_t len,
                              const uint8_t *in_end) {
    size_t n = len - 1;
    if (PK_LIKELY(n < 16 && op_end - op >= 17 && in_end - s >= 16)) {
        *op = (uint8_t)(n << 2);
        copy16(op + 1, s);
        return op + 1 + len;
    }
    if (n < 60) {
        *op++ = (uint8_t)(n << 2);
    } else {
        int nb = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
        *op++ = (uint8_t)((59 + nb) << 2);
        for (int k = 0; k < nb; k++) *op++ = (uint8_t)(n >> (8 * k));
    }
    if (len <= 128 && (size_t)(op_end - op) >= len + 16 && (size_t)(in_end - s) >= len + 16) {
        for (size_t i = 0; i < len; i += 16) copy16(op + i, s + i);
    } else {
        memcpy(op, s, len);
    }
    return op + len;
}

/* The 2-byte copy form: len 4..11, offset 1..2047. */
PK_INLINE uint8_t *sn_copy1(uint8_t *op, size_t off, size_t len) {
    op[0] = (uint8_t)(1 | ((len - 4) << 2) | ((off >> 8) << 5));
    op[1] = (uint8_t)off;
    return op + 2;
}

/* The 3-byte copy form: len 1..64, offset 1..65535. */
PK_INLINE void sn_copy2(uint8_t *op, size_t off, size_t len) {
    op[0] = (uint8_t)(2 | ((len - 1) << 2));
    op[1] = (uint8_t)off;
    op[2] = (uint8_t)(off >> 8);
}

/* A copy of len >= 4 bytes from off (1..65535) bytes back: the 2-byte
 * form where it fits (4..11 bytes, offset below 2048), the 3-byte one up to
 * 64 bytes; longer, 64-byte pieces while more than 67 remain (the last
 * piece must be at least 4 bytes), then 60 if more than 64 do. */
PK_INLINE uint8_t *sn_copy(uint8_t *op, size_t off, size_t len) {
    if (PK_LIKELY(len < 12 && off < 2048)) return sn_copy1(op, off, len);
    if (PK_UNLIKELY(len > 64)) {
        while (len >= 68) {
            sn_copy2(op, off, 64);
            op += 3;
            len -= 64;
        }
        if (len > 64) {
            sn_copy2(op, off, 60);
            op += 3;
            len -= 60;
        }
        if (len < 12 && off < 2048) return sn_copy1(op, off, len);
    }
    sn_copy2(op, off, len);
    return op + 3;
}

/* How many bytes from a and b agree, b < a, comparing no byte at or past
 * end (a's limit). When the compare's last load holds the 4 bytes after the
 * match, *next gets them and *have is set (the next match is looked up
 * there; the caller loads them otherwise, once it knows they are inside). */
PK_INLINE size_t sn_extend(const uint8_t *b, const uint8_t *a, const uint8_t *end,
                           uint32_t *next, bool *have) {
    const uint8_t *a0 = a;
    while ((size_t)(end - a) >= 8) {
        uint64_t wa = pk_load_u64(a), x = wa ^ pk_load_u64(b);
        if (x) {
            unsigned z = (unsigned)__builtin_ctzll(x) & 56;
            *next = (uint32_t)(wa >> z);
            *have = z <= 32;
            return (size_t)(a - a0) + (z >> 3);
        }
        a += 8;
        b += 8;
    }
    while (a < end && *a == *b) a++, b++;
    *have = false;
    return (size_t)(a - a0);
}

/* One fragment of len (16..PK_SNAPPY_FRAGMENT) bytes at base through a
 * table of 2^(32 - shift) entries (a constant in the copy for whole
 * fragments, so the hash's shift is one immediate). */
static inline uint8_t *sn_fragment(const uint8_t *base, size_t len, uint8_t *op,
                                   const uint8_t *op_end, const uint8_t *in_end,
                                   uint16_t *table, const int shift) {
    const uint8_t *const end = base + len;
    const uint8_t *next_emit = base;
    memset(table, 0, sizeof(uint16_t) << (32 - shift));
    const uint8_t *const limit = end - 15;
    const uint8_t *ip = base + 1;
    for (;;) {
        const uint8_t *cand;
        /* Look for a 4-byte match: the first 16 positions one by one,
         * four of them from each 8-byte load, then in strides that grow
         * by a 32nd at each miss. */
        uint32_t skip = 32;
        if (PK_LIKELY(limit - ip >= 16)) {
            for (int j = 0; j < 16; j += 4) {
                uint64_t w = pk_load_u64(ip + j);
                for (int k = 0; k < 4; k++, w >>= 8) {
                    uint32_t h = sn_hash((uint32_t)w, shift);
                    cand = base + table[h];
                    table[h] = (uint16_t)(ip + j + k - base);
                    if (PK_UNLIKELY(pk_load_u32(cand) == (uint32_t)w)) {
                        ip += j + k;
                        goto found;
                    }
                }
            }
            ip += 16;
            skip += 16;
        }
        for (;;) {
            uint32_t v = pk_load_u32(ip), step = skip >> 5;
            skip += step;
            if (PK_UNLIKELY(ip + step > limit)) goto tail;
            uint32_t h = sn_hash(v, shift);
            cand = base + table[h];
            table[h] = (uint16_t)(ip - base);
            if (PK_UNLIKELY(pk_load_u32(cand) == v)) break;
            ip += step;
        }
    found:
        op = sn_literal(op, op_end, next_emit, (size_t)(ip - next_emit), in_end);
        /* Copies as long as the position after each one matches too. */
        uint32_t at;
        do {
            bool have;
            size_t n = 4 + sn_extend(cand + 4, ip + 4, end, &at, &have);
            op = sn_copy(op, (size_t)(ip - cand), n);
            ip += n;
            next_emit = ip;
            if (PK_UNLIKELY(ip >= limit)) goto tail;
            if (!have) at = pk_load_u32(ip);
            table[sn_hash(pk_load_u32(ip - 1), shift)] = (uint16_t)(ip - 1 - base);
            uint32_t hh = sn_hash(at, shift);
            cand = base + table[hh];
            table[hh] = (uint16_t)(ip - base);
        } while (at == pk_load_u32(cand));
        ip++;
    }
tail:
    if (next_emit < end)
        op = sn_literal(op, op_end, next_emit, (size_t)(end - next_emit), in_end);
    return op;
}

/* A fragment of any length (1..PK_SNAPPY_FRAGMENT): positions are tried
 * while 15 bytes follow them (the 4- and 8-byte loads stay inside the
 * fragment), so one of 15 bytes or fewer is a literal; the table's size
 * follows the fragment's, from 256 entries. */
static uint8_t *sn_any(const uint8_t *base, size_t len, uint8_t *op, const uint8_t *op_end,
                       const uint8_t *in_end, uint16_t *table) {
    if (len == PK_SNAPPY_FRAGMENT) return sn_fragment(base, len, op, op_end, in_end, table, 18);
    if (len < 16) return sn_literal(op, op_end, base, len, in_end);
    int bits = 8;
    while (bits < 14 && ((size_t)1 << bits) < len) bits++;
    return sn_fragment(base, len, op, op_end, in_end, table, 32 - bits);
}

size_t pk_snappy_bound(size_t src_len) {
    if (src_len > UINT32_MAX) return 0;
    return 32 + src_len + src_len / 6;
}

plank_status pk_snappy_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t cap,
                                size_t *n, uint16_t *table, plank_error *err) {
    PK_RETURN_IF(src_len > UINT32_MAX || cap < pk_snappy_bound(src_len), err,
                 PLANK_ERR_INVALID_ARGUMENT,
                 "SNAPPY compression of %zu bytes into %zu: above 2^32 - 1 or short of the bound",
                 src_len, cap);
    uint8_t *op = dst;
    const uint8_t *op_end = dst + cap;
    for (size_t v = src_len;; v >>= 7) {
        if (v < 0x80) {
            *op++ = (uint8_t)v;
            break;
        }
        *op++ = (uint8_t)(v | 0x80);
    }
    for (size_t at = 0; at < src_len; at += PK_SNAPPY_FRAGMENT) {
        size_t len = src_len - at < PK_SNAPPY_FRAGMENT ? src_len - at : PK_SNAPPY_FRAGMENT;
        op = sn_any(src + at, len, op, op_end, src + src_len, table);
    }
    *n = (size_t)(op - dst);
    return PLANK_OK;
}
