/*
 * pk_page_index.c: reading the structures stored next to the column chunks
 * and referenced from their metadata: bloom filters, and the checks every
 * such request shares (pk_index_chunk; the column and offset indexes are
 * read in pk_index_read.c).
 *
 * A bloom filter is a BloomFilterHeader (Thrift) followed by num_bytes of
 * split-block bitset, at the chunk's bloom_filter_offset. Writers before
 * format 2.10 do not record bloom_filter_length; then a bounded prefix is
 * read for the header and the bitset after it. num_bytes is checked against
 * PK_BLOOM_MAX_BYTES and the end of the file before anything is allocated.
 */
#include "../encoding/pk_bloom.h"
#include "pk_read.h"

/* Enough for any header a writer produces (parquet-mr's is 16 bytes). */
#define PK_BLOOM_HEADER_PREFIX 256u

struct plank_bloom_filter {
    plank_allocator alloc; /* the reader's, copied: the filter outlives it */
    uint32_t num_bytes;
    uint8_t *bits;         /* num_bytes, right after this struct */
};


/* Reads and checks the filter at `offset` (len: the recorded length, or -1). */
static plank_status pk_bloom_load(const plank_reader *r, uint64_t offset, int64_t len,
                                  plank_bloom_filter **out, plank_error *err) {
    PK_RETURN_IF(offset >= r->file_size, err, PLANK_ERR_CORRUPT,
                 "bloom filter offset %llu is past the end of the file (%llu bytes)",
                 (unsigned long long)offset, (unsigned long long)r->file_size);
    uint64_t avail = r->file_size - offset;
    PK_RETURN_IF(len == 0 || (len > 0 && (uint64_t)len > avail), err, PLANK_ERR_CORRUPT,
                 "bloom filter of %lld bytes at offset %llu does not fit in the file (%llu "
                 "bytes)", (long long)len, (unsigned long long)offset,
                 (unsigned long long)r->file_size);

    /* The header: from the recorded range, else from a bounded prefix. */
    uint8_t head[PK_BLOOM_HEADER_PREFIX];
    size_t head_len = PK_BLOOM_HEADER_PREFIX;
    if (len > 0 && (uint64_t)len < head_len) head_len = (size_t)len;
    if (avail < head_len) head_len = (size_t)avail;
    PK_FORWARD(pk_reader_read_at(r, offset, head, head_len, err));
    uint32_t num_bytes = 0;
    size_t header_len = 0;
    PK_FORWARD(pk_thrift_read_bloom_header(head, head_len, &num_bytes, &header_len, err));

    PK_RETURN_IF(num_bytes % 32 != 0, err, PLANK_ERR_CORRUPT,
                 "bloom filter bitset of %u bytes is not a whole number of 32-byte blocks",
                 num_bytes);
    PK_RETURN_IF(num_bytes > PK_BLOOM_MAX_BYTES, err, PLANK_ERR_LIMIT,
                 "bloom filter bitset of %u bytes exceeds the %u-byte limit", num_bytes,
                 (unsigned)PK_BLOOM_MAX_BYTES);
    uint64_t limit = len > 0 ? (uint64_t)len : avail;
    PK_RETURN_IF((uint64_t)header_len + num_bytes > limit, err, PLANK_ERR_CORRUPT,
                 "bloom filter header (%zu bytes) and bitset (%u bytes) exceed the %llu bytes "
                 "%s", header_len, num_bytes, (unsigned long long)limit,
                 len > 0 ? "recorded for it" : "left in the file");

    size_t total = sizeof(plank_bloom_filter) + num_bytes;
    plank_bloom_filter *bf = pk_malloc(&r->alloc, total);
    PK_RETURN_IF(bf == NULL, err, PLANK_ERR_OUT_OF_MEMORY,
                 "out of memory allocating a bloom filter of %u bytes", num_bytes);
    bf->alloc = r->alloc;
    bf->num_bytes = num_bytes;
    bf->bits = (uint8_t *)(bf + 1);
    /* The bitset may already be in the prefix read for the header. */
    size_t have = head_len - header_len;
    if (have > num_bytes) have = num_bytes;
    memcpy(bf->bits, head + header_len, have);
    plank_status st = PLANK_OK;
    if (have < num_bytes)
        st = pk_reader_read_at(r, offset + header_len + have, bf->bits + have, num_bytes - have,
                               err);
    if (st != PLANK_OK) {
        pk_free(&r->alloc, bf, total);
        return st;
    }
    *out = bf;
    return PLANK_OK;
}

/* The chunk whose index or filter is asked for, after the checks every
 * such request shares (bloom filters here, column and offset indexes in
 * pk_index_read.c). */
plank_status pk_index_chunk(const plank_reader *r, int32_t g, int32_t c,
                            const plank_column_chunk_info **cc, plank_error *err) {
    if (!r) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader");
    if (g < 0 || g >= r->md.num_row_groups || c < 0 || c >= r->num_columns)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column chunk (row group %d, column %d) does not exist", (int)g,
                            (int)c);
    *cc = &r->md.row_groups[g].columns[c];
    plank_status st = PLANK_OK;
    if ((*cc)->encrypted || r->md.has_encryption_algorithm)
        st = pk_error_set(err, PLANK_ERR_ENCRYPTED,
                          "row group %d, column %d is encrypted; encryption is not supported "
                          "yet", (int)g, (int)c);
    else if ((*cc)->file_path)
        st = pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                          "row group %d, column %d is stored in another file (%s)", (int)g,
                          (int)c, (*cc)->file_path);
    if (st != PLANK_OK) pk_error_locate(err, -1, g, c, -1);
    return st;
}

plank_status plank_reader_bloom_filter(const plank_reader *r, int32_t g, int32_t c,
                                       plank_bloom_filter **out, plank_error *err) {
    plank_error_init(err);
    if (!out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    const plank_column_chunk_info *cc = NULL;
    PK_FORWARD(pk_index_chunk(r, g, c, &cc, err));
    if (cc->bloom_filter_offset < 0) return PLANK_OK;
    plank_status st =
        pk_bloom_load(r, (uint64_t)cc->bloom_filter_offset, cc->bloom_filter_length, out, err);
    if (st != PLANK_OK) {
        pk_error_prefix(err, "row group %d, column %d: bloom filter", (int)g, (int)c);
        pk_error_locate(err, cc->bloom_filter_offset, g, c, -1);
    }
    return st;
}

bool plank_bloom_filter_check(const plank_bloom_filter *bf, const void *value, size_t len) {
    /* No filter rules nothing out. */
    if (!bf) return true;
    return pk_bloom_check(bf->bits, bf->num_bytes, pk_bloom_hash(value, len));
}

uint32_t plank_bloom_filter_size(const plank_bloom_filter *bf) { return bf ? bf->num_bytes : 0; }

void plank_bloom_filter_free(plank_bloom_filter *bf) {
    if (!bf) return;
    plank_allocator a = bf->alloc;
    pk_free(&a, bf, sizeof *bf + bf->num_bytes);
}
