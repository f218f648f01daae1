/*
 * pk_tpch.h: internals of the TPC-H generator module (src/tpch/). The module
 * sits above the writer and uses the public API only (plank.h): it builds
 * rows that are byte-identical to the reference dbgen 2.17.3 and hands them to
 * plank_writer_write_rows, or formats them as dbgen's .tbl text.
 *
 * How rows come out identical to dbgen, and in any order:
 *  - dbgen draws every column from its own Park-Miller stream (x' = 16807 x
 *    mod 2^31-1) and pads each row to a fixed number of draws per stream
 *    (row_stop), so the state of a stream at the start of row r is its seed
 *    advanced r * boundary times: 16807^(r*boundary) * seed mod 2^31-1, one
 *    modular power. A chunk of rows is generated from its first row alone.
 *  - Uniform integers are computed as dbgen does, in double precision
 *    (lo + (long)((double)x / 2147483647.0 * (hi - lo + 1))), so they round
 *    identically.
 *  - Comments are slices of a 300 MiB text pool that dbgen builds once from
 *    the sentence grammar of dists.dss with stream 5; the generator builds the
 *    same pool once per plank_tpch handle and only reads it afterwards, so
 *    threads share it.
 */
#ifndef PK_TPCH_H
#define PK_TPCH_H

#include <plank.h>

#include "pk_tpch_dists.h"

#define PK_TPCH_POOL_SIZE (300u * 1024u * 1024u)
#define PK_TPCH_POOL_SLACK 1024u /* room for one sentence past the end */
/* room for the margins of the regions the pool is built in on several
 * threads (build_pool) */
#define PK_TPCH_POOL_EXTRA (PK_TPCH_POOL_SIZE / 32u)
/* Segments of a pool built on several threads, at most. */
#define PK_TPCH_MAX_SEGS 16
#define PK_TPCH_POOL_ALLOC (PK_TPCH_POOL_SIZE + PK_TPCH_POOL_EXTRA + PK_TPCH_POOL_SLACK)
#define PK_TPCH_NUM_DATES 2557   /* 1992-01-01 .. 1998-12-31 */
#define PK_TPCH_EPOCH_DAY 8035   /* 1992-01-01 in days since 1970-01-01 */
#define PK_TPCH_MAX_COLS 16

/* Indexes into pk_tpch_dist_defs (the order gen_tpch_dists writes). */
enum pk_tpch_dist_id {
    PK_D_P_CNTR, PK_D_COLORS, PK_D_P_TYPES, PK_D_NATIONS, PK_D_REGIONS, PK_D_O_OPRIO,
    PK_D_INSTRUCT, PK_D_SMODE, PK_D_RFLAG, PK_D_MSEGMNT, PK_D_NOUNS, PK_D_VERBS,
    PK_D_ADJECTIVES, PK_D_ADVERBS, PK_D_AUXILLARIES, PK_D_TERMINATORS, PK_D_ARTICLES,
    PK_D_PREPOSITIONS, PK_D_GRAMMAR, PK_D_NP, PK_D_VP, PK_D_COUNT
};

typedef struct pk_tpch_dist {
    const pk_tpch_member *m;
    int count;
    int64_t max;         /* total weight: draws are uniform in 1..max */
    const uint8_t *lut;  /* draw -> member index, max + 1 entries (NULL: never drawn) */
    const char (*pad)[16]; /* the members zero-padded to 16 bytes (text words) */
} pk_tpch_dist;

/* A parsed noun or verb phrase form: its parts of speech (distribution ids)
 * and the punctuation after each (0: none). */
typedef struct pk_tpch_form {
    uint8_t n;
    uint8_t dist[4];
    char punct[4];
} pk_tpch_form;

#define PK_TPCH_MAX_MEMBERS 1024

/* How a column is stored and printed. */
typedef enum pk_tpch_kind {
    PK_K_I64,   /* INT64; printed as an integer */
    PK_K_I32,   /* INT32 */
    PK_K_MONEY, /* DECIMAL(15,2) in INT64 cents; printed as dbgen's %d.%02d */
    PK_K_QTY,   /* DECIMAL(15,2) in INT64 hundredths of a whole count; printed as the count */
    PK_K_DATE,  /* DATE (days since 1970-01-01); printed as YYYY-MM-DD */
    PK_K_STR    /* STRING */
} pk_tpch_kind;

typedef struct pk_tpch_coldef {
    const char *name;
    pk_tpch_kind kind;
    int32_t max_len;  /* PK_K_STR: longest value in bytes */
    bool free_text;   /* PK_K_STR: comments, names and addresses (DELTA_LENGTH_BYTE_ARRAY
                         in the delta preset; the others share prefixes: DELTA_BYTE_ARRAY) */
} pk_tpch_coldef;

typedef struct pk_tpch_tabledef {
    const char *name;
    int32_t num_cols;
    int32_t rows_per_unit; /* most rows one unit makes (7 lines per order, 4 per part) */
    const pk_tpch_coldef *cols;
} pk_tpch_tabledef;

extern const pk_tpch_tabledef pk_tpch_tables[PLANK_TPCH_NUM_TABLES];

struct plank_tpch {
    plank_allocator alloc;
    /* the caller gave `alloc`; when not, writers get their own default
     * allocator (which maps large blocks in huge pages) */
    bool caller_alloc;
    double sf;
    int64_t scale;   /* dbgen's integer scale: 1 below SF 1 */
    int64_t nparts, nsupp, ncust, norders, nclerks;
    char *pool;      /* PK_TPCH_POOL_ALLOC bytes, the text in the first PK_TPCH_POOL_SIZE */
    /* The pool built on several threads is left where its segments wrote
     * it: the text at offset off is at pool + off + pool_shift[k], k the
     * number of pool_from[1 .. pool_segs - 1] at or below off (one segment,
     * shift 0: the pool in one piece). A text that starts in segment k and
     * runs past the next one's start is read whole from segment k, whose
     * parse ran on past it (PK_POOL_OVERLAP bytes at least). */
    int pool_segs;
    int64_t pool_from[PK_TPCH_MAX_SEGS], pool_shift[PK_TPCH_MAX_SEGS];
    pk_tpch_dist dist[PK_D_COUNT];
    uint8_t *luts;
    size_t luts_size;
    char dates[PK_TPCH_NUM_DATES][10];
    char pad[PK_TPCH_MAX_MEMBERS][16];
    pk_tpch_form forms[2][8]; /* [0] noun phrases, [1] verb phrases */
    plank_schema_field schema[PLANK_TPCH_NUM_TABLES][PK_TPCH_MAX_COLS + 1];
};

typedef struct pk_tpch_col {
    void *values;      /* int64_t or int32_t per row (PK_K_STR: unused) */
    int64_t *offsets;  /* PK_K_STR: rows + 1 */
    uint8_t *data;
    size_t data_cap;
} pk_tpch_col;

struct plank_tpch_batch {
    const plank_tpch *g;
    plank_tpch_table table;
    int64_t cap_units, cap_rows, rows;
    pk_tpch_col col[PK_TPCH_MAX_COLS];
    plank_batch out[PK_TPCH_MAX_COLS];
    char *tbl;
    size_t tbl_cap, tbl_len;
    int64_t *toff;   /* the comment of each row: pool offset and length (text_finish) */
    int32_t *tlen;
    size_t row_text_max; /* bound on one row's .tbl text */
};

/* Sets err (may be NULL) and returns code. */
plank_status pk_tpch_fail(plank_error *err, plank_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Units [first, first + count) of orders and of lineitem at once: the two
 * tables come from the same draws, made once here. */
plank_status pk_tpch_generate_orders_lines(plank_tpch_batch *orders, plank_tpch_batch *lines,
                                           int64_t first, int64_t count, plank_error *err);

/* Builds g's text pool again on `threads` threads recording `rec` sentence
 * starts per segment end (the generator uses 4096): with few, segments
 * rarely meet and the serial fallback runs; for the tests. */
bool pk_tpch_rebuild_pool(plank_tpch *g, int threads, int rec);
/* Where the pool's text at offset off (below PK_TPCH_POOL_SIZE) is. */
static inline const char *pk_tpch_pool_at(const plank_tpch *g, int64_t off) {
    int k = 0;
    for (int i = 1; i < g->pool_segs; i++) k += off >= g->pool_from[i];
    return g->pool + off + g->pool_shift[k];
}

void *pk_tpch_alloc(const plank_allocator *a, size_t n);
void pk_tpch_free(const plank_allocator *a, void *p, size_t n);

#endif
