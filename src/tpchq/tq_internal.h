/*
 * tq_internal.h: what the three queries share: errors, answer text, the
 * columns of an Arrow batch as the queries read them, small string sets,
 * and the row-group-parallel runner.
 */
#ifndef PLANK_TQ_INTERNAL_H
#define PLANK_TQ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tq_tpch.h"

typedef __int128 tq_i128;

#define TQ_TRY(x)                                                                         \
    do {                                                                                  \
        plank_status tq_s_ = (x);                                                         \
        if (tq_s_ != PLANK_OK) return tq_s_;                                              \
    } while (0)

/* Sets err (code and formatted message) and returns the code. */
plank_status tq_fail(plank_error *err, plank_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- Answer text ----------------------------------------------------------------- */

typedef struct tq_text {
    char *p;
    size_t len, cap;
    bool oom;
} tq_text;

void tq_text_printf(tq_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* v / 10^scale with two digits, rounded half away from zero. */
void tq_text_decimal(tq_text *t, tq_i128 v, int32_t scale);
/* (v / 10^scale) / den with two digits, rounded half away from zero. */
void tq_text_average(tq_text *t, tq_i128 v, int32_t scale, int64_t den);
/* Hands the text to out (or fails with OUT_OF_MEMORY). */
plank_status tq_text_finish(tq_text *t, tq_answer *out, plank_error *err);

/* ---- Files --------------------------------------------------------------------------- */

/* Opens DIR/NAME.parquet with only the named columns selected (NULL/0: all). */
plank_status tq_open(const char *dir, const char *name, const tq_options *o,
                     const char *const *columns, int32_t ncols, plank_reader **out,
                     plank_error *err);

/* ---- Batch columns ------------------------------------------------------------------- */

typedef enum tq_kind {
    TQ_DECIMAL, /* decimal128/64/32 "d:P,S[,bits]" with P <= 18, or int32/int64 (scale 0) */
    TQ_DATE,    /* "tdD" */
    TQ_INT,     /* int64 "l" or int32 "i" */
    TQ_STRING   /* "u"/"z", or a dictionary of them */
} tq_kind;

/* A field of the stream's schema, checked against what the query needs. */
typedef struct tq_field {
    tq_kind kind;
    int32_t scale;      /* TQ_DECIMAL */
    int32_t width;      /* bytes per value of the storage (16, 8, 4) */
    bool dictionary;    /* TQ_STRING as dictionary indices (int32) */
} tq_field;

/* Finds child `name` of the stream's struct schema and checks its type;
 * *index is its position. */
plank_status tq_field_resolve(const struct ArrowSchema *schema, const char *name, tq_kind kind,
                              tq_field *f, int32_t *index, plank_error *err);

/* Row i's validity (true when the array has no nulls). */
static inline bool tq_valid(const struct ArrowArray *a, int64_t i) {
    if (a->null_count == 0 || !a->buffers[0]) return true;
    int64_t k = a->offset + i;
    return (((const uint8_t *)a->buffers[0])[k >> 3] >> (k & 7)) & 1;
}

/* The decimal values of rows [0, n) of child a as int64 at the field's scale. */
void tq_decimals(const tq_field *f, const struct ArrowArray *a, int64_t n, int64_t *out);
/* The same without a copy when the array holds int64 values (decimal64,
 * int64): a pointer into it; else converted into scratch (n values). */
const int64_t *tq_decimals_view(const tq_field *f, const struct ArrowArray *a, int64_t n,
                                int64_t *scratch);

/* Date values (days) of rows [0, n). */
static inline const int32_t *tq_dates(const struct ArrowArray *a) {
    return (const int32_t *)a->buffers[1] + a->offset;
}

/* A set of at most TQ_STRSET_MAX distinct short strings (group keys), each
 * with a small id in order of first appearance. */
#define TQ_STRSET_MAX 256
typedef struct tq_strset {
    int32_t n;
    int16_t byte1[256];          /* id of each one-byte string, -1 unknown */
    uint32_t len[TQ_STRSET_MAX];
    uint32_t off[TQ_STRSET_MAX]; /* into bytes */
    char *bytes;
    size_t nbytes, cap;
} tq_strset;

void tq_strset_init(tq_strset *s);
void tq_strset_free(tq_strset *s);
/* The id of the string (added when new); -1 when the set is full or out of
 * memory. */
int32_t tq_strset_id(tq_strset *s, const uint8_t *p, uint32_t len);
static inline const char *tq_strset_str(const tq_strset *s, int32_t id, uint32_t *len) {
    *len = s->len[id];
    return s->bytes + s->off[id];
}

/* Per row of child a (rows [0, n)), the id of its string in s, or -1 for
 * NULL. Dictionary arrays resolve each dictionary entry once. Fails when
 * the set overflows (naming the column). */
plank_status tq_string_ids(const tq_field *f, const struct ArrowArray *a, int64_t n,
                           tq_strset *s, int16_t *ids, const char *column, plank_error *err);

/* ---- Scans and the parallel runner ------------------------------------------------------- */

/* Called for each batch of a scan: the struct array and its schema. */
typedef plank_status (*tq_batch_fn)(void *state, const struct ArrowSchema *schema,
                                    const struct ArrowArray *batch, plank_error *err);

/* Scans row groups [first, first + count) of r with one scan (so that its
 * filter steps adapt their order across the row groups): filter pushed
 * down, columns projected, batches (string columns as dictionary arrays)
 * handed to fn in file order. */
plank_status tq_scan_groups(plank_reader *r, const plank_expr *filter,
                            const char *const *columns, int32_t ncols, int32_t first,
                            int32_t count, tq_batch_fn fn, void *state, plank_error *err);

/* The whole file on `threads` threads: its row groups split into
 * tq_tasks(threads, row groups) contiguous blocks, block t scanned by
 * tq_scan_groups with state (char *)states + t * state_size (so `states`
 * holds at least `threads` of them). */
plank_status tq_scan_blocks(plank_reader *r, const plank_expr *filter,
                            const char *const *columns, int32_t ncols, int32_t threads,
                            tq_batch_fn fn, void *states, size_t state_size, plank_error *err);

/* The tasks a file's row groups are split into for `threads` threads, and
 * task t's contiguous block of them (the blocks in file order). */
int32_t tq_tasks(int32_t threads, int32_t row_groups);
void tq_block(int32_t row_groups, int32_t tasks, int32_t t, int32_t *first, int32_t *count);
/* Streams an Arrow stream to its end, batches to fn. Releases the stream. */
plank_status tq_drain(struct ArrowArrayStream *st, tq_batch_fn fn, void *state,
                      plank_error *err);

/* Runs fn(ctx, worker, task) for task 0..ntasks-1 on `threads` threads (the
 * caller's included); tasks are taken in order by whichever worker is free.
 * The first failure stops the remaining tasks and is returned. */
typedef plank_status (*tq_task_fn)(void *ctx, int32_t worker, int32_t task, plank_error *err);
plank_status tq_parallel(int32_t threads, int32_t ntasks, tq_task_fn fn, void *ctx,
                         plank_error *err);

/* The three queries. */
plank_status tq_q1(const char *dir, const tq_options *o, tq_answer *out, plank_error *err);
plank_status tq_q6(const char *dir, const tq_options *o, tq_answer *out, plank_error *err);
plank_status tq_q12(const char *dir, const tq_options *o, tq_answer *out, plank_error *err);

#endif
