/* test_parallel.c: parallel reads (plank_arrow_options.threads, executor,
 * batches_in_flight, any_order) against the serial read of the same file.
 *
 * The serial stream (threads = 1) is the reference: its batches, written
 * out row by row as JSON by the independent Arrow walker of arrow_json.h,
 * must come out of every parallel configuration identically (the same rows
 * in the same batches, in file order), or as the same set of batches with
 * any_order. Files:
 *  - every file of the parquet-testing corpus that the serial stream reads
 *    (one row group each, mostly: the columns of each batch are read in
 *    parallel), and each of them rewritten by plank with a row group every
 *    ~1/9 of its rows, so that row groups run on several threads;
 *  - a table written here (20 row groups, page index, dictionary strings,
 *    nulls), scanned with pushed-down predicates: rows, plank_scan_count and
 *    the pruning statistics equal the serial scan's;
 *  - the same table with one page corrupted in row group 7: the parallel
 *    stream returns every batch before that row group, then the serial
 *    stream's error.
 * Executors: plank's own pool, a caller's pool of one thread per task, one
 * that runs every task inside wait, and one that refuses every task. A
 * reader with a caller's allocator is read on the caller's thread only
 * unless threads is set. CI runs this under ThreadSanitizer as well. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arrow_json.h"
#include "plank.h"
#include "tharness.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Executors of the caller's kind -------------------------------------------------- */

/* One thread per task. */
typedef struct th_task {
    pthread_t t;
    void (*fn)(void *);
    void *arg;
} th_task;

static atomic_int g_thread_tasks;

static void *th_main(void *p) {
    th_task *k = p;
    k->fn(k->arg);
    return NULL;
}
static void *th_submit(void *ctx, void (*fn)(void *), void *arg) {
    (void)ctx;
    th_task *k = malloc(sizeof *k);
    if (!k) return NULL;
    k->fn = fn;
    k->arg = arg;
    if (pthread_create(&k->t, NULL, th_main, k) != 0) {
        free(k);
        return NULL;
    }
    atomic_fetch_add(&g_thread_tasks, 1);
    return k;
}
static void th_wait(void *ctx, void *h) {
    (void)ctx;
    th_task *k = h;
    pthread_join(k->t, NULL);
    free(k);
}

/* Every task runs inside its wait (a pool with no free thread). */
typedef struct lazy_task {
    void (*fn)(void *);
    void *arg;
} lazy_task;
static void *lazy_submit(void *ctx, void (*fn)(void *), void *arg) {
    (void)ctx;
    lazy_task *k = malloc(sizeof *k);
    if (!k) return NULL;
    k->fn = fn;
    k->arg = arg;
    return k;
}
static void lazy_wait(void *ctx, void *h) {
    (void)ctx;
    lazy_task *k = h;
    k->fn(k->arg);
    free(k);
}

/* Refuses every task: plank runs them itself. */
static void *refuse_submit(void *ctx, void (*fn)(void *), void *arg) {
    (void)ctx;
    (void)fn;
    (void)arg;
    return NULL;
}
static void refuse_wait(void *ctx, void *h) {
    (void)ctx;
    (void)h;
    abort(); /* never called: no handle was given */
}

static plank_executor g_ex_thread, g_ex_lazy, g_ex_refuse;

static void init_executors(void) {
    g_ex_thread = (plank_executor){sizeof(plank_executor), NULL, 3, th_submit, th_wait};
    g_ex_lazy = (plank_executor){sizeof(plank_executor), NULL, 4, lazy_submit, lazy_wait};
    g_ex_refuse = (plank_executor){sizeof(plank_executor), NULL, 2, refuse_submit, refuse_wait};
}

/* ---- Dumps -------------------------------------------------------------------------- */

typedef struct dump {
    char **batches; /* one text per batch: its length, then one JSON line per row */
    int64_t n, cap;
    int rc;         /* get_next's error, 0 when the stream ended */
    char err[600];
    int64_t rows;
} dump;

static void dump_free(dump *d) {
    for (int64_t i = 0; i < d->n; i++) free(d->batches[i]);
    free(d->batches);
    memset(d, 0, sizeof *d);
}

/* Drains the stream (released here). max_batches > 0: stops after that many. */
static void dump_stream(struct ArrowArrayStream *st, dump *d, int64_t max_batches) {
    memset(d, 0, sizeof *d);
    struct ArrowSchema sc;
    if (st->get_schema(st, &sc) != 0) {
        d->rc = -1;
        snprintf(d->err, sizeof d->err, "get_schema failed");
        st->release(st);
        return;
    }
    for (;;) {
        if (max_batches > 0 && d->n >= max_batches) break;
        struct ArrowArray a;
        int rc = st->get_next(st, &a);
        if (rc != 0) {
            d->rc = rc;
            const char *m = st->get_last_error(st);
            snprintf(d->err, sizeof d->err, "%s", m ? m : "");
            break;
        }
        if (!a.release) break;
        aj_buf b = {0};
        aj_fmt(&b, "batch %lld\n", (long long)a.length);
        for (int64_t i = 0; i < a.length; i++) {
            aj_row(&b, &sc, &a, i);
            aj_str(&b, "\n");
        }
        d->rows += a.length;
        a.release(&a);
        if (d->n == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 16;
            d->batches = realloc(d->batches, (size_t)d->cap * sizeof *d->batches);
            if (!d->batches) abort();
        }
        d->batches[d->n++] = b.p ? b.p : strdup("");
    }
    sc.release(&sc);
    st->release(st);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether two dumps hold the same batches (in order, or as sets). */
static bool dumps_equal(const dump *a, const dump *b, bool as_set, const char *what) {
    if (a->n != b->n || a->rc != b->rc || a->rows != b->rows) {
        fprintf(stderr, "  %s: %lld batches / %lld rows / rc %d vs %lld / %lld / rc %d (%s | %s)\n",
                what, (long long)a->n, (long long)a->rows, a->rc, (long long)b->n,
                (long long)b->rows, b->rc, a->err, b->err);
        return false;
    }
    if (a->rc && strcmp(a->err, b->err) != 0) {
        fprintf(stderr, "  %s: error \"%s\" vs \"%s\"\n", what, a->err, b->err);
        return false;
    }
    char **x = a->batches, **y = b->batches;
    char **xs = NULL, **ys = NULL;
    if (as_set && a->n > 0) {
        xs = malloc((size_t)a->n * sizeof *xs);
        ys = malloc((size_t)a->n * sizeof *ys);
        memcpy(xs, x, (size_t)a->n * sizeof *xs);
        memcpy(ys, y, (size_t)a->n * sizeof *ys);
        qsort(xs, (size_t)a->n, sizeof *xs, cmp_str);
        qsort(ys, (size_t)a->n, sizeof *ys, cmp_str);
        x = xs;
        y = ys;
    }
    bool ok = true;
    for (int64_t i = 0; i < a->n && ok; i++)
        if (strcmp(x[i], y[i]) != 0) {
            fprintf(stderr, "  %s: batch %lld differs\n", what, (long long)i);
            ok = false;
        }
    free(xs);
    free(ys);
    return ok;
}

/* ---- Configurations ---------------------------------------------------------------- */

typedef struct pconf {
    const char *name;
    int32_t threads;
    int32_t in_flight;
    bool any_order;
    const plank_executor *ex;
} pconf;

static pconf k_confs[6];
static int g_nconfs;

static void init_confs(void) {
    pconf c[] = {
        {"threads=2", 2, 0, false, NULL},
        {"threads=3 in_flight=1", 3, 1, false, NULL},
        {"thread-per-task executor", 0, 0, false, &g_ex_thread},
        {"run-in-wait executor threads=4", 4, 2, false, &g_ex_lazy},
        {"refusing executor", 0, 3, false, &g_ex_refuse},
        {"threads=3 any_order", 3, 2, true, NULL},
    };
    memcpy(k_confs, c, sizeof c);
    g_nconfs = (int)(sizeof c / sizeof c[0]);
}

static void set_conf(plank_arrow_options *o, const pconf *c) {
    o->threads = c->threads;
    o->batches_in_flight = c->in_flight;
    o->any_order = c->any_order;
    o->executor = c->ex;
}

static int64_t g_files, g_compared, g_rewritten, g_last_rows;

/* The reader's whole-file stream, serial, against every configuration. */
static void check_stream_file(const char *path, int64_t batch_rows) {
    plank_reader *r;
    plank_error e;
    if (plank_reader_open_path(&r, path, NULL, &e) != PLANK_OK) return;
    /* Files that decode to more than 64 MiB (large_string_map: 2 GiB of
     * strings) would take minutes as JSON text; they add nothing here. */
    int64_t bytes = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info gi = {.struct_size = sizeof gi};
        if (plank_reader_row_group(r, g, &gi, &e) == PLANK_OK) bytes += gi.total_byte_size;
    }
    if (bytes > (64 << 20)) {
        plank_reader_close(r);
        return;
    }
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.batch_rows = batch_rows;
    o.threads = 1;
    struct ArrowArrayStream st;
    if (plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) != PLANK_OK) {
        plank_reader_close(r);
        return;
    }
    dump ref;
    dump_stream(&st, &ref, 0);
    g_files++;
    for (int k = 0; k < g_nconfs; k++) {
        plank_arrow_options p = o;
        set_conf(&p, &k_confs[k]);
        plank_status s = plank_reader_arrow_stream(r, NULL, 0, &p, &st, &e);
        CHECK_MSG(s == PLANK_OK, "%s: %s: %s", path, k_confs[k].name, e.message);
        if (s != PLANK_OK) continue;
        dump d;
        dump_stream(&st, &d, 0);
        char what[4200];
        snprintf(what, sizeof what, "%s (%s, batch_rows %lld)", path, k_confs[k].name,
                 (long long)batch_rows);
        CHECK_MSG(dumps_equal(&ref, &d, k_confs[k].any_order, what), "%s", what);
        g_compared++;
        dump_free(&d);
    }
    /* The row-selection stream: every third row, in parallel too. */
    int64_t nrows = plank_reader_num_rows(r);
    if (nrows > 0 && nrows <= 1000000 && ref.rc == 0) {
        int64_t nr = (nrows + 2) / 3;
        plank_row_range *rr = malloc((size_t)nr * sizeof *rr);
        for (int64_t i = 0; i < nr; i++) rr[i] = (plank_row_range){i * 3, 1};
        dump a, b;
        if (plank_reader_arrow_stream_rows(r, rr, nr, &o, &st, &e) == PLANK_OK) {
            dump_stream(&st, &a, 0);
            plank_arrow_options p = o;
            set_conf(&p, &k_confs[1]);
            plank_status s = plank_reader_arrow_stream_rows(r, rr, nr, &p, &st, &e);
            CHECK_MSG(s == PLANK_OK, "%s: rows: %s", path, e.message);
            if (s == PLANK_OK) {
                dump_stream(&st, &b, 0);
                CHECK_MSG(dumps_equal(&a, &b, false, path), "%s: selected rows", path);
                dump_free(&b);
            }
            dump_free(&a);
        }
        free(rr);
    }
    dump_free(&ref);
    plank_reader_close(r);
}

/* The file rewritten by plank with a row group every ~1/9 of its rows (false
 * when plank cannot write what it reads). */
static bool rewrite(const char *path, const char *out) {
    plank_reader *r;
    plank_error e;
    if (plank_reader_open_path(&r, path, NULL, &e) != PLANK_OK) return false;
    int64_t rows = plank_reader_num_rows(r);
    g_last_rows = rows;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.threads = 1;
    o.batch_rows = rows / 9 > 0 ? rows / 9 : 1;
    struct ArrowArrayStream st;
    bool ok = rows >= 9 && plank_reader_arrow_stream(r, NULL, 0, &o, &st, &e) == PLANK_OK;
    if (ok) {
        plank_writer_options w;
        plank_writer_options_init(&w);
        w.row_group_rows = o.batch_rows;
        ok = plank_write_arrow_stream(out, &st, &w, &e) == PLANK_OK;
    }
    plank_reader_close(r);
    return ok;
}


static void corpus(const char *tmpdir) {
    const char *dir = th_testing_dir();
    if (!dir) {
        TEST_SKIP_PART("parquet-testing corpus not found");
        return;
    }
    char d[4096];
    snprintf(d, sizeof d, "%s/data", dir);
    DIR *dh = opendir(d);
    CHECK_MSG(dh != NULL, "cannot list %s", d);
    if (!dh) return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dh))) {
        size_t l = strlen(de->d_name);
        if (l < 9 || strcmp(de->d_name + l - 8, ".parquet") != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(dh);
    qsort(names, n, sizeof *names, cmp_str);
    /* PLANK_PARALLEL_QUICK (sanitizer builds): every fourth file. */
    size_t step = getenv("PLANK_PARALLEL_QUICK") ? 4 : 1;
    for (size_t i = 0; i < n; i += step) {
        char p[8192], q[8192];
        snprintf(p, sizeof p, "%s/%s", d, names[i]);
        struct stat sb;
        if (stat(p, &sb) != 0 || sb.st_size > (8 << 20)) continue;
        double t0 = now_s();
        check_stream_file(p, 65536);
        double t1 = now_s();
        snprintf(q, sizeof q, "%s/rg_%s", tmpdir, names[i]);
        if (rewrite(p, q)) {
            g_rewritten++;
            check_stream_file(q, 65536);
            /* small batches: many per row group */
            check_stream_file(q, g_last_rows <= 2000 ? 7 : g_last_rows / 40);
            unlink(q);
        }
        if (now_s() - t0 > 1.0)
            fprintf(stderr, "  %s: %.1f s (%.1f s as written)\n", names[i], now_s() - t0,
                    t1 - t0);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* ---- A table for scans ------------------------------------------------------------- */

#define T_ROWS 100000
#define T_RG 5000
enum { T_ID, T_K, T_S, T_D, T_NCOL };

static int64_t t_id[T_ROWS], t_offs[T_ROWS + 1];
static int32_t t_k[T_ROWS];
static double t_d[T_ROWS];
static uint8_t t_dvalid[T_ROWS / 8 + 1];
static char t_str[T_ROWS * 8];

static void write_table(const char *path) {
    uint64_t x = 88172645463325252ULL;
    t_offs[0] = 0;
    for (int64_t r = 0; r < T_ROWS; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t_id[r] = r * 2 + 1;                       /* sorted: the page index prunes */
        t_k[r] = (int32_t)(x % 100);
        bool dnull = (x >> 20) % 9 == 0;
        t_d[r] = dnull ? 0 : (double)((x >> 30) % 10000) / 8.0;
        if (!dnull) t_dvalid[r / 8] |= (uint8_t)(1u << (r % 8));
        t_offs[r + 1] = t_offs[r] +
                        snprintf(t_str + t_offs[r], 8, "w%02d", (int)((x >> 40) % 50));
    }
    static const char *const names[T_NCOL] = {"id", "k", "s", "d"};
    const plank_physical_type types[T_NCOL] = {PLANK_INT64, PLANK_INT32, PLANK_BYTE_ARRAY,
                                               PLANK_DOUBLE};
    plank_schema_field fl[T_NCOL + 1];
    for (int i = 0; i <= T_NCOL; i++) plank_schema_field_init(&fl[i]);
    fl[0].num_children = T_NCOL;
    for (int c = 0; c < T_NCOL; c++) {
        fl[c + 1].name = names[c];
        fl[c + 1].physical_type = types[c];
        fl[c + 1].repetition = c == T_D ? PLANK_OPTIONAL : PLANK_REQUIRED;
    }
    fl[T_S + 1].logical.kind = PLANK_LOGICAL_STRING;
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.page_rows = 700;
    o.row_group_rows = T_RG;
    plank_writer *w;
    plank_error e;
    plank_status st = plank_writer_open_path(&w, path, fl, T_NCOL + 1, &o, &e);
    CHECK_MSG(st == PLANK_OK, "open writer: %s", e.message);
    if (st != PLANK_OK) return;
    plank_batch b[T_NCOL];
    for (int c = 0; c < T_NCOL; c++) b[c] = (plank_batch){.struct_size = sizeof(plank_batch),
                                                          .length = T_ROWS};
    b[T_ID].values = t_id;
    b[T_K].values = t_k;
    b[T_S].offsets = t_offs;
    b[T_S].data = (const uint8_t *)t_str;
    b[T_D].values = t_d;
    b[T_D].validity = t_dvalid;
    b[T_D].null_count = -1;
    st = plank_writer_write_rows(w, b, T_ROWS, &e);
    CHECK_MSG(st == PLANK_OK, "write: %s", e.message);
    st = plank_writer_close(w, &e);
    CHECK_MSG(st == PLANK_OK, "close: %s", e.message);
}

static void scan_dump(plank_reader *r, const char *where, const pconf *c, int64_t batch_rows,
                      dump *d, plank_scan_stats *stats, int64_t *count) {
    plank_error e;
    plank_expr *x = NULL;
    plank_status st = plank_expr_parse(where, NULL, &x, &e);
    CHECK_MSG(st == PLANK_OK, "parse %s: %s", where, e.message);
    plank_arrow_options a;
    plank_arrow_options_init(&a);
    a.batch_rows = batch_rows;
    a.threads = 1;
    if (c) set_conf(&a, c);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = x;
    o.arrow = &a;
    plank_scan *s;
    st = plank_scan_open(&s, r, &o, &e);
    CHECK_MSG(st == PLANK_OK, "scan %s: %s", where, e.message);
    memset(d, 0, sizeof *d);
    if (st == PLANK_OK) {
        struct ArrowArrayStream as;
        st = plank_scan_arrow_stream(s, &as, &e);
        CHECK_MSG(st == PLANK_OK, "stream %s: %s", where, e.message);
        if (st == PLANK_OK) dump_stream(&as, d, 0);
        plank_scan_stats_init(stats);
        plank_scan_get_stats(s, stats);
        plank_scan_close(s);
        /* and the count, on a scan of its own */
        st = plank_scan_open(&s, r, &o, &e);
        if (st == PLANK_OK) {
            st = plank_scan_count(s, count, &e);
            if (st != PLANK_OK) *count = -100 - (int64_t)st; /* the status, for comparing */
            plank_scan_close(s);
        }
    }
    plank_expr_free(x);
}

static void scans(const char *path) {
    static const char *const wheres[] = {
        "id < 30001",
        "k = 7 AND s IN ('w01', 'w02', 'w33')",
        "d BETWEEN 100 AND 200 OR s LIKE 'w4%'",
        "id >= 150000 AND k < 50 AND d IS NULL",
        "id > 1000000",
        "k > id",
        "s = 'w07' OR id BETWEEN 99000 AND 99100",
    };
    plank_reader *r;
    plank_error e;
    plank_status st = plank_reader_open_path(&r, path, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "open %s: %s", path, e.message);
    if (st != PLANK_OK) return;
    for (size_t i = 0; i < sizeof wheres / sizeof wheres[0]; i++) {
        for (int br = 0; br < 2; br++) {
            int64_t batch_rows = br ? 333 : 65536;
            dump ref;
            plank_scan_stats rs;
            int64_t rcount = -1;
            scan_dump(r, wheres[i], NULL, batch_rows, &ref, &rs, &rcount);
            CHECK_EQ_I64(rcount, ref.rows);
            for (int k = 0; k < g_nconfs; k++) {
                dump d;
                plank_scan_stats ps;
                int64_t pcount = -2;
                scan_dump(r, wheres[i], &k_confs[k], batch_rows, &d, &ps, &pcount);
                char what[512];
                snprintf(what, sizeof what, "scan \"%s\" (%s, batch_rows %lld)", wheres[i],
                         k_confs[k].name, (long long)batch_rows);
                CHECK_MSG(dumps_equal(&ref, &d, k_confs[k].any_order, what), "%s", what);
                CHECK_MSG(pcount == rcount, "%s: count %lld vs %lld", what, (long long)pcount,
                          (long long)rcount);
                /* What pruning decided does not depend on the threads. */
                CHECK_EQ_I64(ps.row_groups, rs.row_groups);
                CHECK_EQ_I64(ps.rows, rs.rows);
                CHECK_EQ_I64(ps.row_groups_pruned_statistics, rs.row_groups_pruned_statistics);
                CHECK_EQ_I64(ps.row_groups_pruned_bloom, rs.row_groups_pruned_bloom);
                CHECK_EQ_I64(ps.row_groups_pruned_page_index, rs.row_groups_pruned_page_index);
                CHECK_EQ_I64(ps.pages, rs.pages);
                CHECK_EQ_I64(ps.pages_pruned_page_index, rs.pages_pruned_page_index);
                CHECK_EQ_I64(ps.bytes_not_read, rs.bytes_not_read);
                CHECK_EQ_I64(ps.rows_candidate, rs.rows_candidate);
                CHECK_EQ_I64(ps.rows_matched, rs.rows_matched);
                g_compared++;
                dump_free(&d);
            }
            dump_free(&ref);
        }
    }
    plank_reader_close(r);
}

/* ---- Errors ---------------------------------------------------------------------- */

/* A copy of the table with the first data page of column k in row group 7
 * overwritten in its middle (its CRC then fails). */
static void corrupt_copy(const char *src, const char *dst) {
    size_t len;
    unsigned char *buf = th_read_file(src, &len);
    CHECK(buf != NULL);
    if (!buf) return;
    plank_reader *r;
    plank_error e;
    CHECK(plank_reader_open_memory(&r, buf, len, NULL, &e) == PLANK_OK);
    plank_column_chunk_info ci = {.struct_size = sizeof ci};
    CHECK(plank_reader_column_chunk(r, 7, T_K, &ci, &e) == PLANK_OK);
    plank_reader_close(r);
    int64_t at = ci.data_page_offset + ci.total_compressed_size / 2;
    CHECK(at > 0 && (size_t)at + 8 < len);
    for (int i = 0; i < 8; i++) buf[at + i] ^= 0x5a;
    FILE *f = fopen(dst, "wb");
    CHECK(f && fwrite(buf, 1, len, f) == len);
    if (f) fclose(f);
    free(buf);
}

static void errors(const char *path) {
    plank_reader *r;
    plank_error e;
    plank_status st = plank_reader_open_path(&r, path, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "open %s: %s", path, e.message);
    if (st != PLANK_OK) return;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.threads = 1;
    o.batch_rows = 1000;
    struct ArrowArrayStream as;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e) == PLANK_OK);
    dump ref;
    dump_stream(&as, &ref, 0);
    CHECK_MSG(ref.rc == EIO, "the corrupt page is found (rc %d)", ref.rc);
    CHECK_MSG(ref.rows >= 7 * T_RG && ref.rows < 8 * T_RG, "rows before the error: %lld", (long long)ref.rows);
    for (int k = 0; k < g_nconfs; k++) {
        plank_arrow_options p = o;
        set_conf(&p, &k_confs[k]);
        CHECK(plank_reader_arrow_stream(r, NULL, 0, &p, &as, &e) == PLANK_OK);
        dump d;
        dump_stream(&as, &d, 0);
        if (k_confs[k].any_order) {
            CHECK_MSG(d.rc == EIO && strcmp(d.err, ref.err) == 0, "any_order: rc %d \"%s\"",
                      d.rc, d.err);
        } else {
            char what[256];
            snprintf(what, sizeof what, "corrupt file (%s)", k_confs[k].name);
            CHECK_MSG(dumps_equal(&ref, &d, false, what), "%s", what);
        }
        dump_free(&d);
    }
    /* The scan meets it too, in row group 7's filter step, and stops there. */
    plank_error_init(&e);
    dump_free(&ref);
    plank_reader_close(r);
    const char *where = "k >= 0";
    plank_scan_stats ss;
    int64_t cnt = -1;
    st = plank_reader_open_path(&r, path, NULL, &e);
    if (st != PLANK_OK) return;
    scan_dump(r, where, NULL, 1000, &ref, &ss, &cnt);
    CHECK_MSG(ref.rc == EIO, "scan finds the corrupt page (rc %d)", ref.rc);
    CHECK(ref.rows >= 7 * T_RG && ref.rows < 8 * T_RG);
    for (int k = 0; k < g_nconfs; k++) {
        if (k_confs[k].any_order) continue;
        dump d;
        int64_t c2 = -1;
        scan_dump(r, where, &k_confs[k], 1000, &d, &ss, &c2);
        char what[256];
        snprintf(what, sizeof what, "scan of the corrupt file (%s)", k_confs[k].name);
        CHECK_MSG(dumps_equal(&ref, &d, false, what), "%s", what);
        CHECK_MSG(c2 == cnt && cnt < -100, "%s: count status %lld vs %lld", what,
                  (long long)c2, (long long)cnt);
        dump_free(&d);
    }
    dump_free(&ref);
    plank_reader_close(r);
}

/* ---- Release mid-stream, options, the automatic rule --------------------------------- */

static void early_release(const char *path) {
    plank_reader *r;
    plank_error e;
    CHECK(plank_reader_open_path(&r, path, NULL, &e) == PLANK_OK);
    for (int k = 0; k < g_nconfs; k++) {
        for (int64_t take = 1; take <= 3; take++) {
            plank_arrow_options o;
            plank_arrow_options_init(&o);
            o.batch_rows = 1000;
            set_conf(&o, &k_confs[k]);
            struct ArrowArrayStream as;
            CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e) == PLANK_OK);
            dump d;
            dump_stream(&as, &d, take); /* released with tasks still running */
            CHECK_EQ_I64(d.n, take);
            dump_free(&d);
        }
        /* Released before any get_next. */
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        set_conf(&o, &k_confs[k]);
        struct ArrowArrayStream as;
        CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e) == PLANK_OK);
        as.release(&as);
    }
    plank_reader_close(r);
}

static void options(const char *path) {
    plank_reader *r;
    plank_error e;
    CHECK(plank_reader_open_path(&r, path, NULL, &e) == PLANK_OK);
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    CHECK_EQ_I64(o.threads, 0);
    CHECK_EQ_I64(o.batches_in_flight, 0);
    CHECK(!o.any_order && !o.executor);
    struct ArrowArrayStream as;
    o.threads = -1;
    CHECK_EQ_I64(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e), PLANK_ERR_INVALID_ARGUMENT);
    o.threads = 1025;
    CHECK_EQ_I64(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e), PLANK_ERR_INVALID_ARGUMENT);
    o.threads = 2;
    o.batches_in_flight = -3;
    CHECK_EQ_I64(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e), PLANK_ERR_INVALID_ARGUMENT);
    o.batches_in_flight = 0;
    plank_executor bad = g_ex_thread;
    bad.wait = NULL;
    o.executor = &bad;
    CHECK_EQ_I64(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e), PLANK_ERR_INVALID_ARGUMENT);
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.arrow = &o;
    plank_scan *s;
    CHECK_EQ_I64(plank_scan_open(&s, r, &so, &e), PLANK_ERR_INVALID_ARGUMENT);
    plank_reader_close(r);
}

/* A caller's allocator that notes allocations made off the thread that
 * opened the reader. */
typedef struct tally {
    pthread_t owner;
    atomic_long off_thread, calls;
} tally;

static void *ta_realloc(void *ctx, void *p, size_t old, size_t size) {
    (void)old;
    tally *t = ctx;
    atomic_fetch_add(&t->calls, 1);
    if (!pthread_equal(pthread_self(), t->owner)) atomic_fetch_add(&t->off_thread, 1);
    return realloc(p, size);
}
static void ta_free(void *ctx, void *p, size_t size) {
    (void)ctx;
    (void)size;
    free(p);
}

static void automatic(const char *path) {
    tally t;
    t.owner = pthread_self();
    atomic_init(&t.off_thread, 0);
    atomic_init(&t.calls, 0);
    plank_allocator a = {ta_realloc, ta_free, &t};
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.allocator = &a;
    plank_reader *r;
    plank_error e;
    CHECK(plank_reader_open_path(&r, path, &ro, &e) == PLANK_OK);
    for (int pass = 0; pass < 2; pass++) {
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        o.batch_rows = 2000;
        int tasks_before = atomic_load(&g_thread_tasks);
        if (pass == 1) {
            /* asked for: then the work (and the allocator) is shared. On a
             * thread-per-task executor, whose task count shows it: which
             * thread first allocates a buffer is up to the scheduler, and
             * plank's own pool may run every task inline on a loaded
             * machine (its wait takes a task no thread has started). */
            o.threads = 2;
            o.executor = &g_ex_thread;
        }
        struct ArrowArrayStream as;
        CHECK(plank_reader_arrow_stream(r, NULL, 0, &o, &as, &e) == PLANK_OK);
        dump d;
        dump_stream(&as, &d, 0);
        CHECK_EQ_I64(d.rows, T_ROWS);
        dump_free(&d);
        if (pass == 0) CHECK_MSG(atomic_load(&t.off_thread) == 0,
                                 "automatic threads with a caller's allocator stay on its thread "
                                 "(%ld calls elsewhere)", atomic_load(&t.off_thread));
        else CHECK_MSG(atomic_load(&g_thread_tasks) > tasks_before,
                       "threads = 2 submits decoding tasks");
    }
    plank_reader_close(r);
}

int main(void) {
    init_executors();
    init_confs();
    char tmpl[] = "/tmp/plank_parallel_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir) TEST_END();
    char table[4200], bad[4200];
    snprintf(table, sizeof table, "%s/table.parquet", dir);
    snprintf(bad, sizeof bad, "%s/bad.parquet", dir);
    double t0 = now_s();
    write_table(table);
    check_stream_file(table, 65536);
    check_stream_file(table, 999);
    scans(table);
    corrupt_copy(table, bad);
    errors(bad);
    early_release(table);
    options(table);
    automatic(table);
    fprintf(stderr, "table, scans, errors: %.1f s\n", now_s() - t0);
    t0 = now_s();
    corpus(dir);
    fprintf(stderr, "corpus: %.1f s\n", now_s() - t0);
    fprintf(stderr, "%lld files read, %lld of them rewritten with row groups, %lld parallel "
            "reads compared; %d thread-per-task tasks\n", (long long)g_files,
            (long long)g_rewritten, (long long)g_compared, atomic_load(&g_thread_tasks));
    CHECK(g_thread_tasks > 0);
    unlink(table);
    unlink(bad);
    rmdir(dir);
    TEST_END();
}
