/* test_common.c: common's chain of buffers (pk_chain) against a flat copy of
 * what was appended, with reuse after clear and every allocation failing in
 * turn (no leak, contents kept up to the failure). */
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
    static uint8_t src[3 << 20];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 131 + seed);
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
        bool ok = fill(&c, &ref, 42, 60);
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

int main(void) {
    test_chain();
    TEST_END();
}
