/*
 * tq_q12.c: TPC-H Q12 (shipping modes and order priority), validation
 * parameters MAIL, SHIP, 1994-01-01:
 *
 *   SELECT l_shipmode,
 *     sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'
 *         THEN 1 ELSE 0 END) AS high_line_count,
 *     sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH'
 *         THEN 1 ELSE 0 END) AS low_line_count
 *   FROM orders, lineitem
 *   WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
 *     AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
 *     AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'
 *   GROUP BY l_shipmode ORDER BY l_shipmode
 *
 * The plan:
 *  1. lineitem, one scan per block of row groups: the filter pushed down, l_orderkey
 *     and l_shipmode of the surviving rows (about 0.5% of them) kept.
 *  2. The matches sorted by key (they come sorted when lineitem is), and
 *     their distinct keys listed.
 *  3. orders' o_orderkey, per row group: skipped when its statistics hold
 *     no key; otherwise only the pages whose page-index bounds hold a key
 *     are read (plank_reader_arrow_stream_rows), each value looked up in
 *     the keys (by merge while the values ascend, else by binary search).
 *     The result: the file rows of the joined orders.
 *  4. o_orderpriority read at exactly those rows (the reader skips pages
 *     without one and does not materialise the others); each joined order
 *     adds its lineitem matches to the high or low count of their mode.
 * NULL keys join nothing; a NULL priority counts in neither sum, as in SQL.
 */
#include <stdlib.h>
#include <string.h>

#include "tq_internal.h"

static const char *const Q12_FILTER =
    "l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate "
    "AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '1994-01-01' "
    "AND l_receiptdate < DATE '1995-01-01'";
static const char *const Q12_LCOLS[] = {"l_orderkey", "l_shipmode"};

typedef struct q12_match {
    int64_t key;
    int32_t mode; /* id in the task's string set, then in the global one */
} q12_match;

/* What one lineitem row group left. */
typedef struct q12_ltask {
    q12_match *m;
    int64_t n, cap;
    tq_strset modes;
    int64_t *keys; /* one batch's keys */
    int16_t *ids;
    int64_t bcap;
} q12_ltask;

static plank_status push_match(q12_ltask *t, int64_t key, int32_t mode, plank_error *err) {
    if (t->n == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 1024;
        q12_match *m = realloc(t->m, (size_t)cap * sizeof *m);
        if (!m) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        t->m = m;
        t->cap = cap;
    }
    t->m[t->n].key = key;
    t->m[t->n].mode = mode;
    t->n++;
    return PLANK_OK;
}

static plank_status lineitem_batch(void *state, const struct ArrowSchema *schema,
                                   const struct ArrowArray *b, plank_error *err) {
    q12_ltask *t = state;
    tq_field fk, fm;
    int32_t ik, im;
    TQ_TRY(tq_field_resolve(schema, "l_orderkey", TQ_INT, &fk, &ik, err));
    TQ_TRY(tq_field_resolve(schema, "l_shipmode", TQ_STRING, &fm, &im, err));
    if (b->offset != 0) return tq_fail(err, PLANK_ERR_UNSUPPORTED, "batch with an offset");
    int64_t n = b->length;
    if (n > t->bcap) {
        free(t->keys);
        free(t->ids);
        t->keys = malloc((size_t)n * sizeof *t->keys);
        t->ids = malloc((size_t)n * sizeof *t->ids);
        t->bcap = n;
        if (!t->keys || !t->ids) {
            t->bcap = 0;
            return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    const struct ArrowArray *ak = b->children[ik];
    const int64_t *keys = tq_decimals_view(&fk, ak, n, t->keys);
    TQ_TRY(tq_string_ids(&fm, b->children[im], n, &t->modes, t->ids, "l_shipmode", err));
    for (int64_t i = 0; i < n; i++) {
        /* The filter already rejected NULL modes (IN is not true for NULL). */
        if (!tq_valid(ak, i) || t->ids[i] < 0) continue;
        TQ_TRY(push_match(t, keys[i], t->ids[i], err));
    }
    return PLANK_OK;
}

/* The joined orders of one orders row group: file row and key index. */
typedef struct q12_hit {
    int64_t row;
    int64_t key; /* index into the distinct keys */
} q12_hit;

typedef struct q12_otask {
    q12_hit *h;
    int64_t n, cap;
    plank_row_range *ranges; /* the rows read of o_orderkey */
    int64_t nranges;
    int64_t range, in_range; /* the stream's position in the ranges */
    int64_t cursor;          /* merge position in the keys */
    int64_t last;            /* the previous value (merge while ascending) */
    bool have_last;
    /* step 4 */
    int64_t next_hit;
    int64_t (*counts)[2];    /* per global mode: high, low */
    int64_t *joined;         /* per global mode: joined lineitem rows */
} q12_otask;

typedef struct q12_ctx {
    const tq_options *o;
    plank_reader *lr;          /* lineitem */
    const plank_expr *filter;
    q12_ltask *lt;             /* per lineitem task (a block of row groups) */
    plank_reader *ok, *op;     /* orders with o_orderkey / o_orderpriority selected */
    int32_t okey_col;
    const q12_match *m;        /* all matches, sorted by key */
    int64_t nm;
    const int64_t *u;          /* distinct keys */
    const int64_t *ustart;     /* matches of u[j]: m[ustart[j] .. ustart[j + 1]) */
    int64_t nu;
    int32_t nmodes;
    q12_otask *ot;
    int64_t *group_first;      /* first file row of each orders row group */
} q12_ctx;

/* Index of the first distinct key >= v. */
static int64_t lower_bound(const int64_t *u, int64_t n, int64_t v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (u[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Whether some key lies in [lo, hi]. */
static bool keys_in(const q12_ctx *c, int64_t lo, int64_t hi) {
    int64_t j = lower_bound(c->u, c->nu, lo);
    return j < c->nu && c->u[j] <= hi;
}

/* A page-index or statistics bound as int64 (PLAIN INT32 / INT64 bytes). */
static bool bound_value(const uint8_t *p, uint32_t len, int64_t *v) {
    if (len == 8) {
        memcpy(v, p, 8);
        return true;
    }
    if (len == 4) {
        int32_t x;
        memcpy(&x, p, 4);
        *v = x;
        return true;
    }
    return false;
}

static plank_status push_range(q12_otask *t, int64_t first, int64_t count, int64_t *cap,
                               plank_error *err) {
    if (t->nranges && t->ranges[t->nranges - 1].first + t->ranges[t->nranges - 1].count == first) {
        t->ranges[t->nranges - 1].count += count;
        return PLANK_OK;
    }
    if (t->nranges == *cap) {
        int64_t nc = *cap ? 2 * *cap : 16;
        plank_row_range *r = realloc(t->ranges, (size_t)nc * sizeof *r);
        if (!r) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        t->ranges = r;
        *cap = nc;
    }
    t->ranges[t->nranges].first = first;
    t->ranges[t->nranges].count = count;
    t->nranges++;
    return PLANK_OK;
}

/* The rows of orders row group g that may hold a key: none when the chunk
 * statistics exclude every key, else the pages whose bounds hold one (all
 * of the row group without a page index). Bounds that contradict themselves
 * are not used. */
static plank_status candidate_rows(q12_ctx *c, int32_t g, q12_otask *t, plank_error *err) {
    plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
    TQ_TRY(plank_reader_row_group(c->ok, g, &info, err));
    int64_t first = c->group_first[g], cap = 0;
    if (info.num_rows == 0 || c->nu == 0) return PLANK_OK;
    plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
    TQ_TRY(plank_reader_column_chunk(c->ok, g, c->okey_col, &ci, err));
    int64_t lo, hi;
    const plank_statistics *s = &ci.statistics;
    if (ci.has_statistics && s->has_min && s->has_max && bound_value(s->min, s->min_len, &lo) &&
        bound_value(s->max, s->max_len, &hi) && lo <= hi && !keys_in(c, lo, hi))
        return PLANK_OK;
    plank_offset_index *oi = NULL;
    plank_column_index *cx = NULL;
    plank_status st = plank_reader_offset_index(c->ok, g, c->okey_col, &oi, err);
    if (st == PLANK_OK && oi) st = plank_reader_column_index(c->ok, g, c->okey_col, &cx, err);
    if (st == PLANK_OK && oi && cx && cx->num_pages == oi->num_pages) {
        for (int32_t p = 0; p < oi->num_pages && st == PLANK_OK; p++) {
            int64_t pf = oi->pages[p].first_row_index;
            int64_t pe = p + 1 < oi->num_pages ? oi->pages[p + 1].first_row_index : info.num_rows;
            if (pf < 0 || pe > info.num_rows || pe < pf) {
                /* A broken offset index: read the whole row group instead. */
                t->nranges = 0;
                st = push_range(t, first, info.num_rows, &cap, err);
                break;
            }
            if (cx->null_pages[p]) continue; /* only NULL keys: none joins */
            if (bound_value(cx->min_values[p], cx->min_lens[p], &lo) &&
                bound_value(cx->max_values[p], cx->max_lens[p], &hi) && lo <= hi &&
                !keys_in(c, lo, hi))
                continue;
            if (pe > pf) st = push_range(t, first + pf, pe - pf, &cap, err);
        }
    } else if (st == PLANK_OK) {
        st = push_range(t, first, info.num_rows, &cap, err);
    }
    plank_offset_index_free(oi);
    plank_column_index_free(cx);
    return st;
}

static plank_status push_hit(q12_otask *t, int64_t row, int64_t key, plank_error *err) {
    if (t->n == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 1024;
        q12_hit *h = realloc(t->h, (size_t)cap * sizeof *h);
        if (!h) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        t->h = h;
        t->cap = cap;
    }
    t->h[t->n].row = row;
    t->h[t->n].key = key;
    t->n++;
    return PLANK_OK;
}

typedef struct q12_keystate {
    q12_ctx *c;
    q12_otask *t;
    int64_t *vals;
    int64_t vcap;
} q12_keystate;

/* Moves the position in the read ranges k values on. */
static plank_status walk_ranges(q12_otask *t, int64_t k, plank_error *err) {
    while (k > 0) {
        if (t->range >= t->nranges)
            return tq_fail(err, PLANK_ERR_CORRUPT, "orders: more o_orderkey values than rows");
        int64_t left = t->ranges[t->range].count - t->in_range;
        if (k < left) {
            t->in_range += k;
            return PLANK_OK;
        }
        k -= left;
        t->range++;
        t->in_range = 0;
    }
    return PLANK_OK;
}

/* The file row of the value at the current position. */
static int64_t current_row(q12_otask *t) {
    while (t->range < t->nranges && t->in_range == t->ranges[t->range].count) {
        t->range++;
        t->in_range = 0;
    }
    return t->range < t->nranges ? t->ranges[t->range].first + t->in_range : -1;
}

static plank_status orderkey_batch(void *state, const struct ArrowSchema *schema,
                                   const struct ArrowArray *b, plank_error *err) {
    q12_keystate *ks = state;
    q12_ctx *c = ks->c;
    q12_otask *t = ks->t;
    tq_field fk;
    int32_t ik;
    TQ_TRY(tq_field_resolve(schema, "o_orderkey", TQ_INT, &fk, &ik, err));
    if (b->offset != 0) return tq_fail(err, PLANK_ERR_UNSUPPORTED, "batch with an offset");
    int64_t n = b->length;
    if (n > ks->vcap) {
        free(ks->vals);
        ks->vals = malloc((size_t)n * sizeof *ks->vals);
        ks->vcap = ks->vals ? n : 0;
        if (!ks->vals) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    const struct ArrowArray *a = b->children[ik];
    const int64_t *v = tq_decimals_view(&fk, a, n, ks->vals);
    const int64_t *u = c->u;
    int64_t nu = c->nu, j = t->cursor;
    /* Ascending values without NULLs (orders as dbgen writes it): the few
     * keys that fall in the batch are looked up by galloping through it,
     * instead of the batch being walked value by value. */
    bool asc = n > 0 && a->null_count == 0 && (!t->have_last || v[0] >= t->last);
    uint64_t desc = 0;
    for (int64_t i = 1; asc && i < n; i++) desc |= (uint64_t)(v[i] < v[i - 1]);
    if (asc && desc == 0) {
        int64_t p = 0, pos = 0; /* p: search position; pos: values the ranges walked */
        for (int64_t k = lower_bound(u, nu, v[0]); k < nu && u[k] <= v[n - 1]; k++) {
            int64_t step = 1;
            while (p + step < n && v[p + step] < u[k]) step *= 2;
            int64_t lo = p + step / 2, hi = p + step < n ? p + step : n - 1;
            while (lo < hi) { /* first position in [lo, hi] with v >= u[k] */
                int64_t mid = lo + (hi - lo) / 2;
                if (v[mid] < u[k]) lo = mid + 1;
                else hi = mid;
            }
            p = lo;
            for (; p < n && v[p] == u[k]; p++) {
                TQ_TRY(walk_ranges(t, p - pos, err));
                pos = p;
                TQ_TRY(push_hit(t, current_row(t), k, err));
            }
        }
        TQ_TRY(walk_ranges(t, n - pos, err));
        t->last = v[n - 1];
        t->have_last = true;
        return PLANK_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        /* the file row of this value */
        while (t->range < t->nranges && t->in_range == t->ranges[t->range].count) {
            t->range++;
            t->in_range = 0;
        }
        if (t->range >= t->nranges)
            return tq_fail(err, PLANK_ERR_CORRUPT, "orders: more o_orderkey values than rows");
        int64_t row = t->ranges[t->range].first + t->in_range++;
        if (!tq_valid(a, i)) continue;
        int64_t val = v[i];
        if (!t->have_last || val < t->last) j = lower_bound(u, nu, val);
        else
            while (j < nu && u[j] < val) j++;
        t->last = val;
        t->have_last = true;
        if (j < nu && u[j] == val) TQ_TRY(push_hit(t, row, j, err));
    }
    t->cursor = j;
    return PLANK_OK;
}

static plank_status orders_key_task(void *ctx, int32_t worker, int32_t task, plank_error *err) {
    (void)worker;
    q12_ctx *c = ctx;
    q12_otask *t = &c->ot[task];
    TQ_TRY(candidate_rows(c, task, t, err));
    if (t->nranges == 0) return PLANK_OK;
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = 1; /* called from the query's own tasks */
    struct ArrowArrayStream s;
    TQ_TRY(plank_reader_arrow_stream_rows(c->ok, t->ranges, t->nranges, &ao, &s, err));
    q12_keystate ks = {c, t, NULL, 0};
    plank_status st = tq_drain(&s, orderkey_batch, &ks, err);
    free(ks.vals);
    return st;
}

typedef struct q12_prio {
    q12_ctx *c;
    q12_otask *t;
    int8_t small[1024];
} q12_prio;

/* 1 high, 0 low, -1 NULL. */
static int8_t classify(const uint8_t *p, int32_t len) {
    if ((len == 8 && memcmp(p, "1-URGENT", 8) == 0) || (len == 6 && memcmp(p, "2-HIGH", 6) == 0))
        return 1;
    return 0;
}

static void classify_strings(const struct ArrowArray *a, int64_t n, int8_t *out) {
    const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
    const uint8_t *data = a->buffers[2];
    for (int64_t i = 0; i < n; i++)
        out[i] = tq_valid(a, i) ? classify(data + off[i], off[i + 1] - off[i]) : -1;
}

static plank_status priority_batch(void *state, const struct ArrowSchema *schema,
                                   const struct ArrowArray *b, plank_error *err) {
    q12_prio *ps = state;
    q12_ctx *c = ps->c;
    q12_otask *t = ps->t;
    tq_field fp;
    int32_t ip;
    TQ_TRY(tq_field_resolve(schema, "o_orderpriority", TQ_STRING, &fp, &ip, err));
    if (b->offset != 0) return tq_fail(err, PLANK_ERR_UNSUPPORTED, "batch with an offset");
    int64_t n = b->length;
    if (t->next_hit + n > t->n)
        return tq_fail(err, PLANK_ERR_CORRUPT, "orders: more o_orderpriority values than rows");
    const struct ArrowArray *a = b->children[ip];
    int8_t *cls = malloc((size_t)n + 1);
    if (!cls) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (fp.dictionary) {
        const struct ArrowArray *d = a->dictionary;
        int8_t *map = d->length <= 1024 ? ps->small : malloc((size_t)d->length + 1);
        if (!map) {
            free(cls);
            return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        classify_strings(d, d->length, map);
        const int32_t *codes = (const int32_t *)a->buffers[1] + a->offset;
        for (int64_t i = 0; i < n; i++)
            cls[i] = tq_valid(a, i) && codes[i] >= 0 && codes[i] < d->length ? map[codes[i]] : -1;
        if (map != ps->small) free(map);
    } else {
        classify_strings(a, n, cls);
    }
    for (int64_t i = 0; i < n; i++) {
        const q12_hit *h = &t->h[t->next_hit++];
        for (int64_t k = c->ustart[h->key]; k < c->ustart[h->key + 1]; k++) {
            int32_t mode = c->m[k].mode;
            t->joined[mode]++;
            if (cls[i] >= 0) t->counts[mode][cls[i] ? 0 : 1]++;
        }
    }
    free(cls);
    return PLANK_OK;
}

static plank_status orders_priority_task(void *ctx, int32_t worker, int32_t task,
                                         plank_error *err) {
    (void)worker;
    q12_ctx *c = ctx;
    q12_otask *t = &c->ot[task];
    t->counts = calloc((size_t)c->nmodes + 1, sizeof *t->counts);
    t->joined = calloc((size_t)c->nmodes + 1, sizeof *t->joined);
    if (!t->counts || !t->joined) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (t->n == 0) return PLANK_OK;
    /* The hits' rows as ranges (ascending: the ranges were, and values came in order). */
    plank_row_range *rr = malloc((size_t)t->n * sizeof *rr);
    if (!rr) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    int64_t nr = 0;
    for (int64_t i = 0; i < t->n; i++) {
        if (nr && rr[nr - 1].first + rr[nr - 1].count == t->h[i].row) rr[nr - 1].count++;
        else rr[nr].first = t->h[i].row, rr[nr].count = 1, nr++;
    }
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = 1; /* called from the query's own tasks */
    ao.dictionary_arrays = true;
    struct ArrowArrayStream s;
    plank_status st = plank_reader_arrow_stream_rows(c->op, rr, nr, &ao, &s, err);
    free(rr);
    if (st != PLANK_OK) return st;
    q12_prio ps = {.c = c, .t = t};
    st = tq_drain(&s, priority_batch, &ps, err);
    if (st == PLANK_OK && t->next_hit != t->n)
        st = tq_fail(err, PLANK_ERR_CORRUPT, "orders: fewer o_orderpriority values than rows");
    return st;
}

static int match_cmp(const void *x, const void *y) {
    const q12_match *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

typedef struct q12_mode {
    const char *s;
    uint32_t len;
    int64_t high, low, joined;
} q12_mode;

static int mode_cmp(const void *x, const void *y) {
    const q12_mode *a = x, *b = y;
    int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

plank_status tq_q12(const char *dir, const tq_options *o, tq_answer *out, plank_error *err) {
    q12_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    plank_expr *filter = NULL;
    q12_match *all = NULL;
    int64_t *u = NULL, *ustart = NULL;
    tq_strset modes;
    tq_strset_init(&modes);
    int32_t nlg = 0, nog = 0;
    plank_status st = tq_open(dir, "lineitem", o, NULL, 0, &c.lr, err);
    if (st == PLANK_OK) st = plank_expr_parse(Q12_FILTER, NULL, &filter, err);
    c.filter = filter;
    if (st == PLANK_OK) {
        nlg = tq_tasks(o->threads, plank_reader_num_row_groups(c.lr));
        c.lt = calloc((size_t)nlg + 1, sizeof *c.lt);
        if (!c.lt) st = tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        for (int32_t g = 0; c.lt && g < nlg; g++) tq_strset_init(&c.lt[g].modes);
    }
    if (st == PLANK_OK)
        st = tq_scan_blocks(c.lr, filter, Q12_LCOLS, 2, o->threads, lineitem_batch, c.lt,
                            sizeof *c.lt, err);
    /* Step 2: the matches in row-group order, modes made global, sorted by key. */
    int64_t nm = 0;
    for (int32_t g = 0; st == PLANK_OK && g < nlg; g++) nm += c.lt[g].n;
    if (st == PLANK_OK) {
        all = malloc((size_t)nm * sizeof *all + 1);
        if (!all) st = tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int64_t k = 0;
    bool sorted = true;
    for (int32_t g = 0; st == PLANK_OK && g < nlg; g++) {
        q12_ltask *t = &c.lt[g];
        int32_t map[TQ_STRSET_MAX];
        for (int32_t i = 0; i < t->modes.n; i++) {
            uint32_t len;
            const char *s = tq_strset_str(&t->modes, i, &len);
            map[i] = tq_strset_id(&modes, (const uint8_t *)s, len);
            if (map[i] < 0) st = tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (int64_t i = 0; st == PLANK_OK && i < t->n; i++, k++) {
            all[k].key = t->m[i].key;
            all[k].mode = map[t->m[i].mode];
            if (k && all[k].key < all[k - 1].key) sorted = false;
        }
    }
    if (st == PLANK_OK && !sorted) qsort(all, (size_t)nm, sizeof *all, match_cmp);
    int64_t nu = 0;
    if (st == PLANK_OK) {
        u = malloc((size_t)nm * sizeof *u + 1);
        ustart = malloc((size_t)(nm + 1) * sizeof *ustart);
        if (!u || !ustart) st = tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        for (int64_t i = 0; st == PLANK_OK && i < nm; i++)
            if (i == 0 || all[i].key != all[i - 1].key) {
                u[nu] = all[i].key;
                ustart[nu++] = i;
            }
        if (ustart) ustart[nu] = nm;
    }
    c.m = all;
    c.nm = nm;
    c.u = u;
    c.ustart = ustart;
    c.nu = nu;
    c.nmodes = modes.n;
    /* Steps 3 and 4 over orders (skipped when nothing matched). */
    if (st == PLANK_OK && nu > 0) {
        static const char *const kcol[] = {"o_orderkey"}, *const pcol[] = {"o_orderpriority"};
        st = tq_open(dir, "orders", o, kcol, 1, &c.ok, err);
        if (st == PLANK_OK) st = tq_open(dir, "orders", o, pcol, 1, &c.op, err);
        if (st == PLANK_OK) {
            c.okey_col = plank_reader_find_column(c.ok, "o_orderkey");
            nog = plank_reader_num_row_groups(c.ok);
            if (nog != plank_reader_num_row_groups(c.op))
                st = tq_fail(err, PLANK_ERR_IO, "orders changed between two opens");
        }
        if (st == PLANK_OK) {
            c.ot = calloc((size_t)nog + 1, sizeof *c.ot);
            c.group_first = calloc((size_t)nog + 1, sizeof *c.group_first);
            if (!c.ot || !c.group_first) st = tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (int32_t g = 0; st == PLANK_OK && g < nog; g++) {
            plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
            st = plank_reader_row_group(c.ok, g, &info, err);
            c.group_first[g + 1] = c.group_first[g] + info.num_rows;
        }
        if (st == PLANK_OK) st = tq_parallel(o->threads, nog, orders_key_task, &c, err);
        if (st == PLANK_OK) st = tq_parallel(o->threads, nog, orders_priority_task, &c, err);
    }
    if (st == PLANK_OK) {
        q12_mode res[TQ_STRSET_MAX];
        int32_t nres = 0;
        for (int32_t i = 0; i < modes.n; i++) {
            q12_mode *r = &res[nres];
            memset(r, 0, sizeof *r);
            r->s = tq_strset_str(&modes, i, &r->len);
            for (int32_t g = 0; g < nog; g++) {
                r->high += c.ot[g].counts[i][0];
                r->low += c.ot[g].counts[i][1];
                r->joined += c.ot[g].joined[i];
            }
            if (r->joined > 0) nres++;
        }
        qsort(res, (size_t)nres, sizeof *res, mode_cmp);
        tq_text t = {0};
        tq_text_printf(&t, "l_shipmode|high_line_count|low_line_count\n");
        for (int32_t i = 0; i < nres; i++)
            tq_text_printf(&t, "%.*s|%lld|%lld\n", (int)res[i].len, res[i].s,
                           (long long)res[i].high, (long long)res[i].low);
        st = tq_text_finish(&t, out, err);
    }
    for (int32_t g = 0; c.lt && g < nlg; g++) {
        free(c.lt[g].m);
        free(c.lt[g].keys);
        free(c.lt[g].ids);
        tq_strset_free(&c.lt[g].modes);
    }
    free(c.lt);
    for (int32_t g = 0; c.ot && g < nog; g++) {
        free(c.ot[g].h);
        free(c.ot[g].ranges);
        free(c.ot[g].counts);
        free(c.ot[g].joined);
    }
    free(c.ot);
    free(c.group_first);
    free(all);
    free(u);
    free(ustart);
    tq_strset_free(&modes);
    plank_expr_free(filter);
    plank_reader_close(c.lr);
    plank_reader_close(c.ok);
    plank_reader_close(c.op);
    return st;
}
