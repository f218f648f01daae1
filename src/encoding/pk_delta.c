/*
 * pk_delta.c: DELTA_BINARY_PACKED.
 *
 * Hostile input: the header must describe blocks that are positive multiples
 * of 128 values split into miniblocks of a multiple of 32 values; each block's
 * min delta and bit-width bytes, and the packed bytes of every miniblock that
 * holds values, are checked against the end of the data before use. Bit widths
 * above 64 are corrupt (only checked for miniblocks that hold values: the
 * widths of trailing padding miniblocks may be anything, and their bodies may
 * be absent). All arithmetic wraps in uint64 as the format requires; INT32
 * values are the low 32 bits of the same computation.
 */
#include "pk_encoding_internal.h"
#include "pk_delta_fast.h"

#include "../simd/pk_kernels.h"

/* Blocks larger than this are rejected; it keeps every size product of the
 * decoder (values_per_mini * 64 bits) far from overflow. */
#define PK_DELTA_MAX_BLOCK (UINT64_C(1) << 31)

plank_status pk_delta_init(pk_delta_decoder *d, const uint8_t *buf, size_t len, bool is64,
                           plank_error *err) {
    memset(d, 0, offsetof(pk_delta_decoder, stage));
    d->start = buf;
    d->p = buf;
    d->end = buf + len;
    d->is64 = is64;
    uint64_t block, minis, total, first;
    const uint8_t *q = buf, *end = buf + len;
    PK_RETURN_IF(!pk_read_uleb128(&q, end, 10, &block) || !pk_read_uleb128(&q, end, 10, &minis) ||
                     !pk_read_uleb128(&q, end, 10, &total) ||
                     !pk_read_uleb128(&q, end, 10, &first),
                 err, PLANK_ERR_CORRUPT, "DELTA_BINARY_PACKED header truncated or malformed");
    PK_RETURN_IF(block == 0 || block % 128 != 0 || block > PK_DELTA_MAX_BLOCK, err,
                 PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED block size %llu is not a positive multiple of 128",
                 (unsigned long long)block);
    PK_RETURN_IF(minis == 0 || block % minis != 0 || (block / minis) % 32 != 0, err,
                 PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED: %llu miniblocks do not split a block of %llu values "
                 "into multiples of 32",
                 (unsigned long long)minis, (unsigned long long)block);
    PK_RETURN_IF(total > (uint64_t)INT64_MAX, err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED value count %llu is too large", (unsigned long long)total);
    d->block_size = block;
    d->miniblocks = minis;
    d->values_per_mini = block / minis;
    d->total_values = (int64_t)total;
    d->last = pk_zigzag_decode(first);
    d->p = q;
    return PLANK_OK;
}

int64_t pk_delta_remaining(const pk_delta_decoder *d) { return d->total_values - d->values_read; }

/* Reads a block header: min delta and the bit width of every miniblock. */
static plank_status delta_block_start(pk_delta_decoder *d, plank_error *err) {
    size_t at = (size_t)(d->p - d->start);
    uint64_t md;
    PK_RETURN_IF(!pk_read_uleb128(&d->p, d->end, 10, &md), err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED block min delta truncated or malformed at byte %zu", at);
    PK_RETURN_IF((uint64_t)(d->end - d->p) < d->miniblocks, err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED block at byte %zu: %llu miniblock bit widths, %zu bytes "
                 "remain",
                 at, (unsigned long long)d->miniblocks, (size_t)(d->end - d->p));
    d->min_delta = pk_zigzag_decode(md);
    d->widths = d->p;
    d->p += d->miniblocks;
    d->mini_index = 0;
    d->mini_pos = 0;
    d->mini_data = d->p;
    d->in_block = true;
    return PLANK_OK;
}

/* Checks the current miniblock (about to be entered) holds the bytes of the
 * values the stream still has in it. */
static plank_status delta_mini_check(pk_delta_decoder *d, plank_error *err) {
    int bw = d->widths[d->mini_index];
    size_t at = (size_t)(d->mini_data - d->start);
    PK_RETURN_IF(bw > 64, err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED miniblock at byte %zu has bit width %d (max 64)", at, bw);
    uint64_t k = (uint64_t)pk_delta_remaining(d);
    if (k > d->values_per_mini) k = d->values_per_mini;
    uint64_t need = (k * (uint64_t)bw + 7) / 8;
    PK_RETURN_IF(need > (uint64_t)(d->end - d->mini_data), err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED miniblock at byte %zu needs %llu bytes, %zu remain", at,
                 (unsigned long long)need, (size_t)(d->end - d->mini_data));
    return PLANK_OK;
}

/* INT32 streams: sign-extend the low 32 bits without implementation-defined
 * conversions. */
PK_INLINE uint64_t delta_fix(const pk_delta_decoder *d, uint64_t v) {
    if (d->is64) return v;
    return (uint64_t)((uint32_t)v ^ 0x80000000u) - UINT64_C(0x80000000);
}

/* Records k values consumed from the current miniblock (of width bw). */
PK_INLINE void delta_consumed(pk_delta_decoder *d, uint64_t k, int bw) {
    d->mini_pos += k;
    d->values_read += (int64_t)k;
    if (d->mini_pos == d->values_per_mini) {
        /* The whole miniblock was needed, so delta_mini_check saw all of
         * its bytes present. */
        d->mini_data += d->values_per_mini * (uint64_t)bw / 8;
        d->mini_index++;
        d->mini_pos = 0;
        if (d->mini_index == d->miniblocks) {
            d->in_block = false;
            d->p = d->mini_data;
        }
    }
}

plank_status pk_delta_get(pk_delta_decoder *d, uint64_t *out, int64_t n, plank_error *err) {
    PK_RETURN_IF(n < 0 || n > pk_delta_remaining(d), err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED: %lld values requested, %lld remain", (long long)n,
                 (long long)pk_delta_remaining(d));
    int64_t i = 0;
    if (n > 0 && d->values_read == 0) {
        out[i++] = delta_fix(d, d->last);
        d->values_read = 1;
    }
    for (; i < n && d->stage_pos < d->stage_n; i++, d->stage_pos++, d->values_read++) {
        const uint8_t *v = d->stage + (size_t)d->stage_pos * (d->is64 ? 8 : 4);
        out[i] = d->is64 ? pk_load_u64(v) : delta_fix(d, pk_load_u32(v));
    }
    while (i < n) {
        if (!d->in_block) PK_FORWARD(delta_block_start(d, err));
        if (d->mini_pos == 0) PK_FORWARD(delta_mini_check(d, err));
        int bw = d->widths[d->mini_index];
        uint64_t k = d->values_per_mini - d->mini_pos;
        if (k > (uint64_t)(n - i)) k = (uint64_t)(n - i);
        size_t nbytes = (size_t)(d->end - d->mini_data);
        uint64_t bit = d->mini_pos * (uint64_t)bw;
        uint64_t last = d->last, md = d->min_delta;
        for (uint64_t j = 0; j < k; j++, bit += (uint64_t)bw) {
            last += md + pk_get_bits(d->mini_data, nbytes, bit, bw);
            out[i++] = delta_fix(d, last);
        }
        d->last = last;
        delta_consumed(d, k, bw);
    }
    return PLANK_OK;
}

plank_status pk_delta_skip(pk_delta_decoder *d, int64_t n, plank_error *err) {
    uint64_t tmp[256];
    while (n > 0) {
        int64_t k = n < 256 ? n : 256;
        PK_FORWARD(pk_delta_get(d, tmp, k, err));
        n -= k;
    }
    return PLANK_OK;
}

plank_status pk_delta_get_i32(pk_delta_decoder *d, int32_t *out, int64_t n, plank_error *err) {
    uint64_t tmp[256];
    while (n > 0) {
        int64_t k = n < 256 ? n : 256;
        PK_FORWARD(pk_delta_get(d, tmp, k, err));
        for (int64_t i = 0; i < k; i++) {
            uint32_t v = (uint32_t)tmp[i];
            memcpy(&out[i], &v, sizeof v);
        }
        out += k;
        n -= k;
    }
    return PLANK_OK;
}

plank_status pk_delta_get_i64(pk_delta_decoder *d, int64_t *out, int64_t n, plank_error *err) {
    uint64_t tmp[256];
    while (n > 0) {
        int64_t k = n < 256 ? n : 256;
        PK_FORWARD(pk_delta_get(d, tmp, k, err));
        memcpy(out, tmp, (size_t)k * sizeof *out);
        out += k;
        n -= k;
    }
    return PLANK_OK;
}

plank_status pk_delta_end(pk_delta_decoder *d, const uint8_t **end, plank_error *err) {
    PK_FORWARD(pk_delta_skip(d, pk_delta_remaining(d), err));
    if (!d->in_block) {
        *end = d->p;
    } else if (d->mini_pos == 0) {
        /* The remaining miniblocks of the block are padding without bodies. */
        *end = d->mini_data;
    } else {
        /* A partly used final miniblock is padded to its full size. */
        uint64_t full = d->values_per_mini * (uint64_t)d->widths[d->mini_index] / 8;
        PK_RETURN_IF(full > (uint64_t)(d->end - d->mini_data), err, PLANK_ERR_CORRUPT,
                     "DELTA_BINARY_PACKED last miniblock at byte %zu is truncated "
                     "(%llu bytes, %zu remain)",
                     (size_t)(d->mini_data - d->start), (unsigned long long)full,
                     (size_t)(d->end - d->mini_data));
        *end = d->mini_data + full;
    }
    return PLANK_OK;
}

/* ---- Batched reads through the kernel table -------------------------------------- */

/* Decodes k values of the current miniblock one by one (the partial group
 * before or after whole groups), as pk_delta_get does. */
static void delta_values_scalar(pk_delta_decoder *d, uint64_t k, int bw, uint8_t *out,
                                size_t w) {
    size_t nbytes = (size_t)(d->end - d->mini_data);
    uint64_t bit = d->mini_pos * (uint64_t)bw;
    uint64_t last = d->last, md = d->min_delta;
    for (uint64_t j = 0; j < k; j++, bit += (uint64_t)bw) {
        last += md + pk_get_bits(d->mini_data, nbytes, bit, bw);
        if (w == 8) {
            pk_store_u64(out + 8 * j, last);
        } else {
            pk_store_u32(out + 4 * j, (uint32_t)last);
        }
    }
    d->last = last;
}

/* Decodes `groups` whole groups of 32 values at bit position mini_pos*bw of
 * the current miniblock. The kernels read up to PK_DELTA_KERNEL_SLACK bytes
 * past the last group they are given: the groups for which that stays inside
 * the buffer go straight to the kernel, the others (at most the last few of a
 * page) through a zero-padded copy. The groups' own bytes are present:
 * delta_mini_check checked them, since every value in them is requested. */
static void delta_groups(pk_delta_decoder *d, const pk_kernels *k, uint64_t groups, int bw,
                         uint8_t *out, size_t w) {
    const uint8_t *g = d->mini_data + d->mini_pos / 8 * (uint64_t)bw;
    size_t gbytes = 4 * (size_t)bw;
    size_t avail = (size_t)(d->end - g);
    uint64_t direct = groups;
    if (PK_UNLIKELY(groups * gbytes + PK_DELTA_KERNEL_SLACK > avail)) {
        /* Near the end of the buffer (rare: no division on the common path). */
        direct = avail >= PK_DELTA_KERNEL_SLACK ? (avail - PK_DELTA_KERNEL_SLACK) / gbytes : 0;
    }
    uint64_t last = d->last;
    for (uint64_t done = 0; done < groups;) {
        const uint8_t *src = g + done * gbytes;
        uint8_t pad[4 * 64 + PK_DELTA_KERNEL_SLACK];
        uint64_t m = direct > done ? direct - done : 1;
        if (done >= direct) {
            memset(pad, 0, sizeof pad);
            memcpy(pad, src, gbytes);
            src = pad;
        }
        uint8_t *o = out + done * 32 * w, width = (uint8_t)bw;
        if (w == 8) {
            last = k->delta_i64(src, &width, 1, (size_t)m, d->min_delta, last, o);
        } else {
            last = k->delta_i32(src, &width, 1, (size_t)m, (uint32_t)d->min_delta,
                                (uint32_t)last, o);
        }
        done += m;
    }
    d->last = last;
}

/* ---- Runs that cannot hold a wanted value -------------------------------------- */

/* A value of the stream's type from its wrapping uint64 form, without
 * implementation-defined conversions. */
static int64_t delta_signed(bool is64, uint64_t u) {
    if (!is64) return (int64_t)((u & 0xffffffffu) ^ 0x80000000u) - INT64_C(0x80000000);
    return u >> 63 ? -(int64_t)(~u) - 1 : (int64_t)u;
}

enum { RUN_MAY_MATCH, RUN_OUTSIDE, RUN_INSIDE };

/* Where the m values after `last` lie against [lo, hi], when each delta is
 * md plus 0 .. 2^bw - 1 (bw: the widest miniblock of the run). Value j of
 * the run (1..m) is last + j md + (j packed values), so the run lies within
 * [last + min(md, m md), last + max(top, m top)] with top = md + 2^bw - 1.
 * That holds only while no value wraps around the type's range: a range
 * leaving it proves nothing (RUN_MAY_MATCH). RUN_OUTSIDE sets *fill to a
 * value of the run's range, outside [lo, hi]. */
PK_INLINE int delta_run_range(bool is64, uint64_t last, uint64_t min_delta, int bw,
                              uint64_t m, const pk_delta_bound *bound, uint64_t *fill) {
    /* In int64 with overflow checks (an overflow proves nothing either);
     * widths of 63 and 64 bits bound nothing. m is below 2^31. */
    if (bw > (is64 ? 62 : 32) || m == 0) return RUN_MAY_MATCH;
    int64_t v0 = delta_signed(is64, last), md = delta_signed(is64, min_delta), n = (int64_t)m;
    int64_t top, lo_off = md, hi_off, a, b;
    if (__builtin_add_overflow(md, (int64_t)((UINT64_C(1) << bw) - 1), &top)) return RUN_MAY_MATCH;
    hi_off = top;
    if ((md < 0 && __builtin_mul_overflow(n, md, &lo_off)) ||
        (top > 0 && __builtin_mul_overflow(n, top, &hi_off)) ||
        __builtin_add_overflow(v0, lo_off, &a) || __builtin_add_overflow(v0, hi_off, &b))
        return RUN_MAY_MATCH;
    if (!is64 && (a < INT32_MIN || b > INT32_MAX)) return RUN_MAY_MATCH;
    if (a > bound->hi || b < bound->lo) {
        *fill = (uint64_t)(a > bound->hi ? a : b);
        return RUN_OUTSIDE;
    }
    return a >= bound->lo && b <= bound->hi ? RUN_INSIDE : RUN_MAY_MATCH;
}

/* delta_run_range where checking pays, counting what it finds: after 64
 * checks in a row that found no run to pass over, the checks are spaced out
 * (one, then `idle` runs unchecked, idle growing by one per miss up to
 * 1024), so a column whose runs never lie outside (values not clustered)
 * pays a few hundred checks per bound instead of one per run. */
static int delta_check(pk_delta_bound *b, bool is64, uint64_t last, uint64_t min_delta, int bw,
                       uint64_t m, uint64_t *fill) {
    if (b->idle > 0) {
        b->idle--;
        return RUN_MAY_MATCH;
    }
    int where = delta_run_range(is64, last, min_delta, bw, m, b, fill);
    if (where == RUN_OUTSIDE) {
        b->misses = 0;
        b->runs++;
        b->skipped += (int64_t)m;
    } else if (++b->misses > 64) {
        b->idle = b->misses - 64 < 1024 ? b->misses - 64 : 1024;
    }
    return where;
}

/* The sum (wrapping) of m packed values of bw bits from g (a group start;
 * g[0..avail) readable and holding them). */
static uint64_t delta_packed_sum(const pk_kernels *k, const uint8_t *g, size_t avail,
                                 uint64_t m, int bw) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < m && bw > 0;) {
        union {
            uint32_t u32[256];
            uint64_t u64[256];
        } tmp;
        uint64_t c = m - i < 256 ? m - i : 256;
        size_t at = (size_t)(i / 8 * (uint64_t)bw); /* i is a multiple of 256 */
        if (bw <= 32) {
            k->unpack32(g + at, avail - at, tmp.u32, (size_t)c, bw);
            for (uint64_t j = 0; j < c; j++) sum += tmp.u32[j];
        } else {
            k->unpack64(g + at, avail - at, tmp.u64, (size_t)c, bw);
            for (uint64_t j = 0; j < c; j++) sum += tmp.u64[j];
        }
        i += c;
    }
    return sum;
}

static void delta_fill(uint8_t *out, size_t w, uint64_t m, uint64_t fill) {
    if (!out) return; /* a skip */
    if (w == 8) {
        for (uint64_t j = 0; j < m; j++) pk_store_u64(out + 8 * j, fill);
    } else {
        for (uint64_t j = 0; j < m; j++) pk_store_u32(out + 4 * j, (uint32_t)fill);
    }
}

/* Passes over m values of the current miniblock (from a group boundary:
 * whole groups, or fewer values when the request or the stream ends first)
 * without their running sum: the last value moves by m min deltas plus the
 * sum of their packed values (the delta_sum kernel over whole groups that
 * leave it its slack inside the buffer, else unpacked and added), and the m
 * output slots get `fill`. */
static void delta_run_skip(pk_delta_decoder *d, const pk_kernels *k, uint64_t m, int bw,
                           uint8_t *out, size_t w, uint64_t fill) {
    const uint8_t *g = d->mini_data + d->mini_pos / 8 * (uint64_t)bw;
    size_t avail = (size_t)(d->end - g), gbytes = 4 * (size_t)bw;
    uint64_t groups = m / PK_DELTA_GROUP, sum = 0;
    if (groups > 0 && groups * gbytes + PK_DELTA_KERNEL_SLACK <= avail) {
        uint8_t width = (uint8_t)bw;
        sum = k->delta_sum(g, &width, 1, (size_t)groups);
        g += groups * gbytes;
        avail -= (size_t)groups * gbytes;
    } else {
        groups = 0;
    }
    sum += delta_packed_sum(k, g, avail, m - groups * PK_DELTA_GROUP, bw);
    d->last += m * d->min_delta + sum;
    delta_fill(out, w, m, fill);
}

/* Whether any of bits [from, from + n) of bits is set (bits readable 8
 * bytes past the last of them, as pk_delta_read_live asks). */
static bool delta_live_any(const uint8_t *bits, int64_t from, int64_t n) {
    const uint64_t m56 = (UINT64_C(1) << 56) - 1;
    uint64_t any = 0;
    for (; n >= 56; n -= 56, from += 56) any |= (pk_load_u64(bits + (from >> 3)) >> (from & 7)) & m56;
    if (n > 0) any |= (pk_load_u64(bits + (from >> 3)) >> (from & 7)) & ((UINT64_C(1) << n) - 1);
    return any != 0;
}

/* Whole blocks, as many as the request and the stream cover, from the start
 * of a block: each block's header (min delta, widths) is parsed here and the
 * block goes to one kernel call, with one bounds check; the decoder's state
 * stays in locals. Stops at the first block that has a width above 64 or is
 * not entirely inside the buffer with the kernels' slack after it, leaving
 * the decoder at that block's start: the per-miniblock path then reports the
 * error or handles the end. Returns the number of values decoded.
 * out NULL: a skip, every block summed (its packed values added by the
 * delta_sum kernel, which writes nothing). live (not NULL): only the values
 * whose bit (live_bit + i) is set are needed; a block without one is summed
 * and its slots get 0. */
static int64_t delta_blocks(pk_delta_decoder *d, const pk_kernels *k, uint8_t *out, int64_t n,
                            size_t w, pk_delta_bound *bound, const uint8_t *live,
                            int64_t live_bit) {
    uint64_t bs = d->block_size, minis = d->miniblocks, vpm = d->values_per_mini;
    int64_t want = n < pk_delta_remaining(d) ? n : pk_delta_remaining(d);
    uint64_t blocks = (uint64_t)want / bs, b = 0;
    size_t groups = (size_t)(vpm / PK_DELTA_GROUP);
    const uint8_t *p = d->p, *end = d->end;
    uint64_t last = d->last;
    for (; b < blocks; b++) {
        uint8_t *o = out ? out + b * bs * w : NULL;
        const uint8_t *q = p;
        uint64_t zz, bits = 0;
        if (!pk_read_uleb128(&q, end, 10, &zz) || (uint64_t)(end - q) < minis) break;
        bool bad = false;
        for (uint64_t m = 0; m < minis; m++) {
            bad |= q[m] > 64;
            bits += q[m];
        }
        /* bits * vpm <= 64 * block size <= 2^37: no overflow. */
        uint64_t bytes = bits * vpm / 8;
        if (bad || bytes + PK_DELTA_KERNEL_SLACK > (uint64_t)(end - q) - minis) break;
        uint64_t md = pk_zigzag_decode(zz);
        if (bound && bound->idle > 0) {
            bound->idle--; /* delta_check's spacing */
        } else if (bound) {
            /* The block's range from its widest miniblock: a block outside
             * is summed, not decoded; one partly inside goes through the
             * miniblock path (from its header, left unread here) once some
             * run of this bound has been passed over: where none ever is
             * (values not clustered), the miniblocks' checks would only
             * cost. */
            int maxbw = 0;
            for (uint64_t m = 0; m < minis; m++) maxbw = q[m] > maxbw ? q[m] : maxbw;
            uint64_t fill;
            int where = delta_check(bound, d->is64, last, md, maxbw, bs, &fill);
            if (where == RUN_OUTSIDE) {
                last += bs * md + k->delta_sum(q + minis, q, (size_t)minis, groups);
                delta_fill(o, w, bs, fill);
                p = q + minis + bytes;
                continue;
            }
            if (where == RUN_MAY_MATCH && bound->runs > 0) break;
        }
        if (!o || (live && !delta_live_any(live, live_bit + (int64_t)(b * bs), (int64_t)bs))) {
            last += bs * md + k->delta_sum(q + minis, q, (size_t)minis, groups);
            delta_fill(o, w, bs, 0);
        } else if (w == 8) {
            last = k->delta_i64(q + minis, q, (size_t)minis, groups, md, last, o);
        } else {
            last = k->delta_i32(q + minis, q, (size_t)minis, groups, (uint32_t)md,
                                (uint32_t)last, o);
        }
        p = q + minis + bytes;
    }
    d->p = p;
    d->last = last;
    d->values_read += (int64_t)(b * bs);
    return (int64_t)(b * bs);
}

/* Hands out up to n staged values (w bytes each); returns how many. */
static int64_t delta_unstage(pk_delta_decoder *d, uint8_t *out, int64_t n, size_t w) {
    int64_t m = (int64_t)(d->stage_n - d->stage_pos);
    if (m > n) m = n;
    if (out) memcpy(out, d->stage + (size_t)d->stage_pos * w, (size_t)m * w);
    d->stage_pos += (uint32_t)m;
    d->values_read += m;
    return m;
}

/* n values to out (w bytes each); out NULL: passed over, nothing written
 * (whole blocks and groups summed, not decoded). bound, live: as
 * delta_blocks takes them (live only there: a read's first and last
 * partial blocks are decoded whole). */
static plank_status delta_read(pk_delta_decoder *d, const pk_kernels *k, uint8_t *out,
                               int64_t n, size_t w, pk_delta_bound *bound, const uint8_t *live,
                               int64_t live_bit, plank_error *err) {
    PK_RETURN_IF(d->is64 != (w == 8), err, PLANK_ERR_INVALID_ARGUMENT,
                 "DELTA_BINARY_PACKED: %zu-byte read of an INT%d stream", w,
                 d->is64 ? 64 : 32);
    if (!k) {
        /* The scalar reference. */
        uint64_t tmp[256];
        if (!out) return pk_delta_skip(d, n, err);
        while (n > 0) {
            int64_t m = n < 256 ? n : 256;
            PK_FORWARD(pk_delta_get(d, tmp, m, err));
            for (int64_t i = 0; i < m; i++) {
                if (w == 8) {
                    pk_store_u64(out + 8 * i, tmp[i]);
                } else {
                    pk_store_u32(out + 4 * i, (uint32_t)tmp[i]);
                }
            }
            out += (size_t)m * w;
            n -= m;
        }
        return PLANK_OK;
    }
    PK_RETURN_IF(n < 0 || n > pk_delta_remaining(d), err, PLANK_ERR_CORRUPT,
                 "DELTA_BINARY_PACKED: %lld values requested, %lld remain", (long long)n,
                 (long long)pk_delta_remaining(d));
    /* out advances only when there is one (a skip has none) */
#define PK_DELTA_ADVANCE(m)              \
    do {                                 \
        if (out) out += (size_t)(m) * w; \
        live_bit += (int64_t)(m);        \
        n -= (int64_t)(m);               \
    } while (0)
    if (n > 0 && d->values_read == 0) {
        if (w == 8 && out) {
            pk_store_u64(out, d->last);
        } else if (out) {
            pk_store_u32(out, (uint32_t)d->last);
        }
        d->values_read = 1;
        PK_DELTA_ADVANCE(1);
    }
    if (n > 0 && d->stage_pos < d->stage_n) {
        int64_t m = delta_unstage(d, out, n, w);
        PK_DELTA_ADVANCE(m);
    }
    while (n > 0) {
        if (!d->in_block && (uint64_t)n >= d->block_size) {
            int64_t m = delta_blocks(d, k, out, n, w, bound, live, live_bit);
            PK_DELTA_ADVANCE(m);
            if (n == 0) break;
        }
        if (!d->in_block && (uint64_t)n < d->block_size && d->block_size <= PK_DELTA_STAGE_MAX &&
            pk_delta_remaining(d) >= (int64_t)d->block_size &&
            delta_blocks(d, k, d->stage, (int64_t)d->block_size, w, NULL, NULL, 0) > 0) {
            /* The read ends inside a whole block: decoded ahead in one
             * kernel call, the rest handed out by the next reads, instead
             * of its miniblocks and partial groups one by one. */
            d->values_read -= (int64_t)d->block_size;
            d->stage_n = (uint32_t)d->block_size;
            d->stage_pos = 0;
            delta_unstage(d, out, n, w);
            break;
        }
        if (!d->in_block) PK_FORWARD(delta_block_start(d, err));
        if (d->mini_pos == 0) PK_FORWARD(delta_mini_check(d, err));
        int bw = d->widths[d->mini_index];
        uint64_t m = d->values_per_mini - d->mini_pos;
        if (m > (uint64_t)n) m = (uint64_t)n;
        uint64_t off = d->mini_pos % PK_DELTA_GROUP, fill;
        if (off == 0 && m >= PK_DELTA_GROUP) m -= m % PK_DELTA_GROUP;
        if (bound && off == 0 &&
            delta_check(bound, d->is64, d->last, d->min_delta, bw, m, &fill) == RUN_OUTSIDE) {
            delta_run_skip(d, k, m, bw, out, w, fill);
        } else if (!out && off == 0 && m >= PK_DELTA_GROUP) {
            delta_run_skip(d, k, m, bw, NULL, w, 0);
        } else if (off == 0 && m >= PK_DELTA_GROUP) {
            delta_groups(d, k, m / PK_DELTA_GROUP, bw, out, w);
        } else {
            /* Up to the next group boundary (or the end of the request). */
            uint8_t tmp[PK_DELTA_GROUP * 8];
            if (m > PK_DELTA_GROUP - off) m = PK_DELTA_GROUP - off;
            delta_values_scalar(d, m, bw, out ? out : tmp, w);
        }
        delta_consumed(d, m, bw);
        PK_DELTA_ADVANCE(m);
    }
#undef PK_DELTA_ADVANCE
    return PLANK_OK;
}

plank_status pk_delta_read_i32(pk_delta_decoder *d, const struct pk_kernels *k, uint8_t *out,
                               int64_t n, plank_error *err) {
    return delta_read(d, k, out, n, 4, NULL, NULL, 0, err);
}

plank_status pk_delta_read_i64(pk_delta_decoder *d, const struct pk_kernels *k, uint8_t *out,
                               int64_t n, plank_error *err) {
    return delta_read(d, k, out, n, 8, NULL, NULL, 0, err);
}

plank_status pk_delta_read_bounded(pk_delta_decoder *d, const struct pk_kernels *k,
                                   uint8_t *out, int64_t n, pk_delta_bound *bound,
                                   plank_error *err) {
    return delta_read(d, k, out, n, d->is64 ? 8 : 4, k ? bound : NULL, NULL, 0, err);
}

plank_status pk_delta_read_live(pk_delta_decoder *d, const struct pk_kernels *k, uint8_t *out,
                                int64_t n, pk_delta_bound *bound, const uint8_t *live,
                                int64_t bit, plank_error *err) {
    return delta_read(d, k, out, n, d->is64 ? 8 : 4, k ? bound : NULL, k ? live : NULL, bit,
                      err);
}

plank_status pk_delta_skip_k(pk_delta_decoder *d, const struct pk_kernels *k, int64_t n,
                             plank_error *err) {
    return delta_read(d, k, NULL, n, d->is64 ? 8 : 4, NULL, NULL, 0, err);
}
