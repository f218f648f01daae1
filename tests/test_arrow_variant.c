/*
 * test_arrow_variant.c: VARIANT columns through the Arrow export and import.
 *
 *  - Shredded files of the corpus (shredded_variant/, written by parquet-mr
 *    for Iceberg's reader tests) are exported as the arrow.parquet.variant
 *    extension type, struct<metadata, value>, and every reassembled value
 *    must equal, as JSON, the reference binary the corpus gives for its row
 *    (decoded by plank_variant_to_json, which tests/test_variant_read.c and
 *    tests/peer/variant_corpus.mjs check against independent answers).
 *  - variant_shredded keeps the storage with the extension name; a partial
 *    selection is a plain struct; an options struct of the older layout gets
 *    the default.
 *  - Invalid shredding (value and typed_value both set) fails the batch
 *    with a message naming the column and the row.
 *  - The import: the exported extension type written back through
 *    plank_write_arrow_stream becomes a VARIANT(1) group with a REQUIRED
 *    metadata, and reads back to the same values.
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tharness.h"

static char dir[4096];

/* Whether the field's metadata names the variant extension. */
static bool has_extension(const struct ArrowSchema *s) {
    if (!s->metadata) return false;
    int32_t count, kl, vl;
    memcpy(&count, s->metadata, 4);
    const char *p = s->metadata + 4;
    for (int32_t k = 0; k < count; k++) {
        memcpy(&kl, p, 4);
        const char *key = p + 4;
        memcpy(&vl, key + kl, 4);
        const char *val = key + kl + 4;
        if (kl == 20 && !memcmp(key, "ARROW:extension:name", 20) && vl == 21 &&
            !memcmp(val, "arrow.parquet.variant", 21))
            return true;
        p = val + vl;
    }
    return false;
}

static int child_index(const struct ArrowSchema *s, const char *name) {
    for (int64_t k = 0; k < s->n_children; k++)
        if (!strcmp(s->children[k]->name, name)) return (int)k;
    return -1;
}

static void binary_at(const struct ArrowArray *a, int64_t i, const uint8_t **p, size_t *n) {
    const int32_t *o = a->buffers[1];
    int64_t k = a->offset + i;
    *p = (const uint8_t *)a->buffers[2] + o[k];
    *n = (size_t)(o[k + 1] - o[k]);
}

/* The reference value of a case row: metadata and value back to back. */
static bool reference_json(const char *file, char *out, size_t size) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t n = 0;
    unsigned char *b = th_read_file(path, &n);
    if (!b) return false;
    /* metadata length from its header: dictionary size, offsets, bytes */
    size_t os = (size_t)(b[0] >> 6) + 1, dict = 0, last = 0;
    for (size_t i = os; i-- > 0;) dict = dict << 8 | b[1 + i];
    for (size_t i = os; i-- > 0;) last = last << 8 | b[1 + os + dict * os + i];
    size_t mlen = 1 + os + (dict + 1) * os + last;
    plank_error err;
    size_t len;
    bool ok = mlen <= n && plank_variant_to_json(b, mlen, b + mlen, n - mlen, out, size, &len,
                                                 NULL, &err) == PLANK_OK;
    free(b);
    return ok;
}

typedef struct read_result {
    int rows;
    char json[8][1024];
    bool null[8];
    char error[PLANK_ERROR_MESSAGE_SIZE + 64];
} read_result;

/* Reads the `var` column of a case file through the Arrow stream. */
static void read_var(const char *path, const plank_arrow_options *ao, read_result *rr,
                     struct ArrowSchema *schema_out) {
    memset(rr, 0, sizeof *rr);
    plank_reader *r;
    plank_error err;
    if (plank_reader_open_path(&r, path, NULL, &err) != PLANK_OK) {
        snprintf(rr->error, sizeof rr->error, "open: %s", err.message);
        return;
    }
    struct ArrowArrayStream st;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, ao, &st, &err) == PLANK_OK);
    struct ArrowSchema sc;
    CHECK(st.get_schema(&st, &sc) == 0);
    int vi = child_index(&sc, "var");
    CHECK(vi >= 0);
    struct ArrowArray a;
    while (vi >= 0) {
        memset(&a, 0, sizeof a);
        if (st.get_next(&st, &a) != 0) {
            snprintf(rr->error, sizeof rr->error, "%s", st.get_last_error(&st));
            break;
        }
        if (!a.release) break;
        const struct ArrowSchema *vs = sc.children[vi];
        const struct ArrowArray *va = a.children[vi];
        int mi = child_index(vs, "metadata"), xi = child_index(vs, "value");
        for (int64_t i = 0; i < a.length && rr->rows < 8; i++, rr->rows++) {
            const uint8_t *vb = va->buffers[0];
            if (va->null_count && vb && !((vb[(va->offset + i) >> 3] >> ((va->offset + i) & 7)) & 1)) {
                rr->null[rr->rows] = true;
                continue;
            }
            if (mi < 0 || xi < 0 || vs->n_children != 2) continue;
            const uint8_t *m, *v;
            size_t ml, vl, len;
            binary_at(va->children[mi], va->offset + i, &m, &ml);
            binary_at(va->children[xi], va->offset + i, &v, &vl);
            if (plank_variant_to_json(m, ml, v, vl, rr->json[rr->rows], sizeof rr->json[0], &len,
                                      NULL, &err) != PLANK_OK)
                snprintf(rr->json[rr->rows], sizeof rr->json[0], "ERR %s", err.message);
        }
        a.release(&a);
    }
    if (schema_out) *schema_out = sc;
    else sc.release(&sc);
    st.release(&st);
    plank_reader_close(r);
}

/* One corpus case: rows against the reference binaries. */
static void check_case(int num, const char *const *refs, int nrefs) {
    char path[8192];
    snprintf(path, sizeof path, "%s/case-%03d.parquet", dir, num);
    read_result rr;
    struct ArrowSchema sc;
    read_var(path, NULL, &rr, &sc);
    CHECK_MSG(rr.error[0] == 0, "case %d: %s", num, rr.error);
    CHECK_MSG(rr.rows == nrefs, "case %d: %d rows", num, rr.rows);
    int vi = child_index(&sc, "var");
    CHECK_MSG(vi >= 0 && has_extension(sc.children[vi]) && sc.children[vi]->n_children == 2,
              "case %d: var is not the extension type with two children", num);
    sc.release(&sc);
    for (int k = 0; k < nrefs && k < rr.rows; k++) {
        if (!refs[k]) {
            CHECK_MSG(rr.null[k], "case %d row %d: expected a null variant", num, k);
            continue;
        }
        char want[1024];
        CHECK_MSG(reference_json(refs[k], want, sizeof want), "case %d: reference %s", num,
                  refs[k]);
        CHECK_MSG(!strcmp(rr.json[k], want), "case %d row %d: got %s, want %s", num, k,
                  rr.json[k], want);
    }
}

static void test_cases(void) {
    /* Primitives of several types, objects (partial, nested, missing
     * fields), arrays with nulls and nested objects, mixed records. */
    static const struct {
        int num, rows;
    } single[] = {{1, 1},   {2, 1},   {4, 1},   {6, 1},   {8, 1},   {10, 1},  {12, 1},
                  {14, 1},  {16, 1},  {18, 1},  {20, 1},  {22, 1},  {24, 1},  {26, 1},
                  {28, 1},  {30, 1},  {32, 1},  {34, 1},  {36, 1},  {38, 1},  {39, 1},
                  {41, 1},  {43, 1},  {85, 1},  {86, 1},  {88, 1},  {125, 1}, {129, 1},
                  {131, 1}, {132, 1}, {133, 1}, {135, 1}, {138, 1}};
    for (size_t c = 0; c < sizeof single / sizeof single[0]; c++) {
        char ref[64];
        snprintf(ref, sizeof ref, "case-%03d_row-0.variant.bin", single[c].num);
        const char *refs[1] = {ref};
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, ref);
        if (access(path, R_OK) != 0) continue; /* a case without a file (error cases) */
        check_case(single[c].num, refs, 1);
    }
    const char *mixed[4] = {NULL, "case-083_row-1.variant.bin", "case-083_row-2.variant.bin",
                            "case-083_row-3.variant.bin"};
    check_case(83, mixed, 4);
    const char *nested[4] = {"case-045_row-0.variant.bin", "case-045_row-1.variant.bin",
                             "case-045_row-2.variant.bin", "case-045_row-3.variant.bin"};
    check_case(45, nested, 4);
}

static void test_errors_and_options(void) {
    char path[8192];
    read_result rr;
    /* value and typed_value both set for a primitive */
    snprintf(path, sizeof path, "%s/case-042.parquet", dir);
    read_var(path, NULL, &rr, NULL);
    CHECK_MSG(strstr(rr.error, "conflicting value and typed_value") && strstr(rr.error, "var") &&
                  strstr(rr.error, "row 0"),
              "case 42: %s", rr.error);
    snprintf(path, sizeof path, "%s/case-127.parquet", dir);
    read_var(path, NULL, &rr, NULL);
    CHECK_MSG(strstr(rr.error, "INTEGER(32,unsigned)") || strstr(rr.error, "INTEGER(32,false)"),
              "case 127: %s", rr.error);

    /* variant_shredded: storage kept, extension named */
    snprintf(path, sizeof path, "%s/case-083.parquet", dir);
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.variant_shredded = true;
    struct ArrowSchema sc;
    read_var(path, &ao, &rr, &sc);
    int vi = child_index(&sc, "var");
    CHECK(vi >= 0 && has_extension(sc.children[vi]));
    CHECK(vi >= 0 && child_index(sc.children[vi], "typed_value") >= 0);
    sc.release(&sc);
    /* An older options struct (before variant_shredded): the default. */
    plank_arrow_options_init(&ao);
    ao.variant_shredded = true;
    ao.struct_size = offsetof(plank_arrow_options, large_offsets) + sizeof(bool);
    read_var(path, &ao, &rr, &sc);
    vi = child_index(&sc, "var");
    CHECK(vi >= 0 && sc.children[vi]->n_children == 2);
    sc.release(&sc);

    /* Only metadata selected: a plain struct. */
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    plank_reader *r;
    plank_error err;
    CHECK(plank_reader_open_path(&r, path, NULL, &err) == PLANK_OK);
    int32_t col = plank_reader_find_column(r, "var.metadata");
    plank_reader_close(r);
    ro.columns = &col;
    ro.num_columns = 1;
    CHECK(plank_reader_open_path(&r, path, &ro, &err) == PLANK_OK);
    CHECK(plank_reader_arrow_schema(r, NULL, &sc, &err) == PLANK_OK);
    CHECK(sc.n_children == 1 && !has_extension(sc.children[0]));
    sc.release(&sc);
    plank_reader_close(r);
}

/* The extension type written back: a VARIANT group that reads the same. */
static void test_import(void) {
    char in[8192], out[] = "/tmp/plank_test_arrow_variant_XXXXXX";
    snprintf(in, sizeof in, "%s/case-045.parquet", dir);
    int fd = mkstemp(out);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    plank_reader *r;
    plank_error err;
    CHECK(plank_reader_open_path(&r, in, NULL, &err) == PLANK_OK);
    struct ArrowArrayStream st;
    CHECK(plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &err) == PLANK_OK);
    CHECK_MSG(plank_write_arrow_stream(out, &st, NULL, &err) == PLANK_OK, "%s", err.message);
    plank_reader_close(r);
    CHECK(plank_reader_open_path(&r, out, NULL, &err) == PLANK_OK);
    int32_t g = -1;
    for (int32_t i = 0; i < plank_reader_num_schema_nodes(r); i++) {
        const plank_schema_node *n = plank_reader_schema_node(r, i);
        if (!strcmp(n->path, "var")) g = i;
        if (!strcmp(n->path, "var.metadata")) CHECK(n->repetition == PLANK_REQUIRED);
    }
    CHECK(g >= 0 && plank_reader_schema_node(r, g)->logical.kind == PLANK_LOGICAL_VARIANT &&
          plank_reader_schema_node(r, g)->num_children == 2);
    plank_reader_close(r);
    read_result a, b;
    read_var(in, NULL, &a, NULL);
    read_var(out, NULL, &b, NULL);
    CHECK(a.rows == 4 && b.rows == 4);
    for (int k = 0; k < 4; k++)
        CHECK_MSG(!strcmp(a.json[k], b.json[k]), "row %d: %s vs %s", k, a.json[k], b.json[k]);
    unlink(out);
}

/* Mutated copies of shredded files read through the stream (and every
 * reassembled value printed): any result but a crash, a leak or an
 * out-of-bounds access (ASan) is fine; a failure must carry a message. */
static void test_mutations(void) {
    static const int nums[] = {1, 45, 83, 86, 126, 134, 136};
    uint32_t seed = 2463534242u;
    int runs = 0, failed = 0;
    for (size_t c = 0; c < sizeof nums / sizeof nums[0]; c++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/case-%03d.parquet", dir, nums[c]);
        size_t n = 0;
        unsigned char *orig = th_read_file(path, &n);
        CHECK_MSG(orig && n > 64, "cannot read %s", path);
        if (!orig) continue;
        unsigned char *b = malloc(n);
        for (int round = 0; round < 150; round++) {
            memcpy(b, orig, n);
            for (int k = 0; k < 1 + round % 3; k++) {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                size_t at = 4 + seed % (n - 12);
                b[at] ^= (uint8_t)(1u << (seed >> 29));
            }
            plank_reader *r;
            plank_error err;
            runs++;
            if (plank_reader_open_memory(&r, b, n, NULL, &err) != PLANK_OK) {
                failed++;
                CHECK(err.message[0] != 0);
                continue;
            }
            struct ArrowArrayStream st;
            if (plank_reader_arrow_stream(r, NULL, 0, NULL, &st, &err) != PLANK_OK) {
                failed++;
                plank_reader_close(r);
                continue;
            }
            struct ArrowSchema sc;
            memset(&sc, 0, sizeof sc);
            int vi = st.get_schema(&st, &sc) == 0 ? child_index(&sc, "var") : -1;
            bool var_ok = vi >= 0 && has_extension(sc.children[vi]) &&
                          sc.children[vi]->n_children == 2 &&
                          !strcmp(sc.children[vi]->children[0]->format, "z");
            for (;;) {
                struct ArrowArray a;
                memset(&a, 0, sizeof a);
                if (st.get_next(&st, &a) != 0) {
                    failed++;
                    CHECK(st.get_last_error(&st)[0] != 0);
                    break;
                }
                if (!a.release) break;
                const struct ArrowArray *va = var_ok ? a.children[vi] : NULL;
                for (int64_t i = 0; va && i < va->length; i++) {
                    const uint8_t *m, *v;
                    size_t ml, vl, len;
                    char out[256];
                    binary_at(va->children[0], i, &m, &ml);
                    binary_at(va->children[1], i, &v, &vl);
                    if (vl) (void)plank_variant_to_json(m, ml, v, vl, out, sizeof out, &len, NULL, &err);
                }
                a.release(&a);
            }
            if (sc.release) sc.release(&sc);
            st.release(&st);
            plank_reader_close(r);
        }
        free(b);
        free(orig);
    }
    fprintf(stderr, "mutated shredded files: %d reads, %d failed cleanly\n", runs, failed);
}

int main(void) {
    const char *t = th_testing_dir();
    if (!t) TEST_SKIP("parquet-testing corpus not found");
    snprintf(dir, sizeof dir, "%s/shredded_variant", t);
    if (access(dir, R_OK) != 0) TEST_SKIP("no shredded_variant/ in the corpus");
    test_cases();
    test_errors_and_options();
    test_import();
    test_mutations();
    TEST_END();
}
