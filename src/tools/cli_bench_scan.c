/*
 * cli_bench_scan.c: `plank bench scan FILE [--where EXPR]`: times the pushdown
 * scan (without --where: of every row) in process (open, parse, bind, scan, close per repeat), so that a
 * benchmark compares it with peers measured the same way (DuckDB and Polars
 * in process), without the CLI's start-up and output.
 *
 *   --count          count the matching rows only (plank_scan_count)
 *   --columns a,b    projected fields (default: every column); each batch of
 *                    the stream is walked and its buffers summed
 *   --repeat N       repeats (default 5): prints median, min and max
 *   --mmap           open with memory_map
 *   --no-pushdown    plank_scan_options.pushdown = false (the plain read and
 *                    filter the scan is measured against)
 *   --no-verify-checksums  page CRCs not verified (as DuckDB, Polars and
 *                    `plank tpch` read; the reader verifies by default)
 *   --json           one JSON object
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"


typedef struct bscan_args {
    const char *file, *where, *columns;
    bool count, mmap, json, pushdown, verify;
    int repeat;
    int32_t threads; /* -1: the default */
} bscan_args;

/* Splits "a,b,c" into a NULL-terminated array (one allocation). */
static char **split_columns(const char *s, int32_t *n) {
    size_t len = strlen(s);
    int32_t k = 1;
    for (size_t i = 0; i < len; i++) k += s[i] == ',';
    char **v = malloc((size_t)(k + 1) * sizeof *v + len + 1);
    if (!v) return NULL;
    char *copy = (char *)(v + k + 1);
    memcpy(copy, s, len + 1);
    int32_t j = 0;
    char *p = copy;
    for (;;) {
        v[j++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    v[j] = NULL;
    *n = j;
    return v;
}

/* Sum of a stream batch's buffer bytes (a cheap touch of the output). */
static uint64_t touch(const struct ArrowArray *a) {
    uint64_t h = (uint64_t)a->length;
    for (int64_t i = 0; i < a->n_buffers; i++)
        if (a->buffers[i]) h = h * 31 + ((const uint8_t *)a->buffers[i])[0];
    for (int64_t i = 0; i < a->n_children; i++) h ^= touch(a->children[i]);
    return h;
}

static int run_once(const bscan_args *a, char **cols, int32_t ncols, double *secs,
                    int64_t *rows, uint64_t *check, plank_scan_stats *stats) {
    double t0 = cli_seconds();
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.memory_map = a->mmap;
    ro.verify_checksums = a->verify;
    plank_reader *r;
    int rc = cli_open(a->file, &ro, &r);
    if (rc) return rc;
    plank_error err;
    plank_expr *e = NULL;
    plank_status st = PLANK_OK;
    if (a->where) st = plank_expr_parse(a->where, NULL, &e, &err);
    plank_scan *s = NULL;
    if (st == PLANK_OK) {
        plank_scan_options o;
        plank_scan_options_init(&o);
        o.filter = e;
        o.pushdown = a->pushdown;
        o.columns = (const char *const *)cols;
        o.num_columns = ncols;
        plank_arrow_options ao;
        plank_arrow_options_init(&ao);
        ao.threads = cli_read_threads(a->threads, -1);
        o.arrow = &ao;
        st = plank_scan_open(&s, r, &o, &err);
    }
    *rows = 0;
    if (st == PLANK_OK && a->count) {
        st = plank_scan_count(s, rows, &err);
    } else if (st == PLANK_OK) {
        struct ArrowArrayStream str;
        st = plank_scan_arrow_stream(s, &str, &err);
        while (st == PLANK_OK) {
            struct ArrowArray arr;
            if (str.get_next(&str, &arr) != 0) {
                snprintf(err.message, sizeof err.message, "%s", str.get_last_error(&str));
                st = PLANK_ERR_CORRUPT;
                break;
            }
            if (!arr.release) break;
            *rows += arr.length;
            *check ^= touch(&arr);
            arr.release(&arr);
        }
        if (st == PLANK_OK || str.release) str.release(&str);
    }
    if (s) {
        plank_scan_stats_init(stats);
        plank_scan_get_stats(s, stats);
    }
    plank_scan_close(s);
    plank_expr_free(e);
    cli_report_io(r);
    plank_reader_close(r);
    *secs = cli_seconds() - t0;
    if (st != PLANK_OK) return cli_fail(a->file, "%s", err.message);
    return 0;
}

int cli_bench_scan_main(int argc, char **argv) {
    bscan_args a = {NULL, NULL, NULL, false, false, false, true, true, 5, -1};
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--where") == 0 && i + 1 < argc) a.where = argv[++i];
        else if (strcmp(s, "--columns") == 0 && i + 1 < argc) a.columns = argv[++i];
        else if (strcmp(s, "--repeat") == 0 && i + 1 < argc) a.repeat = atoi(argv[++i]);
        else if (strcmp(s, "--count") == 0) a.count = true;
        else if (strcmp(s, "--mmap") == 0) a.mmap = true;
        else if (strcmp(s, "--json") == 0) a.json = true;
        else if (strcmp(s, "--no-pushdown") == 0) a.pushdown = false;
        else if (strcmp(s, "--no-verify-checksums") == 0) a.verify = false;
        else if (strcmp(s, "--threads") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 0 || v > 1024)
                return cli_usage_error("bench scan: --threads needs 0..1024, not '%s'", argv[i]);
            a.threads = (int32_t)v;
        }
        else if (s[0] == '-') return cli_usage_error("bench scan: unknown option '%s'", s);
        else if (!a.file) a.file = s;
        else return cli_usage_error("bench scan: one FILE only");
    }
    if (!a.file) return cli_usage_error("bench scan: expected FILE [--where EXPR]");
    if (a.repeat < 1) a.repeat = 1;
    char **cols = NULL;
    int32_t ncols = 0;
    if (a.columns && !(cols = split_columns(a.columns, &ncols)))
        return cli_fail(a.file, "out of memory");
    double *t = calloc((size_t)a.repeat, sizeof *t);
    if (!t) {
        free(cols);
        return cli_fail(a.file, "out of memory");
    }
    int64_t rows = 0;
    uint64_t check = 0;
    plank_scan_stats stats;
    plank_scan_stats_init(&stats);
    int rc = 0;
    for (int i = 0; i < a.repeat && rc == 0; i++)
        rc = run_once(&a, cols, ncols, &t[i], &rows, &check, &stats);
    if (rc == 0) {
        qsort(t, (size_t)a.repeat, sizeof *t, cli_cmp_double);
        double med = a.repeat % 2 ? t[a.repeat / 2] : (t[a.repeat / 2 - 1] + t[a.repeat / 2]) / 2;
        if (a.json)
            printf("{\"file\":\"%s\",\"rows_matched\":%lld,\"repeat\":%d,\"median_seconds\":%.6f,"
                   "\"min_seconds\":%.6f,\"max_seconds\":%.6f,\"row_groups_pruned\":%lld,"
                   "\"pages_pruned\":%lld,\"values_evaluated\":%lld,\"bytes_read\":%lld}\n",
                   a.file, (long long)rows, a.repeat, med, t[0], t[a.repeat - 1],
                   (long long)(stats.row_groups_pruned_statistics + stats.row_groups_pruned_bloom +
                               stats.row_groups_pruned_page_index),
                   (long long)stats.pages_pruned_page_index, (long long)stats.values_evaluated,
                   (long long)stats.bytes_read);
        else
            printf("file:    %s\nmatched: %lld rows%s\ntime:    median %.3f ms (min %.3f, max "
                   "%.3f, %d repeats)\nskipped: %lld row groups, %lld pages; %lld values "
                   "evaluated\n",
                   a.file, (long long)rows, a.count ? " (count)" : "", med * 1e3, t[0] * 1e3,
                   t[a.repeat - 1] * 1e3, a.repeat,
                   (long long)(stats.row_groups_pruned_statistics + stats.row_groups_pruned_bloom +
                               stats.row_groups_pruned_page_index),
                   (long long)stats.pages_pruned_page_index, (long long)stats.values_evaluated);
    }
    free(t);
    free(cols);
    return rc;
}
