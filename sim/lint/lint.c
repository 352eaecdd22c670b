/*
 * The rules of `rocesim check` as a library: a scenario loaded leniently,
 * its topology built and routed with the links of --fail and of faults at
 * time 0 down, and every check run on it into a list of findings (severity,
 * code, where, message, and the file, line and key it comes from), sorted
 * errors first. Nothing here prints a finding: sim/cli/check.c says them to
 * people, as JSON, JUnit or SARIF.
 *
 * The checks themselves: check_config.c (thresholds and real configs),
 * check_buffer.c (buffer, headroom and pool against XOFF), check_sonic.c
 * (switch.sonic port by port), check_nic.c (the NIC's classes and
 * mlnx_qos), check_nccl.c (the jobs' NCCL env), check_fabric.c (cyclic
 * buffer dependencies and reachability).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"
#include "sim/lint/lint.h"
#include "topologies/cbd.h"

const char *const chk_severity_name[] = {"error", "warning", "info"};

static char *chk_vfmt(const char *fmt, va_list ap)
{
	va_list copy;
	char *s;
	int len;

	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0)
		return NULL;
	s = malloc((size_t)len + 1);
	if (s)
		vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

void chk_add(struct chk *c, enum chk_severity sev, const char *code, char *where, const char *fmt,
	     ...)
{
	struct chk_finding *f;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = chk_vfmt(fmt, ap);
	va_end(ap);
	f = realloc(c->f, (c->n + 1) * sizeof(*f));
	if (!where || !msg || !f) {
		free(where);
		free(msg);
		if (f)
			c->f = f;
		c->oom = 1;
		return;
	}
	c->f = f;
	c->f[c->n++] = (struct chk_finding){sev, code, where, msg, NULL, NULL, 0};
}

void chk_loc(struct chk *c, const char *file, int line, const char *key)
{
	struct chk_finding *f = c->n ? &c->f[c->n - 1] : NULL;

	if (c->oom || !f)
		return; /* the finding was not added: the check stops there */
	free(f->file);
	free(f->key);
	f->file = file && *file ? strdup(file) : NULL;
	f->key = key ? strdup(key) : NULL;
	f->line = line > 0 ? line : 0;
	c->oom |= (file && *file && !f->file) || (key && !f->key);
}

void chk_loc_key(struct chk *c, const struct scenario *s, const char *path)
{
	const struct scn_origin *o = scn_origin(s, path);
	struct diag d = {0};

	if (o) {
		chk_loc(c, o->file, o->line, o->key);
		return;
	}
	snprintf(d.path, sizeof(d.path), "%s", path);
	scn_locate(s, &d);
	chk_loc(c, strcmp(d.file, "--set") ? d.file : NULL, d.line, path);
}

char *chk_str(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = chk_vfmt(fmt, ap);
	va_end(ap);
	return s;
}

void chk_free(struct chk *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].where);
		free(c->f[i].message);
		free(c->f[i].file);
		free(c->f[i].key);
	}
	free(c->f);
	free(c->failed);
	cbd_result_free(&c->cbd);
}

/* "file:line key" of a value a real config gave ("file key" without a line). */
const char *chk_at(const struct scn_origin *o, char *buf, size_t size)
{
	if (o->line > 0)
		snprintf(buf, size, "%s:%d %s", o->file, o->line, o->key);
	else
		snprintf(buf, size, "%s %s", o->file, o->key);
	return buf;
}

/*
 * Where a key's value comes from: "(file:line)" of the scenario, "(--set)",
 * "(config:line KEY)" of the real config that gave it, or "(default)".
 */
const char *chk_origin(const struct scenario *s, const char *path, char *buf, size_t size)
{
	const struct scn_origin *o = scn_origin(s, path);
	struct diag d = {0};
	char at[500];

	if (o) {
		snprintf(buf, size, "(%s)", chk_at(o, at, sizeof(at)));
		return buf;
	}
	snprintf(d.path, sizeof(d.path), "%s", path);
	scn_locate(s, &d);
	if (!strcmp(d.file, "--set"))
		snprintf(buf, size, "(--set)");
	else if (d.line > 0)
		snprintf(buf, size, "(%s:%d)", d.file, d.line);
	else
		snprintf(buf, size, "(default)");
	return buf;
}

/* "3,4" for a priority mask. */
const char *chk_prios(uint8_t mask, char *buf, size_t size)
{
	return chk_prio_list(mask, ",", "none", buf, size);
}

/* Errors first, then warnings, then info; each kind in the order found. */
static void chk_sort(struct chk *c)
{
	for (size_t i = 1; i < c->n; i++) {
		struct chk_finding f = c->f[i];
		size_t k = i;

		for (; k > 0 && c->f[k - 1].severity > f.severity; k--)
			c->f[k] = c->f[k - 1];
		c->f[k] = f;
	}
}

const char *chk_prio_list(uint8_t mask, const char *sep, const char *none, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8 && len < size; p++)
		if (mask & (1u << p))
			len += (size_t)snprintf(buf + len, size - len, "%s%d", len ? sep : "", p);
	if (!len)
		snprintf(buf, size, "%s", none);
	return buf;
}

/* "faults[i]", the key of a faults: entry. */
static const char *fault_key(char *buf, size_t size, uint32_t entry)
{
	snprintf(buf, size, "faults[%u]", entry);
	return buf;
}

int chk_analyse(const struct chk_args *a, struct chk *cp, struct scenario **sp, struct topo **tp,
		struct topo_routes **rp, int quiet)
{
	char key[32];
	uint32_t said_up; /* the faults: entry last said to come back up */
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	struct diag d = {0};
	int err, rc = ROCESIM_EXIT_INPUT;

	err = scn_load_with(a->scenario,
			    &(struct scn_load_opts){.overlays = a->withs,
						    .n_overlays = a->n_withs,
						    .sets = a->sets,
						    .n_sets = a->n_sets,
						    .flags = SCN_LOAD_LENIENT},
			    &s, &d);
	if (err && !quiet) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
	}
	if (err)
		return ROCESIM_EXIT_INPUT;
	err = topo_build(&s->topo, &t, &d);
	if (err)
		scn_locate(s, &d);
	else
		err = scn_resolve(s, t, &d);
	if (err && quiet)
		goto out;
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr, "rocesim: out of memory\n");
		else {
			fprintf(stderr, "rocesim: ");
			diag_print(&d, stderr);
		}
		goto out;
	}
	c.failed = malloc(((size_t)t->n_links + 1) * sizeof(*c.failed));
	if (!c.failed) {
		if (!quiet)
			fprintf(stderr, "rocesim: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < a->n_fails; i++)
		if (chk_fail_link(&c, t, a->fails[i]))
			goto out;
	said_up = UINT32_MAX;
	for (uint32_t i = 0; i < s->n_faults; i++) {
		const struct net_fault *f = &s->faults[i];
		struct topo_link *l = &t->links[f->link];

		const char *node = scn_fault_node(s, s->fault_of[i]);

		if (f->kind == NET_FAULT_LINK_UP && !l->up && s->fault_of[i] != said_up) {
			/* a link down at 0 that comes back: said once per node_up, link_up
			 * or flap (whose own down at 0 comes just before its first up) */
			said_up = s->fault_of[i];
			chk_add(
			    &c, CHK_INFO, "LINK_UP_LATER",
			    chk_str("faults[%u]: %s", s->fault_of[i], node ? node : l->name),
			    "comes back up at %.3f us; this analysis has it down, as before then",
			    simtime_to_us(f->at));
			chk_loc_key(&c, s, fault_key(key, sizeof(key), s->fault_of[i]));
		}
		if (f->kind != NET_FAULT_LINK_DOWN)
			continue;
		if (f->at == 0 && l->up) {
			l->up = 0;
			c.failed[c.n_failed++] = f->link;
		} else if (f->at && i && s->fault_of[i - 1] == s->fault_of[i]) {
			continue; /* once for a node or a flap, not for each link or time */
		} else if (f->at && node) {
			chk_add(&c, CHK_INFO, "NODE_DOWN_LATER",
				chk_str("faults[%u]: %s", s->fault_of[i], node),
				"goes down at %.3f us with all its links; this analysis has it up "
				"(--fail %s analyses the routes after it)",
				simtime_to_us(f->at), node);
			chk_loc_key(&c, s, fault_key(key, sizeof(key), s->fault_of[i]));
		} else if (f->at) {
			chk_add(
			    &c, CHK_INFO, "LINK_DOWN_LATER",
			    chk_str("faults[%u]: %s", s->fault_of[i], l->name),
			    "goes down at %.3f us; this analysis has it up (--fail %s analyses the "
			    "routes after it)",
			    simtime_to_us(f->at), l->name);
			chk_loc_key(&c, s, fault_key(key, sizeof(key), s->fault_of[i]));
		}
	}
	err = topo_routes_build(t, &r);
	if (!err)
		err = chk_deadlock(&c, s, t, r, a);
	if (!err)
		err = chk_reach(&c, s, t, r, a);
	if (err) {
		if (!quiet)
			fprintf(stderr, "rocesim: %s\n",
				err == -ENOMEM ? "out of memory"
					       : "the topology is too large to route");
		goto out;
	}
	for (uint32_t i = 0; i < t->n_links; i++)
		if ((t->nodes[t->links[i].a].kind == TOPO_HOST ||
		     t->nodes[t->links[i].b].kind == TOPO_HOST) &&
		    t->links[i].rate_bps > c.line_rate_bps)
			c.line_rate_bps = t->links[i].rate_bps;
	chk_switches(&c, s, t);
	chk_nic(&c, s);
	chk_nccl(&c, s, t);
	if (c.oom) {
		if (!quiet)
			fprintf(stderr, "rocesim: out of memory\n");
		goto out;
	}
	chk_sort(&c);
	rc = 0;
out:
	*cp = c;
	*sp = s;
	*tp = t;
	*rp = r;
	return rc;
}

int chk_errors(const char *scenario, const char *const *withs, size_t n_withs,
	       const char *const *sets, size_t n_sets, char *first, size_t size)
{
	struct chk_args a = {.scenario = scenario,
			     .withs = (const char **)withs,
			     .n_withs = n_withs,
			     .sets = (const char **)sets,
			     .n_sets = n_sets,
			     .max_cycles = CHK_MAX_CYCLES};
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	char line[2048];
	int n = 0;

	first[0] = '\0';
	if (chk_analyse(&a, &c, &s, &t, &r, 1))
		n = -1;
	for (size_t i = 0; !n && i < c.n; i++) {
		if (c.f[i].severity != CHK_ERROR)
			continue;
		if (!first[0]) {
			snprintf(line, sizeof(line), "%s %s: %s", c.f[i].code, c.f[i].where,
				 c.f[i].message);
			txt_term(first, size, line);
		}
		n++;
	}
	chk_free(&c);
	topo_routes_free(r);
	topo_free(t);
	scn_free(s);
	return n;
}
