/* test_simd_levels.c: the level kernels (count equal, sum of 0/1 levels,
 * range check, definition levels to validity bitmap, the writer's histogram) at every dispatch
 * level this machine has, against plain loops written here. */
#include "simd/pk_kernels.h"
#include "simd_sets.h"
#include "enc_ref.h"
#include "tharness.h"

static int64_t ref_count(const int16_t *lv, size_t n, int16_t v) {
    int64_t c = 0;
    for (size_t i = 0; i < n; i++) c += lv[i] == v;
    return c;
}

/* Exact-size copy so ASan sees any over-read. */
static int16_t *copy_levels(const int16_t *lv, size_t n) {
    int16_t *p = malloc(n ? n * 2 : 1);
    if (n) memcpy(p, lv, n * 2);
    return p;
}

static void test_count(const pk_kernels *k, const int16_t *src, size_t n) {
    int16_t *lv = copy_levels(src, n);
    for (int16_t v = 0; v <= 3; v++)
        CHECK_MSG(k->count_eq16(lv, n, v) == ref_count(lv, n, v), "count n %zu v %d level %s", n,
                  (int)v, pk_simd_level_name(k->level));
    free(lv);
}

static void test_counting(const pk_kernels *k) {
    ref_rng r = {3};
    size_t maxn = 0x1FFFF + 40;
    int16_t *lv = malloc(maxn * 2), *ones = malloc(maxn * 2);
    for (size_t i = 0; i < maxn; i++) lv[i] = (int16_t)ref_below(&r, 3);
    for (size_t i = 0; i < maxn; i++) ones[i] = 2;
    /* Empty, around the vector width and chunk sizes, and a spread. */
    for (size_t n = 0; n <= 300; n++) test_count(k, lv, n);
    static const size_t big[] = {1000, 4095, 4096, 4097, 0xFFC0, 0xFFFE, 0xFFFF, 0x10000,
                                 0x10001, 0x1FFFE, 0x1FFFF, 0x1FFFF + 33};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        test_count(k, lv, big[i]);
        /* All-match and no-match: would wrap a 16-bit total if chunks were wrong. */
        int16_t *c = copy_levels(ones, big[i]);
        CHECK_EQ_I64(k->count_eq16(c, big[i], 2), (int64_t)big[i]);
        CHECK_EQ_I64(k->count_eq16(c, big[i], 1), 0);
        free(c);
    }
    /* Summing 0/1 levels equals counting the ones. */
    for (size_t i = 0; i < maxn; i++) lv[i] = (int16_t)ref_below(&r, 2);
    for (size_t n = 0; n <= 300; n++) CHECK_EQ_I64(k->sum01_16(lv, n), ref_count(lv, n, 1));
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        int16_t *c = copy_levels(lv, big[i]);
        CHECK_EQ_I64(k->sum01_16(c, big[i]), ref_count(c, big[i], 1));
        for (size_t j = 0; j < big[i]; j++) c[j] = 1;
        CHECK_EQ_I64(k->sum01_16(c, big[i]), (int64_t)big[i]);
        free(c);
    }
    free(lv);
    free(ones);
}

/* Every length 0..4096 at every start offset 0..15 levels from an aligned
 * allocation that ends with the last level (so ASan sees any read past it),
 * through the kernel and
 * through pk_count_eq16, with negative levels and a negative value too. The
 * AVX2 kernel switches paths at 4, 8, 16 and 64 levels and per chunk. */
static void test_offsets(const pk_kernels *k) {
    ref_rng r = {19};
    int16_t *src = malloc((4096 + 16) * 2);
    for (size_t i = 0; i < 4096 + 16; i++) src[i] = (int16_t)((int)ref_below(&r, 4) - 1);
    for (size_t n = 0; n <= 4096; n += n < 200 ? 1 : 61) {
        for (size_t off = 0; off < 16; off++) {
            int16_t *mem = malloc((off + n) * 2 + (off + n == 0)), *lv = mem + off;
            if (n) memcpy(lv, src + off, n * 2);
            for (int16_t v = -1; v <= 2; v += 3) {
                int64_t want = ref_count(lv, n, v);
                CHECK_MSG(k->count_eq16(lv, n, v) == want && pk_count_eq16(k, lv, n, v) == want,
                          "count n %zu offset %zu v %d level %s", n, off, (int)v,
                          pk_simd_level_name(k->level));
            }
            for (size_t i = 0; i < n; i++) lv[i] = (int16_t)(lv[i] & 1);
            CHECK_MSG(k->sum01_16(lv, n) == ref_count(lv, n, 1), "sum n %zu offset %zu level %s",
                      n, off, pk_simd_level_name(k->level));
            free(mem);
        }
    }
    free(src);
}

/* levels_in_range and def_to_bitmap over lengths 0..4096 at every start offset 0..15
 * levels, from exact-size allocations (ASan sees any read past the last level), with
 * one bad level placed last, first and in the middle. */
static void test_range_offsets(const pk_kernels *k) {
    ref_rng r = {29};
    int16_t *src = malloc((4096 + 16) * 2);
    for (size_t i = 0; i < 4096 + 16; i++) src[i] = (int16_t)ref_below(&r, 3);
    for (size_t n = 0; n <= 4096; n += n < 200 ? 1 : 61) {
        for (size_t off = 0; off < 16; off++) {
            int16_t *mem = malloc((off + n) * 2 + (off + n == 0)), *lv = mem + off;
            if (n) memcpy(lv, src + off, n * 2);
            CHECK_MSG(k->levels_in_range(lv, n, 2), "range n %zu offset %zu level %s", n, off,
                      pk_simd_level_name(k->level));
            size_t at[3] = {n - 1, 0, n / 2};
            for (int j = 0; j < 3 && n; j++) {
                int16_t keep = lv[at[j]];
                lv[at[j]] = j == 1 ? -1 : 3;
                CHECK_MSG(!k->levels_in_range(lv, n, 2), "range n %zu offset %zu bad at %zu level %s",
                          n, off, at[j], pk_simd_level_name(k->level));
                lv[at[j]] = keep;
            }
            int64_t bit_off = (int64_t)(off * 5 % 8);
            size_t nbytes = ((size_t)bit_off + n + 7) / 8;
            uint8_t *bits = malloc(nbytes + 1);
            memset(bits, 0xFF, nbytes + 1);
            int64_t got = k->def_to_bitmap(lv, n, 2, bits, bit_off);
            int bad = got != ref_count(lv, n, 2) || bits[nbytes] != 0xFF;
            for (size_t i = 0; i < n; i++)
                bad |= ((bits[((size_t)bit_off + i) / 8] >> (((size_t)bit_off + i) % 8)) & 1) !=
                       (lv[i] == 2);
            CHECK_MSG(!bad, "bitmap n %zu offset %zu bit offset %lld level %s", n, off,
                      (long long)bit_off, pk_simd_level_name(k->level));
            free(bits);
            free(mem);
        }
    }
    free(src);
}

/* Millions of levels: sum01_16 and count_eq16 across the chunks of every kernel
 * (the AVX-512 sum folds every 64 * 0x3FFF levels). */
static void test_long(const pk_kernels *k) {
    size_t n = 3 * 64 * 0x3FFF + 77;
    int16_t *lv = malloc(n * 2);
    for (size_t i = 0; i < n; i++) lv[i] = 1;
    CHECK_EQ_I64(k->sum01_16(lv, n), (int64_t)n);
    CHECK_EQ_I64(k->count_eq16(lv, n, 1), (int64_t)n);
    ref_rng r = {31};
    for (size_t i = 0; i < n; i++) lv[i] = (int16_t)ref_below(&r, 2);
    CHECK_EQ_I64(k->sum01_16(lv, n), ref_count(lv, n, 1));
    CHECK_EQ_I64(k->count_eq16(lv, n, 0), ref_count(lv, n, 0));
    free(lv);
}

static void test_range(const pk_kernels *k) {
    for (size_t n = 0; n <= 70; n++) {
        int16_t *lv = malloc(n ? n * 2 : 1);
        for (size_t i = 0; i < n; i++) lv[i] = (int16_t)(i % 4);
        CHECK(k->levels_in_range(lv, n, 3));
        CHECK(k->levels_in_range(lv, n, INT16_MAX));
        /* One bad level at every position: too large, negative. */
        for (size_t j = 0; j < n; j++) {
            int16_t keep = lv[j];
            lv[j] = 4;
            CHECK_MSG(!k->levels_in_range(lv, n, 3), "range n %zu at %zu", n, j);
            lv[j] = -1;
            CHECK_MSG(!k->levels_in_range(lv, n, 3), "range n %zu neg at %zu", n, j);
            lv[j] = INT16_MIN;
            CHECK(!k->levels_in_range(lv, n, INT16_MAX));
            lv[j] = keep;
        }
        free(lv);
    }
}

static void test_bitmap(const pk_kernels *k) {
    ref_rng r = {11};
    int16_t src[400];
    for (size_t n = 0; n <= 300; n++) {
        for (size_t i = 0; i < n; i++) src[i] = (int16_t)ref_below(&r, 3);
        int16_t *def = copy_levels(src, n);
        for (int64_t off = 0; off < 19; off++) {
            size_t nbytes = (size_t)(off + (int64_t)n + 7) / 8 + 2;
            uint8_t *bits = malloc(nbytes);
            memset(bits, 0xFF, nbytes);
            int64_t got = k->def_to_bitmap(def, n, 2, bits, off);
            int bad = got != ref_count(def, n, 2);
            /* Bits before the offset kept (all ones), the levels' bits, then
             * zeros to the end of the last written byte, then untouched. */
            size_t end_bit = (size_t)off + n;
            size_t last_byte = n ? (end_bit + 7) / 8 : (size_t)off / 8;
            for (size_t b = 0; b < nbytes * 8; b++) {
                int bit = (bits[b / 8] >> (b % 8)) & 1;
                int want;
                if (b < (size_t)off) want = 1;
                else if (b < end_bit) want = def[b - (size_t)off] == 2;
                else if (n && b / 8 < last_byte) want = 0;
                else want = 1;
                bad |= bit != want;
            }
            CHECK_MSG(!bad, "bitmap n %zu offset %lld level %s", n, (long long)off,
                      pk_simd_level_name(k->level));
            free(bits);
        }
        free(def);
    }
}

/* The level histogram against a plain count written here: hist[l] for l in 1..max is
 * the number of levels equal to l, hist[0] the rest (so out-of-range levels land there),
 * added to what hist held; hist[max + 1] and the slot before hist[0] untouched. Every
 * max 0..40 (the vector kernels pass 8 levels at a time and hand over to the scalar one
 * past 16 or 32), lengths 0..4096 at start offsets 0..15, runs and random levels, some
 * outside 0..max. */
static void ref_hist(const int16_t *lv, size_t n, int max, int64_t *h) {
    for (size_t i = 0; i < n; i++) {
        int x = lv[i];
        h[x >= 1 && x <= max ? x : 0]++;
    }
}

static bool hist_case(const pk_kernels *k, const int16_t *lv, size_t n, int max) {
    int64_t want[48], got[48];
    for (int l = 0; l < 48; l++) want[l] = got[l] = 1000 + l; /* the kernel adds */
    ref_hist(lv, n, max, want + 1);
    k->level_hist16(lv, n, (int16_t)max, got + 1);
    return memcmp(want, got, sizeof want) == 0;
}

static void test_histogram(const pk_kernels *k) {
    ref_rng r = {23};
    int16_t *src = malloc((4096 + 16) * 2);
    for (int max = 0; max <= 40; max++) {
        for (int shape = 0; shape < 3; shape++) {
            for (size_t i = 0; i < 4096 + 16; i++) {
                int x = (int)ref_below(&r, (uint64_t)max + 1);
                if (shape == 1) x = (int)((i / 37) % ((size_t)max + 1)); /* runs */
                if (shape == 2 && ref_below(&r, 16) == 0)
                    x = ref_below(&r, 2) ? -1 - (int)ref_below(&r, 3) : max + 1 + (int)ref_below(&r, 3);
                src[i] = (int16_t)x;
            }
            for (size_t n = 0; n <= 4096; n += n < 100 ? 1 : 97 + max) {
                size_t off = (n + (size_t)max + (size_t)shape) % 16;
                int16_t *mem = malloc((off + n) * 2 + 2), *lv = mem + off;
                if (n) memcpy(lv, src + off, n * 2);
                CHECK_MSG(hist_case(k, lv, n, max), "histogram n %zu offset %zu max %d shape %d level %s",
                          n, off, max, shape, pk_simd_level_name(k->level));
                free(mem);
            }
        }
    }
    free(src);
    /* Past the 16-bit lane chunks of the vector kernels: all one level, and a mix. */
    size_t big = (size_t)32 * 0x7FFF * 2 + 77;
    int16_t *lv = malloc(big * 2);
    for (int max = 1; max <= 9; max += 4) {
        for (size_t i = 0; i < big; i++) lv[i] = (int16_t)max;
        CHECK_MSG(hist_case(k, lv, big, max), "long run max %d level %s", max,
                  pk_simd_level_name(k->level));
        for (size_t i = 0; i < big; i++) lv[i] = (int16_t)ref_below(&r, (uint64_t)max + 1);
        CHECK_MSG(hist_case(k, lv, big, max), "long mix max %d level %s", max,
                  pk_simd_level_name(k->level));
    }
    free(lv);
}

int main(void) {
    const pk_kernels *tabs[4];
    int ntab = pk_kernels_available(tabs);
    CHECK(ntab >= 1 && tabs[0]->level == PK_SIMD_SCALAR);
    /* Every level up to the detected one (capped by PLANK_SIMD) has a table of its own. */
    pk_cpu cpu;
    pk_cpu_detect(&cpu);
#ifdef PK_KERNELS_X86
    CHECK_EQ_I64(ntab, (int64_t)cpu.level + 1);
#endif
    CHECK(tabs[ntab - 1]->level == cpu.level);
    simd_print_levels(tabs, ntab);
    for (int t = 0; t < ntab; t++) {
        /* A table entry left out is a NULL pointer: every kernel must be set. */
        const pk_kernels *k = tabs[t];
        CHECK(k->unpack8 && k->unpack16 && k->unpack32 && k->unpack64 && k->count_eq16 &&
              k->sum01_16 && k->levels_in_range && k->def_to_bitmap && k->level_hist16);
        CHECK(k->delta_i32 && k->delta_i64 && k->dict_gather32 && k->dict_gather64 &&
              k->bss_decode);
        test_counting(tabs[t]);
        test_offsets(tabs[t]);
        test_range(tabs[t]);
        test_range_offsets(tabs[t]);
        test_bitmap(tabs[t]);
        test_long(tabs[t]);
        test_histogram(tabs[t]);
    }
    TEST_END();
}
