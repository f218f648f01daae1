/*
 * pk_arrow_array.c: the ArrowArrays plank exports and who owns their
 * buffers.
 *
 * Every array has one private block, allocated with a copy of the reader's
 * allocator so that arrays may outlive the stream and the reader: it holds
 * the child structs and pointers (and one spare struct for a dictionary),
 * the buffer pointers, and for each buffer either memory the array owns
 * (allocated for it, or adopted from a pk_buffer the column reader decoded
 * into) or a borrowed pointer into a refcounted block (a column chunk for
 * zero copy, a chunk's dictionary shared by batches) of which the array
 * holds one reference.
 */
#include "pk_arrow.h"

#define MAX_BUFS 3

typedef struct array_block {
    plank_allocator a;
    size_t size;
    void *owned[MAX_BUFS];
    size_t owned_size[MAX_BUFS];
    const void *bufs[MAX_BUFS];
    bool borrowed;     /* a value buffer points into a column chunk (zero copy) */
    pk_shared *shared; /* the borrowed bytes' block, one reference; NULL: none */
} array_block;

#define BLOCK_HEAD ((sizeof(array_block) + 15) & ~(size_t)15)

static void release_array(struct ArrowArray *arr) {
    if (!arr || !arr->release) return;
    for (int64_t i = 0; i < arr->n_children; i++) {
        struct ArrowArray *c = arr->children[i];
        if (c && c->release) c->release(c);
    }
    if (arr->dictionary && arr->dictionary->release) arr->dictionary->release(arr->dictionary);
    array_block *blk = arr->private_data;
    plank_allocator a = blk->a;
    for (int i = 0; i < MAX_BUFS; i++)
        if (blk->owned[i]) pk_free(&a, blk->owned[i], blk->owned_size[i]);
    pk_shared_release(blk->shared);
    pk_free(&a, blk, blk->size);
    arr->release = NULL;
    arr->private_data = NULL;
}

plank_status pk_array_new(const plank_allocator *a, struct ArrowArray *out, int64_t length,
                          int64_t n_buffers, int64_t n_children, plank_error *err) {
    memset(out, 0, sizeof *out);
    size_t nc = (size_t)n_children;
    /* One spare struct after the children: the dictionary's, if any. */
    size_t size = BLOCK_HEAD + sizeof(struct ArrowArray) +
                  nc * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *));
    uint8_t *mem = pk_calloc(a, size);
    if (!mem) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    array_block *blk = (array_block *)(void *)mem;
    blk->a = *a;
    blk->size = size;
    struct ArrowArray *kids = (struct ArrowArray *)(void *)(mem + BLOCK_HEAD);
    struct ArrowArray **ptrs =
        (struct ArrowArray **)(void *)(mem + BLOCK_HEAD + (nc + 1) * sizeof *kids);
    for (size_t i = 0; i < nc; i++) ptrs[i] = &kids[i];
    out->length = length;
    out->n_buffers = n_buffers;
    out->buffers = blk->bufs;
    out->n_children = 0; /* raised as children are built, so release sees only built ones */
    out->children = nc ? ptrs : NULL;
    out->private_data = blk;
    out->release = release_array;
    return PLANK_OK;
}

const plank_allocator *pk_array_allocator(struct ArrowArray *arr) {
    return &((array_block *)arr->private_data)->a;
}

struct ArrowArray *pk_array_dictionary_slot(struct ArrowArray *arr) {
    array_block *blk = arr->private_data;
    size_t nc = (size_t)(arr->children ? (blk->size - BLOCK_HEAD - sizeof(struct ArrowArray)) /
                                             (sizeof(struct ArrowArray) +
                                              sizeof(struct ArrowArray *))
                                       : 0);
    return (struct ArrowArray *)(void *)((uint8_t *)blk + BLOCK_HEAD +
                                         nc * sizeof(struct ArrowArray));
}

static void *array_buffer(struct ArrowArray *arr, int i, size_t n, bool zero,
                          plank_error *err) {
    array_block *blk = arr->private_data;
    size_t size = n < 16 ? 16 : n;
    void *p = zero ? pk_calloc(&blk->a, size) : pk_malloc(&blk->a, size);
    if (!p) {
        pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory (%zu-byte Arrow buffer)", n);
        return NULL;
    }
    blk->owned[i] = p;
    blk->owned_size[i] = size;
    blk->bufs[i] = p;
    return p;
}

void *pk_array_buffer(struct ArrowArray *arr, int i, size_t n, plank_error *err) {
    return array_buffer(arr, i, n, true, err);
}

void *pk_array_buffer_uninit(struct ArrowArray *arr, int i, size_t n, plank_error *err) {
    return array_buffer(arr, i, n, false, err);
}

plank_status pk_array_adopt(struct ArrowArray *arr, int i, pk_buffer *b, plank_error *err) {
    if (!b->data) PK_FORWARD(pk_buffer_reserve(b, 1, err)); /* never a NULL buffer */
    array_block *blk = arr->private_data;
    blk->owned[i] = b->data;
    blk->owned_size[i] = b->capacity + PK_BUFFER_PADDING;
    blk->bufs[i] = b->data;
    b->data = NULL;
    b->size = b->capacity = 0;
    return PLANK_OK;
}

void pk_array_borrow(struct ArrowArray *arr, int i, const void *p, pk_shared *owner,
                     bool chunk) {
    array_block *blk = arr->private_data;
    blk->bufs[i] = p;
    if (chunk) blk->borrowed = true;
    if (owner && !blk->shared) {
        blk->shared = owner;
        pk_shared_retain(owner);
    }
}

void pk_array_drop_buffer(struct ArrowArray *arr, int i) {
    array_block *blk = arr->private_data;
    if (blk->owned[i]) pk_free(&blk->a, blk->owned[i], blk->owned_size[i]);
    blk->owned[i] = NULL;
    blk->bufs[i] = NULL;
}

void *pk_array_owned(struct ArrowArray *arr, int i) {
    array_block *blk = arr->private_data;
    return blk->owned[i];
}

bool pk_arrow_array_borrows(const struct ArrowArray *arr) {
    if (!arr || arr->release != release_array) return false;
    const array_block *blk = arr->private_data;
    return blk->borrowed;
}
