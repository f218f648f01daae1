/*
 * pk_schema_tree.c: the schema tree of a SchemaElement list (depth-first
 * order): parents, children, dotted paths, max definition and repetition
 * levels, leaf column indexes and the effective logical type (LogicalType
 * merged with the legacy ConvertedType). Shared by the reader (decoded
 * footers) and the writer (the schema it is given).
 */
#include <stdio.h>

#include "pk_thrift.h"


static void logical_from_converted(const pk_schema_element *e, plank_logical_type *lt) {
    memset(lt, 0, sizeof *lt);
    lt->edge_algorithm = -1;
    lt->variant_version = -1;
    switch (e->converted_type) {
    case PLANK_CONVERTED_UTF8: lt->kind = PLANK_LOGICAL_STRING; break;
    case PLANK_CONVERTED_MAP: lt->kind = PLANK_LOGICAL_MAP; break;
    case PLANK_CONVERTED_MAP_KEY_VALUE: lt->kind = PLANK_LOGICAL_MAP_KEY_VALUE; break;
    case PLANK_CONVERTED_LIST: lt->kind = PLANK_LOGICAL_LIST; break;
    case PLANK_CONVERTED_ENUM: lt->kind = PLANK_LOGICAL_ENUM; break;
    case PLANK_CONVERTED_DECIMAL:
        lt->kind = PLANK_LOGICAL_DECIMAL;
        lt->precision = e->precision;
        lt->scale = e->scale < 0 ? 0 : e->scale;
        break;
    case PLANK_CONVERTED_DATE: lt->kind = PLANK_LOGICAL_DATE; break;
    case PLANK_CONVERTED_TIME_MILLIS:
    case PLANK_CONVERTED_TIME_MICROS:
        lt->kind = PLANK_LOGICAL_TIME;
        lt->unit = e->converted_type == PLANK_CONVERTED_TIME_MILLIS ? PLANK_UNIT_MILLIS
                                                                    : PLANK_UNIT_MICROS;
        lt->is_adjusted_to_utc = true;
        break;
    case PLANK_CONVERTED_TIMESTAMP_MILLIS:
    case PLANK_CONVERTED_TIMESTAMP_MICROS:
        lt->kind = PLANK_LOGICAL_TIMESTAMP;
        lt->unit = e->converted_type == PLANK_CONVERTED_TIMESTAMP_MILLIS ? PLANK_UNIT_MILLIS
                                                                         : PLANK_UNIT_MICROS;
        lt->is_adjusted_to_utc = true;
        break;
    case PLANK_CONVERTED_UINT_8: case PLANK_CONVERTED_UINT_16:
    case PLANK_CONVERTED_UINT_32: case PLANK_CONVERTED_UINT_64:
        lt->kind = PLANK_LOGICAL_INTEGER;
        lt->bit_width = (int8_t)(8 << (e->converted_type - PLANK_CONVERTED_UINT_8));
        lt->is_signed = false;
        break;
    case PLANK_CONVERTED_INT_8: case PLANK_CONVERTED_INT_16:
    case PLANK_CONVERTED_INT_32: case PLANK_CONVERTED_INT_64:
        lt->kind = PLANK_LOGICAL_INTEGER;
        lt->bit_width = (int8_t)(8 << (e->converted_type - PLANK_CONVERTED_INT_8));
        lt->is_signed = true;
        break;
    case PLANK_CONVERTED_JSON: lt->kind = PLANK_LOGICAL_JSON; break;
    case PLANK_CONVERTED_BSON: lt->kind = PLANK_LOGICAL_BSON; break;
    case PLANK_CONVERTED_INTERVAL: lt->kind = PLANK_LOGICAL_INTERVAL; break;
    default: lt->kind = PLANK_LOGICAL_NONE; break;
    }
}

/* Effective logical type: the LogicalType field wins; an empty or unknown
 * LogicalType falls back to the ConvertedType (what readers of older format
 * versions would see). */
static void effective_logical(const pk_schema_element *e, plank_logical_type *lt) {
    if (e->has_logical_type && e->logical.kind != PLANK_LOGICAL_NONE &&
        !(e->logical.kind == PLANK_LOGICAL_UNRECOGNIZED && e->converted_type >= 0)) {
        *lt = e->logical;
        return;
    }
    logical_from_converted(e, lt);
}

typedef struct schema_builder {
    const pk_schema_element *elems;
    int32_t num_elems;
    pk_arena *arena;
    plank_schema_node *nodes;
    int32_t num_columns;
    int32_t next;      /* next schema element to consume */
    plank_error *err;
} schema_builder;

/* ---- Output names ----------------------------------------------------------
 *
 * Sibling fields may share a name, differ only in case, or have an empty one;
 * consumers keyed by name (JSON objects, SQL columns, Arrow struct fields
 * looked up by name) would then lose columns. Each node's output_name is its
 * name made unique among its siblings as DuckDB names a file's columns
 * (observed with DuckDB 1.x on files with such names):
 *  1. In order, ignoring ASCII case: the first use of a name keeps it; a later
 *     one becomes name_K, K taken from a counter kept per (lowercased) name,
 *     starting at 1 and raised until name_K is unused; name_K is then used.
 *     "a","a","A","a_1","a" -> "a","a_1","A_2","a_1_1","a_3".
 *  2. Then an empty name (only the first can still be empty: a second became
 *     "_1") becomes "C" followed by its 0-based position among the siblings
 *     ("", "x", "" -> "C0", "x", "_1"). Where that name is taken (DuckDB then
 *     fails with a duplicate column), rule 1 goes on from it ("C0_1"). */

typedef struct name_slot {
    const char *low; /* lowercased, NUL-terminated; NULL: empty slot */
    uint64_t count;
} name_slot;

typedef struct name_set {
    name_slot *slots;
    size_t mask;
} name_set;

static uint64_t name_hash(const char *s) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++) h = (h ^ (uint8_t)*s) * UINT64_C(1099511628211);
    return h;
}

static name_slot *name_find(name_set *t, const char *low, bool *found) {
    size_t i = (size_t)name_hash(low) & t->mask;
    while (t->slots[i].low && strcmp(t->slots[i].low, low) != 0) i = (i + 1) & t->mask;
    *found = t->slots[i].low != NULL;
    return &t->slots[i];
}

/* s (len bytes) + suffix, as written and lowercased, in the arena. */
static plank_status name_concat(pk_arena *ar, const char *s, const char *suffix, char **out,
                                char **low, plank_error *err) {
    size_t a = strlen(s), b = strlen(suffix);
    char *p = pk_arena_alloc(ar, 2 * (a + b + 1));
    if (!p) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(p, s, a);
    memcpy(p + a, suffix, b + 1);
    char *l = p + a + b + 1;
    for (size_t i = 0; i <= a + b; i++)
        l[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
    *out = p;
    *low = l;
    return PLANK_OK;
}

/* Rule 1 for one name: *out is name or its first unused name_K. */
static plank_status name_claim(name_set *t, pk_arena *ar, const char *name, const char **out,
                               plank_error *err) {
    char *copy, *low;
    PK_FORWARD(name_concat(ar, name, "", &copy, &low, err));
    bool found;
    name_slot *base = name_find(t, low, &found);
    if (!found) {
        base->low = low;
        base->count = 1;
        *out = name;
        return PLANK_OK;
    }
    for (;;) {
        char suffix[24];
        snprintf(suffix, sizeof suffix, "_%llu", (unsigned long long)base->count);
        PK_FORWARD(name_concat(ar, name, suffix, &copy, &low, err));
        name_slot *s = name_find(t, low, &found);
        if (!found) {
            s->low = low;
            s->count = 1;
            *out = copy;
            return PLANK_OK;
        }
        base->count++;
    }
}

static plank_status output_names(schema_builder *b, const plank_schema_node *n) {
    int32_t nc = n->num_children;
    size_t cap = 16;
    while (cap < 4 * (size_t)nc + 8) cap *= 2; /* the names and one C<i> */
    name_set t = {pk_arena_alloc(b->arena, sizeof(name_slot) * cap), cap - 1};
    if (!t.slots) return pk_error_set(b->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    memset(t.slots, 0, sizeof(name_slot) * cap);
    int32_t empty = -1;
    for (int32_t i = 0; i < nc; i++) {
        plank_schema_node *c = &b->nodes[n->children[i]];
        PK_FORWARD(name_claim(&t, b->arena, c->name, &c->output_name, b->err));
        if (c->output_name[0] == '\0') empty = i;
    }
    if (empty >= 0) {
        char cname[16];
        snprintf(cname, sizeof cname, "C%d", (int)empty);
        plank_schema_node *c = &b->nodes[n->children[empty]];
        const char *claimed;
        PK_FORWARD(name_claim(&t, b->arena, cname, &claimed, b->err));
        if (claimed == cname) { /* unused: keep a copy, not the stack buffer */
            char *low;
            char *copy;
            PK_FORWARD(name_concat(b->arena, cname, "", &copy, &low, b->err));
            claimed = copy;
        }
        c->output_name = claimed;
    }
    return PLANK_OK;
}

static plank_status build_node(schema_builder *b, int32_t parent, int depth, int16_t def,
                               int16_t rep, const char *parent_path) {
    int32_t idx = b->next++;
    if (idx >= b->num_elems)
        return PK_CORRUPT(b->err, "schema: children counts exceed the %d schema elements",
                          (int)b->num_elems);
    if (depth > 128) return PK_CORRUPT(b->err, "schema: nesting deeper than 128 levels");
    const pk_schema_element *e = &b->elems[idx];
    plank_schema_node *n = &b->nodes[idx];
    n->name = e->name;
    n->output_name = e->name; /* the root's; a parent sets its children's */
    n->index = idx;
    n->parent = parent;
    n->has_field_id = e->has_field_id;
    n->field_id = e->field_id;
    n->converted_type = (plank_converted_type)e->converted_type;
    n->converted_precision = e->precision;
    n->converted_scale = e->scale;
    n->has_logical_type = e->has_logical_type;
    effective_logical(e, &n->logical);
    n->column = -1;
    if (parent < 0) {
        n->repetition = PLANK_REQUIRED;
        n->path = "";
    } else {
        if (e->repetition < 0 || e->repetition > 2)
            return PK_CORRUPT(b->err, "schema element %d (%s): missing or invalid repetition",
                              (int)idx, e->name);
        n->repetition = (plank_repetition)e->repetition;
        if (n->repetition != PLANK_REQUIRED) def++;
        if (n->repetition == PLANK_REPEATED) rep++;
        size_t pl = strlen(parent_path), nl = strlen(e->name);
        char *path = pk_arena_alloc(b->arena, pl + nl + 2);
        if (!path) return pk_error_set(b->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        if (pl) {
            memcpy(path, parent_path, pl);
            path[pl] = '.';
            memcpy(path + pl + 1, e->name, nl + 1);
        } else {
            memcpy(path, e->name, nl + 1);
        }
        n->path = path;
    }
    n->max_definition_level = def;
    n->max_repetition_level = rep;
    int32_t nc = e->num_children;
    bool group = nc > 0 || parent < 0 || (e->type < 0 && nc >= 0);
    if (nc < 0) nc = 0;
    if (group) {
        n->physical_type = PLANK_PHYSICAL_NONE;
        if (nc > b->num_elems - b->next)
            return PK_CORRUPT(b->err, "schema element %d (%s) claims %d children, only %d left",
                              (int)idx, e->name, (int)nc, (int)(b->num_elems - b->next));
        int32_t *children = pk_arena_alloc(b->arena, sizeof(int32_t) * (size_t)(nc ? nc : 1));
        if (!children) return pk_error_set(b->err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        n->children = children;
        n->num_children = nc;
        for (int32_t i = 0; i < nc; i++) {
            children[i] = b->next;
            PK_FORWARD(build_node(b, idx, depth + 1, def, rep, n->path));
        }
        PK_FORWARD(output_names(b, n));
        if (nc == 0 && parent >= 0)
            return PK_CORRUPT(b->err, "schema element %d (%s): group without children", (int)idx,
                              e->name);
    } else {
        if (e->type < PLANK_BOOLEAN || e->type > PLANK_FIXED_LEN_BYTE_ARRAY)
            return PK_CORRUPT(b->err, "schema element %d (%s): invalid physical type %d",
                              (int)idx, e->name, (int)e->type);
        n->physical_type = (plank_physical_type)e->type;
        n->type_length = 0;
        if (n->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY) {
            if (e->type_length <= 0 || e->type_length > (1 << 24))
                return PK_CORRUPT(b->err,
                                  "schema element %d (%s): FIXED_LEN_BYTE_ARRAY with invalid "
                                  "type_length %d",
                                  (int)idx, e->name, (int)e->type_length);
            n->type_length = e->type_length;
        }
        n->column = b->num_columns++;
    }
    return PLANK_OK;
}

plank_status pk_schema_tree_build(const pk_schema_element *elems, int32_t num_elems,
                                  pk_arena *arena, plank_schema_node **nodes,
                                  int32_t *num_columns, int32_t **leaf_nodes, plank_error *err) {
    if (num_elems < 1) return PK_CORRUPT(err, "footer: empty schema");
    schema_builder b = {elems, num_elems, arena, NULL, 0, 0, err};
    b.nodes = pk_arena_alloc(arena, sizeof(plank_schema_node) * (size_t)num_elems);
    if (!b.nodes) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    PK_FORWARD(build_node(&b, -1, 0, 0, 0, ""));
    if (b.next != num_elems)
        return PK_CORRUPT(err, "schema: %d elements but the tree uses %d", (int)num_elems,
                          (int)b.next);
    int32_t *leaves = pk_arena_alloc(arena, sizeof(int32_t) * (size_t)(b.num_columns + 1));
    if (!leaves) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < num_elems; i++)
        if (b.nodes[i].column >= 0) leaves[b.nodes[i].column] = i;
    *nodes = b.nodes;
    *num_columns = b.num_columns;
    *leaf_nodes = leaves;
    return PLANK_OK;
}
