/* tharness.h: a tiny test harness. CHECK failures are counted and printed
 * with file:line; a test ends with TEST_END() which exits 1 on any failure.
 * A test that cannot run exits 77 (ctest reports it as skipped), unless
 * PLANK_REQUIRE_CORPUS=1 makes a missing input a failure (TEST_SKIP). */
#ifndef THARNESS_H
#define THARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int th_failures;
extern int th_checks;

#define CHECK(cond)                                                              \
    do {                                                                         \
        th_checks++;                                                             \
        if (!(cond)) {                                                           \
            th_failures++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)
#define CHECK_MSG(cond, ...)                                                     \
    do {                                                                         \
        th_checks++;                                                             \
        if (!(cond)) {                                                           \
            th_failures++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)
#define CHECK_EQ_I64(a, b)                                                       \
    do {                                                                         \
        int64_t th_a_ = (int64_t)(a), th_b_ = (int64_t)(b);                      \
        CHECK_MSG(th_a_ == th_b_, "%" PRId64 " != %" PRId64, th_a_, th_b_);      \
    } while (0)

#define TEST_END()                                                               \
    do {                                                                         \
        fprintf(stderr, "%d checks, %d failures\n", th_checks, th_failures);     \
        return th_failures ? 1 : 0;                                              \
    } while (0)

/* A test that cannot run because an input it needs is missing (the corpus,
 * DuckDB's library, a temporary directory...): prints "SKIP: <what>" and
 * exits 77, or, when PLANK_REQUIRE_CORPUS=1 (CI), prints "FAIL: <what>" and
 * exits 1, so that a suite that ran nothing cannot pass. */
#define TEST_SKIP(...) th_skip_test(__VA_ARGS__)
/* A part of a test that cannot run for the same reasons while the rest ran:
 * prints "SKIP: <what>"; under PLANK_REQUIRE_CORPUS=1 it is a failure
 * (counted like a CHECK, so TEST_END exits 1). */
#define TEST_SKIP_PART(...) th_skip_part(__VA_ARGS__)

/* A counting allocator that can also fail the Nth allocation or growth
 * (fault injection). Every test that checks "no leak" and "free sizes match
 * allocation sizes" uses it. Its counts are kept under a lock, so a parallel
 * read may use it from several threads. */
#include <stdbool.h>
#include "plank.h"
typedef struct th_alloc {
    int64_t allocs, frees;       /* new blocks and releases */
    int64_t live_blocks, live_bytes;
    int64_t max_single;          /* largest single request */
    int64_t calls;               /* allocations and growths so far */
    int64_t fail_at;             /* 1-based call to fail; 0 = never */
    bool failed;                 /* the fail_at call happened */
} th_alloc;
/* Zeroes *a and returns an allocator drawing on it. */
plank_allocator th_alloc_init(th_alloc *a);

/* The parquet-testing checkout: $PLANK_TESTING_DIR, else the default next to
 * the repository. NULL if it does not exist. */
const char *th_testing_dir(void);
/* PLANK_REQUIRE_CORPUS=1: a missing input is a failure, not a skip. */
bool th_require_inputs(void);
#if defined(__GNUC__) || defined(__clang__)
#define TH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TH_PRINTF(f, a)
#endif
TH_PRINTF(1, 2) _Noreturn void th_skip_test(const char *fmt, ...);
TH_PRINTF(1, 2) void th_skip_part(const char *fmt, ...);
/* A growable memory buffer and a plank_sink write callback appending to it
 * (opaque: the th_membuf); closes counts sink close calls for tests that
 * set one. */
typedef struct th_membuf {
    uint8_t *data;
    size_t len, cap;
    int closes;
} th_membuf;
plank_status th_membuf_write(void *opaque, const void *buf, size_t len);

/* Reads a whole file; NULL on failure. */
unsigned char *th_read_file(const char *path, size_t *len);

#endif
