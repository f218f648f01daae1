/* test_threads.c: plank used from several threads at once, on files the test
 * writes itself (so it needs no corpus; CI runs it under ThreadSanitizer):
 *  - four writers on four threads, each to its own file (plank_writer is one
 *    thread per handle), one of them fed by plank_writer_write_column from a
 *    thread per column (documented safe for different columns);
 *  - column readers over one reader on several threads (the documented
 *    contract: "several column readers over one file may be used from
 *    different threads");
 *  - Arrow streams over one reader, each drained on its own thread, with the
 *    reader closed while they run (each stream holds a reference); zero-copy
 *    arrays (pointing into the refcounted chunk buffer or the mapping) and
 *    shared dictionary arrays are released on other threads than the one
 *    that read them, some while the stream still reuses its buffers, the
 *    others after every stream and the reader are gone (their values are
 *    read again then);
 *  - scans over one reader on several threads (plank_scan_options.row_groups
 *    and whole-file scans), their rows against the predicate applied to the
 *    written values.
 * Every value read is compared with the value written. Streams are created
 * on the main thread: plank.h names column readers and scans as safe on one
 * reader, and each stream is a handle of its own. The parquet-testing corpus,
 * when present, adds one pass of column readers and scans over real files
 * (single-threaded checksums against each thread's). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "arrow/pk_arrow.h"
#include "plank.h"
#include "tharness.h"

#define NTHREADS 4
#define ROWS 40000
#define RG_ROWS 10000 /* 4 row groups */
#define NRG (ROWS / RG_ROWS)
#define PAGE_ROWS 2500

enum { C_I32, C_I64, C_DBL, C_O64, C_STR, NCOL };
static const char *const k_names[NCOL] = {"i32", "i64", "dbl", "o64", "str"};

/* The written values, by file row. */
static int32_t v_i32(int64_t r) { return (int32_t)(r * 3 + 1); }
static int64_t v_i64(int64_t r) { return r * 1000000007LL - 5; }
static double v_dbl(int64_t r) { return (double)r * 0.5 - 7.25; }
static bool o64_null(int64_t r) { return r % 7 == 3; }
static int64_t v_o64(int64_t r) { return -r * 11; }
static int v_str(int64_t r, char *buf) { return snprintf(buf, 16, "s%d", (int)(r % 500)); }

static bool bit_at(const void *bm, int64_t i) {
    return !bm || ((((const uint8_t *)bm)[i >> 3] >> (i & 7)) & 1);
}

/* ---- writing ------------------------------------------------------------------------ */

typedef struct fconf {
    const char *name;
    plank_codec codec;
    bool dictionary;
    int32_t page_version;
    bool by_column; /* plank_writer_write_column from one thread per column */
    int32_t threads; /* plank_writer_options.threads: the writer's own pool */
} fconf;

/* [3] and [4] are the zstd ones; main() sets their codec from what the build has. */
static fconf k_files[] = {
    {"plain.parquet", PLANK_CODEC_UNCOMPRESSED, false, 1, false, 1}, /* zero copy */
    {"dict.parquet", PLANK_CODEC_UNCOMPRESSED, true, 1, false, 1},
    {"columns.parquet", PLANK_CODEC_UNCOMPRESSED, false, 1, true, 2},
    {"v2.parquet", PLANK_CODEC_ZSTD, true, 2, false, 1},
    {"pool.parquet", PLANK_CODEC_ZSTD, true, 2, false, 3},
};
#define NFILES (int)(sizeof k_files / sizeof k_files[0])

static char g_dir[4096];
static char g_path[NFILES][4200];

/* The columns' data, built once, read by every writer thread. */
static int32_t g_i32[ROWS];
static int64_t g_i64[ROWS], g_o64[ROWS], g_offs[ROWS + 1];
static double g_dbl[ROWS];
static uint8_t g_valid[ROWS / 8 + 1];
static char g_str[ROWS * 8];
static int64_t g_o64_nulls;

static void build_data(void) {
    g_offs[0] = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        g_i32[r] = v_i32(r);
        g_i64[r] = v_i64(r);
        g_dbl[r] = v_dbl(r);
        g_o64[r] = o64_null(r) ? 0 : v_o64(r);
        if (!o64_null(r)) g_valid[r / 8] |= (uint8_t)(1u << (r % 8));
        else g_o64_nulls++;
        g_offs[r + 1] = g_offs[r] + v_str(r, g_str + g_offs[r]);
    }
}

/* Rows [row0, row0 + n) of column c as a writer batch. */
static plank_batch slice(int c, int64_t row0, int64_t n) {
    plank_batch b = {.struct_size = sizeof(plank_batch), .length = n};
    switch (c) {
    case C_I32: b.values = g_i32 + row0; break;
    case C_I64: b.values = g_i64 + row0; break;
    case C_DBL: b.values = g_dbl + row0; break;
    case C_O64: /* row0 is a multiple of 8 */
        b.values = g_o64 + row0;
        b.validity = g_valid + row0 / 8;
        b.null_count = 0;
        for (int64_t r = row0; r < row0 + n; r++) b.null_count += o64_null(r);
        break;
    default:
        b.offsets = g_offs + row0;
        b.data = (const uint8_t *)g_str;
        break;
    }
    return b;
}

typedef struct col_job {
    plank_writer *w;
    int c;
    int64_t row0;
    plank_status st;
    char msg[256];
} col_job;

static void *write_column_thread(void *arg) {
    col_job *j = arg;
    plank_batch b = slice(j->c, j->row0, RG_ROWS);
    plank_error e;
    plank_error_init(&e);
    j->st = plank_writer_write_column(j->w, j->c, &b, &e);
    snprintf(j->msg, sizeof j->msg, "%.200s", e.message);
    return NULL;
}

typedef struct write_job {
    int f;
    bool ok;
    char msg[512];
} write_job;

static void *write_thread(void *arg) {
    write_job *j = arg;
    const fconf *cf = &k_files[j->f];
    plank_schema_field fl[NCOL + 1];
    for (int i = 0; i <= NCOL; i++) plank_schema_field_init(&fl[i]);
    fl[0].num_children = NCOL;
    const plank_physical_type types[NCOL] = {PLANK_INT32, PLANK_INT64, PLANK_DOUBLE, PLANK_INT64,
                                             PLANK_BYTE_ARRAY};
    plank_column_options co[NCOL];
    for (int c = 0; c < NCOL; c++) {
        fl[c + 1].name = k_names[c];
        fl[c + 1].physical_type = types[c];
        fl[c + 1].repetition = c == C_O64 ? PLANK_OPTIONAL : PLANK_REQUIRED;
        plank_column_options_init(&co[c]);
        co[c].path = k_names[c];
        co[c].encoding = cf->dictionary ? -1 : PLANK_ENC_PLAIN;
    }
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.codec = cf->codec;
    o.dictionary = cf->dictionary;
    o.page_version = cf->page_version;
    o.page_rows = PAGE_ROWS;
    o.row_group_rows = RG_ROWS;
    o.columns = co;
    o.num_column_options = NCOL;
    o.threads = cf->threads;
    plank_writer *w;
    plank_error e;
    plank_error_init(&e);
    plank_status st = plank_writer_open_path(&w, g_path[j->f], fl, NCOL + 1, &o, &e);
    if (st != PLANK_OK) {
        snprintf(j->msg, sizeof j->msg, "open: %.200s", e.message);
        return NULL;
    }
    if (!cf->by_column) {
        plank_batch b[NCOL];
        for (int c = 0; c < NCOL; c++) b[c] = slice(c, 0, ROWS);
        st = plank_writer_write_rows(w, b, ROWS, &e);
        if (st != PLANK_OK) snprintf(j->msg, sizeof j->msg, "write_rows: %.200s", e.message);
    } else {
        for (int g = 0; g < NRG && st == PLANK_OK; g++) {
            pthread_t th[NCOL];
            col_job cj[NCOL];
            int started = 0;
            for (int c = 0; c < NCOL; c++) {
                cj[c] = (col_job){w, c, (int64_t)g * RG_ROWS, PLANK_OK, ""};
                if (pthread_create(&th[c], NULL, write_column_thread, &cj[c]) != 0) break;
                started++;
            }
            for (int c = 0; c < started; c++) pthread_join(th[c], NULL);
            if (started < NCOL) {
                snprintf(j->msg, sizeof j->msg, "pthread_create failed");
                st = PLANK_ERR_IO;
            }
            for (int c = 0; c < started && st == PLANK_OK; c++)
                if (cj[c].st != PLANK_OK) {
                    snprintf(j->msg, sizeof j->msg, "write_column %d: %.200s", c, cj[c].msg);
                    st = cj[c].st;
                }
            if (st == PLANK_OK) st = plank_writer_end_row_group(w, &e);
            if (st != PLANK_OK && !j->msg[0]) snprintf(j->msg, sizeof j->msg, "%.200s", e.message);
        }
    }
    if (st != PLANK_OK) {
        plank_writer_abort(w);
        return NULL;
    }
    st = plank_writer_close(w, &e);
    if (st != PLANK_OK) snprintf(j->msg, sizeof j->msg, "close: %.200s", e.message);
    j->ok = st == PLANK_OK;
    return NULL;
}

/* ---- column readers ----------------------------------------------------------------- */

/* Slot i of a column reader batch against file row r: 0 when equal. */
static int batch_bad(const plank_batch *b, int c, int64_t i, int64_t r) {
    bool valid = bit_at(b->validity, i);
    if (c == C_O64 && o64_null(r)) return valid;
    if (!valid) return 1;
    switch (c) {
    case C_I32: return ((const int32_t *)b->values)[i] != v_i32(r);
    case C_I64: return ((const int64_t *)b->values)[i] != v_i64(r);
    case C_DBL: return ((const double *)b->values)[i] != v_dbl(r);
    case C_O64: return ((const int64_t *)b->values)[i] != v_o64(r);
    default: {
        char want[16];
        int n = v_str(r, want);
        return b->offsets[i + 1] - b->offsets[i] != n ||
               memcmp(b->data + b->offsets[i], want, (size_t)n) != 0;
    }
    }
}

/* Reads chunk (g, c) in batches of `batch` slots; returns the number of wrong
 * values (a read error or a wrong row count counts as one more). */
static int64_t check_chunk(plank_reader *r, int32_t g, int32_t c, int64_t batch) {
    plank_error e;
    plank_column_reader *cr;
    if (plank_column_reader_open(&cr, r, g, c, &e) != PLANK_OK) return 1;
    int64_t row = (int64_t)g * RG_ROWS, bad = 0;
    for (;;) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        if (plank_column_reader_read(cr, batch, &b, &e) != PLANK_OK) {
            bad++;
            break;
        }
        if (b.length == 0) break;
        for (int64_t i = 0; i < b.length; i++) bad += batch_bad(&b, c, i, row + i);
        row += b.length;
    }
    plank_column_reader_close(cr);
    return bad + (row != (int64_t)(g + 1) * RG_ROWS);
}

typedef struct cr_job {
    plank_reader *r;
    int t;
    int64_t bad, chunks;
} cr_job;

static void *column_reader_thread(void *arg) {
    cr_job *j = arg;
    for (int rep = 0; rep < 2; rep++)
        for (int k = 0; k < NRG * NCOL; k++) {
            /* Each thread walks the chunks in another order, with another batch size. */
            int idx = (k * 7 + j->t * 13 + rep) % (NRG * NCOL);
            j->bad += check_chunk(j->r, idx / NCOL, idx % NCOL, 333 + 1000 * j->t + rep);
            j->chunks++;
        }
    return NULL;
}

static void test_column_readers(plank_reader *r, const char *label) {
    for (int32_t g = 0; g < NRG; g++)
        for (int32_t c = 0; c < NCOL; c++)
            CHECK_MSG(check_chunk(r, g, c, 4096) == 0, "%s: chunk %d/%d, one thread", label, g, c);
    pthread_t th[NTHREADS];
    cr_job jobs[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        jobs[t] = (cr_job){r, t, 0, 0};
        CHECK(pthread_create(&th[t], NULL, column_reader_thread, &jobs[t]) == 0);
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK_MSG(jobs[t].bad == 0, "%s: column reader thread %d: %lld wrong values", label, t,
                  (long long)jobs[t].bad);
        CHECK_EQ_I64(jobs[t].chunks, 2 * NRG * NCOL);
    }
}

/* ---- Arrow streams, arrays released on other threads ---------------------------------- */

/* The file rows a stream yields, in order: ranges [first, first + count). */
typedef struct rowseq {
    plank_row_range r[4];
    int n;
} rowseq;

static int64_t seq_row(const rowseq *s, int64_t pos) {
    for (int k = 0; k < s->n; k++) {
        if (pos < s->r[k].count) return s->r[k].first + pos;
        pos -= s->r[k].count;
    }
    return -1;
}

static int64_t seq_len(const rowseq *s) {
    int64_t n = 0;
    for (int k = 0; k < s->n; k++) n += s->r[k].count;
    return n;
}

/* Value i of child c of a batch against file row r: 0 when equal. */
static int arrow_bad(const struct ArrowArray *ch, int c, int64_t i, int64_t r) {
    int64_t j = ch->offset + i;
    bool valid = ch->null_count == 0 || bit_at(ch->buffers[0], j);
    if (c == C_O64 && o64_null(r)) return valid;
    if (!valid) return 1;
    switch (c) {
    case C_I32: return ((const int32_t *)ch->buffers[1])[j] != v_i32(r);
    case C_I64: return ((const int64_t *)ch->buffers[1])[j] != v_i64(r);
    case C_DBL: return ((const double *)ch->buffers[1])[j] != v_dbl(r);
    case C_O64: return ((const int64_t *)ch->buffers[1])[j] != v_o64(r);
    default: {
        const struct ArrowArray *d = ch;
        int64_t k = j;
        if (ch->dictionary) {
            d = ch->dictionary;
            k = d->offset + ((const int32_t *)ch->buffers[1])[j];
        }
        const int32_t *off = d->buffers[1];
        const char *data = d->buffers[2];
        char want[16];
        int n = v_str(r, want);
        return off[k + 1] - off[k] != n || memcmp(data + off[k], want, (size_t)n) != 0;
    }
    }
}

/* Wrong values of batch a, whose first row is position pos of seq. */
static int64_t batch_check(const struct ArrowArray *a, const rowseq *seq, int64_t pos) {
    if (a->n_children != NCOL) return 1;
    int64_t bad = 0;
    for (int c = 0; c < NCOL; c++) {
        if (a->children[c]->length != a->length) return bad + 1;
        for (int64_t i = 0; i < a->length; i++)
            bad += arrow_bad(a->children[c], c, i, seq_row(seq, pos + i));
    }
    return bad;
}

/* Arrays handed from the stream threads to the releasing threads. */
typedef struct held {
    struct ArrowArray a;
    const rowseq *seq;
    int64_t pos;
} held;

typedef struct array_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    held *items;
    int64_t n, cap, head;
    bool closed;
} array_queue;

static void queue_push(array_queue *q, const held *h) {
    pthread_mutex_lock(&q->mu);
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->items = realloc(q->items, (size_t)q->cap * sizeof *q->items);
        if (!q->items) abort();
    }
    q->items[q->n++] = *h;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

static void *release_thread(void *arg) {
    array_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->head == q->n && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
        if (q->head == q->n) break;
        held h = q->items[q->head++];
        pthread_mutex_unlock(&q->mu);
        h.a.release(&h.a);
        pthread_mutex_lock(&q->mu);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

typedef struct stream_job {
    struct ArrowArrayStream s;
    rowseq seq;
    array_queue *now, *later; /* released during the streams, after them */
    int64_t bad, rows, zero_copy, batches;
    char err[256];
} stream_job;

static void *stream_thread(void *arg) {
    stream_job *j = arg;
    struct ArrowSchema sc;
    if (j->s.get_schema(&j->s, &sc) != 0) {
        snprintf(j->err, sizeof j->err, "get_schema: %.200s", j->s.get_last_error(&j->s));
        j->s.release(&j->s);
        return NULL;
    }
    if (sc.n_children != NCOL) j->bad++;
    sc.release(&sc);
    for (;;) {
        held h = {.seq = &j->seq, .pos = j->rows};
        int rc = j->s.get_next(&j->s, &h.a);
        if (rc != 0) {
            snprintf(j->err, sizeof j->err, "get_next %d: %.200s", rc, j->s.get_last_error(&j->s));
            break;
        }
        if (!h.a.release) break;
        j->bad += batch_check(&h.a, &j->seq, j->rows);
        for (int c = 0; c < NCOL && h.a.n_children == NCOL; c++)
            j->zero_copy += pk_arrow_array_borrows(h.a.children[c]);
        j->rows += h.a.length;
        /* Every third batch outlives the stream and the reader. */
        queue_push(j->batches++ % 3 == 2 ? j->later : j->now, &h);
    }
    j->s.release(&j->s);
    return NULL;
}

typedef struct scan_job {
    plank_reader *r;
    int t;
    int64_t bad, scans;
} scan_job;
static void *scan_thread(void *arg);

/* The streams over one reader: all row groups, two of them, a row selection,
 * dictionary arrays; drained on one thread each while two threads release
 * their arrays, and two more threads read the reader's chunks through column
 * readers and scan it. The reader is closed once those two are done, with
 * the streams still open. Returns the zero-copy arrays seen. */
static int64_t test_streams(plank_reader *r, const char *label) {
    enum { NSTREAMS = 4 };
    static const int32_t two_groups[] = {1, 3};
    static const plank_row_range sel[] = {{100, 4900}, {12000, 1}, {25000, 15000}};
    array_queue now = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, false};
    array_queue later = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, false};
    stream_job jobs[NSTREAMS];
    memset(jobs, 0, sizeof jobs);
    int made = 0;
    for (int k = 0; k < NSTREAMS; k++) {
        stream_job *j = &jobs[k];
        j->now = &now;
        j->later = &later;
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        o.batch_rows = k == 0 ? 3000 : k == 1 ? RG_ROWS : 4096;
        o.dictionary_arrays = k == 3;
        plank_error e;
        plank_error_init(&e);
        plank_status st;
        if (k == 1) {
            st = plank_reader_arrow_stream(r, two_groups, 2, &o, &j->s, &e);
            j->seq = (rowseq){{{RG_ROWS, RG_ROWS}, {3 * RG_ROWS, RG_ROWS}}, 2};
        } else if (k == 2) {
            st = plank_reader_arrow_stream_rows(r, sel, 3, &o, &j->s, &e);
            j->seq = (rowseq){{sel[0], sel[1], sel[2]}, 3};
        } else {
            st = plank_reader_arrow_stream(r, NULL, 0, &o, &j->s, &e);
            j->seq = (rowseq){{{0, ROWS}}, 1};
        }
        CHECK_MSG(st == PLANK_OK, "%s: stream %d: %s", label, k, e.message);
        if (st != PLANK_OK) break;
        made++;
    }
    pthread_t rel[2], th[NSTREAMS], other[2];
    for (int k = 0; k < 2; k++) CHECK(pthread_create(&rel[k], NULL, release_thread, &now) == 0);
    int started = 0;
    for (int k = 0; k < made; k++) {
        if (pthread_create(&th[k], NULL, stream_thread, &jobs[k]) != 0) {
            CHECK_MSG(0, "pthread_create");
            jobs[k].s.release(&jobs[k].s);
            continue;
        }
        started++;
    }
    cr_job cj = {r, 1, 0, 0};
    scan_job sj = {r, 2, 0, 0};
    bool other_ok[2] = {pthread_create(&other[0], NULL, column_reader_thread, &cj) == 0,
                        pthread_create(&other[1], NULL, scan_thread, &sj) == 0};
    for (int k = 0; k < 2; k++) {
        CHECK(other_ok[k]);
        if (other_ok[k]) pthread_join(other[k], NULL);
    }
    CHECK_MSG(cj.bad == 0 && sj.bad == 0, "%s: next to the streams: %lld wrong values from "
              "column readers, %lld wrong rows from scans", label, (long long)cj.bad,
              (long long)sj.bad);
    CHECK_EQ_I64(cj.chunks, 2 * NRG * NCOL);
    CHECK_EQ_I64(sj.scans, 6);
    plank_reader_close(r); /* the streams hold the reader */
    int64_t zc = 0;
    for (int k = 0; k < made; k++) {
        if (k < started) pthread_join(th[k], NULL);
        stream_job *j = &jobs[k];
        CHECK_MSG(!j->err[0], "%s: stream %d: %s", label, k, j->err);
        CHECK_MSG(j->bad == 0, "%s: stream %d: %lld wrong values", label, k, (long long)j->bad);
        CHECK_MSG(j->rows == seq_len(&j->seq), "%s: stream %d: %lld rows, expected %lld", label,
                  k, (long long)j->rows, (long long)seq_len(&j->seq));
        zc += j->zero_copy;
    }
    pthread_mutex_lock(&now.mu);
    now.closed = true;
    pthread_cond_broadcast(&now.cv);
    pthread_mutex_unlock(&now.mu);
    for (int k = 0; k < 2; k++) pthread_join(rel[k], NULL);
    /* Streams and reader gone: the kept arrays still hold their buffers. */
    int64_t bad = 0;
    for (int64_t i = 0; i < later.n; i++) bad += batch_check(&later.items[i].a, later.items[i].seq,
                                                             later.items[i].pos);
    CHECK_MSG(bad == 0, "%s: %lld wrong values in arrays kept after the streams", label,
              (long long)bad);
    CHECK(later.n > 0);
    later.closed = true;
    for (int k = 0; k < 2; k++) CHECK(pthread_create(&rel[k], NULL, release_thread, &later) == 0);
    for (int k = 0; k < 2; k++) pthread_join(rel[k], NULL);
    CHECK_EQ_I64(later.head, later.n);
    CHECK_EQ_I64(now.head, now.n);
    free(now.items);
    free(later.items);
    return zc;
}

/* ---- scans ---------------------------------------------------------------------------- */

/* A scan of i64 >= v_i64(from) AND o64 IS NOT NULL over row group g (-1: all),
 * projecting i32 and str: wrong rows (the expected ones are the rows of those
 * row groups from `from` on whose o64 is not null, in order). */
static int64_t scan_check(plank_reader *r, int32_t g, int64_t from, int64_t *matched) {
    plank_expr *e = plank_expr_and(
        plank_expr_compare(PLANK_CMP_GE, plank_expr_column(NULL, "i64"),
                           plank_expr_int(NULL, v_i64(from))),
        plank_expr_is_null(plank_expr_column(NULL, "o64"), true));
    static const char *const cols[] = {"i32", "str"};
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    o.columns = cols;
    o.num_columns = 2;
    if (g >= 0) {
        o.row_groups = &g;
        o.num_row_groups = 1;
    }
    int64_t lo = g >= 0 ? (int64_t)g * RG_ROWS : 0, hi = g >= 0 ? lo + RG_ROWS : ROWS;
    int64_t next = lo > from ? lo : from, bad = 0;
    *matched = 0;
    plank_scan *s;
    plank_error err;
    if (plank_scan_open(&s, r, &o, &err) != PLANK_OK) {
        plank_expr_free(e);
        return 1;
    }
    struct ArrowArrayStream st;
    if (plank_scan_arrow_stream(s, &st, &err) != PLANK_OK) bad++;
    else {
        for (;;) {
            struct ArrowArray a;
            if (st.get_next(&st, &a) != 0) {
                bad++;
                break;
            }
            if (!a.release) break;
            if (a.n_children != 2) bad++;
            for (int64_t i = 0; i < a.length && a.n_children == 2; i++) {
                while (next < hi && o64_null(next)) next++;
                if (next >= hi) {
                    bad++;
                    break;
                }
                bad += arrow_bad(a.children[0], C_I32, i, next);
                bad += arrow_bad(a.children[1], C_STR, i, next);
                next++;
                (*matched)++;
            }
            a.release(&a);
        }
        st.release(&st);
        while (next < hi && o64_null(next)) next++;
        bad += next < hi; /* rows missing at the end */
    }
    plank_scan_close(s);
    plank_expr_free(e);
    return bad;
}

static void *scan_thread(void *arg) {
    scan_job *j = arg;
    for (int rep = 0; rep < 3; rep++) {
        int64_t from = (rep * 7 + j->t * 3) * 1111 % ROWS, m;
        j->bad += scan_check(j->r, (j->t + rep) % NRG, from, &m);
        j->bad += scan_check(j->r, -1, from, &m);
        j->scans += 2;
    }
    return NULL;
}

static void test_scans(plank_reader *r, const char *label) {
    int64_t m;
    CHECK_MSG(scan_check(r, -1, 12345, &m) == 0, "%s: scan, one thread", label);
    int64_t want = 0;
    for (int64_t row = 12345; row < ROWS; row++) want += !o64_null(row);
    CHECK_EQ_I64(m, want);
    pthread_t th[NTHREADS];
    scan_job jobs[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        jobs[t] = (scan_job){r, t, 0, 0};
        CHECK(pthread_create(&th[t], NULL, scan_thread, &jobs[t]) == 0);
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK_MSG(jobs[t].bad == 0, "%s: scan thread %d: %lld wrong rows", label, t,
                  (long long)jobs[t].bad);
        CHECK_EQ_I64(jobs[t].scans, 6);
    }
}

/* ---- the corpus (optional) ------------------------------------------------------------- */

static plank_reader *g_reader;
static uint64_t g_want[64][64]; /* [row group][column] checksums, single-threaded */

static uint64_t chunk_sum(plank_reader *r, int32_t g, int32_t c, plank_status *st) {
    uint64_t h = 0xcbf29ce484222325ULL;
    plank_error err;
    plank_column_reader *cr;
    *st = plank_column_reader_open(&cr, r, g, c, &err);
    if (*st) return 0;
    for (;;) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        *st = plank_column_reader_read(cr, 777, &b, &err);
        if (*st || b.length == 0) break;
        for (int64_t i = 0; i < b.length; i++) {
            bool valid = bit_at(b.validity, i);
            uint64_t v = valid;
            if (valid && b.physical_type == PLANK_BYTE_ARRAY)
                v += (uint64_t)(b.offsets[i + 1] - b.offsets[i]) * 31 +
                     (b.offsets[i + 1] > b.offsets[i] ? b.data[b.offsets[i]] : 0);
            else if (valid && b.value_width >= 4) {
                uint32_t x;
                memcpy(&x, (const uint8_t *)b.values + (size_t)i * (size_t)b.value_width, 4);
                v += x;
            }
            h = (h ^ v) * 0x100000001b3ULL;
        }
    }
    plank_column_reader_close(cr);
    return h;
}

static void *corpus_worker(void *arg) {
    intptr_t t = (intptr_t)arg;
    int32_t groups = plank_reader_num_row_groups(g_reader);
    int32_t cols = plank_reader_num_columns(g_reader);
    intptr_t bad = 0;
    for (int rep = 0; rep < 3; rep++) {
        for (int32_t k = 0; k < groups * cols; k++) {
            int32_t idx = (int32_t)((k * 7 + t * 13 + rep) % (groups * cols));
            int32_t g = idx / cols, c = idx % cols;
            plank_status st;
            uint64_t h = chunk_sum(g_reader, g, c, &st);
            if (st != PLANK_OK || h != g_want[g][c]) bad++;
        }
    }
    return (void *)bad;
}

/* A scan of row group g (filter: the first column is not NULL; every
 * column streamed): rows streamed, or -1 on an error. */
static int64_t corpus_scan_rows(plank_reader *r, int32_t g) {
    const plank_schema_node *n = plank_reader_column_node(r, 0);
    plank_expr *e = plank_expr_is_null(plank_expr_column(NULL, n->path), true);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    o.row_groups = &g;
    o.num_row_groups = 1;
    plank_scan *s;
    plank_error err;
    int64_t rows = -1;
    if (plank_scan_open(&s, r, &o, &err) == PLANK_OK) {
        struct ArrowArrayStream st;
        if (plank_scan_arrow_stream(s, &st, &err) == PLANK_OK) {
            rows = 0;
            for (;;) {
                struct ArrowArray a;
                if (st.get_next(&st, &a) != 0) {
                    rows = -1;
                    break;
                }
                if (!a.release) break;
                rows += a.length;
                a.release(&a);
            }
            st.release(&st);
        }
        plank_scan_close(s);
    }
    plank_expr_free(e);
    return rows;
}

static int64_t g_scan_want[64];

static void *corpus_scan_worker(void *arg) {
    intptr_t t = (intptr_t)arg;
    int32_t groups = plank_reader_num_row_groups(g_reader);
    intptr_t bad = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int32_t k = 0; k < groups; k++) {
            int32_t g = (int32_t)((k + t + rep) % groups);
            if (corpus_scan_rows(g_reader, g) != g_scan_want[g]) bad++;
        }
    return (void *)bad;
}

static void test_corpus(const char *dir) {
    const char *files[] = {"alltypes_tiny_pages.parquet", "delta_encoding_optional_column.parquet",
                           "datapage_v2.snappy.parquet"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        if (strstr(files[f], "snappy") && !plank_codec_available(PLANK_CODEC_SNAPPY)) {
            fprintf(stderr, "corpus %s: SNAPPY not in this build, not read\n", files[f]);
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/data/%s", dir, files[f]);
        plank_error err;
        plank_status ost = plank_reader_open_path(&g_reader, path, NULL, &err);
        CHECK_MSG(ost == PLANK_OK, "%s: %s", path, err.message);
        if (ost != PLANK_OK) continue;
        int32_t groups = plank_reader_num_row_groups(g_reader);
        int32_t cols = plank_reader_num_columns(g_reader);
        CHECK(groups <= 64 && cols <= 64);
        for (int32_t g = 0; g < groups && g < 64; g++)
            for (int32_t c = 0; c < cols && c < 64; c++) {
                plank_status st;
                g_want[g][c] = chunk_sum(g_reader, g, c, &st);
                CHECK(st == PLANK_OK);
            }
        pthread_t th[NTHREADS];
        for (intptr_t t = 0; t < NTHREADS; t++)
            CHECK(pthread_create(&th[t], NULL, corpus_worker, (void *)t) == 0);
        for (int t = 0; t < NTHREADS; t++) {
            void *bad;
            pthread_join(th[t], &bad);
            CHECK_MSG(bad == NULL, "%s: thread %d saw %ld wrong chunks", files[f], t,
                      (long)(intptr_t)bad);
        }
        for (int32_t g = 0; g < groups && g < 64; g++) {
            g_scan_want[g] = corpus_scan_rows(g_reader, g);
            CHECK(g_scan_want[g] > 0);
        }
        for (intptr_t t = 0; t < NTHREADS; t++)
            CHECK(pthread_create(&th[t], NULL, corpus_scan_worker, (void *)t) == 0);
        for (int t = 0; t < NTHREADS; t++) {
            void *bad;
            pthread_join(th[t], &bad);
            CHECK_MSG(bad == NULL, "%s: scan thread %d saw %ld wrong counts", files[f], t,
                      (long)(intptr_t)bad);
        }
        plank_reader_close(g_reader);
        fprintf(stderr, "corpus %s: %d row groups x %d columns on %d threads\n", files[f], groups,
                cols, NTHREADS);
    }
}

/* ---- main ------------------------------------------------------------------------------ */

static plank_reader *open_reader(const char *path, bool map) {
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.memory_map = map;
    plank_reader *r = NULL;
    plank_error e;
    plank_error_init(&e);
    plank_status st = plank_reader_open_path(&r, path, &ro, &e);
    CHECK_MSG(st == PLANK_OK, "%s: %s", path, e.message);
    return st == PLANK_OK ? r : NULL;
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/plank_threads_XXXXXX", tmp);
    if (!mkdtemp(g_dir)) TEST_SKIP("mkdtemp %s failed", g_dir);
    if (!plank_codec_available(PLANK_CODEC_ZSTD))
        k_files[3].codec = k_files[4].codec = PLANK_CODEC_UNCOMPRESSED;
    build_data();

    /* Five writers at once, each to its own file. */
    pthread_t th[NFILES];
    write_job wj[NFILES];
    for (int f = 0; f < NFILES; f++) {
        snprintf(g_path[f], sizeof g_path[f], "%s/%s", g_dir, k_files[f].name);
        wj[f] = (write_job){f, false, ""};
        CHECK(pthread_create(&th[f], NULL, write_thread, &wj[f]) == 0);
    }
    for (int f = 0; f < NFILES; f++) {
        pthread_join(th[f], NULL);
        CHECK_MSG(wj[f].ok, "writing %s: %s", k_files[f].name, wj[f].msg);
    }
    /* The writer's own pool (3 threads) wrote what one thread wrote. */
    if (wj[3].ok && wj[4].ok) {
        size_t n3 = 0, n4 = 0;
        unsigned char *b3 = th_read_file(g_path[3], &n3), *b4 = th_read_file(g_path[4], &n4);
        CHECK_MSG(b3 && b4 && n3 == n4 && memcmp(b3, b4, n3) == 0,
                  "%s and %s differ (%zu and %zu bytes)", k_files[3].name, k_files[4].name, n3,
                  n4);
        free(b3);
        free(b4);
    }

    for (int f = 0; f < NFILES; f++) {
        if (!wj[f].ok) continue;
        for (int map = 0; map < 2; map++) {
            char label[256];
            snprintf(label, sizeof label, "%s%s", k_files[f].name, map ? " (memory_map)" : "");
            plank_reader *r = open_reader(g_path[f], map);
            if (!r) continue;
            CHECK_EQ_I64(plank_reader_num_rows(r), ROWS);
            CHECK_EQ_I64(plank_reader_num_row_groups(r), NRG);
            CHECK_EQ_I64(plank_reader_num_columns(r), NCOL);
            if (plank_reader_num_row_groups(r) != NRG || plank_reader_num_columns(r) != NCOL) {
                plank_reader_close(r);
                continue;
            }
            test_column_readers(r, label);
            test_scans(r, label);
            int64_t zc = test_streams(r, label); /* closes r */
            /* Uncompressed PLAIN pages without nulls: i32, i64 and dbl are zero copy. */
            if (k_files[f].codec == PLANK_CODEC_UNCOMPRESSED && !k_files[f].dictionary)
                CHECK_MSG(zc > 0, "%s: no zero-copy array", label);
            fprintf(stderr, "%s: column readers, scans and streams on %d threads (%lld zero-copy arrays)\n",
                    label, NTHREADS, (long long)zc);
        }
    }

    for (int f = 0; f < NFILES; f++)
        CHECK_MSG(!wj[f].ok || unlink(g_path[f]) == 0, "cannot remove %s", g_path[f]);
    CHECK_MSG(rmdir(g_dir) == 0, "cannot remove %s", g_dir);

    const char *dir = th_testing_dir();
    if (dir) test_corpus(dir);
    else TEST_SKIP_PART("the corpus pass: parquet-testing not found (set PLANK_TESTING_DIR)");
    TEST_END();
}
