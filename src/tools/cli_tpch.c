/*
 * cli_tpch.c: `plank tpch gen`, the TPC-H generator of the library
 * (plank_tpch_*) behind a command line, and `plank tpch q1|q6|q12 DIR`,
 * the queries of src/tpchq (public API only) with their timing.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tq_tpch.h"

static void on_progress(void *opaque, int64_t done, int64_t total) {
    cli_progress *p = opaque;
    p->total = total;
    cli_progress_update(p, done);
}

/* The default thread count: the processors this process may run on (its
 * affinity mask, as the library's streams count them), else those online,
 * at most `cap`. */
static int32_t default_threads(int32_t cap) {
    long n = -1;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
#endif
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int32_t)(n < cap ? n : cap) : 1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* mkdir -p: every missing directory of path; 0 or -1 with errno. */
static int mkdir_p(const char *path) {
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static int gen_main(int argc, char **argv) {
    const char *cmd = "tpch gen";
    const char *out = NULL, *tables = NULL;
    double sf = 0;
    bool have_sf = false;
    plank_tpch_options o;
    plank_tpch_options_init(&o);
    o.threads = default_threads(256);
    cli_wopts w;
    cli_wopts_init(&w);
    int64_t parts = 1, part = 1;
    bool have_part = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        size_t len = strcspn(a, "=");
        int rc;
#define IS(name) (strlen(name) == len && strncmp(a, name, len) == 0)
        if (IS("--sf") || IS("--out") || IS("--tables") || IS("--format") || IS("--encoding") ||
            IS("--threads") || IS("--parts") || IS("--part")) {
            if ((rc = cli_option_value(argc, argv, &i, cmd, true, &v)) != 0) return rc;
            if (IS("--sf")) {
                char *end;
                sf = strtod(v, &end);
                if (end == v || *end || !(sf > 0))
                    return cli_usage_error("%s: --sf needs a scale factor above 0, not '%s'", cmd, v);
                have_sf = true;
            } else if (IS("--out")) {
                out = v;
            } else if (IS("--tables")) {
                tables = v;
            } else if (IS("--format")) {
                if (strcmp(v, "parquet") == 0) o.format = PLANK_TPCH_PARQUET;
                else if (strcmp(v, "tbl") == 0) o.format = PLANK_TPCH_TBL;
                else return cli_usage_error("%s: --format is parquet or tbl, not '%s'", cmd, v);
            } else if (IS("--encoding")) {
                if (strcmp(v, "default") == 0) o.encoding = PLANK_TPCH_ENC_DEFAULT;
                else if (strcmp(v, "plain") == 0) o.encoding = PLANK_TPCH_ENC_PLAIN;
                else if (strcmp(v, "dictionary") == 0) o.encoding = PLANK_TPCH_ENC_DICTIONARY;
                else if (strcmp(v, "delta") == 0) o.encoding = PLANK_TPCH_ENC_DELTA;
                else return cli_usage_error("%s: --encoding is default, plain, dictionary or "
                                            "delta, not '%s'", cmd, v);
            } else {
                int64_t n;
                if (!cli_parse_i64(v, 1, 1 << 20, &n))
                    return cli_usage_error("%s: %.*s needs a count from 1, not '%s'", cmd,
                                           (int)len, a, v);
                if (IS("--threads")) o.threads = (int32_t)(n < 1024 ? n : 1024);
                else if (IS("--parts")) parts = n;
                else {
                    part = n;
                    have_part = true;
                }
            }
            continue;
        }
#undef IS
        int kind = cli_wopts_kind(a, len);
        if (kind < 0) {
            cli_wopts_free(&w);
            return cli_usage_error("%s: unknown option '%s'", cmd, a);
        }
        if ((rc = cli_option_value(argc, argv, &i, cmd, kind == 1, &v)) != 0) return rc;
        if ((rc = cli_wopts_parse(&w, cmd, a, v)) != 0) {
            cli_wopts_free(&w);
            return rc > 0 ? rc : cli_usage_error("%s: unknown option '%s'", cmd, a);
        }
    }
    cli_wopts_finish(&w);
    o.writer = &w.opts;
    if (!have_sf) return cli_usage_error("%s: missing --sf SF", cmd);
    if (!out) return cli_usage_error("%s: missing --out DIR", cmd);
    if (have_part && parts == 1 && part != 1)
        return cli_usage_error("%s: --part %lld without --parts", cmd, (long long)part);
    if (part < 1 || part > parts)
        return cli_usage_error("%s: --part %lld outside 1..%lld", cmd, (long long)part,
                               (long long)parts);
    o.parts = (int32_t)parts;
    o.part = (int32_t)part;
    if (tables) {
        const char *p = tables;
        for (;;) {
            size_t len = strcspn(p, ",");
            char name[32];
            int t = -1;
            if (len > 0 && len < sizeof name) {
                memcpy(name, p, len);
                name[len] = '\0';
                t = plank_tpch_table_from_name(name);
            }
            if (t < 0)
                return cli_usage_error("%s: unknown table '%.*s' in --tables (part, partsupp, "
                                       "supplier, customer, orders, lineitem, nation, region)",
                                       cmd, (int)len, p);
            o.tables |= 1u << t;
            if (!p[len]) break;
            p += len + 1;
        }
    }
    double t0 = now_s();
    plank_error err;
    plank_error_init(&err);
    plank_tpch *g;
    plank_status st = plank_tpch_open(&g, sf, o.threads, NULL, &err);
    if (st != PLANK_OK) {
        cli_wopts_free(&w);
        if (st == PLANK_ERR_INVALID_ARGUMENT) return cli_usage_error("%s: %s", cmd, err.message);
        return cli_fail(out, "%s", err.message);
    }
    if (mkdir_p(out) != 0) {
        plank_tpch_close(g);
        cli_wopts_free(&w);
        return cli_fail(out, "cannot create the directory: %s", strerror(errno));
    }
    cli_progress prog;
    cli_progress_init(&prog, "rows", 0);
    o.progress = on_progress;
    o.progress_opaque = &prog;
    st = plank_tpch_write(g, out, &o, &err);
    cli_progress_end(&prog);
    plank_tpch_close(g);
    cli_wopts_free(&w);
    if (st == PLANK_ERR_INVALID_ARGUMENT) return cli_usage_error("%s: %s", cmd, err.message);
    if (st != PLANK_OK) return cli_fail(out, "%s", err.message);
    fprintf(stderr, "tpch: SF %g written to %s in %.2f s (%d threads)\n", sf, out, now_s() - t0,
            (int)o.threads);
    return CLI_EXIT_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* plank tpch q1|q6|q12 DIR [--repeat N] [--threads N] [--mmap | --no-mmap]
 * [--verify-checksums]: the answer on stdout; with --repeat, N timed runs
 * (each from opening the files to the answer text) and their median and
 * best on stderr. Page CRCs are not verified unless asked, as the peers the
 * queries are measured against do not verify them by default. */
static int query_main(int q, const char *name, int argc, char **argv) {
    const char *dir = NULL;
    long repeat = 0;
    tq_options o;
    tq_options_init(&o);
    o.threads = default_threads(64);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "--repeat") == 0 || strcmp(a, "--threads") == 0) && i + 1 < argc) {
            char *end;
            errno = 0;
            long v = strtol(argv[++i], &end, 10);
            if (errno || *end || v < 1 || v > (a[2] == 'r' ? 100000 : 64))
                return cli_usage_error("tpch %s: bad %s value '%s'", name, a, argv[i]);
            if (a[2] == 'r') repeat = v;
            else o.threads = (int32_t)v;
        } else if (strcmp(a, "--no-mmap") == 0 || strcmp(a, "--mmap") == 0) {
            o.memory_map = a[2] == 'm';
        } else if (strcmp(a, "--verify-checksums") == 0) {
            o.verify_checksums = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("tpch %s: unknown option '%s'", name, a);
        } else if (!dir) {
            dir = a;
        } else {
            return cli_usage_error("tpch %s: unexpected argument '%s'", name, a);
        }
    }
    if (!dir) return cli_usage_error("tpch %s: expected a directory", name);
    int runs = repeat > 0 ? (int)repeat : 1;
    double *t = malloc((size_t)runs * sizeof *t);
    if (!t) return cli_fail(dir, "out of memory");
    tq_answer ans = {0};
    for (int r = 0; r < runs; r++) {
        free(ans.text);
        plank_error err;
        double t0 = now_s();
        plank_status st = tq_run((tq_query)q, dir, &o, &ans, &err);
        t[r] = now_s() - t0;
        if (st != PLANK_OK) {
            free(t);
            return cli_report(dir, st, &err, -1, -1);
        }
    }
    fwrite(ans.text, 1, ans.len, stdout);
    free(ans.text);
    if (repeat > 0) {
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
        fprintf(stderr, "tpch %s: median %.3f ms, best %.3f ms over %d runs, %d threads\n", name,
                med * 1e3, t[0] * 1e3, runs, (int)o.threads);
    }
    free(t);
    if (fflush(stdout) != 0) return cli_fail("stdout", "write failed");
    return CLI_EXIT_OK;
}

int cli_tpch_main(int argc, char **argv) {
    if (argc >= 1 && strcmp(argv[0], "gen") == 0) return gen_main(argc - 1, argv + 1);
    int q = argc >= 1 ? tq_query_from_name(argv[0]) : 0;
    if (q) return query_main(q, argv[0], argc - 1, argv + 1);
    return cli_usage_error("tpch: expected 'tpch gen --sf SF --out DIR ...' or "
                           "'tpch q1|q6|q12 DIR'");
}
