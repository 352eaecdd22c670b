/*
 * Topology files (topology kind: file): an explicit fabric in YAML,
 *
 *   nodes:
 *     - {name: h0, kind: host}
 *     - {name: sw0, kind: switch}
 *   links:
 *     - {a: h0, b: sw0, rate: 100Gbps, cable: 2m}   # or delay: 1us
 *
 * loaded with libcyaml and checked so that every mistake names the file,
 * its line and the key path ("links[3].b"): ydoc indexes the same text for
 * the lines, and libcyaml's error log (a message, then a backtrace that
 * names lines) is turned into the same one-line form.
 *
 * A link's rate, and its delay when it gives neither cable nor delay, come
 * from topology.link when one end is a host, from topology.uplink when both
 * ends are switches. Hosts are numbered in the order the nodes list them;
 * a node's ports follow the order of the links.
 *
 * A host is a server: with several links, one NIC port per link in the
 * order of its links, host nodes "<name>/nic0".. (so node names may not
 * hold '/'); "gpus: N" gives its GPUs (default: one per link).
 */
#include "sim/readers/topo_read.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/engine/textsafe.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

#define TF_PATH_MAX 64

struct tf_node {
	char *name;
	enum topo_node_kind kind;
	char *gpus; /* optional, hosts only */
};

struct tf_link {
	char *a, *b;
	char *rate, *cable, *delay; /* optional, with units */
};

struct tf_doc {
	struct tf_node *nodes;
	unsigned nodes_count;
	struct tf_link *links;
	unsigned links_count;
};

static const cyaml_strval_t tf_kinds[] = {
    {"host", TOPO_HOST},
    {"switch", TOPO_SWITCH},
};

static const cyaml_schema_field_t tf_node_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_DEFAULT, struct tf_node, name, 0, CYAML_UNLIMITED),
    CYAML_FIELD_ENUM("kind", CYAML_FLAG_STRICT, struct tf_node, kind, tf_kinds,
		     CYAML_ARRAY_LEN(tf_kinds)),
    CYAML_FIELD_STRING_PTR("gpus", CYAML_FLAG_OPTIONAL, struct tf_node, gpus, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END};

static const cyaml_schema_value_t tf_node_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct tf_node, tf_node_fields),
};

static const cyaml_schema_field_t tf_link_fields[] = {
    CYAML_FIELD_STRING_PTR("a", CYAML_FLAG_DEFAULT, struct tf_link, a, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("b", CYAML_FLAG_DEFAULT, struct tf_link, b, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("rate", CYAML_FLAG_OPTIONAL, struct tf_link, rate, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("cable", CYAML_FLAG_OPTIONAL, struct tf_link, cable, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("delay", CYAML_FLAG_OPTIONAL, struct tf_link, delay, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END};

static const cyaml_schema_value_t tf_link_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct tf_link, tf_link_fields),
};

static const cyaml_schema_field_t tf_doc_fields[] = {
    CYAML_FIELD_SEQUENCE("nodes", CYAML_FLAG_POINTER, struct tf_doc, nodes, &tf_node_schema, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER, struct tf_doc, links, &tf_link_schema, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_END};

static const cyaml_schema_value_t tf_doc_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct tf_doc, tf_doc_fields),
};

static int tf_err(struct diag *d, const char *file, const struct ydoc *y, const char *path,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int tf_err(struct diag *d, const char *file, const struct ydoc *y, const char *path,
		  const char *fmt, ...)
{
	char msg[sizeof(d->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(d, file, ydoc_line_near(y, path), path, "%s", msg);
	return -EINVAL;
}

/* Names by which links refer to nodes, sorted for lookup. */
struct tf_ref {
	const char *name;
	uint32_t index;
};

static int tf_ref_cmp(const void *x, const void *y)
{
	const struct tf_ref *p = x, *q = y;
	int c = strcmp(p->name, q->name);

	if (c)
		return c;
	return p->index < q->index ? -1 : p->index > q->index;
}

static int tf_ref_name_cmp(const void *x, const void *y)
{
	return strcmp(((const struct tf_ref *)x)->name, ((const struct tf_ref *)y)->name);
}

static int32_t tf_lookup(const struct tf_ref *refs, uint32_t n, const char *name)
{
	struct tf_ref key = {name, 0};
	const struct tf_ref *r = bsearch(&key, refs, n, sizeof(*refs), tf_ref_name_cmp);

	return r ? (int32_t)r->index : -1;
}

/* What a node name may not hold: link and port names are built from it. */
static int tf_check_name(const char *name, const char *file, const struct ydoc *y, const char *path,
			 struct diag *d)
{
	const char *c;
	char shown[4 * TOPO_NAME_MAX + 1];

	if (!name[0])
		return tf_err(d, file, y, path, "empty node name");
	/* the outputs name nodes raw in CSV rows and JSON: text, no quoting needed */
	for (c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == ',' || *c == '"')
			return tf_err(d, file, y, path,
				      "node name \"%s\" may not contain control characters, ',' or "
				      "'\"' (the CSV outputs name nodes in their rows)",
				      txt_term(shown, sizeof(shown), name));
	if (!txt_utf8_valid(name))
		return tf_err(d, file, y, path, "node name \"%s\" is not UTF-8",
			      txt_term(shown, sizeof(shown), name));
	if (strlen(name) >= TOPO_NAME_MAX)
		return tf_err(d, file, y, path, "node name \"%s\" is longer than %d characters",
			      name, TOPO_NAME_MAX - 1);
	for (c = name; *c; c++) {
		if (*c == ':' || *c == '#')
			return tf_err(
			    d, file, y, path,
			    "node name \"%s\" may not contain '%c' (port and link names use it)",
			    name, *c);
		if (*c == '/')
			return tf_err(
			    d, file, y, path,
			    "node name \"%s\" may not contain '/' (NIC and GPU names use it)",
			    name);
		if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
			return tf_err(d, file, y, path, "node name \"%s\" may not contain spaces",
				      name);
	}
	return 0;
}

static int tf_units_err(struct diag *d, const char *file, const struct ydoc *y, const char *path,
			const char *value, int err, const char *what, const char *example)
{
	if (err == UNITS_ESYNTAX || err == UNITS_ENOUNIT)
		return tf_err(d, file, y, path, "\"%s\" is not a %s (e.g. %s)", value, what,
			      example);
	return tf_err(d, file, y, path, "\"%s\" is not a %s: %s", value, what, units_strerror(err));
}

/* Rate and delay of link @i: its own, or the default of its kind. */
static int tf_link_spec(const struct topo_spec *spec, const struct tf_link *l, uint32_t i,
			int to_host, const char *file, const struct ydoc *y,
			struct topo_linkspec *ls, struct diag *d)
{
	const struct topo_linkspec *def = to_host ? &spec->link : &spec->uplink;
	char path[TF_PATH_MAX];
	uint64_t mm;
	int err;

	*ls = *def;
	if (l->rate) {
		snprintf(path, sizeof(path), "links[%" PRIu32 "].rate", i);
		err = units_rate(l->rate, &ls->rate_bps);
		if (err)
			return tf_units_err(d, file, y, path, l->rate, err, "rate",
					    "100Gbps, 400Gb/s");
		if (ls->rate_bps == 0)
			return tf_err(d, file, y, path, "rate must be positive");
	} else if (ls->rate_bps == 0) {
		snprintf(path, sizeof(path), "links[%" PRIu32 "]", i);
		return tf_err(d, file, y, path, "no rate given, and topology.%s.rate is 0",
			      to_host ? "link" : "uplink");
	}
	if (l->cable && l->delay) {
		snprintf(path, sizeof(path), "links[%" PRIu32 "].delay", i);
		return tf_err(d, file, y, path, "give cable or delay, not both");
	}
	if (l->cable) {
		snprintf(path, sizeof(path), "links[%" PRIu32 "].cable", i);
		err = units_length(l->cable, &mm);
		if (err)
			return tf_units_err(d, file, y, path, l->cable, err, "length", "2m, 30cm");
		if (mm > UINT64_MAX / SIMTIME_PS_PER_MM)
			return tf_err(d, file, y, path, "cable \"%s\" is too long", l->cable);
		ls->delay = mm * SIMTIME_PS_PER_MM;
	} else if (l->delay) {
		snprintf(path, sizeof(path), "links[%" PRIu32 "].delay", i);
		err = units_time(l->delay, &ls->delay);
		if (err)
			return tf_units_err(d, file, y, path, l->delay, err, "time", "1us, 500ns");
	}
	return 0;
}

/* Check the names of the nodes; @refs comes back sorted by name. */
static int tf_check_nodes(const struct tf_doc *doc, struct tf_ref *refs, const char *file,
			  const struct ydoc *y, struct diag *d)
{
	char path[TF_PATH_MAX], first[TF_PATH_MAX];
	uint32_t i, dup = UINT32_MAX, orig = 0;
	int err;

	for (i = 0; i < doc->nodes_count; i++) {
		snprintf(path, sizeof(path), "nodes[%" PRIu32 "].name", i);
		err = tf_check_name(doc->nodes[i].name, file, y, path, d);
		if (err)
			return err;
		refs[i] = (struct tf_ref){doc->nodes[i].name, i};
	}
	qsort(refs, doc->nodes_count, sizeof(*refs), tf_ref_cmp);
	/* report the first repeat in file order; its run starts at the original */
	for (i = 1; i < doc->nodes_count; i++) {
		if (strcmp(refs[i].name, refs[i - 1].name) == 0 && refs[i].index < dup) {
			dup = refs[i].index;
			orig = refs[i - 1].index;
		}
	}
	if (dup == UINT32_MAX)
		return 0;
	snprintf(path, sizeof(path), "nodes[%" PRIu32 "].name", dup);
	snprintf(first, sizeof(first), "nodes[%" PRIu32 "].name", orig);
	return tf_err(d, file, y, path, "duplicate node name \"%s\" (first at line %d)",
		      doc->nodes[dup].name, ydoc_line_near(y, first));
}

/* GPUs of host @i: its gpus key, else 0 (one per NIC). */
static int tf_gpus(const struct tf_node *n, uint32_t i, const char *file, const struct ydoc *y,
		   uint32_t *out, struct diag *d)
{
	char path[TF_PATH_MAX];
	unsigned long v;
	char *end;

	*out = 0;
	if (!n->gpus)
		return 0;
	snprintf(path, sizeof(path), "nodes[%" PRIu32 "].gpus", i);
	if (n->kind != TOPO_HOST)
		return tf_err(d, file, y, path, "a switch has no GPUs (gpus: is for hosts)");
	v = strtoul(n->gpus, &end, 10);
	if (n->gpus[0] < '0' || n->gpus[0] > '9' || *end || v < 1 || v > TOPO_MAX_GPUS)
		return tf_err(d, file, y, path, "\"%s\" is not a GPU count (1 to %u)", n->gpus,
			      TOPO_MAX_GPUS);
	*out = (uint32_t)v;
	return 0;
}

/*
 * The topology node of each file node: a host is a server with one NIC per
 * link (@count[i] of them), its nodes from @first[i] on. Links whose ends
 * are unknown are not counted; the link loop reports them.
 */
static int tf_add_nodes(const struct tf_doc *doc, const struct tf_ref *refs, uint32_t *first,
			uint32_t *count, const char *file, const struct ydoc *y, struct topo *t,
			struct diag *d)
{
	char path[TF_PATH_MAX];
	uint32_t i, gpus;
	int32_t a, b, r;
	int err;

	for (i = 0; i < doc->links_count; i++) {
		a = tf_lookup(refs, doc->nodes_count, doc->links[i].a);
		b = tf_lookup(refs, doc->nodes_count, doc->links[i].b);
		if (a >= 0 && b >= 0 && a != b) {
			count[a]++;
			count[b]++;
		}
	}
	for (i = 0; i < doc->nodes_count; i++) {
		const struct tf_node *n = &doc->nodes[i];
		uint32_t nics = count[i] ? count[i] : 1;

		if ((err = tf_gpus(n, i, file, y, &gpus, d)))
			return err;
		snprintf(path, sizeof(path), "nodes[%" PRIu32 "].name", i);
		if (n->kind == TOPO_HOST && nics > TOPO_MAX_NICS)
			return tf_err(d, file, y, path,
				      "host \"%s\" has %" PRIu32
				      " links: a server has at most %u NIC "
				      "ports",
				      n->name, nics, TOPO_MAX_NICS);
		if (n->kind == TOPO_HOST && nics > 1 &&
		    strlen(n->name) + sizeof("/nic63") > TOPO_NAME_MAX)
			return tf_err(
			    d, file, y, path,
			    "node name \"%s\" is too long for its NIC names (\"%s/nic0\"): "
			    "a host with several links has at most %zu characters",
			    n->name, n->name, TOPO_NAME_MAX - sizeof("/nic63"));
		/* tf_check_nodes took every name topo_add_node could refuse */
		r = n->kind == TOPO_HOST ? topo_add_server(t, n->name, nics, gpus)
					 : topo_add_node(t, n->name, n->kind);
		if (r == -ENOMEM) {
			diag_set(d, file, 0, "", "out of memory");
			return -ENOMEM;
		}
		if (r < 0) {
			snprintf(path, sizeof(path), "nodes[%" PRIu32 "]", i);
			return tf_err(d, file, y, path, "cannot add node \"%s\": too many nodes",
				      n->name);
		}
		first[i] = (uint32_t)r;
		count[i] = 0; /* from now on, the NICs given a link so far */
	}
	return 0;
}

/* The topology node at the end of the next link of file node @i. */
static uint32_t tf_end(const struct topo *t, const uint32_t *first, uint32_t *used, int32_t i)
{
	if (t->nodes[first[i]].kind != TOPO_HOST)
		return first[i];
	return first[i] + used[i]++;
}

static int tf_build(const struct topo_spec *spec, const struct tf_doc *doc, const struct ydoc *y,
		    struct topo **out, struct diag *d)
{
	const char *file = spec->file;
	char path[TF_PATH_MAX];
	struct topo_linkspec ls;
	struct tf_ref *refs;
	uint32_t *first, *used, na, nb;
	struct topo *t;
	uint32_t i;
	int32_t a, b, r;
	int err;

	refs = malloc(((size_t)doc->nodes_count + 1) * sizeof(*refs));
	first = calloc(2 * ((size_t)doc->nodes_count + 1), sizeof(*first));
	used = first ? first + doc->nodes_count + 1 : NULL;
	t = topo_new();
	err = -ENOMEM;
	if (!refs || !first || !t) {
		diag_set(d, file, 0, "", "out of memory");
		goto out_free;
	}
	err = tf_check_nodes(doc, refs, file, y, d);
	if (!err)
		err = tf_add_nodes(doc, refs, first, used, file, y, t, d);
	if (err)
		goto out_free;
	if (t->n_hosts == 0) {
		err = tf_err(d, file, y, "nodes", "no host: at least one node needs kind: host");
		goto out_free;
	}

	for (i = 0; i < doc->links_count; i++) {
		const struct tf_link *l = &doc->links[i];

		a = tf_lookup(refs, doc->nodes_count, l->a);
		b = tf_lookup(refs, doc->nodes_count, l->b);
		snprintf(path, sizeof(path), "links[%" PRIu32 "].%s", i, a < 0 ? "a" : "b");
		if (a < 0 || b < 0) {
			err = tf_err(d, file, y, path, "unknown node \"%s\"", a < 0 ? l->a : l->b);
			goto out_free;
		}
		if (a == b) {
			err = tf_err(d, file, y, path, "link from \"%s\" to itself", l->a);
			goto out_free;
		}
		na = tf_end(t, first, used, a);
		nb = tf_end(t, first, used, b);
		err = tf_link_spec(spec, l, i,
				   t->nodes[na].kind == TOPO_HOST || t->nodes[nb].kind == TOPO_HOST,
				   file, y, &ls, d);
		if (err)
			goto out_free;
		/* ends that differ, a rate (tf_link_spec): only too many is left */
		r = topo_add_link(t, na, nb, &ls);
		if (r == -ENOMEM) {
			diag_set(d, file, 0, "", "out of memory");
			err = -ENOMEM;
			goto out_free;
		}
		if (r < 0) {
			snprintf(path, sizeof(path), "links[%" PRIu32 "]", i);
			err = tf_err(d, file, y, path,
				     "\"%s\" or \"%s\" would have more than %u ports, or the file "
				     "more than %u links",
				     l->a, l->b, TOPO_MAX_PORTS, TOPO_MAX_ELEMS);
			goto out_free;
		}
	}

	for (i = 0; i < doc->nodes_count; i++) {
		if (doc->nodes[i].kind == TOPO_HOST && t->nodes[first[i]].n_ports == 0) {
			snprintf(path, sizeof(path), "nodes[%" PRIu32 "]", i);
			err =
			    tf_err(d, file, y, path, "host \"%s\" has no link", doc->nodes[i].name);
			goto out_free;
		}
	}
	err = topo_finish(t, d);
	if (err) {
		if (d) {
			snprintf(d->file, sizeof(d->file), "%s", file);
			d->line = ydoc_line_near(y, d->path);
		}
		goto out_free;
	}
	*out = t;
	t = NULL;
out_free:
	topo_free(t);
	free(first);
	free(refs);
	return err;
}

int topo_file_load(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	struct ydoc_cylog log = {.n = 0};
	cyaml_config_t cfg = {
	    .log_fn = ydoc_cyaml_log,
	    .log_ctx = &log,
	    .mem_fn = cyaml_mem,
	    .log_level = CYAML_LOG_ERROR,
	    .flags = CYAML_CFG_DEFAULT,
	};
	const char *file = spec->file;
	cyaml_data_t *data = NULL;
	struct ydoc *y = NULL;
	cyaml_err_t cerr;
	char *text = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = topo_read_spec_file(spec, "file", &text, &len, d)))
		return err;
	err = ydoc_parse(file, text, len, &y, d);
	if (err) {
		if (d && !d->file[0])
			snprintf(d->file, sizeof(d->file), "%s", file);
		goto out_free;
	}
	cerr = cyaml_load_data((const uint8_t *)text, len, &cfg, &tf_doc_schema, &data, NULL);
	if (cerr != CYAML_OK) {
		ydoc_cyaml_diag(y, &tf_doc_schema, &log, cerr, YDOC_CY_NAME_KEY | YDOC_CY_FOUND, d);
		err = -EINVAL;
		goto out_free;
	}
	if (!data) {
		diag_set(d, file, 0, "", "empty topology file (expected nodes: and links:)");
		err = -EINVAL;
		goto out_free;
	}
	err = tf_build(spec, data, y, out, d);
out_free:
	if (data)
		cyaml_free(&cfg, &tf_doc_schema, data, 0);
	if (y)
		ydoc_free(y);
	free(text);
	return err;
}
