/*
 * pk_thrift.c: the Parquet footer (FileMetaData) and PageHeader structs,
 * decoded field by field from the compact protocol (pk_compact.c) following
 * apache/parquet-format parquet.thrift.
 *
 * Hostile-input contract (see pk_thrift.h): all reads go through pk_tc, which
 * bounds them by the buffer; lists are allocated in steps as elements are
 * actually decoded, so a claimed count never decides an allocation by itself.
 * Unknown fields and union members are skipped, and so are known fields
 * written with another wire type (as Thrift does). Required fields that are
 * missing, negative sizes/counts/offsets and negative enum values are
 * PLANK_ERR_CORRUPT, named as "Struct.field" (outermost first) with the byte
 * offset of the fault.
 */
#include "pk_thrift.h"

#include "pk_compact.h"

typedef struct pk_dec {
    pk_tc tc;
    pk_arena *ar; /* NULL for page headers, which allocate nothing */
    /* FileMetaData: the caller's bounds on schema elements (also bounding
     * the columns of a row group) and row groups, checked against the list
     * headers before anything is allocated for them. */
    uint32_t max_schema, max_row_groups;
} pk_dec;

#define REQ(id) ((uint64_t)1 << (id))

/* ---- Struct field iteration ------------------------------------------------ */

/* Wire-type classes of known fields. Integers accept any integer width. */
enum { W_NONE, W_INT, W_BOOL, W_BIN, W_LIST, W_STRUCT, W_DOUBLE };

typedef struct pk_field_spec {
    const char *name;
    int wire;
} pk_field_spec;

typedef struct pk_fields {
    const char *name;            /* struct name, for messages */
    const pk_field_spec *specs;  /* indexed by field id */
    int num_specs;
    size_t start;                /* offset of the struct, where missing fields are reported */
    int32_t id;
    int type;
    uint64_t seen;               /* known field ids decoded so far */
} pk_fields;

static plank_status fields_begin(pk_dec *d, pk_fields *f, int type, const char *name,
                                 const pk_field_spec *specs, int num_specs) {
    f->name = name;
    f->specs = specs;
    f->num_specs = num_specs;
    f->start = d->tc.pos;
    f->id = 0;
    f->type = PK_TC_STOP;
    f->seen = 0;
    return pk_tc_enter(&d->tc, type, PK_TC_STRUCT, name);
}
#define FIELDS_BEGIN(d, f, type, name, specs) \
    fields_begin((d), (f), (type), (name), (specs), (int)(sizeof(specs) / sizeof((specs)[0])))

static const pk_field_spec *field_spec(const pk_fields *f, int32_t id) {
    if (id > 0 && id < f->num_specs && f->specs[id].name) return &f->specs[id];
    return NULL;
}

static const char *field_name(const pk_fields *f, int32_t id) {
    const pk_field_spec *spec = field_spec(f, id);
    return spec ? spec->name : "unknown field";
}

static bool wire_matches(int wire, int type) {
    switch (wire) {
    case W_INT: return type == PK_TC_BYTE || type == PK_TC_I16 || type == PK_TC_I32 ||
                       type == PK_TC_I64;
    case W_BOOL: return type == PK_TC_TRUE || type == PK_TC_FALSE;
    case W_BIN: return type == PK_TC_BINARY;
    case W_LIST: return type == PK_TC_LIST || type == PK_TC_SET;
    case W_STRUCT: return type == PK_TC_STRUCT;
    case W_DOUBLE: return type == PK_TC_DOUBLE;
    default: return false;
    }
}

/* Reads the next field header; at the STOP byte leaves the struct. A known
 * field id with a different wire type is skipped as Thrift itself does (old
 * writers reused ids): if the field was required, it is then missing. */
static plank_status fields_next(pk_dec *d, pk_fields *f) {
    for (;;) {
        plank_status st = pk_tc_field(&d->tc, &f->id, &f->type);
        if (st != PLANK_OK) {
            pk_error_prefix(d->tc.err, "%s", f->name);
            return st;
        }
        if (f->type == PK_TC_STOP) {
            pk_tc_leave(&d->tc);
            return PLANK_OK;
        }
        const pk_field_spec *spec = field_spec(f, f->id);
        if (!spec || wire_matches(spec->wire, f->type)) return PLANK_OK;
        st = pk_tc_skip(&d->tc, f->type);
        if (st != PLANK_OK) {
            pk_error_prefix(d->tc.err, "%s.%s(%d)", f->name, spec->name, (int)f->id);
            return st;
        }
    }
}

/* Records the result of decoding the current field's value. */
static plank_status fields_done(pk_dec *d, pk_fields *f, plank_status st) {
    if (st != PLANK_OK) {
        pk_error_prefix(d->tc.err, "%s.%s(%d)", f->name, field_name(f, f->id), (int)f->id);
        return st;
    }
    if (f->id > 0 && f->id < 64) f->seen |= (uint64_t)1 << f->id;
    return PLANK_OK;
}

static plank_status fields_require(pk_dec *d, const pk_fields *f, uint64_t required) {
    uint64_t missing = required & ~f->seen;
    if (!missing) return PLANK_OK;
    int id = __builtin_ctzll(missing);
    return pk_tc_fail(&d->tc, f->start, "%s: required field %s(%d) missing", f->name,
                      field_name(f, id), id);
}

/* ---- Values ------------------------------------------------------------------ */

static plank_status dec_oom(pk_dec *d, size_t n) {
    return pk_error_set(d->tc.err, PLANK_ERR_OUT_OF_MEMORY,
                        "out of memory allocating %zu bytes of metadata", n);
}

static plank_status rd_i32(pk_dec *d, int type, int32_t min, int32_t *out) {
    int64_t v = 0;
    PK_FORWARD(pk_tc_int(&d->tc, type, min, INT32_MAX, &v));
    *out = (int32_t)v;
    return PLANK_OK;
}

static plank_status rd_i64(pk_dec *d, int type, int64_t min, int64_t *out) {
    return pk_tc_int(&d->tc, type, min, INT64_MAX, out);
}

/* Enum values are never negative in the format; -1 marks "absent" here. */
static plank_status rd_enum(pk_dec *d, int type, int32_t *out) { return rd_i32(d, type, 0, out); }

/* Copies into the arena: the metadata outlives the footer buffer. */
static plank_status rd_bytes(pk_dec *d, int type, const uint8_t **out, uint32_t *n) {
    const uint8_t *p;
    PK_FORWARD(pk_tc_binary(&d->tc, type, &p, n));
    uint8_t *copy = pk_arena_alloc(d->ar, *n ? *n : 1);
    if (!copy) return dec_oom(d, *n);
    if (*n) memcpy(copy, p, *n);
    *out = copy;
    return PLANK_OK;
}

static plank_status rd_string(pk_dec *d, int type, const char **out) {
    const uint8_t *p;
    uint32_t n;
    PK_FORWARD(pk_tc_binary(&d->tc, type, &p, &n));
    char *s = pk_arena_strndup(d->ar, (const char *)p, n);
    if (!s) return dec_oom(d, n);
    *out = s;
    return PLANK_OK;
}

/* An empty marker struct (StringType, TypeDefinedOrder, ...): its contents,
 * which a newer format version might add, are skipped. */
static plank_status rd_marker(pk_dec *d, int type) {
    if (type != PK_TC_STRUCT)
        return pk_tc_fail(&d->tc, d->tc.pos, "expected a struct union member");
    return pk_tc_skip(&d->tc, type);
}

typedef plank_status (*pk_elem_fn)(pk_dec *d, int type, void *out);

/* Decodes a list into an arena array. The array grows by doubling as
 * elements are decoded (the arena wastes at most the final size), so a
 * list claiming many elements costs memory only for the ones present. */
static plank_status rd_list_max(pk_dec *d, int type, size_t elem_size, pk_elem_fn fn,
                                void **out, int32_t *count, uint32_t max, const char *what) {
    pk_tc *r = &d->tc;
    int et;
    uint32_t n;
    PK_FORWARD(pk_tc_enter(r, type, PK_TC_LIST, "list"));
    size_t at = r->pos;
    PK_FORWARD(pk_tc_list_header(r, &et, &n));
    if (n > max) {
        pk_error_set(r->err, PLANK_ERR_LIMIT, "the list claims %u %s, above the limit of %u", n,
                     what, max);
        pk_error_locate(r->err, (int64_t)at, -1, -1, -1);
        return PLANK_ERR_LIMIT;
    }
    uint8_t *arr = NULL;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == cap) {
            uint32_t ncap = cap == 0 ? (n < 16 ? n : 16) : (cap > n / 2 ? n : cap * 2);
            uint64_t bytes;
            if (pk_mul_overflow_u64(ncap, elem_size, &bytes) || bytes > SIZE_MAX)
                return dec_oom(d, SIZE_MAX);
            uint8_t *grown = pk_arena_alloc(d->ar, (size_t)bytes);
            if (!grown) return dec_oom(d, (size_t)bytes);
            if (i) memcpy(grown, arr, (size_t)i * elem_size);
            arr = grown;
            cap = ncap;
        }
        plank_status st = fn(d, et, arr + (size_t)i * elem_size);
        if (st != PLANK_OK) {
            pk_error_prefix(r->err, "element %u", i);
            return st;
        }
    }
    pk_tc_leave(r);
    *out = arr;
    *count = (int32_t)n;
    return PLANK_OK;
}

static plank_status rd_list(pk_dec *d, int type, size_t elem_size, pk_elem_fn fn, void **out,
                            int32_t *count) {
    return rd_list_max(d, type, elem_size, fn, out, count, UINT32_MAX, "list");
}

static plank_status elem_i64(pk_dec *d, int type, void *out) {
    return rd_i64(d, type, INT64_MIN, out);
}

static plank_status elem_encoding(pk_dec *d, int type, void *out) {
    int32_t v = 0;
    PK_FORWARD(rd_enum(d, type, &v));
    *(plank_encoding *)out = (plank_encoding)v;
    return PLANK_OK;
}

/* ---- Small structs ---------------------------------------------------------- */

static plank_status rd_key_value(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"key", W_BIN}, {"value", W_BIN}};
    plank_key_value *kv = out;
    kv->key = "";
    kv->value = NULL;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "KeyValue", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_string(d, f.type, &kv->key); break;
        case 2: st = rd_string(d, f.type, &kv->value); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1));
}

static plank_status rd_sorting_column(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"column_idx", W_INT}, {"descending", W_BOOL}, {"nulls_first", W_BOOL}};
    plank_sorting_column *sc = out;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "SortingColumn", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, 0, &sc->column); break;
        case 2: st = pk_tc_bool(&d->tc, f.type, &sc->descending); break;
        case 3: st = pk_tc_bool(&d->tc, f.type, &sc->nulls_first); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3));
}

static plank_status rd_encoding_stat(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"page_type", W_INT}, {"encoding", W_INT}, {"count", W_INT}};
    plank_encoding_stat *es = out;
    pk_fields f;
    int32_t v = 0;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "PageEncodingStats", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1:
            st = rd_enum(d, f.type, &v);
            es->page_type = (plank_page_type)v;
            break;
        case 2:
            st = rd_enum(d, f.type, &v);
            es->encoding = (plank_encoding)v;
            break;
        case 3: st = rd_i32(d, f.type, 0, &es->count); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3));
}

/* A ColumnOrder union: its member id - 1 (0 = TYPE_ORDER, 1 =
 * IEEE_754_TOTAL_ORDER, 2 = INT96_TIMESTAMP_ORDER), -1 for a member this
 * version does not know (the reader then ignores min/max). */
static plank_status rd_column_order(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"TYPE_ORDER", W_STRUCT}, {"IEEE_754_TOTAL_ORDER", W_STRUCT},
        {"INT96_TIMESTAMP_ORDER", W_STRUCT}};
    int32_t *order = out;
    *order = -1;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "ColumnOrder", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        if (f.id >= 1 && f.id <= 3) {
            st = rd_marker(d, f.type);
            *order = f.id - 1;
        } else {
            st = pk_tc_skip(&d->tc, f.type);
            *order = -1;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return PLANK_OK;
}

/* ---- Statistics ---------------------------------------------------------------- */

static plank_status rd_statistics(pk_dec *d, int type, plank_statistics *s) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"max", W_BIN}, {"min", W_BIN}, {"null_count", W_INT},
        {"distinct_count", W_INT}, {"max_value", W_BIN}, {"min_value", W_BIN},
        {"is_max_value_exact", W_BOOL}, {"is_min_value_exact", W_BOOL}, {"nan_count", W_INT}};
    const uint8_t *old_min = NULL, *old_max = NULL;
    uint32_t old_min_len = 0, old_max_len = 0;
    int64_t v = 0;
    memset(s, 0, sizeof *s);
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "Statistics", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_bytes(d, f.type, &old_max, &old_max_len); break;
        case 2: st = rd_bytes(d, f.type, &old_min, &old_min_len); break;
        /* Counts: a negative one carries no information and is treated as
         * absent (the format says readers must not assume a value then). */
        case 3:
            st = rd_i64(d, f.type, INT64_MIN, &v);
            s->has_null_count = v >= 0;
            s->null_count = v >= 0 ? v : 0;
            break;
        case 4:
            st = rd_i64(d, f.type, INT64_MIN, &v);
            s->has_distinct_count = v >= 0;
            s->distinct_count = v >= 0 ? v : 0;
            break;
        case 5: st = rd_bytes(d, f.type, &s->max, &s->max_len); s->has_max = true; break;
        case 6: st = rd_bytes(d, f.type, &s->min, &s->min_len); s->has_min = true; break;
        case 7:
            st = pk_tc_bool(&d->tc, f.type, &s->is_max_exact);
            s->has_is_max_exact = true;
            break;
        case 8:
            st = pk_tc_bool(&d->tc, f.type, &s->is_min_exact);
            s->has_is_min_exact = true;
            break;
        case 9:
            st = rd_i64(d, f.type, INT64_MIN, &v);
            s->has_nan_count = v >= 0;
            s->nan_count = v >= 0 ? v : 0;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    /* The old fields use signed order whatever the column order: only used
     * when the file has neither new field, and flagged so the reader can
     * decide whether they are trustworthy for the column's type. */
    if (!s->has_min && !s->has_max && (old_min || old_max)) {
        s->min_max_deprecated = true;
        s->has_min = old_min != NULL;
        s->min = old_min;
        s->min_len = old_min_len;
        s->has_max = old_max != NULL;
        s->max = old_max;
        s->max_len = old_max_len;
    }
    return PLANK_OK;
}

static plank_status rd_size_statistics(pk_dec *d, int type, plank_column_chunk_info *cc) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"unencoded_byte_array_data_bytes", W_INT},
        {"repetition_level_histogram", W_LIST}, {"definition_level_histogram", W_LIST}};
    void *arr = NULL;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "SizeStatistics", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i64(d, f.type, 0, &cc->unencoded_byte_array_data_bytes); break;
        case 2:
            st = rd_list(d, f.type, sizeof(int64_t), elem_i64, &arr,
                         &cc->num_repetition_level_histogram);
            cc->repetition_level_histogram = arr;
            break;
        case 3:
            st = rd_list(d, f.type, sizeof(int64_t), elem_i64, &arr,
                         &cc->num_definition_level_histogram);
            cc->definition_level_histogram = arr;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return PLANK_OK;
}

/* Geometry type codes: unique values (Geospatial.md), so a valid list holds
 * at most the ISO WKB kinds (1..17) in 4 dimensions; this bound leaves room
 * for codes the format may add and refuses counts no valid writer produces. */
#define PK_GEO_MAX_TYPES 1024

static plank_status elem_geo_type(pk_dec *d, int type, void *out) {
    return rd_i32(d, type, 0, out);
}

static plank_status rd_bounding_box(pk_dec *d, int type, plank_geospatial_statistics *g) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE},     {"xmin", W_DOUBLE}, {"xmax", W_DOUBLE}, {"ymin", W_DOUBLE},
        {"ymax", W_DOUBLE}, {"zmin", W_DOUBLE}, {"zmax", W_DOUBLE}, {"mmin", W_DOUBLE},
        {"mmax", W_DOUBLE}};
    double v[9] = {0};
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "BoundingBox", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        if (f.id >= 1 && f.id <= 8) st = pk_tc_double(&d->tc, f.type, &v[f.id]);
        else st = pk_tc_skip(&d->tc, f.type);
        PK_FORWARD(fields_done(d, &f, st));
    }
    PK_FORWARD(fields_require(d, &f, REQ(1) | REQ(2) | REQ(3) | REQ(4)));
    g->has_bbox = true;
    g->xmin = v[1];
    g->xmax = v[2];
    g->ymin = v[3];
    g->ymax = v[4];
    g->has_z = (f.seen & (REQ(5) | REQ(6))) == (REQ(5) | REQ(6));
    g->zmin = g->has_z ? v[5] : 0;
    g->zmax = g->has_z ? v[6] : 0;
    g->has_m = (f.seen & (REQ(7) | REQ(8))) == (REQ(7) | REQ(8));
    g->mmin = g->has_m ? v[7] : 0;
    g->mmax = g->has_m ? v[8] : 0;
    return PLANK_OK;
}

static plank_status rd_geospatial_statistics(pk_dec *d, int type, plank_column_chunk_info *cc) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"bbox", W_STRUCT}, {"geospatial_types", W_LIST}};
    plank_geospatial_statistics *g = &cc->geospatial_statistics;
    memset(g, 0, sizeof *g);
    void *arr = NULL;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "GeospatialStatistics", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_bounding_box(d, f.type, g); break;
        case 2:
            st = rd_list_max(d, f.type, sizeof(int32_t), elem_geo_type, &arr,
                             &g->num_geospatial_types, PK_GEO_MAX_TYPES, "geometry type codes");
            g->geospatial_types = arr;
            g->has_geospatial_types = st == PLANK_OK;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    cc->has_geospatial_statistics = true;
    return PLANK_OK;
}

/* ---- Column chunks ---------------------------------------------------------------- */

static plank_status rd_column_metadata(pk_dec *d, int type, plank_column_chunk_info *cc) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"type", W_INT}, {"encodings", W_LIST}, {"path_in_schema", W_LIST},
        {"codec", W_INT}, {"num_values", W_INT}, {"total_uncompressed_size", W_INT},
        {"total_compressed_size", W_INT}, {"key_value_metadata", W_LIST},
        {"data_page_offset", W_INT}, {"index_page_offset", W_INT},
        {"dictionary_page_offset", W_INT}, {"statistics", W_STRUCT},
        {"encoding_stats", W_LIST}, {"bloom_filter_offset", W_INT},
        {"bloom_filter_length", W_INT}, {"size_statistics", W_STRUCT},
        {"geospatial_statistics", W_STRUCT}};
    void *arr = NULL;
    int32_t v = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "ColumnMetaData", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1:
            st = rd_enum(d, f.type, &v);
            cc->physical_type = (plank_physical_type)v;
            break;
        case 2:
            st = rd_list(d, f.type, sizeof(plank_encoding), elem_encoding, &arr,
                         &cc->num_encodings);
            cc->encodings = arr;
            break;
        case 3:
            /* The reader derives paths from the schema. */
            st = pk_tc_skip(&d->tc, f.type);
            break;
        case 4:
            st = rd_enum(d, f.type, &v);
            cc->codec = (plank_codec)v;
            break;
        case 5: st = rd_i64(d, f.type, 0, &cc->num_values); break;
        case 6: st = rd_i64(d, f.type, 0, &cc->total_uncompressed_size); break;
        case 7: st = rd_i64(d, f.type, 0, &cc->total_compressed_size); break;
        case 8:
            st = rd_list(d, f.type, sizeof(plank_key_value), rd_key_value, &arr,
                         &cc->num_key_values);
            cc->key_values = arr;
            break;
        case 9: st = rd_i64(d, f.type, 0, &cc->data_page_offset); break;
        case 10: st = rd_i64(d, f.type, 0, &cc->index_page_offset); break;
        case 11: st = rd_i64(d, f.type, 0, &cc->dictionary_page_offset); break;
        case 12:
            st = rd_statistics(d, f.type, &cc->statistics);
            cc->has_statistics = true;
            break;
        case 13:
            st = rd_list(d, f.type, sizeof(plank_encoding_stat), rd_encoding_stat, &arr,
                         &cc->num_encoding_stats);
            cc->encoding_stats = arr;
            break;
        case 14: st = rd_i64(d, f.type, 0, &cc->bloom_filter_offset); break;
        case 15: st = rd_i32(d, f.type, 0, &cc->bloom_filter_length); break;
        case 16: st = rd_size_statistics(d, f.type, cc); break;
        case 17: st = rd_geospatial_statistics(d, f.type, cc); break;
        default: st = pk_tc_skip(&d->tc, f.type); break; /* 18 and newer */
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f,
                          REQ(1) | REQ(2) | REQ(3) | REQ(4) | REQ(5) | REQ(6) | REQ(7) | REQ(9));
}

static void column_chunk_defaults(plank_column_chunk_info *cc, int32_t column) {
    memset(cc, 0, sizeof *cc);
    cc->column = column;
    cc->physical_type = PLANK_PHYSICAL_NONE;
    cc->data_page_offset = -1;
    cc->index_page_offset = -1;
    cc->dictionary_page_offset = -1;
    cc->bloom_filter_offset = -1;
    cc->column_index_offset = -1;
    cc->offset_index_offset = -1;
    cc->bloom_filter_length = -1;
    cc->column_index_length = -1;
    cc->offset_index_length = -1;
    cc->unencoded_byte_array_data_bytes = -1;
}

static plank_status rd_column_chunk(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"file_path", W_BIN}, {"file_offset", W_INT}, {"meta_data", W_STRUCT},
        {"offset_index_offset", W_INT}, {"offset_index_length", W_INT},
        {"column_index_offset", W_INT}, {"column_index_length", W_INT},
        {"crypto_metadata", W_STRUCT}, {"encrypted_column_metadata", W_BIN}};
    plank_column_chunk_info *cc = out;
    int64_t ignored;
    column_chunk_defaults(cc, -1);
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "ColumnChunk", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_string(d, f.type, &cc->file_path); break;
        case 2: st = rd_i64(d, f.type, INT64_MIN, &ignored); break; /* deprecated */
        case 3: st = rd_column_metadata(d, f.type, cc); break;
        case 4: st = rd_i64(d, f.type, 0, &cc->offset_index_offset); break;
        case 5: st = rd_i32(d, f.type, 0, &cc->offset_index_length); break;
        case 6: st = rd_i64(d, f.type, 0, &cc->column_index_offset); break;
        case 7: st = rd_i32(d, f.type, 0, &cc->column_index_length); break;
        case 8:
        case 9:
            cc->encrypted = true;
            st = pk_tc_skip(&d->tc, f.type);
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return PLANK_OK;
}

static plank_status rd_row_group(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"columns", W_LIST}, {"total_byte_size", W_INT}, {"num_rows", W_INT},
        {"sorting_columns", W_LIST}, {"file_offset", W_INT}, {"total_compressed_size", W_INT},
        {"ordinal", W_INT}};
    pk_row_group *rg = out;
    plank_row_group_info *info = &rg->info;
    void *arr = NULL;
    int64_t v = 0;
    memset(rg, 0, sizeof *rg);
    info->total_compressed_size = -1;
    info->file_offset = -1;
    info->ordinal = -1;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "RowGroup", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1:
            st = rd_list_max(d, f.type, sizeof(plank_column_chunk_info), rd_column_chunk, &arr,
                         &rg->num_columns, d->max_schema,
                             "columns in a row group");
            rg->columns = arr;
            for (int32_t i = 0; st == PLANK_OK && i < rg->num_columns; i++)
                rg->columns[i].column = i;
            break;
        case 2: st = rd_i64(d, f.type, 0, &info->total_byte_size); break;
        case 3: st = rd_i64(d, f.type, 0, &info->num_rows); break;
        case 4:
            st = rd_list(d, f.type, sizeof(plank_sorting_column), rd_sorting_column, &arr,
                         &info->num_sorting_columns);
            info->sorting_columns = arr;
            break;
        case 5: st = rd_i64(d, f.type, 0, &info->file_offset); break;
        case 6: st = rd_i64(d, f.type, 0, &info->total_compressed_size); break;
        case 7:
            /* i16 on the wire; writers with > 32767 row groups wrapped it. */
            st = pk_tc_int(&d->tc, f.type, INT16_MIN, INT16_MAX, &v);
            info->ordinal = (int32_t)v;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3));
}

/* ---- Schema ------------------------------------------------------------------ */

/* TimeUnit union: sets *unit, or returns with *known false for a member this
 * version does not know. */
static plank_status rd_time_unit(pk_dec *d, int type, plank_time_unit *unit, bool *known) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"MILLIS", W_STRUCT}, {"MICROS", W_STRUCT}, {"NANOS", W_STRUCT}};
    int members = 0;
    *known = false;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "TimeUnit", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        members++;
        if (f.id >= 1 && f.id <= 3) {
            st = rd_marker(d, f.type);
            *unit = f.id == 1 ? PLANK_UNIT_MILLIS : f.id == 2 ? PLANK_UNIT_MICROS
                                                              : PLANK_UNIT_NANOS;
            *known = true;
        } else {
            st = pk_tc_skip(&d->tc, f.type);
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    if (members != 1)
        return pk_tc_fail(&d->tc, f.start, "TimeUnit: union has %d members", members);
    return PLANK_OK;
}

/* TimeType and TimestampType share their fields. */
static plank_status rd_time_type(pk_dec *d, int type, const char *name, plank_logical_type *lt) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"isAdjustedToUTC", W_BOOL}, {"unit", W_STRUCT}};
    bool known = true;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, name, names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = pk_tc_bool(&d->tc, f.type, &lt->is_adjusted_to_utc); break;
        case 2: st = rd_time_unit(d, f.type, &lt->unit, &known); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    PK_FORWARD(fields_require(d, &f, REQ(1) | REQ(2)));
    /* A unit from a newer format makes the whole type unreadable here. */
    if (!known) lt->kind = PLANK_LOGICAL_UNRECOGNIZED;
    return PLANK_OK;
}

static plank_status rd_decimal_type(pk_dec *d, int type, plank_logical_type *lt) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"scale", W_INT}, {"precision", W_INT}};
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "DecimalType", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, 0, &lt->scale); break;
        case 2: st = rd_i32(d, f.type, 1, &lt->precision); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2));
}

static plank_status rd_int_type(pk_dec *d, int type, plank_logical_type *lt) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"bitWidth", W_INT}, {"isSigned", W_BOOL}};
    int64_t v = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "IntType", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1:
            st = pk_tc_int(&d->tc, f.type, INT8_MIN, INT8_MAX, &v);
            if (st == PLANK_OK && v != 8 && v != 16 && v != 32 && v != 64)
                st = pk_tc_fail(&d->tc, d->tc.pos, "bit width %d is not 8, 16, 32 or 64",
                                (int)v);
            lt->bit_width = (int8_t)v;
            break;
        case 2: st = pk_tc_bool(&d->tc, f.type, &lt->is_signed); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2));
}

static plank_status rd_variant_type(pk_dec *d, int type, plank_logical_type *lt) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"specification_version", W_INT}};
    int64_t v = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "VariantType", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        if (f.id == 1) {
            st = pk_tc_int(&d->tc, f.type, 0, INT8_MAX, &v);
            lt->variant_version = (int32_t)v;
        } else {
            st = pk_tc_skip(&d->tc, f.type);
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return PLANK_OK;
}

/* GeometryType (crs) and GeographyType (crs, algorithm). */
static plank_status rd_geo_type(pk_dec *d, int type, const char *name, plank_logical_type *lt) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"crs", W_BIN}, {"algorithm", W_INT}};
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, name, names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        if (f.id == 1)
            st = rd_string(d, f.type, &lt->crs);
        else if (f.id == 2 && lt->kind == PLANK_LOGICAL_GEOGRAPHY)
            st = rd_enum(d, f.type, &lt->edge_algorithm);
        else
            st = pk_tc_skip(&d->tc, f.type);
        PK_FORWARD(fields_done(d, &f, st));
    }
    return PLANK_OK;
}

/* The LogicalType union. Members without parameters are marker structs. */
static plank_status rd_logical_type(pk_dec *d, int type, plank_logical_type *lt) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"STRING", W_STRUCT}, {"MAP", W_STRUCT}, {"LIST", W_STRUCT},
        {"ENUM", W_STRUCT}, {"DECIMAL", W_STRUCT}, {"DATE", W_STRUCT}, {"TIME", W_STRUCT},
        {"TIMESTAMP", W_STRUCT}, {NULL, W_NONE}, {"INTEGER", W_STRUCT}, {"UNKNOWN", W_STRUCT},
        {"JSON", W_STRUCT}, {"BSON", W_STRUCT}, {"UUID", W_STRUCT}, {"FLOAT16", W_STRUCT},
        {"VARIANT", W_STRUCT}, {"GEOMETRY", W_STRUCT}, {"GEOGRAPHY", W_STRUCT}};
    static const plank_logical_kind markers[] = {
        [1] = PLANK_LOGICAL_STRING, [2] = PLANK_LOGICAL_MAP,      [3] = PLANK_LOGICAL_LIST,
        [4] = PLANK_LOGICAL_ENUM,   [6] = PLANK_LOGICAL_DATE,     [11] = PLANK_LOGICAL_UNKNOWN,
        [12] = PLANK_LOGICAL_JSON,  [13] = PLANK_LOGICAL_BSON,    [14] = PLANK_LOGICAL_UUID,
        [15] = PLANK_LOGICAL_FLOAT16};
    int members = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "LogicalType", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        if (++members > 1)
            return pk_tc_fail(&d->tc, f.start, "LogicalType: union has more than one member");
        switch (f.id) {
        case 5:
            lt->kind = PLANK_LOGICAL_DECIMAL;
            st = rd_decimal_type(d, f.type, lt);
            break;
        case 7:
            lt->kind = PLANK_LOGICAL_TIME;
            st = rd_time_type(d, f.type, "TimeType", lt);
            break;
        case 8:
            lt->kind = PLANK_LOGICAL_TIMESTAMP;
            st = rd_time_type(d, f.type, "TimestampType", lt);
            break;
        case 10:
            lt->kind = PLANK_LOGICAL_INTEGER;
            st = rd_int_type(d, f.type, lt);
            break;
        case 16:
            lt->kind = PLANK_LOGICAL_VARIANT;
            st = rd_variant_type(d, f.type, lt);
            break;
        case 17:
            lt->kind = PLANK_LOGICAL_GEOMETRY;
            st = rd_geo_type(d, f.type, "GeometryType", lt);
            break;
        case 18:
            lt->kind = PLANK_LOGICAL_GEOGRAPHY;
            st = rd_geo_type(d, f.type, "GeographyType", lt);
            break;
        default:
            if (f.id > 0 && (size_t)f.id < sizeof markers / sizeof markers[0] &&
                markers[f.id] != PLANK_LOGICAL_NONE) {
                lt->kind = markers[f.id];
                st = rd_marker(d, f.type);
            } else {
                /* A member from a newer format (or a reserved id). */
                lt->kind = PLANK_LOGICAL_UNRECOGNIZED;
                st = pk_tc_skip(&d->tc, f.type);
            }
            break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return PLANK_OK;
}

static plank_status rd_schema_element(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"type", W_INT}, {"type_length", W_INT}, {"repetition_type", W_INT},
        {"name", W_BIN}, {"num_children", W_INT}, {"converted_type", W_INT}, {"scale", W_INT},
        {"precision", W_INT}, {"field_id", W_INT}, {"logicalType", W_STRUCT}};
    pk_schema_element *se = out;
    memset(se, 0, sizeof *se);
    se->name = "";
    se->type = -1;
    se->type_length = -1;
    se->repetition = -1;
    se->num_children = -1;
    se->converted_type = -1;
    se->scale = -1;
    se->precision = -1;
    se->logical.kind = PLANK_LOGICAL_NONE;
    se->logical.edge_algorithm = -1;
    se->logical.variant_version = -1;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "SchemaElement", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_enum(d, f.type, &se->type); break;
        case 2: st = rd_i32(d, f.type, 0, &se->type_length); break;
        case 3: st = rd_enum(d, f.type, &se->repetition); break;
        case 4: st = rd_string(d, f.type, &se->name); break;
        case 5: st = rd_i32(d, f.type, 0, &se->num_children); break;
        case 6: st = rd_enum(d, f.type, &se->converted_type); break;
        case 7: st = rd_i32(d, f.type, INT32_MIN, &se->scale); break;
        case 8: st = rd_i32(d, f.type, INT32_MIN, &se->precision); break;
        case 9:
            st = rd_i32(d, f.type, INT32_MIN, &se->field_id);
            se->has_field_id = true;
            break;
        case 10:
            st = rd_logical_type(d, f.type, &se->logical);
            se->has_logical_type = true;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(4));
}

/* ---- FileMetaData ------------------------------------------------------------ */

static plank_status rd_file_metadata(pk_dec *d, pk_file_metadata *md) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"version", W_INT}, {"schema", W_LIST}, {"num_rows", W_INT},
        {"row_groups", W_LIST}, {"key_value_metadata", W_LIST}, {"created_by", W_BIN},
        {"column_orders", W_LIST}, {"encryption_algorithm", W_STRUCT},
        {"footer_signing_key_metadata", W_BIN}};
    void *arr = NULL;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, PK_TC_STRUCT, "FileMetaData", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, INT32_MIN, &md->version); break;
        case 2:
            st = rd_list_max(d, f.type, sizeof(pk_schema_element), rd_schema_element, &arr,
                         &md->num_schema, d->max_schema,
                             "schema elements");
            md->schema = arr;
            if (st == PLANK_OK && md->num_schema == 0)
                st = pk_tc_fail(&d->tc, d->tc.pos, "schema has no root element");
            break;
        case 3: st = rd_i64(d, f.type, 0, &md->num_rows); break;
        case 4:
            st = rd_list_max(d, f.type, sizeof(pk_row_group), rd_row_group, &arr,
                         &md->num_row_groups, d->max_row_groups,
                             "row groups");
            md->row_groups = arr;
            break;
        case 5:
            st = rd_list(d, f.type, sizeof(plank_key_value), rd_key_value, &arr,
                         &md->num_key_values);
            md->key_values = arr;
            break;
        case 6: st = rd_string(d, f.type, &md->created_by); break;
        case 7:
            st = rd_list(d, f.type, sizeof(int32_t), rd_column_order, &arr,
                         &md->num_column_orders);
            md->column_orders = arr;
            break;
        case 8:
            md->has_encryption_algorithm = true;
            st = pk_tc_skip(&d->tc, f.type);
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break; /* 9 and newer */
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3) | REQ(4));
}

plank_status pk_thrift_read_file_metadata(const uint8_t *buf, size_t len,
                                          const plank_allocator *alloc, pk_file_metadata *out,
                                          plank_error *err) {
    return pk_thrift_read_file_metadata_limited(buf, len, alloc, INT32_MAX, INT32_MAX, out, err);
}

plank_status pk_thrift_read_file_metadata_limited(const uint8_t *buf, size_t len,
                                                  const plank_allocator *alloc,
                                                  int32_t max_schema, int32_t max_row_groups,
                                                  pk_file_metadata *out, plank_error *err) {
    if (!out || (!buf && len))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "FileMetaData: no buffer");
    memset(out, 0, sizeof *out);
    pk_arena_init(&out->arena, alloc);
    pk_dec d = {0};
    pk_tc_init(&d.tc, buf, len, err);
    d.ar = &out->arena;
    d.max_schema = max_schema > 0 ? (uint32_t)max_schema : 0;
    d.max_row_groups = max_row_groups > 0 ? (uint32_t)max_row_groups : 0;
    plank_status st = rd_file_metadata(&d, out);
    if (st != PLANK_OK) pk_file_metadata_free(out);
    return st;
}

void pk_file_metadata_free(pk_file_metadata *md) {
    if (!md) return;
    pk_arena arena = md->arena;
    pk_arena_reset(&arena);
    memset(md, 0, sizeof *md);
    md->arena = arena;
}

/* ---- PageHeader ------------------------------------------------------------------ */

static plank_status rd_data_page_header(pk_dec *d, int type, pk_page_header *h) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"num_values", W_INT}, {"encoding", W_INT},
        {"definition_level_encoding", W_INT}, {"repetition_level_encoding", W_INT},
        {"statistics", W_STRUCT}};
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "DataPageHeader", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, 0, &h->num_values); break;
        case 2: st = rd_enum(d, f.type, &h->encoding); break;
        case 3: st = rd_enum(d, f.type, &h->definition_level_encoding); break;
        case 4: st = rd_enum(d, f.type, &h->repetition_level_encoding); break;
        default: st = pk_tc_skip(&d->tc, f.type); break; /* 5: statistics */
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3) | REQ(4));
}

static plank_status rd_data_page_header_v2(pk_dec *d, int type, pk_page_header *h) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"num_values", W_INT}, {"num_nulls", W_INT}, {"num_rows", W_INT},
        {"encoding", W_INT}, {"definition_levels_byte_length", W_INT},
        {"repetition_levels_byte_length", W_INT}, {"is_compressed", W_BOOL},
        {"statistics", W_STRUCT}};
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "DataPageHeaderV2", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, 0, &h->num_values); break;
        case 2: st = rd_i32(d, f.type, 0, &h->num_nulls); break;
        case 3: st = rd_i32(d, f.type, 0, &h->num_rows); break;
        case 4: st = rd_enum(d, f.type, &h->encoding); break;
        case 5: st = rd_i32(d, f.type, 0, &h->definition_levels_byte_length); break;
        case 6: st = rd_i32(d, f.type, 0, &h->repetition_levels_byte_length); break;
        case 7: st = pk_tc_bool(&d->tc, f.type, &h->is_compressed); break;
        default: st = pk_tc_skip(&d->tc, f.type); break; /* 8: statistics */
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3) | REQ(4) | REQ(5) | REQ(6));
}

static plank_status rd_dictionary_page_header(pk_dec *d, int type, pk_page_header *h) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"num_values", W_INT}, {"encoding", W_INT}, {"is_sorted", W_BOOL}};
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "DictionaryPageHeader", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, 0, &h->dict_num_values); break;
        case 2: st = rd_enum(d, f.type, &h->dict_encoding); break;
        case 3: st = pk_tc_bool(&d->tc, f.type, &h->dict_is_sorted); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2));
}

static plank_status rd_page_header(pk_dec *d, pk_page_header *h) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"type", W_INT}, {"uncompressed_page_size", W_INT},
        {"compressed_page_size", W_INT}, {"crc", W_INT}, {"data_page_header", W_STRUCT},
        {"index_page_header", W_STRUCT}, {"dictionary_page_header", W_STRUCT},
        {"data_page_header_v2", W_STRUCT}};
    int32_t crc = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, PK_TC_STRUCT, "PageHeader", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_enum(d, f.type, &h->type); break;
        case 2: st = rd_i32(d, f.type, 0, &h->uncompressed_page_size); break;
        case 3: st = rd_i32(d, f.type, 0, &h->compressed_page_size); break;
        case 4:
            st = rd_i32(d, f.type, INT32_MIN, &crc);
            h->crc = (uint32_t)crc;
            h->has_crc = true;
            break;
        case 5:
            st = rd_data_page_header(d, f.type, h);
            h->has_data_header = true;
            break;
        case 7:
            st = rd_dictionary_page_header(d, f.type, h);
            h->has_dictionary_header = true;
            break;
        case 8:
            st = rd_data_page_header_v2(d, f.type, h);
            h->has_data_header_v2 = true;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break; /* 6: index_page_header */
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3));
}

plank_status pk_thrift_read_page_header(const uint8_t *buf, size_t len, pk_page_header *out,
                                        size_t *header_len, plank_error *err) {
    if (!out || !header_len || (!buf && len))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "PageHeader: no buffer");
    memset(out, 0, sizeof *out);
    out->is_compressed = true;
    out->definition_level_encoding = -1;
    out->repetition_level_encoding = -1;
    out->encoding = -1;
    out->dict_encoding = -1;
    pk_dec d = {0};
    pk_tc_init(&d.tc, buf, len, err);
    d.ar = NULL;
    PK_FORWARD(rd_page_header(&d, out));
    *header_len = d.tc.pos;
    return PLANK_OK;
}

/* ---- ColumnIndex and OffsetIndex -------------------------------------------------- */

typedef struct pk_bytes {
    const uint8_t *data;
    uint32_t len;
} pk_bytes;

static plank_status elem_bool(pk_dec *d, int type, void *out) {
    return pk_tc_elem_bool(&d->tc, type, out);
}

static plank_status elem_bytes(pk_dec *d, int type, void *out) {
    pk_bytes *b = out;
    return rd_bytes(d, type, &b->data, &b->len);
}

static plank_status elem_count(pk_dec *d, int type, void *out) {
    return rd_i64(d, type, INT64_MIN, out);
}

/* A count list with a negative entry carries no information (writers put
 * -1 for "unknown", as in Statistics) and reads as absent. */
static void drop_if_negative(const int64_t **list, int32_t *n) {
    for (int32_t i = 0; *list && i < *n; i++) {
        if ((*list)[i] < 0) {
            *list = NULL;
            *n = 0;
        }
    }
}

/* A per-page list must have one entry per page. */
static plank_status check_pages(pk_dec *d, const pk_fields *f, const char *list, int32_t n,
                                int32_t num_pages) {
    if (n == num_pages) return PLANK_OK;
    return pk_tc_fail(&d->tc, f->start, "%s: %s has %d entries for %d pages", f->name, list,
                      (int)n, (int)num_pages);
}

/* A histogram list holds num_pages histograms of the same length. */
static plank_status check_histograms(pk_dec *d, const pk_fields *f, const char *list,
                                     int32_t n, int32_t num_pages) {
    if (num_pages > 0 ? n % num_pages == 0 : n == 0) return PLANK_OK;
    return pk_tc_fail(&d->tc, f->start, "%s: %s has %d entries, not a multiple of %d pages",
                      f->name, list, (int)n, (int)num_pages);
}

/* Splits (data, len) pairs into the parallel arrays plank_column_index holds. */
static plank_status split_bytes(pk_dec *d, const pk_bytes *b, int32_t n,
                                const uint8_t *const **values, const uint32_t **lens) {
    *values = NULL;
    *lens = NULL;
    if (n == 0) return PLANK_OK;
    const uint8_t **v = pk_arena_alloc(d->ar, sizeof *v * (size_t)n);
    uint32_t *l = pk_arena_alloc(d->ar, sizeof *l * (size_t)n);
    if (!v || !l) return dec_oom(d, (sizeof *v + sizeof *l) * (size_t)n);
    for (int32_t i = 0; i < n; i++) {
        v[i] = b[i].data;
        l[i] = b[i].len;
    }
    *values = v;
    *lens = l;
    return PLANK_OK;
}

static plank_status rd_column_index(pk_dec *d, void *out) {
    plank_column_index *ci = out;
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"null_pages", W_LIST}, {"min_values", W_LIST}, {"max_values", W_LIST},
        {"boundary_order", W_INT}, {"null_counts", W_LIST},
        {"repetition_level_histograms", W_LIST}, {"definition_level_histograms", W_LIST},
        {"nan_counts", W_LIST}};
    void *arr = NULL;
    pk_bytes *mins = NULL, *maxs = NULL;
    int32_t num_mins = 0, num_maxs = 0, num_null_counts = 0, order = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, PK_TC_STRUCT, "ColumnIndex", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1:
            st = rd_list(d, f.type, sizeof(bool), elem_bool, &arr, &ci->num_pages);
            ci->null_pages = arr;
            break;
        case 2:
            st = rd_list(d, f.type, sizeof(pk_bytes), elem_bytes, &arr, &num_mins);
            mins = arr;
            break;
        case 3:
            st = rd_list(d, f.type, sizeof(pk_bytes), elem_bytes, &arr, &num_maxs);
            maxs = arr;
            break;
        case 4:
            st = rd_enum(d, f.type, &order);
            /* An order from a newer format promises nothing this version knows. */
            ci->boundary_order = order <= PLANK_BOUNDARY_DESCENDING ? (plank_boundary_order)order
                                                                    : PLANK_BOUNDARY_UNORDERED;
            break;
        case 5:
            st = rd_list(d, f.type, sizeof(int64_t), elem_count, &arr, &num_null_counts);
            ci->null_counts = arr;
            break;
        case 6:
            st = rd_list(d, f.type, sizeof(int64_t), elem_count, &arr,
                         &ci->num_repetition_level_histograms);
            ci->repetition_level_histograms = arr;
            break;
        case 7:
            st = rd_list(d, f.type, sizeof(int64_t), elem_count, &arr,
                         &ci->num_definition_level_histograms);
            ci->definition_level_histograms = arr;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break; /* 8: nan_counts */
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    PK_FORWARD(fields_require(d, &f, REQ(1) | REQ(2) | REQ(3) | REQ(4)));
    PK_FORWARD(check_pages(d, &f, "min_values", num_mins, ci->num_pages));
    PK_FORWARD(check_pages(d, &f, "max_values", num_maxs, ci->num_pages));
    if (f.seen & REQ(5))
        PK_FORWARD(check_pages(d, &f, "null_counts", num_null_counts, ci->num_pages));
    PK_FORWARD(check_histograms(d, &f, "repetition_level_histograms",
                                ci->num_repetition_level_histograms, ci->num_pages));
    PK_FORWARD(check_histograms(d, &f, "definition_level_histograms",
                                ci->num_definition_level_histograms, ci->num_pages));
    drop_if_negative(&ci->null_counts, &num_null_counts);
    drop_if_negative(&ci->repetition_level_histograms, &ci->num_repetition_level_histograms);
    drop_if_negative(&ci->definition_level_histograms, &ci->num_definition_level_histograms);
    PK_FORWARD(split_bytes(d, mins, num_mins, &ci->min_values, &ci->min_lens));
    return split_bytes(d, maxs, num_maxs, &ci->max_values, &ci->max_lens);
}

/* Runs a page-index decoder with allocations in `arena`; *out (size bytes)
 * is zeroed before and again on failure. */
static plank_status rd_index(const uint8_t *buf, size_t len, pk_arena *arena,
                             plank_status (*fn)(pk_dec *, void *), void *out, size_t size,
                             const char *name, plank_error *err) {
    if (!out || !arena || (!buf && len))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "%s: no buffer", name);
    memset(out, 0, size);
    pk_dec d = {0};
    pk_tc_init(&d.tc, buf, len, err);
    d.ar = arena;
    plank_status st = fn(&d, out);
    if (st != PLANK_OK) memset(out, 0, size);
    return st;
}

plank_status pk_thrift_read_column_index(const uint8_t *buf, size_t len, pk_arena *arena,
                                         plank_column_index *out, plank_error *err) {
    return rd_index(buf, len, arena, rd_column_index, out, sizeof *out, "ColumnIndex", err);
}

static plank_status rd_page_location(pk_dec *d, int type, void *out) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"offset", W_INT}, {"compressed_page_size", W_INT},
        {"first_row_index", W_INT}};
    plank_page_location *p = out;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, "PageLocation", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i64(d, f.type, 0, &p->offset); break;
        case 2: st = rd_i32(d, f.type, 0, &p->compressed_page_size); break;
        case 3: st = rd_i64(d, f.type, 0, &p->first_row_index); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    return fields_require(d, &f, REQ(1) | REQ(2) | REQ(3));
}

static plank_status rd_offset_index(pk_dec *d, void *out) {
    plank_offset_index *oi = out;
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"page_locations", W_LIST}, {"unencoded_byte_array_data_bytes", W_LIST}};
    void *arr = NULL;
    int32_t num_unencoded = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, PK_TC_STRUCT, "OffsetIndex", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1:
            st = rd_list(d, f.type, sizeof(plank_page_location), rd_page_location, &arr,
                         &oi->num_pages);
            oi->pages = arr;
            break;
        case 2:
            st = rd_list(d, f.type, sizeof(int64_t), elem_count, &arr, &num_unencoded);
            oi->unencoded_byte_array_data_bytes = arr;
            break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    PK_FORWARD(fields_require(d, &f, REQ(1)));
    if (f.seen & REQ(2))
        PK_FORWARD(check_pages(d, &f, "unencoded_byte_array_data_bytes", num_unencoded,
                               oi->num_pages));
    drop_if_negative(&oi->unencoded_byte_array_data_bytes, &num_unencoded);
    return PLANK_OK;
}

plank_status pk_thrift_read_offset_index(const uint8_t *buf, size_t len, pk_arena *arena,
                                         plank_offset_index *out, plank_error *err) {
    return rd_index(buf, len, arena, rd_offset_index, out, sizeof *out, "OffsetIndex", err);
}

/* ---- BloomFilterHeader -------------------------------------------------------------- */

/* BloomFilterAlgorithm, BloomFilterHash and BloomFilterCompression are
 * unions of marker structs; each must have exactly one member, and only
 * member 1 (BLOCK, XXHASH, UNCOMPRESSED) exists so far. */
static plank_status rd_bloom_union(pk_dec *d, int type, const char *name, const char *member1) {
    const pk_field_spec names[] = {{NULL, W_NONE}, {member1, W_STRUCT}};
    int32_t member = 0;
    int members = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, type, name, names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        members++;
        member = f.id;
        PK_FORWARD(fields_done(d, &f, f.id == 1 ? rd_marker(d, f.type)
                                                : pk_tc_skip(&d->tc, f.type)));
    }
    if (members != 1)
        return pk_tc_fail(&d->tc, f.start, "%s: union has %d members", name, members);
    if (member != 1) {
        if (d->tc.err) d->tc.err->byte_offset = (int64_t)f.start;
        return pk_error_set(d->tc.err, PLANK_ERR_UNSUPPORTED,
                            "%s: member %d is not supported (only %s) at byte %zu", name,
                            (int)member, member1, f.start);
    }
    return PLANK_OK;
}

static plank_status rd_bloom_header(pk_dec *d, uint32_t *num_bytes) {
    static const pk_field_spec names[] = {
        {NULL, W_NONE}, {"numBytes", W_INT}, {"algorithm", W_STRUCT}, {"hash", W_STRUCT},
        {"compression", W_STRUCT}};
    int32_t n = 0;
    pk_fields f;
    PK_FORWARD(FIELDS_BEGIN(d, &f, PK_TC_STRUCT, "BloomFilterHeader", names));
    for (;;) {
        PK_FORWARD(fields_next(d, &f));
        if (f.type == PK_TC_STOP) break;
        plank_status st;
        switch (f.id) {
        case 1: st = rd_i32(d, f.type, 1, &n); break;
        case 2: st = rd_bloom_union(d, f.type, "BloomFilterAlgorithm", "BLOCK"); break;
        case 3: st = rd_bloom_union(d, f.type, "BloomFilterHash", "XXHASH"); break;
        case 4: st = rd_bloom_union(d, f.type, "BloomFilterCompression", "UNCOMPRESSED"); break;
        default: st = pk_tc_skip(&d->tc, f.type); break;
        }
        PK_FORWARD(fields_done(d, &f, st));
    }
    PK_FORWARD(fields_require(d, &f, REQ(1) | REQ(2) | REQ(3) | REQ(4)));
    *num_bytes = (uint32_t)n;
    return PLANK_OK;
}

plank_status pk_thrift_read_bloom_header(const uint8_t *buf, size_t len, uint32_t *num_bytes,
                                         size_t *header_len, plank_error *err) {
    if (!num_bytes || !header_len || (!buf && len))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "BloomFilterHeader: no buffer");
    pk_dec d = {0};
    pk_tc_init(&d.tc, buf, len, err);
    d.ar = NULL;
    PK_FORWARD(rd_bloom_header(&d, num_bytes));
    *header_len = d.tc.pos;
    return PLANK_OK;
}
