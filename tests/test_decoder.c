/* test_decoder.c: the page value decoder (pk_decoder_*) and dictionary pages
 * for every encoding and physical type, against pages built by the reference
 * encoders of enc_ref.h and hand-computed bytes from Encodings.md. Each page
 * is decoded all at once, in odd chunks mixed with skips, skip-then-get, and
 * truncated at every length (error or right answer, never a crash). */
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"
#include "enc_ref.h"
#include "tharness.h"

static uint8_t *exact_copy(const uint8_t *buf, size_t len) {
    uint8_t *p = malloc(len ? len : 1);
    if (len) memcpy(p, buf, len);
    return p;
}

/* The values a page must decode to. */
typedef struct {
    int64_t n;
    int32_t w;            /* fixed width; 0 for BYTE_ARRAY */
    const uint8_t *fixed; /* n * w bytes */
    const uint8_t *data;  /* BYTE_ARRAY: concatenated values */
    const int64_t *ends;  /* BYTE_ARRAY: end offsets */
} expect;

static int64_t exp_start(const expect *e, int64_t i) { return i ? e->ends[i - 1] : 0; }

/* Decodes k values at position `at` and compares. */
static bool get_and_compare(pk_decoder *d, const expect *e, int64_t at, int64_t k,
                            plank_error *err) {
    if (e->w > 0) {
        uint8_t *out = malloc((size_t)(k * e->w) + 1);
        bool ok = pk_decoder_get_fixed(d, k, out, err) == PLANK_OK &&
                  (k == 0 || memcmp(out, e->fixed + at * e->w, (size_t)(k * e->w)) == 0);
        free(out);
        return ok;
    }
    pk_buffer data;
    pk_buffer_init(&data, NULL);
    pk_buffer_append(&data, "xy", 2, err); /* values are appended after existing bytes */
    int64_t *ends = malloc(sizeof(int64_t) * (size_t)(k + 1));
    bool ok = pk_decoder_get_binary(d, k, &data, ends, err) == PLANK_OK;
    int64_t prev = 2;
    for (int64_t i = 0; ok && i < k; i++) {
        int64_t len = e->ends[at + i] - exp_start(e, at + i);
        ok = ends[i] - prev == len &&
             (len == 0 || memcmp(data.data + prev, e->data + exp_start(e, at + i), (size_t)len) == 0);
        prev = ends[i];
    }
    free(ends);
    pk_buffer_reset(&data);
    return ok;
}

static int g_pages;

static void verify_page(plank_encoding enc, plank_physical_type type, int32_t tl,
                        const uint8_t *page, size_t len, const pk_dict *dict, const expect *e,
                        bool try_truncations, ref_rng *r) {
    plank_error err;
    plank_error_init(&err);
    pk_decoder d;
    uint8_t *buf = exact_copy(page, len);
    g_pages++;

    /* All at once; then one more is an error. */
    plank_status st = pk_decoder_init(&d, enc, type, tl, buf, len, e->n, dict, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "init %s %s n %lld: %s", plank_encoding_name(enc),
              plank_physical_type_name(type), (long long)e->n, err.message);
    if (st != PLANK_OK) {
        free(buf);
        return;
    }
    CHECK_MSG(get_and_compare(&d, e, 0, e->n, &err), "all %s %s n %lld: %s",
              plank_encoding_name(enc), plank_physical_type_name(type), (long long)e->n,
              err.message);
    CHECK(pk_decoder_skip(&d, 1, &err) == PLANK_ERR_CORRUPT);
    pk_decoder_release(&d);

    /* Chunks of 1, 3, 17 alternating with skips of 0..5. */
    CHECK(pk_decoder_init(&d, enc, type, tl, buf, len, e->n, dict, NULL, &err) == PLANK_OK);
    static const int64_t chunks[] = {1, 3, 17};
    int64_t pos = 0;
    bool ok = true;
    for (int ci = 0; pos < e->n; ci++) {
        int64_t k = chunks[ci % 3];
        if (k > e->n - pos) k = e->n - pos;
        ok &= get_and_compare(&d, e, pos, k, &err);
        pos += k;
        int64_t s = (int64_t)ref_below(r, 6);
        if (s > e->n - pos) s = e->n - pos;
        ok &= pk_decoder_skip(&d, s, &err) == PLANK_OK;
        pos += s;
    }
    CHECK_MSG(ok, "chunks %s %s n %lld: %s", plank_encoding_name(enc),
              plank_physical_type_name(type), (long long)e->n, err.message);
    pk_decoder_release(&d);

    /* Skip then get equals the tail of get-all. */
    int64_t s = (int64_t)ref_below(r, (uint64_t)e->n + 1);
    CHECK(pk_decoder_init(&d, enc, type, tl, buf, len, e->n, dict, NULL, &err) == PLANK_OK);
    CHECK(pk_decoder_skip(&d, s, &err) == PLANK_OK);
    CHECK_MSG(get_and_compare(&d, e, s, e->n - s, &err), "skip %lld %s %s n %lld", (long long)s,
              plank_encoding_name(enc), plank_physical_type_name(type), (long long)e->n);
    pk_decoder_release(&d);
    free(buf);

    if (!try_truncations) return;
    for (size_t L = 0; L < len; L++) {
        uint8_t *tb = exact_copy(page, L);
        st = pk_decoder_init(&d, enc, type, tl, tb, L, e->n, dict, NULL, &err);
        if (st == PLANK_OK) {
            bool good = get_and_compare(&d, e, 0, e->n, &err);
            CHECK_MSG(good || err.code == PLANK_ERR_CORRUPT, "truncated %zu/%zu %s: %s", L, len,
                      plank_encoding_name(enc), err.message);
            pk_decoder_release(&d);
        } else {
            CHECK_MSG(st == PLANK_ERR_CORRUPT, "truncated %zu/%zu %s: status %d", L, len,
                      plank_encoding_name(enc), (int)st);
        }
        free(tb);
    }
}

/* ---- Random data ------------------------------------------------------------- */

/* Bytes per value, indexed by physical type (FIXED_LEN_BYTE_ARRAY: tl). */
static int32_t width_of(plank_physical_type t, int32_t tl) {
    static const int32_t widths[8] = {1, 4, 8, 12, 4, 8, 0, 0};
    return t == PLANK_FIXED_LEN_BYTE_ARRAY ? tl : widths[t];
}

/* Random strings from a small alphabet, sorted-ish so neighbours share
 * prefixes (exercises DELTA_BYTE_ARRAY); fixed length if flen > 0. */
typedef struct {
    size_t n;
    char **s;
    size_t *len;
    uint8_t *data;
    int64_t *ends;
} strings;

static void make_strings(strings *S, size_t n, int flen, ref_rng *r) {
    S->n = n;
    S->s = malloc(sizeof(char *) * (n + 1));
    S->len = malloc(sizeof(size_t) * (n + 1));
    S->ends = malloc(sizeof(int64_t) * (n + 1));
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = flen > 0 ? (size_t)flen : (size_t)ref_below(r, 24);
        S->s[i] = malloc(l + 1);
        for (size_t j = 0; j < l; j++) {
            bool copy = i > 0 && j < S->len[i - 1] && ref_below(r, 5) != 0 &&
                        (j == 0 || S->s[i][j - 1] == S->s[i - 1][j - 1]);
            S->s[i][j] = copy ? S->s[i - 1][j] : (char)('a' + ref_below(r, 4));
        }
        S->len[i] = l;
        total += l;
        S->ends[i] = (int64_t)total;
    }
    S->data = malloc(total + 1);
    for (size_t i = 0, p = 0; i < n; p += S->len[i], i++) memcpy(S->data + p, S->s[i], S->len[i]);
}

static void free_strings(strings *S) {
    for (size_t i = 0; i < S->n; i++) free(S->s[i]);
    free(S->s);
    free(S->len);
    free(S->ends);
    free(S->data);
}

static const size_t k_lengths[] = {0, 1, 7, 8, 9, 127, 128, 129, 1000};
#define NLEN (sizeof k_lengths / sizeof k_lengths[0])

/* PLAIN encoding of random values of a type (strings for byte arrays). */
static void plain_encode(ref_out *o, plank_physical_type t, int32_t w, const uint8_t *fixed,
                         const strings *S, size_t n) {
    if (t == PLANK_BOOLEAN) {
        ref_bits_begin(o);
        for (size_t i = 0; i < n; i++) ref_bits_lsb(o, fixed[i], 1);
    } else if (t == PLANK_BYTE_ARRAY) {
        for (size_t i = 0; i < n; i++) {
            ref_u32le(o, (uint32_t)S->len[i]);
            ref_bytes(o, S->s[i], S->len[i]);
        }
    } else {
        ref_bytes(o, fixed, n * (size_t)w);
    }
}

static void random_fixed(uint8_t *v, plank_physical_type t, int32_t w, size_t n, ref_rng *r) {
    for (size_t i = 0; i < n * (size_t)w; i++)
        v[i] = t == PLANK_BOOLEAN ? (uint8_t)(ref_below(r, 3) == 0) : (uint8_t)ref_next(r);
}

static const plank_physical_type k_types[] = {PLANK_BOOLEAN, PLANK_INT32, PLANK_INT64,
                                              PLANK_INT96,   PLANK_FLOAT, PLANK_DOUBLE,
                                              PLANK_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY};

static void test_plain(void) {
    ref_rng r = {1};
    for (size_t ti = 0; ti < 8; ti++) {
        plank_physical_type t = k_types[ti];
        int32_t w = width_of(t, 5);
        for (size_t li = 0; li < NLEN; li++) {
            size_t n = k_lengths[li];
            uint8_t *v = malloc(n * 12 + 1);
            strings S;
            make_strings(&S, t == PLANK_BYTE_ARRAY ? n : 0, 0, &r);
            random_fixed(v, t, w, t == PLANK_BYTE_ARRAY ? 0 : n, &r);
            ref_out o = {0};
            plain_encode(&o, t, w, v, &S, n);
            expect e = {(int64_t)n, w, v, S.data, S.ends};
            verify_page(PLANK_ENC_PLAIN, t, 5, o.data, o.size, NULL, &e, n <= 9, &r);
            free(o.data);
            free(v);
            free_strings(&S);
        }
    }
}

/* Byte arrays whose lengths cross the widths the PLAIN and dictionary
 * copies move values by (16, 32, 64 bytes, and longer ones by memcpy): a
 * page's lengths change class every `phase` values, so a read that chose its
 * width from the previous read meets longer values, and the page ends inside
 * a move's width. Read whole, in chunks, with skips, kept by a random bitmap,
 * and through a dictionary of the same values; each against the values the
 * test encoded. */
static void test_byte_widths(void) {
    ref_rng r = {91};
    static const size_t maxes[] = {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200};
    static const size_t counts[] = {1, 2, 63, 300, 2000};
    for (size_t mi = 0; mi <= sizeof maxes / sizeof maxes[0]; mi++) {
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            size_t n = counts[ci];
            strings S;
            S.n = n;
            S.s = malloc(sizeof(char *) * (n + 1));
            S.len = malloc(sizeof(size_t) * (n + 1));
            S.ends = malloc(sizeof(int64_t) * (n + 1));
            size_t total = 0;
            for (size_t i = 0; i < n; i++) {
                /* the last profile: the class changes every 37 values */
                size_t mx = mi < sizeof maxes / sizeof maxes[0]
                                ? maxes[mi]
                                : maxes[(i / 37 * 5 + 3) % (sizeof maxes / sizeof maxes[0])];
                size_t l = (size_t)ref_below(&r, mx + 1);
                S.s[i] = malloc(l + 1);
                for (size_t j = 0; j < l; j++) S.s[i][j] = (char)(' ' + ref_below(&r, 90));
                S.len[i] = l;
                total += l;
                S.ends[i] = (int64_t)total;
            }
            S.data = malloc(total + 1);
            for (size_t i = 0, q = 0; i < n; q += S.len[i], i++)
                memcpy(S.data + q, S.s[i], S.len[i]);
            ref_out o = {0};
            plain_encode(&o, PLANK_BYTE_ARRAY, 0, NULL, &S, n);
            expect e = {(int64_t)n, 0, NULL, S.data, S.ends};
            verify_page(PLANK_ENC_PLAIN, PLANK_BYTE_ARRAY, 0, o.data, o.size, NULL, &e, n <= 2,
                        &r);

            /* Kept by a random bitmap, in reads of 1..300 values. */
            plank_error err;
            pk_decoder d;
            uint8_t *keep = calloc(n / 8 + 8, 1);
            for (size_t i = 0; i < n; i++)
                if (ref_below(&r, 3)) keep[i / 8] |= (uint8_t)(1u << (i % 8));
            CHECK(pk_decoder_init(&d, PLANK_ENC_PLAIN, PLANK_BYTE_ARRAY, 0, o.data, o.size,
                                  (int64_t)n, NULL, NULL, &err) == PLANK_OK);
            pk_buffer data;
            pk_buffer_init(&data, NULL);
            int64_t *ends = malloc(sizeof(int64_t) * (n + 1));
            bool ok = true;
            for (size_t at = 0; at < n && ok;) {
                /* whole keep bytes per read */
                size_t k = 8 * (1 + (size_t)ref_below(&r, 40));
                if (k > n - at) k = n - at;
                data.size = 0;
                int64_t kept = 0;
                ok = pk_decoder_get_binary_keep(&d, (int64_t)k, keep + at / 8, &data, ends, &kept,
                                                &err) == PLANK_OK;
                int64_t c = 0, prev = 0;
                for (size_t i = at; ok && i < at + k; i++) {
                    if (!(keep[i / 8] >> (i % 8) & 1)) continue;
                    ok = c < kept && ends[c] - prev == (int64_t)S.len[i] &&
                         memcmp(data.data + prev, S.s[i], S.len[i]) == 0;
                    prev = ends[c++];
                }
                ok = ok && c == kept;
                at += k;
            }
            CHECK_MSG(ok, "kept PLAIN byte arrays, profile %zu, n %zu: %s", mi, n, err.message);
            pk_decoder_release(&d);

            /* The same values as a dictionary, read through indices. */
            pk_dict dict;
            CHECK(pk_dict_decode(&dict, PLANK_BYTE_ARRAY, 0, o.data, o.size, (int64_t)n, NULL,
                                 &err) == PLANK_OK);
            for (size_t i = 0; i < n; i++)
                CHECK(dict.offsets[i + 1] - dict.offsets[i] == (int64_t)S.len[i] &&
                      memcmp(dict.data + dict.offsets[i], S.s[i], S.len[i]) == 0);
            size_t m = n * 3;
            uint32_t *idx = malloc(sizeof(uint32_t) * m);
            for (size_t i = 0; i < m; i++) idx[i] = (uint32_t)ref_below(&r, n);
            int bw = pk_bit_width_for(n - 1);
            ref_out io = {0};
            ref_byte(&io, (uint8_t)bw);
            ref_hybrid(&io, idx, m, bw, &r);
            strings X = {0};
            X.ends = malloc(sizeof(int64_t) * (m + 1));
            X.data = malloc(m * 200 + 1);
            size_t xt = 0;
            for (size_t i = 0; i < m; i++) {
                memcpy(X.data + xt, S.s[idx[i]], S.len[idx[i]]);
                xt += S.len[idx[i]];
                X.ends[i] = (int64_t)xt;
            }
            expect xe = {(int64_t)m, 0, NULL, X.data, X.ends};
            verify_page(PLANK_ENC_RLE_DICTIONARY, PLANK_BYTE_ARRAY, 0, io.data, io.size, &dict,
                        &xe, false, &r);
            free(X.ends);
            free(X.data);
            free(io.data);
            free(idx);
            pk_dict_release(&dict);
            pk_buffer_reset(&data);
            free(ends);
            free(keep);
            free(o.data);
            free_strings(&S);
        }
    }
}

static void test_dictionary(void) {
    ref_rng r = {2};
    static const size_t dict_sizes[] = {1, 2, 3, 200, 70000};
    for (size_t ti = 0; ti < 8; ti++) {
        plank_physical_type t = k_types[ti];
        int32_t w = width_of(t, 3);
        for (size_t di = 0; di < 5; di++) {
            size_t m = dict_sizes[di];
            if (t == PLANK_BOOLEAN && m > 2) continue;
            if (m > 200 && t != PLANK_INT32) continue;
            uint8_t *dv = malloc(m * 12 + 1);
            strings DS;
            make_strings(&DS, t == PLANK_BYTE_ARRAY ? m : 0, 0, &r);
            if (t == PLANK_BOOLEAN) {
                for (size_t i = 0; i < m; i++) dv[i] = (uint8_t)(i & 1);
            } else {
                random_fixed(dv, t, w, t == PLANK_BYTE_ARRAY ? 0 : m, &r);
            }
            ref_out dp = {0};
            plain_encode(&dp, t, w, dv, &DS, m);
            pk_dict dict;
            plank_error err;
            CHECK(pk_dict_decode(&dict, t, 3, dp.data, dp.size, (int64_t)m, NULL, &err) == PLANK_OK);
            CHECK_EQ_I64(dict.count, m);
            /* Fewer bytes than the count needs. */
            pk_dict bad;
            /* A failed decode frees what it allocated (LeakSanitizer checks). */
            CHECK(pk_dict_decode(&bad, t, 3, dp.data, dp.size - 1, (int64_t)m, NULL, &err) ==
                  PLANK_ERR_CORRUPT);

            for (size_t li = 0; li < NLEN; li++) {
                size_t n = k_lengths[li];
                uint32_t *idx = malloc(sizeof(uint32_t) * (n + 1));
                int bw = pk_bit_width_for(m - 1);
                ref_fill_runs(idx, n, bw, &r);
                for (size_t i = 0; i < n; i++) idx[i] %= (uint32_t)m;
                ref_out o = {0};
                ref_byte(&o, (uint8_t)bw);
                ref_hybrid(&o, idx, n, bw, &r);
                /* Expected: gather from the reference dictionary values. */
                uint8_t *v = malloc(n * 12 + 1);
                strings S = {0};
                S.ends = malloc(sizeof(int64_t) * (n + 1));
                S.data = malloc((n + 1) * 24);
                size_t total = 0;
                for (size_t i = 0; i < n; i++) {
                    if (t == PLANK_BYTE_ARRAY) {
                        memcpy(S.data + total, DS.s[idx[i]], DS.len[idx[i]]);
                        total += DS.len[idx[i]];
                        S.ends[i] = (int64_t)total;
                    } else {
                        memcpy(v + i * (size_t)w, dv + idx[i] * (size_t)w, (size_t)w);
                    }
                }
                expect e = {(int64_t)n, w, v, S.data, S.ends};
                plank_encoding enc = (li & 1) ? PLANK_ENC_RLE_DICTIONARY : PLANK_ENC_PLAIN_DICTIONARY;
                verify_page(enc, t, 3, o.data, o.size, &dict, &e, n <= 9 && m < 300, &r);
                free(S.ends);
                free(S.data);
                free(v);
                free(o.data);
                free(idx);
            }
            pk_dict_release(&dict);
            free(dp.data);
            free(dv);
            free_strings(&DS);
        }
    }
}

/* pk_decoder_get_fixed_live on dictionary pages of INT32 and INT64: the
 * live slots hold the dictionary's values, the others zeros, over live
 * bitmaps of several densities at bit offsets 0..69, read in pieces; an
 * out-of-range index fails only in a live slot. */
static void test_dictionary_live(void) {
    ref_rng r = {77};
    static const size_t dict_sizes[] = {1, 3, 200, 70000};
    static const size_t lens[] = {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 1500};
    plank_error err;
    for (int wide = 0; wide < 2; wide++) {
        plank_physical_type t = wide ? PLANK_INT64 : PLANK_INT32;
        size_t w = wide ? 8 : 4;
        for (size_t di = 0; di < 4; di++) {
            size_t m = dict_sizes[di];
            uint8_t *dv = malloc(m * w + 1);
            random_fixed(dv, t, (int32_t)w, m, &r);
            ref_out dp = {0};
            plain_encode(&dp, t, (int32_t)w, dv, NULL, m);
            pk_dict dict;
            CHECK(pk_dict_decode(&dict, t, 0, dp.data, dp.size, (int64_t)m, NULL, &err) == PLANK_OK);
            int bw = pk_bit_width_for(m - 1);
            for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
                size_t n = lens[li];
                uint32_t *idx = malloc(4 * (n + 1));
                ref_fill_runs(idx, n, bw, &r);
                for (size_t i = 0; i < n; i++) idx[i] %= (uint32_t)m;
                ref_out o = {0};
                ref_byte(&o, (uint8_t)bw);
                ref_hybrid(&o, idx, n, bw, &r);
                size_t off = (size_t)ref_below(&r, 70), nb = (off + n + 7) / 8 + 8;
                uint8_t *live = calloc(nb, 1);
                unsigned density = (unsigned)ref_below(&r, 4);
                for (size_t i = 0; i < n; i++) {
                    uint64_t x = ref_below(&r, 16);
                    bool on = density == 0 ? x == 0 : density == 1 ? x < 4 : density == 2 ? x < 12 : true;
                    if (on) live[(off + i) / 8] |= (uint8_t)(1u << ((off + i) % 8));
                }
                uint8_t *out = malloc(n * w + 1);
                memset(out, 0xEE, n * w + 1);
                pk_decoder d;
                CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, t, 0, o.data, o.size,
                                      (int64_t)n, &dict, NULL, &err) == PLANK_OK);
                if (li & 1) pk_decoder_use_kernels(&d, pk_kernels_for(PK_SIMD_AVX2));
                size_t pos = 0;
                bool ok = true;
                while (pos < n && ok) {
                    size_t k = 1 + (size_t)ref_below(&r, 700);
                    if (k > n - pos) k = n - pos;
                    ok = pk_decoder_get_fixed_live(&d, (int64_t)k, out + pos * w, live,
                                                   (int64_t)(off + pos), &err) == PLANK_OK;
                    pos += k;
                }
                CHECK_MSG(ok, "live read failed: %s", err.message);
                size_t bad = 0;
                for (size_t i = 0; i < n && ok; i++) {
                    bool on = (live[(off + i) / 8] >> ((off + i) % 8)) & 1;
                    uint8_t zero[8] = {0};
                    /* a dead slot: zero, or its value where most are live
                     * (then all are decoded) */
                    bad += memcmp(out + i * w, dv + idx[i] * w, w) != 0 &&
                           (on || memcmp(out + i * w, zero, w) != 0);
                }
                CHECK_MSG(bad == 0, "int%zu dict %zu n %zu off %zu: %zu slots wrong", 8 * w, m, n,
                          off, bad);
                pk_decoder_release(&d);
                free(out);
                free(live);
                free(o.data);
                free(idx);
            }
            pk_dict_release(&dict);
            free(dp.data);
            free(dv);
        }
    }
    /* Sixteen indices at width 2 against a dictionary of 3, all 0 but 2 at
     * slot 2 and 3 (out of range) at slot 3: with slot 2 alone live (few
     * enough for a gather of the live ones), slot 3's index is not used. */
    const uint8_t dpage[] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
    pk_dict dict;
    CHECK(pk_dict_decode(&dict, PLANK_INT32, 0, dpage, sizeof dpage, 3, NULL, &err) == PLANK_OK);
    const uint8_t ix[] = {2, 0x05, 0xE0, 0x00, 0x00, 0x00};
    for (int on = 0; on < 2; on++) {
        uint8_t out[64], live[16] = {on ? 0x0C : 0x04};
        pk_decoder d;
        CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_INT32, 0, ix, sizeof ix, 16,
                              &dict, NULL, &err) == PLANK_OK);
        plank_status st = pk_decoder_get_fixed_live(&d, 16, out, live, 0, &err);
        CHECK_MSG(on ? st == PLANK_ERR_CORRUPT : st == PLANK_OK, "live index 3: %d", (int)st);
        if (!on) CHECK(pk_load_u32(out + 8) == 3 && pk_load_u32(out + 12) == 0);
        pk_decoder_release(&d);
    }
    pk_dict_release(&dict);
}

static void test_dictionary_errors(void) {
    plank_error err;
    pk_decoder d;
    pk_dict dict;
    const uint8_t dpage[] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
    CHECK(pk_dict_decode(&dict, PLANK_INT32, 0, dpage, sizeof dpage, 3, NULL, &err) == PLANK_OK);
    /* Indices 0,1,2,3 bit-packed at width 2: 0b11100100 = 0xE4 (one group,
     * padding zeros). */
    const uint8_t idx[] = {2, 0x03, 0xE4, 0x00};
    uint8_t out[64];
    CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_INT32, 0, idx, sizeof idx, 4, &dict,
                          NULL, &err) == PLANK_OK);
    CHECK(pk_decoder_get_fixed(&d, 3, out, &err) == PLANK_OK);
    CHECK_EQ_I64(pk_load_u32(out), 1);
    CHECK_EQ_I64(pk_load_u32(out + 4), 2);
    CHECK_EQ_I64(pk_load_u32(out + 8), 3);
    CHECK(pk_decoder_get_fixed(&d, 1, out, &err) == PLANK_ERR_CORRUPT);
    CHECK_MSG(strcmp(err.message, "dictionary index 3 out of range (dictionary has 3 values)") == 0,
              "%s", err.message);
    pk_decoder_release(&d);
    /* Bit width 0: every index is 0 (an RLE run of 5, no value bytes). */
    const uint8_t zero[] = {0, 0x0A};
    CHECK(pk_decoder_init(&d, PLANK_ENC_PLAIN_DICTIONARY, PLANK_INT32, 0, zero, sizeof zero, 5,
                          &dict, NULL, &err) == PLANK_OK);
    CHECK(pk_decoder_get_fixed(&d, 5, out, &err) == PLANK_OK);
    CHECK_EQ_I64(pk_load_u32(out + 16), 1);
    pk_decoder_release(&d);
    const uint8_t w33[] = {33, 0x02, 0, 0, 0, 0, 0};
    CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_INT32, 0, w33, sizeof w33, 1, &dict,
                          NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_INT32, 0, zero, sizeof zero, 1, NULL,
                          NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK(strcmp(err.message, "dictionary page missing") == 0);
    CHECK(pk_decoder_init(&d, PLANK_ENC_RLE_DICTIONARY, PLANK_INT64, 0, zero, sizeof zero, 1, &dict,
                          NULL, &err) == PLANK_ERR_CORRUPT);
    pk_dict_release(&dict);

    /* Byte-array dictionary pages: a length past the end; count too large. */
    const uint8_t bpage[] = {2, 0, 0, 0, 'h', 'i', 5, 0, 0, 0, 'a'};
    CHECK(pk_dict_decode(&dict, PLANK_BYTE_ARRAY, 0, bpage, sizeof bpage, 1, NULL, &err) == PLANK_OK);
    CHECK_EQ_I64(dict.offsets[1], 2);
    CHECK(memcmp(dict.data, "hi", 2) == 0);
    pk_dict_release(&dict);
    CHECK(pk_dict_decode(&dict, PLANK_BYTE_ARRAY, 0, bpage, sizeof bpage, 2, NULL, &err) ==
          PLANK_ERR_CORRUPT);
    pk_dict_release(&dict);
    CHECK(pk_dict_decode(&dict, PLANK_BYTE_ARRAY, 0, bpage, sizeof bpage, 1000000000, NULL, &err) ==
          PLANK_ERR_CORRUPT);
    pk_dict_release(&dict);
    CHECK(pk_dict_decode(&dict, PLANK_FIXED_LEN_BYTE_ARRAY, 0, bpage, sizeof bpage, 1, NULL, &err) ==
          PLANK_ERR_CORRUPT);
    pk_dict_release(&dict);
}

static void test_rle_booleans(void) {
    ref_rng r = {3};
    for (size_t li = 0; li < NLEN; li++) {
        size_t n = k_lengths[li];
        uint32_t *v = malloc(sizeof(uint32_t) * (n + 1));
        uint8_t *b = malloc(n + 1);
        ref_fill_runs(v, n, 1, &r);
        for (size_t i = 0; i < n; i++) b[i] = (uint8_t)v[i];
        ref_out h = {0};
        ref_hybrid(&h, v, n, 1, &r);
        ref_out o = {0};
        ref_u32le(&o, (uint32_t)h.size);
        ref_bytes(&o, h.data, h.size);
        expect e = {(int64_t)n, 1, b, NULL, NULL};
        verify_page(PLANK_ENC_RLE, PLANK_BOOLEAN, 0, o.data, o.size, NULL, &e, n <= 9, &r);
        free(h.data);
        free(o.data);
        free(v);
        free(b);
    }
    /* Hand-computed: length 2, RLE run of 3 trues. */
    const uint8_t page[] = {2, 0, 0, 0, 0x06, 0x01};
    const uint8_t want[] = {1, 1, 1};
    expect e = {3, 1, want, NULL, NULL};
    verify_page(PLANK_ENC_RLE, PLANK_BOOLEAN, 0, page, sizeof page, NULL, &e, true, &r);
    /* Length prefix larger than the page. */
    pk_decoder d;
    plank_error err;
    const uint8_t bad[] = {9, 0, 0, 0, 0x06, 0x01};
    CHECK(pk_decoder_init(&d, PLANK_ENC_RLE, PLANK_BOOLEAN, 0, bad, sizeof bad, 3, NULL, NULL,
                          &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_init(&d, PLANK_ENC_RLE, PLANK_INT32, 0, page, sizeof page, 3, NULL, NULL,
                          &err) == PLANK_ERR_UNSUPPORTED);
}

static void test_delta_values(void) {
    ref_rng r = {4};
    for (int is64 = 0; is64 <= 1; is64++) {
        for (size_t li = 0; li < NLEN; li++) {
            size_t n = k_lengths[li];
            uint64_t *v = malloc(sizeof(uint64_t) * (n + 1));
            uint8_t *le = malloc(n * 8 + 1);
            int w = (int)ref_below(&r, is64 ? 65 : 33);
            uint64_t x = ref_next(&r);
            for (size_t i = 0; i < n; i++) {
                x += ref_next(&r) & ref_mask(w);
                v[i] = is64 ? x : (uint64_t)(int64_t)(int32_t)(uint32_t)x;
                if (is64) {
                    for (int b = 0; b < 8; b++) le[i * 8 + (size_t)b] = (uint8_t)(v[i] >> (8 * b));
                } else {
                    for (int b = 0; b < 4; b++) le[i * 4 + (size_t)b] = (uint8_t)(v[i] >> (8 * b));
                }
            }
            ref_out o = {0};
            ref_delta_opts op = {256, 8, false, (bool)is64, 0, true, true, false};
            ref_delta(&o, v, n, &op, &r);
            plank_physical_type t = is64 ? PLANK_INT64 : PLANK_INT32;
            expect e = {(int64_t)n, is64 ? 8 : 4, le, NULL, NULL};
            verify_page(PLANK_ENC_DELTA_BINARY_PACKED, t, 0, o.data, o.size, NULL, &e, n <= 9, &r);
            /* The header's count must match the page's. */
            pk_decoder d;
            plank_error err;
            CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BINARY_PACKED, t, 0, o.data, o.size,
                                  (int64_t)n + 1, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
            free(o.data);
            free(v);
            free(le);
        }
    }
    pk_decoder d;
    plank_error err;
    const uint8_t hdr[] = {0x80, 0x01, 4, 0, 0};
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BINARY_PACKED, PLANK_DOUBLE, 0, hdr, sizeof hdr, 0,
                          NULL, NULL, &err) == PLANK_ERR_CORRUPT);
}

static void test_delta_strings(void) {
    ref_rng r = {5};
    for (int flba = 0; flba <= 1; flba++) {
        for (size_t li = 0; li < NLEN; li++) {
            size_t n = k_lengths[li];
            strings S;
            make_strings(&S, n, flba ? 6 : 0, &r);
            plank_physical_type t = flba ? PLANK_FIXED_LEN_BYTE_ARRAY : PLANK_BYTE_ARRAY;
            expect e = {(int64_t)n, flba ? 6 : 0, S.data, S.data, S.ends};
            ref_out o = {0};
            ref_delta_length(&o, (const char *const *)S.s, S.len, n, &r);
            verify_page(PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, t, 6, o.data, o.size, NULL, &e, n <= 9, &r);
            /* Bytes section one short. */
            pk_decoder d;
            plank_error err;
            if (e.n && S.ends[n - 1] > 0)
                CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, t, 6, o.data, o.size - 1,
                                      (int64_t)n, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
            free(o.data);
            ref_out o2 = {0};
            ref_delta_byte_array(&o2, (const char *const *)S.s, S.len, n, &r);
            verify_page(PLANK_ENC_DELTA_BYTE_ARRAY, t, 6, o2.data, o2.size, NULL, &e, n <= 9, &r);
            /* A fixed length that does not match. */
            if (n > 0)
                CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY, 7,
                                      o2.data, o2.size, (int64_t)n, NULL, NULL, &err) ==
                      PLANK_ERR_CORRUPT);
            free(o2.data);
            free_strings(&S);
        }
    }
}

/* A hand-computed page of n strings: it decodes to them, and the reference
 * encoder produces the same bytes. */
static void known_strings(plank_encoding enc, const uint8_t *page, size_t len, const char **s,
                          const size_t *l, size_t n, ref_rng *r) {
    uint8_t concat[256];
    int64_t ends[16];
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(concat + total, s[i], l[i]);
        total += l[i];
        ends[i] = (int64_t)total;
    }
    expect e = {(int64_t)n, 0, NULL, concat, ends};
    verify_page(enc, PLANK_BYTE_ARRAY, 0, page, len, NULL, &e, true, r);
    ref_out o = {0};
    if (enc == PLANK_ENC_DELTA_BYTE_ARRAY)
        ref_delta_byte_array(&o, s, l, n, r);
    else
        ref_delta_length(&o, s, l, n, r);
    CHECK_MSG(o.size == len && memcmp(o.data, page, len) == 0, "reference %s bytes differ",
              plank_encoding_name(enc));
    free(o.data);
}

/* Encodings.md examples, bytes computed by hand. */
static void test_delta_strings_known(void) {
    ref_rng r = {6};
    /* DELTA_LENGTH_BYTE_ARRAY "Hello","World","Foobar","ABCDEF": lengths
     * 5,5,6,6: first 5 (zigzag 10), deltas 0,1,0, min 0, relative 0,1,0 on
     * 1 bit (0x02 then 3 padding bytes), widths 1,0,0,0. */
    const uint8_t dl[] = {0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0x02, 0, 0, 0,
                          'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd', 'F', 'o', 'o', 'b',
                          'a', 'r', 'A', 'B', 'C', 'D', 'E', 'F'};
    const char *hw[] = {"Hello", "World", "Foobar", "ABCDEF"};
    const size_t hwl[] = {5, 5, 6, 6};
    known_strings(PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, dl, sizeof dl, hw, hwl, 4, &r);

    /* DELTA_BYTE_ARRAY "axis","axle","babble","babyhood": prefixes 0,2,0,3
     * (first 0; deltas 2,-2,3; min -2 = zigzag 3; relative 4,0,5 on 3 bits:
     * 0x44 0x01 + 10 padding bytes), suffix lengths 4,2,6,5 (first 4 = zigzag
     * 8; deltas -2,4,-1; min -2; relative 0,6,1 on 3 bits: 0x70 0x00 + 10),
     * then "axislebabbleyhood". */
    const uint8_t dba[] = {0x80, 0x01, 4, 4, 0, 3, 3, 0, 0, 0, 0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                           0x80, 0x01, 4, 4, 8, 3, 3, 0, 0, 0, 0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                           'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e', 'y', 'h',
                           'o', 'o', 'd'};
    const char *ax[] = {"axis", "axle", "babble", "babyhood"};
    const size_t axl[] = {4, 4, 6, 8};
    known_strings(PLANK_ENC_DELTA_BYTE_ARRAY, dba, sizeof dba, ax, axl, 4, &r);

    pk_decoder d;
    plank_error err;
    /* The same page as FIXED_LEN_BYTE_ARRAY(6) (its first value is shorter)
     * and (4) (its third is longer). */
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY, 6, dba,
                          sizeof dba, 4, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "value 0 is 4 bytes long, the column's values are 6") != NULL,
              "%s", err.message);
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY, 4, dba,
                          sizeof dba, 4, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "value 2 is 6 bytes long, the column's values are 4") != NULL,
              "%s", err.message);
    /* Prefix length larger than the previous value: prefixes 0,5 (first 0,
     * delta 5 = zigzag 10, width 0), suffixes 1,1 (first 1 = zigzag 2, min 0). */
    const uint8_t badprefix[] = {0x80, 0x01, 4, 2, 0, 10, 0, 0, 0, 0,
                                 0x80, 0x01, 4, 2, 2, 0, 0, 0, 0, 0, 'a', 'b'};
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0, badprefix,
                          sizeof badprefix, 2, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "prefix length 5") != NULL);
    /* Same with prefix 1: valid, values "a", "ab". */
    uint8_t okprefix[sizeof badprefix];
    memcpy(okprefix, badprefix, sizeof okprefix);
    okprefix[5] = 2;
    const int64_t ok_ends[] = {1, 3};
    expect e3 = {2, 0, NULL, (const uint8_t *)"aab", ok_ends};
    verify_page(PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0, okprefix, sizeof okprefix, NULL,
                &e3, true, &r);
    /* A negative length (-1 = zigzag 1). */
    const uint8_t neg[] = {0x80, 0x01, 4, 1, 1, 'x'};
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0, neg, sizeof neg,
                          1, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "negative") != NULL);
    /* DELTA_BYTE_ARRAY whose second suffix length is -1 after a prefix of 1:
     * in 32 bits the value's length wraps to 0, which the next prefix (0)
     * fits; the chain check must still see the negative length. Prefixes
     * 0, 1, 0 (deltas +1, -1: min -1, packed 2, 0 in 2 bits), suffixes 2,
     * -1, 1 (deltas -3, +2: min -3, packed 0, 5 in 3 bits). */
    const uint8_t wrap[] = {0x80, 0x01, 4, 3, 0, 1, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                            0x80, 0x01, 4, 3, 4, 5, 3, 0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0,
                            0, 0, 0, 0, 'a', 'b', 'c'};
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0, wrap, sizeof wrap,
                          3, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "value 1 has negative length -1") != NULL, "%s", err.message);
    /* Declared length much larger than the page. */
    const uint8_t huge[] = {0x80, 0x01, 4, 1, 0xFE, 0xFF, 0x03, 'x'};
    CHECK(pk_decoder_init(&d, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, PLANK_BYTE_ARRAY, 0, huge,
                          sizeof huge, 1, NULL, NULL, &err) == PLANK_ERR_CORRUPT);
}

static void test_byte_stream_split(void) {
    ref_rng r = {7};
    /* Encodings.md example. */
    const uint8_t split[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
    const uint8_t orig[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
    expect e = {3, 4, orig, NULL, NULL};
    verify_page(PLANK_ENC_BYTE_STREAM_SPLIT, PLANK_FLOAT, 0, split, sizeof split, NULL, &e, true, &r);
    pk_decoder d;
    plank_error err;
    CHECK(pk_decoder_init(&d, PLANK_ENC_BYTE_STREAM_SPLIT, PLANK_FLOAT, 0, split, 11, 3, NULL, NULL,
                          &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_init(&d, PLANK_ENC_BYTE_STREAM_SPLIT, PLANK_FLOAT, 0, split, 12, 2, NULL, NULL,
                          &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_init(&d, PLANK_ENC_BYTE_STREAM_SPLIT, PLANK_BYTE_ARRAY, 0, split, 12, 3, NULL,
                          NULL, &err) == PLANK_ERR_CORRUPT);

    static const plank_physical_type types[] = {PLANK_FLOAT, PLANK_DOUBLE, PLANK_INT32, PLANK_INT64,
                                                PLANK_FIXED_LEN_BYTE_ARRAY};
    for (size_t ti = 0; ti < 5; ti++) {
        int32_t w = width_of(types[ti], 3);
        for (size_t li = 0; li < NLEN; li++) {
            size_t n = k_lengths[li];
            uint8_t *v = malloc(n * (size_t)w + 1);
            random_fixed(v, types[ti], w, n, &r);
            ref_out o = {0};
            for (int32_t k = 0; k < w; k++)
                for (size_t i = 0; i < n; i++) ref_byte(&o, v[i * (size_t)w + (size_t)k]);
            expect ev = {(int64_t)n, w, v, NULL, NULL};
            verify_page(PLANK_ENC_BYTE_STREAM_SPLIT, types[ti], 3, o.data, o.size, NULL, &ev, n <= 9, &r);
            free(o.data);
            free(v);
        }
    }
}

static void test_misc_errors(void) {
    pk_decoder d;
    plank_error err;
    const uint8_t page[16] = {0};
    uint8_t out[64];
    CHECK(pk_decoder_init(&d, PLANK_ENC_PLAIN, PLANK_INT64, 0, page, 15, 2, NULL, NULL, &err) ==
          PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_init(&d, PLANK_ENC_PLAIN, PLANK_INT64, 0, page, 16, 2, NULL, NULL, &err) ==
          PLANK_OK);
    CHECK(pk_decoder_get_fixed(&d, 3, out, &err) == PLANK_ERR_CORRUPT);
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    int64_t ends[4];
    CHECK(pk_decoder_get_binary(&d, 1, &b, ends, &err) == PLANK_ERR_INVALID_ARGUMENT);
    pk_decoder_release(&d);
    /* PLAIN byte array whose length runs past the page. */
    const uint8_t ba[] = {1, 0, 0, 0, 'a', 9, 0, 0, 0, 'b'};
    CHECK(pk_decoder_init(&d, PLANK_ENC_PLAIN, PLANK_BYTE_ARRAY, 0, ba, sizeof ba, 2, NULL, NULL,
                          &err) == PLANK_OK);
    CHECK(pk_decoder_get_binary(&d, 1, &b, ends, &err) == PLANK_OK);
    CHECK(pk_decoder_get_binary(&d, 1, &b, ends, &err) == PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_get_fixed(&d, 1, out, &err) == PLANK_ERR_INVALID_ARGUMENT);
    pk_decoder_release(&d);
    pk_buffer_reset(&b);
    CHECK(pk_decoder_init(&d, PLANK_ENC_BIT_PACKED, PLANK_INT32, 0, page, 16, 1, NULL, NULL, &err) ==
          PLANK_ERR_CORRUPT);
    CHECK(pk_decoder_init(&d, (plank_encoding)42, PLANK_INT32, 0, page, 16, 1, NULL, NULL, &err) ==
          PLANK_ERR_UNSUPPORTED);
    CHECK(pk_decoder_init(&d, PLANK_ENC_PLAIN, PLANK_FIXED_LEN_BYTE_ARRAY, 0, page, 16, 1, NULL, NULL,
                          &err) == PLANK_ERR_CORRUPT);
    /* Empty pages with no values work for every encoding. */
    static const plank_encoding encs[] = {PLANK_ENC_PLAIN, PLANK_ENC_RLE, PLANK_ENC_DELTA_BINARY_PACKED,
                                          PLANK_ENC_BYTE_STREAM_SPLIT};
    for (int i = 0; i < 4; i++) {
        plank_physical_type t = encs[i] == PLANK_ENC_RLE ? PLANK_BOOLEAN : PLANK_INT32;
        CHECK(pk_decoder_init(&d, encs[i], t, 0, page, 0, 0, NULL, NULL, &err) == PLANK_OK);
        CHECK(pk_decoder_get_fixed(&d, 0, out, &err) == PLANK_OK);
        CHECK(pk_decoder_skip(&d, 0, &err) == PLANK_OK);
        CHECK(pk_decoder_get_fixed(&d, 1, out, &err) == PLANK_ERR_CORRUPT);
        pk_decoder_release(&d);
    }
}

int main(void) {
    test_plain();
    test_dictionary();
    test_byte_widths();
    test_dictionary_errors();
    test_dictionary_live();
    test_rle_booleans();
    test_delta_values();
    test_delta_strings();
    test_delta_strings_known();
    test_byte_stream_split();
    test_misc_errors();
    fprintf(stderr, "%d pages\n", g_pages);
    TEST_END();
}
