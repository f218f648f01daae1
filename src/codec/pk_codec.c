/*
 * pk_codec.c: page decompression (see pk_codec.h for the contract).
 *
 * Every codec decompresses straight into the caller's dst, whose size is the
 * page header's uncompressed_page_size; producing fewer or more bytes is
 * PLANK_ERR_CORRUPT. The libraries are used only through their bounded
 * ("safe") entry points, so hostile input can make them fail but never read
 * past src_len or write past dst_len. On failure the contents of dst are
 * unspecified (a codec may have written part of the output, or, for LZ4, the
 * output of a framing guess that was then rejected).
 *
 * Decompressor contexts (zstd, libdeflate, LZ4F) live in a pk_decompressor:
 * created on first use, kept, and freed by pk_decompressor_release. Nothing a
 * failed page leaves in them reaches the next page: zstd's one-shot decoding
 * starts every frame afresh, LZ4F's context is reset before each use and
 * libdeflate's keeps no state. A column reader keeps one decompressor;
 * pk_decompress and pk_decompress_buffer make one for a single call. Brotli
 * decoders are made per page (brotli 1.0.9 cannot reset one).
 *
 * Memory: zstd's, LZ4F's and brotli's scratch memory goes through the
 * decompressor's allocator (zstd's and LZ4F's hooks are their "static
 * linking only" API, stable for years and exported by the shared
 * libraries); libdeflate 1.14 has only a process-global hook, so its
 * decompressor comes from malloc.
 */
#include "pk_codec.h"

#include <limits.h>

#ifdef PLANK_HAVE_ZSTD
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced: the caller's allocator */
#include <zstd.h>
#include <zstd_errors.h>
#endif
#ifdef PLANK_HAVE_LZ4
#include <lz4.h>
#define LZ4F_STATIC_LINKING_ONLY /* LZ4F_createDecompressionContext_advanced */
#include <lz4frame.h>
#endif
#ifdef PLANK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef PLANK_HAVE_BROTLI
#include <brotli/decode.h>
#endif

bool plank_codec_available(plank_codec c) {
    switch (c) {
    case PLANK_CODEC_UNCOMPRESSED: return true;
    case PLANK_CODEC_SNAPPY: return true; /* pk_snappy.c, no library */
#ifdef PLANK_HAVE_LIBDEFLATE
    case PLANK_CODEC_GZIP: return true;
#endif
#ifdef PLANK_HAVE_BROTLI
    case PLANK_CODEC_BROTLI: return true;
#endif
#ifdef PLANK_HAVE_LZ4
    case PLANK_CODEC_LZ4: return true;
    case PLANK_CODEC_LZ4_RAW: return true;
#endif
#ifdef PLANK_HAVE_ZSTD
    case PLANK_CODEC_ZSTD: return true;
#endif
    default: return false;
    }
}

static plank_status pk_codec_unsupported(plank_codec codec, plank_error *err) {
    if (codec == PLANK_CODEC_LZO)
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                            "page compressed with LZO but plank has no LZO support");
    /* A codec number this version does not know may be a newer format's. */
    if ((int)codec < 0 || (int)codec > (int)PLANK_CODEC_LZ4_RAW)
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                            "page compressed with unknown codec %d", (int)codec);
    const char *name = plank_codec_name(codec);
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                        "page compressed with %s but this build of plank has no %s support", name,
                        name);
}

static plank_status pk_size_mismatch(plank_error *err, const char *codec, size_t got,
                                     size_t want) {
    return PK_CORRUPT(err, "%s page yields %zu bytes, page header says %zu", codec, got, want);
}

/* ---- the decompressor: contexts and their memory ------------------------------ */

#if defined(PLANK_HAVE_ZSTD) || defined(PLANK_HAVE_LZ4) || defined(PLANK_HAVE_BROTLI)
/* zstd, LZ4F and brotli take (opaque, size) allocation and (opaque, pointer)
 * free functions; opaque is the plank_allocator. They free without a size
 * but plank's allocator wants one: keep it in a 16-byte header (16 keeps
 * the allocator's alignment). */
enum { PK_SIZED_HEADER = 16 };

static void *pk_sized_alloc(void *opaque, size_t n) {
    if (n > SIZE_MAX - PK_SIZED_HEADER) return NULL;
    uint8_t *p = pk_malloc((const plank_allocator *)opaque, n + PK_SIZED_HEADER);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    return p + PK_SIZED_HEADER;
}

static void pk_sized_free(void *opaque, void *ptr) {
    if (!ptr) return;
    uint8_t *p = (uint8_t *)ptr - PK_SIZED_HEADER;
    size_t n;
    memcpy(&n, p, sizeof n);
    pk_free((const plank_allocator *)opaque, p, n + PK_SIZED_HEADER);
}
#endif

void pk_decompressor_init(pk_decompressor *d, const plank_allocator *alloc) {
    memset(d, 0, sizeof *d);
    d->alloc = alloc ? alloc : pk_default_allocator();
}

void pk_decompressor_release(pk_decompressor *d) {
    if (!d) return;
#ifdef PLANK_HAVE_ZSTD
    ZSTD_freeDCtx(d->zstd);
#endif
#ifdef PLANK_HAVE_LIBDEFLATE
    if (d->deflate) libdeflate_free_decompressor(d->deflate);
#endif
#ifdef PLANK_HAVE_LZ4
    if (d->lz4f) LZ4F_freeDecompressionContext(d->lz4f);
#endif
    pk_decompressor_init(d, d->alloc);
}

/* ---- SNAPPY ----------------------------------------------------------------
 * plank's own codec (pk_snappy.c), both ways, in every build. */

/* ---- GZIP (libdeflate) ------------------------------------------------------ */

#ifdef PLANK_HAVE_LIBDEFLATE
/* A zlib header (RFC 1950): deflate method, window <= 32K, FCHECK valid. */
static bool pk_is_zlib_header(const uint8_t *p, size_t n) {
    return n >= 2 && (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 &&
           ((unsigned)p[0] * 256u + p[1]) % 31u == 0;
}

/* The page is a sequence of gzip members (RFC 1952 allows concatenation and
 * some writers flush one member per buffer) or zlib streams; the outputs are
 * concatenated. Raw deflate is not accepted: parquet-mr (Hadoop GzipCodec)
 * and Arrow write gzip, and no writer producing raw deflate is known. */
static plank_status pk_gzip(pk_decompressor *dc, const uint8_t *src, size_t src_len,
                            uint8_t *dst, size_t dst_len, plank_error *err) {
    PK_RETURN_IF(src_len == 0, err, PLANK_ERR_CORRUPT, "GZIP page is empty");
    /* libdeflate's decompressor keeps no state between calls. */
    if (!dc->deflate) {
        dc->deflate = libdeflate_alloc_decompressor();
        PK_RETURN_IF(dc->deflate == NULL, err, PLANK_ERR_OUT_OF_MEMORY,
                     "cannot allocate a GZIP decompressor");
    }
    struct libdeflate_decompressor *d = dc->deflate;
    plank_status st = PLANK_OK;
    size_t in = 0, out = 0;
    int member = 0;
    while (in < src_len) {
        const uint8_t *p = src + in;
        size_t avail = src_len - in;
        size_t used_in = 0, used_out = 0;
        enum libdeflate_result r;
        if (avail >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
            r = libdeflate_gzip_decompress_ex(d, p, avail, dst + out, dst_len - out, &used_in,
                                              &used_out);
        } else if (pk_is_zlib_header(p, avail)) {
            r = libdeflate_zlib_decompress_ex(d, p, avail, dst + out, dst_len - out, &used_in,
                                              &used_out);
        } else {
            st = PK_CORRUPT(err, "GZIP page: member %d at byte %zu is neither gzip nor zlib",
                            member, in);
            break;
        }
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            st = PK_CORRUPT(err, "GZIP page decompresses to more than the %zu bytes the header says",
                            dst_len);
            break;
        }
        if (r != LIBDEFLATE_SUCCESS || used_in == 0) {
            st = PK_CORRUPT(err, "GZIP page: member %d at byte %zu is malformed or truncated",
                            member, in);
            break;
        }
        in += used_in;
        out += used_out;
        member++;
    }
    if (st == PLANK_OK && out != dst_len) st = pk_size_mismatch(err, "GZIP", out, dst_len);
    return st;
}
#endif

/* ---- ZSTD -------------------------------------------------------------------- */

#ifdef PLANK_HAVE_ZSTD
/* d's context, created on first use. Only its one-shot decoding is used,
 * which starts every frame afresh: nothing of a failed page carries over. */
static ZSTD_DCtx *pk_zstd_ctx(pk_decompressor *d, plank_error *err) {
    if (!d->zstd) {
        ZSTD_customMem mem = {pk_sized_alloc, pk_sized_free, (void *)d->alloc};
        d->zstd = ZSTD_createDCtx_advanced(mem);
        if (!d->zstd) pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "cannot allocate a ZSTD context");
    }
    return d->zstd;
}

/* zstd's error r for the page. */
static plank_status pk_zstd_failed(size_t r, size_t src_len, size_t dst_len, plank_error *err) {
    return PK_CORRUPT(err, "ZSTD page (%zu bytes, %zu expected out): %s", src_len, dst_len,
                      ZSTD_getErrorName(r));
}

static plank_status pk_zstd(pk_decompressor *d, const uint8_t *src, size_t src_len, uint8_t *dst,
                            size_t dst_len, plank_error *err) {
    /* Only the first frame's size is looked at here; ZSTD_decompressDCtx
     * walks every frame and fails if the total does not fit in dst. */
    unsigned long long declared = ZSTD_getFrameContentSize(src, src_len);
    if (declared == ZSTD_CONTENTSIZE_ERROR)
        return PK_CORRUPT(err, "ZSTD page (%zu bytes) does not start with a zstd frame", src_len);
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > dst_len)
        return PK_CORRUPT(err, "ZSTD frame declares %llu bytes, page header says %zu", declared,
                          dst_len);
    ZSTD_DCtx *dctx = pk_zstd_ctx(d, err);
    if (!dctx) return PLANK_ERR_OUT_OF_MEMORY;
    size_t r = ZSTD_decompressDCtx(dctx, dst, dst_len, src, src_len);
    if (ZSTD_isError(r)) return pk_zstd_failed(r, src_len, dst_len, err);
    if (r != dst_len) return pk_size_mismatch(err, "ZSTD", r, dst_len);
    return PLANK_OK;
}
#endif

/* ---- LZ4_RAW and LZ4 ----------------------------------------------------------- */

#ifdef PLANK_HAVE_LZ4
/* LZ4's block API counts in int; larger blocks cannot be decoded with it. */
static bool pk_lz4_block(const uint8_t *src, size_t src_len, uint8_t *dst, size_t cap,
                         size_t *out_len) {
    if (src_len > (size_t)INT_MAX || cap > (size_t)INT_MAX) return false;
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)cap);
    if (r < 0) return false;
    *out_len = (size_t)r;
    return true;
}

static plank_status pk_lz4_raw(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               plank_error *err) {
    if (src_len > (size_t)INT_MAX || dst_len > (size_t)INT_MAX)
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                            "LZ4_RAW page of %zu -> %zu bytes exceeds LZ4's 2 GiB block limit",
                            src_len, dst_len);
    size_t out = 0;
    if (!pk_lz4_block(src, src_len, dst, dst_len, &out))
        return PK_CORRUPT(err, "LZ4_RAW page (%zu bytes) is malformed or needs more than %zu "
                          "bytes of output", src_len, dst_len);
    if (out != dst_len) return pk_size_mismatch(err, "LZ4_RAW", out, dst_len);
    return PLANK_OK;
}

static uint32_t pk_load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Hadoop's BlockCompressorStream framing, as written by parquet-mr's LZ4
 * codec: a sequence of blocks, each [BE32 uncompressed size] followed by one
 * or more [BE32 compressed size][LZ4 block] chunks whose outputs add up to
 * that size (one chunk unless the writer split a large buffer). Returns true
 * only when the whole input parses this way and fills dst exactly; anything
 * else is "not Hadoop framing" and the caller tries the next format. */
static bool pk_lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
    size_t in = 0, out = 0;
    if (src_len == 0) return false;
    while (in < src_len) {
        if (src_len - in < 8) return false;
        size_t block_len = pk_load_be32(src + in);
        in += 4;
        if (block_len > dst_len - out) return false;
        size_t block_end = out + block_len;
        do {
            if (src_len - in < 4) return false;
            size_t chunk_len = pk_load_be32(src + in);
            in += 4;
            if (chunk_len > src_len - in) return false;
            size_t got = 0;
            if (!pk_lz4_block(src + in, chunk_len, dst + out, block_end - out, &got)) return false;
            /* An empty chunk inside a non-empty block makes no progress. */
            if (got == 0 && block_end != out) return false;
            in += chunk_len;
            out += got;
        } while (out < block_end);
    }
    return out == dst_len;
}

/* The LZ4 frame format (magic 0x184D2204), possibly several frames.
 * PLANK_OK when src is such frames filling dst exactly, PLANK_ERR_CORRUPT
 * (no message) when it is not, PLANK_ERR_OUT_OF_MEMORY (with one) when LZ4F
 * could not allocate. */
static plank_status pk_lz4_frame(pk_decompressor *d, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_len, plank_error *err) {
    if (src_len < 4 || pk_load_u32(src) != 0x184D2204u) return PLANK_ERR_CORRUPT;
    if (!d->lz4f) {
        LZ4F_CustomMem mem = {pk_sized_alloc, NULL, pk_sized_free, (void *)d->alloc};
        d->lz4f = LZ4F_createDecompressionContext_advanced(mem, LZ4F_VERSION);
        PK_RETURN_IF(d->lz4f == NULL, err, PLANK_ERR_OUT_OF_MEMORY,
                     "cannot allocate an LZ4 frame context");
    } else {
        /* An error leaves the context undefined; a success may too (a
         * frame cut short by dst). */
        LZ4F_resetDecompressionContext(d->lz4f);
    }
    LZ4F_dctx *dctx = d->lz4f;
    size_t in = 0, out = 0, hint = 1;
    bool ok = true;
    while (ok && in < src_len) {
        size_t in_n = src_len - in, out_n = dst_len - out;
        hint = LZ4F_decompress(dctx, dst + out, &out_n, src + in, &in_n, NULL);
        PK_RETURN_IF(LZ4F_getErrorCode(hint) == LZ4F_ERROR_allocation_failed, err,
                     PLANK_ERR_OUT_OF_MEMORY, "LZ4 frame decoder: %s", LZ4F_getErrorName(hint));
        if (LZ4F_isError(hint) || (in_n == 0 && out_n == 0)) ok = false;
        in += in_n;
        out += out_n;
    }
    /* hint == 0: the last frame ended exactly at the end of the input. */
    return ok && hint == 0 && out == dst_len ? PLANK_OK : PLANK_ERR_CORRUPT;
}

/* The deprecated LZ4 codec never had one agreed format: parquet-mr wrote
 * Hadoop framing, older parquet-cpp a bare block, and some writers the frame
 * format. Try them in that order; each attempt is bounded by dst. */
static plank_status pk_lz4_legacy(pk_decompressor *d, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_len, plank_error *err) {
    if (pk_lz4_hadoop(src, src_len, dst, dst_len)) return PLANK_OK;
    size_t out = 0;
    if (pk_lz4_block(src, src_len, dst, dst_len, &out) && out == dst_len) return PLANK_OK;
    plank_status st = pk_lz4_frame(d, src, src_len, dst, dst_len, err);
    if (st != PLANK_ERR_CORRUPT) return st;
    return PK_CORRUPT(err,
                      "LZ4 page (%zu bytes) is neither Hadoop-framed LZ4, a raw LZ4 block nor "
                      "LZ4 frames decompressing to the %zu bytes the header says",
                      src_len, dst_len);
}
#endif

/* ---- growing output (BROTLI, ZSTD) ---------------------------------------------- */

#if defined(PLANK_HAVE_BROTLI) || defined(PLANK_HAVE_ZSTD)
/* First allocation of a growing output: enough for typical ratios, so most
 * pages never regrow. */
static size_t pk_grow_start(size_t src_len, size_t dst_len) {
    size_t guess = src_len > SIZE_MAX / 64 ? SIZE_MAX : src_len * 64;
    if (guess < ((size_t)1 << 20)) guess = (size_t)1 << 20;
    return guess < dst_len ? guess : dst_len;
}

/* Grows buf to the next step towards dst_len; an error when it is already
 * there (the stream yields more than the header says). */
static plank_status pk_grow(pk_buffer *buf, size_t dst_len, const char *codec,
                            plank_error *err) {
    if (buf->size >= dst_len)
        return PK_CORRUPT(err, "%s page decompresses to more than the %zu bytes the header says",
                          codec, dst_len);
    size_t next = buf->size > dst_len / 4 ? dst_len : buf->size * 4;
    return pk_buffer_resize(buf, next, err);
}
#endif

/* ---- BROTLI ------------------------------------------------------------------ */

#ifdef PLANK_HAVE_BROTLI
/* brotli's own allocations failing is the allocator's answer, not the page's. */
static bool pk_brotli_oom(BrotliDecoderErrorCode c) {
    return c <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
           c >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES;
}

/* Decodes the page with a new decoder drawing on d's allocator: brotli
 * 1.0.9 (Debian 12's) has no way to reset one, and a finished decoder takes
 * no second stream. Into dst[0..dst_len) when buf is NULL; else into buf,
 * grown towards dst_len only as the stream fills it. The streaming API is
 * used (not BrotliDecoderDecompress) so that bytes after the end of the
 * stream are detected and rejected. */
static plank_status pk_brotli(pk_decompressor *d, const uint8_t *src, size_t src_len,
                              uint8_t *dst, size_t dst_len, pk_buffer *buf, plank_error *err) {
    if (buf) PK_FORWARD(pk_buffer_resize(buf, pk_grow_start(src_len, dst_len), err));
    BrotliDecoderState *s =
        BrotliDecoderCreateInstance(pk_sized_alloc, pk_sized_free, (void *)d->alloc);
    PK_RETURN_IF(s == NULL, err, PLANK_ERR_OUT_OF_MEMORY, "cannot allocate a BROTLI decoder");
    size_t avail_in = src_len, out = 0;
    const uint8_t *next_in = src;
    plank_status st = PLANK_OK;
    for (;;) {
        uint8_t *base = buf ? buf->data : dst;
        size_t cap = buf ? buf->size : dst_len;
        size_t avail_out = cap - out;
        uint8_t *next_out = base + out;
        BrotliDecoderResult r =
            BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out, NULL);
        out = cap - avail_out;
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
            st = buf ? pk_grow(buf, dst_len, "BROTLI", err)
                     : PK_CORRUPT(err, "BROTLI page decompresses to more than the %zu bytes the "
                                  "header says", dst_len);
            if (st != PLANK_OK) break;
            continue;
        }
        if (r == BROTLI_DECODER_RESULT_SUCCESS) {
            if (avail_in != 0)
                st = PK_CORRUPT(err, "BROTLI page has %zu bytes after the end of the stream",
                                avail_in);
            else if (out != dst_len)
                st = pk_size_mismatch(err, "BROTLI", out, dst_len);
        } else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
            st = PK_CORRUPT(err, "BROTLI page (%zu bytes) is truncated after %zu output bytes",
                            src_len, out);
        } else if (pk_brotli_oom(BrotliDecoderGetErrorCode(s))) {
            st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "BROTLI decoder: %s",
                              BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)));
        } else {
            st = PK_CORRUPT(err, "BROTLI page (%zu bytes) is malformed: %s", src_len,
                            BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)));
        }
        break;
    }
    BrotliDecoderDestroyInstance(s);
    return st;
}
#endif

/* ---- Decompression into a buffer, checking the declared size first ----------- */

#ifdef PLANK_HAVE_ZSTD
/* Adds up the content sizes the frames declare; *known is false when a
 * frame does not declare one. */
static plank_status pk_zstd_declared(const uint8_t *src, size_t src_len, uint64_t *total,
                                     bool *known, plank_error *err) {
    *total = 0;
    *known = true;
    size_t pos = 0;
    while (pos < src_len) {
        size_t fsize = ZSTD_findFrameCompressedSize(src + pos, src_len - pos);
        PK_RETURN_IF(ZSTD_isError(fsize), err, PLANK_ERR_CORRUPT,
                     "ZSTD page: frame at byte %zu is malformed or truncated", pos);
        unsigned long long c = ZSTD_getFrameContentSize(src + pos, fsize);
        PK_RETURN_IF(c == ZSTD_CONTENTSIZE_ERROR, err, PLANK_ERR_CORRUPT,
                     "ZSTD page: no zstd frame at byte %zu", pos);
        if (c == ZSTD_CONTENTSIZE_UNKNOWN) *known = false;
        else if (pk_add_overflow_u64(*total, c, total)) *total = UINT64_MAX;
        pos += fsize;
    }
    return PLANK_OK;
}

/* Frames without a content size: one-shot decoding into buf, grown (x4
 * towards dst_len) each time zstd finds it too small, so the allocation
 * follows what the frames really produce. Every retry decodes again from
 * the start, but the sizes grow geometrically: all tries together cost less
 * than 7/3 of one decode of dst_len bytes, and pages that fit the first
 * step (nearly all) decode once. Streaming
 * would need no retries but makes zstd allocate a window buffer as large as
 * the frame header asks (up to 128 MiB), copy the output through it, and
 * refuse larger windows that one-shot decoding, like pk_decompress, takes. */
static plank_status pk_zstd_grow(pk_decompressor *d, const uint8_t *src, size_t src_len,
                                 size_t dst_len, pk_buffer *buf, plank_error *err) {
    ZSTD_DCtx *dctx = pk_zstd_ctx(d, err);
    if (!dctx) return PLANK_ERR_OUT_OF_MEMORY;
    PK_FORWARD(pk_buffer_resize(buf, pk_grow_start(src_len, dst_len), err));
    for (;;) {
        size_t r = ZSTD_decompressDCtx(dctx, buf->data, buf->size, src, src_len);
        if (!ZSTD_isError(r))
            return r == dst_len ? PLANK_OK : pk_size_mismatch(err, "ZSTD", r, dst_len);
        if (ZSTD_getErrorCode(r) != ZSTD_error_dstSize_tooSmall)
            return pk_zstd_failed(r, src_len, dst_len, err);
        PK_FORWARD(pk_grow(buf, dst_len, "ZSTD", err));
    }
}
#endif

/* The most output src_len bytes can give in a codec whose expansion is
 * bounded by its format. */
static uint64_t pk_ratio_bound(size_t src_len, uint64_t ratio) {
    uint64_t b;
    if (pk_mul_overflow_u64(src_len, ratio, &b)) return UINT64_MAX;
    return b + 64;
}

plank_status pk_decompress_buffer_with(pk_decompressor *d, plank_codec codec,
                                       const uint8_t *src, size_t src_len, size_t dst_len,
                                       pk_buffer *buf, plank_error *err) {
    if (!plank_codec_available(codec)) return pk_codec_unsupported(codec, err);
    if (src_len == 0 && dst_len == 0) return pk_buffer_resize(buf, 0, err);
    PK_RETURN_IF(src == NULL && src_len != 0, err, PLANK_ERR_INVALID_ARGUMENT,
                 "pk_decompress_buffer: NULL source with a non-zero length");
    const char *name = plank_codec_name(codec);
    switch (codec) {
    case PLANK_CODEC_UNCOMPRESSED:
        if (src_len != dst_len) return pk_size_mismatch(err, name, src_len, dst_len);
        break;
    case PLANK_CODEC_SNAPPY: {
        size_t declared = 0, used;
        PK_FORWARD(pk_snappy_length(src, src_len, &declared, &used, err));
        if (declared != dst_len)
            return PK_CORRUPT(err, "SNAPPY page declares %zu uncompressed bytes, header says %zu",
                              declared, dst_len);
        /* The preamble itself may lie: bound it by snappy's expansion. */
        if ((uint64_t)dst_len > pk_ratio_bound(src_len, 22))
            return PK_CORRUPT(err, "SNAPPY page of %zu bytes cannot decompress to the %zu bytes "
                              "it declares (the format expands at most 22:1)", src_len, dst_len);
        break;
    }
#ifdef PLANK_HAVE_ZSTD
    case PLANK_CODEC_ZSTD: {
        uint64_t total;
        bool known;
        PK_FORWARD(pk_zstd_declared(src, src_len, &total, &known, err));
        if (known && total != dst_len)
            return PK_CORRUPT(err, "ZSTD frames declare %llu bytes, page header says %zu",
                              (unsigned long long)total, dst_len);
        /* Frames that declare their sizes go in one shot into exactly
         * dst_len bytes. The sizes may lie together with the header; a
         * streaming decoder would allocate as much for its window buffer,
         * min(content size, window + 128 KiB), windows up to 128 MiB.
         * Without declared sizes, the output grows with what zstd really
         * produces. */
        if (!known) return pk_zstd_grow(d, src, src_len, dst_len, buf, err);
        break;
    }
#endif
#ifdef PLANK_HAVE_BROTLI
    case PLANK_CODEC_BROTLI: return pk_brotli(d, src, src_len, NULL, dst_len, buf, err);
#endif
    case PLANK_CODEC_GZIP:
    case PLANK_CODEC_LZ4:
    case PLANK_CODEC_LZ4_RAW: {
        uint64_t ratio = codec == PLANK_CODEC_GZIP ? 1032 : 256;
        if ((uint64_t)dst_len > pk_ratio_bound(src_len, ratio))
            return PK_CORRUPT(err, "%s page of %zu bytes cannot decompress to the %zu bytes the "
                              "header says (the format expands at most %llu:1)", name, src_len,
                              dst_len, (unsigned long long)ratio);
        break;
    }
    default: break;
    }
    PK_FORWARD(pk_buffer_resize(buf, dst_len, err));
    return pk_decompress_with(d, codec, src, src_len, buf->data, dst_len, err);
}

plank_status pk_decompress_buffer(plank_codec codec, const uint8_t *src, size_t src_len,
                                  size_t dst_len, pk_buffer *buf, const plank_allocator *alloc,
                                  plank_error *err) {
    pk_decompressor d;
    pk_decompressor_init(&d, alloc);
    plank_status st = pk_decompress_buffer_with(&d, codec, src, src_len, dst_len, buf, err);
    pk_decompressor_release(&d);
    return st;
}

/* ---- dispatch -------------------------------------------------------------------- */

plank_status pk_decompress_with(pk_decompressor *d, plank_codec codec, const uint8_t *src,
                                size_t src_len, uint8_t *dst, size_t dst_len, plank_error *err) {
    PK_RETURN_IF((src == NULL && src_len != 0) || (dst == NULL && dst_len != 0), err,
                 PLANK_ERR_INVALID_ARGUMENT, "pk_decompress: NULL buffer with a non-zero length");
    /* Libraries may do pointer arithmetic on their buffers even at length 0;
     * give them a real address so an empty page is never NULL + 0. */
    static const uint8_t empty_src[1] = {0};
    uint8_t empty_dst[1];
    if (src == NULL) src = empty_src;
    if (dst == NULL) dst = empty_dst;

    if (!plank_codec_available(codec)) return pk_codec_unsupported(codec, err);
    /* Nothing in, nothing out: consistent for every codec, and some writers
     * emit such pages without running the compressor (an empty DataPageV2
     * values section in SNAPPY would otherwise be an invalid stream). */
    if (src_len == 0 && dst_len == 0) return PLANK_OK;

    switch (codec) {
    case PLANK_CODEC_UNCOMPRESSED:
        if (src_len != dst_len) return pk_size_mismatch(err, "UNCOMPRESSED", src_len, dst_len);
        if (dst_len) memcpy(dst, src, dst_len);
        return PLANK_OK;
    case PLANK_CODEC_SNAPPY: return pk_snappy_decompress(src, src_len, dst, dst_len, err);
#ifdef PLANK_HAVE_LIBDEFLATE
    case PLANK_CODEC_GZIP: return pk_gzip(d, src, src_len, dst, dst_len, err);
#endif
#ifdef PLANK_HAVE_ZSTD
    case PLANK_CODEC_ZSTD: return pk_zstd(d, src, src_len, dst, dst_len, err);
#endif
#ifdef PLANK_HAVE_LZ4
    case PLANK_CODEC_LZ4_RAW: return pk_lz4_raw(src, src_len, dst, dst_len, err);
    case PLANK_CODEC_LZ4: return pk_lz4_legacy(d, src, src_len, dst, dst_len, err);
#endif
#ifdef PLANK_HAVE_BROTLI
    case PLANK_CODEC_BROTLI: return pk_brotli(d, src, src_len, dst, dst_len, NULL, err);
#endif
    default: break;
    }
    (void)d;
    return pk_codec_unsupported(codec, err);
}

plank_status pk_decompress(plank_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                           size_t dst_len, const plank_allocator *alloc, plank_error *err) {
    pk_decompressor d;
    pk_decompressor_init(&d, alloc);
    plank_status st = pk_decompress_with(&d, codec, src, src_len, dst, dst_len, err);
    pk_decompressor_release(&d);
    return st;
}
