/*
 * pk_struct.h: the struct-size convention of plank.h (see its Conventions).
 *
 * Every extensible public struct begins with `size_t struct_size`. Each one
 * has a table of its published layouts here: the end of the fields each
 * layout holds, oldest first. A caller's struct_size selects the newest
 * layout it covers and exactly that many bytes are read or written. Going by
 * field ends rather than sizeof matters once a struct grows: an older
 * layout's tail padding may hold a newer field, and bytes copied from there
 * would be garbage in that field.
 *
 * Adding fields to one of these structs: append them, declare the first one
 * PLANK_LAYOUT_START (plank.h), and append PK_FIELDS_END(type, last_field)
 * to the struct's table in pk_struct.c. PLANK_LAYOUT_START aligns the new
 * field to max_align_t, which puts it at or past the older layout's sizeof:
 * without it, a new field can land in the older layout's tail padding,
 * where sizeof does not change and old and new callers would pass the same
 * struct_size.
 */
#ifndef PK_STRUCT_H
#define PK_STRUCT_H

#include <stddef.h>

#include "plank.h"

#define PK_FIELDS_END(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

typedef struct pk_layouts {
    const char *name;   /* "plank_reader_options": named in error messages */
    size_t size;        /* sizeof in this build */
    const size_t *ends; /* field ends of each published layout, ascending */
    int num;
} pk_layouts;

extern const pk_layouts pk_layout_reader_options;
extern const pk_layouts pk_layout_writer_options;
extern const pk_layouts pk_layout_arrow_options;
extern const pk_layouts pk_layout_executor;
extern const pk_layouts pk_layout_dataset_options;
extern const pk_layouts pk_layout_dataset_scan_options;
extern const pk_layouts pk_layout_dataset_stats;
extern const pk_layouts pk_layout_split;
extern const pk_layouts pk_layout_remote_options;
extern const pk_layouts pk_layout_io_stats;
extern const pk_layouts pk_layout_scan_options;
extern const pk_layouts pk_layout_scan_stats;
extern const pk_layouts pk_layout_tpch_options;
extern const pk_layouts pk_layout_column_options;
extern const pk_layouts pk_layout_schema_field;
extern const pk_layouts pk_layout_source;
extern const pk_layouts pk_layout_sink;
extern const pk_layouts pk_layout_row_group_info;
extern const pk_layouts pk_layout_column_chunk_info;
extern const pk_layouts pk_layout_batch;

/* The bytes of the caller's struct the library may touch: the field end of
 * the newest layout that `struct_size` covers, or 0 when it covers none
 * (struct_size 0 or too small: the caller did not set it). */
size_t pk_struct_extent(const pk_layouts *l, size_t struct_size);

/* Reads the caller's struct `src` into `dst` (l->size bytes, already holding
 * the defaults): only the fields its struct_size holds; dst->struct_size
 * becomes l->size. PLANK_ERR_INVALID_ARGUMENT naming the struct when
 * src->struct_size covers no layout. */
plank_status pk_struct_read(void *dst, const void *src, const pk_layouts *l, plank_error *err);

/* Writes the library's full struct `src` into the caller's `dst`: only the
 * fields dst->struct_size holds, and not struct_size itself. Same error. */
plank_status pk_struct_write(void *dst, const void *src, const pk_layouts *l, plank_error *err);

/* The stride of a caller's array of such structs: the first element's
 * struct_size, which every element must carry. n may be 0 (stride 0). */
plank_status pk_struct_stride(const void *array, int64_t n, const pk_layouts *l, size_t *stride,
                              plank_error *err);

/* The i-th element of a caller's array of stride `stride`. */
static inline const void *pk_struct_at(const void *array, size_t stride, int64_t i) {
    return (const char *)array + stride * (size_t)i;
}

#endif
