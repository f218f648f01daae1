/* test_delta.c: DELTA_BINARY_PACKED against the examples of Encodings.md
 * (hand-computed bytes) and the reference encoder of enc_ref.h over every
 * bit width 0..64, lengths, block shapes, chunkings, skips and truncations. */
#include "encoding/pk_encoding.h"
#include "enc_ref.h"
#include "tharness.h"

static const size_t k_lengths[] = {0, 1, 2, 7, 8, 9, 33, 127, 128, 129, 1000, 4096};
#define NLEN (sizeof k_lengths / sizeof k_lengths[0])

static uint8_t *exact_copy(const uint8_t *buf, size_t len) {
    uint8_t *p = malloc(len ? len : 1);
    if (len) memcpy(p, buf, len);
    return p;
}

static void test_spec_examples(void) {
    plank_error err;
    pk_delta_decoder d;
    uint64_t out[16];
    const uint8_t *end;
    /* Example 1 (1,2,3,4,5) exactly as in the spec, block size 8: the spec
     * says such a block size is invalid in real files, and it is rejected. */
    const uint8_t ex1_spec[] = {8, 1, 5, 2, 2, 0};
    CHECK(pk_delta_init(&d, ex1_spec, sizeof ex1_spec, false, &err) == PLANK_ERR_CORRUPT);

    /* Example 1 with a valid block (128 values, 4 miniblocks of 32):
     * header 128 (0x80 0x01), 4, 5, zigzag(1)=2; block: zigzag(1)=2, widths 0 0 0 0. */
    const uint8_t ex1[] = {0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0, 0xAB};
    CHECK(pk_delta_init(&d, ex1, sizeof ex1, false, &err) == PLANK_OK);
    CHECK_EQ_I64(pk_delta_remaining(&d), 5);
    CHECK(pk_delta_get(&d, out, 5, &err) == PLANK_OK);
    for (int i = 0; i < 5; i++) CHECK_EQ_I64(out[i], i + 1);
    CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK);
    CHECK_EQ_I64(end - ex1, 10);
    CHECK(pk_delta_get(&d, out, 1, &err) == PLANK_ERR_CORRUPT);

    /* Example 2 (7,5,3,1,2,3,4,5): min delta -2 (zigzag 3), relative deltas
     * 0,0,0,3,3,3,3 on 2 bits: bytes 0xC0 0x3F then padding to 32 values (8
     * bytes); widths 2,0,0,0. */
    const uint8_t ex2[] = {0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0,
                           0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
    const int64_t want2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    int32_t o32[8];
    CHECK(pk_delta_init(&d, ex2, sizeof ex2, false, &err) == PLANK_OK);
    CHECK(pk_delta_get_i32(&d, o32, 8, &err) == PLANK_OK);
    for (int i = 0; i < 8; i++) CHECK_EQ_I64(o32[i], want2[i]);
    CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK);
    CHECK_EQ_I64(end - ex2, (int64_t)sizeof ex2);
    /* Without the miniblock padding: values decode, but the end is unknown. */
    CHECK(pk_delta_init(&d, ex2, 12, true, &err) == PLANK_OK);
    int64_t o64[8];
    CHECK(pk_delta_get_i64(&d, o64, 8, &err) == PLANK_OK);
    for (int i = 0; i < 8; i++) CHECK_EQ_I64(o64[i], want2[i]);
    CHECK(pk_delta_end(&d, &end, &err) == PLANK_ERR_CORRUPT);
    /* One byte less: the 8th value's bits are missing. */
    CHECK(pk_delta_init(&d, ex2, 11, true, &err) == PLANK_OK);
    CHECK(pk_delta_get_i64(&d, o64, 8, &err) == PLANK_ERR_CORRUPT);

    /* A single value: header only. */
    const uint8_t one[] = {0x80, 0x01, 4, 1, 0x7F};
    CHECK(pk_delta_init(&d, one, sizeof one, true, &err) == PLANK_OK);
    CHECK(pk_delta_get_i64(&d, o64, 1, &err) == PLANK_OK);
    CHECK_EQ_I64(o64[0], -64);
    CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK);
    CHECK_EQ_I64(end - one, 5);
}

static void test_header_errors(void) {
    plank_error err;
    pk_delta_decoder d;
    uint64_t out[64];
    const uint8_t bad_block[] = {100, 1, 5, 0};
    CHECK(pk_delta_init(&d, bad_block, sizeof bad_block, true, &err) == PLANK_ERR_CORRUPT);
    const uint8_t bad_minis[] = {0x80, 0x01, 3, 5, 0};
    CHECK(pk_delta_init(&d, bad_minis, sizeof bad_minis, true, &err) == PLANK_ERR_CORRUPT);
    const uint8_t mini16[] = {0x80, 0x01, 8, 5, 0};
    CHECK(pk_delta_init(&d, mini16, sizeof mini16, true, &err) == PLANK_ERR_CORRUPT);
    const uint8_t zero_minis[] = {0x80, 0x01, 0, 5, 0};
    CHECK(pk_delta_init(&d, zero_minis, sizeof zero_minis, true, &err) == PLANK_ERR_CORRUPT);
    const uint8_t truncated[] = {0x80, 0x01, 4};
    CHECK(pk_delta_init(&d, truncated, sizeof truncated, true, &err) == PLANK_ERR_CORRUPT);
    /* Bit width 65 in a miniblock with values. */
    uint8_t w65[100] = {0x80, 0x01, 4, 3, 0, 0, 65, 0, 0, 0};
    CHECK(pk_delta_init(&d, w65, sizeof w65, true, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, out, 1, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, out, 2, &err) == PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "65") != NULL);
    /* Width 64 is accepted; 2 values need 16 bytes. */
    w65[6] = 64;
    CHECK(pk_delta_init(&d, w65, sizeof w65, true, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, out, 3, &err) == PLANK_OK);
    /* Widths of miniblocks without values are not checked (only first holds values). */
    w65[7] = w65[8] = w65[9] = 200;
    CHECK(pk_delta_init(&d, w65, sizeof w65, true, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, out, 3, &err) == PLANK_OK);
    /* More values requested than the header has. */
    CHECK(pk_delta_init(&d, w65, sizeof w65, true, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, out, 4, &err) == PLANK_ERR_CORRUPT);
    /* Missing bit-width bytes. */
    const uint8_t nowidths[] = {0x80, 0x01, 4, 3, 0, 0, 1};
    CHECK(pk_delta_init(&d, nowidths, sizeof nowidths, true, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, out, 2, &err) == PLANK_ERR_CORRUPT);
}

/* Extreme hand-picked sequences: wrap-around and min delta = INT64_MIN. */
static void fill_special(uint64_t *v, size_t n, int kind, bool is64, ref_rng *r) {
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: /* alternate 0 and INT64_MIN / INT32_MIN: deltas of +-2^63 */
            v[i] = (i & 1) ? (is64 ? UINT64_C(1) << 63 : (uint64_t)(int64_t)INT32_MIN) : 0;
            break;
        case 1: /* extremes: MIN, MAX alternately */
            v[i] = is64 ? ((i & 1) ? (uint64_t)INT64_MAX : UINT64_C(1) << 63)
                        : (uint64_t)(int64_t)((i & 1) ? INT32_MAX : INT32_MIN);
            break;
        case 2: /* counting up through the wrap point */
            v[i] = is64 ? (uint64_t)INT64_MAX - 50 + i * 7
                        : (uint64_t)(int64_t)(int32_t)(uint32_t)(INT32_MAX - 50 + (uint32_t)i * 7);
            break;
        default: /* random full range, negative deltas included */
            v[i] = is64 ? ref_next(r) : (uint64_t)(int64_t)(int32_t)(uint32_t)ref_next(r);
        }
    }
}

/* Values whose deltas from min_delta need about w bits. */
static void fill_width(uint64_t *v, size_t n, int w, bool is64, ref_rng *r) {
    uint64_t md = ref_next(r);
    if (!is64) md = (uint64_t)(int64_t)(int32_t)(uint32_t)md;
    uint64_t x = ref_next(r);
    for (size_t i = 0; i < n; i++) {
        x += md + (ref_next(r) & ref_mask(w));
        v[i] = is64 ? x : (uint64_t)(int64_t)(int32_t)(uint32_t)x;
    }
}

static int g_cases;

static void check_stream(const uint64_t *v, size_t n, const ref_delta_opts *op, ref_rng *r,
                         bool try_truncations) {
    plank_error err;
    pk_delta_decoder d;
    ref_out o = {0};
    ref_delta(&o, v, n, op, r);
    size_t enc = o.size;
    for (int i = 0; i < 5; i++) ref_byte(&o, 0xEE); /* data after the stream */
    uint8_t *buf = exact_copy(o.data, o.size);
    uint64_t *got = malloc(sizeof(uint64_t) * (n + 1));
    g_cases++;

    /* In chunks of 1, 3, 17 (splits mid-miniblock), via the typed getters. */
    CHECK(pk_delta_init(&d, buf, o.size, op->is64, &err) == PLANK_OK);
    CHECK_EQ_I64(pk_delta_remaining(&d), n);
    static const int64_t chunks[] = {1, 3, 17};
    size_t pos = 0;
    int ci = 0, bad = 0;
    while (pos < n) {
        int64_t k = chunks[ci++ % 3];
        if ((size_t)k > n - pos) k = (int64_t)(n - pos);
        if (op->is64) {
            int64_t t[17];
            if (pk_delta_get_i64(&d, t, k, &err) != PLANK_OK) bad = 1;
            for (int64_t j = 0; j < k; j++) bad |= (uint64_t)t[j] != v[pos + (size_t)j];
        } else {
            int32_t t[17];
            if (pk_delta_get_i32(&d, t, k, &err) != PLANK_OK) bad = 1;
            for (int64_t j = 0; j < k; j++)
                bad |= (uint32_t)t[j] != (uint32_t)v[pos + (size_t)j];
        }
        pos += (size_t)k;
    }
    CHECK_MSG(!bad, "chunks: n %zu block %u/%u is64 %d min_bw %d: %s", n, op->block, op->minis,
              op->is64, op->min_bw, err.message);
    const uint8_t *end = NULL;
    if (!op->truncate_last) {
        CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK);
        CHECK_MSG(end == buf + enc, "end at %td, stream is %zu bytes", end ? end - buf : -1, enc);
    }

    /* All at once as uint64 (INT32: sign-extended). */
    CHECK(pk_delta_init(&d, buf, o.size, op->is64, &err) == PLANK_OK);
    CHECK(pk_delta_get(&d, got, (int64_t)n, &err) == PLANK_OK);
    CHECK_MSG(n == 0 || memcmp(got, v, n * 8) == 0, "all: n %zu is64 %d", n, op->is64);

    /* Skip then get equals the tail; end without decoding everything. */
    size_t s = (size_t)ref_below(r, n + 1);
    CHECK(pk_delta_init(&d, buf, o.size, op->is64, &err) == PLANK_OK);
    CHECK(pk_delta_skip(&d, (int64_t)s, &err) == PLANK_OK);
    size_t t = (size_t)ref_below(r, n - s + 1);
    CHECK(pk_delta_get(&d, got, (int64_t)t, &err) == PLANK_OK);
    CHECK(t == 0 || memcmp(got, v + s, t * 8) == 0);
    if (!op->truncate_last) {
        CHECK(pk_delta_end(&d, &end, &err) == PLANK_OK);
        CHECK(end == buf + enc);
    }
    free(buf);

    /* Every truncation: error, or correct values when only padding was cut. */
    if (try_truncations) {
        for (size_t L = 0; L < enc; L++) {
            uint8_t *tb = exact_copy(o.data, L);
            plank_status st = pk_delta_init(&d, tb, L, op->is64, &err);
            if (st == PLANK_OK) st = pk_delta_get(&d, got, (int64_t)n, &err);
            CHECK_MSG(st == PLANK_ERR_CORRUPT || (st == PLANK_OK && memcmp(got, v, n * 8) == 0),
                      "truncated to %zu of %zu", L, enc);
            if (st == PLANK_OK) {
                const uint8_t *e2;
                st = pk_delta_end(&d, &e2, &err);
                CHECK(st == PLANK_ERR_CORRUPT || (st == PLANK_OK && e2 <= tb + L));
            }
            free(tb);
        }
    }
    free(got);
    free(o.data);
}

static void test_roundtrip(void) {
    ref_rng r = {2024};
    static const unsigned shapes[][2] = {{128, 4}, {128, 1}, {256, 8}, {512, 16}, {256, 2}};
    for (int is64 = 0; is64 <= 1; is64++) {
        for (int delta64 = 0; delta64 <= (is64 ? 0 : 1); delta64++) {
            int maxw = is64 ? 64 : (delta64 ? 33 : 32);
            for (int w = 0; w <= 64; w++) {
                for (size_t li = 0; li < NLEN; li++) {
                    size_t n = k_lengths[li];
                    uint64_t *v = malloc(sizeof(uint64_t) * (n + 1));
                    fill_width(v, n, w <= maxw ? w : maxw, is64, &r);
                    ref_delta_opts op = {0};
                    op.block = shapes[(w + li) % 5][0];
                    op.minis = shapes[(w + li) % 5][1];
                    op.is64 = is64;
                    op.delta64 = delta64;
                    /* Widths beyond what the data needs exercise every width
                     * up to 64 for both types (high bits zero). */
                    op.min_bw = w;
                    op.garbage_widths = (li & 1) != 0;
                    op.garbage_padding = (li & 2) != 0;
                    check_stream(v, n, &op, &r, n <= 129 && (w % 8 == 1 || w == 64));
                    /* Last miniblock short and unpadded. */
                    op.truncate_last = true;
                    check_stream(v, n, &op, &r, false);
                    free(v);
                }
            }
            for (int kind = 0; kind < 4; kind++) {
                for (size_t li = 0; li < NLEN; li++) {
                    size_t n = k_lengths[li];
                    uint64_t *v = malloc(sizeof(uint64_t) * (n + 1));
                    fill_special(v, n, kind, is64, &r);
                    ref_delta_opts op = {128, 4, (bool)delta64, (bool)is64, 0, true, true, false};
                    check_stream(v, n, &op, &r, n <= 9);
                    free(v);
                }
            }
        }
    }
}

/* An INT32 stream written with 64-bit deltas: from INT32_MIN to INT32_MAX
 * the delta is 2^32 - 1 and with a min delta of -(2^32 - 1) the relative
 * deltas need 33 bits. */
static void test_int32_33_bits(void) {
    uint64_t v[40];
    for (int i = 0; i < 40; i++)
        v[i] = (uint64_t)(int64_t)((i & 1) ? INT32_MAX : INT32_MIN);
    ref_rng r = {5};
    ref_out o = {0};
    ref_delta_opts op = {128, 4, true, false, 0, false, false, false};
    ref_delta(&o, v, 40, &op, &r);
    plank_error err;
    pk_delta_decoder d;
    CHECK(pk_delta_init(&d, o.data, o.size, false, &err) == PLANK_OK);
    int32_t out[40];
    CHECK(pk_delta_get_i32(&d, out, 40, &err) == PLANK_OK);
    int ok = 1;
    for (int i = 0; i < 40; i++) ok &= out[i] == ((i & 1) ? INT32_MAX : INT32_MIN);
    CHECK(ok);
    CHECK_EQ_I64(d.widths[0], 33); /* the stream really needs 33 bits */
    free(o.data);
}

int main(void) {
    test_spec_examples();
    test_header_errors();
    test_roundtrip();
    test_int32_33_bits();
    fprintf(stderr, "%d streams\n", g_cases);
    TEST_END();
}
