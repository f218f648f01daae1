/*
 * pk_levels_scalar.c: portable level kernels (counting, range check,
 * definition levels to a validity bitmap). Written so that compilers keep
 * them in 16-bit vector lanes: counts accumulate in a uint16_t over chunks
 * of at most 0xFFFF levels (so the lane counters cannot wrap) and are folded
 * into the 64-bit total once per chunk.
 */
#include "pk_kernels.h"

#define PK_LEVEL_CHUNK 0xFFFF

int64_t pk_count_eq16_scalar(const int16_t *lv, size_t n, int16_t value) {
    int64_t total = 0;
    while (n > 0) {
        size_t m = n < PK_LEVEL_CHUNK ? n : PK_LEVEL_CHUNK;
        uint16_t c = 0;
        for (size_t i = 0; i < m; i++) c = (uint16_t)(c + (lv[i] == value));
        total += c;
        lv += m;
        n -= m;
    }
    return total;
}

int64_t pk_sum01_16_scalar(const int16_t *lv, size_t n) {
    int64_t total = 0;
    while (n > 0) {
        size_t m = n < PK_LEVEL_CHUNK ? n : PK_LEVEL_CHUNK;
        uint16_t c = 0;
        for (size_t i = 0; i < m; i++) c = (uint16_t)(c + (uint16_t)lv[i]);
        total += c;
        lv += m;
        n -= m;
    }
    return total;
}

bool pk_levels_in_range_scalar(const int16_t *lv, size_t n, int16_t max) {
    /* Negative levels compare as large unsigned values. */
    uint16_t bad = 0;
    for (size_t i = 0; i < n; i++) bad |= (uint16_t)((uint16_t)lv[i] > (uint16_t)max);
    return bad == 0;
}

int64_t pk_def_to_bitmap_scalar(const int16_t *def, size_t n, int16_t max_def, uint8_t *bits,
                                int64_t bit_offset) {
    int64_t set = 0;
    size_t i = 0;
    uint8_t *b = bits + (bit_offset >> 3);
    unsigned off = (unsigned)(bit_offset & 7);
    if (off && n) {
        /* The first, shared byte: keep its bits below the offset. */
        unsigned byte = *b & ((1u << off) - 1);
        for (; i < n && off + i < 8; i++) {
            unsigned v = def[i] == max_def;
            set += v;
            byte |= v << (off + i);
        }
        *b++ = (uint8_t)byte;
    }
    for (; i < n; i += 8) {
        size_t m = n - i < 8 ? n - i : 8;
        unsigned byte = 0;
        for (size_t j = 0; j < m; j++) byte |= (unsigned)(def[i + j] == max_def) << j;
        set += __builtin_popcount(byte);
        *b++ = (uint8_t)byte;
    }
    return set;
}

/* Levels up to this keep their counts in local sub-histograms. */
#define PK_HIST_LOCAL 64

void pk_level_hist16_scalar(const int16_t *lv, size_t n, int16_t max, int64_t *hist) {
    if (max <= 0) {
        hist[0] += (int64_t)n;
        return;
    }
    const unsigned top = (unsigned)max;
    if (top >= PK_HIST_LOCAL) {
        for (size_t i = 0; i < n; i++) {
            unsigned x = (uint16_t)lv[i];
            hist[x <= top ? x : 0]++;
        }
        return;
    }
    /* Four sub-histograms, level i in sub-histogram i % 4: a run of equal levels (the
     * usual shape) would otherwise chain every increment through one counter's store
     * and reload. uint32 counters, so chunks of at most 2^32 - 1 levels. */
    uint32_t h[4][PK_HIST_LOCAL];
    while (n > 0) {
        size_t m = n < UINT32_MAX ? n : UINT32_MAX;
        for (int s = 0; s < 4; s++) memset(h[s], 0, (top + 1) * sizeof h[s][0]);
        size_t i = 0;
        for (; i + 4 <= m; i += 4) {
            for (int s = 0; s < 4; s++) {
                unsigned x = (uint16_t)lv[i + (size_t)s];
                h[s][x <= top ? x : 0]++;
            }
        }
        for (; i < m; i++) {
            unsigned x = (uint16_t)lv[i];
            h[0][x <= top ? x : 0]++;
        }
        for (unsigned l = 0; l <= top; l++)
            hist[l] += (int64_t)h[0][l] + h[1][l] + h[2][l] + h[3][l];
        lv += m;
        n -= m;
    }
}
