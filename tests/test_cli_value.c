/* test_cli_value.c: known-answer tests of the CLI's value formatter (the
 * exact text `plank cat` prints). Expected strings come from the format
 * description, RFC 4648, Python's datetime and the values documented in
 * parquet-testing's int96_from_spark.md. */
#include "../src/tools/cli_value.c"

#include <float.h>

#include "tharness.h"

/* Runs `expr` (which writes into b) and compares the text with `want`. */
#define EXPECT_TEXT(want, expr)                                                    \
    do {                                                                           \
        cli_buf b;                                                                 \
        cli_buf_init(&b);                                                          \
        expr;                                                                      \
        CHECK_MSG(b.len == strlen(want) && (b.len == 0 || memcmp(b.data, want, b.len) == 0),       \
                  "got \"%.*s\", want \"%s\"", (int)b.len, b.data ? b.data : "", want); \
        cli_buf_free(&b);                                                          \
    } while (0)

static void le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static cli_value_format fmt_of(plank_physical_type ph, int32_t len, plank_logical_kind kind) {
    plank_logical_type t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    cli_value_format f;
    cli_value_format_init(&f, ph, len, &t, PLANK_CONVERTED_NONE, 0);
    return f;
}

static void test_dates(void) {
    EXPECT_TEXT("1970-01-01", cli_format_date(&b, 0));
    EXPECT_TEXT("1969-12-31", cli_format_date(&b, -1));
    EXPECT_TEXT("2000-02-29", cli_format_date(&b, 11016));
    EXPECT_TEXT("2000-03-01", cli_format_date(&b, 11017));
    EXPECT_TEXT("0001-01-01", cli_format_date(&b, -719162));
    EXPECT_TEXT("0000-12-31", cli_format_date(&b, -719163));
    EXPECT_TEXT("0000-01-01", cli_format_date(&b, -719528)); /* year 0 is leap */
    EXPECT_TEXT("-0001-12-31", cli_format_date(&b, -719529));
    EXPECT_TEXT("9999-12-31", cli_format_date(&b, 2932896));
    EXPECT_TEXT("10000-01-01", cli_format_date(&b, 2932897));
    EXPECT_TEXT("1900-03-01", cli_format_date(&b, -25508)); /* 1900 is not leap */
}

static void test_times(void) {
    EXPECT_TEXT("00:00:00.000", cli_format_time(&b, 0, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("23:59:59.999", cli_format_time(&b, 86399999, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("12:34:56.000123", cli_format_time(&b, INT64_C(45296000123), PLANK_UNIT_MICROS));
    EXPECT_TEXT("01:00:00.000000001",
                cli_format_time(&b, INT64_C(3600000000001), PLANK_UNIT_NANOS));
    /* Outside [00:00, 24:00] (parquet-mr writes negative millis): a signed
     * duration, neither wrapped nor clamped (DuckDB keeps the number too;
     * tests/peer/names_times.mjs checks the text against it). */
    EXPECT_TEXT("24:00:00.000", cli_format_time(&b, 86400000, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("24:00:00.005", cli_format_time(&b, 86400005, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("-00:00:01.000", cli_format_time(&b, -1000, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("-00:00:00.001", cli_format_time(&b, -1, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("-48:00:00.001", cli_format_time(&b, -172800001, PLANK_UNIT_MILLIS));
    EXPECT_TEXT("-596:31:23.648", cli_format_time(&b, INT32_MIN, PLANK_UNIT_MILLIS));
}

static void test_timestamps(void) {
    EXPECT_TEXT("1970-01-01T00:00:00.000", cli_format_timestamp(&b, 0, PLANK_UNIT_MILLIS, false));
    EXPECT_TEXT("1969-12-31T23:59:59.999Z", cli_format_timestamp(&b, -1, PLANK_UNIT_MILLIS, true));
    EXPECT_TEXT("1969-12-31T23:59:59.999999",
                cli_format_timestamp(&b, -1, PLANK_UNIT_MICROS, false));
    EXPECT_TEXT("1969-12-31T23:59:59.999999999Z",
                cli_format_timestamp(&b, -1, PLANK_UNIT_NANOS, true));
    EXPECT_TEXT("2009-02-13T23:31:30.123456Z",
                cli_format_timestamp(&b, INT64_C(1234567890123456), PLANK_UNIT_MICROS, true));
    EXPECT_TEXT("2009-02-13T23:31:30.123",
                cli_format_timestamp(&b, INT64_C(1234567890123), PLANK_UNIT_MILLIS, false));
    EXPECT_TEXT("2009-02-13T23:31:30.123456789",
                cli_format_timestamp(&b, INT64_C(1234567890123456789), PLANK_UNIT_NANOS, false));
    /* Exactly one day before the epoch must not borrow a day. */
    EXPECT_TEXT("1969-12-31T00:00:00.000",
                cli_format_timestamp(&b, -86400000, PLANK_UNIT_MILLIS, false));
    /* The int64 nanosecond limits: 1677-09-21T00:12:43.145224192 and
     * 2262-04-11T23:47:16.854775807. */
    EXPECT_TEXT("1677-09-21T00:12:43.145224192",
                cli_format_timestamp(&b, INT64_MIN, PLANK_UNIT_NANOS, false));
    EXPECT_TEXT("2262-04-11T23:47:16.854775807",
                cli_format_timestamp(&b, INT64_MAX, PLANK_UNIT_NANOS, false));
}

static void test_int96(void) {
    /* int96_from_spark.md: microseconds 1704141296123456 and
     * 9089380393200000000 (year 290000), split into Julian day + nanos. */
    uint8_t p[12];
    le64(p, UINT64_C(74096123456000));
    le32(p + 8, 2460311);
    EXPECT_TEXT("2024-01-01T20:34:56.123456000", cli_format_int96(&b, p));
    le64(p, UINT64_C(82800000000000));
    le32(p + 8, 5373484);
    EXPECT_TEXT("9999-12-31T23:00:00.000000000", cli_format_int96(&b, p));
    le64(p, UINT64_C(82800000000000));
    le32(p + 8, 107641749);
    EXPECT_TEXT("290000-12-30T23:00:00.000000000", cli_format_int96(&b, p));
    /* The file's last value, 290000-12-31T01:00:00+02:00: Spark's
     * microsecond arithmetic wrapped when writing it, leaving nanoseconds
     * outside the day and a negative day; read back the way Spark does. */
    static const uint8_t spark_290000[12] = {0x00, 0x60, 0xb9, 0xc7, 0x6e, 0xe2,
                                             0xff, 0xff, 0xa8, 0xab, 0xb0, 0xf9};
    EXPECT_TEXT("290000-12-30T23:00:00.000000000", cli_format_int96(&b, spark_290000));
    /* Julian day 2440588 is the epoch; a negative nanosecond count (-1 ns)
     * borrows from the day. */
    le64(p, UINT64_MAX);
    le32(p + 8, 2440588);
    EXPECT_TEXT("1969-12-31T23:59:59.999999999", cli_format_int96(&b, p));
    /* 1 day + 1 ns of nanoseconds carries into the next day. */
    le64(p, UINT64_C(86400000000001));
    EXPECT_TEXT("1970-01-02T00:00:00.000000001", cli_format_int96(&b, p));
    /* Through cli_format_value, quoted for JSON. */
    cli_value_format f = fmt_of(PLANK_INT96, 0, PLANK_LOGICAL_NONE);
    le64(p, 0);
    le32(p + 8, 2440589);
    EXPECT_TEXT("\"1970-01-02T00:00:00.000000000\"",
                CHECK(cli_format_value(&b, &f, p, 12, CLI_STYLE_JSON)));
    CHECK(!cli_format_value(NULL, &f, p, 11, CLI_STYLE_JSON)); /* wrong length */
}

static void test_decimals(void) {
    EXPECT_TEXT("-12.30", cli_format_decimal_i64(&b, -1230, 2));
    EXPECT_TEXT("0.05", cli_format_decimal_i64(&b, 5, 2));
    EXPECT_TEXT("-0.05", cli_format_decimal_i64(&b, -5, 2));
    EXPECT_TEXT("123", cli_format_decimal_i64(&b, 123, 0));
    EXPECT_TEXT("0.00012", cli_format_decimal_i64(&b, 12, 5));
    EXPECT_TEXT("0.000", cli_format_decimal_i64(&b, 0, 3));
    EXPECT_TEXT("-9223372036854775808", cli_format_decimal_i64(&b, INT64_MIN, 0));
    EXPECT_TEXT("-92233720368547758.08", cli_format_decimal_i64(&b, INT64_MIN, 2));

    const uint8_t neg1[3] = {0xff, 0xff, 0xff};
    EXPECT_TEXT("-0.01", cli_format_decimal_be(&b, neg1, 3, 2));
    const uint8_t v1234[2] = {0x04, 0xd2};
    EXPECT_TEXT("12.34", cli_format_decimal_be(&b, v1234, 2, 2));
    EXPECT_TEXT("0", cli_format_decimal_be(&b, v1234, 0, 0));
    /* 16 bytes: -2^127 and 2^127-1 (beyond 64 bits). */
    uint8_t big[16];
    memset(big, 0, 16);
    big[0] = 0x80;
    EXPECT_TEXT("-170141183460469231731687303715884105728", cli_format_decimal_be(&b, big, 16, 0));
    EXPECT_TEXT("-1701411834604692317316873037158841057.28",
                cli_format_decimal_be(&b, big, 16, 2));
    memset(big, 0xff, 16);
    big[0] = 0x7f;
    EXPECT_TEXT("170141183460469231731687303715884105727", cli_format_decimal_be(&b, big, 16, 0));
    /* 10^18 * 10 = 10^19 (needs 9 bytes; inner zero groups must be padded). */
    const uint8_t e19[9] = {0x00, 0x8a, 0xc7, 0x23, 0x04, 0x89, 0xe8, 0x00, 0x00};
    EXPECT_TEXT("10000000000000000000", cli_format_decimal_be(&b, e19, 9, 0));
    EXPECT_TEXT("0.0000000000000000000010000000000000000000",
                cli_format_decimal_be(&b, e19, 9, 40));
    /* -1 over 12 bytes with scale 0. */
    uint8_t m1[12];
    memset(m1, 0xff, 12);
    EXPECT_TEXT("-1", cli_format_decimal_be(&b, m1, 12, 0));

    /* Through the column formats: INT32, INT64, FLBA, BYTE_ARRAY. */
    plank_logical_type t;
    memset(&t, 0, sizeof t);
    t.kind = PLANK_LOGICAL_DECIMAL;
    t.precision = 9;
    t.scale = 2;
    cli_value_format f;
    uint8_t p[8];
    cli_value_format_init(&f, PLANK_INT32, 0, &t, PLANK_CONVERTED_NONE, 0);
    le32(p, (uint32_t)-1230);
    EXPECT_TEXT("\"-12.30\"", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    EXPECT_TEXT("-12.30", cli_format_value(&b, &f, p, 4, CLI_STYLE_TEXT));
    cli_value_format_init(&f, PLANK_INT64, 0, &t, PLANK_CONVERTED_NONE, 0);
    le64(p, (uint64_t)-5);
    EXPECT_TEXT("\"-0.05\"", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    cli_value_format_init(&f, PLANK_FIXED_LEN_BYTE_ARRAY, 2, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("\"12.34\"", cli_format_value(&b, &f, v1234, 2, CLI_STYLE_JSON));
    cli_value_format_init(&f, PLANK_BYTE_ARRAY, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("\"-0.01\"", cli_format_value(&b, &f, neg1, 3, CLI_STYLE_JSON));
    /* Legacy converted DECIMAL with its own scale. */
    cli_value_format_init(&f, PLANK_INT32, 0, NULL, PLANK_CONVERTED_DECIMAL, 3);
    le32(p, 1234);
    EXPECT_TEXT("\"1.234\"", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
}

static void test_floats(void) {
    EXPECT_TEXT("0.1", cli_format_double(&b, 0.1));
    EXPECT_TEXT("1e+300", cli_format_double(&b, 1e300));
    EXPECT_TEXT("5e-324", cli_format_double(&b, 5e-324));
    EXPECT_TEXT("1.7976931348623157e+308", cli_format_double(&b, DBL_MAX));
    EXPECT_TEXT("3.4028234663852886e+38", cli_format_double(&b, (double)FLT_MAX));
    EXPECT_TEXT("0.30000000000000004", cli_format_double(&b, 0.1 + 0.2));
    EXPECT_TEXT("-0", cli_format_double(&b, -0.0));
    EXPECT_TEXT("1.5", cli_format_double(&b, 1.5));
    EXPECT_TEXT("1e+06", cli_format_double(&b, 1e6)); /* as %.1g writes it */
    EXPECT_TEXT("-1.5e+03", cli_format_double(&b, -1500));
    EXPECT_TEXT("100.5", cli_format_double(&b, 100.5));
    EXPECT_TEXT("123456789012345", cli_format_double(&b, 123456789012345.0));
    EXPECT_TEXT("1234567890123456", cli_format_double(&b, 1234567890123456.0));
    EXPECT_TEXT("0.3", cli_format_double(&b, 0.3));
    EXPECT_TEXT("2.2250738585072014e-308", cli_format_double(&b, DBL_MIN));
    EXPECT_TEXT("1e-310", cli_format_double(&b, 1e-310)); /* subnormal */
    EXPECT_TEXT("0", cli_format_double(&b, 0.0));
    EXPECT_TEXT("NaN", CHECK(!cli_format_double(&b, NAN)));
    EXPECT_TEXT("-Infinity", cli_format_double(&b, -INFINITY));
    EXPECT_TEXT("0.1", cli_format_float(&b, 0.1f));
    EXPECT_TEXT("3.4028235e+38", cli_format_float(&b, FLT_MAX));
    EXPECT_TEXT("1e-45", cli_format_float(&b, 1e-45f));
    EXPECT_TEXT("16777216", cli_format_float(&b, 16777216.0f));
    EXPECT_TEXT("1e+06", cli_format_float(&b, 1e6f));
    EXPECT_TEXT("1.1", cli_format_float(&b, 1.1f));
    EXPECT_TEXT("1.1754944e-38", cli_format_float(&b, FLT_MIN));
    EXPECT_TEXT("Infinity", cli_format_float(&b, INFINITY));

    /* JSON: numbers bare, non-finite quoted. */
    cli_value_format f = fmt_of(PLANK_DOUBLE, 0, PLANK_LOGICAL_NONE);
    uint8_t p[8];
    double d = 2.5;
    memcpy(p, &d, 8);
    EXPECT_TEXT("2.5", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    d = NAN;
    memcpy(p, &d, 8);
    EXPECT_TEXT("\"NaN\"", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    EXPECT_TEXT("NaN", cli_format_value(&b, &f, p, 8, CLI_STYLE_TEXT));
    f = fmt_of(PLANK_FLOAT, 0, PLANK_LOGICAL_NONE);
    float x = 0.1f;
    memcpy(p, &x, 4);
    EXPECT_TEXT("0.1", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
}

/* The fast shortest search against the definition (smallest %.Pg that
 * reads back), over random bit patterns of every magnitude. */
static void test_shortest_random(void) {
    uint64_t x = 0x9e3779b97f4a7c15u;
    int bad = 0;
    for (int i = 0; i < 60000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        uint64_t bits = i % 3 == 0 ? x : (x & 0x800fffffffffffffu) | ((uint64_t)(1023 + (int)(x % 40) - 20) << 52);
        if (i % 5 == 1) bits &= 0xffffffff00000000u; /* short mantissas */
        memcpy(&d, &bits, 8);
        if (!isfinite(d)) continue;
        cli_buf fast, slow;
        cli_buf_init(&fast);
        cli_buf_init(&slow);
        cli_format_double(&fast, d);
        put_shortest(&slow, d, 17, false);
        if (fast.len != slow.len || memcmp(fast.data, slow.data, fast.len) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "double %a: fast %.*s, definition %.*s\n", d, (int)fast.len,
                        fast.data, (int)slow.len, slow.data);
        }
        float f = (float)d;
        if (isfinite(f)) {
            fast.len = slow.len = 0;
            cli_format_float(&fast, f);
            put_shortest(&slow, (double)f, 9, true);
            if (fast.len != slow.len || memcmp(fast.data, slow.data, fast.len) != 0) {
                if (bad++ < 5)
                    fprintf(stderr, "float %a: fast %.*s, definition %.*s\n", (double)f,
                            (int)fast.len, fast.data, (int)slow.len, slow.data);
            }
        }
        cli_buf_free(&fast);
        cli_buf_free(&slow);
    }
    CHECK_EQ_I64(bad, 0);
}

static void test_float16(void) {
    EXPECT_TEXT("1", cli_format_float16(&b, 0x3c00));
    /* 65504 is the largest half; the half spacing there is 32, so three
     * digits already read back to it. */
    EXPECT_TEXT("6.55e+04", cli_format_float16(&b, 0x7bff));
    EXPECT_TEXT("6e-08", cli_format_float16(&b, 0x0001));
    EXPECT_TEXT("-2", cli_format_float16(&b, 0xc000));
    EXPECT_TEXT("0.1", cli_format_float16(&b, 0x2e66)); /* nearest half to 0.1 */
    EXPECT_TEXT("0.3333", cli_format_float16(&b, 0x3555)); /* 0.333251953125 */
    EXPECT_TEXT("-0", cli_format_float16(&b, 0x8000));
    EXPECT_TEXT("NaN", cli_format_float16(&b, 0x7e00));
    EXPECT_TEXT("Infinity", cli_format_float16(&b, 0x7c00));
    EXPECT_TEXT("-Infinity", cli_format_float16(&b, 0xfc00));
    CHECK_EQ_I64(cli_half_from_double(65519.0), 0x7bff);
    CHECK_EQ_I64(cli_half_from_double(65520.0), 0x7c00);
    CHECK_EQ_I64(cli_half_from_double(1.0 + 1.0 / 2048), 0x3c00);     /* tie to even */
    CHECK_EQ_I64(cli_half_from_double(1.0 + 3.0 / 2048), 0x3c02);     /* tie to even */
    CHECK_EQ_I64(cli_half_from_double(ldexp(1.0, -25)), 0x0000);      /* tie to even */
    CHECK_EQ_I64(cli_half_from_double(ldexp(1.5, -25)), 0x0001);
    CHECK_EQ_I64(cli_half_from_double(ldexp(1023.5, -24)), 0x0400);   /* rounds up to normal */
    CHECK_EQ_I64(cli_half_from_double(-ldexp(1.0, -14)), 0x8400);
    /* Every finite half round-trips through its text. */
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00) continue;
        cli_buf b;
        cli_buf_init(&b);
        cli_format_float16(&b, (uint16_t)h);
        cli_buf_putc(&b, 0);
        if (cli_half_from_double(strtod(b.data, NULL)) != h) bad++;
        cli_buf_free(&b);
    }
    CHECK_EQ_I64(bad, 0);
    cli_value_format f = fmt_of(PLANK_FIXED_LEN_BYTE_ARRAY, 2, PLANK_LOGICAL_FLOAT16);
    const uint8_t one[2] = {0x00, 0x3c}, nan[2] = {0x00, 0x7e};
    EXPECT_TEXT("1", cli_format_value(&b, &f, one, 2, CLI_STYLE_JSON));
    EXPECT_TEXT("\"NaN\"", cli_format_value(&b, &f, nan, 2, CLI_STYLE_JSON));
}

static void test_base64(void) {
    /* RFC 4648 section 10. */
    const uint8_t *s = (const uint8_t *)"foobar";
    EXPECT_TEXT("", cli_format_base64(&b, s, 0));
    EXPECT_TEXT("Zg==", cli_format_base64(&b, s, 1));
    EXPECT_TEXT("Zm8=", cli_format_base64(&b, s, 2));
    EXPECT_TEXT("Zm9v", cli_format_base64(&b, s, 3));
    EXPECT_TEXT("Zm9vYg==", cli_format_base64(&b, s, 4));
    EXPECT_TEXT("Zm9vYmE=", cli_format_base64(&b, s, 5));
    EXPECT_TEXT("Zm9vYmFy", cli_format_base64(&b, s, 6));
    const uint8_t hi[3] = {0xff, 0xfe, 0xfb};
    EXPECT_TEXT("//77", cli_format_base64(&b, hi, 3));
    cli_value_format f = fmt_of(PLANK_BYTE_ARRAY, 0, PLANK_LOGICAL_NONE);
    EXPECT_TEXT("\"Zm9vYg==\"", cli_format_value(&b, &f, s, 4, CLI_STYLE_JSON));
    f = fmt_of(PLANK_FIXED_LEN_BYTE_ARRAY, 3, PLANK_LOGICAL_NONE);
    EXPECT_TEXT("Zm9v", cli_format_value(&b, &f, s, 3, CLI_STYLE_TEXT));
}

static void test_uuid_interval(void) {
    const uint8_t u[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                           0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
    EXPECT_TEXT("123e4567-e89b-12d3-a456-426614174000", cli_format_uuid(&b, u));
    cli_value_format f = fmt_of(PLANK_FIXED_LEN_BYTE_ARRAY, 16, PLANK_LOGICAL_UUID);
    CHECK(f.kind == CLI_V_UUID);
    EXPECT_TEXT("\"123e4567-e89b-12d3-a456-426614174000\"",
                cli_format_value(&b, &f, u, 16, CLI_STYLE_JSON));
    /* UUID on the wrong width falls back to base64. */
    f = fmt_of(PLANK_FIXED_LEN_BYTE_ARRAY, 3, PLANK_LOGICAL_UUID);
    CHECK(f.kind == CLI_V_BINARY);

    uint8_t iv[12];
    le32(iv, 14);
    le32(iv + 4, 3);
    le32(iv + 8, 4294967295u);
    EXPECT_TEXT("{\"months\":14,\"days\":3,\"millis\":4294967295}", cli_format_interval(&b, iv));
    cli_value_format_init(&f, PLANK_FIXED_LEN_BYTE_ARRAY, 12, NULL, PLANK_CONVERTED_INTERVAL, 0);
    CHECK(f.kind == CLI_V_INTERVAL);
    EXPECT_TEXT("{\"months\":14,\"days\":3,\"millis\":4294967295}",
                cli_format_value(&b, &f, iv, 12, CLI_STYLE_JSON));
}

static void test_json_strings(void) {
    const char *s1 = "a\"b\\c\n\t\x01\x1f";
    EXPECT_TEXT("\"a\\\"b\\\\c\\n\\t\\u0001\\u001f\"",
                cli_json_string(&b, (const uint8_t *)s1, strlen(s1)));
    /* Valid UTF-8 passes through: é, €, U+1F600. */
    const char *s2 = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    EXPECT_TEXT("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
                cli_json_string(&b, (const uint8_t *)s2, strlen(s2)));
    /* Invalid: lone continuation, overlong '/', surrogate, truncated, 0xff. */
    const char *s3 = "\x80" "\xc0\xaf" "\xed\xa0\x80" "x\xe2\x82" "\xff";
    EXPECT_TEXT("\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdx\\ufffd\\ufffd\\ufffd\"",
                cli_json_string(&b, (const uint8_t *)s3, strlen(s3)));
    /* An embedded NUL is escaped, not a terminator. */
    EXPECT_TEXT("\"a\\u0000b\"", cli_json_string(&b, (const uint8_t *)"a\0b", 3));
    cli_value_format f = fmt_of(PLANK_BYTE_ARRAY, 0, PLANK_LOGICAL_STRING);
    EXPECT_TEXT("\"x\\\"\"", cli_format_value(&b, &f, (const uint8_t *)"x\"", 2, CLI_STYLE_JSON));
    EXPECT_TEXT("x\"", cli_format_value(&b, &f, (const uint8_t *)"x\"", 2, CLI_STYLE_TEXT));
    /* Legacy UTF8 converted type. */
    cli_value_format_init(&f, PLANK_BYTE_ARRAY, 0, NULL, PLANK_CONVERTED_UTF8, 0);
    CHECK(f.kind == CLI_V_STRING);
}

static void test_integers(void) {
    uint8_t p[8];
    cli_value_format f;
    plank_logical_type t;
    memset(&t, 0, sizeof t);
    t.kind = PLANK_LOGICAL_INTEGER;

    le32(p, 0xffffffffu);
    cli_value_format_init(&f, PLANK_INT32, 0, NULL, PLANK_CONVERTED_UINT_32, 0);
    EXPECT_TEXT("4294967295", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    cli_value_format_init(&f, PLANK_INT32, 0, NULL, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("-1", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    le32(p, 255);
    cli_value_format_init(&f, PLANK_INT32, 0, NULL, PLANK_CONVERTED_UINT_8, 0);
    EXPECT_TEXT("255", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    cli_value_format_init(&f, PLANK_INT32, 0, NULL, PLANK_CONVERTED_INT_8, 0);
    EXPECT_TEXT("-1", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    t.bit_width = 16;
    t.is_signed = false;
    le32(p, 65535);
    cli_value_format_init(&f, PLANK_INT32, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("65535", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    t.is_signed = true;
    cli_value_format_init(&f, PLANK_INT32, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("-1", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    le32(p, (uint32_t)INT32_MIN);
    cli_value_format_init(&f, PLANK_INT32, 0, NULL, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("-2147483648", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));

    le64(p, UINT64_MAX);
    t.bit_width = 64;
    t.is_signed = false;
    cli_value_format_init(&f, PLANK_INT64, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("18446744073709551615", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    cli_value_format_init(&f, PLANK_INT64, 0, NULL, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("-1", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    le64(p, (uint64_t)INT64_MIN);
    EXPECT_TEXT("-9223372036854775808", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    /* A 64-bit annotation on INT32 does not fit: printed as the INT32. */
    le32(p, 0xffffffffu);
    cli_value_format_init(&f, PLANK_INT32, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("-1", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));

    f = fmt_of(PLANK_BOOLEAN, 0, PLANK_LOGICAL_NONE);
    EXPECT_TEXT("true", cli_format_value(&b, &f, (const uint8_t *)"\1", 1, CLI_STYLE_JSON));
    EXPECT_TEXT("false", cli_format_value(&b, &f, (const uint8_t *)"\0", 1, CLI_STYLE_JSON));
}

static void test_column_kinds(void) {
    uint8_t p[8];
    plank_logical_type t;
    memset(&t, 0, sizeof t);
    cli_value_format f;

    /* DATE, TIME, TIMESTAMP through the column format, quoted in JSON. */
    f = fmt_of(PLANK_INT32, 0, PLANK_LOGICAL_DATE);
    le32(p, (uint32_t)-1);
    EXPECT_TEXT("\"1969-12-31\"", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    EXPECT_TEXT("1969-12-31", cli_format_value(&b, &f, p, 4, CLI_STYLE_TEXT));
    t.kind = PLANK_LOGICAL_TIME;
    t.unit = PLANK_UNIT_MICROS;
    cli_value_format_init(&f, PLANK_INT64, 0, &t, PLANK_CONVERTED_NONE, 0);
    le64(p, 1);
    EXPECT_TEXT("\"00:00:00.000001\"", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    /* TIME(MILLIS) on INT64 does not fit: a plain integer. */
    t.unit = PLANK_UNIT_MILLIS;
    cli_value_format_init(&f, PLANK_INT64, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("1", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    t.kind = PLANK_LOGICAL_TIMESTAMP;
    t.unit = PLANK_UNIT_NANOS;
    t.is_adjusted_to_utc = false;
    cli_value_format_init(&f, PLANK_INT64, 0, &t, PLANK_CONVERTED_NONE, 0);
    EXPECT_TEXT("\"1970-01-01T00:00:00.000000001\"",
                cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    /* Legacy TIMESTAMP_MILLIS is UTC-adjusted. */
    cli_value_format_init(&f, PLANK_INT64, 0, NULL, PLANK_CONVERTED_TIMESTAMP_MILLIS, 0);
    EXPECT_TEXT("\"1970-01-01T00:00:00.001Z\"", cli_format_value(&b, &f, p, 8, CLI_STYLE_JSON));
    /* UNKNOWN: null in JSON, empty in text. */
    f = fmt_of(PLANK_INT32, 0, PLANK_LOGICAL_UNKNOWN);
    EXPECT_TEXT("null", cli_format_value(&b, &f, p, 4, CLI_STYLE_JSON));
    EXPECT_TEXT("", cli_format_value(&b, &f, p, 4, CLI_STYLE_TEXT));
    /* BSON and unannotated FLBA: base64. */
    f = fmt_of(PLANK_BYTE_ARRAY, 0, PLANK_LOGICAL_BSON);
    CHECK(f.kind == CLI_V_BINARY);
}

int main(void) {
    test_dates();
    test_times();
    test_timestamps();
    test_int96();
    test_decimals();
    test_floats();
    test_shortest_random();
    test_float16();
    test_base64();
    test_uuid_interval();
    test_json_strings();
    test_integers();
    test_column_kinds();
    TEST_END();
}
