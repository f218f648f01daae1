/* test_simd_encode.c: the writer's kernels (pack32, pack64, rle_scan32, minmax_i32,
 * minmax_i64, delta_block64 / delta_block32, the dictionary hashes) at every
 * dispatch level this machine has, against references written here (a
 * bit-by-bit packer, a plain group scan, a plain min/max, the hashes' formulas):
 * every bit width, lengths 0..4096, unaligned inputs and outputs, and canary
 * bytes around the output (nothing written outside what the contract
 * allows). The packed bytes are also unpacked by the reader's scalar
 * unpack32, the decoder's own kernel. */
#include <math.h>

#include "encoding/pk_encoder.h"
#include "simd_sets.h"
#include "tharness.h"

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The reference packer: value i's bit j goes to bit i*bw + j of the stream. */
static void ref_pack(const uint32_t *v, size_t n, int bw, uint8_t *out) {
    memset(out, 0, n / 8 * (size_t)bw);
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < bw; j++)
            if ((v[i] >> j) & 1) {
                size_t bit = i * (size_t)bw + (size_t)j;
                out[bit / 8] |= (uint8_t)(1u << (bit % 8));
            }
}

#define MAXN 4096
#define CANARY 0xA5

static void test_pack(const pk_kernels *const *sets, int nsets) {
    static uint32_t vals[MAXN + 8];
    static uint8_t want[MAXN * 4 + 64], got[MAXN * 4 + 64], back_bytes[(MAXN + 8) * 4];
    int64_t cases = 0;
    for (int bw = 0; bw <= 32; bw++) {
        uint32_t mask = bw == 32 ? UINT32_MAX : (1u << bw) - 1;
        for (size_t n = 0; n <= MAXN; n += (n < 256 ? 8 : 8 * (1 + rnd() % 9))) {
            size_t off_in = rnd() % 4, off_out = rnd() % 8;
            uint32_t *v = vals + off_in;
            int shape = (int)(rnd() % 4);
            for (size_t i = 0; i < n; i++) {
                uint32_t x = (uint32_t)rnd();
                /* runs, extremes and random bits */
                if (shape == 1) x = (uint32_t)(i / 13);
                if (shape == 2) x = i % 3 ? mask : 0;
                v[i] = x & mask;
            }
            size_t bytes = n / 8 * (size_t)bw;
            ref_pack(v, n, bw, want);
            for (int s = 0; s < nsets; s++) {
                memset(got, CANARY, sizeof got);
                sets[s]->pack32(v, n, bw, got + off_out);
                bool ok = memcmp(got + off_out, want, bytes) == 0;
                /* the 8 bytes after: zero or untouched; nothing before or after that */
                for (size_t k = 0; k < off_out; k++) ok &= got[k] == CANARY;
                for (size_t k = bytes; k < bytes + 8; k++)
                    ok &= got[off_out + k] == CANARY || got[off_out + k] == 0;
                for (size_t k = off_out + bytes + 8; k < sizeof got; k++) ok &= got[k] == CANARY;
                CHECK_MSG(ok, "%s pack32 bw %d n %zu (offsets %zu, %zu) differs",
                          pk_simd_level_name(sets[s]->level), bw, n, off_in, off_out);
                cases++;
            }
            /* the decoder reads back what was packed */
            uint32_t *back = (uint32_t *)(void *)back_bytes;
            pk_unpack32_scalar(want, bytes, back, n, bw);
            CHECK_MSG(n == 0 || memcmp(back, v, n * 4) == 0, "unpack of bw %d n %zu differs", bw,
                      n);
        }
    }
    fprintf(stderr, "pack32: %lld cases\n", (long long)cases);
}

/* pack64 against a bit-by-bit packer of 64-bit values: every width 0..64, lengths up
 * to 4096 in groups of 8, unaligned input and output, canaries around the output (the
 * 8 bytes after may be zeros), and read back by the decoder's unpack64. */
static void test_pack64(const pk_kernels *const *sets, int nsets) {
    static uint64_t vals[MAXN + 8], back[MAXN + 8];
    static uint8_t want[MAXN * 8 + 64], got[MAXN * 8 + 64];
    int64_t cases = 0;
    for (int bw = 0; bw <= 64; bw++) {
        uint64_t mask = bw == 64 ? UINT64_MAX : (UINT64_C(1) << bw) - 1;
        for (size_t n = 0; n <= MAXN; n += (n < 256 ? 8 : 8 * (1 + rnd() % 23))) {
            size_t off_out = rnd() % 8;
            uint64_t *v = vals + rnd() % 2; /* from the buffer's first or second value */
            int shape = (int)(rnd() % 3);
            for (size_t i = 0; i < n; i++) {
                uint64_t x = rnd();
                if (shape == 1) x = i % 3 ? mask : 0;
                if (shape == 2) x = i * 0x9E3779B97F4A7C15ull >> 7;
                v[i] = x & mask;
            }
            size_t bytes = n / 8 * (size_t)bw;
            memset(want, 0, bytes + 8);
            for (size_t i = 0; i < n; i++)
                for (int j = 0; j < bw; j++)
                    if ((v[i] >> j) & 1) {
                        size_t bit = i * (size_t)bw + (size_t)j;
                        want[bit / 8] |= (uint8_t)(1u << (bit % 8));
                    }
            for (int s = 0; s < nsets; s++) {
                memset(got, CANARY, sizeof got);
                sets[s]->pack64(v, n, bw, got + off_out);
                bool ok = memcmp(got + off_out, want, bytes) == 0;
                for (size_t k = 0; k < off_out; k++) ok &= got[k] == CANARY;
                for (size_t k = bytes; k < bytes + 8; k++)
                    ok &= got[off_out + k] == CANARY || got[off_out + k] == 0;
                for (size_t k = off_out + bytes + 8; k < sizeof got; k++) ok &= got[k] == CANARY;
                CHECK_MSG(ok, "%s pack64 bw %d n %zu (output offset %zu) differs",
                          pk_simd_level_name(sets[s]->level), bw, n, off_out);
                cases++;
            }
            pk_unpack64_scalar(want, bytes, back, n, bw);
            CHECK_MSG(n == 0 || memcmp(back, v, n * 8) == 0, "unpack64 of bw %d n %zu differs", bw, n);
        }
    }
    fprintf(stderr, "pack64: %lld cases\n", (long long)cases);
}

static size_t ref_scan(const uint32_t *v, size_t n, uint32_t *any) {
    size_t g = 0;
    for (; g < n / 8; g++) {
        bool eq = true;
        for (int k = 0; k < 8; k++) {
            *any |= v[8 * g + (size_t)k];
            eq &= v[8 * g + (size_t)k] == v[8 * g];
        }
        if (eq) break;
    }
    return g;
}

static void test_rle_scan(const pk_kernels *const *sets, int nsets) {
    static uint32_t vals[MAXN + 8];
    int64_t cases = 0;
    for (size_t n = 0; n <= MAXN; n += (n < 300 ? 1 : 1 + rnd() % 40)) {
        for (int rep = 0; rep < 3; rep++) {
            uint32_t *v = vals + rnd() % 4;
            for (size_t i = 0; i < n; i++) v[i] = (uint32_t)(rnd() % (rep == 0 ? 2 : 1000));
            /* plant a run at a random place (not always on a group boundary) */
            if (n && rep > 0) {
                size_t at = rnd() % n, len = 8 + rnd() % 12;
                for (size_t i = at; i < n && i < at + len; i++) v[i] = 77u << (rep * 7);
            }
            uint32_t want_any = 0x10000u;
            size_t want = ref_scan(v, n, &want_any);
            for (int s = 0; s < nsets; s++) {
                uint32_t any = 0x10000u;
                size_t got = sets[s]->rle_scan32(v, n, &any);
                CHECK_MSG(got == want && any == want_any,
                          "%s rle_scan32 n %zu: group %zu (want %zu), any %x (want %x)",
                          pk_simd_level_name(sets[s]->level), n, got, want, any, want_any);
                cases++;
            }
        }
    }
    fprintf(stderr, "rle_scan32: %lld cases\n", (long long)cases);
}

static void test_minmax(const pk_kernels *const *sets, int nsets) {
    static uint8_t buf[MAXN * 8 + 16];
    int64_t cases = 0;
    for (size_t n = 1; n <= MAXN; n += (n < 300 ? 1 : 1 + rnd() % 40)) {
        size_t off = rnd() % 8; /* any byte alignment */
        int shape = (int)(rnd() % 3);
        for (size_t i = 0; i < n * 8; i++) buf[off + i] = (uint8_t)rnd();
        if (shape == 1) /* the extremes somewhere */
            for (int k = 0; k < 4; k++) {
                size_t at = rnd() % n;
                memset(buf + off + at * 8, k % 2 ? 0xFF : 0, 8);
                buf[off + at * 8 + 7] ^= k < 2 ? 0x80 : 0;
                buf[off + at * 4 + 3] ^= k < 2 ? 0x80 : 0;
            }
        if (shape == 2) memset(buf + off, 0x42, n * 8); /* all equal */
        for (int fl = 0; fl < 2; fl++) {
            int32_t wmn32 = 0, wmx32 = 0;
            int64_t wmn64 = 0, wmx64 = 0;
            uint32_t f32 = fl ? 0x80000000u : 0;
            uint64_t f64 = fl ? UINT64_C(0x8000000000000000) : 0;
            for (size_t i = 0; i < n; i++) {
                uint32_t x32;
                uint64_t x64;
                memcpy(&x32, buf + off + 4 * i, 4);
                memcpy(&x64, buf + off + 8 * i, 8);
                int32_t a = (int32_t)(x32 ^ f32);
                int64_t b = (int64_t)(x64 ^ f64);
                if (i == 0 || a < (int32_t)((uint32_t)wmn32 ^ f32)) wmn32 = (int32_t)x32;
                if (i == 0 || a > (int32_t)((uint32_t)wmx32 ^ f32)) wmx32 = (int32_t)x32;
                if (i == 0 || b < (int64_t)((uint64_t)wmn64 ^ f64)) wmn64 = (int64_t)x64;
                if (i == 0 || b > (int64_t)((uint64_t)wmx64 ^ f64)) wmx64 = (int64_t)x64;
            }
            for (int s = 0; s < nsets; s++) {
                int32_t mn32, mx32;
                int64_t mn64, mx64;
                sets[s]->minmax_i32((const int32_t *)(const void *)(buf + off), n, f32, &mn32,
                                    &mx32);
                sets[s]->minmax_i64((const int64_t *)(const void *)(buf + off), n, f64, &mn64,
                                    &mx64);
                CHECK_MSG(mn32 == wmn32 && mx32 == wmx32, "%s minmax_i32 n %zu flip %d",
                          pk_simd_level_name(sets[s]->level), n, fl);
                CHECK_MSG(mn64 == wmn64 && mx64 == wmx64, "%s minmax_i64 n %zu flip %d",
                          pk_simd_level_name(sets[s]->level), n, fl);
                cases += 2;
            }
        }
    }
    fprintf(stderr, "minmax: %lld cases\n", (long long)cases);
}

/* Float min/max against a plain loop: NaNs (with payloads) skipped, zeros of
 * both signs, infinities, all-NaN pages, any byte alignment. */
static void test_minmax_float(const pk_kernels *const *sets, int nsets) {
    static uint8_t buf[4096 * 8 + 16];
    int64_t cases = 0;
    for (size_t n = 0; n <= 4096; n += (n < 300 ? 1 : 1 + rnd() % 60)) {
        size_t off = rnd() % 8;
        int shape = (int)(n % 5);
        for (int t = 0; t < 2; t++) {
            size_t w = t ? 8 : 4;
            for (size_t i = 0; i < n; i++) {
                double x = (double)(int64_t)(rnd() % 2000001) / 7.0 - 140000.0;
                uint64_t r = rnd();
                if (shape == 1 && r % 3 == 0) x = NAN;
                if (shape == 2) x = r % 2 ? 0.0 : -0.0;           /* zeros only */
                if (shape == 3) x = NAN;                          /* all NaN */
                if (shape == 4 && r % 5 == 0) x = r % 2 ? INFINITY : -INFINITY;
                if (t) {
                    memcpy(buf + off + 8 * i, &x, 8);
                } else {
                    float f = (float)x;
                    memcpy(buf + off + 4 * i, &f, 4);
                }
            }
            if (shape == 1 && n) { /* a NaN with a payload */
                uint64_t q = UINT64_C(0x7FF0000000000123);
                uint32_t q32 = 0xFFC00042u;
                if (t) memcpy(buf + off, &q, 8);
                else memcpy(buf + off, &q32, 4);
            }
            /* the reference */
            bool any = false;
            double lo = 0, hi = 0;
            for (size_t i = 0; i < n; i++) {
                double x;
                if (t) memcpy(&x, buf + off + 8 * i, 8);
                else {
                    float f;
                    memcpy(&f, buf + off + 4 * i, 4);
                    x = f;
                }
                if (isnan(x)) continue;
                if (!any || x < lo) lo = x;
                if (!any || x > hi) hi = x;
                any = true;
            }
            if (lo == 0) lo = -0.0;
            if (hi == 0) hi = 0.0;
            for (int s2 = 0; s2 < nsets; s2++) {
                bool got;
                double glo = 1, ghi = 1;
                if (t) {
                    got = sets[s2]->minmax_f64((const double *)(const void *)(buf + off), n, &glo,
                                               &ghi);
                } else {
                    float a = 1, b = 1;
                    got = sets[s2]->minmax_f32((const float *)(const void *)(buf + off), n, &a, &b);
                    glo = a;
                    ghi = b;
                }
                bool ok = got == any;
                if (any)
                    ok &= memcmp(&glo, &lo, 8) == 0 && memcmp(&ghi, &hi, 8) == 0; /* signs too */
                CHECK_MSG(ok, "%s minmax_f%zu n %zu shape %d", pk_simd_level_name(sets[s2]->level),
                          w * 8, n, shape);
                cases++;
            }
        }
    }
    fprintf(stderr, "float minmax: %lld cases\n", (long long)cases);
}

/* The reference of a DELTA block, written from the format's definition. */
static uint64_t ref_delta(const uint8_t *v, size_t k, uint64_t prev, bool is32, uint64_t *d,
                          uint64_t *min, uint64_t *ors) {
    int64_t mn = INT64_MAX;
    for (size_t j = 0; j < k; j++) {
        uint64_t cur;
        if (is32) {
            int32_t x;
            memcpy(&x, v + 4 * j, 4);
            cur = (uint64_t)(int64_t)x;
            d[j] = (uint64_t)(int64_t)(int32_t)(uint32_t)(cur - prev);
        } else {
            memcpy(&cur, v + 8 * j, 8);
            d[j] = cur - prev;
        }
        prev = cur;
        if ((int64_t)d[j] < mn) mn = (int64_t)d[j];
    }
    *min = (uint64_t)mn;
    for (size_t j = 0; j < 128; j++) d[j] = j < k ? d[j] - (uint64_t)mn : 0;
    for (int m = 0; m < 4; m++) {
        ors[m] = 0;
        for (int j = 0; j < 32; j++) ors[m] |= d[32 * m + j];
    }
    return prev;
}

static void test_delta_block(const pk_kernels *const *sets, int nsets) {
    static uint8_t buf[128 * 8 + 16];
    int64_t cases = 0;
    for (int round = 0; round < 3000; round++) {
        size_t k = 1 + (size_t)(round % 128);
        size_t off = rnd() % 8;
        int shape = round % 5;
        uint8_t *v = buf + off;
        uint64_t base = rnd();
        for (size_t j = 0; j < k; j++) {
            uint64_t x = rnd();
            if (shape == 1) x = base + j * 3;                 /* sorted keys */
            if (shape == 2) x = base - j * (rnd() % 1000);    /* descending, uneven */
            if (shape == 3) x = j % 2 ? UINT64_MAX / 2 : (uint64_t)1 << 63; /* extremes */
            if (shape == 4) x = base;                         /* constant */
            memcpy(v + 8 * j, &x, 8);
        }
        for (int is32 = 0; is32 < 2; is32++) {
            uint64_t prev = is32 ? (uint64_t)(int64_t)(int32_t)rnd() : rnd();
            uint64_t wd[128], wmin, wors[4];
            uint64_t wlast = ref_delta(v, k, prev, is32, wd, &wmin, wors);
            for (int s2 = 0; s2 < nsets; s2++) {
                uint64_t gd[128], gmin = 1, gors[4];
                memset(gd, 0xA5, sizeof gd);
                uint64_t glast = is32 ? sets[s2]->delta_block32(v, k, prev, gd, &gmin, gors)
                                      : sets[s2]->delta_block64(v, k, prev, gd, &gmin, gors);
                CHECK_MSG(glast == wlast && gmin == wmin && memcmp(gd, wd, sizeof wd) == 0 &&
                              memcmp(gors, wors, sizeof wors) == 0,
                          "%s delta_block%s k %zu shape %d", pk_simd_level_name(sets[s2]->level),
                          is32 ? "32" : "64", k, shape);
                cases++;
            }
        }
    }
    fprintf(stderr, "delta_block: %lld cases\n", (long long)cases);
}

/* Whole DELTA_BINARY_PACKED pages through pk_encode_values: the kernels of
 * every level write the bytes the scalar encoder (kernels NULL) writes, for
 * INT32 and INT64 pages of 0..4096 values (partial blocks and miniblocks,
 * widths up to 64 bits). */
static void test_delta_pages(const pk_kernels *const *sets, int nsets) {
    static uint8_t vals[4096 * 8 + 8];
    int64_t cases = 0;
    for (size_t n = 0; n <= 4096; n += (n < 300 ? 1 : 1 + rnd() % 200)) {
        int shape = (int)(n % 4);
        uint64_t base = rnd();
        for (size_t i = 0; i < n; i++) {
            uint64_t x = rnd();
            if (shape == 1) x = base + i * 7 + rnd() % 5;     /* sorted, narrow deltas */
            if (shape == 2) x = rnd() % 100000;              /* small values */
            if (shape == 3) x = i % 64 ? base : rnd();       /* mostly equal */
            memcpy(vals + 8 * i, &x, 8);
        }
        for (int t = 0; t < 2; t++) {
            pk_values v = {.type = t ? PLANK_INT64 : PLANK_INT32, .width = t ? 8 : 4,
                           .n = (int64_t)n, .fixed = vals};
            pk_buffer want;
            pk_buffer_init(&want, NULL);
            plank_error err;
            CHECK(pk_encode_values(PLANK_ENC_DELTA_BINARY_PACKED, &v, &want, NULL, &err) ==
                  PLANK_OK);
            for (int s2 = 0; s2 < nsets; s2++) {
                pk_buffer got;
                pk_buffer_init(&got, NULL);
                CHECK(pk_encode_values(PLANK_ENC_DELTA_BINARY_PACKED, &v, &got, sets[s2],
                                       &err) == PLANK_OK);
                CHECK_MSG(got.size == want.size && memcmp(got.data, want.data, got.size) == 0,
                          "%s DELTA page of %zu %s values differs",
                          pk_simd_level_name(sets[s2]->level), n, t ? "INT64" : "INT32");
                pk_buffer_reset(&got);
                cases++;
            }
            pk_buffer_reset(&want);
        }
    }
    fprintf(stderr, "DELTA pages: %lld cases\n", (long long)cases);
}

/* ---- the dictionary builder's hashes ------------------------------------------ */

/* The hashes written out here from their definition: the finalizer, a value plus the
 * first constant, and a short string's two zero-padded words assembled byte by byte. */
static const uint64_t HK1 = 0x9E3779B97F4A7C15ull, HK2 = 0xC2B2AE3D27D4EB4Full;
static uint64_t ref_finish(uint64_t h) {
    h ^= h >> 31;
    h *= HK2;
    h ^= h >> 29;
    h *= HK1;
    return h ^ (h >> 32);
}
static uint64_t ref_word(const uint8_t *p, size_t len, size_t from) {
    uint64_t w = 0;
    for (size_t k = 0; k < 8 && from + k < len; k++) w |= (uint64_t)p[from + k] << (8 * k);
    return w;
}

/* hash_fixed32 / hash_fixed64: lengths 0..4096, inputs at offsets 0..7, nothing written
 * past out[n). hash_short: strings of 0..24 bytes (those over 16 only need not crash),
 * each with exactly 16 readable bytes from its start (ASan sees any read further). */
static void test_hash(const pk_kernels *const *sets, int nsets) {
    static uint8_t in[MAXN * 8 + 16];
    static uint64_t want[MAXN + 8], got[MAXN + 8], wa[MAXN + 8], wb[MAXN + 8];
    for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)rnd();
    int64_t cases = 0;
    for (int w = 4; w <= 8; w += 4) {
        for (size_t n = 0; n <= MAXN; n += n < 64 ? 1 : 1 + rnd() % 200) {
            size_t off = rnd() % 8;
            const uint8_t *v = in + off;
            for (size_t i = 0; i < n; i++) want[i] = ref_finish(ref_word(v + i * (size_t)w, (size_t)w, 0) + HK1);
            for (int s = 0; s < nsets; s++) {
                for (size_t i = 0; i < n + 8; i++) got[i] = 0xC0FFEE;
                (w == 4 ? sets[s]->hash_fixed32 : sets[s]->hash_fixed64)(v, n, got);
                bool ok = memcmp(got, want, n * 8) == 0;
                for (size_t i = n; i < n + 8; i++) ok &= got[i] == 0xC0FFEE;
                CHECK_MSG(ok, "hash_fixed%d n %zu offset %zu level %s", 8 * w, n, off,
                          pk_simd_level_name(sets[s]->level));
                cases++;
            }
        }
    }
    static int64_t offs[MAXN + 1];
    for (size_t n = 0; n <= MAXN; n += n < 64 ? 1 : 1 + rnd() % 300) {
        size_t total = 0;
        offs[0] = 0;
        for (size_t i = 0; i < n; i++) {
            size_t len = rnd() % 25;
            if (rnd() % 4 == 0) len = rnd() % 3; /* many empty and tiny strings */
            total += len;
            offs[i + 1] = (int64_t)total;
        }
        uint8_t *data = malloc(total + 16);
        for (size_t i = 0; i < total + 16; i++) data[i] = (uint8_t)rnd();
        for (size_t s_ = 0; s_ < (size_t)nsets; s_++) {
            const pk_kernels *k = sets[s_];
            for (size_t i = 0; i < n + 8; i++) got[i] = wa[i] = wb[i] = 0xC0FFEE;
            k->hash_short(data, offs, n, wa, wb, got);
            bool ok = true;
            for (size_t i = 0; i < n; i++) {
                size_t len = (size_t)(offs[i + 1] - offs[i]);
                if (len > 16) continue;
                const uint8_t *p = data + offs[i];
                uint64_t a = ref_word(p, len, 0), b = ref_word(p, len, 8);
                uint64_t t = b + (uint64_t)len * HK2;
                uint64_t h = ref_finish(((a ^ HK2) * HK1) ^ ((t << 29) | (t >> 35)));
                ok &= wa[i] == a && wb[i] == b && got[i] == h;
            }
            for (size_t i = n; i < n + 8; i++) ok &= got[i] == 0xC0FFEE && wa[i] == 0xC0FFEE && wb[i] == 0xC0FFEE;
            CHECK_MSG(ok, "hash_short n %zu level %s", n, pk_simd_level_name(k->level));
            cases++;
        }
        free(data);
    }
    fprintf(stderr, "hash: %lld cases\n", (long long)cases);
}

int main(void) {
    const pk_kernels *sets[PK_SIMD_AVX512 + 1];
    int n = simd_sets(sets);
    test_pack(sets, n);
    test_pack64(sets, n);
    test_rle_scan(sets, n);
    test_minmax(sets, n);
    test_minmax_float(sets, n);
    test_delta_block(sets, n);
    test_delta_pages(sets, n);
    test_hash(sets, n);
    TEST_END();
}
