/* test_faults.c: failure injection over whole reads. For a few
 * representative files (PLAIN, dictionary, many pages, DELTA, v2 + snappy,
 * BYTE_STREAM_SPLIT + zstd):
 *  - every allocation in turn fails: the read must end in
 *    PLANK_ERR_OUT_OF_MEMORY with a message, and nothing may leak;
 *  - every read callback in turn fails, or returns 0 bytes (end of data):
 *    the read must end in PLANK_ERR_IO, nothing may leak;
 *  - a source that returns one byte per call reads the same values as a
 *    memory buffer.
 * The result of each full read is a checksum over every batch buffer, so a
 * read that "succeeds" with different values is caught too. */
#include "plank.h"
#include "tharness.h"

static const char *const k_files[] = {
    "alltypes_plain.parquet",          "alltypes_dictionary.parquet",
    "alltypes_tiny_pages_plain.parquet", "delta_byte_array.parquet",
    "delta_encoding_optional_column.parquet", "datapage_v2.snappy.parquet",
    "byte_stream_split.zstd.parquet",  "rle_boolean_encoding.parquet",
};

static uint64_t mix(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Reads every column of every row group; returns the first error and a
 * checksum of the non-null values and validity. */
static plank_status read_all(plank_reader *r, uint64_t *sum, plank_error *err) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
            plank_column_reader *cr;
            plank_status st = plank_column_reader_open(&cr, r, g, c, err);
            if (st) return st;
            for (;;) {
                plank_batch b = {.struct_size = sizeof(plank_batch)};
                st = plank_column_reader_read(cr, 1000, &b, err);
                if (st || b.length == 0) break;
                for (int64_t i = 0; i < b.length; i++) {
                    bool valid = !b.validity || ((b.validity[i >> 3] >> (i & 7)) & 1);
                    h = mix(h, &valid, 1);
                    if (!valid) continue;
                    if (b.physical_type == PLANK_BYTE_ARRAY) {
                        h = mix(h, b.data + b.offsets[i], (size_t)(b.offsets[i + 1] - b.offsets[i]));
                    } else if (b.physical_type == PLANK_BOOLEAN) {
                        unsigned char v = (((const uint8_t *)b.values)[i >> 3] >> (i & 7)) & 1;
                        h = mix(h, &v, 1);
                    } else {
                        h = mix(h, (const uint8_t *)b.values + (size_t)i * (size_t)b.value_width,
                                (size_t)b.value_width);
                    }
                }
            }
            plank_column_reader_close(cr);
            if (st) return st;
        }
    }
    *sum = h;
    return PLANK_OK;
}

typedef struct src_ctx {
    const unsigned char *data;
    size_t size;
    int64_t calls;
    int64_t fail_at;     /* 1-based call that fails; 0 = never */
    bool eof_instead;    /* the failing call returns 0 bytes instead of an error */
    size_t max_chunk;    /* bytes returned per call at most (0 = all) */
} src_ctx;

static plank_status src_read(void *opaque, uint64_t off, void *buf, size_t len, size_t *got) {
    src_ctx *s = opaque;
    s->calls++;
    if (s->fail_at && s->calls == s->fail_at) {
        *got = 0;
        return s->eof_instead ? PLANK_OK : PLANK_ERR_IO;
    }
    if (s->max_chunk && len > s->max_chunk) len = s->max_chunk;
    memcpy(buf, s->data + off, len);
    *got = len;
    return PLANK_OK;
}

static void test_file(const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/data/%s", th_testing_dir(), name);
    size_t len;
    unsigned char *data = th_read_file(path, &len);
    CHECK_MSG(data != NULL, "%s", path);
    if (!data) return;
    plank_error err;
    plank_reader *r;
    uint64_t want = 0, got = 0;

    /* Reference: a memory buffer and the default allocator. */
    CHECK(plank_reader_open_memory(&r, data, len, NULL, &err) == PLANK_OK);
    CHECK_MSG(read_all(r, &want, &err) == PLANK_OK, "%s: %s", name, err.message);
    plank_reader_close(r);

    /* Count the allocations of a full read through callbacks. */
    th_alloc ta;
    plank_allocator a = th_alloc_init(&ta);
    plank_reader_options o;
    plank_reader_options_init(&o);
    o.allocator = &a;
    src_ctx s = {data, len, 0, 0, false, 0};
    plank_source src = {sizeof(plank_source), src_read, NULL, len, &s, NULL};
    CHECK(plank_reader_open_source(&r, &src, &o, &err) == PLANK_OK);
    CHECK(read_all(r, &got, &err) == PLANK_OK && got == want);
    plank_reader_close(r);
    int64_t total_allocs = ta.calls, total_reads = s.calls;
    CHECK(total_allocs > 0 && ta.live_blocks == 0 && ta.live_bytes == 0);

    /* Fail each allocation in turn. */
    int64_t oom = 0, other = 0;
    for (int64_t n = 1; n <= total_allocs; n++) {
        a = th_alloc_init(&ta);
        ta.fail_at = n;
        s.calls = 0;
        plank_status st = plank_reader_open_source(&r, &src, &o, &err);
        if (st == PLANK_OK) {
            st = read_all(r, &got, &err);
            plank_reader_close(r);
        }
        CHECK_MSG(ta.live_blocks == 0 && ta.live_bytes == 0,
                  "%s: allocation %lld failed: %lld blocks / %lld bytes leaked", name,
                  (long long)n, (long long)ta.live_blocks, (long long)ta.live_bytes);
        if (st == PLANK_ERR_OUT_OF_MEMORY) {
            oom++;
            CHECK(err.message[0] != '\0');
        } else {
            other++;
            /* Only acceptable if the failed allocation did not happen. */
            CHECK_MSG(!ta.failed && st == PLANK_OK && got == want,
                      "%s: allocation %lld failed but the read returned %s (%s)", name,
                      (long long)n, plank_status_string(st), err.message);
        }
    }
    /* Fail each source read in turn, as an error and as an early end. */
    int64_t io = 0;
    for (int eof = 0; eof < 2; eof++) {
        for (int64_t n = 1; n <= total_reads; n++) {
            a = th_alloc_init(&ta);
            s.calls = 0;
            s.fail_at = n;
            s.eof_instead = eof;
            plank_status st = plank_reader_open_source(&r, &src, &o, &err);
            if (st == PLANK_OK) {
                st = read_all(r, &got, &err);
                plank_reader_close(r);
            }
            CHECK_MSG(st == PLANK_ERR_IO, "%s: read %lld failed but got %s", name, (long long)n,
                      plank_status_string(st));
            CHECK(err.message[0] != '\0' && err.byte_offset >= 0);
            CHECK(ta.live_blocks == 0 && ta.live_bytes == 0);
            io += st == PLANK_ERR_IO;
        }
    }
    s.fail_at = 0;
    /* One byte per read call. */
    s.max_chunk = 1;
    CHECK(plank_reader_open_source(&r, &src, NULL, &err) == PLANK_OK);
    CHECK(read_all(r, &got, &err) == PLANK_OK && got == want);
    plank_reader_close(r);
    fprintf(stderr, "%-42s %4lld allocations failed in turn (%lld OOM), %3lld reads x2 -> %lld IO\n",
            name, (long long)total_allocs, (long long)oom, (long long)total_reads, (long long)io);
    (void)other;
    free(data);
}

int main(void) {
    if (!th_testing_dir()) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    for (size_t i = 0; i < sizeof k_files / sizeof k_files[0]; i++) {
        if (strstr(k_files[i], "snappy") && !plank_codec_available(PLANK_CODEC_SNAPPY)) continue;
        if (strstr(k_files[i], "zstd") && !plank_codec_available(PLANK_CODEC_ZSTD)) continue;
        test_file(k_files[i]);
    }
    TEST_END();
}
