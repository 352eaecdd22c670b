/*
 * The checks of `rocesim check` on the fabric: links taken down (--fail,
 * link_down faults at 0) and the capacity they cost per tier, cyclic
 * buffer dependencies of the lossless priorities (topologies/cbd.h), and
 * host pairs no route joins.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"
#include "topologies/cbd.h"

#define CHK_MAX_PAIRS 8 /* unreachable pairs listed by name */

/* The cycle as "priority 3: a -> b -> c -> a". */
static char *chk_cycle_where(const struct topo *t, const struct cbd_cycle *cy)
{
	size_t len = 32, off;
	char *buf;

	for (uint32_t i = 0; i < cy->n; i++)
		len += strlen(t->ports[cy->ports[i]].name) + 4;
	len += strlen(t->ports[cy->ports[0]].name);
	buf = malloc(len);
	if (!buf)
		return NULL;
	off = (size_t)snprintf(buf, len, "priority %u: ", cy->prio);
	for (uint32_t i = 0; i <= cy->n; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " -> " : "",
					t->ports[cy->ports[i % cy->n]].name);
	return buf;
}

/* Findings of the fabric: at the scenario's topology (its file is not
 * where a route or a cycle is written). */
static void chk_loc_topology(struct chk *c, const struct scenario *s)
{
	chk_loc_key(c, s, "topology");
}

/* The deadlock analysis and its findings. 0, or -ENOMEM. */
int chk_deadlock(struct chk *c, const struct scenario *s, const struct topo *t,
		 const struct topo_routes *r, const struct chk_args *a)
{
	uint8_t lossless = scn_lossless(s);
	struct cbd_pair *pairs = NULL;
	size_t n_pairs = 0, on_lossless = 0;
	char prios[32];
	int err;

	if (!lossless) {
		chk_add(c, CHK_INFO, "CBD_GRAPH", chk_str("deadlock analysis"),
			"no lossless priority (%s): without PFC no buffer waits on another, "
			"no PFC deadlock",
			s->sw.pfc.enabled ? "switch.lossless is empty"
					  : "switch.pfc.enabled is false");
		chk_loc_key(c, s, s->sw.pfc.enabled ? "switch.lossless" : "switch.pfc.enabled");
		return 0;
	}
	if (!a->all_pairs) {
		if (scn_pairs(s, &pairs, &n_pairs))
			return -ENOMEM;
		for (size_t i = 0; i < n_pairs; i++)
			on_lossless += (lossless >> pairs[i].prio) & 1;
	}
	err = cbd_analyze(t, r, lossless, a->all_pairs ? NULL : pairs, n_pairs, a->max_cycles,
			  &c->cbd);
	free(pairs);
	if (err)
		return err;

	for (uint32_t i = 0; i < c->cbd.n_cycles; i++) {
		const struct cbd_cycle *cy = &c->cbd.cycles[i];

		chk_add(
		    c, CHK_ERROR, "CBD_CYCLE", chk_cycle_where(t, cy),
		    "cyclic buffer dependency of %u ingress buffers: when they fill together each "
		    "waits on the next and PFC pauses go round for ever, a PFC deadlock; break the "
		    "cycle (routes without down-up turns, bounced traffic on another priority) %s",
		    cy->n,
		    s->sw.wd.enabled ? "or rely on switch.watchdog, which drops or forwards "
				       "the stuck queues"
				     : "or enable switch.watchdog to break it when it happens");
		chk_loc_topology(c, s);
	}
	if (c->cbd.truncated)
		chk_add(
		    c, CHK_WARNING, "CBD_TRUNCATED", chk_str("deadlock analysis"),
		    "more cycles exist than are listed (at most %u per priority, shortest first; "
		    "--max-cycles raises the limit)",
		    a->max_cycles);
	if (c->cbd.truncated)
		chk_loc_topology(c, s);
	if (a->all_pairs)
		chk_add(c, CHK_INFO, "CBD_GRAPH", chk_str("deadlock analysis: all pairs"),
			"%u ingress buffers, %u dependencies, %u cyclic component%s over lossless "
			"priorities %s, every pair of %u hosts",
			c->cbd.n_nodes, c->cbd.n_edges, c->cbd.n_sccs,
			c->cbd.n_sccs == 1 ? "" : "s", chk_prios(lossless, prios, sizeof(prios)),
			t->n_hosts);
	else
		chk_add(c, CHK_INFO, "CBD_GRAPH", chk_str("deadlock analysis: workload"),
			"%u ingress buffers, %u dependencies, %u cyclic component%s over lossless "
			"priorities %s; %zu of %zu source-destination pairs on them "
			"(--all-pairs: every pair of hosts)",
			c->cbd.n_nodes, c->cbd.n_edges, c->cbd.n_sccs,
			c->cbd.n_sccs == 1 ? "" : "s", chk_prios(lossless, prios, sizeof(prios)),
			on_lossless, n_pairs);
	chk_loc_topology(c, s);
	return 0;
}

static int chk_u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Add "src -> dst" to the list in @buf (@off so far), while it holds fewer than the cap. */
static void chk_pair_name(const struct topo *t, uint64_t key, size_t listed, char *buf, size_t size,
			  size_t *off)
{
	uint32_t src = (uint32_t)(key >> 32), dst = (uint32_t)key;

	if (listed >= CHK_MAX_PAIRS || *off >= size)
		return;
	*off += (size_t)snprintf(buf + *off, size - *off, "%s%s -> %s", listed ? ", " : "",
				 t->nodes[t->hosts[src]].name, t->nodes[t->hosts[dst]].name);
}

/*
 * " (down: a, b and 3 more)": the links taken down, as many whole names as
 * fit in @size with room for the count, never a name cut short.
 */
static void chk_failed_names(const struct chk *c, const struct topo *t, char *buf, size_t size)
{
	size_t off = 0, tail = 32; /* " and 4294967295 more)" */
	uint32_t i;

	buf[0] = '\0';
	if (!c->n_failed)
		return;
	for (i = 0; i < c->n_failed; i++) {
		const char *name = t->links[c->failed[i]].name;
		size_t need = strlen(name) + (i ? 2 : 8);

		if (off + need + (i + 1 < c->n_failed ? tail : 2) > size)
			break;
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : " (down: ", name);
	}
	if (i < c->n_failed)
		snprintf(buf + off, size - off, "%s%u %s)",
			 i ? " and " : " (down: ", c->n_failed - i, i ? "more" : "links");
	else
		snprintf(buf + off, size - off, ")");
}

/* The tier of each switch: its hops from the nearest host (a leaf 1, a spine 2, ...). */
static uint32_t *chk_levels(const struct topo *t)
{
	uint32_t *lv = malloc((t->n_nodes ? t->n_nodes : 1) * sizeof(*lv));
	int more = 1;

	if (!lv)
		return NULL;
	for (uint32_t u = 0; u < t->n_nodes; u++)
		lv[u] = t->nodes[u].kind == TOPO_HOST ? 0 : UINT32_MAX;
	/* relax over the links until nothing moves: as many rounds as tiers */
	while (more) {
		more = 0;
		for (uint32_t k = 0; k < t->n_links; k++) {
			uint32_t a = t->links[k].a, b = t->links[k].b;

			if (lv[a] != UINT32_MAX && lv[a] + 1 < lv[b]) {
				lv[b] = lv[a] + 1;
				more = 1;
			}
			if (lv[b] != UINT32_MAX && lv[b] + 1 < lv[a]) {
				lv[a] = lv[b] + 1;
				more = 1;
			}
		}
	}
	return lv;
}

#define CHK_TIERS 8

/*
 * The capacity the links taken down cost, per tier of links: host links,
 * then tier 1-2 (leaf-spine, edge-aggregation), tier 2-3 (aggregation-
 * core), ...: links down of all, and bandwidth down of all (one direction).
 * An info finding. 0 or -ENOMEM.
 */
static int chk_capacity(struct chk *c, const struct scenario *s, const struct topo *t)
{
	struct {
		uint32_t links, down;
		uint64_t bps, down_bps;
	} tier[CHK_TIERS] = {{0}};
	uint32_t *lv = chk_levels(t), top = 0;
	char msg[CHK_TIERS * 96] = "", *where;
	size_t off = 0;

	if (!lv)
		return -ENOMEM;
	for (uint32_t k = 0; k < t->n_links; k++) {
		uint32_t a = lv[t->links[k].a], b = lv[t->links[k].b];
		uint32_t i = a < b ? a : b;

		if (i == UINT32_MAX)
			continue; /* switches no host reaches */
		i = i < CHK_TIERS - 1 ? i : CHK_TIERS - 1;
		tier[i].links++;
		tier[i].bps += t->links[k].rate_bps;
		top = i > top ? i : top;
	}
	for (uint32_t f = 0; f < c->n_failed; f++) {
		const struct topo_link *l = &t->links[c->failed[f]];
		uint32_t a = lv[l->a], b = lv[l->b], i = a < b ? a : b;

		if (i == UINT32_MAX)
			continue;
		i = i < CHK_TIERS - 1 ? i : CHK_TIERS - 1;
		tier[i].down++;
		tier[i].down_bps += l->rate_bps;
	}
	free(lv);
	for (uint32_t i = 0; i <= top; i++) {
		char name[32];
		double unit;

		if (!tier[i].links)
			continue;
		if (i)
			snprintf(name, sizeof(name), "tier %u-%u", i, i + 1);
		else
			snprintf(name, sizeof(name), "host links");
		/* in the unit of the tier's whole: Tb/s from 1 Tb/s on, else Gb/s */
		unit = tier[i].bps >= 1000000000000ULL ? 1e12 : 1e9;
		off += (size_t)snprintf(
		    msg + off, sizeof(msg) - off, "%s%s %u of %u links, %.*f of %.*f %s (%.1f%%)",
		    off ? "; " : "", name, tier[i].down, tier[i].links, unit > 1e9 ? 1 : 0,
		    (double)tier[i].down_bps / unit, unit > 1e9 ? 1 : 0, (double)tier[i].bps / unit,
		    unit > 1e9 ? "Tb/s" : "Gb/s",
		    100.0 * (double)tier[i].down_bps / (double)tier[i].bps);
		if (off >= sizeof(msg))
			break;
	}
	where = chk_str("capacity lost");
	if (!where)
		return -ENOMEM;
	chk_add(c, CHK_INFO, "CAPACITY_LOST", where,
		"the %u link%s down take, per tier (one direction): %s", c->n_failed,
		c->n_failed == 1 ? "" : "s", msg);
	chk_loc_topology(c, s);
	return 0;
}

/*
 * Source-destination pairs (the workload's, or every pair of hosts) that no
 * route joins over the links that are up: a partition, from failed links or
 * a topology in pieces. What they send is lost at the first switch with no
 * way on, whatever PFC does. 0 or -ENOMEM.
 */
int chk_reach(struct chk *c, const struct scenario *s, const struct topo *t,
	      const struct topo_routes *r, const struct chk_args *a)
{
	struct cbd_pair *pairs = NULL;
	uint64_t *keys = NULL;
	size_t n_pairs = 0, n = 0, total = 0, bad = 0, off = 0;
	char list[CHK_MAX_PAIRS * (2 * TOPO_NAME_MAX + 8) + 32], down[400] = "";

	if (a->all_pairs) {
		for (uint32_t src = 0; src < t->n_hosts; src++)
			for (uint32_t dst = 0; dst < t->n_hosts; dst++) {
				if (src == dst)
					continue;
				total++;
				if (topo_distance(r, t->hosts[src], dst) != UINT32_MAX)
					continue;
				chk_pair_name(t, (uint64_t)src << 32 | dst, bad++, list,
					      sizeof(list), &off);
			}
	} else {
		if (scn_pairs(s, &pairs, &n_pairs))
			return -ENOMEM;
		keys = malloc((n_pairs ? n_pairs : 1) * sizeof(*keys));
		if (!keys) {
			free(pairs);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n_pairs; i++)
			keys[i] = (uint64_t)pairs[i].src << 32 | pairs[i].dst;
		free(pairs);
		/* a pair once, whatever its classes and channels */
		qsort(keys, n_pairs, sizeof(*keys), chk_u64_cmp);
		for (size_t i = 0; i < n_pairs; i++)
			if (!n || keys[n - 1] != keys[i])
				keys[n++] = keys[i];
		total = n;
		for (size_t i = 0; i < n; i++)
			if (topo_distance(r, t->hosts[keys[i] >> 32], (uint32_t)keys[i]) ==
			    UINT32_MAX)
				chk_pair_name(t, keys[i], bad++, list, sizeof(list), &off);
		free(keys);
	}
	if (c->n_failed && chk_capacity(c, s, t))
		return -ENOMEM;
	if (!bad)
		return 0;
	chk_failed_names(c, t, down, sizeof(down));
	chk_add(c, CHK_ERROR, "UNREACHABLE",
		bad > CHK_MAX_PAIRS
		    ? chk_str("%s: %s and %zu more", a->all_pairs ? "all pairs" : "workload", list,
			      bad - CHK_MAX_PAIRS)
		    : chk_str("%s: %s", a->all_pairs ? "all pairs" : "workload", list),
		"%zu of %zu source-destination pairs have no route over the links that are up%s: "
		"what they send is dropped at the first switch with no way on, so their traffic "
		"never arrives (run counts it in summary.unroutable_flows and "
		"unroutable_packets)",
		bad, total, down[0] ? down : " (the topology is in pieces)");
	chk_loc_topology(c, s);
	return 0;
}

/* Take a link down by name (--fail); 0, or -EINVAL with @why saying why. */
int chk_fail_link(struct chk *c, struct topo *t, const char *name, struct diag *why)
{
	int32_t l = topo_find_link(t, name), node = l < 0 ? topo_find_node(t, name) : -1;

	if (l < 0 && node < 0) {
		diag_set(
		    why, "", 0, "",
		    "--fail: no link or node named \"%s\" (links are named by their ends, e.g. "
		    "%s; nodes e.g. %s)",
		    name, t->n_links ? t->links[t->n_links - 1].name : "a-b",
		    t->n_nodes ? t->nodes[t->n_nodes - 1].name : "sw0");
		return -EINVAL;
	}
	/* a node: every link it has */
	for (uint32_t k = 0; k < t->n_links; k++) {
		if (l >= 0 ? k != (uint32_t)l
			   : t->links[k].a != (uint32_t)node && t->links[k].b != (uint32_t)node)
			continue;
		if (t->links[k].up) {
			t->links[k].up = 0;
			c->failed[c->n_failed++] = k;
		}
	}
	return 0;
}
