/*
 * gen_names_times.c DIR: the files of tests/peer/names_times.mjs, written
 * with plank's writer:
 *  - DIR/time_range.parquet: TIME(MILLIS) on INT32 and TIME(MICROS) on INT64
 *    with values outside [00:00, 24:00] (negative millis as parquet-mr
 *    writes them, a day and more, the INT32 extremes);
 *  - DIR/names.parquet: top-level INT32 columns whose names repeat, differ
 *    only in case or collide with a renamed one; the columns named "Z" are
 *    renamed to "" by the test, in the footer (the writer refuses empty
 *    names), as a file of another writer could have them.
 */
#include <stdio.h>
#include <string.h>

#include "plank.h"

#define N 12

static int write_names(const char *dir) {
    static const char *const names[] = {"a", "a", "A", "a_1", "Z", "a", "B", "Z", "b", "A_2"};
    enum { NC = (int)(sizeof names / sizeof names[0]) };
    plank_schema_field f[NC + 1];
    for (int i = 0; i <= NC; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = NC;
    for (int i = 0; i < NC; i++) {
        f[i + 1].name = names[i];
        f[i + 1].physical_type = PLANK_INT32;
        f[i + 1].repetition = PLANK_OPTIONAL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/names.parquet", dir);
    plank_error err;
    plank_writer *w;
    plank_status st = plank_writer_open_path(&w, path, f, NC + 1, NULL, &err);
    if (st == PLANK_OK) {
        for (int c = 0; c < NC && st == PLANK_OK; c++) {
            int32_t v[3] = {100 * c, 100 * c + 1, 100 * c + 2};
            uint8_t valid = (uint8_t)(c % 2 ? 5 : 7); /* odd columns: row 1 null */
            plank_batch b;
            memset(&b, 0, sizeof b);
            b.struct_size = sizeof b;
            b.length = 3;
            b.values = v;
            b.validity = &valid;
            st = plank_writer_write_column(w, c, &b, &err);
        }
        plank_status cst = plank_writer_close(w, st == PLANK_OK ? &err : NULL);
        if (st == PLANK_OK) st = cst;
    }
    if (st != PLANK_OK) {
        fprintf(stderr, "gen_names_times: %s: %s\n", path, err.message);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gen_names_times DIR\n");
        return 2;
    }
    static const int32_t ms[N] = {-1000,     86400000 + 5, -86400000 * 2 - 1, 0,
                                  86400000,  1,            -1,                INT32_MAX,
                                  INT32_MIN, 90061001,     86399999,          -86400000};
    int64_t us[N];
    for (int i = 0; i < N; i++) us[i] = (int64_t)ms[i] * 1000 + (i % 3) - 1;
    plank_schema_field f[3];
    for (int i = 0; i < 3; i++) plank_schema_field_init(&f[i]);
    f[0].num_children = 2;
    f[1].name = "t_ms";
    f[1].physical_type = PLANK_INT32;
    f[1].logical.kind = PLANK_LOGICAL_TIME;
    f[1].logical.unit = PLANK_UNIT_MILLIS;
    f[2].name = "t_us";
    f[2].physical_type = PLANK_INT64;
    f[2].logical.kind = PLANK_LOGICAL_TIME;
    f[2].logical.unit = PLANK_UNIT_MICROS;
    char path[4096];
    snprintf(path, sizeof path, "%s/time_range.parquet", argv[1]);
    plank_error err;
    plank_writer *w;
    plank_status st = plank_writer_open_path(&w, path, f, 3, NULL, &err);
    if (st == PLANK_OK) {
        plank_batch b;
        memset(&b, 0, sizeof b);
        b.struct_size = sizeof b;
        b.length = N;
        b.values = ms;
        st = plank_writer_write_column(w, 0, &b, &err);
        b.values = us;
        if (st == PLANK_OK) st = plank_writer_write_column(w, 1, &b, &err);
        plank_status cst = plank_writer_close(w, st == PLANK_OK ? &err : NULL);
        if (st == PLANK_OK) st = cst;
    }
    if (st != PLANK_OK) {
        fprintf(stderr, "gen_names_times: %s: %s\n", path, err.message);
        return 1;
    }
    return write_names(argv[1]);
}
