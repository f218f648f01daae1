/*
 * pk_dataset.h: datasets of many files (module dataset, above scan).
 *
 * pk_dataset.c finds the files (paths, directories, globs), reads their
 * footers in parallel, parses hive partitions and unifies the schemas;
 * pk_ds_scan.c evaluates a predicate on partition values, scans the files
 * and adapts their batches to the unified schema; pk_ds_arrow.c holds the
 * Arrow pieces that adaptation needs (null and constant arrays, widening,
 * schema copies).
 *
 * Depends on: common, read, arrow, scan.
 */
#ifndef PK_DATASET_H
#define PK_DATASET_H

#include "../scan/pk_scan.h"

/* How a file's column becomes the unified one. */
typedef enum pk_widen {
    PK_W_NONE = 0,   /* same type */
    PK_W_I32_I64,
    PK_W_F32_F64,
    PK_W_RELABEL,    /* string as binary: the same buffers */
    PK_W_LARGE       /* 32-bit offsets to 64-bit ("u"/"z" to "U"/"Z") */
} pk_widen;

/* A partition key: its type and each file's value. */
typedef enum pk_ptype { PK_P_INT = 0, PK_P_DATE, PK_P_STRING } pk_ptype;

typedef struct pk_pvalue {
    bool null;
    int64_t i;       /* INT: the value; DATE: days */
    char *s;         /* the decoded text (always kept) */
    size_t len;
} pk_pvalue;

typedef struct pk_dsfield {
    char *name;
    struct ArrowSchema type;   /* the unified field (owned deep copy) */
    int32_t first_file;        /* where it first appears */
} pk_dsfield;

struct plank_dataset {
    plank_allocator alloc;
    atomic_int refs;
    plank_arrow_options arrow; /* what the schema was unified in */
    int32_t nfiles, paths_cap;
    char **paths;
    plank_reader **readers;
    int64_t rows;
    /* data fields */
    int32_t nfields, fields_cap;
    pk_dsfield *fields;
    int32_t *col;              /* [file * nfields + k]: child index in the file, -1 absent */
    pk_widen *widen;           /* [file * nfields + k] */
    /* partition keys */
    int32_t nkeys;
    char **keys;
    pk_ptype *ktype;
    pk_pvalue *pv;             /* [file * nkeys + j] */
};

void pk_dataset_retain(plank_dataset *d);
/* The Arrow format of a partition key's type. */
const char *pk_ds_partition_format(pk_ptype t);
void pk_dataset_release(plank_dataset *d);

/* ---- pk_ds_arrow.c ---- */

/* A deep copy of schema s (names, formats, metadata, children, dictionary),
 * released by its release callback. */
plank_status pk_ds_schema_copy(const plank_allocator *a, const struct ArrowSchema *s,
                               struct ArrowSchema *out, plank_error *err);
/* A schema node of format fmt named name, no children. */
plank_status pk_ds_schema_leaf(const plank_allocator *a, const char *fmt, const char *name,
                               int64_t flags, struct ArrowSchema *out, plank_error *err);
/* A struct schema over the given children (moved into it). */
plank_status pk_ds_schema_struct(const plank_allocator *a, struct ArrowSchema *kids, int32_t n,
                                 struct ArrowSchema *out, plank_error *err);
/* Whether two schemas describe the same type (formats and children, deep;
 * names of nested children too). */
bool pk_ds_same_type(const struct ArrowSchema *a, const struct ArrowSchema *b);
/* n nulls of type s. PLANK_ERR_UNSUPPORTED for a type it cannot make. */
plank_status pk_ds_null_array(const plank_allocator *a, const struct ArrowSchema *s, int64_t n,
                              struct ArrowArray *out, plank_error *err);
/* n copies of a partition value of type t (null: nulls). */
plank_status pk_ds_const_array(const plank_allocator *a, pk_ptype t, const pk_pvalue *v, int64_t n,
                               struct ArrowArray *out, plank_error *err);
/* in (moved, released here) converted by w into *out. */
plank_status pk_ds_widen(const plank_allocator *a, pk_widen w, struct ArrowArray *in,
                         struct ArrowArray *out, plank_error *err);
/* A struct array of length n over children kids[0..k) (moved into it). */
plank_status pk_ds_struct_array(const plank_allocator *a, struct ArrowArray *kids, int32_t k,
                                int64_t n, struct ArrowArray *out, plank_error *err);

#endif /* PK_DATASET_H */
