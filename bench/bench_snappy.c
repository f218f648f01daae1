/*
 * bench_snappy.c: plank's SNAPPY codec (src/codec/pk_snappy.c) against
 * libsnappy on the bytes of a file, cut into pieces of a page's size.
 *
 *   bench_snappy FILE [MiB read, default 200] [piece KiB, default 1024] [rounds, default 5]
 *
 * Each round compresses every piece with both (the piece copied to the
 * same scratch first, so both start from the same cache state) and
 * decompresses each one's output with its own decoder, checking the bytes
 * come back; it prints MB/s (uncompressed bytes per second) both ways and
 * the compressed size over the input's. Not a test: bench/README.md keeps
 * the results. Without libsnappy (PLANK_WITH_SNAPPY=OFF) only plank's.
 */
#define _POSIX_C_SOURCE 200809L
#include "codec/pk_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PLANK_HAVE_SNAPPY
#include <snappy-c.h>
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_snappy FILE [MiB] [piece KiB] [rounds]\n");
        return 2;
    }
    size_t max = (size_t)(argc > 2 ? atol(argv[2]) : 200) << 20;
    size_t piece = (size_t)(argc > 3 ? atol(argv[3]) : 1024) << 10;
    int rounds = argc > 4 ? atoi(argv[4]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (!f || piece == 0) {
        fprintf(stderr, "bench_snappy: cannot open %s\n", argv[1]);
        return 1;
    }
    uint8_t *all = malloc(max);
    size_t len = fread(all, 1, max, f);
    fclose(f);
    size_t pieces = len / piece, cap = pk_snappy_bound(piece);
    if (pieces == 0) {
        fprintf(stderr, "bench_snappy: %s is shorter than one piece\n", argv[1]);
        return 1;
    }
    uint8_t *hot = malloc(piece), *z = malloc(cap), *back = malloc(piece);
    uint16_t *table = malloc(PK_SNAPPY_TABLE * sizeof *table);
    for (int r = 0; r < rounds; r++) {
        double tc = 0, td = 0, tlc = 0, tld = 0;
        size_t zn = 0, lzn = 0;
        for (size_t k = 0; k < pieces; k++) {
            const uint8_t *s = all + k * piece;
            plank_error e;
            plank_error_init(&e);
            size_t n = 0;
            memcpy(hot, s, piece);
            double t0 = now();
            if (pk_snappy_compress(hot, piece, z, cap, &n, table, &e) != PLANK_OK) return 1;
            double t1 = now();
            if (pk_snappy_decompress(z, n, back, piece, &e) != PLANK_OK ||
                memcmp(back, s, piece) != 0) {
                fprintf(stderr, "bench_snappy: piece %zu does not come back\n", k);
                return 1;
            }
            double t2 = now();
            tc += t1 - t0;
            td += t2 - t1;
            zn += n;
#ifdef PLANK_HAVE_SNAPPY
            size_t ln = cap, bn = piece;
            memcpy(hot, s, piece);
            t0 = now();
            snappy_compress((const char *)hot, piece, (char *)z, &ln);
            t1 = now();
            if (snappy_uncompress((const char *)z, ln, (char *)back, &bn) != SNAPPY_OK ||
                bn != piece || memcmp(back, s, piece) != 0)
                return 1;
            t2 = now();
            tlc += t1 - t0;
            tld += t2 - t1;
            lzn += ln;
#endif
        }
        double mb = (double)(pieces * piece) / 1e6;
        printf("%zu pieces of %zu KiB: plank compress %.0f MB/s, decompress %.0f MB/s, size %.4f",
               pieces, piece >> 10, mb / tc, mb / td, (double)zn / (double)(pieces * piece));
        if (lzn)
            printf(" | libsnappy compress %.0f MB/s, decompress %.0f MB/s, size %.4f", mb / tlc,
                   mb / tld, (double)lzn / (double)(pieces * piece));
        printf("\n");
    }
    free(table);
    free(back);
    free(z);
    free(hot);
    free(all);
    return 0;
}
