/*
 * test_tpch.c: the TPC-H generator (src/tpch).
 *  - The division-free scaling of draws equals dbgen's double arithmetic at
 *    every boundary draw, and jumps equal stepping.
 *  - Chunks generated anywhere concatenate to the whole table.
 *  - Parquet written at SF 0.01 with each encoding preset, read back through
 *    the reader API and printed by this test's own formatter, equals the
 *    reference dbgen text (../shared/tpch-reference/sf0.01/TABLE.tbl.gz), and
 *    the column chunks carry the encodings the preset asks for.
 *  - Bad arguments are errors.
 * Without the reference directory the test is skipped, except under CI
 * (CI=true), where it fails: CI must not pass without its data.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tharness.h"
#include "tpch/pk_tpch.h"
#include "tpch/pk_tpch_rng.h"

static const char *reference_dir(void) {
    static char buf[4096];
    const char *e = getenv("PLANK_TPCH_REFERENCE");
    if (e && *e) return e;
    snprintf(buf, sizeof buf, "%s/../shared/tpch-reference", PLANK_SOURCE_DIR);
    return buf;
}

/* ---- arithmetic --------------------------------------------------------------- */

static void check_one(int64_t x, int64_t range) {
    int64_t a = pk_scale_int(x, 0, range), b = pk_scale_double(x, 0, range);
    CHECK_MSG(a == b, "x=%lld range=%lld: int %lld, double %lld", (long long)x,
              (long long)range, (long long)a, (long long)b);
}

/* PLANK_TPCH_THREADED (set for the ThreadSanitizer build, where each 300
 * MiB pool takes ~12 s): of the pool comparisons and the allocation-failure
 * writes, only those on several threads run. PLANK_TPCH_QUICK (both
 * sanitizer builds): the pools on 1 and 3 threads (not 4), the serial
 * fallback on 2 threads recording 1 sentence and on 3 recording 8 (not all
 * four pairs), fewer allocation failures. */
static bool threaded_only(void) { return getenv("PLANK_TPCH_THREADED") != NULL; }

static void test_scaling(void) {
    /* Every range up to 1200 at both sides of every result boundary, where
     * x * range / M crosses an integer; then sampled larger ranges. */
    int64_t fails_before = th_failures;
    for (int64_t range = 1; range <= 1200; range++) {
        for (int64_t k = 1; k < range; k++) {
            int64_t x = (k * PK_M + range - 1) / range; /* first x with result k */
            for (int64_t d = -2; d <= 2; d++)
                if (x + d >= 1 && x + d < PK_M) check_one(x + d, range);
        }
        check_one(1, range);
        check_one(PK_M - 1, range);
        if (th_failures - fails_before > 10) return;
    }
    uint64_t seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int64_t range = 1 + (int64_t)((seed >> 20) % PK_SCALE_INT_MAX_RANGE);
        int64_t k = 1 + (int64_t)((seed >> 5) % (uint64_t)range);
        if (k >= range) k = range - 1;
        if (k < 1) continue;
        int64_t x = (k * PK_M + range - 1) / range;
        for (int64_t d = -1; d <= 1; d++)
            if (x + d >= 1 && x + d < PK_M) check_one(x + d, range);
    }
    check_one(PK_M - 1, PK_SCALE_INT_MAX_RANGE);
    /* jumps: 16807^n by squaring equals n steps */
    int64_t x = 1;
    for (int n = 0; n < 5000; n++) {
        CHECK_EQ_I64(pk_mulmod(1, pk_pow16807(n)), x);
        x = pk_mulmod(x, 16807);
    }
    /* the one-fold step equals the general product, at the extremes too */
    for (int64_t v = 1; v < 200000; v++) CHECK_EQ_I64(pk_next(v), pk_mulmod(v, 16807));
    for (int64_t v = PK_M - 200000; v < PK_M; v++) CHECK_EQ_I64(pk_next(v), pk_mulmod(v, 16807));
    for (int64_t v = 1; v < PK_M; v += 9973) CHECK_EQ_I64(pk_next(v), (v * 16807) % PK_M);
    /* dbgen's NextRand on a known value: 16807 * 1 = 16807, then 282475249 */
    CHECK_EQ_I64(pk_mulmod(16807, 16807), 282475249);
}

/* ---- chunks -------------------------------------------------------------------- */

static char *table_text(plank_tpch *g, plank_tpch_table t, int64_t first, int64_t n,
                        int64_t chunk, size_t *len) {
    plank_tpch_batch *b = NULL;
    plank_error err;
    CHECK(plank_tpch_batch_new(&b, g, t, chunk, &err) == PLANK_OK);
    if (!b) return NULL;
    size_t cap = 1 << 16, used = 0;
    char *out = malloc(cap);
    for (int64_t u = first; u < first + n; u += chunk) {
        int64_t k = first + n - u < chunk ? first + n - u : chunk;
        CHECK(plank_tpch_generate(b, u, k, &err) == PLANK_OK);
        const char *txt;
        size_t l;
        CHECK(plank_tpch_batch_tbl(b, &txt, &l, &err) == PLANK_OK);
        while (used + l > cap) cap *= 2;
        out = realloc(out, cap);
        memcpy(out + used, txt, l);
        used += l;
    }
    plank_tpch_batch_free(b);
    *len = used;
    return out;
}

static void test_chunks(plank_tpch *g) {
    /* odd chunk sizes and a range in the middle of each table */
    for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) {
        int64_t units = plank_tpch_units(g, t);
        int64_t n = units < 700 ? units : 700, first = units > 2000 ? 1000 : 0;
        if (first + n > units) n = units - first;
        size_t l1 = 0, l2 = 0, l3 = 0; /* left unset when table_text fails */
        char *whole = table_text(g, t, first, n, n, &l1);
        char *c7 = table_text(g, t, first, n, 7, &l2);
        char *c1 = table_text(g, t, first, n, 1, &l3);
        CHECK_MSG(whole && c7 && l1 == l2 && memcmp(whole, c7, l1) == 0, "%s in chunks of 7",
                  plank_tpch_table_name(t));
        CHECK_MSG(whole && c1 && l1 == l3 && memcmp(whole, c1, l1) == 0, "%s in chunks of 1",
                  plank_tpch_table_name(t));
        free(whole);
        free(c7);
        free(c1);
    }
}

/* ---- Parquet read back ----------------------------------------------------------- */

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

static char *gunzip(const char *path, size_t *len) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    text t = {0};
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) put(&t, buf, n);
    if (pclose(f) != 0) {
        free(t.p);
        return NULL;
    }
    *len = t.len;
    return t.p;
}

/* Days since 1970-01-01 to YYYY-MM-DD, written independently of the
 * generator's date table. */
static void date_text(int32_t days, char out[32]) {
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y = 1970;
    for (;;) {
        int yl = (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 366 : 365;
        if (days < yl) break;
        days -= yl;
        y++;
    }
    int m = 0;
    for (;;) {
        int ml = mdays[m] + (m == 1 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
        if (days < ml) break;
        days -= ml;
        m++;
    }
    snprintf(out, 32, "%04d-%02d-%02d", y, m + 1, days + 1);
}

/* The file's rows as dbgen text: decimals as dollars.cents (l_quantity as
 * its whole count), dates as YYYY-MM-DD. */
static char *parquet_text(const char *path, size_t *len) {
    plank_reader *r;
    plank_error err;
    if (plank_reader_open_path(&r, path, NULL, &err) != PLANK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return NULL;
    }
    int32_t ncol = plank_reader_num_columns(r);
    text t = {0};
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info rg = {.struct_size = sizeof(plank_row_group_info)};
        plank_reader_row_group(r, g, &rg, &err);
        int64_t rows = rg.num_rows;
        /* whole row group per column, then rows printed across columns */
        plank_column_reader *cr[32];
        plank_batch b[32];
        for (int k = 0; k < 32; k++) b[k].struct_size = sizeof b[k];
        for (int32_t c = 0; c < ncol; c++) {
            CHECK(plank_column_reader_open(&cr[c], r, g, c, &err) == PLANK_OK);
        }
        int64_t done = 0;
        while (done < rows) {
            int64_t n = rows - done < 4096 ? rows - done : 4096;
            for (int32_t c = 0; c < ncol; c++) {
                CHECK(plank_column_reader_read(cr[c], n, &b[c], &err) == PLANK_OK);
                CHECK_EQ_I64(b[c].length, n);
            }
            for (int64_t i = 0; i < n; i++) {
                for (int32_t c = 0; c < ncol; c++) {
                    const plank_schema_node *nd = plank_reader_column_node(r, c);
                    char num[64];
                    int k = 0;
                    if (nd->physical_type == PLANK_BYTE_ARRAY) {
                        put(&t, (const char *)b[c].data + b[c].offsets[i],
                            (size_t)(b[c].offsets[i + 1] - b[c].offsets[i]));
                    } else if (nd->logical.kind == PLANK_LOGICAL_DATE) {
                        date_text(((const int32_t *)b[c].values)[i], num);
                        put(&t, num, 10);
                    } else if (nd->logical.kind == PLANK_LOGICAL_DECIMAL) {
                        int64_t v = ((const int64_t *)b[c].values)[i];
                        CHECK(nd->logical.scale == 2 && nd->logical.precision == 15);
                        if (strcmp(nd->name, "l_quantity") == 0) {
                            CHECK(v % 100 == 0);
                            k = snprintf(num, sizeof num, "%lld", (long long)(v / 100));
                        } else {
                            int64_t a = v < 0 ? -v : v;
                            k = snprintf(num, sizeof num, "%s%lld.%02lld", v < 0 ? "-" : "",
                                         (long long)(a / 100), (long long)(a % 100));
                        }
                        put(&t, num, (size_t)k);
                    } else if (nd->physical_type == PLANK_INT64) {
                        k = snprintf(num, sizeof num, "%lld",
                                     (long long)((const int64_t *)b[c].values)[i]);
                        put(&t, num, (size_t)k);
                    } else {
                        k = snprintf(num, sizeof num, "%d", ((const int32_t *)b[c].values)[i]);
                        put(&t, num, (size_t)k);
                    }
                    put(&t, c + 1 < ncol ? "|" : "\n", 1);
                }
            }
            done += n;
        }
        for (int32_t c = 0; c < ncol; c++) plank_column_reader_close(cr[c]);
    }
    plank_reader_close(r);
    if (!t.p) put(&t, "", 0);
    *len = t.len;
    return t.p;
}

/* Whether every column chunk of the file carries what the preset asks. */
static void check_encodings(const char *path, plank_tpch_encoding enc) {
    plank_reader *r;
    plank_error err;
    if (plank_reader_open_path(&r, path, NULL, &err) != PLANK_OK) return;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++)
        for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
            plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
            CHECK(plank_reader_column_chunk(r, g, c, &ci, &err) == PLANK_OK);
            const plank_schema_node *nd = plank_reader_column_node(r, c);
            bool dict = false, plain = false, delta = false, other = false;
            for (int32_t e = 0; e < ci.num_encodings; e++) {
                plank_encoding x = ci.encodings[e];
                if (x == PLANK_ENC_RLE_DICTIONARY || x == PLANK_ENC_PLAIN_DICTIONARY) dict = true;
                else if (x == PLANK_ENC_PLAIN) plain = true;
                else if (x == PLANK_ENC_DELTA_BINARY_PACKED ||
                         x == PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY || x == PLANK_ENC_DELTA_BYTE_ARRAY)
                    delta = true;
                else if (x != PLANK_ENC_RLE) other = true;
            }
            switch (enc) {
            case PLANK_TPCH_ENC_PLAIN:
                CHECK_MSG(plain && !dict && !delta && !other, "%s %s: not PLAIN only", path,
                          nd->name);
                break;
            case PLANK_TPCH_ENC_DICTIONARY:
                CHECK_MSG(dict && !delta && !other, "%s %s: no dictionary", path, nd->name);
                break;
            case PLANK_TPCH_ENC_DELTA:
                CHECK_MSG(delta && !dict && !plain && !other, "%s %s: not DELTA only", path,
                          nd->name);
                if (nd->physical_type == PLANK_BYTE_ARRAY) {
                    bool want_dba = strstr(nd->name, "comment") == NULL &&
                                    strstr(nd->name, "address") == NULL &&
                                    strcmp(nd->name, "p_name") != 0;
                    bool has_dba = false;
                    for (int32_t e = 0; e < ci.num_encodings; e++)
                        has_dba |= ci.encodings[e] == PLANK_ENC_DELTA_BYTE_ARRAY;
                    CHECK_MSG(has_dba == want_dba, "%s %s: DELTA_BYTE_ARRAY %d", path,
                              nd->name, has_dba);
                }
                break;
            default: break;
            }
        }
    plank_reader_close(r);
}

/* The first line where two texts differ, for the message. */
static void report_diff(const char *what, const char *a, size_t la, const char *b, size_t lb) {
    size_t i = 0, line = 1, start = 0;
    while (i < la && i < lb && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    const char *ea = memchr(a + start, '\n', la - start), *eb = memchr(b + start, '\n', lb - start);
    fprintf(stderr, "%s: first difference at line %zu\n  plank:     %.*s\n  reference: %.*s\n", what,
            line, (int)((ea ? ea : a + la) - (a + start)), a + start,
            (int)((eb ? eb : b + lb) - (b + start)), b + start);
}

static void test_parquet(plank_tpch *g, const char *ref) {
    char dir[] = "/tmp/plank-tpch-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    static const plank_tpch_encoding encs[] = {PLANK_TPCH_ENC_DEFAULT, PLANK_TPCH_ENC_PLAIN,
                                               PLANK_TPCH_ENC_DICTIONARY, PLANK_TPCH_ENC_DELTA};
    char *reftext[PLANK_TPCH_NUM_TABLES];
    size_t reflen[PLANK_TPCH_NUM_TABLES];
    for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/sf0.01/%s.tbl.gz", ref, plank_tpch_table_name(t));
        reftext[t] = gunzip(p, &reflen[t]);
        CHECK_MSG(reftext[t] != NULL, "cannot read %s", p);
    }
    for (size_t e = 0; e < sizeof encs / sizeof encs[0]; e++) {
        plank_tpch_options o;
        plank_tpch_options_init(&o);
        o.encoding = encs[e];
        o.threads = 2;
        plank_writer_options wo;
        plank_writer_options_init(&wo);
        wo.row_group_rows = 20000; /* several row groups in lineitem */
        o.writer = &wo;
        plank_error err;
        CHECK_MSG(plank_tpch_write(g, dir, &o, &err) == PLANK_OK, "%s", err.message);
        for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s.parquet", dir, plank_tpch_table_name(t));
            size_t len = 0;
            char *txt = parquet_text(p, &len);
            bool same = txt && reftext[t] && len == reflen[t] && memcmp(txt, reftext[t], len) == 0;
            CHECK_MSG(same, "%s (encoding preset %d) differs from the reference",
                      plank_tpch_table_name(t), (int)encs[e]);
            if (!same && txt && reftext[t]) report_diff(p, txt, len, reftext[t], reflen[t]);
            check_encodings(p, encs[e]);
            free(txt);
            unlink(p);
        }
    }
    for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) free(reftext[t]);
    rmdir(dir);
}

/* ---- errors ----------------------------------------------------------------------- */

static void test_errors(plank_tpch *g) {
    plank_tpch *x = NULL;
    plank_error err;
    CHECK(plank_tpch_open(&x, 0, 1, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT && !x);
    CHECK(plank_tpch_open(&x, -1, 1, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT && !x);
    CHECK(plank_tpch_open(&x, 1.5, 1, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT && !x);
    CHECK(strstr(err.message, "1.5") != NULL);
    CHECK(plank_tpch_open(&x, 30000, 1, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT && !x);
    CHECK(plank_tpch_table_from_name("lineitem") == PLANK_TPCH_LINEITEM);
    CHECK(plank_tpch_table_from_name("lineitems") == -1);
    plank_tpch_batch *b = NULL;
    CHECK(plank_tpch_batch_new(&b, g, PLANK_TPCH_ORDERS, 0, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_tpch_batch_new(&b, g, PLANK_TPCH_ORDERS, 10, &err) == PLANK_OK);
    CHECK(plank_tpch_generate(b, 0, 11, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_tpch_generate(b, plank_tpch_units(g, PLANK_TPCH_ORDERS) - 5, 10, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_tpch_generate(b, -1, 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_tpch_generate(b, plank_tpch_units(g, PLANK_TPCH_ORDERS) - 10, 10, &err) ==
          PLANK_OK);
    CHECK_EQ_I64(plank_tpch_batch_rows(b), 10);
    plank_tpch_batch_free(b);
    plank_tpch_options o;
    plank_tpch_options_init(&o);
    o.parts = 3;
    o.part = 4;
    CHECK(plank_tpch_write(g, "/tmp", &o, &err) == PLANK_ERR_INVALID_ARGUMENT);
    o.part = 1;
    o.tables = 1u << PLANK_TPCH_NATION;
    CHECK(plank_tpch_write(g, "/nonexistent/dir", &o, &err) != PLANK_OK);
    CHECK(strstr(err.message, "/nonexistent/dir") != NULL);
}

/* The whole content of file p (NULL if it cannot be read). */
static uint8_t *slurp(const char *p, size_t *len) {
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) break;
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* Entries of dir other than . and .. */
static int dir_count(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* After a failed write: every table file in dir is whole (the bytes of a
 * successful write, want), and is removed; false if one is not. */
static bool only_whole_files(const char *dir, uint8_t *const want[], const size_t want_len[]) {
    DIR *d = opendir(dir);
    if (!d) return false;
    bool ok = true;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        int t = -1;
        for (int k = 0; k < PLANK_TPCH_NUM_TABLES; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s.parquet", plank_tpch_table_name(k));
            if (strcmp(e->d_name, name) == 0) t = k;
        }
        size_t len = 0;
        uint8_t *got = t >= 0 ? slurp(p, &len) : NULL;
        if (!got || len != want_len[t] || memcmp(got, want[t], len) != 0) {
            fprintf(stderr, "left behind after a failure and not a whole table: %s\n", p);
            ok = false;
        }
        free(got);
        unlink(p);
    }
    closedir(d);
    return ok;
}

/* A write whose allocator fails at its k-th call, for k spread over every
 * call a whole write makes (the batches, made as generations first need
 * them, among them), on 1 and 2 threads: an out-of-memory error, every
 * block freed, and no partial file (the tables finished before the failure
 * stay, whole). */
static void test_alloc_failures(void) {
    th_alloc ta;
    plank_allocator a = th_alloc_init(&ta);
    plank_tpch *h = NULL;
    plank_error err;
    CHECK(plank_tpch_open(&h, 0.01, 1, &a, &err) == PLANK_OK);
    if (!h) return;
    char dir[] = "/tmp/plank-tpch-oom-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        plank_tpch_close(h);
        return;
    }
    uint8_t *want[PLANK_TPCH_NUM_TABLES] = {0};
    size_t want_len[PLANK_TPCH_NUM_TABLES] = {0};
    /* under ThreadSanitizer (PLANK_TPCH_THREADED) only the write on 2
     * threads: one thread has no race to find */
    for (int th = threaded_only() ? 2 : 1; th <= 2; th++) {
        plank_tpch_options o;
        plank_tpch_options_init(&o);
        o.threads = th;
        int64_t live = ta.live_blocks, before = ta.calls;
        CHECK_MSG(plank_tpch_write(h, dir, &o, &err) == PLANK_OK, "%s", err.message);
        int64_t total = ta.calls - before;
        CHECK(total > 20);
        CHECK_EQ_I64(ta.live_blocks, live);
        for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s.parquet", dir, plank_tpch_table_name(t));
            free(want[t]);
            want[t] = slurp(p, &want_len[t]);
            CHECK(want[t] != NULL && unlink(p) == 0);
        }
        /* the first 40 calls one by one, then 64 more across, then the last
         * ones; under the sanitizers (PLANK_TPCH_QUICK) 8, 16 and 4 of them,
         * as the optimised run has already checked every block is freed */
        bool quick = getenv("PLANK_TPCH_QUICK") != NULL;
        int64_t head = quick ? 8 : 40, tail = quick ? 4 : 10;
        int64_t step = total / (quick ? 16 : 64) + 1;
        /* under ThreadSanitizer a write takes seconds: half the points */
        if (threaded_only()) head = 4, tail = 2, step = total / 8 + 1;
        for (int64_t k = 1; k <= total; k += k < head || k > total - tail ? 1 : step) {
            ta.fail_at = ta.calls + k;
            ta.failed = false;
            plank_status st = plank_tpch_write(h, dir, &o, &err);
            ta.fail_at = 0;
            /* a failed call the writer works around (a buffer it can do
             * without) ends in a whole write; any other in out-of-memory */
            CHECK_MSG(st == PLANK_OK || (ta.failed && st == PLANK_ERR_OUT_OF_MEMORY),
                      "%d threads, call %lld of %lld: %d %s", th, (long long)k,
                      (long long)total, (int)st, err.message);
            if (st == PLANK_OK)
                CHECK_MSG(dir_count(dir) == PLANK_TPCH_NUM_TABLES, "%d threads, call %lld",
                          th, (long long)k);
            CHECK_MSG(only_whole_files(dir, want, want_len), "%d threads, call %lld", th,
                      (long long)k);
            CHECK_MSG(ta.live_blocks == live, "%d threads, call %lld: %lld blocks leaked", th,
                      (long long)k, (long long)(ta.live_blocks - live));
        }
    }
    for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) free(want[t]);
    rmdir(dir);
    plank_tpch_close(h);
    CHECK_EQ_I64(ta.live_blocks, 0);
}

/* Whether two pools hold the same text, each read where it lies
 * (pk_tpch_pool_at: segments left in place), 256 bytes at a time. */
static bool same_pool(const plank_tpch *a, const plank_tpch *b) {
    for (int64_t off = 0; off < (int64_t)PK_TPCH_POOL_SIZE; off += 256) {
        size_t n = PK_TPCH_POOL_SIZE - (size_t)off < 256 ? PK_TPCH_POOL_SIZE - (size_t)off : 256;
        if (memcmp(pk_tpch_pool_at(a, off), pk_tpch_pool_at(b, off), n) != 0) return false;
    }
    return true;
}

int main(void) {
    test_scaling();
    const char *ref = reference_dir();
    struct stat st;
    if (stat(ref, &st) != 0) {
        const char *ci = getenv("CI");
        if (ci && strcmp(ci, "true") == 0) {
            fprintf(stderr, "tpch reference data not found at %s (CI needs it)\n", ref);
            return 1;
        }
        TEST_SKIP("tpch reference data not found at %s (set PLANK_TPCH_REFERENCE)", ref);
    }
    plank_tpch *g;
    plank_error err;
    CHECK(plank_tpch_open(&g, 0.01, 2, NULL, &err) == PLANK_OK);
    CHECK_EQ_I64(plank_tpch_units(g, PLANK_TPCH_PART), 2000);
    CHECK_EQ_I64(plank_tpch_units(g, PLANK_TPCH_ORDERS), 15000);
    CHECK_EQ_I64(plank_tpch_units(g, PLANK_TPCH_NATION), 25);
    /* the pool built on 1, 3 and 4 threads (segments read in place, where
     * their parses meet) is the same 300 MiB */
    bool quick = getenv("PLANK_TPCH_QUICK") != NULL;
    CHECK_MSG(g->pool_segs > 1, "the pool on 2 threads was joined (%d segment)", g->pool_segs);
    for (int th = threaded_only() ? 3 : 1; th <= (quick ? 3 : 4); th += th == 1 ? 2 : 1) {
        plank_tpch *h = NULL;
        CHECK(plank_tpch_open(&h, 0.01, th, NULL, &err) == PLANK_OK);
        CHECK_MSG(h && same_pool(h, g),
                  "the pool built on %d threads differs from the one built on 2", th);
        if (h) CHECK_EQ_I64(h->pool_segs > 1, th > 1);
        plank_tpch_close(h);
    }
    /* where segments do not meet (one sentence start recorded per end:
     * almost never shared), the serial fallback makes the same pool */
    {
        plank_tpch *h = NULL;
        CHECK(plank_tpch_open(&h, 0.01, 1, NULL, &err) == PLANK_OK);
        for (int th = 2; h && th <= 3; th++) {
            for (int rec = 1; rec <= 8; rec *= 8) {
                if (quick && rec != (th == 2 ? 1 : 8)) continue;
                memset(h->pool, 0, PK_TPCH_POOL_SIZE);
                CHECK(pk_tpch_rebuild_pool(h, th, rec));
                CHECK_MSG(same_pool(h, g),
                          "pool on %d threads recording %d sentences differs", th, rec);
                if (rec == 1) CHECK_EQ_I64(h->pool_segs, 1); /* joined, then parsed on */
            }
        }
        plank_tpch_close(h);
    }
    test_chunks(g);
    test_errors(g);
    test_alloc_failures();
    test_parquet(g, ref);
    plank_tpch_close(g);
    TEST_END();
}
