/*
 * test_wstats.c: the writer's min/max scans (src/write/pk_wstats.c) against
 * a naive scan written here.
 *
 * Byte strings come from a tiny alphabet (0x00, 0x01, 'a', 0xff) with
 * lengths 0..12, so equal 8-byte prefixes, strings that extend others by
 * zero bytes ("a" < "a\0") and empty strings are common: the cases the
 * prefix shortcuts of the scan must order exactly as memcmp + length does.
 * Each batch is scanned from a padded pk_buffer (whole-word loads) and from
 * an exact-size copy. Integers: pk_minmax_offer_int must equal the scan, and so must the min/max
 * kernels of every SIMD level (signed and unsigned order).
 */
#include "enc_ref.h"
#include "simd_sets.h"
#include "tharness.h"
#include "write/pk_write.h"

/* memcmp order, shorter first on a tie: the unsigned lexicographic order. */
static int naive_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return (al > bl) - (al < bl);
}

static void check_bytes_batch(const int64_t *off, const uint8_t *data, size_t n, bool padded) {
    plank_error err;
    pk_values v = {.type = PLANK_BYTE_ARRAY, .n = (int64_t)n, .offsets = off, .data = data,
                   .padded = padded};
    pk_minmax m;
    pk_minmax_init(&m, NULL);
    CHECK(pk_minmax_update(&m, PK_SORT_BYTES, &v, NULL, &err) == PLANK_OK);
    size_t lo = 0, hi = 0;
    for (size_t i = 1; i < n; i++) {
        const uint8_t *p = data + off[i];
        size_t len = (size_t)(off[i + 1] - off[i]);
        if (naive_cmp(p, len, data + off[lo], (size_t)(off[lo + 1] - off[lo])) < 0) lo = i;
        if (naive_cmp(p, len, data + off[hi], (size_t)(off[hi + 1] - off[hi])) > 0) hi = i;
    }
    CHECK(m.has == (n > 0));
    if (n > 0) {
        size_t ll = (size_t)(off[lo + 1] - off[lo]), hl = (size_t)(off[hi + 1] - off[hi]);
        CHECK_MSG(m.min.size == ll && (ll == 0 || memcmp(m.min.data, data + off[lo], ll) == 0),
                  "min of %zu strings (padded %d)", n, (int)padded);
        CHECK_MSG(m.max.size == hl && (hl == 0 || memcmp(m.max.data, data + off[hi], hl) == 0),
                  "max of %zu strings (padded %d)", n, (int)padded);
    }
    pk_minmax_release(&m);
}

static void test_bytes(void) {
    static const uint8_t alphabet[4] = {0x00, 0x01, 'a', 0xff};
    ref_rng r = {5};
    plank_error err;
    for (int round = 0; round < 400; round++) {
        size_t n = ref_below(&r, 40);
        int64_t *off = malloc((n + 1) * sizeof *off);
        pk_buffer buf;
        pk_buffer_init(&buf, NULL);
        off[0] = 0;
        for (size_t i = 0; i < n; i++) {
            size_t len = ref_below(&r, 13);
            for (size_t k = 0; k < len; k++) {
                /* mostly zeros and 'a' so prefixes and zero tails collide */
                uint8_t b = alphabet[ref_below(&r, 3) ? ref_below(&r, 2) * 2 : ref_below(&r, 4)];
                CHECK(pk_buffer_append(&buf, &b, 1, &err) == PLANK_OK);
            }
            off[i + 1] = (int64_t)buf.size;
        }
        uint8_t *tight = malloc(buf.size ? buf.size : 1);
        if (buf.size) memcpy(tight, buf.data, buf.size);
        check_bytes_batch(off, buf.data, n, true);
        check_bytes_batch(off, tight, n, false);
        free(tight);
        free(off);
        pk_buffer_reset(&buf);
    }
}

static const pk_kernels *g_sets[PK_SIMD_AVX512 + 1];
static int g_nsets;

static void test_int_offer(void) {
    ref_rng r = {9};
    plank_error err;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + ref_below(&r, round % 2 ? 50 : 200); /* vector bodies and tails */
        int64_t v64[200];
        int32_t v32[200];
        for (size_t i = 0; i < n; i++) {
            v64[i] = (int64_t)ref_next(&r) >> ref_below(&r, 64);
            v32[i] = (int32_t)v64[i];
        }
        for (int t = 0; t < 2; t++) {
            pk_sort_kind kind = t ? PK_SORT_I64 : PK_SORT_I32;
            pk_values v = {.type = t ? PLANK_INT64 : PLANK_INT32, .width = t ? 8 : 4,
                           .n = (int64_t)n,
                           .fixed = t ? (const uint8_t *)v64 : (const uint8_t *)v32};
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (size_t i = 0; i < n; i++) {
                int64_t x = t ? v64[i] : v32[i];
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            pk_minmax a, b;
            pk_minmax_init(&a, NULL);
            pk_minmax_init(&b, NULL);
            CHECK(pk_minmax_update(&a, kind, &v, NULL, &err) == PLANK_OK);
            CHECK(pk_minmax_offer_int(&b, kind, lo, hi, &err) == PLANK_OK);
            CHECK(a.has && b.has && a.min.size == b.min.size && a.max.size == b.max.size &&
                  memcmp(a.min.data, b.min.data, a.min.size) == 0 &&
                  memcmp(a.max.data, b.max.data, a.max.size) == 0);
            /* the min/max kernels of every level, in signed and unsigned order,
             * against the scalar loops */
            for (int un = 0; un < 2; un++) {
                pk_sort_kind k2 = un ? (t ? PK_SORT_U64 : PK_SORT_U32) : kind;
                pk_minmax ref;
                pk_minmax_init(&ref, NULL);
                CHECK(pk_minmax_update(&ref, k2, &v, NULL, &err) == PLANK_OK);
                for (int s = 0; s < g_nsets; s++) {
                    pk_minmax c;
                    pk_minmax_init(&c, NULL);
                    CHECK(pk_minmax_update(&c, k2, &v, g_sets[s], &err) == PLANK_OK);
                    CHECK_MSG(c.has && c.min.size == ref.min.size &&
                                  memcmp(c.min.data, ref.min.data, c.min.size) == 0 &&
                                  memcmp(c.max.data, ref.max.data, c.max.size) == 0,
                              "%s: kind %d, %zu values", pk_simd_level_name(g_sets[s]->level),
                              (int)k2, n);
                    pk_minmax_release(&c);
                }
                pk_minmax_release(&ref);
            }
            pk_minmax_release(&a);
            pk_minmax_release(&b);
        }
    }
}

int main(void) {
    g_nsets = simd_sets(g_sets);
    test_bytes();
    test_int_offer();
    TEST_END();
}
