/*
 * fuzz_write.c: write-then-read round trip from fuzzer-chosen schemas,
 * options and values.
 *
 * The input's first bytes choose the options (codec among those built, page
 * version, format version, dictionary, page rows, row group rows, page size,
 * statistics truncation length) and 1..4 columns (physical type, FLBA
 * width, REQUIRED / OPTIONAL / list of optional elements, an encoding among
 * those that apply, a bloom filter); the rest feeds the row count, levels
 * and values. The file is written to memory through a sink, read back with
 * plank's reader, and every level and value must equal what was written;
 * the page index and bloom filters must load. Any difference aborts.
 */
#include <stddef.h>

#include "fuzz_common.h"

#include "encoding/pk_encoder.h"

#define MAX_COLS 4
#define MAX_SLOTS 4096

typedef struct col {
    plank_physical_type type;
    int32_t width;       /* value bytes (BOOLEAN 1, BYTE_ARRAY 0) */
    int shape;           /* 0 required, 1 optional, 2 list<optional leaf> */
    int16_t max_def, max_rep;
    int64_t n;
    int16_t def[MAX_SLOTS], rep[MAX_SLOTS];
    uint8_t vals[MAX_SLOTS * 16];
    int64_t offs[MAX_SLOTS + 1];
    uint8_t data[MAX_SLOTS * 8];
    int64_t dlen;
} col;

static const plank_physical_type TYPES[] = {PLANK_BOOLEAN, PLANK_INT32, PLANK_INT64,
                                            PLANK_INT96, PLANK_FLOAT, PLANK_DOUBLE,
                                            PLANK_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY};
static const plank_encoding ENCS[] = {PLANK_ENC_PLAIN, PLANK_ENC_RLE,
                                      PLANK_ENC_DELTA_BINARY_PACKED,
                                      PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY,
                                      PLANK_ENC_DELTA_BYTE_ARRAY, PLANK_ENC_BYTE_STREAM_SPLIT};
static const plank_codec CODECS[] = {PLANK_CODEC_UNCOMPRESSED, PLANK_CODEC_SNAPPY,
                                     PLANK_CODEC_GZIP, PLANK_CODEC_ZSTD, PLANK_CODEC_LZ4_RAW,
                                     PLANK_CODEC_LZ4, PLANK_CODEC_BROTLI};

static int32_t width_of(plank_physical_type t, int32_t flba) {
    switch (t) {
    case PLANK_BOOLEAN: return 1;
    case PLANK_INT32: case PLANK_FLOAT: return 4;
    case PLANK_INT64: case PLANK_DOUBLE: return 8;
    case PLANK_INT96: return 12;
    case PLANK_FIXED_LEN_BYTE_ARRAY: return flba;
    default: return 0;
    }
}

/* Appends one slot; a present value takes its bytes from the input. */
static void put(col *c, fz_input *in, int16_t d, int16_t r) {
    int64_t i = c->n++;
    c->def[i] = d;
    c->rep[i] = r;
    bool present = d == c->max_def;
    if (c->type == PLANK_BYTE_ARRAY) {
        if (present) {
            uint32_t len = fz_take(in, 1) % 9;
            for (uint32_t k = 0; k < len; k++) c->data[c->dlen++] = (uint8_t)fz_take(in, 1);
        }
        c->offs[i + 1] = c->dlen;
    } else if (c->type == PLANK_BOOLEAN) {
        /* one bit per slot */
        if (present && (fz_take(in, 1) & 1)) c->vals[i / 8] |= (uint8_t)(1u << (i % 8));
    } else if (present) {
        /* few distinct byte values so that dictionaries and runs appear */
        uint8_t b = (uint8_t)fz_take(in, 1);
        for (int32_t k = 0; k < c->width; k++)
            c->vals[(size_t)i * (size_t)c->width + (size_t)k] =
                (uint8_t)((b & 0x80) ? fz_take(in, 1) : (uint32_t)(b & 0x0f) * (uint32_t)(k + 1));
    }
}

static bool same_value(const col *c, int64_t i, const plank_batch *b, int64_t j) {
    if (c->type == PLANK_BYTE_ARRAY) {
        int64_t l1 = c->offs[i + 1] - c->offs[i], l2 = b->offsets[j + 1] - b->offsets[j];
        return l1 == l2 && (l1 == 0 || !memcmp(c->data + c->offs[i], b->data + b->offsets[j], (size_t)l1));
    }
    if (c->type == PLANK_BOOLEAN)
        return ((c->vals[i / 8] >> (i % 8)) & 1) ==
               ((((const uint8_t *)b->values)[j / 8] >> (j % 8)) & 1);
    return !memcmp(c->vals + (size_t)i * (size_t)c->width,
                   (const uint8_t *)b->values + (size_t)j * (size_t)c->width, (size_t)c->width);
}

static void verify(const fz_sinkbuf *sb, col *cols, int ncols, int64_t nrows) {
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.allocator = &fz_allocator;
    plank_reader *r;
    plank_error err;
    plank_status st = plank_reader_open_memory(&r, sb->p, sb->n, &ro, &err);
    if (st != PLANK_OK) {
        fprintf(stderr, "reading back: %s\n", err.message);
        abort();
    }
    if (plank_reader_num_rows(r) != nrows || plank_reader_num_columns(r) != ncols) abort();
    for (int k = 0; k < ncols; k++) {
        col *c = &cols[k];
        int64_t at = 0;
        for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
            plank_column_reader *cr;
            if (plank_column_reader_open(&cr, r, g, k, &err) != PLANK_OK) {
                fprintf(stderr, "column %d: %s\n", k, err.message);
                abort();
            }
            for (;;) {
                plank_batch b = {.struct_size = sizeof(plank_batch)};
                st = plank_column_reader_read(cr, 97, &b, &err);
                if (st != PLANK_OK) {
                    fprintf(stderr, "column %d: %s\n", k, err.message);
                    abort();
                }
                if (b.length == 0) break;
                for (int64_t j = 0; j < b.length; j++, at++) {
                    if (at >= c->n) abort();
                    int16_t d = b.def_levels ? b.def_levels[j]
                                : (b.validity && !((b.validity[j / 8] >> (j % 8)) & 1)) ? 0
                                                                                       : c->max_def;
                    int16_t rl = b.rep_levels ? b.rep_levels[j] : 0;
                    if (d != c->def[at] || rl != c->rep[at]) {
                        fprintf(stderr, "column %d slot %lld: levels %d/%d, wrote %d/%d\n", k,
                                (long long)at, d, rl, c->def[at], c->rep[at]);
                        abort();
                    }
                    if (d == c->max_def && !same_value(c, at, &b, j)) {
                        fprintf(stderr, "column %d slot %lld: value differs\n", k, (long long)at);
                        abort();
                    }
                }
            }
            plank_column_reader_close(cr);
            plank_column_index *ci;
            plank_offset_index *oi;
            plank_bloom_filter *bf;
            st = plank_reader_column_index(r, g, k, &ci, &err);
            fz_check_error(st, &err);
            if (st != PLANK_OK) abort();
            plank_column_index_free(ci);
            st = plank_reader_offset_index(r, g, k, &oi, &err);
            if (st != PLANK_OK || !oi) abort();
            plank_offset_index_free(oi);
            st = plank_reader_bloom_filter(r, g, k, &bf, &err);
            if (st != PLANK_OK) abort();
            plank_bloom_filter_free(bf);
        }
        if (at != c->n) abort();
    }
    plank_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size};
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.allocator = &fz_allocator;
    uint32_t opt = fz_take(&in, 4);
    o.codec = CODECS[(opt & 0xff) % 7];
    if (!plank_codec_available(o.codec)) o.codec = PLANK_CODEC_UNCOMPRESSED;
    /* the fastest level of each codec: the codecs have their own target,
     * and speed here buys writer coverage */
    o.codec_level = o.codec == PLANK_CODEC_BROTLI || o.codec == PLANK_CODEC_ZSTD ||
                            o.codec == PLANK_CODEC_GZIP
                        ? 1
                        : 0;
    o.page_version = (opt >> 8) & 1 ? 2 : 1;
    o.format_version = (opt >> 9) & 1 ? 1 : 2;
    o.dictionary = (opt >> 10) & 1;
    o.page_rows = 1 + ((opt >> 11) & 31);
    o.row_group_rows = 1 + ((opt >> 16) & 127);
    o.page_size = (opt >> 23) & 1 ? 64 : 1 << 20;
    o.dictionary_page_size = (opt >> 24) & 1 ? 16 : 1 << 20;
    o.max_statistics_size = (int32_t)((opt >> 25) & 7);
    int ncols = 1 + (int)((opt >> 28) & 3);

    static col cols[MAX_COLS];
    plank_schema_field f[1 + 3 * MAX_COLS];
    plank_column_options co[MAX_COLS];
    char names[MAX_COLS][4];
    int nf = 1;
    plank_schema_field_init(&f[0]);
    f[0].num_children = ncols;
    for (int k = 0; k < ncols; k++) {
        col *c = &cols[k];
        memset(c, 0, offsetof(col, def));
        memset(c->vals, 0, sizeof c->vals);
        c->offs[0] = 0;
        c->dlen = 0; /* after the arrays: not covered by the memset above */
        uint32_t spec = fz_take(&in, 2);
        c->type = TYPES[spec % 8];
        int32_t flba = 1 + (int32_t)((spec >> 3) % 16);
        c->width = width_of(c->type, flba);
        c->shape = (int)((spec >> 7) % 3);
        snprintf(names[k], sizeof names[k], "c%d", k);
        plank_schema_field *leaf;
        if (c->shape == 2) {
            plank_schema_field_init(&f[nf]);
            f[nf].name = names[k];
            f[nf].repetition = PLANK_OPTIONAL;
            f[nf].num_children = 1;
            f[nf].logical.kind = PLANK_LOGICAL_LIST;
            plank_schema_field_init(&f[nf + 1]);
            f[nf + 1].name = "list";
            f[nf + 1].repetition = PLANK_REPEATED;
            f[nf + 1].num_children = 1;
            leaf = &f[nf + 2];
            plank_schema_field_init(leaf);
            leaf->name = "element";
            leaf->repetition = PLANK_OPTIONAL;
            nf += 3;
            c->max_def = 3;
            c->max_rep = 1;
        } else {
            leaf = &f[nf++];
            plank_schema_field_init(leaf);
            leaf->name = names[k];
            leaf->repetition = c->shape ? PLANK_OPTIONAL : PLANK_REQUIRED;
            c->max_def = (int16_t)c->shape;
        }
        leaf->physical_type = c->type;
        leaf->type_length = c->type == PLANK_FIXED_LEN_BYTE_ARRAY ? flba : 0;
        plank_column_options_init(&co[k]);
        co[k].path = c->shape == 2 ? NULL : names[k];
        plank_encoding e = ENCS[(spec >> 9) % 6];
        if (pk_encoding_applies(e, c->type)) co[k].encoding = e;
        co[k].bloom_filter = (spec >> 12) & 1;
        co[k].statistics = (spec >> 13) & 1 ? 0 : -1;
    }
    /* list columns are addressed by their leaf's dotted path */
    char paths[MAX_COLS][32];
    for (int k = 0; k < ncols; k++)
        if (!co[k].path) {
            snprintf(paths[k], sizeof paths[k], "%s.list.element", names[k]);
            co[k].path = paths[k];
        }
    o.columns = co;
    o.num_column_options = ncols;

    int64_t nrows = fz_take(&in, 1) % 200;
    for (int64_t row = 0; row < nrows; row++) {
        for (int k = 0; k < ncols; k++) {
            col *c = &cols[k];
            if (c->n + 8 > MAX_SLOTS) { nrows = row; goto generated; }
        }
        for (int k = 0; k < ncols; k++) {
            col *c = &cols[k];
            uint32_t sel = fz_take(&in, 1);
            if (c->shape == 0) put(c, &in, 0, 0);
            else if (c->shape == 1) put(c, &in, (sel & 3) == 0 ? 0 : 1, 0);
            else if ((sel & 7) == 0) put(c, &in, 0, 0); /* null list */
            else if ((sel & 7) == 1) put(c, &in, 1, 0); /* empty list */
            else {
                int cnt = 1 + (int)((sel >> 3) & 3);
                for (int e = 0; e < cnt; e++) put(c, &in, ((sel >> (5 + e % 3)) & 1) ? 3 : 2, e ? 1 : 0);
            }
        }
    }
generated:
    /* rows beyond a truncated generation were never added: trim */
    for (int k = 0; k < ncols; k++) {
        col *c = &cols[k];
        int64_t recs = 0, i = 0;
        for (; i < c->n; i++)
            if (c->rep[i] == 0 && recs++ == nrows) break;
        c->n = i;
        if (c->type == PLANK_BYTE_ARRAY) c->dlen = c->offs[c->n];
    }

    fz_sinkbuf sb = {NULL, 0, 0};
    plank_sink sink = {sizeof(plank_sink), fz_sink_write, NULL, NULL, &sb};
    plank_writer *w;
    plank_error err;
    plank_status st = plank_writer_open_sink(&w, &sink, f, nf, &o, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) {
        free(sb.p);
        return 0;
    }
    plank_batch b[MAX_COLS];
    memset(b, 0, sizeof b);
    for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
    for (int k = 0; k < ncols; k++) {
        col *c = &cols[k];
        b[k].length = c->n;
        b[k].def_levels = c->max_def ? c->def : NULL;
        b[k].rep_levels = c->max_rep ? c->rep : NULL;
        b[k].values = c->vals;
        b[k].offsets = c->offs;
        b[k].data = c->data;
    }
    st = plank_writer_write_rows(w, b, nrows, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) {
        fprintf(stderr, "write_rows: %s\n", err.message);
        abort(); /* valid input must be written */
    }
    st = plank_writer_close(w, &err);
    if (st != PLANK_OK) {
        fprintf(stderr, "close: %s\n", err.message);
        abort();
    }
    verify(&sb, cols, ncols, nrows);
    free(sb.p);
    return 0;
}
