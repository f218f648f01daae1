/*
 * cli_meta.c: `plank meta FILE [--json]`: file, row group and column chunk
 * metadata. One walk over the metadata feeds a small writer that renders
 * either indented "name: value" text or one JSON document, so both outputs
 * always carry the same content. Statistics min/max are decoded with the
 * same formatter as `plank cat`.
 */
#include <stdlib.h>

#include "cli.h"

#define META_MAX_DEPTH 16

typedef struct meta_writer {
    cli_buf *b;
    bool json;
    int depth;
    bool first[META_MAX_DEPTH]; /* JSON: no comma before the first member */
} meta_writer;

/* Starts a member: the comma and key in JSON, the indent and "name: " in
 * text (a heading, "name:" and a line break, when the value is nested). */
static void w_key_as(meta_writer *w, const char *name, bool heading) {
    if (w->json) {
        if (!w->first[w->depth]) cli_buf_putc(w->b, ',');
        w->first[w->depth] = false;
        if (name) {
            cli_json_string(w->b, (const uint8_t *)name, strlen(name));
            cli_buf_putc(w->b, ':');
        }
    } else {
        for (int i = 0; i < w->depth; i++) cli_buf_puts(w->b, "  ");
        if (name) {
            cli_buf_puts(w->b, name);
            cli_buf_puts(w->b, heading ? ":\n" : ": ");
        }
    }
}

static void w_key(meta_writer *w, const char *name) { w_key_as(w, name, false); }

static void w_end_line(meta_writer *w) {
    if (!w->json) cli_buf_putc(w->b, '\n');
}

static void w_open(meta_writer *w, char bracket) {
    if (w->json) cli_buf_putc(w->b, bracket);
    if (w->depth + 1 < META_MAX_DEPTH) w->depth++;
    w->first[w->depth] = true;
}

static void w_close(meta_writer *w, char bracket) {
    if (w->depth > 0) w->depth--;
    if (w->json) cli_buf_putc(w->b, bracket);
}

static void w_i64(meta_writer *w, const char *name, int64_t v) {
    w_key(w, name);
    cli_buf_put_i64(w->b, v);
    w_end_line(w);
}

/* Optional counts and offsets: -1 (absent) is null in JSON, left out in text. */
static void w_opt_i64(meta_writer *w, const char *name, int64_t v) {
    if (v >= 0) {
        w_i64(w, name, v);
    } else if (w->json) {
        w_key(w, name);
        cli_buf_puts(w->b, "null");
    }
}

static void w_bool(meta_writer *w, const char *name, bool v) {
    w_key(w, name);
    cli_buf_puts(w->b, v ? "true" : "false");
    w_end_line(w);
}

/* A string (NULL: null in JSON, left out in text). */
static void w_str(meta_writer *w, const char *name, const char *s) {
    if (!s && !w->json) return;
    w_key(w, name);
    if (!s) cli_buf_puts(w->b, "null");
    else if (w->json) cli_json_string(w->b, (const uint8_t *)s, strlen(s));
    else cli_buf_puts(w->b, s);
    w_end_line(w);
}

/* A nested object: "name:" on its own line in text, fields indented. */
static void w_obj_begin(meta_writer *w, const char *name) {
    w_key_as(w, name, true);
    w_open(w, '{');
}
static void w_obj_end(meta_writer *w) { w_close(w, '}'); }

/* An array of objects; each item starts with w_item_begin(label), where the
 * label is the item's heading in text. */
static void w_arr_begin(meta_writer *w, const char *name) {
    w_key_as(w, name, true);
    w_open(w, '[');
}
static void w_arr_end(meta_writer *w) { w_close(w, ']'); }
static void w_item_begin(meta_writer *w, const char *label) {
    w_key_as(w, w->json ? NULL : label, true);
    w_open(w, '{');
}

/* A list of names: a JSON array of strings, or "a, b" in text. */
static void w_names(meta_writer *w, const char *name, int32_t n, const char *(*get)(const void *, int32_t),
                    const void *ctx) {
    w_key(w, name);
    if (w->json) cli_buf_putc(w->b, '[');
    for (int32_t i = 0; i < n; i++) {
        const char *s = get(ctx, i);
        if (i) cli_buf_puts(w->b, w->json ? "," : ", ");
        if (w->json) cli_json_string(w->b, (const uint8_t *)s, strlen(s));
        else cli_buf_puts(w->b, s);
    }
    if (w->json) cli_buf_putc(w->b, ']');
    w_end_line(w);
}

/* A list of integers, from v64 or else v32: [a, b] in text, [a,b] in JSON. */
static void w_ints(meta_writer *w, const char *name, int32_t n, const int64_t *v64,
                   const int32_t *v32) {
    w_key(w, name);
    cli_buf_putc(w->b, '[');
    for (int32_t i = 0; i < n; i++) {
        if (i) cli_buf_puts(w->b, w->json ? "," : ", ");
        cli_buf_put_i64(w->b, v64 ? v64[i] : v32[i]);
    }
    cli_buf_putc(w->b, ']');
    w_end_line(w);
}

static void w_histogram(meta_writer *w, const char *name, int32_t n, const int64_t *v) {
    if (n <= 0 && !w->json) return;
    w_ints(w, name, n, v, NULL);
}

/* Key-value metadata: [{"key":..,"value":..}] or "key = value" lines. */
static void w_key_values(meta_writer *w, const char *name, int32_t n,
                         void (*get)(const void *, int32_t, const char **, const char **),
                         const void *ctx) {
    if (n <= 0 && !w->json) return;
    w_arr_begin(w, name);
    for (int32_t i = 0; i < n; i++) {
        const char *k = NULL, *v = NULL;
        get(ctx, i, &k, &v);
        if (w->json) {
            w_item_begin(w, "");
            w_str(w, "key", k ? k : "");
            w_str(w, "value", v);
            w_obj_end(w);
        } else {
            w_key(w, NULL);
            cli_buf_puts(w->b, k ? k : "");
            if (v) {
                cli_buf_puts(w->b, " = ");
                cli_buf_puts(w->b, v);
            }
            cli_buf_putc(w->b, '\n');
        }
    }
    w_arr_end(w);
}

/* A statistics bound decoded like `cat` prints it; a bound whose length
 * does not fit the physical type is shown as base64 with a note. */
static void w_bound(meta_writer *w, const char *name, const cli_value_format *f, const uint8_t *p,
                    uint32_t len) {
    w_key(w, name);
    uint8_t bit;
    if (f->physical == PLANK_BOOLEAN && len == 1) {
        /* PLAIN BOOLEAN is bit-packed: the value is the low bit. */
        bit = p[0] & 1;
        p = &bit;
    }
    cli_style style = w->json || f->kind == CLI_V_STRING ? CLI_STYLE_JSON : CLI_STYLE_TEXT;
    if (f->kind == CLI_V_NULL) {
        cli_buf_puts(w->b, "null");
    } else if (!cli_format_value(w->b, f, p, len, style)) {
        if (w->json) {
            cli_buf_puts(w->b, "{\"invalid_length\":");
            cli_buf_put_u64(w->b, len);
            cli_buf_puts(w->b, ",\"base64\":\"");
            cli_format_base64(w->b, p, len);
            cli_buf_puts(w->b, "\"}");
        } else {
            cli_buf_printf(w->b, "(invalid length %u) base64:", (unsigned)len);
            cli_format_base64(w->b, p, len);
        }
    }
    w_end_line(w);
}

static void w_statistics(meta_writer *w, const plank_column_chunk_info *cc,
                         const cli_value_format *f) {
    if (!cc->has_statistics) {
        if (w->json) {
            w_key(w, "statistics");
            cli_buf_puts(w->b, "null");
        }
        return;
    }
    const plank_statistics *s = &cc->statistics;
    w_obj_begin(w, "statistics");
    if (s->has_min) w_bound(w, "min", f, s->min, s->min_len);
    if (s->has_max) w_bound(w, "max", f, s->max, s->max_len);
    if (s->has_min || s->has_max) w_bool(w, "min_max_deprecated", s->min_max_deprecated);
    if (s->has_null_count) w_i64(w, "null_count", s->null_count);
    if (s->has_distinct_count) w_i64(w, "distinct_count", s->distinct_count);
    if (s->has_nan_count) w_i64(w, "nan_count", s->nan_count);
    if (s->has_is_min_exact) w_bool(w, "is_min_exact", s->is_min_exact);
    if (s->has_is_max_exact) w_bool(w, "is_max_exact", s->is_max_exact);
    w_obj_end(w);
}

/* A double: shortest round-trip text; NaN and infinities quoted in JSON. */
static void w_f64(meta_writer *w, const char *name, double v) {
    w_key(w, name);
    size_t at = w->b->len;
    if (!cli_format_double(w->b, v) && w->json) {
        char word[16];
        size_t n = w->b->len - at;
        if (n >= sizeof word) n = sizeof word - 1;
        memcpy(word, w->b->data + at, n);
        word[n] = 0;
        w->b->len = at;
        cli_json_string(w->b, (const uint8_t *)word, n);
    }
    w_end_line(w);
}

/* GeospatialStatistics: the bounding box (xmin > xmax: it wraps across the
 * antimeridian) and the WKB geometry type codes. */
static void w_geospatial(meta_writer *w, const plank_column_chunk_info *cc) {
    if (!cc->has_geospatial_statistics) {
        if (w->json) {
            w_key(w, "geospatial_statistics");
            cli_buf_puts(w->b, "null");
        }
        return;
    }
    const plank_geospatial_statistics *g = &cc->geospatial_statistics;
    w_obj_begin(w, "geospatial_statistics");
    if (g->has_bbox) {
        w_obj_begin(w, "bbox");
        w_f64(w, "xmin", g->xmin);
        w_f64(w, "xmax", g->xmax);
        w_f64(w, "ymin", g->ymin);
        w_f64(w, "ymax", g->ymax);
        if (g->has_z) {
            w_f64(w, "zmin", g->zmin);
            w_f64(w, "zmax", g->zmax);
        }
        if (g->has_m) {
            w_f64(w, "mmin", g->mmin);
            w_f64(w, "mmax", g->mmax);
        }
        w_obj_end(w);
    } else if (w->json) {
        w_key(w, "bbox");
        cli_buf_puts(w->b, "null");
    }
    if (g->has_geospatial_types)
        w_ints(w, "geospatial_types", g->num_geospatial_types, NULL, g->geospatial_types);
    else if (w->json) {
        w_key(w, "geospatial_types");
        cli_buf_puts(w->b, "null");
    }
    w_obj_end(w);
}

static const char *encoding_at(const void *ctx, int32_t i) {
    return plank_encoding_name(((const plank_encoding *)ctx)[i]);
}

static void chunk_key_value(const void *ctx, int32_t i, const char **k, const char **v) {
    const plank_key_value *kv = ctx;
    *k = kv[i].key;
    *v = kv[i].value;
}

static void file_key_value(const void *ctx, int32_t i, const char **k, const char **v) {
    plank_reader_key_value(ctx, i, k, v);
}

static void w_column_chunk(meta_writer *w, const plank_reader *r, const plank_column_chunk_info *cc) {
    char label[1100];
    snprintf(label, sizeof label, "column %d (%s)", (int)cc->column, cc->path ? cc->path : "");
    w_item_begin(w, label);
    w_i64(w, "column", cc->column);
    w_str(w, "path", cc->path ? cc->path : "");
    w_str(w, "file_path", cc->file_path);
    w_str(w, "physical_type", plank_physical_type_name(cc->physical_type));
    cli_value_format f;
    const plank_schema_node *node = NULL;
    if (cc->column >= 0 && cc->column < plank_reader_num_columns(r))
        node = plank_reader_column_node(r, cc->column);
    if (node) {
        char text[256];
        if (node->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY)
            w_i64(w, "type_length", node->type_length);
        if (node->logical.kind != PLANK_LOGICAL_NONE)
            w_str(w, "logical_type", plank_logical_type_format(&node->logical, text, sizeof text));
        if (node->converted_type != PLANK_CONVERTED_NONE)
            w_str(w, "converted_type", plank_converted_type_name(node->converted_type));
        cli_column_value_format(r, cc->column, &f);
    } else {
        cli_value_format_init(&f, cc->physical_type, 0, NULL, PLANK_CONVERTED_NONE, 0);
    }
    w_str(w, "codec", plank_codec_name(cc->codec));
    w_names(w, "encodings", cc->num_encodings, encoding_at, cc->encodings);
    if (cc->num_encoding_stats > 0 || w->json) {
        w_arr_begin(w, "encoding_stats");
        for (int32_t i = 0; i < cc->num_encoding_stats; i++) {
            const plank_encoding_stat *es = &cc->encoding_stats[i];
            if (w->json) {
                w_item_begin(w, "");
                w_str(w, "page_type", plank_page_type_name(es->page_type));
                w_str(w, "encoding", plank_encoding_name(es->encoding));
                w_i64(w, "count", es->count);
                w_obj_end(w);
            } else {
                w_key(w, NULL);
                cli_buf_printf(w->b, "%s %s: %d\n", plank_page_type_name(es->page_type),
                               plank_encoding_name(es->encoding), (int)es->count);
            }
        }
        w_arr_end(w);
    }
    w_i64(w, "num_values", cc->num_values);
    w_i64(w, "total_compressed_size", cc->total_compressed_size);
    w_i64(w, "total_uncompressed_size", cc->total_uncompressed_size);
    w_i64(w, "data_page_offset", cc->data_page_offset);
    w_opt_i64(w, "dictionary_page_offset", cc->dictionary_page_offset);
    w_opt_i64(w, "index_page_offset", cc->index_page_offset);
    w_opt_i64(w, "bloom_filter_offset", cc->bloom_filter_offset);
    w_opt_i64(w, "bloom_filter_length", cc->bloom_filter_length);
    w_opt_i64(w, "column_index_offset", cc->column_index_offset);
    w_opt_i64(w, "column_index_length", cc->column_index_length);
    w_opt_i64(w, "offset_index_offset", cc->offset_index_offset);
    w_opt_i64(w, "offset_index_length", cc->offset_index_length);
    w_statistics(w, cc, &f);
    w_geospatial(w, cc);
    bool has_size_stats = cc->unencoded_byte_array_data_bytes >= 0 ||
                          cc->num_repetition_level_histogram > 0 ||
                          cc->num_definition_level_histogram > 0;
    if (has_size_stats) {
        w_obj_begin(w, "size_statistics");
        w_opt_i64(w, "unencoded_byte_array_data_bytes", cc->unencoded_byte_array_data_bytes);
        w_histogram(w, "repetition_level_histogram", cc->num_repetition_level_histogram,
                    cc->repetition_level_histogram);
        w_histogram(w, "definition_level_histogram", cc->num_definition_level_histogram,
                    cc->definition_level_histogram);
        w_obj_end(w);
    } else if (w->json) {
        w_key(w, "size_statistics");
        cli_buf_puts(w->b, "null");
    }
    w_key_values(w, "key_value_metadata", cc->num_key_values, chunk_key_value, cc->key_values);
    if (cc->encrypted || w->json) w_bool(w, "encrypted", cc->encrypted);
    w_obj_end(w);
}

static int w_row_group(meta_writer *w, const char *file, const plank_reader *r, int32_t g) {
    plank_row_group_info rg = {.struct_size = sizeof(plank_row_group_info)};
    int rc = cli_row_group(file, r, g, &rg);
    if (rc) return rc;
    char label[64];
    snprintf(label, sizeof label, "row group %d", (int)g);
    w_item_begin(w, label);
    w_i64(w, "index", g);
    w_i64(w, "num_rows", rg.num_rows);
    w_i64(w, "total_byte_size", rg.total_byte_size);
    w_opt_i64(w, "total_compressed_size", rg.total_compressed_size);
    w_opt_i64(w, "file_offset", rg.file_offset);
    w_opt_i64(w, "ordinal", rg.ordinal);
    if (rg.num_sorting_columns > 0 || w->json) {
        w_arr_begin(w, "sorting_columns");
        for (int32_t i = 0; i < rg.num_sorting_columns; i++) {
            const plank_sorting_column *sc = &rg.sorting_columns[i];
            if (w->json) {
                w_item_begin(w, "");
                w_i64(w, "column", sc->column);
                w_bool(w, "descending", sc->descending);
                w_bool(w, "nulls_first", sc->nulls_first);
                w_obj_end(w);
            } else {
                w_key(w, NULL);
                cli_buf_printf(w->b, "column %d %s, nulls %s\n", (int)sc->column,
                               sc->descending ? "descending" : "ascending",
                               sc->nulls_first ? "first" : "last");
            }
        }
        w_arr_end(w);
    }
    w_arr_begin(w, "columns");
    for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
        plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
        plank_error err;
        plank_error_init(&err);
        plank_status st = plank_reader_column_chunk(r, g, c, &cc, &err);
        if (st != PLANK_OK) return cli_report(file, st, &err, g, c);
        w_column_chunk(w, r, &cc);
    }
    w_arr_end(w);
    w_obj_end(w);
    return 0;
}

int cli_meta_main(int argc, char **argv) {
    cli_options o;
    int rc = cli_parse_options(argc, argv, CLI_OPT_JSON, "meta", &o);
    if (rc) return rc;
    plank_reader *r;
    if ((rc = cli_open(o.file, NULL, &r))) return rc;

    cli_buf b;
    cli_buf_init(&b);
    meta_writer w;
    memset(&w, 0, sizeof w);
    w.b = &b;
    w.json = o.json;
    w.first[0] = true;
    if (w.json) cli_buf_putc(&b, '{');
    w_str(&w, "file", o.file);
    w_i64(&w, "num_rows", plank_reader_num_rows(r));
    w_i64(&w, "num_row_groups", plank_reader_num_row_groups(r));
    w_i64(&w, "num_columns", plank_reader_num_columns(r));
    w_i64(&w, "format_version", plank_reader_format_version(r));
    w_str(&w, "created_by", plank_reader_created_by(r));
    w_i64(&w, "file_size", (int64_t)plank_reader_file_size(r));
    w_i64(&w, "footer_size", plank_reader_footer_size(r));
    w_key_values(&w, "key_value_metadata", plank_reader_num_key_values(r), file_key_value, r);
    w_arr_begin(&w, "row_groups");
    for (int32_t g = 0; g < plank_reader_num_row_groups(r) && rc == 0; g++)
        rc = w_row_group(&w, o.file, r, g);
    w_arr_end(&w);
    if (w.json) cli_buf_puts(&b, "}\n");
    plank_reader_close(r);
    if (rc == 0) {
        /* Written only when complete, so a failure never leaves half a
         * JSON document on stdout. */
        cli_out out;
        cli_out_init(&out, stdout);
        cli_buf_put(&out.buf, b.data, b.len);
        if (!cli_out_close(&out)) rc = cli_fail(o.file, "cannot write the output");
    }
    cli_buf_free(&b);
    return rc;
}
