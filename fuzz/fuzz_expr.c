/*
 * fuzz_expr.c: the WHERE-clause parser, its formatter and the binding of a
 * parsed predicate to a file, over arbitrary text.
 *
 * Input: the predicate text (the bytes before the first NUL). Bindings and
 * the CLI hand plank text a user typed, so the parser is an input surface as
 * much as a file is. Checks, any failure aborting:
 *  - plank_expr_parse succeeds, or fails with its status in err, a message,
 *    and err.byte_offset inside the text;
 *  - a parsed tree formats to text that parses again and formats to the same
 *    text (plank_expr_format is a fixed point after one round), and the
 *    length the formatter reports is the length it writes;
 *  - the tree bound to a small honest file (ten typed columns a..i, u and
 *    the struct field s.x; three row groups, pages of 16 rows, dictionaries,
 *    bloom filters, page index) either fails to bind with a message or
 *    counts rows, and the count is the same with every pruning level and
 *    pushdown on, with all of them off, and through the Arrow stream (the
 *    file's statistics are true, so no level may change the answer);
 *  - rows where e is TRUE and rows where NOT e is TRUE are disjoint (SQL's
 *    three-valued logic): the two counts add up to at most the row count.
 * The allocator checks every block's size at free, so leaks and size
 * mismatches abort too.
 */
#include "fuzz_common.h"

#include <math.h>

#define ROWS 240

static void set_bit(uint8_t *bits, int i) { bits[i / 8] |= (uint8_t)(1u << (i % 8)); }

/* The file every input is bound to, written once per process (the values are
 * a function of the row number, chosen to give nulls, NaN, -0.0, repeats for
 * dictionaries, quotes in strings and unsigned values past INT64_MAX). */
static const fz_sinkbuf *the_file(void) {
    static fz_sinkbuf file;
    if (file.n) return &file;
    enum { NF = 12 };
    plank_schema_field f[NF];
    for (int k = 0; k < NF; k++) plank_schema_field_init(&f[k]);
    f[0].num_children = 10;
    const char *names[NF] = {"schema", "a", "b", "c", "d", "e", "f", "g", "h", "u", "s", "x"};
    for (int k = 0; k < NF; k++) f[k].name = names[k];
    f[1].physical_type = PLANK_INT32;
    f[2].physical_type = PLANK_INT64;
    f[2].repetition = PLANK_OPTIONAL;
    f[3].physical_type = PLANK_DOUBLE;
    f[3].repetition = PLANK_OPTIONAL;
    f[4].physical_type = PLANK_BYTE_ARRAY;
    f[4].repetition = PLANK_OPTIONAL;
    f[4].logical.kind = PLANK_LOGICAL_STRING;
    f[5].physical_type = PLANK_INT32;
    f[5].logical.kind = PLANK_LOGICAL_DATE;
    f[6].physical_type = PLANK_INT64;
    f[6].logical.kind = PLANK_LOGICAL_TIMESTAMP;
    f[6].logical.unit = PLANK_UNIT_MICROS;
    f[7].physical_type = PLANK_INT32;
    f[7].logical.kind = PLANK_LOGICAL_DECIMAL;
    f[7].logical.precision = 9;
    f[7].logical.scale = 2;
    f[8].physical_type = PLANK_BOOLEAN;
    f[8].repetition = PLANK_OPTIONAL;
    f[9].physical_type = PLANK_INT64;
    f[9].logical.kind = PLANK_LOGICAL_INTEGER;
    f[9].logical.bit_width = 64;
    f[9].logical.is_signed = false;
    f[10].repetition = PLANK_OPTIONAL;
    f[10].num_children = 1;
    f[11].physical_type = PLANK_INT32;
    f[11].repetition = PLANK_OPTIONAL;

    static int32_t a[ROWS], e[ROWS], g[ROWS], x[ROWS];
    static int64_t b[ROWS], fts[ROWS], off[ROWS + 1];
    static uint64_t u[ROWS];
    static double c[ROWS];
    static char text[ROWS * 8];
    static int16_t sdef[ROWS];
    uint8_t vb[ROWS / 8 + 1] = {0}, vc[ROWS / 8 + 1] = {0}, vd[ROWS / 8 + 1] = {0};
    uint8_t vh[ROWS / 8 + 1] = {0}, hv[ROWS / 8 + 1] = {0};
    static const char *words[] = {"", "a", "ab", "abc", "m", "zz", "O'Brien", "x\"y", "MAIL"};
    int64_t tl = 0;
    for (int i = 0; i < ROWS; i++) {
        a[i] = i % 17 - 8;
        if (i % 7) set_bit(vb, i);
        b[i] = (int64_t)i * 1000003 - 50000;
        if (i % 11) set_bit(vc, i);
        c[i] = i % 13 == 0 ? NAN : i % 29 == 0 ? -0.0 : (i - 100) / 4.0;
        off[i] = tl;
        if (i % 9) {
            set_bit(vd, i);
            const char *w = words[(i * 5) % 9];
            memcpy(text + tl, w, strlen(w));
            tl += (int64_t)strlen(w);
        }
        e[i] = 8000 + i * 3;
        fts[i] = (int64_t)i * 7 * 3600 * 1000000;
        g[i] = i * 37 - 3000;
        if (i % 3) set_bit(vh, i);
        if (i % 2) set_bit(hv, i);
        u[i] = (uint64_t)i * 0x0123456789abcdefull;
        sdef[i] = (int16_t)(i % 10 == 0 ? 0 : i % 10 == 1 ? 1 : 2);
        x[i] = i % 25;
    }
    off[ROWS] = tl;
    plank_batch cols[10];
    memset(cols, 0, sizeof cols);
    for (int k = 0; k < 10; k++) {
        cols[k].struct_size = sizeof(plank_batch);
        cols[k].length = ROWS;
    }
    cols[0].values = a;
    cols[1].values = b;
    cols[1].validity = vb;
    cols[2].values = c;
    cols[2].validity = vc;
    cols[3].offsets = off;
    cols[3].data = (const uint8_t *)text;
    cols[3].validity = vd;
    cols[4].values = e;
    cols[5].values = fts;
    cols[6].values = g;
    cols[7].values = hv;
    cols[7].validity = vh;
    cols[8].values = u;
    cols[9].values = x;
    cols[9].def_levels = sdef;

    plank_column_options co[2];
    plank_column_options_init(&co[0]);
    plank_column_options_init(&co[1]);
    co[0].path = "d";
    co[0].bloom_filter = true;
    co[1].path = "b";
    co[1].bloom_filter = true;
    plank_writer_options wo;
    plank_writer_options_init(&wo);
    wo.codec = PLANK_CODEC_UNCOMPRESSED;
    wo.row_group_rows = 100;
    wo.page_rows = 16;
    wo.columns = co;
    wo.num_column_options = 2;
    fz_sinkbuf out = {0};
    plank_sink sink = {sizeof(plank_sink), fz_sink_write, NULL, NULL, &out};
    plank_writer *w = NULL;
    plank_error err;
    if (plank_writer_open_sink(&w, &sink, f, NF, &wo, &err) != PLANK_OK ||
        plank_writer_write_rows(w, cols, ROWS, &err) != PLANK_OK ||
        plank_writer_close(w, &err) != PLANK_OK) {
        fprintf(stderr, "fuzz_expr: writing the file: %s\n", err.message);
        abort();
    }
    file = out;
    return &file;
}

/* Formats e into a fresh NUL-terminated buffer (free with free()). */
static char *format(const plank_expr *e) {
    size_t need = plank_expr_format(e, NULL, 0);
    char *buf = malloc(need + 1);
    if (!buf) abort();
    size_t got = plank_expr_format(e, buf, need + 1);
    if (got != need || strlen(buf) != need) {
        fprintf(stderr, "format: reported %zu, wrote %zu (%zu)\n", need, got, strlen(buf));
        abort();
    }
    return buf;
}

static plank_expr *parse_or_die(const char *text) {
    plank_expr *e = NULL;
    plank_error err;
    if (plank_expr_parse(text, &fz_allocator, &e, &err) != PLANK_OK) {
        fprintf(stderr, "formatted text does not parse: %s\n  %s\n", text, err.message);
        abort();
    }
    return e;
}

/* The count of e over the file's reader with the given pruning, through
 * plank_scan_count or the stream; -1 when the predicate does not bind. */
static int64_t count_rows(plank_reader *r, const plank_expr *e, bool prune, bool stream) {
    plank_scan_options o;
    plank_scan_options_init(&o);
    o.filter = e;
    o.use_statistics = o.use_bloom_filters = o.use_page_index = o.use_dictionaries = prune;
    o.pushdown = prune;
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.batch_rows = 37;
    o.arrow = &ao;
    const char *proj[1] = {"a"};
    o.columns = proj;
    o.num_columns = 1;
    plank_scan *s = NULL;
    plank_error err;
    plank_status st = plank_scan_open(&s, r, &o, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) return -1;
    int64_t n = 0;
    if (!stream) {
        st = plank_scan_count(s, &n, &err);
        if (st != PLANK_OK) {
            fprintf(stderr, "count failed on an honest file: %s\n", err.message);
            abort();
        }
        plank_scan_close(s);
        return n;
    }
    struct ArrowArrayStream as;
    st = plank_scan_arrow_stream(s, &as, &err);
    plank_scan_close(s);
    if (st != PLANK_OK) {
        fprintf(stderr, "stream failed on an honest file: %s\n", err.message);
        abort();
    }
    return fz_stream_rows(&as, "stream failed on an honest file");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t len = strlen(text);

    plank_expr *e = NULL;
    plank_error err;
    plank_status st = plank_expr_parse(text, &fz_allocator, &e, &err);
    fz_check_error(st, &err);
    if (st != PLANK_OK) {
        bool placed = err.byte_offset >= 0 && (size_t)err.byte_offset <= len;
        if (e || (st == PLANK_ERR_INVALID_ARGUMENT && !placed)) {
            fprintf(stderr, "parse error at %lld of %zu bytes\n", (long long)err.byte_offset, len);
            abort();
        }
        free(text);
        return 0;
    }
    char *t1 = format(e);
    plank_expr *e2 = parse_or_die(t1);
    char *t2 = format(e2);
    if (strcmp(t1, t2) != 0) {
        fprintf(stderr, "format is not a fixed point:\n  %s\n  %s\n", t1, t2);
        abort();
    }

    const fz_sinkbuf *file = the_file();
    plank_reader *r = fz_open_reader(file->p, file->n);
    if (!r) abort();
    int64_t pruned = count_rows(r, e, true, false);
    if (getenv("PLANK_FUZZ_VERBOSE")) fprintf(stderr, "%s: %lld rows\n", t1, (long long)pruned);
    if (pruned >= 0) {
        int64_t plain = count_rows(r, e, false, false);
        int64_t streamed = count_rows(r, e, true, true);
        if (plain != pruned || streamed != pruned) {
            fprintf(stderr, "%s: %lld rows pruned, %lld plain, %lld streamed\n", t1,
                    (long long)pruned, (long long)plain, (long long)streamed);
            abort();
        }
        plank_expr *ne = plank_expr_not(e2);
        e2 = NULL;
        if (!ne) abort();
        int64_t negated = count_rows(r, ne, true, false);
        if (negated < 0 || pruned + negated > ROWS) {
            fprintf(stderr, "%s: %lld rows, NOT: %lld, of %d\n", t1, (long long)pruned,
                    (long long)negated, ROWS);
            abort();
        }
        plank_expr_free(ne);
    }
    plank_reader_close(r);
    plank_expr_free(e2);
    plank_expr_free(e);
    free(t1);
    free(t2);
    free(text);
    return 0;
}
