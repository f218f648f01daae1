/*
 * pk_rowsel.c: row selections as sorted ranges, built from a bitmap (what a
 * filter produces) for plank_column_reader_select and the Arrow stream.
 */
#include "pk_read.h"

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
    int64_t runs = 0;
    for (int64_t i = 0; i < num_bits;) {
        uint8_t byte = bits[i >> 3];
        if ((i & 7) == 0 && (byte == 0 || byte == 0xFF) && i + 8 <= num_bits) {
            /* whole bytes: a run starts where a set byte follows a clear bit */
            if (byte == 0xFF && (i == 0 || !pk_bit_get(bits, i - 1))) runs++;
            i += 8;
            continue;
        }
        if (pk_bit_get(bits, i) && (i == 0 || !pk_bit_get(bits, i - 1))) runs++;
        i++;
    }
    if (runs == 0) return PLANK_OK;
    plank_row_range *r = pk_malloc(a, (size_t)runs * sizeof *r);
    if (!r) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    int64_t j = 0;
    for (int64_t i = 0; i < num_bits;) {
        uint8_t byte = bits[i >> 3];
        if ((i & 7) == 0 && byte == 0 && i + 8 <= num_bits) {
            i += 8;
            continue;
        }
        if (!pk_bit_get(bits, i)) {
            i++;
            continue;
        }
        int64_t s = i;
        while (i < num_bits) {
            if ((i & 7) == 0 && i + 8 <= num_bits && bits[i >> 3] == 0xFF) {
                i += 8;
                continue;
            }
            if (!pk_bit_get(bits, i)) break;
            i++;
        }
        r[j].first = first_row + s;
        r[j].count = i - s;
        j++;
    }
    *ranges = r;
    *num_ranges = j;
    return PLANK_OK;
}

void plank_row_ranges_free(const plank_allocator *a, plank_row_range *ranges,
                           int64_t num_ranges) {
    if (ranges) pk_free(a, ranges, (size_t)num_ranges * sizeof *ranges);
}
