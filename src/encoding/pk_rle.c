/*
 * pk_rle.c: the RLE / bit-packed hybrid (levels, dictionary indices,
 * booleans), the deprecated MSB-first BIT_PACKED levels, and bit widths.
 *
 * Hostile input: run headers are at most 5-byte ULEB128 values (32 bits);
 * every run's bytes are checked against the end of the data before use. A
 * final bit-packed run may claim more bytes than remain (some writers drop the
 * padding of the last group): values whose bits are all present are decoded,
 * asking for one more is an error.
 *
 * Two paths: with d->kernels NULL, rle_read below is the scalar reference
 * (one value at a time). With a kernel table, rle_read_fast fills RLE runs
 * with plain stores and unpacks bit-packed runs through the table's unpack
 * kernels, as many whole groups of 8 per call as the request covers; a
 * request that starts inside a group finishes that group value by value.
 * The kernels may read up to the end of the hybrid data (d->end), never past.
 * Booleans (width 1) also decode straight into a bitmap (pk_rle_get_bits):
 * RLE runs as fills, bit-packed runs as bit copies (copy_bits kernel).
 */
#include "pk_encoding_internal.h"
#include "../simd/pk_kernels.h"

plank_status pk_rle_init(pk_rle_decoder *d, const uint8_t *buf, size_t len, int bit_width,
                         plank_error *err) {
    memset(d, 0, sizeof *d);
    PK_RETURN_IF(bit_width < 0 || bit_width > 32, err, PLANK_ERR_CORRUPT,
                 "RLE/bit-packed bit width %d is not in 0..32", bit_width);
    d->start = buf;
    d->p = buf;
    d->end = buf + len;
    d->bit_width = bit_width;
    return PLANK_OK;
}

/* Reads the next run header (and an RLE run's value). */
static plank_status rle_next_run(pk_rle_decoder *d, plank_error *err) {
    size_t at = (size_t)(d->p - d->start);
    PK_RETURN_IF(d->p >= d->end, err, PLANK_ERR_CORRUPT,
                 "RLE/bit-packed data ends at byte %zu before all values were read", at);
    const uint8_t *q = d->p;
    uint64_t h;
    PK_RETURN_IF(!pk_read_uleb128(&q, d->end, 5, &h) || h > UINT32_MAX, err, PLANK_ERR_CORRUPT,
                 "malformed RLE/bit-packed run header at byte %zu", at);
    size_t avail = (size_t)(d->end - q);
    int bw = d->bit_width;
    if (h & 1) {
        uint64_t count = (h >> 1) * 8;
        uint64_t bytes = (h >> 1) * (uint64_t)bw;
        d->packed = q;
        d->packed_pos = 0;
        if (bytes <= avail) {
            d->packed_left = (int64_t)count;
            d->p = q + bytes;
        } else {
            /* Truncated final run: only the values whose bits are present. */
            d->packed_left = (int64_t)((uint64_t)avail * 8 / (uint64_t)bw);
            d->p = d->end;
        }
    } else {
        size_t nb = ((size_t)bw + 7) / 8;
        PK_RETURN_IF(nb > avail, err, PLANK_ERR_CORRUPT,
                     "RLE run value at byte %zu needs %zu bytes, %zu remain",
                     (size_t)(q - d->start), nb, avail);
        uint32_t v = 0;
        for (size_t i = 0; i < nb; i++) v |= (uint32_t)q[i] << (8 * i);
        /* The padding bits must be zero: a wider value is not a value of
         * this bit width (and would escape callers that trust the width). */
        PK_RETURN_IF(bw < 32 && (v >> bw) != 0, err, PLANK_ERR_CORRUPT,
                     "RLE run value %u at byte %zu does not fit in %d bits", (unsigned)v,
                     (size_t)(q - d->start), bw);
        d->rle_value = v;
        d->rle_left = (int64_t)(h >> 1);
        d->p = q + nb;
    }
    return PLANK_OK;
}

/* Decodes n values into out, or skips them when out is NULL. */
static plank_status rle_read(pk_rle_decoder *d, uint32_t *out, int64_t n, plank_error *err) {
    PK_RETURN_IF(n < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative value count %lld",
                 (long long)n);
    while (n > 0) {
        if (d->rle_left > 0) {
            int64_t k = n < d->rle_left ? n : d->rle_left;
            if (out) {
                for (int64_t i = 0; i < k; i++) out[i] = d->rle_value;
                out += k;
            }
            d->rle_left -= k;
            n -= k;
        } else if (d->packed_left > 0) {
            int64_t k = n < d->packed_left ? n : d->packed_left;
            if (out) {
                size_t nbytes = (size_t)(d->end - d->packed);
                int bw = d->bit_width;
                uint64_t bit = (uint64_t)d->packed_pos * (uint64_t)bw;
                for (int64_t i = 0; i < k; i++, bit += (uint64_t)bw)
                    out[i] = (uint32_t)pk_get_bits(d->packed, nbytes, bit, bw);
                out += k;
            }
            d->packed_pos += k;
            d->packed_left -= k;
            n -= k;
        } else {
            PK_FORWARD(rle_next_run(d, err));
        }
    }
    return PLANK_OK;
}

/* Fast path of pk_rle_get_u32 (out32) and pk_rle_get_i16 (out16, bit widths
 * 0..16 only), through d->kernels. Exactly one of out32/out16 is set. */
static plank_status rle_read_fast(pk_rle_decoder *d, uint32_t *out32, int16_t *out16, int64_t n,
                                  plank_error *err) {
    PK_RETURN_IF(n < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative value count %lld",
                 (long long)n);
    const pk_kernels *k = d->kernels;
    int bw = d->bit_width;
    while (n > 0) {
        if (d->rle_left > 0) {
            int64_t m = n < d->rle_left ? n : d->rle_left;
            if (out32) {
                uint32_t v = d->rle_value;
                for (int64_t i = 0; i < m; i++) out32[i] = v;
                out32 += m;
            } else {
                PK_RETURN_IF(d->rle_value > INT16_MAX, err, PLANK_ERR_CORRUPT,
                             "level value %u is out of range", (unsigned)d->rle_value);
                int16_t v = (int16_t)d->rle_value;
                for (int64_t i = 0; i < m; i++) out16[i] = v;
                out16 += m;
            }
            d->rle_left -= m;
            n -= m;
        } else if (d->packed_left > 0) {
            int64_t m = n < d->packed_left ? n : d->packed_left;
            size_t nbytes = (size_t)(d->end - d->packed);
            /* Finish a group started by an earlier request value by value. */
            int64_t head = (8 - (d->packed_pos & 7)) & 7;
            if (head > m) head = m;
            for (int64_t i = 0; i < head; i++) {
                uint32_t v = (uint32_t)pk_get_bits(d->packed, nbytes,
                                                   (uint64_t)(d->packed_pos + i) * (uint64_t)bw, bw);
                if (out32) {
                    *out32++ = v;
                } else {
                    PK_RETURN_IF(v > INT16_MAX, err, PLANK_ERR_CORRUPT,
                                 "level value %u is out of range", (unsigned)v);
                    *out16++ = (int16_t)v;
                }
            }
            int64_t rest = m - head;
            if (rest > 0) {
                /* packed_pos + head is a multiple of 8: the group starts on a byte. */
                size_t at = (size_t)((d->packed_pos + head) / 8) * (size_t)bw;
                if (out32) {
                    k->unpack32(d->packed + at, nbytes - at, out32, (size_t)rest, bw);
                    out32 += rest;
                } else {
                    k->unpack16(d->packed + at, nbytes - at, (uint16_t *)out16, (size_t)rest, bw);
                    /* Widths below 16 cannot exceed INT16_MAX; 16 can (as negatives). */
                    if (bw == 16)
                        PK_RETURN_IF(!k->levels_in_range(out16, (size_t)rest, INT16_MAX), err,
                                     PLANK_ERR_CORRUPT, "level value above %d in a bit-packed run",
                                     INT16_MAX);
                    out16 += rest;
                }
            }
            d->packed_pos += m;
            d->packed_left -= m;
            n -= m;
        } else {
            PK_FORWARD(rle_next_run(d, err));
        }
    }
    return PLANK_OK;
}

plank_status pk_rle_get_u32(pk_rle_decoder *d, uint32_t *out, int64_t n, plank_error *err) {
    if (d->kernels) return rle_read_fast(d, out, NULL, n, err);
    return rle_read(d, out, n, err);
}

plank_status pk_rle_get_u32_runs(pk_rle_decoder *d, uint32_t *out, int64_t n, int64_t base,
                                 int64_t min_len, pk_buffer *runs, plank_error *err) {
    PK_RETURN_IF(n < 0 || min_len < 8, err, PLANK_ERR_INVALID_ARGUMENT,
                 "run log of %lld values, runs of %lld", (long long)n, (long long)min_len);
    int64_t at = base;
    while (n > 0) {
        if (d->rle_left > 0) {
            int64_t m = n < d->rle_left ? n : d->rle_left;
            uint32_t v = d->rle_value;
            for (int64_t i = 0; i < m; i++) out[i] = v;
            int64_t first = (at + 7) & ~(int64_t)7, end = (at + m) & ~(int64_t)7;
            if (end - first >= min_len) {
                int64_t pair[2] = {first, end - first};
                PK_FORWARD(pk_buffer_append(runs, pair, sizeof pair, err));
            }
            d->rle_left -= m;
            out += m, at += m, n -= m;
        } else if (d->packed_left > 0) {
            /* Stays inside this bit-packed run. */
            int64_t m = n < d->packed_left ? n : d->packed_left;
            PK_FORWARD(pk_rle_get_u32(d, out, m, err));
            out += m, at += m, n -= m;
        } else {
            PK_FORWARD(rle_next_run(d, err));
        }
    }
    return PLANK_OK;
}

plank_status pk_rle_skip(pk_rle_decoder *d, int64_t n, plank_error *err) {
    return rle_read(d, NULL, n, err);
}

plank_status pk_rle_get_i16(pk_rle_decoder *d, int16_t *out, int64_t n, plank_error *err) {
    if (d->kernels && d->bit_width <= 16) return rle_read_fast(d, NULL, out, n, err);
    uint32_t tmp[256];
    while (n > 0) {
        int64_t k = n < 256 ? n : 256;
        PK_FORWARD(rle_read(d, tmp, k, err));
        for (int64_t i = 0; i < k; i++) {
            PK_RETURN_IF(tmp[i] > INT16_MAX, err, PLANK_ERR_CORRUPT,
                         "level value %u is out of range", (unsigned)tmp[i]);
            out[i] = (int16_t)tmp[i];
        }
        out += k;
        n -= k;
    }
    return PLANK_OK;
}

/* Sets (v = 1) or clears bits [at, at + k) of bits. */
static void fill_bits(uint8_t *bits, int64_t at, int64_t k, unsigned v) {
    for (; k > 0 && (at & 7); at++, k--) pk_bit_put(bits, at, v);
    if (k >= 8) memset(bits + (at >> 3), v ? 0xFF : 0, (size_t)(k >> 3));
    at += k & ~(int64_t)7;
    for (k &= 7; k > 0; at++, k--) pk_bit_put(bits, at, v);
}

plank_status pk_rle_get_bits(pk_rle_decoder *d, uint8_t *out, int64_t bit, int64_t n,
                             plank_error *err) {
    PK_RETURN_IF(n < 0 || d->bit_width != 1, err, PLANK_ERR_INVALID_ARGUMENT,
                 "bitmap read of %lld values of width %d", (long long)n, d->bit_width);
    const pk_kernels *k = d->kernels ? d->kernels : pk_kernels_for(PK_SIMD_SCALAR);
    while (n > 0) {
        if (d->rle_left > 0) {
            int64_t m = n < d->rle_left ? n : d->rle_left;
            /* rle_next_run checked the value fits in the bit width: 0 or 1. */
            fill_bits(out, bit, m, d->rle_value);
            d->rle_left -= m;
            bit += m, n -= m;
        } else if (d->packed_left > 0) {
            int64_t m = n < d->packed_left ? n : d->packed_left;
            /* A run of width 1 is a bitmap; its bits are all inside d->end. */
            k->copy_bits(d->packed, d->packed_pos, out, bit, (size_t)m);
            d->packed_pos += m;
            d->packed_left -= m;
            bit += m, n -= m;
        } else {
            PK_FORWARD(rle_next_run(d, err));
        }
    }
    return PLANK_OK;
}

plank_status pk_bitpacked_legacy_get_i16(const uint8_t *buf, size_t len, int bit_width,
                                         int16_t *out, int64_t n, plank_error *err) {
    PK_RETURN_IF(bit_width < 0 || bit_width > 16, err, PLANK_ERR_CORRUPT,
                 "BIT_PACKED level bit width %d is not in 0..16", bit_width);
    PK_RETURN_IF(n < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative value count %lld",
                 (long long)n);
    if (bit_width == 0) {
        if (n > 0) memset(out, 0, (size_t)n * sizeof *out);
        return PLANK_OK;
    }
    /* n * bit_width <= len * 8, without overflow. */
    PK_RETURN_IF((uint64_t)n > (uint64_t)len * 8 / (uint64_t)bit_width, err, PLANK_ERR_CORRUPT,
                 "BIT_PACKED levels: %lld values of %d bits need more than the %zu bytes present",
                 (long long)n, bit_width, len);
    uint32_t mask = (1u << bit_width) - 1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t bit = (uint64_t)i * (uint64_t)bit_width;
        size_t byte = (size_t)(bit >> 3);
        unsigned shift = (unsigned)(bit & 7);
        /* A value of <= 16 bits starting at bit `shift` fits in 3 bytes,
         * read big-endian because packing is MSB-first. */
        uint32_t win = 0;
        for (size_t j = 0; j < 3; j++)
            win = (win << 8) | (byte + j < len ? buf[byte + j] : 0u);
        uint32_t v = (win >> (24 - shift - (unsigned)bit_width)) & mask;
        PK_RETURN_IF(v > INT16_MAX, err, PLANK_ERR_CORRUPT, "level value %u is out of range",
                     (unsigned)v);
        out[i] = (int16_t)v;
    }
    return PLANK_OK;
}

int pk_bit_width_for(uint64_t max_value) {
    int w = 0;
    while (max_value) {
        w++;
        max_value >>= 1;
    }
    return w;
}
