/*
 * fuzz_variant.c: VARIANT values as hostile bytes, and JSON text as hostile
 * input to the variant encoder.
 *
 * Input: byte 0 says where the metadata ends (byte 0 % (size) of the rest);
 * the rest is metadata then value. Both are decoded (validate, JSON text
 * into a buffer that is too small and then one large enough: the two texts
 * must agree). The whole input is also given to plank_variant_from_json as
 * JSON text; whatever it encodes must validate and print.
 */
#include "fuzz_common.h"

static void decode(const uint8_t *m, size_t ml, const uint8_t *v, size_t vl) {
    plank_error err;
    char small[8], big[1 << 16];
    size_t len = 0, len2 = 0;
    plank_status a = plank_variant_validate(m, ml, v, vl, &err);
    plank_status b = plank_variant_to_json(m, ml, v, vl, small, sizeof small, &len, &fz_allocator, &err);
    if (b == PLANK_OK && len < sizeof big) {
        if (plank_variant_to_json(m, ml, v, vl, big, sizeof big, &len2, NULL, &err) != PLANK_OK ||
            len2 != len || strncmp(small, big, sizeof small - 1) != 0)
            abort();
    }
    /* A valid value (no trailing bytes) always prints. */
    if (a == PLANK_OK && b != PLANK_OK) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t split = data[0] % (size - 1);
    decode(data + 1, split, data + 1 + split, size - 1 - split);

    plank_variant_builder *b;
    plank_error err;
    if (plank_variant_builder_new(&b, &fz_allocator, &err) != PLANK_OK) abort();
    if (plank_variant_from_json(b, (const char *)data, size, &err) == PLANK_OK) {
        const uint8_t *m, *v;
        size_t ml, vl;
        plank_variant_builder_result(b, &m, &ml, &v, &vl);
        if (plank_variant_validate(m, ml, v, vl, &err) != PLANK_OK) abort();
        decode(m, ml, v, vl);
    }
    plank_variant_builder_free(b);
    return 0;
}
