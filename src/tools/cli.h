/*
 * cli.h: shared pieces of the `plank` command-line tool. The tool uses only
 * the public API (plank.h); the value text comes from cli_value.h.
 *
 * Exit codes: 0 success, 1 an error (one line on stderr:
 * "plank: FILE: message (at byte offset X, row group R, column C, page P)"
 * with the known location parts), 2 bad arguments (a message and usage).
 */
#ifndef PLANK_CLI_H
#define PLANK_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_arrow.h"
#include "cli_value.h"
#include "plank.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_ERROR 1
#define CLI_EXIT_USAGE 2

/* ---- Buffered output ------------------------------------------------------- */

/* Output accumulates in `buf` and goes to the FILE in large writes. */
typedef struct cli_out {
    cli_buf buf;
    FILE *file;
    bool failed; /* a write failed; later flushes do nothing */
} cli_out;

#define CLI_OUT_FLUSH_AT (1u << 20)

void cli_out_init(cli_out *o, FILE *file);
/* Writes everything buffered; false if the write failed. */
bool cli_out_flush(cli_out *o);
/* Flushes and frees; returns false if any write failed (then the caller
 * reports the error). */
bool cli_out_close(cli_out *o);
static inline void cli_out_maybe_flush(cli_out *o) {
    if (o->buf.len >= CLI_OUT_FLUSH_AT) cli_out_flush(o);
}

/* ---- Errors ----------------------------------------------------------------- */

/* Prints the one error line for `file` from a library call that returned
 * `status` (err->code is taken when set); row_group and column (>= 0) fill
 * the location parts the library left unknown. Returns CLI_EXIT_ERROR. */
int cli_report(const char *file, plank_status status, const plank_error *err, int32_t row_group,
               int32_t column);
/* An error found by the tool itself ("plank: FILE: message"). */
int cli_fail(const char *file, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A usage error: the message and the usage text on stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void cli_usage(FILE *f);

/* ---- Arguments -------------------------------------------------------------- */

enum {
    CLI_OPT_COLUMNS = 1 << 0,
    CLI_OPT_LIMIT = 1 << 1,
    CLI_OPT_FORMAT = 1 << 2,
    CLI_OPT_REPEAT = 1 << 3,
    CLI_OPT_JSON = 1 << 4,
    CLI_OPT_NO_CHECKSUM = 1 << 5,
    CLI_OPT_ARROW = 1 << 6,
    CLI_OPT_ROWS = 1 << 7,
    CLI_OPT_MMAP = 1 << 8,
    CLI_OPT_THREADS = 1 << 9,
    CLI_OPT_DATASET = 1 << 10, /* more than one FILE (a dataset) */
    CLI_OPT_BATCH_ROWS = 1 << 11
};

#define CLI_MAX_FILES 256 /* FILE arguments of one command; directories and globs hold more */

typedef struct cli_options {
    const char *file;
    const char *columns; /* --columns a,b (NULL: the default set) */
    int64_t limit;       /* --limit N, -1 when absent */
    const char *format;  /* --format NAME */
    int64_t repeat;      /* --repeat N, -1 when absent */
    bool json;           /* --json */
    bool no_checksum;    /* --no-checksum: skip page CRC32 verification */
    bool arrow;          /* --arrow: bench through the Arrow stream */
    const char *rows;    /* --rows every:K | range:FIRST:COUNT (bench read) */
    bool mmap;           /* --mmap: plank_reader_options.memory_map (bench read) */
    int32_t threads;     /* --threads N (0..1024): plank_arrow_options.threads; -1 absent */
    int64_t batch_rows;  /* --batch-rows N: plank_arrow_options.batch_rows; 0 absent */
    const char *more[CLI_MAX_FILES]; /* FILE arguments after the first (CLI_OPT_DATASET) */
    int32_t nmore;
} cli_options;

/* Monotonic seconds, and a qsort comparison of doubles (the benchmarks). */
double cli_seconds(void);
int cli_cmp_double(const void *a, const void *b);

/* ---- Datasets (cli_dataset.c) ---- */

/* Whether the FILE arguments name a dataset: several, a directory or a glob. */
bool cli_is_dataset(const cli_options *o);
int cli_dataset_schema(const cli_options *o);
/* cat and scan over a dataset: JSON lines (or the count); flags holds the
 * scan's pruning switches. */
int cli_dataset_rows(const cli_options *o, const char *where, bool count, bool explain,
                     const plank_scan_options *flags);
int cli_dataset_bench(const cli_options *o);

/* The reading threads of a command: --threads when given, else 0 (one per
 * processor), or 1 when only `limit` rows (>= 0) are wanted and they fit one
 * batch (decoding ahead would be wasted). */
int32_t cli_read_threads(int32_t threads, int64_t limit);

/* Parses `FILE` and the options in `allowed` (in any order, as "--opt V" or
 * "--opt=V"). Returns 0, or CLI_EXIT_USAGE after printing why. */
int cli_parse_options(int argc, char **argv, unsigned allowed, const char *command,
                      cli_options *o);

/* Remote files (http://, https://, s3://): the library's defaults, then
 * the environment: PLANK_REMOTE_CA_FILE (a PEM bundle), PLANK_REMOTE_PREFETCH=0
 * (one request per read, in turn), PLANK_REMOTE_MAX_REQUESTS=N; S3
 * credentials, region and endpoint from the AWS_* variables. */
void cli_remote_options(plank_remote_options *o);
/* With PLANK_IO_STATS=1: the reader's I/O counters on stderr. */
void cli_report_io(const plank_reader *r);

/* Opens FILE (a path or a URL) for reading; on failure reports it and
 * returns CLI_EXIT_ERROR. */
int cli_open(const char *file, const plank_reader_options *opts, plank_reader **out);

/* Resolves --columns (comma-separated dotted paths or leaf names; a group's
 * path stands for every leaf below it) into leaf column indexes in the order
 * named (repeats kept), or every leaf when list is NULL. On success *cols
 * (malloc'd, free it) and *n are set and 0 is returned; otherwise the error
 * is reported and CLI_EXIT_ERROR returned. */
int cli_select_columns(const char *file, const plank_reader *r, const char *list, int32_t **cols,
                       int32_t *n);
/* Sorts cols[0..*n) and drops repeats (the set a reader selection takes). */
void cli_sort_unique(int32_t *cols, int32_t *n);

/* plank_reader_row_group with the error reported; 0 or CLI_EXIT_ERROR. */
int cli_row_group(const char *file, const plank_reader *r, int32_t g, plank_row_group_info *out);

/* The value format of a leaf column (from its schema node). */
void cli_column_value_format(const plank_reader *r, int32_t column, cli_value_format *f);

/* ---- Writing (cli_wopts.c) ------------------------------------------------- */

/* The writer options of `convert` and `bench write`. */
typedef struct cli_wopts {
    plank_writer_options opts;
    plank_column_options *columns; /* --encoding / --bloom, one entry per column */
    int32_t num_columns;
    int64_t row_group_rows;        /* --row-group-size, -1 when absent */
} cli_wopts;

void cli_wopts_init(cli_wopts *w);
void cli_wopts_free(cli_wopts *w);
/* Whether `name` (up to len characters, "--x" of "--x=v") is a writer
 * option: 1 with a value, 0 a flag, -1 not one. */
int cli_wopts_kind(const char *name, size_t len);
/* Applies one writer option (arg "--name" or "--name=v"; value as given or
 * NULL for flags): 0, CLI_EXIT_USAGE after printing why, -1 not one. An
 * --encoding value is cut in place at its '=' (argv outlives the options). */
int cli_wopts_parse(cli_wopts *w, const char *command, const char *arg, const char *value);
/* Points opts.columns at the per-column entries (call once parsing is done). */
void cli_wopts_finish(cli_wopts *w);

/* The value of option argv[*i] ("--x=v" or "--x v", advancing *i); 0 or
 * CLI_EXIT_USAGE. */
int cli_option_value(int argc, char **argv, int *i, const char *command, bool takes_value,
                     const char **value);
int cli_strcasecmp(const char *a, const char *b); /* ASCII case-insensitive */
/* A whole decimal integer in lo..hi. */
bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* A progress line on stderr, drawn only when stderr is a terminal (and
 * PLANK_NO_PROGRESS is unset), at most five times a second. */
typedef struct cli_progress {
    bool on, drawn;
    const char *unit; /* "rows", "bytes" */
    int64_t total;
    double last;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *unit, int64_t total);
void cli_progress_update(cli_progress *p, int64_t done);
void cli_progress_end(cli_progress *p); /* clears the line */

/* ---- CSV and JSON lines to Parquet (cli_textin.c) ------------------------------ */

typedef struct cli_text_in {
    bool jsonl;          /* else CSV */
    char delimiter;      /* CSV field separator */
    const char *schema;  /* --schema 'name:type,...' (NULL: infer every column) */
    int64_t infer_rows;  /* rows read before the types are decided */
    const char *const *variant; /* --variant: columns encoded as VARIANT from JSON text */
    int32_t num_variant;
} cli_text_in;

/* Converts the CSV or JSON lines file `in` to the Parquet file `out` with
 * the writer options; 0 or an exit code after reporting the error (no file
 * is left at `out` then). */
int cli_text_to_parquet(const char *in, const char *out, const cli_text_in *t, cli_wopts *w);

/* ---- cat as a library (cli_cat.c) -------------------------------------------- */

typedef struct cli_cat_args {
    const char *file;
    const char *columns;  /* NULL: all */
    int64_t limit;        /* -1: all rows */
    const char *format;   /* jsonl (NULL), csv, table */
    bool no_checksum;
    int32_t threads;      /* reading threads (cli_read_threads); -1: the default */
    FILE *out;
    cli_progress *progress; /* NULL: none; updated with the rows printed */
} cli_cat_args;

/* Prints the rows of a file as `plank cat` does; 0 or an exit code after
 * reporting the error. A failed write to `out` is reported naming out_name. */
int cli_cat_run(const cli_cat_args *a, const char *out_name);

/* ---- Commands (argv starts after the command name) -------------------------- */

int cli_schema_main(int argc, char **argv);
int cli_meta_main(int argc, char **argv);
int cli_cat_main(int argc, char **argv);
int cli_scan_main(int argc, char **argv);
int cli_bench_main(int argc, char **argv);
/* `plank bench scan` (cli_bench_scan.c). */
int cli_bench_scan_main(int argc, char **argv);
int cli_bench_write_main(int argc, char **argv);
int cli_tpch_main(int argc, char **argv);
int cli_convert_main(int argc, char **argv);

#endif /* PLANK_CLI_H */
