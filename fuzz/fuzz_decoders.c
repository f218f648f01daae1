/*
 * fuzz_decoders.c: every value decoder through pk_decoder_init/get/skip,
 * plus the RLE/bit-packed hybrid, DELTA_BINARY_PACKED and legacy BIT_PACKED
 * decoders directly.
 *
 * Input layout (little-endian):
 *   [0]    selector: < 80: encoding (sel / 8 of the table below) x physical
 *          type (sel % 8) through pk_decoder; 80..87: pk_rle_*; 88, 89:
 *          pk_delta_* (INT32, INT64); 90: legacy BIT_PACKED levels
 *   [1]    type_length (FIXED_LEN_BYTE_ARRAY width; bit width for 80..90)
 *   [2..3] num_values
 *   [4..5] dictionary bytes (taken from what follows the header)
 *   [6..7] dictionary value count
 *   [8]    seed of the get/skip schedule (chunk sizes 1..257 or the rest)
 *   then the dictionary bytes, then the page's value bytes.
 *
 * Every pk_decoder run is repeated with each kernel table the machine can
 * run (scalar, AVX2, ...) and must give the scalar reference code's values
 * and outcome exactly.
 *
 * Checks beyond "no crash": exactly num_values values can be consumed and
 * one more is an error; byte-array ends are non-decreasing and inside the
 * data buffer; every failure carries its status and a message.
 */
#include "fuzz_common.h"
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"

static const plank_encoding encodings[10] = {
    PLANK_ENC_PLAIN, PLANK_ENC_PLAIN_DICTIONARY, PLANK_ENC_RLE, PLANK_ENC_BIT_PACKED,
    PLANK_ENC_DELTA_BINARY_PACKED, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY, PLANK_ENC_DELTA_BYTE_ARRAY,
    PLANK_ENC_RLE_DICTIONARY, PLANK_ENC_BYTE_STREAM_SPLIT, (plank_encoding)1 /* unknown */};

#define FZ_FAIL(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), abort())

static int64_t chunk(uint32_t *seed, int64_t left) {
    uint32_t r = fz_next(seed);
    if ((r & 0xff) == 0) return left;
    return 1 + (int64_t)((r >> 8) % 257);
}

/* FNV-1a over what a decode produced: the outputs of every level must agree. */
static uint64_t digest(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Decodes the page with kernel table k (NULL: the scalar reference code) and
 * returns a digest of the values, the byte-array ends and the outcome. */
static uint64_t run_decoder(plank_encoding enc, plank_physical_type type, int32_t type_length,
                            int64_t num_values, const uint8_t *dict_bytes, size_t dict_len,
                            int64_t dict_count, const uint8_t *page, size_t page_len,
                            uint32_t seed, const pk_kernels *k_table) {
    uint64_t h = 0xcbf29ce484222325ULL;
    plank_error err;
    plank_error_init(&err);
    pk_dict dict;
    bool have_dict = false;
    if (dict_len > 0 || dict_count > 0) {
        plank_status st = pk_dict_decode(&dict, type, type_length, dict_bytes, dict_len,
                                         dict_count, &fz_allocator, &err);
        fz_check_error(st, &err);
        have_dict = st == PLANK_OK;
    }
    pk_decoder d;
    plank_status st = pk_decoder_init(&d, enc, type, type_length, page, page_len, num_values,
                                      have_dict ? &dict : NULL, &fz_allocator, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) {
        if (have_dict) pk_dict_release(&dict);
        return digest(h, &st, sizeof st);
    }
    pk_decoder_use_kernels(&d, k_table);
    pk_buffer data;
    pk_buffer_init(&data, &fz_allocator);
    int64_t done = 0;
    bool failed = false;
    while (done < num_values && !failed) {
        int64_t left = num_values - done;
        int64_t k = chunk(&seed, left);
        if (k > left) k = left;
        if (fz_next(&seed) % 4 == 0) {
            st = pk_decoder_skip(&d, k, &err);
        } else if (type == PLANK_BYTE_ARRAY) {
            int64_t *ends = malloc((size_t)k * sizeof *ends);
            size_t before = data.size;
            st = pk_decoder_get_binary(&d, k, &data, ends, &err);
            if (st == PLANK_OK) {
                int64_t prev = (int64_t)before;
                for (int64_t i = 0; i < k; i++) {
                    if (ends[i] < prev || (uint64_t)ends[i] > data.size)
                        FZ_FAIL("byte array end %lld after %lld (data %zu)", (long long)ends[i],
                                (long long)prev, data.size);
                    prev = ends[i];
                }
            }
            if (st == PLANK_OK) {
                if (data.size > before) h = digest(h, data.data + before, data.size - before);
                for (int64_t i = 0; i < k; i++) {
                    int64_t len = ends[i] - (i ? ends[i - 1] : (int64_t)before);
                    h = digest(h, &len, sizeof len);
                }
            }
            free(ends);
            if (data.size > (1u << 24)) data.size = 0; /* keep memory bounded */
        } else if (type != PLANK_BOOLEAN && fz_next(&seed) % 3 == 0) {
            /* Only some values needed (live bits, 8 readable bytes past
             * them): DELTA pages with kernels pass over the blocks without
             * one; the live values must be the reference's. */
            size_t w = (size_t)d.width;
            uint8_t *out = malloc((size_t)k * w);
            uint8_t *live = calloc((size_t)k / 8 + 9, 1);
            uint32_t every = 1 + fz_next(&seed) % 300;
            for (int64_t i = 0; i < k; i++)
                if (fz_next(&seed) % every == 0) live[i >> 3] |= (uint8_t)(1u << (i & 7));
            st = pk_decoder_get_fixed_bounded(&d, k, out, NULL, live, 0, &err);
            for (int64_t i = 0; st == PLANK_OK && i < k; i++)
                if ((live[i >> 3] >> (i & 7)) & 1) h = digest(h, out + (size_t)i * w, w);
            free(live);
            free(out);
        } else {
            uint8_t *out = malloc((size_t)k * (size_t)d.width);
            st = pk_decoder_get_fixed(&d, k, out, &err);
            if (st == PLANK_OK && type == PLANK_BOOLEAN)
                for (int64_t i = 0; i < k; i++)
                    if (out[i] > 1) FZ_FAIL("boolean decoded as %u", out[i]);
            if (st == PLANK_OK) h = digest(h, out, (size_t)k * (size_t)d.width);
            free(out);
        }
        fz_check_error(st, &err);
        failed = st != PLANK_OK;
        if (!failed) done += k;
    }
    if (!failed) {
        /* The page is exhausted: one more value must be refused. */
        st = pk_decoder_skip(&d, 1, &err);
        if (st == PLANK_OK) FZ_FAIL("skip past the last of %lld values succeeded",
                                    (long long)num_values);
        fz_check_error(st, &err);
    }
    pk_buffer_reset(&data);
    pk_decoder_release(&d);
    if (have_dict) pk_dict_release(&dict);
    h = digest(h, &done, sizeof done);
    return digest(h, &failed, sizeof failed);
}

static void run_rle(const uint8_t *buf, size_t len, int bit_width, int64_t n, uint32_t seed) {
    plank_error err;
    plank_error_init(&err);
    pk_rle_decoder d;
    plank_status st = pk_rle_init(&d, buf, len, bit_width, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) return;
    uint64_t limit = bit_width >= 32 ? UINT32_MAX : ((uint64_t)1 << bit_width) - 1;
    for (int64_t done = 0; done < n && st == PLANK_OK;) {
        int64_t k = chunk(&seed, n - done);
        if (k > n - done) k = n - done;
        switch (fz_next(&seed) % 3) {
        case 0: st = pk_rle_skip(&d, k, &err); break;
        case 1: {
            uint32_t *out = malloc((size_t)k * sizeof *out);
            st = pk_rle_get_u32(&d, out, k, &err);
            for (int64_t i = 0; st == PLANK_OK && i < k; i++)
                if (out[i] > limit) FZ_FAIL("RLE value %u above %d bits", out[i], bit_width);
            free(out);
            break;
        }
        default: {
            int16_t *out = malloc((size_t)k * sizeof *out);
            st = pk_rle_get_i16(&d, out, k, &err);
            free(out);
            break;
        }
        }
        fz_check_error(st, &err);
        done += k;
    }
}

static void run_delta(const uint8_t *buf, size_t len, bool is64, uint32_t seed) {
    plank_error err;
    plank_error_init(&err);
    pk_delta_decoder d;
    plank_status st = pk_delta_init(&d, buf, len, is64, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) return;
    /* Bounded: a header may claim billions of values. */
    int64_t budget = 1 << 20;
    while (st == PLANK_OK && pk_delta_remaining(&d) > 0 && budget > 0) {
        int64_t left = pk_delta_remaining(&d);
        int64_t k = chunk(&seed, left);
        if (k > left) k = left;
        if (k > budget) k = budget;
        switch (fz_next(&seed) % 4) {
        case 0: st = pk_delta_skip(&d, k, &err); break;
        case 1: {
            int32_t *out = malloc((size_t)k * sizeof *out);
            st = pk_delta_get_i32(&d, out, k, &err);
            free(out);
            break;
        }
        case 2: {
            int64_t *out = malloc((size_t)k * sizeof *out);
            st = pk_delta_get_i64(&d, out, k, &err);
            free(out);
            break;
        }
        default: {
            uint64_t *out = malloc((size_t)k * sizeof *out);
            st = pk_delta_get(&d, out, k, &err);
            free(out);
            break;
        }
        }
        fz_check_error(st, &err);
        if (st == PLANK_OK && pk_delta_remaining(&d) != left - k)
            FZ_FAIL("delta remaining %lld after taking %lld of %lld",
                    (long long)pk_delta_remaining(&d), (long long)k, (long long)left);
        budget -= k;
    }
    if (st == PLANK_OK && pk_delta_remaining(&d) == 0) {
        const uint8_t *end = NULL;
        st = pk_delta_end(&d, &end, &err);
        fz_check_error(st, &err);
        if (st == PLANK_OK && (end < buf || end > buf + len))
            FZ_FAIL("delta end %td bytes from the start of %zu", end - buf, len);
        if (pk_delta_skip(&d, 1, &err) == PLANK_OK) FZ_FAIL("delta skip past the end succeeded");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size};
    unsigned sel = fz_take(&in, 1) % 91;
    int32_t type_length = (int32_t)fz_take(&in, 1);
    int64_t num_values = fz_take(&in, 2);
    size_t dict_len = fz_take(&in, 2);
    int64_t dict_count = fz_take(&in, 2);
    uint32_t seed = fz_take(&in, 1) * 0x01010101u + 1;
    if (dict_len > in.n) dict_len = in.n;
    /* Exact-size copies so any over-read is caught. */
    uint8_t *dict_bytes = malloc(dict_len ? dict_len : 1);
    memcpy(dict_bytes, in.p, dict_len);
    size_t page_len = in.n - dict_len;
    uint8_t *page = malloc(page_len ? page_len : 1);
    memcpy(page, in.p + dict_len, page_len);

    if (sel < 80) {
        /* the scalar reference, then every kernel table this machine runs:
         * each must decode (or refuse) the page exactly like the reference */
        uint64_t ref = run_decoder(encodings[sel / 8], (plank_physical_type)(sel % 8),
                                   type_length, num_values, dict_bytes, dict_len, dict_count,
                                   page, page_len, seed, NULL);
        const pk_kernels *tables[PK_SIMD_AVX512 + 1];
        int nt = pk_kernels_available(tables);
        for (int t = 0; t < nt; t++) {
            uint64_t got = run_decoder(encodings[sel / 8], (plank_physical_type)(sel % 8),
                                       type_length, num_values, dict_bytes, dict_len,
                                       dict_count, page, page_len, seed, tables[t]);
            if (got != ref)
                FZ_FAIL("kernel level %s decodes differently from the scalar reference",
                        pk_simd_level_name(tables[t]->level));
        }
    } else if (sel < 88) {
        run_rle(page, page_len, type_length % 34, num_values, seed);
    } else if (sel < 90) {
        run_delta(page, page_len, sel == 89, seed);
    } else {
        int bw = type_length % 18;
        int16_t *out = malloc((size_t)(num_values ? num_values : 1) * sizeof *out);
        plank_error err;
        plank_error_init(&err);
        plank_status st = pk_bitpacked_legacy_get_i16(page, page_len, bw, out, num_values, &err);
        fz_check_error(st, &err);
        for (int64_t i = 0; st == PLANK_OK && i < num_values; i++)
            if (out[i] < 0 || out[i] >= (1 << bw)) FZ_FAIL("legacy level %d at %d bits", out[i], bw);
        free(out);
    }
    free(page);
    free(dict_bytes);
    return 0;
}
