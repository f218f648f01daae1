/* test_common.c: common's chain of buffers (pk_chain) against a flat copy of
 * what was appended, with reuse after clear and every allocation failing in
 * turn (no leak, contents kept up to the failure); the worker pool (pk_pool):
 * every index of every loop run exactly once, its effects visible to the
 * caller, on pools of 1 to 8 threads; the task executor (pk_exec) behind
 * plank_executor: pk_exec_for runs every index once on pools of 0 to 5
 * threads, also when each index runs a loop of its own on the same pool
 * (tasks that wait for tasks: a task not yet started runs in its wait);
 * the caller's share taken from the back (no worker thread: n - 1 down to 0);
 * pk_cpu_count follows the affinity mask (narrowed to one processor, it says
 * one); the buffer pool (pk_bufpool): a freed block comes back for a request
 * it holds at most twice over, contents kept, and a request prefers the
 * blocks its own thread took last over a smaller one another thread took. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#endif
#include <pthread.h>
#include <stdatomic.h>

#include "tharness.h"

#include "common/pk_common.h"

static plank_status collect(void *ctx, const uint8_t *p, size_t n, plank_error *err) {
    (void)err;
    pk_buffer *b = ctx;
    return pk_buffer_append(b, p, n, NULL);
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Appends pieces of random sizes (some far larger than a segment) with
 * random room; returns false on an allocation failure. ref gets the same
 * bytes. */
static bool fill(pk_chain *c, pk_buffer *ref, uint64_t seed, int pieces) {
    uint64_t s = seed;
    static uint8_t src[(3 << 20) / 2];
    static bool src_made;
    for (size_t i = 0; !src_made && i < sizeof src; i++) src[i] = (uint8_t)(i * 131 + 17);
    src_made = true;
    for (int i = 0; i < pieces; i++) {
        uint64_t r = rng_next(&s);
        size_t n = r % 7 == 0 ? (size_t)(r >> 8) % sizeof src : (size_t)(r >> 8) % 5000;
        size_t room = r % 3 == 0 ? n : n / 2; /* sometimes the piece outgrows its room */
        size_t at = pk_chain_size(c);
        pk_buffer *t;
        if (pk_chain_tail(c, room, &t, NULL) != PLANK_OK) return false;
        CHECK(pk_chain_size(c) == at);
        CHECK(t->capacity - t->size >= room);
        if (pk_buffer_append(t, src + (r % 64), n > 64 ? n - 64 : n, NULL) != PLANK_OK)
            return false;
        pk_buffer_append(ref, src + (r % 64), n > 64 ? n - 64 : n, NULL);
        CHECK(pk_chain_size(c) == ref->size);
    }
    return true;
}

static void check_same(const pk_chain *c, const pk_buffer *ref) {
    pk_buffer got;
    pk_buffer_init(&got, NULL);
    CHECK(pk_chain_each(c, collect, &got, NULL) == PLANK_OK);
    CHECK_EQ_I64(got.size, ref->size);
    CHECK(got.size == ref->size && (got.size == 0 || memcmp(got.data, ref->data, got.size) == 0));
    pk_buffer_reset(&got);
}

static void test_chain(void) {
    th_alloc ta;
    plank_allocator a = th_alloc_init(&ta);
    pk_chain c;
    pk_chain_init(&c, &a);
    CHECK_EQ_I64(pk_chain_size(&c), 0);
    for (uint64_t round = 1; round <= 6; round++) {
        pk_buffer ref;
        pk_buffer_init(&ref, NULL);
        CHECK(fill(&c, &ref, round * 0x9E3779B97F4A7C15ull, round == 3 ? 0 : 300));
        check_same(&c, &ref);
        int64_t blocks = ta.live_blocks;
        pk_chain_clear(&c);
        CHECK_EQ_I64(pk_chain_size(&c), 0);
        CHECK_EQ_I64(ta.live_blocks, blocks); /* kept for the next round */
        pk_buffer_reset(&ref);
    }
    pk_chain_release(&c);
    CHECK_EQ_I64(ta.live_blocks, 0);
    CHECK_EQ_I64(ta.live_bytes, 0);

    /* every allocation failing in turn */
    for (int64_t k = 1;; k++) {
        plank_allocator fa = th_alloc_init(&ta);
        ta.fail_at = k;
        pk_chain_init(&c, &fa);
        pk_buffer ref;
        pk_buffer_init(&ref, NULL);
        bool ok = fill(&c, &ref, 42, 30);
        if (ok) {
            check_same(&c, &ref);
        } else {
            /* what was appended before the failure is intact */
            pk_buffer got;
            pk_buffer_init(&got, NULL);
            CHECK(pk_chain_each(&c, collect, &got, NULL) == PLANK_OK);
            CHECK(got.size <= ref.size);
            CHECK(got.size == 0 || memcmp(got.data, ref.data, got.size) == 0);
            pk_buffer_reset(&got);
        }
        pk_chain_release(&c);
        pk_buffer_reset(&ref);
        CHECK_EQ_I64(ta.live_blocks, 0);
        if (!ta.failed) break;
    }
}

typedef struct loop_ctx {
    atomic_int hits[300];
    int64_t plain[300]; /* written without atomics: the caller must see them after the loop */
} loop_ctx;

static void loop_body(void *ctx, int64_t i) {
    loop_ctx *l = ctx;
    atomic_fetch_add(&l->hits[i], 1);
    l->plain[i] = i * 7 + 1;
}

static void test_pool(void) {
    pk_pool *p = NULL;
    plank_error err;
    CHECK(pk_pool_new(&p, 0, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT && p == NULL);
    CHECK(pk_pool_new(&p, 1025, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT && p == NULL);
    CHECK(pk_pool_threads(NULL) == 1);
    static loop_ctx l;
    static const int32_t sizes[] = {1, 2, 3, 8};
    for (size_t k = 0; k <= sizeof sizes / sizeof sizes[0]; k++) {
        p = NULL; /* the last round: no pool, the caller alone */
        if (k < sizeof sizes / sizeof sizes[0]) {
            th_alloc ta;
            plank_allocator a = th_alloc_init(&ta);
            CHECK(pk_pool_new(&p, sizes[k], &a, &err) == PLANK_OK);
            CHECK_EQ_I64(pk_pool_threads(p), sizes[k]);
            for (int round = 0; round < 400; round++) {
                int64_t n = (round * 37) % 300;
                for (int64_t i = 0; i < 300; i++) {
                    atomic_store(&l.hits[i], 0);
                    l.plain[i] = -1;
                }
                pk_pool_run(p, n, loop_body, &l);
                int bad = 0;
                for (int64_t i = 0; i < 300; i++) {
                    int want = i < n;
                    bad += atomic_load(&l.hits[i]) != want;
                    bad += l.plain[i] != (i < n ? i * 7 + 1 : -1);
                }
                CHECK_MSG(bad == 0, "%d threads, loop of %lld: %d indices wrong", (int)sizes[k],
                          (long long)n, bad);
            }
            pk_pool_free(p);
            CHECK_EQ_I64(ta.live_blocks, 0);
        } else {
            for (int64_t i = 0; i < 300; i++) atomic_store(&l.hits[i], 0);
            pk_pool_run(NULL, 300, loop_body, &l);
            for (int64_t i = 0; i < 300; i++) CHECK(atomic_load(&l.hits[i]) == 1);
        }
    }
    pk_pool_free(NULL);
    CHECK(pk_cpu_count() >= 1);
#if defined(__linux__)
    /* The count of the process's affinity mask: all of it, then one. */
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) == 0) {
        CHECK_EQ_I64(pk_cpu_count(), CPU_COUNT(&all));
        int first = 0;
        while (!CPU_ISSET(first, &all)) first++;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
        CHECK_EQ_I64(pk_cpu_count(), 1);
        CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    }
#endif
}

typedef struct ex_ctx {
    plank_executor *ex;
    atomic_int *hits;   /* per outer * 16 + inner index */
    int64_t inner;      /* 0: no inner loop */
    int64_t outer_i;
} ex_ctx;

static void ex_inner(void *c, int64_t i) {
    ex_ctx *x = c;
    atomic_fetch_add(&x->hits[x->outer_i * 16 + i], 1);
}

static void ex_outer(void *c, int64_t i) {
    ex_ctx *x = c;
    if (!x->inner) {
        atomic_fetch_add(&x->hits[i * 16], 1);
        return;
    }
    ex_ctx y = *x;
    y.outer_i = i;
    pk_exec_for(x->ex, x->inner, ex_inner, &y);
}

static void record_order(void *ctx, int64_t i) {
    int64_t *seen = ctx;
    seen[1 + seen[0]++] = i;
}

static void test_exec(void) {
    plank_error err;
    pk_exec *e = NULL;
    CHECK(pk_exec_new(&e, -1, pk_default_allocator(), &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_exec_new(&e, 1025, pk_default_allocator(), &err) == PLANK_ERR_INVALID_ARGUMENT);
    static atomic_int hits[200 * 16];
    for (int32_t t = 0; t <= 5; t++) {
        CHECK(pk_exec_new(&e, t, pk_default_allocator(), &err) == PLANK_OK);
        plank_executor ex;
        pk_exec_executor(e, &ex);
        for (int64_t inner = 0; inner <= 16; inner += 5) {
            for (int64_t n = 0; n <= 200; n += n < 10 ? 1 : 47) {
                for (int i = 0; i < 200 * 16; i++) atomic_init(&hits[i], 0);
                ex_ctx x = {&ex, hits, inner, 0};
                pk_exec_for(&ex, n, ex_outer, &x);
                int bad = 0;
                for (int64_t i = 0; i < 200; i++)
                    for (int64_t k = 0; k < 16; k++) {
                        int want = i < n && (inner ? k < inner : k == 0);
                        bad += atomic_load(&hits[i * 16 + k]) != want;
                    }
                CHECK_MSG(bad == 0, "pk_exec_for: %d threads, n %d, inner %d: %d wrong",
                          (int)t, (int)n, (int)inner, bad);
            }
        }
        pk_exec_free(e);
    }
    /* No worker: the caller takes every index, from the back; the queued
     * task then finds none left. */
    CHECK(pk_exec_new(&e, 0, pk_default_allocator(), &err) == PLANK_OK);
    plank_executor ex0;
    pk_exec_executor(e, &ex0);
    int64_t seen[1 + 40] = {0};
    pk_exec_for(&ex0, 40, record_order, seen);
    CHECK_EQ_I64(seen[0], 40);
    for (int64_t i = 0; i < 40; i++) CHECK_EQ_I64(seen[1 + i], 39 - i);
    pk_exec_free(e);
    pk_exec_free(NULL);
}

/* ---- Buffer pool ---- */

typedef struct {
    plank_allocator a;
    size_t n;
    void *got;
} bp_ctx;

/* Run on another thread: takes a block of n bytes and frees it. */
static void *bp_take(void *arg) {
    bp_ctx *c = arg;
    c->got = c->a.reallocate(c->a.opaque, NULL, 0, c->n);
    if (c->got) c->a.free(c->a.opaque, c->got, c->n);
    return NULL;
}

static void test_bufpool(void) {
    const size_t kib = 1024;
    pk_bufpool *p = pk_bufpool_new(pk_default_allocator(), (size_t)64 << 20, 16);
    CHECK(p != NULL);
    if (!p) return;
    plank_allocator a;
    pk_bufpool_allocator(p, &a);
    /* Reuse: the block comes back, with its bytes, for a request it holds
     * at most twice over; not for one it holds more than twice over. */
    uint8_t *b = a.reallocate(a.opaque, NULL, 0, 300 * kib);
    CHECK(b != NULL);
    if (!b) return;
    for (size_t i = 0; i < 300 * kib; i++) b[i] = (uint8_t)(i * 7);
    a.free(a.opaque, b, 300 * kib);
    uint8_t *c = a.reallocate(a.opaque, NULL, 0, 200 * kib);
    CHECK(c == b);
    int bad = 0;
    for (size_t i = 0; i < 200 * kib; i++) bad += c[i] != (uint8_t)(i * 7);
    CHECK_EQ_I64(bad, 0);
    a.free(a.opaque, c, 200 * kib);
    uint8_t *e = a.reallocate(a.opaque, NULL, 0, 140 * kib);
    CHECK(e != NULL && e != b);
    a.free(a.opaque, e, 140 * kib);
    pk_bufpool_close(p);

    /* Affinity: this thread's block B and another thread's smaller block O
     * both hold a request of 180 KiB; each thread gets its own. */
    p = pk_bufpool_new(pk_default_allocator(), (size_t)64 << 20, 16);
    CHECK(p != NULL);
    if (!p) return;
    pk_bufpool_allocator(p, &a);
    void *big = a.reallocate(a.opaque, NULL, 0, 300 * kib); /* B, busy for now */
    CHECK(big != NULL);
    bp_ctx x = {a, 200 * kib, NULL};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, bp_take, &x) == 0);
    pthread_join(t, NULL);
    void *small = x.got; /* O: a new block, smaller than B */
    CHECK(small != NULL && small != big);
    a.free(a.opaque, big, 300 * kib);
    void *f = a.reallocate(a.opaque, NULL, 0, 180 * kib);
    CHECK(f == big); /* its own, though O is smaller and fits */
    a.free(a.opaque, f, 180 * kib);
    x.n = 180 * kib;
    CHECK(pthread_create(&t, NULL, bp_take, &x) == 0);
    pthread_join(t, NULL);
    CHECK(x.got == small); /* O, its own or the smallest */
    pk_bufpool_close(p);
}

int main(void) {
    test_chain();
    test_pool();
    test_exec();
    test_bufpool();
    TEST_END();
}
