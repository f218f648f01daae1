/* test_encoder.c: the encoders of pk_encoder.h, round-tripped through the
 * decoders of pk_encoding.h over bit widths, lengths and adversarial data,
 * plus byte strings worked out by hand from Encodings.md, the dictionary
 * builder (against a naive reference) and out-of-memory behaviour with the
 * failing allocator of tharness.h. */
#include <math.h>

#include "encoding/pk_encoder.h"
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"
#include "enc_ref.h"
#include "simd_sets.h"
#include "tharness.h"

/* 0..70 every length, then around the group/run/block boundaries, then large. */
static size_t k_lengths[128];
static size_t nlengths;
static void init_lengths(void) {
    for (size_t i = 0; i <= 70; i++) k_lengths[nlengths++] = i;
    const size_t more[] = {127, 128, 129, 130, 255, 256, 257, 503, 504, 505, 511, 512, 513,
                           1000, 1007, 1008, 1009, 2047, 4031, 4032, 4033, 4095, 4096};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) k_lengths[nlengths++] = more[i];
}

static uint8_t *exact_copy(const uint8_t *buf, size_t len) {
    uint8_t *p = malloc(len ? len : 1);
    if (len) memcpy(p, buf, len);
    return p;
}

static bool bytes_eq(const pk_buffer *b, size_t from, const uint8_t *want, size_t n) {
    return b->size - from == n && (n == 0 || memcmp(b->data + from, want, n) == 0);
}

/* ---- RLE / bit-packed hybrid ------------------------------------------------- */

/* Encodes v with pk_rle_encode_u32 after a few existing bytes, decodes with
 * the scalar reference and the best kernels, and checks the runs end exactly
 * at the end of the output. */
static const pk_kernels *g_sets[PK_SIMD_AVX512 + 1];
static int g_nsets;

static void rle_roundtrip_u32(const uint32_t *v, size_t n, int bw, const pk_kernels *k) {
    plank_error err;
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    CHECK(pk_buffer_append(&b, "xyz", 3, &err) == PLANK_OK);
    plank_status st = pk_rle_encode_u32(v, n, bw, &b, &err);
    CHECK_MSG(st == PLANK_OK, "bw %d n %zu: %s", bw, n, err.message);
    CHECK(memcmp(b.data, "xyz", 3) == 0);
    /* the encode kernels of every level write the same bytes */
    for (int s = 0; s < g_nsets; s++) {
        pk_buffer bk;
        pk_buffer_init(&bk, NULL);
        CHECK(pk_buffer_append(&bk, "xyz", 3, &err) == PLANK_OK);
        CHECK(pk_rle_encode_u32_k(v, n, bw, g_sets[s], &bk, &err) == PLANK_OK);
        CHECK_MSG(bk.size == b.size && memcmp(bk.data, b.data, b.size) == 0,
                  "%s: pk_rle_encode_u32_k bw %d n %zu differs from the scalar encoder",
                  pk_simd_level_name(g_sets[s]->level), bw, n);
        pk_buffer_reset(&bk);
    }
    size_t len = b.size - 3;
    uint8_t *buf = exact_copy(b.data + 3, len);
    uint32_t *out = malloc((n + 1) * sizeof *out);
    for (int pass = 0; pass < 2; pass++) {
        pk_rle_decoder d;
        CHECK(pk_rle_init(&d, buf, len, bw, &err) == PLANK_OK);
        if (pass) d.kernels = k;
        st = pk_rle_get_u32(&d, out, (int64_t)n, &err);
        CHECK_MSG(st == PLANK_OK, "bw %d n %zu pass %d: %s", bw, n, pass, err.message);
        CHECK_MSG(n == 0 || memcmp(out, v, n * sizeof *v) == 0, "bw %d n %zu pass %d", bw, n,
                  pass);
        CHECK_MSG(d.p == d.end, "bw %d n %zu: %zu bytes after the runs", bw, n,
                  (size_t)(d.end - d.p));
    }
    /* All equal: one RLE run (header + value bytes). */
    bool equal = true;
    for (size_t i = 1; i < n && equal; i++) equal = v[i] == v[0];
    if (n > 0 && equal)
        CHECK_MSG(len == (n < 64 ? 1u : n < 8192 ? 2u : 3u) + ((size_t)bw + 7) / 8,
                  "bw %d n %zu: %zu bytes", bw, n, len);
    /* Random data never costs more than all bit-packed plus a few RLE runs
     * (the all-bit-packed size when there is no run). */
    size_t groups = (n + 7) / 8;
    CHECK_MSG(len <= groups * (size_t)bw + (groups + 62) / 63 + (n / 8) * (2 + (size_t)bw / 8 + 1),
              "bw %d n %zu: %zu bytes", bw, n, len);
    free(out);
    free(buf);
    pk_buffer_reset(&b);
}

static void rle_roundtrip_i16(const int16_t *v, size_t n, int bw) {
    plank_error err;
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    CHECK(pk_rle_encode_levels_v1(v, n, bw, &b, &err) == PLANK_OK);
    CHECK(b.size >= 4);
    CHECK_EQ_I64(pk_load_u32(b.data), b.size - 4);
    uint8_t *buf = exact_copy(b.data + 4, b.size - 4);
    int16_t *out = malloc((n + 1) * sizeof *out);
    pk_rle_decoder d;
    CHECK(pk_rle_init(&d, buf, b.size - 4, bw, &err) == PLANK_OK);
    CHECK(pk_rle_get_i16(&d, out, (int64_t)n, &err) == PLANK_OK);
    CHECK_MSG(n == 0 || memcmp(out, v, n * sizeof *v) == 0, "i16 bw %d n %zu", bw, n);
    CHECK(d.p == d.end);
    /* Without the prefix: the same runs. */
    pk_buffer c;
    pk_buffer_init(&c, NULL);
    CHECK(pk_rle_encode_i16(v, n, bw, &c, &err) == PLANK_OK);
    CHECK(bytes_eq(&c, 0, b.data + 4, b.size - 4));
    pk_buffer_reset(&c);
    free(out);
    free(buf);
    pk_buffer_reset(&b);
}

static void test_rle_roundtrip(void) {
    ref_rng r = {42};
    const pk_kernels *k = pk_kernels_for(PK_SIMD_AVX512); /* the best this build has */
    size_t cap = 100000;
    uint32_t *v = malloc(cap * sizeof *v);
    int16_t *v16 = malloc(cap * sizeof *v16);
    for (int bw = 0; bw <= 32; bw++) {
        uint32_t mask = (uint32_t)ref_mask(bw);
        for (size_t li = 0; li < nlengths; li++) {
            size_t n = k_lengths[li];
            for (int pat = 0; pat < 6; pat++) {
                for (size_t i = 0; i < n; i++) {
                    switch (pat) {
                    case 0: v[i] = (uint32_t)ref_next(&r) & mask; break;      /* random */
                    case 1: v[i] = mask; break;                               /* all equal */
                    case 2: v[i] = (i & 1) ? mask : 0; break;                 /* alternating */
                    case 3: v[i] = (uint32_t)(i / 9) & mask; break;           /* runs of 9 */
                    case 4: v[i] = (uint32_t)((i + 3) / 7) & mask; break;     /* runs of 7 */
                    default: break;
                    }
                }
                if (pat == 5) ref_fill_runs(v, n, bw, &r); /* random runs */
                rle_roundtrip_u32(v, n, bw, k);
                if (bw <= 16) {
                    for (size_t i = 0; i < n; i++) v16[i] = (int16_t)(v[i] & 0x7FFF);
                    rle_roundtrip_i16(v16, n, bw);
                }
            }
        }
    }
    /* Large: mostly constant levels with rare changes, and random. */
    for (size_t i = 0; i < cap; i++) v[i] = ref_below(&r, 1000) ? 1 : 0;
    rle_roundtrip_u32(v, cap, 1, k);
    for (size_t i = 0; i < cap; i++) v[i] = (uint32_t)ref_next(&r) & 0x1FFF;
    rle_roundtrip_u32(v, cap, 13, k);
    for (size_t i = 0; i < cap; i++) v16[i] = (int16_t)(ref_below(&r, 50) ? 3 : ref_below(&r, 4));
    rle_roundtrip_i16(v16, cap, 2);
    free(v);
    free(v16);
}

static void test_rle_bytes(void) {
    plank_error err;
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    /* Encodings.md: 0..7 at width 3, one bit-packed group. */
    const uint32_t seq[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(pk_rle_encode_u32(seq, 8, 3, &b, &err) == PLANK_OK);
    const uint8_t want1[] = {0x03, 0x88, 0xC6, 0xFA};
    CHECK(bytes_eq(&b, 0, want1, sizeof want1));

    /* 200 x 5 at width 3: one RLE run, header 400 = 0x90 0x03. */
    uint32_t v[1100];
    for (int i = 0; i < 200; i++) v[i] = 5;
    b.size = 0;
    CHECK(pk_rle_encode_u32(v, 200, 3, &b, &err) == PLANK_OK);
    const uint8_t want2[] = {0x90, 0x03, 0x05};
    CHECK(bytes_eq(&b, 0, want2, sizeof want2));

    /* 1,0,1,1,0,0,0,1 then 8 ones at width 1: a group, then an RLE run. */
    const uint32_t mix[16] = {1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    b.size = 0;
    CHECK(pk_rle_encode_u32(mix, 16, 1, &b, &err) == PLANK_OK);
    const uint8_t want3[] = {0x03, 0x8D, 0x10, 0x01};
    CHECK(bytes_eq(&b, 0, want3, sizeof want3));

    /* 0 then 15 ones: the run does not cover the first group, so that group
     * is bit-packed (0xFE) and the run starts at the second. */
    const uint32_t off[16] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    b.size = 0;
    CHECK(pk_rle_encode_u32(off, 16, 1, &b, &err) == PLANK_OK);
    const uint8_t want4[] = {0x03, 0xFE, 0x10, 0x01};
    CHECK(bytes_eq(&b, 0, want4, sizeof want4));

    /* Fewer than 8 equal values on their own: an RLE run (5 x 2, width 2). */
    const uint32_t five[5] = {2, 2, 2, 2, 2};
    b.size = 0;
    CHECK(pk_rle_encode_u32(five, 5, 2, &b, &err) == PLANK_OK);
    const uint8_t want5[] = {0x0A, 0x02};
    CHECK(bytes_eq(&b, 0, want5, sizeof want5));
    /* ... but 3 values, not all equal: one padded group. 1,2,3 at width 2:
     * bits 01 10 11 -> 0b111001 = 0x39, then a zero byte. */
    const uint32_t three[3] = {1, 2, 3};
    b.size = 0;
    CHECK(pk_rle_encode_u32(three, 3, 2, &b, &err) == PLANK_OK);
    const uint8_t want6[] = {0x03, 0x39, 0x00};
    CHECK(bytes_eq(&b, 0, want6, sizeof want6));

    /* Width 17: an RLE value takes 3 bytes, little-endian. */
    const uint32_t wide[2] = {0x13456, 0x13456};
    b.size = 0;
    CHECK(pk_rle_encode_u32(wide, 2, 17, &b, &err) == PLANK_OK);
    const uint8_t want7[] = {0x04, 0x56, 0x34, 0x01};
    CHECK(bytes_eq(&b, 0, want7, sizeof want7));

    /* Width 0: only run headers. */
    const uint32_t zeros[13] = {0};
    b.size = 0;
    CHECK(pk_rle_encode_u32(zeros, 13, 0, &b, &err) == PLANK_OK);
    const uint8_t want8[] = {0x1A};
    CHECK(bytes_eq(&b, 0, want8, sizeof want8));

    /* 1100 alternating values at width 1: bit-packed runs of 63 groups
     * (header 0x7F, 63 bytes 0xAA), 63 more, then 11 groups + 4 values
     * padded into a 12th group (header 0x19). */
    for (int i = 0; i < 1100; i++) v[i] = (uint32_t)(i & 1);
    b.size = 0;
    CHECK(pk_rle_encode_u32(v, 1100, 1, &b, &err) == PLANK_OK);
    CHECK_EQ_I64(b.size, 1 + 63 + 1 + 63 + 1 + 12);
    CHECK_EQ_I64(b.data[0], 0x7F);
    CHECK_EQ_I64(b.data[1], 0xAA);
    CHECK_EQ_I64(b.data[64], 0x7F);
    CHECK_EQ_I64(b.data[128], 0x19);
    CHECK_EQ_I64(b.data[140], 0x0A); /* values 1096..1099 = 0,1,0,1 then padding */

    /* v1 levels: 4-byte length, then the runs. */
    const int16_t lv[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    b.size = 0;
    CHECK(pk_rle_encode_levels_v1(lv, 10, 1, &b, &err) == PLANK_OK);
    const uint8_t want9[] = {2, 0, 0, 0, 0x14, 0x01};
    CHECK(bytes_eq(&b, 0, want9, sizeof want9));
    b.size = 0;
    CHECK(pk_rle_encode_levels_v1(lv, 0, 1, &b, &err) == PLANK_OK);
    const uint8_t want10[] = {0, 0, 0, 0};
    CHECK(bytes_eq(&b, 0, want10, sizeof want10));

    /* Errors leave the buffer as it was. */
    b.size = 0;
    CHECK(pk_buffer_append(&b, "ab", 2, &err) == PLANK_OK);
    const uint32_t big[9] = {0, 0, 0, 0, 0, 0, 0, 0, 8};
    CHECK(pk_rle_encode_u32(big, 9, 3, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_rle_encode_u32(seq, 8, 33, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_rle_encode_u32(seq, 8, -1, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_rle_encode_i16(lv, 10, 17, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    const int16_t neg[3] = {0, -1, 0};
    CHECK(pk_rle_encode_levels_v1(neg, 3, 15, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_rle_encode_i16(neg, 3, 0, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK_EQ_I64(b.size, 2);
    /* Levels are never negative, at any width. */
    CHECK(pk_rle_encode_i16(neg, 3, 16, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK_EQ_I64(b.size, 2);
    pk_buffer_reset(&b);
}

/* ---- Values ------------------------------------------------------------------- */

static const plank_encoding k_encodings[] = {
    PLANK_ENC_PLAIN,          PLANK_ENC_RLE,        PLANK_ENC_DELTA_BINARY_PACKED,
    PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_ENC_BYTE_STREAM_SPLIT};
#define NENC (sizeof k_encodings / sizeof k_encodings[0])

/* Encodes v with enc after an existing byte, decodes it with pk_decoder in
 * two chunks and compares. */
static void values_roundtrip(plank_encoding enc, const pk_values *v) {
    plank_error err;
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    CHECK(pk_buffer_append(&b, "#", 1, &err) == PLANK_OK);
    plank_status st = pk_encode_values(enc, v, &b, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "%s %s n %lld: %s", plank_encoding_name(enc),
              plank_physical_type_name(v->type), (long long)v->n, err.message);
    CHECK(b.data[0] == '#');
    size_t n = (size_t)v->n;
    if (enc == PLANK_ENC_PLAIN) CHECK(b.size - 1 <= pk_plain_size(v));
    uint8_t *buf = exact_copy(b.data + 1, b.size - 1);
    pk_decoder d;
    st = pk_decoder_init(&d, enc, v->type, v->width, buf, b.size - 1, v->n, NULL, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "%s %s n %zu: %s", plank_encoding_name(enc),
              plank_physical_type_name(v->type), n, err.message);
    size_t half = n / 3;
    if (st == PLANK_OK && v->type == PLANK_BYTE_ARRAY) {
        pk_buffer data;
        pk_buffer_init(&data, NULL);
        int64_t *ends = malloc((n + 1) * sizeof *ends);
        CHECK(pk_decoder_get_binary(&d, (int64_t)half, &data, ends, &err) == PLANK_OK);
        CHECK(pk_decoder_get_binary(&d, (int64_t)(n - half), &data, ends + half, &err) ==
              PLANK_OK);
        bool ok = true;
        int64_t prev = 0;
        for (size_t i = 0; i < n && ok; i++) {
            int64_t len = v->offsets[i + 1] - v->offsets[i];
            ok = ends[i] - prev == len &&
                 (len == 0 || memcmp(data.data + prev, v->data + v->offsets[i], (size_t)len) == 0);
            prev = ends[i];
        }
        CHECK_MSG(ok, "%s BYTE_ARRAY n %zu", plank_encoding_name(enc), n);
        free(ends);
        pk_buffer_reset(&data);
    } else if (st == PLANK_OK) {
        size_t w = (size_t)v->width;
        uint8_t *out = malloc(n * w + 1);
        CHECK(pk_decoder_get_fixed(&d, (int64_t)half, out, &err) == PLANK_OK);
        CHECK(pk_decoder_get_fixed(&d, (int64_t)(n - half), out + half * w, &err) == PLANK_OK);
        bool ok = true;
        for (size_t i = 0; i < n * w && ok; i++)
            ok = v->type == PLANK_BOOLEAN ? out[i] == (v->fixed[i] != 0) : out[i] == v->fixed[i];
        CHECK_MSG(ok, "%s %s width %zu n %zu", plank_encoding_name(enc),
                  plank_physical_type_name(v->type), w, n);
        free(out);
    }
    pk_decoder_release(&d);
    free(buf);
    pk_buffer_reset(&b);
}

/* Fills n values of w bytes with pattern pat. */
static void fill_fixed(uint8_t *p, size_t n, size_t w, plank_physical_type type, int pat,
                       ref_rng *r) {
    for (size_t i = 0; i < n; i++) {
        uint8_t *q = p + i * w;
        uint64_t x;
        switch (pat) {
        case 0: x = ref_next(r); break;                              /* random bits */
        case 1: x = UINT64_C(0x8000000000000000) >> (w == 4 ? 32 : 0); break; /* all equal (MIN) */
        case 2: x = (i & 1) ? UINT64_MAX : 0; break;                 /* alternating */
        case 3: /* INT MIN / MAX / 0 / -1: deltas that wrap */
            x = (uint64_t[]){UINT64_C(0x8000000000000000), UINT64_C(0x7FFFFFFFFFFFFFFF), 0,
                             UINT64_MAX}[ref_below(r, 4)];
            if (w == 4) x = (uint32_t[]){0x80000000u, 0x7FFFFFFFu, 0, 0xFFFFFFFFu}[x & 3];
            break;
        case 4: x = i * 1000 + ref_below(r, 7); break;               /* sorted, small deltas */
        default: x = (uint64_t)(0 - (int64_t)ref_below(r, 100)); break; /* small negatives */
        }
        if (type == PLANK_BOOLEAN) x = ref_below(r, 3) == 0 ? 0 : (pat == 2 ? (i & 1) : x | 1);
        for (size_t b = 0; b < w; b++) q[b] = (uint8_t)(b < 8 ? x >> (8 * b) : x >> (b % 8));
    }
}

static void test_values_roundtrip(void) {
    ref_rng r = {7};
    const struct { plank_physical_type t; int32_t w; } types[] = {
        {PLANK_BOOLEAN, 1}, {PLANK_INT32, 4},  {PLANK_INT64, 8},
        {PLANK_INT96, 12},  {PLANK_FLOAT, 4},  {PLANK_DOUBLE, 8},
        {PLANK_FIXED_LEN_BYTE_ARRAY, 1},       {PLANK_FIXED_LEN_BYTE_ARRAY, 2},
        {PLANK_FIXED_LEN_BYTE_ARRAY, 3},       {PLANK_FIXED_LEN_BYTE_ARRAY, 16}};
    uint8_t *buf = malloc(5000 * 16);
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        for (size_t ei = 0; ei < NENC; ei++) {
            if (!pk_encoding_applies(k_encodings[ei], types[ti].t)) continue;
            for (size_t li = 0; li < nlengths; li += (li < 70 ? 3 : 1)) {
                size_t n = k_lengths[li];
                for (int pat = 0; pat < 6; pat++) {
                    fill_fixed(buf, n, (size_t)types[ti].w, types[ti].t, pat, &r);
                    pk_values v = {.type = types[ti].t, .width = types[ti].w,
                                   .n = (int64_t)n, .fixed = buf};
                    values_roundtrip(k_encodings[ei], &v);
                }
            }
        }
    }
    free(buf);
    /* Large inputs. */
    size_t big = 300000;
    uint8_t *large = malloc(big * 8);
    for (int pat = 0; pat < 6; pat++) {
        fill_fixed(large, big, 8, PLANK_INT64, pat, &r);
        pk_values v64 = {.type = PLANK_INT64, .width = 8, .n = (int64_t)big, .fixed = large};
        values_roundtrip(PLANK_ENC_DELTA_BINARY_PACKED, &v64);
        pk_values v32 = {.type = PLANK_INT32, .width = 4, .n = (int64_t)big, .fixed = large};
        values_roundtrip(PLANK_ENC_DELTA_BINARY_PACKED, &v32);
        values_roundtrip(PLANK_ENC_BYTE_STREAM_SPLIT, &v32);
        pk_values vb = {.type = PLANK_BOOLEAN, .width = 1, .n = (int64_t)big, .fixed = large};
        values_roundtrip(PLANK_ENC_RLE, &vb);
        values_roundtrip(PLANK_ENC_PLAIN, &vb);
    }
    free(large);
}

/* Byte arrays: n values drawn by pattern into offsets/data. */
typedef struct {
    int64_t *off;
    uint8_t *data;
    size_t cap;
} strings;

static void fill_strings(strings *s, size_t n, int pat, ref_rng *r) {
    size_t total = 0;
    s->off = realloc(s->off, (n + 1) * sizeof *s->off);
    int64_t base = pat == 1 ? 5 : 0; /* offsets[0] > 0 too */
    s->off[0] = base;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        switch (pat) {
        case 0: len = ref_below(r, 20); break;              /* random short */
        case 1: len = 0; break;                             /* all empty */
        case 2: len = ref_below(r, 50) ? 3 : 10000; break;  /* some long */
        default: len = 8 + ref_below(r, 12); break;         /* shared prefixes */
        }
        total += len;
        s->off[i + 1] = base + (int64_t)total;
    }
    /* 16 bytes past the last value's start: the values can be marked padded */
    if (base + total + 16 > s->cap) {
        s->cap = base + total + 16;
        s->data = realloc(s->data, s->cap);
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = s->data + s->off[i];
        size_t len = (size_t)(s->off[i + 1] - s->off[i]);
        for (size_t k = 0; k < len; k++) {
            if (pat == 3) /* sorted-ish keys: long common prefixes with the previous */
                p[k] = (uint8_t)(k < 6 ? 'k' : 'a' + (k == 6 ? (i / 16) % 26 : ref_below(r, 3)));
            else if (pat == 2 && ref_below(r, 4) == 0)
                p[k] = (uint8_t)(i & 0xFF); /* repeats */
            else
                p[k] = (uint8_t)ref_next(r);
        }
    }
}

/* n strings of pattern pat (seeded) as BYTE_ARRAY pk_values over s. */
static pk_values make_strings(strings *s, size_t n, int pat, uint64_t seed) {
    ref_rng r = {seed};
    fill_strings(s, n, pat, &r);
    pk_values v = {.type = PLANK_BYTE_ARRAY, .n = (int64_t)n, .offsets = s->off, .data = s->data};
    return v;
}

static void test_binary_roundtrip(void) {
    ref_rng r = {11};
    strings s = {0};
    const plank_encoding encs[] = {PLANK_ENC_PLAIN, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY,
                                   PLANK_ENC_DELTA_BYTE_ARRAY};
    for (size_t li = 0; li < nlengths; li += (li < 70 ? 2 : 1)) {
        size_t n = k_lengths[li];
        for (int pat = 0; pat < 4; pat++) {
            if (pat == 2 && n > 600) continue;
            fill_strings(&s, n, pat, &r);
            pk_values v = {.type = PLANK_BYTE_ARRAY, .n = (int64_t)n, .offsets = s.off,
                           .data = pat == 1 ? NULL : s.data};
            for (size_t e = 0; e < 3; e++) values_roundtrip(encs[e], &v);
            /* marked padded (fill_strings leaves 16 bytes past the last
             * value's start): PLAIN copies in 16-byte blocks then */
            v.padded = v.data != NULL;
            for (size_t e = 0; e < 3; e++) values_roundtrip(encs[e], &v);
        }
    }
    /* Identical strings (prefix = whole previous value, empty suffixes). */
    fill_strings(&s, 1000, 0, &r);
    for (size_t i = 1; i <= 1000; i++) s.off[i] = 7;
    s.off[0] = 0;
    pk_values same = {.type = PLANK_BYTE_ARRAY, .n = 1000, .offsets = s.off, .data = s.data};
    for (size_t e = 0; e < 3; e++) values_roundtrip(encs[e], &same);
    free(s.off);
    free(s.data);
}

static void encode_expect(plank_encoding enc, const pk_values *v, const uint8_t *want, size_t n,
                          const char *what) {
    plank_error err;
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    plank_status st = pk_encode_values(enc, v, &b, NULL, &err);
    CHECK_MSG(st == PLANK_OK && bytes_eq(&b, 0, want, n), "%s (%zu bytes)", what, b.size);
    if (st == PLANK_OK && !bytes_eq(&b, 0, want, n)) {
        for (size_t i = 0; i < b.size; i++) fprintf(stderr, "%02X ", b.data[i]);
        fputc('\n', stderr);
    }
    pk_buffer_reset(&b);
}

static void test_values_bytes(void) {
    /* DELTA_BINARY_PACKED, Encodings.md example 1 (1..5) with a 128-value
     * block: header 128 (0x80 0x01), 4 miniblocks, 5 values, zigzag(1) = 2;
     * block: min delta zigzag(1) = 2, all widths 0, no miniblock data. */
    const int32_t ex1[] = {1, 2, 3, 4, 5};
    pk_values v = {.type = PLANK_INT32, .width = 4, .n = 5, .fixed = (const uint8_t *)ex1};
    const uint8_t want1[] = {0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0};
    encode_expect(PLANK_ENC_DELTA_BINARY_PACKED, &v, want1, sizeof want1, "DBP example 1");
    /* Example 2 (7,5,3,1,2,3,4,5): zigzag(7) = 14, min delta -2 (zigzag 3),
     * relative deltas 0,0,0,3,3,3,3 on 2 bits: 0xC0 0x3F, padded to 32
     * values (8 bytes); unused miniblocks width 0 and absent. */
    const int32_t ex2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    v.n = 8;
    v.fixed = (const uint8_t *)ex2;
    const uint8_t want2[] = {0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
    encode_expect(PLANK_ENC_DELTA_BINARY_PACKED, &v, want2, sizeof want2, "DBP example 2");
    /* INT64 the same. */
    const int64_t ex2l[] = {7, 5, 3, 1, 2, 3, 4, 5};
    pk_values v64 = {.type = PLANK_INT64, .width = 8, .n = 8, .fixed = (const uint8_t *)ex2l};
    encode_expect(PLANK_ENC_DELTA_BINARY_PACKED, &v64, want2, sizeof want2, "DBP example 2 i64");
    /* Empty and single value: header only. */
    v.n = 0;
    const uint8_t want3[] = {0x80, 0x01, 4, 0, 0};
    encode_expect(PLANK_ENC_DELTA_BINARY_PACKED, &v, want3, sizeof want3, "DBP empty");
    v.n = 1;
    const uint8_t want4[] = {0x80, 0x01, 4, 1, 14};
    encode_expect(PLANK_ENC_DELTA_BINARY_PACKED, &v, want4, sizeof want4, "DBP one");
    /* INT32 extremes: MIN, MAX wraps to a delta of -1 in 32 bits (not
     * 2^32 - 1): min delta -1 (zigzag 1), width 0. zigzag(INT32_MIN) =
     * 2^32 - 1 = FF FF FF FF 0F. */
    const int32_t ext[] = {INT32_MIN, INT32_MAX};
    v.n = 2;
    v.fixed = (const uint8_t *)ext;
    const uint8_t want5[] = {0x80, 0x01, 4, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 1, 0, 0, 0, 0};
    encode_expect(PLANK_ENC_DELTA_BINARY_PACKED, &v, want5, sizeof want5, "DBP INT32 wrap");
    /* Deltas alternating INT32_MIN and INT32_MAX (wrapping sums): relative
     * deltas up to 2^32 - 1, width exactly 32. */
    uint32_t w32[33];
    w32[0] = 0;
    for (int i = 1; i < 33; i++) w32[i] = w32[i - 1] + ((i & 1) ? 0x80000000u : 0x7FFFFFFFu);
    v.n = 33;
    v.fixed = (const uint8_t *)w32;
    {
        plank_error err;
        pk_buffer b;
        pk_buffer_init(&b, NULL);
        CHECK(pk_encode_values(PLANK_ENC_DELTA_BINARY_PACKED, &v, &b, NULL, &err) == PLANK_OK);
        /* header 5 bytes; min delta INT32_MIN: zigzag 2^32 - 1 in 5 bytes */
        CHECK_EQ_I64(b.data[10], 32);
        CHECK_EQ_I64(b.size, 5 + 5 + 4 + 32 * 4);
        uint8_t *copy = exact_copy(b.data, b.size);
        pk_decoder dd;
        int32_t back[33];
        CHECK(pk_decoder_init(&dd, PLANK_ENC_DELTA_BINARY_PACKED, PLANK_INT32, 0, copy, b.size,
                              33, NULL, NULL, &err) == PLANK_OK);
        CHECK(pk_decoder_get_fixed(&dd, 33, (uint8_t *)back, &err) == PLANK_OK);
        CHECK(memcmp(back, w32, sizeof back) == 0);
        pk_decoder_release(&dd);
        free(copy);
        pk_buffer_reset(&b);
    }

    /* PLAIN booleans: LSB first, 1,0,1,1,0,0,0,1 | 1 -> 0x8D 0x01 (any non-zero is true). */
    const uint8_t bools[9] = {1, 0, 7, 1, 0, 0, 0, 0x80, 1};
    pk_values vb = {.type = PLANK_BOOLEAN, .width = 1, .n = 9, .fixed = bools};
    const uint8_t want6[] = {0x8D, 0x01};
    encode_expect(PLANK_ENC_PLAIN, &vb, want6, sizeof want6, "PLAIN booleans");
    /* RLE booleans: 4-byte length, then the runs at width 1 (9 values
     * that are not all equal: two bit-packed groups, the second padded). */
    const uint8_t want7[] = {3, 0, 0, 0, 0x05, 0x8D, 0x01};
    encode_expect(PLANK_ENC_RLE, &vb, want7, sizeof want7, "RLE booleans");
    const uint8_t ones[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    vb.fixed = ones;
    vb.n = 10;
    const uint8_t want8[] = {2, 0, 0, 0, 0x14, 0x01};
    encode_expect(PLANK_ENC_RLE, &vb, want8, sizeof want8, "RLE booleans run");

    /* PLAIN byte arrays: 4-byte length + bytes. */
    const int64_t off2[] = {3, 5, 5};
    pk_values vs = {.type = PLANK_BYTE_ARRAY, .n = 2, .offsets = off2,
                    .data = (const uint8_t *)"xxxab"};
    const uint8_t want9[] = {2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0};
    encode_expect(PLANK_ENC_PLAIN, &vs, want9, sizeof want9, "PLAIN byte arrays");

    /* DELTA_LENGTH_BYTE_ARRAY, Encodings.md: Hello World Foobar ABCDEF.
     * Lengths 5,5,6,6: first zigzag(5) = 10, deltas 0,1,0 (min 0, width 1:
     * 0b010 = 0x02, padded to 4 bytes), then the bytes. */
    const char *hw = "HelloWorldFoobarABCDEF";
    const int64_t offhw[] = {0, 5, 10, 16, 22};
    pk_values vh = {.type = PLANK_BYTE_ARRAY, .n = 4, .offsets = offhw, .data = (const uint8_t *)hw};
    uint8_t want10[64] = {0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0x02, 0, 0, 0};
    memcpy(want10 + 14, hw, 22);
    encode_expect(PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, &vh, want10, 36, "DLBA example");

    /* DELTA_BYTE_ARRAY, Encodings.md: axis axle babble babyhood. Prefix
     * lengths 0,2,0,3: deltas 2,-2,3, min -2 (zigzag 3), relative 4,0,5 on 3
     * bits = 0x44 0x01 (+10 padding bytes). Suffix lengths 4,2,6,5: first
     * zigzag(4) = 8, deltas -2,4,-1, min -2, relative 0,6,1 on 3 bits = 0x70
     * 0x00. Then "axis" "le" "babble" "yhood". */
    const char *ax = "axisaxlebabblebabyhood";
    const int64_t offax[] = {0, 4, 8, 14, 22};
    pk_values va = {.type = PLANK_BYTE_ARRAY, .n = 4, .offsets = offax, .data = (const uint8_t *)ax};
    uint8_t want11[80] = {0x80, 0x01, 4, 4, 0, 3, 3, 0, 0, 0, 0x44, 0x01};
    size_t at = 10 + 12;
    const uint8_t suf[] = {0x80, 0x01, 4, 4, 8, 3, 3, 0, 0, 0, 0x70, 0x00};
    memcpy(want11 + at, suf, sizeof suf);
    at += 10 + 12;
    memcpy(want11 + at, "axislebabbleyhood", 17);
    at += 17;
    encode_expect(PLANK_ENC_DELTA_BYTE_ARRAY, &va, want11, at, "DBA example");

    /* BYTE_STREAM_SPLIT: byte b of every value, stream after stream. */
    const uint32_t bs[2] = {0x04030201u, 0x08070605u};
    pk_values vss = {.type = PLANK_INT32, .width = 4, .n = 2, .fixed = (const uint8_t *)bs};
    const uint8_t want12[] = {1, 5, 2, 6, 3, 7, 4, 8};
    encode_expect(PLANK_ENC_BYTE_STREAM_SPLIT, &vss, want12, sizeof want12, "BSS INT32");
    const uint8_t fl3[6] = {1, 2, 3, 4, 5, 6};
    pk_values vf = {.type = PLANK_FIXED_LEN_BYTE_ARRAY, .width = 3, .n = 2, .fixed = fl3};
    const uint8_t want13[] = {1, 4, 2, 5, 3, 6};
    encode_expect(PLANK_ENC_BYTE_STREAM_SPLIT, &vf, want13, sizeof want13, "BSS FLBA(3)");
}

static void test_values_errors(void) {
    plank_error err;
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    CHECK(pk_buffer_append(&b, "ab", 2, &err) == PLANK_OK);
    const int32_t x[2] = {1, 2};
    pk_values v = {.type = PLANK_INT32, .width = 4, .n = 2, .fixed = (const uint8_t *)x};
    /* Applicability: the table of pk_encoder.h, and refusal of the rest. */
    for (int t = PLANK_BOOLEAN; t <= PLANK_FIXED_LEN_BYTE_ARRAY; t++) {
        bool fl = t == PLANK_FIXED_LEN_BYTE_ARRAY, ba = t == PLANK_BYTE_ARRAY;
        CHECK(pk_encoding_applies(PLANK_ENC_PLAIN, (plank_physical_type)t));
        CHECK(pk_encoding_applies(PLANK_ENC_RLE, (plank_physical_type)t) == (t == PLANK_BOOLEAN));
        CHECK(pk_encoding_applies(PLANK_ENC_DELTA_BINARY_PACKED, (plank_physical_type)t) ==
              (t == PLANK_INT32 || t == PLANK_INT64));
        CHECK(pk_encoding_applies(PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, (plank_physical_type)t) == ba);
        CHECK(pk_encoding_applies(PLANK_ENC_DELTA_BYTE_ARRAY, (plank_physical_type)t) == (ba || fl));
        CHECK(pk_encoding_applies(PLANK_ENC_BYTE_STREAM_SPLIT, (plank_physical_type)t) ==
              (t == PLANK_INT32 || t == PLANK_INT64 || t == PLANK_FLOAT || t == PLANK_DOUBLE || fl));
        CHECK(!pk_encoding_applies(PLANK_ENC_RLE_DICTIONARY, (plank_physical_type)t));
        CHECK(!pk_encoding_applies(PLANK_ENC_PLAIN_DICTIONARY, (plank_physical_type)t));
        CHECK(!pk_encoding_applies(PLANK_ENC_BIT_PACKED, (plank_physical_type)t));
    }
    CHECK(pk_encode_values(PLANK_ENC_RLE, &v, &b, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_encode_values(PLANK_ENC_RLE_DICTIONARY, &v, &b, NULL, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    v.width = 8;
    CHECK(pk_encode_values(PLANK_ENC_PLAIN, &v, &b, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    v.width = 4;
    v.n = -1;
    CHECK(pk_encode_values(PLANK_ENC_PLAIN, &v, &b, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    v.n = 2;
    v.fixed = NULL;
    CHECK(pk_encode_values(PLANK_ENC_PLAIN, &v, &b, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    const int64_t bad[] = {0, 3, 1};
    pk_values s = {.type = PLANK_BYTE_ARRAY, .n = 2, .offsets = bad, .data = (const uint8_t *)"abc"};
    CHECK(pk_encode_values(PLANK_ENC_PLAIN, &s, &b, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    const int64_t neg[] = {-1, 0};
    s.offsets = neg;
    s.n = 1;
    CHECK(pk_encode_values(PLANK_ENC_DELTA_BYTE_ARRAY, &s, &b, NULL, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    pk_values fl0 = {.type = PLANK_FIXED_LEN_BYTE_ARRAY, .width = 0, .n = 0};
    CHECK(pk_encode_values(PLANK_ENC_PLAIN, &fl0, &b, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK_EQ_I64(b.size, 2);
    /* pk_plain_size. */
    pk_values vb = {.type = PLANK_BOOLEAN, .width = 1, .n = 9};
    CHECK_EQ_I64(pk_plain_size(&vb), 2);
    const int64_t o3[] = {2, 4, 4, 9};
    pk_values vs = {.type = PLANK_BYTE_ARRAY, .n = 3, .offsets = o3};
    CHECK_EQ_I64(pk_plain_size(&vs), 12 + 7);
    pk_values v96 = {.type = PLANK_INT96, .width = 12, .n = 5};
    CHECK_EQ_I64(pk_plain_size(&v96), 60);
    pk_values huge = {.type = PLANK_INT64, .width = 8, .n = INT64_MAX};
    CHECK(pk_plain_size(&huge) == SIZE_MAX);
    pk_buffer_reset(&b);
}

/* A counting allocator whose fail-th call fails. */
static plank_allocator failing_alloc(th_alloc *ta, int64_t fail) {
    plank_allocator a = th_alloc_init(ta);
    ta->fail_at = fail;
    return a;
}

/* Every allocation failure of an encoding leaves no leak and the buffer unchanged. */
static void test_values_oom(void) {
    strings s = {0};
    pk_values v = make_strings(&s, 3000, 3, 3);
    const plank_encoding encs[] = {PLANK_ENC_PLAIN, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY,
                                   PLANK_ENC_DELTA_BYTE_ARRAY};
    for (size_t e = 0; e < 3; e++) {
        bool succeeded = false;
        for (int64_t fail = 1; fail < 100 && !succeeded; fail++) {
            th_alloc ta;
            plank_allocator a = failing_alloc(&ta, fail);
            plank_error err;
            pk_buffer b;
            pk_buffer_init(&b, &a);
            plank_status st = pk_buffer_append(&b, "q", 1, &err);
            if (st == PLANK_OK) st = pk_encode_values(encs[e], &v, &b, NULL, &err);
            if (st == PLANK_OK) {
                succeeded = true;
                CHECK(!ta.failed);
            } else {
                CHECK_EQ_I64(st, PLANK_ERR_OUT_OF_MEMORY);
                CHECK(b.size <= 1);
            }
            pk_buffer_reset(&b);
            CHECK_EQ_I64(ta.live_blocks, 0);
            CHECK_EQ_I64(ta.live_bytes, 0);
        }
        CHECK(succeeded);
    }
    free(s.off);
    free(s.data);
}

/* ---- Dictionary builder ---------------------------------------------------------- */

static void test_dict_basic(void) {
    plank_error err;
    pk_dict_builder d;
    CHECK(pk_dict_builder_init(&d, PLANK_INT32, 4, NULL, &err) == PLANK_OK);
    const int32_t x[6] = {5, 7, 5, 9, 7, 5};
    pk_values v = {.type = PLANK_INT32, .width = 4, .n = 6, .fixed = (const uint8_t *)x};
    uint32_t idx[6];
    CHECK(pk_dict_builder_put(&d, &v, idx, &err) == PLANK_OK);
    const uint32_t want[6] = {0, 1, 0, 2, 1, 0};
    CHECK(memcmp(idx, want, sizeof want) == 0);
    CHECK_EQ_I64(d.count, 3);
    CHECK_EQ_I64(d.plain_bytes, 12);
    pk_values e;
    pk_dict_builder_entries(&d, &e);
    CHECK_EQ_I64(e.n, 3);
    const int32_t ent[3] = {5, 7, 9};
    CHECK(memcmp(e.fixed, ent, 12) == 0);
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    CHECK(pk_dict_builder_encode(&d, &b, &err) == PLANK_OK);
    CHECK(bytes_eq(&b, 0, (const uint8_t *)ent, 12));

    /* Indices section: width byte 2, then 0,1,0,2,1,0 packed (one group). */
    b.size = 0;
    CHECK(pk_encode_dict_indices(idx, 6, d.count, NULL, &b, &err) == PLANK_OK);
    /* 0,1,0,2,1,0 on 2 bits from bit 0: bits 2, 7 and 8 set -> 0x84 0x01 */
    const uint8_t wantidx[] = {2, 0x03, 0x84, 0x01};
    CHECK(bytes_eq(&b, 0, wantidx, sizeof wantidx));
    /* A dictionary of one entry: width 0, one run header. */
    const uint32_t z[10] = {0};
    b.size = 0;
    CHECK(pk_encode_dict_indices(z, 10, 1, NULL, &b, &err) == PLANK_OK);
    const uint8_t want1[] = {0, 0x14};
    CHECK(bytes_eq(&b, 0, want1, sizeof want1));
    b.size = 0;
    CHECK(pk_encode_dict_indices(idx, 6, 2, NULL, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_encode_dict_indices(idx, 6, -1, NULL, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_encode_dict_indices(NULL, 0, 0, NULL, &b, &err) == PLANK_OK);
    CHECK_EQ_I64(b.size, 1);

    /* clear(): empty, indices from 0 again. */
    pk_dict_builder_clear(&d);
    CHECK_EQ_I64(d.count, 0);
    CHECK_EQ_I64(d.plain_bytes, 0);
    const int32_t y[2] = {9, 9};
    v.fixed = (const uint8_t *)y;
    v.n = 2;
    CHECK(pk_dict_builder_put(&d, &v, idx, &err) == PLANK_OK);
    CHECK(idx[0] == 0 && idx[1] == 0 && d.count == 1);
    /* Wrong type or width. */
    pk_values w = {.type = PLANK_INT64, .width = 8, .n = 1, .fixed = (const uint8_t *)x};
    CHECK(pk_dict_builder_put(&d, &w, idx, &err) == PLANK_ERR_INVALID_ARGUMENT);
    pk_dict_builder_release(&d);
    pk_dict_builder_release(&d); /* harmless twice */
    CHECK(pk_dict_builder_init(&d, PLANK_BOOLEAN, 1, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_dict_builder_init(&d, PLANK_FIXED_LEN_BYTE_ARRAY, 0, NULL, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(pk_dict_builder_init(&d, PLANK_DOUBLE, 4, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    pk_buffer_reset(&b);
}

static void test_dict_floats(void) {
    plank_error err;
    pk_dict_builder d;
    CHECK(pk_dict_builder_init(&d, PLANK_FLOAT, 4, NULL, &err) == PLANK_OK);
    const uint32_t bits[7] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0x7FC00000u,
                              0x7FC00001u, 0x00000000u, 0xFFC00000u};
    pk_values v = {.type = PLANK_FLOAT, .width = 4, .n = 7, .fixed = (const uint8_t *)bits};
    uint32_t idx[7];
    CHECK(pk_dict_builder_put(&d, &v, idx, &err) == PLANK_OK);
    const uint32_t want[7] = {0, 1, 2, 2, 3, 0, 4};
    CHECK(memcmp(idx, want, sizeof want) == 0);
    CHECK_EQ_I64(d.count, 5);
    pk_dict_builder_release(&d);
    /* Doubles: -0.0 vs 0.0, a NaN twice. */
    CHECK(pk_dict_builder_init(&d, PLANK_DOUBLE, 8, NULL, &err) == PLANK_OK);
    double dv[5] = {0.0, -0.0, NAN, NAN, 0.0};
    pk_values vd = {.type = PLANK_DOUBLE, .width = 8, .n = 5, .fixed = (const uint8_t *)dv};
    CHECK(pk_dict_builder_put(&d, &vd, idx, &err) == PLANK_OK);
    CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 2 && idx[3] == 2 && idx[4] == 0);
    pk_dict_builder_release(&d);
}

/* Puts v (in chunks) and checks indices against a naive first-seen
 * numbering, then the PLAIN page through pk_dict_decode and the index
 * section through the RLE_DICTIONARY decoder. */
static void dict_check(pk_dict_builder *d, const pk_values *v) {
    plank_error err;
    size_t n = (size_t)v->n;
    uint32_t *idx = malloc((n + 1) * sizeof *idx);
    size_t half = n / 2;
    pk_values a = *v, b = *v;
    a.n = (int64_t)half;
    b.n = (int64_t)(n - half);
    if (v->type == PLANK_BYTE_ARRAY) b.offsets = v->offsets + half;
    else b.fixed = v->fixed + half * (size_t)v->width;
    CHECK(pk_dict_builder_put(d, &a, idx, &err) == PLANK_OK);
    CHECK(pk_dict_builder_put(d, &b, idx + half, &err) == PLANK_OK);
    pk_values e;
    pk_dict_builder_entries(d, &e);
    /* First-seen order: each new index is one more than the largest so far,
     * and each value equals its entry. */
    int64_t next = 0;
    bool ok = true;
    size_t plain = 0;
    for (size_t i = 0; i < n && ok; i++) {
        ok = idx[i] <= (uint64_t)next;
        if (idx[i] == (uint64_t)next) {
            next++;
            plain += v->type == PLANK_BYTE_ARRAY
                         ? 4 + (size_t)(v->offsets[i + 1] - v->offsets[i]) : (size_t)v->width;
        }
        if (v->type == PLANK_BYTE_ARRAY) {
            int64_t len = v->offsets[i + 1] - v->offsets[i];
            ok = ok && e.offsets[idx[i] + 1] - e.offsets[idx[i]] == len &&
                 (len == 0 ||
                  memcmp(e.data + e.offsets[idx[i]], v->data + v->offsets[i], (size_t)len) == 0);
        } else {
            size_t w = (size_t)v->width;
            ok = ok && memcmp(e.fixed + idx[i] * w, v->fixed + i * w, w) == 0;
        }
    }
    CHECK_MSG(ok, "dictionary of %s, n %zu", plank_physical_type_name(v->type), n);
    CHECK_EQ_I64(d->count, next);
    CHECK_EQ_I64(d->plain_bytes, plain);
    /* Distinct entries: a second put of the entries maps them to 0..count-1. */
    uint32_t *idx2 = malloc((size_t)(d->count + 1) * sizeof *idx2);
    CHECK(pk_dict_builder_put(d, &e, idx2, &err) == PLANK_OK);
    for (int64_t i = 0; i < d->count; i++) ok = ok && idx2[i] == (uint32_t)i;
    CHECK(ok);
    free(idx2);

    pk_buffer page, ind;
    pk_buffer_init(&page, NULL);
    pk_buffer_init(&ind, NULL);
    CHECK(pk_dict_builder_encode(d, &page, &err) == PLANK_OK);
    CHECK_EQ_I64(page.size, d->plain_bytes);
    CHECK(pk_encode_dict_indices(idx, n, d->count, NULL, &ind, &err) == PLANK_OK);
    pk_dict dict;
    memset(&dict, 0, sizeof dict);
    pk_buffer_init(&dict.storage, NULL);
    pk_buffer_init(&dict.storage2, NULL);
    CHECK(pk_dict_decode(&dict, v->type, v->width, page.data, page.size, d->count, NULL, &err) ==
          PLANK_OK);
    pk_decoder dec;
    CHECK(pk_decoder_init(&dec, PLANK_ENC_RLE_DICTIONARY, v->type, v->width, ind.data, ind.size,
                          (int64_t)n, &dict, NULL, &err) == PLANK_OK);
    if (v->type == PLANK_BYTE_ARRAY) {
        pk_buffer data;
        pk_buffer_init(&data, NULL);
        int64_t *ends = malloc((n + 1) * sizeof *ends);
        CHECK(pk_decoder_get_binary(&dec, (int64_t)n, &data, ends, &err) == PLANK_OK);
        size_t total = (size_t)(v->offsets[n] - v->offsets[0]);
        CHECK(data.size == total &&
              (total == 0 || memcmp(data.data, v->data + v->offsets[0], total) == 0));
        free(ends);
        pk_buffer_reset(&data);
    } else {
        size_t bytes = n * (size_t)v->width;
        uint8_t *out = malloc(bytes + 1);
        CHECK(pk_decoder_get_fixed(&dec, (int64_t)n, out, &err) == PLANK_OK);
        CHECK(bytes == 0 || memcmp(out, v->fixed, bytes) == 0);
        free(out);
    }
    pk_decoder_release(&dec);
    pk_dict_release(&dict);
    pk_buffer_reset(&page);
    pk_buffer_reset(&ind);
    free(idx);
}

static void test_dict_roundtrip(void) {
    const pk_kernels *sets[PK_SIMD_AVX512 + 1];
    int nsets = pk_kernels_available(sets);
    ref_rng r = {99};
    plank_error err;
    const size_t sizes[] = {0, 1, 2, 100, 5000, 200000};
    const int32_t widths[] = {4, 8, 12, 1, 2, 3, 16};
    const plank_physical_type types[] = {PLANK_INT32, PLANK_INT64, PLANK_INT96,
                                         PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY,
                                         PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY};
    uint8_t *buf = malloc(200000 * 16);
    for (size_t t = 0; t < 7; t++) {
        for (size_t si = 0; si < 6; si++) {
            size_t n = sizes[si], w = (size_t)widths[t];
            uint64_t pool = 1 + ref_below(&r, n / 3 + 2);
            for (size_t i = 0; i < n; i++) {
                uint64_t k = ref_below(&r, pool) * UINT64_C(0x9E3779B97F4A7C15);
                for (size_t b = 0; b < w; b++) buf[i * w + b] = (uint8_t)(k >> (8 * (b % 8)) ^ b);
            }
            /* through the hash kernels of every level this machine has */
            for (int ks = 0; ks < nsets; ks++) {
                pk_dict_builder d;
                CHECK(pk_dict_builder_init(&d, types[t], widths[t], NULL, &err) == PLANK_OK);
                d.kernels = sets[ks];
                pk_values v = {.type = types[t], .width = widths[t], .n = (int64_t)n, .fixed = buf};
                dict_check(&d, &v);
                pk_dict_builder_release(&d);
            }
        }
    }
    free(buf);
    strings s = {0};
    for (int pat = 0; pat < 4; pat++) {
        fill_strings(&s, pat == 2 ? 300 : 20000, pat, &r);
        /* unpadded (words copied) and padded (the hash_short kernel) input */
        for (int ks = 0; ks < 2 * nsets; ks++) {
            pk_dict_builder d;
            CHECK(pk_dict_builder_init(&d, PLANK_BYTE_ARRAY, 0, NULL, &err) == PLANK_OK);
            d.kernels = sets[ks / 2];
            pk_values v = {.type = PLANK_BYTE_ARRAY, .n = pat == 2 ? 300 : 20000, .offsets = s.off,
                           .data = pat == 1 ? NULL : s.data, .padded = ks % 2 == 1};
            dict_check(&d, &v);
            /* clear() then the same again: same indices and entries. */
            pk_dict_builder_clear(&d);
            CHECK_EQ_I64(d.count, 0);
            dict_check(&d, &v);
            pk_dict_builder_release(&d);
        }
    }
    free(s.off);
    free(s.data);
}

/* INT32/INT64 values in a small range take the builder's dense table: ranges
 * that grow down and up between puts, negative values, the ends of the
 * int64 range, and then a value far away that moves every entry to the hash
 * table; clear() starts dense again. dict_check compares every index with a
 * first-seen numbering and decodes the pages. */
static void test_dict_dense(void) {
    plank_error err;
    ref_rng r = {7};
    const size_t n = 6000;
    int64_t *v64 = malloc(n * sizeof *v64);
    int32_t *v32 = malloc(n * sizeof *v32);
    /* bases: ordinary, negative, the bottom and the top of int64 */
    const int64_t bases[] = {1000, -30000, INT64_MIN, INT64_MAX - 4000};
    for (size_t b = 0; b < 4; b++) {
        for (int type = 0; type < 2; type++) {
            if (type == 0 && b >= 2) continue; /* int32 covers the first two */
            /* thirds: [base, base+100), then a wider range below and above,
             * then (last third) values up to 2^20 away: hash mode */
            for (size_t i = 0; i < n; i++) {
                uint64_t span = i < n / 3 ? 100 : i < 2 * n / 3 ? 4000 : (uint64_t)1 << 20;
                uint64_t off = ref_below(&r, span);
                int64_t x = b == 3 ? (int64_t)((uint64_t)bases[b] + 4000 - off)
                                   : (int64_t)((uint64_t)bases[b] + off);
                if (i >= n / 3 && i < 2 * n / 3 && b < 2 && (i & 1)) x -= 2000; /* below base */
                v64[i] = x;
                v32[i] = (int32_t)x;
            }
            pk_dict_builder d;
            plank_physical_type t = type ? PLANK_INT64 : PLANK_INT32;
            int32_t w = type ? 8 : 4;
            CHECK(pk_dict_builder_init(&d, t, w, NULL, &err) == PLANK_OK);
            /* in three puts so the range grows between them */
            for (int pass = 0; pass < 2; pass++) {
                uint32_t *idx = malloc(n * sizeof *idx);
                for (size_t part = 0; part < 3; part++) {
                    size_t a = part * n / 3, e = (part + 1) * n / 3;
                    pk_values v = {.type = t, .width = w, .n = (int64_t)(e - a),
                                   .fixed = type ? (const uint8_t *)(v64 + a)
                                                 : (const uint8_t *)(v32 + a)};
                    CHECK(pk_dict_builder_put(&d, &v, idx + a, &err) == PLANK_OK);
                    if (part == 0) CHECK(d.dense != NULL && !d.hashed);
                    if (part == 2) CHECK(d.hashed && d.dense == NULL);
                }
                /* the same through dict_check (indices continue: same values) */
                pk_values all = {.type = t, .width = w, .n = (int64_t)n,
                                 .fixed = type ? (const uint8_t *)v64 : (const uint8_t *)v32};
                uint32_t *again = malloc(n * sizeof *again);
                CHECK(pk_dict_builder_put(&d, &all, again, &err) == PLANK_OK);
                CHECK(memcmp(idx, again, n * sizeof *idx) == 0);
                free(again);
                free(idx);
                pk_dict_builder_clear(&d);
                CHECK(d.count == 0 && d.dense == NULL);
                dict_check(&d, &all);
                pk_dict_builder_clear(&d);
            }
            pk_dict_builder_release(&d);
        }
    }
    free(v64);
    free(v32);
}

/* Short byte strings (0..20 bytes, every length around the 4/8/16-byte
 * word boundaries) from a small pool, from a padded buffer (whole-word
 * loads) and from an unpadded one (the same values must get the same
 * indices either way), and pk_delta_size_bound against the encoder. */
static void test_dict_padded_strings(void) {
    plank_error err;
    ref_rng r = {11};
    enum { POOL = 60, N = 20000 };
    uint8_t pool[POOL][24];
    size_t plen[POOL];
    for (size_t k = 0; k < POOL; k++) {
        plen[k] = k < 21 ? k : ref_below(&r, 21);
        for (size_t j = 0; j < plen[k]; j++) pool[k][j] = (uint8_t)(ref_below(&r, 3) ? 'a' : ref_next(&r));
    }
    int64_t *off = malloc((N + 1) * sizeof *off);
    pk_buffer data;
    pk_buffer_init(&data, NULL);
    off[0] = 0;
    for (size_t i = 0; i < N; i++) {
        size_t k = ref_below(&r, POOL);
        CHECK(pk_buffer_append(&data, pool[k], plen[k], &err) == PLANK_OK);
        off[i + 1] = (int64_t)data.size;
    }
    /* an exact-size copy: reading past a value's end would leave it */
    uint8_t *tight = malloc(data.size ? data.size : 1);
    memcpy(tight, data.data, data.size);
    pk_values padded = {.type = PLANK_BYTE_ARRAY, .n = N, .offsets = off, .data = data.data,
                        .padded = true};
    pk_values plain = padded;
    plain.data = tight;
    plain.padded = false;
    pk_dict_builder d;
    CHECK(pk_dict_builder_init(&d, PLANK_BYTE_ARRAY, 0, NULL, &err) == PLANK_OK);
    dict_check(&d, &padded);
    uint32_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    CHECK(pk_dict_builder_put(&d, &padded, a, &err) == PLANK_OK);
    CHECK(pk_dict_builder_put(&d, &plain, b, &err) == PLANK_OK);
    CHECK(memcmp(a, b, N * sizeof *a) == 0);
    pk_dict_builder_clear(&d);
    dict_check(&d, &plain);
    CHECK(pk_dict_builder_put(&d, &padded, b, &err) == PLANK_OK);
    CHECK(memcmp(a, b, N * sizeof *a) == 0); /* same first-seen order, same indices */
    pk_dict_builder_release(&d);
    free(a);
    free(b);
    free(tight);
    free(off);
    pk_buffer_reset(&data);

    /* pk_delta_size_bound >= what DELTA_BINARY_PACKED writes */
    const size_t sizes[] = {0, 1, 2, 33, 129, 1000, 5000};
    int64_t *x = malloc(5000 * sizeof *x);
    int32_t *y = malloc(5000 * sizeof *y);
    for (int shape = 0; shape < 4; shape++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            for (size_t i = 0; i < n; i++) {
                uint64_t u = ref_next(&r);
                x[i] = shape == 0 ? (int64_t)(i * 3)                 /* sorted */
                       : shape == 1 ? (int64_t)(u % 1000)            /* small */
                       : shape == 2 ? (int64_t)u                     /* full range */
                                    : (i & 1 ? INT64_MIN : INT64_MAX); /* wrapping */
                y[i] = (int32_t)x[i];
            }
            for (int t = 0; t < 2; t++) {
                pk_values v = {.type = t ? PLANK_INT64 : PLANK_INT32, .width = t ? 8 : 4,
                               .n = (int64_t)n,
                               .fixed = t ? (const uint8_t *)x : (const uint8_t *)y};
                pk_buffer out;
                pk_buffer_init(&out, NULL);
                CHECK(pk_encode_values(PLANK_ENC_DELTA_BINARY_PACKED, &v, &out, NULL, &err) ==
                      PLANK_OK);
                CHECK_MSG(pk_delta_size_bound(&v) >= out.size,
                          "delta bound %zu < %zu (shape %d, n %zu, %s)", pk_delta_size_bound(&v),
                          out.size, shape, n, t ? "int64" : "int32");
                pk_buffer_reset(&out);
            }
        }
    }
    free(x);
    free(y);
}

/* What was inserted before an OOM is still there and findable: a put of the
 * entries (allocations allowed again, none needed) maps them to themselves. */
static void check_after_oom(pk_dict_builder *d, th_alloc *ta) {
    plank_error err;
    pk_values e;
    pk_dict_builder_entries(d, &e);
    ta->fail_at = 0;
    uint32_t *i2 = malloc((size_t)(d->count + 1) * sizeof *i2);
    CHECK(pk_dict_builder_put(d, &e, i2, &err) == PLANK_OK);
    bool ok = true;
    for (int64_t i = 0; i < d->count; i++) ok = ok && i2[i] == (uint32_t)i;
    CHECK(ok);
    free(i2);
}

/* Every allocation failure of the builder: OOM (or success), the entries so
 * far stay consistent, and nothing leaks. */
static void test_dict_oom(void) {
    strings s = {0};
    pk_values v = make_strings(&s, 3000, 0, 5);
    uint32_t *idx = malloc(3000 * sizeof *idx);
    bool succeeded = false;
    for (int64_t fail = 1; fail < 200 && !succeeded; fail++) {
        th_alloc ta;
        plank_allocator a = failing_alloc(&ta, fail);
        plank_error err;
        pk_dict_builder d;
        plank_status st = pk_dict_builder_init(&d, PLANK_BYTE_ARRAY, 0, &a, &err);
        if (st == PLANK_OK) st = pk_dict_builder_put(&d, &v, idx, &err);
        pk_buffer page;
        pk_buffer_init(&page, &a);
        if (st == PLANK_OK) st = pk_dict_builder_encode(&d, &page, &err);
        if (st == PLANK_OK) {
            succeeded = true;
        } else {
            CHECK_EQ_I64(st, PLANK_ERR_OUT_OF_MEMORY);
            check_after_oom(&d, &ta);
        }
        pk_buffer_reset(&page);
        pk_dict_builder_release(&d);
        CHECK_EQ_I64(ta.live_blocks, 0);
        CHECK_EQ_I64(ta.live_bytes, 0);
    }
    CHECK(succeeded);
    free(idx);
    free(s.off);
    free(s.data);

    /* INT64 through the dense table (and its growth) and then the hash
     * table: each allocation failing in turn. */
    int64_t vals[3000];
    for (int i = 0; i < 3000; i++)
        vals[i] = i < 1000 ? i % 97 : i < 2000 ? -(int64_t)(i % 3000) : (int64_t)i << 20;
    succeeded = false;
    for (int64_t fail = 1; fail < 200 && !succeeded; fail++) {
        th_alloc ta;
        plank_allocator a = failing_alloc(&ta, fail);
        plank_error err;
        pk_dict_builder d;
        uint32_t ix[3000];
        plank_status st = pk_dict_builder_init(&d, PLANK_INT64, 8, &a, &err);
        for (int part = 0; part < 3 && st == PLANK_OK; part++) {
            pk_values pv = {.type = PLANK_INT64, .width = 8, .n = 1000,
                            .fixed = (const uint8_t *)(vals + part * 1000)};
            st = pk_dict_builder_put(&d, &pv, ix + part * 1000, &err);
        }
        if (st == PLANK_OK) {
            succeeded = true;
        } else {
            CHECK_EQ_I64(st, PLANK_ERR_OUT_OF_MEMORY);
            check_after_oom(&d, &ta);
        }
        pk_dict_builder_release(&d);
        CHECK_EQ_I64(ta.live_blocks, 0);
        CHECK_EQ_I64(ta.live_bytes, 0);
    }
    CHECK(succeeded);
}

int main(void) {
    init_lengths();
    g_nsets = simd_sets(g_sets);
    test_rle_bytes();
    test_rle_roundtrip();
    test_values_bytes();
    test_values_errors();
    test_values_roundtrip();
    test_binary_roundtrip();
    test_values_oom();
    test_dict_basic();
    test_dict_floats();
    test_dict_roundtrip();
    test_dict_dense();
    test_dict_padded_strings();
    test_dict_oom();
    TEST_END();
}
