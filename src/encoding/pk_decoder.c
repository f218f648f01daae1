/*
 * pk_decoder.c: the value decoder of one data page (PLAIN, dictionary
 * indices, RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT) and PLAIN dictionary pages.
 *
 * Hostile input: sizes that can be checked up front are checked at init
 * (PLAIN fixed-width and BYTE_STREAM_SPLIT page sizes, the value counts of
 * DELTA headers against num_values, every DELTA length and prefix and their
 * sum against the bytes present), so that for those encodings a get after a
 * successful init can only fail on a caller error. PLAIN byte arrays and
 * dictionary indices are checked value by value as they are decoded. The only
 * allocations are the DELTA length arrays (num_values entries, num_values
 * being bounded by the caller) and the output buffers.
 */
#include "pk_delta_fast.h"
#include "pk_encoding_internal.h"

#include "../simd/pk_kernels.h"

/* ---- Dictionary pages ------------------------------------------------------ */

static plank_status dict_decode(pk_dict *dict, plank_physical_type type, int32_t type_length,
                                const uint8_t *buf, size_t len, int64_t count, plank_error *err) {
    dict->type = type;
    int32_t w = pk_physical_width(type, type_length);
    PK_RETURN_IF(w < 0, err, PLANK_ERR_CORRUPT, "dictionary page of invalid type %d (length %d)",
                 (int)type, (int)type_length);
    PK_RETURN_IF(count < 0, err, PLANK_ERR_CORRUPT, "dictionary page has %lld values",
                 (long long)count);
    dict->width = w;
    dict->count = count;
    if (type == PLANK_BOOLEAN) {
        PK_RETURN_IF((uint64_t)count > (uint64_t)len * 8, err, PLANK_ERR_CORRUPT,
                     "dictionary page: %lld booleans need more than %zu bytes",
                     (long long)count, len);
        PK_FORWARD(pk_buffer_resize(&dict->storage, (size_t)count, err));
        for (int64_t i = 0; i < count; i++) dict->storage.data[i] = pk_bit_get(buf, i);
        dict->values = dict->storage.data;
    } else if (type != PLANK_BYTE_ARRAY) {
        PK_RETURN_IF((uint64_t)count > (uint64_t)len / (uint64_t)w, err, PLANK_ERR_CORRUPT,
                     "dictionary page: %lld values of %d bytes need more than %zu bytes",
                     (long long)count, (int)w, len);
        size_t n = (size_t)count * (size_t)w;
        PK_FORWARD(pk_buffer_resize(&dict->storage, n, err));
        if (n) memcpy(dict->storage.data, buf, n);
        dict->values = dict->storage.data;
    } else {
        /* Each value has a 4-byte length: this bounds the offsets array. */
        PK_RETURN_IF((uint64_t)count > (uint64_t)len / 4, err, PLANK_ERR_CORRUPT,
                     "dictionary page: %lld byte arrays need more than %zu bytes",
                     (long long)count, len);
        PK_FORWARD(pk_buffer_resize(&dict->storage, ((size_t)count + 1) * sizeof(int64_t), err));
        int64_t *offsets = (int64_t *)(void *)dict->storage.data;
        PK_FORWARD(pk_buffer_reserve(&dict->storage2, len, err));
        size_t pos = 0, total = 0;
        uint32_t ors = 0;
        offsets[0] = 0;
        for (int64_t i = 0; i < count; i++) {
            PK_RETURN_IF(len - pos < 4, err, PLANK_ERR_CORRUPT,
                         "dictionary page: value %lld length at byte %zu is truncated",
                         (long long)i, pos);
            uint32_t l = pk_load_u32(buf + pos);
            pos += 4;
            PK_RETURN_IF(l > len - pos, err, PLANK_ERR_CORRUPT,
                         "dictionary page: value %lld at byte %zu has length %u, %zu bytes remain",
                         (long long)i, pos - 4, (unsigned)l, len - pos);
            ors |= l;
            /* one 64-byte move for most entries (no branch on the length);
             * storage2's capacity, len, leaves room for the overhang */
            if (l <= 64 && len - pos >= 64) {
                memcpy(dict->storage2.data + total, buf + pos, 64);
            } else {
                memcpy(dict->storage2.data + total, buf + pos, l);
            }
            pos += l;
            total += l;
            offsets[i + 1] = (int64_t)total;
        }
        dict->move = ors < 16 ? 16 : ors < 32 ? 32 : ors < 64 ? 64 : 0;
        dict->storage2.size = total;
        memset(dict->storage2.data + total, 0, PK_BUFFER_PADDING); /* moves' overhang */
        dict->offsets = offsets;
        dict->data = dict->storage2.data;
        if (count > 0 && count <= PK_DICT_SHORT_COUNT && (int64_t)total <= 32 * count) {
            int64_t longest = 0;
            for (int64_t i = 0; i < count; i++)
                if (offsets[i + 1] - offsets[i] > longest) longest = offsets[i + 1] - offsets[i];
            if (longest <= 32) {
                size_t sw = longest <= 16 ? 16 : 32;
                PK_FORWARD(pk_buffer_resize(&dict->storage3, (size_t)count * (sw + 1), err));
                uint8_t *slots = dict->storage3.data, *lens = slots + (size_t)count * sw;
                memset(slots, 0, (size_t)count * sw);
                for (int64_t i = 0; i < count; i++) {
                    size_t l = (size_t)(offsets[i + 1] - offsets[i]);
                    memcpy(slots + (size_t)i * sw, dict->data + offsets[i], l);
                    lens[i] = (uint8_t)l;
                }
                dict->short_slots = slots;
                dict->short_lens = lens;
                dict->short_width = (int32_t)sw;
            }
        }
    }
    return PLANK_OK;
}

/* On failure the dictionary is released (and stays safe to release again). */
plank_status pk_dict_decode(pk_dict *dict, plank_physical_type type, int32_t type_length,
                            const uint8_t *buf, size_t len, int64_t count,
                            const plank_allocator *alloc, plank_error *err) {
    memset(dict, 0, sizeof *dict);
    pk_buffer_init(&dict->storage, alloc);
    pk_buffer_init(&dict->storage2, alloc);
    pk_buffer_init(&dict->storage3, alloc);
    plank_status st = dict_decode(dict, type, type_length, buf, len, count, err);
    if (st != PLANK_OK) pk_dict_release(dict);
    return st;
}

void pk_dict_release(pk_dict *dict) {
    if (!dict) return;
    pk_buffer_reset(&dict->storage);
    pk_buffer_reset(&dict->storage2);
    pk_buffer_reset(&dict->storage3);
    dict->short_slots = NULL;
    dict->short_lens = NULL;
    dict->values = NULL;
    dict->offsets = NULL;
    dict->data = NULL;
    dict->count = 0;
}

/* ---- Init / release -------------------------------------------------------- */

void pk_decoder_release(pk_decoder *d) {
    if (!d) return;
    /* Length arrays hold num_values + 1 entries (never a zero-size block). */
    size_t n = d->num_values > 0 ? (size_t)d->num_values + 1 : 1;
    if (!d->keep) {
        pk_free(d->alloc, d->lengths, n * sizeof(uint32_t));
        pk_free(d->alloc, d->prefixes, n * sizeof(uint32_t));
        pk_free(d->alloc, d->suffix_offsets, n * sizeof(uint32_t));
    }
    d->lengths = d->prefixes = d->suffix_offsets = NULL;
    pk_buffer_reset(&d->last);
}

/* The decoder's kernels when given at init (pk_decoder_init_k), else the
 * scalar ones (valid at every level). */
static const pk_kernels *kernels_of(const pk_decoder *d) {
    return d->kernels ? d->kernels : pk_kernels_for(PK_SIMD_SCALAR);
}

/* The first of n lengths above INT32_MAX (negative as the format's INT32),
 * reported; called once a sum's OR said there is one. */
static plank_status negative_length(const uint32_t *a, int64_t n, const char *what,
                                    plank_error *err) {
    for (int64_t i = 0; i < n; i++)
        PK_RETURN_IF(a[i] > (uint32_t)INT32_MAX, err, PLANK_ERR_CORRUPT,
                     "%s: value %lld has negative length %lld", what, (long long)i,
                     (long long)(int32_t)a[i]);
    return PLANK_OK;
}

/* A new array of d->num_values + 1 uint32_t in *out (owned by d from there
 * on): kept's memory when the caller keeps arrays across pages. */
static plank_status length_array(pk_decoder *d, const char *what, pk_buffer *kept,
                                 uint32_t **out, plank_error *err) {
    PK_RETURN_IF((uint64_t)d->num_values >= SIZE_MAX / sizeof(uint32_t), err,
                 PLANK_ERR_OUT_OF_MEMORY, "%s: too many values", what);
    size_t bytes = ((size_t)d->num_values + 1) * sizeof(uint32_t);
    uint32_t *a;
    if (d->keep) {
        PK_FORWARD(pk_buffer_resize(kept, bytes, err));
        a = (uint32_t *)(void *)kept->data;
    } else {
        a = pk_malloc(d->alloc, bytes);
    }
    PK_RETURN_IF(!a, err, PLANK_ERR_OUT_OF_MEMORY, "out of memory for %lld %s",
                 (long long)d->num_values, what);
    *out = a;
    return PLANK_OK;
}

/* Decodes a DELTA_BINARY_PACKED stream of exactly d->num_values INT32
 * lengths from [buf, end) into a new array; *after is the end of the
 * stream. The caller checks that none is negative (above INT32_MAX here),
 * along with its other checks of them. */
static plank_status decode_lengths(pk_decoder *d, const uint8_t *buf, const uint8_t *end,
                                   const char *what, uint32_t **lengths_out, pk_buffer *kept,
                                   const uint8_t **after, plank_error *err) {
    pk_delta_decoder dd;
    PK_FORWARD(pk_delta_init(&dd, buf, (size_t)(end - buf), false, err));
    PK_RETURN_IF(dd.total_values != d->num_values, err, PLANK_ERR_CORRUPT,
                 "%s: DELTA header has %lld values, the page has %lld", what,
                 (long long)dd.total_values, (long long)d->num_values);
    PK_FORWARD(length_array(d, what, kept, lengths_out, err));
    PK_FORWARD(pk_delta_read_i32(&dd, kernels_of(d), (uint8_t *)*lengths_out, d->num_values,
                                 err));
    return pk_delta_end(&dd, after, err);
}

/* Checks that lengths adding up to sum fit in the bytes section, and moves
 * to its start. */
static plank_status bytes_fit(pk_decoder *d, const char *what, uint64_t sum, plank_error *err) {
    PK_RETURN_IF(sum > (uint64_t)(d->end - d->bytes), err, PLANK_ERR_CORRUPT,
                 "%s: lengths add up to %llu bytes, %zu remain in the page", what,
                 (unsigned long long)sum, (size_t)(d->end - d->bytes));
    d->p = d->bytes;
    return PLANK_OK;
}

/* Checks the DELTA_LENGTH lengths: none negative, all of them fitting in
 * the bytes after the length stream. */
static plank_status check_byte_section(pk_decoder *d, const char *what, plank_error *err) {
    uint32_t ors;
    uint64_t sum = kernels_of(d)->sum_u32(d->lengths, (size_t)d->num_values, &ors);
    if (ors > (uint32_t)INT32_MAX) PK_FORWARD(negative_length(d->lengths, d->num_values, what, err));
    return bytes_fit(d, what, sum, err);
}

static plank_status init_delta_byte_array(pk_decoder *d, plank_error *err) {
    const char *what = "DELTA_BYTE_ARRAY";
    const uint8_t *suffixes;
    PK_FORWARD(decode_lengths(d, d->start, d->end, what, &d->prefixes,
                              d->keep ? &d->keep->prefixes : NULL, &suffixes, err));
    PK_FORWARD(decode_lengths(d, suffixes, d->end, what, &d->lengths,
                              d->keep ? &d->keep->lengths : NULL, &d->bytes, err));
    PK_FORWARD(length_array(d, what, d->keep ? &d->keep->suffix_offsets : NULL,
                            &d->suffix_offsets, err));
    /* Validate the prefix chain now so that gets cannot fail half way: first
     * in one pass without a branch per value (the dba_chain kernel), which
     * also adds up the suffixes for the bytes section and writes where each
     * one starts (a sparse read finds a value's suffix there instead of
     * summing the lengths before it); then, only when something is wrong,
     * value by value for the message. */
    uint32_t lim = d->width > 0 ? (uint32_t)d->width : (uint32_t)INT32_MAX;
    uint64_t sum;
    uint32_t longest;
    uint32_t bad = kernels_of(d)->dba_chain(d->prefixes, d->lengths, (size_t)d->num_values, lim,
                                            d->width > 0, d->suffix_offsets, &sum, &longest);
    if (!bad) {
        /* the suffix offsets are 32-bit */
        PK_RETURN_IF(sum > UINT32_MAX, err, PLANK_ERR_UNSUPPORTED,
                     "%s: suffixes of %llu bytes in one page", what, (unsigned long long)sum);
        d->longest = longest;
        return bytes_fit(d, what, sum, err);
    }
    PK_FORWARD(negative_length(d->prefixes, d->num_values, what, err));
    PK_FORWARD(negative_length(d->lengths, d->num_values, what, err));
    int64_t prev = 0;
    for (int64_t i = 0; i < d->num_values; i++) {
        PK_RETURN_IF((int64_t)d->prefixes[i] > prev, err, PLANK_ERR_CORRUPT,
                     "%s: value %lld has prefix length %lld, the previous value has %lld bytes",
                     what, (long long)i, (long long)d->prefixes[i], (long long)prev);
        prev = (int64_t)d->prefixes[i] + d->lengths[i];
        PK_RETURN_IF(prev > INT32_MAX, err, PLANK_ERR_CORRUPT,
                     "%s: value %lld is %lld bytes long", what, (long long)i, (long long)prev);
        PK_RETURN_IF(d->width > 0 && prev != d->width, err, PLANK_ERR_CORRUPT,
                     "%s: value %lld is %lld bytes long, the column's values are %d", what,
                     (long long)i, (long long)prev, (int)d->width);
    }
    /* the kernel and this loop check the same conditions */
    return PK_CORRUPT(err, "%s: the prefix chain is broken", what);
}

static plank_status init_encoding(pk_decoder *d, plank_error *err) {
    const char *ename = plank_encoding_name(d->encoding);
    const char *tname = plank_physical_type_name(d->type);
    size_t len = (size_t)(d->end - d->start);
    uint64_t n = (uint64_t)d->num_values;
    switch (d->encoding) {
    case PLANK_ENC_PLAIN:
        if (d->type == PLANK_BOOLEAN) {
            PK_RETURN_IF(n > (uint64_t)len * 8, err, PLANK_ERR_CORRUPT,
                         "PLAIN page of %zu bytes cannot hold %llu booleans", len,
                         (unsigned long long)n);
        } else if (d->type != PLANK_BYTE_ARRAY) {
            PK_RETURN_IF(n > (uint64_t)len / (uint64_t)d->width, err, PLANK_ERR_CORRUPT,
                         "PLAIN page of %zu bytes cannot hold %llu values of %d bytes", len,
                         (unsigned long long)n, (int)d->width);
        }
        return PLANK_OK;
    case PLANK_ENC_PLAIN_DICTIONARY:
    case PLANK_ENC_RLE_DICTIONARY: {
        const pk_dict *dict = d->dict;
        PK_RETURN_IF(!dict, err, PLANK_ERR_CORRUPT, "dictionary page missing");
        PK_RETURN_IF(dict->type != d->type || dict->width != d->width, err, PLANK_ERR_CORRUPT,
                     "dictionary of type %s does not match the %s column",
                     plank_physical_type_name(dict->type), tname);
        if (len == 0 && n == 0) return pk_rle_init(&d->rle, d->end, 0, 0, err);
        PK_RETURN_IF(len < 1, err, PLANK_ERR_CORRUPT, "dictionary-encoded page has no bit width");
        PK_RETURN_IF(d->start[0] > 32, err, PLANK_ERR_CORRUPT,
                     "dictionary index bit width %d is not in 0..32", (int)d->start[0]);
        return pk_rle_init(&d->rle, d->start + 1, len - 1, d->start[0], err);
    }
    case PLANK_ENC_RLE: {
        PK_RETURN_IF(d->type != PLANK_BOOLEAN, err, PLANK_ERR_UNSUPPORTED,
                     "RLE encoding of %s values is not supported", tname);
        if (len == 0 && n == 0) return pk_rle_init(&d->rle, d->end, 0, 1, err);
        PK_RETURN_IF(len < 4, err, PLANK_ERR_CORRUPT, "RLE boolean page lacks its length prefix");
        uint32_t l = pk_load_u32(d->start);
        PK_RETURN_IF(l > len - 4, err, PLANK_ERR_CORRUPT,
                     "RLE boolean data of %u bytes, %zu remain in the page", (unsigned)l, len - 4);
        return pk_rle_init(&d->rle, d->start + 4, l, 1, err);
    }
    case PLANK_ENC_DELTA_BINARY_PACKED:
        PK_RETURN_IF(d->type != PLANK_INT32 && d->type != PLANK_INT64, err, PLANK_ERR_CORRUPT,
                     "%s does not apply to %s values", ename, tname);
        if (len == 0 && n == 0) return PLANK_OK;
        PK_FORWARD(pk_delta_init(&d->delta, d->start, len, d->type == PLANK_INT64, err));
        PK_RETURN_IF(d->delta.total_values != d->num_values, err, PLANK_ERR_CORRUPT,
                     "DELTA_BINARY_PACKED header has %lld values, the page has %lld",
                     (long long)d->delta.total_values, (long long)d->num_values);
        return PLANK_OK;
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PLANK_ENC_DELTA_BYTE_ARRAY:
        PK_RETURN_IF(d->type != PLANK_BYTE_ARRAY && d->type != PLANK_FIXED_LEN_BYTE_ARRAY, err,
                     PLANK_ERR_CORRUPT, "%s does not apply to %s values", ename, tname);
        if (len == 0 && n == 0) return PLANK_OK;
        if (d->encoding == PLANK_ENC_DELTA_BYTE_ARRAY) return init_delta_byte_array(d, err);
        PK_FORWARD(decode_lengths(d, d->start, d->end, ename, &d->lengths,
                                  d->keep ? &d->keep->lengths : NULL, &d->bytes, err));
        PK_FORWARD(check_byte_section(d, ename, err));
        for (int64_t i = 0; d->width > 0 && i < d->num_values; i++)
            PK_RETURN_IF(d->lengths[i] != (uint32_t)d->width, err, PLANK_ERR_CORRUPT,
                         "%s: value %lld is %lld bytes long, the column's values are %d", ename,
                         (long long)i, (long long)d->lengths[i], (int)d->width);
        return PLANK_OK;
    case PLANK_ENC_BYTE_STREAM_SPLIT:
        PK_RETURN_IF(d->type == PLANK_BOOLEAN || d->type == PLANK_BYTE_ARRAY ||
                         d->type == PLANK_INT96,
                     err, PLANK_ERR_CORRUPT, "%s does not apply to %s values", ename, tname);
        PK_RETURN_IF(n > (uint64_t)len / (uint64_t)d->width ||
                         n * (uint64_t)d->width != (uint64_t)len,
                     err, PLANK_ERR_CORRUPT,
                     "BYTE_STREAM_SPLIT page has %zu bytes, %llu values of %d bytes need %llu",
                     len, (unsigned long long)n, (int)d->width,
                     (unsigned long long)(n * (uint64_t)d->width));
        return PLANK_OK;
    case PLANK_ENC_BIT_PACKED:
        return PK_CORRUPT(err, "BIT_PACKED encoding is only valid for levels");
    }
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "unsupported encoding %d",
                        (int)d->encoding);
}

plank_status pk_decoder_init(pk_decoder *d, plank_encoding encoding, plank_physical_type type,
                             int32_t type_length, const uint8_t *buf, size_t len,
                             int64_t num_values, const pk_dict *dict,
                             const plank_allocator *alloc, plank_error *err) {
    return pk_decoder_init_k(d, encoding, type, type_length, buf, len, num_values, dict, NULL,
                             alloc, err);
}

plank_status pk_decoder_init_k(pk_decoder *d, plank_encoding encoding, plank_physical_type type,
                               int32_t type_length, const uint8_t *buf, size_t len,
                               int64_t num_values, const pk_dict *dict,
                               const struct pk_kernels *kernels, const plank_allocator *alloc,
                               plank_error *err) {
    return pk_decoder_init_keep(d, encoding, type, type_length, buf, len, num_values, dict,
                                kernels, alloc, NULL, err);
}

plank_status pk_decoder_init_keep(pk_decoder *d, plank_encoding encoding,
                                  plank_physical_type type, int32_t type_length,
                                  const uint8_t *buf, size_t len, int64_t num_values,
                                  const pk_dict *dict, const struct pk_kernels *kernels,
                                  const plank_allocator *alloc, pk_decoder_arrays *keep,
                                  plank_error *err) {
    memset(d, 0, sizeof *d);
    d->keep = keep;
    if (keep) d->plain_move = keep->plain_move;
    pk_decoder_use_kernels(d, kernels);
    pk_buffer_init(&d->last, alloc);
    d->encoding = encoding;
    d->type = type;
    d->alloc = alloc;
    d->dict = dict;
    d->start = d->p = buf;
    d->end = buf + len;
    d->width = pk_physical_width(type, type_length);
    PK_RETURN_IF(d->width < 0, err, PLANK_ERR_CORRUPT, "invalid column type %d (length %d)",
                 (int)type, (int)type_length);
    PK_RETURN_IF(num_values < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative value count %lld",
                 (long long)num_values);
    d->num_values = num_values;
    plank_status st = init_encoding(d, err);
    if (st != PLANK_OK) pk_decoder_release(d);
    /* Again: initialising the encoding resets the RLE decoder's kernels. */
    else pk_decoder_use_kernels(d, kernels);
    return st;
}

/* ---- Decoding -------------------------------------------------------------- */

static plank_status check_count(const pk_decoder *d, int64_t n, plank_error *err) {
    PK_RETURN_IF(n < 0, err, PLANK_ERR_INVALID_ARGUMENT, "negative value count %lld",
                 (long long)n);
    PK_RETURN_IF(n > d->num_values - d->pos, err, PLANK_ERR_CORRUPT,
                 "%lld values requested, the page has %lld left", (long long)n,
                 (long long)(d->num_values - d->pos));
    return PLANK_OK;
}

/* Range check of dictionary indices (also finds the culprit after a
 * gather kernel refused a batch). */
static plank_status dict_check(const pk_decoder *d, const uint32_t *idx, int64_t k,
                               plank_error *err) {
    for (int64_t i = 0; i < k; i++)
        PK_RETURN_IF(idx[i] >= (uint64_t)d->dict->count, err, PLANK_ERR_CORRUPT,
                     "dictionary index %u out of range (dictionary has %lld values)",
                     (unsigned)idx[i], (long long)d->dict->count);
    return PLANK_OK;
}

/* Next dictionary indices, range-checked. */
static plank_status dict_indices(pk_decoder *d, uint32_t *idx, int64_t k, plank_error *err) {
    PK_FORWARD(pk_rle_get_u32(&d->rle, idx, k, err));
    if (k <= 0) return PLANK_OK;
    /* The largest index by the vector kernel (unsigned: the sign bit
     * flipped); the scalar loop only to name the culprit. */
    int32_t mn, mx;
    kernels_of(d)->minmax_i32((const int32_t *)(const void *)idx, (size_t)k, 0x80000000u, &mn,
                              &mx);
    if ((uint64_t)(uint32_t)mx < (uint64_t)d->dict->count) return PLANK_OK;
    return dict_check(d, idx, k, err);
}

/* 4- and 8-byte dictionary values through the gather kernels, which check
 * the indices themselves before reading the dictionary. */
static plank_status dict_gather(pk_decoder *d, int64_t n, uint8_t *out, size_t w,
                                plank_error *err) {
    uint32_t idx[512];
    const pk_dict *dict = d->dict;
    bool (*gather)(const uint8_t *, int64_t, const uint32_t *, size_t, uint8_t *) =
        w == 4 ? d->kernels->dict_gather32 : d->kernels->dict_gather64;
    while (n > 0) {
        int64_t k = n < 512 ? n : 512;
        PK_FORWARD(pk_rle_get_u32(&d->rle, idx, k, err));
        if (!gather(dict->values, dict->count, idx, (size_t)k, out)) {
            PK_FORWARD(dict_check(d, idx, k, err));
            return PK_CORRUPT(err, "dictionary gather refused valid indices");
        }
        out += (size_t)k * w;
        d->pos += k;
        n -= k;
    }
    return PLANK_OK;
}

/* DELTA_LENGTH_BYTE_ARRAY: the n next values are contiguous in the bytes
 * section; returns their total size (the lengths were checked at init). */
static size_t dlba_span(const pk_decoder *d, int64_t n) {
    uint32_t ors;
    return (size_t)kernels_of(d)->sum_u32(d->lengths + d->pos, (size_t)n, &ors);
}

/* DELTA_BYTE_ARRAY without the intermediate copy: each value is written
 * straight to dst (its prefix from the previous value, wherever that is, then
 * its suffix from the page); ends (if not NULL) gets offsets from base. The
 * last value is saved in d->last for the next call. The caller reserved
 * d->last for the last value and dst for all n values (sizes checked at init). */
/* With keep, a value whose bit is clear is built like the others (the next
 * one's prefix is in it) but the output does not advance past it: the next
 * value is built over it, its prefix already in place. Returns the values
 * whose ends were written (all n without keep). */
/* The 16-byte register form of a value of at most 16 bytes (the bytes past
 * its length unspecified), and the mask of its first pre bytes: 16 bytes of
 * dba_masks from byte 16 - pre. */
#if defined(__GNUC__)
typedef uint8_t dba_reg __attribute__((vector_size(16)));
#else
typedef struct {
    uint64_t w[2];
} dba_reg;
#endif
static const uint8_t dba_masks[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* r's first pre bytes followed by s's others. */
static inline dba_reg dba_blend(dba_reg r, dba_reg s, size_t pre) {
    dba_reg m;
    memcpy(&m, dba_masks + 16 - pre, sizeof m);
#if defined(__GNUC__)
    return (r & m) | (s & ~m);
#else
    for (int i = 0; i < 2; i++) r.w[i] = (r.w[i] & m.w[i]) | (s.w[i] & ~m.w[i]);
    return r;
#endif
}

/* The state of a run of DELTA_BYTE_ARRAY values being built. */
typedef struct {
    const uint32_t *pres, *sufs; /* lengths of the run's values */
    const uint8_t *p;           /* the next suffix */
    const uint8_t *page, *page_end;
    uint8_t *o;                 /* where the next value goes */
    const uint8_t *dst_end;
    int64_t c;                  /* values output */
    dba_reg r;                  /* the previous value's first 16 bytes */
} dba_state;

/* Values from i on while each one's prefix is at most 16 bytes, with room
 * for 16-byte moves; returns the first value it did not build. A value's
 * first 16 bytes are built in a register (the previous value's first bytes
 * there, the rest from a 16-byte load that starts pre bytes before the
 * suffix, inside the page since the length sections come first) and stored
 * once; the bytes after them come from the suffix in 16-byte moves (room
 * for two past the value is required). Building
 * the prefix in memory instead reads it back right after the previous
 * value's stores, which the store buffer cannot forward: a stall of a dozen
 * cycles per value, most of the decode of short strings. No call in the
 * loop, so the register is not spilled around one. */
PK_INLINE int64_t dba_fast(dba_state *st, int64_t i, int64_t n, int64_t *ends, int64_t base,
                           const uint8_t *dst, const uint8_t *keep, bool wide) {
    const uint32_t *pres = st->pres, *sufs = st->sufs;
    const uint8_t *p = st->p, *page = st->page, *page_end = st->page_end;
    const uint8_t *dst_end = st->dst_end;
    uint8_t *o = st->o;
    int64_t c = st->c;
    dba_reg r = st->r;
    for (; i < n; i++) {
        size_t pre = (size_t)pres[i], suf = (size_t)sufs[i], len = pre + suf;
        if (wide ? pre > 16 || (size_t)(page_end - p) < suf + 32 || (size_t)(dst_end - o) < len + 32
                 : len > 16 || (size_t)(page_end - p) < 16 || (size_t)(dst_end - o) < 16)
            break;
        if ((size_t)(p - page) < pre) break;
        const uint8_t *src = p - pre; /* value byte j >= pre is src[j] */
        dba_reg sv;
        memcpy(&sv, src, sizeof sv);
        r = dba_blend(r, sv, pre);
        memcpy(o, &r, sizeof r);
        if (wide) {
            /* Bytes 16..31 whatever the length (a branch on it mispredicts
             * when lengths vary around 16), then the rest. */
            uint8_t t2[16];
            memcpy(t2, src + 16, 16);
            memcpy(o + 16, t2, 16);
            for (size_t k = 32; k < len; k += 16) {
                uint8_t t[16];
                memcpy(t, src + k, 16);
                memcpy(o + k, t, 16);
            }
        }
        p += suf;
        int64_t kb = keep ? pk_bit_get(keep, i) : 1;
        o += len & (size_t)-kb;
        if (ends) ends[c] = base + (int64_t)(o - dst);
        c += kb;
    }
    st->p = p;
    st->o = o;
    st->c = c;
    st->r = r;
    return i;
}

static int64_t dba_run(pk_decoder *d, int64_t n, uint8_t *dst, const uint8_t *dst_end,
                       int64_t *ends, int64_t base, const uint8_t *keep) {
    if (n <= 0) return 0;
    /* The decoder's state in locals: the stores to dst could alias it, which
     * would reload it for every value. */
    dba_state st = {.pres = d->prefixes + d->pos,
                    .sufs = d->lengths + d->pos,
                    .p = d->p,
                    .page = d->start,
                    .page_end = d->end,
                    .o = dst,
                    .dst_end = dst_end};
    /* d->last has 64 bytes of padding. */
    memcpy(&st.r, d->last.data, sizeof st.r);
    const uint8_t *prev = d->last.data;
    size_t prev_len = d->last.size;
    for (int64_t i = 0; i < n; i++) {
        /* Pages whose values are all at most 16 bytes long skip the second
         * move (the wide loop would store it for every value). */
        int64_t j = d->longest <= 16 ? dba_fast(&st, i, n, ends, base, dst, keep, false)
                                     : dba_fast(&st, i, n, ends, base, dst, keep, true);
        if (j > i) {
            /* The last value built, where the output stands or (when the
             * output did not advance past it) over it. */
            size_t len = (size_t)st.pres[j - 1] + st.sufs[j - 1];
            prev_len = len;
            prev = keep && !pk_bit_get(keep, j - 1) ? st.o : st.o - len;
            i = j;
            if (i == n) break;
        }
        /* One value the fast path cannot build (a prefix over 16 bytes, or
         * near the end of the page or of the output). */
        size_t pre = (size_t)st.pres[i], suf = (size_t)st.sufs[i], len = pre + suf;
        uint8_t *o = st.o;
        if (pre && o != prev) memmove(o, prev, pre); /* o == prev: in place already */
        if (suf) memcpy(o + pre, st.p, suf);
        st.p += suf;
        prev = o;
        prev_len = len;
        /* Back to the register; only the value's own bytes are read. */
        uint8_t t[16] = {0};
        memcpy(t, o, len < 16 ? len : 16);
        memcpy(&st.r, t, sizeof st.r);
        int64_t kb = keep ? pk_bit_get(keep, i) : 1;
        st.o += len & (size_t)-kb;
        if (ends) ends[st.c] = base + (int64_t)(st.o - dst);
        st.c += kb;
    }
    d->p = st.p;
    d->pos += n;
    if (prev_len) memmove(d->last.data, prev, prev_len);
    d->last.size = prev_len;
    return st.c;
}

/* Reserves d->last for the last of the next n values. */
static plank_status dba_reserve_last(pk_decoder *d, int64_t n, plank_error *err) {
    if (n == 0) return PLANK_OK;
    int64_t j = d->pos + n - 1;
    return pk_buffer_reserve(&d->last, (size_t)d->prefixes[j] + d->lengths[j], err);
}

/* DELTA_BYTE_ARRAY: builds the next value in d->last (prefix of the previous
 * value + suffix). The lengths were validated at init. */
static plank_status dba_next(pk_decoder *d, plank_error *err) {
    int64_t prefix = d->prefixes[d->pos], suffix = d->lengths[d->pos];
    PK_FORWARD(pk_buffer_resize(&d->last, (size_t)(prefix + suffix), err));
    if (suffix) memcpy(d->last.data + prefix, d->p, (size_t)suffix);
    d->p += suffix;
    d->pos++;
    return PLANK_OK;
}

/* DELTA_BYTE_ARRAY: passes over n values, leaving the last of them in
 * d->last, without building the others. Walking back from the last value,
 * each earlier value supplies the part of its suffix that the later
 * prefixes still reach; the bytes no suffix supplies are those of the value
 * before the skip, which d->last still holds (the prefix chain was checked
 * at init, so they lie within it). Most walks stop after a few values, at
 * the first prefix of length 0. */
static plank_status dba_skip(pk_decoder *d, int64_t n, plank_error *err) {
    if (n <= 0) return PLANK_OK;
    int64_t first = d->pos, last = first + n - 1;
    size_t span = (size_t)(d->suffix_offsets[last + 1] - d->suffix_offsets[first]);
    size_t len = (size_t)d->prefixes[last] + d->lengths[last];
    PK_FORWARD(pk_buffer_resize(&d->last, len, err));
    const uint8_t *q = d->p + span;
    size_t need = len;
    for (int64_t j = last; j >= first && need > 0; j--) {
        size_t pre = (size_t)d->prefixes[j];
        q -= d->lengths[j];
        if (need > pre) {
            memcpy(d->last.data + pre, q, need - pre);
            need = pre;
        }
    }
    d->p += span;
    d->pos += n;
    return PLANK_OK;
}

/* Calls COPY(j) for every j < n whose bit (bit + j) of live is set: bits
 * one by one up to a word boundary, then whole words. */
#define PK_FOR_LIVE(live, bit, n, j, COPY)                                                  \
    do {                                                                                    \
        int64_t j = 0;                                                                      \
        for (; j < (n) && (((bit) + j) & 63); j++)                                          \
            if (pk_bit_get(live, (bit) + j)) COPY;                                          \
        for (; (n) - j >= 64; j += 64) {                                                    \
            uint64_t m_ = pk_load_u64((live) + (((bit) + j) >> 3));                         \
            int64_t j0_ = j;                                                                \
            while (m_) {                                                                    \
                j = j0_ + __builtin_ctzll(m_);                                              \
                m_ &= m_ - 1;                                                               \
                COPY;                                                                       \
            }                                                                               \
            j = j0_;                                                                        \
        }                                                                                   \
        for (; j < (n); j++)                                                                \
            if (pk_bit_get(live, (bit) + j)) COPY;                                          \
    } while (0)

/* The first pres[i] bytes of value i (its suffix at q) into o, from the
 * suffixes of values kb + 1 .. i - 1, walking back; returns how many of
 * them are still missing (to be taken from value kb). */
static size_t dba_walk(const uint32_t *pres, const uint32_t *sufs, int64_t i, int64_t kb,
                       const uint8_t *q, uint8_t *o) {
    size_t need = pres[i];
    for (int64_t j = i - 1; need > 0 && j > kb; j--) {
        q -= sufs[j];
        size_t pj = pres[j];
        if (need > pj) {
            memcpy(o + pj, q, need - pj);
            need = pj;
        }
    }
    return need;
}

/* DELTA_BYTE_ARRAY, building only the values whose bit (bit + i) of sel is
 * set. Value i's first pre_i bytes are value i - 1's, so walking back from
 * i, each earlier value j supplies bytes [pre_j, need) of it from its suffix
 * (need: the bytes still missing, pre_i at first), until need is 0 or the
 * walk reaches the last value built (the previous selected one, or d->last
 * for the first), which supplies the rest. A walk never passes the previous
 * selected value, so each value is visited at most once, whatever the
 * prefixes; where most prefixes are 0 (values that vary at their first
 * byte) a walk is a step or two. A value of at most 16 bytes is built in a
 * register, one blend a step, and stored once. Its first load starts
 * `pre` bytes before its suffix (checked against the page's start); a walk's
 * load starts pre_j bytes before suffix j, which stays in the bytes section
 * because the chain was checked at init: the page's first prefix is 0, so
 * value j - 1, at least pre_j bytes long, is made of suffix bytes that come
 * before suffix j.
 *
 * all_ends: ends[i] for every value, the unselected ones empty (the live
 * reads); else only the selected ones', packed (the kept reads). Returns
 * the ends written. The caller reserved d->last for the last value and dst
 * for the selected values (their lengths' sum; a value of up to 16 bytes is
 * stored as 16, into the buffer's PK_BUFFER_PADDING past it at the end);
 * d->last holds value n - 1 at the end, as after dba_run. */
static int64_t dba_sparse(pk_decoder *d, int64_t n, const uint8_t *sel, int64_t bit,
                          uint8_t *dst, int64_t *ends, int64_t base, bool all_ends) {
    const uint32_t *pres = d->prefixes + d->pos, *sufs = d->lengths + d->pos;
    const uint32_t *soffs = d->suffix_offsets + d->pos;
    const uint8_t *page = d->start, *page_end = d->end;
    const uint8_t *bytes = d->bytes; /* value i's suffix at bytes + soffs[i] */
    const uint8_t *kv = d->last.data; /* the last value built, value kb (-1: d->last) */
    int64_t kb = -1;
    dba_reg kr; /* its first 16 bytes (buffers are padded) */
    memcpy(&kr, kv, sizeof kr);
    uint8_t *o = dst;
    int64_t c = 0, end = base;
    PK_FOR_LIVE(sel, bit, n, i, {
        if (all_ends)
            for (; c < i; c++) ends[c] = end;
        /* the suffixes passed over are not summed here: init wrote where
         * each one starts */
        const uint8_t *q = bytes + soffs[i];
        size_t need = pres[i];
        size_t len = need + sufs[i];
        if (len <= 16 && (size_t)(q - page) >= need && (size_t)(page_end - q) >= 16) {
            dba_reg r;
            memcpy(&r, q - need, sizeof r);
            const uint8_t *qj = q;
            for (int64_t j = i - 1; need > 0 && j > kb; j--) {
                qj -= sufs[j];
                size_t pj = pres[j];
                if (need > pj) {
                    dba_reg s;
                    memcpy(&s, qj - pj, sizeof s); /* within [page, q): see above */
                    r = dba_blend(s, r, need);
                    need = pj;
                }
            }
            if (need > 0) r = dba_blend(kr, r, need);
            memcpy(o, &r, sizeof r);
            kr = r;
        } else {
            if (sufs[i]) memcpy(o + need, q, sufs[i]);
            need = dba_walk(pres, sufs, i, kb, q, o);
            if (need > 0) memcpy(o, kv, need);
            memcpy(&kr, o, sizeof kr);
        }
        kv = o;
        kb = i;
        o += len;
        end += (int64_t)len;
        ends[c++] = end;
    });
    if (all_ends)
        for (; c < n; c++) ends[c] = end;
    const uint8_t *p_end = bytes + soffs[n];
    if (n > 0) {
        /* d->last becomes value n - 1: the last one built, or built now over
         * d->last (which the walk reads only below the bytes it writes). */
        size_t len = (size_t)pres[n - 1] + sufs[n - 1];
        if (kb == n - 1) {
            memmove(d->last.data, kv, len);
        } else {
            uint8_t *l = d->last.data;
            const uint8_t *ql = p_end - sufs[n - 1];
            if (sufs[n - 1]) memcpy(l + pres[n - 1], ql, sufs[n - 1]);
            size_t need = dba_walk(pres, sufs, n - 1, kb, ql, l);
            if (need > 0 && kv != l) memcpy(l, kv, need);
        }
        d->last.size = len;
    }
    d->p = p_end;
    d->pos += n;
    return c;
}

/* Whether fewer than one in `ratio` of the n bits of sel from bit on are
 * set (counted by the decoder's count_bits kernel, else the scalar one). */
static bool few_set(const pk_decoder *d, const uint8_t *sel, int64_t bit, int64_t n,
                    int64_t ratio) {
    const pk_kernels *k = kernels_of(d);
    return k->count_bits(sel, bit, bit + n) * ratio < n;
}

/* Values of at most this many bytes: a sparse DELTA_BYTE_ARRAY read sizes
 * its output as if every selected value were the page's longest, instead
 * of a first pass over the selection adding up their lengths (a cache miss
 * a value in the length arrays, which the build then takes again). */
#define DBA_SIZE_BOUND 64

/* The bytes the values whose bit (bit + i) of sel is set take, i < n: their
 * lengths' sum, or a bound of it (short values). */
static size_t dba_selected_bytes(const pk_decoder *d, const uint8_t *sel, int64_t bit,
                                 int64_t n) {
    if (d->longest <= DBA_SIZE_BOUND)
        return (size_t)kernels_of(d)->count_bits(sel, bit, bit + n) * d->longest;
    const uint32_t *pres = d->prefixes + d->pos, *sufs = d->lengths + d->pos;
    size_t total = 0;
    PK_FOR_LIVE(sel, bit, n, i, total += (size_t)pres[i] + sufs[i]);
    return total;
}
/* Building only the selected values of a DELTA_BYTE_ARRAY page (dba_sparse,
 * a few nanoseconds each) beats building all of them (dba_run, about one a
 * value) where fewer than one in this many are selected. */
#define DBA_SPARSE 10
/* See pk_decoder_get_fixed_live. */
#define FIXED_LIVE 10
/* A keep read of a PLAIN byte-array page walks the values between the kept
 * ones by their lengths only (plain_bytes_skip) where fewer than one in this
 * many is kept: bench/README.md, "PLAIN strings between the kept ones". */
#define PLAIN_SPARSE 8

/* The next byte array of a DELTA_LENGTH / DELTA_BYTE_ARRAY / PLAIN page. */
static plank_status next_bytes(pk_decoder *d, const uint8_t **v, size_t *vlen, plank_error *err) {
    switch (d->encoding) {
    case PLANK_ENC_DELTA_BYTE_ARRAY:
        PK_FORWARD(dba_next(d, err));
        *v = d->last.data;
        *vlen = d->last.size;
        return PLANK_OK;
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY:
        *v = d->p;
        *vlen = (size_t)d->lengths[d->pos];
        d->p += *vlen;
        d->pos++;
        return PLANK_OK;
    default: { /* PLAIN */
        size_t left = (size_t)(d->end - d->p);
        PK_RETURN_IF(left < 4, err, PLANK_ERR_CORRUPT,
                     "PLAIN byte array %lld: length at byte %zu is truncated", (long long)d->pos,
                     (size_t)(d->p - d->start));
        uint32_t l = pk_load_u32(d->p);
        PK_RETURN_IF(l > left - 4, err, PLANK_ERR_CORRUPT,
                     "PLAIN byte array %lld at byte %zu has length %u, %zu bytes remain",
                     (long long)d->pos, (size_t)(d->p - d->start), (unsigned)l, left - 4);
        *v = d->p + 4;
        *vlen = l;
        d->p += 4 + (size_t)l;
        d->pos++;
        return PLANK_OK;
    }
    }
}

/* Passes over n PLAIN byte arrays by their length chain alone: one load and
 * one add a value, the two checks predicted (next_bytes takes a switch and
 * two stores a value). A value that fails them is left to next_bytes, whose
 * error names it. */
static plank_status plain_bytes_skip(pk_decoder *d, int64_t n, plank_error *err) {
    const uint8_t *p = d->p, *end = d->end;
    int64_t i = 0;
    for (; i < n; i++) {
        size_t left = (size_t)(end - p);
        if (PK_UNLIKELY(left < 4)) break;
        uint32_t l = pk_load_u32(p);
        if (PK_UNLIKELY(l > left - 4)) break;
        p += 4 + (size_t)l;
    }
    d->p = p;
    d->pos += i;
    if (i == n) return PLANK_OK;
    const uint8_t *v;
    size_t vlen;
    return next_bytes(d, &v, &vlen, err);
}

plank_status pk_decoder_get_bits(pk_decoder *d, int64_t n, uint8_t *out, int64_t bit,
                                 plank_error *err) {
    PK_RETURN_IF(d->type != PLANK_BOOLEAN, err, PLANK_ERR_INVALID_ARGUMENT,
                 "get_bits on a %s column", plank_physical_type_name(d->type));
    PK_FORWARD(check_count(d, n, err));
    const pk_kernels *k = kernels_of(d);
    if (d->encoding == PLANK_ENC_PLAIN) {
        /* init checked the page holds num_values bits. */
        if (n > 0) k->copy_bits(d->start, d->pos, out, bit, (size_t)n);
        d->pos += n;
        return PLANK_OK;
    }
    if (d->encoding == PLANK_ENC_RLE) {
        PK_FORWARD(pk_rle_get_bits(&d->rle, out, bit, n, err));
        d->pos += n;
        return PLANK_OK;
    }
    /* Dictionary-encoded booleans: through bytes. */
    uint8_t tmp[256];
    while (n > 0) {
        int64_t m = n < 256 ? n : 256;
        PK_FORWARD(pk_decoder_get_fixed(d, m, tmp, err));
        for (int64_t i = 0; i < m; i++) pk_bit_put(out, bit + i, tmp[i] != 0);
        bit += m, n -= m;
    }
    return PLANK_OK;
}

plank_status pk_decoder_view_fixed(pk_decoder *d, int64_t n, const uint8_t **out,
                                   plank_error *err) {
    PK_RETURN_IF(d->encoding != PLANK_ENC_PLAIN || d->type == PLANK_BYTE_ARRAY ||
                     d->type == PLANK_BOOLEAN,
                 err, PLANK_ERR_INVALID_ARGUMENT, "view_fixed on a %s %s page",
                 plank_encoding_name(d->encoding), plank_physical_type_name(d->type));
    PK_FORWARD(check_count(d, n, err));
    *out = d->start + (size_t)d->pos * (size_t)d->width;
    d->pos += n;
    return PLANK_OK;
}

plank_status pk_decoder_get_fixed_live(pk_decoder *d, int64_t n, uint8_t *out,
                                       const uint8_t *live, int64_t bit, plank_error *err) {
    size_t w = (size_t)d->width;
    bool dict = d->encoding == PLANK_ENC_PLAIN_DICTIONARY ||
                d->encoding == PLANK_ENC_RLE_DICTIONARY;
    /* PLAIN pages are copied whole: zeroing the slots would cost what the
     * copy does. A gather of the live values only wins where fewer than
     * one in FIXED_LIVE are: a copy per live value costs about what a
     * whole gather from a dictionary of ten values does. */
    if (!live || !dict || d->type == PLANK_BOOLEAN || d->type == PLANK_BYTE_ARRAY ||
        (w != 4 && w != 8) || !few_set(d, live, bit, n, FIXED_LIVE))
        return pk_decoder_get_fixed(d, n, out, err);
    PK_FORWARD(check_count(d, n, err));
    if (n > 0) memset(out, 0, (size_t)n * w);
    uint32_t idx[512];
    const uint8_t *values = d->dict->values;
    uint64_t count = (uint64_t)d->dict->count;
    while (n > 0) {
        int64_t k = n < 512 ? n : 512;
        PK_FORWARD(pk_rle_get_u32(&d->rle, idx, k, err));
        uint32_t bad = 0;
        bool ok = true;
        PK_FOR_LIVE(live, bit, k, j, {
            uint32_t c = idx[j];
            if (c >= count) {
                ok = false;
                bad = c;
            } else {
                memcpy(out + (size_t)j * w, values + (size_t)c * w, w);
            }
        });
        PK_RETURN_IF(!ok, err, PLANK_ERR_CORRUPT,
                     "dictionary index %u out of range (dictionary has %llu values)",
                     (unsigned)bad, (unsigned long long)count);
        out += (size_t)k * w;
        bit += k;
        d->pos += k;
        n -= k;
    }
    return PLANK_OK;
}

plank_status pk_decoder_get_fixed_bounded(pk_decoder *d, int64_t n, uint8_t *out,
                                          pk_delta_bound *b, const uint8_t *live, int64_t bit,
                                          plank_error *err) {
    if (d->encoding != PLANK_ENC_DELTA_BINARY_PACKED || !d->kernels || n <= 0)
        return pk_decoder_get_fixed(d, n, out, err);
    PK_FORWARD(check_count(d, n, err));
    PK_FORWARD(pk_delta_read_live(&d->delta, d->kernels, out, n, b, live, bit, err));
    d->pos += n;
    return PLANK_OK;
}

plank_status pk_decoder_get_fixed(pk_decoder *d, int64_t n, uint8_t *out, plank_error *err) {
    PK_RETURN_IF(d->type == PLANK_BYTE_ARRAY, err, PLANK_ERR_INVALID_ARGUMENT,
                 "get_fixed on a BYTE_ARRAY column");
    PK_FORWARD(check_count(d, n, err));
    size_t w = (size_t)d->width;
    switch (d->encoding) {
    case PLANK_ENC_PLAIN:
        if (d->type == PLANK_BOOLEAN) {
            for (int64_t i = 0; i < n; i++) out[i] = pk_bit_get(d->start, d->pos + i);
        } else if (n > 0) {
            memcpy(out, d->start + (size_t)d->pos * w, (size_t)n * w);
        }
        d->pos += n;
        return PLANK_OK;
    case PLANK_ENC_PLAIN_DICTIONARY:
    case PLANK_ENC_RLE_DICTIONARY: {
        if (d->kernels && (w == 4 || w == 8)) return dict_gather(d, n, out, w, err);
        uint32_t idx[256];
        const uint8_t *values = d->dict->values;
        while (n > 0) {
            int64_t k = n < 256 ? n : 256;
            PK_FORWARD(dict_indices(d, idx, k, err));
            if (w == 4) {
                for (int64_t i = 0; i < k; i++) memcpy(out + i * 4, values + idx[i] * 4u, 4);
            } else if (w == 8) {
                for (int64_t i = 0; i < k; i++) memcpy(out + i * 8, values + idx[i] * 8u, 8);
            } else {
                for (int64_t i = 0; i < k; i++)
                    memcpy(out + (size_t)i * w, values + (size_t)idx[i] * w, w);
            }
            out += (size_t)k * w;
            d->pos += k;
            n -= k;
        }
        return PLANK_OK;
    }
    case PLANK_ENC_RLE: {
        uint32_t v[256];
        while (n > 0) {
            int64_t k = n < 256 ? n : 256;
            PK_FORWARD(pk_rle_get_u32(&d->rle, v, k, err));
            for (int64_t i = 0; i < k; i++) {
                PK_RETURN_IF(v[i] > 1, err, PLANK_ERR_CORRUPT, "RLE boolean value %u",
                             (unsigned)v[i]);
                out[i] = (uint8_t)v[i];
            }
            out += k;
            d->pos += k;
            n -= k;
        }
        return PLANK_OK;
    }
    case PLANK_ENC_DELTA_BINARY_PACKED: {
        if (n > 0 && d->kernels) {
            if (w == 8) {
                PK_FORWARD(pk_delta_read_i64(&d->delta, d->kernels, out, n, err));
            } else {
                PK_FORWARD(pk_delta_read_i32(&d->delta, d->kernels, out, n, err));
            }
            d->pos += n;
            return PLANK_OK;
        }
        uint64_t v[256];
        while (n > 0) {
            int64_t k = n < 256 ? n : 256;
            PK_FORWARD(pk_delta_get(&d->delta, v, k, err));
            for (int64_t i = 0; i < k; i++) {
                if (w == 8) {
                    pk_store_u64(out + i * 8, v[i]);
                } else {
                    pk_store_u32(out + i * 4, (uint32_t)v[i]);
                }
            }
            out += (size_t)k * w;
            d->pos += k;
            n -= k;
        }
        return PLANK_OK;
    }
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PLANK_ENC_DELTA_BYTE_ARRAY:
        /* FIXED_LEN_BYTE_ARRAY: every length was checked against w at init. */
        if (d->kernels && d->encoding == PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY) {
            if (n > 0) memcpy(out, d->p, (size_t)n * w);
            d->p += (size_t)n * w;
            d->pos += n;
            return PLANK_OK;
        }
        if (d->kernels) {
            PK_FORWARD(dba_reserve_last(d, n, err));
            dba_run(d, n, out, out + (size_t)n * w, NULL, 0, NULL);
            return PLANK_OK;
        }
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *v;
            size_t vlen;
            PK_FORWARD(next_bytes(d, &v, &vlen, err));
            memcpy(out + (size_t)i * w, v, w);
        }
        return PLANK_OK;
    case PLANK_ENC_BYTE_STREAM_SPLIT: {
        size_t stride = (size_t)d->num_values;
        if (d->kernels) {
            d->kernels->bss_decode(d->start + d->pos, stride, w, (size_t)n, out);
            d->pos += n;
            return PLANK_OK;
        }
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *src = d->start + (size_t)(d->pos + i);
            for (size_t b = 0; b < w; b++) out[(size_t)i * w + b] = src[b * stride];
        }
        d->pos += n;
        return PLANK_OK;
    }
    default: break;
    }
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "unsupported encoding %d", (int)d->encoding);
}

/* Copies a value of len bytes: one 32-byte move when it is that short and src
 * has 32 readable bytes (dst must have 32 writable ones: the buffers' padding),
 * else memcpy. */
PK_INLINE void copy_value(uint8_t *dst, const uint8_t *src, size_t len, bool src32) {
    if (len <= 32 && src32) {
        uint8_t t[32];
        memcpy(t, src, 32);
        memcpy(dst, t, 32);
    } else {
        memcpy(dst, src, len);
    }
}

PK_INLINE int64_t cb_end(const uint8_t *e, size_t OW, int64_t j) {
    return OW == 8 ? ((const int64_t *)(const void *)e)[j]
                   : (int64_t)((const int32_t *)(const void *)e)[j];
}

PK_INLINE void cb_set(uint8_t *e, size_t OW, int64_t j, int64_t v) {
    if (OW == 8) ((int64_t *)(void *)e)[j] = v;
    else ((int32_t *)(void *)e)[j] = (int32_t)v;
}

/* pk_compact_binary with OW a constant where inlined. The set bits are walked
 * word by word, so dropped values cost nothing and rows kept at random
 * mispredict no branch per value; a word of 64 kept values moves as one
 * block, its ends shifted. End k is written only after every end it replaces
 * has been read (k <= i, and k == i - 1 only when nothing was dropped, where
 * the end is unchanged). In place a value lands at or before its source, and
 * a 32-byte move is used only where it can overwrite nothing still to be
 * read. */
PK_INLINE int64_t compact_binary(uint8_t *data, int64_t first, uint8_t *e, size_t OW, int64_t n,
                                 const uint8_t *keep, const uint8_t *src,
                                 const uint8_t *src_end) {
    const int64_t last = n ? cb_end(e, OW, n - 1) : first;
    int64_t pos = first, k = 0;
    for (int64_t w0 = 0; w0 < n; w0 += 64) {
        int64_t len = n - w0 < 64 ? n - w0 : 64;
        uint64_t m = 0;
        memcpy(&m, keep + w0 / 8, (size_t)(len + 7) / 8);
        if (len < 64) m &= (UINT64_C(1) << len) - 1;
        if (len == 64 && m == ~UINT64_C(0)) {
            int64_t from = w0 ? cb_end(e, OW, w0 - 1) : first, delta = from - pos;
            int64_t bytes = cb_end(e, OW, w0 + 63) - from;
            if (src) memcpy(data + pos, src + (from - first), (size_t)bytes);
            else if (delta) memmove(data + pos, data + from, (size_t)bytes);
            for (int64_t j = 0; j < 64; j++) cb_set(e, OW, k + j, cb_end(e, OW, w0 + j) - delta);
            pos += bytes;
            k += 64;
            continue;
        }
        while (m) {
            int64_t i = w0 + __builtin_ctzll(m);
            m &= m - 1;
            int64_t from = i ? cb_end(e, OW, i - 1) : first, vlen = cb_end(e, OW, i) - from;
            if (src) {
                const uint8_t *v = src + (from - first);
                copy_value(data + pos, v, (size_t)vlen, src_end - v >= 32);
            } else if (vlen <= 32 && from - pos >= 32 && last - from >= 32) {
                copy_value(data + pos, data + from, 32, true);
            } else if (pos != from) {
                memmove(data + pos, data + from, (size_t)vlen);
            }
            pos += vlen;
            cb_set(e, OW, k++, pos);
        }
    }
    return k;
}

int64_t pk_compact_binary(uint8_t *data, int64_t first, uint8_t *ends, size_t ow, int64_t n,
                          const uint8_t *keep, const uint8_t *src, const uint8_t *src_end) {
    if (ow == 8) return compact_binary(data, first, ends, 8, n, keep, src, src_end);
    return compact_binary(data, first, ends, 4, n, keep, src, src_end);
}

/* pk_compact_binary over a pk_buffer and int64 ends from byte base, its size
 * set to the kept values' end (its padding kept zero). */
static int64_t compact_appended(pk_buffer *data, size_t base, int64_t *ends, int64_t n,
                                const uint8_t *keep, const uint8_t *src,
                                const uint8_t *src_end) {
    int64_t c = compact_binary(data->data, (int64_t)base, (uint8_t *)ends, 8, n, keep, src,
                               src_end);
    data->size = c ? (size_t)ends[c - 1] : base;
    memset(data->data + data->size, 0, 16);
    return c;
}

/* get_binary, of every value (keep NULL) or of those whose bit of keep is set
 * (the count in *kept; ends needs room for n even so): PLAIN pages copy each
 * value and advance the output by its keep bit (no branch on it: rows kept at
 * random would mispredict half the time), dictionary pages drop the indices of
 * the others first, DELTA_LENGTH pages copy the kept values from the page, the
 * rest decode every value and compact. */
/* Dictionary entries idx[0..m) to dst, each moved as W bytes (dict->move
 * is W: no entry is longer), their ends from `end` on to ends. */
PK_INLINE void dict_bytes_move(uint8_t *dst, const pk_dict *dict, const uint32_t *idx,
                               int64_t m, size_t W, int64_t *ends, int64_t end) {
    const int64_t *doff = dict->offsets;
    for (int64_t i = 0; i < m; i++) {
        uint32_t x = idx[i];
        int64_t s0 = doff[x], len = doff[x + 1] - s0;
        memcpy(dst, dict->data + s0, W); /* a constant size: moves, no call */
        dst += len;
        ends[i] = end += len;
    }
}

/* The PLAIN byte arrays of get_binary_sel, each value up to W bytes moved as W
 * bytes (the page's bytes permitting; data has PK_BUFFER_PADDING, 64, bytes
 * after its capacity), longer ones by memcpy; *ors gathers the lengths' bits. */
PK_INLINE plank_status plain_bytes_get(pk_decoder *d, int64_t n, const uint8_t *keep,
                                       pk_buffer *data, int64_t *ends, size_t W, uint32_t *ors,
                                       int64_t *kept, plank_error *err) {
    size_t base = data->size;
    const uint8_t *p = d->p, *end = d->end;
    uint8_t *dst = data->data + base;
    int64_t bytes = 0, c = 0;
    uint32_t o = 0;
    for (int64_t i = 0; i < n; i++) {
        size_t left = (size_t)(end - p);
        PK_RETURN_IF(left < 4, err, PLANK_ERR_CORRUPT,
                     "PLAIN byte array %lld: length at byte %zu is truncated",
                     (long long)(d->pos + i), (size_t)(p - d->start));
        uint32_t l = pk_load_u32(p);
        PK_RETURN_IF(l > left - 4, err, PLANK_ERR_CORRUPT,
                     "PLAIN byte array %lld at byte %zu has length %u, %zu bytes remain",
                     (long long)(d->pos + i), (size_t)(p - d->start), (unsigned)l, left - 4);
        o |= l;
        if (PK_UNLIKELY(base + (size_t)bytes + l > data->capacity)) {
            PK_FORWARD(pk_buffer_reserve(data, base + (size_t)bytes + l, err));
            dst = data->data + base;
        }
        if (PK_LIKELY(l <= W && left - 4 >= W)) {
            memcpy(dst + bytes, p + 4, W); /* a constant size: moves, no call */
        } else {
            memcpy(dst + bytes, p + 4, l);
        }
        int64_t kb = keep ? pk_bit_get(keep, i) : 1;
        bytes += (int64_t)l & -kb;
        ends[c] = (int64_t)base + bytes;
        c += kb;
        p += 4 + (size_t)l;
    }
    data->size = base + (size_t)bytes;
    memset(data->data + data->size, 0, 16); /* the padding stays zero */
    d->p = p;
    d->pos += n;
    *ors = o;
    *kept = c;
    return PLANK_OK;
}

PK_INLINE plank_status get_binary_sel(pk_decoder *d, int64_t n, const uint8_t *keep,
                                      pk_buffer *data, int64_t *ends, int64_t *kept,
                                      plank_error *err) {
    PK_RETURN_IF(d->type != PLANK_BYTE_ARRAY, err, PLANK_ERR_INVALID_ARGUMENT,
                 "get_binary on a %s column", plank_physical_type_name(d->type));
    PK_FORWARD(check_count(d, n, err));
    int64_t c = 0; /* values written to ends */
    if (d->encoding == PLANK_ENC_PLAIN_DICTIONARY || d->encoding == PLANK_ENC_RLE_DICTIONARY) {
        /* Indices first, then the bytes they select summed, one reserve, and
         * the copies: every byte is copied once and the buffer grows at most
         * once per 256 values. */
        uint32_t idx[256];
        const pk_dict *dict = d->dict;
        const int64_t *doff = dict->offsets;
        const pk_kernels *kn = kernels_of(d);
        for (int64_t done = 0; done < n;) {
            int64_t k = n - done < 256 ? n - done : 256;
            PK_FORWARD(dict_indices(d, idx, k, err));
            d->pos += k;
            /* the kept indices only (done is a multiple of 256: whole keep bytes) */
            int64_t m = keep ? kn->compact_fixed((uint8_t *)idx, (const uint8_t *)idx, 4,
                                                 keep + done / 8, (size_t)k)
                             : k;
            done += k;
            if (dict->short_slots) {
                /* Short entries: each value one move of the slot's width
                 * from the table, the output advanced by its length. The
                 * width a value bounds what is written (the buffer's
                 * padding takes the last move's overhang). */
                size_t base = data->size;
                PK_FORWARD(pk_buffer_reserve(data, base + (size_t)m * 32, err));
                uint8_t *out = data->data, *dst = out + base;
                const uint8_t *slots = dict->short_slots, *lens = dict->short_lens;
                /* The index and length are loaded before the move: after
                 * it, the compiler must load them again (the output could
                 * alias them). */
                if (dict->short_width == 16) {
                    for (int64_t i = 0; i < m; i++) {
                        uint32_t x = idx[i];
                        size_t len = lens[x];
                        memcpy(dst, slots + (size_t)x * 16, 16);
                        dst += len;
                        ends[c++] = (int64_t)(dst - out);
                    }
                } else {
                    for (int64_t i = 0; i < m; i++) {
                        uint32_t x = idx[i];
                        size_t len = lens[x];
                        memcpy(dst, slots + (size_t)x * 32, 32);
                        dst += len;
                        ends[c++] = (int64_t)(dst - out);
                    }
                }
                data->size = (size_t)(dst - out);
                memset(data->data + data->size, 0, 16); /* the padding stays zero */
                continue;
            }
            size_t total = 0, base = data->size;
            for (int64_t i = 0; i < m; i++) total += (size_t)(doff[idx[i] + 1] - doff[idx[i]]);
            PK_FORWARD(pk_buffer_reserve(data, base + total, err));
            uint8_t *dst = data->data + base;
            int64_t end = (int64_t)base;
            if (dict->move) {
                /* every entry one move of the dictionary's width */
                if (dict->move == 16) dict_bytes_move(dst, dict, idx, m, 16, ends + c, end);
                else if (dict->move == 32) dict_bytes_move(dst, dict, idx, m, 32, ends + c, end);
                else dict_bytes_move(dst, dict, idx, m, 64, ends + c, end);
                c += m;
                data->size = base + total;
                memset(data->data + data->size, 0, 16); /* the padding stays zero */
                continue;
            }
            for (int64_t i = 0; i < m; i++) {
                int64_t s0 = doff[idx[i]], len = doff[idx[i] + 1] - s0;
                /* Values up to 32 bytes as one or two 16-byte moves: the
                 * dictionary's and data's buffers both have PK_BUFFER_PADDING
                 * bytes after them. */
                if (len <= 16) memcpy(dst, dict->data + s0, 16);
                else copy_value(dst, dict->data + s0, (size_t)len, true);
                dst += len;
                ends[c++] = end += len;
            }
            data->size = base + total;
            memset(data->data + data->size, 0, 16); /* the padding stays zero */
        }
        *kept = c;
        return PLANK_OK;
    }
    if (d->encoding == PLANK_ENC_PLAIN && keep && few_set(d, keep, 0, n, PLAIN_SPARSE)) {
        /* Few kept (Q12's l_shipmode, 2% of its rows after the date terms):
         * the values between them passed over by the length chain alone,
         * and only the kept ones checked and copied. */
        size_t base = data->size;
        int64_t at = 0, end = (int64_t)base;
        PK_FOR_LIVE(keep, 0, n, j, {
            PK_FORWARD(plain_bytes_skip(d, j - at, err));
            const uint8_t *v;
            size_t vlen;
            PK_FORWARD(next_bytes(d, &v, &vlen, err));
            PK_FORWARD(pk_buffer_append(data, v, vlen, err));
            ends[c++] = end += (int64_t)vlen;
            at = j + 1;
        });
        PK_FORWARD(plain_bytes_skip(d, n - at, err));
        PK_FORWARD(pk_buffer_reserve(data, data->size, err));
        memset(data->data + data->size, 0, 16); /* the padding stays zero */
        *kept = c;
        return PLANK_OK;
    }
    if (d->encoding == PLANK_ENC_PLAIN) {
        /* One pass: each length checked and its bytes copied. A buffer the
         * caller sized (the Arrow leaf, from its last batch) keeps its size
         * and grows only when the values pass it; an empty one is reserved
         * for a guess (64 bytes a value, never more than the page has left).
         * Reserving the guess in a sized buffer doubled it for nothing
         * whenever a batch began a page: the page's rest is most of a
         * megabyte, and the copy of what the batch held was 2% of a read
         * in 16,384-row batches. */
        size_t base = data->size;
        size_t guess = (size_t)n < ((size_t)(d->end - d->p)) / 64 ? (size_t)n * 64 + 64
                                                                  : (size_t)(d->end - d->p);
        PK_FORWARD(pk_buffer_reserve(data, data->capacity > base ? base : base + guess, err));
        /* Each value is one move of a fixed width, the narrowest of 16, 32
         * and 64 bytes that held every value of the decoder's last read:
         * lengths that vary within a width take no branch each (TPC-H's
         * comments, 10 to 43 bytes, mispredicted one about every value
         * between the 16-, 32-byte and memcpy copies). */
        size_t w = d->plain_move ? d->plain_move : 32;
        uint32_t ors = 0;
        if (w == 16) PK_FORWARD(plain_bytes_get(d, n, keep, data, ends, 16, &ors, kept, err));
        else if (w == 32) PK_FORWARD(plain_bytes_get(d, n, keep, data, ends, 32, &ors, kept, err));
        else PK_FORWARD(plain_bytes_get(d, n, keep, data, ends, 64, &ors, kept, err));
        d->plain_move = ors < 16 ? 16 : ors < 32 ? 32 : 64;
        if (d->keep) d->keep->plain_move = d->plain_move;
        return PLANK_OK;
    }
    size_t base = data->size;
    if (d->kernels && d->encoding == PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY) {
        /* One copy of the whole run of values, or the kept ones from the page. */
        size_t total = dlba_span(d, n);
        int64_t end = (int64_t)base;
        for (int64_t i = 0; i < n; i++) ends[i] = end += d->lengths[d->pos + i];
        if (keep) {
            PK_FORWARD(pk_buffer_reserve(data, base + total, err));
            *kept = compact_appended(data, base, ends, n, keep, d->p, d->end);
        } else {
            PK_FORWARD(pk_buffer_append(data, d->p, total, err));
            *kept = n;
        }
        d->p += total;
        d->pos += n;
        return PLANK_OK;
    }
    if (d->kernels && d->encoding == PLANK_ENC_DELTA_BYTE_ARRAY) {
        /* The output sized by the values written: the kept ones when only
         * those are built. */
        bool sparse = keep && few_set(d, keep, 0, n, DBA_SPARSE);
        const uint32_t *pres = d->prefixes + d->pos, *sufs = d->lengths + d->pos;
        size_t total = 0;
        if (sparse) {
            total = dba_selected_bytes(d, keep, 0, n);
        } else {
            for (int64_t i = 0; i < n; i++) total += (size_t)pres[i] + sufs[i];
        }
        PK_FORWARD(dba_reserve_last(d, n, err));
        PK_FORWARD(pk_buffer_reserve(data, base + total, err));
        if (sparse)
            c = dba_sparse(d, n, keep, 0, data->data + base, ends, (int64_t)base, false);
        else
            c = dba_run(d, n, data->data + base, data->data + data->capacity, ends,
                        (int64_t)base, keep);
        data->size = c ? (size_t)ends[c - 1] : base;
        memset(data->data + data->size, 0, 16); /* the padding stays zero */
        *kept = c;
        return PLANK_OK;
    }
    /* Allocated even when every value is empty: the compaction writes the
     * padding after the values. */
    PK_FORWARD(pk_buffer_reserve(data, base, err));
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *v;
        size_t vlen;
        PK_FORWARD(next_bytes(d, &v, &vlen, err));
        PK_FORWARD(pk_buffer_append(data, v, vlen, err));
        ends[i] = (int64_t)data->size;
    }
    *kept = keep ? compact_appended(data, base, ends, n, keep, NULL, NULL) : n;
    return PLANK_OK;
}

plank_status pk_decoder_get_binary(pk_decoder *d, int64_t n, pk_buffer *data, int64_t *ends,
                                   plank_error *err) {
    int64_t kept;
    return get_binary_sel(d, n, NULL, data, ends, &kept, err);
}

plank_status pk_decoder_get_binary_keep(pk_decoder *d, int64_t n, const uint8_t *keep,
                                        pk_buffer *data, int64_t *ends, int64_t *kept,
                                        plank_error *err) {
    return get_binary_sel(d, n, keep, data, ends, kept, err);
}

plank_status pk_decoder_get_binary_live(pk_decoder *d, int64_t n, const uint8_t *live,
                                        int64_t bit, pk_buffer *data, int64_t *ends,
                                        plank_error *err) {
    if (!live || !d->kernels || d->encoding != PLANK_ENC_DELTA_BYTE_ARRAY ||
        d->type != PLANK_BYTE_ARRAY || !few_set(d, live, bit, n, DBA_SPARSE))
        return pk_decoder_get_binary(d, n, data, ends, err);
    PK_FORWARD(check_count(d, n, err));
    /* Only the selected values are written: their lengths, not all n
     * (fewer than one in DBA_SPARSE), size the output. */
    size_t base = data->size, total = dba_selected_bytes(d, live, bit, n);
    PK_FORWARD(dba_reserve_last(d, n, err));
    PK_FORWARD(pk_buffer_reserve(data, base + total, err));
    dba_sparse(d, n, live, bit, data->data + base, ends, (int64_t)base, true);
    data->size = n ? (size_t)ends[n - 1] : base;
    memset(data->data + data->size, 0, 16); /* the padding stays zero */
    return PLANK_OK;
}

plank_status pk_decoder_skip(pk_decoder *d, int64_t n, plank_error *err) {
    PK_FORWARD(check_count(d, n, err));
    switch (d->encoding) {
    case PLANK_ENC_PLAIN:
        if (d->type == PLANK_BYTE_ARRAY) return plain_bytes_skip(d, n, err);
        d->pos += n;
        return PLANK_OK;
    case PLANK_ENC_BYTE_STREAM_SPLIT:
        d->pos += n;
        return PLANK_OK;
    case PLANK_ENC_PLAIN_DICTIONARY:
    case PLANK_ENC_RLE_DICTIONARY:
    case PLANK_ENC_RLE:
        PK_FORWARD(pk_rle_skip(&d->rle, n, err));
        d->pos += n;
        return PLANK_OK;
    case PLANK_ENC_DELTA_BINARY_PACKED:
        if (d->kernels) {
            PK_FORWARD(pk_delta_skip_k(&d->delta, d->kernels, n, err));
        } else {
            PK_FORWARD(pk_delta_skip(&d->delta, n, err));
        }
        d->pos += n;
        return PLANK_OK;
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (!d->kernels) break;
        d->p += dlba_span(d, n);
        d->pos += n;
        return PLANK_OK;
    case PLANK_ENC_DELTA_BYTE_ARRAY:
        /* The scalar reference (no kernels) walks value by value below. */
        if (!d->kernels) break;
        return dba_skip(d, n, err);
    default: break;
    }
    /* Byte arrays: walk them (DELTA_BYTE_ARRAY must keep the previous value). */
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *v;
        size_t vlen;
        PK_FORWARD(next_bytes(d, &v, &vlen, err));
    }
    return PLANK_OK;
}
