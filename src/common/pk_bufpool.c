/*
 * pk_bufpool.c: a caching allocator for the buffers of exported arrays.
 *
 * Why: a stream allocates every batch's buffers afresh and the consumer
 * frees them a moment later. Blocks of hundreds of KiB are mmap'd and
 * unmapped by malloc (or trimmed from a thread's heap), so each batch
 * page-faults its buffers in again: on the virtual machines this project
 * runs on, a fault costs microseconds, and the faults were a third of an
 * Arrow read of TPC-H lineitem (more with worker threads, whose malloc
 * arenas trim eagerly). Keeping the freed blocks and handing them out again
 * makes the steady state fault-free, whatever the caller's allocator does.
 *
 * Blocks of PK_POOL_MIN bytes or more carry a 16-byte header holding their
 * capacity (alignment stays 16, the allocator contract); smaller requests
 * go to the base allocator untouched. A freed block is cached (up to `keep`
 * bytes in all, `slots` blocks) unless the pool is closed; a request takes the
 * smallest cached block that holds it, if that block is at most twice the
 * request. The pool lives while its owner has not closed it or any block is
 * out: arrays may outlive the stream that made them and be freed on any
 * thread.
 *
 * Blocks remember the thread that took them last, and a request prefers the
 * calling thread's own (the smallest of those that fit, else the smallest of
 * any): a parallel stream's worker writes a batch, the consumer reads and
 * frees it, and a block handed next to the other thread arrived with its
 * lines still in the first core's cache, dirty, so each write of it became a
 * cross-core transfer. The decoders of the columns that change threads ran
 * 15-20% slower with two threads than with one, and a two-thread Arrow read
 * of TPC-H lineitem took 4-5% longer (bench/README.md, parallel section).
 */
#define _POSIX_C_SOURCE 200809L
#include "pk_common.h"

#include <pthread.h>
#include <stdatomic.h>

#define PK_POOL_MIN ((size_t)64 << 10)
#define PK_POOL_HDR ((size_t)16)

/* The header: the capacity, then the thread that took the block last. */
_Static_assert(sizeof(size_t) + sizeof(pthread_t) <= PK_POOL_HDR, "pool header too small");

struct pk_bufpool {
    plank_allocator base;
    size_t keep;
    atomic_long refs;         /* one per owner, plus one per block out (small ones
                                 too: their free goes through the pool's base) */
    pthread_mutex_t mu;
    /* under mu: */
    int32_t owners;           /* closed when the last one closes */
    bool closed;
    size_t cached;            /* bytes of the cached blocks (capacities) */
    int32_t n, slots;
    void **blk;               /* header addresses (slots of them, after the struct) */
    size_t *cap;
};

static size_t pool_bytes(int32_t slots) {
    return sizeof(pk_bufpool) + (size_t)slots * (sizeof(void *) + sizeof(size_t));
}

static void pool_unref(pk_bufpool *p) {
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1) return;
    pthread_mutex_destroy(&p->mu);
    plank_allocator b = p->base;
    pk_free(&b, p, pool_bytes(p->slots));
}

static size_t *hdr_of(void *user) { return (size_t *)((uint8_t *)user - PK_POOL_HDR); }

static pthread_t taker_of(const void *h) {
    pthread_t t;
    memcpy(&t, (const uint8_t *)h + sizeof(size_t), sizeof t);
    return t;
}

static void set_taker(void *h, pthread_t t) {
    memcpy((uint8_t *)h + sizeof(size_t), &t, sizeof t);
}

/* A block holding n (>= PK_POOL_MIN) bytes, from the cache (the calling
 * thread's own first: file comment) or the base. */
static void *pool_get(pk_bufpool *p, size_t n) {
    pthread_t me = pthread_self();
    pthread_mutex_lock(&p->mu);
    int32_t best = -1, mine = -1;
    for (int32_t i = 0; i < p->n; i++) {
        if (p->cap[i] < n || p->cap[i] / 2 > n) continue;
        if (best < 0 || p->cap[i] < p->cap[best]) best = i;
        if ((mine < 0 || p->cap[i] < p->cap[mine]) && pthread_equal(taker_of(p->blk[i]), me))
            mine = i;
    }
    if (mine >= 0) best = mine;
    if (best >= 0) {
        void *h = p->blk[best];
        set_taker(h, me);
        p->cached -= p->cap[best];
        p->n--;
        p->blk[best] = p->blk[p->n];
        p->cap[best] = p->cap[p->n];
        pthread_mutex_unlock(&p->mu);
        atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
        return (uint8_t *)h + PK_POOL_HDR;
    }
    pthread_mutex_unlock(&p->mu);
    /* A little slack, so that a batch a little larger than the last one
     * still fits the block the last one freed. */
    size_t cap = n + n / 8;
    cap = (cap + 4095) & ~(size_t)4095;
    if (cap < n || cap > SIZE_MAX - PK_POOL_HDR) return NULL;
    size_t *h = pk_malloc(&p->base, cap + PK_POOL_HDR);
    if (!h) return NULL;
    /* A fresh block: its pages in at once rather than fault by fault (it
     * is reused afterwards, so this happens once per block). */
    pk_populate_write(h, cap + PK_POOL_HDR);
    h[0] = cap;
    set_taker(h, me);
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return (uint8_t *)h + PK_POOL_HDR;
}

static void pool_put(pk_bufpool *p, void *user) {
    size_t *h = hdr_of(user);
    size_t cap = h[0];
    pthread_mutex_lock(&p->mu);
    bool keep = !p->closed && p->n < p->slots && p->cached + cap <= p->keep;
    if (keep) {
        p->blk[p->n] = h;
        p->cap[p->n] = cap;
        p->n++;
        p->cached += cap;
    }
    pthread_mutex_unlock(&p->mu);
    if (!keep) pk_free(&p->base, h, cap + PK_POOL_HDR);
    pool_unref(p);
}

static void *pool_realloc(void *opaque, void *ptr, size_t old_n, size_t new_n) {
    pk_bufpool *p = opaque;
    if (!ptr) old_n = 0;
    bool was = ptr && old_n >= PK_POOL_MIN, big = new_n >= PK_POOL_MIN;
    if (!was && !big) {
        void *q = pk_realloc(&p->base, ptr, old_n, new_n);
        if (q && !ptr) atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
        return q;
    }
    if (was && big && new_n <= hdr_of(ptr)[0]) return ptr; /* fits where it is */
    void *q = big ? pool_get(p, new_n) : pk_malloc(&p->base, new_n);
    if (!q) return NULL; /* ptr stays valid, as realloc leaves it */
    if (!big) atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    if (ptr) {
        memcpy(q, ptr, old_n < new_n ? old_n : new_n);
        if (was) {
            pool_put(p, ptr);
        } else {
            pk_free(&p->base, ptr, old_n);
            pool_unref(p);
        }
    }
    return q;
}

static void pool_free(void *opaque, void *ptr, size_t n) {
    pk_bufpool *p = opaque;
    if (!ptr) return;
    if (n >= PK_POOL_MIN) {
        pool_put(p, ptr);
    } else {
        pk_free(&p->base, ptr, n);
        pool_unref(p);
    }
}

pk_bufpool *pk_bufpool_new(const plank_allocator *base, size_t keep, int32_t slots) {
    if (slots < 1) slots = 1;
    pk_bufpool *p = pk_calloc(base, pool_bytes(slots));
    if (!p) return NULL;
    p->slots = slots;
    p->blk = (void **)(void *)(p + 1);
    p->cap = (size_t *)(void *)(p->blk + slots);
    p->base = *base;
    p->keep = keep;
    atomic_init(&p->refs, 1);
    p->owners = 1;
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

void pk_bufpool_retain(pk_bufpool *p) {
    pthread_mutex_lock(&p->mu);
    p->owners++;
    pthread_mutex_unlock(&p->mu);
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
}

void pk_bufpool_allocator(pk_bufpool *p, plank_allocator *out) {
    out->reallocate = pool_realloc;
    out->free = pool_free;
    out->opaque = p;
}

void pk_bufpool_close(pk_bufpool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    if (--p->owners > 0) {
        pthread_mutex_unlock(&p->mu);
        pool_unref(p);
        return;
    }
    p->closed = true;
    pthread_mutex_unlock(&p->mu);
    /* Closed: nothing enters the cache any more, so it can be emptied
     * without the lock held across the frees. */
    for (int32_t i = 0; i < p->n; i++) pk_free(&p->base, p->blk[i], p->cap[i] + PK_POOL_HDR);
    p->n = 0;
    p->cached = 0;
    pool_unref(p);
}
