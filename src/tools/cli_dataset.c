/*
 * cli_dataset.c: `plank schema|cat|scan|bench read` over a dataset (several
 * files, a directory or a glob), through plank_dataset_*.
 *
 * Rows are printed as JSON lines from the Arrow arrays alone (the files of a
 * dataset may disagree on Parquet types; the unified Arrow schema is what
 * the rows have): integers and floats as numbers, strings as JSON strings,
 * binary as base64, dates and timestamps as their text, decimals exactly,
 * structs as objects, lists as arrays, maps as arrays of {"key","value"}.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "cli_value.h"

bool cli_is_dataset(const cli_options *o) {
    if (o->nmore > 0) return true;
    if (plank_is_url(o->file)) return false; /* a '?' there starts a query */
    struct stat sb;
    if (stat(o->file, &sb) == 0) return S_ISDIR(sb.st_mode);
    return strpbrk(o->file, "*?[") != NULL;
}

/* ---- Values from Arrow -------------------------------------------------------------------- */

static bool is_valid(const struct ArrowArray *a, int64_t i) {
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    if (a->n_buffers == 0) return false; /* null type */
    if (!v || a->null_count == 0) return true;
    int64_t j = i + a->offset;
    return (v[j >> 3] >> (j & 7)) & 1;
}

static void put_value(cli_buf *b, const struct ArrowSchema *s, const struct ArrowArray *a,
                      int64_t i);

static void put_time_unit(cli_buf *b, char u, int64_t v, bool ts, bool utc) {
    plank_time_unit unit = u == 's'   ? PLANK_UNIT_MILLIS
                           : u == 'm' ? PLANK_UNIT_MILLIS
                           : u == 'u' ? PLANK_UNIT_MICROS
                                      : PLANK_UNIT_NANOS;
    if (u == 's') v *= 1000; /* seconds as milliseconds */
    cli_buf_putc(b, '"');
    if (ts) cli_format_timestamp(b, v, unit, utc);
    else cli_format_time(b, v, unit);
    cli_buf_putc(b, '"');
}

static void put_value(cli_buf *b, const struct ArrowSchema *s, const struct ArrowArray *a,
                      int64_t i) {
    if (!is_valid(a, i)) {
        cli_buf_puts(b, "null");
        return;
    }
    const char *f = s->format;
    int64_t j = i + a->offset;
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    if (s->dictionary) {
        int64_t k = f[0] == 'c' ? ((const int8_t *)v)[j] : f[0] == 's' ? ((const int16_t *)v)[j]
                    : f[0] == 'l' ? ((const int64_t *)v)[j] : ((const int32_t *)v)[j];
        put_value(b, s->dictionary, a->dictionary, k);
        return;
    }
    switch (f[0]) {
    case 'b': cli_buf_puts(b, (((const uint8_t *)v)[j >> 3] >> (j & 7)) & 1 ? "true" : "false"); return;
    case 'c': cli_buf_put_i64(b, ((const int8_t *)v)[j]); return;
    case 'C': cli_buf_put_u64(b, ((const uint8_t *)v)[j]); return;
    case 's': cli_buf_put_i64(b, ((const int16_t *)v)[j]); return;
    case 'S': cli_buf_put_u64(b, ((const uint16_t *)v)[j]); return;
    case 'i': cli_buf_put_i64(b, ((const int32_t *)v)[j]); return;
    case 'I': cli_buf_put_u64(b, ((const uint32_t *)v)[j]); return;
    case 'l': cli_buf_put_i64(b, ((const int64_t *)v)[j]); return;
    case 'L': cli_buf_put_u64(b, ((const uint64_t *)v)[j]); return;
    case 'f':
        if (!cli_format_float(b, ((const float *)v)[j])) cli_buf_puts(b, "null");
        return;
    case 'g':
        if (!cli_format_double(b, ((const double *)v)[j])) cli_buf_puts(b, "null");
        return;
    case 'e':
        if (!cli_format_float16(b, ((const uint16_t *)v)[j])) cli_buf_puts(b, "null");
        return;
    case 'u': case 'z': case 'U': case 'Z': {
        bool large = f[0] == 'U' || f[0] == 'Z';
        int64_t o0 = large ? ((const int64_t *)v)[j] : ((const int32_t *)v)[j];
        int64_t o1 = large ? ((const int64_t *)v)[j + 1] : ((const int32_t *)v)[j + 1];
        const uint8_t *data = (const uint8_t *)a->buffers[2] + o0;
        if (f[0] == 'u' || f[0] == 'U') {
            cli_json_string(b, data, (size_t)(o1 - o0));
        } else {
            cli_buf_putc(b, '"');
            cli_format_base64(b, data, (size_t)(o1 - o0));
            cli_buf_putc(b, '"');
        }
        return;
    }
    case 'w': {
        int64_t w = atoll(f + 2);
        cli_buf_putc(b, '"');
        cli_format_base64(b, (const uint8_t *)v + j * w, (size_t)w);
        cli_buf_putc(b, '"');
        return;
    }
    case 'd': {
        const char *c1 = strchr(f, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        int32_t scale = c1 ? atoi(c1 + 1) : 0;
        int bits = c2 ? atoi(c2 + 1) : 128;
        if (bits == 32) {
            cli_format_decimal_i64(b, ((const int32_t *)v)[j], scale);
        } else if (bits == 64) {
            cli_format_decimal_i64(b, ((const int64_t *)v)[j], scale);
        } else {
            /* little-endian two's complement to big-endian bytes */
            size_t w = (size_t)bits / 8;
            uint8_t be[32];
            for (size_t k = 0; k < w; k++) be[k] = ((const uint8_t *)v)[(size_t)j * w + w - 1 - k];
            cli_format_decimal_be(b, be, w, scale);
        }
        return;
    }
    case 't':
        if (f[1] == 'd') {
            int64_t days = f[2] == 'D' ? ((const int32_t *)v)[j] : ((const int64_t *)v)[j] / 86400000;
            cli_buf_putc(b, '"');
            cli_format_date(b, days);
            cli_buf_putc(b, '"');
            return;
        }
        if (f[1] == 't') {
            int64_t x = f[2] == 's' || f[2] == 'm' ? ((const int32_t *)v)[j] : ((const int64_t *)v)[j];
            put_time_unit(b, f[2], x, false, false);
            return;
        }
        if (f[1] == 's') {
            put_time_unit(b, f[2], ((const int64_t *)v)[j], true, f[4] != '\0');
            return;
        }
        break;
    case '+':
        if (f[1] == 's') {
            cli_buf_putc(b, '{');
            for (int64_t k = 0; k < s->n_children; k++) {
                if (k) cli_buf_putc(b, ',');
                const char *n = s->children[k]->name ? s->children[k]->name : "";
                cli_json_string(b, (const uint8_t *)n, strlen(n));
                cli_buf_putc(b, ':');
                put_value(b, s->children[k], a->children[k], j);
            }
            cli_buf_putc(b, '}');
            return;
        }
        if (f[1] == 'l' || f[1] == 'L' || f[1] == 'm' || f[1] == 'w') {
            int64_t o0, o1;
            if (f[1] == 'w') {
                int64_t w = atoll(f + 3);
                o0 = j * w;
                o1 = o0 + w;
            } else if (f[1] == 'L') {
                o0 = ((const int64_t *)v)[j];
                o1 = ((const int64_t *)v)[j + 1];
            } else {
                o0 = ((const int32_t *)v)[j];
                o1 = ((const int32_t *)v)[j + 1];
            }
            cli_buf_putc(b, '[');
            for (int64_t k = o0; k < o1; k++) {
                if (k > o0) cli_buf_putc(b, ',');
                if (f[1] == 'm') {
                    const struct ArrowSchema *es = s->children[0];
                    const struct ArrowArray *ea = a->children[0];
                    cli_buf_puts(b, "{\"key\":");
                    put_value(b, es->children[0], ea->children[0], k + ea->offset);
                    cli_buf_puts(b, ",\"value\":");
                    put_value(b, es->children[1], ea->children[1], k + ea->offset);
                    cli_buf_putc(b, '}');
                } else {
                    put_value(b, s->children[0], a->children[0], k);
                }
            }
            cli_buf_putc(b, ']');
            return;
        }
        break;
    default: break;
    }
    cli_buf_puts(b, "null"); /* a type without a text form here */
}

/* ---- Commands ------------------------------------------------------------------------- */

static int open_dataset(const cli_options *o, plank_dataset **d) {
    const char **src = malloc(sizeof *src * (size_t)(o->nmore + 1));
    if (!src) return cli_fail(o->file, "out of memory");
    src[0] = o->file;
    for (int32_t i = 0; i < o->nmore; i++) src[i + 1] = o->more[i];
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.memory_map = o->mmap;
    ro.verify_checksums = !o->no_checksum;
    plank_dataset_options dopt;
    plank_dataset_options_init(&dopt);
    dopt.reader = &ro;
    plank_remote_options rmo;
    cli_remote_options(&rmo);
    dopt.remote = &rmo;
    plank_error err;
    plank_error_init(&err);
    plank_status st = plank_dataset_open(d, src, o->nmore + 1, &dopt, &err);
    free(src);
    if (st != PLANK_OK) return cli_report(o->file, st, &err, -1, -1);
    return 0;
}

int cli_dataset_schema(const cli_options *o) {
    plank_dataset *d;
    int rc = open_dataset(o, &d);
    if (rc) return rc;
    struct ArrowSchema s;
    plank_error err;
    plank_status st = plank_dataset_arrow_schema(d, &s, &err);
    if (st != PLANK_OK) {
        plank_dataset_close(d);
        return cli_report(o->file, st, &err, -1, -1);
    }
    printf("dataset: %d files, %lld rows\n", (int)plank_dataset_num_files(d),
           (long long)plank_dataset_num_rows(d));
    for (int32_t f = 0; f < plank_dataset_num_files(d); f++)
        printf("  %s\n", plank_dataset_file_path(d, f));
    printf("arrow schema:\n");
    for (int64_t k = 0; k < s.n_children; k++)
        printf("  %s: %s\n", s.children[k]->name, s.children[k]->format);
    s.release(&s);
    plank_dataset_close(d);
    return 0;
}

int cli_dataset_rows(const cli_options *o, const char *where, bool count, bool explain,
                     const plank_scan_options *flags) {
    plank_error err;
    plank_error_init(&err);
    plank_expr *filter = NULL;
    if (where && plank_expr_parse(where, NULL, &filter, &err) != PLANK_OK)
        return cli_usage_error("--where: %s", err.message);
    /* --columns a,b */
    char *list = o->columns ? strdup(o->columns) : NULL;
    const char *names[1024];
    int32_t nn = 0;
    for (char *t = list; t && *t && nn < 1024;) {
        names[nn++] = t;
        char *c = strchr(t, ',');
        if (!c) break;
        *c = 0;
        t = c + 1;
    }
    plank_dataset *d = NULL;
    int rc = open_dataset(o, &d);
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = cli_read_threads(o->threads, count ? -1 : o->limit);
    if (o->limit > 0 && o->limit < ao.batch_rows) ao.batch_rows = o->limit;
    plank_scan_options so = *flags;
    so.filter = filter;
    so.columns = nn ? names : NULL;
    so.num_columns = nn;
    so.arrow = &ao;
    plank_dataset_scan_options dso;
    plank_dataset_scan_options_init(&dso);
    dso.scan = &so;
    plank_dataset_stats stats;
    plank_dataset_stats_init(&stats);
    if (rc == 0 && count) {
        int64_t n = 0;
        plank_status st = plank_dataset_count(d, &dso, &n, &stats, &err);
        if (st != PLANK_OK) rc = cli_report(o->file, st, &err, -1, -1);
        else printf("%lld\n", (long long)n);
    } else if (rc == 0) {
        struct ArrowArrayStream s;
        plank_status st = plank_dataset_scan(d, &dso, &s, &err);
        struct ArrowSchema sc;
        memset(&sc, 0, sizeof sc);
        if (st != PLANK_OK) rc = cli_report(o->file, st, &err, -1, -1);
        else if (s.get_schema(&s, &sc) != 0) rc = cli_fail(o->file, "%s", s.get_last_error(&s));
        cli_out out;
        cli_out_init(&out, stdout);
        int64_t left = o->limit;
        while (rc == 0 && left != 0) {
            struct ArrowArray a;
            if (s.get_next(&s, &a) != 0) {
                rc = cli_fail(o->file, "%s", s.get_last_error(&s));
                break;
            }
            if (!a.release) break;
            for (int64_t i = 0; i < a.length && left != 0; i++, left--) {
                cli_buf_putc(&out.buf, '{');
                for (int64_t k = 0; k < sc.n_children; k++) {
                    if (k) cli_buf_putc(&out.buf, ',');
                    const char *n = sc.children[k]->name;
                    cli_json_string(&out.buf, (const uint8_t *)n, strlen(n));
                    cli_buf_putc(&out.buf, ':');
                    put_value(&out.buf, sc.children[k], a.children[k], i + a.offset);
                }
                cli_buf_puts(&out.buf, "}\n");
                cli_out_maybe_flush(&out);
            }
            a.release(&a);
        }
        if (!cli_out_close(&out) && rc == 0) rc = cli_fail("stdout", "cannot write the output");
        if (st == PLANK_OK) plank_dataset_stream_stats(&s, &stats);
        if (sc.release) sc.release(&sc);
        if (st == PLANK_OK) s.release(&s);
    }
    if (rc == 0 && explain)
        fprintf(stderr, "dataset: %lld files, %lld pruned by partition values, %lld by "
                        "statistics; %lld row groups, %lld pruned by statistics, %lld rows "
                        "matched\n",
                (long long)stats.files, (long long)stats.files_pruned_partitions,
                (long long)stats.files_pruned_statistics, (long long)stats.scan.row_groups,
                (long long)stats.scan.row_groups_pruned_statistics,
                (long long)stats.scan.rows_matched);
    plank_dataset_close(d);
    plank_expr_free(filter);
    free(list);
    return rc;
}


int cli_dataset_bench(const cli_options *o) {
    int repeat = o->repeat > 0 ? (int)o->repeat : 5;
    double *t = calloc((size_t)repeat, sizeof *t);
    if (!t) return cli_fail(o->file, "out of memory");
    int rc = 0;
    int64_t rows = 0;
    int32_t files = 0;
    for (int i = 0; i < repeat && rc == 0; i++) {
        double t0 = cli_seconds();
        plank_dataset *d;
        if ((rc = open_dataset(o, &d))) break;
        files = plank_dataset_num_files(d);
        plank_arrow_options ao;
        plank_arrow_options_init(&ao);
        ao.threads = cli_read_threads(o->threads, -1);
        plank_scan_options so;
        plank_scan_options_init(&so);
        so.arrow = &ao;
        plank_dataset_scan_options dso;
        plank_dataset_scan_options_init(&dso);
        dso.scan = &so;
        struct ArrowArrayStream s;
        plank_error err;
        plank_status st = plank_dataset_scan(d, &dso, &s, &err);
        if (st != PLANK_OK) rc = cli_report(o->file, st, &err, -1, -1);
        rows = 0;
        while (rc == 0) {
            struct ArrowArray a;
            if (s.get_next(&s, &a) != 0) {
                rc = cli_fail(o->file, "%s", s.get_last_error(&s));
                break;
            }
            if (!a.release) break;
            rows += a.length;
            a.release(&a);
        }
        if (st == PLANK_OK) s.release(&s);
        plank_dataset_close(d);
        t[i] = cli_seconds() - t0;
    }
    if (rc == 0) {
        qsort(t, (size_t)repeat, sizeof *t, cli_cmp_double);
        double med = repeat % 2 ? t[repeat / 2] : (t[repeat / 2 - 1] + t[repeat / 2]) / 2;
        printf("dataset:    %s (%d files)\nrows:       %lld, through the dataset scan\n"
               "time:       median %.3f ms (min %.3f, max %.3f)\n",
               o->file, (int)files, (long long)rows, med * 1e3, t[0] * 1e3, t[repeat - 1] * 1e3);
    }
    free(t);
    return rc;
}
