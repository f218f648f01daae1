/*
 * fuzz_file.c: a whole file through the public API (plank_reader_open_memory),
 * every column of every row group read to the end.
 *
 * Input: a Parquet file. When the input does not start with "PAR1", its
 * first two bytes choose the batch sizes and the skip pattern and the rest
 * is the file; an input that starts with "PAR1" (a plain file, e.g. from
 * parquet-testing) is read with batches derived from its size. The column
 * readers of a row group are interleaved, as a row-wise consumer would use
 * them; the selector bytes also give each column reader a row selection
 * (and a seek), and the Arrow stream dictionary arrays, borrowed memory and
 * a selection of rows (plank_reader_arrow_stream_rows). Checks: every failure carries its status and a message, a batch
 * never has more slots than asked, byte-array offsets are non-decreasing,
 * and the allocator sees every block freed with its own size.
 */
#include "fuzz_common.h"

/* A hostile chunk may claim billions of values: stop reading past this. */
#define MAX_SLOTS_PER_CHUNK ((int64_t)1 << 20)

static void check_batch(const plank_batch *b, int64_t asked) {
    if (b->length < 0 || b->length > asked || b->null_count < 0 || b->null_count > b->length)
        abort();
    if (b->physical_type == PLANK_BYTE_ARRAY && b->length > 0) {
        if (b->offsets[0] != 0) abort();
        for (int64_t i = 0; i < b->length; i++)
            if (b->offsets[i + 1] < b->offsets[i]) abort();
    }
}

static void read_row_group(plank_reader *r, int32_t g, uint8_t batch_sel, uint8_t skip_sel) {
    int32_t ncols = plank_reader_num_columns(r);
    if (ncols > 64) ncols = 64;
    plank_column_reader *crs[64] = {0};
    int64_t slots[64] = {0};
    bool live[64] = {0};
    plank_error err;
    int32_t open = 0;
    for (int32_t c = 0; c < ncols; c++) {
        plank_status st = plank_column_reader_open(&crs[c], r, g, c, &err);
        fz_check_error(st, &err);
        live[c] = st == PLANK_OK;
        open += live[c];
    }
    uint32_t seed = (uint32_t)batch_sel << 8 | skip_sel;
    if (skip_sel & 0x30) {
        /* Row selections from the seed: ranges with gaps, some empty; a seek
         * half of the time. Invalid ones must fail cleanly. */
        plank_row_range rr[16];
        int64_t at = 0, n = 0;
        for (; n < 16; n++) {
            uint32_t x = fz_next(&seed);
            at += (int64_t)(x % 50) - (skip_sel & 0x40 ? 3 : 0);
            rr[n] = (plank_row_range){at, (int64_t)((x >> 8) % 40)};
            at += rr[n].count;
        }
        for (int32_t c = 0; c < ncols; c++) {
            if (!live[c]) continue;
            plank_status st = plank_column_reader_select(crs[c], rr, (int64_t)(skip_sel & 15), &err);
            fz_check_error(st, &err);
            if (st == PLANK_OK && (skip_sel & 0x80)) {
                st = plank_column_reader_seek(crs[c], (int64_t)(fz_next(&seed) % 64), &err);
                fz_check_error(st, &err);
            }
        }
    }
    while (open > 0) {
        for (int32_t c = 0; c < ncols; c++) {
            if (!live[c]) continue;
            uint32_t x = fz_next(&seed);
            int64_t asked = 1 + (int64_t)(x % (1u + ((uint32_t)batch_sel << 4)));
            plank_status st;
            int64_t got;
            if (skip_sel && (x >> 24) % 8 < (unsigned)(skip_sel & 7)) {
                st = plank_column_reader_skip(crs[c], asked, &got, &err);
                if (st == PLANK_OK && (got < 0 || got > asked)) abort();
            } else {
                plank_batch b = {.struct_size = sizeof(plank_batch)};
                st = plank_column_reader_read(crs[c], asked, &b, &err);
                if (st == PLANK_OK) check_batch(&b, asked);
                got = st == PLANK_OK ? b.length : 0;
            }
            fz_check_error(st, &err);
            slots[c] += got;
            if (st != PLANK_OK || got == 0 || slots[c] > MAX_SLOTS_PER_CHUNK) {
                live[c] = false;
                open--;
            }
        }
    }
    for (int32_t c = 0; c < ncols; c++) plank_column_reader_close(crs[c]);
}

/* The Arrow export (nested assembly included): every batch is checked for
 * the C Data Interface invariants a consumer relies on, then released. */
static void read_arrow(plank_reader *r, uint8_t batch_sel, uint8_t skip_sel) {
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.batch_rows = 1 + batch_sel % 97;
    ao.dictionary_arrays = skip_sel & 0x10;
    ao.borrow_memory = skip_sel & 0x20;
    ao.zero_copy = !(skip_sel & 0x40);
    struct ArrowArrayStream stream;
    plank_error err;
    plank_status st;
    if (skip_sel & 0x80) {
        /* every third row of the first 600, then one range */
        plank_row_range rr[201];
        int64_t rows = plank_reader_num_rows(r), n = 0;
        for (int64_t i = 0; i < 600 && i < rows; i += 3) rr[n++] = (plank_row_range){i, 1};
        if (rows > 700) rr[n++] = (plank_row_range){700, rows - 700 < 100 ? rows - 700 : 100};
        st = plank_reader_arrow_stream_rows(r, rr, n, &ao, &stream, &err);
    } else {
        st = plank_reader_arrow_stream(r, NULL, 0, &ao, &stream, &err);
    }
    fz_check_error(st, &err);
    if (st != PLANK_OK) return;
    struct ArrowSchema schema;
    if (stream.get_schema(&stream, &schema) == 0) schema.release(&schema);
    for (int i = 0; i < 10000; i++) {
        struct ArrowArray a;
        if (stream.get_next(&stream, &a) != 0) {
            const char *msg = stream.get_last_error(&stream);
            if (!msg || !*msg) abort(); /* an error must come with a message */
            break;
        }
        if (!a.release) break; /* end of stream */
        if (a.length < 0 || a.length > ao.batch_rows || a.null_count < -1) abort();
        a.release(&a);
        if (a.release) abort(); /* release must mark the array released */
    }
    stream.release(&stream);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t batch_sel, skip_sel;
    size_t n;
    uint8_t *file = fz_file_input(data, size, 7, 0, &batch_sel, &skip_sel, &n);
    if (!file) return 0;
    plank_reader *r = fz_open_reader(file, n);
    if (r) {
        int32_t groups = plank_reader_num_row_groups(r);
        for (int32_t g = 0; g < groups && g < 64; g++) read_row_group(r, g, batch_sel, skip_sel);
        if (groups <= 64) read_arrow(r, batch_sel, skip_sel);
        plank_reader_close(r);
    }
    free(file);
    return 0;
}
