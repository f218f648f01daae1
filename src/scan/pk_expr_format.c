/*
 * pk_expr_format.c: plank_expr_format, a predicate tree as SQL text that
 * plank_expr_parse reads back to the same tree and DuckDB reads as the same
 * predicate.
 *
 * The text is canonical, one per tree: an operand that is not a column or a
 * literal is parenthesised, everything else is bare ("(a = 1) AND (NOT b)").
 * Column paths are written name by name, a name in double quotes when it is
 * not [A-Za-z_][A-Za-z0-9_]* or is a keyword of the grammar or one that
 * DuckDB does not take as a bare column name (DuckDB 1.5's reserved and
 * type/function keywords). Decimals are written with their exact digits and
 * the point at the scale ("5." at scale 0, "0.05"; ".05" at scale 38, where
 * DuckDB would count the zero as a 39th digit), doubles with the fewest
 * of 15..17 significant digits that read back to the same bits and always an
 * exponent (so DuckDB types them DOUBLE, not DECIMAL), timestamps with the
 * microseconds when they are not zero.
 *
 * What the grammar cannot say, and what is written instead:
 *  - +-infinity: 1e999 / -1e999, which plank_expr_parse (strtod) and DuckDB
 *    both read as infinities.
 *  - NaN: CAST('NaN' AS DOUBLE), DuckDB's spelling; plank_expr_parse rejects
 *    it (an error, never another value).
 *  - starts_with over a prefix holding '%' or '_' (or over anything but a
 *    string literal): starts_with(value, prefix), DuckDB's function, which
 *    plank_expr_parse rejects likewise. So are operands of a comparison,
 *    IN or BETWEEN that are neither columns nor literals (parenthesised).
 *  - A column path with an empty name in it ("a..b", ".a"): the whole path
 *    as one quoted name, which plank_expr_parse reads back as the same path
 *    (DuckDB as one column of that name). The empty path is written "",
 *    which neither reads.
 *  - Decimals of more than 38 digits, dates and timestamps outside the
 *    years 0001..9999: written as they are (more digits, a '-'), not read
 *    back. A NUL byte in a string is written as is, and ends the text for
 *    a reader of C strings.
 * The recursion goes as deep as the tree (parsed trees are bounded by
 * PK_EXPR_MAX_DEPTH).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pk_expr.h"

/* The text so far: bytes beyond size are counted, not written. */
typedef struct text_out {
    char *buf;
    size_t size;
    size_t len;
} text_out;

static void put(text_out *o, const char *s, size_t n) {
    if (o->len < o->size) {
        size_t room = o->size - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void put_str(text_out *o, const char *s) { put(o, s, strlen(s)); }

/* s[0..n) between the quotes q, a quote inside doubled; then suffix. */
static void put_quoted(text_out *o, char q, const char *s, size_t n, const char *suffix) {
    put(o, &q, 1);
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == q) {
            put(o, s + start, i + 1 - start); /* the quote, then once more */
            start = i;
        }
    }
    put(o, s + start, n - start);
    put_str(o, suffix);
    put(o, &q, 1);
}

/* ---- Names ---------------------------------------------------------------- */

/* Lowercase, sorted: the grammar's keywords and the words DuckDB 1.5 does
 * not read as a bare column (its reserved and type/function keywords, found
 * by trying each of duckdb_keywords() as a column and a struct field in the
 * predicates this file writes). */
static const char *const k_quoted_words[] = {
    "all", "analyse", "analyze", "and", "anti", "any", "array", "as", "asc", "asof",
    "asymmetric", "at", "authorization", "between", "binary", "both", "by", "case", "cast",
    "check", "collate", "collation", "column", "concurrently", "constraint", "create", "cross",
    "date", "default", "deferrable", "desc", "describe", "distinct", "do", "else", "end",
    "except", "false", "fetch", "for", "foreign", "freeze", "from", "full", "glob", "group",
    "having", "ilike", "in", "initially", "inner", "intersect", "into", "is", "isnull", "join",
    "lambda", "lateral", "leading", "left", "like", "limit", "natural", "not", "notnull", "null",
    "offset", "on", "only", "or", "order", "outer", "overlaps", "pivot", "pivot_longer",
    "pivot_wider", "placing", "positional", "primary", "qualify", "references", "returning",
    "right", "select", "semi", "show", "similar", "some", "summarize", "symmetric", "table",
    "tablesample", "then", "timestamp", "to", "trailing", "true", "union", "unique", "unpack",
    "unpivot", "using", "variadic", "verbose", "when", "where", "window", "with",
};

static int compare_words(const void *key, const void *elem) {
    return strcmp(key, *(const char *const *)elem);
}

static bool is_keyword(const char *s, size_t n) {
    char low[16];
    if (n >= sizeof low) return false; /* longer than every word */
    for (size_t i = 0; i < n; i++) low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    low[n] = '\0';
    return bsearch(low, k_quoted_words, sizeof k_quoted_words / sizeof k_quoted_words[0],
                   sizeof k_quoted_words[0], compare_words) != NULL;
}

static bool is_plain_name(const char *s, size_t n) {
    if (n == 0 || (s[0] >= '0' && s[0] <= '9')) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return !is_keyword(s, n);
}

static void put_name(text_out *o, const char *s, size_t n) {
    if (is_plain_name(s, n))
        put(o, s, n);
    else
        put_quoted(o, '"', s, n, "");
}

static void put_column(text_out *o, const char *path, size_t len) {
    bool empty_name = len == 0 || path[0] == '.' || path[len - 1] == '.';
    for (size_t i = 1; i < len && !empty_name; i++) empty_name = path[i] == '.' && path[i - 1] == '.';
    if (empty_name) {
        put_quoted(o, '"', path, len, "");
        return;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || path[i] == '.') {
            if (start) put(o, ".", 1);
            put_name(o, path + start, i - start);
            start = i + 1;
        }
    }
}

/* ---- Literals --------------------------------------------------------------- */

/* (hi:lo) /= 10 in 32-bit steps; returns the remainder. */
static unsigned u128_divmod10(uint64_t *hi, uint64_t *lo) {
    uint64_t r = *hi % 10;
    *hi /= 10;
    uint64_t mid = (r << 32) | (*lo >> 32);
    uint64_t q1 = mid / 10;
    uint64_t low = ((mid % 10) << 32) | (*lo & 0xffffffffu);
    *lo = (q1 << 32) | (low / 10);
    return (unsigned)(low % 10);
}

static void put_decimal(text_out *o, int64_t high, uint64_t low, int32_t scale) {
    uint64_t hi = (uint64_t)high, lo = low;
    if (high < 0) { /* the magnitude; INT128_MIN's is 2^127, still right unsigned */
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
        put(o, "-", 1);
    }
    char digits[48]; /* least significant first; 39 digits at most, scale <= 38 */
    int n = 0;
    do {
        digits[n++] = (char)('0' + u128_divmod10(&hi, &lo));
    } while (hi | lo);
    /* A zero before the point ("0.05"), except at scale 38: DuckDB counts it
     * in the width, and 39 digits would make the literal a DOUBLE. */
    while (n < scale + (scale < 38)) digits[n++] = '0';
    if (n == scale) put(o, ".", 1);
    for (int i = n - 1; i >= 0; i--) {
        put(o, &digits[i], 1);
        if (i == scale) put(o, ".", 1);
    }
}

static void put_double(text_out *o, double d) {
    if (isnan(d)) {
        put_str(o, "CAST('NaN' AS DOUBLE)");
        return;
    }
    if (isinf(d)) {
        put_str(o, d < 0 ? "-1e999" : "1e999");
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d) break;
    }
    /* Copy it with '.' for the locale's decimal point, and an exponent. */
    bool exponent = false, point = false;
    for (const char *c = tmp; *c; c++) {
        if ((*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == 'e') {
            exponent |= *c == 'e';
            point = false;
            put(o, c, 1);
        } else if (!point) {
            point = true;
            put(o, ".", 1);
        }
    }
    if (!exponent) put(o, "e0", 2);
}

static void put_literal(text_out *o, const pk_literal *l) {
    char tmp[48];
    switch (l->type) {
    case PK_LIT_NULL: put_str(o, "NULL"); return;
    case PK_LIT_BOOL: put_str(o, l->b ? "TRUE" : "FALSE"); return;
    case PK_LIT_INT: snprintf(tmp, sizeof tmp, "%" PRId64, l->i); break;
    case PK_LIT_UINT: snprintf(tmp, sizeof tmp, "%" PRIu64, l->u); break;
    case PK_LIT_DECIMAL: put_decimal(o, l->hi, l->lo, l->scale); return;
    case PK_LIT_DOUBLE: put_double(o, l->d); return;
    case PK_LIT_STRING: put_quoted(o, '\'', l->s, l->len, ""); return;
    case PK_LIT_DATE:
        put_str(o, "DATE ");
        pk_format_date((int32_t)l->i, tmp);
        put_quoted(o, '\'', tmp, strlen(tmp), "");
        return;
    case PK_LIT_TIMESTAMP:
        put_str(o, "TIMESTAMP ");
        pk_format_timestamp(l->i, tmp);
        put_quoted(o, '\'', tmp, strlen(tmp), "");
        return;
    default: snprintf(tmp, sizeof tmp, "NULL"); break;
    }
    put_str(o, tmp);
}

/* ---- Nodes --------------------------------------------------------------------- */

static void put_expr(text_out *o, const plank_expr *e);

static void put_operand(text_out *o, const plank_expr *e) {
    bool leaf = e->kind == PK_EX_COLUMN || e->kind == PK_EX_LITERAL;
    if (!leaf) put(o, "(", 1);
    put_expr(o, e);
    if (!leaf) put(o, ")", 1);
}

/* A prefix LIKE can say: a string without '%' or '_'. */
static bool like_prefix(const plank_expr *e) {
    if (e->kind != PK_EX_LITERAL || e->lit.type != PK_LIT_STRING) return false;
    for (size_t i = 0; i < e->lit.len; i++)
        if (e->lit.s[i] == '%' || e->lit.s[i] == '_') return false;
    return true;
}

static void put_expr(text_out *o, const plank_expr *e) {
    static const char *const k_ops[] = {" = ", " <> ", " < ", " <= ", " > ", " >= "};
    switch (e->kind) {
    case PK_EX_COLUMN: put_column(o, e->path, e->path_len); break;
    case PK_EX_LITERAL: put_literal(o, &e->lit); break;
    case PK_EX_COMPARE:
        put_operand(o, e->kids[0]);
        put_str(o, (unsigned)e->op <= PLANK_CMP_GE ? k_ops[e->op] : " ? ");
        put_operand(o, e->kids[1]);
        break;
    case PK_EX_IN:
        put_operand(o, e->kids[0]);
        put_str(o, " IN (");
        for (int32_t i = 1; i < e->n; i++) {
            if (i > 1) put_str(o, ", ");
            put_operand(o, e->kids[i]);
        }
        put(o, ")", 1);
        break;
    case PK_EX_BETWEEN:
        put_operand(o, e->kids[0]);
        put_str(o, " BETWEEN ");
        put_operand(o, e->kids[1]);
        put_str(o, " AND ");
        put_operand(o, e->kids[2]);
        break;
    case PK_EX_IS_NULL:
        put_operand(o, e->kids[0]);
        put_str(o, e->negated ? " IS NOT NULL" : " IS NULL");
        break;
    case PK_EX_STARTS_WITH:
        if (like_prefix(e->kids[1])) {
            put_operand(o, e->kids[0]);
            put_str(o, " LIKE ");
            put_quoted(o, '\'', e->kids[1]->lit.s, e->kids[1]->lit.len, "%");
        } else {
            put_str(o, "starts_with(");
            put_expr(o, e->kids[0]);
            put_str(o, ", ");
            put_expr(o, e->kids[1]);
            put(o, ")", 1);
        }
        break;
    case PK_EX_AND:
    case PK_EX_OR:
        put_operand(o, e->kids[0]);
        put_str(o, e->kind == PK_EX_AND ? " AND " : " OR ");
        put_operand(o, e->kids[1]);
        break;
    case PK_EX_NOT:
        put_str(o, "NOT ");
        put_operand(o, e->kids[0]);
        break;
    }
}

size_t plank_expr_format(const plank_expr *e, char *buf, size_t size) {
    text_out o = {buf, size, 0};
    if (e) put_expr(&o, e);
    if (size > 0) buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len;
}
