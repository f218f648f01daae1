/*
 * pk_write.h: internals of the writer (pk_writer.c: files, schema, row
 * groups, footer; pk_colwrite.c: one column chunk, its pages, page index
 * and bloom filter; pk_wstats.c: min/max in each type's sort order;
 * pk_geostats.c: GeospatialStatistics from WKB values).
 *
 * How data flows: plank_writer_write_column hands slots [begin, end) of a
 * caller's batch to the column writer, which stages the levels (int16) and
 * the non-null values densely (pk_values layout) for the current page. A
 * page is cut before a slot that starts a record once the staged PLAIN size
 * reaches page_size or the page holds page_rows records, so every page (v1
 * and v2) starts at a record boundary. Cutting a page computes its
 * statistics from the dense values, dictionary-encodes them (or encodes them
 * with the fallback encoding), encodes the levels, compresses, and appends
 * header + payload to the chunk's page buffer. The dictionary page is
 * written in front of the pages when the row group is flushed. Memory is
 * therefore bounded by one row group's encoded pages plus one page.
 *
 * Depends on: common, thrift, codec, encoding, simd.
 */
#ifndef PK_WRITE_H
#define PK_WRITE_H

#include "../codec/pk_codec.h"
#include "../common/pk_common.h"
#include "../encoding/pk_bloom.h"
#include "../encoding/pk_encoder.h"
#include "../encoding/pk_encoding.h"
#include "../simd/pk_kernels.h"
#include "../thrift/pk_thrift.h"

/* ---- Statistics (pk_wstats.c) ------------------------------------------------ */

typedef enum pk_sort_kind {
    PK_SORT_NONE = 0,   /* undefined order (INT96, INTERVAL, UNKNOWN): no min/max */
    PK_SORT_BOOL,
    PK_SORT_I32,
    PK_SORT_U32,
    PK_SORT_I64,
    PK_SORT_U64,
    PK_SORT_FLOAT,
    PK_SORT_DOUBLE,
    PK_SORT_FLOAT16,    /* FLBA(2) FLOAT16 */
    PK_SORT_BYTES,      /* unsigned lexicographic (BYTE_ARRAY, FLBA) */
    PK_SORT_DECIMAL_BE  /* signed big-endian two's complement (DECIMAL on BYTE_ARRAY/FLBA) */
} pk_sort_kind;

/* The sort order of a leaf as the format's ColumnOrder TYPE_DEFINED_ORDER
 * defines it. */
pk_sort_kind pk_sort_kind_of(const plank_schema_node *leaf);

/* Running min/max of one page or chunk, as PLAIN bytes (BYTE_ARRAY without
 * length prefix), untruncated. */
typedef struct pk_minmax {
    bool has;              /* at least one value that orders (not NaN) */
    pk_buffer min, max;
} pk_minmax;

void pk_minmax_init(pk_minmax *m, const plank_allocator *a);
void pk_minmax_release(pk_minmax *m);
void pk_minmax_clear(pk_minmax *m);
/* Folds the values of v into m; integers and floats through the min/max
 * kernels of k (NULL: the scalar loops). A zero float bound is kept as the
 * statistics store it (-0.0 min, +0.0 max). */
plank_status pk_minmax_update(pk_minmax *m, pk_sort_kind kind, const pk_values *v,
                              const pk_kernels *k, plank_error *err);
/* Folds the entries sel[0..n) of a dictionary (pk_dict_builder_entries)
 * into m: a dictionary-encoded page's min/max from its distinct values. */
plank_status pk_minmax_update_entries(pk_minmax *m, pk_sort_kind kind, const pk_values *entries,
                                      const uint32_t *sel, size_t n, plank_error *err);
/* Folds another min/max (e.g. a page's into the chunk's). */
/* Offers lo and hi (already the smallest and largest) of a PK_SORT_I32 or
 * PK_SORT_I64 column. */
plank_status pk_minmax_offer_int(pk_minmax *m, pk_sort_kind kind, int64_t lo, int64_t hi,
                                 plank_error *err);
plank_status pk_minmax_merge(pk_minmax *m, pk_sort_kind kind, const pk_minmax *o,
                             plank_error *err);
/* Compares two PLAIN values of the kind: <0, 0, >0. */
int pk_value_compare(pk_sort_kind kind, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen);
/* The min/max to store: floats with a zero min as -0 and a zero max as +0;
 * byte strings longer than max_size truncated (min to a prefix, max to a
 * prefix incremented past every longer string; UTF-8 strings cut at
 * character boundaries and incremented by code point). Results are copied
 * into arena. *exact tells whether each stored value is the true one. */
plank_status pk_minmax_finish(const pk_minmax *m, pk_sort_kind kind, bool is_utf8,
                              int32_t max_size, pk_arena *arena, const uint8_t **min,
                              uint32_t *min_len, bool *min_exact, const uint8_t **max,
                              uint32_t *max_len, bool *max_exact, plank_error *err);

/* ---- Geospatial statistics (pk_geostats.c) ------------------------------------ */

/* The running GeospatialStatistics of a GEOMETRY/GEOGRAPHY chunk. */
typedef struct pk_geo_acc {
    bool invalid;           /* some value was not valid WKB: statistics omitted */
    uint32_t types;         /* bit dim * 7 + kind - 1 per ISO code seen (dim 0..3) */
    double min[4], max[4];  /* x y z m; +inf / -inf while a dimension has no value */
    /* GEOGRAPHY with spherical edges (pk_geo_init): the box on the sphere */
    bool spherical;
    double lat_lo, lat_hi;  /* degrees; +inf / -inf while empty */
    double lon_lo, lon_hi;  /* arc of the circle, lon_lo > lon_hi wraps */
    bool lon_empty;
} pk_geo_acc;

/* Resets g for a column of logical type lt: GEOGRAPHY whose edge algorithm
 * is absent or SPHERICAL gets a spherical box, GEOMETRY a planar one. */
void pk_geo_init(pk_geo_acc *g, const plank_logical_type *lt);
/* Empties g for the next chunk (keeps what pk_geo_init chose). */
void pk_geo_reset(pk_geo_acc *g);
/* Folds the WKB values of v (BYTE_ARRAY) into g. */
void pk_geo_update(pk_geo_acc *g, const pk_values *v);
/* The statistics to store: false when they are to be omitted (invalid WKB;
 * *st tells an allocation failure apart). bbox false leaves the planar box
 * out (GEOGRAPHY); a spherical accumulator writes its box regardless. Type codes sorted ascending, in arena. */
bool pk_geo_finish(const pk_geo_acc *g, bool bbox, pk_arena *arena,
                   plank_geospatial_statistics *out, plank_error *err, plank_status *st);

/* ---- Column writer (pk_colwrite.c) ------------------------------------------- */

/* Options resolved for one column. */
typedef struct pk_col_opts {
    plank_codec codec;
    int32_t codec_level;
    int32_t page_version;
    int32_t format_version;
    int64_t page_size;
    int64_t page_rows;
    bool dictionary;
    int64_t dictionary_page_size;
    bool dictionary_sample;   /* judge a chunk's first page on a sample (cut_page) */
    double v2_min_saving;     /* plank_writer_options.v2_min_saving */
    plank_encoding encoding;  /* data pages without (or after) the dictionary */
    bool statistics;
    bool page_index;
    bool size_statistics;
    bool crc;
    int32_t max_statistics_size;
    bool bloom;
    double bloom_fpp;
    int64_t bloom_ndv;
} pk_col_opts;

/* One page's entry of the page index. */
typedef struct pk_page_entry {
    int64_t offset;            /* relative to the chunk's first data page */
    int32_t size;              /* header + payload */
    int64_t first_row;
    int64_t null_count;
    bool null_page;            /* no non-null value (the ColumnIndex's null_pages) */
    bool no_bounds;            /* non-null values, all NaN: no min/max */
    int64_t unencoded_bytes;   /* BYTE_ARRAY bytes of the page's values */
    size_t minmax_at;          /* min then max (untruncated) in the chunk's page_minmax */
    uint32_t min_len, max_len;
} pk_page_entry;

typedef struct pk_colw {
    const plank_allocator *alloc;
    const pk_kernels *kernels;
    const plank_schema_node *node;
    int32_t column;
    plank_physical_type type;
    int32_t width;              /* staged bytes per value (BOOLEAN 1, BYTE_ARRAY 0) */
    int16_t max_def, max_rep;
    pk_sort_kind sort;
    bool is_utf8;
    bool geo;                   /* GEOMETRY/GEOGRAPHY with statistics: geo_acc kept */
    pk_geo_acc geo_acc;
    pk_col_opts o;

    /* ---- the page being staged ---- */
    pk_buffer def, rep;         /* int16 levels */
    pk_buffer vals;             /* fixed: n * width; BYTE_ARRAY: bytes */
    pk_buffer offs;             /* BYTE_ARRAY: int64 offsets, n + 1 */
    int64_t p_slots, p_values, p_rows;
    bool page_full;             /* cut before the next record start */
    const uint8_t *direct;      /* the current page's fixed-width values read in place from
                                   the caller's batch (instead of `vals`), or NULL */
    const int64_t *direct_offs; /* the current page's byte strings read in place: offsets */
    const uint8_t *direct_data; /*   (n + 1, the first may be > 0) and bytes, or NULL */
    bool direct_padded;         /*   16 bytes readable from every value's start */
    pk_buffer doffs;            /* direct optional byte strings: their offsets in the batch */
    bool in_record;             /* the last slot appended may continue */

    /* ---- the chunk (row group) ---- */
    pk_dict_builder dict;
    bool dict_on;               /* pages are dictionary encoded (not fallen back) */
    bool dict_used;             /* some page of the chunk used the dictionary */
    int64_t dict_pages;         /* dictionary-encoded pages of the chunk so far */
    pk_chain pages;             /* data pages: headers + payloads */
    pk_buffer dpage;            /* the dictionary page (header + body), made by pk_colw_finish */
    int64_t dpage_uncompressed; /* its header + uncompressed body */
    bool finished;              /* pk_colw_finish ran for this chunk */
    pk_buffer idx;              /* scratch: dictionary indices */
    pk_buffer seen, sel;        /* scratch: dictionary entries used by a page */
    pk_buffer enc, lv, comp;    /* scratch: values, levels, compressed */
    pk_compressor zc;           /* codec state reused across pages */
    int64_t c_values, c_rows, c_nulls, c_uncompressed;
    int32_t c_pages_dict, c_pages_data; /* encoding stats counts */
    bool enc_seen[10];          /* encodings used in data pages */
    int32_t enc_pages[10];
    pk_minmax c_mm;
    pk_minmax p_mm;
    pk_buffer page_minmax;      /* per page: min bytes, max bytes */
    pk_buffer page_entries;     /* pk_page_entry */
    int64_t c_unencoded;
    int64_t *def_hist, *rep_hist; /* max level + 1 each (NULL when the level is 0) */
    pk_buffer p_def_hist, p_rep_hist; /* per page histograms, page-major */
    /* distinct value hashes for the bloom filter (open addressing, 0 = empty
     * and hash 0 stored as a flag) */
    uint64_t *bloom_set;
    size_t bloom_cap, bloom_count;
    bool bloom_has_zero;
} pk_colw;

plank_status pk_colw_init(pk_colw *c, const plank_schema_node *node, const pk_col_opts *o,
                          const plank_allocator *alloc, const pk_kernels *k, plank_error *err);
void pk_colw_release(pk_colw *c);
/* Appends slots [begin, end) of b. Levels were validated by the caller. */
plank_status pk_colw_append(pk_colw *c, const plank_batch *b, int64_t begin, int64_t end,
                            plank_error *err);
/* Staged bytes plus encoded pages: what the row group holds in memory. */
size_t pk_colw_buffered(const pk_colw *c);

/* Where a flushed chunk went, for the footer. */
typedef struct pk_chunk_out {
    int64_t start;              /* offset of the first page (dictionary or data) */
    int64_t dict_offset;        /* -1 without dictionary page */
    int64_t data_offset;
    int64_t compressed, uncompressed;
} pk_chunk_out;

/* The writer's output: bytes written so far and where they go. */
typedef struct pk_out {
    plank_status (*write)(void *opaque, const void *buf, size_t len);
    void *opaque;
    int64_t pos;
} pk_out;

plank_status pk_out_write(pk_out *o, const void *buf, size_t len, plank_error *err);

/* Cuts the chunk's last page and makes its dictionary page: the CPU work of
 * ending a chunk, which the writer runs for its columns in parallel before
 * writing them in order. Once per chunk (later calls do nothing until the
 * chunk is flushed). */
plank_status pk_colw_finish(pk_colw *c, plank_error *err);

/* pk_colw_finish if not done, writes dictionary page + data pages to out, then the
 * bloom filter (right after the chunk), and fills cc (column metadata,
 * statistics, size statistics; allocations in arena). The page index is
 * serialized into ci/oi buffers with offsets absolute; cc's
 * column_index_offset/offset_index_offset are set relative to the start of
 * ci/oi (the writer adds where it writes them). Resets the chunk state. */
plank_status pk_colw_flush(pk_colw *c, pk_out *out, pk_arena *arena,
                           plank_column_chunk_info *cc, pk_buffer *ci, pk_buffer *oi,
                           plank_error *err);

/* The writer's allocator (for modules that write through it, e.g. the Arrow
 * import's scratch buffers). */
const plank_allocator *pk_writer_allocator(const plank_writer *w);

#endif /* PK_WRITE_H */
