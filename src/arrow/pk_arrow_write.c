/*
 * pk_arrow_write.c: writing Arrow record batches and streams through the
 * public writer API (plank_writer_write_rows), on top of the schema mapping
 * and shredding of pk_arrow_import.c.
 */
#include "pk_arrow_import.h"
#include "../write/pk_write.h"

#include <errno.h>

/* Every leaf of the tree has the Parquet type of the writer's column. */
static plank_status check_writer_schema(plank_writer *w, const pk_itree *t, plank_error *err) {
    if (plank_writer_num_columns(w) != t->num_leaves)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "arrow schema has %d leaf columns, the writer %d", (int)t->num_leaves,
                            (int)plank_writer_num_columns(w));
    for (int32_t l = 0; l < t->num_leaves; l++) {
        const plank_schema_node *cn = plank_writer_column_node(w, l);
        const pk_inode *leaf = t->leaves[l];
        if (!cn || cn->physical_type != leaf->physical_type ||
            (leaf->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY &&
             cn->type_length != leaf->type_length) ||
            cn->max_definition_level != leaf->def || cn->max_repetition_level != leaf->max_rep)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "arrow field %s does not match the writer's column %d",
                                leaf->path, (int)l);
    }
    return PLANK_OK;
}

/* Shreds and writes one batch; scratch memory comes from `a`. */
static plank_status write_batch(plank_writer *w, const pk_itree *t, const struct ArrowArray *array,
                                const plank_allocator *a, plank_error *err) {
    pk_shredded sh;
    PK_FORWARD(pk_arrow_shred(t, array, a, &sh, err));
    plank_status st = plank_writer_write_rows(w, sh.cols, sh.num_rows, err);
    pk_shredded_free(&sh);
    return st;
}

static plank_status write_arrow(plank_writer *w, const struct ArrowSchema *schema,
                                const struct ArrowArray *array, const plank_allocator *a,
                                plank_error *err) {
    if (!w || !schema || !array)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    pk_itree t;
    PK_FORWARD(pk_itree_build(schema, a, &t, err));
    plank_status st = check_writer_schema(w, &t, err);
    if (st == PLANK_OK) st = write_batch(w, &t, array, a, err);
    pk_itree_free(&t);
    return st;
}

plank_status plank_writer_write_arrow(plank_writer *w, const struct ArrowSchema *schema,
                                      const struct ArrowArray *array, plank_error *err) {
    plank_error_init(err);
    if (!w) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "writer: NULL writer");
    /* scratch buffers of the call come from the writer's allocator */
    return write_arrow(w, schema, array, pk_writer_allocator(w), err);
}

/* A stream callback's errno as a status, with its message. */
static plank_status stream_error(struct ArrowArrayStream *s, int rc, const char *what,
                                 plank_error *err) {
    const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
    plank_status st = rc == ENOMEM   ? PLANK_ERR_OUT_OF_MEMORY
                      : rc == EINVAL ? PLANK_ERR_INVALID_ARGUMENT
                      : rc == ENOSYS ? PLANK_ERR_UNSUPPORTED
                                     : PLANK_ERR_IO;
    return pk_error_set(err, st, "arrow stream %s failed (errno %d): %s", what, rc,
                        msg ? msg : "no message");
}

plank_status plank_write_arrow_stream(const char *path, struct ArrowArrayStream *stream,
                                      const plank_writer_options *opts, plank_error *err) {
    plank_error_init(err);
    if (!path || !stream || !stream->release)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    const plank_allocator *a = opts ? opts->allocator : NULL;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    plank_schema_field *fields = NULL;
    int32_t nf = 0;
    pk_itree t;
    memset(&t, 0, sizeof t);
    plank_writer *w = NULL;
    plank_status st = PLANK_OK;
    int rc = stream->get_schema(stream, &schema);
    if (rc != 0) st = stream_error(stream, rc, "get_schema", err);
    if (st == PLANK_OK) st = plank_schema_from_arrow(&schema, a, &fields, &nf, err);
    if (st == PLANK_OK) st = pk_itree_build(&schema, a, &t, err);
    if (st == PLANK_OK) st = plank_writer_open_path(&w, path, fields, nf, opts, err);
    while (st == PLANK_OK) {
        struct ArrowArray array;
        memset(&array, 0, sizeof array);
        rc = stream->get_next(stream, &array);
        if (rc != 0) {
            st = stream_error(stream, rc, "get_next", err);
            break;
        }
        if (!array.release) break; /* end of stream */
        st = write_batch(w, &t, &array, a, err);
        array.release(&array);
    }
    if (w) {
        if (st == PLANK_OK) st = plank_writer_close(w, err);
        else plank_writer_abort(w);
    }
    pk_itree_free(&t);
    plank_schema_fields_free(a, fields, nf);
    if (schema.release) schema.release(&schema);
    stream->release(stream);
    return st;
}
