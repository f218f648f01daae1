/* test_simd_unpack.c: every bit-unpacking kernel of every dispatch level this
 * machine has, and the RLE/bit-packed hybrid fast path, against references
 * written here (bit-by-bit extraction; the scalar RLE decoder fed by the
 * naive encoder of enc_ref.h). Inputs are exact-size heap copies so ASan
 * catches any read past the readable bytes. */
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"
#include "simd_sets.h"
#include "enc_ref.h"
#include "tharness.h"

#define MAXN 4096

/* Value i of bw bits, bit by bit from the LSB-first stream. */
static uint64_t ref_value(const uint8_t *p, size_t i, int bw) {
    uint64_t v = 0;
    for (int b = 0; b < bw; b++) {
        uint64_t bit = (uint64_t)i * (uint64_t)bw + (uint64_t)b;
        v |= (uint64_t)((p[bit >> 3] >> (bit & 7)) & 1) << b;
    }
    return v;
}

static size_t k_lengths[200];
static size_t n_lengths;

static void init_lengths(void) {
    for (size_t n = 0; n <= 64; n++) k_lengths[n_lengths++] = n;
    static const size_t spread[] = {65,  71,   72,   100,  127,  128,  129,  200, 255,
                                    256, 257,  300,  511,  512,  513,  999, 1000, 1023,
                                    1024, 1025, 2047, 2048, 2049, 3000, 4095, 4096};
    for (size_t i = 0; i < sizeof spread / sizeof spread[0]; i++)
        k_lengths[n_lengths++] = spread[i];
}

/* Output element sizes 1, 2, 4, 8 and their maximum widths. */
static const int k_sizes[] = {1, 2, 4, 8};
static const int k_maxbw[] = {8, 16, 32, 64};

static void call_unpack(const pk_kernels *k, int size, const uint8_t *in, size_t avail, void *out,
                        size_t n, int bw) {
    switch (size) {
    case 1: k->unpack8(in, avail, out, n, bw); break;
    case 2: k->unpack16(in, avail, out, n, bw); break;
    case 4: k->unpack32(in, avail, out, n, bw); break;
    default: k->unpack64(in, avail, out, n, bw); break;
    }
}

static uint64_t load_elem(const void *out, int size, size_t i) {
    switch (size) {
    case 1: return ((const uint8_t *)out)[i];
    case 2: return ((const uint16_t *)out)[i];
    case 4: return ((const uint32_t *)out)[i];
    default: return ((const uint64_t *)out)[i];
    }
}

/* Unpacks n values at input offset `off` (an exact-size copy) into an
 * output displaced by `oshift` elements from a 64-byte boundary, checks the
 * values and that the guard elements around the output are untouched. */
static int check_one(const pk_kernels *k, int size, int bw, const uint8_t *src,
                     const uint64_t *ref, size_t n, size_t off, size_t oshift) {
    size_t nbytes = (n * (size_t)bw + 7) / 8;
    uint8_t *in = malloc(off + nbytes + 1);
    memcpy(in + off, src, nbytes);
    size_t cap = (n + oshift + 8) * (size_t)size;
    uint8_t *obuf = aligned_alloc(64, (cap + 63) / 64 * 64);
    memset(obuf, 0xA5, cap);
    void *out = obuf + oshift * (size_t)size;
    call_unpack(k, size, in + off, nbytes, out, n, bw);
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        if (load_elem(out, size, i) != ref[i]) {
            fprintf(stderr, "level %s size %d bw %d n %zu off %zu: value %zu is %llu, want %llu\n",
                    pk_simd_level_name(k->level), size, bw, n, off, i,
                    (unsigned long long)load_elem(out, size, i), (unsigned long long)ref[i]);
            bad = 1;
        }
    }
    for (size_t i = 0; i < oshift * (size_t)size; i++) bad |= obuf[i] != 0xA5;
    for (size_t i = (oshift + n) * (size_t)size; i < cap; i++) bad |= obuf[i] != 0xA5;
    free(in);
    free(obuf);
    return bad;
}

static void test_unpack(const pk_kernels **tabs, int ntab) {
    ref_rng rng = {42};
    static uint8_t src[MAXN * 8 + 16];
    static uint64_t ref[MAXN];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)ref_next(&rng);
    for (int si = 0; si < 4; si++) {
        int size = k_sizes[si];
        for (int bw = 0; bw <= k_maxbw[si]; bw++) {
            for (size_t i = 0; i < MAXN; i++) ref[i] = ref_value(src, i, bw);
            for (int t = 0; t < ntab; t++) {
                int bad = 0;
                for (size_t li = 0; li < n_lengths; li++) {
                    size_t n = k_lengths[li];
                    /* Every input offset 0..7 and output shift 0..7 on short
                     * lengths, a few combinations on long ones. */
                    for (size_t off = 0; off < 8; off++) {
                        if (n > 64 && off != 0 && off != 3 && off != 7) continue;
                        size_t oshift = (off * 5 + n) % 8;
                        bad |= check_one(tabs[t], size, bw, src, ref, n, off, oshift);
                    }
                }
                CHECK_MSG(!bad, "unpack size %d bw %d level %s", size, bw,
                          pk_simd_level_name(tabs[t]->level));
            }
        }
    }
    /* A few large inputs (2^20 + 3 values) for every output size. */
    size_t big = (1u << 20) + 3;
    static const struct { int size, bw; } large[] = {
        {4, 1},  {4, 3},  {4, 8},  {4, 13}, {4, 16}, {4, 17}, {4, 25}, {4, 31}, {4, 32},
        {1, 1},  {1, 3},  {1, 7},  {1, 8},  {8, 5},  {8, 19}, {8, 31}, {8, 32}, {8, 33},
        {8, 47}, {8, 63}, {8, 64}};
    for (size_t b = 0; b < sizeof large / sizeof large[0]; b++) {
        int bw = large[b].bw, size = large[b].size;
        size_t nbytes = (big * (size_t)bw + 7) / 8;
        uint8_t *in = malloc(nbytes);
        for (size_t i = 0; i < nbytes; i++) in[i] = (uint8_t)ref_next(&rng);
        void *out = malloc(big * (size_t)size);
        for (int t = 0; t < ntab; t++) {
            memset(out, 0, big * (size_t)size);
            call_unpack(tabs[t], size, in, nbytes, out, big, bw);
            int bad = 0;
            for (size_t i = 0; i < big; i++) bad |= load_elem(out, size, i) != ref_value(in, i, bw);
            CHECK_MSG(!bad, "large unpack size %d bw %d level %s", size, bw,
                      pk_simd_level_name(tabs[t]->level));
        }
        free(in);
        free(out);
    }
}

static void test_hybrid(const pk_kernels **tabs, int ntab) {
    ref_rng rng = {7};
    enum { N = 20000 };
    uint32_t *vals = malloc(N * 4), *want = malloc(N * 4), *got = malloc(N * 4 + 4);
    int16_t *lv = malloc(N * 2 + 2), *lwant = malloc(N * 2);
    plank_error err;
    for (int bw = 0; bw <= 32; bw++) {
        /* Long random stretches (bit-packed) mixed with long repeats (RLE). */
        size_t i = 0;
        while (i < N) {
            size_t len = 1 + ref_below(&rng, 600);
            uint32_t x = (uint32_t)(ref_next(&rng) & ref_mask(bw));
            bool rep = ref_below(&rng, 3) == 0;
            for (size_t j = 0; j < len && i < N; j++, i++)
                vals[i] = rep ? x : (uint32_t)(ref_next(&rng) & ref_mask(bw));
        }
        ref_out o = {0};
        ref_hybrid(&o, vals, N, bw, &rng);
        uint8_t *buf = malloc(o.size ? o.size : 1);
        memcpy(buf, o.data, o.size);
        pk_rle_decoder d;
        /* The scalar reference first, against the encoder's input. */
        CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
        CHECK(pk_rle_get_u32(&d, want, N, &err) == PLANK_OK);
        CHECK(memcmp(want, vals, N * 4) == 0);
        for (int t = 0; t < ntab; t++) {
            /* Odd chunk sizes, so requests start and end inside groups and runs. */
            static const int64_t chunks[] = {1, 3, 7, 8, 13, 61, 509, 4099, N};
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
                d.kernels = tabs[t];
                int64_t pos = 0;
                int ok = 1;
                memset(got, 0xEE, N * 4 + 4);
                while (pos < N && ok) {
                    int64_t k = chunks[c] < N - pos ? chunks[c] : N - pos;
                    /* Alternate reads and skips so skipping mid-group is covered. */
                    if ((pos / chunks[c]) % 5 == 3) {
                        ok &= pk_rle_skip(&d, k, &err) == PLANK_OK;
                        memcpy(got + pos, want + pos, (size_t)k * 4);
                    } else {
                        ok &= pk_rle_get_u32(&d, got + pos, k, &err) == PLANK_OK;
                    }
                    pos += k;
                }
                CHECK_MSG(ok && memcmp(got, want, N * 4) == 0 && got[N] == 0xEEEEEEEE,
                          "hybrid u32 bw %d chunk %lld level %s", bw, (long long)chunks[c],
                          pk_simd_level_name(tabs[t]->level));
                if (bw > 16) continue;
                for (size_t j = 0; j < N; j++) lwant[j] = (int16_t)(uint16_t)want[j];
                bool fits = true;
                for (size_t j = 0; j < N; j++) fits &= want[j] <= INT16_MAX;
                CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
                d.kernels = tabs[t];
                pos = 0;
                ok = 1;
                while (pos < N && ok) {
                    int64_t k = chunks[c] < N - pos ? chunks[c] : N - pos;
                    ok &= pk_rle_get_i16(&d, lv + pos, k, &err) == PLANK_OK;
                    pos += k;
                }
                if (fits)
                    CHECK_MSG(ok && memcmp(lv, lwant, N * 2) == 0, "hybrid i16 bw %d chunk %lld",
                              bw, (long long)chunks[c]);
                else
                    CHECK_MSG(!ok && err.code == PLANK_ERR_CORRUPT,
                              "hybrid i16 bw 16 must refuse values above INT16_MAX");
            }
        }
        free(buf);
        free(o.data);
    }
    free(vals);
    free(want);
    free(got);
    free(lv);
    free(lwant);
}

/* A final bit-packed run whose padding bytes are missing: the fast path
 * decodes the values present and refuses one more, like the reference. */
static void test_truncated(const pk_kernels **tabs, int ntab) {
    plank_error err;
    for (int bw = 1; bw <= 32; bw++) {
        ref_out o = {0};
        ref_uleb(&o, (10u << 1) | 1); /* 10 groups = 80 values declared */
        ref_bits_begin(&o);
        for (uint32_t j = 0; j < 80; j++) ref_bits_lsb(&o, j * 2654435761u & ref_mask(bw), bw);
        size_t keep = 1 + (37 * (size_t)bw + 7) / 8; /* header + bits of 37 values */
        uint8_t *buf = malloc(keep);
        memcpy(buf, o.data, keep);
        int64_t present = (int64_t)((keep - 1) * 8 / (size_t)bw);
        for (int t = 0; t < ntab; t++) {
            pk_rle_decoder d;
            uint32_t out[80];
            CHECK(pk_rle_init(&d, buf, keep, bw, &err) == PLANK_OK);
            d.kernels = tabs[t];
            CHECK(pk_rle_get_u32(&d, out, present, &err) == PLANK_OK);
            int ok = 1;
            for (int64_t j = 0; j < present; j++)
                ok &= out[j] == ((uint32_t)j * 2654435761u & (uint32_t)ref_mask(bw));
            CHECK_MSG(ok, "truncated run bw %d", bw);
            CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);
        }
        free(buf);
        free(o.data);
    }
}

int main(void) {
    const pk_kernels *tabs[4];
    int ntab = pk_kernels_available(tabs);
    CHECK(ntab >= 1 && tabs[0]->level == PK_SIMD_SCALAR);
    simd_print_levels(tabs, ntab);
    init_lengths();
    test_unpack(tabs, ntab);
    test_hybrid(tabs, ntab);
    test_truncated(tabs, ntab);
    TEST_END();
}
