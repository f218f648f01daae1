/*
 * cli_convert.c: `plank convert IN OUT [options]`.
 *
 * Formats come from the file extensions (.parquet/.parq/.pq, .csv/.tsv,
 * .jsonl/.ndjson/.json) or --from/--to. Parquet input converts to Parquet,
 * CSV or JSON lines (the text of `plank cat`); CSV and JSON lines input
 * converts to Parquet (cli_textin.c).
 *
 * Parquet to Parquet keeps the schema node for node (names, physical types,
 * repetitions, logical types, field ids) and the file's key-value metadata,
 * and copies each leaf column's batches from plank_column_reader_read into
 * plank_writer_write_column unchanged (values, validity and levels): the two
 * layouts are the same by design, so nothing is reassembled. Output row
 * groups follow the input's, or hold --row-group-size rows each; then every
 * column keeps a cursor into its current batch (which stays valid until
 * that column's reader is read again) and a row group takes slots up to the
 * start of its (N+1)-th record, reading on across batch and input row group
 * boundaries. Only BOOLEAN values and validity bitmaps starting inside a
 * byte are copied, to realign them.
 *
 * Every output goes to a temporary file renamed into place at the end
 * (plank_writer_close for Parquet), so a failed conversion leaves no file.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

#define CONVERT_BATCH 65536

typedef enum convert_format { FMT_NONE, FMT_PARQUET, FMT_CSV, FMT_JSONL } convert_format;

static convert_format format_named(const char *s) {
    if (cli_strcasecmp(s, "parquet") == 0) return FMT_PARQUET;
    if (cli_strcasecmp(s, "csv") == 0) return FMT_CSV;
    if (cli_strcasecmp(s, "jsonl") == 0 || cli_strcasecmp(s, "ndjson") == 0) return FMT_JSONL;
    return FMT_NONE;
}

/* The format of a path by its extension; *tsv is set for ".tsv". */
static convert_format format_of_path(const char *path, bool *tsv) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return FMT_NONE;
    static const struct {
        const char *ext;
        convert_format f;
    } exts[] = {{".parquet", FMT_PARQUET}, {".parq", FMT_PARQUET}, {".pq", FMT_PARQUET},
                {".csv", FMT_CSV},         {".tsv", FMT_CSV},      {".jsonl", FMT_JSONL},
                {".ndjson", FMT_JSONL},    {".json", FMT_JSONL}};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (cli_strcasecmp(dot, exts[i].ext) == 0) {
            if (tsv) *tsv = cli_strcasecmp(dot, ".tsv") == 0;
            return exts[i].f;
        }
    return FMT_NONE;
}

/* ---- Parquet to Parquet ----------------------------------------------------------- */

/* One leaf column's position in the input. */
typedef struct copy_cursor {
    plank_column_reader *cr; /* NULL between input row groups */
    int32_t group;           /* the input row group of cr (or the next to open) */
    plank_batch b;           /* the current batch; slots [pos, b.length) not yet written */
    int64_t pos;
    bool repeated;           /* max repetition level > 0: records end where rep == 0 */
    uint8_t *bits;           /* realigned bitmaps: values, then validity */
    size_t bits_cap;
} copy_cursor;

typedef struct copy_state {
    const char *in, *out;
    plank_reader *r;
    plank_writer *w;
    int32_t ncols, ngroups;
    copy_cursor *cur;
    cli_progress progress;
    int64_t rows_done;
} copy_state;

/* The Parquet schema of the input as writer fields (names point into the
 * reader). Effective logical types carry legacy ConvertedType annotations
 * over; a LogicalType this version does not know is dropped. */
static plank_schema_field *schema_of_reader(const plank_reader *r, int32_t *n) {
    int32_t count = plank_reader_num_schema_nodes(r);
    plank_schema_field *f = calloc((size_t)(count > 0 ? count : 1), sizeof *f);
    if (!f) return NULL;
    for (int32_t i = 0; i < count; i++) {
        const plank_schema_node *node = plank_reader_schema_node(r, i);
        plank_schema_field_init(&f[i]);
        f[i].name = node->name;
        f[i].physical_type = node->num_children > 0 || i == 0 ? PLANK_PHYSICAL_NONE
                                                              : node->physical_type;
        f[i].type_length = node->type_length;
        f[i].repetition = node->repetition;
        f[i].num_children = node->num_children;
        f[i].logical = node->logical;
        if (f[i].logical.kind == PLANK_LOGICAL_UNRECOGNIZED) f[i].logical.kind = PLANK_LOGICAL_NONE;
        f[i].has_field_id = node->has_field_id;
        f[i].field_id = node->field_id;
    }
    *n = count;
    return f;
}

static plank_status set_error(plank_error *err, plank_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static plank_status set_error(plank_error *err, plank_status s, const char *fmt, ...) {
    va_list ap;
    plank_error_init(err);
    err->code = s;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return s;
}

/* Copies bits [from, from + n) of src to a byte boundary in dst. */
static void realign_bits(const uint8_t *src, int64_t from, int64_t n, uint8_t *dst) {
    memset(dst, 0, (size_t)((n + 7) / 8));
    for (int64_t i = 0; i < n; i++) {
        int64_t k = from + i;
        if (src[k >> 3] >> (k & 7) & 1) dst[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
}

/* Writes slots [from, to) of the cursor's batch to column c. */
static plank_status write_slots(copy_state *st, int32_t c, int64_t from, int64_t to,
                                plank_error *err) {
    copy_cursor *k = &st->cur[c];
    const plank_batch *b = &k->b;
    int64_t n = to - from;
    plank_batch s = *b;
    s.length = n;
    s.null_count = 0;
    if (b->def_levels) s.def_levels = b->def_levels + from;
    if (b->rep_levels) s.rep_levels = b->rep_levels + from;
    size_t bitmap = (size_t)((n + 7) / 8);
    bool values_bits = b->physical_type == PLANK_BOOLEAN && b->values && (from & 7);
    bool validity_bits = b->validity && !b->def_levels && (from & 7);
    if (values_bits || validity_bits) {
        if (k->bits_cap < 2 * bitmap) {
            uint8_t *p = realloc(k->bits, 2 * bitmap);
            if (!p) return set_error(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            k->bits = p;
            k->bits_cap = 2 * bitmap;
        }
    }
    /* Levels say which slots are null when present; validity is then unused. */
    if (b->def_levels) s.validity = NULL;
    else if (validity_bits) {
        realign_bits(b->validity, from, n, k->bits + bitmap);
        s.validity = k->bits + bitmap;
    } else if (b->validity) {
        s.validity = b->validity + from / 8;
    }
    if (b->physical_type == PLANK_BOOLEAN) {
        if (values_bits) {
            realign_bits(b->values, from, n, k->bits);
            s.values = k->bits;
        } else if (b->values) {
            s.values = (const uint8_t *)b->values + from / 8;
        }
    } else if (b->physical_type == PLANK_BYTE_ARRAY) {
        if (b->offsets) s.offsets = b->offsets + from;
    } else if (b->values) {
        s.values = (const uint8_t *)b->values + (size_t)from * (size_t)b->value_width;
    }
    return plank_writer_write_column(st->w, c, &s, err);
}

/* Makes the cursor's batch hold unwritten slots, reading on through the
 * input row groups; false at the end of the column. */
static plank_status cursor_fill(copy_state *st, int32_t c, bool *more, plank_error *err) {
    copy_cursor *k = &st->cur[c];
    while (k->pos >= k->b.length) {
        if (!k->cr) {
            if (k->group >= st->ngroups) {
                *more = false;
                return PLANK_OK;
            }
            plank_status s = plank_column_reader_open(&k->cr, st->r, k->group, c, err);
            if (s != PLANK_OK) return s;
        }
        k->b.struct_size = sizeof k->b;
        plank_status s = plank_column_reader_read(k->cr, CONVERT_BATCH, &k->b, err);
        if (s != PLANK_OK) return s;
        k->pos = 0;
        if (k->b.length == 0) {
            plank_column_reader_close(k->cr);
            k->cr = NULL;
            k->group++;
        }
    }
    *more = true;
    return PLANK_OK;
}

/* Writes the next `want` records of column c (the current output row group). */
static plank_status copy_records(copy_state *st, int32_t c, int64_t want, plank_error *err) {
    copy_cursor *k = &st->cur[c];
    int64_t got = 0; /* records started */
    for (;;) {
        /* A flat column is done at its count; a repeated one only at the next
         * record's start, which may lie in a later batch. */
        if (!k->repeated && got == want) return PLANK_OK;
        bool more;
        plank_status s = cursor_fill(st, c, &more, err);
        if (s != PLANK_OK) return s;
        if (!more) {
            if (got == want) return PLANK_OK;
            return set_error(err, PLANK_ERR_CORRUPT,
                             "column %s holds %lld records where the row groups hold %lld",
                             plank_reader_column_node(st->r, c)->path,
                             (long long)(st->rows_done + got), (long long)(st->rows_done + want));
        }
        int64_t end = k->pos;
        if (!k->repeated) {
            int64_t take = k->b.length - k->pos;
            if (take > want - got) take = want - got;
            end += take;
            got += take;
        } else {
            for (; end < k->b.length; end++)
                if (k->b.rep_levels[end] == 0) {
                    if (got == want) break;
                    got++;
                }
        }
        if (end > k->pos) {
            s = write_slots(st, c, k->pos, end, err);
            if (s != PLANK_OK) return s;
        }
        bool stopped = end < k->b.length;
        k->pos = end;
        if (stopped) return PLANK_OK;
    }
}

static int copy_fail(copy_state *st, plank_status s, plank_error *err, int32_t group, int32_t c) {
    cli_progress_end(&st->progress);
    return cli_report(st->in, s, err, group, c);
}

static int convert_parquet(const char *in, const char *out, cli_wopts *wo) {
    copy_state st;
    memset(&st, 0, sizeof st);
    st.in = in;
    st.out = out;
    int rc = cli_open(in, NULL, &st.r);
    if (rc) return rc;
    plank_error err;
    plank_error_init(&err);
    int32_t nfields = 0;
    plank_schema_field *fields = schema_of_reader(st.r, &nfields);
    int32_t nkv = plank_reader_num_key_values(st.r);
    plank_key_value *kv = calloc((size_t)(nkv > 0 ? nkv : 1), sizeof *kv);
    st.ncols = plank_reader_num_columns(st.r);
    st.ngroups = plank_reader_num_row_groups(st.r);
    st.cur = calloc((size_t)(st.ncols > 0 ? st.ncols : 1), sizeof *st.cur);
    if (!fields || !kv || !st.cur) {
        rc = cli_fail(in, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < nkv; i++) plank_reader_key_value(st.r, i, &kv[i].key, &kv[i].value);
    wo->opts.key_values = kv;
    wo->opts.num_key_values = nkv;
    cli_wopts_finish(wo);
    plank_status s = plank_writer_open_path(&st.w, out, fields, nfields, &wo->opts, &err);
    if (s != PLANK_OK) {
        st.w = NULL;
        rc = cli_report(out, s, &err, -1, -1);
        goto done;
    }
    for (int32_t c = 0; c < st.ncols; c++)
        st.cur[c].repeated = plank_reader_column_node(st.r, c)->max_repetition_level > 0;

    /* The row groups' counts, not the footer's num_rows, which some writers
     * leave at 0. */
    int64_t total = 0;
    for (int32_t g = 0; g < st.ngroups && rc == 0; g++) {
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        if ((rc = cli_row_group(in, st.r, g, &info)) == 0) total += info.num_rows;
    }
    cli_progress_init(&st.progress, "rows", total);
    /* Output row group sizes: the input's, or --row-group-size. */
    int32_t g = 0;
    while (rc == 0) {
        int64_t want;
        if (wo->row_group_rows > 0) {
            want = total - st.rows_done < wo->row_group_rows ? total - st.rows_done
                                                              : wo->row_group_rows;
            if (want <= 0) break;
        } else {
            if (g >= st.ngroups) break;
            plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
            if ((rc = cli_row_group(in, st.r, g, &info))) break;
            want = info.num_rows;
        }
        for (int32_t c = 0; c < st.ncols && rc == 0; c++) {
            s = copy_records(&st, c, want, &err);
            if (s != PLANK_OK) rc = copy_fail(&st, s, &err, st.cur[c].group, c);
        }
        if (rc) break;
        s = plank_writer_end_row_group(st.w, &err);
        if (s != PLANK_OK) {
            cli_progress_end(&st.progress);
            rc = cli_report(out, s, &err, -1, -1);
            break;
        }
        st.rows_done += want;
        g++;
        cli_progress_update(&st.progress, st.rows_done);
    }
    /* Every column must end where the row groups say the file ends. */
    for (int32_t c = 0; c < st.ncols && rc == 0; c++) {
        bool more;
        s = cursor_fill(&st, c, &more, &err);
        if (s != PLANK_OK) rc = copy_fail(&st, s, &err, st.cur[c].group, c);
        else if (more)
            rc = cli_fail(in, "column %s holds more records than the row groups (%lld)",
                          plank_reader_column_node(st.r, c)->path, (long long)total);
    }
    cli_progress_end(&st.progress);
    if (rc == 0) {
        s = plank_writer_close(st.w, &err);
        st.w = NULL;
        if (s != PLANK_OK) rc = cli_report(out, s, &err, -1, -1);
    }

done:
    if (st.w) plank_writer_abort(st.w);
    for (int32_t c = 0; st.cur && c < st.ncols; c++) {
        plank_column_reader_close(st.cur[c].cr);
        free(st.cur[c].bits);
    }
    free(st.cur);
    free(fields);
    free(kv);
    plank_reader_close(st.r);
    return rc;
}

/* ---- Parquet to text ------------------------------------------------------------------ */

/* A temporary file next to `path`, renamed onto it by text_output_commit. */
typedef struct text_output {
    char *tmp;
    FILE *f;
} text_output;

static int text_output_open(text_output *t, const char *path) {
    size_t n = strlen(path);
    t->f = NULL;
    t->tmp = malloc(n + 16);
    if (!t->tmp) return cli_fail(path, "out of memory");
    memcpy(t->tmp, path, n);
    memcpy(t->tmp + n, ".tmp-XXXXXX", 12);
    int fd = mkstemp(t->tmp);
    if (fd < 0) {
        int e = errno;
        free(t->tmp);
        t->tmp = NULL;
        return cli_fail(path, "cannot create the output: %s", strerror(e));
    }
    t->f = fdopen(fd, "wb");
    if (!t->f) {
        close(fd);
        unlink(t->tmp);
        free(t->tmp);
        t->tmp = NULL;
        return cli_fail(path, "cannot create the output");
    }
    return 0;
}

/* Renames the file into place when ok, else removes it; returns rc, or an
 * error when closing or renaming fails. */
static int text_output_finish(text_output *t, const char *path, int rc) {
    if (!t->tmp) return rc;
    if (fclose(t->f) != 0 && rc == 0) rc = cli_fail(path, "cannot write the output");
    if (rc == 0 && rename(t->tmp, path) != 0)
        rc = cli_fail(path, "cannot rename the output into place: %s", strerror(errno));
    if (rc != 0) unlink(t->tmp);
    free(t->tmp);
    t->tmp = NULL;
    return rc;
}

static int convert_to_text(const char *in, const char *out, convert_format to) {
    plank_reader *r;
    int rc = cli_open(in, NULL, &r);
    if (rc) return rc;
    int64_t total = plank_reader_num_rows(r);
    plank_reader_close(r);
    text_output t;
    if ((rc = text_output_open(&t, out))) return rc;
    cli_progress progress;
    cli_progress_init(&progress, "rows", total);
    cli_cat_args a;
    memset(&a, 0, sizeof a);
    a.file = in;
    a.limit = -1;
    a.format = to == FMT_CSV ? "csv" : "jsonl";
    a.out = t.f;
    a.progress = &progress;
    rc = cli_cat_run(&a, out);
    cli_progress_end(&progress);
    return text_output_finish(&t, out, rc);
}

/* ---- Arguments ----------------------------------------------------------------------------- */

int cli_convert_main(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *from = NULL, *to = NULL;
    cli_wopts wo;
    cli_text_in ti;
    cli_wopts_init(&wo);
    memset(&ti, 0, sizeof ti);
    ti.delimiter = ',';
    ti.infer_rows = 1000;
    bool delimiter_set = false;
    char **variant = NULL;
    int32_t num_variant = 0;
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (!in) in = a;
            else if (!out) out = a;
            else rc = cli_usage_error("convert: unexpected argument '%s'", a);
            continue;
        }
        size_t len = strcspn(a, "=");
        const char *value;
        int kind = cli_wopts_kind(a, len);
        if (kind >= 0) {
            if (!(rc = cli_option_value(argc, argv, &i, "convert", kind == 1, &value)))
                rc = cli_wopts_parse(&wo, "convert", a, value);
            continue;
        }
#define IS(name) (len == strlen(name) && strncmp(a, name, len) == 0)
        if (!(IS("--from") || IS("--to") || IS("--schema") || IS("--infer-rows") ||
              IS("--delimiter") || IS("--variant"))) {
            rc = cli_usage_error("convert: unknown option '%s'", a);
            break;
        }
        if ((rc = cli_option_value(argc, argv, &i, "convert", true, &value))) break;
        if (IS("--from")) from = value;
        else if (IS("--to")) to = value;
        else if (IS("--schema")) ti.schema = value;
        else if (IS("--variant")) {
            /* a comma list; repeatable */
            for (const char *v = value; rc == 0;) {
                size_t n = strcspn(v, ",");
                if (n == 0) {
                    rc = cli_usage_error("convert: --variant needs column names, not '%s'", value);
                    break;
                }
                variant = realloc(variant, (size_t)(num_variant + 1) * sizeof *variant);
                char *name = variant ? malloc(n + 1) : NULL;
                if (!name) {
                    fputs("plank: out of memory\n", stderr);
                    exit(CLI_EXIT_ERROR);
                }
                memcpy(name, v, n);
                name[n] = '\0';
                variant[num_variant++] = name;
                if (!v[n]) break;
                v += n + 1;
            }
        }
        else if (IS("--infer-rows")) {
            char *end;
            errno = 0;
            long long v = strtoll(value, &end, 10);
            if (errno || end == value || *end || v < 1)
                rc = cli_usage_error("convert: --infer-rows needs a count from 1, not '%s'", value);
            ti.infer_rows = v;
        } else if (IS("--delimiter")) {
            if (strcmp(value, "\\t") == 0 || strcmp(value, "tab") == 0) ti.delimiter = '\t';
            else if (strlen(value) == 1 && value[0] != '"' && value[0] != '\n' && value[0] != '\r')
                ti.delimiter = value[0];
            else rc = cli_usage_error("convert: --delimiter needs one character, not '%s'", value);
            delimiter_set = true;
        }
#undef IS
    }
    if (rc == 0 && (!in || !out)) rc = cli_usage_error("convert: needs IN and OUT");
    ti.variant = (const char *const *)variant;
    ti.num_variant = num_variant;
    if (rc) goto end;
    bool tsv = false;
    convert_format fin = from ? format_named(from) : format_of_path(in, &tsv);
    convert_format fout = to ? format_named(to) : format_of_path(out, NULL);
    if (fin == FMT_NONE)
        rc = from ? cli_usage_error("convert: unknown format '%s' (parquet, csv, jsonl)", from)
                  : cli_usage_error("convert: cannot tell the format of '%s' (use --from)", in);
    else if (fout == FMT_NONE)
        rc = to ? cli_usage_error("convert: unknown format '%s' (parquet, csv, jsonl)", to)
                : cli_usage_error("convert: cannot tell the format of '%s' (use --to)", out);
    else if (fin != FMT_PARQUET && fout != FMT_PARQUET)
        rc = cli_usage_error("convert: CSV and JSON lines input converts to parquet only");
    else if (fin == FMT_PARQUET && num_variant > 0)
        rc = cli_usage_error("convert: --variant applies to CSV and JSON lines input");
    if (rc == 0) {
        if (tsv && !delimiter_set) ti.delimiter = '\t';
        ti.jsonl = fin == FMT_JSONL;
        if (fin != FMT_PARQUET) rc = cli_text_to_parquet(in, out, &ti, &wo);
        else if (fout == FMT_PARQUET) rc = convert_parquet(in, out, &wo);
        else rc = convert_to_text(in, out, fout);
    }
end:
    cli_wopts_free(&wo);
    for (int32_t k = 0; k < num_variant; k++) free(variant[k]);
    free(variant);
    return rc;
}
