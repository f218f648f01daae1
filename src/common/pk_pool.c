/*
 * pk_pool.c: a pool of worker threads that runs parallel loops
 * (pk_pool_run): the writer encodes the columns of a row group on it.
 *
 * One loop runs at a time. pk_pool_run publishes the loop (function,
 * context, count) under the mutex with a new generation number and wakes
 * the workers; the caller's thread and every worker then take indices from
 * one atomic counter until it passes the count, so a slow index never holds
 * up the others' work; the caller returns once every worker that joined
 * the generation has left it. Workers sleep on the condition variable
 * between loops. No global state: each pool is its own threads.
 */
#define _POSIX_C_SOURCE 200809L
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#endif
#include "pk_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

struct pk_pool {
    const plank_allocator *alloc;
    int32_t asked;              /* worker threads asked for: threads - 1 */
    int32_t workers;            /* of those, started (the caller is not one) */
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t wake;        /* a new loop, or shutdown */
    pthread_cond_t idle;        /* a worker left the current loop */
    uint64_t generation;        /* of the loop being run; under mu */
    uint64_t ended;             /* the generation whose loop has returned: no worker
                                   joins it (under mu) */
    int32_t busy;               /* workers inside the current loop; under mu */
    bool stop;                  /* under mu */
    /* the current loop: written under mu before generation changes */
    void (*fn)(void *ctx, int64_t i);
    void *ctx;
    int64_t count;
    atomic_int_fast64_t next;
};

static void take_indices(pk_pool *p) {
    for (;;) {
        int64_t i = (int64_t)atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->count) return;
        p->fn(p->ctx, i);
    }
}

static void *worker_main(void *arg) {
    pk_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        /* A worker that wakes after its loop returned must not join it: it
         * would read the next loop's counter with this one's count. */
        while (!p->stop && (p->generation == seen || p->generation == p->ended))
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->stop) break;
        seen = p->generation;
        p->busy++;
        pthread_mutex_unlock(&p->mu);
        take_indices(p);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The processors this process may run on: its affinity mask where the
 * system has one (taskset, cpusets and container limits narrow it, and a
 * thread beyond it only takes turns with the others), else those online. */
int32_t pk_cpu_count(void) {
    long n = 0;
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
#endif
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int32_t)n;
}

plank_status pk_pool_new(pk_pool **out, int32_t threads, const plank_allocator *a,
                         plank_error *err) {
    *out = NULL;
    if (threads < 1 || threads > 1024)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "%d threads: not in 1..1024",
                            (int)threads);
    pk_pool *p = pk_calloc(a, sizeof *p);
    if (!p) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    p->alloc = a;
    p->asked = threads - 1;
    if (threads > 1) {
        p->threads = pk_calloc(a, sizeof(pthread_t) * (size_t)(threads - 1));
        if (!p->threads) {
            pk_free(a, p, sizeof *p);
            return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    atomic_init(&p->next, 0);
    /* Threads the system will not give are not an error: the loops run on
     * those that started (at least the caller's). */
    for (int32_t i = 0; i + 1 < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) break;
        p->workers++;
    }
    *out = p;
    return PLANK_OK;
}

void pk_pool_free(pk_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int32_t i = 0; i < p->workers; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    const plank_allocator *a = p->alloc;
    pk_free(a, p->threads, sizeof(pthread_t) * (size_t)p->asked);
    pk_free(a, p, sizeof *p);
}

int32_t pk_pool_threads(const pk_pool *p) { return p ? p->workers + 1 : 1; }

void pk_pool_run(pk_pool *p, int64_t count, void (*fn)(void *ctx, int64_t i), void *ctx) {
    if (count <= 0) return;
    if (!p || p->workers == 0 || count == 1) {
        for (int64_t i = 0; i < count; i++) fn(ctx, i);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->count = count;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    take_indices(p);
    /* Every index is taken; wait for the workers still running one. A
     * worker that wakes after this finds the loop ended and does not join
     * it: had it joined, the next loop's reset counter could hand it an
     * index below this loop's count but past the next one's (test_common
     * caught one in CI under ASan). */
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0) pthread_cond_wait(&p->idle, &p->mu);
    p->ended = p->generation;
    pthread_mutex_unlock(&p->mu);
}
