/*
 * test_arrow_select.c: the Arrow stream over selected rows
 * (plank_reader_arrow_stream_rows) against the full stream filtered by the
 * same selection, row by row as JSON (arrow_json.h, an independent walker),
 * over every parquet-testing file plank streams and over files written here
 * with tiny pages (dictionary, plain and delta, v1 and v2, nulls, several
 * row groups). Also: the stream's schema does not depend on the row groups
 * it covers, a stream outlives its reader, and dictionary arrays of one
 * chunk share their dictionary.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrow_json.h"
#include "plank.h"
#include "tharness.h"

typedef struct rows_t {
    char **row;
    int64_t n, cap;
} rows_t;

static void rows_free(rows_t *r) {
    for (int64_t i = 0; i < r->n; i++) free(r->row[i]);
    free(r->row);
    memset(r, 0, sizeof *r);
}

static void rows_push(rows_t *r, const char *s) {
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->row = realloc(r->row, (size_t)r->cap * sizeof *r->row);
        if (!r->row) abort();
    }
    r->row[r->n++] = strdup(s);
}

/* Every row of the stream as JSON; 0 when the stream fails. */
static int drain(struct ArrowArrayStream *st, rows_t *out, int64_t max_batch) {
    struct ArrowSchema sc;
    if (st->get_schema(st, &sc) != 0) return 0;
    int ok = 1;
    aj_buf b = {0};
    for (;;) {
        struct ArrowArray a;
        int rc = st->get_next(st, &a);
        if (rc != 0) {
            ok = 0;
            break;
        }
        if (!a.release) break;
        if (max_batch > 0 && a.length > max_batch) ok = 0;
        for (int64_t i = 0; i < a.length; i++) {
            b.n = 0;
            aj_str(&b, "");
            aj_row(&b, &sc, &a, i);
            rows_push(out, b.p);
        }
        a.release(&a);
    }
    free(b.p);
    sc.release(&sc);
    return ok;
}

static plank_reader *open_path(const char *path) {
    plank_reader *r = NULL;
    plank_error e;
    if (plank_reader_open_path(&r, path, NULL, &e) != PLANK_OK) return NULL;
    return r;
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Selections of n rows: fills ranges, returns how many. */
static int64_t make_selection(int kind, int64_t n, uint64_t *seed, plank_row_range *out,
                              const char **name) {
    int64_t k = 0;
    switch (kind) {
    case 0: *name = "empty"; return 0;
    case 1: *name = "full"; out[k++] = (plank_row_range){0, n}; return k;
    case 2: *name = "first"; if (n) out[k++] = (plank_row_range){0, 1}; return k;
    case 3: *name = "last"; if (n) out[k++] = (plank_row_range){n - 1, 1}; return k;
    case 4:
        *name = "every 3rd";
        for (int64_t i = 0; i < n; i += 3) out[k++] = (plank_row_range){i, 1};
        return k;
    case 5:
        *name = "every 100th";
        for (int64_t i = 7 % (n ? n : 1); i < n; i += 100) out[k++] = (plank_row_range){i, 1};
        return k;
    case 6:
        *name = "middle 1%";
        if (n) out[k++] = (plank_row_range){n / 2, n / 100 ? n / 100 : 1};
        if (out[0].first + out[0].count > n) out[0].count = n - out[0].first;
        return k;
    default: {
        *name = "random";
        int64_t at = 0;
        while (at < n) {
            int64_t gap = (int64_t)(rng_next(seed) % 40), len = 1 + (int64_t)(rng_next(seed) % 30);
            at += gap;
            if (at >= n) break;
            if (len > n - at) len = n - at;
            out[k++] = (plank_row_range){at, len};
            at += len;
        }
        return k;
    }
    }
}

/* The selected stream equals the full stream filtered, for every
 * selection kind and several option sets. Returns 0 if the file does not
 * stream fully (not checked). */
static int check_file(const char *path, int64_t *selections) {
    struct stat sb;
    if (stat(path, &sb) != 0 || sb.st_size > (20 << 20)) return 0; /* large_string_map: 2 GiB */
    plank_reader *r = open_path(path);
    if (!r) return 0;
    if (getenv("TEST_VERBOSE")) fprintf(stderr, "%s\n", path);
    int64_t n = plank_reader_num_rows(r), bytes = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        plank_error ge;
        if (plank_reader_row_group(r, g, &info, &ge) == PLANK_OK) bytes += info.total_byte_size;
    }
    if (n > 200000 || bytes > (64 << 20)) {
        plank_reader_close(r);
        return 0;
    }
    plank_arrow_options opts[4];
    for (int i = 0; i < 4; i++) plank_arrow_options_init(&opts[i]);
    opts[1].batch_rows = 7;
    opts[2].zero_copy = false;
    opts[2].batch_rows = 1000;
    /* strings as dictionary arrays: codes and fallback values (plain and
     * DELTA pages) under every selection */
    opts[3].dictionary_arrays = true;
    opts[3].batch_rows = 1500;
    rows_t full = {0};
    struct ArrowArrayStream st;
    plank_error e;
    int ok = plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK;
    if (ok) {
        ok = drain(&st, &full, 0);
        st.release(&st);
    }
    if (!ok || full.n != n) {
        rows_free(&full);
        plank_reader_close(r);
        return 0;
    }
    plank_row_range *sel = malloc(((size_t)n + 2) * sizeof *sel);
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    for (int kind = 0; kind < 9; kind++) {
        const char *name;
        int64_t ns = make_selection(kind, n, &seed, sel, &name);
        for (int oi = 0; oi < 4; oi++) {
            rows_t got = {0};
            plank_status rc = plank_reader_arrow_stream_rows(r, sel, ns, &opts[oi], &st, &e);
            CHECK_MSG(rc == PLANK_OK, "%s %s: %s", path, name, e.message);
            if (rc != PLANK_OK) continue;
            int dok = drain(&st, &got, opts[oi].batch_rows);
            CHECK_MSG(dok, "%s %s options %d: stream failed: %s", path, name, oi,
                      st.get_last_error(&st) ? st.get_last_error(&st) : "");
            st.release(&st);
            int64_t at = 0, bad = 0;
            for (int64_t q = 0; q < ns && !bad; q++)
                for (int64_t i = sel[q].first; i < sel[q].first + sel[q].count && !bad; i++) {
                    if (at >= got.n || strcmp(got.row[at], full.row[i]) != 0) {
                        CHECK_MSG(0, "%s %s options %d: selected row %lld (file row %lld):\n"
                                  " got  %s\n want %s", path, name, oi, (long long)at,
                                  (long long)i, at < got.n ? got.row[at] : "(none)",
                                  full.row[i]);
                        bad = 1;
                    }
                    at++;
                }
            if (!bad) CHECK_MSG(at == got.n, "%s %s: %lld rows, %lld selected", path, name,
                                (long long)got.n, (long long)at);
            (*selections)++;
            rows_free(&got);
        }
    }
    free(sel);
    rows_free(&full);
    plank_reader_close(r);
    return 1;
}

/* ---- Files written here ----------------------------------------------------------- */

/* id INT64 required, v INT32 optional (every 5th null), s STRING optional
 * (few distinct values, every 7th null), t STRING required (distinct). */
static void write_file(const char *path, int enc, int page_version, int64_t rows) {
    plank_schema_field f[5];
    for (int i = 0; i < 5; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 4;
    f[1].name = "id"; f[1].physical_type = PLANK_INT64; f[1].repetition = PLANK_REQUIRED;
    f[2].name = "v"; f[2].physical_type = PLANK_INT32; f[2].repetition = PLANK_OPTIONAL;
    f[3].name = "s"; f[3].physical_type = PLANK_BYTE_ARRAY; f[3].repetition = PLANK_OPTIONAL;
    f[3].logical.kind = PLANK_LOGICAL_STRING;
    f[4].name = "t"; f[4].physical_type = PLANK_BYTE_ARRAY; f[4].repetition = PLANK_REQUIRED;
    f[4].logical.kind = PLANK_LOGICAL_STRING;
    plank_writer_options wo;
    plank_writer_options_init(&wo);
    wo.page_rows = 37;
    wo.row_group_rows = 1000;
    wo.page_version = page_version;
    wo.dictionary = enc == 0;
    if (enc == 1) wo.encoding = PLANK_ENC_PLAIN;
    /* delta: integers DELTA_BINARY_PACKED (the v2 default), strings DELTA_*_BYTE_ARRAY
     * (enc 3: the prefix-sharing required t as DELTA_BYTE_ARRAY) */
    plank_column_options co[2];
    plank_column_options_init(&co[0]);
    plank_column_options_init(&co[1]);
    co[0].path = "s";
    co[0].encoding = enc == 3 ? PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY : PLANK_ENC_DELTA_BYTE_ARRAY;
    co[0].dictionary = 0;
    co[1].path = "t";
    co[1].encoding = enc == 3 ? PLANK_ENC_DELTA_BYTE_ARRAY : PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY;
    co[1].dictionary = 0;
    if (enc >= 2) {
        wo.columns = co;
        wo.num_column_options = 2;
    }
    plank_writer *w = NULL;
    plank_error e;
    plank_status st = plank_writer_open_path(&w, path, f, 5, &wo, &e);
    CHECK_MSG(st == PLANK_OK, "writer: %s", e.message);
    if (st != PLANK_OK) return;
    int64_t *ids = malloc((size_t)rows * 8);
    int32_t *vs = malloc((size_t)rows * 4);
    uint8_t *vval = calloc((size_t)rows / 8 + 1, 1), *sval = calloc((size_t)rows / 8 + 1, 1);
    int64_t *soff = malloc(((size_t)rows + 1) * 8), *toff = malloc(((size_t)rows + 1) * 8);
    char *sdata = malloc((size_t)rows * 8 + 1), *tdata = malloc((size_t)rows * 24 + 1);
    int16_t *vdef = malloc((size_t)rows * 2), *sdef = malloc((size_t)rows * 2);
    int64_t sl = 0, tl = 0, vnull = 0, snull = 0;
    soff[0] = toff[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        ids[i] = i * 3 - 1000;
        bool vn = i % 5 == 4, sn = i % 7 == 3;
        vs[i] = vn ? 0 : (int32_t)(i * 7 % 1001);
        vdef[i] = vn ? 0 : 1;
        sdef[i] = sn ? 0 : 1;
        vnull += vn;
        snull += sn;
        if (!vn) vval[i / 8] |= (uint8_t)(1 << (i % 8));
        if (!sn) {
            sval[i / 8] |= (uint8_t)(1 << (i % 8));
            sl += sprintf(sdata + sl, "k%d", (int)(i % 13));
        }
        soff[i + 1] = sl;
        tl += sprintf(tdata + tl, "row-%lld", (long long)i);
        toff[i + 1] = tl;
    }
    plank_batch b[4];
    memset(b, 0, sizeof b);
    for (size_t k_ = 0; k_ < sizeof b / sizeof b[0]; k_++) b[k_].struct_size = sizeof b[0];
    b[0] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows, .values = ids, .physical_type = PLANK_INT64, .value_width = 8};
    b[1] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows, .null_count = vnull, .validity = vval, .values = vs,
                         .def_levels = vdef, .physical_type = PLANK_INT32, .value_width = 4};
    b[2] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows, .null_count = snull, .validity = sval, .offsets = soff,
                         .data = (const uint8_t *)sdata, .def_levels = sdef,
                         .physical_type = PLANK_BYTE_ARRAY};
    b[3] = (plank_batch){.struct_size = sizeof(plank_batch), .length = rows, .offsets = toff, .data = (const uint8_t *)tdata,
                         .physical_type = PLANK_BYTE_ARRAY};
    st = plank_writer_write_rows(w, b, rows, &e);
    CHECK_MSG(st == PLANK_OK, "write_rows: %s", e.message);
    st = plank_writer_close(w, &e);
    CHECK_MSG(st == PLANK_OK, "close: %s", e.message);
    free(ids); free(vs); free(vval); free(sval); free(soff); free(toff);
    free(sdata); free(tdata); free(vdef); free(sdef);
}

/* ---- Schema, lifetime, shared dictionaries -------------------------------------------- */

static void format_tree(aj_buf *b, const struct ArrowSchema *s) {
    aj_str(b, s->format);
    aj_str(b, "(");
    for (int64_t i = 0; i < s->n_children; i++) format_tree(b, s->children[i]);
    if (s->dictionary) format_tree(b, s->dictionary);
    aj_str(b, ")");
}

static void check_schema_and_lifetime(const char *path) {
    plank_reader *r = open_path(path);
    CHECK(r != NULL);
    if (!r) return;
    struct ArrowSchema whole, part;
    plank_error e;
    CHECK(plank_reader_arrow_schema(r, NULL, &whole, &e) == PLANK_OK);
    aj_buf a = {0}, b = {0};
    aj_str(&a, "");
    format_tree(&a, &whole);
    int32_t groups = plank_reader_num_row_groups(r);
    CHECK(groups > 1);
    for (int32_t g = 0; g < groups; g++) {
        struct ArrowArrayStream st;
        CHECK(plank_reader_arrow_stream(r, &g, 1, NULL, &st, &e) == PLANK_OK);
        CHECK(st.get_schema(&st, &part) == 0);
        b.n = 0;
        aj_str(&b, "");
        format_tree(&b, &part);
        CHECK_MSG(!strcmp(a.p, b.p), "row group %d: schema %s, whole file %s", (int)g, b.p, a.p);
        part.release(&part);
        st.release(&st);
    }
    whole.release(&whole);
    /* The reader closed first: the stream keeps it alive. */
    rows_t ref = {0}, late = {0};
    struct ArrowArrayStream st;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
    CHECK(drain(&st, &ref, 0));
    st.release(&st);
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
    plank_reader_close(r);
    CHECK(drain(&st, &late, 0));
    st.release(&st);
    CHECK_EQ_I64(late.n, ref.n);
    for (int64_t i = 0; i < ref.n && i < late.n; i++) CHECK(!strcmp(ref.row[i], late.row[i]));
    rows_free(&ref);
    rows_free(&late);
    free(a.p);
    free(b.p);
}

/* Dictionary arrays: the batches of one chunk share one dictionary (same
 * buffers), which stays valid after the earlier batches and the stream are
 * released; values equal the decoded export. */
static void check_shared_dictionary(const char *path) {
    plank_reader *r = open_path(path);
    CHECK(r != NULL);
    if (!r) return;
    plank_arrow_options o;
    plank_arrow_options_init(&o);
    o.dictionary_arrays = true;
    o.batch_rows = 100;
    struct ArrowArrayStream st;
    plank_error e;
    int32_t g = 0;
    CHECK(plank_reader_arrow_stream(r, &g, 1, &o, &st, &e) == PLANK_OK);
    struct ArrowArray a[10];
    int n = 0;
    while (n < 10) {
        CHECK(st.get_next(&st, &a[n]) == 0);
        if (!a[n].release) break;
        n++;
    }
    st.release(&st);
    plank_reader_close(r);
    CHECK(n == 10);
    /* column 2 ("s") is dictionary-encoded in every page of the chunk */
    for (int i = 1; i < n; i++) {
        CHECK(a[i].children[2]->dictionary != NULL);
        CHECK(a[i].children[2]->dictionary->buffers[2] == a[0].children[2]->dictionary->buffers[2]);
    }
    for (int i = 0; i < n - 1; i++) a[i].release(&a[i]);
    const struct ArrowArray *s = a[n - 1].children[2], *d = s->dictionary;
    const int32_t *ix = s->buffers[1];
    const int32_t *off = d->buffers[1];
    const char *data = d->buffers[2];
    const uint8_t *valid = s->buffers[0];
    for (int64_t i = 0; i < s->length; i++) {
        int64_t row = (int64_t)(n - 1) * 100 + i;
        bool is_null = row % 7 == 3;
        CHECK(is_null == (valid && !((valid[i / 8] >> (i % 8)) & 1)));
        if (is_null) continue;
        char want[16];
        int wl = sprintf(want, "k%d", (int)(row % 13));
        CHECK(off[ix[i] + 1] - off[ix[i]] == wl && !memcmp(data + off[ix[i]], want, (size_t)wl));
    }
    a[n - 1].release(&a[n - 1]);
}

/* memory_map: the same rows as a read file, zero-copy arrays point into the
 * mapping and stay valid after the stream and the reader are gone. */
static void check_memory_map(const char *path) {
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    CHECK(!ro.memory_map);
    ro.memory_map = true;
    plank_reader *r = NULL, *plain = open_path(path);
    plank_error e;
    CHECK(plank_reader_open_path(&r, path, &ro, &e) == PLANK_OK);
    if (!r || !plain) return;
    rows_t want = {0}, got = {0};
    struct ArrowArrayStream st;
    CHECK(plank_reader_arrow_stream(plain, NULL, 0, NULL, &st, &e) == PLANK_OK);
    CHECK(drain(&st, &want, 0));
    st.release(&st);
    plank_reader_close(plain);
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &e) == PLANK_OK);
    struct ArrowSchema sc;
    CHECK(st.get_schema(&st, &sc) == 0);
    struct ArrowArray keep[64];
    int n = 0;
    for (; n < 64; n++) {
        CHECK(st.get_next(&st, &keep[n]) == 0);
        if (!keep[n].release) break;
    }
    st.release(&st);
    plank_reader_close(r); /* the arrays still hold the mapping */
    aj_buf b = {0};
    for (int i = 0; i < n; i++) {
        for (int64_t k = 0; k < keep[i].length; k++) {
            b.n = 0;
            aj_str(&b, "");
            aj_row(&b, &sc, &keep[i], k);
            rows_push(&got, b.p);
        }
        keep[i].release(&keep[i]);
    }
    sc.release(&sc);
    free(b.p);
    CHECK_EQ_I64(got.n, want.n);
    for (int64_t i = 0; i < got.n && i < want.n; i++)
        CHECK_MSG(!strcmp(got.row[i], want.row[i]), "mapped row %lld: %s, read %s",
                  (long long)i, got.row[i], want.row[i]);
    rows_free(&got);
    rows_free(&want);
}

static void test_bad_ranges(const char *path) {
    plank_reader *r = open_path(path);
    if (!r) return;
    struct ArrowArrayStream st;
    plank_error e;
    int64_t n = plank_reader_num_rows(r);
    plank_row_range bad[][2] = {{{5, 2}, {3, 1}}, {{0, 2}, {1, 1}}, {{-1, 2}, {4, 1}},
                                {{0, 1}, {n, 1}}};
    for (int i = 0; i < 4; i++)
        CHECK(plank_reader_arrow_stream_rows(r, bad[i], 2, NULL, &st, &e) ==
              PLANK_ERR_INVALID_ARGUMENT);
    plank_reader_close(r);
}

int main(void) {
    char dir[] = "/tmp/plank_arrow_select_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    int64_t selections = 0, files = 0;
    const char *names[] = {"dict_v1", "plain_v2", "delta_v2", "dict_v2", "delta_dba_v2"};
    int encs[] = {0, 1, 2, 0, 3}, pvs[] = {1, 2, 2, 2, 2};
    char path[1024];
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s.parquet", dir, names[i]);
        write_file(path, encs[i], pvs[i], 2500);
        CHECK_MSG(check_file(path, &selections), "%s: not streamed", path);
        files++;
    }
    snprintf(path, sizeof path, "%s/dict_v1.parquet", dir);
    check_schema_and_lifetime(path);
    check_shared_dictionary(path);
    test_bad_ranges(path);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s.parquet", dir, names[i]);
        check_memory_map(path);
    }
    const char *testing = th_testing_dir();
    if (!testing) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    char data[512];
    snprintf(data, sizeof data, "%s/data", testing);
    DIR *dp = opendir(data);
    CHECK(dp != NULL);
    int64_t skipped = 0;
    struct dirent *de;
    while (dp && (de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 9 || strcmp(de->d_name + l - 8, ".parquet")) continue;
        snprintf(path, sizeof path, "%s/%s", data, de->d_name);
        if (check_file(path, &selections)) files++;
        else skipped++;
    }
    if (dp) closedir(dp);
    fprintf(stderr, "%lld files, %lld selections checked; %lld corpus files not streamed "
            "(unreadable, above 20 MB stored, 64 MB decoded or 200k rows)\n", (long long)files, (long long)selections,
            (long long)skipped);
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s.parquet", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    TEST_END();
}
