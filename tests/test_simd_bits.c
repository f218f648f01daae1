/* test_simd_bits.c: the bitmap kernels (copy_bits, spread_bits, spread_fixed,
 * count_bits, count_runs, compact_fixed, compact_bits)
 * at every dispatch level this machine has, against plain per-bit / per-slot
 * loops written here, over lengths 0..4096 and a few large ones, bit offsets
 * 0..7 on both sides, unaligned value buffers, and several null densities.
 * Buffers are exact-size heap copies so ASan sees any access outside them. */
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"
#include "enc_ref.h"
#include "simd_sets.h"
#include "tharness.h"

#define MAXN 4096

static int bit_of(const uint8_t *p, size_t i) { return (p[i >> 3] >> (i & 7)) & 1; }
static void put_bit(uint8_t *p, size_t i, int v) {
    p[i >> 3] = (uint8_t)((p[i >> 3] & ~(1u << (i & 7))) | ((unsigned)v << (i & 7)));
}
static uint8_t *exact(const uint8_t *src, size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    if (n) memcpy(p, src, n);
    return p;
}

/* One copy_bits case: src bits [s, s + n) into dst bits [d, d + n). */
static int copy_case(const pk_kernels *k, const uint8_t *pool, const uint8_t *fill, size_t n,
                     size_t s, size_t d) {
    size_t sb = (s + n + 7) / 8, db = (d + n + 7) / 8;
    uint8_t *src = exact(pool, sb), *dst = exact(fill, db), *want = exact(fill, db);
    for (size_t i = 0; i < n; i++) put_bit(want, d + i, bit_of(src, s + i));
    k->copy_bits(src, (int64_t)s, dst, (int64_t)d, n);
    int bad = db && memcmp(dst, want, db) != 0;
    free(src), free(dst), free(want);
    return bad;
}

static void test_copy(const pk_kernels *k, const uint8_t *pool, const uint8_t *fill) {
    int bad = 0;
    for (size_t n = 0; n <= MAXN; n++) {
        for (size_t s = 0; s < 8; s++) {
            /* Every pair of offsets on short lengths, one d per s on long ones. */
            for (size_t d = 0; d < 8; d++) {
                if (n > 300 && d != (s * 3 + n) % 8) continue;
                if (copy_case(k, pool, fill, n, s, d)) {
                    fprintf(stderr, "copy_bits n %zu s %zu d %zu\n", n, s, d);
                    bad = 1;
                }
            }
        }
    }
    static const size_t big[] = {65536 + 5, 300000, 1000003};
    for (size_t i = 0; i < 3; i++) bad |= copy_case(k, pool, fill, big[i], i + 1, 7 - i);
    bad |= copy_case(k, pool, fill, 1000003, 0, 0);
    CHECK_MSG(!bad, "copy_bits level %s", pk_simd_level_name(k->level));
}

/* Validity with about pct% set bits (0 and 100 exact). */
static void make_valid(ref_rng *r, uint8_t *v, size_t nbits, unsigned pct) {
    for (size_t i = 0; i < nbits; i++) put_bit(v, i, ref_below(r, 100) < pct);
}

static size_t count_valid(const uint8_t *v, size_t off, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += (size_t)bit_of(v, off + i);
    return c;
}

static int spread_bits_case(const pk_kernels *k, const uint8_t *pool, const uint8_t *fill,
                            const uint8_t *vpool, size_t n, size_t off) {
    size_t vb = (off + n + 7) / 8, nn = count_valid(vpool, off, n), nb = (nn + 7) / 8;
    uint8_t *valid = exact(vpool, vb), *dense = exact(pool, nb);
    uint8_t *dst = exact(fill, vb), *want = exact(fill, vb);
    for (size_t i = 0, j = 0; i < n; i++)
        put_bit(want, off + i, bit_of(valid, off + i) ? bit_of(dense, j++) : 0);
    k->spread_bits(dense, nn, valid, dst, (int64_t)off, n);
    int bad = vb && memcmp(dst, want, vb) != 0;
    free(valid), free(dense), free(dst), free(want);
    return bad;
}

static int spread_fixed_case(const pk_kernels *k, const uint8_t *pool, const uint8_t *vpool,
                             size_t w, size_t n, size_t off, size_t align) {
    size_t vb = (off + n + 7) / 8, nn = count_valid(vpool, off, n);
    uint8_t *valid = exact(vpool, vb);
    uint8_t *buf = malloc(align + n * w + 1), *vals = buf + align;
    uint8_t *want = malloc(n * w + 1);
    memset(vals, 0xA5, n * w);
    memcpy(vals, pool, nn * w);
    for (size_t i = 0, j = 0; i < n; i++) {
        if (bit_of(valid, off + i)) memcpy(want + i * w, pool + (j++) * w, w);
        else memset(want + i * w, 0, w);
    }
    k->spread_fixed(vals, w, n, nn, valid, (int64_t)off);
    int bad = n && memcmp(vals, want, n * w) != 0;
    free(valid), free(buf), free(want);
    return bad;
}

static void test_spread(const pk_kernels *k, const uint8_t *pool, const uint8_t *fill) {
    static const unsigned pcts[] = {0, 10, 50, 90, 100};
    static const size_t widths[] = {1, 2, 4, 8, 12, 16};
    ref_rng r = {5};
    size_t maxbig = 300000;
    uint8_t *vpool = malloc(maxbig / 8 + 16);
    int bad = 0;
    for (size_t pi = 0; pi < 5; pi++) {
        make_valid(&r, vpool, maxbig + 64, pcts[pi]);
        for (size_t n = 0; n <= MAXN; n++) {
            for (size_t off = 0; off < 8; off++) {
                if (n > 300 && off != n % 8) continue;
                if (spread_bits_case(k, pool, fill, vpool, n, off)) {
                    fprintf(stderr, "spread_bits n %zu off %zu pct %u\n", n, off, pcts[pi]);
                    bad = 1;
                }
                for (size_t wi = 0; wi < 6; wi++) {
                    size_t w = widths[wi];
                    /* Widths 4 and 8 are vectorised: every length; others sampled. */
                    if (w != 4 && w != 8 && n > 300 && n % 61) continue;
                    if (spread_fixed_case(k, pool, vpool, w, n, off, (off + w) % 8)) {
                        fprintf(stderr, "spread_fixed w %zu n %zu off %zu pct %u\n", w, n, off,
                                pcts[pi]);
                        bad = 1;
                    }
                }
            }
        }
        for (size_t off = 0; off < 8; off += 3) {
            bad |= spread_bits_case(k, pool, fill, vpool, maxbig, off);
            bad |= spread_fixed_case(k, pool, vpool, 4, maxbig, off, off);
            bad |= spread_fixed_case(k, pool, vpool, 8, maxbig, off, 7 - off);
        }
    }
    CHECK_MSG(!bad, "spread level %s", pk_simd_level_name(k->level));
    free(vpool);
}

/* Boolean pages (PLAIN, RLE hybrid) through pk_decoder_get_bits in random
 * chunks to random bit offsets, with and without kernels, against the values. */
static void test_decoder_bits(const pk_kernels *k) {
    ref_rng r = {13};
    enum { N = 20000 };
    uint32_t *v = malloc(N * 4);
    int bad = 0;
    for (int round = 0; round < 8; round++) {
        ref_fill_runs(v, N, 1, &r);
        for (int enc = 0; enc < 2; enc++) {
            ref_out o = {0};
            if (enc == 0) {
                ref_bits_begin(&o);
                for (size_t i = 0; i < N; i++) ref_bits_lsb(&o, v[i], 1);
            } else {
                ref_out h = {0};
                ref_hybrid(&h, v, N, 1, &r);
                ref_u32le(&o, (uint32_t)h.size);
                ref_bytes(&o, h.data, h.size);
                free(h.data);
            }
            uint8_t *page = exact(o.data, o.size);
            pk_decoder d;
            CHECK(pk_decoder_init(&d, enc ? PLANK_ENC_RLE : PLANK_ENC_PLAIN, PLANK_BOOLEAN, 0,
                                  page, o.size, N, NULL, pk_default_allocator(),
                                  NULL) == PLANK_OK);
            if (round & 1) pk_decoder_use_kernels(&d, k);
            size_t i = 0, off = (size_t)round % 8;
            uint8_t out[N / 8 + 8];
            memset(out, 0x5A, sizeof out);
            while (i < N) {
                size_t m = 1 + ref_below(&r, round < 4 ? 40 : 3000);
                if (m > N - i) m = N - i;
                CHECK(pk_decoder_get_bits(&d, (int64_t)m, out, (int64_t)(off + i), NULL) ==
                      PLANK_OK);
                i += m;
            }
            for (size_t j = 0; j < N; j++) bad |= (uint32_t)bit_of(out, off + j) != v[j];
            for (size_t j = 0; j < off; j++) bad |= bit_of(out, j) != ((0x5A >> j) & 1);
            CHECK(pk_decoder_get_bits(&d, 1, out, 0, NULL) != PLANK_OK);
            pk_decoder_release(&d);
            free(page);
            free(o.data);
        }
    }
    CHECK_MSG(!bad, "decoder bits level %s", pk_simd_level_name(k->level));
    free(v);
}

/* count_bits over [from, to) and count_runs over [0, n), for every length up
 * to MAXN (and starts 0..15 for count_bits), bitmaps of several densities and
 * run lengths, in exact-size copies, against per-bit counts. */
static void test_counts(const pk_kernels *k, const uint8_t *pool) {
    ref_rng r = {41};
    int bad = 0;
    for (size_t to = 0; to <= MAXN && !bad; to += to < 300 ? 1 : 37) {
        size_t nb = (to + 7) / 8;
        uint8_t *src = malloc(nb + 1);
        unsigned shape = (unsigned)ref_below(&r, 4);
        for (size_t i = 0; i < nb; i++) {
            uint8_t a = pool[(to * 7 + i) % 100000], b = (uint8_t)ref_next(&r);
            src[i] = shape == 0 ? a : shape == 1 ? (uint8_t)(a & b) : shape == 2 ? (uint8_t)(a | b)
                   : (uint8_t)((i / 5) % 2 ? 0xFF : 0); /* long runs */
        }
        uint8_t *bits = exact(src, nb);
        for (size_t from = 0; from <= to && from < 16; from++) {
            int64_t want = 0;
            for (size_t i = from; i < to; i++) want += bit_of(bits, i);
            int64_t got = k->count_bits(bits, (int64_t)from, (int64_t)to);
            if (got != want && bad++ < 3)
                fprintf(stderr, "count_bits [%zu, %zu): %lld, want %lld\n", from, to,
                        (long long)got, (long long)want);
        }
        int64_t runs = 0;
        for (size_t i = 0; i < to; i++) runs += bit_of(bits, i) && (i == 0 || !bit_of(bits, i - 1));
        int64_t got = k->count_runs(bits, (int64_t)to);
        if (got != runs && bad++ < 3)
            fprintf(stderr, "count_runs %zu: %lld, want %lld\n", to, (long long)got,
                    (long long)runs);
        free(bits);
        free(src);
    }
    CHECK_MSG(!bad, "count kernels level %s", pk_simd_level_name(k->level));
}

/* A keep bitmap of n bits in one of five shapes: about pct% set at random, or
 * runs (whole 64-bit words of ones and zeros among random ones). */
static void make_keep(ref_rng *r, uint8_t *keep, size_t n, unsigned shape) {
    static const unsigned pcts[] = {0, 3, 50, 97, 100};
    for (size_t i = 0; i < n; i++) {
        int v;
        if (shape < 5) v = ref_below(r, 100) < pcts[shape];
        else v = (i / 64) % 3 == 0 ? 1 : (i / 64) % 3 == 1 ? 0 : (int)(ref_next(r) & 1);
        put_bit(keep, i, v);
    }
}

/* One compact_fixed case: n values of w bytes at an offset of align bytes, in
 * place or into an exact n*w buffer; the first k values must be the kept ones,
 * and the count k. */
static int compact_fixed_case(const pk_kernels *k, const uint8_t *pool, const uint8_t *keep,
                              size_t w, size_t n, size_t align, int inplace) {
    uint8_t *buf = malloc(align + n * w + 1), *src = buf + align;
    memcpy(src, pool, n * w);
    uint8_t *want = malloc(n * w + 1);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (bit_of(keep, i)) memcpy(want + (kept++) * w, pool + i * w, w);
    uint8_t *dst = inplace ? src : malloc(n * w + 1);
    size_t kb = (n + 7) / 8; /* exactly the bytes the kernel may read */
    uint8_t *kp = calloc(kb ? kb : 1, 1);
    memcpy(kp, keep, kb);
    int64_t got = k->compact_fixed(dst, src, w, kp, n);
    int bad = got != (int64_t)kept || (kept && memcmp(dst, want, kept * w) != 0);
    /* the source is read only, when it is not the output */
    if (!inplace && n && memcmp(src, pool, n * w) != 0) bad = 1;
    if (!inplace) free(dst);
    free(buf), free(want), free(kp);
    return bad;
}

/* One compact_bits case: n bits, in place or into an exact ceil(k/8)-byte buffer
 * (nothing else may be written); the bits past k in the last byte must be 0. */
static int compact_bits_case(const pk_kernels *k, const uint8_t *pool, const uint8_t *keep,
                             size_t n, int inplace) {
    size_t nb = (n + 7) / 8, kept = 0;
    int64_t ones = 0;
    uint8_t *want = calloc(nb + 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (!bit_of(keep, i)) continue;
        int b = bit_of(pool, i);
        ones += b;
        put_bit(want, kept++, b);
    }
    size_t kb = (kept + 7) / 8;
    uint8_t *src = exact(pool, nb), *kp = exact(keep, nb);
    uint8_t *dst = inplace ? src : malloc(kb ? kb : 1);
    int64_t got = k->compact_bits(dst, src, kp, n);
    int bad = got != ones || (kb && memcmp(dst, want, kb) != 0);
    if (!inplace && nb && memcmp(src, pool, nb) != 0) bad = 1;
    if (!inplace) free(dst);
    free(src), free(kp), free(want);
    return bad;
}

/* compact_fixed at widths 1..16 (4, 8 and 16, the vectorised ones, at every
 * length 0..MAXN; the others sampled) and compact_bits at every length, five
 * keep shapes, in place and not, unaligned buffers, against loops written here. */
static void test_compact(const pk_kernels *k, const uint8_t *pool) {
    static const size_t widths[] = {4, 8, 16, 1, 2, 3, 12};
    ref_rng r = {77};
    size_t maxbig = 100003;
    uint8_t *keep = malloc(maxbig / 8 + 16);
    int bad = 0;
    for (unsigned shape = 0; shape < 6; shape++) {
        make_keep(&r, keep, maxbig + 64, shape);
        for (size_t n = 0; n <= MAXN; n++) {
            for (size_t wi = 0; wi < 7; wi++) {
                size_t w = widths[wi];
                if (wi >= 3 && n > 300 && n % 61) continue;
                for (int inplace = 0; inplace < 2; inplace++) {
                    size_t align = (n + w + (size_t)inplace) % 8;
                    if (compact_fixed_case(k, pool, keep, w, n, align, inplace) && bad++ < 5)
                        fprintf(stderr, "compact_fixed w %zu n %zu shape %u inplace %d\n", w, n,
                                shape, inplace);
                }
            }
            for (int inplace = 0; inplace < 2; inplace++)
                if (compact_bits_case(k, pool + n % 97, keep, n, inplace) && bad++ < 5)
                    fprintf(stderr, "compact_bits n %zu shape %u inplace %d\n", n, shape, inplace);
        }
        for (int inplace = 0; inplace < 2; inplace++) {
            bad |= compact_fixed_case(k, pool, keep, 4, maxbig, 3, inplace);
            bad |= compact_fixed_case(k, pool, keep, 16, maxbig, 5, inplace);
            bad |= compact_bits_case(k, pool, keep, maxbig, inplace);
        }
    }
    CHECK_MSG(!bad, "compact kernels level %s", pk_simd_level_name(k->level));
    free(keep);
}

int main(void) {
    const pk_kernels *sets[4];
    int nsets = simd_sets(sets);
    size_t pool_n = 1000003 / 8 + 64;
    /* Values for spread_fixed: up to 300000 slots of 16 bytes. */
    size_t vals_n = 300000 * 16 + 64;
    uint8_t *pool = malloc(vals_n), *fill = malloc(pool_n);
    ref_rng r = {9};
    for (size_t i = 0; i < vals_n; i++) pool[i] = (uint8_t)ref_next(&r);
    for (size_t i = 0; i < pool_n; i++) fill[i] = (uint8_t)ref_next(&r);
    for (int t = 0; t < nsets; t++) {
        CHECK(sets[t]->copy_bits && sets[t]->spread_bits && sets[t]->spread_fixed &&
              sets[t]->compact_fixed && sets[t]->compact_bits);
        test_copy(sets[t], pool, fill);
        test_spread(sets[t], pool, fill);
        test_decoder_bits(sets[t]);
        test_counts(sets[t], pool);
        test_compact(sets[t], pool);
    }
    free(pool), free(fill);
    TEST_END();
}
