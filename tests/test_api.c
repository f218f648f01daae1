/*
 * test_api.c: the API conventions of plank.h.
 *
 * The struct-size convention first:
 * The mechanism (pk_struct.h) on synthetic layouts with two versions,
 * including a newer field that lies in the older layout's tail padding; then
 * every public entry point that takes or fills an extensible struct: a
 * struct_size of 0 is refused with PLANK_ERR_INVALID_ARGUMENT naming the
 * struct, and a newer caller's larger struct works with its unknown tail
 * ignored on the way in and untouched on the way out. Then the other
 * conventions: err reset on entry, *out NULL after a failed create, and a
 * read of 0 values refused rather than taken for the end of the chunk.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pk_struct.h"
#include "plank.h"
#include "tharness.h"

/* ---- The mechanism on synthetic layouts ---------------------------------------- */

/* Version 1 of a struct, and version 2 with fields appended as plank.h
 * says, the first one PLANK_LAYOUT_START. Without it (v2_bad) the new
 * field would sit in v1's tail padding and v2 would have v1's sizeof, so
 * old and new callers would pass the same struct_size. */
typedef struct v1 {
    size_t struct_size;
    uint8_t a;
} v1;
typedef struct v2 {
    size_t struct_size;
    uint8_t a;
    PLANK_LAYOUT_START uint8_t added;
    int32_t more;
} v2;
typedef struct v2_bad {
    size_t struct_size;
    uint8_t a;
    uint8_t added;
    int32_t more;
} v2_bad;

static const size_t v2_ends[] = {PK_FIELDS_END(v1, a), PK_FIELDS_END(v2, more)};
static const pk_layouts v2_layouts = {"v2", sizeof(v2), v2_ends, 2};

static void test_mechanism(void) {
    CHECK(sizeof(v2_bad) == sizeof(v1)); /* the hazard PLANK_LAYOUT_START removes */
    CHECK(offsetof(v2, added) >= sizeof(v1));
    CHECK(sizeof(v2) > sizeof(v1));
    /* An old caller: tail padding full of garbage. */
    unsigned char old_bytes[sizeof(v1)];
    memset(old_bytes, 0xEE, sizeof old_bytes);
    v1 old = {sizeof(v1), 7};
    memcpy(old_bytes, &old, offsetof(v1, a) + 1);
    v2 in = {sizeof in, 1, 42, 4242}; /* defaults */
    CHECK(pk_struct_read(&in, old_bytes, &v2_layouts, NULL) == PLANK_OK);
    CHECK_EQ_I64(in.a, 7);
    CHECK_EQ_I64(in.added, 42); /* the default, not 0xEE */
    CHECK_EQ_I64(in.more, 4242);
    CHECK_EQ_I64(in.struct_size, sizeof(v2));
    /* A current caller. */
    v2 cur = {sizeof cur, 3, 4, 5};
    v2 in2 = {sizeof in2, 1, 42, 4242};
    CHECK(pk_struct_read(&in2, &cur, &v2_layouts, NULL) == PLANK_OK);
    CHECK(in2.a == 3 && in2.added == 4 && in2.more == 5);
    /* A newer caller: a larger size; the unknown tail is not read. */
    struct { v2 s; int64_t newer; } big = {{sizeof big, 9, 8, 7}, -1};
    v2 in3 = {sizeof in3, 1, 42, 4242};
    CHECK(pk_struct_read(&in3, &big, &v2_layouts, NULL) == PLANK_OK);
    CHECK(in3.a == 9 && in3.added == 8 && in3.more == 7);
    /* Writes: only what the caller's layout holds. */
    v2 lib = {sizeof lib, 11, 12, 13};
    memset(old_bytes, 0xEE, sizeof old_bytes);
    memcpy(old_bytes, &(size_t){sizeof(v1)}, sizeof(size_t));
    CHECK(pk_struct_write(old_bytes, &lib, &v2_layouts, NULL) == PLANK_OK);
    CHECK_EQ_I64(old_bytes[offsetof(v1, a)], 11);
    for (size_t i = offsetof(v1, a) + 1; i < sizeof old_bytes; i++)
        CHECK_EQ_I64(old_bytes[i], 0xEE); /* the padding is the caller's */
    big.newer = -1;
    CHECK(pk_struct_write(&big, &lib, &v2_layouts, NULL) == PLANK_OK);
    CHECK(big.s.a == 11 && big.s.added == 12 && big.s.more == 13);
    CHECK_EQ_I64(big.s.struct_size, sizeof big); /* struct_size is the caller's */
    CHECK_EQ_I64(big.newer, -1);
    /* Too small, or unset. */
    plank_error err;
    size_t sizes[] = {0, 1, sizeof(size_t), offsetof(v1, a)};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        v1 bad = {sizes[i], 1};
        v2 d = {sizeof d, 1, 42, 4242};
        CHECK(pk_struct_read(&d, &bad, &v2_layouts, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(strstr(err.message, "v2.struct_size") != NULL);
        CHECK(d.a == 1 && d.added == 42); /* untouched */
        CHECK(pk_struct_write(&bad, &lib, &v2_layouts, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK_EQ_I64(bad.a, 1);
    }
    CHECK_EQ_I64(pk_struct_extent(&v2_layouts, sizeof(v1)), PK_FIELDS_END(v1, a));
    CHECK_EQ_I64(pk_struct_extent(&v2_layouts, PK_FIELDS_END(v2, more) - 1), PK_FIELDS_END(v1, a));
    CHECK_EQ_I64(pk_struct_extent(&v2_layouts, sizeof(v2)), PK_FIELDS_END(v2, more));
    /* Arrays: stepped by the first element's size, every element alike. */
    v1 arr[3] = {{sizeof(v1), 1}, {sizeof(v1), 2}, {sizeof(v1), 3}};
    size_t stride = 99;
    CHECK(pk_struct_stride(arr, 3, &v2_layouts, &stride, NULL) == PLANK_OK);
    CHECK_EQ_I64(stride, sizeof(v1));
    for (int i = 0; i < 3; i++) {
        v2 e = {sizeof e, 0, 42, 0};
        CHECK(pk_struct_read(&e, pk_struct_at(arr, stride, i), &v2_layouts, NULL) == PLANK_OK);
        CHECK_EQ_I64(e.a, i + 1);
        CHECK_EQ_I64(e.added, 42);
    }
    arr[2].struct_size = sizeof(v2);
    CHECK(pk_struct_stride(arr, 3, &v2_layouts, &stride, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "v2[2]") != NULL);
    CHECK(pk_struct_stride(arr, 0, &v2_layouts, &stride, NULL) == PLANK_OK);
    CHECK_EQ_I64(stride, 0);
}

/* ---- The public entry points -------------------------------------------------- */

static void expect_refused(plank_status st, const plank_error *err, const char *name) {
    CHECK_MSG(st == PLANK_ERR_INVALID_ARGUMENT, "%s: status %d", name, (int)st);
    char want[96];
    snprintf(want, sizeof want, "%s.struct_size", name);
    CHECK_MSG(strstr(err->message, want) != NULL, "%s: message \"%s\"", name, err->message);
}

/* Two INT64 columns, 10 rows. */
static void schema2(plank_schema_field *f) {
    for (int i = 0; i < 3; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 2;
    f[1].name = "a";
    f[1].physical_type = PLANK_INT64;
    f[2].name = "b";
    f[2].physical_type = PLANK_INT64;
}

static int64_t g_vals[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

static void batches2(plank_batch *b) {
    for (int c = 0; c < 2; c++) {
        memset(&b[c], 0, sizeof b[c]);
        b[c].struct_size = sizeof b[c];
        b[c].length = 10;
        b[c].values = g_vals;
    }
}

typedef th_membuf membuf;
#define mb_write th_membuf_write

static void mb_close(void *opaque) { ((membuf *)opaque)->closes++; }

static plank_status mem_read(void *opaque, uint64_t off, void *buf, size_t len, size_t *got) {
    membuf *m = opaque;
    memcpy(buf, m->data + off, len);
    *got = len;
    return PLANK_OK;
}

/* A file of the two columns, written through a sink; the writer entry points
 * along the way. */
static membuf write_file(void) {
    membuf m = {NULL, 0, 0, 0};
    plank_schema_field f[3];
    schema2(f);
    plank_writer_options wo;
    plank_writer_options_init(&wo);
    CHECK_EQ_I64(wo.struct_size, sizeof wo);
    /* SNAPPY is plank's own: the default in every build, writable and readable */
    CHECK_EQ_I64(wo.codec, PLANK_CODEC_SNAPPY);
    CHECK(plank_codec_writable(PLANK_CODEC_SNAPPY) && plank_codec_available(PLANK_CODEC_SNAPPY));
    plank_error err;
    plank_writer *w = NULL;
    /* Writer options not set up. */
    plank_sink sink = {sizeof sink, mb_write, NULL, mb_close, &m};
    plank_writer_options zero_wo;
    memset(&zero_wo, 0, sizeof zero_wo);
    expect_refused(plank_writer_open_sink(&w, &sink, f, 3, &zero_wo, &err), &err,
                   "plank_writer_options");
    CHECK(w == NULL);
    CHECK_EQ_I64(m.closes, 1); /* a valid sink is closed on failure */
    /* A sink not set up: nothing in it is trusted, so its close is not called. */
    plank_sink zero_sink = sink;
    zero_sink.struct_size = 0;
    expect_refused(plank_writer_open_sink(&w, &zero_sink, f, 3, &wo, &err), &err,
                   "plank_sink");
    CHECK_EQ_I64(m.closes, 1);
    /* A schema field not set up. */
    plank_schema_field fz[3];
    schema2(fz);
    fz[1].struct_size = 0;
    expect_refused(plank_writer_open_sink(&w, &sink, fz, 3, &wo, &err), &err,
                   "plank_schema_field[1]");
    fz[0].struct_size = 0;
    fz[1].struct_size = sizeof fz[1];
    expect_refused(plank_writer_open_sink(&w, &sink, fz, 3, &wo, &err), &err,
                   "plank_schema_field");
    /* Column options not set up. */
    plank_column_options co;
    plank_column_options_init(&co);
    CHECK_EQ_I64(co.struct_size, sizeof co);
    co.path = "a";
    co.struct_size = 0;
    wo.columns = &co;
    wo.num_column_options = 1;
    expect_refused(plank_writer_open_sink(&w, &sink, f, 3, &wo, &err), &err,
                   "plank_column_options");
    CHECK_EQ_I64(m.closes, 4);
    /* A newer caller's writer options: the unknown tail is ignored. Column
     * options stepped by their struct_size: two of a larger, newer layout. */
    struct { plank_column_options o; int64_t newer; } cos[2];
    for (int i = 0; i < 2; i++) {
        plank_column_options_init(&cos[i].o);
        cos[i].o.struct_size = sizeof cos[i];
        cos[i].newer = -1;
    }
    cos[0].o.path = "a";
    cos[0].o.statistics = 0;
    cos[1].o.path = "b";
    cos[1].o.dictionary = 0;
    struct { plank_writer_options o; int64_t newer[4]; } nwo;
    plank_writer_options_init(&nwo.o);
    nwo.o.struct_size = sizeof nwo;
    memset(nwo.newer, 0xEE, sizeof nwo.newer);
    nwo.o.columns = &cos[0].o;
    nwo.o.num_column_options = 2;
    m.len = 0;
    CHECK_MSG(plank_writer_open_sink(&w, &sink, f, 3, &nwo.o, &err) == PLANK_OK, "%s",
              err.message);
    if (!w) return m;
    plank_batch b[2];
    batches2(b);
    /* write_column and write_rows refuse batches not set up. */
    plank_batch zb = b[0];
    zb.struct_size = 0;
    expect_refused(plank_writer_write_column(w, 0, &zb, &err), &err, "plank_batch");
    plank_batch zbs[2] = {b[0], b[1]};
    zbs[1].struct_size = 0;
    expect_refused(plank_writer_write_rows(w, zbs, 10, &err), &err, "plank_batch[1]");
    /* A newer caller's larger batches, in an array stepped by their size. */
    struct { plank_batch b; int64_t newer; } nb[2];
    for (int c = 0; c < 2; c++) {
        nb[c].b = b[c];
        nb[c].b.struct_size = sizeof nb[c];
        nb[c].newer = -1;
    }
    CHECK_MSG(plank_writer_write_rows(w, &nb[0].b, 10, &err) == PLANK_OK, "%s", err.message);
    CHECK_MSG(plank_writer_close(w, &err) == PLANK_OK, "%s", err.message);
    return m;
}

static void test_reader_side(membuf *m) {
    plank_error err;
    plank_reader *r = NULL;
    /* Reader options not set up, through each open function. */
    plank_reader_options zo;
    memset(&zo, 0, sizeof zo);
    expect_refused(plank_reader_open_memory(&r, m->data, m->len, &zo, &err), &err,
                   "plank_reader_options");
    CHECK(r == NULL);
    char path[] = "/tmp/plank-structsize-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK((size_t)write(fd, m->data, m->len) == m->len);
        close(fd);
        expect_refused(plank_reader_open_path(&r, path, &zo, &err), &err,
                       "plank_reader_options");
        plank_reader_options po;
        plank_reader_options_init(&po);
        CHECK(plank_reader_open_path(&r, path, &po, &err) == PLANK_OK);
        plank_reader_close(r);
        r = NULL;
        unlink(path);
    }
    membuf src_ctx = *m;
    src_ctx.closes = 0;
    plank_source src = {sizeof src, mem_read, mb_close, m->len, &src_ctx, NULL};
    expect_refused(plank_reader_open_source(&r, &src, &zo, &err), &err, "plank_reader_options");
    CHECK_EQ_I64(src_ctx.closes, 1);
    plank_source zsrc = src;
    zsrc.struct_size = 0;
    expect_refused(plank_reader_open_source(&r, &zsrc, NULL, &err), &err, "plank_source");
    CHECK_EQ_I64(src_ctx.closes, 1);
    /* A newer caller's source and options. */
    struct { plank_source s; void *newer; } nsrc = {src, (void *)&err};
    nsrc.s.struct_size = sizeof nsrc;
    struct { plank_reader_options o; int64_t newer; } nro;
    plank_reader_options_init(&nro.o);
    nro.o.struct_size = sizeof nro;
    nro.newer = -1;
    CHECK_MSG(plank_reader_open_source(&r, &nsrc.s, &nro.o, &err) == PLANK_OK, "%s",
              err.message);
    if (!r) return;
    CHECK_EQ_I64(plank_reader_num_rows(r), 10);

    /* Out-structs: refused when not set up, and left alone beyond the
     * caller's size. */
    plank_row_group_info zi;
    memset(&zi, 0, sizeof zi);
    expect_refused(plank_reader_row_group(r, 0, &zi, &err), &err, "plank_row_group_info");
    struct { plank_row_group_info i; int64_t newer; } ni;
    memset(&ni, 0, sizeof ni);
    ni.i.struct_size = sizeof ni;
    ni.newer = -1;
    CHECK(plank_reader_row_group(r, 0, &ni.i, &err) == PLANK_OK);
    CHECK_EQ_I64(ni.i.num_rows, 10);
    CHECK_EQ_I64(ni.i.struct_size, sizeof ni);
    CHECK_EQ_I64(ni.newer, -1);
    plank_column_chunk_info zc;
    memset(&zc, 0, sizeof zc);
    expect_refused(plank_reader_column_chunk(r, 0, 1, &zc, &err), &err,
                   "plank_column_chunk_info");
    struct { plank_column_chunk_info c; int64_t newer; } nc;
    memset(&nc, 0, sizeof nc);
    nc.c.struct_size = sizeof nc;
    nc.newer = -1;
    CHECK(plank_reader_column_chunk(r, 0, 1, &nc.c, &err) == PLANK_OK);
    CHECK_EQ_I64(nc.c.num_values, 10);
    CHECK(strcmp(nc.c.path, "b") == 0);
    CHECK(nc.c.statistics.has_min); /* column b kept its statistics */
    CHECK_EQ_I64(nc.newer, -1);
    plank_column_chunk_info ca = {.struct_size = sizeof ca};
    CHECK(plank_reader_column_chunk(r, 0, 0, &ca, &err) == PLANK_OK);
    CHECK(!ca.has_statistics || !ca.statistics.has_min); /* the column option took */

    /* err is reset on entry by calls that succeed. */
    plank_error stale;
    plank_error_init(&stale);
    stale.code = PLANK_ERR_CORRUPT;
    stale.row_group = 5;
    snprintf(stale.message, sizeof stale.message, "stale");
    plank_error e2 = stale;
    plank_row_group_info gi = {.struct_size = sizeof gi};
    CHECK(plank_reader_row_group(r, 0, &gi, &e2) == PLANK_OK);
    CHECK(e2.code == PLANK_OK && e2.message[0] == 0 && e2.row_group == -1);
    e2 = stale;
    plank_column_chunk_info ci = {.struct_size = sizeof ci};
    CHECK(plank_reader_column_chunk(r, 0, 0, &ci, &e2) == PLANK_OK);
    CHECK(e2.code == PLANK_OK && e2.message[0] == 0);
    e2 = stale;
    plank_column_index *cx = NULL;
    CHECK(plank_reader_column_index(r, 0, 0, &cx, &e2) == PLANK_OK);
    CHECK(e2.code == PLANK_OK && e2.message[0] == 0);
    plank_column_index_free(cx);
    e2 = stale;
    struct ArrowSchema sch;
    CHECK(plank_reader_arrow_schema(r, NULL, &sch, &e2) == PLANK_OK);
    CHECK(e2.code == PLANK_OK && e2.message[0] == 0);
    sch.release(&sch);
    /* A failed create leaves *out NULL. */
    plank_column_reader *cr = (plank_column_reader *)(void *)&stale;
    CHECK(plank_column_reader_open(&cr, r, 0, 9, &err) == PLANK_ERR_INVALID_ARGUMENT);
    CHECK(cr == NULL);
    plank_reader *r2 = (plank_reader *)(void *)&stale;
    CHECK(plank_reader_open_memory(&r2, m->data, 3, NULL, &err) == PLANK_ERR_CORRUPT);
    CHECK(r2 == NULL);
    CHECK(plank_column_reader_open(&cr, r, 0, 0, &err) == PLANK_OK);
    if (cr) {
        e2 = stale;
        CHECK(plank_column_reader_seek(cr, 0, &e2) == PLANK_OK);
        CHECK(e2.code == PLANK_OK && e2.message[0] == 0);
        /* A read of 0 values is refused, never taken for the end. */
        plank_batch b0 = {.struct_size = sizeof b0};
        CHECK(plank_column_reader_read(cr, 0, &b0, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(strstr(err.message, "max_values") != NULL);
        plank_batch zbt;
        memset(&zbt, 0, sizeof zbt);
        expect_refused(plank_column_reader_read(cr, 4, &zbt, &err), &err, "plank_batch");
        /* Refused before anything was consumed: the next read starts at row 0. */
        struct { plank_batch b; int64_t newer; } nbt;
        memset(&nbt, 0, sizeof nbt);
        nbt.b.struct_size = sizeof nbt;
        nbt.newer = -1;
        CHECK(plank_column_reader_read(cr, 4, &nbt.b, &err) == PLANK_OK);
        CHECK_EQ_I64(nbt.b.length, 4);
        CHECK_EQ_I64(((const int64_t *)nbt.b.values)[0], 0);
        CHECK_EQ_I64(((const int64_t *)nbt.b.values)[3], 3);
        CHECK_EQ_I64(nbt.newer, -1);
        plank_column_reader_close(cr);
    }

    /* Arrow options. */
    plank_arrow_options zao;
    memset(&zao, 0, sizeof zao);
    struct ArrowSchema sc;
    expect_refused(plank_reader_arrow_schema(r, &zao, &sc, &err), &err, "plank_arrow_options");
    struct ArrowArrayStream st;
    expect_refused(plank_reader_arrow_stream(r, NULL, 0, &zao, &st, &err), &err,
                   "plank_arrow_options");
    plank_row_range rr = {2, 3};
    expect_refused(plank_reader_arrow_stream_rows(r, &rr, 1, &zao, &st, &err), &err,
                   "plank_arrow_options");
    struct { plank_arrow_options o; int64_t newer; } nao;
    plank_arrow_options_init(&nao.o);
    nao.o.struct_size = sizeof nao;
    nao.o.batch_rows = 4;
    nao.newer = 0;
    CHECK(plank_reader_arrow_stream_rows(r, &rr, 1, &nao.o, &st, &err) == PLANK_OK);
    struct ArrowArray a;
    CHECK(st.get_next(&st, &a) == 0);
    CHECK_EQ_I64(a.length, 3);
    if (a.release) {
        const int64_t *v = a.children[0]->buffers[1];
        CHECK_EQ_I64(v[a.children[0]->offset], 2);
        a.release(&a);
    }
    st.release(&st);

    /* Scan options: arrow options inside them are checked too. */
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.arrow = &zao;
    plank_scan *s = NULL;
    expect_refused(plank_scan_open(&s, r, &so, &err), &err, "plank_arrow_options");
    CHECK(s == NULL);
    plank_reader_close(r);
}

static void test_tpch_side(void) {
    plank_tpch *g = NULL;
    plank_error err;
    CHECK(plank_tpch_open(&g, 0.0001, 1, NULL, &err) == PLANK_OK);
    if (!g) return;
    plank_tpch_options o;
    plank_tpch_options_init(&o);
    CHECK_EQ_I64(o.struct_size, sizeof o);
    o.struct_size = 0;
    expect_refused(plank_tpch_write(g, "/nonexistent", &o, &err), &err, "plank_tpch_options");
    plank_tpch_options_init(&o);
    plank_writer_options wo;
    memset(&wo, 0, sizeof wo);
    o.writer = &wo;
    expect_refused(plank_tpch_write(g, "/nonexistent", &o, &err), &err, "plank_writer_options");
    /* The batch accessor replaces the array one, whose stride a caller could
     * not know. */
    plank_tpch_batch *b = NULL;
    CHECK(plank_tpch_batch_new(&b, g, PLANK_TPCH_NATION, 25, &err) == PLANK_OK);
    if (b) {
        CHECK(plank_tpch_generate(b, 0, 25, &err) == PLANK_OK);
        const plank_batch *c0 = plank_tpch_batch_column(b, 0);
        CHECK(c0 && c0->struct_size == sizeof *c0 && c0->length == 25);
        CHECK(plank_tpch_batch_column(b, 4) == NULL); /* nation has 4 columns */
        CHECK(plank_tpch_batch_column(b, -1) == NULL);
        plank_tpch_batch_free(b);
    }
    plank_tpch_close(g);
}

int main(void) {
    test_mechanism();
    membuf m = write_file();
    if (m.data) test_reader_side(&m);
    free(m.data);
    test_tpch_side();
    TEST_END();
}
