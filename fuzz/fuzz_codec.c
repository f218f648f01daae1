/*
 * fuzz_codec.c: every codec through pk_decompress.
 *
 * Input: [0] codec (value % 8, so LZO and unbuilt codecs are covered too),
 * [1..3] the declared uncompressed size (little-endian, at most 4 MiB), then
 * the compressed bytes. The output buffer has exactly the declared size, so
 * AddressSanitizer catches a write past it.
 */
#include "fuzz_common.h"
#include "codec/pk_codec.h"

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
    free(dst);
    free(src);
    return 0;
}
