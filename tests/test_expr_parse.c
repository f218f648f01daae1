/* test_expr_parse.c: plank_expr_parse and plank_expr_format.
 *
 * Valid texts are checked through the canonical text plank_expr_format
 * writes of the tree they parse to; random trees (seeded) go format ->
 * parse -> format and must come back as the identical tree; every error has
 * its status and byte position; every allocation of a parse is failed in
 * turn (no leak, OUT_OF_MEMORY); the DATE / TIMESTAMP helpers are checked
 * against known values and, for every day of 0001..9999, against a calendar
 * counted here day by day. */
#include <float.h>
#include <math.h>

#include "scan/pk_expr.h"
#include "tharness.h"

/* ---- helpers ---------------------------------------------------------------- */

/* The text of e (malloc'ed), checking the returned length. */
static char *format_text(const plank_expr *e) {
    size_t n = plank_expr_format(e, NULL, 0);
    char *s = malloc(n + 1);
    if (!s) abort();
    CHECK(plank_expr_format(e, s, n + 1) == n);
    CHECK(strlen(s) == n);
    return s;
}

static bool no_leak(const th_alloc *ta) { return ta->live_blocks == 0 && ta->live_bytes == 0; }

/* text parses, and its tree is written as want; want read again gives want. */
static void check_parse(const char *text, const char *want, int line) {
    th_alloc ta;
    plank_allocator al = th_alloc_init(&ta);
    plank_error err;
    plank_error_init(&err);
    plank_expr *e = NULL;
    plank_status st = plank_expr_parse(text, &al, &e, &err);
    CHECK_MSG(st == PLANK_OK && e, "line %d: [%s]: %s", line, text, err.message);
    if (e) {
        char *got = format_text(e);
        CHECK_MSG(strcmp(got, want) == 0, "line %d: [%s] -> [%s], want [%s]", line, text, got,
                  want);
        plank_expr *again = NULL;
        st = plank_expr_parse(got, &al, &again, &err);
        CHECK_MSG(st == PLANK_OK, "line %d: [%s] does not read back: %s", line, got, err.message);
        if (again) {
            char *got2 = format_text(again);
            CHECK_MSG(strcmp(got, got2) == 0, "line %d: [%s] reads back as [%s]", line, got, got2);
            free(got2);
        }
        plank_expr_free(again);
        free(got);
    }
    plank_expr_free(e);
    CHECK_MSG(no_leak(&ta), "line %d: [%s] leaks", line, text);
}

/* text fails with code at byte pos, its message "at pos: ...<part>...". */
static void check_error(const char *text, plank_status code, int64_t pos, const char *part,
                        int line) {
    th_alloc ta;
    plank_allocator al = th_alloc_init(&ta);
    plank_error err;
    plank_error_init(&err);
    plank_expr *e = (plank_expr *)&ta; /* must be reset to NULL */
    plank_status st = plank_expr_parse(text, &al, &e, &err);
    char head[32];
    snprintf(head, sizeof head, "at %" PRId64 ": ", pos);
    CHECK_MSG(st == code && err.code == code, "line %d: [%.60s]: status %d, want %d (%s)", line,
              text, (int)st, (int)code, err.message);
    CHECK_MSG(err.byte_offset == pos, "line %d: [%.60s]: offset %" PRId64 ", want %" PRId64 " (%s)",
              line, text, err.byte_offset, pos, err.message);
    CHECK_MSG(strncmp(err.message, head, strlen(head)) == 0 && strstr(err.message, part),
              "line %d: [%.60s]: message [%s], want [%s...%s]", line, text, err.message, head,
              part);
    CHECK(e == NULL);
    CHECK_MSG(no_leak(&ta), "line %d: [%.60s] leaks", line, text);
}

#define PARSES(text, want) check_parse((text), (want), __LINE__)
#define SAME(text) check_parse((text), (text), __LINE__)
#define FAILS(text, pos, part) check_error((text), PLANK_ERR_INVALID_ARGUMENT, (pos), (part), __LINE__)
#define UNSUPPORTED(text, pos) \
    check_error((text), PLANK_ERR_UNSUPPORTED, (pos), "prefix pattern", __LINE__)

/* A text of n copies of s, then tail. */
static char *repeat(const char *s, size_t n, const char *tail) {
    size_t ls = strlen(s), lt = strlen(tail);
    char *t = malloc(ls * n + lt + 1);
    if (!t) abort();
    for (size_t i = 0; i < n; i++) memcpy(t + i * ls, s, ls);
    memcpy(t + ls * n, tail, lt + 1);
    return t;
}

/* ---- valid texts ----------------------------------------------------------------- */

static void test_valid(void) {
    /* operators and their canonical spelling */
    SAME("a");
    SAME("a = 1");
    PARSES("  a=1  ", "a = 1");
    PARSES("a\t==\n1", "a = 1");
    PARSES("a != 1", "a <> 1");
    SAME("a <> 1");
    PARSES("a<1", "a < 1");
    PARSES("a<=1", "a <= 1");
    PARSES("a>1", "a > 1");
    PARSES("a>=1", "a >= 1");
    SAME("1 = a");
    SAME("a = b");
    SAME("'x' = 'y'");
    /* precedence: NOT over AND over OR, left-associative chains */
    PARSES("a and b", "a AND b");
    PARSES("a AND b AND c", "(a AND b) AND c");
    SAME("a AND (b AND c)");
    PARSES("a OR b AND c", "a OR (b AND c)");
    PARSES("a AND b OR c", "(a AND b) OR c");
    PARSES("(a OR b) AND c", "(a OR b) AND c");
    PARSES("a OR b OR c OR d", "((a OR b) OR c) OR d");
    PARSES("NOT a = 1", "NOT (a = 1)");
    PARSES("NOT NOT a", "NOT (NOT a)");
    PARSES("not a and b", "(NOT a) AND b");
    PARSES("a AND NOT b OR NOT (c AND d)", "(a AND (NOT b)) OR (NOT (c AND d))");
    PARSES("((a))", "a");
    PARSES("((a = 1)) AND (((b <> 2)))", "(a = 1) AND (b <> 2)");
    PARSES("(NOT(a))", "NOT a");
    /* an operand in parentheses is still an operand, on either side */
    PARSES("(a) = 1", "a = 1");
    PARSES("((a)) = (1)", "a = 1");
    PARSES("(1) < (\"b c\")", "1 < \"b c\"");
    PARSES("a = (b) AND (c) IN (1)", "(a = b) AND (c IN (1))");
    PARSES("(a) NOT BETWEEN 1 AND 2 OR (s) LIKE 'x%' OR (d) IS NULL",
           "((NOT (a BETWEEN 1 AND 2)) OR (s LIKE 'x%')) OR (d IS NULL)");
    /* IN, BETWEEN, IS NULL, LIKE and their negations */
    SAME("a IN (1, 2, 3)");
    PARSES("a in(1,2,3)", "a IN (1, 2, 3)");
    PARSES("a not in ('x')", "NOT (a IN ('x'))");
    SAME("a IN (NULL, TRUE, 1.5, 2e0, 'x', DATE '2020-01-01', TIMESTAMP '2020-01-01 00:00:00', -3)");
    PARSES("a IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18)",
           "a IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)");
    SAME("a BETWEEN 1 AND 10");
    PARSES("a NOT BETWEEN -1 AND 1", "NOT (a BETWEEN -1 AND 1)");
    PARSES("a BETWEEN 1 AND 2 AND b", "(a BETWEEN 1 AND 2) AND b");
    SAME("a BETWEEN DATE '1994-01-01' AND DATE '1995-01-01'");
    SAME("a IS NULL");
    PARSES("a is not null", "a IS NOT NULL");
    PARSES("A Is NoT nUlL", "A IS NOT NULL");
    PARSES("NOT a IS NULL", "NOT (a IS NULL)");
    SAME("a LIKE 'ab%'");
    PARSES("a NOT LIKE '%'", "NOT (a LIKE '%')");
    SAME("a LIKE 'it''s%'");
    SAME("a LIKE 'caf\xc3\xa9%'");
    SAME("a LIKE 'back\\slash%'");
    PARSES("a like 'x%' or b not like 'y%'", "(a LIKE 'x%') OR (NOT (b LIKE 'y%'))");
    /* identifiers */
    SAME("a.b.c = 1");
    PARSES("a . b = 1", "a.b = 1");
    SAME("\"x y\".z = 1");
    PARSES("\"plain\" = 1", "plain = 1");
    PARSES("\"a.b\" = 1", "a.b = 1"); /* the same path */
    SAME("\"date\" = DATE '1994-01-01'");
    SAME("\"Date\"");
    SAME("s.\"timestamp\".\"NULL\" IS NULL");
    SAME("\"select\" = 1");
    SAME("\"Cast\" = 1");
    SAME("\"a\"\"b\" = 1");
    SAME("\"1a\" = 1");
    SAME("_x1 = 1");
    SAME("\"caf\xc3\xa9\" = 'caf\xc3\xa9'");
    SAME("\"a-b\" > \"c d\"");
    SAME("selector = 1");
    SAME("nulls = 1");
    SAME("dates.x = 1");
    /* integers */
    SAME("a = -5");
    PARSES("a = - 5", "a = -5");
    PARSES("a = -\t5", "a = -5");
    PARSES("a = 007", "a = 7");
    PARSES("a = -0", "a = 0");
    SAME("a = 9223372036854775807");
    SAME("a = -9223372036854775808");
    SAME("a = 9223372036854775808");  /* uint64 */
    SAME("a = 18446744073709551615"); /* uint64 */
    PARSES("a = 18446744073709551616", "a = 18446744073709551616."); /* decimal */
    PARSES("a = -9223372036854775809", "a = -9223372036854775809.");
    PARSES("a = -18446744073709551615", "a = -18446744073709551615.");
    PARSES("a = 99999999999999999999999999999999999999",
           "a = 99999999999999999999999999999999999999.");
    PARSES("a = -99999999999999999999999999999999999999",
           "a = -99999999999999999999999999999999999999.");
    PARSES("a = 000000000000000000000000000000000000000000001", "a = 1");
    /* decimals */
    SAME("a = 1.25");
    PARSES("a = .5", "a = 0.5");
    SAME("a = 5.");
    PARSES("a = -.5", "a = -0.5");
    SAME("a = -0.05");
    SAME("a = 1.50");
    SAME("a = 0.0");
    PARSES("a = -0.0", "a = 0.0");
    PARSES("a = 00012.3400", "a = 12.3400");
    PARSES("a = 0.00000000000000000000000000000000000001", "a = .00000000000000000000000000000000000001"); /* no 0 at scale 38 */
    SAME("a = 0.0000000000000000000000000000000000001");
    SAME("a = 9999999999999999999.9999999999999999999");
    SAME("a = -1234567890123456789012345678.9012345678");
    SAME("a = 17014118346046923173168730371588410.572");
    /* doubles */
    PARSES("a = 1e3", "a = 1000e0");
    PARSES("a = 1.5E-2", "a = 0.015e0");
    PARSES("a = 1.5e+2", "a = 150e0");
    PARSES("a = .5e1", "a = 5e0");
    PARSES("a = 5.e1", "a = 50e0");
    SAME("a = -0e0");
    PARSES("a = -0.0e5", "a = -0e0");
    SAME("a = 0.1e0");
    SAME("a = 1e+20");
    SAME("a = 1.7976931348623157e+308");
    PARSES("a = 4.9406564584124654e-324", "a = 4.94065645841247e-324");
    SAME("a = 1e999"); /* infinities */
    SAME("a = -1e999");
    PARSES("a = 1e99999999999999999999", "a = 1e999");
    PARSES("a = 1e-999", "a = 0e0");
    PARSES("a = 0.30000000000000004e0", "a = 0.30000000000000004e0");
    PARSES("a = 123456789012345678901234567890123456789012345e0", "a = 1.2345678901234567e+44");
    /* strings */
    SAME("a = ''");
    SAME("a = 'it''s'");
    SAME("a = ''''");
    SAME("a = 'h\xc3\xa9llo \xe2\x9c\x93'");
    SAME("a = 'x\ny\tz'");
    SAME("a = '\"'");
    SAME("a = '50% off_'");
    SAME("a = 'AND OR NOT'");
    /* dates and timestamps */
    SAME("d = DATE '2000-02-29'");
    PARSES("d = date '0001-01-01'", "d = DATE '0001-01-01'");
    SAME("DATE '9999-12-31' > d");
    PARSES("t = TIMESTAMP '1994-01-01'", "t = TIMESTAMP '1994-01-01 00:00:00'");
    PARSES("t = timestamp '1994-01-01T12:34:56.5'", "t = TIMESTAMP '1994-01-01 12:34:56.500000'");
    PARSES("t = TIMESTAMP '1994-01-01 12:34:56.123456789'",
           "t = TIMESTAMP '1994-01-01 12:34:56.123456'");
    PARSES("t = TIMESTAMP '1969-12-31 23:59:59.9999999'",
           "t = TIMESTAMP '1969-12-31 23:59:59.999999'");
    SAME("t = TIMESTAMP '0001-01-01 00:00:00'");
    SAME("t = TIMESTAMP '9999-12-31 23:59:59.999999'");
    /* booleans and NULL */
    SAME("a = TRUE");
    PARSES("true", "TRUE");
    PARSES("a = false OR b", "(a = FALSE) OR b");
    PARSES("a = null", "a = NULL");
    SAME("NULL IS NULL");
    /* the allocator may be NULL (malloc) */
    plank_expr *e = NULL;
    CHECK(plank_expr_parse("a = 1 AND b IN ('x', 'y')", NULL, &e, NULL) == PLANK_OK && e);
    char *s = format_text(e);
    CHECK(strcmp(s, "(a = 1) AND (b IN ('x', 'y'))") == 0);
    free(s);
    plank_expr_free(e);
}

/* The tree itself for a few texts (not only its text). */
static void test_tree(void) {
    plank_expr *e = NULL;
    CHECK(plank_expr_parse("\"x y\".z NOT IN (-9223372036854775808, 18446744073709551615, 1.50, "
                           "-1e0, 'a''b', DATE '1994-01-01', TIMESTAMP '1970-01-01 00:00:00.000001')",
                           NULL, &e, NULL) == PLANK_OK);
    if (!e) return;
    CHECK(e->kind == PK_EX_NOT && e->n == 1);
    const plank_expr *in = e->kids[0];
    CHECK(in->kind == PK_EX_IN && in->n == 8);
    CHECK(in->kids[0]->kind == PK_EX_COLUMN && strcmp(in->kids[0]->path, "x y.z") == 0);
    const pk_literal *l = &in->kids[1]->lit;
    CHECK(l->type == PK_LIT_INT && l->i == INT64_MIN);
    l = &in->kids[2]->lit;
    CHECK(l->type == PK_LIT_UINT && l->u == UINT64_MAX);
    l = &in->kids[3]->lit;
    CHECK(l->type == PK_LIT_DECIMAL && l->hi == 0 && l->lo == 150 && l->scale == 2);
    l = &in->kids[4]->lit;
    CHECK(l->type == PK_LIT_DOUBLE && l->d == -1.0);
    l = &in->kids[5]->lit;
    CHECK(l->type == PK_LIT_STRING && l->len == 3 && memcmp(l->s, "a'b", 3) == 0);
    l = &in->kids[6]->lit;
    CHECK(l->type == PK_LIT_DATE && l->i == 8766);
    l = &in->kids[7]->lit;
    CHECK(l->type == PK_LIT_TIMESTAMP && l->i == 1);
    plank_expr_free(e);

    CHECK(plank_expr_parse("a LIKE 'pre%' AND -18446744073709551616 < b", NULL, &e, NULL) ==
          PLANK_OK);
    if (!e) return;
    CHECK(e->kind == PK_EX_AND);
    const plank_expr *sw = e->kids[0];
    CHECK(sw->kind == PK_EX_STARTS_WITH && sw->kids[1]->lit.type == PK_LIT_STRING &&
          sw->kids[1]->lit.len == 3 && memcmp(sw->kids[1]->lit.s, "pre", 3) == 0);
    const plank_expr *cmp = e->kids[1];
    CHECK(cmp->kind == PK_EX_COMPARE && cmp->op == PLANK_CMP_LT);
    l = &cmp->kids[0]->lit; /* -2^64 as 128 bits */
    CHECK(l->type == PK_LIT_DECIMAL && l->hi == -1 && l->lo == 0 && l->scale == 0);
    plank_expr_free(e);

    CHECK(plank_expr_parse("a = -0e0 OR a IS NOT NULL", NULL, &e, NULL) == PLANK_OK);
    if (!e) return;
    l = &e->kids[0]->kids[1]->lit;
    CHECK(l->type == PK_LIT_DOUBLE && l->d == 0 && signbit(l->d));
    CHECK(e->kids[1]->kind == PK_EX_IS_NULL && e->kids[1]->negated);
    plank_expr_free(e);
}

/* ---- errors ------------------------------------------------------------------------ */

static void test_errors(void) {
    FAILS("", 0, "expected an expression, found end of input");
    FAILS("   ", 3, "expected an expression");
    /* only an operand in parentheses may take part in a comparison */
    FAILS("a = (b = 1)", 4, "expected a column or a literal after the comparison");
    FAILS("(a = 1) = 2", 8, "expected AND, OR or the end of the input");
    FAILS("a = (b", 6, "expected ')'");
    FAILS("a = 'abc", 4, "unterminated string");
    FAILS("a = 'it''s", 4, "unterminated string");
    FAILS("\"abc = 1", 0, "unterminated quoted identifier");
    FAILS("\"\" = 1", 0, "empty quoted identifier");
    /* dates and timestamps */
    FAILS("d = DATE '1994-02-30'", 9, "invalid date");
    FAILS("d = DATE '1900-02-29'", 9, "invalid date");
    FAILS("d = DATE '2000-13-01'", 9, "invalid date");
    FAILS("d = DATE '2000-04-31'", 9, "invalid date");
    FAILS("d = DATE '0000-01-01'", 9, "invalid date");
    FAILS("d = DATE '1994-1-1'", 9, "invalid date");
    FAILS("d = DATE '10000-01-01'", 9, "invalid date");
    FAILS("d = DATE '1994-01-01 00:00:00'", 9, "invalid date");
    FAILS("d = DATE ''", 9, "invalid date");
    /* DATE and TIMESTAMP without a string after them are column names (as in
     * DuckDB): a number after one is trailing input. */
    FAILS("d = DATE 1994", 9, "expected AND, OR or the end of the input");
    PARSES("d = DATE", "d = \"DATE\"");
    FAILS("t = TIMESTAMP '1994-01-01 24:00:00'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-01-01 10:60:00'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-01-01 10:00:60'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-01-01 10:00'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-01-01 10:00:00.'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-01-01 10:00:00.1234567890'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-01-01X10:00:00'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP '1994-02-29 10:00:00'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP 'now'", 14, "invalid timestamp");
    FAILS("t = TIMESTAMP 5", 14, "expected AND, OR or the end of the input");
    /* operators */
    FAILS("a ~ 1", 2, "unknown operator '~'");
    FAILS("a === 1", 2, "unknown operator '==='");
    FAILS("a ! 1", 2, "unknown operator '!'");
    FAILS("a <=> 1", 2, "unknown operator '<=>'");
    FAILS("a =< 1", 2, "unknown operator '=<'");
    FAILS("a + 1 = 2", 2, "unknown operator '+'");
    FAILS("a::int = 2", 1, "unknown operator '::'");
    FAILS("a = $1", 4, "unexpected character '$'");
    FAILS("a = \x80", 4, "unexpected byte 0x80");
    FAILS("a ; b", 2, "unexpected character ';'");
    /* LIKE */
    UNSUPPORTED("a LIKE 'a%b'", 7);
    UNSUPPORTED("a LIKE 'ab'", 7);
    UNSUPPORTED("a LIKE 'a_%'", 7);
    UNSUPPORTED("a LIKE 'a%%'", 7);
    UNSUPPORTED("a LIKE ''", 7);
    UNSUPPORTED("x = 1 AND a NOT LIKE '%a'", 21);
    FAILS("a LIKE b", 7, "expected a string pattern after LIKE");
    /* structure */
    FAILS("a = 1 b", 6, "expected AND, OR or the end of the input, found 'b'");
    FAILS("a = 1)", 5, "found ')'");
    FAILS("a = b = c", 6, "found '='");
    FAILS("(a = 1", 6, "expected ')', found end of input");
    FAILS("((a = 1) OR b", 13, "expected ')'");
    FAILS("a = ", 4, "expected a column or a literal, found end of input");
    FAILS("a = -b", 5, "expected a number after '-', found 'b'");
    FAILS("-a = 1", 1, "expected a number after '-'");
    FAILS("a = - -1", 6, "expected a number after '-'");
    FAILS("a = --1", 5, "expected a number after '-'");
    FAILS("a = -'x'", 5, "expected a number after '-', found a string");
    FAILS("a IN ()", 6, "expected a literal in the IN list, found ')'");
    FAILS("a IN (b)", 6, "expected a literal in the IN list");
    FAILS("a IN (1 2)", 8, "expected ',' or ')' in the IN list");
    FAILS("a IN (1,", 8, "expected a literal in the IN list, found end of input");
    FAILS("a IN (1", 7, "expected ',' or ')'");
    FAILS("a IN 1", 5, "expected '(' after IN");
    FAILS("a BETWEEN 1 OR 2", 12, "expected AND in BETWEEN");
    FAILS("a BETWEEN b AND 2", 10, "expected a literal after BETWEEN");
    FAILS("a BETWEEN 1 AND", 15, "expected a literal after BETWEEN ... AND");
    FAILS("a IS 1", 5, "expected NULL or NOT NULL after IS");
    FAILS("a IS NOT 1", 9, "expected NULL after IS NOT");
    FAILS("a IS TRUE", 5, "expected NULL or NOT NULL after IS");
    FAILS("a NOT = 1", 6, "expected IN, BETWEEN or LIKE after NOT");
    FAILS("a NOT", 5, "expected IN, BETWEEN or LIKE after NOT");
    FAILS("a.date = 1", 2, "expected a field name");
    FAILS("a. = 1", 3, "expected a field name");
    FAILS("a.1 = 1", 1, "found '.1'"); /* .1 is a number */
    PARSES("date = 1", "\"date\" = 1");
    PARSES("timestamp >= TIMESTAMP '1994-01-01'", "\"timestamp\" >= TIMESTAMP '1994-01-01 00:00:00'");
    FAILS("AND", 0, "expected a column or a literal, found 'AND'");
    FAILS("NOT", 3, "expected a column or a literal, found end of input");
    FAILS("a AND", 5, "found end of input");
    FAILS("a OR OR b", 5, "found 'OR'");
    /* numbers */
    FAILS("a = 1e", 6, "expected digits of the exponent");
    FAILS("a = 1e+", 7, "expected digits of the exponent");
    FAILS("a = 1x", 4, "malformed number");
    FAILS("a=1AND b", 2, "malformed number");
    FAILS("a = 1.2.3", 4, "malformed number");
    FAILS("a = 1e5.0", 4, "malformed number");
    FAILS("a = 123456789012345678901234567890123456789", 4, "more than 38 digits");
    FAILS("a = -123456789012345678901234567890123456789", 5, "more than 38 digits");
    FAILS("a = 1.000000000000000000000000000000000000001", 4, "more than 38 digits");
    FAILS("a = 0.000000000000000000000000000000000000001", 4, "more than 38 digits");
    FAILS("a IN (1, 2, 1234567890123456789012345678901234567890.5)", 12, "more than 38 digits");
    /* bad arguments */
    plank_expr *e = (plank_expr *)&e;
    plank_error err;
    plank_error_init(&err);
    CHECK(plank_expr_parse(NULL, NULL, &e, &err) == PLANK_ERR_INVALID_ARGUMENT && e == NULL);
    CHECK(plank_expr_parse("a", NULL, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_expr_parse("a = 'x", NULL, &e, NULL) == PLANK_ERR_INVALID_ARGUMENT && !e);
}

/* Nesting and depth: bounded, an error and never a crash. */
static void test_depth(void) {
    char *t;
    size_t max = PK_EXPR_MAX_DEPTH;
    /* parentheses: max deep reads, one more does not */
    char *closing = repeat(")", max, "");
    t = repeat("(", max, "a");
    char *t2 = malloc(strlen(t) + strlen(closing) + 1);
    if (!t2) abort();
    strcpy(t2, t);
    strcat(t2, closing);
    PARSES(t2, "a");
    free(t);
    free(t2);
    free(closing);
    t = repeat("(", max + 1, "a");
    FAILS(t, (int64_t)max, "parentheses nested more than 1000 deep");
    free(t);
    t = repeat("(", 200000, "");
    FAILS(t, (int64_t)max, "parentheses nested");
    free(t);
    /* NOT chains: the tree is at most max levels deep */
    t = repeat("NOT ", max - 1, "a");
    th_alloc ta;
    plank_allocator al = th_alloc_init(&ta);
    plank_expr *e = NULL;
    CHECK(plank_expr_parse(t, &al, &e, NULL) == PLANK_OK && e);
    plank_expr_free(e);
    CHECK(no_leak(&ta));
    free(t);
    t = repeat("NOT ", max, "a");
    FAILS(t, 0, "nested more than 1000 levels");
    free(t);
    t = repeat("NOT ", max - 2, "a = 1");
    CHECK(plank_expr_parse(t, NULL, &e, NULL) == PLANK_OK);
    plank_expr_free(e);
    free(t);
    t = repeat("NOT ", max - 1, "a = 1");
    FAILS(t, 0, "nested more than 1000 levels");
    free(t);
    t = repeat("NOT ", 1000000, "a");
    FAILS(t, 0, "nested more than");
    free(t);
    /* NOT and parentheses mixed */
    closing = repeat(")", max, "");
    t = repeat("NOT (", max, "a");
    t2 = malloc(strlen(t) + strlen(closing) + 1);
    if (!t2) abort();
    strcpy(t2, t);
    strcat(t2, closing);
    FAILS(t2, 0, "nested more than 1000 levels");
    free(t2);
    free(t);
    free(closing);
    /* long AND chains grow the tree one level a term */
    t = repeat("a AND ", max - 1, "a");
    CHECK(plank_expr_parse(t, NULL, &e, NULL) == PLANK_OK && e);
    plank_expr_free(e);
    free(t);
    t = repeat("a AND ", max, "a");
    FAILS(t, (int64_t)(6 * max - 4), "nested more than 1000 levels");
    free(t);
    t = repeat("a = 1 OR ", 100000, "b");
    FAILS(t, 6 + 9 * 998, "nested more than 1000 levels");
    free(t);
    /* a long IN list is one node */
    t = repeat("1, ", 100000, "2)");
    char *in = malloc(strlen(t) + 8);
    if (!in) abort();
    strcpy(in, "a IN (");
    strcat(in, t);
    CHECK(plank_expr_parse(in, NULL, &e, NULL) == PLANK_OK && e && e->n == 100002);
    plank_expr_free(e);
    free(in);
    free(t);
}

/* ---- out of memory ------------------------------------------------------------------- */

static void test_oom(void) {
    static const char *const texts[] = {
        "a = 1",
        ("\"x y\".z NOT IN (1, -2, 3.5, 4e0, 'five', DATE '2006-06-06', TIMESTAMP "
         "'2006-06-06 06:06:06.6', TRUE, FALSE, NULL, 11, 12, 13) OR NOT (b BETWEEN -1 AND 1)"),
        "(a LIKE 'it''s%' AND b IS NOT NULL) OR c NOT LIKE 'x%' OR NOT NOT d.e.f",
        "a = 18446744073709551616 AND b < -9223372036854775809 AND c >= 'a long string to copy'",
        "a = 1e3 AND b IS NULL AND \"a\"\"b\".c = \"d\"",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        int failures = 0;
        for (int64_t k = 1;; k++) {
            th_alloc ta;
            plank_allocator al = th_alloc_init(&ta);
            ta.fail_at = k;
            plank_error err;
            plank_error_init(&err);
            plank_expr *e = NULL;
            plank_status st = plank_expr_parse(texts[i], &al, &e, &err);
            if (!ta.failed) {
                CHECK_MSG(st == PLANK_OK && e, "text %zu: %s", i, err.message);
                plank_expr_free(e);
                CHECK(no_leak(&ta));
                break;
            }
            failures++;
            CHECK_MSG(st == PLANK_ERR_OUT_OF_MEMORY, "text %zu, allocation %" PRId64 ": %d %s", i,
                      k, (int)st, err.message);
            CHECK(e == NULL);
            CHECK(strncmp(err.message, "at ", 3) == 0 && strstr(err.message, "out of memory"));
            CHECK(err.byte_offset >= 0 && err.byte_offset <= (int64_t)strlen(texts[i]));
            CHECK_MSG(no_leak(&ta), "text %zu, allocation %" PRId64 " leaks %" PRId64 " blocks",
                      i, k, ta.live_blocks);
            if (k > 10000) break;
        }
        CHECK(failures > 0);
    }
}

/* ---- random trees: format -> parse -> format ----------------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void) { /* xorshift64* */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1du;
}

static int64_t rnd_range(int64_t lo, int64_t hi) { /* [lo, hi] */
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static size_t rnd_bytes(char *s, size_t cap, bool like_safe) {
    static const char *const k_pieces[] = {"a", "Z", " ", "'", "''", "\"", "%", "_", "\xc3\xa9",
                                           "\xe2\x9c\x93", "\\", "\n", "AND", "0", "\x7f", "\xff"};
    size_t n = 0, parts = (size_t)rnd_range(0, 6);
    for (size_t i = 0; i < parts; i++) {
        const char *p = k_pieces[rnd() % (sizeof k_pieces / sizeof k_pieces[0])];
        if (like_safe && (strchr(p, '%') || strchr(p, '_'))) continue;
        size_t l = strlen(p);
        if (n + l >= cap) break;
        memcpy(s + n, p, l);
        n += l;
    }
    return n;
}

static plank_expr *rnd_literal(const plank_allocator *a) {
    static const double k_doubles[] = {0.0, -0.0, 1.0, -1.5, 0.1, 1e300, -1e-300, 5e-324,
                                       DBL_MAX, DBL_MIN, 123456789.0, 1e21, 1e15};
    char s[64];
    switch (rnd() % 10) {
    case 0: return plank_expr_null(a);
    case 1: return plank_expr_bool(a, rnd() & 1);
    case 2: {
        static const int64_t k_ints[] = {0, 1, -1, INT64_MAX, INT64_MIN, 42, -1000000};
        if (rnd() & 1) return plank_expr_int(a, k_ints[rnd() % 7]);
        uint64_t u = rnd() >> (rnd() % 64);
        return plank_expr_int(a, (int64_t)((rnd() & 1) ? u : 0 - u));
    }
    case 3: return plank_expr_uint(a, (uint64_t)INT64_MAX + 1 + (rnd() >> (rnd() % 64)));
    case 4: {
        int32_t scale = (int32_t)rnd_range(0, 38);
        switch (rnd() % 4) {
        case 0: /* +-(10^38 - 1), the largest 38-digit magnitudes */
            if (rnd() & 1) return plank_expr_decimal(a, 0x4b3b4ca85a86c47a, 0x098a223fffffffffu, scale);
            return plank_expr_decimal(a, ~INT64_C(0x4b3b4ca85a86c47a), ~UINT64_C(0x098a223fffffffff) + 1,
                                      scale);
        case 1: return plank_expr_decimal(a, 0, rnd() >> (rnd() % 64), scale);
        case 2: return plank_expr_decimal(a, -1, rnd() | (UINT64_C(1) << 63), scale);
        default: /* |value| < 2^126 < 10^38 */
            return plank_expr_decimal(a, (int64_t)(rnd() >> 2) - (INT64_C(1) << 61), rnd(), scale);
        }
    }
    case 5: {
        if (rnd() % 3 == 0) return plank_expr_double(a, k_doubles[rnd() % 13]);
        if (rnd() % 8 == 0) return plank_expr_double(a, (rnd() & 1) ? INFINITY : -INFINITY);
        uint64_t bits = rnd();
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isnan(d)) d = 2.5;
        return plank_expr_double(a, d);
    }
    case 6:
    case 7: return plank_expr_string(a, s, rnd_bytes(s, sizeof s, false));
    case 8: return plank_expr_date(a, (int32_t)rnd_range(-719162, 2932896));
    default: {
        int64_t t = rnd_range(INT64_C(-62135596800000000), INT64_C(253402300799999999));
        if (rnd() & 1) t -= ((t % 1000000) + 1000000) % 1000000; /* whole seconds */
        return plank_expr_timestamp(a, t);
    }
    }
}

static plank_expr *rnd_column(const plank_allocator *a) {
    static const char *const k_names[] = {"a", "B_2", "x y", "date", "Select", "caf\xc3\xa9",
                                          "q\"uote", "_", "a1", "1a", "NULL", "in", "col",
                                          "timestamp_ms", "l_shipdate", "-", "'"};
    char path[128];
    size_t n = 0, parts = (size_t)rnd_range(1, 3);
    for (size_t i = 0; i < parts; i++) {
        const char *s = k_names[rnd() % (sizeof k_names / sizeof k_names[0])];
        if (i) path[n++] = '.';
        memcpy(path + n, s, strlen(s));
        n += strlen(s);
    }
    path[n] = '\0';
    return plank_expr_column(a, path);
}

static plank_expr *rnd_pred(const plank_allocator *a, int depth) {
    if (depth > 0 && rnd() % 3) {
        switch (rnd() % 3) {
        case 0: return plank_expr_and(rnd_pred(a, depth - 1), rnd_pred(a, depth - 1));
        case 1: return plank_expr_or(rnd_pred(a, depth - 1), rnd_pred(a, depth - 1));
        default: return plank_expr_not(rnd_pred(a, depth - 1));
        }
    }
    plank_compare_op op = (plank_compare_op)(rnd() % 6);
    switch (rnd() % 9) {
    case 0: return plank_expr_compare(op, rnd_column(a), rnd_literal(a));
    case 1: return plank_expr_compare(op, rnd_literal(a), rnd_column(a));
    case 2: return plank_expr_compare(op, rnd_column(a), rnd_column(a));
    case 3: {
        plank_expr *list[6];
        int32_t n = (int32_t)rnd_range(1, 6);
        for (int32_t i = 0; i < n; i++) list[i] = rnd_literal(a);
        return plank_expr_in(rnd_column(a), list, n);
    }
    case 4: return plank_expr_between(rnd_column(a), rnd_literal(a), rnd_literal(a));
    case 5: return plank_expr_is_null(rnd_column(a), rnd() & 1);
    case 6: {
        char s[64];
        size_t n = rnd_bytes(s, sizeof s, true);
        return plank_expr_starts_with(rnd_column(a), plank_expr_string(a, s, n));
    }
    case 7: return rnd_column(a);
    default: return plank_expr_bool(a, rnd() & 1);
    }
}

static bool same_tree(const plank_expr *x, const plank_expr *y) {
    if (x->kind != y->kind || x->n != y->n) return false;
    switch (x->kind) {
    case PK_EX_COLUMN: return x->path_len == y->path_len && strcmp(x->path, y->path) == 0;
    case PK_EX_LITERAL: {
        const pk_literal *l = &x->lit, *m = &y->lit;
        if (l->type != m->type) return false;
        switch (l->type) {
        case PK_LIT_NULL: return true;
        case PK_LIT_BOOL: return l->b == m->b;
        case PK_LIT_UINT: return l->u == m->u;
        case PK_LIT_DECIMAL: return l->hi == m->hi && l->lo == m->lo && l->scale == m->scale;
        case PK_LIT_DOUBLE: return memcmp(&l->d, &m->d, sizeof l->d) == 0;
        case PK_LIT_STRING: return l->len == m->len && memcmp(l->s, m->s, l->len) == 0;
        default: return l->i == m->i; /* INT, DATE, TIMESTAMP */
        }
    }
    case PK_EX_COMPARE:
        if (x->op != y->op) return false;
        break;
    case PK_EX_IS_NULL:
        if (x->negated != y->negated) return false;
        break;
    default: break;
    }
    for (int32_t i = 0; i < x->n; i++)
        if (!same_tree(x->kids[i], y->kids[i])) return false;
    return true;
}

static void test_round_trip(void) {
    th_alloc ta;
    plank_allocator al = th_alloc_init(&ta);
    int bad = 0;
    for (int iter = 0; iter < 3000; iter++) {
        plank_expr *e = rnd_pred(&al, (int)(rnd() % 6));
        CHECK(e != NULL);
        if (!e) continue;
        char *s1 = format_text(e);
        plank_error err;
        plank_error_init(&err);
        plank_expr *back = NULL;
        plank_status st = plank_expr_parse(s1, &al, &back, &err);
        if (st != PLANK_OK || !same_tree(e, back)) {
            if (bad++ < 5)
                fprintf(stderr, "round trip %d: [%s]: %s\n", iter, s1,
                        st == PLANK_OK ? "another tree" : err.message);
        } else {
            char *s2 = format_text(back);
            if (strcmp(s1, s2) != 0 && bad++ < 5)
                fprintf(stderr, "round trip %d: [%s] -> [%s]\n", iter, s1, s2);
            free(s2);
        }
        free(s1);
        plank_expr_free(back);
        plank_expr_free(e);
    }
    CHECK_MSG(bad == 0, "%d random trees did not round-trip", bad);
    CHECK(no_leak(&ta));
}

/* ---- formatting: truncation and what the grammar cannot say ------------------------- */

static void check_format(plank_expr *e, const char *want, bool reads_back, int line) {
    if (!e) {
        CHECK_MSG(0, "line %d: builder failed", line);
        return;
    }
    char *s = format_text(e);
    CHECK_MSG(strcmp(s, want) == 0, "line %d: [%s], want [%s]", line, s, want);
    plank_expr *back = NULL;
    plank_status st = plank_expr_parse(s, NULL, &back, NULL);
    CHECK_MSG((st == PLANK_OK) == reads_back, "line %d: [%s] parse status %d", line, s, (int)st);
    if (back) CHECK_MSG(same_tree(e, back), "line %d: [%s] reads back as another tree", line, s);
    plank_expr_free(back);
    plank_expr_free(e);
    free(s);
}
#define FORMATS(e, want, reads_back) check_format((e), (want), (reads_back), __LINE__)

static void test_format(void) {
    const plank_allocator *a = NULL;
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "a"), plank_expr_double(a, NAN)),
            "a = CAST('NaN' AS DOUBLE)", false);
    FORMATS(plank_expr_compare(PLANK_CMP_LT, plank_expr_column(a, "a"),
                               plank_expr_double(a, -INFINITY)),
            "a < -1e999", true);
    FORMATS(plank_expr_starts_with(plank_expr_column(a, "a"), plank_expr_string(a, "5%_", 3)),
            "starts_with(a, '5%_')", false);
    FORMATS(plank_expr_starts_with(plank_expr_column(a, "a"), plank_expr_column(a, "b")),
            "starts_with(a, b)", false);
    FORMATS(plank_expr_is_null(plank_expr_column(a, "a..b"), false), "\"a..b\" IS NULL", true);
    FORMATS(plank_expr_is_null(plank_expr_column(a, ".a"), false), "\".a\" IS NULL", true);
    FORMATS(plank_expr_is_null(plank_expr_column(a, ""), false), "\"\" IS NULL", false);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "a"),
                               plank_expr_decimal(a, 0, 5, 2)),
            "a = 0.05", true);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "a"),
                               plank_expr_decimal(a, -1, (uint64_t)-5, 38)),
            "a = -.00000000000000000000000000000000000005", true);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "a"),
                               plank_expr_decimal(a, INT64_MIN, 0, 0)),
            "a = -170141183460469231731687303715884105728.", false); /* 39 digits */
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "a"), plank_expr_uint(a, 7)),
            "a = 7", true);
    /* Dates and timestamps outside 0001..9999, as far as they go. */
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "d"), plank_expr_date(a, INT32_MIN)),
            "d = DATE '-5877641-06-23'", false);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "d"), plank_expr_date(a, INT32_MAX)),
            "d = DATE '5881580-07-11'", false);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "t"),
                               plank_expr_timestamp(a, INT64_MAX)),
            "t = TIMESTAMP '294247-01-10 04:00:54.775807'", false);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "t"),
                               plank_expr_timestamp(a, INT64_MIN)),
            "t = TIMESTAMP '-290308-12-21 19:59:05.224192'", false);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ, plank_expr_column(a, "t"),
                               plank_expr_timestamp(a, -1)),
            "t = TIMESTAMP '1969-12-31 23:59:59.999999'", true);
    FORMATS(plank_expr_compare(PLANK_CMP_EQ,
                               plank_expr_and(plank_expr_column(a, "a"), plank_expr_column(a, "b")),
                               plank_expr_bool(a, true)),
            "(a AND b) = TRUE", false);

    /* A short buffer: the length is the whole text's, the buffer a prefix. */
    plank_expr *e = NULL;
    CHECK(plank_expr_parse("a IN (1, 'two') AND b.c IS NOT NULL", NULL, &e, NULL) == PLANK_OK);
    const char *want = "(a IN (1, 'two')) AND (b.c IS NOT NULL)";
    size_t n = strlen(want);
    char buf[64];
    for (size_t size = 0; size <= n + 2; size++) {
        memset(buf, 'x', sizeof buf);
        CHECK(plank_expr_format(e, buf, size) == n);
        if (size > 0) {
            size_t w = size - 1 < n ? size - 1 : n;
            CHECK(memcmp(buf, want, w) == 0 && buf[w] == '\0');
        }
        CHECK(buf[size] == 'x');
    }
    CHECK(plank_expr_format(NULL, buf, sizeof buf) == 0 && buf[0] == '\0');
    plank_expr_free(e);
}

/* ---- dates and timestamps -------------------------------------------------------------- */

static bool date_of(const char *s, int32_t *days) { return pk_parse_date(s, strlen(s), days); }
static bool ts_of(const char *s, int64_t *t) { return pk_parse_timestamp(s, strlen(s), t); }

static void test_dates(void) {
    static const struct { const char *s; int32_t days; } k_dates[] = {
        {"1970-01-01", 0},       {"1969-12-31", -1},       {"1994-01-01", 8766},
        {"2000-02-29", 11016},   {"2000-03-01", 11017},    {"1900-03-01", -25508},
        {"9999-12-31", 2932896}, {"0001-01-01", -719162},  {"2020-01-01", 18262},
    };
    for (size_t i = 0; i < sizeof k_dates / sizeof k_dates[0]; i++) {
        int32_t d = 12345;
        CHECK_MSG(date_of(k_dates[i].s, &d) && d == k_dates[i].days, "%s -> %d", k_dates[i].s,
                  (int)d);
        char out[16];
        pk_format_date(k_dates[i].days, out);
        CHECK_MSG(strcmp(out, k_dates[i].s) == 0, "%d -> %s", (int)k_dates[i].days, out);
    }
    static const char *const k_bad_dates[] = {
        "2001-02-29", "1900-02-29", "2000-02-30", "2000-04-31", "0000-01-01", "2000-00-10",
        "2000-01-00", "2000-1-01",  "2000/01/01", " 2000-01-01", "2000-01-01 ", "+200-01-01",
        "2000-01-1a", "",           "2000-01-32", "2000-12-32", "99999-01-01", "-001-01-01",
    };
    for (size_t i = 0; i < sizeof k_bad_dates / sizeof k_bad_dates[0]; i++) {
        int32_t d;
        CHECK_MSG(!date_of(k_bad_dates[i], &d), "[%s] accepted", k_bad_dates[i]);
    }
    int32_t d;
    CHECK(pk_parse_date("1994-01-01xyz", 10, &d) && d == 8766); /* no NUL needed */

    /* Every day of 0001..9999 against a calendar counted here. */
    static const int k_month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int32_t day = -719162;
    int64_t wrong = 0;
    for (int y = 1; y <= 9999; y++) {
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int nd = k_month_days[m - 1] + (m == 2 && leap);
            for (int dd = 1; dd <= nd + 1; dd++) {
                char s[40], out[16];
                snprintf(s, sizeof s, "%04d-%02d-%02d", y, m, dd);
                int32_t got;
                bool ok = date_of(s, &got);
                if (dd > nd) { /* the day after the month's last: rejected */
                    wrong += ok;
                    continue;
                }
                pk_format_date(day, out);
                wrong += !ok || got != day || strcmp(out, s) != 0;
                day++;
            }
        }
    }
    CHECK_EQ_I64(wrong, 0);
    CHECK_EQ_I64(day, 2932897);
}

static void test_timestamps(void) {
    static const struct { const char *s; int64_t t; const char *canon; } k_ts[] = {
        {"1970-01-01 00:00:00", 0, NULL},
        {"1970-01-01", 0, "1970-01-01 00:00:00"},
        {"1970-01-01T00:00:01", 1000000, "1970-01-01 00:00:01"},
        {"1970-01-01 00:00:00.000001", 1, NULL},
        {"1969-12-31 23:59:59.999999", -1, NULL},
        {"1969-12-31 23:59:59.9999999", -1, "1969-12-31 23:59:59.999999"},
        {"1969-12-31 23:59:59.000000001", -1000000, "1969-12-31 23:59:59"},
        {"2020-01-01 00:00:00.1234567", INT64_C(1577836800123456), "2020-01-01 00:00:00.123456"},
        {"2020-01-01 00:00:00.123456789", INT64_C(1577836800123456), "2020-01-01 00:00:00.123456"},
        {"2020-01-01 00:00:00.5", INT64_C(1577836800500000), "2020-01-01 00:00:00.500000"},
        {"2020-01-01 12:34:56.000100", INT64_C(1577882096000100), NULL},
        {"2000-02-29 23:59:59", INT64_C(951868799000000), NULL},
        {"1994-01-01", INT64_C(8766) * 86400000000, "1994-01-01 00:00:00"},
        {"9999-12-31 23:59:59.999999", INT64_C(253402300799999999), NULL},
        {"0001-01-01 00:00:00", INT64_C(-62135596800000000), NULL},
    };
    for (size_t i = 0; i < sizeof k_ts / sizeof k_ts[0]; i++) {
        int64_t t = 12345;
        CHECK_MSG(ts_of(k_ts[i].s, &t) && t == k_ts[i].t, "%s -> %" PRId64, k_ts[i].s, t);
        char out[40];
        pk_format_timestamp(k_ts[i].t, out);
        const char *want = k_ts[i].canon ? k_ts[i].canon : k_ts[i].s;
        CHECK_MSG(strcmp(out, want) == 0, "%" PRId64 " -> %s, want %s", k_ts[i].t, out, want);
    }
    static const char *const k_bad[] = {
        "1970-01-01 24:00:00", "1970-01-01 00:60:00", "1970-01-01 00:00:60", "1970-01-01 00:00",
        "1970-01-01 00:00:00.", "1970-01-01 00:00:00.1234567890", "1970-01-01x00:00:00",
        "1970-01-01 0:00:00", "1970-01-01 00:00:00.12a", "1970-01-01 ", "1970-01-01T",
        "1970-02-30 00:00:00", "1970-01-01 00:00:00Z", "1970-01-01 00:00:00+01",
        "1970-01-01  00:00:00", "1970-01-01 00-00-00", "1970-01-01 00:00:00,5", "",
    };
    for (size_t i = 0; i < sizeof k_bad / sizeof k_bad[0]; i++) {
        int64_t t;
        CHECK_MSG(!ts_of(k_bad[i], &t), "[%s] accepted", k_bad[i]);
    }
    int64_t t;
    CHECK(pk_parse_timestamp("1970-01-01 00:00:01.5 junk", 21, &t) && t == 1500000);
    /* Random instants of 0001..9999 go text -> micros -> text. */
    int64_t wrong = 0;
    for (int i = 0; i < 200000; i++) {
        int64_t v = rnd_range(INT64_C(-62135596800000000), INT64_C(253402300799999999));
        char out[40];
        pk_format_timestamp(v, out);
        int64_t back;
        wrong += !ts_of(out, &back) || back != v;
    }
    CHECK_EQ_I64(wrong, 0);
}

int main(void) {
    test_valid();
    test_tree();
    test_errors();
    test_depth();
    test_oom();
    test_round_trip();
    test_format();
    test_dates();
    test_timestamps();
    TEST_END();
}
