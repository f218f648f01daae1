/*
 * cli_arrow.c: walking plank's Arrow schema and arrays for the CLI (see
 * cli_arrow.h). Arrow buffers are in the host's byte order; plank's Parquet
 * value layouts are little-endian, so the CLI assumes a little-endian host
 * (as the rest of plank does).
 */
#include <stdlib.h>

#include "cli.h"
#include "cli_arrow.h"

/* ---- Building the tree ------------------------------------------------------- */

typedef struct build_ctx {
    const plank_reader *r;
    const int32_t *cols;
    int32_t ncols, next; /* next selected leaf to tie */
    char *why;
    size_t why_size;
} build_ctx;

static bool fail_build(build_ctx *c, const char *fmt, const char *arg) {
    snprintf(c->why, c->why_size, fmt, arg);
    return false;
}

/* Leaf layout of a primitive format; false when unknown. */
static bool leaf_layout(const char *f, cli_leaf_layout *layout, int32_t *width) {
    *layout = CLI_L_FIXED;
    *width = 0;
    if (strcmp(f, "b") == 0) {
        *layout = CLI_L_BOOL;
        return true;
    }
    if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0) {
        *layout = CLI_L_VAR32;
        return true;
    }
    if (strcmp(f, "U") == 0 || strcmp(f, "Z") == 0) {
        *layout = CLI_L_VAR64;
        return true;
    }
    if (strcmp(f, "c") == 0 || strcmp(f, "C") == 0) *width = 1;
    else if (strcmp(f, "s") == 0 || strcmp(f, "S") == 0 || strcmp(f, "e") == 0) *width = 2;
    else if (strcmp(f, "i") == 0 || strcmp(f, "I") == 0 || strcmp(f, "f") == 0 ||
             strcmp(f, "tdD") == 0 || strcmp(f, "tts") == 0 || strcmp(f, "ttm") == 0)
        *width = 4;
    else if (strcmp(f, "l") == 0 || strcmp(f, "L") == 0 || strcmp(f, "g") == 0 ||
             strcmp(f, "tdm") == 0 || strcmp(f, "ttu") == 0 || strcmp(f, "ttn") == 0 ||
             strncmp(f, "ts", 2) == 0)
        *width = 8;
    else if (strncmp(f, "w:", 2) == 0) {
        char *end;
        long n = strtol(f + 2, &end, 10);
        if (*end || n <= 0 || n > INT32_MAX) return false;
        *width = (int32_t)n;
    } else if (strncmp(f, "d:", 2) == 0) {
        /* "d:P,S" or "d:P,S,BITS" */
        const char *c1 = strchr(f, ',');
        const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        *layout = CLI_L_DECIMAL;
        *width = 16;
        if (c2) {
            if (strcmp(c2 + 1, "256") == 0) *width = 32;
            else if (strcmp(c2 + 1, "128") != 0) return false;
        }
        return c1 != NULL;
    }
    return *width > 0;
}

/* The value of `key` in Arrow's binary field metadata (int32 count, then
 * int32 length + bytes for each key and value, native byte order), copied
 * into out; false when absent. */
bool cli_arrow_metadata_value(const char *md, const char *key, char *out, size_t size) {
    if (!md) return false;
    int32_t count, len;
    memcpy(&count, md, 4);
    const char *p = md + 4;
    /* plank writes this text itself; the bounds only guard against a bug. */
    if (count < 0 || count > 4096) return false;
    for (int32_t i = 0; i < count; i++) {
        memcpy(&len, p, 4);
        if (len < 0 || len > (1 << 20)) return false;
        bool match = (size_t)len == strlen(key) && memcmp(p + 4, key, (size_t)len) == 0;
        p += 4 + len;
        memcpy(&len, p, 4);
        if (len < 0 || len > (1 << 20)) return false;
        if (match) {
            size_t n = (size_t)len < size - 1 ? (size_t)len : size - 1;
            memcpy(out, p + 4, n);
            out[n] = '\0';
            return true;
        }
        p += 4 + len;
    }
    return false;
}

static bool is_variant_field(const struct ArrowSchema *s) {
    char v[32];
    return cli_arrow_metadata_value(s->metadata, "ARROW:extension:name", v, sizeof v) &&
           strcmp(v, "arrow.parquet.variant") == 0;
}

/* A variant: children metadata and value as binary leaves without a Parquet
 * column; every Parquet leaf of the group is consumed (a shredded group has
 * more leaves than its reassembled Arrow storage). */
static bool build_variant(build_ctx *c, cli_anode *n, const struct ArrowSchema *s) {
    n->kind = CLI_A_VARIANT;
    n->vmeta = n->vvalue = -1;
    if (s->n_children != 2) return fail_build(c, "variant %s: storage is not metadata, value", n->name);
    n->children = calloc(2, sizeof *n->children);
    n->verr = calloc(1, CLI_VARIANT_ERR);
    if (!n->children || !n->verr) return fail_build(c, "%s", "out of memory");
    for (int k = 0; k < 2; k++) {
        const struct ArrowSchema *cs = s->children[k];
        cli_anode *cn = &n->children[k];
        n->n_children++;
        memset(cn, 0, sizeof *cn);
        cn->kind = CLI_A_LEAF;
        cn->column = -1;
        cn->name = cs && cs->name ? cs->name : "";
        cn->format = cs && cs->format ? cs->format : "";
        cli_buf_init(&cn->key);
        if (strcmp(cn->format, "z") == 0) cn->layout = CLI_L_VAR32;
        else if (strcmp(cn->format, "Z") == 0) cn->layout = CLI_L_VAR64;
        else return fail_build(c, "variant %s: storage is not binary", n->name);
        if (strcmp(cn->name, "metadata") == 0) n->vmeta = k;
        else if (strcmp(cn->name, "value") == 0) n->vvalue = k;
    }
    if (n->vmeta < 0 || n->vvalue < 0)
        return fail_build(c, "variant %s: storage is not metadata, value", n->name);
    if (c->next >= c->ncols) return fail_build(c, "variant %s: no selected leaf", n->name);
    int32_t group = plank_reader_column_node(c->r, c->cols[c->next])->parent;
    while (c->next < c->ncols) {
        int32_t p = plank_reader_column_node(c->r, c->cols[c->next])->index;
        while (p >= 0 && p != group) p = plank_reader_schema_node(c->r, p)->parent;
        if (p != group) break;
        c->next++;
    }
    return true;
}

static bool build_node(build_ctx *c, cli_anode *n, const struct ArrowSchema *s) {
    memset(n, 0, sizeof *n);
    n->column = -1;
    n->name = s->name ? s->name : "";
    n->format = s->format ? s->format : "";
    cli_buf_init(&n->key);
    cli_json_string(&n->key, (const uint8_t *)n->name, strlen(n->name));
    cli_buf_putc(&n->key, ':');
    const char *f = n->format;
    if (s->dictionary) return fail_build(c, "field %s: dictionary arrays are not printed", n->name);
    if (s->n_children < 0 || s->n_children > INT32_MAX || (s->n_children > 0 && !s->children))
        return fail_build(c, "field %s: bad child count", n->name);
    int64_t want_children = -1;
    if (strcmp(f, "+s") == 0 && is_variant_field(s)) {
        return build_variant(c, n, s);
    } else if (strcmp(f, "+s") == 0) {
        n->kind = CLI_A_STRUCT;
        want_children = s->n_children;
    } else if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) {
        n->kind = f[1] == 'l' ? CLI_A_LIST : CLI_A_LARGE_LIST;
        want_children = 1;
    } else if (strcmp(f, "+m") == 0) {
        n->kind = CLI_A_MAP;
        want_children = 1;
        if (s->n_children == 1 && s->children[0] && s->children[0]->n_children != 2)
            return fail_build(c, "map %s: entries without key and value", n->name);
    } else if (f[0] == '+') {
        return fail_build(c, "unsupported nested Arrow format %s", f);
    }
    if (want_children >= 0) {
        if (s->n_children != want_children)
            return fail_build(c, "field %s: unexpected number of children", n->name);
        n->children = calloc((size_t)s->n_children + 1, sizeof *n->children);
        if (!n->children) return fail_build(c, "%s", "out of memory");
        for (int64_t k = 0; k < s->n_children; k++) {
            if (!s->children[k]) return fail_build(c, "field %s: missing child", n->name);
            n->n_children++;
            if (!build_node(c, &n->children[k], s->children[k])) return false;
        }
        return true;
    }
    if (strcmp(f, "n") == 0) {
        n->kind = CLI_A_NULL;
    } else {
        n->kind = CLI_A_LEAF;
        if (!leaf_layout(f, &n->layout, &n->width))
            return fail_build(c, "unsupported Arrow format %s", f);
    }
    /* Every Arrow leaf (also a null-typed one: the UNKNOWN logical type)
     * comes from the next selected Parquet leaf. */
    if (c->next >= c->ncols)
        return fail_build(c, "the Arrow schema has more leaves than the selection (at %s)", n->name);
    n->column = c->cols[c->next++];
    const plank_schema_node *pn = plank_reader_column_node(c->r, n->column);
    n->type_length = pn->type_length;
    cli_column_value_format(c->r, n->column, &n->fmt);
    n->widen_signed = f[0] == 'c' || f[0] == 's';
    return true;
}

bool cli_anode_build(cli_anode *root, const plank_reader *r, const struct ArrowSchema *schema,
                     const int32_t *cols, int32_t ncols, char *why, size_t why_size) {
    build_ctx c = {r, cols, ncols, 0, why, why_size};
    if (!schema->format || strcmp(schema->format, "+s") != 0) {
        memset(root, 0, sizeof *root);
        snprintf(why, why_size, "the stream's schema is not a struct");
        return false;
    }
    if (!build_node(&c, root, schema)) return false;
    if (c.next != ncols) {
        snprintf(why, why_size, "the Arrow schema has %d leaves for %d selected columns",
                 (int)c.next, (int)ncols);
        return false;
    }
    return true;
}

void cli_anode_free(cli_anode *n) {
    for (int32_t k = 0; k < n->n_children; k++) cli_anode_free(&n->children[k]);
    free(n->children);
    free(n->verr);
    cli_buf_free(&n->key);
    memset(n, 0, sizeof *n);
}

/* ---- Checking arrays ------------------------------------------------------------ */

static bool bad(char *why, size_t size, const cli_anode *n, const char *what) {
    snprintf(why, size, "Arrow array of %s: %s", n->name, what);
    return false;
}

/* Offsets o[0..n) never decreasing: checked a block at a time without a
 * branch per offset, so that the compiler vectorises the compares (a
 * consumer walks every offset of every batch: a loop that stops at the
 * first bad one cost a tenth of `bench read --arrow` on TPC-H lineitem). */
#define OFFSETS_ASCENDING(T)                                                                 \
    static bool ascending_##T(const T *o, int64_t n) {                                      \
        for (int64_t b = 1; b < n; b += 4096) {                                              \
            int64_t e = n - b < 4096 ? n : b + 4096;                                         \
            int bad = 0;                                                                     \
            for (int64_t k = b; k < e; k++) bad |= o[k] < o[k - 1];                          \
            if (bad) return false;                                                           \
        }                                                                                    \
        return true;                                                                         \
    }
OFFSETS_ASCENDING(int32_t)
OFFSETS_ASCENDING(int64_t)

/* Offsets [first, first + len] of buf: not below 0, never decreasing, none
 * above limit (so the first is at least 0 and the last at most limit). */
static bool offsets_ok(const void *buf, bool wide, int64_t first, int64_t len, int64_t limit) {
    if (wide) {
        const int64_t *o = (const int64_t *)buf + first;
        return o[0] >= 0 && o[len] <= limit && ascending_int64_t(o, len + 1);
    }
    const int32_t *o = (const int32_t *)buf + first;
    return o[0] >= 0 && o[len] <= limit && ascending_int32_t(o, len + 1);
}

bool cli_anode_check(const cli_anode *n, const struct ArrowArray *a, char *why, size_t why_size) {
    if (!a || !a->release) return bad(why, why_size, n, "missing or released");
    if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX - a->offset - 1)
        return bad(why, why_size, n, "bad length or offset");
    if (n->kind == CLI_A_NULL) return true;
    int64_t want_buffers = 1;
    if (n->kind == CLI_A_LEAF) want_buffers = n->layout == CLI_L_VAR32 || n->layout == CLI_L_VAR64 ? 3 : 2;
    else if (n->kind != CLI_A_STRUCT && n->kind != CLI_A_VARIANT) want_buffers = 2;
    if (a->n_buffers != want_buffers || !a->buffers) return bad(why, why_size, n, "wrong buffers");
    if (a->n_children != n->n_children || (n->n_children && !a->children))
        return bad(why, why_size, n, "wrong children");
    int64_t end = a->offset + a->length;
    if (a->null_count > 0 && !a->buffers[0])
        return bad(why, why_size, n, "nulls without a validity bitmap");
    if (a->length == 0) return true;
    /* Values or offsets are needed; a data buffer only when some value has bytes. */
    if (want_buffers >= 2 && !a->buffers[1]) return bad(why, why_size, n, "missing buffer");
    switch (n->kind) {
    case CLI_A_LEAF:
        if (n->layout == CLI_L_VAR32 || n->layout == CLI_L_VAR64) {
            bool wide = n->layout == CLI_L_VAR64;
            if (!offsets_ok(a->buffers[1], wide, a->offset, a->length, INT64_MAX))
                return bad(why, why_size, n, "offsets out of order");
            int64_t last = wide ? ((const int64_t *)a->buffers[1])[end]
                                : ((const int32_t *)a->buffers[1])[end];
            int64_t first = wide ? ((const int64_t *)a->buffers[1])[a->offset]
                                 : ((const int32_t *)a->buffers[1])[a->offset];
            if (!a->buffers[2] && last != first) return bad(why, why_size, n, "missing data");
        }
        return true;
    case CLI_A_STRUCT:
    case CLI_A_VARIANT:
        for (int32_t k = 0; k < n->n_children; k++) {
            if (!cli_anode_check(&n->children[k], a->children[k], why, why_size)) return false;
            if (a->children[k]->length < end) return bad(why, why_size, n, "short child");
        }
        return true;
    case CLI_A_LIST:
    case CLI_A_LARGE_LIST:
    case CLI_A_MAP: {
        const struct ArrowArray *child = a->children[0];
        if (!cli_anode_check(&n->children[0], child, why, why_size)) return false;
        if (!offsets_ok(a->buffers[1], n->kind == CLI_A_LARGE_LIST, a->offset, a->length,
                        child->length))
            return bad(why, why_size, n, "list offsets outside the child");
        if (n->kind == CLI_A_MAP) {
            /* Entry k reads the key and value at child->offset + k. */
            for (int32_t k = 0; k < 2; k++)
                if (child->children[k]->length < child->offset + child->length)
                    return bad(why, why_size, n, "short map entries");
        }
        return true;
    }
    default: return true;
    }
}

/* ---- Values ----------------------------------------------------------------------- */

static bool bit_at(const void *bits, int64_t i) {
    return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

bool cli_anode_is_null(const cli_anode *n, const struct ArrowArray *a, int64_t i) {
    /* Null-typed arrays have no buffers; UNKNOWN leaves are always null. */
    if (n->kind == CLI_A_NULL || (n->kind == CLI_A_LEAF && n->fmt.kind == CLI_V_NULL)) return true;
    const void *validity = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return validity && !bit_at(validity, a->offset + i);
}

static void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int k = 0; k < bytes; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* Slot j (offset applied) of a leaf, in the Parquet leaf's physical layout. */
static void put_leaf(cli_buf *b, const cli_anode *n, const struct ArrowArray *a, int64_t j,
                     cli_style style) {
    uint8_t tmp[32];
    const uint8_t *p = tmp;
    size_t len = 0;
    cli_value_format f = n->fmt;
    const uint8_t *vals = a->buffers[1];
    switch (n->layout) {
    case CLI_L_BOOL:
        tmp[0] = bit_at(vals, j);
        len = 1;
        break;
    case CLI_L_FIXED:
        p = vals + (size_t)j * (size_t)n->width;
        len = (size_t)n->width;
        if (n->width < 4 && f.physical == PLANK_INT32) {
            /* int8/int16 (signed or not) back to the INT32 physical value */
            int64_t v;
            if (n->width == 1) v = n->widen_signed ? (int8_t)p[0] : p[0];
            else {
                uint16_t u = (uint16_t)(p[0] | (p[1] << 8));
                v = n->widen_signed ? (int16_t)u : u;
            }
            put_le(tmp, (uint64_t)v, 4);
            p = tmp;
            len = 4;
        }
        break;
    case CLI_L_VAR32: {
        const int32_t *off = (const int32_t *)vals;
        p = (const uint8_t *)a->buffers[2] + off[j];
        len = (size_t)(off[j + 1] - off[j]);
        break;
    }
    case CLI_L_VAR64: {
        const int64_t *off = (const int64_t *)vals;
        p = (const uint8_t *)a->buffers[2] + off[j];
        len = (size_t)(off[j + 1] - off[j]);
        break;
    }
    case CLI_L_DECIMAL: {
        const uint8_t *le = vals + (size_t)j * (size_t)n->width;
        if (f.physical == PLANK_INT32 || f.physical == PLANK_INT64) {
            /* The value fits the physical integer: its low bytes. */
            len = f.physical == PLANK_INT32 ? 4 : 8;
            p = le;
        } else if (f.kind != CLI_V_DECIMAL && f.physical == PLANK_FIXED_LEN_BYTE_ARRAY &&
                   n->type_length > 0 && n->type_length <= n->width) {
            /* Printed as bytes: the FLBA's own big-endian bytes. */
            for (int32_t k = 0; k < n->type_length; k++) tmp[k] = le[n->type_length - 1 - k];
            len = (size_t)n->type_length;
        } else {
            /* Big-endian two's complement of the whole width: the same
             * decimal text as the file's bytes. */
            for (int32_t k = 0; k < n->width; k++) tmp[k] = le[n->width - 1 - k];
            len = (size_t)n->width;
            f.physical = PLANK_BYTE_ARRAY;
            f.width = 0;
        }
        break;
    }
    }
    if (!cli_format_value(b, &f, p, len, style)) {
        /* The Arrow width disagrees with the Parquet type: show the bytes. */
        if (style == CLI_STYLE_JSON) cli_buf_putc(b, '"');
        cli_format_base64(b, p, len);
        if (style == CLI_STYLE_JSON) cli_buf_putc(b, '"');
    }
}

static int64_t offset_at(const struct ArrowArray *a, bool wide, int64_t j) {
    return wide ? ((const int64_t *)a->buffers[1])[j] : ((const int32_t *)a->buffers[1])[j];
}

/* Slot j's bytes of a binary leaf. */
static void var_at(const cli_anode *n, const struct ArrowArray *a, int64_t j, const uint8_t **p,
                   size_t *len) {
    bool wide = n->layout == CLI_L_VAR64;
    int64_t s = offset_at(a, wide, j), e = offset_at(a, wide, j + 1);
    *p = (const uint8_t *)a->buffers[2] + s;
    *len = (size_t)(e - s);
}

static const char *put_variant(cli_buf *b, const cli_anode *n, const struct ArrowArray *a,
                               int64_t j) {
    const struct ArrowArray *ma = a->children[n->vmeta], *va = a->children[n->vvalue];
    const cli_anode *mn = &n->children[n->vmeta], *vn = &n->children[n->vvalue];
    int64_t mj = ma->offset + j, vj = va->offset + j;
    const void *vvalid = va->n_buffers > 0 ? va->buffers[0] : NULL;
    if (va->null_count != 0 && vvalid && !bit_at(vvalid, vj)) {
        /* Unshredded storage with a null value: the spec's Variant null. */
        cli_buf_put(b, "null", 4);
        return NULL;
    }
    const uint8_t *mp, *vp;
    size_t ml, vl, need = 0;
    var_at(mn, ma, mj, &mp, &ml);
    var_at(vn, va, vj, &vp, &vl);
    plank_error err;
    for (size_t room = vl * 4 + 64;;) {
        char *w = cli_buf_reserve(b, room);
        plank_status st = plank_variant_to_json(mp, ml, vp, vl, w, room, &need, NULL, &err);
        if (st != PLANK_OK) {
            snprintf(n->verr, CLI_VARIANT_ERR, "VARIANT column %.100s: %s", n->name,
                     err.message);
            return n->verr;
        }
        if (need < room) {
            b->len += need;
            return NULL;
        }
        room = need + 1;
    }
}

const char *cli_anode_value(cli_buf *b, const cli_anode *n, const struct ArrowArray *a,
                            int64_t i, cli_style style) {
    if (cli_anode_is_null(n, a, i)) {
        cli_buf_put(b, "null", 4);
        return NULL;
    }
    int64_t j = a->offset + i;
    const char *e = NULL;
    switch (n->kind) {
    case CLI_A_NULL: cli_buf_put(b, "null", 4); return NULL;
    case CLI_A_LEAF: put_leaf(b, n, a, j, style); return NULL;
    case CLI_A_VARIANT: return put_variant(b, n, a, j);
    case CLI_A_STRUCT:
        cli_buf_putc(b, '{');
        for (int32_t k = 0; k < n->n_children && !e; k++) {
            if (k) cli_buf_putc(b, ',');
            cli_buf_put(b, n->children[k].key.data, n->children[k].key.len);
            e = cli_anode_value(b, &n->children[k], a->children[k], j, CLI_STYLE_JSON);
        }
        cli_buf_putc(b, '}');
        return e;
    case CLI_A_LIST:
    case CLI_A_LARGE_LIST:
    case CLI_A_MAP: {
        bool wide = n->kind == CLI_A_LARGE_LIST;
        int64_t start = offset_at(a, wide, j), end = offset_at(a, wide, j + 1);
        const struct ArrowArray *child = a->children[0];
        const cli_anode *cn = &n->children[0];
        cli_buf_putc(b, '[');
        for (int64_t k = start; k < end && !e; k++) {
            if (k > start) cli_buf_putc(b, ',');
            if (n->kind != CLI_A_MAP) {
                e = cli_anode_value(b, cn, child, k, CLI_STYLE_JSON);
                continue;
            }
            int64_t en = child->offset + k;
            cli_buf_puts(b, "{\"key\":");
            e = cli_anode_value(b, &cn->children[0], child->children[0], en, CLI_STYLE_JSON);
            cli_buf_puts(b, ",\"value\":");
            if (!e) e = cli_anode_value(b, &cn->children[1], child->children[1], en, CLI_STYLE_JSON);
            cli_buf_putc(b, '}');
        }
        cli_buf_putc(b, ']');
        return e;
    }
    }
    return NULL;
}

uint64_t cli_anode_bytes(const cli_anode *n, const struct ArrowArray *a) {
    if (!a || n->kind == CLI_A_NULL) return 0;
    uint64_t end = (uint64_t)(a->offset + a->length), sum = 0;
    if (a->n_buffers > 0 && a->buffers[0]) sum += (end + 7) / 8;
    switch (n->kind) {
    case CLI_A_LEAF:
        if (n->layout == CLI_L_BOOL) sum += (end + 7) / 8;
        else if (n->layout == CLI_L_VAR32 || n->layout == CLI_L_VAR64) {
            bool wide = n->layout == CLI_L_VAR64;
            sum += (end + 1) * (wide ? 8u : 4u);
            if (a->length > 0) sum += (uint64_t)offset_at(a, wide, (int64_t)end);
        } else sum += end * (uint64_t)n->width;
        break;
    case CLI_A_STRUCT:
    case CLI_A_VARIANT:
        for (int32_t k = 0; k < n->n_children; k++) sum += cli_anode_bytes(&n->children[k], a->children[k]);
        break;
    default:
        sum += (end + 1) * (n->kind == CLI_A_LARGE_LIST ? 8u : 4u);
        sum += cli_anode_bytes(&n->children[0], a->children[0]);
        break;
    }
    return sum;
}

/* ---- Type names ---------------------------------------------------------------------- */

void cli_arrow_type_name(cli_buf *b, const char *f) {
    static const struct {
        const char *format, *name;
    } simple[] = {
        {"n", "null"},         {"b", "bool"},          {"c", "int8"},       {"C", "uint8"},
        {"s", "int16"},        {"S", "uint16"},        {"i", "int32"},      {"I", "uint32"},
        {"l", "int64"},        {"L", "uint64"},        {"e", "float16"},    {"f", "float32"},
        {"g", "float64"},      {"z", "binary"},        {"Z", "large_binary"}, {"u", "utf8"},
        {"U", "large_utf8"},   {"tdD", "date32"},      {"tdm", "date64"},   {"tts", "time32[s]"},
        {"ttm", "time32[ms]"}, {"ttu", "time64[us]"},  {"ttn", "time64[ns]"}, {"+l", "list"},
        {"+L", "large_list"},  {"+m", "map"},          {"+s", "struct"},
    };
    for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++) {
        if (strcmp(f, simple[k].format) == 0) {
            cli_buf_puts(b, simple[k].name);
            return;
        }
    }
    if (strncmp(f, "w:", 2) == 0) {
        cli_buf_printf(b, "fixed_size_binary(%s)", f + 2);
    } else if (strncmp(f, "d:", 2) == 0) {
        const char *c1 = strchr(f, ',');
        const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        bool wide = c2 && strcmp(c2 + 1, "256") == 0;
        int p_len = c1 ? (int)(c1 - (f + 2)) : (int)strlen(f + 2);
        int s_len = c1 ? (c2 ? (int)(c2 - (c1 + 1)) : (int)strlen(c1 + 1)) : 0;
        cli_buf_printf(b, "decimal%s(%.*s, %.*s)", wide ? "256" : "128", p_len, f + 2, s_len,
                       c1 ? c1 + 1 : "");
    } else if (strncmp(f, "ts", 2) == 0 && f[2] && f[3] == ':') {
        const char *unit = f[2] == 's' ? "s" : f[2] == 'm' ? "ms" : f[2] == 'u' ? "us" : "ns";
        if (f[4]) cli_buf_printf(b, "timestamp[%s, tz=%s]", unit, f + 4);
        else cli_buf_printf(b, "timestamp[%s]", unit);
    } else {
        cli_buf_printf(b, "unknown(%s)", f);
    }
}
