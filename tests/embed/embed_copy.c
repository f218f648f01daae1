/* embed_copy.c: compiled once per copy of plank with -DPLANK_NAMESPACE=<NS>
 * (from the copy's library target) and -DEMBED_ENTRY=embed_copy_<NS>: every
 * plank_ call below goes to <NS>_plank_..., the symbols of that copy only.
 *
 * The file: EMBED_ROWS rows in row groups of EMBED_GROUP_ROWS, pages of at
 * most 500 rows; id INT64 (required), score INT32 (optional, null every
 * fifth row), name BYTE_ARRAY UTF8 (required, dictionary encoded), and the
 * key-value pair embed.writer = <NS>. */
#include <plank.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"

#define EMBED_STR_(x) #x
#define EMBED_STR(x) EMBED_STR_(x)
#define EMBED_ROWS 5000
#define EMBED_GROUP_ROWS 2000

static int64_t id_of(int64_t row) { return row * 7 - 3000; }
static int score_null(int64_t row) { return row % 5 == 0; }
static int32_t score_of(int64_t row) { return (int32_t)(row * 3 + 1); }
static int name_of(int64_t row, char *buf, size_t size) {
    return snprintf(buf, size, "row-%d", (int)(row % 97));
}

static int report(const char *what, plank_status st, const plank_error *err) {
    fprintf(stderr, "embed copy %s: %s: %s: %s\n", EMBED_STR(PLANK_NAMESPACE), what,
            plank_status_string(st), err->message);
    return 1;
}

static int write_file(const char *path) {
    enum { N = EMBED_ROWS };
    int64_t *ids = malloc(N * sizeof *ids);
    int32_t *scores = malloc(N * sizeof *scores);
    uint8_t *validity = calloc((N + 7) / 8, 1);
    int64_t *offsets = malloc((N + 1) * sizeof *offsets);
    char *names = malloc((size_t)N * 16);
    int rc = 1;
    if (!ids || !scores || !validity || !offsets || !names)
        goto done;
    offsets[0] = 0;
    for (int64_t i = 0; i < N; i++) {
        ids[i] = id_of(i);
        scores[i] = score_null(i) ? 0 : score_of(i);
        if (!score_null(i))
            validity[i / 8] |= (uint8_t)(1u << (i % 8));
        offsets[i + 1] = offsets[i] + name_of(i, names + offsets[i], 16);
    }

    plank_schema_field fields[4];
    for (int i = 0; i < 4; i++)
        plank_schema_field_init(&fields[i]);
    fields[0].num_children = 3;
    fields[1].name = "id";
    fields[1].physical_type = PLANK_INT64;
    fields[2].name = "score";
    fields[2].physical_type = PLANK_INT32;
    fields[2].repetition = PLANK_OPTIONAL;
    fields[3].name = "name";
    fields[3].physical_type = PLANK_BYTE_ARRAY;
    fields[3].logical.kind = PLANK_LOGICAL_STRING;

    plank_key_value kv = {"embed.writer", EMBED_STR(PLANK_NAMESPACE)};
    plank_writer_options opts;
    plank_writer_options_init(&opts);
    opts.row_group_rows = EMBED_GROUP_ROWS;
    opts.page_rows = 500;
    opts.key_values = &kv;
    opts.num_key_values = 1;

    plank_batch cols[3];
    memset(cols, 0, sizeof cols);
    for (int i = 0; i < 3; i++) {
        cols[i].struct_size = sizeof cols[i];
        cols[i].length = N;
    }
    cols[0].values = ids;
    cols[1].values = scores;
    cols[1].validity = validity;
    cols[2].offsets = offsets;
    cols[2].data = (const uint8_t *)names;

    plank_error err;
    plank_error_init(&err);
    plank_writer *w = NULL;
    plank_status st = plank_writer_open_path(&w, path, fields, 4, &opts, &err);
    if (st != PLANK_OK) {
        report("open the writer", st, &err);
        goto done;
    }
    st = plank_writer_write_rows(w, cols, N, &err);
    if (st != PLANK_OK) {
        report("write rows", st, &err);
        plank_writer_abort(w);
        goto done;
    }
    st = plank_writer_close(w, &err);
    if (st != PLANK_OK) {
        report("close the writer", st, &err);
        goto done;
    }
    rc = 0;
done:
    free(ids);
    free(scores);
    free(validity);
    free(offsets);
    free(names);
    return rc;
}

static int check_file(const char *path, const char *writer) {
    plank_error err;
    plank_error_init(&err);
    plank_reader *r = NULL;
    plank_status st = plank_reader_open_path(&r, path, NULL, &err);
    if (st != PLANK_OK)
        return report("open the reader", st, &err);
    int bad = 0;
    if (plank_reader_num_rows(r) != EMBED_ROWS || plank_reader_num_columns(r) != 3 ||
        plank_reader_num_row_groups(r) != (EMBED_ROWS + EMBED_GROUP_ROWS - 1) / EMBED_GROUP_ROWS) {
        fprintf(stderr, "embed copy %s: %s: %lld rows, %d columns, %d row groups\n",
                EMBED_STR(PLANK_NAMESPACE), path, (long long)plank_reader_num_rows(r),
                (int)plank_reader_num_columns(r), (int)plank_reader_num_row_groups(r));
        bad++;
    }
    const char *key = NULL, *value = NULL;
    if (plank_reader_num_key_values(r) >= 1)
        plank_reader_key_value(r, 0, &key, &value);
    if (!key || strcmp(key, "embed.writer") != 0 || !value || strcmp(value, writer) != 0) {
        fprintf(stderr, "embed copy %s: %s: embed.writer is %s, expected %s\n",
                EMBED_STR(PLANK_NAMESPACE), path, value ? value : "(none)", writer);
        bad++;
    }

    int64_t first = 0;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r) && !bad; g++) {
        int64_t done[3] = {0, 0, 0};
        for (int32_t c = 0; c < 3 && !bad; c++) {
            plank_column_reader *cr = NULL;
            st = plank_column_reader_open(&cr, r, g, c, &err);
            if (st != PLANK_OK) {
                bad += report("open a column reader", st, &err);
                break;
            }
            for (;;) {
                plank_batch b;
                memset(&b, 0, sizeof b);
                b.struct_size = sizeof b;
                st = plank_column_reader_read(cr, 300, &b, &err);
                if (st != PLANK_OK) {
                    bad += report("read", st, &err);
                    break;
                }
                if (b.length == 0)
                    break;
                for (int64_t k = 0; k < b.length && bad < 10; k++) {
                    int64_t row = first + done[c] + k;
                    int valid = !b.validity || (b.validity[k / 8] >> (k % 8) & 1);
                    char want[16];
                    int want_len = name_of(row, want, sizeof want);
                    int ok;
                    if (c == 0)
                        ok = valid && ((const int64_t *)b.values)[k] == id_of(row);
                    else if (c == 1)
                        ok = score_null(row) ? !valid
                                             : valid && ((const int32_t *)b.values)[k] == score_of(row);
                    else
                        ok = valid && b.offsets[k + 1] - b.offsets[k] == want_len &&
                             memcmp(b.data + b.offsets[k], want, (size_t)want_len) == 0;
                    if (!ok) {
                        fprintf(stderr, "embed copy %s: %s: column %d row %lld differs\n",
                                EMBED_STR(PLANK_NAMESPACE), path, (int)c, (long long)row);
                        bad++;
                    }
                }
                done[c] += b.length;
            }
            plank_column_reader_close(cr);
        }
        plank_row_group_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        st = plank_reader_row_group(r, g, &info, &err);
        if (st != PLANK_OK) {
            bad += report("row group metadata", st, &err);
            break;
        }
        for (int c = 0; c < 3 && !bad; c++) {
            if (done[c] != info.num_rows) {
                fprintf(stderr, "embed copy %s: %s: row group %d column %d: %lld of %lld rows\n",
                        EMBED_STR(PLANK_NAMESPACE), path, (int)g, c, (long long)done[c],
                        (long long)info.num_rows);
                bad++;
            }
        }
        first += info.num_rows;
    }
    if (!bad && first != EMBED_ROWS) {
        fprintf(stderr, "embed copy %s: %s: read %lld rows\n", EMBED_STR(PLANK_NAMESPACE), path,
                (long long)first);
        bad++;
    }
    plank_reader_close(r);
    return bad;
}

const embed_copy *EMBED_ENTRY(void) {
    static embed_copy copy;
    copy.name = EMBED_STR(PLANK_NAMESPACE);
    copy.version_number = plank_version_number();
    copy.header_version = PLANK_VERSION_NUMBER;
    copy.open_function = (void (*)(void))plank_reader_open_path;
    copy.write_file = write_file;
    copy.check_file = check_file;
    return &copy;
}
