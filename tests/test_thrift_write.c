/*
 * test_thrift_write.c: the compact-protocol writer and the page index /
 * bloom filter header decoders. The main check is decode -> encode -> decode
 * identity over every footer and page header of the parquet-testing corpus
 * (and every page index and bloom filter header in it), with a deep
 * comparison of the decoded structs; hand-computed byte sequences pin the
 * wire format; truncated and inconsistent inputs must fail cleanly.
 */
#define _POSIX_C_SOURCE 200809L
#include "tharness.h"

#include <dirent.h>
#include <sys/stat.h>

#include "thrift/pk_compact.h"
#include "thrift/pk_thrift.h"

static const char *g_ctx = ""; /* the file or case being checked, for messages */

#define SAME(cond, ...)                                   \
    do {                                                  \
        th_checks++;                                      \
        if (!(cond)) {                                    \
            th_failures++;                                \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, g_ctx); \
            fprintf(stderr, __VA_ARGS__);                 \
            fputc('\n', stderr);                          \
        }                                                 \
    } while (0)

/* ---- Deep comparison of decoded structs ----------------------------------------- */

static bool same_bytes(const void *a, size_t alen, const void *b, size_t blen) {
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static bool same_str(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static bool same_i64s(const int64_t *a, const int64_t *b, int32_t n) {
    if (!a || !b) return a == b || n == 0;
    return n == 0 || memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

static void cmp_key_values(const char *what, const plank_key_value *a, int32_t na,
                           const plank_key_value *b, int32_t nb) {
    SAME(na == nb, "%s: %d != %d key values", what, (int)na, (int)nb);
    for (int32_t i = 0; i < na && i < nb; i++) {
        SAME(same_str(a[i].key, b[i].key), "%s[%d].key", what, (int)i);
        SAME(same_str(a[i].value, b[i].value), "%s[%d].value", what, (int)i);
    }
}

static void cmp_logical(int32_t e, const plank_logical_type *a, const plank_logical_type *b) {
    SAME(a->kind == b->kind, "schema[%d] logical kind %d != %d", (int)e, a->kind, b->kind);
    SAME(a->precision == b->precision && a->scale == b->scale, "schema[%d] decimal", (int)e);
    SAME(a->unit == b->unit && a->is_adjusted_to_utc == b->is_adjusted_to_utc,
         "schema[%d] time", (int)e);
    SAME(a->bit_width == b->bit_width && a->is_signed == b->is_signed, "schema[%d] int",
         (int)e);
    SAME(same_str(a->crs, b->crs) && a->edge_algorithm == b->edge_algorithm,
         "schema[%d] geo", (int)e);
    SAME(a->variant_version == b->variant_version, "schema[%d] variant", (int)e);
}

static void cmp_schema(const pk_schema_element *a, const pk_schema_element *b, int32_t e) {
    SAME(same_str(a->name, b->name), "schema[%d].name", (int)e);
    SAME(a->type == b->type, "schema[%d].type", (int)e);
    SAME(a->type_length == b->type_length, "schema[%d].type_length", (int)e);
    SAME(a->repetition == b->repetition, "schema[%d].repetition", (int)e);
    SAME(a->num_children == b->num_children, "schema[%d].num_children", (int)e);
    SAME(a->converted_type == b->converted_type, "schema[%d].converted_type", (int)e);
    SAME(a->scale == b->scale && a->precision == b->precision, "schema[%d] scale/precision",
         (int)e);
    SAME(a->has_field_id == b->has_field_id && a->field_id == b->field_id,
         "schema[%d].field_id", (int)e);
    SAME(a->has_logical_type == b->has_logical_type, "schema[%d].has_logical_type", (int)e);
    cmp_logical(e, &a->logical, &b->logical);
}

static void cmp_statistics(const char *c, const plank_statistics *a, const plank_statistics *b) {
    SAME(a->has_min == b->has_min && a->has_max == b->has_max, "%s: has min/max", c);
    if (a->has_min && b->has_min)
        SAME(same_bytes(a->min, a->min_len, b->min, b->min_len), "%s: min", c);
    if (a->has_max && b->has_max)
        SAME(same_bytes(a->max, a->max_len, b->max, b->max_len), "%s: max", c);
    SAME(a->min_max_deprecated == b->min_max_deprecated, "%s: deprecated", c);
    SAME(a->has_null_count == b->has_null_count && a->null_count == b->null_count,
         "%s: null_count", c);
    SAME(a->has_distinct_count == b->has_distinct_count &&
             a->distinct_count == b->distinct_count,
         "%s: distinct_count", c);
    SAME(a->has_nan_count == b->has_nan_count && a->nan_count == b->nan_count, "%s: nan_count",
         c);
    SAME(a->has_is_min_exact == b->has_is_min_exact && a->is_min_exact == b->is_min_exact,
         "%s: is_min_exact", c);
    SAME(a->has_is_max_exact == b->has_is_max_exact && a->is_max_exact == b->is_max_exact,
         "%s: is_max_exact", c);
}

static void cmp_chunk(int32_t g, int32_t i, const plank_column_chunk_info *a,
                      const plank_column_chunk_info *b) {
    char c[64];
    snprintf(c, sizeof c, "row group %d column %d", (int)g, (int)i);
    SAME(a->column == b->column, "%s: column", c);
    SAME(same_str(a->path, b->path), "%s: path", c);
    SAME(same_str(a->file_path, b->file_path), "%s: file_path", c);
    SAME(a->physical_type == b->physical_type, "%s: physical_type", c);
    SAME(a->codec == b->codec, "%s: codec", c);
    SAME(a->num_values == b->num_values, "%s: num_values", c);
    SAME(a->total_uncompressed_size == b->total_uncompressed_size, "%s: uncompressed", c);
    SAME(a->total_compressed_size == b->total_compressed_size, "%s: compressed", c);
    SAME(a->data_page_offset == b->data_page_offset, "%s: data_page_offset", c);
    SAME(a->index_page_offset == b->index_page_offset, "%s: index_page_offset", c);
    SAME(a->dictionary_page_offset == b->dictionary_page_offset, "%s: dict offset", c);
    SAME(a->num_encodings == b->num_encodings &&
             (a->num_encodings == 0 ||
              memcmp(a->encodings, b->encodings, sizeof *a->encodings * (size_t)a->num_encodings) ==
                  0),
         "%s: encodings", c);
    SAME(a->has_statistics == b->has_statistics, "%s: has_statistics", c);
    cmp_statistics(c, &a->statistics, &b->statistics);
    SAME(a->num_encoding_stats == b->num_encoding_stats, "%s: num_encoding_stats", c);
    for (int32_t k = 0; k < a->num_encoding_stats && k < b->num_encoding_stats; k++)
        SAME(a->encoding_stats[k].page_type == b->encoding_stats[k].page_type &&
                 a->encoding_stats[k].encoding == b->encoding_stats[k].encoding &&
                 a->encoding_stats[k].count == b->encoding_stats[k].count,
             "%s: encoding_stats[%d]", c, (int)k);
    SAME(a->bloom_filter_offset == b->bloom_filter_offset &&
             a->bloom_filter_length == b->bloom_filter_length,
         "%s: bloom filter", c);
    SAME(a->column_index_offset == b->column_index_offset &&
             a->column_index_length == b->column_index_length,
         "%s: column index", c);
    SAME(a->offset_index_offset == b->offset_index_offset &&
             a->offset_index_length == b->offset_index_length,
         "%s: offset index", c);
    SAME(a->unencoded_byte_array_data_bytes == b->unencoded_byte_array_data_bytes,
         "%s: unencoded bytes", c);
    SAME(a->num_repetition_level_histogram == b->num_repetition_level_histogram &&
             same_i64s(a->repetition_level_histogram, b->repetition_level_histogram,
                       a->num_repetition_level_histogram),
         "%s: repetition histogram", c);
    SAME(a->num_definition_level_histogram == b->num_definition_level_histogram &&
             same_i64s(a->definition_level_histogram, b->definition_level_histogram,
                       a->num_definition_level_histogram),
         "%s: definition histogram", c);
    cmp_key_values(c, a->key_values, a->num_key_values, b->key_values, b->num_key_values);
    SAME(a->encrypted == b->encrypted, "%s: encrypted", c);
}

static void cmp_row_group(int32_t g, const pk_row_group *a, const pk_row_group *b) {
    const plank_row_group_info *x = &a->info, *y = &b->info;
    SAME(x->num_rows == y->num_rows, "row group %d: num_rows", (int)g);
    SAME(x->total_byte_size == y->total_byte_size, "row group %d: total_byte_size", (int)g);
    SAME(x->total_compressed_size == y->total_compressed_size, "row group %d: compressed",
         (int)g);
    SAME(x->file_offset == y->file_offset, "row group %d: file_offset", (int)g);
    SAME(x->ordinal == y->ordinal, "row group %d: ordinal", (int)g);
    SAME(x->num_sorting_columns == y->num_sorting_columns, "row group %d: sorting", (int)g);
    for (int32_t k = 0; k < x->num_sorting_columns && k < y->num_sorting_columns; k++)
        SAME(x->sorting_columns[k].column == y->sorting_columns[k].column &&
                 x->sorting_columns[k].descending == y->sorting_columns[k].descending &&
                 x->sorting_columns[k].nulls_first == y->sorting_columns[k].nulls_first,
             "row group %d: sorting column %d", (int)g, (int)k);
    SAME(a->num_columns == b->num_columns, "row group %d: num_columns", (int)g);
    for (int32_t i = 0; i < a->num_columns && i < b->num_columns; i++)
        cmp_chunk(g, i, &a->columns[i], &b->columns[i]);
}

static void cmp_file_metadata(const pk_file_metadata *a, const pk_file_metadata *b) {
    SAME(a->version == b->version, "version");
    SAME(a->num_rows == b->num_rows, "num_rows");
    SAME(same_str(a->created_by, b->created_by), "created_by");
    SAME(a->has_encryption_algorithm == b->has_encryption_algorithm, "encryption");
    SAME(a->num_schema == b->num_schema, "num_schema %d != %d", (int)a->num_schema,
         (int)b->num_schema);
    for (int32_t e = 0; e < a->num_schema && e < b->num_schema; e++)
        cmp_schema(&a->schema[e], &b->schema[e], e);
    SAME(a->num_row_groups == b->num_row_groups, "num_row_groups");
    for (int32_t g = 0; g < a->num_row_groups && g < b->num_row_groups; g++)
        cmp_row_group(g, &a->row_groups[g], &b->row_groups[g]);
    cmp_key_values("key_value_metadata", a->key_values, a->num_key_values, b->key_values,
                   b->num_key_values);
    SAME(a->num_column_orders == b->num_column_orders &&
             (a->num_column_orders == 0 ||
              memcmp(a->column_orders, b->column_orders,
                     sizeof(int32_t) * (size_t)a->num_column_orders) == 0),
         "column_orders");
}

static void cmp_page_header(const pk_page_header *a, const pk_page_header *b) {
    SAME(a->type == b->type && a->uncompressed_page_size == b->uncompressed_page_size &&
             a->compressed_page_size == b->compressed_page_size,
         "page type/sizes");
    SAME(a->has_crc == b->has_crc && a->crc == b->crc, "page crc");
    SAME(a->has_data_header == b->has_data_header &&
             a->has_data_header_v2 == b->has_data_header_v2 &&
             a->has_dictionary_header == b->has_dictionary_header,
         "page header kinds");
    SAME(a->num_values == b->num_values && a->encoding == b->encoding, "page values/encoding");
    SAME(a->definition_level_encoding == b->definition_level_encoding &&
             a->repetition_level_encoding == b->repetition_level_encoding,
         "page level encodings");
    SAME(a->num_nulls == b->num_nulls && a->num_rows == b->num_rows, "v2 nulls/rows");
    SAME(a->definition_levels_byte_length == b->definition_levels_byte_length &&
             a->repetition_levels_byte_length == b->repetition_levels_byte_length,
         "v2 level lengths");
    SAME(a->is_compressed == b->is_compressed, "v2 is_compressed");
    SAME(a->dict_num_values == b->dict_num_values && a->dict_encoding == b->dict_encoding &&
             a->dict_is_sorted == b->dict_is_sorted,
         "dictionary header");
}

static void cmp_column_index(const plank_column_index *a, const plank_column_index *b) {
    SAME(a->num_pages == b->num_pages, "ColumnIndex num_pages %d != %d", (int)a->num_pages,
         (int)b->num_pages);
    for (int32_t i = 0; i < a->num_pages && i < b->num_pages; i++) {
        SAME(a->null_pages[i] == b->null_pages[i], "null_pages[%d]", (int)i);
        SAME(same_bytes(a->min_values[i], a->min_lens[i], b->min_values[i], b->min_lens[i]),
             "min_values[%d]", (int)i);
        SAME(same_bytes(a->max_values[i], a->max_lens[i], b->max_values[i], b->max_lens[i]),
             "max_values[%d]", (int)i);
    }
    SAME(a->boundary_order == b->boundary_order, "boundary_order");
    SAME((a->null_counts == NULL) == (b->null_counts == NULL) &&
             same_i64s(a->null_counts, b->null_counts, a->num_pages),
         "null_counts");
    SAME(a->num_repetition_level_histograms == b->num_repetition_level_histograms &&
             same_i64s(a->repetition_level_histograms, b->repetition_level_histograms,
                       a->num_repetition_level_histograms),
         "repetition_level_histograms");
    SAME(a->num_definition_level_histograms == b->num_definition_level_histograms &&
             same_i64s(a->definition_level_histograms, b->definition_level_histograms,
                       a->num_definition_level_histograms),
         "definition_level_histograms");
}

static void cmp_offset_index(const plank_offset_index *a, const plank_offset_index *b) {
    SAME(a->num_pages == b->num_pages, "OffsetIndex num_pages");
    for (int32_t i = 0; i < a->num_pages && i < b->num_pages; i++)
        SAME(a->pages[i].offset == b->pages[i].offset &&
                 a->pages[i].compressed_page_size == b->pages[i].compressed_page_size &&
                 a->pages[i].first_row_index == b->pages[i].first_row_index,
             "page_locations[%d]", (int)i);
    SAME((a->unencoded_byte_array_data_bytes == NULL) ==
                 (b->unencoded_byte_array_data_bytes == NULL) &&
             same_i64s(a->unencoded_byte_array_data_bytes, b->unencoded_byte_array_data_bytes,
                       a->num_pages),
         "unencoded_byte_array_data_bytes");
}

/* ---- path_in_schema, read back with the compact reader --------------------------- */

/* Appends every path_in_schema of the footer to out ("a.b|c|"), row group by
 * row group; the decoder skips them, so this checks what the encoder
 * computed from the schema tree against what the original writer wrote. */
static bool skip_to_field(pk_tc *r, int32_t want, int *type) {
    int32_t id = 0;
    for (;;) {
        if (pk_tc_field(r, &id, type) != PLANK_OK || *type == PK_TC_STOP) return false;
        if (id == want) return true;
        if (pk_tc_skip(r, *type) != PLANK_OK) return false;
    }
}

static void put_str(char *out, size_t cap, const char *s, size_t n) {
    size_t len = strlen(out);
    if (len + n + 1 > cap) return;
    memcpy(out + len, s, n);
    out[len + n] = 0;
}

static bool collect_paths(const uint8_t *buf, size_t len, char *out, size_t cap) {
    pk_tc r;
    int type, et, ct;
    uint32_t ngroups, ncols, nnames;
    out[0] = 0;
    pk_tc_init(&r, buf, len, NULL);
    if (!skip_to_field(&r, 4, &type) || pk_tc_list_header(&r, &et, &ngroups) != PLANK_OK)
        return false;
    for (uint32_t g = 0; g < ngroups; g++) {
        if (!skip_to_field(&r, 1, &type) || pk_tc_list_header(&r, &ct, &ncols) != PLANK_OK)
            return false;
        for (uint32_t c = 0; c < ncols; c++) {
            if (!skip_to_field(&r, 3, &type) || !skip_to_field(&r, 3, &type) ||
                pk_tc_list_header(&r, &et, &nnames) != PLANK_OK)
                return false;
            for (uint32_t k = 0; k < nnames; k++) {
                const uint8_t *s;
                uint32_t n;
                if (pk_tc_binary(&r, PK_TC_BINARY, &s, &n) != PLANK_OK) return false;
                put_str(out, cap, (const char *)s, n);
                put_str(out, cap, k + 1 < nnames ? "." : "|", 1);
            }
            /* The rest of ColumnMetaData and of the ColumnChunk. */
            for (int level = 0; level < 2; level++) {
                int32_t id = 0;
                for (;;) {
                    if (pk_tc_field(&r, &id, &type) != PLANK_OK) return false;
                    if (type == PK_TC_STOP) break;
                    if (pk_tc_skip(&r, type) != PLANK_OK) return false;
                }
            }
        }
        /* The rest of the RowGroup. */
        int32_t id = 1;
        for (;;) {
            if (pk_tc_field(&r, &id, &type) != PLANK_OK) return false;
            if (type == PK_TC_STOP) break;
            if (pk_tc_skip(&r, type) != PLANK_OK) return false;
        }
    }
    return true;
}

/* ---- (a) Footers of the corpus ---------------------------------------------------- */

typedef struct corpus_stats {
    int files, footers, skipped, page_headers, v1, v2, dict, column_indexes, offset_indexes;
    int byte_identical_indexes, blooms;
} corpus_stats;

static corpus_stats g_stats;

/* Every prefix of an encoded index must fail, and fail as corruption. */
static void check_prefixes_fail(const uint8_t *enc, size_t n, bool column_index) {
    for (size_t k = 0; k < n; k++) {
        uint8_t *copy = malloc(k ? k : 1); /* exactly k bytes: ASan sees any over-read */
        if (k) memcpy(copy, enc, k);
        pk_arena ar;
        pk_arena_init(&ar, NULL);
        plank_error err;
        memset(&err, 0, sizeof err);
        plank_status st;
        if (column_index) {
            plank_column_index ci;
            st = pk_thrift_read_column_index(copy, k, &ar, &ci, &err);
        } else {
            plank_offset_index oi;
            st = pk_thrift_read_offset_index(copy, k, &ar, &oi, &err);
        }
        SAME(st == PLANK_ERR_CORRUPT, "prefix %zu of %zu bytes: status %d", k, n, (int)st);
        SAME(err.byte_offset >= 0 && err.byte_offset <= (int64_t)k, "prefix %zu: offset %lld",
             k, (long long)err.byte_offset);
        pk_arena_reset(&ar);
        free(copy);
    }
}

static void check_column_index(const uint8_t *file, size_t size, const plank_column_chunk_info *cc,
                               bool prefixes) {
    if (cc->column_index_offset < 0 || cc->column_index_length <= 0) return;
    if ((uint64_t)cc->column_index_offset + (uint64_t)cc->column_index_length > size) return;
    const uint8_t *src = file + cc->column_index_offset;
    size_t len = (size_t)cc->column_index_length;
    pk_arena ar;
    pk_arena_init(&ar, NULL);
    plank_column_index a, b;
    plank_error err;
    plank_status st = pk_thrift_read_column_index(src, len, &ar, &a, &err);
    SAME(st == PLANK_OK, "ColumnIndex of column %d: %s", (int)cc->column,
         st ? err.message : "");
    if (st == PLANK_OK) {
        pk_buffer buf;
        pk_buffer_init(&buf, NULL);
        SAME(pk_thrift_write_column_index(&a, &buf, &err) == PLANK_OK, "write ColumnIndex");
        if (same_bytes(buf.data, buf.size, src, len)) g_stats.byte_identical_indexes++;
        st = pk_thrift_read_column_index(buf.data, buf.size, &ar, &b, &err);
        SAME(st == PLANK_OK, "re-read ColumnIndex: %s", st ? err.message : "");
        if (st == PLANK_OK) cmp_column_index(&a, &b);
        if (prefixes) check_prefixes_fail(buf.data, buf.size, true);
        pk_buffer_reset(&buf);
        g_stats.column_indexes++;
    }
    pk_arena_reset(&ar);
}

static void check_offset_index(const uint8_t *file, size_t size, const plank_column_chunk_info *cc,
                               bool prefixes) {
    if (cc->offset_index_offset < 0 || cc->offset_index_length <= 0) return;
    if ((uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length > size) return;
    const uint8_t *src = file + cc->offset_index_offset;
    size_t len = (size_t)cc->offset_index_length;
    pk_arena ar;
    pk_arena_init(&ar, NULL);
    plank_offset_index a, b;
    plank_error err;
    plank_status st = pk_thrift_read_offset_index(src, len, &ar, &a, &err);
    SAME(st == PLANK_OK, "OffsetIndex of column %d: %s", (int)cc->column,
         st ? err.message : "");
    if (st == PLANK_OK) {
        pk_buffer buf;
        pk_buffer_init(&buf, NULL);
        SAME(pk_thrift_write_offset_index(&a, &buf, &err) == PLANK_OK, "write OffsetIndex");
        if (same_bytes(buf.data, buf.size, src, len)) g_stats.byte_identical_indexes++;
        st = pk_thrift_read_offset_index(buf.data, buf.size, &ar, &b, &err);
        SAME(st == PLANK_OK, "re-read OffsetIndex: %s", st ? err.message : "");
        if (st == PLANK_OK) cmp_offset_index(&a, &b);
        if (prefixes) check_prefixes_fail(buf.data, buf.size, false);
        pk_buffer_reset(&buf);
        g_stats.offset_indexes++;
    }
    pk_arena_reset(&ar);
}

static void check_bloom(const uint8_t *file, size_t size, const plank_column_chunk_info *cc) {
    if (cc->bloom_filter_offset < 0 || (uint64_t)cc->bloom_filter_offset >= size) return;
    size_t avail = size - (size_t)cc->bloom_filter_offset;
    if (cc->bloom_filter_length > 0 && (size_t)cc->bloom_filter_length < avail)
        avail = (size_t)cc->bloom_filter_length;
    uint32_t num_bytes = 0;
    size_t hlen = 0;
    plank_error err;
    plank_status st =
        pk_thrift_read_bloom_header(file + cc->bloom_filter_offset, avail, &num_bytes, &hlen, &err);
    SAME(st == PLANK_OK, "BloomFilterHeader of column %d: %s", (int)cc->column,
         st ? err.message : "");
    if (st != PLANK_OK) return;
    SAME(num_bytes > 0 && hlen + num_bytes <= avail, "bloom filter of %u bytes in %zu",
         num_bytes, avail);
    if (cc->bloom_filter_length > 0)
        SAME(hlen + num_bytes == (size_t)cc->bloom_filter_length, "bloom filter length");
    /* Our own encoding of the same header decodes to the same size. */
    pk_buffer buf;
    pk_buffer_init(&buf, NULL);
    SAME(pk_thrift_write_bloom_header(num_bytes, &buf, &err) == PLANK_OK, "write bloom header");
    uint32_t again = 0;
    size_t hlen2 = 0;
    SAME(pk_thrift_read_bloom_header(buf.data, buf.size, &again, &hlen2, &err) == PLANK_OK &&
             again == num_bytes && hlen2 == buf.size,
         "bloom header round trip");
    pk_buffer_reset(&buf);
    g_stats.blooms++;
}

/* (b) Every page of every chunk: header decode -> encode -> decode, and the
 * encoding is a fixed point (encoding the re-decoded header gives the same
 * bytes). Stops at the first header the decoder rejects (bad_data files). */
static void check_pages(const uint8_t *file, size_t size, const plank_column_chunk_info *cc) {
    int64_t pos = cc->data_page_offset;
    if (cc->dictionary_page_offset >= 0 && cc->dictionary_page_offset < pos)
        pos = cc->dictionary_page_offset;
    int64_t end = pos + cc->total_compressed_size;
    if (pos < 0 || end > (int64_t)size || cc->total_compressed_size < 0) return;
    while (pos < end) {
        pk_page_header a, b;
        size_t hlen, hlen2;
        plank_error err;
        if (pk_thrift_read_page_header(file + pos, (size_t)(end - pos), &a, &hlen, &err) != PLANK_OK)
            return;
        pk_buffer e1, e2;
        pk_buffer_init(&e1, NULL);
        pk_buffer_init(&e2, NULL);
        SAME(pk_thrift_write_page_header(&a, &e1, &err) == PLANK_OK, "write page header");
        plank_status st = pk_thrift_read_page_header(e1.data, e1.size, &b, &hlen2, &err);
        SAME(st == PLANK_OK && hlen2 == e1.size, "re-read page header at %lld: %s",
             (long long)pos, st ? err.message : "");
        if (st == PLANK_OK) {
            cmp_page_header(&a, &b);
            SAME(pk_thrift_write_page_header(&b, &e2, &err) == PLANK_OK &&
                     same_bytes(e1.data, e1.size, e2.data, e2.size),
                 "page header encoding not a fixed point");
        }
        pk_buffer_reset(&e1);
        pk_buffer_reset(&e2);
        g_stats.page_headers++;
        g_stats.v1 += a.has_data_header;
        g_stats.v2 += a.has_data_header_v2;
        g_stats.dict += a.has_dictionary_header;
        if (a.compressed_page_size < 0) return;
        pos += (int64_t)hlen + a.compressed_page_size;
    }
}

static void check_file(const char *path) {
    size_t size = 0;
    uint8_t *file = th_read_file(path, &size);
    g_ctx = path;
    g_stats.files++;
    if (!file || size < 12 || memcmp(file + size - 4, "PAR1", 4) != 0) {
        g_stats.skipped++; /* encrypted footer ("PARE") or not a Parquet file */
        free(file);
        return;
    }
    uint32_t flen = pk_load_u32(file + size - 8);
    if (flen > size - 12) {
        g_stats.skipped++;
        free(file);
        return;
    }
    const uint8_t *footer = file + size - 8 - flen;
    pk_file_metadata a, b;
    plank_error err;
    if (pk_thrift_read_file_metadata(footer, flen, NULL, &a, &err) != PLANK_OK) {
        g_stats.skipped++;
        free(file);
        return;
    }
    bool encrypted = a.has_encryption_algorithm;
    for (int32_t g = 0; g < a.num_row_groups; g++)
        for (int32_t i = 0; i < a.row_groups[g].num_columns; i++)
            encrypted |= a.row_groups[g].columns[i].encrypted;
    pk_buffer enc;
    pk_buffer_init(&enc, NULL);
    plank_status st = pk_thrift_write_file_metadata(&a, &enc, &err);
    if (encrypted) {
        SAME(st == PLANK_ERR_INVALID_ARGUMENT && enc.size == 0, "encrypted footer written");
        g_stats.skipped++;
    } else if (st != PLANK_OK) {
        /* Only footers the writer cannot state faithfully may be refused. */
        SAME(st == PLANK_ERR_INVALID_ARGUMENT && enc.size == 0, "write failed: %s",
             err.message);
        fprintf(stderr, "  note: %s not re-encodable: %s\n", path, err.message);
        g_stats.skipped++;
    } else {
        st = pk_thrift_read_file_metadata(enc.data, enc.size, NULL, &b, &err);
        SAME(st == PLANK_OK, "re-read footer: %s", st ? err.message : "");
        if (st == PLANK_OK) {
            cmp_file_metadata(&a, &b);
            pk_file_metadata_free(&b);
        }
        static char p1[1 << 16], p2[1 << 16];
        bool ok1 = collect_paths(footer, flen, p1, sizeof p1);
        bool ok2 = collect_paths(enc.data, enc.size, p2, sizeof p2);
        size_t at = 0;
        while (p1[at] && p1[at] == p2[at]) at++;
        while (at > 0 && p1[at - 1] != '|') at--;
        /* bad_data files may carry a damaged path_in_schema; ours follows the schema. */
        SAME(ok1 && ok2 && (strcmp(p1, p2) == 0 || strstr(path, "/bad_data/")),
             "path_in_schema differs from byte %zu:\n  %.200s\n  %.200s", at, p1 + at, p2 + at);
        g_stats.footers++;
        for (int32_t g = 0; g < a.num_row_groups; g++) {
            for (int32_t i = 0; i < a.row_groups[g].num_columns; i++) {
                const plank_column_chunk_info *cc = &a.row_groups[g].columns[i];
                check_pages(file, size, cc);
                /* Prefix sweeps on the first chunk only: quadratic in the size. */
                bool first = g == 0 && i == 0;
                check_column_index(file, size, cc, first);
                check_offset_index(file, size, cc, first);
                check_bloom(file, size, cc);
            }
        }
    }
    pk_buffer_reset(&enc);
    pk_file_metadata_free(&a);
    free(file);
    g_ctx = "";
}

static void walk(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d || depth > 8) {
        if (d) closedir(d);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        size_t n = strlen(e->d_name);
        if (S_ISDIR(st.st_mode))
            walk(path, depth + 1);
        else if (n > 8 && strcmp(e->d_name + n - 8, ".parquet") == 0)
            check_file(path);
    }
    closedir(d);
}

/* The files named in the brief must be among those that exercised each part. */
static void check_named_files(const char *root) {
    static const char *const with_index[] = {"alltypes_tiny_pages.parquet",
                                             "alltypes_tiny_pages_plain.parquet"};
    for (size_t f = 0; f < sizeof with_index / sizeof with_index[0]; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/data/%s", root, with_index[f]);
        int before = g_stats.column_indexes + g_stats.offset_indexes;
        check_file(path);
        CHECK_MSG(g_stats.column_indexes + g_stats.offset_indexes > before,
                  "%s: no page index checked", with_index[f]);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/data/data_index_bloom_encoding_stats.parquet", root);
    int before = g_stats.blooms;
    check_file(path);
    CHECK_MSG(g_stats.blooms > before, "no bloom filter header in %s", path);
}

/* ---- Wire format of the primitives --------------------------------------------------- */

static void test_primitives(void) {
    g_ctx = "primitives";
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    pk_tw w;
    pk_tw_init(&w, &b, NULL);
    pk_tw_struct_begin(&w);
    pk_tw_i32(&w, 1, -1);        /* 15 01: delta 1, zigzag(-1) = 1 */
    pk_tw_i64(&w, 17, 300);      /* delta 16: long form 06 22, zigzag(300) = 600 = d8 04 */
    pk_tw_bool(&w, 3, true);     /* id goes down: long form 01 06 */
    pk_tw_bool(&w, 4, false);    /* 12 */
    pk_tw_i8(&w, 5, -2);         /* 13 fe */
    pk_tw_i16(&w, 6, 64);        /* 14 80 01 */
    pk_tw_str(&w, 7, "ab");      /* 18 02 61 62 */
    pk_tw_list(&w, 8, PK_TC_I32, 15); /* 19 f5 0f, then 15 varints */
    for (int i = 0; i < 15; i++) pk_tw_zigzag(&w, i);
    pk_tw_list(&w, 9, PK_TC_TRUE, 2); /* 19 21 01 02 */
    pk_tw_elem_bool(&w, true);
    pk_tw_elem_bool(&w, false);
    pk_tw_field_struct(&w, 10);  /* 1c, inner: 1c 00 00 */
    pk_tw_field_marker(&w, 1);
    pk_tw_struct_end(&w);
    pk_tw_i32(&w, -3, 0);        /* negative id: 05 05 00 */
    pk_tw_struct_end(&w);        /* 00 */
    CHECK(pk_tw_finish(&w) == PLANK_OK);
    static const uint8_t want_head[] = {0x15, 0x01, 0x06, 0x22, 0xd8, 0x04, 0x01, 0x06, 0x12,
                                        0x13, 0xfe, 0x14, 0x80, 0x01, 0x18, 0x02, 0x61, 0x62,
                                        0x19, 0xf5, 0x0f};
    CHECK(b.size > sizeof want_head && memcmp(b.data, want_head, sizeof want_head) == 0);
    static const uint8_t want_tail[] = {0x19, 0x21, 0x01, 0x02, 0x1c, 0x1c, 0x00, 0x00,
                                        0x05, 0x05, 0x00, 0x00};
    CHECK_EQ_I64(b.size, sizeof want_head + 15 + sizeof want_tail);
    CHECK(memcmp(b.data + sizeof want_head + 15, want_tail, sizeof want_tail) == 0);

    /* The reader agrees on every field. */
    pk_tc r;
    pk_tc_init(&r, b.data, b.size, NULL);
    int32_t id = 0;
    int type, et;
    int64_t v;
    bool bv;
    uint32_t n;
    const uint8_t *s;
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 1);
    CHECK(pk_tc_int(&r, type, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == -1);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 17);
    CHECK(pk_tc_int(&r, type, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == 300);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 3 && type == PK_TC_TRUE);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 4 && type == PK_TC_FALSE);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 5);
    CHECK(pk_tc_int(&r, type, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == -2);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 6);
    CHECK(pk_tc_int(&r, type, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == 64);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 7);
    CHECK(pk_tc_binary(&r, type, &s, &n) == PLANK_OK && n == 2 && memcmp(s, "ab", 2) == 0);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 8);
    CHECK(pk_tc_list_header(&r, &et, &n) == PLANK_OK && n == 15 && et == PK_TC_I32);
    for (int i = 0; i < 15; i++)
        CHECK(pk_tc_int(&r, et, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == i);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 9);
    CHECK(pk_tc_list_header(&r, &et, &n) == PLANK_OK && n == 2);
    CHECK(pk_tc_elem_bool(&r, et, &bv) == PLANK_OK && bv);
    CHECK(pk_tc_elem_bool(&r, et, &bv) == PLANK_OK && !bv);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == 10);
    CHECK(pk_tc_skip(&r, type) == PLANK_OK);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && id == -3);
    CHECK(pk_tc_int(&r, type, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == 0);
    CHECK(pk_tc_field(&r, &id, &type) == PLANK_OK && type == PK_TC_STOP);
    CHECK(r.pos == b.size);

    /* Extremes of the zigzag varint. */
    b.size = 0;
    pk_tw_init(&w, &b, NULL);
    pk_tw_zigzag(&w, INT64_MIN);
    pk_tw_zigzag(&w, INT64_MAX);
    pk_tc_init(&r, b.data, b.size, NULL);
    CHECK(pk_tc_int(&r, PK_TC_I64, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == INT64_MIN);
    CHECK(pk_tc_int(&r, PK_TC_I64, INT64_MIN, INT64_MAX, &v) == PLANK_OK && v == INT64_MAX);
    CHECK(r.pos == b.size && b.size == 20);

    /* Nesting deeper than the limit is an error that sticks. */
    b.size = 0;
    plank_error err;
    pk_tw_init(&w, &b, &err);
    for (int i = 0; i <= PK_THRIFT_MAX_DEPTH; i++) pk_tw_field_struct(&w, 1);
    pk_tw_i32(&w, 1, 1);
    CHECK(pk_tw_finish(&w) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "deeper") != NULL);
    /* An out-of-range field id too. */
    pk_tw_init(&w, &b, NULL);
    pk_tw_i32(&w, 40000, 1);
    CHECK(pk_tw_finish(&w) == PLANK_ERR_INVALID_ARGUMENT);
    pk_buffer_reset(&b);
}

/* ---- Logical types and every optional field, written from scratch -------------------- */

static pk_schema_element leaf(const char *name, int32_t type, plank_logical_kind kind) {
    pk_schema_element e;
    memset(&e, 0, sizeof e);
    e.name = name;
    e.type = type;
    e.type_length = -1;
    e.repetition = PLANK_OPTIONAL;
    e.num_children = -1;
    e.converted_type = -1;
    e.scale = -1;
    e.precision = -1;
    e.has_logical_type = kind != PLANK_LOGICAL_NONE;
    e.logical.kind = kind;
    e.logical.edge_algorithm = -1;
    e.logical.variant_version = -1;
    return e;
}

static void column_defaults(plank_column_chunk_info *cc, int32_t column) {
    memset(cc, 0, sizeof *cc);
    cc->column = column;
    cc->physical_type = PLANK_INT32;
    cc->index_page_offset = -1;
    cc->dictionary_page_offset = -1;
    cc->bloom_filter_offset = cc->column_index_offset = cc->offset_index_offset = -1;
    cc->bloom_filter_length = cc->column_index_length = cc->offset_index_length = -1;
    cc->unencoded_byte_array_data_bytes = -1;
}

static void test_synthetic_footer(void) {
    g_ctx = "synthetic footer";
    enum { NE = 26, NLEAF = 24 }; /* elements; leaves */
    pk_schema_element schema[NE];
    memset(schema, 0, sizeof schema);
    schema[0] = leaf("root", -1, PLANK_LOGICAL_NONE);
    schema[0].num_children = 24; /* 23 leaves and the map group */
    schema[0].repetition = -1;
    int k = 1;
    schema[k++] = leaf("s", PLANK_BYTE_ARRAY, PLANK_LOGICAL_STRING);
    schema[k++] = leaf("e", PLANK_BYTE_ARRAY, PLANK_LOGICAL_ENUM);
    schema[k] = leaf("d", PLANK_INT64, PLANK_LOGICAL_DECIMAL);
    schema[k].logical.precision = 18;
    schema[k].logical.scale = 4;
    schema[k].scale = 4;
    schema[k++].precision = 18;
    schema[k++] = leaf("date", PLANK_INT32, PLANK_LOGICAL_DATE);
    for (int u = 0; u < 3; u++) {
        schema[k] = leaf("t", PLANK_INT64, PLANK_LOGICAL_TIME);
        schema[k].logical.unit = (plank_time_unit)u;
        schema[k++].logical.is_adjusted_to_utc = u == 1;
        schema[k] = leaf("ts", PLANK_INT64, PLANK_LOGICAL_TIMESTAMP);
        schema[k].logical.unit = (plank_time_unit)u;
        schema[k++].logical.is_adjusted_to_utc = u != 1;
    }
    schema[k] = leaf("u8", PLANK_INT32, PLANK_LOGICAL_INTEGER);
    schema[k].logical.bit_width = 8;
    schema[k++].logical.is_signed = false;
    schema[k] = leaf("i64", PLANK_INT64, PLANK_LOGICAL_INTEGER);
    schema[k].logical.bit_width = 64;
    schema[k++].logical.is_signed = true;
    schema[k++] = leaf("null", PLANK_INT32, PLANK_LOGICAL_UNKNOWN);
    schema[k++] = leaf("json", PLANK_BYTE_ARRAY, PLANK_LOGICAL_JSON);
    schema[k++] = leaf("bson", PLANK_BYTE_ARRAY, PLANK_LOGICAL_BSON);
    schema[k] = leaf("uuid", PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_LOGICAL_UUID);
    schema[k++].type_length = 16;
    schema[k] = leaf("f16", PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_LOGICAL_FLOAT16);
    schema[k++].type_length = 2;
    schema[k] = leaf("var", PLANK_BYTE_ARRAY, PLANK_LOGICAL_VARIANT);
    schema[k++].logical.variant_version = 1;
    schema[k++] = leaf("var0", PLANK_BYTE_ARRAY, PLANK_LOGICAL_VARIANT);
    schema[k] = leaf("geom", PLANK_BYTE_ARRAY, PLANK_LOGICAL_GEOMETRY);
    schema[k++].logical.crs = "OGC:CRS84";
    schema[k] = leaf("geog", PLANK_BYTE_ARRAY, PLANK_LOGICAL_GEOGRAPHY);
    schema[k].logical.crs = "srid:4326";
    schema[k++].logical.edge_algorithm = 4;
    schema[k++] = leaf("geog0", PLANK_BYTE_ARRAY, PLANK_LOGICAL_GEOGRAPHY);
    schema[k] = leaf("f", PLANK_INT32, PLANK_LOGICAL_NONE);
    schema[k].has_field_id = true;
    schema[k++].field_id = -7;
    /* A MAP group with an empty (as-read) LogicalType union, holding a leaf. */
    schema[k] = leaf("m", -1, PLANK_LOGICAL_MAP);
    schema[k].num_children = 1;
    schema[k++].converted_type = PLANK_CONVERTED_MAP;
    schema[k] = leaf("kv", PLANK_INT32, PLANK_LOGICAL_NONE);
    schema[k].has_logical_type = true; /* empty union */
    schema[k++].repetition = PLANK_REPEATED;
    CHECK_EQ_I64(k, NE);
    int32_t num_leaves = NLEAF;

    plank_column_chunk_info cols[NLEAF];
    for (int32_t i = 0; i < num_leaves; i++) {
        column_defaults(&cols[i], i);
        cols[i].data_page_offset = 4 + 100 * i;
    }
    static const plank_encoding encs[] = {PLANK_ENC_PLAIN, PLANK_ENC_RLE,
                                          PLANK_ENC_RLE_DICTIONARY};
    static const plank_encoding_stat estats[] = {{PLANK_PAGE_DICTIONARY, PLANK_ENC_PLAIN, 1},
                                                 {PLANK_PAGE_DATA, PLANK_ENC_RLE_DICTIONARY, 7}};
    static const int64_t hist[] = {1, 2, 3};
    static plank_key_value kvs[] = {{"k", "v"}, {"only key", NULL}};
    plank_column_chunk_info *c = &cols[0];
    c->file_path = "other.parquet";
    c->physical_type = PLANK_BYTE_ARRAY;
    c->codec = PLANK_CODEC_ZSTD;
    c->num_values = 1000;
    c->total_uncompressed_size = 5000;
    c->total_compressed_size = 4000;
    c->dictionary_page_offset = 4;
    c->data_page_offset = 50;
    c->index_page_offset = 60;
    c->num_encodings = 3;
    c->encodings = encs;
    c->has_statistics = true;
    c->statistics.has_min = c->statistics.has_max = true;
    c->statistics.min = (const uint8_t *)"a";
    c->statistics.min_len = 1;
    c->statistics.max = (const uint8_t *)"";
    c->statistics.max_len = 0;
    c->statistics.has_null_count = c->statistics.has_distinct_count = true;
    c->statistics.null_count = 3;
    c->statistics.distinct_count = 9;
    c->statistics.has_nan_count = true;
    c->statistics.nan_count = 0;
    c->statistics.has_is_min_exact = c->statistics.has_is_max_exact = true;
    c->statistics.is_min_exact = true;
    c->num_encoding_stats = 2;
    c->encoding_stats = estats;
    c->bloom_filter_offset = 9000;
    c->bloom_filter_length = 1040;
    c->column_index_offset = 10000;
    c->column_index_length = 33;
    c->offset_index_offset = 10033;
    c->offset_index_length = 44;
    c->unencoded_byte_array_data_bytes = 12345;
    c->num_repetition_level_histogram = 2;
    c->repetition_level_histogram = hist;
    c->num_definition_level_histogram = 3;
    c->definition_level_histogram = hist;
    c->num_key_values = 2;
    c->key_values = kvs;
    /* Deprecated-field statistics on another column, and an empty struct. */
    cols[1].has_statistics = true;
    cols[1].statistics.min_max_deprecated = true;
    cols[1].statistics.has_max = true;
    cols[1].statistics.max = (const uint8_t *)"zz";
    cols[1].statistics.max_len = 2;
    cols[2].has_statistics = true;

    static const plank_sorting_column sorting[] = {{2, true, false}, {0, false, true}};
    pk_row_group rgs[2];
    memset(rgs, 0, sizeof rgs);
    for (int g = 0; g < 2; g++) {
        rgs[g].num_columns = num_leaves;
        rgs[g].columns = cols;
        rgs[g].info.num_rows = 10 + g;
        rgs[g].info.total_byte_size = 777;
        rgs[g].info.total_compressed_size = g ? 555 : -1;
        rgs[g].info.file_offset = g ? 4 : -1;
        rgs[g].info.ordinal = g ? 1 : -1;
    }
    rgs[1].info.num_sorting_columns = 2;
    rgs[1].info.sorting_columns = sorting;
    int32_t orders[NLEAF];
    for (int32_t i = 0; i < num_leaves; i++) orders[i] = i % 3;

    pk_file_metadata md;
    memset(&md, 0, sizeof md);
    md.version = 2;
    md.num_schema = NE;
    md.schema = schema;
    md.num_rows = 21;
    md.num_row_groups = 2;
    md.row_groups = rgs;
    md.num_key_values = 2;
    md.key_values = kvs;
    md.created_by = "plank test";
    md.num_column_orders = num_leaves;
    md.column_orders = orders;

    pk_buffer b;
    pk_buffer_init(&b, NULL);
    plank_error err;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_OK);
    pk_file_metadata back;
    plank_status st = pk_thrift_read_file_metadata(b.data, b.size, NULL, &back, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st == PLANK_OK) {
        cmp_file_metadata(&md, &back);
        pk_file_metadata_free(&back);
    }
    char paths[4096];
    CHECK(collect_paths(b.data, b.size, paths, sizeof paths));
    CHECK(strstr(paths, "|m.kv|") != NULL);
    CHECK(strncmp(paths, "s|e|d|date|t|ts|", 16) == 0);

    /* INTERVAL and MAP_KEY_VALUE have no LogicalType member: none is written. */
    schema[1].logical.kind = PLANK_LOGICAL_INTERVAL;
    schema[2].logical.kind = PLANK_LOGICAL_MAP_KEY_VALUE;
    b.size = 0;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_OK);
    CHECK(pk_thrift_read_file_metadata(b.data, b.size, NULL, &back, &err) == PLANK_OK);
    CHECK(!back.schema[1].has_logical_type && !back.schema[2].has_logical_type);
    CHECK(back.schema[3].logical.kind == PLANK_LOGICAL_DECIMAL);
    pk_file_metadata_free(&back);

    /* What cannot be written faithfully is refused, leaving out as it was. */
    static const uint8_t keep[] = "xyz";
    b.size = 0;
    CHECK(pk_buffer_append(&b, keep, 3, NULL) == PLANK_OK);
    schema[1].logical.kind = PLANK_LOGICAL_UNRECOGNIZED;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(b.size == 3);
    schema[1].logical.kind = PLANK_LOGICAL_STRING;
    orders[3] = -1;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    orders[3] = 0;
    cols[5].encrypted = true;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    cols[5].encrypted = false;
    rgs[1].num_columns = num_leaves - 1;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    rgs[1].num_columns = num_leaves;
    schema[0].num_children = 26; /* claims more elements than there are */
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    schema[0].num_children = 23; /* leaves elements over */
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    schema[0].num_children = 24;
    md.has_encryption_algorithm = true;
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    md.has_encryption_algorithm = false;
    CHECK(b.size == 3 && memcmp(b.data, keep, 3) == 0);
    CHECK(pk_thrift_write_file_metadata(&md, &b, &err) == PLANK_OK);

    /* Out of memory at every allocation: a clean failure, no leak. */
    for (int64_t fail = 1;; fail++) {
        th_alloc ta;
        plank_allocator al = th_alloc_init(&ta);
        ta.fail_at = fail;
        pk_buffer fb;
        pk_buffer_init(&fb, &al);
        st = pk_thrift_write_file_metadata(&md, &fb, &err);
        pk_buffer_reset(&fb);
        CHECK(ta.live_blocks == 0);
        if (!ta.failed) {
            CHECK(st == PLANK_OK);
            break;
        }
        CHECK(st == PLANK_ERR_OUT_OF_MEMORY);
    }
    pk_buffer_reset(&b);
}

/* ---- Page headers, page index and bloom header by hand --------------------------------- */

static void test_page_header_kinds(void) {
    g_ctx = "page headers";
    pk_page_header h[3];
    memset(h, 0, sizeof h);
    h[0].type = PLANK_PAGE_DATA;
    h[0].uncompressed_page_size = 100;
    h[0].compressed_page_size = 80;
    h[0].has_crc = true;
    h[0].crc = 0xdeadbeef;
    h[0].has_data_header = true;
    h[0].num_values = 10;
    h[0].encoding = PLANK_ENC_PLAIN;
    h[0].definition_level_encoding = PLANK_ENC_RLE;
    h[0].repetition_level_encoding = PLANK_ENC_BIT_PACKED;
    h[0].is_compressed = true;
    h[0].dict_encoding = -1;
    h[1] = h[0];
    h[1].type = PLANK_PAGE_DATA_V2;
    h[1].has_crc = false;
    h[1].crc = 0;
    h[1].has_data_header = false;
    h[1].has_data_header_v2 = true;
    h[1].definition_level_encoding = h[1].repetition_level_encoding = -1;
    h[1].num_nulls = 2;
    h[1].num_rows = 5;
    h[1].definition_levels_byte_length = 3;
    h[1].repetition_levels_byte_length = 4;
    h[1].is_compressed = false;
    h[2].type = PLANK_PAGE_DICTIONARY;
    h[2].uncompressed_page_size = 7;
    h[2].compressed_page_size = 7;
    h[2].has_dictionary_header = true;
    h[2].dict_num_values = 3;
    h[2].dict_encoding = PLANK_ENC_PLAIN_DICTIONARY;
    h[2].dict_is_sorted = true;
    h[2].is_compressed = true;
    h[2].encoding = h[2].definition_level_encoding = h[2].repetition_level_encoding = -1;
    for (int i = 0; i < 3; i++) {
        pk_buffer b;
        pk_buffer_init(&b, NULL);
        plank_error err;
        pk_page_header back;
        size_t hlen = 0;
        CHECK(pk_thrift_write_page_header(&h[i], &b, &err) == PLANK_OK);
        CHECK(pk_thrift_read_page_header(b.data, b.size, &back, &hlen, &err) == PLANK_OK);
        CHECK(hlen == b.size);
        cmp_page_header(&h[i], &back);
        pk_buffer_reset(&b);
    }
}

/* ColumnIndex bytes: null_pages [false, true], min ["a", ""], max ["z", ""],
 * boundary ASCENDING, then the tail passed in, then STOP. */
static size_t ci_bytes(uint8_t *out, const uint8_t *tail, size_t tail_len) {
    static const uint8_t head[] = {0x19, 0x21, 0x02, 0x01,             /* null_pages */
                                   0x19, 0x28, 0x01, 'a', 0x00,        /* min_values */
                                   0x19, 0x28, 0x01, 'z', 0x00,        /* max_values */
                                   0x15, 0x02};                        /* boundary */
    memcpy(out, head, sizeof head);
    if (tail_len) memcpy(out + sizeof head, tail, tail_len);
    out[sizeof head + tail_len] = 0;
    return sizeof head + tail_len + 1;
}

static plank_status read_ci(const uint8_t *buf, size_t len, plank_column_index *ci,
                            pk_arena *ar, plank_error *err) {
    uint8_t *copy = malloc(len);
    memcpy(copy, buf, len);
    plank_status st = pk_thrift_read_column_index(copy, len, ar, ci, err);
    free(copy); /* the result must not point into the input */
    return st;
}

static void test_index_by_hand(void) {
    g_ctx = "page index by hand";
    uint8_t buf[256];
    pk_arena ar;
    pk_arena_init(&ar, NULL);
    plank_column_index ci;
    plank_error err;

    /* null_counts [0, 5], definition histograms 2 x 2, nan_counts (skipped). */
    static const uint8_t good[] = {0x19, 0x26, 0x00, 0x0a, 0x29, 0x46, 0x02, 0x04, 0x06, 0x08,
                                   0x19, 0x16, 0x00};
    size_t n = ci_bytes(buf, good, sizeof good);
    plank_status st = read_ci(buf, n, &ci, &ar, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st == PLANK_OK) {
        CHECK(ci.num_pages == 2 && !ci.null_pages[0] && ci.null_pages[1]);
        CHECK(ci.min_lens[0] == 1 && ci.min_values[0][0] == 'a' && ci.min_lens[1] == 0);
        CHECK(ci.max_lens[0] == 1 && ci.max_values[0][0] == 'z' && ci.max_lens[1] == 0);
        CHECK(ci.boundary_order == PLANK_BOUNDARY_ASCENDING);
        CHECK(ci.null_counts && ci.null_counts[0] == 0 && ci.null_counts[1] == 5);
        CHECK(ci.repetition_level_histograms == NULL);
        CHECK(ci.num_definition_level_histograms == 4 && ci.definition_level_histograms[3] == 4);
        pk_buffer b;
        pk_buffer_init(&b, NULL);
        CHECK(pk_thrift_write_column_index(&ci, &b, &err) == PLANK_OK);
        /* Ours is the input without the skipped nan_counts. */
        CHECK(b.size == n - 3 && memcmp(b.data, buf, n - 4) == 0);
        pk_buffer_reset(&b);
    }

    static const struct {
        const char *what;
        uint8_t tail[16];
        size_t len;
    } bad[] = {
        {"one null count for two pages", {0x19, 0x16, 0x00}, 3},
        {"histogram of 3 for 2 pages", {0x29, 0x36, 0x02, 0x04, 0x06}, 5},
        {"histogram list with a double", {0x29, 0x17, 0, 0, 0, 0, 0, 0, 0, 0}, 10},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = ci_bytes(buf, bad[i].tail, bad[i].len);
        err.byte_offset = -1;
        st = read_ci(buf, n, &ci, &ar, &err);
        CHECK_MSG(st == PLANK_ERR_CORRUPT, "%s: status %d", bad[i].what, (int)st);
        CHECK_MSG(err.byte_offset >= 0 && err.byte_offset < (int64_t)n, "%s: offset %lld",
                  bad[i].what, (long long)err.byte_offset);
        CHECK(ci.num_pages == 0 && ci.null_pages == NULL);
    }

    /* A negative count (writers put -1 for "unknown") makes its list absent. */
    static const uint8_t minus_one[] = {0x19, 0x26, 0x00, 0x01, 0x29, 0x26, 0x02, 0x01};
    n = ci_bytes(buf, minus_one, sizeof minus_one);
    CHECK(read_ci(buf, n, &ci, &ar, &err) == PLANK_OK);
    CHECK(ci.num_pages == 2 && ci.null_counts == NULL);
    CHECK(ci.definition_level_histograms == NULL && ci.num_definition_level_histograms == 0);

    /* Mismatched min/max lengths, missing fields, bad bools, odd orders. */
    static const uint8_t short_max[] = {0x19, 0x21, 0x02, 0x01, 0x19, 0x28, 0x01, 'a', 0x00,
                                        0x19, 0x18, 0x01, 'z', 0x15, 0x02, 0x00};
    CHECK(read_ci(short_max, sizeof short_max, &ci, &ar, &err) == PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "max_values") != NULL);
    static const uint8_t no_order[] = {0x19, 0x21, 0x02, 0x01, 0x19, 0x28, 0x01, 'a', 0x00,
                                       0x19, 0x28, 0x01, 'z', 0x00, 0x00};
    CHECK(read_ci(no_order, sizeof no_order, &ci, &ar, &err) == PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "boundary_order") != NULL);
    static const uint8_t bad_bool[] = {0x19, 0x21, 0x02, 0x07, 0x19, 0x28, 0x01, 'a', 0x00,
                                       0x19, 0x28, 0x01, 'z', 0x00, 0x15, 0x02, 0x00};
    CHECK(read_ci(bad_bool, sizeof bad_bool, &ci, &ar, &err) == PLANK_ERR_CORRUPT);
    static const uint8_t zero_false_order9[] = {0x19, 0x21, 0x00, 0x01, 0x19, 0x28, 0x01, 'a',
                                                0x00, 0x19, 0x28, 0x01, 'z', 0x00, 0x15, 0x12,
                                                0x00};
    CHECK(read_ci(zero_false_order9, sizeof zero_false_order9, &ci, &ar, &err) == PLANK_OK);
    CHECK(ci.num_pages == 2 && !ci.null_pages[0] && ci.null_pages[1]);
    CHECK(ci.boundary_order == PLANK_BOUNDARY_UNORDERED);
    CHECK(ci.null_counts == NULL);
    static const uint8_t empty[] = {0x19, 0x01, 0x19, 0x08, 0x19, 0x08, 0x15, 0x00, 0x00};
    CHECK(read_ci(empty, sizeof empty, &ci, &ar, &err) == PLANK_OK && ci.num_pages == 0);

    /* OffsetIndex: two pages, then unencoded sizes for one page only. */
    static const uint8_t oi_bytes[] = {0x19, 0x2c,                                /* 2 pages */
                                       0x16, 0x08, 0x15, 0x14, 0x16, 0x00, 0x00,  /* 4, 10, 0 */
                                       0x16, 0x1c, 0x15, 0x14, 0x16, 0x0a, 0x00,  /* 14,10,5 */
                                       0x19, 0x26, 0x02, 0x04, 0x00};
    plank_offset_index oi;
    st = pk_thrift_read_offset_index(oi_bytes, sizeof oi_bytes, &ar, &oi, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st == PLANK_OK) {
        CHECK(oi.num_pages == 2 && oi.pages[1].offset == 14 && oi.pages[1].first_row_index == 5);
        CHECK(oi.pages[0].compressed_page_size == 10 && oi.unencoded_byte_array_data_bytes[1] == 2);
        pk_buffer b;
        pk_buffer_init(&b, NULL);
        CHECK(pk_thrift_write_offset_index(&oi, &b, &err) == PLANK_OK);
        CHECK(same_bytes(b.data, b.size, oi_bytes, sizeof oi_bytes));
        check_prefixes_fail(b.data, b.size, false);
        pk_buffer_reset(&b);
    }
    uint8_t oi_bad[sizeof oi_bytes];
    memcpy(oi_bad, oi_bytes, sizeof oi_bytes);
    oi_bad[17] = 0x16; /* unencoded sizes: one entry for two pages */
    oi_bad[19] = 0x00;
    CHECK(pk_thrift_read_offset_index(oi_bad, sizeof oi_bad - 1, &ar, &oi, &err) ==
          PLANK_ERR_CORRUPT);
    CHECK(strstr(err.message, "unencoded_byte_array_data_bytes") != NULL);
    memcpy(oi_bad, oi_bytes, sizeof oi_bytes);
    oi_bad[7] = 0x01; /* first_row_index = -1 */
    CHECK(pk_thrift_read_offset_index(oi_bad, sizeof oi_bad, &ar, &oi, &err) ==
          PLANK_ERR_CORRUPT);
    memcpy(oi_bad, oi_bytes, sizeof oi_bytes);
    oi_bad[6] = 0x00; /* the first PageLocation ends before first_row_index */
    CHECK(pk_thrift_read_offset_index(oi_bad, sizeof oi_bad, &ar, &oi, &err) ==
          PLANK_ERR_CORRUPT);
    pk_arena_reset(&ar);
}

static void test_bloom_by_hand(void) {
    g_ctx = "bloom header";
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    plank_error err;
    CHECK(pk_thrift_write_bloom_header(1024, &b, &err) == PLANK_OK);
    static const uint8_t want[] = {0x15, 0x80, 0x10, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00,
                                   0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00};
    CHECK(same_bytes(b.data, b.size, want, sizeof want));
    uint32_t nb = 0;
    size_t hlen = 0;
    CHECK(pk_thrift_read_bloom_header(b.data, b.size, &nb, &hlen, &err) == PLANK_OK);
    CHECK(nb == 1024 && hlen == sizeof want);
    CHECK(pk_thrift_write_bloom_header(0, &b, &err) == PLANK_ERR_INVALID_ARGUMENT);
    for (size_t k = 0; k < sizeof want; k++) {
        uint8_t *copy = malloc(k ? k : 1);
        memcpy(copy, want, k);
        CHECK_MSG(pk_thrift_read_bloom_header(copy, k, &nb, &hlen, &err) == PLANK_ERR_CORRUPT,
                  "prefix %zu", k);
        free(copy);
    }
    uint8_t v[sizeof want];
    memcpy(v, want, sizeof want);
    v[8] = 0x2c; /* hash: member 2 */
    CHECK(pk_thrift_read_bloom_header(v, sizeof v, &nb, &hlen, &err) == PLANK_ERR_UNSUPPORTED);
    CHECK(err.byte_offset == 8);
    memcpy(v, want, sizeof want);
    v[1] = 0x00; /* numBytes 0, then a field header 0x15 (field 2 as an i32: skipped) */
    v[2] = 0x15;
    CHECK(pk_thrift_read_bloom_header(v, sizeof v, &nb, &hlen, &err) == PLANK_ERR_CORRUPT);
    static const uint8_t empty_union[] = {0x15, 0x02, 0x1c, 0x00, 0x1c, 0x1c, 0x00, 0x00,
                                          0x1c, 0x1c, 0x00, 0x00, 0x00};
    CHECK(pk_thrift_read_bloom_header(empty_union, sizeof empty_union, &nb, &hlen, &err) ==
          PLANK_ERR_CORRUPT);
    static const uint8_t no_compression[] = {0x15, 0x02, 0x1c, 0x1c, 0x00, 0x00,
                                             0x1c, 0x1c, 0x00, 0x00, 0x00};
    CHECK(pk_thrift_read_bloom_header(no_compression, sizeof no_compression, &nb, &hlen, &err) ==
          PLANK_ERR_CORRUPT);
    pk_buffer_reset(&b);
}

int main(void) {
    test_primitives();
    test_synthetic_footer();
    test_page_header_kinds();
    test_index_by_hand();
    test_bloom_by_hand();

    const char *root = th_testing_dir();
    if (!root) {
        fprintf(stderr, "%d checks, %d failures before the corpus\n", th_checks, th_failures);
        if (th_failures) return 1;
        TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR): corpus round trips skipped");
    }
    walk(root, 0);
    corpus_stats all = g_stats;
    check_named_files(root);
    fprintf(stderr,
            "corpus: %d files, %d footers round-tripped, %d skipped; %d page headers (%d v1, "
            "%d v2, %d dictionary); %d column and %d offset indexes (%d byte-identical); "
            "%d bloom filter headers\n",
            all.files, all.footers, all.skipped, all.page_headers, all.v1, all.v2, all.dict,
            all.column_indexes, all.offset_indexes, all.byte_identical_indexes, all.blooms);
    CHECK(all.footers > 100 && all.v1 > 0 && all.v2 > 0 && all.dict > 0);
    CHECK(all.column_indexes > 0 && all.offset_indexes > 0 && all.blooms > 0);
    TEST_END();
}
