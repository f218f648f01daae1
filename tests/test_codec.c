/*
 * test_codec.c: pk_decompress against each library's own compressor, against
 * hand-built streams (Hadoop LZ4 framing, brotli uncompressed meta-blocks,
 * zstd/snappy headers claiming huge sizes), against real pages of the
 * parquet-testing LZ4 files, and against hostile input (wrong sizes,
 * truncation, garbage). Every output buffer is allocated with exactly the
 * expected size so that ASan catches any write past dst_len.
 */
#include "codec/pk_codec.h"
#include "tharness.h"

#ifdef PLANK_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef PLANK_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef PLANK_HAVE_LZ4
#include <lz4.h>
#include <lz4frame.h>
#endif
#ifdef PLANK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef PLANK_HAVE_BROTLI
/* PLANK_WITH_BROTLI links the encoder library too (the writer uses it). */
#include <brotli/encode.h>
#endif

/* ---- helpers ------------------------------------------------------------------ */

/* A build with some codecs turned off leaves some helpers unused. */
#if defined(__GNUC__)
#define TH_MAYBE_UNUSED __attribute__((unused))
#else
#define TH_MAYBE_UNUSED
#endif

static uint64_t th_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    th_rng ^= th_rng << 13;
    th_rng ^= th_rng >> 7;
    th_rng ^= th_rng << 17;
    return (uint32_t)(th_rng >> 32);
}

/* Half compressible text-like data, half noise, so codecs emit both literals
 * and matches. */
TH_MAYBE_UNUSED static uint8_t *make_data(size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    static const char words[] = "parquet page column chunk row group dictionary ";
    for (size_t i = 0; i < n; i++)
        p[i] = (i / 512) % 2 ? (uint8_t)rnd() : (uint8_t)words[i % (sizeof words - 1)];
    return p;
}

/* Decompresses into a buffer of exactly want_n bytes; checks OK and content. */
static void expect_ok(plank_codec c, const uint8_t *src, size_t src_n, const uint8_t *want,
                      size_t want_n, const char *what) {
    uint8_t *dst = malloc(want_n ? want_n : 1);
    plank_error e;
    plank_error_init(&e);
    plank_status st = pk_decompress(c, src, src_n, want_n ? dst : NULL, want_n, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "%s (%s, %zu -> %zu): status %d: %s", what, plank_codec_name(c),
              src_n, want_n, (int)st, e.message);
    if (st == PLANK_OK && want_n)
        CHECK_MSG(memcmp(dst, want, want_n) == 0, "%s: output differs", what);
    free(dst);
}

/* Must fail with `code` and a message; dst is exactly dst_n bytes. */
static void expect_fail(plank_codec c, const uint8_t *src, size_t src_n, size_t dst_n,
                        plank_status code, const char *what) {
    uint8_t *dst = malloc(dst_n ? dst_n : 1);
    plank_error e;
    plank_error_init(&e);
    plank_status st = pk_decompress(c, src, src_n, dst_n ? dst : NULL, dst_n, NULL, &e);
    CHECK_MSG(st == code, "%s (%s, %zu -> %zu): status %d, want %d (%s)", what,
              plank_codec_name(c), src_n, dst_n, (int)st, (int)code, e.message);
    CHECK_MSG(st == PLANK_OK || e.message[0] != '\0', "%s: no message", what);
    free(dst);
}

/* The standard battery for a valid compressed page `comp` of `data`:
 * round trip, dst one byte short / long, truncations, garbage. */
TH_MAYBE_UNUSED static void battery(plank_codec c, const uint8_t *comp, size_t comp_n, const uint8_t *data,
                    size_t n, const char *what) {
    expect_ok(c, comp, comp_n, data, n, what);
    if (n > 0) expect_fail(c, comp, comp_n, n - 1, PLANK_ERR_CORRUPT, "dst one too small");
    expect_fail(c, comp, comp_n, n + 1, PLANK_ERR_CORRUPT, "dst one too large");
    size_t cuts[] = {0, 1, 2, 5, comp_n / 2, comp_n - 2, comp_n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        if (cuts[i] >= comp_n) continue;
        /* A copy of exactly the truncated length, so ASan sees over-reads. */
        uint8_t *t = malloc(cuts[i] ? cuts[i] : 1);
        memcpy(t, comp, cuts[i]);
        expect_fail(c, cuts[i] ? t : NULL, cuts[i], n, PLANK_ERR_CORRUPT, "truncated");
        free(t);
    }
    uint8_t *g = malloc(comp_n + 1);
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < comp_n + 1; i++) g[i] = (uint8_t)rnd();
        expect_fail(c, g, comp_n + 1, n, PLANK_ERR_CORRUPT, "garbage");
    }
    free(g);
}

TH_MAYBE_UNUSED static const size_t sizes[] = {1, 100, 4096, 70001, 300000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

TH_MAYBE_UNUSED static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* ---- UNCOMPRESSED, LZO, unknown -------------------------------------------- */

static void test_uncompressed_and_unsupported(void) {
    const uint8_t d[5] = {1, 2, 3, 4, 5};
    expect_ok(PLANK_CODEC_UNCOMPRESSED, d, 5, d, 5, "uncompressed");
    expect_ok(PLANK_CODEC_UNCOMPRESSED, NULL, 0, NULL, 0, "uncompressed empty");
    expect_fail(PLANK_CODEC_UNCOMPRESSED, d, 5, 4, PLANK_ERR_CORRUPT, "uncompressed short");
    expect_fail(PLANK_CODEC_UNCOMPRESSED, d, 4, 5, PLANK_ERR_CORRUPT, "uncompressed long");
    CHECK(plank_codec_available(PLANK_CODEC_UNCOMPRESSED));

    plank_error e;
    plank_error_init(&e);
    uint8_t out[5];
    CHECK_EQ_I64(pk_decompress(PLANK_CODEC_LZO, d, 5, out, 5, NULL, &e), PLANK_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(e.message, "LZO") != NULL, "message: %s", e.message);
    CHECK(!plank_codec_available(PLANK_CODEC_LZO));
    plank_error_init(&e);
    CHECK_EQ_I64(pk_decompress((plank_codec)42, d, 5, out, 5, NULL, &e), PLANK_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(e.message, "42") != NULL, "message: %s", e.message);
    CHECK(!plank_codec_available((plank_codec)42));
    /* SNAPPY is plank's own both ways, in every build. */
    CHECK(plank_codec_available(PLANK_CODEC_SNAPPY));
    CHECK(plank_codec_writable(PLANK_CODEC_SNAPPY));
    CHECK(plank_codec_writable(PLANK_CODEC_UNCOMPRESSED));
    CHECK(!plank_codec_writable(PLANK_CODEC_LZO));
    for (int c = 0; c <= PLANK_CODEC_LZ4_RAW; c++)
        if (plank_codec_writable((plank_codec)c)) CHECK(plank_codec_available((plank_codec)c));
    CHECK_EQ_I64(pk_decompress(PLANK_CODEC_GZIP, NULL, 3, out, 5, NULL, NULL),
                 PLANK_ERR_INVALID_ARGUMENT);

    /* An empty page is empty in every codec this build has. */
    for (int c = 0; c <= PLANK_CODEC_LZ4_RAW; c++)
        if (plank_codec_available((plank_codec)c))
            expect_ok((plank_codec)c, NULL, 0, NULL, 0, "empty page");

    /* Whatever this build lacks reports so, naming the codec twice. */
    const plank_codec all[] = {PLANK_CODEC_SNAPPY, PLANK_CODEC_GZIP, PLANK_CODEC_BROTLI,
                               PLANK_CODEC_LZ4, PLANK_CODEC_ZSTD, PLANK_CODEC_LZ4_RAW};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (plank_codec_available(all[i])) continue;
        plank_error_init(&e);
        CHECK_EQ_I64(pk_decompress(all[i], d, 5, out, 5, NULL, &e), PLANK_ERR_UNSUPPORTED);
        char want[128];
        snprintf(want, sizeof want, "page compressed with %s but this build of plank has no %s "
                 "support", plank_codec_name(all[i]), plank_codec_name(all[i]));
        CHECK_MSG(strcmp(e.message, want) == 0, "message: %s", e.message);
    }
}

/* ---- SNAPPY ------------------------------------------------------------------ */

static void test_snappy(void) {
#ifdef PLANK_HAVE_SNAPPY
    CHECK(plank_codec_available(PLANK_CODEC_SNAPPY));
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        uint8_t *d = make_data(n);
        size_t cn = snappy_max_compressed_length(n);
        uint8_t *c = malloc(cn);
        CHECK(snappy_compress((const char *)d, n, (char *)c, &cn) == SNAPPY_OK);
        battery(PLANK_CODEC_SNAPPY, c, cn, d, n, "snappy");
        free(c);
        free(d);
    }
    /* Hand-built: varint length 5, one literal tag (len-1)<<2, "hello". */
    const uint8_t lit[] = {5, 4 << 2, 'h', 'e', 'l', 'l', 'o'};
    expect_ok(PLANK_CODEC_SNAPPY, lit, sizeof lit, (const uint8_t *)"hello", 5, "snappy literal");
    /* Preamble claiming 2^32-1 bytes. */
    const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0, 'x'};
    expect_fail(PLANK_CODEC_SNAPPY, huge, sizeof huge, 1, PLANK_ERR_CORRUPT, "snappy huge");
#endif
}

/* SNAPPY blocks built by hand, decoded in every build (no libsnappy
 * needed): elements libsnappy never writes (copies with 4-byte offsets,
 * literals with 1- to 4-byte lengths) and malformed ones. */
static void test_snappy_handbuilt(void) {
    const uint8_t lit5[] = {5, 4 << 2, 'h', 'e', 'l', 'l', 'o'};
    expect_ok(PLANK_CODEC_SNAPPY, lit5, sizeof lit5, (const uint8_t *)"hello", 5,
              "snappy literal");
    uint8_t *d = malloc(1000);
    /* 80 bytes: 16 literal bytes, a copy with a 4-byte offset of 16 (len 64). */
    uint8_t b[64];
    size_t bn = 0;
    b[bn++] = 80;
    b[bn++] = 15 << 2;
    for (int i = 0; i < 16; i++) b[bn++] = (uint8_t)('a' + i);
    b[bn++] = (uint8_t)((63 << 2) | 3);
    b[bn++] = 16;
    b[bn++] = 0;
    b[bn++] = 0;
    b[bn++] = 0;
    uint8_t want[80];
    for (int i = 0; i < 80; i++) want[i] = (uint8_t)('a' + i % 16);
    expect_ok(PLANK_CODEC_SNAPPY, b, bn, want, 80, "snappy copy-4");
    b[bn - 4] = 81; /* the offset reaches before the output */
    expect_fail(PLANK_CODEC_SNAPPY, b, bn, 80, PLANK_ERR_CORRUPT, "snappy copy-4 before start");
    /* Literals whose length-1 takes 1, 2, 3 and 4 bytes (tags 60..63). */
    for (int nb = 1; nb <= 4; nb++) {
        size_t n = 61 + (size_t)nb * 97;
        uint8_t *lit = malloc(n + 16);
        size_t ln = 0;
        lit[ln++] = (uint8_t)(0x80 | (n & 0x7f));
        lit[ln++] = (uint8_t)(n >> 7);
        lit[ln++] = (uint8_t)((59 + nb) << 2);
        for (int i = 0; i < nb; i++) lit[ln++] = (uint8_t)(((n - 1) >> (8 * i)) & 0xff);
        for (size_t i = 0; i < n; i++) lit[ln + i] = (uint8_t)rnd();
        memcpy(d, lit + ln, n);
        ln += n;
        expect_ok(PLANK_CODEC_SNAPPY, lit, ln, d, n, "snappy long literal");
        expect_fail(PLANK_CODEC_SNAPPY, lit, ln - 1, n, PLANK_ERR_CORRUPT, "snappy literal cut");
        free(lit);
    }
    /* An offset of 0, and a 5-byte preamble with its continuation bit set. */
    const uint8_t zero_off[] = {8, 0, 'x', 1 << 2 | 1, 0};
    expect_fail(PLANK_CODEC_SNAPPY, zero_off, sizeof zero_off, 8, PLANK_ERR_CORRUPT, "offset 0");
    const uint8_t long_pre[] = {0x81, 0x80, 0x80, 0x80, 0x80, 0};
    expect_fail(PLANK_CODEC_SNAPPY, long_pre, sizeof long_pre, 1, PLANK_ERR_CORRUPT,
                "preamble of six bytes");
    /* a repeated pattern (offset 3), then the same copy reaching one byte
     * before the output */
    const uint8_t pat[] = {9, 2 << 2, 'x', 'y', 'z', (2 << 2) | 1, 3};
    expect_ok(PLANK_CODEC_SNAPPY, pat, sizeof pat, (const uint8_t *)"xyzxyzxyz", 9,
              "snappy pattern");
    const uint8_t before[] = {9, 2 << 2, 'x', 'y', 'z', (2 << 2) | 1, 4};
    expect_fail(PLANK_CODEC_SNAPPY, before, sizeof before, 9, PLANK_ERR_CORRUPT,
                "snappy copy before start");
    free(d);
}

/* Data of one of several shapes, n bytes: text, noise, a pattern of period
 * 1..19 (copies whose offsets are below 16), 8-byte integers that change in
 * their low bytes (short literals between short copies), and stretches of
 * each in turn. */
static void snappy_shape(uint8_t *p, size_t n, int shape) {
    static const char words[] = "carefully final deposits sleep furiously among the ";
    uint32_t period = 1 + rnd() % 19;
    for (size_t i = 0; i < n; i++) {
        int sh = shape == 4 ? (int)((i / 300) % 4) : shape;
        if (sh == 0) p[i] = (uint8_t)words[(i * 7 / 5 + i / 97) % (sizeof words - 1)];
        else if (sh == 1) p[i] = (uint8_t)rnd();
        else if (sh == 2) p[i] = i < period ? (uint8_t)rnd() : p[i - period];
        else p[i] = (uint8_t)((i % 8) < 2 ? rnd() : (i % 8) == 2 ? (i / 4096) : 0);
    }
}

#ifdef PLANK_HAVE_SNAPPY
/* plank's decoder against libsnappy's on one block: both accept it or both
 * refuse it, and an accepted block gives the same bytes. dst is exactly the
 * declared length (so ASan sees any write past it). */
static void snappy_differential(const uint8_t *c, size_t cn, const char *what) {
    if (cn == 0) return; /* pk_decompress takes no bytes for no bytes (an empty page) */
    size_t declared = 0;
    bool lib_len = snappy_uncompressed_length((const char *)c, cn, &declared) == SNAPPY_OK;
    if (lib_len && declared > (1u << 22)) return; /* a mutated preamble: both bound it */
    uint8_t *want = malloc(declared + 1), *got = malloc(declared + 1);
    size_t wn = declared;
    bool lib_ok = lib_len && snappy_uncompress((const char *)c, cn, (char *)want, &wn) == SNAPPY_OK &&
                  wn == declared;
    plank_error e;
    plank_error_init(&e);
    plank_status st = pk_decompress(PLANK_CODEC_SNAPPY, c, cn, got, declared, NULL, &e);
    CHECK_MSG((st == PLANK_OK) == lib_ok, "%s (%zu bytes): plank %d (%s), libsnappy %s", what, cn,
              (int)st, e.message, lib_ok ? "accepts" : "refuses");
    if (st == PLANK_OK && lib_ok)
        CHECK_MSG(memcmp(got, want, declared) == 0, "%s: bytes differ from libsnappy's", what);
    if (st != PLANK_OK) CHECK_MSG(st == PLANK_ERR_CORRUPT && e.message[0], "%s: status %d", what,
                                  (int)st);
    free(want);
    free(got);
}

/* plank's SNAPPY decoder (pk_snappy.c): blocks libsnappy compressed from
 * every length 0..300 and longer ones, in each shape, decoded exactly;
 * hand-built elements libsnappy never writes (copies with 4-byte offsets,
 * literals with 3- and 4-byte lengths, an offset reaching before the
 * output); and random mutations of small blocks, where plank must accept
 * exactly what libsnappy accepts. */
static void test_snappy_decoder(void) {
    static const size_t longer[] = {1000, 4095, 4096, 4097, 65535, 65536, 65537, 200003};
    uint8_t *d = malloc(200003), *c = malloc(snappy_max_compressed_length(200003));
    for (int shape = 0; shape < 5; shape++) {
        for (size_t k = 0; k < 301 + sizeof longer / sizeof longer[0]; k++) {
            size_t n = k < 301 ? k : longer[k - 301];
            snappy_shape(d, n, shape);
            size_t cn = snappy_max_compressed_length(n);
            CHECK(snappy_compress((const char *)d, n, (char *)c, &cn) == SNAPPY_OK);
            /* a copy of exactly cn bytes, so ASan sees any read past it */
            uint8_t *exact = malloc(cn);
            memcpy(exact, c, cn);
            expect_ok(PLANK_CODEC_SNAPPY, exact, cn, d, n, "snappy shapes");
            if (n <= 300 && k % 7 == 0) {
                uint8_t *m = malloc(cn);
                for (int round = 0; round < 60; round++) {
                    memcpy(m, c, cn);
                    size_t mn = cn;
                    int what = (int)(rnd() % 4);
                    if (what == 0) m[rnd() % cn] ^= (uint8_t)(1u << (rnd() % 8));
                    else if (what == 1) m[rnd() % cn] = (uint8_t)rnd();
                    else if (what == 2) mn = rnd() % cn;
                    else m[cn > 1 ? 1 + rnd() % (cn - 1) : 0] = (uint8_t)(rnd() | 3); /* a copy tag */
                    uint8_t *t = malloc(mn ? mn : 1);
                    memcpy(t, m, mn);
                    snappy_differential(t, mn, "snappy mutation");
                    free(t);
                }
                free(m);
            }
            free(exact);
        }
    }
    free(d);
    free(c);
}
#endif

/* An exact SNAPPY decoder written for the test (the format description's
 * rules, one element at a time, every bound checked): the independent
 * reference for plank's compressor in builds without libsnappy. False on
 * any malformed element or a length other than n. */
static bool ref_unsnappy(const uint8_t *c, size_t cn, uint8_t *out, size_t n) {
    size_t i = 0, o = 0, len = 0;
    for (int shift = 0;; shift += 7) {
        if (i >= cn || shift > 28) return false;
        len |= (size_t)(c[i] & 0x7f) << shift;
        if (!(c[i++] & 0x80)) break;
    }
    if (len != n) return false;
    while (i < cn) {
        uint8_t tag = c[i++];
        size_t l, off;
        if ((tag & 3) == 0) {
            l = (size_t)(tag >> 2) + 1;
            if (l > 60) {
                size_t nb = l - 60;
                if (cn - i < nb) return false;
                l = 0;
                for (size_t k = 0; k < nb; k++) l |= (size_t)c[i + k] << (8 * k);
                l += 1;
                i += nb;
            }
            if (cn - i < l || n - o < l) return false;
            memcpy(out + o, c + i, l);
            i += l;
            o += l;
            continue;
        }
        if ((tag & 3) == 1) {
            if (cn - i < 1) return false;
            l = 4 + ((tag >> 2) & 7);
            off = ((size_t)(tag >> 5) << 8) | c[i++];
        } else {
            size_t nb = (tag & 3) == 2 ? 2 : 4;
            if (cn - i < nb) return false;
            l = (size_t)(tag >> 2) + 1;
            off = 0;
            for (size_t k = 0; k < nb; k++) off |= (size_t)c[i + k] << (8 * k);
            i += nb;
        }
        if (off == 0 || off > o || n - o < l) return false;
        for (size_t k = 0; k < l; k++, o++) out[o] = out[o - off];
    }
    return o == n;
}

/* plank's SNAPPY compressor on n bytes at d (any alignment): within the
 * bound; decoded exactly by the test's reference decoder, by plank's
 * decoder and, with libsnappy, by libsnappy; and no larger than libsnappy's
 * own compression by more than 1% and 8 bytes (it finds the matches).
 * Returns the size. */
static size_t snappy_encode_check(const uint8_t *data, size_t n, uint16_t *table,
                                  const char *what) {
    /* the input ends where its allocation does (so ASan sees a read past
     * it), from the same alignment as the caller's */
    size_t lead = (uintptr_t)data % 16;
    uint8_t *alloc_in = malloc(lead + n ? lead + n : 1), *d = alloc_in + lead;
    if (n) memcpy(d, data, n);
    size_t cap = pk_snappy_bound(n), cn = 0;
    CHECK(cap >= n);
    uint8_t *c = malloc(cap), *back = malloc(n ? n : 1);
    plank_error e;
    plank_error_init(&e);
    CHECK_MSG(pk_snappy_compress(d, n, c, cap, &cn, table, &e) == PLANK_OK, "%s %zu: %s", what,
              n, e.message);
    CHECK_MSG(cn <= cap, "%s %zu: %zu bytes past the bound %zu", what, n, cn, cap);
    uint8_t *exact = malloc(cn ? cn : 1);
    memcpy(exact, c, cn);
    memset(back, 0xa5, n);
    CHECK_MSG(ref_unsnappy(exact, cn, back, n) && (n == 0 || memcmp(back, d, n) == 0),
              "%s %zu: the reference decoder disagrees", what, n);
    expect_ok(PLANK_CODEC_SNAPPY, exact, cn, d, n, what);
#ifdef PLANK_HAVE_SNAPPY
    size_t bn = n;
    CHECK_MSG(snappy_uncompress((const char *)exact, cn, (char *)back, &bn) == SNAPPY_OK &&
                  bn == n && (n == 0 || memcmp(back, d, n) == 0),
              "%s %zu: libsnappy does not decode it", what, n);
    size_t ln = snappy_max_compressed_length(n);
    uint8_t *lib = malloc(ln);
    CHECK(snappy_compress((const char *)d, n, (char *)lib, &ln) == SNAPPY_OK);
    CHECK_MSG(cn <= ln + ln / 100 + 8, "%s %zu: %zu bytes, libsnappy %zu", what, n, cn, ln);
    free(lib);
#endif
    free(exact);
    free(back);
    free(c);
    free(alloc_in);
    return cn;
}

/* plank's SNAPPY compressor (pk_snappy.c), in every build: each shape of
 * snappy_shape at every length 0..300 and at the fragment boundaries (64
 * KiB), from unaligned starts; runs of every length 1..200 (copies of 64
 * bytes and the 60-byte split before a short rest); literals of 59..62 and
 * 255..258 bytes (the length's extra bytes); one table kept across every
 * call, as a writer column keeps it; and what must shrink does. */
static void test_snappy_encoder(void) {
    static const size_t longer[] = {1000,  4095,  4096,  4097,   65535,
                                    65536, 65537, 131089, 200003};
    uint16_t *table = malloc(PK_SNAPPY_TABLE * sizeof *table);
    uint8_t *buf = malloc(200003 + 8);
    for (int shape = 0; shape < 5; shape++) {
        for (size_t k = 0; k < 301 + sizeof longer / sizeof longer[0]; k++) {
            size_t n = k < 301 ? k : longer[k - 301];
            uint8_t *d = buf + k % 8;
            snappy_shape(d, n, shape);
            size_t cn = snappy_encode_check(d, n, table, "snappy encode");
            /* text and patterns shrink (a copying encoder passes the rest) */
            if (n >= 4096 && (shape == 0 || shape == 2))
                CHECK_MSG(cn < n / 4, "shape %d, %zu bytes: only down to %zu", shape, n, cn);
        }
    }
    /* A distinct prefix, then a run of r equal bytes, then noise. */
    for (size_t r = 1; r <= 200; r++) {
        size_t n = 0;
        for (int i = 0; i < 20; i++) buf[n++] = (uint8_t)(i * 37 + 1);
        memset(buf + n, 'r', r);
        n += r;
        for (int i = 0; i < 20; i++) buf[n++] = (uint8_t)rnd();
        snappy_encode_check(buf, n, table, "snappy run");
    }
    /* Copies at offsets above 2047 (the 3-byte form): 3000 bytes of noise
     * repeated. (After a long miss the stride is long, as in libsnappy, so
     * a repeat is found some way into it, and then copied whole.) */
    for (size_t i = 0; i < 60000; i++) buf[i] = i < 3000 ? (uint8_t)rnd() : buf[i - 3000];
    size_t cn = snappy_encode_check(buf, 60000, table, "snappy far copy");
    CHECK_MSG(cn < 12000, "far copy: %zu bytes", cn);
    static const size_t lits[] = {59, 60, 61, 62, 255, 256, 257, 258};
    for (size_t k = 0; k < sizeof lits / sizeof lits[0]; k++) {
        for (size_t i = 0; i < lits[k]; i++) buf[i] = (uint8_t)rnd();
        snappy_encode_check(buf, lits[k], table, "snappy literal");
    }
    /* Through pk_compress: the context's table is allocated once, with the
     * output buffer's allocator, and freed with the context. */
    th_alloc counting;
    plank_allocator a = th_alloc_init(&counting);
    pk_compressor z;
    pk_compressor_init(&z);
    for (int round = 0; round < 3; round++) {
        pk_buffer out;
        pk_buffer_init(&out, &a);
        snappy_shape(buf, 100000, round);
        plank_error e;
        plank_error_init(&e);
        CHECK(pk_compress_with(&z, PLANK_CODEC_SNAPPY, 0, buf, 100000, &out, &e) == PLANK_OK);
        expect_ok(PLANK_CODEC_SNAPPY, out.data, out.size, buf, 100000, "snappy context");
        pk_buffer_reset(&out);
    }
    CHECK(counting.live_bytes > 0); /* the table, kept */
    pk_compressor_release(&z);
    CHECK_EQ_I64(counting.live_bytes, 0);
    /* Above 2^32 - 1 bytes the preamble cannot state the length. */
    CHECK_EQ_I64(pk_snappy_bound((size_t)UINT32_MAX + 1), 0);
    plank_error e;
    plank_error_init(&e);
    size_t got = 0;
    uint8_t small[8];
    CHECK_EQ_I64(pk_snappy_compress(buf, 100, small, sizeof small, &got, table, &e),
                 PLANK_ERR_INVALID_ARGUMENT);
    free(buf);
    free(table);
}

/* ---- GZIP -------------------------------------------------------------------- */

#ifdef PLANK_HAVE_LIBDEFLATE
/* Appends `parts` separately compressed members (gzip or zlib) of d. */
static size_t deflate_members(struct libdeflate_compressor *z, const uint8_t *d, size_t n,
                              int parts, bool zlib, uint8_t *out, size_t cap) {
    size_t pos = 0, done = 0;
    for (int i = 0; i < parts; i++) {
        size_t len = i == parts - 1 ? n - done : n / (size_t)parts;
        size_t w = zlib ? libdeflate_zlib_compress(z, d + done, len, out + pos, cap - pos)
                        : libdeflate_gzip_compress(z, d + done, len, out + pos, cap - pos);
        CHECK(w > 0);
        pos += w;
        done += len;
    }
    return pos;
}
#endif

static void test_gzip(void) {
#ifdef PLANK_HAVE_LIBDEFLATE
    CHECK(plank_codec_available(PLANK_CODEC_GZIP));
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(6);
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        uint8_t *d = make_data(n);
        size_t cap = libdeflate_gzip_compress_bound(z, n) * 3 + 64;
        uint8_t *c = malloc(cap);
        for (int parts = 1; parts <= 3; parts++) {
            size_t cn = deflate_members(z, d, n, parts, false, c, cap);
            battery(PLANK_CODEC_GZIP, c, cn, d, n, parts == 1 ? "gzip" : "gzip members");
            cn = deflate_members(z, d, n, parts, true, c, cap);
            battery(PLANK_CODEC_GZIP, c, cn, d, n, parts == 1 ? "zlib" : "zlib streams");
        }
        /* A valid member followed by trailing garbage is rejected. */
        size_t cn = deflate_members(z, d, n, 1, false, c, cap);
        c[cn] = 0x00;
        c[cn + 1] = 0x42;
        expect_fail(PLANK_CODEC_GZIP, c, cn + 2, n, PLANK_ERR_CORRUPT, "gzip trailing garbage");
        free(c);
        free(d);
    }
    /* An empty member between two others contributes nothing. */
    uint8_t buf[256];
    size_t a = libdeflate_gzip_compress(z, "abc", 3, buf, sizeof buf);
    size_t b = libdeflate_gzip_compress(z, "", 0, buf + a, sizeof buf - a);
    size_t c3 = libdeflate_gzip_compress(z, "def", 3, buf + a + b, sizeof buf - a - b);
    expect_ok(PLANK_CODEC_GZIP, buf, a + b + c3, (const uint8_t *)"abcdef", 6, "gzip empty member");
    expect_ok(PLANK_CODEC_GZIP, buf + a, b, NULL, 0, "gzip empty page");
    /* Raw deflate is not accepted (see pk_codec.c). */
    size_t r = libdeflate_deflate_compress(z, "abcdef", 6, buf, sizeof buf);
    expect_fail(PLANK_CODEC_GZIP, buf, r, 6, PLANK_ERR_CORRUPT, "raw deflate");
    libdeflate_free_compressor(z);
#endif
}

/* ---- ZSTD -------------------------------------------------------------------- */

static void test_zstd(void) {
#ifdef PLANK_HAVE_ZSTD
    CHECK(plank_codec_available(PLANK_CODEC_ZSTD));
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        uint8_t *d = make_data(n);
        size_t cap = ZSTD_compressBound(n) * 2;
        uint8_t *c = malloc(cap);
        size_t cn = ZSTD_compress(c, cap, d, n, 3);
        CHECK(!ZSTD_isError(cn));
        battery(PLANK_CODEC_ZSTD, c, cn, d, n, "zstd");
        /* Two frames, each half of the data. */
        size_t h = n / 2;
        size_t c1 = ZSTD_compress(c, cap, d, h, 1);
        size_t c2 = ZSTD_compress(c + c1, cap - c1, d + h, n - h, 1);
        CHECK(!ZSTD_isError(c1) && !ZSTD_isError(c2));
        battery(PLANK_CODEC_ZSTD, c, c1 + c2, d, n, "zstd two frames");
        free(c);
        free(d);
    }
    /* Frame header claiming 2^40 bytes (FHD: 8-byte FCS, single segment). */
    uint8_t huge[16] = {0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x01, 0, 0};
    plank_error e;
    plank_error_init(&e);
    uint8_t out[16];
    CHECK_EQ_I64(pk_decompress(PLANK_CODEC_ZSTD, huge, sizeof huge, out, 16, NULL, &e),
                 PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(e.message, "1099511627776") != NULL, "message: %s", e.message);
    /* An empty frame decompresses to 0 bytes (page_v2_empty_compressed). */
    uint8_t c[64];
    size_t cn = ZSTD_compress(c, sizeof c, "", 0, 3);
    expect_ok(PLANK_CODEC_ZSTD, c, cn, NULL, 0, "zstd empty");
#endif
}

/* ---- LZ4_RAW and LZ4 ----------------------------------------------------------- */

#ifdef PLANK_HAVE_LZ4
/* Hadoop framing of d: `blocks` blocks, each split into `chunks` LZ4 chunks. */
static size_t hadoop_frame(const uint8_t *d, size_t n, int blocks, int chunks, uint8_t *out,
                           size_t cap) {
    size_t pos = 0, done = 0;
    for (int b = 0; b < blocks; b++) {
        size_t blen = b == blocks - 1 ? n - done : n / (size_t)blocks;
        put_be32(out + pos, (uint32_t)blen);
        pos += 4;
        size_t bdone = 0;
        for (int k = 0; k < chunks; k++) {
            size_t clen = k == chunks - 1 ? blen - bdone : blen / (size_t)chunks;
            int w = LZ4_compress_default((const char *)d + done + bdone, (char *)out + pos + 4,
                                         (int)clen, (int)(cap - pos - 4));
            CHECK(w > 0);
            put_be32(out + pos, (uint32_t)w);
            pos += 4 + (size_t)w;
            bdone += clen;
        }
        done += blen;
    }
    return pos;
}

static size_t lz4f_frames(const uint8_t *d, size_t n, int frames, bool checksum, uint8_t *out,
                          size_t cap) {
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentChecksumFlag = checksum ? LZ4F_contentChecksumEnabled
                                                   : LZ4F_noContentChecksum;
    prefs.frameInfo.contentSize = 0;
    size_t pos = 0, done = 0;
    for (int f = 0; f < frames; f++) {
        size_t len = f == frames - 1 ? n - done : n / (size_t)frames;
        size_t w = LZ4F_compressFrame(out + pos, cap - pos, d + done, len, &prefs);
        CHECK(!LZ4F_isError(w));
        pos += w;
        done += len;
    }
    return pos;
}
#endif

static void test_lz4(void) {
#ifdef PLANK_HAVE_LZ4
    CHECK(plank_codec_available(PLANK_CODEC_LZ4));
    CHECK(plank_codec_available(PLANK_CODEC_LZ4_RAW));
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        uint8_t *d = make_data(n);
        size_t cap = (size_t)LZ4_compressBound((int)n) * 2 + LZ4F_compressFrameBound(n, NULL) * 3 +
                     256;
        uint8_t *c = malloc(cap);
        int w = LZ4_compress_default((const char *)d, (char *)c, (int)n, (int)cap);
        CHECK(w > 0);
        battery(PLANK_CODEC_LZ4_RAW, c, (size_t)w, d, n, "lz4 raw");
        battery(PLANK_CODEC_LZ4, c, (size_t)w, d, n, "lz4 legacy: raw block fallback");

        size_t cn = hadoop_frame(d, n, 1, 1, c, cap);
        battery(PLANK_CODEC_LZ4, c, cn, d, n, "hadoop lz4: one block");
        /* Hadoop framing is not a valid LZ4_RAW page. */
        expect_fail(PLANK_CODEC_LZ4_RAW, c, cn, n, PLANK_ERR_CORRUPT, "hadoop as lz4_raw");
        if (n >= 3) {
            cn = hadoop_frame(d, n, 3, 1, c, cap);
            battery(PLANK_CODEC_LZ4, c, cn, d, n, "hadoop lz4: three blocks");
            cn = hadoop_frame(d, n, 2, 3, c, cap);
            battery(PLANK_CODEC_LZ4, c, cn, d, n, "hadoop lz4: chunked blocks");
        }
        cn = lz4f_frames(d, n, 1, true, c, cap);
        battery(PLANK_CODEC_LZ4, c, cn, d, n, "lz4 legacy: LZ4F frame");
        cn = lz4f_frames(d, n, 2, false, c, cap);
        battery(PLANK_CODEC_LZ4, c, cn, d, n, "lz4 legacy: two LZ4F frames");
        /* A flipped content byte must fail the frame's content checksum (the
         * last 4 bytes) rather than yield wrong data. */
        cn = lz4f_frames(d, n, 1, true, c, cap);
        c[cn - 1] ^= 0x5a;
        expect_fail(PLANK_CODEC_LZ4, c, cn, n, PLANK_ERR_CORRUPT, "lz4f bad checksum");
        free(c);
        free(d);
    }
    /* Hadoop header claiming 4 GiB - 1 in its one block. */
    uint8_t huge[16] = {0};
    put_be32(huge, 0xffffffffu);
    put_be32(huge + 4, 8);
    expect_fail(PLANK_CODEC_LZ4, huge, sizeof huge, 64, PLANK_ERR_CORRUPT, "hadoop huge");
    /* Hand-built Hadoop page: one block of 5 bytes, one chunk holding the
     * LZ4 block "token 0x50 (5 literals), hello". */
    const uint8_t hello[] = {0, 0, 0, 5, 0, 0, 0, 6, 0x50, 'h', 'e', 'l', 'l', 'o'};
    expect_ok(PLANK_CODEC_LZ4, hello, sizeof hello, (const uint8_t *)"hello", 5, "hadoop hello");
    expect_ok(PLANK_CODEC_LZ4_RAW, hello + 8, 6, (const uint8_t *)"hello", 5, "raw hello");
    /* An empty LZ4_RAW page is the single token 0x00. */
    const uint8_t empty[] = {0};
    expect_ok(PLANK_CODEC_LZ4_RAW, empty, 1, NULL, 0, "lz4 raw empty");
#endif
}

/* ---- BROTLI ------------------------------------------------------------------ */

/* A brotli stream made of uncompressed meta-blocks (RFC 7932 section 9.2),
 * written here bit by bit: WBITS=16 ("0"), then per meta-block ISLAST=0,
 * MNIBBLES=4 ("00"), MLEN-1 in 16 bits, ISUNCOMPRESSED=1, zero padding to a
 * byte and the raw bytes; finally ISLAST=1, ISLASTEMPTY=1. */
TH_MAYBE_UNUSED static size_t brotli_stored(const uint8_t *d, size_t n, size_t part, uint8_t *out) {
    size_t pos = 0, done = 0;
    int first = 1;
    while (done < n) {
        size_t len = n - done < part ? n - done : part;
        /* bit offsets: header bit (first only), ISLAST, MNIBBLES, MLEN-1, ISUNC. */
        uint32_t bits = 0;
        int at = first ? 1 : 0;
        bits |= 0u << at;                       /* ISLAST */
        bits |= 0u << (at + 1);                 /* MNIBBLES = 4 */
        bits |= (uint32_t)(len - 1) << (at + 3); /* MLEN - 1 */
        bits |= 1u << (at + 19);                /* ISUNCOMPRESSED */
        int nbytes = (at + 20 + 7) / 8;
        for (int i = 0; i < nbytes; i++) out[pos++] = (uint8_t)(bits >> (8 * i));
        memcpy(out + pos, d + done, len);
        pos += len;
        done += len;
        first = 0;
    }
    out[pos++] = first ? 0x06 : 0x03; /* [WBITS=0] ISLAST=1 ISLASTEMPTY=1 */
    return pos;
}

static void test_brotli(void) {
#ifdef PLANK_HAVE_BROTLI
    CHECK(plank_codec_available(PLANK_CODEC_BROTLI));
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        if (n > 65536 * 3) continue;
        uint8_t *d = make_data(n);
        uint8_t *c = malloc(n + 64 + n / 1000 * 4);
        size_t cn = brotli_stored(d, n, 65536, c);
        battery(PLANK_CODEC_BROTLI, c, cn, d, n, "brotli stored");
        cn = brotli_stored(d, n, 1000, c);
        battery(PLANK_CODEC_BROTLI, c, cn, d, n, "brotli stored, many meta-blocks");
        free(c);
        free(d);
    }
    uint8_t empty[2];
    size_t en = brotli_stored(NULL, 0, 1, empty);
    CHECK_EQ_I64(en, 1);
    expect_ok(PLANK_CODEC_BROTLI, empty, en, NULL, 0, "brotli empty");
    /* One meta-block claiming 65536 bytes but holding 3. */
    const uint8_t shorty[] = {0xf0, 0xff, 0x1f, 'a', 'b', 'c'};
    expect_fail(PLANK_CODEC_BROTLI, shorty, sizeof shorty, 65536, PLANK_ERR_CORRUPT,
                "brotli short meta-block");
    /* Bytes after the final meta-block. */
    uint8_t tail[16];
    size_t tn = brotli_stored((const uint8_t *)"abc", 3, 10, tail);
    tail[tn] = 0;
    expect_fail(PLANK_CODEC_BROTLI, tail, tn + 1, 3, PLANK_ERR_CORRUPT, "brotli trailing byte");
    expect_ok(PLANK_CODEC_BROTLI, tail, tn, (const uint8_t *)"abc", 3, "brotli abc");

    /* brotli's scratch memory goes through the caller's allocator. */
    {
        th_alloc counting;
        plank_allocator a = th_alloc_init(&counting);
        uint8_t out[3];
        CHECK_EQ_I64(pk_decompress(PLANK_CODEC_BROTLI, tail, tn, out, 3, &a, NULL), PLANK_OK);
        CHECK(memcmp(out, "abc", 3) == 0);
        CHECK(counting.allocs > 0);
        CHECK_EQ_I64(counting.allocs, counting.frees);
        CHECK_EQ_I64(counting.live_bytes, 0);
        CHECK_EQ_I64(pk_decompress(PLANK_CODEC_BROTLI, shorty, sizeof shorty, out, 3, &a, NULL),
                     PLANK_ERR_CORRUPT);
        CHECK_EQ_I64(counting.allocs, counting.frees);
        CHECK_EQ_I64(counting.live_bytes, 0);
    }

    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        uint8_t *d = make_data(n);
        size_t cn = BrotliEncoderMaxCompressedSize(n);
        uint8_t *c = malloc(cn);
        CHECK(BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, n, d, &cn, c));
        battery(PLANK_CODEC_BROTLI, c, cn, d, n, "brotli");
        free(c);
        free(d);
    }
#endif
}

/* ---- pk_decompressor: one per column reader, many pages ------------------------- */

/* A page for the reuse tests: `comp` decompresses to `data` (n bytes), or,
 * when bad, is corrupt at its declared size n. */
typedef struct th_page {
    plank_codec codec;
    uint8_t *comp;
    size_t comp_n;
    const uint8_t *data; /* NULL when bad */
    size_t n;
    char what[64];
} th_page;

typedef struct th_pages {
    th_page p[512];
    int count;
} th_pages;

/* Takes ownership of comp (malloc'd). */
TH_MAYBE_UNUSED static void add_page(th_pages *ps, plank_codec c, uint8_t *comp, size_t comp_n,
                                     const uint8_t *data, size_t n, const char *what) {
    if (ps->count == (int)(sizeof ps->p / sizeof ps->p[0])) {
        CHECK_MSG(0, "too many pages");
        free(comp);
        return;
    }
    th_page *pg = &ps->p[ps->count++];
    pg->codec = c;
    pg->comp = comp;
    pg->comp_n = comp_n;
    pg->data = data;
    pg->n = n;
    snprintf(pg->what, sizeof pg->what, "%s %zu", what, n);
}

/* A copy of comp[0..keep) with byte `flip` (if < keep) changed: a truncated
 * or damaged page, sized exactly so that ASan sees over-reads. */
TH_MAYBE_UNUSED static uint8_t *damaged(const uint8_t *comp, size_t keep, size_t flip) {
    uint8_t *t = malloc(keep ? keep : 1);
    memcpy(t, comp, keep);
    if (flip < keep) t[flip] ^= 0x5a;
    return t;
}

#ifdef PLANK_HAVE_ZSTD
/* One zstd frame of d without a content size (the growing path), with a
 * checksum so that damage inside is always detected. */
static size_t zstd_unsized(const uint8_t *d, size_t n, uint8_t *out, size_t cap) {
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_inBuffer in = {d, n, 0};
    ZSTD_outBuffer ob = {out, cap, 0};
    size_t left = ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_end);
    ZSTD_freeCCtx(cc);
    CHECK(left == 0);
    return ob.pos;
}
#endif

/* Good pages of every built codec for data d (n bytes), each corrupt
 * variant followed by a good page of the same codec. */
static void make_pages(th_pages *ps, const uint8_t *d, size_t n) {
    uint8_t *c;
    size_t cn;
    {
        c = malloc(n ? n : 1);
        memcpy(c, d, n);
        add_page(ps, PLANK_CODEC_UNCOMPRESSED, c, n, d, n, "uncompressed");
    }
#ifdef PLANK_HAVE_SNAPPY
    cn = snappy_max_compressed_length(n);
    c = malloc(cn);
    CHECK(snappy_compress((const char *)d, n, (char *)c, &cn) == SNAPPY_OK);
    if (n > 8) add_page(ps, PLANK_CODEC_SNAPPY, damaged(c, cn / 2, cn), cn / 2, NULL, n,
                        "snappy truncated");
    add_page(ps, PLANK_CODEC_SNAPPY, c, cn, d, n, "snappy");
#endif
#ifdef PLANK_HAVE_LIBDEFLATE
    {
        struct libdeflate_compressor *z = libdeflate_alloc_compressor(6);
        size_t cap = libdeflate_gzip_compress_bound(z, n) * 2 + 64;
        c = malloc(cap);
        cn = deflate_members(z, d, n, n > 1 ? 2 : 1, false, c, cap);
        libdeflate_free_compressor(z);
        /* Bad gzip: the first member's deflate data damaged, and a member cut
         * short (the CRC and size trailer missing). */
        add_page(ps, PLANK_CODEC_GZIP, damaged(c, cn, 12), cn, NULL, n, "gzip damaged");
        add_page(ps, PLANK_CODEC_GZIP, damaged(c, cn, cn), cn, d, n, "gzip");
        add_page(ps, PLANK_CODEC_GZIP, damaged(c, cn - 4, cn), cn - 4, NULL, n, "gzip cut");
        add_page(ps, PLANK_CODEC_GZIP, c, cn, d, n, "gzip members");
    }
#endif
#ifdef PLANK_HAVE_ZSTD
    {
        size_t cap = ZSTD_compressBound(n) * 2 + 64;
        c = malloc(cap);
        cn = ZSTD_compress(c, cap, d, n, 3);
        CHECK(!ZSTD_isError(cn));
        add_page(ps, PLANK_CODEC_ZSTD, damaged(c, cn - 1, cn), cn - 1, NULL, n, "zstd truncated");
        add_page(ps, PLANK_CODEC_ZSTD, c, cn, d, n, "zstd");
        /* Two frames, one of them without a content size: the growing path. */
        c = malloc(cap);
        size_t h = n / 2;
        size_t c1 = ZSTD_compress(c, cap, d, h, 1);
        CHECK(!ZSTD_isError(c1));
        cn = c1 + zstd_unsized(d + h, n - h, c + c1, cap - c1);
        add_page(ps, PLANK_CODEC_ZSTD, c, cn, d, n, "zstd two frames");
        c = malloc(cap);
        cn = zstd_unsized(d, n, c, cap);
        /* Damage in the middle of a streamed frame, and a header one byte
         * short of the output: both leave the stream inside a frame. */
        if (n > 0) {
            add_page(ps, PLANK_CODEC_ZSTD, damaged(c, cn, cn / 2 + 3), cn, NULL, n,
                     "zstd unsized damaged");
            add_page(ps, PLANK_CODEC_ZSTD, damaged(c, cn, cn), cn, d, n, "zstd unsized");
            add_page(ps, PLANK_CODEC_ZSTD, damaged(c, cn, cn), cn, NULL, n - 1,
                     "zstd unsized, header short");
        }
        add_page(ps, PLANK_CODEC_ZSTD, c, cn, d, n, "zstd unsized");
    }
#endif
#ifdef PLANK_HAVE_LZ4
    {
        size_t cap = (size_t)LZ4_compressBound((int)n) * 2 + LZ4F_compressFrameBound(n, NULL) * 3 +
                     256;
        c = malloc(cap);
        int w = LZ4_compress_default((const char *)d, (char *)c, (int)n, (int)cap);
        CHECK(w > 0);
        add_page(ps, PLANK_CODEC_LZ4_RAW, c, (size_t)w, d, n, "lz4 raw");
        c = malloc(cap);
        cn = hadoop_frame(d, n, 1, 1, c, cap);
        add_page(ps, PLANK_CODEC_LZ4, c, cn, d, n, "hadoop lz4");
        /* LZ4 frames: a truncated one leaves the frame context midway, a
         * flipped content checksum fails at its end. */
        c = malloc(cap);
        cn = lz4f_frames(d, n, 2, true, c, cap);
        add_page(ps, PLANK_CODEC_LZ4, damaged(c, cn - 6, cn), cn - 6, NULL, n, "lz4f truncated");
        add_page(ps, PLANK_CODEC_LZ4, damaged(c, cn, cn), cn, d, n, "lz4f");
        add_page(ps, PLANK_CODEC_LZ4, damaged(c, cn, cn - 1), cn, NULL, n, "lz4f bad checksum");
        add_page(ps, PLANK_CODEC_LZ4, c, cn, d, n, "lz4f");
    }
#endif
#ifdef PLANK_HAVE_BROTLI
    cn = BrotliEncoderMaxCompressedSize(n);
    c = malloc(cn);
    CHECK(BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, n, d, &cn, c));
    /* Brotli has no checksum: a changed byte may still be a valid stream,
     * so the bad pages are cut short or have a byte after the end. */
    if (n > 0) {
        add_page(ps, PLANK_CODEC_BROTLI, damaged(c, cn / 2, cn), cn / 2, NULL, n,
                 "brotli truncated");
        add_page(ps, PLANK_CODEC_BROTLI, damaged(c, cn, cn), cn, d, n, "brotli");
    }
    uint8_t *tail = malloc(cn + 1);
    memcpy(tail, c, cn);
    tail[cn] = 0;
    add_page(ps, PLANK_CODEC_BROTLI, tail, cn + 1, NULL, n, "brotli trailing byte");
    add_page(ps, PLANK_CODEC_BROTLI, c, cn, d, n, "brotli");
#endif
    (void)c;
    (void)cn;
}

/* One page through d both ways, against the one-shot functions. */
static void check_page(pk_decompressor *d, const th_page *pg, pk_buffer *buf) {
    plank_error e, e1;
    plank_error_init(&e);
    plank_error_init(&e1);
    uint8_t *dst = malloc(pg->n ? pg->n : 1), *ref = malloc(pg->n ? pg->n : 1);
    plank_status st = pk_decompress_with(d, pg->codec, pg->comp, pg->comp_n, dst, pg->n, &e);
    plank_status st1 = pk_decompress(pg->codec, pg->comp, pg->comp_n, ref, pg->n, NULL, &e1);
    plank_status want = pg->data ? PLANK_OK : PLANK_ERR_CORRUPT;
    CHECK_MSG(st == want && st1 == want, "%s: with %d (%s), one-shot %d (%s)", pg->what, (int)st,
              e.message, (int)st1, e1.message);
    if (st == PLANK_OK && pg->data && pg->n)
        CHECK_MSG(memcmp(dst, pg->data, pg->n) == 0 && memcmp(ref, pg->data, pg->n) == 0,
                  "%s: output differs", pg->what);

    plank_error_init(&e);
    plank_error_init(&e1);
    st = pk_decompress_buffer_with(d, pg->codec, pg->comp, pg->comp_n, pg->n, buf, &e);
    pk_buffer one;
    pk_buffer_init(&one, NULL);
    st1 = pk_decompress_buffer(pg->codec, pg->comp, pg->comp_n, pg->n, &one, NULL, &e1);
    CHECK_MSG(st == want && st1 == want, "%s: buffer_with %d (%s), buffer %d (%s)", pg->what,
              (int)st, e.message, (int)st1, e1.message);
    if (st == want && st1 == want && st != PLANK_OK)
        CHECK_MSG(strcmp(e.message, e1.message) == 0, "%s: messages differ: %s / %s", pg->what,
                  e.message, e1.message);
    if (st == PLANK_OK && pg->data) {
        CHECK_MSG(buf->size == pg->n && one.size == pg->n, "%s: sizes", pg->what);
        if (pg->n)
            CHECK_MSG(memcmp(buf->data, pg->data, pg->n) == 0 &&
                          memcmp(one.data, pg->data, pg->n) == 0,
                      "%s: buffer output differs", pg->what);
    }
    pk_buffer_reset(&one);
    free(ref);
    free(dst);
}

static void test_decompressor_reuse(void) {
    static const size_t page_sizes[] = {0, 1, 100, 4096, 70001, 300000, 1000};
    enum { NPS = sizeof page_sizes / sizeof page_sizes[0] };
    uint8_t *datas[NPS];
    th_pages *ps = calloc(1, sizeof *ps);
    for (size_t k = 0; k < NPS; k++) {
        datas[k] = make_data(page_sizes[k]);
        make_pages(ps, datas[k], page_sizes[k]);
    }
    th_alloc counting;
    plank_allocator a = th_alloc_init(&counting);
    pk_decompressor d;
    pk_decompressor_init(&d, &a);
    pk_buffer buf;
    pk_buffer_init(&buf, NULL);
    /* In order (codecs and sizes alternate, every bad page followed by a
     * good one of its codec), again with the contexts warm, then shuffled. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ps->count; i++) check_page(&d, &ps->p[i], &buf);
    int *order = malloc(sizeof(int) * (size_t)ps->count);
    for (int i = 0; i < ps->count; i++) order[i] = i;
    for (int i = ps->count - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint32_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < ps->count; i++) check_page(&d, &ps->p[order[i]], &buf);
    free(order);
    pk_decompressor_release(&d);
    CHECK(counting.allocs > 0 || !plank_codec_available(PLANK_CODEC_ZSTD));
    CHECK_EQ_I64(counting.allocs, counting.frees);
    CHECK_EQ_I64(counting.live_bytes, 0);
    /* Released, it works again (and release twice is harmless). */
    check_page(&d, &ps->p[ps->count - 1], &buf);
    pk_decompressor_release(&d);
    pk_decompressor_release(&d);
    pk_decompressor_release(NULL);
    CHECK_EQ_I64(counting.live_bytes, 0);
    pk_buffer_reset(&buf);
    for (int i = 0; i < ps->count; i++) free(ps->p[i].comp);
    free(ps);
    for (size_t k = 0; k < NPS; k++) free(datas[k]);
}

/* The point of the decompressor: zstd's context is made once, not per page. */
static void test_decompressor_keeps_zstd(void) {
#ifdef PLANK_HAVE_ZSTD
    uint8_t *d = make_data(70001);
    size_t cap = ZSTD_compressBound(70001) + 64;
    uint8_t *c = malloc(cap), *u = malloc(cap);
    size_t cn = ZSTD_compress(c, cap, d, 70001, 3);
    size_t un = zstd_unsized(d, 70001, u, cap);
    th_alloc counting;
    plank_allocator a = th_alloc_init(&counting);
    pk_decompressor dc;
    pk_decompressor_init(&dc, &a);
    pk_buffer buf;
    pk_buffer_init(&buf, NULL);
    uint8_t *out = malloc(70001);
    CHECK_EQ_I64(pk_decompress_with(&dc, PLANK_CODEC_ZSTD, c, cn, out, 70001, NULL), PLANK_OK);
    CHECK(counting.allocs > 0); /* the context, through the caller's allocator */
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, u, un, 70001, &buf, NULL),
                 PLANK_OK);
    int64_t warm = counting.allocs;
    for (int i = 0; i < 50; i++) {
        CHECK_EQ_I64(pk_decompress_with(&dc, PLANK_CODEC_ZSTD, c, cn, out, 70001, NULL),
                     PLANK_OK);
        CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, c, cn, 70001, &buf, NULL),
                     PLANK_OK);
        CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, u, un, 70001, &buf, NULL),
                     PLANK_OK);
    }
    CHECK_EQ_I64(counting.allocs, warm);
    CHECK(memcmp(out, d, 70001) == 0 && memcmp(buf.data, d, 70001) == 0);
    pk_decompressor_release(&dc);
    CHECK_EQ_I64(counting.live_bytes, 0);

    /* Frame sizes that agree with a 64 MiB header over a 10-byte block:
     * allocated in one shot, then refused; the next page is fine. */
    uint8_t lie[22] = {0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 4, 0x51, 0, 0};
    memset(lie + 12, 'x', 10);
    size_t claim = (size_t)64 << 20;
    plank_error e;
    plank_error_init(&e);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, lie, sizeof lie, claim, &buf,
                                           &e),
                 PLANK_ERR_CORRUPT);
    CHECK_MSG(e.message[0] != '\0', "no message");
    /* One byte less in the header: refused before any allocation. */
    pk_buffer small;
    pk_buffer_init(&small, &a);
    counting.max_single = 0;
    plank_error_init(&e);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, lie, sizeof lie, claim - 1,
                                           &small, &e),
                 PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(e.message, "ZSTD frames declare 67108864 bytes") != NULL, "%s", e.message);
    CHECK(counting.max_single < (1 << 20));
    pk_buffer_reset(&small);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, c, cn, 70001, &buf, NULL),
                 PLANK_OK);
    CHECK(buf.size == 70001 && memcmp(buf.data, d, 70001) == 0);
    pk_decompressor_release(&dc);
    CHECK_EQ_I64(counting.live_bytes, 0);
    pk_buffer_reset(&buf);
    free(out);
    free(u);
    free(c);
    free(d);
#endif
}

/* ZSTD frames without a content size (parquet-mr's streaming writer): the
 * buffer grows while zstd finds it too small, a window larger than any
 * streaming decoder takes is fine, and lies are refused at the real size. */
static void test_zstd_unsized_growth(void) {
#ifdef PLANK_HAVE_ZSTD
    size_t n = (size_t)5 << 20; /* > 1 MiB and > 64 x its compressed size */
    uint8_t *d = calloc(1, n);
    for (size_t i = 0; i < n; i += 4099) d[i] = (uint8_t)i;
    size_t cap = ZSTD_compressBound(n);
    uint8_t *c = malloc(cap);
    size_t cn = zstd_unsized(d, n, c, cap);
    CHECK(cn * 64 < n);
    th_alloc counting;
    plank_allocator a = th_alloc_init(&counting);
    pk_decompressor dc;
    pk_decompressor_init(&dc, &a);
    pk_buffer buf;
    pk_buffer_init(&buf, &a);
    plank_error e;
    plank_error_init(&e);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, c, cn, n, &buf, &e), PLANK_OK);
    CHECK(buf.size == n && memcmp(buf.data, d, n) == 0);
    /* One byte short, the frame yields more than the header says. */
    plank_error_init(&e);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, c, cn, n - 1, &buf, &e),
                 PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(e.message, "decompresses to more than the 5242879 bytes") != NULL, "%s",
              e.message);
    pk_buffer_reset(&buf);
    /* A 100-byte frame under a 64 MiB header: the buffer stays at the first
     * step (1 MiB) and zstd allocates no window. */
    uint8_t small[256];
    size_t sn = zstd_unsized(d + 4000, 100, small, sizeof small);
    pk_buffer_init(&buf, &a);
    counting.max_single = 0;
    plank_error_init(&e);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, small, sn, (size_t)64 << 20,
                                           &buf, &e),
                 PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(e.message, "ZSTD page yields 100 bytes") != NULL, "%s", e.message);
    CHECK_MSG(counting.max_single <= (2 << 20), "largest allocation %lld",
              (long long)counting.max_single);
    pk_buffer_reset(&buf);

    /* Window descriptor 0xae: a window of 3.5 GiB, which streaming decoders
     * refuse (more than 2^27); one-shot decoding needs none. One raw block
     * "hello", then an empty page (found by fuzz_codec). */
    const uint8_t wide[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xae, 0x29, 0, 0, 'h', 'e', 'l', 'l', 'o'};
    const uint8_t wide0[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xae, 0x01, 0x00, 0x00};
    expect_ok(PLANK_CODEC_ZSTD, wide, sizeof wide, (const uint8_t *)"hello", 5, "zstd wide window");
    expect_ok(PLANK_CODEC_ZSTD, wide0, sizeof wide0, NULL, 0, "zstd wide window, empty");
    pk_buffer_init(&buf, &a);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, wide, sizeof wide, 5, &buf, NULL),
                 PLANK_OK);
    CHECK(buf.size == 5 && memcmp(buf.data, "hello", 5) == 0);
    CHECK_EQ_I64(pk_decompress_buffer_with(&dc, PLANK_CODEC_ZSTD, wide0, sizeof wide0, 0, &buf,
                                           NULL),
                 PLANK_OK);
    CHECK(buf.size == 0);
    pk_buffer_reset(&buf);
    pk_decompressor_release(&dc);
    CHECK_EQ_I64(counting.live_bytes, 0);
    free(c);
    free(d);
#endif
}

/* Every allocation the libraries make through the decompressor's allocator
 * failing in turn: PLANK_ERR_OUT_OF_MEMORY (never CORRUPT, never a leak),
 * and the same decompressor then decodes the page. */
static void fail_each_allocation(const th_page *pg) {
    for (int64_t k = 1; k < 1000; k++) {
        for (int way = 0; way < 2; way++) {
            th_alloc counting;
            plank_allocator a = th_alloc_init(&counting);
            counting.fail_at = k;
            pk_decompressor dc;
            pk_decompressor_init(&dc, &a);
            pk_buffer buf;
            pk_buffer_init(&buf, &a);
            uint8_t *dst = malloc(pg->n ? pg->n : 1);
            plank_error e;
            plank_error_init(&e);
            plank_status st =
                way ? pk_decompress_buffer_with(&dc, pg->codec, pg->comp, pg->comp_n, pg->n, &buf,
                                                &e)
                    : pk_decompress_with(&dc, pg->codec, pg->comp, pg->comp_n, dst, pg->n, &e);
            CHECK_MSG(st == (counting.failed ? PLANK_ERR_OUT_OF_MEMORY : PLANK_OK),
                      "%s, way %d, allocation %lld failing: %d (%s)", pg->what, way,
                      (long long)k, (int)st, e.message);
            bool failed = counting.failed;
            counting.fail_at = 0;
            st = way ? pk_decompress_buffer_with(&dc, pg->codec, pg->comp, pg->comp_n, pg->n, &buf,
                                                 NULL)
                     : pk_decompress_with(&dc, pg->codec, pg->comp, pg->comp_n, dst, pg->n, NULL);
            CHECK_MSG(st == PLANK_OK, "%s, way %d: after allocation %lld failed: %d", pg->what,
                      way, (long long)k, (int)st);
            const uint8_t *got = way ? buf.data : dst;
            if (st == PLANK_OK && pg->n) CHECK(memcmp(got, pg->data, pg->n) == 0);
            pk_decompressor_release(&dc);
            pk_buffer_reset(&buf);
            free(dst);
            CHECK_EQ_I64(counting.live_bytes, 0);
            if (!failed && way == 1) return; /* no k-th allocation either way */
        }
    }
    CHECK_MSG(0, "%s: allocations never ended", pg->what);
}

static void test_decompressor_out_of_memory(void) {
    uint8_t *d = make_data(70001);
    th_pages *ps = calloc(1, sizeof *ps);
    make_pages(ps, d, 70001);
    for (int i = 0; i < ps->count; i++) {
        const th_page *pg = &ps->p[i];
        if (pg->data && (pg->codec == PLANK_CODEC_ZSTD || pg->codec == PLANK_CODEC_BROTLI ||
                         pg->codec == PLANK_CODEC_LZ4))
            fail_each_allocation(pg);
    }
    for (int i = 0; i < ps->count; i++) free(ps->p[i].comp);
    free(ps);
    free(d);
}

/* ---- real pages from parquet-testing ------------------------------------------- */

/* Just enough of Thrift's compact protocol to walk PageHeaders. */
typedef struct th_tin {
    const uint8_t *p, *end;
    int bad;
} th_tin;

static uint64_t th_varint(th_tin *t) {
    uint64_t v = 0;
    for (int s = 0; s < 64; s += 7) {
        if (t->p >= t->end) { t->bad = 1; return 0; }
        uint8_t b = *t->p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
    t->bad = 1;
    return 0;
}

static int64_t th_zigzag(th_tin *t) {
    uint64_t v = th_varint(t);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void th_skip(th_tin *t, int type, int depth);

/* Reads a struct; for fields of interest stores integer and bool values in
 * vals[id] and the compact type of every field in types[id] (ids < 16), and
 * descends into the struct field `sub` with subvals. */
static void th_struct(th_tin *t, int64_t *vals, uint8_t *types, int sub, int64_t *subvals,
                      int depth) {
    int16_t id = 0;
    if (depth > 16) { t->bad = 1; return; }
    while (!t->bad) {
        if (t->p >= t->end) { t->bad = 1; return; }
        uint8_t h = *t->p++;
        if (h == 0) return;
        int type = h & 0x0f;
        id = (h >> 4) ? (int16_t)(id + (h >> 4)) : (int16_t)th_zigzag(t);
        if (types && id >= 0 && id < 16) types[id] = (uint8_t)type;
        if (type == 12 && id == sub && subvals) {
            th_struct(t, subvals, NULL, -1, NULL, depth + 1);
        } else if ((type == 5 || type == 4) && id >= 0 && id < 16 && vals) {
            vals[id] = th_zigzag(t);
        } else if ((type == 1 || type == 2) && id >= 0 && id < 16 && vals) {
            vals[id] = type == 1;
        } else {
            th_skip(t, type, depth + 1);
        }
    }
}

static void th_skip(th_tin *t, int type, int depth) {
    switch (type) {
    case 1: case 2: return;
    case 3: if (t->p < t->end) t->p++; else t->bad = 1; return;
    case 4: case 5: case 6: th_varint(t); return;
    case 7: if (t->end - t->p >= 8) t->p += 8; else t->bad = 1; return;
    case 8: {
        uint64_t n = th_varint(t);
        if (n <= (uint64_t)(t->end - t->p)) t->p += n; else t->bad = 1;
        return;
    }
    case 9: case 10: {
        if (t->p >= t->end) { t->bad = 1; return; }
        uint8_t h = *t->p++;
        uint64_t n = h >> 4 == 15 ? th_varint(t) : (uint64_t)(h >> 4);
        for (uint64_t i = 0; i < n && !t->bad; i++) th_skip(t, h & 0x0f, depth + 1);
        return;
    }
    case 12: th_struct(t, NULL, NULL, -1, NULL, depth); return;
    default: t->bad = 1; return; /* maps never occur in a PageHeader */
    }
}

TH_MAYBE_UNUSED static int contains(const uint8_t *h, size_t hn, const void *needle, size_t nn) {
    for (size_t i = 0; i + nn <= hn; i++)
        if (memcmp(h + i, needle, nn) == 0) return 1;
    return 0;
}

/* Decompresses every page of a single-row-group file, from byte 4 up to the
 * footer, and concatenates the outputs into *all. Returns the page count.
 * Writers that put a ColumnMetaData copy after each column chunk (parquet-cpp,
 * Arrow) are handled by skipping any struct whose fields 2 and 3 are not the
 * i32 sizes of a PageHeader. */
TH_MAYBE_UNUSED static int walk_pages(const char *name, plank_codec codec, uint8_t **all, size_t *all_n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", th_testing_dir(), name);
    size_t n = 0;
    uint8_t *f = th_read_file(path, &n);
    CHECK_MSG(f != NULL && n > 12, "cannot read %s", path);
    if (!f || n <= 12) return 0;
    size_t footer = n - 8 - (size_t)pk_load_u32(f + n - 8);
    size_t pos = 4;
    int pages = 0;
    *all = NULL;
    *all_n = 0;
    while (pos < footer) {
        int64_t v[16] = {0}, v2[16] = {0};
        uint8_t types[16] = {0};
        v2[7] = 1; /* is_compressed defaults to true */
        th_tin t = {f + pos, f + footer, 0};
        th_struct(&t, v, types, 8, v2, 0);
        CHECK_MSG(!t.bad, "%s: page header at %zu", name, pos);
        if (t.bad) break;
        size_t hdr = (size_t)(t.p - (f + pos));
        if (types[2] != 5 || types[3] != 5) { /* ColumnMetaData */
            pos += hdr;
            continue;
        }
        int64_t usize = v[2], csize = v[3];
        CHECK(usize >= 0 && csize >= 0 && (uint64_t)csize <= footer - pos - hdr);
        if (usize < 0 || csize < 0 || (uint64_t)csize > footer - pos - hdr) break;
        const uint8_t *body = f + pos + hdr;
        size_t lv = v[1] == 3 ? (size_t)(v2[5] + v2[6]) : 0; /* v2 levels are uncompressed */
        CHECK(lv <= (size_t)csize && lv <= (size_t)usize);
        if (lv > (size_t)csize || lv > (size_t)usize) break;
        uint8_t *out = malloc((size_t)usize ? (size_t)usize : 1);
        memcpy(out, body, lv);
        plank_error e;
        plank_error_init(&e);
        plank_codec c = v[1] == 3 && !v2[7] ? PLANK_CODEC_UNCOMPRESSED : codec;
        plank_status st = pk_decompress(c, body + lv, (size_t)csize - lv, out + lv,
                                        (size_t)usize - lv, NULL, &e);
        CHECK_MSG(st == PLANK_OK, "%s page %d at %zu: %s", name, pages, pos, e.message);
        *all = realloc(*all, *all_n + (size_t)usize + 1);
        memcpy(*all + *all_n, out, (size_t)usize);
        *all_n += (size_t)usize;
        free(out);
        pos += hdr + (size_t)csize;
        pages++;
    }
    CHECK_EQ_I64(pos, footer);
    free(f);
    return pages;
}

/* The *_larger files hold 10000 PLAIN strings, each a 36-character UUID with
 * a 4-byte length prefix, the first "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b";
 * checking the shape of every value checks every decompressed byte's place. */
TH_MAYBE_UNUSED static void check_uuid_strings(const uint8_t *p, size_t n, const char *what) {
    static const char first[] = "$\0\0\0c7ce6bef-d5b0-4863-b199-8ea8c7fb117b";
    size_t at = 0;
    while (at + 40 <= n && memcmp(p + at, first, 40) != 0) at++;
    CHECK_MSG(at + 40 * 10000 <= n, "%s: values not found (%zu bytes)", what, n);
    if (at + 40 * 10000 > n) return;
    int bad = 0;
    for (size_t i = 0; i < 10000; i++) {
        const uint8_t *v = p + at + 40 * i;
        bad += pk_load_u32(v) != 36 || v[12] != '-' || v[17] != '-' || v[22] != '-' ||
               v[27] != '-';
        for (int k = 4; k < 40; k++)
            bad += !(v[k] == '-' || (v[k] >= '0' && v[k] <= '9') || (v[k] >= 'a' && v[k] <= 'f'));
    }
    CHECK_MSG(bad == 0, "%s: %d malformed bytes", what, bad);
}

static void test_real_pages(void) {
    if (!th_testing_dir()) {
        TEST_SKIP_PART("real pages: parquet-testing not found (set PLANK_TESTING_DIR)");
        return;
    }
    /* Shared by the codecs' sections, any of which a build may leave out. */
    TH_MAYBE_UNUSED uint8_t *all;
    TH_MAYBE_UNUSED size_t all_n;
    TH_MAYBE_UNUSED int pages;
#ifdef PLANK_HAVE_LZ4
    /* Both small files hold c0 INT64, c1 BYTE_ARRAY, v11 DOUBLE with rows
     * (1593604800, "abc", 42.0), (1593604800, "def", 7.7),
     * (1593604801, "abc", 42.125), (1593604801, "def", 7.7); the distinct
     * values sit PLAIN-encoded in dictionary pages. */
    const char *small[] = {"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet"};
    for (int i = 0; i < 2; i++) {
        pages = walk_pages(small[i], PLANK_CODEC_LZ4, &all, &all_n);
        CHECK_EQ_I64(pages, 6);
        const uint8_t strings[] = {3, 0, 0, 0, 'a', 'b', 'c', 3, 0, 0, 0, 'd', 'e', 'f'};
        CHECK_MSG(contains(all, all_n, strings, sizeof strings), "%s: strings", small[i]);
        int64_t ts = 1593604801;
        double dv = 42.125;
        CHECK_MSG(contains(all, all_n, &ts, 8), "%s: timestamp", small[i]);
        CHECK_MSG(contains(all, all_n, &dv, 8), "%s: double", small[i]);
        free(all);
    }
    /* One 400000-byte page in three Hadoop blocks (128 KiB, 128 KiB, rest). */
    pages = walk_pages("hadoop_lz4_compressed_larger.parquet", PLANK_CODEC_LZ4, &all, &all_n);
    CHECK_EQ_I64(pages, 1);
    check_uuid_strings(all, all_n, "hadoop_lz4_compressed_larger");
    free(all);
    pages = walk_pages("lz4_raw_compressed.parquet", PLANK_CODEC_LZ4_RAW, &all, &all_n);
    CHECK_EQ_I64(pages, 3);
    CHECK(contains(all, all_n, "\x03\0\0\0abc\x03\0\0\0def", 14));
    free(all);
    pages = walk_pages("lz4_raw_compressed_larger.parquet", PLANK_CODEC_LZ4_RAW, &all, &all_n);
    CHECK_EQ_I64(pages, 1);
    check_uuid_strings(all, all_n, "lz4_raw_compressed_larger");
    free(all);
#endif
#ifdef PLANK_HAVE_SNAPPY
    /* Its DataPageV2 values section is 0 bytes, not a snappy stream. */
    pages = walk_pages("datapage_v2_empty_datapage.snappy.parquet", PLANK_CODEC_SNAPPY, &all,
                       &all_n);
    CHECK(pages >= 1);
    free(all);
#endif
#ifdef PLANK_HAVE_ZSTD
    pages = walk_pages("page_v2_empty_compressed.parquet", PLANK_CODEC_ZSTD, &all, &all_n);
    CHECK_EQ_I64(pages, 2);
    free(all);
#endif
}

int main(void) {
    test_uncompressed_and_unsupported();
    test_snappy();
    test_snappy_handbuilt();
    test_snappy_encoder();
#ifdef PLANK_HAVE_SNAPPY
    test_snappy_decoder();
#endif
    test_gzip();
    test_zstd();
    test_lz4();
    test_brotli();
    test_decompressor_reuse();
    test_decompressor_keeps_zstd();
    test_zstd_unsized_growth();
    test_decompressor_out_of_memory();
    test_real_pages();
    TEST_END();
}
