/*
 * gen_variant_cases.c OUT.parquet DIR: wraps the variant binaries of the
 * parquet-testing corpus (DIR/NAME.metadata + DIR/NAME.value pairs, which
 * are not Parquet files) into one Parquet file with plank's writer, one row
 * per case in name order: `name` (STRING) and `v`, an OPTIONAL group
 * annotated VARIANT(1) of `required binary metadata` and `required binary
 * value`, the bytes as the corpus has them. tests/peer/variant_corpus.mjs
 * then reads the file with `plank cat` and DuckDB and compares both with the
 * corpus's data_dictionary.json. A last row with a null `v` checks the null
 * group.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/NAME.EXT, whole. */
static unsigned char *slurp(const char *dir, const char *name, const char *ext, size_t *len) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    return th_read_file(path, len);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gen_variant_cases OUT.parquet DIR\n");
        return 2;
    }
    DIR *d = opendir(argv[2]);
    if (!d) {
        fprintf(stderr, "gen_variant_cases: cannot open %s\n", argv[2]);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 9 || strcmp(e->d_name + l - 9, ".metadata") != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names) return 1;
        }
        names[n] = strndup(e->d_name, l - 9);
        if (!names[n]) return 1;
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    size_t rows = n + 1;

    plank_schema_field f[5];
    for (int i = 0; i < 5; i++) plank_schema_field_init(&f[i]);
    f[0].name = "schema";
    f[0].num_children = 2;
    f[1].name = "name";
    f[1].physical_type = PLANK_BYTE_ARRAY;
    f[1].logical.kind = PLANK_LOGICAL_STRING;
    f[2].name = "v";
    f[2].repetition = PLANK_OPTIONAL;
    f[2].num_children = 2;
    f[2].logical.kind = PLANK_LOGICAL_VARIANT;
    f[2].logical.variant_version = 1;
    f[3].name = "metadata";
    f[3].physical_type = PLANK_BYTE_ARRAY;
    f[4].name = "value";
    f[4].physical_type = PLANK_BYTE_ARRAY;

    /* Column slots, one per row: name, metadata and value (empty and
     * definition level 0 in the row whose v is null). */
    int64_t *offs[3];
    unsigned char *data[3] = {NULL, NULL, NULL};
    size_t dlen[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++) offs[c] = calloc(rows + 1, sizeof(int64_t));
    int16_t *def = calloc(rows, sizeof *def);
    for (size_t r = 0; r < rows; r++) {
        const char *nm = r < n ? names[r] : "null_group";
        size_t ml = 0, vl = 0;
        unsigned char *m = NULL, *v = NULL;
        if (r < n) {
            m = slurp(argv[2], names[r], ".metadata", &ml);
            v = slurp(argv[2], names[r], ".value", &vl);
            if (!m || !v) {
                fprintf(stderr, "gen_variant_cases: cannot read case %s\n", names[r]);
                return 1;
            }
        }
        const unsigned char *src[3] = {(const unsigned char *)nm, m, v};
        size_t len[3] = {strlen(nm), ml, vl};
        for (int c = 0; c < 3; c++) {
            if (c == 0 || r < n) {
                data[c] = realloc(data[c], dlen[c] + len[c] + 1);
                memcpy(data[c] + dlen[c], src[c], len[c]);
                dlen[c] += len[c];
            }
            offs[c][r + 1] = (int64_t)dlen[c]; /* a null slot: an empty range */
        }
        def[r] = r < n ? 1 : 0;
        free(m);
        free(v);
    }
    plank_writer_options o;
    plank_writer_options_init(&o);
    plank_writer *w;
    plank_error err;
    if (plank_writer_open_path(&w, argv[1], f, 5, &o, &err) != PLANK_OK) {
        fprintf(stderr, "gen_variant_cases: %s\n", err.message);
        return 1;
    }
    plank_batch b[3];
    for (int c = 0; c < 3; c++) {
        memset(&b[c], 0, sizeof b[c]);
        b[c].struct_size = sizeof b[c];
        b[c].length = (int64_t)rows;
        b[c].physical_type = PLANK_BYTE_ARRAY;
        b[c].offsets = offs[c];
        b[c].data = data[c];
        if (c > 0) b[c].def_levels = def;
    }
    if (plank_writer_write_rows(w, b, (int64_t)rows, &err) != PLANK_OK ||
        plank_writer_close(w, &err) != PLANK_OK) {
        fprintf(stderr, "gen_variant_cases: %s\n", err.message);
        return 1;
    }
    for (int c = 0; c < 3; c++) {
        free(offs[c]);
        free(data[c]);
    }
    free(def);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    printf("%zu cases\n", n);
    return 0;
}
