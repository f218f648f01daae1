/* test_duckdb_arrow.c: a real Arrow consumer of plank's ArrowArrayStream.
 *
 * DuckDB's C API (libduckdb.so from the npm package
 * @duckdb/node-bindings-linux-x64, version 1.5.6) is loaded with dlopen
 * (tests/duckdb_capi.h, shared with test_scan_diff.c), so
 * the test builds without DuckDB; when the library cannot be loaded the test
 * is skipped (exit 77) and says why. The library path is $PLANK_LIBDUCKDB,
 * else PLANK_SOURCE_DIR/node_modules/@duckdb/node-bindings-linux-x64/.
 *
 * 1. Harness check: a hand-made stream (int64, list<int32>, struct<double,
 *    utf8>, nulls at every level, two batches) is registered with
 *    duckdb_arrow_scan and compared with a SQL VALUES literal; a literal with
 *    one value changed must give a difference in both directions (the
 *    comparison can fail).
 * 2. Corpus: for every parquet-testing file in data/ and data/geospatial/
 *    (not encrypted) that DuckDB's read_parquet reads, plank's stream is
 *    registered as view "p" and materialised once (CREATE TABLE k AS SELECT
 *    * FROM p; the C API's stream view can be scanned once), then
 *      count(*) of k and of read_parquet are equal and
 *      SELECT * FROM k EXCEPT ALL SELECT * FROM read_parquet(f)  is empty,
 *    and the same the other way round. Two passes per file: default options,
 *    and dictionary arrays with 777-row batches (batch ends inside pages).
 *    Column names must be equal; column types must be equal except for
 *    these legitimate differences, cast in SQL (and printed per file):
 *      - INT96: plank exports timestamp[ns] (TIMESTAMP_NS), DuckDB reads a
 *        microsecond TIMESTAMP: plank's side is cast to DuckDB's type
 *        (also inside nested types). Values outside the timestamp[ns] range
 *        (1677..2262) wrap in plank's export, as its contract says: those
 *        rows (found by DuckDB's value, matched by row position = rowid of
 *        the materialised tables) are left out on both sides and counted.
 *      - Legacy TIMESTAMP_MILLIS/MICROS converted types are adjusted to UTC
 *        (LogicalTypes.md), so plank exports a "UTC" timezone; DuckDB reads
 *        them without one in some files: plank's side is cast to DuckDB's
 *        type with the session TimeZone set to UTC (the same instant).
 *      - GEOMETRY/GEOGRAPHY: plank exports the WKB bytes as binary (BLOB),
 *        DuckDB 1.5 reads a GEOMETRY type: DuckDB's side is turned back
 *        into WKB with ST_AsWKB.
 *      - FLOAT16: DuckDB does not import Arrow float16; the test converts
 *        plank's halves to float32 (see kept_stream), DuckDB reads FLOAT.
 *    large_string_map.brotli.parquet holds two 1 GiB strings: its rows are
 *    compared by DuckDB's hash() of each column (computed while streaming)
 *    instead of being materialised twice.
 *    Every file is listed with OK, FAIL or SKIP and the reason.
 *
 * Memory: plank's reader gets a counting allocator; after DuckDB has
 * released every array and the view, and the stream and reader are closed,
 * no byte may be outstanding. DuckDB's duckdb_arrow_scan never releases the
 * schemas it asks for, so the stream is wrapped: the wrapper keeps the
 * schemas and releases them itself at the end.
 */
#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

#include "duckdb_capi.h"
#include "plank.h"
#include "tharness.h"

/* ---- 1. A hand-made stream -------------------------------------------------- */

/* Schema: struct<id: int64 (required), tags: list<item: int32>, pt: struct<x:
 * double, s: utf8>>, five rows in two batches (3 + 2):
 *   1, [1, 2],     {x: 1.5,   s: 'a'}
 *   2, NULL,       NULL
 *   3, [],         {x: NULL,  s: 'bc'}
 *   4, [NULL, 7],  {x: -0.25, s: NULL}
 *   5, [9],        {x: 2,     s: ''}                                        */

static void hand_schema_release(struct ArrowSchema *s) {
    /* One allocation holds the whole tree; children are released with it. */
    free(s->private_data);
    s->release = NULL;
}

static void hand_child_release(struct ArrowSchema *s) { s->release = NULL; }

static void set_field(struct ArrowSchema *f, const char *format, const char *name, int64_t flags) {
    memset(f, 0, sizeof *f);
    f->format = format;
    f->name = name;
    f->flags = flags;
    f->release = hand_child_release;
}

static int hand_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
    (void)s;
    struct {
        struct ArrowSchema id, tags, item, pt, x, str;
        struct ArrowSchema *root_children[3], *tags_children[1], *pt_children[2];
    } *h = calloc(1, sizeof *h);
    if (!h) return 12;
    set_field(&h->id, "l", "id", 0);
    set_field(&h->tags, "+l", "tags", ARROW_FLAG_NULLABLE);
    set_field(&h->item, "i", "item", ARROW_FLAG_NULLABLE);
    set_field(&h->pt, "+s", "pt", ARROW_FLAG_NULLABLE);
    set_field(&h->x, "g", "x", ARROW_FLAG_NULLABLE);
    set_field(&h->str, "u", "s", ARROW_FLAG_NULLABLE);
    h->tags_children[0] = &h->item;
    h->tags.n_children = 1;
    h->tags.children = h->tags_children;
    h->pt_children[0] = &h->x;
    h->pt_children[1] = &h->str;
    h->pt.n_children = 2;
    h->pt.children = h->pt_children;
    h->root_children[0] = &h->id;
    h->root_children[1] = &h->tags;
    h->root_children[2] = &h->pt;
    set_field(out, "+s", "", 0);
    out->n_children = 3;
    out->children = h->root_children;
    out->release = hand_schema_release;
    out->private_data = h;
    return 0;
}

/* Arrays of one batch, in static storage; release counts. */
typedef struct hand_batch {
    struct ArrowArray root, id, tags, item, pt, x, str;
    struct ArrowArray *root_children[3], *tags_children[1], *pt_children[2];
    const void *root_buf[1], *id_buf[2], *tags_buf[2], *item_buf[2], *pt_buf[1], *x_buf[2],
        *str_buf[3];
} hand_batch;

typedef struct hand_state {
    int next;          /* batches handed out */
    int released;      /* root releases seen */
    int child_released;
    hand_batch b[2];
} hand_state;

static void hand_array_child_release(struct ArrowArray *a) {
    hand_state *st = a->private_data;
    st->child_released++;
    a->release = NULL;
}

static void hand_array_release(struct ArrowArray *a) {
    hand_state *st = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++) {
        struct ArrowArray *c = a->children[i];
        if (c->release) {
            for (int64_t j = 0; j < c->n_children; j++)
                if (c->children[j]->release) c->children[j]->release(c->children[j]);
            c->release(c);
        }
    }
    st->released++;
    a->release = NULL;
}

static void set_array(struct ArrowArray *a, hand_state *st, int64_t length, int64_t null_count,
                      const void **bufs, int64_t n_buffers) {
    memset(a, 0, sizeof *a);
    a->length = length;
    a->null_count = null_count;
    a->n_buffers = n_buffers;
    a->buffers = bufs;
    a->release = hand_array_child_release;
    a->private_data = st;
}

/* Batch 0: rows 1..3; batch 1: rows 4..5. */
static const int64_t hand_id[2][3] = {{1, 2, 3}, {4, 5, 0}};
static const uint8_t hand_tags_valid[2] = {0x5 /* 1,0,1 */, 0x3};
static const int32_t hand_tags_off[2][4] = {{0, 2, 2, 2}, {0, 2, 3, 0}};
static const int32_t hand_item[2][3] = {{1, 2, 0}, {0, 7, 9}};
static const uint8_t hand_item_valid[2] = {0x3, 0x6 /* NULL,7,9 */};
static const uint8_t hand_pt_valid[2] = {0x5, 0x3};
static const double hand_x[2][3] = {{1.5, 0, 0}, {-0.25, 2, 0}};
static const uint8_t hand_x_valid[2] = {0x1 /* 1.5, (null struct), NULL */, 0x3};
static const uint8_t hand_s_valid[2] = {0x5, 0x2 /* NULL, '' */};
static const int32_t hand_s_off[2][4] = {{0, 1, 1, 3}, {0, 0, 0, 0}};
static const char hand_s_data[2][4] = {"abc", ""};

static int hand_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
    hand_state *st = s->private_data;
    if (st->next == 2) {
        memset(out, 0, sizeof *out); /* end of stream: release == NULL */
        return 0;
    }
    int k = st->next++;
    hand_batch *b = &st->b[k];
    int64_t n = k == 0 ? 3 : 2;
    b->id_buf[0] = NULL;
    b->id_buf[1] = hand_id[k];
    set_array(&b->id, st, n, 0, b->id_buf, 2);
    b->item_buf[0] = &hand_item_valid[k];
    b->item_buf[1] = hand_item[k];
    set_array(&b->item, st, 3, 1, b->item_buf, 2);
    if (k == 0) {
        b->item.length = 2;
        b->item.null_count = 0;
    }
    b->tags_buf[0] = &hand_tags_valid[k];
    b->tags_buf[1] = hand_tags_off[k];
    set_array(&b->tags, st, n, k == 0 ? 1 : 0, b->tags_buf, 2);
    b->tags_children[0] = &b->item;
    b->tags.n_children = 1;
    b->tags.children = b->tags_children;
    b->x_buf[0] = &hand_x_valid[k];
    b->x_buf[1] = hand_x[k];
    set_array(&b->x, st, n, k == 0 ? 2 : 0, b->x_buf, 2);
    b->str_buf[0] = &hand_s_valid[k];
    b->str_buf[1] = hand_s_off[k];
    b->str_buf[2] = hand_s_data[k];
    set_array(&b->str, st, n, 1, b->str_buf, 3);
    b->pt_buf[0] = &hand_pt_valid[k];
    set_array(&b->pt, st, n, k == 0 ? 1 : 0, b->pt_buf, 1);
    b->pt_children[0] = &b->x;
    b->pt_children[1] = &b->str;
    b->pt.n_children = 2;
    b->pt.children = b->pt_children;
    b->root_buf[0] = NULL;
    set_array(&b->root, st, n, 0, b->root_buf, 1);
    b->root_children[0] = &b->id;
    b->root_children[1] = &b->tags;
    b->root_children[2] = &b->pt;
    b->root.n_children = 3;
    b->root.children = b->root_children;
    b->root.release = hand_array_release;
    *out = b->root; /* the consumer owns the moved struct */
    return 0;
}

static const char *hand_last_error(struct ArrowArrayStream *s) {
    (void)s;
    return NULL;
}

static void hand_release(struct ArrowArrayStream *s) { s->release = NULL; }

static const char *HAND_ROWS =
    "(1::BIGINT, [1, 2]::INTEGER[], {'x': 1.5::DOUBLE, 's': 'a'}), "
    "(2, NULL, NULL), "
    "(3, [], {'x': NULL, 's': 'bc'}), "
    "(4, [NULL, 7], {'x': -0.25, 's': NULL}), "
    "(5, [9], {'x': 2, 's': ''})";
/* The same with one list element changed. */
static const char *HAND_ROWS_WRONG =
    "(1::BIGINT, [1, 2]::INTEGER[], {'x': 1.5::DOUBLE, 's': 'a'}), "
    "(2, NULL, NULL), "
    "(3, [], {'x': NULL, 's': 'bc'}), "
    "(4, [7, NULL], {'x': -0.25, 's': NULL}), "
    "(5, [9], {'x': 2, 's': ''})";

static void test_hand_stream(duck_conn *dc) {
    hand_state st;
    memset(&st, 0, sizeof st);
    struct ArrowArrayStream hs = {hand_get_schema, hand_get_next, hand_last_error, hand_release,
                                  &st};
    kept_stream ks;
    kept_stream_init(&ks, &hs);
    CHECK(dc->api->arrow_scan(dc->con, "h", &ks.outer) == 0);
    bool ok = duck_exec(dc, "CREATE OR REPLACE TEMP TABLE hk AS SELECT * FROM h");
    CHECK_MSG(ok, "hand-made stream: %s", dc->error);
    CHECK(duck_exec(dc, "DROP VIEW h"));
    kept_stream_release(&ks);
    CHECK_EQ_I64(st.next, 2);
    /* DuckDB released both batches and, through them, all 12 children. */
    CHECK_EQ_I64(st.released, 2);
    CHECK_EQ_I64(st.child_released, 12);
    if (!ok) return;

    int64_t v = -1;
    CHECK(duck_int(dc, "SELECT count(*) FROM hk", &v));
    CHECK_EQ_I64(v, 5);
    CHECK(duck_int(dc, "SELECT sum(id) FROM hk WHERE tags IS NULL AND pt IS NULL", &v));
    CHECK_EQ_I64(v, 2);
    for (int wrong = 0; wrong < 2; wrong++) {
        sql_buf q = {0};
        sql_add(&q,
                "SELECT count(*) FROM (SELECT * FROM hk EXCEPT ALL SELECT * FROM (VALUES %s))",
                wrong ? HAND_ROWS_WRONG : HAND_ROWS);
        CHECK_MSG(duck_int(dc, q.p, &v), "%s", dc->error);
        CHECK_EQ_I64(v, wrong);
        q.len = 0;
        sql_add(&q, "SELECT count(*) FROM (SELECT * FROM (VALUES %s) EXCEPT ALL SELECT * FROM hk)",
                wrong ? HAND_ROWS_WRONG : HAND_ROWS);
        CHECK_MSG(duck_int(dc, q.p, &v), "%s", dc->error);
        CHECK_EQ_I64(v, wrong);
        free(q.p);
    }
    CHECK(duck_exec(dc, "DROP TABLE hk"));
}

/* ---- 2. The corpus --------------------------------------------------------------- */

/* Counting allocator (DuckDB may release arrays from its worker threads). */
typedef struct count_alloc {
    atomic_llong live_bytes;
    atomic_llong live_blocks;
} count_alloc;

static void *ca_realloc(void *opaque, void *p, size_t old_size, size_t new_size) {
    count_alloc *c = opaque;
    void *q = realloc(p, new_size ? new_size : 1);
    if (!q) return NULL;
    atomic_fetch_add(&c->live_bytes, (long long)new_size - (long long)(p ? old_size : 0));
    if (!p) atomic_fetch_add(&c->live_blocks, 1);
    return q;
}

static void ca_free(void *opaque, void *p, size_t size) {
    count_alloc *c = opaque;
    if (!p) return;
    atomic_fetch_sub(&c->live_bytes, (long long)size);
    atomic_fetch_sub(&c->live_blocks, 1);
    free(p);
}

typedef struct tally {
    int ok, fail, skip;
} tally;

/* DESCRIBE of a relation: names and types, one "name\ttype" per entry. */
typedef struct describe {
    int n;
    char **name, **type;
} describe;

static void describe_free(duck_conn *dc, describe *d) {
    for (int i = 0; i < d->n; i++) {
        dc->api->free(d->name[i]);
        dc->api->free(d->type[i]);
    }
    free(d->name);
    free(d->type);
    memset(d, 0, sizeof *d);
}

static bool describe_rel(duck_conn *dc, const char *rel, describe *d) {
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT column_name, column_type FROM (DESCRIBE %s)", rel);
    duck_result r;
    memset(d, 0, sizeof *d);
    if (!duck_run(dc, sql, &r)) {
        dc->api->destroy_result(&r);
        return false;
    }
    duck_idx n = dc->api->row_count(&r);
    d->name = calloc(n + 1, sizeof *d->name);
    d->type = calloc(n + 1, sizeof *d->type);
    if (!d->name || !d->type) abort();
    for (duck_idx i = 0; i < n; i++) {
        d->name[i] = dc->api->value_varchar(&r, 0, i);
        d->type[i] = dc->api->value_varchar(&r, 1, i);
    }
    d->n = (int)n;
    dc->api->destroy_result(&r);
    return true;
}

/* Copies s into out replacing every `from` by `to`; returns how many. */
static int replace_all(const char *s, const char *from, const char *to, char *out, size_t size) {
    size_t o = 0, fl = strlen(from);
    int n = 0;
    while (*s && o + 1 < size) {
        if (strncmp(s, from, fl) == 0) {
            for (const char *t = to; *t && o + 1 < size; t++) out[o++] = *t;
            s += fl;
            n++;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = '\0';
    return n;
}

/* The bounds of timestamp[ns] in microseconds. */
#define NS_RANGE_SQL "TIMESTAMP '1677-09-21 00:12:43.145225' AND TIMESTAMP '2262-04-11 23:47:16.854775'"

/* Builds the two select lists; false (with `why`) when the columns cannot be
 * compared. Casts are described in `notes`. */
static bool build_selects(const describe *k, const describe *d, sql_buf *ks, sql_buf *ds,
                          sql_buf *out_of_range, sql_buf *notes, char *why, size_t why_size) {
    if (k->n != d->n) {
        snprintf(why, why_size, "plank has %d columns, DuckDB %d", k->n, d->n);
        return false;
    }
    for (int i = 0; i < k->n; i++) {
        if (strcmp(k->name[i], d->name[i]) != 0) {
            snprintf(why, why_size, "column %d: plank '%s', DuckDB '%s'", i, k->name[i],
                     d->name[i]);
            return false;
        }
        sql_buf col = {0};
        sql_quoted(&col, k->name[i], '"');
        const char *kt = k->type[i], *dt = d->type[i];
        char norm[4096], norm2[4096];
        int ns = replace_all(kt, "TIMESTAMP_NS", "TIMESTAMP", norm2, sizeof norm2);
        int tz = replace_all(norm2, "TIMESTAMP WITH TIME ZONE", "TIMESTAMP", norm, sizeof norm);
        if (i) {
            sql_add(ks, ", ");
            sql_add(ds, ", ");
        }
        if (strcmp(kt, dt) == 0) {
            sql_add(ks, "%s", col.p);
            sql_add(ds, "%s", col.p);
        } else if (strcmp(norm, dt) == 0) {
            /* INT96 (nanoseconds vs microseconds) or a UTC-adjusted legacy
             * timestamp, alone or inside a nested type. */
            sql_add(ks, "CAST(%s AS %s)", col.p, dt);
            sql_add(ds, "%s", col.p);
            sql_add(notes, " [%s: plank %.200s cast to DuckDB's type:%s%s]", k->name[i], kt,
                    ns ? " INT96 timestamp[ns] vs microseconds" : "",
                    tz ? " UTC-adjusted legacy timestamp vs no time zone" : "");
            if (strcmp(kt, "TIMESTAMP_NS") == 0 && strcmp(dt, "TIMESTAMP") == 0) {
                sql_add(out_of_range, "%s%s NOT BETWEEN " NS_RANGE_SQL, out_of_range->len ? " OR " : "",
                        col.p);
            }
        } else if (strcmp(kt, "BLOB") == 0 && strncmp(dt, "GEOMETRY", 8) == 0) {
            sql_add(ks, "%s", col.p);
            sql_add(ds, "ST_AsWKB(%s)", col.p);
            sql_add(notes, " [%s: DuckDB GEOMETRY as WKB (ST_AsWKB)]", k->name[i]);
        } else {
            snprintf(why, why_size, "column '%s': plank type %s, DuckDB %s", k->name[i], kt, dt);
            free(col.p);
            return false;
        }
        free(col.p);
    }
    return true;
}

/* One pass over a file: register, materialise, compare. Returns 0 ok, 1 fail,
 * with the reason in why. */
static int compare_pass(duck_conn *dc, plank_reader *r, const char *path, const char *cols,
                        const plank_arrow_options *o, sql_buf *notes, char *why,
                        size_t why_size) {
    plank_error err;
    plank_error_init(&err);
    struct ArrowArrayStream s;
    memset(&s, 0, sizeof s);
    plank_status st = plank_reader_arrow_stream(r, NULL, 0, o, &s, &err);
    if (st != PLANK_OK) {
        snprintf(why, why_size, "plank_reader_arrow_stream: %s: %s", plank_status_string(st),
                 err.message);
        return 1;
    }
    kept_stream ks;
    kept_stream_init(&ks, &s);
    if (dc->api->arrow_scan(dc->con, "p", &ks.outer) != 0) {
        const char *le = s.get_last_error(&ks.inner);
        snprintf(why, why_size, "duckdb_arrow_scan refused the stream (%s)", le ? le : "");
        kept_stream_release(&ks);
        return 1;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE OR REPLACE TEMP TABLE k AS SELECT %s FROM p", cols);
    bool made = duck_exec(dc, sql);
    if (!made) {
        const char *le = ks.inner.get_last_error(&ks.inner);
        snprintf(why, why_size, "scanning plank's stream: %s (stream: %s)", dc->error,
                 le ? le : "no error");
    }
    CHECK(duck_exec(dc, "DROP VIEW p"));
    if (ks.has_half)
        sql_add(notes, " [float16 converted to float32 by the test: DuckDB does not import it]");
    kept_stream_release(&ks);
    if (!made) return 1;

    describe kd, dd;
    if (!describe_rel(dc, "k", &kd)) {
        snprintf(why, why_size, "DESCRIBE k: %s", dc->error);
        return 1;
    }
    if (!describe_rel(dc, "d", &dd)) {
        describe_free(dc, &kd);
        snprintf(why, why_size, "DESCRIBE d: %s", dc->error);
        return 1;
    }
    sql_buf ks_sel = {0}, ds_sel = {0}, q = {0}, range = {0}, where = {0};
    sql_add(&range, "%s", "");
    sql_add(&where, "%s", "");
    int rc = 0;
    if (!build_selects(&kd, &dd, &ks_sel, &ds_sel, &range, notes, why, why_size)) {
        rc = 1;
        goto done;
    }
    if (range.len) {
        /* INT96 values beyond timestamp[ns]: left out by row position. */
        int64_t left_out = -1;
        q.len = 0;
        sql_add(&q, "SELECT count(*) FROM d WHERE %s", range.p);
        if (!duck_int(dc, q.p, &left_out)) {
            snprintf(why, why_size, "INT96 range: %s", dc->error);
            rc = 1;
            goto done;
        }
        sql_add(&where, " WHERE rowid NOT IN (SELECT rowid FROM d WHERE %s)", range.p);
        sql_add(notes, " [%lld rows with INT96 beyond timestamp[ns] left out]", (long long)left_out);
    }
    int64_t nk = -1, nd = -2, diff = -1;
    if (!duck_int(dc, "SELECT count(*) FROM k", &nk) ||
        !duck_int(dc, "SELECT count(*) FROM d", &nd)) {
        snprintf(why, why_size, "count: %s", dc->error);
        rc = 1;
        goto done;
    }
    if (nk != nd) {
        snprintf(why, why_size, "row count: plank %lld, DuckDB %lld", (long long)nk,
                 (long long)nd);
        rc = 1;
        goto done;
    }
    for (int dir = 0; dir < 2 && rc == 0; dir++) {
        const char *a = dir ? ds_sel.p : ks_sel.p, *b = dir ? ks_sel.p : ds_sel.p;
        q.len = 0;
        sql_add(&q, "SELECT %s FROM %s%s EXCEPT ALL SELECT %s FROM %s%s", a, dir ? "d" : "k",
                where.p, b, dir ? "k" : "d", where.p);
        sql_buf c = {0};
        sql_add(&c, "SELECT count(*) FROM (%s)", q.p);
        if (!duck_int(dc, c.p, &diff)) {
            snprintf(why, why_size, "EXCEPT ALL: %s", dc->error);
            rc = 1;
        } else if (diff != 0) {
            snprintf(why, why_size, "%lld of %lld rows of %s are not in %s", (long long)diff,
                     (long long)nk, dir ? "DuckDB's read_parquet" : "plank's stream",
                     dir ? "plank's stream" : "DuckDB's read_parquet");
            c.len = 0;
            sql_add(&c, "SELECT CAST(x AS VARCHAR) FROM (%s) x LIMIT 3", q.p);
            fprintf(stderr, "    %s: rows only in %s:\n", path, dir ? "DuckDB" : "plank");
            duck_print_rows(dc, c.p, 3);
            rc = 1;
        }
        free(c.p);
    }
done:
    free(ks_sel.p);
    free(ds_sel.p);
    free(q.p);
    free(range.p);
    free(where.p);
    describe_free(dc, &kd);
    describe_free(dc, &dd);
    duck_exec(dc, "DROP TABLE IF EXISTS k");
    return rc;
}

static void compare_file(duck_conn *dc, const char *dir, const char *name, tally *t) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* Rows of 1 GiB are compared by their hash (see the top). */
    bool hashed = strcmp(name, "large_string_map.brotli.parquet") == 0;
    if (hashed && !getenv("PLANK_TEST_LARGE")) {
        /* Two 1 GiB strings: minutes and ~8 GB of memory. Opt in. */
        printf("SKIP %s: two 1 GiB strings; set PLANK_TEST_LARGE=1 to compare it\n", name);
        t->skip++;
        return;
    }
    const char *cols = hashed ? "hash(COLUMNS(*))" : "*";
    sql_buf q = {0};
    sql_add(&q, "CREATE OR REPLACE TEMP TABLE d AS SELECT %s FROM read_parquet(", cols);
    sql_quoted(&q, path, '\'');
    sql_add(&q, ")");
    if (!duck_exec(dc, q.p)) {
        char *nl = strchr(dc->error, '\n');
        if (nl) *nl = '\0';
        printf("SKIP %s: DuckDB cannot read it: %s\n", name, dc->error);
        t->skip++;
        free(q.p);
        return;
    }
    free(q.p);

    count_alloc ca;
    atomic_init(&ca.live_bytes, 0);
    atomic_init(&ca.live_blocks, 0);
    plank_allocator alloc = {ca_realloc, ca_free, &ca};
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.allocator = &alloc;
    /* These files have a wrong page CRC on purpose; DuckDB does not check CRCs. */
    bool bad_crc = strstr(name, "corrupt-checksum") != NULL;
    if (bad_crc) ro.verify_checksums = false;
    plank_error err;
    plank_error_init(&err);
    plank_reader *r = NULL;
    plank_status st = plank_reader_open_path(&r, path, &ro, &err);
    if (st != PLANK_OK) {
        printf("%s %s: plank cannot open it: %s: %s\n", st == PLANK_ERR_UNSUPPORTED ? "SKIP" : "FAIL",
               name, plank_status_string(st), err.message);
        if (st == PLANK_ERR_UNSUPPORTED) t->skip++;
        else t->fail++;
        CHECK(st == PLANK_ERR_UNSUPPORTED);
        duck_exec(dc, "DROP TABLE IF EXISTS d");
        return;
    }
    sql_buf notes = {0};
    sql_add(&notes, "%s", "");
    char why[2048] = "";
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        if (pass == 1) {
            o.dictionary_arrays = true;
            o.batch_rows = 777;
        }
        notes.len = 0;
        notes.p[0] = '\0';
        rc = compare_pass(dc, r, path, cols, &o, &notes, why, sizeof why);
        if (rc) {
            char tmp[sizeof why + 64];
            snprintf(tmp, sizeof tmp, "%s: %s", pass ? "dictionary arrays, 777-row batches"
                                                     : "default options", why);
            snprintf(why, sizeof why, "%.2000s", tmp);
        }
    }
    plank_reader_close(r);
    long long live = atomic_load(&ca.live_bytes), blocks = atomic_load(&ca.live_blocks);
    if (rc == 0 && (live != 0 || blocks != 0)) {
        snprintf(why, sizeof why, "%lld bytes in %lld blocks of plank's allocator not freed", live,
                 blocks);
        rc = 1;
    }
    if (rc) {
        printf("FAIL %s: %s\n", name, why);
        t->fail++;
    } else {
        printf("OK   %s%s%s%s\n", name, bad_crc ? " (page CRCs not verified: corrupt on purpose)" : "",
               hashed ? " (rows compared by hash(): 1 GiB values)" : "", notes.p);
        t->ok++;
    }
    CHECK_MSG(rc == 0, "%s: %s", name, why);
    free(notes.p);
    duck_exec(dc, "DROP TABLE IF EXISTS d");
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void compare_dir(duck_conn *dc, const char *dir, tally *t) {
    DIR *dp = opendir(dir);
    if (!dp) {
        fflush(stdout);
        TEST_SKIP_PART("%s: cannot list the directory", dir);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 8, ".parquet") != 0) continue; /* not *.encrypted */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        names[n] = malloc(len + 1);
        if (!names[n]) abort();
        memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(dp);
    qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n; i++) {
        compare_file(dc, dir, names[i], t);
        free(names[i]);
    }
    free(names);
}

int main(void) {
    duck_api api;
    duck_conn dc;
    char why[4096];
    if (!duck_connect(&api, &dc, why, sizeof why)) TEST_SKIP("%s", why);
    /* GeoParquet metadata must not turn WKB columns into another type. */
    CHECK(duck_exec(&dc, "SET enable_geoparquet_conversion = false"));

    test_hand_stream(&dc);

    const char *testing = th_testing_dir();
    if (!testing) {
        fflush(stdout);
        TEST_SKIP_PART("corpus: parquet-testing not found (set PLANK_TESTING_DIR)");
    } else {
        tally t = {0, 0, 0};
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/data", testing);
        compare_dir(&dc, dir, &t);
        snprintf(dir, sizeof dir, "%s/data/geospatial", testing);
        compare_dir(&dc, dir, &t);
        printf("duckdb arrow: %d ok, %d failed, %d skipped\n", t.ok, t.fail, t.skip);
        CHECK(t.ok > 0);
    }
    fflush(stdout);
    duck_close(&dc);
    TEST_END();
}
