/*
 * ydoc: the line index of a YAML text, and the one translator of libcyaml's
 * error log into a diag that the scenario, topology file and Kubernetes
 * manifest readers share: key path, line, and each reader's wording.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/ydoc.h"

enum t_kind { T_HOST, T_SWITCH };

struct t_node {
	char *name;
	enum t_kind kind;
};

struct t_opt {
	char *size;
};

struct t_doc {
	struct t_node *nodes;
	unsigned nodes_count;
	char *note;
	struct t_opt *opt;
};

static const cyaml_strval_t t_kinds[] = {
    {"host", T_HOST},
    {"switch", T_SWITCH},
};

static const cyaml_schema_field_t t_node_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct t_node, name, 0, CYAML_UNLIMITED),
    CYAML_FIELD_ENUM("kind", CYAML_FLAG_STRICT, struct t_node, kind, t_kinds,
		     CYAML_ARRAY_LEN(t_kinds)),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t t_node_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct t_node, t_node_fields),
};

static const cyaml_schema_field_t t_opt_fields[] = {
    CYAML_FIELD_STRING_PTR("size", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct t_opt, size, 0,
			   CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t t_doc_fields[] = {
    CYAML_FIELD_SEQUENCE("nodes", CYAML_FLAG_POINTER, struct t_doc, nodes, &t_node_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("note", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct t_doc, note, 0,
			   CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("opt", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct t_doc, opt,
			    t_opt_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t t_doc_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct t_doc, t_doc_fields),
};

/* Load @text with the t_ schema, which must fail; the diag of the translator. */
static struct diag refuse(const char *text, unsigned words)
{
	struct ydoc_cylog log = {0};
	cyaml_config_t cfg = {
	    .log_level = CYAML_LOG_ERROR,
	    .log_fn = ydoc_cyaml_log,
	    .log_ctx = &log,
	    .mem_fn = cyaml_mem,
	    .flags = CYAML_CFG_DEFAULT,
	};
	struct diag d = {0};
	struct t_doc *doc = NULL;
	struct ydoc *y = NULL;
	cyaml_err_t cerr;

	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), 0, "%s", d.msg);
	cerr = cyaml_load_data((const uint8_t *)text, strlen(text), &cfg, &t_doc_value,
			       (cyaml_data_t **)&doc, NULL);
	cr_assert_neq(cerr, CYAML_OK, "the load was meant to fail");
	cr_assert_eq(ydoc_cyaml_diag(y, &t_doc_value, &log, cerr, words, &d), -EINVAL);
	ydoc_free(y);
	return d;
}

static const char unknown_key[] = "nodes:\n"
				  "  - {name: h0, kind: host}\n"
				  "  - name: sw0\n"
				  "    kind: switch\n"
				  "    speed: 100Gbps\n";

Test(ydoc, an_unknown_key_names_its_path_line_and_the_keys_there_are)
{
	struct diag d = refuse(unknown_key, 0);

	cr_assert_str_eq(d.file, "t.yaml");
	cr_assert_eq(d.line, 5);
	cr_assert_str_eq(d.path, "nodes[1].speed");
	cr_assert_str_eq(d.msg, "unknown key (expected one of: name, kind)");
}

Test(ydoc, the_name_key_wording_quotes_the_key)
{
	struct diag d = refuse(unknown_key, YDOC_CY_NAME_KEY);

	cr_assert_str_eq(d.path, "nodes[1].speed");
	cr_assert_str_eq(d.msg, "unknown key \"speed\" (expected name, kind)");
}

Test(ydoc, a_missing_key_names_the_mapping_that_lacks_it)
{
	struct diag d = refuse("nodes:\n  - {name: h0, kind: host}\n  - {name: h1}\n", 0);

	cr_assert_eq(d.line, 3);
	cr_assert_str_eq(d.path, "nodes[1]");
	cr_assert_str_eq(d.msg, "missing key \"kind\"");
}

Test(ydoc, an_enum_value_lists_the_values_there_are)
{
	struct diag d = refuse("nodes:\n  - name: h0\n    kind: hots\n", 0);

	cr_assert_eq(d.line, 3);
	cr_assert_str_eq(d.path, "nodes[0].kind");
	cr_assert_str_eq(d.msg, "\"hots\" is not one of: host, switch");
}

Test(ydoc, a_wrong_kind_of_value_says_what_was_expected_in_each_wording)
{
	const char *text = "note: [a, b]\nnodes: 3\n";
	struct diag d = refuse(text, 0);

	cr_assert_eq(d.line, 1);
	cr_assert_str_eq(d.path, "note");
	cr_assert_str_eq(d.msg, "expected a single value, not a list");
	d = refuse(text, YDOC_CY_FOUND);
	cr_assert_str_eq(d.msg, "expected a single value, found a list");
	d = refuse("nodes:\n  - 3\n", 0);
	cr_assert_str_eq(d.path, "nodes[0]");
	cr_assert_str_eq(d.msg, "expected a mapping, not a single value");
	d = refuse("nodes:\n  - 3\n", YDOC_CY_KEYS);
	cr_assert_str_eq(d.msg, "expected a mapping of keys, not a single value");
}

/* A value an alias brings is reported where the alias stands, not where its anchor is. */
Test(ydoc, an_aliased_value_is_blamed_where_the_alias_stands)
{
	struct diag d = refuse("nodes:\n"
			       "  - &n {name: h0, kind: host}\n"
			       "opt: *n\n",
			       0);

	cr_assert_eq(d.line, 3);
	cr_assert_str_eq(d.path, "opt.name");
	cr_assert_str_eq(d.msg, "unknown key (expected one of: size)");
}

Test(ydoc, line_near_falls_back_to_the_nearest_enclosing_key)
{
	const char *text = "a:\n  b:\n    - x\n    - y\n";
	struct diag d = {0};
	struct ydoc *y = NULL;

	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), 0);
	cr_assert_eq(ydoc_line_near(y, "a.b[1]"), 4);
	cr_assert_eq(ydoc_line(y, "a.b[1].c.d"), 0);
	cr_assert_eq(ydoc_line_near(y, "a.b[1].c.d"), 4);
	cr_assert_eq(ydoc_line_near(y, "a.z"), 1);
	cr_assert_eq(ydoc_line_near(y, "q"), 0);
	cr_assert_eq(ydoc_line_near(NULL, "a"), 0);
	ydoc_free(y);
}

/* "a: &a [x, ... 254 times]" (256 nodes with its start and end), then @n aliases of it. */
static char *aliases_text(int n)
{
	size_t size = 16 + 254 * 3 + 16 + (size_t)n * 4, k = 0;
	char *t = malloc(size);

	if (!t)
		abort();
	k += (size_t)snprintf(t + k, size - k, "a: &a [");
	for (int i = 0; i < 254; i++)
		k += (size_t)snprintf(t + k, size - k, "%sx", i ? ", " : "");
	k += (size_t)snprintf(t + k, size - k, "]\nb: [");
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(t + k, size - k, "%s*a", i ? ", " : "");
	snprintf(t + k, size - k, "]\n");
	return t;
}

Test(ydoc, aliases_may_add_at_most_65536_nodes)
{
	struct diag d = {0};
	struct ydoc *y = NULL;
	char *text;

	/* each alias of the 256-node list adds 255: 257 of them add 65535 */
	text = aliases_text(257);
	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), 0, "%s", d.msg);
	ydoc_free(y);
	free(text);
	text = aliases_text(258);
	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), -EINVAL);
	cr_assert_null(y);
	cr_assert_eq(d.line, 2);
	cr_assert_str_eq(d.msg, "aliases (*a) expand to more than 65536 YAML nodes: write the "
				"values out");
	free(text);
	/* nested: an anchor holding aliases weighs what they expand to */
	text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
	memset(&d, 0, sizeof(d));
	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), -EINVAL);
	cr_assert_eq(d.line, 5, "%d: %s", d.line, d.msg);
}

Test(ydoc, an_alias_inside_its_own_anchor_is_refused)
{
	const char *text = "a: &x\n  b: [1, *x]\n";
	struct diag d = {0};
	struct ydoc *y = NULL;

	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), -EINVAL);
	cr_assert_null(y);
	cr_assert_eq(d.line, 2);
	cr_assert_str_eq(d.msg, "alias *x inside its own anchor &x: a value cannot hold itself");
	/* once the anchor's node has ended, an alias of it is fine */
	text = "a: &x\n  b: 1\nc: *x\n";
	cr_assert_eq(ydoc_parse("t.yaml", text, strlen(text), &y, &d), 0, "%s", d.msg);
	ydoc_free(y);
}
