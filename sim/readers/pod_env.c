/*
 * The NCCL_* variables of a workload's containers, as Kubernetes sets
 * them (the "Define Environment Variables for a Container" and "Configure
 * a Pod to Use a ConfigMap" tasks of its documentation):
 *
 *  - env[].value, or env[].valueFrom: a configMapKeyRef is resolved
 *    against the ConfigMaps of the same file (pod_cm.c); a secretKeyRef,
 *    fieldRef or resourceFieldRef is known only at run time;
 *  - envFrom[]: every key of a configMapRef's ConfigMap, behind the
 *    source's prefix; a variable that env[] sets too takes env's value,
 *    and of two sources the later wins. A secretRef is never read.
 *
 * Each variable keeps the line of its reference in the workload (the
 * order pod_get goes by) and the line where its value is written. What the
 * file does not hold (a ConfigMap, a key, every Secret) becomes a note,
 * and so does a variable the model reads to which two containers give two
 * values.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/nccl_env.h"
#include "sim/readers/pod_impl.h"

/* The variables the model reads: two containers that disagree are a note. */
static const char *const pod_model_vars[] = {
    "NCCL_IB_TC",  "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT",	    "NCCL_IB_GID_INDEX",
    "NCCL_IB_HCA", "NCCL_IB_DISABLE", "NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS",
};

static int pod_note(struct pod_ctx *c, enum pod_note_kind kind, int line, const char *what,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int pod_note(struct pod_ctx *c, enum pod_note_kind kind, int line, const char *what,
		    const char *fmt, ...)
{
	static const char *const codes[] = {
	    [POD_NOTE_CONFLICT] = "NCCL_ENV_CONFLICT",
	    [POD_NOTE_NOT_GIVEN] = "NCCL_ENV_NOT_GIVEN",
	    [POD_NOTE_SECRET] = "NCCL_ENV_SECRET",
	    [POD_NOTE_UNKNOWN] = "NCCL_ENV_UNKNOWN",
	    [POD_NOTE_OVERRIDDEN] = "NCCL_ENV_OVERRIDDEN",
	};
	struct pod_note *n, note = {.kind = kind, .line = line, .code = codes[kind]};
	va_list ap;

	snprintf(note.what, sizeof(note.what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(note.msg, sizeof(note.msg), fmt, ap);
	va_end(ap);
	/* the same in another container (of a replica, say): counted, not repeated */
	for (size_t i = 0; i < c->n_notes; i++) {
		n = &c->notes[i];
		if (n->kind == kind && !strcmp(n->what, note.what) && !strcmp(n->msg, note.msg)) {
			n->more++;
			return 0;
		}
	}
	if (c->n_notes == c->cap_notes) {
		size_t cap = c->cap_notes ? c->cap_notes * 2 : 8;

		if (!(n = realloc(c->notes, cap * sizeof(*n))))
			return -ENOMEM;
		c->notes = n;
		c->cap_notes = cap;
	}
	c->notes[c->n_notes++] = note;
	return 0;
}

static int pod_note_cmp(const void *a, const void *b)
{
	const struct pod_note *x = *(struct pod_note *const *)a, *y = *(struct pod_note *const *)b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y; /* found first, first */
}

/* The notes in file order, each repeat said once. */
static int pod_notes_sort(struct pod_ctx *c)
{
	struct pod_note **by, *v;

	if (c->n_notes < 2)
		return 0;
	/* the sorted notes, then the pointers that sort them */
	if (!(v = malloc(c->n_notes * (sizeof(*v) + sizeof(*by)))))
		return -ENOMEM;
	by = (struct pod_note **)(v + c->n_notes);
	for (size_t i = 0; i < c->n_notes; i++)
		by[i] = &c->notes[i];
	qsort(by, c->n_notes, sizeof(*by), pod_note_cmp);
	for (size_t i = 0; i < c->n_notes; i++)
		v[i] = *by[i];
	free(c->notes);
	c->notes = v;
	c->cap_notes = c->n_notes;
	return 0;
}

/* "Worker/pytorch", or "pytorch" for the kinds of one template */
static const char *pod_who(const struct pod_env *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", e->replica, e->replica[0] ? "/" : "", e->container);
	return buf;
}

static int pod_optional(const struct pod_y_ref *r)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
					  "on",	  "On",	  "ON",	  "y",	 "Y"};

	for (size_t i = 0; r->optional && i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcmp(r->optional, yes[i]))
			return 1;
	return 0;
}

/*
 * ConfigMap @name as the workload sees it (its namespace), or NULL with
 * @why saying so. The file's ConfigMaps are read at the first reference.
 */
static int pod_cm_lookup(struct pod_ctx *c, const char *name, const struct pod_cm **cm, char *why,
			 size_t size, struct diag *d)
{
	const struct pod_cm *other;
	int err;

	if (!c->cms.built && (err = pod_cms_build(&c->cms, c->file, c->text, c->len, c->scan, d)))
		return err;
	if ((*cm = pod_cms_find(&c->cms, name, c->ns, &other)))
		return 0;
	if (other)
		snprintf(why, size,
			 "the ConfigMap %s of %s (line %d) is in namespace %s, the "
			 "workload in %s",
			 name, c->file, other->line, other->ns[0] ? other->ns : "(not given)",
			 c->ns[0] ? c->ns : "(not given)");
	else if (c->scan->tail_err_line)
		snprintf(why, size,
			 "%s holds no ConfigMap %s before line %d, where it stops being "
			 "YAML",
			 c->file, name, c->scan->tail_err_line);
	else
		snprintf(why, size,
			 "%s holds no ConfigMap %s (ConfigMaps are read from the "
			 "manifest's own file: add it as a document after ---)",
			 c->file, name);
	return 0;
}

/* A value longer than pod_env holds, written at @line of @path. */
static int pod_too_long(const struct pod_ctx *c, int line, const char *path, const char *name,
			struct diag *d)
{
	diag_set(d, c->file, line, path, "%s: value longer than %zu characters", name,
		 sizeof(((struct pod_env *)0)->value) - 1);
	return -EINVAL;
}

/* env[].valueFrom of variable @e: its value when the file holds it, else a note. */
static int pod_value_from(struct pod_ctx *c, struct pod_env *e, const struct pod_y_value_from *vf,
			  struct diag *d)
{
	const struct pod_cm_kv *kv;
	const struct pod_cm *cm;
	char why[320], path[160];
	int err;

	e->value_from = 1;
	e->src = POD_SRC_RUN_TIME;
	if (vf->cm) {
		const char *name = vf->cm->name ? vf->cm->name : "";
		const char *key = vf->cm->key ? vf->cm->key : "";

		snprintf(e->from, sizeof(e->from), "ConfigMap %s, key %s", name, key);
		if ((err = pod_cm_lookup(c, name, &cm, why, sizeof(why), d)))
			return err;
		if (cm && (kv = pod_cm_get(cm, key))) {
			snprintf(path, sizeof(path), "data.%.120s", key);
			if (strlen(kv->value) >= sizeof(e->value))
				return pod_too_long(c, kv->line, path, e->name, d);
			snprintf(e->value, sizeof(e->value), "%s", kv->value);
			e->value_from = 0;
			e->src = POD_SRC_CM_KEY;
			e->src_line = kv->line;
			return 0;
		}
		if (cm)
			return pod_note(c, POD_NOTE_NOT_GIVEN, e->line, e->name,
					"comes from ConfigMap %s (%s:%d), which has no key %s: %s",
					name, c->file, cm->line, key,
					pod_optional(vf->cm)
					    ? "optional, so the variable is left unset"
					    : "Kubernetes does not start the container");
		return pod_note(c, POD_NOTE_NOT_GIVEN, e->line, e->name,
				"comes from ConfigMap %s (key %s), not given: %s; its value is "
				"known only at run time%s",
				name, key, why,
				pod_optional(vf->cm) ? " (optional: without it, unset)" : "");
	}
	if (vf->secret) {
		snprintf(e->from, sizeof(e->from), "Secret %s, key %s",
			 vf->secret->name ? vf->secret->name : "",
			 vf->secret->key ? vf->secret->key : "");
		return pod_note(c, POD_NOTE_SECRET, e->line, e->name,
				"comes from %s: rocesim never reads Secrets, so its value is "
				"known only at run time",
				e->from);
	}
	snprintf(e->from, sizeof(e->from), "%s",
		 vf->field	? "fieldRef"
		 : vf->resource ? "resourceFieldRef"
				: "");
	return 0;
}

/* Does an envFrom source after @k of @ctr set @name (a ConfigMap of the file)? */
static int pod_later_source_sets(struct pod_ctx *c, const struct pod_y_ctr *ctr, unsigned k,
				 const char *name)
{
	for (unsigned j = k + 1; j < ctr->env_from_count; j++) {
		const struct pod_y_env_from *ef = &ctr->env_from[j];
		const char *prefix = ef->prefix ? ef->prefix : "";
		const struct pod_cm *cm, *other;

		if (!ef->cm || strncmp(name, prefix, strlen(prefix)))
			continue;
		cm = pod_cms_find(&c->cms, ef->cm->name ? ef->cm->name : "", c->ns, &other);
		if (cm && pod_cm_get(cm, name + strlen(prefix)))
			return 1;
	}
	return 0;
}

static int pod_env_sets(const struct pod_y_ctr *ctr, const char *name)
{
	for (unsigned j = 0; j < ctr->env_count; j++)
		if (!strcmp(ctr->env[j].name, name))
			return 1;
	return 0;
}

/* The container's name fits pod_env: 0 or -EINVAL with @d. */
static int pod_ctr_name(const struct pod_ctx *c, const char *base, unsigned i,
			const struct pod_y_ctr *ctr, struct diag *d)
{
	char path[224];

	if (strlen(ctr->name) < sizeof(((struct pod_env *)0)->container))
		return 0;
	snprintf(path, sizeof(path), "%s[%u].name", base, i);
	diag_set(d, c->file, ydoc_line_near(c->y, path), path,
		 "container name longer than %zu characters",
		 sizeof(((struct pod_env *)0)->container) - 1);
	return -EINVAL;
}

/*
 * envFrom source @k of container @i of @base, @ctr; @e has its container,
 * replica and number filled in.
 */
static int pod_env_from(struct pod_ctx *c, const char *base, unsigned i,
			const struct pod_y_ctr *ctr, unsigned k, struct pod_env *e, struct diag *d)
{
	const struct pod_y_env_from *ef = &ctr->env_from[k];
	const char *prefix = ef->prefix ? ef->prefix : "";
	const struct pod_cm *cm;
	char at[256], why[320], what[96];
	int err;

	snprintf(at, sizeof(at), "%s[%u].envFrom[%u].%s", base, i, k,
		 ef->cm ? "configMapRef" : "secretRef");
	e->line = ydoc_line_near(c->y, at);
	if (!ef->cm) {
		if (!ef->secret)
			return 0;
		c->n_env_from++;
		snprintf(what, sizeof(what), "envFrom secretRef %.60s",
			 ef->secret->name ? ef->secret->name : "");
		return pod_note(c, POD_NOTE_SECRET, e->line, what,
				"rocesim never reads Secrets: the NCCL_* variables Secret %s may "
				"set are not seen",
				ef->secret->name ? ef->secret->name : "");
	}
	if ((err = pod_cm_lookup(c, ef->cm->name ? ef->cm->name : "", &cm, why, sizeof(why), d)))
		return err;
	if (!cm) {
		c->n_env_from++;
		snprintf(what, sizeof(what), "envFrom configMapRef %.60s",
			 ef->cm->name ? ef->cm->name : "");
		return pod_note(c, POD_NOTE_NOT_GIVEN, e->line, what,
				"%s: the NCCL_* variables it may set are known only at run "
				"time%s",
				why, pod_optional(ef->cm) ? " (optional: without it, none)" : "");
	}
	for (size_t i = 0; !err && i < cm->n; i++) {
		const struct pod_cm_kv *kv = &cm->kv[i];
		char name[160];

		snprintf(name, sizeof(name), "%s%s", prefix, kv->key);
		if (strncmp(name, "NCCL_", 5) || pod_env_sets(ctr, name) ||
		    pod_later_source_sets(c, ctr, k, name))
			continue;
		snprintf(at, sizeof(at), "data.%.120s", kv->key);
		if (strlen(name) >= sizeof(e->name)) {
			diag_set(d, c->file, kv->line, at,
				 "variable name longer than %zu characters", sizeof(e->name) - 1);
			return -EINVAL;
		}
		if (strlen(kv->value) >= sizeof(e->value))
			return pod_too_long(c, kv->line, at, name, d);
		if ((err = pod_ctr_name(c, base, i, ctr, d)))
			return err;
		snprintf(e->name, sizeof(e->name), "%s", name);
		snprintf(e->value, sizeof(e->value), "%s", kv->value);
		snprintf(e->from, sizeof(e->from), "ConfigMap %s (envFrom)", cm->name);
		e->src = POD_SRC_ENV_FROM;
		e->src_line = kv->line;
		err = pod_push(c, e);
	}
	return err;
}

/* The NCCL_* variables of containers @ctrs[0..@n) found at @base ("spec.containers"). */
static int pod_ctrs(struct pod_ctx *c, const char *base, const char *replica,
		    const struct pod_y_ctr *ctrs, unsigned n, struct diag *d)
{
	char path[256];
	int err;

	for (unsigned i = 0; i < n; i++) {
		const struct pod_y_ctr *ctr = &ctrs[i];
		unsigned id = c->n_ctr++;

		for (unsigned j = 0; j < ctr->env_count; j++) {
			const struct pod_y_env *v = &ctr->env[j];
			const char *value = v->value ? v->value : "";
			struct pod_env e = {0};
			int line = 0;

			if (strncmp(v->name, "NCCL_", 5))
				continue;
			snprintf(path, sizeof(path), "%s[%u].env[%u].value", base, i, j);
			line = ydoc_line(c->y, path);
			if (!line) {
				snprintf(path, sizeof(path), "%s[%u].env[%u].valueFrom", base, i,
					 j);
				line = ydoc_line(c->y, path);
			}
			snprintf(path, sizeof(path), "%s[%u].env[%u].name", base, i, j);
			if (!line)
				line = ydoc_line_near(c->y, path);
			if (strlen(v->name) >= sizeof(e.name)) {
				diag_set(d, c->file, line, path,
					 "variable name longer than %zu characters",
					 sizeof(e.name) - 1);
				return -EINVAL;
			}
			if (v->value_from && value[0]) {
				snprintf(path, sizeof(path), "%s[%u].env[%u]", base, i, j);
				diag_set(d, c->file, line, path,
					 "%s has both value and valueFrom: Kubernetes refuses it",
					 v->name);
				return -EINVAL;
			}
			if (strlen(value) >= sizeof(e.value)) {
				snprintf(path, sizeof(path), "%s[%u].env[%u].value", base, i, j);
				return pod_too_long(c, line, path, v->name, d);
			}
			if ((err = pod_ctr_name(c, base, i, ctr, d)))
				return err;
			snprintf(e.name, sizeof(e.name), "%s", v->name);
			snprintf(e.value, sizeof(e.value), "%s", value);
			snprintf(e.container, sizeof(e.container), "%s", ctr->name);
			snprintf(e.replica, sizeof(e.replica), "%s", replica);
			e.line = e.src_line = line;
			e.ctr = id;
			if ((v->value_from && (err = pod_value_from(c, &e, v->value_from, d))) ||
			    (err = pod_push(c, &e)))
				return err;
		}
		for (unsigned k = 0; k < ctr->env_from_count; k++) {
			struct pod_env e = {0};

			snprintf(e.container, sizeof(e.container), "%.63s", ctr->name);
			snprintf(e.replica, sizeof(e.replica), "%s", replica);
			e.ctr = id;
			if ((err = pod_env_from(c, base, i, ctr, k, &e, d)))
				return err;
		}
		if ((err = pod_mpirun(c, base, i, replica, ctr, id, d)))
			return err;
	}
	return 0;
}

int pod_collect(struct pod_ctx *c, const struct pod_group *g, struct diag *d)
{
	char base[224];
	int err;

	snprintf(base, sizeof(base), "%s.containers", g->base);
	if ((err = pod_ctrs(c, base, g->replica, g->ps->containers, g->ps->containers_count, d)))
		return err;
	snprintf(base, sizeof(base), "%s.initContainers", g->base);
	return pod_ctrs(c, base, g->replica, g->ps->init, g->ps->init_count, d);
}

static int pod_cmp(const void *a, const void *b)
{
	const struct pod_item *x = a, *y = b;

	if (x->env.line != y->env.line)
		return x->env.line < y->env.line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * mpirun -x exports @used's value of @name to every rank: another mpirun
 * that exports another value is a conflict; a container's own value that
 * differs is replaced, and said so.
 */
static int pod_mpirun_wins(struct pod_ctx *c, const struct pod_cfg *p, const char *name,
			   const struct pod_env *used)
{
	char who[2][140], what[96];
	int err = 0;

	for (size_t i = 0; !err && i < p->n; i++) {
		const struct pod_env *x = &p->env[i];

		if (x == used || strcmp(x->name, name) || x->value_from || used->value_from ||
		    !strcmp(x->value, used->value))
			continue;
		snprintf(what, sizeof(what), "%s=%.40s", name, x->value);
		if (x->src == POD_SRC_MPIRUN)
			err = pod_note(c, POD_NOTE_CONFLICT, x->line, what,
				       "two mpirun commands disagree: %s exports %s (%s:%d), %s "
				       "exports %s (%s:%d); rocesim takes %s, the last in the file",
				       pod_who(x, who[0], sizeof(who[0])), x->value, c->file,
				       x->line, pod_who(used, who[1], sizeof(who[1])), used->value,
				       c->file, used->line, used->value);
		else
			err =
			    pod_note(c, POD_NOTE_OVERRIDDEN, x->src_line, what,
				     "%s gives %s, but mpirun -x (%s, %s:%d) exports %s to every "
				     "rank it starts, over the container's own: the ranks run with "
				     "%s, and so does rocesim",
				     pod_who(x, who[0], sizeof(who[0])), x->value,
				     pod_who(used, who[1], sizeof(who[1])), c->file, used->line,
				     used->value, used->value);
	}
	return err;
}

/* An NCCL_* name NCCL does not read: a note at each, naming the nearest it reads. */
static int pod_unknown(struct pod_ctx *c, const struct pod_cfg *p)
{
	int err = 0;

	for (size_t i = 0; !err && i < p->n; i++) {
		const struct pod_env *e = &p->env[i];

		if (nccl_env_known(e->name))
			continue;
		err = pod_note(c, POD_NOTE_UNKNOWN, e->line, e->name,
			       "NCCL reads no variable %s (not among the variables of NCCL's "
			       "Environment Variables page or its source): it changes nothing, "
			       "and what it was meant to set keeps NCCL's default; did you mean "
			       "%s?",
			       e->name, nccl_env_nearest(e->name));
	}
	return err;
}

/*
 * Containers that give variable @name two values: one note, at the value
 * the model takes, naming the first container that gives another and how
 * many more do. A value known only at run time is no conflict.
 */
static int pod_conflict(struct pod_ctx *c, const struct pod_cfg *p, const char *name)
{
	const struct pod_env *used = pod_get(p, name), *ref = NULL, *other = NULL, **eff;
	char who[2][140], what[96], tail[200] = "";
	size_t ndiff = 0;
	int err = 0;

	if (used && used->src == POD_SRC_MPIRUN)
		return pod_mpirun_wins(c, p, name, used);
	if (!used || c->n_ctr < 2)
		return 0;
	if (!(eff = calloc(c->n_ctr, sizeof(*eff))))
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->env[i].name, name))
			eff[p->env[i].ctr] = &p->env[i]; /* each container's own: its last */
	for (unsigned k = 0; k < c->n_ctr; k++)
		if (eff[k] && !eff[k]->value_from && (!ref || eff[k] > ref))
			ref = eff[k];
	for (unsigned k = 0; ref && k < c->n_ctr; k++) {
		if (!eff[k] || eff[k]->value_from || !strcmp(eff[k]->value, ref->value))
			continue;
		ndiff++;
		if (!other || eff[k] < other)
			other = eff[k];
	}
	if (ndiff) {
		if (ndiff > 1)
			snprintf(tail, sizeof(tail),
				 ", and %zu more container%s give%s other values", ndiff - 1,
				 ndiff > 2 ? "s" : "", ndiff > 2 ? "" : "s");
		snprintf(what, sizeof(what), "%s=%.40s", name, ref->value);
		if (used == ref)
			err = pod_note(c, POD_NOTE_CONFLICT, ref->src_line, what,
				       "containers disagree: %s gives %s (%s:%d), %s gives %s "
				       "(%s:%d)%s; rocesim takes %s, the last in the file",
				       pod_who(ref, who[0], sizeof(who[0])), ref->value, c->file,
				       ref->src_line, pod_who(other, who[1], sizeof(who[1])),
				       other->value, c->file, other->src_line, tail, ref->value);
		else
			err = pod_note(c, POD_NOTE_CONFLICT, ref->src_line, what,
				       "containers disagree: %s gives %s (%s:%d), %s gives %s "
				       "(%s:%d)%s; the last in the file (%s:%d) is set at run time",
				       pod_who(ref, who[0], sizeof(who[0])), ref->value, c->file,
				       ref->src_line, pod_who(other, who[1], sizeof(who[1])),
				       other->value, c->file, other->src_line, tail, c->file,
				       used->line);
	}
	free(eff);
	return err;
}

int pod_finish(struct pod_ctx *c, struct pod_cfg *out)
{
	int err = 0;

	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), pod_cmp);
	out->env = calloc(c->n ? c->n : 1, sizeof(*out->env));
	if (!out->env)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		out->env[i] = c->v[i].env;
	out->n = c->n;
	for (size_t i = 0; !err && i < sizeof(pod_model_vars) / sizeof(pod_model_vars[0]); i++)
		err = pod_conflict(c, out, pod_model_vars[i]);
	if (err || (err = pod_unknown(c, out)) || (err = pod_notes_sort(c)))
		return err;
	for (size_t i = 0; i < c->n_notes; i++) {
		struct pod_note *n = &c->notes[i];
		size_t len = strlen(n->msg);

		if (n->more)
			snprintf(n->msg + len, sizeof(n->msg) - len, " (and %u more time%s)",
				 n->more, n->more > 1 ? "s" : "");
	}
	out->notes = c->notes;
	out->n_notes = c->n_notes;
	c->notes = NULL;
	c->n_notes = c->cap_notes = 0;
	out->n_env_from = c->n_env_from;
	out->n_ctr = c->n_ctr;
	return 0;
}
