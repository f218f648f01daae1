/*
 * pk_exec.c: plank's own task pool behind the plank_executor interface (the
 * parallel reads use it when the caller gives no executor of its own).
 *
 * Tasks wait in one FIFO queue under the mutex; worker threads take them
 * from the front. A task's handle is its queue node, freed by wait (plank
 * calls wait exactly once per handle, from the submitting thread). wait on
 * a task still queued unlinks it and runs it on the waiting thread: a task
 * that waits for tasks of its own therefore never waits on a queue that no
 * free thread will drain, whatever the number of threads. Finished tasks
 * are signalled on one condition variable (waits are few: one per batch or
 * per column of a batch, so a broadcast costs little).
 *
 * Spinning: a worker out of tasks, and a wait for a running task, first
 * poll for a while (SPIN_NS, a quarter of a millisecond, by the clock: a
 * pause takes 16 ns on this project's Xeon VM but about 140 cycles on
 * Skylake-era Intel cores) before they sleep. The streams hand out a task per
 * batch and wait for it, and a sleeping thread takes tens of microseconds
 * to wake on a virtual machine: with 16,384-row batches that was 5-13% of
 * a two-thread read; and a thread that joins a batch's leaves waits about
 * 120 us a batch on average for the longest one (a zstd lineitem on the
 * Xeon VM), so a spin of 33 us (2,048 pauses) slept at most batches and
 * the quarter millisecond read it 5-10% faster (bench/README.md). A pool whose
 * threads (with the caller's) outnumber the processors it may run on never
 * spins, since the spinner would then take the processor from the thread it
 * waits for.
 */
#define _POSIX_C_SOURCE 200809L
#include "pk_common.h"

#include <pthread.h>
#include <stdatomic.h>

#define SPIN_NS 250000

typedef struct pk_task {
    void (*fn)(void *arg);
    void *arg;
    struct pk_task *next;  /* in the queue */
    _Atomic int32_t state; /* 0 queued, 1 running, 2 done; written under mu */
} pk_task;

struct pk_exec {
    const plank_allocator *alloc;
    int32_t asked, workers;
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t work;   /* a task was queued, or stop */
    pthread_cond_t done;   /* a task finished */
    pk_task *head, *tail;  /* the queue */
    bool stop;
    bool spin;             /* threads and caller fit the processors (file comment) */
    _Atomic int32_t queued; /* tasks in the queue (a spinner's hint; the queue is under mu) */
};

static inline void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Polls *v until it differs from `from` or SPIN_NS pass (the clock read
 * every 64 pauses, about a microsecond); true when it changed. */
static bool spin_while(const _Atomic int32_t *v, int32_t from) {
    int64_t end = 0;
    for (int i = 0;; i++) {
        if (atomic_load_explicit(v, memory_order_acquire) != from) return true;
        if ((i & 63) == 0) {
            int64_t now = pk_now_ns();
            if (!end) end = now + SPIN_NS;
            else if (now >= end) return false;
        }
        cpu_pause();
    }
}

static void *exec_main(void *arg) {
    pk_exec *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->spin && !e->stop && !e->head) {
            pthread_mutex_unlock(&e->mu);
            (void)spin_while(&e->queued, 0);
            pthread_mutex_lock(&e->mu);
        }
        while (!e->stop && !e->head) pthread_cond_wait(&e->work, &e->mu);
        if (!e->head) break; /* stop, and nothing left */
        pk_task *t = e->head;
        e->head = t->next;
        if (!e->head) e->tail = NULL;
        atomic_fetch_sub_explicit(&e->queued, 1, memory_order_relaxed);
        atomic_store_explicit(&t->state, 1, memory_order_relaxed);
        pthread_mutex_unlock(&e->mu);
        t->fn(t->arg);
        pthread_mutex_lock(&e->mu);
        atomic_store_explicit(&t->state, 2, memory_order_release);
        pthread_cond_broadcast(&e->done);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static void *exec_submit(void *ctx, void (*fn)(void *arg), void *arg) {
    pk_exec *e = ctx;
    pk_task *t = pk_malloc(e->alloc, sizeof *t);
    if (!t) return NULL; /* the caller runs fn itself */
    t->fn = fn;
    t->arg = arg;
    t->next = NULL;
    atomic_init(&t->state, 0);
    pthread_mutex_lock(&e->mu);
    if (e->tail) e->tail->next = t;
    else e->head = t;
    e->tail = t;
    atomic_fetch_add_explicit(&e->queued, 1, memory_order_release);
    pthread_cond_signal(&e->work);
    pthread_mutex_unlock(&e->mu);
    return t;
}

static void exec_wait(void *ctx, void *handle) {
    pk_exec *e = ctx;
    pk_task *t = handle;
    /* Running on a worker: poll for its end before sleeping on done. */
    if (e->spin && atomic_load_explicit(&t->state, memory_order_relaxed) == 1)
        (void)spin_while(&t->state, 1);
    pthread_mutex_lock(&e->mu);
    if (atomic_load_explicit(&t->state, memory_order_relaxed) == 0) {
        /* Not started: take it out of the queue and run it here. */
        pk_task **pp = &e->head, *prev = NULL;
        while (*pp != t) prev = *pp, pp = &(*pp)->next;
        *pp = t->next;
        if (e->tail == t) e->tail = prev;
        atomic_fetch_sub_explicit(&e->queued, 1, memory_order_relaxed);
        atomic_store_explicit(&t->state, 1, memory_order_relaxed);
        pthread_mutex_unlock(&e->mu);
        t->fn(t->arg);
    } else {
        while (atomic_load_explicit(&t->state, memory_order_acquire) != 2)
            pthread_cond_wait(&e->done, &e->mu);
        pthread_mutex_unlock(&e->mu);
    }
    pk_free(e->alloc, t, sizeof *t);
}

plank_status pk_exec_new(pk_exec **out, int32_t threads, const plank_allocator *a,
                         plank_error *err) {
    *out = NULL;
    if (threads < 0 || threads > 1024)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "%d threads: not in 0..1024",
                            (int)threads);
    pk_exec *e = pk_calloc(a, sizeof *e);
    if (!e) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    e->alloc = a;
    e->asked = threads;
    if (threads > 0) {
        e->threads = pk_calloc(a, sizeof(pthread_t) * (size_t)threads);
        if (!e->threads) {
            pk_free(a, e, sizeof *e);
            return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->work, NULL);
    pthread_cond_init(&e->done, NULL);
    atomic_init(&e->queued, 0);
    e->spin = threads + 1 <= pk_cpu_count();
    for (int32_t i = 0; i < threads; i++) {
        if (pthread_create(&e->threads[i], NULL, exec_main, e) != 0) break;
        e->workers++;
    }
    *out = e;
    return PLANK_OK;
}

void pk_exec_free(pk_exec *e) {
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->stop = true;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->mu);
    for (int32_t i = 0; i < e->workers; i++) pthread_join(e->threads[i], NULL);
    pthread_cond_destroy(&e->done);
    pthread_cond_destroy(&e->work);
    pthread_mutex_destroy(&e->mu);
    const plank_allocator *a = e->alloc;
    if (e->threads) pk_free(a, e->threads, sizeof(pthread_t) * (size_t)e->asked);
    pk_free(a, e, sizeof *e);
}

void pk_exec_executor(pk_exec *e, plank_executor *out) {
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->ctx = e;
    out->threads = e->workers > 0 ? e->workers : 1;
    out->submit = exec_submit;
    out->wait = exec_wait;
}

/* The next index from the front (tasks) or the back (the joining caller) of
 * what is left, or -1. */
static int64_t for_take(pk_for_run *f, bool back) {
    uint64_t v = atomic_load_explicit(&f->ends, memory_order_relaxed);
    for (;;) {
        uint64_t lo = v & 0xFFFFFFFFu, hi = v >> 32;
        if (lo >= hi) return -1;
        uint64_t next = back ? v - ((uint64_t)1 << 32) : v + 1;
        if (atomic_compare_exchange_weak_explicit(&f->ends, &v, next, memory_order_relaxed,
                                                  memory_order_relaxed))
            return (int64_t)(back ? hi - 1 : lo);
    }
}

static void for_task(void *arg) {
    pk_for_run *f = arg;
    for (int64_t i; (i = for_take(f, false)) >= 0;) f->fn(f->ctx, i);
}

static void for_caller(pk_for_run *f) {
    for (int64_t i; (i = for_take(f, true)) >= 0;) f->fn(f->ctx, i);
}

void pk_exec_for_start(pk_for_run *r, const plank_executor *ex, int64_t n,
                       void (*fn)(void *ctx, int64_t i), void *ctx) {
    r->fn = fn;
    r->ctx = ctx;
    r->n = n;
    /* n fits 32 bits: the callers loop over leaves, columns and row groups */
    atomic_init(&r->ends, n > 0 ? (uint64_t)n << 32 : 0);
    r->ex = ex;
    r->nt = 0;
    if (!ex || n < 2 || ex->threads < 1) return; /* all on the caller, at the join */
    int64_t nt = ex->threads;
    if (nt > n - 1) nt = n - 1;
    if (nt > (int64_t)(sizeof r->h / sizeof r->h[0])) nt = (int64_t)(sizeof r->h / sizeof r->h[0]);
    for (int64_t t = 0; t < nt; t++) r->h[t] = ex->submit(ex->ctx, for_task, r);
    r->nt = nt;
}

void pk_exec_for_join(pk_for_run *r) {
    if (r->n > 0) for_caller(r);
    /* A refused task (NULL) simply did not run: its indices were taken by
     * the others and by this thread. */
    for (int64_t t = 0; t < r->nt; t++)
        if (r->h[t]) r->ex->wait(r->ex->ctx, r->h[t]);
    r->nt = 0;
    r->n = 0;
}

void pk_exec_for(const plank_executor *ex, int64_t n, void (*fn)(void *ctx, int64_t i),
                 void *ctx) {
    if (n <= 0) return;
    pk_for_run r;
    pk_exec_for_start(&r, ex, n, fn, ctx);
    pk_exec_for_join(&r);
}
