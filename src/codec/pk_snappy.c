/*
 * pk_snappy.c: plank's own SNAPPY decompressor (the raw block format of
 * google/snappy's format_description.txt: a varint of the uncompressed
 * length, then literal and copy elements).
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
        if (in_left - len >= 16 && out_left - len >= 16) {
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
