/*
 * pk_arrow_import.c: Arrow -> Parquet. The Arrow schema mapped to a pk_inode
 * tree (and from it to the writer's plank_schema_field array), and the
 * shredding of a struct ArrowArray into per-leaf level/value batches
 * (pk_arrow_import.h explains the levels and the passes).
 *
 * The type mapping inverts the export's (pk_arrow_schema.c) and otherwise
 * follows what Arrow C++ writes: narrow and unsigned integers as annotated
 * INT32/INT64, date64 as DATE (days), time32[s] as TIME(MILLIS), timestamp[s]
 * as TIMESTAMP(MILLIS), decimals as INT32 (precision <= 9), INT64 (<= 18) or
 * the smallest FIXED_LEN_BYTE_ARRAY, float16 as FLOAT16, lists (also large,
 * view and fixed-size ones) as three-level LIST groups, maps as MAP groups
 * with key_value, dictionary arrays as their value type.
 */
#include "pk_arrow_import.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_DEPTH 64

/* ---- Arrow field metadata ---------------------------------------------------------- */

/* Finds `key` in Arrow's metadata encoding (int32 count, then int32 length
 * and bytes of each key and value). */
static bool meta_find(const char *meta, const char *key, const char **val, int32_t *vlen) {
    if (!meta) return false;
    const char *p = meta;
    int32_t n = (int32_t)pk_load_u32(p);
    p += 4;
    size_t kl = strlen(key);
    for (int32_t i = 0; i < n; i++) {
        int32_t l = (int32_t)pk_load_u32(p);
        if (l < 0) return false;
        bool match = (size_t)l == kl && memcmp(p + 4, key, kl) == 0;
        p += 4 + l;
        l = (int32_t)pk_load_u32(p);
        if (l < 0) return false;
        if (match) {
            *val = p + 4;
            *vlen = l;
            return true;
        }
        p += 4 + l;
    }
    return false;
}

static bool parse_i32(const char *s, int32_t n, int32_t *out) {
    int64_t v = 0;
    int32_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg) i++;
    if (i >= n) return false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
        if (v > (int64_t)INT32_MAX + 1) return false;
    }
    if (neg) v = -v;
    if (v < INT32_MIN || v > INT32_MAX) return false;
    *out = (int32_t)v;
    return true;
}

/* ---- Format strings ----------------------------------------------------------------- */

/* Parses a decimal integer in [0, max] at *p, advancing *p. */
static bool parse_uint(const char **p, int64_t max, int64_t *out) {
    const char *s = *p;
    int64_t v = 0;
    if (*s < '0' || *s > '9') return false;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > max) return false;
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

/* Bytes of the smallest two's complement integer holding every value of
 * `precision` decimal digits: the least n with floor((8n - 1) log10 2) >= precision. */
static int32_t decimal_bytes(int32_t precision) {
    for (int32_t n = 1;; n++) {
        int64_t digits = (int64_t)(8 * n - 1) * 30102999566LL / 100000000000LL;
        if (digits >= precision) return n;
    }
}

static plank_logical_type no_logical(void) {
    plank_logical_type lt;
    memset(&lt, 0, sizeof lt);
    lt.kind = PLANK_LOGICAL_NONE;
    lt.edge_algorithm = -1;
    lt.variant_version = -1;
    return lt;
}

static void set_int(pk_inode *n, int bits, bool is_signed) {
    n->logical.kind = PLANK_LOGICAL_INTEGER;
    n->logical.bit_width = (int8_t)bits;
    n->logical.is_signed = is_signed;
}

static void set_fixed(pk_inode *n, pk_iconv conv, int32_t src, plank_physical_type pt) {
    n->conv = conv;
    n->src_width = src;
    n->physical_type = pt;
    n->out_width = pt == PLANK_INT32 || pt == PLANK_FLOAT ? 4 : 8;
}

static plank_status unsupported(const pk_inode *n, const char *fmt, plank_error *err) {
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                        "arrow field %s: type \"%s\" has no Parquet equivalent", n->path, fmt);
}

/* The Parquet type and the conversion of a leaf of Arrow format f. */
static plank_status map_leaf(pk_inode *n, const char *f, const struct ArrowSchema *vs,
                             plank_error *err) {
    n->logical = no_logical();
    if (!strcmp(f, "n")) {
        set_fixed(n, PK_IC_NULL, 0, PLANK_INT32);
        n->logical.kind = PLANK_LOGICAL_UNKNOWN;
        return PLANK_OK;
    }
    if (!strcmp(f, "b")) {
        n->conv = PK_IC_BOOL;
        n->physical_type = PLANK_BOOLEAN;
        return PLANK_OK;
    }
    if (f[0] && !f[1]) {
        switch (f[0]) {
        case 'c': set_fixed(n, PK_IC_I8, 1, PLANK_INT32); set_int(n, 8, true); return PLANK_OK;
        case 'C': set_fixed(n, PK_IC_U8, 1, PLANK_INT32); set_int(n, 8, false); return PLANK_OK;
        case 's': set_fixed(n, PK_IC_I16, 2, PLANK_INT32); set_int(n, 16, true); return PLANK_OK;
        case 'S': set_fixed(n, PK_IC_U16, 2, PLANK_INT32); set_int(n, 16, false); return PLANK_OK;
        case 'i': set_fixed(n, PK_IC_COPY, 4, PLANK_INT32); return PLANK_OK;
        case 'I': set_fixed(n, PK_IC_COPY, 4, PLANK_INT32); set_int(n, 32, false); return PLANK_OK;
        case 'l': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); return PLANK_OK;
        case 'L': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); set_int(n, 64, false); return PLANK_OK;
        case 'f': set_fixed(n, PK_IC_COPY, 4, PLANK_FLOAT); return PLANK_OK;
        case 'g': set_fixed(n, PK_IC_COPY, 8, PLANK_DOUBLE); return PLANK_OK;
        case 'e':
            n->conv = PK_IC_COPY;
            n->src_width = n->out_width = n->type_length = 2;
            n->physical_type = PLANK_FIXED_LEN_BYTE_ARRAY;
            n->logical.kind = PLANK_LOGICAL_FLOAT16;
            return PLANK_OK;
        case 'u': case 'z': case 'U': case 'Z':
            n->conv = f[0] == 'u' || f[0] == 'z' ? PK_IC_BINARY32 : PK_IC_BINARY64;
            n->physical_type = PLANK_BYTE_ARRAY;
            if (f[0] == 'u' || f[0] == 'U') n->logical.kind = PLANK_LOGICAL_STRING;
            return PLANK_OK;
        default: break;
        }
    }
    if (!strcmp(f, "vu") || !strcmp(f, "vz")) {
        n->conv = PK_IC_VIEW;
        n->physical_type = PLANK_BYTE_ARRAY;
        if (f[1] == 'u') n->logical.kind = PLANK_LOGICAL_STRING;
        return PLANK_OK;
    }
    if (f[0] == 'w' && f[1] == ':') {
        const char *p = f + 2;
        int64_t w;
        if (!parse_uint(&p, INT32_MAX, &w) || *p || w < 1)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "arrow field %s: bad format \"%s\"",
                                n->path, f);
        n->conv = PK_IC_COPY;
        n->src_width = n->out_width = n->type_length = (int32_t)w;
        n->physical_type = PLANK_FIXED_LEN_BYTE_ARRAY;
        const char *v;
        int32_t vl;
        if (w == 16 && meta_find(vs->metadata, "ARROW:extension:name", &v, &vl) && vl == 10 &&
            !memcmp(v, "arrow.uuid", 10))
            n->logical.kind = PLANK_LOGICAL_UUID;
        return PLANK_OK;
    }
    if (f[0] == 'd' && f[1] == ':') {
        const char *p = f + 2;
        int64_t prec, scale, bits = 128;
        bool ok = parse_uint(&p, 1000, &prec) && *p == ',';
        if (ok) p++;
        ok = ok && parse_uint(&p, 1000, &scale);
        if (ok && *p == ',') {
            p++;
            ok = parse_uint(&p, 1000, &bits);
        }
        ok = ok && !*p && (bits == 32 || bits == 64 || bits == 128 || bits == 256);
        if (!ok) {
            if (f[2] && strchr(f, '-'))
                return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                                    "arrow field %s: negative decimal scale (\"%s\")", n->path, f);
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "arrow field %s: bad format \"%s\"",
                                n->path, f);
        }
        if (prec < 1 || scale > prec || prec > (bits == 32 ? 9 : bits == 64 ? 18 : bits == 128 ? 38 : 76))
            return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                                "arrow field %s: decimal precision/scale of \"%s\" out of range",
                                n->path, f);
        n->conv = PK_IC_DECIMAL;
        n->src_width = (int32_t)(bits / 8);
        n->logical.kind = PLANK_LOGICAL_DECIMAL;
        n->logical.precision = (int32_t)prec;
        n->logical.scale = (int32_t)scale;
        if (prec <= 9) {
            n->physical_type = PLANK_INT32;
            n->out_width = 4;
        } else if (prec <= 18) {
            n->physical_type = PLANK_INT64;
            n->out_width = 8;
        } else {
            n->physical_type = PLANK_FIXED_LEN_BYTE_ARRAY;
            n->out_width = n->type_length = decimal_bytes((int32_t)prec);
        }
        return PLANK_OK;
    }
    if (!strcmp(f, "tdD")) {
        set_fixed(n, PK_IC_COPY, 4, PLANK_INT32);
        n->logical.kind = PLANK_LOGICAL_DATE;
        return PLANK_OK;
    }
    if (!strcmp(f, "tdm")) {
        set_fixed(n, PK_IC_DATE64, 8, PLANK_INT32);
        n->logical.kind = PLANK_LOGICAL_DATE;
        return PLANK_OK;
    }
    if (f[0] == 't' && f[1] == 't' && f[2] && !f[3]) {
        /* Arrow times carry no time zone; Arrow C++ writes them adjusted to UTC. */
        n->logical.kind = PLANK_LOGICAL_TIME;
        n->logical.is_adjusted_to_utc = true;
        switch (f[2]) {
        case 's': set_fixed(n, PK_IC_TIME32_S, 4, PLANK_INT32); n->logical.unit = PLANK_UNIT_MILLIS; return PLANK_OK;
        case 'm': set_fixed(n, PK_IC_COPY, 4, PLANK_INT32); n->logical.unit = PLANK_UNIT_MILLIS; return PLANK_OK;
        case 'u': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); n->logical.unit = PLANK_UNIT_MICROS; return PLANK_OK;
        case 'n': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); n->logical.unit = PLANK_UNIT_NANOS; return PLANK_OK;
        default: break;
        }
    }
    if (f[0] == 't' && f[1] == 's' && f[2] && (f[3] == ':' || !f[3])) {
        n->logical.kind = PLANK_LOGICAL_TIMESTAMP;
        n->logical.is_adjusted_to_utc = f[3] == ':' && f[4] != 0;
        switch (f[2]) {
        case 's': set_fixed(n, PK_IC_TS_S, 8, PLANK_INT64); n->logical.unit = PLANK_UNIT_MILLIS; return PLANK_OK;
        case 'm': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); n->logical.unit = PLANK_UNIT_MILLIS; return PLANK_OK;
        case 'u': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); n->logical.unit = PLANK_UNIT_MICROS; return PLANK_OK;
        case 'n': set_fixed(n, PK_IC_COPY, 8, PLANK_INT64); n->logical.unit = PLANK_UNIT_NANOS; return PLANK_OK;
        default: break;
        }
        n->logical = no_logical();
    }
    return unsupported(n, f, err);
}

/* ---- Schema to pk_inode tree ------------------------------------------------------------- */

typedef struct ibuilder {
    pk_itree *t;
    plank_error *err;
} ibuilder;

#define IOOM(b) pk_error_set((b)->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory")

static plank_status index_type(pk_inode *n, const char *f, plank_error *err) {
    if (f[0] && !f[1]) {
        switch (f[0]) {
        case 'c': n->index_width = 1; n->index_signed = true; return PLANK_OK;
        case 'C': n->index_width = 1; return PLANK_OK;
        case 's': n->index_width = 2; n->index_signed = true; return PLANK_OK;
        case 'S': n->index_width = 2; return PLANK_OK;
        case 'i': n->index_width = 4; n->index_signed = true; return PLANK_OK;
        case 'I': n->index_width = 4; return PLANK_OK;
        case 'l': n->index_width = 8; n->index_signed = true; return PLANK_OK;
        case 'L': n->index_width = 8; return PLANK_OK;
        default: break;
        }
    }
    return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                        "arrow field %s: dictionary index type \"%s\" is not an integer", n->path, f);
}

static plank_status build_node(ibuilder *b, const struct ArrowSchema *s, const char *parent_path,
                               const char *pq_name, bool force_required, int16_t null_def,
                               int16_t rep, int depth, pk_inode **out);

static plank_status build_child(ibuilder *b, pk_inode *n, int32_t k, const struct ArrowSchema *cs,
                                const char *pq_name, bool force_required, int16_t null_def,
                                int16_t rep, int depth) {
    PK_FORWARD(build_node(b, cs, n->path, pq_name, force_required, null_def, rep, depth + 1,
                          &n->children[k]));
    n->num_leaves += n->children[k]->num_leaves;
    return PLANK_OK;
}

static plank_status alloc_children(ibuilder *b, pk_inode *n, int32_t k) {
    n->num_children = k;
    n->children = pk_arena_alloc(&b->t->arena, (size_t)k * sizeof(pk_inode *));
    return n->children ? PLANK_OK : IOOM(b);
}

static bool bad_children(const struct ArrowSchema *s, int64_t want) {
    if (s->n_children != want || (want > 0 && !s->children)) return true;
    for (int64_t k = 0; k < want; k++)
        if (!s->children[k] || !s->children[k]->format) return true;
    return false;
}

static plank_status build_node(ibuilder *b, const struct ArrowSchema *s, const char *parent_path,
                               const char *pq_name, bool force_required, int16_t null_def,
                               int16_t rep, int depth, pk_inode **out) {
    const char *aname = s->name ? s->name : "";
    pk_inode *n = pk_arena_alloc(&b->t->arena, sizeof *n);
    if (!n) return IOOM(b);
    *out = n;
    if (parent_path && *parent_path) {
        size_t pl = strlen(parent_path), nl = strlen(aname);
        char *p = pk_arena_alloc(&b->t->arena, pl + nl + 2);
        if (!p) return IOOM(b);
        memcpy(p, parent_path, pl);
        p[pl] = '.';
        memcpy(p + pl + 1, aname, nl + 1);
        n->path = p;
    } else {
        n->path = aname;
    }
    if (depth > MAX_DEPTH)
        return pk_error_set(b->err, PLANK_ERR_LIMIT, "arrow field %s: nested deeper than %d",
                            n->path, MAX_DEPTH);
    n->s = s;
    n->name = pq_name ? pq_name : aname;
    n->nullable = !force_required && (s->flags & ARROW_FLAG_NULLABLE) != 0;
    n->first_leaf = b->t->num_leaves;
    n->physical_type = PLANK_PHYSICAL_NONE;
    n->logical = no_logical();
    const char *v;
    int32_t vl;
    if (meta_find(s->metadata, "PARQUET:field_id", &v, &vl)) {
        if (!parse_i32(v, vl, &n->field_id))
            return pk_error_set(b->err, PLANK_ERR_INVALID_ARGUMENT,
                                "arrow field %s: PARQUET:field_id is not an integer", n->path);
        n->has_field_id = true;
    }
    const struct ArrowSchema *vs = s;
    if (s->dictionary) {
        PK_FORWARD(index_type(n, s->format, b->err));
        vs = s->dictionary;
        if (!vs->format || vs->format[0] == '+')
            return pk_error_set(b->err, PLANK_ERR_UNSUPPORTED,
                                "arrow field %s: dictionary of nested values", n->path);
    }
    const char *f = vs->format;
    if (f[0] != '+') {
        n->kind = PK_IN_LEAF;
        PK_FORWARD(map_leaf(n, f, vs, b->err));
        if (n->conv == PK_IC_NULL) n->nullable = true; /* UNKNOWN columns are OPTIONAL */
        n->null_def = null_def;
        n->def = (int16_t)(null_def + n->nullable);
        n->max_rep = rep;
        n->num_leaves = 1;
        b->t->num_leaves++;
        b->t->num_fields++;
        return PLANK_OK;
    }
    n->null_def = null_def;
    n->def = (int16_t)(null_def + n->nullable);
    if (!strcmp(f, "+s")) {
        n->kind = PK_IN_STRUCT;
        if (s->n_children < 1 || bad_children(s, s->n_children))
            return pk_error_set(b->err, s->n_children < 1 ? PLANK_ERR_UNSUPPORTED
                                                          : PLANK_ERR_INVALID_ARGUMENT,
                                "arrow field %s: struct without (valid) fields", n->path);
        if (s->n_children > INT32_MAX / 2)
            return pk_error_set(b->err, PLANK_ERR_LIMIT, "arrow field %s: too many fields",
                                n->path);
        PK_FORWARD(alloc_children(b, n, (int32_t)s->n_children));
        b->t->num_fields++;
        /* The canonical extension for Parquet variants: the struct becomes
         * a VARIANT(1) group, its metadata REQUIRED as the format wants
         * (value and a shredded typed_value as the Arrow fields are). */
        bool variant = meta_find(s->metadata, "ARROW:extension:name", &v, &vl) && vl == 21 &&
                       !memcmp(v, "arrow.parquet.variant", 21);
        if (variant) {
            bool has_meta = false;
            for (int32_t k = 0; k < n->num_children; k++)
                has_meta |= s->children[k]->name && !strcmp(s->children[k]->name, "metadata") &&
                            s->children[k]->format && (!strcmp(s->children[k]->format, "z") ||
                                                       !strcmp(s->children[k]->format, "Z"));
            if (!has_meta)
                return pk_error_set(b->err, PLANK_ERR_INVALID_ARGUMENT,
                                    "arrow field %s: arrow.parquet.variant without a binary "
                                    "metadata field", n->path);
            n->logical.kind = PLANK_LOGICAL_VARIANT;
            n->logical.variant_version = 1;
        }
        for (int32_t k = 0; k < n->num_children; k++) {
            bool req = variant && !strcmp(s->children[k]->name, "metadata");
            PK_FORWARD(build_child(b, n, k, s->children[k], NULL, req, n->def, rep, depth));
        }
        return PLANK_OK;
    }
    bool is_list = true;
    if (!strcmp(f, "+l")) n->layout = PK_LIST_OFFSETS32;
    else if (!strcmp(f, "+L")) n->layout = PK_LIST_OFFSETS64;
    else if (!strcmp(f, "+vl")) n->layout = PK_LIST_VIEW32;
    else if (!strcmp(f, "+vL")) n->layout = PK_LIST_VIEW64;
    else if (f[1] == 'w' && f[2] == ':') {
        const char *p = f + 3;
        if (!parse_uint(&p, INT32_MAX, &n->fixed_size) || *p)
            return pk_error_set(b->err, PLANK_ERR_INVALID_ARGUMENT,
                                "arrow field %s: bad format \"%s\"", n->path, f);
        n->layout = PK_LIST_FIXED;
    } else if (!strcmp(f, "+m")) {
        n->layout = PK_LIST_OFFSETS32;
        is_list = false;
    } else {
        return unsupported(n, f, b->err);
    }
    if (bad_children(s, 1))
        return pk_error_set(b->err, PLANK_ERR_INVALID_ARGUMENT,
                            "arrow field %s: a list or map needs one child", n->path);
    n->rep = (int16_t)(rep + 1);
    n->elem_def = (int16_t)(n->def + 1);
    b->t->num_fields += 2; /* the LIST/MAP group and its repeated group */
    if (is_list) {
        n->kind = PK_IN_LIST;
        PK_FORWARD(alloc_children(b, n, 1));
        return build_child(b, n, 0, s->children[0], "element", false, n->elem_def, n->rep, depth);
    }
    n->kind = PK_IN_MAP;
    const struct ArrowSchema *ent = s->children[0];
    if (strcmp(ent->format, "+s") != 0 || bad_children(ent, 2))
        return pk_error_set(b->err, PLANK_ERR_INVALID_ARGUMENT,
                            "arrow field %s: map entries must be a struct of key and value",
                            n->path);
    PK_FORWARD(alloc_children(b, n, 2));
    PK_FORWARD(build_child(b, n, 0, ent->children[0], "key", true, n->elem_def, n->rep, depth));
    return build_child(b, n, 1, ent->children[1], "value", false, n->elem_def, n->rep, depth);
}

static void collect_leaves(pk_itree *t, pk_inode *n) {
    if (n->kind == PK_IN_LEAF) {
        t->leaves[n->first_leaf] = n;
        return;
    }
    for (int32_t k = 0; k < n->num_children; k++) collect_leaves(t, n->children[k]);
}

plank_status pk_itree_build(const struct ArrowSchema *schema, const plank_allocator *a,
                            pk_itree *t, plank_error *err) {
    memset(t, 0, sizeof *t);
    pk_arena_init(&t->arena, a);
    if (!schema || !schema->format || strcmp(schema->format, "+s") != 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "arrow schema: a record batch must be a struct (\"+s\")");
    if (schema->n_children < 0 || schema->n_children > INT32_MAX / 2 ||
        bad_children(schema, schema->n_children))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "arrow schema: invalid children");
    ibuilder b = {t, err};
    pk_inode *root = pk_arena_alloc(&t->arena, sizeof *root);
    plank_status st = root ? alloc_children(&b, root, (int32_t)schema->n_children) : IOOM(&b);
    if (st == PLANK_OK) {
        root->kind = PK_IN_STRUCT;
        root->s = schema;
        root->path = "";
        root->name = schema->name && *schema->name ? schema->name : NULL;
        root->logical = no_logical();
        root->physical_type = PLANK_PHYSICAL_NONE;
        t->num_fields = 1;
        for (int32_t k = 0; k < root->num_children && st == PLANK_OK; k++)
            st = build_child(&b, root, k, schema->children[k], NULL, false, 0, 0, 0);
    }
    if (st == PLANK_OK) {
        t->leaves = pk_arena_alloc(&t->arena, (size_t)t->num_leaves * sizeof(pk_inode *) + 1);
        if (!t->leaves) st = IOOM(&b);
    }
    if (st != PLANK_OK) {
        pk_itree_free(t);
        return st;
    }
    t->root = root;
    collect_leaves(t, root);
    return PLANK_OK;
}

void pk_itree_free(pk_itree *t) {
    if (!t) return;
    pk_arena_reset(&t->arena);
    memset(t, 0, sizeof *t);
}

/* ---- The plank_schema_field array ---------------------------------------------------- */

static void field_init(plank_schema_field *f) {
    memset(f, 0, sizeof *f);
    f->struct_size = sizeof *f;
    f->physical_type = PLANK_PHYSICAL_NONE;
    f->repetition = PLANK_REQUIRED;
    f->logical = no_logical();
}

static int32_t emit_fields(const pk_inode *n, plank_schema_field *f) {
    int32_t i = 0;
    field_init(&f[i]);
    f[i].name = n->name;
    f[i].repetition = n->nullable ? PLANK_OPTIONAL : PLANK_REQUIRED;
    f[i].has_field_id = n->has_field_id;
    f[i].field_id = n->field_id;
    switch (n->kind) {
    case PK_IN_LEAF:
        f[i].physical_type = n->physical_type;
        f[i].type_length = n->type_length;
        f[i].logical = n->logical;
        return 1;
    case PK_IN_STRUCT:
        f[i].logical = n->logical; /* VARIANT, or none */
        f[i++].num_children = n->num_children;
        break;
    case PK_IN_LIST:
    case PK_IN_MAP: {
        bool map = n->kind == PK_IN_MAP;
        f[i].num_children = 1;
        f[i++].logical.kind = map ? PLANK_LOGICAL_MAP : PLANK_LOGICAL_LIST;
        field_init(&f[i]);
        f[i].name = map ? "key_value" : "list";
        f[i].repetition = PLANK_REPEATED;
        f[i++].num_children = n->num_children;
        break;
    }
    }
    for (int32_t k = 0; k < n->num_children; k++) i += emit_fields(n->children[k], f + i);
    return i;
}

plank_status plank_schema_from_arrow(const struct ArrowSchema *schema, const plank_allocator *a,
                                     plank_schema_field **fields, int32_t *num_fields,
                                     plank_error *err) {
    plank_error_init(err);
    if (!fields || !num_fields)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    *fields = NULL;
    *num_fields = 0;
    pk_itree t;
    PK_FORWARD(pk_itree_build(schema, a, &t, err));
    plank_schema_field *f = pk_malloc(a, (size_t)t.num_fields * sizeof *f);
    if (!f) {
        pk_itree_free(&t);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* The root: its fields follow as a group's children do. */
    field_init(&f[0]);
    f[0].name = t.root->name;
    f[0].num_children = t.root->num_children;
    int32_t i = 1;
    for (int32_t k = 0; k < t.root->num_children; k++) i += emit_fields(t.root->children[k], f + i);
    *fields = f;
    *num_fields = t.num_fields;
    pk_itree_free(&t);
    return PLANK_OK;
}

void plank_schema_fields_free(const plank_allocator *a, plank_schema_field *fields,
                              int32_t num_fields) {
    if (!fields) return;
    pk_free(a, fields, (size_t)num_fields * sizeof *fields);
}

/* ---- Shredding ----------------------------------------------------------------------- */

typedef struct scol {
    int64_t n;      /* slots so far */
    int64_t bytes;  /* BYTE_ARRAY data bytes so far */
    int64_t nulls;
    int16_t *def, *rep;
    uint8_t *vals;  /* fixed width: n * out_width; BOOLEAN: bitmap */
    int64_t *offs;  /* BYTE_ARRAY: n + 1 */
    uint8_t *data;
} scol;

typedef struct shredder {
    const pk_itree *t;
    scol *cols;
    bool fill;
    plank_error *err;
} shredder;

static plank_status bad_array(shredder *sh, const pk_inode *n, const char *what) {
    return pk_error_set(sh->err, PLANK_ERR_INVALID_ARGUMENT, "arrow array %s: %s",
                        n->path && *n->path ? n->path : "(root)", what);
}

static bool is_valid(const struct ArrowArray *a, int64_t j) {
    if (a->null_count == 0 || a->n_buffers < 1 || !a->buffers[0]) return true;
    return pk_bit_get(a->buffers[0], j + a->offset);
}

/* Checks the counts and lengths every array must have. */
static plank_status check_shape(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                                int64_t hi, int64_t nbuf, int64_t nchild) {
    if (!a) return bad_array(sh, n, "missing array");
    int64_t end;
    if (a->length < 0 || a->offset < 0 || pk_add_overflow_i64(a->offset, a->length, &end) ||
        end == INT64_MAX || a->null_count < -1)
        return bad_array(sh, n, "negative or overflowing length/offset/null_count");
    if (hi > a->length) return bad_array(sh, n, "shorter than its parent needs");
    if (nbuf >= 0 ? a->n_buffers != nbuf : a->n_buffers < -nbuf)
        return bad_array(sh, n, "wrong number of buffers for its type");
    if (a->n_buffers > 0 && !a->buffers) return bad_array(sh, n, "NULL buffers");
    if (a->n_children != nchild || (nchild > 0 && !a->children))
        return bad_array(sh, n, "wrong number of children for its type");
    for (int64_t k = 0; k < nchild; k++)
        if (!a->children[k]) return bad_array(sh, n, "NULL child");
    return PLANK_OK;
}

static plank_status check_array(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                                int64_t lo, int64_t hi);

static int64_t load_off(const void *buf, bool wide, int64_t p) {
    if (wide) return (int64_t)pk_load_u64((const uint8_t *)buf + p * 8);
    return (int32_t)pk_load_u32((const uint8_t *)buf + p * 4);
}

/* Offsets at positions [from, to] (physical) are >= 0 and non-decreasing. */
static bool offsets_ok(const void *buf, bool wide, int64_t from, int64_t to) {
    int64_t prev = load_off(buf, wide, from);
    if (prev < 0) return false;
    for (int64_t p = from + 1; p <= to; p++) {
        int64_t o = load_off(buf, wide, p);
        if (o < prev) return false;
        prev = o;
    }
    return true;
}

static plank_status check_leaf_values(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                                      int64_t lo, int64_t hi) {
    int64_t nbuf = 2;
    if (n->conv == PK_IC_NULL) {
        if (a->n_buffers > 1) return bad_array(sh, n, "a null array has no buffers");
        nbuf = a->n_buffers;
    } else if (n->conv == PK_IC_BINARY32 || n->conv == PK_IC_BINARY64) {
        nbuf = 3;
    } else if (n->conv == PK_IC_VIEW) {
        nbuf = -3; /* validity, views, variadic data buffers..., their sizes */
    }
    PK_FORWARD(check_shape(sh, n, a, hi, nbuf, 0));
    if (hi <= lo || n->conv == PK_IC_NULL) return PLANK_OK;
    if (!a->buffers[1]) return bad_array(sh, n, "NULL values buffer");
    if (n->conv == PK_IC_BINARY32 || n->conv == PK_IC_BINARY64) {
        bool wide = n->conv == PK_IC_BINARY64;
        if (!offsets_ok(a->buffers[1], wide, lo + a->offset, hi + a->offset))
            return bad_array(sh, n, "offsets negative or decreasing");
        if (load_off(a->buffers[1], wide, hi + a->offset) >
                load_off(a->buffers[1], wide, lo + a->offset) &&
            !a->buffers[2])
            return bad_array(sh, n, "NULL data buffer");
    }
    if (n->conv == PK_IC_VIEW && a->n_buffers > 3 && !a->buffers[a->n_buffers - 1])
        return bad_array(sh, n, "NULL variadic buffer sizes");
    return PLANK_OK;
}

/* The children of list element j (logical): [*b, *e) in the child. */
static void list_range(const pk_inode *n, const struct ArrowArray *a, int64_t j, int64_t *b,
                       int64_t *e) {
    int64_t p = j + a->offset;
    *b = *e = 0;
    switch (n->layout) {
    case PK_LIST_OFFSETS32:
    case PK_LIST_OFFSETS64: {
        bool wide = n->layout == PK_LIST_OFFSETS64;
        *b = load_off(a->buffers[1], wide, p);
        *e = load_off(a->buffers[1], wide, p + 1);
        return;
    }
    case PK_LIST_VIEW32:
    case PK_LIST_VIEW64: {
        bool wide = n->layout == PK_LIST_VIEW64;
        *b = load_off(a->buffers[1], wide, p);
        *e = *b + load_off(a->buffers[2], wide, p);
        return;
    }
    case PK_LIST_FIXED:
        *b = p * n->fixed_size;
        *e = *b + n->fixed_size;
        return;
    }
}

static plank_status check_list(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                               int64_t lo, int64_t hi) {
    int64_t nbuf = n->layout == PK_LIST_FIXED ? 1 : n->layout >= PK_LIST_VIEW32 ? 3 : 2;
    PK_FORWARD(check_shape(sh, n, a, hi, nbuf, 1));
    const struct ArrowArray *c = a->children[0];
    if (!c) return bad_array(sh, n, "NULL child");
    int64_t clo = 0, chi = 0;
    if (hi > lo) {
        for (int64_t k = 1; k < nbuf; k++)
            if (!a->buffers[k]) return bad_array(sh, n, "NULL offsets buffer");
        int64_t p0 = lo + a->offset, p1 = hi + a->offset;
        switch (n->layout) {
        case PK_LIST_OFFSETS32:
        case PK_LIST_OFFSETS64: {
            bool wide = n->layout == PK_LIST_OFFSETS64;
            if (!offsets_ok(a->buffers[1], wide, p0, p1))
                return bad_array(sh, n, "offsets negative or decreasing");
            clo = load_off(a->buffers[1], wide, p0);
            chi = load_off(a->buffers[1], wide, p1);
            break;
        }
        case PK_LIST_VIEW32:
        case PK_LIST_VIEW64: {
            /* Views of null slots are not read; the others must be in range. */
            clo = INT64_MAX;
            for (int64_t j = lo; j < hi; j++) {
                if (!is_valid(a, j)) continue;
                bool wide = n->layout == PK_LIST_VIEW64;
                int64_t o = load_off(a->buffers[1], wide, j + a->offset);
                int64_t s = load_off(a->buffers[2], wide, j + a->offset);
                if (o < 0 || s < 0 || o > INT64_MAX - s)
                    return bad_array(sh, n, "list view offset or size out of range");
                if (s == 0) continue;
                if (o < clo) clo = o;
                if (o + s > chi) chi = o + s;
            }
            if (clo > chi) clo = chi;
            break;
        }
        case PK_LIST_FIXED:
            if (__builtin_mul_overflow(p0, n->fixed_size, &clo) ||
                __builtin_mul_overflow(p1, n->fixed_size, &chi))
                return bad_array(sh, n, "fixed-size list too long");
            break;
        }
    }
    if (n->kind == PK_IN_LIST) return check_array(sh, n->children[0], c, clo, chi);
    /* A map's child is the entries struct of key and value. */
    PK_FORWARD(check_shape(sh, n, c, chi, 1, 2));
    int64_t elo = clo + c->offset, ehi = chi + c->offset;
    PK_FORWARD(check_array(sh, n->children[0], c->children[0], elo, ehi));
    return check_array(sh, n->children[1], c->children[1], elo, ehi);
}

/* Checks that array a (of node n) can be read at logical indexes [lo, hi). */
static plank_status check_array(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                                int64_t lo, int64_t hi) {
    if (!a) return bad_array(sh, n, "missing array");
    switch (n->kind) {
    case PK_IN_LEAF:
        if (n->index_width) {
            PK_FORWARD(check_shape(sh, n, a, hi, 2, 0));
            if (hi > lo && !a->buffers[1]) return bad_array(sh, n, "NULL indices buffer");
            if (!a->dictionary) return bad_array(sh, n, "dictionary missing");
            return check_leaf_values(sh, n, a->dictionary, 0, a->dictionary->length);
        }
        return check_leaf_values(sh, n, a, lo, hi);
    case PK_IN_STRUCT: {
        PK_FORWARD(check_shape(sh, n, a, hi, 1, n->num_children));
        for (int32_t k = 0; k < n->num_children; k++)
            PK_FORWARD(check_array(sh, n->children[k], a->children[k], lo + a->offset,
                                   hi + a->offset));
        return PLANK_OK;
    }
    case PK_IN_LIST:
    case PK_IN_MAP:
        return check_list(sh, n, a, lo, hi);
    }
    return PLANK_OK;
}

/* Appends a slot to column c; a null one when value is false. */
PK_INLINE void push(shredder *sh, scol *c, int16_t def, int16_t rep, bool value) {
    if (sh->fill) {
        if (c->def) c->def[c->n] = def;
        if (c->rep) c->rep[c->n] = rep;
        if (c->offs && !value) c->offs[c->n + 1] = c->offs[c->n];
    }
    if (!value) c->nulls++;
    c->n++;
}

static void emit_nulls(shredder *sh, const pk_inode *n, int16_t def, int16_t rep) {
    for (int32_t l = n->first_leaf; l < n->first_leaf + n->num_leaves; l++)
        push(sh, &sh->cols[l], def, rep, false);
}

static plank_status null_error(shredder *sh, const pk_inode *n) {
    return bad_array(sh, n, "null value in a non-nullable field");
}

/* Sign byte i of a little-endian two's complement integer of w bytes. */
PK_INLINE uint8_t dec_byte(const uint8_t *v, int32_t w, int32_t i) {
    if (i < w) return v[i];
    return (v[w - 1] & 0x80) ? 0xFF : 0;
}

/* The decimal fits `out` bytes: every byte above is the sign extension. */
static bool dec_fits(const uint8_t *v, int32_t w, int32_t out) {
    uint8_t sign = (dec_byte(v, w, out - 1) & 0x80) ? 0xFF : 0;
    for (int32_t i = out; i < w; i++)
        if (v[i] != sign) return false;
    return true;
}

/* A view's bytes; false when the view points outside its buffers. */
static bool view_bytes(const struct ArrowArray *a, int64_t p, const uint8_t **data, int64_t *len) {
    const uint8_t *v = (const uint8_t *)a->buffers[1] + p * 16;
    int32_t l = (int32_t)pk_load_u32(v);
    if (l < 0) return false;
    *len = l;
    if (l <= 12) {
        *data = v + 4;
        return true;
    }
    int32_t bi = (int32_t)pk_load_u32(v + 8), off = (int32_t)pk_load_u32(v + 12);
    int64_t nvar = a->n_buffers - 3;
    if (bi < 0 || bi >= nvar || off < 0) return false;
    int64_t size = (int64_t)pk_load_u64((const uint8_t *)a->buffers[a->n_buffers - 1] + bi * 8);
    if ((int64_t)off + l > size || !a->buffers[2 + bi]) return false;
    *data = (const uint8_t *)a->buffers[2 + bi] + off;
    return true;
}

static const int64_t MS_PER_DAY = 86400000;

/* Counts (and checks) or writes the value at physical position p of a. */
static plank_status leaf_value(shredder *sh, const pk_inode *n, scol *c,
                               const struct ArrowArray *a, int64_t p) {
    const uint8_t *buf = a->buffers[1];
    int64_t slot = c->n;
    bool fill = sh->fill;
    switch (n->conv) {
    case PK_IC_NULL:
        return PLANK_OK;
    case PK_IC_BOOL:
        if (fill && pk_bit_get(buf, p)) pk_bit_set(c->vals, slot);
        return PLANK_OK;
    case PK_IC_I8:
        if (fill) pk_store_u32(c->vals + slot * 4, (uint32_t)(int32_t)(int8_t)buf[p]);
        return PLANK_OK;
    case PK_IC_U8:
        if (fill) pk_store_u32(c->vals + slot * 4, buf[p]);
        return PLANK_OK;
    case PK_IC_I16:
        if (fill) pk_store_u32(c->vals + slot * 4, (uint32_t)(int32_t)(int16_t)pk_load_u16(buf + p * 2));
        return PLANK_OK;
    case PK_IC_U16:
        if (fill) pk_store_u32(c->vals + slot * 4, pk_load_u16(buf + p * 2));
        return PLANK_OK;
    case PK_IC_COPY:
        if (fill)
            memcpy(c->vals + slot * n->out_width, buf + p * n->src_width, (size_t)n->src_width);
        return PLANK_OK;
    case PK_IC_DATE64: {
        int64_t ms = (int64_t)pk_load_u64(buf + p * 8);
        int64_t d = ms / MS_PER_DAY - (ms % MS_PER_DAY < 0);
        if (d < INT32_MIN || d > INT32_MAX)
            return bad_array(sh, n, "date64 value out of the range of DATE");
        if (fill) pk_store_u32(c->vals + slot * 4, (uint32_t)(int32_t)d);
        return PLANK_OK;
    }
    case PK_IC_TIME32_S: {
        int64_t ms = (int64_t)(int32_t)pk_load_u32(buf + p * 4) * 1000;
        if (ms < INT32_MIN || ms > INT32_MAX)
            return bad_array(sh, n, "time32[s] value out of the range of TIME(MILLIS)");
        if (fill) pk_store_u32(c->vals + slot * 4, (uint32_t)(int32_t)ms);
        return PLANK_OK;
    }
    case PK_IC_TS_S: {
        int64_t ms;
        if (__builtin_mul_overflow((int64_t)pk_load_u64(buf + p * 8), (int64_t)1000, &ms))
            return bad_array(sh, n, "timestamp[s] value out of the range of TIMESTAMP(MILLIS)");
        if (fill) pk_store_u64(c->vals + slot * 8, (uint64_t)ms);
        return PLANK_OK;
    }
    case PK_IC_DECIMAL: {
        const uint8_t *v = buf + p * n->src_width;
        int32_t w = n->src_width, ow = n->out_width;
        if (!fill) {
            if (!dec_fits(v, w, ow))
                return bad_array(sh, n, "decimal value does not fit its precision");
            return PLANK_OK;
        }
        uint8_t *o = c->vals + slot * ow;
        bool be = n->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY;
        for (int32_t i = 0; i < ow; i++) o[be ? ow - 1 - i : i] = dec_byte(v, w, i);
        return PLANK_OK;
    }
    case PK_IC_BINARY32:
    case PK_IC_BINARY64:
    case PK_IC_VIEW: {
        const uint8_t *d;
        int64_t len;
        if (n->conv == PK_IC_VIEW) {
            if (!view_bytes(a, p, &d, &len)) return bad_array(sh, n, "view out of range");
        } else {
            bool wide = n->conv == PK_IC_BINARY64;
            int64_t b = load_off(buf, wide, p);
            len = load_off(buf, wide, p + 1) - b;
            d = (const uint8_t *)a->buffers[2] + b;
        }
        if (fill) {
            if (len) memcpy(c->data + c->offs[slot], d, (size_t)len);
            c->offs[slot + 1] = c->offs[slot] + len;
        } else if (pk_add_overflow_i64(c->bytes, len, &c->bytes)) {
            return bad_array(sh, n, "too many bytes");
        }
        return PLANK_OK;
    }
    }
    return PLANK_OK;
}

static int64_t load_index(const pk_inode *n, const struct ArrowArray *a, int64_t j) {
    const uint8_t *b = (const uint8_t *)a->buffers[1] + (j + a->offset) * n->index_width;
    switch (n->index_width) {
    case 1: return n->index_signed ? (int64_t)(int8_t)b[0] : (int64_t)b[0];
    case 2: return n->index_signed ? (int64_t)(int16_t)pk_load_u16(b) : (int64_t)pk_load_u16(b);
    case 4: return n->index_signed ? (int64_t)(int32_t)pk_load_u32(b) : (int64_t)pk_load_u32(b);
    default: {
        uint64_t v = pk_load_u64(b);
        return !n->index_signed && v > INT64_MAX ? -1 : (int64_t)v;
    }
    }
}

static plank_status emit_leaf(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                              int64_t j, int16_t rep) {
    scol *c = &sh->cols[n->first_leaf];
    bool valid = n->conv != PK_IC_NULL && is_valid(a, j);
    if (valid && n->index_width) {
        int64_t k = load_index(n, a, j);
        a = a->dictionary;
        if (!sh->fill && (k < 0 || k >= a->length))
            return bad_array(sh, n, "dictionary index out of range");
        j = k;
        valid = is_valid(a, j);
    }
    if (!valid) {
        if (!n->nullable) return null_error(sh, n);
        push(sh, c, n->null_def, rep, false);
        return PLANK_OK;
    }
    PK_FORWARD(leaf_value(sh, n, c, a, j + a->offset));
    push(sh, c, n->def, rep, true);
    return PLANK_OK;
}

static plank_status emit(shredder *sh, const pk_inode *n, const struct ArrowArray *a, int64_t j,
                         int16_t rep) {
    if (n->kind == PK_IN_LEAF) return emit_leaf(sh, n, a, j, rep);
    if (!is_valid(a, j)) {
        if (!n->nullable) return null_error(sh, n);
        emit_nulls(sh, n, n->null_def, rep);
        return PLANK_OK;
    }
    if (n->kind == PK_IN_STRUCT) {
        for (int32_t k = 0; k < n->num_children; k++)
            PK_FORWARD(emit(sh, n->children[k], a->children[k], j + a->offset, rep));
        return PLANK_OK;
    }
    int64_t b, e;
    list_range(n, a, j, &b, &e);
    if (b == e) {
        emit_nulls(sh, n, n->def, rep); /* an empty list or map */
        return PLANK_OK;
    }
    const struct ArrowArray *c = a->children[0];
    for (int64_t k = b; k < e; k++) {
        int16_t r = k == b ? rep : n->rep;
        if (n->kind == PK_IN_LIST) {
            PK_FORWARD(emit(sh, n->children[0], c, k, r));
        } else {
            PK_FORWARD(emit(sh, n->children[0], c->children[0], k + c->offset, r));
            PK_FORWARD(emit(sh, n->children[1], c->children[1], k + c->offset, r));
        }
    }
    return PLANK_OK;
}

/* A leaf directly under the root whose Arrow values are already the writer's (fixed
 * widths taken as they are, byte strings), or decimals narrowed to the column's width.
 * Its batch points at the Arrow buffers, or at decimals converted in one loop
 * (flat_column), instead of being shredded value by value: no copy of the bytes. */
static bool flat_leaf(const pk_inode *n) {
    return n->kind == PK_IN_LEAF && n->index_width == 0 && n->max_rep == 0 &&
           ((n->conv == PK_IC_COPY && n->src_width == n->out_width) ||
            n->conv == PK_IC_BINARY32 || n->conv == PK_IC_BINARY64 ||
            n->conv == PK_IC_DECIMAL);
}

static plank_status shred_pass(shredder *sh, const struct ArrowArray *array) {
    const pk_inode *root = sh->t->root;
    for (int64_t j = 0; j < array->length; j++) {
        if (!is_valid(array, j)) return bad_array(sh, root, "a null record (top-level struct)");
        for (int32_t k = 0; k < root->num_children; k++)
            if (!flat_leaf(root->children[k]))
                PK_FORWARD(emit(sh, root->children[k], array->children[k], j + array->offset, 0));
    }
    return PLANK_OK;
}

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Allocates column l's block for c->n slots and c->bytes bytes, and points
 * its batch at it. */
static plank_status alloc_column(pk_shredded *out, int32_t l, const pk_inode *leaf, scol *c,
                                 plank_error *err) {
    if (c->bytes > (int64_t)(SIZE_MAX / 4) || (uint64_t)c->n > SIZE_MAX / 32)
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "arrow batch too large");
    size_t n = (size_t)c->n;
    size_t lv = round16(n * sizeof(int16_t));
    size_t dsz = leaf->def > 0 ? lv : 0, rsz = leaf->max_rep > 0 ? lv : 0, vsz = 0, osz = 0;
    bool binary = leaf->physical_type == PLANK_BYTE_ARRAY;
    if (binary) osz = round16((n + 1) * sizeof(int64_t));
    else if (leaf->physical_type == PLANK_BOOLEAN) vsz = round16((n + 7) / 8);
    else vsz = round16(n * (size_t)leaf->out_width);
    size_t bytes = binary ? round16((size_t)c->bytes) : 0;
    size_t total = dsz + rsz + vsz + osz + bytes + 16;
    uint8_t *m = pk_calloc(&out->alloc, total);
    if (!m) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    out->blocks[l] = m;
    out->sizes[l] = total;
    plank_batch *bt = &out->cols[l];
    bt->struct_size = sizeof *bt;
    bt->length = c->n;
    bt->null_count = c->nulls;
    bt->physical_type = leaf->physical_type;
    bt->value_width = binary || leaf->physical_type == PLANK_BOOLEAN ? 0 : leaf->out_width;
    size_t at = 0;
    if (dsz) { c->def = (int16_t *)(m + at); bt->def_levels = c->def; at += dsz; }
    if (rsz) { c->rep = (int16_t *)(m + at); bt->rep_levels = c->rep; at += rsz; }
    if (binary) {
        c->offs = (int64_t *)(m + at);
        c->data = m + at + osz;
        bt->offsets = c->offs;
        bt->data = c->data;
    } else {
        c->vals = m + at;
        bt->values = c->vals;
    }
    c->n = c->bytes = c->nulls = 0;
    return PLANK_OK;
}

/* Flat decimals narrowed into o (rows * out_width bytes), each valid one checked to fit
 * (null slots may hold anything): 16-byte values to INT64, the common case, as two
 * words, others byte by byte as leaf_value does. */
static plank_status flat_decimals(shredder *sh, const pk_inode *n, const struct ArrowArray *a,
                                  int64_t first, int64_t rows, const uint8_t *valid, uint8_t *o,
                                  plank_batch *bt) {
    const int32_t w = n->src_width, ow = n->out_width;
    const bool be = n->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY;
    const uint8_t *src = (const uint8_t *)a->buffers[1] + (size_t)first * (size_t)w;
    bt->values = o;
    if (w == 16 && ow == 8 && !be) {
        uint64_t bad = 0;
        for (int64_t i = 0; i < rows; i++) {
            uint64_t lo = pk_load_u64(src + 16 * i), hi = pk_load_u64(src + 16 * i + 8);
            uint64_t off = hi ^ (uint64_t)((int64_t)lo >> 63); /* 0 when it sign-extends lo */
            if (valid && !pk_bit_get(valid, first + i)) off = 0;
            bad |= off;
            pk_store_u64(o + 8 * i, lo);
        }
        return bad ? bad_array(sh, n, "decimal value does not fit its precision") : PLANK_OK;
    }
    for (int64_t i = 0; i < rows; i++) {
        if (valid && !pk_bit_get(valid, first + i)) continue;
        const uint8_t *v = src + (size_t)i * (size_t)w;
        if (!dec_fits(v, w, ow)) return bad_array(sh, n, "decimal value does not fit its precision");
        uint8_t *d = o + (size_t)i * (size_t)ow;
        for (int32_t b = 0; b < ow; b++) d[be ? ow - 1 - b : b] = dec_byte(v, w, b);
    }
    return PLANK_OK;
}

/* The batch of flat leaf n (column l, Arrow array a, checked by check_array) over the
 * records' rows: values, or offsets and bytes, borrowed from a for the call that writes
 * it (int32 offsets widened to int64); definition levels made here, and a required
 * leaf's nulls refused as the shredder refuses them. */
static plank_status flat_column(shredder *sh, pk_shredded *out, int32_t l, const pk_inode *n,
                                const struct ArrowArray *a, int64_t first, int64_t rows) {
    const uint8_t *valid = a->null_count != 0 && a->n_buffers >= 1 ? a->buffers[0] : NULL;
    if (valid && !n->nullable)
        for (int64_t i = 0; i < rows; i++)
            if (!pk_bit_get(valid, first + i)) return null_error(sh, n);
    if ((uint64_t)rows > SIZE_MAX / 32)
        return pk_error_set(sh->err, PLANK_ERR_OUT_OF_MEMORY, "arrow batch too large");
    size_t nr = (size_t)rows;
    const bool binary = n->physical_type == PLANK_BYTE_ARRAY;
    /* int64 offsets are borrowed; int32 ones (and an empty batch's) made here */
    const bool own_offsets = binary && (n->conv == PK_IC_BINARY32 || rows == 0);
    size_t dsz = n->def > 0 ? round16(nr * sizeof(int16_t)) : 0;
    size_t osz = own_offsets ? round16((nr + 1) * sizeof(int64_t)) : 0;
    size_t vsz = n->conv == PK_IC_DECIMAL ? round16(nr * (size_t)n->out_width) : 0;
    size_t total = dsz + osz + vsz + 16;
    uint8_t *m = pk_calloc(&out->alloc, total);
    if (!m) return pk_error_set(sh->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    out->blocks[l] = m;
    out->sizes[l] = total;
    plank_batch *bt = &out->cols[l];
    bt->struct_size = sizeof *bt;
    bt->length = rows;
    bt->physical_type = n->physical_type;
    bt->value_width = binary ? 0 : n->out_width;
    if (dsz) {
        int16_t *def = (int16_t *)(void *)m;
        int64_t nulls = 0;
        for (int64_t i = 0; i < rows; i++) {
            bool v = !valid || pk_bit_get(valid, first + i);
            def[i] = v ? n->def : n->null_def;
            nulls += !v;
        }
        bt->def_levels = def;
        bt->null_count = nulls;
    }
    if (n->conv == PK_IC_DECIMAL)
        return flat_decimals(sh, n, a, first, rows, valid, m + dsz, bt);
    if (!binary) {
        bt->values = (const uint8_t *)a->buffers[1] + (size_t)first * (size_t)n->out_width;
        return PLANK_OK;
    }
    if (own_offsets) {
        int64_t *o = (int64_t *)(void *)(m + dsz);
        for (int64_t i = 0; rows > 0 && i <= rows; i++) o[i] = load_off(a->buffers[1], false, first + i);
        bt->offsets = o;
    } else {
        bt->offsets = (const int64_t *)a->buffers[1] + first;
    }
    /* the bytes (NULL when every value is empty: the writer wants a pointer) */
    bt->data = a->buffers[2] ? (const uint8_t *)a->buffers[2] : m;
    return PLANK_OK;
}

void pk_shredded_free(pk_shredded *s) {
    if (!s) return;
    for (int32_t l = 0; l < s->num_columns; l++)
        if (s->blocks && s->sizes) pk_free(&s->alloc, s->blocks[l], s->sizes[l]);
    size_t n = (size_t)s->num_columns;
    pk_free(&s->alloc, s->blocks, n * sizeof(void *) + 1);
    pk_free(&s->alloc, s->sizes, n * sizeof(size_t) + 1);
    pk_free(&s->alloc, s->cols, n * sizeof(plank_batch) + 1);
    memset(s, 0, sizeof *s);
}

plank_status pk_arrow_shred(const pk_itree *t, const struct ArrowArray *array,
                            const plank_allocator *a, pk_shredded *out, plank_error *err) {
    memset(out, 0, sizeof *out);
    out->alloc = a ? *a : *pk_default_allocator();
    shredder sh = {t, NULL, false, err};
    if (!array) return bad_array(&sh, t->root, "missing array");
    PK_FORWARD(check_array(&sh, t->root, array, 0, array->length));
    size_t n = (size_t)t->num_leaves;
    out->num_columns = t->num_leaves;
    out->num_rows = array->length;
    out->cols = pk_calloc(&out->alloc, n * sizeof(plank_batch) + 1);
    out->blocks = pk_calloc(&out->alloc, n * sizeof(void *) + 1);
    out->sizes = pk_calloc(&out->alloc, n * sizeof(size_t) + 1);
    scol *cols = pk_calloc(&out->alloc, n * sizeof(scol) + 1);
    plank_status st = PLANK_OK;
    if (!out->cols || !out->blocks || !out->sizes || !cols)
        st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    sh.cols = cols;
    if (st == PLANK_OK) st = shred_pass(&sh, array);
    const pk_inode *root = t->root;
    for (int32_t k = 0; k < root->num_children && st == PLANK_OK; k++) {
        const pk_inode *c = root->children[k];
        if (flat_leaf(c))
            st = flat_column(&sh, out, c->first_leaf, c, array->children[k],
                             array->offset + array->children[k]->offset, array->length);
    }
    for (int32_t l = 0; l < t->num_leaves && st == PLANK_OK; l++)
        if (!out->blocks[l]) st = alloc_column(out, l, t->leaves[l], &cols[l], err);
    if (st == PLANK_OK) {
        sh.fill = true;
        st = shred_pass(&sh, array);
    }
    pk_free(&out->alloc, cols, n * sizeof(scol) + 1);
    if (st != PLANK_OK) pk_shredded_free(out);
    return st;
}
