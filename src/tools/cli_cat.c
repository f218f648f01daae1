/*
 * cli_cat.c: `plank cat FILE [--columns a,b] [--limit N] [--format F]`:
 * rows of the flat (top-level, non-repeated) columns as JSON lines, CSV or
 * an aligned table.
 *
 * Each row group is read with one column reader per selected column, in
 * batches; rows are assembled across the columns' current batches and
 * written through one large output buffer.
 */
#include <stdlib.h>

#include "cli.h"

#define CAT_BATCH 4096
#define CAT_TABLE_DEFAULT_LIMIT 100
#define CAT_TABLE_CELL_MAX 30 /* characters shown per table cell */

typedef enum cat_format { CAT_JSONL, CAT_CSV, CAT_TABLE } cat_format;

typedef struct cat_column {
    int32_t column;
    const char *name;
    cli_value_format fmt;
    plank_column_reader *cr;
    plank_batch batch;
    int64_t pos;     /* next slot of batch */
    cli_buf key;     /* JSONL: "\"name\":" */
} cat_column;

/* Table mode keeps the cells of up to --limit rows to size the columns. */
typedef struct cat_table {
    cli_buf text;     /* all cells back to back */
    size_t *ends;     /* end offset of each cell in text */
    size_t num_cells, cap_cells;
} cat_table;

typedef struct cat_state {
    const char *file;
    cat_format format;
    cat_column *cols;
    int32_t num_cols;
    cli_out out;
    cli_buf cell; /* scratch for CSV quoting */
    cat_table table;
} cat_state;

/* ---- One value ------------------------------------------------------------------ */

/* Appends the value of slot `i` of col's batch (which must be non-null). */
static void put_slot(cli_buf *b, const cat_column *col, int64_t i, cli_style style) {
    const plank_batch *bt = &col->batch;
    const uint8_t *p;
    size_t len;
    uint8_t bit;
    if (col->fmt.physical == PLANK_BOOLEAN) {
        bit = (((const uint8_t *)bt->values)[i >> 3] >> (i & 7)) & 1;
        p = &bit;
        len = 1;
    } else if (col->fmt.physical == PLANK_BYTE_ARRAY) {
        int64_t start = bt->offsets[i], end = bt->offsets[i + 1];
        if (start < 0 || end < start) start = end = 0; /* never from a sound reader */
        p = bt->data + start;
        len = (size_t)(end - start);
    } else {
        len = (size_t)bt->value_width;
        p = (const uint8_t *)bt->values + (size_t)i * len;
    }
    if (!cli_format_value(b, &col->fmt, p, len, style)) {
        /* The reader's width disagrees with the schema: show the bytes. */
        if (style == CLI_STYLE_JSON) cli_buf_putc(b, '"');
        cli_format_base64(b, p, len);
        if (style == CLI_STYLE_JSON) cli_buf_putc(b, '"');
    }
}

static bool slot_is_null(const cat_column *col, int64_t i) {
    const uint8_t *v = col->batch.validity;
    return col->fmt.kind == CLI_V_NULL || (v && !((v[i >> 3] >> (i & 7)) & 1));
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

static void put_row_jsonl(cat_state *st, int64_t *pos) {
    cli_buf *b = &st->out.buf;
    cli_buf_putc(b, '{');
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cat_column *col = &st->cols[c];
        if (c) cli_buf_putc(b, ',');
        cli_buf_put(b, col->key.data, col->key.len);
        if (slot_is_null(col, pos[c])) cli_buf_put(b, "null", 4);
        else put_slot(b, col, pos[c], CLI_STYLE_JSON);
    }
    cli_buf_put(b, "}\n", 2);
}

static void put_row_csv(cat_state *st, int64_t *pos) {
    cli_buf *b = &st->out.buf;
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cat_column *col = &st->cols[c];
        if (c) cli_buf_putc(b, ',');
        if (slot_is_null(col, pos[c])) continue;
        st->cell.len = 0;
        put_slot(&st->cell, col, pos[c], CLI_STYLE_TEXT);
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

static void put_row_table(cat_state *st, int64_t *pos) {
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cat_column *col = &st->cols[c];
        if (slot_is_null(col, pos[c])) cli_buf_puts(&st->table.text, "null");
        else put_slot(&st->table.text, col, pos[c], CLI_STYLE_TEXT);
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
        bool right = !header && right_aligned(st->cols[c].fmt.kind);
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
        width[c] = cell_width(st->cols[c].name, strlen(st->cols[c].name));
    }
    for (size_t i = 0; i < t->num_cells; i++) {
        size_t start = i ? t->ends[i - 1] : 0;
        size_t w = cell_width(t->text.data + start, t->ends[i] - start);
        if (w > width[i % (size_t)nc]) width[i % (size_t)nc] = w;
    }
    /* Header (left-aligned), separator, rows. */
    for (int32_t c = 0; c < nc; c++) {
        cells[c] = st->cols[c].name;
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

static void close_readers(cat_state *st) {
    for (int32_t c = 0; c < st->num_cols; c++) {
        plank_column_reader_close(st->cols[c].cr);
        st->cols[c].cr = NULL;
    }
}

/* Makes sure col has a slot at its position; on error reports it. */
static int next_batch(cat_state *st, cat_column *col, int32_t g, int64_t row) {
    plank_error err;
    plank_error_init(&err);
    plank_status s = plank_column_reader_read(col->cr, CAT_BATCH, &col->batch, &err);
    if (s != PLANK_OK) return cli_report(st->file, s, &err, g, col->column);
    if (col->batch.length <= 0) {
        plank_error_init(&err);
        err.code = PLANK_ERR_CORRUPT;
        snprintf(err.message, sizeof err.message,
                 "column %s ends after %lld values but the row group has more rows", col->name,
                 (long long)row);
        return cli_report(st->file, err.code, &err, g, col->column);
    }
    if (col->fmt.physical == PLANK_BYTE_ARRAY && !col->batch.offsets) {
        return cli_fail(st->file, "column %s: the reader returned no offsets", col->name);
    }
    col->pos = 0;
    return 0;
}

/* Prints rows of row group g until it ends or *remaining reaches 0. */
static int cat_row_group(cat_state *st, plank_reader *r, int32_t g, int64_t *remaining,
                         int64_t *printed, int64_t *pos) {
    plank_row_group_info info;
    int rc = cli_row_group(st->file, r, g, &info);
    if (rc) return rc;
    for (int32_t c = 0; c < st->num_cols; c++) {
        cat_column *col = &st->cols[c];
        plank_error err;
        plank_error_init(&err);
        plank_status s = plank_column_reader_open(r, g, col->column, &col->cr, &err);
        if (s != PLANK_OK) {
            col->cr = NULL;
            close_readers(st);
            return cli_report(st->file, s, &err, g, col->column);
        }
        col->batch.length = 0;
        col->pos = 0;
    }
    for (int64_t row = 0; row < info.num_rows && *remaining != 0 && rc == 0; row++) {
        for (int32_t c = 0; c < st->num_cols && rc == 0; c++) {
            cat_column *col = &st->cols[c];
            if (col->pos >= col->batch.length) rc = next_batch(st, col, g, row);
            pos[c] = col->pos++;
        }
        if (rc) break;
        switch (st->format) {
        case CAT_JSONL: put_row_jsonl(st, pos); break;
        case CAT_CSV: put_row_csv(st, pos); break;
        case CAT_TABLE: put_row_table(st, pos); break;
        }
        cli_out_maybe_flush(&st->out);
        if (*remaining > 0) (*remaining)--;
        (*printed)++;
    }
    close_readers(st);
    return rc;
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
    cat_state st;
    int rc = cli_parse_options(argc, argv, CLI_OPT_COLUMNS | CLI_OPT_LIMIT | CLI_OPT_FORMAT | CLI_OPT_NO_CHECKSUM, "cat",
                               &o);
    if (rc) return rc;
    memset(&st, 0, sizeof st);
    st.file = o.file;
    if ((rc = parse_format(o.format, &st.format))) return rc;
    int64_t remaining = o.limit; /* -1: all rows */
    if (remaining < 0 && st.format == CAT_TABLE) remaining = CAT_TABLE_DEFAULT_LIMIT;

    plank_reader *r;
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.verify_checksums = !o.no_checksum;
    if ((rc = cli_open(o.file, &opts, &r))) return rc;
    int32_t *cols = NULL;
    if ((rc = cli_select_columns(o.file, r, o.columns, true, &cols, &st.num_cols))) {
        plank_reader_close(r);
        return rc;
    }
    st.cols = calloc((size_t)st.num_cols + 1, sizeof *st.cols);
    int64_t *pos = calloc((size_t)st.num_cols + 1, sizeof *pos);
    if (!st.cols || !pos) {
        free(cols);
        free(st.cols);
        free(pos);
        plank_reader_close(r);
        return cli_fail(o.file, "out of memory");
    }
    for (int32_t c = 0; c < st.num_cols; c++) {
        cat_column *col = &st.cols[c];
        col->column = cols[c];
        col->name = plank_reader_column_node(r, cols[c])->name;
        cli_column_value_format(r, cols[c], &col->fmt);
        cli_buf_init(&col->key);
        cli_json_string(&col->key, (const uint8_t *)col->name, strlen(col->name));
        cli_buf_putc(&col->key, ':');
    }
    free(cols);
    cli_out_init(&st.out, stdout);
    cli_buf_init(&st.cell);
    cli_buf_init(&st.table.text);

    if (st.format == CAT_CSV) {
        for (int32_t c = 0; c < st.num_cols; c++) {
            if (c) cli_buf_putc(&st.out.buf, ',');
            put_csv_field(&st.out.buf, st.cols[c].name, strlen(st.cols[c].name));
        }
        cli_buf_put(&st.out.buf, "\r\n", 2);
    }
    int64_t printed = 0;
    if (st.num_cols > 0) {
        for (int32_t g = 0; g < plank_reader_num_row_groups(r) && remaining != 0 && rc == 0; g++)
            rc = cat_row_group(&st, r, g, &remaining, &printed, pos);
    }
    if (rc == 0 && st.format == CAT_TABLE && st.num_cols > 0)
        flush_table(&st, printed, plank_reader_num_rows(r));

    bool written = cli_out_close(&st.out);
    if (rc == 0 && !written) rc = cli_fail(o.file, "cannot write the output");
    for (int32_t c = 0; c < st.num_cols; c++) cli_buf_free(&st.cols[c].key);
    cli_buf_free(&st.cell);
    cli_buf_free(&st.table.text);
    free(st.table.ends);
    free(st.cols);
    free(pos);
    plank_reader_close(r);
    return rc;
}
