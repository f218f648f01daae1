/*
 * test_simd_dict.c: dictionary gather kernels at every dispatch level this
 * machine has: against a plain index loop, for small (permute) and large
 * (gather) dictionaries, lengths 0..4096, unaligned outputs and out-of-range
 * indices anywhere in the batch; then whole dictionary-encoded pages through
 * pk_decoder (indices in the RLE/bit-packed hybrid of every index width,
 * written by the reference encoder of enc_ref.h) against the known values.
 */
#include "enc_ref.h"
#include "tharness.h"

#include "encoding/pk_encoding.h"
#include "simd_sets.h"

static const pk_kernels *sets[4];
static int nsets;

static void init_sets(void) { nsets = simd_sets(sets); }

static void check_gather(const pk_kernels *k, size_t w, int64_t count, size_t n, ref_rng *r) {
    uint8_t *dict = malloc((size_t)count * w + 1); /* exact size: ASan sees stray reads */
    for (size_t i = 0; i < (size_t)count * w; i++) dict[i] = (uint8_t)ref_next(r);
    /* Indices from an exact-size allocation, starting at any of 0..15 entries in. */
    size_t ioff = ref_below(r, 16);
    uint32_t *imem = malloc(sizeof(uint32_t) * (n + ioff + 1)), *idx = imem + ioff;
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)ref_below(r, (uint64_t)count);
    if (n) idx[ref_below(r, n)] = (uint32_t)(count - 1);
    size_t off = ref_below(r, 8);
    uint8_t *out = malloc(n * w + off + 1);
    bool (*g)(const uint8_t *, int64_t, const uint32_t *, size_t, uint8_t *) =
        w == 4 ? k->dict_gather32 : k->dict_gather64;
    bool ok = g(dict, count, idx, n, out + off);
    size_t bad = 0;
    for (size_t i = 0; ok && i < n; i++)
        bad += memcmp(out + off + i * w, dict + (size_t)idx[i] * w, w) != 0;
    CHECK_MSG(ok && bad == 0, "%s w %zu count %lld n %zu: ok %d, %zu bad",
              pk_simd_level_name(k->level), w, (long long)count, n, ok, bad);
    /* One index out of range, anywhere: refused. */
    if (n) {
        size_t at = ref_below(r, n);
        uint32_t keep = idx[at];
        idx[at] = ref_below(r, 2) ? (uint32_t)count : UINT32_MAX - (uint32_t)ref_below(r, 3);
        CHECK_MSG(!g(dict, count, idx, n, out + off), "%s w %zu count %lld n %zu: bad index %u at %zu accepted",
                  pk_simd_level_name(k->level), w, (long long)count, n, idx[at], at);
        idx[at] = keep;
    }
    free(dict);
    free(imem);
    free(out);
}

static void test_kernels(void) {
    ref_rng r = {21};
    /* Around the register lookups' limits (8/16 entries of AVX2, 16/32 of AVX-512) and
     * gathers from small and large dictionaries. */
    static const int64_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 70000};
    /* At AVX-512 also the table this CPU does not use: hardware gathers on CPUs
     * with slow ones, scalar loads elsewhere (pk_kernels_avx512_alternate). */
    const pk_kernels *alt = nsets ? pk_kernels_avx512_alternate(sets[nsets - 1]) : NULL;
    if (alt && nsets < 4) sets[nsets++] = alt;
    fprintf(stderr, "gathers: %d tables%s\n", nsets,
            alt ? " (both AVX-512 gather variants)" : "");
    for (int s = 0; s < nsets; s++) {
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
            for (size_t n = 0; n <= 4096; n += n < 70 ? 1 : 331) {
                check_gather(sets[s], 4, counts[ci], n, &r);
                check_gather(sets[s], 8, counts[ci], n, &r);
            }
        }
    }
}

/* A page of n indices into a dictionary of `count` values of type `type`,
 * with index bit width bw (>= the width the indices need). */
static void check_page(plank_physical_type type, int64_t count, size_t n, int bw, ref_rng *r) {
    size_t w = type == PLANK_INT64 || type == PLANK_DOUBLE ? 8 : 4;
    uint8_t *dvals = malloc((size_t)count * w);
    for (size_t i = 0; i < (size_t)count * w; i++) dvals[i] = (uint8_t)ref_next(r);
    pk_dict dict;
    plank_error err = {0};
    CHECK(pk_dict_decode(&dict, type, 0, dvals, (size_t)count * w, count,
                         pk_default_allocator(), &err) == PLANK_OK);
    uint32_t *idx = malloc(sizeof(uint32_t) * (n + 1));
    ref_fill_runs(idx, n, pk_bit_width_for((uint64_t)count - 1), r);
    for (size_t i = 0; i < n; i++) idx[i] %= (uint32_t)count;
    ref_out o = {0};
    ref_byte(&o, (uint8_t)bw);
    ref_hybrid(&o, idx, n, bw, r);
    uint8_t *page = malloc(o.size);
    memcpy(page, o.data, o.size);
    uint8_t *out = malloc(n * w + 1);
    for (int s = -1; s < nsets; s++) {
        pk_decoder d;
        /* As the column reader opens a page: the kernels given at init,
         * which must reach the indices' RLE decoder too. */
        CHECK(pk_decoder_init_k(&d, PLANK_ENC_RLE_DICTIONARY, type, 0, page, o.size,
                                (int64_t)n, &dict, s < 0 ? NULL : sets[s],
                                pk_default_allocator(), &err) == PLANK_OK);
        CHECK(d.rle.kernels == (s < 0 ? NULL : sets[s]));
        bool ok = true;
        for (size_t i = 0; ok && i < n;) {
            size_t m = 1 + ref_below(r, 700);
            if (m > n - i) m = n - i;
            ok = pk_decoder_get_fixed(&d, (int64_t)m, out + i * w, &err) == PLANK_OK;
            i += m;
        }
        size_t bad = 0;
        for (size_t i = 0; ok && i < n; i++) bad += memcmp(out + i * w, dvals + idx[i] * w, w) != 0;
        CHECK_MSG(ok && bad == 0, "page count %lld n %zu bw %d %s: %zu bad (%s)",
                  (long long)count, n, bw, s < 0 ? "reference" : pk_simd_level_name(sets[s]->level),
                  bad, err.message);
        pk_decoder_release(&d);
    }
    free(out);
    free(page);
    free(o.data);
    /* The same indices with one out of range: PLANK_ERR_CORRUPT at every level. */
    if (n && bw >= pk_bit_width_for((uint64_t)count)) {
        idx[ref_below(r, n)] = (uint32_t)count;
        ref_out o2 = {0};
        ref_byte(&o2, (uint8_t)bw);
        ref_hybrid(&o2, idx, n, bw, r);
        uint8_t *out2 = malloc(n * w);
        for (int s = -1; s < nsets; s++) {
            pk_decoder d;
            CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, type, 0, o2.data, o2.size,
                                  (int64_t)n, &dict, pk_default_allocator(), &err) == PLANK_OK);
            pk_decoder_use_kernels(&d, s < 0 ? NULL : sets[s]);
            plank_status st = pk_decoder_get_fixed(&d, (int64_t)n, out2, &err);
            CHECK_MSG(st == PLANK_ERR_CORRUPT && strstr(err.message, "out of range"),
                      "count %lld n %zu: status %d", (long long)count, n, (int)st);
            pk_decoder_release(&d);
        }
        free(out2);
        free(o2.data);
    }
    free(idx);
    free(dvals);
    pk_dict_release(&dict);
}

static void test_pages(void) {
    ref_rng r = {23};
    static const plank_physical_type types[] = {PLANK_INT32, PLANK_FLOAT, PLANK_INT64,
                                                PLANK_DOUBLE};
    static const int64_t counts[] = {1, 3, 8, 16, 17, 300, 5000};
    for (size_t t = 0; t < 4; t++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            for (int bw = pk_bit_width_for((uint64_t)counts[c] - 1); bw <= 32; bw += 3)
                check_page(types[t], counts[c], 1 + ref_below(&r, 3000), bw, &r);
}

int main(void) {
    init_sets();
    test_kernels();
    test_pages();
    TEST_END();
}
