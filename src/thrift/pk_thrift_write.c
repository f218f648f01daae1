/*
 * pk_thrift_write.c: the compact-protocol encoding of FileMetaData,
 * PageHeader, ColumnIndex, OffsetIndex and BloomFilterHeader (field ids from
 * apache/parquet-format parquet.thrift, the same as pk_thrift.c decodes).
 *
 * The input is what pk_thrift.c produces (absent optionals are -1, false or
 * NULL, and are left out), so decoding an encoding gives back the struct that
 * was encoded. Fields are written in increasing id order, which keeps every
 * field header in its one-byte short form.
 *
 * What cannot be written faithfully is refused with
 * PLANK_ERR_INVALID_ARGUMENT instead of written wrongly: encrypted columns
 * and footers, logical types and column orders this version does not know,
 * row groups whose column count differs from the schema's leaf count.
 */
#include "pk_thrift.h"

#include "pk_compact.h"

/* ---- Top-level structs --------------------------------------------------------- */

/* Starts a top-level struct appended to out; returns where it starts. */
static size_t top_begin(pk_tw *w, pk_buffer *out, plank_error *err) {
    pk_tw_init(w, out, err);
    pk_tw_struct_begin(w);
    return out->size;
}

/* Ends it; on failure drops whatever was appended, so out is as it was. */
static plank_status top_end(pk_tw *w, size_t start) {
    pk_tw_struct_end(w);
    plank_status st = pk_tw_finish(w);
    if (st != PLANK_OK) w->out->size = start;
    return st;
}

/* ---- Small structs ------------------------------------------------------------- */

static void wr_key_values(pk_tw *w, int id, const plank_key_value *kv, int32_t n) {
    pk_tw_list(w, id, PK_TC_STRUCT, (uint32_t)n);
    for (int32_t i = 0; i < n; i++) {
        pk_tw_struct_begin(w);
        pk_tw_str(w, 1, kv[i].key ? kv[i].key : "");
        if (kv[i].value) pk_tw_str(w, 2, kv[i].value);
        pk_tw_struct_end(w);
    }
}

static void wr_i64_list(pk_tw *w, int id, const int64_t *v, int32_t n) {
    pk_tw_list(w, id, PK_TC_I64, (uint32_t)n);
    for (int32_t i = 0; i < n; i++) pk_tw_zigzag(w, v[i]);
}

static void wr_statistics(pk_tw *w, int id, const plank_statistics *s) {
    pk_tw_field_struct(w, id);
    /* Values the decoder took from the deprecated signed-order fields go
     * back there: written as min_value/max_value they would claim the
     * column order. */
    if (s->min_max_deprecated) {
        if (s->has_max) pk_tw_bin(w, 1, s->max, s->max_len);
        if (s->has_min) pk_tw_bin(w, 2, s->min, s->min_len);
    }
    if (s->has_null_count) pk_tw_i64(w, 3, s->null_count);
    if (s->has_distinct_count) pk_tw_i64(w, 4, s->distinct_count);
    if (!s->min_max_deprecated) {
        if (s->has_max) pk_tw_bin(w, 5, s->max, s->max_len);
        if (s->has_min) pk_tw_bin(w, 6, s->min, s->min_len);
    }
    if (s->has_is_max_exact) pk_tw_bool(w, 7, s->is_max_exact);
    if (s->has_is_min_exact) pk_tw_bool(w, 8, s->is_min_exact);
    if (s->has_nan_count) pk_tw_i64(w, 9, s->nan_count);
    pk_tw_struct_end(w);
}

/* ---- Schema ------------------------------------------------------------------ */

static void wr_time_type(pk_tw *w, int id, const plank_logical_type *lt) {
    pk_tw_field_struct(w, id);
    pk_tw_bool(w, 1, lt->is_adjusted_to_utc);
    pk_tw_field_struct(w, 2); /* TimeUnit union */
    pk_tw_field_marker(w, lt->unit == PLANK_UNIT_MILLIS ? 1 : lt->unit == PLANK_UNIT_MICROS ? 2
                                                                                             : 3);
    pk_tw_struct_end(w);
    pk_tw_struct_end(w);
}

/* The LogicalType union (field 10 of SchemaElement). Kinds without a member
 * (INTERVAL, MAP_KEY_VALUE: legacy converted types only) write nothing. */
static void wr_logical_type(pk_tw *w, const plank_logical_type *lt) {
    static const int marker_ids[] = {
        [PLANK_LOGICAL_STRING] = 1, [PLANK_LOGICAL_MAP] = 2,      [PLANK_LOGICAL_LIST] = 3,
        [PLANK_LOGICAL_ENUM] = 4,   [PLANK_LOGICAL_DATE] = 6,     [PLANK_LOGICAL_UNKNOWN] = 11,
        [PLANK_LOGICAL_JSON] = 12,  [PLANK_LOGICAL_BSON] = 13,    [PLANK_LOGICAL_UUID] = 14,
        [PLANK_LOGICAL_FLOAT16] = 15};
    switch (lt->kind) {
    case PLANK_LOGICAL_INTERVAL:
    case PLANK_LOGICAL_MAP_KEY_VALUE:
        return;
    case PLANK_LOGICAL_UNRECOGNIZED:
        pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT,
                   "SchemaElement: cannot write an unrecognized logical type");
        return;
    default:
        break;
    }
    pk_tw_field_struct(w, 10);
    switch (lt->kind) {
    case PLANK_LOGICAL_NONE:
        break; /* an empty union, as it was read */
    case PLANK_LOGICAL_DECIMAL:
        pk_tw_field_struct(w, 5);
        pk_tw_i32(w, 1, lt->scale);
        pk_tw_i32(w, 2, lt->precision);
        pk_tw_struct_end(w);
        break;
    case PLANK_LOGICAL_TIME: wr_time_type(w, 7, lt); break;
    case PLANK_LOGICAL_TIMESTAMP: wr_time_type(w, 8, lt); break;
    case PLANK_LOGICAL_INTEGER:
        pk_tw_field_struct(w, 10);
        pk_tw_i8(w, 1, lt->bit_width);
        pk_tw_bool(w, 2, lt->is_signed);
        pk_tw_struct_end(w);
        break;
    case PLANK_LOGICAL_VARIANT:
        pk_tw_field_struct(w, 16);
        if (lt->variant_version >= 0) pk_tw_i8(w, 1, (int8_t)lt->variant_version);
        pk_tw_struct_end(w);
        break;
    case PLANK_LOGICAL_GEOMETRY:
    case PLANK_LOGICAL_GEOGRAPHY:
        pk_tw_field_struct(w, lt->kind == PLANK_LOGICAL_GEOMETRY ? 17 : 18);
        if (lt->crs) pk_tw_str(w, 1, lt->crs);
        if (lt->kind == PLANK_LOGICAL_GEOGRAPHY && lt->edge_algorithm >= 0)
            pk_tw_i32(w, 2, lt->edge_algorithm);
        pk_tw_struct_end(w);
        break;
    default:
        if ((size_t)lt->kind < sizeof marker_ids / sizeof marker_ids[0] &&
            marker_ids[lt->kind] != 0)
            pk_tw_field_marker(w, marker_ids[lt->kind]);
        else
            pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT, "SchemaElement: logical kind %d",
                       (int)lt->kind);
        break;
    }
    pk_tw_struct_end(w);
}

static void wr_schema_element(pk_tw *w, const pk_schema_element *se) {
    pk_tw_struct_begin(w);
    if (se->type >= 0) pk_tw_i32(w, 1, se->type);
    if (se->type_length >= 0) pk_tw_i32(w, 2, se->type_length);
    if (se->repetition >= 0) pk_tw_i32(w, 3, se->repetition);
    pk_tw_str(w, 4, se->name ? se->name : "");
    if (se->num_children >= 0) pk_tw_i32(w, 5, se->num_children);
    if (se->converted_type >= 0) pk_tw_i32(w, 6, se->converted_type);
    if (se->scale != -1) pk_tw_i32(w, 7, se->scale);
    if (se->precision != -1) pk_tw_i32(w, 8, se->precision);
    if (se->has_field_id) pk_tw_i32(w, 9, se->field_id);
    if (se->has_logical_type) wr_logical_type(w, &se->logical);
    pk_tw_struct_end(w);
}

/* Leaves of the schema tree, for path_in_schema: the element index of each
 * leaf (in column order) and the parent of each element. A node is a group
 * by the reader's rule (pk_reader.c build_node): the root, a node with
 * children, or a node without a type whose num_children is present. */
typedef struct wr_schema {
    int32_t *parent;  /* num_schema entries */
    int32_t *leaves;  /* num_leaves entries */
    int32_t *scratch; /* num_schema entries: one path, leaf first */
    int32_t num_leaves;
    size_t bytes;     /* of the one block holding the three arrays */
    const plank_allocator *alloc;
} wr_schema;

static bool is_group(const pk_schema_element *e, bool root) {
    return root || e->num_children > 0 || (e->type < 0 && e->num_children >= 0);
}

static void schema_tree_free(wr_schema *t) {
    if (t->parent) pk_free(t->alloc, t->parent, t->bytes);
    memset(t, 0, sizeof *t);
}

static plank_status schema_tree(const pk_file_metadata *md, const plank_allocator *alloc,
                                wr_schema *t, plank_error *err) {
    int32_t n = md->num_schema;
    memset(t, 0, sizeof *t);
    PK_RETURN_IF(n < 1 || !md->schema, err, PLANK_ERR_INVALID_ARGUMENT,
                 "FileMetaData: empty schema");
    t->alloc = alloc;
    t->bytes = sizeof(int32_t) * (size_t)n * 4;
    int32_t *block = pk_malloc(alloc, t->bytes);
    PK_RETURN_IF(!block, err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    t->parent = block;
    t->leaves = block + n;
    t->scratch = block + 2 * (size_t)n;
    /* The open groups: element and children still to visit. Each push
     * consumes an element, so n entries suffice. */
    int32_t *stack_elem = block + 3 * (size_t)n;
    int32_t *stack_left = t->scratch; /* free until paths are built */
    int32_t sp = 0, next = 1;
    t->parent[0] = -1;
    stack_elem[sp] = 0;
    stack_left[sp++] = md->schema[0].num_children > 0 ? md->schema[0].num_children : 0;
    while (sp > 0) {
        if (stack_left[sp - 1] == 0) {
            sp--;
            continue;
        }
        stack_left[sp - 1]--;
        if (next >= n) {
            plank_status st = pk_error_set(
                err, PLANK_ERR_INVALID_ARGUMENT,
                "schema: element %d claims more children than the %d elements",
                (int)stack_elem[sp - 1], (int)n);
            schema_tree_free(t);
            return st;
        }
        int32_t i = next++;
        const pk_schema_element *e = &md->schema[i];
        t->parent[i] = stack_elem[sp - 1];
        if (is_group(e, false)) {
            stack_elem[sp] = i;
            stack_left[sp++] = e->num_children > 0 ? e->num_children : 0;
        } else {
            t->leaves[t->num_leaves++] = i;
        }
    }
    if (next != n) {
        schema_tree_free(t);
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "schema: %d elements but the tree uses %d", (int)n, (int)next);
    }
    return PLANK_OK;
}

static void wr_path_in_schema(pk_tw *w, const pk_file_metadata *md, wr_schema *t,
                              int32_t leaf) {
    uint32_t depth = 0;
    for (int32_t e = t->leaves[leaf]; e > 0; e = t->parent[e]) t->scratch[depth++] = e;
    pk_tw_list(w, 3, PK_TC_BINARY, depth);
    while (depth > 0) {
        const char *name = md->schema[t->scratch[--depth]].name;
        if (!name) name = "";
        pk_tw_binary(w, name, strlen(name));
    }
}

static void wr_geospatial_statistics(pk_tw *w, int id, const plank_geospatial_statistics *g) {
    pk_tw_field_struct(w, id);
    if (g->has_bbox) {
        pk_tw_field_struct(w, 1);
        pk_tw_double(w, 1, g->xmin);
        pk_tw_double(w, 2, g->xmax);
        pk_tw_double(w, 3, g->ymin);
        pk_tw_double(w, 4, g->ymax);
        if (g->has_z) {
            pk_tw_double(w, 5, g->zmin);
            pk_tw_double(w, 6, g->zmax);
        }
        if (g->has_m) {
            pk_tw_double(w, 7, g->mmin);
            pk_tw_double(w, 8, g->mmax);
        }
        pk_tw_struct_end(w);
    }
    if (g->has_geospatial_types) {
        pk_tw_list(w, 2, PK_TC_I32, (uint32_t)g->num_geospatial_types);
        for (int32_t i = 0; i < g->num_geospatial_types; i++)
            pk_tw_zigzag(w, g->geospatial_types[i]);
    }
    pk_tw_struct_end(w);
}

/* ---- Row groups ------------------------------------------------------------------ */

static void wr_column_metadata(pk_tw *w, const pk_file_metadata *md, wr_schema *t,
                               int32_t leaf, const plank_column_chunk_info *cc) {
    pk_tw_field_struct(w, 3);
    pk_tw_i32(w, 1, (int32_t)cc->physical_type);
    pk_tw_list(w, 2, PK_TC_I32, (uint32_t)cc->num_encodings);
    for (int32_t i = 0; i < cc->num_encodings; i++) pk_tw_zigzag(w, cc->encodings[i]);
    wr_path_in_schema(w, md, t, leaf);
    pk_tw_i32(w, 4, (int32_t)cc->codec);
    pk_tw_i64(w, 5, cc->num_values);
    pk_tw_i64(w, 6, cc->total_uncompressed_size);
    pk_tw_i64(w, 7, cc->total_compressed_size);
    if (cc->num_key_values > 0) wr_key_values(w, 8, cc->key_values, cc->num_key_values);
    pk_tw_i64(w, 9, cc->data_page_offset);
    if (cc->index_page_offset >= 0) pk_tw_i64(w, 10, cc->index_page_offset);
    if (cc->dictionary_page_offset >= 0) pk_tw_i64(w, 11, cc->dictionary_page_offset);
    if (cc->has_statistics) wr_statistics(w, 12, &cc->statistics);
    if (cc->num_encoding_stats > 0) {
        pk_tw_list(w, 13, PK_TC_STRUCT, (uint32_t)cc->num_encoding_stats);
        for (int32_t i = 0; i < cc->num_encoding_stats; i++) {
            const plank_encoding_stat *es = &cc->encoding_stats[i];
            pk_tw_struct_begin(w);
            pk_tw_i32(w, 1, (int32_t)es->page_type);
            pk_tw_i32(w, 2, (int32_t)es->encoding);
            pk_tw_i32(w, 3, es->count);
            pk_tw_struct_end(w);
        }
    }
    if (cc->bloom_filter_offset >= 0) pk_tw_i64(w, 14, cc->bloom_filter_offset);
    if (cc->bloom_filter_length >= 0) pk_tw_i32(w, 15, cc->bloom_filter_length);
    if (cc->unencoded_byte_array_data_bytes >= 0 || cc->num_repetition_level_histogram > 0 ||
        cc->num_definition_level_histogram > 0) {
        pk_tw_field_struct(w, 16);
        if (cc->unencoded_byte_array_data_bytes >= 0)
            pk_tw_i64(w, 1, cc->unencoded_byte_array_data_bytes);
        if (cc->num_repetition_level_histogram > 0)
            wr_i64_list(w, 2, cc->repetition_level_histogram,
                        cc->num_repetition_level_histogram);
        if (cc->num_definition_level_histogram > 0)
            wr_i64_list(w, 3, cc->definition_level_histogram,
                        cc->num_definition_level_histogram);
        pk_tw_struct_end(w);
    }
    if (cc->has_geospatial_statistics) wr_geospatial_statistics(w, 17, &cc->geospatial_statistics);
    pk_tw_struct_end(w);
}

static void wr_column_chunk(pk_tw *w, const pk_file_metadata *md, wr_schema *t, int32_t leaf,
                            const plank_column_chunk_info *cc) {
    if (cc->encrypted) {
        pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT, "ColumnChunk %d: cannot write encryption",
                   (int)leaf);
        return;
    }
    pk_tw_struct_begin(w);
    if (cc->file_path) pk_tw_str(w, 1, cc->file_path);
    /* file_offset (deprecated but required): where the chunk's first page is. */
    int64_t first = cc->data_page_offset;
    if (cc->dictionary_page_offset >= 0 && cc->dictionary_page_offset < first)
        first = cc->dictionary_page_offset;
    pk_tw_i64(w, 2, first);
    wr_column_metadata(w, md, t, leaf, cc);
    if (cc->offset_index_offset >= 0) pk_tw_i64(w, 4, cc->offset_index_offset);
    if (cc->offset_index_length >= 0) pk_tw_i32(w, 5, cc->offset_index_length);
    if (cc->column_index_offset >= 0) pk_tw_i64(w, 6, cc->column_index_offset);
    if (cc->column_index_length >= 0) pk_tw_i32(w, 7, cc->column_index_length);
    pk_tw_struct_end(w);
}

static void wr_row_group(pk_tw *w, const pk_file_metadata *md, wr_schema *t,
                         const pk_row_group *rg) {
    const plank_row_group_info *info = &rg->info;
    if (rg->num_columns != t->num_leaves) {
        pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT,
                   "RowGroup: %d columns but the schema has %d leaves", (int)rg->num_columns,
                   (int)t->num_leaves);
        return;
    }
    pk_tw_struct_begin(w);
    pk_tw_list(w, 1, PK_TC_STRUCT, (uint32_t)rg->num_columns);
    for (int32_t i = 0; i < rg->num_columns; i++) wr_column_chunk(w, md, t, i, &rg->columns[i]);
    pk_tw_i64(w, 2, info->total_byte_size);
    pk_tw_i64(w, 3, info->num_rows);
    if (info->num_sorting_columns > 0) {
        pk_tw_list(w, 4, PK_TC_STRUCT, (uint32_t)info->num_sorting_columns);
        for (int32_t i = 0; i < info->num_sorting_columns; i++) {
            const plank_sorting_column *sc = &info->sorting_columns[i];
            pk_tw_struct_begin(w);
            pk_tw_i32(w, 1, sc->column);
            pk_tw_bool(w, 2, sc->descending);
            pk_tw_bool(w, 3, sc->nulls_first);
            pk_tw_struct_end(w);
        }
    }
    if (info->file_offset >= 0) pk_tw_i64(w, 5, info->file_offset);
    if (info->total_compressed_size >= 0) pk_tw_i64(w, 6, info->total_compressed_size);
    if (info->ordinal != -1) pk_tw_i16(w, 7, (int16_t)info->ordinal);
    pk_tw_struct_end(w);
}

/* ---- FileMetaData ------------------------------------------------------------------ */

static void wr_column_orders(pk_tw *w, const int32_t *orders, int32_t n) {
    pk_tw_list(w, 7, PK_TC_STRUCT, (uint32_t)n);
    for (int32_t i = 0; i < n; i++) {
        if (orders[i] < 0 || orders[i] > 2) {
            pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT, "column order %d: unknown kind %d",
                       (int)i, (int)orders[i]);
            return;
        }
        /* TYPE_ORDER, IEEE_754_TOTAL_ORDER, INT96_TIMESTAMP_ORDER: markers. */
        pk_tw_struct_begin(w);
        pk_tw_field_marker(w, orders[i] + 1);
        pk_tw_struct_end(w);
    }
}

plank_status pk_thrift_write_file_metadata(const pk_file_metadata *md, pk_buffer *out,
                                           plank_error *err) {
    if (!md || !out)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "FileMetaData: no input");
    PK_RETURN_IF(md->has_encryption_algorithm, err, PLANK_ERR_INVALID_ARGUMENT,
                 "FileMetaData: cannot write an encrypted footer");
    wr_schema t;
    PK_FORWARD(schema_tree(md, out->alloc, &t, err));
    pk_tw w;
    size_t start = top_begin(&w, out, err);
    pk_tw_i32(&w, 1, md->version);
    pk_tw_list(&w, 2, PK_TC_STRUCT, (uint32_t)md->num_schema);
    for (int32_t i = 0; i < md->num_schema; i++) wr_schema_element(&w, &md->schema[i]);
    pk_tw_i64(&w, 3, md->num_rows);
    pk_tw_list(&w, 4, PK_TC_STRUCT, (uint32_t)md->num_row_groups);
    for (int32_t i = 0; i < md->num_row_groups && w.st == PLANK_OK; i++)
        wr_row_group(&w, md, &t, &md->row_groups[i]);
    if (md->num_key_values > 0) wr_key_values(&w, 5, md->key_values, md->num_key_values);
    if (md->created_by) pk_tw_str(&w, 6, md->created_by);
    if (md->num_column_orders > 0) wr_column_orders(&w, md->column_orders, md->num_column_orders);
    schema_tree_free(&t);
    return top_end(&w, start);
}

/* ---- PageHeader ------------------------------------------------------------------------ */

plank_status pk_thrift_write_page_header(const pk_page_header *h, pk_buffer *out,
                                         plank_error *err) {
    if (!h || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "PageHeader: no input");
    pk_tw w;
    size_t start = top_begin(&w, out, err);
    pk_tw_i32(&w, 1, h->type);
    pk_tw_i32(&w, 2, h->uncompressed_page_size);
    pk_tw_i32(&w, 3, h->compressed_page_size);
    if (h->has_crc) pk_tw_i32(&w, 4, (int32_t)h->crc);
    if (h->has_data_header) {
        pk_tw_field_struct(&w, 5);
        pk_tw_i32(&w, 1, h->num_values);
        pk_tw_i32(&w, 2, h->encoding);
        pk_tw_i32(&w, 3, h->definition_level_encoding);
        pk_tw_i32(&w, 4, h->repetition_level_encoding);
        pk_tw_struct_end(&w);
    }
    if (h->has_dictionary_header) {
        pk_tw_field_struct(&w, 7);
        pk_tw_i32(&w, 1, h->dict_num_values);
        pk_tw_i32(&w, 2, h->dict_encoding);
        pk_tw_bool(&w, 3, h->dict_is_sorted);
        pk_tw_struct_end(&w);
    }
    if (h->has_data_header_v2) {
        pk_tw_field_struct(&w, 8);
        pk_tw_i32(&w, 1, h->num_values);
        pk_tw_i32(&w, 2, h->num_nulls);
        pk_tw_i32(&w, 3, h->num_rows);
        pk_tw_i32(&w, 4, h->encoding);
        pk_tw_i32(&w, 5, h->definition_levels_byte_length);
        pk_tw_i32(&w, 6, h->repetition_levels_byte_length);
        pk_tw_bool(&w, 7, h->is_compressed);
        pk_tw_struct_end(&w);
    }
    return top_end(&w, start);
}

/* ---- Page index ------------------------------------------------------------------------- */

plank_status pk_thrift_write_column_index(const plank_column_index *ci, pk_buffer *out,
                                          plank_error *err) {
    if (!ci || !out || ci->num_pages < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "ColumnIndex: no input");
    uint32_t n = (uint32_t)ci->num_pages;
    pk_tw w;
    size_t start = top_begin(&w, out, err);
    pk_tw_list(&w, 1, PK_TC_TRUE, n);
    for (uint32_t i = 0; i < n; i++) pk_tw_elem_bool(&w, ci->null_pages[i]);
    pk_tw_list(&w, 2, PK_TC_BINARY, n);
    for (uint32_t i = 0; i < n; i++) pk_tw_binary(&w, ci->min_values[i], ci->min_lens[i]);
    pk_tw_list(&w, 3, PK_TC_BINARY, n);
    for (uint32_t i = 0; i < n; i++) pk_tw_binary(&w, ci->max_values[i], ci->max_lens[i]);
    pk_tw_i32(&w, 4, (int32_t)ci->boundary_order);
    if (ci->null_counts) wr_i64_list(&w, 5, ci->null_counts, ci->num_pages);
    if (ci->repetition_level_histograms)
        wr_i64_list(&w, 6, ci->repetition_level_histograms, ci->num_repetition_level_histograms);
    if (ci->definition_level_histograms)
        wr_i64_list(&w, 7, ci->definition_level_histograms, ci->num_definition_level_histograms);
    return top_end(&w, start);
}

plank_status pk_thrift_write_offset_index(const plank_offset_index *oi, pk_buffer *out,
                                          plank_error *err) {
    if (!oi || !out || oi->num_pages < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "OffsetIndex: no input");
    pk_tw w;
    size_t start = top_begin(&w, out, err);
    pk_tw_list(&w, 1, PK_TC_STRUCT, (uint32_t)oi->num_pages);
    for (int32_t i = 0; i < oi->num_pages; i++) {
        const plank_page_location *p = &oi->pages[i];
        pk_tw_struct_begin(&w);
        pk_tw_i64(&w, 1, p->offset);
        pk_tw_i32(&w, 2, p->compressed_page_size);
        pk_tw_i64(&w, 3, p->first_row_index);
        pk_tw_struct_end(&w);
    }
    if (oi->unencoded_byte_array_data_bytes)
        wr_i64_list(&w, 2, oi->unencoded_byte_array_data_bytes, oi->num_pages);
    return top_end(&w, start);
}

/* ---- BloomFilterHeader ------------------------------------------------------------------- */

plank_status pk_thrift_write_bloom_header(uint32_t num_bytes, pk_buffer *out, plank_error *err) {
    if (!out || num_bytes == 0 || num_bytes > INT32_MAX)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "BloomFilterHeader: bitset of %u bytes", num_bytes);
    pk_tw w;
    size_t start = top_begin(&w, out, err);
    pk_tw_i32(&w, 1, (int32_t)num_bytes);
    /* algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED: each a union
     * whose member 1 is an empty struct. */
    for (int id = 2; id <= 4; id++) {
        pk_tw_field_struct(&w, id);
        pk_tw_field_marker(&w, 1);
        pk_tw_struct_end(&w);
    }
    return top_end(&w, start);
}
