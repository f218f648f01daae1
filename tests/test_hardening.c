/* test_hardening.c: the bugs of issue 16 found by reading, one section each
 * (a section name as argv[1] runs that section alone):
 *  - legacy:   BIT_PACKED repetition and definition levels read with an
 *              allocator that fails each allocation in turn and checks that
 *              every free and growth passes the size the block has;
 *  - arena:    pk_arena_alloc / pk_arena_strndup / pk_strndup with sizes
 *              whose rounding or NUL byte would wrap around SIZE_MAX;
 *  - strerror: pk_strerror, and no strerror() call left in src/;
 *  - entry:    the metadata and page-index entry points clear err on entry
 *              and refuse NULL arguments with a message;
 *  - index:    a corrupted column index reports one separator per context,
 *              and the page-index checks pk_index_read.c promises;
 *  - buffer:   what pk_buffer promises about its padding;
 *  - crc:      pk_crc32 (common's own, slicing-by-8) against known answers,
 *              its committed table, and libdeflate's crc32 when built with it. */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pk_common.h"
#include "common/pk_crc32_table.h"
#include "thrift/pk_thrift.h"
#include "tharness.h"

#ifdef PLANK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

/* ---- An allocator that checks sizes and fails the N-th call -------------------- */

typedef struct strict_alloc {
    int64_t calls;   /* allocations and growths */
    int64_t fail_at; /* 1-based call that fails; 0 = never */
    bool failed;
    int64_t live;    /* blocks not freed */
    int64_t bad;     /* frees or growths given a size the block does not have */
} strict_alloc;

#define STRICT_HDR 16 /* the block's size, keeping 16-byte alignment */

static void *strict_realloc(void *opaque, void *p, size_t old_n, size_t n) {
    strict_alloc *s = opaque;
    s->calls++;
    if (p) {
        size_t rec;
        memcpy(&rec, (char *)p - STRICT_HDR, sizeof rec);
        if (rec != old_n) {
            s->bad++;
            fprintf(stderr, "realloc: old size %zu, block has %zu\n", old_n, rec);
        }
    }
    if (s->fail_at && s->calls == s->fail_at) {
        s->failed = true;
        return NULL;
    }
    if (n > ((size_t)1 << 40)) return NULL; /* no such memory (and ASan aborts on it) */
    char *q = realloc(p ? (char *)p - STRICT_HDR : NULL, n + STRICT_HDR);
    if (!q) return NULL;
    memcpy(q, &n, sizeof n);
    if (!p) s->live++;
    return q + STRICT_HDR;
}

static void strict_free(void *opaque, void *p, size_t n) {
    strict_alloc *s = opaque;
    if (!p) return;
    size_t rec;
    memcpy(&rec, (char *)p - STRICT_HDR, sizeof rec);
    if (rec != n) {
        s->bad++;
        fprintf(stderr, "free: size %zu, block has %zu\n", n, rec);
    }
    s->live--;
    free((char *)p - STRICT_HDR);
}

static plank_allocator strict_init(strict_alloc *s, int64_t fail_at) {
    memset(s, 0, sizeof *s);
    s->fail_at = fail_at;
    plank_allocator a = {strict_realloc, strict_free, s};
    return a;
}

/* ---- Files written in memory ------------------------------------------------------ */

typedef struct membuf {
    uint8_t *data;
    size_t len, cap;
} membuf;

static void mb_put(membuf *m, const void *p, size_t n) {
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n) cap *= 2;
        m->data = realloc(m->data, cap);
        if (!m->data) abort();
        m->cap = cap;
    }
    if (n) memcpy(m->data + m->len, p, n);
    m->len += n;
}

static plank_status mb_write(void *opaque, const void *buf, size_t len) {
    mb_put(opaque, buf, len);
    return PLANK_OK;
}

/* The file's FileMetaData, decoded (its footer checked). */
static bool footer_of(const membuf *f, pk_file_metadata *md, size_t *footer_start) {
    if (f->len < 12) return false;
    uint32_t flen = pk_load_u32(f->data + f->len - 8);
    if (flen > f->len - 12) return false;
    *footer_start = f->len - 8 - flen;
    plank_error err;
    return pk_thrift_read_file_metadata(f->data + *footer_start, flen, NULL, md, &err) ==
           PLANK_OK;
}

/* Appends md's footer, its length and the magic. */
static bool put_footer(membuf *f, const pk_file_metadata *md) {
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    plank_error err;
    bool ok = pk_thrift_write_file_metadata(md, &b, &err) == PLANK_OK;
    CHECK_MSG(ok, "%s", err.message);
    if (ok) {
        uint8_t len[4];
        pk_store_u32(len, (uint32_t)b.size);
        mb_put(f, b.data, b.size);
        mb_put(f, len, 4);
        mb_put(f, "PAR1", 4);
    }
    pk_buffer_reset(&b);
    return ok;
}

/* A repeated INT32 column "r" (max rep 1, max def 1): record i has
 * list_len(i) elements (none: one entry with definition level 0). Pages of
 * 30 records; the second page has more entries than the first, so the
 * reader's level arrays grow between pages. */
#define LEG_RECORDS 60
static int list_len(int i) { return i < 30 ? i % 3 : 3 + i % 5; }

typedef struct levels {
    int16_t rep[1024], def[1024];
    int32_t val[1024];
    int64_t n;
} levels;

static void make_levels(levels *lv) {
    lv->n = 0;
    for (int i = 0; i < LEG_RECORDS; i++) {
        int k = list_len(i);
        if (k == 0) {
            lv->rep[lv->n] = 0;
            lv->def[lv->n] = 0;
            lv->val[lv->n] = 0;
            lv->n++;
        }
        for (int j = 0; j < k; j++) {
            lv->rep[lv->n] = j ? 1 : 0;
            lv->def[lv->n] = 1;
            lv->val[lv->n] = i * 100 + j;
            lv->n++;
        }
    }
}

/* A one-leaf schema and options for PLAIN, uncompressed pages (so that the
 * file's bytes can be edited). */
static void one_leaf(plank_schema_field *f, const char *name, plank_physical_type t,
                     plank_repetition rep, plank_writer_options *o) {
    plank_schema_field_init(&f[0]);
    plank_schema_field_init(&f[1]);
    f[0].num_children = 1;
    f[1].name = name;
    f[1].physical_type = t;
    f[1].repetition = rep;
    plank_writer_options_init(o);
    o->codec = PLANK_CODEC_UNCOMPRESSED;
    o->dictionary = false;
    o->encoding = PLANK_ENC_PLAIN;
}

static bool write_repeated(membuf *out, const levels *lv) {
    plank_schema_field f[2];
    plank_writer_options o;
    one_leaf(f, "r", PLANK_INT32, PLANK_REPEATED, &o);
    o.page_version = 1;
    o.page_rows = 30;
    o.page_index = false;
    o.crc = false;
    plank_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.struct_size = sizeof sink;
    sink.write = mb_write;
    sink.opaque = out;
    plank_writer *w;
    plank_error err;
    plank_status st = plank_writer_open_sink(&w, &sink, f, 2, &o, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st) return false;
    plank_batch b;
    memset(&b, 0, sizeof b);
    b.struct_size = sizeof b;
    b.length = lv->n;
    b.values = lv->val;
    b.rep_levels = lv->rep;
    b.def_levels = lv->def;
    st = plank_writer_write_column(w, 0, &b, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st == PLANK_OK) st = plank_writer_close(w, &err);
    else plank_writer_abort(w);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    return st == PLANK_OK;
}

/* Legacy BIT_PACKED: MSB first, no length prefix. */
static void put_bitpacked(membuf *m, const int16_t *v, int64_t n, int bw) {
    size_t bytes = (size_t)(n * bw + 7) / 8;
    uint8_t *p = calloc(bytes ? bytes : 1, 1);
    int64_t bit = 0;
    for (int64_t i = 0; i < n; i++)
        for (int b = bw - 1; b >= 0; b--, bit++)
            if ((v[i] >> b) & 1) p[bit >> 3] |= (uint8_t)(0x80u >> (bit & 7));
    mb_put(m, p, bytes);
    free(p);
}

/* The file write_repeated made, its v1 data pages rewritten with
 * BIT_PACKED repetition and definition levels. */
static bool make_legacy_file(membuf *out, const levels *lv) {
    membuf src = {0};
    if (!write_repeated(&src, lv)) return false;
    pk_file_metadata md;
    size_t fstart;
    bool ok = footer_of(&src, &md, &fstart);
    CHECK(ok && md.num_row_groups == 1);
    if (!ok) {
        free(src.data);
        return false;
    }
    plank_column_chunk_info *cc = &md.row_groups[0].columns[0];
    size_t pos = (size_t)cc->data_page_offset, end = pos + (size_t)cc->total_compressed_size;
    mb_put(out, "PAR1", 4);
    int64_t at = 0;
    int pages = 0;
    while (ok && pos < end) {
        pk_page_header h;
        size_t hl;
        plank_error err;
        ok = pk_thrift_read_page_header(src.data + pos, end - pos, &h, &hl, &err) == PLANK_OK &&
             h.type == PLANK_PAGE_DATA && h.definition_level_encoding == PLANK_ENC_RLE;
        CHECK(ok);
        if (!ok) break;
        const uint8_t *body = src.data + pos + hl, *bend = body + h.compressed_page_size;
        const uint8_t *vals = body;
        for (int k = 0; k < 2; k++) vals += 4 + pk_load_u32(vals); /* rep, def */
        membuf nb = {0};
        put_bitpacked(&nb, lv->rep + at, h.num_values, 1);
        put_bitpacked(&nb, lv->def + at, h.num_values, 1);
        mb_put(&nb, vals, (size_t)(bend - vals));
        at += h.num_values;
        h.repetition_level_encoding = PLANK_ENC_BIT_PACKED;
        h.definition_level_encoding = PLANK_ENC_BIT_PACKED;
        h.compressed_page_size = h.uncompressed_page_size = (int32_t)nb.len;
        h.has_crc = false;
        pk_buffer hb;
        pk_buffer_init(&hb, NULL);
        ok = pk_thrift_write_page_header(&h, &hb, &err) == PLANK_OK;
        mb_put(out, hb.data, hb.size);
        mb_put(out, nb.data, nb.len);
        pk_buffer_reset(&hb);
        free(nb.data);
        pos = (size_t)(bend - src.data);
        pages++;
    }
    CHECK(ok && pages == 2 && at == lv->n);
    if (ok) {
        cc->data_page_offset = 4;
        cc->dictionary_page_offset = -1;
        cc->total_compressed_size = cc->total_uncompressed_size = (int64_t)out->len - 4;
        cc->column_index_offset = cc->offset_index_offset = cc->bloom_filter_offset = -1;
        cc->column_index_length = cc->offset_index_length = cc->bloom_filter_length = -1;
        md.row_groups[0].info.total_byte_size = (int64_t)out->len - 4;
        md.row_groups[0].info.total_compressed_size = -1;
        md.row_groups[0].info.file_offset = -1;
        ok = put_footer(out, &md);
    }
    pk_file_metadata_free(&md);
    free(src.data);
    return ok;
}

/* Reads column 0 of every row group whole; the entries and the values at
 * definition level 1 must be lv's. */
static plank_status read_levels(const membuf *f, const plank_allocator *a, const levels *lv,
                                plank_error *err) {
    plank_reader_options o;
    plank_reader_options_init(&o);
    o.allocator = a;
    plank_reader *r;
    PK_FORWARD(plank_reader_open_memory(&r, f->data, f->len, &o, err));
    plank_column_reader *cr;
    plank_status st = plank_column_reader_open(&cr, r, 0, 0, err);
    int64_t at = 0;
    while (st == PLANK_OK) {
        plank_batch b;
        memset(&b, 0, sizeof b);
        b.struct_size = sizeof b;
        st = plank_column_reader_read(cr, 7, &b, err);
        if (st || b.length == 0) break;
        for (int64_t i = 0; i < b.length; i++, at++) {
            if (at >= lv->n || b.rep_levels[i] != lv->rep[at] || b.def_levels[i] != lv->def[at] ||
                (lv->def[at] == 1 && ((const int32_t *)b.values)[i] != lv->val[at])) {
                st = pk_error_set(err, PLANK_ERR_CORRUPT, "entry %lld differs", (long long)at);
                break;
            }
        }
    }
    if (st == PLANK_OK && at != lv->n)
        st = pk_error_set(err, PLANK_ERR_CORRUPT, "%lld entries, want %lld", (long long)at,
                          (long long)lv->n);
    if (cr) plank_column_reader_close(cr);
    plank_reader_close(r);
    return st;
}

static void test_legacy_levels(void) {
    levels lv;
    make_levels(&lv);
    membuf f = {0};
    if (!make_legacy_file(&f, &lv)) return;
    plank_error err;
    strict_alloc s;
    plank_allocator a = strict_init(&s, 0);
    plank_status st = read_levels(&f, &a, &lv, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    CHECK_EQ_I64(s.bad, 0);
    CHECK_EQ_I64(s.live, 0);
    int64_t total = s.calls, oom = 0;
    CHECK(total > 0);
    for (int64_t n = 1; n <= total; n++) {
        a = strict_init(&s, n);
        st = read_levels(&f, &a, &lv, &err);
        CHECK_MSG(s.bad == 0, "fail at %lld: %lld size mismatches", (long long)n,
                  (long long)s.bad);
        CHECK_MSG(s.live == 0, "fail at %lld: %lld blocks leaked", (long long)n,
                  (long long)s.live);
        if (s.failed) {
            CHECK_MSG(st == PLANK_ERR_OUT_OF_MEMORY && err.message[0],
                      "fail at %lld: status %d (%s)", (long long)n, (int)st, err.message);
            oom++;
        }
    }
    CHECK_EQ_I64(oom, total);
    free(f.data);
}

/* ---- pk_arena_alloc and the strndup helpers near SIZE_MAX -------------------------- */

static void test_arena_overflow(void) {
    strict_alloc s;
    plank_allocator a = strict_init(&s, 0);
    pk_arena ar;
    pk_arena_init(&ar, &a);
    /* Rounding these up to 16 wraps around to 0 (or to 16). */
    for (size_t k = 0; k < 16; k++) CHECK_MSG(pk_arena_alloc(&ar, SIZE_MAX - k) == NULL, "%zu", k);
    /* Too large for one block with its header. */
    CHECK(pk_arena_alloc(&ar, SIZE_MAX - 64) == NULL);
    CHECK(pk_arena_strndup(&ar, "x", SIZE_MAX) == NULL);
    CHECK(pk_strndup(&a, "x", SIZE_MAX) == NULL);
    /* Ordinary sizes still work, aligned and zeroed. */
    uint8_t *p = pk_arena_alloc(&ar, 1);
    CHECK(p && ((uintptr_t)p & 15) == 0 && p[0] == 0);
    uint8_t *q = pk_arena_alloc(&ar, 0);
    CHECK(q && ((uintptr_t)q & 15) == 0 && q != p);
    char *d = pk_arena_strndup(&ar, "hello", 3);
    CHECK(d && strcmp(d, "hel") == 0);
    pk_arena_reset(&ar);
    CHECK_EQ_I64(s.live, 0);
    CHECK_EQ_I64(s.bad, 0);
}

/* ---- strerror ------------------------------------------------------------------------- */

/* Whether text (a C file) calls strerror( outside comments and strings. */
static int count_strerror_calls(const char *text, const char *path) {
    int calls = 0, line = 1;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') line++;
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            for (const char *q = p; e && q < e; q++) line += *q == '\n';
            if (!e) break;
            p = e + 1;
        } else if (p[0] == '/' && p[1] == '/') {
            while (p[1] && p[1] != '\n') p++;
        } else if (*p == '"' || *p == '\'') {
            char qc = *p;
            for (p++; *p && *p != qc; p++)
                if (*p == '\\' && p[1]) p++;
            if (!*p) break;
        } else if (strncmp(p, "strerror", 8) == 0 && (p == text || !(p[-1] == '_' ||
                   (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                   (p[-1] >= '0' && p[-1] <= '9')))) {
            const char *q = p + 8;
            while (*q == ' ') q++;
            if (*q == '(') {
                calls++;
                fprintf(stderr, "%s:%d: strerror() is not thread-safe\n", path, line);
            }
        }
    }
    return calls;
}

static void test_strerror(void) {
    char buf[256];
    const char *m = pk_strerror(ENOENT, buf, sizeof buf);
    CHECK(m && strstr(m, "No such file") != NULL);
    m = pk_strerror(EACCES, buf, sizeof buf);
    CHECK(m && m[0]);
    /* An unknown code still gives a message; a small buffer is not overrun. */
    m = pk_strerror(123456, buf, sizeof buf);
    CHECK(m && m[0]);
    char tiny[4] = {'x', 'x', 'x', 'x'};
    m = pk_strerror(ENOENT, tiny, sizeof tiny);
    CHECK(m != NULL);
    /* The reader's message for a missing file. */
    plank_reader *r = NULL;
    plank_error err;
    CHECK(plank_reader_open_path(&r, "/nonexistent/dir/x.parquet", NULL, &err) == PLANK_ERR_IO);
    CHECK_MSG(strstr(err.message, "No such file") != NULL, "%s", err.message);

    /* No strerror() left in the library (the CLI, on plank.h only, may). */
    static const char *const dirs[] = {"common", "thrift", "codec",  "simd", "encoding", "read",
                                       "write",  "arrow",  "scan",   "tpch", "tpchq"};
    int files = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char dpath[4096];
        snprintf(dpath, sizeof dpath, "%s/src/%s", PLANK_SOURCE_DIR, dirs[i]);
        DIR *d = opendir(dpath);
        CHECK_MSG(d != NULL, "%s", dpath);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t nl = strlen(e->d_name);
            if (nl < 3 || (strcmp(e->d_name + nl - 2, ".c") && strcmp(e->d_name + nl - 2, ".h")))
                continue;
            char path[8192], rel[512];
            snprintf(path, sizeof path, "%s/%s", dpath, e->d_name);
            snprintf(rel, sizeof rel, "src/%s/%s", dirs[i], e->d_name);
            size_t len;
            unsigned char *text = th_read_file(path, &len);
            CHECK_MSG(text != NULL, "%s", path);
            if (!text) continue;
            char *t = realloc(text, len + 1);
            if (!t) abort();
            t[len] = '\0';
            CHECK_EQ_I64(count_strerror_calls(t, rel), 0);
            free(t);
            files++;
        }
        closedir(d);
    }
    CHECK(files > 50);
}

/* ---- Entry points: err on entry, NULL arguments ------------------------------------------ */

/* A flat file: one INT64 column "x", 100 rows in pages of 10, page index
 * and statistics on, plain and uncompressed (so its bytes can be edited). */
static bool write_flat(membuf *out) {
    plank_schema_field f[2];
    plank_writer_options o;
    one_leaf(f, "x", PLANK_INT64, PLANK_OPTIONAL, &o);
    o.page_rows = 10;
    o.page_index = true;
    plank_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.struct_size = sizeof sink;
    sink.write = mb_write;
    sink.opaque = out;
    plank_writer *w;
    plank_error err;
    plank_status st = plank_writer_open_sink(&w, &sink, f, 2, &o, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st) return false;
    int64_t v[100];
    int16_t def[100];
    for (int i = 0; i < 100; i++) {
        v[i] = i * 3;
        def[i] = i % 7 != 0;
    }
    plank_batch b;
    memset(&b, 0, sizeof b);
    b.struct_size = sizeof b;
    b.length = 100;
    b.values = v;
    b.def_levels = def;
    st = plank_writer_write_column(w, 0, &b, &err);
    if (st == PLANK_OK) st = plank_writer_close(w, &err);
    else plank_writer_abort(w);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    return st == PLANK_OK;
}

static void stale(plank_error *err) {
    plank_error_init(err);
    err->code = PLANK_ERR_CORRUPT;
    strcpy(err->message, "stale");
    err->row_group = 5;
}

static bool cleared(const plank_error *err) {
    return err->code == PLANK_OK && err->message[0] == '\0' && err->row_group == -1;
}

static void test_entry_points(void) {
    membuf f = {0};
    if (!write_flat(&f)) return;
    plank_reader *r;
    plank_error err;
    CHECK(plank_reader_open_memory(&r, f.data, f.len, NULL, &err) == PLANK_OK);

    plank_row_group_info rg;
    memset(&rg, 0, sizeof rg);
    rg.struct_size = sizeof rg;
    stale(&err);
    CHECK(plank_reader_row_group(r, 0, &rg, &err) == PLANK_OK);
    CHECK_MSG(cleared(&err), "row_group: err left as %d '%s'", (int)err.code, err.message);
    CHECK_EQ_I64(rg.num_rows, 100);
    stale(&err);
    CHECK(plank_reader_row_group(r, 1, &rg, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.code == PLANK_ERR_INVALID_ARGUMENT && strstr(err.message, "stale") == NULL &&
          err.message[0]);
    stale(&err);
    CHECK(plank_reader_row_group(NULL, 0, &rg, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.message[0] && strstr(err.message, "stale") == NULL);
    CHECK(plank_reader_row_group(r, 0, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.message[0]);
    CHECK(plank_reader_row_group(NULL, 0, NULL, NULL) == PLANK_ERR_INVALID_ARGUMENT);

    plank_column_chunk_info cc;
    memset(&cc, 0, sizeof cc);
    cc.struct_size = sizeof cc;
    stale(&err);
    CHECK(plank_reader_column_chunk(r, 0, 0, &cc, &err) == PLANK_OK);
    CHECK_MSG(cleared(&err), "column_chunk: err left as %d '%s'", (int)err.code, err.message);
    CHECK(cc.column_index_offset > 0 && cc.offset_index_offset > 0);
    stale(&err);
    CHECK(plank_reader_column_chunk(NULL, 0, 0, &cc, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.message[0] && strstr(err.message, "stale") == NULL);
    CHECK(plank_reader_column_chunk(r, 0, 0, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.message[0]);

    /* Page index: NULL out, NULL reader; err cleared on success. */
    /* *out starts as a stale pointer: each call sets it to NULL or a result. */
    static plank_column_index ci_stale;
    static plank_offset_index oi_stale;
    plank_column_index *ci = &ci_stale;
    stale(&err);
    CHECK(plank_reader_column_index(r, 0, 0, &ci, &err) == PLANK_OK && ci != NULL);
    CHECK(cleared(&err));
    CHECK(ci && ci->num_pages == 10);
    plank_column_index_free(ci);
    CHECK(plank_reader_column_index(r, 0, 0, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.message[0]);
    ci = &ci_stale;
    CHECK(plank_reader_column_index(NULL, 0, 0, &ci, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(ci == NULL && err.message[0]);
    CHECK(plank_reader_column_index(r, 3, 0, &ci, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_reader_column_index(NULL, 0, 0, NULL, NULL) == PLANK_ERR_INVALID_ARGUMENT);

    plank_offset_index *oi = &oi_stale;
    stale(&err);
    CHECK(plank_reader_offset_index(r, 0, 0, &oi, &err) == PLANK_OK && oi != NULL);
    CHECK(cleared(&err));
    CHECK(oi && oi->num_pages == 10);
    plank_offset_index_free(oi);
    CHECK(plank_reader_offset_index(r, 0, 0, NULL, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(err.message[0]);
    oi = &oi_stale;
    CHECK(plank_reader_offset_index(NULL, 0, 0, &oi, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(oi == NULL && err.message[0]);
    CHECK(plank_reader_offset_index(NULL, 0, 0, NULL, NULL) == PLANK_ERR_INVALID_ARGUMENT);

    plank_reader_close(r);
    free(f.data);
}

/* ---- Page index errors ----------------------------------------------------------------- */

/* f with `blob` in place of its footer (so at footer_start) and md's footer
 * after it. */
/* The file with `blob` (an edited index) in place of its footer and a
 * footer whose index location (*off, *len: fields of md's chunk) points at
 * it; md is left as it was. */
static void rebuild(const membuf *f, size_t footer_start, const pk_file_metadata *md,
                    const pk_buffer *blob, int64_t *off, int32_t *len, membuf *out) {
    int64_t keep_off = *off;
    int32_t keep_len = *len;
    *off = (int64_t)footer_start;
    *len = (int32_t)blob->size;
    out->len = 0;
    mb_put(out, f->data, footer_start);
    mb_put(out, blob->data, blob->size);
    put_footer(out, md);
    *off = keep_off;
    *len = keep_len;
}

/* The status and message of reading the page index of out. */
static plank_status read_index(const membuf *f, bool column_index, plank_error *err) {
    plank_reader *r;
    PK_FORWARD(plank_reader_open_memory(&r, f->data, f->len, NULL, err));
    plank_status st;
    if (column_index) {
        plank_column_index *ci = NULL;
        st = plank_reader_column_index(r, 0, 0, &ci, err);
        plank_column_index_free(ci);
    } else {
        plank_offset_index *oi = NULL;
        st = plank_reader_offset_index(r, 0, 0, &oi, err);
        plank_offset_index_free(oi);
    }
    plank_reader_close(r);
    return st;
}

static void test_index_errors(void) {
    membuf f = {0};
    if (!write_flat(&f)) return;
    pk_file_metadata md;
    size_t fstart;
    if (!footer_of(&f, &md, &fstart)) {
        CHECK(false);
        return;
    }
    plank_column_chunk_info *cc = &md.row_groups[0].columns[0];
    plank_error err;

    /* Corrupt column index bytes: a field header of an invalid type. */
    membuf g = {0};
    mb_put(&g, f.data, f.len);
    memset(g.data + cc->column_index_offset, 0xff, (size_t)cc->column_index_length);
    plank_status st = read_index(&g, true, &err);
    CHECK(st == PLANK_ERR_CORRUPT);
    CHECK_MSG(strncmp(err.message, "column index: ColumnIndex", 25) == 0 &&
                  strstr(err.message, ": :") == NULL,
              "%s", err.message);
    CHECK(err.row_group == 0 && err.column == 0);
    /* And the offset index. */
    g.len = 0;
    mb_put(&g, f.data, f.len);
    memset(g.data + cc->offset_index_offset, 0xff, (size_t)cc->offset_index_length);
    st = read_index(&g, false, &err);
    CHECK(st == PLANK_ERR_CORRUPT);
    CHECK_MSG(strncmp(err.message, "offset index: OffsetIndex", 25) == 0 &&
                  strstr(err.message, ": :") == NULL,
              "%s", err.message);

    /* The decoded offset index, to be edited into hostile ones. */
    plank_reader *r;
    CHECK(plank_reader_open_memory(&r, f.data, f.len, NULL, &err) == PLANK_OK);
    plank_offset_index *oi = NULL;
    CHECK(plank_reader_offset_index(r, 0, 0, &oi, &err) == PLANK_OK && oi);
    plank_column_index *ci = NULL;
    CHECK(plank_reader_column_index(r, 0, 0, &ci, &err) == PLANK_OK && ci);
    plank_reader_close(r);
    if (!oi || !ci) return;
    plank_page_location pages[10];
    CHECK(oi->num_pages == 10);
    memcpy(pages, oi->pages, sizeof pages);
    int64_t chunk_start = cc->data_page_offset;
    int64_t chunk_end = chunk_start + cc->total_compressed_size;
    CHECK(pages[0].offset == chunk_start);

    /* Each edit must make the offset index CORRUPT. */
    enum { OUTSIDE_BEFORE, OUTSIDE_AFTER, OVERLAP, FIRST_ROW_NOT_0, ROW_PAST_END, ROW_BACK,
           UNEDITED, NUM_EDITS };
    for (int e = 0; e < NUM_EDITS; e++) {
        plank_page_location p[10];
        memcpy(p, pages, sizeof p);
        switch (e) {
        case OUTSIDE_BEFORE: p[0].offset = 0; p[0].compressed_page_size = 4; break;
        case OUTSIDE_AFTER: p[9].offset = chunk_end; break; /* the page index: in the file */
        case OVERLAP: p[4].offset = p[3].offset + 1; break;
        case FIRST_ROW_NOT_0: p[0].first_row_index = 1; break;
        case ROW_PAST_END: p[9].first_row_index = 100; break;
        case ROW_BACK: p[5].first_row_index = p[4].first_row_index - 1; break;
        default: break;
        }
        plank_offset_index edited = *oi;
        edited.pages = p;
        pk_buffer blob;
        pk_buffer_init(&blob, NULL);
        CHECK(pk_thrift_write_offset_index(&edited, &blob, &err) == PLANK_OK);
        membuf h = {0};
        rebuild(&f, fstart, &md, &blob, &cc->offset_index_offset, &cc->offset_index_length, &h);
        st = read_index(&h, false, &err);
        if (e == UNEDITED) {
            CHECK_MSG(st == PLANK_OK, "%s", err.message);
        } else {
            CHECK_MSG(st == PLANK_ERR_CORRUPT, "edit %d: status %d (%s)", e, (int)st,
                      err.message);
            CHECK_MSG(st == PLANK_OK || (strncmp(err.message, "offset index: ", 14) == 0 &&
                                         strstr(err.message, ": :") == NULL),
                      "edit %d: %s", e, err.message);
        }
        pk_buffer_reset(&blob);
        free(h.data);
    }

    /* Definition-level histograms of the wrong length per page (3 counts
     * for a column whose max definition level is 1), then the right one. */
    for (int per = 3; per >= 2; per--) {
        int64_t hist[30];
        for (int i = 0; i < 30; i++) hist[i] = 1;
        plank_column_index edited = *ci;
        edited.definition_level_histograms = hist;
        edited.num_definition_level_histograms = 10 * per;
        pk_buffer blob;
        pk_buffer_init(&blob, NULL);
        CHECK(pk_thrift_write_column_index(&edited, &blob, &err) == PLANK_OK);
        membuf h = {0};
        rebuild(&f, fstart, &md, &blob, &cc->column_index_offset, &cc->column_index_length, &h);
        st = read_index(&h, true, &err);
        if (per == 2)
            CHECK_MSG(st == PLANK_OK, "%s", err.message);
        else
            CHECK_MSG(st == PLANK_ERR_CORRUPT && strstr(err.message, ": :") == NULL,
                      "status %d (%s)", (int)st, err.message);
        pk_buffer_reset(&blob);
        free(h.data);
    }
    plank_offset_index_free(oi);
    plank_column_index_free(ci);
    pk_file_metadata_free(&md);
    free(g.data);
    free(f.data);
}

/* ---- pk_buffer padding ------------------------------------------------------------------ */

static void test_buffer_padding(void) {
    pk_buffer b;
    pk_buffer_init(&b, NULL);
    plank_error err;
    /* resize: the PK_BUFFER_PADDING bytes after the new size read as zero,
     * growing or shrinking. */
    CHECK(pk_buffer_resize(&b, 100, &err) == PLANK_OK);
    memset(b.data, 0xab, 100);
    CHECK(pk_buffer_resize(&b, 10, &err) == PLANK_OK);
    bool zero = true;
    for (size_t i = 10; i < 10 + PK_BUFFER_PADDING; i++) zero &= b.data[i] == 0;
    CHECK(zero);
    CHECK(pk_buffer_resize(&b, 5000, &err) == PLANK_OK);
    zero = true;
    for (size_t i = 5000; i < 5000 + PK_BUFFER_PADDING; i++) zero &= b.data[i] == 0;
    CHECK(zero);
    /* reserve: the padding past the capacity is zero. */
    CHECK(pk_buffer_reserve(&b, 20000, &err) == PLANK_OK);
    zero = true;
    for (size_t i = b.capacity; i < b.capacity + PK_BUFFER_PADDING; i++) zero &= b.data[i] == 0;
    CHECK(zero);
    pk_buffer_reset(&b);
}

/* ---- CRC32 -------------------------------------------------------------------------------- */

static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

static void test_crc(void) {
    CHECK_EQ_I64(pk_crc32(0, "123456789", 9), 0xcbf43926);
    CHECK_EQ_I64(pk_crc32(0, "", 0), 0);
    CHECK_EQ_I64(pk_crc32(0, "a", 1), 0xe8b7be43);
    CHECK_EQ_I64(pk_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414fa339);
    /* Incremental: crc(a||b) == crc(crc(a), b). */
    CHECK_EQ_I64(pk_crc32(pk_crc32(0, "12345", 5), "6789", 4), 0xcbf43926);

    /* The committed table is what its generator computes. */
    bool table_ok = true;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
        table_ok &= pk_crc32_table[0][i] == c;
        for (int t = 1; t < 8; t++) {
            c = (c >> 8) ^ pk_crc32_table[0][c & 0xff];
            table_ok &= pk_crc32_table[t][i] == c;
        }
    }
    CHECK(table_ok);
    /* The folding constants: x^n mod P, bit-reflected, shifted left by one
     * (P and mu at 5 and 6). */
    static const int exps[13] = {544, 480, 160, 96, 64, 0, 0, 2080, 2016, 416, 352, 288, 224};
    for (int i = 0; i < 13; i++) {
        if (i == 5 || i == 6) continue;
        uint64_t r = 1;
        for (int k = 0; k < exps[i]; k++) {
            r <<= 1;
            if (r >> 32) r ^= 0x104c11db7ull;
        }
        uint64_t refl = 0;
        for (int b = 0; b < 32; b++) refl |= ((r >> b) & 1) << (31 - b);
        CHECK_MSG(pk_crc32_fold[i] == refl << 1, "x^%d", exps[i]);
    }
    CHECK(pk_crc32_fold[5] == 0x1db710641ull && pk_crc32_fold[6] == 0x1f7011641ull);

    /* Random buffers of every length 0..4096 at every start mod 8, against
     * the bitwise reference (and libdeflate when built with it). */
    static uint8_t buf[4096 + 16];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof buf; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
    int64_t bad = 0, bad_portable = 0, bad_deflate = 0, bad_level[3] = {0, 0, 0};
    for (size_t len = 0; len <= 4096; len++) {
        for (size_t start = 0; start < 16; start += len < 256 ? 1 : 5) {
            uint32_t seed = (uint32_t)(len * 2654435761u + start);
            uint32_t want = crc_bitwise(seed, buf + start, len);
            uint32_t got = pk_crc32(seed, buf + start, len);
            bad += want != got;
            /* Every path (the tables, PCLMULQDQ, VPCLMULQDQ: those the CPU
             * lacks fall back to the one below). */
            for (int lv = 0; lv < 3; lv++)
                bad_level[lv] += pk_crc32_level(lv, seed, buf + start, len) != want;
            bad_portable += pk_crc32_portable(seed, buf + start, len) != want;
#ifdef PLANK_HAVE_LIBDEFLATE
            bad_deflate += libdeflate_crc32(seed, buf + start, len) != got;
#endif
        }
    }
    CHECK_EQ_I64(bad, 0);
    for (int lv = 0; lv < 3; lv++) CHECK_MSG(bad_level[lv] == 0, "level %d: %lld", lv, (long long)bad_level[lv]);
    CHECK_EQ_I64(bad_portable, 0);
    CHECK_EQ_I64(bad_deflate, 0);
    /* A large buffer, whole and split anywhere. */
    size_t big = (size_t)1 << 20;
    uint8_t *b = malloc(big + 3);
    if (!b) abort();
    for (size_t i = 0; i < big + 3; i++) b[i] = (uint8_t)(i * 2654435761u >> 11);
    uint32_t whole = pk_crc32(0, b + 3, big);
    CHECK_EQ_I64(whole, crc_bitwise(0, b + 3, big));
    CHECK_EQ_I64(pk_crc32_portable(0, b + 3, big), whole);
    CHECK_EQ_I64(pk_crc32(pk_crc32(0, b + 3, 100001), b + 3 + 100001, big - 100001), whole);
    for (int lv = 0; lv < 3; lv++) CHECK_EQ_I64(pk_crc32_level(lv, 0, b + 3, big), whole);
    free(b);
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        void (*fn)(void);
    } sections[] = {
        {"legacy", test_legacy_levels}, {"arena", test_arena_overflow},
        {"strerror", test_strerror},    {"entry", test_entry_points},
        {"index", test_index_errors},   {"buffer", test_buffer_padding},
        {"crc", test_crc},
    };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (argc > 1 && strcmp(argv[1], sections[i].name) != 0) continue;
        fprintf(stderr, "-- %s\n", sections[i].name);
        sections[i].fn();
    }
    TEST_END();
}
