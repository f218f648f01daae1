/* pk_common.c: errors, allocation, buffers, CRC32, enum names. */
#include "pk_common.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef PLANK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

/* ---- Errors ------------------------------------------------------------- */

void plank_error_init(plank_error *err) {
    if (!err) return;
    err->code = PLANK_OK;
    err->byte_offset = -1;
    err->row_group = -1;
    err->column = -1;
    err->page = -1;
    err->message[0] = '\0';
}

plank_status pk_error_set(plank_error *err, plank_status code, const char *fmt, ...) {
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void pk_error_prefix(plank_error *err, const char *fmt, ...) {
    if (!err) return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Build "prefix: message" in place, truncating the old message if the
     * whole does not fit. */
    size_t pl = strlen(prefix), ml = strlen(err->message);
    if (pl + 2 >= sizeof err->message) pl = sizeof err->message - 3;
    if (pl + 2 + ml >= sizeof err->message) ml = sizeof err->message - pl - 3;
    memmove(err->message + pl + 2, err->message, ml);
    err->message[pl + 2 + ml] = '\0';
    memcpy(err->message, prefix, pl);
    err->message[pl] = ':';
    err->message[pl + 1] = ' ';
}

void pk_error_locate(plank_error *err, int64_t byte_offset, int32_t row_group, int32_t column,
                     int64_t page) {
    if (!err) return;
    if (err->byte_offset < 0) err->byte_offset = byte_offset;
    if (err->row_group < 0) err->row_group = row_group;
    if (err->column < 0) err->column = column;
    if (err->page < 0) err->page = page;
}

const char *plank_status_string(plank_status s) {
    switch (s) {
    case PLANK_OK: return "ok";
    case PLANK_ERR_INVALID_ARGUMENT: return "invalid argument";
    case PLANK_ERR_IO: return "I/O error";
    case PLANK_ERR_OUT_OF_MEMORY: return "out of memory";
    case PLANK_ERR_CORRUPT: return "corrupt file";
    case PLANK_ERR_UNSUPPORTED: return "unsupported";
    case PLANK_ERR_CHECKSUM: return "checksum mismatch";
    case PLANK_ERR_LIMIT: return "limit exceeded";
    case PLANK_ERR_ENCRYPTED: return "encrypted";
    case PLANK_ERR_END: return "end of data";
    }
    return "unknown status";
}

const char *plank_version_string(void) { return PLANK_VERSION_STRING; }

/* ---- Allocation --------------------------------------------------------- */

static void *default_realloc(void *opaque, void *p, size_t old_n, size_t new_n) {
    (void)opaque;
    (void)old_n;
    return realloc(p, new_n ? new_n : 1);
}
static void default_free(void *opaque, void *p, size_t n) {
    (void)opaque;
    (void)n;
    free(p);
}
static const plank_allocator k_default_allocator = {default_realloc, default_free, NULL};

const plank_allocator *pk_default_allocator(void) { return &k_default_allocator; }

void *pk_malloc(const plank_allocator *a, size_t n) {
    if (!a) a = &k_default_allocator;
    return a->reallocate(a->opaque, NULL, 0, n);
}
void *pk_calloc(const plank_allocator *a, size_t n) {
    void *p = pk_malloc(a, n);
    if (p) memset(p, 0, n);
    return p;
}
void *pk_realloc(const plank_allocator *a, void *p, size_t old_n, size_t new_n) {
    if (!a) a = &k_default_allocator;
    return a->reallocate(a->opaque, p, old_n, new_n);
}
void pk_free(const plank_allocator *a, void *p, size_t n) {
    if (!p) return;
    if (!a) a = &k_default_allocator;
    a->free(a->opaque, p, n);
}
char *pk_strndup(const plank_allocator *a, const char *s, size_t n) {
    char *d = pk_malloc(a, n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* ---- Shared block --------------------------------------------------------- */

struct pk_shared {
    plank_allocator a;
    size_t size;        /* of the whole allocation (the header alone when wrapped) */
    atomic_size_t refs;
    uint8_t *data;      /* the bytes: after the header, or the wrapped ones */
    size_t ext_size;    /* wrapped bytes */
    void (*drop)(void *ctx, void *data, size_t size); /* wrapped: frees them */
    void *ctx;
};

/* The bytes start one cache line after the header. */
#define PK_SHARED_HEAD ((sizeof(pk_shared) + 63) & ~(size_t)63)

pk_shared *pk_shared_new(const plank_allocator *a, size_t size) {
    if (!a) a = &k_default_allocator;
    if (size > SIZE_MAX - PK_SHARED_HEAD) return NULL;
    pk_shared *s = pk_malloc(a, PK_SHARED_HEAD + size);
    if (!s) return NULL;
    s->a = *a;
    s->size = PK_SHARED_HEAD + size;
    atomic_init(&s->refs, 1);
    s->data = (uint8_t *)s + PK_SHARED_HEAD;
    s->ext_size = 0;
    s->drop = NULL;
    s->ctx = NULL;
    return s;
}

pk_shared *pk_shared_wrap(const plank_allocator *a, void *data, size_t size,
                          void (*drop)(void *ctx, void *data, size_t size), void *ctx) {
    if (!a) a = &k_default_allocator;
    pk_shared *s = pk_malloc(a, sizeof *s);
    if (!s) return NULL;
    s->a = *a;
    s->size = sizeof *s;
    atomic_init(&s->refs, 1);
    s->data = data;
    s->ext_size = size;
    s->drop = drop;
    s->ctx = ctx;
    return s;
}

uint8_t *pk_shared_data(pk_shared *s) { return s->data; }

size_t pk_shared_capacity(const pk_shared *s) {
    return s->drop ? s->ext_size : s->size - PK_SHARED_HEAD;
}

bool pk_shared_unique(pk_shared *s) {
    /* acquire: the other owners' last reads happen before our reuse. */
    return atomic_load_explicit(&s->refs, memory_order_acquire) == 1;
}

void pk_shared_retain(pk_shared *s) {
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void pk_shared_release(pk_shared *s) {
    if (!s) return;
    /* acq_rel: every owner's reads of the bytes happen before the free. */
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
    plank_allocator a = s->a;
    if (s->drop) s->drop(s->ctx, s->data, s->ext_size);
    pk_free(&a, s, s->size);
}

/* ---- Buffers -------------------------------------------------------------- */

void pk_buffer_init(pk_buffer *b, const plank_allocator *a) {
    b->data = NULL;
    b->size = 0;
    b->capacity = 0;
    b->alloc = a ? a : &k_default_allocator;
}

void pk_buffer_reset(pk_buffer *b) {
    if (b->data) pk_free(b->alloc, b->data, b->capacity + PK_BUFFER_PADDING);
    b->data = NULL;
    b->size = 0;
    b->capacity = 0;
}

plank_status pk_buffer_reserve(pk_buffer *b, size_t n, plank_error *err) {
    if (n <= b->capacity && b->data) return PLANK_OK;
    size_t cap = b->capacity ? b->capacity : 64;
    while (cap < n) {
        if (cap > SIZE_MAX / 2 - PK_BUFFER_PADDING)
            return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "buffer of %zu bytes is too large", n);
        cap *= 2;
    }
    uint8_t *p = pk_realloc(b->alloc, b->data, b->data ? b->capacity + PK_BUFFER_PADDING : 0,
                            cap + PK_BUFFER_PADDING);
    if (!p)
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes",
                            cap + PK_BUFFER_PADDING);
    /* Zero the padding so over-reads see defined bytes. */
    memset(p + cap, 0, PK_BUFFER_PADDING);
    b->data = p;
    b->capacity = cap;
    return PLANK_OK;
}

plank_status pk_buffer_resize(pk_buffer *b, size_t n, plank_error *err) {
    PK_FORWARD(pk_buffer_reserve(b, n, err));
    b->size = n;
    /* Keep the bytes right after `size` zero too: decoders may over-read. */
    memset(b->data + n, 0, b->capacity + PK_BUFFER_PADDING - n < PK_BUFFER_PADDING
                               ? b->capacity + PK_BUFFER_PADDING - n
                               : PK_BUFFER_PADDING);
    return PLANK_OK;
}

plank_status pk_buffer_append(pk_buffer *b, const void *src, size_t n, plank_error *err) {
    if (n == 0) return PLANK_OK;
    size_t need;
    if (__builtin_add_overflow(b->size, n, &need))
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "buffer size overflow");
    PK_FORWARD(pk_buffer_reserve(b, need, err));
    memcpy(b->data + b->size, src, n);
    b->size = need;
    return PLANK_OK;
}

/* ---- Arena ---------------------------------------------------------------- */

struct pk_arena_block {
    pk_arena_block *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    /* data follows, 16-byte aligned */
};
#define PK_ARENA_HDR ((sizeof(pk_arena_block) + 15) & ~(size_t)15)
#define PK_ARENA_MIN_BLOCK 16384

void pk_arena_init(pk_arena *ar, const plank_allocator *a) {
    ar->head = NULL;
    ar->alloc = a ? a : &k_default_allocator;
    ar->total = 0;
}

void pk_arena_reset(pk_arena *ar) {
    pk_arena_block *b = ar->head;
    while (b) {
        pk_arena_block *next = b->next;
        pk_free(ar->alloc, b, PK_ARENA_HDR + b->size);
        b = next;
    }
    ar->head = NULL;
    ar->total = 0;
}

void *pk_arena_alloc(pk_arena *ar, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    pk_arena_block *b = ar->head;
    if (!b || b->size - b->used < n) {
        size_t sz = n > PK_ARENA_MIN_BLOCK ? n : PK_ARENA_MIN_BLOCK;
        if (sz > SIZE_MAX - PK_ARENA_HDR) return NULL;
        b = pk_malloc(ar->alloc, PK_ARENA_HDR + sz);
        if (!b) return NULL;
        b->size = sz;
        b->used = 0;
        b->next = ar->head;
        ar->head = b;
        ar->total += PK_ARENA_HDR + sz;
    }
    uint8_t *p = (uint8_t *)b + PK_ARENA_HDR + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *pk_arena_strndup(pk_arena *ar, const char *s, size_t n) {
    char *d = pk_arena_alloc(ar, n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* ---- CRC32 ------------------------------------------------------------------ */

uint32_t pk_crc32(uint32_t crc, const void *data, size_t n) {
#ifdef PLANK_HAVE_LIBDEFLATE
    return libdeflate_crc32(crc, data, n);
#else
    /* Nibble table: small and constant; fast paths come with the SIMD work. */
    static const uint32_t t[16] = {
        0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
        0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
        0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c};
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ t[crc & 15];
        crc = (crc >> 4) ^ t[crc & 15];
    }
    return ~crc;
#endif
}

/* ---- Enum names --------------------------------------------------------------- */

const char *plank_physical_type_name(plank_physical_type t) {
    switch (t) {
    case PLANK_BOOLEAN: return "BOOLEAN";
    case PLANK_INT32: return "INT32";
    case PLANK_INT64: return "INT64";
    case PLANK_INT96: return "INT96";
    case PLANK_FLOAT: return "FLOAT";
    case PLANK_DOUBLE: return "DOUBLE";
    case PLANK_BYTE_ARRAY: return "BYTE_ARRAY";
    case PLANK_FIXED_LEN_BYTE_ARRAY: return "FIXED_LEN_BYTE_ARRAY";
    case PLANK_PHYSICAL_NONE: return "GROUP";
    }
    return "UNKNOWN";
}

const char *plank_converted_type_name(plank_converted_type t) {
    static const char *const names[] = {
        "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
        "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
        "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
    if (t == PLANK_CONVERTED_NONE) return "NONE";
    if ((int)t < 0 || (size_t)t >= sizeof names / sizeof names[0]) return "UNKNOWN";
    return names[t];
}

const char *plank_encoding_name(plank_encoding e) {
    switch (e) {
    case PLANK_ENC_PLAIN: return "PLAIN";
    case PLANK_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PLANK_ENC_RLE: return "RLE";
    case PLANK_ENC_BIT_PACKED: return "BIT_PACKED";
    case PLANK_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PLANK_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PLANK_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PLANK_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    }
    return "UNKNOWN";
}

const char *plank_codec_name(plank_codec c) {
    switch (c) {
    case PLANK_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
    case PLANK_CODEC_SNAPPY: return "SNAPPY";
    case PLANK_CODEC_GZIP: return "GZIP";
    case PLANK_CODEC_LZO: return "LZO";
    case PLANK_CODEC_BROTLI: return "BROTLI";
    case PLANK_CODEC_LZ4: return "LZ4";
    case PLANK_CODEC_ZSTD: return "ZSTD";
    case PLANK_CODEC_LZ4_RAW: return "LZ4_RAW";
    }
    return "UNKNOWN";
}

const char *plank_page_type_name(plank_page_type t) {
    switch (t) {
    case PLANK_PAGE_DATA: return "DATA_PAGE";
    case PLANK_PAGE_INDEX: return "INDEX_PAGE";
    case PLANK_PAGE_DICTIONARY: return "DICTIONARY_PAGE";
    case PLANK_PAGE_DATA_V2: return "DATA_PAGE_V2";
    }
    return "UNKNOWN";
}

const char *plank_logical_kind_name(plank_logical_kind k) {
    switch (k) {
    case PLANK_LOGICAL_NONE: return "NONE";
    case PLANK_LOGICAL_STRING: return "STRING";
    case PLANK_LOGICAL_MAP: return "MAP";
    case PLANK_LOGICAL_LIST: return "LIST";
    case PLANK_LOGICAL_ENUM: return "ENUM";
    case PLANK_LOGICAL_DECIMAL: return "DECIMAL";
    case PLANK_LOGICAL_DATE: return "DATE";
    case PLANK_LOGICAL_TIME: return "TIME";
    case PLANK_LOGICAL_TIMESTAMP: return "TIMESTAMP";
    case PLANK_LOGICAL_INTEGER: return "INTEGER";
    case PLANK_LOGICAL_UNKNOWN: return "UNKNOWN";
    case PLANK_LOGICAL_JSON: return "JSON";
    case PLANK_LOGICAL_BSON: return "BSON";
    case PLANK_LOGICAL_UUID: return "UUID";
    case PLANK_LOGICAL_FLOAT16: return "FLOAT16";
    case PLANK_LOGICAL_VARIANT: return "VARIANT";
    case PLANK_LOGICAL_GEOMETRY: return "GEOMETRY";
    case PLANK_LOGICAL_GEOGRAPHY: return "GEOGRAPHY";
    case PLANK_LOGICAL_INTERVAL: return "INTERVAL";
    case PLANK_LOGICAL_MAP_KEY_VALUE: return "MAP_KEY_VALUE";
    case PLANK_LOGICAL_UNRECOGNIZED: return "UNRECOGNIZED";
    }
    return "UNRECOGNIZED";
}

static const char *unit_name(plank_time_unit u) {
    return u == PLANK_UNIT_MILLIS ? "MILLIS" : u == PLANK_UNIT_MICROS ? "MICROS" : "NANOS";
}

char *plank_logical_type_format(const plank_logical_type *t, char *buf, size_t size) {
    if (!buf || size == 0) return buf;
    const char *name = plank_logical_kind_name(t->kind);
    switch (t->kind) {
    case PLANK_LOGICAL_DECIMAL:
        snprintf(buf, size, "DECIMAL(%d,%d)", (int)t->precision, (int)t->scale);
        break;
    case PLANK_LOGICAL_TIME:
    case PLANK_LOGICAL_TIMESTAMP:
        snprintf(buf, size, "%s(%s,utc=%s)", name, unit_name(t->unit),
                 t->is_adjusted_to_utc ? "true" : "false");
        break;
    case PLANK_LOGICAL_INTEGER:
        snprintf(buf, size, "INTEGER(%d,%s)", (int)t->bit_width,
                 t->is_signed ? "signed" : "unsigned");
        break;
    case PLANK_LOGICAL_GEOMETRY:
        snprintf(buf, size, "GEOMETRY(crs=%s)", t->crs ? t->crs : "default");
        break;
    case PLANK_LOGICAL_GEOGRAPHY:
        snprintf(buf, size, "GEOGRAPHY(crs=%s,algorithm=%d)", t->crs ? t->crs : "default",
                 t->edge_algorithm < 0 ? 0 : (int)t->edge_algorithm);
        break;
    case PLANK_LOGICAL_VARIANT:
        if (t->variant_version >= 0)
            snprintf(buf, size, "VARIANT(%d)", (int)t->variant_version);
        else
            snprintf(buf, size, "VARIANT");
        break;
    default:
        snprintf(buf, size, "%s", name);
        break;
    }
    return buf;
}
