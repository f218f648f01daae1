/*
 * test_simd_bss.c: BYTE_STREAM_SPLIT decode and encode at every dispatch level
 * (and the scalar encode function): widths 1..16 (2, 4 and 8 have AVX2 paths), lengths
 * 0..4096, unaligned sources and outputs, against streams built by hand here
 * (byte b of value i at b * n + i); encode/decode round trips; and pages
 * through pk_decoder with chunked gets and skips.
 */
#include "enc_ref.h"
#include "tharness.h"

#include "encoding/pk_encoding.h"
#include "simd_sets.h"

static const pk_kernels *sets[4];
static int nsets;

static void init_sets(void) { nsets = simd_sets(sets); }

static void check(size_t w, size_t n, ref_rng *r) {
    size_t soff = ref_below(r, 8), ooff = ref_below(r, 8);
    uint8_t *vals = malloc(n * w + 1);
    for (size_t i = 0; i < n * w; i++) vals[i] = (uint8_t)ref_next(r);
    /* The streams, built independently of pk_bss_encode. */
    uint8_t *streams = malloc(n * w + soff + 1);
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < w; b++) streams[soff + b * n + i] = vals[i * w + b];
    uint8_t *enc = malloc(n * w + 1);
    pk_bss_encode(vals, w, n, n, enc);
    CHECK_MSG(n == 0 || memcmp(enc, streams + soff, n * w) == 0, "encode w %zu n %zu", w, n);
    /* every level's encode kernel, from an unaligned source into an unaligned
     * output whose streams are one byte longer than n (stride n + 1): the byte
     * after each stream keeps its canary */
    for (int s = 0; s < nsets; s++) {
        uint8_t *vs = malloc(n * w + soff + 1), *eo = malloc((n + 1) * w + ooff + 1);
        memcpy(vs + soff, vals, n * w);
        memset(eo, 0xCD, (n + 1) * w + ooff + 1);
        sets[s]->bss_encode(vs + soff, w, n, n + 1, eo + ooff);
        bool ok = true;
        for (size_t b = 0; b < w; b++) {
            ok &= n == 0 || memcmp(eo + ooff + b * (n + 1), streams + soff + b * n, n) == 0;
            ok &= eo[ooff + b * (n + 1) + n] == 0xCD;
        }
        for (size_t k = 0; k < ooff; k++) ok &= eo[k] == 0xCD;
        CHECK_MSG(ok, "%s encode w %zu n %zu", pk_simd_level_name(sets[s]->level), w, n);
        free(vs);
        free(eo);
    }
    uint8_t *out = malloc(n * w + ooff + 1);
    for (int s = 0; s < nsets; s++) {
        /* Exact-size copy of the streams so ASan sees reads past them. */
        uint8_t *src = malloc(n * w + soff + 1);
        memcpy(src, streams, n * w + soff);
        memset(out, 0xEE, n * w + ooff + 1);
        sets[s]->bss_decode(src + soff, n, w, n, out + ooff);
        CHECK_MSG(n == 0 || memcmp(out + ooff, vals, n * w) == 0, "%s decode w %zu n %zu",
                  pk_simd_level_name(sets[s]->level), w, n);
        CHECK(out[ooff + n * w] == 0xEE);
        /* Round trip of the encoder's output, from a middle start. */
        size_t start = n ? ref_below(r, n) : 0;
        sets[s]->bss_decode(enc + start, n, w, n - start, out);
        CHECK(n == 0 || memcmp(out, vals + start * w, (n - start) * w) == 0);
        free(src);
    }
    free(vals);
    free(streams);
    free(enc);
    free(out);
}

static void test_kernels(void) {
    ref_rng r = {31};
    for (size_t w = 1; w <= 16; w++)
        for (size_t n = 0; n <= 4096; n += n < 100 ? 1 : 257) check(w, n, &r);
    for (size_t n = 4000; n < 4200; n += 7) {
        check(2, n, &r);
        check(4, n, &r);
        check(8, n, &r);
    }
}

static void check_page(plank_physical_type type, int32_t tlen, size_t n, ref_rng *r) {
    size_t w = type == PLANK_FIXED_LEN_BYTE_ARRAY ? (size_t)tlen
               : type == PLANK_INT64 || type == PLANK_DOUBLE ? 8 : 4;
    uint8_t *vals = malloc(n * w + 1);
    for (size_t i = 0; i < n * w; i++) vals[i] = (uint8_t)ref_next(r);
    uint8_t *page = malloc(n * w + 1);
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < w; b++) page[b * n + i] = vals[i * w + b];
    uint8_t *out = malloc(n * w + 1);
    for (int s = -1; s < nsets; s++) {
        pk_decoder d;
        plank_error err = {0};
        CHECK(pk_decoder_init(&d, PLANK_ENC_BYTE_STREAM_SPLIT, type, tlen, page, n * w,
                              (int64_t)n, NULL, pk_default_allocator(), &err) == PLANK_OK);
        pk_decoder_use_kernels(&d, s < 0 ? NULL : sets[s]);
        bool ok = true;
        size_t bad = 0;
        for (size_t i = 0; ok && i < n;) {
            size_t m = 1 + ref_below(r, 300);
            if (m > n - i) m = n - i;
            if (ref_below(r, 4) == 0) {
                ok = pk_decoder_skip(&d, (int64_t)m, &err) == PLANK_OK;
            } else {
                ok = pk_decoder_get_fixed(&d, (int64_t)m, out, &err) == PLANK_OK;
                bad += ok && memcmp(out, vals + i * w, m * w) != 0;
            }
            i += m;
        }
        CHECK_MSG(ok && bad == 0, "page %s w %zu n %zu level %d", plank_physical_type_name(type),
                  w, n, s);
        CHECK(pk_decoder_get_fixed(&d, 1, out, &err) == PLANK_ERR_CORRUPT);
        pk_decoder_release(&d);
    }
    free(vals);
    free(page);
    free(out);
}

static void test_pages(void) {
    ref_rng r = {37};
    for (size_t n = 0; n < 3000; n += 1 + n * 2) {
        check_page(PLANK_FLOAT, 0, n, &r);
        check_page(PLANK_DOUBLE, 0, n, &r);
        check_page(PLANK_INT32, 0, n, &r);
        check_page(PLANK_INT64, 0, n, &r);
        check_page(PLANK_FIXED_LEN_BYTE_ARRAY, 2, n, &r);
        check_page(PLANK_FIXED_LEN_BYTE_ARRAY, 3, n, &r);
        check_page(PLANK_FIXED_LEN_BYTE_ARRAY, 16, n, &r);
    }
}

int main(void) {
    init_sets();
    test_kernels();
    test_pages();
    TEST_END();
}
