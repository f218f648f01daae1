/*
 * bench_physical.c FILE [REPEAT]: the physical limit of a full read of a
 * Parquet file, what no reader that materialises the decoded columns can
 * beat by much: for every column chunk, read its bytes (pread into a
 * buffer, as plank's column reader does), walk its page headers, decompress
 * every page and memcpy the decompressed page bytes once into a destination
 * buffer. "Decompress plus one memcpy of the decoded bytes": no level or
 * value decoding, no dictionary gather, no output layout.
 *
 * Uncompressed pages (and v2 pages flagged not compressed) are only copied;
 * the levels of v2 pages, stored outside the compressed part, are copied
 * with the rest. Each repeat opens the file (footer decoded, as `plank bench
 * read` does) and closes it; the time is CLOCK_MONOTONIC around the whole
 * repeat. Buffers (chunk, decompressed page, destination) are kept across
 * chunks and repeats, so only the first chunk pays their page faults.
 *
 * Prints one JSON line: rows, pages, compressed_bytes (page bodies read),
 * decompressed_bytes (bytes copied to the destination, per repeat),
 * median_seconds, min_seconds, max_seconds and a checksum of sampled bytes
 * of the destination (so the copies cannot be optimised away).
 *
 * Build: the bench_physical CMake target (tests/CMakeLists.txt), next to
 * bench_decode. Uses internal headers (the page header reader and the codec)
 * read-only. bench/run_arrow_read.sh runs it with REPEAT 1, once per round.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "codec/pk_codec.h"
#include "thrift/pk_thrift.h"

typedef struct physical {
    int fd;
    pk_decompressor dec;
    pk_buffer chunk;   /* the column chunk's bytes */
    pk_buffer page;    /* one decompressed page */
    pk_buffer dst;     /* the destination: every page of a chunk, decompressed */
    uint64_t pages, compressed, decompressed, checksum;
} physical;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char *file, const char *what, const plank_error *err) {
    fprintf(stderr, "bench_physical: %s: %s%s%s\n", file, what, err ? ": " : "",
            err ? err->message : "");
    return 1;
}

static bool read_exact(int fd, uint8_t *p, size_t len, int64_t offset) {
    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)offset);
        if (n <= 0) return false;
        p += n;
        len -= (size_t)n;
        offset += n;
    }
    return true;
}

/* Reads one column chunk, decompresses its pages and copies them to dst. */
static int chunk_once(physical *ph, const char *file, const plank_column_chunk_info *cc,
                      plank_error *err) {
    int64_t start = cc->data_page_offset;
    if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
        start = cc->dictionary_page_offset;
    int64_t len = cc->total_compressed_size;
    if (cc->num_values == 0 || len <= 0) return 0;
    if (start < 0 || cc->total_uncompressed_size < 0) return fail(file, "bad chunk range", NULL);
    if (pk_buffer_resize(&ph->chunk, (size_t)len, err) != PLANK_OK ||
        pk_buffer_reserve(&ph->dst, (size_t)cc->total_uncompressed_size, err) != PLANK_OK)
        return fail(file, "out of memory", err);
    if (!read_exact(ph->fd, ph->chunk.data, (size_t)len, start))
        return fail(file, "cannot read a column chunk", NULL);

    const uint8_t *buf = ph->chunk.data;
    size_t pos = 0, n = (size_t)len, out = 0;
    while (pos < n) {
        pk_page_header h;
        size_t hl = 0;
        if (pk_thrift_read_page_header(buf + pos, n - pos, &h, &hl, err) != PLANK_OK)
            return fail(file, "page header", err);
        pos += hl;
        if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
            (size_t)h.compressed_page_size > n - pos)
            return fail(file, "page sizes outside the chunk", NULL);
        const uint8_t *body = buf + pos;
        size_t clen = (size_t)h.compressed_page_size, ulen = (size_t)h.uncompressed_page_size;
        pos += clen;
        /* v2 pages keep their levels uncompressed in front of the values. */
        size_t levels = 0;
        if (h.type == PLANK_PAGE_DATA_V2 && h.has_data_header_v2) {
            if (h.repetition_levels_byte_length < 0 || h.definition_levels_byte_length < 0)
                return fail(file, "negative level lengths", NULL);
            levels = (size_t)h.repetition_levels_byte_length +
                     (size_t)h.definition_levels_byte_length;
            if (levels > clen || levels > ulen) return fail(file, "levels past the page", NULL);
        }
        bool compressed = cc->codec != PLANK_CODEC_UNCOMPRESSED &&
                          !(h.type == PLANK_PAGE_DATA_V2 && !h.is_compressed);
        if (out + ulen > ph->dst.capacity &&
            pk_buffer_reserve(&ph->dst, out + ulen, err) != PLANK_OK)
            return fail(file, "out of memory", err);
        uint8_t *d = ph->dst.data + out;
        if (compressed) {
            if (pk_decompress_buffer_with(&ph->dec, cc->codec, body + levels, clen - levels,
                                          ulen - levels, &ph->page, err) != PLANK_OK)
                return fail(file, "decompress", err);
            memcpy(d, body, levels);
            memcpy(d + levels, ph->page.data, ulen - levels);
        } else {
            if (clen != ulen) return fail(file, "uncompressed page sizes differ", NULL);
            memcpy(d, body, ulen);
        }
        if (ulen) ph->checksum = ph->checksum * 31 + d[ulen - 1] + d[ulen / 2];
        out += ulen;
        ph->pages++;
        ph->compressed += clen;
    }
    ph->decompressed += out;
    return 0;
}

/* One repeat: open, every chunk of every row group, close. */
static int read_once(physical *ph, const char *file, int64_t *rows, double *secs) {
    double t0 = now_seconds();
    plank_error err;
    plank_error_init(&err);
    plank_reader *r = NULL;
    if (plank_reader_open_path(&r, file, NULL, &err) != PLANK_OK) return fail(file, "open", &err);
    ph->fd = open(file, O_RDONLY);
    int rc = ph->fd < 0 ? fail(file, "cannot open", NULL) : 0;
    int32_t groups = plank_reader_num_row_groups(r), cols = plank_reader_num_columns(r);
    for (int32_t g = 0; g < groups && rc == 0; g++) {
        for (int32_t c = 0; c < cols && rc == 0; c++) {
            plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
            if (plank_reader_column_chunk(r, g, c, &cc, &err) != PLANK_OK)
                rc = fail(file, "column chunk metadata", &err);
            else rc = chunk_once(ph, file, &cc, &err);
        }
    }
    *rows = plank_reader_num_rows(r);
    if (ph->fd >= 0) close(ph->fd);
    plank_reader_close(r);
    *secs = now_seconds() - t0;
    return rc;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_physical FILE [REPEAT]\n");
        return 2;
    }
    const char *file = argv[1];
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    if (repeat < 1) repeat = 1;
    double *t = calloc((size_t)repeat, sizeof *t);
    if (!t) return 1;
    physical ph;
    memset(&ph, 0, sizeof ph);
    pk_decompressor_init(&ph.dec, NULL);
    pk_buffer_init(&ph.chunk, NULL);
    pk_buffer_init(&ph.page, NULL);
    pk_buffer_init(&ph.dst, NULL);
    int64_t rows = 0;
    uint64_t pages = 0, compressed = 0, decompressed = 0;
    int rc = 0;
    for (int i = 0; i < repeat && rc == 0; i++) {
        ph.pages = ph.compressed = ph.decompressed = 0;
        rc = read_once(&ph, file, &rows, &t[i]);
        pages = ph.pages;
        compressed = ph.compressed;
        decompressed = ph.decompressed;
    }
    if (rc == 0) {
        qsort(t, (size_t)repeat, sizeof *t, cmp_double);
        double med = repeat % 2 ? t[repeat / 2] : (t[repeat / 2 - 1] + t[repeat / 2]) / 2;
        printf("{\"mode\":\"physical\",\"rows\":%lld,\"repeat\":%d,"
               "\"pages\":%llu,\"compressed_bytes\":%llu,\"decompressed_bytes\":%llu,"
               "\"median_seconds\":%.9f,\"min_seconds\":%.9f,\"max_seconds\":%.9f,"
               "\"checksum\":\"%016llx\"}\n",
               (long long)rows, repeat, (unsigned long long)pages,
               (unsigned long long)compressed, (unsigned long long)decompressed, med, t[0],
               t[repeat - 1], (unsigned long long)ph.checksum);
    }
    pk_buffer_reset(&ph.chunk);
    pk_buffer_reset(&ph.page);
    pk_buffer_reset(&ph.dst);
    pk_decompressor_release(&ph.dec);
    free(t);
    return rc;
}
