/*
 * pk_assemble.c: record assembly (Dremel) from the levels of the leaf
 * columns into Arrow arrays.
 *
 * Each Arrow node is built from the levels of its first leaf (see pk_arrow.h
 * for the level rules). A node's length is the number of its entry starts in
 * that leaf; a list's offsets count its elements' starts between its own;
 * every child recounts in its own leaf and must find exactly the length its
 * parent announced. Hostile-input contract: whatever the levels say, the
 * arrays produced are structurally valid (lengths, offsets and buffers agree)
 * or the batch fails with PLANK_ERR_CORRUPT; values are only read from slots
 * that exist.
 *
 * Every array owns its buffers, allocated with a copy of the reader's
 * allocator, so arrays may outlive the stream and the reader. A zero-copy
 * leaf (pk_leaf_buf.view) instead points into the column chunk and holds a
 * reference to the chunk's block, dropped when the array is released.
 */
#include "pk_arrow.h"

/* The levels of one leaf over the batch. */
typedef struct leaf_levels {
    const int16_t *def, *rep; /* NULL: all 0 */
    int64_t n;
    const pk_leaf_buf *buf;
    const plank_schema_node *pn;
    const pk_kernels *kn;     /* the reader's kernel table */
} leaf_levels;

static leaf_levels levels_of(const pk_batch_view *v, int32_t leaf) {
    leaf_levels l;
    const pk_leaf_buf *b = &v->leaves[leaf];
    l.pn = v->t->leaf_nodes[leaf]->pn;
    l.def = l.pn->max_definition_level > 0 ? (const int16_t *)b->def.data : NULL;
    l.rep = l.pn->max_repetition_level > 0 ? (const int16_t *)b->rep.data : NULL;
    l.n = v->slots[leaf];
    l.buf = b;
    l.kn = v->r->kernels;
    return l;
}

#define DEF_AT(l, p) ((l)->def ? (l)->def[p] : 0)
#define REP_AT(l, p) ((l)->rep ? (l)->rep[p] : 0)

static bool is_entry(const leaf_levels *l, int64_t p, int16_t rep, int16_t def) {
    return REP_AT(l, p) <= rep && DEF_AT(l, p) >= def;
}

static int64_t count_entries(const leaf_levels *l, const pk_anode *an) {
    if (!l->rep && an->entry_def == 0) return l->n;
    int64_t m = 0;
    for (int64_t p = 0; p < l->n; p++) m += is_entry(l, p, an->entry_rep, an->entry_def);
    return m;
}

/* Validity of the entries of an (buffer 0); NULL buffer when all valid. */
static plank_status fill_validity(const leaf_levels *l, const pk_anode *an, struct ArrowArray *arr,
                                  plank_error *err) {
    int64_t m = arr->length;
    arr->null_count = 0;
    if (!l->def || an->def <= 0) return PLANK_OK;
    uint8_t *bits = pk_array_buffer(arr, 0, (size_t)(m + 7) / 8, err);
    if (!bits) return PLANK_ERR_OUT_OF_MEMORY;
    if (!l->rep && an->entry_def == 0 && an->def == l->pn->max_definition_level) {
        /* A leaf outside lists: one entry per level, valid exactly when its
         * level is the leaf's maximum: the levels-to-bitmap kernel. */
        arr->null_count = l->n - l->kn->def_to_bitmap(l->def, (size_t)l->n, an->def, bits, 0);
        if (arr->null_count == 0) pk_array_drop_buffer(arr, 0);
        return PLANK_OK;
    }
    int64_t i = 0, nulls = 0;
    for (int64_t p = 0; p < l->n; p++) {
        if (!is_entry(l, p, an->entry_rep, an->entry_def)) continue;
        if (l->def[p] >= an->def) pk_bit_set(bits, i);
        else nulls++;
        i++;
    }
    arr->null_count = nulls;
    if (nulls == 0) pk_array_drop_buffer(arr, 0);
    return PLANK_OK;
}

/* Big-endian two's complement bytes to a little-endian value of w bytes. */
static plank_status decimal_be(const uint8_t *b, int64_t len, uint8_t *out, int32_t w,
                               plank_error *err) {
    uint8_t fill = len > 0 && (b[0] & 0x80) ? 0xff : 0x00;
    for (int64_t k = 0; k < len - w; k++)
        PK_RETURN_IF(b[k] != fill, err, PLANK_ERR_CORRUPT,
                     "decimal value of %lld bytes does not fit %d bytes", (long long)len, (int)w);
    for (int32_t k = 0; k < w; k++) out[k] = k < len ? b[len - 1 - k] : fill;
    return PLANK_OK;
}

static void decimal_int(int64_t v, uint8_t *out, int32_t w) {
    uint8_t fill = v < 0 ? 0xff : 0x00;
    uint64_t u = (uint64_t)v;
    for (int32_t k = 0; k < w; k++) out[k] = k < 8 ? (uint8_t)(u >> (8 * k)) : fill;
}

/* INT96 (nanoseconds of day, then Julian day, little-endian) to nanoseconds
 * since the epoch, wrapping like the writers that produce it. */
static int64_t int96_nanos(const uint8_t *s) {
    uint64_t nanos = pk_load_u64(s);
    uint32_t jd = pk_load_u32(s + 8);
    uint64_t days = (uint64_t)((int64_t)jd - 2440588);
    return (int64_t)(days * UINT64_C(86400000000000) + nanos);
}

plank_status pk_convert_fixed(pk_conv conv, const uint8_t *src, int32_t sw, int64_t n,
                              uint8_t *dst, int32_t w, plank_error *err) {
    size_t usw = (size_t)sw, uw = (size_t)w;
    switch (conv) {
    case PK_CONV_I8:
        for (int64_t i = 0; i < n; i++) dst[i] = (uint8_t)pk_load_u32(src + (size_t)i * 4);
        return PLANK_OK;
    case PK_CONV_I16:
        for (int64_t i = 0; i < n; i++) {
            uint16_t h = (uint16_t)pk_load_u32(src + (size_t)i * 4);
            memcpy(dst + (size_t)i * 2, &h, 2);
        }
        return PLANK_OK;
    case PK_CONV_INT96_NS:
        for (int64_t i = 0; i < n; i++) {
            int64_t ns = int96_nanos(src + (size_t)i * 12);
            memcpy(dst + (size_t)i * 8, &ns, 8);
        }
        return PLANK_OK;
    case PK_CONV_DEC_I32:
        for (int64_t i = 0; i < n; i++)
            decimal_int((int32_t)pk_load_u32(src + (size_t)i * 4), dst + (size_t)i * uw, w);
        return PLANK_OK;
    case PK_CONV_DEC_I64:
        if (w == 16) {
            /* decimal128: the value, then its sign extended over 8 bytes */
            for (int64_t i = 0; i < n; i++) {
                uint64_t v = pk_load_u64(src + (size_t)i * 8);
                uint64_t hi = (uint64_t)((int64_t)v >> 63);
                memcpy(dst + (size_t)i * 16, &v, 8);
                memcpy(dst + (size_t)i * 16 + 8, &hi, 8);
            }
            return PLANK_OK;
        }
        for (int64_t i = 0; i < n; i++)
            decimal_int((int64_t)pk_load_u64(src + (size_t)i * 8), dst + (size_t)i * uw, w);
        return PLANK_OK;
    case PK_CONV_DEC_BE:
        for (int64_t i = 0; i < n; i++)
            PK_FORWARD(decimal_be(src + (size_t)i * usw, sw, dst + (size_t)i * uw, w, err));
        return PLANK_OK;
    default:
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "no fixed conversion %d",
                            (int)conv);
    }
}

/* Offset i of an int32 (ow 4) or int64 (ow 8) offsets buffer; the callers
 * checked that int32 offsets fit. */
static void put_offset(uint8_t *o, size_t ow, int64_t i, int64_t v) {
    if (ow == 8) {
        ((int64_t *)(void *)o)[i] = v;
    } else {
        ((int32_t *)(void *)o)[i] = (int32_t)v;
    }
}

/* A dictionary leaf: int32 indices of the entries, and as the dictionary the
 * chunk's dictionary followed by the pending fallback values, copied once per
 * batch (an empty dictionary gets one empty value so that the index 0 of
 * null slots stays in range). Indices were range-checked by the column
 * reader and renumbered by the stream, so every one is < the length. */
static plank_status build_dict_leaf(const leaf_levels *l, const pk_anode *an,
                                    struct ArrowArray *arr, plank_error *err) {
    const pk_leaf_buf *b = l->buf;
    PK_FORWARD(fill_validity(l, an, arr, err));
    int32_t *ix = pk_array_buffer(arr, 1, (size_t)arr->length * 4, err);
    if (!ix) return PLANK_ERR_OUT_OF_MEMORY;
    const int32_t *src = (const int32_t *)(const void *)b->idx.data;
    bool identity = !l->rep && an->entry_def == 0;
    int64_t i = 0;
    for (int64_t p = 0; p < l->n; p++) {
        if (!identity && !is_entry(l, p, an->entry_rep, an->entry_def)) continue;
        ix[i++] = src[p] < 0 ? 0 : src[p];
    }
    const pk_dict *d = b->dict;
    int64_t dn = d ? d->count : 0, n = dn + b->fb_n;
    int64_t dbytes = dn ? d->offsets[dn] - d->offsets[0] : 0;
    int64_t fbytes = b->fb_n ? ((const int64_t *)(const void *)b->offs.data)[b->fb_n] : 0;
    int64_t total = dbytes + fbytes;
    PK_RETURN_IF(!an->large && total > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "dictionary of %lld bytes in one batch", (long long)total);
    struct ArrowArray *dict = pk_array_dictionary_slot(arr);
    PK_FORWARD(pk_array_new(pk_array_allocator(arr), dict, n ? n : 1, 3, 0, err));
    arr->dictionary = dict;
    size_t ow = an->large ? 8 : 4;
    uint8_t *o = pk_array_buffer(dict, 1, (size_t)(n + 2) * ow, err);
    uint8_t *data = pk_array_buffer(dict, 2, (size_t)total, err);
    if (!o || !data) return PLANK_ERR_OUT_OF_MEMORY;
    if (dbytes) memcpy(data, d->data + d->offsets[0], (size_t)dbytes);
    if (fbytes) memcpy(data + dbytes, b->vals.data, (size_t)fbytes);
    put_offset(o, ow, 0, 0);
    for (int64_t k = 0; k < dn; k++) put_offset(o, ow, k + 1, d->offsets[k + 1] - d->offsets[0]);
    const int64_t *fo = (const int64_t *)(const void *)b->offs.data;
    for (int64_t k = 0; k < b->fb_n; k++) put_offset(o, ow, dn + k + 1, dbytes + fo[k + 1]);
    if (n == 0) put_offset(o, ow, 1, 0);
    return PLANK_OK;
}

static plank_status build_leaf(const leaf_levels *l, const pk_anode *an, struct ArrowArray *arr,
                               plank_error *err) {
    int64_t m = arr->length;
    const pk_leaf_buf *b = l->buf;
    if (an->dict) return build_dict_leaf(l, an, arr, err);
    if (an->conv == PK_CONV_NULL) {
        arr->n_buffers = 0;
        arr->null_count = m;
        return PLANK_OK;
    }
    PK_FORWARD(fill_validity(l, an, arr, err));
    bool identity = !l->rep && an->entry_def == 0;
    const uint8_t *vals = b->vals.data;
    const int64_t *offs = (const int64_t *)b->offs.data;
    if (an->conv == PK_CONV_BINARY) {
        int64_t total = 0;
        if (identity) {
            total = offs[l->n] - offs[0];
        } else {
            for (int64_t p = 0; p < l->n; p++)
                if (is_entry(l, p, an->entry_rep, an->entry_def)) total += offs[p + 1] - offs[p];
        }
        PK_RETURN_IF(!an->large && total > INT32_MAX, err, PLANK_ERR_LIMIT,
                     "%lld bytes of binary data in one batch", (long long)total);
        size_t ow = an->large ? 8 : 4;
        uint8_t *o = pk_array_buffer(arr, 1, (size_t)(m + 1) * ow, err);
        uint8_t *d = pk_array_buffer(arr, 2, (size_t)total, err);
        if (!o || !d) return PLANK_ERR_OUT_OF_MEMORY;
        if (identity) {
            if (total) memcpy(d, vals + offs[0], (size_t)total);
            for (int64_t i = 0; i <= m; i++) put_offset(o, ow, i, offs[i] - offs[0]);
            return PLANK_OK;
        }
        int64_t i = 0, at = 0;
        put_offset(o, ow, 0, 0);
        for (int64_t p = 0; p < l->n; p++) {
            if (!is_entry(l, p, an->entry_rep, an->entry_def)) continue;
            int64_t len = offs[p + 1] - offs[p];
            if (len) memcpy(d + at, vals + offs[p], (size_t)len);
            at += len;
            put_offset(o, ow, ++i, at);
        }
        return PLANK_OK;
    }
    if (an->conv == PK_CONV_BOOL) {
        uint8_t *bits = pk_array_buffer(arr, 1, (size_t)(m + 7) / 8, err);
        if (!bits) return PLANK_ERR_OUT_OF_MEMORY;
        int64_t i = 0;
        for (int64_t p = 0; p < l->n; p++) {
            if (!identity && !is_entry(l, p, an->entry_rep, an->entry_def)) continue;
            if (vals[p]) pk_bit_set(bits, i);
            i++;
        }
        return PLANK_OK;
    }
    int32_t w = an->out_width, sw = pk_physical_width(l->pn->physical_type, l->pn->type_length);
    if (identity && an->conv == PK_CONV_COPY && b->view) {
        pk_array_borrow(arr, 1, b->view, b->owner, true);
        return PLANK_OK;
    }
    uint8_t *dst = pk_array_buffer(arr, 1, (size_t)m * (size_t)w, err);
    if (!dst) return PLANK_ERR_OUT_OF_MEMORY;
    if (identity && an->conv == PK_CONV_COPY) {
        if (m) memcpy(dst, vals, (size_t)m * (size_t)w);
        return PLANK_OK;
    }
    bool ba = l->pn->physical_type == PLANK_BYTE_ARRAY;
    int64_t i = 0;
    for (int64_t p = 0; p < l->n; p++) {
        if (!identity && !is_entry(l, p, an->entry_rep, an->entry_def)) continue;
        uint8_t *o = dst + (size_t)i * (size_t)w;
        const uint8_t *s = ba ? vals : vals + (size_t)p * (size_t)sw;
        switch (an->conv) {
        case PK_CONV_COPY: memcpy(o, s, (size_t)w); break;
        case PK_CONV_I8: *o = (uint8_t)pk_load_u32(s); break;
        case PK_CONV_I16: { uint16_t h = (uint16_t)pk_load_u32(s); memcpy(o, &h, 2); } break;
        case PK_CONV_INT96_NS: { int64_t ns = int96_nanos(s); memcpy(o, &ns, 8); } break;
        case PK_CONV_DEC_I32: decimal_int((int32_t)pk_load_u32(s), o, w); break;
        case PK_CONV_DEC_I64: decimal_int((int64_t)pk_load_u64(s), o, w); break;
        case PK_CONV_DEC_BE:
            if (ba) {
                int64_t len = offs[p + 1] - offs[p]; /* vals is NULL when no bytes are pending */
                PK_FORWARD(decimal_be(len ? vals + offs[p] : NULL, len, o, w, err));
            }
            else PK_FORWARD(decimal_be(s, sw, o, w, err));
            break;
        default: break;
        }
        i++;
    }
    return PLANK_OK;
}

static plank_status build_node(const pk_batch_view *v, const pk_anode *an, int64_t expect,
                               struct ArrowArray *out, plank_error *err);

static plank_status build_children(const pk_batch_view *v, const pk_anode *an, int64_t expect,
                                   struct ArrowArray *arr, plank_error *err) {
    for (int32_t k = 0; k < an->num_children; k++) {
        const pk_anode *c = an->children[k];
        struct ArrowArray *pre = v->pre && c->kind == PK_AN_LEAF ? &v->pre[c->leaf] : NULL;
        if (pre && pre->release) {
            PK_RETURN_IF(pre->length != expect, err, PLANK_ERR_CORRUPT,
                         "field %s has %lld values where its parent has %lld", c->name,
                         (long long)pre->length, (long long)expect);
            *arr->children[k] = *pre; /* moved: the batch owns it now */
            pre->release = NULL;
            arr->n_children = k + 1;
            continue;
        }
        PK_FORWARD(build_node(v, c, expect, arr->children[k], err));
        arr->n_children = k + 1;
    }
    return PLANK_OK;
}

static plank_status build_body(const pk_batch_view *v, const leaf_levels *l, const pk_anode *an,
                               struct ArrowArray *arr, plank_error *err) {
    switch (an->kind) {
    case PK_AN_LEAF:
        return build_leaf(l, an, arr, err);
    case PK_AN_STRUCT:
        PK_FORWARD(fill_validity(l, an, arr, err));
        return build_children(v, an, arr->length, arr, err);
    default: { /* LIST, MAP */
        PK_FORWARD(fill_validity(l, an, arr, err));
        int64_t m = arr->length;
        size_t ow = an->large ? 8 : 4;
        uint8_t *o = pk_array_buffer(arr, 1, (size_t)(m + 1) * ow, err);
        if (!o) return PLANK_ERR_OUT_OF_MEMORY;
        int64_t i = 0, cnt = 0;
        for (int64_t p = 0; p < l->n; p++) {
            if (is_entry(l, p, an->entry_rep, an->entry_def)) put_offset(o, ow, i++, cnt);
            if (is_entry(l, p, an->child_rep, an->child_def)) cnt++;
            PK_RETURN_IF(!an->large && cnt > INT32_MAX, err, PLANK_ERR_LIMIT,
                         "more than INT32_MAX list elements in one batch");
        }
        put_offset(o, ow, m, cnt);
        return build_children(v, an, cnt, arr, err);
    }
    }
}

static plank_status build_node(const pk_batch_view *v, const pk_anode *an, int64_t expect,
                               struct ArrowArray *out, plank_error *err) {
    leaf_levels l = levels_of(v, an->leaf);
    int64_t m = count_entries(&l, an);
    if (m != expect) {
        memset(out, 0, sizeof *out);
        return PK_CORRUPT(err, "column %d (%s): %lld values of field %s where its parent has %lld",
                          (int)l.pn->column, l.pn->path, (long long)m, an->name,
                          (long long)expect);
    }
    int64_t nb = an->kind == PK_AN_STRUCT                                      ? 1
                 : an->kind == PK_AN_LEAF && an->conv == PK_CONV_BINARY && !an->dict ? 3
                                                                                    : 2;
    PK_FORWARD(pk_array_new(&v->alloc, out, m, nb, an->num_children, err));
    plank_status st = build_body(v, &l, an, out, err);
    if (st != PLANK_OK) out->release(out);
    return st;
}

plank_status pk_assemble(const pk_batch_view *v, int64_t rows, struct ArrowArray *out,
                         plank_error *err) {
    const pk_anode *root = v->t->root;
    PK_FORWARD(pk_array_new(&v->alloc, out, rows, 1, root->num_children, err));
    plank_status st = build_children(v, root, rows, out, err);
    if (st != PLANK_OK) out->release(out);
    return st;
}
