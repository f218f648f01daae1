/*
 * pk_dict_builder.c: the dictionary builder of pk_encoder.h and the encoder
 * of dictionary indices.
 *
 * The table is open addressing with linear probing over a power-of-two
 * number of two-word slots: the 4- or 8-byte value itself (so a lookup of
 * those types touches one slot and nothing else) or, for other widths, the
 * value's 64-bit hash (so growing never rehashes bytes and a probe compares
 * bytes only when the hashes agree); then entry index + 1 (0 = empty), for
 * byte strings with the length in the upper half (see put_binary). The
 * table doubles before an insertion would take it past 1/4 full while it has
 * at most 64 Ki slots (1 MiB: cheap, and a first-probe hit is a predicted
 * branch; at 5/8 about every other lookup probed twice and mispredicted),
 * past 5/8 beyond that.
 *
 * INT32/INT64 columns start in a dense table instead (see pk_encoder.h):
 * entry + 1 stored at value - base, no hash at all, as long as every value
 * so far lies within PK_DICT_DENSE_SPAN. Byte strings of up to 16 bytes from
 * padded input hash and compare as two masked words.
 *
 * Values compare by their bytes: floats by bit pattern (so -0 and +0 are two
 * entries, and NaNs are one entry per payload).
 *
 * On PLANK_ERR_OUT_OF_MEMORY the builder keeps every entry inserted before
 * the failing one and stays usable; the indices of that put are unspecified.
 */
#include "pk_encoder.h"
#include "pk_encoding.h"
#include "../simd/pk_kernels.h"

#define DICT_MIN_SLOTS 64
#define DICT_SPARSE_SLOTS ((size_t)1 << 16)
/* Indices are stored + 1 in uint32 slots and written in 32-bit widths. */
#define DICT_MAX_ENTRIES ((int64_t)UINT32_MAX - 1)

/* Entries the table holds before it must grow. */
static size_t max_entries(size_t slots) {
    return slots <= DICT_SPARSE_SLOTS ? slots / 4 : slots / 2 + slots / 8;
}

static size_t slot_count(const pk_dict_builder *d) { return d->slots ? d->slot_mask + 1 : 0; }

/* ---- Hashing -------------------------------------------------------------- */

/* The hash functions are the kernels' (pk_hash_fixed, pk_hash_words in pk_kernels.h):
 * a put hashes its values a block at a time through the hash kernels of the level the
 * builder was given, which all return the same hashes. */

/* Values of up to 16 bytes hash and compare as two words, zero past the
 * value's end. */
#define SHORT_MAX 16

typedef struct words2 {
    uint64_t a, b;
} words2;

/* The two words of a value of n <= 16 bytes where only p[0..n) may be read. */
PK_INLINE words2 short_words(const uint8_t *p, size_t n) {
    uint8_t t[16] = {0};
    memcpy(t, p, n);
    words2 w = {pk_load_u64(t), pk_load_u64(t + 8)};
    return w;
}

/* Byte strings longer than SHORT_MAX: word by word, then the tail. */
static uint64_t hash_long(const uint8_t *p, size_t n) {
    uint64_t h = (uint64_t)n * PK_HASH_K1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h ^= pk_load_u64(p + i) * PK_HASH_K2;
        h = ((h << 27) | (h >> 37)) * PK_HASH_K1;
    }
    if (i < n) {
        uint64_t t = 0;
        for (size_t k = 0; i + k < n; k++) t |= (uint64_t)p[i + k] << (8 * k);
        h ^= t * PK_HASH_K2;
    }
    return pk_hash_finish(h);
}

/* Any byte string, or a value of a fixed width other than 4 and 8. */
static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    if (n <= SHORT_MAX) {
        words2 w = short_words(p, n);
        return pk_hash_words(w.a, w.b, n);
    }
    return hash_long(p, n);
}

/* Value widths with their own compiled loops: 4 and 8 bytes (INT32/FLOAT,
 * INT64/DOUBLE) load and compare one word; W_ANY is any other fixed width,
 * W_BINARY the BYTE_ARRAY values. */
enum { W_BINARY = 0, W_ANY = -1 };

/* Entry e equals p[0..len) (fixed widths; byte strings compare in
 * put_binary). */
PK_INLINE bool entry_equals(const pk_dict_builder *d, uint32_t e, const uint8_t *p, size_t len,
                            int w) {
    const uint8_t *vals = d->values.data;
    if (w == 4) return pk_load_u32(vals + (size_t)e * 4) == pk_load_u32(p);
    if (w == 8) return pk_load_u64(vals + (size_t)e * 8) == pk_load_u64(p);
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
    return w == 4 || w == 8 ? pk_hash_fixed(key) : key;
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
    uint64_t tag = 0;
    if (d->type == PLANK_BYTE_ARRAY) {
        int64_t end = (int64_t)d->values.size;
        plank_status st = pk_buffer_append(&d->offsets, &end, sizeof end, err);
        if (st == PLANK_OK) {
            words2 x = {0, 0};
            if (len <= SHORT_MAX) x = short_words(p, len);
            st = pk_buffer_append(&d->words, &x, sizeof x, err);
            if (st != PLANK_OK) d->offsets.size -= sizeof end;
        }
        if (st != PLANK_OK) {
            d->values.size = at;
            return st;
        }
        d->plain_bytes += 4;
        tag = (uint64_t)len << 32;
    }
    d->plain_bytes += len;
    d->slots[2 * s] = key;
    d->slots[2 * s + 1] = tag | ((uint64_t)d->count + 1);
    *index = (uint32_t)d->count;
    d->count++;
    return PLANK_OK;
}

/* Values are hashed a block at a time (the hash kernels), and when the table is
 * larger than the cache their slots are prefetched before the block is probed, so
 * such a table costs one overlapped miss per value instead of a serial one. */
#define DICT_AHEAD 16
/* Slots (16 bytes each) of a table that stays in a 32 KiB L1 data cache. */
#define DICT_L1_SLOTS 2048

static const uint8_t k_zero16[16];

PK_INLINE const uint8_t *value_at(const pk_values *v, size_t i, int w, size_t *len) {
    if (w == W_BINARY) {
        *len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        /* data may be NULL when every value is empty; k_zero16 can be
         * read as a whole short value */
        return *len ? v->data + v->offsets[i] : k_zero16;
    }
    return v->fixed + i * *len;
}

PK_INLINE void prefetch_slots(const pk_dict_builder *d, const uint64_t *h, size_t m) {
    if (slot_count(d) <= DICT_L1_SLOTS) return; /* in L1: nothing to gain */
    for (size_t k = 0; k < m; k++) __builtin_prefetch(&d->slots[2 * ((size_t)h[k] & d->slot_mask)]);
}

/* Hashes and words of the byte strings [i, i + m) of v: the hash kernel over padded
 * input, then the long strings (and unpadded input) here. */
static void binary_block(const pk_dict_builder *d, const pk_values *v, size_t i, size_t m,
                         uint64_t *h, uint64_t *wa, uint64_t *wb) {
    const int64_t *off = v->offsets + i;
    if (v->padded && v->data) {
        d->kernels->hash_short(v->data, off, m, wa, wb, h);
        for (size_t k = 0; k < m; k++) {
            size_t len = (size_t)(off[k + 1] - off[k]);
            if (len > SHORT_MAX) h[k] = hash_long(v->data + off[k], len);
        }
        return;
    }
    for (size_t k = 0; k < m; k++) {
        size_t len;
        const uint8_t *p = value_at(v, i + k, W_BINARY, &len);
        words2 x = {0, 0};
        if (len <= SHORT_MAX) x = short_words(p, len);
        wa[k] = x.a;
        wb[k] = x.b;
        h[k] = len <= SHORT_MAX ? pk_hash_words(x.a, x.b, len) : hash_long(p, len);
    }
}

/* Byte strings. Slot word 1 holds the length above the entry index + 1,
 * and every entry of up to 16 bytes keeps its two masked words in `words`:
 * a short value is found from the slot and 16 bytes of `words`, without the
 * offsets or the bytes of the entry. */
static plank_status put_binary(pk_dict_builder *d, const pk_values *v, uint32_t *indices,
                               plank_error *err) {
    const size_t n = (size_t)v->n;
    uint64_t hs[DICT_AHEAD], wa[DICT_AHEAD], wb[DICT_AHEAD];
    for (size_t i0 = 0; i0 < n; i0 += DICT_AHEAD) {
        const size_t m = n - i0 < DICT_AHEAD ? n - i0 : DICT_AHEAD;
        binary_block(d, v, i0, m, hs, wa, wb);
        prefetch_slots(d, hs, m);
        for (size_t k = 0; k < m; k++) {
            const size_t i = i0 + k;
            size_t len;
            const uint8_t *p = value_at(v, i, W_BINARY, &len);
            const bool is_short = len <= SHORT_MAX;
            const uint64_t h = hs[k];
            size_t s = (size_t)h & d->slot_mask;
            for (;;) {
                uint64_t e = d->slots[2 * s + 1];
                if (!e) {
                    PK_FORWARD(dict_insert(d, h, h, p, len, s, &indices[i], err));
                    break;
                }
                if (d->slots[2 * s] == h && (e >> 32) == len) {
                    uint32_t ix = (uint32_t)e - 1;
                    bool eq;
                    if (is_short) {
                        const uint8_t *wd = d->words.data + (size_t)ix * sizeof(words2);
                        eq = ((pk_load_u64(wd) ^ wa[k]) | (pk_load_u64(wd + 8) ^ wb[k])) == 0;
                    } else {
                        const int64_t *off = (const int64_t *)(const void *)d->offsets.data;
                        eq = memcmp(d->values.data + off[ix], p, len) == 0;
                    }
                    if (eq) {
                        indices[i] = ix;
                        break;
                    }
                }
                s = (s + 1) & d->slot_mask;
            }
        }
    }
    return PLANK_OK;
}

/* Fixed widths: 4 and 8 bytes compare the slot key (the value itself). */
PK_INLINE plank_status put_body(pk_dict_builder *d, const pk_values *v, uint32_t *indices, int w,
                                plank_error *err) {
    size_t n = (size_t)v->n, len = (size_t)v->width;
    uint64_t ahead[DICT_AHEAD];
    for (size_t i0 = 0; i0 < n; i0 += DICT_AHEAD) {
        const size_t m = n - i0 < DICT_AHEAD ? n - i0 : DICT_AHEAD;
        if (w == 4) d->kernels->hash_fixed32(v->fixed + i0 * 4, m, ahead);
        else if (w == 8) d->kernels->hash_fixed64(v->fixed + i0 * 8, m, ahead);
        else
            for (size_t k = 0; k < m; k++) ahead[k] = hash_bytes(v->fixed + (i0 + k) * len, len);
        prefetch_slots(d, ahead, m);
        for (size_t k = 0; k < m; k++) {
            const size_t i = i0 + k;
            const uint8_t *p = value_at(v, i, w, &len);
            uint64_t h = ahead[k];
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
    }
    return PLANK_OK;
}

/* ---- Dense table (INT32/INT64) ---------------------------------------------------- */

PK_INLINE int64_t int_at(const uint8_t *p, size_t i, int w) {
    return w == 4 ? (int64_t)(int32_t)pk_load_u32(p + 4 * i) : (int64_t)pk_load_u64(p + 8 * i);
}

/* Leaves dense mode for good: every entry goes into the hash table. */
static plank_status dense_to_hash(pk_dict_builder *d, plank_error *err) {
    int w = d->width;
    while (!d->slots || (size_t)d->count + 1 > max_entries(slot_count(d)))
        PK_FORWARD(dict_grow(d, err));
    const uint8_t *vals = d->values.data;
    for (int64_t e = 0; e < d->count; e++) {
        uint64_t key = slot_key(vals + (size_t)e * (size_t)w, (size_t)w, w, 0);
        size_t s = free_slot(d, key_hash(key, w));
        d->slots[2 * s] = key;
        d->slots[2 * s + 1] = (uint64_t)e + 1;
    }
    pk_free(d->alloc, d->dense, d->dense_span * sizeof *d->dense);
    d->dense = NULL;
    d->dense_span = 0;
    d->hashed = true;
    return PLANK_OK;
}

/* Makes the dense table cover [lo, hi] as well as what it covers now, if
 * that range stays under PK_DICT_DENSE_SPAN values; *ok false otherwise. */
static plank_status dense_cover(pk_dict_builder *d, int64_t lo, int64_t hi, bool *ok,
                                plank_error *err) {
    if (d->dense) {
        int64_t top = (int64_t)((uint64_t)d->dense_base + d->dense_span - 1);
        if (top < d->dense_base) top = INT64_MAX; /* a table reaching past INT64_MAX */
        if (lo >= d->dense_base && hi <= top) {
            *ok = true;
            return PLANK_OK;
        }
        lo = lo < d->dense_base ? lo : d->dense_base;
        hi = hi > top ? hi : top;
    }
    uint64_t need = (uint64_t)hi - (uint64_t)lo; /* entries - 1, no overflow in uint64 */
    *ok = need < PK_DICT_DENSE_SPAN;
    if (!*ok) return PLANK_OK;
    uint64_t span = 64;
    while (span <= need) span *= 2;
    uint32_t *t = pk_calloc(d->alloc, span * sizeof *t);
    PK_RETURN_IF(!t, err, PLANK_ERR_OUT_OF_MEMORY,
                 "out of memory for a dictionary table of %llu entries",
                 (unsigned long long)span);
    if (d->dense) {
        memcpy(t + ((uint64_t)d->dense_base - (uint64_t)lo), d->dense,
               d->dense_span * sizeof *t);
        pk_free(d->alloc, d->dense, d->dense_span * sizeof *d->dense);
    }
    d->dense = t;
    d->dense_base = lo;
    d->dense_span = span;
    return PLANK_OK;
}

/* Indices of values [*at, n) of v through the dense table, as long as they
 * fall inside it; *at is left at the first value outside (n: all done) and
 * [*lo, *hi] widened over the values taken. Tracking the range here spares
 * a separate min/max pass once the table exists. */
PK_INLINE plank_status dense_run(pk_dict_builder *d, const pk_values *v, uint32_t *indices, int w,
                                 size_t *at, int64_t *lo, int64_t *hi, plank_error *err) {
    const uint8_t *p = v->fixed;
    uint32_t *dense = d->dense;
    const uint64_t base = (uint64_t)d->dense_base, span = d->dense_span;
    const size_t n = (size_t)v->n;
    int64_t l = *lo, h = *hi;
    size_t i = *at;
    plank_status st = PLANK_OK;
    for (; i < n; i++) {
        int64_t x = int_at(p, i, w);
        uint64_t off = (uint64_t)x - base;
        if (PK_UNLIKELY(off >= span)) break;
        l = x < l ? x : l;
        h = x > h ? x : h;
        uint32_t e = dense[off];
        if (PK_LIKELY(e != 0)) {
            indices[i] = e - 1;
            continue;
        }
        /* at most PK_DICT_DENSE_SPAN entries: far from DICT_MAX_ENTRIES */
        st = pk_buffer_append(&d->values, p + i * (size_t)w, (size_t)w, err);
        if (st != PLANK_OK) break;
        d->plain_bytes += (size_t)w;
        dense[off] = (uint32_t)d->count + 1;
        indices[i] = (uint32_t)d->count;
        d->count++;
    }
    *at = i;
    *lo = l;
    *hi = h;
    return st;
}

PK_INLINE void int_range(const pk_values *v, size_t from, int w, int64_t *lo, int64_t *hi) {
    int64_t l = INT64_MAX, h = INT64_MIN;
    for (size_t i = from, n = (size_t)v->n; i < n; i++) {
        int64_t x = int_at(v->fixed, i, w);
        l = x < l ? x : l;
        h = x > h ? x : h;
    }
    *lo = l;
    *hi = h;
}

/* Puts v through the dense table while its values allow, widening the
 * table as needed; past PK_DICT_DENSE_SPAN the entries move to the hash
 * table, which takes the rest of v. */
static plank_status put_dense(pk_dict_builder *d, const pk_values *v, uint32_t *indices,
                              plank_error *err) {
    const int w = d->width;
    const size_t n = (size_t)v->n;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t at = 0;
    bool cover = !d->dense;
    for (;;) {
        if (cover) {
            /* no table yet, or the value at `at` lies outside it: cover
             * the range of everything left, or give up dense mode */
            int64_t rl, rh;
            bool ok;
            int_range(v, at, w, &rl, &rh);
            PK_FORWARD(dense_cover(d, rl, rh, &ok, err));
            if (!ok) {
                PK_FORWARD(dense_to_hash(d, err));
                pk_values rest = *v;
                rest.n = (int64_t)(n - at);
                rest.fixed = v->fixed + at * (size_t)w;
                return w == 4 ? put_body(d, &rest, indices + at, 4, err)
                              : put_body(d, &rest, indices + at, 8, err);
            }
        }
        PK_FORWARD(w == 4 ? dense_run(d, v, indices, 4, &at, &lo, &hi, err)
                          : dense_run(d, v, indices, 8, &at, &lo, &hi, err));
        if (at == n) break;
        cover = true;
    }
    d->put_range_known = true;
    d->put_lo = lo;
    d->put_hi = hi;
    return PLANK_OK;
}

/* ---- Builder ------------------------------------------------------------------ */

plank_status pk_dict_builder_init(pk_dict_builder *d, plank_physical_type type, int32_t width,
                                  const plank_allocator *alloc, plank_error *err) {
    memset(d, 0, sizeof *d);
    d->alloc = alloc ? alloc : pk_default_allocator();
    d->kernels = pk_kernels_for(PK_SIMD_SCALAR);
    pk_buffer_init(&d->values, d->alloc);
    pk_buffer_init(&d->offsets, d->alloc);
    pk_buffer_init(&d->words, d->alloc);
    d->type = type;
    /* The widths pk_values_check expects (BYTE_ARRAY: 0). */
    pk_values probe = {.type = type, .width = width, .n = 0};
    if (type != PLANK_BYTE_ARRAY) PK_FORWARD(pk_values_check(&probe, err));
    PK_RETURN_IF(type == PLANK_BOOLEAN, err, PLANK_ERR_INVALID_ARGUMENT,
                 "BOOLEAN columns are not dictionary-encoded");
    d->width = type == PLANK_BYTE_ARRAY ? 0 : width;
    d->hashed = type != PLANK_INT32 && type != PLANK_INT64;
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
    pk_free(d->alloc, d->dense, d->dense_span * sizeof *d->dense);
    d->dense = NULL;
    d->dense_span = 0;
    d->hashed = d->type != PLANK_INT32 && d->type != PLANK_INT64;
    pk_buffer_reset(&d->values);
    pk_buffer_reset(&d->offsets);
    pk_buffer_reset(&d->words);
    d->count = 0;
    d->plain_bytes = 0;
}

void pk_dict_builder_clear(pk_dict_builder *d) {
    if (d->slots) memset(d->slots, 0, slot_count(d) * 2 * sizeof *d->slots);
    /* each chunk picks dense or hashed mode afresh */
    pk_free(d->alloc, d->dense, d->dense_span * sizeof *d->dense);
    d->dense = NULL;
    d->dense_span = 0;
    d->hashed = d->type != PLANK_INT32 && d->type != PLANK_INT64;
    d->count = 0;
    d->plain_bytes = 0;
    d->values.size = 0;
    d->words.size = 0;
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
    d->put_range_known = false;
    if (v->n == 0) return PLANK_OK;
    PK_RETURN_IF(!indices, err, PLANK_ERR_INVALID_ARGUMENT, "no array for the indices");
    if (!d->hashed) return put_dense(d, v, indices, err);
    if (!d->slots) PK_FORWARD(dict_grow(d, err));
    if (d->type == PLANK_BYTE_ARRAY) return put_binary(d, v, indices, err);
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
                                    const struct pk_kernels *k, pk_buffer *out, plank_error *err) {
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
    plank_status st = pk_rle_encode_u32_k(idx, n, bw, k, out, err);
    if (st != PLANK_OK) out->size = at;
    return st;
}
