/* gen_write_matrix.c OUTDIR: writes the files of the writer's
 * interoperability matrix (tests/peer/write_interop.mjs reads them with
 * DuckDB, Polars and hyparquet).
 *
 * The same rows are written under every configuration (codec, page version,
 * dictionary, encodings, page and row group sizes):
 *   OUTDIR/<config>.parquet  one file per configuration whose codec this
 *                            build has;
 *   OUTDIR/expected.jsonl    one JSON object per row, the values in the
 *                            canonical forms write_interop.mjs documents,
 *                            produced here from the generator, never by
 *                            plank's reader;
 *   OUTDIR/configs.json      per file: codec, page version, row groups, and
 *                            per leaf column the encodings it must (and must
 *                            not) list, its num_values and, for a few
 *                            columns, the statistics of each row group.
 *
 * Canonical forms: integers, decimals, times, timestamps and dates (days) as
 * decimal strings; floats as "%.9g" (FLOAT, FLOAT16) / "%.17g" (DOUBLE)
 * strings, which round-trip, with "NaN", "Infinity", "-Infinity" and "-0";
 * strings as JSON strings; binary, fixed-length and UUID bytes as lowercase
 * hex; lists as arrays, structs as objects, maps as arrays of [key, value]. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plank.h"

#define NROWS 1000

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void die(const char *what) {
    fprintf(stderr, "gen_write_matrix: %s\n", what);
    exit(2);
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

/* ---- a growing string ------------------------------------------------------ */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_put(sbuf *s, const void *src, size_t n) {
    if (s->n + n + 1 > s->cap) {
        s->cap = (s->n + n + 1) * 2;
        s->p = xrealloc(s->p, s->cap);
    }
    memcpy(s->p + s->n, src, n);
    s->n += n;
    s->p[s->n] = 0;
}

static void sb_printf(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *s, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) die("sb_printf overflow");
    sb_put(s, tmp, (size_t)n);
}

/* A JSON string of n bytes (valid UTF-8 is kept as it is). */
static void sb_json_str(sbuf *s, const uint8_t *p, size_t n) {
    sb_put(s, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"' || p[i] == '\\') {
            sb_put(s, "\\", 1);
            sb_put(s, &p[i], 1);
        } else if (p[i] < 0x20) {
            sb_printf(s, "\\u%04x", p[i]);
        } else {
            sb_put(s, &p[i], 1);
        }
    }
    sb_put(s, "\"", 1);
}

static void sb_hex(sbuf *s, const uint8_t *p, size_t n) {
    sb_put(s, "\"", 1);
    for (size_t i = 0; i < n; i++) sb_printf(s, "%02x", p[i]);
    sb_put(s, "\"", 1);
}

static void sb_float(sbuf *s, double v, int digits) {
    if (isnan(v)) sb_printf(s, "\"NaN\"");
    else if (isinf(v)) sb_printf(s, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else sb_printf(s, "\"%.*g\"", digits, v);
}

/* An unscaled decimal given as sign and magnitude digits, with `scale`
 * fraction digits: "-12.30" for (neg, "1230", 2). */
static void sb_decimal(sbuf *s, bool neg, const char *digits, int scale) {
    char buf[64];
    size_t n = strlen(digits), sc = (size_t)scale, at = 0;
    size_t total = n > sc ? n : sc + 1; /* digits with the leading zeros */
    if (neg && strspn(digits, "0") < n) buf[at++] = '-';
    for (size_t p = 0; p < total; p++) {
        if (sc > 0 && total - p == sc) buf[at++] = '.';
        buf[at++] = p < total - n ? '0' : digits[p - (total - n)];
    }
    sb_put(s, "\"", 1);
    sb_put(s, buf, at);
    sb_put(s, "\"", 1);
}

static void sb_decimal_i64(sbuf *s, int64_t v, int scale) {
    char d[32];
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    snprintf(d, sizeof d, "%" PRIu64, mag);
    sb_decimal(s, v < 0, d, scale);
}

/* ---- the columns ------------------------------------------------------------ */

/* Flat leaves, each a top-level column. */
enum {
    K_BOOL, K_I8, K_I16, K_I32, K_I64, K_U8, K_U16, K_U32, K_U64, K_F32, K_F64, K_STR, K_BIN,
    K_FLBA, K_DEC9, K_DEC18, K_DEC38, K_DATE, K_TIME_MS, K_TIME_US, K_TS_MS, K_TS_US, K_TS_NS,
    K_TS_NS_LOCAL, K_UUID, K_F16, NFLAT
};

typedef struct flatdef {
    const char *name;
    plank_physical_type type;
    int32_t type_length;
    bool required;
    plank_logical_type logical;
    bool stats; /* statistics checked against DuckDB's parquet_metadata */
} flatdef;

#define INTL(bits, sg) {.kind = PLANK_LOGICAL_INTEGER, .bit_width = bits, .is_signed = sg}
#define DECL(p, s) {.kind = PLANK_LOGICAL_DECIMAL, .precision = p, .scale = s}
#define TIMEL(k, u, utc) {.kind = k, .unit = u, .is_adjusted_to_utc = utc}

static const flatdef FLAT[NFLAT] = {
    [K_BOOL] = {"bool", PLANK_BOOLEAN, 0, false, {0}, false},
    [K_I8] = {"i8", PLANK_INT32, 0, false, INTL(8, true), true},
    [K_I16] = {"i16", PLANK_INT32, 0, false, INTL(16, true), true},
    [K_I32] = {"i32", PLANK_INT32, 0, true, {0}, true},
    [K_I64] = {"i64", PLANK_INT64, 0, false, {0}, true},
    [K_U8] = {"u8", PLANK_INT32, 0, false, INTL(8, false), true},
    [K_U16] = {"u16", PLANK_INT32, 0, false, INTL(16, false), false},
    [K_U32] = {"u32", PLANK_INT32, 0, false, INTL(32, false), true},
    [K_U64] = {"u64", PLANK_INT64, 0, false, INTL(64, false), true},
    [K_F32] = {"f32", PLANK_FLOAT, 0, false, {0}, false},
    [K_F64] = {"f64", PLANK_DOUBLE, 0, true, {0}, false},
    [K_STR] = {"str", PLANK_BYTE_ARRAY, 0, false, {.kind = PLANK_LOGICAL_STRING}, true},
    [K_BIN] = {"bin", PLANK_BYTE_ARRAY, 0, false, {0}, false},
    [K_FLBA] = {"flba5", PLANK_FIXED_LEN_BYTE_ARRAY, 5, false, {0}, false},
    [K_DEC9] = {"dec9_2", PLANK_INT32, 0, false, DECL(9, 2), false},
    [K_DEC18] = {"dec18_4", PLANK_INT64, 0, false, DECL(18, 4), false},
    [K_DEC38] = {"dec38_10", PLANK_FIXED_LEN_BYTE_ARRAY, 16, false, DECL(38, 10), false},
    [K_DATE] = {"date", PLANK_INT32, 0, false, {.kind = PLANK_LOGICAL_DATE}, true},
    [K_TIME_MS] = {"time_ms", PLANK_INT32, 0, false,
                   TIMEL(PLANK_LOGICAL_TIME, PLANK_UNIT_MILLIS, true), false},
    [K_TIME_US] = {"time_us", PLANK_INT64, 0, false,
                   TIMEL(PLANK_LOGICAL_TIME, PLANK_UNIT_MICROS, false), false},
    [K_TS_MS] = {"ts_ms_utc", PLANK_INT64, 0, false,
                 TIMEL(PLANK_LOGICAL_TIMESTAMP, PLANK_UNIT_MILLIS, true), false},
    [K_TS_US] = {"ts_us_local", PLANK_INT64, 0, false,
                 TIMEL(PLANK_LOGICAL_TIMESTAMP, PLANK_UNIT_MICROS, false), false},
    [K_TS_NS] = {"ts_ns_utc", PLANK_INT64, 0, false,
                 TIMEL(PLANK_LOGICAL_TIMESTAMP, PLANK_UNIT_NANOS, true), false},
    [K_TS_NS_LOCAL] = {"ts_ns_local", PLANK_INT64, 0, false,
                       TIMEL(PLANK_LOGICAL_TIMESTAMP, PLANK_UNIT_NANOS, false), false},
    [K_UUID] = {"uuid", PLANK_FIXED_LEN_BYTE_ARRAY, 16, false, {.kind = PLANK_LOGICAL_UUID}, false},
    [K_F16] = {"f16", PLANK_FIXED_LEN_BYTE_ARRAY, 2, false, {.kind = PLANK_LOGICAL_FLOAT16}, false},
};

static const char LONG_STR[] =
    "long:0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
    "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
    "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz-end";
static const char *const STRS[] = {
    "", "\xc3\xa9t\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
    "\xf0\x9f\x98\x80 emoji", LONG_STR, "quote\" back\\slash", "tab\tnew\nline", "a", "zz",
};

/* The number of special values of a column: rows with row % 50 < n take the
 * special value row % 50, so every row group and most pages see them. */
#define SPECIAL(n) (row % 50 < (n) ? (int)(row % 50) : -1)

static void put_le(uint8_t *out, uint64_t v, int n) {
    for (int i = 0; i < n; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* A half-precision value as a double. */
static double half_value(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Magnitude digits (1 to 38) to a 16-byte big-endian two's complement. */
static void dec38_bytes(bool neg, const char *digits, uint8_t out[16]) {
    memset(out, 0, 16);
    for (const char *d = digits; *d; d++) {
        unsigned carry = (unsigned)(*d - '0');
        for (int i = 15; i >= 0; i--) {
            unsigned x = out[i] * 10u + carry;
            out[i] = (uint8_t)x;
            carry = x >> 8;
        }
    }
    if (neg) {
        unsigned carry = 1;
        for (int i = 15; i >= 0; i--) {
            unsigned x = (uint8_t)~out[i] + carry;
            out[i] = (uint8_t)x;
            carry = x >> 8;
        }
    }
}

/* Value (k, row): its PLAIN bytes into raw (*len) and its canonical JSON into
 * js; false for null. `num` receives integers (signed or unsigned bits) for
 * the statistics. */
static bool flat_value(int k, int64_t row, uint8_t *raw, size_t *len, sbuf *js, uint64_t *num) {
    uint64_t h = mix((uint64_t)row * 1000003u + (uint64_t)k * 7919u + 17);
    if (!FLAT[k].required && mix(h ^ 0x5555) % 9 == 0) {
        sb_printf(js, "null");
        return false;
    }
    int sp;
    int64_t i = 0;
    uint64_t u = 0;
    switch (k) {
    case K_BOOL:
        raw[0] = (uint8_t)(h & 1);
        *len = 1;
        sb_printf(js, raw[0] ? "true" : "false");
        return true;
    case K_I8: case K_I16: case K_I32: case K_I64: case K_DATE: case K_TIME_MS: case K_TIME_US:
    case K_TS_MS: case K_TS_US: case K_TS_NS: case K_TS_NS_LOCAL: case K_DEC9: case K_DEC18: {
        static const int64_t sp_i8[] = {INT8_MIN, INT8_MAX, 0, -1};
        static const int64_t sp_i16[] = {INT16_MIN, INT16_MAX, 0, -1};
        static const int64_t sp_i32[] = {INT32_MIN, INT32_MAX, 0, -1, 1};
        static const int64_t sp_i64[] = {INT64_MIN, INT64_MAX, 0, -1, INT64_MIN + 1};
        static const int64_t sp_date[] = {0, -1, -719162 /* 0001-01-01 */, 2932896 /* 9999-12-31 */};
        static const int64_t sp_tms[] = {0, 86399999};
        static const int64_t sp_tus[] = {0, 86399999999};
        static const int64_t sp_tsms[] = {0, -1, -62135596800000, 253402300799999};
        static const int64_t sp_tsus[] = {0, -1, -62135596800000000, 253402300799999999};
        static const int64_t sp_tsns[] = {0, -1, -9000000000000000000, 9000000000000000000};
        static const int64_t sp_d9[] = {999999999, -999999999, 0, 1, -1};
        static const int64_t sp_d18[] = {999999999999999999, -999999999999999999, 0, -1};
#define PICK(arr, rnd)                                                                          \
    do {                                                                                        \
        sp = SPECIAL((int)(sizeof arr / sizeof arr[0]));                                        \
        i = sp >= 0 ? arr[sp] : (rnd);                                                          \
    } while (0)
        int64_t s = (int64_t)(h >> 1);
        switch (k) {
        case K_I8: PICK(sp_i8, s % 256 - 128); break;
        case K_I16: PICK(sp_i16, s % 65536 - 32768); break;
        case K_I32: PICK(sp_i32, (int32_t)(uint32_t)h); break;
        case K_I64: PICK(sp_i64, (int64_t)h); break;
        case K_DATE: PICK(sp_date, s % 40000 - 5000); break;
        case K_TIME_MS: PICK(sp_tms, s % 86400000); break;
        case K_TIME_US: PICK(sp_tus, s % 86400000000); break;
        case K_TS_MS: PICK(sp_tsms, 1700000000000 + s % 100000000000 - 50000000000); break;
        case K_TS_US: PICK(sp_tsus, 1700000000000000 + s % 100000000000000 - 50000000000000); break;
        case K_TS_NS: case K_TS_NS_LOCAL: PICK(sp_tsns, 1700000000000000000 + s % 100000000000000000 - 50000000000000000); break;
        case K_DEC9: PICK(sp_d9, s % 1999999999 - 999999999); break;
        case K_DEC18: PICK(sp_d18, s % 1999999999999999999 - 999999999999999999); break;
        default: break;
        }
#undef PICK
        *num = (uint64_t)i;
        *len = FLAT[k].type == PLANK_INT32 ? 4 : 8;
        put_le(raw, (uint64_t)i, (int)*len);
        if (k == K_DEC9) sb_decimal_i64(js, i, 2);
        else if (k == K_DEC18) sb_decimal_i64(js, i, 4);
        else sb_printf(js, "\"%" PRId64 "\"", i);
        return true;
    }
    case K_U8: case K_U16: case K_U32: case K_U64: {
        static const uint64_t sp_u[4][3] = {{0, 255, 128}, {0, 65535, 32768},
                                            {0, UINT32_MAX, 2147483648u},
                                            {0, UINT64_MAX, 9223372036854775808u}};
        int bits = k == K_U8 ? 8 : k == K_U16 ? 16 : k == K_U32 ? 32 : 64;
        sp = SPECIAL(3);
        uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        u = sp >= 0 ? sp_u[k - K_U8][sp] : h & mask;
        *num = u;
        *len = bits == 64 ? 8 : 4;
        put_le(raw, u, (int)*len);
        sb_printf(js, "\"%" PRIu64 "\"", u);
        return true;
    }
    case K_F32: {
        static const float spf[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, FLT_MIN,
                                    1e-45f /* smallest subnormal */, FLT_MAX, -FLT_MAX};
        sp = SPECIAL(9);
        float f = sp >= 0 ? spf[sp] : (float)((double)(int64_t)(h % 2000000) / 7.0 - 100000.0);
        memcpy(raw, &f, 4);
        *len = 4;
        sb_float(js, f, 9);
        return true;
    }
    case K_F64: {
        static const double spd[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, DBL_MIN,
                                     4.9406564584124654e-324, DBL_MAX, -DBL_MAX, 0.1};
        sp = SPECIAL(10);
        double d = sp >= 0 ? spd[sp] : (double)(int64_t)(h % 2000000000) / 3.0 - 3e8;
        memcpy(raw, &d, 8);
        *len = 8;
        sb_float(js, d, 17);
        return true;
    }
    case K_STR: {
        sp = SPECIAL((int)(sizeof STRS / sizeof STRS[0]));
        char tmp[32];
        const char *s = sp >= 0 ? STRS[sp] : tmp;
        if (sp < 0) snprintf(tmp, sizeof tmp, "s%" PRIu64, h % 5000);
        *len = strlen(s);
        memcpy(raw, s, *len);
        sb_json_str(js, raw, *len);
        return true;
    }
    case K_BIN: case K_FLBA: case K_UUID: {
        size_t n = FLAT[k].type_length ? (size_t)FLAT[k].type_length : (size_t)(h % 9);
        sp = SPECIAL(3);
        for (size_t b = 0; b < n; b++) raw[b] = (uint8_t)(mix(h + b) >> 13);
        if (k == K_BIN && sp == 1) n = 100;
        if (sp >= 0) for (size_t b = 0; b < n; b++) raw[b] = sp == 0 ? 0 : sp == 1 ? (uint8_t)b : 0xff;
        if (k == K_BIN && sp == 0) n = 0;
        *len = n;
        sb_hex(js, raw, n);
        return true;
    }
    case K_DEC38: {
        static const char *const spd38[] = {"99999999999999999999999999999999999999",
                                            "99999999999999999999999999999999999999", "0", "1"};
        char digits[40];
        sp = SPECIAL(4);
        bool neg = sp >= 0 ? sp == 1 : (h & 1);
        if (sp >= 0) {
            snprintf(digits, sizeof digits, "%s", spd38[sp]);
        } else {
            int nd = 1 + (int)(h % 38);
            uint64_t g = mix(h);
            for (int d = 0; d < nd; d++) {
                if (d % 16 == 0) g = mix(g + (uint64_t)d);
                digits[d] = (char)('0' + (g >> (4 * (d % 16))) % 10);
            }
            digits[nd] = 0;
        }
        dec38_bytes(neg, digits, raw);
        *len = 16;
        sb_decimal(js, neg, digits + strspn(digits, "0") - (digits[strspn(digits, "0")] ? 0 : 1), 10);
        return true;
    }
    case K_F16: {
        static const uint16_t sph[] = {0x7e00, 0x7c00, 0xfc00, 0x8000, 0x0000, 0x0001, 0x7bff, 0xfbff};
        sp = SPECIAL(8);
        uint16_t hb = sp >= 0 ? sph[sp] : (uint16_t)(h % 0x7c00) | (uint16_t)(h & 0x8000);
        put_le(raw, hb, 2);
        *len = 2;
        sb_float(js, half_value(hb), 9);
        return true;
    }
    }
    die("unknown column");
    return false;
}

/* ---- leaves with levels --------------------------------------------------- */

typedef struct leaf {
    const char *path;
    plank_physical_type type;
    int width;       /* bytes per fixed value, 0 for BYTE_ARRAY */
    int16_t max_def, max_rep;
    int64_t n, cap;  /* slots */
    int16_t *def, *rep;
    uint8_t *vals;   /* fixed width; BOOLEAN: one byte per slot until packed */
    int64_t *offs;
    sbuf data;
    int64_t *row_slot; /* first slot of each row, NROWS + 1 entries */
} leaf;

static void leaf_put(leaf *l, int16_t d, int16_t r, const uint8_t *v, size_t len) {
    if (l->n + 1 >= l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->def = xrealloc(l->def, (size_t)l->cap * sizeof(int16_t));
        l->rep = xrealloc(l->rep, (size_t)l->cap * sizeof(int16_t));
        l->vals = xrealloc(l->vals, (size_t)l->cap * 16);
        l->offs = xrealloc(l->offs, (size_t)(l->cap + 1) * sizeof(int64_t));
    }
    int64_t i = l->n++;
    l->def[i] = d;
    l->rep[i] = r;
    if (i == 0) l->offs[0] = 0;
    if (v && l->width) memcpy(l->vals + (size_t)i * (size_t)l->width, v, len);
    else if (l->width) memset(l->vals + (size_t)i * (size_t)l->width, 0xAB, (size_t)l->width);
    if (v && !l->width) sb_put(&l->data, v, len);
    l->offs[i + 1] = (int64_t)l->data.n;
}

/* Nested leaves, after the flat ones. */
enum { N_L, N_ST_A, N_ST_B, N_M_K, N_M_V, N_LL, NNESTED };
#define NLEAF (NFLAT + NNESTED)

static leaf LEAVES[NLEAF];
static uint8_t FLATRAW[NFLAT][NROWS][256];
static size_t FLATLEN[NFLAT][NROWS];
static uint64_t FLATNUM[NFLAT][NROWS];
static bool FLATNULL[NFLAT][NROWS];

static void gen_nested_row(int64_t r, sbuf *js) {
    uint64_t h = mix((uint64_t)r * 77777u + 3);
    uint8_t b[16];
    /* l: list<int64>: null, empty, or 1..4 elements, some null */
    leaf *l = &LEAVES[NFLAT + N_L];
    sb_printf(js, ",\"l\":");
    if (r % 7 == 0) {
        leaf_put(l, 0, 0, NULL, 0);
        sb_printf(js, "null");
    } else if (r % 7 == 1) {
        leaf_put(l, 1, 0, NULL, 0);
        sb_printf(js, "[]");
    } else {
        sb_printf(js, "[");
        for (int j = 0; j < (int)(h % 4) + 1; j++) {
            int64_t v = j == 0 && r % 11 == 2 ? INT64_MIN : j == 1 && r % 13 == 3 ? INT64_MAX
                        : (int64_t)(mix(h + (uint64_t)j) % 2000001) - 1000000;
            bool null = (r + j) % 5 == 0;
            put_le(b, (uint64_t)v, 8);
            leaf_put(l, null ? 2 : 3, j ? 1 : 0, null ? NULL : b, 8);
            if (null) sb_printf(js, "%snull", j ? "," : "");
            else sb_printf(js, "%s\"%" PRId64 "\"", j ? "," : "", v);
        }
        sb_printf(js, "]");
    }
    /* st: struct<a: string, b: double>: null struct, null fields */
    leaf *a = &LEAVES[NFLAT + N_ST_A], *bl = &LEAVES[NFLAT + N_ST_B];
    sb_printf(js, ",\"st\":");
    if (r % 6 == 0) {
        leaf_put(a, 0, 0, NULL, 0);
        leaf_put(bl, 0, 0, NULL, 0);
        sb_printf(js, "null");
    } else {
        char s[32];
        int n = r % 4 == 1 ? (s[0] = '\0', 0) : snprintf(s, sizeof s, "st%" PRId64, r);
        sb_printf(js, "{\"a\":");
        if (r % 5 == 2) {
            leaf_put(a, 1, 0, NULL, 0);
            sb_printf(js, "null");
        } else {
            leaf_put(a, 2, 0, (const uint8_t *)s, (size_t)n);
            sb_json_str(js, (const uint8_t *)s, (size_t)n);
        }
        sb_printf(js, ",\"b\":");
        if (r % 3 == 2) {
            leaf_put(bl, 1, 0, NULL, 0);
            sb_printf(js, "null");
        } else {
            double d = r % 17 == 1 ? NAN : r % 19 == 1 ? -0.0 : (double)r * 0.25 - 100;
            memcpy(b, &d, 8);
            leaf_put(bl, 2, 0, b, 8);
            sb_float(js, d, 17);
        }
        sb_printf(js, "}");
    }
    /* m: map<string, int32>: null map, empty map, null values */
    leaf *mk = &LEAVES[NFLAT + N_M_K], *mv = &LEAVES[NFLAT + N_M_V];
    sb_printf(js, ",\"m\":");
    if (r % 8 == 0 || r % 8 == 1) {
        int16_t d = (int16_t)(r % 8);
        leaf_put(mk, d, 0, NULL, 0);
        leaf_put(mv, d, 0, NULL, 0);
        sb_printf(js, r % 8 ? "[]" : "null");
    } else {
        sb_printf(js, "[");
        for (int j = 0; j < (int)(r % 3) + 1; j++) {
            char k[16];
            int n = snprintf(k, sizeof k, "k%d", j + (int)(r % 5));
            int32_t v = j == 1 ? 0 : (int32_t)(mix(h ^ (uint64_t)j) % 100000) - 50000;
            if (r % 23 == 4 && j == 0) v = INT32_MIN;
            leaf_put(mk, 2, j ? 1 : 0, (const uint8_t *)k, (size_t)n);
            sb_printf(js, "%s[", j ? "," : "");
            sb_json_str(js, (const uint8_t *)k, (size_t)n);
            if (j == 1) {
                leaf_put(mv, 2, 1, NULL, 0);
                sb_printf(js, ",null]");
            } else {
                put_le(b, (uint32_t)v, 4);
                leaf_put(mv, 3, j ? 1 : 0, b, 4);
                sb_printf(js, ",\"%" PRId32 "\"]", v);
            }
        }
        sb_printf(js, "]");
    }
    /* ll: list<list<int32>>: null, [], [null], [[]], [[1, null], [2]] ... */
    leaf *ll = &LEAVES[NFLAT + N_LL];
    sb_printf(js, ",\"ll\":");
    switch (r % 5) {
    case 0:
        leaf_put(ll, 0, 0, NULL, 0);
        sb_printf(js, "null");
        break;
    case 1:
        leaf_put(ll, 1, 0, NULL, 0);
        sb_printf(js, "[]");
        break;
    default: {
        sb_printf(js, "[");
        int outer = (int)(h % 3) + 1;
        for (int i = 0; i < outer; i++) {
            int16_t r0 = i ? 1 : 0;
            sb_printf(js, "%s", i ? "," : "");
            if ((r + i) % 7 == 3) {
                leaf_put(ll, 2, r0, NULL, 0);
                sb_printf(js, "null");
                continue;
            }
            if ((r + i) % 7 == 4) {
                leaf_put(ll, 3, r0, NULL, 0);
                sb_printf(js, "[]");
                continue;
            }
            sb_printf(js, "[");
            int inner = (int)(mix(h + (uint64_t)i) % 3) + 1;
            for (int j = 0; j < inner; j++) {
                int16_t rl = j ? 2 : r0;
                if ((r + i + j) % 4 == 1) {
                    leaf_put(ll, 4, rl, NULL, 0);
                    sb_printf(js, "%snull", j ? "," : "");
                } else {
                    int32_t v = (int32_t)(r * 100 + i * 10 + j);
                    if (r % 29 == 2) v = i ? INT32_MAX : INT32_MIN;
                    put_le(b, (uint32_t)v, 4);
                    leaf_put(ll, 5, rl, b, 4);
                    sb_printf(js, "%s\"%" PRId32 "\"", j ? "," : "", v);
                }
            }
            sb_printf(js, "]");
        }
        sb_printf(js, "]");
    }
    }
}

/* The schema: root, the flat columns, then l, st, m, ll. */
#define NFIELDS (1 + NFLAT + 3 + 3 + 4 + 5)
static void build_schema(plank_schema_field *f) {
    for (int i = 0; i < NFIELDS; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = NFLAT + 4;
    int at = 1;
    for (int k = 0; k < NFLAT; k++, at++) {
        f[at].name = FLAT[k].name;
        f[at].physical_type = FLAT[k].type;
        f[at].type_length = FLAT[k].type_length;
        f[at].repetition = FLAT[k].required ? PLANK_REQUIRED : PLANK_OPTIONAL;
        f[at].logical = FLAT[k].logical;
    }
#define GROUP(nm, rp, nc, lk)                                                               \
    (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = nm, .physical_type = PLANK_PHYSICAL_NONE, .repetition = rp, \
                         .num_children = nc, .logical = {.kind = lk}}
#define PRIM(nm, t, rp, lk)                                                                  \
    (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = nm, .physical_type = t, .repetition = rp, .logical = {.kind = lk}}
    f[at++] = GROUP("l", PLANK_OPTIONAL, 1, PLANK_LOGICAL_LIST);
    f[at++] = GROUP("list", PLANK_REPEATED, 1, PLANK_LOGICAL_NONE);
    f[at++] = PRIM("element", PLANK_INT64, PLANK_OPTIONAL, PLANK_LOGICAL_NONE);
    f[at++] = GROUP("st", PLANK_OPTIONAL, 2, PLANK_LOGICAL_NONE);
    f[at++] = PRIM("a", PLANK_BYTE_ARRAY, PLANK_OPTIONAL, PLANK_LOGICAL_STRING);
    f[at++] = PRIM("b", PLANK_DOUBLE, PLANK_OPTIONAL, PLANK_LOGICAL_NONE);
    f[at++] = GROUP("m", PLANK_OPTIONAL, 1, PLANK_LOGICAL_MAP);
    f[at++] = GROUP("key_value", PLANK_REPEATED, 2, PLANK_LOGICAL_NONE);
    f[at++] = PRIM("key", PLANK_BYTE_ARRAY, PLANK_REQUIRED, PLANK_LOGICAL_STRING);
    f[at++] = PRIM("value", PLANK_INT32, PLANK_OPTIONAL, PLANK_LOGICAL_NONE);
    f[at++] = GROUP("ll", PLANK_OPTIONAL, 1, PLANK_LOGICAL_LIST);
    f[at++] = GROUP("list", PLANK_REPEATED, 1, PLANK_LOGICAL_NONE);
    f[at++] = GROUP("element", PLANK_OPTIONAL, 1, PLANK_LOGICAL_LIST);
    f[at++] = GROUP("list", PLANK_REPEATED, 1, PLANK_LOGICAL_NONE);
    f[at++] = PRIM("element", PLANK_INT32, PLANK_OPTIONAL, PLANK_LOGICAL_NONE);
#undef GROUP
#undef PRIM
    if (at != NFIELDS) die("schema size");
}

static void init_leaves(void) {
    static const struct { const char *path; plank_physical_type t; int16_t d, r; } nested[NNESTED] = {
        {"l.list.element", PLANK_INT64, 3, 1}, {"st.a", PLANK_BYTE_ARRAY, 2, 0},
        {"st.b", PLANK_DOUBLE, 2, 0},          {"m.key_value.key", PLANK_BYTE_ARRAY, 2, 1},
        {"m.key_value.value", PLANK_INT32, 3, 1}, {"ll.list.element.list.element", PLANK_INT32, 5, 2},
    };
    for (int c = 0; c < NLEAF; c++) {
        leaf *l = &LEAVES[c];
        if (c < NFLAT) {
            l->path = FLAT[c].name;
            l->type = FLAT[c].type;
            l->max_def = FLAT[c].required ? 0 : 1;
        } else {
            l->path = nested[c - NFLAT].path;
            l->type = nested[c - NFLAT].t;
            l->max_def = nested[c - NFLAT].d;
            l->max_rep = nested[c - NFLAT].r;
        }
        l->width = l->type == PLANK_BOOLEAN ? 1 : l->type == PLANK_INT32 || l->type == PLANK_FLOAT ? 4
                   : l->type == PLANK_INT64 || l->type == PLANK_DOUBLE ? 8
                   : l->type == PLANK_FIXED_LEN_BYTE_ARRAY ? FLAT[c].type_length : 0;
        l->row_slot = xrealloc(NULL, sizeof(int64_t) * (NROWS + 1));
    }
}

/* Generates every row into LEAVES and the expected values into js. */
static void generate(sbuf *js) {
    init_leaves();
    for (int64_t r = 0; r < NROWS; r++) {
        for (int c = 0; c < NLEAF; c++) LEAVES[c].row_slot[r] = LEAVES[c].n;
        sb_printf(js, "{");
        for (int k = 0; k < NFLAT; k++) {
            sb_printf(js, "%s\"%s\":", k ? "," : "", FLAT[k].name);
            bool ok = flat_value(k, r, FLATRAW[k][r], &FLATLEN[k][r], js, &FLATNUM[k][r]);
            FLATNULL[k][r] = !ok;
            leaf_put(&LEAVES[k], ok ? LEAVES[k].max_def : 0, 0, ok ? FLATRAW[k][r] : NULL,
                     FLATLEN[k][r]);
        }
        gen_nested_row(r, js);
        sb_printf(js, "}\n");
    }
    for (int c = 0; c < NLEAF; c++) LEAVES[c].row_slot[NROWS] = LEAVES[c].n;
    /* BOOLEAN values as a bitmap, as the writer takes them */
    leaf *b = &LEAVES[K_BOOL];
    uint8_t *bits = calloc((size_t)b->n / 8 + 1, 1);
    if (!bits) die("out of memory");
    for (int64_t i = 0; i < b->n; i++)
        if (b->vals[i] == 1) bits[i / 8] |= (uint8_t)(1u << (i % 8));
    free(b->vals);
    b->vals = bits;
}

/* ---- statistics ------------------------------------------------------------ */

/* Compares two non-null values of flat column k in its sort order. */
static int cmp_flat(int k, int64_t x, int64_t y) {
    if (FLAT[k].type == PLANK_BYTE_ARRAY) {
        size_t a = FLATLEN[k][x], b = FLATLEN[k][y];
        int r = memcmp(FLATRAW[k][x], FLATRAW[k][y], a < b ? a : b);
        return r ? r : (a > b) - (a < b);
    }
    uint64_t a = FLATNUM[k][x], b = FLATNUM[k][y];
    if (FLAT[k].logical.kind == PLANK_LOGICAL_INTEGER && !FLAT[k].logical.is_signed)
        return (a > b) - (a < b);
    return ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b);
}

static void stats_json(sbuf *out, int k, int64_t r0, int64_t r1) {
    int64_t mn = -1, mx = -1, nulls = 0;
    for (int64_t r = r0; r < r1; r++) {
        if (FLATNULL[k][r]) { nulls++; continue; }
        if (mn < 0 || cmp_flat(k, r, mn) < 0) mn = r;
        if (mx < 0 || cmp_flat(k, r, mx) > 0) mx = r;
    }
    sb_printf(out, "{\"null_count\":%" PRId64 ",\"min\":", nulls);
    uint64_t ignore;
    size_t len;
    uint8_t raw[256];
    if (mn < 0) sb_printf(out, "null");
    else flat_value(k, mn, raw, &len, out, &ignore);
    sb_printf(out, ",\"max\":");
    if (mx < 0) sb_printf(out, "null");
    else flat_value(k, mx, raw, &len, out, &ignore);
    sb_printf(out, "}");
}

/* ---- configurations --------------------------------------------------------- */

enum { ENC_DEFAULT, ENC_DELTA, ENC_BSS_DBA };

typedef struct config {
    const char *name;
    plank_codec codec;
    int page_version;
    bool dictionary;
    int enc_set;
    int64_t page_rows;     /* 0: default */
    int64_t rg_rows;       /* 0: default (one row group) */
    int32_t format_version;
    bool fallback;         /* dictionary_page_size 1: every chunk falls back after a page */
    bool stored;           /* v2_min_saving 1: every v2 page's values stored uncompressed */
} config;

static const config CONFIGS[] = {
    {"uncompressed_v1_dict", PLANK_CODEC_UNCOMPRESSED, 1, true, ENC_DEFAULT, 0, 0, 2, false, false},
    {"uncompressed_v2_plain_p7_rg300", PLANK_CODEC_UNCOMPRESSED, 2, false, ENC_DEFAULT, 7, 300, 2, false, false},
    {"snappy_v1_dict_p5_rg250", PLANK_CODEC_SNAPPY, 1, true, ENC_DEFAULT, 5, 250, 2, false, false},
    {"snappy_v2_delta", PLANK_CODEC_SNAPPY, 2, false, ENC_DELTA, 0, 0, 2, false, false},
    {"gzip_v1_bss_dba", PLANK_CODEC_GZIP, 1, false, ENC_BSS_DBA, 0, 0, 2, false, false},
    {"gzip_v2_dict_p10_rg400", PLANK_CODEC_GZIP, 2, true, ENC_DEFAULT, 10, 400, 2, false, false},
    {"zstd_v1_delta_p7_rg300", PLANK_CODEC_ZSTD, 1, false, ENC_DELTA, 7, 300, 2, false, false},
    {"zstd_v2_plain", PLANK_CODEC_ZSTD, 2, false, ENC_DEFAULT, 0, 0, 2, false, false},
    {"lz4raw_v1_plain_p10", PLANK_CODEC_LZ4_RAW, 1, false, ENC_DEFAULT, 10, 0, 2, false, false},
    {"lz4raw_v2_bss_dba_rg500", PLANK_CODEC_LZ4_RAW, 2, false, ENC_BSS_DBA, 0, 500, 2, false, false},
    {"lz4hadoop_v1_dict", PLANK_CODEC_LZ4, 1, true, ENC_DEFAULT, 0, 0, 2, false, false},
    {"lz4hadoop_v2_delta_p5", PLANK_CODEC_LZ4, 2, false, ENC_DELTA, 5, 0, 2, false, false},
    {"brotli_v1_dict_fv1", PLANK_CODEC_BROTLI, 1, true, ENC_DEFAULT, 0, 0, 1, false, false},
    {"brotli_v2_bss_dba_p7_rg300", PLANK_CODEC_BROTLI, 2, false, ENC_BSS_DBA, 7, 300, 2, false, false},
    {"snappy_v1_fallback_delta_p10_rg400", PLANK_CODEC_SNAPPY, 1, true, ENC_DELTA, 10, 400, 2, true, false},
    {"zstd_v2_fallback_bss_dba_p7", PLANK_CODEC_ZSTD, 2, true, ENC_BSS_DBA, 7, 0, 2, true, false},
    /* the writer's own fallback encodings (DELTA_BINARY_PACKED for integers) */
    {"zstd_v1_fallback_default_p10", PLANK_CODEC_ZSTD, 1, true, ENC_DEFAULT, 10, 0, 2, true, false},
    /* v2 pages flagged is_compressed false, whatever the codec would save */
    {"zstd_v2_delta_stored_p7", PLANK_CODEC_ZSTD, 2, false, ENC_DELTA, 7, 0, 2, false, true},
};
#define NCONFIGS (int)(sizeof CONFIGS / sizeof CONFIGS[0])

/* The encoding of data pages a set asks for leaf c, -1 for the default. */
static int enc_for(int set, const leaf *l) {
    plank_physical_type t = l->type;
    if (set == ENC_DELTA) {
        switch (t) {
        case PLANK_BOOLEAN: return PLANK_ENC_RLE;
        case PLANK_INT32: case PLANK_INT64: return PLANK_ENC_DELTA_BINARY_PACKED;
        case PLANK_FLOAT: case PLANK_DOUBLE: case PLANK_FIXED_LEN_BYTE_ARRAY:
            return PLANK_ENC_BYTE_STREAM_SPLIT;
        case PLANK_BYTE_ARRAY: return PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY;
        default: return -1;
        }
    }
    if (set == ENC_BSS_DBA) {
        switch (t) {
        case PLANK_BYTE_ARRAY: case PLANK_FIXED_LEN_BYTE_ARRAY: return PLANK_ENC_DELTA_BYTE_ARRAY;
        case PLANK_INT32: case PLANK_INT64: case PLANK_FLOAT: case PLANK_DOUBLE:
            return PLANK_ENC_BYTE_STREAM_SPLIT;
        default: return -1;
        }
    }
    return -1;
}

static void sb_enc_list(sbuf *s, const int *e, int n) {
    sb_printf(s, "[");
    for (int i = 0; i < n; i++) sb_printf(s, "%s\"%s\"", i ? "," : "", plank_encoding_name((plank_encoding)e[i]));
    sb_printf(s, "]");
}

/* Sets named "plain" (no dictionary, no per-column encodings) ask for PLAIN
 * through the writer-wide `encoding` option. */
static bool plain_config(const config *cf) { return !cf->dictionary && cf->enc_set == ENC_DEFAULT; }

/* The data-page encoding the writer must pick by itself (its documented
 * default): RLE for booleans in v2 pages, DELTA_BINARY_PACKED for
 * INT32/INT64 in format 2 files, PLAIN otherwise. */
static int default_data_encoding(const config *cf, plank_physical_type t) {
    if (plain_config(cf)) return PLANK_ENC_PLAIN;
    if (t == PLANK_BOOLEAN && cf->page_version == 2) return PLANK_ENC_RLE;
    if ((t == PLANK_INT32 || t == PLANK_INT64) && cf->format_version == 2)
        return PLANK_ENC_DELTA_BINARY_PACKED;
    return PLANK_ENC_PLAIN;
}

/* configs.json entry of one file: what each column chunk must show. */
static void describe(sbuf *s, const config *cf, const char *file) {
    int64_t rg = cf->rg_rows ? cf->rg_rows : NROWS;
    sb_printf(s, "{\"name\":\"%s\",\"file\":\"%s\",\"codec\":\"%s\",\"page_version\":%d,"
                 "\"dictionary\":%s,\"format_version\":%d,\"page_rows\":%" PRId64 ","
                 "\"stored\":%s,\"row_groups\":[",
              cf->name, file, plank_codec_name(cf->codec), cf->page_version,
              cf->dictionary ? "true" : "false", (int)cf->format_version, cf->page_rows,
              cf->stored ? "true" : "false");
    for (int64_t r0 = 0; r0 < NROWS; r0 += rg) {
        int64_t r1 = r0 + rg < NROWS ? r0 + rg : NROWS;
        sb_printf(s, "%s{\"num_rows\":%" PRId64 ",\"columns\":[", r0 ? "," : "", r1 - r0);
        for (int c = 0; c < NLEAF; c++) {
            const leaf *l = &LEAVES[c];
            int data = enc_for(cf->enc_set, l);
            if (data < 0) data = default_data_encoding(cf, l->type);
            int dict = cf->format_version == 1 ? PLANK_ENC_PLAIN_DICTIONARY : PLANK_ENC_RLE_DICTIONARY;
            bool dict_on = cf->dictionary && l->type != PLANK_BOOLEAN;
            int inc[3], exc[3], ni = 0, ne = 0;
            if (dict_on) {
                inc[ni++] = dict;
                if (cf->fallback) inc[ni++] = data;
            } else {
                inc[ni++] = data;
                exc[ne++] = PLANK_ENC_RLE_DICTIONARY;
                exc[ne++] = PLANK_ENC_PLAIN_DICTIONARY;
            }
            sb_printf(s, "%s{\"path\":\"%s\",\"physical\":\"%s\",\"num_values\":%" PRId64
                         ",\"encodings_include\":",
                      c ? "," : "", l->path, plank_physical_type_name(l->type),
                      l->row_slot[r1] - l->row_slot[r0]);
            sb_enc_list(s, inc, ni);
            sb_printf(s, ",\"encodings_exclude\":");
            sb_enc_list(s, exc, ne);
            if (c < NFLAT && FLAT[c].stats) {
                sb_printf(s, ",\"stats\":");
                stats_json(s, c, r0, r1);
            }
            sb_printf(s, "}");
        }
        sb_printf(s, "]}");
    }
    sb_printf(s, "]}");
}

/* Writes cf's file as DIR/NAME.parquet, or with `suffix` DIR/NAME.SUFFIX.parquet,
 * encoding on `threads` threads. */
static void write_config(const char *dir, const config *cf, int threads, const char *suffix) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s%s.parquet", dir, cf->name, suffix ? "." : "",
             suffix ? suffix : "");
    plank_schema_field f[NFIELDS];
    build_schema(f);
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.codec = cf->codec;
    o.page_version = cf->page_version;
    o.dictionary = cf->dictionary;
    o.format_version = cf->format_version;
    if (cf->page_rows) o.page_rows = cf->page_rows;
    if (cf->rg_rows) o.row_group_rows = cf->rg_rows;
    if (cf->fallback) o.dictionary_page_size = 1;
    if (cf->stored) o.v2_min_saving = 1;
    if (plain_config(cf)) o.encoding = PLANK_ENC_PLAIN;
    o.threads = threads;
    plank_column_options co[NLEAF];
    int nco = 0;
    for (int c = 0; c < NLEAF; c++) {
        int e = enc_for(cf->enc_set, &LEAVES[c]);
        if (e < 0) continue;
        plank_column_options_init(&co[nco]);
        co[nco].path = LEAVES[c].path;
        co[nco].encoding = e;
        if (cf->dictionary && LEAVES[c].type != PLANK_BOOLEAN) co[nco].dictionary = 1;
        nco++;
    }
    o.columns = co;
    o.num_column_options = nco;
    plank_writer *w;
    plank_error err;
    if (plank_writer_open_path(&w, path, f, NFIELDS, &o, &err) != PLANK_OK) {
        fprintf(stderr, "%s: open: %s\n", cf->name, err.message);
        exit(1);
    }
    plank_batch b[NLEAF];
    memset(b, 0, sizeof b);
    for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
    for (int c = 0; c < NLEAF; c++) {
        const leaf *l = &LEAVES[c];
        b[c].length = l->n;
        if (l->max_def > 0) b[c].def_levels = l->def;
        if (l->max_rep > 0) b[c].rep_levels = l->rep;
        if (l->width) b[c].values = l->vals;
        else {
            b[c].offsets = l->offs;
            b[c].data = (const uint8_t *)l->data.p;
        }
    }
    if (plank_writer_write_rows(w, b, NROWS, &err) != PLANK_OK) {
        fprintf(stderr, "%s: write: %s\n", cf->name, err.message);
        plank_writer_abort(w);
        exit(1);
    }
    if (plank_writer_close(w, &err) != PLANK_OK) {
        fprintf(stderr, "%s: close: %s\n", cf->name, err.message);
        exit(1);
    }
}

static bool read_whole(const char *path, sbuf *s) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return false;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        if (s->n + n > s->cap) {
            s->cap = (s->n + n) * 2;
            s->p = realloc(s->p, s->cap);
            if (!s->p) exit(1);
        }
        memcpy(s->p + s->n, buf, n);
        s->n += n;
    }
    fclose(fp);
    return true;
}

/* The file written on 2 and on 3 threads must be the one written on 1, byte
 * for byte (the writer's promise: plank_writer_options.threads). */
static void check_threads(const char *dir, const config *cf) {
    char p1[1024], pn[1024];
    snprintf(p1, sizeof p1, "%s/%s.parquet", dir, cf->name);
    sbuf one = {0};
    if (!read_whole(p1, &one)) {
        fprintf(stderr, "%s: cannot read %s\n", cf->name, p1);
        exit(1);
    }
    for (int t = 2; t <= 3; t++) {
        char sfx[8];
        snprintf(sfx, sizeof sfx, "t%d", t);
        write_config(dir, cf, t, sfx);
        snprintf(pn, sizeof pn, "%s/%s.%s.parquet", dir, cf->name, sfx);
        sbuf other = {0};
        if (!read_whole(pn, &other) || other.n != one.n || memcmp(other.p, one.p, one.n) != 0) {
            size_t at = 0;
            while (at < one.n && at < other.n && one.p[at] == other.p[at]) at++;
            fprintf(stderr, "%s: the file written on %d threads differs from the one on 1 "
                            "(%zu and %zu bytes, first difference at byte %zu)\n",
                    cf->name, t, other.n, one.n, at);
            exit(1);
        }
        free(other.p);
        remove(pn);
    }
    free(one.p);
}

static void write_text(const char *dir, const char *name, const sbuf *s) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(s->p, 1, s->n, fp) != s->n || fclose(fp) != 0) {
        fprintf(stderr, "gen_write_matrix: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gen_write_matrix OUTDIR\n");
        return 2;
    }
    const char *dir = argv[1];
    sbuf js = {0}, cfg = {0};
    generate(&js);
    write_text(dir, "expected.jsonl", &js);
    sb_printf(&cfg, "{\"rows\":%d,\"configs\":[\n", NROWS);
    int written = 0;
    for (int i = 0; i < NCONFIGS; i++) {
        const config *cf = &CONFIGS[i];
        if (!plank_codec_writable(cf->codec)) {
            printf("skip %s: this build cannot write %s\n", cf->name, plank_codec_name(cf->codec));
            continue;
        }
        char file[256];
        snprintf(file, sizeof file, "%s.parquet", cf->name);
        write_config(dir, cf, 1, NULL);
        /* PLANK_MATRIX_THREADS=0: the sanitizer builds leave the 2- and
         * 3-thread copies out (test_writer compares thread counts there) */
        const char *mt = getenv("PLANK_MATRIX_THREADS");
        if (!mt || strcmp(mt, "0") != 0) check_threads(dir, cf);
        if (written++) sb_printf(&cfg, ",\n");
        describe(&cfg, cf, file);
    }
    sb_printf(&cfg, "\n]}\n");
    write_text(dir, "configs.json", &cfg);
    printf("wrote %d files, %d rows each, to %s\n", written, NROWS, dir);
    free(js.p);
    free(cfg.p);
    for (int c = 0; c < NLEAF; c++) {
        free(LEAVES[c].def);
        free(LEAVES[c].rep);
        free(LEAVES[c].vals);
        free(LEAVES[c].offs);
        free(LEAVES[c].data.p);
        free(LEAVES[c].row_slot);
    }
    return 0;
}
