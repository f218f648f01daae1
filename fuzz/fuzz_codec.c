/*
 * fuzz_codec.c: every codec through pk_decompress.
 *
 * Input: [0] codec (value % 8, so LZO and unbuilt codecs are covered too),
 * [1..3] the declared uncompressed size (little-endian, at most 4 MiB), then
 * the compressed bytes. The output buffer has exactly the declared size, so
 * AddressSanitizer catches a write past it.
 *
 * The same input also goes through pk_decompress_buffer (what the column
 * reader uses: sizes checked against the codec before allocating, growing
 * output for BROTLI/ZSTD). Both must agree: the same success or failure and
 * the same bytes, so a size bound that refuses a valid page is caught.
 *
 * Both also run through one pk_decompressor kept for every input, as a
 * column reader keeps one for all its pages: what an input leaves in it
 * must not change the next input's status, message or bytes.
 *
 * SNAPPY is plank's own both ways (pk_snappy.c). Decoding: its outcome must
 * be libsnappy's, the same acceptance and the same bytes. Encoding: the
 * input's compressed bytes (a SNAPPY input taken as data to compress) fit
 * the bound and decompress, by plank and by libsnappy, to the input.
 */
#include "fuzz_common.h"
#include "codec/pk_codec.h"
#ifdef PLANK_HAVE_SNAPPY
#include <snappy-c.h>
#endif

static pk_decompressor fz_dc;
static int fz_dc_ready;

/* The same outcome: status, message, and (on success) n bytes. */
static void fz_same(plank_status a, const plank_error *ea, const uint8_t *pa, plank_status b,
                    const plank_error *eb, const uint8_t *pb, size_t n, const char *what) {
    if (a != b || strcmp(ea->message, eb->message) != 0 ||
        (a == PLANK_OK && n && memcmp(pa, pb, n) != 0)) {
        fprintf(stderr, "%s: reused decompressor: %d %s\nfresh: %d %s\n", what, (int)a,
                ea->message, (int)b, eb->message);
        abort();
    }
}

/* plank's SNAPPY compressor on n bytes: within the bound, and back to them
 * through plank's decoder and libsnappy's. */
static void fz_snappy_round_trip(const uint8_t *src, size_t n) {
    size_t cap = pk_snappy_bound(n), got = 0;
    uint8_t *z = malloc(cap), *back = malloc(n ? n : 1);
    uint16_t *table = malloc(PK_SNAPPY_TABLE * sizeof *table);
    plank_error err;
    plank_error_init(&err);
    if (pk_snappy_compress(src, n, z, cap, &got, table, &err) != PLANK_OK || got > cap ||
        pk_snappy_decompress(z, got, back, n, &err) != PLANK_OK || (n && memcmp(back, src, n))) {
        fprintf(stderr, "SNAPPY round trip of %zu bytes: %s\n", n, err.message);
        abort();
    }
#ifdef PLANK_HAVE_SNAPPY
    size_t lib_n = n;
    if (snappy_uncompress((const char *)z, got, (char *)back, &lib_n) != SNAPPY_OK ||
        lib_n != n || (n && memcmp(back, src, n))) {
        fprintf(stderr, "SNAPPY: libsnappy refuses plank's compression of %zu bytes\n", n);
        abort();
    }
#endif
    free(table);
    free(back);
    free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size};
    plank_codec codec = (plank_codec)(fz_take(&in, 1) % 8);
    size_t out_len = fz_take(&in, 3) & ((1u << 22) - 1);
    uint8_t *src = malloc(in.n ? in.n : 1);
    memcpy(src, in.p, in.n);
    uint8_t *dst = malloc(out_len ? out_len : 1);
    plank_error err;
    plank_error_init(&err);
    plank_status st = pk_decompress(codec, in.n ? src : NULL, in.n, out_len ? dst : NULL,
                                    out_len, &fz_allocator, &err);
    fz_check_error(st, &err);
    pk_buffer buf;
    pk_buffer_init(&buf, &fz_allocator);
    plank_error err2;
    plank_error_init(&err2);
    plank_status st2 = pk_decompress_buffer(codec, src, in.n, out_len, &buf, &fz_allocator, &err2);
    fz_check_error(st2, &err2);
    if ((st == PLANK_OK) != (st2 == PLANK_OK)) {
        fprintf(stderr, "pk_decompress: %s\npk_decompress_buffer: %s\n",
                st ? err.message : "ok", st2 ? err2.message : "ok");
        abort();
    }
    if (st == PLANK_OK && (buf.size != out_len || (out_len && memcmp(buf.data, dst, out_len))))
        abort();
#ifdef PLANK_HAVE_SNAPPY
    if (codec == PLANK_CODEC_SNAPPY && in.n > 0) {
        size_t declared = 0, got = out_len;
        uint8_t *ref = malloc(out_len ? out_len : 1);
        bool lib_ok = snappy_uncompressed_length((const char *)src, in.n, &declared) ==
                          SNAPPY_OK && declared == out_len &&
                      snappy_uncompress((const char *)src, in.n, (char *)ref, &got) == SNAPPY_OK &&
                      got == out_len;
        if (lib_ok != (st == PLANK_OK) || (lib_ok && out_len && memcmp(ref, dst, out_len))) {
            fprintf(stderr, "SNAPPY: plank %s, libsnappy %s\n", st ? err.message : "ok",
                    lib_ok ? "ok" : "refuses");
            abort();
        }
        free(ref);
    }
#endif

    if (!fz_dc_ready) {
        pk_decompressor_init(&fz_dc, &fz_allocator);
        fz_dc_ready = 1;
    }
    uint8_t *dst3 = malloc(out_len ? out_len : 1);
    plank_error err3;
    plank_error_init(&err3);
    plank_status st3 = pk_decompress_with(&fz_dc, codec, in.n ? src : NULL, in.n,
                                          out_len ? dst3 : NULL, out_len, &err3);
    fz_same(st3, &err3, dst3, st, &err, dst, out_len, "pk_decompress_with");
    free(dst3);
    pk_buffer buf3;
    pk_buffer_init(&buf3, &fz_allocator);
    plank_error_init(&err3);
    st3 = pk_decompress_buffer_with(&fz_dc, codec, src, in.n, out_len, &buf3, &err3);
    fz_same(st3, &err3, buf3.data, st2, &err2, buf.data, out_len, "pk_decompress_buffer_with");
    pk_buffer_reset(&buf3);
    pk_buffer_reset(&buf);
    if (codec == PLANK_CODEC_SNAPPY) fz_snappy_round_trip(src, in.n);
    free(dst);
    free(src);
    return 0;
}
