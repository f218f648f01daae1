/*
 * cli_scan.c: `plank scan FILE [--where EXPR] [--columns a,b] [--count]
 * [--limit N] [--format jsonl|csv|table] [--explain] [--no-pushdown]
 * [--no-stats] [--no-bloom] [--no-page-index] [--no-dictionary] [--mmap]`:
 * the rows of a file that pass a SQL predicate, read by the pushdown scan
 * (plank_scan_*) and printed in file order exactly as `plank cat` prints
 * them (cli_rows.h).
 *
 * Errors in the query (the predicate's syntax, with its byte position, and
 * binding: unknown columns, literals that do not fit a column) print
 * "plank scan: message"; errors of the file itself print as in every other
 * command ("plank: FILE: message (at ...)"). --explain writes the bound plan
 * (each step with its measured cost) and the scan's statistics on stderr
 * after the scan, so that stdout holds only the rows.
 */
#include <stdlib.h>

#include "cli_rows.h"

#define SCAN_CMD "scan"

typedef struct scan_args {
    cli_options o;     /* FILE, --columns, --limit, --format, --mmap */
    const char *where; /* NULL: every row */
    bool count, explain;
    bool no_pushdown, no_stats, no_bloom, no_page_index, no_dictionary;
} scan_args;

/* An error in the query: "plank scan: [what: ]message". */
static int scan_fail(const char *what, const char *msg) {
    fflush(stdout);
    fprintf(stderr, "plank %s: %s%s%s\n", SCAN_CMD, what ? what : "", what ? ": " : "", msg);
    return CLI_EXIT_ERROR;
}

/* A failed scan call: invalid arguments are the query's fault (binding),
 * anything else the file's. */
static int scan_report(const char *file, plank_status st, const plank_error *err) {
    if (st == PLANK_ERR_INVALID_ARGUMENT)
        return scan_fail(NULL, err->message[0] ? err->message : plank_status_string(st));
    return cli_report(file, st, err, -1, -1);
}

/* The options of scan alone are taken out here; the rest (FILE, --columns,
 * --limit, --format, --mmap) are cat's and bench's, parsed as theirs. */
static int parse_args(int argc, char **argv, scan_args *a) {
    const struct {
        const char *name;
        bool *flag;
    } flags[] = {
        {"--count", &a->count},           {"--explain", &a->explain},
        {"--no-pushdown", &a->no_pushdown}, {"--no-stats", &a->no_stats},
        {"--no-bloom", &a->no_bloom},     {"--no-page-index", &a->no_page_index},
        {"--no-dictionary", &a->no_dictionary},
    };
    memset(a, 0, sizeof *a);
    char **rest = malloc(sizeof *rest * ((size_t)argc + 1));
    if (!rest) return scan_fail(NULL, "out of memory");
    int nrest = 0, rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        size_t len = strcspn(argv[i], "=");
        bool where = len == strlen("--where") && strncmp(argv[i], "--where", len) == 0;
        bool *flag = NULL;
        for (size_t j = 0; j < sizeof flags / sizeof flags[0]; j++)
            if (strlen(flags[j].name) == len && strncmp(argv[i], flags[j].name, len) == 0)
                flag = flags[j].flag;
        if (!where && !flag) {
            rest[nrest++] = argv[i];
            continue;
        }
        const char *v;
        rc = cli_option_value(argc, argv, &i, SCAN_CMD, where, &v);
        if (where) a->where = v;
        else *flag = true;
    }
    if (rc == 0)
        rc = cli_parse_options(nrest, rest, CLI_OPT_COLUMNS | CLI_OPT_LIMIT | CLI_OPT_FORMAT |
                                                CLI_OPT_MMAP | CLI_OPT_THREADS | CLI_OPT_DATASET,
                               SCAN_CMD, &a->o);
    free(rest);
    return rc;
}

/* --columns split at its commas into names (one block: the pointers, then
 * the text). NULL list: no projection. */
static int split_columns(const char *list, char ***names, int32_t *n) {
    *names = NULL;
    *n = 0;
    if (!list) return 0;
    size_t count = 1, len = strlen(list);
    for (size_t i = 0; i < len; i++) count += list[i] == ',';
    if (count > INT32_MAX) return scan_fail("--columns", "too many columns");
    char **p = malloc(count * sizeof *p + len + 1);
    if (!p) return scan_fail(NULL, "out of memory");
    char *text = (char *)(p + count);
    memcpy(text, list, len + 1);
    for (size_t k = 0; k < count; k++) {
        p[k] = text;
        text += strcspn(text, ",");
        if (*text) *text++ = '\0';
        if (!*p[k]) {
            free(p);
            return scan_fail("--columns", "empty column name");
        }
    }
    *names = p;
    *n = (int32_t)count;
    return 0;
}

static void print_explain(const plank_scan *scan) {
    size_t need = plank_scan_explain(scan, NULL, 0);
    char *text = malloc(need + 1);
    if (!text) return;
    plank_scan_explain(scan, text, need + 1);
    fputs(text, stderr);
    if (need == 0 || text[need - 1] != '\n') fputc('\n', stderr);
    free(text);
}

static void print_stats(const plank_scan *scan) {
    plank_scan_stats st;
    plank_scan_stats_init(&st);
    plank_scan_get_stats(scan, &st);
    fflush(stdout);
#define SCAN_STAT(field) fprintf(stderr, "%s: %lld\n", #field, (long long)st.field)
    SCAN_STAT(row_groups);
    SCAN_STAT(row_groups_pruned_statistics);
    SCAN_STAT(row_groups_pruned_bloom);
    SCAN_STAT(row_groups_pruned_page_index);
    SCAN_STAT(row_groups_no_match);
    SCAN_STAT(pages);
    SCAN_STAT(pages_pruned_page_index);
    SCAN_STAT(pages_skipped);
    SCAN_STAT(pages_decoded);
    SCAN_STAT(bytes_read);
    SCAN_STAT(bytes_not_read);
    SCAN_STAT(rows);
    SCAN_STAT(rows_candidate);
    SCAN_STAT(rows_matched);
    SCAN_STAT(values_evaluated);
    SCAN_STAT(dictionary_entries_evaluated);
    SCAN_STAT(values_decided_by_run);
    SCAN_STAT(values_reused);
    SCAN_STAT(row_groups_masked);
    SCAN_STAT(values_skipped_delta);
#undef SCAN_STAT
}

/* The matching rows of another scan with the same options: the total a
 * table shows when the limit cut it. */
static int count_all(const char *file, plank_reader *r, const plank_scan_options *so,
                     int64_t *total) {
    plank_scan *scan;
    plank_error err;
    plank_error_init(&err);
    plank_status st = plank_scan_open(&scan, r, so, &err);
    if (st == PLANK_OK) {
        st = plank_scan_count(scan, total, &err);
        plank_scan_close(scan);
    }
    return st == PLANK_OK ? 0 : scan_report(file, st, &err);
}

/* Prints the rows of the open scan; 0 or an exit code after reporting. */
static int print_rows(const scan_args *a, plank_reader *r, plank_scan *scan,
                      const plank_scan_options *so, cli_rows_format format, int64_t remaining) {
    const char *file = a->o.file;
    cli_rows rows;
    cli_rows_init(&rows);
    struct ArrowArrayStream s;
    memset(&s, 0, sizeof s);
    plank_error err;
    plank_error_init(&err);
    /* The leaves of the projection, which the stream's schema holds. */
    int rc = cli_rows_select(&rows, file, r, a->o.columns);
    if (rc || rows.ncols == 0) goto done; /* no leaf columns: nothing to print */
    plank_status ps = plank_scan_arrow_stream(scan, &s, &err);
    if (ps != PLANK_OK) {
        rc = scan_report(file, ps, &err);
        goto done;
    }
    if (!cli_rows_open(&rows, format, r, &s, stdout)) {
        rc = cli_fail(file, "%s", rows.why);
        goto done;
    }
    int64_t printed = 0, total;
    if (!cli_rows_print(&rows, &s, &remaining, &printed)) rc = cli_fail(file, "%s", rows.why);
    s.release(&s); /* no batch past the limit is read */
    total = printed;
    if (rc == 0 && format == CLI_ROWS_TABLE && remaining == 0)
        rc = count_all(file, r, so, &total);
    bool written = cli_rows_finish(&rows, rc == 0, printed, total);
    if (rc == 0 && !written) rc = cli_fail("stdout", "cannot write the output");

done:
    cli_rows_free(&rows);
    if (s.release) s.release(&s);
    return rc;
}

int cli_scan_main(int argc, char **argv) {
    scan_args a;
    cli_rows_format format;
    int rc;
    if ((rc = parse_args(argc, argv, &a))) return rc;
    if ((rc = cli_rows_parse_format(SCAN_CMD, a.o.format, &format))) return rc;
    if (cli_is_dataset(&a.o)) {
        if (format != CLI_ROWS_JSONL) return scan_fail("--format", "a dataset prints JSON lines only");
        plank_scan_options flags;
        plank_scan_options_init(&flags);
        flags.pushdown = !a.no_pushdown;
        flags.use_statistics = !a.no_stats;
        flags.use_bloom_filters = !a.no_bloom;
        flags.use_page_index = !a.no_page_index;
        flags.use_dictionaries = !a.no_dictionary;
        return cli_dataset_rows(&a.o, a.where, a.count, a.explain, &flags);
    }
    int64_t remaining = cli_rows_limit(format, a.o.limit);

    plank_error err;
    plank_error_init(&err);
    plank_expr *filter = NULL;
    if (a.where) {
        plank_status st = plank_expr_parse(a.where, NULL, &filter, &err);
        if (st != PLANK_OK) return scan_fail("--where", err.message);
    }
    char **names;
    int32_t nnames;
    if ((rc = split_columns(a.o.columns, &names, &nnames))) {
        plank_expr_free(filter);
        return rc;
    }

    plank_reader *r = NULL;
    plank_scan *scan = NULL;
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.memory_map = a.o.mmap;
    if ((rc = cli_open(a.o.file, &ro, &r))) goto done;

    plank_arrow_options ao;
    cli_rows_arrow_options(&ao, remaining);
    ao.threads = cli_read_threads(a.o.threads, a.count ? -1 : remaining);
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = filter;
    so.columns = (const char *const *)names;
    so.num_columns = nnames;
    so.arrow = &ao;
    so.pushdown = !a.no_pushdown;
    so.use_statistics = !a.no_stats;
    so.use_bloom_filters = !a.no_bloom;
    so.use_page_index = !a.no_page_index;
    so.use_dictionaries = !a.no_dictionary;
    plank_status st = plank_scan_open(&scan, r, &so, &err);
    if (st != PLANK_OK) {
        scan = NULL;
        rc = scan_report(a.o.file, st, &err);
        goto done;
    }
    if (a.count) {
        int64_t n = 0;
        st = plank_scan_count(scan, &n, &err);
        if (st != PLANK_OK) {
            rc = scan_report(a.o.file, st, &err);
            goto done;
        }
        if (a.o.limit >= 0 && n > a.o.limit) n = a.o.limit;
        printf("%lld\n", (long long)n);
        if (fflush(stdout) != 0) rc = cli_fail("stdout", "cannot write the output");
    } else {
        rc = print_rows(&a, r, scan, &so, format, remaining);
    }
    /* After the scan, so that each filter step shows what it was measured
     * to cost and pass, in the order the scan settled on. */
    if (rc == 0 && a.explain) {
        print_explain(scan);
        print_stats(scan);
    }

done:
    plank_scan_close(scan);
    cli_report_io(r);
    plank_reader_close(r);
    plank_expr_free(filter);
    free(names);
    return rc;
}
