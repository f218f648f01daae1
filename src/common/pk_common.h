/*
 * pk_common.h: internal foundation shared by every module (status
 * propagation, allocation through the caller's allocator, growable buffers,
 * little-endian loads, overflow-checked arithmetic, CRC32). Depends on
 * nothing but plank.h and libc.
 *
 * plank supports little-endian hosts only: the loads below, and the decoders
 * and kernels that memcpy file bytes straight into integers and floats, take
 * host order for the file's little-endian order. The guard below makes a
 * big-endian build fail instead of misreading every file.
 */
#ifndef PK_COMMON_H
#define PK_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plank.h"

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "plank reads Parquet's little-endian data with host-order loads: little-endian hosts only"
#endif
#elif defined(__BIG_ENDIAN__) || defined(__ARMEB__) || defined(__MIPSEB__)
#error "plank reads Parquet's little-endian data with host-order loads: little-endian hosts only"
#endif

#if defined(__GNUC__)
#define PK_LIKELY(x) __builtin_expect(!!(x), 1)
#define PK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PK_INLINE static inline __attribute__((always_inline))
#define PK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PK_LIKELY(x) (x)
#define PK_UNLIKELY(x) (x)
#define PK_INLINE static inline
#define PK_PRINTF(a, b)
#endif

/* ---- Errors ------------------------------------------------------------- */

/* Sets err (if not NULL): code and formatted message; location fields are
 * left as they are, so a caller that knows more can fill them. Returns code. */
plank_status pk_error_set(plank_error *err, plank_status code, const char *fmt, ...)
    PK_PRINTF(3, 4);
/* Prefixes context to an existing message ("row group 2, column 3: ..."). */
void pk_error_prefix(plank_error *err, const char *fmt, ...) PK_PRINTF(2, 3);
/* Fills the location fields that are still -1. */
void pk_error_locate(plank_error *err, int64_t byte_offset, int32_t row_group, int32_t column,
                     int64_t page);
/* The message of errno value errnum, thread-safe (strerror is not): written
 * into buf (size bytes, truncated) or a static string of the libc; never
 * NULL, never empty when size > 1 ("error N" for an unknown code). */
const char *pk_strerror(int errnum, char *buf, size_t size);
/* pk_strerror into a buffer that lives until the end of the enclosing block:
 * for an argument of the call that uses the message, e.g.
 * pk_error_set(err, PLANK_ERR_IO, "open %s: %s", path, PK_STRERROR(errno)). */
#define PK_STRERROR(errnum) pk_strerror((errnum), (char[128]){0}, 128)

/* Return `code` with a message when cond holds. */
#define PK_RETURN_IF(cond, err, code, ...)                        \
    do {                                                          \
        if (PK_UNLIKELY(cond)) return pk_error_set((err), (code), __VA_ARGS__); \
    } while (0)
/* Propagate a non-OK status. */
#define PK_FORWARD(expr)                          \
    do {                                          \
        plank_status pk_st_ = (expr);             \
        if (PK_UNLIKELY(pk_st_ != PLANK_OK)) return pk_st_; \
    } while (0)
#define PK_CORRUPT(err, ...) pk_error_set((err), PLANK_ERR_CORRUPT, __VA_ARGS__)

/* ---- Allocation --------------------------------------------------------- */

/* The default allocator (malloc/realloc/free). */
const plank_allocator *pk_default_allocator(void);
/* NULL or a copy of the default allocator: its blocks are plain anonymous
 * memory, which pk_populate_write may fault in ahead of use. */
bool pk_alloc_is_default(const plank_allocator *a);
/* Advises transparent huge pages for the 2 MiB-aligned part of [p, p + n)
 * (pk_hugepage.c; a no-op where the system has no such advice). The default
 * allocator calls it on blocks of PK_HUGE_BLOCK bytes or more. */
void pk_advise_huge(void *p, size_t n);
/* Faults in the whole pages of [p, p + n) at once (pk_hugepage.c; a no-op
 * where the system cannot). For fresh blocks about to be written whole. */
void pk_populate_write(void *p, size_t n);
#define PK_HUGE_BLOCK ((size_t)2 << 20)
/* pk_calloc populates blocks this large or larger (pk_populate_write) */
#define PK_POPULATE_MIN ((size_t)64 << 10)
void *pk_malloc(const plank_allocator *a, size_t n);
void *pk_calloc(const plank_allocator *a, size_t n);
void *pk_realloc(const plank_allocator *a, void *p, size_t old_n, size_t new_n);
void pk_free(const plank_allocator *a, void *p, size_t n);
/* Copies a string (n bytes, NUL added) with the allocator. */
char *pk_strndup(const plank_allocator *a, const char *s, size_t n);

/* Bytes per value of a fixed-width physical type in dense form (BOOLEAN: 1,
 * one byte per dense value), the type_length of FIXED_LEN_BYTE_ARRAY (-1
 * when not positive), 0 for BYTE_ARRAY, -1 for an unknown type. The one
 * copy of this table below the CLI (which sees only plank.h). */
PK_INLINE int32_t pk_physical_width(plank_physical_type type, int32_t type_length) {
    switch (type) {
    case PLANK_BOOLEAN: return 1;
    case PLANK_INT32: case PLANK_FLOAT: return 4;
    case PLANK_INT64: case PLANK_DOUBLE: return 8;
    case PLANK_INT96: return 12;
    case PLANK_BYTE_ARRAY: return 0;
    case PLANK_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? type_length : -1;
    default: return -1;
    }
}

/* ---- Shared block: bytes kept alive by a reference count ---------------- */

/* A block of bytes with several owners: a column reader's chunk buffer,
 * which exported Arrow arrays point into (zero copy). The creator holds the
 * first reference; each further owner takes one with pk_shared_retain and
 * drops it with pk_shared_release; the last release frees the block with
 * the allocator copied at creation. The count is atomic: arrays may be
 * released on any thread. */
typedef struct pk_shared pk_shared;
/* A block of `size` bytes (unspecified contents) with one reference; NULL
 * when out of memory. */
pk_shared *pk_shared_new(const plank_allocator *a, size_t size);
/* A block over bytes allocated elsewhere (a file mapping): drop(ctx, data,
 * size) frees them with the last release. */
pk_shared *pk_shared_wrap(const plank_allocator *a, void *data, size_t size,
                          void (*drop)(void *ctx, void *data, size_t size), void *ctx);
uint8_t *pk_shared_data(pk_shared *s);
void pk_shared_retain(pk_shared *s);
void pk_shared_release(pk_shared *s); /* NULL allowed */
/* Usable bytes of the block. */
size_t pk_shared_capacity(const pk_shared *s);
/* Whether the caller holds the only reference (then it may reuse the bytes:
 * nobody else can read them). */
bool pk_shared_unique(pk_shared *s);

/* ---- Calendar ------------------------------------------------------------ */

/* Days since 1970-01-01 of a proleptic Gregorian date (any year), and back. */
int64_t pk_days_from_civil(int64_t y, int m, int d);
void pk_civil_from_days(int64_t z, int64_t *y, int *m, int *d);

/* ---- Growable byte buffer ------------------------------------------------ */

/* Every buffer keeps PK_BUFFER_PADDING readable bytes past `size` so decoders
 * may over-read by up to that much without leaving the block. They are zero
 * right after pk_buffer_resize (which zeroes the PK_BUFFER_PADDING bytes after
 * the new size) and past the capacity (zeroed at each growth); after
 * pk_buffer_append, or writes into data, the bytes between size and capacity
 * hold whatever was there, so an over-read must not let them change a result. */
#define PK_BUFFER_PADDING 64

typedef struct pk_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity; /* not counting padding */
    const plank_allocator *alloc;
} pk_buffer;

void pk_buffer_init(pk_buffer *b, const plank_allocator *a);
void pk_buffer_reset(pk_buffer *b); /* frees memory */
/* Ensures capacity >= n (contents kept, size unchanged). */
plank_status pk_buffer_reserve(pk_buffer *b, size_t n, plank_error *err);
/* Sets size to n, growing as needed (new bytes unspecified). */
plank_status pk_buffer_resize(pk_buffer *b, size_t n, plank_error *err);
plank_status pk_buffer_append(pk_buffer *b, const void *src, size_t n, plank_error *err);

/* ---- Chain of buffers: bytes appended in order, never moved --------------- */

/* A sequence of segments (pk_buffers) that together hold size bytes in
 * order: what a column chunk's pages are written into. Appending never
 * moves the bytes already there (a single growing buffer copies them at
 * each doubling, and on first use faults every page twice: once in the old
 * block, once in the new), and the segments are kept by pk_chain_clear for
 * the next chunk. Segments grow from 64 KiB to 8 MiB; the large ones come
 * from the default allocator's huge pages (pk_advise_huge). */
typedef struct pk_chain {
    pk_buffer *seg;   /* segments [0, used) hold the bytes; [used, count) are kept empty */
    int32_t used, count;
    size_t done;      /* bytes in segments [0, used - 1) */
    size_t ready;     /* bytes of the tail segment whose pages are faulted in */
    const plank_allocator *alloc;
} pk_chain;

void pk_chain_init(pk_chain *c, const plank_allocator *a);
void pk_chain_release(pk_chain *c); /* frees memory */
void pk_chain_clear(pk_chain *c);   /* empties it, keeping the segments */
PK_INLINE size_t pk_chain_size(const pk_chain *c) {
    return c->used ? c->done + c->seg[c->used - 1].size : 0;
}
/* The segment to append to, with at least `room` bytes of capacity left:
 * callers append to it (pk_buffer_append, encoders) up to that much, and
 * the bytes land after everything already in the chain. Appending more
 * than `room` still works (the segment grows and is copied). */
plank_status pk_chain_tail(pk_chain *c, size_t room, pk_buffer **tail, plank_error *err);
/* Calls fn on each segment's bytes in order until it fails. */
plank_status pk_chain_each(const pk_chain *c,
                           plank_status (*fn)(void *ctx, const uint8_t *p, size_t n,
                                              plank_error *err),
                           void *ctx, plank_error *err);

/* ---- Worker pool (pk_pool.c) ------------------------------------------------ */

/* A pool of threads - 1 worker threads for parallel loops. Creating fewer
 * threads than asked (the system refuses) is not an error. */
typedef struct pk_pool pk_pool;
plank_status pk_pool_new(pk_pool **out, int32_t threads, const plank_allocator *a,
                         plank_error *err);
void pk_pool_free(pk_pool *p); /* NULL is fine */
/* Threads a loop runs on, the caller's included (1 for a NULL pool). */
int32_t pk_pool_threads(const pk_pool *p);
/* Calls fn(ctx, i) once for every i in [0, count), on the pool's workers and
 * the calling thread, and returns when every call has returned (its effects
 * are then visible to the caller). Indices are handed out in increasing
 * order, each to the first free thread. A NULL pool runs the loop on the
 * caller. One loop at a time per pool. */
void pk_pool_run(pk_pool *p, int64_t count, void (*fn)(void *ctx, int64_t i), void *ctx);
/* ---- Buffer pool (pk_bufpool.c) ------------------------------------------- */

/* A caching allocator over `base` for a stream's array buffers: blocks of
 * 64 KiB or more are kept when freed (up to `keep` bytes in at most `slots`
 * blocks) and handed out
 * again, so that batch after batch reuses memory that is already mapped.
 * Thread-safe; blocks may be freed on any thread and after the owner closed
 * the pool (which frees the cache; the pool goes with its last block). NULL
 * when out of memory. */
typedef struct pk_bufpool pk_bufpool;
pk_bufpool *pk_bufpool_new(const plank_allocator *base, size_t keep, int32_t slots);
/* Another owner (the workers of a parallel stream share one pool); each
 * owner closes it once. */
void pk_bufpool_retain(pk_bufpool *p);
void pk_bufpool_allocator(pk_bufpool *p, plank_allocator *out);
void pk_bufpool_close(pk_bufpool *p); /* NULL is fine */

/* ---- Task executor (pk_exec.c) ------------------------------------------- */

/* plank's own thread pool behind the plank_executor interface, for the
 * parallel reads: `threads` worker threads run submitted tasks in the order
 * they came; wait on a task that no worker has started runs it on the
 * waiting thread (so tasks that wait for tasks of their own never deadlock,
 * whatever the number of threads). Creating fewer threads than asked is not
 * an error; with none, every task runs in its wait. */
typedef struct pk_exec pk_exec;
plank_status pk_exec_new(pk_exec **out, int32_t threads, const plank_allocator *a,
                         plank_error *err);
/* Joins the threads. Every submitted task must have been waited for. */
void pk_exec_free(pk_exec *e); /* NULL is fine */
/* The plank_executor view of e (valid while e lives). */
void pk_exec_executor(pk_exec *e, plank_executor *out);

/* Calls fn(ctx, i) once for every i in [0, n): on up to ex->threads tasks
 * of ex (at most n - 1) and the calling thread; returns when every call has
 * returned. The tasks take indices from the front (0 up), the caller from
 * the back (n - 1 down), so that a loop run again and again over the same
 * items (a stream's leaves, batch after batch) gives each item to the same
 * side each time, its state staying in that core's caches. ex NULL (or
 * n < 2): on the caller. */
void pk_exec_for(const plank_executor *ex, int64_t n, void (*fn)(void *ctx, int64_t i),
                 void *ctx);

/* pk_exec_for in two halves, so that the caller works on something else
 * while the tasks run: start submits the tasks (the caller takes no index
 * yet); join, on the same run, takes the indices left on the calling
 * thread and waits for the tasks. The run must stay where it is in between,
 * and the executor's waits must allow a join from another thread than the
 * start if the caller may do that (plank's own pool does). */
typedef struct pk_for_run {
    void (*fn)(void *ctx, int64_t i);
    void *ctx;
    int64_t n;
    _Atomic uint64_t ends; /* the next front index (low 32 bits), the back end (high 32) */
    const plank_executor *ex;
    int64_t nt;
    void *h[64];
} pk_for_run;
void pk_exec_for_start(pk_for_run *r, const plank_executor *ex, int64_t n,
                       void (*fn)(void *ctx, int64_t i), void *ctx);
void pk_exec_for_join(pk_for_run *r);

/* Processors online (1..1024). */
int32_t pk_cpu_count(void); /* processors of the affinity mask (else online), 1..1024 */

/* ---- Arena: many small allocations freed at once (metadata) ------------- */

typedef struct pk_arena_block pk_arena_block;
typedef struct pk_arena {
    pk_arena_block *head;
    const plank_allocator *alloc;
    size_t total; /* bytes allocated so far, for limits */
} pk_arena;

void pk_arena_init(pk_arena *ar, const plank_allocator *a);
void pk_arena_reset(pk_arena *ar); /* frees everything */
/* 16-byte aligned, zeroed memory; NULL when out of memory. */
void *pk_arena_alloc(pk_arena *ar, size_t n);
char *pk_arena_strndup(pk_arena *ar, const char *s, size_t n);

/* ---- Checked arithmetic --------------------------------------------------- */

PK_INLINE bool pk_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *r) {
    return __builtin_add_overflow(a, b, r);
}
PK_INLINE bool pk_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *r) {
    return __builtin_mul_overflow(a, b, r);
}
PK_INLINE bool pk_add_overflow_i64(int64_t a, int64_t b, int64_t *r) {
    return __builtin_add_overflow(a, b, r);
}

/* ---- Little-endian loads (unaligned; host order, which the guard at the top
 * of this file makes little-endian) ---------------------------------------- */

PK_INLINE uint16_t pk_load_u16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
PK_INLINE uint32_t pk_load_u32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
PK_INLINE uint64_t pk_load_u64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
PK_INLINE void pk_store_u32(void *p, uint32_t v) { memcpy(p, &v, 4); }
PK_INLINE void pk_store_u64(void *p, uint64_t v) { memcpy(p, &v, 8); }
PK_INLINE float pk_load_f32(const void *p) { float v; memcpy(&v, p, 4); return v; }
PK_INLINE double pk_load_f64(const void *p) { double v; memcpy(&v, p, 8); return v; }

/* ---- Bitmaps (Arrow layout, LSB first) ------------------------------------ */

/* A monotonic clock in nanoseconds, for the costs that adaptive choices
 * measure (scan step order, leaf order of a parallel batch, writer tasks). */
int64_t pk_now_ns(void);

/* Set bits of a word, without relying on a POPCNT the build does not
 * target (the compiler's builtin becomes a library call then). */
PK_INLINE int pk_bits_popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}
PK_INLINE bool pk_bit_get(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
PK_INLINE void pk_bit_set(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }
/* Sets bits [at, at + n): single bits to a byte boundary, whole bytes, the rest. */
PK_INLINE void pk_bits_set_range(uint8_t *bits, int64_t at, int64_t n) {
    int64_t i = at, end = at + n;
    for (; i < end && (i & 7); i++) pk_bit_set(bits, i);
    if (end - i >= 8) {
        memset(bits + (i >> 3), 0xFF, (size_t)((end - i) >> 3));
        i += (end - i) & ~(int64_t)7;
    }
    for (; i < end; i++) pk_bit_set(bits, i);
}
PK_INLINE void pk_bit_clear(uint8_t *bits, int64_t i) {
    bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}
PK_INLINE void pk_bit_put(uint8_t *bits, int64_t i, bool v) {
    if (v) pk_bit_set(bits, i); else pk_bit_clear(bits, i);
}

/* ---- CRC32 (the zlib/IEEE polynomial used by Parquet page checksums) ------ */

/* The CRC of data[0..n) continuing crc (0 to start); pk_crc32(pk_crc32(0, a),
 * b) is the CRC of a followed by b. Uses VPCLMULQDQ (AVX-512) or PCLMULQDQ
 * where the CPU has them. */
uint32_t pk_crc32(uint32_t crc, const void *data, size_t n);
/* The same with the portable tables only (the reference for tests). */
uint32_t pk_crc32_portable(uint32_t crc, const void *data, size_t n);
/* pk_crc32 by the path of `level` (0 the tables, 1 PCLMULQDQ, 2 VPCLMULQDQ on
 * 512-bit registers), or the best below it the CPU has: each path's test. */
uint32_t pk_crc32_level(int level, uint32_t crc, const void *data, size_t n);

#endif /* PK_COMMON_H */
