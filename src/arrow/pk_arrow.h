/*
 * pk_arrow.h: internals of the Arrow export (schema mapping, record
 * assembly, the ArrowArrayStream).
 *
 * The Parquet schema is first mapped to a tree of pk_anode, one per Arrow
 * field, which records everything the assembler needs: the Arrow format, how
 * leaf values are converted, and the levels that drive assembly. Every node
 * has
 *  - entry_rep/entry_def: a level entry p of any leaf below the node starts
 *    one value of the node iff rep[p] <= entry_rep and def[p] >= entry_def
 *    (the levels of the innermost enclosing list element; 0/0 at top level),
 *  - def: the value is non-null iff def[p] >= def,
 *  - list and map nodes also child_rep/child_def, the entry levels of their
 *    elements (the repeated node's levels).
 * Offsets of a list come from counting element starts between list starts in
 * one leaf's levels; every child then recounts its own starts in its own
 * leaf and must agree, so a file whose columns disagree is refused instead of
 * producing inconsistent arrays.
 *
 * Depends on: common, read, variant.
 */
#ifndef PK_ARROW_H
#define PK_ARROW_H

#include "../read/pk_read.h"

typedef enum pk_anode_kind {
    PK_AN_LEAF = 0,
    PK_AN_STRUCT,
    PK_AN_LIST,
    PK_AN_MAP
} pk_anode_kind;

/* How a leaf's slot values become Arrow values. */
typedef enum pk_conv {
    PK_CONV_COPY = 0, /* fixed width, same bytes (slot width == out width) */
    PK_CONV_BOOL,     /* bitmap */
    PK_CONV_BINARY,   /* int32 offsets + data */
    PK_CONV_I8,       /* INT32 narrowed to 1 byte */
    PK_CONV_I16,      /* INT32 narrowed to 2 bytes */
    PK_CONV_INT96_NS, /* INT96 to int64 nanoseconds since the epoch */
    PK_CONV_DEC_I32,  /* INT32 unscaled to decimal128/256 */
    PK_CONV_DEC_I64,  /* INT64 unscaled to decimal128/256 */
    PK_CONV_DEC_BE,   /* big-endian FLBA / BYTE_ARRAY to decimal128/256 */
    PK_CONV_NULL      /* UNKNOWN logical type: Arrow null, no buffers */
} pk_conv;

typedef struct pk_anode {
    pk_anode_kind kind;
    const char *name;
    const plank_schema_node *pn; /* node giving field id (leaf: the leaf) */
    bool nullable;
    int16_t def;
    int16_t entry_rep, entry_def;
    int16_t child_rep, child_def; /* LIST, MAP */
    int32_t num_children;
    struct pk_anode **children;
    int32_t leaf;                 /* index in the tree's leaves of the first leaf below */
    /* leaves */
    char format[32];
    pk_conv conv;
    int32_t out_width;            /* bytes per Arrow value (fixed width) */
    bool uuid;                    /* arrow.uuid extension metadata */
    /* 64-bit offsets: a BYTE_ARRAY leaf exported as "U"/"Z", a list as "+L". */
    bool large;
    /* Leaf: some enclosing list keeps int32 offsets, so the leaf's slots in
     * one batch must stay <= INT32_MAX. */
    bool under_small_list;
    /* BYTE_ARRAY leaf exported as a dictionary array (options.dictionary_arrays):
     * int32 indices ("i") with `format` as the dictionary's value type. */
    bool dict;
    /* VARIANT groups exported as the arrow.parquet.variant extension type:
     * with their storage as is (PK_VARIANT_STORAGE), or reassembled from
     * their shredded columns into struct<metadata, value> by
     * pk_arrow_unshred (PK_VARIANT_UNSHRED; the schema's two children are
     * vchildren, binary with 64-bit offsets when vlarge). */
    uint8_t variant;
    bool vlarge;
    struct pk_anode *vchildren[2];
} pk_anode;

enum { PK_VARIANT_NONE = 0, PK_VARIANT_STORAGE = 1, PK_VARIANT_UNSHRED = 2 };

typedef struct pk_atree {
    pk_arena arena;               /* every node, name and array below */
    pk_anode *root;               /* "+s" over the top-level fields */
    int32_t num_leaves;
    int32_t *leaf_columns;        /* leaf index -> leaf column */
    pk_anode **leaf_nodes;        /* leaf index -> node */
    bool has_unshred;             /* some node is PK_VARIANT_UNSHRED */
} pk_atree;

/* Maps the reader's selected columns to the Arrow tree. The offset width
 * is decided here, before any data is read, from the column chunks of the
 * row groups `rgs` (NULL: all): a BYTE_ARRAY leaf whose chunk's
 * total_uncompressed_size exceeds the threshold in some row group gets
 * large offsets ("U"/"Z"), and so does every list ("+L") with a leaf below
 * whose chunk's num_values exceeds it. The threshold is INT32_MAX, or -1
 * (every one large) with options.large_offsets. The decision is a bound from the
 * metadata, not a guarantee: dictionary or DELTA_BYTE_ARRAY chunks can decode
 * to more bytes than they hold, so 32-bit columns keep the batch-halving
 * check of the stream. mask (per leaf column; NULL: the reader's selection)
 * says which leaves the tree holds; they must be selected in the reader. */
/* The caller's options (NULL: defaults) in this build's layout. */
plank_status pk_arrow_options_load(plank_arrow_options *o, const plank_arrow_options *given,
                                   plank_error *err);

plank_status pk_atree_build(const plank_reader *r, const plank_arrow_options *o, const int32_t *rgs,
                            int32_t nrg, const bool *mask, pk_atree *t, plank_error *err);
void pk_atree_free(pk_atree *t);
/* Exports the tree (or a subtree) as an ArrowSchema owning its strings. */
plank_status pk_atree_export_schema(const pk_atree *t, const plank_allocator *a,
                                    struct ArrowSchema *out, plank_error *err);

/* The pending level entries of one leaf column, read ahead of the batch
 * being built so that a batch can end on a record boundary. */
typedef struct pk_leaf_buf {
    int64_t n;          /* slots pending */
    int64_t starts;     /* record starts (rep == 0) among them */
    bool eof;           /* the column chunk has no more slots */
    pk_buffer def, rep; /* int16 per slot (only when the max level > 0) */
    pk_buffer vals;     /* fixed: width per slot; BOOLEAN: 1 byte per slot; BYTE_ARRAY: data */
    pk_buffer offs;     /* BYTE_ARRAY: n + 1 int64 offsets into vals */
    /* Dictionary leaves (pk_anode.dict): idx holds one int32 per slot as the
     * column reader's dictionary mode gives it (pk_read.h): -1 null, < base
     * an entry of `dict`, base + j the j-th pending fallback value, whose
     * bytes are vals[offs[j] .. offs[j + 1]) (fb_n values, fb_n + 1 offsets). */
    pk_buffer idx;
    int64_t fb_n;
    int64_t base;
    const pk_dict *dict; /* owned by the leaf's column reader; NULL: none */
    /* Zero copy: zc_align is the alignment a value pointer needs (0: the
     * leaf is never zero-copy). While view is set, the n pending values
     * are the n * width bytes at view, inside a page of the column chunk,
     * and vals is empty. `owner` is the refcounted block holding them (NULL
     * for the caller's memory), on which the leaf holds a reference: the
     * column reader moves on through its chunk and reuses only the buffers
     * that nothing else holds. */
    int32_t zc_align;
    const uint8_t *view;
    pk_shared *owner;
} pk_leaf_buf;

/* One batch of whole records being assembled: the leading `slots[i]`
 * entries of each leaf buffer. */
typedef struct pk_batch_view {
    const pk_atree *t;
    const plank_reader *r;
    pk_leaf_buf *leaves;
    const int64_t *slots;
    plank_allocator alloc;
    /* Per leaf: an array already built for the batch (release != NULL), moved
     * into place instead of assembled; NULL: none. */
    struct ArrowArray *pre;
} pk_batch_view;

/* Assembles `rows` records into a struct ArrowArray (the root). */
plank_status pk_assemble(const pk_batch_view *v, int64_t rows, struct ArrowArray *out,
                         plank_error *err);

/* Replaces, in an assembled batch (root: the tree's root struct), every
 * PK_VARIANT_UNSHRED node's array by the reassembled struct<metadata,
 * value>. first_row names rows in messages (the batch's first row in its
 * row group). */
plank_status pk_arrow_unshred(const pk_atree *t, struct ArrowArray *root, int64_t first_row,
                              plank_error *err);

/* ---- Arrays (pk_arrow_array.c) ---- */

/* Sets up out with its private block: n_children child structs (built by
 * the caller, n_children raised as they are), one spare struct for a
 * dictionary, buffers NULL. */
plank_status pk_array_new(const plank_allocator *a, struct ArrowArray *out, int64_t length,
                          int64_t n_buffers, int64_t n_children, plank_error *err);
/* The allocator the array frees with. */
const plank_allocator *pk_array_allocator(struct ArrowArray *arr);
/* The struct an array's dictionary goes in (owned by the array's block). */
struct ArrowArray *pk_array_dictionary_slot(struct ArrowArray *arr);
/* Allocates buffer i (zeroed, at least 16 bytes so it is never NULL). */
void *pk_array_buffer(struct ArrowArray *arr, int i, size_t n, plank_error *err);
/* The same, not zeroed: for a buffer the caller writes whole. */
void *pk_array_buffer_uninit(struct ArrowArray *arr, int i, size_t n, plank_error *err);
/* Buffer i becomes b's memory, which the array now owns (b is left empty,
 * reusable); b must use the array's allocator. */
plank_status pk_array_adopt(struct ArrowArray *arr, int i, pk_buffer *b, plank_error *err);
/* Buffer i points at p, kept alive by one reference on owner (NULL: the
 * caller's memory, nothing to hold); chunk marks a zero-copy value buffer.
 * An array holds at most one such owner. */
void pk_array_borrow(struct ArrowArray *arr, int i, const void *p, pk_shared *owner,
                     bool chunk);
void pk_array_drop_buffer(struct ArrowArray *arr, int i);
/* Buffer i when the array owns it (writable), else NULL. */
void *pk_array_owned(struct ArrowArray *arr, int i);

/* Converts n fixed-width slot values of sw bytes at src into n Arrow
 * values of w bytes at dst (I8, I16, INT96_NS, DEC_I32, DEC_I64, DEC_BE of
 * FIXED_LEN_BYTE_ARRAY); a big-endian decimal too wide for w is
 * PLANK_ERR_CORRUPT. */
plank_status pk_convert_fixed(pk_conv conv, const uint8_t *src, int32_t sw, int64_t n,
                              uint8_t *dst, int32_t w, plank_error *err);

/* ---- Flat leaves decoded straight into arrays (pk_arrow_flat.c) ---- */

/* The state a flat leaf keeps over the batches of one chunk: the chunk's
 * dictionary in Arrow layout, shared by the batches that use only it. */
typedef struct pk_flat_leaf {
    pk_shared *dict_block;
    int64_t dict_len;
    size_t dict_off_bytes;
    pk_buffer conv;      /* converted leaves: the page values before conversion */
    double bytes_per_row; /* string bytes per row of the last batch (0: none yet) */
} pk_flat_leaf;

void pk_flat_leaf_init(pk_flat_leaf *fl, const plank_allocator *a);
/* Frees everything. */
void pk_flat_leaf_free(pk_flat_leaf *fl);
/* Drops the chunk's state (a new row group). */
void pk_flat_leaf_reset(pk_flat_leaf *fl);
/* Whether the leaf is read this way: no list or struct above it, and values
 * that are the page's (same width, bitmap, binary, or dictionary indices). */
bool pk_flat_leaf_eligible(const pk_anode *an);
/* Reads `rows` records of the leaf into out (exactly that many, else
 * PLANK_ERR_CORRUPT). view_align > 0: the values may point into the chunk
 * (zero copy) when one in-place PLAIN page holds them all at an address
 * that is a multiple of view_align. */
plank_status pk_flat_leaf_read(pk_flat_leaf *fl, plank_column_reader *cr, const pk_anode *an,
                               int64_t rows, int32_t view_align, const plank_allocator *a,
                               struct ArrowArray *out, plank_error *err);
/* The same for `rows` records of which only those whose bit of keep (from bit
 * 0) is set are kept, `kept` of them (a scan's batch of short runs): a flat
 * required leaf drops the others in its column reader, as it decodes; an
 * optional one is read whole and compacted, validity with the values. */
plank_status pk_flat_leaf_read_kept(pk_flat_leaf *fl, plank_column_reader *cr,
                                    const pk_anode *an, int64_t rows, const uint8_t *keep,
                                    int64_t kept, const pk_kernels *kn, const plank_allocator *a,
                                    struct ArrowArray *out, plank_error *err);

/* ---- Planned streams (the scan) ---- */

/* Asked before each row group of a planned stream: the next row group to
 * read (*g, or -1 at the end) and the rows of it to return: sorted,
 * disjoint ranges relative to the row group (n == 0 is allowed and
 * produces no batch; n < 0: every row), or, when *mask is set, the set bits
 * of that bitmap over the row group's rows (a selection of short runs: a
 * stream whose leaves are all flat reads the row group whole and compacts
 * each batch by it, where ranges would cost a gather per run); both valid
 * until the next call. */
typedef plank_status (*pk_stream_plan_fn)(void *opaque, int32_t *g,
                                          const plank_row_range **ranges, int64_t *n,
                                          const uint8_t **mask, plank_error *err);
/* Told once, when the plan ends or the stream is released (whichever
 * comes first), what the stream's column readers did in total. */
typedef void (*pk_stream_counters_fn)(void *opaque, const pk_column_counters *sum);
/* A stream of the leaves in mask (NULL: the reader's selection) whose row
 * groups and rows come from plan; counters (may be NULL) as above; pool
 * (NULL: one of its own) the buffer pool its batches come from, shared with
 * the other workers of a parallel stream;
 * release_opaque (may be NULL) is called with opaque when the stream is
 * released. On failure neither is called. */
plank_status pk_arrow_stream_planned(plank_reader *r, const bool *mask,
                                     const plank_arrow_options *o, pk_stream_plan_fn plan,
                                     pk_stream_counters_fn counters, void *opaque,
                                     void (*release_opaque)(void *), pk_bufpool *pool,
                                     struct ArrowArrayStream *out, plank_error *err);

/* A planned stream's leaves whose values the plan's owner holds already
 * (the scan's filter columns: a column both filtered and projected is
 * decoded once). has() is asked once per row group, after plan, for each
 * top-level leaf whose Arrow values are fixed width or strings (not
 * boolean); when it says yes, that leaf's batches
 * come from gather() (fixed width) or gather_strings() instead of its
 * column reader, which is then not read. Both take the batch's n rows
 * (pk_given_rows), none null:
 * gather() writes their values in the column's physical type and width to
 * dst; gather_strings() writes n + 1 Arrow offsets of ow bytes (from 0) to
 * offs and the bytes into data (resized to fit; a leaf exported as a
 * dictionary array gets them as its batch's dictionary, indices 0 .. n-1).
 * They may run on several
 * threads at once (a column fan-out), each call for another column. */
/* The rows of a given leaf's batch: the plan's ranges from range ri, row
 * `row` on (the walk of pk_range_step); or, for a batch of a row group the
 * plan gave as a bitmap (bits not NULL), the rows row + i of the row group
 * for the set bits i of bits[0, slots) (readable 8 bytes past them). */
typedef struct pk_given_rows {
    const plank_row_range *rr;
    int64_t ri, row;
    const uint8_t *bits;
    int64_t slots;
} pk_given_rows;

typedef struct pk_stream_given {
    /* Told, when the stream is given these, each column it may take so: the
     * owner keeps only what will be asked for. */
    void (*want)(void *opaque, int32_t column);
    bool (*has)(void *opaque, int32_t column);
    plank_status (*gather)(void *opaque, int32_t column, const pk_given_rows *at, int64_t n,
                           uint8_t *dst, plank_error *err);
    plank_status (*gather_strings)(void *opaque, int32_t column, const pk_given_rows *at,
                                   int64_t n, size_t ow, uint8_t *offs, pk_buffer *data,
                                   plank_error *err);
} pk_stream_given;
/* Gives a planned stream (before its first batch) the plan owner's values,
 * asked with the plan's opaque. */
void pk_stream_set_given(struct ArrowArrayStream *st, const pk_stream_given *given);
/* The leaf's array of `rows` values without nulls that gather() (as above)
 * writes in the column's physical layout, converted to the leaf's Arrow
 * type when they differ. */
plank_status pk_flat_leaf_given(pk_flat_leaf *fl, const pk_anode *an, const pk_stream_given *g,
                                void *opaque, const pk_given_rows *at, int64_t rows,
                                const plank_allocator *a, struct ArrowArray *out,
                                plank_error *err);
/* Whether a flat leaf's values can be given (fixed width or strings, as
 * plain or dictionary arrays). */
bool pk_flat_leaf_givable(const pk_anode *an);

/* ---- Parallel streams (pk_arrow_par.c) ---- */

/* A stream whose batches are made by worker streams on several threads (see
 * pk_arrow_par.c): units of work 0..nunits-1 (row groups) are handed to the
 * workers in increasing order by pk_par_next_unit, which a worker's plan
 * calls for its next row group. */
typedef struct pk_par pk_par;
/* Opens worker w's stream (a planned stream whose plan takes its units from
 * p); called min(threads, nunits) times before pk_par_stream returns. */
typedef plank_status (*pk_par_open_fn)(void *ctx, int32_t w, pk_par *p,
                                       struct ArrowArrayStream *out, plank_error *err);
/* o gives batches_in_flight, any_order and the executor (NULL: a pool of
 * `threads` threads of the stream's own). release_ctx(ctx) is called after
 * every worker stream is released, also when this fails. */
plank_status pk_par_stream(const plank_allocator *a, const plank_arrow_options *o,
                           int32_t threads, int64_t nunits, pk_par_open_fn open, void *ctx,
                           void (*release_ctx)(void *), struct ArrowArrayStream *out,
                           plank_error *err);
/* The executor of options o: the caller's (read by its struct size), or a
 * new pool of `threads` threads in *own (freed by the caller with
 * pk_exec_free; NULL when the caller's is used). */
plank_status pk_par_executor_of(const plank_arrow_options *o, int32_t threads,
                                const plank_allocator *a, pk_exec **own, plank_executor *out,
                                plank_error *err);
/* Worker w's next unit (marking its last one done), or -1: no more. */
int64_t pk_par_next_unit(pk_par *p, int32_t w);
/* The executor the workers run on, and the threads each may spread one
 * batch's columns over (threads / workers). */
const plank_executor *pk_par_executor(const pk_par *p);
int32_t pk_par_fanout(const pk_par *p);
/* Makes a stream of this module read the leaves of each batch on up to n
 * threads: its own and up to n - 1 tasks of ex (copied). n <= 1: nothing. */
void pk_stream_set_fanout(struct ArrowArrayStream *st, const plank_executor *ex, int32_t n);

/* Whether the value buffer of an array made by pk_assemble points into a
 * column chunk (zero copy) rather than a buffer of its own; for tests. */
bool pk_arrow_array_borrows(const struct ArrowArray *arr);

#endif /* PK_ARROW_H */
