/*
 * cli_cat.c: `plank cat FILE [--columns a,b] [--limit N] [--format F]`:
 * rows as JSON lines, CSV or an aligned table.
 *
 * Rows come from plank's Arrow stream (plank_reader_arrow_stream, INT96 kept
 * as its raw 12 bytes) over the selected columns and print through
 * cli_rows (cli_rows.h).
 *
 * --columns names leaves or groups; a partly selected group prints with
 * the selected fields only. Top-level fields print in the order the list
 * first names them (each once), else in schema order.
 */
#include <stdlib.h>

#include "cli_rows.h"

int cli_cat_main(int argc, char **argv) {
    cli_options o;
    int rc = cli_parse_options(argc, argv,
                               CLI_OPT_COLUMNS | CLI_OPT_LIMIT | CLI_OPT_FORMAT |
                                   CLI_OPT_NO_CHECKSUM | CLI_OPT_THREADS | CLI_OPT_DATASET,
                               "cat", &o);
    if (rc) return rc;
    if (cli_is_dataset(&o)) {
        if (o.format && strcmp(o.format, "jsonl") != 0)
            return cli_usage_error("cat: a dataset prints JSON lines only");
        plank_scan_options flags;
        plank_scan_options_init(&flags);
        return cli_dataset_rows(&o, NULL, false, false, &flags);
    }
    cli_cat_args a;
    memset(&a, 0, sizeof a);
    a.file = o.file;
    a.columns = o.columns;
    a.limit = o.limit;
    a.format = o.format;
    a.no_checksum = o.no_checksum;
    a.threads = o.threads;
    a.out = stdout;
    return cli_cat_run(&a, o.file);
}

int cli_cat_run(const cli_cat_args *args, const char *out_name) {
    cli_rows_format format;
    int rc;
    if ((rc = cli_rows_parse_format("cat", args->format, &format))) return rc;
    int64_t remaining = cli_rows_limit(format, args->limit); /* -1: all rows */
    cli_rows rows;
    cli_rows_init(&rows);
    rows.progress = args->progress;
    struct ArrowArrayStream s;
    memset(&s, 0, sizeof s);

    /* Resolve the names on a first open, then read with that selection. */
    plank_reader *r;
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.verify_checksums = !args->no_checksum;
    if ((rc = cli_open(args->file, &opts, &r))) return rc;
    rc = cli_rows_select(&rows, args->file, r, args->columns);
    cli_report_io(r);
    plank_reader_close(r);
    r = NULL;
    opts.columns = rows.cols;
    opts.num_columns = rows.ncols;
    /* A file without leaf columns has nothing to print. */
    if (rc || rows.ncols == 0 || (rc = cli_open(args->file, &opts, &r))) goto done;

    plank_arrow_options ao;
    cli_rows_arrow_options(&ao, remaining);
    ao.threads = cli_read_threads(args->threads, remaining);
    plank_error err;
    plank_error_init(&err);
    plank_status ps = plank_reader_arrow_stream(r, NULL, 0, &ao, &s, &err);
    if (ps != PLANK_OK) {
        rc = cli_report(args->file, ps, &err, -1, -1);
        goto done;
    }
    if (!cli_rows_open(&rows, format, r, &s, args->out)) {
        rc = cli_fail(args->file, "%s", rows.why);
        goto done;
    }
    int64_t printed = 0;
    if (!cli_rows_print(&rows, &s, &remaining, &printed))
        rc = cli_fail(args->file, "%s", rows.why);
    bool written = cli_rows_finish(&rows, rc == 0, printed, plank_reader_num_rows(r));
    if (rc == 0 && !written) rc = cli_fail(out_name, "cannot write the output");

done:
    cli_rows_free(&rows);
    if (s.release) s.release(&s);
    plank_reader_close(r);
    return rc;
}
