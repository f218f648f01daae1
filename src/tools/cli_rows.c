/*
 * cli_rows.c: rows of an Arrow stream as JSON lines, CSV or an aligned
 * table (see cli_rows.h), the output of `plank cat` and `plank scan`.
 *
 * Nested values print as JSON (structs as objects, lists as arrays, maps as
 * arrays of {"key":..,"value":..}), also as the text of a CSV or table
 * cell. Leaves are formatted by cli_value with their Parquet types (see
 * cli_arrow.h).
 */
#include <stdlib.h>

#include "cli_rows.h"

#define ROWS_TABLE_CELL_MAX 30 /* characters shown per table cell */

static const cli_anode *field(const cli_rows *st, int32_t c) {
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
/* Each returns NULL, or the message of a value that cannot be printed (a
 * malformed variant; see cli_anode_value). */
static const char *put_row_jsonl(cli_rows *st, const struct ArrowArray *a, int64_t i) {
    cli_buf *b = &st->out.buf;
    cli_buf_putc(b, '{');
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cli_anode *n = field(st, c);
        if (c) cli_buf_putc(b, ',');
        cli_buf_put(b, n->key.data, n->key.len);
        const char *e =
            cli_anode_value(b, n, a->children[st->order[c]], a->offset + i, CLI_STYLE_JSON);
        if (e) return e;
    }
    cli_buf_put(b, "}\n", 2);
    return NULL;
}

static const char *put_row_csv(cli_rows *st, const struct ArrowArray *a, int64_t i) {
    cli_buf *b = &st->out.buf;
    for (int32_t c = 0; c < st->num_cols; c++) {
        const cli_anode *n = field(st, c);
        const struct ArrowArray *col = a->children[st->order[c]];
        if (c) cli_buf_putc(b, ',');
        if (cli_anode_is_null(n, col, a->offset + i)) continue;
        st->cell.len = 0;
        const char *e = cli_anode_value(&st->cell, n, col, a->offset + i, CLI_STYLE_TEXT);
        if (e) return e;
        put_csv_field(b, st->cell.data, st->cell.len);
    }
    cli_buf_put(b, "\r\n", 2);
    return NULL;
}

static void table_end_cell(cli_rows_table *t) {
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

static const char *put_row_table(cli_rows *st, const struct ArrowArray *a, int64_t i) {
    for (int32_t c = 0; c < st->num_cols; c++) {
        const char *e = cli_anode_value(&st->table.text, field(st, c), a->children[st->order[c]],
                                        a->offset + i, CLI_STYLE_TEXT);
        if (e) return e;
        table_end_cell(&st->table);
    }
    return NULL;
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
    size_t limit = chars > ROWS_TABLE_CELL_MAX ? ROWS_TABLE_CELL_MAX - 1 : chars;
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
    if (chars > ROWS_TABLE_CELL_MAX) cli_buf_puts(b, "\xe2\x80\xa6");
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
    return w > ROWS_TABLE_CELL_MAX ? ROWS_TABLE_CELL_MAX : w;
}

/* One table line; right-aligned cells for numeric columns (not the header). */
static void put_table_line(cli_rows *st, const size_t *width, const char *const *cells,
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

static void flush_table(cli_rows *st, int64_t rows, int64_t total_rows) {
    int32_t nc = st->num_cols;
    cli_rows_table *t = &st->table;
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

/* The root field holding leaf column c (its top-level ancestor's name as
 * the Arrow schema has it: the output_name, unique among the siblings). */
static int32_t top_field_of(const cli_rows *st, const plank_reader *r, int32_t c) {
    const plank_schema_node *n = plank_reader_column_node(r, c);
    while (n->parent > 0) n = plank_reader_schema_node(r, n->parent);
    for (int32_t k = 0; k < st->root.n_children; k++)
        if (strcmp(st->root.children[k].name, n->output_name) == 0) return k;
    return -1;
}

static bool fail(cli_rows *st, const char *msg) {
    snprintf(st->why, sizeof st->why, "%s", msg);
    return false;
}

/* Print order: the top-level fields in the order --columns first names a
 * leaf of theirs; schema order without --columns. */
static bool make_order(cli_rows *st, const plank_reader *r) {
    st->order = calloc((size_t)st->root.n_children + 1, sizeof *st->order);
    if (!st->order) return fail(st, "out of memory");
    st->num_cols = 0;
    if (!st->by_name) {
        for (int32_t k = 0; k < st->root.n_children; k++) st->order[st->num_cols++] = k;
        return true;
    }
    for (int32_t i = 0; i < st->nnamed; i++) {
        int32_t k = top_field_of(st, r, st->named[i]);
        if (k < 0) {
            snprintf(st->why, sizeof st->why, "column %d has no field in the Arrow schema",
                     (int)st->named[i]);
            return false;
        }
        bool seen = false;
        for (int32_t j = 0; j < st->num_cols; j++) seen = seen || st->order[j] == k;
        if (!seen) st->order[st->num_cols++] = k;
    }
    return true;
}

/* ---- The interface ------------------------------------------------------------------ */

int cli_rows_parse_format(const char *command, const char *name, cli_rows_format *f) {
    if (!name || strcmp(name, "jsonl") == 0) *f = CLI_ROWS_JSONL;
    else if (strcmp(name, "csv") == 0) *f = CLI_ROWS_CSV;
    else if (strcmp(name, "table") == 0) *f = CLI_ROWS_TABLE;
    else return cli_usage_error("%s: unknown format '%s' (jsonl, csv or table)", command, name);
    return 0;
}

int64_t cli_rows_limit(cli_rows_format f, int64_t limit) {
    return limit < 0 && f == CLI_ROWS_TABLE ? CLI_ROWS_TABLE_DEFAULT_LIMIT : limit;
}

void cli_rows_arrow_options(plank_arrow_options *ao, int64_t limit) {
    plank_arrow_options_init(ao);
    ao->int96_as_binary = true;
    ao->batch_rows = limit > 0 && limit < CLI_ROWS_BATCH ? limit : CLI_ROWS_BATCH;
}

void cli_rows_init(cli_rows *rows) {
    memset(rows, 0, sizeof *rows);
    cli_out_init(&rows->out, stdout);
    cli_buf_init(&rows->cell);
    cli_buf_init(&rows->table.text);
}

int cli_rows_select(cli_rows *st, const char *file, const plank_reader *r, const char *list) {
    int rc = cli_select_columns(file, r, list, &st->named, &st->nnamed);
    if (rc) return rc;
    st->by_name = list != NULL;
    st->cols = malloc(sizeof *st->cols * (size_t)(st->nnamed + 1));
    if (!st->cols) return cli_fail(file, "out of memory");
    memcpy(st->cols, st->named, sizeof *st->cols * (size_t)st->nnamed);
    st->ncols = st->nnamed;
    cli_sort_unique(st->cols, &st->ncols);
    return 0;
}

/* The message of a stream call that returned `code`. */
static bool stream_failed(cli_rows *st, struct ArrowArrayStream *s, int code) {
    const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
    return fail(st, msg && *msg ? msg : strerror(code));
}

bool cli_rows_open(cli_rows *st, cli_rows_format format, const plank_reader *r,
                   struct ArrowArrayStream *s, FILE *out) {
    st->format = format;
    st->out.file = out;
    int code = s->get_schema(s, &st->schema);
    if (code != 0) return stream_failed(st, s, code);
    if (!cli_anode_build(&st->root, r, &st->schema, st->cols, st->ncols, st->why, sizeof st->why))
        return false;
    if (!make_order(st, r)) return false;
    if (st->format == CLI_ROWS_CSV) {
        for (int32_t c = 0; c < st->num_cols; c++) {
            if (c) cli_buf_putc(&st->out.buf, ',');
            put_csv_field(&st->out.buf, field(st, c)->name, strlen(field(st, c)->name));
        }
        cli_buf_put(&st->out.buf, "\r\n", 2);
    }
    return true;
}

bool cli_rows_print(cli_rows *st, struct ArrowArrayStream *s, int64_t *remaining,
                    int64_t *printed) {
    while (*remaining != 0 && st->num_cols > 0) {
        struct ArrowArray a;
        memset(&a, 0, sizeof a);
        int code = s->get_next(s, &a);
        if (code != 0) return stream_failed(st, s, code);
        if (!a.release) return true; /* end of stream */
        if (!cli_anode_check(&st->root, &a, st->why, sizeof st->why)) {
            a.release(&a);
            return false;
        }
        for (int64_t i = 0; i < a.length && *remaining != 0; i++) {
            const char *e = NULL;
            switch (st->format) {
            case CLI_ROWS_JSONL: e = put_row_jsonl(st, &a, i); break;
            case CLI_ROWS_CSV: e = put_row_csv(st, &a, i); break;
            case CLI_ROWS_TABLE: e = put_row_table(st, &a, i); break;
            }
            if (e) {
                snprintf(st->why, sizeof st->why, "row %lld: %s", (long long)*printed, e);
                a.release(&a);
                return false;
            }
            cli_out_maybe_flush(&st->out);
            if (*remaining > 0) (*remaining)--;
            (*printed)++;
        }
        if (st->progress) cli_progress_update(st->progress, *printed);
        a.release(&a);
    }
    return true;
}

bool cli_rows_finish(cli_rows *st, bool complete, int64_t printed, int64_t total) {
    if (complete && st->format == CLI_ROWS_TABLE && st->num_cols > 0)
        flush_table(st, printed, total);
    return cli_out_close(&st->out);
}

void cli_rows_free(cli_rows *st) {
    cli_buf_free(&st->out.buf);
    cli_buf_free(&st->cell);
    cli_buf_free(&st->table.text);
    free(st->table.ends);
    free(st->order);
    cli_anode_free(&st->root);
    if (st->schema.release) st->schema.release(&st->schema);
    free(st->named);
    free(st->cols);
    memset(st, 0, sizeof *st);
}
