/*
 * pk_variant.h: Parquet VARIANT values (the format's VariantEncoding.md):
 * the metadata dictionary, the checked walk over one encoded value, its JSON
 * text, and a writer that builds encoded values (used by the JSON encoder
 * and by the reconstruction of shredded columns in `arrow`).
 *
 * Module `variant` depends on `common` only. Every function that reads
 * encoded bytes treats them as hostile: each size, count, offset and id is
 * checked against the bytes that hold it before use, nesting is bounded by
 * PK_VARIANT_MAX_DEPTH, and a violation is PLANK_ERR_CORRUPT with a message
 * that names what was wrong and at which byte of the value.
 */
#ifndef PK_VARIANT_H
#define PK_VARIANT_H

#include "../common/pk_common.h"

/* Objects and arrays nest at most this deep (a value deeper than that is
 * refused as corrupt; the walkers recurse). */
#define PK_VARIANT_MAX_DEPTH 128

/* Basic types (the two low bits of a value's first byte). */
enum { PK_VB_PRIMITIVE = 0, PK_VB_SHORT_STRING = 1, PK_VB_OBJECT = 2, PK_VB_ARRAY = 3 };

/* Primitive type ids (the six high bits of a primitive's first byte). */
typedef enum pk_vtype {
    PK_VT_NULL = 0,
    PK_VT_TRUE = 1,
    PK_VT_FALSE = 2,
    PK_VT_INT8 = 3,
    PK_VT_INT16 = 4,
    PK_VT_INT32 = 5,
    PK_VT_INT64 = 6,
    PK_VT_DOUBLE = 7,
    PK_VT_DECIMAL4 = 8,
    PK_VT_DECIMAL8 = 9,
    PK_VT_DECIMAL16 = 10,
    PK_VT_DATE = 11,
    PK_VT_TIMESTAMP = 12,        /* micros, UTC */
    PK_VT_TIMESTAMP_NTZ = 13,    /* micros, no time zone */
    PK_VT_FLOAT = 14,
    PK_VT_BINARY = 15,
    PK_VT_STRING = 16,
    PK_VT_TIME = 17,             /* micros since midnight, no time zone */
    PK_VT_TIMESTAMP_NANOS = 18,  /* nanos, UTC */
    PK_VT_TIMESTAMP_NTZ_NANOS = 19,
    PK_VT_UUID = 20,
    PK_VT_COUNT = 21
} pk_vtype;

/* ---- Metadata ------------------------------------------------------------ */

/* A parsed metadata block; points into the caller's bytes. */
typedef struct pk_vmeta {
    const uint8_t *data;
    size_t size;
    uint32_t dict_size;       /* number of keys */
    uint32_t offset_size;     /* 1..4 */
    bool sorted;              /* sorted_strings: keys sorted and unique */
    const uint8_t *offsets;   /* dict_size + 1 offsets of offset_size bytes */
    const uint8_t *bytes;     /* the keys' bytes */
    size_t bytes_size;
} pk_vmeta;

/* Parses and checks a metadata block: version 1, the dictionary size and
 * every offset within the block, offsets non-decreasing, the first 0.
 * (Key bytes are not checked for UTF-8 here; the JSON writer escapes what it
 * prints.) */
plank_status pk_vmeta_parse(pk_vmeta *m, const uint8_t *p, size_t n, plank_error *err);
/* Key `id` (id < dict_size, else false). */
bool pk_vmeta_key(const pk_vmeta *m, uint32_t id, const uint8_t **s, size_t *len);
/* The id of key s, or -1 when the dictionary has no such key (binary search
 * when sorted, else a linear scan). */
int64_t pk_vmeta_find(const pk_vmeta *m, const uint8_t *s, size_t len);

/* ---- Reading one value --------------------------------------------------- */

/* The encoded size of the value starting at p (at most n bytes available),
 * after checking it whole (recursively: headers, offsets inside the value,
 * field ids below m->dict_size, object keys in order, primitive sizes,
 * decimal scales <= 38). A value may be followed by other bytes; *size says
 * where it ends. */
plank_status pk_variant_check(const pk_vmeta *m, const uint8_t *p, size_t n, size_t *size,
                              plank_error *err);

/* Object/array access for walkers (the value at p must have been checked
 * with pk_variant_check, or these may read garbage but never out of the n
 * bytes given). */
typedef struct pk_vcontainer {
    uint32_t num;             /* elements */
    uint32_t id_size;         /* objects: bytes per field id */
    uint32_t offset_size;     /* bytes per offset */
    const uint8_t *ids;       /* objects: num field ids */
    const uint8_t *offsets;   /* num + 1 offsets */
    const uint8_t *values;    /* offsets are relative to this */
    size_t values_size;       /* bytes available from values */
} pk_vcontainer;
/* Parses the header of an object or array at p (basic type given by p[0]). */
plank_status pk_vcontainer_parse(pk_vcontainer *c, const uint8_t *p, size_t n, plank_error *err);
uint32_t pk_vcontainer_id(const pk_vcontainer *c, uint32_t i);
/* Element i's bytes: values + offset(i), up to the end of the values. */
const uint8_t *pk_vcontainer_elem(const pk_vcontainer *c, uint32_t i, size_t *avail);

/* Appends the JSON text of the value to out (not NUL-terminated): objects in
 * key order, arrays, null/true/false, integers, floats and doubles as the
 * shortest text that reads back to the same value ("NaN", "Infinity",
 * "-Infinity" as strings), decimals as strings with their scale ("12.30"),
 * dates "YYYY-MM-DD", times "HH:MM:SS.ffffff", timestamps
 * "YYYY-MM-DDTHH:MM:SS.ffffff" (nanos: 9 digits; UTC ones end in "Z"),
 * binary as base64, UUIDs in 8-4-4-4-12 hex: the forms `plank cat` gives the
 * same types in ordinary columns. The value is checked as it is walked. */
plank_status pk_variant_json(const pk_vmeta *m, const uint8_t *p, size_t n, pk_buffer *out,
                             plank_error *err);

/* ---- Building values ----------------------------------------------------- */

/* Builds one encoded value at a time into `value` (a pk_buffer the caller may
 * read after pk_vw_finish). Objects and arrays are opened and closed around
 * their elements; an object's fields are each announced by pk_vw_key before
 * the field's value. Keys resolve to ids through the writer's own dictionary
 * (pk_vw_init: new keys are added in first-use order, and
 * pk_vw_finish_metadata writes it), or through a fixed metadata block
 * (pk_vw_use_metadata: a key it lacks is an error, as the shredding spec
 * requires every key to be present there). Closing an object orders its
 * fields by key bytes (unsigned), as the encoding requires; a key given
 * twice in one object is PLANK_ERR_INVALID_ARGUMENT. Sizes of ids, offsets
 * and counts are the smallest that fit. */
typedef struct pk_vw_frame {
    size_t start;         /* where the container's element bytes begin in value */
    size_t first_entry;   /* its first entry in entries */
    uint8_t basic;        /* PK_VB_OBJECT / PK_VB_ARRAY */
    bool key_pending;     /* objects: pk_vw_key given, its value not yet written */
} pk_vw_frame;

typedef struct pk_vw_entry {
    uint32_t id;          /* objects: field id */
    uint32_t offset;      /* element start, relative to the frame's start */
    uint32_t size;        /* element bytes (filled when the container closes) */
} pk_vw_entry;

typedef struct pk_vwriter {
    const plank_allocator *alloc;
    pk_buffer value;          /* the value being built */
    /* containers open now, innermost last */
    pk_vw_frame *frames;
    size_t num_frames, cap_frames;
    pk_vw_entry *entries;
    size_t num_entries, cap_entries;
    /* key dictionary (own mode): keys' bytes, their offsets, a hash table */
    const pk_vmeta *fixed;    /* non-NULL: pk_vw_use_metadata mode */
    pk_buffer key_bytes;
    uint32_t *key_offsets;    /* num_keys + 1 */
    uint32_t num_keys, cap_keys;
    uint32_t *slots;          /* open addressing: id + 1, 0 empty */
    uint32_t num_slots;
    pk_buffer scratch;        /* object closing */
    bool done;                /* a whole value has been written */
} pk_vwriter;

void pk_vw_init(pk_vwriter *w, const plank_allocator *a);
void pk_vw_free(pk_vwriter *w);
/* Starts a new value; own mode: the key dictionary is emptied too. */
void pk_vw_reset(pk_vwriter *w);
/* Keys resolve through m (which must outlive the value's building) until
 * the next pk_vw_reset. */
void pk_vw_use_metadata(pk_vwriter *w, const pk_vmeta *m);

plank_status pk_vw_null(pk_vwriter *w, plank_error *err);
plank_status pk_vw_bool(pk_vwriter *w, bool v, plank_error *err);
/* An integer as the given type (PK_VT_INT8..INT64; the value must fit). */
plank_status pk_vw_int(pk_vwriter *w, pk_vtype t, int64_t v, plank_error *err);
/* The smallest integer type that holds v. */
plank_status pk_vw_int_auto(pk_vwriter *w, int64_t v, plank_error *err);
plank_status pk_vw_double(pk_vwriter *w, double v, plank_error *err);
plank_status pk_vw_float(pk_vwriter *w, float v, plank_error *err);
/* A decimal of the given width type (DECIMAL4/8/16), scale 0..38, unscaled
 * value as a 128-bit two's complement (hi, lo). */
plank_status pk_vw_decimal(pk_vwriter *w, pk_vtype t, int32_t scale, int64_t hi, uint64_t lo,
                           plank_error *err);
/* DATE (int32 days), TIME / TIMESTAMP* (int64): t says which. */
plank_status pk_vw_temporal(pk_vwriter *w, pk_vtype t, int64_t v, plank_error *err);
/* A string (short string form below 64 bytes) or binary. */
plank_status pk_vw_string(pk_vwriter *w, const uint8_t *s, size_t len, plank_error *err);
plank_status pk_vw_binary(pk_vwriter *w, const uint8_t *s, size_t len, plank_error *err);
plank_status pk_vw_uuid(pk_vwriter *w, const uint8_t bytes16[16], plank_error *err);
/* An already encoded value, copied as is (checked by the caller; its field
 * ids must be valid in the metadata the writer's result goes with). */
plank_status pk_vw_raw(pk_vwriter *w, const uint8_t *p, size_t len, plank_error *err);

plank_status pk_vw_object_begin(pk_vwriter *w, plank_error *err);
/* The next value written is the field named s. */
plank_status pk_vw_key(pk_vwriter *w, const uint8_t *s, size_t len, plank_error *err);
/* The same by id of the fixed metadata (use_metadata mode). */
plank_status pk_vw_key_id(pk_vwriter *w, uint32_t id, plank_error *err);
plank_status pk_vw_object_end(pk_vwriter *w, plank_error *err);
plank_status pk_vw_array_begin(pk_vwriter *w, plank_error *err);
plank_status pk_vw_array_end(pk_vwriter *w, plank_error *err);

/* Checks that exactly one whole value was written (no container left open)
 * and returns it. */
plank_status pk_vw_finish(pk_vwriter *w, const uint8_t **value, size_t *len, plank_error *err);
/* Own mode: writes the metadata block of the keys used so far into out
 * (replacing its contents); sorted_strings is set when the keys happen to be
 * in order. */
plank_status pk_vw_finish_metadata(pk_vwriter *w, pk_buffer *out, plank_error *err);

/* ---- JSON text to a value (pk_variant_jsonin.c) -------------------------- */

/* Resets w (pk_vw_reset: own mode, an empty dictionary) and encodes the JSON
 * text json[0..len) (RFC 8259, UTF-8) as one value: integers that fit int64
 * as the smallest integer type, other numbers without an exponent with at
 * most 38 significant digits and 38 fraction digits as decimals (Spark's
 * parse_json), the rest as doubles. Then pk_vw_finish and
 * pk_vw_finish_metadata give the value and its metadata. Malformed text,
 * invalid UTF-8, unpaired surrogate escapes and duplicate keys are
 * PLANK_ERR_INVALID_ARGUMENT, nesting deeper than PK_VARIANT_MAX_DEPTH
 * PLANK_ERR_LIMIT, each with the byte offset in the text. */
plank_status pk_variant_from_json(pk_vwriter *w, const char *json, size_t len, plank_error *err);

#endif /* PK_VARIANT_H */
