/* test_arrow_write.c: writing Arrow through the writer and reading it back
 * through the export. Hand-built nested record batches (sliced, with null
 * and empty lists, maps, null structs) are written with
 * plank_writer_write_arrow and must read back as the expected JSON rows;
 * then every parquet-testing file the reader opens and exports is
 * round-tripped twice, through plank_writer_write_arrow batch by batch and
 * through plank_write_arrow_stream over the export's stream with dictionary
 * arrays and small row groups and pages, and both copies must export the
 * same rows as the original (compared as JSON with tests/arrow_json.h).
 * Files whose export plank does not support are skipped and counted. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#include "arrow_build.h"
#include "arrow_json.h"
#include "tharness.h"

static char g_tmp1[256], g_tmp2[256];

/* ---- Reading a file back as JSON rows ------------------------------------------------ */

/* Appends every row of the stream's batches, one per line; returns the row
 * count, or -1 when the stream fails (message in *why). */
static int64_t stream_json(struct ArrowArrayStream *s, aj_buf *out, char *why, size_t wn) {
    struct ArrowSchema sc;
    int rc = s->get_schema(s, &sc);
    if (rc != 0) {
        snprintf(why, wn, "get_schema %d: %s", rc, s->get_last_error(s));
        return -1;
    }
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray a;
        rc = s->get_next(s, &a);
        if (rc != 0) {
            snprintf(why, wn, "get_next %d: %s", rc, s->get_last_error(s));
            rows = -1;
            break;
        }
        if (!a.release) break;
        for (int64_t i = 0; i < a.length; i++, rows++) {
            aj_row(out, &sc, &a, i);
            aj_str(out, "\n");
        }
        a.release(&a);
    }
    sc.release(&sc);
    return rows;
}

/* The file's rows as JSON (default export options); -1 on failure. */
static int64_t file_json(const char *path, aj_buf *out, char *why, size_t wn) {
    plank_reader *r = NULL;
    plank_error e;
    if (plank_reader_open_path(&r, path, NULL, &e) != PLANK_OK) {
        snprintf(why, wn, "open: %s", e.message);
        return -1;
    }
    struct ArrowArrayStream s;
    int64_t rows = -1;
    if (plank_reader_arrow_stream(r, NULL, 0, NULL, &s, &e) == PLANK_OK) {
        rows = stream_json(&s, out, why, wn);
        s.release(&s);
    } else {
        snprintf(why, wn, "stream: %s", e.message);
    }
    plank_reader_close(r);
    return rows;
}

/* Line-by-line comparison; reports the first difference. */
static int same_json(const char *file, const char *what, const aj_buf *want, const aj_buf *got) {
    const char *w = want->p ? want->p : "", *g = got->p ? got->p : "";
    if (!strcmp(w, g)) return 1;
    int line = 0;
    while (*w && *g) {
        const char *we = strchr(w, '\n'), *ge = strchr(g, '\n');
        size_t wl = we ? (size_t)(we - w) : strlen(w), gl = ge ? (size_t)(ge - g) : strlen(g);
        if (wl != gl || memcmp(w, g, wl) != 0) {
            fprintf(stderr, "%s (%s) row %d:\n  want %.*s\n  got  %.*s\n", file, what, line,
                    (int)(wl > 600 ? 600 : wl), w, (int)(gl > 600 ? 600 : gl), g);
            return 0;
        }
        w += wl + (we != NULL);
        g += gl + (ge != NULL);
        line++;
    }
    fprintf(stderr, "%s (%s): row counts differ after row %d\n", file, what, line);
    return 0;
}

/* ---- Hand-built batches ------------------------------------------------------------------ */


/* A batch of list<int64>, struct<a: string, b: double>, map<string, int32> and
 * list<list<int32>>, sliced at every level (rows 1..4 of the arrays). */
/* A writer of g_tmp1 with the Parquet schema of sch; NULL (a check failed) on error. */
static plank_writer *open_for(struct ArrowSchema *sch) {
    plank_schema_field *f = NULL;
    int32_t nf = 0;
    plank_error e;
    CHECK(plank_schema_from_arrow(sch, NULL, &f, &nf, &e) == PLANK_OK);
    plank_writer *w = NULL;
    plank_status rc = plank_writer_open_path(&w, g_tmp1, f, nf, NULL, &e);
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    plank_schema_fields_free(NULL, f, nf);
    return rc == PLANK_OK ? w : NULL;
}

static void test_nested_batch(void) {
    pool_reset();
    struct ArrowSchema *sch = S("+s", "", 0,
        S("+l", "li", NUL, S("l", "item", NUL, NULL, NULL, NULL), NULL, NULL),
        S("+s", "st", NUL, S("u", "a", NUL, NULL, NULL, NULL),
          S("g", "b", 0, NULL, NULL, NULL), NULL),
        S("+m", "m", NUL,
          S("+s", "entries", 0, S("u", "key", 0, NULL, NULL, NULL),
            S("i", "value", NUL, NULL, NULL, NULL), NULL),
          NULL, NULL));
    /* list<int64> at offset 1: slot 0 is not part of the batch.
     * rows: [1, 2], null, [], [null, 3] */
    static const int64_t lv[] = {9, 9, 1, 2, 0, 3};
    uint8_t lev = 0x2c;  /* elements 2..5 valid except 4: bits 2,3,5 */
    static const int32_t lo[] = {0, 2, 4, 4, 4, 6};
    uint8_t lval = 0x1a; /* slots 1,3,4 valid: [1,2], null, [], [null,3] */
    struct ArrowArray *li = A(4, 1, 1, 2, &lval, lo, NULL,
                              A(6, 0, 1, 2, &lev, lv, NULL, NULL, NULL, NULL), NULL, NULL);
    /* struct at offset 1: rows {a:"x", b:1.5}, null, {a:null, b:2.5}, {a:"yz", b:0} */
    static const int32_t so[] = {0, 0, 1, 1, 1, 3};
    static const char sd[] = "xyz";
    static const double dv[] = {5, 1.5, 7, 2.5, 0};
    uint8_t sval = 0x1a, aval = 0x12;
    struct ArrowArray *st = A(4, 1, 1, 1, &sval, NULL, NULL,
                              A(5, 0, 2, 3, &aval, so, sd, NULL, NULL, NULL),
                              A(5, 0, 0, 2, NULL, dv, NULL, NULL, NULL, NULL), NULL);
    /* map at offset 2 with entries at offset 1:
     * rows {"a": 1, "b": null}, null, {}, {"c": 4} */
    static const int32_t ko[] = {0, 1, 2, 3, 4};
    static const char kd[] = "zabc";
    static const int32_t vv[] = {0, 1, 0, 4};
    uint8_t vval = 0x0b;
    static const int32_t mo[] = {0, 0, 0, 2, 2, 2, 3};
    uint8_t mval = 0x34;
    struct ArrowArray *ent = A(3, 1, 0, 1, NULL, NULL, NULL,
                               A(4, 0, 0, 3, NULL, ko, kd, NULL, NULL, NULL),
                               A(4, 0, 1, 2, &vval, vv, NULL, NULL, NULL, NULL), NULL);
    struct ArrowArray *m = A(4, 2, 1, 2, &mval, mo, NULL, ent, NULL, NULL);
    struct ArrowArray *rb = A(4, 0, 0, 1, NULL, NULL, NULL, li, st, m);

    plank_error e;
    plank_writer *w = open_for(sch);
    if (!w) return;
    plank_status rc = plank_writer_write_arrow(w, sch, rb, &e);
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    rc = plank_writer_write_arrow(w, sch, rb, &e); /* twice: 8 rows */
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    /* A schema that is not the writer's is refused. */
    struct ArrowSchema *osch = S("+s", "", 0, S("i", "x", 0, NULL, NULL, NULL),
                                 NULL, NULL);
    CHECK(plank_writer_write_arrow(w, osch, rb, &e) == PLANK_ERR_INVALID_ARGUMENT);
    rc = plank_writer_close(w, &e);
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    aj_buf got = {0};
    char why[600];
    int64_t rows = file_json(g_tmp1, &got, why, sizeof why);
    CHECK_MSG(rows == 8, "%lld rows: %s", (long long)rows, why);
    static const char *want4 =
        "[[\"1\",\"2\"],{\"a\":\"x\",\"b\":1.5},[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":null}]]\n"
        "[null,null,null]\n"
        "[[],{\"a\":null,\"b\":2.5},[]]\n"
        "[[null,\"3\"],{\"a\":\"yz\",\"b\":0},[{\"key\":\"c\",\"value\":4}]]\n";
    aj_buf want = {0};
    aj_str(&want, want4);
    aj_str(&want, want4);
    CHECK(same_json("nested batch", "write_arrow", &want, &got));
    free(want.p);
    free(got.p);
    unlink(g_tmp1);
}

/* ---- Flat columns: the Arrow buffers taken as they are --------------------------------- */

/* Writes rb twice through plank_writer_write_arrow to g_tmp1 and compares the 8 rows
 * read back with want4 (the 4 rows of rb) twice. */
static void write_twice_and_check(const char *what, struct ArrowSchema *sch,
                                  struct ArrowArray *rb, const char *want4) {
    plank_error e;
    plank_writer *w = open_for(sch);
    if (!w) return;
    plank_status rc = PLANK_OK;
    for (int t = 0; t < 2; t++) {
        rc = plank_writer_write_arrow(w, sch, rb, &e);
        CHECK_MSG(rc == PLANK_OK, "%s: %s", what, e.message);
    }
    rc = plank_writer_close(w, &e);
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    aj_buf got = {0}, want = {0};
    char why[600];
    int64_t rows = file_json(g_tmp1, &got, why, sizeof why);
    CHECK_MSG(rows == 8, "%s: %lld rows: %s", what, (long long)rows, why);
    aj_str(&want, want4);
    aj_str(&want, want4);
    CHECK(same_json(what, "write_arrow", &want, &got));
    free(want.p);
    free(got.p);
    unlink(g_tmp1);
}

/* Leaves directly under the record go to the writer as the Arrow buffers themselves
 * (values and string bytes not copied). A batch at offset 1 whose columns have offsets
 * of their own: utf8 and large_utf8 whose null slots still span bytes (Arrow allows
 * it), and a nullable int64. Then a required double and a nullable int32 beside a
 * struct (shredded as before), and a required column with a null bit, refused. */
static void test_flat_batch(void) {
    pool_reset();
    struct ArrowSchema *sch = S("+s", "", 0, S("u", "s", NUL, NULL, NULL, NULL),
                                S("U", "ls", NUL, NULL, NULL, NULL),
                                S("l", "i", NUL, NULL, NULL, NULL));
    /* record r is element r + 1 + (the column's offset) of each column */
    /* s, offset 2: elements 3..6 = "d", null (spanning "efg"), "", "hi" */
    static const int32_t so[] = {0, 1, 2, 3, 4, 7, 7, 9};
    static const char sd[] = "abcdefghi";
    uint8_t sval = 0x68;
    /* ls, offset 0: elements 1..4 = "P", null (spanning "QR"), "", "STU" */
    static const int64_t lo[] = {0, 5, 6, 8, 8, 11};
    static const char ld[] = "-----PQRSTU";
    uint8_t lval = 0x1a;
    /* i, offset 1: elements 2..5 = 7, -8, null, 10 */
    static const int64_t iv[] = {0, 0, 7, -8, 9, 10};
    uint8_t ival = 0x2c;
    struct ArrowArray *rb = A(4, 1, 0, 1, NULL, NULL, NULL,
                              A(5, 2, 1, 3, &sval, so, sd, NULL, NULL, NULL),
                              A(5, 0, 1, 3, &lval, lo, ld, NULL, NULL, NULL),
                              A(5, 1, 1, 2, &ival, iv, NULL, NULL, NULL, NULL));
    write_twice_and_check("flat batch", sch, rb,
                          "[\"d\",\"P\",\"7\"]\n"
                          "[null,null,\"-8\"]\n"
                          "[\"\",\"\",null]\n"
                          "[\"hi\",\"STU\",\"10\"]\n");

    pool_reset();
    struct ArrowSchema *sch2 = S("+s", "", 0, S("g", "d", 0, NULL, NULL, NULL),
                                 S("i", "n", NUL, NULL, NULL, NULL),
                                 S("+s", "st", NUL, S("u", "a", NUL, NULL, NULL, NULL), NULL, NULL));
    static const double dv[] = {9, 1.5, -2, 0.25, 3};
    static const int32_t nv[] = {4, 5, 6, 7};
    uint8_t nval = 0x0b; /* elements 0, 1, 3 valid */
    static const int32_t ao[] = {0, 1, 3, 3, 4};
    static const char ad[] = "xyzw";
    struct ArrowArray *rb2 = A(4, 0, 0, 1, NULL, NULL, NULL,
                               A(4, 1, 0, 2, NULL, dv, NULL, NULL, NULL, NULL),
                               A(4, 0, 1, 2, &nval, nv, NULL, NULL, NULL, NULL),
                               A(4, 0, 0, 1, NULL, NULL, NULL,
                                 A(4, 0, 0, 3, NULL, ao, ad, NULL, NULL, NULL), NULL, NULL));
    write_twice_and_check("flat beside a struct", sch2, rb2,
                          "[1.5,4,{\"a\":\"x\"}]\n"
                          "[-2,5,{\"a\":\"yz\"}]\n"
                          "[0.25,null,{\"a\":\"\"}]\n"
                          "[3,7,{\"a\":\"w\"}]\n");

    /* the required double with a null: refused, nothing written for it */
    uint8_t dval = 0x0d;
    struct ArrowArray *bad = A(4, 0, 0, 1, NULL, NULL, NULL,
                               A(4, 1, 1, 2, &dval, dv, NULL, NULL, NULL, NULL),
                               A(4, 0, 1, 2, &nval, nv, NULL, NULL, NULL, NULL),
                               A(4, 0, 0, 1, NULL, NULL, NULL,
                                 A(4, 0, 0, 3, NULL, ao, ad, NULL, NULL, NULL), NULL, NULL));
    plank_error e;
    plank_writer *w = open_for(sch2);
    if (!w) return;
    CHECK(plank_writer_write_arrow(w, sch2, bad, &e) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(e.message, "arrow array d:") != NULL, "%s", e.message);
    plank_writer_abort(w);

    /* decimals narrowed: decimal(15,2) to INT64 (a null slot holding a value that would
     * not fit), decimal(5,2) to INT32; printed back as decimal128 hex bytes */
    pool_reset();
    struct ArrowSchema *sch3 = S("+s", "", 0, S("d:15,2", "p", NUL, NULL, NULL, NULL),
                                 S("d:5,2", "q", 0, NULL, NULL, NULL), NULL);
    static const int64_t pv[] = {77, 77, 12345, 0, -1, -1, 5, 1, 0, 0};
    uint8_t pval = 0x16; /* elements 1, 2, 4 valid; 3 (not fitting) null */
    static const int64_t qv[] = {100, 0, -200, -1, 99999, 0, 7, 0};
    struct ArrowArray *rb3 = A(4, 0, 0, 1, NULL, NULL, NULL,
                               A(4, 1, 1, 2, &pval, pv, NULL, NULL, NULL, NULL),
                               A(4, 0, 0, 2, NULL, qv, NULL, NULL, NULL, NULL), NULL);
    write_twice_and_check("flat decimals", sch3, rb3,
                          "[\"39300000000000000000000000000000\",\"64000000000000000000000000000000\"]\n"
                          "[\"ffffffffffffffffffffffffffffffff\",\"38ffffffffffffffffffffffffffffff\"]\n"
                          "[null,\"9f860100000000000000000000000000\"]\n"
                          "[\"00000000000000000000000000000000\",\"07000000000000000000000000000000\"]\n");
    /* a valid value past 8 bytes, and one past 4: refused */
    static const int64_t pbig[] = {0, 0, 1, 1, 0, 0, 0, 0, 0, 0};
    static const int64_t qbig[] = {0, 0, (int64_t)1 << 40, 0, 0, 0, 0, 0};
    static const int64_t *const bigs[2][2] = {{pbig, qv}, {pv, qbig}};
    for (int k = 0; k < 2; k++) {
        struct ArrowArray *big = A(4, 0, 0, 1, NULL, NULL, NULL,
                                   A(4, 1, 1, 2, &pval, bigs[k][0], NULL, NULL, NULL, NULL),
                                   A(4, 0, 0, 2, NULL, bigs[k][1], NULL, NULL, NULL, NULL), NULL);
        w = open_for(sch3);
        if (!w) return;
        CHECK(plank_writer_write_arrow(w, sch3, big, &e) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strstr(e.message, k ? "arrow array q:" : "arrow array p:") &&
                      strstr(e.message, "does not fit"), "%s", e.message);
        plank_writer_abort(w);
    }
}

/* ---- A stream that fails ------------------------------------------------------------------- */

typedef struct fail_stream {
    int batches;   /* get_next calls that return a batch */
    bool fail;     /* then fail (EIO) instead of ending */
    int released;
} fail_stream;

static struct ArrowSchema *g_fs_schema;
static int fs_schema_released;
static void fs_release_schema(struct ArrowSchema *s) {
    fs_schema_released++;
    s->release = NULL;
}
static int fs_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
    (void)s;
    *out = *g_fs_schema;
    out->release = fs_release_schema;
    return 0;
}
static const int32_t k_fs_vals[] = {1, 2, 3};
static const void *k_fs_bufs[2] = {NULL, k_fs_vals};
static int fs_arrays_released;
static void fs_release_array(struct ArrowArray *a) {
    fs_arrays_released++;
    a->release = NULL;
}
static struct ArrowArray g_fs_child;
static struct ArrowArray *g_fs_kids[1] = {&g_fs_child};
static int fs_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
    fail_stream *fs = s->private_data;
    memset(out, 0, sizeof *out);
    if (fs->batches-- <= 0) return fs->fail ? EIO : 0;
    memset(&g_fs_child, 0, sizeof g_fs_child);
    g_fs_child.length = 3;
    g_fs_child.n_buffers = 2;
    g_fs_child.buffers = k_fs_bufs;
    out->length = 3;
    out->n_buffers = 1;
    out->buffers = k_fs_bufs;
    out->n_children = 1;
    out->children = g_fs_kids;
    out->release = fs_release_array;
    return 0;
}
static const char *fs_last_error(struct ArrowArrayStream *s) {
    (void)s;
    return "the source went away";
}
static void fs_release(struct ArrowArrayStream *s) {
    ((fail_stream *)s->private_data)->released++;
    s->release = NULL;
}

static void test_failing_stream(void) {
    pool_reset();
    g_fs_schema = S("+s", "", 0, S("i", "x", 0, NULL, NULL, NULL), NULL, NULL);
    fail_stream fs = {2, true, 0};
    struct ArrowArrayStream s = {fs_get_schema, fs_get_next, fs_last_error, fs_release, &fs};
    unlink(g_tmp2);
    plank_error e;
    plank_status rc = plank_write_arrow_stream(g_tmp2, &s, NULL, &e);
    CHECK(rc == PLANK_ERR_IO);
    CHECK_MSG(strstr(e.message, "the source went away") != NULL, "%s", e.message);
    CHECK(access(g_tmp2, F_OK) != 0); /* no file left */
    CHECK(fs.released == 1 && fs_schema_released == 1 && fs_arrays_released == 2);
    /* The same stream ending normally writes the file. */
    fail_stream ok = {2, false, 0};
    struct ArrowArrayStream s2 = {fs_get_schema, fs_get_next, fs_last_error, fs_release, &ok};
    rc = plank_write_arrow_stream(g_tmp2, &s2, NULL, &e);
    CHECK_MSG(rc == PLANK_OK, "%s", e.message);
    CHECK(ok.released == 1 && fs_schema_released == 2 && fs_arrays_released == 4);
    aj_buf got = {0};
    char why[600];
    CHECK_MSG(file_json(g_tmp2, &got, why, sizeof why) == 6, "%s", why);
    CHECK(got.p && !strcmp(got.p, "[1]\n[2]\n[3]\n[1]\n[2]\n[3]\n"));
    free(got.p);
    unlink(g_tmp2);
}

/* ---- The corpus ------------------------------------------------------------------------------ */

static int g_files, g_roundtrip, g_skipped_open, g_skipped_large, g_skipped_export, g_failed;

/* Writes the file's export batch by batch with plank_writer_write_arrow. */
static plank_status write_batches(const char *src, const char *dst, aj_buf *orig, char *why,
                                  size_t wn, int *unsupported) {
    plank_reader *r = NULL;
    plank_error e;
    *unsupported = 0;
    if (plank_reader_open_path(&r, src, NULL, &e) != PLANK_OK) return PLANK_ERR_IO;
    struct ArrowArrayStream s;
    if (plank_reader_arrow_stream(r, NULL, 0, NULL, &s, &e) != PLANK_OK) {
        snprintf(why, wn, "%s", e.message);
        plank_reader_close(r);
        *unsupported = 1;
        return PLANK_ERR_UNSUPPORTED;
    }
    struct ArrowSchema sc;
    plank_status st = PLANK_OK;
    if (s.get_schema(&s, &sc) != 0) {
        snprintf(why, wn, "%s", s.get_last_error(&s));
        s.release(&s);
        plank_reader_close(r);
        *unsupported = 1;
        return PLANK_ERR_UNSUPPORTED;
    }
    plank_schema_field *f = NULL;
    int32_t nf = 0;
    plank_writer *w = NULL;
    st = plank_schema_from_arrow(&sc, NULL, &f, &nf, &e);
    if (st == PLANK_OK) st = plank_writer_open_path(&w, dst, f, nf, NULL, &e);
    while (st == PLANK_OK) {
        struct ArrowArray a;
        int rc = s.get_next(&s, &a);
        if (rc != 0) {
            snprintf(e.message, sizeof e.message, "%s", s.get_last_error(&s));
            *unsupported = 1; /* the export failed, not the import */
            st = PLANK_ERR_UNSUPPORTED;
            break;
        }
        if (!a.release) break;
        for (int64_t i = 0; i < a.length; i++) {
            aj_row(orig, &sc, &a, i);
            aj_str(orig, "\n");
        }
        st = plank_writer_write_arrow(w, &sc, &a, &e);
        a.release(&a);
    }
    if (w) {
        if (st == PLANK_OK) st = plank_writer_close(w, &e);
        else plank_writer_abort(w);
    }
    if (st != PLANK_OK) snprintf(why, wn, "%s", e.message);
    plank_schema_fields_free(NULL, f, nf);
    sc.release(&sc);
    s.release(&s);
    plank_reader_close(r);
    return st;
}

/* Writes the file's export (dictionary arrays) with plank_write_arrow_stream. */
static plank_status write_stream(const char *src, const char *dst, char *why, size_t wn) {
    plank_reader *r = NULL;
    plank_error e;
    if (plank_reader_open_path(&r, src, NULL, &e) != PLANK_OK) return PLANK_ERR_IO;
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.dictionary_arrays = true;
    ao.batch_rows = 1000;
    struct ArrowArrayStream s;
    plank_status st = plank_reader_arrow_stream(r, NULL, 0, &ao, &s, &e);
    if (st == PLANK_OK) {
        plank_writer_options wo;
        plank_writer_options_init(&wo);
        wo.row_group_rows = 777;
        wo.page_rows = 100;
        wo.page_version = 2;
        st = plank_write_arrow_stream(dst, &s, &wo, &e);
        CHECK(s.release == NULL);
    }
    if (st != PLANK_OK) snprintf(why, wn, "%s", e.message);
    plank_reader_close(r);
    return st;
}

/* The copy at `path`, written with status st, exports the rows of `orig`. */
static int copy_matches(const char *name, const char *how, plank_status st, const char *path,
                        const aj_buf *orig, aj_buf *back, char *why, size_t wn) {
    CHECK_MSG(st == PLANK_OK, "%s: %s: %s", name, how, why);
    if (st != PLANK_OK) return 0;
    int64_t rows = file_json(path, back, why, wn);
    CHECK_MSG(rows >= 0, "%s: reading the %s copy: %s", name, how, why);
    return rows >= 0 && same_json(name, how, orig, back);
}

static void roundtrip_file(const char *dir, const char *name) {
    char src[1024], why[600] = "";
    snprintf(src, sizeof src, "%s/data/%s", dir, name);
    if (getenv("PLANK_TEST_VERBOSE")) fprintf(stderr, "%s\n", name);
    plank_reader *r = NULL;
    if (plank_reader_open_path(&r, src, NULL, NULL) != PLANK_OK) {
        g_skipped_open++;
        return;
    }
    /* Files of more than 256 MiB uncompressed (large_string_map.brotli.parquet:
     * 2 GiB of strings) need several times that in memory here: original,
     * JSON, shredded copy, read-back; PLANK_TEST_LARGE=1 includes them. */
    int64_t bytes = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info rg = {.struct_size = sizeof(plank_row_group_info)};
        if (plank_reader_row_group(r, g, &rg, NULL) == PLANK_OK) bytes += rg.total_byte_size;
    }
    plank_reader_close(r);
    const char *large = getenv("PLANK_TEST_LARGE");
    if (bytes > ((int64_t)256 << 20) && !(large && *large == '1')) {
        fprintf(stderr, "skip %s: %lld bytes uncompressed (set PLANK_TEST_LARGE=1)\n", name,
                (long long)bytes);
        g_skipped_large++;
        return;
    }
    g_files++;
    aj_buf orig = {0}, back = {0}, back2 = {0};
    int unsupported = 0;
    plank_status st = write_batches(src, g_tmp1, &orig, why, sizeof why, &unsupported);
    if (unsupported) {
        fprintf(stderr, "skip %s: export unsupported: %s\n", name, why);
        g_skipped_export++;
        free(orig.p);
        unlink(g_tmp1);
        return;
    }
    int ok = copy_matches(name, "write_arrow", st, g_tmp1, &orig, &back, why, sizeof why);
    st = write_stream(src, g_tmp2, why, sizeof why);
    ok &= copy_matches(name, "write_arrow_stream", st, g_tmp2, &orig, &back2, why, sizeof why);
    CHECK_MSG(ok, "%s does not round-trip", name);
    if (ok) g_roundtrip++;
    else g_failed++;
    free(orig.p);
    free(back.p);
    free(back2.p);
    unlink(g_tmp1);
    unlink(g_tmp2);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_corpus(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data", dir);
    DIR *d = opendir(path);
    CHECK(d != NULL);
    if (!d) return;
    char *names[1024];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 1024) {
        size_t l = strlen(de->d_name);
        if (l > 8 && !strcmp(de->d_name + l - 8, ".parquet")) names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    for (int i = 0; i < n; i++) {
        roundtrip_file(dir, names[i]);
        free(names[i]);
    }
    fprintf(stderr,
            "corpus: %d .parquet files, %d not opened by the reader, %d too large (skipped), "
            "%d tried: %d round-trip, %d skipped (export unsupported), %d failed\n",
            n, g_skipped_open, g_skipped_large, g_files, g_roundtrip, g_skipped_export, g_failed);
    CHECK(g_roundtrip > 0);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(g_tmp1, sizeof g_tmp1, "%s/plank_arrow_write_%d_a.parquet", tmp, (int)getpid());
    snprintf(g_tmp2, sizeof g_tmp2, "%s/plank_arrow_write_%d_b.parquet", tmp, (int)getpid());
    test_nested_batch();
    test_flat_batch();
    test_failing_stream();
    const char *dir = th_testing_dir();
    if (!dir) {
        fprintf(stderr, "parquet-testing not found (set PLANK_TESTING_DIR): corpus skipped\n");
        if (th_failures) TEST_END();
        TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    }
    test_corpus(dir);
    TEST_END();
}
