/*
 * pk_bind.c: binds a plank_expr to one file (pk_scan.h explains the
 * result).
 *
 * Every literal is brought into the compared column's domain here, with
 * the semantics DuckDB gives the same SQL: exact comparisons between
 * integers and decimals (x*A op B solved for x with floor division, so a
 * literal between two representable values gives the equivalent bound on
 * the integers), doubles compared as doubles (for integer columns the
 * boundary integer found by bisection over the same conversion DuckDB
 * applies to each value), FLOAT columns against decimal and integer
 * literals in single precision (the literal is cast to the column type)
 * and against double literals in double precision (the float bound next
 * to the double), dates and timestamps through nanoseconds.
 */
#include "pk_scan.h"

#include <math.h>
#include <stdio.h>

#define I128_MAX ((pk_i128)(((unsigned __int128)1 << 127) - 1))
#define I128_MIN (-I128_MAX - 1)
/* Saturated magnitudes stay far from overflow in later products. */
#define SAT ((pk_i128)1 << 120)

typedef struct binder {
    plank_reader *r;
    pk_bound *b;
    plank_error *err;
    int depth;
} binder;

static plank_status oom(binder *bd) {
    return pk_error_set(bd->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
}

static pk_bnode *new_node(binder *bd, pk_bkind kind, int32_t n) {
    pk_bnode *x = pk_arena_alloc(&bd->b->arena, sizeof *x);
    if (!x) return NULL;
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->col = x->col2 = -1;
    x->id = bd->b->nnodes++;
    if (n > 0) {
        x->kids = pk_arena_alloc(&bd->b->arena, (size_t)n * sizeof *x->kids);
        if (!x->kids) return NULL;
        x->n = n;
    }
    return x;
}

/* ---- Columns ------------------------------------------------------------------ */

static pk_i128 pow10_i128(int k) {
    pk_i128 v = 1;
    for (int i = 0; i < k; i++) v *= 10;
    return v;
}

static void classify(pk_fcol *c, const plank_reader *r) {
    const plank_schema_node *n = c->node;
    const plank_logical_type *lt = &n->logical;
    c->cls = PK_C_NONE;
    c->scale = 0;
    switch (n->physical_type) {
    case PLANK_BOOLEAN:
        c->dom = PK_V_BOOL;
        c->cls = PK_C_BOOL;
        c->deprecated_ok = true;
        break;
    case PLANK_INT32:
    case PLANK_INT64:
        c->dom = n->physical_type == PLANK_INT32 ? PK_V_I32 : PK_V_I64;
        c->deprecated_ok = true;
        if (lt->kind == PLANK_LOGICAL_INTEGER && !lt->is_signed) {
            c->is_unsigned = true;
            c->deprecated_ok = false;
            c->cls = PK_C_EXACT;
        } else if (lt->kind == PLANK_LOGICAL_DATE) {
            c->cls = PK_C_TIME;
            c->ns_per_unit = 86400LL * 1000000000LL;
        } else if (lt->kind == PLANK_LOGICAL_TIMESTAMP) {
            c->cls = PK_C_TIME;
            c->ns_per_unit = lt->unit == PLANK_UNIT_MILLIS   ? 1000000
                             : lt->unit == PLANK_UNIT_MICROS ? 1000
                                                             : 1;
        } else if (lt->kind == PLANK_LOGICAL_DECIMAL) {
            c->cls = PK_C_EXACT;
            c->scale = lt->scale;
        } else if (lt->kind == PLANK_LOGICAL_TIME) {
            c->cls = PK_C_NONE;
        } else {
            c->cls = PK_C_EXACT;
        }
        break;
    case PLANK_INT96:
        c->dom = PK_V_I64;
        c->int96 = true;
        c->cls = PK_C_TIME;
        c->ns_per_unit = 1000;
        break;
    case PLANK_FLOAT:
        c->dom = PK_V_F32;
        c->cls = PK_C_FLOAT;
        c->deprecated_ok = true;
        break;
    case PLANK_DOUBLE:
        c->dom = PK_V_F64;
        c->cls = PK_C_FLOAT;
        c->deprecated_ok = true;
        break;
    case PLANK_BYTE_ARRAY:
    case PLANK_FIXED_LEN_BYTE_ARRAY:
        if (lt->kind == PLANK_LOGICAL_DECIMAL) {
            bool fits = n->physical_type == PLANK_BYTE_ARRAY || n->type_length <= 16;
            c->dom = PK_V_I128;
            c->cls = fits && lt->precision <= 38 ? PK_C_EXACT : PK_C_NONE;
            c->scale = lt->scale;
        } else if (lt->kind == PLANK_LOGICAL_UUID || lt->kind == PLANK_LOGICAL_FLOAT16 ||
                   lt->kind == PLANK_LOGICAL_INTERVAL) {
            c->dom = PK_V_BYTES;
            c->cls = PK_C_NONE;
        } else {
            c->dom = PK_V_BYTES;
            c->cls = PK_C_BYTES;
        }
        break;
    default:
        c->dom = PK_V_BYTES;
        c->cls = PK_C_NONE;
    }
    /* Statistics in the type's defined order (min_value/max_value) are
     * usable when the file declares that order, or IEEE 754 total order (its
     * NaN bounds are refused where they are decoded), or declares none. */
    int32_t col = c->column;
    const pk_file_metadata *md = &r->md;
    int32_t order = md->num_column_orders > col ? md->column_orders[col] : 0;
    /* GEOMETRY/GEOGRAPHY min/max are undefined: ignored (LogicalTypes.md). */
    bool geo = lt->kind == PLANK_LOGICAL_GEOMETRY || lt->kind == PLANK_LOGICAL_GEOGRAPHY;
    c->stats_ok = (order == 0 || order == 1) && c->cls != PK_C_NONE && !c->int96 && !geo;
}

static plank_status bind_column(binder *bd, const plank_expr *e, int32_t *slot) {
    plank_reader *r = bd->r;
    int32_t col = plank_reader_find_column(r, e->path);
    if (col < 0) {
        /* A group path names no leaf: say so rather than "not found". */
        for (int32_t i = 0; i < plank_reader_num_schema_nodes(r); i++) {
            const plank_schema_node *n = plank_reader_schema_node(r, i);
            if (n && n->num_children > 0 && strcmp(n->path, e->path) == 0)
                return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                                    "filter column \"%s\" is a group, not a leaf column",
                                    e->path);
        }
        return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                            "filter column \"%s\" does not exist (or is ambiguous)", e->path);
    }
    const plank_schema_node *n = plank_reader_column_node(r, col);
    PK_RETURN_IF(n->max_repetition_level > 0, bd->err, PLANK_ERR_UNSUPPORTED,
                 "filter column \"%s\" is inside a list: filters apply to columns outside "
                 "lists", n->path);
    PK_RETURN_IF(!r->selected[col], bd->err, PLANK_ERR_INVALID_ARGUMENT,
                 "filter column \"%s\" is not selected in the reader's options", n->path);
    pk_bound *b = bd->b;
    for (int32_t i = 0; i < b->ncols; i++)
        if (b->cols[i].column == col) {
            *slot = i;
            return PLANK_OK;
        }
    pk_fcol *nc = pk_arena_alloc(&b->arena, (size_t)(b->ncols + 1) * sizeof *nc);
    if (!nc) return oom(bd);
    if (b->ncols) memcpy(nc, b->cols, (size_t)b->ncols * sizeof *nc);
    pk_fcol *c = &nc[b->ncols];
    memset(c, 0, sizeof *c);
    c->column = col;
    c->node = n;
    classify(c, r);
    b->cols = nc;
    *slot = b->ncols++;
    return PLANK_OK;
}

/* ---- Literal conversion ----------------------------------------------------------- */

static const char *lit_name(pk_lit_type t) {
    switch (t) {
    case PK_LIT_NULL: return "NULL";
    case PK_LIT_BOOL: return "boolean";
    case PK_LIT_INT: case PK_LIT_UINT: return "integer";
    case PK_LIT_DECIMAL: return "decimal";
    case PK_LIT_DOUBLE: return "double";
    case PK_LIT_STRING: return "string";
    case PK_LIT_DATE: return "DATE";
    case PK_LIT_TIMESTAMP: return "TIMESTAMP";
    }
    return "?";
}

static plank_status mismatch(binder *bd, const pk_fcol *c, const pk_literal *l) {
    char t[96];
    plank_logical_type_format(&c->node->logical, t, sizeof t);
    return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                        "cannot compare column \"%s\" (%s%s%s) with a %s literal",
                        c->node->path, plank_physical_type_name(c->node->physical_type),
                        c->node->logical.kind ? " " : "", c->node->logical.kind ? t : "",
                        lit_name(l->type));
}

/* The exact value of a numeric literal as unscaled / 10^scale. */
static bool lit_exact(const pk_literal *l, pk_i128 *v, int32_t *scale) {
    switch (l->type) {
    case PK_LIT_INT: *v = l->i; *scale = 0; return true;
    case PK_LIT_UINT: *v = (pk_i128)l->u; *scale = 0; return true;
    case PK_LIT_DECIMAL:
        *v = (pk_i128)(((unsigned __int128)(uint64_t)l->hi << 64) | l->lo);
        *scale = l->scale;
        return true;
    default: return false;
    }
}

double pk_decimal_to_double(pk_i128 v, int32_t scale) {
    /* As DuckDB casts a decimal to double: the integer part and the
     * fraction converted apart and added (closer than the unscaled value
     * over 10^scale, and what its comparisons see). */
    pk_i128 p = 1;
    for (int i = 0; i < scale; i++) p *= 10;
    pk_i128 q = v / p, r = v % p;
    return (double)q + (double)r / (double)p;
}

static double exact_to_double(pk_i128 v, int32_t scale) { return pk_decimal_to_double(v, scale); }

static pk_i128 floor_div(pk_i128 b, pk_i128 a, bool *exact) {
    pk_i128 q = b / a, rem = b % a;
    *exact = rem == 0;
    if (rem != 0 && ((rem < 0) != (a < 0))) q -= 1;
    return q;
}

/* x*a op v (a > 0) as an inclusive integer range [*lo, *hi] of x
 * (lo > hi: empty). NE is given as EQ; the caller negates. */
static void solve_exact(plank_compare_op op, pk_i128 a, pk_i128 v, pk_i128 *lo, pk_i128 *hi) {
    bool exact;
    pk_i128 f = floor_div(v, a, &exact);
    *lo = I128_MIN;
    *hi = I128_MAX;
    switch (op) {
    case PLANK_CMP_EQ:
    case PLANK_CMP_NE:
        if (exact) *lo = *hi = f;
        else { *lo = 1; *hi = 0; }
        break;
    case PLANK_CMP_LT: *hi = exact ? f - 1 : f; break;
    case PLANK_CMP_LE: *hi = f; break;
    case PLANK_CMP_GT: *lo = f + 1; break;
    case PLANK_CMP_GE: *lo = exact ? f : f + 1; break;
    }
}

/* Saturating v * 10^k. */
static pk_i128 scale_up(pk_i128 v, int k) {
    for (int i = 0; i < k; i++) {
        if (v > SAT / 10) return SAT;
        if (v < -SAT / 10) return -SAT;
        v *= 10;
    }
    return v;
}

static void value_range(const pk_fcol *c, pk_i128 *mn, pk_i128 *mx) {
    switch (c->dom) {
    case PK_V_BOOL: *mn = 0; *mx = 1; return;
    case PK_V_I32:
        if (c->is_unsigned) { *mn = 0; *mx = UINT32_MAX; }
        else { *mn = INT32_MIN; *mx = INT32_MAX; }
        return;
    case PK_V_I64:
        if (c->is_unsigned) { *mn = 0; *mx = UINT64_MAX; }
        else { *mn = INT64_MIN; *mx = INT64_MAX; }
        return;
    default: *mn = -SAT; *mx = SAT; return;
    }
}

/* The integer as the domain stores it (unsigned columns biased so that a
 * signed comparison orders them). */
static int64_t to_dom(const pk_fcol *c, pk_i128 v) {
    if (c->dom == PK_V_I32 && c->is_unsigned) return (int64_t)v - ((int64_t)1 << 31);
    if (c->dom == PK_V_I64 && c->is_unsigned)
        return (int64_t)((uint64_t)v ^ ((uint64_t)1 << 63));
    return (int64_t)v;
}

/* Fills an integer-domain RANGE term from [lo, hi] in value space. */
static void int_term(const pk_fcol *c, pk_i128 lo, pk_i128 hi, bool negate, pk_term *t) {
    pk_i128 mn, mx;
    value_range(c, &mn, &mx);
    if (lo < mn) lo = mn;
    if (hi > mx) hi = mx;
    memset(t, 0, sizeof *t);
    t->kind = PK_T_RANGE;
    t->negate = negate;
    if (lo > hi) {
        t->empty = true;
        return;
    }
    if (c->dom == PK_V_I128) {
        t->lo.w = lo;
        t->hi.w = hi;
    } else {
        t->lo.i = to_dom(c, lo);
        t->hi.i = to_dom(c, hi);
    }
}

/* DuckDB's value of an exact column's stored integer as a double. */
static double exact_col_double(const pk_fcol *c, pk_i128 x) {
    return exact_to_double(x, c->scale);
}

/* Exact column against a double literal: the first stored integer whose
 * double compares >= d (or > d), by bisection over the column's range. */
static pk_i128 first_at_least(const pk_fcol *c, double d, bool strict) {
    pk_i128 lo, hi;
    value_range(c, &lo, &hi);
    hi += 1; /* answer in [lo, hi]; hi means none */
    while (lo < hi) {
        pk_i128 mid = lo + (hi - lo) / 2;
        int k = pk_double_order(exact_col_double(c, mid), d);
        if (strict ? k > 0 : k >= 0) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static void float_bounds(double d, float *down, float *up) {
    float f = (float)d;
    if (isnan(d)) { *down = *up = f; return; }
    if ((double)f < d) { *down = f; *up = nextafterf(f, INFINITY); }
    else if ((double)f > d) { *up = f; *down = nextafterf(f, -INFINITY); }
    else *down = *up = f;
}

/* A float RANGE term for x op c (x compared as a double). */
static void float_term(plank_compare_op op, double c, bool is_f32, bool exact_c, pk_term *t) {
    memset(t, 0, sizeof *t);
    t->kind = PK_T_RANGE;
    t->negate = op == PLANK_CMP_NE;
    double lo = -INFINITY, hi = INFINITY;
    bool lo_open = false, hi_open = false, nan = false, empty = false;
    float down = 0, up = 0;
    if (is_f32 && !exact_c) float_bounds(c, &down, &up);
    if (isnan(c)) {
        /* NaN is the largest value: x < NaN for every other x. */
        switch (op) {
        case PLANK_CMP_EQ: case PLANK_CMP_NE: case PLANK_CMP_GE: empty = true; nan = true; break;
        case PLANK_CMP_LT: break;
        case PLANK_CMP_LE: nan = true; break;
        case PLANK_CMP_GT: empty = true; break;
        }
    } else if (is_f32 && !exact_c) {
        switch (op) {
        case PLANK_CMP_EQ: case PLANK_CMP_NE:
            if (down == up) lo = hi = down;
            else empty = true;
            break;
        case PLANK_CMP_LT: hi = up; hi_open = true; break;
        case PLANK_CMP_LE: hi = down; break;
        case PLANK_CMP_GT: lo = down; lo_open = true; nan = true; break;
        case PLANK_CMP_GE: lo = up; nan = true; break;
        }
    } else {
        switch (op) {
        case PLANK_CMP_EQ: case PLANK_CMP_NE: lo = hi = c; break;
        case PLANK_CMP_LT: hi = c; hi_open = true; break;
        case PLANK_CMP_LE: hi = c; break;
        case PLANK_CMP_GT: lo = c; lo_open = true; nan = true; break;
        case PLANK_CMP_GE: lo = c; nan = true; break;
        }
    }
    t->lo.d = lo;
    t->hi.d = hi;
    t->lo_open = lo_open;
    t->hi_open = hi_open;
    t->nan = nan;
    /* An empty interval keeps `nan` meaningful: the range is then NaN only. */
    t->empty = empty || lo > hi || (lo == hi && (lo_open || hi_open));
}

plank_compare_op pk_flip_op(plank_compare_op op) {
    switch (op) {
    case PLANK_CMP_LT: return PLANK_CMP_GT;
    case PLANK_CMP_LE: return PLANK_CMP_GE;
    case PLANK_CMP_GT: return PLANK_CMP_LT;
    case PLANK_CMP_GE: return PLANK_CMP_LE;
    default: return op;
    }
}

/* column op literal, as a term. *is_null: the literal is NULL (the result
 * is NULL on every row). */
static plank_status bind_compare(binder *bd, const pk_fcol *c, plank_compare_op op,
                                 const pk_literal *l, pk_term *t, bool *is_null) {
    *is_null = false;
    if (l->type == PK_LIT_NULL) {
        *is_null = true;
        return PLANK_OK;
    }
    bool negate = op == PLANK_CMP_NE;
    pk_i128 v, lo, hi;
    int32_t ls;
    switch (c->cls) {
    case PK_C_BOOL:
        if (l->type != PK_LIT_BOOL) return mismatch(bd, c, l);
        solve_exact(op, 1, l->b ? 1 : 0, &lo, &hi);
        int_term(c, lo, hi, negate, t);
        return PLANK_OK;
    case PK_C_EXACT:
        if (lit_exact(l, &v, &ls)) {
            pk_i128 a = 1, bv = v;
            if (ls > c->scale) a = pow10_i128(ls - c->scale);
            else bv = scale_up(v, c->scale - ls);
            solve_exact(op, a, bv, &lo, &hi);
            int_term(c, lo, hi, negate, t);
            return PLANK_OK;
        }
        if (l->type == PK_LIT_DOUBLE) {
            double d = l->d;
            pk_i128 mn, mx;
            value_range(c, &mn, &mx);
            lo = mn;
            hi = mx;
            switch (op) {
            case PLANK_CMP_EQ:
            case PLANK_CMP_NE: lo = first_at_least(c, d, false); hi = first_at_least(c, d, true) - 1; break;
            case PLANK_CMP_LT: lo = mn; hi = first_at_least(c, d, false) - 1; break;
            case PLANK_CMP_LE: lo = mn; hi = first_at_least(c, d, true) - 1; break;
            case PLANK_CMP_GT: lo = first_at_least(c, d, true); hi = mx; break;
            case PLANK_CMP_GE: lo = first_at_least(c, d, false); hi = mx; break;
            }
            int_term(c, lo, hi, negate, t);
            return PLANK_OK;
        }
        return mismatch(bd, c, l);
    case PK_C_FLOAT: {
        bool f32 = c->dom == PK_V_F32;
        double d;
        bool exact_c = false; /* the bound is already a value of the column's type */
        if (lit_exact(l, &v, &ls)) {
            d = exact_to_double(v, ls);
            if (f32) {
                /* DuckDB casts integer and decimal literals to FLOAT. */
                d = (double)(float)d;
                exact_c = true;
            }
        } else if (l->type == PK_LIT_DOUBLE) {
            d = l->d;
        } else {
            return mismatch(bd, c, l);
        }
        float_term(op, d, f32, exact_c, t);
        return PLANK_OK;
    }
    case PK_C_TIME: {
        pk_i128 ns;
        if (l->type == PK_LIT_DATE) {
            ns = (pk_i128)l->i * 86400 * 1000000000;
        } else if (l->type == PK_LIT_TIMESTAMP) {
            ns = (pk_i128)l->i * 1000;
        } else if (l->type == PK_LIT_STRING) {
            int32_t days;
            int64_t us;
            const plank_logical_type *lt = &c->node->logical;
            if (lt->kind == PLANK_LOGICAL_DATE) {
                if (!pk_parse_date(l->s, l->len, &days))
                    return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                                        "'%.*s' is not a date (column \"%s\")",
                                        (int)(l->len > 64 ? 64 : l->len), l->s,
                                        c->node->path);
                ns = (pk_i128)days * 86400 * 1000000000;
            } else {
                if (!pk_parse_timestamp(l->s, l->len, &us))
                    return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                                        "'%.*s' is not a timestamp (column \"%s\")",
                                        (int)(l->len > 64 ? 64 : l->len), l->s,
                                        c->node->path);
                ns = (pk_i128)us * 1000;
            }
        } else {
            return mismatch(bd, c, l);
        }
        solve_exact(op, c->ns_per_unit, ns, &lo, &hi);
        int_term(c, lo, hi, negate, t);
        return PLANK_OK;
    }
    case PK_C_BYTES: {
        if (l->type != PK_LIT_STRING) return mismatch(bd, c, l);
        uint8_t *p = pk_arena_alloc(&bd->b->arena, l->len + 1);
        if (!p) return oom(bd);
        memcpy(p, l->s, l->len);
        memset(t, 0, sizeof *t);
        t->kind = PK_T_RANGE;
        t->negate = negate;
        pk_dval s = {.p = p, .n = l->len};
        t->lo_inf = t->hi_inf = true;
        switch (op) {
        case PLANK_CMP_EQ: case PLANK_CMP_NE: t->lo = t->hi = s; t->lo_inf = t->hi_inf = false; break;
        case PLANK_CMP_LT: t->hi = s; t->hi_inf = false; t->hi_open = true; break;
        case PLANK_CMP_LE: t->hi = s; t->hi_inf = false; break;
        case PLANK_CMP_GT: t->lo = s; t->lo_inf = false; t->lo_open = true; break;
        case PLANK_CMP_GE: t->lo = s; t->lo_inf = false; break;
        }
        return PLANK_OK;
    }
    default: break;
    }
    char tb[96];
    plank_logical_type_format(&c->node->logical, tb, sizeof tb);
    return pk_error_set(bd->err, PLANK_ERR_UNSUPPORTED,
                        "comparisons on column \"%s\" (%s %s) are not supported (IS NULL is)",
                        c->node->path, plank_physical_type_name(c->node->physical_type), tb);
}

/* Heapsort of an IN list: O(n log n) in any order (an insertion sort took
 * seconds over a list of 100,000 literals in reverse; engines push joins'
 * keys down as such lists). */
static void sift_dvals(pk_vdom dom, pk_dval *a, int32_t i, int32_t n) {
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && pk_dval_cmp(dom, &a[c], &a[c + 1]) < 0) c++;
        if (pk_dval_cmp(dom, &a[i], &a[c]) >= 0) return;
        pk_dval t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

static void sort_dvals(pk_vdom dom, pk_dval *a, int32_t n) {
    for (int32_t i = n / 2 - 1; i >= 0; i--) sift_dvals(dom, a, i, n);
    for (int32_t e = n - 1; e > 0; e--) {
        pk_dval t = a[0];
        a[0] = a[e];
        a[e] = t;
        sift_dvals(dom, a, 0, e);
    }
}

/* ---- The tree ---------------------------------------------------------------------- */

static plank_status bind_node(binder *bd, const plank_expr *e, pk_bnode **out);

static plank_status make_const(binder *bd, int8_t v, pk_bnode **out) {
    pk_bnode *x = new_node(bd, PK_B_CONST, 0);
    if (!x) return oom(bd);
    x->cval = v;
    *out = x;
    return PLANK_OK;
}

static plank_status make_term(binder *bd, int32_t slot, const pk_term *t, pk_bnode **out) {
    pk_bnode *x = new_node(bd, PK_B_TERM, 0);
    if (!x) return oom(bd);
    x->col = slot;
    x->term = *t;
    *out = x;
    return PLANK_OK;
}

static plank_status bind_cmp_node(binder *bd, plank_compare_op op, const plank_expr *a,
                                  const plank_expr *b, pk_bnode **out) {
    if (a->kind == PK_EX_LITERAL && b->kind == PK_EX_COLUMN) {
        const plank_expr *tmp = a;
        a = b;
        b = tmp;
        op = pk_flip_op(op);
    }
    if (a->kind != PK_EX_COLUMN)
        return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                            "a comparison needs a column on one side");
    int32_t s1;
    PK_FORWARD(bind_column(bd, a, &s1));
    if (b->kind == PK_EX_COLUMN) {
        int32_t s2;
        PK_FORWARD(bind_column(bd, b, &s2));
        const pk_fcol *c1 = &bd->b->cols[s1], *c2 = &bd->b->cols[s2];
        bool ok = c1->cls != PK_C_NONE && c2->cls != PK_C_NONE &&
                  (c1->cls == c2->cls ||
                   ((c1->cls == PK_C_EXACT || c1->cls == PK_C_FLOAT) &&
                    (c2->cls == PK_C_EXACT || c2->cls == PK_C_FLOAT)));
        PK_RETURN_IF(!ok, bd->err, PLANK_ERR_INVALID_ARGUMENT,
                     "cannot compare column \"%s\" with column \"%s\" (types differ)",
                     c1->node->path, c2->node->path);
        pk_bnode *x = new_node(bd, PK_B_COLCMP, 0);
        if (!x) return oom(bd);
        x->col = s1;
        x->col2 = s2;
        x->op = op;
        *out = x;
        return PLANK_OK;
    }
    if (b->kind != PK_EX_LITERAL)
        return pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                            "a comparison takes a column and a literal or two columns");
    pk_term t;
    bool is_null;
    PK_FORWARD(bind_compare(bd, &bd->b->cols[s1], op, &b->lit, &t, &is_null));
    if (is_null) return make_const(bd, -1, out);
    return make_term(bd, s1, &t, out);
}

static plank_status bind_in(binder *bd, const plank_expr *e, pk_bnode **out) {
    const plank_expr *v = e->kids[0];
    PK_RETURN_IF(v->kind != PK_EX_COLUMN, bd->err, PLANK_ERR_INVALID_ARGUMENT,
                 "IN needs a column on its left");
    int32_t s;
    PK_FORWARD(bind_column(bd, v, &s));
    const pk_fcol *c = &bd->b->cols[s];
    pk_term t;
    memset(&t, 0, sizeof t);
    t.kind = PK_T_IN;
    t.list = pk_arena_alloc(&bd->b->arena, (size_t)e->n * sizeof *t.list);
    if (!t.list) return oom(bd);
    for (int32_t i = 1; i < e->n; i++) {
        const plank_expr *l = e->kids[i];
        PK_RETURN_IF(l->kind != PK_EX_LITERAL, bd->err, PLANK_ERR_INVALID_ARGUMENT,
                     "IN lists hold literals only");
        pk_term et;
        bool is_null;
        PK_FORWARD(bind_compare(bd, c, PLANK_CMP_EQ, &l->lit, &et, &is_null));
        if (is_null) {
            t.list_null = true;
            continue;
        }
        if (et.nan) t.nan = true;
        if (et.empty) continue; /* no stored value equals it */
        t.list[t.nlist++] = et.lo;
    }
    /* Sorted and distinct: binary search and statistics want both. */
    sort_dvals(c->dom, t.list, t.nlist);
    int32_t k = 0;
    for (int32_t i = 0; i < t.nlist; i++)
        if (k == 0 || pk_dval_cmp(c->dom, &t.list[k - 1], &t.list[i]) != 0)
            t.list[k++] = t.list[i];
    t.nlist = k;
    return make_term(bd, s, &t, out);
}

static plank_status bind_node(binder *bd, const plank_expr *e, pk_bnode **out) {
    PK_RETURN_IF(++bd->depth > 10000, bd->err, PLANK_ERR_LIMIT,
                 "the filter is nested more than 10000 levels deep");
    plank_status st = PLANK_OK;
    switch (e->kind) {
    case PK_EX_COLUMN: {
        int32_t s;
        PK_FORWARD(bind_column(bd, e, &s));
        const pk_fcol *c = &bd->b->cols[s];
        PK_RETURN_IF(c->cls != PK_C_BOOL, bd->err, PLANK_ERR_INVALID_ARGUMENT,
                     "column \"%s\" is not boolean: it cannot be a condition by itself",
                     c->node->path);
        pk_term t;
        int_term(c, 1, 1, false, &t);
        st = make_term(bd, s, &t, out);
        break;
    }
    case PK_EX_LITERAL:
        if (e->lit.type == PK_LIT_NULL) st = make_const(bd, -1, out);
        else if (e->lit.type == PK_LIT_BOOL) st = make_const(bd, e->lit.b ? 1 : 0, out);
        else
            st = pk_error_set(bd->err, PLANK_ERR_INVALID_ARGUMENT,
                              "a %s literal is not a condition", lit_name(e->lit.type));
        break;
    case PK_EX_COMPARE:
        st = bind_cmp_node(bd, e->op, e->kids[0], e->kids[1], out);
        break;
    case PK_EX_BETWEEN: {
        /* x BETWEEN a AND b is x >= a AND x <= b, NULLs included. */
        pk_bnode *x = new_node(bd, PK_B_AND, 2);
        if (!x) return oom(bd);
        PK_FORWARD(bind_cmp_node(bd, PLANK_CMP_GE, e->kids[0], e->kids[1], &x->kids[0]));
        PK_FORWARD(bind_cmp_node(bd, PLANK_CMP_LE, e->kids[0], e->kids[2], &x->kids[1]));
        *out = x;
        break;
    }
    case PK_EX_IN:
        st = bind_in(bd, e, out);
        break;
    case PK_EX_IS_NULL: {
        const plank_expr *v = e->kids[0];
        if (v->kind == PK_EX_LITERAL) {
            bool isnull = v->lit.type == PK_LIT_NULL;
            st = make_const(bd, isnull != e->negated ? 1 : 0, out);
            break;
        }
        PK_RETURN_IF(v->kind != PK_EX_COLUMN, bd->err, PLANK_ERR_INVALID_ARGUMENT,
                     "IS NULL needs a column");
        int32_t s;
        PK_FORWARD(bind_column(bd, v, &s));
        pk_term t;
        memset(&t, 0, sizeof t);
        t.kind = PK_T_ISNULL;
        t.is_not = e->negated;
        st = make_term(bd, s, &t, out);
        break;
    }
    case PK_EX_STARTS_WITH: {
        const plank_expr *v = e->kids[0], *p = e->kids[1];
        PK_RETURN_IF(v->kind != PK_EX_COLUMN || p->kind != PK_EX_LITERAL, bd->err,
                     PLANK_ERR_INVALID_ARGUMENT, "LIKE needs a column and a string pattern");
        int32_t s;
        PK_FORWARD(bind_column(bd, v, &s));
        const pk_fcol *c = &bd->b->cols[s];
        if (p->lit.type == PK_LIT_NULL) {
            st = make_const(bd, -1, out);
            break;
        }
        PK_RETURN_IF(c->cls != PK_C_BYTES || p->lit.type != PK_LIT_STRING, bd->err,
                     PLANK_ERR_INVALID_ARGUMENT,
                     "LIKE needs a string or binary column and a string pattern (column "
                     "\"%s\")", c->node->path);
        uint8_t *q = pk_arena_alloc(&bd->b->arena, p->lit.len + 1);
        if (!q) return oom(bd);
        memcpy(q, p->lit.s, p->lit.len);
        pk_term t;
        memset(&t, 0, sizeof t);
        t.kind = PK_T_PREFIX;
        t.prefix.p = q;
        t.prefix.n = p->lit.len;
        st = make_term(bd, s, &t, out);
        break;
    }
    case PK_EX_AND:
    case PK_EX_OR:
    case PK_EX_NOT: {
        pk_bnode *x = new_node(bd, e->kind == PK_EX_AND ? PK_B_AND
                                   : e->kind == PK_EX_OR ? PK_B_OR
                                                         : PK_B_NOT, e->n);
        if (!x) return oom(bd);
        for (int32_t i = 0; i < e->n; i++) PK_FORWARD(bind_node(bd, e->kids[i], &x->kids[i]));
        *out = x;
        break;
    }
    }
    bd->depth--;
    return st;
}

plank_status pk_bind(plank_reader *r, const plank_expr *e, pk_bound *b, plank_error *err) {
    memset(b, 0, sizeof *b);
    pk_arena_init(&b->arena, &r->alloc);
    if (!e) return PLANK_OK;
    binder bd = {r, b, err, 0};
    plank_status st = bind_node(&bd, e, &b->root);
    if (st != PLANK_OK) pk_bound_free(b);
    return st;
}

void pk_bound_free(pk_bound *b) {
    if (!b) return;
    pk_arena_reset(&b->arena);
    memset(b, 0, sizeof *b);
}

/* ---- Description (plank_scan_explain) ------------------------------------------- */

void pk_scan_append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    size_t m = (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
    if (buf && *len + 1 < size) {
        size_t room = size - *len - 1;
        size_t c = m < room ? m : room;
        memcpy(buf + *len, tmp, c);
        buf[*len + c] = 0;
    }
    *len += m;
}

static void dval_text(const pk_fcol *c, const pk_dval *v, char *out, size_t size) {
    switch (c->dom) {
    case PK_V_BOOL: case PK_V_I32: case PK_V_I64:
        if (c->is_unsigned && c->dom == PK_V_I32)
            snprintf(out, size, "%lld", (long long)(v->i + ((int64_t)1 << 31)));
        else if (c->is_unsigned)
            snprintf(out, size, "%llu", (unsigned long long)((uint64_t)v->i ^ ((uint64_t)1 << 63)));
        else
            snprintf(out, size, "%lld", (long long)v->i);
        break;
    case PK_V_F32: case PK_V_F64: snprintf(out, size, "%.17g", v->d); break;
    case PK_V_I128: {
        /* Decimal digits of the unscaled value (sign, then digits). */
        char d[48];
        int n = 0;
        unsigned __int128 u = v->w < 0 ? (unsigned __int128)0 - (unsigned __int128)v->w
                                       : (unsigned __int128)v->w;
        do { d[n++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u && n < 47);
        size_t k = 0;
        if (v->w < 0 && k + 1 < size) out[k++] = '-';
        while (n > 0 && k + 1 < size) out[k++] = d[--n];
        out[k] = 0;
        break;
    }
    case PK_V_BYTES:
        snprintf(out, size, "'%.*s'", (int)(v->n > 40 ? 40 : v->n), (const char *)v->p);
        break;
    }
}

static const char *dom_name(pk_vdom d) {
    static const char *const names[] = {"bool", "int32", "int64", "float", "double", "int128",
                                        "bytes"};
    return (unsigned)d < sizeof names / sizeof names[0] ? names[d] : "?";
}

void pk_bound_describe(const pk_bound *b, const pk_bnode *n, char *buf, size_t size,
                       size_t *len) {
    static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">="};
    char x[96], y[96];
    switch (n->kind) {
    case PK_B_CONST:
        pk_scan_append(buf, size, len, "%s", n->cval == 1 ? "TRUE" : n->cval == 0 ? "FALSE" : "NULL");
        return;
    case PK_B_COLCMP:
        pk_scan_append(buf, size, len, "%s %s %s", b->cols[n->col].node->path, ops[n->op],
            b->cols[n->col2].node->path);
        return;
    case PK_B_NOT:
        pk_scan_append(buf, size, len, "NOT (");
        pk_bound_describe(b, n->kids[0], buf, size, len);
        pk_scan_append(buf, size, len, ")");
        return;
    case PK_B_AND:
    case PK_B_OR:
        for (int32_t i = 0; i < n->n; i++) {
            if (i) pk_scan_append(buf, size, len, n->kind == PK_B_AND ? " AND " : " OR ");
            pk_scan_append(buf, size, len, "(");
            pk_bound_describe(b, n->kids[i], buf, size, len);
            pk_scan_append(buf, size, len, ")");
        }
        return;
    case PK_B_TERM: break;
    }
    const pk_fcol *c = &b->cols[n->col];
    const pk_term *t = &n->term;
    pk_scan_append(buf, size, len, "%s:%s ", c->node->path, dom_name(c->dom));
    switch (t->kind) {
    case PK_T_ISNULL: pk_scan_append(buf, size, len, "IS %sNULL", t->is_not ? "NOT " : ""); return;
    case PK_T_PREFIX:
        pk_scan_append(buf, size, len, "starts with '%.*s'", (int)(t->prefix.n > 40 ? 40 : t->prefix.n),
            (const char *)t->prefix.p);
        return;
    case PK_T_IN:
        pk_scan_append(buf, size, len, "IN (");
        for (int32_t i = 0; i < t->nlist; i++) {
            dval_text(c, &t->list[i], x, sizeof x);
            pk_scan_append(buf, size, len, "%s%s", i ? ", " : "", x);
        }
        pk_scan_append(buf, size, len, "%s%s)", t->nan ? ", NaN" : "", t->list_null ? ", NULL" : "");
        return;
    case PK_T_RANGE:
        if (t->negate) pk_scan_append(buf, size, len, "NOT ");
        if (t->empty) {
            pk_scan_append(buf, size, len, "in nothing%s", t->nan ? " but NaN" : "");
            return;
        }
        bool fl = c->dom == PK_V_F32 || c->dom == PK_V_F64;
        bool unb_lo = t->lo_inf || (fl && isinf(t->lo.d) && t->lo.d < 0);
        bool unb_hi = t->hi_inf || (fl && isinf(t->hi.d) && t->hi.d > 0);
        if (unb_lo) snprintf(x, sizeof x, "-inf");
        else dval_text(c, &t->lo, x, sizeof x);
        if (unb_hi) snprintf(y, sizeof y, "+inf");
        else dval_text(c, &t->hi, y, sizeof y);
        pk_scan_append(buf, size, len, "in %c%s, %s%c%s", t->lo_open ? '(' : '[', x, y,
            t->hi_open ? ')' : ']', t->nan ? " or NaN" : "");
        return;
    }
}
