/*
 * pk_encoder.c: the encoders of pk_encoder.h for levels and values: the
 * RLE / bit-packed hybrid, PLAIN, RLE booleans, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT. The
 * dictionary builder is in pk_dict_builder.c.
 *
 * Output goes straight into the pk_buffer: each piece (a bit-packed run, an
 * RLE run, a DELTA block) first reserves its worst-case size plus ENC_SLACK
 * bytes, so that the packers may store whole 64-bit words past the last byte
 * they mean to write (the extra bytes they store are zeros, past `size`).
 * Every public function leaves the buffer as it found it when it fails.
 *
 * The bit packer and the hybrid scanner are force-inlined bodies that take
 * the kind of input element and (for the hybrid) the bit width as
 * arguments; the callers pass constants, so each combination compiles to a
 * loop without per-value calls or switches.
 */
#include "pk_encoder.h"
#include "pk_encoding_internal.h"

#include "../simd/pk_kernels.h"

/* Bytes a packer may store past what it reports as written. */
#define ENC_SLACK 8
/* The largest count an RLE run header may hold (decoders read 32-bit headers). */
#define RLE_MAX_RUN ((UINT64_C(1) << 31) - 1)
/* Values per bit-packed run: 63 groups keep the header in one byte. */
#define PACKED_RUN_VALUES (63 * 8)
/* Pending bit-packed values are written once this many are queued, while they
 * are still in the L1 cache (a multiple of PACKED_RUN_VALUES). */
#define PACKED_FLUSH_VALUES (8 * PACKED_RUN_VALUES)

/* Makes room for `more` bytes (plus the slack) after out->size and returns
 * the write position in *p. */
static plank_status room(pk_buffer *out, size_t more, uint8_t **p, plank_error *err) {
    size_t need;
    *p = NULL;
    if (__builtin_add_overflow(out->size, more, &need) ||
        __builtin_add_overflow(need, (size_t)ENC_SLACK, &need))
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY,
                            "encoded output larger than the address space");
    PK_FORWARD(pk_buffer_reserve(out, need, err));
    *p = out->data + out->size;
    return PLANK_OK;
}

/* Records that the bytes up to p have been written. */
PK_INLINE void written(pk_buffer *out, const uint8_t *p) { out->size = (size_t)(p - out->data); }

PK_INLINE uint8_t *put_uleb(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

PK_INLINE uint64_t zigzag(uint64_t v) { return (v << 1) ^ (0 - (v >> 63)); }

PK_INLINE int width_of(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* ---- Bit packing ---------------------------------------------------------- */

/* Kinds of input element. Booleans are bytes, any non-zero byte is true. */
enum { K_BOOL8, K_I16, K_U32, K_U64 };

PK_INLINE uint64_t ld(const void *v, size_t i, int kind) {
    switch (kind) {
    case K_BOOL8: return ((const uint8_t *)v)[i] != 0;
    case K_I16: return (uint16_t)((const int16_t *)v)[i];
    case K_U32: return ((const uint32_t *)v)[i];
    default: return ((const uint64_t *)v)[i];
    }
}

PK_INLINE const void *elem(const void *v, size_t i, int kind) {
    static const uint8_t size[] = {1, 2, 4, 8};
    return (const uint8_t *)v + i * size[kind];
}

/* Packs v[0..n) (each below 2^bw, bw 0..64) LSB-first at o and returns the
 * end of the ceil(n*bw/8) bytes written; stores up to 8 zero bytes past it. */
PK_INLINE uint8_t *pack_bits(const void *v, size_t n, int bw, int kind, uint8_t *o) {
    pk_bitw w = {0, 0, o};
    if (bw > 0)
        for (size_t i = 0; i < n; i++) pk_bitw_put(&w, ld(v, i, kind), bw);
    return pk_bitw_end(&w);
}

/* ---- RLE / bit-packed hybrid ------------------------------------------------- */

/* Bit-packed runs of v[0..n): whole groups of 8, the last one padded with
 * zeros, at most 63 groups per run. The caller made room for
 * packed_bytes(n, bw) bytes. */
PK_INLINE uint8_t *put_packed_runs(uint8_t *o, const void *v, size_t n, int bw, int kind) {
    while (n > 0) {
        size_t m = n < PACKED_RUN_VALUES ? n : PACKED_RUN_VALUES;
        size_t whole = m / 8;
        *o++ = (uint8_t)(((m + 7) / 8) << 1 | 1);
        for (size_t g = 0; g < whole; g++) o = pack_bits(elem(v, g * 8, kind), 8, bw, kind, o);
        if (m % 8) {
            uint64_t tail[8] = {0};
            for (size_t i = 0; i < m % 8; i++) tail[i] = ld(v, whole * 8 + i, kind);
            o = pack_bits(tail, 8, bw, K_U64, o);
        }
        v = elem(v, m, kind);
        n -= m;
    }
    return o;
}

PK_INLINE size_t packed_bytes(size_t n, int bw) {
    /* n <= SIZE_MAX, so the group count times 32 and the headers fit unless
     * n is near SIZE_MAX / 4; room() rejects what does not fit anyway. */
    size_t groups = n / 8 + (n % 8 != 0);
    size_t runs = (groups + 62) / 63;
    return groups > (SIZE_MAX - runs) / 32 ? SIZE_MAX - ENC_SLACK : groups * (size_t)bw + runs;
}

#define BW_CASE(k, b) case b: o = put_packed_runs(o, v, n, b, k); break;
#define BW_CASES_0_16(k)                                                                     \
    BW_CASE(k, 0) BW_CASE(k, 1) BW_CASE(k, 2) BW_CASE(k, 3) BW_CASE(k, 4) BW_CASE(k, 5)      \
    BW_CASE(k, 6) BW_CASE(k, 7) BW_CASE(k, 8) BW_CASE(k, 9) BW_CASE(k, 10) BW_CASE(k, 11)    \
    BW_CASE(k, 12) BW_CASE(k, 13) BW_CASE(k, 14) BW_CASE(k, 15) BW_CASE(k, 16)
#define BW_CASES_17_32(k)                                                                    \
    BW_CASE(k, 17) BW_CASE(k, 18) BW_CASE(k, 19) BW_CASE(k, 20) BW_CASE(k, 21)               \
    BW_CASE(k, 22) BW_CASE(k, 23) BW_CASE(k, 24) BW_CASE(k, 25) BW_CASE(k, 26)               \
    BW_CASE(k, 27) BW_CASE(k, 28) BW_CASE(k, 29) BW_CASE(k, 30) BW_CASE(k, 31)               \
    BW_CASE(k, 32)

/* Writes v[0..n) as bit-packed runs, with the packing loop compiled for the
 * constant kind and bit width (booleans: always 1). bw is in range for the
 * kind (checked by hybrid_run). */
static plank_status flush_packed(const void *v, size_t n, int bw, int kind, pk_buffer *out,
                                 plank_error *err) {
    if (n == 0) return PLANK_OK;
    uint8_t *o;
    PK_FORWARD(room(out, packed_bytes(n, bw), &o, err));
    switch (kind) {
    case K_BOOL8: o = put_packed_runs(o, v, n, 1, K_BOOL8); break;
    case K_I16:
        switch (bw) { BW_CASES_0_16(K_I16) }
        break;
    default:
        switch (bw) { BW_CASES_0_16(K_U32) BW_CASES_17_32(K_U32) }
        break;
    }
    written(out, o);
    return PLANK_OK;
}

static plank_status put_rle_run(uint64_t count, uint64_t value, int bw, pk_buffer *out,
                                plank_error *err) {
    size_t vbytes = ((size_t)bw + 7) / 8;
    while (count > 0) {
        uint64_t m = count < RLE_MAX_RUN ? count : RLE_MAX_RUN;
        uint8_t *o;
        PK_FORWARD(room(out, 5 + 4, &o, err));
        o = put_uleb(o, m << 1);
        pk_store_u32(o, (uint32_t)value);
        written(out, o + vbytes);
        count -= m;
    }
    return PLANK_OK;
}

/* The end of the run of values equal to x that starts at i. */
PK_INLINE size_t run_end(const void *v, size_t i, size_t n, uint64_t x, int kind) {
    while (i + 16 <= n) {
        uint64_t d = 0;
        for (size_t k = 0; k < 16; k++) d |= ld(v, i + k, kind) ^ x;
        if (d) break;
        i += 16;
    }
    while (i < n && ld(v, i, kind) == x) i++;
    return i;
}

/* Fails unless every value OR-ed into `any` fits in bw bits (and, for i16
 * levels, is not negative: decoders reject levels above INT16_MAX). */
static plank_status check_fits(uint64_t any, int bw, int kind, plank_error *err) {
    int limit = kind == K_I16 && bw > 15 ? 15 : bw;
    PK_RETURN_IF((any >> limit) != 0, err, PLANK_ERR_INVALID_ARGUMENT,
                 "a value does not fit in the RLE/bit-packed bit width %d%s", bw,
                 kind == K_I16 ? " or is negative" : "");
    return PLANK_OK;
}

/* The hybrid runs of v[0..n) (see pk_encoder.h for how runs are chosen).
 * The values are validated as they are scanned: `any` ORs every value seen,
 * and is checked before anything seen is written. */
PK_INLINE plank_status hybrid_body(const void *v, size_t n, int bw, int kind, pk_buffer *out,
                                   plank_error *err) {
    uint64_t any = 0;
    size_t start = 0; /* first value not written yet (pending bit-packed values) */
    size_t g = 0;     /* next group of 8 to look at; (g - start) % 8 == 0 */
    while (g + 8 <= n) {
        uint64_t x = ld(v, g, kind), d = 0;
        for (size_t k = 0; k < 8; k++) {
            uint64_t y = ld(v, g + k, kind);
            d |= y ^ x;
            any |= y;
        }
        if (d) {
            g += 8;
            if (g - start == PACKED_FLUSH_VALUES) {
                PK_FORWARD(check_fits(any, bw, kind, err));
                PK_FORWARD(flush_packed(elem(v, start, kind), g - start, bw, kind, out, err));
                start = g;
            }
            continue;
        }
        size_t e = run_end(v, g + 8, n, x, kind);
        PK_FORWARD(check_fits(any, bw, kind, err));
        PK_FORWARD(flush_packed(elem(v, start, kind), g - start, bw, kind, out, err));
        PK_FORWARD(put_rle_run(e - g, x, bw, out, err));
        start = g = e;
    }
    for (size_t i = g; i < n; i++) any |= ld(v, i, kind);
    PK_FORWARD(check_fits(any, bw, kind, err));
    if (start == g && g < n && run_end(v, g, n, ld(v, g, kind), kind) == n)
        return put_rle_run(n - g, ld(v, g, kind), bw, out, err);
    return flush_packed(elem(v, start, kind), n - start, bw, kind, out, err);
}

static plank_status hybrid_u32(const void *v, size_t n, int bw, pk_buffer *out,
                               plank_error *err) {
    return hybrid_body(v, n, bw, K_U32, out, err);
}

/* flush_packed for uint32 values through the pack32 kernel: each run's whole
 * groups in one call, a partial last group from a zero-padded copy. */
static plank_status flush_packed_k(const uint32_t *v, size_t n, int bw, const pk_kernels *k,
                                   pk_buffer *out, plank_error *err) {
    if (n == 0) return PLANK_OK;
    uint8_t *o;
    PK_FORWARD(room(out, packed_bytes(n, bw), &o, err));
    while (n > 0) {
        size_t m = n < PACKED_RUN_VALUES ? n : PACKED_RUN_VALUES;
        size_t whole = m / 8 * 8;
        *o++ = (uint8_t)(((m + 7) / 8) << 1 | 1);
        k->pack32(v, whole, bw, o); /* its 8 bytes of zeros past the end: ENC_SLACK */
        o += whole / 8 * (size_t)bw;
        if (m > whole) {
            uint32_t tail[8] = {0};
            memcpy(tail, v + whole, (m - whole) * sizeof *v);
            k->pack32(tail, 8, bw, o);
            o += (size_t)bw;
        }
        v += m;
        n -= m;
    }
    written(out, o);
    return PLANK_OK;
}

/* hybrid_body for uint32 values with the kernels: the groups before the next
 * run of 8 equal values are found by rle_scan32 (which also ORs them into
 * `any`), bit-packed runs written by pack32. The same runs, so the same
 * bytes, as hybrid_body. */
static plank_status hybrid_u32_k(const uint32_t *v, size_t n, int bw, const pk_kernels *k,
                                 pk_buffer *out, plank_error *err) {
    uint32_t any = 0;
    size_t start = 0, g = 0;
    while (g + 8 <= n) {
        size_t scan = (n - g) / 8 * 8, limit = start + PACKED_FLUSH_VALUES - g;
        if (scan > limit) scan = limit;
        size_t groups = k->rle_scan32(v + g, scan, &any);
        g += groups * 8;
        if (groups * 8 == scan) {
            if (g - start == PACKED_FLUSH_VALUES) {
                PK_FORWARD(check_fits(any, bw, K_U32, err));
                PK_FORWARD(flush_packed_k(v + start, g - start, bw, k, out, err));
                start = g;
            }
            continue;
        }
        uint32_t x = v[g];
        size_t e = run_end(v, g + 8, n, x, K_U32);
        PK_FORWARD(check_fits(any, bw, K_U32, err));
        PK_FORWARD(flush_packed_k(v + start, g - start, bw, k, out, err));
        PK_FORWARD(put_rle_run(e - g, x, bw, out, err));
        start = g = e;
    }
    for (size_t i = g; i < n; i++) any |= v[i];
    PK_FORWARD(check_fits(any, bw, K_U32, err));
    if (start == g && g < n && run_end(v, g, n, v[g], K_U32) == n)
        return put_rle_run(n - g, v[g], bw, out, err);
    return flush_packed_k(v + start, n - start, bw, k, out, err);
}
static plank_status hybrid_i16(const void *v, size_t n, int bw, pk_buffer *out,
                               plank_error *err) {
    return hybrid_body(v, n, bw, K_I16, out, err);
}
static plank_status hybrid_bool8(const void *v, size_t n, int bw, pk_buffer *out,
                                 plank_error *err) {
    (void)bw;
    return hybrid_body(v, n, 1, K_BOOL8, out, err);
}

typedef plank_status (*hybrid_fn)(const void *v, size_t n, int bw, pk_buffer *out,
                                  plank_error *err);

/* Runs fn, with a 4-byte little-endian length prefix when `prefixed`,
 * leaving out as it was on failure. */
static plank_status hybrid_run(hybrid_fn fn, const void *v, size_t n, int bw, int max_bw,
                               bool prefixed, pk_buffer *out, plank_error *err) {
    PK_RETURN_IF(bw < 0 || bw > max_bw, err, PLANK_ERR_INVALID_ARGUMENT,
                 "RLE/bit-packed bit width %d is not in 0..%d", bw, max_bw);
    PK_RETURN_IF(n > 0 && !v, err, PLANK_ERR_INVALID_ARGUMENT, "no values to encode");
    size_t at = out->size;
    static const uint8_t zero[4] = {0};
    plank_status st = prefixed ? pk_buffer_append(out, zero, 4, err) : PLANK_OK;
    if (st == PLANK_OK && n > 0) st = fn(v, n, bw, out, err); /* v may be NULL if n is 0 */
    if (st == PLANK_OK && prefixed) {
        size_t len = out->size - at - 4;
        if (len > UINT32_MAX)
            st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                              "RLE data of %zu bytes does not fit its 4-byte length", len);
        else
            pk_store_u32(out->data + at, (uint32_t)len);
    }
    if (st != PLANK_OK) out->size = at;
    return st;
}

plank_status pk_rle_encode_u32(const uint32_t *v, size_t n, int bit_width, pk_buffer *out,
                               plank_error *err) {
    return hybrid_run(hybrid_u32, v, n, bit_width, 32, false, out, err);
}

plank_status pk_rle_encode_u32_k(const uint32_t *v, size_t n, int bit_width,
                                 const pk_kernels *k, pk_buffer *out, plank_error *err) {
    if (!k) return pk_rle_encode_u32(v, n, bit_width, out, err);
    PK_RETURN_IF(bit_width < 0 || bit_width > 32, err, PLANK_ERR_INVALID_ARGUMENT,
                 "RLE/bit-packed bit width %d is not in 0..32", bit_width);
    PK_RETURN_IF(n > 0 && !v, err, PLANK_ERR_INVALID_ARGUMENT, "no values to encode");
    size_t at = out->size;
    plank_status st = n > 0 ? hybrid_u32_k(v, n, bit_width, k, out, err) : PLANK_OK;
    if (st != PLANK_OK) out->size = at;
    return st;
}

plank_status pk_rle_encode_i16(const int16_t *v, size_t n, int bit_width, pk_buffer *out,
                               plank_error *err) {
    return hybrid_run(hybrid_i16, v, n, bit_width, 16, false, out, err);
}

plank_status pk_rle_encode_levels_v1(const int16_t *v, size_t n, int bit_width, pk_buffer *out,
                                     plank_error *err) {
    return hybrid_run(hybrid_i16, v, n, bit_width, 16, true, out, err);
}

/* ---- Value checks ------------------------------------------------------------ */

plank_status pk_values_check(const pk_values *v, plank_error *err) {
    int32_t w = pk_physical_width(v->type, v->width);
    PK_RETURN_IF(w < 0, err, PLANK_ERR_INVALID_ARGUMENT, "values of invalid type %d (width %d)",
                 (int)v->type, (int)v->width);
    PK_RETURN_IF(w > 0 && v->width != w, err, PLANK_ERR_INVALID_ARGUMENT,
                 "%s values with a width of %d bytes", plank_physical_type_name(v->type),
                 (int)v->width);
    PK_RETURN_IF(v->n < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative value count %lld",
                 (long long)v->n);
    if (v->n == 0) return PLANK_OK;
    PK_RETURN_IF((uint64_t)v->n >= SIZE_MAX / 8 / (w ? (uint64_t)w : 1), err,
                 PLANK_ERR_INVALID_ARGUMENT, "%lld values are too many",
                 (long long)v->n);
    if (w > 0) {
        PK_RETURN_IF(!v->fixed, err, PLANK_ERR_INVALID_ARGUMENT, "values missing");
        return PLANK_OK;
    }
    const int64_t *off = v->offsets;
    PK_RETURN_IF(!off, err, PLANK_ERR_INVALID_ARGUMENT, "byte array offsets missing");
    PK_RETURN_IF(off[0] < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative first offset %lld",
                 (long long)off[0]);
    /* One branch-free pass (it runs on every page the writer encodes): the
     * scalar table's kernel, which the compiler vectorises for the baseline
     * x86-64, so no kernel table is needed here. The slow search for the
     * culprit only when it flags. */
    uint64_t bad = pk_offsets_bad_scalar(off, (size_t)v->n);
    for (int64_t i = 0; bad && i < v->n; i++) {
        int64_t len = (int64_t)((uint64_t)off[i + 1] - (uint64_t)off[i]);
        PK_RETURN_IF(off[i + 1] < off[i] || len > INT32_MAX, err, PLANK_ERR_INVALID_ARGUMENT,
                     "byte array value %lld has length %lld (offsets %lld..%lld)",
                     (long long)i, (long long)len, (long long)off[i], (long long)off[i + 1]);
    }
    PK_RETURN_IF(!v->data && off[v->n] > off[0], err, PLANK_ERR_INVALID_ARGUMENT,
                 "byte array data missing");
    return PLANK_OK;
}

/* ---- PLAIN --------------------------------------------------------------------- */

/* Eight boolean bytes (non-zero = true) to one LSB-first byte. */
PK_INLINE uint8_t bools8(const uint8_t *p) {
    const uint64_t low7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    uint64_t w = pk_load_u64(p);
    /* Top bit of each byte set iff the byte is non-zero (no carries between
     * bytes), moved to bit 0 of the byte ... */
    uint64_t t = ((((w & low7) + low7) | w) >> 7) & UINT64_C(0x0101010101010101);
    /* ... and byte k's bit gathered into bit 56 + k. */
    return (uint8_t)((t * UINT64_C(0x0102040810204080)) >> 56);
}

static size_t bool_bytes(size_t n) { return n / 8 + (n % 8 != 0); }

static plank_status plain_bool(const uint8_t *b, size_t n, pk_buffer *out, plank_error *err) {
    uint8_t *o;
    PK_FORWARD(room(out, bool_bytes(n), &o, err));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) *o++ = bools8(b + i);
    if (i < n) {
        uint8_t last = 0;
        for (size_t k = 0; i + k < n; k++) last |= (uint8_t)((b[i + k] != 0) << k);
        *o++ = last;
    }
    written(out, o);
    return PLANK_OK;
}

static plank_status plain_binary(const pk_values *v, pk_buffer *out, plank_error *err) {
    size_t n = (size_t)v->n;
    const int64_t *off = v->offsets;
    /* pk_values_check bounds n and the lengths, so this sum cannot wrap. */
    uint64_t total = 4 * (uint64_t)n + (uint64_t)(off[n] - off[0]);
    PK_RETURN_IF(total > SIZE_MAX / 2, err, PLANK_ERR_OUT_OF_MEMORY,
                 "PLAIN byte arrays of %llu bytes", (unsigned long long)total);
    uint8_t *o;
    /* 16 bytes past the total: the block copies below may store that far */
    PK_FORWARD(room(out, (size_t)total + 16, &o, err));
    size_t i = 0;
    if (v->padded && n > 1) {
        /* Padded values are copied in whole 16-byte blocks, which the
         * next value's start and its 16 readable bytes cover (free text
         * averages 30 bytes: a memcpy call per value was half the cost);
         * the last value, whose end has no such cover, is copied exactly. */
        for (; i < n - 1; i++) {
            const uint8_t *src = v->data + off[i];
            size_t len = (size_t)(off[i + 1] - off[i]);
            pk_store_u32(o, (uint32_t)len);
            for (size_t k = 0; k < len; k += 16) memcpy(o + 4 + k, src + k, 16);
            o += 4 + len;
        }
    }
    for (; i < n; i++) {
        size_t len = (size_t)(off[i + 1] - off[i]);
        pk_store_u32(o, (uint32_t)len);
        if (len) memcpy(o + 4, v->data + off[i], len);
        o += 4 + len;
    }
    memset(o, 0, 16); /* past the end, zeros as the packers leave (see the top) */
    written(out, o);
    return PLANK_OK;
}

static plank_status encode_plain(const pk_values *v, pk_buffer *out, plank_error *err) {
    if (v->n == 0) return PLANK_OK;
    if (v->type == PLANK_BOOLEAN) return plain_bool(v->fixed, (size_t)v->n, out, err);
    if (v->type == PLANK_BYTE_ARRAY) return plain_binary(v, out, err);
    return pk_buffer_append(out, v->fixed, (size_t)v->n * (size_t)v->width, err);
}

size_t pk_plain_size(const pk_values *v) {
    if (v->n <= 0) return 0;
    uint64_t n = (uint64_t)v->n, r;
    if (v->type == PLANK_BOOLEAN) return (size_t)(n / 8 + (n % 8 != 0));
    if (v->type == PLANK_BYTE_ARRAY) {
        int64_t bytes = v->offsets ? v->offsets[n] - v->offsets[0] : 0;
        if (pk_mul_overflow_u64(n, 4, &r) ||
            pk_add_overflow_u64(r, bytes > 0 ? (uint64_t)bytes : 0, &r) || r > SIZE_MAX)
            return SIZE_MAX;
        return (size_t)r;
    }
    if (v->width <= 0 || pk_mul_overflow_u64(n, (uint64_t)v->width, &r) || r > SIZE_MAX)
        return SIZE_MAX;
    return (size_t)r;
}

/* ---- DELTA_BINARY_PACKED -------------------------------------------------------- */

#define DELTA_BLOCK 128
#define DELTA_MINIS 4
#define DELTA_MINI 32

/* Sources of integers for the DELTA encoder: INT32/INT64 values as PLAIN
 * stores them, byte array lengths from offsets, or a uint32 array. */
enum { S_I32, S_I64, S_LENGTHS, S_U32 };

/* Value i as a uint64 bit pattern; 32-bit sources are sign-extended, so
 * that 64-bit differences of two of them equal their 32-bit wrapping
 * differences, sign-extended. */
PK_INLINE uint64_t src_get(const void *src, size_t i, int kind) {
    uint32_t x;
    switch (kind) {
    case S_I64: return pk_load_u64((const uint8_t *)src + 8 * i);
    case S_I32: x = pk_load_u32((const uint8_t *)src + 4 * i); break;
    case S_LENGTHS: {
        const int64_t *off = src;
        return (uint64_t)(off[i + 1] - off[i]); /* 0..INT32_MAX */
    }
    default: x = ((const uint32_t *)src)[i]; break;
    }
    return (uint64_t)(x ^ 0x80000000u) - UINT64_C(0x80000000);
}

/* Sign-extends the low 32 bits (the wrapping INT32 difference). */
PK_INLINE uint64_t sext32(uint64_t v) {
    return (uint64_t)((uint32_t)v ^ 0x80000000u) - UINT64_C(0x80000000);
}

/* One miniblock of 32 values at width bw, by the scalar pack64 (a loop stamped per
 * width); may store 8 zero bytes past its end (ENC_SLACK). */
static uint8_t *pack_mini(const uint64_t *d, int bw, uint8_t *o) {
    pk_pack64_scalar(d, DELTA_MINI, bw, o);
    return o + (size_t)bw * DELTA_MINI / 8;
}

/* One block of k (1..128) deltas following `prev`; returns the last value. */
PK_INLINE uint64_t delta_block(const void *src, size_t i, size_t k, uint64_t prev, int kind,
                               uint8_t **op) {
    const bool is64 = kind == S_I64;
    const uint64_t sign = UINT64_C(1) << 63;
    uint64_t d[DELTA_BLOCK];
    /* The minimum as a signed number: compared with the sign bit flipped. */
    uint64_t min_flipped = UINT64_MAX;
    for (size_t j = 0; j < k; j++) {
        uint64_t cur = src_get(src, i + j, kind);
        uint64_t delta = is64 ? cur - prev : sext32(cur - prev);
        prev = cur;
        d[j] = delta;
        if ((delta ^ sign) < min_flipped) min_flipped = delta ^ sign;
    }
    uint64_t min = min_flipped ^ sign;
    size_t minis = (k + DELTA_MINI - 1) / DELTA_MINI;
    for (size_t j = 0; j < k; j++) d[j] -= min;
    for (size_t j = k; j < minis * DELTA_MINI; j++) d[j] = 0;
    uint8_t *o = put_uleb(*op, zigzag(min));
    uint8_t *widths = o;
    o += DELTA_MINIS;
    for (size_t m = 0; m < DELTA_MINIS; m++) {
        uint64_t any = 0;
        for (size_t j = 0; m < minis && j < DELTA_MINI; j++) any |= d[m * DELTA_MINI + j];
        widths[m] = (uint8_t)width_of(any);
    }
    for (size_t m = 0; m < minis; m++) o = pack_mini(d + m * DELTA_MINI, widths[m], o);
    *op = o;
    return prev;
}

/* One block of k (1..128) INT32/INT64 values through the kernels: deltas,
 * minimum and miniblock ORs by delta_block32/64, miniblocks of up to 32 bits
 * packed by pack32, wider ones by pack64; the same bytes as delta_block. */
static uint64_t delta_block_k(const void *src, size_t i, size_t k, uint64_t prev, bool is64,
                              const pk_kernels *kn, uint8_t **op) {
    uint64_t d[DELTA_BLOCK], min, ors[DELTA_MINIS];
    prev = is64 ? kn->delta_block64((const uint8_t *)src + 8 * i, k, prev, d, &min, ors)
                : kn->delta_block32((const uint8_t *)src + 4 * i, k, prev, d, &min, ors);
    size_t minis = (k + DELTA_MINI - 1) / DELTA_MINI;
    uint8_t *o = put_uleb(*op, zigzag(min));
    uint8_t *widths = o;
    o += DELTA_MINIS;
    for (size_t m = 0; m < DELTA_MINIS; m++) widths[m] = (uint8_t)(m < minis ? width_of(ors[m]) : 0);
    for (size_t m = 0; m < minis; m++) {
        const uint64_t *dm = d + m * DELTA_MINI;
        int bw = widths[m];
        if (bw <= 32) {
            uint32_t n32[DELTA_MINI];
            for (size_t j = 0; j < DELTA_MINI; j++) n32[j] = (uint32_t)dm[j];
            kn->pack32(n32, DELTA_MINI, bw, o); /* may store 8 zero bytes past: ENC_SLACK */
            o += (size_t)bw * DELTA_MINI / 8;
        } else {
            kn->pack64(dm, DELTA_MINI, bw, o); /* may store 8 zero bytes past: ENC_SLACK */
            o += (size_t)bw * DELTA_MINI / 8;
        }
    }
    *op = o;
    return prev;
}

/* Header (block of 128 values in 4 miniblocks, count, first value) and the
 * blocks of n values. Unused miniblocks of the last block have width 0 and
 * no bytes; the last used one is padded to 32 values with zeros. With
 * kernels (INT32/INT64 sources only) the blocks go through delta_block_k. */
PK_INLINE plank_status delta_body(const void *src, size_t n, int kind, const pk_kernels *kn,
                                  pk_buffer *out, plank_error *err) {
    uint8_t *o;
    PK_FORWARD(room(out, 3 + 10 + 10, &o, err));
    *o++ = DELTA_BLOCK | 0x80; /* 128 as ULEB128: 0x80 0x01 */
    *o++ = DELTA_BLOCK >> 7;
    *o++ = DELTA_MINIS;
    o = put_uleb(o, n);
    uint64_t prev = n ? src_get(src, 0, kind) : 0;
    o = put_uleb(o, zigzag(prev));
    written(out, o);
    for (size_t i = 1; i < n; i += DELTA_BLOCK) {
        size_t k = n - i < DELTA_BLOCK ? n - i : DELTA_BLOCK;
        PK_FORWARD(room(out, 10 + DELTA_MINIS + DELTA_BLOCK * 8, &o, err));
        if (kn && (kind == S_I32 || kind == S_I64))
            prev = delta_block_k(src, i, k, prev, kind == S_I64, kn, &o);
        else
            prev = delta_block(src, i, k, prev, kind, &o);
        written(out, o);
    }
    return PLANK_OK;
}

static plank_status delta_encode(const void *src, size_t n, int kind, const pk_kernels *kn,
                                 pk_buffer *out, plank_error *err) {
    switch (kind) {
    case S_I32: return delta_body(src, n, S_I32, kn, out, err);
    case S_I64: return delta_body(src, n, S_I64, kn, out, err);
    case S_LENGTHS: return delta_body(src, n, S_LENGTHS, NULL, out, err);
    default: return delta_body(src, n, S_U32, NULL, out, err);
    }
}

/* Delta range of n INT32 (is64 false, wrapping 32-bit deltas) or INT64
 * values: max - min of the deltas as signed numbers, as the unsigned width
 * the packed (delta - min_delta) values need. */
PK_INLINE uint64_t delta_range(const uint8_t *p, size_t n, bool is64) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (is64) {
        for (size_t i = 1; i < n; i++) {
            int64_t d = (int64_t)(pk_load_u64(p + 8 * i) - pk_load_u64(p + 8 * i - 8));
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
    } else {
        for (size_t i = 1; i < n; i++) {
            int64_t d = (int32_t)(pk_load_u32(p + 4 * i) - pk_load_u32(p + 4 * i - 4));
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
    }
    return n > 1 ? (uint64_t)hi - (uint64_t)lo : 0;
}

size_t pk_delta_size_bound(const pk_values *v) {
    if (v->type != PLANK_INT32 && v->type != PLANK_INT64) return 0;
    size_t n = v->n > 0 ? (size_t)v->n : 0;
    int w = width_of(delta_range(v->fixed, n, v->type == PLANK_INT64));
    size_t deltas = n ? n - 1 : 0, blocks = (deltas + DELTA_BLOCK - 1) / DELTA_BLOCK;
    size_t minis = (deltas + DELTA_MINI - 1) / DELTA_MINI;
    /* header: block size, miniblock count, value count, first value */
    return 3 + 10 + 10 + blocks * (10 + DELTA_MINIS) + minis * DELTA_MINI / 8 * (size_t)w;
}

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ---------------------------------- */

/* Bytes of value i of a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY pk_values (data
 * may be NULL when every value is empty). */
PK_INLINE const uint8_t *value_bytes(const pk_values *v, size_t i, size_t *len) {
    if (v->type == PLANK_BYTE_ARRAY) {
        *len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return *len ? v->data + v->offsets[i] : (const uint8_t *)"";
    }
    *len = (size_t)v->width;
    return v->fixed + i * (size_t)v->width;
}

static plank_status encode_delta_length(const pk_values *v, pk_buffer *out, plank_error *err) {
    size_t n = (size_t)v->n;
    PK_FORWARD(delta_encode(v->offsets, n, S_LENGTHS, NULL, out, err));
    size_t bytes = n ? (size_t)(v->offsets[n] - v->offsets[0]) : 0;
    return bytes ? pk_buffer_append(out, v->data + v->offsets[0], bytes, err) : PLANK_OK;
}

static size_t common_prefix(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = pk_load_u64(a + i) ^ pk_load_u64(b + i);
        if (x) return i + (size_t)__builtin_ctzll(x) / 8; /* little-endian loads */
    }
    while (i < n && a[i] == b[i]) i++;
    return i;
}

/* Prefix lengths into lens, then (after they are encoded) suffix lengths. */
static plank_status delta_byte_array_body(const pk_values *v, uint32_t *lens, pk_buffer *out,
                                          plank_error *err) {
    size_t n = (size_t)v->n, prev_len = 0, len;
    const uint8_t *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = value_bytes(v, i, &len);
        lens[i] = (uint32_t)(prev ? common_prefix(prev, p, len < prev_len ? len : prev_len) : 0);
        prev = p;
        prev_len = len;
    }
    PK_FORWARD(delta_encode(lens, n, S_U32, NULL, out, err));
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        value_bytes(v, i, &len);
        lens[i] = (uint32_t)(len - lens[i]);
        total += lens[i]; /* at most the bytes of the values, which exist */
    }
    PK_FORWARD(delta_encode(lens, n, S_U32, NULL, out, err));
    uint8_t *o;
    PK_FORWARD(room(out, total, &o, err));
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = value_bytes(v, i, &len);
        size_t pre = len - lens[i];
        if (lens[i]) memcpy(o, p + pre, lens[i]);
        o += lens[i];
    }
    written(out, o);
    return PLANK_OK;
}

static plank_status encode_delta_byte_array(const pk_values *v, pk_buffer *out,
                                            plank_error *err) {
    size_t n = (size_t)v->n; /* pk_values_check: n * 8 fits in size_t */
    uint32_t *lens = n ? pk_malloc(out->alloc, n * sizeof *lens) : NULL;
    PK_RETURN_IF(n && !lens, err, PLANK_ERR_OUT_OF_MEMORY,
                 "out of memory for the lengths of %zu values", n);
    plank_status st = delta_byte_array_body(v, lens, out, err);
    pk_free(out->alloc, lens, n * sizeof *lens);
    return st;
}

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------------------ */

static plank_status encode_bss(const pk_values *v, const pk_kernels *kn, pk_buffer *out,
                               plank_error *err) {
    size_t n = (size_t)v->n, w = (size_t)v->width;
    if (n == 0) return PLANK_OK;
    uint8_t *o;
    PK_FORWARD(room(out, n * w, &o, err)); /* pk_values_check: n * w fits */
    if (kn) kn->bss_encode(v->fixed, w, n, n, o);
    else pk_bss_encode(v->fixed, w, n, n, o);
    written(out, o + n * w);
    return PLANK_OK;
}

/* ---- Values ------------------------------------------------------------------------ */

bool pk_encoding_applies(plank_encoding enc, plank_physical_type type) {
    switch (enc) {
    case PLANK_ENC_PLAIN: return pk_physical_width(type, 1) >= 0;
    case PLANK_ENC_RLE: return type == PLANK_BOOLEAN;
    case PLANK_ENC_DELTA_BINARY_PACKED: return type == PLANK_INT32 || type == PLANK_INT64;
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY: return type == PLANK_BYTE_ARRAY;
    case PLANK_ENC_DELTA_BYTE_ARRAY:
        return type == PLANK_BYTE_ARRAY || type == PLANK_FIXED_LEN_BYTE_ARRAY;
    case PLANK_ENC_BYTE_STREAM_SPLIT:
        return type == PLANK_INT32 || type == PLANK_INT64 || type == PLANK_FLOAT ||
               type == PLANK_DOUBLE || type == PLANK_FIXED_LEN_BYTE_ARRAY;
    case PLANK_ENC_PLAIN_DICTIONARY:
    case PLANK_ENC_RLE_DICTIONARY:
    case PLANK_ENC_BIT_PACKED: return false;
    }
    return false;
}

plank_status pk_encode_values(plank_encoding enc, const pk_values *v, pk_buffer *out,
                              const struct pk_kernels *kernels, plank_error *err) {
    PK_FORWARD(pk_values_check(v, err));
    PK_RETURN_IF(!pk_encoding_applies(enc, v->type), err, PLANK_ERR_INVALID_ARGUMENT,
                 "%s encoding does not apply to %s values", plank_encoding_name(enc),
                 plank_physical_type_name(v->type));
    size_t at = out->size;
    plank_status st;
    switch (enc) {
    case PLANK_ENC_RLE:
        st = hybrid_run(hybrid_bool8, v->fixed, (size_t)v->n, 1, 1, true, out, err);
        break;
    case PLANK_ENC_DELTA_BINARY_PACKED:
        st = delta_encode(v->fixed, (size_t)v->n, v->type == PLANK_INT64 ? S_I64 : S_I32,
                          kernels, out, err);
        break;
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY: st = encode_delta_length(v, out, err); break;
    case PLANK_ENC_DELTA_BYTE_ARRAY: st = encode_delta_byte_array(v, out, err); break;
    case PLANK_ENC_BYTE_STREAM_SPLIT: st = encode_bss(v, kernels, out, err); break;
    default: st = encode_plain(v, out, err); break;
    }
    if (st != PLANK_OK) out->size = at;
    return st;
}
