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
#include "../remote/pk_remote.h"
#include "../thrift/pk_thrift.h"

#include <stdatomic.h>

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
#define PK_DEFAULT_READ_WINDOW ((uint64_t)256 << 10)

struct plank_reader {
    plank_allocator alloc; /* copy of the caller's (or the default) */
    /* The column readers' buffers (windows, batches) come from this cache
     * over alloc: a column reader per chunk would otherwise allocate and
     * free them per chunk, and the system's malloc returns such blocks to
     * the kernel and page-faults them in again (pk_bufpool.c). */
    pk_bufpool *pool;
    plank_allocator pool_alloc; /* the pool's allocator */
    atomic_int refs;       /* the caller's, plus one per stream that uses the reader */
    plank_source src;
    bool src_open;         /* src.close still to be called */
    const uint8_t *mem;    /* whole file when the source is a memory buffer or a mapping */
    pk_shared *map;        /* the file mapping (options.memory_map), which arrays may hold */
    bool verify_checksums;
    uint64_t max_page_size;
    uint64_t max_dictionary_size;
    uint64_t max_chunk_buffer;
    uint64_t read_window;     /* plank_reader_options.read_window */
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
    /* plank's own source (a path or memory) and allocator: both thread-safe,
     * so parallel reads may use them unasked (plank_arrow_options.threads 0) */
    bool default_alloc, own_source;
    /* a remote file (plank_reader_open_url): read through pk_remote, which
     * takes prefetch hints and reports request counts */
    struct pk_remote *remote;
    /* the source takes prefetch hints (a remote file, or a caller's source
     * with a prefetch callback): streams and scans announce their ranges */
    bool hints;
    /* other sources: their read calls and bytes (plank_reader_io_stats) */
    atomic_uint_fast64_t io_reads, io_bytes;
};

/* The threads a parallel read over r uses for options o (threads, executor):
 * 1 means a serial read. */
int32_t pk_reader_read_threads(const plank_reader *r, const plank_arrow_options *o);

/* A reference on the reader for an object that outlives the caller's
 * plank_reader_close (an Arrow stream); pk_reader_release drops it and
 * frees the reader with the last one. */
/* A mapped file (memory_map): makes the page-table entries of bytes
 * [p, p + len) of the mapping in one call, as a page is about to be
 * decoded, instead of a fault every few pages as the decoder reaches them
 * (the faults were a quarter of a scan's time on large uncompressed
 * chunks). Nothing for other readers; best effort (an older kernel
 * refuses the advice). */
void pk_reader_map_populate(const plank_reader *r, const uint8_t *p, size_t len);
void pk_reader_retain(plank_reader *r);
void pk_reader_release(plank_reader *r);

/* Announces byte ranges the caller is about to read (a remote file fetches
 * them ahead, merged and in parallel); nothing for local sources. */
void pk_reader_prefetch(const plank_reader *r, const pk_byte_range *ranges, size_t n);
/* The byte range of column chunk (g, c) as the column reader reads it;
 * false when the footer's offsets are unusable (the read reports why). */
bool pk_reader_chunk_range(const plank_reader *r, int32_t g, int32_t c, uint64_t *start,
                           uint64_t *len);

/* Reads len bytes at offset from the source, checking the range. */
plank_status pk_reader_read_at(const plank_reader *r, uint64_t offset, void *buf, size_t len,
                               plank_error *err);
/* The chunk whose page index or bloom filter is asked for (pk_page_index.c):
 * a non-NULL reader, existing row group and column, neither encrypted nor in
 * another file; else the status with a message. */
plank_status pk_index_chunk(const plank_reader *r, int32_t g, int32_t c,
                            const plank_column_chunk_info **cc, plank_error *err);

/* Where pk_column_reader_read_dest puts the slots of one read: the caller's
 * buffers, resized by the reader, so that a reader of Arrow arrays decodes
 * straight into the buffers an array then owns (one copy of each value from
 * the page). Slot i of the read is:
 *  - validity (required when the column's max definition level is above 0):
 *    bit i set when the slot is non-null;
 *  - def / rep (NULL: not wanted): the slot's levels, when the max level > 0;
 *  - fixed width: values holds width bytes per slot (nulls zeroed); BOOLEAN:
 *    values is a bitmap; dictionary mode (not BOOLEAN): values holds one
 *    int32 per slot as in pk_column_reader_set_dict_mode, with null_index for
 *    null slots, fallback bytes in data (BYTE_ARRAY: with fb_n + 1 int64
 *    offsets; fixed width: fb_n values of the column's width);
 *  - BYTE_ARRAY: offsets holds offset_width-byte (4 or 8) offsets into data,
 *    offsets[0] == 0, null slots empty. 32-bit offsets past INT32_MAX bytes
 *    fail with PLANK_ERR_LIMIT.
 * With view_ok, a read whose slots are all non-null and come from one PLAIN
 * fixed-width page stored in place (page_stop: reads end at page ends; else
 * the read must be that page's slots entirely) leaves values alone and sets
 * view to the bytes in the chunk (pk_column_reader_chunk_owner owns them). */
/* Converts n fixed-width values at src (the column's physical width) into
 * dst (the caller's width a value). */
typedef plank_status (*pk_convert_fn)(const void *ctx, const uint8_t *src, int64_t n,
                                      uint8_t *dst, plank_error *err);

typedef struct pk_read_dest {
    pk_buffer *validity, *def, *rep, *values, *offsets, *data;
    int32_t offset_width;
    int32_t null_index;
    bool dict_mode;
    bool view_ok, page_stop;
    int32_t view_align;  /* a view's address must be a multiple of it (0, 1: any) */
    /* NULL, or where dictionary mode logs the RLE runs of codes of the read's
     * slots (pk_column_reader_set_run_log); emptied by the read. */
    pk_buffer *runs;
    /* NULL, or the slots whose values the caller needs: slot i of the read
     * is bit live_base + i (pk_column_reader_set_live); the others may be
     * left zero (byte arrays: empty). */
    const uint8_t *live;
    int64_t live_base;
    /* NULL, or the slots to keep: slot i of the read is bit keep_base + i, and
     * only the kept slots are written, densely from the start of the buffers
     * (`kept` of them; `length` still counts the slots read). Flat required
     * columns only (no levels, no validity), without a selection or a run log;
     * never a view. The scan's stream reads a batch of short runs this way. */
    const uint8_t *keep;
    int64_t keep_base;
    /* NULL, or how fixed-width values become the caller's layout (the Arrow
     * stream's decimal128, INT96 timestamps, narrowed integers): values then
     * holds out_width bytes a slot, null slots zero. A whole read converts
     * them as they are decoded (from a PLAIN page, or per block of a cached
     * buffer); other reads (selections, keep, live, bounds) convert after. */
    pk_convert_fn convert;
    const void *convert_ctx;
    int32_t out_width;
    /* filled by the read */
    int64_t length, null_count, fb_n, kept;
    const uint8_t *view;
    int64_t capacity;   /* slots the buffers were sized for */
    bool values_ready;
} pk_read_dest;

/* Reads up to max_values selected slots (fewer only at the end of the
 * chunk or the selection, or at a page end with page_stop). */
plank_status pk_column_reader_read_dest(plank_column_reader *cr, int64_t max_values,
                                        pk_read_dest *d, plank_error *err);
/* Moves the reader to another row group's chunk of the same column,
 * keeping its buffers, decompression contexts and modes (the selection is
 * cleared). The chunk buffer is reused unless an array still holds it. */
plank_status pk_column_reader_reopen(plank_column_reader *cr, int32_t row_group,
                                     plank_error *err);
/* The refcounted block holding the chunk's bytes; NULL for memory readers. */
pk_shared *pk_column_reader_chunk_owner(const plank_column_reader *cr);
/* Rows left in the current (or next) page when it is a PLAIN fixed-width
 * page stored in place, flat and without a selection; 0 otherwise (a view
 * candidate for the stream's zero copy). */
plank_status pk_column_reader_view_rows(plank_column_reader *cr, int64_t *rows,
                                        plank_error *err);
/* Level entries left to read (an upper bound with a selection). */
int64_t pk_column_reader_rows_left(const plank_column_reader *cr);

/* What the reader did, for tests: pages whose body was decoded (dictionary
 * included), of those the compressed ones that were decompressed, data pages
 * passed over by their header alone, dictionaries loaded, bytes read from
 * the source. */
typedef struct pk_column_counters {
    int64_t pages_decoded, pages_decompressed, pages_skipped, dictionaries;
    int64_t bytes_fetched; /* chunk bytes read from the source */
    int64_t values_bound_skipped; /* values passed over by pk_column_reader_set_bound */
} pk_column_counters;
void pk_column_reader_counters(const plank_column_reader *cr, pk_column_counters *out);

/* Dictionary mode of a column reader of any type but BOOLEAN (the Arrow
 * export's dictionary arrays; the scan's filters on codes). Off by default;
 * set before the first read. In this mode a batch's `values` hold one int32
 * per slot (value_width 4): -1 for a null slot, i < D for entry i of the
 * chunk's dictionary (pk_column_reader_dict, D = its count, 0 without one),
 * D + j for the j-th value of the batch decoded from a non-dictionary
 * (fallback) page. A fallback value's bytes: BYTE_ARRAY, given by `offsets`
 * (fallback count + 1 entries) and `data`; fixed width, the column's width
 * bytes at data + j * width (`offsets` NULL). Dictionary pages are never
 * gathered: their indices are range-checked against D and passed on.
 * Fails with PLANK_ERR_LIMIT when D plus a batch's fallback values pass
 * INT32_MAX. */
void pk_column_reader_set_dict_mode(plank_column_reader *cr, bool on);
/* A source that takes hints: appends to l the byte ranges the reader will
 * fetch for its chunk, its selection applied (the whole chunk, or the fetch
 * blocks of its page headers and selected pages), to announce with
 * pk_reader_prefetch; nothing for other sources or a chunk already
 * fetched. */
void pk_column_reader_fetch_ranges(const plank_column_reader *cr, pk_range_list *l);
/* The chunk's decoded dictionary once the first page was read; NULL when the
 * chunk has none (or nothing was read yet). Owned by the column reader. */
const pk_dict *pk_column_reader_dict(const plank_column_reader *cr);
/* Fallback values in the last batch (dictionary mode). */
int64_t pk_column_reader_fallback_count(const plank_column_reader *cr);
/* Runs of codes shorter than this are not logged: below it, looking each
 * code up costs less than cutting the batch around the run. */
#define PK_RUN_LOG_MIN 64
/* For the next read only: its slot i is needed only when bit base + i of
 * live is set (values without nulls: dictionary pages of fixed-width
 * values then gather only those, the others are zero; DELTA_BINARY_PACKED
 * pages decode only the blocks that hold one, the others' slots zero;
 * DELTA_BYTE_ARRAY pages build only those, the others are empty). live must stay valid, and
 * readable 8 bytes past its bits, until that read returns. */
void pk_column_reader_set_live(plank_column_reader *cr, const uint8_t *live, int64_t base);
/* For the next read only: only slot i with bit base + i of keep set is read
 * out, densely from the start of the batch (pk_read_dest.keep: flat
 * required columns without a selection or dictionary mode); the batch's
 * length is the number kept, pk_column_reader_slots the number of slots
 * read. keep must stay valid, and readable 8 bytes past its bits, until
 * that read returns. */
void pk_column_reader_set_keep(plank_column_reader *cr, const uint8_t *keep, int64_t base);
int64_t pk_column_reader_slots(const plank_column_reader *cr);
/* For the reads until it is turned off (INT32 and INT64 columns; off by
 * default): the caller drops every row whose value lies outside [lo, hi]
 * (inclusive, signed), so a DELTA_BINARY_PACKED run whose range (from its
 * first value, min delta and bit width) lies outside is passed over without
 * its running sum, its slots holding another value outside the interval
 * (pk_decoder_get_fixed_bounded; counted in values_bound_skipped). The
 * values inside are exact. Not for dictionary mode or a column a caller
 * reads for its values. */
void pk_column_reader_set_bound(plank_column_reader *cr, bool on, int64_t lo, int64_t hi);
/* Dictionary mode: with the log on (off by default), each batch also tells
 * where its codes come from one RLE run of a dictionary page: the slots
 * [first, first + count) of a run all hold the same code, first and count
 * multiples of 8, count >= PK_RUN_LOG_MIN. Runs of pages with null slots,
 * and of reads that gather a sparse selection, are not logged (the log is
 * a hint: an unlogged run is just codes). */
void pk_column_reader_set_run_log(plank_column_reader *cr, bool on);
/* The last batch's logged runs: *n pairs (first, count), ascending. */
const int64_t *pk_column_reader_runs(const plank_column_reader *cr, int64_t *n);

/* View mode (the Arrow export's zero copy). Off by default. In this mode a
 * read never spans pages (it returns at most the rest of the current page,
 * or the start of the next), and a batch whose slots are all non-null and
 * come from a PLAIN fixed-width page stored in place (not compressed) has
 * `values` pointing into the chunk's bytes instead of the reader's buffer.
 * Those bytes stay valid until the reader is closed, and beyond it for any
 * owner that retained the chunk block. */
void pk_column_reader_set_view_mode(plank_column_reader *cr, bool on);
/* plank_column_reader_open with every allocation of the reader through `a`
 * (copied; it must outlive the reader and what it hands out): a stream's
 * buffer pool, so that decompression buffers, dictionaries and chunk
 * buffers of one row group are the next one's, on any thread. */
plank_status pk_column_reader_open_alloc(plank_column_reader **out, plank_reader *r, int32_t g,
                                         int32_t c, const plank_allocator *a, plank_error *err);
/* Whether the last batch's values point into the chunk (view mode); *owner
 * then receives the refcounted chunk block to retain, or NULL when the chunk
 * is the caller's memory (plank_reader_open_memory), which nothing owns. */
bool pk_column_reader_batch_view(const plank_column_reader *cr, pk_shared **owner);
/* Whether the next read starts a new page (the last one ended the page). */
bool pk_column_reader_at_page_end(const plank_column_reader *cr);

/* plank_row_ranges_from_bitmap (arguments checked by the caller) given the
 * number of runs of set bits, from a count_runs kernel: one pass over the
 * bitmap instead of two. A count that does not match fails
 * (PLANK_ERR_INVALID_ARGUMENT) without writing past the array. */
plank_status pk_row_ranges_counted(const uint8_t *bits, int64_t n, int64_t first_row,
                                   int64_t runs, const plank_allocator *a,
                                   plank_row_range **ranges, int64_t *num_ranges,
                                   plank_error *err);

/* A walk over sorted, disjoint row ranges rr that holds at least `left`
 * more rows from (*ri, *row): moves past the ranges already finished and
 * returns how many of the next `left` rows follow *row in one run (the
 * caller then advances *row by what it takes). */
static inline int64_t pk_range_step(const plank_row_range *rr, int64_t *ri, int64_t *row,
                                    int64_t left) {
    while (*row >= rr[*ri].first + rr[*ri].count) {
        (*ri)++;
        *row = rr[*ri].first;
    }
    int64_t m = rr[*ri].first + rr[*ri].count - *row;
    return m < left ? m : left;
}

#endif /* PK_READ_H */
