/* test_rle.c: RLE / bit-packed hybrid, deprecated BIT_PACKED levels and
 * pk_bit_width_for, against hand-computed bytes from Encodings.md and the
 * reference encoder of enc_ref.h. */
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"
#include "enc_ref.h"
#include "tharness.h"

static const size_t k_lengths[] = {0, 1, 7, 8, 9, 127, 128, 129, 1000, 4096};
#define NLEN (sizeof k_lengths / sizeof k_lengths[0])

/* Copies buf into an exact-size allocation so ASan sees any over-read. */
static uint8_t *exact_copy(const uint8_t *buf, size_t len) {
    uint8_t *p = malloc(len ? len : 1);
    if (len) memcpy(p, buf, len);
    return p;
}

static void test_known_bytes(void) {
    plank_error err;
    pk_rle_decoder d;
    uint32_t out[300];
    /* Encodings.md: 0..7 with bit width 3, bit-packed: 10001000 11000110 11111010. */
    const uint8_t packed[] = {0x03, 0x88, 0xC6, 0xFA};
    CHECK(pk_rle_init(&d, packed, sizeof packed, 3, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 8, &err) == PLANK_OK);
    for (int i = 0; i < 8; i++) CHECK_EQ_I64(out[i], i);
    CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);

    /* Hand-computed: 200 x 5 as an RLE run (header 400 = 0x90 0x03), then a
     * bit-packed run of one group 1,0,1,1,0,0,0,1 at width 1 (0x8D). */
    const uint8_t mixed[] = {0x90, 0x03, 0x05, 0x03, 0x8D};
    CHECK(pk_rle_init(&d, mixed, sizeof mixed, 3, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 200, &err) == PLANK_OK);
    int ok = 1;
    for (int i = 0; i < 200; i++) ok &= out[i] == 5;
    CHECK(ok);
    /* Width 1 for the second part: re-init at its offset. */
    CHECK(pk_rle_init(&d, mixed + 3, 2, 1, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 8, &err) == PLANK_OK);
    const uint32_t bits[8] = {1, 0, 1, 1, 0, 0, 0, 1};
    for (int i = 0; i < 8; i++) CHECK_EQ_I64(out[i], bits[i]);

    /* Width 0: runs still present, all values zero. */
    const uint8_t zero[] = {0x0A, 0x03};
    CHECK(pk_rle_init(&d, zero, sizeof zero, 0, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 13, &err) == PLANK_OK);
    ok = 1;
    for (int i = 0; i < 13; i++) ok &= out[i] == 0;
    CHECK(ok);
    CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);

    /* Width 17: an RLE value takes 3 bytes, little-endian. */
    const uint8_t wide[] = {0x04, 0x56, 0x34, 0x01};
    CHECK(pk_rle_init(&d, wide, sizeof wide, 17, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 2, &err) == PLANK_OK);
    CHECK_EQ_I64(out[0], 0x13456);
    CHECK_EQ_I64(out[1], 0x13456);
}

static void test_errors(void) {
    plank_error err;
    pk_rle_decoder d;
    uint32_t out[16];
    const uint8_t buf[] = {0x02, 0x01};
    CHECK(pk_rle_init(&d, buf, sizeof buf, 33, &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_rle_init(&d, buf, sizeof buf, -1, &err) == PLANK_ERR_CORRUPT);
    /* A run header longer than 5 bytes. */
    const uint8_t longhdr[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00};
    CHECK(pk_rle_init(&d, longhdr, sizeof longhdr, 1, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);
    /* RLE value missing. */
    const uint8_t novalue[] = {0x02};
    CHECK(pk_rle_init(&d, novalue, sizeof novalue, 8, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);
    /* Truncated final bit-packed group: width 3, two groups claimed (6 bytes),
     * 3 bytes present = 24 bits = 8 whole values. */
    const uint8_t trunc[] = {0x05, 0x88, 0xC6, 0xFA};
    CHECK(pk_rle_init(&d, trunc, sizeof trunc, 3, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 8, &err) == PLANK_OK);
    CHECK_EQ_I64(out[7], 7);
    CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);
    /* Same with 4 bytes: value 9 ends at bit 30 <= 32, value 10 at 33 > 32. */
    const uint8_t trunc2[] = {0x05, 0x88, 0xC6, 0xFA, 0x3D};
    CHECK(pk_rle_init(&d, trunc2, sizeof trunc2, 3, &err) == PLANK_OK);
    CHECK(pk_rle_get_u32(&d, out, 10, &err) == PLANK_OK);
    CHECK_EQ_I64(out[8], 5);  /* bits 24..26 of 0x3D = 101 */
    CHECK_EQ_I64(out[9], 7);  /* bits 27..29 = 111 */
    CHECK(pk_rle_get_u32(&d, out, 1, &err) == PLANK_ERR_CORRUPT);
    /* Levels wider than int16. */
    const uint8_t big[] = {0x02, 0xFF, 0xFF};
    int16_t lv[2];
    CHECK(pk_rle_init(&d, big, sizeof big, 16, &err) == PLANK_OK);
    CHECK(pk_rle_get_i16(&d, lv, 1, &err) == PLANK_ERR_CORRUPT);
}

/* decode(encode(x)) == x for every width, length, chunking and skip. */
static void test_roundtrip(void) {
    ref_rng r = {12345};
    plank_error err;
    for (int bw = 0; bw <= 32; bw++) {
        for (size_t li = 0; li < NLEN; li++) {
            size_t n = k_lengths[li];
            uint32_t *v = malloc(sizeof(uint32_t) * (n + 1));
            uint32_t *got = malloc(sizeof(uint32_t) * (n + 1));
            ref_fill_runs(v, n, bw, &r);
            ref_out o = {0};
            ref_hybrid(&o, v, n, bw, &r);
            uint8_t *buf = exact_copy(o.data, o.size);
            pk_rle_decoder d;

            /* All at once. */
            CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
            CHECK(pk_rle_get_u32(&d, got, (int64_t)n, &err) == PLANK_OK);
            CHECK_MSG(n == 0 || memcmp(v, got, n * 4) == 0, "bw %d n %zu", bw, n);

            /* In chunks of 1, 3, 17 (runs cross every batch boundary). */
            static const int64_t chunks[] = {1, 3, 17};
            CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
            size_t pos = 0;
            int ci = 0, bad = 0;
            while (pos < n) {
                int64_t k = chunks[ci++ % 3];
                if ((size_t)k > n - pos) k = (int64_t)(n - pos);
                if (pk_rle_get_u32(&d, got + pos, k, &err) != PLANK_OK) bad = 1;
                pos += (size_t)k;
            }
            CHECK_MSG(!bad && (n == 0 || memcmp(v, got, n * 4) == 0), "chunks bw %d n %zu", bw, n);

            /* Skip then get equals the tail of get-all. */
            size_t s = (size_t)ref_below(&r, n + 1);
            CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
            CHECK(pk_rle_skip(&d, (int64_t)s, &err) == PLANK_OK);
            CHECK(pk_rle_get_u32(&d, got, (int64_t)(n - s), &err) == PLANK_OK);
            CHECK_MSG(n == s || memcmp(v + s, got, (n - s) * 4) == 0, "skip bw %d n %zu s %zu", bw,
                      n, s);

            /* i16 levels. */
            if (bw <= 15) {
                int16_t *lv = malloc(sizeof(int16_t) * (n + 1));
                CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
                CHECK(pk_rle_get_i16(&d, lv, (int64_t)n, &err) == PLANK_OK);
                int ok = 1;
                for (size_t i = 0; i < n; i++) ok &= (uint32_t)lv[i] == v[i];
                CHECK_MSG(ok, "i16 bw %d n %zu", bw, n);
                free(lv);
            }

            /* Asking for more than encoded fails unless the padding of the last
             * bit-packed group supplies it; it never crashes. */
            CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
            CHECK(pk_rle_get_u32(&d, got, (int64_t)n, &err) == PLANK_OK);
            (void)pk_rle_get_u32(&d, got, 1, &err);
            free(buf);

            /* Every truncation: an error, or (when only group padding was cut)
             * exactly the right values. */
            if (n <= 129) {
                for (size_t L = 0; L < o.size; L++) {
                    uint8_t *tb = exact_copy(o.data, L);
                    CHECK(pk_rle_init(&d, tb, L, bw, &err) == PLANK_OK);
                    plank_status st = pk_rle_get_u32(&d, got, (int64_t)n, &err);
                    CHECK_MSG(st == PLANK_ERR_CORRUPT || (st == PLANK_OK && memcmp(v, got, n * 4) == 0),
                              "truncated to %zu of %zu: bw %d n %zu", L, o.size, bw, n);
                    free(tb);
                }
            }
            free(o.data);
            free(v);
            free(got);
        }
    }
}

/* pk_rle_get_u32_runs: the same values as pk_rle_get_u32, and exactly the
 * RLE runs the test's own encoding wrote, cut at the requests and trimmed
 * to whole bytes of the caller's bitmap, when what is left is long enough. */
static void test_run_log(void) {
    ref_rng r = {777};
    plank_error err;
    for (int bw = 0; bw <= 32; bw++) {
        for (int round = 0; round < 4; round++) {
            /* Segments: RLE runs of 1..400 and bit-packed runs of 1..4 groups. */
            size_t cap = 8192, n = 0, nseg = 0;
            uint32_t *v = malloc(cap * 4 + 4);
            size_t seg_a[256], seg_b[256];
            ref_out o = {0};
            while (n < 4000 && nseg < 256) {
                if (ref_below(&r, 2)) {
                    size_t len = 1 + (size_t)ref_below(&r, 400);
                    uint32_t x = (uint32_t)(ref_next(&r) & ref_mask(bw));
                    ref_uleb(&o, (uint64_t)len << 1);
                    for (int b = 0; b < (bw + 7) / 8; b++) ref_byte(&o, (uint8_t)(x >> (8 * b)));
                    seg_a[nseg] = n, seg_b[nseg++] = n + len;
                    for (size_t j = 0; j < len; j++) v[n++] = x;
                } else {
                    size_t groups = 1 + (size_t)ref_below(&r, 4);
                    ref_uleb(&o, ((uint64_t)groups << 1) | 1);
                    ref_bits_begin(&o);
                    for (size_t j = 0; j < groups * 8; j++) {
                        v[n] = (uint32_t)(ref_next(&r) & ref_mask(bw));
                        ref_bits_lsb(&o, v[n++], bw);
                    }
                }
            }
            uint8_t *buf = exact_copy(o.data, o.size);
            uint32_t *got = malloc(n * 4 + 4);
            pk_buffer runs;
            pk_buffer_init(&runs, NULL);
            pk_rle_decoder d;
            CHECK(pk_rle_init(&d, buf, o.size, bw, &err) == PLANK_OK);
            const pk_kernels *tabs[PK_SIMD_AVX512 + 1];
            int ntabs = pk_kernels_available(tabs);
            d.kernels = round & 1 ? tabs[ntabs - 1] : NULL;
            int64_t min_len = round < 2 ? 64 : 8;
            size_t pos = 0;
            int bad = 0;
            while (pos < n && !bad) {
                size_t q = 1 + (size_t)ref_below(&r, 1500);
                if (q > n - pos) q = n - pos;
                int64_t base = (int64_t)ref_below(&r, 20);
                runs.size = 0;
                if (pk_rle_get_u32_runs(&d, got + pos, (int64_t)q, base, min_len, &runs, &err) !=
                    PLANK_OK) {
                    bad = 1;
                    break;
                }
                /* The expected log of this request. */
                const int64_t *lg = (const int64_t *)(const void *)runs.data;
                size_t nl = runs.size / 16, k = 0;
                for (size_t sgi = 0; sgi < nseg; sgi++) {
                    size_t a = seg_a[sgi] > pos ? seg_a[sgi] : pos;
                    size_t b = seg_b[sgi] < pos + q ? seg_b[sgi] : pos + q;
                    if (b <= a) continue;
                    int64_t ca = base + (int64_t)(a - pos), cb = base + (int64_t)(b - pos);
                    int64_t first = (ca + 7) & ~(int64_t)7, end = cb & ~(int64_t)7;
                    if (end - first < min_len) continue;
                    if (k >= nl || lg[2 * k] != first || lg[2 * k + 1] != end - first) bad = 2;
                    k++;
                }
                if (k != nl) bad = 3;
                pos += q;
            }
            CHECK_MSG(!bad, "bw %d round %d: run log wrong (%d) at %zu", bw, round, bad, pos);
            CHECK_MSG(!bad && memcmp(v, got, n * 4) == 0, "bw %d round %d: values", bw, round);
            /* Runs shorter than a byte cannot be logged. */
            CHECK(pk_rle_get_u32_runs(&d, got, 0, 0, 7, &runs, &err) == PLANK_ERR_INVALID_ARGUMENT);
            pk_buffer_reset(&runs);
            free(buf);
            free(got);
            free(o.data);
            free(v);
        }
    }
}

static void test_legacy(void) {
    plank_error err;
    int16_t out[4200];
    /* Encodings.md: 0..7 at width 3, MSB first: 00000101 00111001 01110111. */
    const uint8_t ex[] = {0x05, 0x39, 0x77};
    CHECK(pk_bitpacked_legacy_get_i16(ex, sizeof ex, 3, out, 8, &err) == PLANK_OK);
    for (int i = 0; i < 8; i++) CHECK_EQ_I64(out[i], i);
    CHECK(pk_bitpacked_legacy_get_i16(ex, sizeof ex, 3, out, 9, &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_bitpacked_legacy_get_i16(ex, sizeof ex, 17, out, 1, &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_bitpacked_legacy_get_i16(ex, 0, 0, out, 5, &err) == PLANK_OK);
    CHECK_EQ_I64(out[4], 0);

    ref_rng r = {777};
    for (int bw = 1; bw <= 15; bw++) {
        for (size_t li = 0; li < NLEN; li++) {
            size_t n = k_lengths[li];
            ref_out o = {0};
            ref_bits_begin(&o);
            uint32_t *v = malloc(sizeof(uint32_t) * (n + 1));
            for (size_t i = 0; i < n; i++) {
                v[i] = (uint32_t)(ref_next(&r) & ref_mask(bw));
                ref_bits_msb(&o, v[i], bw);
            }
            uint8_t *buf = exact_copy(o.data, o.size);
            CHECK(pk_bitpacked_legacy_get_i16(buf, o.size, bw, out, (int64_t)n, &err) == PLANK_OK);
            int ok = 1;
            for (size_t i = 0; i < n; i++) ok &= (uint32_t)out[i] == v[i];
            CHECK_MSG(ok, "legacy bw %d n %zu", bw, n);
            if (o.size > 0)
                CHECK(pk_bitpacked_legacy_get_i16(buf, o.size - 1, bw, out, (int64_t)n, &err) ==
                      PLANK_ERR_CORRUPT);
            free(buf);
            free(o.data);
            free(v);
        }
    }
}

static void test_bit_width_for(void) {
    CHECK_EQ_I64(pk_bit_width_for(0), 0);
    CHECK_EQ_I64(pk_bit_width_for(1), 1);
    CHECK_EQ_I64(pk_bit_width_for(2), 2);
    CHECK_EQ_I64(pk_bit_width_for(3), 2);
    CHECK_EQ_I64(pk_bit_width_for(4), 3);
    CHECK_EQ_I64(pk_bit_width_for(255), 8);
    CHECK_EQ_I64(pk_bit_width_for(256), 9);
    CHECK_EQ_I64(pk_bit_width_for(UINT32_MAX), 32);
    CHECK_EQ_I64(pk_bit_width_for(UINT64_MAX), 64);
}

int main(void) {
    test_known_bytes();
    test_errors();
    test_roundtrip();
    test_run_log();
    test_legacy();
    test_bit_width_for();
    TEST_END();
}
