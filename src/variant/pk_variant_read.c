/*
 * pk_variant_read.c: the metadata dictionary, the checked walk over an
 * encoded VARIANT value, and its JSON text (pk_variant.h).
 *
 * One recursive walker does both the check and the printing, so the JSON
 * writer never reads a byte the check has not bounded: every element's
 * bytes are limited to its container's value section, and a value's size is
 * known from its header before anything past the header is read.
 */
#include "pk_variant.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An unsigned little-endian number of `size` (1..4) bytes. */
static uint32_t load_uint(const uint8_t *p, uint32_t size) {
    uint32_t v = 0;
    for (uint32_t i = size; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/* ---- Metadata --------------------------------------------------------------- */

plank_status pk_vmeta_parse(pk_vmeta *m, const uint8_t *p, size_t n, plank_error *err) {
    memset(m, 0, sizeof *m);
    PK_RETURN_IF(!p || n == 0, err, PLANK_ERR_CORRUPT, "variant metadata is empty");
    uint8_t h = p[0];
    PK_RETURN_IF((h & 0x0f) != 1, err, PLANK_ERR_CORRUPT,
                 "variant metadata version is %u, expected 1", (unsigned)(h & 0x0f));
    uint32_t os = (uint32_t)(h >> 6) + 1;
    PK_RETURN_IF(n < 1 + (size_t)os, err, PLANK_ERR_CORRUPT,
                 "variant metadata of %zu bytes ends inside its dictionary size", n);
    uint32_t dict = load_uint(p + 1, os);
    size_t avail = n - 1 - os;
    m->data = p;
    m->size = n;
    m->offset_size = os;
    m->sorted = (h & 0x10) != 0;
    if (dict == 0 && avail < os) {
        /* "01 00": an empty dictionary without its one offset, as the
         * shredding spec's own examples write it. */
        m->offsets = m->bytes = p + n;
        return PLANK_OK;
    }
    PK_RETURN_IF(((size_t)dict + 1) * os > avail, err, PLANK_ERR_CORRUPT,
                 "variant metadata dictionary of %u keys does not fit its %zu bytes", dict, n);
    const uint8_t *offs = p + 1 + os;
    size_t bytes_at = 1 + (size_t)os + ((size_t)dict + 1) * os;
    size_t bytes_size = n - bytes_at;
    uint32_t prev = load_uint(offs, os);
    PK_RETURN_IF(prev != 0, err, PLANK_ERR_CORRUPT,
                 "variant metadata: first key offset is %u, expected 0", prev);
    for (uint32_t i = 1; i <= dict; i++) {
        uint32_t o = load_uint(offs + (size_t)i * os, os);
        PK_RETURN_IF(o < prev || o > bytes_size, err, PLANK_ERR_CORRUPT,
                     "variant metadata: key offset %u is %u (previous %u, %zu key bytes)", i, o,
                     prev, bytes_size);
        prev = o;
    }
    m->dict_size = dict;
    m->offsets = offs;
    m->bytes = p + bytes_at;
    m->bytes_size = prev; /* bytes past the last offset are not keys */
    return PLANK_OK;
}

bool pk_vmeta_key(const pk_vmeta *m, uint32_t id, const uint8_t **s, size_t *len) {
    if (id >= m->dict_size) return false;
    uint32_t a = load_uint(m->offsets + (size_t)id * m->offset_size, m->offset_size);
    uint32_t b = load_uint(m->offsets + ((size_t)id + 1) * m->offset_size, m->offset_size);
    *s = m->bytes + a;
    *len = b - a;
    return true;
}

/* memcmp order, a prefix first. */
static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c) return c;
    return an < bn ? -1 : an > bn;
}

int64_t pk_vmeta_find(const pk_vmeta *m, const uint8_t *s, size_t len) {
    const uint8_t *k = NULL;
    size_t kn = 0;
    if (m->sorted) {
        uint32_t lo = 0, hi = m->dict_size;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            pk_vmeta_key(m, mid, &k, &kn);
            int c = key_cmp(k, kn, s, len);
            if (c == 0) return mid;
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
        /* A writer that set the flag wrongly must not hide a key. */
    }
    for (uint32_t i = 0; i < m->dict_size; i++) {
        pk_vmeta_key(m, i, &k, &kn);
        if (kn == len && memcmp(k, s, len) == 0) return i;
    }
    return -1;
}

/* ---- Containers ----------------------------------------------------------------- */

plank_status pk_vcontainer_parse(pk_vcontainer *c, const uint8_t *p, size_t n, plank_error *err) {
    memset(c, 0, sizeof *c);
    uint8_t basic = p[0] & 3, h = p[0] >> 2;
    bool large;
    if (basic == PK_VB_OBJECT) {
        c->offset_size = (uint32_t)(h & 3) + 1;
        c->id_size = (uint32_t)((h >> 2) & 3) + 1;
        large = (h >> 4) & 1;
    } else {
        c->offset_size = (uint32_t)(h & 3) + 1;
        large = (h >> 2) & 1;
    }
    size_t at = 1, count_size = large ? 4 : 1;
    const char *what = basic == PK_VB_OBJECT ? "object" : "array";
    PK_RETURN_IF(n < at + count_size, err, PLANK_ERR_CORRUPT,
                 "variant %s ends inside its element count", what);
    c->num = load_uint(p + at, (uint32_t)count_size);
    at += count_size;
    /* ids and offsets must fit in the n bytes (num < 2^32: no overflow). */
    size_t need = (size_t)c->num * c->id_size + ((size_t)c->num + 1) * c->offset_size;
    PK_RETURN_IF(need > n - at, err, PLANK_ERR_CORRUPT,
                 "variant %s of %u elements does not fit its %zu bytes", what, c->num, n);
    c->ids = p + at;
    at += (size_t)c->num * c->id_size;
    c->offsets = p + at;
    at += ((size_t)c->num + 1) * c->offset_size;
    c->values = p + at;
    c->values_size = n - at;
    return PLANK_OK;
}

uint32_t pk_vcontainer_id(const pk_vcontainer *c, uint32_t i) {
    return load_uint(c->ids + (size_t)i * c->id_size, c->id_size);
}

static uint32_t container_offset(const pk_vcontainer *c, uint32_t i) {
    return load_uint(c->offsets + (size_t)i * c->offset_size, c->offset_size);
}

const uint8_t *pk_vcontainer_elem(const pk_vcontainer *c, uint32_t i, size_t *avail) {
    uint32_t o = container_offset(c, i);
    if (o > c->values_size) {
        *avail = 0;
        return c->values + c->values_size;
    }
    *avail = c->values_size - o;
    return c->values + o;
}

/* ---- Text pieces ----------------------------------------------------------------- */

typedef struct jout {
    pk_buffer *b; /* NULL: check only */
    plank_error *err;
    bool failed;
} jout;

static void put(jout *o, const void *s, size_t n) {
    if (!o->b || o->failed) return;
    if (pk_buffer_append(o->b, s, n, o->err) != PLANK_OK) o->failed = true;
}
static void puts_(jout *o, const char *s) { put(o, s, strlen(s)); }
static void putc_(jout *o, char c) { put(o, &c, 1); }

/* `width` digits at least, zero padded. */
static void put_uint(jout *o, uint64_t v, int width) {
    char t[24];
    int i = 24;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v || 24 - i < width);
    put(o, t + i, (size_t)(24 - i));
}

static void put_int(jout *o, int64_t v) {
    if (v < 0) putc_(o, '-');
    put_uint(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 1);
}

/* Valid UTF-8 sequence length at p (first byte >= 0x80), 0 if invalid. */
static size_t utf8_len(const uint8_t *p, size_t n) {
    uint8_t c = p[0];
    size_t k;
    uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) k = 2;
    else if (c >= 0xe0 && c <= 0xef) k = 3, lo = c == 0xe0 ? 0xa0 : lo, hi = c == 0xed ? 0x9f : hi;
    else if (c >= 0xf0 && c <= 0xf4) k = 4, lo = c == 0xf0 ? 0x90 : lo, hi = c == 0xf4 ? 0x8f : hi;
    else return 0;
    if (n < k || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < k; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return k;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD, as `plank cat`
 * prints them. */
static void put_string(jout *o, const uint8_t *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    putc_(o, '"');
    size_t run = 0; /* start of the pending plain bytes */
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        size_t k = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
        if (k) {
            i += k;
            continue;
        }
        put(o, s + run, i - run);
        char e[8] = {'\\', 0};
        switch (c) {
        case '"': e[1] = '"'; put(o, e, 2); break;
        case '\\': e[1] = '\\'; put(o, e, 2); break;
        case '\n': e[1] = 'n'; put(o, e, 2); break;
        case '\r': e[1] = 'r'; put(o, e, 2); break;
        case '\t': e[1] = 't'; put(o, e, 2); break;
        case '\b': e[1] = 'b'; put(o, e, 2); break;
        case '\f': e[1] = 'f'; put(o, e, 2); break;
        default:
            if (c >= 0x80) {
                puts_(o, "\\ufffd");
            } else {
                memcpy(e, "\\u00", 4);
                e[4] = hex[c >> 4];
                e[5] = hex[c & 15];
                put(o, e, 6);
            }
        }
        i++;
        run = i;
    }
    put(o, s + run, n - run);
    putc_(o, '"');
}

static void put_base64(jout *o, const uint8_t *p, size_t n) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    putc_(o, '"');
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char q[4] = {abc[v >> 18], abc[(v >> 12) & 63], i + 1 < n ? abc[(v >> 6) & 63] : '=',
                     i + 2 < n ? abc[v & 63] : '='};
        put(o, q, 4);
    }
    putc_(o, '"');
}

/* The fewest "%.Pg" digits that read back to v (as a float when as_float):
 * round-tripping is monotone in P, so a binary search over 1..17 finds it.
 * The same text `plank cat` gives FLOAT and DOUBLE columns. */
static void put_real(jout *o, double v, bool as_float) {
    if (isnan(v)) {
        puts_(o, "\"NaN\"");
        return;
    }
    if (isinf(v)) {
        puts_(o, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return;
    }
    char best[40], t[40];
    int lo = 1, hi = as_float ? 9 : 17;
    snprintf(best, sizeof best, "%.*g", hi, v);
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        snprintf(t, sizeof t, "%.*g", mid, v);
        bool same = as_float ? strtof(t, NULL) == (float)v : strtod(t, NULL) == v;
        if (same) {
            hi = mid;
            memcpy(best, t, sizeof best);
        } else {
            lo = mid + 1;
        }
    }
    puts_(o, best);
}

/* A 128-bit two's complement decimal with `scale` digits after the point,
 * as a JSON string ("-12.30"). */
static void put_decimal(jout *o, unsigned __int128 u, int scale) {
    bool neg = (u >> 127) != 0;
    if (neg) u = 0 - u;
    char d[48];
    int i = 48;
    do {
        d[--i] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int nd = 48 - i;
    putc_(o, '"');
    if (neg) putc_(o, '-');
    if (scale == 0) {
        put(o, d + i, (size_t)nd);
    } else if (nd <= scale) {
        puts_(o, "0.");
        for (int k = nd; k < scale; k++) putc_(o, '0');
        put(o, d + i, (size_t)nd);
    } else {
        put(o, d + i, (size_t)(nd - scale));
        putc_(o, '.');
        put(o, d + i + nd - scale, (size_t)scale);
    }
    putc_(o, '"');
}

static void put_date_text(jout *o, int64_t days) {
    int64_t y;
    int m, d;
    pk_civil_from_days(days, &y, &m, &d);
    if (y < 0) putc_(o, '-');
    put_uint(o, y < 0 ? 0 - (uint64_t)y : (uint64_t)y, 4);
    putc_(o, '-');
    put_uint(o, (uint64_t)m, 2);
    putc_(o, '-');
    put_uint(o, (uint64_t)d, 2);
}

/* HH:MM:SS.f... of `in_day` units (per_sec per second, `digits` of them). */
static void put_clock(jout *o, uint64_t in_day, uint64_t per_sec, int digits) {
    uint64_t s = in_day / per_sec;
    put_uint(o, s / 3600, 2);
    putc_(o, ':');
    put_uint(o, s / 60 % 60, 2);
    putc_(o, ':');
    put_uint(o, s % 60, 2);
    putc_(o, '.');
    put_uint(o, in_day % per_sec, digits);
}

static void put_timestamp(jout *o, int64_t v, bool nanos, bool utc) {
    int64_t per_sec = nanos ? 1000000000 : 1000000, per_day = per_sec * 86400;
    int64_t days = v / per_day, rem = v % per_day;
    if (rem < 0) {
        rem += per_day;
        days--;
    }
    putc_(o, '"');
    put_date_text(o, days);
    putc_(o, 'T');
    put_clock(o, (uint64_t)rem, (uint64_t)per_sec, nanos ? 9 : 6);
    if (utc) putc_(o, 'Z');
    putc_(o, '"');
}

static void put_uuid(jout *o, const uint8_t *p) {
    static const char hex[] = "0123456789abcdef";
    char t[38];
    size_t k = 0;
    t[k++] = '"';
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) t[k++] = '-';
        t[k++] = hex[p[i] >> 4];
        t[k++] = hex[p[i] & 15];
    }
    t[k++] = '"';
    put(o, t, k);
}

/* ---- The walk ------------------------------------------------------------------------ */

static const char *const type_names[PK_VT_COUNT] = {
    "null",    "true",   "false",  "int8",      "int16",          "int32",
    "int64",   "double", "decimal4", "decimal8", "decimal16",     "date",
    "timestamp", "timestamp_ntz", "float", "binary", "string",    "time",
    "timestamp_nanos", "timestamp_ntz_nanos", "uuid"};

/* Bytes after the header of a fixed-size primitive; -1 for the sized ones
 * (binary, string) and unknown ids. */
static int fixed_size(uint32_t t) {
    static const int8_t sizes[PK_VT_COUNT] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4,
                                              8, 8, 4, -1, -1, 8, 8, 8, 16};
    return t < PK_VT_COUNT ? sizes[t] : -1;
}

static plank_status walk(const pk_vmeta *m, const uint8_t *p, size_t n, size_t pos, int depth,
                         jout *o, size_t *size);

static plank_status walk_primitive(const uint8_t *p, size_t n, size_t pos, jout *o,
                                   size_t *size) {
    plank_error *err = o->err;
    uint32_t t = p[0] >> 2;
    PK_RETURN_IF(t >= PK_VT_COUNT, err, PLANK_ERR_CORRUPT,
                 "variant value: unknown primitive type %u at byte %zu", t, pos);
    int fs = fixed_size(t);
    if (fs < 0) { /* binary, string: a 4-byte length */
        PK_RETURN_IF(n < 5, err, PLANK_ERR_CORRUPT,
                     "variant %s at byte %zu ends inside its length", type_names[t], pos);
        uint32_t len = load_uint(p + 1, 4);
        PK_RETURN_IF(len > n - 5, err, PLANK_ERR_CORRUPT,
                     "variant %s at byte %zu: length %u exceeds the %zu bytes left",
                     type_names[t], pos, len, n - 5);
        if (t == PK_VT_STRING) put_string(o, p + 5, len);
        else put_base64(o, p + 5, len);
        *size = 5 + (size_t)len;
        return PLANK_OK;
    }
    PK_RETURN_IF((size_t)fs > n - 1, err, PLANK_ERR_CORRUPT,
                 "variant %s at byte %zu needs %d bytes, %zu left", type_names[t], pos, fs,
                 n - 1);
    const uint8_t *v = p + 1;
    switch (t) {
    case PK_VT_NULL: puts_(o, "null"); break;
    case PK_VT_TRUE: puts_(o, "true"); break;
    case PK_VT_FALSE: puts_(o, "false"); break;
    case PK_VT_INT8: put_int(o, (int8_t)v[0]); break;
    case PK_VT_INT16: put_int(o, (int16_t)pk_load_u16(v)); break;
    case PK_VT_INT32: put_int(o, (int32_t)pk_load_u32(v)); break;
    case PK_VT_INT64: put_int(o, (int64_t)pk_load_u64(v)); break;
    case PK_VT_DOUBLE: {
        double d;
        memcpy(&d, v, 8);
        put_real(o, d, false);
        break;
    }
    case PK_VT_FLOAT: {
        float f;
        memcpy(&f, v, 4);
        put_real(o, (double)f, true);
        break;
    }
    case PK_VT_DECIMAL4:
    case PK_VT_DECIMAL8:
    case PK_VT_DECIMAL16: {
        PK_RETURN_IF(v[0] > 38, err, PLANK_ERR_CORRUPT,
                     "variant %s at byte %zu: scale %u is above 38", type_names[t], pos,
                     (unsigned)v[0]);
        unsigned __int128 u;
        if (t == PK_VT_DECIMAL4) {
            u = (unsigned __int128)(__int128)(int32_t)pk_load_u32(v + 1);
        } else if (t == PK_VT_DECIMAL8) {
            u = (unsigned __int128)(__int128)(int64_t)pk_load_u64(v + 1);
        } else {
            u = (unsigned __int128)pk_load_u64(v + 9) << 64 | pk_load_u64(v + 1);
        }
        put_decimal(o, u, v[0]);
        break;
    }
    case PK_VT_DATE:
        putc_(o, '"');
        put_date_text(o, (int32_t)pk_load_u32(v));
        putc_(o, '"');
        break;
    case PK_VT_TIME: {
        int64_t us = (int64_t)pk_load_u64(v);
        PK_RETURN_IF(us < 0 || us > INT64_C(86400000000), err, PLANK_ERR_CORRUPT,
                     "variant time at byte %zu is %lld microseconds, outside one day", pos,
                     (long long)us);
        putc_(o, '"');
        put_clock(o, (uint64_t)us, 1000000, 6);
        putc_(o, '"');
        break;
    }
    case PK_VT_TIMESTAMP:
    case PK_VT_TIMESTAMP_NTZ:
    case PK_VT_TIMESTAMP_NANOS:
    case PK_VT_TIMESTAMP_NTZ_NANOS:
        put_timestamp(o, (int64_t)pk_load_u64(v),
                      t == PK_VT_TIMESTAMP_NANOS || t == PK_VT_TIMESTAMP_NTZ_NANOS,
                      t == PK_VT_TIMESTAMP || t == PK_VT_TIMESTAMP_NANOS);
        break;
    case PK_VT_UUID: put_uuid(o, v); break;
    default: break;
    }
    *size = 1 + (size_t)fs;
    return PLANK_OK;
}

static plank_status walk_container(const pk_vmeta *m, const uint8_t *p, size_t n, size_t pos,
                                   int depth, jout *o, size_t *size) {
    plank_error *err = o->err;
    bool object = (p[0] & 3) == PK_VB_OBJECT;
    const char *what = object ? "object" : "array";
    PK_RETURN_IF(depth >= PK_VARIANT_MAX_DEPTH, err, PLANK_ERR_CORRUPT,
                 "variant %s at byte %zu nests deeper than %d", what, pos,
                 PK_VARIANT_MAX_DEPTH);
    pk_vcontainer c;
    if (pk_vcontainer_parse(&c, p, n, err) != PLANK_OK) {
        pk_error_prefix(err, "at byte %zu", pos);
        return err ? err->code : PLANK_ERR_CORRUPT;
    }
    uint32_t total = container_offset(&c, c.num);
    PK_RETURN_IF(total > c.values_size, err, PLANK_ERR_CORRUPT,
                 "variant %s at byte %zu: its values end at %u, past the %zu bytes left", what,
                 pos, total, c.values_size);
    size_t values_pos = pos + (size_t)(c.values - p);
    putc_(o, object ? '{' : '[');
    for (uint32_t i = 0; i < c.num; i++) {
        if (i) putc_(o, ',');
        if (object) {
            uint32_t id = pk_vcontainer_id(&c, i);
            const uint8_t *k;
            size_t kn;
            PK_RETURN_IF(!pk_vmeta_key(m, id, &k, &kn), err, PLANK_ERR_CORRUPT,
                         "variant object at byte %zu: field %u has id %u, the metadata has "
                         "%u keys",
                         pos, i, id, m->dict_size);
            put_string(o, k, kn);
            putc_(o, ':');
        }
        uint32_t off = container_offset(&c, i);
        PK_RETURN_IF(off >= total, err, PLANK_ERR_CORRUPT,
                     "variant %s at byte %zu: element %u starts at %u, outside its %u value "
                     "bytes",
                     what, pos, i, off, total);
        size_t es;
        PK_FORWARD(walk(m, c.values + off, total - off, values_pos + off, depth + 1, o, &es));
    }
    putc_(o, object ? '}' : ']');
    *size = (size_t)(c.values - p) + total;
    return PLANK_OK;
}

static plank_status walk(const pk_vmeta *m, const uint8_t *p, size_t n, size_t pos, int depth,
                         jout *o, size_t *size) {
    PK_RETURN_IF(n == 0, o->err, PLANK_ERR_CORRUPT, "variant value ends at byte %zu", pos);
    plank_status st;
    switch (p[0] & 3) {
    case PK_VB_PRIMITIVE: st = walk_primitive(p, n, pos, o, size); break;
    case PK_VB_SHORT_STRING: {
        size_t len = p[0] >> 2;
        PK_RETURN_IF(len > n - 1, o->err, PLANK_ERR_CORRUPT,
                     "variant short string at byte %zu: length %zu exceeds the %zu bytes left",
                     pos, len, n - 1);
        put_string(o, p + 1, len);
        *size = 1 + len;
        st = PLANK_OK;
        break;
    }
    default: st = walk_container(m, p, n, pos, depth, o, size); break;
    }
    if (st == PLANK_OK && o->failed) st = o->err ? o->err->code : PLANK_ERR_OUT_OF_MEMORY;
    return st;
}

plank_status pk_variant_check(const pk_vmeta *m, const uint8_t *p, size_t n, size_t *size,
                              plank_error *err) {
    jout o = {NULL, err, false};
    size_t s = 0;
    PK_FORWARD(walk(m, p, n, 0, 0, &o, &s));
    if (size) *size = s;
    return PLANK_OK;
}

plank_status pk_variant_json(const pk_vmeta *m, const uint8_t *p, size_t n, pk_buffer *out,
                             plank_error *err) {
    jout o = {out, err, false};
    size_t s = 0;
    size_t start = out->size;
    plank_status st = walk(m, p, n, 0, 0, &o, &s);
    if (st != PLANK_OK) out->size = start;
    return st;
}

/* ---- Public entry points ------------------------------------------------------------- */

plank_status plank_variant_validate(const uint8_t *metadata, size_t metadata_len,
                                    const uint8_t *value, size_t value_len, plank_error *err) {
    plank_error_init(err);
    PK_RETURN_IF(!metadata || !value, err, PLANK_ERR_INVALID_ARGUMENT,
                 "plank_variant_validate: metadata or value is NULL");
    pk_vmeta m;
    PK_FORWARD(pk_vmeta_parse(&m, metadata, metadata_len, err));
    size_t used;
    PK_FORWARD(pk_variant_check(&m, value, value_len, &used, err));
    PK_RETURN_IF(used != value_len, err, PLANK_ERR_CORRUPT,
                 "variant value of %zu bytes ends at byte %zu", value_len, used);
    return PLANK_OK;
}

plank_status plank_variant_to_json(const uint8_t *metadata, size_t metadata_len,
                                   const uint8_t *value, size_t value_len, char *buf,
                                   size_t size, size_t *length, const plank_allocator *a,
                                   plank_error *err) {
    plank_error_init(err);
    if (length) *length = 0;
    if (buf && size) buf[0] = 0;
    PK_RETURN_IF(!metadata || !value || (!buf && size), err, PLANK_ERR_INVALID_ARGUMENT,
                 "plank_variant_to_json: metadata, value or buf is NULL");
    pk_vmeta m;
    PK_FORWARD(pk_vmeta_parse(&m, metadata, metadata_len, err));
    pk_buffer out;
    pk_buffer_init(&out, a ? a : pk_default_allocator());
    plank_status st = pk_variant_json(&m, value, value_len, &out, err);
    if (st == PLANK_OK) {
        if (size) {
            size_t k = out.size < size - 1 ? out.size : size - 1;
            if (k) memcpy(buf, out.data, k);
            buf[k] = 0;
        }
        if (length) *length = out.size;
    }
    pk_buffer_reset(&out);
    return st;
}
