/*
 * pk_compact.h: a minimal reader and writer of the Thrift compact protocol,
 * enough for the Parquet footer, page headers, page index and bloom filter
 * headers (pk_thrift.c and pk_thrift_write.c map the structs).
 *
 * Hostile-input contract: every function reads only inside [buf, buf+len),
 * advances `pos` only over bytes it has checked, and returns
 * PLANK_ERR_CORRUPT (message "... at byte N", err->byte_offset = N, N
 * relative to buf) on truncated or malformed input. Varints are bounded to
 * 10 bytes, binary lengths and collection sizes by the bytes left, and the
 * nesting of structs, lists and maps by PK_THRIFT_MAX_DEPTH.
 *
 * Depends on: common.
 */
#ifndef PK_COMPACT_H
#define PK_COMPACT_H

#include "../common/pk_common.h"
#include "pk_thrift.h"

/* Wire types of the compact protocol (the low nibble of a field header). */
enum {
    PK_TC_STOP = 0,
    PK_TC_TRUE = 1,   /* bool field with value true; any bool list element */
    PK_TC_FALSE = 2,  /* bool field with value false */
    PK_TC_BYTE = 3,
    PK_TC_I16 = 4,
    PK_TC_I32 = 5,
    PK_TC_I64 = 6,
    PK_TC_DOUBLE = 7,
    PK_TC_BINARY = 8,
    PK_TC_LIST = 9,
    PK_TC_SET = 10,
    PK_TC_MAP = 11,
    PK_TC_STRUCT = 12
};

typedef struct pk_tc {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    int depth; /* structs, lists and maps currently open */
    plank_error *err;
} pk_tc;

void pk_tc_init(pk_tc *r, const uint8_t *buf, size_t len, plank_error *err);

/* Sets a PLANK_ERR_CORRUPT error located at byte `at`; returns it. */
plank_status pk_tc_fail(pk_tc *r, size_t at, const char *fmt, ...) PK_PRINTF(3, 4);

/* Enters a nested value (struct, list, map) of wire type `type`, which must
 * equal `expect` (PK_TC_LIST also accepts PK_TC_SET). Checks the depth limit.
 * Every successful enter is paired with pk_tc_leave. */
plank_status pk_tc_enter(pk_tc *r, int type, int expect, const char *what);
void pk_tc_leave(pk_tc *r);

/* Reads the next field header of the open struct. *id holds the previous
 * field id on entry (0 at the start of a struct) and the new one on return;
 * *type is PK_TC_STOP at the end of the struct. */
plank_status pk_tc_field(pk_tc *r, int32_t *id, int *type);

/* Reads an integer written with any integer wire type (byte, i16, i32, i64:
 * writers disagree on widths) and checks it lies in [min, max]. */
plank_status pk_tc_int(pk_tc *r, int type, int64_t min, int64_t max, int64_t *out);
/* A double: 8 bytes, little-endian (the compact protocol's order). */
plank_status pk_tc_double(pk_tc *r, int type, double *out);
/* A bool field: the value is the wire type itself (no payload byte). */
plank_status pk_tc_bool(pk_tc *r, int type, bool *out);
/* A binary/string: *data points into buf, valid as long as buf. */
plank_status pk_tc_binary(pk_tc *r, int type, const uint8_t **data, uint32_t *n);

/* Reads a list or set header after pk_tc_enter(r, type, PK_TC_LIST, ...):
 * element wire type and count, the count bounded by the bytes left. An empty
 * list may carry any element type nibble (0 from fastparquet). */
plank_status pk_tc_list_header(pk_tc *r, int *elem_type, uint32_t *count);

/* Skips one value of wire type `type` (a field value, so bools take no
 * bytes), recursing into containers within the depth limit. */
plank_status pk_tc_skip(pk_tc *r, int type);

/* Reads one bool list element (a byte after pk_tc_list_header gave a bool
 * element type): 1 is true; 0 and 2 are false (writers use both). */
plank_status pk_tc_elem_bool(pk_tc *r, int elem_type, bool *out);

/* ---- Writer -------------------------------------------------------------------
 *
 * Appends to a pk_buffer. The first failure (out of memory, structs nested
 * deeper than PK_THRIFT_MAX_DEPTH, a field id outside i16) is sticky: later
 * calls do nothing and pk_tw_finish returns it, so encoders write straight
 * through and check once. Field headers use the short form (id delta 1..15
 * in the high nibble) when they can, the long form (type byte, zigzag i16 id)
 * otherwise. Integers are zigzag varints whatever their declared width, bytes
 * (i8) a raw byte; bool fields carry their value in the wire type. */
typedef struct pk_tw {
    pk_buffer *out;
    plank_error *err;
    plank_status st;
    int depth;                                /* structs open */
    int16_t last_id[PK_THRIFT_MAX_DEPTH + 1]; /* previous field id per open struct */
} pk_tw;

void pk_tw_init(pk_tw *w, pk_buffer *out, plank_error *err);
/* The first error, or PLANK_OK. */
plank_status pk_tw_finish(pk_tw *w);
/* Records an error (the first one sticks); returns w->st. */
plank_status pk_tw_fail(pk_tw *w, plank_status code, const char *fmt, ...) PK_PRINTF(3, 4);

/* A field header for field `id` of the innermost open struct. */
void pk_tw_field(pk_tw *w, int type, int id);
/* Opens a struct value (the outermost one, a field's value after its header
 * or a list element); pk_tw_struct_end writes STOP and closes it. */
void pk_tw_struct_begin(pk_tw *w);
void pk_tw_struct_end(pk_tw *w);
/* Field header and struct begin in one. */
void pk_tw_field_struct(pk_tw *w, int id);
/* An empty struct field: a marker union member (StringType, ...). */
void pk_tw_field_marker(pk_tw *w, int id);

/* Values without a field header (list elements, or after pk_tw_field). */
void pk_tw_varint(pk_tw *w, uint64_t v);
void pk_tw_zigzag(pk_tw *w, int64_t v);
void pk_tw_binary(pk_tw *w, const void *data, size_t n);
void pk_tw_list_header(pk_tw *w, int elem_type, uint32_t count);
void pk_tw_elem_bool(pk_tw *w, bool v);

/* Whole fields. i8 is the raw-byte type; i16/i32/i64 differ only in the
 * wire type (all zigzag varints). */
void pk_tw_i8(pk_tw *w, int id, int8_t v);
void pk_tw_i16(pk_tw *w, int id, int16_t v);
void pk_tw_i32(pk_tw *w, int id, int32_t v);
void pk_tw_i64(pk_tw *w, int id, int64_t v);
void pk_tw_double(pk_tw *w, int id, double v);
void pk_tw_bool(pk_tw *w, int id, bool v);
void pk_tw_bin(pk_tw *w, int id, const void *data, size_t n);
void pk_tw_str(pk_tw *w, int id, const char *s);
/* A list field's header: elements follow. */
void pk_tw_list(pk_tw *w, int id, int elem_type, uint32_t count);

#endif /* PK_COMPACT_H */
