/* test_threads.c: one open reader used by several threads at once, each
 * reading different row groups and columns through its own column readers
 * (the documented concurrency contract), and scans of the reader's row
 * groups on several threads at once (plank_scan_options.row_groups). Every
 * thread's checksums and counts must equal the single-threaded ones. CI
 * also runs this under ThreadSanitizer. */
#include <pthread.h>

#include "plank.h"
#include "tharness.h"

#define NTHREADS 4

static plank_reader *g_reader;
static uint64_t g_want[64][64];  /* [row group][column] checksums, single-threaded */

static uint64_t chunk_sum(plank_reader *r, int32_t g, int32_t c, plank_status *st) {
    uint64_t h = 0xcbf29ce484222325ULL;
    plank_error err;
    plank_column_reader *cr;
    *st = plank_column_reader_open(r, g, c, &cr, &err);
    if (*st) return 0;
    for (;;) {
        plank_batch b;
        *st = plank_column_reader_read(cr, 777, &b, &err);
        if (*st || b.length == 0) break;
        for (int64_t i = 0; i < b.length; i++) {
            bool valid = !b.validity || ((b.validity[i >> 3] >> (i & 7)) & 1);
            uint64_t v = valid;
            if (valid && b.physical_type == PLANK_BYTE_ARRAY)
                v += (uint64_t)(b.offsets[i + 1] - b.offsets[i]) * 31 + b.data[b.offsets[i]];
            else if (valid && b.value_width >= 4)
                v += *(const uint32_t *)((const uint8_t *)b.values + (size_t)i * (size_t)b.value_width);
            h = (h ^ v) * 0x100000001b3ULL;
        }
    }
    plank_column_reader_close(cr);
    return h;
}

static void *worker(void *arg) {
    intptr_t t = (intptr_t)arg;
    int32_t groups = plank_reader_num_row_groups(g_reader);
    int32_t cols = plank_reader_num_columns(g_reader);
    intptr_t bad = 0;
    for (int rep = 0; rep < 3; rep++) {
        for (int32_t k = 0; k < groups * cols; k++) {
            /* Each thread walks the chunks in a different order. */
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
static int64_t scan_rows(plank_reader *r, int32_t g) {
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

static void *scan_worker(void *arg) {
    intptr_t t = (intptr_t)arg;
    int32_t groups = plank_reader_num_row_groups(g_reader);
    intptr_t bad = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int32_t k = 0; k < groups; k++) {
            int32_t g = (int32_t)((k + t + rep) % groups);
            if (scan_rows(g_reader, g) != g_scan_want[g]) bad++;
        }
    return (void *)bad;
}

int main(void) {
    const char *dir = th_testing_dir();
    if (!dir) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    const char *files[] = {"alltypes_tiny_pages.parquet", "delta_encoding_optional_column.parquet",
                           "datapage_v2.snappy.parquet"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        if (strstr(files[f], "snappy") && !plank_codec_available(PLANK_CODEC_SNAPPY)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/data/%s", dir, files[f]);
        plank_error err;
        CHECK(plank_reader_open_path(&g_reader, path, NULL, &err) == PLANK_OK);
        if (!g_reader) continue;
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
            CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0);
        for (int t = 0; t < NTHREADS; t++) {
            void *bad;
            pthread_join(th[t], &bad);
            CHECK_MSG(bad == NULL, "%s: thread %d saw %ld wrong chunks", files[f], t, (long)(intptr_t)bad);
        }
        for (int32_t g = 0; g < groups && g < 64; g++) {
            g_scan_want[g] = scan_rows(g_reader, g);
            CHECK(g_scan_want[g] > 0);
        }
        for (intptr_t t = 0; t < NTHREADS; t++)
            CHECK(pthread_create(&th[t], NULL, scan_worker, (void *)t) == 0);
        for (int t = 0; t < NTHREADS; t++) {
            void *bad;
            pthread_join(th[t], &bad);
            CHECK_MSG(bad == NULL, "%s: scan thread %d saw %ld wrong counts", files[f], t,
                      (long)(intptr_t)bad);
        }
        plank_reader_close(g_reader);
    }
    TEST_END();
}
