/* test_writer.c: the writer against a known answer. Every file is generated
 * from a deterministic function of (column, row), written under many option
 * combinations (codecs, page versions, dictionary on/off, every encoding that
 * applies, tiny pages, several row groups, write_rows and write_column),
 * then read back with plank's reader and compared value by value with the
 * generator; statistics are compared with min/max computed here. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plank.h"
#include "tharness.h"

enum { C_B, C_I32, C_I64, C_F, C_D, C_S, C_BIN, C_FL, C_U32, C_U64, C_DEC, C_I96, C_TS, C_DATE,
       NCOL };

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* C_BIN is a required byte-array column: the writer encodes its pages from
 * the caller's buffers when a page lies whole inside a batch. */
static bool optional_col(int c) {
    return !(c == C_I32 || c == C_D || c == C_U32 || c == C_DATE || c == C_BIN);
}
static bool is_null(int c, int64_t row) { return optional_col(c) && mix((uint64_t)(row * 31 + c)) % 7 == 0; }

static const char *WORDS[] = {"", "a", "alpha", "beta", "gamma", "delta", "\xc3\xa9t\xc3\xa9",
                              "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
                              "M", "~~~"};

/* The PLAIN bytes of value (c, row) into out; returns the length. */
static size_t gen(int c, int64_t row, uint8_t *out) {
    uint64_t h = mix((uint64_t)row * 1000003u + (uint64_t)c);
    switch (c) {
    case C_B: out[0] = (uint8_t)(h & 1); return 1;
    case C_I32: {
        int32_t v = (int32_t)(row % 5 == 0 ? (h % 2 ? INT32_MAX : INT32_MIN) : (int32_t)(h % 1000) - 500);
        memcpy(out, &v, 4);
        return 4;
    }
    case C_I64: {
        int64_t v = row % 11 == 0 ? (int64_t)h : (int64_t)(h % 100000) - 50000;
        memcpy(out, &v, 8);
        return 8;
    }
    case C_F: {
        float v = row % 13 == 0 ? NAN : row % 17 == 0 ? -0.0f : (float)((double)(h % 20000) / 7.0 - 1000);
        memcpy(out, &v, 4);
        return 4;
    }
    case C_D: {
        double v = row % 19 == 0 ? INFINITY : (double)(int64_t)(h % 2000000) / 3.0 - 300000;
        memcpy(out, &v, 8);
        return 8;
    }
    case C_S: {
        const char *w = WORDS[h % 10];
        size_t n = strlen(w);
        memcpy(out, w, n);
        return n;
    }
    case C_BIN: {
        size_t n = h % 97 == 0 ? 200 : h % 9;
        for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(mix(h + i) >> 8) | (i == 0 && n == 200 ? 0xff : 0);
        return n;
    }
    case C_FL:
        for (int i = 0; i < 5; i++) out[i] = (uint8_t)(h >> (8 * i)) & 0x0f;
        return 5;
    case C_U32: {
        uint32_t v = row % 7 == 0 ? 0xFFFFFFF0u + (uint32_t)(h % 15) : (uint32_t)(h % 5000);
        memcpy(out, &v, 4);
        return 4;
    }
    case C_U64: {
        uint64_t v = row % 3 == 0 ? h : h % 77;
        memcpy(out, &v, 8);
        return 8;
    }
    case C_DEC: { /* 9-byte big-endian two's complement, DECIMAL(20,2) */
        int64_t v = (int64_t)(h % 2000000001) - 1000000000;
        out[0] = v < 0 ? 0xff : 0x00;
        for (int i = 0; i < 8; i++) out[1 + i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
        return 9;
    }
    case C_I96:
        for (int i = 0; i < 12; i++) out[i] = (uint8_t)(h >> (i * 5));
        return 12;
    case C_TS: {
        int64_t v = 1700000000000000 + (int64_t)(h % 1000000000);
        memcpy(out, &v, 8);
        return 8;
    }
    case C_DATE: {
        int32_t v = 19000 + (int32_t)(row % 400);
        memcpy(out, &v, 4);
        return 4;
    }
    }
    return 0;
}

static void schema_flat(plank_schema_field *f) {
    for (int i = 0; i <= NCOL; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = NCOL;
    static const char *names[NCOL] = {"b", "i32", "i64", "f", "d", "s", "bin", "fl",
                                      "u32", "u64", "dec", "i96", "ts", "date"};
    static const plank_physical_type types[NCOL] = {
        PLANK_BOOLEAN, PLANK_INT32, PLANK_INT64, PLANK_FLOAT, PLANK_DOUBLE, PLANK_BYTE_ARRAY,
        PLANK_BYTE_ARRAY, PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_INT32, PLANK_INT64,
        PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_INT96, PLANK_INT64, PLANK_INT32};
    for (int c = 0; c < NCOL; c++) {
        plank_schema_field *x = &f[c + 1];
        x->name = names[c];
        x->physical_type = types[c];
        x->repetition = optional_col(c) ? PLANK_OPTIONAL : PLANK_REQUIRED;
        x->has_field_id = true;
        x->field_id = 100 + c;
    }
    f[1 + C_S].logical.kind = PLANK_LOGICAL_STRING;
    f[1 + C_FL].type_length = 5;
    f[1 + C_U32].logical.kind = PLANK_LOGICAL_INTEGER;
    f[1 + C_U32].logical.bit_width = 32;
    f[1 + C_U64].logical.kind = PLANK_LOGICAL_INTEGER;
    f[1 + C_U64].logical.bit_width = 64;
    f[1 + C_DEC].type_length = 9;
    f[1 + C_DEC].logical.kind = PLANK_LOGICAL_DECIMAL;
    f[1 + C_DEC].logical.precision = 20;
    f[1 + C_DEC].logical.scale = 2;
    f[1 + C_TS].logical.kind = PLANK_LOGICAL_TIMESTAMP;
    f[1 + C_TS].logical.unit = PLANK_UNIT_MICROS;
    f[1 + C_TS].logical.is_adjusted_to_utc = true;
    f[1 + C_DATE].logical.kind = PLANK_LOGICAL_DATE;
}

/* Column batches of rows [r0, r1) in the reader's layout. */
typedef struct colbuf {
    uint8_t *validity, *values, *data;
    int64_t *offsets;
} colbuf;

static void make_batch(int c, int64_t r0, int64_t r1, colbuf *cb, plank_batch *b) {
    int64_t n = r1 - r0;
    memset(b, 0, sizeof *b);
    b->struct_size = sizeof *b;
    memset(cb, 0, sizeof *cb);
    b->length = n;
    cb->validity = calloc((size_t)n / 8 + 1, 1);
    bool any_null = false;
    for (int64_t i = 0; i < n; i++) {
        if (is_null(c, r0 + i)) any_null = true;
        else cb->validity[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    b->validity = any_null ? cb->validity : NULL;
    uint8_t tmp[256];
    if (c == C_S || c == C_BIN) {
        cb->offsets = calloc((size_t)n + 1, 8);
        cb->data = malloc((size_t)n * 200 + 1);
        int64_t at = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!is_null(c, r0 + i)) {
                size_t len = gen(c, r0 + i, tmp);
                memcpy(cb->data + at, tmp, len);
                at += (int64_t)len;
            }
            cb->offsets[i + 1] = at;
        }
        b->offsets = cb->offsets;
        b->data = cb->data;
    } else if (c == C_B) {
        cb->values = calloc((size_t)n / 8 + 1, 1);
        for (int64_t i = 0; i < n; i++) {
            gen(c, r0 + i, tmp);
            if (tmp[0]) cb->values[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        b->values = cb->values;
    } else {
        size_t w = gen(c, 0, tmp);
        cb->values = calloc((size_t)n + 1, w);
        for (int64_t i = 0; i < n; i++)
            if (!is_null(c, r0 + i)) gen(c, r0 + i, cb->values + (size_t)i * w);
            else memset(cb->values + (size_t)i * w, 0xAB, w); /* garbage in null slots */
        b->values = cb->values;
    }
}

static void free_batch(colbuf *cb) {
    free(cb->validity);
    free(cb->values);
    free(cb->data);
    free(cb->offsets);
}

typedef struct config {
    plank_codec codec;
    int page_version;
    bool dictionary;
    int enc_set;          /* 0 default, 1 DELTA/BSS/RLE, 2 DELTA_BYTE_ARRAY/BSS */
    int64_t page_rows;
    int64_t rg_rows;
    bool by_column;       /* write_column + end_row_group instead of write_rows */
    int32_t format_version;
    int32_t threads;      /* plank_writer_options.threads; 0 here means 1 */
    int64_t step;         /* rows per write_rows call; 0 here means 777 */
    int64_t page_size;    /* 0: the writer's default */
} config;

static int enc_for(int set, int c) {
    if (set == 1) {
        switch (c) {
        case C_B: return PLANK_ENC_RLE;
        case C_I32: case C_I64: case C_U32: case C_U64: case C_TS: case C_DATE:
            return PLANK_ENC_DELTA_BINARY_PACKED;
        case C_F: case C_D: case C_FL: case C_DEC: return PLANK_ENC_BYTE_STREAM_SPLIT;
        case C_S: case C_BIN: return PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY;
        default: return -1;
        }
    }
    if (set == 2) {
        switch (c) {
        case C_S: case C_BIN: case C_FL: case C_DEC: return PLANK_ENC_DELTA_BYTE_ARRAY;
        case C_I32: case C_I64: case C_F: case C_D: return PLANK_ENC_BYTE_STREAM_SPLIT;
        default: return -1;
        }
    }
    return -1;
}

static const char *NAMES[NCOL] = {"b", "i32", "i64", "f", "d", "s", "bin", "fl",
                                  "u32", "u64", "dec", "i96", "ts", "date"};

static plank_status write_file(const char *path, const config *cf, int64_t nrows,
                               plank_allocator *alloc, plank_error *err) {
    plank_schema_field f[NCOL + 1];
    schema_flat(f);
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.allocator = alloc;
    o.codec = cf->codec;
    o.page_version = cf->page_version;
    o.dictionary = cf->dictionary;
    o.page_rows = cf->page_rows;
    o.row_group_rows = cf->rg_rows;
    o.format_version = cf->format_version ? cf->format_version : 2;
    o.max_statistics_size = 16;
    o.threads = cf->threads ? cf->threads : 1;
    if (cf->page_size) o.page_size = cf->page_size;
    plank_column_options co[NCOL];
    int nco = 0;
    for (int c = 0; c < NCOL; c++) {
        int e = enc_for(cf->enc_set, c);
        if (e < 0 && !(c == C_S)) continue;
        plank_column_options_init(&co[nco]);
        co[nco].path = NAMES[c];
        co[nco].encoding = e;
        if (c == C_S) co[nco].bloom_filter = true;
        nco++;
    }
    o.columns = co;
    o.num_column_options = nco;
    plank_key_value kv = {"origin", "test_writer"};
    o.key_values = &kv;
    o.num_key_values = 1;
    plank_writer *w;
    plank_status st = plank_writer_open_path(&w, path, f, NCOL + 1, &o, err);
    if (st != PLANK_OK) return st;
    int64_t step = cf->step ? cf->step : 777;
    for (int64_t r = 0; r < nrows && st == PLANK_OK; r += step) {
        int64_t r1 = r + step < nrows ? r + step : nrows;
        plank_batch b[NCOL];
        colbuf cb[NCOL];
        for (int c = 0; c < NCOL; c++) make_batch(c, r, r1, &cb[c], &b[c]);
        if (cf->by_column) {
            for (int c = 0; c < NCOL && st == PLANK_OK; c++) {
                /* two uneven pieces per column */
                plank_batch part = b[c];
                st = plank_writer_write_column(w, c, &part, err);
            }
            if (st == PLANK_OK && (r1 / step) % 2 == 0) st = plank_writer_end_row_group(w, err);
        } else {
            st = plank_writer_write_rows(w, b, r1 - r, err);
        }
        for (int c = 0; c < NCOL; c++) free_batch(&cb[c]);
    }
    if (st != PLANK_OK) {
        plank_writer_abort(w);
        return st;
    }
    return plank_writer_close(w, err);
}

/* Independent min/max over rows [r0, r1) of column c, by a simple typed
 * comparison. Returns false when no value orders. */
static int cmp_val(int c, const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    switch (c) {
    case C_B: return (int)a[0] - (int)b[0];
    case C_I32: case C_DATE: { int32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case C_I64: case C_TS: { int64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case C_U32: { uint32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case C_U64: { uint64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case C_F: { float x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case C_D: { double x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case C_DEC: {
        if ((a[0] ^ b[0]) & 0x80) return (a[0] & 0x80) ? -1 : 1;
        return memcmp(a, b, 9);
    }
    default: {
        size_t n = al < bl ? al : bl;
        int r = memcmp(a, b, n);
        return r ? r : (al > bl) - (al < bl);
    }
    }
}

static bool expected_minmax(int c, int64_t r0, int64_t r1, uint8_t *mn, size_t *mnl, uint8_t *mx,
                            size_t *mxl, int64_t *nulls) {
    bool has = false;
    *nulls = 0;
    uint8_t v[256];
    for (int64_t r = r0; r < r1; r++) {
        if (is_null(c, r)) { (*nulls)++; continue; }
        size_t l = gen(c, r, v);
        if (c == C_F) { float x; memcpy(&x, v, 4); if (x != x) continue; }
        if (!has || cmp_val(c, v, l, mn, *mnl) < 0) { memcpy(mn, v, l); *mnl = l; }
        if (!has || cmp_val(c, v, l, mx, *mxl) > 0) { memcpy(mx, v, l); *mxl = l; }
        has = true;
    }
    return has;
}


/* The page index against the generator: page row ranges tile the row group,
 * per-page null counts and min/max are those of the page's rows. */
static void verify_page_index(plank_reader *r, int32_t g, int c, int64_t row0, int64_t nrows,
                              const config *cf) {
    plank_offset_index *oi = NULL;
    plank_column_index *ci = NULL;
    plank_error err;
    CHECK_MSG(plank_reader_offset_index(r, g, c, &oi, &err) == PLANK_OK, "%s", err.message);
    CHECK_MSG(plank_reader_column_index(r, g, c, &ci, &err) == PLANK_OK, "%s", err.message);
    CHECK(oi != NULL);
    if (!oi) return;
    CHECK(oi->num_pages >= 1);
    if (cf->page_rows < nrows) CHECK(oi->num_pages >= (nrows + cf->page_rows - 1) / cf->page_rows);
    CHECK_EQ_I64(oi->pages[0].first_row_index, 0);
    if (c == C_I96) {
        CHECK(ci == NULL);
    } else {
        CHECK(ci != NULL);
    }
    if (ci) CHECK_EQ_I64(ci->num_pages, oi->num_pages);
    for (int32_t p = 0; p < oi->num_pages; p++) {
        int64_t a = oi->pages[p].first_row_index;
        int64_t b = p + 1 < oi->num_pages ? oi->pages[p + 1].first_row_index : nrows;
        CHECK(b > a && b - a <= cf->page_rows);
        if (p > 0) CHECK(oi->pages[p].offset > oi->pages[p - 1].offset);
        if (!ci) continue;
        uint8_t mn[256], mx[256];
        size_t mnl = 0, mxl = 0;
        int64_t nulls;
        bool has = expected_minmax(c, row0 + a, row0 + b, mn, &mnl, mx, &mxl, &nulls);
        CHECK(ci->null_counts != NULL);
        if (ci->null_counts) CHECK_EQ_I64(ci->null_counts[p], nulls);
        bool all_null = nulls == b - a;
        CHECK(ci->null_pages[p] == all_null);
        if (!has || c == C_F) continue; /* float: -0/+0 rewritten; checked via chunk stats */
        if (c == C_S || c == C_BIN) {
            CHECK(cmp_val(c, ci->min_values[p], ci->min_lens[p], mn, mnl) <= 0);
            CHECK(cmp_val(c, ci->max_values[p], ci->max_lens[p], mx, mxl) >= 0);
        } else {
            CHECK_MSG(ci->min_lens[p] == mnl && !memcmp(ci->min_values[p], mn, mnl),
                      "column %s page %d min", NAMES[c], (int)p);
            CHECK_MSG(ci->max_lens[p] == mxl && !memcmp(ci->max_values[p], mx, mxl),
                      "column %s page %d max", NAMES[c], (int)p);
        }
        if (optional_col(c) && ci->definition_level_histograms) {
            CHECK_EQ_I64(ci->num_definition_level_histograms, 2 * ci->num_pages);
            CHECK_EQ_I64(ci->definition_level_histograms[2 * p], nulls);
            CHECK_EQ_I64(ci->definition_level_histograms[2 * p + 1], b - a - nulls);
        }
    }
    plank_column_index_free(ci);
    plank_offset_index_free(oi);
}

static void verify_bloom(plank_reader *r, int32_t g, int64_t row0, int64_t nrows) {
    plank_bloom_filter *bf = NULL;
    plank_error err;
    CHECK_MSG(plank_reader_bloom_filter(r, g, C_S, &bf, &err) == PLANK_OK, "%s", err.message);
    CHECK(bf != NULL);
    if (!bf) return;
    uint8_t v[256];
    int missing = 0;
    for (int64_t i = row0; i < row0 + nrows; i++) {
        if (is_null(C_S, i)) continue;
        size_t l = gen(C_S, i, v);
        if (!plank_bloom_filter_check(bf, v, l)) missing++;
    }
    CHECK_EQ_I64(missing, 0);
    int fp = 0;
    for (int i = 0; i < 1000; i++) {
        char s[32];
        int n = snprintf(s, sizeof s, "absent-%d", i);
        fp += plank_bloom_filter_check(bf, s, (size_t)n);
    }
    CHECK_MSG(fp < 50, "%d false positives of 1000", fp);
    plank_bloom_filter_free(bf);
}

static void verify_file(const char *path, const config *cf, int64_t nrows) {
    plank_reader *r;
    plank_error err;
    plank_status st = plank_reader_open_path(&r, path, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "open: %s", err.message);
    if (st != PLANK_OK) return;
    CHECK_EQ_I64(plank_reader_num_rows(r), nrows);
    CHECK_EQ_I64(plank_reader_num_columns(r), NCOL);
    CHECK(strncmp(plank_reader_created_by(r), "plank version", 13) == 0);
    CHECK_EQ_I64(plank_reader_num_key_values(r), 1);
    const plank_schema_node *dn = plank_reader_column_node(r, C_DEC);
    CHECK(dn->logical.kind == PLANK_LOGICAL_DECIMAL && dn->logical.precision == 20 &&
          dn->logical.scale == 2 && dn->type_length == 9 && dn->has_field_id &&
          dn->field_id == 100 + C_DEC);
    CHECK(plank_reader_column_node(r, C_U64)->logical.kind == PLANK_LOGICAL_INTEGER &&
          !plank_reader_column_node(r, C_U64)->logical.is_signed);
    CHECK(plank_reader_column_node(r, C_S)->repetition == PLANK_OPTIONAL);
    CHECK(plank_reader_column_node(r, C_I32)->repetition == PLANK_REQUIRED);
    int32_t nrg = plank_reader_num_row_groups(r);
    if (!cf->by_column && cf->rg_rows < nrows)
        CHECK_EQ_I64(nrg, (nrows + cf->rg_rows - 1) / cf->rg_rows);
    for (int c = 0; c < NCOL; c++) {
        int64_t row = 0;
        int bad = 0;
        for (int32_t g = 0; g < nrg; g++) {
            plank_row_group_info ri = {.struct_size = sizeof(plank_row_group_info)};
            plank_reader_row_group(r, g, &ri, NULL);
            plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
            CHECK(plank_reader_column_chunk(r, g, c, &ci, NULL) == PLANK_OK);
            CHECK(ci.codec == cf->codec);
            CHECK_EQ_I64(ci.num_values, ri.num_rows);
            int want = enc_for(cf->enc_set, c);
            bool has_enc = false;
            for (int32_t e = 0; e < ci.num_encodings; e++) {
                if (!cf->dictionary && want >= 0 && (int)ci.encodings[e] == want) has_enc = true;
                if (cf->dictionary && c != C_B &&
                    (ci.encodings[e] == PLANK_ENC_RLE_DICTIONARY ||
                     ci.encodings[e] == PLANK_ENC_PLAIN_DICTIONARY))
                    has_enc = true;
            }
            if ((cf->dictionary && c != C_B) || (!cf->dictionary && want >= 0))
                CHECK_MSG(has_enc, "column %s: expected encoding missing", NAMES[c]);
            /* statistics */
            uint8_t mn[256], mx[256];
            size_t mnl = 0, mxl = 0;
            int64_t nulls;
            bool has = expected_minmax(c, row, row + ri.num_rows, mn, &mnl, mx, &mxl, &nulls);
            CHECK(ci.has_statistics && ci.statistics.has_null_count);
            CHECK_EQ_I64(ci.statistics.null_count, nulls);
            if (c == C_I96) {
                CHECK(!ci.statistics.has_min);
            } else if (!has) {
                CHECK(!ci.statistics.has_min);
            } else if (c == C_BIN || c == C_S) {
                /* truncated to 16 bytes: a lower and an upper bound */
                CHECK(ci.statistics.has_min && ci.statistics.has_max);
                CHECK(ci.statistics.min_len <= 16 && ci.statistics.max_len <= 16);
                CHECK(cmp_val(c, ci.statistics.min, ci.statistics.min_len, mn, mnl) <= 0);
                CHECK(cmp_val(c, ci.statistics.max, ci.statistics.max_len, mx, mxl) >= 0);
                if (mnl <= 16) CHECK(ci.statistics.min_len == mnl && !memcmp(ci.statistics.min, mn, mnl));
                if (mxl <= 16) CHECK(ci.statistics.max_len == mxl && !memcmp(ci.statistics.max, mx, mxl));
                CHECK(ci.statistics.has_is_min_exact && ci.statistics.is_min_exact == (mnl <= 16));
            } else {
                CHECK_MSG(ci.statistics.min_len == mnl && !memcmp(ci.statistics.min, mn, mnl),
                          "column %s row group %d: min differs", NAMES[c], (int)g);
                bool zero_max = false;
                if (c == C_F) { float x; memcpy(&x, mx, 4); zero_max = x == 0; }
                if (!zero_max)
                    CHECK_MSG(ci.statistics.max_len == mxl && !memcmp(ci.statistics.max, mx, mxl),
                              "column %s row group %d: max differs", NAMES[c], (int)g);
            }
            if (c == C_S) CHECK(ci.bloom_filter_offset > 0 && ci.bloom_filter_length > 0);
            CHECK(ci.column_index_offset > 0 || c == C_I96);
            CHECK(ci.offset_index_offset > 0);
            if (c == C_S) CHECK(ci.unencoded_byte_array_data_bytes >= 0);
            if (optional_col(c)) CHECK(ci.num_definition_level_histogram == 2);
            verify_page_index(r, g, c, row, ri.num_rows, cf);
            if (c == C_S) verify_bloom(r, g, row, ri.num_rows);
            /* values */
            plank_column_reader *cr;
            st = plank_column_reader_open(&cr, r, g, c, &err);
            CHECK_MSG(st == PLANK_OK, "%s", err.message);
            if (st != PLANK_OK) continue;
            int64_t start = row;
            for (;;) {
                plank_batch b = {.struct_size = sizeof(plank_batch)};
                st = plank_column_reader_read(cr, 1000, &b, &err);
                CHECK_MSG(st == PLANK_OK, "read %s: %s", NAMES[c], err.message);
                if (st != PLANK_OK || b.length == 0) break;
                for (int64_t i = 0; i < b.length; i++, row++) {
                    bool null = b.validity && !((b.validity[i / 8] >> (i % 8)) & 1);
                    if (null != is_null(c, row)) { bad++; continue; }
                    if (null) continue;
                    uint8_t v[256];
                    size_t l = gen(c, row, v);
                    const uint8_t *got;
                    size_t gl;
                    uint8_t bit;
                    if (c == C_B) {
                        bit = (((const uint8_t *)b.values)[i / 8] >> (i % 8)) & 1;
                        got = &bit;
                        gl = 1;
                    } else if (b.offsets) {
                        got = b.data + b.offsets[i];
                        gl = (size_t)(b.offsets[i + 1] - b.offsets[i]);
                    } else {
                        got = (const uint8_t *)b.values + (size_t)i * (size_t)b.value_width;
                        gl = (size_t)b.value_width;
                    }
                    if (gl != l || memcmp(got, v, l)) bad++;
                }
            }
            CHECK_EQ_I64(row - start, ri.num_rows);
            plank_column_reader_close(cr);
        }
        CHECK_MSG(bad == 0, "column %s: %d values differ", NAMES[c], bad);
        CHECK_EQ_I64(row, nrows);
    }
    plank_reader_close(r);
}

/* The file at `path` (written on one thread) must be what 2, 3 and one thread
 * per processor write, byte for byte. */
static void same_bytes_threads(const char *path, const char *other, const config *cf,
                               int64_t nrows) {
    size_t n1 = 0;
    unsigned char *one = th_read_file(path, &n1);
    CHECK(one != NULL);
    static const int32_t counts[] = {2, 3, 0};
    /* PLANK_WRITER_QUICK=1 (the sanitizer builds): 2 threads only */
    size_t nc = getenv("PLANK_WRITER_QUICK") ? 1 : sizeof counts / sizeof counts[0];
    for (size_t k = 0; one && k < nc; k++) {
        config c2 = *cf;
        c2.threads = counts[k];
        plank_error err;
        CHECK_MSG(write_file(other, &c2, nrows, NULL, &err) == PLANK_OK, "%s", err.message);
        size_t n2 = 0;
        unsigned char *two = th_read_file(other, &n2);
        CHECK_MSG(two && n2 == n1 && memcmp(one, two, n1) == 0,
                  "codec %d pv %d set %d: %d threads wrote other bytes (%zu vs %zu)",
                  (int)cf->codec, cf->page_version, cf->enc_set, (int)counts[k], n2, n1);
        free(two);
    }
    free(one);
    unlink(other);
}

static void test_matrix(const char *dir) {
    static const plank_codec codecs[] = {PLANK_CODEC_UNCOMPRESSED, PLANK_CODEC_SNAPPY,
                                         PLANK_CODEC_GZIP, PLANK_CODEC_ZSTD, PLANK_CODEC_LZ4_RAW,
                                         PLANK_CODEC_LZ4, PLANK_CODEC_BROTLI};
    char path[512], path2[512];
    snprintf(path, sizeof path, "%s/matrix.parquet", dir);
    snprintf(path2, sizeof path2, "%s/matrix_threads.parquet", dir);
    int n = 0;
    for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
        if (!plank_codec_available(codecs[ci])) continue;
        for (int pv = 1; pv <= 2; pv++)
            for (int set = 0; set < 3; set++) {
                config cf = {codecs[ci], pv, set == 0, set, 20000, 1 << 20, false, 2, 1, 0, 0};
                if (set == 0 && ci % 2) cf.page_rows = 7;       /* tiny pages */
                if (set == 1) cf.rg_rows = 1000;                 /* several row groups */
                if (set == 2 && pv == 2) cf.by_column = true;
                if (set == 0 && pv == 2 && ci == 0) cf.format_version = 1;
                int64_t nrows = set == 1 ? 2500 : 3001;
                /* whole-file batches with pages cut by bytes: byte-string pages
                 * encoded from the caller's buffers, the last one unpadded */
                if (set == 2 && pv == 1) {
                    cf.step = nrows;
                    cf.page_size = 3000;
                }
                plank_error err;
                plank_status st = write_file(path, &cf, nrows, NULL, &err);
                CHECK_MSG(st == PLANK_OK, "write codec %d pv %d set %d: %s", (int)cf.codec, pv,
                          set, err.message);
                if (st == PLANK_OK) verify_file(path, &cf, nrows);
                if (st == PLANK_OK) same_bytes_threads(path, path2, &cf, nrows);
                n++;
            }
    }
    fprintf(stderr, "matrix: %d files written and verified, each also on %s threads\n", n,
            getenv("PLANK_WRITER_QUICK") ? "2" : "2, 3 and 0");
    unlink(path);
}


/* ---- Nested: list<int64>, struct<a: string, b: double>, map<string, int32> ---- */

typedef struct leafbuf {
    int16_t def[20000], rep[20000];
    int64_t n;
    uint8_t vals[20000 * 8];
    int64_t offs[20001];
    char data[200000];
    int64_t dlen;
} leafbuf;

static void put_slot(leafbuf *lb, int16_t d, int16_t r, const void *v, size_t w, bool bytes) {
    int64_t i = lb->n++;
    lb->def[i] = d;
    lb->rep[i] = r;
    if (bytes) {
        if (v) {
            memcpy(lb->data + lb->dlen, v, w);
            lb->dlen += (int64_t)w;
        }
        lb->offs[i + 1] = lb->dlen;
    } else if (v) {
        memcpy(lb->vals + (size_t)i * w, v, w);
    }
}

static void gen_nested(int64_t r0, int64_t r1, leafbuf *lb) {
    for (int k = 0; k < 5; k++) {
        lb[k].n = 0;
        lb[k].dlen = 0;
        lb[k].offs[0] = 0;
    }
    for (int64_t r = r0; r < r1; r++) {
        /* l */
        int kind = (int)(r % 5);
        if (kind == 0) put_slot(&lb[0], 0, 0, NULL, 8, false);
        else if (kind == 1) put_slot(&lb[0], 1, 0, NULL, 8, false);
        else
            for (int64_t j = 0; j < r % 4 + 1; j++) {
                int64_t v = r * 10 + j;
                bool null = (r + j) % 3 == 0;
                put_slot(&lb[0], null ? 2 : 3, j ? 1 : 0, null ? NULL : &v, 8, false);
            }
        /* st */
        if (r % 4 == 0) {
            put_slot(&lb[1], 0, 0, NULL, 0, true);
            put_slot(&lb[2], 0, 0, NULL, 8, false);
        } else {
            char s[32];
            int n = snprintf(s, sizeof s, "s%lld", (long long)r);
            if (r % 3 == 0) put_slot(&lb[1], 1, 0, NULL, 0, true);
            else put_slot(&lb[1], 2, 0, s, (size_t)n, true);
            double d = (double)r * 0.5;
            put_slot(&lb[2], 1, 0, &d, 8, false);
        }
        /* m */
        if (r % 6 == 0 || r % 6 == 1) {
            int16_t d = (int16_t)(r % 6);
            put_slot(&lb[3], d, 0, NULL, 0, true);
            put_slot(&lb[4], d, 0, NULL, 4, false);
        } else {
            for (int j = 0; j < r % 3 + 1; j++) {
                char k[8];
                int n = snprintf(k, sizeof k, "k%d", j);
                put_slot(&lb[3], 2, j ? 1 : 0, k, (size_t)n, true);
                int32_t v = (int32_t)r + j;
                put_slot(&lb[4], j == 1 ? 2 : 3, j ? 1 : 0, j == 1 ? NULL : &v, 4, false);
            }
        }
    }
}

static void schema_nested(plank_schema_field *f) {
    for (int i = 0; i < 11; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 3;
    f[1] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "l", .physical_type = PLANK_PHYSICAL_NONE,
                                .repetition = PLANK_OPTIONAL, .num_children = 1};
    f[1].logical.kind = PLANK_LOGICAL_LIST;
    f[2] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "list", .physical_type = PLANK_PHYSICAL_NONE,
                                .repetition = PLANK_REPEATED, .num_children = 1};
    f[3] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "element", .physical_type = PLANK_INT64,
                                .repetition = PLANK_OPTIONAL};
    f[4] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "st", .physical_type = PLANK_PHYSICAL_NONE,
                                .repetition = PLANK_OPTIONAL, .num_children = 2};
    f[5] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "a", .physical_type = PLANK_BYTE_ARRAY,
                                .repetition = PLANK_OPTIONAL};
    f[5].logical.kind = PLANK_LOGICAL_STRING;
    f[6] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "b", .physical_type = PLANK_DOUBLE,
                                .repetition = PLANK_REQUIRED};
    f[7] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "m", .physical_type = PLANK_PHYSICAL_NONE,
                                .repetition = PLANK_OPTIONAL, .num_children = 1};
    f[7].logical.kind = PLANK_LOGICAL_MAP;
    f[8] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "key_value", .physical_type = PLANK_PHYSICAL_NONE,
                                .repetition = PLANK_REPEATED, .num_children = 2};
    f[9] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "key", .physical_type = PLANK_BYTE_ARRAY,
                                .repetition = PLANK_REQUIRED};
    f[9].logical.kind = PLANK_LOGICAL_STRING;
    f[10] = (plank_schema_field){.struct_size = sizeof(plank_schema_field), .name = "value", .physical_type = PLANK_INT32,
                                 .repetition = PLANK_OPTIONAL};
}

/* Closes w and opens the file it wrote; NULL (a check failed) when either fails. */
static plank_reader *close_and_reopen(plank_writer *w, const char *path) {
    plank_error err;
    plank_status st = plank_writer_close(w, &err);
    CHECK_MSG(st == PLANK_OK, "close: %s", err.message);
    plank_reader *r = NULL;
    st = plank_reader_open_path(&r, path, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    return st == PLANK_OK ? r : NULL;
}

static void test_nested(const char *dir) {
    static leafbuf lb[5], got;
    char path[512];
    snprintf(path, sizeof path, "%s/nested.parquet", dir);
    const int64_t N = 1000;
    static const int16_t maxdef[5] = {3, 2, 1, 2, 3};
    static const int widths[5] = {8, 0, 8, 0, 4};
    for (int pv = 1; pv <= 2; pv++) {
        plank_schema_field f[11];
        schema_nested(f);
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.page_version = pv;
        o.page_rows = 7;
        o.row_group_rows = 300;
        o.dictionary = pv == 1;
        plank_writer *w;
        plank_error err;
        plank_status st = plank_writer_open_path(&w, path, f, 11, &o, &err);
        CHECK_MSG(st == PLANK_OK, "%s", err.message);
        if (st != PLANK_OK) return;
        CHECK_EQ_I64(plank_writer_num_columns(w), 5);
        CHECK_EQ_I64(plank_writer_column_node(w, 0)->max_definition_level, 3);
        CHECK_EQ_I64(plank_writer_column_node(w, 4)->max_repetition_level, 1);
        for (int64_t r = 0; r < N && st == PLANK_OK; r += 250) {
            gen_nested(r, r + 250, lb);
            plank_batch b[5];
            memset(b, 0, sizeof b);
            for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
            for (int k = 0; k < 5; k++) {
                b[k].length = lb[k].n;
                b[k].def_levels = lb[k].def;
                b[k].rep_levels = lb[k].rep;
                if (widths[k]) b[k].values = lb[k].vals;
                else {
                    b[k].offsets = lb[k].offs;
                    b[k].data = (const uint8_t *)lb[k].data;
                }
            }
            st = plank_writer_write_rows(w, b, 250, &err);
            CHECK_MSG(st == PLANK_OK, "%s", err.message);
        }
        /* read back: levels and values identical */
        plank_reader *r = close_and_reopen(w, path);
        if (!r) return;
        CHECK_EQ_I64(plank_reader_num_rows(r), N);
        CHECK_EQ_I64(plank_reader_num_row_groups(r), 4);
        CHECK(plank_reader_schema_node(r, 1)->logical.kind == PLANK_LOGICAL_LIST);
        CHECK(plank_reader_schema_node(r, 7)->logical.kind == PLANK_LOGICAL_MAP);
        gen_nested(0, N, lb);
        for (int k = 0; k < 5; k++) {
            int64_t at = 0, bad = 0;
            for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
                plank_column_reader *cr;
                CHECK(plank_column_reader_open(&cr, r, g, k, NULL) == PLANK_OK);
                for (;;) {
                    plank_batch b = {.struct_size = sizeof(plank_batch)};
                    st = plank_column_reader_read(cr, 333, &b, &err);
                    CHECK_MSG(st == PLANK_OK, "%s", err.message);
                    if (st != PLANK_OK || b.length == 0) break;
                    for (int64_t i = 0; i < b.length; i++, at++) {
                        int16_t rl = b.rep_levels ? b.rep_levels[i] : 0;
                        if (at >= lb[k].n || b.def_levels[i] != lb[k].def[at] ||
                            rl != lb[k].rep[at]) {
                            bad++;
                            continue;
                        }
                        if (b.def_levels[i] != maxdef[k]) continue;
                        if (widths[k]) {
                            if (memcmp((const uint8_t *)b.values + i * widths[k],
                                       lb[k].vals + at * widths[k], (size_t)widths[k]))
                                bad++;
                        } else {
                            int64_t l1 = b.offsets[i + 1] - b.offsets[i];
                            int64_t l2 = lb[k].offs[at + 1] - lb[k].offs[at];
                            if (l1 != l2 || memcmp(b.data + b.offsets[i], lb[k].data + lb[k].offs[at],
                                                   (size_t)l1))
                                bad++;
                        }
                    }
                }
                plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
                plank_reader_column_chunk(r, g, k, &ci, NULL);
                if (k == 0) {
                    CHECK_EQ_I64(ci.num_repetition_level_histogram, 2);
                    CHECK_EQ_I64(ci.num_definition_level_histogram, 4);
                }
                plank_column_reader_close(cr);
            }
            CHECK_EQ_I64(at, lb[k].n);
            CHECK_MSG(bad == 0, "nested leaf %d (page v%d): %lld slots differ", k, pv, (long long)bad);
        }
        /* pages start at record boundaries: first_row_index strictly increasing */
        plank_offset_index *oi;
        CHECK(plank_reader_offset_index(r, 0, 0, &oi, NULL) == PLANK_OK && oi);
        if (oi) {
            CHECK(oi->num_pages >= 300 / 7);
            for (int32_t p = 1; p < oi->num_pages; p++)
                CHECK(oi->pages[p].first_row_index == oi->pages[p - 1].first_row_index + 7);
            plank_offset_index_free(oi);
        }
        plank_reader_close(r);
    }
    (void)got;
    unlink(path);
}

/* ---- Level histograms of a deep column ---------------------------------------- */

/* A leaf 9 definition and 3 repetition levels deep (a > r1 > b > r2 > c > r3 > d > e > v,
 * the r's repeated), so that the writer's histograms run past the 8 levels of one vector
 * pass: random valid levels, then the chunk's and every page's histograms (the
 * ColumnIndex) against counts made here, and the levels read back. */
#define DEEP_SLOTS 20000
static void test_deep_histograms(const char *dir) {
    static const char *names[9] = {"a", "r1", "b", "r2", "c", "r3", "d", "e", "v"};
    /* the definition level at which repeated field r_k (k = 1..3) is present */
    static const int16_t rdef[4] = {0, 2, 4, 6};
    plank_schema_field f[10];
    for (int i = 0; i < 10; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 1;
    for (int i = 0; i < 9; i++) {
        f[i + 1].name = names[i];
        f[i + 1].repetition = names[i][0] == 'r' ? PLANK_REPEATED : PLANK_OPTIONAL;
        f[i + 1].physical_type = i < 8 ? PLANK_PHYSICAL_NONE : PLANK_INT32;
        f[i + 1].num_children = i < 8 ? 1 : 0;
    }
    static int16_t def[DEEP_SLOTS], rep[DEEP_SLOTS];
    static int32_t vals[DEEP_SLOTS];
    uint64_t x = 77;
    int64_t rows = 0, want_def[10] = {0}, want_rep[4] = {0};
    for (int i = 0; i < DEEP_SLOTS; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned rnd = (unsigned)(x >> 33);
        /* continue the row at a repeated level the previous slot reached, or start one */
        int avail = 0;
        if (i > 0)
            while (avail < 3 && def[i - 1] >= rdef[avail + 1]) avail++;
        int r = i == 0 || avail == 0 || rnd % 5 == 0 ? 0 : 1 + (int)((rnd >> 3) % (unsigned)avail);
        int lo = r ? rdef[r] : 0;
        def[i] = (int16_t)(lo + (int)((rnd >> 8) % (unsigned)(10 - lo)));
        rep[i] = (int16_t)r;
        vals[i] = (int32_t)(rnd >> 12);
        rows += r == 0;
        want_def[def[i]]++;
        want_rep[r]++;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/deep.parquet", dir);
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.page_rows = 97;
    plank_writer *w;
    plank_error err;
    plank_status st = plank_writer_open_path(&w, path, f, 10, &o, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st != PLANK_OK) return;
    CHECK_EQ_I64(plank_writer_column_node(w, 0)->max_definition_level, 9);
    CHECK_EQ_I64(plank_writer_column_node(w, 0)->max_repetition_level, 3);
    /* a value in every slot, those below the full depth ignored (the batch layout) */
    plank_batch b = {.struct_size = sizeof b, .length = DEEP_SLOTS, .def_levels = def,
                     .rep_levels = rep, .values = vals};
    st = plank_writer_write_rows(w, &b, rows, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    plank_reader *r = close_and_reopen(w, path);
    if (!r) return;
    int64_t got_def[10] = {0}, got_rep[4] = {0}, page_def[10] = {0}, page_rep[4] = {0};
    int64_t at = 0, bad = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_column_chunk_info ci = {.struct_size = sizeof ci};
        CHECK(plank_reader_column_chunk(r, g, 0, &ci, NULL) == PLANK_OK);
        CHECK_EQ_I64(ci.num_definition_level_histogram, 10);
        CHECK_EQ_I64(ci.num_repetition_level_histogram, 4);
        for (int l = 0; l < 10 && ci.definition_level_histogram; l++)
            got_def[l] += ci.definition_level_histogram[l];
        for (int l = 0; l < 4 && ci.repetition_level_histogram; l++)
            got_rep[l] += ci.repetition_level_histogram[l];
        plank_column_index *cx = NULL;
        CHECK_MSG(plank_reader_column_index(r, g, 0, &cx, &err) == PLANK_OK, "%s", err.message);
        CHECK(cx && cx->num_pages > 1 && cx->num_definition_level_histograms == 10 * cx->num_pages &&
              cx->num_repetition_level_histograms == 4 * cx->num_pages);
        if (cx && cx->definition_level_histograms && cx->repetition_level_histograms) {
            for (int32_t p = 0; p < cx->num_pages; p++) {
                for (int l = 0; l < 10; l++) page_def[l] += cx->definition_level_histograms[10 * p + l];
                for (int l = 0; l < 4; l++) page_rep[l] += cx->repetition_level_histograms[4 * p + l];
            }
        }
        plank_column_index_free(cx);
        plank_column_reader *cr;
        CHECK(plank_column_reader_open(&cr, r, g, 0, NULL) == PLANK_OK);
        for (;;) {
            plank_batch rb = {.struct_size = sizeof rb};
            st = plank_column_reader_read(cr, 1000, &rb, &err);
            CHECK_MSG(st == PLANK_OK, "%s", err.message);
            if (st != PLANK_OK || rb.length == 0) break;
            for (int64_t i = 0; i < rb.length; i++, at++) {
                if (at >= DEEP_SLOTS || rb.def_levels[i] != def[at] || rb.rep_levels[i] != rep[at]) {
                    bad++;
                    continue;
                }
                if (def[at] == 9 && ((const int32_t *)rb.values)[i] != vals[at]) bad++;
            }
        }
        plank_column_reader_close(cr);
    }
    CHECK_EQ_I64(at, DEEP_SLOTS);
    CHECK_MSG(bad == 0, "deep column: %lld slots differ", (long long)bad);
    for (int l = 0; l < 10; l++) {
        CHECK_MSG(got_def[l] == want_def[l] && page_def[l] == want_def[l],
                  "definition level %d: chunk %lld, pages %lld, written %lld", l,
                  (long long)got_def[l], (long long)page_def[l], (long long)want_def[l]);
    }
    for (int l = 0; l < 4; l++) {
        CHECK_MSG(got_rep[l] == want_rep[l] && page_rep[l] == want_rep[l],
                  "repetition level %d: chunk %lld, pages %lld, written %lld", l,
                  (long long)got_rep[l], (long long)page_rep[l], (long long)want_rep[l]);
    }
    plank_reader_close(r);
    unlink(path);
}

/* ---- Bloom filters of dictionary-encoded pages --------------------------------- */

/* The bytes of a chunk's bloom filter as stored in the file (NULL when it has none). */
static uint8_t *bloom_bytes(plank_reader *r, const char *path, int32_t g, int32_t c, size_t *len) {
    plank_column_chunk_info ci = {.struct_size = sizeof ci};
    CHECK(plank_reader_column_chunk(r, g, c, &ci, NULL) == PLANK_OK);
    if (ci.bloom_filter_offset < 0 || ci.bloom_filter_length <= 0) return NULL;
    FILE *f = fopen(path, "rb");
    uint8_t *b = malloc((size_t)ci.bloom_filter_length);
    *len = (size_t)ci.bloom_filter_length;
    bool ok = f && fseek(f, (long)ci.bloom_filter_offset, SEEK_SET) == 0 &&
              fread(b, 1, *len, f) == *len;
    if (f) fclose(f);
    CHECK(ok);
    return b;
}

/* A dictionary-encoded page hashes its new entries into the bloom filter instead of
 * every value: the filter must be the same bytes as with the dictionary off, for
 * INT64, DOUBLE (-0.0 and +0.0, two NaNs: distinct bit patterns), strings and FLBA,
 * with a dictionary that falls back to PLAIN mid-chunk (its size limit), nulls, and
 * every value found by plank_bloom_filter_check. */
#define BD_ROWS 30000
static void test_bloom_dictionary(const char *dir) {
    static int64_t vi[BD_ROWS];
    static double vd[BD_ROWS];
    static uint8_t vf[BD_ROWS * 6];
    static int64_t so[BD_ROWS + 1];
    static char sd[BD_ROWS * 12 + 16];
    static uint8_t valid[BD_ROWS / 8 + 1];
    static const double specials[] = {-0.0, 0.0, 1.5, -2.25};
    so[0] = 0;
    for (int i = 0; i < BD_ROWS; i++) {
        /* few distinct values at first, then ever more: the dictionary fills and falls back */
        int64_t k = i < BD_ROWS / 3 ? i % 37 : (int64_t)i * 7919 % 20011;
        vi[i] = k * 1000003;
        vd[i] = i % 11 == 0 ? specials[(i / 11) % 4] : (double)k / 3.0;
        if (i % 97 == 0) {
            uint64_t nan1 = 0x7FF8000000000001ull, nan2 = 0xFFF8000000000002ull;
            memcpy(&vd[i], i % 2 ? &nan1 : &nan2, 8);
        }
        for (int b = 0; b < 6; b++) vf[i * 6 + b] = (uint8_t)(k >> (b * 3));
        int n = snprintf(sd + so[i], 13, "s%lld", (long long)(k * 31));
        so[i + 1] = so[i] + n;
        if (i % 13 != 5) valid[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    plank_schema_field f[5];
    for (int i = 0; i < 5; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 4;
    const char *names[4] = {"i", "d", "s", "f"};
    const plank_physical_type pt[4] = {PLANK_INT64, PLANK_DOUBLE, PLANK_BYTE_ARRAY,
                                       PLANK_FIXED_LEN_BYTE_ARRAY};
    for (int c = 0; c < 4; c++) {
        f[c + 1].name = names[c];
        f[c + 1].physical_type = pt[c];
        f[c + 1].repetition = PLANK_OPTIONAL;
    }
    f[4].type_length = 6;
    plank_column_options co[4];
    for (int c = 0; c < 4; c++) {
        plank_column_options_init(&co[c]);
        co[c].path = names[c];
        co[c].bloom_filter = true;
    }
    char path[2][512];
    for (int dict = 0; dict < 2; dict++) {
        snprintf(path[dict], sizeof path[dict], "%s/bloomdict%d.parquet", dir, dict);
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.dictionary = dict == 1;
        o.dictionary_page_size = 4000;
        o.page_rows = 1000;
        o.row_group_rows = 20000;
        o.columns = co;
        o.num_column_options = 4;
        plank_writer *w;
        plank_error err;
        plank_status st = plank_writer_open_path(&w, path[dict], f, 5, &o, &err);
        CHECK_MSG(st == PLANK_OK, "%s", err.message);
        if (st != PLANK_OK) return;
        plank_batch b[4];
        memset(b, 0, sizeof b);
        for (int c = 0; c < 4; c++) {
            b[c].struct_size = sizeof b[c];
            b[c].length = BD_ROWS;
            b[c].validity = valid;
        }
        b[0].values = vi;
        b[1].values = vd;
        b[2].offsets = so;
        b[2].data = (const uint8_t *)sd;
        b[3].values = vf;
        st = plank_writer_write_rows(w, b, BD_ROWS, &err);
        CHECK_MSG(st == PLANK_OK, "%s", err.message);
        CHECK_MSG(plank_writer_close(w, &err) == PLANK_OK, "%s", err.message);
    }
    plank_reader *r[2];
    for (int d = 0; d < 2; d++)
        CHECK(plank_reader_open_path(&r[d], path[d], NULL, NULL) == PLANK_OK);
    CHECK_EQ_I64(plank_reader_num_row_groups(r[1]), 2);
    int fell_back = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r[1]); g++) {
        for (int c = 0; c < 4; c++) {
            plank_column_chunk_info ci = {.struct_size = sizeof ci};
            CHECK(plank_reader_column_chunk(r[1], g, c, &ci, NULL) == PLANK_OK);
            /* data pages by encoding: dictionary-encoded ones, then fallen-back ones */
            bool has_dict = false, has_other = false;
            for (int e = 0; e < ci.num_encoding_stats; e++) {
                const plank_encoding_stat *es = &ci.encoding_stats[e];
                if (es->page_type == PLANK_PAGE_DICTIONARY) continue;
                if (es->encoding == PLANK_ENC_RLE_DICTIONARY) has_dict = true;
                else has_other = true;
            }
            CHECK_MSG(has_dict, "row group %d column %s has no dictionary pages", (int)g, names[c]);
            fell_back += has_dict && has_other;
            size_t l0 = 0, l1 = 0;
            uint8_t *b0 = bloom_bytes(r[0], path[0], g, c, &l0), *b1 = bloom_bytes(r[1], path[1], g, c, &l1);
            CHECK_MSG(b0 && b1 && l0 == l1 && memcmp(b0, b1, l0) == 0,
                      "row group %d column %s: bloom filters differ with the dictionary on", (int)g,
                      names[c]);
            free(b0);
            free(b1);
            plank_bloom_filter *bf = NULL;
            CHECK(plank_reader_bloom_filter(r[1], g, c, &bf, NULL) == PLANK_OK && bf);
            int missing = 0;
            for (int i = g * 20000; bf && i < BD_ROWS && i < (g + 1) * 20000; i++) {
                if (!(valid[i / 8] >> (i % 8) & 1)) continue;
                const void *p = c == 0 ? (const void *)&vi[i] : c == 1 ? (const void *)&vd[i]
                                : c == 2 ? (const void *)(sd + so[i]) : (const void *)(vf + i * 6);
                size_t len = c < 2 ? 8 : c == 2 ? (size_t)(so[i + 1] - so[i]) : 6;
                missing += !plank_bloom_filter_check(bf, p, len);
            }
            CHECK_MSG(missing == 0, "column %s: %d values missing from the bloom filter", names[c],
                      missing);
            plank_bloom_filter_free(bf);
        }
    }
    CHECK_MSG(fell_back >= 4, "only %d chunks fell back from their dictionary", fell_back);
    for (int d = 0; d < 2; d++) {
        plank_reader_close(r[d]);
        unlink(path[d]);
    }
}

/* ---- NaN pages in the ColumnIndex ------------------------------------------ */

/* Counts the rows of `where` through the pushdown scan (page index on). */
static int64_t scan_count(plank_reader *r, const char *where) {
    plank_expr *e = NULL;
    plank_error err;
    plank_error_init(&err);
    CHECK_MSG(plank_expr_parse(where, NULL, &e, &err) == PLANK_OK, "%s", err.message);
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    plank_scan *s = NULL;
    int64_t n = -1;
    CHECK_MSG(plank_scan_open(&s, r, &o, &err) == PLANK_OK, "%s", err.message);
    if (s) CHECK_MSG(plank_scan_count(s, &n, &err) == PLANK_OK, "%s", err.message);
    plank_scan_close(s);
    plank_expr_free(e);
    return n;
}

/* Pages of 4 rows of an optional FLOAT and DOUBLE column, given as text
 * ("n" NaN, "~" null, else the number). A page whose values are all null is
 * the only null page. A page whose non-null values are all NaN has no
 * bounds: with TYPE_ORDER parquet.thrift says NaN must not be written to
 * min_values / max_values and the chunk's column index must then be left
 * out (before, such pages were marked null pages, and a reader pruning on
 * null_pages dropped their rows). The scan's counts against a brute-force
 * count: NaN <> 1 is true and NaN > 0 too (DuckDB orders NaN above every
 * number), null is unknown. */
static void test_nan_pages(const char *dir) {
    static const char *const cases[2][4][4] = {
        {{"n", "n", "n", "n"}, {"n", "~", "n", "~"}, {"~", "~", "~", "~"}, {"n", "2", "~", "5"}},
        {{"~", "~", "~", "~"}, {"n", "-1", "n", "3"}, {"n", "~", "1", "n"}, {"4", "4", "4", "4"}},
    };
    char path[512];
    snprintf(path, sizeof path, "%s/nan_pages.parquet", dir);
    for (int k = 0; k < 2; k++) {
        plank_schema_field f[3];
        for (int i = 0; i < 3; i++) plank_schema_field_init(&f[i]);
        f[0].num_children = 2;
        f[1].name = "f";
        f[1].physical_type = PLANK_FLOAT;
        f[1].repetition = PLANK_OPTIONAL;
        f[2].name = "d";
        f[2].physical_type = PLANK_DOUBLE;
        f[2].repetition = PLANK_OPTIONAL;
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.page_rows = 4;
        o.dictionary = false;
        plank_writer *w;
        plank_error err;
        CHECK_MSG(plank_writer_open_path(&w, path, f, 3, &o, &err) == PLANK_OK, "%s", err.message);
        float fv[16];
        double dv[16];
        uint8_t valid[2] = {0, 0};
        int64_t want_ne1 = 0, want_gt0 = 0, want_null = 0;
        for (int i = 0; i < 16; i++) {
            const char *t = cases[k][i / 4][i % 4];
            dv[i] = t[0] == 'n' ? (double)NAN : t[0] == '~' ? 0.0 : atof(t);
            fv[i] = (float)dv[i];
            if (t[0] == '~') {
                want_null++;
                continue;
            }
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
            if (!(dv[i] == 1.0)) want_ne1++;
            if (dv[i] > 0 || isnan(dv[i])) want_gt0++; /* NaN above all, as in DuckDB */
        }
        plank_batch b;
        memset(&b, 0, sizeof b);
        b.struct_size = sizeof b;
        b.length = 16;
        b.validity = valid;
        b.values = fv;
        CHECK(plank_writer_write_column(w, 0, &b, NULL) == PLANK_OK);
        b.values = dv;
        CHECK(plank_writer_write_column(w, 1, &b, NULL) == PLANK_OK);
        CHECK(plank_writer_close(w, NULL) == PLANK_OK);

        plank_reader *r;
        CHECK(plank_reader_open_path(&r, path, NULL, NULL) == PLANK_OK);
        for (int32_t c = 0; c < 2; c++) {
            plank_column_index *ci = NULL;
            CHECK(plank_reader_column_index(r, 0, c, &ci, NULL) == PLANK_OK);
            CHECK_MSG((ci != NULL) == (k == 1), "column %d: ColumnIndex present %d", c,
                      ci != NULL);
            if (k == 0) {
                CHECK_MSG(ci == NULL, "column %d: a ColumnIndex with an all-NaN page", c);
            } else if (ci) {
                CHECK_EQ_I64(ci->num_pages, 4);
                static const bool null_pages[4] = {true, false, false, false};
                static const double lo[4] = {0, -1, 1, 4}, hi[4] = {0, 3, 1, 4};
                for (int p = 0; p < 4 && p < ci->num_pages; p++) {
                    CHECK_EQ_I64(ci->null_pages[p], null_pages[p]);
                    CHECK_EQ_I64(ci->null_counts[p], p == 0 ? 4 : p == 2 ? 1 : 0);
                    if (null_pages[p]) {
                        CHECK_EQ_I64(ci->min_lens[p], 0);
                        continue;
                    }
                    double mn, mx;
                    if (c == 0) {
                        float a, z;
                        CHECK_EQ_I64(ci->min_lens[p], 4);
                        memcpy(&a, ci->min_values[p], 4);
                        memcpy(&z, ci->max_values[p], 4);
                        mn = a;
                        mx = z;
                    } else {
                        CHECK_EQ_I64(ci->min_lens[p], 8);
                        memcpy(&mn, ci->min_values[p], 8);
                        memcpy(&mx, ci->max_values[p], 8);
                    }
                    CHECK_MSG(mn == lo[p] && mx == hi[p], "column %d page %d: [%g, %g]", c, p,
                              mn, mx);
                }
            }
            plank_column_index_free(ci);
        }
        CHECK_EQ_I64(scan_count(r, "f <> 1"), want_ne1);
        CHECK_EQ_I64(scan_count(r, "d <> 1"), want_ne1);
        CHECK_EQ_I64(scan_count(r, "d > 0"), want_gt0);
        CHECK_EQ_I64(scan_count(r, "f IS NULL"), want_null);
        CHECK_EQ_I64(scan_count(r, "d <> 1 OR d IS NULL"), want_ne1 + want_null);
        plank_reader_close(r);
    }
    unlink(path);
}

/* ---- Boundary order, failures ------------------------------------------------ */

static void test_boundary_order(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/order.parquet", dir);
    for (int dir_i = 0; dir_i < 3; dir_i++) {
        plank_schema_field f[2];
        plank_schema_field_init(&f[0]);
        plank_schema_field_init(&f[1]);
        f[0].num_children = 1;
        f[1].name = "x";
        f[1].physical_type = PLANK_INT64;
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.page_rows = 10;
        plank_writer *w;
        CHECK(plank_writer_open_path(&w, path, f, 2, &o, NULL) == PLANK_OK);
        int64_t v[100];
        for (int i = 0; i < 100; i++)
            v[i] = dir_i == 0 ? i : dir_i == 1 ? 100 - i : (i * 37) % 100;
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        memset(&b, 0, sizeof b);
        b.struct_size = sizeof b;
        b.length = 100;
        b.values = v;
        CHECK(plank_writer_write_rows(w, &b, 100, NULL) == PLANK_OK);
        CHECK(plank_writer_close(w, NULL) == PLANK_OK);
        plank_reader *r;
        CHECK(plank_reader_open_path(&r, path, NULL, NULL) == PLANK_OK);
        plank_column_index *ci = NULL;
        CHECK(plank_reader_column_index(r, 0, 0, &ci, NULL) == PLANK_OK && ci);
        if (ci) {
            CHECK_EQ_I64(ci->num_pages, 10);
            plank_boundary_order want = dir_i == 0 ? PLANK_BOUNDARY_ASCENDING
                                        : dir_i == 1 ? PLANK_BOUNDARY_DESCENDING
                                                     : PLANK_BOUNDARY_UNORDERED;
            CHECK_EQ_I64(ci->boundary_order, want);
        }
        plank_column_index_free(ci);
        plank_reader_close(r);
    }
    unlink(path);
}

/* The dictionary's sample of a chunk's first page (plank_writer_options.
 * dictionary_sample): columns of nearly all distinct values, and sorted runs
 * that DELTA packs tighter than indices, get no dictionary at all; a column
 * of 2,526 values (TPC-H's dates), whose sample of 1,024 is 82% new entries
 * while its page is 13%, keeps its dictionary; with the sample off, or a
 * column that names RLE_DICTIONARY, every column starts with one. Values
 * read back equal what was written in every case. */
/* Writes n rows of flat required columns to path in one row group:
 * fixed-width columns from values[c], the BYTE_ARRAY one from toff/text.
 * Returns whether the writer took them (failures are checks). */
static bool write_flat(const char *path, int ncol, const char *const *names,
                       const plank_physical_type *types, const void *const *values,
                       const int64_t *toff, const char *text, int64_t n,
                       const plank_writer_options *o) {
    plank_schema_field f[8];
    plank_batch b[7];
    if (ncol > 7) return false;
    for (int c = 0; c <= ncol; c++) plank_schema_field_init(&f[c]);
    f[0].num_children = ncol;
    memset(b, 0, sizeof b);
    for (int c = 0; c < ncol; c++) {
        f[c + 1].name = names[c];
        f[c + 1].physical_type = types[c];
        b[c].struct_size = sizeof b[c];
        b[c].length = n;
        if (types[c] == PLANK_BYTE_ARRAY) {
            b[c].offsets = toff;
            b[c].data = (const uint8_t *)text;
        } else {
            b[c].values = values[c];
        }
    }
    plank_writer *w;
    plank_error err;
    if (plank_writer_open_path(&w, path, f, ncol + 1, o, &err) != PLANK_OK) {
        CHECK_MSG(false, "open %s: %s", path, err.message);
        return false;
    }
    bool ok = plank_writer_write_rows(w, b, n, &err) == PLANK_OK;
    CHECK_MSG(ok, "write: %s", err.message);
    if (!ok) {
        plank_writer_abort(w);
        return false;
    }
    ok = plank_writer_close(w, &err) == PLANK_OK;
    CHECK_MSG(ok, "close: %s", err.message);
    return ok;
}

/* Reads leaf c of row group 0 of r back in batches of `step` and counts
 * the values of its n rows that differ from the expected ones: width 4 or
 * 8 (int32 / int64 values), or 0 (byte strings toff/text). A read error or
 * a row count other than n counts as a failed check. */
static int64_t read_back(plank_reader *r, int c, int64_t step, int64_t n, int width,
                         const void *values, const int64_t *toff, const char *text) {
    plank_column_reader *cr;
    plank_error err;
    if (plank_column_reader_open(&cr, r, 0, c, &err) != PLANK_OK) {
        CHECK_MSG(false, "column %d: %s", c, err.message);
        return n;
    }
    int64_t row = 0, bad = 0;
    for (;;) {
        plank_batch rb = {.struct_size = sizeof(plank_batch)};
        plank_status st = plank_column_reader_read(cr, step, &rb, &err);
        if (st != PLANK_OK || rb.length == 0) {
            CHECK_MSG(st == PLANK_OK, "read: %s", err.message);
            break;
        }
        for (int64_t i = 0; i < rb.length && row < n; i++, row++) {
            bool same;
            if (width == 0)
                same = rb.offsets[i + 1] - rb.offsets[i] == toff[row + 1] - toff[row] &&
                       memcmp(rb.data + rb.offsets[i], text + toff[row],
                              (size_t)(toff[row + 1] - toff[row])) == 0;
            else if (width == 4)
                same = ((const int32_t *)rb.values)[i] == ((const int32_t *)values)[row];
            else
                same = ((const int64_t *)rb.values)[i] == ((const int64_t *)values)[row];
            bad += !same;
        }
    }
    CHECK_EQ_I64(row, n);
    plank_column_reader_close(cr);
    return bad;
}

enum { DS_UNIQ, DS_DATES, DS_RAMP, DS_TEXT, DS_NCOL };
static void test_dictionary_sample(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/dsample.parquet", dir);
    const int64_t n = 20000;
    int64_t *uniq = malloc(sizeof(int64_t) * (size_t)n);
    int32_t *dates = malloc(sizeof(int32_t) * (size_t)n);
    int64_t *ramp = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *toff = malloc(sizeof(int64_t) * (size_t)(n + 1));
    char *text = malloc((size_t)n * 24);
    CHECK(uniq && dates && ramp && toff && text);
    if (!uniq || !dates || !ramp || !toff || !text) goto out;
    toff[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        uniq[i] = (int64_t)mix((uint64_t)i + 12345);
        dates[i] = (int32_t)(mix((uint64_t)i * 7 + 1) % 2526) + 8035;
        ramp[i] = i / 4 + 1000000;
        int len = snprintf(text + toff[i], 24, "row %lld %llx", (long long)i,
                           (unsigned long long)(mix((uint64_t)i) & 0xffffff));
        toff[i + 1] = toff[i] + len;
    }
    for (int mode = 0; mode < 3; mode++) { /* default, sample off, RLE_DICTIONARY named */
        const char *names[DS_NCOL] = {"uniq", "dates", "ramp", "text"};
        plank_physical_type types[DS_NCOL] = {PLANK_INT64, PLANK_INT32, PLANK_INT64,
                                              PLANK_BYTE_ARRAY};
        const void *values[DS_NCOL] = {uniq, dates, ramp, NULL};
        plank_writer_options o;
        plank_writer_options_init(&o);
        CHECK(o.dictionary_sample);
        if (mode == 1) o.dictionary_sample = false;
        plank_column_options co[DS_NCOL];
        if (mode == 2) {
            for (int c = 0; c < DS_NCOL; c++) {
                plank_column_options_init(&co[c]);
                co[c].path = names[c];
                co[c].encoding = PLANK_ENC_RLE_DICTIONARY;
            }
            o.columns = co;
            o.num_column_options = DS_NCOL;
        }
        if (!write_flat(path, DS_NCOL, names, types, values, toff, text, n, &o)) continue;
        plank_error err;
        plank_reader *r;
        if (plank_reader_open_path(&r, path, NULL, &err) != PLANK_OK) {
            CHECK_MSG(false, "open: %s", err.message);
            continue;
        }
        for (int c = 0; c < DS_NCOL; c++) {
            plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
            CHECK(plank_reader_column_chunk(r, 0, c, &ci, NULL) == PLANK_OK);
            bool want = mode > 0 || c == DS_DATES;
            CHECK_MSG((ci.dictionary_page_offset >= 0) == want,
                      "mode %d column %s: dictionary %s", mode, names[c],
                      ci.dictionary_page_offset >= 0 ? "present" : "absent");
            int64_t bad = read_back(r, c, 3000, n, c == DS_TEXT ? 0 : c == DS_DATES ? 4 : 8,
                                    c == DS_DATES ? (const void *)dates
                                                  : c == DS_UNIQ ? (const void *)uniq : ramp,
                                    toff, text);
            CHECK_MSG(bad == 0, "mode %d column %s: %lld values differ", mode, names[c],
                      (long long)bad);
        }
        plank_reader_close(r);
    }
out:
    free(uniq);
    free(dates);
    free(ramp);
    free(toff);
    free(text);
    unlink(path);
}

/* v2_min_saving: a v2 page whose values compression does not shrink by
 * that fraction is stored uncompressed. Observed through the chunk sizes
 * (a chunk of uncompressed v2 pages has equal compressed and uncompressed
 * totals; no dictionary here) and checked by reading every value back.
 * Columns (PLAIN): random 64-bit values (no codec can shrink them), random
 * values with some repeats (a few percent to save) and a repetitive text
 * (shrunk many times over). */
enum { MS_NOISE, MS_SOME, MS_TEXT, MS_NCOL };

static void test_v2_min_saving(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/minsave.parquet", dir);
    const int64_t n = 30000;
    int64_t *noise = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *some = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *toff = malloc(sizeof(int64_t) * (size_t)(n + 1));
    char *text = malloc((size_t)n * 16);
    CHECK(noise && some && toff && text);
    if (!noise || !some || !toff || !text) goto out;
    toff[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        noise[i] = (int64_t)mix((uint64_t)i * 3 + 99);
        int len = snprintf(text + toff[i], 16, "mode %d", (int)(i % 7));
        toff[i + 1] = toff[i] + len;
    }
    /* {page_version, v2_min_saving (< 0: the default)}; expected per column:
     * 1 = compressed (smaller), 0 = stored (equal totals) */
    static const struct {
        int version;
        double saving;
        int want[MS_NCOL];
    } modes[] = {
        {2, -1, {0, 0, 1}},  /* default 0.1: a few percent is not enough */
        {2, 0.0, {0, 1, 1}}, /* any saving keeps compression (arrow-rs' default) */
        {2, 1.0, {0, 0, 0}}, /* every page stored */
        {1, 1.0, {1, 1, 1}}, /* v1 pages have no flag: always compressed */
    };
    plank_codec codecs[] = {PLANK_CODEC_ZSTD, PLANK_CODEC_SNAPPY};
    for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
        if (codecs[ci] != PLANK_CODEC_SNAPPY && !plank_codec_available(codecs[ci])) continue;
        /* Random values of which every k-th repeats the one before: what
         * the codec saves on them (ZSTD 7.5%, SNAPPY 6%) is below the
         * default's tenth and above 0. */
        int64_t k = codecs[ci] == PLANK_CODEC_ZSTD ? 12 : 8;
        for (int64_t i = 0; i < n; i++)
            some[i] = i % k == k - 1 ? some[i - 1] : (int64_t)mix((uint64_t)i * 5 + 7);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            const char *names[MS_NCOL] = {"noise", "some", "text"};
            plank_physical_type types[MS_NCOL] = {PLANK_INT64, PLANK_INT64, PLANK_BYTE_ARRAY};
            const void *values[MS_NCOL] = {noise, some, NULL};
            plank_column_options co[MS_NCOL];
            int32_t encs[MS_NCOL] = {PLANK_ENC_PLAIN, PLANK_ENC_PLAIN, PLANK_ENC_PLAIN};
            for (int c = 0; c < MS_NCOL; c++) {
                plank_column_options_init(&co[c]);
                co[c].path = names[c];
                co[c].encoding = encs[c];
            }
            plank_writer_options o;
            plank_writer_options_init(&o);
            CHECK(o.v2_min_saving == 0.1);
            o.codec = codecs[ci];
            o.dictionary = false;
            o.page_version = modes[m].version;
            if (modes[m].saving >= 0) o.v2_min_saving = modes[m].saving;
            o.columns = co;
            o.num_column_options = MS_NCOL;
            if (!write_flat(path, MS_NCOL, names, types, values, toff, text, n, &o)) continue;
            plank_error err;
            plank_reader *r;
            if (plank_reader_open_path(&r, path, NULL, &err) != PLANK_OK) {
                CHECK_MSG(false, "reopen: %s", err.message);
                continue;
            }
            for (int c = 0; c < MS_NCOL; c++) {
                plank_column_chunk_info info = {.struct_size = sizeof(plank_column_chunk_info)};
                CHECK(plank_reader_column_chunk(r, 0, c, &info, NULL) == PLANK_OK);
                bool compressed = info.total_compressed_size != info.total_uncompressed_size;
                CHECK_MSG(compressed == (modes[m].want[c] == 1),
                          "%s, v%d, min saving %g, column %s: %lld bytes stored for %lld",
                          plank_codec_name(codecs[ci]), modes[m].version, modes[m].saving,
                          names[c], (long long)info.total_compressed_size,
                          (long long)info.total_uncompressed_size);
                if (modes[m].want[c] == 1 && c == MS_TEXT)
                    CHECK(info.total_compressed_size * 4 < info.total_uncompressed_size);
                int64_t bad = read_back(r, c, 7000, n, c == MS_TEXT ? 0 : 8,
                                        c == MS_SOME ? some : noise, toff, text);
                CHECK_MSG(bad == 0, "column %s: %lld values differ", names[c], (long long)bad);
            }
            plank_reader_close(r);
        }
    }
    /* out of range: refused at open */
    double bad_values[] = {-0.01, 1.01, NAN};
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        plank_schema_field f[2];
        plank_schema_field_init(&f[0]);
        plank_schema_field_init(&f[1]);
        f[0].num_children = 1;
        f[1].name = "x";
        f[1].physical_type = PLANK_INT32;
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.v2_min_saving = bad_values[i];
        plank_writer *w = NULL;
        plank_error err;
        CHECK(plank_writer_open_path(&w, path, f, 2, &o, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(w == NULL);
        CHECK(strstr(err.message, "v2_min_saving") != NULL);
    }
out:
    free(noise);
    free(some);
    free(toff);
    free(text);
    unlink(path);
}

/* A sink that fails at its Nth write. */
typedef struct fail_sink {
    int calls, fail_at;
    size_t bytes;
    bool finished, closed;
} fail_sink;

static plank_status fs_write(void *o, const void *buf, size_t len) {
    fail_sink *s = o;
    (void)buf;
    if (++s->calls == s->fail_at) return PLANK_ERR_IO;
    s->bytes += len;
    return PLANK_OK;
}
static plank_status fs_finish(void *o) { ((fail_sink *)o)->finished = true; return PLANK_OK; }
static void fs_close(void *o) { ((fail_sink *)o)->closed = true; }

static void test_failures(const char *dir) {
    /* a sink failing at each of its calls: an error, close called once, no finish */
    plank_schema_field f[NCOL + 1];
    schema_flat(f);
    int total_calls = 0;
    for (int fail_at = 0;; fail_at++) {
        fail_sink fs = {0, fail_at, 0, false, false};
        plank_sink sink = {sizeof(plank_sink), fs_write, fs_finish, fs_close, &fs};
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.row_group_rows = 100;
        o.page_rows = 30;
        plank_writer *w;
        plank_error err;
        plank_status st = plank_writer_open_sink(&w, &sink, f, NCOL + 1, &o, &err);
        for (int64_t r = 0; r < 300 && st == PLANK_OK; r += 150) {
            plank_batch b[NCOL];
            colbuf cb[NCOL];
            for (int c = 0; c < NCOL; c++) make_batch(c, r, r + 150, &cb[c], &b[c]);
            st = plank_writer_write_rows(w, b, 150, &err);
            for (int c = 0; c < NCOL; c++) free_batch(&cb[c]);
        }
        if (st == PLANK_OK) st = plank_writer_close(w, &err);
        else if (w) plank_writer_abort(w);
        CHECK(fs.closed);
        if (fail_at == 0) {
            CHECK(st == PLANK_OK && fs.finished);
            total_calls = fs.calls;
            continue;
        }
        CHECK_MSG(st == PLANK_ERR_IO, "fail at %d: status %d", fail_at, (int)st);
        CHECK(!fs.finished);
        if (fail_at >= total_calls) break;
    }
    CHECK(total_calls > 10);

    /* abort and failed writes leave nothing at the path */
    char path[512];
    snprintf(path, sizeof path, "%s/aborted.parquet", dir);
    plank_writer *w;
    CHECK(plank_writer_open_path(&w, path, f, NCOL + 1, NULL, NULL) == PLANK_OK);
    plank_writer_abort(w);
    CHECK(access(path, F_OK) != 0);
    /* invalid input is refused with INVALID_ARGUMENT and the writer stays usable */
    CHECK(plank_writer_open_path(&w, path, f, NCOL + 1, NULL, NULL) == PLANK_OK);
    plank_batch b[NCOL];
    colbuf cb[NCOL];
    for (int c = 0; c < NCOL; c++) make_batch(c, 0, 10, &cb[c], &b[c]);
    plank_error err;
    CHECK(plank_writer_write_rows(w, b, 11, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "records") != NULL);
    /* byte-array offsets that decrease, or start below 0, named by slot */
    {
        int64_t keep[11];
        memcpy(keep, cb[5].offsets, sizeof keep);
        for (int i = 0; i <= 10; i++) cb[5].offsets[i] = i;
        cb[5].offsets[6] = 4; /* slot 5: 5 -> 4 */
        CHECK(plank_writer_write_rows(w, b, 10, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strstr(err.message, "offsets decrease at slot 5") != NULL, "%s", err.message);
        CHECK(plank_writer_write_column(w, 5, &b[5], &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strstr(err.message, "offsets decrease at slot 5") != NULL, "%s", err.message);
        for (int i = 0; i <= 10; i++) cb[5].offsets[i] = i - 1;
        CHECK(plank_writer_write_rows(w, b, 10, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strstr(err.message, "offsets decrease at slot 0") != NULL, "%s", err.message);
        memcpy(cb[5].offsets, keep, sizeof keep);
    }
    CHECK(plank_writer_write_column(w, 0, &b[0], NULL) == PLANK_OK);
    CHECK(plank_writer_end_row_group(w, &err) == PLANK_ERR_INVALID_ARGUMENT); /* columns differ */
    for (int c = 1; c < NCOL; c++) CHECK(plank_writer_write_column(w, c, &b[c], NULL) == PLANK_OK);
    CHECK(plank_writer_end_row_group(w, &err) == PLANK_OK);
    for (int c = 0; c < NCOL; c++) free_batch(&cb[c]);
    CHECK(plank_writer_close(w, &err) == PLANK_OK);
    CHECK(access(path, F_OK) == 0);
    /* the usual mode of a new file, not a temporary file's 0600 */
    mode_t um = umask(022);
    umask(um);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~um));
    unlink(path);
    /* bad schemas */
    plank_schema_field bad[2];
    plank_schema_field_init(&bad[0]);
    plank_schema_field_init(&bad[1]);
    bad[0].num_children = 1;
    bad[1].name = "x";
    bad[1].physical_type = PLANK_INT32;
    bad[1].logical.kind = PLANK_LOGICAL_STRING;
    CHECK(plank_writer_open_path(&w, path, bad, 2, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "does not apply") != NULL);
    bad[1].logical.kind = PLANK_LOGICAL_NONE;
    bad[0].num_children = 2;
    CHECK(plank_writer_open_path(&w, path, bad, 2, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(access(path, F_OK) != 0);
}

/* Every allocation failing in turn during a small write: a clean error and
 * no leak. */
static void test_alloc_failures(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/alloc.parquet", dir);
    config cf = {PLANK_CODEC_UNCOMPRESSED, 2, true, 0, 50, 100, false, 2, 1, 0, 0};
    if (plank_codec_available(PLANK_CODEC_ZSTD)) cf.codec = PLANK_CODEC_ZSTD;
    int64_t total = 0;
    int failures_seen = 0;
    for (int64_t n = 1;; n++) {
        th_alloc ta;
        plank_allocator a = th_alloc_init(&ta);
        ta.fail_at = n;
        plank_error err;
        plank_status st = write_file(path, &cf, 250, &a, &err);
        CHECK_MSG(ta.live_blocks == 0 && ta.live_bytes == 0, "fail at %lld: leak %lld blocks",
                  (long long)n, (long long)ta.live_blocks);
        if (!ta.failed) {
            CHECK(st == PLANK_OK);
            total = n;
            break;
        }
        failures_seen++;
        CHECK_MSG(st == PLANK_ERR_OUT_OF_MEMORY, "fail at %lld: status %d (%s)", (long long)n,
                  (int)st, err.message);
        CHECK(access(path, F_OK) != 0);
    }
    fprintf(stderr, "alloc failures: %d injected over %lld allocations\n", failures_seen,
            (long long)total);
    if (access(path, F_OK) == 0) verify_file(path, &cf, 250);
    unlink(path);
}

/* A th_alloc behind a mutex: with threads the writer allocates from several
 * threads at once. */
typedef struct locked_alloc {
    pthread_mutex_t mu;
    plank_allocator inner;
} locked_alloc;

static void *locked_realloc(void *opaque, void *p, size_t old_n, size_t new_n) {
    locked_alloc *l = opaque;
    pthread_mutex_lock(&l->mu);
    void *q = l->inner.reallocate(l->inner.opaque, p, old_n, new_n);
    pthread_mutex_unlock(&l->mu);
    return q;
}

static void locked_free(void *opaque, void *p, size_t n) {
    locked_alloc *l = opaque;
    pthread_mutex_lock(&l->mu);
    l->inner.free(l->inner.opaque, p, n);
    pthread_mutex_unlock(&l->mu);
}

/* Every allocation failing in turn while two and three threads encode:
 * wherever the failure lands (which allocation is the n-th depends on the
 * threads' timing), a clean error, no leak and no file. */
static void test_alloc_failures_threads(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/alloc_threads.parquet", dir);
    int32_t most = getenv("PLANK_WRITER_QUICK") ? 2 : 3;
    for (int32_t threads = 2; threads <= most; threads++) {
        config cf = {PLANK_CODEC_UNCOMPRESSED, 2, true, 0, 50, 100, false, 2, threads, 0, 0};
        if (plank_codec_available(PLANK_CODEC_ZSTD)) cf.codec = PLANK_CODEC_ZSTD;
        int failures_seen = 0;
        for (int64_t n = 1;; n++) {
            th_alloc ta;
            locked_alloc la;
            pthread_mutex_init(&la.mu, NULL);
            la.inner = th_alloc_init(&ta);
            plank_allocator a = {locked_realloc, locked_free, &la};
            ta.fail_at = n;
            plank_error err;
            plank_status st = write_file(path, &cf, 250, &a, &err);
            pthread_mutex_destroy(&la.mu);
            CHECK_MSG(ta.live_blocks == 0 && ta.live_bytes == 0,
                      "%d threads, fail at %lld: leak %lld blocks", (int)threads, (long long)n,
                      (long long)ta.live_blocks);
            if (!ta.failed) {
                CHECK(st == PLANK_OK);
                break;
            }
            failures_seen++;
            CHECK_MSG(st == PLANK_ERR_OUT_OF_MEMORY, "%d threads, fail at %lld: status %d (%s)",
                      (int)threads, (long long)n, (int)st, err.message);
            CHECK(access(path, F_OK) != 0);
        }
        fprintf(stderr, "alloc failures on %d threads: %d injected\n", (int)threads,
                failures_seen);
        if (access(path, F_OK) == 0) verify_file(path, &cf, 250);
        unlink(path);
    }
}

/* The threads option: its range, and a caller built before it existed. */
static void test_threads_option(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/threads_opt.parquet", dir);
    plank_schema_field f[NCOL + 1];
    schema_flat(f);
    plank_writer_options o;
    plank_writer_options_init(&o);
    CHECK_EQ_I64(o.threads, 1);
    plank_writer *w = NULL;
    plank_error err;
    o.threads = -1;
    CHECK(plank_writer_open_path(&w, path, f, NCOL + 1, &o, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "threads") != NULL);
    o.threads = 1025;
    CHECK(plank_writer_open_path(&w, path, f, NCOL + 1, &o, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(access(path, F_OK) != 0);
    /* the first layout (up to num_column_options): threads is not read, so a
     * garbage value there is ignored and the writer runs on one thread */
    o.threads = -7;
    o.struct_size = offsetof(plank_writer_options, num_column_options) + sizeof(int32_t);
    CHECK(plank_writer_open_path(&w, path, f, NCOL + 1, &o, &err) == PLANK_OK);
    if (w) {
        plank_batch b[NCOL];
        colbuf cb[NCOL];
        for (int c = 0; c < NCOL; c++) make_batch(c, 0, 100, &cb[c], &b[c]);
        CHECK(plank_writer_write_rows(w, b, 100, &err) == PLANK_OK);
        for (int c = 0; c < NCOL; c++) free_batch(&cb[c]);
        CHECK(plank_writer_close(w, &err) == PLANK_OK);
    }
    unlink(path);
}

/* Optional byte strings whose null slots are empty are encoded from the
 * caller's buffers; with bytes in the null slots (ignored by the writer) they
 * are staged. Both must give the same file, byte for byte, with pages cut by
 * bytes and by rows, dictionary on and off. */
static void test_inplace_strings(const char *dir) {
    enum { N = 30000 };
    static int64_t offs_a[N + 1], offs_b[N + 1];
    static uint8_t data_a[N * 40], data_b[N * 48];
    static uint8_t valid[N / 8 + 1];
    uint64_t h = 7;
    int64_t pa = 0, pb = 0;
    memset(valid, 0, sizeof valid);
    for (int64_t i = 0; i < N; i++) {
        h = mix(h + (uint64_t)i);
        bool null = h % 7 == 0;
        offs_a[i] = pa;
        offs_b[i] = pb;
        if (null) {
            memcpy(data_b + pb, "junk", 4); /* bytes the writer must ignore */
            pb += 4;
            continue;
        }
        valid[i / 8] |= (uint8_t)(1u << (i % 8));
        size_t len = (size_t)(h >> 8) % 40;
        for (size_t k = 0; k < len; k++) data_a[pa + (int64_t)k] = data_b[pb + (int64_t)k] = (uint8_t)('a' + (h >> (k % 50)) % 3);
        pa += (int64_t)len;
        pb += (int64_t)len;
    }
    offs_a[N] = pa;
    offs_b[N] = pb;
    plank_schema_field f[2];
    plank_schema_field_init(&f[0]);
    plank_schema_field_init(&f[1]);
    f[0].num_children = 1;
    f[1].name = "s";
    f[1].physical_type = PLANK_BYTE_ARRAY;
    f[1].repetition = PLANK_OPTIONAL;
    f[1].logical.kind = PLANK_LOGICAL_STRING;
    int files = 0;
    /* page sizes around the staged size after 1, 2, 3 ... steps of 4096 rows
     * (about 21 bytes a row here), so that a page cut one step early or late
     * shows */
    static const int64_t sizes[] = {1 << 20, 3000, 60000, 80000, 100000, 120000, 140000,
                                    160000, 170000, 175000, 180000, 200000, 250000};
    for (int dict = 0; dict < 2; dict++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            int by_rows = si == 0;
            char pth[2][512];
            for (int v = 0; v < 2; v++) {
                snprintf(pth[v], sizeof pth[v], "%s/inplace_%d.parquet", dir, v);
                plank_writer_options o;
                plank_writer_options_init(&o);
                o.codec = PLANK_CODEC_UNCOMPRESSED;
                o.dictionary = dict;
                o.page_size = sizes[si];
                o.page_rows = by_rows ? 4500 : 20000;
                o.row_group_rows = 25000;
                plank_writer *w;
                plank_error err;
                CHECK(plank_writer_open_path(&w, pth[v], f, 2, &o, &err) == PLANK_OK);
                plank_batch b = {.struct_size = sizeof b, .length = N, .validity = valid,
                                 .offsets = v ? offs_b : offs_a, .data = v ? data_b : data_a};
                CHECK_MSG(plank_writer_write_rows(w, &b, N, &err) == PLANK_OK, "%s", err.message);
                CHECK(plank_writer_close(w, &err) == PLANK_OK);
            }
            size_t na = 0, nb = 0;
            unsigned char *a = th_read_file(pth[0], &na), *bb = th_read_file(pth[1], &nb);
            CHECK_MSG(a && bb && na == nb && memcmp(a, bb, na) == 0,
                      "dictionary %d, page size %lld: in place and staged differ (%zu, %zu bytes)",
                      dict, (long long)sizes[si], na, nb);
            free(a);
            free(bb);
            unlink(pth[0]);
            unlink(pth[1]);
            files++;
        }
    fprintf(stderr, "in-place strings: %d pairs identical\n", files);
}

/* The same for a nested file (lists, structs, maps; page v2, tiny pages). */
static void test_alloc_failures_nested(const char *dir) {
    static leafbuf lb[5];
    char path[512];
    snprintf(path, sizeof path, "%s/alloc_nested.parquet", dir);
    static const int widths[5] = {8, 0, 8, 0, 4};
    gen_nested(0, 200, lb);
    int failures_seen = 0;
    for (int64_t n = 1;; n++) {
        th_alloc ta;
        plank_allocator a = th_alloc_init(&ta);
        ta.fail_at = n;
        plank_schema_field f[11];
        schema_nested(f);
        plank_writer_options o;
        plank_writer_options_init(&o);
        o.allocator = &a;
        o.page_version = 2;
        o.page_rows = 9;
        o.row_group_rows = 120;
        plank_column_options co;
        plank_column_options_init(&co);
        co.path = "st.a";
        co.bloom_filter = true;
        o.columns = &co;
        o.num_column_options = 1;
        plank_writer *w = NULL;
        plank_error err;
        plank_status st = plank_writer_open_path(&w, path, f, 11, &o, &err);
        if (st == PLANK_OK) {
            plank_batch b[5];
            memset(b, 0, sizeof b);
            for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
            for (int k = 0; k < 5; k++) {
                b[k].length = lb[k].n;
                b[k].def_levels = lb[k].def;
                b[k].rep_levels = lb[k].rep;
                if (widths[k]) b[k].values = lb[k].vals;
                else {
                    b[k].offsets = lb[k].offs;
                    b[k].data = (const uint8_t *)lb[k].data;
                }
            }
            st = plank_writer_write_rows(w, b, 200, &err);
            if (st == PLANK_OK) st = plank_writer_close(w, &err);
            else plank_writer_abort(w);
        }
        CHECK_MSG(ta.live_blocks == 0 && ta.live_bytes == 0, "fail at %lld: leak", (long long)n);
        if (!ta.failed) {
            CHECK(st == PLANK_OK);
            break;
        }
        failures_seen++;
        CHECK_MSG(st == PLANK_ERR_OUT_OF_MEMORY, "fail at %lld: status %d (%s)", (long long)n,
                  (int)st, err.message);
        CHECK(access(path, F_OK) != 0);
    }
    fprintf(stderr, "nested alloc failures: %d injected\n", failures_seen);
    plank_reader *r;
    CHECK(plank_reader_open_path(&r, path, NULL, NULL) == PLANK_OK);
    if (r) {
        CHECK_EQ_I64(plank_reader_num_rows(r), 200);
        plank_reader_close(r);
    }
    unlink(path);
}

/* fsync on close: the file and its directory synced, for a path with a
 * directory and for a bare name in the working directory (the directory
 * synced is "."); the file is complete under its name and no temporary
 * ".<name>.plank-*" is left beside it. */
static void test_fsync(const char *dir) {
    enum { N = 5000 };
    static int64_t vals[N];
    for (int64_t i = 0; i < N; i++) vals[i] = i * 7919 - 12345;
    const char *names[] = {"v"};
    const plank_physical_type types[] = {PLANK_INT64};
    const void *values[] = {vals};
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.fsync = true;
    char abs_path[512], cwd[4096];
    snprintf(abs_path, sizeof abs_path, "%s/fsynced.parquet", dir);
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    for (int rel = 0; rel < 2; rel++) {
        const char *path = rel ? "fsynced_rel.parquet" : abs_path;
        if (rel && chdir(dir) != 0) {
            CHECK_MSG(false, "chdir %s", dir);
            continue;
        }
        bool ok = write_flat(path, 1, names, types, values, NULL, NULL, N, &o);
        if (ok) {
            plank_reader *r;
            plank_error err;
            plank_status st = plank_reader_open_path(&r, path, NULL, &err);
            CHECK_MSG(st == PLANK_OK, "open %s: %s", path, err.message);
            if (st == PLANK_OK) {
                CHECK_EQ_I64(read_back(r, 0, 1000, N, 8, vals, NULL, NULL), 0);
                plank_reader_close(r);
            }
        }
        DIR *dp = opendir(dir);
        CHECK(dp != NULL);
        int temps = 0;
        for (struct dirent *de; dp && (de = readdir(dp)) != NULL;)
            temps += strstr(de->d_name, ".plank-") != NULL;
        if (dp) closedir(dp);
        CHECK_EQ_I64(temps, 0);
        if (rel) {
            unlink(path);
            CHECK(chdir(cwd) == 0);
        }
    }
    unlink(abs_path);
}

int main(void) {
    char dir[] = "/tmp/plank_writer_XXXXXX";
    if (!mkdtemp(dir)) TEST_SKIP("no temporary directory");
    test_matrix(dir);
    test_nested(dir);
    test_deep_histograms(dir);
    test_bloom_dictionary(dir);
    test_boundary_order(dir);
    test_dictionary_sample(dir);
    test_v2_min_saving(dir);
    test_nan_pages(dir);
    test_failures(dir);
    test_alloc_failures(dir);
    test_alloc_failures_threads(dir);
    test_threads_option(dir);
    test_inplace_strings(dir);
    test_alloc_failures_nested(dir);
    test_fsync(dir);
    rmdir(dir);
    TEST_END();
}
