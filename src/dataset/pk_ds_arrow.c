/*
 * pk_ds_arrow.c: the Arrow pieces a dataset scan puts its batches together
 * with: schema copies, arrays of nulls for the columns a file lacks,
 * constant arrays for partition values, lossless widening (int32 to int64,
 * float to double, 32- to 64-bit offsets), and the struct array around a
 * batch's columns. Arrays are made with the arrow module's pk_array_*
 * blocks, so they are released like every array plank exports.
 */
#include "pk_dataset.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- Schemas ---------------------------------------------------------------------------- */

typedef struct ds_schema {
    plank_allocator a;
    size_t size;
    struct ArrowSchema **kids;
    int64_t nkids;
} ds_schema;

static void schema_release(struct ArrowSchema *s) {
    if (!s || !s->release) return;
    ds_schema *p = s->private_data;
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
    if (s->dictionary && s->dictionary->release) s->dictionary->release(s->dictionary);
    plank_allocator a = p->a;
    pk_free(&a, p, p->size);
    s->release = NULL;
}

/* One block: header, child structs, child pointers, dictionary struct, then
 * the format, name and metadata bytes. */
static plank_status schema_node(const plank_allocator *a, const char *fmt, const char *name,
                                const char *meta, size_t meta_len, int64_t nkids, bool dict,
                                struct ArrowSchema *out, plank_error *err) {
    memset(out, 0, sizeof *out);
    size_t fl = strlen(fmt) + 1, nl = name ? strlen(name) + 1 : 0;
    size_t head = (sizeof(ds_schema) + 15) & ~(size_t)15;
    size_t size = head + (size_t)nkids * (sizeof(struct ArrowSchema) + sizeof(void *)) +
                  (dict ? sizeof(struct ArrowSchema) : 0) + fl + nl + meta_len + 16;
    uint8_t *m = pk_calloc(a, size);
    if (!m) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    ds_schema *p = (ds_schema *)(void *)m;
    p->a = *a;
    p->size = size;
    struct ArrowSchema *kids = (struct ArrowSchema *)(void *)(m + head);
    struct ArrowSchema **ptrs = (struct ArrowSchema **)(void *)(kids + nkids);
    struct ArrowSchema *dslot = (struct ArrowSchema *)(void *)(ptrs + nkids);
    char *text = (char *)(dict ? (uint8_t *)(dslot + 1) : (uint8_t *)dslot);
    memcpy(text, fmt, fl);
    out->format = text;
    text += fl;
    if (name) {
        memcpy(text, name, nl);
        out->name = text;
        text += nl;
    }
    if (meta && meta_len) {
        memcpy(text, meta, meta_len);
        out->metadata = text;
    }
    for (int64_t i = 0; i < nkids; i++) ptrs[i] = &kids[i];
    out->children = nkids ? ptrs : NULL;
    out->n_children = 0; /* raised as children are filled */
    out->dictionary = dict ? dslot : NULL;
    out->private_data = p;
    out->release = schema_release;
    return PLANK_OK;
}

/* Bytes of an Arrow metadata block (int32 count, then length-prefixed pairs). */
static size_t meta_size(const char *m) {
    if (!m) return 0;
    int32_t n;
    memcpy(&n, m, 4);
    size_t at = 4;
    for (int32_t i = 0; i < 2 * n; i++) {
        int32_t l;
        memcpy(&l, m + at, 4);
        at += 4 + (size_t)l;
    }
    return at;
}

plank_status pk_ds_schema_copy(const plank_allocator *a, const struct ArrowSchema *s,
                               struct ArrowSchema *out, plank_error *err) {
    PK_FORWARD(schema_node(a, s->format, s->name, s->metadata, meta_size(s->metadata),
                           s->n_children, s->dictionary != NULL, out, err));
    out->flags = s->flags;
    for (int64_t i = 0; i < s->n_children; i++) {
        plank_status st = pk_ds_schema_copy(a, s->children[i], out->children[i], err);
        if (st != PLANK_OK) {
            out->release(out);
            return st;
        }
        out->n_children++;
    }
    if (s->dictionary) {
        plank_status st = pk_ds_schema_copy(a, s->dictionary, out->dictionary, err);
        if (st != PLANK_OK) {
            out->dictionary = NULL;
            out->release(out);
            return st;
        }
    }
    return PLANK_OK;
}

plank_status pk_ds_schema_leaf(const plank_allocator *a, const char *fmt, const char *name,
                               int64_t flags, struct ArrowSchema *out, plank_error *err) {
    PK_FORWARD(schema_node(a, fmt, name, NULL, 0, 0, false, out, err));
    out->flags = flags;
    return PLANK_OK;
}

plank_status pk_ds_schema_struct(const plank_allocator *a, struct ArrowSchema *kids, int32_t n,
                                 struct ArrowSchema *out, plank_error *err) {
    plank_status st = schema_node(a, "+s", "", NULL, 0, n, false, out, err);
    for (int32_t i = 0; i < n; i++) {
        if (st == PLANK_OK) {
            *out->children[i] = kids[i];
            out->n_children++;
        } else if (kids[i].release) {
            kids[i].release(&kids[i]);
        }
        kids[i].release = NULL;
    }
    return st;
}

bool pk_ds_same_type(const struct ArrowSchema *a, const struct ArrowSchema *b) {
    if (strcmp(a->format, b->format) != 0 || a->n_children != b->n_children) return false;
    if ((a->dictionary == NULL) != (b->dictionary == NULL)) return false;
    if (a->dictionary && !pk_ds_same_type(a->dictionary, b->dictionary)) return false;
    for (int64_t i = 0; i < a->n_children; i++) {
        const char *x = a->children[i]->name ? a->children[i]->name : "";
        const char *y = b->children[i]->name ? b->children[i]->name : "";
        if (strcmp(x, y) != 0 || !pk_ds_same_type(a->children[i], b->children[i])) return false;
    }
    return true;
}

/* ---- Arrays ----------------------------------------------------------------------------- */

/* Bytes per value of a fixed-width format (bits for "b": 0), -1 if not one. */
static int64_t fixed_width(const char *f) {
    switch (f[0]) {
    case 'b': return 0;
    case 'c': case 'C': return 1;
    case 's': case 'S': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'g': return 8;
    case 'w': return f[1] == ':' ? atoll(f + 2) : -1;
    case 'd': {
        const char *c = strrchr(f, ',');
        const char *first = strchr(f, ',');
        if (c && c != first) return atoll(c + 1) / 8; /* d:P,S,BITS */
        return 16;
    }
    case 't':
        if (f[1] == 'd') return f[2] == 'D' ? 4 : 8;           /* tdD, tdm */
        if (f[1] == 't') return f[2] == 's' || f[2] == 'm' ? 4 : 8; /* tts, ttm / ttu, ttn */
        if (f[1] == 's' || f[1] == 'D') return 8;              /* timestamps, durations */
        if (f[1] == 'i') return f[2] == 'M' ? 4 : f[2] == 'D' ? 8 : 16;
        return -1;
    default: return -1;
    }
}

plank_status pk_ds_null_array(const plank_allocator *a, const struct ArrowSchema *s, int64_t n,
                              struct ArrowArray *out, plank_error *err) {
    const char *f = s->format;
    size_t vb = (size_t)(n + 7) / 8;
    if (s->dictionary) {
        /* indices all null, an empty dictionary */
        PK_FORWARD(pk_array_new(a, out, n, 2, 0, err));
        out->null_count = n;
        int64_t w = fixed_width(f);
        plank_status st = PLANK_OK;
        if (!pk_array_buffer(out, 0, vb, err) ||
            !pk_array_buffer(out, 1, (size_t)n * (size_t)(w > 0 ? w : 4), err))
            st = PLANK_ERR_OUT_OF_MEMORY;
        struct ArrowArray *d = pk_array_dictionary_slot(out);
        if (st == PLANK_OK) st = pk_ds_null_array(a, s->dictionary, 0, d, err);
        if (st == PLANK_OK) out->dictionary = d;
        if (st != PLANK_OK) out->release(out);
        return st;
    }
    if (strcmp(f, "n") == 0) {
        PK_FORWARD(pk_array_new(a, out, n, 0, 0, err));
        out->null_count = n;
        return PLANK_OK;
    }
    int64_t w = fixed_width(f);
    if (w >= 0) {
        PK_FORWARD(pk_array_new(a, out, n, 2, 0, err));
        out->null_count = n;
        size_t bytes = w == 0 ? vb : (size_t)n * (size_t)w;
        if (!pk_array_buffer(out, 0, vb, err) || !pk_array_buffer(out, 1, bytes, err)) {
            out->release(out);
            return PLANK_ERR_OUT_OF_MEMORY;
        }
        return PLANK_OK;
    }
    bool large = f[0] == 'U' || f[0] == 'Z' || strcmp(f, "+L") == 0;
    size_t ow = large ? 8 : 4;
    if (f[0] == 'u' || f[0] == 'z' || f[0] == 'U' || f[0] == 'Z') {
        PK_FORWARD(pk_array_new(a, out, n, 3, 0, err));
        out->null_count = n;
        if (!pk_array_buffer(out, 0, vb, err) ||
            !pk_array_buffer(out, 1, ((size_t)n + 1) * ow, err) ||
            !pk_array_buffer(out, 2, 0, err)) {
            out->release(out);
            return PLANK_ERR_OUT_OF_MEMORY;
        }
        return PLANK_OK;
    }
    if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0 ||
        strncmp(f, "+w:", 3) == 0 || strcmp(f, "+s") == 0) {
        bool is_struct = f[1] == 's', fixed = f[1] == 'w';
        int64_t k = is_struct ? s->n_children : 1;
        if (k < 1 && !is_struct)
            return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "list type without a child");
        PK_FORWARD(pk_array_new(a, out, n, is_struct || fixed ? 1 : 2, k, err));
        out->null_count = n;
        plank_status st = PLANK_OK;
        if (!pk_array_buffer(out, 0, vb, err)) st = PLANK_ERR_OUT_OF_MEMORY;
        if (st == PLANK_OK && !is_struct && !fixed &&
            !pk_array_buffer(out, 1, ((size_t)n + 1) * ow, err))
            st = PLANK_ERR_OUT_OF_MEMORY;
        int64_t clen = is_struct ? n : fixed ? n * atoll(f + 3) : 0;
        for (int64_t i = 0; i < k && st == PLANK_OK; i++) {
            st = pk_ds_null_array(a, s->children[i], clen, out->children[i], err);
            if (st == PLANK_OK) out->n_children++;
        }
        if (st != PLANK_OK) out->release(out);
        return st;
    }
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                        "cannot make a column of nulls of Arrow type \"%s\"", f);
}

plank_status pk_ds_const_array(const plank_allocator *a, pk_ptype t, const pk_pvalue *v, int64_t n,
                               struct ArrowArray *out, plank_error *err) {
    size_t vb = (size_t)(n + 7) / 8;
    if (t == PK_P_STRING) {
        PK_FORWARD(pk_array_new(a, out, n, 3, 0, err));
        size_t len = v->null ? 0 : v->len;
        if ((uint64_t)n * len > INT32_MAX) {
            out->release(out);
            return pk_error_set(err, PLANK_ERR_LIMIT, "partition value repeated past 2 GiB");
        }
        int32_t *off = pk_array_buffer(out, 1, ((size_t)n + 1) * 4, err);
        uint8_t *data = off ? pk_array_buffer(out, 2, (size_t)n * len, err) : NULL;
        if (!off || !data) {
            out->release(out);
            return PLANK_ERR_OUT_OF_MEMORY;
        }
        for (int64_t i = 0; i <= n; i++) off[i] = (int32_t)((size_t)i * len);
        for (int64_t i = 0; i < n; i++) memcpy(data + (size_t)i * len, v->s, len);
    } else {
        size_t w = t == PK_P_DATE ? 4 : 8;
        PK_FORWARD(pk_array_new(a, out, n, 2, 0, err));
        uint8_t *p = pk_array_buffer(out, 1, (size_t)n * w, err);
        if (!p) {
            out->release(out);
            return PLANK_ERR_OUT_OF_MEMORY;
        }
        if (!v->null) {
            for (int64_t i = 0; i < n; i++) {
                if (w == 4) {
                    int32_t x = (int32_t)v->i;
                    memcpy(p + (size_t)i * 4, &x, 4);
                } else {
                    memcpy(p + (size_t)i * 8, &v->i, 8);
                }
            }
        }
    }
    if (v->null) {
        out->null_count = n;
        if (!pk_array_buffer(out, 0, vb, err)) {
            out->release(out);
            return PLANK_ERR_OUT_OF_MEMORY;
        }
    }
    return PLANK_OK;
}

static bool valid_at(const struct ArrowArray *x, int64_t i) {
    const uint8_t *v = x->buffers[0];
    if (!v || x->null_count == 0) return true;
    int64_t j = i + x->offset;
    return (v[j >> 3] >> (j & 7)) & 1;
}

plank_status pk_ds_widen(const plank_allocator *a, pk_widen w, struct ArrowArray *in,
                         struct ArrowArray *out, plank_error *err) {
    if (w == PK_W_NONE || w == PK_W_RELABEL) {
        *out = *in;
        in->release = NULL;
        return PLANK_OK;
    }
    int64_t n = in->length;
    plank_status st = pk_array_new(a, out, n, w == PK_W_LARGE ? 3 : 2, 0, err);
    if (st != PLANK_OK) {
        in->release(in);
        return st;
    }
    out->null_count = in->null_count;
    if (in->null_count != 0 && in->buffers[0]) {
        uint8_t *v = pk_array_buffer(out, 0, (size_t)(n + 7) / 8, err);
        if (!v) st = PLANK_ERR_OUT_OF_MEMORY;
        for (int64_t i = 0; v && i < n; i++)
            if (valid_at(in, i)) v[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (in->null_count < 0) out->null_count = -1;
    }
    if (st == PLANK_OK && w == PK_W_I32_I64) {
        int64_t *d = pk_array_buffer_uninit(out, 1, (size_t)n * 8, err);
        const int32_t *s = (const int32_t *)in->buffers[1] + in->offset;
        if (!d) st = PLANK_ERR_OUT_OF_MEMORY;
        for (int64_t i = 0; d && i < n; i++) d[i] = s[i];
    } else if (st == PLANK_OK && w == PK_W_F32_F64) {
        double *d = pk_array_buffer_uninit(out, 1, (size_t)n * 8, err);
        const float *s = (const float *)in->buffers[1] + in->offset;
        if (!d) st = PLANK_ERR_OUT_OF_MEMORY;
        for (int64_t i = 0; d && i < n; i++) d[i] = s[i];
    } else if (st == PLANK_OK) {
        const int32_t *o = (const int32_t *)in->buffers[1] + in->offset;
        int64_t *d = pk_array_buffer_uninit(out, 1, ((size_t)n + 1) * 8, err);
        size_t bytes = n > 0 ? (size_t)(o[n] - o[0]) : 0;
        uint8_t *data = d ? pk_array_buffer_uninit(out, 2, bytes, err) : NULL;
        if (!d || !data) st = PLANK_ERR_OUT_OF_MEMORY;
        for (int64_t i = 0; data && i <= n; i++) d[i] = (int64_t)o[i] - o[0];
        if (data && bytes) memcpy(data, (const uint8_t *)in->buffers[2] + o[0], bytes);
    }
    in->release(in);
    if (st != PLANK_OK) out->release(out);
    return st;
}

plank_status pk_ds_struct_array(const plank_allocator *a, struct ArrowArray *kids, int32_t k,
                                int64_t n, struct ArrowArray *out, plank_error *err) {
    plank_status st = pk_array_new(a, out, n, 1, k, err);
    for (int32_t i = 0; i < k; i++) {
        if (st == PLANK_OK) {
            *out->children[i] = kids[i];
            out->n_children++;
        } else if (kids[i].release) {
            kids[i].release(&kids[i]);
        }
        kids[i].release = NULL;
    }
    return st;
}
