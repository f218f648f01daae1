/*
 * pk_struct.c: the published layouts of plank.h's extensible structs, and
 * the struct-size reads and writes of pk_struct.h.
 */
#include "../common/pk_struct.h"

#include <string.h>

#include "pk_common.h"

/* One entry per published layout, oldest first. Version 0.1 is the first
 * layout of every struct; a field appended later adds an entry. */
#define PK_LAYOUT(var, type, ...)                                                   \
    static const size_t var##_ends[] = {__VA_ARGS__};                               \
    const pk_layouts pk_layout_##var = {#type, sizeof(type), var##_ends,            \
                                        (int)(sizeof var##_ends / sizeof var##_ends[0])}

PK_LAYOUT(reader_options, plank_reader_options, PK_FIELDS_END(plank_reader_options, memory_map),
          PK_FIELDS_END(plank_reader_options, read_window));
PK_LAYOUT(writer_options, plank_writer_options,
          PK_FIELDS_END(plank_writer_options, num_column_options),
          PK_FIELDS_END(plank_writer_options, threads),
          PK_FIELDS_END(plank_writer_options, dictionary_sample),
          PK_FIELDS_END(plank_writer_options, v2_min_saving));
PK_LAYOUT(arrow_options, plank_arrow_options, PK_FIELDS_END(plank_arrow_options, large_offsets),
          PK_FIELDS_END(plank_arrow_options, variant_shredded),
          PK_FIELDS_END(plank_arrow_options, executor));
PK_LAYOUT(executor, plank_executor, PK_FIELDS_END(plank_executor, wait));
PK_LAYOUT(dataset_options, plank_dataset_options, PK_FIELDS_END(plank_dataset_options, remote),
          PK_FIELDS_END(plank_dataset_options, max_directories));
PK_LAYOUT(dataset_scan_options, plank_dataset_scan_options,
          PK_FIELDS_END(plank_dataset_scan_options, split));
PK_LAYOUT(dataset_stats, plank_dataset_stats, PK_FIELDS_END(plank_dataset_stats, scan));
PK_LAYOUT(split, plank_split, PK_FIELDS_END(plank_split, bytes));
PK_LAYOUT(remote_options, plank_remote_options,
          PK_FIELDS_END(plank_remote_options, stall_timeout_ms));
PK_LAYOUT(io_stats, plank_io_stats, PK_FIELDS_END(plank_io_stats, bytes_prefetched));
PK_LAYOUT(scan_options, plank_scan_options, PK_FIELDS_END(plank_scan_options, num_row_groups));
PK_LAYOUT(scan_stats, plank_scan_stats,
          PK_FIELDS_END(plank_scan_stats, dictionary_entries_evaluated),
          PK_FIELDS_END(plank_scan_stats, row_groups_masked),
          PK_FIELDS_END(plank_scan_stats, values_skipped_delta));
PK_LAYOUT(tpch_options, plank_tpch_options, PK_FIELDS_END(plank_tpch_options, progress_opaque));
PK_LAYOUT(column_options, plank_column_options, PK_FIELDS_END(plank_column_options, bloom_ndv));
PK_LAYOUT(schema_field, plank_schema_field, PK_FIELDS_END(plank_schema_field, field_id));
PK_LAYOUT(source, plank_source, PK_FIELDS_END(plank_source, opaque),
          PK_FIELDS_END(plank_source, prefetch));
PK_LAYOUT(sink, plank_sink, PK_FIELDS_END(plank_sink, opaque));
PK_LAYOUT(row_group_info, plank_row_group_info,
          PK_FIELDS_END(plank_row_group_info, sorting_columns));
PK_LAYOUT(column_chunk_info, plank_column_chunk_info,
          PK_FIELDS_END(plank_column_chunk_info, encrypted),
          PK_FIELDS_END(plank_column_chunk_info, geospatial_statistics));
PK_LAYOUT(batch, plank_batch, PK_FIELDS_END(plank_batch, value_width));

size_t pk_struct_extent(const pk_layouts *l, size_t struct_size) {
    size_t e = 0;
    for (int i = 0; i < l->num && l->ends[i] <= struct_size; i++) e = l->ends[i];
    return e;
}

static plank_status bad_size(const pk_layouts *l, size_t n, plank_error *err) {
    return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                        "%s.struct_size is %zu: set it to sizeof(%s) (an _init function "
                        "does it for options)",
                        l->name, n, l->name);
}

plank_status pk_struct_read(void *dst, const void *src, const pk_layouts *l, plank_error *err) {
    size_t n;
    memcpy(&n, src, sizeof n);
    size_t e = pk_struct_extent(l, n);
    if (e == 0) return bad_size(l, n, err);
    memcpy(dst, src, e);
    memcpy(dst, &l->size, sizeof l->size);
    return PLANK_OK;
}

plank_status pk_struct_write(void *dst, const void *src, const pk_layouts *l, plank_error *err) {
    size_t n;
    memcpy(&n, dst, sizeof n);
    size_t e = pk_struct_extent(l, n);
    if (e == 0) return bad_size(l, n, err);
    memcpy((char *)dst + sizeof n, (const char *)src + sizeof n, e - sizeof n);
    return PLANK_OK;
}

plank_status pk_struct_stride(const void *array, int64_t n, const pk_layouts *l, size_t *stride,
                              plank_error *err) {
    *stride = 0;
    if (n <= 0) return PLANK_OK;
    size_t s;
    memcpy(&s, array, sizeof s);
    if (pk_struct_extent(l, s) == 0) return bad_size(l, s, err);
    for (int64_t i = 1; i < n; i++) {
        size_t si;
        memcpy(&si, (const char *)array + s * (size_t)i, sizeof si);
        PK_RETURN_IF(si != s, err, PLANK_ERR_INVALID_ARGUMENT,
                     "%s[%lld].struct_size is %zu, element 0's is %zu: every element of the "
                     "array must have the same",
                     l->name, (long long)i, si, s);
    }
    *stride = s;
    return PLANK_OK;
}
