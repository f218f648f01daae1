/*
 * cli_arrow.h: the CLI's reading of plank's Arrow export (cat, schema, bench).
 *
 * A cli_anode tree mirrors a struct ArrowSchema. Each Arrow leaf is tied to
 * the Parquet leaf column it comes from, so its values are printed by the
 * cli_value formatter with the Parquet physical layout and logical type
 * (exactly the text of the flat reader). The tie is by order: the Arrow
 * leaves, depth first, are the selected Parquet leaves in column order
 * (plank keeps the Parquet field order in structs, lists and maps).
 *
 * The arrays come from plank itself; the walker still checks what it
 * relies on (children and buffers present, list offsets inside the child)
 * once per batch in cli_anode_check, so printing never reads out of bounds
 * of what an array declares.
 */
#ifndef PLANK_CLI_ARROW_H
#define PLANK_CLI_ARROW_H

#include "cli_value.h"

typedef enum cli_anode_kind {
    CLI_A_NULL,   /* "n": every value null */
    CLI_A_LEAF,
    CLI_A_STRUCT, /* "+s" */
    CLI_A_LIST,   /* "+l": int32 offsets */
    CLI_A_LARGE_LIST, /* "+L": int64 offsets */
    CLI_A_MAP,    /* "+m": list of "+s" entries (key, value) */
    CLI_A_VARIANT /* "+s" with the arrow.parquet.variant extension: printed as its JSON */
} cli_anode_kind;

typedef enum cli_leaf_layout {
    CLI_L_BOOL,   /* bitmap */
    CLI_L_FIXED,  /* `width` bytes per value */
    CLI_L_VAR32,  /* int32 offsets + data */
    CLI_L_VAR64,  /* int64 offsets + data */
    CLI_L_DECIMAL /* `width` (16 or 32) bytes little-endian two's complement */
} cli_leaf_layout;

typedef struct cli_anode {
    cli_anode_kind kind;
    const char *name;  /* the schema's (lives as long as the schema) */
    const char *format;
    cli_buf key;       /* JSON object key with its colon: "\"name\":" */
    /* Leaves */
    cli_leaf_layout layout;
    int32_t width;
    bool widen_signed;  /* 1- or 2-byte integers widened to the INT32 layout */
    int32_t column;     /* Parquet leaf column, -1 for CLI_A_NULL without one */
    int32_t type_length; /* of the Parquet leaf (FLBA) */
    cli_value_format fmt;
    int32_t n_children;
    struct cli_anode *children;
    /* CLI_A_VARIANT: which children are metadata and value; verr holds the
     * message of a malformed value (owned, CLI_VARIANT_ERR bytes). */
    int32_t vmeta, vvalue;
    char *verr;
} cli_anode;

#define CLI_VARIANT_ERR (PLANK_ERROR_MESSAGE_SIZE + 160)

/* Builds the tree of `schema` (the stream's "+s" root); cols[0..ncols) are the
 * selected Parquet leaves in ascending order. Returns false with a message in
 * why when the schema cannot be walked (unknown format, leaf count mismatch). */
bool cli_anode_build(cli_anode *root, const plank_reader *r, const struct ArrowSchema *schema,
                     const int32_t *cols, int32_t ncols, char *why, size_t why_size);
void cli_anode_free(cli_anode *n);

/* Checks an array against the node (recursively): false with why when the
 * array lacks a child or buffer the walker reads, or a list offset points
 * outside its child. */
bool cli_anode_check(const cli_anode *n, const struct ArrowArray *a, char *why, size_t why_size);

/* Whether slot i (before a->offset is applied) is null. */
bool cli_anode_is_null(const cli_anode *n, const struct ArrowArray *a, int64_t i);
/* Appends slot i: nested values as JSON (structs as objects, lists as arrays,
 * maps as arrays of {"key":..,"value":..}, variants as their JSON value);
 * leaves in `style`, inside nested values always JSON. Null slots print as
 * null. Returns NULL, or the message of a malformed variant value (then the
 * text appended is incomplete). */
const char *cli_anode_value(cli_buf *b, const cli_anode *n, const struct ArrowArray *a,
                            int64_t i, cli_style style);

/* Bytes of buffer data an array holds (validity, offsets, values, children),
 * for the benchmark's decoded-bytes figure. */
uint64_t cli_anode_bytes(const cli_anode *n, const struct ArrowArray *a);

/* The value of `key` in Arrow's binary field metadata, copied into out (size
 * bytes, NUL-terminated, truncated); false when absent or malformed. */
bool cli_arrow_metadata_value(const char *md, const char *key, char *out, size_t size);

/* A readable Arrow type for a format string: "int64", "list",
 * "timestamp[us, tz=UTC]", "decimal128(9, 2)", ... */
void cli_arrow_type_name(cli_buf *b, const char *format);

#endif /* PLANK_CLI_ARROW_H */
