/*
 * test_simd_delta.c: DELTA_BINARY_PACKED kernels and batched reads, and the
 * DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY fast paths, at every dispatch
 * level this machine has, against the values given to the independent
 * reference encoder of enc_ref.h and against the scalar reference decoder.
 * Encoded streams are copied to exact-size allocations so that AddressSanitizer
 * sees any read past the end.
 */
#include "enc_ref.h"
#include "tharness.h"

#include "encoding/pk_delta_fast.h"
#include "encoding/pk_encoding.h"
#include "simd_sets.h"

#define MAX_SETS 5
static const pk_kernels *sets[MAX_SETS]; /* [0] = NULL: the reference */
static int nsets;

static const char *set_name(const pk_kernels *k) {
    if (k && k->level == PK_SIMD_AVX512 && k->delta_i32 != pk_delta_i32_avx512)
        return "avx512 (AMD: AVX2 DELTA)";
    return k ? pk_simd_level_name(k->level) : "reference";
}

/* With AVX-512, also the table this CPU does not use (Intel's AVX-512 DELTA
 * kernels on an AMD core, whose table has the AVX2 ones, and the reverse):
 * every body is checked on every machine. */
static void init_sets(void) {
    sets[0] = NULL;
    nsets = 1 + simd_sets(sets + 1);
    const pk_kernels *alt = pk_kernels_avx512_alternate(sets[nsets - 1]);
    if (alt && nsets < MAX_SETS) {
        sets[nsets++] = alt;
        fprintf(stderr, "and the other AVX-512 table (%s DELTA kernels)\n",
                alt->delta_i32 == pk_delta_i32_avx512 ? "AVX-512" : "AVX2");
    }
}

static uint64_t sext32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)(uint32_t)v; }

/* ---- kernels alone: every width, 1..4 groups, unaligned outputs ----------------------- */

static uint64_t bits_at(const uint8_t *p, uint64_t bit, int bw) {
    uint64_t v = 0;
    for (int i = 0; i < bw; i++)
        v |= (uint64_t)((p[(bit + (uint64_t)i) / 8] >> ((bit + (uint64_t)i) % 8)) & 1) << i;
    return v;
}

/* One kernel call over `minis` miniblocks of the given widths, `groups`
 * groups each, from an exact-size allocation (the groups plus the kernels'
 * slack), compared with the running sums computed bit by bit. */
static void check_kernel(const pk_kernels *k, const uint8_t *widths, size_t minis,
                         size_t groups, ref_rng *r) {
    size_t nbytes = PK_DELTA_KERNEL_SLACK, n = minis * groups * 32;
    for (size_t m = 0; m < minis; m++) nbytes += groups * 4 * widths[m];
    /* The groups start at any of 0..7 bytes into the allocation, which ends with the slack. */
    size_t ioff = ref_below(r, 8);
    uint8_t *imem = malloc(nbytes + ioff), *in = imem + ioff;
    for (size_t i = 0; i < nbytes; i++) in[i] = (uint8_t)ref_next(r);
    size_t off = ref_below(r, 8);
    uint8_t *o32 = malloc(n * 4 + off), *o64 = malloc(n * 8 + off);
    uint64_t md = ref_next(r), last = ref_next(r);
    if (ref_below(r, 2)) md = 0 - ref_below(r, 1000);
    uint32_t l32 = k->delta_i32(in, widths, minis, groups, (uint32_t)md, (uint32_t)last, o32 + off);
    uint64_t l64 = k->delta_i64(in, widths, minis, groups, md, last, o64 + off);
    uint64_t x = last, bit = 0;
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        int bw = widths[i / (groups * 32)];
        x += md + bits_at(in, bit, bw);
        bit += (uint64_t)bw;
        uint32_t g32;
        uint64_t g64;
        memcpy(&g32, o32 + off + 4 * i, 4);
        memcpy(&g64, o64 + off + 8 * i, 8);
        if ((g32 != (uint32_t)x || g64 != x) && !bad++) first = i;
    }
    CHECK_MSG(!bad && l32 == (uint32_t)x && l64 == x,
              "%s widths %d.. (%zu miniblocks) groups %zu: %zu bad, first at %zu",
              set_name(k), widths[0], minis, groups, bad, first);
    free(imem);
    free(o32);
    free(o64);
}

/* delta_sum over the same kind of input as check_kernel: the sum of every
 * packed value, computed bit by bit. */
static void check_sum(const pk_kernels *k, const uint8_t *widths, size_t minis, size_t groups,
                      ref_rng *r) {
    size_t nbytes = PK_DELTA_KERNEL_SLACK, n = minis * groups * 32;
    for (size_t m = 0; m < minis; m++) nbytes += groups * 4 * widths[m];
    size_t ioff = ref_below(r, 8);
    uint8_t *imem = malloc(nbytes + ioff), *in = imem + ioff;
    for (size_t i = 0; i < nbytes; i++) in[i] = (uint8_t)ref_next(r);
    uint64_t want = 0, bit = 0;
    for (size_t i = 0; i < n; i++) {
        int bw = widths[i / (groups * 32)];
        want += bits_at(in, bit, bw);
        bit += (uint64_t)bw;
    }
    uint64_t got = k->delta_sum(in, widths, minis, groups);
    CHECK_MSG(got == want, "%s delta_sum widths %d.. (%zu miniblocks) groups %zu: %llu, want %llu",
              set_name(k), widths[0], minis, groups, (unsigned long long)got,
              (unsigned long long)want);
    free(imem);
}

static void test_kernels(void) {
    ref_rng r = {11};
    /* Widths where the kernels switch paths (sequence, 32-bit lanes, five-byte
     * values, the 64-bit scan limit, scalar stamps). */
    static const uint8_t edges[] = {0, 1, 25, 26, 27, 29, 30, 31, 32, 33, 63, 64};
    for (int s = 1; s < nsets; s++) {
        const pk_kernels *k = sets[s];
        for (int bw = 0; bw <= 64; bw++) {
            uint8_t w1 = (uint8_t)bw;
            for (size_t groups = 1; groups <= 4; groups++) {
                check_kernel(k, &w1, 1, groups, &r);
                check_sum(k, &w1, 1, groups, &r);
            }
            /* Runs of equal and of different widths in one call. */
            for (int t = 0; t < 8; t++) {
                uint8_t widths[8];
                size_t minis = 1 + ref_below(&r, 8);
                widths[0] = w1;
                for (size_t m = 1; m < minis; m++) {
                    uint64_t c = ref_below(&r, 3);
                    widths[m] = c == 0 ? widths[m - 1]
                                : c == 1 ? edges[ref_below(&r, sizeof edges)]
                                         : (uint8_t)ref_below(&r, 65);
                }
                check_kernel(k, widths, minis, 1 + ref_below(&r, 2), &r);
                check_sum(k, widths, minis, 1 + ref_below(&r, 40), &r);
            }
        }
    }
}

/* ---- streams through pk_delta_read_* ---------------------------------------------------- */

/* The value of v's element as the stream's signed type. */
static int64_t sval(uint64_t x, bool is64) {
    return is64 ? (int64_t)x : (int64_t)(int32_t)(uint32_t)x;
}

/* Slot j of out (w = 4 or 8 bytes a value) as a signed value. */
static int64_t out_val(const uint8_t *out, size_t j, size_t w) {
    if (w == 8) {
        int64_t g;
        memcpy(&g, out + 8 * j, 8);
        return g;
    }
    int32_t g32;
    memcpy(&g32, out + 4 * j, 4);
    return g32;
}

/* Reads the stream at kernel level k in chunks through pk_delta_read_bounded
 * with the interval [lo, hi]: every value inside must come out exact, every
 * value outside must come out as some value outside (a passed-over run), and
 * the stream must end where it does. Returns the values passed over. */
static int64_t check_bounded(const uint64_t *v, size_t n, const uint8_t *buf, size_t size,
                             const ref_delta_opts *op, const pk_kernels *k, uint64_t seed,
                             size_t chunk_max, int64_t lo, int64_t hi, const char *what) {
    size_t w = op->is64 ? 8 : 4;
    uint8_t *base = malloc(n * w + 8), *out = base + (seed >> 3) % 8;
    pk_delta_decoder d;
    plank_error err = {0};
    CHECK(pk_delta_init(&d, buf, size, op->is64, &err) == PLANK_OK);
    pk_delta_bound b = {.lo = lo, .hi = hi};
    ref_rng cr = {seed ^ 0x77};
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        size_t m = chunk_max ? 1 + ref_below(&cr, chunk_max) : n;
        if (m > n - i) m = n - i;
        ok = pk_delta_read_bounded(&d, k, out + w * i, (int64_t)m, &b, &err) == PLANK_OK;
        i += m;
    }
    CHECK_MSG(ok, "%s %s bounded: %s", what, set_name(k), err.message);
    size_t bad = 0, first = n;
    int64_t outside = 0;
    for (size_t j = 0; ok && j < n; j++) {
        int64_t want = sval(v[j], op->is64), got = out_val(out, j, w);
        bool in = want >= lo && want <= hi;
        outside += !in;
        if ((in ? got != want : got >= lo && got <= hi) && !bad++) first = j;
    }
    CHECK_MSG(bad == 0, "%s %s bounded [%lld, %lld]: %zu wrong values, first at %zu of %zu", what,
              set_name(k), (long long)lo, (long long)hi, bad, first, n);
    CHECK_MSG(b.skipped >= 0 && b.skipped <= outside, "%s %s: %lld passed over, %lld outside",
              what, set_name(k), (long long)b.skipped, (long long)outside);
    CHECK(pk_delta_remaining(&d) == 0);
    if (ok && !op->truncate_last) {
        const uint8_t *end = NULL;
        CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK && end == buf + size);
    }
    free(base);
    return b.skipped;
}

/* Reads the stream at kernel level k in chunks through pk_delta_read_live
 * with a random bitmap of live values (its bits from a random offset; a
 * density of none, a few, some, a quarter or all), half the time with the
 * interval [lo, hi] too (density >= 0: that density of the list, and no
 * interval): every live value (inside the interval, when there
 * is one) must come out exact, every other slot exact or 0 (a block passed
 * over), a live value outside the interval outside it, and the stream must
 * end where it does. Without an interval and with nothing live, read in
 * one call, a stream of several whole blocks must have been passed over
 * (slots of non-zero values that came out 0). */
static void check_live(const uint64_t *v, size_t n, const uint8_t *buf, size_t size,
                       const ref_delta_opts *op, const pk_kernels *k, uint64_t seed,
                       size_t chunk_max, int64_t lo, int64_t hi, int density, const char *what) {
    size_t w = op->is64 ? 8 : 4;
    ref_rng r = {seed ^ 0x99};
    static const uint32_t per_million[] = {0, 2000, 20000, 250000, 1000000};
    uint32_t p = per_million[density >= 0 ? density % 5 : (int)ref_below(&r, 5)];
    int64_t off = (int64_t)ref_below(&r, 13);
    bool bounded = density < 0 && ref_below(&r, 2) == 0;
    if (!bounded) lo = INT64_MIN, hi = INT64_MAX;
    size_t nbytes = (n + (size_t)off + 7) / 8 + 8; /* readable 8 bytes past its bits */
    uint8_t *live = calloc(nbytes, 1);
    uint8_t *base = malloc(n * w + 8), *out = base + (seed >> 5) % 8;
    for (size_t j = 0; j < n; j++)
        if (ref_below(&r, 1000000) < p) live[(off + (int64_t)j) >> 3] |= (uint8_t)(1u << ((off + (int64_t)j) & 7));
    memset(base, 0xA5, n * w + 8);
    pk_delta_decoder d;
    plank_error err = {0};
    CHECK(pk_delta_init(&d, buf, size, op->is64, &err) == PLANK_OK);
    pk_delta_bound b = {.lo = lo, .hi = hi};
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        size_t m = chunk_max ? 1 + ref_below(&r, chunk_max) : n;
        if (m > n - i) m = n - i;
        ok = pk_delta_read_live(&d, k, out + w * i, (int64_t)m, bounded ? &b : NULL, live,
                                off + (int64_t)i, &err) == PLANK_OK;
        i += m;
    }
    CHECK_MSG(ok, "%s %s live: %s", what, set_name(k), err.message);
    size_t bad = 0, first = n, zeroed = 0;
    for (size_t j = 0; ok && j < n; j++) {
        int64_t want = sval(v[j], op->is64), got = out_val(out, j, w);
        bool is_live = (live[(off + (int64_t)j) >> 3] >> ((off + (int64_t)j) & 7)) & 1;
        bool in = want >= lo && want <= hi, good;
        if (is_live && in) good = got == want;
        else if (is_live) good = got < lo || got > hi;
        else good = bounded || got == want || got == 0;
        zeroed += !is_live && got == 0 && want != 0;
        if (!good && !bad++) first = j;
    }
    CHECK_MSG(bad == 0, "%s %s live (%u per million, bits from %lld%s): %zu wrong values, "
              "first at %zu of %zu", what, set_name(k), (unsigned)p, (long long)off,
              bounded ? ", bounded" : "", bad, first, n);
    if (ok && p == 0 && !bounded && !chunk_max && n >= 4 * op->block)
        CHECK_MSG(zeroed > 0, "%s %s: nothing live, yet every block was decoded", what,
                  set_name(k));
    CHECK(pk_delta_remaining(&d) == 0);
    if (ok && !op->truncate_last) {
        const uint8_t *end = NULL;
        CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK && end == buf + size);
    }
    free(live);
    free(base);
}

/* An interval for check_bounded from the values themselves (so that some
 * fall inside), now and then unbounded on one side or empty. */
static void pick_interval(const uint64_t *v, size_t n, bool is64, ref_rng *r, int64_t *lo,
                          int64_t *hi) {
    int64_t a = n ? sval(v[ref_below(r, n)], is64) : 0, z = n ? sval(v[ref_below(r, n)], is64) : 0;
    if (a > z) {
        int64_t t = a;
        a = z;
        z = t;
    }
    switch (ref_below(r, 6)) {
    case 0: a = INT64_MIN; break;
    case 1: z = INT64_MAX; break;
    case 2: z = a; break;        /* one value */
    case 3: a = z = z == INT64_MAX ? z : z + 1; break; /* one value, maybe absent */
    default: break;
    }
    *lo = a;
    *hi = z;
}

/* Encodes v with the reference encoder, then decodes it at every level in
 * chunks of random sizes (chunk_max 0: one call), with random skips when
 * asked, and compares with v. */
static void check_stream(const uint64_t *v, size_t n, const ref_delta_opts *op, uint64_t seed,
                         size_t chunk_max, bool skips, const char *what) {
    ref_out o = {0};
    ref_rng r = {seed};
    ref_delta(&o, v, n, op, &r);
    uint8_t *buf = malloc(o.size);
    memcpy(buf, o.data, o.size);
    size_t w = op->is64 ? 8 : 4;
    /* Outputs at every alignment. */
    uint8_t *base = malloc(n * w + 8), *out = base + seed % 8;
    for (int s = 0; s < nsets; s++) {
        const pk_kernels *k = sets[s];
        pk_delta_decoder d;
        plank_error err = {0};
        CHECK(pk_delta_init(&d, buf, o.size, op->is64, &err) == PLANK_OK);
        ref_rng cr = {seed ^ 0x55};
        memset(base, 0xA5, n * w + 8);
        bool ok = true;
        size_t i = 0;
        while (i < n && ok) {
            size_t m = chunk_max ? 1 + ref_below(&cr, chunk_max) : n;
            if (m > n - i) m = n - i;
            if (skips && ref_below(&cr, 3) == 0) {
                ok = pk_delta_skip_k(&d, k, (int64_t)m, &err) == PLANK_OK;
                for (size_t j = i; j < i + m; j++) {
                    if (w == 8) memcpy(out + 8 * j, &v[j], 8);
                    else { uint32_t x = (uint32_t)v[j]; memcpy(out + 4 * j, &x, 4); }
                }
            } else if (w == 8) {
                ok = pk_delta_read_i64(&d, k, out + 8 * i, (int64_t)m, &err) == PLANK_OK;
            } else {
                ok = pk_delta_read_i32(&d, k, out + 4 * i, (int64_t)m, &err) == PLANK_OK;
            }
            i += m;
        }
        CHECK_MSG(ok, "%s %s: %s", what, set_name(k), err.message);
        size_t bad = 0, first = n;
        for (size_t j = 0; ok && j < n; j++) {
            bool eq;
            if (w == 8) {
                uint64_t g;
                memcpy(&g, out + 8 * j, 8);
                eq = g == v[j];
            } else {
                uint32_t g;
                memcpy(&g, out + 4 * j, 4);
                eq = g == (uint32_t)v[j];
            }
            if (!eq && !bad++) first = j;
        }
        CHECK_MSG(bad == 0, "%s %s: %zu wrong values, first at %zu of %zu", what, set_name(k), bad,
                  first, n);
        CHECK(pk_delta_remaining(&d) == 0);
        /* One more value is an error, not a read past the end. */
        uint8_t extra[8];
        CHECK(pk_delta_read_i64(&d, k, extra, 1, &err) != PLANK_OK);
        if (!op->truncate_last) {
            const uint8_t *end = NULL;
            CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK && end == buf + o.size);
        }
        if (k) {
            int64_t lo, hi;
            pick_interval(v, n, op->is64, &cr, &lo, &hi);
            check_bounded(v, n, buf, o.size, op, k, seed, chunk_max, lo, hi, what);
            check_live(v, n, buf, o.size, op, k, seed, chunk_max, lo, hi, -1, what);
        }
    }
    free(base);
    free(buf);
    free(o.data);
}

/* A batched read that ends inside a block stages the block (the values
 * after the read's end decoded ahead): the per-value reference API must go
 * on from there. At every kernel level: a batched read of m values, then
 * pk_delta_get of the next ones (INT32 values sign-extended, as
 * pk_delta_get gives them), compared with v; then, on a fresh decoder, a
 * batched read of m values and pk_delta_end straight after (the values left
 * passed over), whose end must be the stream's. */
static void check_mixed(const uint64_t *v, size_t n, const ref_delta_opts *op, uint64_t seed,
                        const char *what) {
    ref_out o = {0};
    ref_rng r = {seed};
    ref_delta(&o, v, n, op, &r);
    size_t w = op->is64 ? 8 : 4;
    uint8_t *tmp = malloc(n * w + 1);
    uint64_t *got = malloc(n * sizeof *got + 8);
    for (int s = 1; s < nsets; s++) {
        const pk_kernels *k = sets[s];
        size_t m = 1 + ref_below(&r, n > 1 ? n - 1 : 1);
        if (m > n) m = n;
        pk_delta_decoder d;
        plank_error err = {0};
        CHECK(pk_delta_init(&d, o.data, o.size, op->is64, &err) == PLANK_OK);
        bool ok = (op->is64 ? pk_delta_read_i64(&d, k, tmp, (int64_t)m, &err)
                            : pk_delta_read_i32(&d, k, tmp, (int64_t)m, &err)) == PLANK_OK;
        ok = ok && pk_delta_get(&d, got, (int64_t)(n - m), &err) == PLANK_OK;
        CHECK_MSG(ok, "%s %s: %s", what, set_name(k), err.message);
        size_t bad = 0;
        for (size_t j = 0; ok && j < n - m; j++) bad += got[j] != v[m + j];
        CHECK_MSG(bad == 0, "%s %s: %zu values wrong after a batched read of %zu", what,
                  set_name(k), bad, m);
        if (op->truncate_last) continue;
        CHECK(pk_delta_init(&d, o.data, o.size, op->is64, &err) == PLANK_OK);
        const uint8_t *end = NULL;
        ok = (op->is64 ? pk_delta_read_i64(&d, k, tmp, (int64_t)m, &err)
                       : pk_delta_read_i32(&d, k, tmp, (int64_t)m, &err)) == PLANK_OK &&
             pk_delta_end(&d, &end, &err) == PLANK_OK;
        CHECK_MSG(ok && end == o.data + o.size, "%s %s: end after a batched read of %zu: %s",
                  what, set_name(k), m, err.message);
    }
    free(tmp);
    free(got);
    free(o.data);
}

/* Values whose deltas (after the minimum is subtracted) fit in bw bits; INT32
 * values are sign-extended and their deltas taken in 32 bits. */
static void gen(uint64_t *v, size_t n, int bw, bool is64, uint64_t md, ref_rng *r) {
    uint64_t x = ref_next(r);
    for (size_t i = 0; i < n; i++) {
        v[i] = is64 ? x : sext32(x);
        x += md + (ref_next(r) & ref_mask(bw));
    }
}

static const unsigned blocks[][2] = {{128, 4}, {128, 1}, {256, 8}, {1024, 4}, {2048, 8}};

static void test_widths(void) {
    ref_rng r = {3};
    static const size_t lens[] = {1, 2, 31, 32, 33, 129, 1000};
    uint64_t *v = malloc(sizeof(uint64_t) * 4096);
    char what[128];
    for (int is64 = 0; is64 <= 1; is64++) {
        for (int bw = 0; bw <= 64; bw++) {
            if (!is64 && bw > 32 && bw != 33 && bw != 40 && bw != 64) continue;
            for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
                size_t n = lens[li];
                size_t b = (size_t)(bw + li) % 5;
                uint64_t md = li % 2 ? 0 - ref_below(&r, 1u << 20) : ref_below(&r, 100);
                gen(v, n, bw > 32 && !is64 ? 32 : bw, is64, md, &r);
                ref_delta_opts op = {blocks[b][0], blocks[b][1], false, is64 == 1, bw, false,
                                     li % 3 == 0, li % 2 == 1};
                snprintf(what, sizeof what, "INT%d bw %d n %zu block %u/%u", is64 ? 64 : 32, bw,
                         n, op.block, op.minis);
                check_stream(v, n, &op, (uint64_t)(bw * 100 + li), 0, false, what);
                check_stream(v, n, &op, (uint64_t)(bw * 100 + li), 70, true, what);
                check_mixed(v, n, &op, (uint64_t)(bw * 100 + li), what);
            }
        }
    }
    free(v);
}

static void test_lengths_and_splits(void) {
    ref_rng r = {5};
    size_t cap = 100000;
    uint64_t *v = malloc(sizeof(uint64_t) * cap);
    char what[128];
    for (size_t n = 0; n <= 4200; n += n < 300 ? 1 : 97) {
        int bw = (int)(n % 17);
        bool is64 = n % 2;
        gen(v, n, bw, is64, 0 - (uint64_t)(n % 5), &r);
        ref_delta_opts op = {blocks[n % 5][0], blocks[n % 5][1], false, is64, 0, n % 3 == 0,
                             n % 4 == 1, n % 4 == 2};
        snprintf(what, sizeof what, "n %zu bw %d", n, bw);
        check_stream(v, n, &op, n, n % 3 ? 40 : 0, n % 7 == 0, what);
    }
    /* Many blocks in one call, and chunks that cross blocks. */
    gen(v, cap, 9, true, 12345, &r);
    ref_delta_opts op = {128, 4, false, true, 0, false, false, true};
    check_stream(v, cap, &op, 1, 0, false, "100000 INT64 in one call");
    check_stream(v, cap, &op, 2, 1000, true, "100000 INT64 in chunks");
    free(v);
}

/* Live reads at every density, block shape and kernel level, whole and in
 * chunks, over streams of several blocks (check_stream gives them random
 * densities over every width and length). */
static void test_live_densities(void) {
    ref_rng r = {41};
    size_t n = 5000;
    uint64_t *v = malloc(sizeof(uint64_t) * n);
    char what[128];
    for (int b = 0; b < 5; b++) {
        for (int is64 = 0; is64 <= 1; is64++) {
            int bw = (int)ref_below(&r, is64 ? 65 : 33);
            gen(v, n, bw, is64 == 1, ref_below(&r, 50), &r);
            ref_delta_opts op = {blocks[b][0], blocks[b][1], false, is64 == 1, 0, false, false,
                                 b % 2 == 1};
            ref_out o = {0};
            ref_rng er = {(uint64_t)(b * 2 + is64)};
            ref_delta(&o, v, n, &op, &er);
            snprintf(what, sizeof what, "live INT%d bw %d block %u/%u", is64 ? 64 : 32, bw,
                     op.block, op.minis);
            for (int s = 1; s < nsets; s++)
                for (int density = 0; density < 5; density++)
                    for (size_t chunk = 0; chunk <= 300; chunk += 300)
                        check_live(v, n, o.data, o.size, &op, sets[s], (uint64_t)(density + s),
                                   chunk, INT64_MIN, INT64_MAX, density, what);
            free(o.data);
        }
    }
    free(v);
}

static void test_special(void) {
    ref_rng r = {7};
    uint64_t v[600];
    /* INT32 values wrapping around INT32_MAX/INT32_MIN in 32-bit deltas. */
    for (size_t i = 0; i < 600; i++) v[i] = sext32(UINT64_C(0x7FFFFF00) + i * 3);
    ref_delta_opts op32 = {128, 4, false, false, 0, false, false, false};
    check_stream(v, 600, &op32, 1, 50, false, "INT32 wrap");
    /* INT32 columns whose deltas need 33 bits (sign-extended 64-bit deltas). */
    for (size_t i = 0; i < 600; i++) v[i] = sext32(ref_next(&r));
    v[1] = sext32(0x7FFFFFFF);
    v[2] = sext32(0x80000000);
    ref_delta_opts op33 = {128, 4, true, false, 0, false, true, true};
    check_stream(v, 600, &op33, 2, 50, true, "INT32 33-bit deltas");
    /* INT64 wrapping and the minimum min delta (INT64_MIN, width 0). */
    for (size_t i = 0; i < 600; i++) v[i] = i % 2 ? UINT64_C(1) << 63 : 0;
    ref_delta_opts op64 = {128, 4, false, true, 0, false, false, false};
    check_stream(v, 600, &op64, 3, 50, false, "INT64 min delta INT64_MIN");
    for (size_t i = 0; i < 600; i++) v[i] = UINT64_MAX - 100 + i * 7;
    check_stream(v, 600, &op64, 4, 50, false, "INT64 wrap");
    /* Full-range random INT64: widths 64 with negative min deltas. */
    for (size_t i = 0; i < 600; i++) v[i] = ref_next(&r);
    check_stream(v, 600, &op64, 5, 33, true, "INT64 random");
    /* Decreasing (negative deltas). */
    for (size_t i = 0; i < 600; i++) v[i] = 0 - i * 1000 - ref_below(&r, 900);
    check_stream(v, 600, &op64, 6, 0, false, "INT64 decreasing");
    /* Short last miniblock without its padding bytes: the stream ends at the
     * last value's bits, the allocation exactly there. */
    for (size_t n = 33; n < 300; n += 37) {
        for (int bw = 1; bw <= 64; bw += 9) {
            gen(v, n, bw, true, 1, &r);
            ref_delta_opts opt = {128, 4, false, true, bw, false, true, false};
            check_stream(v, n, &opt, n, 0, false, "truncated last miniblock");
        }
    }
}

/* Blocks whose miniblocks have different widths (the kernels switch paths
 * from one miniblock to the next: width 0, 32-bit lanes, five-byte values,
 * the INT64 two-word and scalar cases, 32/33/64), streams starting near the
 * wrap-around, lengths up to 4200, read in one call or in chunks that split
 * miniblocks, with skips. */
static void test_mixed_widths(void) {
    ref_rng r = {23};
    static const int classes[] = {0, 0, 1, 5, 8, 9, 13, 16, 17, 25, 27, 30, 31, 32, -1};
    size_t ncls = sizeof classes / sizeof *classes;
    uint64_t *v = malloc(sizeof(uint64_t) * 4200);
    char what[96];
    for (int iter = 0; iter < 120; iter++) {
        bool is64 = iter % 2;
        size_t n = iter < 8 ? (size_t)iter * 129 : 1 + ref_below(&r, 4200);
        uint64_t md = iter % 3 == 0 ? 0 - ref_below(&r, 50) : ref_below(&r, 50);
        uint64_t x = iter % 4 == 0 ? (is64 ? UINT64_MAX - 3000 : 0x7FFFF000) : ref_next(&r);
        int cls = 0;
        for (size_t i = 0; i < n; i++) {
            /* Value i > 0 is delta i - 1 of its block: miniblocks start at
             * i = 1, 33, 65, ... */
            if (i % 32 == 1) cls = classes[ref_below(&r, ncls)];
            v[i] = is64 ? x : sext32(x);
            x += cls < 0 ? ref_next(&r) : md + (ref_next(&r) & ref_mask(cls));
        }
        ref_delta_opts op = {128, 4, !is64 && iter % 3 == 1, is64, 0, iter % 5 == 0,
                             iter % 5 == 1, iter % 5 == 2};
        snprintf(what, sizeof what, "mixed widths INT%d n %zu iter %d", is64 ? 64 : 32, n, iter);
        check_stream(v, n, &op, (uint64_t)iter, iter % 3 ? 0 : 1 + (size_t)iter % 97,
                     iter % 4 == 3, what);
    }
    free(v);
}

/* ---- Byte arrays (PLAIN, DELTA_LENGTH, DELTA_BYTE_ARRAY) through pk_decoder ------------ */

static void check_bytes(plank_encoding enc, plank_physical_type type, int32_t tlen,
                        const char *const *s, const size_t *len, size_t n, uint64_t seed) {
    ref_out o = {0};
    ref_rng r = {seed};
    if (enc == PLANK_ENC_DELTA_BYTE_ARRAY) {
        ref_delta_byte_array(&o, s, len, n, &r);
    } else if (enc == PLANK_ENC_PLAIN) {
        for (size_t i = 0; i < n; i++) {
            ref_u32le(&o, (uint32_t)len[i]);
            ref_bytes(&o, s[i], len[i]);
        }
    } else {
        ref_delta_length(&o, s, len, n, &r);
    }
    uint8_t *buf = malloc(o.size ? o.size : 1);
    if (o.size) memcpy(buf, o.data, o.size);
    for (int si = 0; si < nsets; si++) {
        pk_decoder d;
        plank_error err = {0};
        /* The kernels from init on: the page's lengths are decoded with them too. */
        CHECK(pk_decoder_init_k(&d, enc, type, tlen, buf, o.size, (int64_t)n, NULL, sets[si],
                                pk_default_allocator(), &err) == PLANK_OK);
        pk_buffer data;
        pk_buffer_init(&data, pk_default_allocator());
        int64_t *ends = malloc(sizeof(int64_t) * (n + 1));
        uint8_t *fixed = malloc(n * (size_t)(tlen > 0 ? tlen : 1) + 1);
        ref_rng cr = {seed + 9};
        bool ok = true;
        size_t bad = 0;
        for (size_t i = 0; i < n && ok;) {
            /* Reads of up to 50 values, and some of up to 600 (the keep
             * reads' 64-bit words of keep bits). */
            size_t m = 1 + ref_below(&cr, ref_below(&cr, 8) ? 50 : 600);
            if (m > n - i) m = n - i;
            if (ref_below(&cr, 4) == 0) {
                ok = pk_decoder_skip(&d, (int64_t)m, &err) == PLANK_OK;
            } else if (type == PLANK_FIXED_LEN_BYTE_ARRAY) {
                ok = pk_decoder_get_fixed(&d, (int64_t)m, fixed, &err) == PLANK_OK;
                for (size_t j = 0; ok && j < m; j++)
                    bad += memcmp(fixed + j * (size_t)tlen, s[i + j], (size_t)tlen) != 0;
            } else if (ref_below(&cr, 4) == 0) {
                /* Only the values whose bit of live (from a bit offset) is
                 * set; the others empty or themselves. */
                uint8_t live[96] = {0};
                size_t off = ref_below(&cr, 64), den = 1 + ref_below(&cr, 12);
                for (size_t j = 0; j < m; j++)
                    if (ref_below(&cr, (uint32_t)den) == 0)
                        live[(off + j) >> 3] |= (uint8_t)(1u << ((off + j) & 7));
                data.size = 0;
                ok = pk_decoder_get_binary_live(&d, (int64_t)m, live, (int64_t)off, &data, ends,
                                                &err) == PLANK_OK;
                int64_t st = 0;
                for (size_t j = 0; ok && j < m; j++) {
                    size_t got = (size_t)(ends[j] - st);
                    bool on = live[(off + j) >> 3] >> ((off + j) & 7) & 1;
                    bad += (on || got) && (got != len[i + j] ||
                                           (got && memcmp(data.data + st, s[i + j], got) != 0));
                    st = ends[j];
                }
            } else if (ref_below(&cr, 3) == 0) {
                /* Only the values whose bit is set, packed (the others are
                 * built for the next one's prefix, then overwritten, or,
                 * when few are kept, not built). */
                uint8_t keep[80] = {0};
                uint32_t den = ref_below(&cr, 2) ? 3 : 2 + ref_below(&cr, 30);
                bool sparse = den > 3;
                for (size_t j = 0; j < m; j++)
                    if (sparse ? ref_below(&cr, den) == 0 : ref_below(&cr, den) != 0)
                        keep[j >> 3] |= (uint8_t)(1u << (j & 7));
                data.size = 0;
                int64_t kept = -1;
                ok = pk_decoder_get_binary_keep(&d, (int64_t)m, keep, &data, ends, &kept, &err) ==
                     PLANK_OK;
                int64_t st = 0, c = 0;
                for (size_t j = 0; ok && j < m; j++) {
                    if (!(keep[j >> 3] >> (j & 7) & 1)) continue;
                    bad += (size_t)(ends[c] - st) != len[i + j] ||
                           (len[i + j] && memcmp(data.data + st, s[i + j], len[i + j]) != 0);
                    st = ends[c++];
                }
                bad += ok && kept != c;
            } else {
                data.size = 0;
                ok = pk_decoder_get_binary(&d, (int64_t)m, &data, ends, &err) == PLANK_OK;
                int64_t st = 0;
                for (size_t j = 0; ok && j < m; j++) {
                    bad += (size_t)(ends[j] - st) != len[i + j] ||
                           (len[i + j] && memcmp(data.data + st, s[i + j], len[i + j]) != 0);
                    st = ends[j];
                }
            }
            i += m;
        }
        CHECK_MSG(ok && bad == 0, "%s n %zu %s: %zu bad (%s)", plank_encoding_name(enc), n,
                  set_name(sets[si]), bad, err.message);
        pk_decoder_release(&d);
        if (type == PLANK_BYTE_ARRAY && n > 0) {
            /* The whole page in one keep read and one live read, a few
             * values kept hundreds apart: the gaps that dba_sparse sums
             * in line (up to 256 values) and those it gives the sum
             * kernel, between kept values and after the last one. */
            static const size_t at[] = {1, 255, 257, 300, 556, 557, 1500, 2999};
            uint8_t *keep = calloc(n / 8 + 1, 1);
            for (size_t a = 0; a < sizeof at / sizeof at[0]; a++)
                if (at[a] < n) keep[at[a] >> 3] |= (uint8_t)(1u << (at[a] & 7));
            for (int live = 0; live < 2; live++) {
                CHECK(pk_decoder_init_k(&d, enc, type, tlen, buf, o.size, (int64_t)n, NULL,
                                        sets[si], pk_default_allocator(), &err) == PLANK_OK);
                data.size = 0;
                int64_t kept = 0, st = 0, c = 0;
                if (live)
                    ok = pk_decoder_get_binary_live(&d, (int64_t)n, keep, 0, &data, ends, &err) ==
                         PLANK_OK;
                else
                    ok = pk_decoder_get_binary_keep(&d, (int64_t)n, keep, &data, ends, &kept,
                                                    &err) == PLANK_OK;
                bad = 0;
                for (size_t j = 0; ok && j < n; j++) {
                    bool on = keep[j >> 3] >> (j & 7) & 1;
                    if (!live && !on) continue;
                    size_t got = (size_t)(ends[c] - st);
                    bad += (on || got) &&
                           (got != len[j] || (got && memcmp(data.data + st, s[j], got) != 0));
                    st = ends[c++];
                }
                if (!live) bad += ok && kept != c;
                CHECK_MSG(ok && bad == 0, "%s n %zu %s, %s read of far-apart values: %zu bad (%s)",
                          plank_encoding_name(enc), n, set_name(sets[si]), live ? "live" : "keep",
                          bad, err.message);
                pk_decoder_release(&d);
            }
            free(keep);
        }
        pk_buffer_reset(&data);
        free(ends);
        free(fixed);
    }
    free(buf);
    free(o.data);
}

/* A PLAIN byte-array page with one bad length (past the page, or a page cut
 * inside a length), reached by a skip, a dense keep read and a sparse one
 * (the values before the kept one passed over by their lengths): each an
 * error that names the value, never a read past the page. */
static void test_plain_bytes_bad(void) {
    enum { N = 300 };
    for (size_t bad = 0; bad < N; bad += 37) {
        for (int cut = 0; cut < 2; cut++) {
            ref_out o = {0};
            for (size_t i = 0; i < N; i++) {
                if (cut && i == bad) {
                    ref_byte(&o, 5); /* two bytes of a length, then the page ends */
                    ref_byte(&o, 0);
                    break;
                }
                ref_u32le(&o, i == bad ? 100000 : 5);
                ref_bytes(&o, "abcde", 5);
            }
            char want[64];
            snprintf(want, sizeof want, "PLAIN byte array %zu", bad);
            for (int si = 0; si < nsets; si++) {
                for (int how = 0; how < 3; how++) {
                    pk_decoder d;
                    plank_error err = {0};
                    CHECK(pk_decoder_init_k(&d, PLANK_ENC_PLAIN, PLANK_BYTE_ARRAY, 0, o.data,
                                            o.size, N, NULL, sets[si], pk_default_allocator(),
                                            &err) == PLANK_OK);
                    pk_buffer data;
                    pk_buffer_init(&data, pk_default_allocator());
                    int64_t ends[N], kept = 0;
                    uint8_t keep[N / 8 + 1] = {0};
                    keep[(N - 1) / 8] = (uint8_t)(1u << ((N - 1) % 8)); /* the last value */
                    if (how == 1) memset(keep, 0xFF, sizeof keep);
                    plank_status st;
                    if (how == 0)
                        st = pk_decoder_skip(&d, N, &err);
                    else
                        st = pk_decoder_get_binary_keep(&d, N, keep, &data, ends, &kept, &err);
                    CHECK_MSG(st == PLANK_ERR_CORRUPT && strstr(err.message, want),
                              "bad %zu cut %d how %d %s: status %d, '%s'", bad, cut, how,
                              set_name(sets[si]), (int)st, err.message);
                    pk_buffer_reset(&data);
                    pk_decoder_release(&d);
                }
            }
            free(o.data);
        }
    }
}

static void test_byte_arrays(void) {
    ref_rng r = {13};
    enum { N = 3000 };
    char **s = malloc(sizeof(char *) * N);
    size_t *len = malloc(sizeof(size_t) * N);
    size_t ns[] = {0, 1, 2, 127, 128, 129, 1000, N};
    /* Sorted-ish strings so DELTA_BYTE_ARRAY has prefixes, some empty:
     * shared prefixes up to 6 bytes, then up to 30 (over the 16 bytes a
     * register holds) among longer values, then up to 70 among values of up
     * to 100 bytes (a sparse read sizes its output by adding up the kept
     * values' lengths where some value is over 64 bytes, by a bound below). */
    for (int pass = 0; pass < 3; pass++) {
        size_t share = pass == 2 ? 70 : pass ? 30 : 6, maxlen = pass == 2 ? 100 : pass ? 60 : 40;
        for (size_t i = 0; i < N; i++) {
            size_t l = ref_below(&r, 5) == 0 ? 0 : 1 + ref_below(&r, maxlen);
            if (pass) free(s[i]);
            s[i] = malloc(l + 1);
            size_t sh = ref_below(&r, share + 1);
            for (size_t j = 0; j < l; j++)
                s[i][j] = (char)(j < sh && i > 0 && j < len[i - 1] ? s[i - 1][j]
                                                                   : (char)('a' + ref_below(&r, 26)));
            len[i] = l;
        }
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            check_bytes(PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0,
                        (const char *const *)s, len, ns[k], k);
            check_bytes(PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0, (const char *const *)s,
                        len, ns[k], k + 100);
            check_bytes(PLANK_ENC_PLAIN, PLANK_BYTE_ARRAY, 0, (const char *const *)s, len, ns[k],
                        k + 200);
        }
    }
    /* FIXED_LEN_BYTE_ARRAY(5) */
    for (size_t i = 0; i < N; i++) {
        free(s[i]);
        s[i] = malloc(5);
        for (size_t j = 0; j < 5; j++)
            s[i][j] = (char)(j < 3 && i > 0 ? s[i - 1][j] : (char)('a' + ref_below(&r, 26)));
        if (ref_below(&r, 10) == 0) s[i][0] = 'z';
        len[i] = 5;
    }
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        check_bytes(PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY, 5,
                    (const char *const *)s, len, ns[k], k);
        check_bytes(PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY, 5,
                    (const char *const *)s, len, ns[k], k + 100);
    }
    /* One value of 3 bytes among FIXED_LEN_BYTE_ARRAY(5) ones, at every
     * place: an error naming it, at every level. */
    for (size_t at = 0; at < 40; at++) {
        size_t was = len[at];
        len[at] = 3;
        ref_out o = {0};
        ref_rng rr = {at};
        ref_delta_byte_array(&o, (const char *const *)s, len, 40, &rr);
        char want[64];
        snprintf(want, sizeof want, "value %zu is 3 bytes long", at);
        for (int si = 0; si < nsets; si++) {
            pk_decoder d;
            plank_error err = {0};
            CHECK_MSG(pk_decoder_init_k(&d, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY,
                                        5, o.data, o.size, 40, NULL, sets[si],
                                        pk_default_allocator(), &err) == PLANK_ERR_CORRUPT &&
                          strstr(err.message, want) != NULL,
                      "short value %zu %s: %s", at, set_name(sets[si]), err.message);
        }
        free(o.data);
        len[at] = was;
    }
    for (size_t i = 0; i < N; i++) free(s[i]);
    free(s);
    free(len);
}

/* A miniblock whose packed bytes are missing is an error at every level (the
 * stream ends at the last value, so every cut removes needed bytes). */
/* Sorted and clustered streams, where runs can be passed over: a narrow
 * interval must skip most of the values (and check_bounded checks every
 * value), at every level, lengths up to 4096, both types, increasing and
 * decreasing, narrow and wide deltas. */
static void test_bounded_skips(void) {
    ref_rng r = {29};
    uint64_t *v = malloc(sizeof(uint64_t) * 4096);
    char what[96];
    for (int iter = 0; iter < 60; iter++) {
        bool is64 = iter % 2, down = iter % 3 == 1;
        size_t n = iter < 4 ? (size_t)iter * 33 : 1000 + ref_below(&r, 3097);
        int bw = (int)ref_below(&r, 12);
        uint64_t x = is64 ? ref_next(&r) >> 2 : (uint64_t)ref_below(&r, 1u << 20);
        for (size_t i = 0; i < n; i++) {
            v[i] = is64 ? x : sext32(x);
            uint64_t step = ref_next(&r) & ref_mask(bw);
            x = down ? x - step : x + step;
        }
        ref_delta_opts op = {blocks[iter % 5][0], blocks[iter % 5][1], false, is64, 0, false,
                             iter % 4 == 1, false};
        ref_out o = {0};
        ref_rng er = {(uint64_t)iter};
        ref_delta(&o, v, n, &op, &er);
        uint8_t *buf = malloc(o.size);
        memcpy(buf, o.data, o.size);
        /* A window of 40 values in the middle. */
        size_t mid = n / 2, end = mid + 40 < n ? mid + 40 : n;
        int64_t lo = n ? sval(v[mid], is64) : 0, hi = n ? sval(v[end - 1], is64) : 0;
        if (lo > hi) {
            int64_t t = lo;
            lo = hi;
            hi = t;
        }
        for (int s = 1; s < nsets; s++) {
            snprintf(what, sizeof what, "sorted INT%d n %zu bw %d %s", is64 ? 64 : 32, n, bw,
                     down ? "down" : "up");
            int64_t sk = check_bounded(v, n, buf, o.size, &op, sets[s], (uint64_t)iter,
                                       iter % 4 < 2 ? 0 : 100, lo, hi, what);
            /* Read in one call: every miniblock but the few around the
             * window (chunks split groups, whose pieces are decoded). */
            int64_t vpm = (int64_t)(op.block / op.minis);
            if (bw > 0 && n >= 1000 && iter % 4 < 2)
                CHECK_MSG(sk > (int64_t)n / 2 - 4 * vpm, "%s %s: %lld of %zu passed over", what,
                          set_name(sets[s]), (long long)sk, n);
        }
        free(buf);
        free(o.data);
    }
    free(v);
}

static void test_corrupt(void) {
    uint64_t v[200];
    ref_rng r = {17};
    gen(v, 200, 20, true, 0, &r);
    ref_out o = {0};
    ref_delta_opts op = {128, 4, false, true, 20, false, true, false};
    ref_delta(&o, v, 200, &op, &r);
    for (size_t cut = 1; cut < o.size; cut += 7) {
        uint8_t *buf = malloc(o.size - cut);
        memcpy(buf, o.data, o.size - cut);
        for (int s = 0; s < nsets; s++) {
            pk_delta_decoder d;
            plank_error err = {0};
            uint8_t out[200 * 8];
            bool ok = pk_delta_init(&d, buf, o.size - cut, true, &err) == PLANK_OK &&
                      pk_delta_read_i64(&d, sets[s], out, 200, &err) == PLANK_OK;
            CHECK_MSG(!ok && err.code == PLANK_ERR_CORRUPT, "cut %zu %s", cut, set_name(sets[s]));
        }
        free(buf);
    }
    free(o.data);
}

/* pk_compact_binary against a loop over the kept values: 4- and 8-byte ends,
 * in place and from a separate source, lengths 0..300 with words of 64 kept
 * values (the block move), none kept, and random bits; values 0..40 bytes. */
static void test_compact_binary(void) {
    ref_rng r = {41};
    for (int iter = 0; iter < 400; iter++) {
        int64_t n = (int64_t)ref_below(&r, 301), first = (int64_t)ref_below(&r, 20);
        size_t ow = iter % 2 ? 8 : 4;
        bool in_place = iter % 3 != 0;
        int mode = iter % 4; /* 0: random, 1: all kept, 2: none, 3: mostly kept */
        uint8_t keep[48] = {0};
        for (int64_t i = 0; i < n; i++) {
            bool k = mode == 1 || (mode == 0 && ref_below(&r, 2)) ||
                     (mode == 3 && ref_below(&r, 20) != 0);
            if (k) keep[i >> 3] |= (uint8_t)(1u << (i & 7));
        }
        int64_t *end = malloc(sizeof(int64_t) * (size_t)(n + 1));
        int64_t at = first;
        for (int64_t i = 0; i < n; i++) end[i] = at += (int64_t)ref_below(&r, 41);
        size_t cap = (size_t)at + 64;
        uint8_t *src = malloc(cap), *data = malloc(cap), *want = malloc(cap);
        for (size_t i = 0; i < cap; i++) src[i] = (uint8_t)ref_next(&r);
        memcpy(data, src, cap);
        uint8_t *e = malloc(ow * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) {
            if (ow == 8) ((int64_t *)(void *)e)[i] = end[i];
            else ((int32_t *)(void *)e)[i] = (int32_t)end[i];
        }
        int64_t wk = 0, wpos = first;
        int64_t *wend = malloc(sizeof(int64_t) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) {
            if (!(keep[i >> 3] >> (i & 7) & 1)) continue;
            int64_t from = i ? end[i - 1] : first;
            memcpy(want + wpos, src + from, (size_t)(end[i] - from));
            wpos += end[i] - from;
            wend[wk++] = wpos;
        }
        /* From a separate source: value i at src + start(i) - first. */
        int64_t got = pk_compact_binary(data, first, e, ow, n, keep,
                                        in_place ? NULL : src + first, src + cap);
        bool ok = got == wk && memcmp(data + first, want + first, (size_t)(wpos - first)) == 0;
        for (int64_t k = 0; ok && k < wk; k++)
            ok = (ow == 8 ? ((int64_t *)(void *)e)[k] : ((int32_t *)(void *)e)[k]) == wend[k];
        CHECK_MSG(ok, "compact_binary iter %d n %lld ow %zu %s mode %d: %lld kept of %lld", iter,
                  (long long)n, ow, in_place ? "in place" : "from src", mode, (long long)got,
                  (long long)wk);
        free(end);
        free(src);
        free(data);
        free(want);
        free(e);
        free(wend);
    }
}

int main(void) {
    init_sets();
    test_kernels();
    test_widths();
    test_lengths_and_splits();
    test_special();
    test_mixed_widths();
    test_bounded_skips();
    test_live_densities();
    test_byte_arrays();
    test_plain_bytes_bad();
    test_compact_binary();
    test_corrupt();
    TEST_END();
}
