/*
 * pk_variant_api.c: the public VARIANT builder (plank.h, "VARIANT values"):
 * JSON text to a metadata and value pair, through one pk_vwriter in own
 * mode that the builder keeps across calls (its buffers are reused).
 */
#include "pk_variant.h"

struct plank_variant_builder {
    const plank_allocator *alloc;
    pk_vwriter w;
    pk_buffer metadata;
    const uint8_t *value;
    size_t value_len;
};

plank_status plank_variant_builder_new(plank_variant_builder **out, const plank_allocator *a,
                                       plank_error *err) {
    plank_error_init(err);
    PK_RETURN_IF(!out, err, PLANK_ERR_INVALID_ARGUMENT, "plank_variant_builder_new: out is NULL");
    *out = NULL;
    if (!a) a = pk_default_allocator();
    plank_variant_builder *b = pk_calloc(a, sizeof *b);
    PK_RETURN_IF(!b, err, PLANK_ERR_OUT_OF_MEMORY, "plank_variant_builder_new: out of memory");
    b->alloc = a;
    pk_vw_init(&b->w, a);
    pk_buffer_init(&b->metadata, a);
    *out = b;
    return PLANK_OK;
}

void plank_variant_builder_free(plank_variant_builder *b) {
    if (!b) return;
    pk_vw_free(&b->w);
    pk_buffer_reset(&b->metadata);
    pk_free(b->alloc, b, sizeof *b);
}

plank_status plank_variant_from_json(plank_variant_builder *b, const char *json, size_t len,
                                     plank_error *err) {
    plank_error_init(err);
    PK_RETURN_IF(!b, err, PLANK_ERR_INVALID_ARGUMENT, "plank_variant_from_json: builder is NULL");
    b->value = NULL;
    b->value_len = 0;
    b->metadata.size = 0;
    PK_RETURN_IF(!json && len > 0, err, PLANK_ERR_INVALID_ARGUMENT,
                 "plank_variant_from_json: json is NULL");
    plank_status st = pk_variant_from_json(&b->w, json, len, err);
    const uint8_t *v = NULL;
    size_t n = 0;
    if (st == PLANK_OK) st = pk_vw_finish(&b->w, &v, &n, err);
    if (st == PLANK_OK) st = pk_vw_finish_metadata(&b->w, &b->metadata, err);
    if (st != PLANK_OK) {
        b->metadata.size = 0;
        return st;
    }
    b->value = v;
    b->value_len = n;
    return PLANK_OK;
}

void plank_variant_builder_result(const plank_variant_builder *b, const uint8_t **metadata,
                                  size_t *metadata_len, const uint8_t **value, size_t *value_len) {
    bool ok = b && b->value;
    if (metadata) *metadata = ok ? b->metadata.data : NULL;
    if (metadata_len) *metadata_len = ok ? b->metadata.size : 0;
    if (value) *value = ok ? b->value : NULL;
    if (value_len) *value_len = ok ? b->value_len : 0;
}
