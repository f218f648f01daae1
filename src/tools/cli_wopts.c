/*
 * cli_wopts.c: the writer options shared by `plank convert` and
 * `plank bench write` (--codec, --encoding COLUMN=ENC, --bloom COLUMN, ...)
 * and the progress line on stderr.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- Writer options ---------------------------------------------------------- */

void cli_wopts_init(cli_wopts *w) {
    memset(w, 0, sizeof *w);
    plank_writer_options_init(&w->opts);
    w->row_group_rows = -1;
}

void cli_wopts_free(cli_wopts *w) {
    free(w->columns);
    w->columns = NULL;
    w->num_columns = 0;
}

bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

int cli_strcasecmp(const char *a, const char *b) {
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        if (x != y || !x) return x - y;
    }
}

/* The entry of column `path` in the per-column overrides, added when new. */
static plank_column_options *column_entry(cli_wopts *w, const char *path) {
    for (int32_t i = 0; i < w->num_columns; i++)
        if (strcmp(w->columns[i].path, path) == 0) return &w->columns[i];
    plank_column_options *p = realloc(w->columns, sizeof *p * (size_t)(w->num_columns + 1));
    if (!p) {
        fputs("plank: out of memory\n", stderr);
        exit(CLI_EXIT_ERROR);
    }
    w->columns = p;
    plank_column_options *c = &p[w->num_columns++];
    plank_column_options_init(c);
    c->path = path;
    return c;
}

static bool parse_codec(const char *s, plank_codec *c) {
    static const struct {
        const char *name;
        plank_codec codec;
    } names[] = {
        {"none", PLANK_CODEC_UNCOMPRESSED}, {"uncompressed", PLANK_CODEC_UNCOMPRESSED},
        {"snappy", PLANK_CODEC_SNAPPY},     {"gzip", PLANK_CODEC_GZIP},
        {"zstd", PLANK_CODEC_ZSTD},         {"lz4_raw", PLANK_CODEC_LZ4_RAW},
        {"brotli", PLANK_CODEC_BROTLI},     {"lz4", PLANK_CODEC_LZ4},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (cli_strcasecmp(s, names[i].name) == 0) {
            *c = names[i].codec;
            return true;
        }
    return false;
}

static bool parse_encoding(const char *s, int32_t *e) {
    static const plank_encoding all[] = {
        PLANK_ENC_PLAIN, PLANK_ENC_PLAIN_DICTIONARY, PLANK_ENC_RLE, PLANK_ENC_BIT_PACKED,
        PLANK_ENC_DELTA_BINARY_PACKED, PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY,
        PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_ENC_RLE_DICTIONARY, PLANK_ENC_BYTE_STREAM_SPLIT,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (cli_strcasecmp(s, plank_encoding_name(all[i])) == 0) {
            *e = (int32_t)all[i];
            return true;
        }
    return false;
}

int cli_wopts_parse(cli_wopts *w, const char *command, const char *arg, const char *value) {
    plank_writer_options *o = &w->opts;
    int64_t v;
    char name[32];
    size_t len = strcspn(arg, "=");
    if (len >= sizeof name) return -1;
    memcpy(name, arg, len);
    name[len] = '\0';
    if (strcmp(name, "--codec") == 0) {
        if (!parse_codec(value, &o->codec))
            return cli_usage_error("%s: unknown codec '%s' (none, snappy, gzip, zstd, lz4_raw, "
                                   "brotli, lz4)", command, value);
    } else if (strcmp(name, "--level") == 0) {
        if (!cli_parse_i64(value, -100, 100, &v))
            return cli_usage_error("%s: --level needs a number, not '%s'", command, value);
        o->codec_level = (int32_t)v;
    } else if (strcmp(name, "--encoding") == 0) {
        const char *eq = strrchr(value, '=');
        int32_t e;
        if (!eq && parse_encoding(value, &e)) {
            /* no column: the writer-wide encoding of data pages */
            if (e == PLANK_ENC_RLE_DICTIONARY || e == PLANK_ENC_PLAIN_DICTIONARY)
                o->dictionary = true, o->dictionary_sample = false; /* asked for by name */
            else if (e == PLANK_ENC_BIT_PACKED)
                return cli_usage_error("%s: BIT_PACKED is a deprecated level encoding, not a "
                                       "data-page encoding", command);
            else
                o->encoding = e;
            return 0;
        }
        if (!eq || eq == value || !parse_encoding(eq + 1, &e))
            return cli_usage_error("%s: --encoding needs ENCODING or COLUMN=ENCODING with a spec "
                                   "encoding name (PLAIN, RLE_DICTIONARY, DELTA_BINARY_PACKED, "
                                   "...), not '%s'", command, value);
        /* The path is kept in place: argv outlives the options. */
        char *path = (char *)value;
        path[eq - value] = '\0';
        column_entry(w, path)->encoding = e;
    } else if (strcmp(name, "--bloom") == 0) {
        if (!*value) return cli_usage_error("%s: --bloom needs a column", command);
        column_entry(w, value)->bloom_filter = true;
    } else if (strcmp(name, "--row-group-size") == 0) {
        if (!cli_parse_i64(value, 1, INT64_MAX, &v))
            return cli_usage_error("%s: --row-group-size needs a row count from 1, not '%s'",
                                   command, value);
        w->row_group_rows = v;
        o->row_group_rows = v;
    } else if (strcmp(name, "--page-size") == 0) {
        if (!cli_parse_i64(value, 1, INT32_MAX, &v))
            return cli_usage_error("%s: --page-size needs a byte count from 1, not '%s'",
                                   command, value);
        o->page_size = v;
    } else if (strcmp(name, "--page-rows") == 0) {
        if (!cli_parse_i64(value, 1, INT32_MAX, &v))
            return cli_usage_error("%s: --page-rows needs a row count from 1, not '%s'",
                                   command, value);
        o->page_rows = v;
    } else if (strcmp(name, "--page-version") == 0) {
        if (!cli_parse_i64(value, 1, 2, &v))
            return cli_usage_error("%s: --page-version is 1 or 2, not '%s'", command, value);
        o->page_version = (int32_t)v;
    } else if (strcmp(name, "--format-version") == 0) {
        if (!cli_parse_i64(value, 1, 2, &v))
            return cli_usage_error("%s: --format-version is 1 or 2, not '%s'", command, value);
        o->format_version = (int32_t)v;
    } else if (strcmp(name, "--dictionary") == 0) {
        /* on: judged on a sample of each chunk's first page; always: started
         * in every chunk (falls back after a page at the earliest) */
        if (strcmp(value, "on") == 0) o->dictionary = true;
        else if (strcmp(value, "off") == 0) o->dictionary = false;
        else if (strcmp(value, "always") == 0) o->dictionary = true, o->dictionary_sample = false;
        else return cli_usage_error("%s: --dictionary is on, always or off, not '%s'", command,
                                    value);
    } else if (strcmp(name, "--threads") == 0) {
        if (!cli_parse_i64(value, 0, 1024, &v))
            return cli_usage_error("%s: --threads needs a thread count from 0 (one per "
                                   "processor) to 1024, not '%s'", command, value);
        o->threads = (int32_t)v;
    } else if (strcmp(name, "--v2-min-saving") == 0) {
        char *end;
        errno = 0;
        double f = strtod(value, &end);
        if (errno || end == value || *end || !(f >= 0 && f <= 1))
            return cli_usage_error("%s: --v2-min-saving needs a fraction from 0 to 1, not '%s'",
                                   command, value);
        o->v2_min_saving = f;
    } else if (strcmp(name, "--no-stats") == 0) {
        o->statistics = false;
    } else if (strcmp(name, "--no-page-index") == 0) {
        o->page_index = false;
    } else {
        return -1;
    }
    return 0;
}

int cli_wopts_kind(const char *name, size_t len) {
    static const struct {
        const char *name;
        bool takes_value;
    } known[] = {
        {"--codec", true},          {"--level", true},        {"--encoding", true},
        {"--bloom", true},          {"--row-group-size", true}, {"--page-size", true},
        {"--page-rows", true},      {"--page-version", true}, {"--format-version", true},
        {"--dictionary", true},     {"--no-stats", false},    {"--no-page-index", false},
        {"--threads", true},        {"--v2-min-saving", true},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].name) == len && strncmp(name, known[i].name, len) == 0)
            return known[i].takes_value ? 1 : 0;
    return -1;
}

void cli_wopts_finish(cli_wopts *w) {
    w->opts.columns = w->columns;
    w->opts.num_column_options = w->num_columns;
}

int cli_option_value(int argc, char **argv, int *i, const char *command, bool takes_value,
                     const char **value) {
    const char *a = argv[*i];
    size_t len = strcspn(a, "=");
    *value = NULL;
    if (takes_value) {
        if (a[len] == '=') *value = a + len + 1;
        else if (*i + 1 < argc) *value = argv[++*i];
        else return cli_usage_error("%s: option %.*s needs a value", command, (int)len, a);
    } else if (a[len] == '=') {
        return cli_usage_error("%s: option %.*s takes no value", command, (int)len, a);
    }
    return 0;
}

/* ---- Progress ----------------------------------------------------------------- */

static double progress_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, const char *unit, int64_t total) {
    memset(p, 0, sizeof *p);
    p->on = isatty(STDERR_FILENO) == 1 && getenv("PLANK_NO_PROGRESS") == NULL;
    p->unit = unit;
    p->total = total;
    p->last = progress_now();
}

/* 1234567 -> "1.2M" (bytes: "1.2 MB"-style without the B, same units). */
static void human(char *buf, size_t n, int64_t v) {
    if (v >= 1000000000) snprintf(buf, n, "%.1fG", (double)v / 1e9);
    else if (v >= 1000000) snprintf(buf, n, "%.1fM", (double)v / 1e6);
    else if (v >= 10000) snprintf(buf, n, "%.1fk", (double)v / 1e3);
    else snprintf(buf, n, "%lld", (long long)v);
}

void cli_progress_update(cli_progress *p, int64_t done) {
    if (!p->on) return;
    double t = progress_now();
    if (t - p->last < 0.2) return; /* at most five redraws a second */
    p->last = t;
    p->drawn = true;
    char d[32], tot[32];
    human(d, sizeof d, done);
    human(tot, sizeof tot, p->total);
    int width = 30;
    double frac = p->total > 0 ? (double)done / (double)p->total : 0;
    if (frac > 1) frac = 1;
    int filled = (int)(frac * width);
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %3d%% %s/%s %s ", bar, (int)(frac * 100), d, tot, p->unit);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr); /* clear the line */
        fflush(stderr);
    }
    p->drawn = false;
}
