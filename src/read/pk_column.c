/*
 * pk_column.c: reading one column chunk page by page into Arrow-layout
 * batches.
 *
 * Flow: the chunk's bytes are fetched once (or referenced in place for memory
 * sources); each page header is decoded, its CRC checked, its body
 * decompressed (v2: only the values section), the levels decoded lazily per
 * batch, and the non-null values decoded densely and then spread over the
 * slots of the batch. A slot is one level entry, so the same reader serves
 * nested columns: the record assembler works from def/rep levels and slots.
 */
#include "pk_read.h"

#include <stdio.h>

#define PK_SCRATCH_LEVELS 4096

/* True for parquet-mr before 1.2.9 (or without a version), whose
 * total_compressed_size misses the dictionary page header. */
static bool pk_writer_pads_dictionary(const char *created_by) {
    if (!created_by || strncmp(created_by, "parquet-mr", 10) != 0) return false;
    const char *v = strstr(created_by, "version ");
    if (!v) return true;
    int major = 0, minor = 0, patch = 0;
    if (sscanf(v + 8, "%d.%d.%d", &major, &minor, &patch) < 2) return true;
    if (major != 1) return major < 1;
    if (minor != 2) return minor < 2;
    return patch < 9;
}

struct plank_column_reader {
    plank_reader *r;
    const plank_allocator *a;
    int32_t rg, col;
    const plank_schema_node *node;
    const plank_column_chunk_info *cc;
    plank_physical_type type;
    int32_t width;            /* dense bytes per value (BOOLEAN: 1) */
    int16_t max_def, max_rep;

    /* chunk bytes */
    const uint8_t *chunk;
    pk_shared *chunk_owned;   /* NULL for memory sources (read in place) */
    uint64_t chunk_start, chunk_len;
    uint64_t pos;             /* next page header, relative to chunk */
    int64_t page_ordinal;     /* ordinal of the current page, -1 before the first */
    uint64_t page_offset;     /* current page header offset, relative to chunk */
    int64_t levels_done;      /* level entries consumed over the chunk */

    pk_dict dict;
    bool has_dict;

    /* current data page */
    bool in_page;
    int64_t page_left;        /* level entries left in the page */
    bool rep_rle, def_rle;    /* RLE hybrid (else legacy BIT_PACKED) */
    pk_rle_decoder rep_dec, def_dec;
    const uint8_t *rep_bp, *def_bp; /* legacy BIT_PACKED level data */
    size_t rep_bp_len, def_bp_len;
    int64_t bp_pos;           /* levels consumed in the page (legacy BIT_PACKED) */
    int64_t bp_total;
    int16_t *bp_rep, *bp_def; /* whole page of legacy levels, decoded at page start */
    size_t bp_cap;
    pk_decoder dec;
    bool dec_active;
    pk_buffer page_buf;       /* decompressed page */

    /* batch output */
    pk_buffer validity, values, offsets, data, def, rep;
    pk_buffer scratch, ends;
    bool dict_mode;           /* see pk_column_reader_set_dict_mode */
    bool view_mode;           /* see pk_column_reader_set_view_mode */
    const uint8_t *view;      /* the batch's values in the chunk (view mode), else NULL */
    int64_t fb_n;             /* fallback values in the batch (dictionary mode) */
};

/* ---- Errors with location --------------------------------------------------- */

static plank_status locate(plank_column_reader *cr, plank_status st, plank_error *err) {
    if (st == PLANK_OK || !err) return st;
    pk_error_prefix(err, "row group %d, column %d (%s), page %lld", (int)cr->rg, (int)cr->col,
                    cr->node->path, (long long)(cr->page_ordinal < 0 ? 0 : cr->page_ordinal));
    pk_error_locate(err, (int64_t)(cr->chunk_start + cr->page_offset), cr->rg, cr->col,
                    cr->page_ordinal < 0 ? 0 : cr->page_ordinal);
    return st;
}

/* ---- Open / close --------------------------------------------------------------- */

static int32_t dense_width(const plank_schema_node *n) {
    switch (n->physical_type) {
    case PLANK_BOOLEAN: return 1;
    case PLANK_INT32: case PLANK_FLOAT: return 4;
    case PLANK_INT64: case PLANK_DOUBLE: return 8;
    case PLANK_INT96: return 12;
    case PLANK_FIXED_LEN_BYTE_ARRAY: return n->type_length;
    default: return 0;
    }
}

plank_status plank_column_reader_open(plank_reader *r, int32_t g, int32_t c,
                                      plank_column_reader **out, plank_error *err) {
    plank_error_init(err);
    if (!r || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    if (g < 0 || g >= r->md.num_row_groups || c < 0 || c >= r->num_columns)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column chunk (row group %d, column %d) does not exist", (int)g,
                            (int)c);
    if (!r->selected[c])
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column %d is not selected in the reader options", (int)c);
    const plank_column_chunk_info *cc = &r->md.row_groups[g].columns[c];
    const plank_schema_node *n = &r->nodes[r->leaf_nodes[c]];
    pk_error_locate(err, -1, g, c, -1);
    if (cc->encrypted || r->md.has_encryption_algorithm)
        return pk_error_set(err, PLANK_ERR_ENCRYPTED,
                            "row group %d, column %d (%s) is encrypted; encryption is not "
                            "supported yet", (int)g, (int)c, n->path);
    if (cc->file_path)
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                            "row group %d, column %d (%s) is stored in another file (%s)",
                            (int)g, (int)c, n->path, cc->file_path);
    if ((int32_t)cc->physical_type != (int32_t)n->physical_type)
        return pk_error_set(err, PLANK_ERR_CORRUPT,
                            "row group %d, column %d (%s): chunk type %s does not match schema "
                            "type %s", (int)g, (int)c, n->path,
                            plank_physical_type_name(cc->physical_type),
                            plank_physical_type_name(n->physical_type));
    /* The chunk starts at the dictionary page when there is one. Some writers
     * store dictionary_page_offset 0 (meaning none) or put it after the data:
     * only trust it when it lies before the first data page. */
    int64_t start = cc->data_page_offset;
    if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
        start = cc->dictionary_page_offset;
    int64_t len = cc->total_compressed_size;
    if (cc->num_values == 0) {
        /* An empty chunk is never read: writers put anything in its offsets
         * (column_chunk_key_value_metadata.parquet has data_page_offset 0). */
        start = 4;
        len = 0;
    }
    uint64_t data_end = r->file_size - 8 - r->footer_len;
    if (len >= 0 && pk_writer_pads_dictionary(r->md.created_by) && start >= 4 &&
        (uint64_t)start <= data_end && (uint64_t)len <= data_end - (uint64_t)start) {
        /* Old parquet-mr left the dictionary page header out of
         * total_compressed_size (nation.dict-malformed.parquet): allow up to
         * 100 more bytes, as Arrow does, but never into the footer. */
        uint64_t room = data_end - (uint64_t)start - (uint64_t)len;
        len += room < 100 ? (int64_t)room : 100;
    }
    if (start < 4 || len < 0 || cc->num_values < 0 || (uint64_t)start > r->file_size ||
        (uint64_t)len > r->file_size - (uint64_t)start)
        return pk_error_set(err, PLANK_ERR_CORRUPT,
                            "row group %d, column %d (%s): chunk range [%lld, +%lld) is outside "
                            "the file (%llu bytes)", (int)g, (int)c, n->path, (long long)start,
                            (long long)cc->total_compressed_size,
                            (unsigned long long)r->file_size);

    plank_column_reader *cr = pk_calloc(&r->alloc, sizeof *cr);
    if (!cr) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    cr->r = r;
    cr->a = &r->alloc;
    cr->rg = g;
    cr->col = c;
    cr->node = n;
    cr->cc = cc;
    cr->type = n->physical_type;
    cr->width = dense_width(n);
    cr->max_def = n->max_definition_level;
    cr->max_rep = n->max_repetition_level;
    cr->chunk_start = (uint64_t)start;
    cr->chunk_len = (uint64_t)len;
    cr->page_ordinal = -1;
    pk_buffer *bufs[] = {&cr->page_buf, &cr->validity, &cr->values, &cr->offsets, &cr->data,
                         &cr->def, &cr->rep, &cr->scratch, &cr->ends};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pk_buffer_init(bufs[i], cr->a);
    if (r->mem) {
        cr->chunk = r->mem + start;
    } else if (cr->chunk_len > r->max_chunk_buffer) {
        plank_column_reader_close(cr);
        return pk_error_set(err, PLANK_ERR_LIMIT,
                            "row group %d, column %d (%s): chunk of %llu bytes is above the "
                            "limit of %llu bytes buffered per column chunk", (int)g, (int)c,
                            n->path, (unsigned long long)len,
                            (unsigned long long)r->max_chunk_buffer);
    } else {
        cr->chunk_owned = pk_shared_new(cr->a, cr->chunk_len ? cr->chunk_len : 1);
        if (!cr->chunk_owned) {
            plank_column_reader_close(cr);
            return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY,
                                "out of memory reading a column chunk of %llu bytes",
                                (unsigned long long)len); /* cr is freed */
        }
        plank_status st = pk_reader_read_at(r, cr->chunk_start, pk_shared_data(cr->chunk_owned),
                                            cr->chunk_len, err);
        if (st != PLANK_OK) {
            plank_column_reader_close(cr);
            return st;
        }
        cr->chunk = pk_shared_data(cr->chunk_owned);
    }
    *out = cr;
    return PLANK_OK;
}

static void end_page(plank_column_reader *cr) {
    if (cr->dec_active) pk_decoder_release(&cr->dec);
    cr->dec_active = false;
    cr->in_page = false;
}

void plank_column_reader_close(plank_column_reader *cr) {
    if (!cr) return;
    end_page(cr);
    if (cr->has_dict) pk_dict_release(&cr->dict);
    pk_buffer *bufs[] = {&cr->page_buf, &cr->validity, &cr->values, &cr->offsets, &cr->data,
                         &cr->def, &cr->rep, &cr->scratch, &cr->ends};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pk_buffer_reset(bufs[i]);
    if (cr->bp_rep) pk_free(cr->a, cr->bp_rep, cr->bp_cap * sizeof(int16_t));
    if (cr->bp_def) pk_free(cr->a, cr->bp_def, cr->bp_cap * sizeof(int16_t));
    pk_shared_release(cr->chunk_owned); /* exported arrays may keep it alive */
    pk_free(cr->a, cr, sizeof *cr);
}

/* ---- Pages ---------------------------------------------------------------------------- */

/* Decompresses `len` stored bytes at p into page_buf as `out_len` bytes, or
 * references them in place when the page is not compressed. */
static plank_status page_body(plank_column_reader *cr, bool compressed, const uint8_t *p,
                              size_t len, size_t out_len, const uint8_t **out, plank_error *err) {
    if (!compressed || cr->cc->codec == PLANK_CODEC_UNCOMPRESSED) {
        PK_RETURN_IF(len != out_len, err, PLANK_ERR_CORRUPT,
                     "uncompressed page stores %zu bytes but declares %zu", len, out_len);
        *out = p;
        return PLANK_OK;
    }
    /* An unbuilt codec is reported before any size limit: it is the more
     * useful of the two messages. */
    PK_RETURN_IF(!plank_codec_available(cr->cc->codec), err, PLANK_ERR_UNSUPPORTED,
                 "page compressed with %s but this build of plank has no %s support",
                 plank_codec_name(cr->cc->codec), plank_codec_name(cr->cc->codec));
    PK_RETURN_IF(out_len > cr->r->max_page_size, err, PLANK_ERR_LIMIT,
                 "page declares %zu uncompressed bytes, above the limit of %llu", out_len,
                 (unsigned long long)cr->r->max_page_size);
    PK_FORWARD(pk_decompress_buffer(cr->cc->codec, p, len, out_len, &cr->page_buf, cr->a, err));
    *out = cr->page_buf.data;
    return PLANK_OK;
}

/* Level section of a v1 page: RLE with a 4-byte length prefix, or the legacy
 * BIT_PACKED encoding of exactly num_values levels. */
static plank_status v1_levels(int32_t encoding, int16_t max_level,
                              int64_t num_values, const uint8_t **p, const uint8_t *end,
                              bool *is_rle, pk_rle_decoder *dec, const uint8_t **bp,
                              size_t *bp_len, const char *what, plank_error *err) {
    int bw = pk_bit_width_for((uint64_t)max_level);
    if (encoding == PLANK_ENC_RLE) {
        PK_RETURN_IF(end - *p < 4, err, PLANK_ERR_CORRUPT,
                     "%s levels: page too short for the 4-byte length", what);
        uint32_t n = pk_load_u32(*p);
        *p += 4;
        PK_RETURN_IF(n > (uint64_t)(end - *p), err, PLANK_ERR_CORRUPT,
                     "%s levels: length %u exceeds the %lld bytes left in the page", what, n,
                     (long long)(end - *p));
        *is_rle = true;
        PK_FORWARD(pk_rle_init(dec, *p, n, bw, err));
        *p += n;
        return PLANK_OK;
    }
    if (encoding == PLANK_ENC_BIT_PACKED) {
        uint64_t bytes = ((uint64_t)num_values * (uint64_t)bw + 7) / 8;
        PK_RETURN_IF(bytes > (uint64_t)(end - *p), err, PLANK_ERR_CORRUPT,
                     "%s levels: BIT_PACKED needs %llu bytes, %lld left in the page", what,
                     (unsigned long long)bytes, (long long)(end - *p));
        *is_rle = false;
        *bp = *p;
        *bp_len = (size_t)bytes;
        *p += bytes;
        return PLANK_OK;
    }
    return pk_error_set(err, PLANK_ERR_CORRUPT, "%s levels: unsupported encoding %d", what,
                        (int)encoding);
}

/* Counts the level entries equal to max_def in the next n levels of a copy
 * of the decoder, without consuming them. */
static plank_status count_non_null(plank_column_reader *cr, int64_t n, int64_t *count,
                                   plank_error *err) {
    const pk_kernels *kn = cr->r->kernels;
    int64_t c = 0;
    if (!cr->def_rle) {
        *count = pk_count_eq16(kn, cr->bp_def, (size_t)n, cr->max_def);
        return PLANK_OK;
    }
    pk_rle_decoder d = cr->def_dec;
    PK_FORWARD(pk_buffer_reserve(&cr->scratch, PK_SCRATCH_LEVELS * sizeof(int16_t), err));
    int16_t *lv = (int16_t *)cr->scratch.data;
    while (n > 0) {
        int64_t k = n < PK_SCRATCH_LEVELS ? n : PK_SCRATCH_LEVELS;
        PK_FORWARD(pk_rle_get_i16(&d, lv, k, err));
        c += pk_count_eq16(kn, lv, (size_t)k, cr->max_def);
        n -= k;
    }
    *count = c;
    return PLANK_OK;
}

static plank_status decode_legacy_levels(plank_column_reader *cr, int64_t n, plank_error *err) {
    if ((cr->max_rep > 0 && !cr->rep_rle) || (cr->max_def > 0 && !cr->def_rle)) {
        if ((size_t)n > cr->bp_cap) {
            size_t old = cr->bp_cap;
            int16_t *a = pk_realloc(cr->a, cr->bp_rep, old * 2, (size_t)n * 2);
            if (!a) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            cr->bp_rep = a;
            int16_t *b = pk_realloc(cr->a, cr->bp_def, old * 2, (size_t)n * 2);
            if (!b) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            cr->bp_def = b;
            cr->bp_cap = (size_t)n;
        }
        if (cr->max_rep > 0 && !cr->rep_rle)
            PK_FORWARD(pk_bitpacked_legacy_get_i16(cr->rep_bp, cr->rep_bp_len,
                                                   pk_bit_width_for((uint64_t)cr->max_rep),
                                                   cr->bp_rep, n, err));
        if (cr->max_def > 0 && !cr->def_rle)
            PK_FORWARD(pk_bitpacked_legacy_get_i16(cr->def_bp, cr->def_bp_len,
                                                   pk_bit_width_for((uint64_t)cr->max_def),
                                                   cr->bp_def, n, err));
    }
    cr->bp_pos = 0;
    cr->bp_total = n;
    return PLANK_OK;
}

/* Sets up the value decoder of a data page whose value section is
 * vals[0..vlen) holding `non_null` values. */
static plank_status start_values(plank_column_reader *cr, int32_t encoding, const uint8_t *vals,
                                 size_t vlen, int64_t non_null, plank_error *err) {
    const pk_dict *dict = cr->has_dict ? &cr->dict : NULL;
    /* DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY decode their lengths (and
     * prefix lengths) for the whole page up front, 8 bytes per value; since
     * zero-width miniblocks encode any number of values in a few bytes,
     * that array is bounded here by max_page_size, like a page. */
    if (encoding == PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY || encoding == PLANK_ENC_DELTA_BYTE_ARRAY) {
        uint64_t per = encoding == PLANK_ENC_DELTA_BYTE_ARRAY ? 16 : 8;
        PK_RETURN_IF((uint64_t)non_null > cr->r->max_page_size / per, err, PLANK_ERR_LIMIT,
                     "%s page of %lld values would decode %llu bytes of lengths, above the "
                     "max_page_size limit of %llu",
                     plank_encoding_name((plank_encoding)encoding), (long long)non_null,
                     (unsigned long long)((uint64_t)non_null * per),
                     (unsigned long long)cr->r->max_page_size);
    }
    PK_FORWARD(pk_decoder_init(&cr->dec, (plank_encoding)encoding, cr->type,
                               cr->node->type_length, vals, vlen, non_null, dict, cr->a, err));
    pk_decoder_use_kernels(&cr->dec, cr->r->kernels);
    cr->dec_active = true;
    return PLANK_OK;
}

static plank_status load_dictionary(plank_column_reader *cr, const pk_page_header *h,
                                    const uint8_t *stored, plank_error *err) {
    PK_RETURN_IF(cr->has_dict, err, PLANK_ERR_CORRUPT, "a second dictionary page in the chunk");
    PK_RETURN_IF(cr->page_ordinal > 0 || cr->levels_done > 0, err, PLANK_ERR_CORRUPT,
                 "dictionary page after data pages");
    PK_RETURN_IF(!h->has_dictionary_header, err, PLANK_ERR_CORRUPT,
                 "dictionary page without a dictionary_page_header");
    PK_RETURN_IF(h->dict_num_values < 0, err, PLANK_ERR_CORRUPT,
                 "dictionary page with %d values", (int)h->dict_num_values);
    PK_RETURN_IF(h->dict_encoding != PLANK_ENC_PLAIN &&
                     h->dict_encoding != PLANK_ENC_PLAIN_DICTIONARY,
                 err, PLANK_ERR_UNSUPPORTED, "dictionary page encoding %s is not PLAIN",
                 plank_encoding_name((plank_encoding)h->dict_encoding));
    uint64_t decoded = (uint64_t)h->uncompressed_page_size;
    if (cr->type == PLANK_BYTE_ARRAY) decoded += ((uint64_t)h->dict_num_values + 1) * 8;
    /* As in page_body, an unbuilt codec is the more useful message. */
    PK_RETURN_IF(decoded > cr->r->max_dictionary_size && plank_codec_available(cr->cc->codec),
                 err, PLANK_ERR_LIMIT,
                 "dictionary page of %d values and %d bytes (%llu decoded) is above the limit "
                 "of %llu bytes", (int)h->dict_num_values, (int)h->uncompressed_page_size,
                 (unsigned long long)decoded, (unsigned long long)cr->r->max_dictionary_size);
    const uint8_t *body;
    PK_FORWARD(page_body(cr, true, stored, (size_t)h->compressed_page_size,
                         (size_t)h->uncompressed_page_size, &body, err));
    PK_FORWARD(pk_dict_decode(&cr->dict, cr->type, cr->node->type_length, body,
                              (size_t)h->uncompressed_page_size, h->dict_num_values, cr->a, err));
    cr->has_dict = true;
    return PLANK_OK;
}

static plank_status start_data_page(plank_column_reader *cr, const pk_page_header *h,
                                    const uint8_t *stored, plank_error *err) {
    bool v2 = h->type == PLANK_PAGE_DATA_V2;
    PK_RETURN_IF(v2 ? !h->has_data_header_v2 : !h->has_data_header, err, PLANK_ERR_CORRUPT,
                 "data page without its data page header");
    PK_RETURN_IF(h->num_values < 0, err, PLANK_ERR_CORRUPT, "data page with %d values",
                 (int)h->num_values);
    int64_t n = h->num_values;
    PK_RETURN_IF(n > cr->cc->num_values - cr->levels_done, err, PLANK_ERR_CORRUPT,
                 "page holds %lld values but the chunk has only %lld left of %lld",
                 (long long)n, (long long)(cr->cc->num_values - cr->levels_done),
                 (long long)cr->cc->num_values);
    const uint8_t *vals;
    size_t vlen;
    int64_t non_null = n;
    if (!v2) {
        const uint8_t *body;
        PK_FORWARD(page_body(cr, true, stored, (size_t)h->compressed_page_size,
                             (size_t)h->uncompressed_page_size, &body, err));
        const uint8_t *p = body, *end = body + h->uncompressed_page_size;
        if (cr->max_rep > 0)
            PK_FORWARD(v1_levels(h->repetition_level_encoding, cr->max_rep, n, &p, end,
                                 &cr->rep_rle, &cr->rep_dec, &cr->rep_bp, &cr->rep_bp_len,
                                 "repetition", err));
        if (cr->max_def > 0)
            PK_FORWARD(v1_levels(h->definition_level_encoding, cr->max_def, n, &p, end,
                                 &cr->def_rle, &cr->def_dec, &cr->def_bp, &cr->def_bp_len,
                                 "definition", err));
        vals = p;
        vlen = (size_t)(end - p);
    } else {
        int32_t rl = h->repetition_levels_byte_length, dl = h->definition_levels_byte_length;
        PK_RETURN_IF(rl < 0 || dl < 0 || (int64_t)rl + dl > h->compressed_page_size ||
                         (int64_t)rl + dl > h->uncompressed_page_size,
                     err, PLANK_ERR_CORRUPT,
                     "v2 page level lengths (%d + %d) exceed the page (%d stored, %d "
                     "uncompressed)", (int)rl, (int)dl, (int)h->compressed_page_size,
                     (int)h->uncompressed_page_size);
        cr->rep_rle = cr->def_rle = true;
        if (cr->max_rep > 0)
            PK_FORWARD(pk_rle_init(&cr->rep_dec, stored, (size_t)rl,
                                   pk_bit_width_for((uint64_t)cr->max_rep), err));
        if (cr->max_def > 0)
            PK_FORWARD(pk_rle_init(&cr->def_dec, stored + rl, (size_t)dl,
                                   pk_bit_width_for((uint64_t)cr->max_def), err));
        PK_FORWARD(page_body(cr, h->is_compressed, stored + rl + dl,
                             (size_t)(h->compressed_page_size - rl - dl),
                             (size_t)(h->uncompressed_page_size - rl - dl), &vals, err));
        vlen = (size_t)(h->uncompressed_page_size - rl - dl);
    }
    /* Level decoders use the reader's kernels (pk_rle_init left them scalar). */
    cr->rep_dec.kernels = cr->r->kernels;
    cr->def_dec.kernels = cr->r->kernels;
    PK_FORWARD(decode_legacy_levels(cr, n, err));
    if (cr->max_def > 0) PK_FORWARD(count_non_null(cr, n, &non_null, err));
    if (v2) {
        PK_RETURN_IF(h->num_nulls < 0 || h->num_nulls > n, err, PLANK_ERR_CORRUPT,
                     "v2 page declares %d nulls of %lld values", (int)h->num_nulls,
                     (long long)n);
    }
    PK_FORWARD(start_values(cr, h->encoding, vals, vlen, non_null, err));
    cr->in_page = true;
    cr->page_left = n;
    return PLANK_OK;
}

/* Advances to the next data page with at least one value. Returns
 * PLANK_ERR_END (without message) at the end of the chunk. */
static plank_status next_page(plank_column_reader *cr, plank_error *err) {
    end_page(cr);
    for (;;) {
        if (cr->levels_done >= cr->cc->num_values) return PLANK_ERR_END;
        if (cr->pos >= cr->chunk_len) {
            cr->page_offset = cr->pos;
            return pk_error_set(err, PLANK_ERR_CORRUPT,
                                "column chunk ended after %lld of %lld values",
                                (long long)cr->levels_done, (long long)cr->cc->num_values);
        }
        cr->page_offset = cr->pos;
        cr->page_ordinal++;
        pk_page_header h;
        size_t hlen;
        plank_status st = pk_thrift_read_page_header(cr->chunk + cr->pos, cr->chunk_len - cr->pos,
                                                     &h, &hlen, err);
        if (st != PLANK_OK) {
            if (err && err->byte_offset >= 0)
                err->byte_offset += (int64_t)(cr->chunk_start + cr->pos);
            pk_error_prefix(err, "page header");
            return st;
        }
        PK_RETURN_IF(h.compressed_page_size < 0 || h.uncompressed_page_size < 0, err,
                     PLANK_ERR_CORRUPT, "negative page size");
        PK_RETURN_IF((uint64_t)h.compressed_page_size > cr->chunk_len - cr->pos - hlen, err,
                     PLANK_ERR_CORRUPT,
                     "page of %d bytes runs past the end of the column chunk (%llu bytes left)",
                     (int)h.compressed_page_size,
                     (unsigned long long)(cr->chunk_len - cr->pos - hlen));
        const uint8_t *stored = cr->chunk + cr->pos + hlen;
        cr->pos += hlen + (uint64_t)h.compressed_page_size;
        if (h.has_crc && cr->r->verify_checksums && h.type != PLANK_PAGE_INDEX) {
            uint32_t crc = pk_crc32(0, stored, (size_t)h.compressed_page_size);
            PK_RETURN_IF(crc != h.crc, err, PLANK_ERR_CHECKSUM,
                         "page CRC32 mismatch (stored 0x%08x, computed 0x%08x)", h.crc, crc);
        }
        switch (h.type) {
        case PLANK_PAGE_DICTIONARY:
            PK_FORWARD(load_dictionary(cr, &h, stored, err));
            continue;
        case PLANK_PAGE_DATA:
        case PLANK_PAGE_DATA_V2:
            PK_FORWARD(start_data_page(cr, &h, stored, err));
            if (cr->page_left == 0) {
                end_page(cr);
                continue;
            }
            return PLANK_OK;
        default:
            continue; /* index pages and unknown page types are skipped */
        }
    }
}

/* ---- Levels and values ------------------------------------------------------------------ */

static plank_status read_levels(plank_column_reader *cr, int64_t k, int16_t *def, int16_t *rep,
                                plank_error *err) {
    if (rep) {
        if (cr->rep_rle) PK_FORWARD(pk_rle_get_i16(&cr->rep_dec, rep, k, err));
        else memcpy(rep, cr->bp_rep + cr->bp_pos, (size_t)k * sizeof(int16_t));
    }
    if (def) {
        if (cr->def_rle) PK_FORWARD(pk_rle_get_i16(&cr->def_dec, def, k, err));
        else memcpy(def, cr->bp_def + cr->bp_pos, (size_t)k * sizeof(int16_t));
    }
    cr->bp_pos += k;
    return PLANK_OK;
}

static plank_status check_levels(const pk_kernels *kn, const int16_t *lv, int64_t k,
                                 int16_t max, const char *what, plank_error *err) {
    if (PK_LIKELY(kn->levels_in_range(lv, (size_t)k, max))) return PLANK_OK;
    for (int64_t i = 0; i < k; i++)
        PK_RETURN_IF(lv[i] < 0 || lv[i] > max, err, PLANK_ERR_CORRUPT,
                     "%s level %d above the maximum %d", what, (int)lv[i], (int)max);
    return PLANK_OK;
}

/* Sets bits [at, at + k). */
static void set_bits(uint8_t *bits, int64_t at, int64_t k) {
    for (; k > 0 && (at & 7); at++, k--) pk_bit_set(bits, at);
    if (k >= 8) memset(bits + (at >> 3), 0xFF, (size_t)(k >> 3));
    at += k & ~(int64_t)7;
    for (k &= 7; k > 0; at++, k--) pk_bit_set(bits, at);
}

/* Dictionary mode: k slots (nn non-null) of the current page as int32
 * indices; see pk_read.h. */
static plank_status read_dict_slots(plank_column_reader *cr, int64_t at, int64_t k, int64_t nn,
                                    const int16_t *def, plank_error *err) {
    int32_t *ix = (int32_t *)(void *)cr->values.data + at;
    int64_t base = cr->has_dict ? cr->dict.count : 0;
    PK_FORWARD(pk_buffer_reserve(&cr->scratch, (size_t)nn * 4 + 4, err));
    uint32_t *tmp = (uint32_t *)(void *)cr->scratch.data;
    bool dict_page = cr->dec.encoding == PLANK_ENC_PLAIN_DICTIONARY ||
                     cr->dec.encoding == PLANK_ENC_RLE_DICTIONARY;
    if (dict_page) {
        PK_RETURN_IF(nn > cr->dec.num_values - cr->dec.pos, err, PLANK_ERR_CORRUPT,
                     "%lld values requested, the page has %lld left", (long long)nn,
                     (long long)(cr->dec.num_values - cr->dec.pos));
        PK_FORWARD(pk_rle_get_u32(&cr->dec.rle, tmp, nn, err));
        for (int64_t j = 0; j < nn; j++)
            PK_RETURN_IF(tmp[j] >= (uint64_t)base, err, PLANK_ERR_CORRUPT,
                         "dictionary index %u out of range (dictionary has %lld values)",
                         (unsigned)tmp[j], (long long)base);
        cr->dec.pos += nn;
    } else {
        PK_RETURN_IF(base + cr->fb_n + nn > INT32_MAX, err, PLANK_ERR_LIMIT,
                     "%lld dictionary and %lld fallback values do not fit int32 indices",
                     (long long)base, (long long)(cr->fb_n + nn));
        size_t need = ((size_t)(cr->fb_n + nn) + 1) * sizeof(int64_t);
        if (cr->offsets.size < need) PK_FORWARD(pk_buffer_resize(&cr->offsets, need, err));
        int64_t *offs = (int64_t *)(void *)cr->offsets.data;
        PK_FORWARD(pk_decoder_get_binary(&cr->dec, nn, &cr->data, offs + cr->fb_n + 1, err));
        for (int64_t j = 0; j < nn; j++) tmp[j] = (uint32_t)(base + cr->fb_n + j);
        cr->fb_n += nn;
    }
    for (int64_t i = 0, j = 0; i < k; i++)
        ix[i] = !def || def[i] == cr->max_def ? (int32_t)tmp[j++] : -1;
    return PLANK_OK;
}

/* Reads k slots of the current page into the batch buffers at slot `at`. */
static plank_status read_slots(plank_column_reader *cr, int64_t at, int64_t k, int64_t *nulls,
                               plank_error *err) {
    int16_t *def = cr->max_def > 0 ? (int16_t *)cr->def.data + at : NULL;
    int16_t *rep = cr->max_rep > 0 ? (int16_t *)cr->rep.data + at : NULL;
    PK_FORWARD(read_levels(cr, k, def, rep, err));
    const pk_kernels *kn = cr->r->kernels;
    if (def) PK_FORWARD(check_levels(kn, def, k, cr->max_def, "definition", err));
    if (rep) PK_FORWARD(check_levels(kn, rep, k, cr->max_rep, "repetition", err));
    int64_t nn = k;
    uint8_t *validity = cr->validity.data;
    if (def) nn = kn->def_to_bitmap(def, (size_t)k, cr->max_def, validity, at);
    else set_bits(validity, at, k);
    *nulls += k - nn;

    if (cr->type == PLANK_BYTE_ARRAY && cr->dict_mode)
        return read_dict_slots(cr, at, k, nn, def, err);
    if (cr->type == PLANK_BYTE_ARRAY) {
        PK_FORWARD(pk_buffer_reserve(&cr->ends, (size_t)nn * sizeof(int64_t), err));
        int64_t *ends = (int64_t *)cr->ends.data;
        PK_FORWARD(pk_decoder_get_binary(&cr->dec, nn, &cr->data, ends, err));
        int64_t *offs = (int64_t *)cr->offsets.data;
        int64_t cur = offs[at], j = 0;
        for (int64_t i = 0; i < k; i++) {
            if (!def || def[i] == cr->max_def) cur = ends[j++];
            offs[at + i + 1] = cur;
        }
        return PLANK_OK;
    }
    if (cr->type == PLANK_BOOLEAN) {
        /* Straight into the batch bitmap; with nulls, densely into scratch and
         * then spread over the valid slots. */
        uint8_t *bits = cr->values.data;
        if (nn == k) return pk_decoder_get_bits(&cr->dec, k, bits, at, err);
        size_t nb = ((size_t)nn + 7) / 8;
        PK_FORWARD(pk_buffer_reserve(&cr->scratch, nb + 1, err));
        uint8_t *tmp = cr->scratch.data;
        memset(tmp, 0, nb + 1);
        PK_FORWARD(pk_decoder_get_bits(&cr->dec, nn, tmp, 0, err));
        kn->spread_bits(tmp, (size_t)nn, validity, bits, at, (size_t)k);
        return PLANK_OK;
    }
    size_t w = (size_t)cr->width;
    if (cr->view_mode && at == 0 && nn == k && cr->type != PLANK_BOOLEAN &&
        cr->dec.encoding == PLANK_ENC_PLAIN &&
        (uintptr_t)cr->dec.start - (uintptr_t)cr->chunk < cr->chunk_len) {
        /* The values already sit in the chunk in Arrow layout: point at them
         * (view mode reads never span pages, so this is the whole batch). */
        return pk_decoder_view_fixed(&cr->dec, k, &cr->view, err);
    }
    uint8_t *dst = cr->values.data + (size_t)at * w;
    /* Dense values at the start of the slots, then spread over them in place
     * (null slots zeroed, so the batch never exposes stale bytes). */
    PK_FORWARD(pk_decoder_get_fixed(&cr->dec, nn, dst, err));
    if (nn < k) kn->spread_fixed(dst, w, (size_t)k, (size_t)nn, validity, at);
    return PLANK_OK;
}

static plank_status prepare_batch(plank_column_reader *cr, int64_t n, plank_error *err) {
    size_t un = (size_t)n;
    PK_FORWARD(pk_buffer_resize(&cr->validity, (un + 7) / 8 + 1, err));
    memset(cr->validity.data, 0, (un + 7) / 8 + 1);
    if (cr->max_def > 0) PK_FORWARD(pk_buffer_resize(&cr->def, un * sizeof(int16_t), err));
    if (cr->max_rep > 0) PK_FORWARD(pk_buffer_resize(&cr->rep, un * sizeof(int16_t), err));
    if (cr->type == PLANK_BYTE_ARRAY && cr->dict_mode) {
        PK_FORWARD(pk_buffer_resize(&cr->values, un * sizeof(int32_t), err));
        PK_FORWARD(pk_buffer_resize(&cr->offsets, sizeof(int64_t), err));
        ((int64_t *)cr->offsets.data)[0] = 0;
        cr->data.size = 0;
        cr->fb_n = 0;
    } else if (cr->type == PLANK_BYTE_ARRAY) {
        PK_FORWARD(pk_buffer_resize(&cr->offsets, (un + 1) * sizeof(int64_t), err));
        ((int64_t *)cr->offsets.data)[0] = 0;
        cr->data.size = 0;
    } else if (cr->type == PLANK_BOOLEAN) {
        PK_FORWARD(pk_buffer_resize(&cr->values, (un + 7) / 8 + 1, err));
        memset(cr->values.data, 0, (un + 7) / 8 + 1);
    } else {
        uint64_t bytes;
        PK_RETURN_IF(pk_mul_overflow_u64(un, (uint64_t)cr->width, &bytes), err,
                     PLANK_ERR_INVALID_ARGUMENT, "batch too large");
        PK_FORWARD(pk_buffer_resize(&cr->values, (size_t)bytes, err));
    }
    return PLANK_OK;
}

/* Advances up to n slots; materialises them into the batch when out != NULL. */
static plank_status advance(plank_column_reader *cr, int64_t n, plank_batch *out,
                            int64_t *done_out, plank_error *err) {
    int64_t done = 0, nulls = 0;
    cr->view = NULL;
    if (out) PK_FORWARD(prepare_batch(cr, n, err));
    while (done < n) {
        if (!cr->in_page) {
            if (cr->view_mode && done > 0) break; /* view mode: one page per read */
            plank_status st = next_page(cr, err);
            if (st == PLANK_ERR_END) break;
            PK_FORWARD(st);
        }
        int64_t k = n - done < cr->page_left ? n - done : cr->page_left;
        if (out) {
            PK_FORWARD(read_slots(cr, done, k, &nulls, err));
        } else {
            /* Skip: count the non-null values in the next k levels and drop them. */
            int64_t left = k;
            PK_FORWARD(pk_buffer_reserve(&cr->def, PK_SCRATCH_LEVELS * 2 * sizeof(int16_t), err));
            int16_t *def = (int16_t *)cr->def.data;
            int16_t *rep = def + PK_SCRATCH_LEVELS;
            while (left > 0) {
                int64_t m = left < PK_SCRATCH_LEVELS ? left : PK_SCRATCH_LEVELS;
                PK_FORWARD(read_levels(cr, m, cr->max_def > 0 ? def : NULL,
                                       cr->max_rep > 0 ? rep : NULL, err));
                int64_t nn = m;
                if (cr->max_def > 0)
                    nn = pk_count_eq16(cr->r->kernels, def, (size_t)m, cr->max_def);
                PK_FORWARD(pk_decoder_skip(&cr->dec, nn, err));
                left -= m;
            }
        }
        done += k;
        cr->page_left -= k;
        cr->levels_done += k;
        if (cr->page_left == 0) end_page(cr);
    }
    if (done_out) *done_out = done;
    if (out) {
        memset(out, 0, sizeof *out);
        out->length = done;
        out->null_count = nulls;
        out->validity = nulls ? cr->validity.data : NULL;
        out->physical_type = cr->type;
        out->def_levels = cr->max_def > 0 ? (const int16_t *)cr->def.data : NULL;
        out->rep_levels = cr->max_rep > 0 ? (const int16_t *)cr->rep.data : NULL;
        if (cr->type == PLANK_BYTE_ARRAY && cr->dict_mode) {
            out->offsets = (const int64_t *)cr->offsets.data;
            out->data = cr->data.data;
            out->values = cr->values.data;
            out->value_width = 4;
        } else if (cr->type == PLANK_BYTE_ARRAY) {
            out->offsets = (const int64_t *)cr->offsets.data;
            out->data = cr->data.data;
            out->values = cr->data.data;
        } else {
            out->values = cr->view ? cr->view : cr->values.data;
            out->value_width = cr->type == PLANK_BOOLEAN ? 0 : cr->width;
        }
    }
    return PLANK_OK;
}

plank_status plank_column_reader_read(plank_column_reader *cr, int64_t max_values,
                                      plank_batch *out, plank_error *err) {
    plank_error_init(err);
    if (!cr || !out || max_values < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    if (max_values > (INT64_C(1) << 30)) max_values = INT64_C(1) << 30;
    return locate(cr, advance(cr, max_values, out, NULL, err), err);
}

plank_status plank_column_reader_skip(plank_column_reader *cr, int64_t n, int64_t *skipped,
                                      plank_error *err) {
    plank_error_init(err);
    if (skipped) *skipped = 0;
    if (!cr || n < 0) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    return locate(cr, advance(cr, n, NULL, skipped, err), err);
}

void pk_column_reader_set_dict_mode(plank_column_reader *cr, bool on) {
    if (cr && cr->type == PLANK_BYTE_ARRAY) cr->dict_mode = on;
}

const pk_dict *pk_column_reader_dict(const plank_column_reader *cr) {
    return cr && cr->has_dict ? &cr->dict : NULL;
}

int64_t pk_column_reader_fallback_count(const plank_column_reader *cr) {
    return cr ? cr->fb_n : 0;
}

void pk_column_reader_set_view_mode(plank_column_reader *cr, bool on) {
    if (cr) cr->view_mode = on;
}

bool pk_column_reader_batch_view(const plank_column_reader *cr, pk_shared **owner) {
    if (!cr || !cr->view) return false;
    *owner = cr->chunk_owned;
    return true;
}

bool pk_column_reader_at_page_end(const plank_column_reader *cr) {
    return cr && !cr->in_page;
}
