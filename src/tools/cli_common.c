/*
 * cli_common.c: what the `plank` tool's commands share: argument parsing,
 * error reporting, buffered output, the usage text and column selection.
 * The entry point is cli_main.c; everything else of the tool is the
 * plank_cli library, which the fuzz targets link too.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_rows.h"

/* ---- Output ------------------------------------------------------------------ */

void cli_out_init(cli_out *o, FILE *file) {
    cli_buf_init(&o->buf);
    o->file = file;
    o->failed = false;
}

bool cli_out_flush(cli_out *o) {
    if (!o->failed && o->buf.len && fwrite(o->buf.data, 1, o->buf.len, o->file) != o->buf.len)
        o->failed = true;
    o->buf.len = 0;
    return !o->failed;
}

bool cli_out_close(cli_out *o) {
    cli_out_flush(o);
    if (!o->failed && fflush(o->file) != 0) o->failed = true;
    cli_buf_free(&o->buf);
    return !o->failed;
}

/* ---- Errors ------------------------------------------------------------------ */

int cli_report(const char *file, plank_status status, const plank_error *err, int32_t row_group,
               int32_t column) {
    const char *msg = err->message[0] ? err->message
                                      : plank_status_string(err->code ? err->code : status);
    int64_t at = err->byte_offset;
    int32_t rg = err->row_group >= 0 ? err->row_group : row_group;
    int32_t col = err->column >= 0 ? err->column : column;
    int64_t page = err->page;
    char loc[200];
    size_t n = 0;
    loc[0] = '\0';
    /* Appends ", " between the known parts. */
#define CLI_LOC(cond, ...)                                                              \
    do {                                                                                \
        if ((cond) && n < sizeof loc) {                                                 \
            n += (size_t)snprintf(loc + n, sizeof loc - n, "%s", n ? ", " : " (at ");   \
            if (n < sizeof loc) n += (size_t)snprintf(loc + n, sizeof loc - n, __VA_ARGS__); \
        }                                                                               \
    } while (0)
    CLI_LOC(at >= 0, "byte offset %lld", (long long)at);
    CLI_LOC(rg >= 0, "row group %d", (int)rg);
    CLI_LOC(col >= 0, "column %d", (int)col);
    CLI_LOC(page >= 0, "page %lld", (long long)page);
#undef CLI_LOC
    fflush(stdout);
    fprintf(stderr, "plank: %s: %s%s%s\n", file, msg, loc, n ? ")" : "");
    return CLI_EXIT_ERROR;
}

int cli_fail(const char *file, const char *fmt, ...) {
    char msg[PLANK_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "plank: %s: %s\n", file, msg);
    return CLI_EXIT_ERROR;
}

void cli_usage(FILE *f) {
    fputs("usage: plank COMMAND [ARGS]\n"
          "\n"
          "commands:\n"
          "  schema FILE                  the schema tree: repetition, physical and logical\n"
          "                               types, field ids, leaf columns and levels; then\n"
          "                               the Arrow type each field becomes\n"
          "  meta FILE [--json]           file, row group and column chunk metadata with\n"
          "                               decoded statistics\n"
          "  cat FILE [--columns a,b] [--limit N] [--format jsonl|csv|table] [--no-checksum]\n"
          "      [--threads N]            print rows (default jsonl; table shows 100 rows)\n"
          "  scan FILE [--where EXPR] [--columns a,b] [--count] [--limit N]\n"
          "      [--format jsonl|csv|table] [--explain] [--no-pushdown] [--no-stats] [--no-bloom]\n"
          "      [--no-page-index] [--no-dictionary] [--mmap] [--threads N]\n"
          "                               the rows passing a SQL predicate (comparisons, IN,\n"
          "                               BETWEEN, IS NULL, LIKE 'prefix%', AND/OR/NOT), read\n"
          "                               by the pushdown scan, printed as cat prints them;\n"
          "                               --count: how many; --explain: the plan and the\n"
          "                               scan's statistics on stderr; --no-*: a pruning\n"
          "                               level off (--no-pushdown: filter after reading)\n"
          "  bench read FILE [--columns a,b] [--repeat N] [--json] [--arrow] [--rows SEL] [--mmap]\n"
          "      [--threads N] [--batch-rows N]\n"
          "                               decode the columns fully N times (default 5) and\n"
          "                               report the median time, rows/s and bytes/s\n"
          "                               (--arrow: through the Arrow stream, nested\n"
          "                               records assembled; --rows every:K or\n"
          "                               range:FIRST:COUNT reads only those rows;\n"
          "                               --mmap maps the file instead of reading it;\n"
          "                               --batch-rows: records per Arrow batch)\n"
          "  bench scan FILE [--where EXPR] [--columns a,b] [--count] [--repeat N] [--mmap]\n"
          "             [--no-pushdown] [--no-verify-checksums] [--json] [--threads N]\n"
          "  bench write [--rows N] [--repeat N] [-o PATH] [--csv PATH] [--json] [--serve]\n"
          "      [WRITER OPTIONS]         generate a lineitem-like table (default 4,000,000\n"
          "                               rows) in memory and write it N times (default 5):\n"
          "                               median and best time, rows/s, MB/s, file size\n"
          "                               (--csv: also write the table as CSV; --serve: write\n"
          "                               it once per stdin line of writer options and -o\n"
          "                               PATH, one JSON line each, for benchmark harnesses)\n"
          "  convert IN OUT [--from F] [--to F] [WRITER OPTIONS] [CSV/JSONL OPTIONS]\n"
          "                               parquet to parquet, csv or jsonl (the text of cat);\n"
          "                               csv or jsonl to parquet (formats from the\n"
          "                               extensions .parquet .csv .tsv .jsonl .ndjson, or\n"
          "                               --from/--to parquet|csv|jsonl)\n"
          "  tpch gen --sf SF --out DIR [--tables t1,t2] [--format parquet|tbl]\n"
          "      [--encoding default|plain|dictionary|delta] [--threads N] [--parts N --part K]\n"
          "      [WRITER OPTIONS]          TPC-H tables exactly as dbgen 2.17.3 makes them\n"
          "                               (DIR/<table>.parquet or .tbl; --parts: the K-th of N\n"
          "                               slices, DIR/<table>.<K>.<ext>); threads default to\n"
          "                               the cores, the output does not depend on them\n"
          "  tpch q1|q6|q12 DIR [--repeat N] [--threads N] [--mmap] [--verify-checksums]\n"
          "                               TPC-H Q1, Q6 or Q12 (validation parameters) over\n"
          "                               DIR/lineitem.parquet (and orders.parquet): the answer\n"
          "                               as '|'-separated text; --repeat: median and best wall\n"
          "                               time on stderr; threads default to the cores; page\n"
          "                               CRCs are checked only with --verify-checksums\n"
          "  help                         this text\n"
          "  --version                    the plank version\n"
          "\n"
          "writer options (convert, bench write, tpch gen):\n"
          "  --codec none|snappy|gzip|zstd|lz4_raw|brotli|lz4   --level N\n"
          "  --encoding [COLUMN=]ENCODING (PLAIN, RLE_DICTIONARY, DELTA_BINARY_PACKED,\n"
          "      DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE; repeatable;\n"
          "      without COLUMN: every column it applies to)\n"
          "  --row-group-size ROWS  --page-size BYTES  --page-rows N  --page-version 1|2\n"
          "  --dictionary on|always|off  --bloom COLUMN (repeatable)  --no-stats  --no-page-index\n"
          "  --format-version 1|2\n"
          "  --v2-min-saving F: v2 pages whose values compression shrinks by less than the\n"
          "      fraction F (default 0.1) are stored uncompressed; 0: only when it does not\n"
          "      shrink them\n"
          "  --threads N (convert, bench write): columns encoded on N threads (0: one per\n"
          "      processor; default 1); the file's bytes do not depend on N\n"
          "reading threads (cat, scan, bench read --arrow, bench scan --threads N; convert\n"
          "  and tpch q* always): row groups, and a batch's columns, decoded on N threads\n"
          "  (default 0: one per processor; 1 with a --limit that fits one batch); the\n"
          "  output does not depend on N\n"
          "remote files: FILE (schema, meta, cat, scan, bench, convert's IN) may be an\n"
          "  http://, https:// or s3://bucket/key URL, read by range requests; S3 takes\n"
          "  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION and\n"
          "  AWS_ENDPOINT_URL (an S3-compatible store, path-style); PLANK_REMOTE_CA_FILE=PEM\n"
          "  trusts another CA; PLANK_REMOTE_PREFETCH=0 makes one request per read, in\n"
          "  turn; PLANK_REMOTE_MAX_REQUESTS=N bounds the requests in flight (default 8);\n"
          "  PLANK_IO_STATS=1 prints the requests and bytes on stderr (cat, scan, bench scan)\n"
          "CSV/JSONL options (convert):\n"
          "  --schema 'name:type,...' (bool, int32, int64, float, double, string, binary, date,\n"
          "      timestamp[ms|us|ns], timestamptz[ms|us|ns], decimal(P,S); others inferred)\n"
          "  --infer-rows N (default 1000)  --delimiter C (CSV; default ',', tab for .tsv)\n"
          "  --variant COLUMN[,COLUMN...] (repeatable): the column's JSON text (a JSON lines\n"
          "      field of any JSON type, or a CSV cell) as a VARIANT group; a missing key or\n"
          "      null CSV cell is a null group, a JSON null the variant null\n",
          f);
}

int cli_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("plank: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
}

/* ---- Arguments ----------------------------------------------------------------- */

static bool parse_count(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0) return false;
    *out = v;
    return true;
}

int cli_parse_options(int argc, char **argv, unsigned allowed, const char *command,
                      cli_options *o) {
    static const struct {
        const char *name;
        unsigned flag;
        bool takes_value;
    } known[] = {
        {"--columns", CLI_OPT_COLUMNS, true}, {"--limit", CLI_OPT_LIMIT, true},
        {"--format", CLI_OPT_FORMAT, true},   {"--repeat", CLI_OPT_REPEAT, true},
        {"--json", CLI_OPT_JSON, false},      {"--no-checksum", CLI_OPT_NO_CHECKSUM, false},
        {"--arrow", CLI_OPT_ARROW, false},    {"--rows", CLI_OPT_ROWS, true},
        {"--mmap", CLI_OPT_MMAP, false},      {"--threads", CLI_OPT_THREADS, true},
        {"--batch-rows", CLI_OPT_BATCH_ROWS, true},
    };
    memset(o, 0, sizeof *o);
    o->limit = -1;
    o->repeat = -1;
    o->threads = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (o->file) {
                if (!(allowed & CLI_OPT_DATASET))
                    return cli_usage_error("%s: unexpected argument '%s'", command, a);
                if (o->nmore + 1 >= CLI_MAX_FILES)
                    return cli_usage_error("%s: more than %d files (name a directory or a glob)",
                                           command, CLI_MAX_FILES);
                o->more[o->nmore++] = a;
                continue;
            }
            o->file = a;
            continue;
        }
        size_t name_len = strcspn(a, "=");
        int k = -1;
        for (int j = 0; j < (int)(sizeof known / sizeof known[0]); j++)
            if (strlen(known[j].name) == name_len && strncmp(a, known[j].name, name_len) == 0)
                k = j;
        if (k < 0 || !(allowed & known[k].flag))
            return cli_usage_error("%s: unknown option '%s'", command, a);
        const char *value = NULL;
        if (known[k].takes_value) {
            if (a[name_len] == '=') value = a + name_len + 1;
            else if (i + 1 < argc) value = argv[++i];
            else return cli_usage_error("%s: option %s needs a value", command, known[k].name);
        } else if (a[name_len] == '=') {
            return cli_usage_error("%s: option %s takes no value", command, known[k].name);
        }
        switch (known[k].flag) {
        case CLI_OPT_COLUMNS: o->columns = value; break;
        case CLI_OPT_FORMAT: o->format = value; break;
        case CLI_OPT_JSON: o->json = true; break;
        case CLI_OPT_NO_CHECKSUM: o->no_checksum = true; break;
        case CLI_OPT_ARROW: o->arrow = true; break;
        case CLI_OPT_ROWS: o->rows = value; break;
        case CLI_OPT_MMAP: o->mmap = true; break;
        case CLI_OPT_LIMIT:
            if (!parse_count(value, &o->limit))
                return cli_usage_error("%s: --limit needs a count, not '%s'", command, value);
            break;
        case CLI_OPT_THREADS: {
            int64_t t;
            if (!parse_count(value, &t) || t > 1024)
                return cli_usage_error("%s: --threads needs a thread count from 0 (one per "
                                       "processor) to 1024, not '%s'", command, value);
            o->threads = (int32_t)t;
            break;
        }
        case CLI_OPT_BATCH_ROWS:
            if (!parse_count(value, &o->batch_rows) || o->batch_rows < 1 ||
                o->batch_rows > INT32_MAX)
                return cli_usage_error("%s: --batch-rows needs a row count from 1, not '%s'",
                                       command, value);
            break;
        case CLI_OPT_REPEAT:
            if (!parse_count(value, &o->repeat) || o->repeat < 1 || o->repeat > 1000000)
                return cli_usage_error("%s: --repeat needs a count from 1, not '%s'", command,
                                       value);
            break;
        default: break;
        }
    }
    if (!o->file) return cli_usage_error("%s: missing FILE", command);
    return 0;
}

double cli_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int32_t cli_read_threads(int32_t threads, int64_t limit) {
    if (threads >= 0) return threads;
    return limit >= 0 && limit <= CLI_ROWS_BATCH ? 1 : 0;
}

/* ---- Reader helpers --------------------------------------------------------------- */

void cli_remote_options(plank_remote_options *o) {
    plank_remote_options_init(o);
    const char *v = getenv("PLANK_REMOTE_CA_FILE");
    if (v && *v) o->ca_file = v;
    v = getenv("PLANK_REMOTE_PREFETCH");
    if (v && strcmp(v, "0") == 0) o->prefetch = false;
    v = getenv("PLANK_REMOTE_MAX_REQUESTS");
    if (v && atoi(v) > 0) o->max_requests = atoi(v);
}

void cli_report_io(const plank_reader *r) {
    const char *v = getenv("PLANK_IO_STATS");
    if (!v || strcmp(v, "1") != 0) return;
    plank_io_stats s = {.struct_size = sizeof s};
    if (!r || plank_reader_io_stats(r, &s, NULL) != PLANK_OK) return;
    fprintf(stderr, "io: %llu requests, %llu bytes, %llu retries, %llu bytes from prefetch\n",
            (unsigned long long)s.requests, (unsigned long long)s.bytes,
            (unsigned long long)s.retries, (unsigned long long)s.bytes_prefetched);
}

int cli_open(const char *file, const plank_reader_options *opts, plank_reader **out) {
    plank_error err;
    plank_error_init(&err);
    *out = NULL;
    plank_remote_options ro;
    cli_remote_options(&ro);
    plank_status st = plank_reader_open_url(out, file, &ro, opts, &err);
    if (st != PLANK_OK) {
        *out = NULL;
        return cli_report(file, st, &err, -1, -1);
    }
    return 0;
}

int cli_row_group(const char *file, const plank_reader *r, int32_t g, plank_row_group_info *out) {
    plank_error err;
    plank_error_init(&err);
    plank_status st = plank_reader_row_group(r, g, out, &err);
    return st == PLANK_OK ? 0 : cli_report(file, st, &err, g, -1);
}

void cli_column_value_format(const plank_reader *r, int32_t column, cli_value_format *f) {
    const plank_schema_node *n = plank_reader_column_node(r, column);
    cli_value_format_init(f, n->physical_type, n->type_length, &n->logical, n->converted_type,
                          n->converted_scale);
}

/* Appends c to the growing list; false when out of memory. */
static bool push_column(int32_t **out, int32_t *k, int32_t *cap, int32_t c) {
    if (*k == *cap) {
        int32_t ncap = *cap ? *cap * 2 : 16;
        int32_t *p = realloc(*out, sizeof *p * (size_t)ncap);
        if (!p) return false;
        *out = p;
        *cap = ncap;
    }
    (*out)[(*k)++] = c;
    return true;
}

/* The leaves below the group whose dotted path is `name`, appended in
 * column order; returns how many (0: no such group). */
static int32_t push_group(const plank_reader *r, const char *name, int32_t **out, int32_t *k,
                          int32_t *cap, bool *oom) {
    size_t len = strlen(name);
    int32_t found = 0;
    for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
        const char *p = plank_reader_column_node(r, c)->path;
        if (p && strncmp(p, name, len) == 0 && p[len] == '.') {
            if (!push_column(out, k, cap, c)) *oom = true;
            found++;
        }
    }
    return found;
}

/* The leaves of the top-level field whose output name (unique among the
 * top-level fields: plank_schema_node.output_name) is `name`; 0 when no
 * top-level field has that output name. This is how a field whose name
 * repeats, renamed a_1 in cat's keys and headers, is selected. */
static int32_t push_output_name(const plank_reader *r, const char *name, int32_t **out,
                                int32_t *k, int32_t *cap, bool *oom) {
    const plank_schema_node *root = plank_reader_schema_node(r, 0);
    if (!root) return 0;
    int32_t top = -1;
    for (int32_t i = 0; i < root->num_children && top < 0; i++) {
        const plank_schema_node *c = plank_reader_schema_node(r, root->children[i]);
        if (c && c->output_name && strcmp(c->output_name, name) == 0) top = c->index;
    }
    if (top < 0) return 0;
    int32_t found = 0;
    for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
        int32_t p = plank_reader_column_node(r, c)->index;
        while (p > 0 && plank_reader_schema_node(r, p)->parent > 0)
            p = plank_reader_schema_node(r, p)->parent;
        if (p == top) {
            if (!push_column(out, k, cap, c)) *oom = true;
            found++;
        }
    }
    return found;
}

int cli_select_columns(const char *file, const plank_reader *r, const char *list, int32_t **cols,
                       int32_t *n) {
    int32_t total = plank_reader_num_columns(r);
    int32_t *out = NULL, k = 0, cap = 0;
    bool oom = false;
    *cols = NULL;
    *n = 0;
    if (total < 0) total = 0;
    if (!list) {
        for (int32_t c = 0; c < total && !oom; c++) oom = !push_column(&out, &k, &cap, c);
    } else {
        const char *p = list;
        for (;;) {
            size_t len = strcspn(p, ",");
            char name[1024];
            if (len == 0 || len >= sizeof name) {
                free(out);
                return cli_fail(file, len ? "column name too long" : "empty column name in --columns");
            }
            memcpy(name, p, len);
            name[len] = '\0';
            int32_t c = -1;
            if (push_output_name(r, name, &out, &k, &cap, &oom) > 0)
                ; /* a top-level field by the name cat prints */
            else if ((c = plank_reader_find_column(r, name)) >= 0 && c < total)
                oom = oom || !push_column(&out, &k, &cap, c);
            else if (push_group(r, name, &out, &k, &cap, &oom) == 0) {
                free(out);
                return cli_fail(file, "no column '%s' (see plank schema)", name);
            }
            if (!p[len]) break;
            p += len + 1;
        }
    }
    if (oom) {
        free(out);
        return cli_fail(file, "out of memory");
    }
    if (!out) out = malloc(sizeof *out); /* an empty selection is still a valid pointer */
    if (!out) return cli_fail(file, "out of memory");
    *cols = out;
    *n = k;
    return 0;
}

static int compare_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void cli_sort_unique(int32_t *cols, int32_t *n) {
    if (*n <= 0) return;
    qsort(cols, (size_t)*n, sizeof *cols, compare_i32);
    int32_t k = 1;
    for (int32_t i = 1; i < *n; i++)
        if (cols[i] != cols[k - 1]) cols[k++] = cols[i];
    *n = k;
}

/* ---- main ------------------------------------------------------------------------ */
