/*
 * test_compress.c: pk_compress round trips through pk_decompress and
 * pk_decompress_buffer for every codec, size (0, 1, 100, 64 KiB, 1 MiB) and
 * data kind (noise, text, zeros) at the default level and both ends of each
 * codec's level range (the highest only up to 64 KiB); the bound holds; output is appended after what the
 * buffer held; the LZ4 Hadoop framing is checked block by block; levels out
 * of range and codecs not built are rejected. Also passes in a build with
 * every codec off (only UNCOMPRESSED works there).
 */
#include "codec/pk_codec.h"
#include "tharness.h"

#ifdef PLANK_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef PLANK_HAVE_LZ4
#include <lz4.h>
#endif

static uint64_t th_rng = 0x243F6A8885A308D3ull;
static uint32_t rnd(void) {
    th_rng ^= th_rng << 13;
    th_rng ^= th_rng >> 7;
    th_rng ^= th_rng << 17;
    return (uint32_t)(th_rng >> 32);
}

enum { KIND_NOISE, KIND_TEXT, KIND_ZEROS, NKINDS };
static const char *const kind_names[NKINDS] = {"noise", "text", "zeros"};

static uint8_t *make_data(size_t n, int kind) {
    uint8_t *p = malloc(n ? n : 1);
    static const char words[] = "plank writes parquet pages of column chunks in row groups ";
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case KIND_NOISE: p[i] = (uint8_t)rnd(); break;
        case KIND_TEXT:
            /* Words in a varying order, so there is something to model. */
            p[i] = (uint8_t)words[(i + (i / 61) * 7) % (sizeof words - 1)];
            if (rnd() % 50 == 0) p[i] = (uint8_t)('0' + rnd() % 10);
            break;
        default: p[i] = 0; break;
        }
    }
    return p;
}

static const plank_codec all_codecs[] = {
    PLANK_CODEC_UNCOMPRESSED, PLANK_CODEC_SNAPPY, PLANK_CODEC_GZIP, PLANK_CODEC_LZ4,
    PLANK_CODEC_ZSTD,         PLANK_CODEC_BROTLI, PLANK_CODEC_LZ4_RAW,
};
#define NCODECS (sizeof all_codecs / sizeof all_codecs[0])

/* The lowest and highest explicit level (0 = default is always valid);
 * min 0 when the codec has no levels. */
static void level_range(plank_codec c, int *lo, int *hi) {
    *lo = 1;
    switch (c) {
    case PLANK_CODEC_GZIP: *hi = 12; break;
    case PLANK_CODEC_ZSTD: *hi = 22; break;
    case PLANK_CODEC_BROTLI: *hi = 11; break;
    case PLANK_CODEC_LZ4:
    case PLANK_CODEC_LZ4_RAW: *hi = 12; break;
    default: *lo = *hi = 0; break;
    }
}

/* Compresses d[0..n) after a 5-byte prefix and checks the bound, the prefix,
 * and both decompression paths. */
static void round_trip(plank_codec c, int level, const uint8_t *d, size_t n, const char *what) {
    const char *name = plank_codec_name(c);
    th_alloc counting;
    plank_allocator a = th_alloc_init(&counting);
    pk_buffer out;
    pk_buffer_init(&out, &a);
    plank_error e;
    plank_error_init(&e);
    CHECK(pk_buffer_append(&out, "head:", 5, NULL) == PLANK_OK);
    plank_status st = pk_compress(c, level, d, n, &out, &e);
    CHECK_MSG(st == PLANK_OK, "%s level %d %s %zu: status %d: %s", name, level, what, n, (int)st,
              e.message);
    if (st != PLANK_OK) {
        pk_buffer_reset(&out);
        return;
    }
    CHECK(memcmp(out.data, "head:", 5) == 0);
    size_t cn = out.size - 5;
    size_t bound = pk_compress_bound(c, n);
    CHECK_MSG(cn <= bound, "%s level %d %s %zu: %zu bytes > bound %zu", name, level, what, n, cn,
              bound);
    if (c == PLANK_CODEC_UNCOMPRESSED) CHECK(cn == n);
    /* Zeros and text must actually shrink (a codec that only copies would
     * pass every other check). */
    if (c != PLANK_CODEC_UNCOMPRESSED && n >= 65536 && (what[0] == 'z' || what[0] == 't'))
        CHECK_MSG(cn < n / 2, "%s level %d %s %zu: only down to %zu", name, level, what, n, cn);

    /* Copy to an exactly sized block so ASan sees any over-read. */
    uint8_t *src = malloc(cn ? cn : 1);
    memcpy(src, out.data + 5, cn);
    uint8_t *dst = malloc(n ? n : 1);
    st = pk_decompress(c, src, cn, n ? dst : NULL, n, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "%s level %d %s %zu: decompress status %d: %s", name, level, what,
              n, (int)st, e.message);
    if (st == PLANK_OK && n) CHECK_MSG(memcmp(dst, d, n) == 0, "%s %s %zu differs", name, what, n);

    pk_buffer back;
    pk_buffer_init(&back, NULL);
    st = pk_decompress_buffer(c, src, cn, n, &back, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "%s level %d %s %zu: decompress_buffer status %d: %s", name, level,
              what, n, (int)st, e.message);
    if (st == PLANK_OK) {
        CHECK(back.size == n);
        if (n) CHECK(memcmp(back.data, d, n) == 0);
    }
    pk_buffer_reset(&back);
    free(dst);
    free(src);
    pk_buffer_reset(&out);
    CHECK_EQ_I64(counting.live_bytes, 0);
}

static void test_round_trips(void) {
    static const size_t sizes[] = {0, 1, 100, 65536, (size_t)1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int kind = 0; kind < NKINDS; kind++) {
            size_t n = sizes[s];
            uint8_t *d = make_data(n, kind);
            for (size_t k = 0; k < NCODECS; k++) {
                plank_codec c = all_codecs[k];
                if (!pk_compress_available(c)) continue;
                int lo, hi;
                level_range(c, &lo, &hi);
                round_trip(c, 0, d, n, kind_names[kind]);
                if (hi == 0) {
                    round_trip(c, 7, d, n, kind_names[kind]); /* ignored */
                    continue;
                }
                round_trip(c, lo, d, n, kind_names[kind]);
                /* The slowest levels (brotli 11, zstd 22) take seconds per
                 * MiB: up to 64 KiB only. */
                if (n < ((size_t)1 << 20))
                    round_trip(c, hi, d, n, kind_names[kind]);
                /* LZ4: the first HC level, where the compressor changes. */
                if (c == PLANK_CODEC_LZ4 || c == PLANK_CODEC_LZ4_RAW)
                    round_trip(c, 3, d, n, kind_names[kind]);
            }
            free(d);
        }
    }
}

static void test_levels_and_unsupported(void) {
    const uint8_t d[4] = {1, 2, 3, 4};
    for (size_t k = 0; k < NCODECS; k++) {
        plank_codec c = all_codecs[k];
        pk_buffer out;
        pk_buffer_init(&out, NULL);
        plank_error e;
        plank_error_init(&e);
        if (!pk_compress_available(c)) {
            CHECK_EQ_I64(pk_compress(c, 0, d, 4, &out, &e), PLANK_ERR_UNSUPPORTED);
            CHECK(strstr(e.message, plank_codec_name(c)) != NULL);
            CHECK_EQ_I64(pk_compress_bound(c, 100), 0);
            CHECK(out.size == 0);
            pk_buffer_reset(&out);
            continue;
        }
        CHECK(plank_codec_available(c));
        int lo, hi;
        level_range(c, &lo, &hi);
        if (hi) {
            CHECK_EQ_I64(pk_compress(c, -1, d, 4, &out, &e), PLANK_ERR_INVALID_ARGUMENT);
            CHECK_EQ_I64(pk_compress(c, hi + 1, d, 4, &out, &e), PLANK_ERR_INVALID_ARGUMENT);
            CHECK_EQ_I64(pk_compress(c, INT32_MAX, d, 4, &out, &e), PLANK_ERR_INVALID_ARGUMENT);
            CHECK(out.size == 0);
        }
        /* NULL source is fine with length 0, not otherwise. */
        CHECK_EQ_I64(pk_compress(c, 0, NULL, 1, &out, &e), PLANK_ERR_INVALID_ARGUMENT);
        CHECK_EQ_I64(pk_compress(c, 0, NULL, 0, &out, &e), PLANK_OK);
        CHECK(pk_compress_bound(c, 0) >= out.size);
        pk_buffer_reset(&out);
        /* The bound grows with the input and is at least the input for the
         * incompressible case. */
        CHECK(pk_compress_bound(c, 1000) >= 1000);
        CHECK(pk_compress_bound(c, 100000) >= pk_compress_bound(c, 1000));
    }
    /* LZO and unknown codecs are never available. */
    pk_buffer out;
    pk_buffer_init(&out, NULL);
    plank_error e;
    plank_error_init(&e);
    CHECK(!pk_compress_available(PLANK_CODEC_LZO));
    CHECK_EQ_I64(pk_compress(PLANK_CODEC_LZO, 0, d, 4, &out, &e), PLANK_ERR_UNSUPPORTED);
    CHECK(strstr(e.message, "LZO") != NULL);
    CHECK(!pk_compress_available((plank_codec)99));
    CHECK_EQ_I64(pk_compress((plank_codec)99, 0, d, 4, &out, &e), PLANK_ERR_UNSUPPORTED);
    CHECK_EQ_I64(pk_compress((plank_codec)-1, 0, d, 4, &out, &e), PLANK_ERR_UNSUPPORTED);
    CHECK_EQ_I64(pk_compress_bound((plank_codec)99, 4), 0);
    CHECK(out.size == 0);
    CHECK_EQ_I64(pk_compress(PLANK_CODEC_UNCOMPRESSED, 0, d, 4, NULL, &e),
                 PLANK_ERR_INVALID_ARGUMENT);
    pk_buffer_reset(&out);
}

/* The LZ4 codec's output, parsed as Hadoop framing by hand: blocks of at
 * most 256 KiB (minus LZ4's worst-case overhead), each one LZ4 block whose
 * compressed form also fits 256 KiB. */
#ifdef PLANK_HAVE_LZ4
static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
#endif

static void test_lz4_hadoop_framing(void) {
#ifdef PLANK_HAVE_LZ4
    static const size_t sizes[] = {0, 1, 261099, 261100, 261101, (size_t)1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        uint8_t *d = make_data(n, s % 2 ? KIND_NOISE : KIND_TEXT);
        pk_buffer out;
        pk_buffer_init(&out, NULL);
        CHECK(pk_compress(PLANK_CODEC_LZ4, 0, d, n, &out, NULL) == PLANK_OK);
        uint8_t *back = malloc(n ? n : 1);
        size_t in = 0, got = 0, blocks = 0;
        bool ok = true;
        while (ok && in < out.size) {
            ok = out.size - in >= 8;
            if (!ok) break;
            uint32_t ulen = be32(out.data + in), clen = be32(out.data + in + 4);
            in += 8;
            ok = clen <= out.size - in && ulen <= n - got && ulen <= 261100 &&
                 clen <= 256 * 1024;
            if (!ok) break;
            int r = LZ4_decompress_safe((const char *)out.data + in, (char *)back + got,
                                        (int)clen, (int)ulen);
            ok = r == (int)ulen;
            in += clen;
            got += ulen;
            blocks++;
        }
        CHECK_MSG(ok && in == out.size && got == n, "LZ4 framing of %zu bytes", n);
        CHECK(n == 0 || memcmp(back, d, n) == 0);
        CHECK_EQ_I64(blocks, n == 0 ? 1 : (n + 261099) / 261100);
        free(back);
        pk_buffer_reset(&out);
        free(d);
    }
#endif
}

/* What other readers rely on: gzip magic, zstd's content size, snappy's
 * preamble is handled by pk_decompress already. */
static void test_stream_headers(void) {
    uint8_t *d = make_data(5000, KIND_TEXT);
    pk_buffer out;
    pk_buffer_init(&out, NULL);
    if (pk_compress_available(PLANK_CODEC_GZIP)) {
        CHECK(pk_compress(PLANK_CODEC_GZIP, 0, d, 5000, &out, NULL) == PLANK_OK);
        CHECK(out.size > 18 && out.data[0] == 0x1f && out.data[1] == 0x8b);
        /* ISIZE trailer: the input length mod 2^32, little-endian. */
        CHECK(pk_load_u32(out.data + out.size - 4) == 5000);
        out.size = 0;
    }
#ifdef PLANK_HAVE_ZSTD
    CHECK(pk_compress(PLANK_CODEC_ZSTD, 0, d, 5000, &out, NULL) == PLANK_OK);
    CHECK(ZSTD_getFrameContentSize(out.data, out.size) == 5000);
    out.size = 0;
#endif
    pk_buffer_reset(&out);
    free(d);
}

/* Level 0 is each codec's documented default (plank.h, codec_level): ZSTD
 * 1, checked against libzstd's own one-shot output at level 1 (and unlike
 * its own default, 3), GZIP 6 and BROTLI 8 against the explicit levels. */
static void test_default_levels(void) {
    size_t n = 200000;
    uint8_t *d = make_data(n, KIND_TEXT);
    pk_buffer a, b;
    pk_buffer_init(&a, NULL);
    pk_buffer_init(&b, NULL);
#ifdef PLANK_HAVE_ZSTD
    CHECK(pk_compress(PLANK_CODEC_ZSTD, 0, d, n, &a, NULL) == PLANK_OK);
    size_t cap = ZSTD_compressBound(n);
    uint8_t *ref = malloc(cap), *ref3 = malloc(cap);
    size_t r1 = ZSTD_compress(ref, cap, d, n, 1), r3 = ZSTD_compress(ref3, cap, d, n, 3);
    CHECK(!ZSTD_isError(r1) && !ZSTD_isError(r3));
    CHECK_MSG(a.size == r1 && memcmp(a.data, ref, r1) == 0,
              "ZSTD level 0: %zu bytes, libzstd at level 1: %zu", a.size, r1);
    CHECK(r3 != r1 || memcmp(ref3, ref, r1) != 0); /* the data tells the levels apart */
    free(ref);
    free(ref3);
    a.size = 0;
#endif
    static const struct {
        plank_codec c;
        int level;
    } dflt[] = {{PLANK_CODEC_GZIP, 6}, {PLANK_CODEC_BROTLI, 8}};
    for (size_t k = 0; k < sizeof dflt / sizeof dflt[0]; k++) {
        if (!pk_compress_available(dflt[k].c)) continue;
        CHECK(pk_compress(dflt[k].c, 0, d, n, &a, NULL) == PLANK_OK);
        CHECK(pk_compress(dflt[k].c, dflt[k].level, d, n, &b, NULL) == PLANK_OK);
        CHECK_MSG(a.size == b.size && memcmp(a.data, b.data, a.size) == 0,
                  "%s level 0 differs from level %d", plank_codec_name(dflt[k].c),
                  dflt[k].level);
        a.size = b.size = 0;
    }
    pk_buffer_reset(&a);
    pk_buffer_reset(&b);
    free(d);
}

int main(void) {
    test_levels_and_unsupported();
    test_default_levels();
    test_stream_headers();
    test_lz4_hadoop_framing();
    test_round_trips();
    TEST_END();
}
