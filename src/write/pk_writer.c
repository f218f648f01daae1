/*
 * pk_writer.c: the public writer: options, the schema given as a SchemaElement
 * list, output to a path (temporary file renamed into place on success) or a
 * caller's sink, row groups (explicit, or cut by rows and bytes), the page
 * indexes and the footer.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/pk_struct.h"
#include "pk_write.h"

#define PK_DEFAULT_PAGE_SIZE (1 << 20)
#define PK_DEFAULT_PAGE_ROWS 20000
#define PK_DEFAULT_RG_ROWS (1 << 20)
#define PK_DEFAULT_RG_BYTES ((int64_t)128 << 20)
#define PK_DEFAULT_V2_MIN_SAVING 0.1
#define PK_DEFAULT_DICT_PAGE (1 << 20)
/* Rows handed to the column writers per step of write_rows, so that the
 * row group byte limit is looked at often enough. */
#define PK_ROWS_STEP 65536

struct plank_writer {
    plank_allocator alloc;
    plank_sink sink;
    bool sink_open;
    pk_out out;
    /* path mode */
    int fd;
    char *path, *tmp_path;
    bool fsync;
    /* an error happened: only abort/close remain. Atomic: write_column may
     * run on several threads at once (for different columns). */
    atomic_bool failed;
    pk_arena arena;         /* schema, metadata, copies of options */
    pk_file_metadata md;
    plank_schema_node *nodes;
    int32_t num_nodes, num_columns;
    int32_t *leaf_nodes;
    pk_colw *cols;
    int64_t rg_rows;        /* rows in the current row group */
    int64_t row_group_rows, row_group_bytes;
    pk_buffer rgs;          /* pk_row_group of the row groups written */
    pk_buffer ci, oi;       /* page index blobs, written before the footer */
    pk_buffer cursors;      /* write_rows scratch: per column slot cursors */
    pk_buffer batches;      /* write_rows scratch: the caller's batches in this build's layout */
    const pk_kernels *kernels;
    /* threads > 1: the columns of each step of write_rows, and the ends of
     * a row group's chunks, run on this pool */
    pk_pool *pool;
    pk_buffer tasks;        /* pk_wtask per column */
    pk_buffer order;        /* int32 columns, costliest last step first */
};

/* One column's share of a parallel step. */
typedef struct pk_wtask {
    int64_t end;            /* slot cursor after the step */
    int64_t cost_ns;        /* time of the column's last step: the next step starts the
                               costliest first, so the threads finish together */
    plank_status st;
    plank_error err;
} pk_wtask;

void plank_schema_field_init(plank_schema_field *f) {
    memset(f, 0, sizeof *f);
    f->struct_size = sizeof *f;
    f->physical_type = PLANK_PHYSICAL_NONE;
    f->repetition = PLANK_REQUIRED;
    f->logical.edge_algorithm = -1;
    f->logical.variant_version = -1;
}

void plank_column_options_init(plank_column_options *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->encoding = -1;
    o->dictionary = -1;
    o->statistics = -1;
}

void plank_writer_options_init(plank_writer_options *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->codec = PLANK_CODEC_SNAPPY; /* plank's own, in every build */
    o->page_version = 1;
    o->format_version = 2;
    o->page_size = PK_DEFAULT_PAGE_SIZE;
    o->page_rows = PK_DEFAULT_PAGE_ROWS;
    o->row_group_rows = PK_DEFAULT_RG_ROWS;
    o->row_group_bytes = PK_DEFAULT_RG_BYTES;
    o->dictionary = true;
    o->encoding = -1;
    o->dictionary_page_size = PK_DEFAULT_DICT_PAGE;
    o->dictionary_sample = true;
    o->v2_min_saving = PK_DEFAULT_V2_MIN_SAVING;
    o->statistics = true;
    o->page_index = true;
    o->size_statistics = true;
    o->crc = true;
    o->max_statistics_size = 64;
    o->bloom_fpp = 0.01;
    o->threads = 1;
}

/* ---- Output -------------------------------------------------------------------- */

static plank_status fd_write(void *opaque, const void *buf, size_t len) {
    int fd = *(int *)opaque;
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return PLANK_ERR_IO;
        }
        p += n;
        len -= (size_t)n;
    }
    return PLANK_OK;
}

static plank_status out_write(void *opaque, const void *buf, size_t len) {
    plank_writer *w = opaque;
    return w->sink.write(w->sink.opaque, buf, len);
}

/* ---- Schema -------------------------------------------------------------------- */

static int32_t converted_of(const plank_logical_type *lt, int32_t *scale, int32_t *precision) {
    switch (lt->kind) {
    case PLANK_LOGICAL_STRING: return PLANK_CONVERTED_UTF8;
    case PLANK_LOGICAL_MAP: return PLANK_CONVERTED_MAP;
    case PLANK_LOGICAL_MAP_KEY_VALUE: return PLANK_CONVERTED_MAP_KEY_VALUE;
    case PLANK_LOGICAL_LIST: return PLANK_CONVERTED_LIST;
    case PLANK_LOGICAL_ENUM: return PLANK_CONVERTED_ENUM;
    case PLANK_LOGICAL_DECIMAL:
        *scale = lt->scale;
        *precision = lt->precision;
        return PLANK_CONVERTED_DECIMAL;
    case PLANK_LOGICAL_DATE: return PLANK_CONVERTED_DATE;
    case PLANK_LOGICAL_TIME:
        if (!lt->is_adjusted_to_utc) return -1;
        return lt->unit == PLANK_UNIT_MILLIS ? PLANK_CONVERTED_TIME_MILLIS
               : lt->unit == PLANK_UNIT_MICROS ? PLANK_CONVERTED_TIME_MICROS : -1;
    case PLANK_LOGICAL_TIMESTAMP:
        if (!lt->is_adjusted_to_utc) return -1;
        return lt->unit == PLANK_UNIT_MILLIS ? PLANK_CONVERTED_TIMESTAMP_MILLIS
               : lt->unit == PLANK_UNIT_MICROS ? PLANK_CONVERTED_TIMESTAMP_MICROS : -1;
    case PLANK_LOGICAL_INTEGER: {
        int w = lt->bit_width == 8 ? 0 : lt->bit_width == 16 ? 1 : lt->bit_width == 32 ? 2 : 3;
        return (lt->is_signed ? PLANK_CONVERTED_INT_8 : PLANK_CONVERTED_UINT_8) + w;
    }
    case PLANK_LOGICAL_JSON: return PLANK_CONVERTED_JSON;
    case PLANK_LOGICAL_BSON: return PLANK_CONVERTED_BSON;
    case PLANK_LOGICAL_INTERVAL: return PLANK_CONVERTED_INTERVAL;
    default: return -1;
    }
}

/* Checks what the tree builder does not: logical types on the physical
 * types the format allows. */
static plank_status check_leaf(const plank_schema_field *f, int32_t i, plank_error *err) {
    const plank_logical_type *lt = &f->logical;
    plank_physical_type t = f->physical_type;
    const char *name = f->name ? f->name : "";
    bool ok = true;
    switch (lt->kind) {
    case PLANK_LOGICAL_STRING: case PLANK_LOGICAL_ENUM: case PLANK_LOGICAL_JSON:
    case PLANK_LOGICAL_BSON: case PLANK_LOGICAL_GEOMETRY: case PLANK_LOGICAL_GEOGRAPHY:
        ok = t == PLANK_BYTE_ARRAY;
        break;
    case PLANK_LOGICAL_DECIMAL:
        ok = lt->precision >= 1 && lt->scale >= 0 && lt->scale <= lt->precision &&
             ((t == PLANK_INT32 && lt->precision <= 9) || (t == PLANK_INT64 && lt->precision <= 18) ||
              t == PLANK_BYTE_ARRAY ||
              (t == PLANK_FIXED_LEN_BYTE_ARRAY && f->type_length > 0 && f->type_length <= 128 &&
               (double)lt->precision <= (8.0 * f->type_length - 1) * 0.30103 + 1e-9));
        break;
    case PLANK_LOGICAL_DATE: ok = t == PLANK_INT32; break;
    case PLANK_LOGICAL_TIME:
        ok = lt->unit == PLANK_UNIT_MILLIS ? t == PLANK_INT32 : t == PLANK_INT64;
        break;
    case PLANK_LOGICAL_TIMESTAMP: ok = t == PLANK_INT64; break;
    case PLANK_LOGICAL_INTEGER:
        ok = (lt->bit_width == 8 || lt->bit_width == 16 || lt->bit_width == 32 ||
              lt->bit_width == 64) &&
             (lt->bit_width == 64 ? t == PLANK_INT64 : t == PLANK_INT32);
        break;
    case PLANK_LOGICAL_UUID: ok = t == PLANK_FIXED_LEN_BYTE_ARRAY && f->type_length == 16; break;
    case PLANK_LOGICAL_FLOAT16: ok = t == PLANK_FIXED_LEN_BYTE_ARRAY && f->type_length == 2; break;
    case PLANK_LOGICAL_INTERVAL: ok = t == PLANK_FIXED_LEN_BYTE_ARRAY && f->type_length == 12; break;
    case PLANK_LOGICAL_MAP: case PLANK_LOGICAL_LIST: case PLANK_LOGICAL_MAP_KEY_VALUE:
    case PLANK_LOGICAL_VARIANT:
        ok = false; /* groups only */
        break;
    case PLANK_LOGICAL_UNRECOGNIZED: ok = false; break;
    default: break;
    }
    if (!ok) {
        char buf[96];
        plank_logical_type_format(lt, buf, sizeof buf);
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "schema field %d (%s): logical type %s does not apply to %s",
                            (int)i, name, buf, plank_physical_type_name(t));
    }
    return PLANK_OK;
}

static plank_status build_schema(plank_writer *w, const plank_schema_field *fields, int32_t n,
                                 plank_error *err) {
    if (!fields || n < 1)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "schema: no fields (need a root)");
    size_t stride;
    PK_FORWARD(pk_struct_stride(fields, n, &pk_layout_schema_field, &stride, err));
    pk_schema_element *el = pk_arena_alloc(&w->arena, sizeof *el * (size_t)n);
    if (!el) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        plank_schema_field fi; /* this build's layout of the caller's field */
        plank_schema_field_init(&fi);
        PK_FORWARD(pk_struct_read(&fi, pk_struct_at(fields, stride, i), &pk_layout_schema_field,
                                  err));
        const plank_schema_field *f = &fi;
        pk_schema_element *e = &el[i];
        const char *name = f->name ? f->name : (i == 0 ? "schema" : NULL);
        if (!name || (i > 0 && !name[0]))
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "schema field %d has no name",
                                (int)i);
        e->name = pk_arena_strndup(&w->arena, name, strlen(name));
        if (!e->name) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        bool group = i == 0 || f->physical_type == PLANK_PHYSICAL_NONE;
        e->type = group ? -1 : (int32_t)f->physical_type;
        e->type_length = !group && f->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY
                             ? f->type_length : -1;
        if (!group && f->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY && f->type_length <= 0)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "schema field %d (%s): FIXED_LEN_BYTE_ARRAY needs type_length > 0",
                                (int)i, name);
        e->repetition = i == 0 ? -1 : (int32_t)f->repetition;
        if (i > 0 && (f->repetition < PLANK_REQUIRED || f->repetition > PLANK_REPEATED))
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "schema field %d (%s): invalid repetition", (int)i, name);
        e->num_children = group ? f->num_children : -1;
        if (group && (f->num_children < 0 || (i > 0 && f->num_children == 0)))
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "schema field %d (%s): a group needs children", (int)i, name);
        if (!group) PK_FORWARD(check_leaf(f, i, err));
        e->scale = e->precision = -1;
        e->converted_type = converted_of(&f->logical, &e->scale, &e->precision);
        e->has_field_id = f->has_field_id;
        e->field_id = f->field_id;
        plank_logical_kind k = f->logical.kind;
        e->has_logical_type = k != PLANK_LOGICAL_NONE && k != PLANK_LOGICAL_INTERVAL &&
                              k != PLANK_LOGICAL_MAP_KEY_VALUE;
        e->logical = f->logical;
        if (e->has_logical_type && (k == PLANK_LOGICAL_GEOMETRY || k == PLANK_LOGICAL_GEOGRAPHY) &&
            f->logical.crs) {
            e->logical.crs = pk_arena_strndup(&w->arena, f->logical.crs, strlen(f->logical.crs));
            if (!e->logical.crs) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        } else {
            e->logical.crs = NULL;
        }
    }
    w->md.schema = el;
    w->md.num_schema = n;
    plank_status st = pk_schema_tree_build(el, n, &w->arena, &w->nodes, &w->num_columns,
                                           &w->leaf_nodes, err);
    if (st == PLANK_ERR_CORRUPT) {
        if (err) err->code = PLANK_ERR_INVALID_ARGUMENT;
        return PLANK_ERR_INVALID_ARGUMENT;
    }
    PK_FORWARD(st);
    w->num_nodes = n;
    if (w->num_columns == 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "schema: no leaf columns");
    for (int32_t c = 0; c < w->num_columns; c++) {
        const plank_schema_node *leaf = &w->nodes[w->leaf_nodes[c]];
        if (leaf->max_definition_level > 32767 - 1 || leaf->max_repetition_level > 32767 - 1)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "schema: nesting too deep");
    }
    return PLANK_OK;
}

/* The data-page encoding of a column without (or after) its dictionary.
 * DELTA_BINARY_PACKED for integers in format 2 files, as parquet-mr's v2
 * writer does: on keys, prices and other columns whose dictionary falls
 * back it is several times smaller than PLAIN before compression and
 * cheaper to write than PLAIN plus compression of the larger page; every
 * current reader decodes it. Format 1 files keep PLAIN for old readers. */
static plank_encoding default_encoding(plank_physical_type type, const plank_writer_options *o) {
    if (o->encoding >= 0 && pk_encoding_applies((plank_encoding)o->encoding, type))
        return (plank_encoding)o->encoding;
    if (type == PLANK_BOOLEAN && o->page_version == 2) return PLANK_ENC_RLE;
    if ((type == PLANK_INT32 || type == PLANK_INT64) && o->format_version >= 2)
        return PLANK_ENC_DELTA_BINARY_PACKED;
    return PLANK_ENC_PLAIN;
}

static int32_t find_column(const plank_writer *w, const char *path) {
    int32_t found = -1, hits = 0;
    for (int32_t c = 0; c < w->num_columns; c++) {
        const plank_schema_node *n = &w->nodes[w->leaf_nodes[c]];
        if (strcmp(n->path, path) == 0) return c;
        if (strcmp(n->name, path) == 0) {
            found = c;
            hits++;
        }
    }
    return hits == 1 ? found : -1;
}

/* ---- Open ---------------------------------------------------------------------- */

static plank_status setup(plank_writer *w, const plank_schema_field *schema, int32_t num_fields,
                          const plank_writer_options *opts, plank_error *err) {
    if (opts->page_version != 1 && opts->page_version != 2)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "page_version must be 1 or 2");
    if (opts->format_version != 1 && opts->format_version != 2)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "format_version must be 1 or 2");
    bool enc_ok = opts->encoding == -1;
    for (int t = PLANK_BOOLEAN; t <= PLANK_FIXED_LEN_BYTE_ARRAY && opts->encoding >= 0; t++)
        enc_ok = enc_ok || pk_encoding_applies((plank_encoding)opts->encoding,
                                               (plank_physical_type)t);
    if (!enc_ok)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "writer options: encoding %d is not a data-page encoding "
                            "(the dictionary is the `dictionary` option)",
                            (int)opts->encoding);
    if (!pk_compress_available(opts->codec))
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "codec %s is not available in this build",
                            plank_codec_name(opts->codec));
    if (opts->page_size <= 0 || opts->page_rows <= 0 || opts->row_group_rows <= 0 ||
        opts->row_group_bytes <= 0 || opts->dictionary_page_size < 0 ||
        opts->max_statistics_size < 0 || !(opts->bloom_fpp > 0 && opts->bloom_fpp < 1) ||
        !(opts->v2_min_saving >= 0 && opts->v2_min_saving <= 1) ||
        opts->num_key_values < 0 || opts->num_column_options < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "writer options: sizes, row counts, bloom_fpp or v2_min_saving "
                            "out of range");
    w->row_group_rows = opts->row_group_rows;
    w->row_group_bytes = opts->row_group_bytes;
    w->fsync = opts->fsync;
    pk_cpu cpu;
    pk_cpu_detect(&cpu);
    w->kernels = pk_kernels_for_cpu(&cpu);
    PK_FORWARD(build_schema(w, schema, num_fields, err));

    /* footer fields known now */
    w->md.version = opts->format_version;
    const char *cb = opts->created_by ? opts->created_by : "plank version " PLANK_VERSION_STRING;
    w->md.created_by = pk_arena_strndup(&w->arena, cb, strlen(cb));
    if (!w->md.created_by) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (opts->num_key_values > 0) {
        plank_key_value *kv = pk_arena_alloc(&w->arena, sizeof *kv * (size_t)opts->num_key_values);
        if (!kv) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = 0; i < opts->num_key_values; i++) {
            const plank_key_value *s = &opts->key_values[i];
            if (!s->key)
                return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "key-value %d has no key",
                                    (int)i);
            kv[i].key = pk_arena_strndup(&w->arena, s->key, strlen(s->key));
            kv[i].value = s->value ? pk_arena_strndup(&w->arena, s->value, strlen(s->value)) : NULL;
            if (!kv[i].key || (s->value && !kv[i].value))
                return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        w->md.key_values = kv;
        w->md.num_key_values = opts->num_key_values;
    }
    w->md.num_column_orders = w->num_columns;
    w->md.column_orders = pk_arena_alloc(&w->arena, sizeof(int32_t) * (size_t)w->num_columns);
    if (!w->md.column_orders) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");

    /* per-column options, in this build's layout */
    plank_column_options *cos = NULL;
    if (opts->num_column_options > 0) {
        size_t stride;
        PK_FORWARD(pk_struct_stride(opts->columns, opts->num_column_options,
                                    &pk_layout_column_options, &stride, err));
        cos = pk_arena_alloc(&w->arena, sizeof *cos * (size_t)opts->num_column_options);
        if (!cos) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = 0; i < opts->num_column_options; i++) {
            plank_column_options_init(&cos[i]);
            PK_FORWARD(pk_struct_read(&cos[i], pk_struct_at(opts->columns, stride, i),
                                      &pk_layout_column_options, err));
        }
    }
    w->cols = pk_calloc(&w->alloc, sizeof(pk_colw) * (size_t)w->num_columns);
    if (!w->cols) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t c = 0; c < w->num_columns; c++) {
        const plank_schema_node *leaf = &w->nodes[w->leaf_nodes[c]];
        pk_col_opts o;
        memset(&o, 0, sizeof o);
        o.codec = opts->codec;
        o.codec_level = opts->codec_level;
        o.page_version = opts->page_version;
        o.format_version = opts->format_version;
        o.page_size = opts->page_size;
        o.page_rows = opts->page_rows;
        o.dictionary = opts->dictionary;
        o.dictionary_page_size = opts->dictionary_page_size;
        o.dictionary_sample = opts->dictionary_sample;
        o.v2_min_saving = opts->v2_min_saving;
        o.encoding = default_encoding(leaf->physical_type, opts);
        o.statistics = opts->statistics;
        o.page_index = opts->page_index;
        o.size_statistics = opts->size_statistics;
        o.crc = opts->crc;
        o.max_statistics_size = opts->max_statistics_size;
        o.bloom_fpp = opts->bloom_fpp;
        w->cols[c].column = -1; /* not initialised yet (release skips it) */
        for (int32_t i = 0; i < opts->num_column_options; i++) {
            const plank_column_options *co = &cos[i];
            if (!co->path || find_column(w, co->path) != c) continue;
            if (co->encoding == PLANK_ENC_RLE_DICTIONARY ||
                co->encoding == PLANK_ENC_PLAIN_DICTIONARY) {
                o.dictionary = true;
                o.dictionary_sample = false; /* asked for by name: started in every chunk */
            } else if (co->encoding >= 0) {
                if (!pk_encoding_applies((plank_encoding)co->encoding, leaf->physical_type))
                    return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                        "column %s: encoding %s does not apply to %s", leaf->path,
                                        plank_encoding_name((plank_encoding)co->encoding),
                                        plank_physical_type_name(leaf->physical_type));
                o.encoding = (plank_encoding)co->encoding;
                if (co->dictionary < 0) o.dictionary = false;
            }
            if (co->dictionary >= 0) o.dictionary = co->dictionary != 0;
            if (co->statistics >= 0) o.statistics = co->statistics != 0;
            if (co->bloom_filter) {
                o.bloom = leaf->physical_type != PLANK_BOOLEAN;
                if (co->bloom_fpp > 0 && co->bloom_fpp < 1) o.bloom_fpp = co->bloom_fpp;
                o.bloom_ndv = co->bloom_ndv > 0 ? co->bloom_ndv : 0;
            }
        }
        PK_FORWARD(pk_colw_init(&w->cols[c], leaf, &o, &w->alloc, w->kernels, err));
    }
    for (int32_t i = 0; i < opts->num_column_options; i++) {
        const plank_column_options *co = &cos[i];
        if (!co->path || find_column(w, co->path) < 0)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "column options: no (unambiguous) column \"%s\"",
                                co->path ? co->path : "(null)");
    }
    pk_buffer_init(&w->rgs, &w->alloc);
    pk_buffer_init(&w->ci, &w->alloc);
    pk_buffer_init(&w->oi, &w->alloc);
    pk_buffer_init(&w->cursors, &w->alloc);
    pk_buffer_init(&w->batches, &w->alloc);
    pk_buffer_init(&w->tasks, &w->alloc);
    pk_buffer_init(&w->order, &w->alloc);
    if (opts->threads < 0 || opts->threads > 1024)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "writer options: threads is %d, not in 0..1024", (int)opts->threads);
    int32_t threads = opts->threads == 0 ? pk_cpu_count() : opts->threads;
    if (threads > w->num_columns) threads = w->num_columns;
    if (threads > 1) {
        PK_FORWARD(pk_pool_new(&w->pool, threads, &w->alloc, err));
        PK_FORWARD(pk_buffer_resize(&w->tasks, sizeof(pk_wtask) * (size_t)w->num_columns, err));
        PK_FORWARD(pk_buffer_resize(&w->order, sizeof(int32_t) * (size_t)w->num_columns, err));
        memset(w->tasks.data, 0, w->tasks.size);
        int32_t *ord = (int32_t *)w->order.data;
        for (int32_t c = 0; c < w->num_columns; c++) ord[c] = c;
    }
    w->out.write = out_write;
    w->out.opaque = w;
    return pk_out_write(&w->out, "PAR1", 4, err);
}

static void writer_free(plank_writer *w) {
    if (!w) return;
    if (w->cols) {
        for (int32_t c = 0; c < w->num_columns; c++)
            if (w->cols[c].alloc) pk_colw_release(&w->cols[c]);
        pk_free(&w->alloc, w->cols, sizeof(pk_colw) * (size_t)w->num_columns);
    }
    pk_buffer_reset(&w->rgs);
    pk_buffer_reset(&w->ci);
    pk_buffer_reset(&w->oi);
    pk_buffer_reset(&w->cursors);
    pk_buffer_reset(&w->batches);
    pk_buffer_reset(&w->tasks);
    pk_buffer_reset(&w->order);
    pk_pool_free(w->pool);
    pk_arena_reset(&w->arena);
    if (w->sink_open && w->sink.close) w->sink.close(w->sink.opaque);
    if (w->fd >= 0) close(w->fd);
    if (w->tmp_path) {
        unlink(w->tmp_path);
        pk_free(&w->alloc, w->tmp_path, strlen(w->tmp_path) + 1);
    }
    if (w->path) pk_free(&w->alloc, w->path, strlen(w->path) + 1);
    plank_allocator a = w->alloc;
    pk_free(&a, w, sizeof *w);
}

static plank_status writer_new(plank_writer **out, const plank_writer_options *opts,
                               plank_error *err) {
    const plank_allocator *a = opts && opts->allocator ? opts->allocator : pk_default_allocator();
    plank_writer *w = pk_calloc(a, sizeof *w);
    if (!w) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    w->alloc = *a;
    w->fd = -1;
    pk_arena_init(&w->arena, &w->alloc);
    *out = w;
    return PLANK_OK;
}

/* The caller's options (NULL: defaults) as this build's struct. */
static plank_status load_options(plank_writer_options *o, const plank_writer_options *given,
                                 plank_error *err) {
    plank_writer_options_init(o);
    return given ? pk_struct_read(o, given, &pk_layout_writer_options, err) : PLANK_OK;
}

plank_status plank_writer_open_sink(plank_writer **out, const plank_sink *given_sink,
                                    const plank_schema_field *schema, int32_t num_fields,
                                    const plank_writer_options *given, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!given_sink) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL sink");
    /* The sink is read by its layout first, so that a refused call can close it. */
    plank_sink sink = {sizeof sink, NULL, NULL, NULL, NULL};
    plank_status st = pk_struct_read(&sink, given_sink, &pk_layout_sink, err);
    if (st != PLANK_OK) return st; /* its close callback cannot be trusted either */
    plank_writer_options o;
    const plank_writer_options *opts = &o;
    st = load_options(&o, given, err);
    if (st == PLANK_OK && (!out || !sink.write))
        st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL output or write callback");
    plank_writer *w = NULL;
    if (st == PLANK_OK) st = writer_new(&w, opts, err);
    if (st != PLANK_OK) {
        if (sink.close) sink.close(sink.opaque);
        return st;
    }
    w->sink = sink;
    w->sink_open = true;
    st = setup(w, schema, num_fields, opts, err);
    if (st != PLANK_OK) {
        writer_free(w);
        return st;
    }
    *out = w;
    return PLANK_OK;
}

plank_status plank_writer_open_path(plank_writer **out, const char *path,
                                    const plank_schema_field *schema, int32_t num_fields,
                                    const plank_writer_options *given, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!out || !path || !path[0])
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL output or empty path");
    plank_writer_options o;
    const plank_writer_options *opts = &o;
    PK_FORWARD(load_options(&o, given, err));
    plank_writer *w = NULL;
    PK_FORWARD(writer_new(&w, opts, err));
    size_t pl = strlen(path);
    w->path = pk_strndup(&w->alloc, path, pl);
    /* ".<name>.plank-<pid>-<n>" next to the target, so rename stays in one
     * filesystem. Not mkstemp: its 0600 mode would survive the rename, and a
     * Parquet file should get the usual 0666 & ~umask. O_EXCL makes the name
     * ours; a taken name moves on to the next n. */
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path) + 1 : 0;
    int tl = snprintf(NULL, 0, "%.*s.%s.plank-%ld-%08x", dir_len, path, path + dir_len,
                      (long)getpid(), 0u);
    w->tmp_path = tl > 0 ? pk_malloc(&w->alloc, (size_t)tl + 1) : NULL;
    if (!w->path || !w->tmp_path) {
        if (w->tmp_path) pk_free(&w->alloc, w->tmp_path, (size_t)tl + 1);
        w->tmp_path = NULL; /* not a file yet: nothing to remove */
        writer_free(w);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    uint32_t seq = (uint32_t)((uintptr_t)w >> 4) ^ (uint32_t)time(NULL);
    for (int attempt = 0; attempt < 100; attempt++) {
        seq = seq * 1664525u + 1013904223u;
        snprintf(w->tmp_path, (size_t)tl + 1, "%.*s.%s.plank-%ld-%08x", dir_len, path,
                 path + dir_len, (long)getpid(), seq);
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (w->fd >= 0 || errno != EEXIST) break;
    }
    if (w->fd < 0) {
        int e = errno;
        pk_free(&w->alloc, w->tmp_path, (size_t)tl + 1);
        w->tmp_path = NULL; /* nothing to remove */
        writer_free(w);
        return pk_error_set(err, PLANK_ERR_IO, "cannot create a temporary file next to %s: %s",
                            path, PK_STRERROR(e));
    }
    w->sink.write = fd_write;
    w->sink.opaque = &w->fd;
    plank_status st = setup(w, schema, num_fields, opts, err);
    if (st != PLANK_OK) {
        writer_free(w);
        return st;
    }
    *out = w;
    return PLANK_OK;
}

const plank_allocator *pk_writer_allocator(const plank_writer *w) { return &w->alloc; }

int32_t plank_writer_num_columns(const plank_writer *w) { return w->num_columns; }
int32_t plank_writer_num_schema_nodes(const plank_writer *w) { return w->num_nodes; }
const plank_schema_node *plank_writer_schema_node(const plank_writer *w, int32_t i) {
    return i >= 0 && i < w->num_nodes ? &w->nodes[i] : NULL;
}
const plank_schema_node *plank_writer_column_node(const plank_writer *w, int32_t c) {
    return c >= 0 && c < w->num_columns ? &w->nodes[w->leaf_nodes[c]] : NULL;
}

/* ---- Data ---------------------------------------------------------------------- */

static plank_status fail(plank_writer *w, plank_status st) {
    if (st != PLANK_OK && st != PLANK_ERR_INVALID_ARGUMENT) w->failed = true;
    return st;
}

static int64_t column_rows(const pk_colw *c) { return c->c_rows + c->p_rows; }
static int64_t column_slots(const pk_colw *c) { return c->c_values + c->p_slots; }

/* Validates slots [begin, end) of b for column c. */
static plank_status check_batch(plank_writer *w, const pk_colw *c, const plank_batch *b,
                                int64_t begin, int64_t end, plank_error *err) {
    const char *path = c->node->path;
    size_t n = (size_t)(end - begin);
    if (c->max_rep > 0 && !b->rep_levels)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column %s is repeated: rep_levels are required", path);
    if ((c->max_def > 1 || c->max_rep > 0) && !b->def_levels)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column %s is nested: def_levels are required", path);
    if (n == 0) return PLANK_OK;
    if (b->def_levels && c->max_def > 0 &&
        !w->kernels->levels_in_range(b->def_levels + begin, n, c->max_def))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column %s: definition level outside 0..%d", path, (int)c->max_def);
    if (c->max_rep > 0) {
        if (!w->kernels->levels_in_range(b->rep_levels + begin, n, c->max_rep))
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "column %s: repetition level outside 0..%d", path,
                                (int)c->max_rep);
        if (column_slots(c) == 0 && b->rep_levels[begin] != 0)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "column %s: the first repetition level of a row group must be 0",
                                path);
    }
    bool any_value = c->max_def == 0 || !b->def_levels ||
                     w->kernels->count_eq16(b->def_levels + begin, n, c->max_def) > 0;
    if (any_value) {
        if (c->type == PLANK_BYTE_ARRAY) {
            if (!b->offsets || !b->data)
                return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                    "column %s: BYTE_ARRAY batch without offsets or data", path);
            /* one vector pass over the batch (it also flags lengths above
             * INT32_MAX, which the encoders refuse later with their own
             * message); the slot is searched for only when it flags */
            uint64_t bad = w->kernels->offsets_bad(b->offsets + begin, n);
            for (int64_t i = begin; bad && i < end; i++)
                if (b->offsets[i] < 0 || b->offsets[i + 1] < b->offsets[i])
                    return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                        "column %s: offsets decrease at slot %lld", path,
                                        (long long)i);
        } else if (!b->values) {
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "column %s: batch without values",
                                path);
        }
    }
    return PLANK_OK;
}

plank_status plank_writer_write_column(plank_writer *w, int32_t column, const plank_batch *batch,
                                       plank_error *err) {
    plank_error_init(err);
    if (!w) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL writer");
    if (w->failed)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: an earlier call failed");
    if (column < 0 || column >= w->num_columns || !batch)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "write_column: bad column or batch");
    plank_batch b = {sizeof b, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, PLANK_PHYSICAL_NONE, 0};
    PK_FORWARD(pk_struct_read(&b, batch, &pk_layout_batch, err));
    batch = &b;
    if (batch->length < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "write_column: negative length");
    pk_colw *c = &w->cols[column];
    PK_FORWARD(check_batch(w, c, batch, 0, batch->length, err));
    plank_status st = pk_colw_append(c, batch, 0, batch->length, err);
    if (st != PLANK_OK) pk_error_prefix(err, "column %s", c->node->path);
    return fail(w, st);
}

/* ---- Columns in parallel -------------------------------------------------------- */

typedef struct pk_wrun {
    plank_writer *w;
    plank_status (*fn)(plank_writer *w, int32_t column, void *arg, plank_error *err);
    void *arg;
} pk_wrun;

static void run_one(void *ctx, int64_t k) {
    pk_wrun *r = ctx;
    int32_t c = ((const int32_t *)r->w->order.data)[k];
    pk_wtask *t = &((pk_wtask *)r->w->tasks.data)[c];
    plank_error_init(&t->err);
    int64_t t0 = pk_now_ns();
    t->st = r->fn(r->w, c, r->arg, &t->err);
    t->cost_ns = pk_now_ns() - t0;
}

/* Runs fn for every column on the pool, the costliest columns of the last
 * run first (an insertion sort of a few dozen entries), and reports the
 * error of the first failing column in column order, whatever thread ran
 * it, so that errors do not depend on timing. */
static plank_status run_columns(plank_writer *w,
                                plank_status (*fn)(plank_writer *w, int32_t column, void *arg,
                                                   plank_error *err),
                                void *arg, int32_t *failed, plank_error *err) {
    int32_t n = w->num_columns;
    int32_t *ord = (int32_t *)w->order.data;
    pk_wtask *t = (pk_wtask *)w->tasks.data;
    for (int32_t i = 1; i < n; i++) {
        int32_t x = ord[i], j = i;
        for (; j > 0 && t[ord[j - 1]].cost_ns < t[x].cost_ns; j--) ord[j] = ord[j - 1];
        ord[j] = x;
    }
    pk_wrun r = {w, fn, arg};
    pk_pool_run(w->pool, n, run_one, &r);
    for (int32_t c = 0; c < n; c++) {
        if (t[c].st == PLANK_OK) continue;
        if (err) *err = t[c].err;
        *failed = c;
        return t[c].st;
    }
    return PLANK_OK;
}

static plank_status finish_column(plank_writer *w, int32_t c, void *arg, plank_error *err) {
    (void)arg;
    return pk_colw_finish(&w->cols[c], err);
}

static plank_status flush_row_group(plank_writer *w, plank_error *err) {
    int64_t rows = column_rows(&w->cols[0]);
    for (int32_t c = 1; c < w->num_columns; c++)
        if (column_rows(&w->cols[c]) != rows)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "end_row_group: column %s has %lld rows, column %s %lld",
                                w->cols[0].node->path, (long long)rows, w->cols[c].node->path,
                                (long long)column_rows(&w->cols[c]));
    w->rg_rows = 0;
    if (rows == 0) return PLANK_OK;
    int32_t ordinal = (int32_t)(w->rgs.size / sizeof(pk_row_group));
    pk_row_group rg;
    memset(&rg, 0, sizeof rg);
    rg.num_columns = w->num_columns;
    rg.columns = pk_arena_alloc(&w->arena, sizeof(plank_column_chunk_info) * (size_t)w->num_columns);
    if (!rg.columns) return fail(w, pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory"));
    rg.info.num_rows = rows;
    rg.info.file_offset = w->out.pos;
    rg.info.ordinal = ordinal <= INT16_MAX ? ordinal : -1;
    int64_t total = 0, compressed = 0;
    if (w->pool) {
        int32_t c = -1;
        plank_status st = run_columns(w, finish_column, NULL, &c, err);
        if (st != PLANK_OK) {
            pk_error_prefix(err, "row group %d, column %s", (int)ordinal, w->cols[c].node->path);
            pk_error_locate(err, w->out.pos, ordinal, c, -1);
            return fail(w, st);
        }
    }
    for (int32_t c = 0; c < w->num_columns; c++) {
        plank_column_chunk_info *cc = &rg.columns[c];
        plank_status st = pk_colw_flush(&w->cols[c], &w->out, &w->arena, cc, &w->ci, &w->oi, err);
        if (st != PLANK_OK) {
            pk_error_prefix(err, "row group %d, column %s", (int)ordinal, w->cols[c].node->path);
            pk_error_locate(err, w->out.pos, ordinal, c, -1);
            return fail(w, st);
        }
        total += cc->total_uncompressed_size;
        compressed += cc->total_compressed_size;
    }
    rg.info.total_byte_size = total;
    rg.info.total_compressed_size = compressed;
    return fail(w, pk_buffer_append(&w->rgs, &rg, sizeof rg, err));
}

plank_status plank_writer_end_row_group(plank_writer *w, plank_error *err) {
    plank_error_init(err);
    if (!w) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL writer");
    if (w->failed)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: an earlier call failed");
    return flush_row_group(w, err);
}

/* The slot after `rows` records starting at slot `from` (records start
 * where rep == 0). */
static int64_t skip_records(const pk_colw *c, const plank_batch *b, int64_t from, int64_t rows) {
    if (c->max_rep == 0) return from + rows;
    int64_t i = from, seen = 0;
    for (; i < b->length; i++) {
        if (b->rep_levels[i] == 0) {
            if (seen == rows) break;
            seen++;
        }
    }
    return i;
}

/* One step of write_rows: `take` records of every column from its cursor. */
typedef struct pk_wstep {
    const plank_batch *cols;
    const int64_t *cur;
    int64_t take;
} pk_wstep;

static plank_status append_column(plank_writer *w, int32_t c, void *arg, plank_error *err) {
    const pk_wstep *s = arg;
    pk_colw *cw = &w->cols[c];
    int64_t end = skip_records(cw, &s->cols[c], s->cur[c], s->take);
    ((pk_wtask *)w->tasks.data)[c].end = end;
    return pk_colw_append(cw, &s->cols[c], s->cur[c], end, err);
}

plank_status plank_writer_write_rows(plank_writer *w, const plank_batch *given, int64_t num_rows,
                                     plank_error *err) {
    plank_error_init(err);
    if (!w) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL writer");
    if (w->failed)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: an earlier call failed");
    if (!given || num_rows < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "write_rows: bad arguments");
    size_t stride;
    PK_FORWARD(pk_struct_stride(given, w->num_columns, &pk_layout_batch, &stride, err));
    PK_FORWARD(fail(w, pk_buffer_resize(&w->batches, sizeof(plank_batch) * (size_t)w->num_columns,
                                        err)));
    plank_batch *cols = (plank_batch *)w->batches.data;
    for (int32_t c = 0; c < w->num_columns; c++) {
        memset(&cols[c], 0, sizeof cols[c]);
        PK_FORWARD(pk_struct_read(&cols[c], pk_struct_at(given, stride, c), &pk_layout_batch, err));
    }
    for (int32_t c = 0; c < w->num_columns; c++) {
        const pk_colw *cw = &w->cols[c];
        const plank_batch *b = &cols[c];
        if (b->length < 0)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "column %s: negative length",
                                cw->node->path);
        PK_FORWARD(check_batch(w, cw, b, 0, b->length, err));
        int64_t recs = cw->max_rep > 0
                           ? w->kernels->count_eq16(b->rep_levels, (size_t)b->length, 0)
                           : b->length;
        if (recs != num_rows || (cw->max_rep > 0 && b->length > 0 && b->rep_levels[0] != 0))
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "write_rows: column %s holds %lld records, expected %lld",
                                cw->node->path, (long long)recs, (long long)num_rows);
    }
    PK_FORWARD(fail(w, pk_buffer_resize(&w->cursors, sizeof(int64_t) * (size_t)w->num_columns,
                                        err)));
    int64_t *cur = (int64_t *)w->cursors.data;
    memset(cur, 0, sizeof(int64_t) * (size_t)w->num_columns);
    int64_t done = 0;
    while (done < num_rows) {
        int64_t take = num_rows - done;
        int64_t room = w->row_group_rows - w->rg_rows;
        if (take > room) take = room;
        if (take > PK_ROWS_STEP) take = PK_ROWS_STEP;
        size_t buffered = 0;
        if (w->pool) {
            pk_wstep step = {cols, cur, take};
            int32_t c = -1;
            plank_status st = run_columns(w, append_column, &step, &c, err);
            if (st != PLANK_OK) {
                pk_error_prefix(err, "column %s", w->cols[c].node->path);
                return fail(w, st);
            }
            const pk_wtask *t = (const pk_wtask *)w->tasks.data;
            for (int32_t k = 0; k < w->num_columns; k++) {
                cur[k] = t[k].end;
                buffered += pk_colw_buffered(&w->cols[k]);
            }
        }
        for (int32_t c = 0; c < w->num_columns && !w->pool; c++) {
            pk_colw *cw = &w->cols[c];
            int64_t end = skip_records(cw, &cols[c], cur[c], take);
            plank_status st = pk_colw_append(cw, &cols[c], cur[c], end, err);
            if (st != PLANK_OK) {
                pk_error_prefix(err, "column %s", cw->node->path);
                return fail(w, st);
            }
            cur[c] = end;
            buffered += pk_colw_buffered(cw);
        }
        done += take;
        w->rg_rows += take;
        if (w->rg_rows >= w->row_group_rows || (int64_t)buffered >= w->row_group_bytes)
            PK_FORWARD(flush_row_group(w, err));
    }
    return PLANK_OK;
}

/* ---- Close ------------------------------------------------------------------------ */

static plank_status finish_file(plank_writer *w, plank_error *err) {
    PK_FORWARD(flush_row_group(w, err));
    int32_t nrg = (int32_t)(w->rgs.size / sizeof(pk_row_group));
    pk_row_group *rgs = (pk_row_group *)w->rgs.data;
    int64_t rows = 0;
    for (int32_t g = 0; g < nrg; g++) rows += rgs[g].info.num_rows;
    /* page indexes: all column indexes, then all offset indexes */
    int64_t ci_at = w->out.pos;
    PK_FORWARD(pk_out_write(&w->out, w->ci.data, w->ci.size, err));
    int64_t oi_at = w->out.pos;
    PK_FORWARD(pk_out_write(&w->out, w->oi.data, w->oi.size, err));
    for (int32_t g = 0; g < nrg; g++)
        for (int32_t c = 0; c < rgs[g].num_columns; c++) {
            plank_column_chunk_info *cc = &rgs[g].columns[c];
            if (cc->column_index_offset >= 0) cc->column_index_offset += ci_at;
            if (cc->offset_index_offset >= 0) cc->offset_index_offset += oi_at;
        }
    w->md.num_rows = rows;
    w->md.num_row_groups = nrg;
    w->md.row_groups = rgs;
    pk_buffer footer;
    pk_buffer_init(&footer, &w->alloc);
    plank_status st = pk_thrift_write_file_metadata(&w->md, &footer, err);
    if (st == PLANK_OK && footer.size > UINT32_MAX)
        st = pk_error_set(err, PLANK_ERR_LIMIT, "footer larger than 4 GiB");
    if (st == PLANK_OK) {
        uint8_t tail[8];
        pk_store_u32(tail, (uint32_t)footer.size);
        memcpy(tail + 4, "PAR1", 4);
        st = pk_out_write(&w->out, footer.data, footer.size, err);
        if (st == PLANK_OK) st = pk_out_write(&w->out, tail, 8, err);
    }
    pk_buffer_reset(&footer);
    w->md.row_groups = NULL; /* owned by w->rgs */
    w->md.num_row_groups = 0;
    PK_FORWARD(st);
    if (w->sink.finish) {
        st = w->sink.finish(w->sink.opaque);
        if (st != PLANK_OK) return pk_error_set(err, st, "sink: finishing the file failed");
    }
    if (w->fd >= 0) {
        if (w->fsync && fsync(w->fd) != 0)
            return pk_error_set(err, PLANK_ERR_IO, "fsync %s: %s", w->tmp_path, PK_STRERROR(errno));
        int fd = w->fd;
        w->fd = -1;
        if (close(fd) != 0)
            return pk_error_set(err, PLANK_ERR_IO, "close %s: %s", w->tmp_path, PK_STRERROR(errno));
        if (rename(w->tmp_path, w->path) != 0)
            return pk_error_set(err, PLANK_ERR_IO, "rename %s to %s: %s", w->tmp_path, w->path,
                                PK_STRERROR(errno));
        pk_free(&w->alloc, w->tmp_path, strlen(w->tmp_path) + 1);
        w->tmp_path = NULL; /* nothing left to remove */
        if (w->fsync) {
            const char *slash = strrchr(w->path, '/');
            char dir[4096];
            if (slash && (size_t)(slash - w->path) < sizeof dir) {
                memcpy(dir, w->path, (size_t)(slash - w->path));
                dir[slash - w->path] = '\0';
            } else {
                strcpy(dir, ".");
            }
            if (slash == w->path) strcpy(dir, "/");
            int dfd = open(dir, O_RDONLY);
            if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
            }
        }
    }
    return PLANK_OK;
}

plank_status plank_writer_close(plank_writer *w, plank_error *err) {
    plank_error_init(err);
    if (!w) return PLANK_OK;
    plank_status st;
    if (w->failed)
        st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                          "writer: an earlier call failed; nothing was written");
    else
        st = finish_file(w, err);
    writer_free(w);
    return st;
}

void plank_writer_abort(plank_writer *w) { writer_free(w); }
