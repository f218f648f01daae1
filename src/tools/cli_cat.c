/*
 * cli_cat.c: `plank cat FILE [--columns a,b] [--limit N] [--format F]`:
 * rows as JSON lines, CSV or an aligned table.
 *
 * Rows come from plank's Arrow stream (plank_reader_arrow_stream, INT96 kept
 * as its raw 12 bytes) over the selected columns; nested values print as
 * JSON (structs as objects, lists as arrays, maps as arrays of
 * {"key":..,"value":..}), also as the text of a CSV or table cell. Leaves
 * are formatted by cli_value with their Parquet types (see cli_arrow.h).
 *
 * --columns names leaves or groups; a partly selected group prints with
 * the selected fields only. Top-level fields print in the order the list
 * first names them (each once), else in schema order.
 */
#include <errno.h>
#include <stdlib.h>

#include "cli.h"

#define CAT_BATCH 65536
#define CAT_TABLE_DEFAULT_LIMIT 100
#define CAT_TABLE_CELL_MAX 30 /* characters shown per table cell */

typedef enum cat_format { CAT_JSONL, CAT_CSV, CAT_TABLE } cat_format;

/* Table mode keeps the cells of up to --limit rows to size the columns. */
typedef struct cat_table {
    cli_buf text;     /* all cells back to back */
    size_t *ends;     /* end offset of each cell in text */
    size_t num_cells, cap_cells;
} cat_table;

typedef struct cat_state {
    const char *file;
    cat_format format;
    cli_anode root;     /* the stream's struct */
    int32_t *order;     /* root children to print, in this order */
    int32_t num_cols;
    cli_out out;
    cli_buf cell;       /* scratch for CSV quoting */
    cat_table table;
    cli_progress *progress; /* NULL: none */
} cat_state;

static const cli_anode *field(const cat_state *st, int32_t c) {
    return &st->root.children[st->order[c]];
}

/* RFC 4180: quote a field holding a comma, quote or line break, doubling
 * the quotes; the empty string is quoted so it differs from null. */
static void put_csv_field(cli_buf *out, const char *s, size_t n) {
    bool quote = n == 0;
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        cli_buf_put(out, s, n);
        return;
    }
    cli_buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') cli_buf_putc(out, '"');
        cli_buf_putc(out, s[i]);
    }
    cli_buf_putc(out, '"');
}

/* ---- Rows ------------------------------------------------------------------------ */

/* Row i of the batch `a` (the root struct array). */
static void put_row_jsonl(cat_state *st, const struct ArrowArray *a, int64_t i) {
    cli_buf *b = &st->out.buf;
    cli_buf_putc(b, '{');
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cli_anode *n = field(st, c);
        if (c) cli_buf_putc(b, ',');
        cli_buf_put(b, n->key.data, n->key.len);
        cli_anode_value(b, n, a->children[st->order[c]], a->offset + i, CLI_STYLE_JSON);
    }
    cli_buf_put(b, "}\n", 2);
}

static void put_row_csv(cat_state *st, const struct ArrowArray *a, int64_t i) {
    cli_buf *b = &st->out.buf;
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cli_anode *n = field(st, c);
        const struct ArrowArray *col = a->children[st->order[c]];
        if (c) cli_buf_putc(b, ',');
        if (cli_anode_is_null(n, col, a->offset + i)) continue;
        st->cell.len = 0;
        cli_anode_value(&st->cell, n, col, a->offset + i, CLI_STYLE_TEXT);
        put_csv_field(b, st->cell.data, st->cell.len);
    }
    cli_buf_put(b, "\r\n", 2);
}

static void table_end_cell(cat_table *t) {
    if (t->num_cells == t->cap_cells) {
        size_t cap = t->cap_cells ? t->cap_cells * 2 : 256;
        size_t *e = realloc(t->ends, cap * sizeof *e);
        if (!e) {
            fputs("plank: out of memory\n", stderr);
            exit(CLI_EXIT_ERROR);
        }
        t->ends = e;
        t->cap_cells = cap;
    }
    t->ends[t->num_cells++] = t->text.len;
}

static void put_row_table(cat_state *st, const struct ArrowArray *a, int64_t i) {
    for (int32_t c = 0; c < st->num_cols; c++) {
        cli_anode_value(&st->table.text, field(st, c), a->children[st->order[c]], a->offset + i,
                        CLI_STYLE_TEXT);
        table_end_cell(&st->table);
    }
}

/* Characters (UTF-8 code points) in s[0..n). */
static size_t display_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += ((uint8_t)s[i] & 0xc0) != 0x80;
    return w;
}

/* Writes a cell for people: control characters become '?', and text longer
 * than the limit is cut at a character boundary and ends with "…". */
static void put_display_cell(cli_buf *b, const char *s, size_t n) {
    size_t chars = display_width(s, n), shown = 0;
    size_t limit = chars > CAT_TABLE_CELL_MAX ? CAT_TABLE_CELL_MAX - 1 : chars;
    size_t i = 0;
    while (i < n) {
        if (((uint8_t)s[i] & 0xc0) != 0x80) {
            if (shown == limit) break;
            shown++;
        }
        uint8_t c = (uint8_t)s[i];
        cli_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
        i++;
    }
    if (chars > CAT_TABLE_CELL_MAX) cli_buf_puts(b, "\xe2\x80\xa6");
}

static void put_spaces(cli_buf *b, size_t n) {
    for (size_t i = 0; i < n; i++) cli_buf_putc(b, ' ');
}

static bool right_aligned(cli_value_kind k) {
    return k == CLI_V_INT || k == CLI_V_UINT || k == CLI_V_FLOAT || k == CLI_V_DOUBLE ||
           k == CLI_V_FLOAT16 || k == CLI_V_DECIMAL;
}

/* The shown width of a cell: its characters, at most the cell limit. */
static size_t cell_width(const char *s, size_t n) {
    size_t w = display_width(s, n);
    return w > CAT_TABLE_CELL_MAX ? CAT_TABLE_CELL_MAX : w;
}

/* One table line; right-aligned cells for numeric columns (not the header). */
static void put_table_line(cat_state *st, const size_t *width, const char *const *cells,
                           const size_t *lens, bool header) {
    cli_buf *b = &st->out.buf;
    for (int32_t c = 0; c < st->num_cols; c++) {
        cli_buf_puts(b, c ? " | " : " ");
        size_t pad = width[c] - cell_width(cells[c], lens[c]);
        bool right = !header && field(st, c)->kind == CLI_A_LEAF && right_aligned(field(st, c)->fmt.kind);
        if (right) put_spaces(b, pad);
        put_display_cell(b, cells[c], lens[c]);
        if (!right && c + 1 < st->num_cols) put_spaces(b, pad);
    }
    cli_buf_putc(b, '\n');
}

static void flush_table(cat_state *st, int64_t rows, int64_t total_rows) {
    int32_t nc = st->num_cols;
    cat_table *t = &st->table;
    size_t *width = calloc((size_t)nc + 1, sizeof *width);
    const char **cells = calloc((size_t)nc + 1, sizeof *cells);
    size_t *lens = calloc((size_t)nc + 1, sizeof *lens);
    if (!width || !cells || !lens) {
        fputs("plank: out of memory\n", stderr);
        exit(CLI_EXIT_ERROR);
    }
    for (int32_t c = 0; c < nc; c++) {
        width[c] = cell_width(field(st, c)->name, strlen(field(st, c)->name));
    }
    for (size_t i = 0; i < t->num_cells; i++) {
        size_t start = i ? t->ends[i - 1] : 0;
        size_t w = cell_width(t->text.data + start, t->ends[i] - start);
        if (w > width[i % (size_t)nc]) width[i % (size_t)nc] = w;
    }
    /* Header (left-aligned), separator, rows. */
    for (int32_t c = 0; c < nc; c++) {
        cells[c] = field(st, c)->name;
        lens[c] = strlen(cells[c]);
    }
    put_table_line(st, width, cells, lens, true);
    for (int32_t c = 0; c < nc; c++) {
        if (c) cli_buf_putc(&st->out.buf, '+');
        for (size_t k = 0; k < width[c] + 2; k++) cli_buf_putc(&st->out.buf, '-');
    }
    cli_buf_putc(&st->out.buf, '\n');
    for (int64_t r = 0; r < rows; r++) {
        for (int32_t c = 0; c < nc; c++) {
            size_t i = (size_t)r * (size_t)nc + (size_t)c;
            size_t start = i ? t->ends[i - 1] : 0;
            cells[c] = t->text.data + start;
            lens[c] = t->ends[i] - start;
        }
        put_table_line(st, width, cells, lens, false);
        cli_out_maybe_flush(&st->out);
    }
    cli_buf_printf(&st->out.buf, "(%lld of %lld rows)\n", (long long)rows, (long long)total_rows);
    free(width);
    free(cells);
    free(lens);
}

/* ---- Reading ----------------------------------------------------------------------- */

/* The root field holding leaf column c (its top-level ancestor's name). */
static int32_t top_field_of(const cat_state *st, const plank_reader *r, int32_t c) {
    const plank_schema_node *n = plank_reader_column_node(r, c);
    while (n->parent > 0) n = plank_reader_schema_node(r, n->parent);
    for (int32_t k = 0; k < st->root.n_children; k++)
        if (strcmp(st->root.children[k].name, n->name) == 0) return k;
    return -1;
}

/* Print order: the top-level fields in the order --columns first names a
 * leaf of theirs; schema order without --columns. */
static int make_order(cat_state *st, const plank_reader *r, const int32_t *named, int32_t nnamed,
                      bool by_name) {
    st->order = calloc((size_t)st->root.n_children + 1, sizeof *st->order);
    if (!st->order) return cli_fail(st->file, "out of memory");
    st->num_cols = 0;
    if (!by_name) {
        for (int32_t k = 0; k < st->root.n_children; k++) st->order[st->num_cols++] = k;
        return 0;
    }
    for (int32_t i = 0; i < nnamed; i++) {
        int32_t k = top_field_of(st, r, named[i]);
        if (k < 0) return cli_fail(st->file, "column %d has no field in the Arrow schema", (int)named[i]);
        bool seen = false;
        for (int32_t j = 0; j < st->num_cols; j++) seen = seen || st->order[j] == k;
        if (!seen) st->order[st->num_cols++] = k;
    }
    return 0;
}

static int stream_error(cat_state *st, struct ArrowArrayStream *s, int code) {
    const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
    return cli_fail(st->file, "%s", msg && *msg ? msg : strerror(code));
}

/* Prints the rows of the stream until it ends or *remaining reaches 0. */
static int cat_stream(cat_state *st, struct ArrowArrayStream *s, int64_t *remaining,
                      int64_t *printed) {
    char why[PLANK_ERROR_MESSAGE_SIZE];
    while (*remaining != 0) {
        struct ArrowArray a;
        memset(&a, 0, sizeof a);
        int code = s->get_next(s, &a);
        if (code != 0) return stream_error(st, s, code);
        if (!a.release) return 0; /* end of stream */
        if (!cli_anode_check(&st->root, &a, why, sizeof why)) {
            a.release(&a);
            return cli_fail(st->file, "%s", why);
        }
        for (int64_t i = 0; i < a.length && *remaining != 0; i++) {
            switch (st->format) {
            case CAT_JSONL: put_row_jsonl(st, &a, i); break;
            case CAT_CSV: put_row_csv(st, &a, i); break;
            case CAT_TABLE: put_row_table(st, &a, i); break;
            }
            cli_out_maybe_flush(&st->out);
            if (*remaining > 0) (*remaining)--;
            (*printed)++;
        }
        if (st->progress) cli_progress_update(st->progress, *printed);
        a.release(&a);
    }
    return 0;
}

static int parse_format(const char *s, cat_format *f) {
    if (!s || strcmp(s, "jsonl") == 0) *f = CAT_JSONL;
    else if (strcmp(s, "csv") == 0) *f = CAT_CSV;
    else if (strcmp(s, "table") == 0) *f = CAT_TABLE;
    else return cli_usage_error("cat: unknown format '%s' (jsonl, csv or table)", s);
    return 0;
}

int cli_cat_main(int argc, char **argv) {
    cli_options o;
    int rc = cli_parse_options(argc, argv,
                               CLI_OPT_COLUMNS | CLI_OPT_LIMIT | CLI_OPT_FORMAT | CLI_OPT_NO_CHECKSUM,
                               "cat", &o);
    if (rc) return rc;
    cli_cat_args a;
    memset(&a, 0, sizeof a);
    a.file = o.file;
    a.columns = o.columns;
    a.limit = o.limit;
    a.format = o.format;
    a.no_checksum = o.no_checksum;
    a.out = stdout;
    return cli_cat_run(&a, o.file);
}

int cli_cat_run(const cli_cat_args *args, const char *out_name) {
    cat_state st;
    int rc;
    memset(&st, 0, sizeof st);
    st.file = args->file;
    st.progress = args->progress;
    if ((rc = parse_format(args->format, &st.format))) return rc;
    int64_t remaining = args->limit; /* -1: all rows */
    if (remaining < 0 && st.format == CAT_TABLE) remaining = CAT_TABLE_DEFAULT_LIMIT;

    /* Resolve the names on a first open, then read with that selection. */
    plank_reader *r;
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.verify_checksums = !args->no_checksum;
    if ((rc = cli_open(args->file, &opts, &r))) return rc;
    int32_t *named = NULL, nnamed = 0;
    rc = cli_select_columns(args->file, r, args->columns, &named, &nnamed);
    plank_reader_close(r);
    if (rc) return rc;
    int32_t *cols = malloc(sizeof *cols * (size_t)(nnamed + 1));
    if (!cols) {
        free(named);
        return cli_fail(args->file, "out of memory");
    }
    memcpy(cols, named, sizeof *cols * (size_t)nnamed);
    int32_t ncols = nnamed;
    cli_sort_unique(cols, &ncols);
    opts.columns = cols;
    opts.num_columns = ncols;
    if (ncols == 0 || (rc = cli_open(args->file, &opts, &r))) {
        /* A file without leaf columns has nothing to print. */
        free(named);
        free(cols);
        return rc;
    }

    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.int96_as_binary = true; /* the raw bytes: INT96 text as the format gives it */
    ao.batch_rows = remaining > 0 && remaining < CAT_BATCH ? remaining : CAT_BATCH;
    struct ArrowArrayStream s;
    struct ArrowSchema schema;
    memset(&s, 0, sizeof s);
    memset(&schema, 0, sizeof schema);
    plank_error err;
    plank_error_init(&err);
    plank_status ps = plank_reader_arrow_stream(r, NULL, 0, &ao, &s, &err);
    if (ps != PLANK_OK) {
        rc = cli_report(args->file, ps, &err, -1, -1);
        goto done;
    }
    int code = s.get_schema(&s, &schema);
    if (code != 0) {
        rc = stream_error(&st, &s, code);
        goto done;
    }
    char why[PLANK_ERROR_MESSAGE_SIZE];
    if (!cli_anode_build(&st.root, r, &schema, cols, ncols, why, sizeof why)) {
        rc = cli_fail(args->file, "%s", why);
        goto done;
    }
    if ((rc = make_order(&st, r, named, nnamed, args->columns != NULL))) goto done;

    cli_out_init(&st.out, args->out);
    cli_buf_init(&st.cell);
    cli_buf_init(&st.table.text);
    if (st.format == CAT_CSV) {
        for (int32_t c = 0; c < st.num_cols; c++) {
            if (c) cli_buf_putc(&st.out.buf, ',');
            put_csv_field(&st.out.buf, field(&st, c)->name, strlen(field(&st, c)->name));
        }
        cli_buf_put(&st.out.buf, "\r\n", 2);
    }
    int64_t printed = 0;
    if (st.num_cols > 0) rc = cat_stream(&st, &s, &remaining, &printed);
    if (rc == 0 && st.format == CAT_TABLE && st.num_cols > 0)
        flush_table(&st, printed, plank_reader_num_rows(r));
    bool written = cli_out_close(&st.out);
    if (rc == 0 && !written) rc = cli_fail(out_name, "cannot write the output");

done:
    cli_buf_free(&st.cell);
    cli_buf_free(&st.table.text);
    free(st.table.ends);
    free(st.order);
    cli_anode_free(&st.root);
    if (schema.release) schema.release(&schema);
    if (s.release) s.release(&s);
    plank_reader_close(r);
    free(named);
    free(cols);
    return rc;
}
