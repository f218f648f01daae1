/* test_nested.c: nested record assembly through the Arrow stream, checked
 * against known answers. Expected rows are DuckDB 1.x's `select * from
 * 'file'` as JSON (getRowsJson), or, where DuckDB cannot read the file
 * (map_no_value.parquet: "MAP_KEY_VALUE requires two children"), what the
 * file's own documentation (map_no_value.md) and the reference Arrow readers
 * (arrow-cpp, arrow-rs: a value-less map is a list of its keys) say. Column
 * subsets were projected from the same DuckDB rows. arrow_json.h walks the
 * exported ArrowArrays independently of plank's internals. Every case runs
 * with batch_rows 1, 2, 3 and the default: batches must hold whole records. */
#include "arrow_json.h"
#include "tharness.h"

typedef struct nested_case {
    const char *file;
    const int32_t *cols; /* NULL: all */
    int ncols;
    const char *const *rows;
    int nrows;
} nested_case;

#define ROWS(a) a, (int)(sizeof a / sizeof a[0])

static const char *const nested_lists[] = {
    "[[[[\"a\",\"b\"],[\"c\"]],[null,[\"d\"]]],1]",
    "[[[[\"a\",\"b\"],[\"c\",\"d\"]],[null,[\"e\"]]],1]",
    "[[[[\"a\",\"b\"],[\"c\",\"d\"],[\"e\"]],[null,[\"f\"]]],1]",
};
static const char *const nested_maps[] = {
    "[[{\"key\":\"a\",\"value\":[{\"key\":1,\"value\":true},{\"key\":2,\"value\":false}]}],1,1]",
    "[[{\"key\":\"b\",\"value\":[{\"key\":1,\"value\":true}]}],1,1]",
    "[[{\"key\":\"c\",\"value\":null}],1,1]",
    "[[{\"key\":\"d\",\"value\":[]}],1,1]",
    "[[{\"key\":\"e\",\"value\":[{\"key\":1,\"value\":true}]}],1,1]",
    ("[[{\"key\":\"f\",\"value\":[{\"key\":3,\"value\":true},{\"key\":4,\"value\":false},{\"key\":5,"
    "\"value\":true}]}],1,1]"),
};
static const char *const list_columns[] = {
    "[[\"1\",\"2\",\"3\"],[\"abc\",\"efg\",\"hij\"]]",
    "[[null,\"1\"],null]",
    "[[\"4\"],[\"efg\",null,\"hij\",\"xyz\"]]",
};
/* item is INT32 annotated UNKNOWN (always null): Arrow null type; the row
 * is an empty list either way. */
static const char *const null_list[] = {"[[]]"};
/* Two-level lists, rule 3 of LogicalTypes.md (repeated group "array" whose
 * one field is repeated): list<list<int32>>. */
static const char *const old_list_structure[] = {"[[[1,2],[3,4]]]"};
/* An optional group holding an unannotated repeated group: struct of a
 * required list of required structs. */
static const char *const repeated_no_annotation[] = {
    "[1,null]",
    "[2,null]",
    "[3,{\"phone\":[]}]",
    "[4,{\"phone\":[{\"number\":\"5555555555\",\"kind\":null}]}]",
    "[5,{\"phone\":[{\"number\":\"1111111111\",\"kind\":\"home\"}]}]",
    ("[6,{\"phone\":[{\"number\":\"1111111111\",\"kind\":\"home\"},{\"number\":\"2222222222\","
    "\"kind\":null},{\"number\":\"3333333333\",\"kind\":\"mobile\"}]}]"),
};
static const char *const repeated_primitive_no_list[] = {
    ("[[0,1,2,3],[\"foo\",\"zero\",\"one\",\"two\"],{\"Int32_list_in_group\":[0,1,2,3],"
    "\"String_list_in_group\":[\"foo\",\"zero\",\"one\",\"two\"]}]"),
    "[[],[\"three\"],{\"Int32_list_in_group\":[],\"String_list_in_group\":[\"three\"]}]",
    "[[4],[\"four\"],{\"Int32_list_in_group\":[4],\"String_list_in_group\":[\"four\"]}]",
    ("[[5,6,7,8],[\"five\",\"six\",\"seven\",\"eight\"],{\"Int32_list_in_group\":[5,6,7,8],"
    "\"String_list_in_group\":[\"five\",\"six\",\"seven\",\"eight\"]}]"),
};
static const char *const nullable_impala[] = {
    ("[\"1\",[1,2,3],[[1,2],[3,4]],[{\"key\":\"k1\",\"value\":1},{\"key\":\"k2\",\"value\":100}],"
    "[[{\"key\":\"k1\",\"value\":1}]],{\"A\":1,\"b\":[1],\"C\":{\"d\":[[{\"E\":10,\"F\":\"aaa\"},"
    "{\"E\":-10,\"F\":\"bbb\"}],[{\"E\":11,\"F\":\"c\"}]]},\"g\":[{\"key\":\"foo\",\"value\":"
    "{\"H\":{\"i\":[1.1]}}}]}]"),
    ("[\"2\",[null,1,2,null,3,null],[[null,1,2,null],[3,null,4],[],null],[{\"key\":\"k1\","
    "\"value\":2},{\"key\":\"k2\",\"value\":null}],[[{\"key\":\"k3\",\"value\":null},{\"key\":"
    "\"k1\",\"value\":1}],null,[]],{\"A\":null,\"b\":[null],\"C\":{\"d\":[[{\"E\":null,\"F\":"
    "null},{\"E\":10,\"F\":\"aaa\"},{\"E\":null,\"F\":null},{\"E\":-10,\"F\":\"bbb\"},{\"E\":"
    "null,\"F\":null}],[{\"E\":11,\"F\":\"c\"},null],[],null]},\"g\":[{\"key\":\"g1\",\"value\":"
    "{\"H\":{\"i\":[2.2,null]}}},{\"key\":\"g2\",\"value\":{\"H\":{\"i\":[]}}},{\"key\":\"g3\","
    "\"value\":null},{\"key\":\"g4\",\"value\":{\"H\":{\"i\":null}}},{\"key\":\"g5\",\"value\":"
    "{\"H\":null}}]}]"),
    "[\"3\",[],[null],[],[null,null],{\"A\":null,\"b\":null,\"C\":{\"d\":[]},\"g\":[]}]",
    "[\"4\",null,[],[],[],{\"A\":null,\"b\":null,\"C\":{\"d\":null},\"g\":null}]",
    ("[\"5\",null,null,[],null,{\"A\":null,\"b\":null,\"C\":null,\"g\":[{\"key\":\"foo\",\"value\":"
    "{\"H\":{\"i\":[2.2,3.3]}}}]}]"),
    "[\"6\",null,null,null,null,null]",
    ("[\"7\",null,[null,[5,6]],[{\"key\":\"k1\",\"value\":null},{\"key\":\"k3\",\"value\":null}],"
    "null,{\"A\":7,\"b\":[2,3,null],\"C\":{\"d\":[[],[null],null]},\"g\":null}]"),
};
static const char *const nonnullable_impala[] = {
    ("[\"8\",[-1],[[-1,-2],[]],[{\"key\":\"k1\",\"value\":-1}],[[],[{\"key\":\"k1\",\"value\":1}],"
    "[],[]],{\"a\":-1,\"B\":[-1],\"c\":{\"D\":[[{\"e\":-1,\"f\":\"nonnullable\"}]]},\"G\":[]}]"),
};
/* DuckDB refuses this file. my_map: every value null (the value column has
 * def 1 < max 2 everywhere); my_map_no_v: a MAP without value field, read as
 * a list of its keys; my_list: the same keys as a list (map_no_value.md). */
static const char *const map_no_value[] = {
    ("[[{\"key\":1,\"value\":null},{\"key\":2,\"value\":null},{\"key\":3,\"value\":null}],"
    "[1,2,3],[1,2,3]]"),
    ("[[{\"key\":4,\"value\":null},{\"key\":5,\"value\":null},{\"key\":6,\"value\":null}],"
    "[4,5,6],[4,5,6]]"),
    ("[[{\"key\":7,\"value\":null},{\"key\":8,\"value\":null},{\"key\":9,\"value\":null}],"
    "[7,8,9],[7,8,9]]"),
};
/* The key is OPTIONAL against the spec (Hive); read as a map like DuckDB and
 * arrow-rs do. */
static const char *const incorrect_map_schema[] = {
    "[[{\"key\":\"parent\",\"value\":\"another\"},{\"key\":\"name\",\"value\":\"report\"}]]",
};
static const char *const datapage_v2[] = {
    "[\"abc\",1,2,true,[1,2,3]]", "[\"abc\",2,3,true,null]", "[\"abc\",3,4,true,null]",
    "[null,4,5,false,[1,2,3]]", "[\"abc\",5,2,true,[1,2]]",
};
/* A null struct vs a struct of nulls: DuckDB reports the struct present with
 * a null field for every row (def level 1 of 2). */
static const char *const nulls_snappy[] = {
    "[{\"b_c_int\":null}]", "[{\"b_c_int\":null}]", "[{\"b_c_int\":null}]",
    "[{\"b_c_int\":null}]", "[{\"b_c_int\":null}]", "[{\"b_c_int\":null}]",
    "[{\"b_c_int\":null}]", "[{\"b_c_int\":null}]",
};

/* ---- Column subsets: partial structs keep only the selected fields --------- */

static const int32_t impala_e[] = {9}; /* nested_struct.C.d.list.element.list.element.E */
static const char *const impala_e_rows[] = {
    "[{\"C\":{\"d\":[[{\"E\":10},{\"E\":-10}],[{\"E\":11}]]}}]",
    ("[{\"C\":{\"d\":[[{\"E\":null},{\"E\":10},{\"E\":null},{\"E\":-10},{\"E\":null}],"
    "[{\"E\":11},null],[],null]}}]"),
    "[{\"C\":{\"d\":[]}}]",
    "[{\"C\":{\"d\":null}}]",
    "[{\"C\":null}]",
    "[null]",
    "[{\"C\":{\"d\":[[],[null],null]}}]",
};
/* One field of a map value without the key: a list of the (partial) values. */
static const int32_t impala_gi[] = {12}; /* nested_struct.g.map.value.H.i.list.element */
static const char *const impala_gi_rows[] = {
    "[{\"g\":[{\"H\":{\"i\":[1.1]}}]}]",
    ("[{\"g\":[{\"H\":{\"i\":[2.2,null]}},{\"H\":{\"i\":[]}},null,{\"H\":{\"i\":null}},"
    "{\"H\":null}]}]"),
    "[{\"g\":[]}]",
    "[{\"g\":null}]",
    "[{\"g\":[{\"H\":{\"i\":[2.2,3.3]}}]}]",
    "[null]",
    "[{\"g\":null}]",
};
static const int32_t impala_id_a[] = {0, 7};
static const char *const impala_id_a_rows[] = {
    "[\"1\",{\"A\":1}]", "[\"2\",{\"A\":null}]", "[\"3\",{\"A\":null}]", "[\"4\",{\"A\":null}]",
    "[\"5\",{\"A\":null}]", "[\"6\",null]", "[\"7\",{\"A\":7}]",
};
/* Only the inner map's key: outer map without key -> list of values; inner
 * map without value -> list of keys. */
static const int32_t maps_inner_key[] = {1};
static const char *const maps_inner_key_rows[] = {
    "[[[1,2]]]", "[[[1]]]", "[[null]]", "[[[]]]", "[[[1]]]", "[[[3,4,5]]]",
};
static const int32_t structs_cols[] = {0, 1, 2, 3, 4, 5, 24, 25, 26, 27, 28, 29};
static const char *const structs_rows[] = {
    ("[{\"min\":\"190406409000602\",\"max\":\"190407175004000\",\"mean\":\"190406671229999\","
    "\"count\":\"495\",\"sum\":\"94251302258849568\",\"variance\":\"0\"},{\"min\":0,\"max\":0,"
    "\"mean\":0,\"count\":\"0\",\"sum\":0,\"variance\":0}]"),
};

static const nested_case cases[] = {
    {"nested_lists.snappy.parquet", NULL, 0, ROWS(nested_lists)},
    {"nested_maps.snappy.parquet", NULL, 0, ROWS(nested_maps)},
    {"list_columns.parquet", NULL, 0, ROWS(list_columns)},
    {"null_list.parquet", NULL, 0, ROWS(null_list)},
    {"old_list_structure.parquet", NULL, 0, ROWS(old_list_structure)},
    {"repeated_no_annotation.parquet", NULL, 0, ROWS(repeated_no_annotation)},
    {"repeated_primitive_no_list.parquet", NULL, 0, ROWS(repeated_primitive_no_list)},
    {"nullable.impala.parquet", NULL, 0, ROWS(nullable_impala)},
    {"nonnullable.impala.parquet", NULL, 0, ROWS(nonnullable_impala)},
    {"map_no_value.parquet", NULL, 0, ROWS(map_no_value)},
    {"incorrect_map_schema.parquet", NULL, 0, ROWS(incorrect_map_schema)},
    {"datapage_v2.snappy.parquet", NULL, 0, ROWS(datapage_v2)},
    {"nulls.snappy.parquet", NULL, 0, ROWS(nulls_snappy)},
    {"nullable.impala.parquet", impala_e, 1, ROWS(impala_e_rows)},
    {"nullable.impala.parquet", impala_gi, 1, ROWS(impala_gi_rows)},
    {"nullable.impala.parquet", impala_id_a, 2, ROWS(impala_id_a_rows)},
    {"nested_maps.snappy.parquet", maps_inner_key, 1, ROWS(maps_inner_key_rows)},
    {"nested_structs.rust.parquet", structs_cols, 12, ROWS(structs_rows)},
};

static void run_case(const char *dir, const nested_case *c, int64_t batch_rows) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", dir, c->file);
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.columns = c->cols;
    ro.num_columns = c->ncols;
    plank_reader *r = NULL;
    plank_error e;
    plank_status st = plank_reader_open_path(&r, path, &ro, &e);
    CHECK_MSG(st == PLANK_OK, "%s: %s", c->file, e.message);
    if (st != PLANK_OK) return;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    if (batch_rows) o.batch_rows = batch_rows;
    struct ArrowArrayStream s;
    st = plank_reader_arrow_stream(r, NULL, 0, &o, &s, &e);
    CHECK_MSG(st == PLANK_OK, "%s: %s", c->file, e.message);
    if (st != PLANK_OK) {
        plank_reader_close(r);
        return;
    }
    struct ArrowSchema sc;
    CHECK(s.get_schema(&s, &sc) == 0);
    CHECK(!strcmp(sc.format, "+s"));
    int row = 0;
    for (;;) {
        struct ArrowArray a;
        int rc = s.get_next(&s, &a);
        CHECK_MSG(rc == 0, "%s: get_next %d: %s", c->file, rc, s.get_last_error(&s));
        if (rc != 0 || !a.release) break;
        CHECK(a.length > 0);
        CHECK_MSG(a.length <= o.batch_rows, "%s: batch of %lld rows, limit %lld", c->file,
                  (long long)a.length, (long long)o.batch_rows);
        CHECK_EQ_I64(a.n_children, sc.n_children);
        for (int64_t i = 0; i < a.length; i++, row++) {
            aj_buf b = {0};
            aj_row(&b, &sc, &a, i);
            if (row < c->nrows)
                CHECK_MSG(!strcmp(b.p, c->rows[row]), "%s (batch_rows %lld) row %d:\n got  %s\n want %s",
                          c->file, (long long)o.batch_rows, row, b.p, c->rows[row]);
            free(b.p);
        }
        a.release(&a);
        CHECK(a.release == NULL);
    }
    CHECK_MSG(row == c->nrows, "%s: %d rows, want %d", c->file, row, c->nrows);
    sc.release(&sc);
    CHECK(sc.release == NULL);
    s.release(&s);
    CHECK(s.release == NULL);
    plank_reader_close(r);
}

int main(void) {
    const char *dir = th_testing_dir();
    if (!dir) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    static const int64_t batch_sizes[] = {1, 2, 3, 0};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t b = 0; b < sizeof batch_sizes / sizeof batch_sizes[0]; b++)
            run_case(dir, &cases[k], batch_sizes[b]);
    TEST_END();
}
