/* test_scan_diff.c: the pushdown scan (plank_scan_*) against DuckDB, seeded.
 *
 * DuckDB's C API is loaded with dlopen (tests/duckdb_capi.h); without it the
 * test is skipped (exit 77) and says why. The seed is PLANK_SCAN_SEED
 * (default below); every failure prints it with the file and the predicate,
 * and PLANK_SCAN_KEEP=1 keeps the temporary directory, so a failure can be
 * replayed. PLANK_SCAN_FILES overrides the number of generated files.
 *
 * 1. Files written with plank's writer into a temporary directory: a `rid`
 *    INT64 REQUIRED column (the row number in file order) and a random
 *    schema drawn from INT32, INT64, INTEGER(8/16/32/64, signed and
 *    unsigned), FLOAT and DOUBLE (NaN, -0.0, +-inf among the values),
 *    BOOLEAN, STRING (empty strings, long shared prefixes, non-ASCII UTF-8),
 *    BYTE_ARRAY binary, DATE, TIMESTAMP (MILLIS/MICROS/NANOS, UTC-adjusted
 *    or not), DECIMAL on INT32/INT64/FIXED_LEN_BYTE_ARRAY(16),
 *    FIXED_LEN_BYTE_ARRAY(4), a nullable struct of two nullable leaves and a
 *    list<int32> (projected, never filtered). Values sorted, reverse-sorted,
 *    clustered or random, of low or high cardinality, with 0, ~10, ~90 or
 *    100% nulls. Writer options drawn per file: dictionary on/off (with a
 *    small dictionary_page_size so dictionaries fall back mid-chunk), data
 *    page encodings where legal, page version 1/2, 7..300 rows per page,
 *    several row groups, page index on/off, statistics on/off,
 *    max_statistics_size 8 (truncated string bounds), bloom filters on some
 *    columns, codec none/snappy/zstd. Two limits of DuckDB 1.5.6 shape the
 *    files: it decodes BYTE_STREAM_SPLIT only for FLOAT and DOUBLE, so for a
 *    file with BYTE_STREAM_SPLIT integers or FLBA DuckDB reads a twin written
 *    with those columns in the default encoding (same rows); and it reads
 *    UTC-adjusted NANOS timestamps as microseconds, so those values are
 *    whole microseconds (non-UTC NANOS keep their nanoseconds).
 * 2. Per file, random predicates as SQL text generated here (not by
 *    plank_expr_format): every comparison operator, IN / NOT IN lists
 *    (1-5 literals, and 17-60 now and then),
 *    [NOT] BETWEEN, IS [NOT] NULL, [NOT] LIKE 'prefix%', AND/OR/NOT nested to
 *    depth 3, column-to-column comparisons, literals taken from the column's
 *    values, just beside them, at and beyond its min and max and the type's
 *    range, and NULL; in the column type's own literal form (and the cross
 *    forms plank.h documents: decimals against integers, strings against
 *    dates and timestamps). A few predicates per file are errors plank.h
 *    documents (a string against an integer column, ...):
 *    plank_scan_open must fail with PLANK_ERR_INVALID_ARGUMENT.
 * 3. Per (file, predicate): the rids of plank_scan_open(columns = {"rid"})
 *    must equal, in order, DuckDB's
 *      SELECT rid FROM read_parquet(f) WHERE <text> ORDER BY rid
 *    (session TimeZone UTC). For a fraction of the cases also: the
 *    plank_scan_count, and the rids with pushdown off and with each pruning
 *    level (statistics, bloom filters, page index, dictionaries) off; for a
 *    smaller fraction the whole rows (columns = NULL), plank's stream
 *    registered with duckdb_arrow_scan and compared with EXCEPT ALL both
 *    ways. When DuckDB's answer over read_parquet differs from plank's, the
 *    query is run again over the file's rows materialised in DuckDB (no
 *    Parquet statistics involved) to say which side is wrong. The sums of
 *    the scan statistics are printed, and the run asserts that statistics,
 *    page index and bloom pruning and dictionary evaluation all happened.
 * 4. Lying metadata: written files whose footer (chunk statistics) and page
 *    index are rewritten here (min > max, bounds that exclude values
 *    present, null counts above the values, null pages that hold values)
 *    must still give every matching row. The reference is DuckDB over the
 *    same file with honest metadata (the data pages are the same bytes);
 *    the report says per case whether DuckDB over the lying file agreed.
 * 5. The parquet-testing corpus ($PLANK_TESTING_DIR): files with page
 *    indexes and bloom filters, predicates that prune, compared with DuckDB
 *    (rows ordered by file_row_number), with the pruning asserted in the
 *    scan statistics.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "duckdb_capi.h"
#include "plank.h"
#include "tharness.h"
#include "thrift/pk_thrift.h"

#define DEFAULT_SEED 20261201u

/* ---- Random numbers (splitmix64) --------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t rbelow(rng *r, uint64_t n) { return n ? rnext(r) % n : 0; }
static int64_t rrange(rng *r, int64_t lo, int64_t hi) { /* inclusive */
    return lo + (int64_t)rbelow(r, (uint64_t)(hi - lo) + 1);
}
static bool rchance(rng *r, int percent) { return (int)rbelow(r, 100) < percent; }

static void *xalloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p) abort();
    return p;
}
static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) abort();
    return p;
}

/* A growable list of int64 (rids). */
typedef struct i64vec {
    int64_t *v;
    size_t n, cap;
} i64vec;

static void vpush(i64vec *a, int64_t x) {
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 256;
        a->v = xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = x;
}

/* ---- The schema model ------------------------------------------------------------ */

typedef enum kind {
    K_I32, K_I64, K_I8, K_I16, K_I32L, K_I64L, K_U8, K_U16, K_U32, K_U64,
    K_FLOAT, K_DOUBLE, K_BOOL, K_STRING, K_BINARY, K_DATE, K_TS_MS, K_TS_US, K_TS_NS,
    K_DEC32, K_DEC64, K_DEC128, K_FLBA4, K_NKINDS
} kind;

static const char *KIND_NAMES[K_NKINDS] = {
    "i32", "i64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float", "double", "bool", "string", "binary", "date", "ts_ms", "ts_us", "ts_ns",
    "dec32", "dec64", "dec128", "flba4"};

/* What literals and column comparisons a kind takes. */
typedef enum kclass { C_INT, C_FLOAT, C_BOOL, C_STRING, C_BINARY, C_DATE, C_TS, C_DEC } kclass;

static kclass class_of(kind k) {
    switch (k) {
    case K_FLOAT: case K_DOUBLE: return C_FLOAT;
    case K_BOOL: return C_BOOL;
    case K_STRING: return C_STRING;
    case K_BINARY: case K_FLBA4: return C_BINARY;
    case K_DATE: return C_DATE;
    case K_TS_MS: case K_TS_US: case K_TS_NS: return C_TS;
    case K_DEC32: case K_DEC64: case K_DEC128: return C_DEC;
    default: return C_INT;
    }
}

static bool is_bytes(kind k) { return k == K_STRING || k == K_BINARY || k == K_FLBA4; }

/* The value range of integer kinds (as the logical type allows). */
static void int_range(kind k, __int128 *lo, __int128 *hi) {
    switch (k) {
    case K_I8: *lo = -128; *hi = 127; return;
    case K_I16: *lo = -32768; *hi = 32767; return;
    case K_I32: case K_I32L: *lo = INT32_MIN; *hi = INT32_MAX; return;
    case K_U8: *lo = 0; *hi = 255; return;
    case K_U16: *lo = 0; *hi = 65535; return;
    case K_U32: *lo = 0; *hi = UINT32_MAX; return;
    case K_U64: *lo = 0; *hi = UINT64_MAX; return;
    case K_DATE: *lo = -719162; *hi = 2932896; return;   /* 0001-01-01 .. 9999-12-31 */
    case K_TS_MS: *lo = -62135596800000LL; *hi = 253402300799999LL; return;
    case K_TS_US: *lo = -62135596800000000LL; *hi = 253402300799999999LL; return;
    case K_TS_NS: *lo = INT64_MIN + 1; *hi = INT64_MAX; return;
    default: *lo = INT64_MIN; *hi = INT64_MAX; return;
    }
}

/* One value: integers, dates, timestamps, booleans and decimals (unscaled) in
 * v; floats in d; bytes in p[0..n). */
typedef struct cell {
    bool null;
    __int128 v;
    double d;
    uint8_t *p;
    uint32_t n;
} cell;

enum { L_SORTED, L_REVERSE, L_CLUSTERED, L_RANDOM };
static const char *LAYOUT_NAMES[] = {"sorted", "reverse", "clustered", "random"};

/* A leaf column (top level, or a field of the struct). */
typedef struct leaf {
    char name[24]; /* field name */
    char sql[40];  /* how SQL names it: c3, s.a */
    kind k;
    bool utc;      /* timestamps */
    int precision, scale;
    bool optional;
    int layout, null_pct, card;
    int encoding;  /* -1 default */
    bool bloom;
    cell *cells;   /* per row; struct leaves are null where the struct is */
    int column;    /* leaf column index */
} leaf;

#define MAX_LEAVES 24

typedef struct file_model {
    char path[512];
    char duck_path[512]; /* what DuckDB reads: path, or a twin DuckDB can decode */
    bool no_rid_filter;  /* predicates leave rid alone */
    int64_t rows;
    int nleaves;        /* leaves[0] is rid */
    leaf leaves[MAX_LEAVES];
    int struct_first;   /* index of the struct's first leaf, -1 when absent */
    bool *struct_null;  /* per row */
    bool has_list;
    int *list_len;      /* per row: -1 null, else the length */
    int32_t **list_vals;
    bool **list_elem_null;
    char options[512];  /* writer options, for messages */
    int64_t row_group_rows;
} file_model;

/* ---- Values ------------------------------------------------------------------------ */

static const char *WORDS[] = {"", "a", "b", "apple", "apricot", "banana", "zebra",
                              "\xc3\xa9t\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
                              "\xf0\x9f\x98\x80 smile", "it's", "Zulu", "~tilde",
                              "\xc3\xa9", "caf\xc3\xa9"};
#define NWORDS (int)(sizeof WORDS / sizeof WORDS[0])

/* A string value: words, long shared prefixes, numbered keys (no '%', '_' or
 * backslash, so any prefix is a LIKE pattern and any value a literal). */
static uint32_t gen_string(rng *r, uint8_t *out) {
    int n;
    switch (rbelow(r, 6)) {
    case 0: case 1:
        n = snprintf((char *)out, 200, "%s", WORDS[rbelow(r, NWORDS)]);
        break;
    case 2:
        n = snprintf((char *)out, 200, "shared-prefix-shared-prefix-%04d", (int)rbelow(r, 10000));
        break;
    case 3:
        n = snprintf((char *)out, 200, "key-%06d", (int)rbelow(r, 1000000));
        break;
    case 4:
        n = snprintf((char *)out, 200, "%s%s-%d", WORDS[rbelow(r, NWORDS)],
                     WORDS[rbelow(r, NWORDS)], (int)rbelow(r, 100));
        break;
    default: {
        n = (int)rbelow(r, 40);
        for (int i = 0; i < n; i++) out[i] = (uint8_t)('a' + rbelow(r, 26));
        break;
    }
    }
    return (uint32_t)n;
}

/* A binary value: printable ASCII without quote and backslash, sometimes bytes
 * above 0x7f (never used as literals). */
static uint32_t gen_binary(rng *r, uint8_t *out, bool high) {
    uint32_t n = (uint32_t)rbelow(r, 12);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)(0x20 + rbelow(r, 0x5f));
        if (c == '\'' || c == '\\') c = 'q';
        if (high && rchance(r, 20)) c = (uint8_t)(0x80 + rbelow(r, 0x80));
        out[i] = c;
    }
    return n;
}

static __int128 pow10_128(int e) {
    __int128 p = 1;
    while (e-- > 0) p *= 10;
    return p;
}

/* One random value of leaf l into c (not null). */
static void gen_value(rng *r, const leaf *l, cell *c, bool wide) {
    uint8_t tmp[256];
    __int128 lo, hi;
    switch (l->k) {
    case K_FLOAT: case K_DOUBLE: {
        int sp = (int)rbelow(r, 40);
        double d;
        if (sp == 0) d = NAN;
        else if (sp == 1) d = -0.0;
        else if (sp == 2) d = 0.0;
        else if (sp == 3) d = INFINITY;
        else if (sp == 4) d = -INFINITY;
        else if (wide) d = ldexp((double)(int64_t)rnext(r) / 9.2e18, (int)rrange(r, -60, 60));
        else d = (double)rrange(r, -2000, 2000) / 8.0;
        if (l->k == K_FLOAT) d = (double)(float)d;
        c->d = d;
        return;
    }
    case K_BOOL: c->v = (int)rbelow(r, 2); return;
    case K_STRING: case K_BINARY: case K_FLBA4: {
        uint32_t n;
        if (l->k == K_STRING) n = gen_string(r, tmp);
        else if (l->k == K_BINARY) n = gen_binary(r, tmp, true);
        else {
            n = 4;
            for (int i = 0; i < 4; i++)
                tmp[i] = (uint8_t)(wide ? 0x21 + rbelow(r, 0x5e) : 'a' + rbelow(r, 4));
            for (int i = 0; i < 4; i++)
                if (tmp[i] == '\'' || tmp[i] == '\\') tmp[i] = 'z';
        }
        c->p = xalloc(n + 1);
        memcpy(c->p, tmp, n);
        c->n = n;
        return;
    }
    case K_DEC32: case K_DEC64: case K_DEC128: {
        __int128 m = pow10_128(l->precision) - 1;
        if (!wide) m = m < 100000 ? m : 100000;
        __int128 x = (__int128)(rnext(r) >> 1);
        if (l->k == K_DEC128 && wide) x = x * (__int128)(rnext(r) >> 1) + (__int128)rnext(r);
        x %= m + 1;
        if (rchance(r, 50)) x = -x;
        if (rchance(r, 2)) x = rchance(r, 50) ? m : -m;
        c->v = x;
        return;
    }
    default:
        int_range(l->k, &lo, &hi);
        if (l->k == K_TS_NS) { /* keep beside-values representable */
            lo = -9000000000000000000LL;
            hi = 9000000000000000000LL;
        }
        if (rchance(r, 3)) {
            c->v = rchance(r, 50) ? lo : hi;
            return;
        }
        if (!wide) {
            __int128 mid = lo < 0 ? 0 : lo;
            if (l->k == K_DATE) mid = 18000;
            if (l->k == K_TS_MS) mid = (__int128)1600000000000LL;
            if (l->k == K_TS_US) mid = (__int128)1600000000000000LL;
            if (l->k == K_TS_NS) mid = (__int128)1600000000000000000LL;
            __int128 span = l->k >= K_TS_MS && l->k <= K_TS_NS ? 100000 : 1000;
            __int128 x = mid + (__int128)rbelow(r, (uint64_t)span) - (lo < 0 ? span / 2 : 0);
            c->v = x < lo ? lo : x > hi ? hi : x;
            return;
        }
        {
            unsigned __int128 span = (unsigned __int128)(hi - lo) + 1;
            unsigned __int128 x = ((unsigned __int128)rnext(r) << 64 | rnext(r)) % span;
            c->v = lo + (__int128)x;
        }
        return;
    }
}

/* DuckDB's order of values of one leaf (NaN last, -0.0 == 0.0, bytes as
 * unsigned); for laying values out sorted, never for answers. */
static kind g_sort_kind;
static int cell_cmp(const void *pa, const void *pb) {
    const cell *a = pa, *b = pb;
    if (class_of(g_sort_kind) == C_FLOAT) {
        bool na = isnan(a->d), nb = isnan(b->d);
        if (na || nb) return na - nb;
        return a->d < b->d ? -1 : a->d > b->d;
    }
    if (is_bytes(g_sort_kind)) {
        uint32_t n = a->n < b->n ? a->n : b->n;
        int c = n ? memcmp(a->p, b->p, n) : 0;
        if (c) return c;
        return a->n < b->n ? -1 : a->n > b->n;
    }
    return a->v < b->v ? -1 : a->v > b->v;
}

/* Fills l->cells for `rows` rows: a pool of l->card values laid out. */
static void gen_leaf_values(rng *r, leaf *l, int64_t rows) {
    bool wide = rchance(r, 60);
    int card = l->card;
    cell *pool = xalloc(sizeof *pool * (size_t)card);
    for (int i = 0; i < card; i++) {
        gen_value(r, l, &pool[i], wide);
        /* DuckDB reads UTC-adjusted NANOS as TIMESTAMPTZ in microseconds
         * (truncated): such values are whole microseconds here. */
        if (l->k == K_TS_NS && l->utc) pool[i].v -= pool[i].v % 1000;
    }
    g_sort_kind = l->k;
    qsort(pool, (size_t)card, sizeof *pool, cell_cmp);
    l->cells = xalloc(sizeof *l->cells * (size_t)rows);
    int64_t run = 1 + (int64_t)rbelow(r, 60);
    int64_t pick = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t idx;
        switch (l->layout) {
        case L_SORTED: idx = (i * card) / rows; break;
        case L_REVERSE: idx = card - 1 - (i * card) / rows; break;
        case L_CLUSTERED:
            if (i % run == 0) pick = (int64_t)rbelow(r, (uint64_t)card);
            idx = pick;
            break;
        default: idx = (int64_t)rbelow(r, (uint64_t)card); break;
        }
        cell *c = &l->cells[i];
        *c = pool[idx];
        if (is_bytes(l->k)) {
            c->p = xalloc(c->n + 1);
            memcpy(c->p, pool[idx].p, c->n);
        }
        bool nul = false;
        if (l->optional) {
            if (l->null_pct == 100) nul = true;
            else if (l->null_pct == 90 && l->layout == L_CLUSTERED) nul = (i / 97) % 10 != 3;
            else if (l->null_pct) nul = rchance(r, l->null_pct);
        }
        c->null = nul;
    }
    for (int i = 0; i < card; i++) free(pool[i].p);
    free(pool);
}

/* ---- Writing a file ---------------------------------------------------------------- */

static plank_physical_type phys_of(const leaf *l) {
    switch (l->k) {
    case K_I32: case K_I8: case K_I16: case K_I32L: case K_U8: case K_U16: case K_U32:
    case K_DATE: case K_DEC32:
        return PLANK_INT32;
    case K_FLOAT: return PLANK_FLOAT;
    case K_DOUBLE: return PLANK_DOUBLE;
    case K_BOOL: return PLANK_BOOLEAN;
    case K_STRING: case K_BINARY: return PLANK_BYTE_ARRAY;
    case K_DEC128: case K_FLBA4: return PLANK_FIXED_LEN_BYTE_ARRAY;
    default: return PLANK_INT64;
    }
}

static int width_of(const leaf *l) {
    switch (phys_of(l)) {
    case PLANK_INT32: case PLANK_FLOAT: return 4;
    case PLANK_FIXED_LEN_BYTE_ARRAY: return l->k == K_FLBA4 ? 4 : 16;
    case PLANK_INT64: case PLANK_DOUBLE: return 8;
    default: return 0;
    }
}

static void leaf_field(const leaf *l, plank_schema_field *f) {
    plank_schema_field_init(f);
    f->name = l->name;
    f->physical_type = phys_of(l);
    f->repetition = l->optional ? PLANK_OPTIONAL : PLANK_REQUIRED;
    if (f->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY) f->type_length = width_of(l);
    plank_logical_type *t = &f->logical;
    switch (l->k) {
    case K_I8: case K_I16: case K_I32L: case K_I64L: case K_U8: case K_U16: case K_U32: case K_U64:
        t->kind = PLANK_LOGICAL_INTEGER;
        t->bit_width = (int8_t)(l->k == K_I8 || l->k == K_U8 ? 8 : l->k == K_I16 || l->k == K_U16 ? 16
                                : l->k == K_I32L || l->k == K_U32 ? 32 : 64);
        t->is_signed = l->k == K_I8 || l->k == K_I16 || l->k == K_I32L || l->k == K_I64L;
        break;
    case K_STRING: t->kind = PLANK_LOGICAL_STRING; break;
    case K_DATE: t->kind = PLANK_LOGICAL_DATE; break;
    case K_TS_MS: case K_TS_US: case K_TS_NS:
        t->kind = PLANK_LOGICAL_TIMESTAMP;
        t->unit = l->k == K_TS_MS ? PLANK_UNIT_MILLIS : l->k == K_TS_US ? PLANK_UNIT_MICROS
                                                                         : PLANK_UNIT_NANOS;
        t->is_adjusted_to_utc = l->utc;
        break;
    case K_DEC32: case K_DEC64: case K_DEC128:
        t->kind = PLANK_LOGICAL_DECIMAL;
        t->precision = l->precision;
        t->scale = l->scale;
        break;
    default: break;
    }
}

/* Column batches in the writer's layout, owning their buffers. */
typedef struct wbatch {
    plank_batch b;
    uint8_t *validity, *values, *data;
    int64_t *offsets;
    int16_t *def, *rep;
} wbatch;

static void wbatch_free(wbatch *w) {
    free(w->validity);
    free(w->values);
    free(w->data);
    free(w->offsets);
    free(w->def);
    free(w->rep);
}

static void put_be128(uint8_t *out, __int128 v) {
    unsigned __int128 u = (unsigned __int128)v;
    for (int i = 15; i >= 0; i--) {
        out[i] = (uint8_t)u;
        u >>= 8;
    }
}

static void leaf_batch(const file_model *m, const leaf *l, wbatch *w) {
    int64_t n = m->rows;
    memset(w, 0, sizeof *w);
    w->b.struct_size = sizeof w->b;
    int width = width_of(l);
    bool in_struct = m->struct_first >= 0 && l >= &m->leaves[m->struct_first];
    w->validity = xalloc((size_t)n / 8 + 1);
    if (l->k == K_BOOL) w->values = xalloc((size_t)n / 8 + 1);
    else if (width) w->values = xalloc((size_t)n * (size_t)width);
    size_t dlen = 0;
    if (phys_of(l) == PLANK_BYTE_ARRAY) {
        for (int64_t i = 0; i < n; i++) dlen += l->cells[i].null ? 0 : l->cells[i].n;
        w->data = xalloc(dlen + 1);
        w->offsets = xalloc(sizeof *w->offsets * (size_t)(n + 1));
    }
    if (in_struct) w->def = xalloc(sizeof *w->def * (size_t)n);
    size_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        const cell *c = &l->cells[i];
        if (in_struct) w->def[i] = (int16_t)(m->struct_null[i] ? 0 : c->null ? 1 : 2);
        if (w->offsets) w->offsets[i] = (int64_t)pos;
        if (c->null) continue;
        w->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
        uint8_t *dst = w->values ? w->values + (size_t)i * (size_t)width : NULL;
        switch (phys_of(l)) {
        case PLANK_BOOLEAN:
            if (c->v) w->values[i >> 3] |= (uint8_t)(1u << (i & 7));
            break;
        case PLANK_INT32: {
            uint32_t x = (uint32_t)(uint64_t)c->v;
            memcpy(dst, &x, 4);
            break;
        }
        case PLANK_INT64: {
            uint64_t x = (uint64_t)c->v;
            memcpy(dst, &x, 8);
            break;
        }
        case PLANK_FLOAT: {
            float f = (float)c->d;
            memcpy(dst, &f, 4);
            break;
        }
        case PLANK_DOUBLE: memcpy(dst, &c->d, 8); break;
        case PLANK_FIXED_LEN_BYTE_ARRAY:
            if (l->k == K_DEC128) put_be128(dst, c->v);
            else memcpy(dst, c->p, 4);
            break;
        case PLANK_BYTE_ARRAY:
            memcpy(w->data + pos, c->p, c->n);
            pos += c->n;
            break;
        default: break;
        }
    }
    if (w->offsets) w->offsets[n] = (int64_t)pos;
    w->b.length = n;
    if (in_struct) w->b.def_levels = w->def;
    else if (l->optional) w->b.validity = w->validity;
    w->b.values = w->values;
    w->b.offsets = w->offsets;
    w->b.data = w->data ? w->data : (const uint8_t *)"";
}

static void list_batch(const file_model *m, wbatch *w) {
    memset(w, 0, sizeof *w);
    w->b.struct_size = sizeof w->b;
    int64_t slots = 0;
    for (int64_t i = 0; i < m->rows; i++) slots += m->list_len[i] > 0 ? m->list_len[i] : 1;
    w->def = xalloc(sizeof *w->def * (size_t)slots);
    w->rep = xalloc(sizeof *w->rep * (size_t)slots);
    w->values = xalloc(sizeof(int32_t) * (size_t)slots);
    int64_t s = 0;
    for (int64_t i = 0; i < m->rows; i++) {
        int n = m->list_len[i];
        if (n <= 0) {
            w->def[s] = (int16_t)(n + 1);
            w->rep[s++] = 0;
            continue;
        }
        for (int j = 0; j < n; j++, s++) {
            w->rep[s] = (int16_t)(j ? 1 : 0);
            w->def[s] = (int16_t)(m->list_elem_null[i][j] ? 2 : 3);
            memcpy(w->values + 4 * s, &m->list_vals[i][j], 4);
        }
    }
    w->b.length = slots;
    w->b.def_levels = w->def;
    w->b.rep_levels = w->rep;
    w->b.values = w->values;
}

/* Data-page encodings a leaf may take (-1: the writer's default). */
static int pick_encoding(rng *r, const leaf *l) {
    if (rchance(r, 40)) return -1;
    switch (phys_of(l)) {
    case PLANK_BOOLEAN: return rchance(r, 50) ? PLANK_ENC_PLAIN : PLANK_ENC_RLE;
    case PLANK_INT32: case PLANK_INT64: {
        static const int e[] = {PLANK_ENC_PLAIN, PLANK_ENC_DELTA_BINARY_PACKED,
                                PLANK_ENC_BYTE_STREAM_SPLIT};
        return e[rbelow(r, 3)];
    }
    case PLANK_FLOAT: case PLANK_DOUBLE:
        return rchance(r, 50) ? PLANK_ENC_PLAIN : PLANK_ENC_BYTE_STREAM_SPLIT;
    case PLANK_BYTE_ARRAY: {
        static const int e[] = {PLANK_ENC_PLAIN, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY,
                                PLANK_ENC_DELTA_BYTE_ARRAY};
        return e[rbelow(r, 3)];
    }
    case PLANK_FIXED_LEN_BYTE_ARRAY: {
        static const int e[] = {PLANK_ENC_PLAIN, PLANK_ENC_DELTA_BYTE_ARRAY,
                                PLANK_ENC_BYTE_STREAM_SPLIT};
        return e[rbelow(r, 3)];
    }
    default: return -1;
    }
}

static const int NULL_PCTS[] = {0, 0, 10, 10, 90, 100};

static void init_leaf(rng *r, leaf *l, kind k, const char *name, const char *sql) {
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    snprintf(l->sql, sizeof l->sql, "%s", sql);
    l->k = k;
    l->utc = rchance(r, 50);
    if (k == K_DEC32) l->precision = (int)rrange(r, 1, 9);
    if (k == K_DEC64) l->precision = (int)rrange(r, 10, 18);
    if (k == K_DEC128) l->precision = (int)rrange(r, 19, 32);
    if (class_of(k) == C_DEC) l->scale = (int)rrange(r, 0, l->precision < 6 ? l->precision : 6);
    l->optional = rchance(r, 80);
    l->layout = (int)rbelow(r, 4);
    l->null_pct = l->optional ? NULL_PCTS[rbelow(r, 6)] : 0;
    l->card = rchance(r, 40) ? (int)rrange(r, 1, 8) : (int)rrange(r, 20, 5000);
    l->encoding = pick_encoding(r, l);
    l->bloom = rchance(r, 30) && k != K_BOOL;
}

/* Builds the schema of m and writes its rows with options o. */
static bool write_model(file_model *m, const plank_writer_options *o) {
    /* The schema: root, the flat leaves, the struct, the list. */
    plank_schema_field f[MAX_LEAVES + 8];
    int nf = 0;
    plank_schema_field_init(&f[nf++]);
    int flat_end = m->struct_first >= 0 ? m->struct_first : m->nleaves;
    for (int i = 0; i < flat_end; i++) leaf_field(&m->leaves[i], &f[nf++]);
    int top = flat_end;
    if (m->struct_first >= 0) {
        plank_schema_field_init(&f[nf]);
        f[nf].name = "s";
        f[nf].repetition = PLANK_OPTIONAL;
        f[nf++].num_children = 2;
        leaf_field(&m->leaves[m->struct_first], &f[nf++]);
        leaf_field(&m->leaves[m->struct_first + 1], &f[nf++]);
        top++;
    }
    if (m->has_list) {
        plank_schema_field_init(&f[nf]);
        f[nf].name = "l";
        f[nf].repetition = PLANK_OPTIONAL;
        f[nf].num_children = 1;
        f[nf++].logical.kind = PLANK_LOGICAL_LIST;
        plank_schema_field_init(&f[nf]);
        f[nf].name = "list";
        f[nf].repetition = PLANK_REPEATED;
        f[nf++].num_children = 1;
        plank_schema_field_init(&f[nf]);
        f[nf].name = "element";
        f[nf].physical_type = PLANK_INT32;
        f[nf++].repetition = PLANK_OPTIONAL;
        top++;
    }
    f[0].num_children = top;
    for (int i = 0; i < m->nleaves; i++) m->leaves[i].column = i;

    plank_error err;
    plank_error_init(&err);
    plank_writer *w = NULL;
    plank_status st = plank_writer_open_path(&w, m->path, f, nf, o, &err);
    CHECK_MSG(st == PLANK_OK, "%s: writer open: %s", m->path, err.message);
    if (st != PLANK_OK) return false;
    wbatch wb[MAX_LEAVES + 1];
    plank_batch cols[MAX_LEAVES + 1];
    int ncols = 0;
    for (int i = 0; i < m->nleaves; i++) {
        leaf_batch(m, &m->leaves[i], &wb[ncols]);
        cols[ncols] = wb[ncols].b;
        ncols++;
    }
    if (m->has_list) {
        list_batch(m, &wb[ncols]);
        cols[ncols] = wb[ncols].b;
        ncols++;
    }
    st = plank_writer_write_rows(w, cols, m->rows, &err);
    for (int i = 0; i < ncols; i++) wbatch_free(&wb[i]);
    if (st != PLANK_OK) {
        CHECK_MSG(false, "%s: write_rows: %s", m->path, err.message);
        plank_writer_abort(w);
        return false;
    }
    st = plank_writer_close(w, &err);
    CHECK_MSG(st == PLANK_OK, "%s: writer close: %s", m->path, err.message);
    return st == PLANK_OK;
}

/* leaves[0]: rid, the row number (INT64 REQUIRED, sorted). */
static void init_rid(rng *r, file_model *m) {
    leaf *rid = &m->leaves[0];
    init_leaf(r, rid, K_I64, "rid", "rid");
    rid->optional = false;
    rid->layout = L_SORTED;
    rid->null_pct = 0;
    rid->card = (int)m->rows;
    rid->encoding = -1;
    rid->bloom = false;
    rid->cells = xalloc(sizeof *rid->cells * (size_t)m->rows);
    for (int64_t i = 0; i < m->rows; i++) rid->cells[i].v = i;
    m->nleaves = 1;
}

/* Appends an OPTIONAL leaf of a fixed shape, with its values. */
static void add_fixed_leaf(rng *r, file_model *m, kind k, const char *name, int layout,
                           int null_pct, int card) {
    leaf *l = &m->leaves[m->nleaves++];
    init_leaf(r, l, k, name, name);
    l->optional = true;
    l->layout = layout;
    l->null_pct = null_pct;
    l->card = card;
    gen_leaf_values(r, l, m->rows);
}

/* Draws a schema, values and writer options, and writes the file. */
static bool make_file(rng *r, const char *dir, int index, file_model *m) {
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s/f%03d.parquet", dir, index);
    m->rows = rchance(r, 20) ? rrange(r, 1, 60) : rrange(r, 200, 2500);
    m->struct_first = -1;
    init_rid(r, m);
    m->leaves[0].encoding = pick_encoding(r, &m->leaves[0]);
    m->leaves[0].bloom = rchance(r, 20);
    int extra = (int)rrange(r, 2, 9);
    for (int i = 0; i < extra; i++) {
        kind k = (kind)rbelow(r, K_NKINDS);
        /* A second column of an earlier kind now and then (column-to-column). */
        if (i > 0 && rchance(r, 25)) k = m->leaves[1 + rbelow(r, (uint64_t)i)].k;
        char name[24];
        snprintf(name, sizeof name, "c%d_%s", i + 1, KIND_NAMES[k]);
        leaf *l = &m->leaves[m->nleaves++];
        init_leaf(r, l, k, name, name);
        gen_leaf_values(r, l, m->rows);
    }
    if (rchance(r, 50)) {
        m->struct_first = m->nleaves;
        m->struct_null = xalloc((size_t)m->rows);
        int spct = NULL_PCTS[rbelow(r, 5)];
        for (int64_t i = 0; i < m->rows; i++) m->struct_null[i] = spct && rchance(r, spct);
        static const kind SK[][2] = {{K_I32, K_STRING}, {K_DOUBLE, K_DATE}, {K_I64, K_I64},
                                     {K_STRING, K_TS_US}, {K_DEC64, K_BOOL}};
        int pick = (int)rbelow(r, 5);
        for (int j = 0; j < 2; j++) {
            leaf *l = &m->leaves[m->nleaves++];
            init_leaf(r, l, SK[pick][j], j ? "b" : "a", j ? "s.b" : "s.a");
            l->optional = true;
            if (l->null_pct == 0 && rchance(r, 50)) l->null_pct = 10;
            gen_leaf_values(r, l, m->rows);
            for (int64_t i = 0; i < m->rows; i++)
                if (m->struct_null[i]) l->cells[i].null = true;
        }
    }
    if (rchance(r, 50)) {
        m->has_list = true;
        m->list_len = xalloc(sizeof *m->list_len * (size_t)m->rows);
        m->list_vals = xalloc(sizeof *m->list_vals * (size_t)m->rows);
        m->list_elem_null = xalloc(sizeof *m->list_elem_null * (size_t)m->rows);
        for (int64_t i = 0; i < m->rows; i++) {
            int n = rchance(r, 10) ? -1 : (int)rbelow(r, 5);
            m->list_len[i] = n;
            if (n <= 0) continue;
            m->list_vals[i] = xalloc(sizeof(int32_t) * (size_t)n);
            m->list_elem_null[i] = xalloc((size_t)n);
            for (int j = 0; j < n; j++) {
                m->list_vals[i][j] = (int32_t)rnext(r);
                m->list_elem_null[i][j] = rchance(r, 10);
            }
        }
    }

    /* Writer options. */
    plank_writer_options o;
    plank_writer_options_init(&o);
    static const plank_codec CODECS[] = {PLANK_CODEC_UNCOMPRESSED, PLANK_CODEC_SNAPPY,
                                         PLANK_CODEC_ZSTD};
    o.codec = CODECS[rbelow(r, 3)];
    if (!plank_codec_available(o.codec)) o.codec = PLANK_CODEC_UNCOMPRESSED;
    o.page_version = rchance(r, 50) ? 1 : 2;
    o.dictionary = rchance(r, 60);
    bool small_dict = o.dictionary && rchance(r, 40);
    if (small_dict) o.dictionary_page_size = rrange(r, 16, 600);
    o.page_rows = rrange(r, 7, 300);
    o.row_group_rows = rchance(r, 20) ? m->rows : rrange(r, m->rows / 6 + 1, m->rows / 2 + 1);
    o.page_index = rchance(r, 75);
    o.statistics = rchance(r, 85);
    if (rchance(r, 40)) o.max_statistics_size = 8;
    m->row_group_rows = o.row_group_rows;
    plank_column_options co[MAX_LEAVES];
    int nco = 0;
    int nbloom = 0;
    for (int i = 0; i < m->nleaves; i++) {
        leaf *l = &m->leaves[i];
        if (l->encoding < 0 && !l->bloom && !rchance(r, 10)) continue;
        plank_column_options_init(&co[nco]);
        co[nco].path = l->sql;
        co[nco].encoding = l->encoding;
        co[nco].bloom_filter = l->bloom;
        if (l->bloom) nbloom++;
        if (rchance(r, 10)) co[nco].statistics = 0;
        nco++;
    }
    o.columns = co;
    o.num_column_options = nco;
    snprintf(m->options, sizeof m->options,
             "%lld rows, row groups of %lld, %s, pages v%d of %lld rows, dictionary %s%s, "
             "page index %s, statistics %s%s, %d bloom filters",
             (long long)m->rows, (long long)o.row_group_rows, plank_codec_name(o.codec),
             (int)o.page_version, (long long)o.page_rows, o.dictionary ? "on" : "off",
             small_dict ? " (small)" : "",
             o.page_index ? "on" : "off", o.statistics ? "on" : "off",
             o.max_statistics_size == 8 ? " (max 8 bytes)" : "", nbloom);

    if (!write_model(m, &o)) return false;
    /* DuckDB 1.5.6 decodes BYTE_STREAM_SPLIT only for FLOAT and DOUBLE: it
     * reads a twin of the file with those columns in the default encoding. */
    snprintf(m->duck_path, sizeof m->duck_path, "%s", m->path);
    bool twin = false;
    for (int i = 0; i < nco; i++) {
        const leaf *l = &m->leaves[0];
        for (int j = 0; j < m->nleaves; j++)
            if (strcmp(m->leaves[j].sql, co[i].path) == 0) l = &m->leaves[j];
        if (co[i].encoding == PLANK_ENC_BYTE_STREAM_SPLIT && phys_of(l) != PLANK_FLOAT &&
            phys_of(l) != PLANK_DOUBLE) {
            co[i].encoding = -1;
            twin = true;
        }
    }
    if (!twin) return true;
    char real[512];
    snprintf(real, sizeof real, "%s", m->path);
    snprintf(m->path, sizeof m->path, "%s/f%03d_duckdb.parquet", dir, index);
    bool ok = write_model(m, &o);
    snprintf(m->duck_path, sizeof m->duck_path, "%s", m->path);
    snprintf(m->path, sizeof m->path, "%s", real);
    size_t ol = strlen(m->options);
    snprintf(m->options + ol, sizeof m->options - ol,
             "; DuckDB reads %s, a twin without BYTE_STREAM_SPLIT integers/FLBA", m->duck_path);
    return ok;
}

static void free_model(file_model *m) {
    for (int i = 0; i < m->nleaves; i++) {
        leaf *l = &m->leaves[i];
        if (l->cells)
            for (int64_t j = 0; j < m->rows; j++) free(l->cells[j].p);
        free(l->cells);
    }
    if (m->has_list) {
        for (int64_t i = 0; i < m->rows; i++) {
            free(m->list_vals[i]);
            free(m->list_elem_null[i]);
        }
    }
    free(m->list_len);
    free(m->list_vals);
    free(m->list_elem_null);
    free(m->struct_null);
    memset(m, 0, sizeof *m);
}

/* ---- Literal text ------------------------------------------------------------------- */

static void add_i128(sql_buf *b, __int128 v) {
    char tmp[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0) sql_add(b, "-");
    while (n) sql_add(b, "%c", tmp[--n]);
}

/* unscaled / 10^scale as a SQL decimal literal (12.34, -0.05, 7). */
static void add_decimal(sql_buf *b, __int128 unscaled, int scale) {
    if (scale <= 0) {
        add_i128(b, unscaled);
        return;
    }
    bool neg = unscaled < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)unscaled
                              : (unsigned __int128)unscaled;
    unsigned __int128 p = (unsigned __int128)pow10_128(scale);
    if (neg) sql_add(b, "-");
    add_i128(b, (__int128)(u / p));
    sql_add(b, ".");
    char frac[48];
    unsigned __int128 f = u % p;
    for (int i = scale - 1; i >= 0; i--) {
        frac[i] = (char)('0' + (int)(f % 10));
        f /= 10;
    }
    frac[scale] = 0;
    sql_add(b, "%s", frac);
}

/* A double as a literal with an exponent (1.5e0, -2.5e-3), the shortest that
 * reads back as d; infinities as 1e999. */
static void add_double(sql_buf *b, double d) {
    if (isinf(d)) {
        sql_add(b, d < 0 ? "-1e999" : "1e999");
        return;
    }
    char tmp[64];
    for (int prec = 0; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec, d);
        if (strtod(tmp, NULL) == d && signbit(strtod(tmp, NULL)) == signbit(d)) break;
    }
    char *e = strchr(tmp, 'e');
    int ex = atoi(e + 1);
    *e = 0;
    sql_add(b, "%se%d", tmp, ex);
}

static void add_bytes(sql_buf *b, const uint8_t *p, uint32_t n) {
    sql_add(b, "'");
    for (uint32_t i = 0; i < n; i++) sql_add(b, p[i] == '\'' ? "''" : "%c", p[i]);
    sql_add(b, "'");
}

static int64_t floor_div(int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/* Days since 1970-01-01 as YYYY-MM-DD (through the C library's gmtime_r,
 * not plank's calendar code). */
static void add_date_text(sql_buf *b, int64_t days) {
    time_t t = (time_t)(days * 86400);
    struct tm tm;
    if (!gmtime_r(&t, &tm)) abort();
    sql_add(b, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/* Microseconds as 'YYYY-MM-DD HH:MM:SS[.ffffff]' (no quotes); date only
 * when short and at midnight. */
static void add_ts_text(sql_buf *b, int64_t us, bool short_form) {
    int64_t days = floor_div(us, 86400000000LL);
    int64_t rem = us - days * 86400000000LL;
    add_date_text(b, days);
    if (short_form && rem == 0) return;
    int64_t s = rem / 1000000, f = rem % 1000000;
    sql_add(b, " %02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60));
    if (f || !short_form) sql_add(b, ".%06d", (int)f);
}

/* The random-case spelling of a keyword. */
static void kw(rng *r, sql_buf *b, const char *word) {
    int style = (int)rbelow(r, 8);
    for (const char *c = word; *c; c++) {
        char ch = *c;
        if ((style == 0 || (style == 1 && c != word)) && ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32);
        sql_add(b, "%c", ch);
    }
}

/* ---- Literals for a column -------------------------------------------------------------- */

/* A non-null cell of the leaf, or NULL when every value is null. */
static const cell *some_value(rng *r, const file_model *m, const leaf *l) {
    for (int t = 0; t < 12; t++) {
        const cell *c = &l->cells[rbelow(r, (uint64_t)m->rows)];
        if (!c->null) return c;
    }
    for (int64_t i = 0; i < m->rows; i++)
        if (!l->cells[i].null) return &l->cells[i];
    return NULL;
}

/* The smallest or largest non-null value (DuckDB's order). */
static const cell *extreme(const file_model *m, const leaf *l, bool max) {
    const cell *best = NULL;
    g_sort_kind = l->k;
    for (int64_t i = 0; i < m->rows; i++) {
        const cell *c = &l->cells[i];
        if (c->null) continue;
        if (!best || (max ? cell_cmp(c, best) > 0 : cell_cmp(c, best) < 0)) best = c;
    }
    return best;
}

static bool printable(const uint8_t *p, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\' || (p[i] >= 0x80)) return false;
    return true;
}

/* Length of the longest prefix of p[0..n) of at most k bytes that ends on a
 * UTF-8 character boundary. */
static uint32_t utf8_cut(const uint8_t *p, uint32_t n, uint32_t k) {
    if (k >= n) return n;
    while (k > 0 && (p[k] & 0xc0) == 0x80) k--;
    return k;
}

/* A value seed for a literal: kind of pick and the cell. */
enum { P_VALUE, P_BESIDE, P_EXTREME, P_BEYOND, P_NULL, P_RANDOM };

static int pick_mode(rng *r) {
    int x = (int)rbelow(r, 100);
    if (x < 40) return P_VALUE;
    if (x < 60) return P_BESIDE;
    if (x < 75) return P_EXTREME;
    if (x < 85) return P_BEYOND;
    if (x < 89) return P_NULL;
    return P_RANDOM;
}

static void lit_int_col(rng *r, const file_model *m, const leaf *l, sql_buf *b, int mode,
                        const cell *c, bool no_double) {
    __int128 lo, hi;
    int_range(l->k, &lo, &hi);
    __int128 v = c ? c->v : 0;
    if (mode == P_BESIDE) v += rchance(r, 50) ? 1 : -1;
    if (mode == P_BEYOND) {
        const cell *e = extreme(m, l, rchance(r, 50));
        static const int64_t FAR[] = {3000000000LL, -3000000000LL, INT64_MAX, INT64_MIN,
                                      4294967296LL, -1, 256, -129, 65536};
        switch (rbelow(r, 4)) {
        case 0: v = e ? e->v + (e == extreme(m, l, true) ? 1 : -1) : lo - 1; break;
        case 1: v = lo - 1; break;
        case 2: v = hi + 1; break;
        default: v = FAR[rbelow(r, 9)]; break;
        }
        if (v > (__int128)UINT64_MAX) v = (__int128)UINT64_MAX;
        if (v < (__int128)INT64_MIN) v = INT64_MIN;
    }
    int form = (int)rbelow(r, 20);
    if (form == 0) { /* a decimal: never equal to an integer unless .0 */
        add_i128(b, v);
        sql_add(b, rchance(r, 50) ? ".5" : ".0");
    } else if (form == 1 && !no_double && v > -((__int128)1 << 53) && v < ((__int128)1 << 53)) {
        add_double(b, (double)v);
    } else {
        add_i128(b, v);
    }
}

static void lit_float_col(rng *r, const file_model *m, const leaf *l, sql_buf *b, int mode,
                          const cell *c) {
    double d = c ? c->d : 1.0;
    if (mode == P_BESIDE) {
        if (l->k == K_FLOAT && rchance(r, 50))
            d = (double)nextafterf((float)d, rchance(r, 50) ? INFINITY : -INFINITY);
        else d = nextafter(d, rchance(r, 50) ? INFINITY : -INFINITY);
    }
    if (mode == P_BEYOND) {
        static const double FAR[] = {INFINITY, -INFINITY, 3.5e38, -3.5e38, 1e-320, -0.0, 0.0,
                                     1.7976931348623157e308};
        d = FAR[rbelow(r, 8)];
    }
    if (isnan(d)) d = rchance(r, 50) ? INFINITY : 0.0; /* no NaN literal */
    add_double(b, d);
}

static void lit_bytes_col(rng *r, const file_model *m, const leaf *l, sql_buf *b, int mode,
                          const cell *c) {
    uint8_t tmp[300];
    uint32_t n = 0;
    if (c && c->n <= 200) {
        memcpy(tmp, c->p, c->n);
        n = c->n;
    }
    if (mode == P_BESIDE) {
        switch (rbelow(r, 4)) {
        case 0: n = utf8_cut(tmp, n, n ? n - 1 : 0); break;
        case 1: tmp[n++] = rchance(r, 50) ? 'a' : '~'; break;
        case 2:
            if (l->k == K_STRING) {
                memcpy(tmp + n, "\xc3\xa9", 2);
                n += 2;
            } else {
                tmp[n++] = ' ';
            }
            break;
        default:
            if (n && tmp[n - 1] < 0x7e && tmp[n - 1] >= 0x20) tmp[n - 1]++;
            else tmp[n++] = '!';
            if (n && tmp[n - 1] == '\'') tmp[n - 1]++;
            if (n && tmp[n - 1] == '\\') tmp[n - 1]++;
            break;
        }
    }
    if (mode == P_BEYOND) {
        static const char *FAR[] = {"", "\xf4\x8f\xbf\xbf", "~~~~~~~~~~", " ", "!", "zzzzzzzzzz"};
        const char *s = FAR[rbelow(r, 6)];
        n = (uint32_t)strlen(s);
        memcpy(tmp, s, n);
    }
    if (mode == P_RANDOM) {
        cell x = {0};
        gen_value(r, l, &x, true);
        n = x.n < 200 ? x.n : 200;
        memcpy(tmp, x.p, n);
        free(x.p);
    }
    if (l->k != K_STRING && !printable(tmp, n)) { /* only ASCII literals against binary */
        for (uint32_t i = 0; i < n; i++)
            if (!printable(&tmp[i], 1)) tmp[i] = 'x';
    }
    add_bytes(b, tmp, n);
}

/* A timestamp cell in microseconds (floor). */
static int64_t ts_micros(const leaf *l, __int128 v) {
    if (l->k == K_TS_MS) return (int64_t)v * 1000;
    if (l->k == K_TS_NS) return floor_div((int64_t)v, 1000);
    return (int64_t)v;
}

static void lit_time_col(rng *r, const file_model *m, const leaf *l, sql_buf *b, int mode,
                         const cell *c) {
    __int128 v = c ? c->v : 0;
    if (l->k == K_DATE) {
        if (mode == P_BESIDE) v += rchance(r, 50) ? 1 : -1;
        if (mode == P_BEYOND) v = rchance(r, 50) ? -719162 : 2932896;
        if (v < -719162) v = -719162;
        if (v > 2932896) v = 2932896;
        if (rchance(r, 15)) {
            sql_add(b, "'");
            add_date_text(b, (int64_t)v);
            sql_add(b, "'");
            return;
        }
        kw(r, b, "DATE");
        sql_add(b, " '");
        add_date_text(b, (int64_t)v);
        sql_add(b, "'");
        return;
    }
    int64_t us = ts_micros(l, v);
    if (mode == P_BESIDE) us += rchance(r, 50) ? 1 : (rchance(r, 50) ? -1 : 1000);
    int64_t lo = l->k == K_TS_NS ? -9223372036854775LL : -62135596800000000LL;
    int64_t hi = l->k == K_TS_NS ? 9223372036854775LL : 253402300799999999LL;
    if (mode == P_BEYOND) us = rchance(r, 50) ? lo : hi;
    if (us < lo) us = lo;
    if (us > hi) us = hi;
    bool short_form = rchance(r, 30);
    if (rchance(r, 10)) {
        sql_add(b, "'");
        add_ts_text(b, us, short_form);
        sql_add(b, "'");
        return;
    }
    kw(r, b, "TIMESTAMP");
    sql_add(b, " '");
    add_ts_text(b, us, short_form);
    sql_add(b, "'");
}

static void lit_dec_col(rng *r, const file_model *m, const leaf *l, sql_buf *b, int mode,
                        const cell *c, bool no_double) {
    __int128 v = c ? c->v : 0;
    int s = l->scale;
    if (mode == P_BEYOND) {
        v = pow10_128(l->precision);
        if (rchance(r, 50)) v = -v;
    }
    switch (rbelow(r, 6)) {
    case 0: /* more fractional digits, the same value or just beside it */
        v *= 10;
        s++;
        if (mode == P_BESIDE) v += rchance(r, 50) ? 1 : -1;
        break;
    case 1: /* fewer digits: truncated */
        if (s > 0) {
            v /= 10;
            s--;
        }
        break;
    case 2:
        if (rchance(r, 60) && mode != P_BEYOND && l->k != K_DEC128 && !no_double) {
            add_double(b, (double)v / (double)pow10_128(s));
            return;
        }
        /* fall through */
    default:
        if (mode == P_BESIDE) v += rchance(r, 50) ? 1 : -1;
        break;
    }
    add_decimal(b, v, s);
}

/* A literal for leaf l (or NULL). In IN lists and BETWEEN (no_double)
 * integer and decimal columns get no double literal: DuckDB casts the whole
 * list (or all three operands) to one type, DOUBLE when one of them is,
 * while plank compares each literal with its own type. */
static void gen_literal(rng *r, const file_model *m, const leaf *l, sql_buf *b, bool no_double) {
    int mode = pick_mode(r);
    if (mode == P_NULL) {
        kw(r, b, "NULL");
        return;
    }
    const cell *c = some_value(r, m, l);
    if (mode == P_EXTREME && c) c = extreme(m, l, rchance(r, 50)); /* the min or the max */
    cell rnd = {0};
    if (mode == P_RANDOM || !c) {
        gen_value(r, l, &rnd, rchance(r, 50));
        c = &rnd;
        if (mode != P_RANDOM) mode = P_VALUE;
    }
    switch (class_of(l->k)) {
    case C_INT: lit_int_col(r, m, l, b, mode, c, no_double); break;
    case C_FLOAT: lit_float_col(r, m, l, b, mode, c); break;
    case C_BOOL: kw(r, b, (c->v ^ (mode == P_BESIDE)) ? "TRUE" : "FALSE"); break;
    case C_STRING: case C_BINARY: lit_bytes_col(r, m, l, b, mode, c); break;
    case C_DATE: case C_TS: lit_time_col(r, m, l, b, mode, c); break;
    case C_DEC: lit_dec_col(r, m, l, b, mode, c, no_double); break;
    }
    free(rnd.p);
}

/* ---- Predicates ---------------------------------------------------------------------- */

static const char *CMP_OPS[] = {"=", "!=", "<>", "<", "<=", ">", ">=", "=="};

/* How SQL names the leaf: plain, or double-quoted now and then. */
static void add_column(rng *r, sql_buf *b, const leaf *l) {
    if (!rchance(r, 15)) {
        sql_add(b, "%s", l->sql);
        return;
    }
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%s", l->sql);
    char *dot = strchr(tmp, '.');
    if (dot) {
        *dot = 0;
        sql_add(b, "\"%s\".\"%s\"", tmp, dot + 1);
    } else {
        sql_add(b, "\"%s\"", tmp);
    }
}

/* Column-to-column partners: same class (both integers, both floats, ...),
 * timestamps only of the same unit and UTC flag, decimals of any scale. */
static bool comparable(const leaf *a, const leaf *b) {
    if (a == b) return false;
    kclass ca = class_of(a->k), cb = class_of(b->k);
    if (ca == C_TS) return a->k == b->k && a->utc == b->utc;
    if (ca == C_BINARY) return a->k == b->k;
    if ((ca == C_INT && cb == C_DEC) || (ca == C_DEC && cb == C_INT)) return true;
    return ca == cb;
}

static const leaf *pick_leaf(rng *r, const file_model *m) {
    if (m->no_rid_filter) return &m->leaves[1 + rbelow(r, (uint64_t)m->nleaves - 1)];
    if (rchance(r, 8)) return &m->leaves[0];
    return &m->leaves[rbelow(r, (uint64_t)m->nleaves)];
}

/* A string prefix for LIKE: a prefix of some value, a value itself or a
 * value extended. */
static void gen_like(rng *r, const file_model *m, const leaf *l, sql_buf *b) {
    const cell *c = some_value(r, m, l);
    uint8_t tmp[300];
    uint32_t n = 0;
    if (c && c->n < 200) {
        memcpy(tmp, c->p, c->n);
        n = utf8_cut(tmp, c->n, (uint32_t)rbelow(r, c->n + 2));
    }
    if (rchance(r, 15)) tmp[n++] = 'q';
    memcpy(tmp + n, "%", 1);
    add_bytes(b, tmp, n + 1);
}

static void gen_atom(rng *r, const file_model *m, sql_buf *b) {
    const leaf *l = pick_leaf(r, m);
    int x = (int)rbelow(r, 100);
    if (class_of(l->k) == C_BOOL && x < 25) {
        if (rchance(r, 50)) kw(r, b, "NOT ");
        add_column(r, b, l);
        return;
    }
    if (l->k == K_STRING && x < 18) {
        add_column(r, b, l);
        sql_add(b, " ");
        if (rchance(r, 30)) kw(r, b, "NOT ");
        kw(r, b, "LIKE ");
        gen_like(r, m, l, b);
        return;
    }
    if (x < 26) { /* column to column */
        const leaf *cand[MAX_LEAVES];
        int nc = 0;
        for (int i = 0; i < m->nleaves; i++)
            if (comparable(l, &m->leaves[i])) cand[nc++] = &m->leaves[i];
        if (nc) {
            add_column(r, b, l);
            sql_add(b, " %s ", CMP_OPS[rbelow(r, 7)]);
            add_column(r, b, cand[rbelow(r, (uint64_t)nc)]);
            return;
        }
    }
    x = (int)rbelow(r, 100);
    if (x < 45) {
        bool flip = rchance(r, 15);
        if (flip) {
            gen_literal(r, m, l, b, false);
            sql_add(b, " %s ", CMP_OPS[rbelow(r, 8)]);
            add_column(r, b, l);
        } else {
            add_column(r, b, l);
            sql_add(b, " %s ", CMP_OPS[rbelow(r, 8)]);
            gen_literal(r, m, l, b, false);
        }
    } else if (x < 65) {
        add_column(r, b, l);
        sql_add(b, " ");
        if (rchance(r, 30)) kw(r, b, "NOT ");
        kw(r, b, "IN");
        sql_add(b, " (");
        /* now and then past the 16 keys that strings compare as words:
         * a sorted list searched by halves */
        int n = rchance(r, 15) ? (int)rrange(r, 17, 60) : (int)rrange(r, 1, 5);
        for (int i = 0; i < n; i++) {
            if (i) sql_add(b, ", ");
            gen_literal(r, m, l, b, true);
        }
        sql_add(b, ")");
    } else if (x < 85) {
        add_column(r, b, l);
        sql_add(b, " ");
        if (rchance(r, 30)) kw(r, b, "NOT ");
        kw(r, b, "BETWEEN ");
        gen_literal(r, m, l, b, true);
        sql_add(b, " ");
        kw(r, b, "AND ");
        gen_literal(r, m, l, b, true);
    } else {
        add_column(r, b, l);
        sql_add(b, " ");
        kw(r, b, rchance(r, 50) ? "IS NULL" : "IS NOT NULL");
    }
}

static void gen_expr(rng *r, const file_model *m, sql_buf *b, int depth) {
    if (depth == 0 || rchance(r, 40)) {
        gen_atom(r, m, b);
        return;
    }
    int x = (int)rbelow(r, 10);
    bool paren = !rchance(r, 15);
    if (x < 2) {
        kw(r, b, "NOT ");
        sql_add(b, "(");
        gen_expr(r, m, b, depth - 1);
        sql_add(b, ")");
        return;
    }
    if (paren) sql_add(b, "(");
    gen_expr(r, m, b, depth - 1);
    if (paren) sql_add(b, ")");
    sql_add(b, " ");
    kw(r, b, x < 6 ? "AND" : "OR");
    sql_add(b, " ");
    if (paren) sql_add(b, "(");
    gen_expr(r, m, b, depth - 1);
    if (paren) sql_add(b, ")");
}

/* ---- plank's side ------------------------------------------------------------------- */

typedef struct scan_out {
    plank_status st; /* of parse, open or the stream */
    char where[16];  /* "parse", "open", "stream", "count" */
    char err[PLANK_ERROR_MESSAGE_SIZE + 64];
    i64vec rids;
    int64_t count;
    plank_scan_stats stats;
} scan_out;

static void scan_out_free(scan_out *o) {
    free(o->rids.v);
    memset(o, 0, sizeof *o);
}

static void scan_fail(scan_out *o, const char *where, plank_status st, const char *msg) {
    o->st = st;
    snprintf(o->where, sizeof o->where, "%s", where);
    snprintf(o->err, sizeof o->err, "%s: %s", plank_status_string(st), msg ? msg : "");
}

/* Opens a scan of `text` over r with options `base` (filter and projection
 * set here); NULL with o->st set on failure. */
static plank_scan *open_scan(plank_reader *r, const char *text, const plank_scan_options *base,
                             const char *const *cols, int ncols, scan_out *o) {
    plank_error err;
    plank_error_init(&err);
    plank_expr *e = NULL;
    plank_status st = plank_expr_parse(text, NULL, &e, &err);
    if (st != PLANK_OK) {
        scan_fail(o, "parse", st, err.message);
        return NULL;
    }
    plank_scan_options so = *base;
    so.filter = e;
    so.columns = cols;
    so.num_columns = ncols;
    plank_scan *s = NULL;
    st = plank_scan_open(&s, r, &so, &err);
    plank_expr_free(e);
    if (st != PLANK_OK) {
        scan_fail(o, "open", st, err.message);
        return NULL;
    }
    return s;
}

/* The rids (int64 child 0 of each batch) of a scan projecting {"rid"}, or the
 * values of the first column of `cols` (int64 or int32; INT64_MIN for null). */
static void plank_rids(plank_reader *r, const char *text, const plank_scan_options *base,
                       const char *const *cols, int ncols, scan_out *o) {
    memset(o, 0, sizeof *o);
    plank_scan_stats_init(&o->stats);
    static const char *RID[] = {"rid"};
    if (!cols) {
        cols = RID;
        ncols = 1;
    }
    plank_scan *s = open_scan(r, text, base, cols, ncols, o);
    if (!s) return;
    plank_error err;
    plank_error_init(&err);
    struct ArrowArrayStream st;
    memset(&st, 0, sizeof st);
    plank_status ps = plank_scan_arrow_stream(s, &st, &err);
    if (ps != PLANK_OK) {
        scan_fail(o, "stream", ps, err.message);
        plank_scan_close(s);
        return;
    }
    struct ArrowSchema sch;
    int rc = st.get_schema(&st, &sch);
    if (rc != 0) {
        scan_fail(o, "stream", PLANK_ERR_IO, st.get_last_error(&st));
    } else {
        bool wide = sch.n_children >= 1 && strcmp(sch.children[0]->format, "l") == 0;
        bool ok = wide || (sch.n_children >= 1 && strcmp(sch.children[0]->format, "i") == 0);
        if (!ok) scan_fail(o, "stream", PLANK_ERR_INVALID_ARGUMENT, "first column is not int64");
        sch.release(&sch);
        while (ok) {
            struct ArrowArray a;
            memset(&a, 0, sizeof a);
            rc = st.get_next(&st, &a);
            if (rc != 0) {
                scan_fail(o, "stream", PLANK_ERR_IO, st.get_last_error(&st));
                break;
            }
            if (!a.release) break;
            const struct ArrowArray *c = a.children[0];
            const uint8_t *valid = c->buffers[0];
            for (int64_t i = 0; i < a.length; i++) {
                int64_t j = c->offset + a.offset + i;
                int64_t v = wide ? ((const int64_t *)c->buffers[1])[j]
                                 : ((const int32_t *)c->buffers[1])[j];
                if (valid && !(valid[j >> 3] >> (j & 7) & 1)) v = INT64_MIN; /* null */
                vpush(&o->rids, v);
            }
            a.release(&a);
        }
    }
    plank_scan_get_stats(s, &o->stats);
    st.release(&st);
    plank_scan_close(s);
}

static void plank_count(plank_reader *r, const char *text, scan_out *o) {
    memset(o, 0, sizeof *o);
    plank_scan_options so;
    plank_scan_options_init(&so);
    plank_scan *s = open_scan(r, text, &so, NULL, 0, o);
    if (!s) return;
    plank_error err;
    plank_error_init(&err);
    plank_status st = plank_scan_count(s, &o->count, &err);
    if (st != PLANK_OK) scan_fail(o, "count", st, err.message);
    plank_scan_close(s);
}

/* ---- DuckDB's side ------------------------------------------------------------------- */

/* The first column (BIGINT) of every row of a query. */
static bool duck_list(duck_conn *dc, const char *sql, i64vec *out) {
    duck_result res;
    bool ok = duck_run(dc, sql, &res);
    if (ok) {
        duck_idx n = dc->api->row_count(&res);
        for (duck_idx i = 0; i < n; i++) vpush(out, dc->api->value_int64(&res, 0, i));
    }
    dc->api->destroy_result(&res);
    return ok;
}

/* "read_parquet('path')" */
static void from_parquet(sql_buf *b, const char *path, const char *extra) {
    sql_add(b, "read_parquet(");
    sql_quoted(b, path, '\'');
    sql_add(b, "%s)", extra);
}

/* ---- Counters ------------------------------------------------------------------------ */

typedef struct totals {
    long cases, empty, full, partial, checked_count, checked_levels, checked_rows, errors_expected;
    long duck_errors, duck_wrong, mismatches, files;
    long reused_rows;        /* whole-row cases with values taken from the filter's */
    int64_t reused_values;   /* their values_reused */
    long masked_rows;        /* whole-row cases with row groups read as a bitmap */
    plank_scan_stats s;
} totals;

static void add_stats(plank_scan_stats *t, const plank_scan_stats *s) {
    t->row_groups += s->row_groups;
    t->row_groups_pruned_statistics += s->row_groups_pruned_statistics;
    t->row_groups_pruned_bloom += s->row_groups_pruned_bloom;
    t->row_groups_pruned_page_index += s->row_groups_pruned_page_index;
    t->row_groups_no_match += s->row_groups_no_match;
    t->pages += s->pages;
    t->pages_pruned_page_index += s->pages_pruned_page_index;
    t->pages_skipped += s->pages_skipped;
    t->pages_decoded += s->pages_decoded;
    t->bytes_read += s->bytes_read;
    t->bytes_not_read += s->bytes_not_read;
    t->rows += s->rows;
    t->rows_candidate += s->rows_candidate;
    t->rows_matched += s->rows_matched;
    t->values_evaluated += s->values_evaluated;
    t->dictionary_entries_evaluated += s->dictionary_entries_evaluated;
    t->values_reused += s->values_reused;
    t->values_skipped_delta += s->values_skipped_delta;
}

static void print_stats(const char *label, const plank_scan_stats *s) {
    printf("%s: row groups %lld (pruned: statistics %lld, bloom %lld, page index %lld; no match "
           "%lld), pages %lld (page index pruned %lld, skipped %lld, decoded %lld), rows %lld "
           "(candidates %lld, matched %lld), values evaluated %lld, dictionary entries "
           "evaluated %lld, bytes read %lld, not read %lld\n",
           label, (long long)s->row_groups, (long long)s->row_groups_pruned_statistics,
           (long long)s->row_groups_pruned_bloom, (long long)s->row_groups_pruned_page_index,
           (long long)s->row_groups_no_match, (long long)s->pages,
           (long long)s->pages_pruned_page_index, (long long)s->pages_skipped,
           (long long)s->pages_decoded, (long long)s->rows, (long long)s->rows_candidate,
           (long long)s->rows_matched, (long long)s->values_evaluated,
           (long long)s->dictionary_entries_evaluated, (long long)s->bytes_read,
           (long long)s->bytes_not_read);
}

/* ---- Comparing --------------------------------------------------------------------------- */

typedef struct ctx {
    duck_conn *dc;
    uint64_t seed;
    totals t;
    const char *label; /* "f007.parquet (...options...)" for messages */
    const char *schema_text;
    const char *plank_path; /* the file plank reads when DuckDB reads a twin, else NULL */
    bool table_ready;  /* temp table t holds the current file's rows */
} ctx;

/* Up to max values of the sorted list x that the sorted list y lacks. */
static size_t only_in(const i64vec *x, const i64vec *y, int64_t *out, size_t max) {
    size_t n = 0;
    for (size_t a = 0, b = 0; a < x->n && n < max; a++) {
        while (b < y->n && y->v[b] < x->v[a]) b++;
        if (b == y->n || y->v[b] != x->v[a]) out[n++] = x->v[a];
    }
    return n;
}

/* Prints where two rid lists first differ. */
static void print_diff(const i64vec *want, const i64vec *got) {
    size_t i = 0;
    while (i < want->n && i < got->n && want->v[i] == got->v[i]) i++;
    fprintf(stderr, "    expected %zu rows, got %zu; first difference at position %zu: "
                    "expected %s%lld, got %s%lld\n",
            want->n, got->n, i, i < want->n ? "" : "(end) ", i < want->n ? (long long)want->v[i] : 0LL,
            i < got->n ? "" : "(end) ", i < got->n ? (long long)got->v[i] : 0LL);
    for (int side = 0; side < 2; side++) {
        int64_t v[12];
        size_t n = side ? only_in(got, want, v, 12) : only_in(want, got, v, 12);
        fprintf(stderr, "    rows only in %s:", side ? "plank's answer" : "expected");
        for (size_t k = 0; k < n; k++) fprintf(stderr, " %lld", (long long)v[k]);
        fprintf(stderr, "\n");
    }
}

static bool same(const i64vec *a, const i64vec *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

static void report_case(ctx *c, const char *path, const char *text, const char *what) {
    fprintf(stderr, "MISMATCH [PLANK_SCAN_SEED=%llu] %s\n    file: %s (%s)\n    schema: %s\n"
                    "    predicate: %s\n",
            (unsigned long long)c->seed, what, c->plank_path ? c->plank_path : path, c->label,
            c->schema_text, text);
}

/* Prints DuckDB's rows of the rids that only one side has (a few). */
static void print_rows_of(ctx *c, const char *path, const i64vec *a, const i64vec *b) {
    sql_buf q = {0}, from = {0};
    from_parquet(&from, path, "");
    sql_add(&q, "SELECT CAST(x AS VARCHAR) FROM (SELECT * FROM %s WHERE rid IN (-1", from.p);
    for (int side = 0; side < 2; side++) {
        int64_t v[2];
        size_t n = side ? only_in(b, a, v, 2) : only_in(a, b, v, 2);
        for (size_t k = 0; k < n; k++) sql_add(&q, ", %lld", (long long)v[k]);
    }
    sql_add(&q, ") ORDER BY rid) x");
    fprintf(stderr, "    DuckDB's rows of some differing rids:\n");
    duck_print_rows(c->dc, q.p, 4);
    free(q.p);
    free(from.p);
}

/* Whole rows: plank's stream (every column) in DuckDB, against read_parquet. */
static void compare_rows(ctx *c, plank_reader *r, const char *path, const char *text) {
    scan_out o;
    memset(&o, 0, sizeof o);
    plank_scan_options so;
    plank_scan_options_init(&so);
    plank_scan *s = open_scan(r, text, &so, NULL, 0, &o);
    if (!s) {
        report_case(c, path, text, "whole rows: the scan failed");
        fprintf(stderr, "    %s: %s\n", o.where, o.err);
        CHECK(false);
        return;
    }
    plank_error err;
    plank_error_init(&err);
    struct ArrowArrayStream st;
    memset(&st, 0, sizeof st);
    plank_status ps = plank_scan_arrow_stream(s, &st, &err);
    CHECK_MSG(ps == PLANK_OK, "%s", err.message);
    if (ps != PLANK_OK) {
        plank_scan_close(s);
        return;
    }
    kept_stream ks;
    kept_stream_init(&ks, &st);
    bool ok = c->dc->api->arrow_scan(c->dc->con, "p", &ks.outer) == 0;
    bool made = ok && duck_exec(c->dc, "CREATE OR REPLACE TEMP TABLE k AS SELECT * FROM p");
    if (ok) CHECK(duck_exec(c->dc, "DROP VIEW p"));
    const char *le = made ? NULL : ks.inner.get_last_error(&ks.inner);
    char why[1200];
    snprintf(why, sizeof why, "%s (stream: %s)", c->dc->error, le ? le : "no error");
    kept_stream_release(&ks);
    plank_scan_stats ss;
    plank_scan_stats_init(&ss);
    plank_scan_get_stats(s, &ss);
    plank_scan_close(s);
    if (made && ss.values_reused > 0) {
        c->t.reused_rows++;
        c->t.reused_values += ss.values_reused;
    }
    if (made && ss.row_groups_masked > 0) c->t.masked_rows++;
    if (!made) {
        report_case(c, path, text, "whole rows: DuckDB could not read plank's stream");
        fprintf(stderr, "    %s\n", why);
        CHECK(false);
        return;
    }
    c->t.checked_rows++;
    sql_buf from = {0}, q = {0};
    from_parquet(&from, path, "");
    for (int dir = 0; dir < 2; dir++) {
        q.len = 0;
        if (dir == 0)
            sql_add(&q, "SELECT count(*) FROM (SELECT * FROM k EXCEPT ALL SELECT * FROM %s WHERE %s)",
                    from.p, text);
        else
            sql_add(&q, "SELECT count(*) FROM (SELECT * FROM %s WHERE %s EXCEPT ALL SELECT * FROM k)",
                    from.p, text);
        int64_t n = -1;
        if (!duck_int(c->dc, q.p, &n)) {
            report_case(c, path, text, "whole rows: DuckDB failed");
            fprintf(stderr, "    %s\n", c->dc->error);
            CHECK(false);
            break;
        }
        if (n != 0) {
            report_case(c, path, text, dir ? "whole rows: rows of DuckDB missing in plank's"
                                           : "whole rows: rows of plank's not in DuckDB's");
            int64_t extra = -1, missing = -1;
            sql_buf rq = {0};
            sql_add(&rq, "SELECT count(*) FROM k WHERE rid NOT IN (SELECT rid FROM %s WHERE %s)",
                    from.p, text);
            duck_int(c->dc, rq.p, &extra);
            rq.len = 0;
            sql_add(&rq, "SELECT count(*) FROM %s WHERE (%s) AND rid NOT IN (SELECT rid FROM k)",
                    from.p, text);
            duck_int(c->dc, rq.p, &missing);
            free(rq.p);
            fprintf(stderr, "    %lld rows differ (rids: %lld in plank's answer only, %lld in DuckDB's "
                            "only; equal rid sets mean a projected value differs); e.g.:\n",
                    (long long)n, (long long)extra, (long long)missing);
            q.len = 0;
            sql_add(&q, "SELECT CAST(x AS VARCHAR) FROM (SELECT * FROM %s %s%s "
                        "EXCEPT ALL SELECT * FROM %s %s%s) x LIMIT 3",
                    dir ? from.p : "k", dir ? "WHERE " : "", dir ? text : "", dir ? "k" : from.p,
                    dir ? "" : "WHERE ", dir ? "" : text);
            duck_print_rows(c->dc, q.p, 3);
            c->t.mismatches++;
            CHECK(false);
        }
    }
    duck_exec(c->dc, "DROP TABLE IF EXISTS k");
    free(from.p);
    free(q.p);
}

/* Default options with one pushdown level off: 0 pushdown, 1 statistics,
 * 2 bloom filters, 3 page index, 4 dictionaries. */
static const char *LEVEL_NAMES[5] = {"pushdown", "use_statistics", "use_bloom_filters",
                                     "use_page_index", "use_dictionaries"};
static void level_off(plank_scan_options *o, int lv) {
    plank_scan_options_init(o);
    o->pushdown = lv != 0;
    o->use_statistics = lv != 1;
    o->use_bloom_filters = lv != 2;
    o->use_page_index = lv != 3;
    o->use_dictionaries = lv != 4;
}

/* One (file, predicate). `extra` 0..99 decides the further checks. */
static void run_case(ctx *c, plank_reader *r, const char *path, int64_t file_rows,
                     const char *text, int extra) {
    sql_buf q = {0}, from = {0};
    from_parquet(&from, path, "");
    sql_add(&q, "SELECT rid FROM %s WHERE %s ORDER BY rid", from.p, text);
    i64vec want = {0};
    bool duck_ok = duck_list(c->dc, q.p, &want);
    scan_out o;
    plank_scan_options so;
    plank_scan_options_init(&so);
    plank_rids(r, text, &so, NULL, 0, &o);
    c->t.cases++;
    if (!duck_ok) {
        /* Not comparable (DuckDB refuses, e.g. a timestamp beyond TIMESTAMP_NS). */
        c->t.duck_errors++;
        if (c->t.duck_errors <= 5)
            printf("note: DuckDB failed on [%s] over %s: %.300s (plank: %s)\n", text, path,
                   c->dc->error, o.st == PLANK_OK ? "ok" : o.err);
        goto done;
    }
    if (o.st != PLANK_OK) {
        report_case(c, path, text, "plank failed where DuckDB answered");
        fprintf(stderr, "    %s: %s (DuckDB: %zu rows)\n", o.where, o.err, want.n);
        c->t.mismatches++;
        CHECK(false);
        goto done;
    }
    add_stats(&c->t.s, &o.stats);
    if (want.n == 0) c->t.empty++;
    else if ((int64_t)want.n == file_rows) c->t.full++;
    else c->t.partial++;
    if (!same(&want, &o.rids)) {
        c->t.mismatches++;
        /* Which side is wrong: the same query over the rows materialised in
         * DuckDB (no Parquet metadata involved). */
        if (!c->table_ready) {
            sql_buf t = {0};
            sql_add(&t, "CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM %s", from.p);
            c->table_ready = duck_exec(c->dc, t.p);
            free(t.p);
        }
        i64vec tab = {0};
        q.len = 0;
        sql_add(&q, "SELECT rid FROM t WHERE %s ORDER BY rid", text);
        bool tab_ok = c->table_ready && duck_list(c->dc, q.p, &tab);
        if (tab_ok && same(&tab, &o.rids)) {
            /* DuckDB's Parquet reader is wrong, not plank: noted, not failed. */
            c->t.mismatches--;
            c->t.duck_wrong++;
            if (c->t.duck_wrong <= 5) {
                printf("note: DuckDB's read_parquet differs from DuckDB over the materialised "
                       "rows, which agree with plank: [%s] over %s (%s): read_parquet %zu rows, "
                       "plank %zu\n", text, path, c->label, want.n, o.rids.n);
            }
            free(tab.v);
            goto done;
        }
        report_case(c, path, text, "rids differ");
        print_diff(&want, &o.rids);
        print_rows_of(c, path, &want, &o.rids);
        /* Which pruning level is to blame: plank with each one off. */
        fprintf(stderr, "    plank with one level off, against DuckDB:");
        for (int lv = 0; lv < 5; lv++) {
            plank_scan_options lo;
            level_off(&lo, lv);
            scan_out x;
            plank_rids(r, text, &lo, NULL, 0, &x);
            fprintf(stderr, " %s=false %s%s", LEVEL_NAMES[lv],
                    x.st != PLANK_OK ? "fails" : same(&want, &x.rids) ? "agrees" : "differs",
                    lv < 4 ? "," : "\n");
            scan_out_free(&x);
        }
        fprintf(stderr, "    DuckDB over the materialised rows: %s\n",
                !tab_ok               ? "failed"
                : same(&tab, &want) ? "agrees with DuckDB over read_parquet (plank is wrong)"
                                    : "differs from both");
        print_stats("    plank's scan", &o.stats);
        free(tab.v);
        CHECK(false);
        goto done;
    }
    /* The statistics agree with the answer. */
    CHECK_MSG(o.stats.rows_matched == (int64_t)want.n && o.stats.rows == file_rows &&
                  o.stats.rows_candidate >= o.stats.rows_matched,
              "[seed %llu] %s: [%s]: stats rows %lld candidates %lld matched %lld, answer %zu",
              (unsigned long long)c->seed, path, text, (long long)o.stats.rows,
              (long long)o.stats.rows_candidate, (long long)o.stats.rows_matched, want.n);
    if (extra < 15) {
        c->t.checked_count++;
        scan_out k;
        plank_count(r, text, &k);
        if (k.st != PLANK_OK || k.count != (int64_t)want.n) {
            report_case(c, path, text, "plank_scan_count differs from DuckDB's count(*)");
            fprintf(stderr, "    count %lld (%s), DuckDB %zu\n", (long long)k.count,
                    k.st == PLANK_OK ? "ok" : k.err, want.n);
            c->t.mismatches++;
            CHECK(false);
        }
        scan_out_free(&k);
        for (int lv = 0; lv < 5; lv++) {
            plank_scan_options lo;
            level_off(&lo, lv);
            scan_out x;
            plank_rids(r, text, &lo, NULL, 0, &x);
            if (x.st != PLANK_OK || !same(&want, &x.rids)) {
                char what[96];
                snprintf(what, sizeof what, "rids differ with %s=false", LEVEL_NAMES[lv]);
                report_case(c, path, text, what);
                if (x.st != PLANK_OK) fprintf(stderr, "    %s: %s\n", x.where, x.err);
                else print_diff(&want, &x.rids);
                c->t.mismatches++;
                CHECK(false);
            }
            scan_out_free(&x);
        }
        c->t.checked_levels++;
    }
    if (extra >= 94) compare_rows(c, r, path, text);
done:
    scan_out_free(&o);
    free(want.v);
    free(q.p);
    free(from.p);
}

/* A predicate plank.h documents as an error: plank_scan_open (or the parse)
 * must fail with PLANK_ERR_INVALID_ARGUMENT. */
static void run_error_case(ctx *c, plank_reader *r, const char *path, const char *text) {
    scan_out o;
    plank_scan_options so;
    plank_scan_options_init(&so);
    plank_rids(r, text, &so, NULL, 0, &o);
    c->t.errors_expected++;
    if (o.st != PLANK_ERR_INVALID_ARGUMENT || strcmp(o.where, "open") != 0) {
        report_case(c, path, text, "expected plank_scan_open to fail with PLANK_ERR_INVALID_ARGUMENT");
        fprintf(stderr, "    got: %s%s%s (%zu rows)\n", o.st == PLANK_OK ? "success" : o.where,
                o.st == PLANK_OK ? "" : ": ", o.st == PLANK_OK ? "" : o.err, o.rids.n);
        c->t.mismatches++;
        CHECK(false);
    } else if (o.err[0] == 0) {
        CHECK_MSG(false, "%s: [%s]: no error message", path, text);
    }
    scan_out_free(&o);
}

/* Texts that bind to nothing valid in this file: a string against an integer
 * column, a boolean against a double, a date against an integer, an integer
 * against a string, LIKE on an integer, a column that does not exist. */
static int error_texts(rng *r, const file_model *m, char out[][160], int max) {
    int n = 0;
    for (int i = 0; i < m->nleaves && n < max; i++) {
        const leaf *l = &m->leaves[i];
        if (!rchance(r, 35)) continue;
        kclass k = class_of(l->k);
        if (k == C_INT) {
            static const char *F[] = {"%s = 'abc'", "%s < DATE '2020-01-01'", "%s LIKE 'a%%'",
                                      "%s IN (1, 'x')", "%s = TRUE"};
            snprintf(out[n++], 160, F[rbelow(r, 5)], l->sql);
        } else if (k == C_FLOAT) {
            snprintf(out[n++], 160, rchance(r, 50) ? "%s = TRUE" : "%s > 'x'", l->sql);
        } else if (k == C_STRING) {
            snprintf(out[n++], 160, rchance(r, 50) ? "%s = 12" : "%s < 1.5e0", l->sql);
        } else if (k == C_BOOL) {
            snprintf(out[n++], 160, "%s = 'maybe'", l->sql);
        } else if (k == C_DATE) {
            snprintf(out[n++], 160, "%s = 'not a date'", l->sql);
        }
    }
    if (n < max && rchance(r, 30)) snprintf(out[n++], 160, "no_such_column = 1");
    return n;
}

static void describe_model(const file_model *m, sql_buf *b) {
    for (int i = 0; i < m->nleaves; i++) {
        const leaf *l = &m->leaves[i];
        sql_add(b, "%s%s %s", i ? ", " : "", l->sql, KIND_NAMES[l->k]);
        if (class_of(l->k) == C_DEC) sql_add(b, "(%d,%d)", l->precision, l->scale);
        if (class_of(l->k) == C_TS) sql_add(b, l->utc ? " utc" : " local");
        sql_add(b, " %s%s nulls %d%% card %d", l->optional ? "" : "required ",
                LAYOUT_NAMES[l->layout], l->null_pct, l->card);
        if (l->encoding >= 0) sql_add(b, " %s", plank_encoding_name((plank_encoding)l->encoding));
        if (l->bloom) sql_add(b, " bloom");
    }
    if (m->has_list) sql_add(b, ", l list<int32>");
}

/* ---- 1-3. Generated files ---------------------------------------------------------------- */

static uint64_t file_seed(uint64_t seed, int index) {
    rng r = {seed * 0x100000001b3ULL + (uint64_t)index};
    return rnext(&r);
}

static void generated_files(ctx *c, const char *dir, int nfiles, int preds_per_file) {
    for (int fi = 0; fi < nfiles; fi++) {
        rng r = {file_seed(c->seed, fi)};
        file_model m;
        if (!make_file(&r, dir, fi, &m)) {
            free_model(&m);
            continue;
        }
        c->t.files++;
        sql_buf schema = {0};
        describe_model(&m, &schema);
        c->label = m.options;
        c->schema_text = schema.p;
        c->plank_path = strcmp(m.path, m.duck_path) ? m.path : NULL;
        c->table_ready = false;
        plank_reader *rd = NULL;
        plank_error err;
        plank_error_init(&err);
        plank_status st = plank_reader_open_path(&rd, m.path, NULL, &err);
        CHECK_MSG(st == PLANK_OK, "%s: %s", m.path, err.message);
        if (st == PLANK_OK) {
            for (int p = 0; p < preds_per_file; p++) {
                sql_buf text = {0};
                gen_expr(&r, &m, &text, (int)rbelow(&r, 4));
                run_case(c, rd, m.duck_path, m.rows, text.p, (int)rbelow(&r, 100));
                free(text.p);
            }
            char errs[8][160];
            int ne = error_texts(&r, &m, errs, 3);
            for (int i = 0; i < ne; i++) run_error_case(c, rd, m.path, errs[i]);
        }
        plank_reader_close(rd);
        c->plank_path = NULL;
        if (c->table_ready) duck_exec(c->dc, "DROP TABLE IF EXISTS t");
        free(schema.p);
        free_model(&m);
    }
}

/* ---- 4. Lying metadata -------------------------------------------------------------------- */

/* Lies a reader can see (the metadata contradicts itself or the chunk's other
 * metadata) come first: plank must ignore them. The last three are
 * consistent lies, which no reader can see without reading the data: the
 * rows plank drops there are reported, not failed. */
enum { LIE_MIN_GT_MAX, LIE_NULLS_ALL, LIE_NULLS_OVER, LIE_PAGES_MIN_GT_MAX, LIE_PAGES_NULL,
       LIE_PAGES_ORDER, LIE_CONSISTENT, LIE_EXCLUDE = LIE_CONSISTENT, LIE_PAGES_EXCLUDE, LIE_ALL,
       LIE_N };
static const char *LIE_NAMES[LIE_N] = {
    "chunk min > max", "chunk null_count = num_values with min/max present",
    "chunk null_count > num_values", "page index min > max",
    "page index: every page null, null counts above the page's rows",
    "page index boundary order contradicting the bounds",
    "chunk bounds exclude the values (consistent)",
    "page index bounds exclude the values (consistent within the index)",
    "chunk and page bounds exclude the values (consistent)"};

static const uint8_t FAR_I64[8] = {0x07, 0x80, 0xc6, 0xa4, 0x7e, 0x8d, 0x03, 0x00}; /* 1e15+7 */
static const char *FAR_STR = "~~none~~";

/* A copy of a column index with lying pages (per `lie`), allocated in ar. */
static bool lie_pages(pk_arena *ar, const plank_column_index *ci, plank_column_index *out,
                      bool is_string, int lie) {
    *out = *ci;
    int32_t n = ci->num_pages;
    bool *np = pk_arena_alloc(ar, (size_t)n + 1);
    const uint8_t **mins = pk_arena_alloc(ar, sizeof *mins * ((size_t)n + 1));
    const uint8_t **maxs = pk_arena_alloc(ar, sizeof *maxs * ((size_t)n + 1));
    uint32_t *min_lens = pk_arena_alloc(ar, sizeof *min_lens * ((size_t)n + 1));
    uint32_t *max_lens = pk_arena_alloc(ar, sizeof *max_lens * ((size_t)n + 1));
    int64_t *nulls = pk_arena_alloc(ar, sizeof *nulls * ((size_t)n + 1));
    if (!np || !mins || !maxs || !min_lens || !max_lens || !nulls) return false;
    for (int32_t i = 0; i < n; i++) {
        np[i] = ci->null_pages[i];
        mins[i] = ci->min_values[i];
        maxs[i] = ci->max_values[i];
        min_lens[i] = ci->min_lens[i];
        max_lens[i] = ci->max_lens[i];
        nulls[i] = ci->null_counts ? ci->null_counts[i] : 0;
        if (lie == LIE_PAGES_MIN_GT_MAX) {
            mins[i] = ci->max_values[i];
            min_lens[i] = ci->max_lens[i];
            maxs[i] = ci->min_values[i];
            max_lens[i] = ci->min_lens[i];
        } else if (lie == LIE_PAGES_NULL) {
            np[i] = true;
            mins[i] = maxs[i] = (const uint8_t *)"";
            min_lens[i] = max_lens[i] = 0;
            nulls[i] = 100000;
        } else if (lie == LIE_PAGES_EXCLUDE || lie == LIE_ALL) {
            np[i] = false;
            mins[i] = maxs[i] = is_string ? (const uint8_t *)FAR_STR : FAR_I64;
            min_lens[i] = max_lens[i] = is_string ? (uint32_t)strlen(FAR_STR) : 8;
            nulls[i] = 0;
        }
    }
    out->null_pages = np;
    out->min_values = mins;
    out->max_values = maxs;
    out->min_lens = min_lens;
    out->max_lens = max_lens;
    out->null_counts = nulls;
    if (lie == LIE_PAGES_ORDER)
        out->boundary_order = ci->boundary_order == PLANK_BOUNDARY_DESCENDING
                                  ? PLANK_BOUNDARY_ASCENDING
                                  : PLANK_BOUNDARY_DESCENDING;
    else if (lie != LIE_PAGES_MIN_GT_MAX)
        out->boundary_order = PLANK_BOUNDARY_ASCENDING;
    return true;
}

/* Writes `out` as `in` with the metadata of leaf columns cols[0..ncols) lying;
 * strings[i] says whether cols[i] is a string column (else INT64). */
static bool write_lie(const char *in, const char *out, int lie, const int *cols,
                      const bool *strings, int ncols) {
    size_t len = 0;
    uint8_t *buf = th_read_file(in, &len);
    if (!buf || len < 12) return false;
    uint32_t flen;
    memcpy(&flen, buf + len - 8, 4);
    size_t fstart = len - 8 - flen;
    plank_error err;
    plank_error_init(&err);
    pk_file_metadata md;
    plank_status st = pk_thrift_read_file_metadata(buf + fstart, flen, NULL, &md, &err);
    CHECK_MSG(st == PLANK_OK, "%s: %s", in, err.message);
    if (st != PLANK_OK) {
        free(buf);
        return false;
    }
    pk_buffer ob;
    pk_buffer_init(&ob, NULL);
    pk_arena ar;
    pk_arena_init(&ar, NULL);
    bool ok = pk_buffer_append(&ob, buf, fstart, &err) == PLANK_OK;
    for (int32_t g = 0; g < md.num_row_groups && ok; g++) {
        for (int k = 0; k < ncols && ok; k++) {
            plank_column_chunk_info *cc = &md.row_groups[g].columns[cols[k]];
            plank_statistics *s = &cc->statistics;
            bool is_str = strings[k];
            const uint8_t *far = is_str ? (const uint8_t *)FAR_STR : FAR_I64;
            uint32_t far_len = is_str ? (uint32_t)strlen(FAR_STR) : 8;
            switch (lie) {
            case LIE_MIN_GT_MAX: {
                const uint8_t *t = s->min;
                uint32_t tl = s->min_len;
                s->min = s->max;
                s->min_len = s->max_len;
                s->max = t;
                s->max_len = tl;
                break;
            }
            case LIE_EXCLUDE: case LIE_ALL:
                cc->has_statistics = s->has_min = s->has_max = true;
                s->min = s->max = far;
                s->min_len = s->max_len = far_len;
                break;
            case LIE_NULLS_ALL: case LIE_NULLS_OVER:
                cc->has_statistics = s->has_null_count = true;
                s->null_count = cc->num_values + (lie == LIE_NULLS_OVER ? 1000 : 0);
                break;
            default: break;
            }
            bool pages = lie == LIE_PAGES_MIN_GT_MAX || lie == LIE_PAGES_NULL ||
                         lie == LIE_PAGES_ORDER || lie == LIE_PAGES_EXCLUDE || lie == LIE_ALL;
            if (pages && cc->column_index_offset >= 0 && cc->column_index_length > 0) {
                plank_column_index ci, lying;
                st = pk_thrift_read_column_index(buf + cc->column_index_offset,
                                                 (size_t)cc->column_index_length, &ar, &ci, &err);
                ok = st == PLANK_OK && lie_pages(&ar, &ci, &lying, is_str, lie);
                size_t at = ob.size;
                ok = ok && pk_thrift_write_column_index(&lying, &ob, &err) == PLANK_OK;
                cc->column_index_offset = (int64_t)at;
                cc->column_index_length = (int32_t)(ob.size - at);
            }
        }
    }
    size_t fat = ob.size;
    ok = ok && pk_thrift_write_file_metadata(&md, &ob, &err) == PLANK_OK;
    uint32_t nflen = (uint32_t)(ob.size - fat);
    ok = ok && pk_buffer_append(&ob, &nflen, 4, &err) == PLANK_OK &&
         pk_buffer_append(&ob, "PAR1", 4, &err) == PLANK_OK;
    CHECK_MSG(ok, "rewriting %s: %s", in, err.message);
    if (ok) {
        FILE *f = fopen(out, "wb");
        ok = f && fwrite(ob.data, 1, ob.size, f) == ob.size;
        if (f) ok = fclose(f) == 0 && ok;
    }
    pk_buffer_reset(&ob);
    pk_arena_reset(&ar);
    pk_file_metadata_free(&md);
    free(buf);
    return ok;
}

static void lying_files(ctx *c, const char *dir) {
    rng r = {file_seed(c->seed, 100000)};
    file_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "%s/honest.parquet", dir);
    m.rows = 1200;
    m.struct_first = -1;
    init_rid(&r, &m);
    add_fixed_leaf(&r, &m, K_I64, "x", L_SORTED, 10, 500);
    add_fixed_leaf(&r, &m, K_STRING, "y", L_CLUSTERED, 10, 40);
    plank_writer_options wo;
    plank_writer_options_init(&wo);
    wo.row_group_rows = 300;
    wo.page_rows = 40;
    snprintf(m.options, sizeof m.options, "honest: 4 row groups of 300 rows, pages of 40 rows");
    bool wrote = write_model(&m, &wo);
    CHECK(wrote);
    if (!wrote) {
        free_model(&m);
        return;
    }
    sql_buf schema = {0};
    describe_model(&m, &schema);
    c->schema_text = schema.p;
    m.no_rid_filter = true;

    /* The predicates: fixed ones on nulls, the rest drawn. */
    enum { NPRED = 45 };
    char *preds[NPRED];
    int np = 0;
    static const char *FIXED[] = {"x IS NULL", "x IS NOT NULL", "y IS NULL", "y IS NOT NULL",
                                  "NOT (x IS NULL)"};
    for (int i = 0; i < 5; i++) preds[np++] = strdup(FIXED[i]);
    while (np < NPRED) {
        sql_buf t = {0};
        gen_expr(&r, &m, &t, (int)rbelow(&r, 2));
        preds[np++] = t.p;
    }
    long trusted = 0, cases = 0, consistent_dropped = 0;
    const int cols[2] = {1, 2};
    const bool strings[2] = {false, true};
    for (int lie = 0; lie < LIE_N; lie++) {
        char path[600];
        snprintf(path, sizeof path, "%s/lie%d.parquet", dir, lie);
        if (!write_lie(m.path, path, lie, cols, strings, 2)) continue;
        char label[200];
        snprintf(label, sizeof label, "lying metadata: %s", LIE_NAMES[lie]);
        c->label = label;
        plank_reader *rd = NULL;
        plank_error err;
        plank_error_init(&err);
        plank_status st = plank_reader_open_path(&rd, path, NULL, &err);
        CHECK_MSG(st == PLANK_OK, "%s (%s): %s", path, label, err.message);
        if (st != PLANK_OK) continue;
        long lie_trusted = 0;
        for (int p = 0; p < np; p++) {
            sql_buf q = {0}, from = {0};
            i64vec truth = {0}, duck_lie = {0};
            from_parquet(&from, m.path, "");
            sql_add(&q, "SELECT rid FROM %s WHERE %s ORDER BY rid", from.p, preds[p]);
            bool truth_ok = duck_list(c->dc, q.p, &truth);
            from.len = 0;
            q.len = 0;
            from_parquet(&from, path, "");
            sql_add(&q, "SELECT rid FROM %s WHERE %s ORDER BY rid", from.p, preds[p]);
            bool lie_ok = duck_list(c->dc, q.p, &duck_lie);
            if (truth_ok) {
                cases++;
                c->t.cases++;
                bool agrees = lie_ok && same(&truth, &duck_lie);
                if (!agrees) {
                    trusted++;
                    lie_trusted++;
                }
                printf("lie %d (%s): [%s]: %zu rows; reference: DuckDB over the honest file; "
                       "DuckDB over the lying file %s\n",
                       lie, LIE_NAMES[lie], preds[p], truth.n,
                       !lie_ok ? "failed" : agrees ? "agrees" : "differs (trusts the lie)");
                scan_out o;
                plank_scan_options so;
                plank_scan_options_init(&so);
                for (int pass = 0; pass < 2; pass++) {
                    so.pushdown = pass == 0;
                    plank_rids(rd, preds[p], &so, NULL, 0, &o);
                    if (pass == 0 && lie >= LIE_CONSISTENT && o.st == PLANK_OK &&
                        !same(&truth, &o.rids)) {
                        consistent_dropped++;
                        printf("lie %d: [%s]: plank gives %zu of the %zu rows (a consistent lie: "
                               "reported, not failed)\n", lie, preds[p], o.rids.n, truth.n);
                    } else if (o.st != PLANK_OK || !same(&truth, &o.rids)) {
                        report_case(c, path, preds[p],
                                    pass ? "lying metadata, pushdown=false: rows differ"
                                                             : "lying metadata: rows differ");
                        if (o.st != PLANK_OK) fprintf(stderr, "    %s: %s\n", o.where, o.err);
                        else print_diff(&truth, &o.rids);
                        c->t.mismatches++;
                        CHECK(false);
                    }
                    scan_out_free(&o);
                }
            }
            free(truth.v);
            free(duck_lie.v);
            free(q.p);
            free(from.p);
        }
        plank_reader_close(rd);
        printf("lie %d (%s): DuckDB over the lying file trusted the metadata in %ld of %d cases\n",
               lie, LIE_NAMES[lie], lie_trusted, np);
    }
    printf("lying metadata: %ld cases, DuckDB trusted the lie in %ld (reference for all: DuckDB "
           "over the honest file); plank gave fewer rows in %ld cases of consistent lies\n",
           cases, trusted, consistent_dropped);
    for (int p = 0; p < np; p++) free(preds[p]);
    free(schema.p);
    free_model(&m);
}

/* ---- 5. The parquet-testing corpus --------------------------------------------------------- */

typedef struct corpus_file {
    const char *name;
    const char *id;        /* a unique int column to compare in order, or NULL: whole rows */
    bool want_page_pruning, want_bloom_pruning;
    const char *preds[12];
} corpus_file;

static const corpus_file CORPUS[] = {
    {"alltypes_tiny_pages.parquet", "id", true, false,
     {"id < 100", "id BETWEEN 3000 AND 3050", "id = 7000", "int_col = 5 AND id > 7000",
      "bigint_col > 80", "string_col = '3'", "date_string_col = '01/05/09'",
      "float_col > 8.5e0 AND month = 7", "tinyint_col IN (1, 2) AND id < 400", "bool_col AND id < 500",
      "smallint_col <> 4 AND year = 2010 AND month = 12", NULL}},
    {"alltypes_tiny_pages_plain.parquet", "id", true, false,
     {"id < 100", "id BETWEEN 3000 AND 3050", "id = 7000 OR id = 12", "int_col = 5 AND id > 7000",
      "double_col >= 9.09e1", "string_col IN ('3', '7')", "date_string_col LIKE '01/0%'",
      "NOT (id > 20)", "month = 2 AND float_col IS NULL", NULL}},
    {"data_index_bloom_encoding_stats.parquet", NULL, false, true,
     {"String = 'Hello'", "String = 'Hellp'", "String = 'cat'", "String IN ('jump', 'over it')",
      "String = 'the'", "String = 'zzz'", "String LIKE 'th%'", "String IS NULL", NULL}},
    {"data_index_bloom_encoding_with_length.parquet", NULL, false, true,
     {"String = 'Hello'", "String = 'Hellp'", "String = 'cat'", "String IN ('jump', 'over it')",
      "String = 'the'", "String = 'zzz'", "String LIKE 'th%'", "String <> 'dog'", NULL}},
    {"int32_with_null_pages.parquet", NULL, true, false,
     {"int32_field > 2000000000", "int32_field < -2100000000", "int32_field IS NULL",
      "int32_field IS NOT NULL", "int32_field = 0", "int32_field BETWEEN -1000000 AND 1000000",
      NULL}},
    {"fixed_length_byte_array.parquet", NULL, false, false,
     {"flba_field IS NULL", "flba_field IS NOT NULL", "flba_field > 'a'", "flba_field < 'a'",
      NULL}},
};

static void corpus(ctx *c) {
    const char *testing = th_testing_dir();
    if (!testing) {
        fflush(stdout);
        TEST_SKIP_PART("corpus: parquet-testing not found (set PLANK_TESTING_DIR)");
        return;
    }
    for (size_t f = 0; f < sizeof CORPUS / sizeof CORPUS[0]; f++) {
        const corpus_file *cf = &CORPUS[f];
        char path[4096];
        snprintf(path, sizeof path, "%s/data/%s", testing, cf->name);
        plank_reader *rd = NULL;
        plank_error err;
        plank_error_init(&err);
        plank_status st = plank_reader_open_path(&rd, path, NULL, &err);
        CHECK_MSG(st == PLANK_OK, "%s: %s", path, err.message);
        if (st != PLANK_OK) continue;
        char label[300];
        snprintf(label, sizeof label, "parquet-testing %s", cf->name);
        c->label = label;
        c->schema_text = "(corpus file)";
        plank_scan_stats sum;
        plank_scan_stats_init(&sum);
        int n = 0;
        for (int p = 0; cf->preds[p]; p++, n++) {
            const char *text = cf->preds[p];
            sql_buf q = {0}, from = {0};
            from_parquet(&from, path, ", file_row_number = true");
            i64vec want = {0};
            scan_out o;
            plank_scan_options so;
            plank_scan_options_init(&so);
            c->t.cases++;
            if (cf->id) {
                sql_add(&q, "SELECT %s FROM %s WHERE %s ORDER BY file_row_number", cf->id, from.p,
                        text);
                const char *cols[1] = {cf->id};
                plank_rids(rd, text, &so, cols, 1, &o);
            } else {
                sql_add(&q, "SELECT file_row_number FROM %s WHERE %s ORDER BY file_row_number",
                        from.p, text);
                scan_out k;
                plank_count(rd, text, &k);
                memset(&o, 0, sizeof o);
                plank_scan_stats_init(&o.stats);
                o.st = k.st;
                snprintf(o.err, sizeof o.err, "%s", k.err);
                snprintf(o.where, sizeof o.where, "%s", k.where);
                for (int64_t i = 0; i < k.count; i++) vpush(&o.rids, i);
                /* The statistics of a full stream (count reads no projection). */
                scan_out s2 = {0};
                plank_scan *s = open_scan(rd, text, &so, NULL, 0, &s2);
                if (s) {
                    struct ArrowArrayStream stream;
                    if (plank_scan_arrow_stream(s, &stream, NULL) == PLANK_OK) {
                        struct ArrowArray a;
                        while (stream.get_next(&stream, &a) == 0 && a.release) a.release(&a);
                        plank_scan_get_stats(s, &o.stats);
                        stream.release(&stream);
                    }
                    plank_scan_close(s);
                }
                scan_out_free(&s2);
            }
            bool duck_ok = duck_list(c->dc, q.p, &want);
            CHECK_MSG(duck_ok, "%s: %s: %s", cf->name, text, c->dc->error);
            bool match;
            if (cf->id) {
                /* DuckDB gives the ids, plank too. */
                match = o.st == PLANK_OK && same(&want, &o.rids);
            } else {
                match = o.st == PLANK_OK && o.rids.n == want.n;
            }
            if (duck_ok && !match) {
                report_case(c, path, text, cf->id ? "corpus: ids differ" : "corpus: counts differ");
                if (o.st != PLANK_OK) fprintf(stderr, "    %s: %s\n", o.where, o.err);
                else fprintf(stderr, "    DuckDB %zu rows, plank %zu\n", want.n, o.rids.n);
                c->t.mismatches++;
                CHECK(false);
            }
            if (o.st == PLANK_OK) add_stats(&sum, &o.stats);
            if (!cf->id && duck_ok) compare_rows(c, rd, path, text);
            printf("corpus %s: [%s]: DuckDB %zu rows, plank %s\n", cf->name, text, want.n,
                   match ? "the same" : "DIFFERENT");
            scan_out_free(&o);
            free(want.v);
            free(q.p);
            free(from.p);
        }
        print_stats(cf->name, &sum);
        add_stats(&c->t.s, &sum);
        if (cf->want_page_pruning)
            CHECK_MSG(sum.pages_pruned_page_index > 0,
                      "%s: no page pruned by the page index over %d predicates",
                      cf->name, n);
        if (cf->want_bloom_pruning)
            CHECK_MSG(sum.row_groups_pruned_bloom > 0,
                      "%s: no row group pruned by the bloom filter over %d predicates",
                      cf->name, n);
        plank_reader_close(rd);
    }
}

/* ---- main ------------------------------------------------------------------------------------ */

/* Removes what the test wrote into dir, and dir. */
static void remove_files(const char *dir, int nfiles) {
    char p[4096];
    for (int i = 0; i < nfiles; i++) {
        snprintf(p, sizeof p, "%s/f%03d.parquet", dir, i);
        remove(p);
        snprintf(p, sizeof p, "%s/f%03d_duckdb.parquet", dir, i);
        remove(p);
    }
    for (int i = 0; i < LIE_N; i++) {
        snprintf(p, sizeof p, "%s/lie%d.parquet", dir, i);
        remove(p);
    }
    snprintf(p, sizeof p, "%s/honest.parquet", dir);
    remove(p);
    if (rmdir(dir) != 0) printf("note: %s not removed (files left in it)\n", dir);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void) {
    duck_api api;
    duck_conn dc;
    char why[4096];
    if (!duck_connect(&api, &dc, why, sizeof why)) TEST_SKIP("%s", why);

    ctx c;
    memset(&c, 0, sizeof c);
    c.dc = &dc;
    c.seed = DEFAULT_SEED;
    const char *env = getenv("PLANK_SCAN_SEED");
    if (env && *env) c.seed = strtoull(env, NULL, 0);
    int nfiles = 150, preds = 50;
    env = getenv("PLANK_SCAN_FILES");
    if (env && *env) nfiles = atoi(env);
    env = getenv("PLANK_SCAN_PREDICATES");
    if (env && *env) preds = atoi(env);
    char dir[] = "/tmp/plank_scan_diff.XXXXXX";
    if (!mkdtemp(dir)) TEST_SKIP("mkdtemp failed");
    printf("seed %llu (PLANK_SCAN_SEED), %d files x %d predicates, in %s\n",
           (unsigned long long)c.seed, nfiles, preds, dir);

    double t0 = now_s();
    generated_files(&c, dir, nfiles, preds);
    double t1 = now_s();
    printf("generated files: %ld files, %ld cases (%ld empty, %ld every row, %ld some rows), "
           "%ld with count and every pruning level off, %ld with whole rows compared, %ld "
           "expected errors, %ld DuckDB errors (not compared), %ld where DuckDB's read_parquet was "
           "wrong, %ld mismatches, %.1f s\n",
           c.t.files, c.t.cases, c.t.empty, c.t.full, c.t.partial, c.t.checked_count,
           c.t.checked_rows, c.t.errors_expected, c.t.duck_errors, c.t.duck_wrong,
           c.t.mismatches, t1 - t0);
    print_stats("scan statistics over the generated files (default options)", &c.t.s);
    CHECK_MSG(c.t.s.row_groups_pruned_statistics > 0, "no row group pruned by statistics");
    CHECK_MSG(c.t.s.pages_pruned_page_index > 0, "no page pruned by the page index");
    CHECK_MSG(c.t.s.row_groups_pruned_bloom > 0, "no row group pruned by a bloom filter");
    CHECK_MSG(c.t.s.dictionary_entries_evaluated > 0, "no dictionary entry evaluated");
    /* A column both filtered and projected is decoded once: the whole-row
     * comparisons above took such columns' values from the filter's. */
    printf("whole rows with filter values reused: %ld cases, %lld values\n", c.t.reused_rows,
           (long long)c.t.reused_values);
    CHECK_MSG(c.t.reused_rows > 0, "no whole-row case reused a filter column's values");
    /* Short runs of rows: the batch read whole and only its kept rows written
     * (dropped in the decoders of required columns, compacted after for others). */
    printf("whole rows read as bitmaps: %ld cases\n", c.t.masked_rows);
    CHECK_MSG(c.t.masked_rows > 0, "no whole-row case read a row group as a bitmap");
    /* DELTA_BINARY_PACKED runs outside a range or IN filter's interval were
     * passed over, and the rows above still matched DuckDB's. */
    printf("DELTA values passed over by their runs' ranges: %lld\n",
           (long long)c.t.s.values_skipped_delta);
    CHECK_MSG(c.t.s.values_skipped_delta > 0, "no DELTA run passed over");

    long before = c.t.mismatches;
    lying_files(&c, dir);
    double t2 = now_s();
    printf("lying metadata: %ld mismatches, %.1f s\n", c.t.mismatches - before, t2 - t1);
    before = c.t.mismatches;
    corpus(&c);
    printf("corpus: %ld mismatches, %.1f s\n", c.t.mismatches - before, now_s() - t2);
    printf("total: %ld cases, %ld mismatches, %.1f s (seed %llu)\n", c.t.cases, c.t.mismatches,
           now_s() - t0, (unsigned long long)c.seed);
    fflush(stdout);
    env = getenv("PLANK_SCAN_KEEP");
    if (env && *env == '1') printf("kept %s\n", dir);
    else remove_files(dir, nfiles);
    duck_close(&dc);
    TEST_END();
}
