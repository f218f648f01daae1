/*
 * tq_q6.c: TPC-H Q6 (forecasting revenue change), validation parameters:
 *
 *   SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
 *   WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
 *     AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24
 *
 * The whole WHERE clause goes to the scan; only the surviving rows of the
 * two summed columns come back.
 */
#include <stdlib.h>
#include <string.h>

#include "tq_internal.h"

static const char *const Q6_FILTER =
    "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' "
    "AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24";

typedef struct q6_worker {
    tq_i128 sum;
    int32_t scale;       /* of sum: price's plus discount's; -1 before the first batch */
    bool any;            /* a non-NULL product was summed */
    int64_t *p, *d;      /* one batch of values */
    int64_t cap;
} q6_worker;

static plank_status q6_batch(void *state, const struct ArrowSchema *schema,
                             const struct ArrowArray *b, plank_error *err) {
    q6_worker *w = state;
    tq_field fp, fd;
    int32_t ip, id;
    TQ_TRY(tq_field_resolve(schema, "l_extendedprice", TQ_DECIMAL, &fp, &ip, err));
    TQ_TRY(tq_field_resolve(schema, "l_discount", TQ_DECIMAL, &fd, &id, err));
    if (b->offset != 0) return tq_fail(err, PLANK_ERR_UNSUPPORTED, "batch with an offset");
    int64_t n = b->length;
    if (n > w->cap) {
        free(w->p);
        free(w->d);
        w->p = malloc((size_t)n * sizeof *w->p);
        w->d = malloc((size_t)n * sizeof *w->d);
        w->cap = n;
        if (!w->p || !w->d) {
            w->cap = 0;
            return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    w->scale = fp.scale + fd.scale;
    const struct ArrowArray *ap = b->children[ip], *ad = b->children[id];
    const int64_t *vp = tq_decimals_view(&fp, ap, n, w->p);
    const int64_t *vd = tq_decimals_view(&fd, ad, n, w->d);
    tq_i128 sum = 0;
    if (ap->null_count == 0 && ad->null_count == 0) {
        for (int64_t i = 0; i < n; i++) sum += (tq_i128)vp[i] * vd[i];
        if (n) w->any = true;
    } else {
        for (int64_t i = 0; i < n; i++)
            if (tq_valid(ap, i) && tq_valid(ad, i)) {
                sum += (tq_i128)vp[i] * vd[i];
                w->any = true;
            }
    }
    w->sum += sum;
    return PLANK_OK;
}

static const char *const Q6_COLS[] = {"l_extendedprice", "l_discount"};

plank_status tq_q6(const char *dir, const tq_options *o, tq_answer *out, plank_error *err) {
    plank_reader *r = NULL;
    plank_expr *filter = NULL;
    q6_worker *w = calloc((size_t)o->threads, sizeof *w);
    if (!w) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    plank_status st = tq_open(dir, "lineitem", o, NULL, 0, &r, err);
    if (st == PLANK_OK) st = plank_expr_parse(Q6_FILTER, NULL, &filter, err);
    if (st == PLANK_OK) {
        st = tq_scan_blocks(r, filter, Q6_COLS, 2, o->threads, q6_batch, w, sizeof *w, err);
    }
    if (st == PLANK_OK) {
        tq_i128 sum = 0;
        int32_t scale = -1;
        bool any = false;
        for (int32_t i = 0; i < o->threads; i++) {
            if (!w[i].any) continue;
            /* Every batch of one file has the same scale. */
            scale = w[i].scale;
            sum += w[i].sum;
            any = true;
        }
        tq_text t = {0};
        tq_text_printf(&t, "revenue\n");
        if (any) tq_text_decimal(&t, sum, scale);
        else tq_text_printf(&t, "NULL");
        tq_text_printf(&t, "\n");
        st = tq_text_finish(&t, out, err);
    }
    for (int32_t i = 0; i < o->threads; i++) {
        free(w[i].p);
        free(w[i].d);
    }
    free(w);
    plank_expr_free(filter);
    plank_reader_close(r);
    return st;
}
