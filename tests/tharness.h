/* tharness.h: a tiny test harness. CHECK failures are counted and printed
 * with file:line; a test ends with TEST_END() which exits 1 on any failure.
 * A test that cannot run exits 77 (ctest reports it as skipped). */
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

#define TEST_SKIP(...)                                                           \
    do {                                                                         \
        fprintf(stderr, "SKIP: ");                                               \
        fprintf(stderr, __VA_ARGS__);                                            \
        fputc('\n', stderr);                                                     \
        exit(77);                                                                \
    } while (0)

/* A counting allocator that can also fail the Nth allocation or growth
 * (fault injection). Every test that checks "no leak" and "free sizes match
 * allocation sizes" uses it. */
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
/* Reads a whole file; NULL on failure. */
unsigned char *th_read_file(const char *path, size_t *len);

#endif
