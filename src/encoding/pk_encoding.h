/*
 * pk_encoding.h: decoders for every Parquet encoding of flat values and
 * levels. The code here is scalar and is the reference the SIMD kernels are
 * tested against; the hot loops (bit unpacking, DELTA miniblocks,
 * dictionary gathers, BYTE_STREAM_SPLIT, boolean bitmaps, level range
 * checks) call the kernels of simd through the table a decoder is given
 * (struct pk_kernels; NULL: the scalar kernels), never an instruction set
 * directly.
 *
 * Hostile-input contract (all functions): never read outside the input range
 * given at init, never write more than the caller asked for; any inconsistency
 * (bit width > 32/64, truncated run, dictionary index out of range, declared
 * lengths past the end of the page, more values requested than the page has)
 * returns PLANK_ERR_CORRUPT with a message saying which.
 *
 * Depends on: common, and simd through its kernel table (pk_kernels.h);
 * pk_bloom.c on libxxhash when built with it.
 */
#ifndef PK_ENCODING_H
#define PK_ENCODING_H

#include "../common/pk_common.h"

/* The kernel table of src/simd/pk_kernels.h. Decoders hold a pointer to it;
 * NULL means the scalar reference code of this module. */
struct pk_kernels;

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ----- */

typedef struct pk_rle_decoder {
    const uint8_t *start;   /* for byte offsets in error messages */
    const uint8_t *p;
    const uint8_t *end;
    int bit_width;          /* 0..32 */
    /* current run */
    int64_t rle_left;       /* values left in an RLE run */
    uint32_t rle_value;
    int64_t packed_left;    /* values left in a bit-packed run (only those whose
                               bits are present, for truncated final runs) */
    const uint8_t *packed;  /* start of the bit-packed group data */
    int64_t packed_pos;     /* value index within the packed run */
    const struct pk_kernels *kernels; /* fast paths; NULL (as left by pk_rle_init):
                                         the scalar reference loop */
} pk_rle_decoder;

/* The run data is buf[0..len) (no length prefix: the caller strips the
 * 4-byte length of v1 levels and the bit-width byte of dictionary indices).
 * bit_width must be 0..32 (else PLANK_ERR_CORRUPT). */
plank_status pk_rle_init(pk_rle_decoder *d, const uint8_t *buf, size_t len, int bit_width,
                         plank_error *err);
/* Decodes exactly n values (error if the runs end first). */
plank_status pk_rle_get_u32(pk_rle_decoder *d, uint32_t *out, int64_t n, plank_error *err);
plank_status pk_rle_get_i16(pk_rle_decoder *d, int16_t *out, int64_t n, plank_error *err);
plank_status pk_rle_skip(pk_rle_decoder *d, int64_t n, plank_error *err);
/* pk_rle_get_u32 that also appends to runs, as pairs of int64 (first, count),
 * every RLE run the request covers that keeps at least min_len (>= 8) values
 * once trimmed to whole bytes of a bitmap whose bit i is value i - base of
 * the request (first and first + count multiples of 8 there; first relative
 * to that bitmap): a consumer decides such a run once instead of per value
 * (the scan's filters on dictionary codes). */
plank_status pk_rle_get_u32_runs(pk_rle_decoder *d, uint32_t *out, int64_t n, int64_t base,
                                 int64_t min_len, pk_buffer *runs, plank_error *err);
/* Bit width 1 only (booleans): decodes n values into bits [bit, bit + n) of
 * out, keeping its other bits. Uses d->kernels (the scalar table if NULL). */
plank_status pk_rle_get_bits(pk_rle_decoder *d, uint8_t *out, int64_t bit, int64_t n,
                             plank_error *err);

/* Deprecated BIT_PACKED levels: MSB-first packing of n values of bit_width
 * (0..16) bits from buf[0..len). Error if len is too short. */
plank_status pk_bitpacked_legacy_get_i16(const uint8_t *buf, size_t len, int bit_width,
                                         int16_t *out, int64_t n, plank_error *err);

/* Number of bits needed for values 0..max_value (0 for 0). */
int pk_bit_width_for(uint64_t max_value);

/* ---- DELTA_BINARY_PACKED --------------------------------------------------- */

/* Blocks of at most this many values (the common 128, and 256) are staged
 * whole when a batched read ends inside one (pk_delta_decoder.stage). */
#define PK_DELTA_STAGE_MAX 256

typedef struct pk_delta_decoder {
    const uint8_t *start;       /* for byte offsets in error messages */
    const uint8_t *p;
    const uint8_t *end;
    bool is64;                  /* INT64 (else INT32: arithmetic wraps at 32 bits) */
    uint64_t block_size;        /* values per block, multiple of 128 */
    uint64_t miniblocks;        /* per block; block_size/miniblocks multiple of 32 */
    uint64_t values_per_mini;
    int64_t total_values;       /* from the header */
    int64_t values_read;        /* handed out so far, including the first */
    uint64_t last;              /* last value (wrapping arithmetic) */
    uint64_t min_delta;
    const uint8_t *widths;      /* bit widths of the current block's miniblocks */
    uint64_t mini_index;        /* current miniblock in block */
    uint64_t mini_pos;          /* values consumed in current miniblock */
    const uint8_t *mini_data;   /* start of current miniblock's packed data */
    bool in_block;
    /* A whole block decoded ahead by a batched read that ended inside it
     * (pk_delta_fast.h), as 4- or 8-byte values: stage_n of them, handed
     * out up to stage_pos; the stream's state is past the block. Last, as
     * pk_delta_init clears only what comes before it. */
    uint32_t stage_n, stage_pos;
    uint8_t stage[PK_DELTA_STAGE_MAX * 8];
} pk_delta_decoder;

/* A filter's interval (pk_delta_read_bounded, pk_decoder_get_fixed_bounded):
 * values outside [lo, hi] (inclusive, in the column's signed type) are not
 * wanted. */
typedef struct pk_delta_bound {
    int64_t lo, hi;
    int64_t skipped; /* values passed over, added to by each read */
    int64_t runs;    /* runs passed over, added to by each read */
    int64_t misses, idle; /* checks in a row that found none; runs left unchecked */
} pk_delta_bound;

plank_status pk_delta_init(pk_delta_decoder *d, const uint8_t *buf, size_t len, bool is64,
                           plank_error *err);
/* Decodes n values as uint64 bit patterns (for INT32, the low 32 bits are the
 * value; the upper bits are the sign extension). Error if fewer remain. */
plank_status pk_delta_get(pk_delta_decoder *d, uint64_t *out, int64_t n, plank_error *err);
plank_status pk_delta_get_i32(pk_delta_decoder *d, int32_t *out, int64_t n, plank_error *err);
plank_status pk_delta_get_i64(pk_delta_decoder *d, int64_t *out, int64_t n, plank_error *err);
/* Decodes and discards n values. */
plank_status pk_delta_skip(pk_delta_decoder *d, int64_t n, plank_error *err);
/* Values left in the stream. */
int64_t pk_delta_remaining(const pk_delta_decoder *d);
/* Pointer just past the last byte of the stream (DELTA_LENGTH_BYTE_ARRAY data
 * starts there). Values not decoded yet are decoded and discarded first. */
plank_status pk_delta_end(pk_delta_decoder *d, const uint8_t **end, plank_error *err);

/* ---- Dictionary ---------------------------------------------------------------- */

/* A decoded dictionary page. Fixed-width types: `values` holds count*width
 * bytes (BOOLEAN: one byte per value). BYTE_ARRAY: offsets (count+1) into data. */
typedef struct pk_dict {
    plank_physical_type type;
    int32_t width;
    int64_t count;
    const uint8_t *values;
    const int64_t *offsets;
    const uint8_t *data;
    pk_buffer storage;     /* owns values/offsets/data */
    pk_buffer storage2;
    /* BYTE_ARRAY dictionaries of at most PK_DICT_SHORT_COUNT entries, none
     * longer than 32 bytes (flags, modes, codes, names): entry i zero-padded
     * in the short_width (16 or 32) bytes at short_slots + short_width * i,
     * its length in short_lens[i], so that a value is expanded by one move
     * of short_width bytes from a table in L1 or L2. NULL otherwise. Owned
     * by storage3. */
    const uint8_t *short_slots;
    const uint8_t *short_lens;
    int32_t short_width;
    pk_buffer storage3;
    /* BYTE_ARRAY: the narrowest of 16, 32 and 64 bytes that holds every entry
     * (0: some entry is longer), so that an entry is copied out as one move
     * of that width whatever its length (data and outputs have
     * PK_BUFFER_PADDING, 64, bytes after them). */
    int32_t move;
} pk_dict;

#define PK_DICT_SHORT_COUNT 1024

/* Decodes a PLAIN dictionary page of `count` values (checked against len
 * before anything is allocated). On failure everything is freed already;
 * pk_dict_release is harmless either way. */
plank_status pk_dict_decode(pk_dict *dict, plank_physical_type type, int32_t type_length,
                            const uint8_t *buf, size_t len, int64_t count,
                            const plank_allocator *alloc, plank_error *err);
void pk_dict_release(pk_dict *dict);

/* ---- Value decoder for one data page ------------------------------------------- */

typedef struct pk_decoder {
    plank_encoding encoding;
    plank_physical_type type;
    int32_t width;             /* bytes per value in dense output (BOOLEAN: 1) */
    const uint8_t *p;          /* byte-array cursor (PLAIN, DELTA_* bytes section);
                                  fixed-width PLAIN and BYTE_STREAM_SPLIT index by pos */
    const uint8_t *start;
    const uint8_t *end;
    int64_t num_values;        /* values in the page's value section */
    int64_t pos;               /* values consumed */
    const pk_dict *dict;
    const plank_allocator *alloc;
    pk_rle_decoder rle;        /* dictionary indices, RLE booleans */
    pk_delta_decoder delta;    /* DELTA_BINARY_PACKED values */
    /* DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY: lengths decoded at init */
    uint32_t *lengths;         /* suffix lengths (or lengths), each below 2^31 */
    uint32_t *prefixes;        /* prefix lengths (DELTA_BYTE_ARRAY), each below 2^31 */
    uint32_t *suffix_offsets;  /* DELTA_BYTE_ARRAY: value i's suffix at bytes +
                                  suffix_offsets[i]; num_values + 1 entries */
    uint32_t longest;          /* the longest value's length (DELTA_BYTE_ARRAY; at most 16:
                                  built in one register, dba_fast) */
    uint8_t plain_move;        /* PLAIN byte arrays: bytes each value is copied by, one
                                  move (16, 32 or 64; 0 before the first read) */
    const uint8_t *bytes;      /* the concatenated bytes section */
    pk_buffer last;            /* previous value (DELTA_BYTE_ARRAY) */
    const struct pk_kernels *kernels; /* fast paths; NULL (as left by pk_decoder_init):
                                         the scalar reference code */
    struct pk_decoder_arrays *keep; /* where lengths / prefixes live (NULL: allocated) */
} pk_decoder;

/* What a caller keeps across pages (pk_decoder_init_keep): the length arrays
 * of DELTA byte-array pages, so that a page's arrays reuse the previous
 * page's memory, still in the core's cache, instead of a fresh allocation
 * written for the first time on every page; and the width PLAIN byte arrays
 * were last moved by (pk_decoder.plain_move), so a page's first read starts
 * from what the column's values need. */
typedef struct pk_decoder_arrays {
    pk_buffer lengths, prefixes, suffix_offsets;
    uint8_t plain_move;
} pk_decoder_arrays;

/* Prepares decoding of `num_values` values (the non-null values of the page)
 * from buf[0..len). type_length is the FIXED_LEN_BYTE_ARRAY width (ignored
 * otherwise). dict must be non-NULL for PLAIN_DICTIONARY/RLE_DICTIONARY
 * (else PLANK_ERR_CORRUPT "dictionary page missing"). Unknown encodings or
 * encodings that do not apply to the type give PLANK_ERR_UNSUPPORTED or
 * PLANK_ERR_CORRUPT. DELTA headers must hold exactly num_values values.
 * On failure everything is freed already; pk_decoder_release is harmless
 * either way. */
plank_status pk_decoder_init(pk_decoder *d, plank_encoding encoding, plank_physical_type type,
                             int32_t type_length, const uint8_t *buf, size_t len,
                             int64_t num_values, const pk_dict *dict,
                             const plank_allocator *alloc, plank_error *err);
/* Selects the kernels (NULL: scalar reference) of an initialised decoder;
 * call after pk_decoder_init. The column reader passes the reader's table. */
PK_INLINE void pk_decoder_use_kernels(pk_decoder *d, const struct pk_kernels *k) {
    d->kernels = k;
    d->rle.kernels = k;
}
/* pk_decoder_init with the kernels selected from the start, so that what
 * init decodes (the DELTA lengths of byte-array pages) uses them too. */
plank_status pk_decoder_init_k(pk_decoder *d, plank_encoding encoding, plank_physical_type type,
                               int32_t type_length, const uint8_t *buf, size_t len,
                               int64_t num_values, const pk_dict *dict,
                               const struct pk_kernels *kernels, const plank_allocator *alloc,
                               plank_error *err);
/* pk_decoder_init_k with the length arrays in keep's buffers (which must
 * outlive the decoder; pk_decoder_release leaves them to the caller). */
plank_status pk_decoder_init_keep(pk_decoder *d, plank_encoding encoding,
                                  plank_physical_type type, int32_t type_length,
                                  const uint8_t *buf, size_t len, int64_t num_values,
                                  const pk_dict *dict, const struct pk_kernels *kernels,
                                  const plank_allocator *alloc, pk_decoder_arrays *keep,
                                  plank_error *err);
void pk_decoder_release(pk_decoder *d);

/* The kept ones (bit i of keep set) of n byte values, compacted. Value i
 * spans [start(i), ends[i]), where start(0) = first and start(i) = ends[i-1],
 * the ends `ow` bytes each (4 or 8: Arrow's offsets from offset 1, or int64
 * ends). The bytes are at data itself (src NULL: in place) or at src (value
 * i at src + start(i) - first, src_end bounding them: a page); the kept ones
 * are written to data from byte first, their ends to ends[0..kept). data
 * needs 32 writable bytes past the kept values (a buffer's padding). Returns
 * the kept count. */
int64_t pk_compact_binary(uint8_t *data, int64_t first, uint8_t *ends, size_t ow, int64_t n,
                          const uint8_t *keep, const uint8_t *src, const uint8_t *src_end);

/* Fixed-width types (BOOLEAN as one 0/1 byte per value, INT32, INT64, INT96,
 * FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY): writes n values densely to out
 * (n * d->width bytes). */
plank_status pk_decoder_get_fixed(pk_decoder *d, int64_t n, uint8_t *out, plank_error *err);
/* pk_decoder_get_fixed for a caller that needs only some of the n values:
 * those whose bit (bit + i) of live is set. Dictionary pages of 4- and
 * 8-byte values where fewer than one in ten are live gather only those (the
 * others come out zero, and an index is checked only where it is used);
 * other pages decode all n. The decoder moves past all n either way. */
plank_status pk_decoder_get_fixed_live(pk_decoder *d, int64_t n, uint8_t *out,
                                       const uint8_t *live, int64_t bit, plank_error *err);
/* pk_decoder_get_fixed for a caller that drops every value outside
 * [b->lo, b->hi] (b NULL: none) and, with live, needs only the values whose
 * bit (bit + i) of live is set: DELTA_BINARY_PACKED pages (with kernels)
 * pass over the runs that cannot hold such a value, as pk_delta_read_bounded
 * does (their slots hold some other value outside the interval;
 * b->skipped counts them), and the whole blocks without a live value, as
 * pk_delta_read_live does (their slots 0); other pages decode all n. */
plank_status pk_decoder_get_fixed_bounded(pk_decoder *d, int64_t n, uint8_t *out,
                                          pk_delta_bound *b, const uint8_t *live, int64_t bit,
                                          plank_error *err);
/* BOOLEAN: decodes n values into bits [bit, bit + n) of out (the Arrow
 * layout), keeping its other bits: PLAIN and RLE pages without a per-value
 * loop (copy_bits kernel, RLE runs as fills). */
plank_status pk_decoder_get_bits(pk_decoder *d, int64_t n, uint8_t *out, int64_t bit,
                                 plank_error *err);
/* BYTE_ARRAY: appends the bytes of n values to data and writes to ends[i]
 * the offset in data just past value i. */
plank_status pk_decoder_get_binary(pk_decoder *d, int64_t n, pk_buffer *data, int64_t *ends,
                                   plank_error *err);
/* The same for the next n values, of which only those whose bit i of keep
 * (from bit 0) is set are appended, *kept of them, their ends in
 * ends[0 .. *kept). PLAIN, dictionary and DELTA_LENGTH pages copy only the
 * kept bytes; DELTA_BYTE_ARRAY (each value's prefix is the value before it)
 * builds only the kept values where few are kept, else all n and compacts,
 * as the rest do. */
plank_status pk_decoder_get_binary_keep(pk_decoder *d, int64_t n, const uint8_t *keep,
                                        pk_buffer *data, int64_t *ends, int64_t *kept,
                                        plank_error *err);
/* pk_decoder_get_binary for a caller that needs only some of the n values:
 * those whose bit (bit + i) of live is set (the bitmap readable 8 bytes
 * past them). DELTA_BYTE_ARRAY pages (with kernels) where few are set build
 * only those, each from its suffix and the suffixes before it that its
 * prefix reaches, and give the others as empty values; other pages decode
 * all n. ends gets all n either way. */
plank_status pk_decoder_get_binary_live(pk_decoder *d, int64_t n, const uint8_t *live,
                                        int64_t bit, pk_buffer *data, int64_t *ends,
                                        plank_error *err);
plank_status pk_decoder_skip(pk_decoder *d, int64_t n, plank_error *err);
/* PLAIN fixed-width pages (not BOOLEAN) only: the next n values where they
 * are, n * width bytes at *out inside the page's buffer, consumed as by
 * get_fixed (zero copy). Other encodings: PLANK_ERR_INVALID_ARGUMENT. */
plank_status pk_decoder_view_fixed(pk_decoder *d, int64_t n, const uint8_t **out,
                                   plank_error *err);

#endif /* PK_ENCODING_H */
