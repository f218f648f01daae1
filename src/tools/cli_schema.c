/*
 * cli_schema.c: `plank schema FILE`, the schema tree one node per line,
 * indented by depth:
 *
 *   NAME: REPETITION TYPE[(LENGTH)] [logical=..] [converted=..] [field_id=..]
 *         [column=C max_def=D max_rep=R]
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

static void put_node(cli_buf *b, const plank_schema_node *n, int depth) {
    for (int i = 0; i < depth; i++) cli_buf_puts(b, "  ");
    cli_buf_puts(b, n->name ? n->name : "");
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
    if (n->column >= 0)
        cli_buf_printf(b, " column=%d max_def=%d max_rep=%d", (int)n->column,
                       (int)n->max_definition_level, (int)n->max_repetition_level);
    cli_buf_putc(b, '\n');
}

int cli_schema_main(int argc, char **argv) {
    cli_options o;
    int rc = cli_parse_options(argc, argv, 0, "schema", &o);
    if (rc) return rc;
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
        put_node(&out.buf, n, depth[i]);
        cli_out_maybe_flush(&out);
    }
    free(depth);
    plank_reader_close(r);
    if (!cli_out_close(&out)) return cli_fail(o.file, "cannot write the output");
    return CLI_EXIT_OK;
}
