/*
 * pk_scan.h: the bound predicate and the pieces of the scan (module scan).
 *
 * A plank_expr is bound to one file (pk_bind.c): each column it names
 * becomes a filter column (pk_fcol) with the domain its values are
 * compared in, and each comparison of a column with literals a term
 * (pk_term) whose bounds are already in that domain: an integer range for
 * integer-like columns (decimals at their scale, dates, timestamps in their
 * unit, unsigned columns through a sign flip), a float range with its open
 * ends and NaN flag, a 128-bit range for wide decimals, a byte range for
 * strings and binaries. Conversions that are not exact resolve at bind
 * time into the equivalent integer bounds (x < 2.5 on an integer column is
 * x <= 2; x = 2.5 is an empty range), so evaluation never converts a value.
 *
 * The bound tree (pk_bnode) is evaluated three ways, all with SQL's
 * three-valued logic:
 *  - on statistics (pk_prune.c): per row group or page, whether some row
 *    can make the predicate TRUE (can_true) and whether some can make it
 *    FALSE; a range that cannot be true is pruned;
 *  - on batches of decoded values (pk_eval.c): a TRUE and a FALSE bitmap
 *    per node (NULL is neither);
 *  - on dictionary entries (pk_eval.c): the same per entry.
 *
 * Depends on: common, read, arrow, scan (pk_expr.h).
 */
#ifndef PK_SCAN_H
#define PK_SCAN_H

#include "../arrow/pk_arrow.h"
#include "pk_expr.h"

typedef __int128 pk_i128;

/* The domain a filter column's values are compared in. */
typedef enum pk_vdom {
    PK_V_BOOL = 0, /* bitmap values, compared as 0/1 (i32 bounds) */
    PK_V_I32,      /* INT32 physical: (int32)(v ^ flip) in [lo, hi] */
    PK_V_I64,      /* INT64 physical (or INT96 as microseconds) */
    PK_V_F32,
    PK_V_F64,
    PK_V_I128,     /* big-endian two's-complement decimals (FLBA, BYTE_ARRAY) */
    PK_V_BYTES     /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY: unsigned byte order */
} pk_vdom;

/* How a column's values compare with another column's (pk_eval's column
 * comparisons): the class both sides are brought to. */
typedef enum pk_vclass {
    PK_C_EXACT = 0, /* integers and decimals: an int128 at a scale */
    PK_C_FLOAT,     /* doubles */
    PK_C_TIME,      /* dates and timestamps: int128 nanoseconds */
    PK_C_BYTES,
    PK_C_BOOL,
    PK_C_NONE       /* not comparable with anything (TIME, FLOAT16, ...) */
} pk_vclass;

typedef struct pk_fcol {
    int32_t column;                /* leaf column */
    const plank_schema_node *node;
    pk_vdom dom;
    pk_vclass cls;
    int32_t scale;                 /* PK_C_EXACT: decimal scale */
    int64_t ns_per_unit;           /* PK_C_TIME: nanoseconds per stored unit */
    bool is_unsigned;              /* unsigned integers */
    bool int96;                    /* INT96 timestamps, compared as microseconds */
    bool stats_ok;                 /* statistics of this column may be used */
    bool deprecated_ok;            /* the deprecated signed min/max are valid for it */
} pk_fcol;

typedef enum pk_tkind {
    PK_T_RANGE = 0, /* value in [lo, hi] (with open ends for floats and bytes) */
    PK_T_IN,        /* value equal to one of the list */
    PK_T_ISNULL,
    PK_T_PREFIX     /* bytes starting with prefix */
} pk_tkind;

/* One value in a column's domain. */
typedef struct pk_dval {
    int64_t i;      /* BOOL, I32 (biased by flip), I64 (biased) */
    double d;       /* F32 (as the float's value), F64 */
    pk_i128 w;      /* I128 */
    const uint8_t *p; /* BYTES */
    size_t n;
} pk_dval;

typedef struct pk_term {
    pk_tkind kind;
    bool negate;        /* RANGE: the complement (x != c) */
    bool empty;         /* RANGE: no value is inside (then negate: every value) */
    pk_dval lo, hi;
    bool lo_open, hi_open; /* F32, F64, BYTES */
    bool lo_inf, hi_inf;   /* no bound on that side */
    bool nan;           /* F32, F64: NaN is inside */
    int32_t nlist;      /* IN */
    pk_dval *list;      /* IN (sorted, distinct), NaN by `nan` */
    bool list_null;     /* IN: the list holds NULL (never FALSE then) */
    bool is_not;        /* ISNULL: IS NOT NULL */
    pk_dval prefix;     /* PREFIX */
} pk_term;

typedef enum pk_bkind {
    PK_B_TERM = 0,
    PK_B_COLCMP,
    PK_B_AND,
    PK_B_OR,
    PK_B_NOT,
    PK_B_CONST
} pk_bkind;

typedef struct pk_bnode {
    pk_bkind kind;
    int32_t col, col2;    /* filter column slots (TERM: col; COLCMP: col op col2) */
    pk_term term;
    plank_compare_op op;
    int8_t cval;          /* CONST: 1 TRUE, 0 FALSE, -1 NULL */
    int32_t id;           /* 0 .. pk_bound.nnodes - 1 */
    int32_t n;
    struct pk_bnode **kids;
} pk_bnode;

/* The bound predicate: its tree and filter columns, in one arena. */
typedef struct pk_bound {
    pk_arena arena;
    pk_bnode *root;       /* NULL: no filter */
    int32_t nnodes;
    int32_t ncols;
    pk_fcol *cols;
} pk_bound;

plank_status pk_bind(plank_reader *r, const plank_expr *e, pk_bound *b, plank_error *err);
/* The operator with its sides swapped (a < b is b > a). */
plank_compare_op pk_flip_op(plank_compare_op op);
/* A decimal's value as a double the way DuckDB converts it. */
double pk_decimal_to_double(pk_i128 v, int32_t scale);
void pk_bound_free(pk_bound *b);
/* Appends printf-style text to buf[0..size) at *len (NUL-terminated while it
 * fits); *len grows by the whole text's length, as snprintf counts. */
void pk_scan_append(char *buf, size_t size, size_t *len, const char *fmt, ...) PK_PRINTF(4, 5);
/* Appends the bound tree as text (with column types) to buf. */
void pk_bound_describe(const pk_bound *b, const pk_bnode *n, char *buf, size_t size,
                       size_t *len);

/* ---- Pruning (pk_prune.c) ---- */

/* What a range of rows can make a node: bit 0 TRUE, bit 1 FALSE. 3 knows
 * nothing; 0 means every row is NULL. */
enum { PK_CAN_T = 1, PK_CAN_F = 2, PK_CAN_ANY = 3 };

/* The bounds one column holds in a range of rows (a row group or a page),
 * as far as statistics tell. */
typedef struct pk_colstat {
    bool known;           /* false: nothing is known */
    bool has_minmax;      /* min and max are valid bounds of the non-null values */
    pk_dval min, max;
    bool max_prefix;      /* BYTES: values may also extend max (truncated bound) */
    bool nulls_known;     /* null_count is trustworthy */
    int64_t null_count;
    int64_t num_values;   /* rows, -1 unknown */
    bool nan_known;       /* F32, F64: whether NaN may be present is known */
    bool may_nan;
} pk_colstat;

/* Decodes PLAIN-encoded bound bytes (statistics, page index) into v. */
bool pk_decode_bound(const pk_fcol *c, const uint8_t *p, uint32_t len, pk_dval *v);
/* What the node can be over a range whose columns hold st[col]; absent
 * (by node id, may be NULL): terms a bloom filter proved cannot be TRUE. */
int pk_prune_eval(const pk_bound *b, const pk_bnode *n, const pk_colstat *st,
                  const uint8_t *absent);
/* Fills st from a chunk's statistics (st->known false when unusable). */
void pk_colstat_from_chunk(const pk_fcol *c, const plank_column_chunk_info *ci,
                           int64_t rows, pk_colstat *st);
/* One filter column's page index over a row group: npages pages, page i
 * holding rows [first[i], first[i + 1]) and bounds st[i]. npages 0: none
 * (the chunk's statistics stand for every row). */
typedef struct pk_pageinfo {
    int32_t npages;
    int64_t *first;
    pk_colstat *st;
    int32_t cap;        /* pages allocated in first / st */
    uint8_t *bytes;     /* copies of byte-array bounds */
    size_t bytes_len;
} pk_pageinfo;

/* False when the page index cannot exclude any row for node n (every page
 * of every term below may hold a TRUE row, and no NOT inverts one): then
 * pk_prune_rows would set every bit, and need not run. */
bool pk_prune_rows_may_cut(const pk_bound *b, const pk_bnode *n, const pk_pageinfo *pi);
/* Sets bit r of t (rows bits, ceil(rows/8) bytes) for every row r of the
 * row group that the page index lets the predicate be TRUE at. */
plank_status pk_prune_rows(const pk_bound *b, const pk_pageinfo *pi, const pk_colstat *chunk,
                           int64_t rows, const plank_allocator *a, uint8_t *t,
                           plank_error *err);
/* What one TERM node can be over bounds st. */
int pk_term_can(const pk_bound *b, const pk_bnode *n, const pk_colstat *st);
/* Byte strings in unsigned byte order, a prefix first. */
static inline int pk_bytes_order(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

/* Doubles in DuckDB's order: NaN equal to itself and above every other
 * value, -0.0 equal to 0.0. */
static inline int pk_double_order(double a, double b) {
    bool an = a != a, bn = b != b;
    if (an || bn) return an == bn ? 0 : an ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* Compares two domain values (BYTES by bytes, floats with NaN last). */
int pk_dval_cmp(pk_vdom dom, const pk_dval *a, const pk_dval *b);

/* ---- Evaluation on batches (pk_eval.c) ---- */

/* The largest batch pk_eval takes. */
#define PK_EVAL_BATCH 4096

/* A filter column's values at the n rows of a batch. In dictionary mode
 * (codes set) values are int32 codes (-1 null, < dict_n an entry of the
 * chunk's dictionary, dict_n + j the j-th fallback value, whose bytes come
 * from offsets/data), and dict_t/dict_f are the TRUE/FALSE bitmaps of the
 * step's node over the dictionary entries. */
typedef struct pk_colbatch {
    const plank_batch *b;
    bool codes;
} pk_colbatch;

typedef struct pk_evalctx {
    const pk_bound *b;
    const pk_kernels *k;
    pk_colbatch *cols;         /* per filter column slot */
    int64_t n;
    /* NULL, or bit i set for the rows whose result matters: the others may
     * get any result (the caller ANDs the result with these bits), so the
     * costly terms (byte strings) pass over them. Padded: 8 bytes can be
     * read from any byte below (n + 7) / 8. */
    const uint8_t *live;
    uint8_t *bits;             /* 2 * nnodes bitmaps of PK_EVAL_BATCH bits */
    pk_buffer tmp;             /* converted values (INT96) */
} pk_evalctx;

#define PK_EVAL_STRIDE (PK_EVAL_BATCH / 8)

plank_status pk_evalctx_init(pk_evalctx *x, const pk_bound *b, const pk_kernels *k,
                             const plank_allocator *a, plank_error *err);
void pk_evalctx_free(pk_evalctx *x, const plank_allocator *a);
/* Evaluates node over the x->n rows of x->cols (n <= PK_EVAL_BATCH): *t
 * and *f point at its TRUE and FALSE bitmaps (inside x->bits). */
plank_status pk_eval(pk_evalctx *x, const pk_bnode *node, const uint8_t **t,
                     const uint8_t **f, plank_error *err);

/* Evaluates node (whose terms all read column slot col) on each of n values
 * of that column given as a dictionary (BYTE_ARRAY: offsets + data; fixed
 * width: offsets NULL, the values one after another at data), into
 * TRUE / FALSE bitmaps of n bits (ceil(n/8) bytes each, caller's).
 * *null_result (may be NULL): what the node is for a NULL value (1, 0, -1).
 * Uses x's bitmaps; x->n and the column's batch are restored. */
plank_status pk_eval_entries(pk_evalctx *x, const pk_bnode *node, int32_t col,
                             const int64_t *offsets, const uint8_t *data, int64_t n,
                             uint8_t *t, uint8_t *f, int8_t *null_result, plank_error *err);

#endif /* PK_SCAN_H */
