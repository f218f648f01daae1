/*
 * pk_expr.h: the predicate tree behind plank_expr (module scan).
 *
 * A node is one heap block holding its kind, its payload and its operands;
 * the tree owns everything below it. Binding to a file (pk_bind.c) copies
 * what it needs, so a tree may be freed once a scan is open.
 *
 * Depends on: common.
 */
#ifndef PK_EXPR_H
#define PK_EXPR_H

#include "../common/pk_common.h"

typedef enum pk_expr_kind {
    PK_EX_COLUMN = 0,
    PK_EX_LITERAL,
    PK_EX_COMPARE,    /* kids[0] op kids[1] */
    PK_EX_IN,         /* kids[0] IN (kids[1..n)) */
    PK_EX_BETWEEN,    /* kids[0] BETWEEN kids[1] AND kids[2] */
    PK_EX_IS_NULL,    /* kids[0] IS [NOT] NULL (negated) */
    PK_EX_STARTS_WITH,/* kids[0] LIKE kids[1] || '%' */
    PK_EX_AND,
    PK_EX_OR,
    PK_EX_NOT
} pk_expr_kind;

typedef enum pk_lit_type {
    PK_LIT_NULL = 0,
    PK_LIT_BOOL,
    PK_LIT_INT,       /* i */
    PK_LIT_UINT,      /* u (> INT64_MAX, or built as unsigned) */
    PK_LIT_DECIMAL,   /* (hi:lo) / 10^scale */
    PK_LIT_DOUBLE,
    PK_LIT_STRING,    /* s[0..len) */
    PK_LIT_DATE,      /* days */
    PK_LIT_TIMESTAMP  /* micros */
} pk_lit_type;

typedef struct pk_literal {
    pk_lit_type type;
    bool b;
    int64_t i;
    uint64_t u;
    int64_t hi;
    uint64_t lo;
    int32_t scale;
    double d;
    char *s;
    size_t len;
} pk_literal;

struct plank_expr {
    plank_allocator alloc;
    pk_expr_kind kind;
    char *path;          /* COLUMN (NUL-terminated copy) */
    size_t path_len;
    pk_literal lit;      /* LITERAL */
    plank_compare_op op; /* COMPARE */
    bool negated;        /* IS_NULL: IS NOT NULL */
    int32_t n;           /* operands */
    struct plank_expr **kids;
};

/* ---- Text of predicates (pk_expr_parse.c, pk_expr_format.c) ------------- */

/* plank_expr_parse rejects text whose tree would be deeper than this (a leaf
 * is one level; NOT chains and long AND / OR chains count) or whose
 * parentheses nest deeper: passes over a parsed tree may recurse. */
#define PK_EXPR_MAX_DEPTH 1000

/* The text of DATE and TIMESTAMP literals, s[0..len) (no NUL needed):
 * exactly 'YYYY-MM-DD' (proleptic Gregorian, years 0001..9999, the day
 * checked against the month), and for timestamps optionally ' ' or 'T' and
 * 'HH:MM:SS' (hours 00..23), optionally '.' and 1 to 9 fraction digits, those
 * beyond microseconds dropped (toward negative infinity, as DuckDB). Days or
 * microseconds since 1970-01-01; false when the text does not fit. */
bool pk_parse_date(const char *s, size_t len, int32_t *days);
bool pk_parse_timestamp(const char *s, size_t len, int64_t *micros);
/* The inverse, NUL-terminated: 'YYYY-MM-DD' and 'YYYY-MM-DD HH:MM:SS', with
 * '.ffffff' when the microseconds are not zero. Years outside 0001..9999
 * (which the parsers reject) are written with more digits or a '-'. */
void pk_format_date(int32_t days, char out[16]);
void pk_format_timestamp(int64_t micros, char out[40]);

#endif /* PK_EXPR_H */
