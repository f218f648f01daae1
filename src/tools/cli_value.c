/*
 * cli_value.c: value -> text for the plank CLI. See cli_value.h.
 *
 * Everything here is a pure function of its byte input, so the exact output
 * format can be tested without a Parquet file (tests/test_cli_value.c
 * compiles this file directly).
 */
#include "cli_value.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- cli_buf --------------------------------------------------------------- */

void cli_buf_init(cli_buf *b) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void cli_buf_free(cli_buf *b) {
    free(b->data);
    cli_buf_init(b);
}

char *cli_buf_grow(cli_buf *b, size_t extra) {
    if (b->data && b->cap - b->len >= extra) return b->data + b->len;
    if (extra > SIZE_MAX / 2 - b->len) {
        fputs("plank: out of memory\n", stderr);
        exit(1);
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        /* The CLI cannot do anything useful without its output buffer. */
        fputs("plank: out of memory\n", stderr);
        exit(1);
    }
    b->data = d;
    b->cap = cap;
    return d + b->len;
}

void cli_buf_puts(cli_buf *b, const char *s) { cli_buf_put(b, s, strlen(s)); }

void cli_buf_printf(cli_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        cli_buf_put(b, small, (size_t)n);
        return;
    }
    char *w = cli_buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(w, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void cli_buf_put_u64(cli_buf *b, uint64_t v) {
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    cli_buf_put(b, tmp + i, (size_t)(20 - i));
}

void cli_buf_put_i64(cli_buf *b, int64_t v) {
    if (v < 0) {
        cli_buf_putc(b, '-');
        cli_buf_put_u64(b, 0 - (uint64_t)v); /* also right for INT64_MIN */
    } else {
        cli_buf_put_u64(b, (uint64_t)v);
    }
}

/* Exactly `width` digits, zero padded (v must fit). */
static void put_padded(cli_buf *b, uint64_t v, int width) {
    char *w = cli_buf_reserve(b, (size_t)width);
    for (int i = width - 1; i >= 0; i--) {
        w[i] = (char)('0' + v % 10);
        v /= 10;
    }
    b->len += (size_t)width;
}

/* At least `width` digits. */
static void put_min_width(cli_buf *b, uint64_t v, int width) {
    uint64_t t = v;
    int digits = 1;
    while (t >= 10) {
        t /= 10;
        digits++;
    }
    put_padded(b, v, digits > width ? digits : width);
}

static uint32_t load_u32le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t load_u64le(const uint8_t *p) {
    return (uint64_t)load_u32le(p) | (uint64_t)load_u32le(p + 4) << 32;
}

/* ---- Dates and times --------------------------------------------------------- */

/* Days since 1970-01-01 to a proleptic Gregorian date, counting in 400-year
 * eras of 146097 days with the year starting in March so the leap day is
 * last. Valid for the whole int64 range divided by a day's length, which is
 * all callers pass. */
static void civil_from_days(int64_t z, int64_t *year, int *month, int *day) {
    z += 719468; /* days from 0000-03-01 to 1970-01-01 */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                     /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                   /* March = 0 */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

void cli_format_date(cli_buf *b, int64_t days) {
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0) {
        cli_buf_putc(b, '-');
        put_min_width(b, 0 - (uint64_t)y, 4);
    } else {
        put_min_width(b, (uint64_t)y, 4);
    }
    char *w = cli_buf_reserve(b, 6);
    w[0] = '-';
    w[1] = (char)('0' + m / 10);
    w[2] = (char)('0' + m % 10);
    w[3] = '-';
    w[4] = (char)('0' + d / 10);
    w[5] = (char)('0' + d % 10);
    b->len += 6;
}

static int unit_digits(plank_time_unit unit) {
    return unit == PLANK_UNIT_MILLIS ? 3 : unit == PLANK_UNIT_MICROS ? 6 : 9;
}
static int64_t unit_per_second(plank_time_unit unit) {
    return unit == PLANK_UNIT_MILLIS ? 1000 : unit == PLANK_UNIT_MICROS ? 1000000 : 1000000000;
}

/* HH:MM:SS.fff for 0 <= v; hours may exceed 23 for out-of-range TIME values. */
static void put_time_of_day(cli_buf *b, uint64_t v, plank_time_unit unit) {
    uint64_t per_sec = (uint64_t)unit_per_second(unit);
    uint64_t secs = v / per_sec, frac = v % per_sec;
    put_min_width(b, secs / 3600, 2);
    cli_buf_putc(b, ':');
    put_padded(b, secs / 60 % 60, 2);
    cli_buf_putc(b, ':');
    put_padded(b, secs % 60, 2);
    cli_buf_putc(b, '.');
    put_padded(b, frac, unit_digits(unit));
}

void cli_format_time(cli_buf *b, int64_t v, plank_time_unit unit) {
    /* A valid TIME is within [0, 24h]; anything else (parquet-mr writes
     * negative millis) is shown as a signed duration, [-]HH:MM:SS.fff with
     * hours above 23, neither wrapped nor clamped, so the stored value stays
     * visible. DuckDB keeps the number as well (epoch_us) but has no text for
     * it (its VARCHAR cast prints garbage or fails); tests/peer/names_times.mjs
     * checks this text against DuckDB's number. */
    if (v < 0) {
        cli_buf_putc(b, '-');
        put_time_of_day(b, 0 - (uint64_t)v, unit);
    } else {
        put_time_of_day(b, (uint64_t)v, unit);
    }
}

static void put_date_time(cli_buf *b, int64_t days, uint64_t in_day, plank_time_unit unit,
                          bool utc) {
    cli_format_date(b, days);
    cli_buf_putc(b, 'T');
    put_time_of_day(b, in_day, unit);
    if (utc) cli_buf_putc(b, 'Z');
}

/* Floor division and the matching non-negative remainder (d > 0), without
 * the overflow of computing q * d near INT64_MIN. */
static int64_t floor_divmod(int64_t a, int64_t d, int64_t *rem) {
    int64_t q = a / d, r = a % d;
    if (r < 0) {
        r += d;
        q--;
    }
    *rem = r;
    return q;
}

void cli_format_timestamp(cli_buf *b, int64_t v, plank_time_unit unit, bool utc) {
    int64_t in_day;
    int64_t days = floor_divmod(v, unit_per_second(unit) * 86400, &in_day);
    put_date_time(b, days, (uint64_t)in_day, unit, utc);
}

void cli_format_int96(cli_buf *b, const uint8_t p[12]) {
    const int64_t ns_per_day = INT64_C(86400000000000), us_per_day = INT64_C(86400000000);
    int64_t nanos = (int64_t)load_u64le(p);
    uint32_t julian = load_u32le(p + 8);
    if (nanos >= 0 && nanos < ns_per_day) {
        /* The normal case: the day unsigned, as writers store it. */
        put_date_time(b, (int64_t)julian - 2440588, (uint64_t)nanos, PLANK_UNIT_NANOS, false);
        return;
    }
    /* Nanoseconds outside one day are what Spark writes when its int64
     * microsecond arithmetic wrapped (years beyond +-292277): the day and
     * nanoseconds are quotient and remainder of the wrapped count. Spark
     * reads them back with the same wrapping arithmetic and a signed day,
     * which recovers the instant that was written; do the same. */
    int64_t days = (int64_t)(int32_t)julian - 2440588;
    uint64_t us = (uint64_t)days * (uint64_t)us_per_day + (uint64_t)(nanos / 1000);
    int64_t sub = nanos % 1000;
    if (sub < 0) {
        sub += 1000;
        us -= 1;
    }
    int64_t v, in_day_us;
    memcpy(&v, &us, 8);
    int64_t d = floor_divmod(v, us_per_day, &in_day_us);
    put_date_time(b, d, (uint64_t)in_day_us * 1000 + (uint64_t)sub, PLANK_UNIT_NANOS, false);
}

/* ---- Floating point ---------------------------------------------------------- */

/* Writes the non-finite spellings; returns true when v was one of them. */
static bool put_non_finite(cli_buf *b, double v) {
    if (isnan(v)) cli_buf_puts(b, "NaN");
    else if (isinf(v)) cli_buf_puts(b, v > 0 ? "Infinity" : "-Infinity");
    else return false;
    return true;
}

/* The fewest %g digits (lo..hi) whose text reads back to the same value.
 * Whether n digits round-trip is monotone in n (the nearest n+1 digit number
 * is never farther than the nearest n digit one), so a binary search finds
 * the minimum; `hi` digits always round-trip. */
static void put_shortest(cli_buf *b, double v, int hi, bool as_float) {
    char best[40], tmp[40];
    int lo = 1;
    snprintf(best, sizeof best, "%.*g", hi, v);
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        snprintf(tmp, sizeof tmp, "%.*g", mid, v);
        bool same = as_float ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v;
        if (same) {
            hi = mid;
            memcpy(best, tmp, sizeof best);
        } else {
            lo = mid + 1;
        }
    }
    cli_buf_puts(b, best);
}

/* Whether the text reads back to v. Texts of at most 15 significant digits
 * with a small decimal exponent are checked with one correctly rounded
 * multiplication or division (both operands are exact doubles), which is
 * much faster than strtod; everything else goes through strtod/strtof. */
static bool reads_back(const char *t, double v, bool as_float) {
    if (as_float) return strtof(t, NULL) == (float)v;
#if FLT_EVAL_METHOD == 0
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *c = t;
    bool neg = *c == '-';
    if (neg) c++;
    uint64_t m = 0;
    int digits = 0, e10 = 0;
    bool frac = false;
    for (; *c; c++) {
        if (*c == '.') {
            frac = true;
        } else if (*c >= '0' && *c <= '9') {
            if (m || *c != '0') digits++;
            m = m * 10 + (uint64_t)(*c - '0');
            if (frac) e10--;
            if (digits > 15) return strtod(t, NULL) == v;
        } else {
            break;
        }
    }
    if (*c == 'e') e10 += atoi(c + 1);
    if (e10 >= -22 && e10 <= 22) {
        double x = e10 < 0 ? (double)m / p10[-e10] : (double)m * p10[e10];
        return (neg ? -x : x) == v;
    }
#endif
    return strtod(t, NULL) == v;
}

/* Shortest round-trip text as "%.Pg" with the smallest P. Every decimal of
 * at most DIG significant digits (15 for double, 6 for float) survives a
 * trip through a normal value, so when the DIG-digit text reads back no
 * shorter text can (it would print as that same text): that text, with
 * %g's zeros stripped, is the shortest, and otherwise P is the first of
 * DIG+1.. that reads back. Subnormals hold fewer digits and take the
 * general search. */
static void put_shortest_fast(cli_buf *b, double v, bool as_float) {
    int dig = as_float ? FLT_DIG : DBL_DIG, max = as_float ? 9 : 17;
    double min_normal = as_float ? (double)FLT_MIN : DBL_MIN;
    if (v != 0 && fabs(v) < min_normal) {
        put_shortest(b, v, max, as_float);
        return;
    }
    char t[40];
    int p = dig;
    for (;; p++) {
        snprintf(t, sizeof t, "%.*g", p, v);
        if (p == max || reads_back(t, v, as_float)) break;
    }
    if (p == dig) {
        /* An integer text ending in zeros ("1000000") has fewer significant
         * digits than its exponent; "%.Pg" with that P writes it as
         * "1e+06", so produce the same text. */
        size_t n = strlen(t);
        if (n > 1 && t[n - 1] == '0' && !strpbrk(t, ".e")) {
            size_t sig = n - (t[0] == '-');
            while (t[n - 1] == '0') {
                n--;
                sig--;
            }
            snprintf(t, sizeof t, "%.*g", (int)sig, v);
        }
    }
    cli_buf_puts(b, t);
}

bool cli_format_double(cli_buf *b, double v) {
    if (put_non_finite(b, v)) return false;
    put_shortest_fast(b, v, false);
    return true;
}

bool cli_format_float(cli_buf *b, float v) {
    if (put_non_finite(b, v)) return false;
    put_shortest_fast(b, (double)v, true);
    return true;
}

double cli_half_to_double(uint16_t h) {
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double v;
    if (exp == 0) v = ldexp((double)mant, -24);
    else if (exp == 31) v = mant ? NAN : INFINITY;
    else v = ldexp((double)(mant | 0x400), exp - 25);
    return (h & 0x8000) ? -v : v;
}

uint16_t cli_half_from_double(double d) {
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    d = fabs(d);
    if (isnan(d)) return sign | 0x7e00;
    if (d == 0) return sign;
    /* 65520 is halfway between 65504 (largest half) and 65536; the tie goes
     * to the even neighbour, which is infinity. */
    if (d >= 65520.0) return sign | 0x7c00;
    int e;
    frexp(d, &e); /* d in [2^(e-1), 2^e) */
    /* The half spacing in that binade is 2^(e-11), never below the subnormal
     * step 2^-24. Scaling by a power of two is exact; nearbyint rounds to
     * nearest even in the default rounding mode. */
    int qexp = e - 11 < -24 ? -24 : e - 11;
    double r = nearbyint(ldexp(d, -qexp));
    if (r < 1024) return (uint16_t)(sign | (uint16_t)r); /* subnormal (qexp == -24) */
    if (r >= 2048) {
        r /= 2;
        qexp++;
    }
    int biased = qexp + 25;
    if (biased >= 31) return sign | 0x7c00;
    return (uint16_t)(sign | (uint16_t)(biased << 10) | (uint16_t)((int)r - 1024));
}

bool cli_format_float16(cli_buf *b, uint16_t half) {
    double v = cli_half_to_double(half);
    if (put_non_finite(b, v)) return false;
    char tmp[40];
    for (int digits = 1; digits <= 5; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        if (cli_half_from_double(strtod(tmp, NULL)) == half || digits == 5) break;
    }
    cli_buf_puts(b, tmp);
    return true;
}

/* ---- Decimals ---------------------------------------------------------------- */

/* Writes sign + digits with a decimal point `scale` digits from the right. */
static void put_scaled(cli_buf *b, bool negative, const char *digits, size_t n, int32_t scale) {
    size_t s = scale > 0 ? (size_t)scale : 0;
    char *w = cli_buf_reserve(b, n + s + 3);
    size_t k = 0;
    if (negative) w[k++] = '-';
    if (s == 0) {
        memcpy(w + k, digits, n);
        k += n;
    } else if (n <= s) {
        w[k++] = '0';
        w[k++] = '.';
        memset(w + k, '0', s - n);
        k += s - n;
        memcpy(w + k, digits, n);
        k += n;
    } else {
        memcpy(w + k, digits, n - s);
        k += n - s;
        w[k++] = '.';
        memcpy(w + k, digits + n - s, s);
        k += s;
    }
    b->len += k;
}

void cli_format_decimal_i64(cli_buf *b, int64_t v, int32_t scale) {
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    put_scaled(b, v < 0, tmp + i, (size_t)(20 - i), scale);
}

void cli_format_decimal_be(cli_buf *b, const uint8_t *p, size_t len, int32_t scale) {
    /* Up to 8 bytes: sign-extend into an int64. */
    if (len <= 8) {
        uint64_t u = (len && (p[0] & 0x80)) ? UINT64_MAX : 0;
        for (size_t i = 0; i < len; i++) u = u << 8 | p[i];
        cli_format_decimal_i64(b, (int64_t)u, scale);
        return;
    }
    /* Longer: take the magnitude (two's complement negation) and divide it
     * by 10^9 repeatedly, collecting 9 digits per round from the right. */
    bool negative = (p[0] & 0x80) != 0;
    uint8_t small_mag[64];
    size_t ndigits_max = len * 241 / 100 + 10; /* log10(256) < 2.41 */
    uint8_t *mag = len <= sizeof small_mag ? small_mag : malloc(len);
    char *digits = malloc(ndigits_max);
    if (!mag || !digits) {
        fputs("plank: out of memory\n", stderr);
        exit(1);
    }
    unsigned carry = 1;
    for (size_t i = len; i-- > 0;) {
        if (negative) {
            unsigned x = (unsigned)(uint8_t)~p[i] + carry;
            mag[i] = (uint8_t)x;
            carry = x >> 8;
        } else {
            mag[i] = p[i];
        }
    }
    size_t start = 0, nd = ndigits_max;
    while (start < len && mag[start] == 0) start++;
    while (start < len) {
        uint64_t rem = 0;
        for (size_t i = start; i < len; i++) {
            uint64_t cur = rem << 8 | mag[i];
            mag[i] = (uint8_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (start < len && mag[start] == 0) start++;
        /* A full group of 9 digits unless this was the most significant. */
        int group = start < len ? 9 : 0;
        int k = 0;
        while (rem || k < group) {
            digits[--nd] = (char)('0' + rem % 10);
            rem /= 10;
            k++;
        }
    }
    if (nd == ndigits_max) digits[--nd] = '0';
    put_scaled(b, negative, digits + nd, ndigits_max - nd, scale);
    if (mag != small_mag) free(mag);
    free(digits);
}

/* ---- Binary ------------------------------------------------------------------ */

void cli_format_base64(cli_buf *b, const uint8_t *p, size_t len) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t out_len = (len + 2) / 3 * 4;
    char *w = cli_buf_reserve(b, out_len);
    size_t i = 0, k = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        w[k++] = alphabet[v >> 18];
        w[k++] = alphabet[(v >> 12) & 63];
        w[k++] = alphabet[(v >> 6) & 63];
        w[k++] = alphabet[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
        w[k++] = alphabet[v >> 18];
        w[k++] = alphabet[(v >> 12) & 63];
        w[k++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        w[k++] = '=';
    }
    b->len += k;
}

void cli_format_uuid(cli_buf *b, const uint8_t p[16]) {
    static const char hex[] = "0123456789abcdef";
    char *w = cli_buf_reserve(b, 36);
    size_t k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) w[k++] = '-';
        w[k++] = hex[p[i] >> 4];
        w[k++] = hex[p[i] & 15];
    }
    b->len += k;
}

void cli_format_interval(cli_buf *b, const uint8_t p[12]) {
    cli_buf_puts(b, "{\"months\":");
    cli_buf_put_u64(b, load_u32le(p));
    cli_buf_puts(b, ",\"days\":");
    cli_buf_put_u64(b, load_u32le(p + 4));
    cli_buf_puts(b, ",\"millis\":");
    cli_buf_put_u64(b, load_u32le(p + 8));
    cli_buf_putc(b, '}');
}

/* Length of the valid UTF-8 sequence starting at p[0] (a byte >= 0x80), or 0
 * when it is not one: overlong forms, surrogates and code points above
 * U+10FFFF are invalid. */
static size_t utf8_sequence(const uint8_t *p, size_t n) {
    uint8_t c = p[0];
    size_t need;
    uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) need = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (n < need || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < need; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return need;
}

void cli_json_string(cli_buf *b, const uint8_t *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    /* Worst case every byte becomes \uFFFD (6 bytes), plus quotes. */
    if (len > (SIZE_MAX - 2) / 6) {
        fputs("plank: out of memory\n", stderr);
        exit(1);
    }
    char *w = cli_buf_reserve(b, len * 6 + 2);
    size_t k = 0, i = 0;
    w[k++] = '"';
    while (i < len) {
        uint8_t c = p[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            w[k++] = (char)c;
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t n = utf8_sequence(p + i, len - i);
            if (n) {
                memcpy(w + k, p + i, n);
                k += n;
                i += n;
            } else {
                memcpy(w + k, "\\ufffd", 6);
                k += 6;
                i++;
            }
            continue;
        }
        w[k++] = '\\';
        switch (c) {
        case '"': w[k++] = '"'; break;
        case '\\': w[k++] = '\\'; break;
        case '\n': w[k++] = 'n'; break;
        case '\r': w[k++] = 'r'; break;
        case '\t': w[k++] = 't'; break;
        case '\b': w[k++] = 'b'; break;
        case '\f': w[k++] = 'f'; break;
        default:
            w[k++] = 'u';
            w[k++] = '0';
            w[k++] = '0';
            w[k++] = hex[c >> 4];
            w[k++] = hex[c & 15];
        }
        i++;
    }
    w[k++] = '"';
    b->len += k;
}

/* ---- Choosing and applying a format ------------------------------------------ */

/* The logical type the legacy converted type stands for (LogicalTypes.md's
 * backward-compatibility table), for files whose reader left it NONE. */
static plank_logical_type logical_from_converted(plank_converted_type c, int32_t scale) {
    plank_logical_type t;
    memset(&t, 0, sizeof t);
    t.kind = PLANK_LOGICAL_NONE;
    t.is_signed = true;
    switch (c) {
    case PLANK_CONVERTED_UTF8: t.kind = PLANK_LOGICAL_STRING; break;
    case PLANK_CONVERTED_ENUM: t.kind = PLANK_LOGICAL_ENUM; break;
    case PLANK_CONVERTED_JSON: t.kind = PLANK_LOGICAL_JSON; break;
    case PLANK_CONVERTED_BSON: t.kind = PLANK_LOGICAL_BSON; break;
    case PLANK_CONVERTED_DECIMAL:
        t.kind = PLANK_LOGICAL_DECIMAL;
        t.scale = scale;
        break;
    case PLANK_CONVERTED_DATE: t.kind = PLANK_LOGICAL_DATE; break;
    case PLANK_CONVERTED_TIME_MILLIS:
    case PLANK_CONVERTED_TIME_MICROS:
        t.kind = PLANK_LOGICAL_TIME;
        t.unit = c == PLANK_CONVERTED_TIME_MILLIS ? PLANK_UNIT_MILLIS : PLANK_UNIT_MICROS;
        t.is_adjusted_to_utc = true;
        break;
    case PLANK_CONVERTED_TIMESTAMP_MILLIS:
    case PLANK_CONVERTED_TIMESTAMP_MICROS:
        t.kind = PLANK_LOGICAL_TIMESTAMP;
        t.unit = c == PLANK_CONVERTED_TIMESTAMP_MILLIS ? PLANK_UNIT_MILLIS : PLANK_UNIT_MICROS;
        t.is_adjusted_to_utc = true;
        break;
    case PLANK_CONVERTED_UINT_8:
    case PLANK_CONVERTED_UINT_16:
    case PLANK_CONVERTED_UINT_32:
    case PLANK_CONVERTED_UINT_64:
    case PLANK_CONVERTED_INT_8:
    case PLANK_CONVERTED_INT_16:
    case PLANK_CONVERTED_INT_32:
    case PLANK_CONVERTED_INT_64: {
        static const int8_t bits[4] = {8, 16, 32, 64};
        bool is_unsigned = c <= PLANK_CONVERTED_UINT_64;
        t.kind = PLANK_LOGICAL_INTEGER;
        t.is_signed = !is_unsigned;
        t.bit_width = bits[(c - (is_unsigned ? PLANK_CONVERTED_UINT_8 : PLANK_CONVERTED_INT_8)) & 3];
        break;
    }
    case PLANK_CONVERTED_INTERVAL: t.kind = PLANK_LOGICAL_INTERVAL; break;
    default: break;
    }
    return t;
}

static int32_t physical_width(plank_physical_type physical, int32_t type_length) {
    switch (physical) {
    case PLANK_BOOLEAN: return 1;
    case PLANK_INT32:
    case PLANK_FLOAT: return 4;
    case PLANK_INT64:
    case PLANK_DOUBLE: return 8;
    case PLANK_INT96: return 12;
    case PLANK_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? type_length : 0;
    default: return 0;
    }
}

void cli_value_format_init(cli_value_format *f, plank_physical_type physical, int32_t type_length,
                           const plank_logical_type *logical, plank_converted_type converted,
                           int32_t converted_scale) {
    memset(f, 0, sizeof *f);
    f->physical = physical;
    f->width = physical_width(physical, type_length);
    switch (physical) {
    case PLANK_BOOLEAN: f->kind = CLI_V_BOOL; break;
    case PLANK_INT32: f->kind = CLI_V_INT; f->int_bits = 32; break;
    case PLANK_INT64: f->kind = CLI_V_INT; f->int_bits = 64; break;
    case PLANK_INT96: f->kind = CLI_V_INT96; break;
    case PLANK_FLOAT: f->kind = CLI_V_FLOAT; break;
    case PLANK_DOUBLE: f->kind = CLI_V_DOUBLE; break;
    default: f->kind = CLI_V_BINARY; break;
    }

    plank_logical_type t;
    if (logical && logical->kind != PLANK_LOGICAL_NONE) t = *logical;
    else t = logical_from_converted(converted, converted_scale);

    bool is_int = physical == PLANK_INT32 || physical == PLANK_INT64;
    bool is_bytes = physical == PLANK_BYTE_ARRAY || physical == PLANK_FIXED_LEN_BYTE_ARRAY;
    bool is_flba = physical == PLANK_FIXED_LEN_BYTE_ARRAY;
    switch (t.kind) {
    case PLANK_LOGICAL_UNKNOWN: f->kind = CLI_V_NULL; break;
    case PLANK_LOGICAL_STRING:
    case PLANK_LOGICAL_ENUM:
    case PLANK_LOGICAL_JSON:
        if (is_bytes) f->kind = CLI_V_STRING;
        break;
    case PLANK_LOGICAL_DECIMAL:
        if ((is_int || is_bytes) && t.scale >= 0 && t.scale <= CLI_MAX_DECIMAL_SCALE) {
            f->kind = CLI_V_DECIMAL;
            f->scale = t.scale;
        }
        break;
    case PLANK_LOGICAL_DATE:
        if (physical == PLANK_INT32) f->kind = CLI_V_DATE;
        break;
    case PLANK_LOGICAL_TIME:
        if ((t.unit == PLANK_UNIT_MILLIS && physical == PLANK_INT32) ||
            ((t.unit == PLANK_UNIT_MICROS || t.unit == PLANK_UNIT_NANOS) &&
             physical == PLANK_INT64)) {
            f->kind = CLI_V_TIME;
            f->unit = t.unit;
        }
        break;
    case PLANK_LOGICAL_TIMESTAMP:
        if (physical == PLANK_INT64 && (unsigned)t.unit <= PLANK_UNIT_NANOS) {
            f->kind = CLI_V_TIMESTAMP;
            f->unit = t.unit;
            f->utc = t.is_adjusted_to_utc;
        }
        break;
    case PLANK_LOGICAL_INTEGER: {
        int phys_bits = physical == PLANK_INT32 ? 32 : 64;
        int bw = t.bit_width;
        if (is_int && (bw == 8 || bw == 16 || bw == 32 || bw == 64) && bw <= phys_bits) {
            f->kind = t.is_signed ? CLI_V_INT : CLI_V_UINT;
            f->int_bits = bw;
        }
        break;
    }
    case PLANK_LOGICAL_UUID:
        if (is_flba && type_length == 16) f->kind = CLI_V_UUID;
        break;
    case PLANK_LOGICAL_FLOAT16:
        if (is_flba && type_length == 2) f->kind = CLI_V_FLOAT16;
        break;
    case PLANK_LOGICAL_INTERVAL:
        if (is_flba && type_length == 12) f->kind = CLI_V_INTERVAL;
        break;
    default: break; /* BSON, VARIANT, GEOMETRY, ...: by physical type */
    }
}

static void put_quoted_if(cli_buf *b, bool quote) {
    if (quote) cli_buf_putc(b, '"');
}

bool cli_format_value(cli_buf *b, const cli_value_format *f, const uint8_t *p, size_t len,
                      cli_style style) {
    if (f->width > 0) {
        if (len != (size_t)f->width) return false;
    } else if (f->physical != PLANK_BYTE_ARRAY && f->physical != PLANK_FIXED_LEN_BYTE_ARRAY) {
        return false; /* not a physical type this formatter knows */
    }
    bool json = style == CLI_STYLE_JSON;
    switch (f->kind) {
    case CLI_V_NULL:
        if (json) cli_buf_puts(b, "null");
        return true;
    case CLI_V_BOOL:
        cli_buf_puts(b, p[0] ? "true" : "false");
        return true;
    case CLI_V_INT:
    case CLI_V_UINT: {
        uint64_t u = len == 4 ? load_u32le(p) : load_u64le(p);
        int bits = f->int_bits;
        if (bits < 64) u &= (UINT64_C(1) << bits) - 1;
        if (f->kind == CLI_V_UINT) {
            cli_buf_put_u64(b, u);
        } else {
            /* Sign-extend from `bits` without implementation-defined
             * conversions: (u ^ sign) - sign maps [2^(bits-1), 2^bits) to
             * the negative range. */
            int64_t v;
            if (bits == 64) {
                memcpy(&v, &u, 8);
            } else {
                int64_t sign = INT64_C(1) << (bits - 1);
                v = (int64_t)(u ^ (uint64_t)sign) - sign;
            }
            cli_buf_put_i64(b, v);
        }
        return true;
    }
    case CLI_V_FLOAT:
    case CLI_V_DOUBLE:
    case CLI_V_FLOAT16: {
        /* Non-finite values are strings in JSON: reserve the quote first and
         * drop it again when the number turned out finite. */
        size_t mark = b->len;
        put_quoted_if(b, json);
        bool finite;
        if (f->kind == CLI_V_DOUBLE) {
            uint64_t bits = load_u64le(p);
            double d;
            memcpy(&d, &bits, 8);
            finite = cli_format_double(b, d);
        } else if (f->kind == CLI_V_FLOAT) {
            uint32_t bits = load_u32le(p);
            float x;
            memcpy(&x, &bits, 4);
            finite = cli_format_float(b, x);
        } else {
            finite = cli_format_float16(b, (uint16_t)(p[0] | p[1] << 8));
        }
        if (json) {
            if (finite) {
                memmove(b->data + mark, b->data + mark + 1, b->len - mark - 1);
                b->len--;
            } else {
                cli_buf_putc(b, '"');
            }
        }
        return true;
    }
    case CLI_V_STRING:
        if (json) cli_json_string(b, p, len);
        else cli_buf_put(b, p, len);
        return true;
    case CLI_V_INTERVAL:
        cli_format_interval(b, p);
        return true;
    default: break;
    }
    /* The rest are strings in JSON with nothing to escape. */
    put_quoted_if(b, json);
    switch (f->kind) {
    case CLI_V_DECIMAL:
        if (len > CLI_MAX_DECIMAL_BYTES) cli_format_base64(b, p, len);
        else if (f->physical == PLANK_INT32) cli_format_decimal_i64(b, (int32_t)load_u32le(p), f->scale);
        else if (f->physical == PLANK_INT64)
            cli_format_decimal_i64(b, (int64_t)load_u64le(p), f->scale);
        else cli_format_decimal_be(b, p, len, f->scale);
        break;
    case CLI_V_DATE: cli_format_date(b, (int32_t)load_u32le(p)); break;
    case CLI_V_TIME:
        cli_format_time(b, len == 4 ? (int32_t)load_u32le(p) : (int64_t)load_u64le(p), f->unit);
        break;
    case CLI_V_TIMESTAMP:
        cli_format_timestamp(b, (int64_t)load_u64le(p), f->unit, f->utc);
        break;
    case CLI_V_INT96: cli_format_int96(b, p); break;
    case CLI_V_UUID: cli_format_uuid(b, p); break;
    default: cli_format_base64(b, p, len); break;
    }
    put_quoted_if(b, json);
    return true;
}
