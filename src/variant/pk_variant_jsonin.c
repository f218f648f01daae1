/*
 * pk_variant_jsonin.c: JSON text (RFC 8259) to one VARIANT value through a
 * pk_vwriter (pk_variant_from_json, pk_variant.h).
 *
 * A recursive descent over the text, nesting bounded by
 * PK_VARIANT_MAX_DEPTH. The text must be UTF-8: strings and keys are
 * checked as they are unescaped (no overlong forms, no encoded surrogates,
 * nothing above U+10FFFF), and a \u escape of a surrogate must be a high
 * one followed by a low one. Every error names the byte offset (from 0) in
 * the text.
 *
 * Numbers follow Spark's parse_json: an integer that fits int64 is the
 * smallest integer type holding it; a number without an exponent that has
 * a fraction or exceeds int64, with at most 38 significant digits and at
 * most 38 digits after the point, is a decimal (scale: the digits after the
 * point; DECIMAL4 when both the digits and the scale are <= 9, DECIMAL8
 * when <= 18, else DECIMAL16); anything else is a double (correctly
 * rounded by strtod, whatever the locale's decimal point; out of range:
 * +-infinity).
 */
#include "pk_variant.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

typedef struct jin {
    pk_vwriter *w;
    const uint8_t *s;
    size_t n, i;
    pk_buffer str; /* an unescaped string or key */
    plank_error *err;
} jin;

static plank_status jfail(jin *p, size_t at, const char *what) {
    return pk_error_set(p->err, PLANK_ERR_INVALID_ARGUMENT, "JSON text, byte offset %zu: %s", at,
                        what);
}

static void skip_ws(jin *p) {
    while (p->i < p->n) {
        uint8_t c = p->s[p->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->i++;
    }
}

/* The length of the UTF-8 sequence at s[0..n) (1..4), or 0 when invalid. */
static size_t utf8_len(const uint8_t *s, size_t n) {
    uint8_t c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    uint32_t min, cp;
    if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000, cp = c & 0x07;
    else return 0;
    if (n < len) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

static int hexval(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Four hex digits at s[at..]; -1 when not. */
static int32_t hex4(const jin *p, size_t at) {
    if (at > p->n || p->n - at < 4) return -1;
    int32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
        int h = hexval(p->s[at + k]);
        if (h < 0) return -1;
        v = v << 4 | h;
    }
    return v;
}

static plank_status put_cp(jin *p, uint32_t cp) {
    uint8_t b[4];
    size_t n;
    if (cp < 0x80) b[0] = (uint8_t)cp, n = 1;
    else if (cp < 0x800) {
        b[0] = (uint8_t)(0xc0 | cp >> 6), b[1] = (uint8_t)(0x80 | (cp & 0x3f)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xe0 | cp >> 12), b[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
        b[2] = (uint8_t)(0x80 | (cp & 0x3f)), n = 3;
    } else {
        b[0] = (uint8_t)(0xf0 | cp >> 18), b[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
        b[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3f)), b[3] = (uint8_t)(0x80 | (cp & 0x3f)), n = 4;
    }
    return pk_buffer_append(&p->str, b, n, p->err);
}

/* The string at p->i (its opening quote) unescaped into p->str. */
static plank_status read_string(jin *p) {
    p->str.size = 0;
    size_t open = p->i++;
    for (;;) {
        size_t run = p->i;
        while (p->i < p->n && p->s[p->i] != '"' && p->s[p->i] != '\\' && p->s[p->i] >= 0x20 &&
               p->s[p->i] < 0x80)
            p->i++;
        if (p->i > run) PK_FORWARD(pk_buffer_append(&p->str, p->s + run, p->i - run, p->err));
        if (p->i >= p->n) return jfail(p, open, "unterminated string");
        uint8_t c = p->s[p->i];
        if (c == '"') {
            p->i++;
            return PLANK_OK;
        }
        if (c < 0x20) return jfail(p, p->i, "control character in a string (escape it)");
        if (c >= 0x80) {
            size_t len = utf8_len(p->s + p->i, p->n - p->i);
            if (!len) return jfail(p, p->i, "invalid UTF-8");
            PK_FORWARD(pk_buffer_append(&p->str, p->s + p->i, len, p->err));
            p->i += len;
            continue;
        }
        /* an escape */
        size_t at = p->i;
        if (p->n - p->i < 2) return jfail(p, open, "unterminated string");
        c = p->s[p->i + 1];
        p->i += 2;
        uint8_t out;
        switch (c) {
        case '"': case '\\': case '/': out = c; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u': {
            int32_t cp = hex4(p, p->i);
            if (cp < 0) return jfail(p, at, "\\u needs four hex digits");
            p->i += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return jfail(p, at, "unpaired low surrogate escape");
            if (cp >= 0xd800 && cp <= 0xdbff) {
                int32_t lo = p->n - p->i >= 6 && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u'
                                 ? hex4(p, p->i + 2)
                                 : -1;
                if (lo < 0xdc00 || lo > 0xdfff)
                    return jfail(p, at, "unpaired high surrogate escape");
                p->i += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            PK_FORWARD(put_cp(p, (uint32_t)cp));
            continue;
        }
        default: return jfail(p, at, "invalid escape in a string");
        }
        PK_FORWARD(pk_buffer_append(&p->str, &out, 1, p->err));
    }
}

/* A double from the literal s[0..n) (RFC 8259 number syntax, checked). */
static plank_status number_double(jin *p, size_t at, size_t n) {
    char stack[128];
    char *buf = n < sizeof stack ? stack : pk_malloc(p->w->alloc, n + 1);
    if (!buf) return pk_error_set(p->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(buf, p->s + at, n);
    buf[n] = '\0';
    /* strtod reads the locale's decimal point: put it in place of '.'. */
    char *dot = strchr(buf, '.');
    if (dot) *dot = localeconv()->decimal_point[0];
    double d = strtod(buf, NULL);
    if (buf != stack) pk_free(p->w->alloc, buf, n + 1);
    return pk_vw_double(p->w, d, p->err);
}

static plank_status read_number(jin *p) {
    size_t at = p->i, i = p->i, n = p->n;
    const uint8_t *s = p->s;
    bool neg = false, frac = false, expo = false;
    if (i < n && s[i] == '-') neg = true, i++;
    if (i < n && s[i] == '0') i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9') while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    else return jfail(p, at, "invalid number");
    size_t int_end = i;
    if (i < n && s[i] == '.') {
        frac = true;
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return jfail(p, at, "invalid number (digits must follow '.')");
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        expo = true;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return jfail(p, at, "invalid number (digits must follow the exponent)");
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    p->i = i;
    if (expo) return number_double(p, at, i - at);
    size_t d0 = at + (neg ? 1 : 0);
    if (!frac) {
        uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        bool fits = true;
        for (size_t k = d0; k < int_end && fits; k++) {
            uint64_t d = (uint64_t)(s[k] - '0');
            if (acc > (limit - d) / 10) fits = false;
            else acc = acc * 10 + d;
        }
        if (fits) return pk_vw_int_auto(p->w, neg ? (int64_t)(0 - acc) : (int64_t)acc, p->err);
    }
    /* A decimal: the digits without the point, leading zeros not counted. */
    size_t scale = frac ? i - int_end - 1 : 0;
    unsigned __int128 v = 0;
    int digits = 0;
    for (size_t k = d0; k < i; k++) {
        if (s[k] == '.') continue;
        if (digits == 0 && s[k] == '0') continue;
        if (++digits > 38) break;
        v = v * 10 + (unsigned)(s[k] - '0');
    }
    if (digits > 38 || scale > 38) return number_double(p, at, i - at);
    int prec = digits > 0 ? digits : 1;
    int width = prec > (int)scale ? prec : (int)scale;
    pk_vtype t = width <= 9 ? PK_VT_DECIMAL4 : width <= 18 ? PK_VT_DECIMAL8 : PK_VT_DECIMAL16;
    if (neg) v = (unsigned __int128)0 - v;
    return pk_vw_decimal(p->w, t, (int32_t)scale, (int64_t)(uint64_t)(v >> 64), (uint64_t)v,
                         p->err);
}

static bool word(jin *p, const char *w, size_t len) {
    if (p->n - p->i < len || memcmp(p->s + p->i, w, len) != 0) return false;
    p->i += len;
    return true;
}

static plank_status read_value(jin *p, int depth);

static plank_status read_object(jin *p, int depth) {
    size_t open = p->i++;
    PK_FORWARD(pk_vw_object_begin(p->w, p->err));
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return pk_vw_object_end(p->w, p->err);
    }
    for (;;) {
        skip_ws(p);
        if (p->i >= p->n) return jfail(p, open, "unterminated object");
        if (p->s[p->i] != '"') return jfail(p, p->i, "expected a key (a string)");
        size_t key_at = p->i;
        PK_FORWARD(read_string(p));
        plank_status st = pk_vw_key(p->w, p->str.data, p->str.size, p->err);
        if (st != PLANK_OK) {
            pk_error_prefix(p->err, "JSON text, byte offset %zu", key_at);
            return st;
        }
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') return jfail(p, p->i, "expected ':' after a key");
        p->i++;
        PK_FORWARD(read_value(p, depth));
        skip_ws(p);
        if (p->i >= p->n) return jfail(p, open, "unterminated object");
        if (p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->s[p->i] == '}') {
            p->i++;
            break;
        }
        return jfail(p, p->i, "expected ',' or '}' in an object");
    }
    plank_status st = pk_vw_object_end(p->w, p->err);
    if (st != PLANK_OK) pk_error_prefix(p->err, "JSON text, object at byte offset %zu", open);
    return st;
}

static plank_status read_array(jin *p, int depth) {
    size_t open = p->i++;
    PK_FORWARD(pk_vw_array_begin(p->w, p->err));
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == ']') {
        p->i++;
        return pk_vw_array_end(p->w, p->err);
    }
    for (;;) {
        PK_FORWARD(read_value(p, depth));
        skip_ws(p);
        if (p->i >= p->n) return jfail(p, open, "unterminated array");
        if (p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->s[p->i] == ']') {
            p->i++;
            break;
        }
        return jfail(p, p->i, "expected ',' or ']' in an array");
    }
    return pk_vw_array_end(p->w, p->err);
}

static plank_status read_value(jin *p, int depth) {
    skip_ws(p);
    if (p->i >= p->n) return jfail(p, p->i, "expected a value");
    uint8_t c = p->s[p->i];
    switch (c) {
    case '{': case '[':
        if (depth >= PK_VARIANT_MAX_DEPTH)
            return pk_error_set(p->err, PLANK_ERR_LIMIT,
                                "JSON text, byte offset %zu: objects and arrays nested deeper "
                                "than %d",
                                p->i, PK_VARIANT_MAX_DEPTH);
        return c == '{' ? read_object(p, depth + 1) : read_array(p, depth + 1);
    case '"':
        PK_FORWARD(read_string(p));
        return pk_vw_string(p->w, p->str.data, p->str.size, p->err);
    case 't':
        if (word(p, "true", 4)) return pk_vw_bool(p->w, true, p->err);
        break;
    case 'f':
        if (word(p, "false", 5)) return pk_vw_bool(p->w, false, p->err);
        break;
    case 'n':
        if (word(p, "null", 4)) return pk_vw_null(p->w, p->err);
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return read_number(p);
        break;
    }
    if (c >= 0x80 && !utf8_len(p->s + p->i, p->n - p->i)) return jfail(p, p->i, "invalid UTF-8");
    return jfail(p, p->i, "expected a value (object, array, string, number, true, false, null)");
}

plank_status pk_variant_from_json(pk_vwriter *w, const char *json, size_t len, plank_error *err) {
    jin p;
    memset(&p, 0, sizeof p);
    p.w = w;
    p.s = (const uint8_t *)(json ? json : "");
    p.n = json ? len : 0;
    p.err = err;
    pk_buffer_init(&p.str, w->alloc);
    pk_vw_reset(w);
    plank_status st = read_value(&p, 0);
    if (st == PLANK_OK) {
        skip_ws(&p);
        if (p.i < p.n) st = jfail(&p, p.i, "text after the value");
    }
    pk_buffer_reset(&p.str);
    return st;
}
