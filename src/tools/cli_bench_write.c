/*
 * cli_bench_write.c: `plank bench write [--rows N] [--repeat N] [-o PATH]
 * [--csv PATH] [--json] [writer options]`.
 *
 * Generates a table shaped like TPC-H lineitem (16 columns, REQUIRED) in
 * memory once, deterministically from a fixed seed, then times writing it
 * to a Parquet file --repeat times (plank_writer_open_path, one
 * plank_writer_write_rows call over the whole table, plank_writer_close;
 * row groups are cut by the writer at --row-group-size, default 1,048,576).
 * Reported: median and best wall time, rows/s and MB/s of the in-memory data
 * (values, byte-array offsets and bytes), and the size of the file.
 *
 * The distributions follow the TPC-H specification loosely: 1-7 lines per
 * order with sparse increasing order keys, part and supplier keys scaled by
 * rows / 6,000,000, prices from the part key, dates from 1992 to 1998 with
 * the ship/commit/receipt offsets and the flags derived from them, and
 * comments of 10-43 characters made of words. --csv writes the same table
 * as CSV (decimals with two digits, dates as YYYY-MM-DD) for other tools;
 * with --repeat 0 only the CSV is written. `plank convert` reads it back
 * with the types given in README.md.
 *
 * --serve keeps the generated table and writes it once per line read from
 * stdin, each line holding writer options and `-o PATH` (words separated by
 * spaces), answering each with one JSON line. bench/peers_write.mjs uses it
 * so that plank, like DuckDB and Polars inside their Node process, writes
 * from a process that has written before: a fresh process's first write
 * also pays for its first touch of every buffer page, which on this
 * project's virtual machines varied from 0.1 to 0.6 s (bench/README.md,
 * "Writer").
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define LI_COLUMNS 16
#define LI_DEFAULT_ROWS 4000000
#define LI_DEFAULT_REPEAT 5
#define LI_SEED UINT64_C(0x9e3779b97f4a7c15)

enum {
    L_ORDERKEY, L_PARTKEY, L_SUPPKEY, L_LINENUMBER, L_QUANTITY, L_EXTENDEDPRICE, L_DISCOUNT,
    L_TAX, L_RETURNFLAG, L_LINESTATUS, L_SHIPDATE, L_COMMITDATE, L_RECEIPTDATE,
    L_SHIPINSTRUCT, L_SHIPMODE, L_COMMENT
};

static const char *const li_names[LI_COLUMNS] = {
    "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
    "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
    "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"};

/* One generated column: fixed-width values or offsets + bytes. */
typedef struct li_column {
    void *values;
    int64_t *offsets;
    cli_buf data;
    int32_t width; /* 4, 8, or 0 for strings */
} li_column;

typedef struct li_table {
    int64_t rows;
    li_column cols[LI_COLUMNS];
    uint64_t bytes; /* in-memory size of the data */
} li_table;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t uniform(uint64_t *s, int64_t lo, int64_t hi) {
    return lo + (int64_t)(splitmix(s) % (uint64_t)(hi - lo + 1));
}

static int64_t days_of(int y, int m, int d) {
    int64_t yy = y - (m <= 2);
    int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    int64_t yoe = yy - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static void put_string(li_column *c, int64_t row, const char *s, size_t n) {
    cli_buf_put(&c->data, s, n);
    c->offsets[row + 1] = (int64_t)c->data.len;
}

static bool li_generate(li_table *t, int64_t rows) {
    static const char *const instruct[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                           "TAKE BACK RETURN"};
    static const char *const modes[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
    static const char *const words[] = {
        "furiously", "carefully", "blithely", "quickly", "slyly", "fluffily", "deposits",
        "packages", "requests", "accounts", "ideas", "foxes", "pinto", "beans", "instructions",
        "theodolites", "dependencies", "excuses", "platelets", "asymptotes", "courts",
        "dolphins", "sleep", "wake", "are", "nag", "haggle", "boost", "detect", "cajole", "use",
        "integrate", "among", "above", "across", "final", "regular", "express", "special",
        "pending", "ironic", "even", "bold", "silent", "the", "according", "to"};
    const int nwords = (int)(sizeof words / sizeof words[0]);
    memset(t, 0, sizeof *t);
    t->rows = rows;
    static const int widths[LI_COLUMNS] = {8, 8, 8, 4, 8, 8, 8, 8, 0, 0, 4, 4, 4, 0, 0, 0};
    for (int c = 0; c < LI_COLUMNS; c++) {
        li_column *col = &t->cols[c];
        col->width = widths[c];
        cli_buf_init(&col->data);
        if (col->width) col->values = malloc((size_t)rows * (size_t)col->width + 1);
        else col->offsets = calloc((size_t)rows + 1, sizeof *col->offsets);
        if (!col->values && !col->offsets) return false;
    }
    double sf = (double)rows / 6e6;
    int64_t parts = (int64_t)(200000 * sf) > 1 ? (int64_t)(200000 * sf) : 1;
    int64_t supps = (int64_t)(10000 * sf) > 1 ? (int64_t)(10000 * sf) : 1;
    int64_t start = days_of(1992, 1, 1), end = days_of(1998, 12, 31) - 151;
    int64_t current = days_of(1995, 6, 17);
    uint64_t seed = LI_SEED;
    int64_t *orderkey = t->cols[L_ORDERKEY].values, *partkey = t->cols[L_PARTKEY].values,
            *suppkey = t->cols[L_SUPPKEY].values, *quantity = t->cols[L_QUANTITY].values,
            *price = t->cols[L_EXTENDEDPRICE].values, *discount = t->cols[L_DISCOUNT].values,
            *tax = t->cols[L_TAX].values;
    int32_t *linenumber = t->cols[L_LINENUMBER].values, *ship = t->cols[L_SHIPDATE].values,
            *commit = t->cols[L_COMMITDATE].values, *receipt = t->cols[L_RECEIPTDATE].values;
    int64_t row = 0, order = 0;
    char comment[64];
    while (row < rows) {
        /* Order keys are sparse as in TPC-H: 8 used in every 32. */
        int64_t key = (order / 8) * 32 + order % 8 + 1;
        int64_t orderdate = uniform(&seed, start, end);
        int lines = (int)uniform(&seed, 1, 7);
        order++;
        for (int l = 1; l <= lines && row < rows; l++, row++) {
            orderkey[row] = key;
            linenumber[row] = l;
            int64_t pk = uniform(&seed, 1, parts);
            partkey[row] = pk;
            suppkey[row] = (pk + (int64_t)uniform(&seed, 0, 3) * (supps / 4 + 1)) % supps + 1;
            int64_t q = uniform(&seed, 1, 50);
            quantity[row] = q * 100;
            int64_t retail = 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); /* cents */
            price[row] = q * retail;
            discount[row] = uniform(&seed, 0, 10);
            tax[row] = uniform(&seed, 0, 8);
            int64_t sd = orderdate + uniform(&seed, 1, 121);
            int64_t rd = sd + uniform(&seed, 1, 30);
            ship[row] = (int32_t)sd;
            commit[row] = (int32_t)(orderdate + uniform(&seed, 30, 90));
            receipt[row] = (int32_t)rd;
            const char *rf = rd <= current ? (splitmix(&seed) & 1 ? "R" : "A") : "N";
            put_string(&t->cols[L_RETURNFLAG], row, rf, 1);
            put_string(&t->cols[L_LINESTATUS], row, sd > current ? "O" : "F", 1);
            const char *si = instruct[uniform(&seed, 0, 3)];
            put_string(&t->cols[L_SHIPINSTRUCT], row, si, strlen(si));
            const char *sm = modes[uniform(&seed, 0, 6)];
            put_string(&t->cols[L_SHIPMODE], row, sm, strlen(sm));
            size_t want = (size_t)uniform(&seed, 10, 43), len = 0;
            while (len < want) {
                const char *w = words[uniform(&seed, 0, nwords - 1)];
                size_t wl = strlen(w);
                if (len) comment[len++] = ' ';
                size_t room = sizeof comment - len;
                memcpy(comment + len, w, wl < room ? wl : room);
                len += wl < room ? wl : room;
            }
            put_string(&t->cols[L_COMMENT], row, comment, want);
        }
    }
    for (int c = 0; c < LI_COLUMNS; c++) {
        li_column *col = &t->cols[c];
        t->bytes += col->width ? (uint64_t)rows * (uint64_t)col->width
                               : (uint64_t)(rows + 1) * 8 + col->data.len;
    }
    return true;
}

/* Reads every cache line of the table once. The peers of bench/run_write.sh
 * write tables they have held, and read, for rounds; on the project's virtual
 * machines the first read of freshly generated memory cost about as much as
 * the rest of a write (a 4M-row write: 1.2-1.8 s cold, 0.7-1.1 s after this
 * pass), so the timed writes start from a table read once, as theirs do. The
 * writer's own buffers stay cold: a fresh process pays for them. */
static uint64_t li_touch(const li_table *t) {
    uint64_t sum = 0;
    for (int c = 0; c < LI_COLUMNS; c++) {
        const li_column *col = &t->cols[c];
        const uint8_t *p = col->width ? col->values : (const uint8_t *)col->offsets;
        size_t n = col->width ? (size_t)t->rows * (size_t)col->width : (size_t)(t->rows + 1) * 8;
        for (size_t i = 0; i < n; i += 64) sum += p[i];
        for (size_t i = 0; !col->width && i < col->data.len; i += 64)
            sum += (uint8_t)col->data.data[i];
    }
    return sum;
}

static void li_free(li_table *t) {
    for (int c = 0; c < LI_COLUMNS; c++) {
        free(t->cols[c].values);
        free(t->cols[c].offsets);
        cli_buf_free(&t->cols[c].data);
    }
}

static void li_schema(plank_schema_field *f) {
    plank_schema_field_init(&f[0]);
    f[0].num_children = LI_COLUMNS;
    for (int c = 0; c < LI_COLUMNS; c++) {
        plank_schema_field *x = &f[c + 1];
        plank_schema_field_init(x);
        x->name = li_names[c];
        x->repetition = PLANK_REQUIRED;
        switch (c) {
        case L_LINENUMBER: x->physical_type = PLANK_INT32; break;
        case L_QUANTITY: case L_EXTENDEDPRICE: case L_DISCOUNT: case L_TAX:
            x->physical_type = PLANK_INT64;
            x->logical.kind = PLANK_LOGICAL_DECIMAL;
            x->logical.precision = 15;
            x->logical.scale = 2;
            break;
        case L_SHIPDATE: case L_COMMITDATE: case L_RECEIPTDATE:
            x->physical_type = PLANK_INT32;
            x->logical.kind = PLANK_LOGICAL_DATE;
            break;
        case L_RETURNFLAG: case L_LINESTATUS: case L_SHIPINSTRUCT: case L_SHIPMODE: case L_COMMENT:
            x->physical_type = PLANK_BYTE_ARRAY;
            x->logical.kind = PLANK_LOGICAL_STRING;
            break;
        default: x->physical_type = PLANK_INT64; break;
        }
    }
}

/* ---- CSV ----------------------------------------------------------------------------- */

static void put_cents(cli_buf *b, int64_t v) {
    if (v < 0) {
        cli_buf_putc(b, '-');
        v = -v;
    }
    cli_buf_printf(b, "%lld.%02d", (long long)(v / 100), (int)(v % 100));
}

static void put_date(cli_buf *b, int32_t days) {
    /* civil date from days since 1970-01-01 */
    int64_t z = (int64_t)days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t y = yoe + era * 400 + (m <= 2);
    cli_buf_printf(b, "%04lld-%02d-%02d", (long long)y, m, d);
}

static int li_write_csv(const li_table *t, const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f) return cli_fail(path, "cannot create: %s", strerror(errno));
    cli_out out;
    cli_out_init(&out, f);
    cli_buf *b = &out.buf;
    for (int c = 0; c < LI_COLUMNS; c++) {
        if (c) cli_buf_putc(b, ',');
        cli_buf_puts(b, li_names[c]);
    }
    cli_buf_putc(b, '\n');
    for (int64_t r = 0; r < t->rows; r++) {
        for (int c = 0; c < LI_COLUMNS; c++) {
            const li_column *col = &t->cols[c];
            if (c) cli_buf_putc(b, ',');
            switch (c) {
            case L_LINENUMBER: cli_buf_put_i64(b, ((const int32_t *)col->values)[r]); break;
            case L_QUANTITY: case L_EXTENDEDPRICE: case L_DISCOUNT: case L_TAX:
                put_cents(b, ((const int64_t *)col->values)[r]);
                break;
            case L_SHIPDATE: case L_COMMITDATE: case L_RECEIPTDATE:
                put_date(b, ((const int32_t *)col->values)[r]);
                break;
            case L_ORDERKEY: case L_PARTKEY: case L_SUPPKEY:
                cli_buf_put_i64(b, ((const int64_t *)col->values)[r]);
                break;
            default: /* generated strings hold no commas, quotes or line breaks */
                cli_buf_put(b, col->data.data + col->offsets[r],
                            (size_t)(col->offsets[r + 1] - col->offsets[r]));
                break;
            }
        }
        cli_buf_putc(b, '\n');
        cli_out_maybe_flush(&out);
    }
    bool ok = cli_out_close(&out);
    if (fclose(f) != 0) ok = false;
    if (!ok) {
        unlink(path);
        return cli_fail(path, "cannot write the CSV");
    }
    return 0;
}

/* ---- Timing ------------------------------------------------------------------------------ */

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed write of the whole table. */
static int li_write_once(const li_table *t, const char *path, const plank_writer_options *o,
                         double *secs) {
    plank_schema_field fields[LI_COLUMNS + 1];
    plank_batch batches[LI_COLUMNS];
    li_schema(fields);
    for (int c = 0; c < LI_COLUMNS; c++) {
        const li_column *col = &t->cols[c];
        memset(&batches[c], 0, sizeof batches[c]);
        batches[c].struct_size = sizeof batches[c];
        batches[c].length = t->rows;
        batches[c].values = col->values;
        batches[c].offsets = col->offsets;
        batches[c].data = (const uint8_t *)(col->data.data ? col->data.data : "");
    }
    plank_error err;
    plank_error_init(&err);
    plank_writer *w = NULL;
    double t0 = seconds_now();
    plank_status s = plank_writer_open_path(&w, path, fields, LI_COLUMNS + 1, o, &err);
    if (s == PLANK_OK) {
        s = plank_writer_write_rows(w, batches, t->rows, &err);
        if (s != PLANK_OK) plank_writer_abort(w);
        else s = plank_writer_close(w, &err);
    }
    *secs = seconds_now() - t0;
    return s == PLANK_OK ? 0 : cli_report(path, s, &err, -1, -1);
}

static void put_num(cli_buf *b, double v) {
    if (isfinite(v)) cli_format_double(b, v);
    else cli_buf_puts(b, "null");
}

/* The size and row-group count of a written file (-1 each when unknown). */
static void li_file_facts(const char *path, int64_t *size, int32_t *groups) {
    struct stat sb;
    *size = stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
    *groups = -1;
    plank_reader *r;
    if (plank_reader_open_path(&r, path, NULL, NULL) == PLANK_OK) {
        *groups = plank_reader_num_row_groups(r);
        plank_reader_close(r);
    }
}

#define LI_SERVE_WORDS 64

/* One --serve request: the words of `line` (cut in place) as writer options
 * and -o PATH; writes the table once and prints one JSON line. 0, or an
 * exit code after reporting the error. */
static int li_serve_one(const li_table *t, char *line) {
    char *argv[LI_SERVE_WORDS];
    int argc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (argc == LI_SERVE_WORDS) return cli_usage_error("bench write --serve: too many words");
        argv[argc++] = tok;
    }
    if (argc == 0) return 0;
    cli_wopts wo;
    cli_wopts_init(&wo);
    const char *path = NULL;
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i], *value;
        size_t len = strcspn(a, "=");
        int kind = cli_wopts_kind(a, len);
        bool is_out = (len == 2 && strncmp(a, "-o", 2) == 0);
        if (kind < 0 && !is_out) {
            rc = cli_usage_error("bench write --serve: unknown argument '%s'", a);
        } else if (!(rc = cli_option_value(argc, argv, &i, "bench write", kind != 0, &value))) {
            if (is_out) path = value;
            else rc = cli_wopts_parse(&wo, "bench write", a, value);
        }
    }
    if (rc == 0 && !path) rc = cli_usage_error("bench write --serve: a request needs -o PATH");
    if (rc == 0) {
        cli_wopts_finish(&wo);
        double secs;
        rc = li_write_once(t, path, &wo.opts, &secs);
        if (rc == 0) {
            int64_t size;
            int32_t groups;
            li_file_facts(path, &size, &groups);
            printf("{\"seconds\":%.9f,\"file_bytes\":%lld,\"row_groups\":%d}\n", secs,
                   (long long)size, (int)groups);
            if (fflush(stdout) != 0) rc = cli_fail("bench write", "cannot write the output");
        }
    }
    cli_wopts_free(&wo);
    return rc;
}

/* --serve: announces the table, then one write per line until end of input. */
static int li_serve(const li_table *t, double gen_secs) {
    printf("{\"rows\":%lld,\"columns\":%d,\"memory_bytes\":%llu,\"generate_seconds\":%.6f}\n",
           (long long)t->rows, LI_COLUMNS, (unsigned long long)t->bytes, gen_secs);
    if (fflush(stdout) != 0) return cli_fail("bench write", "cannot write the output");
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, stdin) >= 0) rc = li_serve_one(t, line);
    free(line);
    return rc;
}

int cli_bench_write_main(int argc, char **argv) {
    const char *output = NULL, *csv = NULL;
    int64_t rows = LI_DEFAULT_ROWS, repeat = LI_DEFAULT_REPEAT;
    bool json = false, serve = false;
    cli_wopts wo;
    cli_wopts_init(&wo);
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i], *value;
        size_t len = strcspn(a, "=");
        int kind = cli_wopts_kind(a, len);
        if (kind >= 0) {
            if (!(rc = cli_option_value(argc, argv, &i, "bench write", kind == 1, &value)))
                rc = cli_wopts_parse(&wo, "bench write", a, value);
            continue;
        }
#define IS(name) (len == strlen(name) && strncmp(a, name, len) == 0)
        if (IS("--json")) {
            rc = cli_option_value(argc, argv, &i, "bench write", false, &value);
            json = true;
            continue;
        }
        if (IS("--serve")) {
            rc = cli_option_value(argc, argv, &i, "bench write", false, &value);
            serve = true;
            continue;
        }
        if (!(IS("--rows") || IS("--repeat") || IS("-o") || IS("--output") || IS("--csv"))) {
            rc = cli_usage_error("bench write: unknown argument '%s'", a);
            break;
        }
        if ((rc = cli_option_value(argc, argv, &i, "bench write", true, &value))) break;
        if (IS("-o") || IS("--output")) output = value;
        else if (IS("--csv")) csv = value;
        else {
            char *end;
            errno = 0;
            long long v = strtoll(value, &end, 10);
            bool is_rows = IS("--rows");
            if (errno || end == value || *end || v < (is_rows ? 1 : 0) || v > (is_rows ? INT32_MAX : 100000))
                rc = cli_usage_error("bench write: %s needs a count, not '%s'",
                                     is_rows ? "--rows" : "--repeat", value);
            else if (is_rows) rows = v;
            else repeat = v;
        }
#undef IS
    }
    if (rc) {
        cli_wopts_free(&wo);
        return rc;
    }
    cli_wopts_finish(&wo);

    li_table t;
    double g0 = seconds_now();
    if (!li_generate(&t, rows)) {
        li_free(&t);
        cli_wopts_free(&wo);
        return cli_fail("bench write", "out of memory generating %lld rows", (long long)rows);
    }
    double gen_secs = seconds_now() - g0;
    if (csv) rc = li_write_csv(&t, csv);
    volatile uint64_t touched = li_touch(&t);
    (void)touched;
    if (serve) {
        if (rc == 0) rc = li_serve(&t, gen_secs);
        li_free(&t);
        cli_wopts_free(&wo);
        return rc;
    }

    char tmp[4096];
    const char *path = output;
    if (!path) {
        const char *dir = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/plank-bench-write-%ld.parquet", dir && *dir ? dir : "/tmp",
                 (long)getpid());
        path = tmp;
    }
    double *times = calloc((size_t)(repeat > 0 ? repeat : 1), sizeof *times);
    if (!times) rc = cli_fail("bench write", "out of memory");
    for (int64_t i = 0; i < repeat && rc == 0; i++) rc = li_write_once(&t, path, &wo.opts, &times[i]);

    if (rc == 0 && repeat > 0) {
        int64_t size;
        int32_t groups;
        li_file_facts(path, &size, &groups);
        qsort(times, (size_t)repeat, sizeof *times, cmp_double);
        double med = repeat % 2 ? times[repeat / 2] : (times[repeat / 2 - 1] + times[repeat / 2]) / 2;
        double best = times[0];
        double mb = (double)t.bytes / 1e6;
        const plank_writer_options *o = &wo.opts;
        cli_out out;
        cli_out_init(&out, stdout);
        cli_buf *b = &out.buf;
        if (json) {
            cli_buf_printf(b, "{\"rows\":%lld,\"columns\":%d,\"repeat\":%lld,\"memory_bytes\":%llu",
                           (long long)rows, LI_COLUMNS, (long long)repeat,
                           (unsigned long long)t.bytes);
            cli_buf_printf(b, ",\"codec\":\"%s\",\"codec_level\":%d,\"page_version\":%d,"
                              "\"dictionary\":%s",
                           plank_codec_name(o->codec), (int)o->codec_level, (int)o->page_version,
                           o->dictionary ? "true" : "false");
            cli_buf_puts(b, ",\"generate_seconds\":");
            put_num(b, gen_secs);
            cli_buf_puts(b, ",\"median_seconds\":");
            put_num(b, med);
            cli_buf_puts(b, ",\"best_seconds\":");
            put_num(b, best);
            cli_buf_puts(b, ",\"rows_per_second\":");
            put_num(b, med > 0 ? (double)rows / med : 0);
            cli_buf_puts(b, ",\"bytes_per_second\":");
            put_num(b, med > 0 ? (double)t.bytes / med : 0);
            cli_buf_printf(b, ",\"file_bytes\":%lld,\"row_groups\":%d}\n", (long long)size,
                           (int)groups);
        } else {
            cli_buf_printf(b, "table:      lineitem-like, %lld rows, %d columns, %.1f MB in memory "
                              "(generated in %.2f s)\n",
                           (long long)rows, LI_COLUMNS, mb, gen_secs);
            cli_buf_printf(b, "options:    codec %s%s, page v%d, dictionary %s\n",
                           plank_codec_name(o->codec), o->codec_level ? " (level set)" : "",
                           (int)o->page_version, o->dictionary ? "on" : "off");
            cli_buf_printf(b, "time:       median %.1f ms, best %.1f ms (%lld repeats)\n",
                           med * 1e3, best * 1e3, (long long)repeat);
            cli_buf_printf(b, "rows/s:     %.4g (median), %.4g (best)\n",
                           med > 0 ? (double)rows / med : 0, best > 0 ? (double)rows / best : 0);
            cli_buf_printf(b, "MB/s:       %.1f (median), %.1f (best) of in-memory data\n",
                           med > 0 ? mb / med : 0, best > 0 ? mb / best : 0);
            cli_buf_printf(b, "file:       %lld bytes (%.1f MB, %.2fx smaller), %d row groups%s%s\n",
                           (long long)size, (double)size / 1e6,
                           size > 0 ? (double)t.bytes / (double)size : 0, (int)groups,
                           output ? ", kept at " : "", output ? output : "");
        }
        if (!cli_out_close(&out)) rc = cli_fail("bench write", "cannot write the output");
    }
    if (!output && repeat > 0) unlink(path);
    free(times);
    li_free(&t);
    cli_wopts_free(&wo);
    return rc;
}
