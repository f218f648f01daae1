/*
 * pk_arrow_schema.c: the Parquet schema mapped to Arrow fields (pk_anode
 * tree), and its export as a struct ArrowSchema.
 *
 * Lists and maps follow the format's LogicalTypes.md, backward-compatibility
 * rules included:
 *  - a repeated field outside a LIST/MAP group is a required list of required
 *    elements of the field's type;
 *  - a LIST group's repeated child is itself the (required) element when it
 *    is primitive, a group of several fields, a group whose one field is
 *    repeated, or a one-field group named "array" or "<list name>_tuple";
 *    otherwise its one field is the element;
 *  - MAP_KEY_VALUE outside a MAP is a MAP; the first field of the repeated
 *    group is the key and the second the value whatever their names. A map
 *    without a value field is read as a list of its keys (as Arrow C++ and
 *    arrow-rs do); an optional key (incorrect_map_schema.parquet, written by
 *    Hive and Presto) is accepted as arrow-rs does, the key field staying
 *    non-nullable in the Arrow schema.
 * Malformed LIST/MAP groups (no single repeated child) are read as plain
 * structs rather than refused: their levels are still self-consistent.
 */
#include "pk_arrow.h"
#include "../common/pk_struct.h"

#include <stdio.h>
#include <stdlib.h>

void plank_arrow_options_init(plank_arrow_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    /* 16,384 rows: the sixteen columns of TPC-H lineitem are about 3 MB of
     * Arrow buffers a batch, which stay in the caches between the decode and
     * the consumer (65,536 rows, 13 MB, did not: 5-15% slower on the DELTA,
     * zstd and DuckDB-written files, bench/README.md). */
    o->batch_rows = 16384;
    o->zero_copy = true;
}

plank_status pk_arrow_options_load(plank_arrow_options *o, const plank_arrow_options *given,
                                   plank_error *err) {
    plank_arrow_options_init(o);
    if (!given) return PLANK_OK;
    PK_FORWARD(pk_struct_read(o, given, &pk_layout_arrow_options, err));
    PK_RETURN_IF(o->threads < 0 || o->threads > 1024, err, PLANK_ERR_INVALID_ARGUMENT,
                 "threads %d: not in 0..1024", (int)o->threads);
    PK_RETURN_IF(o->batches_in_flight < 0, err, PLANK_ERR_INVALID_ARGUMENT,
                 "batches_in_flight %d is negative", (int)o->batches_in_flight);
    if (o->executor) {
        plank_executor ex;
        memset(&ex, 0, sizeof ex);
        ex.struct_size = sizeof ex;
        PK_FORWARD(pk_struct_read(&ex, o->executor, &pk_layout_executor, err));
        PK_RETURN_IF(!ex.submit || !ex.wait || ex.threads < 1 || ex.threads > 1024, err,
                     PLANK_ERR_INVALID_ARGUMENT,
                     "executor: submit and wait are required and threads must be in 1..1024");
    }
    return PLANK_OK;
}

/* ---- Parquet schema to pk_anode tree ----------------------------------------- */

typedef struct tree_builder {
    const plank_reader *r;
    const plank_arrow_options *o;
    pk_atree *t;
    int32_t *sel;       /* per schema node: selected leaves below */
    int32_t cap_leaves;
    plank_error *err;
} tree_builder;

static const plank_schema_node *node_at(tree_builder *b, int32_t i) {
    return plank_reader_schema_node(b->r, i);
}

static const plank_schema_node *child_of(tree_builder *b, const plank_schema_node *n, int32_t k) {
    return node_at(b, n->children[k]);
}

static pk_anode *new_node(tree_builder *b, pk_anode_kind kind, const plank_schema_node *pn,
                          const char *name, int32_t num_children) {
    pk_anode *an = pk_arena_alloc(&b->t->arena, sizeof *an);
    if (!an) return NULL;
    an->kind = kind;
    an->pn = pn;
    /* A node's own name is its output_name: unique among its siblings. */
    an->name = name == pn->name ? pn->output_name : name;
    an->def = pn->max_definition_level;
    an->nullable = pn->repetition == PLANK_OPTIONAL;
    an->num_children = num_children;
    if (num_children > 0) {
        an->children = pk_arena_alloc(&b->t->arena, (size_t)num_children * sizeof(pk_anode *));
        if (!an->children) return NULL;
    }
    return an;
}

#define OOM(b) pk_error_set((b)->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory")

/* Arrow format and conversion of a primitive leaf. */
static void map_leaf(tree_builder *b, pk_anode *an) {
    const plank_schema_node *pn = an->pn;
    const plank_logical_type *lt = &pn->logical;
    an->conv = PK_CONV_COPY;
    if (lt->kind == PLANK_LOGICAL_UNKNOWN) {
        snprintf(an->format, sizeof an->format, "n");
        an->conv = PK_CONV_NULL;
        return;
    }
    bool dec = lt->kind == PLANK_LOGICAL_DECIMAL && lt->precision > 0 && lt->scale >= 0;
    if (dec) {
        bool wide = lt->precision > 38;
        an->out_width = wide ? 32 : 16;
        snprintf(an->format, sizeof an->format, wide ? "d:%d,%d,256" : "d:%d,%d",
                 (int)lt->precision, (int)lt->scale);
    }
    switch (pn->physical_type) {
    case PLANK_BOOLEAN:
        snprintf(an->format, sizeof an->format, "b");
        an->conv = PK_CONV_BOOL;
        return;
    case PLANK_INT32:
        if (dec && b->o->narrow_decimals && lt->precision <= 9) {
            /* decimal32: the stored bytes */
            snprintf(an->format, sizeof an->format, "d:%d,%d,32", (int)lt->precision,
                     (int)lt->scale);
            an->out_width = 4;
            return;
        }
        if (dec) { an->conv = PK_CONV_DEC_I32; return; }
        an->out_width = 4;
        if (lt->kind == PLANK_LOGICAL_INTEGER && lt->bit_width == 8) {
            snprintf(an->format, sizeof an->format, lt->is_signed ? "c" : "C");
            an->conv = PK_CONV_I8;
            an->out_width = 1;
        } else if (lt->kind == PLANK_LOGICAL_INTEGER && lt->bit_width == 16) {
            snprintf(an->format, sizeof an->format, lt->is_signed ? "s" : "S");
            an->conv = PK_CONV_I16;
            an->out_width = 2;
        } else if (lt->kind == PLANK_LOGICAL_INTEGER && !lt->is_signed) {
            snprintf(an->format, sizeof an->format, "I");
        } else if (lt->kind == PLANK_LOGICAL_DATE) {
            snprintf(an->format, sizeof an->format, "tdD");
        } else if (lt->kind == PLANK_LOGICAL_TIME && lt->unit == PLANK_UNIT_MILLIS) {
            snprintf(an->format, sizeof an->format, "ttm");
        } else {
            snprintf(an->format, sizeof an->format, "i");
        }
        return;
    case PLANK_INT64:
        if (dec && b->o->narrow_decimals && lt->precision <= 18) {
            /* decimal64: the stored bytes */
            snprintf(an->format, sizeof an->format, "d:%d,%d,64", (int)lt->precision,
                     (int)lt->scale);
            an->out_width = 8;
            return;
        }
        if (dec) { an->conv = PK_CONV_DEC_I64; return; }
        an->out_width = 8;
        if (lt->kind == PLANK_LOGICAL_INTEGER && !lt->is_signed) {
            snprintf(an->format, sizeof an->format, "L");
        } else if (lt->kind == PLANK_LOGICAL_TIME && lt->unit != PLANK_UNIT_MILLIS) {
            snprintf(an->format, sizeof an->format, lt->unit == PLANK_UNIT_MICROS ? "ttu" : "ttn");
        } else if (lt->kind == PLANK_LOGICAL_TIMESTAMP) {
            char u = lt->unit == PLANK_UNIT_MILLIS ? 'm' : lt->unit == PLANK_UNIT_MICROS ? 'u' : 'n';
            snprintf(an->format, sizeof an->format, "ts%c:%s", u,
                     lt->is_adjusted_to_utc ? "UTC" : "");
        } else {
            snprintf(an->format, sizeof an->format, "l");
        }
        return;
    case PLANK_INT96:
        if (b->o->int96_as_binary) {
            snprintf(an->format, sizeof an->format, "w:12");
            an->out_width = 12;
        } else {
            snprintf(an->format, sizeof an->format, "tsn:");
            an->conv = PK_CONV_INT96_NS;
            an->out_width = 8;
        }
        return;
    case PLANK_FLOAT:
        snprintf(an->format, sizeof an->format, "f");
        an->out_width = 4;
        return;
    case PLANK_DOUBLE:
        snprintf(an->format, sizeof an->format, "g");
        an->out_width = 8;
        return;
    case PLANK_BYTE_ARRAY:
        if (dec) { an->conv = PK_CONV_DEC_BE; return; }
        an->conv = PK_CONV_BINARY;
        snprintf(an->format, sizeof an->format,
                 lt->kind == PLANK_LOGICAL_STRING || lt->kind == PLANK_LOGICAL_ENUM ||
                         lt->kind == PLANK_LOGICAL_JSON
                     ? "u"
                     : "z");
        return;
    case PLANK_FIXED_LEN_BYTE_ARRAY:
        if (dec) { an->conv = PK_CONV_DEC_BE; return; }
        an->out_width = pn->type_length;
        if (lt->kind == PLANK_LOGICAL_FLOAT16 && pn->type_length == 2) {
            snprintf(an->format, sizeof an->format, "e");
        } else {
            snprintf(an->format, sizeof an->format, "w:%d", (int)pn->type_length);
            an->uuid = lt->kind == PLANK_LOGICAL_UUID && pn->type_length == 16;
        }
        return;
    default:
        snprintf(an->format, sizeof an->format, "n");
        an->conv = PK_CONV_NULL;
        return;
    }
}

static plank_status convert(tree_builder *b, const plank_schema_node *pn, int16_t erep,
                            int16_t edef, bool as_element, pk_anode **out);

static plank_status add_leaf(tree_builder *b, pk_anode *an) {
    pk_atree *t = b->t;
    if (t->num_leaves >= b->cap_leaves)
        return pk_error_set(b->err, PLANK_ERR_CORRUPT, "schema: more leaves than columns");
    an->leaf = t->num_leaves;
    t->leaf_columns[t->num_leaves] = an->pn->column;
    t->leaf_nodes[t->num_leaves] = an;
    t->num_leaves++;
    map_leaf(b, an);
    an->dict = b->o->dictionary_arrays && an->conv == PK_CONV_BINARY;
    return PLANK_OK;
}

/* A list whose element is `elem_pn` (converted with the repeated node's
 * levels) under the list node `pn`. */
static plank_status make_list(tree_builder *b, const plank_schema_node *pn,
                              const plank_schema_node *rep_pn, const plank_schema_node *elem_pn,
                              bool elem_is_rep, int16_t erep, int16_t edef, pk_anode **out) {
    pk_anode *an = new_node(b, PK_AN_LIST, pn, pn->name, 1);
    if (!an) return OOM(b);
    an->entry_rep = erep;
    an->entry_def = edef;
    an->child_rep = rep_pn->max_repetition_level;
    an->child_def = rep_pn->max_definition_level;
    PK_FORWARD(convert(b, elem_pn, an->child_rep, an->child_def, elem_is_rep, &an->children[0]));
    if (!an->children[0]) return PK_CORRUPT(b->err, "schema: list %s without element", pn->path);
    if (elem_is_rep) an->children[0]->nullable = false;
    an->leaf = an->children[0]->leaf;
    *out = an;
    return PLANK_OK;
}

static bool is_list_group(tree_builder *b, const plank_schema_node *pn) {
    return pn->logical.kind == PLANK_LOGICAL_LIST && pn->num_children == 1 &&
           child_of(b, pn, 0)->repetition == PLANK_REPEATED;
}

static bool is_map_group(tree_builder *b, const plank_schema_node *pn) {
    if (pn->logical.kind != PLANK_LOGICAL_MAP && pn->logical.kind != PLANK_LOGICAL_MAP_KEY_VALUE)
        return false;
    if (pn->num_children != 1) return false;
    const plank_schema_node *kv = child_of(b, pn, 0);
    return kv->repetition == PLANK_REPEATED && kv->num_children >= 1 && kv->num_children <= 2;
}

static plank_status convert_list(tree_builder *b, const plank_schema_node *pn, int16_t erep,
                                 int16_t edef, pk_anode **out) {
    const plank_schema_node *rc = child_of(b, pn, 0);
    bool rc_is_element = rc->num_children == 0 || rc->num_children > 1;
    if (rc->num_children == 1) {
        const plank_schema_node *only = child_of(b, rc, 0);
        size_t nl = strlen(pn->name);
        rc_is_element = only->repetition == PLANK_REPEATED || strcmp(rc->name, "array") == 0 ||
                        (strncmp(rc->name, pn->name, nl) == 0 &&
                         strcmp(rc->name + nl, "_tuple") == 0);
    }
    if (rc_is_element) return make_list(b, pn, rc, rc, true, erep, edef, out);
    return make_list(b, pn, rc, child_of(b, rc, 0), false, erep, edef, out);
}

static plank_status convert_map(tree_builder *b, const plank_schema_node *pn, int16_t erep,
                                int16_t edef, pk_anode **out) {
    const plank_schema_node *kv = child_of(b, pn, 0);
    const plank_schema_node *key = child_of(b, kv, 0);
    const plank_schema_node *val = kv->num_children > 1 ? child_of(b, kv, 1) : NULL;
    bool ks = b->sel[key->index] > 0, vs = val && b->sel[val->index] > 0;
    if (!ks || !vs) {
        /* No value field, or only one side selected: a list of what is there. */
        PK_FORWARD(make_list(b, pn, kv, ks ? key : val, false, erep, edef, out));
        if (ks) (*out)->children[0]->nullable = false;
        return PLANK_OK;
    }
    pk_anode *an = new_node(b, PK_AN_MAP, pn, pn->name, 1);
    pk_anode *ent = new_node(b, PK_AN_STRUCT, kv, "entries", 2);
    if (!an || !ent) return OOM(b);
    an->entry_rep = erep;
    an->entry_def = edef;
    an->child_rep = ent->entry_rep = kv->max_repetition_level;
    an->child_def = ent->entry_def = kv->max_definition_level;
    ent->nullable = false;
    an->children[0] = ent;
    PK_FORWARD(convert(b, key, ent->entry_rep, ent->entry_def, false, &ent->children[0]));
    PK_FORWARD(convert(b, val, ent->entry_rep, ent->entry_def, false, &ent->children[1]));
    ent->children[0]->name = "key";
    ent->children[0]->nullable = false; /* Arrow map keys are never null */
    ent->children[1]->name = "value";
    ent->leaf = an->leaf = ent->children[0]->leaf;
    *out = an;
    return PLANK_OK;
}

static int32_t leaves_below(tree_builder *b, const plank_schema_node *pn) {
    if (pn->num_children == 0) return 1;
    int32_t n = 0;
    for (int32_t k = 0; k < pn->num_children; k++) n += leaves_below(b, child_of(b, pn, k));
    return n;
}

static const plank_schema_node *child_named(tree_builder *b, const plank_schema_node *pn,
                                            const char *name) {
    for (int32_t k = 0; k < pn->num_children; k++) {
        const plank_schema_node *c = child_of(b, pn, k);
        if (strcmp(c->name, name) == 0) return c;
    }
    return NULL;
}

/* A binary leaf of the reassembled variant storage (no Parquet node). */
static pk_anode *variant_leaf(tree_builder *b, const char *name, bool nullable, bool large) {
    pk_anode *an = pk_arena_alloc(&b->t->arena, sizeof *an);
    if (!an) return NULL;
    memset(an, 0, sizeof *an);
    an->kind = PK_AN_LEAF;
    an->name = name;
    an->nullable = nullable;
    an->conv = PK_CONV_BINARY;
    an->large = large;
    snprintf(an->format, sizeof an->format, "%s", large ? "Z" : "z");
    return an;
}

/* A VARIANT group whose every leaf is selected, with a binary metadata and
 * a value or typed_value, becomes the extension type: reassembled when it
 * is shredded, unless the options keep the storage. */
static plank_status mark_variant(tree_builder *b, const plank_schema_node *pn, pk_anode *an) {
    if (pn->logical.kind != PLANK_LOGICAL_VARIANT) return PLANK_OK;
    if (b->sel[pn->index] != leaves_below(b, pn)) return PLANK_OK;
    const plank_schema_node *m = child_named(b, pn, "metadata");
    const plank_schema_node *v = child_named(b, pn, "value");
    const plank_schema_node *tv = child_named(b, pn, "typed_value");
    if (!m || m->num_children || m->physical_type != PLANK_BYTE_ARRAY) return PLANK_OK;
    if (v && (v->num_children || v->physical_type != PLANK_BYTE_ARRAY)) return PLANK_OK;
    if (!v && !tv) return PLANK_OK;
    if (!tv || b->o->variant_shredded) {
        an->variant = PK_VARIANT_STORAGE;
        return PLANK_OK;
    }
    an->variant = PK_VARIANT_UNSHRED;
    an->vlarge = b->o->large_offsets;
    an->vchildren[0] = variant_leaf(b, "metadata", false, an->vlarge);
    an->vchildren[1] = variant_leaf(b, "value", true, an->vlarge);
    if (!an->vchildren[0] || !an->vchildren[1]) return OOM(b);
    b->t->has_unshred = true;
    return PLANK_OK;
}

static plank_status convert_struct(tree_builder *b, const plank_schema_node *pn, int16_t erep,
                                   int16_t edef, pk_anode **out) {
    int32_t n = 0;
    for (int32_t k = 0; k < pn->num_children; k++) n += b->sel[pn->children[k]] > 0;
    pk_anode *an = new_node(b, PK_AN_STRUCT, pn, pn->name, n);
    if (!an) return OOM(b);
    an->entry_rep = erep;
    an->entry_def = edef;
    int32_t j = 0;
    for (int32_t k = 0; k < pn->num_children; k++) {
        const plank_schema_node *c = child_of(b, pn, k);
        if (b->sel[c->index] == 0) continue;
        PK_FORWARD(convert(b, c, erep, edef, false, &an->children[j]));
        j++;
    }
    an->leaf = an->children[0]->leaf;
    PK_FORWARD(mark_variant(b, pn, an));
    *out = an;
    return PLANK_OK;
}

/* Converts pn (and what is below) when it has selected leaves; *out stays
 * NULL otherwise. as_element: pn is a repeated node standing for the element
 * of its list (required, valid wherever the list has an element). */
static plank_status convert(tree_builder *b, const plank_schema_node *pn, int16_t erep,
                            int16_t edef, bool as_element, pk_anode **out) {
    *out = NULL;
    if (b->sel[pn->index] == 0) return PLANK_OK;
    if (pn->repetition == PLANK_REPEATED && !as_element) {
        /* An unannotated repeated field: a required list of required elements. */
        PK_FORWARD(make_list(b, pn, pn, pn, true, erep, edef, out));
        (*out)->def = (int16_t)(pn->max_definition_level - 1);
        (*out)->nullable = false;
        return PLANK_OK;
    }
    if (pn->num_children == 0) {
        pk_anode *an = new_node(b, PK_AN_LEAF, pn, pn->name, 0);
        if (!an) return OOM(b);
        an->entry_rep = erep;
        an->entry_def = edef;
        PK_FORWARD(add_leaf(b, an));
        *out = an;
        return PLANK_OK;
    }
    if (is_list_group(b, pn)) return convert_list(b, pn, erep, edef, out);
    if (is_map_group(b, pn)) return convert_map(b, pn, erep, edef, out);
    return convert_struct(b, pn, erep, edef, out);
}

/* ---- Offset widths ------------------------------------------------------------------ */

/* Marks the large nodes below an; returns the largest chunk num_values of
 * its leaves. leaf_bytes/leaf_values: per leaf, the largest over the row
 * groups. */
static int64_t mark_large(pk_anode *an, const int64_t *leaf_bytes, const int64_t *leaf_values,
                          int64_t limit) {
    if (an->kind == PK_AN_LEAF) {
        if (an->conv == PK_CONV_BINARY && leaf_bytes[an->leaf] > limit) {
            an->large = true;
            an->format[0] = an->format[0] == 'u' ? 'U' : 'Z';
        }
        return leaf_values[an->leaf];
    }
    int64_t most = 0;
    for (int32_t k = 0; k < an->num_children; k++) {
        int64_t v = mark_large(an->children[k], leaf_bytes, leaf_values, limit);
        if (v > most) most = v;
    }
    if (an->kind == PK_AN_LIST) an->large = most > limit; /* Arrow maps: int32 offsets only */
    return most;
}

static void mark_small_lists(pk_anode *an, bool small_above) {
    if (an->kind == PK_AN_LEAF) {
        an->under_small_list = small_above;
        return;
    }
    if (an->kind == PK_AN_LIST && !an->large) small_above = true;
    if (an->kind == PK_AN_MAP) small_above = true; /* Arrow maps have int32 offsets only */
    for (int32_t k = 0; k < an->num_children; k++) mark_small_lists(an->children[k], small_above);
}

static plank_status decide_offsets(const plank_reader *r, const int32_t *rgs, int32_t nrg, pk_atree *t,
                                   bool all_large, plank_error *err) {
    size_t n = (size_t)t->num_leaves + 1;
    int64_t *bytes = pk_arena_alloc(&t->arena, n * sizeof(int64_t));
    int64_t *values = pk_arena_alloc(&t->arena, n * sizeof(int64_t));
    if (!bytes || !values) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    memset(bytes, 0, n * sizeof(int64_t));
    memset(values, 0, n * sizeof(int64_t));
    if (!rgs) nrg = plank_reader_num_row_groups(r);
    for (int32_t g = 0; g < nrg; g++) {
        for (int32_t i = 0; i < t->num_leaves; i++) {
            /* Metadata that cannot be read (encrypted) leaves the column at
             * 32 bits: the stream's halving still guards the offsets, and
             * reading reports the real error. */
            plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
            plank_error ignored;
            plank_error_init(&ignored);
            if (plank_reader_column_chunk(r, rgs ? rgs[g] : g, t->leaf_columns[i], &cc,
                                          &ignored) != PLANK_OK)
                continue;
            if (cc.total_uncompressed_size > bytes[i]) bytes[i] = cc.total_uncompressed_size;
            if (cc.num_values > values[i]) values[i] = cc.num_values;
        }
    }
    /* See pk_atree_build in pk_arrow.h. */
    mark_large(t->root, bytes, values, all_large ? -1 : INT32_MAX);
    t->root->large = false;
    mark_small_lists(t->root, false);
    return PLANK_OK;
}

plank_status pk_atree_build(const plank_reader *r, const plank_arrow_options *o, const int32_t *rgs,
                            int32_t nrg, const bool *mask, pk_atree *t, plank_error *err) {
    if (!mask) mask = r->selected;
    memset(t, 0, sizeof *t);
    pk_arena_init(&t->arena, &r->alloc);
    tree_builder b = {r, o, t, NULL, r->num_columns, err};
    int32_t nn = plank_reader_num_schema_nodes(r);
    b.sel = pk_arena_alloc(&t->arena, (size_t)(nn + 1) * sizeof(int32_t));
    t->leaf_columns = pk_arena_alloc(&t->arena, (size_t)(r->num_columns + 1) * sizeof(int32_t));
    t->leaf_nodes = pk_arena_alloc(&t->arena, (size_t)(r->num_columns + 1) * sizeof(pk_anode *));
    if (!b.sel || !t->leaf_columns || !t->leaf_nodes) {
        pk_atree_free(t);
        return OOM(&b);
    }
    /* Children follow their parent in depth-first order: one backward pass
     * adds every selected leaf to all its ancestors. */
    for (int32_t i = nn - 1; i >= 0; i--) {
        const plank_schema_node *n = node_at(&b, i);
        if (n->num_children == 0 && n->column >= 0 && n->column < r->num_columns &&
            mask[n->column])
            b.sel[i] += 1;
        if (n->parent >= 0 && n->parent < nn) b.sel[n->parent] += b.sel[i];
    }
    const plank_schema_node *root = node_at(&b, 0);
    int32_t n = 0;
    for (int32_t k = 0; k < root->num_children; k++) n += b.sel[root->children[k]] > 0;
    pk_anode *an = new_node(&b, PK_AN_STRUCT, root, "", n);
    if (!an) {
        pk_atree_free(t);
        return OOM(&b);
    }
    an->def = 0;
    an->nullable = false;
    int32_t j = 0;
    plank_status st = PLANK_OK;
    for (int32_t k = 0; k < root->num_children && st == PLANK_OK; k++) {
        const plank_schema_node *c = child_of(&b, root, k);
        if (b.sel[c->index] == 0) continue;
        st = convert(&b, c, 0, 0, false, &an->children[j++]);
    }
    if (st != PLANK_OK) {
        pk_atree_free(t);
        return st;
    }
    an->leaf = 0;
    t->root = an;
    st = decide_offsets(r, rgs, nrg, t, o->large_offsets, err);
    if (st != PLANK_OK) pk_atree_free(t);
    return st;
}

void pk_atree_free(pk_atree *t) {
    if (!t) return;
    pk_arena_reset(&t->arena);
    memset(t, 0, sizeof *t);
}

/* ---- Export as struct ArrowSchema ----------------------------------------------- */

/* One allocation per exported field: this header, the children pointers and
 * child structs, then format, name and metadata bytes. */
typedef struct schema_block {
    plank_allocator a;
    size_t size;
} schema_block;

static void release_schema(struct ArrowSchema *s) {
    if (!s || !s->release) return;
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *c = s->children[i];
        if (c && c->release) c->release(c);
    }
    if (s->dictionary && s->dictionary->release) s->dictionary->release(s->dictionary);
    schema_block *blk = s->private_data;
    plank_allocator a = blk->a;
    pk_free(&a, blk, blk->size);
    s->release = NULL;
    s->private_data = NULL;
}

static size_t meta_entry(uint8_t *p, const char *k, const char *v) {
    int32_t kl = (int32_t)strlen(k), vl = (int32_t)strlen(v);
    if (p) {
        memcpy(p, &kl, 4);
        memcpy(p + 4, k, (size_t)kl);
        memcpy(p + 4 + kl, &vl, 4);
        memcpy(p + 8 + kl, v, (size_t)vl);
    }
    return 8 + (size_t)kl + (size_t)vl;
}

/* Arrow's metadata encoding: int32 count, then (int32 length, bytes) for each
 * key and value. Returns the size; writes when p != NULL. */
static size_t field_metadata(const pk_anode *an, uint8_t *p) {
    char id[16];
    int32_t count = 0;
    size_t size = 4;
    if (an->pn && an->pn->has_field_id) {
        snprintf(id, sizeof id, "%d", (int)an->pn->field_id);
        size += meta_entry(p ? p + size : NULL, "PARQUET:field_id", id);
        count++;
    }
    if (an->variant != PK_VARIANT_NONE) {
        size += meta_entry(p ? p + size : NULL, "ARROW:extension:name", "arrow.parquet.variant");
        size += meta_entry(p ? p + size : NULL, "ARROW:extension:metadata", "");
        count += 2;
    }
    if (an->kind == PK_AN_LEAF && an->uuid) {
        size += meta_entry(p ? p + size : NULL, "ARROW:extension:name", "arrow.uuid");
        size += meta_entry(p ? p + size : NULL, "ARROW:extension:metadata", "");
        count += 2;
    }
    if (count == 0) return 0;
    if (p) memcpy(p, &count, 4);
    return size;
}

static const char *node_format(const pk_anode *an) {
    switch (an->kind) {
    case PK_AN_STRUCT: return "+s";
    case PK_AN_LIST: return an->large ? "+L" : "+l";
    case PK_AN_MAP: return "+m";
    default: return an->dict ? "i" : an->format;
    }
}

static plank_status export_node(const pk_anode *an, const plank_allocator *a,
                                struct ArrowSchema *out, plank_error *err) {
    memset(out, 0, sizeof *out);
    const char *fmt = node_format(an);
    bool vout = an->variant == PK_VARIANT_UNSHRED;
    size_t nc = vout ? 2 : (size_t)an->num_children;
    size_t fl = strlen(fmt) + 1, nl = strlen(an->name) + 1, ml = field_metadata(an, NULL);
    size_t head = (sizeof(schema_block) + 15) & ~(size_t)15;
    size_t kids = nc * (sizeof(struct ArrowSchema *) + sizeof(struct ArrowSchema));
    if (an->dict) kids += sizeof(struct ArrowSchema);
    size_t size = head + kids + fl + nl + ml;
    uint8_t *mem = pk_calloc(a, size);
    if (!mem) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    schema_block *blk = (schema_block *)mem;
    blk->a = *a;
    blk->size = size;
    struct ArrowSchema *child_structs = (struct ArrowSchema *)(mem + head);
    struct ArrowSchema **child_ptrs = (struct ArrowSchema **)(mem + head + nc * sizeof *child_structs);
    char *f = (char *)(mem + head + kids);
    memcpy(f, fmt, fl);
    memcpy(f + fl, an->name, nl);
    out->format = f;
    out->name = f + fl;
    if (ml) {
        field_metadata(an, (uint8_t *)(f + fl + nl));
        out->metadata = f + fl + nl;
    }
    out->flags = an->nullable ? ARROW_FLAG_NULLABLE : 0;
    out->n_children = 0;
    out->children = nc ? child_ptrs : NULL;
    out->private_data = blk;
    out->release = release_schema;
    for (size_t i = 0; i < nc; i++) {
        child_ptrs[i] = &child_structs[i];
        plank_status st =
            export_node(vout ? an->vchildren[i] : an->children[i], a, &child_structs[i], err);
        if (st != PLANK_OK) {
            release_schema(out);
            return st;
        }
        out->n_children = (int64_t)i + 1;
    }
    if (an->dict) {
        /* The dictionary's values: the leaf's own value type, unnamed. */
        pk_anode values = *an;
        values.dict = false;
        values.name = "";
        values.pn = NULL;
        values.nullable = true;
        struct ArrowSchema *d = &child_structs[nc];
        plank_status st = export_node(&values, a, d, err);
        if (st != PLANK_OK) {
            release_schema(out);
            return st;
        }
        out->dictionary = d;
    }
    return PLANK_OK;
}

plank_status pk_atree_export_schema(const pk_atree *t, const plank_allocator *a,
                                    struct ArrowSchema *out, plank_error *err) {
    return export_node(t->root, a, out, err);
}

plank_status plank_reader_arrow_schema(const plank_reader *r, const plank_arrow_options *o,
                                       struct ArrowSchema *out, plank_error *err) {
    plank_error_init(err);
    if (!r || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(out, 0, sizeof *out);
    plank_arrow_options opt;
    PK_FORWARD(pk_arrow_options_load(&opt, o, err));
    pk_atree t;
    PK_FORWARD(pk_atree_build(r, &opt, NULL, 0, NULL, &t, err));
    plank_status st = pk_atree_export_schema(&t, &r->alloc, out, err);
    pk_atree_free(&t);
    return st;
}
