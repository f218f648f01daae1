/*
 * cli_schema.c: `plank schema FILE`, the schema tree one node per line,
 * indented by depth:
 *
 *   NAME: REPETITION TYPE[(LENGTH)] [logical=..] [converted=..] [field_id=..]
 *         [shredded=..|unshredded] [column=C max_def=D max_rep=R]
 *
 * (shredded= on a VARIANT group summarises its typed_value tree: a type for
 * a primitive, array<..> for a list, {field:..,..} for an object, "variant"
 * where a field keeps only its value column)
 *
 * then, after a line "arrow:", the Arrow schema plank exports for the file
 * (plank_reader_arrow_schema with default options), one field per line:
 *
 *   NAME: ARROW-TYPE ["FORMAT"] [not null] [field_id=..] [extension=..]
 */
#include <stdlib.h>

#include "cli.h"

static const char *repetition_name(plank_repetition r) {
    switch (r) {
    case PLANK_REQUIRED: return "required";
    case PLANK_OPTIONAL: return "optional";
    case PLANK_REPEATED: return "repeated";
    default: return "unknown-repetition";
    }
}

static const plank_schema_node *child_named(const plank_reader *r, const plank_schema_node *n,
                                            const char *name) {
    for (int32_t k = 0; k < n->num_children; k++) {
        const plank_schema_node *c = plank_reader_schema_node(r, n->children[k]);
        if (c && c->name && strcmp(c->name, name) == 0) return c;
    }
    return NULL;
}

/* What a shredded typed_value holds, in variant terms: a primitive type
 * name, array<...> for a LIST of element groups, {field: ..., ...} for an
 * object; "variant" where only a value column is left (not shredded). */
static void put_shredding(cli_buf *b, const plank_reader *r, const plank_schema_node *t,
                          int depth) {
    char text[256];
    if (depth > 64) {
        cli_buf_puts(b, "...");
        return;
    }
    if (t->num_children == 0) {
        const plank_logical_type *lt = &t->logical;
        if (lt->kind == PLANK_LOGICAL_NONE)
            cli_buf_puts(b, plank_physical_type_name(t->physical_type));
        else
            cli_buf_puts(b, plank_logical_type_format(lt, text, sizeof text));
        return;
    }
    if (t->logical.kind == PLANK_LOGICAL_LIST && t->num_children == 1) {
        const plank_schema_node *rep = plank_reader_schema_node(r, t->children[0]);
        const plank_schema_node *el =
            rep && rep->num_children == 1 ? plank_reader_schema_node(r, rep->children[0]) : NULL;
        const plank_schema_node *tv = el ? child_named(r, el, "typed_value") : NULL;
        cli_buf_puts(b, "array<");
        if (tv) put_shredding(b, r, tv, depth + 1);
        else cli_buf_puts(b, "variant");
        cli_buf_putc(b, '>');
        return;
    }
    cli_buf_putc(b, '{');
    for (int32_t k = 0; k < t->num_children; k++) {
        const plank_schema_node *f = plank_reader_schema_node(r, t->children[k]);
        if (!f) continue;
        if (k) cli_buf_putc(b, ',');
        cli_buf_puts(b, f->name ? f->name : "");
        cli_buf_putc(b, ':');
        const plank_schema_node *tv = child_named(r, f, "typed_value");
        if (tv) put_shredding(b, r, tv, depth + 1);
        else cli_buf_puts(b, "variant");
    }
    cli_buf_putc(b, '}');
}

static void put_node(cli_buf *b, const plank_reader *r, const plank_schema_node *n, int depth) {
    for (int i = 0; i < depth; i++) cli_buf_puts(b, "  ");
    cli_buf_puts(b, n->name ? n->name : "");
    /* A repeated or empty name: the unique one rows and Arrow fields use. */
    if (n->output_name && n->name && strcmp(n->output_name, n->name) != 0)
        cli_buf_printf(b, " (as %s)", n->output_name);
    cli_buf_puts(b, ": ");
    if (n->parent < 0) {
        cli_buf_puts(b, "root");
    } else {
        cli_buf_puts(b, repetition_name(n->repetition));
        cli_buf_putc(b, ' ');
        if (n->num_children > 0 || n->physical_type == PLANK_PHYSICAL_NONE) cli_buf_puts(b, "group");
        else cli_buf_puts(b, plank_physical_type_name(n->physical_type));
        if (n->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY)
            cli_buf_printf(b, "(%d)", (int)n->type_length);
    }
    if (n->logical.kind != PLANK_LOGICAL_NONE) {
        char text[256];
        cli_buf_printf(b, " logical=%s", plank_logical_type_format(&n->logical, text, sizeof text));
    }
    if (n->converted_type != PLANK_CONVERTED_NONE) {
        cli_buf_printf(b, " converted=%s", plank_converted_type_name(n->converted_type));
        if (n->converted_type == PLANK_CONVERTED_DECIMAL)
            cli_buf_printf(b, "(%d,%d)", (int)n->converted_precision, (int)n->converted_scale);
    }
    if (n->has_field_id) cli_buf_printf(b, " field_id=%d", (int)n->field_id);
    if (n->logical.kind == PLANK_LOGICAL_VARIANT) {
        const plank_schema_node *tv = child_named(r, n, "typed_value");
        if (tv) {
            cli_buf_puts(b, " shredded=");
            put_shredding(b, r, tv, 0);
        } else {
            cli_buf_puts(b, " unshredded");
        }
    }
    if (n->column >= 0)
        cli_buf_printf(b, " column=%d max_def=%d max_rep=%d", (int)n->column,
                       (int)n->max_definition_level, (int)n->max_repetition_level);
    cli_buf_putc(b, '\n');
}

static void put_arrow_field(cli_buf *b, const struct ArrowSchema *f, int depth) {
    char value[256];
    for (int i = 0; i < depth; i++) cli_buf_puts(b, "  ");
    cli_buf_puts(b, f->name ? f->name : "");
    cli_buf_puts(b, ": ");
    const char *format = f->format ? f->format : "";
    cli_arrow_type_name(b, format);
    cli_buf_printf(b, " \"%s\"", format);
    if (!(f->flags & ARROW_FLAG_NULLABLE)) cli_buf_puts(b, " not null");
    if (f->flags & ARROW_FLAG_MAP_KEYS_SORTED) cli_buf_puts(b, " keys_sorted");
    if (cli_arrow_metadata_value(f->metadata, "PARQUET:field_id", value, sizeof value))
        cli_buf_printf(b, " field_id=%s", value);
    if (cli_arrow_metadata_value(f->metadata, "ARROW:extension:name", value, sizeof value))
        cli_buf_printf(b, " extension=%s", value);
    cli_buf_putc(b, '\n');
    for (int64_t k = 0; k < f->n_children && depth < 1000; k++)
        if (f->children && f->children[k]) put_arrow_field(b, f->children[k], depth + 1);
}

int cli_schema_main(int argc, char **argv) {
    cli_options o;
    int rc = cli_parse_options(argc, argv, CLI_OPT_DATASET, "schema", &o);
    if (rc) return rc;
    if (cli_is_dataset(&o)) return cli_dataset_schema(&o);
    plank_reader *r;
    if ((rc = cli_open(o.file, NULL, &r))) return rc;

    int32_t count = plank_reader_num_schema_nodes(r);
    /* Depth of each node from its parent's; nodes come in depth-first order
     * so a parent always precedes its children. */
    int *depth = malloc(sizeof *depth * (size_t)(count > 0 ? count : 1));
    if (!depth) {
        plank_reader_close(r);
        return cli_fail(o.file, "out of memory");
    }
    cli_out out;
    cli_out_init(&out, stdout);
    for (int32_t i = 0; i < count; i++) {
        const plank_schema_node *n = plank_reader_schema_node(r, i);
        depth[i] = (n->parent >= 0 && n->parent < i) ? depth[n->parent] + 1 : 0;
        put_node(&out.buf, r, n, depth[i]);
        cli_out_maybe_flush(&out);
    }
    free(depth);

    struct ArrowSchema as;
    plank_error err;
    plank_error_init(&err);
    memset(&as, 0, sizeof as);
    plank_status st = plank_reader_arrow_schema(r, NULL, &as, &err);
    if (st == PLANK_OK) {
        cli_buf_puts(&out.buf, "arrow:\n");
        for (int64_t k = 0; k < as.n_children; k++)
            if (as.children && as.children[k]) put_arrow_field(&out.buf, as.children[k], 1);
        as.release(&as);
    }
    bool written = cli_out_close(&out);
    rc = st == PLANK_OK ? CLI_EXIT_OK : cli_report(o.file, st, &err, -1, -1);
    plank_reader_close(r);
    if (!written) return cli_fail(o.file, "cannot write the output");
    return rc;
}
