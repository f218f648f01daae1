/*
 * pk_rowsel.c: row selections as sorted ranges, built from a bitmap (what a
 * filter produces) for plank_column_reader_select and the Arrow stream.
 */
#include "pk_read.h"

/* Word i of the bitmap (64 bits from bit 64*i), bits past n cleared. */
static uint64_t word_at(const uint8_t *bits, int64_t n, int64_t i) {
    int64_t from = i * 64;
    uint64_t w = 0;
    if (from + 64 <= n) {
        w = pk_load_u64(bits + from / 8);
    } else {
        int64_t nbytes = (n - from + 7) / 8;
        memcpy(&w, bits + from / 8, (size_t)nbytes);
        if ((n - from) < 64) w &= ((uint64_t)1 << (n - from)) - 1;
    }
    return w;
}

/* The runs of set bits, 64 at a time: counted (out NULL) or stored (the
 * first cap of them; the count returned is every run's). */
static int64_t scan_runs(const uint8_t *bits, int64_t n, int64_t first_row,
                         plank_row_range *out, int64_t cap) {
    int64_t runs = 0, start = -1;
    int64_t nw = (n + 63) / 64;
    for (int64_t i = 0; i < nw; i++) {
        uint64_t w = word_at(bits, n, i);
        int64_t base = i * 64;
        int pos = 0;
        while (pos < 64) {
            if (start < 0) {
                uint64_t x = pos ? w >> pos : w;
                if (!x) break;
                pos += __builtin_ctzll(x);
                start = base + pos;
            } else {
                uint64_t x = pos ? ~w >> pos : ~w;
                if (!x) break; /* the run goes on into the next word */
                int k = __builtin_ctzll(x);
                if (pos + k >= 64) break;
                pos += k;
                if (out && runs < cap)
                    out[runs] = (plank_row_range){first_row + start, base + pos - start};
                runs++;
                start = -1;
            }
        }
    }
    if (start >= 0) {
        if (out && runs < cap) out[runs] = (plank_row_range){first_row + start, n - start};
        runs++;
    }
    return runs;
}

plank_status plank_row_ranges_from_bitmap(const uint8_t *bits, int64_t num_bits,
                                          int64_t first_row, const plank_allocator *a,
                                          plank_row_range **ranges, int64_t *num_ranges,
                                          plank_error *err) {
    plank_error_init(err);
    if (!ranges || !num_ranges || num_bits < 0 || first_row < 0 || (num_bits > 0 && !bits) ||
        first_row > INT64_MAX - num_bits)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    *ranges = NULL;
    *num_ranges = 0;
    /* Two passes: count the runs, then fill an array of exactly that size. */
    int64_t runs = scan_runs(bits, num_bits, first_row, NULL, 0);
    return pk_row_ranges_counted(bits, num_bits, first_row, runs, a, ranges, num_ranges, err);
}

plank_status pk_row_ranges_counted(const uint8_t *bits, int64_t n, int64_t first_row,
                                   int64_t runs, const plank_allocator *a,
                                   plank_row_range **ranges, int64_t *num_ranges,
                                   plank_error *err) {
    *ranges = NULL;
    *num_ranges = 0;
    if (runs <= 0) {
        PK_RETURN_IF(runs < 0 || scan_runs(bits, n, first_row, NULL, 0) != 0, err,
                     PLANK_ERR_INVALID_ARGUMENT, "%lld runs given for a bitmap with some",
                     (long long)runs);
        return PLANK_OK;
    }
    plank_row_range *r = pk_malloc(a, (size_t)runs * sizeof *r);
    if (!r) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    int64_t got = scan_runs(bits, n, first_row, r, runs);
    if (got != runs) {
        pk_free(a, r, (size_t)runs * sizeof *r);
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "%lld runs given for a bitmap with %lld", (long long)runs,
                            (long long)got);
    }
    *num_ranges = runs;
    *ranges = r;
    return PLANK_OK;
}

void plank_row_ranges_free(const plank_allocator *a, plank_row_range *ranges,
                           int64_t num_ranges) {
    if (ranges) pk_free(a, ranges, (size_t)num_ranges * sizeof *ranges);
}
