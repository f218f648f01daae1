/*
 * pk_expr_parse.c: plank_expr_parse, a recursive-descent parser of the
 * WHERE-clause subset described in plank.h, and the DATE / TIMESTAMP text
 * helpers the binder shares with it (pk_parse_date, pk_format_date, ...).
 *
 * The tree is built with the public builders, so every node comes from the
 * caller's allocator; the only other allocation is one scratch buffer (text
 * of strings and column paths after unescaping, the list of an IN) freed
 * before returning. Every parse function owns what it has built so far and
 * frees it on failure, so an error at any point leaks nothing.
 *
 * Hostile input: the recursion goes one level deeper per parenthesis only,
 * and both the nesting of parentheses and the depth of the tree (NOT chains,
 * long AND / OR chains, which later passes walk recursively) are bounded by
 * PK_EXPR_MAX_DEPTH.
 *
 * Choices where plank.h leaves room:
 *  - Numbers: an integer of up to 38 significant digits is INT when it fits
 *    int64 (with its sign), else UINT when it is positive and fits uint64,
 *    else a DECIMAL of scale 0. A decimal (`1.25`, `.5`, `5.`) keeps its
 *    digits exactly, trailing zeros included (scale = digits after the
 *    point, at most 38; the unscaled value at most 38 significant digits).
 *    Leading zeros do not count. A float token (with an exponent) is read by
 *    strtod: overflow gives an infinity (`1e999`, as DuckDB reads it),
 *    underflow zero. `-` negates the number after it; `-0e0` is -0.0.
 *  - A number directly followed by a letter, digit, `_` or `.` (`1x`,
 *    `1.2.3`) is an error, not two tokens.
 *  - `""` (an empty quoted identifier) is an error, as in DuckDB.
 *  - Whitespace may surround the dots of a column path; a keyword is a
 *    field name only when quoted, in every segment.
 *  - Dates: exactly YYYY-MM-DD, years 0001..9999. Timestamps: that date,
 *    optionally ' ' or 'T' and HH:MM:SS (00..23, 00..59, 00..59), optionally
 *    '.' and 1 to 9 fraction digits. Digits beyond microseconds are dropped,
 *    which rounds toward negative infinity (the fraction is a non-negative
 *    offset), as DuckDB does: '1969-12-31 23:59:59.9999999' is -1 µs.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "pk_expr.h"

/* ---- Dates and timestamps ----------------------------------------------- */

#define MICROS_PER_DAY INT64_C(86400000000)

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* n decimal digits at s into *v (nothing else allowed). */
static bool read_digits(const char *s, size_t n, int *v) {
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return true;
}

bool pk_parse_date(const char *s, size_t len, int32_t *days) {
    static const int k_month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, d;
    if (len != 10 || s[4] != '-' || s[7] != '-') return false;
    if (!read_digits(s, 4, &y) || !read_digits(s + 5, 2, &m) || !read_digits(s + 8, 2, &d))
        return false;
    if (y < 1 || m < 1 || m > 12 || d < 1) return false;
    if (d > k_month_days[m - 1] + (m == 2 && is_leap(y))) return false;
    *days = (int32_t)pk_days_from_civil(y, m, d);
    return true;
}

bool pk_parse_timestamp(const char *s, size_t len, int64_t *micros) {
    int32_t days;
    if (len < 10 || !pk_parse_date(s, 10, &days)) return false;
    int64_t t = (int64_t)days * MICROS_PER_DAY;
    if (len > 10) {
        int h, mi, sec;
        if ((s[10] != ' ' && s[10] != 'T') || len < 19 || s[13] != ':' || s[16] != ':')
            return false;
        if (!read_digits(s + 11, 2, &h) || !read_digits(s + 14, 2, &mi) ||
            !read_digits(s + 17, 2, &sec))
            return false;
        if (h > 23 || mi > 59 || sec > 59) return false;
        int64_t frac = 0;
        if (len > 19) {
            size_t nf = len - 20;
            if (s[19] != '.' || nf < 1 || nf > 9) return false;
            for (size_t i = 0; i < 9; i++) {
                if (i < nf && (s[20 + i] < '0' || s[20 + i] > '9')) return false;
                /* The first six digits are the microseconds; the rest are
                 * checked and dropped (truncation = floor, see the top). */
                if (i < 6) frac = frac * 10 + (i < nf ? s[20 + i] - '0' : 0);
            }
        }
        t += ((int64_t)h * 3600 + mi * 60 + sec) * INT64_C(1000000) + frac;
    }
    *micros = t;
    return true;
}

/* "YYYY-MM-DD" (a '-' before years below 0, more digits above 9999). */
static int format_civil(char *out, size_t n, int64_t days) {
    int64_t y;
    int m, d;
    pk_civil_from_days(days, &y, &m, &d);
    /* Through a buffer wide enough for any int: the compiler cannot see
     * that m and d have two digits, and warns about a 16-byte out. */
    char tmp[64];
    int k = snprintf(tmp, sizeof tmp, "%s%04lld-%02d-%02d", y < 0 ? "-" : "",
                     (long long)(y < 0 ? -y : y), m, d);
    size_t len = k < 0 ? 0 : (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
    if (n == 0) return k;
    if (len >= n) len = n - 1;
    memcpy(out, tmp, len);
    out[len] = 0;
    return k;
}

void pk_format_date(int32_t days, char out[16]) { format_civil(out, 16, days); }

void pk_format_timestamp(int64_t micros, char out[40]) {
    /* Floor division: the time of day is never negative. */
    int64_t days = micros / MICROS_PER_DAY, rem = micros % MICROS_PER_DAY;
    if (rem < 0) {
        rem += MICROS_PER_DAY;
        days--;
    }
    int n = format_civil(out, 40, days);
    int64_t secs = rem / 1000000, us = rem % 1000000;
    n += snprintf(out + n, 40 - (size_t)n, " %02d:%02d:%02d", (int)(secs / 3600),
                  (int)(secs / 60 % 60), (int)(secs % 60));
    if (us) snprintf(out + n, 40 - (size_t)n, ".%06d", (int)us);
}

/* ---- Tokens --------------------------------------------------------------- */

typedef enum tok_kind {
    T_END = 0,
    T_NAME,    /* plain identifier that is not a keyword */
    T_QNAME,   /* "quoted identifier" */
    T_KEYWORD,
    T_INT,     /* digits */
    T_DEC,     /* digits with a point */
    T_FLOAT,   /* with an exponent */
    T_STRING,  /* 'text' */
    T_CMP,     /* comparison operator */
    T_LPAREN,
    T_RPAREN,
    T_COMMA,
    T_DOT,
    T_MINUS
} tok_kind;

typedef enum keyword {
    KW_AND = 0,
    KW_OR,
    KW_NOT,
    KW_IN,
    KW_BETWEEN,
    KW_IS,
    KW_NULL,
    KW_LIKE,
    KW_TRUE,
    KW_FALSE,
    KW_DATE,
    KW_TIMESTAMP,
    KW_COUNT
} keyword;

static const char *const k_keywords[KW_COUNT] = {
    "AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "LIKE", "TRUE", "FALSE", "DATE", "TIMESTAMP",
};

typedef struct token {
    tok_kind kind;
    size_t pos, len;     /* text[pos, pos + len), quotes included */
    keyword kw;          /* T_KEYWORD */
    plank_compare_op op; /* T_CMP */
} token;

typedef struct parser {
    const char *text;
    size_t next;                 /* where the token after tok starts */
    token tok;                   /* the current token */
    const plank_allocator *a;    /* as given to the builders (NULL: malloc) */
    const plank_allocator *mem;  /* for the scratch buffer */
    char *scratch;
    size_t scratch_cap;
    int parens;                  /* open parentheses around tok */
    plank_error *err;
} parser;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static plank_status fail(parser *p, plank_status code, size_t pos, const char *fmt, ...)
    PK_PRINTF(4, 5);
static plank_status fail(parser *p, plank_status code, size_t pos, const char *fmt, ...) {
    plank_error *err = p->err;
    if (!err) return code;
    /* "at <pos>: " then the message, straight into err (it fits: pos has at
     * most 20 digits). */
    int n = snprintf(err->message, sizeof err->message, "at %zu: ", pos);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
    va_end(ap);
    err->code = code;
    err->byte_offset = (int64_t)pos;
    return code;
}

static plank_status out_of_memory(parser *p) {
    return fail(p, PLANK_ERR_OUT_OF_MEMORY, p->tok.pos, "out of memory");
}

/* "expected <what>, found <the current token>". */
static plank_status expected(parser *p, const char *what) {
    const token *t = &p->tok;
    char found[64];
    switch (t->kind) {
    case T_END: snprintf(found, sizeof found, "end of input"); break;
    case T_STRING: snprintf(found, sizeof found, "a string"); break;
    default:
        snprintf(found, sizeof found, "'%.*s%s'", (int)(t->len > 24 ? 24 : t->len),
                 p->text + t->pos, t->len > 24 ? "..." : "");
    }
    return fail(p, PLANK_ERR_INVALID_ARGUMENT, t->pos, "expected %s, found %s", what, found);
}

/* The text between the quotes q (' or ") starting at pos: sets *end past
 * the closing quote; false when the input ends first. */
static bool scan_quoted(const char *text, size_t pos, char q, size_t *end) {
    size_t i = pos + 1;
    for (;;) {
        if (!text[i]) return false;
        if (text[i] == q) {
            if (text[i + 1] != q) break;
            i++;
        }
        i++;
    }
    *end = i + 1;
    return true;
}

static plank_status lex_number(parser *p, size_t pos) {
    const char *s = p->text;
    size_t i = pos;
    token *t = &p->tok;
    t->kind = T_INT;
    while (is_digit(s[i])) i++;
    if (s[i] == '.') {
        t->kind = T_DEC;
        i++;
        while (is_digit(s[i])) i++;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        t->kind = T_FLOAT;
        i++;
        if (s[i] == '+' || s[i] == '-') i++;
        if (!is_digit(s[i]))
            return fail(p, PLANK_ERR_INVALID_ARGUMENT, i, "expected digits of the exponent");
        while (is_digit(s[i])) i++;
    }
    if (is_name_char(s[i]) || s[i] == '.')
        return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "malformed number");
    t->len = i - pos;
    return PLANK_OK;
}

/* The characters a run of which is read as one operator (so "===" is an
 * unknown operator, not "==" and "="); '-' is not one of them. */
static const char k_op_chars[] = "=<>!~^&|+*/%@#?:";

static plank_status lex_operator(parser *p, size_t pos) {
    static const struct { const char *text; plank_compare_op op; } k_ops[] = {
        {"=", PLANK_CMP_EQ}, {"==", PLANK_CMP_EQ}, {"!=", PLANK_CMP_NE}, {"<>", PLANK_CMP_NE},
        {"<", PLANK_CMP_LT}, {"<=", PLANK_CMP_LE}, {">", PLANK_CMP_GT},  {">=", PLANK_CMP_GE},
    };
    size_t n = 0;
    while (p->text[pos + n] && strchr(k_op_chars, p->text[pos + n])) n++;
    for (size_t k = 0; k < sizeof k_ops / sizeof k_ops[0]; k++) {
        if (strlen(k_ops[k].text) == n && memcmp(k_ops[k].text, p->text + pos, n) == 0) {
            p->tok.kind = T_CMP;
            p->tok.op = k_ops[k].op;
            p->tok.len = n;
            return PLANK_OK;
        }
    }
    return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "unknown operator '%.*s'",
                (int)(n > 16 ? 16 : n), p->text + pos);
}

/* Reads the token at p->next into p->tok. */
static plank_status advance(parser *p) {
    const char *s = p->text;
    size_t pos = p->next;
    while (is_space(s[pos])) pos++;
    token *t = &p->tok;
    memset(t, 0, sizeof *t);
    t->pos = pos;
    t->len = 1;
    char c = s[pos];
    size_t end;
    if (c == '\0') {
        t->kind = T_END;
        t->len = 0;
    } else if (is_name_start(c)) {
        while (is_name_char(s[pos + t->len])) t->len++;
        t->kind = T_NAME;
        for (int k = 0; k < KW_COUNT; k++) {
            const char *kw = k_keywords[k];
            size_t i = 0;
            while (i < t->len && kw[i] && (s[pos + i] & ~0x20) == kw[i]) i++;
            if (i == t->len && !kw[i]) {
                t->kind = T_KEYWORD;
                t->kw = (keyword)k;
                break;
            }
        }
    } else if (is_digit(c) || (c == '.' && is_digit(s[pos + 1]))) {
        PK_FORWARD(lex_number(p, pos));
    } else if (c == '\'' || c == '"') {
        if (!scan_quoted(s, pos, c, &end))
            return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "unterminated %s",
                        c == '"' ? "quoted identifier" : "string");
        if (c == '"' && end == pos + 2)
            return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "empty quoted identifier");
        t->kind = c == '"' ? T_QNAME : T_STRING;
        t->len = end - pos;
    } else if (c == '(') {
        t->kind = T_LPAREN;
    } else if (c == ')') {
        t->kind = T_RPAREN;
    } else if (c == ',') {
        t->kind = T_COMMA;
    } else if (c == '.') {
        t->kind = T_DOT;
    } else if (c == '-') {
        t->kind = T_MINUS;
    } else if (strchr(k_op_chars, c)) {
        PK_FORWARD(lex_operator(p, pos));
    } else if (c > 0x20 && c < 0x7f) {
        return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "unexpected character '%c'", c);
    } else {
        return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "unexpected byte 0x%02x",
                    (unsigned)(unsigned char)c);
    }
    p->next = pos + t->len;
    return PLANK_OK;
}

static bool at_keyword(const parser *p, keyword kw) {
    return p->tok.kind == T_KEYWORD && p->tok.kw == kw;
}

/* ---- Scratch text ----------------------------------------------------------- */

static plank_status scratch_reserve(parser *p, size_t n) {
    if (n <= p->scratch_cap) return PLANK_OK;
    size_t cap = p->scratch_cap ? p->scratch_cap : 64;
    while (cap < n) {
        if (cap > SIZE_MAX / 2) return out_of_memory(p);
        cap *= 2;
    }
    char *q = pk_realloc(p->mem, p->scratch, p->scratch_cap, cap);
    if (!q) return out_of_memory(p);
    p->scratch = q;
    p->scratch_cap = cap;
    return PLANK_OK;
}

/* Appends the body of the quoted token t (a doubled quote becoming one) to
 * the scratch text at *len; leaves room for a NUL. */
static plank_status unquote(parser *p, const token *t, size_t *len) {
    const char *s = p->text + t->pos;
    char q = s[0];
    PK_FORWARD(scratch_reserve(p, *len + t->len + 1));
    for (size_t i = 1; i + 1 < t->len; i++) {
        p->scratch[(*len)++] = s[i];
        if (s[i] == q) i++;
    }
    return PLANK_OK;
}

/* ---- Numbers ------------------------------------------------------------------ */

#define MAX_DIGITS 38

/* (hi:lo) = (hi:lo) * 10 + digit, in 32-bit halves (no carry out: callers
 * stay below 10^38). */
static void u128_mul10_add(uint64_t *hi, uint64_t *lo, unsigned digit) {
    uint64_t l0 = (*lo & 0xffffffffu) * 10 + digit;
    uint64_t l1 = (*lo >> 32) * 10 + (l0 >> 32);
    *lo = (l1 << 32) | (l0 & 0xffffffffu);
    *hi = *hi * 10 + (l1 >> 32);
}

/* Reads the numeric token at p->tok (negated when neg) into *out. */
static plank_status parse_number(parser *p, bool neg, plank_expr **out) {
    const token *t = &p->tok;
    const char *s = p->text + t->pos;
    if (t->kind == T_FLOAT) {
        char *end;
        double d = strtod(s, &end);
        if (end != s + t->len) {
            /* A locale whose decimal point is not '.': read a copy with its point. */
            PK_FORWARD(scratch_reserve(p, t->len + 1));
            memcpy(p->scratch, s, t->len);
            p->scratch[t->len] = '\0';
            char *dot = memchr(p->scratch, '.', t->len);
            if (dot) *dot = localeconv()->decimal_point[0];
            d = strtod(p->scratch, NULL);
        }
        *out = plank_expr_double(p->a, neg ? -d : d);
        return *out ? PLANK_OK : out_of_memory(p);
    }
    uint64_t hi = 0, lo = 0;
    int digits = 0, scale = 0;
    bool point = false;
    for (size_t i = 0; i < t->len; i++) {
        if (s[i] == '.') {
            point = true;
            continue;
        }
        if (digits || s[i] != '0') digits++;
        if (point) scale++;
        if (digits > MAX_DIGITS || scale > MAX_DIGITS)
            return fail(p, PLANK_ERR_INVALID_ARGUMENT, t->pos, "number has more than %d digits",
                        MAX_DIGITS);
        u128_mul10_add(&hi, &lo, (unsigned)(s[i] - '0'));
    }
    if (t->kind == T_INT && hi == 0) {
        if (!neg)
            *out = plank_expr_uint(p->a, lo); /* an INT when it fits int64 */
        else if (lo <= (uint64_t)INT64_MAX)
            *out = plank_expr_int(p->a, -(int64_t)lo);
        else if (lo == (uint64_t)INT64_MAX + 1)
            *out = plank_expr_int(p->a, INT64_MIN);
        else
            goto decimal;
        return *out ? PLANK_OK : out_of_memory(p);
    }
decimal:
    if (neg) { /* two's complement of the 128-bit magnitude */
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
    }
    *out = plank_expr_decimal(p->a, (int64_t)hi, lo, scale);
    return *out ? PLANK_OK : out_of_memory(p);
}

/* ---- Grammar --------------------------------------------------------------------- */

/* Every parse_* function reads from p->tok on and leaves p->tok at the token
 * after what it read; *out owns the result, or is NULL after an error. The
 * depth (a leaf is 1) comes back in *depth where asked for. */
static plank_status parse_or(parser *p, plank_expr **out, int *depth);

/* Advances past the token a node was just made of, freeing it on error. */
static plank_status advance_after(parser *p, plank_expr **node) {
    plank_status st = advance(p);
    if (st != PLANK_OK) {
        plank_expr_free(*node);
        *node = NULL;
    }
    return st;
}

/* A literal: [-]number | 'string' | DATE 'text' | TIMESTAMP 'text' | TRUE |
 * FALSE | NULL. what names it in the error otherwise. */
static plank_status parse_literal(parser *p, const char *what, plank_expr **out) {
    *out = NULL;
    const token *t = &p->tok;
    size_t len = 0;
    switch (t->kind) {
    case T_MINUS:
        PK_FORWARD(advance(p));
        if (t->kind != T_INT && t->kind != T_DEC && t->kind != T_FLOAT)
            return expected(p, "a number after '-'");
        PK_FORWARD(parse_number(p, true, out));
        break;
    case T_INT:
    case T_DEC:
    case T_FLOAT:
        PK_FORWARD(parse_number(p, false, out));
        break;
    case T_STRING:
        PK_FORWARD(unquote(p, t, &len));
        *out = plank_expr_string(p->a, p->scratch, len);
        if (!*out) return out_of_memory(p);
        break;
    case T_KEYWORD:
        if (t->kw == KW_TRUE || t->kw == KW_FALSE) {
            *out = plank_expr_bool(p->a, t->kw == KW_TRUE);
        } else if (t->kw == KW_NULL) {
            *out = plank_expr_null(p->a);
        } else if (t->kw == KW_DATE || t->kw == KW_TIMESTAMP) {
            bool date = t->kw == KW_DATE;
            PK_FORWARD(advance(p));
            if (t->kind != T_STRING)
                return expected(p, date ? "a string after DATE" : "a string after TIMESTAMP");
            PK_FORWARD(unquote(p, t, &len));
            int32_t days;
            int64_t micros;
            if (date ? !pk_parse_date(p->scratch, len, &days)
                     : !pk_parse_timestamp(p->scratch, len, &micros))
                return fail(p, PLANK_ERR_INVALID_ARGUMENT, t->pos, "invalid %s '%.*s'",
                            date ? "date ('YYYY-MM-DD', years 0001..9999)"
                                 : "timestamp ('YYYY-MM-DD[ HH:MM:SS[.fffffffff]]')",
                            (int)(len > 40 ? 40 : len), p->scratch);
            *out = date ? plank_expr_date(p->a, days) : plank_expr_timestamp(p->a, micros);
        } else {
            return expected(p, what);
        }
        if (!*out) return out_of_memory(p);
        break;
    default:
        return expected(p, what);
    }
    return advance_after(p, out);
}

/* name ('.' name)*: the names joined by dots. */
static plank_status parse_column(parser *p, plank_expr **out) {
    *out = NULL;
    size_t len = 0;
    for (;;) {
        const token *t = &p->tok;
        if (t->kind == T_QNAME) {
            PK_FORWARD(unquote(p, t, &len));
        } else if (t->kind == T_NAME) {
            PK_FORWARD(scratch_reserve(p, len + t->len + 1));
            memcpy(p->scratch + len, p->text + t->pos, t->len);
            len += t->len;
        } else {
            return expected(p, "a field name after '.' (quote keywords)");
        }
        PK_FORWARD(advance(p));
        if (t->kind != T_DOT) break;
        PK_FORWARD(advance(p));
        p->scratch[len++] = '.'; /* the room of the NUL unquote and reserve kept */
    }
    p->scratch[len] = '\0';
    *out = plank_expr_column(p->a, p->scratch);
    return *out ? PLANK_OK : out_of_memory(p);
}

static plank_status parse_operand(parser *p, plank_expr **out) {
    /* DATE and TIMESTAMP start a literal only before a string: otherwise
     * they are column names, as in DuckDB (a column called "date"). */
    if (p->tok.kind == T_KEYWORD && (p->tok.kw == KW_DATE || p->tok.kw == KW_TIMESTAMP)) {
        size_t i = p->next;
        while (is_space(p->text[i])) i++;
        if (p->text[i] != '\'') p->tok.kind = T_NAME;
    }
    if (p->tok.kind == T_NAME || p->tok.kind == T_QNAME) return parse_column(p, out);
    return parse_literal(p, "a column or a literal", out);
}

/* '(' literal, ... ')' after IN, then value IN (...). Takes value. */
static plank_status parse_in_list(parser *p, plank_expr *value, plank_expr **out) {
    plank_expr **list = NULL;
    size_t n = 0, cap = 0;
    plank_status st = PLANK_OK;
    if (p->tok.kind != T_LPAREN) {
        st = expected(p, "'(' after IN");
        goto done;
    }
    st = advance(p);
    while (st == PLANK_OK) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            /* n + 1 nodes must count in an int32 (and their size in a size_t) */
            bool fits = ncap < INT32_MAX && ncap <= SIZE_MAX / sizeof *list;
            plank_expr **q =
                fits ? pk_realloc(p->mem, list, cap * sizeof *list, ncap * sizeof *list) : NULL;
            if (!q) {
                st = out_of_memory(p);
                break;
            }
            list = q;
            cap = ncap;
        }
        st = parse_literal(p, "a literal in the IN list", &list[n]);
        if (st != PLANK_OK) break;
        n++;
        if (p->tok.kind == T_RPAREN) break;
        st = p->tok.kind == T_COMMA ? advance(p) : expected(p, "',' or ')' in the IN list");
    }
    if (st == PLANK_OK) {
        size_t pos = p->tok.pos;
        st = advance(p);
        if (st == PLANK_OK) {
            /* plank_expr_in owns value and the list's nodes from here. */
            *out = plank_expr_in(value, list, (int32_t)n);
            value = NULL;
            n = 0;
            if (!*out) st = fail(p, PLANK_ERR_OUT_OF_MEMORY, pos, "out of memory");
        }
    }
done:
    plank_expr_free(value);
    for (size_t i = 0; i < n; i++) plank_expr_free(list[i]);
    pk_free(p->mem, list, cap * sizeof *list);
    return st;
}

/* The string after LIKE: 'prefix%' becomes value starts_with prefix. */
static plank_status parse_like(parser *p, plank_expr *value, plank_expr **out) {
    const token *t = &p->tok;
    size_t len = 0;
    plank_status st;
    if (t->kind != T_STRING) {
        st = expected(p, "a string pattern after LIKE");
    } else if ((st = unquote(p, t, &len)) == PLANK_OK) {
        const char *s = p->scratch;
        bool prefix = len > 0 && s[len - 1] == '%';
        for (size_t i = 0; prefix && i + 1 < len; i++) prefix = s[i] != '%' && s[i] != '_';
        if (!prefix) {
            st = fail(p, PLANK_ERR_UNSUPPORTED, t->pos,
                      "LIKE takes only a prefix pattern: text ending in one '%%', with no other "
                      "'%%' or '_'");
        } else {
            plank_expr *pre = plank_expr_string(p->a, s, len - 1);
            *out = plank_expr_starts_with(value, pre);
            if (!*out) return out_of_memory(p); /* value and pre freed by the builder */
            return advance_after(p, out);
        }
    }
    plank_expr_free(value);
    return st;
}

/* '(' expr ')': one level of parentheses more. */
static plank_status parse_parens(parser *p, plank_expr **out, int *depth) {
    if (++p->parens > PK_EXPR_MAX_DEPTH)
        return fail(p, PLANK_ERR_INVALID_ARGUMENT, p->tok.pos,
                    "parentheses nested more than %d deep", PK_EXPR_MAX_DEPTH);
    PK_FORWARD(advance(p));
    PK_FORWARD(parse_or(p, out, depth));
    p->parens--;
    plank_status st = p->tok.kind == T_RPAREN ? advance(p) : expected(p, "')'");
    if (st != PLANK_OK) {
        plank_expr_free(*out);
        *out = NULL;
    }
    return st;
}

/* One side of a comparison: an operand, or '(' expr ')', which SQL allows
 * around an operand too ((a) = 1); the caller decides what may follow. */
static plank_status parse_side(parser *p, plank_expr **out, int *depth) {
    if (p->tok.kind == T_LPAREN) return parse_parens(p, out, depth);
    *depth = 1;
    return parse_operand(p, out);
}

/* pred := side [cmp side | [NOT] IN (...) | [NOT] BETWEEN literal AND
 *         literal | IS [NOT] NULL | [NOT] LIKE 'prefix%'], where a side
 *         that is not an operand ('(' a = 1 ')') stands alone */
static plank_status parse_pred(parser *p, plank_expr **out, int *depth) {
    *out = NULL;
    *depth = 1;
    const token *t = &p->tok;
    /* Until a builder takes them, the operands are freed at fail. */
    plank_expr *left = NULL, *lo = NULL, *hi = NULL;
    PK_FORWARD(parse_side(p, &left, depth));
    if (left->kind != PK_EX_COLUMN && left->kind != PK_EX_LITERAL) {
        *out = left; /* '(' expr ')' */
        return PLANK_OK;
    }
    size_t not_pos = t->pos;
    bool negated = at_keyword(p, KW_NOT);
    plank_status st = negated ? advance(p) : PLANK_OK;
    if (st != PLANK_OK) goto failed;
    if (negated && !at_keyword(p, KW_IN) && !at_keyword(p, KW_BETWEEN) && !at_keyword(p, KW_LIKE)) {
        st = expected(p, "IN, BETWEEN or LIKE after NOT");
        goto failed;
    }
    if (t->kind == T_CMP) {
        plank_compare_op op = t->op;
        if ((st = advance(p)) != PLANK_OK) goto failed;
        size_t at = t->pos;
        int d = 0;
        if ((st = parse_side(p, &lo, &d)) != PLANK_OK) goto failed;
        if (lo->kind != PK_EX_COLUMN && lo->kind != PK_EX_LITERAL) {
            st = fail(p, PLANK_ERR_INVALID_ARGUMENT, at,
                      "expected a column or a literal after the comparison");
            goto failed;
        }
        *out = plank_expr_compare(op, left, lo);
    } else if (at_keyword(p, KW_IN) || at_keyword(p, KW_LIKE)) {
        bool in = at_keyword(p, KW_IN);
        if ((st = advance(p)) != PLANK_OK) goto failed;
        /* Both take left, and fail with their own message. */
        PK_FORWARD(in ? parse_in_list(p, left, out) : parse_like(p, left, out));
    } else if (at_keyword(p, KW_BETWEEN)) {
        if ((st = advance(p)) != PLANK_OK ||
            (st = parse_literal(p, "a literal after BETWEEN", &lo)) != PLANK_OK)
            goto failed;
        if (!at_keyword(p, KW_AND)) {
            st = expected(p, "AND in BETWEEN");
            goto failed;
        }
        if ((st = advance(p)) != PLANK_OK ||
            (st = parse_literal(p, "a literal after BETWEEN ... AND", &hi)) != PLANK_OK)
            goto failed;
        *out = plank_expr_between(left, lo, hi);
    } else if (at_keyword(p, KW_IS)) {
        if ((st = advance(p)) != PLANK_OK) goto failed;
        bool not_null = at_keyword(p, KW_NOT);
        if (not_null && (st = advance(p)) != PLANK_OK) goto failed;
        if (!at_keyword(p, KW_NULL)) {
            st = expected(p, not_null ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
            goto failed;
        }
        if ((st = advance(p)) != PLANK_OK) goto failed;
        *out = plank_expr_is_null(left, not_null);
    } else {
        *out = left; /* an operand alone: a boolean column (or literal) */
        return PLANK_OK;
    }
    if (!*out) return out_of_memory(p); /* the builder freed the operands */
    *depth = 2;
    if (negated) {
        *out = plank_expr_not(*out);
        if (!*out) return fail(p, PLANK_ERR_OUT_OF_MEMORY, not_pos, "out of memory");
        *depth = 3;
    }
    return PLANK_OK;
failed:
    plank_expr_free(left);
    plank_expr_free(lo);
    plank_expr_free(hi);
    return st;
}

static plank_status too_deep(parser *p, size_t pos) {
    return fail(p, PLANK_ERR_INVALID_ARGUMENT, pos, "expression nested more than %d levels deep",
                PK_EXPR_MAX_DEPTH);
}

/* not := NOT not | pred, read as a run of NOTs over one pred (no recursion
 * per NOT). */
static plank_status parse_not(parser *p, plank_expr **out, int *depth) {
    *out = NULL;
    size_t first = p->tok.pos;
    int nots = 0;
    while (at_keyword(p, KW_NOT)) {
        if (++nots >= PK_EXPR_MAX_DEPTH) return too_deep(p, first);
        PK_FORWARD(advance(p));
    }
    PK_FORWARD(parse_pred(p, out, depth));
    if (*depth + nots > PK_EXPR_MAX_DEPTH) {
        plank_expr_free(*out);
        *out = NULL;
        return too_deep(p, first);
    }
    for (int i = 0; i < nots; i++) {
        *out = plank_expr_not(*out);
        if (!*out) return fail(p, PLANK_ERR_OUT_OF_MEMORY, first, "out of memory");
    }
    *depth += nots;
    return PLANK_OK;
}

typedef plank_status (*parse_fn)(parser *p, plank_expr **out, int *depth);

/* operand (KW operand)*, left-associative: the and / or levels. */
static plank_status parse_chain(parser *p, keyword kw, parse_fn operand, plank_expr **out,
                                int *depth) {
    PK_FORWARD(operand(p, out, depth));
    while (at_keyword(p, kw)) {
        size_t pos = p->tok.pos;
        plank_expr *right = NULL;
        int rdepth = 0;
        plank_status st = advance(p);
        if (st == PLANK_OK) st = operand(p, &right, &rdepth);
        if (st == PLANK_OK && (rdepth > *depth ? rdepth : *depth) + 1 > PK_EXPR_MAX_DEPTH) {
            plank_expr_free(right);
            st = too_deep(p, pos);
        }
        if (st != PLANK_OK) {
            plank_expr_free(*out);
            *out = NULL;
            return st;
        }
        *depth = (rdepth > *depth ? rdepth : *depth) + 1;
        *out = kw == KW_AND ? plank_expr_and(*out, right) : plank_expr_or(*out, right);
        if (!*out) return fail(p, PLANK_ERR_OUT_OF_MEMORY, pos, "out of memory");
    }
    return PLANK_OK;
}

static plank_status parse_and(parser *p, plank_expr **out, int *depth) {
    return parse_chain(p, KW_AND, parse_not, out, depth);
}

static plank_status parse_or(parser *p, plank_expr **out, int *depth) {
    return parse_chain(p, KW_OR, parse_and, out, depth);
}

plank_status plank_expr_parse(const char *text, const plank_allocator *a, plank_expr **out,
                              plank_error *err) {
    plank_error_init(err);
    if (!out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "plank_expr_parse: out is NULL");
    *out = NULL;
    if (!text)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "plank_expr_parse: text is NULL");
    parser p = {0};
    p.text = text;
    p.a = a;
    p.mem = a ? a : pk_default_allocator();
    p.err = err;
    int depth = 0;
    plank_status st = advance(&p);
    if (st == PLANK_OK && p.tok.kind == T_END) st = expected(&p, "an expression");
    if (st == PLANK_OK) st = parse_or(&p, out, &depth);
    if (st == PLANK_OK && p.tok.kind != T_END) {
        st = expected(&p, "AND, OR or the end of the input");
        plank_expr_free(*out);
        *out = NULL;
    }
    pk_free(p.mem, p.scratch, p.scratch_cap);
    return st;
}
