/* duckdb_capi.h: DuckDB's C API for the tests, loaded at run time.
 *
 * libduckdb.so (from the npm package @duckdb/node-bindings-linux-x64) is
 * opened with dlopen, so the tests build without DuckDB; duck_load says why
 * when it cannot be loaded (the tests then skip with exit 77). The library
 * path is $PLANK_LIBDUCKDB, else
 * PLANK_SOURCE_DIR/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so.
 *
 * Here: the few C API entry points the tests call (duck_api, duck_load), a
 * connection with the last error (duck_conn; duck_connect, duck_close,
 * duck_run, duck_exec, duck_int, duck_print_rows), a growable SQL text (sql_buf, sql_add, sql_quoted) and
 * kept_stream, the wrapper through which an ArrowArrayStream is registered
 * with duckdb_arrow_scan (it keeps the schemas DuckDB never releases, and
 * turns float16 into float32, which DuckDB does not import). Used by
 * test_duckdb_arrow.c and test_scan_diff.c; link with ${CMAKE_DL_LIBS}. */
#ifndef DUCKDB_CAPI_H
#define DUCKDB_CAPI_H

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plank.h"
#include "tharness.h"
/* ---- DuckDB C API (prototypes as in DuckDB's duckdb.h) ----------------------- */

typedef uint64_t duck_idx;
typedef struct duck_opaque *duck_handle; /* duckdb_database / duckdb_connection */
typedef int duck_state;                  /* DuckDBSuccess = 0, DuckDBError = 1 */
/* duckdb_result: five deprecated fields and internal_data. */
typedef struct duck_result {
    duck_idx deprecated_column_count, deprecated_row_count, deprecated_rows_changed;
    void *deprecated_columns;
    char *deprecated_error_message;
    void *internal_data;
} duck_result;

typedef struct duck_api {
    void *lib;
    duck_state (*open)(const char *path, duck_handle *out_database);
    void (*close)(duck_handle *database);
    duck_state (*connect)(duck_handle database, duck_handle *out_connection);
    void (*disconnect)(duck_handle *connection);
    duck_state (*query)(duck_handle connection, const char *query, duck_result *out_result);
    void (*destroy_result)(duck_result *result);
    const char *(*result_error)(duck_result *result);
    duck_idx (*row_count)(duck_result *result);
    int64_t (*value_int64)(duck_result *result, duck_idx col, duck_idx row);
    char *(*value_varchar)(duck_result *result, duck_idx col, duck_idx row);
    void (*free)(void *ptr);
    /* `arrow` is a duckdb_arrow_stream: a pointer to a struct ArrowArrayStream. */
    duck_state (*arrow_scan)(duck_handle connection, const char *table_name, void *arrow);
} duck_api;

static inline bool load_sym(duck_api *d, void *fp, const char *name) {
    void *s = dlsym(d->lib, name);
    if (!s) return false;
    memcpy(fp, &s, sizeof s); /* object pointer to function pointer, the POSIX way */
    return true;
}

/* Loads DuckDB; on failure writes why into `why`. */
static inline bool duck_load(duck_api *d, char *why, size_t why_size) {
    char path[2048];
    const char *env = getenv("PLANK_LIBDUCKDB");
    if (env && *env) snprintf(path, sizeof path, "%s", env);
    else snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so",
                  PLANK_SOURCE_DIR);
    memset(d, 0, sizeof *d);
    d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!d->lib) {
        snprintf(why, why_size, "cannot load DuckDB (%s; run `npm ci` or set PLANK_LIBDUCKDB): %.1000s",
                 path, dlerror());
        return false;
    }
    bool ok = load_sym(d, &d->open, "duckdb_open") && load_sym(d, &d->close, "duckdb_close") &&
              load_sym(d, &d->connect, "duckdb_connect") &&
              load_sym(d, &d->disconnect, "duckdb_disconnect") &&
              load_sym(d, &d->query, "duckdb_query") &&
              load_sym(d, &d->destroy_result, "duckdb_destroy_result") &&
              load_sym(d, &d->result_error, "duckdb_result_error") &&
              load_sym(d, &d->row_count, "duckdb_row_count") &&
              load_sym(d, &d->value_int64, "duckdb_value_int64") &&
              load_sym(d, &d->value_varchar, "duckdb_value_varchar") &&
              load_sym(d, &d->free, "duckdb_free") &&
              load_sym(d, &d->arrow_scan, "duckdb_arrow_scan");
    if (!ok) {
        snprintf(why, why_size, "%s lacks a DuckDB C API symbol", path);
        dlclose(d->lib);
        d->lib = NULL;
    }
    return ok;
}

typedef struct duck_conn {
    duck_api *api;
    duck_handle db, con;
    char error[1024]; /* the last failed query's message */
} duck_conn;

/* Runs a query into *r (destroy it afterwards, also on failure); false
 * (with dc->error set) when it failed. */
static inline bool duck_run(duck_conn *dc, const char *sql, duck_result *r) {
    memset(r, 0, sizeof *r);
    bool ok = dc->api->query(dc->con, sql, r) == 0;
    if (!ok) {
        const char *e = dc->api->result_error(r);
        snprintf(dc->error, sizeof dc->error, "%s", e ? e : "(no message)");
    }
    return ok;
}

/* Runs a statement; false (with dc->error set) when it failed. */
static inline bool duck_exec(duck_conn *dc, const char *sql) {
    duck_result r;
    bool ok = duck_run(dc, sql, &r);
    dc->api->destroy_result(&r);
    return ok;
}

/* Loads DuckDB and opens an in-memory database and a connection with one
 * thread (a registered Arrow stream is then read on the caller's thread)
 * and the session TimeZone UTC; false, with the reason in why, when DuckDB
 * cannot be loaded or opened (the caller skips). Close with duck_close. */
static inline bool duck_connect(duck_api *api, duck_conn *dc, char *why, size_t why_size) {
    if (!duck_load(api, why, why_size)) return false;
    memset(dc, 0, sizeof *dc);
    dc->api = api;
    if (api->open(NULL, &dc->db) != 0) {
        snprintf(why, why_size, "duckdb_open failed");
        return false;
    }
    if (api->connect(dc->db, &dc->con) != 0) {
        api->close(&dc->db);
        snprintf(why, why_size, "duckdb_connect failed");
        return false;
    }
    CHECK(duck_exec(dc, "SET threads = 1"));
    CHECK(duck_exec(dc, "SET TimeZone = 'UTC'"));
    return true;
}

/* Closes the connection and the database. libduckdb stays loaded:
 * unloading a C++ library with thread-local state at exit is not worth
 * the risk. */
static inline void duck_close(duck_conn *dc) {
    dc->api->disconnect(&dc->con);
    dc->api->close(&dc->db);
}

/* Runs a query returning one BIGINT; false when it failed. */
static inline bool duck_int(duck_conn *dc, const char *sql, int64_t *out) {
    duck_result r;
    bool ok = duck_run(dc, sql, &r);
    if (ok && dc->api->row_count(&r) != 1) {
        snprintf(dc->error, sizeof dc->error, "expected one row from: %s", sql);
        ok = false;
    } else if (ok) {
        *out = dc->api->value_int64(&r, 0, 0);
    }
    dc->api->destroy_result(&r);
    return ok;
}

/* Prints up to `limit` rows of a query's first column (diagnostics). */
static inline void duck_print_rows(duck_conn *dc, const char *sql, int limit) {
    duck_result r;
    if (duck_run(dc, sql, &r)) {
        duck_idx n = dc->api->row_count(&r);
        for (duck_idx i = 0; i < n && i < (duck_idx)limit; i++) {
            char *s = dc->api->value_varchar(&r, 0, i);
            fprintf(stderr, "        %.600s\n", s ? s : "NULL");
            dc->api->free(s);
        }
    }
    dc->api->destroy_result(&r);
}

/* ---- A growable SQL text ---------------------------------------------------- */

typedef struct sql_buf {
    char *p;
    size_t len, cap;
} sql_buf;

static inline void sql_add(sql_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline void sql_add(sql_buf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) abort();
        if (b->p && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) abort();
        b->p = p;
        b->cap = cap;
        if (b->len == 0) b->p[0] = '\0';
    }
}

/* A quoted SQL identifier or string literal (quote doubled). */
static inline void sql_quoted(sql_buf *b, const char *s, char q) {
    sql_add(b, "%c", q);
    for (; *s; s++) sql_add(b, *s == q ? "%c%c" : "%c", *s, q);
    sql_add(b, "%c", q);
}

/* ---- Keeping the schemas DuckDB never releases; float16 -------------------- */

/* The stream DuckDB sees wraps plank's (or the hand-made) stream:
 *  - get_schema keeps the producer's schema (DuckDB's duckdb_arrow_scan never
 *    releases the schemas it asks for) and hands DuckDB a test-owned copy
 *    with a release that does nothing; both are released by
 *    kept_stream_release after the view is dropped.
 *  - DuckDB 1.5.6 does not import Arrow float16 ("e"), which plank exports
 *    for FLOAT16: the copy says "f", and each batch is handed over as a
 *    test-owned copy of the array tree whose float16 leaves are converted
 *    to float32 here (exactly: every half is a float), releasing plank's
 *    batch when DuckDB releases the copy. Without float16 the batches pass
 *    through untouched. */

#define KEPT_SCHEMAS 16

typedef struct kept_stream {
    struct ArrowArrayStream outer; /* what DuckDB sees; private_data = this */
    struct ArrowArrayStream inner;
    struct ArrowSchema kept[KEPT_SCHEMAS], copies[KEPT_SCHEMAS];
    int num_kept;
    bool has_half;
} kept_stream;

static inline void noop_schema_release(struct ArrowSchema *s) { s->release = NULL; }

/* Releases a copied schema node: children first, then their memory. */
static inline void copy_schema_release(struct ArrowSchema *s) {
    for (int64_t k = 0; k < s->n_children; k++) {
        s->children[k]->release(s->children[k]);
        free(s->children[k]);
    }
    free(s->children);
    s->release = NULL;
}

/* Copies the tree of `src` into `dst` ("e" becomes "f"); sets *half. */
static inline bool copy_schema(struct ArrowSchema *dst, const struct ArrowSchema *src, bool *half) {
    *dst = *src;
    dst->children = NULL;
    dst->n_children = 0;
    dst->private_data = NULL;
    dst->release = copy_schema_release;
    if (src->format && strcmp(src->format, "e") == 0) {
        dst->format = "f";
        *half = true;
    }
    if (src->n_children <= 0) return true;
    dst->children = calloc((size_t)src->n_children, sizeof *dst->children);
    if (!dst->children) return false;
    for (int64_t k = 0; k < src->n_children; k++) {
        dst->children[k] = calloc(1, sizeof **dst->children);
        if (!dst->children[k] || !copy_schema(dst->children[k], src->children[k], half)) {
            free(dst->children[k]);
            copy_schema_release(dst);
            return false;
        }
        dst->n_children++;
    }
    return true;
}

static inline int kept_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
    kept_stream *k = s->private_data;
    if (k->num_kept == KEPT_SCHEMAS) return 12; /* ENOMEM: more requests than any scan makes */
    int rc = k->inner.get_schema(&k->inner, &k->kept[k->num_kept]);
    if (rc != 0) return rc;
    bool half = false;
    if (!copy_schema(&k->copies[k->num_kept], &k->kept[k->num_kept], &half)) {
        k->kept[k->num_kept].release(&k->kept[k->num_kept]);
        return 12;
    }
    k->has_half = half;
    *out = k->copies[k->num_kept++];
    out->release = noop_schema_release;
    return 0;
}

/* A batch handed to DuckDB as a copy: the producer's batch is kept here. */
typedef struct copy_batch {
    struct ArrowArray orig;
} copy_batch;

static inline float half_to_float(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0) v = ldexpf((float)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Frees a copied array node's own memory (not the producer's). */
static inline void copy_array_free(struct ArrowArray *a, const struct ArrowSchema *sch) {
    for (int64_t k = 0; k < a->n_children; k++) {
        if (a->children[k]) copy_array_free(a->children[k], sch->children[k]);
        free(a->children[k]);
    }
    if (sch->format && strcmp(sch->format, "e") == 0 && a->n_buffers == 2)
        free((void *)a->buffers[1]);
    free(a->children);
    free(a->buffers);
}

/* Children of a copied batch: their memory goes with the root's release. */
static inline void copy_child_release(struct ArrowArray *a) { a->release = NULL; }

static inline bool copy_array(struct ArrowArray *dst, const struct ArrowArray *src,
                       const struct ArrowSchema *sch) {
    *dst = *src;
    dst->buffers = NULL;
    dst->children = NULL;
    dst->n_children = 0;
    dst->release = copy_child_release;
    dst->private_data = NULL;
    dst->buffers = calloc((size_t)src->n_buffers + 1, sizeof *dst->buffers);
    if (!dst->buffers) return false;
    memcpy(dst->buffers, src->buffers, sizeof *dst->buffers * (size_t)src->n_buffers);
    if (sch->format && strcmp(sch->format, "e") == 0 && src->n_buffers == 2) {
        int64_t n = src->offset + src->length;
        float *f = malloc(sizeof *f * (size_t)(n + 1));
        if (!f) return false;
        const uint16_t *hv = src->buffers[1];
        for (int64_t i = 0; i < n; i++) f[i] = hv ? half_to_float(hv[i]) : 0.0f;
        dst->buffers[1] = f;
    }
    if (src->n_children > 0) {
        dst->children = calloc((size_t)src->n_children, sizeof *dst->children);
        if (!dst->children) return false;
        for (int64_t k = 0; k < src->n_children; k++) {
            dst->children[k] = calloc(1, sizeof **dst->children);
            dst->n_children++;
            if (!dst->children[k] || !copy_array(dst->children[k], src->children[k], sch->children[k]))
                return false;
        }
    }
    return true;
}

typedef struct copy_root {
    struct ArrowArray orig;
    const struct ArrowSchema *schema;
} copy_root;

static inline void copy_root_release(struct ArrowArray *a) {
    copy_root *cr = a->private_data;
    copy_array_free(a, cr->schema);
    cr->orig.release(&cr->orig);
    free(cr);
    a->release = NULL;
}

static inline int kept_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
    kept_stream *k = s->private_data;
    if (!k->has_half) return k->inner.get_next(&k->inner, out);
    copy_root *cr = calloc(1, sizeof *cr);
    if (!cr) return 12;
    int rc = k->inner.get_next(&k->inner, &cr->orig);
    if (rc != 0 || !cr->orig.release) {
        free(cr);
        if (rc == 0) memset(out, 0, sizeof *out);
        return rc;
    }
    cr->schema = &k->kept[0];
    if (!copy_array(out, &cr->orig, cr->schema)) {
        copy_array_free(out, cr->schema);
        cr->orig.release(&cr->orig);
        free(cr);
        return 12;
    }
    out->private_data = cr;
    out->release = copy_root_release;
    return 0;
}

static inline const char *kept_last_error(struct ArrowArrayStream *s) {
    kept_stream *k = s->private_data;
    return k->inner.get_last_error(&k->inner);
}

/* DuckDB never calls the stream's release (it copies the struct and gives
 * the copy a no-op release); the test calls this after dropping the view. */
static inline void kept_stream_release(kept_stream *k) {
    for (int i = 0; i < k->num_kept; i++) {
        k->copies[i].release(&k->copies[i]);
        CHECK(k->kept[i].release != NULL);
        if (k->kept[i].release) k->kept[i].release(&k->kept[i]);
        CHECK(k->kept[i].release == NULL);
    }
    k->num_kept = 0;
    if (k->inner.release) k->inner.release(&k->inner);
    CHECK(k->inner.release == NULL);
}

static inline void kept_stream_init(kept_stream *k, const struct ArrowArrayStream *inner) {
    memset(k, 0, sizeof *k);
    k->inner = *inner;
    k->outer.get_schema = kept_get_schema;
    k->outer.get_next = kept_get_next;
    k->outer.get_last_error = kept_last_error;
    k->outer.release = NULL; /* never called by DuckDB; see kept_stream_release */
    k->outer.private_data = k;
}

#endif /* DUCKDB_CAPI_H */
