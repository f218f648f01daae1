/*
 * tq_common.c: the pieces the TPC-H queries share (see tq_internal.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tq_internal.h"

plank_status tq_fail(plank_error *err, plank_status st, const char *fmt, ...) {
    if (err) {
        err->code = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return st;
}

void tq_options_init(tq_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->memory_map = false;
}

int tq_query_from_name(const char *name) {
    if (!name) return 0;
    if (strcasecmp(name, "q1") == 0) return TQ_Q1;
    if (strcasecmp(name, "q6") == 0) return TQ_Q6;
    if (strcasecmp(name, "q12") == 0) return TQ_Q12;
    return 0;
}

plank_status tq_run(tq_query q, const char *dir, const tq_options *o, tq_answer *out,
                    plank_error *err) {
    plank_error_init(err);
    if (!out || !dir) return tq_fail(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    out->text = NULL;
    out->len = 0;
    tq_options opt;
    tq_options_init(&opt);
    if (o) opt = *o;
    if (opt.threads <= 0) opt.threads = 1;
    switch (q) {
    case TQ_Q1: return tq_q1(dir, &opt, out, err);
    case TQ_Q6: return tq_q6(dir, &opt, out, err);
    case TQ_Q12: return tq_q12(dir, &opt, out, err);
    }
    return tq_fail(err, PLANK_ERR_INVALID_ARGUMENT, "unknown query %d", (int)q);
}

/* ---- Answer text ------------------------------------------------------------------- */

static bool text_reserve(tq_text *t, size_t more) {
    if (t->oom) return false;
    if (t->len + more + 1 <= t->cap) return true;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + more + 1) cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) {
        t->oom = true;
        return false;
    }
    t->p = p;
    t->cap = cap;
    return true;
}

void tq_text_printf(tq_text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !text_reserve(t, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static tq_i128 pow10_i128(int32_t k) {
    tq_i128 p = 1;
    while (k-- > 0) p *= 10;
    return p;
}

/* round(num / den) half away from zero, den > 0. */
static tq_i128 div_round(tq_i128 num, tq_i128 den) {
    bool neg = num < 0;
    tq_i128 a = neg ? -num : num;
    tq_i128 q = a / den, r = a % den;
    if (2 * r >= den) q++;
    return neg ? -q : q;
}

/* v hundredths as text. */
static void text_cents(tq_text *t, tq_i128 v) {
    bool neg = v < 0;
    if (neg) v = -v;
    char digits[48];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v > 0 || n < 3);
    if (!text_reserve(t, (size_t)n + 2)) return;
    if (neg) t->p[t->len++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        t->p[t->len++] = digits[i];
        if (i == 2) t->p[t->len++] = '.';
    }
    t->p[t->len] = 0;
}

void tq_text_decimal(tq_text *t, tq_i128 v, int32_t scale) {
    if (scale > 2) v = div_round(v, pow10_i128(scale - 2));
    else v *= pow10_i128(2 - scale);
    text_cents(t, v);
}

void tq_text_average(tq_text *t, tq_i128 v, int32_t scale, int64_t den) {
    if (den <= 0) {
        tq_text_printf(t, "NULL");
        return;
    }
    /* hundredths = v * 10^(2 - scale) / den */
    if (scale > 2) text_cents(t, div_round(v, pow10_i128(scale - 2) * den));
    else text_cents(t, div_round(v * pow10_i128(2 - scale), den));
}

plank_status tq_text_finish(tq_text *t, tq_answer *out, plank_error *err) {
    if (t->oom || !text_reserve(t, 0)) {
        free(t->p);
        t->p = NULL;
        return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory (answer text)");
    }
    t->p[t->len] = 0;
    out->text = t->p;
    out->len = t->len;
    t->p = NULL;
    return PLANK_OK;
}

/* ---- Files --------------------------------------------------------------------------- */

plank_status tq_open(const char *dir, const char *name, const tq_options *o,
                     const char *const *columns, int32_t ncols, plank_reader **out,
                     plank_error *err) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s.parquet", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return tq_fail(err, PLANK_ERR_INVALID_ARGUMENT, "%s: path too long", dir);
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.memory_map = o->memory_map;
    ro.verify_checksums = o->verify_checksums;
    plank_status st = plank_reader_open_path(out, path, &ro, err);
    if (st != PLANK_OK || ncols <= 0) goto done;
    int32_t idx[64];
    if (ncols > 64) {
        plank_reader_close(*out);
        *out = NULL;
        return tq_fail(err, PLANK_ERR_INVALID_ARGUMENT, "too many columns");
    }
    for (int32_t i = 0; i < ncols; i++) {
        idx[i] = plank_reader_find_column(*out, columns[i]);
        if (idx[i] < 0) {
            plank_reader_close(*out);
            *out = NULL;
            return tq_fail(err, PLANK_ERR_INVALID_ARGUMENT, "%s: no column %s", path,
                           columns[i]);
        }
    }
    plank_reader_close(*out);
    *out = NULL;
    ro.columns = idx;
    ro.num_columns = ncols;
    st = plank_reader_open_path(out, path, &ro, err);
done:
    if (st != PLANK_OK && err && !strstr(err->message, path)) {
        char msg[PLANK_ERROR_MESSAGE_SIZE];
        snprintf(msg, sizeof msg, "%.200s: %.300s", path, err->message);
        memcpy(err->message, msg, sizeof msg);
    }
    return st;
}

/* ---- Batch columns ------------------------------------------------------------------- */

plank_status tq_field_resolve(const struct ArrowSchema *schema, const char *name, tq_kind kind,
                              tq_field *f, int32_t *index, plank_error *err) {
    memset(f, 0, sizeof *f);
    f->kind = kind;
    const struct ArrowSchema *c = NULL;
    for (int64_t i = 0; i < schema->n_children; i++)
        if (schema->children[i]->name && strcmp(schema->children[i]->name, name) == 0) {
            c = schema->children[i];
            *index = (int32_t)i;
        }
    if (!c) return tq_fail(err, PLANK_ERR_INVALID_ARGUMENT, "no column %s", name);
    const char *fmt = c->format;
    switch (kind) {
    case TQ_DECIMAL: {
        int p = 0, s = 0, bits = 128;
        if (sscanf(fmt, "d:%d,%d,%d", &p, &s, &bits) >= 2 && fmt[0] == 'd') {
            if ((bits != 128 && bits != 64 && bits != 32) || p > 18 || s < 0 || s > 18)
                return tq_fail(err, PLANK_ERR_UNSUPPORTED,
                               "column %s: decimal %s needs more than 64 bits", name, fmt);
            f->scale = s;
            f->width = bits / 8;
            return PLANK_OK;
        }
        if (strcmp(fmt, "l") == 0 || strcmp(fmt, "i") == 0) {
            f->width = fmt[0] == 'l' ? 8 : 4;
            return PLANK_OK;
        }
        break;
    }
    case TQ_DATE:
        if (strcmp(fmt, "tdD") == 0) return PLANK_OK;
        break;
    case TQ_INT:
        if (strcmp(fmt, "l") == 0 || strcmp(fmt, "i") == 0) {
            f->width = fmt[0] == 'l' ? 8 : 4;
            return PLANK_OK;
        }
        break;
    case TQ_STRING:
        if (c->dictionary && strcmp(fmt, "i") == 0 &&
            (strcmp(c->dictionary->format, "u") == 0 || strcmp(c->dictionary->format, "z") == 0)) {
            f->dictionary = true;
            return PLANK_OK;
        }
        if (!c->dictionary && (strcmp(fmt, "u") == 0 || strcmp(fmt, "z") == 0)) return PLANK_OK;
        break;
    }
    static const char *const want[] = {"a decimal", "a date", "an integer", "a string"};
    return tq_fail(err, PLANK_ERR_UNSUPPORTED, "column %s: expected %s, the file has Arrow type %s",
                   name, want[kind], fmt);
}

const int64_t *tq_decimals_view(const tq_field *f, const struct ArrowArray *a, int64_t n,
                                int64_t *scratch) {
    if (f->width == 8) return (const int64_t *)a->buffers[1] + a->offset;
    tq_decimals(f, a, n, scratch);
    return scratch;
}

void tq_decimals(const tq_field *f, const struct ArrowArray *a, int64_t n, int64_t *out) {
    if (f->width == 16) {
        /* The low word of each little-endian decimal128: precision <= 18
         * guarantees the value fits it. */
        const int64_t *v = (const int64_t *)a->buffers[1] + 2 * a->offset;
        for (int64_t i = 0; i < n; i++) out[i] = v[2 * i];
    } else if (f->width == 8) {
        memcpy(out, (const int64_t *)a->buffers[1] + a->offset, (size_t)n * sizeof *out);
    } else {
        const int32_t *v = (const int32_t *)a->buffers[1] + a->offset;
        for (int64_t i = 0; i < n; i++) out[i] = v[i];
    }
}

void tq_strset_init(tq_strset *s) {
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 256; i++) s->byte1[i] = -1;
}

void tq_strset_free(tq_strset *s) {
    free(s->bytes);
    s->bytes = NULL;
}

int32_t tq_strset_id(tq_strset *s, const uint8_t *p, uint32_t len) {
    if (len == 1 && s->byte1[p[0]] >= 0) return s->byte1[p[0]];
    for (int32_t i = 0; i < s->n; i++)
        if (s->len[i] == len && memcmp(s->bytes + s->off[i], p, len) == 0) return i;
    if (s->n == TQ_STRSET_MAX) return -1;
    if (s->nbytes + len > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        while (cap < s->nbytes + len) cap *= 2;
        char *b = realloc(s->bytes, cap);
        if (!b) return -1;
        s->bytes = b;
        s->cap = cap;
    }
    if (len) memcpy(s->bytes + s->nbytes, p, len);
    s->off[s->n] = (uint32_t)s->nbytes;
    s->len[s->n] = len;
    s->nbytes += len;
    if (len == 1) s->byte1[p[0]] = (int16_t)s->n;
    return s->n++;
}

/* The ids of rows [first, first + n) of a string array (offsets "u"/"z"). */
static bool string_rows(const struct ArrowArray *a, int64_t n, tq_strset *s, int16_t *ids) {
    const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
    const uint8_t *data = a->buffers[2];
    for (int64_t i = 0; i < n; i++) {
        if (!tq_valid(a, i)) {
            ids[i] = -1;
            continue;
        }
        uint32_t len = (uint32_t)(off[i + 1] - off[i]);
        const uint8_t *p = data + off[i];
        int32_t id = len == 1 && s->byte1[p[0]] >= 0 ? s->byte1[p[0]] : tq_strset_id(s, p, len);
        if (id < 0) return false;
        ids[i] = (int16_t)id;
    }
    return true;
}

plank_status tq_string_ids(const tq_field *f, const struct ArrowArray *a, int64_t n,
                           tq_strset *s, int16_t *ids, const char *column, plank_error *err) {
    if (!f->dictionary) {
        if (!string_rows(a, n, s, ids)) goto full;
        return PLANK_OK;
    }
    const struct ArrowArray *d = a->dictionary;
    int16_t small[1024];
    int16_t *map = d->length <= 1024 ? small : malloc((size_t)d->length * sizeof *map);
    if (!map) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    bool ok = string_rows(d, d->length, s, map);
    if (ok) {
        const int32_t *codes = (const int32_t *)a->buffers[1] + a->offset;
        for (int64_t i = 0; i < n; i++) {
            if (!tq_valid(a, i)) {
                ids[i] = -1;
                continue;
            }
            int32_t c = codes[i];
            ids[i] = c >= 0 && c < d->length ? map[c] : -1;
        }
    }
    if (map != small) free(map);
    if (ok) return PLANK_OK;
full:
    return tq_fail(err, PLANK_ERR_UNSUPPORTED, "column %s: more than %d distinct values",
                   column, TQ_STRSET_MAX);
}

/* ---- Scans and the parallel runner ------------------------------------------------------- */

plank_status tq_drain(struct ArrowArrayStream *st, tq_batch_fn fn, void *state,
                      plank_error *err) {
    struct ArrowSchema schema;
    plank_status status = PLANK_OK;
    int rc = st->get_schema(st, &schema);
    if (rc != 0) {
        const char *m = st->get_last_error(st);
        status = tq_fail(err, PLANK_ERR_IO, "%s", m ? m : "the stream's schema failed");
        st->release(st);
        return status;
    }
    for (;;) {
        struct ArrowArray a;
        rc = st->get_next(st, &a);
        if (rc != 0) {
            const char *m = st->get_last_error(st);
            status = tq_fail(err,
                             rc == ENOMEM   ? PLANK_ERR_OUT_OF_MEMORY
                             : rc == ENOSYS ? PLANK_ERR_UNSUPPORTED
                                            : PLANK_ERR_IO,
                             "%s", m ? m : "reading a batch failed");
            break;
        }
        if (!a.release) break;
        status = fn(state, &schema, &a, err);
        a.release(&a);
        if (status != PLANK_OK) break;
    }
    schema.release(&schema);
    st->release(st);
    return status;
}

int32_t tq_tasks(int32_t threads, int32_t row_groups) {
    return threads < row_groups ? threads : row_groups;
}

void tq_block(int32_t row_groups, int32_t tasks, int32_t t, int32_t *first, int32_t *count) {
    int64_t a = (int64_t)row_groups * t / tasks, b = (int64_t)row_groups * (t + 1) / tasks;
    *first = (int32_t)a;
    *count = (int32_t)(b - a);
}

plank_status tq_scan_groups(plank_reader *r, const plank_expr *filter,
                            const char *const *columns, int32_t ncols, int32_t first,
                            int32_t count, tq_batch_fn fn, void *state, plank_error *err) {
    if (count <= 0) return PLANK_OK;
    int32_t *g = malloc((size_t)count * sizeof *g);
    if (!g) return tq_fail(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < count; i++) g[i] = first + i;
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.dictionary_arrays = true;
    ao.narrow_decimals = true; /* INT64 decimals as they are stored */
    ao.threads = 1;            /* the queries spread row groups over threads themselves */
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = filter;
    so.columns = columns;
    so.num_columns = ncols;
    so.arrow = &ao;
    so.row_groups = g;
    so.num_row_groups = count;
    plank_scan *s;
    plank_status st = plank_scan_open(&s, r, &so, err);
    free(g);
    if (st != PLANK_OK) return st;
    struct ArrowArrayStream stream;
    st = plank_scan_arrow_stream(s, &stream, err);
    plank_scan_close(s);
    if (st != PLANK_OK) return st;
    return tq_drain(&stream, fn, state, err);
}

typedef struct tq_block_scan {
    plank_reader *r;
    const plank_expr *filter;
    const char *const *columns;
    int32_t ncols, ntasks;
    tq_batch_fn fn;
    char *states;
    size_t state_size;
} tq_block_scan;

static plank_status block_task(void *ctx, int32_t worker, int32_t task, plank_error *err) {
    (void)worker;
    const tq_block_scan *b = ctx;
    int32_t first, count;
    tq_block(plank_reader_num_row_groups(b->r), b->ntasks, task, &first, &count);
    return tq_scan_groups(b->r, b->filter, b->columns, b->ncols, first, count, b->fn,
                          b->states + (size_t)task * b->state_size, err);
}

plank_status tq_scan_blocks(plank_reader *r, const plank_expr *filter,
                            const char *const *columns, int32_t ncols, int32_t threads,
                            tq_batch_fn fn, void *states, size_t state_size, plank_error *err) {
    tq_block_scan b = {r, filter, columns, ncols,
                       tq_tasks(threads, plank_reader_num_row_groups(r)), fn, states,
                       state_size};
    return tq_parallel(threads, b.ntasks, block_task, &b, err);
}

typedef struct tq_pool {
    tq_task_fn fn;
    void *ctx;
    int32_t ntasks;
    atomic_int next;
    atomic_bool failed;
    pthread_mutex_t lock;
    plank_status status;
    plank_error err;
} tq_pool;

typedef struct tq_worker {
    tq_pool *pool;
    int32_t id;
} tq_worker;

static void *worker_main(void *arg) {
    tq_worker *w = arg;
    tq_pool *p = w->pool;
    for (;;) {
        if (atomic_load(&p->failed)) break;
        int32_t t = atomic_fetch_add(&p->next, 1);
        if (t >= p->ntasks) break;
        plank_error e;
        plank_error_init(&e);
        plank_status st = p->fn(p->ctx, w->id, t, &e);
        if (st != PLANK_OK) {
            pthread_mutex_lock(&p->lock);
            if (p->status == PLANK_OK) {
                p->status = st;
                p->err = e;
            }
            pthread_mutex_unlock(&p->lock);
            atomic_store(&p->failed, true);
            break;
        }
    }
    return NULL;
}

plank_status tq_parallel(int32_t threads, int32_t ntasks, tq_task_fn fn, void *ctx,
                         plank_error *err) {
    tq_pool p;
    memset(&p, 0, sizeof p);
    p.fn = fn;
    p.ctx = ctx;
    p.ntasks = ntasks;
    atomic_init(&p.next, 0);
    atomic_init(&p.failed, false);
    pthread_mutex_init(&p.lock, NULL);
    if (threads > ntasks) threads = ntasks;
    if (threads < 1) threads = 1;
    tq_worker w[64];
    pthread_t tid[64];
    if (threads > 64) threads = 64;
    int32_t started = 0;
    for (int32_t i = 1; i < threads; i++) {
        w[i].pool = &p;
        w[i].id = i;
        if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0) break;
        started = i;
    }
    w[0].pool = &p;
    w[0].id = 0;
    worker_main(&w[0]);
    for (int32_t i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.lock);
    if (p.status != PLANK_OK && err) *err = p.err;
    return p.status;
}
