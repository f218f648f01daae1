/*
 * pk_schema_tree.c: the schema tree of a SchemaElement list (depth-first
 * order): parents, children, dotted paths, max definition and repetition
 * levels, leaf column indexes and the effective logical type (LogicalType
 * merged with the legacy ConvertedType). Shared by the reader (decoded
 * footers) and the writer (the schema it is given).
 */
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
