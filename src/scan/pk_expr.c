/*
 * pk_expr.c: building and freeing predicate trees (plank_expr_*).
 *
 * Builders that take operands own them from the call on: on any failure
 * (an operand that is NULL, out of memory, a wrong argument) every operand
 * is freed and NULL returned, so a caller can nest builder calls and check
 * the result once.
 */
#include "pk_expr.h"

static plank_expr *node_new(const plank_allocator *a, pk_expr_kind kind, int32_t n) {
    if (!a) a = pk_default_allocator();
    plank_expr *e = pk_calloc(a, sizeof *e);
    if (!e) return NULL;
    e->alloc = *a;
    e->kind = kind;
    if (n > 0) {
        e->kids = pk_calloc(a, (size_t)n * sizeof *e->kids);
        if (!e->kids) {
            pk_free(a, e, sizeof *e);
            return NULL;
        }
        e->n = n;
    }
    return e;
}

void plank_expr_free(plank_expr *e) {
    if (!e) return;
    plank_allocator a = e->alloc;
    for (int32_t i = 0; i < e->n; i++) plank_expr_free(e->kids[i]);
    if (e->kids) pk_free(&a, e->kids, (size_t)e->n * sizeof *e->kids);
    if (e->path) pk_free(&a, e->path, e->path_len + 1);
    if (e->lit.s) pk_free(&a, e->lit.s, e->lit.len + 1);
    pk_free(&a, e, sizeof *e);
}

plank_expr *plank_expr_column(const plank_allocator *a, const char *path) {
    if (!path) return NULL;
    plank_expr *e = node_new(a, PK_EX_COLUMN, 0);
    if (!e) return NULL;
    e->path_len = strlen(path);
    e->path = pk_strndup(&e->alloc, path, e->path_len);
    if (!e->path) {
        plank_expr_free(e);
        return NULL;
    }
    return e;
}

static plank_expr *literal(const plank_allocator *a, pk_lit_type t) {
    plank_expr *e = node_new(a, PK_EX_LITERAL, 0);
    if (e) e->lit.type = t;
    return e;
}

plank_expr *plank_expr_null(const plank_allocator *a) { return literal(a, PK_LIT_NULL); }

plank_expr *plank_expr_bool(const plank_allocator *a, bool v) {
    plank_expr *e = literal(a, PK_LIT_BOOL);
    if (e) e->lit.b = v;
    return e;
}

plank_expr *plank_expr_int(const plank_allocator *a, int64_t v) {
    plank_expr *e = literal(a, PK_LIT_INT);
    if (e) e->lit.i = v;
    return e;
}

plank_expr *plank_expr_uint(const plank_allocator *a, uint64_t v) {
    /* Values that fit int64 are integers like any other: one representation
     * per value keeps binding and formatting simple. */
    if (v <= (uint64_t)INT64_MAX) return plank_expr_int(a, (int64_t)v);
    plank_expr *e = literal(a, PK_LIT_UINT);
    if (e) e->lit.u = v;
    return e;
}

plank_expr *plank_expr_decimal(const plank_allocator *a, int64_t high, uint64_t low,
                               int32_t scale) {
    if (scale < 0 || scale > 38) return NULL;
    plank_expr *e = literal(a, PK_LIT_DECIMAL);
    if (e) {
        e->lit.hi = high;
        e->lit.lo = low;
        e->lit.scale = scale;
    }
    return e;
}

plank_expr *plank_expr_double(const plank_allocator *a, double v) {
    plank_expr *e = literal(a, PK_LIT_DOUBLE);
    if (e) e->lit.d = v;
    return e;
}

plank_expr *plank_expr_string(const plank_allocator *a, const char *s, size_t len) {
    if (!s && len) return NULL;
    plank_expr *e = literal(a, PK_LIT_STRING);
    if (!e) return NULL;
    e->lit.len = len;
    e->lit.s = pk_strndup(&e->alloc, s ? s : "", len);
    if (!e->lit.s) {
        plank_expr_free(e);
        return NULL;
    }
    return e;
}

plank_expr *plank_expr_date(const plank_allocator *a, int32_t days) {
    plank_expr *e = literal(a, PK_LIT_DATE);
    if (e) e->lit.i = days;
    return e;
}

plank_expr *plank_expr_timestamp(const plank_allocator *a, int64_t micros) {
    plank_expr *e = literal(a, PK_LIT_TIMESTAMP);
    if (e) e->lit.i = micros;
    return e;
}

/* A node over operands ops[0..n), owning them; NULL (and every operand
 * freed) when one is NULL or allocation fails. */
static plank_expr *combine(pk_expr_kind kind, plank_expr *const *ops, int32_t n) {
    bool ok = n > 0;
    for (int32_t i = 0; i < n; i++) ok &= ops[i] != NULL;
    plank_expr *e = ok ? node_new(&ops[0]->alloc, kind, n) : NULL;
    if (!e) {
        for (int32_t i = 0; i < n; i++) plank_expr_free(ops[i]);
        return NULL;
    }
    for (int32_t i = 0; i < n; i++) e->kids[i] = ops[i];
    return e;
}

plank_expr *plank_expr_compare(plank_compare_op op, plank_expr *left, plank_expr *right) {
    plank_expr *ops[2] = {left, right};
    if ((unsigned)op > PLANK_CMP_GE) {
        plank_expr_free(left);
        plank_expr_free(right);
        return NULL;
    }
    plank_expr *e = combine(PK_EX_COMPARE, ops, 2);
    if (e) e->op = op;
    return e;
}

plank_expr *plank_expr_in(plank_expr *value, plank_expr *const *list, int32_t n) {
    if (n < 1 || !list) {
        plank_expr_free(value);
        if (list)
            for (int32_t i = 0; i < n; i++) plank_expr_free(list[i]);
        return NULL;
    }
    bool ok = value != NULL;
    for (int32_t i = 0; i < n; i++) ok &= list[i] != NULL;
    plank_expr *e = ok ? node_new(&value->alloc, PK_EX_IN, n + 1) : NULL;
    if (!e) {
        plank_expr_free(value);
        for (int32_t i = 0; i < n; i++) plank_expr_free(list[i]);
        return NULL;
    }
    e->kids[0] = value;
    for (int32_t i = 0; i < n; i++) e->kids[i + 1] = list[i];
    return e;
}

plank_expr *plank_expr_between(plank_expr *value, plank_expr *lo, plank_expr *hi) {
    plank_expr *ops[3] = {value, lo, hi};
    return combine(PK_EX_BETWEEN, ops, 3);
}

plank_expr *plank_expr_is_null(plank_expr *value, bool negated) {
    plank_expr *e = combine(PK_EX_IS_NULL, &value, 1);
    if (e) e->negated = negated;
    return e;
}

plank_expr *plank_expr_starts_with(plank_expr *value, plank_expr *prefix) {
    plank_expr *ops[2] = {value, prefix};
    return combine(PK_EX_STARTS_WITH, ops, 2);
}

plank_expr *plank_expr_and(plank_expr *left, plank_expr *right) {
    plank_expr *ops[2] = {left, right};
    return combine(PK_EX_AND, ops, 2);
}

plank_expr *plank_expr_or(plank_expr *left, plank_expr *right) {
    plank_expr *ops[2] = {left, right};
    return combine(PK_EX_OR, ops, 2);
}

plank_expr *plank_expr_not(plank_expr *e) { return combine(PK_EX_NOT, &e, 1); }
