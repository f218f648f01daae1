/*
 * pk_codec.h: page compression and decompression through Debian's
 * libraries (zstd, lz4, libdeflate, brotli) and plank's own SNAPPY codec
 * (pk_snappy.c, both ways, in every build; libsnappy is only the tests'
 * reference for it).
 * Each library is optional at build time (PLANK_HAVE_ZSTD, PLANK_HAVE_LZ4,
 * PLANK_HAVE_LIBDEFLATE, PLANK_HAVE_BROTLI); a page in a codec that is not
 * built gives PLANK_ERR_UNSUPPORTED naming the codec.
 *
 * Hostile-input contract: never writes outside dst[0..dst_len) nor reads
 * outside src[0..src_len); the output must be exactly dst_len bytes (the
 * page header's uncompressed size), anything else is PLANK_ERR_CORRUPT.
 *
 * Depends on: common.
 */
#ifndef PK_CODEC_H
#define PK_CODEC_H

#include "../common/pk_common.h"

/* Decompression state reused across pages: creating zstd's context or
 * libdeflate's decompressor costs more than decompressing a small page.
 * Each context is created on first use and kept until release; the state a
 * page leaves behind (a truncated frame, a decoder error) is reset before
 * the next page, so one failed page never affects the next.
 *  - ZSTD: one ZSTD_DCtx, through alloc. Every path decodes in one shot
 *    (ZSTD_decompressDCtx), so zstd never allocates a window buffer.
 *  - GZIP: one libdeflate decompressor (malloc: Debian 12's libdeflate 1.14
 *    has no allocator hook, and 1.19's libdeflate_alloc_decompressor_ex
 *    takes no opaque pointer that could lead back to alloc).
 *  - LZ4 (LZ4 frames, the last fallback of the deprecated codec): one
 *    LZ4F_dctx, through alloc.
 *  - BROTLI: a new decoder per page, through alloc: brotli 1.0.9 (Debian
 *    12's) cannot reset a decoder and a finished one takes no new stream.
 * Not thread-safe: one per column reader. alloc (NULL: malloc) must outlive
 * d. A released decompressor can be used again (contexts are recreated). */
typedef struct pk_decompressor {
    const plank_allocator *alloc; /* never NULL after init */
    void *zstd;                   /* ZSTD_DCtx * (also the ZSTD_DStream) */
    void *deflate;                /* struct libdeflate_decompressor * */
    void *lz4f;                   /* LZ4F_dctx * */
} pk_decompressor;

void pk_decompressor_init(pk_decompressor *d, const plank_allocator *alloc);
/* Frees the contexts; d may be NULL. */
void pk_decompressor_release(pk_decompressor *d);

/* Decompresses src into exactly dst_len bytes of dst, with d's contexts.
 *  - GZIP accepts several concatenated gzip members (and zlib streams).
 *  - LZ4 is the deprecated codec: Hadoop framing first, then a raw LZ4 block
 *    as a fallback (what Arrow and parquet-mr writers produced).
 *  - UNCOMPRESSED requires src_len == dst_len and copies.
 * A library failing to allocate its scratch memory is PLANK_ERR_OUT_OF_MEMORY. */
plank_status pk_decompress_with(pk_decompressor *d, plank_codec codec, const uint8_t *src,
                                size_t src_len, uint8_t *dst, size_t dst_len, plank_error *err);
/* pk_decompress_with through a decompressor made for this one call (alloc,
 * NULL for malloc, takes the libraries' scratch memory). */
plank_status pk_decompress(plank_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                           size_t dst_len, const plank_allocator *alloc, plank_error *err);

/* SNAPPY's raw block format by plank's own codec (pk_snappy.c): the
 * varint preamble (the uncompressed length, at most 2^32 - 1, and the bytes
 * it took), and a whole block into exactly dst_len bytes of dst. */
plank_status pk_snappy_length(const uint8_t *src, size_t src_len, size_t *len, size_t *used,
                              plank_error *err);
plank_status pk_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst,
                                  size_t dst_len, plank_error *err);
/* And its compressor: fragments of PK_SNAPPY_FRAGMENT bytes matched through
 * a hash table of (up to) PK_SNAPPY_TABLE 16-bit entries, the caller's
 * scratch. pk_snappy_bound: the most bytes src_len bytes compress to (0
 * above 2^32 - 1, which the preamble cannot state); pk_snappy_compress
 * needs that much room (cap) and sets *n to the bytes written. */
#define PK_SNAPPY_FRAGMENT ((size_t)1 << 16)
#define PK_SNAPPY_TABLE ((size_t)1 << 14)
size_t pk_snappy_bound(size_t src_len);
plank_status pk_snappy_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t cap,
                                size_t *n, uint16_t *table, plank_error *err);

/* As pk_decompress_with, into buf (resized to exactly dst_len bytes on
 * success), for a dst_len that comes from a page header and may lie. Before
 * the dst_len bytes are allocated, the claim is checked against what the
 * codec itself says: SNAPPY's length preamble and the content sizes of ZSTD
 * frames (when every frame has one) must equal it; SNAPPY (at most 22:1),
 * GZIP (deflate expands at most 1032:1) and LZ4 (at most about 255:1) must
 * be able to reach it from src_len bytes, else PLANK_ERR_CORRUPT. Those
 * pages, and ZSTD pages whose frames all declare their sizes, are then
 * decompressed in one shot into exactly dst_len bytes. (zstd expands more
 * than 32768:1, so frame sizes that lie with the header get dst_len bytes
 * allocated; a streaming zstd decoder would allocate as much for its
 * window, min(content size, window + 128 KiB) with windows up to 128 MiB.)
 * BROTLI, which declares no size, and ZSTD pages with a frame without one
 * decompress into a buffer that grows with what the page really produces
 * (from 64 x src_len, at least 1 MiB, in x4 steps up to dst_len), so a
 * lying header never makes plank allocate much more than the page truly
 * holds. (ZSTD decodes in one shot again after each step: all tries cost
 * less than 7/3 of one decode, and pages within the first step decode once.)
 * On failure buf's contents are unspecified (it stays valid to reset). */
plank_status pk_decompress_buffer_with(pk_decompressor *d, plank_codec codec,
                                       const uint8_t *src, size_t src_len, size_t dst_len,
                                       pk_buffer *buf, plank_error *err);
/* pk_decompress_buffer_with through a decompressor made for this one call. */
plank_status pk_decompress_buffer(plank_codec codec, const uint8_t *src, size_t src_len,
                                  size_t dst_len, pk_buffer *buf, const plank_allocator *alloc,
                                  plank_error *err);

/* Upper bound of the compressed size of src_len bytes (for one page); 0
 * when the codec is not built or cannot take src_len bytes in one page. */
size_t pk_compress_bound(plank_codec codec, size_t src_len);
/* Appends the compressed form of src[0..src_len) to out. level is the
 * codec's own (GZIP 1..12, default 6; ZSTD 1..22, default 3; BROTLI 1..11,
 * default 8 as Arrow; LZ4 and LZ4_RAW 1..12, where 3..12 use LZ4HC and the
 * default is the fast compressor); 0 picks the codec's default, a level out
 * of range is PLANK_ERR_INVALID_ARGUMENT, SNAPPY and UNCOMPRESSED ignore it.
 * On failure out keeps its previous size. LZ4 writes the Hadoop framing (big-endian uncompressed and
 * compressed sizes before each block) that parquet-mr and Arrow read;
 * LZ4_RAW a bare block; GZIP a gzip member; UNCOMPRESSED copies. A codec not
 * built (or LZO) is PLANK_ERR_UNSUPPORTED naming it. */
plank_status pk_compress(plank_codec codec, int level, const uint8_t *src, size_t src_len,
                         pk_buffer *out, plank_error *err);
/* Compression state reused across calls (libdeflate's compressor, zstd's
 * context): creating them costs more than compressing a small page. Not
 * thread-safe; one per writer column. */
typedef struct pk_compressor {
    void *deflate;     /* struct libdeflate_compressor * */
    int deflate_level;
    void *zstd;        /* ZSTD_CCtx * */
    uint16_t *snappy_table; /* PK_SNAPPY_TABLE entries, from snappy_alloc */
    const plank_allocator *snappy_alloc;
} pk_compressor;

void pk_compressor_init(pk_compressor *c);
void pk_compressor_release(pk_compressor *c);
/* pk_compress through the context's reusable state. */
plank_status pk_compress_with(pk_compressor *c, plank_codec codec, int level,
                              const uint8_t *src, size_t src_len, pk_buffer *out,
                              plank_error *err);

/* Whether this build can compress the codec. */
bool pk_compress_available(plank_codec codec);

#endif /* PK_CODEC_H */
