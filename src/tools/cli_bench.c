/*
 * cli_bench.c: `plank bench read FILE [--columns a,b] [--repeat N] [--json] [--arrow]
 * [--rows every:K|range:FIRST:COUNT]`.
 *
 * With --rows only the selected rows of the file are read (every K-th row
 * from row 0, or one range), through plank_column_reader_select per row
 * group or plank_reader_arrow_stream_rows.
 *
 * With --arrow each repeat reads the selected columns through the Arrow
 * stream instead (plank_reader_arrow_stream: record assembly of nested
 * columns into Arrow arrays, what an Arrow consumer gets); the decoded bytes
 * are the bytes of the arrays' buffers and there is no per-column split.
 *
 * Each repeat opens the file and decodes every selected column of every row
 * group completely, timing each column chunk (CLOCK_MONOTONIC). The values
 * are folded into a checksum so no decoding work can be skipped or
 * optimised away, and the checksum is printed. Reported: the median (and
 * min/max) of the total time per repeat, rows/s, decoded bytes/s (values,
 * byte-array data, offsets and validity bitmaps produced) and the median
 * time per column.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"

#define BENCH_BATCH 4096
#define BENCH_DEFAULT_REPEAT 5

typedef struct bench_totals {
    uint64_t checksum;
    uint64_t bytes; /* decoded bytes, all columns */
    int64_t slots;
} bench_totals;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Folds a buffer into the checksum, 8 bytes at a time. */
static uint64_t fold(uint64_t h, const void *p, size_t n) {
    const uint8_t *s = p;
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc += w;
    }
    for (; i < n; i++) acc += s[i];
    return (h ^ acc) * UINT64_C(0x100000001b3) + n;
}

static size_t bitmap_bytes(int64_t n) { return (size_t)((n + 7) / 8); }

/* The --rows selection as file row ranges. */
typedef struct bench_rows {
    plank_row_range *ranges;
    int64_t n;
} bench_rows;

static bool parse_rows(const char *spec, int64_t rows, bench_rows *out) {
    long long a = 0, b = 0;
    char tail;
    out->ranges = NULL;
    out->n = 0;
    if (sscanf(spec, "every:%lld%c", &a, &tail) == 1 && a >= 1) {
        int64_t n = rows > 0 ? (rows + a - 1) / a : 0;
        out->ranges = malloc(((size_t)n + 1) * sizeof *out->ranges);
        if (!out->ranges) return false;
        for (int64_t i = 0; i < n; i++) out->ranges[i] = (plank_row_range){i * a, 1};
        out->n = n;
        return true;
    }
    if (sscanf(spec, "range:%lld:%lld%c", &a, &b, &tail) == 2 && a >= 0 && b >= 0 &&
        a <= rows && b <= rows - a) {
        out->ranges = malloc(sizeof *out->ranges);
        if (!out->ranges) return false;
        out->ranges[0] = (plank_row_range){a, b};
        out->n = 1;
        return true;
    }
    return false;
}

/* The ranges of `sel` inside [base, base + rows), relative to base, into tmp
 * (room for sel->n + 1). */
static int64_t group_ranges(const bench_rows *sel, int64_t base, int64_t rows,
                            plank_row_range *tmp) {
    int64_t k = 0;
    for (int64_t i = 0; i < sel->n; i++) {
        int64_t a = sel->ranges[i].first, b = a + sel->ranges[i].count;
        if (b <= base || a >= base + rows) continue;
        if (a < base) a = base;
        if (b > base + rows) b = base + rows;
        tmp[k++] = (plank_row_range){a - base, b - a};
    }
    return k;
}

/* Decodes one column chunk to the end (its selected rows with sel). */
static plank_status bench_chunk(plank_reader *r, int32_t g, int32_t column, bench_totals *t,
                                const plank_row_range *sel, int64_t nsel, plank_error *err) {
    plank_column_reader *cr = NULL;
    plank_status s = plank_column_reader_open(&cr, r, g, column, err);
    if (s != PLANK_OK) return s;
    if (sel) s = plank_column_reader_select(cr, sel, nsel, err);
    if (s != PLANK_OK) {
        plank_column_reader_close(cr);
        return s;
    }
    for (;;) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        s = plank_column_reader_read(cr, BENCH_BATCH, &b, err);
        if (s != PLANK_OK || b.length <= 0) break;
        size_t n = (size_t)b.length;
        if (b.validity) {
            t->checksum = fold(t->checksum, b.validity, bitmap_bytes(b.length));
            t->bytes += bitmap_bytes(b.length);
        }
        if (b.physical_type == PLANK_BYTE_ARRAY) {
            if (b.offsets) {
                size_t data_len = (size_t)(b.offsets[n] > 0 ? b.offsets[n] : 0);
                t->checksum = fold(t->checksum, b.offsets, (n + 1) * sizeof(int64_t));
                if (b.data) t->checksum = fold(t->checksum, b.data, data_len);
                t->bytes += (n + 1) * sizeof(int64_t) + data_len;
            }
        } else if (b.physical_type == PLANK_BOOLEAN) {
            if (b.values) t->checksum = fold(t->checksum, b.values, bitmap_bytes(b.length));
            t->bytes += bitmap_bytes(b.length);
        } else if (b.values && b.value_width > 0) {
            t->checksum = fold(t->checksum, b.values, n * (size_t)b.value_width);
            t->bytes += n * (size_t)b.value_width;
        }
        t->slots += b.length;
    }
    plank_column_reader_close(cr);
    return s;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Opens FILE with the columns selected (part of the timed work). */
static int open_selected(const char *file, const int32_t *cols, int32_t nc, bool mmap,
                         plank_reader **r) {
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.memory_map = mmap;
    opts.columns = cols;
    opts.num_columns = nc;
    return cli_open(file, &opts, r);
}

/* One repeat through the Arrow stream: open, read every batch, close. */
static int bench_arrow_once(const char *file, const int32_t *cols, int32_t nc, bool mmap,
                            int32_t threads, int64_t batch_rows, double *total, bench_totals *t,
                            const bench_rows *sel) {
    double t0 = now_seconds();
    plank_reader *r;
    int rc = open_selected(file, cols, nc, mmap, &r);
    if (rc) return rc;
    plank_error err;
    plank_error_init(&err);
    struct ArrowArrayStream s;
    struct ArrowSchema schema;
    memset(&s, 0, sizeof s);
    memset(&schema, 0, sizeof schema);
    cli_anode root;
    memset(&root, 0, sizeof root);
    char why[PLANK_ERROR_MESSAGE_SIZE];
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = cli_read_threads(threads, -1);
    if (batch_rows > 0) ao.batch_rows = batch_rows;
    plank_status st = sel ? plank_reader_arrow_stream_rows(r, sel->ranges, sel->n, &ao, &s, &err)
                          : plank_reader_arrow_stream(r, NULL, 0, &ao, &s, &err);
    if (st != PLANK_OK) {
        rc = cli_report(file, st, &err, -1, -1);
    } else if (s.get_schema(&s, &schema) != 0) {
        rc = cli_fail(file, "%s", s.get_last_error(&s));
    } else if (!cli_anode_build(&root, r, &schema, cols, nc, why, sizeof why)) {
        rc = cli_fail(file, "%s", why);
    }
    while (rc == 0) {
        struct ArrowArray a;
        memset(&a, 0, sizeof a);
        int code = s.get_next(&s, &a);
        if (code != 0) {
            const char *msg = s.get_last_error(&s);
            rc = cli_fail(file, "%s", msg ? msg : strerror(code));
            break;
        }
        if (!a.release) break;
        if (!cli_anode_check(&root, &a, why, sizeof why)) rc = cli_fail(file, "%s", why);
        else {
            uint64_t bytes = cli_anode_bytes(&root, &a);
            t->bytes += bytes;
            t->checksum = (t->checksum ^ bytes ^ (uint64_t)a.length) * UINT64_C(0x100000001b3);
            t->slots += a.length;
        }
        a.release(&a);
    }
    cli_anode_free(&root);
    if (schema.release) schema.release(&schema);
    if (s.release) s.release(&s);
    plank_reader_close(r);
    *total = now_seconds() - t0;
    return rc;
}

/* One repeat: open, decode everything, close. Fills col_time[c] (seconds
 * per selected column), col_bytes[c] and *total. */
static int bench_once(const char *file, const int32_t *cols, int32_t nc, bool mmap,
                      double *col_time,
                      double *total, bench_totals *t, uint64_t *col_bytes,
                      const bench_rows *sel, plank_row_range *tmp) {
    double t0 = now_seconds();
    plank_reader *r;
    int rc = open_selected(file, cols, nc, mmap, &r);
    if (rc) return rc;
    for (int32_t c = 0; c < nc; c++) {
        col_time[c] = 0;
        col_bytes[c] = 0;
    }
    int64_t base = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        plank_error gerr;
        if (plank_reader_row_group(r, g, &info, &gerr) != PLANK_OK) info.num_rows = 0;
        int64_t nsel = sel ? group_ranges(sel, base, info.num_rows, tmp) : 0;
        base += info.num_rows;
        if (sel && nsel == 0) continue;
        for (int32_t c = 0; c < nc; c++) {
            plank_error err;
            plank_error_init(&err);
            uint64_t before = t->bytes;
            double c0 = now_seconds();
            plank_status s = bench_chunk(r, g, cols[c], t, sel ? tmp : NULL, nsel, &err);
            col_time[c] += now_seconds() - c0;
            col_bytes[c] += t->bytes - before;
            if (s != PLANK_OK) {
                plank_reader_close(r);
                return cli_report(file, s, &err, g, cols[c]);
            }
        }
    }
    plank_reader_close(r);
    *total = now_seconds() - t0;
    return 0;
}

static void put_json_number(cli_buf *b, double v) {
    if (isfinite(v)) cli_format_double(b, v);
    else cli_buf_puts(b, "null");
}

int cli_bench_main(int argc, char **argv) {
    cli_options o;
    int rc = cli_parse_options(argc, argv,
                               CLI_OPT_COLUMNS | CLI_OPT_REPEAT | CLI_OPT_JSON | CLI_OPT_ARROW |
                                   CLI_OPT_ROWS | CLI_OPT_MMAP | CLI_OPT_THREADS | CLI_OPT_DATASET |
                                   CLI_OPT_BATCH_ROWS,
                               "bench read", &o);
    if (rc) return rc;
    int repeat = o.repeat > 0 ? (int)o.repeat : BENCH_DEFAULT_REPEAT;
    if (cli_is_dataset(&o)) {
        if (o.rows || o.json || o.columns)
            return cli_usage_error("bench read: a dataset is read whole (no --rows, --json, "
                                   "--columns)");
        return cli_dataset_bench(&o);
    }
    if (o.batch_rows > 0 && !o.arrow)
        return cli_usage_error("bench read: --batch-rows needs --arrow");
    if (o.threads >= 0 && !o.arrow)
        return cli_usage_error("bench read: --threads needs --arrow (the column readers "
                               "are timed one at a time)");

    /* Resolve the columns once; each repeat reopens with that selection. */
    plank_reader *r;
    if ((rc = cli_open(o.file, NULL, &r))) return rc;
    int32_t *cols = NULL, nc = 0;
    if ((rc = cli_select_columns(o.file, r, o.columns, &cols, &nc))) {
        plank_reader_close(r);
        return rc;
    }
    cli_sort_unique(cols, &nc);
    int64_t rows = plank_reader_num_rows(r);
    int32_t groups = plank_reader_num_row_groups(r);
    bench_rows selrows = {NULL, 0};
    plank_row_range *tmp = NULL;
    if (o.rows) {
        if (!parse_rows(o.rows, rows, &selrows)) {
            plank_reader_close(r);
            free(cols);
            return cli_usage_error("bench read: --rows needs every:K or range:FIRST:COUNT "
                                   "within the file's %lld rows, not '%s'",
                                   (long long)rows, o.rows);
        }
        tmp = malloc(((size_t)selrows.n + 1) * sizeof *tmp);
    }
    const char **paths = calloc((size_t)nc + 1, sizeof *paths);
    char *path_store = NULL;
    size_t path_total = 0;
    for (int32_t c = 0; c < nc; c++) path_total += strlen(plank_reader_column_node(r, cols[c])->path) + 1;
    path_store = malloc(path_total + 1);
    double *totals = calloc((size_t)repeat, sizeof *totals);
    double *col_times = calloc((size_t)repeat * (size_t)nc + 1, sizeof *col_times);
    double *col_once = calloc((size_t)nc + 1, sizeof *col_once);
    double *scratch = calloc((size_t)repeat, sizeof *scratch);
    uint64_t *col_bytes = calloc((size_t)nc + 1, sizeof *col_bytes);
    if (!paths || !path_store || !totals || !col_times || !col_once || !scratch || !col_bytes) {
        rc = cli_fail(o.file, "out of memory");
        plank_reader_close(r);
        goto done;
    }
    /* Paths are copied: the reader that owns them is closed before timing. */
    {
        size_t off = 0;
        for (int32_t c = 0; c < nc; c++) {
            const char *p = plank_reader_column_node(r, cols[c])->path;
            size_t n = strlen(p) + 1;
            memcpy(path_store + off, p, n);
            paths[c] = path_store + off;
            off += n;
        }
    }
    plank_reader_close(r);

    bench_totals t;
    memset(&t, 0, sizeof t);
    uint64_t bytes_per_repeat = 0;
    for (int i = 0; i < repeat && rc == 0; i++) {
        uint64_t before = t.bytes;
        const bench_rows *sel = o.rows ? &selrows : NULL;
        if (o.rows && !tmp) rc = cli_fail(o.file, "out of memory");
        else if (o.arrow)
            rc = bench_arrow_once(o.file, cols, nc, o.mmap, o.threads, o.batch_rows, &totals[i], &t,
                                  sel);
        else rc = bench_once(o.file, cols, nc, o.mmap, col_once, &totals[i], &t, col_bytes, sel,
                            tmp);
        bytes_per_repeat = t.bytes - before;
        for (int32_t c = 0; c < nc; c++) col_times[(size_t)c * (size_t)repeat + (size_t)i] = col_once[c];
    }
    if (rc) goto done;

    memcpy(scratch, totals, sizeof *scratch * (size_t)repeat);
    double med = median(scratch, repeat);
    double tmin = scratch[0], tmax = scratch[repeat - 1];
    double rows_per_s = med > 0 ? (double)rows / med : 0;
    double bytes_per_s = med > 0 ? (double)bytes_per_repeat / med : 0;

    cli_out out;
    cli_out_init(&out, stdout);
    cli_buf *b = &out.buf;
    if (o.json) {
        cli_buf_puts(b, "{\"file\":");
        cli_json_string(b, (const uint8_t *)o.file, strlen(o.file));
        cli_buf_printf(b, ",\"rows\":%lld,\"row_groups\":%d,\"columns\":%d,\"repeat\":%d",
                       (long long)rows, (int)groups, (int)nc, repeat);
        cli_buf_printf(b, ",\"mode\":\"%s\",\"mmap\":%s", o.arrow ? "arrow" : "columns",
                       o.mmap ? "true" : "false");
        if (o.rows) {
            cli_buf_puts(b, ",\"rows_selected\":");
            cli_json_string(b, (const uint8_t *)o.rows, strlen(o.rows));
            cli_buf_printf(b, ",\"slots\":%lld", (long long)(t.slots / repeat));
        }
        cli_buf_puts(b, ",\"median_seconds\":");
        put_json_number(b, med);
        cli_buf_puts(b, ",\"min_seconds\":");
        put_json_number(b, tmin);
        cli_buf_puts(b, ",\"max_seconds\":");
        put_json_number(b, tmax);
        cli_buf_puts(b, ",\"rows_per_second\":");
        put_json_number(b, rows_per_s);
        cli_buf_printf(b, ",\"decoded_bytes\":%llu", (unsigned long long)bytes_per_repeat);
        cli_buf_puts(b, ",\"bytes_per_second\":");
        put_json_number(b, bytes_per_s);
        cli_buf_printf(b, ",\"checksum\":\"%016llx\",\"per_column\":[", (unsigned long long)t.checksum);
        for (int32_t c = 0; c < nc && !o.arrow; c++) {
            double m = median(col_times + (size_t)c * (size_t)repeat, repeat);
            if (c) cli_buf_putc(b, ',');
            cli_buf_printf(b, "{\"column\":%d,\"path\":", (int)cols[c]);
            cli_json_string(b, (const uint8_t *)paths[c], strlen(paths[c]));
            cli_buf_puts(b, ",\"median_seconds\":");
            put_json_number(b, m);
            cli_buf_printf(b, ",\"decoded_bytes\":%llu}", (unsigned long long)col_bytes[c]);
        }
        cli_buf_puts(b, "]}\n");
    } else {
        cli_buf_printf(b, "file:       %s\n", o.file);
        cli_buf_printf(b, "rows:       %lld in %d row groups, %d columns, %d repeats%s\n",
                       (long long)rows, (int)groups, (int)nc, repeat,
                       o.arrow ? ", through the Arrow stream" : "");
        cli_buf_printf(b, "time:       median %.3f ms (min %.3f, max %.3f)\n", med * 1e3,
                       tmin * 1e3, tmax * 1e3);
        cli_buf_printf(b, "rows/s:     %.4g\n", rows_per_s);
        cli_buf_printf(b, "decoded:    %.1f MB, %.1f MB/s\n", (double)bytes_per_repeat / 1e6,
                       bytes_per_s / 1e6);
        cli_buf_printf(b, "checksum:   %016llx\n", (unsigned long long)t.checksum);
        if (!o.arrow)
            cli_buf_printf(b, "\n%-32s %12s %7s %12s %10s\n", "column", "median ms", "share",
                           "MB decoded", "MB/s");
        double sum = 0;
        for (int32_t c = 0; c < nc; c++) sum += median(col_times + (size_t)c * (size_t)repeat, repeat);
        for (int32_t c = 0; c < nc && !o.arrow; c++) {
            double m = median(col_times + (size_t)c * (size_t)repeat, repeat);
            cli_buf_printf(b, "%-32s %12.3f %6.1f%% %12.2f %10.1f\n", paths[c], m * 1e3,
                           sum > 0 ? 100 * m / sum : 0, (double)col_bytes[c] / 1e6,
                           m > 0 ? (double)col_bytes[c] / m / 1e6 : 0);
        }
    }
    if (!cli_out_close(&out)) rc = cli_fail(o.file, "cannot write the output");

done:
    free(selrows.ranges);
    free(tmp);
    free(cols);
    free(paths);
    free(path_store);
    free(totals);
    free(col_times);
    free(col_once);
    free(scratch);
    free(col_bytes);
    return rc;
}
