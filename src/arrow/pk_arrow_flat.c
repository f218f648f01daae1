/*
 * pk_arrow_flat.c: top-level flat leaves (no list above, no struct, no value
 * conversion) decoded straight into the buffers of their ArrowArray.
 *
 * The column reader writes validity, values, offsets (in the width the
 * Arrow type chose) and string bytes into pk_buffers that the array then
 * adopts: each value is copied once, from the page (decompressed or in
 * place) to the array. Booleans stay bitmaps, validity comes from the page's
 * definition levels in one pass, and a chunk whose pages all use its
 * dictionary exports one dictionary array per chunk, shared by every batch
 * through a reference count instead of copied into each.
 */
#include "pk_arrow.h"

void pk_flat_leaf_init(pk_flat_leaf *fl, const plank_allocator *a) {
    memset(fl, 0, sizeof *fl);
    pk_buffer_init(&fl->conv, a);
}

void pk_flat_leaf_reset(pk_flat_leaf *fl) {
    pk_shared_release(fl->dict_block);
    fl->dict_block = NULL;
    fl->dict_len = 0;
    fl->dict_off_bytes = 0;
}

void pk_flat_leaf_free(pk_flat_leaf *fl) {
    pk_flat_leaf_reset(fl);
    pk_buffer_reset(&fl->conv);
}

/* Offsets then bytes of the chunk's dictionary, in the Arrow layout, built
 * once per chunk. An empty dictionary gets one empty value so that the
 * index 0 of null slots stays in range. */
static plank_status shared_dict(pk_flat_leaf *fl, const pk_dict *d, size_t ow,
                                const plank_allocator *a, plank_error *err) {
    if (fl->dict_block) return PLANK_OK;
    int64_t dn = d ? d->count : 0, n = dn ? dn : 1;
    int64_t bytes = dn ? d->offsets[dn] - d->offsets[0] : 0;
    PK_RETURN_IF(ow == 4 && bytes > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "dictionary of %lld bytes does not fit 32-bit offsets", (long long)bytes);
    size_t off_bytes = ((size_t)(n + 1) * ow + 15) & ~(size_t)15;
    pk_shared *blk = pk_shared_new(a, off_bytes + (size_t)bytes + 16);
    if (!blk) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    uint8_t *o = pk_shared_data(blk);
    memset(o, 0, off_bytes);
    for (int64_t k = 0; k < dn; k++) {
        int64_t v = d->offsets[k + 1] - d->offsets[0];
        if (ow == 8) ((int64_t *)(void *)o)[k + 1] = v;
        else ((int32_t *)(void *)o)[k + 1] = (int32_t)v;
    }
    if (bytes) memcpy(o + off_bytes, d->data + d->offsets[0], (size_t)bytes);
    fl->dict_block = blk;
    fl->dict_len = n;
    fl->dict_off_bytes = off_bytes;
    return PLANK_OK;
}

/* The dictionary of a batch with fb fallback values (offsets fo, bytes fd):
 * the chunk's entries then them, copied for this batch alone. */
static plank_status batch_dict(struct ArrowArray *dict, const pk_dict *d, int64_t fb,
                               const int64_t *fo, const uint8_t *fd, size_t ow,
                               const plank_allocator *a, plank_error *err) {
    int64_t dn = d ? d->count : 0, n = dn + fb;
    int64_t dbytes = dn ? d->offsets[dn] - d->offsets[0] : 0, fbytes = fo[fb];
    int64_t total = dbytes + fbytes;
    PK_RETURN_IF(ow == 4 && total > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "dictionary of %lld bytes in one batch", (long long)total);
    PK_FORWARD(pk_array_new(a, dict, n, 3, 0, err));
    uint8_t *o = pk_array_buffer(dict, 1, (size_t)(n + 1) * ow, err);
    uint8_t *data = pk_array_buffer(dict, 2, (size_t)total, err);
    if (!o || !data) return PLANK_ERR_OUT_OF_MEMORY;
    if (dbytes) memcpy(data, d->data + d->offsets[0], (size_t)dbytes);
    if (fbytes) memcpy(data + dbytes, fd, (size_t)fbytes);
    for (int64_t k = 1; k <= n; k++) {
        int64_t v = k <= dn ? d->offsets[k] - d->offsets[0] : dbytes + fo[k - dn];
        if (ow == 8) ((int64_t *)(void *)o)[k] = v;
        else ((int32_t *)(void *)o)[k] = (int32_t)v;
    }
    return PLANK_OK;
}

bool pk_flat_leaf_eligible(const pk_anode *an) {
    const plank_schema_node *pn = an->pn;
    if (an->kind != PK_AN_LEAF || pn->max_repetition_level != 0 || an->entry_def != 0) return false;
    if (an->dict) return true;
    if (an->conv == PK_CONV_BINARY) return pn->physical_type == PLANK_BYTE_ARRAY;
    if (an->conv == PK_CONV_BOOL) return true;
    switch (an->conv) {
    case PK_CONV_I8: case PK_CONV_I16: case PK_CONV_INT96_NS: case PK_CONV_DEC_I32:
    case PK_CONV_DEC_I64:
        return true;
    case PK_CONV_DEC_BE:
        return pn->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY;
    case PK_CONV_COPY:
        return an->out_width == pk_physical_width(pn->physical_type, pn->type_length);
    default:
        return false;
    }
}

/* The column reader's conversion of a leaf's fixed-width values to its
 * Arrow type (pk_read_dest.convert; ctx is the pk_anode). */
static plank_status leaf_convert(const void *ctx, const uint8_t *src, int64_t n, uint8_t *dst,
                                 plank_error *err) {
    const pk_anode *an = ctx;
    return pk_convert_fixed(an->conv, src,
                            pk_physical_width(an->pn->physical_type, an->pn->type_length), n,
                            dst, an->out_width, err);
}

/* pk_flat_leaf_read, or with keep (a flat required leaf) only the slots whose
 * bit is set, dropped in the column reader (pk_read_dest.keep). */
static plank_status leaf_read(pk_flat_leaf *fl, plank_column_reader *cr, const pk_anode *an,
                              int64_t rows, int32_t view_align, const uint8_t *keep,
                              int64_t kept, const plank_allocator *a, struct ArrowArray *out,
                              plank_error *err) {
    memset(out, 0, sizeof *out);
    const plank_schema_node *pn = an->pn;
    pk_buffer validity, values, offsets, data;
    pk_buffer_init(&validity, a);
    pk_buffer_init(&values, a);
    pk_buffer_init(&offsets, a);
    pk_buffer_init(&data, a);
    size_t ow = an->large ? 8 : 4;
    bool convert = !an->dict && an->conv != PK_CONV_COPY && an->conv != PK_CONV_BOOL &&
                   an->conv != PK_CONV_BINARY;
    bool binary = !an->dict && an->conv == PK_CONV_BINARY;
    pk_read_dest d = {0};
    d.validity = &validity;
    d.values = &values;
    if (convert) {
        d.convert = leaf_convert;
        d.convert_ctx = an;
        d.out_width = an->out_width;
    }
    d.offsets = &offsets;
    d.data = &data;
    d.offset_width = (int32_t)ow;
    d.dict_mode = an->dict;
    d.null_index = 0;
    d.view_ok = view_align > 0 && !convert && !keep;
    d.view_align = view_align;
    d.keep = keep;
    /* the values written: the kept ones, or every slot */
    int64_t outn = keep ? kept : rows;
    plank_status st = PLANK_OK;
    if (binary && fl->bytes_per_row > 0) {
        /* The string bytes sized from the last batch (plus a little), so the
         * buffer rarely grows, and never copies what it holds, mid-batch. */
        double want = fl->bytes_per_row * (double)outn * 1.0625 + 64;
        if (want < (double)(SIZE_MAX / 2)) st = pk_buffer_reserve(&data, (size_t)want, err);
    }
    if (st == PLANK_OK) st = pk_column_reader_read_dest(cr, rows, &d, err);
    if (st == PLANK_OK && binary && outn > 0)
        fl->bytes_per_row = (double)data.size / (double)outn;
    if (st == PLANK_OK && d.length != rows)
        st = PK_CORRUPT(err, "column %d (%s) ends after %lld of %lld records",
                        (int)pn->column, pn->path, (long long)d.length, (long long)rows);
    if (st == PLANK_OK && keep && d.kept != kept)
        st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "%lld slots kept, %lld expected",
                          (long long)d.kept, (long long)kept);
    if (st == PLANK_OK) st = pk_array_new(a, out, outn, binary ? 3 : 2, 0, err);
    if (st == PLANK_OK) {
        out->null_count = d.null_count;
        if (d.null_count) st = pk_array_adopt(out, 0, &validity, err);
    }
    if (st == PLANK_OK) {
        if (an->dict) {
            st = pk_array_adopt(out, 1, &values, err);
            const pk_dict *dict = pk_column_reader_dict(cr);
            struct ArrowArray *da = pk_array_dictionary_slot(out);
            if (st == PLANK_OK && d.fb_n == 0) {
                st = shared_dict(fl, dict, ow, a, err);
                if (st == PLANK_OK) st = pk_array_new(a, da, fl->dict_len, 3, 0, err);
                if (st == PLANK_OK) {
                    uint8_t *base = pk_shared_data(fl->dict_block);
                    pk_array_borrow(da, 1, base, fl->dict_block, false);
                    pk_array_borrow(da, 2, base + fl->dict_off_bytes, NULL, false);
                    out->dictionary = da;
                }
            } else if (st == PLANK_OK) {
                st = batch_dict(da, dict, d.fb_n, (const int64_t *)(const void *)offsets.data,
                                data.data, ow, a, err);
                if (da->release) out->dictionary = da;
            }
        } else if (binary) {
            st = pk_array_adopt(out, 1, &offsets, err);
            if (st == PLANK_OK) st = pk_array_adopt(out, 2, &data, err);
        } else if (d.view) {
            pk_array_borrow(out, 1, d.view, pk_column_reader_chunk_owner(cr), true);
        } else {
            st = pk_array_adopt(out, 1, &values, err);
        }
    }
    pk_buffer_reset(&validity);
    pk_buffer_reset(&values);
    pk_buffer_reset(&offsets);
    pk_buffer_reset(&data);
    if (st != PLANK_OK && out->release) out->release(out);
    return st;
}

plank_status pk_flat_leaf_read(pk_flat_leaf *fl, plank_column_reader *cr, const pk_anode *an,
                               int64_t rows, int32_t view_align, const plank_allocator *a,
                               struct ArrowArray *out, plank_error *err) {
    return leaf_read(fl, cr, an, rows, view_align, NULL, 0, a, out, err);
}

static plank_status leaf_compact(const pk_anode *an, struct ArrowArray *arr,
                                 const uint8_t *keep, int64_t k, const pk_kernels *kn,
                                 plank_error *err);

plank_status pk_flat_leaf_read_kept(pk_flat_leaf *fl, plank_column_reader *cr,
                                    const pk_anode *an, int64_t rows, const uint8_t *keep,
                                    int64_t kept, const pk_kernels *kn, const plank_allocator *a,
                                    struct ArrowArray *out, plank_error *err) {
    const plank_schema_node *pn = an->pn;
    if (pn->max_definition_level == 0 && pn->max_repetition_level == 0)
        return leaf_read(fl, cr, an, rows, 0, keep, kept, a, out, err);
    /* validity to compact with the values: read whole, then compact */
    PK_FORWARD(leaf_read(fl, cr, an, rows, 0, NULL, 0, a, out, err));
    plank_status st = leaf_compact(an, out, keep, kept, kn, err);
    if (st != PLANK_OK) out->release(out);
    return st;
}

bool pk_flat_leaf_givable(const pk_anode *an) {
    if (!pk_flat_leaf_eligible(an)) return false;
    const plank_schema_node *pn = an->pn;
    if (an->dict) return pn->physical_type == PLANK_BYTE_ARRAY;
    if (an->conv == PK_CONV_BINARY) return pn->physical_type == PLANK_BYTE_ARRAY;
    return an->conv != PK_CONV_BOOL && pn->physical_type != PLANK_BOOLEAN &&
           pn->physical_type != PLANK_BYTE_ARRAY;
}

/* A dictionary-array leaf's given batch: the owner's strings as the
 * batch's own dictionary, indices 0 .. rows - 1. */
static plank_status given_dictionary(const pk_anode *an, const pk_stream_given *g, void *opaque,
                                     const pk_given_rows *at, int64_t rows,
                                     const plank_allocator *a, struct ArrowArray *out,
                                     plank_error *err) {
    size_t ow = an->large ? 8 : 4;
    PK_RETURN_IF(rows > INT32_MAX, err, PLANK_ERR_LIMIT, "%lld rows in one batch",
                 (long long)rows);
    PK_FORWARD(pk_array_new(a, out, rows, 2, 0, err));
    int32_t *idx = pk_array_buffer_uninit(out, 1, (size_t)rows * 4, err);
    struct ArrowArray *da = pk_array_dictionary_slot(out);
    plank_status st = idx ? PLANK_OK : PLANK_ERR_OUT_OF_MEMORY;
    pk_buffer data;
    pk_buffer_init(&data, a);
    if (st == PLANK_OK) {
        for (int64_t i = 0; i < rows; i++) idx[i] = (int32_t)i;
        st = pk_array_new(a, da, rows, 3, 0, err);
    }
    uint8_t *offs = st == PLANK_OK ? pk_array_buffer_uninit(da, 1, (size_t)(rows + 1) * ow, err)
                                   : NULL;
    if (st == PLANK_OK && !offs) st = PLANK_ERR_OUT_OF_MEMORY;
    if (st == PLANK_OK)
        st = g->gather_strings(opaque, an->pn->column, at, rows, ow, offs, &data, err);
    if (st == PLANK_OK) st = pk_array_adopt(da, 2, &data, err);
    pk_buffer_reset(&data);
    if (da->release) out->dictionary = da;
    if (st != PLANK_OK) out->release(out);
    return st;
}

plank_status pk_flat_leaf_given(pk_flat_leaf *fl, const pk_anode *an, const pk_stream_given *g,
                                void *opaque, const pk_given_rows *at, int64_t rows,
                                const plank_allocator *a, struct ArrowArray *out,
                                plank_error *err) {
    memset(out, 0, sizeof *out);
    const plank_schema_node *pn = an->pn;
    if (an->dict) return given_dictionary(an, g, opaque, at, rows, a, out, err);
    if (an->conv == PK_CONV_BINARY) {
        size_t ow = an->large ? 8 : 4;
        PK_FORWARD(pk_array_new(a, out, rows, 3, 0, err));
        pk_buffer data;
        pk_buffer_init(&data, a);
        uint8_t *offs = pk_array_buffer_uninit(out, 1, (size_t)(rows + 1) * ow, err);
        plank_status st = offs ? PLANK_OK : PLANK_ERR_OUT_OF_MEMORY;
        if (st == PLANK_OK)
            st = g->gather_strings(opaque, pn->column, at, rows, ow, offs, &data, err);
        if (st == PLANK_OK) st = pk_array_adopt(out, 2, &data, err);
        pk_buffer_reset(&data);
        if (st != PLANK_OK) out->release(out);
        return st;
    }
    int32_t w = pk_physical_width(pn->physical_type, pn->type_length);
    bool convert = an->conv != PK_CONV_COPY;
    PK_FORWARD(pk_array_new(a, out, rows, 2, 0, err));
    plank_status st = PLANK_OK;
    uint8_t *dst = NULL, *phys = NULL;
    if (convert) {
        st = pk_buffer_resize(&fl->conv, (size_t)rows * (size_t)w, err);
        phys = fl->conv.data;
        if (st == PLANK_OK) dst = pk_array_buffer_uninit(out, 1, (size_t)rows * (size_t)an->out_width, err);
    } else {
        dst = phys = pk_array_buffer_uninit(out, 1, (size_t)rows * (size_t)w, err);
    }
    if (st == PLANK_OK && !dst) st = PLANK_ERR_OUT_OF_MEMORY;
    if (st == PLANK_OK) st = g->gather(opaque, pn->column, at, rows, phys, err);
    if (st == PLANK_OK && convert)
        st = pk_convert_fixed(an->conv, phys, w, rows, dst, an->out_width, err);
    if (st != PLANK_OK && out->release) out->release(out);
    return st;
}

/* ---- Compaction by a bitmap (a scan's selection of short runs) ---- */

static plank_status leaf_compact(const pk_anode *an, struct ArrowArray *arr,
                                 const uint8_t *keep, int64_t k, const pk_kernels *kn,
                                 plank_error *err) {
    int64_t n = arr->length;
    if (k == n) return PLANK_OK;
    if (arr->null_count > 0) {
        uint8_t *v = pk_array_owned(arr, 0);
        PK_RETURN_IF(!v, err, PLANK_ERR_UNSUPPORTED, "a borrowed validity buffer");
        arr->null_count = k - kn->compact_bits(v, v, keep, (size_t)n);
    }
    if (!an->dict && an->conv == PK_CONV_BINARY) {
        uint8_t *o = pk_array_owned(arr, 1), *d = pk_array_owned(arr, 2);
        PK_RETURN_IF(!o || !d, err, PLANK_ERR_UNSUPPORTED, "a borrowed string buffer");
        /* In place: the ends are the offsets from offset 1. */
        size_t ow = an->large ? 8 : 4;
        int64_t first = an->large ? ((const int64_t *)(const void *)o)[0]
                                  : ((const int32_t *)(const void *)o)[0];
        pk_compact_binary(d, first, o + ow, ow, n, keep, NULL, NULL);
    } else if (!an->dict && an->conv == PK_CONV_BOOL) {
        uint8_t *v = pk_array_owned(arr, 1);
        PK_RETURN_IF(!v, err, PLANK_ERR_UNSUPPORTED, "a borrowed boolean buffer");
        kn->compact_bits(v, v, keep, (size_t)n);
    } else {
        size_t w = an->dict ? 4 : (size_t)an->out_width;
        uint8_t *v = pk_array_owned(arr, 1);
        PK_RETURN_IF(!v, err, PLANK_ERR_UNSUPPORTED, "a borrowed value buffer");
        kn->compact_fixed(v, v, w, keep, (size_t)n);
    }
    arr->length = k;
    return PLANK_OK;
}
