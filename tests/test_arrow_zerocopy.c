/* test_arrow_zerocopy.c: zero-copy export of the Arrow stream. Files written
 * with plank's writer (PLAIN, 4096-row pages, two row groups) are read back
 * through plank_reader_arrow_stream; every value is checked against the
 * written one, and every leaf array's value buffer against where it may
 * point: inside the file's bytes (memory reader with borrow_memory) exactly
 * when the batch is one non-null PLAIN page of an uncompressed chunk and the
 * pointer is aligned, a buffer of its own otherwise. Shifting the file in
 * memory by 0..7 bytes moves every page through every alignment, so the
 * number of zero-copy batches per column is known exactly. Arrays kept
 * after the stream and the reader are closed are read again (ASan checks
 * that the refcounted chunk buffer is still alive) and the allocator must
 * balance once they are released. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <unistd.h>

#include "arrow/pk_arrow.h"
#include "tharness.h"

#define ROWS 50000
#define RG_ROWS 30000
#define PAGE_ROWS 4096
#define NULL_FROM 1000 /* o64 is null in rows [NULL_FROM, NULL_FROM + 10) */

enum { C_I32, C_I64, C_DBL, C_F16, C_F3, C_O64, C_STR, NCOL };

static char g_dir[] = "/tmp/plank_zc_XXXXXX";
static char g_path[256];

/* Values repeat every g_mod rows (fewer for the dictionary file, so that
 * the writer keeps its dictionaries). */
static int64_t g_mod = ROWS;
static int32_t v_i32(int64_t r) { return (int32_t)(r % g_mod * 3 + 1); }
static int64_t v_i64(int64_t r) { return r % g_mod * 1000000007LL - 5; }
static double v_dbl(int64_t r) { return (double)(r % g_mod) * 0.5 - 7.25; }
static uint8_t v_byte(int64_t r, int k) { return (uint8_t)(r % g_mod * 31 + k * 7); }
static bool o64_null(int64_t r) { return r >= NULL_FROM && r < NULL_FROM + 10; }

typedef struct wconf {
    plank_codec codec;
    bool dictionary;
    int32_t page_version;
} wconf;

static bool write_file(const char *path, const wconf *cf) {
    plank_schema_field f[NCOL + 1];
    for (int i = 0; i <= NCOL; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = NCOL;
    const char *names[NCOL] = {"i32", "i64", "dbl", "f16", "f3", "o64", "str"};
    plank_physical_type types[NCOL] = {PLANK_INT32, PLANK_INT64, PLANK_DOUBLE,
                                       PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY,
                                       PLANK_INT64, PLANK_BYTE_ARRAY};
    plank_column_options co[NCOL];
    for (int c = 0; c < NCOL; c++) {
        f[c + 1].name = names[c];
        f[c + 1].physical_type = types[c];
        f[c + 1].type_length = c == C_F16 ? 16 : c == C_F3 ? 3 : 0;
        f[c + 1].repetition = c == C_O64 ? PLANK_OPTIONAL : PLANK_REQUIRED;
        plank_column_options_init(&co[c]);
        co[c].path = names[c];
        co[c].encoding = cf->dictionary ? -1 : PLANK_ENC_PLAIN;
    }
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.codec = cf->codec;
    o.dictionary = cf->dictionary;
    /* the dictionary file needs a dictionary in every chunk, even where the
     * first page's sample would prefer DELTA (the ramps of g_mod rows) */
    o.dictionary_sample = !cf->dictionary;
    o.page_version = cf->page_version;
    o.page_rows = PAGE_ROWS;
    o.row_group_rows = RG_ROWS;
    o.columns = co;
    o.num_column_options = NCOL;
    plank_writer *w;
    plank_error e;
    plank_status st = plank_writer_open_path(&w, path, f, NCOL + 1, &o, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st != PLANK_OK) return false;
    int32_t *i32 = malloc(ROWS * 4);
    int64_t *i64 = malloc(ROWS * 8), *o64 = malloc(ROWS * 8), *offs = malloc((ROWS + 1) * 8);
    double *dbl = malloc(ROWS * 8);
    uint8_t *f16 = malloc(ROWS * 16), *f3 = malloc(ROWS * 3), *valid = calloc(ROWS / 8 + 1, 1);
    char *str = malloc(ROWS * 8);
    offs[0] = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        i32[r] = v_i32(r);
        i64[r] = v_i64(r);
        dbl[r] = v_dbl(r);
        for (int k = 0; k < 16; k++) f16[r * 16 + k] = v_byte(r, k);
        for (int k = 0; k < 3; k++) f3[r * 3 + k] = v_byte(r, k);
        o64[r] = o64_null(r) ? 0 : v_i64(r) + 1;
        if (!o64_null(r)) valid[r / 8] |= (uint8_t)(1u << (r % 8));
        int len = snprintf(str + offs[r], 8, "s%d", (int)(r % 100000));
        offs[r + 1] = offs[r] + len;
    }
    plank_batch b[NCOL];
    memset(b, 0, sizeof b);
    for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
    const void *vals[NCOL] = {i32, i64, dbl, f16, f3, o64, NULL};
    for (int c = 0; c < NCOL; c++) {
        b[c].length = ROWS;
        b[c].values = vals[c];
    }
    b[C_O64].validity = valid;
    b[C_O64].null_count = 10;
    b[C_STR].offsets = offs;
    b[C_STR].data = (const uint8_t *)str;
    st = plank_writer_write_rows(w, b, ROWS, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st == PLANK_OK) st = plank_writer_close(w, &e);
    else plank_writer_abort(w);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    free(i32), free(i64), free(o64), free(offs), free(dbl), free(f16), free(f3), free(valid);
    free(str);
    return st == PLANK_OK;
}

/* Checks one batch (starting at file row `row0`) against the written values;
 * counts its zero-copy leaves in zc[c]. mem/size: the memory reader's bytes
 * (NULL for path readers). */
static void check_batch(const struct ArrowArray *a, int64_t row0, const uint8_t *mem, size_t size,
                        int64_t zc[NCOL]) {
    CHECK_EQ_I64(a->n_children, NCOL);
    if (a->n_children != NCOL) return;
    for (int c = 0; c < NCOL; c++) {
        const struct ArrowArray *ch = a->children[c];
        CHECK_EQ_I64(ch->length, a->length);
        const uint8_t *v = ch->buffers[c == C_STR ? 2 : 1];
        bool borrowed = pk_arrow_array_borrows(ch);
        bool inside = mem && (uintptr_t)v - (uintptr_t)mem < size;
        if (mem) CHECK_MSG(borrowed == inside, "column %d row %lld", c, (long long)row0);
        if (borrowed) {
            zc[c]++;
            size_t align = c == C_I32 ? 4 : c == C_F3 ? 1 : 8;
            CHECK_MSG((uintptr_t)v % align == 0, "column %d misaligned", c);
            CHECK(c != C_STR);
        }
        for (int64_t i = 0; i < ch->length; i++) {
            int64_t r = row0 + i;
            bool ok = true;
            switch (c) {
            case C_I32: ok = ((const int32_t *)(const void *)v)[i] == v_i32(r); break;
            case C_I64: ok = ((const int64_t *)(const void *)v)[i] == v_i64(r); break;
            case C_DBL: ok = ((const double *)(const void *)v)[i] == v_dbl(r); break;
            case C_F16:
                for (int k = 0; k < 16; k++) ok = ok && v[i * 16 + k] == v_byte(r, k);
                break;
            case C_F3:
                for (int k = 0; k < 3; k++) ok = ok && v[i * 3 + k] == v_byte(r, k);
                break;
            case C_O64: {
                const uint8_t *bits = ch->buffers[0];
                bool valid = !bits || (bits[i / 8] >> (i % 8)) & 1;
                ok = valid == !o64_null(r) &&
                     (!valid || ((const int64_t *)(const void *)v)[i] == v_i64(r) + 1);
                break;
            }
            default: {
                const int32_t *o = ch->buffers[1];
                char want[16];
                int len = snprintf(want, sizeof want, "s%d", (int)(r % 100000));
                ok = o[i + 1] - o[i] == len && memcmp(v + o[i], want, (size_t)len) == 0;
                break;
            }
            }
            if (!ok) {
                CHECK_MSG(ok, "column %d row %lld", c, (long long)r);
                break;
            }
        }
    }
}

#define MAX_BATCHES 64

/* Streams the whole file; keeps the arrays in out (released by the caller).
 * Batches must end at page boundaries when expect_pages. */
static int stream_all(plank_reader *r, const plank_arrow_options *o, struct ArrowArray *out,
                      int64_t *starts, const uint8_t *mem, size_t size, int64_t zc[NCOL],
                      bool expect_pages) {
    struct ArrowArrayStream s;
    plank_error e;
    plank_status st = plank_reader_arrow_stream(r, NULL, 0, o, &s, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st != PLANK_OK) return 0;
    int n = 0;
    int64_t row = 0;
    for (;;) {
        struct ArrowArray a;
        int rc = s.get_next(&s, &a);
        CHECK_MSG(rc == 0, "%s", s.get_last_error(&s));
        if (rc != 0 || !a.release) break;
        if (expect_pages) {
            int64_t in_rg = row < RG_ROWS ? row : row - RG_ROWS;
            CHECK_MSG(in_rg % PAGE_ROWS == 0 && a.length <= PAGE_ROWS, "batch at row %lld of %lld",
                      (long long)row, (long long)a.length);
        }
        check_batch(&a, row, mem, size, zc);
        row += a.length;
        if (n < MAX_BATCHES) {
            starts[n] = row - a.length;
            out[n++] = a;
        } else {
            a.release(&a);
        }
    }
    CHECK_EQ_I64(row, ROWS);
    s.release(&s);
    return n;
}

/* Checks kept arrays again (after their stream and reader are gone) and
 * releases them. */
static void recheck_release(struct ArrowArray *a, const int64_t *starts, int n) {
    int64_t zc[NCOL] = {0};
    for (int i = 0; i < n; i++) {
        check_batch(&a[i], starts[i], NULL, 0, zc);
        a[i].release(&a[i]);
    }
}

/* Memory reader over the file at base + shift, borrow_memory on: exact
 * zero-copy counts over the 8 shifts. */
static void test_memory_shifts(const uint8_t *file, size_t size) {
    uint8_t *raw = malloc(size + 64 + 8);
    uint8_t *base = (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    int64_t zc[NCOL] = {0};
    int batches = 0;
    for (int shift = 0; shift < 8; shift++) {
        uint8_t *mem = base + shift;
        memcpy(mem, file, size);
        plank_reader *r;
        plank_error e;
        plank_status st = plank_reader_open_memory(&r, mem, size, NULL, &e);
        CHECK_MSG(st == PLANK_OK, "%s", e.message);
        if (st != PLANK_OK) break;
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        o.batch_rows = 10000;
        o.borrow_memory = true;
        struct ArrowArray arr[MAX_BATCHES];
        int64_t starts[MAX_BATCHES];
        int n = stream_all(r, &o, arr, starts, mem, size, zc, true);
        batches = n;
        plank_reader_close(r);
        /* borrow_memory: the arrays may outlive the reader (not the buffer) */
        recheck_release(arr, starts, n);
    }
    int pages = 8 + 5; /* 30000 rows: 7 pages + 1328 rows; 20000 rows: 4 pages + 3616 rows */
    CHECK_EQ_I64(batches, pages);
    CHECK_EQ_I64(zc[C_F3], 8 * pages);       /* any alignment */
    CHECK_EQ_I64(zc[C_I32], 2 * pages);      /* 4-byte aligned at 2 of 8 shifts */
    CHECK_EQ_I64(zc[C_I64], pages);          /* 8-byte aligned at 1 of 8 shifts */
    CHECK_EQ_I64(zc[C_DBL], pages);
    CHECK_EQ_I64(zc[C_F16], pages);
    CHECK_EQ_I64(zc[C_O64], pages - 1);      /* the first page holds the nulls */
    CHECK_EQ_I64(zc[C_STR], 0);
    free(raw);
}

/* Path reader (chunks read into refcounted buffers): zero-copy arrays stay
 * valid after the stream and the reader are closed, and the allocator
 * balances once they are released. Returns the zero-copy leaf count. */
/* threads 2: the columns of each batch on plank's pool, the next batch read
 * ahead while this one is checked; its cuts and views must be the serial
 * stream's. */
static int64_t path_run(const char *path, bool zero_copy, bool expect_pages, int32_t threads) {
    th_alloc ta;
    plank_allocator a = th_alloc_init(&ta);
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.allocator = &a;
    plank_reader *r;
    plank_error e;
    plank_status st = plank_reader_open_path(&r, path, &ro, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st != PLANK_OK) return -1;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.batch_rows = 10000;
    o.zero_copy = zero_copy;
    o.threads = threads;
    struct ArrowArray arr[MAX_BATCHES];
    int64_t starts[MAX_BATCHES];
    int64_t zc[NCOL] = {0};
    int n = stream_all(r, &o, arr, starts, NULL, 0, zc, expect_pages);
    plank_reader_close(r);
    int64_t total = 0;
    for (int c = 0; c < NCOL; c++) total += zc[c];
    if (total) CHECK(ta.live_blocks > 0); /* chunk buffers kept alive by the arrays */
    recheck_release(arr, starts, n);
    CHECK_EQ_I64(ta.live_blocks, 0);
    CHECK_EQ_I64(ta.live_bytes, 0);
    CHECK_EQ_I64(zc[C_STR], 0);
    return total;
}

/* A memory reader without borrow_memory, or zero_copy off: every array is
 * a copy (check_batch fails on any pointer into the file's bytes). */
static void test_memory_copies(const uint8_t *file, size_t size, bool borrow, bool zero_copy) {
    plank_reader *r;
    plank_error e;
    plank_status st = plank_reader_open_memory(&r, file, size, NULL, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st != PLANK_OK) return;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.batch_rows = 10000;
    o.borrow_memory = borrow;
    o.zero_copy = zero_copy;
    struct ArrowArray arr[MAX_BATCHES];
    int64_t starts[MAX_BATCHES];
    int64_t zc[NCOL] = {0};
    int n = stream_all(r, &o, arr, starts, file, size, zc, false);
    plank_reader_close(r);
    for (int c = 0; c < NCOL; c++) CHECK_EQ_I64(zc[c], 0);
    recheck_release(arr, starts, n);
}

static const char *conf_path(const char *name) {
    snprintf(g_path, sizeof g_path, "%s/%s.parquet", g_dir, name);
    return g_path;
}

/* ---- Views of struct leaves through a sliding read window ------------------------------
 *
 * Leaves inside a struct are assembled from pending buffers, whose values
 * may stay a view into the chunk's bytes across reads (pk_leaf_buf.view).
 * With pages of different row counts (8 000-byte pages: 1 000 rows of a,
 * 2 000 of b), a batch cut at one leaf's page end leaves the other's view
 * pending while its column reader moves to the next page. A column reader
 * reading through a small window (read_window) then reuses the window's
 * buffer unless the pending view holds it: the values must still be the
 * written ones, in every batch, also after the stream and the reader are
 * closed, and the arrays must hold the only references left. */
#define SV_ROWS 20000
static int64_t sv_a(int64_t r) { return r * 7919 - 3; }
static int32_t sv_b(int64_t r) { return (int32_t)(r * 31 + 11); }
static uint8_t sv_c(int64_t r, int k) { return (uint8_t)(r * 13 + k * 101); }

static bool sv_write(const char *path) {
    plank_schema_field f[5];
    for (int i = 0; i < 5; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 1;
    f[1].name = "s";
    f[1].num_children = 3;
    f[2].name = "a";
    f[2].physical_type = PLANK_INT64;
    f[3].name = "b";
    f[3].physical_type = PLANK_INT32;
    f[4].name = "c";
    f[4].physical_type = PLANK_FIXED_LEN_BYTE_ARRAY;
    f[4].type_length = 3;
    plank_column_options co[3];
    const char *paths[3] = {"s.a", "s.b", "s.c"};
    for (int c = 0; c < 3; c++) {
        plank_column_options_init(&co[c]);
        co[c].path = paths[c];
        co[c].encoding = PLANK_ENC_PLAIN;
    }
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.codec = PLANK_CODEC_UNCOMPRESSED;
    o.dictionary = false;
    o.page_size = 8000;
    o.page_rows = SV_ROWS;
    o.row_group_rows = SV_ROWS;
    o.columns = co;
    o.num_column_options = 3;
    plank_writer *w;
    plank_error e;
    plank_status st = plank_writer_open_path(&w, path, f, 5, &o, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st != PLANK_OK) return false;
    int64_t *a = malloc(SV_ROWS * 8);
    int32_t *b = malloc(SV_ROWS * 4);
    uint8_t *cv = malloc(SV_ROWS * 3);
    for (int64_t r = 0; r < SV_ROWS; r++) {
        a[r] = sv_a(r);
        b[r] = sv_b(r);
        for (int k = 0; k < 3; k++) cv[r * 3 + k] = sv_c(r, k);
    }
    plank_batch bt[3];
    memset(bt, 0, sizeof bt);
    for (int c = 0; c < 3; c++) {
        bt[c].struct_size = sizeof bt[c];
        bt[c].length = SV_ROWS;
    }
    bt[0].values = a;
    bt[1].values = b;
    bt[2].values = cv;
    st = plank_writer_write_rows(w, bt, SV_ROWS, &e);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    if (st == PLANK_OK) st = plank_writer_close(w, &e);
    else plank_writer_abort(w);
    CHECK_MSG(st == PLANK_OK, "%s", e.message);
    free(a);
    free(b);
    free(cv);
    return st == PLANK_OK;
}

/* Checks one batch (rows row0...) of struct s; counts zero-copy leaves. */
static void sv_check(const struct ArrowArray *arr, int64_t row0, int64_t *zc) {
    CHECK_EQ_I64(arr->n_children, 1);
    if (arr->n_children != 1) return;
    const struct ArrowArray *st = arr->children[0];
    CHECK_EQ_I64(st->n_children, 3);
    if (st->n_children != 3) return;
    const int64_t *a = st->children[0]->buffers[1];
    const int32_t *b = st->children[1]->buffers[1];
    const uint8_t *c = st->children[2]->buffers[1];
    for (int k = 0; k < 3; k++) *zc += pk_arrow_array_borrows(st->children[k]);
    int64_t bad = 0;
    for (int64_t i = 0; i < arr->length; i++)
        bad += a[i] != sv_a(row0 + i) || b[i] != sv_b(row0 + i) ||
               c[i * 3] != sv_c(row0 + i, 0) || c[i * 3 + 2] != sv_c(row0 + i, 2);
    CHECK_MSG(bad == 0, "batch at row %lld: %lld rows differ from the written ones",
              (long long)row0, (long long)bad);
}

static void test_struct_views_window(void) {
    const char *p = conf_path("struct");
    if (!sv_write(p)) return;
    static const uint64_t windows[] = {1, 4096, 20000, 0};
    static const int64_t batches[] = {1500, 1111, 777, 4000, 333, 2500};
    for (size_t k = 0; k < sizeof windows / sizeof windows[0] * 6; k++) {
        size_t wi = k / 6;
        th_alloc ta;
        plank_allocator al = th_alloc_init(&ta);
        plank_reader_options ro;
        plank_reader_options_init(&ro);
        ro.allocator = &al;
        ro.read_window = windows[wi];
        plank_reader *r;
        plank_error e;
        plank_status st = plank_reader_open_path(&r, p, &ro, &e);
        CHECK_MSG(st == PLANK_OK, "%s", e.message);
        if (st != PLANK_OK) continue;
        plank_arrow_options o;
        plank_arrow_options_init(&o);
        o.batch_rows = batches[k % 6];
        o.threads = 1;
        struct ArrowArrayStream s;
        st = plank_reader_arrow_stream(r, NULL, 0, &o, &s, &e);
        CHECK_MSG(st == PLANK_OK, "%s", e.message);
        enum { SV_MAX = 128 };
        struct ArrowArray kept[SV_MAX];
        int64_t starts[SV_MAX];
        int n = 0;
        int64_t row = 0, zc = 0;
        while (st == PLANK_OK) {
            struct ArrowArray a;
            int rc = s.get_next(&s, &a);
            CHECK_MSG(rc == 0, "%s", s.get_last_error(&s));
            if (rc != 0 || !a.release) break;
            sv_check(&a, row, &zc);
            starts[n] = row;
            row += a.length;
            if (n < SV_MAX) kept[n++] = a;
            else a.release(&a);
        }
        CHECK_EQ_I64(row, SV_ROWS);
        CHECK_MSG(zc > 0, "window %llu: no zero-copy struct leaf", (unsigned long long)windows[wi]);
        if (st == PLANK_OK) s.release(&s);
        plank_reader_close(r);
        int64_t zc2 = 0;
        for (int i = 0; i < n; i++) {
            sv_check(&kept[i], starts[i], &zc2);
            kept[i].release(&kept[i]);
        }
        CHECK_EQ_I64(ta.live_blocks, 0);
    }
    remove(p);
}

int main(void) {
    if (!mkdtemp(g_dir)) TEST_SKIP("mkdtemp failed");
    /* PLAIN, uncompressed, v1 */
    wconf plain = {PLANK_CODEC_UNCOMPRESSED, false, 1};
    const char *p = conf_path("plain");
    if (write_file(p, &plain)) {
        size_t size;
        uint8_t *file = th_read_file(p, &size);
        CHECK(file != NULL);
        if (file) {
            test_memory_shifts(file, size);
            test_memory_copies(file, size, false, true);
            test_memory_copies(file, size, true, false);
            free(file);
        }
        int64_t views = path_run(p, true, true, 1);
        CHECK(views > 0);
        CHECK_EQ_I64(path_run(p, true, true, 2), views);
        CHECK_EQ_I64(path_run(p, false, false, 1), 0);
        remove(p);
    }
    /* v2 pages, uncompressed: still zero copy (levels are outside the values) */
    wconf v2 = {PLANK_CODEC_UNCOMPRESSED, false, 2};
    p = conf_path("v2");
    if (write_file(p, &v2)) {
        CHECK(path_run(p, true, true, 1) > 0);
        remove(p);
    }
    /* Dictionary pages: never zero copy. */
    wconf dict = {PLANK_CODEC_UNCOMPRESSED, true, 1};
    p = conf_path("dict");
    g_mod = 100;
    if (write_file(p, &dict)) {
        plank_reader *r;
        plank_error e;
        if (plank_reader_open_path(&r, p, NULL, &e) == PLANK_OK) {
            for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++)
                for (int32_t c = 0; c < NCOL; c++) {
                    plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
                    CHECK(plank_reader_column_chunk(r, g, c, &cc, &e) == PLANK_OK);
                    CHECK_MSG(cc.dictionary_page_offset >= 0, "column %d has no dictionary",
                              (int)c);
                }
            plank_reader_close(r);
        }
        CHECK_EQ_I64(path_run(p, true, false, 1), 0);
        remove(p);
    }
    g_mod = ROWS;
    /* Compressed chunks: never zero copy. */
    if (plank_codec_writable(PLANK_CODEC_SNAPPY) || plank_codec_writable(PLANK_CODEC_ZSTD)) {
        wconf comp = {plank_codec_writable(PLANK_CODEC_SNAPPY) ? PLANK_CODEC_SNAPPY
                                                                 : PLANK_CODEC_ZSTD,
                      false, 1};
        p = conf_path("comp");
        if (write_file(p, &comp)) {
            CHECK_EQ_I64(path_run(p, true, false, 1), 0);
            remove(p);
        }
    }
    test_struct_views_window();
    rmdir(g_dir);
    TEST_END();
}
