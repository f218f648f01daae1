/*
 * tq_q1.c: TPC-H Q1 (pricing summary report), validation parameter DELTA 90:
 *
 *   SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
 *     sum(l_extendedprice) AS sum_base_price,
 *     sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
 *     sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
 *     avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
 *     avg(l_discount) AS avg_disc, count(*) AS count_order
 *   FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
 *   GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus
 *
 * Nearly every row passes, so this measures the decode of the six projected
 * columns and the aggregation. Sums are exact: each batch's products are
 * summed in int64 when a bound from the batch's largest magnitudes proves
 * they cannot overflow (always, for TPC-H values), in int128 otherwise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tq_internal.h"

static const char *const Q1_FILTER = "l_shipdate <= DATE '1998-09-02'";
static const char *const Q1_COLS[] = {"l_returnflag", "l_linestatus", "l_quantity",
                                      "l_extendedprice", "l_discount", "l_tax"};

typedef struct q1_group {
    int32_t rf, ls;        /* ids in the worker's string sets */
    tq_i128 qty, price, disc, disc_price, charge;
    int64_t count;
} q1_group;

typedef struct q1_worker {
    tq_strset rf, ls;
    int16_t *grid;         /* rf id * TQ_STRSET_MAX + ls id -> group, -1 */
    q1_group *g;
    int32_t ng, gcap;
    int32_t sq, sp, sd, st; /* scales, from the schema */
    bool have_scales;
    int64_t cap;
    int64_t *q, *p, *d, *t;
    int16_t *rid, *lid, *gid;
} q1_worker;

static plank_status grow(q1_worker *w, int64_t n, plank_error *err) {
    if (n <= w->cap) return PLANK_OK;
    int64_t **v[] = {&w->q, &w->p, &w->d, &w->t};
    for (int i = 0; i < 4; i++) {
        free(*v[i]);
        *v[i] = malloc((size_t)n * sizeof(int64_t));
    }
    int16_t **s[] = {&w->rid, &w->lid, &w->gid};
    for (int i = 0; i < 3; i++) {
        free(*s[i]);
        *s[i] = malloc((size_t)n * sizeof(int16_t));
    }
    w->cap = n;
    if (!w->q || !w->p || !w->d || !w->t || !w->rid || !w->lid || !w->gid) {
        w->cap = 0;
        return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return PLANK_OK;
}

/* An upper bound of the largest |v[i]|: the OR of the values' ones'
 * complement magnitudes (|v| for v >= 0, |v| - 1 below 0), plus one; at
 * most twice the largest. An OR carries no compare from one value to the
 * next, so the compiler vectorises it, where a maximum of int64 values was
 * a chain of conditional moves (a third of Q1's batch time). */
static double abs_bound(const int64_t *v, int64_t n) {
    uint64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)v[i];
        o |= x ^ (0 - (x >> 63));
    }
    return (double)o + 1.0;
}

static int64_t pow10_i64(int32_t k) {
    int64_t p = 1;
    while (k-- > 0) p *= 10;
    return p;
}

/* The group of each row: ids into the grid, new groups appended. */
static plank_status assign_groups(q1_worker *w, int64_t n, plank_error *err) {
    if (!w->grid) {
        w->grid = malloc((size_t)TQ_STRSET_MAX * TQ_STRSET_MAX * sizeof *w->grid);
        if (!w->grid) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        memset(w->grid, 0xff, (size_t)TQ_STRSET_MAX * TQ_STRSET_MAX * sizeof *w->grid);
    }
    for (int64_t i = 0; i < n; i++) {
        int32_t cell = w->rid[i] * TQ_STRSET_MAX + w->lid[i];
        int16_t g = w->grid[cell];
        if (g < 0) {
            if (w->ng == w->gcap) {
                int32_t cap = w->gcap ? 2 * w->gcap : 8;
                q1_group *ng = realloc(w->g, (size_t)cap * sizeof *ng);
                if (!ng) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
                w->g = ng;
                w->gcap = cap;
            }
            memset(&w->g[w->ng], 0, sizeof w->g[w->ng]);
            w->g[w->ng].rf = w->rid[i];
            w->g[w->ng].ls = w->lid[i];
            g = (int16_t)w->ng++;
            w->grid[cell] = g;
        }
        w->gid[i] = g;
    }
    return PLANK_OK;
}

/* Per-batch sums in int64, folded into the groups afterwards. */
typedef struct q1_small {
    int64_t qty, price, disc, disc_price, charge, count;
} q1_small;

static plank_status q1_batch(void *state, const struct ArrowSchema *schema,
                             const struct ArrowArray *b, plank_error *err) {
    q1_worker *w = state;
    tq_field f[6];
    int32_t ix[6];
    for (int k = 0; k < 6; k++)
        TQ_TRY(tq_field_resolve(schema, Q1_COLS[k], k < 2 ? TQ_STRING : TQ_DECIMAL, &f[k],
                                &ix[k], err));
    if (b->offset != 0) return tq_fail(err, PLANK_ERR_UNSUPPORTED, "batch with an offset");
    int64_t n = b->length;
    for (int k = 0; k < 6; k++)
        if (b->children[ix[k]]->null_count != 0)
            return tq_fail(err, PLANK_ERR_UNSUPPORTED,
                           "column %s holds NULLs (this plan of Q1 does not take them)",
                           Q1_COLS[k]);
    w->sq = f[2].scale;
    w->sp = f[3].scale;
    w->sd = f[4].scale;
    w->st = f[5].scale;
    w->have_scales = true;
    TQ_TRY(grow(w, n, err));
    TQ_TRY(tq_string_ids(&f[0], b->children[ix[0]], n, &w->rf, w->rid, Q1_COLS[0], err));
    TQ_TRY(tq_string_ids(&f[1], b->children[ix[1]], n, &w->ls, w->lid, Q1_COLS[1], err));
    TQ_TRY(assign_groups(w, n, err));
    const int64_t *vq = tq_decimals_view(&f[2], b->children[ix[2]], n, w->q);
    const int64_t *vp = tq_decimals_view(&f[3], b->children[ix[3]], n, w->p);
    const int64_t *vd = tq_decimals_view(&f[4], b->children[ix[4]], n, w->d);
    const int64_t *vt = tq_decimals_view(&f[5], b->children[ix[5]], n, w->t);
    const int64_t one_d = pow10_i64(w->sd), one_t = pow10_i64(w->st);
    /* The largest |charge| of a row is below mp * (one_d + md) * (one_t + mt);
     * n of them must stay below 2^63 for the int64 sums (the other sums are
     * smaller: |disc_price| <= that / 1, |price| etc. likewise bounded). */
    double mq = abs_bound(vq, n), mp = abs_bound(vp, n);
    double md = abs_bound(vd, n), mt = abs_bound(vt, n);
    double row = mp * ((double)one_d + md) * ((double)one_t + mt);
    double worst = fmax(fmax(row, mq), fmax(mp * ((double)one_d + md), md));
    const int16_t *gid = w->gid;
    if (worst * (double)n < 4e18) {
        /* Four copies of the sums, row i adding to copy i % 4: consecutive
         * rows of one group (most of them: four groups) no longer wait for
         * each other's stores to the same sums. */
        q1_small acc[4][64];
        int32_t ng = w->ng < 64 ? w->ng : 64;
        for (int u = 0; u < 4; u++) memset(acc[u], 0, (size_t)ng * sizeof acc[u][0]);
        if (w->ng <= 64) {
            for (int64_t i = 0; i < n; i++) {
                q1_small *a = &acc[i & 3][gid[i]];
                int64_t dp = vp[i] * (one_d - vd[i]);
                a->qty += vq[i];
                a->price += vp[i];
                a->disc += vd[i];
                a->disc_price += dp;
                a->charge += dp * (one_t + vt[i]);
                a->count++;
            }
            for (int32_t g = 0; g < ng; g++) {
                q1_group *G = &w->g[g];
                for (int u = 0; u < 4; u++) {
                    G->qty += acc[u][g].qty;
                    G->price += acc[u][g].price;
                    G->disc += acc[u][g].disc;
                    G->disc_price += acc[u][g].disc_price;
                    G->charge += acc[u][g].charge;
                    G->count += acc[u][g].count;
                }
            }
            return PLANK_OK;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        q1_group *G = &w->g[gid[i]];
        tq_i128 dp = (tq_i128)vp[i] * (one_d - vd[i]);
        G->qty += vq[i];
        G->price += vp[i];
        G->disc += vd[i];
        G->disc_price += dp;
        G->charge += dp * (one_t + vt[i]);
        G->count++;
    }
    return PLANK_OK;
}

/* A merged group: its key strings and sums. */
typedef struct q1_out {
    const char *rf, *ls;
    uint32_t rfl, lsl;
    q1_group s;
} q1_out;

static int bytes_cmp(const char *a, uint32_t al, const char *b, uint32_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static int out_cmp(const void *x, const void *y) {
    const q1_out *a = x, *b = y;
    int c = bytes_cmp(a->rf, a->rfl, b->rf, b->rfl);
    return c ? c : bytes_cmp(a->ls, a->lsl, b->ls, b->lsl);
}

plank_status tq_q1(const char *dir, const tq_options *o, tq_answer *out, plank_error *err) {
    plank_reader *r = NULL;
    plank_expr *filter = NULL;
    q1_out *res = NULL;
    int32_t nres = 0, cres = 0;
    q1_worker *w = calloc((size_t)o->threads, sizeof *w);
    if (!w) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < o->threads; i++) {
        tq_strset_init(&w[i].rf);
        tq_strset_init(&w[i].ls);
    }
    plank_status st = tq_open(dir, "lineitem", o, NULL, 0, &r, err);
    if (st == PLANK_OK) st = plank_expr_parse(Q1_FILTER, NULL, &filter, err);
    if (st == PLANK_OK) {
        st = tq_scan_blocks(r, filter, Q1_COLS, 6, o->threads, q1_batch, w, sizeof *w, err);
    }
    int32_t sq = 0, sp = 0, sd = 0, stx = 0;
    for (int32_t i = 0; st == PLANK_OK && i < o->threads; i++) {
        q1_worker *W = &w[i];
        if (W->have_scales) sq = W->sq, sp = W->sp, sd = W->sd, stx = W->st;
        for (int32_t g = 0; g < W->ng && st == PLANK_OK; g++) {
            q1_out k;
            k.rf = tq_strset_str(&W->rf, W->g[g].rf, &k.rfl);
            k.ls = tq_strset_str(&W->ls, W->g[g].ls, &k.lsl);
            int32_t j = 0;
            while (j < nres && out_cmp(&res[j], &k) != 0) j++;
            if (j == nres) {
                if (nres == cres) {
                    cres = cres ? 2 * cres : 8;
                    q1_out *nr = realloc(res, (size_t)cres * sizeof *nr);
                    if (!nr) {
                        st = tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
                        break;
                    }
                    res = nr;
                }
                memset(&res[nres], 0, sizeof res[nres]);
                res[nres].rf = k.rf, res[nres].rfl = k.rfl;
                res[nres].ls = k.ls, res[nres].lsl = k.lsl;
                nres++;
            }
            q1_group *a = &res[j].s, *b = &W->g[g];
            a->qty += b->qty;
            a->price += b->price;
            a->disc += b->disc;
            a->disc_price += b->disc_price;
            a->charge += b->charge;
            a->count += b->count;
        }
    }
    if (st == PLANK_OK) {
        qsort(res, (size_t)nres, sizeof *res, out_cmp);
        tq_text t = {0};
        tq_text_printf(&t, "l_returnflag|l_linestatus|sum_qty|sum_base_price|sum_disc_price|"
                           "sum_charge|avg_qty|avg_price|avg_disc|count_order\n");
        for (int32_t j = 0; j < nres; j++) {
            const q1_group *g = &res[j].s;
            tq_text_printf(&t, "%.*s|%.*s|", (int)res[j].rfl, res[j].rf, (int)res[j].lsl,
                           res[j].ls);
            tq_text_decimal(&t, g->qty, sq);
            tq_text_printf(&t, "|");
            tq_text_decimal(&t, g->price, sp);
            tq_text_printf(&t, "|");
            tq_text_decimal(&t, g->disc_price, sp + sd);
            tq_text_printf(&t, "|");
            tq_text_decimal(&t, g->charge, sp + sd + stx);
            tq_text_printf(&t, "|");
            tq_text_average(&t, g->qty, sq, g->count);
            tq_text_printf(&t, "|");
            tq_text_average(&t, g->price, sp, g->count);
            tq_text_printf(&t, "|");
            tq_text_average(&t, g->disc, sd, g->count);
            tq_text_printf(&t, "|%lld\n", (long long)g->count);
        }
        st = tq_text_finish(&t, out, err);
    }
    free(res);
    for (int32_t i = 0; i < o->threads; i++) {
        q1_worker *W = &w[i];
        tq_strset_free(&W->rf);
        tq_strset_free(&W->ls);
        free(W->grid);
        free(W->g);
        free(W->q), free(W->p), free(W->d), free(W->t);
        free(W->rid), free(W->lid), free(W->gid);
    }
    free(w);
    plank_expr_free(filter);
    plank_reader_close(r);
    return st;
}
