/*
 * pk_ds_scan.c: scans over a dataset.
 *
 * Per file, the predicate is first evaluated with what the file's path
 * fixes: partition columns are their values, and columns the file lacks are
 * NULL; every other column is unknown. Three-valued logic gives TRUE, FALSE,
 * NULL or UNKNOWN per node. A file whose predicate is FALSE or NULL is not
 * scanned. Otherwise the residual predicate (known nodes replaced by TRUE /
 * FALSE / NULL literals, unknown ones copied) references only the file's
 * own columns and goes into the file's pushdown scan, which prunes its row
 * groups and pages. Each batch of the file's scan is then adapted to the
 * unified schema: columns moved (or widened), missing ones null, partition
 * columns constant.
 */
#include "pk_dataset.h"
#include "../common/pk_struct.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

void plank_dataset_scan_options_init(plank_dataset_scan_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

void plank_dataset_stats_init(plank_dataset_stats *s) {
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
    plank_scan_stats_init(&s->scan);
}

/* ---- The predicate on partition values ----------------------------------------------------- */

typedef enum tv { TV_FALSE = 0, TV_TRUE = 1, TV_NULL = 2, TV_UNKNOWN = 3 } tv;

/* What an operand is for one file. */
typedef enum okind { O_LIT, O_PART, O_NULL, O_DATA, O_OTHER } okind;

typedef struct pctx {
    const plank_dataset *d;
    int32_t f;
    plank_error *err;
} pctx;

static const char *top_name(const char *path, size_t *len) {
    const char *dot = strchr(path, '.');
    *len = dot ? (size_t)(dot - path) : strlen(path);
    return path;
}

static okind operand(const pctx *c, const plank_expr *e, int32_t *key) {
    if (e->kind == PK_EX_LITERAL) return e->lit.type == PK_LIT_NULL ? O_NULL : O_LIT;
    if (e->kind != PK_EX_COLUMN) return O_OTHER;
    const plank_dataset *d = c->d;
    for (int32_t k = 0; k < d->nkeys; k++)
        if (strcmp(d->keys[k], e->path) == 0) {
            *key = k;
            return d->pv[(size_t)c->f * (size_t)d->nkeys + (size_t)k].null ? O_NULL : O_PART;
        }
    size_t n;
    const char *p = top_name(e->path, &n);
    for (int32_t k = 0; k < d->nfields; k++)
        if (strlen(d->fields[k].name) == n && memcmp(d->fields[k].name, p, n) == 0)
            return d->col[(size_t)c->f * (size_t)d->nfields + (size_t)k] >= 0 ? O_DATA : O_NULL;
    /* A leaf name the file resolves (plank_expr_column allows it): the scan decides. */
    return O_DATA;
}

/* -1, 0, 1 comparing a partition value with a literal; false: types that do
 * not compare (an error). */
static bool cmp_part_lit(pk_ptype t, const pk_pvalue *v, const pk_literal *l, int *out) {
    if (t == PK_P_STRING) {
        if (l->type != PK_LIT_STRING) return false;
        size_t n = v->len < l->len ? v->len : l->len;
        int r = memcmp(v->s, l->s, n);
        *out = r ? (r < 0 ? -1 : 1) : (v->len < l->len ? -1 : v->len > l->len ? 1 : 0);
        return true;
    }
    if (t == PK_P_DATE) {
        int64_t x;
        if (l->type == PK_LIT_DATE) {
            x = l->i;
        } else if (l->type == PK_LIT_STRING) {
            int32_t days;
            if (!pk_parse_date(l->s, l->len, &days)) return false;
            x = days;
        } else if (l->type == PK_LIT_TIMESTAMP) {
            /* days against microseconds */
            __int128 a = (__int128)v->i * 86400000000LL, b = l->i;
            *out = a < b ? -1 : a > b;
            return true;
        } else {
            return false;
        }
        *out = v->i < x ? -1 : v->i > x;
        return true;
    }
    switch (l->type) {
    case PK_LIT_INT: *out = v->i < l->i ? -1 : v->i > l->i; return true;
    case PK_LIT_UINT: *out = -1; return true; /* above INT64_MAX */
    case PK_LIT_DOUBLE: {
        if (isnan(l->d)) {
            *out = -1; /* NaN sorts above every number, as DuckDB orders it */
            return true;
        }
        long double a = (long double)v->i, b = (long double)l->d;
        *out = a < b ? -1 : a > b;
        return true;
    }
    case PK_LIT_DECIMAL: {
        /* Exactly, at any scale (the parser allows 0..38, and 10^38 fits
         * 128 bits): the integer against the literal's integer part, then,
         * where they are equal, the sign of its fraction. A long double
         * (64-bit mantissa) made `year = 2021.000000000000000000001` true. */
        if (l->scale < 0 || l->scale > 38) return false;
        __int128 u = (__int128)(((unsigned __int128)(uint64_t)l->hi << 64) | l->lo);
        __int128 p = 1;
        for (int32_t i = 0; i < l->scale; i++) p *= 10;
        __int128 q = u / p, r = u % p, x = v->i;
        if (x != q) *out = x < q ? -1 : 1;
        else *out = r > 0 ? -1 : r < 0;
        return true;
    }
    default: return false;
    }
}

static tv cmp_result(plank_compare_op op, int c) {
    bool r;
    switch (op) {
    case PLANK_CMP_EQ: r = c == 0; break;
    case PLANK_CMP_NE: r = c != 0; break;
    case PLANK_CMP_LT: r = c < 0; break;
    case PLANK_CMP_LE: r = c <= 0; break;
    case PLANK_CMP_GT: r = c > 0; break;
    default: r = c >= 0; break;
    }
    return r ? TV_TRUE : TV_FALSE;
}

static plank_status compare(const pctx *c, plank_compare_op op, const plank_expr *a,
                            const plank_expr *b, tv *out) {
    int32_t ka = -1, kb = -1;
    okind x = operand(c, a, &ka), y = operand(c, b, &kb);
    if (x == O_OTHER || y == O_OTHER)
        return pk_error_set(c->err, PLANK_ERR_INVALID_ARGUMENT, "unsupported operand");
    if ((x == O_DATA && y == O_PART) || (x == O_PART && y == O_DATA))
        return pk_error_set(c->err, PLANK_ERR_UNSUPPORTED,
                            "comparing partition column \"%s\" with another column",
                            x == O_PART ? a->path : b->path);
    if (x == O_NULL || y == O_NULL) {
        *out = TV_NULL;
        return PLANK_OK;
    }
    if (x == O_DATA || y == O_DATA) {
        *out = TV_UNKNOWN;
        return PLANK_OK;
    }
    if (x == O_LIT && y == O_PART) {
        const plank_expr *t = a;
        a = b;
        b = t;
        int32_t k = ka;
        ka = kb;
        kb = k;
        okind o = x;
        x = y;
        y = o;
        op = pk_flip_op(op);
    }
    const plank_dataset *d = c->d;
    int r;
    if (x == O_PART && y == O_LIT) {
        const pk_pvalue *v = &d->pv[(size_t)c->f * (size_t)d->nkeys + (size_t)ka];
        if (!cmp_part_lit(d->ktype[ka], v, &b->lit, &r))
            return pk_error_set(c->err, PLANK_ERR_INVALID_ARGUMENT,
                                "partition column \"%s\" (%s) cannot be compared with that "
                                "literal", a->path, pk_ds_partition_format(d->ktype[ka]));
    } else if (x == O_PART && y == O_PART) {
        const pk_pvalue *v = &d->pv[(size_t)c->f * (size_t)d->nkeys + (size_t)ka];
        const pk_pvalue *w = &d->pv[(size_t)c->f * (size_t)d->nkeys + (size_t)kb];
        PK_RETURN_IF(d->ktype[ka] != d->ktype[kb], c->err, PLANK_ERR_INVALID_ARGUMENT,
                     "partition columns \"%s\" and \"%s\" have different types", a->path,
                     b->path);
        if (d->ktype[ka] == PK_P_STRING) {
            size_t n = v->len < w->len ? v->len : w->len;
            int m = memcmp(v->s, w->s, n);
            r = m ? (m < 0 ? -1 : 1) : (v->len < w->len ? -1 : v->len > w->len);
        } else {
            r = v->i < w->i ? -1 : v->i > w->i;
        }
    } else {
        /* two literals: left to the file's binding, which knows their rules */
        *out = TV_UNKNOWN;
        return PLANK_OK;
    }
    *out = cmp_result(op, r);
    return PLANK_OK;
}

static tv tv_and(tv a, tv b) {
    if (a == TV_FALSE || b == TV_FALSE) return TV_FALSE;
    if (a == TV_UNKNOWN || b == TV_UNKNOWN) return TV_UNKNOWN;
    if (a == TV_NULL || b == TV_NULL) return TV_NULL;
    return TV_TRUE;
}
static tv tv_or(tv a, tv b) {
    if (a == TV_TRUE || b == TV_TRUE) return TV_TRUE;
    if (a == TV_UNKNOWN || b == TV_UNKNOWN) return TV_UNKNOWN;
    if (a == TV_NULL || b == TV_NULL) return TV_NULL;
    return TV_FALSE;
}

/* Evaluates e for file c->f; *res, when res is not NULL, receives the
 * residual tree (allocated with a). */
static plank_status eval(const pctx *c, const plank_expr *e, const plank_allocator *a, tv *out,
                         plank_expr **res);

static plank_expr *const_expr(const plank_allocator *a, tv v) {
    return v == TV_NULL ? plank_expr_null(a) : plank_expr_bool(a, v == TV_TRUE);
}

/* A copy of e (a subtree over the file's own columns and literals). */
static plank_expr *clone(const plank_allocator *a, const plank_expr *e) {
    if (!e) return NULL;
    switch (e->kind) {
    case PK_EX_COLUMN: return plank_expr_column(a, e->path);
    case PK_EX_LITERAL: {
        const pk_literal *l = &e->lit;
        switch (l->type) {
        case PK_LIT_NULL: return plank_expr_null(a);
        case PK_LIT_BOOL: return plank_expr_bool(a, l->b);
        case PK_LIT_INT: return plank_expr_int(a, l->i);
        case PK_LIT_UINT: return plank_expr_uint(a, l->u);
        case PK_LIT_DECIMAL: return plank_expr_decimal(a, l->hi, l->lo, l->scale);
        case PK_LIT_DOUBLE: return plank_expr_double(a, l->d);
        case PK_LIT_STRING: return plank_expr_string(a, l->s, l->len);
        case PK_LIT_DATE: return plank_expr_date(a, (int32_t)l->i);
        case PK_LIT_TIMESTAMP: return plank_expr_timestamp(a, l->i);
        }
        return NULL;
    }
    case PK_EX_COMPARE: return plank_expr_compare(e->op, clone(a, e->kids[0]), clone(a, e->kids[1]));
    case PK_EX_IN: {
        plank_expr **l = pk_calloc(a, (size_t)e->n * sizeof *l);
        if (!l) return NULL;
        for (int32_t i = 1; i < e->n; i++) l[i - 1] = clone(a, e->kids[i]);
        plank_expr *x = plank_expr_in(clone(a, e->kids[0]), l, e->n - 1);
        pk_free(a, l, (size_t)e->n * sizeof *l);
        return x;
    }
    case PK_EX_BETWEEN:
        return plank_expr_between(clone(a, e->kids[0]), clone(a, e->kids[1]), clone(a, e->kids[2]));
    case PK_EX_IS_NULL: return plank_expr_is_null(clone(a, e->kids[0]), e->negated);
    case PK_EX_STARTS_WITH:
        return plank_expr_starts_with(clone(a, e->kids[0]), clone(a, e->kids[1]));
    case PK_EX_NOT: return plank_expr_not(clone(a, e->kids[0]));
    case PK_EX_AND:
    case PK_EX_OR: {
        plank_expr *x = clone(a, e->kids[0]);
        for (int32_t i = 1; i < e->n && x; i++)
            x = e->kind == PK_EX_AND ? plank_expr_and(x, clone(a, e->kids[i]))
                                     : plank_expr_or(x, clone(a, e->kids[i]));
        return x;
    }
    }
    return NULL;
}

static plank_status eval(const pctx *c, const plank_expr *e, const plank_allocator *a, tv *out,
                         plank_expr **res) {
    if (res) *res = NULL;
    tv v = TV_UNKNOWN;
    switch (e->kind) {
    case PK_EX_LITERAL:
        if (e->lit.type == PK_LIT_NULL) v = TV_NULL;
        else if (e->lit.type == PK_LIT_BOOL) v = e->lit.b ? TV_TRUE : TV_FALSE;
        else return pk_error_set(c->err, PLANK_ERR_INVALID_ARGUMENT, "a literal is not a condition");
        break;
    case PK_EX_COLUMN: {
        int32_t k = -1;
        okind o = operand(c, e, &k);
        PK_RETURN_IF(o == O_PART, c->err, PLANK_ERR_INVALID_ARGUMENT,
                     "partition column \"%s\" is not a condition", e->path);
        v = o == O_NULL ? TV_NULL : TV_UNKNOWN;
        break;
    }
    case PK_EX_COMPARE: PK_FORWARD(compare(c, e->op, e->kids[0], e->kids[1], &v)); break;
    case PK_EX_BETWEEN: {
        tv lo, hi;
        PK_FORWARD(compare(c, PLANK_CMP_GE, e->kids[0], e->kids[1], &lo));
        PK_FORWARD(compare(c, PLANK_CMP_LE, e->kids[0], e->kids[2], &hi));
        v = tv_and(lo, hi);
        break;
    }
    case PK_EX_IN: {
        tv acc = TV_FALSE;
        for (int32_t i = 1; i < e->n; i++) {
            tv x;
            PK_FORWARD(compare(c, PLANK_CMP_EQ, e->kids[0], e->kids[i], &x));
            acc = tv_or(acc, x);
        }
        v = acc;
        break;
    }
    case PK_EX_IS_NULL: {
        int32_t k = -1;
        okind o = operand(c, e->kids[0], &k);
        if (o == O_NULL) v = e->negated ? TV_FALSE : TV_TRUE;
        else if (o == O_PART || o == O_LIT) v = e->negated ? TV_TRUE : TV_FALSE;
        else v = TV_UNKNOWN;
        break;
    }
    case PK_EX_STARTS_WITH: {
        int32_t k = -1, k2 = -1;
        okind o = operand(c, e->kids[0], &k), p = operand(c, e->kids[1], &k2);
        if (o == O_NULL || p == O_NULL) {
            v = TV_NULL;
        } else if (o == O_PART) {
            const pk_pvalue *pv = &c->d->pv[(size_t)c->f * (size_t)c->d->nkeys + (size_t)k];
            const pk_literal *l = &e->kids[1]->lit;
            PK_RETURN_IF(c->d->ktype[k] != PK_P_STRING || p != O_LIT || l->type != PK_LIT_STRING,
                         c->err, PLANK_ERR_INVALID_ARGUMENT,
                         "LIKE on partition column \"%s\" needs a string column and prefix",
                         e->kids[0]->path);
            v = pv->len >= l->len && memcmp(pv->s, l->s, l->len) == 0 ? TV_TRUE : TV_FALSE;
        }
        break;
    }
    case PK_EX_NOT: {
        tv x;
        plank_expr *r = NULL;
        PK_FORWARD(eval(c, e->kids[0], a, &x, res ? &r : NULL));
        v = x == TV_TRUE ? TV_FALSE : x == TV_FALSE ? TV_TRUE : x;
        if (res && v == TV_UNKNOWN) {
            *res = plank_expr_not(r);
            if (!*res) return pk_error_set(c->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            *out = v;
            return PLANK_OK;
        }
        plank_expr_free(r);
        break;
    }
    case PK_EX_AND:
    case PK_EX_OR: {
        bool and = e->kind == PK_EX_AND;
        tv acc = and ? TV_TRUE : TV_FALSE;
        plank_expr *r = NULL;
        plank_status st = PLANK_OK;
        for (int32_t i = 0; i < e->n && st == PLANK_OK; i++) {
            tv x;
            plank_expr *ri = NULL;
            st = eval(c, e->kids[i], a, &x, res ? &ri : NULL);
            if (st != PLANK_OK) break;
            acc = and ? tv_and(acc, x) : tv_or(acc, x);
            if (!res) continue;
            /* Children that are known and neutral (TRUE in AND, FALSE in OR) drop out. */
            if ((and && x == TV_TRUE) || (!and && x == TV_FALSE)) {
                plank_expr_free(ri);
                continue;
            }
            if (!ri) ri = const_expr(a, x);
            r = !r ? ri : and ? plank_expr_and(r, ri) : plank_expr_or(r, ri);
            if (!r) st = pk_error_set(c->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        if (st != PLANK_OK) {
            plank_expr_free(r);
            return st;
        }
        v = acc;
        if (res && v == TV_UNKNOWN) {
            *res = r;
            *out = v;
            return PLANK_OK;
        }
        plank_expr_free(r);
        break;
    }
    }
    if (res) {
        *res = v == TV_UNKNOWN ? clone(a, e) : const_expr(a, v);
        if (!*res) return pk_error_set(c->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *out = v;
    return PLANK_OK;
}

/* Whether file f can hold a passing row; *residual (NULL when no filter)
 * the filter for its scan. */
static plank_status file_filter(const plank_dataset *d, int32_t f, const plank_expr *filter,
                                bool *skip, plank_expr **residual, plank_error *err) {
    *skip = false;
    if (residual) *residual = NULL;
    if (!filter) return PLANK_OK;
    pctx c = {d, f, err};
    tv v;
    PK_FORWARD(eval(&c, filter, &d->alloc, &v, residual));
    if (v == TV_FALSE || v == TV_NULL) *skip = true;
    if (*skip && residual) {
        plank_expr_free(*residual);
        *residual = NULL;
    }
    return PLANK_OK;
}

/* ---- Plans ------------------------------------------------------------------------------ */

plank_status plank_dataset_plan(const plank_dataset *d, const plank_expr *filter,
                                int64_t target_bytes, plank_split **splits, int64_t *num_splits,
                                plank_error *err) {
    plank_error_init(err);
    if (!d || !splits || !num_splits || target_bytes < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    *splits = NULL;
    *num_splits = 0;
    if (target_bytes == 0) target_bytes = (int64_t)128 << 20;
    int64_t cap = 0;
    for (int32_t f = 0; f < d->nfiles; f++) cap += plank_reader_num_row_groups(d->readers[f]);
    plank_split *s = pk_calloc(&d->alloc, (size_t)cap * sizeof *s + 1);
    if (!s) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    int64_t n = 0;
    plank_status st = PLANK_OK;
    for (int32_t f = 0; f < d->nfiles && st == PLANK_OK; f++) {
        bool skip;
        st = file_filter(d, f, filter, &skip, NULL, err);
        if (st != PLANK_OK || skip) continue;
        int32_t ng = plank_reader_num_row_groups(d->readers[f]);
        for (int32_t g = 0; g < ng && st == PLANK_OK; g++) {
            plank_row_group_info gi = {.struct_size = sizeof gi};
            st = plank_reader_row_group(d->readers[f], g, &gi, err);
            if (st != PLANK_OK) break;
            int64_t bytes = gi.total_compressed_size >= 0 ? gi.total_compressed_size
                                                          : gi.total_byte_size;
            plank_split *cur = n > 0 ? &s[n - 1] : NULL;
            if (!cur || cur->file != f || cur->bytes >= target_bytes ||
                cur->bytes + bytes > target_bytes + target_bytes / 4) {
                cur = &s[n++];
                cur->struct_size = sizeof *cur;
                cur->file = f;
                cur->first_row_group = g;
            }
            cur->num_row_groups++;
            cur->rows += gi.num_rows;
            cur->bytes += bytes;
        }
    }
    if (st != PLANK_OK) {
        pk_free(&d->alloc, s, (size_t)cap * sizeof *s + 1);
        return st;
    }
    /* Allocated for every row group of the dataset; plank_splits_free
     * recomputes that size from the footers. */
    *splits = s;
    *num_splits = n;
    return PLANK_OK;
}

void plank_splits_free(const plank_dataset *d, plank_split *splits, int64_t n) {
    (void)n;
    if (!d || !splits) return;
    int64_t cap = 0;
    for (int32_t f = 0; f < d->nfiles; f++) cap += plank_reader_num_row_groups(d->readers[f]);
    pk_free(&d->alloc, splits, (size_t)cap * sizeof *splits + 1);
}

/* ---- Scans ------------------------------------------------------------------------------ */

typedef struct ds_out {
    bool key;       /* a partition column */
    int32_t idx;    /* field or key index */
} ds_out;

typedef struct ds_scan {
    plank_allocator alloc;
    plank_dataset *d;
    plank_scan_options so;      /* the caller's, filter and columns replaced per file */
    plank_arrow_options ao;     /* the dataset's types, the caller's batching and threads */
    plank_expr *filter;         /* the caller's (a copy) */
    int32_t nout;
    ds_out *out;
    int32_t f, f_end;           /* next file, end */
    const plank_split *split;   /* copied below */
    plank_split split_copy;
    int32_t *rgs;               /* the split's row groups */
    /* the current file */
    int32_t cur;
    plank_scan *scan;
    struct ArrowArrayStream fs;
    int32_t *child;             /* per output column: child of the file's batch, -1 */
    const char **names;         /* the file scan's projection */
    int64_t const_left;         /* rows still to emit without data columns */
    plank_dataset_stats stats;
    int err_code;
    char msg[PLANK_ERROR_MESSAGE_SIZE + 64];
} ds_scan;

static void add_stats(ds_scan *s, plank_scan *scan) {
    plank_scan_stats st;
    plank_scan_stats_init(&st);
    plank_scan_get_stats(scan, &st);
    int64_t *dst = &s->stats.scan.row_groups;
    const int64_t *src = &st.row_groups;
    size_t n = (sizeof st - offsetof(plank_scan_stats, row_groups)) / sizeof(int64_t);
    for (size_t i = 0; i < n; i++) dst[i] += src[i];
    int64_t pruned = st.row_groups_pruned_statistics + st.row_groups_pruned_bloom +
                     st.row_groups_pruned_page_index;
    if (st.row_groups > 0 && pruned == st.row_groups) s->stats.files_pruned_statistics++;
}

static void close_file(ds_scan *s) {
    if (s->fs.release) s->fs.release(&s->fs);
    if (s->scan) {
        add_stats(s, s->scan);
        plank_scan_close(s->scan);
    }
    s->scan = NULL;
    s->const_left = 0;
}

static plank_status resolve_output(ds_scan *s, const plank_scan_options *o, plank_error *err) {
    plank_dataset *d = s->d;
    int32_t n = o && o->columns && o->num_columns > 0 ? o->num_columns : d->nfields + d->nkeys;
    s->out = pk_calloc(&s->alloc, (size_t)n * sizeof *s->out + 1);
    s->child = pk_calloc(&s->alloc, (size_t)n * sizeof *s->child + 1);
    s->names = pk_calloc(&s->alloc, (size_t)n * sizeof *s->names + 1);
    if (!s->out || !s->child || !s->names)
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    s->nout = n;
    if (!(o && o->columns && o->num_columns > 0)) {
        for (int32_t k = 0; k < d->nfields; k++) s->out[k] = (ds_out){false, k};
        for (int32_t k = 0; k < d->nkeys; k++) s->out[d->nfields + k] = (ds_out){true, k};
        return PLANK_OK;
    }
    for (int32_t i = 0; i < n; i++) {
        const char *c = o->columns[i];
        PK_RETURN_IF(!c, err, PLANK_ERR_INVALID_ARGUMENT, "projected column %d is NULL", (int)i);
        int32_t found = -1;
        bool key = false;
        for (int32_t k = 0; k < d->nfields && found < 0; k++)
            if (strcmp(d->fields[k].name, c) == 0) found = k;
        for (int32_t k = 0; k < d->nkeys && found < 0; k++)
            if (strcmp(d->keys[k], c) == 0) found = k, key = true;
        PK_RETURN_IF(found < 0, err, PLANK_ERR_INVALID_ARGUMENT,
                     "projected column \"%s\" is not a top-level field or partition key of the "
                     "dataset", c);
        s->out[i] = (ds_out){key, found};
    }
    return PLANK_OK;
}

static void ds_free(ds_scan *s) {
    plank_allocator a = s->alloc;
    close_file(s);
    plank_expr_free(s->filter);
    if (s->out) pk_free(&a, s->out, (size_t)s->nout * sizeof *s->out + 1);
    if (s->child) pk_free(&a, s->child, (size_t)s->nout * sizeof *s->child + 1);
    if (s->names) pk_free(&a, s->names, (size_t)s->nout * sizeof *s->names + 1);
    if (s->rgs) pk_free(&a, s->rgs, (size_t)s->split_copy.num_row_groups * sizeof *s->rgs + 1);
    pk_dataset_release(s->d);
    pk_free(&a, s, sizeof *s);
}

static plank_status ds_new(plank_dataset *d, const plank_dataset_scan_options *given,
                           ds_scan **out, plank_error *err) {
    plank_error_init(err);
    *out = NULL;
    if (!d) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL dataset");
    plank_dataset_scan_options o;
    plank_dataset_scan_options_init(&o);
    if (given) PK_FORWARD(pk_struct_read(&o, given, &pk_layout_dataset_scan_options, err));
    ds_scan *s = pk_calloc(&d->alloc, sizeof *s);
    if (!s) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    s->alloc = d->alloc;
    s->d = d;
    pk_dataset_retain(d);
    plank_dataset_stats_init(&s->stats);
    plank_scan_options_init(&s->so);
    plank_status st = PLANK_OK;
    if (o.scan) st = pk_struct_read(&s->so, o.scan, &pk_layout_scan_options, err);
    if (st == PLANK_OK && s->so.row_groups)
        st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                          "dataset scans take row groups from a split, not scan options");
    /* Types as the dataset unified them; batching and threads the caller's. */
    plank_arrow_options user;
    if (st == PLANK_OK) st = pk_arrow_options_load(&user, s->so.arrow, err);
    s->ao = d->arrow;
    s->ao.batch_rows = user.batch_rows;
    s->ao.threads = user.threads;
    s->ao.batches_in_flight = user.batches_in_flight;
    s->ao.executor = user.executor;
    if (st == PLANK_OK && s->ao.batch_rows <= 0)
        st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "batch_rows must be positive");
    if (st == PLANK_OK && s->so.filter) {
        s->filter = clone(&s->alloc, s->so.filter);
        if (!s->filter) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == PLANK_OK) st = resolve_output(s, &s->so, err);
    s->so.filter = NULL;
    s->so.columns = NULL;
    s->so.num_columns = 0;
    s->so.arrow = &s->ao;
    s->f = 0;
    s->f_end = d->nfiles;
    if (st == PLANK_OK && o.split) {
        plank_split sp;
        memset(&sp, 0, sizeof sp);
        sp.struct_size = sizeof sp;
        st = pk_struct_read(&sp, o.split, &pk_layout_split, err);
        if (st == PLANK_OK) {
            int32_t ng = sp.file >= 0 && sp.file < d->nfiles
                             ? plank_reader_num_row_groups(d->readers[sp.file])
                             : -1;
            if (ng < 0 || sp.first_row_group < 0 || sp.num_row_groups < 1 ||
                sp.first_row_group > ng - sp.num_row_groups)
                st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                  "the split (file %d, row groups %d + %d) is not in the dataset",
                                  (int)sp.file, (int)sp.first_row_group, (int)sp.num_row_groups);
        }
        if (st == PLANK_OK) {
            s->split_copy = sp;
            s->split = &s->split_copy;
            s->rgs = pk_malloc(&s->alloc, (size_t)sp.num_row_groups * sizeof *s->rgs + 1);
            if (!s->rgs) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            for (int32_t i = 0; s->rgs && i < sp.num_row_groups; i++)
                s->rgs[i] = sp.first_row_group + i;
            s->f = sp.file;
            s->f_end = sp.file + 1;
        }
    }
    s->stats.files = s->f_end - s->f;
    if (st != PLANK_OK) {
        ds_free(s);
        return st;
    }
    *out = s;
    return PLANK_OK;
}

/* Opens the scan of file f (false in *opened when its partitions exclude it). */
static plank_status open_file(ds_scan *s, int32_t f, bool count_only, bool *opened,
                              plank_error *err) {
    plank_dataset *d = s->d;
    *opened = false;
    bool skip;
    plank_expr *residual = NULL;
    PK_FORWARD(file_filter(d, f, s->filter, &skip, &residual, err));
    if (skip) {
        s->stats.files_pruned_partitions++;
        return PLANK_OK;
    }
    int32_t nnames = 0;
    for (int32_t i = 0; i < s->nout; i++) {
        s->child[i] = -1;
        if (s->out[i].key) continue;
        int32_t k = s->out[i].idx;
        if (d->col[(size_t)f * (size_t)d->nfields + (size_t)k] < 0) continue;
        bool dup = false;
        for (int32_t j = 0; j < nnames; j++) dup |= strcmp(s->names[j], d->fields[k].name) == 0;
        if (!dup) s->names[nnames++] = d->fields[k].name;
    }
    plank_scan_options so = s->so;
    so.filter = residual;
    so.columns = nnames ? s->names : NULL;
    so.num_columns = nnames;
    if (s->split) {
        so.row_groups = s->rgs;
        so.num_row_groups = s->split->num_row_groups;
    }
    plank_status st = plank_scan_open(&s->scan, d->readers[f], &so, err);
    plank_expr_free(residual);
    if (st != PLANK_OK) {
        if (err) pk_error_prefix(err, "%s", d->paths[f]);
        return st;
    }
    s->cur = f;
    *opened = true;
    if (count_only || nnames == 0) {
        int64_t rows = 0;
        st = plank_scan_count(s->scan, &rows, err);
        if (st != PLANK_OK && err) pk_error_prefix(err, "%s", d->paths[f]);
        s->const_left = rows;
        return st;
    }
    st = plank_scan_arrow_stream(s->scan, &s->fs, err);
    struct ArrowSchema sc;
    memset(&sc, 0, sizeof sc);
    if (st == PLANK_OK && s->fs.get_schema(&s->fs, &sc) != 0)
        st = pk_error_set(err, PLANK_ERR_IO, "%s", s->fs.get_last_error(&s->fs));
    for (int32_t i = 0; st == PLANK_OK && i < s->nout; i++) {
        if (s->out[i].key) continue;
        const char *name = d->fields[s->out[i].idx].name;
        for (int64_t c = 0; c < sc.n_children; c++)
            if (strcmp(sc.children[c]->name, name) == 0) s->child[i] = (int32_t)c;
    }
    if (sc.release) sc.release(&sc);
    if (st != PLANK_OK && err) pk_error_prefix(err, "%s", d->paths[f]);
    return st;
}

/* The output batch of n rows: the file batch's children (in, may be NULL
 * when the file gives none) moved, converted or filled in. */
static plank_status assemble(ds_scan *s, struct ArrowArray *in, int64_t n, struct ArrowArray *out,
                             plank_error *err) {
    plank_dataset *d = s->d;
    struct ArrowArray *kids = pk_calloc(&s->alloc, (size_t)s->nout * sizeof *kids + 1);
    if (!kids) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    plank_status st = PLANK_OK;
    int32_t f = s->cur;
    for (int32_t i = 0; i < s->nout && st == PLANK_OK; i++) {
        const ds_out *o = &s->out[i];
        if (o->key) {
            st = pk_ds_const_array(&s->alloc, d->ktype[o->idx],
                                   &d->pv[(size_t)f * (size_t)d->nkeys + (size_t)o->idx], n,
                                   &kids[i], err);
        } else if (s->child[i] >= 0 && in && in->children[s->child[i]]->release) {
            struct ArrowArray *c = in->children[s->child[i]];
            struct ArrowArray moved = *c;
            c->release = NULL;
            st = pk_ds_widen(&s->alloc,
                             d->widen[(size_t)f * (size_t)d->nfields + (size_t)o->idx], &moved,
                             &kids[i], err);
        } else if (s->child[i] >= 0 && in) {
            /* the same field projected twice: a copy is not made; nulls would be wrong */
            st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "column \"%s\" projected twice",
                              d->fields[o->idx].name);
        } else {
            st = pk_ds_null_array(&s->alloc, &d->fields[o->idx].type, n, &kids[i], err);
        }
    }
    if (st == PLANK_OK) {
        st = pk_ds_struct_array(&s->alloc, kids, s->nout, n, out, err);
    } else {
        for (int32_t i = 0; i < s->nout; i++)
            if (kids[i].release) kids[i].release(&kids[i]);
    }
    pk_free(&s->alloc, kids, (size_t)s->nout * sizeof *kids + 1);
    return st;
}

static plank_status ds_next(ds_scan *s, struct ArrowArray *out, bool *end, plank_error *err) {
    *end = false;
    for (;;) {
        if (s->const_left > 0) {
            int64_t n = s->const_left < s->ao.batch_rows ? s->const_left : s->ao.batch_rows;
            s->const_left -= n;
            return assemble(s, NULL, n, out, err);
        }
        if (s->fs.release) {
            struct ArrowArray a;
            int rc = s->fs.get_next(&s->fs, &a);
            if (rc != 0) {
                const char *m = s->fs.get_last_error(&s->fs);
                return pk_error_set(err, rc == ENOMEM ? PLANK_ERR_OUT_OF_MEMORY : PLANK_ERR_IO,
                                    "%s: %s", s->d->paths[s->cur], m ? m : "read failed");
            }
            if (a.release) {
                plank_status st = assemble(s, &a, a.length, out, err);
                a.release(&a);
                return st;
            }
            close_file(s);
            continue;
        }
        if (s->scan) close_file(s);
        if (s->f >= s->f_end) {
            *end = true;
            return PLANK_OK;
        }
        bool opened;
        PK_FORWARD(open_file(s, s->f++, false, &opened, err));
    }
}

/* ---- The stream ---------------------------------------------------------------------------- */

static int ds_errno(plank_status st) {
    return st == PLANK_ERR_OUT_OF_MEMORY ? ENOMEM
           : st == PLANK_ERR_INVALID_ARGUMENT ? EINVAL
           : st == PLANK_ERR_UNSUPPORTED ? ENOSYS
                                          : EIO;
}

static int ds_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
    if (!st || !st->private_data || !out) return EINVAL;
    ds_scan *s = st->private_data;
    plank_dataset *d = s->d;
    plank_error e;
    plank_error_init(&e);
    struct ArrowSchema *kids = pk_calloc(&s->alloc, (size_t)s->nout * sizeof *kids + 1);
    if (!kids) return ENOMEM;
    plank_status rc = PLANK_OK;
    for (int32_t i = 0; i < s->nout && rc == PLANK_OK; i++) {
        const ds_out *o = &s->out[i];
        rc = o->key ? pk_ds_schema_leaf(&s->alloc, pk_ds_partition_format(d->ktype[o->idx]),
                                        d->keys[o->idx], ARROW_FLAG_NULLABLE, &kids[i], &e)
                    : pk_ds_schema_copy(&s->alloc, &d->fields[o->idx].type, &kids[i], &e);
    }
    if (rc == PLANK_OK) rc = pk_ds_schema_struct(&s->alloc, kids, s->nout, out, &e);
    for (int32_t i = 0; i < s->nout && rc != PLANK_OK; i++)
        if (kids[i].release) kids[i].release(&kids[i]);
    pk_free(&s->alloc, kids, (size_t)s->nout * sizeof *kids + 1);
    if (rc != PLANK_OK) snprintf(s->msg, sizeof s->msg, "%s", e.message);
    return rc == PLANK_OK ? 0 : ds_errno(rc);
}

static int ds_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
    if (!st || !st->private_data || !out) return EINVAL;
    ds_scan *s = st->private_data;
    memset(out, 0, sizeof *out);
    if (s->err_code) return s->err_code;
    plank_error e;
    plank_error_init(&e);
    bool end;
    plank_status rc = ds_next(s, out, &end, &e);
    if (rc != PLANK_OK) {
        s->err_code = ds_errno(rc);
        snprintf(s->msg, sizeof s->msg, "%s: %s", plank_status_string(rc), e.message);
        return s->err_code;
    }
    if (end) out->release = NULL;
    return 0;
}

static const char *ds_last_error(struct ArrowArrayStream *st) {
    if (!st || !st->private_data) return NULL;
    ds_scan *s = st->private_data;
    return s->msg[0] ? s->msg : NULL;
}

static void ds_release(struct ArrowArrayStream *st) {
    if (!st || !st->release) return;
    if (st->private_data) ds_free(st->private_data);
    st->private_data = NULL;
    st->release = NULL;
}

plank_status plank_dataset_scan(plank_dataset *d, const plank_dataset_scan_options *o,
                                struct ArrowArrayStream *out, plank_error *err) {
    if (!out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL stream");
    memset(out, 0, sizeof *out);
    ds_scan *s;
    PK_FORWARD(ds_new(d, o, &s, err));
    if (s->nout == 0) {
        ds_free(s);
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "the scan projects no column");
    }
    out->get_schema = ds_get_schema;
    out->get_next = ds_get_next;
    out->get_last_error = ds_last_error;
    out->release = ds_release;
    out->private_data = s;
    return PLANK_OK;
}

void plank_dataset_stream_stats(struct ArrowArrayStream *stream, plank_dataset_stats *out) {
    if (!stream || !out || stream->get_next != ds_get_next || !stream->private_data) return;
    ds_scan *s = stream->private_data;
    (void)pk_struct_write(out, &s->stats, &pk_layout_dataset_stats, NULL);
}

plank_status plank_dataset_count(plank_dataset *d, const plank_dataset_scan_options *o,
                                 int64_t *count, plank_dataset_stats *stats, plank_error *err) {
    if (!count) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL count");
    ds_scan *s;
    PK_FORWARD(ds_new(d, o, &s, err));
    int64_t total = 0;
    plank_status st = PLANK_OK;
    while (st == PLANK_OK && s->f < s->f_end) {
        bool opened;
        st = open_file(s, s->f++, true, &opened, err);
        if (st == PLANK_OK && opened) total += s->const_left;
        close_file(s);
    }
    if (st == PLANK_OK) *count = total;
    if (stats) (void)pk_struct_write(stats, &s->stats, &pk_layout_dataset_stats, NULL);
    ds_free(s);
    return st;
}
