/*
 * cli_rows.h: printing the rows of an Arrow stream as `plank cat` does
 * (jsonl, csv or table), shared by `cat` and `scan`.
 *
 * The stream's struct arrays are walked with a cli_anode tree (cli_arrow.h),
 * so every value has the text of the flat reader. Functions that can fail
 * return false and leave the message in rows->why; the command reports it
 * in its own words.
 */
#ifndef PLANK_CLI_ROWS_H
#define PLANK_CLI_ROWS_H

#include "cli.h"

#define CLI_ROWS_BATCH 65536             /* records per Arrow batch */
#define CLI_ROWS_TABLE_DEFAULT_LIMIT 100 /* rows a table shows without --limit */

typedef enum cli_rows_format { CLI_ROWS_JSONL, CLI_ROWS_CSV, CLI_ROWS_TABLE } cli_rows_format;

/* Table mode keeps the cells of every row shown to size the columns. */
typedef struct cli_rows_table {
    cli_buf text;     /* all cells back to back */
    size_t *ends;     /* end offset of each cell in text */
    size_t num_cells, cap_cells;
} cli_rows_table;

typedef struct cli_rows {
    cli_rows_format format;
    int32_t *named;         /* the leaves --columns names, in its order (repeats kept) */
    int32_t nnamed;
    int32_t *cols;          /* the same leaves ascending, each once: the stream's */
    int32_t ncols;
    bool by_name;           /* top-level fields in the order of `named` (else schema order) */
    struct ArrowSchema schema; /* the stream's */
    cli_anode root;         /* the stream's struct */
    int32_t *order;         /* root children to print, in this order */
    int32_t num_cols;
    cli_out out;
    cli_buf cell;           /* scratch for CSV quoting */
    cli_rows_table table;
    cli_progress *progress; /* NULL: none; updated with the rows printed */
    char why[PLANK_ERROR_MESSAGE_SIZE];
} cli_rows;

/* --format NAME (NULL: jsonl); 0 or CLI_EXIT_USAGE after printing why. */
int cli_rows_parse_format(const char *command, const char *name, cli_rows_format *f);
/* The row limit a format prints: --limit N (-1 when absent; a table then
 * shows CLI_ROWS_TABLE_DEFAULT_LIMIT rows). */
int64_t cli_rows_limit(cli_rows_format f, int64_t limit);
/* Arrow export options for printing at most `limit` rows (-1: all): INT96
 * as its raw bytes (the text cli_value gives them), batches no larger than
 * needed. */
void cli_rows_arrow_options(plank_arrow_options *ao, int64_t limit);

/* Zeroes rows so that cli_rows_free is safe at any point. */
void cli_rows_init(cli_rows *rows);
/* Resolves --columns (`list`, NULL: every leaf; see cli_select_columns)
 * against r into rows->named and rows->cols (the leaves the stream must
 * hold). 0, or CLI_EXIT_ERROR after the error was reported. */
int cli_rows_select(cli_rows *rows, const char *file, const plank_reader *r, const char *list);
/* Prepares to print the stream s of the leaves rows->cols of r to `out`:
 * takes its schema and writes the CSV header. Top-level fields print in the
 * order --columns first names a leaf of theirs, or in schema order without
 * it. False with rows->why on failure. */
bool cli_rows_open(cli_rows *rows, cli_rows_format format, const plank_reader *r,
                   struct ArrowArrayStream *s, FILE *out);
/* Prints the stream's rows until it ends or *remaining (-1: no limit)
 * reaches 0, counting them in *printed; batches after the last row needed
 * are not asked for. False with rows->why when the stream fails. */
bool cli_rows_print(cli_rows *rows, struct ArrowArrayStream *s, int64_t *remaining,
                    int64_t *printed);
/* Ends the output: a table (when `complete`) is laid out with the footer
 * "(printed of total rows)"; everything is written out. False when a write
 * failed. */
bool cli_rows_finish(cli_rows *rows, bool complete, int64_t printed, int64_t total);
void cli_rows_free(cli_rows *rows);

#endif /* PLANK_CLI_ROWS_H */
