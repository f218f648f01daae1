/*
 * pk_variant_write.c: building encoded VARIANT values (pk_vwriter,
 * pk_variant.h).
 *
 * A container's elements are written one after another from the frame's
 * start; each element's start is recorded as an entry (with its field id
 * for objects). Closing the container computes the header (count, id and
 * offset widths, the smallest that fit), orders an object's entries by key
 * bytes, copies the element bytes aside and writes header, ids, offsets and
 * the elements back in that order from the frame's start, so the offsets of
 * the result always increase (as Spark and DuckDB write them). An enclosing
 * container recorded its element's start before the header existed, which
 * is still where the element begins. Every offset is at most 4 bytes, so a
 * container whose elements exceed 4 GiB - 1 is refused.
 */
#include "pk_variant.h"

#include <string.h>

#define VW_MAX_U32 ((uint64_t)UINT32_MAX)

/* Bytes of the smallest unsigned little-endian field holding v (1..4). */
static uint32_t width_of(uint32_t v) {
    return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffff ? 3 : 4;
}

static void store_uint(uint8_t *p, uint32_t v, uint32_t size) {
    for (uint32_t i = 0; i < size; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void store_le(uint8_t *p, uint64_t v, uint32_t size) {
    for (uint32_t i = 0; i < size; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- Life cycle --------------------------------------------------------------- */

void pk_vw_init(pk_vwriter *w, const plank_allocator *a) {
    memset(w, 0, sizeof *w);
    w->alloc = a ? a : pk_default_allocator();
    pk_buffer_init(&w->value, w->alloc);
    pk_buffer_init(&w->key_bytes, w->alloc);
    pk_buffer_init(&w->scratch, w->alloc);
}

void pk_vw_free(pk_vwriter *w) {
    if (!w || !w->alloc) return;
    pk_buffer_reset(&w->value);
    pk_buffer_reset(&w->key_bytes);
    pk_buffer_reset(&w->scratch);
    pk_free(w->alloc, w->frames, w->cap_frames * sizeof *w->frames);
    pk_free(w->alloc, w->entries, w->cap_entries * sizeof *w->entries);
    pk_free(w->alloc, w->key_offsets, ((size_t)w->cap_keys + 1) * sizeof *w->key_offsets);
    pk_free(w->alloc, w->slots, (size_t)w->num_slots * sizeof *w->slots);
    memset(w, 0, sizeof *w);
}

void pk_vw_reset(pk_vwriter *w) {
    w->value.size = 0;
    w->num_frames = 0;
    w->num_entries = 0;
    w->done = false;
    w->fixed = NULL;
    w->key_bytes.size = 0;
    w->num_keys = 0;
    if (w->slots) memset(w->slots, 0, (size_t)w->num_slots * sizeof *w->slots);
}

void pk_vw_use_metadata(pk_vwriter *w, const pk_vmeta *m) { w->fixed = m; }

/* ---- Growth -------------------------------------------------------------------- */

/* Grows *p (of *cap elements of `size` bytes) to hold at least `need`. */
static plank_status grow(const plank_allocator *a, void **p, size_t *cap, size_t need, size_t size,
                         plank_error *err) {
    if (need <= *cap) return PLANK_OK;
    size_t n = *cap ? *cap : 8;
    while (n < need) {
        PK_RETURN_IF(n > SIZE_MAX / 2 / size, err, PLANK_ERR_OUT_OF_MEMORY,
                     "variant writer: %zu entries do not fit in memory", need);
        n *= 2;
    }
    void *q = pk_realloc(a, *p, *cap * size, n * size);
    PK_RETURN_IF(!q, err, PLANK_ERR_OUT_OF_MEMORY, "variant writer: out of memory (%zu bytes)",
                 n * size);
    *p = q;
    *cap = n;
    return PLANK_OK;
}

/* ---- Element bookkeeping ---------------------------------------------------------- */

/* Called before any value (primitive or container) is written: records the
 * element in the enclosing container, or checks that this is the one
 * top-level value. */
static plank_status begin_value(pk_vwriter *w, plank_error *err) {
    if (w->num_frames == 0) {
        PK_RETURN_IF(w->done, err, PLANK_ERR_INVALID_ARGUMENT,
                     "variant writer: a second value after the whole value was written "
                     "(pk_vw_reset starts a new one)");
        return PLANK_OK;
    }
    pk_vw_frame *f = &w->frames[w->num_frames - 1];
    if (f->basic == PK_VB_OBJECT) {
        PK_RETURN_IF(!f->key_pending, err, PLANK_ERR_INVALID_ARGUMENT,
                     "variant writer: an object field's value without its key");
        f->key_pending = false;
        return PLANK_OK;
    }
    size_t rel = w->value.size - f->start;
    PK_RETURN_IF(rel > VW_MAX_U32, err, PLANK_ERR_LIMIT,
                 "variant writer: an array's elements exceed 4 GiB - 1 bytes");
    PK_FORWARD(grow(w->alloc, (void **)&w->entries, &w->cap_entries, w->num_entries + 1,
                    sizeof *w->entries, err));
    pk_vw_entry *e = &w->entries[w->num_entries++];
    e->id = 0;
    e->offset = (uint32_t)rel;
    e->size = 0;
    return PLANK_OK;
}

/* Marks a whole top-level value written. */
static void end_value(pk_vwriter *w) {
    if (w->num_frames == 0) w->done = true;
}

/* Appends one primitive: header byte then n bytes of data. */
static plank_status put_primitive(pk_vwriter *w, pk_vtype t, const void *data, size_t n,
                                  plank_error *err) {
    PK_FORWARD(begin_value(w, err));
    uint8_t h = (uint8_t)((unsigned)t << 2 | PK_VB_PRIMITIVE);
    PK_FORWARD(pk_buffer_append(&w->value, &h, 1, err));
    if (n) PK_FORWARD(pk_buffer_append(&w->value, data, n, err));
    end_value(w);
    return PLANK_OK;
}

/* ---- Primitives ------------------------------------------------------------------ */

plank_status pk_vw_null(pk_vwriter *w, plank_error *err) {
    return put_primitive(w, PK_VT_NULL, NULL, 0, err);
}

plank_status pk_vw_bool(pk_vwriter *w, bool v, plank_error *err) {
    return put_primitive(w, v ? PK_VT_TRUE : PK_VT_FALSE, NULL, 0, err);
}

plank_status pk_vw_int(pk_vwriter *w, pk_vtype t, int64_t v, plank_error *err) {
    uint32_t size;
    int64_t lo, hi;
    switch (t) {
    case PK_VT_INT8: size = 1, lo = INT8_MIN, hi = INT8_MAX; break;
    case PK_VT_INT16: size = 2, lo = INT16_MIN, hi = INT16_MAX; break;
    case PK_VT_INT32: size = 4, lo = INT32_MIN, hi = INT32_MAX; break;
    case PK_VT_INT64: size = 8, lo = INT64_MIN, hi = INT64_MAX; break;
    default:
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "variant writer: type %d is not an integer type", (int)t);
    }
    PK_RETURN_IF(v < lo || v > hi, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: %lld does not fit a %u-byte integer", (long long)v, size);
    /* All eight bytes: the first `size` are the value's (little-endian), and
     * a constant count keeps gcc -O3 from flagging the loop's bound. */
    uint8_t b[8];
    store_le(b, (uint64_t)v, 8);
    return put_primitive(w, t, b, size, err);
}

plank_status pk_vw_int_auto(pk_vwriter *w, int64_t v, plank_error *err) {
    pk_vtype t = v >= INT8_MIN && v <= INT8_MAX     ? PK_VT_INT8
                 : v >= INT16_MIN && v <= INT16_MAX ? PK_VT_INT16
                 : v >= INT32_MIN && v <= INT32_MAX ? PK_VT_INT32
                                                    : PK_VT_INT64;
    return pk_vw_int(w, t, v, err);
}

plank_status pk_vw_double(pk_vwriter *w, double v, plank_error *err) {
    uint8_t b[8];
    memcpy(b, &v, 8);
    return put_primitive(w, PK_VT_DOUBLE, b, 8, err);
}

plank_status pk_vw_float(pk_vwriter *w, float v, plank_error *err) {
    uint8_t b[4];
    memcpy(b, &v, 4);
    return put_primitive(w, PK_VT_FLOAT, b, 4, err);
}

/* |(hi, lo)| < 10^digits, for a two's complement 128-bit value. */
static bool fits_digits(int64_t hi, uint64_t lo, int digits) {
    /* magnitude as unsigned 128 bits */
    uint64_t mh = (uint64_t)hi, ml = lo;
    if (hi < 0) {
        ml = ~ml + 1;
        mh = ~mh + (ml == 0);
    }
    /* 10^digits as (ph, pl) */
    uint64_t ph = 0, pl = 1;
    for (int i = 0; i < digits; i++) {
        /* (ph, pl) *= 10 */
        unsigned __int128 x = (unsigned __int128)pl * 10;
        pl = (uint64_t)x;
        ph = ph * 10 + (uint64_t)(x >> 64);
    }
    return mh < ph || (mh == ph && ml < pl);
}

plank_status pk_vw_decimal(pk_vwriter *w, pk_vtype t, int32_t scale, int64_t hi, uint64_t lo,
                           plank_error *err) {
    uint32_t size;
    int digits;
    switch (t) {
    case PK_VT_DECIMAL4: size = 4, digits = 9; break;
    case PK_VT_DECIMAL8: size = 8, digits = 18; break;
    case PK_VT_DECIMAL16: size = 16, digits = 38; break;
    default:
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "variant writer: type %d is not a decimal type", (int)t);
    }
    PK_RETURN_IF(scale < 0 || scale > 38, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: decimal scale %d is outside 0..38", (int)scale);
    /* The value must be the sign extension of its low `size` bytes. */
    bool neg = hi < 0;
    bool fits = size == 16 || (hi == (neg ? -1 : 0) &&
                               (size == 8 ? ((int64_t)lo < 0) == neg
                                          : (int64_t)lo >= INT32_MIN && (int64_t)lo <= INT32_MAX &&
                                                ((int64_t)lo < 0) == neg));
    PK_RETURN_IF(!fits || !fits_digits(hi, lo, digits), err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: unscaled decimal value has more than %d digits (decimal%u)",
                 digits, size);
    uint8_t b[17];
    b[0] = (uint8_t)scale;
    store_le(b + 1, lo, size < 8 ? size : 8);
    if (size == 16) store_le(b + 9, (uint64_t)hi, 8);
    return put_primitive(w, t, b, 1 + size, err);
}

plank_status pk_vw_temporal(pk_vwriter *w, pk_vtype t, int64_t v, plank_error *err) {
    uint8_t b[8];
    switch (t) {
    case PK_VT_DATE:
        PK_RETURN_IF(v < INT32_MIN || v > INT32_MAX, err, PLANK_ERR_INVALID_ARGUMENT,
                     "variant writer: date %lld days does not fit 32 bits", (long long)v);
        store_le(b, (uint64_t)v, 4);
        return put_primitive(w, t, b, 4, err);
    case PK_VT_TIMESTAMP: case PK_VT_TIMESTAMP_NTZ: case PK_VT_TIME:
    case PK_VT_TIMESTAMP_NANOS: case PK_VT_TIMESTAMP_NTZ_NANOS:
        store_le(b, (uint64_t)v, 8);
        return put_primitive(w, t, b, 8, err);
    default:
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "variant writer: type %d is not a date, time or timestamp", (int)t);
    }
}

/* A long string or binary: 4-byte length then the bytes. */
static plank_status put_sized(pk_vwriter *w, pk_vtype t, const uint8_t *s, size_t len,
                              plank_error *err) {
    PK_RETURN_IF((uint64_t)len > VW_MAX_U32, err, PLANK_ERR_LIMIT,
                 "variant writer: a %s of %zu bytes exceeds 4 GiB - 1",
                 t == PK_VT_STRING ? "string" : "binary", len);
    PK_FORWARD(begin_value(w, err));
    uint8_t h[5];
    h[0] = (uint8_t)((unsigned)t << 2 | PK_VB_PRIMITIVE);
    store_uint(h + 1, (uint32_t)len, 4);
    PK_FORWARD(pk_buffer_append(&w->value, h, 5, err));
    if (len) PK_FORWARD(pk_buffer_append(&w->value, s, len, err));
    end_value(w);
    return PLANK_OK;
}

plank_status pk_vw_string(pk_vwriter *w, const uint8_t *s, size_t len, plank_error *err) {
    if (len >= 64) return put_sized(w, PK_VT_STRING, s, len, err);
    PK_FORWARD(begin_value(w, err));
    uint8_t h = (uint8_t)(len << 2 | PK_VB_SHORT_STRING);
    PK_FORWARD(pk_buffer_append(&w->value, &h, 1, err));
    if (len) PK_FORWARD(pk_buffer_append(&w->value, s, len, err));
    end_value(w);
    return PLANK_OK;
}

plank_status pk_vw_binary(pk_vwriter *w, const uint8_t *s, size_t len, plank_error *err) {
    return put_sized(w, PK_VT_BINARY, s, len, err);
}

plank_status pk_vw_uuid(pk_vwriter *w, const uint8_t bytes16[16], plank_error *err) {
    return put_primitive(w, PK_VT_UUID, bytes16, 16, err);
}

plank_status pk_vw_raw(pk_vwriter *w, const uint8_t *p, size_t len, plank_error *err) {
    PK_RETURN_IF(len == 0, err, PLANK_ERR_INVALID_ARGUMENT, "variant writer: an empty raw value");
    PK_FORWARD(begin_value(w, err));
    PK_FORWARD(pk_buffer_append(&w->value, p, len, err));
    end_value(w);
    return PLANK_OK;
}

/* ---- Keys (own dictionary) ----------------------------------------------------------- */

static uint64_t key_hash(const uint8_t *s, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < len; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

static void own_key(const pk_vwriter *w, uint32_t id, const uint8_t **s, size_t *len) {
    *len = w->key_offsets[id + 1] - w->key_offsets[id];
    /* Keys that are all empty leave the byte buffer unallocated: NULL + 0
     * is undefined in C, so they point at an empty string instead. */
    *s = w->key_bytes.data ? w->key_bytes.data + w->key_offsets[id] : (const uint8_t *)"";
}

/* Rebuilds the hash table with n slots (a power of two). */
static plank_status rehash(pk_vwriter *w, uint32_t n, plank_error *err) {
    uint32_t *slots = pk_calloc(w->alloc, (size_t)n * sizeof *slots);
    PK_RETURN_IF(!slots, err, PLANK_ERR_OUT_OF_MEMORY, "variant writer: out of memory (key table)");
    for (uint32_t id = 0; id < w->num_keys; id++) {
        const uint8_t *s;
        size_t len;
        own_key(w, id, &s, &len);
        uint32_t i = (uint32_t)key_hash(s, len) & (n - 1);
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = id + 1;
    }
    pk_free(w->alloc, w->slots, (size_t)w->num_slots * sizeof *w->slots);
    w->slots = slots;
    w->num_slots = n;
    return PLANK_OK;
}

/* The id of key s in the own dictionary, added when new. */
static plank_status own_lookup(pk_vwriter *w, const uint8_t *s, size_t len, uint32_t *id,
                               plank_error *err) {
    if (w->num_slots == 0 || (uint64_t)(w->num_keys + 1) * 2 > w->num_slots) {
        PK_RETURN_IF(w->num_slots >= (1u << 31), err, PLANK_ERR_LIMIT,
                     "variant writer: too many distinct keys");
        PK_FORWARD(rehash(w, w->num_slots ? w->num_slots * 2 : 64, err));
    }
    uint64_t h = key_hash(s, len);
    uint32_t mask = w->num_slots - 1, i = (uint32_t)h & mask;
    for (; w->slots[i]; i = (i + 1) & mask) {
        const uint8_t *k;
        size_t klen;
        own_key(w, w->slots[i] - 1, &k, &klen);
        if (klen == len && (len == 0 || memcmp(k, s, len) == 0)) { /* s may be NULL then */
            *id = w->slots[i] - 1;
            return PLANK_OK;
        }
    }
    PK_RETURN_IF((uint64_t)w->key_bytes.size + len > VW_MAX_U32, err, PLANK_ERR_LIMIT,
                 "variant writer: the keys exceed 4 GiB - 1 bytes");
    size_t cap = w->cap_keys ? (size_t)w->cap_keys + 1 : 0;
    if ((size_t)w->num_keys + 2 > cap) {
        size_t ncap = cap ? cap * 2 : 16;
        uint32_t *q = pk_realloc(w->alloc, w->key_offsets, cap * sizeof *q, ncap * sizeof *q);
        PK_RETURN_IF(!q, err, PLANK_ERR_OUT_OF_MEMORY, "variant writer: out of memory (keys)");
        w->key_offsets = q;
        w->cap_keys = (uint32_t)(ncap - 1);
    }
    if (w->num_keys == 0) w->key_offsets[0] = 0;
    PK_FORWARD(pk_buffer_append(&w->key_bytes, s, len, err));
    w->key_offsets[w->num_keys + 1] = (uint32_t)w->key_bytes.size;
    *id = w->num_keys++;
    w->slots[i] = *id + 1;
    return PLANK_OK;
}

/* The bytes of field id `id` (own or fixed dictionary). */
static void key_of(const pk_vwriter *w, uint32_t id, const uint8_t **s, size_t *len) {
    if (w->fixed) {
        if (!pk_vmeta_key(w->fixed, id, s, len)) *s = NULL, *len = 0;
    } else {
        own_key(w, id, s, len);
    }
}

/* ---- Containers ---------------------------------------------------------------------- */

static plank_status container_begin(pk_vwriter *w, uint8_t basic, plank_error *err) {
    PK_RETURN_IF(w->num_frames >= PK_VARIANT_MAX_DEPTH, err, PLANK_ERR_LIMIT,
                 "variant writer: objects and arrays nested deeper than %d",
                 PK_VARIANT_MAX_DEPTH);
    PK_FORWARD(begin_value(w, err));
    PK_FORWARD(grow(w->alloc, (void **)&w->frames, &w->cap_frames, w->num_frames + 1,
                    sizeof *w->frames, err));
    pk_vw_frame *f = &w->frames[w->num_frames++];
    f->start = w->value.size;
    f->first_entry = w->num_entries;
    f->basic = basic;
    f->key_pending = false;
    return PLANK_OK;
}

plank_status pk_vw_object_begin(pk_vwriter *w, plank_error *err) {
    return container_begin(w, PK_VB_OBJECT, err);
}

plank_status pk_vw_array_begin(pk_vwriter *w, plank_error *err) {
    return container_begin(w, PK_VB_ARRAY, err);
}

/* Records field `id` as the next element of the innermost object. */
static plank_status add_field(pk_vwriter *w, uint32_t id, plank_error *err) {
    pk_vw_frame *f = &w->frames[w->num_frames - 1];
    size_t rel = w->value.size - f->start;
    PK_RETURN_IF(rel > VW_MAX_U32, err, PLANK_ERR_LIMIT,
                 "variant writer: an object's fields exceed 4 GiB - 1 bytes");
    PK_FORWARD(grow(w->alloc, (void **)&w->entries, &w->cap_entries, w->num_entries + 1,
                    sizeof *w->entries, err));
    pk_vw_entry *e = &w->entries[w->num_entries++];
    e->id = id;
    e->offset = (uint32_t)rel;
    e->size = 0;
    f->key_pending = true;
    return PLANK_OK;
}

static plank_status check_key_place(const pk_vwriter *w, plank_error *err) {
    PK_RETURN_IF(w->num_frames == 0 || w->frames[w->num_frames - 1].basic != PK_VB_OBJECT, err,
                 PLANK_ERR_INVALID_ARGUMENT, "variant writer: a key outside an object");
    PK_RETURN_IF(w->frames[w->num_frames - 1].key_pending, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: a key after a key (the field's value is missing)");
    return PLANK_OK;
}

plank_status pk_vw_key(pk_vwriter *w, const uint8_t *s, size_t len, plank_error *err) {
    PK_FORWARD(check_key_place(w, err));
    uint32_t id = 0;
    if (w->fixed) {
        int64_t found = pk_vmeta_find(w->fixed, s, len);
        PK_RETURN_IF(found < 0, err, PLANK_ERR_INVALID_ARGUMENT,
                     "variant writer: key \"%.*s\" is not in the metadata dictionary",
                     (int)(len > 100 ? 100 : len), (const char *)s);
        id = (uint32_t)found;
    } else {
        PK_FORWARD(own_lookup(w, s, len, &id, err));
    }
    return add_field(w, id, err);
}

plank_status pk_vw_key_id(pk_vwriter *w, uint32_t id, plank_error *err) {
    PK_FORWARD(check_key_place(w, err));
    PK_RETURN_IF(!w->fixed, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: a key by id needs a metadata block (pk_vw_use_metadata)");
    PK_RETURN_IF(id >= w->fixed->dict_size, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: key id %u is not below the dictionary size %u", id,
                 w->fixed->dict_size);
    return add_field(w, id, err);
}

/* Key order: unsigned bytes, a prefix first. */
static int key_cmp(const pk_vwriter *w, uint32_t a, uint32_t b) {
    const uint8_t *sa, *sb;
    size_t la, lb;
    key_of(w, a, &sa, &la);
    key_of(w, b, &sb, &lb);
    size_t n = la < lb ? la : lb;
    int c = n ? memcmp(sa, sb, n) : 0;
    if (c) return c;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

/* Stable merge sort of e[0..n) by key, tmp holding n entries. */
static void sort_entries(const pk_vwriter *w, pk_vw_entry *e, pk_vw_entry *tmp, size_t n) {
    if (n < 2) return;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            pk_vw_entry x = e[i];
            size_t j = i;
            for (; j > 0 && key_cmp(w, e[j - 1].id, x.id) > 0; j--) e[j] = e[j - 1];
            e[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    sort_entries(w, e, tmp, h);
    sort_entries(w, e + h, tmp, n - h);
    if (key_cmp(w, e[h - 1].id, e[h].id) <= 0) return;
    memcpy(tmp, e, n * sizeof *e);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) e[k++] = key_cmp(w, tmp[j].id, tmp[i].id) < 0 ? tmp[j++] : tmp[i++];
    while (i < h) e[k++] = tmp[i++];
    while (j < n) e[k++] = tmp[j++];
}

static plank_status container_end(pk_vwriter *w, uint8_t basic, plank_error *err) {
    const char *what = basic == PK_VB_OBJECT ? "object" : "array";
    PK_RETURN_IF(w->num_frames == 0 || w->frames[w->num_frames - 1].basic != basic, err,
                 PLANK_ERR_INVALID_ARGUMENT, "variant writer: %s end without its begin", what);
    pk_vw_frame *f = &w->frames[w->num_frames - 1];
    PK_RETURN_IF(f->key_pending, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: object end after a key without its value");
    size_t data = w->value.size - f->start;
    size_t num = w->num_entries - f->first_entry;
    PK_RETURN_IF((uint64_t)data > VW_MAX_U32 || (uint64_t)num > VW_MAX_U32, err,
                 PLANK_ERR_LIMIT, "variant writer: an %s of %zu bytes exceeds 4 GiB - 1", what,
                 data);
    pk_vw_entry *e = w->entries ? w->entries + f->first_entry : NULL; /* none yet: NULL */
    for (size_t i = 0; i < num; i++)
        e[i].size = (uint32_t)((i + 1 < num ? e[i + 1].offset : data) - e[i].offset);

    bool sorted = true;
    uint32_t max_id = 0;
    if (basic == PK_VB_OBJECT) {
        for (size_t i = 0; i < num; i++) {
            if (e[i].id > max_id) max_id = e[i].id;
            if (i && sorted && key_cmp(w, e[i - 1].id, e[i].id) >= 0) sorted = false;
        }
        if (!sorted) {
            PK_FORWARD(pk_buffer_resize(&w->scratch, num * sizeof *e, err));
            sort_entries(w, e, (pk_vw_entry *)(void *)w->scratch.data, num);
            for (size_t i = 1; i < num; i++)
                if (key_cmp(w, e[i - 1].id, e[i].id) == 0) {
                    const uint8_t *s;
                    size_t len;
                    key_of(w, e[i].id, &s, &len);
                    return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                        "variant writer: key \"%.*s\" appears twice in one object",
                                        (int)(len > 100 ? 100 : len), s ? (const char *)s : "");
                }
        }
    }
    bool large = num > 255;
    uint32_t id_size = basic == PK_VB_OBJECT ? width_of(max_id) : 0;
    uint32_t off_size = width_of((uint32_t)data);
    size_t head = 1 + (large ? 4 : 1) + num * id_size + (num + 1) * off_size;
    PK_RETURN_IF(w->value.size > SIZE_MAX - head, err, PLANK_ERR_OUT_OF_MEMORY,
                 "variant writer: value too large");
    /* The element bytes go to scratch when they are reordered; otherwise
     * they move up in place. */
    size_t start = f->start;
    PK_FORWARD(pk_buffer_resize(&w->value, w->value.size + head, err));
    uint8_t *base = w->value.data + start;
    if (sorted) {
        memmove(base + head, base, data);
    } else {
        PK_FORWARD(pk_buffer_resize(&w->scratch, data, err));
        base = w->value.data + start;
        memcpy(w->scratch.data, base, data);
        size_t at = 0;
        for (size_t i = 0; i < num; i++) {
            memcpy(base + head + at, w->scratch.data + e[i].offset, e[i].size);
            e[i].offset = (uint32_t)at;
            at += e[i].size;
        }
    }
    uint8_t *p = base;
    *p++ = (uint8_t)(basic | (basic == PK_VB_OBJECT
                                  ? ((large ? 1u : 0u) << 4 | (id_size - 1) << 2 | (off_size - 1))
                                  : ((large ? 1u : 0u) << 2 | (off_size - 1)))
                                 << 2);
    store_uint(p, (uint32_t)num, large ? 4 : 1);
    p += large ? 4 : 1;
    if (basic == PK_VB_OBJECT)
        for (size_t i = 0; i < num; i++, p += id_size) store_uint(p, e[i].id, id_size);
    for (size_t i = 0; i < num; i++, p += off_size) store_uint(p, e[i].offset, off_size);
    store_uint(p, (uint32_t)data, off_size);
    w->num_entries = f->first_entry;
    w->num_frames--;
    end_value(w);
    return PLANK_OK;
}

plank_status pk_vw_object_end(pk_vwriter *w, plank_error *err) {
    return container_end(w, PK_VB_OBJECT, err);
}

plank_status pk_vw_array_end(pk_vwriter *w, plank_error *err) {
    return container_end(w, PK_VB_ARRAY, err);
}

/* ---- Results --------------------------------------------------------------------------- */

plank_status pk_vw_finish(pk_vwriter *w, const uint8_t **value, size_t *len, plank_error *err) {
    PK_RETURN_IF(w->num_frames > 0, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: %zu object(s) or array(s) still open", w->num_frames);
    PK_RETURN_IF(!w->done, err, PLANK_ERR_INVALID_ARGUMENT, "variant writer: no value written");
    *value = w->value.data;
    *len = w->value.size;
    return PLANK_OK;
}

plank_status pk_vw_finish_metadata(pk_vwriter *w, pk_buffer *out, plank_error *err) {
    PK_RETURN_IF(w->fixed, err, PLANK_ERR_INVALID_ARGUMENT,
                 "variant writer: the metadata is the given block (pk_vw_use_metadata)");
    uint32_t n = w->num_keys;
    size_t bytes = w->key_bytes.size;
    uint32_t os = width_of(bytes > n ? (uint32_t)bytes : n);
    bool sorted = true;
    for (uint32_t i = 1; i < n && sorted; i++) sorted = key_cmp(w, i - 1, i) < 0;
    size_t total = 1 + (size_t)os * ((size_t)n + 2) + bytes;
    PK_FORWARD(pk_buffer_resize(out, total, err));
    uint8_t *p = out->data;
    *p++ = (uint8_t)(1 | (sorted ? 0x10 : 0) | (os - 1) << 6);
    store_uint(p, n, os);
    p += os;
    for (uint32_t i = 0; i <= n; i++, p += os) store_uint(p, n ? w->key_offsets[i] : 0, os);
    if (bytes) memcpy(p, w->key_bytes.data, bytes);
    return PLANK_OK;
}
