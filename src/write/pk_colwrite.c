/*
 * pk_colwrite.c: the writer of one column chunk: stages levels and dense
 * values of the current page, cuts pages at record boundaries, encodes,
 * compresses and checksums them, keeps the statistics, size statistics,
 * page index entries and bloom filter hashes of the chunk, and writes the
 * chunk when its row group is flushed (see pk_write.h).
 */
#include "pk_write.h"

/* Slots staged per step before the page limits are looked at again. */
#define PK_STAGE_STEP 4096
/* The first page of a chunk is judged on its first PK_DICT_SAMPLE values
 * before the rest are hashed, when it has at least PK_DICT_SAMPLE_PAGE. */
#define PK_DICT_SAMPLE 1024
#define PK_DICT_SAMPLE_PAGE (4 * PK_DICT_SAMPLE)
#define PK_DICT_SAMPLE_REPEATS 2

plank_status pk_colw_init(pk_colw *c, const plank_schema_node *node, const pk_col_opts *o,
                          const plank_allocator *alloc, const pk_kernels *k, plank_error *err) {
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    c->kernels = k;
    c->node = node;
    c->column = node->column;
    c->type = node->physical_type;
    c->width = pk_physical_width(c->type, node->type_length);
    if (c->width < 0) c->width = 0;
    c->max_def = node->max_definition_level;
    c->max_rep = node->max_repetition_level;
    c->sort = pk_sort_kind_of(node);
    plank_logical_kind lk = node->logical.kind;
    c->is_utf8 = c->type == PLANK_BYTE_ARRAY &&
                 (lk == PLANK_LOGICAL_STRING || lk == PLANK_LOGICAL_ENUM || lk == PLANK_LOGICAL_JSON);
    c->o = *o;
    c->geo = c->type == PLANK_BYTE_ARRAY && c->o.statistics &&
             (lk == PLANK_LOGICAL_GEOMETRY || lk == PLANK_LOGICAL_GEOGRAPHY);
    pk_geo_init(&c->geo_acc, &node->logical);
    pk_buffer *bufs[] = {&c->def, &c->rep, &c->vals, &c->offs, &c->idx, &c->enc,
                         &c->lv, &c->comp, &c->page_minmax, &c->page_entries, &c->p_def_hist,
                         &c->p_rep_hist, &c->seen, &c->sel, &c->dpage, &c->doffs};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pk_buffer_init(bufs[i], alloc);
    pk_chain_init(&c->pages, alloc);
    /* Staging buffers always have memory, so an all-null page hands the
     * encoders and statistics valid (empty) arrays rather than NULL. */
    PK_FORWARD(pk_buffer_reserve(&c->vals, 64, err));
    PK_FORWARD(pk_buffer_reserve(&c->idx, 64, err));
    PK_FORWARD(pk_buffer_reserve(&c->enc, 64, err));
    PK_FORWARD(pk_buffer_reserve(&c->page_minmax, 64, err));
    pk_minmax_init(&c->c_mm, alloc);
    pk_minmax_init(&c->p_mm, alloc);
    if (c->type == PLANK_BOOLEAN) c->o.dictionary = false;
    c->dict_on = c->o.dictionary;
    if (c->dict_on) {
        PK_FORWARD(pk_dict_builder_init(&c->dict, c->type, c->width, alloc, err));
        c->dict.kernels = k;
    }
    if (c->o.size_statistics) {
        if (c->max_def > 0) {
            c->def_hist = pk_calloc(alloc, sizeof(int64_t) * (size_t)(c->max_def + 1));
            if (!c->def_hist) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        if (c->max_rep > 0) {
            c->rep_hist = pk_calloc(alloc, sizeof(int64_t) * (size_t)(c->max_rep + 1));
            if (!c->rep_hist) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    if (c->type == PLANK_BYTE_ARRAY) {
        int64_t zero = 0;
        PK_FORWARD(pk_buffer_append(&c->offs, &zero, sizeof zero, err));
    }
    return PLANK_OK;
}

void pk_colw_release(pk_colw *c) {
    pk_buffer *bufs[] = {&c->def, &c->rep, &c->vals, &c->offs, &c->idx, &c->enc,
                         &c->lv, &c->comp, &c->page_minmax, &c->page_entries, &c->p_def_hist,
                         &c->p_rep_hist, &c->seen, &c->sel, &c->dpage, &c->doffs};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pk_buffer_reset(bufs[i]);
    pk_chain_release(&c->pages);
    pk_minmax_release(&c->c_mm);
    pk_minmax_release(&c->p_mm);
    pk_compressor_release(&c->zc);
    if (c->o.dictionary) pk_dict_builder_release(&c->dict);
    pk_free(c->alloc, c->def_hist, sizeof(int64_t) * (size_t)(c->max_def + 1));
    pk_free(c->alloc, c->rep_hist, sizeof(int64_t) * (size_t)(c->max_rep + 1));
    pk_free(c->alloc, c->bloom_set, sizeof(uint64_t) * c->bloom_cap);
    memset(c, 0, sizeof *c);
}

size_t pk_colw_buffered(const pk_colw *c) {
    return pk_chain_size(&c->pages) + c->vals.size + c->offs.size + c->def.size + c->rep.size +
           (c->o.dictionary ? c->dict.plain_bytes : 0);
}

/* ---- Bloom filter hashes ------------------------------------------------------ */

static plank_status bloom_add(pk_colw *c, uint64_t h, plank_error *err) {
    if (h == 0) {
        c->bloom_has_zero = true;
        return PLANK_OK;
    }
    if ((c->bloom_count + 1) * 2 > c->bloom_cap) {
        size_t ncap = c->bloom_cap ? c->bloom_cap * 2 : 1024;
        uint64_t *ns = pk_calloc(c->alloc, sizeof(uint64_t) * ncap);
        if (!ns) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < c->bloom_cap; i++) {
            uint64_t x = c->bloom_set[i];
            if (!x) continue;
            size_t j = (size_t)(x ^ (x >> 29)) & (ncap - 1);
            while (ns[j]) j = (j + 1) & (ncap - 1);
            ns[j] = x;
        }
        pk_free(c->alloc, c->bloom_set, sizeof(uint64_t) * c->bloom_cap);
        c->bloom_set = ns;
        c->bloom_cap = ncap;
    }
    size_t mask = c->bloom_cap - 1, j = (size_t)(h ^ (h >> 29)) & mask;
    while (c->bloom_set[j]) {
        if (c->bloom_set[j] == h) return PLANK_OK;
        j = (j + 1) & mask;
    }
    c->bloom_set[j] = h;
    c->bloom_count++;
    return PLANK_OK;
}

/* Values hashed a block ahead of their insertion: the set of a chunk of mostly
 * distinct values (keys, free text) outgrows the cache, and probing it slot by slot was
 * one serial miss per value (85% of the hashing's time in a profile); the block's slots
 * are prefetched first so the misses overlap (64 ahead measured a little faster than
 * 16 with eight bloom columns: best 964-1037 against 1090-1300 ms). */
#define PK_BLOOM_AHEAD 64

static plank_status bloom_hash_values(pk_colw *c, const pk_values *v, plank_error *err) {
    uint64_t h[PK_BLOOM_AHEAD];
    for (int64_t i0 = 0; i0 < v->n; i0 += PK_BLOOM_AHEAD) {
        int64_t m = v->n - i0 < PK_BLOOM_AHEAD ? v->n - i0 : PK_BLOOM_AHEAD;
        for (int64_t k = 0; k < m; k++) {
            int64_t i = i0 + k;
            if (v->type == PLANK_BYTE_ARRAY)
                /* a page of empty strings may have no data buffer at all */
                h[k] = pk_bloom_hash(v->data ? v->data + v->offsets[i] : (const uint8_t *)"",
                                     (size_t)(v->offsets[i + 1] - v->offsets[i]));
            else
                h[k] = pk_bloom_hash(v->fixed + (size_t)i * (size_t)v->width, (size_t)v->width);
        }
        if (c->bloom_cap > 4096) /* past 32 KiB */
            for (int64_t k = 0; k < m; k++)
                __builtin_prefetch(&c->bloom_set[(size_t)(h[k] ^ (h[k] >> 29)) & (c->bloom_cap - 1)]);
        for (int64_t k = 0; k < m; k++) PK_FORWARD(bloom_add(c, h[k], err));
    }
    return PLANK_OK;
}

/* A dictionary-encoded page's values are its dictionary entries: hashing the entries it
 * added, [from, count), puts the same hashes into the set as hashing every value, once
 * per distinct value instead of once per value (the bitset written is the same). */
static plank_status bloom_hash_entries(pk_colw *c, int64_t from, plank_error *err) {
    pk_values e;
    pk_dict_builder_entries(&c->dict, &e);
    if (from >= e.n) return PLANK_OK;
    pk_values added = e;
    added.n = e.n - from;
    if (e.type == PLANK_BYTE_ARRAY) added.offsets = e.offsets + from;
    else added.fixed = e.fixed + (size_t)from * (size_t)e.width;
    return bloom_hash_values(c, &added, err);
}

/* ---- Pages --------------------------------------------------------------------- */

/* The page's min/max over the distinct dictionary entries idx[0..n) uses. */
static plank_status minmax_from_dict(pk_colw *c, const uint32_t *idx, int64_t n,
                                     plank_error *err) {
    size_t count = (size_t)c->dict.count;
    PK_FORWARD(pk_buffer_resize(&c->seen, (count + 7) / 8, err));
    memset(c->seen.data, 0, (count + 7) / 8);
    PK_FORWARD(pk_buffer_resize(&c->sel, 0, err));
    size_t found = 0;
    /* stops once every entry is found: at once for flags and codes */
    for (int64_t i = 0; i < n && found < count; i++) {
        uint32_t e = idx[i];
        if (pk_bit_get(c->seen.data, e)) continue;
        pk_bit_set(c->seen.data, e);
        PK_FORWARD(pk_buffer_append(&c->sel, &e, sizeof e, err));
        found++;
    }
    pk_values ent;
    pk_dict_builder_entries(&c->dict, &ent);
    PK_FORWARD(pk_minmax_update_entries(&c->p_mm, c->sort, &ent, (const uint32_t *)c->sel.data,
                                        c->sel.size / sizeof(uint32_t), err));
    return pk_minmax_merge(&c->c_mm, c->sort, &c->p_mm, err);
}

static plank_status encode_levels(pk_colw *c, plank_error *err, size_t *rep_len,
                                  size_t *def_len) {
    c->lv.size = 0;
    bool v1 = c->o.page_version == 1;
    size_t n = (size_t)c->p_slots;
    if (c->max_rep > 0) {
        int bw = pk_bit_width_for((uint64_t)c->max_rep);
        PK_FORWARD(v1 ? pk_rle_encode_levels_v1((const int16_t *)c->rep.data, n, bw, &c->lv, err)
                      : pk_rle_encode_i16((const int16_t *)c->rep.data, n, bw, &c->lv, err));
    }
    *rep_len = c->lv.size;
    if (c->max_def > 0) {
        int bw = pk_bit_width_for((uint64_t)c->max_def);
        PK_FORWARD(v1 ? pk_rle_encode_levels_v1((const int16_t *)c->def.data, n, bw, &c->lv, err)
                      : pk_rle_encode_i16((const int16_t *)c->def.data, n, bw, &c->lv, err));
    }
    *def_len = c->lv.size - *rep_len;
    return PLANK_OK;
}

/* The dictionary's verdict on the first page of a chunk (see cut_page):
 * its indices against what the fallback encoding takes, and how much of the
 * page's bytes are new entries. */
static bool dict_first_page_loses(const pk_colw *c, const pk_values *v, int64_t added,
                                  int64_t idx_bytes) {
    int64_t plain = (int64_t)pk_plain_size(v);
    int64_t fallback = c->o.encoding == PLANK_ENC_DELTA_BINARY_PACKED
                           ? (int64_t)pk_delta_size_bound(v)
                           : plain;
    return idx_bytes > fallback || 2 * added > plain;
}

/* A chunk's first large page, before all of it is hashed: the dictionary
 * takes the page's first PK_DICT_SAMPLE values and is judged on them. Where
 * that sample already loses (keys, prices, free text: nearly all distinct
 * values, or sorted runs that DELTA packs tighter than indices) the chunk
 * is written without a dictionary from its first page;
 * hashing a whole page only to drop it was work for nothing (dictionary
 * hashing was 7% of a TPC-H write's profile), and the dictionary page and
 * dictionary-encoded first page it left behind made files larger. Otherwise the entries stay: the page's own put finds
 * the sample's values first, in the same order, so the indices are those
 * of a put of the whole page. */
static plank_status dict_sample(pk_colw *c, const pk_values *v, plank_error *err) {
    pk_values s = *v;
    s.n = PK_DICT_SAMPLE;
    PK_FORWARD(pk_buffer_resize(&c->idx, (size_t)s.n * 4, err));
    PK_FORWARD(pk_dict_builder_put(&c->dict, &s, (uint32_t *)c->idx.data, err));
    c->enc.size = 0;
    PK_FORWARD(pk_encode_dict_indices((const uint32_t *)c->idx.data, (size_t)s.n, c->dict.count,
                                      c->kernels, &c->enc, err));
    /* Judged only where the sample cannot be misleading. A sample of S
     * values from D distinct ones shows about D (1 - e^(-S/D)) of them, so
     * its share of new entries overstates the page's for any D near S or
     * above (dates: 2,526 values, 82% new in a sample of 1,024, 2% in a
     * page): the sample condemns the dictionary on that count only when at
     * most PK_DICT_SAMPLE_REPEATS of its values repeat (D in the hundreds
     * of thousands or more, where the page's share is past one half too).
     * The indices' width only grows with more entries, so indices that
     * already lose to the fallback on the sample lose on the page. */
    int64_t repeats = PK_DICT_SAMPLE - c->dict.count;
    bool loses = (int64_t)c->dict.plain_bytes > c->o.dictionary_page_size ||
                 repeats <= PK_DICT_SAMPLE_REPEATS ||
                 dict_first_page_loses(c, &s, 0, (int64_t)c->enc.size);
    c->enc.size = 0;
    if (loses) {
        pk_dict_builder_clear(&c->dict);
        c->dict_on = false;
    }
    return PLANK_OK;
}

static plank_status cut_page(pk_colw *c, plank_error *err) {
    if (c->p_slots == 0) return PLANK_OK;
    const uint8_t *fixed = c->direct ? c->direct : c->vals.data;
    pk_values v = {c->type, c->width, c->p_values, fixed,
                   (const int64_t *)c->offs.data, c->vals.data, true};
    if (c->direct_offs) {
        v.offsets = c->direct_offs;
        v.data = c->direct_data;
        v.padded = c->direct_padded;
    }
    int64_t nulls = c->p_slots - c->p_values;
    int64_t entry_bytes = (int64_t)c->dict.plain_bytes; /* before this page's entries */
    int64_t entries_before = c->dict.count;             /* the bloom filter's, below */
    if (c->dict_on && c->o.dictionary_sample && c->dict_pages == 0 && c->dict.count == 0 &&
        v.n >= PK_DICT_SAMPLE_PAGE)
        PK_FORWARD(dict_sample(c, &v, err));

    /* statistics of the page, folded into the chunk's. Byte strings of a
     * dictionary-encoded page take theirs from the distinct entries the page
     * uses (below, after the dictionary lookups): a few compares instead of
     * one per value. */
    bool want_mm = (c->o.statistics || c->o.page_index) && c->sort != PK_SORT_NONE;
    bool mm_from_dict = want_mm && c->dict_on &&
                        (c->type == PLANK_BYTE_ARRAY || c->type == PLANK_FIXED_LEN_BYTE_ARRAY);
    /* Signed integers going into the dictionary: its dense table finds
     * the page's range anyway (checked after the put; a hashed put scans). */
    bool mm_after_dict = want_mm && c->dict_on &&
                         (c->sort == PK_SORT_I32 || c->sort == PK_SORT_I64);
    pk_minmax_clear(&c->p_mm);
    if (want_mm && !mm_from_dict && !mm_after_dict) {
        PK_FORWARD(pk_minmax_update(&c->p_mm, c->sort, &v, c->kernels, err));
        PK_FORWARD(pk_minmax_merge(&c->c_mm, c->sort, &c->p_mm, err));
    }
    /* a dictionary-encoded page's bloom hashes come from its new entries (below) */
    if (c->o.bloom && !c->dict_on) PK_FORWARD(bloom_hash_values(c, &v, err));
    if (c->geo) pk_geo_update(&c->geo_acc, &v);
    int64_t unencoded = 0;
    if (c->type == PLANK_BYTE_ARRAY) unencoded = v.offsets[v.n] - v.offsets[0];
    c->c_unencoded += unencoded;
    if (c->o.size_statistics && c->o.page_index) {
        size_t dn = c->max_def > 0 ? (size_t)c->max_def + 1 : 0;
        size_t rn = c->max_rep > 0 ? (size_t)c->max_rep + 1 : 0;
        size_t d0 = c->p_def_hist.size, r0 = c->p_rep_hist.size;
        PK_FORWARD(pk_buffer_resize(&c->p_def_hist, d0 + dn * 8, err));
        PK_FORWARD(pk_buffer_resize(&c->p_rep_hist, r0 + rn * 8, err));
        int64_t *dh = (int64_t *)(c->p_def_hist.data + d0), *rh = (int64_t *)(c->p_rep_hist.data + r0);
        memset(dh, 0, dn * 8);
        memset(rh, 0, rn * 8);
        if (dn) c->kernels->level_hist16((const int16_t *)c->def.data, (size_t)c->p_slots,
                                c->max_def, dh);
        if (rn) c->kernels->level_hist16((const int16_t *)c->rep.data, (size_t)c->p_slots,
                                c->max_rep, rh);
        for (size_t i = 0; i < dn; i++) c->def_hist[i] += dh[i];
        for (size_t i = 0; i < rn; i++) c->rep_hist[i] += rh[i];
    } else if (c->o.size_statistics) {
        if (c->def_hist) c->kernels->level_hist16((const int16_t *)c->def.data,
                                         (size_t)c->p_slots, c->max_def, c->def_hist);
        if (c->rep_hist) c->kernels->level_hist16((const int16_t *)c->rep.data,
                                         (size_t)c->p_slots, c->max_rep, c->rep_hist);
    }

    /* values */
    c->enc.size = 0;
    plank_encoding used;
    const uint8_t *vdata = c->enc.data;
    size_t vlen;
    if (c->dict_on) {
        PK_FORWARD(pk_buffer_resize(&c->idx, (size_t)v.n * 4, err));
        PK_FORWARD(pk_dict_builder_put(&c->dict, &v, (uint32_t *)c->idx.data, err));
        if (mm_from_dict) PK_FORWARD(minmax_from_dict(c, (const uint32_t *)c->idx.data, v.n, err));
        if (c->o.bloom) PK_FORWARD(bloom_hash_entries(c, entries_before, err));
        if (mm_after_dict) {
            if (c->dict.put_range_known)
                PK_FORWARD(pk_minmax_offer_int(&c->p_mm, c->sort, c->dict.put_lo,
                                               c->dict.put_hi, err));
            else
                PK_FORWARD(pk_minmax_update(&c->p_mm, c->sort, &v, c->kernels, err));
            PK_FORWARD(pk_minmax_merge(&c->c_mm, c->sort, &c->p_mm, err));
        }
        PK_FORWARD(pk_encode_dict_indices((const uint32_t *)c->idx.data, (size_t)v.n,
                                          c->dict.count, c->kernels, &c->enc, err));
        used = c->o.format_version == 1 ? PLANK_ENC_PLAIN_DICTIONARY : PLANK_ENC_RLE_DICTIONARY;
        c->dict_used = true;
        /* The next pages fall back (this one keeps its indices) past the
         * size limit or when the dictionary stops paying: once a page's
         * indices plus the entries it added take more than the fallback
         * encoding would (PLAIN exactly, DELTA by its bound). The first
         * page adds most of any dictionary's entries, so it is judged by
         * its indices alone, unless over half its bytes were new entries
         * (mostly distinct values: keys, prices, free text). Columns that
         * fall back stop paying for hashing after one or two pages. */
        /* The weighing runs on pages 1-4, 8, 16, 32, ... of a chunk: a
         * dictionary that paid on those keeps paying on data like them,
         * and the size limit is checked on every page. */
        int64_t k = ++c->dict_pages;
        bool stop = (int64_t)c->dict.plain_bytes > c->o.dictionary_page_size;
        if (k <= 4 || (k & (k - 1)) == 0) {
            int64_t added = (int64_t)c->dict.plain_bytes - entry_bytes;
            int64_t idx_bytes = (int64_t)c->enc.size;
            if (k == 1) {
                stop = stop || dict_first_page_loses(c, &v, added, idx_bytes);
            } else {
                int64_t fallback = c->o.encoding == PLANK_ENC_DELTA_BINARY_PACKED
                                       ? (int64_t)pk_delta_size_bound(&v)
                                       : (int64_t)pk_plain_size(&v);
                stop = stop || idx_bytes + added > fallback;
            }
        }
        if (stop)
            c->dict_on = false;
        vdata = c->enc.data;
        vlen = c->enc.size;
    } else if (c->o.encoding == PLANK_ENC_PLAIN && c->type != PLANK_BOOLEAN &&
               c->type != PLANK_BYTE_ARRAY) {
        /* PLAIN fixed-width values are the staged bytes themselves. */
        used = PLANK_ENC_PLAIN;
        vdata = fixed;
        vlen = (size_t)v.n * (size_t)c->width;
    } else {
        PK_FORWARD(pk_encode_values(c->o.encoding, &v, &c->enc, c->kernels, err));
        used = c->o.encoding;
        vdata = c->enc.data;
        vlen = c->enc.size;
    }

    /* levels, compression, header */
    size_t rep_len, def_len;
    PK_FORWARD(encode_levels(c, err, &rep_len, &def_len));
    bool v1 = c->o.page_version == 1;
    size_t uncompressed = c->lv.size + vlen;
    if (uncompressed > (size_t)INT32_MAX)
        return pk_error_set(err, PLANK_ERR_LIMIT,
                            "column %d: a page of %zu bytes exceeds the format's 2 GiB page "
                            "limit (lower page_size or page_rows)",
                            (int)c->column, uncompressed);
    if (c->p_slots > INT32_MAX)
        return pk_error_set(err, PLANK_ERR_LIMIT, "column %d: page of more than 2^31 levels",
                            (int)c->column);
    /* The payload follows the header: levels then values. v1 compresses
     * both together, v2 only the values (its levels stay uncompressed).
     * Uncompressed pieces go to the page buffer straight from where they
     * are; only compression needs the scratch buffer. */
    bool compress = c->o.codec != PLANK_CODEC_UNCOMPRESSED;
    int level = c->o.codec_level;
    /* ZSTD above level 1 buys under 1% on bit-packed pages (DELTA,
     * dictionary indices: near-random bits) at about three times the time
     * (zstd -b1 -e3 on a DELTA column: 359, 265, 115 MB/s for ratios
     * 1.039, 1.039, 1.041), so those pages use level 1; PLAIN and other
     * byte-oriented pages get the level asked for. */
    if (c->o.codec == PLANK_CODEC_ZSTD && level != 1 && level >= 0 &&
        (used == PLANK_ENC_DELTA_BINARY_PACKED || used == PLANK_ENC_RLE_DICTIONARY ||
         used == PLANK_ENC_PLAIN_DICTIONARY))
        level = 1;
    const uint8_t *p1 = c->lv.data, *p2 = vdata;
    size_t n1 = c->lv.size, n2 = vlen;
    if (compress) {
        c->comp.size = 0;
        if (v1) {
            const uint8_t *src = vdata;
            size_t srcn = vlen;
            if (c->lv.size) {
                PK_FORWARD(pk_buffer_append(&c->lv, vdata, vlen, err));
                src = c->lv.data;
                srcn = c->lv.size;
            }
            PK_FORWARD(pk_compress_with(&c->zc, c->o.codec, level, src, srcn,
                                        &c->comp, err));
            p1 = NULL;
            n1 = 0;
            p2 = c->comp.data;
            n2 = c->comp.size;
        } else {
            PK_FORWARD(pk_compress_with(&c->zc, c->o.codec, level, vdata, vlen,
                                        &c->comp, err));
            /* Values that compression barely shrinks stay as they are
             * (v2_min_saving): is_compressed false. */
            if ((double)c->comp.size < (1.0 - c->o.v2_min_saving) * (double)vlen) {
                p2 = c->comp.data;
                n2 = c->comp.size;
            } else {
                compress = false;
            }
        }
    }
    if (n1 + n2 > (size_t)INT32_MAX)
        return pk_error_set(err, PLANK_ERR_LIMIT, "column %d: compressed page over 2 GiB",
                            (int)c->column);

    pk_page_header h;
    memset(&h, 0, sizeof h);
    h.type = v1 ? PLANK_PAGE_DATA : PLANK_PAGE_DATA_V2;
    h.uncompressed_page_size = (int32_t)uncompressed;
    h.compressed_page_size = (int32_t)(n1 + n2);
    h.has_crc = c->o.crc;
    if (c->o.crc) h.crc = pk_crc32(pk_crc32(0, p1, n1), p2, n2);
    h.num_values = (int32_t)c->p_slots;
    h.encoding = used;
    if (v1) {
        h.has_data_header = true;
        h.definition_level_encoding = PLANK_ENC_RLE;
        h.repetition_level_encoding = PLANK_ENC_RLE;
    } else {
        h.has_data_header_v2 = true;
        h.num_nulls = (int32_t)nulls;
        h.num_rows = (int32_t)c->p_rows;
        h.definition_levels_byte_length = (int32_t)def_len;
        h.repetition_levels_byte_length = (int32_t)rep_len;
        h.is_compressed = compress;
    }
    /* header and payload go to one segment of the chunk's chain (room for
     * any page header: it holds no statistics) */
    size_t page_at = pk_chain_size(&c->pages);
    pk_buffer *tail;
    PK_FORWARD(pk_chain_tail(&c->pages, 256 + n1 + n2, &tail, err));
    size_t t0 = tail->size;
    PK_FORWARD(pk_thrift_write_page_header(&h, tail, err));
    size_t header_len = tail->size - t0;
    if (n1) PK_FORWARD(pk_buffer_append(tail, p1, n1, err));
    if (n2) PK_FORWARD(pk_buffer_append(tail, p2, n2, err));

    /* page index entry */
    if (c->o.page_index) {
        pk_page_entry e;
        memset(&e, 0, sizeof e);
        e.offset = (int64_t)page_at;
        e.size = (int32_t)(pk_chain_size(&c->pages) - page_at);
        e.first_row = c->c_rows;
        e.null_count = nulls;
        /* A null page holds only nulls: a page of NaN (and nulls) has no
         * bounds but is not one, or a reader pruning on null_pages would
         * drop its rows. */
        e.null_page = c->p_values == 0;
        e.no_bounds = !e.null_page && !c->p_mm.has;
        e.unencoded_bytes = unencoded;
        e.minmax_at = c->page_minmax.size;
        if (c->p_mm.has) {
            e.min_len = (uint32_t)c->p_mm.min.size;
            e.max_len = (uint32_t)c->p_mm.max.size;
            PK_FORWARD(pk_buffer_append(&c->page_minmax, c->p_mm.min.data, e.min_len, err));
            PK_FORWARD(pk_buffer_append(&c->page_minmax, c->p_mm.max.data, e.max_len, err));
        }
        PK_FORWARD(pk_buffer_append(&c->page_entries, &e, sizeof e, err));
    }
    c->enc_seen[used] = true;
    c->enc_pages[used]++;
    c->c_rows += c->p_rows;
    c->c_values += c->p_slots;
    c->c_nulls += nulls;
    c->c_uncompressed += (int64_t)(header_len + uncompressed);

    /* reset the staging area */
    c->p_slots = c->p_values = c->p_rows = 0;
    c->def.size = c->rep.size = c->vals.size = 0;
    if (c->type == PLANK_BYTE_ARRAY) c->offs.size = sizeof(int64_t); /* offsets[0] == 0 stays */
    c->page_full = false;
    c->direct = NULL;
    c->direct_offs = NULL;
    c->direct_data = NULL;
    return PLANK_OK;
}

/* ---- Staging ---------------------------------------------------------------------- */

/* Stages slots [i, j) (levels and present values). */
static plank_status stage(pk_colw *c, const plank_batch *b, int64_t i, int64_t j,
                          plank_error *err) {
    size_t n = (size_t)(j - i);
    int16_t *def = NULL;
    if (c->max_def > 0) {
        size_t at = c->def.size;
        PK_FORWARD(pk_buffer_resize(&c->def, at + n * 2, err));
        def = (int16_t *)(c->def.data + at);
        if (b->def_levels) {
            memcpy(def, b->def_levels + i, n * 2);
        } else {
            for (size_t k = 0; k < n; k++)
                def[k] = (int16_t)(!b->validity || pk_bit_get(b->validity, i + (int64_t)k)
                                       ? c->max_def : c->max_def - 1);
        }
    }
    if (c->max_rep > 0) {
        size_t at = c->rep.size;
        PK_FORWARD(pk_buffer_append(&c->rep, b->rep_levels + i, n * 2, err));
        const int16_t *rep = (const int16_t *)(c->rep.data + at);
        c->p_rows += c->kernels->count_eq16(rep, n, 0);
    } else {
        c->p_rows += (int64_t)n;
    }
    c->p_slots += (int64_t)n;

    /* present values, copied run by run */
    int64_t k = 0;
    while (k < (int64_t)n) {
        int64_t s = k;
        if (def) {
            while (s < (int64_t)n && def[s] != c->max_def) s++;
            if (s == (int64_t)n) break;
        }
        int64_t e = s + 1;
        if (def) {
            while (e < (int64_t)n && def[e] == c->max_def) e++;
        } else {
            e = (int64_t)n;
        }
        int64_t from = i + s, cnt = e - s;
        if (c->type == PLANK_BOOLEAN) {
            size_t at = c->vals.size;
            PK_FORWARD(pk_buffer_resize(&c->vals, at + (size_t)cnt, err));
            const uint8_t *bits = b->values;
            for (int64_t q = 0; q < cnt; q++) c->vals.data[at + (size_t)q] = pk_bit_get(bits, from + q);
        } else if (c->type == PLANK_BYTE_ARRAY) {
            int64_t lo = b->offsets[from], hi = b->offsets[from + cnt];
            size_t base = c->vals.size, oat = c->offs.size;
            PK_FORWARD(pk_buffer_append(&c->vals, b->data + lo, (size_t)(hi - lo), err));
            PK_FORWARD(pk_buffer_resize(&c->offs, oat + (size_t)cnt * 8, err));
            int64_t *o = (int64_t *)(c->offs.data + oat);
            int64_t shift = (int64_t)base - lo;
            for (int64_t q = 0; q < cnt; q++) o[q] = b->offsets[from + q + 1] + shift;
        } else {
            size_t w = (size_t)c->width;
            PK_FORWARD(pk_buffer_append(&c->vals, (const uint8_t *)b->values + (size_t)from * w,
                                        (size_t)cnt * w, err));
        }
        c->p_values += cnt;
        k = e;
    }
    return PLANK_OK;
}

static size_t staged_size(const pk_colw *c) {
    size_t s = c->vals.size + c->def.size / 4 + c->rep.size / 4;
    if (c->type == PLANK_BYTE_ARRAY) s += (size_t)c->p_values * 4;
    return s;
}

/* The end of the next staging step of a flat column from slot k, with
 * `rows` rows already in the page: PK_STAGE_STEP rows, no more than the page
 * has left (at least one), and no further than the batch's end. The in-place
 * paths below walk the same steps, so they cut the pages staging cuts. */
static int64_t stage_step_end(const pk_colw *c, int64_t k, int64_t rows, int64_t end) {
    int64_t rows_left = c->o.page_rows - rows;
    int64_t step = rows_left < PK_STAGE_STEP ? rows_left : PK_STAGE_STEP;
    if (step < 1) step = 1;
    return end - k < step ? end : k + step;
}

/* For a required flat BYTE_ARRAY column with nothing staged: the end of the
 * page that staging would cut from slot i on (steps of PK_STAGE_STEP until
 * page_rows or page_size is reached), if that page lies inside the batch's
 * slots [i, end); else -1 (the rows are staged as usual). */
static int64_t direct_binary_page(const pk_colw *c, const plank_batch *b, int64_t i,
                                  int64_t end) {
    int64_t k = i, rows = 0;
    while (k < end) {
        k = stage_step_end(c, k, rows, end);
        rows = k - i;
        int64_t bytes = b->offsets[k] - b->offsets[i] + 4 * rows;
        if (rows >= c->o.page_rows || bytes >= c->o.page_size) return k;
    }
    return -1;
}

/* The same for an optional flat BYTE_ARRAY column (max_def 1), whose null
 * slots are empty (Arrow's layout, and what the reader produces): the page
 * staging would cut from slot i on, if it lies inside [i, end), gets its
 * levels staged and its values as offsets into the batch's bytes (c->doffs,
 * one per non-null slot, then the end), not copied. *pe is the page's end,
 * or 0 when the rows are to be staged as usual (the batch ends first, or a
 * null slot has bytes). */
static plank_status direct_optional_binary(pk_colw *c, const plank_batch *b, int64_t i,
                                           int64_t end, int64_t *pe, plank_error *err) {
    *pe = 0;
    int64_t k = i, values = 0;
    bool full = false;
    while (k < end && !full) {
        int64_t j = stage_step_end(c, k, k - i, end);
        size_t n = (size_t)(j - k), at = c->def.size;
        PK_FORWARD(pk_buffer_resize(&c->def, at + n * 2, err));
        int16_t *def = (int16_t *)(c->def.data + at);
        if (b->def_levels) {
            memcpy(def, b->def_levels + k, n * 2);
        } else {
            for (size_t q = 0; q < n; q++)
                def[q] = (int16_t)(!b->validity || pk_bit_get(b->validity, k + (int64_t)q));
        }
        values += pk_count_eq16(c->kernels, def, n, 1);
        k = j;
        int64_t rows = k - i;
        int64_t staged = b->offsets[k] - b->offsets[i] + 2 * rows / 4 + 4 * values;
        full = rows >= c->o.page_rows || staged >= c->o.page_size;
    }
    if (!full) {
        c->def.size = 0;
        return PLANK_OK;
    }
    PK_FORWARD(pk_buffer_resize(&c->doffs, (size_t)(values + 1) * 8, err));
    int64_t *o = (int64_t *)c->doffs.data;
    const int16_t *def = (const int16_t *)c->def.data;
    const int64_t *off = b->offsets + i;
    int64_t q = 0;
    uint64_t bytes_in_nulls = 0;
    for (int64_t s = 0; s < k - i; s++) {
        o[q] = off[s];
        q += def[s];
        bytes_in_nulls |= (uint64_t)((off[s + 1] - off[s]) & (def[s] - 1));
    }
    o[q] = off[k - i];
    if (bytes_in_nulls) {
        c->def.size = 0;
        return PLANK_OK;
    }
    c->direct_offs = o;
    c->direct_data = b->data;
    c->direct_padded = values == 0 || o[values - 1] + 16 <= b->offsets[end];
    c->p_slots = c->p_rows = k - i;
    c->p_values = values;
    *pe = k;
    return PLANK_OK;
}

plank_status pk_colw_append(pk_colw *c, const plank_batch *b, int64_t begin, int64_t end,
                            plank_error *err) {
    const int16_t *rep = c->max_rep > 0 ? b->rep_levels : NULL;
    /* Required flat fixed-width columns whose pages are cut by rows: a
     * whole page of the batch is encoded where it lies, without staging
     * (the same pages as staging would make: page_rows values each). */
    const bool direct_ok = c->max_def == 0 && c->max_rep == 0 && c->type != PLANK_BOOLEAN &&
                           c->type != PLANK_BYTE_ARRAY &&
                           c->o.page_rows <= c->o.page_size / c->width;
    const bool direct_binary = c->max_def == 0 && c->max_rep == 0 && c->type == PLANK_BYTE_ARRAY;
    const bool direct_optional = c->max_def == 1 && c->max_rep == 0 && c->type == PLANK_BYTE_ARRAY;
    int64_t i = begin;
    while (i < end) {
        bool starts = !rep || rep[i] == 0;
        if (starts && c->page_full) PK_FORWARD(cut_page(c, err));
        if (direct_ok && c->p_slots == 0 && end - i >= c->o.page_rows) {
            c->direct = (const uint8_t *)b->values + (size_t)i * (size_t)c->width;
            c->p_slots = c->p_values = c->p_rows = c->o.page_rows;
            plank_status st = cut_page(c, err); /* resets direct and the counts */
            if (st != PLANK_OK) {
                c->direct = NULL; /* nothing staged: a later flush cuts no page */
                c->p_slots = c->p_values = c->p_rows = 0;
                return st;
            }
            i += c->o.page_rows;
            continue;
        }
        /* Required byte strings: a page that lies whole in the batch is
         * encoded from the caller's offsets and bytes, not copied into the
         * staging buffers first (the same page staging would make). */
        int64_t pe;
        if (direct_binary && c->p_slots == 0 && (pe = direct_binary_page(c, b, i, end)) > 0) {
            c->direct_offs = b->offsets + i;
            c->direct_data = b->data;
            /* the dictionary and statistics read short values as whole
             * 16-byte words: only where the batch's own bytes reach that far */
            c->direct_padded = b->offsets[pe - 1] + 16 <= b->offsets[end];
            c->p_slots = c->p_values = c->p_rows = pe - i;
            plank_status st = cut_page(c, err); /* resets direct_* and the counts */
            if (st != PLANK_OK) {
                c->direct_offs = NULL;
                c->direct_data = NULL;
                c->p_slots = c->p_values = c->p_rows = 0;
                return st;
            }
            i = pe;
            continue;
        }
        if (direct_optional && c->p_slots == 0) {
            int64_t ope;
            PK_FORWARD(direct_optional_binary(c, b, i, end, &ope, err));
            if (ope > 0) {
                plank_status st = cut_page(c, err); /* resets direct_*, levels and counts */
                if (st != PLANK_OK) {
                    c->direct_offs = NULL;
                    c->direct_data = NULL;
                    c->p_slots = c->p_values = c->p_rows = 0;
                    c->def.size = 0;
                    return st;
                }
                i = ope;
                continue;
            }
        }
        int64_t rows_left = c->o.page_rows - c->p_rows;
        int64_t j;
        if (!rep) {
            j = stage_step_end(c, i, c->p_rows, end);
        } else {
            int64_t cnt = starts ? 1 : 0;
            j = i + 1;
            while (j < end) {
                if (rep[j] == 0) {
                    if (cnt >= rows_left || j - i >= PK_STAGE_STEP) break;
                    cnt++;
                }
                j++;
            }
        }
        PK_FORWARD(stage(c, b, i, j, err));
        if (c->p_rows >= c->o.page_rows || (int64_t)staged_size(c) >= c->o.page_size)
            c->page_full = true;
        i = j;
    }
    return PLANK_OK;
}

/* ---- Flushing a chunk --------------------------------------------------------------- */

plank_status pk_out_write(pk_out *o, const void *buf, size_t len, plank_error *err) {
    if (len == 0) return PLANK_OK;
    plank_status st = o->write(o->opaque, buf, len);
    if (st != PLANK_OK) {
        if (err && err->message[0] == '\0')
            pk_error_set(err, st, "write of %zu bytes at offset %lld failed", len,
                         (long long)o->pos);
        else if (err)
            err->code = st;
        return st;
    }
    o->pos += (int64_t)len;
    return PLANK_OK;
}

static plank_status out_segment(void *ctx, const uint8_t *p, size_t n, plank_error *err) {
    return pk_out_write(ctx, p, n, err);
}

/* Encodes and compresses the chunk's dictionary page (header and body) into
 * c->dpage, once the chunk's last page is cut. */
static plank_status prepare_dictionary_page(pk_colw *c, plank_error *err) {
    c->enc.size = 0;
    PK_FORWARD(pk_dict_builder_encode(&c->dict, &c->enc, err));
    c->comp.size = 0;
    PK_FORWARD(pk_compress_with(&c->zc, c->o.codec, c->o.codec_level, c->enc.data,
                                c->enc.size, &c->comp, err));
    if (c->enc.size > (size_t)INT32_MAX || c->comp.size > (size_t)INT32_MAX ||
        c->dict.count > INT32_MAX)
        return pk_error_set(err, PLANK_ERR_LIMIT, "column %d: dictionary page over 2 GiB",
                            (int)c->column);
    pk_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PLANK_PAGE_DICTIONARY;
    h.uncompressed_page_size = (int32_t)c->enc.size;
    h.compressed_page_size = (int32_t)c->comp.size;
    h.has_crc = c->o.crc;
    h.crc = c->o.crc ? pk_crc32(0, c->comp.data, c->comp.size) : 0;
    h.has_dictionary_header = true;
    h.dict_num_values = (int32_t)c->dict.count;
    h.dict_encoding = c->o.format_version == 1 ? PLANK_ENC_PLAIN_DICTIONARY : PLANK_ENC_PLAIN;
    c->dpage.size = 0;
    PK_FORWARD(pk_thrift_write_page_header(&h, &c->dpage, err));
    c->dpage_uncompressed = (int64_t)(c->dpage.size + c->enc.size);
    return pk_buffer_append(&c->dpage, c->comp.data, c->comp.size, err);
}

plank_status pk_colw_finish(pk_colw *c, plank_error *err) {
    if (c->finished) return PLANK_OK;
    PK_FORWARD(cut_page(c, err));
    if (c->dict_used) PK_FORWARD(prepare_dictionary_page(c, err));
    c->finished = true;
    return PLANK_OK;
}

static plank_status write_bloom(pk_colw *c, pk_out *out, plank_column_chunk_info *cc,
                                plank_error *err) {
    uint64_t ndv = c->o.bloom_ndv > 0 ? (uint64_t)c->o.bloom_ndv
                                      : c->bloom_count + (c->bloom_has_zero ? 1 : 0);
    uint32_t nbytes = pk_bloom_optimal_bytes(ndv, c->o.bloom_fpp);
    uint8_t *bits = pk_calloc(c->alloc, nbytes);
    if (!bits) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < c->bloom_cap; i++)
        if (c->bloom_set[i]) pk_bloom_insert(bits, nbytes, c->bloom_set[i]);
    if (c->bloom_has_zero) pk_bloom_insert(bits, nbytes, 0);
    c->lv.size = 0;
    plank_status st = pk_thrift_write_bloom_header(nbytes, &c->lv, err);
    int64_t at = out->pos;
    if (st == PLANK_OK) st = pk_out_write(out, c->lv.data, c->lv.size, err);
    if (st == PLANK_OK) st = pk_out_write(out, bits, nbytes, err);
    pk_free(c->alloc, bits, nbytes);
    PK_FORWARD(st);
    cc->bloom_filter_offset = at;
    cc->bloom_filter_length = (int32_t)(out->pos - at);
    return PLANK_OK;
}

static int64_t *arena_i64(pk_arena *a, const int64_t *src, size_t n) {
    int64_t *p = pk_arena_alloc(a, sizeof(int64_t) * (n ? n : 1));
    if (p && n) memcpy(p, src, sizeof(int64_t) * n);
    return p;
}

static plank_boundary_order boundary_order(const pk_colw *c, const pk_page_entry *pe, int32_t n) {
    bool asc = true, desc = true;
    const uint8_t *pmin = NULL, *pmax = NULL;
    uint32_t pminl = 0, pmaxl = 0;
    for (int32_t i = 0; i < n; i++) {
        if (pe[i].null_page) continue;
        const uint8_t *mn = c->page_minmax.data + pe[i].minmax_at;
        const uint8_t *mx = mn + pe[i].min_len;
        if (pmin) {
            int a = pk_value_compare(c->sort, pmin, pminl, mn, pe[i].min_len);
            int b = pk_value_compare(c->sort, pmax, pmaxl, mx, pe[i].max_len);
            if (a > 0 || b > 0) asc = false;
            if (a < 0 || b < 0) desc = false;
        }
        pmin = mn;
        pminl = pe[i].min_len;
        pmax = mx;
        pmaxl = pe[i].max_len;
    }
    if (asc) return PLANK_BOUNDARY_ASCENDING;
    if (desc) return PLANK_BOUNDARY_DESCENDING;
    return PLANK_BOUNDARY_UNORDERED;
}

static plank_status write_page_index(pk_colw *c, int64_t data_offset, pk_arena *arena,
                                     plank_column_chunk_info *cc, pk_buffer *ci, pk_buffer *oi,
                                     plank_error *err) {
    int32_t np = (int32_t)(c->page_entries.size / sizeof(pk_page_entry));
    const pk_page_entry *pe = (const pk_page_entry *)c->page_entries.data;
    size_t un = (size_t)(np ? np : 1);
    plank_page_location *locs = pk_arena_alloc(arena, sizeof *locs * un);
    int64_t *unenc = pk_arena_alloc(arena, sizeof(int64_t) * un);
    if (!locs || !unenc) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < np; i++) {
        locs[i].offset = data_offset + pe[i].offset;
        locs[i].compressed_page_size = pe[i].size;
        locs[i].first_row_index = pe[i].first_row;
        unenc[i] = pe[i].unencoded_bytes;
    }
    plank_offset_index o;
    memset(&o, 0, sizeof o);
    o.num_pages = np;
    o.pages = locs;
    o.unencoded_byte_array_data_bytes =
        c->type == PLANK_BYTE_ARRAY && c->o.size_statistics ? unenc : NULL;
    size_t at = oi->size;
    PK_FORWARD(pk_thrift_write_offset_index(&o, oi, err));
    cc->offset_index_offset = (int64_t)at;
    cc->offset_index_length = (int32_t)(oi->size - at);

    /* No ColumnIndex for a type without order (INT96, INTERVAL, ...), nor
     * when a page's non-null values are all NaN: with TYPE_ORDER (the order
     * plank writes) parquet.thrift forbids NaN bounds and requires the
     * chunk's column index to be left out (ColumnOrder, ColumnIndex). */
    if (c->sort == PK_SORT_NONE) return PLANK_OK;
    for (int32_t i = 0; i < np; i++)
        if (pe[i].no_bounds) return PLANK_OK;
    plank_column_index x;
    memset(&x, 0, sizeof x);
    bool *null_pages = pk_arena_alloc(arena, un);
    const uint8_t **mins = pk_arena_alloc(arena, sizeof(void *) * un);
    const uint8_t **maxs = pk_arena_alloc(arena, sizeof(void *) * un);
    uint32_t *minl = pk_arena_alloc(arena, 4 * un), *maxl = pk_arena_alloc(arena, 4 * un);
    int64_t *nulls = pk_arena_alloc(arena, 8 * un);
    if (!null_pages || !mins || !maxs || !minl || !maxl || !nulls)
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    pk_minmax tmp;
    pk_minmax_init(&tmp, c->alloc);
    plank_status st = PLANK_OK;
    for (int32_t i = 0; i < np && st == PLANK_OK; i++) {
        null_pages[i] = pe[i].null_page;
        nulls[i] = pe[i].null_count;
        mins[i] = maxs[i] = (const uint8_t *)"";
        minl[i] = maxl[i] = 0;
        if (pe[i].null_page) continue;
        pk_minmax_clear(&tmp);
        const uint8_t *mn = c->page_minmax.data + pe[i].minmax_at;
        st = pk_buffer_append(&tmp.min, mn, pe[i].min_len, err);
        if (st == PLANK_OK) st = pk_buffer_append(&tmp.max, mn + pe[i].min_len, pe[i].max_len, err);
        tmp.has = true;
        bool ex1, ex2;
        if (st == PLANK_OK)
            st = pk_minmax_finish(&tmp, c->sort, c->is_utf8, c->o.max_statistics_size, arena,
                                  &mins[i], &minl[i], &ex1, &maxs[i], &maxl[i], &ex2, err);
    }
    pk_minmax_release(&tmp);
    PK_FORWARD(st);
    x.num_pages = np;
    x.null_pages = null_pages;
    x.min_values = mins;
    x.min_lens = minl;
    x.max_values = maxs;
    x.max_lens = maxl;
    x.boundary_order = boundary_order(c, pe, np);
    x.null_counts = nulls;
    if (c->o.size_statistics) {
        if (c->max_rep > 0) {
            x.num_repetition_level_histograms = np * (c->max_rep + 1);
            x.repetition_level_histograms = (const int64_t *)c->p_rep_hist.data;
        }
        if (c->max_def > 0) {
            x.num_definition_level_histograms = np * (c->max_def + 1);
            x.definition_level_histograms = (const int64_t *)c->p_def_hist.data;
        }
    }
    at = ci->size;
    PK_FORWARD(pk_thrift_write_column_index(&x, ci, err));
    cc->column_index_offset = (int64_t)at;
    cc->column_index_length = (int32_t)(ci->size - at);
    return PLANK_OK;
}

static plank_status fill_metadata(pk_colw *c, pk_arena *arena, plank_column_chunk_info *cc,
                                  plank_error *err) {
    /* encodings: levels (RLE), the dictionary page's, then the data pages' */
    plank_encoding encs[12];
    int32_t ne = 0;
    bool rle = c->max_def > 0 || c->max_rep > 0 || c->enc_seen[PLANK_ENC_RLE];
    if (c->dict_used)
        encs[ne++] = c->o.format_version == 1 ? PLANK_ENC_PLAIN_DICTIONARY : PLANK_ENC_PLAIN;
    if (rle) encs[ne++] = PLANK_ENC_RLE;
    for (int e = 0; e < 10; e++) {
        if (!c->enc_seen[e] || e == PLANK_ENC_RLE) continue;
        bool dup = false;
        for (int32_t q = 0; q < ne; q++) dup |= encs[q] == (plank_encoding)e;
        if (!dup) encs[ne++] = (plank_encoding)e;
    }
    plank_encoding *pe = pk_arena_alloc(arena, sizeof *pe * (size_t)ne);
    plank_encoding_stat *es = pk_arena_alloc(arena, sizeof *es * 11);
    if (!pe || !es) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(pe, encs, sizeof *pe * (size_t)ne);
    cc->num_encodings = ne;
    cc->encodings = pe;
    int32_t ns = 0;
    if (c->dict_used) {
        es[ns].page_type = PLANK_PAGE_DICTIONARY;
        es[ns].encoding = c->o.format_version == 1 ? PLANK_ENC_PLAIN_DICTIONARY : PLANK_ENC_PLAIN;
        es[ns++].count = 1;
    }
    for (int e = 0; e < 10; e++) {
        if (!c->enc_pages[e]) continue;
        es[ns].page_type = c->o.page_version == 1 ? PLANK_PAGE_DATA : PLANK_PAGE_DATA_V2;
        es[ns].encoding = (plank_encoding)e;
        es[ns++].count = c->enc_pages[e];
    }
    cc->num_encoding_stats = ns;
    cc->encoding_stats = es;

    if (c->o.statistics) {
        plank_statistics *s = &cc->statistics;
        cc->has_statistics = true;
        s->has_null_count = true;
        s->null_count = c->c_nulls;
        if (c->c_mm.has) {
            bool mn_ex, mx_ex;
            PK_FORWARD(pk_minmax_finish(&c->c_mm, c->sort, c->is_utf8, c->o.max_statistics_size,
                                        arena, &s->min, &s->min_len, &mn_ex, &s->max,
                                        &s->max_len, &mx_ex, err));
            s->has_min = s->has_max = true;
            if (c->type == PLANK_BYTE_ARRAY || c->type == PLANK_FIXED_LEN_BYTE_ARRAY) {
                s->has_is_min_exact = s->has_is_max_exact = true;
                s->is_min_exact = mn_ex;
                s->is_max_exact = mx_ex;
            }
        }
    }
    if (c->geo) {
        /* GEOGRAPHY edges are not planar: its box is computed on the
         * sphere for SPHERICAL edges (pk_geostats.c); other edge
         * algorithms get the type codes only. */
        plank_status st;
        cc->has_geospatial_statistics =
            pk_geo_finish(&c->geo_acc, c->node->logical.kind == PLANK_LOGICAL_GEOMETRY, arena,
                          &cc->geospatial_statistics, err, &st);
        PK_FORWARD(st);
    }
    cc->unencoded_byte_array_data_bytes = -1;
    if (c->o.size_statistics) {
        if (c->type == PLANK_BYTE_ARRAY) cc->unencoded_byte_array_data_bytes = c->c_unencoded;
        if (c->def_hist) {
            cc->num_definition_level_histogram = c->max_def + 1;
            cc->definition_level_histogram = arena_i64(arena, c->def_hist, (size_t)c->max_def + 1);
            if (!cc->definition_level_histogram)
                return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        if (c->rep_hist) {
            cc->num_repetition_level_histogram = c->max_rep + 1;
            cc->repetition_level_histogram = arena_i64(arena, c->rep_hist, (size_t)c->max_rep + 1);
            if (!cc->repetition_level_histogram)
                return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    return PLANK_OK;
}

static void reset_chunk(pk_colw *c) {
    pk_chain_clear(&c->pages);
    c->page_minmax.size = c->page_entries.size = 0;
    c->p_def_hist.size = c->p_rep_hist.size = 0;
    c->c_values = c->c_rows = c->c_nulls = c->c_uncompressed = c->c_unencoded = 0;
    memset(c->enc_seen, 0, sizeof c->enc_seen);
    memset(c->enc_pages, 0, sizeof c->enc_pages);
    pk_minmax_clear(&c->c_mm);
    pk_geo_reset(&c->geo_acc);
    if (c->def_hist) memset(c->def_hist, 0, sizeof(int64_t) * (size_t)(c->max_def + 1));
    if (c->rep_hist) memset(c->rep_hist, 0, sizeof(int64_t) * (size_t)(c->max_rep + 1));
    if (c->bloom_set) memset(c->bloom_set, 0, sizeof(uint64_t) * c->bloom_cap);
    c->bloom_count = 0;
    c->bloom_has_zero = false;
    if (c->o.dictionary) pk_dict_builder_clear(&c->dict);
    c->dict_on = c->o.dictionary;
    c->dict_used = false;
    c->dict_pages = 0;
    c->finished = false;
}

plank_status pk_colw_flush(pk_colw *c, pk_out *out, pk_arena *arena,
                           plank_column_chunk_info *cc, pk_buffer *ci, pk_buffer *oi,
                           plank_error *err) {
    PK_FORWARD(pk_colw_finish(c, err));
    memset(cc, 0, sizeof *cc);
    cc->column = c->column;
    cc->path = c->node->path;
    cc->physical_type = c->type;
    cc->codec = c->o.codec;
    cc->index_page_offset = cc->dictionary_page_offset = -1;
    cc->bloom_filter_offset = cc->column_index_offset = cc->offset_index_offset = -1;
    cc->bloom_filter_length = cc->column_index_length = cc->offset_index_length = -1;
    int64_t start = out->pos, dict_uncompressed = 0;
    if (c->dict_used) {
        cc->dictionary_page_offset = start;
        dict_uncompressed = c->dpage_uncompressed;
        PK_FORWARD(pk_out_write(out, c->dpage.data, c->dpage.size, err));
    }
    cc->data_page_offset = out->pos;
    PK_FORWARD(pk_chain_each(&c->pages, out_segment, out, err));
    cc->num_values = c->c_values;
    cc->total_compressed_size = out->pos - start;
    cc->total_uncompressed_size = c->c_uncompressed + dict_uncompressed;
    PK_FORWARD(fill_metadata(c, arena, cc, err));
    if (c->o.page_index)
        PK_FORWARD(write_page_index(c, cc->data_page_offset, arena, cc, ci, oi, err));
    if (c->o.bloom) PK_FORWARD(write_bloom(c, out, cc, err));
    reset_chunk(c);
    return PLANK_OK;
}
