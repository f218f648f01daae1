/*
 * pk_index_read.c: the public ColumnIndex / OffsetIndex accessors. Each call
 * reads the index bytes the chunk metadata points at (bounded by the file
 * size and by max_footer_size-like sanity: an index is never larger than the
 * footer limit), decodes them into an arena owned by the returned object,
 * and checks them against the chunk (page count, offsets inside the file).
 */
#include "pk_read.h"

typedef struct pk_ci_holder {
    plank_column_index pub; /* first: the public pointer is the holder's */
    pk_arena arena;
    plank_allocator alloc;
} pk_ci_holder;

typedef struct pk_oi_holder {
    plank_offset_index pub;
    pk_arena arena;
    plank_allocator alloc;
} pk_oi_holder;

/* An index larger than this is refused before anything is allocated. */
#define PK_MAX_INDEX_BYTES ((int64_t)256 << 20)

static plank_status locate_chunk(plank_reader *r, int32_t g, int32_t c,
                                 const plank_column_chunk_info **out, plank_error *err) {
    if (g < 0 || g >= r->md.num_row_groups || c < 0 || c >= r->num_columns)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "row group %d / column %d out of range", (int)g, (int)c);
    *out = &r->md.row_groups[g].columns[c];
    return PLANK_OK;
}

static plank_status read_blob(plank_reader *r, int64_t off, int32_t len, const char *what,
                              pk_buffer *buf, plank_error *err) {
    if (off < 0 || len <= 0 || len > PK_MAX_INDEX_BYTES || (uint64_t)off > r->file_size ||
        (uint64_t)len > r->file_size - (uint64_t)off) {
        pk_error_set(err, PLANK_ERR_CORRUPT, "%s at offset %lld, %d bytes, is outside the file",
                     what, (long long)off, (int)len);
        pk_error_locate(err, off, -1, -1, -1);
        return PLANK_ERR_CORRUPT;
    }
    PK_FORWARD(pk_buffer_resize(buf, (size_t)len, err));
    return pk_reader_read_at(r, (uint64_t)off, buf->data, (size_t)len, err);
}

plank_status plank_reader_column_index(plank_reader *r, int32_t g, int32_t c,
                                       plank_column_index **out, plank_error *err) {
    if (err) plank_error_init(err);
    *out = NULL;
    const plank_column_chunk_info *cc = NULL;
    PK_FORWARD(locate_chunk(r, g, c, &cc, err));
    if (cc->column_index_offset < 0 || cc->column_index_length < 0) return PLANK_OK;
    pk_buffer buf;
    pk_buffer_init(&buf, &r->alloc);
    pk_ci_holder *h = pk_calloc(&r->alloc, sizeof *h);
    if (!h) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    h->alloc = r->alloc;
    pk_arena_init(&h->arena, &h->alloc);
    plank_status st = read_blob(r, cc->column_index_offset, cc->column_index_length,
                                "column index", &buf, err);
    if (st == PLANK_OK)
        st = pk_thrift_read_column_index(buf.data, buf.size, &h->arena, &h->pub, err);
    pk_buffer_reset(&buf);
    if (st != PLANK_OK) {
        pk_error_prefix(err, "column index: ");
        pk_error_locate(err, cc->column_index_offset, g, c, -1);
        plank_column_index_free(&h->pub);
        return st;
    }
    *out = &h->pub;
    return PLANK_OK;
}

void plank_column_index_free(plank_column_index *ci) {
    if (!ci) return;
    pk_ci_holder *h = (pk_ci_holder *)ci;
    plank_allocator a = h->alloc;
    pk_arena_reset(&h->arena);
    pk_free(&a, h, sizeof *h);
}

plank_status plank_reader_offset_index(plank_reader *r, int32_t g, int32_t c,
                                       plank_offset_index **out, plank_error *err) {
    if (err) plank_error_init(err);
    *out = NULL;
    const plank_column_chunk_info *cc = NULL;
    PK_FORWARD(locate_chunk(r, g, c, &cc, err));
    if (cc->offset_index_offset < 0 || cc->offset_index_length < 0) return PLANK_OK;
    pk_buffer buf;
    pk_buffer_init(&buf, &r->alloc);
    pk_oi_holder *h = pk_calloc(&r->alloc, sizeof *h);
    if (!h) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    h->alloc = r->alloc;
    pk_arena_init(&h->arena, &h->alloc);
    plank_status st = read_blob(r, cc->offset_index_offset, cc->offset_index_length,
                                "offset index", &buf, err);
    if (st == PLANK_OK)
        st = pk_thrift_read_offset_index(buf.data, buf.size, &h->arena, &h->pub, err);
    pk_buffer_reset(&buf);
    /* Every page must lie inside the file and start at or after the chunk. */
    for (int32_t i = 0; st == PLANK_OK && i < h->pub.num_pages; i++) {
        const plank_page_location *p = &h->pub.pages[i];
        if (p->offset < 0 || p->compressed_page_size <= 0 ||
            (uint64_t)p->offset > r->file_size ||
            (uint64_t)p->compressed_page_size > r->file_size - (uint64_t)p->offset ||
            p->first_row_index < 0 || (i > 0 && p->first_row_index < h->pub.pages[i - 1].first_row_index))
            st = pk_error_set(err, PLANK_ERR_CORRUPT,
                              "page %d: location (offset %lld, %d bytes, first row %lld) is "
                              "invalid",
                              (int)i, (long long)p->offset, (int)p->compressed_page_size,
                              (long long)p->first_row_index);
    }
    if (st != PLANK_OK) {
        pk_error_prefix(err, "offset index: ");
        pk_error_locate(err, cc->offset_index_offset, g, c, -1);
        plank_offset_index_free(&h->pub);
        return st;
    }
    *out = &h->pub;
    return PLANK_OK;
}

void plank_offset_index_free(plank_offset_index *oi) {
    if (!oi) return;
    pk_oi_holder *h = (pk_oi_holder *)oi;
    plank_allocator a = h->alloc;
    pk_arena_reset(&h->arena);
    pk_free(&a, h, sizeof *h);
}
