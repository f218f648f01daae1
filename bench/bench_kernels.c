/*
 * bench_kernels.c: throughput of the unpack and level kernels at every
 * dispatch level this machine has (not a test; results in bench/README.md).
 *
 *   bench_kernels [unpack|levels|wide|bits]     (default: all)
 *
 * Unpack: values/s per bit width and output size, for 4096 values (in L1/L2)
 * and 8M values (out of L2), next to memcpy of the output bytes. Levels:
 * count_eq16 / sum01_16 against a plain loop accumulating into a uint64, on
 * 2048 levels and on 1..31; levels_in_range and def_to_bitmap on 2048 levels.
 * Wide: unpack64 widths 33..64 on 4096 values.
 * Bits: copy_bits, spread_bits and spread_fixed on 4096 slots next to the
 * per-value loops the column reader ran before them. Every cell is "median / best" of 15 samples
 * (31 for levels) of thread CPU time (the best is the figure to read on a machine shared with
 * other jobs); the levels of an unpack row, and the cells of a levels table, take turns sample
 * by sample, so a burst of load from another job slows them alike.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "simd/pk_kernels.h"

#define SAMPLES 15

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile uint64_t sink;

/* One measured operation; `reps` calls per sample. */
typedef struct op {
    int kind; /* 0 unpack, 1 memcpy, 2 count, 3 sum, 4 plain loop, 5 copy_bits,
                 6 spread_bits, 7 spread_fixed, 8 plain spread loop, 9 plain boolean loop,
                 10 count_eq16 AVX2 called directly (no table),
                 11 pk_count_eq16 (the inline front of the table), 12 levels_in_range,
                 13 def_to_bitmap (bit offset 3), 14 pack32, 15 rle_scan32,
                 16 minmax_i32, 17 minmax_i64, 18 delta_block64 (128 values),
                 19 minmax_f64, 20 bss_encode (width = size),
                 21 level_hist16 (max = bw), 22 the plain histogram loop,
                 23 hash_fixed32, 24 hash_fixed64, 25 hash_short (offsets in valid),
                 26 pack64, 27 compact_fixed (keep in valid, into out),
                 28 compact_bits (into out), 29 the plain compaction loop */
    const pk_kernels *k;
    int size, bw;
    const uint8_t *in;
    size_t avail;
    void *out;
    size_t n;
    const int16_t *lv;
    const uint8_t *valid; /* bits kinds: validity (offset 3), nn set bits */
    size_t nn;
} op;

/* The column reader's loops before the bitmap kernels: dense values copied
 * slot by slot, dense boolean bytes put bit by bit. */
static __attribute__((noinline)) void plain_spread(const op *o) {
    size_t w = (size_t)o->size;
    uint8_t *dst = o->out;
    for (size_t i = 0, j = 0; i < o->n; i++) {
        if (pk_bit_get(o->valid, 3 + (int64_t)i)) memcpy(dst + i * w, o->in + (j++) * w, w);
        else memset(dst + i * w, 0, w);
    }
}
static __attribute__((noinline)) void plain_bools(const op *o) {
    uint8_t *bits = o->out;
    for (size_t i = 0, j = 0; i < o->n; i++) {
        bool v = false;
        if (pk_bit_get(o->valid, 3 + (int64_t)i)) v = o->in[j++] != 0;
        pk_bit_put(bits, 3 + (int64_t)i, v);
    }
}

/* The stream's compaction before the kernels: the set bits walked one by one
 * (one value copied per kept slot). */
static __attribute__((noinline)) void plain_compact(const op *o) {
    size_t w = (size_t)o->size, k = 0;
    uint8_t *dst = o->out;
    for (size_t b = 0; b < o->n; b += 64) {
        uint64_t m = pk_load_u64(o->valid + b / 8);
        while (m) {
            size_t i = b + (size_t)__builtin_ctzll(m);
            m &= m - 1;
            memcpy(dst + (k++) * w, o->in + i * w, w);
        }
    }
}

static __attribute__((noinline)) uint64_t plain_count(const int16_t *lv, size_t n, int16_t v) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += lv[i] == v;
    return c;
}

/* The writer's histogram before level_hist16 (levels above 3). */
static __attribute__((noinline)) uint64_t plain_hist(const int16_t *lv, size_t n, int max) {
    int64_t h[64] = {0};
    for (size_t i = 0; i < n; i++) h[lv[i]]++;
    return (uint64_t)h[0] + (uint64_t)h[max];
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
    case 4: sink += plain_count(o->lv, o->n, 1); break;
    case 5: o->k->copy_bits(o->in, 5, o->out, 3, o->n); break;
    case 6: o->k->spread_bits(o->in, o->nn, o->valid, o->out, 3, o->n); break;
    case 7: o->k->spread_fixed(o->out, (size_t)o->size, o->n, o->nn, o->valid, 3); break;
    case 8: plain_spread(o); break;
#ifdef PK_KERNELS_X86
    case 10: sink += (uint64_t)pk_count_eq16_avx2(o->lv, o->n, 1); break;
#endif
    case 11: sink += (uint64_t)pk_count_eq16(o->k, o->lv, o->n, 1); break;
    case 12: sink += o->k->levels_in_range(o->lv, o->n, 1); break;
    case 13: sink += (uint64_t)o->k->def_to_bitmap(o->lv, o->n, 1, o->out, 3); break;
    case 14: o->k->pack32((const uint32_t *)(const void *)o->in, o->n, o->bw, o->out); break;
    case 15: {
        uint32_t any = 0;
        sink += o->k->rle_scan32((const uint32_t *)(const void *)o->in, o->n, &any) + any;
        break;
    }
    case 16: {
        int32_t a, b;
        o->k->minmax_i32((const int32_t *)(const void *)o->in, o->n, 0, &a, &b);
        sink += (uint64_t)(a ^ b);
        break;
    }
    case 18: {
        uint64_t d[PK_DELTA_BLOCK], mn, ors[4];
        sink += o->k->delta_block64(o->in, PK_DELTA_BLOCK, 0, d, &mn, ors) + mn + ors[0];
        break;
    }
    case 19: {
        double a = 0, b = 0;
        sink += o->k->minmax_f64((const double *)(const void *)o->in, o->n, &a, &b) + (a < b);
        break;
    }
    case 20: o->k->bss_encode(o->in, (size_t)o->size, o->n, o->n, o->out); break;
    case 21: {
        int64_t h[64] = {0};
        o->k->level_hist16(o->lv, o->n, (int16_t)o->bw, h);
        sink += (uint64_t)h[0] + (uint64_t)h[o->bw];
        break;
    }
    case 22: sink += plain_hist(o->lv, o->n, o->bw); break;
    case 27:
        sink += (uint64_t)o->k->compact_fixed(o->out, o->in, (size_t)o->size, o->valid, o->n);
        break;
    case 28: sink += (uint64_t)o->k->compact_bits(o->out, o->in, o->valid, o->n); break;
    case 29: plain_compact(o); break;
    case 26: o->k->pack64((const uint64_t *)(const void *)o->in, o->n, o->bw, o->out); break;
    case 23: o->k->hash_fixed32(o->in, o->n, o->out); break;
    case 24: o->k->hash_fixed64(o->in, o->n, o->out); break;
    case 25: {
        uint64_t *h = o->out;
        o->k->hash_short(o->in, (const int64_t *)(const void *)o->valid, o->n, h + o->n,
                         h + 2 * o->n, h);
        break;
    }
    case 17: {
        int64_t a, b;
        o->k->minmax_i64((const int64_t *)(const void *)o->in, o->n, 0, &a, &b);
        sink += (uint64_t)(a ^ b);
        break;
    }
    default: plain_bools(o); break;
    }
}

typedef struct speed {
    double median, best;
} speed;

/* Items per second of nops operations over `samples` samples of about 2 ms
 * each (items[i] per call of ops[i]). The operations take turns sample by
 * sample, so a burst of load from another job slows them alike and their
 * ratio holds. */
#define TURN_SAMPLES 31
static void rates(const op *ops, int nops, const double *items, speed *out, int samples) {
    size_t reps[8];
    double s[8][TURN_SAMPLES];
    for (int k = 0; k < nops; k++) {
        reps[k] = 1;
        for (;;) {
            double t = now();
            for (size_t r = 0; r < reps[k]; r++) run(&ops[k]);
            t = now() - t;
            if (t > 2e-3 || reps[k] > ((size_t)1 << 30)) break;
            reps[k] *= 2;
        }
    }
    for (int i = 0; i < samples; i++) {
        for (int k = 0; k < nops; k++) {
            double t = now();
            for (size_t r = 0; r < reps[k]; r++) run(&ops[k]);
            s[k][i] = items[k] * (double)reps[k] / (now() - t);
        }
    }
    for (int k = 0; k < nops; k++) {
        qsort(s[k], (size_t)samples, sizeof s[k][0], cmp_double);
        out[k] = (speed){s[k][samples / 2], s[k][samples - 1]};
    }
}

static speed rate(const op *o, double items) {
    speed v;
    rates(o, 1, &items, &v, SAMPLES);
    return v;
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
                /* The levels of a row take turns sample by sample (rates). */
                op ops[4];
                double items[4];
                speed sp[4];
                for (int t = 0; t < ntab; t++) {
                    ops[t] = (op){.kind = 0, .k = tabs[t], .size = size, .bw = bw, .in = in,
                                  .avail = maxn * 8, .out = out, .n = n};
                    items[t] = (double)n;
                }
                rates(ops, ntab, items, sp, SAMPLES);
                for (int t = 0; t < ntab; t++) cell(sp[t], 1e9);
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
    /* Every cell of a table takes turns with the others (rates). */
    op ops[8];
    double items[8];
    speed sp[8];
    int nops = 0;
    for (int kind = 2; kind <= 3; kind++)
        for (int t = 0; t < ntab; t++)
            ops[nops] = (op){.kind = kind, .k = tabs[t], .lv = lv, .n = 2048}, items[nops++] = 2048;
    ops[nops] = (op){.kind = 4, .lv = lv, .n = 2048}, items[nops++] = 2048;
    rates(ops, nops, items, sp, TURN_SAMPLES);
    printf("\n### Level counting, 2048 levels (0/1), G levels/s\n\n| kernel |");
    for (int t = 0; t < ntab; t++) printf(" %s |", pk_simd_level_name(tabs[t]->level));
    printf(" x plain loop (%s) |\n|---|", pk_simd_level_name(tabs[ntab - 1]->level));
    for (int t = 0; t <= ntab; t++) printf("---|");
    printf("\n");
    const char *names[] = {"count_eq16", "sum01_16"};
    speed plain = sp[nops - 1];
    for (int kind = 0; kind < 2; kind++) {
        printf("| %s |", names[kind]);
        for (int t = 0; t < ntab; t++) cell(sp[kind * ntab + t], 1e9);
        speed top = sp[kind * ntab + ntab - 1];
        printf(" %.1f / %.1f |\n", top.median / plain.median, top.best / plain.best);
    }
    printf("| plain loop (uint64) |");
    for (int t = 0; t < ntab; t++) cell(plain, 1e9);
    printf(" 1 |\n");
    uint8_t bits[2048 / 8 + 2];
    nops = 0;
    for (int kind = 12; kind <= 13; kind++)
        for (int t = 0; t < ntab; t++)
            ops[nops] = (op){.kind = kind, .k = tabs[t], .lv = lv, .n = 2048, .out = bits},
            items[nops++] = 2048;
    rates(ops, nops, items, sp, TURN_SAMPLES);
    const char *more[] = {"levels_in_range", "def_to_bitmap"};
    for (int kind = 0; kind < 2; kind++) {
        printf("| %s |", more[kind]);
        for (int t = 0; t < ntab; t++) cell(sp[kind * ntab + t], 1e9);
        printf(" - |\n");
    }
    printf("\n### Level counting, short inputs, M calls/s (count_eq16 at each level vs the "
           "plain loop)\n\n| n |");
    for (int t = 0; t < ntab; t++) printf(" %s |", pk_simd_level_name(tabs[t]->level));
    /* The level columns call through the table (its indirect call is part of
     * what a caller pays); "pk_count_eq16" is the inline front the library's
     * callers use (in place under 16 levels) on the top table; "direct"
     * calls the AVX2 kernel by name, as the plain loop is called. */
    bool direct = tabs[ntab - 1]->level >= PK_SIMD_AVX2;
    printf(" pk_count_eq16 |%s plain loop |\n|---|", direct ? " avx2 direct |" : "");
    for (int t = 0; t <= ntab + 1 + direct; t++) printf("---|");
    printf("\n");
    for (size_t n = 1; n <= 31; n++) {
        printf("| %zu |", n);
        nops = 0;
        for (int t = 0; t < ntab; t++)
            ops[nops] = (op){.kind = 2, .k = tabs[t], .lv = lv, .n = n}, items[nops++] = 1;
        ops[nops] = (op){.kind = 11, .k = tabs[ntab - 1], .lv = lv, .n = n}, items[nops++] = 1;
        if (direct) ops[nops] = (op){.kind = 10, .lv = lv, .n = n}, items[nops++] = 1;
        ops[nops] = (op){.kind = 4, .lv = lv, .n = n}, items[nops++] = 1;
        rates(ops, nops, items, sp, TURN_SAMPLES);
        for (int k = 0; k < nops; k++) cell(sp[k], 1e6);
        printf("\n");
    }
}

static void header(const char *first, const pk_kernels **tabs, int ntab, const char *last) {
    printf("| %s |", first);
    for (int t = 0; t < ntab; t++) printf(" %s |", pk_simd_level_name(tabs[t]->level));
    printf("%s\n|---|", last ? last : "");
    for (int t = 0; t < ntab + (last != NULL); t++) printf("---|");
    printf("\n");
}

static void bench_wide(const pk_kernels **tabs, int ntab) {
    size_t n = 4096;
    uint8_t *in = malloc(n * 8 + 64);
    void *out = aligned_alloc(64, n * 8);
    for (size_t i = 0; i < n * 8 + 64; i++) in[i] = (uint8_t)(i * 2654435761u >> 13);
    printf("\n### Unpack to 64-bit, widths 33..64, 4096 values (in L2), G values/s\n\n");
    header("bw", tabs, ntab, " memcpy |");
    op m = {.kind = 1, .size = 8, .in = in, .out = out, .n = n};
    speed mc = rate(&m, (double)n);
    for (int bw = 33; bw <= 64; bw++) {
        printf("| %d |", bw);
        op ops[4];
        double items[4];
        speed sp[4];
        for (int t = 0; t < ntab; t++) {
            ops[t] = (op){.kind = 0, .k = tabs[t], .size = 8, .bw = bw, .in = in,
                          .avail = n * 8 + 64, .out = out, .n = n};
            items[t] = (double)n;
        }
        rates(ops, ntab, items, sp, SAMPLES);
        for (int t = 0; t < ntab; t++) cell(sp[t], 1e9);
        cell(mc, 1e9);
        printf("\n");
    }
    free(in);
    free(out);
}

static void bench_bits(const pk_kernels **tabs, int ntab) {
    size_t n = 4096;
    uint8_t *in = malloc(n * 16), *valid = malloc(n / 8 + 16);
    void *out = aligned_alloc(64, n * 16); /* values up to 16 bytes */
    for (size_t i = 0; i < n * 16; i++) in[i] = (uint8_t)(i * 2654435761u >> 13) & 1;
    printf("\n### Bitmaps and null spreading, 4096 slots, G slots/s\n\n");
    header("kernel", tabs, ntab, " plain loop |");
    op c = {.kind = 5, .in = in, .out = out, .n = n};
    printf("| copy_bits (offsets 5 -> 3) |");
    for (int t = 0; t < ntab; t++) c.k = tabs[t], cell(rate(&c, (double)n), 1e9);
    printf(" - |\n");
    static const unsigned pcts[] = {50, 90};
    for (int pi = 0; pi < 2; pi++) {
        size_t nn = 0;
        for (size_t i = 0; i < n + 16; i++) {
            bool v = ((i * 2654435761u) >> 7) % 100 < pcts[pi];
            pk_bit_put(valid, (int64_t)i, v);
            if (i >= 3 && i < n + 3) nn += v;
        }
        printf("| spread_bits, %u%% valid |", pcts[pi]);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = 6, .k = tabs[t], .in = in, .out = out, .n = n, .valid = valid,
                    .nn = nn};
            cell(rate(&o, (double)n), 1e9);
        }
        op pb = {.kind = 9, .in = in, .out = out, .n = n, .valid = valid};
        cell(rate(&pb, (double)n), 1e9);
        printf("\n");
        static const int ws[] = {4, 8, 12};
        for (int wi = 0; wi < 3; wi++) {
            printf("| spread_fixed w %d, %u%% valid |", ws[wi], pcts[pi]);
            for (int t = 0; t < ntab; t++) {
                op o = {.kind = 7, .k = tabs[t], .size = ws[wi], .out = out, .n = n,
                        .valid = valid, .nn = nn};
                cell(rate(&o, (double)n), 1e9);
            }
            op ps = {.kind = 8, .size = ws[wi], .in = in, .out = out, .n = n, .valid = valid};
            cell(rate(&ps, (double)n), 1e9);
            printf("\n");
        }
    }
    /* Compaction by a keep bitmap (the scan's bitmap batches), out of place
     * so every call does the same work. */
    static const unsigned kpcts[] = {10, 50, 90};
    for (int pi = 0; pi < 3; pi++) {
        for (size_t i = 0; i < n + 16; i++)
            pk_bit_put(valid, (int64_t)i, ((i * 2654435761u) >> 7) % 100 < kpcts[pi]);
        static const int ws[] = {4, 8, 16};
        for (int wi = 0; wi < 3; wi++) {
            printf("| compact_fixed w %d, %u%% kept |", ws[wi], kpcts[pi]);
            for (int t = 0; t < ntab; t++) {
                op o = {.kind = 27, .k = tabs[t], .size = ws[wi], .in = in, .out = out, .n = n,
                        .valid = valid};
                cell(rate(&o, (double)n), 1e9);
            }
            op pc = {.kind = 29, .size = ws[wi], .in = in, .out = out, .n = n, .valid = valid};
            cell(rate(&pc, (double)n), 1e9);
            printf("\n");
        }
        printf("| compact_bits, %u%% kept |", kpcts[pi]);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = 28, .k = tabs[t], .in = in, .out = out, .n = n, .valid = valid};
            cell(rate(&o, (double)n), 1e9);
        }
        printf(" - |\n");
    }
    free(in);
    free(valid);
    free(out);
}

/* The writer's kernels over 4096 values (a page's dictionary indices of one
 * batch): pack32 at the widths of dictionaries of 2 to 2^20 entries, the RLE
 * group scan over values without a run, and integer page min/max. */
static void bench_encode(const pk_kernels **tabs, int ntab) {
    size_t n = 4096;
    uint32_t *in = aligned_alloc(64, n * 8);
    uint8_t *out = aligned_alloc(64, n * 4 + 64);
    printf("\n### Writer kernels, 4096 values, G values/s (median / best)\n\n");
    header("kernel", tabs, ntab, " plain loop (histograms) |");
    static const int widths[] = {1, 2, 3, 4, 6, 8, 10, 12, 16, 20};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        int bw = widths[wi];
        for (size_t i = 0; i < n; i++) in[i] = (uint32_t)(i * 2654435761u >> 7) & ((1u << bw) - 1);
        printf("| pack32 bw %d |", bw);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = 14, .k = tabs[t], .in = (const uint8_t *)in, .out = out, .n = n,
                    .bw = bw};
            cell(rate(&o, (double)n), 1e9);
        }
        printf(" - |\n");
    }
    /* pack64 at widths of wide DELTA miniblocks (4096 values of 8 bytes: in holds 2n words) */
    static const int widths64[] = {33, 40, 48, 56, 64};
    uint8_t *wide_out = aligned_alloc(64, n * 8 + 64);
    for (size_t wi = 0; wi < sizeof widths64 / sizeof widths64[0]; wi++) {
        int bw = widths64[wi];
        uint64_t *v64 = (uint64_t *)(void *)in;
        for (size_t i = 0; i < n; i++)
            v64[i] = (i * 0x9E3779B97F4A7C15ull) >> (64 - bw);
        printf("| pack64 bw %d |", bw);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = 26, .k = tabs[t], .in = (const uint8_t *)in, .out = wide_out, .n = n,
                    .bw = bw};
            cell(rate(&o, (double)n), 1e9);
        }
        printf(" - |\n");
    }
    free(wide_out);
    for (size_t i = 0; i < 2 * n; i++) in[i] = (uint32_t)(i * 2654435761u >> 7);
    static const char *names[] = {"rle_scan32 (no run)", "minmax_i32", "minmax_i64",
                                  "delta_block64 (128 values)", "minmax_f64",
                                  "bss_encode width 4", "bss_encode width 8"};
    static const int kinds[] = {15, 16, 17, 18, 19, 20, 20}, sizes[] = {0, 0, 0, 0, 0, 4, 8};
    uint8_t *wide = aligned_alloc(64, n * 8 + 64);
    for (int k = 0; k < 7; k++) {
        printf("| %s |", names[k]);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = kinds[k], .k = tabs[t], .in = (const uint8_t *)in,
                    .out = kinds[k] == 20 ? wide : out, .n = n, .size = sizes[k]};
            cell(rate(&o, k == 3 ? (double)PK_DELTA_BLOCK : (double)n), 1e9);
        }
        printf(" - |\n");
    }
    free(wide);
    /* Level histograms of a page's 4096 levels: random levels 0..max, and runs of 37. */
    int16_t *lv = aligned_alloc(64, n * 2);
    static const int maxes[] = {1, 2, 3, 5, 8, 12, 16, 24, 32};
    for (int runs = 0; runs < 2; runs++) {
        for (size_t mi = 0; mi < sizeof maxes / sizeof maxes[0]; mi++) {
            int mx = maxes[mi];
            for (size_t i = 0; i < n; i++)
                lv[i] = (int16_t)((runs ? i / 37 : (i * 2654435761u >> 11)) % (size_t)(mx + 1));
            printf("| level_hist16 max %d%s |", mx, runs ? ", runs" : "");
            for (int t = 0; t < ntab; t++) {
                op o = {.kind = 21, .k = tabs[t], .lv = lv, .n = n, .bw = mx};
                cell(rate(&o, (double)n), 1e9);
            }
            op p = {.kind = 22, .lv = lv, .n = n, .bw = mx};
            cell(rate(&p, (double)n), 1e9);
            printf("\n");
        }
    }
    free(lv);
    /* The dictionary's hashes of 4096 values: 4- and 8-byte values, and strings of 1 to
     * 16 bytes (words and hash per string). */
    uint64_t *hv = aligned_alloc(64, n * 3 * 8);
    int64_t *so = aligned_alloc(64, (n + 8) * 8);
    uint8_t *text = aligned_alloc(64, n * 16 + 64);
    for (size_t i = 0; i < n * 16 + 64; i++) text[i] = (uint8_t)('a' + (i * 7) % 26);
    so[0] = 0;
    for (size_t i = 0; i < n; i++) so[i + 1] = so[i] + 1 + (int64_t)((i * 2654435761u >> 9) % 16);
    static const char *hnames[] = {"hash_fixed32", "hash_fixed64", "hash_short (1-16 bytes)"};
    for (int h = 0; h < 3; h++) {
        printf("| %s |", hnames[h]);
        for (int t = 0; t < ntab; t++) {
            op o = {.kind = 23 + h, .k = tabs[t], .in = h == 2 ? text : (const uint8_t *)in,
                    .out = hv, .n = n, .valid = (const uint8_t *)so};
            cell(rate(&o, (double)n), 1e9);
        }
        printf(" - |\n");
    }
    free(hv);
    free(so);
    free(text);
    free(in);
    free(out);
}

int main(int argc, char **argv) {
    const pk_kernels *tabs[4];
    int ntab = pk_kernels_available(tabs);
    const char *what = argc > 1 ? argv[1] : "all";
    bool all = strcmp(what, "all") == 0;
    if (all || strcmp(what, "unpack") == 0) bench_unpack(tabs, ntab);
    if (all || strcmp(what, "levels") == 0) bench_levels(tabs, ntab);
    if (all || strcmp(what, "wide") == 0) bench_wide(tabs, ntab);
    if (all || strcmp(what, "bits") == 0) bench_bits(tabs, ntab);
    if (all || strcmp(what, "encode") == 0) bench_encode(tabs, ntab);
    return 0;
}
