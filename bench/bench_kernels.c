/*
 * bench_kernels.c: throughput of the unpack and level kernels at every
 * dispatch level this machine has (not a test; results in bench/README.md).
 *
 *   bench_kernels [unpack|levels]     (default: both)
 *
 * Unpack: values/s per bit width and output size, for 4096 values (in L1/L2)
 * and 8M values (out of L2), next to memcpy of the output bytes. Levels:
 * count_eq16 / sum01_16 against a plain loop accumulating into a uint64, on
 * 2048 levels and on 1..31. Every cell is "median / best" of 15 samples
 * (the best is the figure to read on a machine shared with other jobs).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "simd/pk_kernels.h"

#define SAMPLES 15

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile uint64_t sink;

/* One measured operation; `reps` calls per sample. */
typedef struct op {
    int kind; /* 0 unpack, 1 memcpy, 2 count, 3 sum, 4 plain loop */
    const pk_kernels *k;
    int size, bw;
    const uint8_t *in;
    size_t avail;
    void *out;
    size_t n;
    const int16_t *lv;
} op;

static __attribute__((noinline)) uint64_t plain_count(const int16_t *lv, size_t n, int16_t v) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += lv[i] == v;
    return c;
}

static void run(const op *o) {
    switch (o->kind) {
    case 0:
        switch (o->size) {
        case 1: o->k->unpack8(o->in, o->avail, o->out, o->n, o->bw); break;
        case 2: o->k->unpack16(o->in, o->avail, o->out, o->n, o->bw); break;
        case 4: o->k->unpack32(o->in, o->avail, o->out, o->n, o->bw); break;
        default: o->k->unpack64(o->in, o->avail, o->out, o->n, o->bw); break;
        }
        break;
    case 1: memcpy(o->out, o->in, o->n * (size_t)o->size); break;
    case 2: sink += (uint64_t)o->k->count_eq16(o->lv, o->n, 1); break;
    case 3: sink += (uint64_t)o->k->sum01_16(o->lv, o->n); break;
    default: sink += plain_count(o->lv, o->n, 1); break;
    }
}

typedef struct speed {
    double median, best;
} speed;

/* Items per second over SAMPLES samples of about 2 ms each. */
static speed rate(const op *o, double items) {
    size_t reps = 1;
    for (;;) {
        double t = now();
        for (size_t r = 0; r < reps; r++) run(o);
        t = now() - t;
        if (t > 2e-3 || reps > ((size_t)1 << 30)) break;
        reps *= 2;
    }
    double s[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        double t = now();
        for (size_t r = 0; r < reps; r++) run(o);
        s[i] = items * (double)reps / (now() - t);
    }
    qsort(s, SAMPLES, sizeof s[0], cmp_double);
    return (speed){s[SAMPLES / 2], s[SAMPLES - 1]};
}

static void cell(speed v, double scale) {
    printf(scale >= 1e9 ? " %.2f / %.2f |" : " %.0f / %.0f |", v.median / scale, v.best / scale);
}

static void bench_unpack(const pk_kernels **tabs, int ntab) {
    static const size_t counts[] = {4096, (size_t)8 << 20};
    static const int sizes[] = {4, 2, 1, 8};
    static const int maxbw[] = {32, 16, 8, 64};
    size_t maxn = counts[1];
    uint8_t *in = malloc(maxn * 8 + 64);
    void *out = aligned_alloc(64, maxn * 8);
    for (size_t i = 0; i < maxn * 8 + 64; i++) in[i] = (uint8_t)(i * 2654435761u >> 13);
    memset(out, 0, maxn * 8);
    for (int c = 0; c < 2; c++) {
        size_t n = counts[c];
        printf("\n### Unpack, %zu values (%s), G values/s\n\n", n, c ? "out of L2" : "in L2");
        for (int si = 0; si < 4; si++) {
            int size = sizes[si];
            printf("\n%d-bit output:\n\n| bw |", size * 8);
            for (int t = 0; t < ntab; t++) printf(" %s |", pk_simd_level_name(tabs[t]->level));
            printf(" memcpy |\n|---|");
            for (int t = 0; t <= ntab; t++) printf("---|");
            printf("\n");
            op m = {.kind = 1, .size = size, .in = in, .out = out, .n = n};
            speed mc = rate(&m, (double)n);
            for (int bw = 1; bw <= maxbw[si]; bw++) {
                if (size == 8 && bw % 4 && bw != 1) continue; /* 64-bit: every 4th width */
                if (c == 1 && size != 4 && bw % 4) continue;  /* out of L2: fewer rows */
                printf("| %d |", bw);
                for (int t = 0; t < ntab; t++) {
                    op o = {.kind = 0, .k = tabs[t], .size = size, .bw = bw, .in = in,
                            .avail = maxn * 8, .out = out, .n = n};
                    cell(rate(&o, (double)n), 1e9);
                }
                cell(mc, 1e9);
                printf("\n");
            }
        }
    }
    free(in);
    free(out);
}

static void bench_levels(const pk_kernels **tabs, int ntab) {
    int16_t lv[2048];
    for (int i = 0; i < 2048; i++) lv[i] = (int16_t)((i * 2654435761u >> 20) & 1);
    printf("\n### Level counting, 2048 levels (0/1), G levels/s\n\n| kernel |");
    for (int t = 0; t < ntab; t++) printf(" %s |", pk_simd_level_name(tabs[t]->level));
    printf("\n|---|");
    for (int t = 0; t < ntab; t++) printf("---|");
    printf("\n");
    const char *names[] = {"count_eq16", "sum01_16", "plain loop (uint64)"};
    for (int kind = 2; kind <= 4; kind++) {
        printf("| %s |", names[kind - 2]);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = kind, .k = tabs[t], .lv = lv, .n = 2048};
            cell(rate(&o, 2048), 1e9);
        }
        printf("\n");
    }
    printf("\n### Level counting, short inputs, M calls/s (count_eq16 at each level vs the "
           "plain loop)\n\n| n |");
    for (int t = 0; t < ntab; t++) printf(" %s |", pk_simd_level_name(tabs[t]->level));
    printf(" plain loop |\n|---|");
    for (int t = 0; t <= ntab; t++) printf("---|");
    printf("\n");
    for (size_t n = 1; n <= 31; n++) {
        printf("| %zu |", n);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = 2, .k = tabs[t], .lv = lv, .n = n};
            cell(rate(&o, 1), 1e6);
        }
        op p = {.kind = 4, .lv = lv, .n = n};
        cell(rate(&p, 1), 1e6);
        printf("\n");
    }
}

int main(int argc, char **argv) {
    const pk_kernels *tabs[4];
    int ntab = pk_kernels_available(tabs);
    const char *what = argc > 1 ? argv[1] : "all";
    if (strcmp(what, "levels") != 0) bench_unpack(tabs, ntab);
    if (strcmp(what, "unpack") != 0) bench_levels(tabs, ntab);
    return 0;
}
