/* test_scan.c: the pushdown scan against answers computed in the test.
 *
 * A file is written with plank's writer from values the test generates
 * (sorted and random columns of several types, nulls, NaN and -0.0, a
 * low-cardinality string column with a dictionary and a bloom filter,
 * several row groups of small pages with a page index). For each predicate
 * the test has its own evaluation of the same condition in C (three-valued
 * logic written out by hand per case), so the expected row ids come from
 * the generated values, not from plank. Every case is run with every
 * pruning level on, each one off, and pushdown off, through the stream
 * (the projected id column, in order) and the count. Two of the cases are
 * long IN lists in descending order (10,000 integers, 2,000 strings).
 *
 * Then: the pruning counters prove pruning happened where the data allows
 * it (sorted ids: row groups by statistics, pages by the page index; a
 * missing string: the bloom filter and the dictionary), errors name what
 * does not fit, the struct-size convention takes an older, smaller options
 * struct, the stream outlives the scan and the reader, and no allocation
 * failure leaks.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

#include "plank.h"
#include "tharness.h"

#define N 20000
#define RG_ROWS 3000
#define PAGE_ROWS 250

/* The generated values: column i of row r. */
typedef struct data {
    int64_t id[N];
    int32_t v[N];      /* random -1000..1000, 10% null */
    bool v_null[N];
    double d[N];       /* random, with NaN, -0.0, inf */
    char s[N][8];      /* one of 12 words */
    uint32_t u[N];     /* unsigned, up to UINT32_MAX */
    int32_t dec[N];    /* DECIMAL(9,2) unscaled */
    int32_t date[N];   /* sorted days */
    bool b[N];
} data;

static const char *WORDS[] = {"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK",
                              "apple", "banana", "", "zebra", "\xc3\xa9t\xc3\xa9"};
#define NWORDS 12

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void gen(data *x) {
    for (int64_t r = 0; r < N; r++) {
        x->id[r] = r;
        x->v_null[r] = next_rand() % 10 == 0;
        x->v[r] = (int32_t)(next_rand() % 2001) - 1000;
        uint64_t k = next_rand() % 100;
        x->d[r] = k == 0 ? NAN : k == 1 ? -0.0 : k == 2 ? INFINITY : k == 3 ? 0.0
                                                 : (double)((int64_t)(next_rand() % 20001) - 10000) / 8;
        snprintf(x->s[r], sizeof x->s[r], "%s", WORDS[next_rand() % NWORDS]);
        x->u[r] = k < 5 ? UINT32_MAX - (uint32_t)k : (uint32_t)(next_rand() % 5000000000ull);
        x->dec[r] = (int32_t)(next_rand() % 200001) - 100000;
        x->date[r] = 8000 + (int32_t)(r / 10);
        x->b[r] = next_rand() & 1;
    }
}

/* fallback: dictionaries fall back to PLAIN after a few entries, so string
 * chunks hold dictionary pages and plain pages (codes and values mixed in
 * one batch). */
/* Variants of the file: 0 the writer's encodings, 1 dictionaries falling back to PLAIN
 * mid-chunk, 2 no dictionaries and DELTA / BYTE_STREAM_SPLIT encodings (s
 * DELTA_LENGTH_BYTE_ARRAY, w DELTA_BYTE_ARRAY, id and u DELTA_BINARY_PACKED, d
 * BYTE_STREAM_SPLIT). */
enum { PLAIN_FILE, FALLBACK_FILE, DELTA_FILE };

static plank_status write_file(const char *path, const data *x, int variant, plank_error *err) {
    bool fallback = variant == FALLBACK_FILE;
    plank_schema_field f[10];
    for (int i = 0; i < 10; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 9;
    const char *names[] = {"id", "v", "d", "s", "u", "dec", "date", "b", "w"};
    plank_physical_type types[] = {PLANK_INT64, PLANK_INT32, PLANK_DOUBLE, PLANK_BYTE_ARRAY,
                                   PLANK_INT32, PLANK_INT32, PLANK_INT32, PLANK_BOOLEAN,
                                   PLANK_BYTE_ARRAY};
    for (int i = 0; i < 9; i++) {
        f[i + 1].name = names[i];
        f[i + 1].physical_type = types[i];
        f[i + 1].repetition = i == 1 ? PLANK_OPTIONAL : PLANK_REQUIRED;
    }
    f[4].logical.kind = PLANK_LOGICAL_STRING;
    f[9].logical.kind = PLANK_LOGICAL_STRING;
    f[5].logical.kind = PLANK_LOGICAL_INTEGER;
    f[5].logical.bit_width = 32;
    f[5].logical.is_signed = false;
    f[6].logical.kind = PLANK_LOGICAL_DECIMAL;
    f[6].logical.precision = 9;
    f[6].logical.scale = 2;
    f[7].logical.kind = PLANK_LOGICAL_DATE;
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.row_group_rows = RG_ROWS;
    o.page_rows = PAGE_ROWS;
    o.codec = PLANK_CODEC_UNCOMPRESSED;
    if (fallback) o.dictionary_page_size = 24;
    plank_column_options co[5];
    plank_column_options_init(&co[0]);
    co[0].path = "s";
    co[0].bloom_filter = true;
    /* w: the same words without a dictionary, to filter on plain values. */
    plank_column_options_init(&co[1]);
    co[1].path = "w";
    co[1].dictionary = 0;
    o.columns = co;
    o.num_column_options = 2;
    if (variant == DELTA_FILE) {
        static const char *paths[] = {"id", "u", "d"};
        static const int32_t encs[] = {PLANK_ENC_DELTA_BINARY_PACKED,
                                       PLANK_ENC_DELTA_BINARY_PACKED,
                                       PLANK_ENC_BYTE_STREAM_SPLIT};
        co[0].dictionary = 0;
        co[0].encoding = PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY;
        co[1].encoding = PLANK_ENC_DELTA_BYTE_ARRAY;
        for (int i = 0; i < 3; i++) {
            plank_column_options_init(&co[2 + i]);
            co[2 + i].path = paths[i];
            co[2 + i].dictionary = 0;
            co[2 + i].encoding = encs[i];
        }
        o.num_column_options = 5;
    }
    plank_writer *w;
    plank_status st = plank_writer_open_path(&w, path, f, 10, &o, err);
    if (st != PLANK_OK) return st;
    int64_t *offs = malloc((N + 1) * sizeof *offs);
    char *sdata = malloc(N * 8);
    uint8_t *vvalid = calloc(N / 8 + 1, 1), *bits = calloc(N / 8 + 1, 1);
    int64_t pos = 0;
    for (int64_t r = 0; r < N; r++) {
        offs[r] = pos;
        size_t l = strlen(x->s[r]);
        memcpy(sdata + pos, x->s[r], l);
        pos += (int64_t)l;
        if (!x->v_null[r]) vvalid[r / 8] |= (uint8_t)(1u << (r % 8));
        if (x->b[r]) bits[r / 8] |= (uint8_t)(1u << (r % 8));
    }
    offs[N] = pos;
    plank_batch b[9];
    memset(b, 0, sizeof b);
    for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
    for (int i = 0; i < 9; i++) b[i].length = N;
    b[0].values = x->id;
    b[1].values = x->v;
    b[1].validity = vvalid;
    b[2].values = x->d;
    b[3].offsets = offs;
    b[3].data = (const uint8_t *)sdata;
    b[4].values = x->u;
    b[5].values = x->dec;
    b[6].values = x->date;
    b[7].values = bits;
    b[8] = b[3];
    st = plank_writer_write_rows(w, b, N, err);
    free(offs);
    free(sdata);
    free(vvalid);
    free(bits);
    if (st != PLANK_OK) {
        plank_writer_abort(w);
        return st;
    }
    return plank_writer_close(w, err);
}

/* ---- Cases: text and the test's own evaluation (1 TRUE, 0 FALSE, -1 NULL) ---- */

typedef int (*row_pred)(const data *x, int64_t r);

static int tv(bool b) { return b ? 1 : 0; }
static int and3(int a, int b) { return (a == 0 || b == 0) ? 0 : (a == 1 && b == 1) ? 1 : -1; }
static int or3(int a, int b) { return (a == 1 || b == 1) ? 1 : (a == 0 && b == 0) ? 0 : -1; }
static int not3(int a) { return a < 0 ? -1 : !a; }
/* DuckDB's double order: NaN above everything and equal to itself. */
static int dcmp(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) == isnan(b) ? 0 : isnan(a) ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
}

static int p_id_range(const data *x, int64_t r) { return tv(x->id[r] >= 5000 && x->id[r] <= 5100); }
static int p_id_point(const data *x, int64_t r) { return tv(x->id[r] == 7777); }
static int p_v_lt(const data *x, int64_t r) { return x->v_null[r] ? -1 : tv(x->v[r] < -990); }
static int p_v_null(const data *x, int64_t r) { return tv(x->v_null[r]); }
static int p_v_not_null_and(const data *x, int64_t r) {
    return and3(tv(!x->v_null[r]), tv(x->date[r] >= 9000));
}
static int p_v_not_in(const data *x, int64_t r) {
    if (x->v_null[r]) return -1;
    return tv(!(x->v[r] == 1 || x->v[r] == 2 || x->v[r] == 3));
}
static int p_v_in_null(const data *x, int64_t r) {
    /* v IN (5, NULL): TRUE when 5, else NULL. */
    if (x->v_null[r]) return -1;
    return x->v[r] == 5 ? 1 : -1;
}
static int p_v_not_in_null(const data *x, int64_t r) { return not3(p_v_in_null(x, r)); }
static int p_d_gt(const data *x, int64_t r) { return tv(dcmp(x->d[r], 1000.0) > 0); }
static int p_d_eq0(const data *x, int64_t r) { return tv(dcmp(x->d[r], 0.0) == 0); }
static int p_d_ne(const data *x, int64_t r) { return tv(dcmp(x->d[r], 12.5) != 0); }
static int p_d_le(const data *x, int64_t r) { return tv(dcmp(x->d[r], -1.25) <= 0); }
static int p_s_in(const data *x, int64_t r) {
    return tv(strcmp(x->s[r], "MAIL") == 0 || strcmp(x->s[r], "SHIP") == 0);
}
static int p_s_absent(const data *x, int64_t r) { return tv(strcmp(x->s[r], "MAILX") == 0); }
static int p_s_prefix(const data *x, int64_t r) { return tv(strncmp(x->s[r], "RE", 2) == 0); }
static int p_s_range(const data *x, int64_t r) {
    return tv(strcmp(x->s[r], "B") > 0 && strcmp(x->s[r], "S") <= 0);
}
static int p_s_empty(const data *x, int64_t r) { return tv(x->s[r][0] == 0); }
static int p_s_not_like(const data *x, int64_t r) { return tv(strncmp(x->s[r], "\xc3\xa9", 2) != 0); }
static int p_u_big(const data *x, int64_t r) { return tv(x->u[r] > 4000000000u); }
static int p_u_lt(const data *x, int64_t r) { return tv(x->u[r] < 1000); }
static int p_dec(const data *x, int64_t r) { return tv(x->dec[r] >= 12345 && x->dec[r] < 12400); }
static int p_dec_frac(const data *x, int64_t r) { return tv(x->dec[r] * 10 > 55555); /* > 55.555 */ }
static int p_dec_eq_frac(const data *x, int64_t r) { (void)x; (void)r; return 0; /* = 1.005 */ }
static int p_dec_int(const data *x, int64_t r) { return tv(x->dec[r] <= 700); /* <= 7 */ }
static int p_dec_dbl(const data *x, int64_t r) { return tv((double)x->dec[r] / 100 < 0.1); }
static int p_date(const data *x, int64_t r) {
    return tv(x->date[r] >= 8766 && x->date[r] < 8766 + 365);
}
static int p_ts_vs_date(const data *x, int64_t r) {
    /* date < TIMESTAMP '1994-01-01 12:00:00': days <= 8766 */
    return tv(x->date[r] <= 8766);
}
static int p_date_str(const data *x, int64_t r) { return tv(x->date[r] == 8800); }
static int p_bool(const data *x, int64_t r) { return tv(x->b[r]); }
static int p_not_bool(const data *x, int64_t r) { return tv(!x->b[r]); }
static int p_colcmp(const data *x, int64_t r) {
    return x->v_null[r] ? -1 : tv((int64_t)x->v[r] * 100 < (int64_t)x->dec[r]);
}
static int p_or_cols(const data *x, int64_t r) {
    int a = tv(x->id[r] < 100);
    int b = x->v_null[r] ? -1 : tv(x->v[r] > 995);
    return or3(a, b);
}
static int p_not_or(const data *x, int64_t r) {
    return not3(or3(x->v_null[r] ? -1 : tv(x->v[r] > 0), tv(strcmp(x->s[r], "AIR") == 0)));
}
static int p_w_plain(const data *x, int64_t r) {
    return tv(strcmp(x->s[r], "TRUCK") == 0 || strcmp(x->s[r], "zebra") == 0);
}
static int p_true(const data *x, int64_t r) { (void)x; (void)r; return 1; }
static int p_null(const data *x, int64_t r) { (void)x; (void)r; return -1; }
static int p_int_vs_double(const data *x, int64_t r) {
    return x->v_null[r] ? -1 : tv((double)x->v[r] >= 2.5);
}
static int p_v_eq_frac(const data *x, int64_t r) {
    /* v = 2.5: never TRUE; NOT (v = 2.5): TRUE for every non-null v. */
    return x->v_null[r] ? -1 : 1;
}
static int p_and_mixed(const data *x, int64_t r) {
    int a = tv(x->date[r] >= 9500);
    int b = x->v_null[r] ? -1 : tv(x->v[r] >= 0);
    int c = tv(strcmp(x->s[r], "RAIL") != 0);
    return and3(and3(a, b), c);
}

typedef struct scase {
    const char *text;
    row_pred pred;
} scase;

static const scase CASES[] = {
    {"id BETWEEN 5000 AND 5100", p_id_range},
    {"id = 7777", p_id_point},
    {"v < -990", p_v_lt},
    {"v IS NULL", p_v_null},
    {"v IS NOT NULL AND date >= DATE '1994-08-23'", p_v_not_null_and},
    {"v NOT IN (1, 2, 3)", p_v_not_in},
    {"v IN (5, NULL)", p_v_in_null},
    {"v NOT IN (5, NULL)", p_v_not_in_null},
    {"d > 1000.0e0", p_d_gt},
    {"d = 0", p_d_eq0},
    {"d <> 12.5", p_d_ne},
    {"d <= -1.25", p_d_le},
    {"s IN ('MAIL', 'SHIP')", p_s_in},
    {"s = 'MAILX'", p_s_absent},
    {"s LIKE 'RE%'", p_s_prefix},
    {"s > 'B' AND s <= 'S'", p_s_range},
    {"s = ''", p_s_empty},
    {"s NOT LIKE '\xc3\xa9%'", p_s_not_like},
    {"u > 4000000000", p_u_big},
    {"u < 1000", p_u_lt},
    {"dec >= 123.45 AND dec < 124", p_dec},
    {"dec > 55.555", p_dec_frac},
    {"dec = 1.005", p_dec_eq_frac},
    {"dec <= 7", p_dec_int},
    {"dec < 0.1e0", p_dec_dbl},
    {"date >= DATE '1994-01-01' AND date < DATE '1995-01-01'", p_date},
    {"date < TIMESTAMP '1994-01-01 12:00:00'", p_ts_vs_date},
    {"date = '1994-02-04'", p_date_str},
    {"b", p_bool},
    {"NOT b", p_not_bool},
    {"b = FALSE", p_not_bool},
    {"v * 1 < dec", NULL}, /* not in the grammar: a syntax error */
    {"dec > v", p_colcmp},
    {"id < 100 OR v > 995", p_or_cols},
    {"NOT (v > 0 OR s = 'AIR')", p_not_or},
    {"w IN ('TRUCK', 'zebra')", p_w_plain},
    {"TRUE", p_true},
    {"v = NULL", p_null},
    {"v >= 2.5e0", p_int_vs_double},
    {"NOT (v = 2.5)", p_v_eq_frac},
    {"date >= DATE '1996-01-05' AND v >= 0 AND s != 'RAIL'", p_and_mixed},
};
#define NCASES (int)(sizeof CASES / sizeof CASES[0])

/* The matching ids of a scan (the stream of the projected id column). */
static plank_status scan_ids(plank_reader *r, const plank_expr *e, const plank_scan_options *base,
                             int64_t *ids, int64_t *n, int64_t *count, plank_scan_stats *stats,
                             plank_error *err) {
    plank_scan_options o = *base;
    o.filter = e;
    const char *cols[] = {"id"};
    o.columns = cols;
    o.num_columns = 1;
    plank_scan *s;
    plank_status st = plank_scan_open(&s, r, &o, err);
    if (st != PLANK_OK) return st;
    struct ArrowArrayStream stream;
    st = plank_scan_arrow_stream(s, &stream, err);
    if (st != PLANK_OK) {
        plank_scan_close(s);
        return st;
    }
    *n = 0;
    for (;;) {
        struct ArrowArray a;
        if (stream.get_next(&stream, &a) != 0) {
            snprintf(err->message, sizeof err->message, "%s", stream.get_last_error(&stream));
            st = PLANK_ERR_CORRUPT;
            break;
        }
        if (!a.release) break;
        const struct ArrowArray *c = a.children[0];
        const int64_t *v = (const int64_t *)c->buffers[1] + c->offset;
        for (int64_t i = 0; i < c->length && *n < N; i++) ids[(*n)++] = v[i];
        a.release(&a);
    }
    stream.release(&stream);
    if (stats) {
        plank_scan_stats_init(stats);
        plank_scan_get_stats(s, stats);
    }
    plank_scan_close(s);
    if (st != PLANK_OK || !count) return st;
    /* The count of a second scan. */
    st = plank_scan_open(&s, r, &o, err);
    if (st == PLANK_OK) st = plank_scan_count(s, count, err);
    plank_scan_close(s);
    return st;
}

/* What the cases pruned at each level, summed over them (mode 0). */
typedef struct pruned {
    int64_t rg_stats, pages, dict, bloom;
} pruned;

/* One case: its rows and count in each mode equal the oracle's. */
static void run_case(plank_reader *r, const data *x, const scase *c, int64_t *ids, int64_t *want,
                     pruned *pr) {
    {
        plank_expr *e = NULL;
        plank_error err;
        plank_status st = plank_expr_parse(c->text, NULL, &e, &err);
        if (!c->pred) {
            CHECK_MSG(st == PLANK_ERR_INVALID_ARGUMENT, "%s: %d", c->text, (int)st);
            CHECK(strstr(err.message, "at ") != NULL);
            plank_expr_free(e);
            return;
        }
        CHECK_MSG(st == PLANK_OK, "%.200s: %s", c->text, err.message);
        if (st != PLANK_OK) return;
        int64_t nw = 0;
        for (int64_t i = 0; i < N; i++)
            if (c->pred(x, i) == 1) want[nw++] = i;
        /* 0: everything on; 1-4: one level off; 5: pushdown off. */
        for (int mode = 0; mode < 6; mode++) {
            plank_scan_options o;
            plank_scan_options_init(&o);
            if (mode == 1) o.use_statistics = false;
            if (mode == 2) o.use_bloom_filters = false;
            if (mode == 3) o.use_page_index = false;
            if (mode == 4) o.use_dictionaries = false;
            if (mode == 5) o.pushdown = false;
            int64_t n = 0, cnt = -1;
            plank_scan_stats ss;
            st = scan_ids(r, e, &o, ids, &n, &cnt, &ss, &err);
            CHECK_MSG(st == PLANK_OK, "%.200s (mode %d): %s", c->text, mode, err.message);
            if (st != PLANK_OK) continue;
            bool same = n == nw;
            for (int64_t i = 0; i < n && same; i++) same = ids[i] == want[i];
            CHECK_MSG(same, "%.200s (mode %d): %lld rows, expected %lld", c->text, mode,
                      (long long)n, (long long)nw);
            CHECK_MSG(cnt == nw, "%.200s (mode %d): count %lld, expected %lld", c->text, mode,
                      (long long)cnt, (long long)nw);
            CHECK_EQ_I64(ss.rows_matched, nw);
            CHECK_EQ_I64(ss.rows, N);
            if (mode == 0) {
                pr->rg_stats += ss.row_groups_pruned_statistics;
                pr->pages += ss.pages_pruned_page_index;
                pr->dict += ss.dictionary_entries_evaluated;
                pr->bloom += ss.row_groups_pruned_bloom;
            }
            if (mode == 5) {
                CHECK_EQ_I64(ss.row_groups_pruned_statistics, 0);
                CHECK_EQ_I64(ss.pages_pruned_page_index, 0);
            }
        }
        plank_expr_free(e);
    }
}

/* Long IN lists, in descending order: every odd id (10,000 integers) and
 * 2,000 strings of which two are words of the data. The binder sorts them
 * (a heapsort: an insertion sort was quadratic) and strings past 16 keys
 * are found by binary search. */
static int p_id_odd(const data *x, int64_t r) { return tv(x->id[r] % 2 == 1); }
static int p_s_long_in(const data *x, int64_t r) {
    return tv(strcmp(x->s[r], "zebra") == 0 || strcmp(x->s[r], "MAIL") == 0);
}

static char *long_in_text(bool strings) {
    size_t cap = 1 << 18, len = 0;
    char *t = malloc(cap);
    if (!t) abort();
    len += (size_t)snprintf(t + len, cap - len, "%s IN (", strings ? "s" : "id");
    int n = strings ? 2000 : 10000;
    for (int i = n - 1; i >= 0; i--) {
        const char *sep = i == n - 1 ? "" : ", ";
        if (!strings) len += (size_t)snprintf(t + len, cap - len, "%s%d", sep, 2 * i + 1);
        else if (i == 1500) len += (size_t)snprintf(t + len, cap - len, "%s'zebra'", sep);
        else if (i == 700) len += (size_t)snprintf(t + len, cap - len, "%s'MAIL'", sep);
        else len += (size_t)snprintf(t + len, cap - len, "%s'w%05dx'", sep, i);
    }
    snprintf(t + len, cap - len, ")");
    return t;
}

static void run_cases(plank_reader *r, const data *x) {
    int64_t *ids = malloc(N * sizeof *ids), *want = malloc(N * sizeof *want);
    pruned pr = {0, 0, 0, 0};
    for (int k = 0; k < NCASES; k++) run_case(r, x, &CASES[k], ids, want, &pr);
    for (int strings = 0; strings < 2; strings++) {
        char *text = long_in_text(strings);
        scase c = {text, strings ? p_s_long_in : p_id_odd};
        run_case(r, x, &c, ids, want, &pr);
        free(text);
    }
    fprintf(stderr, "cases: %d predicates x 6 modes; pruned: %lld row groups by statistics, "
            "%lld by bloom filters, %lld pages by the page index; %lld dictionary entries "
            "evaluated\n", NCASES + 2, (long long)pr.rg_stats, (long long)pr.bloom,
            (long long)pr.pages, (long long)pr.dict);
    CHECK(pr.rg_stats > 0);
    CHECK(pr.pages > 0);
    CHECK(pr.dict > 0);
    CHECK(pr.bloom > 0);
    free(ids);
    free(want);
}

/* ---- DELTA_BINARY_PACKED runs passed over (the DELTA file: id sorted) ---- */

static int p_id_in2(const data *x, int64_t r) { return tv(x->id[r] == 7777 || x->id[r] == 7790); }
static int p_id_and_v(const data *x, int64_t r) {
    return and3(tv(x->id[r] >= 3000 && x->id[r] < 3100), x->v_null[r] ? -1 : tv(x->v[r] > 0));
}
static int p_not_id_range(const data *x, int64_t r) { return not3(p_id_range(x, r)); }

/* Statistics and page index off, so that whole chunks of id are read: a
 * range, IN or conjunction on id must pass over the DELTA runs outside it
 * (values_skipped_delta) and still return exactly the matching rows; a
 * negation or a disjunction confines nothing and passes over none. */
static void check_delta_skips(plank_reader *r, const data *x) {
    static const struct {
        const char *text;
        row_pred pred;
        int64_t min_skipped; /* -1: none may be skipped */
    } cs[] = {
        {"id BETWEEN 5000 AND 5100", p_id_range, N - 1000},
        {"id IN (7777, 7790)", p_id_in2, N - 1000},
        {"id >= 3000 AND id < 3100 AND v > 0", p_id_and_v, N - 1000},
        {"NOT (id BETWEEN 5000 AND 5100)", p_not_id_range, -1},
        {"id < 100 OR v > 995", p_or_cols, -1},
    };
    int64_t *ids = malloc(N * sizeof *ids), *want = malloc(N * sizeof *want);
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        plank_expr *e = NULL;
        plank_error err;
        CHECK(plank_expr_parse(cs[k].text, NULL, &e, &err) == PLANK_OK);
        int64_t nw = 0;
        for (int64_t i = 0; i < N; i++)
            if (cs[k].pred(x, i) == 1) want[nw++] = i;
        for (int mode = 0; mode < 2; mode++) {
            plank_scan_options o;
            plank_scan_options_init(&o);
            o.use_statistics = o.use_page_index = mode == 1;
            int64_t n = 0, cnt = -1;
            plank_scan_stats ss;
            plank_status st = scan_ids(r, e, &o, ids, &n, &cnt, &ss, &err);
            CHECK_MSG(st == PLANK_OK, "%s: %s", cs[k].text, err.message);
            bool same = n == nw && cnt == nw;
            for (int64_t i = 0; i < n && same; i++) same = ids[i] == want[i];
            CHECK_MSG(same, "%s (mode %d): %lld rows, count %lld, expected %lld", cs[k].text,
                      mode, (long long)n, (long long)cnt, (long long)nw);
            if (cs[k].min_skipped < 0)
                CHECK_MSG(ss.values_skipped_delta == 0, "%s: %lld values passed over",
                          cs[k].text, (long long)ss.values_skipped_delta);
            else if (mode == 0)
                CHECK_MSG(ss.values_skipped_delta >= cs[k].min_skipped,
                          "%s: %lld values passed over, expected at least %lld", cs[k].text,
                          (long long)ss.values_skipped_delta, (long long)cs[k].min_skipped);
            else
                CHECK_MSG(ss.values_skipped_delta > 0, "%s (page index on): none passed over",
                          cs[k].text);
        }
        plank_expr_free(e);
    }
    free(ids);
    free(want);
}

/* ---- Pruning counters of specific predicates ---- */

static void check_stats(plank_reader *r, const char *text, void (*fn)(const plank_scan_stats *)) {
    plank_expr *e;
    plank_error err;
    CHECK(plank_expr_parse(text, NULL, &e, &err) == PLANK_OK);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    plank_scan *s;
    int64_t n;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
    CHECK(plank_scan_count(s, &n, &err) == PLANK_OK);
    plank_scan_stats ss;
    plank_scan_stats_init(&ss);
    plank_scan_get_stats(s, &ss);
    fn(&ss);
    char buf[2048];
    size_t len = plank_scan_explain(s, buf, sizeof buf);
    CHECK(len > 0 && len == strlen(buf));
    CHECK(strstr(buf, "step 1") != NULL);
    plank_scan_close(s);
    plank_expr_free(e);
}

static void st_point(const plank_scan_stats *s) {
    /* 7 row groups of 3000 rows; id = 7777 lives in one, in one page. */
    CHECK_EQ_I64(s->row_groups, (N + RG_ROWS - 1) / RG_ROWS);
    CHECK_EQ_I64(s->row_groups_pruned_statistics, s->row_groups - 1);
    CHECK_EQ_I64(s->rows_candidate, PAGE_ROWS);
    CHECK_EQ_I64(s->pages_pruned_page_index, RG_ROWS / PAGE_ROWS - 1);
    CHECK_EQ_I64(s->rows_matched, 1);
    CHECK(s->bytes_not_read > 0);
}

static void st_absent(const plank_scan_stats *s) {
    /* 'MAILX' is inside every chunk's [min, max]: only the bloom filter
     * (or the dictionary) can rule it out. */
    CHECK_EQ_I64(s->row_groups_pruned_statistics, 0);
    CHECK_EQ_I64(s->row_groups_pruned_bloom, s->row_groups);
    CHECK_EQ_I64(s->rows_matched, 0);
}

static void st_dict(const plank_scan_stats *s) {
    CHECK(s->dictionary_entries_evaluated > 0);
    CHECK_EQ_I64(s->row_groups_pruned_dictionary, s->row_groups);
    CHECK_EQ_I64(s->rows_matched, 0);
}

/* The point lookup through the stream, every column projected: at most two
 * pages decoded per column (its dictionary and the one data page holding
 * the row), counting the filter column's own read, and the others passed
 * over. */
static void check_point_pages(plank_reader *r) {
    plank_expr *e;
    plank_error err;
    CHECK(plank_expr_parse("id = 7777", NULL, &e, &err) == PLANK_OK);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    plank_scan *s;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
    struct ArrowArrayStream st;
    CHECK(plank_scan_arrow_stream(s, &st, &err) == PLANK_OK);
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray a;
        CHECK(st.get_next(&st, &a) == 0);
        if (!a.release) break;
        rows += a.length;
        a.release(&a);
    }
    CHECK_EQ_I64(rows, 1);
    plank_scan_stats ss;
    plank_scan_stats_init(&ss);
    plank_scan_get_stats(s, &ss);
    int32_t nc = plank_reader_num_columns(r);
    CHECK_MSG(ss.pages_decoded <= 2 * (nc + 1), "%lld pages decoded for %d columns",
              (long long)ss.pages_decoded, (int)nc);
    CHECK(ss.pages_skipped > 0);
    st.release(&st);
    plank_scan_close(s);
    plank_expr_free(e);
}

static void check_pruning(plank_reader *r) {
    check_stats(r, "id = 7777", st_point);
    check_point_pages(r);
    check_stats(r, "s = 'MAILX'", st_absent);
    /* Without the bloom filter level, the dictionary rejects every entry. */
    plank_expr *e;
    plank_error err;
    CHECK(plank_expr_parse("s = 'MAILX' OR s = 'MAILY'", NULL, &e, &err) == PLANK_OK);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    o.use_bloom_filters = false;
    plank_scan *s;
    int64_t n = -1;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
    CHECK(plank_scan_count(s, &n, &err) == PLANK_OK);
    CHECK_EQ_I64(n, 0);
    plank_scan_stats ss;
    plank_scan_stats_init(&ss);
    plank_scan_get_stats(s, &ss);
    st_dict(&ss);
    /* A second run of one scan is refused. */
    CHECK(plank_scan_count(s, &n, &err) == PLANK_ERR_INVALID_ARGUMENT);
    plank_scan_close(s);
    plank_expr_free(e);
}

/* ---- Errors and the API's conventions ---- */

static void expect_bind_error(plank_reader *r, const char *text, plank_status code,
                              const char *needle) {
    plank_expr *e;
    plank_error err;
    CHECK(plank_expr_parse(text, NULL, &e, &err) == PLANK_OK);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    plank_scan *s = (plank_scan *)1;
    plank_status st = plank_scan_open(&s, r, &o, &err);
    CHECK_MSG(st == code, "%s: %d (%s)", text, (int)st, err.message);
    CHECK(s == NULL);
    CHECK_MSG(strstr(err.message, needle) != NULL, "%s: message \"%s\"", text, err.message);
    plank_expr_free(e);
}

/* plank_scan_options as a caller compiled before the pruning switches
 * existed would have it. */
/* The options and statistics as a newer plank would have them: the
 * current fields and one appended (the library must ignore it). */
typedef struct newer_scan_options {
    plank_scan_options o;
    int64_t appended;
} newer_scan_options;
typedef struct newer_scan_stats {
    plank_scan_stats s;
    int64_t appended;
} newer_scan_stats;

static void check_api(plank_reader *r) {
    expect_bind_error(r, "v = 'abc'", PLANK_ERR_INVALID_ARGUMENT, "\"v\"");
    expect_bind_error(r, "s < 3", PLANK_ERR_INVALID_ARGUMENT, "\"s\"");
    expect_bind_error(r, "nope = 1", PLANK_ERR_INVALID_ARGUMENT, "nope");
    expect_bind_error(r, "d LIKE 'a%'", PLANK_ERR_INVALID_ARGUMENT, "LIKE");
    expect_bind_error(r, "v", PLANK_ERR_INVALID_ARGUMENT, "boolean");
    expect_bind_error(r, "date = 'not a date'", PLANK_ERR_INVALID_ARGUMENT, "not a date");
    expect_bind_error(r, "s = v", PLANK_ERR_INVALID_ARGUMENT, "types differ");
    expect_bind_error(r, "b = 1", PLANK_ERR_INVALID_ARGUMENT, "\"b\"");

    /* A newer caller's larger structs: what this build does not know is
     * ignored on the way in and left alone on the way out. (Older, smaller
     * layouts are tested on synthetic layouts in test_struct_size: 0.1 is
     * the first layout of every struct.) */
    plank_expr *e;
    plank_error err;
    CHECK(plank_expr_parse("id < 10", NULL, &e, &err) == PLANK_OK);
    newer_scan_options newer;
    plank_scan_options_init(&newer.o);
    newer.o.struct_size = sizeof newer;
    newer.o.filter = e;
    newer.appended = -7;
    plank_scan *s;
    int64_t n = -1;
    CHECK(plank_scan_open(&s, r, &newer.o, &err) == PLANK_OK);
    CHECK(plank_scan_count(s, &n, &err) == PLANK_OK);
    CHECK_EQ_I64(n, 10);
    newer_scan_stats ns;
    plank_scan_stats_init(&ns.s);
    ns.s.struct_size = sizeof ns;
    ns.appended = 12345;
    plank_scan_get_stats(s, &ns.s);
    CHECK(ns.s.row_groups_pruned_statistics > 0); /* the default: statistics on */
    CHECK_EQ_I64(ns.s.row_groups, (N + RG_ROWS - 1) / RG_ROWS);
    CHECK_EQ_I64(ns.appended, 12345);
    /* A stats struct smaller than any layout: nothing is written. */
    struct { size_t struct_size; int64_t row_groups; int64_t guard; } small = {
        sizeof(size_t) + sizeof(int64_t), -1, 12345};
    plank_scan_get_stats(s, (plank_scan_stats *)(void *)&small);
    CHECK_EQ_I64(small.row_groups, -1);
    CHECK_EQ_I64(small.guard, 12345);
    plank_scan_close(s);
    /* Options smaller than the first layout: refused, naming the struct. */
    plank_scan_options shorter;
    plank_scan_options_init(&shorter);
    shorter.struct_size = offsetof(plank_scan_options, num_row_groups);
    CHECK(plank_scan_open(&s, r, &shorter, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "plank_scan_options.struct_size") != NULL);
    /* struct_size not set: refused. */
    plank_scan_options bad;
    memset(&bad, 0, sizeof bad);
    CHECK(plank_scan_open(&s, r, &bad, &err) == PLANK_ERR_INVALID_ARGUMENT);
    /* Unknown projected column. */
    plank_scan_options o;
    plank_scan_options_init(&o);
    const char *cols[] = {"id", "zzz"};
    o.columns = cols;
    o.num_columns = 2;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "zzz") != NULL);
    plank_expr_free(e);
}

/* A scan of `text` over r (arrow options ao, projection cols: NULL for
 * every column) and its stream in *st; *e is the parsed filter, freed by
 * the caller after closing the scan. */
static plank_scan *open_stream(plank_reader *r, const char *text, const plank_arrow_options *ao,
                               const char *const *cols, int ncols, plank_expr **e,
                               struct ArrowArrayStream *st) {
    plank_error err;
    CHECK(plank_expr_parse(text, NULL, e, &err) == PLANK_OK);
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = *e;
    so.arrow = ao;
    so.columns = cols;
    so.num_columns = ncols;
    plank_scan *s = NULL;
    CHECK(plank_scan_open(&s, r, &so, &err) == PLANK_OK);
    CHECK(plank_scan_arrow_stream(s, st, &err) == PLANK_OK);
    return s;
}

/* String slot i of a string array (plain, large, or dictionary-encoded). */
static bool arrow_str(const struct ArrowArray *c, bool large, int64_t i, const char **p,
                      int64_t *len) {
    if (c->dictionary) {
        i = ((const int32_t *)c->buffers[1])[c->offset + i];
        c = c->dictionary;
    }
    i += c->offset;
    int64_t a = large ? ((const int64_t *)c->buffers[1])[i] : ((const int32_t *)c->buffers[1])[i];
    int64_t b = large ? ((const int64_t *)c->buffers[1])[i + 1]
                      : ((const int32_t *)c->buffers[1])[i + 1];
    *p = (const char *)c->buffers[2] + a;
    *len = b - a;
    return true;
}

static bool arrow_bit(const void *bits, int64_t i) {
    return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

/* A selection of short runs (b, v and d are random) projected by reading
 * every row and compacting the batches by the survivors' bitmap: every
 * column of the file (int64, nullable int32, double, dictionary and plain
 * strings, uint32, decimal, date, boolean) checked against the data, with
 * plain, large-offset and dictionary string arrays, zero copy on and off. */
static void check_masked_rows(plank_reader *r, const data *x) {
    /* the last keeps whole 64-row words among short runs in one batch */
    static const char *texts[] = {"b", "v > 0 OR d < 0", "NOT b AND s IN ('AIR', 'MAIL', '')",
                                  "v IS NULL OR b",
                                  "id < 3500 OR (id > 9000 AND b) OR id BETWEEN 12100 AND 12400"};
    for (int mode = 0; mode < 3; mode++) {
        for (size_t q = 0; q < sizeof texts / sizeof texts[0]; q++) {
            plank_arrow_options ao;
            plank_arrow_options_init(&ao);
            ao.batch_rows = 1000 + 777 * mode; /* batches off the bitmap's bytes */
            ao.dictionary_arrays = mode == 1;
            ao.large_offsets = mode == 1;
            ao.zero_copy = mode == 2;
            plank_expr *e;
            struct ArrowArrayStream st;
            plank_scan *s = open_stream(r, texts[q], &ao, NULL, 0, &e, &st);
            int64_t row = 0, got = 0, bad = 0, want = 0;
            for (int64_t i = 0; i < N; i++) {
                bool vn = x->v_null[i];
                want += q == 0   ? x->b[i]
                        : q == 1 ? (!vn && x->v[i] > 0) || x->d[i] < 0
                        : q == 2 ? !x->b[i] && (!strcmp(x->s[i], "AIR") ||
                                                !strcmp(x->s[i], "MAIL") || !x->s[i][0])
                        : q == 3 ? vn || x->b[i]
                                 : i < 3500 || (i > 9000 && x->b[i]) || (i >= 12100 && i <= 12400);
            }
            for (;;) {
                struct ArrowArray b;
                CHECK(st.get_next(&st, &b) == 0);
                if (!b.release) break;
                CHECK(b.n_children == 9);
                struct ArrowArray *const *c = b.children;
                for (int64_t i = 0; i < b.length; i++, got++) {
                    int64_t id = ((const int64_t *)c[0]->buffers[1])[c[0]->offset + i];
                    if (id < row || id >= N) {
                        bad++;
                        continue;
                    }
                    row = id + 1;
                    const char *sp, *wp;
                    int64_t sl, wl;
                    arrow_str(c[3], mode == 1, i, &sp, &sl);
                    arrow_str(c[8], mode == 1, i, &wp, &wl);
                    bool vvalid = !c[1]->null_count || arrow_bit(c[1]->buffers[0], c[1]->offset + i);
                    const int64_t *dec = (const int64_t *)c[5]->buffers[1] + 2 * (c[5]->offset + i);
                    bool ok = vvalid == !x->v_null[id] &&
                              (!vvalid ||
                               ((const int32_t *)c[1]->buffers[1])[c[1]->offset + i] == x->v[id]) &&
                              memcmp((const double *)c[2]->buffers[1] + c[2]->offset + i, &x->d[id],
                                     8) == 0 &&
                              sl == (int64_t)strlen(x->s[id]) && memcmp(sp, x->s[id], (size_t)sl) == 0 &&
                              wl == sl && memcmp(wp, x->s[id], (size_t)wl) == 0 &&
                              ((const uint32_t *)c[4]->buffers[1])[c[4]->offset + i] == x->u[id] &&
                              dec[0] == x->dec[id] && dec[1] == (x->dec[id] < 0 ? -1 : 0) &&
                              ((const int32_t *)c[6]->buffers[1])[c[6]->offset + i] == x->date[id] &&
                              arrow_bit(c[7]->buffers[1], c[7]->offset + i) == x->b[id];
                    if (!ok && bad < 3)
                        fprintf(stderr, "masked rows: %s (mode %d): row %lld differs\n", texts[q],
                                mode, (long long)id);
                    bad += !ok;
                }
                b.release(&b);
            }
            st.release(&st);
            plank_scan_stats ss;
            plank_scan_stats_init(&ss);
            plank_scan_get_stats(s, &ss);
            CHECK_MSG(bad == 0 && got == want, "%s (mode %d): %lld rows, %lld expected, %lld wrong",
                      texts[q], mode, (long long)got, (long long)want, (long long)bad);
            CHECK_MSG(ss.row_groups_masked > 0, "%s (mode %d): no row group read as a bitmap",
                      texts[q], mode);
            plank_scan_close(s);
            plank_expr_free(e);
        }
    }
}

/* A selective bitmap selection projected onto columns without levels: a
 * batch spans as many batch_rows steps of the row group as keep at most
 * batch_rows rows between them, so batches are fewer and fuller than one per
 * batch_rows rows read. Rows checked against the data; every batch at most
 * batch_rows long; some batch spanning more than batch_rows rows. */
static void check_masked_spans(plank_reader *r, const data *x) {
    static const char *cols[] = {"id", "d", "s", "b"};
    const char *text = "b AND d < -600";
    for (int mode = 0; mode < 2; mode++) {
        plank_arrow_options ao;
        plank_arrow_options_init(&ao);
        ao.batch_rows = mode == 0 ? 100 : 1000;
        plank_expr *e;
        struct ArrowArrayStream st;
        plank_scan *s = open_stream(r, text, &ao, cols, 4, &e, &st);
        int64_t want = 0, got = 0, bad = 0, batches = 0, widest = 0, longest = 0, row = 0;
        for (int64_t i = 0; i < N; i++) want += x->b[i] && x->d[i] < -600;
        for (;;) {
            struct ArrowArray b;
            CHECK(st.get_next(&st, &b) == 0);
            if (!b.release) break;
            CHECK(b.n_children == 4);
            struct ArrowArray *const *c = b.children;
            const int64_t *ids = (const int64_t *)c[0]->buffers[1] + c[0]->offset;
            batches++;
            if (b.length > longest) longest = b.length;
            if (b.length > 0 && ids[b.length - 1] - ids[0] + 1 > widest)
                widest = ids[b.length - 1] - ids[0] + 1;
            for (int64_t i = 0; i < b.length; i++, got++) {
                int64_t id = ids[i];
                if (id < row || id >= N) {
                    bad++;
                    continue;
                }
                row = id + 1;
                const char *sp;
                int64_t sl;
                arrow_str(c[2], false, i, &sp, &sl);
                bool ok = x->b[id] && x->d[id] < -600 &&
                          memcmp((const double *)c[1]->buffers[1] + c[1]->offset + i, &x->d[id],
                                 8) == 0 &&
                          sl == (int64_t)strlen(x->s[id]) &&
                          memcmp(sp, x->s[id], (size_t)sl) == 0 &&
                          arrow_bit(c[3]->buffers[1], c[3]->offset + i);
                bad += !ok;
            }
            b.release(&b);
        }
        st.release(&st);
        plank_scan_stats ss;
        plank_scan_stats_init(&ss);
        plank_scan_get_stats(s, &ss);
        CHECK_MSG(bad == 0 && got == want, "spans (batch_rows %lld): %lld rows, %lld expected, "
                  "%lld wrong", (long long)ao.batch_rows, (long long)got, (long long)want,
                  (long long)bad);
        CHECK_MSG(ss.row_groups_masked > 0, "spans: no row group read as a bitmap");
        CHECK_MSG(longest <= ao.batch_rows, "spans: a batch of %lld rows (batch_rows %lld)",
                  (long long)longest, (long long)ao.batch_rows);
        CHECK_MSG(widest > ao.batch_rows, "spans: no batch spans more than %lld rows (widest %lld)",
                  (long long)ao.batch_rows, (long long)widest);
        /* one batch per row group when a group keeps fewer than batch_rows */
        if (mode == 1)
            CHECK_MSG(batches <= plank_reader_num_row_groups(r), "spans: %lld batches",
                      (long long)batches);
        plank_scan_close(s);
        plank_expr_free(e);
    }
}

/* Scans restricted to row groups: each group's count is the brute-force
 * count of its rows, the groups' counts add up to the file's, a subset
 * streams only its rows, and bad lists are refused naming the problem. */
static void check_row_groups(plank_reader *r, const data *x) {
    plank_expr *e;
    plank_error err;
    CHECK(plank_expr_parse("v > 0 AND s IN ('AIR', 'MAIL')", NULL, &e, &err) == PLANK_OK);
    int32_t ng = plank_reader_num_row_groups(r);
    CHECK_EQ_I64(ng, (N + RG_ROWS - 1) / RG_ROWS);
    for (int32_t g = 0; g < ng; g++) {
        int64_t want = 0;
        for (int64_t i = (int64_t)g * RG_ROWS; i < N && i < (int64_t)(g + 1) * RG_ROWS; i++)
            want += !x->v_null[i] && x->v[i] > 0 &&
                    (strcmp(x->s[i], "AIR") == 0 || strcmp(x->s[i], "MAIL") == 0);
        plank_scan_options o;
        plank_scan_options_init(&o);
        o.filter = e;
        o.row_groups = &g;
        o.num_row_groups = 1;
        plank_scan *s;
        int64_t n = -1;
        CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
        CHECK(plank_scan_count(s, &n, &err) == PLANK_OK);
        CHECK_EQ_I64(n, want);
        plank_scan_stats ss;
        plank_scan_stats_init(&ss);
        plank_scan_get_stats(s, &ss);
        CHECK_EQ_I64(ss.row_groups, 1);
        CHECK_EQ_I64(ss.rows, g + 1 < ng ? RG_ROWS : N - (int64_t)g * RG_ROWS);
        plank_scan_close(s);
    }
    /* Groups 1 and 3 streamed: exactly their ids, in order. */
    int32_t two[] = {1, 3};
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.row_groups = two;
    o.num_row_groups = 2;
    const char *cols[] = {"id"};
    o.columns = cols;
    o.num_columns = 1;
    plank_scan *s;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
    struct ArrowArrayStream st;
    CHECK(plank_scan_arrow_stream(s, &st, &err) == PLANK_OK);
    int64_t k = 0;
    bool in_order = true;
    for (;;) {
        struct ArrowArray a;
        CHECK(st.get_next(&st, &a) == 0);
        if (!a.release) break;
        const int64_t *id = (const int64_t *)a.children[0]->buffers[1] + a.children[0]->offset;
        for (int64_t i = 0; i < a.length; i++, k++) {
            int64_t row = k < RG_ROWS ? RG_ROWS + k : 3 * RG_ROWS + (k - RG_ROWS);
            if (id[i] != x->id[row]) in_order = false;
        }
        a.release(&a);
    }
    st.release(&st);
    plank_scan_close(s);
    CHECK(in_order);
    CHECK_EQ_I64(k, 2 * RG_ROWS);
    /* Refused: out of range, not ascending, repeated. */
    int32_t bad[][2] = {{0, ng}, {2, 1}, {1, 1}, {-1, 0}};
    const char *why[] = {"does not exist", "ascending", "ascending", "does not exist"};
    for (int i = 0; i < 4; i++) {
        o.row_groups = bad[i];
        o.num_row_groups = 2;
        s = (plank_scan *)1;
        CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(s == NULL);
        CHECK_MSG(strstr(err.message, why[i]) != NULL, "%s", err.message);
    }
    plank_expr_free(e);
}

/* The stream outlives the scan and the reader; the filter tree may be
 * freed once the scan is open. */
static void check_lifetime(const char *path, const data *x) {
    plank_reader *r;
    plank_error err;
    CHECK(plank_reader_open_path(&r, path, NULL, &err) == PLANK_OK);
    plank_expr *e;
    CHECK(plank_expr_parse("s = 'AIR' AND v > 500", NULL, &e, &err) == PLANK_OK);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    plank_scan *s;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
    plank_expr_free(e);
    struct ArrowArrayStream st;
    CHECK(plank_scan_arrow_stream(s, &st, &err) == PLANK_OK);
    plank_scan_close(s);
    plank_reader_close(r);
    struct ArrowSchema sc;
    CHECK(st.get_schema(&st, &sc) == 0);
    CHECK_EQ_I64(sc.n_children, 9);
    sc.release(&sc);
    int64_t rows = 0, want = 0;
    for (int64_t i = 0; i < N; i++)
        want += strcmp(x->s[i], "AIR") == 0 && !x->v_null[i] && x->v[i] > 500;
    for (;;) {
        struct ArrowArray a;
        CHECK(st.get_next(&st, &a) == 0);
        if (!a.release) break;
        /* Column s of every row is AIR, v above 500. */
        const struct ArrowArray *sa = a.children[3], *va = a.children[1];
        const int32_t *so = sa->buffers[1];
        const char *sd = sa->buffers[2];
        for (int64_t i = 0; i < a.length; i++) {
            CHECK(so[i + 1] - so[i] == 3 && memcmp(sd + so[i], "AIR", 3) == 0);
            CHECK(((const int32_t *)va->buffers[1])[i] > 500);
        }
        rows += a.length;
        a.release(&a);
    }
    st.release(&st);
    CHECK_EQ_I64(rows, want);
}

/* Every allocation failure: an error, never a crash or a leak. */
static void check_oom(const char *path) {
    int64_t ok_at = -1;
    for (int64_t k = 1; k < 2000 && ok_at < 0; k++) {
        th_alloc ta;
        plank_allocator a = th_alloc_init(&ta);
        ta.fail_at = k;
        plank_reader_options ro;
        plank_reader_options_init(&ro);
        ro.allocator = &a;
        plank_reader *r;
        plank_error err;
        if (plank_reader_open_path(&r, path, &ro, &err) != PLANK_OK) {
            CHECK_EQ_I64(ta.live_bytes, 0);
            continue;
        }
        plank_expr *e = NULL;
        plank_status st = plank_expr_parse("(s IN ('MAIL', 'SHIP') AND v < 0) OR id = 77", &a, &e,
                                           &err);
        plank_scan *s = NULL;
        int64_t n = -1;
        if (st == PLANK_OK) {
            plank_scan_options o;
            plank_scan_options_init(&o);
            o.filter = e;
            st = plank_scan_open(&s, r, &o, &err);
        }
        if (st == PLANK_OK) st = plank_scan_count(s, &n, &err);
        if (st == PLANK_OK && !ta.failed) ok_at = k;
        CHECK(st == PLANK_OK || st == PLANK_ERR_OUT_OF_MEMORY);
        plank_scan_close(s);
        plank_expr_free(e);
        plank_reader_close(r);
        CHECK_MSG(ta.live_bytes == 0, "fail at %lld: %lld bytes leaked", (long long)k,
                  (long long)ta.live_bytes);
    }
    CHECK(ok_at > 0);
    fprintf(stderr, "oom: every allocation failed in turn up to %lld\n", (long long)ok_at);
}

/* Fixed-width dictionary columns are filtered on their codes: the
 * predicate is evaluated once per dictionary entry (counted), and a chunk
 * none of whose entries passes is not read past its first batch. A file of
 * three row groups: k INT32 (r % 50) * 2, q DOUBLE (r % 40) / 8, f FLOAT
 * (r % 30) - 0.5, all dictionary-encoded; 7 and 0.0625 lie inside every
 * chunk's [min, max] and are absent. */
static int64_t dict_count(plank_reader *r, const char *text, plank_scan_stats *ss) {
    plank_expr *e;
    plank_error err;
    CHECK_MSG(plank_expr_parse(text, NULL, &e, &err) == PLANK_OK, "%s", text);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    plank_scan *s;
    int64_t n = -1;
    CHECK(plank_scan_open(&s, r, &o, &err) == PLANK_OK);
    CHECK_MSG(plank_scan_count(s, &n, &err) == PLANK_OK, "%s: %s", text, err.message);
    plank_scan_stats_init(ss);
    plank_scan_get_stats(s, ss);
    plank_scan_close(s);
    plank_expr_free(e);
    return n;
}

/* A record of n required leaf columns (f[0] the root), named and typed. */
static void flat_fields(plank_schema_field *f, int n, const char *const *names,
                        const plank_physical_type *types) {
    for (int i = 0; i <= n; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = n;
    for (int i = 1; i <= n; i++) {
        f[i].name = names[i - 1];
        f[i].physical_type = types[i - 1];
        f[i].repetition = PLANK_REQUIRED;
    }
}

/* Writes rows of fixed-width columns (values[i] for leaf i) to path and
 * opens it. */
static plank_reader *write_fixed(const char *path, const plank_schema_field *f, int ncols,
                                 const plank_writer_options *o, const void *const *values,
                                 int64_t rows) {
    plank_error err;
    plank_writer *w;
    CHECK(plank_writer_open_path(&w, path, f, ncols + 1, o, &err) == PLANK_OK);
    plank_batch b[8];
    memset(b, 0, sizeof b);
    for (int i = 0; i < ncols && i < 8; i++) {
        b[i].struct_size = sizeof b[0];
        b[i].length = rows;
        b[i].values = values[i];
    }
    CHECK(plank_writer_write_rows(w, b, rows, &err) == PLANK_OK);
    CHECK_MSG(plank_writer_close(w, &err) == PLANK_OK, "%s", err.message);
    plank_reader *r = NULL;
    CHECK(plank_reader_open_path(&r, path, NULL, &err) == PLANK_OK);
    return r;
}

/* Writes rows of an INT32 column and a string column (offsets, bytes) to
 * path and opens it. */
static plank_reader *write_int_string(const char *path, const plank_schema_field *f,
                                      const plank_writer_options *o, const int32_t *ints,
                                      const int64_t *offs, const char *bytes, int64_t rows) {
    plank_error err;
    plank_writer *w;
    CHECK(plank_writer_open_path(&w, path, f, 3, o, &err) == PLANK_OK);
    plank_batch b[2];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 2; i++) {
        b[i].struct_size = sizeof b[0];
        b[i].length = rows;
    }
    b[0].values = ints;
    b[1].offsets = offs;
    b[1].data = (const uint8_t *)bytes;
    CHECK(plank_writer_write_rows(w, b, rows, &err) == PLANK_OK);
    CHECK_MSG(plank_writer_close(w, &err) == PLANK_OK, "%s", err.message);
    plank_reader *r = NULL;
    CHECK(plank_reader_open_path(&r, path, NULL, &err) == PLANK_OK);
    return r;
}

static void check_fixed_dictionaries(const char *path) {
    enum { DN = 9000 };
    plank_schema_field f[4];
    flat_fields(f, 3, (const char *const[]){"k", "q", "f"},
                (const plank_physical_type[]){PLANK_INT32, PLANK_DOUBLE, PLANK_FLOAT});
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.row_group_rows = DN / 3;
    o.page_rows = 500;
    static int32_t k[DN];
    static double q[DN];
    static float fl[DN];
    for (int64_t i = 0; i < DN; i++) {
        k[i] = (int32_t)(i % 50) * 2;
        q[i] = (double)(i % 40) / 8;
        fl[i] = (float)(i % 30) - 0.5f;
    }
    plank_reader *r = write_fixed(path, f, 3, &o, (const void *const[]){k, q, fl}, DN);
    static const char *absent[] = {"k = 7", "k IN (7, 101)", "q = 0.0625", "f = 0.25",
                                   "k > 96 AND k < 98"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        plank_scan_stats ss;
        CHECK_EQ_I64(dict_count(r, absent[i], &ss), 0);
        CHECK_MSG(ss.dictionary_entries_evaluated > 0, "%s", absent[i]);
        CHECK_MSG(ss.row_groups_pruned_statistics == 0, "%s", absent[i]);
        CHECK_MSG(ss.row_groups_pruned_dictionary == 3, "%s: %lld row groups pruned by their "
                  "dictionaries", absent[i], (long long)ss.row_groups_pruned_dictionary);
    }
    /* Entries that pass: the rows counted here. */
    static const struct { const char *text; int64_t n; } present[] = {
        {"k = 8", DN / 50}, {"k >= 90", DN / 50 * 5}, {"q BETWEEN 0.5 AND 1", DN / 40 * 5},
        {"f < 2", DN / 30 * 3}, {"k != 0 AND q <> 0", DN - DN / 50 - DN / 40 + DN / 200},
    };
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++) {
        plank_scan_stats ss;
        int64_t n = dict_count(r, present[i].text, &ss);
        CHECK_MSG(n == present[i].n, "%s: %lld rows, expected %lld", present[i].text,
                  (long long)n, (long long)present[i].n);
        CHECK(ss.dictionary_entries_evaluated > 0);
        CHECK_EQ_I64(ss.row_groups_pruned_dictionary, 0);
    }
    plank_reader_close(r);
}

/* Dictionary codes in long RLE runs (sorted, low-cardinality columns): each
 * run decided once, and the counts those decisions give equal the counts
 * computed here from the values. */
static void check_code_runs(const char *path) {
    enum { RN = 60000 };
    plank_schema_field f[3];
    flat_fields(f, 2, (const char *const[]){"s", "t"},
                (const plank_physical_type[]){PLANK_INT32, PLANK_BYTE_ARRAY});
    f[2].logical.kind = PLANK_LOGICAL_STRING;
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.row_group_rows = RN / 2;
    o.page_rows = 7000;
    static int32_t sv[RN];
    static int64_t offs[RN + 1];
    static char tx[RN * 2];
    /* s: runs of 1..700 rows of values 0..9; t: 'v0'..'v6' in runs of 50..249,
     * with a bit-packed stretch of alternating values now and then. */
    uint64_t x = 99;
    int32_t cur = 0, curt = 0;
    int64_t left = 0, leftt = 0;
    for (int64_t i = 0; i < RN; i++) {
        if (left == 0) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            cur = (int32_t)((x >> 33) % 10);
            left = 1 + (int64_t)((x >> 40) % 700);
        }
        if (leftt == 0) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            curt = (int32_t)((x >> 33) % 7);
            leftt = 50 + (int64_t)((x >> 45) % 200);
        }
        sv[i] = (i / 16) % 9 == 4 ? (int32_t)(i % 10) : cur;
        left--, leftt--;
        tx[2 * i] = 'v';
        tx[2 * i + 1] = (char)('0' + curt);
        offs[i + 1] = 2 * (i + 1);
    }
    plank_reader *r = write_int_string(path, f, &o, sv, offs, tx, RN);
    static const char *texts[] = {"s IN (3, 5)", "s < 4", "t = 'v2'", "s = 3 AND t <> 'v1'",
                                  "t IN ('v0', 'v6') AND s >= 8", "s = 11"};
    for (size_t q = 0; q < sizeof texts / sizeof texts[0]; q++) {
        int64_t want = 0;
        for (int64_t i = 0; i < RN; i++) {
            int32_t v = sv[i];
            char c = tx[2 * i + 1];
            bool ok = q == 0 ? (v == 3 || v == 5)
                    : q == 1 ? v < 4
                    : q == 2 ? c == '2'
                    : q == 3 ? (v == 3 && c != '1')
                    : q == 4 ? ((c == '0' || c == '6') && v >= 8)
                             : v == 11;
            want += ok;
        }
        plank_scan_stats ss;
        int64_t n = dict_count(r, texts[q], &ss);
        CHECK_MSG(n == want, "%s: %lld rows, expected %lld", texts[q], (long long)n,
                  (long long)want);
        if (q < 5)
            CHECK_MSG(ss.values_decided_by_run > RN / 4 &&
                          ss.values_decided_by_run <= ss.values_evaluated,
                      "%s: %lld of %lld values decided by runs", texts[q],
                      (long long)ss.values_decided_by_run, (long long)ss.values_evaluated);
    }
    plank_reader_close(r);
}

/* A column read whole by one step and compared again by a later one (its
 * values kept for the row group, then taken in place or gathered at the
 * later step's rows): counts against the data. a's bounds make its range
 * look selective, so it runs first and whole; b's ranges leave a few runs
 * of rows for the comparison a < c. */
static void check_kept_values(const char *path) {
    enum { KN = 60000 };
    plank_schema_field f[4];
    flat_fields(f, 3, (const char *const[]){"a", "b", "c"},
                (const plank_physical_type[]){PLANK_INT32, PLANK_INT64, PLANK_INT32});
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.row_group_rows = KN;
    o.page_rows = 3000;
    o.dictionary = false;
    o.page_index = false; /* b's ranges must not narrow the rows before a's step */
    static int32_t a[KN], c[KN];
    static int64_t bv[KN];
    uint64_t x = 5;
    for (int64_t i = 0; i < KN; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        a[i] = i % 997 == 0 ? 1000000000 : (int32_t)((x >> 33) % 11);
        c[i] = (int32_t)((x >> 45) % 11);
        bv[i] = i;
    }
    plank_reader *r = write_fixed(path, f, 3, &o, (const void *const[]){a, bv, c}, KN);
    static const char *texts[] = {
        "a <= 10 AND (b BETWEEN 5000 AND 9000 OR b BETWEEN 20000 AND 20100) AND a < c",
        "a <= 10 AND a < c", "a <= 10 AND b >= 30000 AND c <= a"};
    for (size_t q = 0; q < sizeof texts / sizeof texts[0]; q++) {
        int64_t want = 0;
        for (int64_t i = 0; i < KN; i++) {
            bool ok = a[i] <= 10 &&
                      (q == 0 ? ((bv[i] >= 5000 && bv[i] <= 9000) ||
                                 (bv[i] >= 20000 && bv[i] <= 20100)) && a[i] < c[i]
                       : q == 1 ? a[i] < c[i]
                                : bv[i] >= 30000 && c[i] <= a[i]);
            want += ok;
        }
        plank_scan_stats ss;
        int64_t n = dict_count(r, texts[q], &ss);
        CHECK_MSG(n == want, "%s: %lld rows, expected %lld", texts[q], (long long)n,
                  (long long)want);
    }
    plank_reader_close(r);
}

/* A string step after a step that left a quarter of the rows, read whole
 * from PLAIN pages of 1001 rows: its batches end at the pages' ends, off a
 * byte of the row group's bitmap, and the rows it compares (the live ones)
 * must be those rows' own. Counts against the data. */
static void check_live_offsets(const char *path) {
    enum { LN = 30000 };
    plank_schema_field f[3];
    flat_fields(f, 2, (const char *const[]){"a", "s"},
                (const plank_physical_type[]){PLANK_INT32, PLANK_BYTE_ARRAY});
    f[2].logical.kind = PLANK_LOGICAL_STRING;
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.page_rows = 1001;
    o.dictionary = false;
    static int32_t a[LN];
    static int64_t offs[LN + 1];
    static char tx[LN * 2];
    uint64_t x = 17;
    for (int64_t i = 0; i < LN; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        a[i] = (int32_t)((x >> 33) % 4);
        tx[2 * i] = 'x';
        tx[2 * i + 1] = (char)('0' + (x >> 40) % 5);
        offs[i + 1] = 2 * (i + 1);
    }
    plank_reader *r = write_int_string(path, f, &o, a, offs, tx, LN);
    static const char *texts[] = {"a = 1 AND s = 'x2'", "a = 3 AND s IN ('x0', 'x4')",
                                  "a = 0 AND s >= 'x3'"};
    for (size_t q = 0; q < sizeof texts / sizeof texts[0]; q++) {
        int64_t want = 0;
        for (int64_t i = 0; i < LN; i++) {
            char c = tx[2 * i + 1];
            want += q == 0 ? a[i] == 1 && c == '2'
                  : q == 1 ? a[i] == 3 && (c == '0' || c == '4')
                           : a[i] == 0 && c >= '3';
        }
        plank_scan_stats ss;
        int64_t n = dict_count(r, texts[q], &ss);
        CHECK_MSG(n == want, "%s: %lld rows, expected %lld", texts[q], (long long)n,
                  (long long)want);
    }
    plank_reader_close(r);
}


/* A column both filtered and projected is decoded once: the stream takes
 * its values from those the filter step read (values_reused), whole or
 * sparse, as values or as dictionary codes, converted to the Arrow type
 * (DECIMAL(9,2) on INT32 becomes decimal128). The projected values are
 * checked against the data, and values_reused against the rows matched
 * times the projected filter columns. */
static void check_decode_once(const char *path) {
    enum { ON = 40000 };
    plank_schema_field f[4];
    flat_fields(f, 3, (const char *const[]){"a", "p", "q"},
                (const plank_physical_type[]){PLANK_INT64, PLANK_INT32, PLANK_INT64});
    f[2].logical.kind = PLANK_LOGICAL_DECIMAL;
    f[2].logical.precision = 9;
    f[2].logical.scale = 2;
    static int64_t a[ON], q[ON];
    static int32_t pv[ON];
    uint64_t x = 99;
    for (int64_t i = 0; i < ON; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        /* few distinct values: the dictionaries hold whole chunks */
        a[i] = (int64_t)((x >> 33) % 100);
        pv[i] = (int32_t)((x >> 20) % 401) - 200;
        q[i] = i;
    }
    static const struct {
        const char *text;
        int reused; /* projected filter columns (of a, p, q) kept */
        int reused_dict; /* the same with dictionaries (q's falls back: not kept) */
    } cases[] = {
        {"a < 50 AND p >= 0", 2, 2},              /* dense steps, both kept */
        {"a < 1", 1, 1},                          /* one sparse result of a dense read */
        {"q BETWEEN 1000 AND 1300 AND a < 50", 2, 1}, /* a read at q's ranges only */
        {"a < 30 AND q > a", 2, 2},               /* a kept, then compared again */
        {"p < -1.8 AND a >= 99", 2, 2},
    };
    for (int dict = 0; dict < 2; dict++) {
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.row_group_rows = ON / 2;
        o.page_rows = 1000;
        o.dictionary = dict == 1;
        plank_reader *r = write_fixed(path, f, 3, &o, (const void *const[]){a, pv, q}, ON);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            plank_expr *e;
            struct ArrowArrayStream st;
            plank_scan *s = open_stream(r, cases[c].text, NULL,
                                        (const char *const[]){"a", "p", "q"}, 3, &e, &st);
            int64_t row = 0, got = 0, bad = 0;
            for (;;) {
                struct ArrowArray b;
                CHECK(st.get_next(&st, &b) == 0);
                if (!b.release) break;
                const int64_t *va = b.children[0]->buffers[1];
                const int64_t *vp = b.children[1]->buffers[1]; /* decimal128: low, high */
                const int64_t *vq = b.children[2]->buffers[1];
                for (int64_t i = 0; i < b.length; i++, got++) {
                    int64_t id = vq[i];
                    bool ok = id >= row && id < ON;
                    for (; ok && row < id; row++) {
                        /* the rows skipped must not match */
                        bool m = c == 0   ? a[row] < 50 && pv[row] >= 0
                                 : c == 1 ? a[row] < 1
                                 : c == 2 ? q[row] >= 1000 && q[row] <= 1300 && a[row] < 50
                                 : c == 3 ? a[row] < 30 && q[row] > a[row]
                                          : pv[row] < -180 && a[row] >= 99;
                        ok = !m;
                    }
                    ok = ok && va[i] == a[id] && vp[2 * i] == pv[id] &&
                         vp[2 * i + 1] == (pv[id] < 0 ? -1 : 0);
                    bad += !ok;
                    row = id + 1;
                }
                b.release(&b);
            }
            st.release(&st);
            plank_scan_stats ss;
            plank_scan_stats_init(&ss);
            plank_scan_get_stats(s, &ss);
            CHECK_MSG(bad == 0 && got == ss.rows_matched && got > 0,
                      "%s (dictionary %d): %lld wrong of %lld rows", cases[c].text, dict,
                      (long long)bad, (long long)got);
            CHECK_MSG(ss.values_reused ==
                          (dict ? cases[c].reused_dict : cases[c].reused) * ss.rows_matched,
                      "%s (dictionary %d): %lld values reused, %lld rows matched",
                      cases[c].text, dict, (long long)ss.values_reused,
                      (long long)ss.rows_matched);
            plank_scan_close(s);
            plank_expr_free(e);
        }
        plank_reader_close(r);
    }
}

/* The same for a string column: its values kept by the filter step (not
 * its dictionary codes, which are read again), given to the projection as
 * a string array or as a dictionary array with the batch's own dictionary,
 * through ranges (a rare value) and through a bitmap (a common one). */
static void check_decode_once_strings(const char *path) {
    enum { SN = 30000 };
    plank_schema_field f[3];
    flat_fields(f, 2, (const char *const[]){"a", "s"},
                (const plank_physical_type[]){PLANK_INT32, PLANK_BYTE_ARRAY});
    f[2].logical.kind = PLANK_LOGICAL_STRING;
    static int32_t a[SN];
    static int64_t offs[SN + 1];
    static char tx[SN * 3];
    uint64_t x = 31;
    int64_t pos = 0;
    for (int64_t i = 0; i < SN; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        a[i] = (int32_t)i;
        int k = (int)((x >> 33) % 100);
        /* x9 rare; the others common, some longer */
        const char *w = k == 0 ? "x9" : k < 40 ? "x1" : k < 70 ? "x22" : "x3";
        memcpy(tx + pos, w, strlen(w));
        pos += (int64_t)strlen(w);
        offs[i + 1] = pos;
    }
    static const char *texts[] = {"s = 'x9'", "s IN ('x1', 'x3')", "s >= 'x2'"};
    for (int dict = 0; dict < 2; dict++) {
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.page_rows = 1000;
        o.row_group_rows = SN / 2;
        o.dictionary = dict == 1;
        plank_reader *r = write_int_string(path, f, &o, a, offs, tx, SN);
        for (int arrays = 0; arrays < 2; arrays++) {
            for (size_t q = 0; q < sizeof texts / sizeof texts[0]; q++) {
                plank_arrow_options ao;
                plank_arrow_options_init(&ao);
                ao.dictionary_arrays = arrays == 1;
                ao.large_offsets = arrays == 1 && dict == 0;
                plank_expr *e;
                struct ArrowArrayStream st;
                plank_scan *sc = open_stream(r, texts[q], &ao, NULL, 0, &e, &st);
                int64_t row = 0, got = 0, bad = 0, want = 0;
                for (int64_t i = 0; i < SN; i++) {
                    const char *w = tx + offs[i];
                    int64_t l = offs[i + 1] - offs[i];
                    want += q == 0   ? l == 2 && w[1] == '9'
                            : q == 1 ? l == 2 && (w[1] == '1' || w[1] == '3')
                                     : !(l == 2 && w[1] == '1');
                }
                for (;;) {
                    struct ArrowArray b;
                    CHECK(st.get_next(&st, &b) == 0);
                    if (!b.release) break;
                    for (int64_t i = 0; i < b.length; i++, got++) {
                        int64_t id = ((const int32_t *)b.children[0]->buffers[1])[i];
                        const char *sp;
                        int64_t sl;
                        arrow_str(b.children[1], ao.large_offsets, i, &sp, &sl);
                        bool ok = id >= row && id < SN && sl == offs[id + 1] - offs[id] &&
                                  memcmp(sp, tx + offs[id], (size_t)sl) == 0;
                        bad += !ok;
                        if (ok) row = id + 1;
                    }
                    b.release(&b);
                }
                st.release(&st);
                plank_scan_stats ss;
                plank_scan_stats_init(&ss);
                plank_scan_get_stats(sc, &ss);
                CHECK_MSG(bad == 0 && got == want,
                          "%s (dictionary %d, arrays %d): %lld rows, %lld expected, %lld wrong",
                          texts[q], dict, arrays, (long long)got, (long long)want,
                          (long long)bad);
                /* strings kept as values; dictionary codes read again */
                CHECK_MSG(ss.values_reused == (dict ? 0 : want),
                          "%s (dictionary %d, arrays %d): %lld values reused of %lld rows",
                          texts[q], dict, arrays, (long long)ss.values_reused, (long long)want);
                CHECK_MSG((ss.row_groups_masked > 0) == (q > 0),
                          "%s: %lld row groups read as a bitmap", texts[q],
                          (long long)ss.row_groups_masked);
                plank_scan_close(sc);
                plank_expr_free(e);
            }
        }
        plank_reader_close(r);
    }
}

/* A string step where few rows are left alive by the steps before it
 * reads packed batches (only the alive rows' values, evaluated alone;
 * pk_scan.c packed_batch_done), from PLAIN (no dictionary; pages of 1001
 * rows, so view batches end off a byte), DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY pages, some snappy. a leaves about 4% of the rows for
 * the string terms (packed), or 30% (not packed, the comparison), and none
 * in the last quarter of the rows (batches with nothing alive). The strings
 * share prefixes longer than 16 bytes, repeat, and include the empty one.
 * Each scan's rows, a and s both projected (the strings kept by the step
 * for the projection), are checked against the data, in order. */
static void check_packed_strings(const char *path) {
    enum { PN = 40000 };
    plank_schema_field f[3];
    flat_fields(f, 2, (const char *const[]){"a", "s"},
                (const plank_physical_type[]){PLANK_INT32, PLANK_BYTE_ARRAY});
    f[2].logical.kind = PLANK_LOGICAL_STRING;
    static const char *words[] = {"x1", "x22", "x3", "", "long-prefix-value-1",
                                  "long-prefix-value-22", "long-prefix-value-3", "lo"};
    static int32_t a[PN];
    static int64_t offs[PN + 1];
    static char tx[PN * 24];
    static int wi[PN];
    uint64_t x = 77;
    int64_t pos = 0;
    for (int64_t i = 0; i < PN; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        a[i] = i < PN / 4 * 3 ? (int32_t)((x >> 33) % 100) : 200 + (int32_t)((x >> 33) % 100);
        wi[i] = (int)((x >> 45) % 8);
        size_t l = strlen(words[wi[i]]);
        memcpy(tx + pos, words[wi[i]], l);
        pos += (int64_t)l;
        offs[i + 1] = pos;
    }
    static const char *texts[] = {
        "a < 4 AND s IN ('x1', 'long-prefix-value-3')", "a < 4 AND s LIKE 'lo%'",
        "a < 4 AND NOT (s >= 'x2' AND s < 'x3')", "a >= 96 AND s = ''",
        "a < 30 AND s = 'long-prefix-value-22'"};
    for (int enc = 0; enc < 3; enc++) {
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.page_rows = 1001;
        o.row_group_rows = 12000;
        o.dictionary = false;
        o.codec = enc == 1 ? PLANK_CODEC_SNAPPY : PLANK_CODEC_UNCOMPRESSED;
        plank_column_options co;
        plank_column_options_init(&co);
        co.path = "s";
        co.encoding = enc == 0   ? PLANK_ENC_PLAIN
                      : enc == 1 ? PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY
                                 : PLANK_ENC_DELTA_BYTE_ARRAY;
        o.columns = &co;
        o.num_column_options = 1;
        plank_reader *r = write_int_string(path, f, &o, a, offs, tx, PN);
        for (size_t q = 0; q < sizeof texts / sizeof texts[0]; q++) {
            int64_t want = 0;
            for (int64_t i = 0; i < PN; i++) {
                int w = wi[i];
                bool ok = q == 0   ? a[i] < 4 && (w == 0 || w == 6)
                          : q == 1 ? a[i] < 4 && (w >= 4)
                          : q == 2 ? a[i] < 4 && !(w == 1)
                          : q == 3 ? a[i] >= 96 && w == 3
                                   : a[i] < 30 && w == 5;
                want += ok;
            }
            plank_arrow_options ao;
            plank_arrow_options_init(&ao);
            plank_expr *e;
            struct ArrowArrayStream st;
            const char *cols[] = {"a", "s"};
            plank_scan *sc = open_stream(r, texts[q], &ao, cols, 2, &e, &st);
            int64_t got = 0, bad = 0, row = 0;
            for (;;) {
                struct ArrowArray b;
                CHECK(st.get_next(&st, &b) == 0);
                if (!b.release) break;
                for (int64_t i = 0; i < b.length; i++, got++) {
                    int32_t av = ((const int32_t *)b.children[0]->buffers[1])[i];
                    const char *sp;
                    int64_t sl;
                    arrow_str(b.children[1], false, i, &sp, &sl);
                    /* the next row of the data that matches, in order */
                    while (row < PN) {
                        int w = wi[row];
                        bool ok = q == 0   ? a[row] < 4 && (w == 0 || w == 6)
                                  : q == 1 ? a[row] < 4 && (w >= 4)
                                  : q == 2 ? a[row] < 4 && !(w == 1)
                                  : q == 3 ? a[row] >= 96 && w == 3
                                           : a[row] < 30 && w == 5;
                        if (ok) break;
                        row++;
                    }
                    bool ok = row < PN && av == a[row] && sl == offs[row + 1] - offs[row] &&
                              memcmp(sp, tx + offs[row], (size_t)sl) == 0;
                    bad += !ok;
                    row++;
                }
                b.release(&b);
            }
            st.release(&st);
            CHECK_MSG(bad == 0 && got == want, "%s (encoding %d): %lld rows, %lld expected, "
                      "%lld wrong", texts[q], enc, (long long)got, (long long)want,
                      (long long)bad);
            plank_scan_close(sc);
            plank_expr_free(e);
            plank_scan_stats ss;
            int64_t n = dict_count(r, texts[q], &ss);
            CHECK_MSG(n == want, "%s (encoding %d): count %lld, expected %lld", texts[q], enc,
                      (long long)n, (long long)want);
        }
        plank_reader_close(r);
    }
}

int main(void) {
    static data x;
    gen(&x);
    char path[] = "/tmp/plank_test_scan_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    /* Each variant of the file, the cases every variant runs, then its own
     * checks; the PLAIN file last, as the later checks read it. */
    static const struct {
        int variant;
        const char *what;
    } files[] = {{FALLBACK_FILE, "dictionaries falling back to PLAIN mid-chunk"},
                 {DELTA_FILE, "DELTA and BYTE_STREAM_SPLIT pages"},
                 {PLAIN_FILE, "the writer's encodings"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        plank_error err;
        plank_status st = write_file(path, &x, files[i].variant, &err);
        CHECK_MSG(st == PLANK_OK, "%s", err.message);
        plank_reader *r;
        CHECK(plank_reader_open_path(&r, path, NULL, &err) == PLANK_OK);
        fprintf(stderr, "%s:\n", files[i].what);
        run_cases(r, &x);
        check_masked_rows(r, &x);
        check_masked_spans(r, &x);
        if (files[i].variant == DELTA_FILE) check_delta_skips(r, &x);
        if (files[i].variant == PLAIN_FILE) {
            check_pruning(r);
            check_api(r);
            check_row_groups(r, &x);
        }
        plank_reader_close(r);
    }
    check_lifetime(path, &x);
    check_oom(path);
    check_fixed_dictionaries(path);
    check_code_runs(path);
    check_kept_values(path);
    check_live_offsets(path);
    check_decode_once(path);
    check_decode_once_strings(path);
    check_packed_strings(path);
    unlink(path);
    TEST_END();
}
