/*
 * The rules of `rocesim check` as a library (lint.h): a scenario loaded
 * leniently, its topology built and routed with the links of --fail and of
 * faults at time 0 down, and every check run on it into a list of findings
 * (findings.c), sorted errors first. Nothing here prints a finding:
 * sim/cli/check.c says them to people, as JSON, JUnit or SARIF.
 *
 * The checks themselves (rules.h): check_config.c (thresholds and real
 * configs), check_buffer.c (buffer, headroom and pool against XOFF),
 * check_sonic.c (switch.sonic port by port), switches.c (those per switch
 * with a config per switch), check_nic.c (the NIC's classes and mlnx_qos),
 * check_nccl.c (the jobs' NCCL env), check_fabric.c (cyclic buffer
 * dependencies and reachability).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"
#include "sim/lint/lint.h"
#include "sim/lint/rules.h"
#include "topologies/cbd.h"
#include "sim/readers/topo_read.h"

/* "faults[i]", the key of a faults: entry. */
static const char *fault_key(char *buf, size_t size, uint32_t entry)
{
	snprintf(buf, size, "faults[%u]", entry);
	return buf;
}

int chk_analyse(const struct chk_args *a, struct chk *cp, struct scenario **sp, struct topo **tp,
		struct topo_routes **rp, struct diag *why)
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
	if (err) {
		if (why)
			*why = d;
		return ROCESIM_EXIT_INPUT;
	}
	err = topo_build(&s->topo, &t, &d);
	if (err)
		scn_locate(s, &d);
	else
		err = scn_resolve(s, t, &d);
	if (err) {
		if (err == -ENOMEM)
			diag_set(&d, "", 0, "", "out of memory");
		goto out;
	}
	c.failed = malloc(((size_t)t->n_links + 1) * sizeof(*c.failed));
	if (!c.failed) {
		diag_set(&d, "", 0, "", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < a->n_fails; i++)
		if (chk_fail_link(&c, t, a->fails[i], &d))
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
		diag_set(&d, "", 0, "", "%s",
			 err == -ENOMEM ? "out of memory" : "the topology is too large to route");
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
		diag_set(&d, "", 0, "", "out of memory");
		goto out;
	}
	chk_sort(&c);
	rc = 0;
out:
	if (rc && why)
		*why = d;
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
	if (chk_analyse(&a, &c, &s, &t, &r, NULL))
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
