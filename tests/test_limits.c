/* test_limits.c: the reader's resource bounds (plank_reader_options) and
 * lying size fields, through the public API over hand-built files.
 *
 * Files are written here byte by byte (Thrift compact protocol, as
 * parquet.thrift defines FileMetaData and PageHeader): one REQUIRED column
 * "x" whose chunk holds a single page, with the page's declared sizes, codec
 * and body chosen by each test. A counting allocator checks that a page
 * claiming (nearly) 2 GiB with a tiny body is refused without that memory
 * being allocated, under the default limits and under lower ones. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "plank.h"
#include "tharness.h"
#ifdef PLANK_HAVE_ZSTD
#include <zstd.h>
#endif

/* ---- A Thrift compact-protocol writer ------------------------------------- */

enum { T_I32 = 5, T_I64 = 6, T_BINARY = 8, T_LIST = 9, T_STRUCT = 12 };

typedef struct tw {
    uint8_t b[4096];
    size_t n;
    int depth;
    int last[16]; /* last field id per struct level */
} tw;

static void put(tw *w, unsigned v) { w->b[w->n++] = (uint8_t)v; }
static void varint(tw *w, uint64_t v) {
    while (v >= 0x80) {
        put(w, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    put(w, (unsigned)v);
}
static void field(tw *w, int type, int id) {
    int d = id - w->last[w->depth];
    if (d > 0 && d <= 15) {
        put(w, (unsigned)(d << 4 | type));
    } else {
        put(w, (unsigned)type);
        varint(w, (uint64_t)(((int64_t)id << 1) ^ ((int64_t)id >> 63)));
    }
    w->last[w->depth] = id;
}
static void f_int(tw *w, int type, int id, int64_t v) {
    field(w, type, id);
    varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}
static void f_str(tw *w, int id, const char *s) {
    field(w, T_BINARY, id);
    varint(w, strlen(s));
    for (const char *c = s; *c; c++) put(w, (unsigned char)*c);
}
static void begin(tw *w) { w->last[++w->depth] = 0; }
static void end(tw *w) {
    put(w, 0);
    w->depth--;
}
static void f_struct(tw *w, int id) {
    field(w, T_STRUCT, id);
    begin(w);
}
static void list(tw *w, int elem, uint64_t n) {
    if (n < 15) {
        put(w, (unsigned)(n << 4 | (uint64_t)elem));
    } else {
        put(w, 0xf0 | (unsigned)elem);
        varint(w, n);
    }
}
static void f_list(tw *w, int id, int elem, uint64_t n) {
    field(w, T_LIST, id);
    list(w, elem, n);
}

/* ---- A one-column file ------------------------------------------------------ */

typedef struct page_spec {
    plank_codec codec;
    bool dictionary;          /* a dictionary page (else a v1 data page) */
    plank_physical_type type; /* INT32 or BYTE_ARRAY */
    int32_t uncompressed, compressed; /* declared sizes; compressed < 0: body_len */
    const uint8_t *body;
    size_t body_len;
    int32_t row_groups;       /* copies of the row group in the footer */
    int64_t rows;             /* each row group's num_rows (0: 1) */
} page_spec;

/* Writes the file into out (capacity cap); returns its size. */
static size_t build_file(const page_spec *s, uint8_t *out, size_t cap) {
    tw ph = {0};
    begin(&ph);
    f_int(&ph, T_I32, 1, s->dictionary ? PLANK_PAGE_DICTIONARY : PLANK_PAGE_DATA);
    f_int(&ph, T_I32, 2, s->uncompressed);
    f_int(&ph, T_I32, 3, s->compressed >= 0 ? s->compressed : (int32_t)s->body_len);
    if (s->dictionary) {
        f_struct(&ph, 7); /* DictionaryPageHeader */
        f_int(&ph, T_I32, 1, 1);
        f_int(&ph, T_I32, 2, PLANK_ENC_PLAIN);
    } else {
        f_struct(&ph, 5); /* DataPageHeader */
        f_int(&ph, T_I32, 1, 1);
        f_int(&ph, T_I32, 2, PLANK_ENC_PLAIN);
        f_int(&ph, T_I32, 3, PLANK_ENC_RLE);
        f_int(&ph, T_I32, 4, PLANK_ENC_RLE);
    }
    end(&ph);
    end(&ph);
    int64_t chunk_len = (int64_t)(ph.n + s->body_len);

    tw f = {0};
    begin(&f);
    f_int(&f, T_I32, 1, 2);
    f_list(&f, 2, T_STRUCT, 2);
    begin(&f);
    f_str(&f, 4, "schema");
    f_int(&f, T_I32, 5, 1);
    end(&f);
    begin(&f);
    f_int(&f, T_I32, 1, s->type);
    f_int(&f, T_I32, 3, PLANK_REQUIRED);
    f_str(&f, 4, "x");
    end(&f);
    f_int(&f, T_I64, 3, s->row_groups);
    f_list(&f, 4, T_STRUCT, (uint64_t)s->row_groups);
    for (int32_t g = 0; g < s->row_groups; g++) {
        begin(&f);
        f_list(&f, 1, T_STRUCT, 1);
        begin(&f);             /* ColumnChunk */
        f_int(&f, T_I64, 2, 4);
        f_struct(&f, 3);       /* ColumnMetaData */
        f_int(&f, T_I32, 1, s->type);
        f_list(&f, 2, T_I32, 1);
        varint(&f, PLANK_ENC_PLAIN << 1);
        f_list(&f, 3, T_BINARY, 1);
        varint(&f, 1);
        put(&f, 'x');
        f_int(&f, T_I32, 4, s->codec);
        f_int(&f, T_I64, 5, 1);
        f_int(&f, T_I64, 6, chunk_len);
        f_int(&f, T_I64, 7, chunk_len);
        f_int(&f, T_I64, 9, 4);
        end(&f);
        end(&f);
        f_int(&f, T_I64, 2, chunk_len);
        f_int(&f, T_I64, 3, s->rows > 0 ? s->rows : 1);
        end(&f);
    }
    end(&f);
    size_t n = 4 + ph.n + s->body_len + f.n + 8;
    if (n > cap) return 0;
    memcpy(out, "PAR1", 4);
    memcpy(out + 4, ph.b, ph.n);
    memcpy(out + 4 + ph.n, s->body, s->body_len);
    memcpy(out + 4 + ph.n + s->body_len, f.b, f.n);
    uint32_t fl = (uint32_t)f.n;
    memcpy(out + n - 8, &fl, 4);
    memcpy(out + n - 4, "PAR1", 4);
    return n;
}

/* Opens the file and reads its column; returns the first error (code in
 * *st) and the allocator's largest single request in *max_single. */
static plank_status read_spec(const page_spec *s, plank_reader_options *opts, int64_t *max_single,
                              plank_error *err) {
    static uint8_t file[8192];
    size_t n = build_file(s, file, sizeof file);
    CHECK(n > 0);
    th_alloc counts;
    plank_allocator a = th_alloc_init(&counts);
    plank_reader_options defaults;
    if (!opts) {
        plank_reader_options_init(&defaults);
        opts = &defaults;
    }
    opts->allocator = &a;
    plank_reader *r = NULL;
    plank_status st = plank_reader_open_memory(&r, file, n, opts, err);
    if (st == PLANK_OK) {
        plank_column_reader *cr = NULL;
        st = plank_column_reader_open(&cr, r, 0, 0, err);
        if (st == PLANK_OK) {
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            st = plank_column_reader_read(cr, 10, &b, err);
            plank_column_reader_close(cr);
        }
        plank_reader_close(r);
    }
    CHECK_EQ_I64(counts.live_blocks, 0);
    if (st != PLANK_OK) CHECK_MSG(err->code == st && err->message[0], "status %d, err %d: %s",
                                  (int)st, (int)err->code, err->message);
    *max_single = counts.max_single;
    return st;
}

#define BIG (INT32_MAX - 1) /* a claimed uncompressed size near 2 GiB */
#define SMALL_ALLOC (16 << 20) /* what a refused tiny page may allocate at most */

static void expect(const page_spec *s, plank_reader_options *opts, plank_status want,
                   const char *needle, const char *label) {
    plank_error err;
    int64_t max_single = 0;
    plank_status st = read_spec(s, opts, &max_single, &err);
    CHECK_MSG(st == want, "%s: status %d (%s), want %d", label, (int)st, err.message, (int)want);
    CHECK_MSG(!needle || strstr(err.message, needle), "%s: message \"%s\" lacks \"%s\"", label,
              err.message, needle);
    CHECK_MSG(max_single < SMALL_ALLOC, "%s: allocated %lld bytes at once", label,
              (long long)max_single);
}

/* A page that claims nearly 2 GiB with a tiny body, in each codec, under the
 * default limits: refused (the codec's own size or expansion bound, or the
 * stream ending early) without allocating the claim. */
static void test_lying_page_sizes(void) {
    /* Valid streams of a few bytes each. snappy: preamble 4, literal "abcd". */
    static const uint8_t snappy4[] = {4, 0x0c, 'a', 'b', 'c', 'd'};
    /* snappy whose preamble claims BIG too (varint of 2^31 - 2). */
    static const uint8_t snappy_big[] = {0xfe, 0xff, 0xff, 0xff, 0x07, 0x0c, 'a', 'b', 'c', 'd'};
    static const uint8_t gzip_junk[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 0, 0, 0xff, 0xff};
    static const uint8_t brotli_empty[] = {0x06}; /* an empty brotli stream */
    static const uint8_t lz4_junk[] = {0x40, 'a', 'b', 'c', 'd'};
    struct {
        plank_codec codec;
        const uint8_t *body;
        size_t len;
        const char *needle;
    } cases[] = {
        {PLANK_CODEC_SNAPPY, snappy4, sizeof snappy4, "SNAPPY page declares 4"},
        {PLANK_CODEC_SNAPPY, snappy_big, sizeof snappy_big, "expands at most 22:1"},
        {PLANK_CODEC_GZIP, gzip_junk, sizeof gzip_junk, "expands at most 1032:1"},
        {PLANK_CODEC_LZ4_RAW, lz4_junk, sizeof lz4_junk, "expands at most 256:1"},
        {PLANK_CODEC_LZ4, lz4_junk, sizeof lz4_junk, "expands at most 256:1"},
        {PLANK_CODEC_BROTLI, brotli_empty, sizeof brotli_empty, "BROTLI page yields 0 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!plank_codec_available(cases[i].codec)) continue;
        page_spec s = {cases[i].codec, false, PLANK_INT32, BIG, -1, cases[i].body, cases[i].len, 1, 1};
        char label[64];
        snprintf(label, sizeof label, "%s claiming 2 GiB", plank_codec_name(cases[i].codec));
        expect(&s, NULL, PLANK_ERR_CORRUPT, cases[i].needle, label);
        /* A lower max_page_size is reported before the codec is looked at. */
        plank_reader_options o;
        plank_reader_options_init(&o);
        o.max_page_size = 1 << 20;
        expect(&s, &o, PLANK_ERR_LIMIT, "above the limit of 1048576", label);
    }
#ifdef PLANK_HAVE_ZSTD
    /* A zstd frame without a content size (the codec cannot tell): the
     * output buffer grows with what the frame yields, so a 2 GiB claim over
     * 100 real bytes allocates about 1 MiB, then fails on the size. */
    uint8_t raw[100], z[256];
    for (int i = 0; i < 100; i++) raw[i] = (uint8_t)(i * 7);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    ZSTD_inBuffer in = {raw, sizeof raw, 0};
    ZSTD_outBuffer ob = {z, sizeof z, 0};
    size_t left = ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_end);
    ZSTD_freeCCtx(cc);
    CHECK(left == 0);
    CHECK(ZSTD_getFrameContentSize(z, ob.pos) == ZSTD_CONTENTSIZE_UNKNOWN);
    page_spec zs = {PLANK_CODEC_ZSTD, false, PLANK_INT32, BIG, -1, z, ob.pos, 1, 1};
    expect(&zs, NULL, PLANK_ERR_CORRUPT, "ZSTD page yields 100 bytes", "ZSTD claiming 2 GiB");
    /* The same frame with an honest header reads its first value. */
    zs.uncompressed = 100;
    expect(&zs, NULL, PLANK_OK, NULL, "ZSTD honest");
    /* And a frame whose declared content size disagrees with the header. */
    size_t zn = ZSTD_compress(z, sizeof z, raw, sizeof raw, 1);
    zs.body_len = zn;
    zs.uncompressed = BIG;
    expect(&zs, NULL, PLANK_ERR_CORRUPT, "ZSTD frames declare 100 bytes", "ZSTD lying header");
#endif
}

/* A dictionary page that claims more bytes than the whole file. */
static void test_dictionary_larger_than_file(void) {
    static const uint8_t body[] = {4, 0, 0, 0, 'a', 'b', 'c', 'd'};
    /* UNCOMPRESSED: the stored size must be the uncompressed one, so a
     * 1 GiB claim runs past the end of the chunk. */
    /* Just under the default max_dictionary_size (1 GiB decoded). */
    const int32_t claim = (1 << 30) - 64;
    page_spec s = {PLANK_CODEC_UNCOMPRESSED, true, PLANK_BYTE_ARRAY, claim, claim, body,
                   sizeof body, 1, 1};
    expect(&s, NULL, PLANK_ERR_CORRUPT, "runs past the end of the column chunk",
           "dictionary stored size 1 GiB");
    s.compressed = -1;
    expect(&s, NULL, PLANK_ERR_CORRUPT, "uncompressed page stores 8 bytes",
           "uncompressed dictionary claiming 1 GiB");
    if (plank_codec_available(PLANK_CODEC_SNAPPY)) {
        static const uint8_t snappy8[] = {8, 0x1c, 4, 0, 0, 0, 'a', 'b', 'c', 'd'};
        s.codec = PLANK_CODEC_SNAPPY;
        s.body = snappy8;
        s.body_len = sizeof snappy8;
        expect(&s, NULL, PLANK_ERR_CORRUPT, "SNAPPY page declares 8",
               "snappy dictionary claiming 1 GiB");
        /* Under a dictionary limit the size alone is refused, first. */
        plank_reader_options o;
        plank_reader_options_init(&o);
        o.max_dictionary_size = 1 << 20;
        expect(&s, &o, PLANK_ERR_LIMIT, "dictionary page of 1 values", "dictionary limit");
        /* The honest page decodes (the data page is missing: a clean error
         * after the dictionary, not a limit). */
        s.uncompressed = 8;
        expect(&s, &o, PLANK_ERR_CORRUPT, "column chunk ended", "honest dictionary");
        /* 8 bytes + 2 offsets of 8 bytes: 24 decoded bytes; a limit of 23
         * refuses it. */
        o.max_dictionary_size = 23;
        expect(&s, &o, PLANK_ERR_LIMIT, "(24 decoded)", "dictionary limit 23");
    }
}

/* A Thrift list that claims 2^31 elements (the footer's schema list). */
static void test_thrift_list_2g(void) {
    tw f = {0};
    begin(&f);
    f_int(&f, T_I32, 1, 2);
    f_list(&f, 2, T_STRUCT, (uint64_t)1 << 31);
    for (int i = 0; i < 16; i++) put(&f, 0);
    uint8_t file[256];
    size_t n = 4 + f.n + 8;
    memcpy(file, "PAR1", 4);
    memcpy(file + 4, f.b, f.n);
    uint32_t fl = (uint32_t)f.n;
    memcpy(file + 4 + f.n, &fl, 4);
    memcpy(file + 8 + f.n, "PAR1", 4);
    th_alloc counts;
    plank_allocator a = th_alloc_init(&counts);
    plank_reader_options o;
    plank_reader_options_init(&o);
    o.allocator = &a;
    plank_reader *r = NULL;
    plank_error err;
    plank_status st = plank_reader_open_memory(&r, file, n, &o, &err);
    CHECK_EQ_I64(st, PLANK_ERR_CORRUPT);
    CHECK(r == NULL);
    CHECK_MSG(strstr(err.message, "2147483648") != NULL, "message: %s", err.message);
    CHECK(counts.max_single < 4096);
    CHECK_EQ_I64(counts.live_blocks, 0);
}

/* max_columns, max_row_groups and max_chunk_buffer. */
static plank_status src_read(void *opaque, uint64_t off, void *buf, size_t len, size_t *got) {
    memcpy(buf, (const uint8_t *)opaque + off, len);
    *got = len;
    return PLANK_OK;
}

static void test_counts_and_chunk_buffer(void) {
    /* A v1 page of a REQUIRED INT32 column has no level section: the
     * PLAIN value 7 alone. */
    static const uint8_t body[] = {7, 0, 0, 0};
    page_spec s = {PLANK_CODEC_UNCOMPRESSED, false, PLANK_INT32, 4, -1, body, 4, 3, 1};
    expect(&s, NULL, PLANK_OK, NULL, "three row groups");
    plank_reader_options o;
    plank_reader_options_init(&o);
    o.max_row_groups = 2;
    expect(&s, &o, PLANK_ERR_LIMIT, "3 row groups, above the limit of 2", "max_row_groups");
    plank_reader_options_init(&o);
    o.max_columns = 1; /* the root and "x" are two schema elements */
    expect(&s, &o, PLANK_ERR_LIMIT, "2 schema elements, above the limit of 1", "max_columns");
    o.max_columns = 2;
    expect(&s, &o, PLANK_OK, NULL, "max_columns 2");

    /* The chunk buffer bound applies to sources read into memory. */
    static uint8_t file[8192];
    size_t n = build_file(&s, file, sizeof file);
    plank_source src = {sizeof(plank_source), src_read, NULL, n, file, NULL};
    plank_reader_options_init(&o);
    o.max_chunk_buffer = 8;
    plank_reader *r = NULL;
    plank_error err;
    CHECK_EQ_I64(plank_reader_open_source(&r, &src, &o, &err), PLANK_OK);
    plank_column_reader *cr = NULL;
    plank_status st = plank_column_reader_open(&cr, r, 0, 0, &err);
    CHECK_EQ_I64(st, PLANK_ERR_LIMIT);
    CHECK_MSG(strstr(err.message, "limit of 8 bytes buffered") != NULL, "message: %s",
              err.message);
    plank_reader_close(r);
    o.max_chunk_buffer = 4096;
    CHECK_EQ_I64(plank_reader_open_source(&r, &src, &o, &err), PLANK_OK);
    CHECK_EQ_I64(plank_column_reader_open(&cr, r, 0, 0, &err), PLANK_OK);
    plank_batch b = {.struct_size = sizeof(plank_batch)};
    CHECK_EQ_I64(plank_column_reader_read(cr, 10, &b, &err), PLANK_OK);
    CHECK_EQ_I64(b.length, 1);
    CHECK_EQ_I64(((const int32_t *)b.values)[0], 7);
    plank_column_reader_close(cr);
    plank_reader_close(r);
}

/* DELTA_LENGTH_BYTE_ARRAY of empty strings: zero-width miniblocks hold any
 * number of lengths in a few bytes, and the decoder expands them per page;
 * max_page_size bounds that expansion. The file is written by plank. */
static void test_delta_lengths_bounded(void) {
    char path[] = "/tmp/plank_limits_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    plank_schema_field f[2];
    plank_schema_field_init(&f[0]);
    plank_schema_field_init(&f[1]);
    f[0].num_children = 1;
    f[1].name = "s";
    f[1].physical_type = PLANK_BYTE_ARRAY;
    plank_column_options co;
    plank_column_options_init(&co);
    co.path = "s";
    co.encoding = PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY;
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.codec = PLANK_CODEC_UNCOMPRESSED;
    o.columns = &co;
    o.num_column_options = 1;
    plank_writer *w;
    plank_error err;
    CHECK(plank_writer_open_path(&w, path, f, 2, &o, &err) == PLANK_OK);
    static int64_t offs[20001];
    plank_batch b = {.struct_size = sizeof(plank_batch)};
    memset(&b, 0, sizeof b);
    b.struct_size = sizeof b;
    b.length = 20000;
    b.offsets = offs;
    b.data = (const uint8_t *)"";
    CHECK(plank_writer_write_rows(w, &b, 20000, &err) == PLANK_OK);
    CHECK(plank_writer_close(w, &err) == PLANK_OK);
    for (int round = 0; round < 2; round++) {
        plank_reader_options ro;
        plank_reader_options_init(&ro);
        if (round == 1) ro.max_page_size = 100000; /* 20000 lengths need 160000 bytes */
        plank_reader *r;
        CHECK(plank_reader_open_path(&r, path, &ro, &err) == PLANK_OK);
        plank_column_reader *cr;
        CHECK(plank_column_reader_open(&cr, r, 0, 0, &err) == PLANK_OK);
        plank_batch rb = {.struct_size = sizeof(plank_batch)};
        plank_status st = plank_column_reader_read(cr, 100, &rb, &err);
        if (round == 0) {
            CHECK(st == PLANK_OK && rb.length == 100);
        } else {
            CHECK_MSG(st == PLANK_ERR_LIMIT && strstr(err.message, "max_page_size"), "%s",
                      err.message);
        }
        plank_column_reader_close(cr);
        plank_reader_close(r);
    }
    unlink(path);
}

/* A footer may declare any number of rows for a row group whose chunk is a
 * few bytes; the scan's row bitmaps (a bit a row) are bounded by
 * max_page_size, as levels are, instead of allocated from the claim. */
static uint64_t biggest; /* the largest block asked for */
static void *big_realloc(void *opaque, void *ptr, size_t old_size, size_t new_size) {
    (void)opaque, (void)old_size;
    if (new_size > biggest) biggest = new_size;
    return realloc(ptr, new_size);
}
static void big_free(void *opaque, void *ptr, size_t size) {
    (void)opaque, (void)size;
    free(ptr);
}

static void test_scan_rows_bounded(void) {
    static const uint8_t body[] = {7, 0, 0, 0};
    static uint8_t file[8192];
    const int64_t claims[] = {1, (int64_t)1 << 40, 100000};
    for (int k = 0; k < 3; k++) {
        page_spec s = {PLANK_CODEC_UNCOMPRESSED, false, PLANK_INT32, 4, -1, body, 4, 1, claims[k]};
        size_t n = build_file(&s, file, sizeof file);
        CHECK(n > 0);
        plank_allocator al = {big_realloc, big_free, NULL};
        plank_reader_options ro;
        plank_reader_options_init(&ro);
        ro.allocator = &al;
        if (k == 2) ro.max_page_size = 1000; /* 100,000 rows need 12,500 bytes of bits */
        plank_reader *r = NULL;
        plank_error err;
        CHECK_EQ_I64(plank_reader_open_memory(&r, file, n, &ro, &err), PLANK_OK);
        if (!r) continue;
        plank_expr *e = NULL;
        CHECK_EQ_I64(plank_expr_parse("x > 0", NULL, &e, &err), PLANK_OK);
        plank_scan_options so;
        plank_scan_options_init(&so);
        so.filter = e;
        plank_scan *sc = NULL;
        CHECK_EQ_I64(plank_scan_open(&sc, r, &so, &err), PLANK_OK);
        biggest = 0;
        int64_t count = -1;
        plank_status st = sc ? plank_scan_count(sc, &count, &err) : PLANK_ERR_INVALID_ARGUMENT;
        if (k == 0) {
            CHECK_EQ_I64(st, PLANK_OK);
            CHECK_EQ_I64(count, 1);
        } else {
            CHECK_EQ_I64(st, PLANK_ERR_LIMIT);
            CHECK_MSG(strstr(err.message, "max_page_size") && strstr(err.message, "rows"),
                      "message: %s", err.message);
            CHECK_MSG(biggest < ((uint64_t)1 << 20), "a block of %llu bytes was asked for",
                      (unsigned long long)biggest);
        }
        plank_scan_close(sc);
        plank_expr_free(e);
        plank_reader_close(r);
    }
}

int main(void) {
    test_scan_rows_bounded();
    test_lying_page_sizes();
    test_dictionary_larger_than_file();
    test_thrift_list_2g();
    test_counts_and_chunk_buffer();
    test_delta_lengths_bounded();
    TEST_END();
}
