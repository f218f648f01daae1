/*
 * pk_arrow_import.h: internals of the Arrow import (Arrow -> Parquet), the
 * inverse of the export in pk_arrow.h.
 *
 * An Arrow struct schema is mapped once to a tree of pk_inode, one per Arrow
 * field, which gives both the Parquet schema (plank_schema_from_arrow) and
 * everything the shredder needs to turn a struct ArrowArray into one
 * plank_batch per leaf column: the levels of each node and how leaf values
 * are converted to the writer's slot layout.
 *
 * Levels (Dremel): a node reached with its parent present at definition
 * level `null_def` is written at `def` = null_def + (nullable ? 1 : 0) when
 * present. A list or map node adds a repeated group: its elements are at
 * definition level def + 1 (`elem_def`) and repetition level `rep`, one more
 * than the enclosing one. Leaves have max_def = def and max_rep = the
 * enclosing list's rep (0 at top level).
 *
 * Shredding makes three passes over the array: a structural check of every
 * array reached (buffer and child counts, lengths and offsets in range, list
 * offsets monotone), a counting pass (entries and bytes per leaf, with the
 * per-value checks: dictionary indices, nulls in non-nullable fields, values
 * that do not fit their Parquet type), then a filling pass into buffers
 * allocated once, which needs no checks.
 *
 * Depends on: common.
 */
#ifndef PK_ARROW_IMPORT_H
#define PK_ARROW_IMPORT_H

#include "../common/pk_common.h"

typedef enum pk_inode_kind {
    PK_IN_LEAF = 0,
    PK_IN_STRUCT,
    PK_IN_LIST, /* list, large list, list view, fixed-size list */
    PK_IN_MAP
} pk_inode_kind;

/* How the children of a list node are found. */
typedef enum pk_list_layout {
    PK_LIST_OFFSETS32 = 0, /* "+l", "+m" */
    PK_LIST_OFFSETS64,     /* "+L" */
    PK_LIST_VIEW32,        /* "+vl": offsets and sizes */
    PK_LIST_VIEW64,        /* "+vL" */
    PK_LIST_FIXED          /* "+w:N" */
} pk_list_layout;

/* How an Arrow leaf value becomes a Parquet slot value. */
typedef enum pk_iconv {
    PK_IC_NULL = 0, /* "n": always null */
    PK_IC_BOOL,     /* bitmap to bitmap */
    PK_IC_I8,       /* "c" to int32 */
    PK_IC_I16,      /* "s" */
    PK_IC_U8,       /* "C" */
    PK_IC_U16,      /* "S" */
    PK_IC_COPY,     /* same bytes, width src_width */
    PK_IC_DATE64,   /* "tdm" milliseconds to int32 days */
    PK_IC_TIME32_S, /* "tts" seconds to int32 milliseconds */
    PK_IC_TS_S,     /* "tss" seconds to int64 milliseconds */
    PK_IC_DECIMAL,  /* little-endian two's complement of src_width bytes to INT32,
                       INT64 or big-endian FLBA */
    PK_IC_BINARY32, /* "u"/"z" */
    PK_IC_BINARY64, /* "U"/"Z" */
    PK_IC_VIEW      /* "vu"/"vz" */
} pk_iconv;

typedef struct pk_inode {
    pk_inode_kind kind;
    const struct ArrowSchema *s; /* the field (for dictionary leaves: the indices) */
    const char *name;            /* Parquet name */
    const char *path;            /* dotted Arrow path, for messages */
    bool nullable;
    int16_t null_def, def;
    int16_t rep;      /* LIST/MAP: repetition level of the elements */
    int16_t elem_def; /* LIST/MAP: definition level of an element's presence */
    int16_t max_rep;  /* leaves: repetition level of the enclosing list (0: none) */
    int32_t num_children;
    struct pk_inode **children;  /* LIST: the element; MAP: key, value */
    int32_t first_leaf, num_leaves;
    /* LIST and MAP */
    pk_list_layout layout;
    int64_t fixed_size;          /* PK_LIST_FIXED */
    /* Leaves */
    pk_iconv conv;
    int32_t src_width;           /* bytes of one Arrow value (fixed width) */
    int32_t index_width;         /* dictionary leaves: bytes of an index, else 0 */
    bool index_signed;
    plank_physical_type physical_type;
    int32_t type_length;         /* FLBA */
    int32_t out_width;           /* bytes per slot (0: BOOLEAN bitmap, BYTE_ARRAY offsets) */
    plank_logical_type logical;
    bool has_field_id;
    int32_t field_id;
} pk_inode;

typedef struct pk_itree {
    pk_arena arena;
    pk_inode *root;   /* the struct of the top-level fields */
    int32_t num_leaves;
    pk_inode **leaves;
    int32_t num_fields; /* Parquet schema nodes, root included */
} pk_itree;

/* Maps an Arrow struct schema (format "+s") to the tree. Unsupported types
 * are PLANK_ERR_UNSUPPORTED naming the field path; malformed schemas
 * PLANK_ERR_INVALID_ARGUMENT. The tree points into `schema`. */
plank_status pk_itree_build(const struct ArrowSchema *schema, const plank_allocator *a,
                            pk_itree *t, plank_error *err);
void pk_itree_free(pk_itree *t);

/* Per leaf column: the slots of one record batch, in the layout
 * plank_writer_write_column takes. */
typedef struct pk_shredded {
    plank_allocator alloc;
    int64_t num_rows;
    int32_t num_columns;
    plank_batch *cols;
    void **blocks;     /* one allocation per column */
    size_t *sizes;
} pk_shredded;

/* Shreds a struct array of the tree's schema. The array is only read.
 * Invalid arrays are PLANK_ERR_INVALID_ARGUMENT naming the field. */
plank_status pk_arrow_shred(const pk_itree *t, const struct ArrowArray *array,
                            const plank_allocator *a, pk_shredded *out, plank_error *err);
void pk_shredded_free(pk_shredded *s);

#endif /* PK_ARROW_IMPORT_H */
