/* test_dataset.c: datasets (plank_dataset_*) against DuckDB.
 *
 * A hive-partitioned dataset is written here with plank's writer, seeded:
 * root/year=Y/region=R/part-K.parquet with R sometimes
 * __HIVE_DEFAULT_PARTITION__ (null), files with different column sets (a
 * column missing from some files), a column that is INT32 in some files and
 * INT64 in others, one FLOAT in some and DOUBLE in others, strings with
 * nulls, several row groups per file with page indexes. Then:
 *  - the unified schema (fields by first appearance, widened types,
 *    partition columns last with their inferred types);
 *  - for predicates over partition columns, data columns and both (SQL
 *    text), the rows of plank_dataset_scan over the directory, a '**' glob
 *    and a list of files, registered in DuckDB (duckdb_arrow_scan), equal
 *    DuckDB's read_parquet over root/<**>/<*>.parquet with hive_partitioning=true,
 *    union_by_name=true) with the same WHERE, as multisets (EXCEPT ALL both
 *    ways), and plank_dataset_count equals DuckDB's count; files excluded by
 *    partition values are counted as pruned and not opened by the scan;
 *  - projections with partition columns only, data columns missing from
 *    some files, and reordered columns;
 *  - plank_dataset_plan: the splits cover the row groups of the files the
 *    partitions leave, and scanning every split gives the dataset scan's
 *    rows;
 *  - a column whose types cannot be unified fails to open, naming both
 *    files; a partition key that is also a column fails; a partition value
 *    that percent-decodes to bytes with a NUL is text (k=12%00x is not 12);
 *  - links to directories: cycles are not entered again (the walk ends),
 *    and max_directories bounds a tree of links with PLANK_ERR_LIMIT;
 *  - columns a file lacks whose types are nested (list, struct, map, a list
 *    of structs), strings exported as dictionary arrays or with 64-bit
 *    offsets: the columns of nulls made for that file, read by DuckDB from
 *    the stream, equal DuckDB's read_parquet(union_by_name=true) over
 *    files DuckDB wrote; a nested column whose element type differs between
 *    two files fails to open, naming both;
 *  - partition values against literals of other types (decimals, floats,
 *    NaN, integers above INT64_MAX, timestamps and strings against integer
 *    and date partitions), literals
 *    on the left, two partition columns compared, BETWEEN, IN, IS NULL, constant
 *    conditions and NOT over mixed terms: rows and counts equal
 *    DuckDB's over a directory DuckDB wrote with PARTITION_BY. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "duckdb_capi.h"
#include "plank.h"
#include "tharness.h"

typedef struct rng {
    uint64_t s;
} rng;
static uint64_t rnext(rng *r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}
static int64_t rbelow(rng *r, int64_t n) { return (int64_t)(rnext(r) % (uint64_t)n); }

static char g_root[256];
static int64_t g_next_id;

/* Which columns a file has and in which types. */
typedef struct fshape {
    bool has_name, has_flag, v64, price64;
} fshape;

static void mkdirs(const char *path) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

static void write_file(rng *r, const char *path, const fshape *sh, int64_t rows) {
    plank_schema_field fl[6];
    for (int i = 0; i < 6; i++) plank_schema_field_init(&fl[i]);
    int n = 0;
    fl[++n].name = "id";
    fl[n].physical_type = PLANK_INT64;
    fl[n].repetition = PLANK_REQUIRED;
    fl[++n].name = "v";
    fl[n].physical_type = sh->v64 ? PLANK_INT64 : PLANK_INT32;
    fl[n].repetition = PLANK_OPTIONAL;
    fl[++n].name = "price";
    fl[n].physical_type = sh->price64 ? PLANK_DOUBLE : PLANK_FLOAT;
    fl[n].repetition = PLANK_REQUIRED;
    if (sh->has_name) {
        fl[++n].name = "name";
        fl[n].physical_type = PLANK_BYTE_ARRAY;
        fl[n].repetition = PLANK_OPTIONAL;
        fl[n].logical.kind = PLANK_LOGICAL_STRING;
    }
    if (sh->has_flag) {
        fl[++n].name = "flag";
        fl[n].physical_type = PLANK_BOOLEAN;
        fl[n].repetition = PLANK_REQUIRED;
    }
    fl[0].num_children = n;
    int64_t *id = calloc((size_t)rows + 1, 8), *v64 = calloc((size_t)rows + 1, 8);
    int32_t *v32 = calloc((size_t)rows + 1, 4);
    double *p64 = calloc((size_t)rows + 1, 8);
    float *p32 = calloc((size_t)rows + 1, 4);
    uint8_t *vvalid = calloc((size_t)rows / 8 + 2, 1), *nvalid = calloc((size_t)rows / 8 + 2, 1);
    uint8_t *flags = calloc((size_t)rows / 8 + 2, 1);
    int64_t *offs = calloc((size_t)rows + 2, 8);
    char *text = calloc((size_t)rows * 8 + 8, 1);
    static const char *const words[] = {"apple", "avocado", "banana", "cherry", "", "date", "egg"};
    int64_t vnull = 0, nnull = 0;
    for (int64_t i = 0; i < rows; i++) {
        id[i] = g_next_id++;
        bool vn = rbelow(r, 10) == 0;
        int32_t x = (int32_t)rbelow(r, 40000) - 1000;
        v32[i] = vn ? 0 : x;
        v64[i] = vn ? 0 : (int64_t)x * (sh->v64 && rbelow(r, 4) == 0 ? 100000 : 1);
        if (!vn) vvalid[i / 8] |= (uint8_t)(1u << (i % 8));
        vnull += vn;
        int32_t cents = (int32_t)rbelow(r, 20000);
        p32[i] = (float)cents / 4.0f; /* exact in float and double */
        p64[i] = (double)cents / 4.0;
        bool nn = rbelow(r, 6) == 0;
        const char *w = words[rbelow(r, 7)];
        offs[i + 1] = offs[i] + (nn ? 0 : (int64_t)strlen(w));
        if (!nn) {
            memcpy(text + offs[i], w, strlen(w));
            nvalid[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        nnull += nn;
        if (rbelow(r, 2)) flags[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.row_group_rows = 700;
    o.page_rows = 150;
    plank_writer *w;
    plank_error e;
    plank_status st = plank_writer_open_path(&w, path, fl, n + 1, &o, &e);
    CHECK_MSG(st == PLANK_OK, "%s: %s", path, e.message);
    if (st == PLANK_OK) {
        plank_batch b[5];
        int k = 0;
        b[k++] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows, .values = id};
        b[k++] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows,
                               .values = sh->v64 ? (const void *)v64 : (const void *)v32,
                               .validity = vvalid, .null_count = vnull};
        b[k++] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows,
                               .values = sh->price64 ? (const void *)p64 : (const void *)p32};
        if (sh->has_name)
            b[k++] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows,
                                   .offsets = offs, .data = (const uint8_t *)text,
                                   .validity = nvalid, .null_count = nnull};
        if (sh->has_flag)
            b[k++] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows,
                                   .values = flags};
        st = plank_writer_write_rows(w, b, rows, &e);
        CHECK_MSG(st == PLANK_OK, "%s: %s", path, e.message);
        st = plank_writer_close(w, &e);
        CHECK_MSG(st == PLANK_OK, "%s: %s", path, e.message);
    }
    free(id), free(v64), free(v32), free(p64), free(p32), free(vvalid), free(nvalid);
    free(flags), free(offs), free(text);
}

static int g_nfiles;
static char g_files[64][700];
static int g_year_of[64];

static void make_dataset(rng *r) {
    snprintf(g_root, sizeof g_root, "/tmp/plank_dataset_XXXXXX");
    CHECK(mkdtemp(g_root) != NULL);
    static const char *const regions[] = {"eu", "us", "ap", "__HIVE_DEFAULT_PARTITION__",
                                          "north%20america"};
    for (int year = 2020; year <= 2023; year++) {
        for (int ri = 0; ri < 5; ri++) {
            if (rbelow(r, 3) == 0 && !(year == 2020 && ri == 0)) continue;
            int parts = 1 + (int)rbelow(r, 2);
            for (int k = 0; k < parts; k++) {
                char dir[600];
                snprintf(dir, sizeof dir, "%s/year=%d/region=%s", g_root, year, regions[ri]);
                mkdirs(dir);
                snprintf(g_files[g_nfiles], sizeof g_files[0], "%s/part-%d.parquet", dir, k);
                fshape sh = {rbelow(r, 3) != 0, rbelow(r, 2) == 0, rbelow(r, 2) == 0,
                             rbelow(r, 3) != 0};
                if (g_nfiles == 0) sh = (fshape){true, true, false, true}; /* every column */
                write_file(r, g_files[g_nfiles], &sh, 200 + rbelow(r, 2000));
                g_year_of[g_nfiles] = year;
                g_nfiles++;
            }
        }
    }
    /* A file DuckDB and plank both skip: not .parquet; and a hidden one. */
    char p[600];
    snprintf(p, sizeof p, "%s/year=2020/_SUCCESS", g_root);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
}

static void rm_rf(const char *path) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", path);
}

/* ---- Comparing with DuckDB ------------------------------------------------------------- */

static duck_conn *g_dc;
static int64_t g_matched;
static const char *k_cols = "id, v, price, name, flag, year, region";

/* The dataset scan's rows (so: filter, columns, Arrow options) as DuckDB's
 * temp table k, read from the stream through duckdb_arrow_scan. */
static bool scan_to_duck(plank_dataset *d, plank_scan_options *so, const char *what,
                         plank_dataset_stats *stats) {
    plank_error e;
    plank_dataset_scan_options o;
    plank_dataset_scan_options_init(&o);
    o.scan = so;
    struct ArrowArrayStream st;
    plank_status ps = plank_dataset_scan(d, &o, &st, &e);
    CHECK_MSG(ps == PLANK_OK, "dataset scan %s: %s", what, e.message);
    if (ps != PLANK_OK) return false;
    kept_stream ks;
    kept_stream_init(&ks, &st);
    bool ok = g_dc->api->arrow_scan(g_dc->con, "p", &ks.outer) == 0;
    bool made = ok && duck_exec(g_dc, "CREATE OR REPLACE TEMP TABLE k AS SELECT * FROM p");
    if (ok) duck_exec(g_dc, "DROP VIEW p");
    if (!made) {
        const char *le = ks.inner.get_last_error(&ks.inner);
        CHECK_MSG(false, "DuckDB could not read the dataset stream (%s): %s / %s", what,
                  g_dc->error, le ? le : "");
    }
    if (stats) {
        plank_dataset_stats_init(stats);
        plank_dataset_stream_stats(&ks.inner, stats);
    }
    kept_stream_release(&ks);
    return made;
}

static bool plank_table(plank_dataset *d, const char *where, const char *const *cols, int ncols,
                        plank_dataset_stats *stats) {
    plank_error e;
    plank_expr *x = NULL;
    if (where && plank_expr_parse(where, NULL, &x, &e) != PLANK_OK) {
        CHECK_MSG(false, "parse %s: %s", where, e.message);
        return false;
    }
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = x;
    so.columns = cols;
    so.num_columns = ncols;
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.batch_rows = 333;
    so.arrow = &ao;
    bool made = scan_to_duck(d, &so, where ? where : "", stats);
    plank_expr_free(x);
    return made;
}

/* The rows of two DuckDB subqueries (plank's "(SELECT ... FROM k)" and
 * DuckDB's own reading) equal as multisets: EXCEPT ALL both ways, a few
 * of plank's extra rows printed when they differ. */
static void same_rows(const char *mine, const char *theirs, const char *what) {
    sql_buf q = {0};
    for (int dir = 0; dir < 2; dir++) {
        q.len = 0;
        sql_add(&q, "SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)",
                dir ? theirs : mine, dir ? mine : theirs);
        int64_t n = -1;
        bool ok = duck_int(g_dc, q.p, &n);
        CHECK_MSG(ok, "DuckDB: %s", g_dc->error);
        CHECK_MSG(!ok || n == 0, "%s: %lld rows %s", what, (long long)n,
                  dir ? "of DuckDB's missing in plank's" : "of plank's not in DuckDB's");
        if (ok && n != 0 && dir == 0) {
            q.len = 0;
            sql_add(&q, "SELECT CAST(x AS VARCHAR) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM "
                        "%s) x LIMIT 3", mine, theirs);
            duck_print_rows(g_dc, q.p, 3);
        }
    }
    free(q.p);
}

/* A new directory /tmp/plank_<tag>_XXXXXX in dir (256 bytes). */
static bool temp_dir(char *dir, const char *tag) {
    snprintf(dir, 256, "/tmp/plank_%s_XXXXXX", tag);
    bool ok = mkdtemp(dir) != NULL;
    CHECK_MSG(ok, "mkdtemp %s: %s", dir, strerror(errno));
    return ok;
}

/* DuckDB runs the COPY statement q (its text freed by the caller). */
static bool duck_copy(const sql_buf *q) {
    bool ok = duck_exec(g_dc, q->p);
    CHECK_MSG(ok, "DuckDB: %s", g_dc->error);
    return ok;
}

static void compare(plank_dataset *d, const char *where) {
    plank_dataset_stats stats;
    if (!plank_table(d, where, NULL, 0, &stats)) return;
    sql_buf from = {0}, q = {0};
    sql_add(&from, "(SELECT %s FROM read_parquet('%s/**/*.parquet', hive_partitioning=true, "
                   "union_by_name=true))", k_cols, g_root);
    sql_buf plk = {0}, theirs = {0};
    sql_add(&plk, "(SELECT %s FROM k)", k_cols);
    sql_add(&theirs, "(SELECT * FROM %s WHERE %s)", from.p, where);
    same_rows(plk.p, theirs.p, where);
    free(plk.p);
    free(theirs.p);
    /* the count, and the files left out by partition values */
    int64_t duck = -1, mine = -2;
    q.len = 0;
    sql_add(&q, "SELECT count(*) FROM %s WHERE %s", from.p, where);
    CHECK(duck_int(g_dc, q.p, &duck));
    plank_expr *x = NULL;
    plank_error e;
    CHECK(plank_expr_parse(where, NULL, &x, &e) == PLANK_OK);
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = x;
    plank_dataset_scan_options o;
    plank_dataset_scan_options_init(&o);
    o.scan = &so;
    plank_dataset_stats cs;
    plank_dataset_stats_init(&cs);
    plank_status st = plank_dataset_count(d, &o, &mine, &cs, &e);
    CHECK_MSG(st == PLANK_OK, "count %s: %s", where, e.message);
    CHECK_MSG(mine == duck, "count %s: plank %lld, DuckDB %lld", where, (long long)mine,
              (long long)duck);
    CHECK_EQ_I64(cs.files_pruned_partitions, stats.files_pruned_partitions);
    fprintf(stderr, "  %-45s %6lld rows, %lld of %lld files pruned by partitions\n", where,
            (long long)mine, (long long)cs.files_pruned_partitions, (long long)cs.files);
    g_matched += mine;
    plank_expr_free(x);
    free(from.p);
    free(q.p);
}

/* ---- The cases -------------------------------------------------------------------------- */

static void schema_checks(plank_dataset *d) {
    struct ArrowSchema s;
    plank_error e;
    CHECK(plank_dataset_arrow_schema(d, &s, &e) == PLANK_OK);
    static const char *const names[] = {"id", "v", "price", "name", "flag", "year", "region"};
    /* v is INT64 in some file and price DOUBLE in some: both widen */
    static const char *const fmts[] = {"l", "l", "g", "u", "b", "l", "u"};
    CHECK_EQ_I64(s.n_children, 7);
    for (int i = 0; i < 7 && i < s.n_children; i++) {
        CHECK_MSG(strcmp(s.children[i]->name, names[i]) == 0, "field %d: %s", i,
                  s.children[i]->name);
        CHECK_MSG(strcmp(s.children[i]->format, fmts[i]) == 0, "field %s: %s", names[i],
                  s.children[i]->format);
    }
    s.release(&s);
    CHECK_EQ_I64(plank_dataset_num_files(d), g_nfiles);
}

static void projections(plank_dataset *d) {
    /* partition columns only, a column missing from some files, reordered */
    static const char *const c1[] = {"region", "year"};
    static const char *const c2[] = {"flag", "id"};
    if (plank_table(d, "year >= 2021", c1, 2, NULL)) {
        sql_buf q = {0};
        sql_add(&q, "SELECT count(*) FROM (SELECT region, year FROM k EXCEPT ALL SELECT region, "
                    "year FROM read_parquet('%s/**/*.parquet', hive_partitioning=true, "
                    "union_by_name=true) WHERE year >= 2021)", g_root);
        int64_t n = -1;
        CHECK(duck_int(g_dc, q.p, &n) && n == 0);
        q.len = 0;
        sql_add(&q, "SELECT (SELECT count(*) FROM k) - (SELECT count(*) FROM read_parquet('%s/**/"
                    "*.parquet', hive_partitioning=true, union_by_name=true) WHERE year >= 2021)",
                g_root);
        CHECK(duck_int(g_dc, q.p, &n) && n == 0);
        free(q.p);
    }
    if (plank_table(d, "flag = TRUE OR flag IS NULL", c2, 2, NULL)) {
        sql_buf q = {0};
        sql_add(&q, "SELECT count(*) FROM (SELECT flag, id FROM k EXCEPT ALL SELECT flag, id FROM "
                    "read_parquet('%s/**/*.parquet', hive_partitioning=true, union_by_name=true) "
                    "WHERE flag = TRUE OR flag IS NULL)", g_root);
        int64_t n = -1;
        CHECK(duck_int(g_dc, q.p, &n) && n == 0);
        free(q.p);
    }
}

static int64_t stream_rows(plank_dataset *d, const plank_split *sp, const char *where) {
    plank_error e;
    plank_expr *x = NULL;
    if (where) CHECK(plank_expr_parse(where, NULL, &x, &e) == PLANK_OK);
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = x;
    plank_dataset_scan_options o;
    plank_dataset_scan_options_init(&o);
    o.scan = &so;
    o.split = sp;
    struct ArrowArrayStream st;
    int64_t rows = 0;
    if (plank_dataset_scan(d, &o, &st, &e) != PLANK_OK) {
        CHECK_MSG(false, "scan: %s", e.message);
        plank_expr_free(x);
        return -1;
    }
    for (;;) {
        struct ArrowArray a;
        if (st.get_next(&st, &a) != 0) {
            CHECK_MSG(false, "%s", st.get_last_error(&st));
            rows = -1;
            break;
        }
        if (!a.release) break;
        rows += a.length;
        a.release(&a);
    }
    st.release(&st);
    plank_expr_free(x);
    return rows;
}

static void plans(plank_dataset *d) {
    const char *where = "year >= 2022 AND v > 100";
    plank_expr *x = NULL;
    plank_error e;
    CHECK(plank_expr_parse(where, NULL, &x, &e) == PLANK_OK);
    plank_split *sp = NULL;
    int64_t n = 0;
    CHECK(plank_dataset_plan(d, x, 64 << 10, &sp, &n, &e) == PLANK_OK);
    int64_t total = 0, rows = 0, groups = 0;
    for (int64_t i = 0; i < n; i++) {
        CHECK(g_year_of[sp[i].file] >= 2022); /* the partitions prune the plan */
        int64_t r = stream_rows(d, &sp[i], where);
        total += r;
        rows += sp[i].rows;
        groups += sp[i].num_row_groups;
    }
    int64_t whole = stream_rows(d, NULL, where);
    CHECK_MSG(total == whole, "splits give %lld rows, the scan %lld", (long long)total,
              (long long)whole);
    /* every row group of every file of 2022 and 2023, each once */
    int64_t want_rows = 0, want_groups = 0;
    for (int f = 0; f < plank_dataset_num_files(d); f++) {
        const char *p = plank_dataset_file_path(d, f);
        if (!strstr(p, "year=2022") && !strstr(p, "year=2023")) continue;
        want_rows += plank_reader_num_rows(plank_dataset_file_reader(d, f));
        want_groups += plank_reader_num_row_groups(plank_dataset_file_reader(d, f));
    }
    CHECK_EQ_I64(rows, want_rows);
    CHECK_EQ_I64(groups, want_groups);
    CHECK(n > 1);
    plank_splits_free(d, sp, n);
    plank_expr_free(x);
}

static void conflicts(void) {
    char dir[256];
    if (!temp_dir(dir, "dsbad")) return;
    char a[400], b[400];
    snprintf(a, sizeof a, "%s/a.parquet", dir);
    snprintf(b, sizeof b, "%s/b.parquet", dir);
    rng r = {7};
    fshape sh = {true, false, false, true};
    write_file(&r, a, &sh, 10);
    /* b: "name" is INT32 there */
    plank_schema_field fl[2];
    plank_schema_field_init(&fl[0]);
    plank_schema_field_init(&fl[1]);
    fl[0].num_children = 1;
    fl[1].name = "name";
    fl[1].physical_type = PLANK_INT32;
    fl[1].repetition = PLANK_REQUIRED;
    plank_writer *w;
    plank_error e;
    CHECK(plank_writer_open_path(&w, b, fl, 2, NULL, &e) == PLANK_OK);
    int32_t vals[3] = {1, 2, 3};
    plank_batch bb = {.struct_size = sizeof bb, .length = 3, .values = vals};
    CHECK(plank_writer_write_rows(w, &bb, 3, &e) == PLANK_OK);
    CHECK(plank_writer_close(w, &e) == PLANK_OK);
    const char *src[] = {dir};
    plank_dataset *d = NULL;
    plank_status st = plank_dataset_open(&d, src, 1, NULL, &e);
    CHECK_EQ_I64(st, PLANK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(e.message, "a.parquet") && strstr(e.message, "b.parquet") &&
                  strstr(e.message, "name"),
              "the error names the column and both files: %s", e.message);
    plank_dataset_close(d);
    /* a partition key that is a column */
    char sub[500], c[600];
    snprintf(sub, sizeof sub, "%s/name=x", dir);
    mkdirs(sub);
    snprintf(c, sizeof c, "%s/c.parquet", sub);
    write_file(&r, c, &sh, 5);
    const char *src2[] = {a, c};
    st = plank_dataset_open(&d, src2, 2, NULL, &e);
    CHECK_EQ_I64(st, PLANK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(e.message, "partition key"), "%s", e.message);
    plank_dataset_close(d);
    /* no file */
    const char *none[] = {"/nonexistent/plank/**/*.parquet"};
    CHECK(plank_dataset_open(&d, none, 1, NULL, &e) != PLANK_OK);
    rm_rf(dir);
}

/* Partition values whose percent-decoding holds a NUL byte are text: k=12%00x
 * is not the integer 12 (nor is j=2020-01-01%00 a date), and the value
 * keeps its bytes after the NUL. */
static void key_with_nul(void) {
    char dir[256];
    if (!temp_dir(dir, "dsnul")) return;
    rng r = {9};
    fshape sh = {true, false, false, true};
    static const char *const subs[] = {"k=12%00x/j=2020-01-01%00", "k=5/j=2020-01-02"};
    char sub[400], f[500];
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        mkdirs(sub);
        snprintf(f, sizeof f, "%s/part.parquet", sub);
        write_file(&r, f, &sh, 5);
    }
    const char *src[] = {dir};
    plank_dataset *d = NULL;
    plank_error e;
    plank_status st = plank_dataset_open(&d, src, 1, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "open: %s", e.message);
    if (st == PLANK_OK) {
        struct ArrowSchema s;
        CHECK(plank_dataset_arrow_schema(d, &s, &e) == PLANK_OK);
        CHECK(s.n_children >= 2);
        for (int64_t i = s.n_children - 2; i >= 0 && i < s.n_children; i++) {
            const char *name = s.children[i]->name, *fmt = s.children[i]->format;
            CHECK_MSG((strcmp(name, "k") == 0 || strcmp(name, "j") == 0) && strcmp(fmt, "u") == 0,
                      "partition %s typed %s, want strings", name, fmt);
        }
        s.release(&s);
        /* "12\0x" is four bytes: = '12' does not match it */
        plank_expr *x = NULL;
        CHECK(plank_expr_parse("k = '12'", NULL, &x, &e) == PLANK_OK);
        plank_scan_options so;
        plank_scan_options_init(&so);
        so.filter = x;
        plank_dataset_scan_options o;
        plank_dataset_scan_options_init(&o);
        o.scan = &so;
        int64_t n = -1;
        CHECK(plank_dataset_count(d, &o, &n, NULL, &e) == PLANK_OK);
        CHECK_EQ_I64(n, 0);
        plank_expr_free(x);
    }
    plank_dataset_close(d);
    rm_rf(dir);
}

/* Links to directories: followed, but never into a directory the walk is
 * already inside (x/self -> ., x/up -> ..: before, two such links made a
 * walk of 2^64 directories, which never ended), and a tree of links that
 * are not cycles ends at max_directories with PLANK_ERR_LIMIT. */
static void link_walks(void) {
    char dir[256];
    if (!temp_dir(dir, "dslinks")) return;
    rng r = {11};
    fshape sh = {true, false, false, true};
    char p[600], q[600];
    snprintf(p, sizeof p, "%s/x", dir);
    mkdirs(p);
    snprintf(p, sizeof p, "%s/x/self", dir);
    CHECK(symlink(".", p) == 0);
    snprintf(p, sizeof p, "%s/x/up", dir);
    CHECK(symlink("..", p) == 0);
    snprintf(p, sizeof p, "%s/b.parquet", dir);
    write_file(&r, p, &sh, 7);
    snprintf(q, sizeof q, "%s/x/a.parquet", dir);
    write_file(&r, q, &sh, 5);
    char glob[400];
    snprintf(glob, sizeof glob, "%s/**/*.parquet", dir);
    const char *srcs[2][1] = {{dir}, {glob}};
    for (int w = 0; w < 2; w++) {
        plank_dataset *d = NULL;
        plank_error e;
        plank_status st = plank_dataset_open(&d, srcs[w], 1, NULL, &e);
        CHECK_MSG(st == PLANK_OK, "%s: %s", srcs[w][0], e.message);
        if (st == PLANK_OK) {
            CHECK_EQ_I64(plank_dataset_num_files(d), 2);
            CHECK(strcmp(plank_dataset_file_path(d, 0), p) == 0);
            CHECK(strcmp(plank_dataset_file_path(d, 1), q) == 0);
            CHECK_EQ_I64(plank_dataset_num_rows(d), 12);
        }
        plank_dataset_close(d);
    }
    /* l0 .. l8, each with two links to the next: 2^8 paths to the file in
     * l8, through 511 directory listings */
    for (int i = 0; i <= 8; i++) {
        snprintf(p, sizeof p, "%s/dag/l%d", dir, i);
        mkdirs(p);
    }
    for (int i = 0; i < 8; i++) {
        snprintf(q, sizeof q, "../l%d", i + 1);
        snprintf(p, sizeof p, "%s/dag/l%d/a", dir, i);
        CHECK(symlink(q, p) == 0);
        snprintf(p, sizeof p, "%s/dag/l%d/b", dir, i);
        CHECK(symlink(q, p) == 0);
    }
    snprintf(p, sizeof p, "%s/dag/l8/f.parquet", dir);
    write_file(&r, p, &sh, 3);
    snprintf(p, sizeof p, "%s/dag/l0", dir);
    const char *dag[] = {p};
    plank_dataset_options o;
    plank_dataset_options_init(&o);
    plank_dataset *d = NULL;
    plank_error e;
    CHECK(plank_dataset_open(&d, dag, 1, &o, &e) == PLANK_OK);
    CHECK_EQ_I64(plank_dataset_num_files(d), 256); /* each path a file, as find -L lists them */
    plank_dataset_close(d);
    o.max_directories = 100;
    plank_status st = plank_dataset_open(&d, dag, 1, &o, &e);
    CHECK_EQ_I64(st, PLANK_ERR_LIMIT);
    CHECK_MSG(strstr(e.message, "more than 100 directories") != NULL, "%s", e.message);
    plank_dataset_close(d);
    rm_rf(dir);
}

/* Columns of nulls for the files that lack them, of every shape the Arrow
 * export makes: files written by DuckDB (a with nested and string columns,
 * b with only the key and a column of its own), read as one dataset with
 * each export option that changes the null columns' layout. */
static void missing_shapes(void) {
    char dir[256];
    if (!temp_dir(dir, "dsmiss")) return;
    sql_buf q = {0};
    sql_add(&q, "COPY (SELECT i AS id, CASE WHEN i %% 7 = 0 THEN NULL ELSE [i, i + 1] END AS tags, "
                "{'x': i, 'y': 'v' || i} AS pt, 'lbl' || (i %% 3) AS lbl, "
                "MAP {'k' || (i %% 4): i * 2} AS m, [{'a': i, 'b': 'w'}] AS ls "
                "FROM range(300) t(i)) TO '%s/a.parquet' (FORMAT parquet)", dir);
    duck_copy(&q);
    q.len = 0;
    sql_add(&q, "COPY (SELECT i + 1000 AS id, i * 3 AS other FROM range(120) t(i)) "
                "TO '%s/b.parquet' (FORMAT parquet)", dir);
    duck_copy(&q);
    /* c: some of a's nested columns again, of the same types */
    q.len = 0;
    sql_add(&q, "COPY (SELECT i + 5000 AS id, [i] AS tags, {'x': i, 'y': 'c'} AS pt "
                "FROM range(40) t(i)) TO '%s/c.parquet' (FORMAT parquet)", dir);
    duck_copy(&q);
    const char *cols = "id, tags, pt, lbl, m, ls, other";
    const char *src[] = {dir};
    plank_error e;
    for (int mode = 0; mode < 3; mode++) {
        /* the types are the dataset's (its arrow options), the null columns too */
        plank_arrow_options ao;
        plank_arrow_options_init(&ao);
        ao.batch_rows = 77;
        ao.dictionary_arrays = mode == 1;
        ao.large_offsets = mode == 2;
        plank_dataset_options dopt;
        plank_dataset_options_init(&dopt);
        dopt.arrow = &ao;
        plank_dataset *d = NULL;
        plank_status st = plank_dataset_open(&d, src, 1, &dopt, &e);
        CHECK_MSG(st == PLANK_OK, "open %s: %s", dir, e.message);
        if (st != PLANK_OK) continue;
        struct ArrowSchema sch;
        if (plank_dataset_arrow_schema(d, &sch, &e) == PLANK_OK) {
            const struct ArrowSchema *lbl = NULL, *tags = NULL;
            for (int64_t i = 0; i < sch.n_children; i++) {
                if (strcmp(sch.children[i]->name, "lbl") == 0) lbl = sch.children[i];
                if (strcmp(sch.children[i]->name, "tags") == 0) tags = sch.children[i];
            }
            CHECK(lbl && tags);
            if (lbl && tags) {
                CHECK_MSG((lbl->dictionary != NULL) == (mode == 1), "lbl dictionary in mode %d", mode);
                CHECK_MSG(strcmp(tags->format, mode == 2 ? "+L" : "+l") == 0, "tags is %s in mode %d",
                          tags->format, mode);
                if (mode == 2) CHECK_MSG(strcmp(lbl->format, "U") == 0, "lbl is %s", lbl->format);
            }
            sch.release(&sch);
        } else {
            CHECK_MSG(false, "schema: %s", e.message);
        }
        plank_scan_options so;
        plank_scan_options_init(&so);
        so.arrow = &ao;
        char what[64];
        snprintf(what, sizeof what, "missing columns, mode %d", mode);
        if (!scan_to_duck(d, &so, what, NULL)) {
            plank_dataset_close(d);
            continue;
        }
        sql_buf plk = {0}, ddb = {0};
        sql_add(&plk, "(SELECT %s FROM k)", cols);
        sql_add(&ddb, "(SELECT %s FROM read_parquet('%s/*.parquet', union_by_name=true))", cols, dir);
        same_rows(plk.p, ddb.p, what);
        free(plk.p);
        free(ddb.p);
        /* the nulls are there: b's 120 rows lack every column but id and other */
        int64_t nulls = -1;
        CHECK(duck_int(g_dc, "SELECT count(*) FROM k WHERE tags IS NULL AND pt IS NULL AND "
                             "lbl IS NULL AND m IS NULL AND ls IS NULL AND other IS NOT NULL",
                       &nulls));
        CHECK_EQ_I64(nulls, 120);
        int64_t rows = -1;
        CHECK(duck_int(g_dc, "SELECT count(*) FROM k", &rows));
        CHECK_EQ_I64(rows, 460);
        plank_dataset_close(d);
    }
    /* a nested column whose element type differs: not unified, both files named */
    char bad[300], a_path[400], d_path[400];
    snprintf(bad, sizeof bad, "/tmp/plank_dsnest_XXXXXX");
    CHECK(mkdtemp(bad) != NULL);
    snprintf(a_path, sizeof a_path, "%s/a.parquet", dir);
    snprintf(d_path, sizeof d_path, "%s/d.parquet", bad);
    q.len = 0;
    sql_add(&q, "COPY (SELECT 1 AS id, ['x'] AS tags) TO '%s' (FORMAT parquet)", d_path);
    duck_copy(&q);
    const char *two[] = {a_path, d_path};
    plank_dataset *dd = NULL;
    plank_status bst = plank_dataset_open(&dd, two, 2, NULL, &e);
    CHECK_EQ_I64(bst, PLANK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(bst == PLANK_OK || (strstr(e.message, "tags") && strstr(e.message, "a.parquet") &&
                                  strstr(e.message, "d.parquet")),
              "the error names the column and both files: %s", e.message);
    plank_dataset_close(dd);
    rm_rf(bad);
    free(q.p);
    rm_rf(dir);
}

/* The NaN predicates of partition_literals through the C API: the year
 * partition against a NaN double literal, with the data terms the text
 * gives (DuckDB's spelling of NaN is 'NaN'::DOUBLE). */
static plank_expr *nan_expr(const char *w) {
    plank_compare_op op = strstr(w, "year < ")    ? PLANK_CMP_LT
                          : strstr(w, "year >= ") ? PLANK_CMP_GE
                                                  : PLANK_CMP_NE;
    plank_expr *x = plank_expr_compare(op, plank_expr_column(NULL, "year"),
                                       plank_expr_double(NULL, NAN));
    if (strstr(w, "AND v < 10"))
        return plank_expr_and(x, plank_expr_compare(PLANK_CMP_LT, plank_expr_column(NULL, "v"),
                                                   plank_expr_int(NULL, 10)));
    if (strstr(w, "AND dt > "))
        return plank_expr_and(x, plank_expr_compare(PLANK_CMP_GT, plank_expr_column(NULL, "dt"),
                                                    plank_expr_date(NULL, 19724)));
    return x;
}

/* Partition values against literals of other types and on either side,
 * partitions compared with each other: DuckDB writes year=Y/dt=D/ with
 * PARTITION_BY, and each predicate's rows (and the count) equal DuckDB's
 * over the same directory with hive_partitioning. A predicate that prunes
 * must never drop a row DuckDB keeps. */
static void partition_literals(void) {
    char dir[256];
    if (!temp_dir(dir, "dspart")) return;
    sql_buf q = {0};
    sql_add(&q, "COPY (SELECT i AS id, i * 7 %% 1000 AS v, 2020 + i %% 3 AS year, "
                "2021 + i %% 2 AS y2, DATE '2024-01-01' + CAST(i %% 4 AS INTEGER) AS dt "
                "FROM range(600) t(i)) TO '%s' (FORMAT parquet, PARTITION_BY (year, y2, dt))",
            dir);
    duck_copy(&q);
    static const char *const wheres[] = {
        "2021 = year",
        "2022 > year AND v < 500",
        "year > 2020.5",
        "year <= 2021.00",
        "year = 2021.000000000000000000001",
        "year > 2020.999999999999999999999999 AND year <> 2022.0000000000000000000000000000",
        "year >= -5.5 AND NOT year < -0.000000000000000000000000000001",
        "year < 1e4 AND year >= 2.021e3",
        "dt >= DATE '2024-01-03'",
        "dt < TIMESTAMP '2024-01-02 12:00:00'",
        "dt = '2024-01-02'",
        "DATE '2024-01-02' <> dt AND year = 2020",
        "year = y2",
        "year < y2 OR dt = DATE '2024-01-04'",
        "NOT (year >= y2) AND v > 100",
        "year BETWEEN 2020.5 AND 2021",
        "dt BETWEEN DATE '2024-01-02' AND '2024-01-03'",
        "TRUE AND year = 2020",
        "NULL OR year = 2022",
        "year IN (2020, 2022.0) AND dt IN ('2024-01-01', DATE '2024-01-04')",
        "year IS NOT NULL AND NOT (year = 2020 AND v > 500)",
        "NOT (year = 2020 OR v > 500)",
        "year < 18446744073709551615",
        "year >= 9223372036854775808 AND v < 10",
        /* NaN, which the text syntax cannot write: built below (nan_expr) */
        "year < 'NaN'::DOUBLE",
        "year >= 'NaN'::DOUBLE AND v < 10",
        "year <> 'NaN'::DOUBLE AND dt > DATE '2024-01-02'",
    };
    const char *src[] = {dir};
    plank_dataset *d = NULL;
    plank_error e;
    plank_status st = plank_dataset_open(&d, src, 1, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "open %s: %s", dir, e.message);
    const char *cols = "id, v, year, y2, dt";
    for (size_t i = 0; st == PLANK_OK && i < sizeof wheres / sizeof wheres[0]; i++) {
        const char *w = wheres[i];
        plank_expr *x = NULL;
        if (strstr(w, "'NaN'::DOUBLE")) {
            x = nan_expr(w);
            CHECK_MSG(x != NULL, "build %s", w);
            if (!x) continue;
        } else if (plank_expr_parse(w, NULL, &x, &e) != PLANK_OK) {
            CHECK_MSG(false, "parse %s: %s", w, e.message);
            continue;
        }
        plank_scan_options so;
        plank_scan_options_init(&so);
        so.filter = x;
        plank_dataset_stats ds;
        bool made = scan_to_duck(d, &so, w, &ds);
        int64_t mine = -2, duck = -1;
        plank_dataset_scan_options o;
        plank_dataset_scan_options_init(&o);
        o.scan = &so;
        CHECK_MSG(plank_dataset_count(d, &o, &mine, NULL, &e) == PLANK_OK, "count %s: %s", w,
                  e.message);
        plank_expr_free(x);
        sql_buf from = {0};
        sql_add(&from, "(SELECT %s FROM read_parquet('%s/**/*.parquet', hive_partitioning=true) "
                       "WHERE %s)", cols, dir, w);
        q.len = 0;
        sql_add(&q, "SELECT count(*) FROM %s", from.p);
        CHECK_MSG(duck_int(g_dc, q.p, &duck), "DuckDB: %s", g_dc->error);
        CHECK_MSG(mine == duck, "count %s: plank %lld, DuckDB %lld", w, (long long)mine,
                  (long long)duck);
        if (made) {
            sql_buf plk = {0};
            sql_add(&plk, "(SELECT %s FROM k)", cols);
            same_rows(plk.p, from.p, w);
            free(plk.p);
        }
        fprintf(stderr, "  %-45s %6lld rows, %lld of %lld files pruned by partitions\n", w,
                (long long)mine, (long long)ds.files_pruned_partitions, (long long)ds.files);
        free(from.p);
    }
    /* a partition column against a data column cannot be decided per file */
    plank_expr *x = NULL;
    if (st == PLANK_OK && plank_expr_parse("year < v", NULL, &x, &e) == PLANK_OK) {
        plank_scan_options so;
        plank_scan_options_init(&so);
        so.filter = x;
        plank_dataset_scan_options o;
        plank_dataset_scan_options_init(&o);
        o.scan = &so;
        int64_t n = 0;
        plank_status cs = plank_dataset_count(d, &o, &n, NULL, &e);
        CHECK_MSG(cs == PLANK_ERR_UNSUPPORTED && strstr(e.message, "year"),
                  "partition against data column: %d %s", (int)cs, e.message);
        plank_expr_free(x);
    }
    plank_dataset_close(d);
    free(q.p);
    rm_rf(dir);
}

int main(void) {
    duck_api api;
    duck_conn dc;
    char why[4096];
    if (!duck_load(&api, why, sizeof why)) TEST_SKIP("%s", why);
    if (!duck_connect(&api, &dc, why, sizeof why)) TEST_SKIP("%s", why);
    g_dc = &dc;
    rng r = {0x5eed5eed1234ULL};
    make_dataset(&r);
    fprintf(stderr, "dataset: %d files under %s\n", g_nfiles, g_root);
    plank_error e;
    /* The same dataset three ways: a directory, a glob, a list of files. */
    char glob[400];
    snprintf(glob, sizeof glob, "%s/**/*.parquet", g_root);
    const char *list[64];
    for (int i = 0; i < g_nfiles; i++) list[i] = g_files[g_nfiles - 1 - i]; /* any order */
    const char *dirsrc[] = {g_root};
    const char *globsrc[] = {glob};
    struct {
        const char *const *src;
        int n;
        const char *name;
    } ways[] = {{dirsrc, 1, "directory"}, {globsrc, 1, "glob"}, {list, g_nfiles, "file list"}};
    static const char *const wheres[] = {
        "year = 2021",
        "year >= 2022 AND v < 500",
        "region = 'eu' OR name LIKE 'a%'",
        "region IS NULL",
        "region = 'north america'",
        "name IS NULL AND year < 2023",
        "v BETWEEN 10 AND 20000",
        "price > 2000.25",
        "year IN (2020, 2023) AND region <> 'us'",
        "NOT (year = 2022) AND flag = FALSE",
        "id < 3000 OR region = 'ap'",
        "year = 1999",
    };
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        plank_dataset *d = NULL;
        plank_status st = plank_dataset_open(&d, ways[w].src, ways[w].n, NULL, &e);
        CHECK_MSG(st == PLANK_OK, "open (%s): %s", ways[w].name, e.message);
        if (st != PLANK_OK) continue;
        schema_checks(d);
        size_t nw = w == 0 ? sizeof wheres / sizeof wheres[0] : 4;
        for (size_t i = 0; i < nw; i++) compare(d, wheres[i]);
        if (w == 0) {
            projections(d);
            plans(d);
            /* year = 1999 prunes every file without opening a scan */
            plank_dataset_stats s;
            if (plank_table(d, "year = 1999", NULL, 0, &s))
                CHECK_EQ_I64(s.files_pruned_partitions, g_nfiles);
        }
        plank_dataset_close(d);
    }
    conflicts();
    key_with_nul();
    link_walks();
    missing_shapes();
    partition_literals();
    CHECK(g_matched > 1000); /* the predicates matched real rows */
    duck_close(&dc);
    rm_rf(g_root);
    TEST_END();
}
