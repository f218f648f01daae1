/*
 * pk_compress.c: page compression for the writer (see pk_codec.h).
 *
 * Every codec compresses in one shot straight into the output buffer, which
 * is first grown by pk_compress_bound, so no codec ever needs a second pass
 * or a temporary copy. Nothing is global: compressor state (libdeflate's
 * compressor; zstd, LZ4HC and brotli make theirs inside the one-shot call)
 * lives in a pk_compressor the caller keeps (the writer: one per column),
 * or for one call with pk_compress.
 *
 * Memory: the output goes through the buffer's allocator; the libraries'
 * scratch memory (libdeflate 1.14, one-shot zstd, LZ4HC's state, brotli's
 * one-shot encoder) comes from malloc, since their allocator hooks are
 * process-global, newer than Debian 12's versions, or not in the one-shot
 * API.
 *
 * Levels (0 always means the default):
 *   GZIP     1..12 (libdeflate's scale; 6 as zlib's default)
 *   ZSTD     1..ZSTD_maxCLevel() (22; default 1, as Arrow C++ and arrow-rs:
 *            on TPC-H data 10-25% faster writes than zstd's own 3 for
 *            files 3% larger; bench/README.md, "ZSTD's default level")
 *   BROTLI   1..11 (default 8, as Arrow/parquet-cpp: brotli's own default
 *            11 is very slow, 8 is Arrow's measured trade-off for Parquet
 *            pages; quality 0 cannot be asked for since 0 means default)
 *   LZ4, LZ4_RAW 1..12 (lz4's command-line scale: 1..2 the fast
 *            compressor, the default; 3..12 LZ4HC at that level)
 *   SNAPPY, UNCOMPRESSED: no levels; any level is ignored.
 * A level out of range is PLANK_ERR_INVALID_ARGUMENT.
 */
#include "pk_codec.h"

#include <limits.h>

#ifdef PLANK_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef PLANK_HAVE_LZ4
#include <lz4.h>
#include <lz4hc.h>
#endif
#ifdef PLANK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef PLANK_HAVE_BROTLI
#include <brotli/encode.h>
#endif

enum {
    PK_GZIP_DEFAULT_LEVEL = 6,
    PK_ZSTD_DEFAULT_LEVEL = 1,
    PK_BROTLI_DEFAULT_QUALITY = 8,
    PK_LZ4_MAX_LEVEL = 12,
};

/* With the output as large as the bound, the libraries can only fail when
 * their own scratch allocations do. */
#define PK_COMPRESS_FAILED PLANK_ERR_OUT_OF_MEMORY

/* Hadoop's Lz4Codec decompresses into a buffer of
 * io.compression.codec.lz4.buffersize bytes (default 256 KiB), and its
 * compressor cuts the input so that even an incompressible block's LZ4 form
 * (n + n/255 + 16 bytes) fits that buffer. Blocks of this size are readable
 * by parquet-mr with default settings, by Arrow, and by pk_decompress. */
#define PK_LZ4_HADOOP_BUFFER ((size_t)256 * 1024)
#define PK_LZ4_HADOOP_BLOCK (PK_LZ4_HADOOP_BUFFER - PK_LZ4_HADOOP_BUFFER / 255 - 16)

bool pk_compress_available(plank_codec codec) {
    /* SNAPPY is plank's own both ways (pk_snappy.c); the other codecs'
     * decoders and encoders come from the same libraries (CMake finds
     * brotli's encoder library together with its decoder's). */
    return plank_codec_available(codec);
}

bool plank_codec_writable(plank_codec c) { return pk_compress_available(c); }

/* ---- bounds ------------------------------------------------------------------ */

#ifdef PLANK_HAVE_LZ4
/* 0 when LZ4's int-sized block API cannot take n bytes. */
static size_t pk_lz4_block_bound(size_t n) {
    if (n > (size_t)LZ4_MAX_INPUT_SIZE) return 0;
    return (size_t)LZ4_compressBound((int)n);
}

static size_t pk_lz4_hadoop_bound(size_t n) {
    /* An empty input still gets one (empty) block: 8 bytes of sizes and a
     * one-byte LZ4 block. */
    if (n == 0) return 8 + pk_lz4_block_bound(0);
    size_t full = n / PK_LZ4_HADOOP_BLOCK, rest = n % PK_LZ4_HADOOP_BLOCK;
    uint64_t total;
    if (pk_mul_overflow_u64(full, 8 + pk_lz4_block_bound(PK_LZ4_HADOOP_BLOCK), &total))
        return 0;
    if (rest && pk_add_overflow_u64(total, 8 + pk_lz4_block_bound(rest), &total)) return 0;
    return total > SIZE_MAX ? 0 : (size_t)total;
}
#endif

size_t pk_compress_bound(plank_codec codec, size_t src_len) {
    if (!pk_compress_available(codec)) return 0;
    switch (codec) {
    case PLANK_CODEC_UNCOMPRESSED: return src_len;
    case PLANK_CODEC_SNAPPY: return pk_snappy_bound(src_len);
#ifdef PLANK_HAVE_LIBDEFLATE
    case PLANK_CODEC_GZIP: {
        size_t b = libdeflate_gzip_compress_bound(NULL, src_len);
        return b < src_len ? 0 : b; /* wrapped around */
    }
#endif
#ifdef PLANK_HAVE_ZSTD
    case PLANK_CODEC_ZSTD: {
        size_t b = ZSTD_compressBound(src_len);
        return ZSTD_isError(b) ? 0 : b;
    }
#endif
#ifdef PLANK_HAVE_LZ4
    case PLANK_CODEC_LZ4_RAW: return pk_lz4_block_bound(src_len);
    case PLANK_CODEC_LZ4: return pk_lz4_hadoop_bound(src_len);
#endif
#ifdef PLANK_HAVE_BROTLI
    case PLANK_CODEC_BROTLI: return BrotliEncoderMaxCompressedSize(src_len);
#endif
    default: return 0;
    }
}

/* ---- codecs ------------------------------------------------------------------- */
/* Each writes at most cap bytes at dst and sets *n to the bytes written. */

/* plank's own (pk_snappy.c), with the context's hash table, allocated on
 * first use with the output's allocator. */
static plank_status snappy_compress_with(pk_compressor *ctx, const uint8_t *src, size_t src_len,
                                         uint8_t *dst, size_t cap, size_t *n,
                                         const plank_allocator *a, plank_error *err) {
    if (!ctx->snappy_table) {
        ctx->snappy_table = pk_malloc(a, PK_SNAPPY_TABLE * sizeof(uint16_t));
        PK_RETURN_IF(!ctx->snappy_table, err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->snappy_alloc = a;
    }
    return pk_snappy_compress(src, src_len, dst, cap, n, ctx->snappy_table, err);
}

#ifdef PLANK_HAVE_LIBDEFLATE
static plank_status pk_gzip_compress(pk_compressor *ctx, int level, const uint8_t *src,
                                     size_t src_len, uint8_t *dst, size_t cap, size_t *n,
                                     plank_error *err) {
    /* The context keeps one compressor per level (allocating one costs
     * more than compressing a small page). */
    if (ctx->deflate && ctx->deflate_level != level) {
        libdeflate_free_compressor(ctx->deflate);
        ctx->deflate = NULL;
    }
    if (!ctx->deflate) {
        ctx->deflate = libdeflate_alloc_compressor(level);
        PK_RETURN_IF(ctx->deflate == NULL, err, PLANK_ERR_OUT_OF_MEMORY,
                     "cannot allocate a GZIP compressor");
        ctx->deflate_level = level;
    }
    *n = libdeflate_gzip_compress(ctx->deflate, src, src_len, dst, cap);
    /* 0 means "did not fit", which the bound rules out. */
    PK_RETURN_IF(*n == 0, err, PK_COMPRESS_FAILED,
                 "GZIP compression of %zu bytes exceeded its bound", src_len);
    return PLANK_OK;
}
#endif

#ifdef PLANK_HAVE_ZSTD
static plank_status pk_zstd_compress(pk_compressor *ctx, int level, const uint8_t *src,
                                     size_t src_len, uint8_t *dst, size_t cap, size_t *n,
                                     plank_error *err) {
    /* One ZSTD_CCtx per context, reused across pages. The frame records its
     * content size, which readers check. */
    if (!ctx->zstd) {
        ctx->zstd = ZSTD_createCCtx();
        PK_RETURN_IF(ctx->zstd == NULL, err, PLANK_ERR_OUT_OF_MEMORY,
                     "cannot allocate a ZSTD compression context");
    }
    size_t r = ZSTD_compressCCtx(ctx->zstd, dst, cap, src, src_len, level);
    if (ZSTD_isError(r))
        return pk_error_set(err, PK_COMPRESS_FAILED,
                            "ZSTD compression of %zu bytes failed: %s", src_len,
                            ZSTD_getErrorName(r));
    *n = r;
    return PLANK_OK;
}
#endif

#ifdef PLANK_HAVE_LZ4
/* One LZ4 block; src_len <= LZ4_MAX_INPUT_SIZE and cap >= its bound. */
static plank_status pk_lz4_block_compress(int level, const uint8_t *src, size_t src_len,
                                          uint8_t *dst, size_t cap, size_t *n,
                                          plank_error *err) {
    int icap = cap > (size_t)INT_MAX ? INT_MAX : (int)cap;
    int r = level < LZ4HC_CLEVEL_MIN
                ? LZ4_compress_default((const char *)src, (char *)dst, (int)src_len, icap)
                : LZ4_compress_HC((const char *)src, (char *)dst, (int)src_len, icap, level);
    PK_RETURN_IF(r <= 0, err, PK_COMPRESS_FAILED, "LZ4 compression of %zu bytes failed",
                 src_len);
    *n = (size_t)r;
    return PLANK_OK;
}

static void pk_store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Hadoop framing: per block of at most PK_LZ4_HADOOP_BLOCK input bytes,
 * [BE32 uncompressed size][BE32 compressed size][LZ4 block]. */
static plank_status pk_lz4_hadoop_compress(int level, const uint8_t *src, size_t src_len,
                                           uint8_t *dst, size_t cap, size_t *n,
                                           plank_error *err) {
    size_t in = 0, out = 0;
    do {
        size_t block = src_len - in < PK_LZ4_HADOOP_BLOCK ? src_len - in : PK_LZ4_HADOOP_BLOCK;
        PK_RETURN_IF(cap - out < 8, err, PK_COMPRESS_FAILED, "LZ4 output exceeded its bound");
        size_t got = 0;
        PK_FORWARD(pk_lz4_block_compress(level, src + in, block, dst + out + 8, cap - out - 8,
                                         &got, err));
        pk_store_be32(dst + out, (uint32_t)block);
        pk_store_be32(dst + out + 4, (uint32_t)got);
        in += block;
        out += 8 + got;
    } while (in < src_len);
    *n = out;
    return PLANK_OK;
}
#endif

#ifdef PLANK_HAVE_BROTLI
static plank_status pk_brotli_compress(int quality, const uint8_t *src, size_t src_len,
                                       uint8_t *dst, size_t cap, size_t *n, plank_error *err) {
    /* The one-shot encoder falls back to an uncompressed stream when the
     * compressed one would not fit, so the bound always holds. */
    *n = cap;
    /* A window no larger than the page (at least brotli's minimum): the
     * same matches, since nothing lies before the page, but the encoder's
     * ring buffer and hash tables, allocated and cleared anew for every
     * page, are sized by the window: 4 MiB at the default 22 bits for a
     * page of 8 KiB. */
    int lgwin = BROTLI_MIN_WINDOW_BITS;
    while (lgwin < BROTLI_DEFAULT_WINDOW && ((size_t)1 << lgwin) - 16 < src_len) lgwin++;
    if (!BrotliEncoderCompress(quality, lgwin, BROTLI_MODE_GENERIC, src_len, src, n, dst))
        return pk_error_set(err, PK_COMPRESS_FAILED, "BROTLI compression of %zu bytes failed",
                            src_len);
    return PLANK_OK;
}
#endif

/* ---- dispatch ------------------------------------------------------------------ */

/* The level to use, or -1 when it is out of the codec's range. */
static int pk_compress_level(plank_codec codec, int level) {
    int dflt = 0, max = INT_MAX;
    switch (codec) {
    case PLANK_CODEC_GZIP: dflt = PK_GZIP_DEFAULT_LEVEL; max = 12; break;
    case PLANK_CODEC_ZSTD:
        dflt = PK_ZSTD_DEFAULT_LEVEL;
#ifdef PLANK_HAVE_ZSTD
        max = ZSTD_maxCLevel();
#endif
        break;
    case PLANK_CODEC_BROTLI: dflt = PK_BROTLI_DEFAULT_QUALITY; max = 11; break;
    case PLANK_CODEC_LZ4:
    case PLANK_CODEC_LZ4_RAW: dflt = 1; max = PK_LZ4_MAX_LEVEL; break;
    default: return 0; /* no levels: ignored */
    }
    if (level == 0) return dflt;
    return level < 0 || level > max ? -1 : level;
}

void pk_compressor_init(pk_compressor *c) { memset(c, 0, sizeof *c); }

void pk_compressor_release(pk_compressor *c) {
    if (c->snappy_table)
        pk_free(c->snappy_alloc, c->snappy_table, PK_SNAPPY_TABLE * sizeof(uint16_t));
#ifdef PLANK_HAVE_LIBDEFLATE
    if (c->deflate) libdeflate_free_compressor(c->deflate);
#endif
#ifdef PLANK_HAVE_ZSTD
    if (c->zstd) ZSTD_freeCCtx(c->zstd);
#endif
    memset(c, 0, sizeof *c);
}

plank_status pk_compress(plank_codec codec, int level, const uint8_t *src, size_t src_len,
                         pk_buffer *out, plank_error *err) {
    pk_compressor c;
    pk_compressor_init(&c);
    plank_status st = pk_compress_with(&c, codec, level, src, src_len, out, err);
    pk_compressor_release(&c);
    return st;
}

plank_status pk_compress_with(pk_compressor *ctx, plank_codec codec, int level,
                              const uint8_t *src, size_t src_len, pk_buffer *out,
                              plank_error *err) {
    PK_RETURN_IF(out == NULL || (src == NULL && src_len != 0), err, PLANK_ERR_INVALID_ARGUMENT,
                 "pk_compress: NULL buffer");
    if (!pk_compress_available(codec)) {
        if ((int)codec < 0 || (int)codec > (int)PLANK_CODEC_LZ4_RAW)
            return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "cannot compress with unknown codec %d",
                                (int)codec);
        const char *name = plank_codec_name(codec);
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                            "cannot compress with %s: this build of plank has no %s encoder",
                            name, name);
    }
    int lvl = pk_compress_level(codec, level);
    PK_RETURN_IF(lvl < 0, err, PLANK_ERR_INVALID_ARGUMENT, "%s has no compression level %d",
                 plank_codec_name(codec), level);
    size_t bound = pk_compress_bound(codec, src_len);
    PK_RETURN_IF(bound == 0 && src_len != 0, err, PLANK_ERR_UNSUPPORTED,
                 "%s cannot compress a page of %zu bytes", plank_codec_name(codec), src_len);
    size_t need;
    PK_RETURN_IF(__builtin_add_overflow(out->size, bound, &need), err, PLANK_ERR_OUT_OF_MEMORY,
                 "compressed page does not fit in memory");
    PK_FORWARD(pk_buffer_reserve(out, need, err));

    /* Libraries may do pointer arithmetic on their input even at length 0. */
    static const uint8_t empty_src[1] = {0};
    if (src == NULL) src = empty_src;
    uint8_t *dst = out->data + out->size;
    size_t n = 0;
    switch (codec) {
    case PLANK_CODEC_UNCOMPRESSED:
        if (src_len) memcpy(dst, src, src_len);
        n = src_len;
        break;
    case PLANK_CODEC_SNAPPY:
        PK_FORWARD(snappy_compress_with(ctx, src, src_len, dst, bound, &n, out->alloc, err));
        break;
#ifdef PLANK_HAVE_LIBDEFLATE
    case PLANK_CODEC_GZIP:
        PK_FORWARD(pk_gzip_compress(ctx, lvl, src, src_len, dst, bound, &n, err));
        break;
#endif
#ifdef PLANK_HAVE_ZSTD
    case PLANK_CODEC_ZSTD:
        PK_FORWARD(pk_zstd_compress(ctx, lvl, src, src_len, dst, bound, &n, err));
        break;
#endif
#ifdef PLANK_HAVE_LZ4
    case PLANK_CODEC_LZ4_RAW:
        PK_FORWARD(pk_lz4_block_compress(lvl, src, src_len, dst, bound, &n, err));
        break;
    case PLANK_CODEC_LZ4:
        PK_FORWARD(pk_lz4_hadoop_compress(lvl, src, src_len, dst, bound, &n, err));
        break;
#endif
#ifdef PLANK_HAVE_BROTLI
    case PLANK_CODEC_BROTLI:
        PK_FORWARD(pk_brotli_compress(lvl, src, src_len, dst, bound, &n, err));
        break;
#endif
    default: break;
    }
    (void)lvl;
    (void)dst;
    return pk_buffer_resize(out, out->size + n, err);
}
