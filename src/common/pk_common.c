/* pk_common.c: errors, allocation, buffers, CRC32, enum names. */
#define _POSIX_C_SOURCE 200809L /* strerror_r */
#include "pk_common.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pk_crc32_table.h"

int64_t pk_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

/* strerror_r comes in two forms: XSI (returns int, fills buf), which every
 * libc declares under _POSIX_C_SOURCE, and GNU (returns char *, maybe a
 * static string), which glibc declares instead when _GNU_SOURCE is defined.
 * _Generic picks the reader of whichever result this libc's declaration has,
 * so the code does not depend on the feature macros in force. */
static const char *strerror_xsi(int rc, char *buf, size_t size, int errnum) {
    if (rc != 0 || !buf[0]) snprintf(buf, size, "error %d", errnum);
    return buf;
}
static const char *strerror_gnu(const char *s, char *buf, size_t size, int errnum) {
    if (s && s[0]) return s;
    snprintf(buf, size, "error %d", errnum);
    return buf;
}

const char *pk_strerror(int errnum, char *buf, size_t size) {
    static char none[1];
    if (!buf || size == 0) return none;
    buf[0] = '\0';
    return _Generic(strerror_r(errnum, buf, size), int: strerror_xsi,
                    char *: strerror_gnu)(strerror_r(errnum, buf, size), buf, size, errnum);
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
int32_t plank_version_number(void) { return PLANK_VERSION_NUMBER; }

/* ---- Allocation --------------------------------------------------------- */

static void *default_realloc(void *opaque, void *p, size_t old_n, size_t new_n) {
    (void)opaque;
    void *q = realloc(p, new_n ? new_n : 1);
    /* Large blocks (chunk buffers, a row group's pages) are asked to be
     * mapped 2 MiB at a time: see pk_hugepage.c. Each growth re-advises
     * the block, which may have moved. */
    if (q && new_n >= PK_HUGE_BLOCK && new_n > old_n) pk_advise_huge(q, new_n);
    return q;
}
static void default_free(void *opaque, void *p, size_t n) {
    (void)opaque;
    (void)n;
    free(p);
}
static const plank_allocator k_default_allocator = {default_realloc, default_free, NULL};

const plank_allocator *pk_default_allocator(void) { return &k_default_allocator; }
bool pk_alloc_is_default(const plank_allocator *a) {
    return !a || a->reallocate == default_realloc;
}

void *pk_malloc(const plank_allocator *a, size_t n) {
    if (!a) a = &k_default_allocator;
    return a->reallocate(a->opaque, NULL, 0, n);
}
void *pk_calloc(const plank_allocator *a, size_t n) {
    void *p = pk_malloc(a, n);
    if (!p) return NULL;
    /* The memset writes every page: fault them in with one call first (the
     * default allocator's blocks only; a caller's allocator may hand out
     * memory that is not plain anonymous pages). */
    if (n >= PK_POPULATE_MIN && pk_alloc_is_default(a)) pk_populate_write(p, n);
    memset(p, 0, n);
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
    if (n == SIZE_MAX) return NULL; /* n + 1 would wrap */
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

/* ---- Chain of buffers --------------------------------------------------------- */

#define PK_CHAIN_FIRST ((size_t)64 << 10)
#define PK_CHAIN_LARGEST ((size_t)8 << 20)
#define PK_CHAIN_AHEAD ((size_t)256 << 10)

void pk_chain_init(pk_chain *c, const plank_allocator *a) {
    c->seg = NULL;
    c->used = c->count = 0;
    c->done = 0;
    c->ready = 0;
    c->alloc = a ? a : &k_default_allocator;
}

void pk_chain_release(pk_chain *c) {
    for (int32_t i = 0; i < c->count; i++) pk_buffer_reset(&c->seg[i]);
    pk_free(c->alloc, c->seg, sizeof(pk_buffer) * (size_t)c->count);
    pk_chain_init(c, c->alloc);
}

void pk_chain_clear(pk_chain *c) {
    for (int32_t i = 0; i < c->used; i++) c->seg[i].size = 0;
    c->used = 0;
    c->done = 0;
    c->ready = 0;
}

/* Segments are filled front to back, most of them whole: their pages are
 * faulted in PK_CHAIN_AHEAD bytes at a time ahead of the bytes asked for,
 * one call instead of a fault per 4 KiB page (about 8 us each on the
 * project's virtual machines; a row group's pages are tens of MiB).
 * Pages of a kept segment are already in, and `ready` covers them. Only
 * for the default allocator's blocks (see pk_calloc). */
static void chain_populate(pk_chain *c, pk_buffer *t, size_t room) {
    if (!pk_alloc_is_default(c->alloc)) return;
    size_t want = t->size + room;
    if (want <= c->ready) return;
    size_t from = c->ready > t->size ? c->ready : t->size;
    size_t to = want + PK_CHAIN_AHEAD;
    if (to > t->capacity) to = t->capacity;
    if (to > from) pk_populate_write(t->data + from, to - from);
    c->ready = to;
}

plank_status pk_chain_tail(pk_chain *c, size_t room, pk_buffer **tail, plank_error *err) {
    *tail = NULL;
    if (c->used > 0) {
        pk_buffer *t = &c->seg[c->used - 1];
        if (t->capacity - t->size >= room) {
            chain_populate(c, t, room);
            *tail = t;
            return PLANK_OK;
        }
        if (t->size == 0) {
            size_t had = t->capacity;
            PK_FORWARD(pk_buffer_reserve(t, room, err));
            if (t->capacity != had) c->ready = 0; /* a new block */
            chain_populate(c, t, room);
            *tail = t;
            return PLANK_OK;
        }
    }
    if (c->used == c->count) {
        if (c->count == INT32_MAX)
            return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "too many buffer segments");
        int32_t n = c->count ? c->count * 2 : 4;
        if (n < 0) n = INT32_MAX;
        pk_buffer *s = pk_realloc(c->alloc, c->seg, sizeof(pk_buffer) * (size_t)c->count,
                                  sizeof(pk_buffer) * (size_t)n);
        if (!s) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = c->count; i < n; i++) pk_buffer_init(&s[i], c->alloc);
        c->seg = s;
        c->count = n;
    }
    /* Each new segment is twice the last one, within [64 KiB, 8 MiB], and
     * at least `room`. */
    size_t want = PK_CHAIN_FIRST;
    if (c->used > 0) {
        size_t last = c->seg[c->used - 1].capacity;
        want = last >= PK_CHAIN_LARGEST / 2 ? PK_CHAIN_LARGEST : 2 * last;
        if (want < PK_CHAIN_FIRST) want = PK_CHAIN_FIRST;
    }
    if (want < room) want = room;
    pk_buffer *t = &c->seg[c->used];
    /* A kept segment was filled before (whole, but for the last of its
     * chunk, whose untouched tail then faults as before); a new one is
     * populated from its start. */
    c->ready = t->capacity;
    if (t->capacity < want) {
        /* a kept segment too small: replaced, not grown (nothing to copy) */
        pk_buffer_reset(t);
        PK_FORWARD(pk_buffer_reserve(t, want, err));
        c->ready = 0;
    }
    if (c->used > 0) c->done += c->seg[c->used - 1].size;
    t->size = 0;
    c->used++;
    chain_populate(c, t, room);
    *tail = t;
    return PLANK_OK;
}

plank_status pk_chain_each(const pk_chain *c,
                           plank_status (*fn)(void *ctx, const uint8_t *p, size_t n,
                                              plank_error *err),
                           void *ctx, plank_error *err) {
    for (int32_t i = 0; i < c->used; i++)
        if (c->seg[i].size) PK_FORWARD(fn(ctx, c->seg[i].data, c->seg[i].size, err));
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
    if (n > SIZE_MAX - 15) return NULL; /* rounding up would wrap to 0 */
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
    if (n == SIZE_MAX) return NULL; /* n + 1 would wrap */
    char *d = pk_arena_alloc(ar, n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* ---- CRC32 ------------------------------------------------------------------ */

/* Common has its own CRC32 so that it depends on no codec library. The
 * portable path is slicing-by-8 (eight bytes per step through eight
 * independent table lookups; tables generated by src/common/gen/gen_crc32.c);
 * on x86-64 CPUs with PCLMULQDQ, buffers of 64 bytes and more are folded 64
 * bytes at a time with carry-less multiplications (Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ", 2009), several times
 * faster: page checksums are verified on the read path. Both work on the
 * register (the inverted CRC). */
static uint32_t crc32_tables(uint32_t reg, const uint8_t *p, size_t n) {
    const uint32_t (*t)[256] = pk_crc32_table;
    while (n && ((uintptr_t)p & 7)) {
        reg = (reg >> 8) ^ t[0][(reg ^ *p++) & 0xff];
        n--;
    }
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo = pk_load_u32(p) ^ reg, hi = pk_load_u32(p + 4);
        reg = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
              t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
              t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    }
    while (n--) reg = (reg >> 8) ^ t[0][(reg ^ *p++) & 0xff];
    return reg;
}

uint32_t pk_crc32_portable(uint32_t crc, const void *data, size_t n) {
    return ~crc32_tables(~crc, data, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    (!defined(PLANK_SIMD_MAX) || PLANK_SIMD_MAX > 0)
#define PK_CRC32_CLMUL 1
#include <immintrin.h>

#define PK_CLMUL __attribute__((target("pclmul,sse2")))

/* x * x^a (low 64 bits of x) + x * x^b (high 64 bits), modulo P, in the
 * bit-reflected domain: x moved 128 bits further along the message (k
 * holds x^a, x^b for a fold by 128 bits, or by 512 for four lanes). */
PK_CLMUL static inline __m128i crc_fold(__m128i x, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The CRC register from x, the 128-bit remainder of the message so far, and
 * the next n bytes at q (a multiple of 16): each block folded in by 128 bits,
 * then 128 -> 64 bits (the low half times x^96, added to the high half),
 * 64 -> 32 (the low 32 bits times x^64), then Barrett's reduction by P with
 * mu = x^64 / P. */
PK_CLMUL static uint32_t crc_finish(__m128i x, const __m128i *q, size_t n) {
    const uint64_t *k = pk_crc32_fold;
    const __m128i k128 = _mm_set_epi64x((long long)k[3], (long long)k[2]);
    for (; n >= 16; q++, n -= 16) x = _mm_xor_si128(crc_fold(x, k128), _mm_loadu_si128(q));
    const __m128i mask = _mm_set_epi32(0, -1, 0, -1);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k128, 0x10));
    x = _mm_xor_si128(_mm_srli_si128(x, 4),
                      _mm_clmulepi64_si128(_mm_and_si128(x, mask),
                                           _mm_set_epi64x(0, (long long)k[4]), 0x00));
    const __m128i pmu = _mm_set_epi64x((long long)k[6], (long long)k[5]);
    __m128i t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x, mask), pmu, 0x10), mask);
    x = _mm_xor_si128(x, _mm_clmulepi64_si128(t, pmu, 0x00));
    return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x, 4));
}

/* The register after n bytes (n >= 64, a multiple of 16), four 128-bit lanes
 * folded 64 bytes at a time. The constants are x^k mod P bit-reflected and
 * shifted left by one (pk_crc32_fold, with the exponents, in
 * pk_crc32_table.h). */
PK_CLMUL static uint32_t crc32_clmul(uint32_t reg, const uint8_t *p, size_t n) {
    const uint64_t *k = pk_crc32_fold;
    const __m128i k512 = _mm_set_epi64x((long long)k[1], (long long)k[0]);
    const __m128i k128 = _mm_set_epi64x((long long)k[3], (long long)k[2]);
    const __m128i *q = (const __m128i *)(const void *)p;
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128(q), _mm_cvtsi32_si128((int)reg));
    __m128i x1 = _mm_loadu_si128(q + 1), x2 = _mm_loadu_si128(q + 2),
            x3 = _mm_loadu_si128(q + 3);
    for (q += 4, n -= 64; n >= 64; q += 4, n -= 64) {
        x0 = _mm_xor_si128(crc_fold(x0, k512), _mm_loadu_si128(q));
        x1 = _mm_xor_si128(crc_fold(x1, k512), _mm_loadu_si128(q + 1));
        x2 = _mm_xor_si128(crc_fold(x2, k512), _mm_loadu_si128(q + 2));
        x3 = _mm_xor_si128(crc_fold(x3, k512), _mm_loadu_si128(q + 3));
    }
    __m128i x = _mm_xor_si128(crc_fold(x0, k128), x1);
    x = _mm_xor_si128(crc_fold(x, k128), x2);
    x = _mm_xor_si128(crc_fold(x, k128), x3);
    return crc_finish(x, q, n);
}

#if !defined(PLANK_SIMD_MAX) || PLANK_SIMD_MAX > 1
#define PK_CRC32_VCLMUL 1
#define PK_VCLMUL __attribute__((target("avx512f,vpclmulqdq,pclmul,sse2")))

/* Both 64-bit halves of each 128-bit lane of x carried d bits further
 * (k: per lane the constants for its distance), modulo P. */
PK_VCLMUL static inline __m512i crc_fold512(__m512i x, __m512i k) {
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00),
                            _mm512_clmulepi64_epi128(x, k, 0x11));
}

/* crc32_clmul with 512-bit registers (n >= 256, a multiple of 16): four
 * registers of four lanes folded 256 bytes at a time. On this project's
 * AMD machines PCLMULQDQ issues one 128-bit multiply every other cycle, so
 * 16 lanes per instruction group fold about twice as many bytes a cycle.
 * The registers are then folded into one, its four lanes into one (by 384,
 * 256 and 128 bits), and the rest is crc_finish's. */
PK_VCLMUL static uint32_t crc32_vclmul512(uint32_t reg, const uint8_t *p, size_t n) {
    const uint64_t *k = pk_crc32_fold;
    const __m512i k2048 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)k[8], (long long)k[7]));
    const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)k[1], (long long)k[0]));
    __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p),
                                  _mm512_castsi128_si512(_mm_cvtsi32_si128((int)reg)));
    __m512i x1 = _mm512_loadu_si512(p + 64), x2 = _mm512_loadu_si512(p + 128),
            x3 = _mm512_loadu_si512(p + 192);
    for (p += 256, n -= 256; n >= 256; p += 256, n -= 256) {
        x0 = _mm512_xor_si512(crc_fold512(x0, k2048), _mm512_loadu_si512(p));
        x1 = _mm512_xor_si512(crc_fold512(x1, k2048), _mm512_loadu_si512(p + 64));
        x2 = _mm512_xor_si512(crc_fold512(x2, k2048), _mm512_loadu_si512(p + 128));
        x3 = _mm512_xor_si512(crc_fold512(x3, k2048), _mm512_loadu_si512(p + 192));
    }
    __m512i x = _mm512_xor_si512(crc_fold512(x0, k512), x1);
    x = _mm512_xor_si512(crc_fold512(x, k512), x2);
    x = _mm512_xor_si512(crc_fold512(x, k512), x3);
    for (; n >= 64; p += 64, n -= 64) x = _mm512_xor_si512(crc_fold512(x, k512), _mm512_loadu_si512(p));
    /* Lanes 0, 1, 2 (the earliest bytes first) carried by 384, 256 and 128
     * bits onto lane 3; the top lane's constants are zero. */
    const __m512i kl = _mm512_set_epi64(0, 0, (long long)k[3], (long long)k[2], (long long)k[12],
                                        (long long)k[11], (long long)k[10], (long long)k[9]);
    __m512i t = crc_fold512(x, kl);
    __m128i r = _mm_xor_si128(_mm512_extracti32x4_epi32(t, 0), _mm512_extracti32x4_epi32(t, 1));
    r = _mm_xor_si128(r, _mm512_extracti32x4_epi32(t, 2));
    r = _mm_xor_si128(r, _mm512_extracti32x4_epi32(x, 3));
    return crc_finish(r, (const __m128i *)(const void *)p, n);
}
#endif
#endif

/* The CRC by the path of `level` or the best below it the CPU has: 0 the
 * tables, 1 PCLMULQDQ, 2 VPCLMULQDQ on 512-bit registers. */
static uint32_t crc32_at(int level, uint32_t crc, const uint8_t *p, size_t n) {
    uint32_t reg = ~crc;
#ifdef PK_CRC32_CLMUL
#ifdef PK_CRC32_VCLMUL
    if (level >= 2 && n >= 256 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("pclmul")) {
        size_t body = n & ~(size_t)15;
        reg = crc32_vclmul512(reg, p, body);
        p += body;
        n -= body;
    } else
#endif
    if (level >= 1 && n >= 64 && __builtin_cpu_supports("pclmul")) {
        size_t body = n & ~(size_t)15;
        reg = crc32_clmul(reg, p, body);
        p += body;
        n -= body;
    }
#else
    (void)level;
#endif
    return ~crc32_tables(reg, p, n);
}

uint32_t pk_crc32(uint32_t crc, const void *data, size_t n) {
    return crc32_at(2, crc, data, n);
}

uint32_t pk_crc32_level(int level, uint32_t crc, const void *data, size_t n) {
    return crc32_at(level, crc, data, n);
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

/* ---- Calendar ------------------------------------------------------------ */

/* Days since 1970-01-01 of a proleptic Gregorian date (any year), by
 * counting whole 400-year eras of 146097 days from 0000-03-01. */
int64_t pk_days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;                                   /* [0, 399] */
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

/* The inverse of pk_days_from_civil. */
void pk_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}
