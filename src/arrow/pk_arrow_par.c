/*
 * pk_arrow_par.c: the parallel stream. N worker streams (each an ordinary
 * planned stream of this module, or a scan's) take units of work (row
 * groups) from one counter and decode them on an executor's threads; the
 * consumer's get_next hands the batches out in unit order (or as they are
 * ready, with any_order).
 *
 * Tasks: a task advances one worker stream by whole batches, queuing each
 * batch in the worker's FIFO, and returns when the worker may not produce
 * more (below). Only the consumer's thread submits and waits (the executor
 * contract: a handle is waited for by the thread that submitted it); tasks
 * never block, so the caller's pool never holds a thread that waits for
 * memory. On plank's own pool the consumer sleeps on a condition variable
 * that every queued batch signals; a caller's executor offers only
 * wait(handle), so there the consumer marks the task it needs (`wanted`),
 * which then returns after its next batch.
 *
 * Memory: a worker may produce while the batches queued in all workers are
 * fewer than batches_in_flight; the worker of the unit the consumer is at
 * (the head) may always produce, up to its own FIFO's capacity, because
 * the consumer drains it. Units are taken in increasing order, and a unit is
 * done only when its worker takes the next one, so the head unit is always
 * held by a worker that may produce: no wait can be for a batch that no
 * task will make.
 *
 * Errors: a worker's error belongs to the unit it was at. Units after it
 * are no longer handed out; the consumer gets every batch before that unit
 * (in file order) and then the error, as the serial stream would. With
 * any_order the error is returned as soon as it is known.
 */
#define _POSIX_C_SOURCE 200809L
#include "pk_arrow.h"
#include "../common/pk_struct.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

typedef struct pk_pbatch {
    struct ArrowArray a;
    int64_t unit;
} pk_pbatch;

typedef struct pk_parw {
    struct pk_par *p;
    int32_t index;
    struct ArrowArrayStream s;   /* the worker stream (released when s.release is NULL) */
    int64_t cur;                 /* unit being produced; -1 before the first and after the last */
    bool finished;               /* the stream ended or failed; under mu */
    bool task_over;              /* the running task returned; under mu */
    bool wanted;                 /* the consumer waits for it: stop after one batch; under mu */
    /* consumer's thread only: */
    bool running;                /* a task was submitted and not yet waited for */
    void *handle;                /* NULL with running: the task ran on the consumer */
    pk_pbatch *q;                /* FIFO ring of qcap entries; under mu */
    int32_t qhead, qn;
} pk_parw;

struct pk_par {
    plank_allocator alloc;
    plank_executor ex;
    pk_exec *own;                /* plank's pool, when the caller gave no executor */
    int32_t nw;
    pk_parw *w;
    int64_t nunits;
    int32_t *owner;              /* per unit: the worker that took it, -1 before */
    uint8_t *done;               /* per unit: its worker took the next one or ended */
    bool any_order;
    int32_t qcap;                /* per worker FIFO */
    int64_t limit;               /* batches_in_flight */
    int32_t fanout;              /* threads a worker may spread a batch's columns over */
    pthread_mutex_t mu;
    pthread_cond_t changed;      /* own pool: a batch queued, a worker ended or a task returned */
    /* under mu: */
    uint64_t gen;                /* counts those changes */
    int64_t next_unit, head, inflight;
    bool failed, closing;
    int64_t err_unit;
    int err_code;
    char err_msg[PLANK_ERROR_MESSAGE_SIZE + 80];
    int32_t rr;                  /* any_order: the worker to look at first */
    /* the consumer's: */
    int sticky;                  /* errno returned, then every time */
    char msg[PLANK_ERROR_MESSAGE_SIZE + 80];
    void *ctx;
    void (*release_ctx)(void *);
};

/* ---- Units -------------------------------------------------------------------------- */

int64_t pk_par_next_unit(pk_par *p, int32_t wi) {
    pk_parw *w = &p->w[wi];
    pthread_mutex_lock(&p->mu);
    if (w->cur >= 0) p->done[w->cur] = 1;
    int64_t u = -1;
    if (!p->closing && p->next_unit < p->nunits && !(p->failed && p->next_unit >= p->err_unit)) {
        u = p->next_unit++;
        p->owner[u] = wi;
    }
    w->cur = u;
    pthread_mutex_unlock(&p->mu);
    return u;
}

plank_status pk_par_executor_of(const plank_arrow_options *o, int32_t threads,
                                const plank_allocator *a, pk_exec **own, plank_executor *out,
                                plank_error *err) {
    *own = NULL;
    if (o->executor) {
        memset(out, 0, sizeof *out);
        out->struct_size = sizeof *out;
        return pk_struct_read(out, o->executor, &pk_layout_executor, err);
    }
    PK_FORWARD(pk_exec_new(own, threads, a, err));
    pk_exec_executor(*own, out);
    return PLANK_OK;
}

const plank_executor *pk_par_executor(const pk_par *p) { return &p->ex; }
int32_t pk_par_fanout(const pk_par *p) { return p->fanout; }

/* ---- Workers ------------------------------------------------------------------------ */

/* Under mu. */
static bool may_produce(const pk_par *p, const pk_parw *w) {
    if (w->finished || p->closing) return false;
    if (p->failed && (w->cur < 0 || w->cur >= p->err_unit)) return false;
    if (w->qn >= p->qcap) return false;
    if (!p->any_order && w->cur >= 0 && w->cur == p->head) return true;
    return p->inflight < p->limit;
}

static void record_error(pk_par *p, pk_parw *w, int rc) {
    int64_t unit = w->cur >= 0 ? w->cur : p->head;
    if (!p->failed || unit < p->err_unit) {
        const char *m = w->s.get_last_error ? w->s.get_last_error(&w->s) : NULL;
        snprintf(p->err_msg, sizeof p->err_msg, "%s", m ? m : "worker stream failed");
        p->err_code = rc;
        p->err_unit = unit;
        p->failed = true;
    }
}

static void par_task(void *arg) {
    pk_parw *w = arg;
    pk_par *p = w->p;
    int produced = 0;
    pthread_mutex_lock(&p->mu);
    while (may_produce(p, w) && !(w->wanted && produced > 0)) {
        if (produced > 0) {
            p->gen++;
            pthread_cond_signal(&p->changed);
        }
        pthread_mutex_unlock(&p->mu);
        struct ArrowArray a;
        memset(&a, 0, sizeof a);
        int rc = w->s.get_next(&w->s, &a);
        pthread_mutex_lock(&p->mu);
        if (rc != 0) {
            record_error(p, w, rc);
            w->finished = true;
            break;
        }
        if (!a.release) {
            if (w->cur >= 0) p->done[w->cur] = 1;
            w->cur = -1;
            w->finished = true;
            break;
        }
        if (p->closing) {
            a.release(&a);
            break;
        }
        pk_pbatch *b = &w->q[(w->qhead + w->qn) % p->qcap];
        b->a = a;
        b->unit = w->cur;
        w->qn++;
        p->inflight++;
        produced++;
    }
    w->task_over = true;
    p->gen++;
    pthread_cond_signal(&p->changed);
    pthread_mutex_unlock(&p->mu);
}

/* Consumer's thread: waits for w's task. */
static void reap(pk_par *p, pk_parw *w) {
    if (!w->running) return;
    if (w->handle) p->ex.wait(p->ex.ctx, w->handle);
    w->handle = NULL;
    w->running = false;
    pthread_mutex_lock(&p->mu);
    w->task_over = false;
    w->wanted = false;
    pthread_mutex_unlock(&p->mu);
}

/* Consumer's thread, mu not held: submits a task for every idle worker that
 * may produce. */
static void schedule(pk_par *p) {
    for (int32_t i = 0; i < p->nw; i++) {
        pk_parw *w = &p->w[i];
        if (w->running) continue;
        pthread_mutex_lock(&p->mu);
        bool go = may_produce(p, w);
        pthread_mutex_unlock(&p->mu);
        if (!go) continue;
        w->running = true;
        w->handle = p->ex.submit(p->ex.ctx, par_task, w);
        if (!w->handle) par_task(w); /* the executor refused: run it here */
    }
}

/* Consumer's thread: waits for the tasks that have returned. */
static void reap_over(pk_par *p) {
    for (int32_t i = 0; i < p->nw; i++) {
        pk_parw *w = &p->w[i];
        if (!w->running) continue;
        pthread_mutex_lock(&p->mu);
        bool over = w->task_over;
        pthread_mutex_unlock(&p->mu);
        if (over) reap(p, w);
    }
}

/* ---- The consumer ----------------------------------------------------------------- */

static void pop(pk_par *p, pk_parw *w, struct ArrowArray *out) {
    *out = w->q[w->qhead].a;
    w->qhead = (w->qhead + 1) % p->qcap;
    w->qn--;
    p->inflight--;
}

/* Under mu: a batch for the consumer (true), or why not: *end, *err. */
static bool take_ready(pk_par *p, struct ArrowArray *out, bool *end, bool *err) {
    *end = *err = false;
    if (p->any_order) {
        if (p->failed) {
            *err = true;
            return false;
        }
        for (int32_t k = 0; k < p->nw; k++) {
            pk_parw *w = &p->w[(p->rr + k) % p->nw];
            if (w->qn > 0) {
                pop(p, w, out);
                p->rr = (int32_t)((w->index + 1) % p->nw);
                return true;
            }
        }
        bool all = true;
        for (int32_t k = 0; k < p->nw; k++) all &= p->w[k].finished;
        *end = all;
        return false;
    }
    for (;;) {
        int32_t o = p->head < p->nunits ? p->owner[p->head] : -1;
        /* The failing unit's batches made before its error come first. */
        if (o >= 0 && p->w[o].qn > 0 && p->w[o].q[p->w[o].qhead].unit == p->head) {
            pop(p, &p->w[o], out);
            return true;
        }
        if (p->failed && p->head >= p->err_unit) {
            *err = true;
            return false;
        }
        if (p->head >= p->nunits) {
            *end = true;
            return false;
        }
        if (o < 0 || !p->done[p->head]) return false;
        p->head++;
    }
}

static int par_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
    if (!st || !st->private_data || !out) return EINVAL;
    pk_par *p = st->private_data;
    memset(out, 0, sizeof *out);
    if (p->sticky) return p->sticky;
    for (;;) {
        reap_over(p);
        bool end, err;
        pthread_mutex_lock(&p->mu);
        bool got = take_ready(p, out, &end, &err);
        if (err) {
            p->sticky = p->err_code ? p->err_code : EIO;
            snprintf(p->msg, sizeof p->msg, "%s", p->err_msg);
        }
        int64_t head = p->head;
        uint64_t gen = p->gen;
        pthread_mutex_unlock(&p->mu);
        if (got) {
            schedule(p); /* room for one more batch */
            return 0;
        }
        if (err) return p->sticky;
        if (end) {
            out->release = NULL;
            return 0;
        }
        schedule(p);
        /* Wait for the worker that holds the head unit, or for any worker. */
        pk_parw *target = NULL;
        pthread_mutex_lock(&p->mu);
        bool any = false;
        for (int32_t k = 0; k < p->nw; k++) any |= p->w[k].running;
        if (p->own && any) {
            /* Until a worker reports anything (gen was read before the
             * tasks were submitted, so no report is missed). */
            while (p->gen == gen) pthread_cond_wait(&p->changed, &p->mu);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        int32_t o = !p->any_order && head < p->nunits ? p->owner[head] : -1;
        if (o >= 0 && p->w[o].running) target = &p->w[o];
        for (int32_t k = 0; !target && k < p->nw; k++)
            if (p->w[k].running) target = &p->w[k];
        if (target) target->wanted = true;
        pthread_mutex_unlock(&p->mu);
        if (!target) {
            /* Nothing runs and nothing is ready: cannot happen (see the
             * file comment); fail rather than spin. */
            p->sticky = EIO;
            snprintf(p->msg, sizeof p->msg, "internal error: parallel stream stalled at unit %lld",
                     (long long)head);
            return p->sticky;
        }
        reap(p, target);
    }
}

static int par_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
    if (!st || !st->private_data || !out) return EINVAL;
    pk_par *p = st->private_data;
    pk_parw *w = &p->w[0];
    return w->s.get_schema(&w->s, out);
}

static const char *par_last_error(struct ArrowArrayStream *st) {
    if (!st || !st->private_data) return NULL;
    pk_par *p = st->private_data;
    return p->msg[0] ? p->msg : NULL;
}

static void par_free(pk_par *p) {
    plank_allocator a = p->alloc;
    if (p->w) {
        pthread_mutex_lock(&p->mu);
        p->closing = true;
        pthread_mutex_unlock(&p->mu);
        for (int32_t i = 0; i < p->nw; i++) reap(p, &p->w[i]);
        for (int32_t i = 0; i < p->nw; i++) {
            pk_parw *w = &p->w[i];
            while (w->q && w->qn > 0) {
                struct ArrowArray x;
                pop(p, w, &x);
                if (x.release) x.release(&x);
            }
        }
        /* Worker streams first: they may use the pool (column fan-out). */
        for (int32_t i = 0; i < p->nw; i++) {
            pk_parw *w = &p->w[i];
            if (w->s.release) w->s.release(&w->s);
            if (w->q) pk_free(&a, w->q, (size_t)p->qcap * sizeof *w->q);
        }
        pk_free(&a, p->w, (size_t)p->nw * sizeof *p->w);
    }
    pk_exec_free(p->own);
    if (p->owner) pk_free(&a, p->owner, (size_t)p->nunits * sizeof *p->owner + 1);
    if (p->done) pk_free(&a, p->done, (size_t)p->nunits + 1);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->changed);
    if (p->release_ctx) p->release_ctx(p->ctx);
    pk_free(&a, p, sizeof *p);
}

static void par_release(struct ArrowArrayStream *st) {
    if (!st || !st->release) return;
    if (st->private_data) par_free(st->private_data);
    st->private_data = NULL;
    st->release = NULL;
}

plank_status pk_par_stream(const plank_allocator *a, const plank_arrow_options *o,
                           int32_t threads, int64_t nunits, pk_par_open_fn open, void *ctx,
                           void (*release_ctx)(void *), struct ArrowArrayStream *out,
                           plank_error *err) {
    memset(out, 0, sizeof *out);
    pk_par *p = pk_calloc(a, sizeof *p);
    if (!p) {
        if (release_ctx) release_ctx(ctx);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    p->alloc = *a;
    p->ctx = ctx;
    p->release_ctx = release_ctx;
    p->nunits = nunits;
    p->any_order = o->any_order;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->changed, NULL);
    plank_status st = pk_par_executor_of(o, threads, &p->alloc, &p->own, &p->ex, err);
    /* Row groups first; threads left over spread each batch's columns. */
    int64_t nw = nunits < threads ? nunits : threads;
    if (nw < 1) nw = 1;
    p->nw = (int32_t)nw;
    p->fanout = threads / p->nw;
    /* The default holds the records of two 65,536-record batches a thread
     * for batches down to 4,096 records (plank.h); below, 32 batches a
     * thread, since every batch held costs a queue entry too. */
    int64_t per = 1;
    if (o->batch_rows > 0 && o->batch_rows < 65536)
        per = (65536 + o->batch_rows - 1) / o->batch_rows;
    if (per > 16) per = 16;
    p->limit = o->batches_in_flight > 0 ? o->batches_in_flight : 2 * (int64_t)threads * per;
    p->qcap = p->limit > 1 << 20 ? 1 << 20 : (int32_t)p->limit;
    if (p->qcap < 2) p->qcap = 2;
    if (st == PLANK_OK) {
        p->w = pk_calloc(&p->alloc, (size_t)p->nw * sizeof *p->w);
        p->owner = pk_malloc(&p->alloc, (size_t)nunits * sizeof *p->owner + 1);
        p->done = pk_calloc(&p->alloc, (size_t)nunits + 1);
        if (!p->w || !p->owner || !p->done)
            st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int64_t u = 0; st == PLANK_OK && u < nunits; u++) p->owner[u] = -1;
    for (int32_t i = 0; st == PLANK_OK && i < p->nw; i++) {
        pk_parw *w = &p->w[i];
        w->p = p;
        w->index = i;
        w->cur = -1;
        w->q = pk_calloc(&p->alloc, (size_t)p->qcap * sizeof *w->q);
        if (!w->q) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        if (st == PLANK_OK) st = open(ctx, i, p, &w->s, err);
    }
    if (st != PLANK_OK) {
        par_free(p);
        return st;
    }
    out->get_schema = par_get_schema;
    out->get_next = par_get_next;
    out->get_last_error = par_last_error;
    out->release = par_release;
    out->private_data = p;
    return PLANK_OK;
}
