/*
 * The NIC and switch counters of a folder of measured files beside a
 * simulated run (compare_measured.h): each reading read once (a .before
 * and .after pair subtracted), each counter paired with the results.json
 * value docs/measured.md's table "What they are beside" names, by the
 * folder's node names and the run's host, switch and port names; what
 * cannot be paired kept as a row that says why.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/compare_measured.h"

void cc_measured_free(struct cc_measured *m)
{
	for (size_t i = 0; i < m->n; i++)
		mc_free(&m->sets[i]);
	free(m->sets);
	free(m->entry);
	md_free(&m->dir);
	memset(m, 0, sizeof(*m));
}

/* Entry @e read, its pair subtracted, into @out. */
static int cc_read_entry(const struct md_entry *e, struct mc_set *out, struct diag *d)
{
	struct mc_set before = {0}, after = {0};
	int err;

	if (!e->before[0])
		return mc_read((enum mc_kind)e->kind, e->path, out, d);
	err = mc_read((enum mc_kind)e->kind, e->before, &before, d);
	if (!err)
		err = mc_read((enum mc_kind)e->kind, e->path, &after, d);
	if (!err)
		err = mc_diff(&before, &after, out, d);
	mc_free(&before);
	mc_free(&after);
	return err;
}

int cc_measured_load(const char *dir, struct cc_measured *out, struct diag *d)
{
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = md_read(dir, &out->dir, d)))
		return err;
	out->sets = calloc(out->dir.n + 1, sizeof(*out->sets));
	out->entry = calloc(out->dir.n + 1, sizeof(*out->entry));
	if (!out->sets || !out->entry) {
		diag_set(d, dir, 0, "", "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < out->dir.n; i++) {
		const struct md_entry *e = &out->dir.v[i];

		if (e->kind == MD_NCCL_TESTS || e->kind == MD_NCCL_INSPECTOR) {
			out->n_nccl++;
			continue;
		}
		out->entry[out->n] = e;
		if ((err = cc_read_entry(e, &out->sets[out->n++], d)))
			return err;
	}
	if (!out->n) {
		diag_set(d, dir, 0, "",
			 "no NODE.ethtool, .hw-counters, .pfcstat or .queuestat file: no counter "
			 "to compare");
		return -EINVAL;
	}
	return 0;
}

void cc_free(struct cc_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = t->paired = 0;
}

const char *cc_state_text(enum cc_state s)
{
	switch (s) {
	case CC_PAIRED:
		return "compared";
	case CC_NO_COUNTERPART:
		return "rocesim counts nothing of the kind";
	case CC_NA:
		return "N/A as the tool printed it";
	case CC_NO_NODE:
		return "the run has no host or switch of that name";
	case CC_NO_PORT:
		return "the run's switch has no such port";
	case CC_NOT_IN_RUN:
		return "the run's results.json does not hold it";
	}
	return "?";
}

/* The element of array @arr whose "name" is @name, or NULL. */
static const json_t *cc_named(const json_t *arr, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));

		if (n && !strcmp(n, name))
			return v;
	}
	return NULL;
}

/* The element of array @arr whose integer @key is @want, or NULL. */
static const json_t *cc_indexed(const json_t *arr, const char *key, long want)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (json_integer_value(json_object_get(v, key)) == want)
			return v;
	return NULL;
}

/* @o's number @key, 0 when absent. */
static double cc_num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* The port of switch @sw that @scope names: by its name, or as NODE:SCOPE. */
static const json_t *cc_port(const json_t *sw, const char *node, const char *scope)
{
	const json_t *ports = json_object_get(sw, "ports"), *p;
	char name[160];

	if ((p = cc_named(ports, scope)))
		return p;
	snprintf(name, sizeof(name), "%s:%s", node, scope);
	return cc_named(ports, name);
}

/* The simulated value of host counter @r (ethtool or hw_counters) of @host. */
static void cc_host(struct cc_row *r, const json_t *host)
{
	const json_t *v = json_object_get(host, r->name);

	if (json_is_number(v)) {
		r->state = CC_PAIRED;
		r->simulated = json_number_value(v);
	} else if (!strncmp(r->name, "rx_prio", 7) || !strncmp(r->name, "tx_prio", 7)) {
		/* results.json lists a priority's PAUSE counters only where PFC
		 * is on or PAUSE frames went: none counted */
		r->state = CC_PAIRED;
		r->simulated = 0;
	} else {
		r->state = CC_NOT_IN_RUN;
	}
}

/* The simulated value of switch counter @r (pfcstat or queuestat) of @sw. */
static void cc_switch(struct cc_row *r, const json_t *sw)
{
	char port[64];
	const char *q = NULL;
	const json_t *p;

	snprintf(port, sizeof(port), "%s", r->scope);
	if (r->kind == MC_QUEUESTAT && (q = strrchr(r->scope, ' ')))
		port[q - r->scope] = '\0';
	if (!(p = cc_port(sw, r->node, port))) {
		r->state = CC_NO_PORT;
		return;
	}
	snprintf(r->port, sizeof(r->port), "%s", json_string_value(json_object_get(p, "name")));
	r->state = CC_PAIRED;
	if (r->kind == MC_PFCSTAT) {
		const json_t *e =
		    cc_indexed(json_object_get(p, "pfc"), "priority", r->name[3] - '0');
		int rx = !strcmp(r->name + 5, "Rx");

		r->simulated = rx ? cc_num(e, "rx_pause") + cc_num(e, "rx_resume")
				  : cc_num(e, "tx_pause") + cc_num(e, "tx_resume");
	} else {
		r->simulated =
		    cc_num(cc_indexed(json_object_get(p, "queues"), "queue", q[3] - '0'), "drops");
	}
}

/* A row for counter @c of set @s (node @node) into @t, paired with @res. */
static int cc_row_add(struct cc_table *t, const char *node, const struct mc_set *s,
		      const struct mc_counter *c, const json_t *res)
{
	const json_t *host = cc_named(json_object_get(res, "hosts"), node);
	const json_t *sw = cc_named(json_object_get(res, "switches"), node);
	struct cc_row *r;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct cc_row *v = realloc(t->rows, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->rows = v;
		t->cap = cap;
	}
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->node, sizeof(r->node), "%s", node);
	snprintf(r->scope, sizeof(r->scope), "%s", c->scope);
	snprintf(r->name, sizeof(r->name), "%s", c->name);
	snprintf(r->file, sizeof(r->file), "%s", c->file);
	r->kind = (int)s->kind;
	r->line = c->line;
	r->measured = (double)c->value;
	r->ratio = NAN;
	if (!mc_rocesim_name(s->kind, c, r->rocesim, sizeof(r->rocesim))) {
		r->rocesim[0] = '\0';
		r->state = CC_NO_COUNTERPART;
	} else if (c->na) {
		r->state = CC_NA;
	} else if (s->kind == MC_ETHTOOL || s->kind == MC_HW_COUNTERS) {
		if (host)
			cc_host(r, host);
		else
			r->state = CC_NO_NODE;
	} else if (sw) {
		cc_switch(r, sw);
	} else {
		r->state = CC_NO_NODE;
	}
	if (r->state != CC_PAIRED)
		return 0;
	t->paired++;
	if (r->measured > 0)
		r->ratio = r->simulated / r->measured;
	r->score = fabs(log((r->simulated + CC_FLOOR) / (r->measured + CC_FLOOR)));
	return 0;
}

int cc_pair(const struct cc_measured *m, const json_t *results, const char *run,
	    struct cc_table *out, struct diag *d)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->folder, sizeof(out->folder), "%s", m->dir.folder);
	snprintf(out->run, sizeof(out->run), "%s", run);
	if (!json_is_array(json_object_get(results, "hosts")) ||
	    !json_is_array(json_object_get(results, "switches"))) {
		diag_set(d, run, 0, "hosts", "no hosts[] or switches[]: not a run's results.json");
		return -EINVAL;
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct mc_set *s = &m->sets[i];

		for (size_t k = 0; k < s->n; k++) {
			if (cc_row_add(out, m->entry[i]->node, s, &s->v[k], results)) {
				diag_set(d, run, 0, "", "out of memory");
				return -ENOMEM;
			}
		}
	}
	return 0;
}

int cc_compare(const char *dir, const char *run, struct cc_table *out, struct diag *d)
{
	struct cc_measured m;
	char path[4096];
	json_error_t je;
	json_t *root = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = cc_measured_load(dir, &m, d)))
		goto out;
	if ((err = cm_results_path(run, path, sizeof(path), d)))
		goto out;
	if (!(root = json_load_file(path, 0, &je))) {
		diag_set(d, path, je.line > 0 ? je.line : 0, "", "not JSON: %s", je.text);
		err = -EINVAL;
		goto out;
	}
	err = cc_pair(&m, root, path, out, d);
out:
	json_decref(root);
	cc_measured_free(&m);
	return err;
}

size_t cc_worst(const struct cc_table *t, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		size_t j;

		if (t->rows[i].state != CC_PAIRED)
			continue;
		/* insertion by score, largest first, stable */
		for (j = n; j > 0 && t->rows[idx[j - 1]].score < t->rows[i].score; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
		n++;
	}
	return n;
}
