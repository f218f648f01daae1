/*
 * test_variant_write.c: the VARIANT writer (pk_vwriter) and the JSON encoder
 * (plank_variant_from_json). Expected bytes are laid out here by hand from
 * VariantEncoding.md; larger values are checked field by field with a
 * reader written here, and every result passes plank_variant_validate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"
#include "variant/pk_variant.h"

static th_alloc counts;
static plank_allocator alloc;

/* ---- helpers ---------------------------------------------------------------------- */

static uint32_t le(const uint8_t *p, uint32_t n) {
    uint32_t v = 0;
    for (uint32_t i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/* got[0..len) equals want[0..n); else both sizes and got's first bytes. */
static void same_bytes(const uint8_t *got, size_t len, const uint8_t *want, size_t n,
                       const char *what, int line) {
    bool same = len == n && memcmp(got, want, n) == 0;
    CHECK_MSG(same, "line %d: %s: %zu bytes, want %zu", line, what, len, n);
    if (!same) {
        for (size_t i = 0; i < len && i < 64; i++) fprintf(stderr, "%02x ", got[i]);
        fputc('\n', stderr);
    }
}

/* The finished value of w equals want[0..n). */
static void expect_value(pk_vwriter *w, const uint8_t *want, size_t n, int line) {
    const uint8_t *v = NULL;
    size_t len = 0;
    plank_error err;
    plank_status st = pk_vw_finish(w, &v, &len, &err);
    CHECK_MSG(st == PLANK_OK, "line %d: finish: %s", line, err.message);
    if (st == PLANK_OK) same_bytes(v, len, want, n, "", line);
}
#define EXPECT_VALUE(w, ...)                                                  \
    do {                                                                      \
        static const uint8_t want_[] = {__VA_ARGS__};                         \
        expect_value((w), want_, sizeof want_, __LINE__);                     \
    } while (0)

static void check_ok(plank_status st, const plank_error *err, int line) {
    CHECK_MSG(st == PLANK_OK, "line %d: %s", line, err->message);
}
#define OK(expr) check_ok((expr), &err, __LINE__)

/* The metadata and value of w, validated. */
static void finish_both(pk_vwriter *w, pk_buffer *meta, const uint8_t **v, size_t *vl) {
    plank_error err;
    OK(pk_vw_finish(w, v, vl, &err));
    OK(pk_vw_finish_metadata(w, meta, &err));
    OK(plank_variant_validate(meta->data, meta->size, *v, *vl, &err));
}

/* ---- primitives --------------------------------------------------------------------- */

static void test_primitives(void) {
    pk_vwriter w;
    plank_error err;
    pk_vw_init(&w, &alloc);
#define ONE(call, ...)                 \
    do {                               \
        pk_vw_reset(&w);               \
        OK(call);                      \
        EXPECT_VALUE(&w, __VA_ARGS__); \
    } while (0)
    ONE(pk_vw_null(&w, &err), 0x00);
    ONE(pk_vw_bool(&w, true, &err), 0x04);
    ONE(pk_vw_bool(&w, false, &err), 0x08);
    ONE(pk_vw_int(&w, PK_VT_INT8, -34, &err), 3 << 2, 0xde);
    ONE(pk_vw_int(&w, PK_VT_INT16, 1234, &err), 4 << 2, 0xd2, 0x04);
    ONE(pk_vw_int(&w, PK_VT_INT32, 123456, &err), 5 << 2, 0x40, 0xe2, 0x01, 0x00);
    ONE(pk_vw_int(&w, PK_VT_INT64, INT64_MAX, &err), 6 << 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0x7f);
    ONE(pk_vw_int_auto(&w, 127, &err), 3 << 2, 0x7f);
    ONE(pk_vw_int_auto(&w, -128, &err), 3 << 2, 0x80);
    ONE(pk_vw_int_auto(&w, 128, &err), 4 << 2, 0x80, 0x00);
    ONE(pk_vw_int_auto(&w, -32769, &err), 5 << 2, 0xff, 0x7f, 0xff, 0xff);
    ONE(pk_vw_int_auto(&w, 2147483648LL, &err), 6 << 2, 0, 0, 0, 0x80, 0, 0, 0, 0);
    ONE(pk_vw_double(&w, 1.5, &err), 7 << 2, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f);
    ONE(pk_vw_float(&w, 1.5f, &err), 14 << 2, 0, 0, 0xc0, 0x3f);
    ONE(pk_vw_decimal(&w, PK_VT_DECIMAL4, 2, -1, (uint64_t)-1230, &err), 8 << 2, 2, 0x32, 0xfb,
        0xff, 0xff);
    ONE(pk_vw_decimal(&w, PK_VT_DECIMAL8, 0, 0, 999999999999999999ull, &err), 9 << 2, 0, 0xff,
        0xff, 0x63, 0xa7, 0xb3, 0xb6, 0xe0, 0x0d);
    ONE(pk_vw_decimal(&w, PK_VT_DECIMAL16, 38, 0, 1, &err), 10 << 2, 38, 1, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0);
    ONE(pk_vw_temporal(&w, PK_VT_DATE, -1, &err), 11 << 2, 0xff, 0xff, 0xff, 0xff);
    ONE(pk_vw_temporal(&w, PK_VT_TIMESTAMP, 1, &err), 12 << 2, 1, 0, 0, 0, 0, 0, 0, 0);
    ONE(pk_vw_temporal(&w, PK_VT_TIMESTAMP_NTZ, 2, &err), 13 << 2, 2, 0, 0, 0, 0, 0, 0, 0);
    ONE(pk_vw_temporal(&w, PK_VT_TIME, 3, &err), 17 << 2, 3, 0, 0, 0, 0, 0, 0, 0);
    ONE(pk_vw_temporal(&w, PK_VT_TIMESTAMP_NANOS, 4, &err), 18 << 2, 4, 0, 0, 0, 0, 0, 0, 0);
    ONE(pk_vw_temporal(&w, PK_VT_TIMESTAMP_NTZ_NANOS, 5, &err), 19 << 2, 5, 0, 0, 0, 0, 0, 0, 0);
    ONE(pk_vw_string(&w, (const uint8_t *)"abc", 3, &err), 3 << 2 | 1, 'a', 'b', 'c');
    ONE(pk_vw_string(&w, (const uint8_t *)"", 0, &err), 0x01);
    ONE(pk_vw_binary(&w, (const uint8_t *)"\x01\x02", 2, &err), 15 << 2, 2, 0, 0, 0, 1, 2);
    static const uint8_t u[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                  1, 2, 3, 4, 5, 6, 7, 8};
    ONE(pk_vw_uuid(&w, u, &err), 20 << 2, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2,
        3, 4, 5, 6, 7, 8);
    ONE(pk_vw_raw(&w, (const uint8_t *)"\x0c\x05", 2, &err), 0x0c, 0x05);
    /* 63 bytes: short; 64: a long string */
    uint8_t s64[64];
    memset(s64, 'x', sizeof s64);
    const uint8_t *v;
    size_t vl;
    pk_vw_reset(&w);
    OK(pk_vw_string(&w, s64, 63, &err));
    OK(pk_vw_finish(&w, &v, &vl, &err));
    CHECK(vl == 64 && v[0] == (63 << 2 | 1));
    pk_vw_reset(&w);
    OK(pk_vw_string(&w, s64, 64, &err));
    OK(pk_vw_finish(&w, &v, &vl, &err));
    CHECK(vl == 69 && v[0] == 16 << 2 && le(v + 1, 4) == 64);
    /* misuse and ranges */
    pk_vw_reset(&w);
    CHECK(pk_vw_int(&w, PK_VT_INT8, 128, &err) == PLANK_ERR_INVALID_ARGUMENT && err.message[0]);
    CHECK(pk_vw_int(&w, PK_VT_DOUBLE, 1, &err) == PLANK_ERR_INVALID_ARGUMENT && err.message[0]);
    CHECK(pk_vw_decimal(&w, PK_VT_DECIMAL4, 0, 0, 1000000000, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_decimal(&w, PK_VT_DECIMAL4, 39, 0, 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_decimal(&w, PK_VT_DECIMAL8, 0, 0, 1000000000000000000ull, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_temporal(&w, PK_VT_DATE, 1LL << 40, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_finish(&w, &v, &vl, &err) == PLANK_ERR_INVALID_ARGUMENT && err.message[0]);
    OK(pk_vw_null(&w, &err));
    CHECK(pk_vw_null(&w, &err) == PLANK_ERR_INVALID_ARGUMENT && err.message[0]);
    pk_vw_free(&w);
#undef ONE
}

/* ---- containers ------------------------------------------------------------------------ */

static void key(pk_vwriter *w, const char *k) {
    plank_error err;
    OK(pk_vw_key(w, (const uint8_t *)k, strlen(k), &err));
}

static void field_int(pk_vwriter *w, const char *k, int64_t v) {
    plank_error err;
    key(w, k);
    OK(pk_vw_int_auto(w, v, &err));
}

static void field_null(pk_vwriter *w, const char *k) {
    plank_error err;
    key(w, k);
    OK(pk_vw_null(w, &err));
}

/* A fresh own-mode writer and metadata buffer. */
static void setup(pk_vwriter *w, pk_buffer *meta) {
    pk_buffer_init(meta, &alloc);
    pk_vw_init(w, &alloc);
}

static void test_objects(void) {
    pk_vwriter w;
    plank_error err;
    pk_buffer meta;
    setup(&w, &meta);
    /* {"c": 3, "b": 2, "a": 1}: ids in first-use order c=0 b=1 a=2; fields
     * ordered a, b, c; values moved into that order. */
    OK(pk_vw_object_begin(&w, &err));
    field_int(&w, "c", 3);
    field_int(&w, "b", 2);
    field_int(&w, "a", 1);
    OK(pk_vw_object_end(&w, &err));
    EXPECT_VALUE(&w, 0x02, 3, 2, 1, 0, 0, 2, 4, 6, 0x0c, 1, 0x0c, 2, 0x0c, 3);
    OK(pk_vw_finish_metadata(&w, &meta, &err));
    static const uint8_t m1[] = {0x01, 3, 0, 1, 2, 3, 'c', 'b', 'a'};
    CHECK(meta.size == sizeof m1 && memcmp(meta.data, m1, sizeof m1) == 0);
    /* sorted keys: sorted_strings set; the empty dictionary */
    pk_vw_reset(&w);
    OK(pk_vw_object_begin(&w, &err));
    field_null(&w, "a");
    key(&w, "ab");
    OK(pk_vw_array_begin(&w, &err));
    OK(pk_vw_bool(&w, true, &err));
    OK(pk_vw_array_end(&w, &err));
    OK(pk_vw_object_end(&w, &err));
    EXPECT_VALUE(&w, 0x02, 2, 0, 1, 0, 1, 6, 0x00, 0x03, 1, 0, 1, 0x04);
    OK(pk_vw_finish_metadata(&w, &meta, &err));
    static const uint8_t m2[] = {0x11, 2, 0, 1, 3, 'a', 'a', 'b'};
    CHECK(meta.size == sizeof m2 && memcmp(meta.data, m2, sizeof m2) == 0);
    pk_vw_reset(&w);
    OK(pk_vw_object_begin(&w, &err));
    OK(pk_vw_object_end(&w, &err));
    EXPECT_VALUE(&w, 0x02, 0, 0);
    OK(pk_vw_finish_metadata(&w, &meta, &err));
    CHECK(meta.size == 3 && meta.data[0] == 0x11 && meta.data[1] == 0 && meta.data[2] == 0);
    /* prefix order: "ab" after "a", and unsigned bytes: "\xff" after "z" */
    pk_vw_reset(&w);
    OK(pk_vw_object_begin(&w, &err));
    field_int(&w, "\xff", 1);
    field_int(&w, "ab", 2);
    field_int(&w, "a", 3);
    OK(pk_vw_object_end(&w, &err));
    EXPECT_VALUE(&w, 0x02, 3, 2, 1, 0, 0, 2, 4, 6, 0x0c, 3, 0x0c, 2, 0x0c, 1);
    /* errors: duplicate key, key misuse, unbalanced ends */
    pk_vw_reset(&w);
    OK(pk_vw_object_begin(&w, &err));
    field_null(&w, "b");
    field_null(&w, "a");
    field_null(&w, "b");
    CHECK(pk_vw_object_end(&w, &err) == PLANK_ERR_INVALID_ARGUMENT &&
          strstr(err.message, "\"b\"") != NULL);
    pk_vw_reset(&w);
    CHECK(pk_vw_key(&w, (const uint8_t *)"a", 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
    OK(pk_vw_object_begin(&w, &err));
    CHECK(pk_vw_null(&w, &err) == PLANK_ERR_INVALID_ARGUMENT && err.message[0]);
    key(&w, "a");
    CHECK(pk_vw_key(&w, (const uint8_t *)"b", 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_object_end(&w, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_array_end(&w, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_vw_key_id(&w, 0, &err) == PLANK_ERR_INVALID_ARGUMENT);
    /* depth */
    pk_vw_reset(&w);
    for (int i = 0; i < PK_VARIANT_MAX_DEPTH; i++) OK(pk_vw_array_begin(&w, &err));
    CHECK(pk_vw_array_begin(&w, &err) == PLANK_ERR_LIMIT && err.message[0]);
    const uint8_t *v;
    size_t vl;
    CHECK(pk_vw_finish(&w, &v, &vl, &err) == PLANK_ERR_INVALID_ARGUMENT);
    pk_vw_free(&w);
    pk_buffer_reset(&meta);
}

/* Field ids and offsets at their width thresholds: n fields with distinct
 * keys "k<i>" written in reverse order, each value a string of `vlen`. */
static void wide_object(uint32_t n, size_t vlen, uint32_t want_id, uint32_t want_off,
                        bool want_large) {
    pk_vwriter w;
    plank_error err;
    pk_buffer meta;
    setup(&w, &meta);
    uint8_t *val = malloc(vlen + 1);
    memset(val, 'v', vlen);
    OK(pk_vw_object_begin(&w, &err));
    char k[16];
    for (uint32_t i = n; i-- > 0;) {
        snprintf(k, sizeof k, "k%07u", i);
        key(&w, k);
        OK(pk_vw_string(&w, val, vlen, &err));
    }
    OK(pk_vw_object_end(&w, &err));
    const uint8_t *v;
    size_t vl;
    finish_both(&w, &meta, &v, &vl);
    uint8_t h = v[0];
    uint32_t off_size = (h >> 2 & 3) + 1, id_size = (h >> 4 & 3) + 1;
    bool large = h >> 6 & 1;
    CHECK_MSG(id_size == want_id && off_size == want_off && large == want_large,
              "n %u: id %u off %u large %d", n, id_size, off_size, large);
    uint32_t num = le(v + 1, large ? 4 : 1);
    CHECK(num == n);
    const uint8_t *ids = v + 1 + (large ? 4 : 1), *offs = ids + (size_t)n * id_size;
    const uint8_t *vals = offs + (size_t)(n + 1) * off_size;
    size_t elem = vlen < 64 ? 1 + vlen : 5 + vlen;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        /* sorted by key: field i is "k<i>", whose id is n - 1 - i */
        ok = le(ids + (size_t)i * id_size, id_size) == n - 1 - i &&
             le(offs + (size_t)i * off_size, off_size) == i * elem;
    }
    CHECK_MSG(ok, "n %u: ids or offsets wrong", n);
    CHECK(le(offs + (size_t)n * off_size, off_size) == n * elem);
    CHECK((size_t)(vals - v) + n * elem == vl);
    /* the metadata: n keys, in id order (reversed, so not sorted unless n<2) */
    uint32_t mos = (meta.data[0] >> 6) + 1;
    CHECK(meta.data[0] == (uint8_t)(1 | (n < 2 ? 0x10 : 0) | (mos - 1) << 6));
    CHECK(le(meta.data + 1, mos) == n);
    free(val);
    pk_vw_free(&w);
    pk_buffer_reset(&meta);
}

static void test_widths(void) {
    wide_object(1, 1, 1, 1, false);
    wide_object(255, 0, 1, 1, false);
    wide_object(256, 0, 1, 2, true);      /* ids 0..255: 1 byte; 256 data bytes: 2 */
    wide_object(257, 0, 2, 2, true);
    wide_object(100, 650, 1, 2, false);   /* 65500 data bytes: 2-byte offsets */
    wide_object(101, 650, 1, 3, false);   /* 66155: 3-byte offsets */
    wide_object(65537, 0, 3, 3, true);
    /* arrays: > 255 elements, 65536-byte data */
    pk_vwriter w;
    plank_error err;
    pk_vw_init(&w, &alloc);
    OK(pk_vw_array_begin(&w, &err));
    for (int i = 0; i < 256; i++) OK(pk_vw_null(&w, &err));
    OK(pk_vw_array_end(&w, &err));
    const uint8_t *v;
    size_t vl;
    OK(pk_vw_finish(&w, &v, &vl, &err));
    CHECK(v[0] == (0x03 | (1 << 2 | 1) << 2) && le(v + 1, 4) == 256 && vl == 1 + 4 + 257 * 2 + 256);
    pk_vw_reset(&w);
    uint8_t big[65531];
    memset(big, 'b', sizeof big);
    OK(pk_vw_array_begin(&w, &err));
    OK(pk_vw_string(&w, big, sizeof big, &err)); /* 5 + 65531 = 65536 bytes */
    OK(pk_vw_array_end(&w, &err));
    OK(pk_vw_finish(&w, &v, &vl, &err));
    CHECK(v[0] == (0x03 | 2 << 2) && v[1] == 1 && le(v + 2, 3) == 0 && le(v + 5, 3) == 65536);
    pk_vw_reset(&w);
    OK(pk_vw_array_begin(&w, &err));
    OK(pk_vw_string(&w, big, sizeof big - 1, &err)); /* 65535: 2-byte offsets */
    OK(pk_vw_array_end(&w, &err));
    OK(pk_vw_finish(&w, &v, &vl, &err));
    CHECK(v[0] == (0x03 | 1 << 2) && le(v + 4, 2) == 65535);
    pk_vw_free(&w);
}

/* Own-mode metadata bytes for many keys: 2-byte offsets past 255 bytes. */
static void test_metadata_layout(void) {
    pk_vwriter w;
    plank_error err;
    pk_buffer meta;
    setup(&w, &meta);
    OK(pk_vw_object_begin(&w, &err));
    char k[8];
    for (int i = 0; i < 100; i++) { /* "000".."099": 300 bytes, sorted */
        snprintf(k, sizeof k, "%03d", i);
        key(&w, k);
        OK(pk_vw_int_auto(&w, i, &err));
    }
    OK(pk_vw_object_end(&w, &err));
    const uint8_t *v;
    size_t vl;
    finish_both(&w, &meta, &v, &vl);
    /* expected: header 0x51 (version 1, sorted, 2-byte offsets), size 100,
     * offsets 0, 3, ..., 300, then the bytes */
    size_t want_n = 1 + 2 + 101 * 2 + 300;
    uint8_t *want = malloc(want_n);
    want[0] = 0x01 | 0x10 | 1 << 6;
    want[1] = 100, want[2] = 0;
    for (int i = 0; i <= 100; i++) want[3 + 2 * i] = (uint8_t)(3 * i), want[4 + 2 * i] = (uint8_t)(3 * i >> 8);
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "%03d", i);
        memcpy(want + 3 + 202 + 3 * i, k, 3);
    }
    CHECK(meta.size == want_n && memcmp(meta.data, want, want_n) == 0);
    free(want);
    /* a reused key keeps its id; reset empties the dictionary */
    pk_vw_reset(&w);
    OK(pk_vw_array_begin(&w, &err));
    for (int i = 0; i < 2; i++) {
        OK(pk_vw_object_begin(&w, &err));
        field_null(&w, "x");
        OK(pk_vw_object_end(&w, &err));
    }
    OK(pk_vw_array_end(&w, &err));
    finish_both(&w, &meta, &v, &vl);
    static const uint8_t m[] = {0x11, 1, 0, 1, 'x'};
    CHECK(meta.size == sizeof m && memcmp(meta.data, m, sizeof m) == 0);
    pk_vw_free(&w);
    pk_buffer_reset(&meta);
}

/* use_metadata mode: keys resolve through a given block. */
static void test_fixed_metadata(void) {
    static const uint8_t m[] = {0x01, 2, 0, 1, 2, 'b', 'a'}; /* unsorted: b=0, a=1 */
    pk_vmeta vm;
    plank_error err;
    OK(pk_vmeta_parse(&vm, m, sizeof m, &err));
    pk_vwriter w;
    pk_vw_init(&w, &alloc);
    pk_vw_use_metadata(&w, &vm);
    OK(pk_vw_object_begin(&w, &err));
    OK(pk_vw_key_id(&w, 0, &err));
    OK(pk_vw_int_auto(&w, 1, &err));
    field_int(&w, "a", 2);
    CHECK(pk_vw_key(&w, (const uint8_t *)"zz", 2, &err) == PLANK_ERR_INVALID_ARGUMENT &&
          err.message[0]);
    CHECK(pk_vw_key_id(&w, 2, &err) == PLANK_ERR_INVALID_ARGUMENT);
    OK(pk_vw_object_end(&w, &err));
    EXPECT_VALUE(&w, 0x02, 2, 1, 0, 0, 2, 4, 0x0c, 2, 0x0c, 1);
    pk_buffer meta;
    pk_buffer_init(&meta, &alloc);
    CHECK(pk_vw_finish_metadata(&w, &meta, &err) == PLANK_ERR_INVALID_ARGUMENT);
    pk_buffer_reset(&meta);
    pk_vw_free(&w);
}

/* ---- JSON --------------------------------------------------------------------------- */

static plank_variant_builder *vb;

/* JSON in, the value's bytes out (compared with want), validated. */
static void json_bytes(const char *json, const uint8_t *want, size_t n, int line) {
    plank_error err;
    plank_status st = plank_variant_from_json(vb, json, strlen(json), &err);
    CHECK_MSG(st == PLANK_OK, "line %d: %s: %s", line, json, err.message);
    if (st != PLANK_OK) return;
    const uint8_t *m, *v;
    size_t ml, vl;
    plank_variant_builder_result(vb, &m, &ml, &v, &vl);
    CHECK_MSG(plank_variant_validate(m, ml, v, vl, &err) == PLANK_OK, "line %d: %s", line,
              err.message);
    same_bytes(v, vl, want, n, json, line);
}
#define JSON_BYTES(json, ...)                                  \
    do {                                                       \
        static const uint8_t want_[] = {__VA_ARGS__};          \
        json_bytes((json), want_, sizeof want_, __LINE__);     \
    } while (0)

static void json_error(const char *json, size_t len, plank_status want, const char *needle,
                       int line) {
    plank_error err;
    plank_status st = plank_variant_from_json(vb, json, len, &err);
    CHECK_MSG(st == want, "line %d: status %d, want %d (%s)", line, (int)st, (int)want,
              err.message);
    CHECK_MSG(err.message[0] && (!needle || strstr(err.message, needle)),
              "line %d: message '%s' lacks '%s'", line, err.message, needle ? needle : "");
    const uint8_t *m, *v;
    size_t ml, vl;
    plank_variant_builder_result(vb, &m, &ml, &v, &vl);
    CHECK(ml == 0 && vl == 0);
}
#define JSON_ERR(json, want, needle) json_error((json), strlen(json), (want), (needle), __LINE__)

/* Text of the JSON's round trip through plank_variant_to_json. */
static void json_text(const char *json, const char *want, int line) {
    plank_error err;
    plank_status st = plank_variant_from_json(vb, json, strlen(json), &err);
    CHECK_MSG(st == PLANK_OK, "line %d: %s", line, err.message);
    const uint8_t *m, *v;
    size_t ml, vl, len;
    plank_variant_builder_result(vb, &m, &ml, &v, &vl);
    char buf[512];
    st = plank_variant_to_json(m, ml, v, vl, buf, sizeof buf, &len, NULL, &err);
    CHECK_MSG(st == PLANK_OK && strcmp(buf, want) == 0, "line %d: %s -> %s, want %s", line,
              json, buf, want);
}
#define JSON_TEXT(json, want) json_text((json), (want), __LINE__)

static void test_json_numbers(void) {
    JSON_BYTES("0", 0x0c, 0);
    JSON_BYTES("-0", 0x0c, 0);
    JSON_BYTES("127", 0x0c, 0x7f);
    JSON_BYTES("-128", 0x0c, 0x80);
    JSON_BYTES("128", 0x10, 0x80, 0);
    JSON_BYTES("-129", 0x10, 0x7f, 0xff);
    JSON_BYTES("32767", 0x10, 0xff, 0x7f);
    JSON_BYTES("32768", 0x14, 0, 0x80, 0, 0);
    JSON_BYTES("-2147483648", 0x14, 0, 0, 0, 0x80);
    JSON_BYTES("2147483648", 0x18, 0, 0, 0, 0x80, 0, 0, 0, 0);
    JSON_BYTES("9223372036854775807", 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
    JSON_BYTES("-9223372036854775808", 0x18, 0, 0, 0, 0, 0, 0, 0, 0x80);
    /* past int64: decimal16 (19 digits), scale 0 */
    JSON_BYTES("9223372036854775808", 0x28, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0);
    JSON_BYTES("-9223372036854775809", 0x28, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
               0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    /* fractions: decimals by digits and scale */
    JSON_BYTES("1.5", 0x20, 1, 15, 0, 0, 0);
    JSON_BYTES("-1.50", 0x20, 2, 0x6a, 0xff, 0xff, 0xff);
    JSON_BYTES("0.001", 0x20, 3, 1, 0, 0, 0);
    JSON_BYTES("-0.0", 0x20, 1, 0, 0, 0, 0);
    JSON_BYTES("999999999.0", 0x24, 1, 0xf6, 0xe3, 0x0b, 0x54, 0x02, 0, 0, 0); /* 10 digits */
    JSON_BYTES("99999999.9", 0x20, 1, 0xff, 0xc9, 0x9a, 0x3b);                  /* 9 digits */
    JSON_BYTES("0.0000000001", 0x24, 10, 1, 0, 0, 0, 0, 0, 0, 0);              /* scale 10 */
    JSON_BYTES("0.000000001", 0x20, 9, 1, 0, 0, 0);
    JSON_TEXT("99999999999999999.9", "\"99999999999999999.9\"");
    JSON_TEXT("999999999999999999.9", "\"999999999999999999.9\"");
    JSON_TEXT("12345678901234567890123456789.012345678", "\"12345678901234567890123456789.012345678\"");
    JSON_TEXT("99999999999999999999999999999999999999", "\"99999999999999999999999999999999999999\"");
    /* 39 digits, or a scale of 39, or an exponent: double */
    JSON_TEXT("999999999999999999999999999999999999999", "1e+39");
    JSON_TEXT("0.000000000000000000000000000000000000001", "1e-39");
    JSON_BYTES("1e3", 0x1c, 0, 0, 0, 0, 0, 0x40, 0x8f, 0x40);
    JSON_BYTES("1.5E0", 0x1c, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f);
    JSON_TEXT("-2.5e-3", "-0.0025");
    JSON_TEXT("1e999", "\"Infinity\"");
    /* malformed */
    JSON_ERR("01", PLANK_ERR_INVALID_ARGUMENT, "byte offset 1");
    JSON_ERR("1.", PLANK_ERR_INVALID_ARGUMENT, "byte offset 0");
    JSON_ERR("-", PLANK_ERR_INVALID_ARGUMENT, "byte offset 0");
    JSON_ERR("1e", PLANK_ERR_INVALID_ARGUMENT, "exponent");
    JSON_ERR("+1", PLANK_ERR_INVALID_ARGUMENT, "byte offset 0");
    JSON_ERR(".5", PLANK_ERR_INVALID_ARGUMENT, NULL);
}

static void test_json_strings(void) {
    JSON_BYTES("\"\"", 0x01);
    JSON_BYTES("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\"", 9 << 2 | 1, 'a', '"', '\\', '/', 8, 12, 10, 13, 9);
    JSON_BYTES("\"\\u00e9\"", 2 << 2 | 1, 0xc3, 0xa9);
    JSON_BYTES("\"\\u20AC\"", 3 << 2 | 1, 0xe2, 0x82, 0xac);
    JSON_BYTES("\"\\ud83d\\ude00\"", 4 << 2 | 1, 0xf0, 0x9f, 0x98, 0x80);
    JSON_BYTES("\"\xf0\x9f\x98\x80\"", 4 << 2 | 1, 0xf0, 0x9f, 0x98, 0x80);
    JSON_BYTES(" true ", 0x04);
    JSON_BYTES("false", 0x08);
    JSON_BYTES("\tnull\r\n", 0x00);
    JSON_ERR("\"\\ud83d\"", PLANK_ERR_INVALID_ARGUMENT, "surrogate");
    JSON_ERR("\"\\ud83dx\"", PLANK_ERR_INVALID_ARGUMENT, "byte offset 1");
    JSON_ERR("\"\\ude00\"", PLANK_ERR_INVALID_ARGUMENT, "surrogate");
    JSON_ERR("\"\\ud83d\\u0041\"", PLANK_ERR_INVALID_ARGUMENT, "surrogate");
    JSON_ERR("\"ab\xff\"", PLANK_ERR_INVALID_ARGUMENT, "byte offset 3");
    JSON_ERR("\"\xc0\xaf\"", PLANK_ERR_INVALID_ARGUMENT, "UTF-8");         /* overlong */
    JSON_ERR("\"\xed\xa0\x80\"", PLANK_ERR_INVALID_ARGUMENT, "UTF-8");     /* encoded surrogate */
    JSON_ERR("\"\xf4\x90\x80\x80\"", PLANK_ERR_INVALID_ARGUMENT, "UTF-8"); /* > U+10FFFF */
    JSON_ERR("\"\xe2\x82\"", PLANK_ERR_INVALID_ARGUMENT, "UTF-8");         /* truncated */
    JSON_ERR("{\"\xff\":1}", PLANK_ERR_INVALID_ARGUMENT, "byte offset 2");
    JSON_ERR("\xff", PLANK_ERR_INVALID_ARGUMENT, "UTF-8");
    JSON_ERR("\"a\x01\"", PLANK_ERR_INVALID_ARGUMENT, "control");
    JSON_ERR("\"\\x\"", PLANK_ERR_INVALID_ARGUMENT, "escape");
    JSON_ERR("\"\\u12\"", PLANK_ERR_INVALID_ARGUMENT, "hex");
    JSON_ERR("\"abc", PLANK_ERR_INVALID_ARGUMENT, "unterminated");
    JSON_ERR("tru", PLANK_ERR_INVALID_ARGUMENT, "byte offset 0");
    JSON_ERR("", PLANK_ERR_INVALID_ARGUMENT, "expected a value");
    JSON_ERR("1 2", PLANK_ERR_INVALID_ARGUMENT, "byte offset 2");
    json_error("\"a\0b\"", 5, PLANK_ERR_INVALID_ARGUMENT, "control", __LINE__);
}

static void test_json_containers(void) {
    JSON_BYTES("{\"b\":1,\"a\":[true,null]}", 0x02, 2, 1, 0, 0, 7, 9, 0x03, 2, 0, 1, 2, 0x04, 0x00,
               0x0c, 1);
    JSON_BYTES("[]", 0x03, 0, 0);
    JSON_BYTES("{}", 0x02, 0, 0);
    JSON_BYTES(" [ [ ] , { } ] ", 0x03, 2, 0, 3, 6, 0x03, 0, 0, 0x02, 0, 0);
    JSON_TEXT("{\"z\":{\"y\":[1,\"x\",{\"a\":null}]},\"a\":\"\xc3\xa9\"}",
              "{\"a\":\"\xc3\xa9\",\"z\":{\"y\":[1,\"x\",{\"a\":null}]}}");
    /* The empty key met again while it is the only key: its bytes (none)
     * were never allocated (fuzz_variant: NULL + 0 under UBSan). */
    JSON_TEXT("{\"\":{\"\":1}}", "{\"\":{\"\":1}}");
    JSON_TEXT("[{\"\":1},{\"\":[]}]", "[{\"\":1},{\"\":[]}]");
    JSON_ERR("{\"a\":1,\"a\":2}", PLANK_ERR_INVALID_ARGUMENT, "appears twice");
    JSON_ERR("{\"a\":1,}", PLANK_ERR_INVALID_ARGUMENT, "byte offset 7");
    JSON_ERR("[1,]", PLANK_ERR_INVALID_ARGUMENT, "byte offset 3");
    JSON_ERR("[1 2]", PLANK_ERR_INVALID_ARGUMENT, "byte offset 3");
    JSON_ERR("{\"a\" 1}", PLANK_ERR_INVALID_ARGUMENT, "':'");
    JSON_ERR("{1:2}", PLANK_ERR_INVALID_ARGUMENT, "key");
    JSON_ERR("[1", PLANK_ERR_INVALID_ARGUMENT, "unterminated");
    JSON_ERR("{\"a\":1", PLANK_ERR_INVALID_ARGUMENT, "unterminated");
    /* depth: 128 arrays fit, 129 do not */
    char deep[300];
    for (int d = 128; d <= 129; d++) {
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        deep[2 * d] = '\0';
        plank_error err;
        plank_status st = plank_variant_from_json(vb, deep, strlen(deep), &err);
        if (d == 128) CHECK_MSG(st == PLANK_OK, "%s", err.message);
        else CHECK(st == PLANK_ERR_LIMIT && strstr(err.message, "byte offset 128"));
    }
    /* a large object through JSON: 300 keys */
    char *big = malloc(300 * 16 + 8), *p = big;
    *p++ = '{';
    for (int i = 0; i < 300; i++) p += sprintf(p, "%s\"k%d\":%d", i ? "," : "", 299 - i, i);
    *p++ = '}';
    *p = '\0';
    plank_error err;
    OK(plank_variant_from_json(vb, big, strlen(big), &err));
    const uint8_t *m, *v;
    size_t ml, vl;
    plank_variant_builder_result(vb, &m, &ml, &v, &vl);
    OK(plank_variant_validate(m, ml, v, vl, &err));
    CHECK(v[0] == (0x02 | (1 << 4 | 1 << 2 | 1) << 2) && le(v + 1, 4) == 300);
    free(big);
    /* NULL arguments */
    CHECK(plank_variant_from_json(NULL, "1", 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_variant_from_json(vb, NULL, 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_variant_builder_new(NULL, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
}

/* Every allocation failure is an error, never a crash or a leak. */
static void test_faults(void) {
    const char *json = "{\"a\":[1,2,{\"b\":\"a string longer than sixty-four bytes, to be sure "
                       "it is long\"}],\"c\":1.5}";
    for (int64_t k = 1; k < 200; k++) {
        th_alloc fa;
        plank_allocator a = th_alloc_init(&fa);
        fa.fail_at = k;
        plank_variant_builder *b = NULL;
        plank_error err;
        plank_status st = plank_variant_builder_new(&b, &a, &err);
        if (st == PLANK_OK) st = plank_variant_from_json(b, json, strlen(json), &err);
        plank_variant_builder_free(b);
        CHECK(fa.live_blocks == 0);
        if (st == PLANK_OK && !fa.failed) break;
        CHECK_MSG(st == PLANK_ERR_OUT_OF_MEMORY || !fa.failed, "k %lld: %d", (long long)k, (int)st);
    }
}

int main(void) {
    alloc = th_alloc_init(&counts);
    test_primitives();
    test_objects();
    test_widths();
    test_metadata_layout();
    test_fixed_metadata();
    plank_error err;
    CHECK(plank_variant_builder_new(&vb, &alloc, &err) == PLANK_OK);
    test_json_numbers();
    test_json_strings();
    test_json_containers();
    plank_variant_builder_free(vb);
    test_faults();
    CHECK_EQ_I64(counts.live_blocks, 0);
    TEST_END();
}
