/*
 * cli_main.c: the `plank` command-line tool's entry point, argument parsing,
 * error reporting, buffered output and column selection shared by the
 * commands (schema, meta, cat, bench read).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
          "                               types, field ids, leaf columns and levels\n"
          "  meta FILE [--json]           file, row group and column chunk metadata with\n"
          "                               decoded statistics\n"
          "  cat FILE [--columns a,b] [--limit N] [--format jsonl|csv|table] [--no-checksum]\n"
          "                               print rows (default jsonl; table shows 100 rows)\n"
          "  bench read FILE [--columns a,b] [--repeat N] [--json]\n"
          "                               decode the columns fully N times (default 5) and\n"
          "                               report the median time, rows/s and bytes/s\n"
          "  help                         this text\n"
          "  --version                    the plank version\n",
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
    };
    memset(o, 0, sizeof *o);
    o->limit = -1;
    o->repeat = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (o->file) return cli_usage_error("%s: unexpected argument '%s'", command, a);
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
        case CLI_OPT_LIMIT:
            if (!parse_count(value, &o->limit))
                return cli_usage_error("%s: --limit needs a count, not '%s'", command, value);
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

/* ---- Reader helpers --------------------------------------------------------------- */

int cli_open(const char *file, const plank_reader_options *opts, plank_reader **out) {
    plank_error err;
    plank_error_init(&err);
    *out = NULL;
    plank_status st = plank_reader_open_path(out, file, opts, &err);
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

/* A leaf the flat reader (`cat`) can print: directly below the root and
 * never repeated. */
static bool is_flat_leaf(const plank_reader *r, const plank_schema_node *n) {
    (void)r;
    return n->parent == 0 && n->max_repetition_level == 0;
}

int cli_select_columns(const char *file, const plank_reader *r, const char *list, bool flat_only,
                       int32_t **cols, int32_t *n) {
    int32_t total = plank_reader_num_columns(r);
    *cols = NULL;
    *n = 0;
    if (total < 0) total = 0;
    int32_t cap = total;
    if (list) {
        /* Each comma adds one name; repeats are allowed. */
        cap = 1;
        for (const char *c = list; *c; c++) cap += *c == ',';
    }
    int32_t *out = malloc(sizeof *out * (size_t)(cap > 0 ? cap : 1));
    if (!out) return cli_fail(file, "out of memory");
    int32_t k = 0;
    if (!list) {
        for (int32_t c = 0; c < total; c++) {
            const plank_schema_node *node = plank_reader_column_node(r, c);
            if (flat_only && !is_flat_leaf(r, node)) {
                fflush(stdout);
                fprintf(stderr,
                        "plank: %s: skipping nested column %s (nested reading is not "
                        "implemented yet)\n",
                        file, node->path);
                continue;
            }
            out[k++] = c;
        }
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
            int32_t c = plank_reader_find_column(r, name);
            if (c < 0 || c >= total) {
                free(out);
                return cli_fail(file, "no column '%s' (see plank schema)", name);
            }
            const plank_schema_node *node = plank_reader_column_node(r, c);
            if (flat_only && !is_flat_leaf(r, node)) {
                free(out);
                return cli_fail(file,
                                "column %s is nested (nested reading is not implemented yet)",
                                node->path);
            }
            out[k++] = c;
            if (!p[len]) break;
            p += len + 1;
        }
    }
    *cols = out;
    *n = k;
    return 0;
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    if (argc < 2) return cli_usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("plank %s\n", plank_version_string());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "schema") == 0) return cli_schema_main(argc - 2, argv + 2);
    if (strcmp(cmd, "meta") == 0) return cli_meta_main(argc - 2, argv + 2);
    if (strcmp(cmd, "cat") == 0) return cli_cat_main(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) {
        if (argc < 3 || strcmp(argv[2], "read") != 0)
            return cli_usage_error("bench: expected 'bench read FILE'");
        return cli_bench_main(argc - 3, argv + 3);
    }
    return cli_usage_error("unknown command '%s'", cmd);
}
