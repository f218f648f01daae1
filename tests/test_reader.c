/* test_reader.c: the public reading API on parquet-testing files, with
 * expected values taken from DuckDB 1.5.6 (queries noted next to each) and
 * from the corpus README. */
#include <math.h>

#include "plank.h"
#include "tharness.h"

static char g_path[4096];
static const char *data_file(const char *name) {
    snprintf(g_path, sizeof g_path, "%s/data/%s", th_testing_dir(), name);
    return g_path;
}

/* Reads a whole column (all row groups) with batches of `batch` slots.
 * Returns the status of the first failure. Accumulates int64 sum of INT32/
 * INT64/BOOLEAN values, the count of non-null slots and the byte length of
 * byte arrays. */
typedef struct col_sum {
    int64_t rows, non_null, sum, bytes;
    double dsum;
} col_sum;

static plank_status sum_column(plank_reader *r, int32_t col, int64_t batch, col_sum *s,
                               plank_error *err) {
    memset(s, 0, sizeof *s);
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_column_reader *cr;
        plank_status st = plank_column_reader_open(&cr, r, g, col, err);
        if (st) return st;
        for (;;) {
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            st = plank_column_reader_read(cr, batch, &b, err);
            if (st || b.length == 0) break;
            for (int64_t i = 0; i < b.length; i++) {
                if (b.validity && !((b.validity[i >> 3] >> (i & 7)) & 1)) continue;
                s->non_null++;
                switch (b.physical_type) {
                case PLANK_BOOLEAN:
                    s->sum += (((const uint8_t *)b.values)[i >> 3] >> (i & 7)) & 1;
                    break;
                case PLANK_INT32: s->sum += ((const int32_t *)b.values)[i]; break;
                case PLANK_INT64: s->sum += ((const int64_t *)b.values)[i]; break;
                case PLANK_DOUBLE: s->dsum += ((const double *)b.values)[i]; break;
                case PLANK_FLOAT: s->dsum += ((const float *)b.values)[i]; break;
                case PLANK_BYTE_ARRAY: s->bytes += b.offsets[i + 1] - b.offsets[i]; break;
                default: break;
                }
            }
            s->rows += b.length;
        }
        plank_column_reader_close(cr);
        if (st) return st;
    }
    return PLANK_OK;
}

static void test_alltypes_plain(void) {
    plank_error err;
    plank_reader *r;
    plank_status st = plank_reader_open_path(&r, data_file("alltypes_plain.parquet"), NULL, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st) return;
    CHECK_EQ_I64(plank_reader_num_rows(r), 8);
    CHECK_EQ_I64(plank_reader_num_columns(r), 11);
    /* DuckDB: select id, bool_col, double_col, string_col from alltypes_plain */
    static const int32_t ids[8] = {4, 5, 6, 7, 2, 3, 0, 1};
    int32_t c_id = plank_reader_find_column(r, "id");
    int32_t c_bool = plank_reader_find_column(r, "bool_col");
    int32_t c_dbl = plank_reader_find_column(r, "double_col");
    int32_t c_str = plank_reader_find_column(r, "string_col");
    CHECK(c_id == 0 && c_bool == 1 && c_dbl >= 0 && c_str >= 0);
    CHECK(plank_reader_find_column(r, "no_such_column") == -1);
    plank_column_reader *cr;
    plank_batch b = {.struct_size = sizeof(plank_batch)};
    CHECK(plank_column_reader_open(&cr, r, 0, c_id, &err) == PLANK_OK);
    CHECK(plank_column_reader_read(cr, 100, &b, &err) == PLANK_OK);
    CHECK_EQ_I64(b.length, 8);
    CHECK(b.physical_type == PLANK_INT32 && b.value_width == 4);
    for (int i = 0; i < 8 && b.length == 8; i++) CHECK_EQ_I64(((const int32_t *)b.values)[i], ids[i]);
    CHECK(plank_column_reader_read(cr, 100, &b, &err) == PLANK_OK);
    CHECK_EQ_I64(b.length, 0);
    plank_column_reader_close(cr);

    CHECK(plank_column_reader_open(&cr, r, 0, c_bool, &err) == PLANK_OK);
    CHECK(plank_column_reader_read(cr, 3, &b, &err) == PLANK_OK); /* odd batch sizes */
    CHECK_EQ_I64(b.length, 3);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I64((((const uint8_t *)b.values)[0] >> i) & 1, i % 2 == 0);
    plank_column_reader_close(cr);

    CHECK(plank_column_reader_open(&cr, r, 0, c_dbl, &err) == PLANK_OK);
    CHECK(plank_column_reader_read(cr, 8, &b, &err) == PLANK_OK);
    for (int i = 0; i < 8; i++)
        CHECK(((const double *)b.values)[i] == (i % 2 ? 10.1 : 0.0));
    plank_column_reader_close(cr);

    CHECK(plank_column_reader_open(&cr, r, 0, c_str, &err) == PLANK_OK);
    CHECK(plank_column_reader_read(cr, 8, &b, &err) == PLANK_OK);
    CHECK(b.offsets && b.offsets[0] == 0 && b.offsets[8] == 8);
    for (int i = 0; i < 8; i++) CHECK(b.data[b.offsets[i]] == (i % 2 ? '1' : '0'));
    plank_column_reader_close(cr);

    const plank_schema_node *root = plank_reader_schema_node(r, 0);
    CHECK(root && root->num_children == 11 && root->parent == -1);
    const plank_schema_node *n = plank_reader_column_node(r, c_id);
    CHECK(n && strcmp(n->name, "id") == 0 && n->physical_type == PLANK_INT32 &&
          n->repetition == PLANK_OPTIONAL && n->max_definition_level == 1);
    plank_reader_close(r);
}

/* The same file through memory and through callbacks gives the same sums. */
typedef struct cb_ctx {
    const unsigned char *data;
    int closed;
} cb_ctx;
/* Returns at most 1000 bytes per call: plank must ask again for the rest. */
static plank_status cb_read(void *opaque, uint64_t off, void *buf, size_t len, size_t *got) {
    cb_ctx *c = opaque;
    if (len > 1000) len = 1000;
    memcpy(buf, c->data + off, len);
    *got = len;
    return PLANK_OK;
}
static void cb_close(void *opaque) { ((cb_ctx *)opaque)->closed++; }

static void test_sources_and_tiny_pages(void) {
    size_t len;
    unsigned char *buf = th_read_file(data_file("alltypes_tiny_pages.parquet"), &len);
    CHECK(buf != NULL);
    if (!buf) return;
    plank_error err;
    plank_reader *rm, *rc, *rp;
    cb_ctx ctx = {buf, 0};
    plank_source src = {sizeof(plank_source), cb_read, cb_close, len, &ctx, NULL};
    CHECK(plank_reader_open_memory(&rm, buf, len, NULL, &err) == PLANK_OK);
    CHECK(plank_reader_open_source(&rc, &src, NULL, &err) == PLANK_OK);
    CHECK(plank_reader_open_path(&rp, data_file("alltypes_tiny_pages.parquet"), NULL, &err) ==
          PLANK_OK);
    /* DuckDB: select count(*), sum(id), sum(int_col), count(string_col),
     * sum(length(string_col)) -> 7300, 26641350, 32850, 7300, 7300 */
    plank_reader *rs[3] = {rm, rc, rp};
    for (int k = 0; k < 3; k++) {
        col_sum s;
        int64_t batches[3] = {1, 97, 100000};
        CHECK(sum_column(rs[k], plank_reader_find_column(rs[k], "id"), batches[k], &s, &err) ==
              PLANK_OK);
        CHECK_EQ_I64(s.rows, 7300);
        CHECK_EQ_I64(s.sum, 26641350);
        CHECK(sum_column(rs[k], plank_reader_find_column(rs[k], "int_col"), 1000, &s, &err) ==
              PLANK_OK);
        CHECK_EQ_I64(s.sum, 32850);
        CHECK(sum_column(rs[k], plank_reader_find_column(rs[k], "string_col"), 333, &s, &err) ==
              PLANK_OK);
        CHECK_EQ_I64(s.non_null, 7300);
        CHECK_EQ_I64(s.bytes, 7300);
    }
    /* Skipping: read with skips interleaved and compare with the full read. */
    int32_t ncols = plank_reader_num_columns(rm);
    for (int32_t c = 0; c < ncols; c++) {
        plank_column_reader *full, *part;
        CHECK(plank_column_reader_open(&full, rm, 0, c, &err) == PLANK_OK);
        CHECK(plank_column_reader_open(&part, rm, 0, c, &err) == PLANK_OK);
        plank_batch fb = {.struct_size = sizeof fb}, pb = {.struct_size = sizeof pb};
        CHECK(plank_column_reader_read(full, 1 << 20, &fb, &err) == PLANK_OK);
        int64_t pos = 0, step = 1;
        while (pos < fb.length) {
            int64_t skipped;
            CHECK(plank_column_reader_skip(part, step * 7, &skipped, &err) == PLANK_OK);
            pos += skipped;
            CHECK(plank_column_reader_read(part, step, &pb, &err) == PLANK_OK);
            if (pb.length == 0) break;
            for (int64_t i = 0; i < pb.length; i++) {
                int64_t j = pos + i;
                bool fv = !fb.validity || ((fb.validity[j >> 3] >> (j & 7)) & 1);
                bool pv = !pb.validity || ((pb.validity[i >> 3] >> (i & 7)) & 1);
                CHECK(fv == pv);
                if (!fv) continue;
                if (fb.physical_type == PLANK_BYTE_ARRAY) {
                    int64_t fl = fb.offsets[j + 1] - fb.offsets[j];
                    int64_t pl = pb.offsets[i + 1] - pb.offsets[i];
                    CHECK(fl == pl &&
                          memcmp(fb.data + fb.offsets[j], pb.data + pb.offsets[i], (size_t)fl) == 0);
                } else if (fb.physical_type == PLANK_BOOLEAN) {
                    CHECK((((const uint8_t *)fb.values)[j >> 3] >> (j & 7) & 1) ==
                          (((const uint8_t *)pb.values)[i >> 3] >> (i & 7) & 1));
                } else {
                    size_t w = (size_t)fb.value_width;
                    CHECK(memcmp((const uint8_t *)fb.values + (size_t)j * w,
                                 (const uint8_t *)pb.values + (size_t)i * w, w) == 0);
                }
            }
            pos += pb.length;
            step = step * 3 % 101 + 1;
        }
        plank_column_reader_close(full);
        plank_column_reader_close(part);
    }
    plank_reader_close(rm);
    plank_reader_close(rc);
    plank_reader_close(rp);
    CHECK_EQ_I64(ctx.closed, 1);
    free(buf);
}

static void test_checksums(void) {
    plank_error err;
    plank_reader *r;
    col_sum s;
    /* Pages with matching CRCs read with verification on. DuckDB:
     * count(*), sum(a), sum(b) -> 5120, 43118090240, 129016125440 */
    const char *good[] = {"datapage_v1-uncompressed-checksum.parquet",
                          "datapage_v1-snappy-compressed-checksum.parquet"};
    for (int k = 0; k < 2; k++) {
        CHECK(plank_reader_open_path(&r, data_file(good[k]), NULL, &err) == PLANK_OK);
        if (k == 1 && !plank_codec_available(PLANK_CODEC_SNAPPY)) {
            CHECK_EQ_I64(sum_column(r, 0, 1000, &s, &err), PLANK_ERR_UNSUPPORTED);
            CHECK(strstr(err.message, "SNAPPY") != NULL);
            plank_reader_close(r);
            continue;
        }
        CHECK_MSG(sum_column(r, 0, 1000, &s, &err) == PLANK_OK, "%s: %s", good[k], err.message);
        CHECK_EQ_I64(s.rows, 5120);
        CHECK_EQ_I64(s.sum, INT64_C(43118090240));
        CHECK(sum_column(r, 1, 1000, &s, &err) == PLANK_OK);
        CHECK_EQ_I64(s.sum, INT64_C(129016125440));
        plank_reader_close(r);
    }
    CHECK(plank_reader_open_path(&r, data_file("datapage_v1-corrupt-checksum.parquet"), NULL,
                                 &err) == PLANK_OK);
    plank_status st = sum_column(r, 0, 1000, &s, &err);
    CHECK_EQ_I64(st, PLANK_ERR_CHECKSUM);
    CHECK(err.row_group == 0 && err.column == 0 && err.page >= 0 && err.byte_offset > 0);
    CHECK(strstr(err.message, "CRC") != NULL);
    plank_reader_close(r);
    plank_reader_options o;
    plank_reader_options_init(&o);
    o.verify_checksums = false;
    CHECK(plank_reader_open_path(&r, data_file("datapage_v1-corrupt-checksum.parquet"), &o,
                                 &err) == PLANK_OK);
    /* DuckDB does not verify CRCs: on the corrupt file it reads sum(a) =
     * 43118090496, the flipped bits included. */
    CHECK(sum_column(r, 0, 1000, &s, &err) == PLANK_OK);
    CHECK_EQ_I64(s.sum, INT64_C(43118090496));
    plank_reader_close(r);
    /* The dictionary-encoded corrupt-checksum file fails on some page too. */
    CHECK(plank_reader_open_path(&r, data_file("rle-dict-uncompressed-corrupt-checksum.parquet"),
                                 NULL, &err) == PLANK_OK);
    plank_status s0 = sum_column(r, 0, 1000, &s, &err);
    plank_status s1 = sum_column(r, 1, 1000, &s, &err);
    CHECK(s0 == PLANK_ERR_CHECKSUM || s1 == PLANK_ERR_CHECKSUM);
    plank_reader_close(r);
}

static void test_special_files(void) {
    plank_error err;
    plank_reader *r;
    col_sum s;
    /* More than INT16_MAX pages in a chunk. DuckDB: count(*), sum(inc::int) -> 40000, 0 */
    CHECK(plank_reader_open_path(&r, data_file("overflow_i16_page_cnt.parquet"), NULL, &err) ==
          PLANK_OK);
    CHECK_MSG(sum_column(r, 0, 4096, &s, &err) == PLANK_OK, "%s", err.message);
    CHECK_EQ_I64(s.rows, 40000);
    CHECK_EQ_I64(s.sum, 0);
    plank_reader_close(r);
    /* dictionary_page_offset == 0. DuckDB: count(*), sum(l_partkey) -> 39, 60528 */
    CHECK_MSG(plank_reader_open_path(&r, data_file("dict-page-offset-zero.parquet"), NULL, &err) ==
                  PLANK_OK, "%s", err.message);
    if (r && !plank_codec_available(PLANK_CODEC_SNAPPY)) {
        CHECK_EQ_I64(sum_column(r, 0, 10, &s, &err), PLANK_ERR_UNSUPPORTED);
        plank_reader_close(r);
    } else if (r) {
        CHECK_MSG(sum_column(r, 0, 10, &s, &err) == PLANK_OK, "%s", err.message);
        CHECK_EQ_I64(s.rows, 39);
        CHECK_EQ_I64(s.sum, 60528);
        plank_reader_close(r);
    }
    /* Encrypted footer: a clear error at open. */
    char p[4096];
    snprintf(p, sizeof p, "%s/data/uniform_encryption.parquet.encrypted", th_testing_dir());
    CHECK_EQ_I64(plank_reader_open_path(&r, p, NULL, &err), PLANK_ERR_ENCRYPTED);
    CHECK(r == NULL && strstr(err.message, "encrypted") != NULL);
    /* Plaintext footer, encrypted columns: metadata opens, data does not. */
    snprintf(p, sizeof p, "%s/data/encrypt_columns_plaintext_footer.parquet.encrypted",
             th_testing_dir());
    CHECK(plank_reader_open_path(&r, p, NULL, &err) == PLANK_OK);
    if (r) {
        CHECK_EQ_I64(plank_reader_num_rows(r), 50);
        CHECK_EQ_I64(sum_column(r, 0, 10, &s, &err), PLANK_ERR_ENCRYPTED);
        plank_reader_close(r);
    }
    /* Column selection: unselected columns cannot be opened. */
    plank_reader_options o;
    plank_reader_options_init(&o);
    int32_t only = 1;
    o.columns = &only;
    o.num_columns = 1;
    CHECK(plank_reader_open_path(&r, data_file("alltypes_plain.parquet"), &o, &err) == PLANK_OK);
    plank_column_reader *cr = NULL;
    CHECK_EQ_I64(plank_column_reader_open(&cr, r, 0, 0, &err), PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_column_reader_open(&cr, r, 0, 1, &err) == PLANK_OK);
    plank_column_reader_close(cr);
    plank_reader_close(r);
    /* Missing file and a file that is not Parquet. */
    CHECK_EQ_I64(plank_reader_open_path(&r, "/nonexistent/x.parquet", NULL, &err), PLANK_ERR_IO);
    snprintf(p, sizeof p, "%s/data/README.md", th_testing_dir());
    CHECK_EQ_I64(plank_reader_open_path(&r, p, NULL, &err), PLANK_ERR_CORRUPT);
    CHECK(err.byte_offset >= 0 && strstr(err.message, "PAR1") != NULL);
    /* A codec this build lacks gives UNSUPPORTED; with the codec, the 1 GiB
     * page of this file is stopped by a 1 MiB max_page_size. */
    o.columns = NULL;
    o.num_columns = 0;
    o.max_page_size = 1 << 20;
    CHECK(plank_reader_open_path(&r, data_file("large_string_map.brotli.parquet"), &o, &err) ==
          PLANK_OK);
    plank_status st = sum_column(r, 0, 1000, &s, &err);
    if (plank_codec_available(PLANK_CODEC_BROTLI)) {
        CHECK_EQ_I64(st, PLANK_ERR_LIMIT);
        CHECK(strstr(err.message, "limit") != NULL);
    } else {
        CHECK_EQ_I64(st, PLANK_ERR_UNSUPPORTED);
        CHECK(strstr(err.message, "BROTLI") != NULL);
    }
    plank_reader_close(r);
}

static void test_allocator(void) {
    th_alloc c;
    plank_allocator a = th_alloc_init(&c);
    plank_reader_options o;
    plank_reader_options_init(&o);
    o.allocator = &a;
    plank_error err;
    plank_reader *r;
    CHECK(plank_reader_open_path(&r, data_file("alltypes_tiny_pages.parquet"), &o, &err) ==
          PLANK_OK);
    col_sum s;
    for (int32_t col = 0; col < plank_reader_num_columns(r); col++)
        CHECK(sum_column(r, col, 500, &s, &err) == PLANK_OK);
    plank_reader_close(r);
    CHECK(c.calls > 0);
    CHECK_EQ_I64(c.live_blocks, 0);
    CHECK_EQ_I64(c.live_bytes, 0);
}

int main(void) {
    if (!th_testing_dir()) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    test_alltypes_plain();
    test_sources_and_tiny_pages();
    test_checksums();
    test_special_files();
    test_allocator();
    TEST_END();
}
