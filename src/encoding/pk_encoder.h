/*
 * pk_encoder.h: the write side of pk_encoding.h: encoders for every Parquet
 * encoding of values and levels, and the dictionary builder.
 *
 * Every encoder appends to a pk_buffer (never overwrites what is there) and
 * is the exact inverse of the matching decoder of pk_encoding.h: the tests
 * round-trip each one through it and compare a few outputs with byte strings
 * worked out by hand from the format's Encodings.md.
 *
 * Depends on: common, simd (kernel table, optional).
 */
#ifndef PK_ENCODER_H
#define PK_ENCODER_H

#include "../common/pk_common.h"

struct pk_kernels;

/* Dense (non-null) values of one page, as the writer stages them.
 *  - BOOLEAN: fixed holds one byte (0 or 1) per value.
 *  - INT32/FLOAT (4), INT64/DOUBLE (8), INT96 (12), FIXED_LEN_BYTE_ARRAY
 *    (width): fixed holds n * width bytes, little-endian as PLAIN stores them.
 *  - BYTE_ARRAY: offsets[0..n] (offsets[0] may be > 0) into data. */
typedef struct pk_values {
    plank_physical_type type;
    int32_t width;           /* bytes per value of `fixed` (BOOLEAN 1) */
    int64_t n;
    const uint8_t *fixed;
    const int64_t *offsets;
    const uint8_t *data;
    bool padded;             /* BYTE_ARRAY: at least 16 readable bytes follow every value's
                                start in `data` (a pk_buffer's padding), so short values
                                can be read in whole words */
} pk_values;

/* Checks v before anything is encoded: n >= 0, width matches the type,
 * the arrays are present when n > 0 and n * width bytes are addressable,
 * BYTE_ARRAY offsets start >= 0, never decrease and no value is longer than
 * INT32_MAX bytes (a Parquet length). PLANK_ERR_INVALID_ARGUMENT says which.
 * Every encoder and the dictionary builder call it. */
plank_status pk_values_check(const pk_values *v, plank_error *err);

/* ---- RLE / bit-packed hybrid --------------------------------------------- */

/* Appends the hybrid encoding (runs only: no length prefix, no bit-width
 * byte) of v[0..n), bit_width 0..32 bits each. Repeats of at least 8 equal
 * values become RLE runs; the rest bit-packed runs of multiples of 8 values
 * (the last one zero-padded). Precisely: values are looked at in groups of 8
 * counted from the start or from the end of the last RLE run, and a run of
 * equal values that covers a whole group becomes an RLE run from that group
 * on (as parquet-mr and Arrow do); a final tail of 1..7 equal values that
 * follows an RLE run (or is the whole input) is an RLE run too. Bit-packed runs hold at most 63 groups
 * (one header byte). A value that does not fit in bit_width bits (for i16,
 * bit_width 0..16, also any negative value) is PLANK_ERR_INVALID_ARGUMENT.
 * On any error `out` is left as it was. */
plank_status pk_rle_encode_u32(const uint32_t *v, size_t n, int bit_width, pk_buffer *out,
                               plank_error *err);
plank_status pk_rle_encode_i16(const int16_t *v, size_t n, int bit_width, pk_buffer *out,
                               plank_error *err);
/* pk_rle_encode_u32 through the encode kernels of k (pack32, rle_scan32): the
 * same bytes; k NULL is pk_rle_encode_u32. */
plank_status pk_rle_encode_u32_k(const uint32_t *v, size_t n, int bit_width,
                                 const struct pk_kernels *k, pk_buffer *out, plank_error *err);
/* Data page v1 levels: a 4-byte little-endian length, then the runs. */
plank_status pk_rle_encode_levels_v1(const int16_t *v, size_t n, int bit_width, pk_buffer *out,
                                     plank_error *err);

/* ---- Values ----------------------------------------------------------------- */

/* True when `enc` can encode values of `type` (PLAIN: all; RLE: BOOLEAN;
 * DELTA_BINARY_PACKED: INT32, INT64; DELTA_LENGTH_BYTE_ARRAY: BYTE_ARRAY;
 * DELTA_BYTE_ARRAY: BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY; BYTE_STREAM_SPLIT:
 * INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY). Dictionary encodings
 * are not value encodings here (see the builder below). */
bool pk_encoding_applies(plank_encoding enc, plank_physical_type type);

/* Appends the values section of a data page: v encoded with `enc`.
 * RLE (booleans) includes its 4-byte length prefix, as data pages store it.
 * DELTA_BINARY_PACKED uses blocks of 128 values in 4 miniblocks.
 * kernels may be NULL (scalar code); DELTA_BINARY_PACKED of INT32/INT64
 * values goes through its delta_block and pack32 kernels, BYTE_STREAM_SPLIT
 * through bss_encode (the same bytes). */
plank_status pk_encode_values(plank_encoding enc, const pk_values *v, pk_buffer *out,
                              const struct pk_kernels *kernels, plank_error *err);

/* An upper bound of the bytes pk_encode_values(PLAIN) would append (the
 * writer's page-size accounting uses the PLAIN size of what it staged). */
size_t pk_plain_size(const pk_values *v);

/* An upper bound of the bytes pk_encode_values(DELTA_BINARY_PACKED) would
 * append for INT32/INT64 values (0 for other types): every miniblock packed
 * at the width of the page's whole delta range. One pass without output, so
 * the writer can weigh a dictionary against DELTA page by page. */
size_t pk_delta_size_bound(const pk_values *v);

/* ---- Dictionary builder --------------------------------------------------- */

/* Assigns indices 0, 1, 2, ... to distinct values in first-seen order (an
 * open-addressing hash table over the values' bytes; float values compare by
 * bit pattern, so NaNs with one payload are one entry and -0 != +0).
 * INT32/INT64 values start in a dense table indexed by value - base while
 * every value seen lies within a range of PK_DICT_DENSE_SPAN (dates, small
 * codes, quantities): one load per value, no hashing; the first value
 * outside that range moves the entries to the hash table for good. */
#define PK_DICT_DENSE_SPAN ((uint64_t)1 << 16)
typedef struct pk_dict_builder {
    plank_physical_type type;
    int32_t width;            /* fixed width (BOOLEAN not supported) */
    const plank_allocator *alloc;
    const struct pk_kernels *kernels; /* the hash kernels' level (scalar after init; the
                                         column writer gives it the writer's) */
    int64_t count;            /* distinct values so far */
    size_t plain_bytes;       /* size of the PLAIN dictionary page body so far */
    /* implementation state */
    /* hash table: two words per slot, [0] the value itself (4- and 8-byte
     * types) or its 64-bit hash (others), [1] index + 1 (0 = empty) */
    uint64_t *slots;
    size_t slot_mask;
    /* dense table: entry index + 1 of value dense_base + i (0 = absent) */
    uint32_t *dense;
    int64_t dense_base;
    uint64_t dense_span;      /* entries of `dense` */
    bool hashed;              /* dense mode given up (or not applicable) */
    /* after a put that went through the dense table: the smallest and
     * largest value of that put (signed), so a caller needing them (page
     * statistics) does not scan again */
    bool put_range_known;
    int64_t put_lo, put_hi;
    pk_buffer values;         /* fixed: count * width; BYTE_ARRAY: the bytes */
    pk_buffer offsets;        /* BYTE_ARRAY: count + 1 int64 */
    pk_buffer words;          /* BYTE_ARRAY: per entry, its bytes as two zero-padded
                                 words when it has at most 16 (else zeros) */
} pk_dict_builder;

plank_status pk_dict_builder_init(pk_dict_builder *d, plank_physical_type type, int32_t width,
                                  const plank_allocator *alloc, plank_error *err);
void pk_dict_builder_release(pk_dict_builder *d);
/* Forgets every entry (keeps memory); for the next column chunk. */
void pk_dict_builder_clear(pk_dict_builder *d);
/* Looks up or inserts v's values; indices[i] receives the index of value i. */
plank_status pk_dict_builder_put(pk_dict_builder *d, const pk_values *v, uint32_t *indices,
                                 plank_error *err);
/* The entries, in index order, as pk_values (valid until the next put). */
void pk_dict_builder_entries(const pk_dict_builder *d, pk_values *out);
/* Appends the PLAIN dictionary page body (all entries). */
plank_status pk_dict_builder_encode(const pk_dict_builder *d, pk_buffer *out, plank_error *err);

/* Appends an RLE_DICTIONARY / PLAIN_DICTIONARY data page values section:
 * one byte bit width, pk_bit_width_for(dict_count - 1) (0 for a dictionary
 * of one entry, as parquet-mr and Arrow write it), then the hybrid runs of
 * idx[0..n), through the encode kernels of k (NULL: scalar code). */
plank_status pk_encode_dict_indices(const uint32_t *idx, size_t n, int64_t dict_count,
                                    const struct pk_kernels *k, pk_buffer *out,
                                    plank_error *err);

#endif /* PK_ENCODER_H */
