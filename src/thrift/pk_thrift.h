/*
 * pk_thrift.h: Thrift compact-protocol decoding of the Parquet footer
 * (FileMetaData) and of page headers, written for plank (no Thrift library).
 *
 * Hostile-input contract: the decoders never read outside [buf, buf+len),
 * bound the nesting depth (PK_THRIFT_MAX_DEPTH), list sizes (by the bytes
 * left: an element takes at least one byte) and string lengths (by the bytes
 * left). Unknown fields and unknown union members are skipped, so files from
 * newer writers open. Malformed input gives PLANK_ERR_CORRUPT with the byte
 * offset (relative to buf) in the message and in err->byte_offset.
 *
 * Depends on: common.
 */
#ifndef PK_THRIFT_H
#define PK_THRIFT_H

#include "../common/pk_common.h"

#define PK_THRIFT_MAX_DEPTH 64

/* A raw SchemaElement. Absent optional integers are -1 unless noted. */
typedef struct pk_schema_element {
    const char *name;           /* never NULL ("" when absent) */
    int32_t type;               /* plank_physical_type, -1 absent (group) */
    int32_t type_length;        /* -1 absent */
    int32_t repetition;         /* plank_repetition, -1 absent */
    int32_t num_children;       /* -1 absent */
    int32_t converted_type;     /* plank_converted_type, -1 absent */
    int32_t scale;              /* -1 absent */
    int32_t precision;          /* -1 absent */
    bool has_field_id;
    int32_t field_id;
    bool has_logical_type;
    /* The LogicalType union as written (kind NONE if the union was empty;
     * PLANK_LOGICAL_UNRECOGNIZED for an unknown member). Not yet merged with
     * the converted type: the reader does that. */
    plank_logical_type logical;
} pk_schema_element;

typedef struct pk_row_group {
    plank_row_group_info info;
    int32_t num_columns;
    plank_column_chunk_info *columns; /* column/path are filled by the reader */
} pk_row_group;

typedef struct pk_file_metadata {
    int32_t version;
    int32_t num_schema;
    pk_schema_element *schema;
    int64_t num_rows;
    int32_t num_row_groups;
    pk_row_group *row_groups;
    int32_t num_key_values;
    plank_key_value *key_values;
    const char *created_by;        /* NULL when absent */
    int32_t num_column_orders;
    int32_t *column_orders;        /* 0 = TYPE_DEFINED_ORDER, -1 = unknown member */
    bool has_encryption_algorithm; /* plaintext-footer encrypted file */
    pk_arena arena;                /* owns every pointer above */
} pk_file_metadata;

/* Decodes FileMetaData from buf[0..len). On success the caller owns *out and
 * must call pk_file_metadata_free. On failure *out is left freed. */
plank_status pk_thrift_read_file_metadata(const uint8_t *buf, size_t len,
                                          const plank_allocator *alloc, pk_file_metadata *out,
                                          plank_error *err);
/* As above with bounds on the number of schema elements (which also bounds
 * the columns of each row group) and of row groups: a list header claiming
 * more fails with PLANK_ERR_LIMIT before anything is allocated for it. */
plank_status pk_thrift_read_file_metadata_limited(const uint8_t *buf, size_t len,
                                                  const plank_allocator *alloc,
                                                  int32_t max_schema, int32_t max_row_groups,
                                                  pk_file_metadata *out, plank_error *err);
void pk_file_metadata_free(pk_file_metadata *md);

typedef struct pk_page_header {
    int32_t type;                   /* plank_page_type (other values possible) */
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    bool has_crc;
    uint32_t crc;
    /* DataPageHeader (v1) and DataPageHeaderV2 share num_values/encoding. */
    bool has_data_header;
    bool has_data_header_v2;
    bool has_dictionary_header;
    int32_t num_values;
    int32_t encoding;
    int32_t definition_level_encoding; /* v1 */
    int32_t repetition_level_encoding; /* v1 */
    int32_t num_nulls;                 /* v2 */
    int32_t num_rows;                  /* v2 */
    int32_t definition_levels_byte_length; /* v2 */
    int32_t repetition_levels_byte_length; /* v2 */
    bool is_compressed;                /* v2; default true */
    /* DictionaryPageHeader */
    int32_t dict_num_values;
    int32_t dict_encoding;
    bool dict_is_sorted;
} pk_page_header;

/* Builds the schema tree of elems[0..num_elems) (element 0 the root): nodes
 * (num_elems, in element order), the leaf count and leaf -> node map, all in
 * arena. Inconsistent trees (children counts, missing repetition, bad
 * physical types or FLBA widths, groups without children) are
 * PLANK_ERR_CORRUPT naming the element. */
plank_status pk_schema_tree_build(const pk_schema_element *elems, int32_t num_elems,
                                  pk_arena *arena, plank_schema_node **nodes,
                                  int32_t *num_columns, int32_t **leaf_nodes, plank_error *err);

/* Decodes one PageHeader at buf[0..len). *header_len receives the bytes it
 * took. Required fields that are missing are an error. Statistics inside the
 * header are skipped. */
plank_status pk_thrift_read_page_header(const uint8_t *buf, size_t len, pk_page_header *out,
                                        size_t *header_len, plank_error *err);

/* ---- Page index and bloom filter headers (read) ---------------------------- */

/* Decodes a ColumnIndex / OffsetIndex from buf[0..len) into arrays allocated
 * in `arena` (which the caller owns; on failure *out is zeroed and what was
 * allocated stays in the arena). The per-page lists must agree in length
 * (num_pages), histogram lists must hold a whole number of per-page
 * histograms, page offsets, sizes and first rows must not be negative, else
 * PLANK_ERR_CORRUPT. Absent optional lists are NULL (an empty list, or a
 * count list with a negative entry, which writers use for "unknown", reads
 * as absent); a boundary order unknown to this version reads as UNORDERED;
 * nan_counts is skipped. */
plank_status pk_thrift_read_column_index(const uint8_t *buf, size_t len, pk_arena *arena,
                                         plank_column_index *out, plank_error *err);
plank_status pk_thrift_read_offset_index(const uint8_t *buf, size_t len, pk_arena *arena,
                                         plank_offset_index *out, plank_error *err);
/* Decodes a BloomFilterHeader; *header_len receives its size. Only the
 * split-block algorithm, XXH64 and no compression are accepted (anything
 * else: PLANK_ERR_UNSUPPORTED); num_bytes must be > 0. */
plank_status pk_thrift_read_bloom_header(const uint8_t *buf, size_t len, uint32_t *num_bytes,
                                         size_t *header_len, plank_error *err);

/* ---- Encoding (the writer) -------------------------------------------------- */

/* Appends the compact-protocol encoding of md to out. Written from md:
 * version, schema (every pk_schema_element field that is present: type,
 * type_length, repetition, name, num_children, converted_type, scale,
 * precision, field_id, logicalType), num_rows, row_groups (columns with
 * file_path when set, file_offset = the chunk's first page offset, and
 * ColumnMetaData: type, encodings, path_in_schema (computed from the schema
 * tree, never by splitting dotted paths), codec, num_values, sizes, key
 * values, page offsets, statistics (min_value/max_value, null_count,
 * distinct_count, nan_count, exactness flags; the deprecated min/max only
 * when min_max_deprecated says the values came from there),
 * encoding_stats, bloom filter offset/length, size statistics; then the
 * column index and offset index offsets/lengths on the ColumnChunk), the row
 * group's total_byte_size, num_rows, sorting_columns, file_offset,
 * total_compressed_size and ordinal when not -1; key_value_metadata,
 * created_by, column_orders (TYPE_DEFINED_ORDER for entries 0,
 * IEEE_754_TOTAL_ORDER for 1, INT96_TIMESTAMP_ORDER for 2). Fields the
 * decoder marks absent (-1, false, NULL) are left out, so decoding the
 * result gives md back. Logical kinds INTERVAL and MAP_KEY_VALUE have no
 * LogicalType member and write none (only converted_type). What cannot be
 * written faithfully gives PLANK_ERR_INVALID_ARGUMENT and leaves out->size
 * as it was: an encrypted footer or column, an unrecognized logical type or
 * column order (-1), a row group whose column count differs from the
 * schema's leaf count. */
plank_status pk_thrift_write_file_metadata(const pk_file_metadata *md, pk_buffer *out,
                                           plank_error *err);
/* Appends a PageHeader (type, sizes, crc when has_crc, and the v1, v2 or
 * dictionary header its has_* flag selects). */
plank_status pk_thrift_write_page_header(const pk_page_header *h, pk_buffer *out,
                                         plank_error *err);
/* Appends a ColumnIndex / OffsetIndex: every per-page list has num_pages
 * entries; the optional lists are written when their pointer is not NULL. */
plank_status pk_thrift_write_column_index(const plank_column_index *ci, pk_buffer *out,
                                          plank_error *err);
plank_status pk_thrift_write_offset_index(const plank_offset_index *oi, pk_buffer *out,
                                          plank_error *err);
/* Appends a BloomFilterHeader: num_bytes, SPLIT_BLOCK, XXHASH, UNCOMPRESSED. */
plank_status pk_thrift_write_bloom_header(uint32_t num_bytes, pk_buffer *out, plank_error *err);

#endif /* PK_THRIFT_H */
