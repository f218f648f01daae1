/* test_hostile.c: plank over hostile input, through the public API only (and
 * pk_cpu_detect, for the SIMD levels this machine has).
 *
 * Inputs: every file in parquet-testing's bad_data/, and for every
 * data/ .parquet file (encrypted ones excluded) truncated copies, copies with
 * a hole cut out of the middle (the footer kept, so its offsets point at the
 * wrong bytes or past the end) and seeded bit-flipped copies. Each input is
 * copied into a malloc buffer of exactly its size (so AddressSanitizer sees any
 * read past it), opened with plank_reader_open_memory and every column of
 * every row group is read to the end with plank_column_reader_read.
 *
 * Contract checked: failing is fine, but every failure returns a status that
 * matches err.code and carries a non-empty message; nothing crashes, reads out
 * of bounds or leaks (a counting allocator must be back to zero after each
 * close). The bad_data files that bad_data/README.md describes as invalid for
 * a flat column reader must fail; ARROW-GH-43605 (RLE dictionary indices with
 * bit width 0, valid) must read completely.
 *
 * SIMD levels: the decoders call different kernels at each level, so every
 * input is read at every level the machine has (PLANK_SIMD, if set, caps the
 * highest; each read sets PLANK_SIMD, which a reader reads at open), and the
 * lower levels must give the same outcome as the highest (opened or not, the
 * same first status, the same number of slots). An input that the highest
 * level cannot open is not read again: opening (footer, Thrift, schema) calls
 * no kernel, only column readers do (src/read/pk_column.c), so its outcome
 * cannot depend on the level. One process does all levels, so the files are
 * listed, loaded and mutated once.
 *
 * PLANK_HOSTILE_QUICK=1 (set for the sanitizer build by tests/CMakeLists.txt):
 * a mutated input that opened is read at the highest level and at one lower
 * level, the lower levels taken in turn (with AVX-512: avx2, scalar, avx2,
 * ...), so under ASan each lower level reads every other such input, every
 * kind of mutation of every file included. The bad_data files are read at
 * every level, and the optimised build reads every input at every level. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>

#include "plank.h"
#include "simd/pk_simd.h" /* the levels this machine has, to read at each */
#include "tharness.h"

/* ---- one input -------------------------------------------------------------- */

typedef struct outcome {
    bool opened;
    bool failed;        /* open or some read returned an error */
    int64_t values;     /* slots read over all columns */
    plank_status first; /* first error status */
    bool size_mismatch; /* free sizes did not add up to the allocated sizes */
    char message[PLANK_ERROR_MESSAGE_SIZE];
} outcome;

typedef struct tally {
    long inputs, open_errors, read_errors, clean, size_mismatches;
} tally;

/* The levels to read at, highest first (set once in main), and what was read
 * at each. */
static pk_simd_level levels[3];
static int nlevels;
static bool quick;       /* PLANK_HOSTILE_QUICK: one lower level per input */
static long next_lower;  /* the lower level in turn, under quick */
static long level_reads[3];
static double level_seconds[3];

/* Checks the error contract for one failing call. */
static void check_error(plank_status st, const plank_error *err, const char *what, const char *label) {
    CHECK_MSG(err->code == st, "%s: %s returned %d but err.code is %d", label, what, (int)st,
              (int)err->code);
    CHECK_MSG(err->message[0] != '\0', "%s: %s failed (%s) without a message", label, what,
              plank_status_string(st));
}

static void note_failure(outcome *o, plank_status st, const plank_error *err) {
    if (!o->failed) {
        o->first = st;
        snprintf(o->message, sizeof o->message, "%s", err->message);
    }
    o->failed = true;
}

/* Upper bound on slots read from one column chunk: a hostile header may
 * claim billions of values; stop reading (not an error) past this. */
#define MAX_SLOTS_PER_CHUNK ((int64_t)4 << 20)

static void read_column(plank_reader *r, int32_t rg, int32_t col, outcome *o, const char *label) {
    plank_error err;
    plank_error_init(&err);
    plank_column_reader *cr = NULL;
    plank_status st = plank_column_reader_open(&cr, r, rg, col, &err);
    if (st != PLANK_OK) {
        check_error(st, &err, "plank_column_reader_open", label);
        CHECK(cr == NULL);
        note_failure(o, st, &err);
        return;
    }
    int64_t slots = 0;
    for (;;) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        plank_error_init(&err);
        st = plank_column_reader_read(cr, 1000, &b, &err);
        if (st != PLANK_OK) {
            check_error(st, &err, "plank_column_reader_read", label);
            note_failure(o, st, &err);
            break;
        }
        if (b.length == 0) break;
        CHECK_MSG(b.length > 0 && b.length <= 1000, "%s: batch length %" PRId64, label, b.length);
        CHECK_MSG(b.null_count >= 0 && b.null_count <= b.length, "%s: null_count %" PRId64, label,
                  b.null_count);
        /* Touch the ends of the buffers the batch claims, so an undersized
         * buffer shows up under ASan rather than passing silently. */
        volatile uint8_t sink = 0;
        if (b.validity) sink ^= b.validity[(b.length - 1) / 8];
        if (b.physical_type == PLANK_BYTE_ARRAY && b.offsets) {
            CHECK(b.offsets[0] == 0);
            int64_t end = b.offsets[b.length];
            CHECK_MSG(end >= 0, "%s: negative byte array offset", label);
            if (end > 0 && b.data) sink ^= b.data[end - 1];
        } else if (b.physical_type == PLANK_BOOLEAN && b.values) {
            sink ^= ((const uint8_t *)b.values)[(b.length - 1) / 8];
        } else if (b.value_width > 0 && b.values) {
            sink ^= ((const uint8_t *)b.values)[b.length * b.value_width - 1];
        }
        if (b.def_levels) sink ^= (uint8_t)b.def_levels[b.length - 1];
        if (b.rep_levels) sink ^= (uint8_t)b.rep_levels[b.length - 1];
        (void)sink;
        slots += b.length;
        if (slots > MAX_SLOTS_PER_CHUNK) break;
    }
    o->values += slots;
    plank_column_reader_close(cr);
}

/* Opens `data` (exactly `len` bytes) at the current PLANK_SIMD and reads
 * everything. */
static outcome run_input_once(const unsigned char *data, size_t len, const char *label) {
    outcome o;
    memset(&o, 0, sizeof o);
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (len) memcpy(copy, data, len);
    th_alloc c;
    plank_allocator alloc = th_alloc_init(&c);
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.allocator = &alloc;
    /* data/large_string_map.brotli.parquet inflates 3 KiB into a 2 GiB page;
     * the bound turns every copy of it into a quick PLANK_ERR_LIMIT. */
    opts.max_page_size = (uint64_t)64 << 20;
    plank_error err;
    plank_error_init(&err);
    plank_reader *r = NULL;
    plank_status st = plank_reader_open_memory(&r, copy, len, &opts, &err);
    if (st != PLANK_OK) {
        check_error(st, &err, "plank_reader_open_memory", label);
        CHECK(r == NULL);
        note_failure(&o, st, &err);
    } else {
        o.opened = true;
        int32_t groups = plank_reader_num_row_groups(r);
        int32_t cols = plank_reader_num_columns(r);
        for (int32_t g = 0; g < groups; g++)
            for (int32_t k = 0; k < cols; k++) read_column(r, g, k, &o, label);
        plank_reader_close(r);
    }
    CHECK_MSG(c.live_blocks == 0, "%s: %" PRId64 " blocks still allocated after close", label,
              c.live_blocks);
    /* Sizes passed to free must equal the allocated size (the allocator
     * contract: a caller's allocator may rely on them). */
    if (c.live_blocks == 0 && c.live_bytes != 0) o.size_mismatch = true;
    CHECK_MSG(c.live_blocks != 0 || c.live_bytes == 0,
              "%s: frees passed %" PRId64 " bytes fewer than allocated", label, c.live_bytes);
    free(copy);
    return o;
}

/* run_input_once at the highest level, then (if it opened) at each lower one
 * (`every_level`, or without quick) or at the next lower one in turn; the
 * lower levels must agree with the highest. Returns the highest's outcome. */
static outcome run_input(const unsigned char *data, size_t len, const char *label,
                         bool every_level) {
    outcome top;
    memset(&top, 0, sizeof top);
    int turn = 0;
    for (int i = 0; i < nlevels; i++) {
        if (i == 1 && quick && !every_level) turn = 1 + (int)(next_lower++ % (nlevels - 1));
        if (turn && i != turn) continue;
        const char *name = pk_simd_level_name(levels[i]);
        setenv("PLANK_SIMD", name, 1);
        char at[600];
        snprintf(at, sizeof at, "%s [%s]", label, name);
        clock_t t0 = clock();
        outcome o = run_input_once(data, len, at);
        level_seconds[i] += (double)(clock() - t0) / CLOCKS_PER_SEC;
        level_reads[i]++;
        if (i == 0) {
            top = o;
            if (!o.opened) break;
            continue;
        }
        CHECK_MSG(o.opened == top.opened && o.failed == top.failed &&
                      (!o.failed || o.first == top.first) && o.values == top.values,
                  "%s: %s%s, %" PRId64 " slots; at %s: %s%s, %" PRId64 " slots", at,
                  !o.opened ? "open failed" : o.failed ? "read failed: " : "read completely",
                  o.failed ? plank_status_string(o.first) : "", o.values,
                  pk_simd_level_name(levels[0]),
                  !top.opened ? "open failed" : top.failed ? "read failed: " : "read completely",
                  top.failed ? plank_status_string(top.first) : "", top.values);
    }
    return top;
}

static void count(tally *t, const outcome *o) {
    t->inputs++;
    if (o->size_mismatch) t->size_mismatches++;
    if (!o->opened) t->open_errors++;
    else if (o->failed) t->read_errors++;
    else t->clean++;
}

/* ---- files ------------------------------------------------------------------- */

typedef struct file_list {
    char **paths;
    size_t n, cap;
} file_list;

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void list_add(file_list *l, const char *p) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->paths = realloc(l->paths, l->cap * sizeof *l->paths);
        if (!l->paths) exit(2);
    }
    size_t len = strlen(p);
    l->paths[l->n] = malloc(len + 1);
    if (!l->paths[l->n]) exit(2);
    memcpy(l->paths[l->n++], p, len + 1);
}

/* Every *.parquet below dir (recursively), never *.parquet.encrypted. */
static void list_parquet(file_list *l, const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) list_parquet(l, p);
        else if (ends_with(e->d_name, ".parquet")) list_add(l, p);
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_free(file_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
}

/* xorshift64*: a fixed seed makes every run flip the same bits. */
static uint64_t next_rand(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t footer_len(const unsigned char *buf, size_t len) {
    if (len < 12) return 0;
    const unsigned char *p = buf + len - 8;
    uint32_t n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return n <= len - 12 ? n : 0;
}

static void add_offset(size_t *offs, int *n, size_t v, size_t len) {
    if (v >= len) return;
    for (int i = 0; i < *n; i++)
        if (offs[i] == v) return;
    offs[(*n)++] = v;
}

/* Truncations at ~20 offsets (inside the magic, inside the footer and its
 * length, every 1/16th), holes cut from the middle with the tail kept, and
 * seeded bit flips (half of them aimed at the footer). */
static void mutate_file(const char *path, tally *t, uint64_t *seed) {
    size_t len = 0;
    unsigned char *buf = th_read_file(path, &len);
    if (!buf) {
        CHECK_MSG(0, "cannot read %s", path);
        return;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char label[512];
    uint32_t flen = footer_len(buf, len);
    size_t foot = len > flen + 8 ? len - 8 - flen : 0; /* footer start */

    size_t offs[40];
    int n = 0;
    size_t fixed[] = {0, 1, 3, 4, 5, len - 1, len - 3, len - 4, len - 5, len - 8, len - 9};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) add_offset(offs, &n, fixed[i], len);
    add_offset(offs, &n, foot, len);
    add_offset(offs, &n, foot + flen / 2, len);
    add_offset(offs, &n, foot + 1, len);
    for (int k = 1; k < 16; k++) add_offset(offs, &n, len * (size_t)k / 16, len);
    for (int i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%s truncated to %zu of %zu", name, offs[i], len);
        outcome o = run_input(buf, offs[i], label, false);
        CHECK_MSG(!o.opened || o.failed || offs[i] >= len,
                  "%s: opened and read cleanly though the tail is gone", label);
        count(t, &o);
    }

    /* Holes: [0, cut) + the original tail (footer, length, magic). */
    unsigned char *tmp = malloc(len);
    if (!tmp) exit(2);
    size_t tail = flen + 8;
    for (int k = 1; k < 8 && tail < len; k++) {
        size_t cut = (len - tail) * (size_t)k / 8;
        memcpy(tmp, buf, cut);
        memcpy(tmp + cut, buf + len - tail, tail);
        snprintf(label, sizeof label, "%s with bytes %zu..%zu cut out", name, cut, len - tail);
        outcome o = run_input(tmp, cut + tail, label, false);
        count(t, &o);
    }

    /* Bit flips: fewer for the largest files to keep the ASan run short. */
    int flips = len > (256u << 10) ? 50 : 200;
    for (int k = 0; k < flips; k++) {
        memcpy(tmp, buf, len);
        int bits = 1 + (int)(next_rand(seed) % 4);
        for (int b = 0; b < bits; b++) {
            size_t at;
            if ((k & 1) && flen > 0) at = foot + (size_t)(next_rand(seed) % (flen + 8));
            else at = (size_t)(next_rand(seed) % len);
            tmp[at] ^= (unsigned char)(1u << (next_rand(seed) % 8));
        }
        snprintf(label, sizeof label, "%s bit-flip copy %d", name, k);
        outcome o = run_input(tmp, len, label, false);
        count(t, &o);
    }
    free(tmp);
    free(buf);
}

/* ---- bad_data expectations ------------------------------------------------------ */

typedef struct expectation {
    const char *file;
    const char *readme_phrase; /* what bad_data/README.md says about it */
    int expect;                /* 1: must fail, 0: must read completely, -1: either */
} expectation;

/* Checked against bad_data/README.md: an invalid level/value count or a
 * corrupt header makes the file unreadable even for a flat column reader;
 * unequal column sizes (41317) and repetition-level order (45185, 6229-LEVELS)
 * are only visible to record assembly, so either outcome is accepted there. */
static const expectation expectations[] = {
    {"PARQUET-1481.parquet", "schema Thrift value has been", 1},
    {"ARROW-RS-GH-6229-DICTHEADER.parquet", "dictionary page header is negative", 1},
    {"ARROW-GH-41321.parquet", "less than num_values", 1},
    {"ARROW-GH-47662.parquet", "required column contains null", 1},
    {"ARROW-GH-43605.parquet", "0 as rle bit-width", 0},
    {"ARROW-GH-41317.parquet", "not the same size", -1},
    {"ARROW-GH-45185.parquet", "start with a 1 instead of 0", -1},
    {"ARROW-RS-GH-6229-LEVELS.parquet", "insufficient", -1},
};

static const expectation *expectation_for(const char *name) {
    for (size_t i = 0; i < sizeof expectations / sizeof expectations[0]; i++)
        if (strcmp(expectations[i].file, name) == 0) return &expectations[i];
    return NULL;
}

static void bad_data(const char *testing, tally *t) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bad_data", testing);
    char readme_path[4200];
    snprintf(readme_path, sizeof readme_path, "%s/README.md", dir);
    size_t rlen = 0;
    unsigned char *readme = th_read_file(readme_path, &rlen);
    char *text = NULL;
    if (readme) {
        text = malloc(rlen + 1);
        if (!text) exit(2);
        memcpy(text, readme, rlen);
        text[rlen] = '\0';
        free(readme);
    }
    for (size_t i = 0; i < sizeof expectations / sizeof expectations[0]; i++) {
        const expectation *e = &expectations[i];
        CHECK_MSG(text && strstr(text, e->file) && strstr(text, e->readme_phrase),
                  "bad_data/README.md no longer describes %s as '%s'", e->file, e->readme_phrase);
    }
    free(text);

    file_list l = {0};
    list_parquet(&l, dir);
    qsort(l.paths, l.n, sizeof *l.paths, cmp_str);
    int seen = 0;
    for (size_t i = 0; i < l.n; i++) {
        const char *name = strrchr(l.paths[i], '/') + 1;
        size_t len = 0;
        unsigned char *buf = th_read_file(l.paths[i], &len);
        if (!buf) {
            CHECK_MSG(0, "cannot read %s", l.paths[i]);
            continue;
        }
        outcome o = run_input(buf, len, name, true);
        free(buf);
        count(t, &o);
        fprintf(stderr, "bad_data/%s: %s%s%s%s (%" PRId64 " values)\n", name,
                !o.opened ? "open failed" : o.failed ? "read failed" : "read completely",
                o.failed ? ": " : "", o.failed ? plank_status_string(o.first) : "",
                o.failed ? "" : "", o.values);
        if (o.failed) fprintf(stderr, "    message: %s\n", o.message);
        const expectation *e = expectation_for(name);
        if (!e) continue;
        seen++;
        if (e->expect == 1) {
            CHECK_MSG(o.failed, "bad_data/%s is invalid but plank read it without error", name);
            CHECK_MSG(!o.failed || o.first == PLANK_ERR_CORRUPT || o.first == PLANK_ERR_LIMIT,
                      "bad_data/%s: expected a corrupt-file error, got %s", name,
                      plank_status_string(o.first));
        } else if (e->expect == 0) {
            CHECK_MSG(!o.failed, "bad_data/%s is valid but failed: %s", name, o.message);
            CHECK_MSG(o.values == 21186, "bad_data/%s: %" PRId64 " values, want 21186 (its rows)",
                      name, o.values);
        }
    }
    CHECK_MSG(seen == (int)(sizeof expectations / sizeof expectations[0]),
              "only %d of the expected bad_data files were found", seen);
    list_free(&l);
}

int main(void) {
    const char *testing = th_testing_dir();
    if (!testing) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");

    pk_cpu cpu;
    pk_cpu_detect(&cpu); /* the highest level, capped by PLANK_SIMD */
    for (int l = (int)cpu.level; l >= (int)PK_SIMD_SCALAR; l--) levels[nlevels++] = (pk_simd_level)l;
    const char *q = getenv("PLANK_HOSTILE_QUICK");
    quick = q && *q && strcmp(q, "0") != 0;

    tally bad = {0}, mutated = {0};
    bad_data(testing, &bad);

    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", testing);
    file_list l = {0};
    list_parquet(&l, dir);
    qsort(l.paths, l.n, sizeof *l.paths, cmp_str);
    CHECK_MSG(l.n >= 50, "only %zu data files found", l.n);
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    bool verbose = getenv("PLANK_HOSTILE_VERBOSE") != NULL;
    for (size_t i = 0; i < l.n; i++) {
        clock_t t0 = clock();
        mutate_file(l.paths[i], &mutated, &seed);
        if (verbose)
            fprintf(stderr, "%6.2fs %s\n", (double)(clock() - t0) / CLOCKS_PER_SEC, l.paths[i]);
    }
    list_free(&l);

    fprintf(stderr,
            "bad_data: %ld files: %ld open errors, %ld read errors, %ld read completely\n"
            "mutated copies of %s/data: %ld inputs: %ld open errors, %ld read errors, "
            "%ld read completely\n",
            bad.inputs, bad.open_errors, bad.read_errors, bad.clean, testing, mutated.inputs,
            mutated.open_errors, mutated.read_errors, mutated.clean);
    fprintf(stderr, "inputs read at each level%s:", quick ? " (quick: one lower level each)" : "");
    for (int i = 0; i < nlevels; i++)
        fprintf(stderr, " %s %ld (%.1f s)", pk_simd_level_name(levels[i]), level_reads[i],
                level_seconds[i]);
    fprintf(stderr, "\n");
    TEST_END();
}
