/*
 * test_simd_dict.c: dictionary gather kernels at every dispatch level this
 * machine has: against a plain index loop, for small (permute) and large
 * (gather) dictionaries, lengths 0..4096, unaligned outputs and out-of-range
 * indices anywhere in the batch; then whole dictionary-encoded pages through
 * pk_decoder (indices in the RLE/bit-packed hybrid of every index width,
 * written by the reference encoder of enc_ref.h) against the known values;
 * and byte-array dictionary pages (dictionaries with and without the short
 * entries' slot table, both slot widths) read whole, in pieces, with keep
 * bits and skips, against the strings the test made.
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

/* n random indices (runs and bit-packed values) below count into idx, and
 * a data page of them at index width bw, copied to an exact-size allocation
 * (ASan sees stray reads); its size in *size. */
static uint8_t *index_page(uint32_t *idx, size_t n, int64_t count, int bw, ref_rng *r,
                           size_t *size) {
    ref_fill_runs(idx, n, pk_bit_width_for((uint64_t)count - 1), r);
    for (size_t i = 0; i < n; i++) idx[i] %= (uint32_t)count;
    ref_out o = {0};
    ref_byte(&o, (uint8_t)bw);
    ref_hybrid(&o, idx, n, bw, r);
    uint8_t *page = malloc(o.size);
    memcpy(page, o.data, o.size);
    *size = o.size;
    free(o.data);
    return page;
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
    size_t psize;
    uint8_t *page = index_page(idx, n, count, bw, r, &psize);
    uint8_t *out = malloc(n * w + 1);
    for (int s = -1; s < nsets; s++) {
        pk_decoder d;
        /* As the column reader opens a page: the kernels given at init,
         * which must reach the indices' RLE decoder too. */
        CHECK(pk_decoder_init_k(&d, PLANK_ENC_RLE_DICTIONARY, type, 0, page, psize,
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

/* A BYTE_ARRAY dictionary of `count` strings of 0..maxlen bytes (one of
 * exactly maxlen), a page of n indices: read by pk_decoder_get_binary,
 * _keep and skips in random pieces at every level, each value compared with
 * its string; then the same page with one index out of range fails. */
static void check_byte_page(int64_t count, size_t maxlen, size_t n, ref_rng *r) {
    char **s = malloc(sizeof(char *) * (size_t)count);
    size_t *len = malloc(sizeof(size_t) * (size_t)count);
    ref_out dp = {0};
    for (int64_t i = 0; i < count; i++) {
        len[i] = i == count / 2 ? maxlen : (size_t)ref_below(r, maxlen + 1);
        s[i] = malloc(len[i] + 1);
        for (size_t j = 0; j < len[i]; j++) s[i][j] = (char)ref_next(r);
        ref_u32le(&dp, (uint32_t)len[i]);
        ref_bytes(&dp, s[i], len[i]);
    }
    uint8_t *dpage = malloc(dp.size + 1);
    if (dp.size) memcpy(dpage, dp.data, dp.size);
    pk_dict dict;
    plank_error err = {0};
    CHECK(pk_dict_decode(&dict, PLANK_BYTE_ARRAY, 0, dpage, dp.size, count,
                         pk_default_allocator(), &err) == PLANK_OK);
    /* The slot table exactly where its limits allow it, so both paths run. */
    bool slots = count <= PK_DICT_SHORT_COUNT && maxlen <= 32;
    CHECK_MSG((dict.short_slots != NULL) == slots, "count %lld maxlen %zu: table %d",
              (long long)count, maxlen, dict.short_slots != NULL);
    if (slots) CHECK_EQ_I64(dict.short_width, maxlen <= 16 ? 16 : 32);
    int bw = pk_bit_width_for((uint64_t)count - 1);
    uint32_t *idx = malloc(sizeof(uint32_t) * (n + 1));
    size_t psize;
    uint8_t *page = index_page(idx, n, count, bw, r, &psize);
    int64_t *ends = malloc(sizeof(int64_t) * (n + 1));
    for (int si = -1; si < nsets; si++) {
        pk_decoder d;
        CHECK(pk_decoder_init_k(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_BYTE_ARRAY, 0, page, psize,
                                (int64_t)n, &dict, si < 0 ? NULL : sets[si],
                                pk_default_allocator(), &err) == PLANK_OK);
        pk_buffer data;
        pk_buffer_init(&data, pk_default_allocator());
        bool ok = true;
        size_t bad = 0;
        for (size_t i = 0; ok && i < n;) {
            size_t m = 1 + ref_below(r, ref_below(r, 4) ? 300 : 2000);
            if (m > n - i) m = n - i;
            unsigned how = (unsigned)ref_below(r, 5);
            /* Output appended after what a buffer holds, as a batch's pages are. */
            data.size = (size_t)ref_below(r, 3) * 7;
            int64_t st = (int64_t)data.size;
            if (how == 0) {
                ok = pk_decoder_skip(&d, (int64_t)m, &err) == PLANK_OK;
            } else if (how <= 2) {
                uint8_t *keep = calloc(m / 8 + 9, 1);
                uint32_t den = 1 + ref_below(r, 20);
                for (size_t j = 0; j < m; j++)
                    if (ref_below(r, den) == 0) keep[j >> 3] |= (uint8_t)(1u << (j & 7));
                int64_t kept = -1, c = 0;
                ok = pk_decoder_get_binary_keep(&d, (int64_t)m, keep, &data, ends, &kept, &err) ==
                     PLANK_OK;
                for (size_t j = 0; ok && j < m; j++) {
                    if (!(keep[j >> 3] >> (j & 7) & 1)) continue;
                    uint32_t x = idx[i + j];
                    bad += (size_t)(ends[c] - st) != len[x] ||
                           (len[x] && memcmp(data.data + st, s[x], len[x]) != 0);
                    st = ends[c++];
                }
                bad += ok && kept != c;
                free(keep);
            } else {
                ok = pk_decoder_get_binary(&d, (int64_t)m, &data, ends, &err) == PLANK_OK;
                for (size_t j = 0; ok && j < m; j++) {
                    uint32_t x = idx[i + j];
                    bad += (size_t)(ends[j] - st) != len[x] ||
                           (len[x] && memcmp(data.data + st, s[x], len[x]) != 0);
                    st = ends[j];
                }
            }
            /* the bytes after the values stay zero (the padding callers over-read) */
            for (size_t j = 0; ok && how && j < 16; j++) bad += data.data[data.size + j] != 0;
            i += m;
        }
        CHECK_MSG(ok && bad == 0, "byte page count %lld maxlen %zu n %zu %s: %zu bad (%s)",
                  (long long)count, maxlen, n, si < 0 ? "reference" : pk_simd_level_name(sets[si]->level),
                  bad, err.message);
        pk_buffer_reset(&data);
        pk_decoder_release(&d);
    }
    /* One index out of range (the bit width allowing it): an error naming it. */
    if (n && (uint64_t)count < ((uint64_t)1 << bw)) {
        size_t at = (size_t)ref_below(r, n);
        idx[at] = (uint32_t)count;
        ref_out o2 = {0};
        ref_byte(&o2, (uint8_t)bw);
        ref_hybrid(&o2, idx, n, bw, r);
        for (int si = -1; si < nsets; si++) {
            pk_decoder d;
            CHECK(pk_decoder_init_k(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_BYTE_ARRAY, 0, o2.data,
                                    o2.size, (int64_t)n, &dict, si < 0 ? NULL : sets[si],
                                    pk_default_allocator(), &err) == PLANK_OK);
            pk_buffer data;
            pk_buffer_init(&data, pk_default_allocator());
            plank_status st = pk_decoder_get_binary(&d, (int64_t)n, &data, ends, &err);
            char want[64];
            snprintf(want, sizeof want, "dictionary index %lld out of range", (long long)count);
            CHECK_MSG(st == PLANK_ERR_CORRUPT && strstr(err.message, want),
                      "byte page count %lld n %zu: status %d '%s'", (long long)count, n, (int)st,
                      err.message);
            pk_buffer_reset(&data);
            pk_decoder_release(&d);
        }
        free(o2.data);
    }
    free(ends);
    free(page);
    free(idx);
    pk_dict_release(&dict);
    free(dpage);
    free(dp.data);
    for (int64_t i = 0; i < count; i++) free(s[i]);
    free(s);
    free(len);
}

static void test_byte_pages(void) {
    ref_rng r = {29};
    static const int64_t counts[] = {1, 2, 7, 300, PK_DICT_SHORT_COUNT, PK_DICT_SHORT_COUNT + 1};
    static const size_t maxlens[] = {0, 1, 5, 16, 17, 32, 33, 90};
    static const size_t ns[] = {0, 1, 7, 255, 256, 257, 1000, 4096};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (size_t l = 0; l < sizeof maxlens / sizeof *maxlens; l++)
            for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
                check_byte_page(counts[c], maxlens[l], ns[k], &r);
}

int main(void) {
    init_sets();
    test_kernels();
    test_pages();
    test_byte_pages();
    TEST_END();
}
