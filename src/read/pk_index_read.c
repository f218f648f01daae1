/*
 * pk_index_read.c: the public ColumnIndex / OffsetIndex accessors. Each call
 * reads the index bytes the chunk metadata points at (inside the file and at
 * most PK_MAX_INDEX_BYTES, checked before their buffer is allocated),
 * decodes them into an arena owned by the returned object (the decoder
 * checks that the per-page lists agree in length), and checks them against
 * the chunk:
 * ColumnIndex level histograms hold max level + 1 counts per page; OffsetIndex
 * pages lie inside the chunk's bytes, in file order without overlapping, and
 * their first rows start at 0, never decrease and stay inside the row group.
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

static plank_status read_blob(const plank_reader *r, int64_t off, int32_t len, pk_buffer *buf,
                              plank_error *err) {
    if (off < 0 || len <= 0 || len > PK_MAX_INDEX_BYTES || (uint64_t)off > r->file_size ||
        (uint64_t)len > r->file_size - (uint64_t)off) {
        pk_error_set(err, PLANK_ERR_CORRUPT,
                     "%d bytes at offset %lld are not inside the file (%llu bytes) or exceed "
                     "the %lld-byte limit",
                     (int)len, (long long)off, (unsigned long long)r->file_size,
                     (long long)PK_MAX_INDEX_BYTES);
        pk_error_locate(err, off, -1, -1, -1);
        return PLANK_ERR_CORRUPT;
    }
    PK_FORWARD(pk_buffer_resize(buf, (size_t)len, err));
    return pk_reader_read_at(r, (uint64_t)off, buf->data, (size_t)len, err);
}

/* A histogram list (n counts, when present) must hold max_level + 1 counts
 * per page: readers index it by page and level. */
static plank_status check_histograms(int32_t n, int32_t num_pages, int16_t max_level,
                                     const char *what, plank_error *err) {
    if (n == 0 || (int64_t)n == (int64_t)num_pages * (max_level + 1)) return PLANK_OK;
    return pk_error_set(err, PLANK_ERR_CORRUPT,
                        "%s: %d counts for %d pages of levels 0..%d (want %lld)", what, (int)n,
                        (int)num_pages, (int)max_level,
                        (long long)num_pages * (max_level + 1));
}

plank_status plank_reader_column_index(const plank_reader *r, int32_t g, int32_t c,
                                       plank_column_index **out, plank_error *err) {
    plank_error_init(err);
    if (!out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL output");
    *out = NULL;
    const plank_column_chunk_info *cc = NULL;
    PK_FORWARD(pk_index_chunk(r, g, c, &cc, err));
    if (cc->column_index_offset < 0 || cc->column_index_length < 0) return PLANK_OK;
    pk_buffer buf;
    pk_buffer_init(&buf, &r->alloc);
    pk_ci_holder *h = pk_calloc(&r->alloc, sizeof *h);
    if (!h) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    h->alloc = r->alloc;
    pk_arena_init(&h->arena, &h->alloc);
    plank_status st = read_blob(r, cc->column_index_offset, cc->column_index_length, &buf, err);
    if (st == PLANK_OK)
        st = pk_thrift_read_column_index(buf.data, buf.size, &h->arena, &h->pub, err);
    pk_buffer_reset(&buf);
    const plank_schema_node *node = &r->nodes[r->leaf_nodes[c]];
    if (st == PLANK_OK)
        st = check_histograms(h->pub.num_repetition_level_histograms, h->pub.num_pages,
                              node->max_repetition_level, "repetition level histograms", err);
    if (st == PLANK_OK)
        st = check_histograms(h->pub.num_definition_level_histograms, h->pub.num_pages,
                              node->max_definition_level, "definition level histograms", err);
    if (st != PLANK_OK) {
        pk_error_prefix(err, "column index");
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

/* Each page of the offset index inside the chunk's bytes (from its first
 * page, the dictionary's when that comes first as the column reader takes
 * it, for total_compressed_size bytes) and the file, after the page before
 * it, with a first row in order inside the row group's num_rows (the first
 * one 0). */
static plank_status check_pages(const plank_offset_index *oi, const plank_column_chunk_info *cc,
                                int64_t num_rows, uint64_t file_size, plank_error *err) {
    int64_t start = cc->data_page_offset;
    if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
        start = cc->dictionary_page_offset;
    int64_t end;
    if (start < 0 || cc->total_compressed_size < 0 ||
        __builtin_add_overflow(start, cc->total_compressed_size, &end))
        end = -1; /* no page fits */
    if (end > 0 && (uint64_t)end > file_size) end = (int64_t)file_size;
    int64_t prev_end = start;
    for (int32_t i = 0; i < oi->num_pages; i++) {
        const plank_page_location *p = &oi->pages[i];
        if (p->offset < 0 || p->offset < prev_end || p->compressed_page_size <= 0 ||
            p->compressed_page_size > end - p->offset)
            return pk_error_set(err, PLANK_ERR_CORRUPT,
                                "page %d at offset %lld, %d bytes, is not inside the chunk's "
                                "bytes %lld..%lld after the page before it",
                                (int)i, (long long)p->offset, (int)p->compressed_page_size,
                                (long long)start, (long long)end);
        prev_end = p->offset + p->compressed_page_size;
        int64_t prev_row = i > 0 ? oi->pages[i - 1].first_row_index : 0;
        if ((i == 0 && p->first_row_index != 0) || p->first_row_index < prev_row ||
            p->first_row_index >= num_rows)
            return pk_error_set(err, PLANK_ERR_CORRUPT,
                                "page %d: first row %lld is not in order inside the row group's "
                                "%lld rows%s",
                                (int)i, (long long)p->first_row_index, (long long)num_rows,
                                i == 0 ? " (the first page starts at row 0)" : "");
    }
    return PLANK_OK;
}

plank_status plank_reader_offset_index(const plank_reader *r, int32_t g, int32_t c,
                                       plank_offset_index **out, plank_error *err) {
    plank_error_init(err);
    if (!out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL output");
    *out = NULL;
    const plank_column_chunk_info *cc = NULL;
    PK_FORWARD(pk_index_chunk(r, g, c, &cc, err));
    if (cc->offset_index_offset < 0 || cc->offset_index_length < 0) return PLANK_OK;
    pk_buffer buf;
    pk_buffer_init(&buf, &r->alloc);
    pk_oi_holder *h = pk_calloc(&r->alloc, sizeof *h);
    if (!h) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    h->alloc = r->alloc;
    pk_arena_init(&h->arena, &h->alloc);
    plank_status st = read_blob(r, cc->offset_index_offset, cc->offset_index_length, &buf, err);
    if (st == PLANK_OK)
        st = pk_thrift_read_offset_index(buf.data, buf.size, &h->arena, &h->pub, err);
    pk_buffer_reset(&buf);
    if (st == PLANK_OK)
        st = check_pages(&h->pub, cc, r->md.row_groups[g].info.num_rows, r->file_size, err);
    if (st != PLANK_OK) {
        pk_error_prefix(err, "offset index");
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
