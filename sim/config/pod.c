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
 *
 * Pass 1 is pod_scan.c's; this file makes passes 2 and 3 and collects the
 * variables.
 */
#include "sim/config/pod.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/config/pod_impl.h"
#include "sim/engine/textfile.h"
#include "sim/engine/ydoc.h"

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

int pod_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(pod_kinds) / sizeof(pod_kinds[0]); i++)
		if (!strcmp(pod_kinds[i].kind, kind))
			return (int)i;
	return -1;
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
	if ((err = textfile_load(file, 0, &text, &len, d)))
		return err;
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
