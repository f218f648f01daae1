/*
 * bench_decode.c: values per second of the DELTA_BINARY_PACKED,
 * dictionary-gather and BYTE_STREAM_SPLIT paths at each dispatch level this
 * machine has (reference = the per-value scalar decoder). Numbers, not a
 * test. Pages of 65536 values (output 256/512 KiB, about L2), 21 rounds of
 * a loop of at least 20 ms (DELTA and dictionary: 10 ms, the columns of a row
 * taking turns);
 * every cell is "median/best" G values/s.
 *
 * Build: the bench_decode CMake target (tests/CMakeLists.txt). Time is the
 * thread CPU time, so that a loaded machine slows the numbers less.
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "enc_ref.h"
#include "encoding/pk_delta_fast.h"
#include "encoding/pk_encoding.h"
#include "simd/pk_kernels.h"

#define N 65536

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Values/s of `op` on N values over ROUNDS rounds of >= 20 ms each:
 * result_med the median round, result_best the best. */
#define ROUNDS 21
#define MEASURE(result_med, result_best, op)                          \
    do {                                                              \
        double r_[ROUNDS];                                            \
        for (int round_ = 0; round_ < ROUNDS; round_++) {             \
            long reps_ = 0;                                           \
            double t0_ = now(), t1_;                                  \
            do {                                                      \
                op;                                                   \
                reps_++;                                              \
                t1_ = now();                                          \
            } while (t1_ - t0_ < 0.02);                               \
            r_[round_] = (double)reps_ * N / (t1_ - t0_);             \
        }                                                             \
        qsort(r_, ROUNDS, sizeof r_[0], cmp_double);                  \
        result_med = r_[ROUNDS / 2];                                  \
        result_best = r_[ROUNDS - 1];                                 \
    } while (0)

static const pk_kernels *sets[PK_SIMD_AVX512 + 2];
static const char *names[PK_SIMD_AVX512 + 2];
static int nsets;

static void delta_row(bool is64, int bw, uint8_t *out) {
    ref_rng r = {(uint64_t)bw + 1};
    uint64_t *v = malloc(sizeof(uint64_t) * N);
    uint64_t x = 0;
    for (size_t i = 0; i < N; i++) {
        v[i] = is64 ? x : (uint64_t)(int64_t)(int32_t)(uint32_t)x;
        x += ref_next(&r) & ref_mask(bw > 32 && !is64 ? 32 : bw);
    }
    ref_out o = {0};
    ref_delta_opts op = {128, 4, !is64 && bw > 32, is64, bw, false, false, false};
    ref_delta(&o, v, N, &op, &r);
    printf("DELTA INT%d bw %2d:", is64 ? 64 : 32, bw);
    /* Columns: the stream through each set, then the kernel alone (on N/32
     * contiguous groups, no block headers) of each non-reference set, then
     * the delta_sum kernel (what a bounded read pays for a run it passes
     * over) of each. The columns take turns round by round, so a burst of
     * load from another job slows all of them alike. */
    int ncol = 3 * nsets - 2;
    double r_[3 * (PK_SIMD_AVX512 + 2) - 2][ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        for (int c = 0; c < ncol; c++) {
            const pk_kernels *k = sets[c < nsets ? c : c < 2 * nsets - 1 ? c - nsets + 1
                                                                         : c - 2 * nsets + 2];
            long reps = 0;
            double t0 = now(), t1;
            do {
                if (c < nsets) {
                    pk_delta_decoder d;
                    pk_delta_init(&d, o.data, o.size, is64, NULL);
                    if (is64) pk_delta_read_i64(&d, k, out, N, NULL);
                    else pk_delta_read_i32(&d, k, out, N, NULL);
                    sink += out[N - 1];
                } else if (c >= 2 * nsets - 1) {
                    uint8_t w = (uint8_t)bw;
                    sink += k->delta_sum(o.data, &w, 1, N / 32 - 1);
                } else {
                    uint8_t w = (uint8_t)bw;
                    if (is64) sink += k->delta_i64(o.data, &w, 1, N / 32 - 1, 3, 0, out);
                    else sink += k->delta_i32(o.data, &w, 1, N / 32 - 1, 3, 0, out);
                }
                reps++;
                t1 = now();
            } while (t1 - t0 < 0.01);
            r_[c][round] = (double)reps * N / (t1 - t0);
        }
    }
    for (int c = 0; c < ncol; c++) {
        qsort(r_[c], ROUNDS, sizeof r_[c][0], cmp_double);
        int set = c < nsets ? c : c < 2 * nsets - 1 ? c - nsets + 1 : c - 2 * nsets + 2;
        printf("  %s%s %5.2f/%5.2f", c < nsets ? "" : c < 2 * nsets - 1 ? "kernel-" : "sum-",
               names[set], r_[c][ROUNDS / 2] / 1e9, r_[c][ROUNDS - 1] / 1e9);
    }
    printf("\n");
    free(v);
    free(o.data);
}

static void dict_row(size_t w, int64_t count, uint8_t *out) {
    ref_rng r = {7};
    uint8_t *dict = malloc((size_t)count * w);
    for (size_t i = 0; i < (size_t)count * w; i++) dict[i] = (uint8_t)ref_next(&r);
    uint32_t *idx = malloc(sizeof(uint32_t) * N);
    for (size_t i = 0; i < N; i++) idx[i] = (uint32_t)ref_below(&r, (uint64_t)count);
    printf("dict gather %zu-byte, %6lld entries:", w, (long long)count);
    /* The levels take turns round by round, as in delta_row. */
    double r_[PK_SIMD_AVX512 + 2][ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        for (int s = 1; s < nsets; s++) {
            long reps = 0;
            double t0 = now(), t1;
            do {
                for (size_t i = 0; i < N; i += 512) {
                    if (w == 4) sets[s]->dict_gather32(dict, count, idx + i, 512, out + i * w);
                    else sets[s]->dict_gather64(dict, count, idx + i, 512, out + i * w);
                }
                sink += out[0];
                reps++;
                t1 = now();
            } while (t1 - t0 < 0.01);
            r_[s][round] = (double)reps * N / (t1 - t0);
        }
    }
    for (int s = 1; s < nsets; s++) {
        qsort(r_[s], ROUNDS, sizeof r_[s][0], cmp_double);
        printf("  %s %5.2f/%5.2f G/s", names[s], r_[s][ROUNDS / 2] / 1e9, r_[s][ROUNDS - 1] / 1e9);
    }
    printf("\n");
    free(dict);
    free(idx);
}

static void bss_row(size_t w, uint8_t *out) {
    /* A stride that is not a power of two: with 65536 every stream would map
     * to the same L1 sets (real pages have arbitrary value counts). */
    size_t stride = N + 67;
    uint8_t *src = malloc(stride * w);
    for (size_t i = 0; i < stride * w; i++) src[i] = (uint8_t)(i * 131);
    printf("BYTE_STREAM_SPLIT %zu-byte:", w);
    double mc, mc_med;
    MEASURE(mc_med, mc, { memcpy(out, src, N * w); sink += out[5]; });
    for (int s = 1; s < nsets; s++) {
        double vps, med;
        MEASURE(med, vps, { sets[s]->bss_decode(src, stride, w, N, out); sink += out[7]; });
        printf("  %s %5.2f/%5.2f G/s", names[s], med / 1e9, vps / 1e9);
    }
    printf("  (memcpy %5.2f/%5.2f G values/s)\n", mc_med / 1e9, mc / 1e9);
    free(src);
}

int main(int argc, char **argv) {
    /* "bench_decode delta [32|64 [bw]]": the DELTA rows only (of one type,
     * one width), e.g. to measure a row again alone. */
    bool delta_only = argc > 1 && strcmp(argv[1], "delta") == 0;
    int only_type = delta_only && argc > 2 ? atoi(argv[2]) : 0;
    int only_bw = delta_only && argc > 3 ? atoi(argv[3]) : -1;
    pk_cpu cpu;
    pk_cpu_detect(&cpu);
    sets[nsets] = NULL;
    names[nsets++] = "reference";
    /* The table of every level this machine has (scalar first). */
    int ntab = pk_kernels_available(sets + 1);
    for (int t = 0; t < ntab; t++) names[nsets++] = pk_simd_level_name(sets[t + 1]->level);
    printf("detected %s, using up to %s (values per second; DELTA: blocks of 128, "
           "4 miniblocks)\n",
           pk_simd_level_name(cpu.detected), pk_simd_level_name(cpu.level));
    uint8_t *out = malloc(N * 16);
    static const int widths[] = {0, 1, 2, 4, 8, 12, 16, 20, 24, 32, 33, 48, 64};
    for (int is64 = 0; is64 <= 1; is64++) {
        if (only_type && only_type != (is64 ? 64 : 32)) continue;
        for (size_t i = 0; i < sizeof widths / sizeof *widths; i++)
            if (only_bw < 0 || only_bw == widths[i]) delta_row(is64, widths[i], out);
    }
    if (delta_only) {
        free(out);
        return 0;
    }
    static const int64_t counts[] = {8, 16, 1000, 100000, 1000000};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        dict_row(4, counts[i], out);
        dict_row(8, counts[i], out);
    }
    bss_row(2, out);
    bss_row(4, out);
    bss_row(8, out);
    bss_row(16, out);
    free(out);
    return 0;
}
