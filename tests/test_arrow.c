/* test_arrow.c: the Arrow C Data Interface export: schema format strings,
 * flags and metadata for the type mapping, value conversions (decimal128,
 * INT96 to timestamp[ns], float16, narrow integers), release and move
 * semantics, row group selection, batch sizes, errors, and allocator
 * balance. Known answers come from the parquet-testing files' own
 * documentation (int96_from_spark.md), DuckDB's reading of the same files,
 * and a schema-only file built byte by byte below (an independent Thrift
 * compact encoder) for the types the corpus lacks. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>

#include "arrow_json.h"
#include "tharness.h"

/* ---- A counting allocator ---------------------------------------------------- */

typedef struct counting {
    int64_t live_bytes, live_blocks;
} counting;

static void *c_realloc(void *opaque, void *p, size_t old, size_t n) {
    counting *c = opaque;
    void *q = realloc(p, n ? n : 1);
    if (!q) return NULL;
    c->live_bytes += (int64_t)n - (int64_t)old;
    if (!p) c->live_blocks++;
    return q;
}
static void c_free(void *opaque, void *p, size_t n) {
    counting *c = opaque;
    if (!p) return;
    c->live_bytes -= (int64_t)n;
    c->live_blocks--;
    free(p);
}

static char g_path[1024];
static const char *data_path(const char *dir, const char *file) {
    snprintf(g_path, sizeof g_path, "%s/data/%s", dir, file);
    return g_path;
}

static plank_reader *open_file(const char *dir, const char *file, const int32_t *cols, int nc,
                               const plank_allocator *a) {
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.columns = cols;
    ro.num_columns = nc;
    ro.allocator = a;
    plank_reader *r = NULL;
    plank_error e;
    plank_status st = plank_reader_open_path(&r, data_path(dir, file), &ro, &e);
    CHECK_MSG(st == PLANK_OK, "%s: %s", file, e.message);
    return st == PLANK_OK ? r : NULL;
}

/* Reads the whole stream into one array per batch; returns the batch count. */
static int read_all(struct ArrowArrayStream *s, struct ArrowArray *out, int max) {
    int n = 0;
    for (;;) {
        struct ArrowArray a;
        int rc = s->get_next(s, &a);
        CHECK_MSG(rc == 0, "get_next %d: %s", rc, s->get_last_error(s));
        if (rc || !a.release) break;
        if (n < max) out[n++] = a;
        else a.release(&a);
    }
    return n;
}

static const char *meta_value(const char *meta, const char *key) {
    static char val[256];
    if (!meta) return NULL;
    int32_t n;
    memcpy(&n, meta, 4);
    const char *p = meta + 4;
    for (int32_t i = 0; i < n; i++) {
        int32_t kl, vl;
        memcpy(&kl, p, 4);
        const char *k = p + 4;
        memcpy(&vl, k + kl, 4);
        const char *v = k + kl + 4;
        if ((size_t)kl == strlen(key) && !memcmp(k, key, (size_t)kl)) {
            snprintf(val, sizeof val, "%.*s", (int)vl, v);
            return val;
        }
        p = v + vl;
    }
    return NULL;
}

/* ---- Flat types from the corpus -------------------------------------------------- */

static void test_alltypes(const char *dir) {
    plank_reader *r = open_file(dir, "alltypes_plain.parquet", NULL, 0, NULL);
    if (!r) return;
    static const char *const names[] = {"id", "bool_col", "tinyint_col", "smallint_col",
                                        "int_col", "bigint_col", "float_col", "double_col",
                                        "date_string_col", "string_col", "timestamp_col"};
    static const char *const fmts[] = {"i", "b", "i", "i", "i", "l", "f", "g", "z", "z", "tsn:"};
    struct ArrowSchema s;
    plank_error e;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    CHECK(!strcmp(s.format, "+s"));
    CHECK(s.flags == 0);
    CHECK_EQ_I64(s.n_children, 11);
    for (int i = 0; i < 11 && i < s.n_children; i++) {
        CHECK_MSG(!strcmp(s.children[i]->name, names[i]), "%s", s.children[i]->name);
        CHECK_MSG(!strcmp(s.children[i]->format, fmts[i]), "%s: %s", names[i],
                  s.children[i]->format);
        CHECK(s.children[i]->flags == ARROW_FLAG_NULLABLE);
        CHECK(s.children[i]->metadata == NULL);
        CHECK(s.children[i]->n_children == 0);
    }
    /* Move a child out (the consumer takes ownership), then release both. */
    struct ArrowSchema moved = *s.children[9];
    s.children[9]->release = NULL;
    s.release(&s);
    CHECK(s.release == NULL);
    CHECK(!strcmp(moved.format, "z") && !strcmp(moved.name, "string_col"));
    moved.release(&moved);
    CHECK(moved.release == NULL);

    plank_arrow_options o;
    plank_arrow_options_init(&o);
    CHECK_EQ_I64(o.batch_rows, 16384);
    CHECK(!o.dictionary_arrays && !o.int96_as_binary);
    o.int96_as_binary = true;
    CHECK(plank_reader_arrow_schema(r, &o, &s, &e) == PLANK_OK);
    CHECK(!strcmp(s.children[10]->format, "w:12"));
    s.release(&s);

    /* Values: DuckDB reads id 4,5,6,7,2,3,0,1 and string_col "0","1",... */
    struct ArrowArrayStream st;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
    struct ArrowArray b[4];
    int n = read_all(&st, b, 4);
    CHECK_EQ_I64(n, 1);
    if (n == 1) {
        static const int32_t ids[] = {4, 5, 6, 7, 2, 3, 0, 1};
        CHECK_EQ_I64(b[0].length, 8);
        const struct ArrowArray *id = b[0].children[0];
        CHECK_EQ_I64(id->null_count, 0);
        CHECK(id->buffers[0] == NULL);
        CHECK_EQ_I64(id->n_buffers, 2);
        for (int i = 0; i < 8; i++) CHECK_EQ_I64(((const int32_t *)id->buffers[1])[i], ids[i]);
        const struct ArrowArray *str = b[0].children[9];
        CHECK_EQ_I64(str->n_buffers, 3);
        const int32_t *off = str->buffers[1];
        const char *data = str->buffers[2];
        CHECK(off[0] == 0 && off[8] == 8);
        CHECK(data[0] == '0' && data[1] == '1');
        /* timestamp_col: 2009-03-01 00:00:00 for id 4 (DuckDB) */
        const struct ArrowArray *ts = b[0].children[10];
        CHECK_EQ_I64(((const int64_t *)ts->buffers[1])[0], INT64_C(1235865600) * 1000000000);
        /* Move a child array out, release the batch, then use and release it. */
        struct ArrowArray kept = *b[0].children[9];
        b[0].children[9]->release = NULL;
        b[0].release(&b[0]);
        CHECK(b[0].release == NULL);
        CHECK(((const int32_t *)kept.buffers[1])[8] == 8);
        kept.release(&kept);
        CHECK(kept.release == NULL);
    }
    /* After the end, get_next keeps reporting the end. */
    struct ArrowArray again;
    CHECK(st.get_next(&st, &again) == 0 && again.release == NULL);
    st.release(&st);
    CHECK(st.release == NULL);
    plank_reader_close(r);
}

/* Unscaled value of a little-endian 16-byte decimal that fits int64. */
static int64_t dec128_low(const struct ArrowArray *a, int64_t i, int *fits) {
    const uint8_t *p = (const uint8_t *)a->buffers[1] + i * 16;
    int64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    *fits = hi == (lo < 0 ? -1 : 0);
    return lo;
}

/* Unscaled value i of a decimal array of `bits` (32, 64 or 128) that fits int64. */
static int64_t dec_value(const struct ArrowArray *a, int bits, int64_t i, int *fits) {
    if (bits == 128) return dec128_low(a, i, fits);
    *fits = 1;
    if (bits == 64) return ((const int64_t *)a->buffers[1])[a->offset + i];
    return ((const int32_t *)a->buffers[1])[a->offset + i];
}

/* The corpus's decimal files (DuckDB reads 1.00 .. 24.00), exported as
 * decimal128, and with narrow_decimals as decimal32 / decimal64 where
 * stored as INT32 / INT64. */
static void test_decimals(const char *dir, bool narrow) {
    static const char *const files[] = {"int32_decimal.parquet", "int64_decimal.parquet",
                                        "fixed_length_decimal.parquet",
                                        "fixed_length_decimal_legacy.parquet",
                                        "byte_array_decimal.parquet"};
    static const int narrow_bits[] = {32, 64, 128, 128, 128};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        plank_reader *r = open_file(dir, files[f], NULL, 0, NULL);
        if (!r) continue;
        struct ArrowArrayStream st;
        plank_error e;
        plank_arrow_options ao;
        plank_arrow_options_init(&ao);
        ao.narrow_decimals = narrow;
        int bits = narrow ? narrow_bits[f] : 128;
        CHECK(plank_reader_arrow_stream(r, NULL, 0, &ao, &st, &e) == PLANK_OK);
        struct ArrowSchema s;
        CHECK(st.get_schema(&st, &s) == 0);
        const char *fmt = s.children[0]->format;
        CHECK_MSG(!strncmp(fmt, "d:", 2), "%s: %s", files[f], fmt);
        int prec = 0, scale = -1, fbits = 128;
        sscanf(fmt, "d:%d,%d,%d", &prec, &scale, &fbits);
        CHECK_EQ_I64(scale, 2);
        CHECK_MSG(fbits == bits, "%s: %s, want %d bits", files[f], fmt, bits);
        if (!strcmp(files[f], "byte_array_decimal.parquet")) {
            const char *id = meta_value(s.children[0]->metadata, "PARQUET:field_id");
            CHECK(id && !strcmp(id, "6"));
        }
        /* DuckDB: 1.00, 2.00, ..., 24.00 */
        struct ArrowArray b[2];
        int n = read_all(&st, b, 2);
        CHECK_EQ_I64(n, 1);
        if (n == 1) {
            const struct ArrowArray *v = b[0].children[0];
            CHECK_EQ_I64(v->length, 24);
            for (int64_t i = 0; i < v->length; i++) {
                int fits;
                int64_t u = dec_value(v, bits, i, &fits);
                CHECK_MSG(fits && u == (i + 1) * 100, "%s row %lld: %lld", files[f],
                          (long long)i, (long long)u);
            }
            b[0].release(&b[0]);
        }
        s.release(&s);
        st.release(&st);
        plank_reader_close(r);
    }
}

static void test_int96_float16(const char *dir) {
    /* int96_from_spark.md: microseconds since the epoch; the Arrow value is
     * nanoseconds, wrapping in int64 like Arrow C++ for the out-of-range ones.
     * The last value (year 290000) is stored with a day count whose
     * microseconds already wrap: DuckDB reads -7207070780300583936 us, the
     * same instant modulo 2^64 ns as plank's nanoseconds. */
    static const int64_t us[] = {1704141296123456, 1704070800000000, 253402225200000000,
                                 1735599600000000, 0, INT64_C(-7207070780300583936)};
    plank_reader *r = open_file(dir, "int96_from_spark.parquet", NULL, 0, NULL);
    if (r) {
        struct ArrowArrayStream st;
        plank_error e;
        CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
        struct ArrowArray b[2];
        int n = read_all(&st, b, 2);
        CHECK_EQ_I64(n, 1);
        if (n == 1) {
            const struct ArrowArray *v = b[0].children[0];
            CHECK_EQ_I64(v->length, 6);
            CHECK_EQ_I64(v->null_count, 1);
            CHECK(!aj_valid(v, 4) && aj_valid(v, 5));
            for (int i = 0; i < 6; i++) {
                if (i == 4) continue;
                int64_t want = (int64_t)((uint64_t)us[i] * 1000u);
                CHECK_EQ_I64(((const int64_t *)v->buffers[1])[i], want);
            }
            b[0].release(&b[0]);
        }
        st.release(&st);
        plank_reader_close(r);
    }
    /* DuckDB: null, 1.0, -2.0, nan, 0.0, -1.0, -0.0, 2.0 (IEEE half bits) */
    r = open_file(dir, "float16_nonzeros_and_nans.parquet", NULL, 0, NULL);
    if (r) {
        struct ArrowArrayStream st;
        plank_error e;
        CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
        struct ArrowSchema s;
        CHECK(st.get_schema(&st, &s) == 0);
        CHECK(!strcmp(s.children[0]->format, "e"));
        s.release(&s);
        struct ArrowArray b[2];
        int n = read_all(&st, b, 2);
        if (n == 1) {
            const struct ArrowArray *v = b[0].children[0];
            const uint16_t *h = v->buffers[1];
            CHECK_EQ_I64(v->length, 8);
            CHECK(!aj_valid(v, 0));
            CHECK_EQ_I64(h[1], 0x3c00);
            CHECK_EQ_I64(h[2], 0xc000);
            CHECK((h[3] & 0x7c00) == 0x7c00 && (h[3] & 0x3ff) != 0);
            CHECK_EQ_I64(h[6], 0x8000);
            CHECK_EQ_I64(h[7], 0x4000);
            b[0].release(&b[0]);
        }
        st.release(&st);
        plank_reader_close(r);
    }
}

static void test_narrow_ints(const char *dir) {
    /* alltypes_tiny_pages: tinyint_col INT_8 "c", smallint_col INT_16 "s";
     * DuckDB: the first rows hold tinyint 0,1,2,... == id % 10. */
    plank_reader *r = open_file(dir, "alltypes_tiny_pages.parquet", (const int32_t[]){0, 2, 3},
                                3, NULL);
    if (!r) return;
    struct ArrowArrayStream st;
    plank_error e;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.batch_rows = 1000;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) == PLANK_OK);
    struct ArrowSchema s;
    CHECK(st.get_schema(&st, &s) == 0);
    CHECK_EQ_I64(s.n_children, 3);
    CHECK(!strcmp(s.children[1]->format, "c"));
    CHECK(!strcmp(s.children[2]->format, "s"));
    s.release(&s);
    int64_t rows = 0, bad = 0, batches = 0;
    for (;;) {
        struct ArrowArray a;
        if (st.get_next(&st, &a) != 0 || !a.release) break;
        batches++;
        CHECK(a.length <= 1000);
        const int32_t *id = a.children[0]->buffers[1];
        const int8_t *t = a.children[1]->buffers[1];
        const int16_t *sm = a.children[2]->buffers[1];
        for (int64_t i = 0; i < a.length; i++)
            bad += t[i] != id[i] % 10 || sm[i] != id[i] % 10;
        rows += a.length;
        a.release(&a);
    }
    CHECK_EQ_I64(rows, 7300);
    CHECK_EQ_I64(batches, 8);
    CHECK_EQ_I64(bad, 0);
    st.release(&st);
    plank_reader_close(r);
}

/* ---- Nested schemas ---------------------------------------------------------------- */

static const struct ArrowSchema *child_named(const struct ArrowSchema *s, const char *name) {
    for (int64_t i = 0; i < s->n_children; i++)
        if (!strcmp(s->children[i]->name, name)) return s->children[i];
    return NULL;
}

static void test_nested_schema(const char *dir) {
    plank_reader *r = open_file(dir, "nullable.impala.parquet", NULL, 0, NULL);
    if (!r) return;
    struct ArrowSchema s;
    plank_error e;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    const struct ArrowSchema *m = child_named(&s, "int_map");
    CHECK(m && !strcmp(m->format, "+m") && m->flags == ARROW_FLAG_NULLABLE);
    if (m && m->n_children == 1) {
        const struct ArrowSchema *ent = m->children[0];
        CHECK(!strcmp(ent->format, "+s") && !strcmp(ent->name, "entries") && ent->flags == 0);
        CHECK_EQ_I64(ent->n_children, 2);
        CHECK(!strcmp(ent->children[0]->name, "key") && !strcmp(ent->children[0]->format, "u"));
        CHECK(ent->children[0]->flags == 0);
        CHECK(!strcmp(ent->children[1]->name, "value") && !strcmp(ent->children[1]->format, "i"));
        CHECK(ent->children[1]->flags == ARROW_FLAG_NULLABLE);
    }
    const struct ArrowSchema *l = child_named(&s, "int_array_Array");
    CHECK(l && !strcmp(l->format, "+l") && l->n_children == 1);
    if (l) {
        CHECK(!strcmp(l->children[0]->format, "+l"));
        CHECK(!strcmp(l->children[0]->children[0]->format, "i"));
        CHECK(l->children[0]->children[0]->flags == ARROW_FLAG_NULLABLE);
    }
    const struct ArrowSchema *ns = child_named(&s, "nested_struct");
    CHECK(ns && !strcmp(ns->format, "+s") && ns->n_children == 4);
    s.release(&s);
    plank_reader_close(r);

    /* Required everything: no nullable flag anywhere. */
    r = open_file(dir, "nonnullable.impala.parquet", NULL, 0, NULL);
    if (!r) return;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    for (int64_t i = 0; i < s.n_children; i++) CHECK(s.children[i]->flags == 0);
    const struct ArrowSchema *ia = child_named(&s, "Int_Array");
    CHECK(ia && ia->children[0]->flags == 0);
    s.release(&s);
    plank_reader_close(r);

    /* A value-less MAP is a list of non-null keys; repeated primitives are
     * required lists of required elements. */
    r = open_file(dir, "map_no_value.parquet", NULL, 0, NULL);
    if (!r) return;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    const struct ArrowSchema *nv = child_named(&s, "my_map_no_v");
    CHECK(nv && !strcmp(nv->format, "+l") && nv->flags == 0);
    if (nv) CHECK(!strcmp(nv->children[0]->format, "i") && nv->children[0]->flags == 0);
    s.release(&s);
    plank_reader_close(r);

    r = open_file(dir, "repeated_primitive_no_list.parquet", NULL, 0, NULL);
    if (!r) return;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    const struct ArrowSchema *il = child_named(&s, "Int32_list");
    CHECK(il && !strcmp(il->format, "+l") && il->flags == 0);
    if (il) CHECK(!strcmp(il->children[0]->format, "i") && il->children[0]->flags == 0);
    s.release(&s);
    plank_reader_close(r);

    /* nested_structs.rust: UINT_64 "L", TIMESTAMP(MICROS, UTC) "tsu:UTC". */
    r = open_file(dir, "nested_structs.rust.parquet", NULL, 0, NULL);
    if (!r) return;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    const struct ArrowSchema *rn = child_named(&s, "roll_num");
    CHECK(rn && !strcmp(child_named(rn, "count")->format, "L"));
    const struct ArrowSchema *od = child_named(&s, "ul_observation_date");
    CHECK(od && !strcmp(child_named(od, "min")->format, "tsu:UTC"));
    s.release(&s);
    plank_reader_close(r);
}

/* Batches hold exactly min(batch_rows, rows left) whole records. */
static void test_batch_sizes(const char *dir) {
    for (int64_t br = 1; br <= 7; br++) {
        plank_reader *r = open_file(dir, "nested_maps.snappy.parquet", NULL, 0, NULL);
        if (!r) return;
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        o.batch_rows = br;
        struct ArrowArrayStream st;
        plank_error e;
        CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) == PLANK_OK);
        int64_t left = 6;
        for (;;) {
            struct ArrowArray a;
            if (st.get_next(&st, &a) != 0 || !a.release) break;
            CHECK_EQ_I64(a.length, left < br ? left : br);
            /* The map column: one map per record. */
            CHECK_EQ_I64(a.children[0]->length, a.length);
            left -= a.length;
            a.release(&a);
        }
        CHECK_EQ_I64(left, 0);
        st.release(&st);
        plank_reader_close(r);
    }
}

/* Row group selection: sort_columns.parquet has two row groups. */
static void test_row_groups(const char *dir) {
    plank_reader *r = open_file(dir, "sort_columns.parquet", NULL, 0, NULL);
    if (!r) return;
    CHECK_EQ_I64(plank_reader_num_row_groups(r), 2);
    plank_row_group_info g0 = {.struct_size = sizeof g0}, g1 = {.struct_size = sizeof g1};
    plank_error e;
    CHECK(plank_reader_row_group(r, 0, &g0, &e) == PLANK_OK);
    CHECK(plank_reader_row_group(r, 1, &g1, &e) == PLANK_OK);
    const int32_t sel[] = {1};
    struct ArrowArrayStream st;
    CHECK(plank_reader_arrow_stream(r, sel, 1, NULL, &st, &e) == PLANK_OK);
    int64_t rows = 0;
    struct ArrowArray b[4];
    int n = read_all(&st, b, 4);
    for (int i = 0; i < n; i++) {
        rows += b[i].length;
        b[i].release(&b[i]);
    }
    CHECK_EQ_I64(rows, g1.num_rows);
    st.release(&st);
    /* All row groups: batches never span two row groups. */
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
    n = read_all(&st, b, 4);
    CHECK_EQ_I64(n, 2);
    if (n == 2) {
        CHECK_EQ_I64(b[0].length, g0.num_rows);
        CHECK_EQ_I64(b[1].length, g1.num_rows);
    }
    for (int i = 0; i < n; i++) b[i].release(&b[i]);
    st.release(&st);
    /* Bad arguments */
    const int32_t bad[] = {2};
    CHECK(plank_reader_arrow_stream(r, bad, 1, NULL, &st, &e) == PLANK_ERR_INVALID_ARGUMENT);
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.batch_rows = 0;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_reader_arrow_stream(NULL, NULL, 0, NULL, &st, &e) == PLANK_ERR_INVALID_ARGUMENT);
    plank_reader_close(r);
}

/* Errors are reported through get_next / get_last_error and are sticky. */
static void test_errors(const char *dir) {
    plank_reader *r = open_file(dir, "datapage_v1-corrupt-checksum.parquet", NULL, 0, NULL);
    if (!r) return;
    struct ArrowArrayStream st;
    plank_error e;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
    CHECK(st.get_last_error(&st) == NULL);
    struct ArrowArray a;
    int rc = st.get_next(&st, &a);
    CHECK(rc != 0);
    CHECK(a.release == NULL);
    const char *msg = st.get_last_error(&st);
    CHECK(msg && strstr(msg, "CRC32"));
    CHECK(st.get_next(&st, &a) == rc);
    st.release(&st);
    plank_reader_close(r);
}

/* Arrays own their memory: they outlive the stream and the reader, and every
 * byte goes back to the caller's allocator. */
static void test_ownership(const char *dir) {
    counting c = {0, 0};
    plank_allocator al = {c_realloc, c_free, &c};
    plank_reader *r = open_file(dir, "nullable.impala.parquet", NULL, 0, &al);
    if (!r) return;
    struct ArrowArrayStream st;
    plank_error e;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.batch_rows = 4;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) == PLANK_OK);
    struct ArrowSchema s;
    CHECK(st.get_schema(&st, &s) == 0);
    struct ArrowArray b[4];
    int n = read_all(&st, b, 4);
    CHECK_EQ_I64(n, 2);
    st.release(&st);
    plank_reader_close(r);
    CHECK(c.live_blocks > 0);
    if (n == 2) {
        aj_buf j = {0};
        aj_row(&j, &s, &b[1], 2);
        CHECK(!strcmp(j.p, "[\"7\",null,[null,[5,6]],[{\"key\":\"k1\",\"value\":null},{\"key\":"
                           "\"k3\",\"value\":null}],null,{\"A\":7,\"b\":[2,3,null],\"C\":{\"d\":"
                           "[[],[null],null]},\"g\":null}]"));
        free(j.p);
    }
    for (int i = 0; i < n; i++) b[i].release(&b[i]);
    s.release(&s);
    CHECK_EQ_I64(c.live_blocks, 0);
    CHECK_EQ_I64(c.live_bytes, 0);
}

/* ---- A schema-only file built byte by byte (Thrift compact protocol) ------------ */

typedef struct tw {
    unsigned char b[4096];
    size_t n;
    int last[16]; /* last field id per struct depth */
    int depth;
} tw;

static void tw_byte(tw *w, unsigned v) { w->b[w->n++] = (unsigned char)v; }
static void tw_varint(tw *w, uint64_t v) {
    while (v >= 0x80) {
        tw_byte(w, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    tw_byte(w, (unsigned)v);
}
static void tw_field(tw *w, int id, int type) {
    int delta = id - w->last[w->depth];
    if (delta > 0 && delta <= 15) {
        tw_byte(w, (unsigned)(delta << 4 | type));
    } else {
        tw_byte(w, (unsigned)type);
        tw_varint(w, (uint64_t)((id << 1) ^ (id >> 31)));
    }
    w->last[w->depth] = id;
}
static void tw_i32(tw *w, int id, int32_t v) {
    tw_field(w, id, 5);
    tw_varint(w, (uint32_t)((v << 1) ^ (v >> 31)));
}
static void tw_bool(tw *w, int id, int v) { tw_field(w, id, v ? 1 : 2); }
static void tw_str(tw *w, int id, const char *s) {
    tw_field(w, id, 8);
    tw_varint(w, strlen(s));
    memcpy(w->b + w->n, s, strlen(s));
    w->n += strlen(s);
}
static void tw_begin(tw *w, int id) { /* id 0: list element */
    if (id) tw_field(w, id, 12);
    w->last[++w->depth] = 0;
}
static void tw_end(tw *w) {
    tw_byte(w, 0);
    w->depth--;
}

enum { T_INT32 = 1, T_INT64 = 2, T_BA = 6, T_FLBA = 7, T_GROUP = -1 };
enum { REQ = 0, OPT = 1, REP = 2 };

/* One SchemaElement. conv < 0: none; logical: LogicalType union member id
 * (0: none) with its parameters a, b. */
static void tw_elem(tw *w, const char *name, int type, int len, int rep, int children, int conv,
                    int prec, int scale, int fid, int logical, int a, int b) {
    tw_begin(w, 0);
    if (type >= 0) tw_i32(w, 1, type);
    if (len) tw_i32(w, 2, len);
    tw_i32(w, 3, rep);
    tw_str(w, 4, name);
    if (children) tw_i32(w, 5, children);
    if (conv >= 0) tw_i32(w, 6, conv);
    if (conv == 5) {
        tw_i32(w, 7, scale);
        tw_i32(w, 8, prec);
    }
    if (fid >= 0) tw_i32(w, 9, fid);
    if (logical) {
        tw_begin(w, 10);
        tw_begin(w, logical);
        if (logical == 7 || logical == 8) { /* TIME / TIMESTAMP(isAdjustedToUTC=a, unit=b) */
            tw_bool(w, 1, a);
            tw_begin(w, 2);
            tw_begin(w, b); /* 1 MILLIS, 2 MICROS, 3 NANOS */
            tw_end(w);
            tw_end(w);
        } else if (logical == 10) { /* INTEGER(bitWidth=a, isSigned=b) */
            tw_field(w, 1, 3);
            tw_byte(w, (unsigned)a);
            tw_bool(w, 2, b);
        }
        tw_end(w);
        tw_end(w);
    }
    tw_end(w);
}

static size_t build_schema_file(unsigned char *out) {
    static tw w;
    memset(&w, 0, sizeof w);
    memcpy(w.b, "PAR1", 4);
    w.n = 4;
    size_t start = w.n;
    tw_begin(&w, 0);
    tw_i32(&w, 1, 2);
    tw_field(&w, 2, 9);
    tw_byte(&w, 0xF0 | 12);
    tw_varint(&w, 33);
    tw_elem(&w, "schema", T_GROUP, 0, REQ, 22, -1, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "d", T_INT32, 0, REQ, 0, -1, 0, 0, -1, 6, 0, 0);
    tw_elem(&w, "t_ms", T_INT32, 0, REQ, 0, -1, 0, 0, -1, 7, 1, 1);
    tw_elem(&w, "t_us", T_INT64, 0, REQ, 0, -1, 0, 0, -1, 7, 1, 2);
    tw_elem(&w, "t_ns", T_INT64, 0, REQ, 0, -1, 0, 0, -1, 7, 0, 3);
    tw_elem(&w, "ts_ms", T_INT64, 0, REQ, 0, -1, 0, 0, -1, 8, 0, 1);
    tw_elem(&w, "ts_ns_utc", T_INT64, 0, REQ, 0, -1, 0, 0, -1, 8, 1, 3);
    tw_elem(&w, "u8", T_INT32, 0, REQ, 0, -1, 0, 0, -1, 10, 8, 0);
    tw_elem(&w, "u16", T_INT32, 0, REQ, 0, 12, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "u32", T_INT32, 0, REQ, 0, -1, 0, 0, -1, 10, 32, 0);
    tw_elem(&w, "i16", T_INT32, 0, REQ, 0, 16, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "uuid", T_FLBA, 16, REQ, 0, -1, 0, 0, -1, 14, 0, 0);
    tw_elem(&w, "dec", T_FLBA, 20, REQ, 0, 5, 45, 3, -1, 0, 0, 0);
    tw_elem(&w, "json", T_BA, 0, REQ, 0, 19, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "enum", T_BA, 0, REQ, 0, 4, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "interval", T_FLBA, 12, REQ, 0, 21, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "unk", T_INT32, 0, OPT, 0, -1, 0, 0, -1, 11, 0, 0);
    tw_elem(&w, "fid", T_INT32, 0, OPT, 0, -1, 0, 0, 42, 0, 0, 0);
    tw_elem(&w, "bson", T_BA, 0, REQ, 0, 20, 0, 0, -1, 0, 0, 0);
    /* MAP_KEY_VALUE outside a MAP is a MAP */
    tw_elem(&w, "m", T_GROUP, 0, OPT, 1, 2, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "map", T_GROUP, 0, REP, 2, -1, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "key", T_BA, 0, REQ, 0, 0, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "value", T_INT32, 0, OPT, 0, -1, 0, 0, -1, 0, 0, 0);
    /* rule 4: one-field repeated group named <list>_tuple is the element */
    tw_elem(&w, "lt", T_GROUP, 0, OPT, 1, 3, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "lt_tuple", T_GROUP, 0, REP, 1, -1, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "x", T_INT32, 0, REQ, 0, -1, 0, 0, -1, 0, 0, 0);
    /* rule 5: otherwise the one field is the element, with its repetition */
    tw_elem(&w, "l5", T_GROUP, 0, OPT, 1, 3, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "element", T_GROUP, 0, REP, 1, -1, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "str", T_BA, 0, OPT, 0, 0, 0, 0, -1, 0, 0, 0);
    /* rule 2: a repeated group of several fields is the element */
    tw_elem(&w, "l2", T_GROUP, 0, REQ, 1, 3, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "pair", T_GROUP, 0, REP, 2, -1, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "a", T_INT32, 0, REQ, 0, -1, 0, 0, -1, 0, 0, 0);
    tw_elem(&w, "b", T_INT32, 0, OPT, 0, -1, 0, 0, -1, 0, 0, 0);
    tw_field(&w, 3, 6);
    tw_varint(&w, 0);
    tw_field(&w, 4, 9);
    tw_byte(&w, 0x0C); /* empty list of RowGroup */
    tw_end(&w);
    uint32_t flen = (uint32_t)(w.n - start);
    memcpy(w.b + w.n, &flen, 4);
    memcpy(w.b + w.n + 4, "PAR1", 4);
    w.n += 8;
    memcpy(out, w.b, w.n);
    return w.n;
}

static void test_built_schema(void) {
    static unsigned char file[4096];
    size_t len = build_schema_file(file);
    plank_reader *r = NULL;
    plank_error e;
    plank_status st = plank_reader_open_memory(&r, file, len, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st != PLANK_OK) return;
    struct ArrowSchema s;
    CHECK(plank_reader_arrow_schema(r, NULL, &s, &e) == PLANK_OK);
    static const char *const want[][2] = {
        {"d", "tdD"}, {"t_ms", "ttm"}, {"t_us", "ttu"}, {"t_ns", "ttn"}, {"ts_ms", "tsm:"},
        {"ts_ns_utc", "tsn:UTC"}, {"u8", "C"}, {"u16", "S"}, {"u32", "I"}, {"i16", "s"},
        {"uuid", "w:16"}, {"dec", "d:45,3,256"}, {"json", "u"}, {"enum", "u"},
        {"interval", "w:12"}, {"unk", "n"}, {"fid", "i"}, {"bson", "z"}, {"m", "+m"},
        {"lt", "+l"}, {"l5", "+l"}, {"l2", "+l"}};
    CHECK_EQ_I64(s.n_children, (int64_t)(sizeof want / sizeof want[0]));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct ArrowSchema *c = child_named(&s, want[i][0]);
        CHECK_MSG(c && !strcmp(c->format, want[i][1]), "%s: %s, want %s", want[i][0],
                  c ? c->format : "(missing)", want[i][1]);
    }
    const struct ArrowSchema *u = child_named(&s, "uuid");
    if (u) {
        const char *n = meta_value(u->metadata, "ARROW:extension:name");
        CHECK(n && !strcmp(n, "arrow.uuid"));
        const char *m = meta_value(u->metadata, "ARROW:extension:metadata");
        CHECK(m && !strcmp(m, ""));
        CHECK(u->flags == 0);
    }
    const struct ArrowSchema *f = child_named(&s, "fid");
    if (f) {
        const char *id = meta_value(f->metadata, "PARQUET:field_id");
        CHECK(id && !strcmp(id, "42"));
        CHECK(f->flags == ARROW_FLAG_NULLABLE);
    }
    const struct ArrowSchema *m = child_named(&s, "m");
    if (m && m->n_children == 1 && m->children[0]->n_children == 2) {
        CHECK(!strcmp(m->children[0]->children[0]->format, "u"));
        CHECK(!strcmp(m->children[0]->children[1]->format, "i"));
    }
    const struct ArrowSchema *lt = child_named(&s, "lt");
    if (lt && lt->n_children == 1) {
        const struct ArrowSchema *el = lt->children[0];
        CHECK(!strcmp(el->format, "+s") && !strcmp(el->name, "lt_tuple") && el->flags == 0);
        CHECK(el->n_children == 1 && !strcmp(el->children[0]->name, "x"));
    }
    const struct ArrowSchema *l5 = child_named(&s, "l5");
    if (l5 && l5->n_children == 1) {
        CHECK(!strcmp(l5->children[0]->format, "u") && !strcmp(l5->children[0]->name, "str"));
        CHECK(l5->children[0]->flags == ARROW_FLAG_NULLABLE);
    }
    const struct ArrowSchema *l2 = child_named(&s, "l2");
    if (l2 && l2->n_children == 1) {
        CHECK(l2->flags == 0);
        CHECK(!strcmp(l2->children[0]->format, "+s") && l2->children[0]->n_children == 2);
    }
    s.release(&s);
    /* No row groups: the stream ends at once. */
    struct ArrowArrayStream stream;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &stream, &e) == PLANK_OK);
    struct ArrowArray a;
    CHECK(stream.get_next(&stream, &a) == 0 && a.release == NULL);
    stream.release(&stream);
    plank_reader_close(r);
}

/* Hostile input: seeded byte flips over the nested files. Every stream must
 * end with either the whole file or an error, and every array produced must
 * be structurally sound (the JSON walker follows every offset and child). */
static uint64_t rng_next(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_flips(const char *dir) {
    static const char *const files[] = {
        "nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "list_columns.parquet",
        "nullable.impala.parquet", "nonnullable.impala.parquet", "map_no_value.parquet",
        "repeated_no_annotation.parquet", "old_list_structure.parquet",
        "repeated_primitive_no_list.parquet", "datapage_v2.snappy.parquet"};
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int64_t ok = 0, failed = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        unsigned char *orig = th_read_file(data_path(dir, files[f]), &len);
        CHECK(orig != NULL);
        if (!orig) continue;
        unsigned char *buf = malloc(len);
        for (int round = 0; round < 300; round++) {
            memcpy(buf, orig, len);
            int flips = 1 + (int)(rng_next(&seed) % 3);
            for (int k = 0; k < flips; k++) {
                /* mostly inside the data pages, sometimes anywhere */
                size_t at = (size_t)(rng_next(&seed) % len);
                buf[at] ^= (unsigned char)(1u << (rng_next(&seed) % 8));
            }
            plank_reader_options ro;
            plank_reader_options_init(&ro);
            ro.verify_checksums = false;
            plank_reader *r = NULL;
            plank_error e;
            if (plank_reader_open_memory(&r, buf, len, &ro, &e) != PLANK_OK) {
                failed++;
                continue;
            }
            plank_arrow_options o;
            plank_arrow_options_init(&o);
            o.batch_rows = 1 + (int64_t)(rng_next(&seed) % 4);
            struct ArrowArrayStream st;
            if (plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) != PLANK_OK) {
                failed++;
                plank_reader_close(r);
                continue;
            }
            struct ArrowSchema s;
            CHECK(st.get_schema(&st, &s) == 0);
            for (;;) {
                struct ArrowArray a;
                int rc = st.get_next(&st, &a);
                if (rc) {
                    CHECK(st.get_last_error(&st) != NULL);
                    failed++;
                    break;
                }
                if (!a.release) {
                    ok++;
                    break;
                }
                for (int64_t i = 0; i < a.length; i++) {
                    aj_buf j = {0};
                    aj_row(&j, &s, &a, i);
                    free(j.p);
                }
                a.release(&a);
            }
            s.release(&s);
            st.release(&st);
            plank_reader_close(r);
        }
        free(buf);
        free(orig);
    }
    CHECK(ok > 0 && failed > 0);
}


/* ---- Logical comparison of two exports ------------------------------------ */

/* Compares value i of (sa, a) with value j of (sb, b) through the Arrow C
 * Data Interface only: offsets of either width ("+l"/"+L", "u"/"U", ...),
 * and dictionary-encoded arrays resolved through their dictionary, so an
 * export with large offsets or dictionaries can be checked against the plain
 * one. */
static int fixed_width(const char *f) {
    if (f[0] == 'w' && f[1] == ':') return atoi(f + 2);
    if (f[0] == 'd' && f[1] == ':') return strstr(f, ",256") ? 32 : 16;
    if (f[0] == 't' && f[1] == 's') return 8;
    if (!strcmp(f, "tdD") || !strcmp(f, "ttm")) return 4;
    if (!strcmp(f, "ttu") || !strcmp(f, "ttn")) return 8;
    switch (f[0]) {
    case 'c': case 'C': return 1;
    case 's': case 'S': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'g': return 8;
    default: return -1;
    }
}

static int is_valid_at(const struct ArrowArray *a, int64_t i) {
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    i += a->offset;
    return !v || (v[i >> 3] >> (i & 7)) & 1;
}

static int64_t offset_at(const struct ArrowArray *a, int large, int64_t i) {
    i += a->offset;
    return large ? ((const int64_t *)a->buffers[1])[i] : ((const int32_t *)a->buffers[1])[i];
}

static int same_value(const struct ArrowSchema *sa, const struct ArrowArray *a, int64_t i,
                      const struct ArrowSchema *sb, const struct ArrowArray *b, int64_t j) {
    if (!strcmp(sa->format, "n") || !strcmp(sb->format, "n")) return !strcmp(sa->format, sb->format);
    int va = is_valid_at(a, i), vb = is_valid_at(b, j);
    if (va != vb) return 0;
    if (!va) return 1;
    if (sa->dictionary) {
        int64_t k = ((const int32_t *)a->buffers[1])[a->offset + i];
        if (k < 0 || k >= a->dictionary->length) return 0;
        return same_value(sa->dictionary, a->dictionary, k, sb, b, j);
    }
    if (sb->dictionary) return same_value(sb, b, j, sa, a, i);
    const char *fa = sa->format, *fb = sb->format;
    if (fa[0] == '+' && fb[0] == '+') {
        if (fa[1] == 's' && fb[1] == 's') {
            if (sa->n_children != sb->n_children) return 0;
            for (int64_t k = 0; k < sa->n_children; k++)
                if (!same_value(sa->children[k], a->children[k], i + a->offset, sb->children[k],
                                b->children[k], j + b->offset))
                    return 0;
            return 1;
        }
        int la = fa[1] == 'L', lb = fb[1] == 'L';
        if (tolower((unsigned char)fa[1]) != tolower((unsigned char)fb[1])) return 0;
        int64_t a0 = offset_at(a, la, i), a1 = offset_at(a, la, i + 1);
        int64_t b0 = offset_at(b, lb, j), b1 = offset_at(b, lb, j + 1);
        if (a1 - a0 != b1 - b0) return 0;
        for (int64_t k = 0; k < a1 - a0; k++)
            if (!same_value(sa->children[0], a->children[0], a0 + k, sb->children[0],
                            b->children[0], b0 + k))
                return 0;
        return 1;
    }
    if (strchr("uzUZ", fa[0]) && fa[1] == 0 && strchr("uzUZ", fb[0]) && fb[1] == 0) {
        if (tolower((unsigned char)fa[0]) != tolower((unsigned char)fb[0])) return 0;
        int la = fa[0] == 'U' || fa[0] == 'Z', lb = fb[0] == 'U' || fb[0] == 'Z';
        int64_t a0 = offset_at(a, la, i), a1 = offset_at(a, la, i + 1);
        int64_t b0 = offset_at(b, lb, j), b1 = offset_at(b, lb, j + 1);
        return a1 - a0 == b1 - b0 &&
               memcmp((const uint8_t *)a->buffers[2] + a0, (const uint8_t *)b->buffers[2] + b0,
                      (size_t)(a1 - a0)) == 0;
    }
    if (strcmp(fa, fb)) return 0;
    if (!strcmp(fa, "b")) {
        int64_t x = i + a->offset, y = j + b->offset;
        const uint8_t *ba = a->buffers[1], *bb = b->buffers[1];
        return ((ba[x >> 3] >> (x & 7)) & 1) == ((bb[y >> 3] >> (y & 7)) & 1);
    }
    int w = fixed_width(fa);
    if (w <= 0) return 0;
    return memcmp((const uint8_t *)a->buffers[1] + (size_t)(i + a->offset) * (size_t)w,
                  (const uint8_t *)b->buffers[1] + (size_t)(j + b->offset) * (size_t)w,
                  (size_t)w) == 0;
}

/* Reads the whole file with options o: schema and one array per batch. */
typedef struct export_all {
    struct ArrowSchema schema;
    struct ArrowArray arrays[64];
    int n;
} export_all;

static int export_file(const char *dir, const char *file, const plank_arrow_options *o,
                       export_all *x) {
    memset(x, 0, sizeof *x);
    plank_reader *r = open_file(dir, file, NULL, 0, NULL);
    if (!r) return 0;
    struct ArrowArrayStream st;
    plank_error e;
    plank_status rc = plank_reader_arrow_stream(r, NULL, 0, o, &st, &e);
    CHECK_MSG(rc == PLANK_OK, "%s: %s", file, e.message);
    if (rc != PLANK_OK) {
        plank_reader_close(r);
        return 0;
    }
    CHECK(st.get_schema(&st, &x->schema) == 0);
    x->n = read_all(&st, x->arrays, 64);
    st.release(&st);
    plank_reader_close(r);
    return 1;
}

static void export_free(export_all *x) {
    for (int k = 0; k < x->n; k++) x->arrays[k].release(&x->arrays[k]);
    if (x->schema.release) x->schema.release(&x->schema);
}

/* Every row of a equals the same row of b (batches may be cut differently). */
static int64_t same_rows(const char *file, export_all *a, export_all *b) {
    int64_t rows = 0;
    int bi = 0;
    int64_t bj = 0;
    for (int ai = 0; ai < a->n; ai++) {
        for (int64_t i = 0; i < a->arrays[ai].length; i++) {
            while (bi < b->n && bj >= b->arrays[bi].length) {
                bi++;
                bj = 0;
            }
            if (bi >= b->n) {
                CHECK_MSG(0, "%s: second export ends at row %lld", file, (long long)rows);
                return rows;
            }
            int ok = same_value(&a->schema, &a->arrays[ai], i, &b->schema, &b->arrays[bi], bj);
            CHECK_MSG(ok, "%s: row %lld differs", file, (long long)rows);
            if (!ok) return rows;
            bj++;
            rows++;
        }
    }
    CHECK_MSG(bi >= b->n || (bi == b->n - 1 && bj == b->arrays[bi].length), "%s: extra rows",
              file);
    return rows;
}

static int has_format(const struct ArrowSchema *s, const char *f) {
    if (!strcmp(s->format, f)) return 1;
    for (int64_t k = 0; k < s->n_children; k++)
        if (has_format(s->children[k], f)) return 1;
    return 0;
}

/* Large offsets: with the threshold forced to 0 every string/binary column
 * becomes "U"/"Z" and every list "+L", holding the same values as the
 * default 32-bit export; the default keeps the 32-bit types on these small
 * files. */
static void test_large_offsets(const char *dir) {
    static const char *files[] = {"alltypes_plain.parquet", "nested_lists.snappy.parquet",
                                  "binary.parquet", "list_columns.parquet",
                                  "nested_maps.snappy.parquet", "delta_byte_array.parquet",
                                  "repeated_no_annotation.parquet", "nullable.impala.parquet"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        o.batch_rows = 3;
        export_all small, large;
        if (!export_file(dir, files[f], &o, &small)) continue;
        o.large_offsets = true;
        int ok = export_file(dir, files[f], &o, &large);
        if (ok) {
            CHECK(!has_format(&small.schema, "U") && !has_format(&small.schema, "Z") &&
                  !has_format(&small.schema, "+L"));
            CHECK(!has_format(&large.schema, "u") && !has_format(&large.schema, "z") &&
                  !has_format(&large.schema, "+l"));
            CHECK_MSG(same_rows(files[f], &small, &large) > 0, "%s: no rows", files[f]);
            export_free(&large);
        }
        export_free(&small);
    }
    /* Spot checks of the forced formats. */
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    export_all x;
    o.large_offsets = true;
    if (export_file(dir, "binary.parquet", &o, &x)) {
        CHECK(!strcmp(x.schema.children[0]->format, "Z"));
        export_free(&x);
    }
    if (export_file(dir, "list_columns.parquet", &o, &x)) {
        CHECK(has_format(&x.schema, "+L"));
        CHECK(has_format(&x.schema, "U"));
        export_free(&x);
    }
}

/* large_string_map.brotli.parquet: two 1 GiB strings in one map column
 * ("+m" keeps int32 offsets, the key strings become "U"). Opt-in: needs
 * several GB and minutes. */
static void test_large_file(const char *dir) {
    if (!getenv("PLANK_TEST_LARGE")) return;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    export_all x;
    if (!export_file(dir, "large_string_map.brotli.parquet", &o, &x)) return;
    CHECK(has_format(&x.schema, "U"));
    CHECK_EQ_I64(x.n, 1);
    if (x.n == 1) CHECK_EQ_I64(x.arrays[0].length, 2);
    export_free(&x);
}

/* The leaf fields with a dictionary, depth first. */
static int count_dict_fields(const struct ArrowSchema *s) {
    int n = s->dictionary != NULL;
    if (s->dictionary) {
        CHECK(!strcmp(s->format, "i"));
        CHECK(strchr("uzUZ", s->dictionary->format[0]) && s->dictionary->format[1] == 0);
        CHECK(s->dictionary->dictionary == NULL);
    }
    for (int64_t k = 0; k < s->n_children; k++) n += count_dict_fields(s->children[k]);
    return n;
}

/* Dictionary arrays: every BYTE_ARRAY string/binary leaf becomes int32
 * indices over a dictionary of its values; resolved, they equal the plain
 * export row for row (dictionary pages, and the fallback path of files
 * without dictionaries: delta encodings), at odd batch sizes that cut pages. */
static void test_dictionary_arrays(const char *dir) {
    static const struct {
        const char *file;
        int dict_fields;
    } files[] = {{"alltypes_dictionary.parquet", 2},
                 {"rle-dict-snappy-checksum.parquet", 1},
                 {"data_index_bloom_encoding_with_length.parquet", 1},
                 {"nested_lists.snappy.parquet", 1},
                 {"delta_byte_array.parquet", 9},
                 {"delta_length_byte_array.parquet", 1},
                 {"delta_encoding_optional_column.parquet", 8},
                 {"plain-dict-uncompressed-checksum.parquet", 1},
                 {"nested_maps.snappy.parquet", 1},
                 {"binary.parquet", 1}};
    static const int64_t batches[] = {65536, 777, 3, 1};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        for (size_t bi = 0; bi < sizeof batches / sizeof *batches; bi++) {
            plank_arrow_options o;
            plank_arrow_options_init(&o);
            o.batch_rows = batches[bi];
            export_all plain, dict;
            if (!export_file(dir, files[f].file, &o, &plain)) continue;
            o.dictionary_arrays = true;
            if (export_file(dir, files[f].file, &o, &dict)) {
                CHECK_MSG(count_dict_fields(&dict.schema) == files[f].dict_fields,
                          "%s: %d dictionary fields", files[f].file,
                          count_dict_fields(&dict.schema));
                CHECK(count_dict_fields(&plain.schema) == 0);
                /* Dictionary pages are passed on, not expanded: the
                 * dictionary of a dictionary-encoded string column is
                 * shorter than the batch. */
                if (f == 1 && bi == 0 && dict.n > 0) {
                    const struct ArrowArray *a = dict.arrays[0].children[1];
                    CHECK(a->dictionary != NULL);
                    if (a->dictionary)
                        CHECK_MSG(a->dictionary->length * 10 < a->length, "%lld of %lld",
                                  (long long)a->dictionary->length, (long long)a->length);
                }
                CHECK_MSG(same_rows(files[f].file, &dict, &plain) > 0, "%s: no rows",
                          files[f].file);
                export_free(&dict);
            }
            export_free(&plain);
        }
    }
    /* alltypes_dictionary.parquet: string_col (column 9) holds "0" and "1"
     * from a two-entry dictionary page; the indices point into it. */
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.dictionary_arrays = true;
    export_all x;
    if (export_file(dir, "alltypes_dictionary.parquet", &o, &x)) {
        CHECK_EQ_I64(x.n, 1);
        const struct ArrowSchema *fs = x.schema.children[9];
        CHECK(!strcmp(fs->name, "string_col") && !strcmp(fs->format, "i") && fs->dictionary &&
              !strcmp(fs->dictionary->format, "z"));
        const struct ArrowArray *a = x.arrays[0].children[9];
        CHECK_EQ_I64(a->length, 2);
        CHECK(a->n_buffers == 2 && a->dictionary && a->dictionary->length == 2);
        if (a->dictionary && a->dictionary->length == 2) {
            const int32_t *ix = a->buffers[1];
            const int32_t *off = a->dictionary->buffers[1];
            const char *data = a->dictionary->buffers[2];
            for (int r = 0; r < 2; r++) {
                CHECK(ix[r] >= 0 && ix[r] < 2);
                CHECK_EQ_I64(off[ix[r] + 1] - off[ix[r]], 1);
                CHECK(data[off[ix[r]]] == '0' + r);
            }
        }
        export_free(&x);
    }
    /* Large offsets and dictionaries together: the dictionary's values get
     * 64-bit offsets ("U"/"Z") with the same values. */
    o.large_offsets = true;
    export_all large;
    if (export_file(dir, "nested_lists.snappy.parquet", &o, &large)) {
        o.dictionary_arrays = false;
        o.large_offsets = false;
        if (export_file(dir, "nested_lists.snappy.parquet", &o, &x)) {
            CHECK(has_format(large.schema.children[0], "+L"));
            CHECK(same_rows("nested_lists.snappy.parquet (large)", &large, &x) > 0);
            export_free(&x);
        }
        export_free(&large);
    }
}

int main(void) {
    const char *dir = th_testing_dir();
    if (!dir) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    test_alltypes(dir);
    test_decimals(dir, false);
    test_decimals(dir, true);
    test_int96_float16(dir);
    test_narrow_ints(dir);
    test_nested_schema(dir);
    test_batch_sizes(dir);
    test_row_groups(dir);
    test_errors(dir);
    test_ownership(dir);
    test_flips(dir);
    test_built_schema();
    test_large_offsets(dir);
    test_large_file(dir);
    test_dictionary_arrays(dir);
    TEST_END();
}
