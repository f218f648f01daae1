/* test_arrow_import.c: the Arrow -> Parquet side without the writer: the
 * schema mapping (plank_schema_from_arrow) and the shredder
 * (pk_arrow_shred) over hand-built ArrowSchemas and ArrowArrays, with levels
 * and values worked out by hand from the Dremel rules: nested lists, structs
 * and maps with nulls and empty lists, sliced arrays (offsets at every
 * level), value conversions, dictionary arrays, hostile arrays, and
 * allocator balance with failing allocations. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>

#include "arrow/pk_arrow_import.h"
#include "arrow_build.h"
#include "tharness.h"

/* ---- Checking a shredded column ------------------------------------------------- */

static pk_shredded g_out;
static pk_itree g_tree;

static plank_status shred(struct ArrowSchema *sch, struct ArrowArray *arr, plank_error *e) {
    plank_status st = pk_itree_build(sch, NULL, &g_tree, e);
    if (st != PLANK_OK) return st;
    st = pk_arrow_shred(&g_tree, arr, NULL, &g_out, e);
    return st;
}
/* Shreds and checks success. */
static bool shred_ok(struct ArrowSchema *sch, struct ArrowArray *arr) {
    plank_error e;
    plank_status st = shred(sch, arr, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    return st == PLANK_OK;
}
static void shred_done(void) {
    pk_shredded_free(&g_out);
    pk_itree_free(&g_tree);
}

/* levels: "r.d" pairs separated by spaces, e.g. "0.3 1.3 0.0". */
static void check_levels(int col, const char *want) {
    const plank_batch *b = &g_out.cols[col];
    int64_t i = 0;
    const char *p = want;
    while (*p) {
        int r = 0, d = 0, k = 0;
        if (sscanf(p, "%d.%d%n", &r, &d, &k) != 2) break;
        p += k;
        while (*p == ' ') p++;
        CHECK_MSG(i < b->length, "col %d: fewer slots than expected (%s)", col, want);
        if (i >= b->length) return;
        int rr = b->rep_levels ? b->rep_levels[i] : 0, dd = b->def_levels ? b->def_levels[i] : 0;
        CHECK_MSG(rr == r && dd == d, "col %d slot %lld: got %d.%d want %d.%d", col,
                  (long long)i, rr, dd, r, d);
        i++;
    }
    CHECK_MSG(i == b->length, "col %d: %lld slots, expected %lld (%s)", col,
              (long long)b->length, (long long)i, want);
}
static int64_t i64_at(int col, int64_t i) { return ((const int64_t *)g_out.cols[col].values)[i]; }
static int32_t i32_at(int col, int64_t i) { return ((const int32_t *)g_out.cols[col].values)[i]; }
static double f64_at(int col, int64_t i) { return ((const double *)g_out.cols[col].values)[i]; }
static int str_is(int col, int64_t i, const char *s) {
    const plank_batch *b = &g_out.cols[col];
    int64_t n = b->offsets[i + 1] - b->offsets[i];
    return n == (int64_t)strlen(s) && memcmp(b->data + b->offsets[i], s, (size_t)n) == 0;
}

/* ---- Schema mapping --------------------------------------------------------------- */

static const char k_meta_id7[] = "\x01\x00\x00\x00"
                                 "\x10\x00\x00\x00PARQUET:field_id"
                                 "\x01\x00\x00\x00"
                                 "7";
static const char k_meta_uuid[] = "\x01\x00\x00\x00"
                                  "\x14\x00\x00\x00" "ARROW:extension:name"
                                  "\x0a\x00\x00\x00"
                                  "arrow.uuid";

static void test_schema_mapping(void) {
    pool_reset();
    struct ArrowSchema *lst = S("+l", "lst", NUL, S0("l", "item", NUL), NULL, NULL);
    struct ArrowSchema *ent = S("+s", "entries", 0, S0("u", "key", 0), S0("i", "value", NUL), NULL);
    struct ArrowSchema *map = S("+m", "m", NUL, ent, NULL, NULL);
    struct ArrowSchema *st = S("+s", "st", 0, S0("b", "flag", NUL), S0("d:20,3", "big", 0), NULL);
    struct ArrowSchema *id = S0("c", "tiny", NUL);
    id->metadata = k_meta_id7;
    struct ArrowSchema *uuid = S0("w:16", "id", 0);
    uuid->metadata = k_meta_uuid;
    struct ArrowSchema *dict = S0("s", "dict", NUL);
    dict->dictionary = S0("u", "", NUL);
    struct ArrowSchema *top = S("+s", "", 0, lst, map, st);
    /* more top-level fields than S() takes */
    struct ArrowSchema *more[] = {id, uuid, dict, S0("tdm", "d64", 0), S0("tss:Europe/Paris", "ts", 0),
                                  S0("tsu:", "tsl", 0), S0("tts", "t32", 0), S0("ttn", "t64", 0),
                                  S0("d:9,2", "d9", 0), S0("d:18,2", "d18", 0),
                                  S0("d:40,0,256", "d40", 0), S0("e", "half", 0), S0("n", "nothing", 0),
                                  S0("L", "ul", 0), S0("vz", "bv", 0),
                                  S("+w:3", "fsl", 0, S0("f", "x", 0), NULL, NULL)};
    struct ArrowSchema *kids[32];
    int nk = 0;
    for (int i = 0; i < 3; i++) kids[nk++] = top->children[i];
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) kids[nk++] = more[i];
    top->children = kids;
    top->n_children = nk;

    plank_schema_field *f = NULL;
    int32_t n = 0;
    plank_error e;
    plank_status rc = plank_schema_from_arrow(top, NULL, &f, &n, &e);
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    if (rc != PLANK_OK) return;
    /* root, lst(3), m(4), st(3), then 16 more fields + 2 for the fixed-size list */
    CHECK_EQ_I64(n, 1 + 3 + 4 + 3 + 16 + 2);
    CHECK(f[0].name == NULL && f[0].num_children == nk);
    int i = 1;
    CHECK(!strcmp(f[i].name, "lst") && f[i].logical.kind == PLANK_LOGICAL_LIST &&
          f[i].repetition == PLANK_OPTIONAL && f[i].num_children == 1);
    i++;
    CHECK(!strcmp(f[i].name, "list") && f[i].repetition == PLANK_REPEATED && f[i].num_children == 1);
    i++;
    CHECK(!strcmp(f[i].name, "element") && f[i].physical_type == PLANK_INT64 &&
          f[i].repetition == PLANK_OPTIONAL);
    i++;
    CHECK(!strcmp(f[i].name, "m") && f[i].logical.kind == PLANK_LOGICAL_MAP && f[i].num_children == 1);
    i++;
    CHECK(!strcmp(f[i].name, "key_value") && f[i].repetition == PLANK_REPEATED && f[i].num_children == 2);
    i++;
    CHECK(!strcmp(f[i].name, "key") && f[i].physical_type == PLANK_BYTE_ARRAY &&
          f[i].logical.kind == PLANK_LOGICAL_STRING && f[i].repetition == PLANK_REQUIRED);
    i++;
    CHECK(!strcmp(f[i].name, "value") && f[i].physical_type == PLANK_INT32 &&
          f[i].logical.kind == PLANK_LOGICAL_NONE && f[i].repetition == PLANK_OPTIONAL);
    i++;
    CHECK(!strcmp(f[i].name, "st") && f[i].physical_type == PLANK_PHYSICAL_NONE &&
          f[i].num_children == 2 && f[i].repetition == PLANK_REQUIRED &&
          f[i].logical.kind == PLANK_LOGICAL_NONE);
    i++;
    CHECK(f[i].physical_type == PLANK_BOOLEAN);
    i++;
    CHECK(f[i].physical_type == PLANK_FIXED_LEN_BYTE_ARRAY && f[i].type_length == 9 &&
          f[i].logical.kind == PLANK_LOGICAL_DECIMAL && f[i].logical.precision == 20 &&
          f[i].logical.scale == 3);
    i++;
    CHECK(!strcmp(f[i].name, "tiny") && f[i].has_field_id && f[i].field_id == 7 &&
          f[i].physical_type == PLANK_INT32 && f[i].logical.kind == PLANK_LOGICAL_INTEGER &&
          f[i].logical.bit_width == 8 && f[i].logical.is_signed);
    i++;
    CHECK(f[i].physical_type == PLANK_FIXED_LEN_BYTE_ARRAY && f[i].type_length == 16 &&
          f[i].logical.kind == PLANK_LOGICAL_UUID && !f[i].has_field_id);
    i++;
    CHECK(!strcmp(f[i].name, "dict") && f[i].physical_type == PLANK_BYTE_ARRAY &&
          f[i].logical.kind == PLANK_LOGICAL_STRING && f[i].repetition == PLANK_OPTIONAL);
    i++;
    CHECK(f[i].physical_type == PLANK_INT32 && f[i].logical.kind == PLANK_LOGICAL_DATE);
    i++;
    CHECK(f[i].physical_type == PLANK_INT64 && f[i].logical.kind == PLANK_LOGICAL_TIMESTAMP &&
          f[i].logical.unit == PLANK_UNIT_MILLIS && f[i].logical.is_adjusted_to_utc);
    i++;
    CHECK(f[i].physical_type == PLANK_INT64 && f[i].logical.kind == PLANK_LOGICAL_TIMESTAMP &&
          f[i].logical.unit == PLANK_UNIT_MICROS && !f[i].logical.is_adjusted_to_utc);
    i++;
    CHECK(f[i].physical_type == PLANK_INT32 && f[i].logical.kind == PLANK_LOGICAL_TIME &&
          f[i].logical.unit == PLANK_UNIT_MILLIS);
    i++;
    CHECK(f[i].physical_type == PLANK_INT64 && f[i].logical.kind == PLANK_LOGICAL_TIME &&
          f[i].logical.unit == PLANK_UNIT_NANOS);
    i++;
    CHECK(f[i].physical_type == PLANK_INT32 && f[i].logical.kind == PLANK_LOGICAL_DECIMAL);
    i++;
    CHECK(f[i].physical_type == PLANK_INT64 && f[i].logical.kind == PLANK_LOGICAL_DECIMAL);
    i++;
    CHECK(f[i].physical_type == PLANK_FIXED_LEN_BYTE_ARRAY && f[i].type_length == 17 &&
          f[i].logical.precision == 40);
    i++;
    CHECK(f[i].physical_type == PLANK_FIXED_LEN_BYTE_ARRAY && f[i].type_length == 2 &&
          f[i].logical.kind == PLANK_LOGICAL_FLOAT16);
    i++;
    CHECK(f[i].physical_type == PLANK_INT32 && f[i].logical.kind == PLANK_LOGICAL_UNKNOWN &&
          f[i].repetition == PLANK_OPTIONAL);
    i++;
    CHECK(f[i].physical_type == PLANK_INT64 && f[i].logical.kind == PLANK_LOGICAL_INTEGER &&
          f[i].logical.bit_width == 64 && !f[i].logical.is_signed);
    i++;
    CHECK(f[i].physical_type == PLANK_BYTE_ARRAY && f[i].logical.kind == PLANK_LOGICAL_NONE);
    i++;
    CHECK(!strcmp(f[i].name, "fsl") && f[i].logical.kind == PLANK_LOGICAL_LIST);
    i += 2;
    CHECK(!strcmp(f[i].name, "element") && f[i].physical_type == PLANK_FLOAT &&
          f[i].repetition == PLANK_REQUIRED);
    i++;
    CHECK_EQ_I64(i, n);
    plank_schema_fields_free(NULL, f, n);

    /* Minimal FLBA widths of decimals: precision 38 in 16 bytes, 10 in 5. */
    pool_reset();
    top = S("+s", "", 0, S0("d:38,0", "a", 0), S0("d:19,0", "b", 0), S0("d:76,0,256", "c", 0));
    CHECK(plank_schema_from_arrow(top, NULL, &f, &n, &e) == PLANK_OK);
    CHECK(n == 4 && f[1].type_length == 16 && f[2].type_length == 9 && f[3].type_length == 32);
    plank_schema_fields_free(NULL, f, n);

    /* Unsupported types name the field path. */
    pool_reset();
    top = S("+s", "", 0, S("+s", "outer", 0, S0("tDs", "dur", 0), NULL, NULL), NULL, NULL);
    rc = plank_schema_from_arrow(top, NULL, &f, &n, &e);
    CHECK(rc == PLANK_ERR_UNSUPPORTED && f == NULL && n == 0);
    CHECK_MSG(strstr(e.message, "outer.dur") != NULL, "%s", e.message);
    pool_reset();
    top = S("+s", "", 0, S("+ud:0,1", "u", 0, S0("i", "a", 0), S0("f", "b", 0), NULL), NULL, NULL);
    CHECK(plank_schema_from_arrow(top, NULL, &f, &n, &e) == PLANK_ERR_UNSUPPORTED);
    pool_reset();
    top = S0("i", "", 0);
    CHECK(plank_schema_from_arrow(top, NULL, &f, &n, &e) == PLANK_ERR_INVALID_ARGUMENT);
    pool_reset();
    top = S("+s", "", 0, S0("d:5,-2", "neg", 0), NULL, NULL);
    CHECK(plank_schema_from_arrow(top, NULL, &f, &n, &e) == PLANK_ERR_UNSUPPORTED);
    pool_reset();
    struct ArrowSchema *badid = S0("i", "x", 0);
    badid->metadata = "\x01\x00\x00\x00\x10\x00\x00\x00PARQUET:field_id\x02\x00\x00\x00x1";
    top = S("+s", "", 0, badid, NULL, NULL);
    CHECK(plank_schema_from_arrow(top, NULL, &f, &n, &e) == PLANK_ERR_INVALID_ARGUMENT);
    /* An empty record batch schema: just the root. */
    pool_reset();
    top = S0("+s", "", 0);
    CHECK(plank_schema_from_arrow(top, NULL, &f, &n, &e) == PLANK_OK && n == 1);
    plank_schema_fields_free(NULL, f, n);
}

/* ---- list<int64> ----------------------------------------------------------------- */

/* rows: [1, 2], null, [], [null, 3] */
static void test_list_int64(void) {
    pool_reset();
    struct ArrowSchema *sch = S("+s", "", 0, S("+l", "a", NUL, S0("l", "item", NUL), NULL, NULL),
                                NULL, NULL);
    static const int64_t vals[] = {1, 2, 99, 3};
    static const int32_t offs[] = {0, 2, 2, 2, 4};
    uint8_t lvalid = bits("1011"), evalid = bits("1101");
    struct ArrowArray *elem = PRIM(4, 0, 1, &evalid, vals);
    struct ArrowArray *list = A(4, 0, 1, 2, &lvalid, offs, NULL, elem, NULL, NULL);
    struct ArrowArray *rb = STRUCT(4, 0, 0, NULL, list, NULL, NULL);
    if (!shred_ok(sch, rb)) return;
    CHECK_EQ_I64(g_out.num_columns, 1);
    CHECK_EQ_I64(g_out.num_rows, 4);
    check_levels(0, "0.3 1.3 0.0 0.1 0.2 1.3");
    CHECK(i64_at(0, 0) == 1 && i64_at(0, 1) == 2 && i64_at(0, 5) == 3);
    CHECK_EQ_I64(g_out.cols[0].null_count, 3);
    CHECK(g_out.cols[0].value_width == 8 && g_out.cols[0].physical_type == PLANK_INT64);
    shred_done();

    /* The same rows sliced: the record batch at offset 1 of a longer struct
     * whose child list starts 2 further in, whose element array has offset 3. */
    pool_reset();
    sch = S("+s", "", 0, S("+l", "a", NUL, S0("l", "item", NUL), NULL, NULL), NULL, NULL);
    static const int64_t vals2[] = {-1, -1, -1, 1, 2, 99, 3, -1};
    /* elements (logical, offset 3): 1 2 null 3; list slots (offset 2 + 1): x x x | rows | */
    static const int32_t offs2[] = {0, 0, 0, 0, 2, 2, 2, 4, 4};
    uint8_t lvalid2 = (uint8_t)(lvalid << 3), evalid2 = (uint8_t)(evalid << 3);
    struct ArrowArray *elem2 = PRIM(5, 3, 1, &evalid2, vals2);
    struct ArrowArray *list2 = A(6, 2, -1, 2, &lvalid2, offs2, NULL, elem2, NULL, NULL);
    struct ArrowArray *rb2 = STRUCT(4, 1, 0, NULL, list2, NULL, NULL);
    if (!shred_ok(sch, rb2)) return;
    check_levels(0, "0.3 1.3 0.0 0.1 0.2 1.3");
    CHECK(i64_at(0, 0) == 1 && i64_at(0, 1) == 2 && i64_at(0, 5) == 3);
    shred_done();
}

/* ---- struct<string, double> -------------------------------------------------------- */

/* rows: {a: "x", b: 1.5}, null, {a: null, b: 2.5}, {a: "yz", b: 0} */
static void test_struct(void) {
    pool_reset();
    struct ArrowSchema *sch = S("+s", "", 0,
                                S("+s", "s", NUL, S0("u", "a", NUL), S0("g", "b", 0), NULL),
                                S0("i", "flat", 0), NULL);
    static const int32_t soffs[] = {0, 1, 1, 1, 3};
    static const char sdata[] = "xyz";
    static const double dv[] = {1.5, 7, 2.5, 0};
    static const int32_t flat[] = {10, 20, 30, 40};
    uint8_t svalid = bits("1011"), avalid = bits("1001");
    struct ArrowArray *a = A(4, 0, 2, 3, &avalid, soffs, sdata, NULL, NULL, NULL);
    struct ArrowArray *b = PRIM(4, 0, 0, NULL, dv);
    struct ArrowArray *s = STRUCT(4, 0, 1, &svalid, a, b, NULL);
    struct ArrowArray *rb = STRUCT(4, 0, 0, NULL, s, PRIM(4, 0, 0, NULL, flat), NULL);
    if (!shred_ok(sch, rb)) return;
    CHECK_EQ_I64(g_out.num_columns, 3);
    check_levels(0, "0.2 0.0 0.1 0.2");
    check_levels(1, "0.1 0.0 0.1 0.1");
    CHECK(g_out.cols[2].def_levels == NULL && g_out.cols[2].rep_levels == NULL);
    CHECK(g_out.cols[0].rep_levels == NULL);
    CHECK(str_is(0, 0, "x") && str_is(0, 1, "") && str_is(0, 2, "") && str_is(0, 3, "yz"));
    CHECK(g_out.cols[0].offsets[0] == 0 && g_out.cols[0].offsets[4] == 3);
    CHECK(f64_at(1, 0) == 1.5 && f64_at(1, 2) == 2.5 && f64_at(1, 3) == 0);
    CHECK(i32_at(2, 0) == 10 && i32_at(2, 3) == 40 && g_out.cols[2].length == 4);
    shred_done();
}

/* ---- map<string, int32> ------------------------------------------------------------- */

/* rows: {"a": 1, "b": null}, null, {}, {"c": 4} */
static void test_map(void) {
    pool_reset();
    struct ArrowSchema *ent = S("+s", "entries", 0, S0("u", "key", 0), S0("i", "value", NUL), NULL);
    struct ArrowSchema *sch = S("+s", "", 0, S("+m", "m", NUL, ent, NULL, NULL), NULL, NULL);
    static const int32_t koffs[] = {0, 1, 2, 3};
    static const char kdata[] = "abc";
    static const int32_t vals[] = {1, 0, 4};
    static const int32_t moffs[] = {0, 2, 2, 2, 3};
    uint8_t mvalid = bits("1011"), vvalid = bits("101");
    struct ArrowArray *k = A(3, 0, 0, 3, NULL, koffs, kdata, NULL, NULL, NULL);
    struct ArrowArray *v = PRIM(3, 0, 1, &vvalid, vals);
    struct ArrowArray *entries = STRUCT(3, 0, 0, NULL, k, v, NULL);
    struct ArrowArray *m = A(4, 0, 1, 2, &mvalid, moffs, NULL, entries, NULL, NULL);
    struct ArrowArray *rb = STRUCT(4, 0, 0, NULL, m, NULL, NULL);
    if (!shred_ok(sch, rb)) return;
    check_levels(0, "0.2 1.2 0.0 0.1 0.2");
    check_levels(1, "0.3 1.2 0.0 0.1 0.3");
    CHECK(str_is(0, 0, "a") && str_is(0, 1, "b") && str_is(0, 4, "c"));
    CHECK(i32_at(1, 0) == 1 && i32_at(1, 4) == 4);
    shred_done();

    /* A null key is refused. */
    pool_reset();
    ent = S("+s", "entries", 0, S0("u", "key", NUL), S0("i", "value", NUL), NULL);
    sch = S("+s", "", 0, S("+m", "m", NUL, ent, NULL, NULL), NULL, NULL);
    uint8_t kvalid = bits("101");
    k = A(3, 0, 1, 3, &kvalid, koffs, kdata, NULL, NULL, NULL);
    v = PRIM(3, 0, 1, &vvalid, vals);
    entries = STRUCT(3, 0, 0, NULL, k, v, NULL);
    m = A(4, 0, 1, 2, &mvalid, moffs, NULL, entries, NULL, NULL);
    rb = STRUCT(4, 0, 0, NULL, m, NULL, NULL);
    plank_error e;
    plank_status st = shred(sch, rb, &e);
    CHECK(st == PLANK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(e.message, "m.key") != NULL, "%s", e.message);
    pk_itree_free(&g_tree);
}

/* ---- list<list<int32>> --------------------------------------------------------------- */

/* rows: [[1, 2], [3]], [[], null], null, [] */
static void test_list_list(void) {
    pool_reset();
    struct ArrowSchema *inner = S("+l", "item", NUL, S0("i", "item", 0), NULL, NULL);
    struct ArrowSchema *sch = S("+s", "", 0, S("+l", "ll", NUL, inner, NULL, NULL), NULL, NULL);
    static const int32_t v[] = {1, 2, 3};
    static const int32_t ioffs[] = {0, 2, 3, 3, 3};
    static const int32_t ooffs[] = {0, 2, 4, 4, 4};
    uint8_t ivalid = bits("1110"), ovalid = bits("1101");
    struct ArrowArray *vals = PRIM(3, 0, 0, NULL, v);
    struct ArrowArray *in = A(4, 0, 1, 2, &ivalid, ioffs, NULL, vals, NULL, NULL);
    struct ArrowArray *out = A(4, 0, 1, 2, &ovalid, ooffs, NULL, in, NULL, NULL);
    struct ArrowArray *rb = STRUCT(4, 0, 0, NULL, out, NULL, NULL);
    if (!shred_ok(sch, rb)) return;
    check_levels(0, "0.4 2.4 1.4 0.3 1.2 0.0 0.1");
    CHECK(i32_at(0, 0) == 1 && i32_at(0, 1) == 2 && i32_at(0, 2) == 3);
    shred_done();

    /* Sliced: the outer list from slot 1 (rows [[], null], null, []), the
     * inner list array with offset 1 (so the outer offsets shift by 1). */
    pool_reset();
    inner = S("+l", "item", NUL, S0("i", "item", 0), NULL, NULL);
    sch = S("+s", "", 0, S("+l", "ll", NUL, inner, NULL, NULL), NULL, NULL);
    static const int32_t ioffs2[] = {0, 0, 2, 3, 3, 3};
    static const int32_t ooffs2[] = {0, 0, 2, 4, 4, 4};
    uint8_t ivalid2 = (uint8_t)(ivalid << 1);
    vals = PRIM(3, 0, 0, NULL, v);
    in = A(4, 1, 1, 2, &ivalid2, ioffs2, NULL, vals, NULL, NULL);
    uint8_t ovalid2 = (uint8_t)(ovalid << 1);
    out = A(5, 1, 1, 2, &ovalid2, ooffs2, NULL, in, NULL, NULL);
    rb = STRUCT(3, 1, 0, NULL, out, NULL, NULL);
    if (!shred_ok(sch, rb)) return;
    check_levels(0, "0.3 1.2 0.0 0.1");
    shred_done();
}

/* ---- list<struct<x: int32, y: string>> -------------------------------------------------- */

/* rows: [{1, "a"}, null, {null, "bc"}], [], null */
static void test_list_struct(void) {
    pool_reset();
    struct ArrowSchema *el = S("+s", "item", NUL, S0("i", "x", NUL), S0("u", "y", 0), NULL);
    struct ArrowSchema *sch = S("+s", "", 0, S("+l", "ls", NUL, el, NULL, NULL), NULL, NULL);
    static const int32_t xv[] = {1, 0, 0};
    static const int32_t yo[] = {0, 1, 1, 3};
    static const char yd[] = "abc";
    static const int32_t lo[] = {0, 3, 3, 3};
    uint8_t xvalid = bits("100"), svalid = bits("101"), lvalid = bits("110");
    struct ArrowArray *x = PRIM(3, 0, 2, &xvalid, xv);
    struct ArrowArray *y = A(3, 0, 0, 3, NULL, yo, yd, NULL, NULL, NULL);
    struct ArrowArray *s = STRUCT(3, 0, 1, &svalid, x, y, NULL);
    struct ArrowArray *l = A(3, 0, 1, 2, &lvalid, lo, NULL, s, NULL, NULL);
    struct ArrowArray *rb = STRUCT(3, 0, 0, NULL, l, NULL, NULL);
    if (!shred_ok(sch, rb)) return;
    /* ls opt (1), list rep (2), item opt (3), x opt (4), y req (3) */
    check_levels(0, "0.4 1.2 1.3 0.1 0.0");
    check_levels(1, "0.3 1.2 1.3 0.1 0.0");
    CHECK(i32_at(0, 0) == 1);
    CHECK(str_is(1, 0, "a") && str_is(1, 1, "") && str_is(1, 2, "bc"));
    shred_done();
}

/* ---- value conversions ------------------------------------------------------------------ */

static void test_conversions(void) {
    pool_reset();
    struct ArrowSchema *f1[] = {S0("c", "i8", 0), S0("S", "u16", 0), S0("tdm", "d64", 0),
                                S0("tts", "t32", 0), S0("tss:", "ts", 0), S0("d:5,2", "d5", 0),
                                S0("d:12,0", "d12", 0), S0("d:20,0", "d20", 0), S0("e", "half", 0),
                                S0("b", "flag", NUL), S0("n", "nil", 0), S0("Z", "big", 0),
                                S0("vu", "view", 0), S("+w:2", "fsl", NUL, S0("i", "x", 0), NULL, NULL),
                                S("+L", "ll", 0, S0("C", "x", 0), NULL, NULL)};
    enum { NF = sizeof f1 / sizeof f1[0] };
    struct ArrowSchema *sch = S0("+s", "", 0);
    sch->children = f1;
    sch->n_children = NF;

    static const int8_t i8[] = {-5, 127};
    static const uint16_t u16[] = {65535, 1};
    static const int64_t d64[] = {-86400000, 86400000LL * 365};
    static const int32_t t32[] = {59, 86399};
    static const int64_t ts[] = {-2, 1700000000};
    /* decimal128 little-endian: -12345 and 99999 */
    int64_t dec5[4] = {-12345, -1, 99999, 0};
    int64_t dec20[4] = {-2, -1, 0x7fffffffffffffffLL, 0x10};
    static const uint16_t half[] = {0x3c00, 0xc000};
    uint8_t bvals = bits("01"), bvalid = bits("10");
    static const int64_t zoffs[] = {0, 3, 3};
    static const char zdata[] = "abc";
    uint8_t views[32];
    memset(views, 0, sizeof views);
    int32_t l0 = 5, l1 = 20, bi = 0, off = 2;
    memcpy(views, &l0, 4);
    memcpy(views + 4, "hello", 5);
    memcpy(views + 16, &l1, 4);
    memcpy(views + 20, "abcd", 4);
    memcpy(views + 24, &bi, 4);
    memcpy(views + 28, &off, 4);
    static const char vdata[] = "xxabcdefghijklmnopqrst";
    int64_t vsizes[1] = {22};
    static const int32_t fslv[] = {1, 2, 3, 4};
    uint8_t fvalid = bits("01");
    static const int64_t lloffs[] = {0, 1, 3};
    static const uint8_t llv[] = {200, 1, 2};

    struct ArrowArray *kids[NF];
    kids[0] = PRIM(2, 0, 0, NULL, i8);
    kids[1] = PRIM(2, 0, 0, NULL, u16);
    kids[2] = PRIM(2, 0, 0, NULL, d64);
    kids[3] = PRIM(2, 0, 0, NULL, t32);
    kids[4] = PRIM(2, 0, 0, NULL, ts);
    kids[5] = PRIM(2, 0, 0, NULL, dec5);
    kids[6] = PRIM(2, 0, 0, NULL, dec5);
    kids[7] = PRIM(2, 0, 0, NULL, dec20);
    kids[8] = PRIM(2, 0, 0, NULL, half);
    kids[9] = PRIM(2, 0, 1, &bvalid, &bvals);
    kids[10] = A(2, 0, 2, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    kids[11] = A(2, 0, 0, 3, NULL, zoffs, zdata, NULL, NULL, NULL);
    kids[12] = A(2, 0, 0, 4, NULL, views, vdata, NULL, NULL, NULL);
    g_a[g_na - 1].bufs[3] = vsizes;
    kids[13] = A(2, 0, 1, 1, &fvalid, NULL, NULL, PRIM(4, 0, 0, NULL, fslv), NULL, NULL);
    kids[14] = A(2, 0, 0, 2, NULL, lloffs, NULL, PRIM(3, 0, 0, NULL, llv), NULL, NULL);
    struct ArrowArray *rb = STRUCT(2, 0, 0, NULL, NULL, NULL, NULL);
    rb->children = kids;
    rb->n_children = NF;

    if (!shred_ok(sch, rb)) return;
    CHECK(i32_at(0, 0) == -5 && i32_at(0, 1) == 127);
    CHECK(i32_at(1, 0) == 65535 && i32_at(1, 1) == 1);
    CHECK(i32_at(2, 0) == -1 && i32_at(2, 1) == 365);
    CHECK(i32_at(3, 0) == 59000 && i32_at(3, 1) == 86399000);
    CHECK(i64_at(4, 0) == -2000 && i64_at(4, 1) == 1700000000000LL);
    CHECK(i32_at(5, 0) == -12345 && i32_at(5, 1) == 99999);
    CHECK(i64_at(6, 0) == -12345 && i64_at(6, 1) == 99999);
    const uint8_t *fl = g_out.cols[7].values; /* 9-byte big-endian */
    CHECK(g_out.cols[7].value_width == 9);
    CHECK(fl[0] == 0xff && fl[7] == 0xff && fl[8] == 0xfe);
    CHECK(fl[9] == 0x10 && fl[10] == 0x7f && fl[17] == 0xff);
    const uint8_t *hv = g_out.cols[8].values;
    CHECK(hv[0] == 0x00 && hv[1] == 0x3c && hv[2] == 0x00 && hv[3] == 0xc0);
    check_levels(9, "0.1 0.0");
    CHECK((((const uint8_t *)g_out.cols[9].values)[0] & 3) == 0); /* false, then a null slot */
    check_levels(10, "0.0 0.0");
    CHECK(str_is(11, 0, "abc") && str_is(11, 1, ""));
    CHECK(str_is(12, 0, "hello") && str_is(12, 1, "abcdefghijklmnopqrst"));
    check_levels(13, "0.0 0.2 1.2");
    CHECK(i32_at(13, 1) == 3 && i32_at(13, 2) == 4);
    check_levels(14, "0.1 0.1 1.1");
    CHECK(i32_at(14, 0) == 200 && i32_at(14, 2) == 2);
    shred_done();
}

/* ---- dictionary arrays ------------------------------------------------------------------ */

static void test_dictionary(void) {
    pool_reset();
    struct ArrowSchema *d = S0("c", "d", NUL);
    d->dictionary = S0("u", "", NUL);
    struct ArrowSchema *sch = S("+s", "", 0, S("+l", "l", 0, d, NULL, NULL), NULL, NULL);
    /* dictionary: "x", null, "yy"; indices: 2, 0, null, 1, 2 */
    static const int32_t doffs[] = {0, 1, 1, 3};
    static const char ddata[] = "xyy";
    uint8_t dvalid = bits("101"), ivalid = bits("11011");
    static const int8_t idx[] = {2, 0, 99, 1, 2};
    static const int32_t loffs[] = {0, 3, 5};
    struct ArrowArray *dict = A(3, 0, 1, 3, &dvalid, doffs, ddata, NULL, NULL, NULL);
    struct ArrowArray *ind = PRIM(5, 0, 1, &ivalid, idx);
    ind->dictionary = dict;
    struct ArrowArray *l = A(2, 0, 0, 2, NULL, loffs, NULL, ind, NULL, NULL);
    struct ArrowArray *rb = STRUCT(2, 0, 0, NULL, l, NULL, NULL);
    if (!shred_ok(sch, rb)) return;
    check_levels(0, "0.2 1.2 1.1 0.1 1.2");
    CHECK(str_is(0, 0, "yy") && str_is(0, 1, "x") && str_is(0, 4, "yy"));
    shred_done();

    /* An index out of range is refused. */
    static const int8_t bad[] = {2, 3, 0, 1, 2};
    ind->buffers[1] = bad;
    plank_error e;
    plank_status st = shred(sch, rb, &e);
    CHECK(st == PLANK_ERR_INVALID_ARGUMENT && strstr(e.message, "dictionary index"));
    pk_itree_free(&g_tree);
}

/* ---- hostile and invalid arrays ---------------------------------------------------------- */

static void expect_invalid(struct ArrowSchema *sch, struct ArrowArray *rb, const char *what) {
    plank_error e;
    plank_status st = shred(sch, rb, &e);
    CHECK_MSG(st == PLANK_ERR_INVALID_ARGUMENT, "%s: got %d", what, (int)st);
    if (st == PLANK_OK) shred_done();
    else pk_itree_free(&g_tree);
}

/* One case of a record batch with a list<int32> column: rows of the batch at
 * `off`, the list's offsets and buffer count, its child (NULL: none) with
 * `child_nulls` nulls in a non-nullable element. */
typedef struct list_case {
    const char *what;
    int64_t rows, off;
    const int32_t *offsets;
    int nbuf;
    bool child, child_nulls;
} list_case;

static void test_hostile(void) {
    static const int32_t v[] = {1, 2, 3, 4};
    static const int32_t dec[] = {0, 2, 1, 4};
    static const int32_t neg[] = {-1, 0, 1, 2};
    static const int32_t far[] = {0, 1, 2, 9};
    static uint8_t valid = 0x0d;
    static const list_case cases[] = {
        {"decreasing offsets", 3, 0, dec, 2, true, false},
        {"negative offsets", 3, 0, neg, 2, true, false},
        {"offsets past the child", 3, 0, far, 2, true, false},
        {"missing offsets buffer", 3, 0, v, 1, true, false},
        {"missing child", 3, 0, v, 2, false, false},
        {"null in a non-nullable element", 3, 0, v, 2, true, true},
        {"child shorter than the parent's offset + length", 3, 2, v, 2, true, false},
        {"negative offset", 3, -1, v, 2, true, false},
        {"overflowing offset + length", INT64_MAX, 2, v, 2, true, false},
    };
    struct ArrowSchema *sch;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const list_case *c = &cases[i];
        pool_reset();
        sch = S("+s", "", 0, S("+l", "l", NUL, S0("i", "x", 0), NULL, NULL), NULL, NULL);
        struct ArrowArray *child =
            c->child ? PRIM(4, 0, c->child_nulls, c->child_nulls ? &valid : NULL, v) : NULL;
        struct ArrowArray *l = A(3, 0, 0, c->nbuf, NULL, c->nbuf > 1 ? c->offsets : NULL, NULL,
                                 child, NULL, NULL);
        expect_invalid(sch, STRUCT(c->rows, c->off, 0, NULL, l, NULL, NULL), c->what);
    }
    /* A null top-level record. */
    pool_reset();
    sch = S("+s", "", 0, S0("i", "x", 0), NULL, NULL);
    uint8_t zero = 0;
    expect_invalid(sch, STRUCT(1, 0, 1, &zero, PRIM(1, 0, 0, NULL, v), NULL, NULL), "null record");
    /* Wrong buffer and child counts. */
    pool_reset();
    sch = S("+s", "", 0, S0("u", "x", 0), NULL, NULL);
    expect_invalid(sch, STRUCT(1, 0, 0, NULL, PRIM(1, 0, 0, NULL, v), NULL, NULL), "string with 2 buffers");
    pool_reset();
    sch = S("+s", "", 0, S0("i", "x", 0), S0("i", "y", 0), NULL);
    expect_invalid(sch, STRUCT(1, 0, 0, NULL, PRIM(1, 0, 0, NULL, v), NULL, NULL), "missing column");
    /* Decimal and time values that do not fit. */
    pool_reset();
    sch = S("+s", "", 0, S0("d:9,0", "x", 0), NULL, NULL);
    static const int64_t bigdec[2] = {(int64_t)1 << 40, 0};
    expect_invalid(sch, STRUCT(1, 0, 0, NULL, PRIM(1, 0, 0, NULL, bigdec), NULL, NULL), "decimal overflow");
    pool_reset();
    sch = S("+s", "", 0, S0("tss:", "x", 0), NULL, NULL);
    static const int64_t bigts[1] = {INT64_MAX / 10};
    expect_invalid(sch, STRUCT(1, 0, 0, NULL, PRIM(1, 0, 0, NULL, bigts), NULL, NULL), "timestamp overflow");
    /* A string view pointing outside its buffer. */
    pool_reset();
    sch = S("+s", "", 0, S0("vz", "x", 0), NULL, NULL);
    uint8_t view[16] = {0};
    int32_t len = 30, off = 0;
    memcpy(view, &len, 4);
    memcpy(view + 12, &off, 4);
    static const char data[] = "short";
    int64_t size[1] = {5};
    struct ArrowArray *va = A(1, 0, 0, 4, NULL, view, data, NULL, NULL, NULL);
    g_a[g_na - 1].bufs[3] = size;
    expect_invalid(sch, STRUCT(1, 0, 0, NULL, va, NULL, NULL), "view out of range");
}

/* ---- allocation: balance and failures ------------------------------------------------------ */

static void test_alloc(void) {
    pool_reset();
    struct ArrowSchema *ent = S("+s", "entries", 0, S0("u", "key", 0), S0("i", "value", NUL), NULL);
    struct ArrowSchema *sch = S("+s", "", 0, S("+m", "m", NUL, ent, NULL, NULL),
                                S("+l", "l", 0, S0("u", "s", NUL), NULL, NULL), NULL);
    static const int32_t koffs[] = {0, 1, 2, 3};
    static const char kdata[] = "abc";
    static const int32_t vals[] = {1, 0, 4};
    static const int32_t moffs[] = {0, 2, 2, 3};
    struct ArrowArray *k = A(3, 0, 0, 3, NULL, koffs, kdata, NULL, NULL, NULL);
    struct ArrowArray *entries = STRUCT(3, 0, 0, NULL, k, PRIM(3, 0, 0, NULL, vals), NULL);
    struct ArrowArray *m = A(3, 0, 0, 2, NULL, moffs, NULL, entries, NULL, NULL);
    struct ArrowArray *s = A(3, 0, 0, 3, NULL, koffs, kdata, NULL, NULL, NULL);
    struct ArrowArray *l = A(3, 0, 0, 2, NULL, moffs, NULL, s, NULL, NULL);
    struct ArrowArray *rb = STRUCT(3, 0, 0, NULL, m, l, NULL);
    int ok = 0;
    for (int64_t fail = 1; fail < 100; fail++) {
        th_alloc ta;
        plank_allocator a = th_alloc_init(&ta);
        ta.fail_at = fail;
        plank_error e;
        pk_itree t;
        pk_shredded out;
        plank_schema_field *f = NULL;
        int32_t nf = 0;
        plank_status st = plank_schema_from_arrow(sch, &a, &f, &nf, &e);
        if (st == PLANK_OK) {
            plank_schema_fields_free(&a, f, nf);
            st = pk_itree_build(sch, &a, &t, &e);
        }
        if (st == PLANK_OK) {
            st = pk_arrow_shred(&t, rb, &a, &out, &e);
            if (st == PLANK_OK) {
                CHECK(out.num_columns == 3 && out.cols[0].length == 4 && out.cols[2].length == 4);
                pk_shredded_free(&out);
            }
            pk_itree_free(&t);
        }
        CHECK_MSG(st == PLANK_OK || st == PLANK_ERR_OUT_OF_MEMORY, "fail %lld: %d", (long long)fail, (int)st);
        CHECK_MSG(ta.live_blocks == 0 && ta.live_bytes == 0, "fail at %lld: %lld blocks leak",
                  (long long)fail, (long long)ta.live_blocks);
        if (!ta.failed) {
            ok = 1;
            CHECK(st == PLANK_OK);
            break;
        }
    }
    CHECK(ok);
}

/* ---- The corpus: shredding the export gives back the file's levels ------------------------- */

/* Reads one leaf column of the file slot by slot across row groups. */
typedef struct leafcur {
    plank_reader *r;
    int32_t column, rg;
    plank_column_reader *cr;
    plank_batch b;
    int64_t pos;
} leafcur;

static bool cur_next(leafcur *c, int64_t *i) {
    while (!c->cr || c->pos >= c->b.length) {
        if (c->cr && c->pos >= c->b.length) {
            if (plank_column_reader_read(c->cr, 4096, &c->b, NULL) != PLANK_OK) return false;
            c->pos = 0;
            if (c->b.length > 0) break;
            plank_column_reader_close(c->cr);
            c->cr = NULL;
            c->rg++;
        }
        if (c->rg >= plank_reader_num_row_groups(c->r)) return false;
        if (plank_column_reader_open(&c->cr, c->r, c->rg, c->column, NULL) != PLANK_OK) return false;
        c->b.length = 0;
    }
    *i = c->pos++;
    return true;
}

/* Compares column l of the shredded batch with the file's next slots. */
static bool same_slots(const char *file, const pk_inode *leaf, const plank_batch *sb, leafcur *c,
                       bool values) {
    for (int64_t k = 0; k < sb->length; k++) {
        int64_t i;
        if (!cur_next(c, &i)) {
            fprintf(stderr, "%s column %d: the file has fewer slots\n", file, (int)c->column);
            return false;
        }
        const plank_batch *fb = &c->b;
        int d = sb->def_levels ? sb->def_levels[k] : 0, r = sb->rep_levels ? sb->rep_levels[k] : 0;
        int fd = fb->def_levels ? fb->def_levels[i] : 0, fr = fb->rep_levels ? fb->rep_levels[i] : 0;
        if (!fb->def_levels && fb->validity && !pk_bit_get(fb->validity, i)) fd = 0;
        else if (!fb->def_levels && leaf->def > 0) fd = leaf->def;
        if (d != fd || r != fr) {
            fprintf(stderr, "%s column %d slot %lld: levels %d.%d, file %d.%d\n", file,
                    (int)c->column, (long long)k, r, d, fr, fd);
            return false;
        }
        if (!values || d != leaf->def) continue;
        bool same;
        if (leaf->physical_type == PLANK_BYTE_ARRAY) {
            int64_t n = sb->offsets[k + 1] - sb->offsets[k];
            same = n == fb->offsets[i + 1] - fb->offsets[i] &&
                   !memcmp(sb->data + sb->offsets[k], fb->data + fb->offsets[i], (size_t)n);
        } else if (leaf->physical_type == PLANK_BOOLEAN) {
            same = pk_bit_get(sb->values, k) == pk_bit_get(fb->values, i);
        } else {
            size_t w = (size_t)sb->value_width;
            same = !memcmp((const uint8_t *)sb->values + k * (int64_t)w,
                           (const uint8_t *)fb->values + i * (int64_t)w, w);
        }
        if (!same) {
            fprintf(stderr, "%s column %d slot %lld: value differs\n", file, (int)c->column,
                    (long long)k);
            return false;
        }
    }
    return true;
}

static int g_levels_same, g_levels_other_shape, g_levels_skipped;

static void corpus_file(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", dir, name);
    plank_reader *r = NULL;
    plank_error oe;
    plank_error_init(&oe);
    if (plank_reader_open_path(&r, path, NULL, &oe) != PLANK_OK) {
        fprintf(stderr, "%s: not opened: %s\n", name, oe.message);
        g_levels_skipped++;
        return;
    }
    /* large_string_map.brotli.parquet (2 GiB of strings) only with PLANK_TEST_LARGE=1 */
    int64_t bytes = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info rg = {.struct_size = sizeof(plank_row_group_info)};
        if (plank_reader_row_group(r, g, &rg, NULL) == PLANK_OK) bytes += rg.total_byte_size;
    }
    const char *large = getenv("PLANK_TEST_LARGE");
    if (bytes > ((int64_t)256 << 20) && !(large && *large == '1')) {
        fprintf(stderr, "%s: skipped, %lld bytes (set PLANK_TEST_LARGE=1)\n", name, (long long)bytes);
        plank_reader_close(r);
        return;
    }
    struct ArrowArrayStream s;
    struct ArrowSchema sc;
    if (plank_reader_arrow_stream(r, NULL, 0, NULL, &s, NULL) != PLANK_OK) {
        fprintf(stderr, "%s: export fails\n", name);
        g_levels_skipped++;
        plank_reader_close(r);
        return;
    }
    if (s.get_schema(&s, &sc) != 0) {
        fprintf(stderr, "%s: export fails\n", name);
        g_levels_skipped++;
        s.release(&s);
        plank_reader_close(r);
        return;
    }
    pk_itree t;
    plank_error e;
    plank_status st = pk_itree_build(&sc, NULL, &t, &e);
    CHECK_MSG(st == PLANK_OK, "%s: %s", name, e.message);
    int32_t nc = plank_reader_num_columns(r);
    bool canonical = st == PLANK_OK && t.num_leaves == nc;
    for (int32_t l = 0; canonical && l < nc; l++) {
        const plank_schema_node *cn = plank_reader_column_node(r, l);
        canonical = cn->max_definition_level == t.leaves[l]->def &&
                    cn->max_repetition_level == t.leaves[l]->max_rep;
    }
    leafcur *cur = calloc((size_t)nc + 1, sizeof *cur);
    for (int32_t l = 0; l < nc; l++) {
        cur[l].r = r;
        cur[l].column = l;
        cur[l].b.struct_size = sizeof cur[l].b;
    }
    bool ok = true, exported = true;
    while (st == PLANK_OK && ok) {
        struct ArrowArray a;
        if (s.get_next(&s, &a) != 0) {
            exported = false;
            break;
        }
        if (!a.release) break;
        pk_shredded out;
        st = pk_arrow_shred(&t, &a, NULL, &out, &e);
        CHECK_MSG(st == PLANK_OK, "%s: shred: %s", name, e.message);
        for (int32_t l = 0; st == PLANK_OK && canonical && ok && l < nc; l++) {
            const plank_schema_node *cn = plank_reader_column_node(r, l);
            bool values = cn->physical_type == t.leaves[l]->physical_type &&
                          cn->type_length == t.leaves[l]->type_length;
            ok = same_slots(name, t.leaves[l], &out.cols[l], &cur[l], values);
        }
        if (st == PLANK_OK) pk_shredded_free(&out);
        a.release(&a);
    }
    CHECK_MSG(ok, "%s: the shredded export differs from the file", name);
    if (!exported) g_levels_skipped++;
    else if (canonical) g_levels_same += ok;
    else g_levels_other_shape++;
    if (!exported || !canonical)
        fprintf(stderr, "%s: %s\n", name, !exported ? "export fails" : "another level shape");
    for (int32_t l = 0; l < nc; l++) plank_column_reader_close(cur[l].cr);
    free(cur);
    if (st == PLANK_OK || t.root) pk_itree_free(&t);
    sc.release(&sc);
    s.release(&s);
    plank_reader_close(r);
}

static void test_corpus(void) {
    const char *dir = th_testing_dir();
    if (!dir) {
        TEST_SKIP_PART("corpus part: parquet-testing not found (set PLANK_TESTING_DIR)");
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/data", dir);
    DIR *d = opendir(path);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l > 8 && !strcmp(de->d_name + l - 8, ".parquet")) corpus_file(dir, de->d_name);
    }
    closedir(d);
    fprintf(stderr,
            "corpus: %d files shred to the file's own levels and values, %d with another "
            "level shape (legacy lists), %d not exported\n",
            g_levels_same, g_levels_other_shape, g_levels_skipped);
    CHECK(g_levels_same > 0);
}

int main(void) {
    test_schema_mapping();
    test_list_int64();
    test_struct();
    test_map();
    test_list_list();
    test_list_struct();
    test_conversions();
    test_dictionary();
    test_hostile();
    test_alloc();
    test_corpus();
    TEST_END();
}
