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

#endif /* PK_EXPR_H */
