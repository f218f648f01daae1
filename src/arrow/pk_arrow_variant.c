/*
 * pk_arrow_variant.c: shredded VARIANT columns reassembled into unshredded
 * values (the format's VariantShredding.md, "Reconstructing a Shredded
 * Variant").
 *
 * The stream first assembles a shredded VARIANT group like any struct
 * (metadata, value, typed_value and whatever is below typed_value); this
 * pass then replaces that struct array by struct<metadata, value> in which
 * every value is encoded whole. It reads only the Arrow arrays and the
 * pk_anode tree that describes them, so it sees exactly the layouts the
 * export produces (dictionary arrays, 32- or 64-bit offsets, narrow or
 * decimal128 decimals, offsets of sliced arrays).
 *
 * Per row, recursively (value v, typed_value t):
 *  - t non-null: an object (t a struct of field groups) merges the shredded
 *    fields present with the fields of v, which must then be an object; an
 *    array (t a list of element groups) or a primitive requires v null;
 *  - t null, v non-null: v as stored (checked);
 *  - both null: missing (a missing object field is left out; a missing
 *    top-level value is Variant null, as the spec asks).
 * Conflicts the spec calls invalid are PLANK_ERR_CORRUPT naming the column
 * and the row; so are unsigned and other types the spec does not allow for
 * typed_value.
 */
#include "pk_arrow.h"
#include "../variant/pk_variant.h"

#include <stdio.h>
#include <string.h>

typedef struct unshred {
    pk_vwriter w;
    pk_vmeta meta;
    const char *column; /* the variant's path, for messages */
    plank_error *err;
} unshred;

/* ---- Reading exported arrays -------------------------------------------------- */

static bool valid_at(const struct ArrowArray *a, int64_t i) {
    const uint8_t *bits = a->n_buffers > 0 ? a->buffers[0] : NULL;
    if (!bits || a->null_count == 0) return true;
    int64_t k = a->offset + i;
    return (bits[k >> 3] >> (k & 7)) & 1;
}

static bool large_format(const char *f) { return f[0] == 'U' || f[0] == 'Z'; }

/* Bytes of element i of a binary/string array of the given format. */
static void bytes_at(const struct ArrowArray *a, const char *format, int64_t i,
                     const uint8_t **p, size_t *n) {
    int64_t k = a->offset + i;
    const uint8_t *data = a->buffers[2];
    if (large_format(format)) {
        const int64_t *o = a->buffers[1];
        *p = data + o[k];
        *n = (size_t)(o[k + 1] - o[k]);
    } else {
        const int32_t *o = a->buffers[1];
        *p = data + o[k];
        *n = (size_t)(o[k + 1] - o[k]);
    }
}

/* A BYTE_ARRAY leaf's bytes at i, through the dictionary when the leaf is
 * exported as a dictionary array. */
static void leaf_bytes(const pk_anode *an, const struct ArrowArray *a, int64_t i,
                       const uint8_t **p, size_t *n) {
    if (an->dict) {
        const int32_t *idx = a->buffers[1];
        bytes_at(a->dictionary, an->format, idx[a->offset + i], p, n);
    } else {
        bytes_at(a, an->format, i, p, n);
    }
}

static const uint8_t *fixed_at(const pk_anode *an, const struct ArrowArray *a, int64_t i) {
    return (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)an->out_width;
}

static const pk_anode *child_named(const pk_anode *an, const char *name, int32_t *k) {
    for (int32_t i = 0; i < an->num_children; i++)
        if (strcmp(an->children[i]->name, name) == 0) {
            *k = i;
            return an->children[i];
        }
    *k = -1;
    return NULL;
}

/* ---- One value ------------------------------------------------------------------ */

static plank_status fail(unshred *u, int64_t row, const char *fmt, const char *detail) {
    char msg[200];
    snprintf(msg, sizeof msg, fmt, detail);
    return pk_error_set(u->err, PLANK_ERR_CORRUPT, "VARIANT column %s, row %lld: %s", u->column,
                        (long long)row, msg);
}

/* The variant type a shredded primitive leaf stands for
 * (VariantShredding.md, "Shredded Value Types"); false for a Parquet type
 * the spec does not allow there. */
static bool shredded_type(const pk_anode *an, pk_vtype *out) {
    const plank_schema_node *pn = an->pn;
    const plank_logical_type *lt = &pn->logical;
    pk_vtype t = PK_VT_COUNT;
    if (lt->kind == PLANK_LOGICAL_DECIMAL) {
        if (an->out_width == 4 || an->out_width == 8 || an->out_width == 16)
            t = pn->physical_type == PLANK_INT32   ? PK_VT_DECIMAL4
                : pn->physical_type == PLANK_INT64 ? PK_VT_DECIMAL8
                                                   : PK_VT_DECIMAL16;
    } else {
        switch (pn->physical_type) {
        case PLANK_BOOLEAN:
            if (lt->kind == PLANK_LOGICAL_NONE) t = PK_VT_TRUE;
            break;
        case PLANK_INT32:
            if (lt->kind == PLANK_LOGICAL_DATE) t = PK_VT_DATE;
            else if (lt->kind == PLANK_LOGICAL_NONE) t = PK_VT_INT32;
            else if (lt->kind == PLANK_LOGICAL_INTEGER && lt->is_signed)
                t = lt->bit_width == 8 ? PK_VT_INT8 : lt->bit_width == 16 ? PK_VT_INT16 : PK_VT_INT32;
            break;
        case PLANK_INT64:
            if (lt->kind == PLANK_LOGICAL_NONE ||
                (lt->kind == PLANK_LOGICAL_INTEGER && lt->is_signed && lt->bit_width == 64))
                t = PK_VT_INT64;
            else if (lt->kind == PLANK_LOGICAL_TIME && lt->unit == PLANK_UNIT_MICROS &&
                     !lt->is_adjusted_to_utc)
                t = PK_VT_TIME;
            else if (lt->kind == PLANK_LOGICAL_TIMESTAMP && lt->unit != PLANK_UNIT_MILLIS) {
                bool ns = lt->unit == PLANK_UNIT_NANOS;
                t = lt->is_adjusted_to_utc ? (ns ? PK_VT_TIMESTAMP_NANOS : PK_VT_TIMESTAMP)
                                           : (ns ? PK_VT_TIMESTAMP_NTZ_NANOS : PK_VT_TIMESTAMP_NTZ);
            }
            break;
        case PLANK_FLOAT:
            if (lt->kind == PLANK_LOGICAL_NONE) t = PK_VT_FLOAT;
            break;
        case PLANK_DOUBLE:
            if (lt->kind == PLANK_LOGICAL_NONE) t = PK_VT_DOUBLE;
            break;
        case PLANK_BYTE_ARRAY:
            if (lt->kind == PLANK_LOGICAL_STRING) t = PK_VT_STRING;
            else if (lt->kind == PLANK_LOGICAL_NONE) t = PK_VT_BINARY;
            break;
        case PLANK_FIXED_LEN_BYTE_ARRAY:
            if (lt->kind == PLANK_LOGICAL_UUID && an->out_width == 16) t = PK_VT_UUID;
            break;
        default: break;
        }
    }
    *out = t;
    return t != PK_VT_COUNT;
}

static plank_status unsupported_type(unshred *u, const pk_anode *an) {
    char tname[80], desc[128];
    const plank_schema_node *pn = an->pn;
    if (pn->logical.kind != PLANK_LOGICAL_NONE)
        plank_logical_type_format(&pn->logical, tname, sizeof tname);
    else if (pn->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY)
        snprintf(tname, sizeof tname, "fixed_len_byte_array(%d)", (int)pn->type_length);
    else
        snprintf(tname, sizeof tname, "%s", plank_physical_type_name(pn->physical_type));
    snprintf(desc, sizeof desc, "%s (%s)", tname, pn->path);
    return pk_error_set(u->err, PLANK_ERR_UNSUPPORTED,
                        "VARIANT column %s: unsupported shredded value type: %s", u->column, desc);
}

/* Checks the typed_value tree once per batch: every primitive of a type
 * the spec allows, objects of field groups, lists of element groups. */
static plank_status check_shredding(unshred *u, const pk_anode *tn, int depth) {
    if (depth > PK_VARIANT_MAX_DEPTH)
        return pk_error_set(u->err, PLANK_ERR_UNSUPPORTED,
                            "VARIANT column %s: shredding nests too deep", u->column);
    pk_vtype t;
    switch (tn->kind) {
    case PK_AN_LEAF:
        return shredded_type(tn, &t) ? PLANK_OK : unsupported_type(u, tn);
    case PK_AN_MAP:
        return pk_error_set(u->err, PLANK_ERR_UNSUPPORTED,
                            "VARIANT column %s: unsupported shredded value type: MAP",
                            u->column);
    case PK_AN_LIST:
    case PK_AN_STRUCT: {
        bool list = tn->kind == PK_AN_LIST;
        for (int32_t k = 0; k < tn->num_children; k++) {
            const pk_anode *g = tn->children[k];
            int32_t kv, kt;
            const pk_anode *gv = g->kind == PK_AN_STRUCT ? child_named(g, "value", &kv) : NULL;
            const pk_anode *gt = g->kind == PK_AN_STRUCT ? child_named(g, "typed_value", &kt) : NULL;
            if (g->kind != PK_AN_STRUCT || (!gv && !gt) || (gv && gv->kind != PK_AN_LEAF))
                return pk_error_set(u->err, PLANK_ERR_CORRUPT,
                                    "VARIANT column %s: shredded %s %s is not a group of value "
                                    "and typed_value",
                                    u->column, list ? "element" : "field", g->name);
            if (gt) PK_FORWARD(check_shredding(u, gt, depth + 1));
        }
        return PLANK_OK;
    }
    }
    return PLANK_OK;
}

/* A shredded primitive leaf's value at i (its type checked by
 * check_shredding). */
static plank_status put_primitive(unshred *u, const pk_anode *an, const struct ArrowArray *a,
                                  int64_t i) {
    plank_error *err = u->err;
    pk_vtype t;
    if (!shredded_type(an, &t)) return unsupported_type(u, an);
    const uint8_t *p = t == PK_VT_TRUE || t == PK_VT_STRING || t == PK_VT_BINARY
                           ? NULL : fixed_at(an, a, i);
    switch (t) {
    case PK_VT_DECIMAL4:
    case PK_VT_DECIMAL8:
    case PK_VT_DECIMAL16: {
        int64_t hi;
        uint64_t lo;
        if (an->out_width == 16) {
            lo = pk_load_u64(p);
            hi = (int64_t)pk_load_u64(p + 8);
        } else {
            int64_t v = an->out_width == 4 ? (int32_t)pk_load_u32(p) : (int64_t)pk_load_u64(p);
            lo = (uint64_t)v;
            hi = v < 0 ? -1 : 0;
        }
        return pk_vw_decimal(&u->w, t, an->pn->logical.scale, hi, lo, err);
    }
    case PK_VT_TRUE: {
        const uint8_t *bits = a->buffers[1];
        int64_t k = a->offset + i;
        return pk_vw_bool(&u->w, (bits[k >> 3] >> (k & 7)) & 1, err);
    }
    case PK_VT_DATE: return pk_vw_temporal(&u->w, t, (int32_t)pk_load_u32(p), err);
    case PK_VT_INT8: return pk_vw_int(&u->w, t, (int8_t)p[0], err);
    case PK_VT_INT16: return pk_vw_int(&u->w, t, (int16_t)pk_load_u16(p), err);
    case PK_VT_INT32: return pk_vw_int(&u->w, t, (int32_t)pk_load_u32(p), err);
    case PK_VT_INT64: return pk_vw_int(&u->w, t, (int64_t)pk_load_u64(p), err);
    case PK_VT_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return pk_vw_float(&u->w, f, err);
    }
    case PK_VT_DOUBLE: {
        double d;
        memcpy(&d, p, 8);
        return pk_vw_double(&u->w, d, err);
    }
    case PK_VT_STRING:
    case PK_VT_BINARY: {
        const uint8_t *s;
        size_t n;
        leaf_bytes(an, a, i, &s, &n);
        return t == PK_VT_STRING ? pk_vw_string(&u->w, s, n, err)
                                 : pk_vw_binary(&u->w, s, n, err);
    }
    case PK_VT_UUID: return pk_vw_uuid(&u->w, p, err);
    default: return pk_vw_temporal(&u->w, t, (int64_t)pk_load_u64(p), err);
    }
}

static plank_status build(unshred *u, const pk_anode *vn, const struct ArrowArray *va,
                          const pk_anode *tn, const struct ArrowArray *ta, int64_t i, int64_t row,
                          int depth, bool *present);

/* The value and typed_value children of a field or element group g at i. */
static plank_status build_group(unshred *u, const pk_anode *g, const struct ArrowArray *ga,
                                int64_t i, int64_t row, int depth, bool *present) {
    int32_t kv, kt;
    const pk_anode *vn = child_named(g, "value", &kv), *tn = child_named(g, "typed_value", &kt);
    int64_t ci = ga->offset + i;
    return build(u, vn, vn ? ga->children[kv] : NULL, tn, tn ? ga->children[kt] : NULL, ci, row,
                 depth, present);
}

/* Whether the field group g at i holds a value (value or typed_value set). */
static bool group_present(const pk_anode *g, const struct ArrowArray *ga, int64_t i) {
    int64_t ci = ga->offset + i;
    for (int32_t k = 0; k < g->num_children; k++) {
        const char *nm = g->children[k]->name;
        if ((strcmp(nm, "value") == 0 || strcmp(nm, "typed_value") == 0) &&
            valid_at(ga->children[k], ci))
            return true;
    }
    return false;
}

/* The stored value at i of a binary `value` leaf, checked. */
static plank_status stored_value(unshred *u, const pk_anode *vn, const struct ArrowArray *va,
                                 int64_t i, const uint8_t **p, size_t *n) {
    leaf_bytes(vn, va, i, p, n);
    size_t used;
    PK_FORWARD(pk_variant_check(&u->meta, *p, *n, &used, u->err));
    *n = used;
    return PLANK_OK;
}

static plank_status build_object(unshred *u, const pk_anode *vn, const struct ArrowArray *va,
                                 const pk_anode *tn, const struct ArrowArray *ta, int64_t i,
                                 int64_t row, int depth) {
    plank_error *err = u->err;
    const uint8_t *vp = NULL;
    size_t vlen = 0;
    bool partial = vn && valid_at(va, i);
    pk_vcontainer c;
    int64_t ci = ta->offset + i;
    if (partial) {
        PK_FORWARD(stored_value(u, vn, va, i, &vp, &vlen));
        /* A non-null typed_value object says the value is an object: a
         * stored value beside it must be one too (VariantShredding.md's
         * INVALID rows), even when every shredded field is missing. */
        if ((vp[0] & 3) != PK_VB_OBJECT)
            return fail(u, row, "%s", "invalid variant, non-object value with shredded fields");
        PK_FORWARD(pk_vcontainer_parse(&c, vp, vlen, err));
    }
    PK_FORWARD(pk_vw_object_begin(&u->w, err));
    for (int32_t k = 0; k < tn->num_children; k++) {
        const pk_anode *f = tn->children[k];
        const struct ArrowArray *fa = ta->children[k];
        if (!group_present(f, fa, ci)) continue;
        PK_FORWARD(pk_vw_key(&u->w, (const uint8_t *)f->name, strlen(f->name), err));
        bool here;
        PK_FORWARD(build_group(u, f, fa, ci, row, depth + 1, &here));
    }
    if (partial) {
        for (uint32_t e = 0; e < c.num; e++) {
            uint32_t id = pk_vcontainer_id(&c, e);
            const uint8_t *key;
            size_t kn;
            if (!pk_vmeta_key(&u->meta, id, &key, &kn))
                return fail(u, row, "%s", "object field id outside the metadata");
            /* value must not hold a shredded field; where a writer put one
             * there anyway, the shredded column is the one that counts
             * (VariantShredding.md), so the stored copy is dropped. */
            bool shredded = false;
            for (int32_t k = 0; k < tn->num_children && !shredded; k++)
                shredded = strlen(tn->children[k]->name) == kn &&
                           memcmp(tn->children[k]->name, key, kn) == 0;
            if (shredded) continue;
            size_t avail, used;
            const uint8_t *ep = pk_vcontainer_elem(&c, e, &avail);
            PK_FORWARD(pk_variant_check(&u->meta, ep, avail, &used, err));
            PK_FORWARD(pk_vw_key_id(&u->w, id, err));
            PK_FORWARD(pk_vw_raw(&u->w, ep, used, err));
        }
    }
    return pk_vw_object_end(&u->w, err);
}

static plank_status build_array(unshred *u, const pk_anode *tn, const struct ArrowArray *ta,
                                int64_t i, int64_t row, int depth) {
    plank_error *err = u->err;
    int64_t k = ta->offset + i, lo, hi;
    if (tn->large) {
        const int64_t *o = ta->buffers[1];
        lo = o[k];
        hi = o[k + 1];
    } else {
        const int32_t *o = ta->buffers[1];
        lo = o[k];
        hi = o[k + 1];
    }
    const pk_anode *en = tn->children[0];
    const struct ArrowArray *ea = ta->children[0];
    PK_FORWARD(pk_vw_array_begin(&u->w, err));
    for (int64_t j = lo; j < hi; j++) {
        bool here;
        PK_FORWARD(build_group(u, en, ea, j, row, depth + 1, &here));
        /* Elements cannot be missing; a writer that left both fields null
         * meant an absent value, which an array can only hold as null. */
        if (!here) PK_FORWARD(pk_vw_null(&u->w, err));
    }
    return pk_vw_array_end(&u->w, err);
}

static plank_status build(unshred *u, const pk_anode *vn, const struct ArrowArray *va,
                          const pk_anode *tn, const struct ArrowArray *ta, int64_t i, int64_t row,
                          int depth, bool *present) {
    *present = false;
    if (depth >= PK_VARIANT_MAX_DEPTH)
        return fail(u, row, "%s", "shredded value nests too deep");
    bool tv = tn && valid_at(ta, i), vv = vn && valid_at(va, i);
    if (tv) {
        *present = true;
        if (tn->kind == PK_AN_STRUCT) return build_object(u, vn, va, tn, ta, i, row, depth);
        if (vv) return fail(u, row, "%s", "invalid variant, conflicting value and typed_value");
        if (tn->kind == PK_AN_LIST) return build_array(u, tn, ta, i, row, depth);
        if (tn->kind == PK_AN_LEAF) return put_primitive(u, tn, ta, i);
        return fail(u, row, "%s", "unsupported shredded value type: MAP");
    }
    if (vv) {
        const uint8_t *p;
        size_t n;
        PK_FORWARD(stored_value(u, vn, va, i, &p, &n));
        *present = true;
        return pk_vw_raw(&u->w, p, n, u->err);
    }
    return PLANK_OK;
}

/* ---- One column ------------------------------------------------------------------- */

/* Appends an offset (32 or 64 bits) to b. */
static plank_status put_offset(pk_buffer *b, bool large, size_t v, plank_error *err) {
    if (large) {
        int64_t x = (int64_t)v;
        return pk_buffer_append(b, &x, 8, err);
    }
    PK_RETURN_IF(v > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "a batch of reassembled VARIANT values exceeds INT32_MAX bytes: lower "
                 "batch_rows or set large_offsets");
    int32_t x = (int32_t)v;
    return pk_buffer_append(b, &x, 4, err);
}

static plank_status unshred_column(unshred *u, const pk_anode *an, struct ArrowArray *arr,
                                   int64_t first_row, struct ArrowArray *out) {
    plank_error *err = u->err;
    memset(out, 0, sizeof *out);
    const plank_allocator *a = pk_array_allocator(arr);
    int32_t km, kv, kt;
    const pk_anode *mn = child_named(an, "metadata", &km);
    const pk_anode *vn = child_named(an, "value", &kv);
    const pk_anode *tn = child_named(an, "typed_value", &kt);
    const struct ArrowArray *ma = arr->children[km];
    const struct ArrowArray *va = vn ? arr->children[kv] : NULL;
    const struct ArrowArray *ta = tn ? arr->children[kt] : NULL;
    bool large = an->vlarge;
    if (tn) PK_FORWARD(check_shredding(u, tn, 0));
    pk_buffer moff, mdat, voff, vdat;
    pk_buffer_init(&moff, a);
    pk_buffer_init(&mdat, a);
    pk_buffer_init(&voff, a);
    pk_buffer_init(&vdat, a);
    plank_status st = put_offset(&moff, large, 0, err);
    if (st == PLANK_OK) st = put_offset(&voff, large, 0, err);
    for (int64_t i = 0; i < arr->length && st == PLANK_OK; i++) {
        if (valid_at(arr, i)) {
            int64_t ci = arr->offset + i;
            const uint8_t *mp;
            size_t mlen;
            leaf_bytes(mn, ma, ci, &mp, &mlen);
            st = pk_vmeta_parse(&u->meta, mp, mlen, err);
            if (st != PLANK_OK) {
                pk_error_prefix(err, "VARIANT column %s, row %lld", u->column,
                                (long long)(first_row + i));
                break;
            }
            pk_vw_reset(&u->w);
            pk_vw_use_metadata(&u->w, &u->meta);
            bool here;
            st = build(u, vn, va, tn, ta, ci, first_row + i, 0, &here);
            if (st == PLANK_OK && !here) st = pk_vw_null(&u->w, err);
            const uint8_t *vp = NULL;
            size_t vlen = 0;
            if (st == PLANK_OK) st = pk_vw_finish(&u->w, &vp, &vlen, err);
            if (st != PLANK_OK) {
                if (err && !strstr(err->message, "VARIANT column"))
                    pk_error_prefix(err, "VARIANT column %s, row %lld", u->column,
                                    (long long)(first_row + i));
                break;
            }
            st = pk_buffer_append(&mdat, mp, mlen, err);
            if (st == PLANK_OK) st = pk_buffer_append(&vdat, vp, vlen, err);
        }
        if (st == PLANK_OK) st = put_offset(&moff, large, mdat.size, err);
        if (st == PLANK_OK) st = put_offset(&voff, large, vdat.size, err);
    }
    /* out: struct (validity copied) of two binary children. */
    if (st == PLANK_OK) st = pk_array_new(a, out, arr->length, 1, 2, err);
    if (st == PLANK_OK && arr->null_count != 0 && arr->buffers[0]) {
        size_t nb = (size_t)(arr->length + 7) / 8;
        uint8_t *bits = pk_array_buffer(out, 0, nb, err);
        if (!bits) st = PLANK_ERR_OUT_OF_MEMORY;
        for (int64_t i = 0; i < arr->length && bits; i++)
            if (valid_at(arr, i)) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        out->null_count = arr->null_count;
    }
    pk_buffer *offs[2] = {&moff, &voff}, *dats[2] = {&mdat, &vdat};
    for (int c = 0; c < 2 && st == PLANK_OK; c++) {
        struct ArrowArray *ch = out->children[c];
        st = pk_array_new(a, ch, arr->length, 3, 0, err);
        if (st != PLANK_OK) break;
        out->n_children = c + 1;
        st = pk_array_adopt(ch, 1, offs[c], err);
        if (st == PLANK_OK) st = pk_array_adopt(ch, 2, dats[c], err);
        if (st == PLANK_OK && out->null_count) {
            /* The children are null where the variant is. */
            size_t nb = (size_t)(arr->length + 7) / 8;
            uint8_t *bits = pk_array_buffer(ch, 0, nb, err);
            if (!bits) st = PLANK_ERR_OUT_OF_MEMORY;
            else memcpy(bits, out->buffers[0], nb);
            ch->null_count = out->null_count;
        }
    }
    if (st != PLANK_OK && out->release) out->release(out);
    pk_buffer_reset(&moff);
    pk_buffer_reset(&mdat);
    pk_buffer_reset(&voff);
    pk_buffer_reset(&vdat);
    return st;
}

static plank_status walk_tree(unshred *u, const pk_anode *an, struct ArrowArray *arr,
                              int64_t first_row) {
    if (an->variant == PK_VARIANT_UNSHRED) {
        u->column = an->pn ? an->pn->path : an->name;
        struct ArrowArray nw;
        PK_FORWARD(unshred_column(u, an, arr, first_row, &nw));
        arr->release(arr);
        *arr = nw;
        return PLANK_OK;
    }
    if (an->kind == PK_AN_LEAF) return PLANK_OK;
    /* Below a list, rows are elements: messages keep the batch row of the
     * top level only where it is known. */
    for (int32_t k = 0; k < an->num_children; k++)
        PK_FORWARD(walk_tree(u, an->children[k], arr->children[k],
                             an->kind == PK_AN_STRUCT ? first_row : -1));
    return PLANK_OK;
}

plank_status pk_arrow_unshred(const pk_atree *t, struct ArrowArray *root, int64_t first_row,
                              plank_error *err) {
    if (!t->has_unshred) return PLANK_OK;
    unshred u;
    memset(&u, 0, sizeof u);
    u.err = err;
    pk_vw_init(&u.w, pk_array_allocator(root));
    plank_status st = walk_tree(&u, t->root, root, first_row);
    pk_vw_free(&u.w);
    return st;
}
