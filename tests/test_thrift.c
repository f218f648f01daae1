/*
 * test_thrift.c: the Thrift compact-protocol decoder of the footer and page
 * headers. Expected values come from hand-computed byte sequences, from a
 * small independent compact-protocol writer below, and from the Apache
 * parquet-testing files checked against CATALOG.tsv (DuckDB / hyparquet).
 */
#include "tharness.h"

#include "thrift/pk_thrift.h"

/* ---- An independent compact-protocol writer -------------------------------- */

enum { T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7,
       T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12 };

typedef struct tw {
    uint8_t b[16384];
    size_t n;
    int last[128]; /* last field id per open struct */
    int depth;
} tw;

static void w_byte(tw *w, unsigned v) {
    if (w->n < sizeof w->b) w->b[w->n++] = (uint8_t)v;
}
static void w_varint(tw *w, uint64_t v) {
    while (v >= 0x80) {
        w_byte(w, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    w_byte(w, (unsigned)v);
}
static void w_zz(tw *w, int64_t v) { w_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static void w_field(tw *w, int type, int id) {
    int delta = id - w->last[w->depth];
    if (delta > 0 && delta <= 15) {
        w_byte(w, (unsigned)(delta << 4 | type));
    } else {
        w_byte(w, (unsigned)type);
        w_zz(w, id);
    }
    w->last[w->depth] = id;
}
/* A struct value begins (after its field header or as a list element). */
static void w_begin(tw *w) { w->last[++w->depth] = 0; }
static void w_end(tw *w) {
    w_byte(w, 0);
    w->depth--;
}
static void w_list(tw *w, int et, uint32_t n) {
    if (n < 15) {
        w_byte(w, n << 4 | (unsigned)et);
    } else {
        w_byte(w, 0xf0 | (unsigned)et);
        w_varint(w, n);
    }
}
static void w_bin(tw *w, const char *s) {
    size_t len = strlen(s);
    w_varint(w, len);
    for (size_t i = 0; i < len; i++) w_byte(w, (uint8_t)s[i]);
}
static void f_i32(tw *w, int id, int64_t v) { w_field(w, T_I32, id); w_zz(w, v); }
static void f_i64(tw *w, int id, int64_t v) { w_field(w, T_I64, id); w_zz(w, v); }
static void f_bool(tw *w, int id, bool v) { w_field(w, v ? T_TRUE : T_FALSE, id); }
static void f_str(tw *w, int id, const char *s) { w_field(w, T_BINARY, id); w_bin(w, s); }
static void f_struct(tw *w, int id) { w_field(w, T_STRUCT, id); w_begin(w); }
static void f_list(tw *w, int id, int et, uint32_t n) { w_field(w, T_LIST, id); w_list(w, et, n); }
/* A marker (empty struct) union member. */
static void f_marker(tw *w, int id) { f_struct(w, id); w_end(w); }

/* One unknown field of every wire type, ids from `base`. */
static void w_unknown_fields(tw *w, int base) {
    f_bool(w, base, true);
    f_bool(w, base + 1, false);
    w_field(w, T_BYTE, base + 2);
    w_byte(w, 0xff);
    w_field(w, T_I16, base + 3);
    w_zz(w, -300);
    f_i32(w, base + 4, -70000);
    f_i64(w, base + 5, INT64_MIN);
    w_field(w, T_DOUBLE, base + 6);
    for (int i = 0; i < 8; i++) w_byte(w, 0x40);
    f_str(w, base + 7, "skipped");
    f_list(w, base + 8, T_I32, 3);
    w_zz(w, 1); w_zz(w, -2); w_zz(w, 3);
    w_field(w, T_SET, base + 9);
    w_list(w, T_BINARY, 2);
    w_bin(w, "x"); w_bin(w, "yz");
    w_field(w, T_MAP, base + 10); /* map<binary, list<bool>> with 2 entries */
    w_varint(w, 2);
    w_byte(w, T_BINARY << 4 | T_LIST);
    w_bin(w, "k1"); w_list(w, T_TRUE, 2); w_byte(w, 1); w_byte(w, 2);
    w_bin(w, "k2"); w_list(w, T_TRUE, 0);
    w_field(w, T_MAP, base + 11); /* empty map: no type byte */
    w_varint(w, 0);
    f_struct(w, base + 12); /* struct { list<struct{...}> of 16 (long form) } */
    f_list(w, 3, T_STRUCT, 16);
    for (int i = 0; i < 16; i++) {
        w_begin(w);
        f_i32(w, 1, i);
        f_struct(w, 2);
        f_str(w, 1, "deep");
        w_end(w);
        w_end(w);
    }
    w_end(w);
}

/* A two-column footer touching most fields; values checked in
 * test_synthetic_footer. */
static void build_footer(tw *w) {
    memset(w, 0, sizeof *w);
    f_i32(w, 1, 2);
    f_list(w, 2, T_STRUCT, 3);
    /* root */
    w_begin(w);
    f_str(w, 4, "schema");
    f_i32(w, 5, 2);
    w_end(w);
    /* a: optional int32, INTEGER(16, signed), field_id -5 */
    w_begin(w);
    f_i32(w, 1, 1);
    f_i32(w, 3, 1);
    f_str(w, 4, "a");
    f_i32(w, 6, 16);
    f_i32(w, 9, -5);
    f_struct(w, 10);
    f_struct(w, 10);
    w_field(w, T_BYTE, 1);
    w_byte(w, 16);
    f_bool(w, 2, true);
    w_end(w);
    w_end(w);
    w_end(w);
    /* b: required byte_array with a LogicalType member from the future
     * (id 40, long-form field header) */
    w_begin(w);
    f_i32(w, 1, 6);
    f_i32(w, 3, 0);
    f_str(w, 4, "b");
    f_struct(w, 10);
    f_struct(w, 40);
    f_i32(w, 1, 7);
    f_str(w, 2, "future");
    w_end(w);
    w_end(w);
    w_end(w);
    f_i64(w, 3, 300);
    f_list(w, 4, T_STRUCT, 1);
    w_begin(w); /* RowGroup */
    f_list(w, 1, T_STRUCT, 2);
    w_begin(w); /* ColumnChunk a */
    f_i64(w, 2, 4);
    f_struct(w, 3);
    f_i32(w, 1, 1);
    f_list(w, 2, T_I32, 3);
    w_zz(w, 0); w_zz(w, 3); w_zz(w, 8);
    f_list(w, 3, T_BINARY, 1);
    w_bin(w, "a");
    f_i32(w, 4, 1);
    f_i64(w, 5, 300);
    f_i64(w, 6, 1500);
    f_i64(w, 7, 1200);
    f_list(w, 8, T_STRUCT, 1);
    w_begin(w); f_str(w, 1, "ck"); f_str(w, 2, "cv"); w_end(w);
    f_i64(w, 9, 4);
    f_struct(w, 12); /* Statistics: new and old fields */
    f_str(w, 1, "OLDMAX");
    f_str(w, 2, "OLDMIN");
    f_i64(w, 3, 7);
    f_str(w, 5, "\x10\x27");
    f_str(w, 6, "\xfe\xff");
    f_bool(w, 7, true);
    f_bool(w, 8, false);
    f_i64(w, 9, 2);
    w_end(w);
    f_list(w, 13, T_STRUCT, 2);
    w_begin(w); f_i32(w, 1, 0); f_i32(w, 2, 8); f_i32(w, 3, 3); w_end(w);
    w_begin(w); f_i32(w, 1, 2); f_i32(w, 2, 0); f_i32(w, 3, 1); w_end(w);
    f_i64(w, 14, 100000);
    f_i32(w, 15, 1024);
    f_struct(w, 16);
    f_list(w, 3, T_I64, 20); /* long-form list size */
    for (int i = 0; i < 20; i++) w_zz(w, i == 19 ? -1 : i * 1000);
    w_end(w);
    w_end(w); /* ColumnMetaData */
    f_i64(w, 4, 5000);
    f_i32(w, 5, 40);
    f_i64(w, 6, 6000);
    f_i32(w, 7, 60);
    w_end(w);
    w_begin(w); /* ColumnChunk b: deprecated statistics only, crypto metadata */
    f_str(w, 1, "other.parquet");
    f_i64(w, 2, 0);
    f_struct(w, 3);
    f_i32(w, 1, 6);
    f_list(w, 2, T_I32, 1);
    w_zz(w, 0);
    f_list(w, 3, T_BINARY, 1);
    w_bin(w, "b");
    f_i32(w, 4, 0);
    f_i64(w, 5, 300);
    f_i64(w, 6, 900);
    f_i64(w, 7, 900);
    f_i64(w, 9, 1204);
    f_i64(w, 11, 1204);
    f_struct(w, 12);
    f_str(w, 1, "zz");
    f_str(w, 2, "");
    f_i64(w, 3, -1); /* a negative count: treated as absent */
    w_end(w);
    w_end(w);
    f_struct(w, 8);
    f_marker(w, 1);
    w_end(w);
    w_end(w);
    f_i64(w, 2, 2400); /* total_byte_size */
    f_i64(w, 3, 300);
    f_list(w, 4, T_STRUCT, 1);
    w_begin(w); f_i32(w, 1, 1); f_bool(w, 2, true); f_bool(w, 3, false); w_end(w);
    w_field(w, T_I16, 7);
    w_zz(w, 0);
    w_end(w); /* RowGroup */
    f_list(w, 5, T_STRUCT, 2);
    w_begin(w); f_str(w, 1, "k"); f_str(w, 2, "v"); w_end(w);
    w_begin(w); f_str(w, 1, "novalue"); w_end(w);
    f_str(w, 6, "plank test writer");
    f_list(w, 7, T_STRUCT, 3);
    w_begin(w); f_marker(w, 1); w_end(w);
    w_begin(w); f_marker(w, 3); w_end(w);
    w_begin(w); f_marker(w, 9); w_end(w);
    w_unknown_fields(w, 100);
    w_end(w); /* FileMetaData */
}

static void test_synthetic_footer(void) {
    tw w;
    build_footer(&w);
    th_alloc c;
    plank_allocator a = th_alloc_init(&c);
    pk_file_metadata md;
    plank_error err;
    plank_error_init(&err);
    plank_status st = pk_thrift_read_file_metadata(w.b, w.n, &a, &md, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st != PLANK_OK) return;
    CHECK_EQ_I64(md.version, 2);
    CHECK_EQ_I64(md.num_rows, 300);
    CHECK_EQ_I64(md.num_schema, 3);
    CHECK(strcmp(md.schema[0].name, "schema") == 0);
    CHECK_EQ_I64(md.schema[0].num_children, 2);
    CHECK_EQ_I64(md.schema[0].type, -1);
    CHECK_EQ_I64(md.schema[0].repetition, -1);
    CHECK(!md.schema[0].has_logical_type);
    const pk_schema_element *sa = &md.schema[1];
    CHECK(strcmp(sa->name, "a") == 0);
    CHECK_EQ_I64(sa->type, PLANK_INT32);
    CHECK_EQ_I64(sa->repetition, PLANK_OPTIONAL);
    CHECK_EQ_I64(sa->converted_type, PLANK_CONVERTED_INT_16);
    CHECK_EQ_I64(sa->num_children, -1);
    CHECK_EQ_I64(sa->type_length, -1);
    CHECK(sa->has_field_id);
    CHECK_EQ_I64(sa->field_id, -5);
    CHECK(sa->has_logical_type);
    CHECK_EQ_I64(sa->logical.kind, PLANK_LOGICAL_INTEGER);
    CHECK_EQ_I64(sa->logical.bit_width, 16);
    CHECK(sa->logical.is_signed);
    const pk_schema_element *sb = &md.schema[2];
    CHECK(sb->has_logical_type);
    CHECK_EQ_I64(sb->logical.kind, PLANK_LOGICAL_UNRECOGNIZED);
    CHECK(!sb->has_field_id);
    CHECK_EQ_I64(md.num_row_groups, 1);
    const pk_row_group *rg = &md.row_groups[0];
    CHECK_EQ_I64(rg->info.num_rows, 300);
    CHECK_EQ_I64(rg->info.total_byte_size, 2400);
    CHECK_EQ_I64(rg->info.ordinal, 0);
    CHECK_EQ_I64(rg->info.file_offset, -1);
    CHECK_EQ_I64(rg->info.total_compressed_size, -1);
    CHECK_EQ_I64(rg->info.num_sorting_columns, 1);
    CHECK_EQ_I64(rg->info.sorting_columns[0].column, 1);
    CHECK(rg->info.sorting_columns[0].descending);
    CHECK(!rg->info.sorting_columns[0].nulls_first);
    CHECK_EQ_I64(rg->num_columns, 2);
    const plank_column_chunk_info *ca = &rg->columns[0];
    CHECK(ca->file_path == NULL);
    CHECK_EQ_I64(ca->physical_type, PLANK_INT32);
    CHECK_EQ_I64(ca->codec, PLANK_CODEC_SNAPPY);
    CHECK_EQ_I64(ca->num_values, 300);
    CHECK_EQ_I64(ca->total_uncompressed_size, 1500);
    CHECK_EQ_I64(ca->total_compressed_size, 1200);
    CHECK_EQ_I64(ca->data_page_offset, 4);
    CHECK_EQ_I64(ca->dictionary_page_offset, -1);
    CHECK_EQ_I64(ca->index_page_offset, -1);
    CHECK_EQ_I64(ca->num_encodings, 3);
    CHECK_EQ_I64(ca->encodings[2], PLANK_ENC_RLE_DICTIONARY);
    CHECK_EQ_I64(ca->num_key_values, 1);
    CHECK(strcmp(ca->key_values[0].key, "ck") == 0 && strcmp(ca->key_values[0].value, "cv") == 0);
    CHECK(ca->has_statistics);
    const plank_statistics *s = &ca->statistics;
    CHECK(!s->min_max_deprecated);
    CHECK(s->has_min && s->has_max);
    CHECK(s->min_len == 2 && memcmp(s->min, "\xfe\xff", 2) == 0);
    CHECK(s->max_len == 2 && memcmp(s->max, "\x10\x27", 2) == 0);
    CHECK(s->has_null_count && s->null_count == 7);
    CHECK(!s->has_distinct_count);
    CHECK(s->has_nan_count && s->nan_count == 2);
    CHECK(s->has_is_max_exact && s->is_max_exact);
    CHECK(s->has_is_min_exact && !s->is_min_exact);
    CHECK_EQ_I64(ca->num_encoding_stats, 2);
    CHECK_EQ_I64(ca->encoding_stats[0].encoding, PLANK_ENC_RLE_DICTIONARY);
    CHECK_EQ_I64(ca->encoding_stats[0].count, 3);
    CHECK_EQ_I64(ca->encoding_stats[1].page_type, PLANK_PAGE_DICTIONARY);
    CHECK_EQ_I64(ca->bloom_filter_offset, 100000);
    CHECK_EQ_I64(ca->bloom_filter_length, 1024);
    CHECK_EQ_I64(ca->unencoded_byte_array_data_bytes, -1);
    CHECK_EQ_I64(ca->num_repetition_level_histogram, 0);
    CHECK_EQ_I64(ca->num_definition_level_histogram, 20);
    CHECK_EQ_I64(ca->definition_level_histogram[18], 18000);
    CHECK_EQ_I64(ca->definition_level_histogram[19], -1);
    CHECK_EQ_I64(ca->offset_index_offset, 5000);
    CHECK_EQ_I64(ca->offset_index_length, 40);
    CHECK_EQ_I64(ca->column_index_offset, 6000);
    CHECK_EQ_I64(ca->column_index_length, 60);
    CHECK(!ca->encrypted);
    const plank_column_chunk_info *cb = &rg->columns[1];
    CHECK(cb->file_path && strcmp(cb->file_path, "other.parquet") == 0);
    CHECK_EQ_I64(cb->dictionary_page_offset, 1204);
    CHECK(cb->statistics.min_max_deprecated);
    CHECK(cb->statistics.has_max && cb->statistics.max_len == 2);
    CHECK(cb->statistics.has_min && cb->statistics.min_len == 0);
    CHECK(!cb->statistics.has_null_count);
    CHECK(cb->encrypted);
    CHECK_EQ_I64(cb->bloom_filter_offset, -1);
    CHECK_EQ_I64(cb->offset_index_offset, -1);
    CHECK_EQ_I64(md.num_key_values, 2);
    CHECK(strcmp(md.key_values[0].key, "k") == 0 && strcmp(md.key_values[0].value, "v") == 0);
    CHECK(strcmp(md.key_values[1].key, "novalue") == 0 && md.key_values[1].value == NULL);
    CHECK(md.created_by && strcmp(md.created_by, "plank test writer") == 0);
    CHECK_EQ_I64(md.num_column_orders, 3);
    CHECK_EQ_I64(md.column_orders[0], 0);
    CHECK_EQ_I64(md.column_orders[1], 2);
    CHECK_EQ_I64(md.column_orders[2], -1);
    CHECK(!md.has_encryption_algorithm);

    /* Statistics bytes live in the arena, not in the input. */
    const uint8_t *min = s->min;
    CHECK(!(min >= w.b && min < w.b + w.n));
    memset(w.b, 0xAA, w.n);
    CHECK(memcmp(min, "\xfe\xff", 2) == 0);
    build_footer(&w);

    pk_file_metadata_free(&md);
    CHECK_EQ_I64(c.live_bytes, 0);

    /* Every truncation is an error located inside the buffer, never a
     * crash or a leak. */
    int bad = 0;
    for (size_t n = 0; n < w.n; n++) {
        plank_error_init(&err);
        st = pk_thrift_read_file_metadata(w.b, n, &a, &md, &err);
        if (st != PLANK_ERR_CORRUPT || err.byte_offset < 0 || (size_t)err.byte_offset > n ||
            !strstr(err.message, "at byte"))
            bad++;
        if (st == PLANK_OK) pk_file_metadata_free(&md);
    }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(c.live_bytes, 0);
}

/* Starts FileMetaData {1: version, 2: schema [root]}; callers add fields and w_end. */
static void footer_head(tw *w) {
    memset(w, 0, sizeof *w);
    f_i32(w, 1, 1);
    f_list(w, 2, T_STRUCT, 1);
    w_begin(w);
    f_str(w, 4, "r");
    w_end(w);
}

/* The allocator must outlive md (its arena keeps the pointer). */
/* footer_head plus empty num_rows / row_groups: a valid prefix that more
 * fields may follow before w_end. */
static void footer_base(tw *w) {
    footer_head(w);
    f_i64(w, 3, 0);
    f_list(w, 4, T_STRUCT, 0);
}

static plank_status parse(tw *w, plank_error *err, pk_file_metadata *md,
                          const plank_allocator *a) {
    plank_error_init(err);
    return pk_thrift_read_file_metadata(w->b, w->n, a, md, err);
}

/* Parses w expecting PLANK_ERR_CORRUPT at byte `at` (any when < 0) with
 * `what` in the message. */
static void expect_corrupt_at(tw *w, int64_t at, const char *what, const plank_allocator *a,
                              int line) {
    pk_file_metadata md;
    plank_error err;
    plank_status st = parse(w, &err, &md, a);
    CHECK_MSG(st == PLANK_ERR_CORRUPT, "line %d: status %d", line, (int)st);
    if (st == PLANK_OK) pk_file_metadata_free(&md);
    if (at >= 0) CHECK_MSG(err.byte_offset == at, "line %d: at %lld", line, (long long)err.byte_offset);
    CHECK_MSG(strstr(err.message, what) != NULL, "line %d: %s", line, err.message);
}
#define expect_corrupt(w, at, what, a) expect_corrupt_at((w), (at), (what), (a), __LINE__)

static void test_footer_errors(void) {
    tw w;
    th_alloc cnt;
    const plank_allocator c = th_alloc_init(&cnt);
    pk_file_metadata md;
    plank_error err;
    size_t at;

    /* The minimal valid footer. */
    footer_base(&w);
    w_end(&w);
    CHECK_EQ_I64(parse(&w, &err, &md, &c), PLANK_OK);
    CHECK_EQ_I64(md.num_row_groups, 0);
    CHECK(md.created_by == NULL);
    pk_file_metadata_free(&md);

    /* An empty list whose element type nibble is 0, as fastparquet writes
     * key_value_metadata (field 5, header byte 0x00): decodes, as in other
     * readers; so does an empty list of another invalid nibble (0x0d). */
    for (unsigned nib = 0; nib < 16; nib += 13) {
        footer_base(&w);
        size_t list_at = w.n;
        f_list(&w, 5, 0, 0);
        w.b[list_at + 1] = (uint8_t)nib;
        CHECK_EQ_I64(w.b[list_at + 1], nib);
        f_str(&w, 6, "fastparquet-python version 2024.11.0 (build 0)");
        w_end(&w);
        CHECK_EQ_I64(parse(&w, &err, &md, &c), PLANK_OK);
        CHECK_EQ_I64(md.num_key_values, 0);
        CHECK(md.created_by && strncmp(md.created_by, "fastparquet", 11) == 0);
        pk_file_metadata_free(&md);
    }
    /* A non-empty list with element type 0 stays an error, at its header. */
    footer_base(&w);
    at = w.n;
    f_list(&w, 5, 0, 1);
    w_byte(&w, 0);
    w_end(&w);
    expect_corrupt(&w, (int64_t)(at + 1), "invalid list element type 0", &c);

    /* Missing required row_groups: named in the message. */
    footer_head(&w);
    f_i64(&w, 3, 0);
    w_end(&w);
    expect_corrupt(&w, -1, "row_groups", &c);

    /* Negative num_rows. */
    footer_head(&w);
    at = w.n;
    f_i64(&w, 3, -1);
    f_list(&w, 4, T_STRUCT, 0);
    w_end(&w);
    expect_corrupt(&w, (int64_t)(at + 1), "FileMetaData.num_rows", &c);

    /* A list claiming 2^31 elements fails before any large allocation. */
    footer_head(&w);
    f_i64(&w, 3, 0);
    at = w.n;
    f_list(&w, 4, T_STRUCT, 1u << 31);
    for (int i = 0; i < 64; i++) w_byte(&w, 0);
    cnt.max_single = 0;
    expect_corrupt(&w, (int64_t)(at + 1), "exceeds", &c);
    CHECK(cnt.max_single < 65536);
    /* ... also when the count is just above the bytes left. */
    footer_head(&w);
    f_i64(&w, 3, 0);
    f_list(&w, 4, T_STRUCT, 20);
    for (int i = 0; i < 19; i++) w_byte(&w, 0);
    expect_corrupt(&w, -1, "exceeds", &c);

    /* A ColumnChunk list that claims many elements but has few: only what
     * was decoded is allocated. */
    footer_head(&w);
    f_i64(&w, 3, 0);
    f_list(&w, 4, T_STRUCT, 1);
    w_begin(&w);
    f_i64(&w, 2, 0);
    f_i64(&w, 3, 0);
    f_list(&w, 1, T_STRUCT, 5000);
    for (int i = 0; i < 5000; i++) w_byte(&w, i < 2 ? 0 : 0x0d); /* 2 chunks, then bad */
    cnt.max_single = 0;
    expect_corrupt(&w, -1, "element 2", &c);
    CHECK(cnt.max_single <= 65536);

    /* Nesting: an unknown struct 70 deep is rejected, 20 deep is skipped. */
    for (int pass = 0; pass < 2; pass++) {
        int levels = pass ? 20 : 70;
        footer_base(&w);
        for (int i = 0; i < levels; i++) f_struct(&w, i == 0 ? 50 : 1);
        for (int i = 0; i < levels; i++) w_end(&w);
        w_end(&w);
        plank_status st = parse(&w, &err, &md, &c);
        if (pass) {
            CHECK_MSG(st == PLANK_OK, "%s", err.message);
            pk_file_metadata_free(&md);
        } else {
            CHECK_EQ_I64(st, PLANK_ERR_CORRUPT);
            CHECK_MSG(strstr(err.message, "nesting") != NULL, "%s", err.message);
        }
    }
    /* Nested lists count too. */
    footer_base(&w);
    f_list(&w, 60, T_LIST, 1);
    for (int i = 0; i < 100; i++) w_list(&w, T_LIST, 1);
    for (int i = 0; i < 10; i++) w_byte(&w, 0);
    expect_corrupt(&w, -1, "nesting", &c);

    /* A field of an invalid wire type (13). */
    footer_head(&w);
    at = w.n;
    w_byte(&w, 0x1d);
    w_end(&w);
    expect_corrupt(&w, (int64_t)at, "invalid field type 13", &c);

    /* A known field of the wrong type (num_rows as binary). */
    footer_head(&w);
    f_str(&w, 3, "1");
    f_list(&w, 4, T_STRUCT, 0);
    w_end(&w);
    expect_corrupt(&w, -1, "num_rows", &c);

    /* An optional known field of another wire type is skipped (an old
     * writer reused ColumnMetaData id 15; see dict-page-offset-zero). */
    footer_base(&w);
    f_i32(&w, 6, 12345);
    w_end(&w);
    plank_status st0 = parse(&w, &err, &md, &c);
    CHECK_MSG(st0 == PLANK_OK, "%s", err.message);
    if (st0 == PLANK_OK) {
        CHECK(md.created_by == NULL);
        pk_file_metadata_free(&md);
    }

    /* A string longer than the bytes left. */
    footer_base(&w);
    w_field(&w, T_BINARY, 6);
    w_varint(&w, 1000);
    w_bin(&w, "short");
    w_end(&w);
    expect_corrupt(&w, -1, "created_by", &c);

    /* An 11-byte varint. */
    footer_head(&w);
    w_field(&w, T_I64, 3);
    for (int i = 0; i < 10; i++) w_byte(&w, 0xff);
    w_byte(&w, 0x01);
    f_list(&w, 4, T_STRUCT, 0);
    w_end(&w);
    expect_corrupt(&w, -1, "overflows", &c);

    /* A 10-byte varint whose last byte has bits above bit 63. */
    footer_head(&w);
    at = w.n;
    w_field(&w, T_I64, 3);
    for (int i = 0; i < 9; i++) w_byte(&w, 0xff);
    w_byte(&w, 0x02);
    f_list(&w, 4, T_STRUCT, 0);
    w_end(&w);
    expect_corrupt(&w, (int64_t)(at + 1), "overflows", &c);

    /* An unknown map claiming more entries than bytes left (each entry
     * takes two): rejected at its header. */
    footer_base(&w);
    w_field(&w, T_MAP, 90);
    at = w.n;
    w_varint(&w, 6);
    w_byte(&w, T_I32 << 4 | T_I32);
    for (int i = 0; i < 10; i++) w_byte(&w, 0);
    expect_corrupt(&w, (int64_t)(at), "map of 6", &c);

    /* A 10-byte varint holding INT64_MIN (zigzag 2^64-1) is valid for an
     * unknown i64 field, and a TimeUnit member from the future makes the
     * logical type UNRECOGNIZED. */
    memset(&w, 0, sizeof w);
    f_i32(&w, 1, 1);
    f_list(&w, 2, T_STRUCT, 2);
    w_begin(&w); f_str(&w, 4, "r"); f_i32(&w, 5, 1); w_end(&w);
    w_begin(&w);
    f_i32(&w, 1, 2);
    f_str(&w, 4, "t");
    f_struct(&w, 10);
    f_struct(&w, 8); /* TIMESTAMP */
    f_bool(&w, 1, true);
    f_struct(&w, 2);
    f_marker(&w, 9); /* unknown unit */
    w_end(&w);
    w_end(&w);
    w_end(&w);
    w_end(&w);
    f_i64(&w, 3, 0);
    f_list(&w, 4, T_STRUCT, 0);
    f_i64(&w, 77, INT64_MIN);
    w_end(&w);
    plank_status st = parse(&w, &err, &md, &c);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st == PLANK_OK) {
        CHECK_EQ_I64(md.schema[1].logical.kind, PLANK_LOGICAL_UNRECOGNIZED);
        pk_file_metadata_free(&md);
    }

    /* Two LogicalType members at once. */
    memset(&w, 0, sizeof w);
    f_i32(&w, 1, 1);
    f_list(&w, 2, T_STRUCT, 1);
    w_begin(&w);
    f_str(&w, 4, "r");
    f_struct(&w, 10);
    f_marker(&w, 1);
    f_marker(&w, 6);
    w_end(&w);
    w_end(&w);
    f_i64(&w, 3, 0);
    f_list(&w, 4, T_STRUCT, 0);
    w_end(&w);
    expect_corrupt(&w, -1, "SchemaElement.logicalType", &c);

    /* ColumnMetaData without its codec. */
    footer_head(&w);
    f_i64(&w, 3, 0);
    f_list(&w, 4, T_STRUCT, 1);
    w_begin(&w);
    f_list(&w, 1, T_STRUCT, 1);
    w_begin(&w);
    f_struct(&w, 3);
    f_i32(&w, 1, 1);
    f_list(&w, 2, T_I32, 0);
    f_list(&w, 3, T_BINARY, 0);
    f_i64(&w, 5, 0);
    f_i64(&w, 6, 0);
    f_i64(&w, 7, 0);
    f_i64(&w, 9, 4);
    w_end(&w);
    w_end(&w);
    f_i64(&w, 2, 0);
    f_i64(&w, 3, 0);
    w_end(&w);
    w_end(&w);
    CHECK_EQ_I64(parse(&w, &err, &md, &c), PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "codec") != NULL && strstr(err.message, "ColumnChunk.meta_data"),
              "%s", err.message);
    CHECK_EQ_I64(cnt.live_bytes, 0);
}

/* ---- Page headers: hand-computed bytes ----------------------------------------- */

static void test_page_headers(void) {
    pk_page_header h;
    size_t hl = 0;
    plank_error err;

    static const uint8_t v1[] = {
        0x15, 0x00,       /* 1: type = DATA_PAGE */
        0x15, 0xC8, 0x01, /* 2: uncompressed_page_size = 100 (zigzag 200) */
        0x15, 0xC8, 0x01, /* 3: compressed_page_size = 100 */
        0x15, 0x01,       /* 4: crc = -1 (zigzag 1) */
        0x1C,             /* 5: data_page_header */
        0x15, 0x14,       /*    num_values = 10 */
        0x15, 0x00,       /*    encoding = PLAIN */
        0x15, 0x06,       /*    definition_level_encoding = RLE */
        0x15, 0x08,       /*    repetition_level_encoding = BIT_PACKED */
        0x00, 0x00,
        0xAB, 0xCD /* page data, not part of the header */
    };
    plank_error_init(&err);
    CHECK_EQ_I64(pk_thrift_read_page_header(v1, sizeof v1, &h, &hl, &err), PLANK_OK);
    CHECK_EQ_I64(hl, sizeof v1 - 2);
    CHECK_EQ_I64(h.type, PLANK_PAGE_DATA);
    CHECK_EQ_I64(h.uncompressed_page_size, 100);
    CHECK_EQ_I64(h.compressed_page_size, 100);
    CHECK(h.has_crc && h.crc == 0xFFFFFFFFu);
    CHECK(h.has_data_header && !h.has_data_header_v2 && !h.has_dictionary_header);
    CHECK_EQ_I64(h.num_values, 10);
    CHECK_EQ_I64(h.encoding, PLANK_ENC_PLAIN);
    CHECK_EQ_I64(h.definition_level_encoding, PLANK_ENC_RLE);
    CHECK_EQ_I64(h.repetition_level_encoding, PLANK_ENC_BIT_PACKED);
    /* Truncated anywhere: an error, never a read past the end. */
    int bad = 0;
    for (size_t n = 0; n < sizeof v1 - 2; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, v1, n);
        if (pk_thrift_read_page_header(copy, n, &h, &hl, NULL) != PLANK_ERR_CORRUPT) bad++;
        free(copy);
    }
    CHECK_EQ_I64(bad, 0);

    /* Long-form field headers (delta 0 + zigzag i16 id), an unknown binary
     * field with id 1000 and an unknown field with a negative id. */
    static const uint8_t longform[] = {
        0x15, 0x04,             /* 1: type = DICTIONARY_PAGE */
        0x05, 0x04, 0x0A,       /* i32 field, id 2 (zigzag 4): uncompressed = 5 */
        0x15, 0x0A,             /* 3: compressed = 5 */
        0x08, 0xD0, 0x0F,       /* binary field id 1000 (zigzag 2000) */
        0x03, 'a', 'b', 'c',
        0x05, 0x01, 0x7F,       /* i32 field id -1: value -64 (zigzag 127) */
        0x0C, 0x0E,             /* struct field id 7 (zigzag 14) */
        0x15, 0x06,             /*    num_values = 3 */
        0x15, 0x00,             /*    encoding = PLAIN */
        0x11,                   /*    is_sorted = true */
        0x00, 0x00};
    plank_error_init(&err);
    CHECK_EQ_I64(pk_thrift_read_page_header(longform, sizeof longform, &h, &hl, &err), PLANK_OK);
    CHECK_EQ_I64(hl, sizeof longform);
    CHECK_EQ_I64(h.type, PLANK_PAGE_DICTIONARY);
    CHECK_EQ_I64(h.uncompressed_page_size, 5);
    CHECK(h.has_dictionary_header && !h.has_crc);
    CHECK_EQ_I64(h.dict_num_values, 3);
    CHECK_EQ_I64(h.dict_encoding, PLANK_ENC_PLAIN);
    CHECK(h.dict_is_sorted);

    static const uint8_t v2[] = {
        0x15, 0x06,       /* type = DATA_PAGE_V2 */
        0x15, 0x28,       /* uncompressed = 20 */
        0x15, 0x1E,       /* compressed = 15 */
        0x5C,             /* field 8 (delta 5): data_page_header_v2 */
        0x15, 0x0A,       /*    num_values = 5 */
        0x15, 0x02,       /*    num_nulls = 1 */
        0x15, 0x0A,       /*    num_rows = 5 */
        0x15, 0x10,       /*    encoding = RLE_DICTIONARY */
        0x15, 0x04,       /*    definition_levels_byte_length = 2 */
        0x15, 0x00,       /*    repetition_levels_byte_length = 0 */
        0x12,             /*    is_compressed = false */
        0x00, 0x00};
    CHECK_EQ_I64(pk_thrift_read_page_header(v2, sizeof v2, &h, &hl, &err), PLANK_OK);
    CHECK(h.has_data_header_v2);
    CHECK_EQ_I64(h.compressed_page_size, 15);
    CHECK_EQ_I64(h.num_nulls, 1);
    CHECK_EQ_I64(h.num_rows, 5);
    CHECK_EQ_I64(h.encoding, PLANK_ENC_RLE_DICTIONARY);
    CHECK_EQ_I64(h.definition_levels_byte_length, 2);
    CHECK(!h.is_compressed);
    /* Without the is_compressed field it defaults to true. */
    uint8_t v2b[sizeof v2];
    memcpy(v2b, v2, sizeof v2);
    v2b[sizeof v2 - 3] = 0x00; /* end the inner struct before is_compressed */
    CHECK_EQ_I64(pk_thrift_read_page_header(v2b, sizeof v2 - 1, &h, &hl, &err), PLANK_OK);
    CHECK(h.is_compressed);
    CHECK_EQ_I64(hl, sizeof v2 - 1);

    /* Negative compressed size, located at its value. */
    static const uint8_t neg[] = {0x15, 0x00, 0x15, 0x02, 0x15, 0x01, 0x00};
    plank_error_init(&err);
    CHECK_EQ_I64(pk_thrift_read_page_header(neg, sizeof neg, &h, &hl, &err), PLANK_ERR_CORRUPT);
    CHECK_EQ_I64(err.byte_offset, 5);
    CHECK_MSG(strstr(err.message, "compressed_page_size") != NULL, "%s", err.message);
    /* Missing the compressed size. */
    static const uint8_t miss[] = {0x15, 0x00, 0x15, 0x02, 0x00};
    CHECK_EQ_I64(pk_thrift_read_page_header(miss, sizeof miss, &h, &hl, &err), PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "compressed_page_size") != NULL, "%s", err.message);
    /* A data page header missing its encodings. */
    static const uint8_t dmiss[] = {0x15, 0x00, 0x15, 0x02, 0x15, 0x02, 0x2C, 0x15, 0x02, 0x00, 0x00};
    CHECK_EQ_I64(pk_thrift_read_page_header(dmiss, sizeof dmiss, &h, &hl, &err),
                 PLANK_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "DataPageHeader") != NULL, "%s", err.message);
    /* An i32 value out of range (2^31). */
    static const uint8_t big[] = {0x15, 0x00, 0x15, 0x80, 0x80, 0x80, 0x80, 0x10, 0x15, 0x02, 0x00};
    CHECK_EQ_I64(pk_thrift_read_page_header(big, sizeof big, &h, &hl, &err), PLANK_ERR_CORRUPT);

    /* Unknown fields of every type in a page header are skipped. */
    tw w;
    memset(&w, 0, sizeof w);
    f_i32(&w, 1, 0);
    f_i32(&w, 2, 7);
    f_i32(&w, 3, 7);
    w_unknown_fields(&w, 20);
    f_struct(&w, 6); /* index_page_header: skipped */
    f_i32(&w, 1, 5);
    w_end(&w);
    w_end(&w);
    plank_error_init(&err);
    CHECK_MSG(pk_thrift_read_page_header(w.b, w.n, &h, &hl, &err) == PLANK_OK, "%s",
              err.message);
    CHECK_EQ_I64(hl, w.n);
    CHECK_EQ_I64(h.compressed_page_size, 7);
}

/* ---- Real files ---------------------------------------------------------------------- */

typedef struct file_footer {
    uint8_t *file;
    size_t size;
    const uint8_t *footer;
    uint32_t footer_len;
} file_footer;

/* 0: ok, 1: not a plaintext-footer file, -1: unreadable. */
static int load_footer(const char *path, file_footer *ff) {
    memset(ff, 0, sizeof *ff);
    ff->file = th_read_file(path, &ff->size);
    if (!ff->file) return -1;
    if (ff->size < 12 || memcmp(ff->file + ff->size - 4, "PAR1", 4) != 0) return 1;
    uint32_t n = (uint32_t)ff->file[ff->size - 8] | (uint32_t)ff->file[ff->size - 7] << 8 |
                 (uint32_t)ff->file[ff->size - 6] << 16 | (uint32_t)ff->file[ff->size - 5] << 24;
    if (n > ff->size - 8) return 1;
    ff->footer = ff->file + ff->size - 8 - n;
    ff->footer_len = n;
    return 0;
}

static plank_status parse_file(const char *rel, file_footer *ff, pk_file_metadata *md,
                               plank_error *err) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", th_testing_dir(), rel);
    int r = load_footer(path, ff);
    CHECK_MSG(r == 0, "cannot load %s", rel);
    if (r != 0) return PLANK_ERR_IO;
    plank_error_init(err);
    plank_status st = pk_thrift_read_file_metadata(ff->footer, ff->footer_len, NULL, md, err);
    CHECK_MSG(st == PLANK_OK, "%s: %s", rel, err->message);
    return st;
}

static int leaf_count(const pk_file_metadata *md) {
    int n = 0;
    for (int i = 0; i < md->num_schema; i++) n += md->schema[i].num_children < 0;
    return n;
}

/* Walks the page headers of a chunk from its first page until both its
 * total_compressed_size and its num_values are covered (the latter for files
 * whose sizes are wrong, as hyparquet's walk does); returns pages or -1. */
static int64_t walk_chunk(const file_footer *ff, const plank_column_chunk_info *cc,
                          int64_t *crc_pages) {
    int64_t start = cc->data_page_offset;
    if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
        start = cc->dictionary_page_offset;
    int64_t end = start + cc->total_compressed_size;
    int64_t limit = (int64_t)ff->size - 8;
    if (start < 0 || start > limit) return -1;
    int64_t pages = 0, values = 0;
    int64_t pos = start;
    while (pos < end || values < cc->num_values) {
        pk_page_header h;
        size_t hl;
        plank_error err;
        plank_error_init(&err);
        if (pos >= limit ||
            pk_thrift_read_page_header(ff->file + pos, (size_t)(limit - pos), &h, &hl, &err) !=
                PLANK_OK) {
            fprintf(stderr, "page header at %lld: %s\n", (long long)pos, err.message);
            return -1;
        }
        pos += (int64_t)hl + h.compressed_page_size;
        pages++;
        if (h.type == PLANK_PAGE_DATA || h.type == PLANK_PAGE_DATA_V2) values += h.num_values;
        *crc_pages += h.has_crc;
    }
    return pages;
}

static void test_known_files(void) {
    file_footer ff;
    pk_file_metadata md;
    plank_error err;

    if (parse_file("data/alltypes_plain.parquet", &ff, &md, &err) == PLANK_OK) {
        CHECK_EQ_I64(md.num_rows, 8);
        CHECK_EQ_I64(leaf_count(&md), 11);
        CHECK_EQ_I64(md.num_row_groups, 1);
        CHECK_EQ_I64(md.row_groups[0].num_columns, 11);
        CHECK(md.created_by && strncmp(md.created_by, "impala version 1.3.0-INTERNAL", 29) == 0);
        CHECK(strcmp(md.schema[1].name, "id") == 0);
        CHECK_EQ_I64(md.schema[1].type, PLANK_INT32);
        /* Every page header of this uncompressed file: CATALOG says 21. */
        int64_t pages = 0, crc = 0;
        for (int c = 0; c < md.row_groups[0].num_columns; c++) {
            const plank_column_chunk_info *cc = &md.row_groups[0].columns[c];
            CHECK_EQ_I64(cc->codec, PLANK_CODEC_UNCOMPRESSED);
            int64_t p = walk_chunk(&ff, cc, &crc);
            CHECK(p > 0);
            pages += p;
        }
        CHECK_EQ_I64(pages, 21);
        CHECK_EQ_I64(crc, 0);
        /* Truncations of a real footer: errors, no crash, no leak. */
        th_alloc c;
        plank_allocator a = th_alloc_init(&c);
        int bad = 0;
        for (uint32_t n = 0; n < ff.footer_len; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, ff.footer, n);
            pk_file_metadata t;
            if (pk_thrift_read_file_metadata(copy, n, &a, &t, NULL) != PLANK_ERR_CORRUPT) bad++;
            free(copy);
        }
        CHECK_EQ_I64(bad, 0);
        CHECK_EQ_I64(c.live_bytes, 0);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/alltypes_tiny_pages.parquet", &ff, &md, &err) == PLANK_OK) {
        CHECK_EQ_I64(md.num_rows, 7300);
        CHECK(md.row_groups[0].columns[0].offset_index_offset > 0);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/datapage_v2.snappy.parquet", &ff, &md, &err) == PLANK_OK) {
        CHECK_EQ_I64(md.num_rows, 5);
        const plank_column_chunk_info *cc = &md.row_groups[0].columns[0];
        pk_page_header h;
        size_t hl;
        /* The first column's pages: a dictionary page then a v2 data page. */
        int64_t pos = cc->dictionary_page_offset > 0 ? cc->dictionary_page_offset
                                                     : cc->data_page_offset;
        bool saw_v2 = false;
        int64_t end = pos + cc->total_compressed_size;
        while (pos < end && pk_thrift_read_page_header(ff.file + pos, ff.size - (size_t)pos, &h,
                                                        &hl, &err) == PLANK_OK) {
            if (h.type == PLANK_PAGE_DATA_V2) {
                saw_v2 = h.has_data_header_v2 && h.num_rows == 5;
            }
            pos += (int64_t)hl + h.compressed_page_size;
        }
        CHECK(saw_v2);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/overflow_i16_page_cnt.parquet", &ff, &md, &err) == PLANK_OK) {
        CHECK_EQ_I64(md.num_rows, 40000);
        int64_t crc = 0;
        CHECK_EQ_I64(walk_chunk(&ff, &md.row_groups[0].columns[0], &crc), 40000);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/data_index_bloom_encoding_stats.parquet", &ff, &md, &err) == PLANK_OK) {
        const plank_column_chunk_info *cc = &md.row_groups[0].columns[0];
        CHECK(cc->bloom_filter_offset > 0 && cc->bloom_filter_offset < (int64_t)ff.size);
        CHECK(cc->num_encoding_stats > 0);
        CHECK(cc->has_statistics && cc->statistics.has_null_count);
        CHECK_EQ_I64(md.num_rows, 14);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/int32_decimal.parquet", &ff, &md, &err) == PLANK_OK) {
        /* CATALOG: converted:DECIMAL only (no LogicalType field). */
        CHECK_EQ_I64(md.schema[1].converted_type, PLANK_CONVERTED_DECIMAL);
        CHECK(!md.schema[1].has_logical_type);
        CHECK_EQ_I64(md.schema[1].precision, 4);
        CHECK_EQ_I64(md.schema[1].scale, 2);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/unknown-logical-type.parquet", &ff, &md, &err) == PLANK_OK) {
        int unrecognized = 0, strings = 0;
        for (int i = 0; i < md.num_schema; i++) {
            unrecognized += md.schema[i].logical.kind == PLANK_LOGICAL_UNRECOGNIZED;
            strings += md.schema[i].logical.kind == PLANK_LOGICAL_STRING;
        }
        CHECK_EQ_I64(unrecognized, 1);
        CHECK_EQ_I64(strings, 1);
        CHECK_EQ_I64(md.num_rows, 3);
        pk_file_metadata_free(&md);
    }
    free(ff.file);

    if (parse_file("data/encrypt_columns_plaintext_footer.parquet.encrypted", &ff, &md, &err) ==
        PLANK_OK) {
        CHECK(md.has_encryption_algorithm);
        int encrypted = 0;
        for (int c = 0; c < md.row_groups[0].num_columns; c++)
            encrypted += md.row_groups[0].columns[c].encrypted;
        CHECK(encrypted > 0);
        CHECK_EQ_I64(md.num_rows, 50);
        pk_file_metadata_free(&md);
    }
    free(ff.file);
}

/* ---- Every file in CATALOG.tsv ---------------------------------------------------------- */

/* The catalog's notation for a logical type (hyparquet's). */
static void catalog_logical(const pk_schema_element *se, char *buf, size_t size) {
    static const char *const units[] = {"MILLIS", "MICROS", "NANOS"};
    static const char *const algos[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"};
    const plank_logical_type *lt = &se->logical;
    char crs[32];
    snprintf(crs, sizeof crs, "%.30s", lt->crs ? lt->crs : "default");
    switch (lt->kind) {
    case PLANK_LOGICAL_UNKNOWN: snprintf(buf, size, "NULL"); break;
    case PLANK_LOGICAL_UNRECOGNIZED: snprintf(buf, size, "UNKNOWN_LOGICAL("); break;
    case PLANK_LOGICAL_DECIMAL: snprintf(buf, size, "DECIMAL(%d,%d)", lt->precision, lt->scale); break;
    case PLANK_LOGICAL_TIME:
    case PLANK_LOGICAL_TIMESTAMP:
        snprintf(buf, size, "%s(%s,utc=%s)", lt->kind == PLANK_LOGICAL_TIME ? "TIME" : "TIMESTAMP",
                 units[lt->unit], lt->is_adjusted_to_utc ? "true" : "false");
        break;
    case PLANK_LOGICAL_INTEGER:
        snprintf(buf, size, "INTEGER(%d,%s)", lt->bit_width, lt->is_signed ? "signed" : "unsigned");
        break;
    case PLANK_LOGICAL_VARIANT: snprintf(buf, size, "VARIANT(v%d)", lt->variant_version); break;
    case PLANK_LOGICAL_GEOMETRY: snprintf(buf, size, "GEOMETRY(crs=%s)", crs); break;
    case PLANK_LOGICAL_GEOGRAPHY:
        if (lt->edge_algorithm >= 0 && lt->edge_algorithm < 5)
            snprintf(buf, size, "GEOGRAPHY(crs=%s,%s)", crs, algos[lt->edge_algorithm]);
        else
            snprintf(buf, size, "GEOGRAPHY(crs=%s)", crs);
        break;
    default: snprintf(buf, size, "%s", plank_logical_kind_name(lt->kind)); break;
    }
}

/* Whether token occurs in the comma-separated list as a whole item (items
 * may contain commas themselves, so match on boundaries). */
static bool list_has(const char *list, const char *token, bool prefix) {
    size_t n = strlen(token);
    for (const char *p = strstr(list, token); p; p = strstr(p + 1, token)) {
        bool start_ok = p == list || p[-1] == ',';
        bool end_ok = prefix || p[n] == '\0' || p[n] == ',';
        if (start_ok && end_ok) return true;
    }
    return false;
}

static void split_tabs(char *line, char **cols, int max) {
    int n = 0;
    cols[n++] = line;
    for (char *p = line; *p && n < max; p++) {
        if (*p == '\t') {
            *p = '\0';
            cols[n++] = p + 1;
        } else if (*p == '\n' || *p == '\r') {
            *p = '\0';
            break;
        }
    }
    while (n < max) cols[n++] = "";
}

static void test_catalog(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/CATALOG.tsv", th_testing_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        TEST_SKIP_PART("the catalog sweep: no %s", path);
        return;
    }
    static char line[65536];
    int files = 0, parsed = 0, rows_checked = 0, pages_checked = 0, logical_checked = 0;
    bool header = true;
    while (fgets(line, sizeof line, f)) {
        if (header) {
            header = false;
            continue;
        }
        char *col[22];
        split_tabs(line, col, 22);
        const char *rel = col[0], *rows = col[7], *logical = col[11], *pages = col[13],
                   *crc_pages = col[14], *bloom = col[17], *chunks = col[18], *groups = col[19],
                   *created = col[20];
        file_footer ff;
        snprintf(path, sizeof path, "%s/%s", th_testing_dir(), rel);
        int r = load_footer(path, &ff);
        files++;
        if (r != 0) {
            CHECK_MSG(r == 1, "cannot read %s", rel);
            free(ff.file);
            continue;
        }
        pk_file_metadata md;
        plank_error err;
        plank_error_init(&err);
        plank_status st = pk_thrift_read_file_metadata(ff.footer, ff.footer_len, NULL, &md, &err);
        /* Files whose footer hyparquet decoded (chunks known) must parse. */
        if (*chunks) CHECK_MSG(st == PLANK_OK, "%s: %s", rel, err.message);
        if (st != PLANK_OK) {
            CHECK_MSG(st == PLANK_ERR_CORRUPT && err.message[0], "%s", rel);
            free(ff.file);
            continue;
        }
        parsed++;
        /* DuckDB counts the rows of the row groups (FileMetaData.num_rows is
         * 0 in one old parquet-rs file); num_rows itself is checked in
         * test_known_files. */
        int64_t rg_rows = 0;
        for (int g = 0; g < md.num_row_groups; g++) rg_rows += md.row_groups[g].info.num_rows;
        if (*rows && rows[0] != '(') {
            CHECK_MSG(rg_rows == strtoll(rows, NULL, 10), "%s: rows %lld vs %s", rel,
                      (long long)rg_rows, rows);
            rows_checked++;
        }
        if (*groups) CHECK_MSG(md.num_row_groups == atoi(groups), "%s: row groups", rel);
        if (*created)
            /* The catalog keeps the first 70 characters. */
            CHECK_MSG(md.created_by && strncmp(md.created_by, created, strlen(created)) == 0,
                      "%s: created_by %s",
                      rel, md.created_by ? md.created_by : "(null)");
        /* Deliberately malformed files: the footer is compared, the page
         * walk (whose recovery differs between readers) is not. */
        if (strncmp(rel, "bad_data/", 9) == 0) pages = "";
        int64_t nchunks = 0, nbloom = 0, npages = 0, ncrc = 0;
        bool walk_ok = true;
        for (int g = 0; g < md.num_row_groups; g++) {
            for (int c = 0; c < md.row_groups[g].num_columns; c++) {
                const plank_column_chunk_info *cc = &md.row_groups[g].columns[c];
                nchunks++;
                nbloom += cc->bloom_filter_offset >= 0;
                if (*pages && walk_ok) {
                    int64_t p = walk_chunk(&ff, cc, &ncrc);
                    if (p < 0) walk_ok = false;
                    npages += p;
                }
            }
        }
        if (*chunks) CHECK_MSG(nchunks == atoll(chunks), "%s: chunks %lld", rel, (long long)nchunks);
        if (*bloom) CHECK_MSG(nbloom == atoll(bloom), "%s: bloom %lld", rel, (long long)nbloom);
        if (*pages) {
            CHECK_MSG(walk_ok && npages == atoll(pages), "%s: pages %lld vs %s", rel,
                      (long long)npages, pages);
            CHECK_MSG(ncrc == atoll(crc_pages), "%s: crc pages %lld", rel, (long long)ncrc);
            pages_checked++;
        }
        for (int i = 0; i < md.num_schema; i++) {
            const pk_schema_element *se = &md.schema[i];
            char want[128];
            if (se->has_logical_type && se->logical.kind != PLANK_LOGICAL_NONE) {
                catalog_logical(se, want, sizeof want);
                CHECK_MSG(list_has(logical, want, se->logical.kind == PLANK_LOGICAL_UNRECOGNIZED),
                          "%s: %s not in %s", rel, want, logical);
                logical_checked++;
            } else if (!se->has_logical_type && se->converted_type >= 0) {
                snprintf(want, sizeof want, "converted:%s",
                         plank_converted_type_name((plank_converted_type)se->converted_type));
                CHECK_MSG(list_has(logical, want, false), "%s: %s not in %s", rel, want, logical);
                logical_checked++;
            }
        }
        pk_file_metadata_free(&md);
        free(ff.file);
    }
    fclose(f);
    fprintf(stderr, "catalog: %d files, %d footers parsed, %d row counts, %d page walks, "
                    "%d logical types checked\n",
            files, parsed, rows_checked, pages_checked, logical_checked);
    CHECK(parsed > 200);
    CHECK(pages_checked > 100);
}

int main(void) {
    test_page_headers();
    test_synthetic_footer();
    test_footer_errors();
    if (!th_testing_dir()) {
        TEST_SKIP_PART("real-file tests: parquet-testing not found (set PLANK_TESTING_DIR)");
        TEST_END();
    }
    test_known_files();
    test_catalog();
    TEST_END();
}
