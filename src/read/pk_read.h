/*
 * pk_read.h: internals shared by the file reader (pk_reader.c) and the column
 * chunk reader (pk_column.c).
 *
 * Depends on: common, thrift, codec, encoding, simd.
 */
#ifndef PK_READ_H
#define PK_READ_H

#include "../codec/pk_codec.h"
#include "../common/pk_common.h"
#include "../encoding/pk_encoding.h"
#include "../simd/pk_kernels.h"
#include "../thrift/pk_thrift.h"

#define PK_DEFAULT_MAX_FOOTER (256u << 20)
/* Page sizes are i32 in the format; the default accepts every page a valid
 * file can hold (large_string_map.brotli.parquet has a 1 GiB page). */
#define PK_DEFAULT_MAX_PAGE ((uint64_t)INT32_MAX)
/* A valid dictionary page (at most 2 GiB - 1 bytes) decodes to at most
 * about 6 GiB (8-byte offsets per 4-byte length prefix): the default admits
 * every valid file; the page-size checks already stop lying headers. */
#define PK_DEFAULT_MAX_DICTIONARY ((uint64_t)6 << 30)
#define PK_DEFAULT_MAX_COLUMNS 1000000
#define PK_DEFAULT_MAX_ROW_GROUPS 1000000
#define PK_DEFAULT_MAX_CHUNK_BUFFER ((uint64_t)2 << 30)

struct plank_reader {
    plank_allocator alloc; /* copy of the caller's (or the default) */
    plank_source src;
    bool src_open;         /* src.close still to be called */
    const uint8_t *mem;    /* whole file when the source is a memory buffer */
    bool verify_checksums;
    uint64_t max_page_size;
    uint64_t max_dictionary_size;
    uint64_t max_chunk_buffer;
    uint64_t file_size;
    uint32_t footer_len;
    pk_file_metadata md;
    bool md_loaded;
    pk_arena arena;        /* schema nodes, paths, selection */
    int32_t num_nodes;
    plank_schema_node *nodes;
    int32_t num_columns;
    int32_t *leaf_nodes;   /* leaf column -> node index */
    bool *selected;        /* per leaf column */
    const pk_kernels *kernels; /* chosen once at open (CPU, PLANK_SIMD, PLANK_SIMD_MAX) */
};

/* Reads len bytes at offset from the source, checking the range. */
plank_status pk_reader_read_at(const plank_reader *r, uint64_t offset, void *buf, size_t len,
                               plank_error *err);

/* Dictionary mode of a BYTE_ARRAY column reader (the Arrow export's
 * dictionary arrays). Off by default; set before the first read. In this mode
 * a batch's `values` hold one int32 per slot (value_width 4): -1 for a null
 * slot, i < D for entry i of the chunk's dictionary (pk_column_reader_dict,
 * D = its count, 0 without one), D + j for the j-th value of the batch
 * decoded from a non-dictionary (fallback) page, whose bytes are given by
 * `offsets` (fallback count + 1 entries) and `data`. Dictionary pages are
 * never gathered: their indices are range-checked against D and passed on.
 * Fails with PLANK_ERR_LIMIT when D plus a batch's fallback values pass
 * INT32_MAX. */
void pk_column_reader_set_dict_mode(plank_column_reader *cr, bool on);
/* The chunk's decoded dictionary once the first page was read; NULL when the
 * chunk has none (or nothing was read yet). Owned by the column reader. */
const pk_dict *pk_column_reader_dict(const plank_column_reader *cr);
/* Fallback values in the last batch (dictionary mode). */
int64_t pk_column_reader_fallback_count(const plank_column_reader *cr);

/* View mode (the Arrow export's zero copy). Off by default. In this mode a
 * read never spans pages (it returns at most the rest of the current page,
 * or the start of the next), and a batch whose slots are all non-null and
 * come from a PLAIN fixed-width page stored in place (not compressed) has
 * `values` pointing into the chunk's bytes instead of the reader's buffer.
 * Those bytes stay valid until the reader is closed, and beyond it for any
 * owner that retained the chunk block. */
void pk_column_reader_set_view_mode(plank_column_reader *cr, bool on);
/* Whether the last batch's values point into the chunk (view mode); *owner
 * then receives the refcounted chunk block to retain, or NULL when the chunk
 * is the caller's memory (plank_reader_open_memory), which nothing owns. */
bool pk_column_reader_batch_view(const plank_column_reader *cr, pk_shared **owner);
/* Whether the next read starts a new page (the last one ended the page). */
bool pk_column_reader_at_page_end(const plank_column_reader *cr);

#endif /* PK_READ_H */
