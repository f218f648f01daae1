/*
 * fuzz_scan.c: the pushdown scan over a hostile file (plank_reader_open_memory).
 *
 * Input: as fuzz_file (a plain "PAR1" file, or two selector bytes and then
 * the file). The selector picks up to three leaf columns and, for each, a
 * condition its type admits (IS NULL / IS NOT NULL, a comparison with 0 or
 * 'm', an IN list, a prefix), joined by AND / OR / NOT, and the pruning
 * levels; the scan is counted and streamed (projection: the first column,
 * or all). Checks: no crash, no leak (the allocator sees every block freed
 * with its own size), every failure with a status and a message, batches
 * within batch_rows, and a stream that ends with no more rows than the
 * count of a scan with the same options found, when both succeed.
 * Statistics that lie without contradicting themselves may prune rows the
 * data holds (a scan trusts consistent metadata), so pushdown on and off
 * are not compared here; tests/test_scan_diff.c does on honest files.
 */
#include "fuzz_common.h"

#include <stdio.h>

static const char *cond_for(const plank_schema_node *n, uint32_t x) {
    switch (x % 4) {
    case 0: return "IS NULL";
    case 1: return "IS NOT NULL";
    default: break;
    }
    bool text = n->physical_type == PLANK_BYTE_ARRAY || n->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY;
    bool boolean = n->physical_type == PLANK_BOOLEAN;
    if (boolean) return x % 4 == 2 ? "= TRUE" : "<> FALSE";
    if (text) return x % 4 == 2 ? ">= 'm'" : "LIKE 'a%'";
    return x % 4 == 2 ? "> 0" : "IN (0, 1, -7)";
}

static void run(plank_reader *r, uint8_t sel, uint8_t sel2) {
    int32_t nc = plank_reader_num_columns(r);
    if (nc <= 0) return;
    char text[512];
    size_t len = 0;
    uint32_t seed = (uint32_t)sel << 8 | sel2;
    int terms = 1 + (int)(sel % 3);
    for (int i = 0; i < terms; i++) {
        uint32_t x = fz_next(&seed);
        int32_t c = (int32_t)(x % (uint32_t)nc);
        const plank_schema_node *n = plank_reader_column_node(r, c);
        if (!n || strlen(n->path) > 100 || strchr(n->path, '"')) return;
        const char *join = i == 0 ? "" : (x >> 8) & 1 ? " AND " : " OR ";
        const char *neg = (x >> 9) & 1 ? "NOT " : "";
        int k = snprintf(text + len, sizeof text - len, "%s%s\"%s\" %s", join, neg, n->path,
                         cond_for(n, x >> 12));
        if (k < 0 || (size_t)k >= sizeof text - len) return;
        len += (size_t)k;
    }
    plank_error err;
    plank_expr *e = NULL;
    plank_status st = plank_expr_parse(text, &fz_allocator, &e, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) return;
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    o.use_statistics = !(sel2 & 1);
    o.use_bloom_filters = !(sel2 & 2);
    o.use_page_index = !(sel2 & 4);
    o.use_dictionaries = !(sel2 & 8);
    o.pushdown = !(sel2 & 16);
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.batch_rows = 1 + sel2 % 61;
    o.arrow = &ao;
    const char *first = plank_reader_column_node(r, 0)->path;
    const char *cols[1] = {first};
    if (sel2 & 32) {
        o.columns = cols;
        o.num_columns = 1;
    }
    int64_t count = -1;
    plank_scan *s = NULL;
    st = plank_scan_open(&s, r, &o, &err);
    fz_check_error(st, &err);
    if (st == PLANK_OK) {
        st = plank_scan_count(s, &count, &err);
        fz_check_error(st, &err);
        if (st != PLANK_OK) count = -1;
        char buf[256];
        (void)plank_scan_explain(s, buf, sizeof buf);
        plank_scan_close(s);
    }
    st = plank_scan_open(&s, r, &o, &err);
    fz_check_error(st, &err);
    if (st == PLANK_OK) {
        struct ArrowArrayStream stream;
        st = plank_scan_arrow_stream(s, &stream, &err);
        fz_check_error(st, &err);
        plank_scan_close(s); /* the stream keeps the scan alive */
        if (st == PLANK_OK) {
            int64_t rows = 0;
            bool failed = false;
            for (int i = 0; i < 20000; i++) {
                struct ArrowArray a;
                if (stream.get_next(&stream, &a) != 0) {
                    const char *msg = stream.get_last_error(&stream);
                    if (!msg || !*msg) abort();
                    failed = true;
                    break;
                }
                if (!a.release) break;
                if (a.length < 0 || a.length > ao.batch_rows) abort();
                rows += a.length;
                a.release(&a);
            }
            if (!failed && count >= 0 && rows > count) abort();
            stream.release(&stream);
        }
    }
    plank_expr_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t sel, sel2;
    size_t n;
    uint8_t *file = fz_file_input(data, size, 7, 13, &sel, &sel2, &n);
    if (!file) return 0;
    plank_reader *r = fz_open_reader(file, n);
    if (r) {
        if (plank_reader_num_row_groups(r) <= 64) run(r, sel, sel2);
        plank_reader_close(r);
    }
    free(file);
    return 0;
}
