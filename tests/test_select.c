/* test_select.c: row selections of the column chunk reader
 * (plank_column_reader_select, plank_column_reader_seek,
 * plank_row_ranges_from_bitmap).
 *
 * The reference of a column chunk is its full read with
 * plank_column_reader_read (levels, validity, values), split into records at
 * repetition level 0. Every selected read must give exactly the reference
 * slots of the selected records, in order: in reads of 1, 7, 1000 and
 * unbounded slots, interleaved with skips, and after seeks forward, backward
 * and to the end. The chunks are those of every file of the parquet-testing
 * corpus that plank reads fully, and of files written here by plank's writer
 * (7-row pages, every encoding the writer offers, page v1 and v2,
 * uncompressed, SNAPPY and ZSTD, nulls, a list column with null and empty
 * lists), whose full read is first checked against the generator.
 *
 * On the written files, the reader's counters show that the pages outside a
 * selection are passed over by their header, never decompressed (flat
 * columns, and v2 pages of the list column); a counting allocator shows that
 * a small selection allocates little; bad ranges are rejected.
 *
 * To keep sanitizer builds near 20 s the default samples: one-slot reads of
 * selections above 3000 slots run one time in four, chunks of more than 4000
 * records (overflow_i16_page_cnt.parquet: 40000 one-row pages) get fewer
 * read sizes and seeks per selection, and each encoding set is written with
 * one codec per page version. PLANK_SELECT_FULL=1 runs everything (every
 * set with every codec in both page versions). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plank.h"
#include "read/pk_read.h"
#include "tharness.h"

/* ---- Small helpers --------------------------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static int64_t rnd_below(int64_t n) { return n > 0 ? (int64_t)(rnd() % (uint64_t)n) : 0; }

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}
static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return q;
}

static bool g_full; /* PLANK_SELECT_FULL=1 */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct {
    int files, files_skipped_open, files_skipped_read, files_skipped_large;
    int gen_files;
    int64_t chunks, selections, passes, counter_checks;
} g_stats;

/* ---- The reference: slots of a chunk ------------------------------------------------ */

/* One level entry (slot) of a column chunk. */
typedef struct colref {
    plank_physical_type type;
    int32_t width;           /* bytes per fixed value (BOOLEAN: one byte 0/1); 0 BYTE_ARRAY */
    int16_t max_def, max_rep;
    int64_t n, cap;
    int16_t *def, *rep;      /* per slot (0 when the max level is 0) */
    uint8_t *valid;          /* per slot, 0/1 */
    uint8_t *fixed;          /* width bytes per slot */
    int64_t *off;            /* BYTE_ARRAY: n + 1 offsets into data */
    uint8_t *data;
    int64_t dlen, dcap;
    int64_t nrec;            /* records (rep level 0 entries) */
    int64_t *rec;            /* nrec + 1: first slot of each record, rec[nrec] = n */
} colref;

static void ref_init(colref *f, plank_physical_type type, int32_t type_length, int16_t max_def,
                     int16_t max_rep) {
    memset(f, 0, sizeof *f);
    f->type = type;
    f->width = type == PLANK_BYTE_ARRAY ? 0 : pk_physical_width(type, type_length);
    f->max_def = max_def;
    f->max_rep = max_rep;
    f->off = xmalloc(sizeof(int64_t));
    f->off[0] = 0;
}

static void ref_free(colref *f) {
    free(f->def);
    free(f->rep);
    free(f->valid);
    free(f->fixed);
    free(f->off);
    free(f->data);
    free(f->rec);
    memset(f, 0, sizeof *f);
}

static void ref_reserve(colref *f, int64_t more) {
    if (f->n + more <= f->cap) return;
    int64_t cap = f->cap ? f->cap : 64;
    while (cap < f->n + more) cap *= 2;
    f->def = xrealloc(f->def, (size_t)cap * sizeof *f->def);
    f->rep = xrealloc(f->rep, (size_t)cap * sizeof *f->rep);
    f->valid = xrealloc(f->valid, (size_t)cap);
    f->fixed = xrealloc(f->fixed, (size_t)cap * (size_t)(f->width ? f->width : 1));
    f->off = xrealloc(f->off, (size_t)(cap + 1) * sizeof *f->off);
    f->cap = cap;
}

/* Appends one slot; v/len is the value (ignored for invalid slots). */
static void ref_push(colref *f, int16_t def, int16_t rep, bool valid, const void *v, size_t len) {
    ref_reserve(f, 1);
    int64_t i = f->n++;
    f->def[i] = def;
    f->rep[i] = rep;
    f->valid[i] = valid;
    if (f->width) {
        if (valid) memcpy(f->fixed + (size_t)i * (size_t)f->width, v, (size_t)f->width);
        else memset(f->fixed + (size_t)i * (size_t)f->width, 0, (size_t)f->width);
    }
    if (f->type == PLANK_BYTE_ARRAY) {
        if (!valid) len = 0;
        if (f->dlen + (int64_t)len > f->dcap) {
            int64_t c = f->dcap ? f->dcap : 256;
            while (c < f->dlen + (int64_t)len) c *= 2;
            f->data = xrealloc(f->data, (size_t)c);
            f->dcap = c;
        }
        if (len) memcpy(f->data + f->dlen, v, len);
        f->dlen += (int64_t)len;
        f->off[i + 1] = f->dlen;
    }
}

/* Splits the slots into records. */
static void ref_finish(colref *f) {
    free(f->rec);
    int64_t nrec = 0;
    for (int64_t i = 0; i < f->n; i++) nrec += f->rep[i] == 0;
    f->rec = xmalloc((size_t)(nrec + 1) * sizeof *f->rec);
    int64_t j = 0;
    for (int64_t i = 0; i < f->n; i++)
        if (f->rep[i] == 0) f->rec[j++] = i;
    f->rec[nrec] = f->n;
    f->nrec = nrec;
}

/* One slot as compared: levels, validity, value bytes. */
typedef struct slot {
    int16_t def, rep;
    bool valid;
    const uint8_t *v;
    int64_t len;
    uint8_t bit;
} slot;

static void ref_slot(const colref *f, int64_t i, slot *s) {
    s->def = f->def[i];
    s->rep = f->rep[i];
    s->valid = f->valid[i];
    s->bit = 0;
    if (f->type == PLANK_BYTE_ARRAY) {
        s->len = f->off[i + 1] - f->off[i];
        s->v = s->len ? f->data + f->off[i] : NULL;
    } else {
        s->v = f->fixed + (size_t)i * (size_t)f->width;
        s->len = f->width;
    }
}

static bool bit_at(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

static void batch_slot(const colref *f, const plank_batch *b, int64_t i, slot *s) {
    s->def = b->def_levels ? b->def_levels[i] : (int16_t)f->max_def;
    s->rep = b->rep_levels ? b->rep_levels[i] : 0;
    s->valid = b->validity ? bit_at(b->validity, i) : true;
    if (f->type == PLANK_BYTE_ARRAY) {
        s->len = b->offsets[i + 1] - b->offsets[i];
        s->v = s->len ? b->data + b->offsets[i] : NULL;
    } else if (f->type == PLANK_BOOLEAN) {
        s->bit = (uint8_t)bit_at(b->values, i);
        s->v = &s->bit;
        s->len = 1;
    } else {
        s->v = (const uint8_t *)b->values + (size_t)i * (size_t)f->width;
        s->len = f->width;
    }
}

static bool slot_eq(const slot *a, const slot *b) {
    if (a->def != b->def || a->rep != b->rep || a->valid != b->valid) return false;
    if (!a->valid) return true; /* null slots: contents unspecified */
    return a->len == b->len && (a->len == 0 || memcmp(a->v, b->v, (size_t)a->len) == 0);
}

static void slot_describe(const slot *s, char *buf, size_t size) {
    int n = snprintf(buf, size, "def %d rep %d %s len %lld [", (int)s->def, (int)s->rep,
                     s->valid ? "valid" : "null", (long long)s->len);
    for (int64_t i = 0; s->valid && i < s->len && i < 12 && n > 0 && (size_t)n < size; i++)
        n += snprintf(buf + n, size - (size_t)n, "%02x", s->v[i]);
    if (n > 0 && (size_t)n < size) snprintf(buf + n, size - (size_t)n, "]");
}

/* The invariants of a batch of this column; returns false (after a failed
 * CHECK) when one does not hold. */
static bool batch_ok(const colref *f, const plank_batch *b, const char *ctx) {
    bool ok = b->length >= 0 && b->physical_type == f->type;
    if (b->length > 0) {
        ok = ok && (f->max_def > 0) == (b->def_levels != NULL);
        ok = ok && (f->max_rep > 0) == (b->rep_levels != NULL);
        /* BYTE_ARRAY: offsets and data (NULL while no byte was read) */
        if (f->type == PLANK_BYTE_ARRAY) ok = ok && b->offsets && b->offsets[0] == 0;
        else if (f->type == PLANK_BOOLEAN) ok = ok && b->values && b->value_width == 0;
        else ok = ok && b->values && b->value_width == f->width;
    }
    CHECK_MSG(ok, "%s: batch shape (length %lld, type %d, width %d, def %p, rep %p, values %p, "
              "offsets %p)", ctx, (long long)b->length, (int)b->physical_type,
              (int)b->value_width, (const void *)b->def_levels, (const void *)b->rep_levels,
              b->values, (const void *)b->offsets);
    if (!ok) return false;
    int64_t nulls = 0;
    for (int64_t i = 0; i < b->length; i++) {
        bool valid = b->validity ? bit_at(b->validity, i) : true;
        nulls += !valid;
        if (b->def_levels) {
            int16_t d = b->def_levels[i];
            if (d < 0 || d > f->max_def || valid != (d == f->max_def)) ok = false;
        }
        if (b->rep_levels && (b->rep_levels[i] < 0 || b->rep_levels[i] > f->max_rep)) ok = false;
        if (f->type == PLANK_BYTE_ARRAY &&
            (b->offsets[i + 1] < b->offsets[i] || (!valid && b->offsets[i + 1] != b->offsets[i])))
            ok = false;
        if (!ok) {
            CHECK_MSG(ok, "%s: slot %lld of a batch breaks the layout", ctx, (long long)i);
            return false;
        }
    }
    CHECK_MSG(nulls == b->null_count, "%s: null_count %lld, %lld null slots", ctx,
              (long long)b->null_count, (long long)nulls);
    return nulls == b->null_count;
}

static void ref_append_batch(colref *f, const plank_batch *b) {
    ref_reserve(f, b->length);
    for (int64_t i = 0; i < b->length; i++) {
        slot s;
        batch_slot(f, b, i, &s);
        ref_push(f, s.def, s.rep, s.valid, s.v, (size_t)s.len);
    }
}

/* Compares the slots of a batch with reference slots idx[0 .. b->length). */
static bool batch_matches(const colref *f, const int64_t *idx, int64_t at, const plank_batch *b,
                          const char *ctx) {
    if (!batch_ok(f, b, ctx)) return false;
    for (int64_t i = 0; i < b->length; i++) {
        slot x, y;
        batch_slot(f, b, i, &x);
        ref_slot(f, idx[i], &y);
        if (!slot_eq(&x, &y)) {
            char gx[160], gy[160];
            slot_describe(&x, gx, sizeof gx);
            slot_describe(&y, gy, sizeof gy);
            CHECK_MSG(false, "%s: selected slot %lld (reference slot %lld): got %s, want %s", ctx,
                      (long long)(at + i), (long long)idx[i], gx, gy);
            return false;
        }
    }
    return true;
}

/* Reads a whole chunk into ref (batches of 4096 slots). */
static plank_status read_ref(plank_reader *r, int32_t g, int32_t c, colref *f, plank_error *err) {
    const plank_schema_node *nd = plank_reader_column_node(r, c);
    ref_init(f, nd->physical_type, nd->type_length, nd->max_definition_level,
             nd->max_repetition_level);
    plank_column_reader *cr;
    plank_status st = plank_column_reader_open(&cr, r, g, c, err);
    if (st != PLANK_OK) return st;
    for (;;) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        st = plank_column_reader_read(cr, 4096, &b, err);
        if (st != PLANK_OK || b.length == 0) break;
        if (!batch_ok(f, &b, "full read")) {
            st = PLANK_ERR_CORRUPT;
            break;
        }
        ref_append_batch(f, &b);
    }
    plank_column_reader_close(cr);
    ref_finish(f);
    return st;
}

/* ---- Selections -------------------------------------------------------------------------- */

typedef struct selection {
    char name[48];
    plank_row_range *r;
    int64_t n, cap;
} selection;

static void sel_reset(selection *s, const char *name) {
    snprintf(s->name, sizeof s->name, "%s", name);
    s->n = 0;
}
static void sel_add(selection *s, int64_t first, int64_t count) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->r = xrealloc(s->r, (size_t)s->cap * sizeof *s->r);
    }
    s->r[s->n].first = first;
    s->r[s->n].count = count;
    s->n++;
}

/* The reference slots of the selected records from record `from` on. */
static int64_t expected_slots(const colref *f, const selection *s, int64_t from, int64_t **out) {
    int64_t total = 0;
    for (int64_t i = 0; i < s->n; i++) {
        int64_t a = s->r[i].first, b = a + s->r[i].count;
        if (a < from) a = from;
        if (b > f->nrec) b = f->nrec;
        if (b > a) total += f->rec[b] - f->rec[a];
    }
    int64_t *idx = xmalloc((size_t)total * sizeof *idx);
    int64_t j = 0;
    for (int64_t i = 0; i < s->n; i++) {
        int64_t a = s->r[i].first, b = a + s->r[i].count;
        if (a < from) a = from;
        if (b > f->nrec) b = f->nrec;
        for (int64_t k = b > a ? f->rec[a] : 0; b > a && k < f->rec[b]; k++) idx[j++] = k;
    }
    *out = idx;
    return total;
}

/* Reads everything left in batches of k slots; each batch must be full
 * (k slots, or what is left) and match idx[at ...]. */
static void read_rest(plank_column_reader *cr, const colref *f, const int64_t *idx, int64_t total,
                      int64_t at, int64_t k, const char *ctx) {
    for (;;) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        plank_error err;
        plank_status st = plank_column_reader_read(cr, k, &b, &err);
        CHECK_MSG(st == PLANK_OK, "%s: read: %s", ctx, err.message);
        if (st != PLANK_OK) return;
        int64_t want = k < total - at ? k : total - at;
        CHECK_MSG(b.length == want, "%s: read of %lld at selected slot %lld gave %lld, want %lld",
                  ctx, (long long)k, (long long)at, (long long)b.length, (long long)want);
        if (b.length != want || b.length == 0) return;
        if (!batch_matches(f, idx + at, at, &b, ctx)) return;
        at += b.length;
    }
}

static bool do_select(plank_column_reader *cr, const selection *s, const char *ctx) {
    plank_error err;
    plank_status st = plank_column_reader_select(cr, s->r, s->n, &err);
    CHECK_MSG(st == PLANK_OK, "%s: select: %s", ctx, err.message);
    return st == PLANK_OK;
}

/* Every check of one selection on an open reader of the chunk. */
static void check_selection(plank_column_reader *cr, const colref *f, const selection *s,
                            const char *where) {
    char ctx[600];
    int64_t *idx;
    int64_t total = expected_slots(f, s, 0, &idx);
    g_stats.selections++;

    /* Chunks of many records (and often as many pages): fewer passes per
     * selection unless PLANK_SELECT_FULL. */
    bool light = !g_full && f->nrec > 4000;

    /* Reads of every size, from the first selected slot each time. */
    static const int64_t sizes[] = {1, 7, 1000, INT64_MAX};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        int64_t k = sizes[z];
        /* One-slot reads of large selections: sampled. */
        if (k == 1 && total > 3000 && !g_full && rnd() % 4) continue;
        if (light && k != INT64_MAX &&
            !(k == 1 ? total <= 2000 : k == 7 ? total <= 20000 : total > 20000))
            continue;
        snprintf(ctx, sizeof ctx, "%s, selection %s, reads of %lld", where, s->name,
                 (long long)(k == INT64_MAX ? -1 : k));
        if (!do_select(cr, s, ctx)) break;
        read_rest(cr, f, idx, total, 0, k, ctx);
        g_stats.passes++;
    }

    /* Skips and reads interleaved, then a skip of everything left. */
    snprintf(ctx, sizeof ctx, "%s, selection %s, skip/read", where, s->name);
    if (do_select(cr, s, ctx)) {
        int64_t at = 0;
        bool ok = true;
        while (ok && at < total) {
            int64_t sk = rnd_below(total / 8 + 3), rd = 1 + rnd_below(total / 8 + 3);
            int64_t got = -1;
            plank_error err;
            plank_status st = plank_column_reader_skip(cr, sk, &got, &err);
            int64_t want = sk < total - at ? sk : total - at;
            ok = st == PLANK_OK && got == want;
            CHECK_MSG(ok, "%s: skip %lld at %lld: %s, skipped %lld of %lld", ctx, (long long)sk,
                      (long long)at, st ? err.message : "ok", (long long)got, (long long)want);
            at += want;
            if (!ok || at >= total) break;
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            st = plank_column_reader_read(cr, rd, &b, &err);
            want = rd < total - at ? rd : total - at;
            ok = st == PLANK_OK && b.length == want;
            CHECK_MSG(ok, "%s: read %lld at %lld: %s, got %lld of %lld", ctx, (long long)rd,
                      (long long)at, st ? err.message : "ok", (long long)b.length,
                      (long long)want);
            ok = ok && batch_matches(f, idx + at, at, &b, ctx);
            at += want;
        }
        if (ok) {
            int64_t got = -1;
            CHECK(plank_column_reader_skip(cr, 5, &got, NULL) == PLANK_OK && got == 0);
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            CHECK(plank_column_reader_read(cr, 5, &b, NULL) == PLANK_OK && b.length == 0);
        }
        if (do_select(cr, s, ctx)) {
            int64_t got = -1;
            CHECK(plank_column_reader_skip(cr, INT64_MAX, &got, NULL) == PLANK_OK);
            CHECK_MSG(got == total, "%s: skip of everything: %lld of %lld", ctx, (long long)got,
                      (long long)total);
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            CHECK(plank_column_reader_read(cr, INT64_MAX, &b, NULL) == PLANK_OK && b.length == 0);
        }
        g_stats.passes += 2;
    }

    /* Seeks with the selection: forward into and between ranges, backward,
     * to the end; each followed by reads of what remains. */
    snprintf(ctx, sizeof ctx, "%s, selection %s, seeks", where, s->name);
    if (do_select(cr, s, ctx)) {
        int64_t rows = f->nrec;
        int64_t targets[8];
        int nt = 0;
        targets[nt++] = s->n ? s->r[s->n / 2].first + s->r[s->n / 2].count / 2 : rows / 2;
        if (!light) targets[nt++] = s->n ? s->r[0].first : 0;
        targets[nt++] = rows;
        if (!light) targets[nt++] = s->n > 1 ? s->r[s->n - 1].first + s->r[s->n - 1].count : rows / 3;
        if (g_full) targets[nt++] = rnd_below(rows + 1);
        targets[nt++] = 0;
        for (int t = 0; t < nt; t++) {
            int64_t row = targets[t] > rows ? rows : targets[t];
            /* Read a little first so the seek starts from the middle of things. */
            if (t % 2 == 1) {
                plank_batch b = {.struct_size = sizeof(plank_batch)};
                CHECK(plank_column_reader_read(cr, 3, &b, NULL) == PLANK_OK);
            }
            plank_error err;
            plank_status st = plank_column_reader_seek(cr, row, &err);
            CHECK_MSG(st == PLANK_OK, "%s: seek %lld: %s", ctx, (long long)row, err.message);
            if (st != PLANK_OK) break;
            int64_t *sidx;
            int64_t stotal = expected_slots(f, s, row, &sidx);
            char c2[700];
            snprintf(c2, sizeof c2, "%s: after seek %lld", ctx, (long long)row);
            read_rest(cr, f, sidx, stotal, 0, t == 1 ? 7 : INT64_MAX, c2);
            free(sidx);
        }
        g_stats.passes++;
    }
    free(idx);
}

/* Seeks without a selection (a fresh reader): forward, backward (also from
 * within a record), to the end, each followed by reads. */
static void check_seeks(plank_reader *r, int32_t g, int32_t c, const colref *f,
                        const char *where) {
    plank_column_reader *cr;
    plank_error err;
    plank_status st = plank_column_reader_open(&cr, r, g, c, &err);
    CHECK_MSG(st == PLANK_OK, "%s: open: %s", where, err.message);
    if (st != PLANK_OK) return;
    int64_t rows = f->nrec;
    int64_t targets[] = {rows / 2, rows / 2, 0, rows - 1, rows, rows / 3, rows / 3 + 1,
                         rnd_below(rows + 1), rnd_below(rows + 1), 1, rows};
    int64_t all_slots = f->n;
    int64_t *idx = xmalloc((size_t)all_slots * sizeof *idx);
    for (int64_t i = 0; i < all_slots; i++) idx[i] = i;
    char ctx[600];
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        int64_t row = targets[t] < 0 ? 0 : targets[t] > rows ? rows : targets[t];
        st = plank_column_reader_seek(cr, row, &err);
        CHECK_MSG(st == PLANK_OK, "%s: seek %lld: %s", where, (long long)row, err.message);
        if (st != PLANK_OK) break;
        snprintf(ctx, sizeof ctx, "%s, no selection, after seek %lld", where, (long long)row);
        int64_t at = f->rec[row];
        /* A few slots (the seek after it goes backward from inside a record),
         * or everything. */
        int64_t k = t % 3 == 2 ? INT64_MAX : 1 + (int64_t)(t % 5);
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        st = plank_column_reader_read(cr, k, &b, &err);
        int64_t want = k < all_slots - at ? k : all_slots - at;
        CHECK_MSG(st == PLANK_OK && b.length == want, "%s: read %lld: got %lld of %lld (%s)", ctx,
                  (long long)k, (long long)b.length, (long long)want,
                  st ? err.message : "ok");
        if (st == PLANK_OK && b.length == want) batch_matches(f, idx + at, at, &b, ctx);
    }
    /* Seek within the current record after a partial read. */
    if (rows > 0 && plank_column_reader_seek(cr, rows - 1, NULL) == PLANK_OK) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        CHECK(plank_column_reader_read(cr, 1, &b, NULL) == PLANK_OK && b.length == 1);
        CHECK(plank_column_reader_seek(cr, rows - 1, NULL) == PLANK_OK);
        snprintf(ctx, sizeof ctx, "%s, no selection, seek back into the record just read", where);
        read_rest(cr, f, idx, all_slots, f->rec[rows - 1], INT64_MAX, ctx);
    }
    g_stats.passes++;
    free(idx);
    plank_column_reader_close(cr);
}

/* The selections of one chunk of `rows` records; `fri` (may be NULL) holds
 * the first row of each of npages pages. Calls fn for each. */
typedef void (*sel_fn)(void *opaque, const selection *s);

static void make_selections(int64_t rows, const int64_t *fri, int32_t npages, sel_fn fn,
                            void *opaque) {
    selection s = {0};
    sel_reset(&s, "empty");
    fn(opaque, &s);
    sel_reset(&s, "empty ranges");
    sel_add(&s, 0, 0);
    sel_add(&s, rows / 2, 0);
    sel_add(&s, rows, 0);
    fn(opaque, &s);
    if (rows == 0) {
        free(s.r);
        return;
    }
    sel_reset(&s, "full");
    sel_add(&s, 0, rows);
    fn(opaque, &s);
    sel_reset(&s, "first row");
    sel_add(&s, 0, 1);
    fn(opaque, &s);
    sel_reset(&s, "last row");
    sel_add(&s, rows - 1, 1);
    fn(opaque, &s);
    sel_reset(&s, "middle row");
    sel_add(&s, rows / 2, 1);
    fn(opaque, &s);
    sel_reset(&s, "mixed empty ranges");
    sel_add(&s, 0, 0);
    sel_add(&s, 0, rows > 2 ? 2 : 1);
    if (rows > 4) {
        sel_add(&s, 3, 0);
        sel_add(&s, 3, 1);
    }
    if (rows > 5) sel_add(&s, rows - 1, 1);
    sel_add(&s, rows, 0);
    fn(opaque, &s);
    static const int64_t ks[] = {2, 3, 100};
    for (size_t i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "every %lld", (long long)ks[i]);
        sel_reset(&s, name);
        for (int64_t r = ks[i] == 3 ? 1 : 0; r < rows; r += ks[i]) sel_add(&s, r, 1);
        fn(opaque, &s);
    }
    sel_reset(&s, "adjacent");
    {
        int64_t cuts[] = {0, rows / 7, rows / 7 + 1, rows / 3, rows / 2, rows - 1, rows};
        for (int i = 0, prev = 0; i < 7; i++)
            if (cuts[i] > cuts[prev]) {
                sel_add(&s, cuts[prev], cuts[i] - cuts[prev]);
                prev = i;
            }
    }
    fn(opaque, &s);
    sel_reset(&s, "adjacent singles");
    for (int64_t r = rows / 4; r < rows && r < rows / 4 + 20; r++) sel_add(&s, r, 1);
    fn(opaque, &s);
    for (int v = 0; v < 3; v++) {
        /* random ranges: gaps and lengths at a few scales */
        char name[32];
        snprintf(name, sizeof name, "random %d", v);
        sel_reset(&s, name);
        int64_t scale = v == 0 ? 3 : v == 1 ? 40 : rows / 3 + 1;
        int64_t r = rnd_below(scale);
        while (r < rows) {
            int64_t len = 1 + rnd_below(scale);
            if (len > rows - r) len = rows - r;
            sel_add(&s, r, len);
            r += len + 1 + rnd_below(scale);
        }
        fn(opaque, &s);
    }
    /* page-aligned ranges from the offset index */
    if (fri && npages > 1) {
        sel_reset(&s, "even pages");
        for (int32_t p = 0; p < npages; p += 2) {
            int64_t b = p + 1 < npages ? fri[p + 1] : rows;
            if (b > fri[p]) sel_add(&s, fri[p], b - fri[p]);
        }
        fn(opaque, &s);
        sel_reset(&s, "odd pages");
        for (int32_t p = 1; p < npages; p += 2) {
            int64_t b = p + 1 < npages ? fri[p + 1] : rows;
            if (b > fri[p]) sel_add(&s, fri[p], b - fri[p]);
        }
        fn(opaque, &s);
        sel_reset(&s, "page boundaries");
        for (int32_t p = 1; p < npages; p += 3)
            if (fri[p] >= 1 && (s.n == 0 || s.r[s.n - 1].first + s.r[s.n - 1].count <= fri[p] - 1))
                sel_add(&s, fri[p] - 1, fri[p] + 1 <= rows ? 2 : 1);
        fn(opaque, &s);
        sel_reset(&s, "page ends");
        for (int32_t p = 1; p < npages; p += 2)
            if (fri[p] >= 1 && (s.n == 0 || s.r[s.n - 1].first + s.r[s.n - 1].count <= fri[p] - 1))
                sel_add(&s, fri[p] - 1, 1);
        fn(opaque, &s);
        sel_reset(&s, "page starts");
        for (int32_t p = 1; p < npages; p += 2) sel_add(&s, fri[p], 1);
        fn(opaque, &s);
        sel_reset(&s, "pages 1-2 and last");
        {
            int64_t a = fri[1], b = npages > 3 ? fri[3] : rows;
            sel_add(&s, a, b - a);
            if (npages > 4) sel_add(&s, fri[npages - 1], rows - fri[npages - 1]);
        }
        fn(opaque, &s);
    }
    /* from a random bitmap (runs of random lengths) */
    for (int v = 0; v < 2; v++) {
        int64_t nbytes = (rows + 7) / 8;
        uint8_t *bits = xmalloc((size_t)nbytes);
        memset(bits, 0, (size_t)nbytes);
        int64_t r = 0;
        bool on = rnd() & 1;
        while (r < rows) {
            int64_t len = 1 + rnd_below(v == 0 ? 5 : 60);
            for (int64_t i = r; i < r + len && i < rows; i++)
                if (on) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
            r += len;
            on = !on;
        }
        plank_row_range *rr = NULL;
        int64_t nr = 0;
        plank_error err;
        plank_status st = plank_row_ranges_from_bitmap(bits, rows, 0, NULL, &rr, &nr, &err);
        CHECK_MSG(st == PLANK_OK, "from_bitmap: %s", err.message);
        if (st == PLANK_OK) {
            sel_reset(&s, v == 0 ? "bitmap short runs" : "bitmap long runs");
            for (int64_t i = 0; i < nr; i++) sel_add(&s, rr[i].first, rr[i].count);
            /* the ranges are exactly the set bits */
            int64_t set = 0, covered = 0;
            for (int64_t i = 0; i < rows; i++) set += bit_at(bits, i);
            for (int64_t i = 0; i < nr; i++) covered += rr[i].count;
            CHECK_EQ_I64(set, covered);
            fn(opaque, &s);
        }
        plank_row_ranges_free(NULL, rr, nr);
        free(bits);
    }
    free(s.r);
}

/* ---- One chunk ------------------------------------------------------------------------------ */

typedef struct chunk_ctx {
    plank_column_reader *cr;
    const colref *f;
    const char *where;
} chunk_ctx;

static void chunk_sel(void *opaque, const selection *s) {
    chunk_ctx *x = opaque;
    check_selection(x->cr, x->f, s, x->where);
}

/* The first rows of the pages from the offset index, when present and sane. */
static int32_t page_rows_of(plank_reader *r, int32_t g, int32_t c, int64_t rows, int64_t **out) {
    *out = NULL;
    plank_offset_index *oi = NULL;
    if (plank_reader_offset_index(r, g, c, &oi, NULL) != PLANK_OK || !oi) return 0;
    int32_t n = oi->num_pages;
    bool sane = n > 0 && oi->pages[0].first_row_index == 0;
    for (int32_t p = 1; sane && p < n; p++)
        sane = oi->pages[p].first_row_index > oi->pages[p - 1].first_row_index &&
               oi->pages[p].first_row_index < rows;
    if (!sane) {
        plank_offset_index_free(oi);
        return 0;
    }
    int64_t *fri = xmalloc((size_t)n * sizeof *fri);
    for (int32_t p = 0; p < n; p++) fri[p] = oi->pages[p].first_row_index;
    plank_offset_index_free(oi);
    *out = fri;
    return n;
}

/* Every selection check on chunk (g, c), whose full read is ref. */
static void check_chunk(plank_reader *r, int32_t g, int32_t c, const colref *f,
                        const char *name) {
    char where[400];
    snprintf(where, sizeof where, "%s rg %d col %d (%s)", name, (int)g, (int)c,
             plank_reader_column_node(r, c)->path);
    plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
    CHECK(plank_reader_row_group(r, g, &info, NULL) == PLANK_OK);
    CHECK_MSG(f->nrec == info.num_rows, "%s: %lld records in the levels, %lld rows", where,
              (long long)f->nrec, (long long)info.num_rows);
    if (f->nrec != info.num_rows) return;
    g_stats.chunks++;
    plank_column_reader *cr;
    plank_error err;
    plank_status st = plank_column_reader_open(&cr, r, g, c, &err);
    CHECK_MSG(st == PLANK_OK, "%s: open: %s", where, err.message);
    if (st != PLANK_OK) return;
    int64_t *fri;
    int32_t np = page_rows_of(r, g, c, f->nrec, &fri);
    chunk_ctx x = {cr, f, where};
    make_selections(f->nrec, fri, np, chunk_sel, &x);
    free(fri);
    plank_column_reader_close(cr);
    check_seeks(r, g, c, f, where);
}

/* ---- The corpus ------------------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .parquet files under dir (recursively), sorted. */
static void list_files(const char *dir, char ***names, int *n, int *cap) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            list_files(path, names, n, cap);
            continue;
        }
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 8, ".parquet") != 0) continue;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *names = xrealloc(*names, (size_t)*cap * sizeof **names);
        }
        (*names)[(*n)++] = strcpy(xmalloc(strlen(path) + 1), path);
    }
    closedir(d);
    qsort(*names, (size_t)*n, sizeof **names, cmp_str);
}

static void check_file(const char *path, const char *name) {
    plank_reader *r;
    plank_error err;
    if (plank_reader_open_path(&r, path, NULL, &err) != PLANK_OK) {
        g_stats.files_skipped_open++;
        if (getenv("PLANK_TEST_VERBOSE")) fprintf(stderr, "skip %s: %s\n", name, err.message);
        return;
    }
    /* large_string_map.brotli.parquet (2 GiB of strings) only with PLANK_TEST_LARGE=1 */
    int64_t bytes = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info rg = {.struct_size = sizeof(plank_row_group_info)};
        if (plank_reader_row_group(r, g, &rg, NULL) == PLANK_OK) bytes += rg.total_byte_size;
    }
    const char *large = getenv("PLANK_TEST_LARGE");
    if (bytes > ((int64_t)256 << 20) && !(large && *large == '1')) {
        g_stats.files_skipped_large++;
        plank_reader_close(r);
        return;
    }
    /* Only files that plank reads fully take part. */
    int32_t ng = plank_reader_num_row_groups(r), nc = plank_reader_num_columns(r);
    for (int32_t g = 0; g < ng; g++)
        for (int32_t c = 0; c < nc; c++) {
            colref f;
            plank_status st = read_ref(r, g, c, &f, &err);
            ref_free(&f);
            if (st != PLANK_OK) {
                g_stats.files_skipped_read++;
                if (getenv("PLANK_TEST_VERBOSE"))
                    fprintf(stderr, "skip %s: rg %d col %d: %s\n", name, (int)g, (int)c,
                            err.message);
                plank_reader_close(r);
                return;
            }
        }
    g_stats.files++;
    for (int32_t g = 0; g < ng; g++)
        for (int32_t c = 0; c < nc; c++) {
            colref f;
            if (read_ref(r, g, c, &f, &err) == PLANK_OK) check_chunk(r, g, c, &f, name);
            ref_free(&f);
        }
    plank_reader_close(r);
}

static void test_corpus(void) {
    const char *dir = th_testing_dir();
    if (!dir) {
        TEST_SKIP_PART("corpus: parquet-testing not found (set PLANK_TESTING_DIR)");
        return;
    }
    char data[2048];
    snprintf(data, sizeof data, "%s/data", dir);
    char **names = NULL;
    int n = 0, cap = 0;
    list_files(data, &names, &n, &cap);
    CHECK(n > 0);
    int64_t chunks0 = g_stats.chunks, sels0 = g_stats.selections;
    for (int i = 0; i < n; i++) {
        double t = now();
        check_file(names[i], names[i] + strlen(data) + 1);
        if (getenv("PLANK_TEST_VERBOSE"))
            fprintf(stderr, "%s: %.2f s\n", names[i] + strlen(data) + 1, now() - t);
        free(names[i]);
    }
    free(names);
    fprintf(stderr,
            "corpus: %d of %d files checked (%lld chunks, %lld selections); skipped: %d not "
            "opened, %d not read fully, %d large\n",
            g_stats.files, n, (long long)(g_stats.chunks - chunks0),
            (long long)(g_stats.selections - sels0), g_stats.files_skipped_open,
            g_stats.files_skipped_read, g_stats.files_skipped_large);
}

/* ---- Files written here ---------------------------------------------------------------------- */

enum { G_B, G_I32, G_I64, G_F, G_D, G_S, G_FL, G_L, G_NCOL };
static const char *G_PATHS[G_NCOL] = {"b", "i32", "i64", "f", "d", "s", "fl", "l.list.element"};
static const bool G_OPTIONAL[G_NCOL] = {true, true, false, true, false, true, true, true};

static bool g_null(int c, int64_t row) {
    if (!G_OPTIONAL[c] || c == G_L) return false;
    if (row >= 150 && row < 180) return true; /* whole null pages */
    return mix((uint64_t)row * 31 + (uint64_t)c) % 7 == 0;
}

/* The PLAIN bytes of flat value (c, row); returns the length. */
static size_t g_value(int c, int64_t row, uint8_t *out) {
    uint64_t h = mix((uint64_t)row * 1000003u + (uint64_t)c);
    switch (c) {
    case G_B: out[0] = row >= 200 && row < 260 ? 1 : (uint8_t)(h & 1); return 1;
    case G_I32: {
        int32_t v = row % 3 == 0 ? (int32_t)(h % 20) : (int32_t)(uint32_t)h;
        memcpy(out, &v, 4);
        return 4;
    }
    case G_I64: {
        int64_t v = row % 97 == 5 ? (int64_t)h : row * 1000 + (int64_t)(h % 7);
        memcpy(out, &v, 8);
        return 8;
    }
    case G_F: {
        float v = (float)((double)(h % 20000) / 7.0 - 1000);
        memcpy(out, &v, 4);
        return 4;
    }
    case G_D: {
        double v = (double)(int64_t)(h % 2000000) / 3.0 - 300000;
        memcpy(out, &v, 8);
        return 8;
    }
    case G_S: {
        /* shared prefixes (DELTA_BYTE_ARRAY), repeats (dictionary), empties */
        int n;
        if (h % 11 == 0) n = 0;
        else if (h % 5 == 0) n = snprintf((char *)out, 64, "word-%d", (int)(h % 13));
        else if (h % 23 == 0) n = snprintf((char *)out, 64, "%060llu", (unsigned long long)h);
        else n = snprintf((char *)out, 64, "key-%06lld-%c", (long long)row, 'a' + (int)(h % 26));
        return (size_t)n;
    }
    case G_FL:
        for (int i = 0; i < 5; i++) out[i] = (uint8_t)(h >> (8 * i)) & (row % 4 ? 0x0f : 0xff);
        return 5;
    }
    return 0;
}

/* List of row: -1 null, 0 empty, else its length. */
static int g_list_len(int64_t row) {
    uint64_t h = mix((uint64_t)row * 7919u + 17);
    if (h % 8 == 0) return -1;
    if (h % 8 == 1) return 0;
    if (h % 53 == 2) return 40;
    return (int)(h % 5) + 1;
}
static bool g_elem_null(int64_t row, int j) { return mix((uint64_t)row * 131 + (uint64_t)j) % 5 == 0; }
static int32_t g_elem(int64_t row, int j) { return (int32_t)(row * 100 + j) ^ (int32_t)(row % 7); }

static void g_schema(plank_schema_field *f) {
    for (int i = 0; i < 11; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 8;
    static const char *names[7] = {"b", "i32", "i64", "f", "d", "s", "fl"};
    static const plank_physical_type types[7] = {PLANK_BOOLEAN, PLANK_INT32, PLANK_INT64,
                                                 PLANK_FLOAT, PLANK_DOUBLE, PLANK_BYTE_ARRAY,
                                                 PLANK_FIXED_LEN_BYTE_ARRAY};
    for (int c = 0; c < 7; c++) {
        f[1 + c].name = names[c];
        f[1 + c].physical_type = types[c];
        f[1 + c].repetition = G_OPTIONAL[c] ? PLANK_OPTIONAL : PLANK_REQUIRED;
    }
    f[1 + G_S].logical.kind = PLANK_LOGICAL_STRING;
    f[1 + G_FL].type_length = 5;
    f[8].name = "l";
    f[8].repetition = PLANK_OPTIONAL;
    f[8].num_children = 1;
    f[8].logical.kind = PLANK_LOGICAL_LIST;
    f[9].name = "list";
    f[9].repetition = PLANK_REPEATED;
    f[9].num_children = 1;
    f[10].name = "element";
    f[10].physical_type = PLANK_INT32;
    f[10].repetition = PLANK_OPTIONAL;
}

/* The generator's slots of column c over rows [r0, r1), as a reference. */
static void g_ref(int c, int64_t r0, int64_t r1, colref *f) {
    static const plank_physical_type types[G_NCOL] = {
        PLANK_BOOLEAN, PLANK_INT32, PLANK_INT64, PLANK_FLOAT, PLANK_DOUBLE, PLANK_BYTE_ARRAY,
        PLANK_FIXED_LEN_BYTE_ARRAY, PLANK_INT32};
    ref_init(f, types[c], c == G_FL ? 5 : 0, c == G_L ? 3 : G_OPTIONAL[c] ? 1 : 0,
             c == G_L ? 1 : 0);
    uint8_t v[128];
    for (int64_t row = r0; row < r1; row++) {
        if (c == G_L) {
            int n = g_list_len(row);
            if (n <= 0) ref_push(f, (int16_t)(n + 1), 0, false, NULL, 0);
            for (int j = 0; j < n; j++) {
                int32_t e = g_elem(row, j);
                bool nul = g_elem_null(row, j);
                ref_push(f, nul ? 2 : 3, j ? 1 : 0, !nul, &e, 4);
            }
            continue;
        }
        bool nul = g_null(c, row);
        size_t len = g_value(c, row, v);
        ref_push(f, (int16_t)(f->max_def > 0 && !nul), 0, !nul, v, len);
    }
    ref_finish(f);
}

/* Column batches of rows [r0, r1) in the writer's layout (from g_ref). */
typedef struct gbatch {
    colref f;
    uint8_t *validity, *bits;
} gbatch;

static void g_batch(int c, int64_t r0, int64_t r1, gbatch *gb, plank_batch *b) {
    g_ref(c, r0, r1, &gb->f);
    colref *f = &gb->f;
    memset(b, 0, sizeof *b);
    b->struct_size = sizeof *b;
    b->length = f->n;
    gb->validity = calloc((size_t)f->n / 8 + 1, 1);
    gb->bits = calloc((size_t)f->n / 8 + 1, 1);
    for (int64_t i = 0; i < f->n; i++) {
        if (f->valid[i]) gb->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (f->type == PLANK_BOOLEAN && f->valid[i] && f->fixed[i])
            gb->bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    if (f->max_def > 1 || f->max_rep > 0) b->def_levels = f->def;
    else if (f->max_def == 1) b->validity = gb->validity;
    if (f->max_rep > 0) b->rep_levels = f->rep;
    if (f->type == PLANK_BYTE_ARRAY) {
        b->offsets = f->off;
        b->data = f->data ? f->data : (const uint8_t *)"";
    } else if (f->type == PLANK_BOOLEAN) {
        b->values = gb->bits;
    } else {
        b->values = f->fixed;
    }
}

static void g_batch_free(gbatch *gb) {
    ref_free(&gb->f);
    free(gb->validity);
    free(gb->bits);
}

enum { E_PLAIN, E_DICT, E_DICT_FALLBACK, E_DELTA, E_SPLIT, E_NSETS };
static const char *E_NAMES[E_NSETS] = {"plain", "dict", "dict-fallback", "delta", "split"};

/* Data-page encoding of column c in encoding set e (-1: the writer's default). */
static int g_encoding(int e, int c) {
    switch (e) {
    case E_PLAIN: return PLANK_ENC_PLAIN;
    case E_DELTA:
        switch (c) {
        case G_B: return PLANK_ENC_RLE;
        case G_I32: case G_I64: case G_L: return PLANK_ENC_DELTA_BINARY_PACKED;
        case G_F: case G_D: return PLANK_ENC_BYTE_STREAM_SPLIT;
        case G_S: return PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY;
        case G_FL: return PLANK_ENC_DELTA_BYTE_ARRAY;
        }
        break;
    case E_SPLIT:
        switch (c) {
        case G_B: return PLANK_ENC_RLE;
        case G_S: return PLANK_ENC_DELTA_BYTE_ARRAY;
        default: return PLANK_ENC_BYTE_STREAM_SPLIT;
        }
    }
    return -1;
}

typedef struct gconf {
    int enc;
    int page_version;
    plank_codec codec;
    int64_t page_rows, page_size;
} gconf;

static void gconf_name(const gconf *g, char *buf, size_t size) {
    snprintf(buf, size, "written[%s v%d %s pages %lld rows/%lld bytes]", E_NAMES[g->enc],
             g->page_version, plank_codec_name(g->codec), (long long)g->page_rows,
             (long long)g->page_size);
}

#define G_ROWS 700
#define G_RG_ROWS 400

static plank_status g_write(const char *path, const gconf *g, int64_t nrows, int64_t rg_rows,
                            plank_error *err) {
    plank_schema_field f[11];
    g_schema(f);
    plank_writer_options o;
    plank_writer_options_init(&o);
    o.codec = g->codec;
    o.page_version = g->page_version;
    o.page_rows = g->page_rows;
    o.page_size = g->page_size;
    o.row_group_rows = rg_rows;
    o.dictionary = g->enc == E_DICT || g->enc == E_DICT_FALLBACK;
    if (g->enc == E_DICT_FALLBACK) o.dictionary_page_size = 300;
    plank_column_options co[G_NCOL];
    int nco = 0;
    for (int c = 0; c < G_NCOL; c++) {
        int e = g_encoding(g->enc, c);
        if (e < 0) continue;
        plank_column_options_init(&co[nco]);
        co[nco].path = G_PATHS[c];
        co[nco].encoding = e;
        nco++;
    }
    o.columns = co;
    o.num_column_options = nco;
    plank_writer *w;
    plank_status st = plank_writer_open_path(&w, path, f, 11, &o, err);
    if (st != PLANK_OK) return st;
    const int64_t step = 250;
    for (int64_t r = 0; r < nrows && st == PLANK_OK; r += step) {
        int64_t r1 = r + step < nrows ? r + step : nrows;
        plank_batch b[G_NCOL];
        gbatch gb[G_NCOL];
        for (int c = 0; c < G_NCOL; c++) g_batch(c, r, r1, &gb[c], &b[c]);
        st = plank_writer_write_rows(w, b, r1 - r, err);
        for (int c = 0; c < G_NCOL; c++) g_batch_free(&gb[c]);
    }
    if (st != PLANK_OK) {
        plank_writer_abort(w);
        return st;
    }
    return plank_writer_close(w, err);
}

/* The page counters of a selected read against the offset index: every
 * page that holds a selected row is decoded once, every other page before
 * the last of them is passed over by its header (none is decoded), and
 * pages after the selection are never decoded. */
typedef struct counter_ctx {
    plank_reader *r;
    int32_t g, c;
    const colref *f;
    const int64_t *fri;
    int32_t np;
    const char *where;
    bool compressed;
    bool header_skips; /* flat, or v2 pages */
    bool has_dict;     /* the chunk has a dictionary page */
} counter_ctx;

static void counter_sel(void *opaque, const selection *s) {
    counter_ctx *x = opaque;
    int64_t rows = x->f->nrec;
    int64_t overlap = 0, before_last = 0;
    int32_t last = -1;
    for (int32_t p = 0; p < x->np; p++) {
        int64_t a = x->fri[p], b = p + 1 < x->np ? x->fri[p + 1] : rows;
        bool hit = false;
        for (int64_t i = 0; i < s->n && !hit; i++)
            hit = s->r[i].count > 0 && s->r[i].first < b && s->r[i].first + s->r[i].count > a;
        if (hit) {
            overlap++;
            last = p;
        }
    }
    for (int32_t p = 0; p < last; p++) {
        int64_t a = x->fri[p], b = p + 1 < x->np ? x->fri[p + 1] : rows;
        bool hit = false;
        for (int64_t i = 0; i < s->n && !hit; i++)
            hit = s->r[i].count > 0 && s->r[i].first < b && s->r[i].first + s->r[i].count > a;
        before_last += !hit;
    }
    static const int64_t sizes[] = {1, INT64_MAX};
    for (size_t z = 0; z < 2; z++) {
        plank_column_reader *cr;
        if (plank_column_reader_open(&cr, x->r, x->g, x->c, NULL) != PLANK_OK) {
            CHECK(false);
            return;
        }
        char ctx[600];
        snprintf(ctx, sizeof ctx, "%s, selection %s, counters, reads of %lld", x->where, s->name,
                 (long long)(sizes[z] == INT64_MAX ? -1 : sizes[z]));
        int64_t *idx;
        int64_t total = expected_slots(x->f, s, 0, &idx);
        if (do_select(cr, s, ctx)) read_rest(cr, x->f, idx, total, 0, sizes[z], ctx);
        free(idx);
        pk_column_counters k;
        pk_column_reader_counters(cr, &k);
        plank_column_reader_close(cr);
        g_stats.counter_checks++;
        CHECK_MSG(k.dictionaries <= 1, "%s: %lld dictionaries", ctx, (long long)k.dictionaries);
        if (x->header_skips) {
            CHECK_MSG(k.pages_decoded == overlap + k.dictionaries,
                      "%s: %lld pages decoded, want %lld data pages holding selected rows + %lld "
                      "dictionaries (%d pages)", ctx, (long long)k.pages_decoded,
                      (long long)overlap, (long long)k.dictionaries, (int)x->np);
            /* Pages after the last selected one are either never reached
             * (flat: the reader knows the selection is over) or all passed
             * over by their header on the way to the end. */
            int64_t trailing = x->np - 1 - last;
            CHECK_MSG(k.pages_skipped == before_last || k.pages_skipped == before_last + trailing,
                      "%s: %lld pages skipped by header, want %lld (+ %lld after the selection) "
                      "of %d", ctx, (long long)k.pages_skipped, (long long)before_last,
                      (long long)trailing, (int)x->np);
            if (overlap > 0)
                CHECK_MSG(k.dictionaries == (x->has_dict ? 1 : 0), "%s: %lld dictionaries loaded",
                          ctx, (long long)k.dictionaries);
        } else {
            /* v1 pages of a nested column: their records are only known from
             * their levels; still no page is decoded twice. */
            CHECK_EQ_I64(k.pages_skipped, 0);
            CHECK_MSG(k.pages_decoded <= x->np + k.dictionaries, "%s: %lld pages decoded of %d",
                      ctx, (long long)k.pages_decoded, (int)x->np);
        }
        if (x->compressed)
            CHECK_MSG(k.pages_decompressed <= k.pages_decoded, "%s: %lld decompressed, %lld "
                      "decoded", ctx, (long long)k.pages_decompressed, (long long)k.pages_decoded);
        else
            CHECK_EQ_I64(k.pages_decompressed, 0);
        if (!x->header_skips) break;
    }
}

static void test_written(const char *dir) {
    gconf confs[64];
    int nconf = 0;
    /* Every encoding set in page v1 and v2, each once uncompressed and once
     * compressed; both page versions with every codec. PLANK_SELECT_FULL:
     * every encoding set, page version and codec. */
    static const plank_codec codecs[3] = {PLANK_CODEC_UNCOMPRESSED, PLANK_CODEC_SNAPPY,
                                          PLANK_CODEC_ZSTD};
    for (int e = 0; e < E_NSETS; e++)
        for (int pv = 1; pv <= 2; pv++)
            for (int z = 0; z < 3; z++) {
                plank_codec want = pv == 1 ? (e % 2 ? PLANK_CODEC_SNAPPY : PLANK_CODEC_UNCOMPRESSED)
                                           : (e % 2 ? PLANK_CODEC_UNCOMPRESSED : PLANK_CODEC_ZSTD);
                if (!g_full && codecs[z] != want) continue;
                plank_codec use = plank_codec_available(codecs[z]) ? codecs[z]
                                                                   : PLANK_CODEC_UNCOMPRESSED;
                if (use != codecs[z] && g_full) continue;
                confs[nconf++] = (gconf){e, pv, use, 7, 1 << 20};
            }
    /* pages cut by bytes: boundaries differ between columns */
    confs[nconf++] = (gconf){E_DICT_FALLBACK, 2,
                             plank_codec_available(PLANK_CODEC_SNAPPY) ? PLANK_CODEC_SNAPPY
                                                                       : PLANK_CODEC_UNCOMPRESSED,
                             1000, 90};
    confs[nconf++] = (gconf){E_PLAIN, 1,
                             plank_codec_available(PLANK_CODEC_ZSTD) ? PLANK_CODEC_ZSTD
                                                                     : PLANK_CODEC_UNCOMPRESSED,
                             1000, 120};
    int64_t chunks0 = g_stats.chunks, sels0 = g_stats.selections;
    for (int i = 0; i < nconf; i++) {
        const gconf *g = &confs[i];
        char name[200], path[512];
        gconf_name(g, name, sizeof name);
        snprintf(path, sizeof path, "%s/sel_%d.parquet", dir, i);
        plank_error err;
        plank_status st = g_write(path, g, G_ROWS, G_RG_ROWS, &err);
        CHECK_MSG(st == PLANK_OK, "%s: write: %s", name, err.message);
        if (st != PLANK_OK) continue;
        plank_reader *r;
        st = plank_reader_open_path(&r, path, NULL, &err);
        CHECK_MSG(st == PLANK_OK, "%s: open: %s", name, err.message);
        if (st != PLANK_OK) {
            unlink(path);
            continue;
        }
        g_stats.gen_files++;
        CHECK_EQ_I64(plank_reader_num_row_groups(r), 2);
        int64_t row0 = 0;
        for (int32_t rg = 0; rg < plank_reader_num_row_groups(r); rg++) {
            plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
            CHECK(plank_reader_row_group(r, rg, &info, NULL) == PLANK_OK);
            for (int c = 0; c < G_NCOL; c++) {
                char where[400];
                snprintf(where, sizeof where, "%s rg %d col %s", name, (int)rg, G_PATHS[c]);
                colref f, want;
                st = read_ref(r, rg, c, &f, &err);
                CHECK_MSG(st == PLANK_OK, "%s: full read: %s", where, err.message);
                /* The reference itself against the generator. */
                g_ref(c, row0, row0 + info.num_rows, &want);
                bool same = st == PLANK_OK && f.n == want.n;
                for (int64_t k = 0; same && k < f.n; k++) {
                    slot a, b;
                    ref_slot(&f, k, &a);
                    ref_slot(&want, k, &b);
                    same = slot_eq(&a, &b);
                    if (!same) CHECK_MSG(false, "%s: full read differs at slot %lld", where, (long long)k);
                }
                CHECK_MSG(same, "%s: full read (%lld slots) is not what was written (%lld)",
                          where, (long long)f.n, (long long)want.n);
                ref_free(&want);
                if (same) {
                    check_chunk(r, rg, c, &f, name);
                    /* counters against the offset index */
                    int64_t *fri;
                    int32_t np = page_rows_of(r, rg, c, f.nrec, &fri);
                    CHECK_MSG(np >= 1, "%s: no offset index", where);
                    if (np >= 1) {
                        counter_ctx x = {r, rg, c, &f, fri, np, where,
                                         g->codec != PLANK_CODEC_UNCOMPRESSED,
                                         c != G_L || g->page_version == 2, false};
                        plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
                        CHECK(plank_reader_column_chunk(r, rg, c, &cc, NULL) == PLANK_OK);
                        x.has_dict = cc.dictionary_page_offset > 0;
                        make_selections(f.nrec, fri, np, counter_sel, &x);
                    }
                    free(fri);
                }
                ref_free(&f);
            }
            row0 += info.num_rows;
        }
        plank_reader_close(r);
        unlink(path);
    }
    fprintf(stderr, "written: %d files (%lld chunks, %lld selections, %lld counter checks)\n",
            g_stats.gen_files, (long long)(g_stats.chunks - chunks0),
            (long long)(g_stats.selections - sels0), (long long)g_stats.counter_checks);
}

/* ---- Allocation bounded by the selection -------------------------------------------------- */

typedef struct peak_alloc {
    th_alloc t;
    plank_allocator inner;
    int64_t peak;
} peak_alloc;

static void *peak_realloc(void *opaque, void *p, size_t old, size_t n) {
    peak_alloc *pa = opaque;
    void *q = pa->inner.reallocate(pa->inner.opaque, p, old, n);
    if (pa->t.live_bytes > pa->peak) pa->peak = pa->t.live_bytes;
    return q;
}
static void peak_free(void *opaque, void *p, size_t n) {
    peak_alloc *pa = opaque;
    pa->inner.free(pa->inner.opaque, p, n);
}

static void test_alloc_bound(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/sel_big.parquet", dir);
    const int64_t N = 100000;
    /* i64 (required, 8 bytes a row) and s (strings) in one row group of
     * default pages (20000 rows). */
    gconf g = {E_PLAIN, 1, plank_codec_available(PLANK_CODEC_SNAPPY) ? PLANK_CODEC_SNAPPY
                                                                      : PLANK_CODEC_UNCOMPRESSED,
               20000, 1 << 20};
    plank_error err;
    plank_status st = g_write(path, &g, N, N, &err);
    CHECK_MSG(st == PLANK_OK, "write: %s", err.message);
    if (st != PLANK_OK) return;
    peak_alloc pa;
    pa.inner = th_alloc_init(&pa.t);
    pa.peak = 0;
    plank_allocator al = {peak_realloc, peak_free, &pa};
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.allocator = &al;
    plank_reader *r;
    st = plank_reader_open_path(&r, path, &ro, &err);
    CHECK_MSG(st == PLANK_OK, "open: %s", err.message);
    if (st != PLANK_OK) return;
    CHECK_EQ_I64(plank_reader_num_rows(r), N);
    static const int cols[] = {G_I64, G_S, G_I32};
    for (size_t ci = 0; ci < 3; ci++) {
        int c = cols[ci];
        plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
        CHECK(plank_reader_column_chunk(r, 0, c, &cc, NULL) == PLANK_OK);
        for (int variant = 0; variant < 2; variant++) {
            plank_column_reader *cr;
            st = plank_column_reader_open(&cr, r, 0, c, &err);
            CHECK_MSG(st == PLANK_OK, "open column: %s", err.message);
            if (st != PLANK_OK) break;
            /* From here on: what the read allocates (no buffer for the
             * whole chunk: a sparse read fetches page headers and pages). */
            int64_t base = pa.t.live_bytes;
            pa.peak = base;
            pa.t.max_single = 0;
            plank_row_range one[1] = {{N / 2 + 3, 10}};
            plank_row_range spread[3] = {{5, 3}, {N / 2 + 1, 2}, {N - 5, 5}};
            CHECK(plank_column_reader_select(cr, variant ? spread : one, variant ? 3 : 1, &err) ==
                  PLANK_OK);
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            st = plank_column_reader_read(cr, INT64_MAX, &b, &err);
            CHECK_MSG(st == PLANK_OK && b.length == 10, "%s: read of 10 selected rows: %s, %lld",
                      G_PATHS[c], st ? err.message : "ok", (long long)b.length);
            if (st == PLANK_OK && b.length == 10 && c == G_I64) {
                int64_t first = variant ? 5 : N / 2 + 3, v;
                uint8_t tmp[16];
                g_value(G_I64, first, tmp);
                memcpy(&v, tmp, 8);
                CHECK_EQ_I64(((const int64_t *)b.values)[0], v);
            }
            /* Only the blocks of the needed page and of the headers were read. */
            pk_column_counters cnt;
            pk_column_reader_counters(cr, &cnt);
            CHECK_MSG(cnt.bytes_fetched > 0 &&
                          cnt.bytes_fetched <= (variant ? cc.total_compressed_size * 3 / 4
                                                        : cc.total_compressed_size / 3),
                      "%s: %lld bytes fetched of the chunk's %lld for 10 rows", G_PATHS[c],
                      (long long)cnt.bytes_fetched, (long long)cc.total_compressed_size);
            int64_t grown = pa.peak - base;
            fprintf(stderr,
                    "alloc: %s, 10 of %lld rows selected (%s): %lld bytes at most "
                    "(%lld bytes stored), largest request %lld\n",
                    G_PATHS[c], (long long)N, variant ? "3 ranges" : "1 range", (long long)grown,
                    (long long)cc.total_compressed_size, (long long)pa.t.max_single);
            CHECK_MSG(grown < (1 << 20), "%s: a 10-row selection allocated %lld bytes", G_PATHS[c],
                      (long long)grown);
            CHECK_MSG(pa.t.max_single < (1 << 20), "%s: a 10-row selection asked for %lld bytes",
                      G_PATHS[c], (long long)pa.t.max_single);
            plank_column_reader_close(cr);
        }
    }
    plank_reader_close(r);
    CHECK_EQ_I64(pa.t.live_bytes, 0);
    CHECK_EQ_I64(pa.t.live_blocks, 0);
    unlink(path);

    /* An unbounded plain read of a 300-row chunk asks for what 300 rows need. */
    snprintf(path, sizeof path, "%s/sel_small.parquet", dir);
    gconf g2 = {E_DICT, 2, PLANK_CODEC_UNCOMPRESSED, 7, 1 << 20};
    st = g_write(path, &g2, 300, 300, &err);
    CHECK_MSG(st == PLANK_OK, "write: %s", err.message);
    if (st != PLANK_OK) return;
    pa.inner = th_alloc_init(&pa.t);
    st = plank_reader_open_path(&r, path, &ro, &err);
    CHECK_MSG(st == PLANK_OK, "open: %s", err.message);
    if (st != PLANK_OK) return;
    for (int c = 0; c < G_NCOL; c++) {
        plank_column_reader *cr;
        if (plank_column_reader_open(&cr, r, 0, c, NULL) != PLANK_OK) {
            CHECK(false);
            continue;
        }
        pa.t.max_single = 0;
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        st = plank_column_reader_read(cr, INT64_MAX, &b, &err);
        CHECK_MSG(st == PLANK_OK && b.length > 0, "%s: read: %s", G_PATHS[c], err.message);
        CHECK_MSG(pa.t.max_single < (1 << 20), "%s: an unbounded read of 300 rows asked for %lld "
                  "bytes at once", G_PATHS[c], (long long)pa.t.max_single);
        plank_column_reader_close(cr);
    }
    plank_reader_close(r);
    CHECK_EQ_I64(pa.t.live_bytes, 0);
    unlink(path);
}

/* ---- plank_row_ranges_from_bitmap alone --------------------------------------------------- */

/* Runs of set bits, bit by bit. */
static int64_t naive_runs(const uint8_t *bits, int64_t nbits, int64_t first, plank_row_range *out) {
    int64_t n = 0;
    for (int64_t i = 0; i < nbits;) {
        if (!bit_at(bits, i)) {
            i++;
            continue;
        }
        int64_t s = i;
        while (i < nbits && bit_at(bits, i)) i++;
        out[n].first = first + s;
        out[n].count = i - s;
        n++;
    }
    return n;
}

static void check_bitmap(const uint8_t *src, int64_t nbits, int64_t first, const char *what) {
    /* An exact-size copy: a read past ceil(nbits / 8) bytes is caught by ASan. */
    size_t nbytes = (size_t)((nbits + 7) / 8);
    uint8_t *bits = xmalloc(nbytes);
    memcpy(bits, src, nbytes);
    plank_row_range *want = xmalloc((size_t)(nbits / 2 + 2) * sizeof *want);
    int64_t nw = naive_runs(bits, nbits, first, want);
    th_alloc ta;
    plank_allocator al = th_alloc_init(&ta);
    plank_row_range *got = NULL;
    int64_t ng = -1;
    plank_error err;
    plank_status st = plank_row_ranges_from_bitmap(bits, nbits, first, &al, &got, &ng, &err);
    bool ok = st == PLANK_OK && ng == nw && (nw == 0 || got != NULL);
    for (int64_t i = 0; ok && i < nw; i++)
        ok = got[i].first == want[i].first && got[i].count == want[i].count;
    CHECK_MSG(ok, "from_bitmap(%s, %lld bits, first %lld): %s, %lld ranges, want %lld", what,
              (long long)nbits, (long long)first, st ? err.message : "ok", (long long)ng,
              (long long)nw);
    plank_row_ranges_free(&al, got, ng > 0 ? ng : 0);
    /* Given the count (the scan's count_runs kernel), one pass: the same
     * ranges; a count off by one fails without writing past the array. */
    for (int64_t d = -1; d <= 1; d++) {
        if (nw + d < 0) continue;
        got = NULL;
        ng = -1;
        st = pk_row_ranges_counted(bits, nbits, first, nw + d, &al, &got, &ng, &err);
        ok = d == 0 ? st == PLANK_OK && ng == nw : st == PLANK_ERR_INVALID_ARGUMENT && ng == 0;
        for (int64_t i = 0; ok && d == 0 && i < nw; i++)
            ok = got[i].first == want[i].first && got[i].count == want[i].count;
        CHECK_MSG(ok, "counted(%s, %lld bits, %lld runs given of %lld): %s", what,
                  (long long)nbits, (long long)(nw + d), (long long)nw,
                  st ? err.message : "ok");
        plank_row_ranges_free(&al, got, ng > 0 ? ng : 0);
    }
    CHECK_EQ_I64(ta.live_bytes, 0);
    CHECK_EQ_I64(ta.allocs, ta.frees);
    free(want);
    free(bits);
}

static void test_from_bitmap(void) {
    static const uint8_t pat[] = {0xFF, 0xFF, 0x00, 0xFF, 0x0F, 0xF0, 0x00, 0x00,
                                  0xFF, 0x01, 0x80, 0xFF, 0x00, 0xFE, 0x7F, 0xFF};
    static const int64_t firsts[] = {0, 1, 7, 12345};
    for (int64_t nbits = 0; nbits <= (int64_t)sizeof pat * 8; nbits++)
        for (size_t fi = 0; fi < 4; fi++) check_bitmap(pat, nbits, firsts[fi], "pattern");
    /* shifted patterns: whole bytes of 0x00 / 0xFF at every offset */
    uint8_t buf[64];
    for (int shift = 0; shift < 8; shift++) {
        memset(buf, 0, sizeof buf);
        for (int i = 0; i < 8 * 40; i++) {
            int j = i - shift;
            bool on = j >= 0 && ((j / 24) % 2 == 0 || j % 9 == 0);
            if (on) buf[i >> 3] |= (uint8_t)(1u << (i & 7));
        }
        for (int64_t nbits = 8 * 40 - 17; nbits <= 8 * 40; nbits++)
            check_bitmap(buf, nbits, shift, "shifted runs");
    }
    /* all set, all clear; bits past num_bits set (must be ignored) */
    memset(buf, 0xFF, sizeof buf);
    for (int64_t nbits = 0; nbits <= 130; nbits += 13) check_bitmap(buf, nbits, 3, "all set");
    memset(buf, 0x00, sizeof buf);
    for (int64_t nbits = 0; nbits <= 130; nbits += 13) check_bitmap(buf, nbits, 0, "all clear");
    uint8_t tail[3] = {0x00, 0x00, 0xF8};
    check_bitmap(tail, 19, 0, "clear with set bits past the end");
    check_bitmap(tail, 20, 0, "one set bit at the end");
    /* near INT64_MAX */
    check_bitmap(pat, 64, INT64_MAX - 64, "first_row at the top");
    /* random bitmaps */
    for (int t = 0; t < 200; t++) {
        int64_t nbits = 1 + rnd_below(3000);
        uint8_t *b = xmalloc((size_t)(nbits + 7) / 8);
        int mode = t % 4;
        for (int64_t i = 0; i < (nbits + 7) / 8; i++) {
            uint64_t h = rnd();
            b[i] = mode == 0 ? (uint8_t)h : mode == 1 ? (h % 3 == 0 ? 0xFF : h % 3 == 1 ? 0 : (uint8_t)h)
                 : mode == 2 ? (uint8_t)(h % 7 == 0 ? h : 0) : (uint8_t)(h % 7 == 0 ? h : 0xFF);
        }
        check_bitmap(b, nbits, rnd_below(1000000), "random");
        free(b);
    }
    /* default allocator */
    plank_row_range *rr = NULL;
    int64_t nr = 0;
    CHECK(plank_row_ranges_from_bitmap(pat, 128, 10, NULL, &rr, &nr, NULL) == PLANK_OK);
    CHECK(nr > 0 && rr && rr[0].first == 10 && rr[0].count == 16);
    plank_row_ranges_free(NULL, rr, nr);
    plank_row_ranges_free(NULL, NULL, 0);
    /* bad arguments */
    plank_error err;
    CHECK(plank_row_ranges_from_bitmap(pat, -1, 0, NULL, &rr, &nr, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_row_ranges_from_bitmap(pat, 8, -1, NULL, &rr, &nr, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_row_ranges_from_bitmap(pat, 64, INT64_MAX - 10, NULL, &rr, &nr, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_row_ranges_from_bitmap(NULL, 8, 0, NULL, &rr, &nr, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_row_ranges_from_bitmap(pat, 8, 0, NULL, NULL, &nr, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_row_ranges_from_bitmap(pat, 8, 0, NULL, &rr, NULL, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
    CHECK(plank_row_ranges_from_bitmap(NULL, 0, 0, NULL, &rr, &nr, &err) == PLANK_OK && nr == 0);
}

/* ---- Bad arguments -------------------------------------------------------------------------- */

static void test_bad_arguments(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/sel_args.parquet", dir);
    gconf g = {E_PLAIN, 1, PLANK_CODEC_UNCOMPRESSED, 7, 1 << 20};
    plank_error err;
    plank_status st = g_write(path, &g, 100, 100, &err);
    CHECK_MSG(st == PLANK_OK, "write: %s", err.message);
    if (st != PLANK_OK) return;
    plank_reader *r;
    st = plank_reader_open_path(&r, path, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "open: %s", err.message);
    if (st != PLANK_OK) return;
    for (int c = 0; c < G_NCOL; c += G_NCOL - 1) { /* a flat and the list column */
        plank_column_reader *cr;
        if (plank_column_reader_open(&cr, r, 0, c, NULL) != PLANK_OK) {
            CHECK(false);
            continue;
        }
        const int64_t R = 100;
        struct {
            plank_row_range r[3];
            int n;
            const char *what;
        } bad[] = {
            {{{10, 5}, {2, 3}}, 2, "unsorted"},
            {{{10, 5}, {14, 3}}, 2, "overlapping"},
            {{{10, 5}, {10, 1}}, 2, "same start"},
            {{{-1, 5}}, 1, "negative first"},
            {{{3, -1}}, 1, "negative count"},
            {{{90, 11}}, 1, "past the end"},
            {{{R, 1}}, 1, "at the end"},
            {{{R + 5, 0}}, 1, "empty range past the end"},
            {{{0, 1}, {5, INT64_MAX}}, 2, "count overflowing"},
            {{{INT64_MAX, 1}}, 1, "first at INT64_MAX"},
            {{{0, 3}, {50, 10}, {40, 2}}, 3, "third before second"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            st = plank_column_reader_select(cr, bad[i].r, bad[i].n, &err);
            CHECK_MSG(st == PLANK_ERR_INVALID_ARGUMENT, "select %s: %d", bad[i].what, (int)st);
            CHECK(err.code == PLANK_ERR_INVALID_ARGUMENT && err.message[0]);
        }
        plank_row_range one = {0, 1};
        CHECK(plank_column_reader_select(cr, NULL, 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(plank_column_reader_select(cr, &one, -1, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(plank_column_reader_select(NULL, &one, 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(plank_column_reader_select(cr, NULL, 0, &err) == PLANK_OK);
        CHECK(plank_column_reader_seek(cr, -1, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(plank_column_reader_seek(cr, R + 1, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(plank_column_reader_seek(NULL, 0, &err) == PLANK_ERR_INVALID_ARGUMENT);
        CHECK(plank_column_reader_seek(cr, R, &err) == PLANK_OK);
        /* valid edge cases */
        plank_row_range edge[3] = {{0, 0}, {R - 1, 1}, {R, 0}};
        CHECK(plank_column_reader_select(cr, edge, 3, &err) == PLANK_OK);
        plank_row_range adj[2] = {{5, 5}, {10, 5}};
        CHECK(plank_column_reader_select(cr, adj, 2, &err) == PLANK_OK);
        /* after a rejected selection a good one still works */
        CHECK(plank_column_reader_select(cr, bad[0].r, 2, &err) == PLANK_ERR_INVALID_ARGUMENT);
        plank_row_range last = {R - 1, 1};
        CHECK(plank_column_reader_select(cr, &last, 1, &err) == PLANK_OK);
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        CHECK(plank_column_reader_read(cr, INT64_MAX, &b, &err) == PLANK_OK);
        if (c != G_L) CHECK_EQ_I64(b.length, 1);
        else CHECK(b.length >= 1 && b.rep_levels && b.rep_levels[0] == 0);
        plank_column_reader_close(cr);
    }
    plank_reader_close(r);
    unlink(path);
}

int main(void) {
    const char *full = getenv("PLANK_SELECT_FULL");
    g_full = full && *full == '1';
    char dir[] = "/tmp/plank_select_XXXXXX";
    if (!mkdtemp(dir)) TEST_SKIP("no temporary directory");
    double t0 = now();
    test_from_bitmap();
    test_bad_arguments(dir);
    double t1 = now();
    test_alloc_bound(dir);
    double t2 = now();
    test_written(dir);
    double t3 = now();
    test_corpus();
    double t4 = now();
    rmdir(dir);
    fprintf(stderr,
            "select: %lld chunks, %lld selections, %lld read passes in %.1f s (bitmap and "
            "arguments %.1f s, allocation %.1f s, written files %.1f s, corpus %.1f s)\n",
            (long long)g_stats.chunks, (long long)g_stats.selections, (long long)g_stats.passes,
            t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    TEST_END();
}
