/*
 * pk_wstats.c: min/max statistics in the sort order the format's
 * TYPE_DEFINED_ORDER gives each type (parquet.thrift ColumnOrder): signed or
 * unsigned integers, floats without NaN, unsigned lexicographic bytes,
 * signed big-endian decimals, float16 by value. Used for chunk Statistics
 * and the ColumnIndex.
 */
#include <math.h>

#include "pk_write.h"

pk_sort_kind pk_sort_kind_of(const plank_schema_node *n) {
    const plank_logical_type *lt = &n->logical;
    /* GEOMETRY and GEOGRAPHY: undefined order, no min/max (LogicalTypes.md;
     * their GeospatialStatistics are kept instead, pk_geostats.c). */
    if (lt->kind == PLANK_LOGICAL_INTERVAL || lt->kind == PLANK_LOGICAL_UNKNOWN ||
        lt->kind == PLANK_LOGICAL_GEOMETRY || lt->kind == PLANK_LOGICAL_GEOGRAPHY ||
        n->converted_type == PLANK_CONVERTED_INTERVAL)
        return PK_SORT_NONE;
    bool unsigned_int = lt->kind == PLANK_LOGICAL_INTEGER && !lt->is_signed;
    switch (n->physical_type) {
    case PLANK_BOOLEAN: return PK_SORT_BOOL;
    case PLANK_INT32: return unsigned_int ? PK_SORT_U32 : PK_SORT_I32;
    case PLANK_INT64: return unsigned_int ? PK_SORT_U64 : PK_SORT_I64;
    case PLANK_FLOAT: return PK_SORT_FLOAT;
    case PLANK_DOUBLE: return PK_SORT_DOUBLE;
    case PLANK_BYTE_ARRAY:
        return lt->kind == PLANK_LOGICAL_DECIMAL ? PK_SORT_DECIMAL_BE : PK_SORT_BYTES;
    case PLANK_FIXED_LEN_BYTE_ARRAY:
        if (lt->kind == PLANK_LOGICAL_DECIMAL) return PK_SORT_DECIMAL_BE;
        if (lt->kind == PLANK_LOGICAL_FLOAT16 && n->type_length == 2) return PK_SORT_FLOAT16;
        return PK_SORT_BYTES;
    default: return PK_SORT_NONE; /* INT96: the order is undefined */
    }
}

void pk_minmax_init(pk_minmax *m, const plank_allocator *a) {
    m->has = false;
    pk_buffer_init(&m->min, a);
    pk_buffer_init(&m->max, a);
}

void pk_minmax_release(pk_minmax *m) {
    pk_buffer_reset(&m->min);
    pk_buffer_reset(&m->max);
    m->has = false;
}

void pk_minmax_clear(pk_minmax *m) {
    m->has = false;
    m->min.size = 0;
    m->max.size = 0;
}

static float half_to_float(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;
    if (exp == 0) v = ldexpf((float)mant, -24);
    else if (exp == 31) v = mant ? NAN : INFINITY;
    else v = ldexpf((float)(mant | 0x400), exp - 25);
    return sign ? -v : v;
}

static bool half_is_nan(const uint8_t *p) {
    uint16_t h = pk_load_u16(p);
    return ((h >> 10) & 0x1f) == 31 && (h & 0x3ff) != 0;
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

/* Big-endian two's complement of any lengths: sign-extend the shorter. */
static int cmp_decimal_be(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    bool an = alen && (a[0] & 0x80), bn = blen && (b[0] & 0x80);
    if (an != bn) return an ? -1 : 1;
    uint8_t ext = an ? 0xff : 0x00;
    size_t n = alen > blen ? alen : blen;
    for (size_t i = 0; i < n; i++) {
        uint8_t x = i + alen >= n ? a[i + alen - n] : ext;
        uint8_t y = i + blen >= n ? b[i + blen - n] : ext;
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

int pk_value_compare(pk_sort_kind kind, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen) {
    switch (kind) {
    case PK_SORT_BOOL: return (a[0] != 0) - (b[0] != 0);
    case PK_SORT_I32: {
        int32_t x = (int32_t)pk_load_u32(a), y = (int32_t)pk_load_u32(b);
        return (x > y) - (x < y);
    }
    case PK_SORT_U32: {
        uint32_t x = pk_load_u32(a), y = pk_load_u32(b);
        return (x > y) - (x < y);
    }
    case PK_SORT_I64: {
        int64_t x = (int64_t)pk_load_u64(a), y = (int64_t)pk_load_u64(b);
        return (x > y) - (x < y);
    }
    case PK_SORT_U64: {
        uint64_t x = pk_load_u64(a), y = pk_load_u64(b);
        return (x > y) - (x < y);
    }
    case PK_SORT_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PK_SORT_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PK_SORT_FLOAT16: {
        float x = half_to_float(pk_load_u16(a)), y = half_to_float(pk_load_u16(b));
        return (x > y) - (x < y);
    }
    case PK_SORT_DECIMAL_BE: return cmp_decimal_be(a, alen, b, blen);
    case PK_SORT_BYTES: return cmp_bytes(a, alen, b, blen);
    default: return 0;
    }
}

static plank_status set_value(pk_buffer *dst, const uint8_t *p, size_t n, plank_error *err) {
    dst->size = 0;
    return pk_buffer_append(dst, p, n, err);
}

/* Offers one candidate min and max (possibly the same value). */
static plank_status offer(pk_minmax *m, pk_sort_kind kind, const uint8_t *lo, size_t lo_len,
                          const uint8_t *hi, size_t hi_len, plank_error *err) {
    if (!m->has) {
        PK_FORWARD(set_value(&m->min, lo, lo_len, err));
        PK_FORWARD(set_value(&m->max, hi, hi_len, err));
        m->has = true;
        return PLANK_OK;
    }
    if (pk_value_compare(kind, lo, lo_len, m->min.data, m->min.size) < 0)
        PK_FORWARD(set_value(&m->min, lo, lo_len, err));
    if (pk_value_compare(kind, hi, hi_len, m->max.data, m->max.size) > 0)
        PK_FORWARD(set_value(&m->max, hi, hi_len, err));
    return PLANK_OK;
}

/* Typed scans keep the hot loop free of calls; each ends in one offer. */
/* Integers keep two independent min/max pairs: one chain of compare +
 * select per value is its latency, two chains overlap. */
#define PK_SCAN_INT(T, LOAD)                                                   \
    do {                                                                       \
        T lo = (T)LOAD(v->fixed), hi = lo, lo2 = lo, hi2 = lo;                 \
        int64_t i = 1;                                                         \
        for (; i + 2 <= v->n; i += 2) {                                        \
            T x = (T)LOAD(v->fixed + (size_t)i * sizeof(T));                   \
            T y = (T)LOAD(v->fixed + (size_t)(i + 1) * sizeof(T));             \
            lo = x < lo ? x : lo;                                              \
            hi = x > hi ? x : hi;                                              \
            lo2 = y < lo2 ? y : lo2;                                           \
            hi2 = y > hi2 ? y : hi2;                                           \
        }                                                                      \
        for (; i < v->n; i++) {                                                \
            T x = (T)LOAD(v->fixed + (size_t)i * sizeof(T));                   \
            lo = x < lo ? x : lo;                                              \
            hi = x > hi ? x : hi;                                              \
        }                                                                      \
        lo = lo2 < lo ? lo2 : lo;                                              \
        hi = hi2 > hi ? hi2 : hi;                                              \
        return offer(m, kind, (const uint8_t *)&lo, sizeof lo, (const uint8_t *)&hi, \
                     sizeof hi, err);                                          \
    } while (0)

#define PK_SCAN_FLOAT(T)                                                       \
    do {                                                                       \
        bool any = false;                                                      \
        T lo = 0, hi = 0;                                                      \
        for (int64_t i = 0; i < v->n; i++) {                                   \
            T x;                                                               \
            memcpy(&x, v->fixed + (size_t)i * sizeof(T), sizeof(T));           \
            if (x != x) continue;                                              \
            if (!any) { lo = hi = x; any = true; continue; }                   \
            lo = x < lo ? x : lo;                                              \
            hi = x > hi ? x : hi;                                              \
        }                                                                      \
        if (!any) return PLANK_OK;                                             \
        /* zeros as the statistics store them, whichever came first */        \
        if (lo == 0) lo = -(T)0.0;                                             \
        if (hi == 0) hi = (T)0.0;                                              \
        return offer(m, kind, (const uint8_t *)&lo, sizeof lo, (const uint8_t *)&hi, \
                     sizeof hi, err);                                          \
    } while (0)

static uint32_t ld32(const uint8_t *p) { return pk_load_u32(p); }
static uint64_t ld64(const uint8_t *p) { return pk_load_u64(p); }

/* Value i of v as bytes (an empty byte array may have no storage at all). */
PK_INLINE const uint8_t *value_at(const pk_values *v, int64_t i, size_t *len) {
    if (v->type == PLANK_BYTE_ARRAY) {
        *len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return *len ? v->data + v->offsets[i] : (const uint8_t *)"";
    }
    *len = (size_t)v->width;
    return v->fixed + (size_t)i * (size_t)v->width;
}

/* Any order through pk_value_compare, over values sel[0..n) of v (sel NULL:
 * values 0..n-1). */
static plank_status scan_generic(pk_minmax *m, pk_sort_kind kind, const pk_values *v,
                                 const uint32_t *sel, int64_t n, plank_error *err) {
    const uint8_t *lo = NULL, *hi = NULL;
    size_t lo_len = 0, hi_len = 0;
    for (int64_t k = 0; k < n; k++) {
        size_t len;
        const uint8_t *p = value_at(v, sel ? (int64_t)sel[k] : k, &len);
        if (kind == PK_SORT_FLOAT16 && half_is_nan(p)) continue;
        if (!lo) {
            lo = hi = p;
            lo_len = hi_len = len;
            continue;
        }
        if (pk_value_compare(kind, p, len, lo, lo_len) < 0) {
            lo = p;
            lo_len = len;
        } else if (pk_value_compare(kind, p, len, hi, hi_len) > 0) {
            hi = p;
            hi_len = len;
        }
    }
    if (!lo) return PLANK_OK;
    return offer(m, kind, lo, lo_len, hi, hi_len, err);
}

/* The first 8 bytes as a big-endian number, zero-padded: when two prefixes
 * differ they order the strings (a shorter string padded with zeros sorts
 * before any longer one it starts); equal prefixes need the full compare. */
PK_INLINE uint64_t be_prefix(const uint8_t *p, size_t len) {
    if (len >= 8) return __builtin_bswap64(pk_load_u64(p));
    /* Short strings byte by byte: a memcpy into a padded word costs a call
     * and a store-forwarding stall per value. */
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) x |= (uint64_t)p[i] << (56 - 8 * i);
    return x;
}

static const uint64_t k_prefix_mask[9] = {
    0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, UINT64_C(0xFFFFFFFFFF), UINT64_C(0xFFFFFFFFFFFF),
    UINT64_C(0xFFFFFFFFFFFFFF), UINT64_MAX};

/* be_prefix where 8 bytes are readable from p (padded input): no loop. */
PK_INLINE uint64_t be_prefix_padded(const uint8_t *p, size_t len) {
    return __builtin_bswap64(pk_load_u64(p) & k_prefix_mask[len < 8 ? len : 8]);
}

/* Unsigned lexicographic min/max. Each value gets the key (8-byte prefix,
 * min(length, 9)), which orders any two strings exactly unless both are
 * longer than 8 bytes with the same prefix: equal prefixes mean the shorter
 * one (of at most 8 bytes) is the other's start, so it is less. The
 * compares are combined without branches (flags and codes tie with the
 * current min or max on every other value, which as a branch mispredicts);
 * only real ties of long strings and actual new extremes branch. */
static plank_status update_bytes(pk_minmax *m, const pk_values *v, plank_error *err) {
    static const uint8_t zero8[8];
    size_t len;
    const uint8_t *lo = value_at(v, 0, &len), *hi = lo;
    if (len == 0) lo = hi = zero8; /* the "" of value_at is 1 byte */
    size_t lo_len = len, hi_len = len;
    uint64_t lo_pre = v->padded ? be_prefix_padded(lo, len) : be_prefix(lo, len), hi_pre = lo_pre;
    size_t lo_l9 = len < 9 ? len : 9, hi_l9 = lo_l9;
    for (int64_t i = 1; i < v->n; i++) {
        const uint8_t *p = value_at(v, i, &len);
        if (len == 0) p = zero8;
        uint64_t pre = v->padded ? be_prefix_padded(p, len) : be_prefix(p, len);
        size_t l9 = len < 9 ? len : 9;
        bool lt = (pre < lo_pre) | ((pre == lo_pre) & (l9 < lo_l9));
        bool gt = (pre > hi_pre) | ((pre == hi_pre) & (l9 > hi_l9));
        if (PK_UNLIKELY((pre == lo_pre) & (l9 == 9) & (lo_l9 == 9)))
            lt = cmp_bytes(p, len, lo, lo_len) < 0;
        if (PK_UNLIKELY((pre == hi_pre) & (l9 == 9) & (hi_l9 == 9)))
            gt = cmp_bytes(p, len, hi, hi_len) > 0;
        if (lt) {
            lo = p;
            lo_len = len;
            lo_pre = pre;
            lo_l9 = l9;
        }
        if (gt) {
            hi = p;
            hi_len = len;
            hi_pre = pre;
            hi_l9 = l9;
        }
    }
    return offer(m, PK_SORT_BYTES, lo, lo_len, hi, hi_len, err);
}

plank_status pk_minmax_update(pk_minmax *m, pk_sort_kind kind, const pk_values *v,
                              const pk_kernels *k, plank_error *err) {
    if (v->n == 0 || kind == PK_SORT_NONE) return PLANK_OK;
    if (k && (kind == PK_SORT_I32 || kind == PK_SORT_U32)) {
        int32_t lo, hi;
        k->minmax_i32((const int32_t *)(const void *)v->fixed, (size_t)v->n,
                      kind == PK_SORT_U32 ? UINT32_C(0x80000000) : 0, &lo, &hi);
        return offer(m, kind, (const uint8_t *)&lo, 4, (const uint8_t *)&hi, 4, err);
    }
    if (k && kind == PK_SORT_FLOAT) {
        float lo, hi;
        if (!k->minmax_f32((const float *)(const void *)v->fixed, (size_t)v->n, &lo, &hi))
            return PLANK_OK;
        return offer(m, kind, (const uint8_t *)&lo, 4, (const uint8_t *)&hi, 4, err);
    }
    if (k && kind == PK_SORT_DOUBLE) {
        double lo, hi;
        if (!k->minmax_f64((const double *)(const void *)v->fixed, (size_t)v->n, &lo, &hi))
            return PLANK_OK;
        return offer(m, kind, (const uint8_t *)&lo, 8, (const uint8_t *)&hi, 8, err);
    }
    if (k && (kind == PK_SORT_I64 || kind == PK_SORT_U64)) {
        int64_t lo, hi;
        k->minmax_i64((const int64_t *)(const void *)v->fixed, (size_t)v->n,
                      kind == PK_SORT_U64 ? UINT64_C(0x8000000000000000) : 0, &lo, &hi);
        return offer(m, kind, (const uint8_t *)&lo, 8, (const uint8_t *)&hi, 8, err);
    }
    switch (kind) {
    case PK_SORT_BOOL: {
        uint8_t lo = 1, hi = 0;
        for (int64_t i = 0; i < v->n; i++) {
            uint8_t x = v->fixed[i] != 0;
            lo &= x;
            hi |= x;
        }
        return offer(m, kind, &lo, 1, &hi, 1, err);
    }
    case PK_SORT_I32: PK_SCAN_INT(int32_t, ld32);
    case PK_SORT_U32: PK_SCAN_INT(uint32_t, ld32);
    case PK_SORT_I64: PK_SCAN_INT(int64_t, ld64);
    case PK_SORT_U64: PK_SCAN_INT(uint64_t, ld64);
    case PK_SORT_FLOAT: PK_SCAN_FLOAT(float);
    case PK_SORT_DOUBLE: PK_SCAN_FLOAT(double);
    default: break;
    }
    if (kind == PK_SORT_BYTES) return update_bytes(m, v, err);
    return scan_generic(m, kind, v, NULL, v->n, err);
}

plank_status pk_minmax_update_entries(pk_minmax *m, pk_sort_kind kind, const pk_values *entries,
                                      const uint32_t *sel, size_t n, plank_error *err) {
    if (n == 0 || kind == PK_SORT_NONE) return PLANK_OK;
    return scan_generic(m, kind, entries, sel, (int64_t)n, err);
}

plank_status pk_minmax_offer_int(pk_minmax *m, pk_sort_kind kind, int64_t lo, int64_t hi,
                                 plank_error *err) {
    if (kind == PK_SORT_I32) {
        int32_t l = (int32_t)lo, h = (int32_t)hi;
        return offer(m, kind, (const uint8_t *)&l, sizeof l, (const uint8_t *)&h, sizeof h, err);
    }
    return offer(m, kind, (const uint8_t *)&lo, sizeof lo, (const uint8_t *)&hi, sizeof hi, err);
}

plank_status pk_minmax_merge(pk_minmax *m, pk_sort_kind kind, const pk_minmax *o,
                             plank_error *err) {
    if (!o->has) return PLANK_OK;
    return offer(m, kind, o->min.data, o->min.size, o->max.data, o->max.size, err);
}

/* ---- Storing: signed zeros and truncation -------------------------------------- */

static size_t utf8_boundary(const uint8_t *s, size_t cut) {
    while (cut > 0 && (s[cut] & 0xC0) == 0x80) cut--;
    return cut;
}

/* Truncated max: a string > every string with prefix s[0..len), at most len
 * bytes. Returns its length in out (0: impossible). */
static size_t bytes_upper(const uint8_t *s, size_t len, uint8_t *out) {
    memcpy(out, s, len);
    while (len > 0) {
        if (out[len - 1] != 0xff) {
            out[len - 1]++;
            return len;
        }
        len--;
    }
    return 0;
}

static size_t utf8_encode(uint32_t cp, uint8_t *o) {
    if (cp < 0x80) { o[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) {
        o[0] = (uint8_t)(0xC0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (cp >> 18));
    o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* As bytes_upper, for UTF-8: the last character that can be incremented
 * (skipping the surrogate range) is, and everything after it dropped, so
 * the result stays valid UTF-8 no longer than len (a character never grows
 * past its own byte count except at 0x7F/0x7FF/0xFFFF, which then needs
 * room: the byte variant is used when it does not fit). */
static size_t utf8_upper(const uint8_t *s, size_t len, uint8_t *out) {
    memcpy(out, s, len);
    while (len > 0) {
        size_t start = utf8_boundary(out, len - 1);
        uint32_t cp;
        uint8_t b0 = out[start];
        size_t n = len - start;
        if (b0 < 0x80) cp = b0;
        else if ((b0 & 0xE0) == 0xC0 && n == 2) cp = ((b0 & 0x1fu) << 6) | (out[start + 1] & 0x3fu);
        else if ((b0 & 0xF0) == 0xE0 && n == 3)
            cp = ((b0 & 0x0fu) << 12) | ((out[start + 1] & 0x3fu) << 6) | (out[start + 2] & 0x3fu);
        else if ((b0 & 0xF8) == 0xF0 && n == 4)
            cp = ((b0 & 0x07u) << 18) | ((out[start + 1] & 0x3fu) << 12) |
                 ((out[start + 2] & 0x3fu) << 6) | (out[start + 3] & 0x3fu);
        else return bytes_upper(s, len, out); /* not valid UTF-8: plain bytes */
        uint32_t next = cp + 1;
        if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
        if (next <= 0x10FFFF) {
            uint8_t enc[4];
            size_t el = utf8_encode(next, enc);
            if (el == n) {
                memcpy(out + start, enc, el);
                return len;
            }
        }
        len = start;
    }
    return 0;
}

plank_status pk_minmax_finish(const pk_minmax *m, pk_sort_kind kind, bool is_utf8,
                              int32_t max_size, pk_arena *arena, const uint8_t **min,
                              uint32_t *min_len, bool *min_exact, const uint8_t **max,
                              uint32_t *max_len, bool *max_exact, plank_error *err) {
    *min = *max = NULL;
    *min_len = *max_len = 0;
    *min_exact = *max_exact = true;
    if (!m->has) return PLANK_OK;
    size_t ml = m->min.size, xl = m->max.size;
    uint8_t *lo = pk_arena_alloc(arena, ml + 1), *hi = pk_arena_alloc(arena, xl + 1);
    if (!lo || !hi) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (ml) memcpy(lo, m->min.data, ml);
    if (xl) memcpy(hi, m->max.data, xl);
    if (kind == PK_SORT_FLOAT) {
        float x;
        memcpy(&x, lo, 4);
        if (x == 0) { x = -0.0f; memcpy(lo, &x, 4); }
        memcpy(&x, hi, 4);
        if (x == 0) { x = 0.0f; memcpy(hi, &x, 4); }
    } else if (kind == PK_SORT_DOUBLE) {
        double x;
        memcpy(&x, lo, 8);
        if (x == 0) { x = -0.0; memcpy(lo, &x, 8); }
        memcpy(&x, hi, 8);
        if (x == 0) { x = 0.0; memcpy(hi, &x, 8); }
    } else if (kind == PK_SORT_FLOAT16) {
        if ((pk_load_u16(lo) & 0x7fff) == 0) { lo[0] = 0x00; lo[1] = 0x80; }
        if ((pk_load_u16(hi) & 0x7fff) == 0) { hi[0] = 0x00; hi[1] = 0x00; }
    } else if (kind == PK_SORT_BYTES && max_size > 0) {
        size_t lim = (size_t)max_size;
        if (ml > lim) {
            size_t cut = is_utf8 ? utf8_boundary(lo, lim) : lim;
            if (cut > 0) {
                ml = cut;
                *min_exact = false;
            }
        }
        if (xl > lim) {
            size_t cut = is_utf8 ? utf8_boundary(hi, lim) : lim;
            uint8_t *tmp = pk_arena_alloc(arena, cut + 1);
            if (!tmp) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            size_t n = is_utf8 ? utf8_upper(hi, cut, tmp) : bytes_upper(hi, cut, tmp);
            if (n > 0) {
                hi = tmp;
                xl = n;
                *max_exact = false;
            }
        }
    }
    *min = lo;
    *min_len = (uint32_t)ml;
    *max = hi;
    *max_len = (uint32_t)xl;
    return PLANK_OK;
}
