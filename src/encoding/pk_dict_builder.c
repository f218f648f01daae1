/*
 * pk_dict_builder.c: the dictionary builder of pk_encoder.h and the encoder
 * of dictionary indices.
 *
 * The table is open addressing with linear probing over a power-of-two
 * number of two-word slots: the 4- or 8-byte value itself (so a lookup of
 * those types touches one slot and nothing else) or, for other widths, the
 * value's 64-bit hash (so growing never rehashes bytes and a probe compares
 * bytes only when the hashes agree); then entry index + 1 (0 = empty). The
 * table doubles before an insertion would take it past 5/8 full.
 *
 * Values compare by their bytes: floats by bit pattern (so -0 and +0 are two
 * entries, and NaNs are one entry per payload).
 *
 * On PLANK_ERR_OUT_OF_MEMORY the builder keeps every entry inserted before
 * the failing one and stays usable; the indices of that put are unspecified.
 */
#include "pk_encoder.h"
#include "pk_encoding.h"

#define DICT_MIN_SLOTS 64
/* Indices are stored + 1 in uint32 slots and written in 32-bit widths. */
#define DICT_MAX_ENTRIES ((int64_t)UINT32_MAX - 1)

/* Entries the table holds before it must grow. */
static size_t max_entries(size_t slots) { return slots / 2 + slots / 8; }

static size_t slot_count(const pk_dict_builder *d) { return d->slots ? d->slot_mask + 1 : 0; }

/* ---- Hashing -------------------------------------------------------------- */

static const uint64_t k_mul1 = UINT64_C(0x9E3779B97F4A7C15);
static const uint64_t k_mul2 = UINT64_C(0xC2B2AE3D27D4EB4F);

PK_INLINE uint64_t finish(uint64_t h) {
    h ^= h >> 31;
    h *= k_mul2;
    h ^= h >> 29;
    h *= k_mul1;
    return h ^ (h >> 32);
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = (uint64_t)n * k_mul1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h ^= pk_load_u64(p + i) * k_mul2;
        h = ((h << 27) | (h >> 37)) * k_mul1;
    }
    if (i < n) {
        /* the tail byte by byte: short strings (flags, codes) are the common
         * dictionary keys, and a memcpy call per value costs more than this */
        uint64_t t = 0;
        for (size_t k = 0; i + k < n; k++) t |= (uint64_t)p[i + k] << (8 * k);
        h ^= t * k_mul2;
    }
    return finish(h);
}

/* Value widths with their own compiled loops: 4 and 8 bytes (INT32/FLOAT,
 * INT64/DOUBLE) load and compare one word; W_ANY is any other fixed width,
 * W_BINARY the BYTE_ARRAY values. */
enum { W_BINARY = 0, W_ANY = -1 };

PK_INLINE uint64_t hash_value(const uint8_t *p, size_t len, int w) {
    if (w == 4) return finish(pk_load_u32(p) + k_mul1);
    if (w == 8) return finish(pk_load_u64(p) + k_mul1);
    return hash_bytes(p, len);
}

PK_INLINE bool entry_equals(const pk_dict_builder *d, uint32_t e, const uint8_t *p, size_t len,
                            int w) {
    const uint8_t *vals = d->values.data;
    if (w == 4) return pk_load_u32(vals + (size_t)e * 4) == pk_load_u32(p);
    if (w == 8) return pk_load_u64(vals + (size_t)e * 8) == pk_load_u64(p);
    if (w == W_BINARY) {
        const int64_t *off = (const int64_t *)(const void *)d->offsets.data;
        if ((size_t)(off[e + 1] - off[e]) != len) return false;
        if (len == 0) return true; /* vals is NULL while every entry is empty */
        const uint8_t *q = vals + off[e];
        if (len <= 8) {
            for (size_t k = 0; k < len; k++)
                if (q[k] != p[k]) return false;
            return true;
        }
        return memcmp(q, p, len) == 0;
    }
    return memcmp(vals + (size_t)e * len, p, len) == 0;
}

/* ---- Table ------------------------------------------------------------------ */

/* Slot word 0: the 4/8-byte value itself, so a lookup of those types reads
 * one 16-byte slot and never the values array; for other widths the full
 * hash, compared before the bytes. */
PK_INLINE uint64_t slot_key(const uint8_t *p, size_t len, int w, uint64_t h) {
    if (w == 4) return pk_load_u32(p);
    if (w == 8) return pk_load_u64(p);
    (void)len;
    return h;
}

PK_INLINE uint64_t key_hash(uint64_t key, int w) {
    return w == 4 || w == 8 ? finish(key + k_mul1) : key;
}

static int width_class(const pk_dict_builder *d) {
    if (d->type == PLANK_BYTE_ARRAY) return W_BINARY;
    return d->width == 4 || d->width == 8 ? d->width : W_ANY;
}

static plank_status dict_grow(pk_dict_builder *d, plank_error *err) {
    size_t old = slot_count(d);
    size_t size = old ? old * 2 : DICT_MIN_SLOTS;
    PK_RETURN_IF(old > SIZE_MAX / 4 / sizeof(uint64_t), err, PLANK_ERR_OUT_OF_MEMORY,
                 "dictionary hash table of %zu slots is too large", old);
    uint64_t *slots = pk_calloc(d->alloc, size * 2 * sizeof *slots);
    PK_RETURN_IF(!slots, err, PLANK_ERR_OUT_OF_MEMORY,
                 "out of memory for a dictionary hash table of %zu slots", size);
    size_t mask = size - 1;
    int w = width_class(d);
    for (size_t o = 0; o < old; o++) {
        if (!d->slots[2 * o + 1]) continue;
        size_t s = (size_t)key_hash(d->slots[2 * o], w) & mask;
        while (slots[2 * s + 1]) s = (s + 1) & mask;
        slots[2 * s] = d->slots[2 * o];
        slots[2 * s + 1] = d->slots[2 * o + 1];
    }
    pk_free(d->alloc, d->slots, old * 2 * sizeof *d->slots);
    d->slots = slots;
    d->slot_mask = mask;
    return PLANK_OK;
}

/* The first empty slot of hash h's probe sequence. */
static size_t free_slot(const pk_dict_builder *d, uint64_t h) {
    size_t s = (size_t)h & d->slot_mask;
    while (d->slots[2 * s + 1]) s = (s + 1) & d->slot_mask;
    return s;
}

/* Adds value p[0..len) (slot key `key`, hash h), whose probe ended at the
 * empty slot s. */
static plank_status dict_insert(pk_dict_builder *d, uint64_t h, uint64_t key, const uint8_t *p,
                                size_t len, size_t s, uint32_t *index, plank_error *err) {
    PK_RETURN_IF(d->count >= DICT_MAX_ENTRIES, err, PLANK_ERR_LIMIT,
                 "dictionary has %lld entries, the most it can hold", (long long)d->count);
    if ((size_t)d->count + 1 > max_entries(slot_count(d))) {
        PK_FORWARD(dict_grow(d, err));
        s = free_slot(d, h);
    }
    size_t at = d->values.size;
    PK_FORWARD(pk_buffer_append(&d->values, p, len, err));
    if (d->type == PLANK_BYTE_ARRAY) {
        int64_t end = (int64_t)d->values.size;
        plank_status st = pk_buffer_append(&d->offsets, &end, sizeof end, err);
        if (st != PLANK_OK) {
            d->values.size = at;
            return st;
        }
        d->plain_bytes += 4;
    }
    d->plain_bytes += len;
    d->slots[2 * s] = key;
    d->slots[2 * s + 1] = (uint64_t)d->count + 1;
    *index = (uint32_t)d->count;
    d->count++;
    return PLANK_OK;
}

/* Values hashed ahead of their lookup: their slots are prefetched a block
 * before they are probed, so a table larger than the cache costs one
 * overlapped miss per value instead of a serial one. */
#define DICT_AHEAD 16

PK_INLINE const uint8_t *value_at(const pk_values *v, size_t i, int w, size_t *len) {
    if (w == W_BINARY) {
        *len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return *len ? v->data + v->offsets[i] : (const uint8_t *)""; /* data may be NULL */
    }
    return v->fixed + i * *len;
}

PK_INLINE plank_status put_body(pk_dict_builder *d, const pk_values *v, uint32_t *indices, int w,
                                plank_error *err) {
    size_t n = (size_t)v->n, len = (size_t)v->width;
    uint64_t ahead[DICT_AHEAD];
    for (size_t i = 0; i < n; i++) {
        if (i % DICT_AHEAD == 0) {
            size_t m = n - i < DICT_AHEAD ? n - i : DICT_AHEAD;
            for (size_t k = 0; k < m; k++) {
                size_t l = (size_t)v->width;
                const uint8_t *q = value_at(v, i + k, w, &l);
                ahead[k] = hash_value(q, l, w);
                __builtin_prefetch(&d->slots[2 * ((size_t)ahead[k] & d->slot_mask)]);
            }
        }
        const uint8_t *p = value_at(v, i, w, &len);
        uint64_t h = ahead[i % DICT_AHEAD];
        uint64_t key = slot_key(p, len, w, h);
        size_t s = (size_t)h & d->slot_mask;
        for (;;) {
            uint64_t e = d->slots[2 * s + 1];
            if (!e) {
                PK_FORWARD(dict_insert(d, h, key, p, len, s, &indices[i], err));
                break;
            }
            if (d->slots[2 * s] == key &&
                (w == 4 || w == 8 || entry_equals(d, (uint32_t)(e - 1), p, len, w))) {
                indices[i] = (uint32_t)(e - 1);
                break;
            }
            s = (s + 1) & d->slot_mask;
        }
    }
    return PLANK_OK;
}

/* ---- Builder ------------------------------------------------------------------ */

plank_status pk_dict_builder_init(pk_dict_builder *d, plank_physical_type type, int32_t width,
                                  const plank_allocator *alloc, plank_error *err) {
    memset(d, 0, sizeof *d);
    d->alloc = alloc ? alloc : pk_default_allocator();
    pk_buffer_init(&d->values, d->alloc);
    pk_buffer_init(&d->offsets, d->alloc);
    d->type = type;
    /* The widths pk_values_check expects (BYTE_ARRAY: 0). */
    pk_values probe = {.type = type, .width = width, .n = 0};
    if (type != PLANK_BYTE_ARRAY) PK_FORWARD(pk_values_check(&probe, err));
    PK_RETURN_IF(type == PLANK_BOOLEAN, err, PLANK_ERR_INVALID_ARGUMENT,
                 "BOOLEAN columns are not dictionary-encoded");
    d->width = type == PLANK_BYTE_ARRAY ? 0 : width;
    if (type == PLANK_BYTE_ARRAY) {
        int64_t zero = 0;
        PK_FORWARD(pk_buffer_append(&d->offsets, &zero, sizeof zero, err));
    }
    return PLANK_OK;
}

void pk_dict_builder_release(pk_dict_builder *d) {
    size_t slots = slot_count(d);
    pk_free(d->alloc, d->slots, slots * 2 * sizeof *d->slots);
    d->slots = NULL;
    d->slot_mask = 0;
    pk_buffer_reset(&d->values);
    pk_buffer_reset(&d->offsets);
    d->count = 0;
    d->plain_bytes = 0;
}

void pk_dict_builder_clear(pk_dict_builder *d) {
    if (d->slots) memset(d->slots, 0, slot_count(d) * 2 * sizeof *d->slots);
    d->count = 0;
    d->plain_bytes = 0;
    d->values.size = 0;
    if (d->offsets.size) d->offsets.size = sizeof(int64_t); /* offsets[0] = 0 stays */
}

plank_status pk_dict_builder_put(pk_dict_builder *d, const pk_values *v, uint32_t *indices,
                                 plank_error *err) {
    PK_FORWARD(pk_values_check(v, err));
    PK_RETURN_IF(v->type != d->type || (d->type != PLANK_BYTE_ARRAY && v->width != d->width),
                 err, PLANK_ERR_INVALID_ARGUMENT,
                 "%s values of width %d put into a dictionary of %s values of width %d",
                 plank_physical_type_name(v->type), (int)v->width,
                 plank_physical_type_name(d->type), (int)d->width);
    if (v->n == 0) return PLANK_OK;
    PK_RETURN_IF(!indices, err, PLANK_ERR_INVALID_ARGUMENT, "no array for the indices");
    if (!d->slots) PK_FORWARD(dict_grow(d, err));
    if (d->type == PLANK_BYTE_ARRAY) return put_body(d, v, indices, W_BINARY, err);
    if (d->width == 4) return put_body(d, v, indices, 4, err);
    if (d->width == 8) return put_body(d, v, indices, 8, err);
    return put_body(d, v, indices, W_ANY, err);
}

void pk_dict_builder_entries(const pk_dict_builder *d, pk_values *out) {
    memset(out, 0, sizeof *out);
    out->type = d->type;
    out->width = d->width;
    out->n = d->count;
    if (d->type == PLANK_BYTE_ARRAY) {
        out->offsets = (const int64_t *)(const void *)d->offsets.data;
        out->data = d->values.data;
    } else {
        out->fixed = d->values.data;
    }
}

plank_status pk_dict_builder_encode(const pk_dict_builder *d, pk_buffer *out, plank_error *err) {
    pk_values e;
    pk_dict_builder_entries(d, &e);
    return pk_encode_values(PLANK_ENC_PLAIN, &e, out, NULL, err);
}

/* ---- Indices ------------------------------------------------------------------- */

plank_status pk_encode_dict_indices(const uint32_t *idx, size_t n, int64_t dict_count,
                                    pk_buffer *out, plank_error *err) {
    PK_RETURN_IF(dict_count < 0 || dict_count > (int64_t)UINT32_MAX + 1, err,
                 PLANK_ERR_INVALID_ARGUMENT, "dictionary of %lld entries", (long long)dict_count);
    uint32_t max = 0;
    for (size_t i = 0; i < n; i++) max = idx[i] > max ? idx[i] : max;
    PK_RETURN_IF(n > 0 && (uint64_t)max >= (uint64_t)dict_count, err, PLANK_ERR_INVALID_ARGUMENT,
                 "dictionary index %u with %lld entries", (unsigned)max, (long long)dict_count);
    int bw = dict_count > 1 ? pk_bit_width_for((uint64_t)dict_count - 1) : 0;
    size_t at = out->size;
    uint8_t b = (uint8_t)bw;
    PK_FORWARD(pk_buffer_append(out, &b, 1, err));
    plank_status st = pk_rle_encode_u32(idx, n, bw, out, err);
    if (st != PLANK_OK) out->size = at;
    return st;
}
