/*
 * Kubernetes manifests: the NCCL_* environment of a workload's containers
 * (see pod.h). Three passes over the text:
 *
 *  1. a libyaml scan picks the document to read (the first whose kind is a
 *     workload) and bounds what YAML aliases expand to: libcyaml replays an
 *     alias event by event, so ten nested aliases of ten make 10^10 events;
 *  2. ydoc indexes that document for lines and the missing-key checks;
 *  3. libcyaml loads it, unknown keys ignored (a manifest has hundreds).
 *
 * A later document is handed to ydoc and libcyaml, which read one document,
 * as a copy preceded by as many newlines as lines before it in the file, so
 * that every line they report is the file's.
 */
#include "sim/config/pod.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/engine/textfile.h"
#include "sim/engine/ydoc.h"

#define POD_DEPTH 64                /* as ydoc: deeper is refused */
#define POD_MAX_ANCHORS 256         /* per document; libcyaml searches them linearly */
/*
 * Events replayed for aliases, per document. libcyaml records them one
 * realloc at a time, quadratic under ASan; an env list shared by a few
 * containers is a few hundred.
 */
#define POD_MAX_EXPANDED (1u << 14)
#define POD_SAT (1ull << 62)

/* ---- the workload kinds and where their containers are ------------------- */

enum pod_level {
	POD_LVL_POD,      /* spec.containers */
	POD_LVL_TEMPLATE, /* spec.template.spec.containers */
	POD_LVL_CRONJOB,  /* spec.jobTemplate.spec.template.spec.containers */
};

static const struct {
	const char *kind;
	enum pod_level level;
} pod_kinds[] = {
	{"Pod", POD_LVL_POD},
	{"Deployment", POD_LVL_TEMPLATE},
	{"StatefulSet", POD_LVL_TEMPLATE},
	{"DaemonSet", POD_LVL_TEMPLATE},
	{"ReplicaSet", POD_LVL_TEMPLATE},
	{"Job", POD_LVL_TEMPLATE},
	{"CronJob", POD_LVL_CRONJOB},
};

#define POD_KINDS "Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob"

static const char *const pod_spec_path[] = {
	[POD_LVL_POD] = "spec",
	[POD_LVL_TEMPLATE] = "spec.template.spec",
	[POD_LVL_CRONJOB] = "spec.jobTemplate.spec.template.spec",
};

static int pod_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(pod_kinds) / sizeof(pod_kinds[0]); i++)
		if (!strcmp(pod_kinds[i].kind, kind))
			return (int)i;
	return -1;
}

/* ---- pass 1: which document, and is it safe to expand ----------------------- */

struct pod_frame {
	int is_map;
	size_t kids;      /* nodes read in this collection (keys and values) */
	uint64_t weight;  /* events this collection expands to, so far */
	char *anchor;     /* its &anchor, or NULL */
};

struct pod_anchor {
	char *name;
	uint64_t weight;
};

/* One document as the scan saw it. */
struct pod_doc {
	int index;              /* 1-based */
	size_t start, end;      /* libyaml character indices: where it starts and ends */
	size_t start_col;
	int start_line;         /* 0-based */
	int has_end;            /* 0: runs to the end of the text */
	char kind[32];          /* "" when the root has no scalar kind */
	int bad_line;           /* 1-based line of the refusal below, when bad_msg[0] */
	char bad_msg[160];
};

struct pod_scan {
	struct pod_doc cur, first, pick;
	int ndocs, picked;
	int depth;
	struct pod_frame st[POD_DEPTH];
	struct pod_anchor anchors[POD_MAX_ANCHORS];
	int n_anchors;
	uint64_t expanded;
	/* libyaml's error, when the text is not YAML */
	int yaml_err, yaml_line;
	char yaml_msg[160];
};

static uint64_t pod_sat_add(uint64_t a, uint64_t b)
{
	return a + b > POD_SAT ? POD_SAT : a + b;
}

static void pod_bad(struct pod_doc *doc, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pod_bad(struct pod_doc *doc, int line, const char *fmt, ...)
{
	va_list ap;

	if (doc->bad_msg[0])
		return;
	doc->bad_line = line;
	va_start(ap, fmt);
	vsnprintf(doc->bad_msg, sizeof(doc->bad_msg), fmt, ap);
	va_end(ap);
}

static void pod_scan_reset(struct pod_scan *s)
{
	while (s->depth > 0) {
		s->depth--;
		if (s->depth < POD_DEPTH) {
			free(s->st[s->depth].anchor);
			s->st[s->depth].anchor = NULL;
		}
	}
	for (int i = 0; i < s->n_anchors; i++)
		free(s->anchors[i].name);
	s->n_anchors = 0;
	s->expanded = 0;
}

/* Remember @name as an anchor of @weight events; takes @name. */
static void pod_anchor_add(struct pod_scan *s, char *name, uint64_t weight, int line)
{
	if (s->n_anchors == POD_MAX_ANCHORS) {
		pod_bad(&s->cur, line, "more than %d anchors (&name) in one document",
			POD_MAX_ANCHORS);
		free(name);
		return;
	}
	s->anchors[s->n_anchors].name = name;
	s->anchors[s->n_anchors++].weight = weight;
}

/* A node of @weight events ends inside the current collection. */
static void pod_node(struct pod_scan *s, uint64_t weight)
{
	if (s->depth > 0 && s->depth <= POD_DEPTH) {
		struct pod_frame *f = &s->st[s->depth - 1];

		f->weight = pod_sat_add(f->weight, weight);
		f->kids++;
	}
}

/* Is the node about to be read the value of the root key "kind"? */
static int pod_at_kind_value(const struct pod_scan *s, const char *last_root_key)
{
	return s->depth == 1 && s->st[0].is_map && (s->st[0].kids & 1) &&
	       !strcmp(last_root_key, "kind");
}

static int pod_handle(struct pod_scan *s, const yaml_event_t *ev, char *root_key, size_t keysz)
{
	int line = (int)ev->start_mark.line + 1;
	const char *anchor = NULL;

	/* a root key that is not a plain scalar: not "kind" */
	if (s->depth == 1 && s->st[0].is_map && !(s->st[0].kids & 1) &&
	    ev->type != YAML_SCALAR_EVENT)
		root_key[0] = '\0';

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		pod_scan_reset(s);
		memset(&s->cur, 0, sizeof(s->cur));
		s->cur.index = ++s->ndocs;
		s->cur.start = ev->start_mark.index;
		s->cur.start_col = ev->start_mark.column;
		s->cur.start_line = (int)ev->start_mark.line;
		root_key[0] = '\0';
		break;
	case YAML_DOCUMENT_END_EVENT:
		s->cur.end = ev->end_mark.index;
		s->cur.has_end = 1;
		if (s->cur.index == 1)
			s->first = s->cur;
		if (pod_kind(s->cur.kind) >= 0) {
			s->pick = s->cur;
			s->picked = 1;
		}
		break;
	case YAML_SCALAR_EVENT: {
		const char *v = (const char *)ev->data.scalar.value;

		if (pod_at_kind_value(s, root_key))
			snprintf(s->cur.kind, sizeof(s->cur.kind), "%s",
				 strlen(v) < sizeof(s->cur.kind) ? v : "");
		if (s->depth == 1 && s->st[0].is_map && !(s->st[0].kids & 1))
			snprintf(root_key, keysz, "%s", strlen(v) < keysz ? v : "");
		if (ev->data.scalar.anchor) {
			char *name = strdup((const char *)ev->data.scalar.anchor);

			if (!name)
				return -ENOMEM;
			pod_anchor_add(s, name, 1, line);
		}
		pod_node(s, 1);
		break;
	}
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		uint64_t w = 0;

		for (int i = s->n_anchors - 1; i >= 0 && !w; i--)
			if (!strcmp(s->anchors[i].name, name))
				w = s->anchors[i].weight;
		if (!w) {
			/* libcyaml refuses it too, but names no line */
			pod_bad(&s->cur, line, "alias *%s names no anchor (&%s) before it", name,
				name);
			w = 1;
		}
		s->expanded = pod_sat_add(s->expanded, w);
		if (s->expanded > POD_MAX_EXPANDED)
			pod_bad(&s->cur, line,
				"aliases (*%s) expand to more than %u YAML nodes: write the "
				"values out",
				name, POD_MAX_EXPANDED);
		pod_node(s, w);
		break;
	}
	case YAML_MAPPING_START_EVENT:
		anchor = (const char *)ev->data.mapping_start.anchor;
		__attribute__((fallthrough));
	case YAML_SEQUENCE_START_EVENT:
		if (ev->type == YAML_SEQUENCE_START_EVENT)
			anchor = (const char *)ev->data.sequence_start.anchor;
		if (s->depth >= POD_DEPTH) {
			pod_bad(&s->cur, line, "nesting deeper than %d levels", POD_DEPTH);
			s->depth++;
			break;
		}
		s->st[s->depth].is_map = ev->type == YAML_MAPPING_START_EVENT;
		s->st[s->depth].kids = 0;
		s->st[s->depth].weight = 2; /* its start and end events */
		s->st[s->depth].anchor = NULL;
		if (anchor && !(s->st[s->depth].anchor = strdup(anchor)))
			return -ENOMEM;
		s->depth++;
		break;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		if (s->depth > POD_DEPTH) {
			s->depth--;
			break;
		}
		s->depth--;
		if (s->st[s->depth].anchor) {
			pod_anchor_add(s, s->st[s->depth].anchor, s->st[s->depth].weight, line);
			s->st[s->depth].anchor = NULL;
		}
		pod_node(s, s->st[s->depth].weight);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Scan @text: s->pick is the first workload document, else the first
 * document, else (a file that is not YAML) the one where libyaml stopped.
 */
static int pod_scan(struct pod_scan *s, const char *text, size_t len)
{
	char root_key[16] = "";
	yaml_parser_t parser;
	yaml_event_t ev;
	int err = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !s->picked) {
		if (!yaml_parser_parse(&parser, &ev)) {
			s->yaml_err = 1;
			s->yaml_line = (int)parser.problem_mark.line + 1;
			snprintf(s->yaml_msg, sizeof(s->yaml_msg), "%s",
				 parser.problem ? parser.problem : "syntax error");
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		err = pod_handle(s, &ev, root_key, sizeof(root_key));
		yaml_event_delete(&ev);
		if (err)
			break;
	}
	yaml_parser_delete(&parser);
	pod_scan_reset(s);
	if (err)
		return err;
	if (s->picked)
		return 0;
	if (s->yaml_err) {
		/* the document that is not YAML, from its start to the end of the text */
		s->pick = s->cur;
		s->pick.has_end = 0;
		if (!s->ndocs)
			memset(&s->pick, 0, sizeof(s->pick));
	} else {
		s->pick = s->first; /* all zero when the file holds no document */
	}
	return 0;
}

/* Byte offset of libyaml's character index @idx (code points after a BOM). */
static size_t pod_byte_at(const char *text, size_t len, size_t idx)
{
	size_t b = 0;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		b = 3;
	for (; b < len; b++) {
		if (((unsigned char)text[b] & 0xc0) == 0x80)
			continue;
		if (!idx--)
			break;
	}
	return b;
}

/*
 * The text of document @doc for ydoc and libcyaml: @text itself for the
 * first, else a copy that starts with the lines before it made blank.
 * *@buf is what to free().
 */
static int pod_slice(const char *text, size_t len, const struct pod_doc *doc, const char **out,
		     size_t *out_len, char **buf)
{
	size_t from, to;

	*buf = NULL;
	to = doc->has_end ? pod_byte_at(text, len, doc->end) : len;
	if (doc->index <= 1) {
		*out = text;
		*out_len = to;
		return 0;
	}
	from = pod_byte_at(text, len, doc->start - doc->start_col);
	if (to < from)
		to = from;
	*buf = malloc((size_t)doc->start_line + (to - from) + 1);
	if (!*buf)
		return -ENOMEM;
	memset(*buf, '\n', (size_t)doc->start_line);
	memcpy(*buf + doc->start_line, text + from, to - from);
	(*buf)[(size_t)doc->start_line + (to - from)] = '\0';
	*out = *buf;
	*out_len = (size_t)doc->start_line + (to - from);
	return 0;
}

/* ---- pass 3: the libcyaml schema, innermost first ------------------------------ */

struct pod_y_none {
	int unused;
};

struct pod_y_env {
	char *name;
	char *value;
	struct pod_y_none *value_from;
};

struct pod_y_ctr {
	char *name;
	struct pod_y_env *env;
	unsigned env_count;
	struct pod_y_none *env_from;
	unsigned env_from_count;
};

struct pod_y_podspec {
	struct pod_y_ctr *containers;
	unsigned containers_count;
	struct pod_y_ctr *init;
	unsigned init_count;
};

struct pod_y_tpl {
	struct pod_y_podspec *spec;
};

struct pod_y_jobspec {
	struct pod_y_tpl *template;
};

struct pod_y_jobtpl {
	struct pod_y_jobspec *spec;
};

/* The top spec: a Pod's, or a workload's that holds a template */
struct pod_y_spec {
	struct pod_y_podspec pod;
	struct pod_y_tpl *template;
	struct pod_y_jobtpl *job_template;
};

struct pod_y_doc {
	char *kind;
	struct pod_y_spec *spec;
};

#define POD_OPT (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER_NULL)

/* A mapping whose keys are all ignored: only its presence counts. */
static const cyaml_schema_field_t pod_none_fields[] = {
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_none_value = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_none, pod_none_fields),
};

/*
 * value: plain CYAML_FLAG_POINTER, not POINTER_NULL_STR, which would also
 * turn the quoted string "null" into NULL; `value:` loads as "".
 */
static const cyaml_schema_field_t pod_env_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct pod_y_env, name, 0,
			       CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("value", CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER, struct pod_y_env,
			       value, 0, CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("valueFrom", POD_OPT, struct pod_y_env, value_from,
				pod_none_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_env_value = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_env, pod_env_fields),
};

static const cyaml_schema_field_t pod_ctr_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct pod_y_ctr, name, 0,
			       CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("env", POD_OPT, struct pod_y_ctr, env, &pod_env_value, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("envFrom", POD_OPT, struct pod_y_ctr, env_from, &pod_none_value, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_ctr_value = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_ctr, pod_ctr_fields),
};

static const cyaml_schema_field_t pod_podspec_fields[] = {
	CYAML_FIELD_SEQUENCE("containers", POD_OPT, struct pod_y_podspec, containers,
			     &pod_ctr_value, 0, CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("initContainers", POD_OPT, struct pod_y_podspec, init,
			     &pod_ctr_value, 0, CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_tpl_fields[] = {
	CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_tpl, spec, pod_podspec_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_jobspec_fields[] = {
	CYAML_FIELD_MAPPING_PTR("template", POD_OPT, struct pod_y_jobspec, template,
				pod_tpl_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_jobtpl_fields[] = {
	CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_jobtpl, spec, pod_jobspec_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_spec_fields[] = {
	CYAML_FIELD_SEQUENCE("containers", POD_OPT, struct pod_y_spec, pod.containers,
			     &pod_ctr_value, 0, CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("initContainers", POD_OPT, struct pod_y_spec, pod.init,
			     &pod_ctr_value, 0, CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("template", POD_OPT, struct pod_y_spec, template, pod_tpl_fields),
	CYAML_FIELD_MAPPING_PTR("jobTemplate", POD_OPT, struct pod_y_spec, job_template,
				pod_jobtpl_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_doc_fields[] = {
	CYAML_FIELD_STRING_PTR("kind", CYAML_FLAG_POINTER, struct pod_y_doc, kind, 0,
			       CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_doc, spec, pod_spec_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_doc_value = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct pod_y_doc, pod_doc_fields),
};

/* ---- from the loaded document to pod_cfg ------------------------------------------ */

struct pod_item {
	struct pod_env env;
	size_t seq; /* collection order, to keep it among equal lines */
};

struct pod_list {
	struct pod_item *v;
	size_t n, cap;
};

static int pod_push(struct pod_list *l, const struct pod_env *e)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct pod_item *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].env = *e;
	l->v[l->n].seq = l->n;
	l->n++;
	return 0;
}

static int pod_cmp(const void *a, const void *b)
{
	const struct pod_item *x = a, *y = b;

	if (x->env.line != y->env.line)
		return x->env.line < y->env.line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The NCCL_* variables of containers @c[0..@n) found at @base ("spec.containers"). */
static int pod_collect(const char *name, const struct ydoc *y, const char *base,
		       const struct pod_y_ctr *c, unsigned n, struct pod_list *l,
		       size_t *n_env_from, struct diag *d)
{
	char path[256];
	int err;

	for (unsigned i = 0; i < n; i++) {
		*n_env_from += c[i].env_from_count;
		for (unsigned j = 0; j < c[i].env_count; j++) {
			const struct pod_y_env *v = &c[i].env[j];
			const char *value = v->value ? v->value : "";
			struct pod_env e = {0};
			int line = 0;

			if (strncmp(v->name, "NCCL_", 5))
				continue;
			snprintf(path, sizeof(path), "%s[%u].env[%u].value", base, i, j);
			line = ydoc_line(y, path);
			if (!line) {
				snprintf(path, sizeof(path), "%s[%u].env[%u].valueFrom", base, i, j);
				line = ydoc_line(y, path);
			}
			snprintf(path, sizeof(path), "%s[%u].env[%u].name", base, i, j);
			if (!line)
				line = ydoc_line_near(y, path);
			if (strlen(v->name) >= sizeof(e.name)) {
				diag_set(d, name, line, path, "variable name longer than %zu characters",
					 sizeof(e.name) - 1);
				return -EINVAL;
			}
			if (v->value_from && value[0]) {
				snprintf(path, sizeof(path), "%s[%u].env[%u]", base, i, j);
				diag_set(d, name, line, path,
					 "%s has both value and valueFrom: Kubernetes refuses it",
					 v->name);
				return -EINVAL;
			}
			if (strlen(value) >= sizeof(e.value)) {
				snprintf(path, sizeof(path), "%s[%u].env[%u].value", base, i, j);
				diag_set(d, name, line, path, "%s: value longer than %zu characters",
					 v->name, sizeof(e.value) - 1);
				return -EINVAL;
			}
			if (strlen(c[i].name) >= sizeof(e.container)) {
				snprintf(path, sizeof(path), "%s[%u].name", base, i);
				diag_set(d, name, ydoc_line_near(y, path), path,
					 "container name longer than %zu characters",
					 sizeof(e.container) - 1);
				return -EINVAL;
			}
			snprintf(e.name, sizeof(e.name), "%s", v->name);
			snprintf(e.value, sizeof(e.value), "%s", value);
			snprintf(e.container, sizeof(e.container), "%s", c[i].name);
			e.line = line;
			e.value_from = v->value_from != NULL;
			err = pod_push(l, &e);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The kind of the document ydoc indexed: 0 or -EINVAL with @d. */
static int pod_check_kind(const char *name, const struct ydoc *y, const struct pod_scan *s,
			  struct diag *d)
{
	const struct ydoc_entry *k = ydoc_find(y, "kind");
	int first = ydoc_at(y, 0)->line;

	if (!k) {
		diag_set(d, name, first, "",
			 "no kind: expected a Kubernetes manifest of a " POD_KINDS);
		return -EINVAL;
	}
	if (!k->value) {
		diag_set(d, name, k->line, "kind", "expected a single value, not %s",
			 ydoc_find(y, "kind[0]") ? "a list" : "a mapping");
		return -EINVAL;
	}
	if (pod_kind(k->value) >= 0)
		return 0;
	if (s->ndocs > 1)
		diag_set(d, name, k->line, "kind",
			 "none of the %d documents is a workload (" POD_KINDS
			 "); the first is a %.64s",
			 s->ndocs, k->value);
	else
		diag_set(d, name, k->line, "kind",
			 "%.64s is not a workload: expected a " POD_KINDS, k->value);
	return -EINVAL;
}

/* Load the document @text (ydoc @y indexed it) into @out. */
static int pod_load(const char *name, const char *text, size_t len, const struct ydoc *y,
		    struct pod_cfg *out, struct diag *d)
{
	struct ydoc_cylog log = {0};
	cyaml_config_t cfg = {
		.log_level = CYAML_LOG_ERROR,
		.log_fn = ydoc_cyaml_log,
		.log_ctx = &log,
		.mem_fn = cyaml_mem,
		.flags = CYAML_CFG_IGNORE_UNKNOWN_KEYS,
	};
	const struct pod_y_podspec *ps = NULL;
	struct pod_y_doc *doc = NULL;
	struct pod_list l = {0};
	enum pod_level level;
	char base[128];
	cyaml_err_t cerr;
	int err;

	cerr = cyaml_load_data((const uint8_t *)text, len, &cfg, &pod_doc_value,
			       (cyaml_data_t **)&doc, NULL);
	if (cerr != CYAML_OK)
		return ydoc_cyaml_diag(y, &pod_doc_value, &log, cerr, 0, d);
	if (pod_kind(doc->kind) < 0) {
		/* ydoc checked the same scalar: this guards the index below */
		diag_set(d, name, ydoc_line(y, "kind"), "kind",
			 "%.64s is not a workload: expected a " POD_KINDS, doc->kind);
		err = -EINVAL;
		goto out_free_doc;
	}
	level = pod_kinds[pod_kind(doc->kind)].level;
	snprintf(out->kind, sizeof(out->kind), "%s", doc->kind);
	if (doc->spec) {
		if (level == POD_LVL_POD)
			ps = &doc->spec->pod;
		else if (level == POD_LVL_TEMPLATE && doc->spec->template)
			ps = doc->spec->template->spec;
		else if (level == POD_LVL_CRONJOB && doc->spec->job_template &&
			 doc->spec->job_template->spec && doc->spec->job_template->spec->template)
			ps = doc->spec->job_template->spec->template->spec;
	}
	if (!ps || !ps->containers_count) {
		snprintf(base, sizeof(base), "%s.containers", pod_spec_path[level]);
		diag_set(d, name, ydoc_line_near(y, base), base, "%s has no containers", doc->kind);
		err = -EINVAL;
		goto out_free_doc;
	}
	snprintf(base, sizeof(base), "%s.containers", pod_spec_path[level]);
	err = pod_collect(name, y, base, ps->containers, ps->containers_count, &l,
			  &out->n_env_from, d);
	if (err)
		goto out_free_list;
	snprintf(base, sizeof(base), "%s.initContainers", pod_spec_path[level]);
	err = pod_collect(name, y, base, ps->init, ps->init_count, &l, &out->n_env_from, d);
	if (err)
		goto out_free_list;
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), pod_cmp);
	out->env = calloc(l.n ? l.n : 1, sizeof(*out->env));
	if (!out->env) {
		err = -ENOMEM;
		goto out_free_list;
	}
	for (size_t i = 0; i < l.n; i++)
		out->env[i] = l.v[i].env;
	out->n = l.n;
out_free_list:
	free(l.v);
out_free_doc:
	cyaml_free(&cfg, &pod_doc_value, doc, 0);
	return err;
}

/* ---- entry points ------------------------------------------------------------------ */

int pod_read_text(const char *name, const char *text, size_t len, struct pod_cfg *out,
		  struct diag *d)
{
	struct pod_scan *s;
	struct ydoc *y = NULL;
	const char *doc_text;
	size_t doc_len;
	char *buf = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(out->file, sizeof(out->file), "%s", name);
	if (len >= 2 && ((text[0] == '\xfe' && text[1] == '\xff') ||
			 (text[0] == '\xff' && text[1] == '\xfe'))) {
		diag_set(d, name, 0, "", "UTF-16 text: save the manifest as UTF-8");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = pod_scan(s, text, len);
	if (err)
		goto out_free_scan;
	err = pod_slice(text, len, &s->pick, &doc_text, &doc_len, &buf);
	if (err)
		goto out_free_scan;
	err = ydoc_parse(name, doc_text, doc_len, &y, d);
	if (err) {
		if (err != -ENOMEM)
			err = -EINVAL; /* a duplicate key is -EEXIST there */
		goto out_free_buf;
	}
	if (s->yaml_err) {
		/* libyaml refused the text the scan read; ydoc should have too */
		diag_set(d, name, s->yaml_line, "", "malformed YAML: %s", s->yaml_msg);
		err = -EINVAL;
		goto out_free_ydoc;
	}
	if (!ydoc_count(y)) {
		diag_set(d, name, 1, "", "empty: expected a Kubernetes manifest of a " POD_KINDS);
		err = -EINVAL;
		goto out_free_ydoc;
	}
	err = pod_check_kind(name, y, s, d);
	if (err)
		goto out_free_ydoc;
	if (s->pick.bad_msg[0]) {
		diag_set(d, name, s->pick.bad_line, "", "%s", s->pick.bad_msg);
		err = -EINVAL;
		goto out_free_ydoc;
	}
	out->doc = s->pick.index ? s->pick.index : 1;
	err = pod_load(name, doc_text, doc_len, y, out, d);
out_free_ydoc:
	ydoc_free(y);
out_free_buf:
	free(buf);
out_free_scan:
	free(s);
	if (err)
		pod_free(out);
	return err;
}

int pod_read(const char *file, struct pod_cfg *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	err = textfile_read(file, &text, &len);
	if (err) {
		diag_set(d, file, 0, "", "cannot read: %s", textfile_strerror(err));
		return err;
	}
	err = pod_read_text(file, text, len, out, d);
	free(text);
	return err;
}

const struct pod_env *pod_get(const struct pod_cfg *p, const char *name)
{
	for (size_t i = p->n; i-- > 0;)
		if (!strcmp(p->env[i].name, name))
			return &p->env[i];
	return NULL;
}

const struct pod_env *pod_ib_disabled(const struct pod_cfg *p)
{
	const struct pod_env *e = pod_get(p, "NCCL_IB_DISABLE");
	long long v;
	char *end;

	if (!e || e->value_from || !e->value[0])
		return NULL;
	errno = 0;
	v = strtoll(e->value, &end, 0);
	return *end || errno || v == 0 ? NULL : e;
}

void pod_free(struct pod_cfg *p)
{
	if (!p)
		return;
	free(p->env);
	p->env = NULL;
	p->n = 0;
}
