/*
 * pk_prune.c: what statistics say a predicate can be over a range of rows.
 *
 * Bounds are decoded in the column's domain and checked before use: a min
 * above its max, NaN bounds, a null count above the row count or one that
 * says "all null" next to a min/max make the statistics unusable rather
 * than trusted. Byte-array maxima are always treated as possibly truncated
 * (a value may extend the max), whatever the exactness flag says: a
 * truncated max flagged exact must not drop a row, and the cost is only
 * the rare value that is exactly an extension of the max.
 */
#include "pk_scan.h"

#include <math.h>

int pk_dval_cmp(pk_vdom dom, const pk_dval *a, const pk_dval *b) {
    switch (dom) {
    case PK_V_BOOL: case PK_V_I32: case PK_V_I64:
        return a->i < b->i ? -1 : a->i > b->i ? 1 : 0;
    case PK_V_F32: case PK_V_F64:
        return pk_double_order(a->d, b->d);
    case PK_V_I128:
        return a->w < b->w ? -1 : a->w > b->w ? 1 : 0;
    case PK_V_BYTES:
        return pk_bytes_order(a->p, a->n, b->p, b->n);
    }
    return 0;
}

bool pk_decode_bound(const pk_fcol *c, const uint8_t *p, uint32_t len, pk_dval *v) {
    memset(v, 0, sizeof *v);
    switch (c->dom) {
    case PK_V_BOOL:
        if (len < 1) return false;
        v->i = p[0] & 1;
        return true;
    case PK_V_I32: {
        if (len != 4) return false;
        uint32_t u = pk_load_u32(p);
        v->i = c->is_unsigned ? (int64_t)(int32_t)(u ^ 0x80000000u) : (int64_t)(int32_t)u;
        return true;
    }
    case PK_V_I64: {
        if (len != 8 || c->int96) return false;
        uint64_t u = pk_load_u64(p);
        if (c->is_unsigned) u ^= (uint64_t)1 << 63;
        v->i = (int64_t)u;
        return true;
    }
    case PK_V_F32: {
        if (len != 4) return false;
        float f;
        memcpy(&f, p, 4);
        v->d = f;
        return !isnan(f);
    }
    case PK_V_F64: {
        if (len != 8) return false;
        memcpy(&v->d, p, 8);
        return !isnan(v->d);
    }
    case PK_V_I128: {
        if (len < 1 || len > 16) return false;
        unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
        for (uint32_t i = 0; i < len; i++) u = (u << 8) | p[i];
        v->w = (pk_i128)u;
        return true;
    }
    case PK_V_BYTES:
        v->p = p;
        v->n = len;
        return true;
    }
    return false;
}

void pk_colstat_from_chunk(const pk_fcol *c, const plank_column_chunk_info *ci, int64_t rows,
                           pk_colstat *st) {
    memset(st, 0, sizeof *st);
    st->num_values = rows;
    st->may_nan = true;
    bool required = c->node->max_definition_level == 0;
    if (required) {
        st->known = true;
        st->nulls_known = true;
        st->null_count = 0;
    }
    if (!ci->has_statistics) return;
    const plank_statistics *s = &ci->statistics;
    if (!required && s->has_null_count && s->null_count >= 0 && s->null_count <= rows) {
        st->known = true;
        st->nulls_known = true;
        st->null_count = s->null_count;
    }
    bool usable = c->stats_ok && (!s->min_max_deprecated || c->deprecated_ok);
    if (usable && s->has_min && s->has_max && pk_decode_bound(c, s->min, s->min_len, &st->min) &&
        pk_decode_bound(c, s->max, s->max_len, &st->max) &&
        pk_dval_cmp(c->dom, &st->min, &st->max) <= 0) {
        st->known = true;
        st->has_minmax = true;
        st->max_prefix = c->dom == PK_V_BYTES;
        /* A min/max next to "every value is null" contradicts itself. */
        if (st->nulls_known && st->null_count >= rows && !required) st->nulls_known = false;
    }
    if (c->dom == PK_V_F32 || c->dom == PK_V_F64) {
        if (s->has_nan_count && s->nan_count >= 0) {
            st->nan_known = true;
            st->may_nan = s->nan_count > 0;
        }
    }
}

/* ---- One term over bounds --------------------------------------------------------- */

/* a <= x (open: a < x) for some x in [min, max_ext]? where max_ext is max,
 * or with max_prefix any extension of max too. */
static bool starts_with(const pk_dval *v, const pk_dval *p) {
    return v->n >= p->n && (p->n == 0 || memcmp(v->p, p->p, p->n) == 0);
}

/* Whether some value v with min <= v <= max_ext satisfies v >= a (v > a). */
static bool max_reaches(pk_vdom dom, const pk_colstat *st, const pk_dval *a, bool open) {
    int k = pk_dval_cmp(dom, &st->max, a);
    if (open ? k > 0 : k >= 0) return true;
    /* max < a: an extension of max may still reach a if a extends max. */
    return st->max_prefix && starts_with(a, &st->max);
}

/* Whether some value v in the range satisfies v <= b (v < b). */
static bool min_reaches(pk_vdom dom, const pk_colstat *st, const pk_dval *b, bool open) {
    int k = pk_dval_cmp(dom, &st->min, b);
    return open ? k < 0 : k <= 0;
}

/* Whether every value v in the range satisfies lo-side / hi-side. */
static bool all_above(pk_vdom dom, const pk_colstat *st, const pk_dval *a, bool open) {
    int k = pk_dval_cmp(dom, &st->min, a);
    return open ? k > 0 : k >= 0;
}

static bool all_below(pk_vdom dom, const pk_colstat *st, const pk_dval *b, bool open) {
    if (st->max_prefix) {
        /* Extensions of max are above max: they stay below b only if b is
         * above every extension, i.e. max < b without b extending max. */
        int k = pk_dval_cmp(dom, &st->max, b);
        return k < 0 && !starts_with(b, &st->max);
    }
    int k = pk_dval_cmp(dom, &st->max, b);
    return open ? k < 0 : k <= 0;
}

static bool is_float(pk_vdom d) { return d == PK_V_F32 || d == PK_V_F64; }

static int term_eval(const pk_fcol *c, const pk_term *t, const pk_colstat *st) {
    if (!st->known) return PK_CAN_ANY;
    bool nulls = !st->nulls_known || st->null_count > 0;
    bool nonnull = !st->nulls_known || st->num_values < 0 || st->null_count < st->num_values;
    pk_vdom dom = c->dom;
    bool fl = is_float(dom);
    bool nan = fl && st->may_nan;
    if (t->kind == PK_T_ISNULL) {
        int r = (nulls ? PK_CAN_T : 0) | (nonnull ? PK_CAN_F : 0);
        if (t->is_not) r = ((r & PK_CAN_T) ? PK_CAN_F : 0) | ((r & PK_CAN_F) ? PK_CAN_T : 0);
        return r;
    }
    if (!nonnull) return 0; /* every row NULL: the comparison is NULL */
    if (!st->has_minmax) {
        /* Only NaN-free knowledge is missing too: nothing to decide. */
        return PK_CAN_ANY;
    }
    bool in = false, out = false;
    if (t->kind == PK_T_RANGE) {
        if (t->empty) {
            in = nan && t->nan;
            out = true;
        } else {
            bool lo_ok = t->lo_inf || (fl && isinf(t->lo.d) && t->lo.d < 0 && !t->lo_open) ||
                         max_reaches(dom, st, &t->lo, t->lo_open);
            bool hi_ok = t->hi_inf || (fl && isinf(t->hi.d) && t->hi.d > 0 && !t->hi_open) ||
                         min_reaches(dom, st, &t->hi, t->hi_open);
            in = lo_ok && hi_ok;
            bool cov_lo = t->lo_inf || (fl && isinf(t->lo.d) && t->lo.d < 0 && !t->lo_open) ||
                          all_above(dom, st, &t->lo, t->lo_open);
            bool cov_hi = t->hi_inf || (fl && isinf(t->hi.d) && t->hi.d > 0 && !t->hi_open) ||
                          all_below(dom, st, &t->hi, t->hi_open);
            out = !(cov_lo && cov_hi);
            if (nan) {
                if (t->nan) in = true;
                else out = true;
            }
        }
        if (t->negate) {
            bool tmp = in;
            in = out;
            out = tmp;
        }
    } else if (t->kind == PK_T_IN) {
        for (int32_t i = 0; i < t->nlist && !in; i++)
            in = max_reaches(dom, st, &t->list[i], false) &&
                 min_reaches(dom, st, &t->list[i], false);
        if (nan && t->nan) in = true;
        /* Outside the list: unless the range is one listed value. */
        bool single = pk_dval_cmp(dom, &st->min, &st->max) == 0 && !st->max_prefix;
        bool listed = false;
        for (int32_t i = 0; i < t->nlist && single && !listed; i++)
            listed = pk_dval_cmp(dom, &st->min, &t->list[i]) == 0;
        out = !(single && listed) || (nan && !t->nan);
        if (t->list_null) out = false; /* x NOT in a list with NULL is NULL */
    } else { /* PREFIX */
        const pk_dval *p = &t->prefix;
        /* Some value with the prefix: max_ext >= p, and min's head <= p. */
        pk_dval head = st->min;
        if (head.n > p->n) head.n = p->n;
        in = max_reaches(dom, st, p, false) && pk_bytes_order(head.p, head.n, p->p, p->n) <= 0;
        out = !(starts_with(&st->min, p) && starts_with(&st->max, p));
    }
    return (in ? PK_CAN_T : 0) | (out ? PK_CAN_F : 0);
}

int pk_prune_eval(const pk_bound *b, const pk_bnode *n, const pk_colstat *st,
                  const uint8_t *absent) {
    switch (n->kind) {
    case PK_B_CONST:
        return n->cval == 1 ? PK_CAN_T : n->cval == 0 ? PK_CAN_F : 0;
    case PK_B_TERM: {
        int r = term_eval(&b->cols[n->col], &n->term, &st[n->col]);
        /* The bloom filter says no value of the term is in the chunk. */
        if (absent && absent[n->id]) r &= ~PK_CAN_T;
        return r;
    }
    case PK_B_COLCMP:
        return PK_CAN_ANY;
    case PK_B_NOT: {
        int r = pk_prune_eval(b, n->kids[0], st, absent);
        return ((r & PK_CAN_T) ? PK_CAN_F : 0) | ((r & PK_CAN_F) ? PK_CAN_T : 0);
    }
    case PK_B_AND: {
        int t = PK_CAN_T, f = 0;
        for (int32_t i = 0; i < n->n; i++) {
            int r = pk_prune_eval(b, n->kids[i], st, absent);
            if (!(r & PK_CAN_T)) t = 0;
            f |= r & PK_CAN_F;
        }
        return t | f;
    }
    case PK_B_OR: {
        int t = 0, f = PK_CAN_F;
        for (int32_t i = 0; i < n->n; i++) {
            int r = pk_prune_eval(b, n->kids[i], st, absent);
            t |= r & PK_CAN_T;
            if (!(r & PK_CAN_F)) f = 0;
        }
        return t | f;
    }
    }
    return PK_CAN_ANY;
}

/* ---- Rows by the page index ------------------------------------------------------- */

static void set_range(uint8_t *bits, int64_t from, int64_t to) {
    while (from < to && (from & 7)) pk_bit_set(bits, from++);
    if (to - from >= 8) {
        memset(bits + from / 8, 0xff, (size_t)((to - from) / 8));
        from += (to - from) / 8 * 8;
    }
    while (from < to) pk_bit_set(bits, from++);
}

typedef struct rows_ctx {
    const pk_bound *b;
    const pk_pageinfo *pi;
    const pk_colstat *chunk;
    int64_t rows;
    size_t nb;
    const plank_allocator *a;
    plank_error *err;
} rows_ctx;

static plank_status rows_eval(rows_ctx *x, const pk_bnode *n, uint8_t *t, uint8_t *f) {
    memset(t, 0, x->nb);
    memset(f, 0, x->nb);
    switch (n->kind) {
    case PK_B_CONST:
        if (n->cval == 1) set_range(t, 0, x->rows);
        if (n->cval == 0) set_range(f, 0, x->rows);
        return PLANK_OK;
    case PK_B_COLCMP:
        set_range(t, 0, x->rows);
        set_range(f, 0, x->rows);
        return PLANK_OK;
    case PK_B_TERM: {
        const pk_pageinfo *p = &x->pi[n->col];
        const pk_fcol *c = &x->b->cols[n->col];
        if (p->npages == 0) {
            int r = term_eval(c, &n->term, &x->chunk[n->col]);
            if (r & PK_CAN_T) set_range(t, 0, x->rows);
            if (r & PK_CAN_F) set_range(f, 0, x->rows);
            return PLANK_OK;
        }
        for (int32_t i = 0; i < p->npages; i++) {
            int r = term_eval(c, &n->term, &p->st[i]);
            int64_t from = p->first[i], to = p->first[i + 1];
            if (r & PK_CAN_T) set_range(t, from, to);
            if (r & PK_CAN_F) set_range(f, from, to);
        }
        return PLANK_OK;
    }
    case PK_B_NOT:
        return rows_eval(x, n->kids[0], f, t);
    case PK_B_AND:
    case PK_B_OR: {
        PK_FORWARD(rows_eval(x, n->kids[0], t, f));
        uint8_t *tt = pk_malloc(x->a, 2 * x->nb + 1);
        if (!tt) return pk_error_set(x->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        uint8_t *ff = tt + x->nb;
        plank_status st = PLANK_OK;
        for (int32_t k = 1; k < n->n && st == PLANK_OK; k++) {
            st = rows_eval(x, n->kids[k], tt, ff);
            for (size_t i = 0; i < x->nb && st == PLANK_OK; i++) {
                if (n->kind == PK_B_AND) {
                    t[i] &= tt[i];
                    f[i] |= ff[i];
                } else {
                    t[i] |= tt[i];
                    f[i] &= ff[i];
                }
            }
        }
        pk_free(x->a, tt, 2 * x->nb + 1);
        return st;
    }
    }
    return PLANK_OK;
}

plank_status pk_prune_rows(const pk_bound *b, const pk_pageinfo *pi, const pk_colstat *chunk,
                           int64_t rows, const plank_allocator *a, uint8_t *t,
                           plank_error *err) {
    size_t nb = (size_t)(rows + 7) / 8;
    uint8_t *f = pk_malloc(a, nb + 1);
    if (!f) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    rows_ctx x = {b, pi, chunk, rows, nb, a, err};
    plank_status st = rows_eval(&x, b->root, t, f);
    pk_free(a, f, nb + 1);
    return st;
}

bool pk_prune_rows_may_cut(const pk_bound *b, const pk_bnode *n, const pk_pageinfo *pi) {
    switch (n->kind) {
    case PK_B_CONST:
    case PK_B_COLCMP: return false;
    case PK_B_TERM: {
        const pk_pageinfo *p = &pi[n->col];
        for (int32_t i = 0; i < p->npages; i++)
            if (!(term_eval(&b->cols[n->col], &n->term, &p->st[i]) & PK_CAN_T)) return true;
        return false;
    }
    case PK_B_AND:
    case PK_B_OR:
        for (int32_t k = 0; k < n->n; k++)
            if (pk_prune_rows_may_cut(b, n->kids[k], pi)) return true;
        return false;
    default: return true; /* NOT swaps TRUE and FALSE: work it out row by row */
    }
}

int pk_term_can(const pk_bound *b, const pk_bnode *n, const pk_colstat *st) {
    return term_eval(&b->cols[n->col], &n->term, st);
}
