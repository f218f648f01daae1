/*
 * pk_eval.c: a bound predicate over a batch of decoded values.
 *
 * Each node yields two bitmaps over the batch's rows, TRUE and FALSE (a
 * row in neither is NULL), combined as SQL's three-valued logic combines
 * them. Comparisons of fixed-width columns with constant bounds run through
 * the filter kernels of the kernel table (SIMD compares producing a
 * bitmask); wider and variable-width values are compared row by row.
 * Null slots hold unspecified values: every comparison result is masked
 * with the batch's validity.
 */
#include "pk_scan.h"

#include <math.h>

plank_status pk_evalctx_init(pk_evalctx *x, const pk_bound *b, const pk_kernels *k,
                             const plank_allocator *a, plank_error *err) {
    memset(x, 0, sizeof *x);
    x->b = b;
    x->k = k;
    size_t n = (size_t)(b->nnodes > 0 ? b->nnodes : 1) * 2 * PK_EVAL_STRIDE;
    x->bits = pk_malloc(a, n);
    if (!x->bits) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    pk_buffer_init(&x->tmp, a);
    return PLANK_OK;
}

void pk_evalctx_free(pk_evalctx *x, const plank_allocator *a) {
    if (x->bits)
        pk_free(a, x->bits, (size_t)(x->b->nnodes > 0 ? x->b->nnodes : 1) * 2 * PK_EVAL_STRIDE);
    pk_buffer_reset(&x->tmp);
    x->bits = NULL;
}

static size_t nbytes(int64_t n) { return (size_t)(n + 7) / 8; }

/* Clears the bits past n in the last byte. */
static void trim(uint8_t *bits, int64_t n) {
    if (n & 7) bits[n >> 3] &= (uint8_t)((1u << (n & 7)) - 1);
}

/* ---- Values ----------------------------------------------------------------------- */

static void value_bytes(const pk_fcol *c, const plank_batch *b, int64_t i, const uint8_t **p,
                        size_t *n) {
    if (c->node->physical_type == PLANK_BYTE_ARRAY) {
        *p = b->data + b->offsets[i];
        *n = (size_t)(b->offsets[i + 1] - b->offsets[i]);
    } else {
        size_t w = (size_t)c->node->type_length;
        *p = (const uint8_t *)b->values + (size_t)i * w;
        *n = w;
    }
}

static pk_i128 be_int(const uint8_t *p, size_t n) {
    if (n == 0) return 0;
    if (n > 16) n = 16; /* bound at binding: precision <= 38 fits 16 bytes */
    unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++) u = (u << 8) | p[i];
    return (pk_i128)u;
}

/* INT96 (nanoseconds of the day, Julian day) as microseconds since the
 * epoch, rounded down as DuckDB reads them. */
static int64_t int96_micros(const uint8_t *p) {
    uint64_t nanos = pk_load_u64(p);
    uint32_t jd = pk_load_u32(p + 8);
    pk_i128 ns = ((pk_i128)jd - 2440588) * 86400 * 1000000000 + (pk_i128)nanos;
    pk_i128 us = ns / 1000;
    if (ns % 1000 < 0) us -= 1;
    if (us > INT64_MAX) return INT64_MAX;
    if (us < INT64_MIN) return INT64_MIN;
    return (int64_t)us;
}

/* One row's value in the column's domain. */
static void value_at(const pk_fcol *c, const plank_batch *b, const int64_t *conv, int64_t i,
                     pk_dval *v) {
    switch (c->dom) {
    case PK_V_BOOL:
        v->i = pk_bit_get(b->values, i);
        break;
    case PK_V_I32: {
        uint32_t u = pk_load_u32((const uint8_t *)b->values + 4 * i);
        v->i = c->is_unsigned ? (int32_t)(u ^ 0x80000000u) : (int32_t)u;
        break;
    }
    case PK_V_I64: {
        if (conv) { v->i = conv[i]; break; }
        uint64_t u = pk_load_u64((const uint8_t *)b->values + 8 * i);
        if (c->is_unsigned) u ^= (uint64_t)1 << 63;
        v->i = (int64_t)u;
        break;
    }
    case PK_V_F32: {
        float f;
        memcpy(&f, (const uint8_t *)b->values + 4 * i, 4);
        v->d = f;
        break;
    }
    case PK_V_F64:
        memcpy(&v->d, (const uint8_t *)b->values + 8 * i, 8);
        break;
    case PK_V_I128: {
        const uint8_t *p;
        size_t n;
        value_bytes(c, b, i, &p, &n);
        v->w = be_int(p, n);
        break;
    }
    case PK_V_BYTES:
        value_bytes(c, b, i, &v->p, &v->n);
        break;
    }
}

/* ---- Terms ------------------------------------------------------------------------ */

static bool in_range(const pk_fcol *c, const pk_term *t, const pk_dval *v) {
    bool fl = c->dom == PK_V_F32 || c->dom == PK_V_F64;
    if (fl && isnan(v->d)) return t->nan;
    if (t->empty) return false;
    if (!t->lo_inf) {
        int k = pk_dval_cmp(c->dom, v, &t->lo);
        if (t->lo_open ? k <= 0 : k < 0) return false;
    }
    if (!t->hi_inf) {
        int k = pk_dval_cmp(c->dom, v, &t->hi);
        if (t->hi_open ? k >= 0 : k > 0) return false;
    }
    return true;
}

static bool in_list(const pk_fcol *c, const pk_term *t, const pk_dval *v) {
    bool fl = c->dom == PK_V_F32 || c->dom == PK_V_F64;
    if (fl && isnan(v->d)) return t->nan;
    int32_t lo = 0, hi = t->nlist;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int k = pk_dval_cmp(c->dom, &t->list[mid], v);
        if (k == 0) return true;
        if (k < 0) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* Whether v[0..n) equals the literal p[0..pn): lengths first. */
static inline bool bytes_eq(const uint8_t *v, size_t n, const uint8_t *p, size_t pn) {
    return n == pn && (n == 0 || memcmp(v, p, n) == 0);
}

/* A short byte string (at most 16 bytes) as two words, zero past its
 * length, and the masks that keep its length's bytes of two words. */
typedef struct key16 {
    uint64_t w0, w1, m0, m1;
    size_t n;
} key16;

static key16 key_of(const uint8_t *p, size_t n) {
    uint8_t b[16] = {0};
    if (n) memcpy(b, p, n < 16 ? n : 16);
    key16 k;
    memcpy(&k.w0, b, 8);
    memcpy(&k.w1, b + 8, 8);
    k.n = n;
    k.m0 = n >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * n)) - 1);
    k.m1 = n >= 16 ? ~(uint64_t)0 : n <= 8 ? 0 : (((uint64_t)1 << (8 * (n - 8))) - 1);
    return k;
}

/* Whether the value v[0..n) (inside a pk_buffer: 16 bytes from v are
 * readable, padding included, whatever n) equals the key: the length and
 * two masked words compared without a branch (the lengths of a column's
 * values vary from row to row, which a branch on them mispredicts). */
static inline bool key_eq(const uint8_t *v, size_t n, const key16 *k) {
    uint64_t a, b;
    memcpy(&a, v, 8);
    memcpy(&b, v + 8, 8);
    return (n == k->n) & ((a & k->m0) == k->w0) & ((b & k->m1) == k->w1);
}

#define PK_KEYS_MAX 16

/* The pass bitmap of a term over byte values (strings, binaries), with the
 * common shapes (equality, short IN lists, prefixes) compared without the
 * general ordering. Null slots' results are masked by the caller. */
/* The rows of a batch a byte-string term evaluates: all of them, or (when
 * fewer than half of them are live) only the live ones, 64 at a time. */
#define FOR_ROWS(live, n, i, ...)                                                        \
    do {                                                                                 \
        if (live) {                                                                      \
            for (int64_t w0_ = 0; w0_ < (n); w0_ += 64) {                                \
                uint64_t m_;                                                             \
                memcpy(&m_, (live) + (w0_ >> 3), 8);                                     \
                if ((n) - w0_ < 64) m_ &= ((uint64_t)1 << ((n) - w0_)) - 1;              \
                while (m_) {                                                             \
                    int64_t i = w0_ + __builtin_ctzll(m_);                               \
                    m_ &= m_ - 1;                                                        \
                    __VA_ARGS__                                                  \
                }                                                                        \
            }                                                                            \
        } else {                                                                         \
            for (int64_t i = 0; i < (n); i++) {                                          \
                __VA_ARGS__                                                      \
            }                                                                            \
        }                                                                                \
    } while (0)

/* Whether fewer than half of the n rows are live (then only those are evaluated). */
static const uint8_t *sparse_live(const uint8_t *live, int64_t n) {
    if (!live) return NULL;
    int64_t cnt = 0;
    for (int64_t w0 = 0; w0 < n; w0 += 64) {
        uint64_t m;
        memcpy(&m, live + (w0 >> 3), 8);
        if (n - w0 < 64) m &= ((uint64_t)1 << (n - w0)) - 1;
        cnt += pk_bits_popcount(m);
    }
    return cnt * 2 < n ? live : NULL;
}

static void bytes_pass(const pk_fcol *c, const pk_term *tm, const plank_batch *b, int64_t n,
                       const uint8_t *live_bits, uint8_t *t) {
    const uint8_t *live = sparse_live(live_bits, n);
    bool ba = c->node->physical_type == PLANK_BYTE_ARRAY;
    size_t w = ba ? 0 : (size_t)c->node->type_length;
    const int64_t *off = b->offsets;
    /* A batch of empty or null strings may have no data at all: its
     * offsets are 0, and the word compares read from 16 zero bytes. */
    static const uint8_t no_data[16] = {0};
    const uint8_t *base = ba ? (b->data ? b->data : no_data) : (const uint8_t *)b->values;
    bool eq = tm->kind == PK_T_RANGE && !tm->empty && !tm->lo_inf && !tm->hi_inf &&
              !tm->lo_open && !tm->hi_open && bytes_eq(tm->lo.p, tm->lo.n, tm->hi.p, tm->hi.n);
    memset(t, 0, nbytes(n));
    if (tm->kind == PK_T_RANGE && tm->empty) return;
    /* Byte arrays sit in padded buffers: short keys compare as words. */
    const pk_dval *keys = eq ? &tm->lo : tm->list;
    int32_t nkeys = eq ? 1 : tm->kind == PK_T_IN ? tm->nlist : 0;
    bool words = ba && nkeys > 0 && nkeys <= PK_KEYS_MAX;
    key16 kk[PK_KEYS_MAX];
    for (int32_t k = 0; words && k < nkeys; k++) {
        if (keys[k].n > 16) words = false;
        else kk[k] = key_of(keys[k].p, keys[k].n);
    }
    if (words) {
        FOR_ROWS(live, n, i, {
            const uint8_t *v = base + off[i];
            size_t vn = (size_t)(off[i + 1] - off[i]);
            bool pass = false;
            for (int32_t k = 0; k < nkeys; k++) pass |= key_eq(v, vn, &kk[k]);
            t[i >> 3] |= (uint8_t)(pass << (i & 7));
        });
        return;
    }
    FOR_ROWS(live, n, i, {
        const uint8_t *v = ba ? base + off[i] : base + (size_t)i * w;
        size_t vn = ba ? (size_t)(off[i + 1] - off[i]) : w;
        bool pass;
        if (eq) {
            pass = bytes_eq(v, vn, tm->lo.p, tm->lo.n);
        } else if (tm->kind == PK_T_IN) {
            /* the list is sorted and distinct (pk_bind.c): a binary search,
             * since a long list (a join's keys) made a scan over every key
             * per row */
            pk_dval d = {.p = v, .n = vn};
            pass = in_list(c, tm, &d);
        } else if (tm->kind == PK_T_PREFIX) {
            pass = vn >= tm->prefix.n &&
                   (tm->prefix.n == 0 || memcmp(v, tm->prefix.p, tm->prefix.n) == 0);
        } else {
            pk_dval d = {.p = v, .n = vn};
            pass = in_range(c, tm, &d);
        }
        t[i >> 3] |= (uint8_t)(pass << (i & 7));
    });
}

/* The pass bitmap of a RANGE term over fixed-width values, through the
 * kernels where the domain has one. */
static int64_t range_kernel(const pk_evalctx *x, const pk_fcol *c, const pk_term *t,
                            const plank_batch *b, const int64_t *conv, uint8_t *out) {
    int64_t n = x->n;
    const pk_kernels *k = x->k;
    switch (c->dom) {
    case PK_V_I32:
        if (t->empty) break;
        return k->filter_i32((const int32_t *)b->values, (size_t)n, (int32_t)t->lo.i,
                             (int32_t)t->hi.i, c->is_unsigned ? 0x80000000u : 0, out);
    case PK_V_I64:
        if (t->empty) break;
        if (conv) return k->filter_i64(conv, (size_t)n, t->lo.i, t->hi.i, 0, out);
        return k->filter_i64((const int64_t *)b->values, (size_t)n, t->lo.i, t->hi.i,
                             c->is_unsigned ? (uint64_t)1 << 63 : 0, out);
    case PK_V_F32:
    case PK_V_F64: {
        unsigned flags = (t->lo_open ? PK_FILTER_LO_OPEN : 0) |
                         (t->hi_open ? PK_FILTER_HI_OPEN : 0) | (t->nan ? PK_FILTER_NAN : 0);
        double lo = t->empty ? 1 : t->lo.d, hi = t->empty ? 0 : t->hi.d;
        if (c->dom == PK_V_F32)
            return k->filter_f32((const float *)b->values, (size_t)n, (float)lo, (float)hi,
                                 flags, out);
        return k->filter_f64((const double *)b->values, (size_t)n, lo, hi, flags, out);
    }
    case PK_V_BOOL: {
        bool want0 = !t->empty && t->lo.i <= 0 && t->hi.i >= 0;
        bool want1 = !t->empty && t->lo.i <= 1 && t->hi.i >= 1;
        const uint8_t *v = b->values;
        for (size_t i = 0; i < nbytes(n); i++)
            out[i] = (uint8_t)((want1 ? v[i] : 0) | (want0 ? ~v[i] : 0));
        trim(out, n);
        return -1;
    }
    default:
        break;
    }
    memset(out, 0, nbytes(n));
    return 0;
}

static plank_status eval_term(pk_evalctx *x, const pk_bnode *node, uint8_t *t, uint8_t *f,
                              plank_error *err) {
    const pk_fcol *c = &x->b->cols[node->col];
    const pk_term *tm = &node->term;
    const plank_batch *b = x->cols[node->col].b;
    int64_t n = x->n;
    size_t nb = nbytes(n);
    const uint8_t *valid = b->validity;
    if (tm->kind == PK_T_ISNULL) {
        for (size_t i = 0; i < nb; i++) {
            uint8_t v = valid ? valid[i] : 0xff;
            t[i] = tm->is_not ? v : (uint8_t)~v;
            f[i] = tm->is_not ? (uint8_t)~v : v;
        }
        trim(t, n);
        trim(f, n);
        return PLANK_OK;
    }
    /* INT96 values become microseconds first. */
    const int64_t *conv = NULL;
    if (c->int96) {
        PK_FORWARD(pk_buffer_resize(&x->tmp, (size_t)n * 8, err));
        int64_t *cv = (int64_t *)(void *)x->tmp.data;
        for (int64_t i = 0; i < n; i++) cv[i] = int96_micros((const uint8_t *)b->values + 12 * i);
        conv = cv;
    }
    bool fixed = c->dom != PK_V_I128 && c->dom != PK_V_BYTES;
    if (tm->kind == PK_T_RANGE && fixed) {
        range_kernel(x, c, tm, b, conv, t);
    } else if (c->dom == PK_V_BYTES) {
        bytes_pass(c, tm, b, n, x->live, t);
    } else {
        memset(t, 0, nb);
        pk_dval v;
        memset(&v, 0, sizeof v);
        for (int64_t i = 0; i < n; i++) {
            if (valid && !pk_bit_get(valid, i)) continue;
            value_at(c, b, conv, i, &v);
            bool pass;
            if (tm->kind == PK_T_RANGE) pass = in_range(c, tm, &v);
            else if (tm->kind == PK_T_IN) pass = in_list(c, tm, &v);
            else
                pass = v.n >= tm->prefix.n &&
                       (tm->prefix.n == 0 || memcmp(v.p, tm->prefix.p, tm->prefix.n) == 0);
            if (pass) pk_bit_set(t, i);
        }
    }
    /* t and f from the pass bits: a word at a time, the cases hoisted out
     * of the loop (it runs on every filter value). */
    uint64_t neg = tm->kind == PK_T_RANGE && tm->negate ? ~(uint64_t)0 : 0;
    uint64_t can_f = tm->kind == PK_T_IN && tm->list_null ? 0 : ~(uint64_t)0;
    size_t i = 0;
    if (!valid) {
        for (; i + 8 <= nb; i += 8) {
            uint64_t p = pk_load_u64(t + i) ^ neg;
            pk_store_u64(t + i, p);
            pk_store_u64(f + i, ~p & can_f);
        }
    } else {
        for (; i + 8 <= nb; i += 8) {
            uint64_t v = pk_load_u64(valid + i), p = pk_load_u64(t + i) ^ neg;
            pk_store_u64(t + i, p & v);
            pk_store_u64(f + i, ~p & v & can_f);
        }
    }
    for (; i < nb; i++) {
        uint8_t v = valid ? valid[i] : 0xff;
        uint8_t p = (uint8_t)(t[i] ^ (uint8_t)neg);
        t[i] = p & v;
        f[i] = (uint8_t)(~p & v & (uint8_t)can_f);
    }
    trim(t, n);
    trim(f, n);
    return PLANK_OK;
}

/* ---- Column against column ---------------------------------------------------------- */

typedef struct cval {
    pk_vclass cls;
    pk_i128 w;     /* EXACT (at scale), TIME (ns), BOOL */
    int32_t scale;
    double d;      /* FLOAT */
    const uint8_t *p;
    size_t n;
} cval;

static void cval_at(const pk_fcol *c, const plank_batch *b, int64_t i, cval *v) {
    pk_dval d;
    memset(&d, 0, sizeof d);
    v->cls = c->cls;
    v->scale = c->scale;
    if (c->int96) {
        v->w = (pk_i128)int96_micros((const uint8_t *)b->values + 12 * i) * 1000;
        return;
    }
    value_at(c, b, NULL, i, &d);
    switch (c->dom) {
    case PK_V_BOOL: v->w = d.i; break;
    case PK_V_I32:
        v->w = c->is_unsigned ? (pk_i128)d.i + ((int64_t)1 << 31) : d.i;
        break;
    case PK_V_I64:
        v->w = c->is_unsigned ? (pk_i128)(uint64_t)((uint64_t)d.i ^ ((uint64_t)1 << 63))
                              : (pk_i128)d.i;
        break;
    case PK_V_F32: case PK_V_F64: v->d = d.d; break;
    case PK_V_I128: v->w = d.w; break;
    case PK_V_BYTES: v->p = d.p; v->n = d.n; break;
    }
    if (c->cls == PK_C_TIME) v->w *= c->ns_per_unit;
}

static double cval_double(const cval *v) {
    if (v->cls == PK_C_FLOAT) return v->d;
    return pk_decimal_to_double(v->w, v->scale);
}

static int cval_cmp(const cval *a, const cval *b) {
    if (a->cls == PK_C_FLOAT || b->cls == PK_C_FLOAT) return pk_double_order(cval_double(a), cval_double(b));
    if (a->cls == PK_C_BYTES) return pk_bytes_order(a->p, a->n, b->p, b->n);
    pk_i128 x = a->w, y = b->w;
    if (a->cls == PK_C_EXACT) {
        /* Bring both to the larger scale; the values are below 10^38, so
         * one side times 10^38 at most would overflow: compare by sign and
         * quotient when the product could. */
        int32_t s = a->scale > b->scale ? a->scale : b->scale;
        for (int i = a->scale; i < s; i++) {
            if (x > ((pk_i128)1 << 122) || x < -((pk_i128)1 << 122)) return x < 0 ? -1 : 1;
            x *= 10;
        }
        for (int i = b->scale; i < s; i++) {
            if (y > ((pk_i128)1 << 122) || y < -((pk_i128)1 << 122)) return y < 0 ? 1 : -1;
            y *= 10;
        }
    }
    return x < y ? -1 : x > y ? 1 : 0;
}

static bool op_holds(plank_compare_op op, int k) {
    switch (op) {
    case PLANK_CMP_EQ: return k == 0;
    case PLANK_CMP_NE: return k != 0;
    case PLANK_CMP_LT: return k < 0;
    case PLANK_CMP_LE: return k <= 0;
    case PLANK_CMP_GT: return k > 0;
    case PLANK_CMP_GE: return k >= 0;
    }
    return false;
}

/* t holds the comparison: t &= valid, f = ~t & valid, valid the AND of the
 * two validity bitmaps (NULL: all valid). The pointers never overlap
 * (restrict: the loop vectorises). */
static void split_valid(uint8_t *restrict t, uint8_t *restrict f, const uint8_t *restrict v1,
                        const uint8_t *restrict v2, size_t nb) {
    if (!v1 && !v2) {
        for (size_t i = 0; i < nb; i++) f[i] = (uint8_t)~t[i];
        return;
    }
    for (size_t i = 0; i < nb; i++) {
        uint8_t v = (v1 ? v1[i] : 0xff) & (v2 ? v2[i] : 0xff);
        uint8_t r = t[i];
        t[i] = r & v;
        f[i] = (uint8_t)~r & v;
    }
}

static bool colcmp_fast(pk_evalctx *x, const pk_bnode *node, uint8_t *t, uint8_t *f) {
    const pk_fcol *c1 = &x->b->cols[node->col], *c2 = &x->b->cols[node->col2];
    const plank_batch *b1 = x->cols[node->col].b, *b2 = x->cols[node->col2].b;
    if (c1->dom != c2->dom || c1->int96 || c2->int96 || c1->is_unsigned || c2->is_unsigned ||
        c1->cls != c2->cls || c1->scale != c2->scale || c1->ns_per_unit != c2->ns_per_unit)
        return false;
    int64_t n = x->n;
    unsigned op = 0;
    switch (node->op) {
    case PLANK_CMP_EQ: op = PK_CMP_EQ; break;
    case PLANK_CMP_NE: op = PK_CMP_NE; break;
    case PLANK_CMP_LT: op = PK_CMP_LT; break;
    case PLANK_CMP_LE: op = PK_CMP_LE; break;
    case PLANK_CMP_GT: op = PK_CMP_GT; break;
    case PLANK_CMP_GE: op = PK_CMP_GE; break;
    }
    switch (c1->dom) {
    case PK_V_I32:
        x->k->compare_i32((const int32_t *)b1->values, (const int32_t *)b2->values, (size_t)n, op,
                          t);
        break;
    case PK_V_I64:
        x->k->compare_i64((const int64_t *)b1->values, (const int64_t *)b2->values, (size_t)n, op,
                          t);
        break;
    default: return false; /* floats: NaN's order needs the general path */
    }
    size_t nb = nbytes(n);
    split_valid(t, f, b1->validity, b2->validity, nb);
    trim(t, n);
    trim(f, n);
    return true;
}

static void eval_colcmp(pk_evalctx *x, const pk_bnode *node, uint8_t *t, uint8_t *f) {
    if (colcmp_fast(x, node, t, f)) return;
    const pk_fcol *c1 = &x->b->cols[node->col], *c2 = &x->b->cols[node->col2];
    const plank_batch *b1 = x->cols[node->col].b, *b2 = x->cols[node->col2].b;
    int64_t n = x->n;
    memset(t, 0, nbytes(n));
    memset(f, 0, nbytes(n));
    cval v1, v2;
    memset(&v1, 0, sizeof v1);
    memset(&v2, 0, sizeof v2);
    for (int64_t i = 0; i < n; i++) {
        if ((b1->validity && !pk_bit_get(b1->validity, i)) ||
            (b2->validity && !pk_bit_get(b2->validity, i)))
            continue;
        cval_at(c1, b1, i, &v1);
        cval_at(c2, b2, i, &v2);
        if (op_holds(node->op, cval_cmp(&v1, &v2))) pk_bit_set(t, i);
        else pk_bit_set(f, i);
    }
}

/* ---- The tree ---------------------------------------------------------------------- */

/* A child's TRUE / FALSE bitmaps joined into its AND (or OR) parent's. */
static void join_bits(uint8_t *restrict t, uint8_t *restrict f, const uint8_t *restrict ct,
                      const uint8_t *restrict cf, size_t nb, bool is_and) {
    if (is_and) {
        for (size_t i = 0; i < nb; i++) {
            t[i] &= ct[i];
            f[i] |= cf[i];
        }
    } else {
        for (size_t i = 0; i < nb; i++) {
            t[i] |= ct[i];
            f[i] &= cf[i];
        }
    }
}

plank_status pk_eval(pk_evalctx *x, const pk_bnode *node, const uint8_t **tout,
                     const uint8_t **fout, plank_error *err) {
    uint8_t *t = x->bits + (size_t)node->id * 2 * PK_EVAL_STRIDE;
    uint8_t *f = t + PK_EVAL_STRIDE;
    int64_t n = x->n;
    size_t nb = nbytes(n);
    switch (node->kind) {
    case PK_B_CONST:
        memset(t, node->cval == 1 ? 0xff : 0, nb);
        memset(f, node->cval == 0 ? 0xff : 0, nb);
        trim(t, n);
        trim(f, n);
        break;
    case PK_B_TERM:
        PK_FORWARD(eval_term(x, node, t, f, err));
        break;
    case PK_B_COLCMP:
        eval_colcmp(x, node, t, f);
        break;
    case PK_B_NOT: {
        const uint8_t *ct, *cf;
        PK_FORWARD(pk_eval(x, node->kids[0], &ct, &cf, err));
        memcpy(t, cf, nb);
        memcpy(f, ct, nb);
        break;
    }
    case PK_B_AND:
    case PK_B_OR: {
        bool is_and = node->kind == PK_B_AND;
        for (int32_t k = 0; k < node->n; k++) {
            const uint8_t *ct, *cf;
            PK_FORWARD(pk_eval(x, node->kids[k], &ct, &cf, err));
            if (k == 0) {
                memcpy(t, ct, nb);
                memcpy(f, cf, nb);
                continue;
            }
            join_bits(t, f, ct, cf, nb, is_and);
        }
        break;
    }
    }
    *tout = t;
    *fout = f;
    return PLANK_OK;
}

plank_status pk_eval_entries(pk_evalctx *x, const pk_bnode *node, int32_t col,
                             const int64_t *offsets, const uint8_t *data, int64_t n,
                             uint8_t *t, uint8_t *f, int8_t *null_result, plank_error *err) {
    plank_batch fake = {.struct_size = sizeof(plank_batch)};
    memset(&fake, 0, sizeof fake);
    const plank_schema_node *cn = x->b->cols[col].node;
    bool ba = cn->physical_type == PLANK_BYTE_ARRAY;
    size_t w = ba ? 0 : (size_t)pk_physical_width(cn->physical_type, cn->type_length);
    fake.physical_type = cn->physical_type;
    fake.value_width = (int32_t)w;
    fake.data = data;
    fake.values = data;
    const plank_batch *saved = x->cols[col].b;
    int64_t saved_n = x->n;
    x->cols[col].b = &fake;
    plank_status st = PLANK_OK;
    for (int64_t s = 0; s < n && st == PLANK_OK; s += PK_EVAL_BATCH) {
        int64_t m = n - s < PK_EVAL_BATCH ? n - s : PK_EVAL_BATCH;
        fake.length = m;
        if (ba) fake.offsets = offsets + s;
        else fake.values = data + (size_t)s * w;
        x->n = m;
        const uint8_t *ct, *cf;
        st = pk_eval(x, node, &ct, &cf, err);
        if (st != PLANK_OK) break;
        /* s is a multiple of 8: whole bytes. */
        memcpy(t + s / 8, ct, nbytes(m));
        memcpy(f + s / 8, cf, nbytes(m));
    }
    if (st == PLANK_OK && null_result) {
        /* One NULL value: every comparison NULL, IS NULL true. */
        static const uint8_t none = 0;
        static const int64_t zero_offs[2] = {0, 0};
        static const uint8_t zero_value[16] = {0};
        fake.length = 1;
        fake.offsets = zero_offs;
        fake.values = zero_value;
        if (!ba && w > sizeof zero_value) {
            /* A long FIXED_LEN_BYTE_ARRAY (never INT96, the one type whose
             * evaluation uses tmp itself): a zeroed value of its width. */
            st = pk_buffer_resize(&x->tmp, w, err);
            if (st == PLANK_OK) memset(x->tmp.data, 0, w);
            fake.values = x->tmp.data;
        }
        fake.validity = &none;
        fake.null_count = 1;
        x->n = 1;
        const uint8_t *ct, *cf;
        if (st == PLANK_OK) st = pk_eval(x, node, &ct, &cf, err);
        if (st == PLANK_OK) *null_result = (ct[0] & 1) ? 1 : (cf[0] & 1) ? 0 : -1;
    }
    x->cols[col].b = saved;
    x->n = saved_n;
    return st;
}
