/*
 * test_variant_read.c: the VARIANT decoder (plank_variant_validate,
 * plank_variant_to_json) on values built here byte by byte from
 * VariantEncoding.md, with known JSON answers, and on the corpus's variant/
 * binaries treated as hostile input: every truncation and many byte
 * mutations must be an error or a valid value, never a crash or an
 * out-of-bounds read (the suite runs under ASan). The corpus values' JSON is
 * compared with the corpus's expected values by tests/peer/variant_corpus.mjs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"

static const uint8_t empty_meta[] = {0x01, 0x00, 0x00};

/* The JSON of (m, v), or "ERR" with the status when it fails. */
static const char *json(const uint8_t *m, size_t ml, const uint8_t *v, size_t vl) {
    static char buf[4096];
    size_t len = 0;
    plank_error err;
    if (plank_variant_to_json(m, ml, v, vl, buf, sizeof buf, &len, NULL, &err) != PLANK_OK) {
        CHECK_MSG(err.message[0] != 0, "an error without a message");
        snprintf(buf, sizeof buf, "ERR %s", err.message);
    } else {
        CHECK(len == strlen(buf));
    }
    return buf;
}

#define EXPECT_JSON(m, v, want)                                                          \
    do {                                                                                 \
        const char *got_ = json((m), sizeof(m), (v), sizeof(v));                         \
        CHECK_MSG(strcmp(got_, (want)) == 0, "got %s, want %s", got_, (want));           \
    } while (0)

static void test_primitives(void) {
    static const uint8_t null_v[] = {0x00}, t[] = {0x04}, f[] = {0x08};
    EXPECT_JSON(empty_meta, null_v, "null");
    EXPECT_JSON(empty_meta, t, "true");
    EXPECT_JSON(empty_meta, f, "false");
    static const uint8_t i8[] = {3 << 2, 0xde};              /* -34 */
    static const uint8_t i16[] = {4 << 2, 0xd2, 0x04};       /* 1234 */
    static const uint8_t i32[] = {5 << 2, 0x40, 0xe2, 0x01, 0x00};
    static const uint8_t i64[] = {6 << 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    EXPECT_JSON(empty_meta, i8, "-34");
    EXPECT_JSON(empty_meta, i16, "1234");
    EXPECT_JSON(empty_meta, i32, "123456");
    EXPECT_JSON(empty_meta, i64, "9223372036854775807");
    static const uint8_t dbl[] = {7 << 2, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f}; /* 1.5 */
    static const uint8_t flt[] = {14 << 2, 0xcd, 0xcc, 0xcc, 0x3d};     /* 0.1f */
    static const uint8_t nan[] = {7 << 2, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
    EXPECT_JSON(empty_meta, dbl, "1.5");
    EXPECT_JSON(empty_meta, flt, "0.1");
    EXPECT_JSON(empty_meta, nan, "\"NaN\"");
    /* decimal4 scale 2 of -1230; decimal8 scale 0; decimal16 scale 38 of 1. */
    static const uint8_t d4[] = {8 << 2, 2, 0x32, 0xfb, 0xff, 0xff};
    static const uint8_t d8[] = {9 << 2, 0, 0x15, 0x81, 0xe9, 0x7d, 0xf4, 0x10, 0x22, 0x11};
    static const uint8_t d16[] = {10 << 2, 38, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_JSON(empty_meta, d4, "\"-12.30\"");
    EXPECT_JSON(empty_meta, d8, "\"1234567890123456789\"");
    EXPECT_JSON(empty_meta, d16, "\"0.00000000000000000000000000000000000001\"");
    static const uint8_t d16neg[] = {10 << 2, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 0x80}; /* INT128_MIN */
    EXPECT_JSON(empty_meta, d16neg, "\"-17014118346046923173168730371588410572.8\"");
    static const uint8_t bad_scale[] = {8 << 2, 39, 0, 0, 0, 0};
    CHECK(strncmp(json(empty_meta, 3, bad_scale, sizeof bad_scale), "ERR", 3) == 0);
    /* date 2025-04-16 = 20194 days; before 1970 too. */
    static const uint8_t date[] = {11 << 2, 0xe2, 0x4e, 0, 0};
    static const uint8_t date_neg[] = {11 << 2, 0xff, 0xff, 0xff, 0xff};
    EXPECT_JSON(empty_meta, date, "\"2025-04-16\"");
    EXPECT_JSON(empty_meta, date_neg, "\"1969-12-31\"");
    /* 1 second and 1 microsecond past the epoch, UTC and not; -1 ns. */
    static const uint8_t ts[] = {12 << 2, 0x41, 0x42, 0x0f, 0, 0, 0, 0, 0};
    static const uint8_t ntz[] = {13 << 2, 0x41, 0x42, 0x0f, 0, 0, 0, 0, 0};
    static const uint8_t tsn[] = {18 << 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t ntzn[] = {19 << 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    EXPECT_JSON(empty_meta, ts, "\"1970-01-01T00:00:01.000001Z\"");
    EXPECT_JSON(empty_meta, ntz, "\"1970-01-01T00:00:01.000001\"");
    EXPECT_JSON(empty_meta, tsn, "\"1969-12-31T23:59:59.999999999Z\"");
    EXPECT_JSON(empty_meta, ntzn, "\"1969-12-31T23:59:59.999999999\"");
    /* time 12:33:54.123456 = 45234123456 us */
    static const uint8_t tm[] = {17 << 2, 0xc0, 0xf2, 0x29, 0x88, 0x0a, 0, 0, 0};
    EXPECT_JSON(empty_meta, tm, "\"12:33:54.123456\"");
    static const uint8_t tm_bad[] = {17 << 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    CHECK(strncmp(json(empty_meta, 3, tm_bad, sizeof tm_bad), "ERR", 3) == 0);
    static const uint8_t bin[] = {15 << 2, 3, 0, 0, 0, 'a', 'b', 'c'};
    static const uint8_t str[] = {16 << 2, 4, 0, 0, 0, 'a', '"', '\n', 0xff};
    static const uint8_t sstr[] = {(2 << 2) | 1, 'h', 'i'};
    EXPECT_JSON(empty_meta, bin, "\"YWJj\"");
    EXPECT_JSON(empty_meta, str, "\"a\\\"\\n\\ufffd\"");
    EXPECT_JSON(empty_meta, sstr, "\"hi\"");
    static const uint8_t uuid[] = {20 << 2, 0xf2, 0x4f, 0x9b, 0x64, 0x81, 0xfa, 0x49, 0xd1,
                                   0xb7, 0x4e, 0x8c, 0x09, 0xa6, 0xe3, 0x1c, 0x56};
    EXPECT_JSON(empty_meta, uuid, "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\"");
    static const uint8_t unknown[] = {21 << 2};
    CHECK(strncmp(json(empty_meta, 3, unknown, 1), "ERR", 3) == 0);
}

static void test_containers(void) {
    /* Metadata with keys "a", "b", "c" (unsorted flag off). The object of
     * VariantEncoding.md's example {"c": 3, "b": 2, "a": 1}: ids in key
     * order, offsets to values stored in the order c, b, a. */
    static const uint8_t meta[] = {0x01, 3, 0, 1, 2, 3, 'a', 'b', 'c'};
    static const uint8_t obj[] = {0x02, 3,     0, 1, 2,          /* ids a, b, c */
                                  4,    2,     0, 6,             /* offsets of a, b, c, end */
                                  3 << 2, 3, 3 << 2, 2, 3 << 2, 1};
    EXPECT_JSON(meta, obj, "{\"a\":1,\"b\":2,\"c\":3}");
    /* An array [1, "x", [], {}] with 2-byte offsets. */
    static const uint8_t arr[] = {(1 << 2) | 3, 4, 0, 0, 2, 0, 4, 0, 7, 0, 10, 0,
                                  3 << 2, 1, (1 << 2) | 1, 'x', 3, 0, 0, 2, 0, 0};
    EXPECT_JSON(meta, arr, "[1,\"x\",[],{}]");
    /* is_large counts: a 4-byte element count. */
    static const uint8_t big[] = {(1 << 4) | 3, 1, 0, 0, 0, 0, 1, 0x04};
    static const uint8_t bigobj[] = {(1 << 6) | 2, 1, 0, 0, 0, 2, 0, 1, 0x08};
    EXPECT_JSON(meta, big, "[true]");
    EXPECT_JSON(meta, bigobj, "{\"c\":false}");
    /* Field id past the dictionary; element outside the value; offsets
     * past the end; a count that cannot fit. */
    static const uint8_t bad_id[] = {0x02, 1, 7, 0, 1, 0x00};
    static const uint8_t bad_off[] = {0x03, 1, 5, 1, 0x00};
    static const uint8_t bad_end[] = {0x03, 1, 0, 9, 0x00};
    static const uint8_t bad_count[] = {(1 << 4) | 3, 0xff, 0xff, 0xff, 0xff, 0};
    CHECK(strncmp(json(meta, sizeof meta, bad_id, sizeof bad_id), "ERR", 3) == 0);
    CHECK(strncmp(json(meta, sizeof meta, bad_off, sizeof bad_off), "ERR", 3) == 0);
    CHECK(strncmp(json(meta, sizeof meta, bad_end, sizeof bad_end), "ERR", 3) == 0);
    CHECK(strncmp(json(meta, sizeof meta, bad_count, sizeof bad_count), "ERR", 3) == 0);
    /* Nesting: 127 arrays deep decode; 200 are refused. */
    for (int depth = 127; depth <= 200; depth += 73) {
        /* Each level: an array header (2-byte offsets), count 1, offsets
         * [0, rest]. */
        size_t n = (size_t)depth * 6 + 1;
        uint8_t *v = malloc(n);
        for (int k = 0; k < depth; k++) {
            size_t rest = n - 6 * (size_t)(k + 1);
            v[6 * k] = (1 << 2) | 3;
            v[6 * k + 1] = 1;
            v[6 * k + 2] = v[6 * k + 3] = 0;
            v[6 * k + 4] = (uint8_t)rest;
            v[6 * k + 5] = (uint8_t)(rest >> 8);
        }
        v[n - 1] = 0x00;
        plank_error err;
        plank_status st = plank_variant_validate(meta, sizeof meta, v, n, &err);
        CHECK_MSG(depth < 128 ? st == PLANK_OK : st == PLANK_ERR_CORRUPT, "depth %d: %s", depth,
                  err.message);
        free(v);
    }
    /* Metadata: version, offsets, the spec's two-byte empty form. */
    static const uint8_t v2[] = {0x02, 0, 0}, short_empty[] = {0x01, 0x00};
    static const uint8_t desc[] = {0x01, 2, 0, 2, 1, 'a', 'b'};
    static const uint8_t one[] = {0x00};
    plank_error err;
    CHECK(plank_variant_validate(v2, 3, one, 1, &err) == PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "version") != NULL);
    CHECK(plank_variant_validate(short_empty, 2, one, 1, &err) == PLANK_OK);
    CHECK(plank_variant_validate(desc, sizeof desc, one, 1, &err) == PLANK_ERR_CORRUPT);
    /* Trailing bytes after the value: validate refuses. */
    static const uint8_t trail[] = {0x00, 0x00};
    CHECK(plank_variant_validate(empty_meta, 3, trail, 2, &err) == PLANK_ERR_CORRUPT);
    /* Buffer semantics: truncated like snprintf, full length reported. */
    char small[4];
    size_t len = 0;
    CHECK(plank_variant_to_json(meta, sizeof meta, obj, sizeof obj, small, sizeof small, &len,
                                NULL, &err) == PLANK_OK);
    CHECK_EQ_I64((int64_t)len, 19);
    CHECK(strcmp(small, "{\"a") == 0);
    CHECK(plank_variant_to_json(meta, sizeof meta, obj, sizeof obj, NULL, 0, &len, NULL, &err) ==
          PLANK_OK);
    CHECK_EQ_I64((int64_t)len, 19);
    CHECK(plank_variant_to_json(NULL, 0, obj, sizeof obj, small, 4, &len, NULL, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
}

/* Every truncation and a fixed set of byte mutations of a corpus value:
 * each must decode or fail cleanly. */
static void torture(const uint8_t *m, size_t ml, const uint8_t *v, size_t vl) {
    char buf[256];
    plank_error err;
    size_t len;
    for (size_t n = 0; n < vl; n++)
        CHECK(plank_variant_validate(m, ml, v, n, &err) != PLANK_OK);
    for (size_t n = 0; n < ml; n++)
        (void)plank_variant_to_json(m, n, v, vl, buf, sizeof buf, &len, NULL, &err);
    uint8_t *mv = malloc(vl), *mm = malloc(ml);
    uint32_t seed = 12345u + (uint32_t)vl;
    for (int round = 0; round < 400; round++) {
        memcpy(mv, v, vl);
        memcpy(mm, m, ml);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (vl + ml);
            uint8_t x = (uint8_t)(seed >> 24);
            if (at < vl) mv[at] ^= x ? x : 1;
            else mm[at - vl] ^= x ? x : 1;
        }
        plank_status st = plank_variant_to_json(mm, ml, mv, vl, buf, sizeof buf, &len, NULL, &err);
        CHECK(st == PLANK_OK || st == PLANK_ERR_CORRUPT);
        if (st != PLANK_OK) CHECK(err.message[0] != 0);
    }
    free(mv);
    free(mm);
}

static void test_corpus(void) {
    const char *dir = th_testing_dir();
    char path[4096];
    if (!dir) {
        TEST_SKIP_PART("parquet-testing corpus not found");
        return;
    }
    snprintf(path, sizeof path, "%s/variant", dir);
    DIR *d = opendir(path);
    if (!d) {
        TEST_SKIP_PART("no variant/ directory in the corpus");
        return;
    }
    int cases = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 6 || strcmp(e->d_name + l - 6, ".value") != 0) continue;
        char mp[8192], vp[8192];
        snprintf(vp, sizeof vp, "%s/%s", path, e->d_name);
        snprintf(mp, sizeof mp, "%s/%.*s.metadata", path, (int)(l - 6), e->d_name);
        size_t ml = 0, vl = 0;
        unsigned char *m = th_read_file(mp, &ml), *v = th_read_file(vp, &vl);
        CHECK_MSG(m && v, "cannot read %s", vp);
        if (m && v) {
            plank_error err;
            CHECK_MSG(plank_variant_validate(m, ml, v, vl, &err) == PLANK_OK, "%s: %s",
                      e->d_name, err.message);
            torture(m, ml, v, vl);
            cases++;
        }
        free(m);
        free(v);
    }
    closedir(d);
    CHECK_MSG(cases >= 29, "only %d variant cases", cases);
}

int main(void) {
    test_primitives();
    test_containers();
    test_corpus();
    TEST_END();
}
