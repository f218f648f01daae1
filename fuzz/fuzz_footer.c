/*
 * fuzz_footer.c: the Thrift FileMetaData decoder, then the reader's schema
 * and row-group checks over the same bytes.
 *
 * Input: the footer bytes (a serialized FileMetaData). They are decoded
 * directly with pk_thrift_read_file_metadata, and also wrapped into a
 * minimal file ("PAR1" footer length "PAR1") opened through
 * plank_reader_open_memory, whose metadata accessors are then walked.
 */
#include "fuzz_common.h"
#include "thrift/pk_thrift.h"

static void walk_reader(plank_reader *r) {
    char buf[128];
    int32_t nodes = plank_reader_num_schema_nodes(r);
    for (int32_t i = 0; i < nodes; i++) {
        const plank_schema_node *n = plank_reader_schema_node(r, i);
        plank_logical_type_format(&n->logical, buf, sizeof buf);
        if (n->column >= 0 && plank_reader_find_column(r, n->path) < 0) abort();
    }
    for (int32_t i = 0; i < plank_reader_num_key_values(r); i++) {
        const char *k, *v;
        plank_reader_key_value(r, i, &k, &v);
    }
    plank_error err;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++) {
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        if (plank_reader_row_group(r, g, &info, &err) != PLANK_OK) abort();
        for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
            plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
            if (plank_reader_column_chunk(r, g, c, &cc, &err) != PLANK_OK) abort();
            /* The column reader must refuse cleanly: chunk ranges point
             * outside this tiny file (or the chunk is empty). */
            plank_column_reader *cr = NULL;
            plank_status st = plank_column_reader_open(&cr, r, g, c, &err);
            fz_check_error(st, &err);
            if (st == PLANK_OK) {
                plank_batch b = {.struct_size = sizeof(plank_batch)};
                st = plank_column_reader_read(cr, 64, &b, &err);
                fz_check_error(st, &err);
                plank_column_reader_close(cr);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pk_file_metadata md;
    plank_error err;
    plank_error_init(&err);
    plank_status st = pk_thrift_read_file_metadata(data, size, &fz_allocator, &md, &err);
    fz_check_error(st, &err);
    if (st == PLANK_OK) pk_file_metadata_free(&md);

    if (size > (1u << 24)) return 0;
    size_t n = size + 12;
    uint8_t *file = malloc(n);
    if (!file) return 0;
    memcpy(file, "PAR1", 4);
    if (size) memcpy(file + 4, data, size);
    uint32_t len = (uint32_t)size;
    memcpy(file + 4 + size, &len, 4); /* little-endian hosts only, as plank */
    memcpy(file + 8 + size, "PAR1", 4);
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.allocator = &fz_allocator;
    plank_reader *r = NULL;
    st = plank_reader_open_memory(&r, file, n, &opts, &err);
    fz_check_error(st, &err);
    if (st == PLANK_OK) {
        walk_reader(r);
        plank_reader_close(r);
    }
    free(file);
    return 0;
}
