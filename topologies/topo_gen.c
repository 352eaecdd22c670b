/*
 * Generators for the usual shapes (star, leaf-spine, rail-optimized, k-ary
 * fat-tree, ring) with the names docs/scenario.md gives ("Names"), and
 * topo_build(), which picks the generator or loader of a kind.
 *
 * Generated topologies put the hosts first (server by server, nic0 first:
 * with one NIC per server node i is host h<i>) and their links first (link i
 * is the link of host i), then the switches and the switch-switch links, so
 * a switch lists its host ports before its uplinks.
 */
#include "topologies/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Scenario checks shared by the generators. */
static int topo_need(struct diag *d, uint32_t v, const char *path, const char *what)
{
	if (v > 0)
		return 0;
	diag_set(d, "", 0, path, "must be at least 1 (%s)", what);
	return -EINVAL;
}

static int topo_check_ports(struct diag *d, uint64_t ports, const char *node, const char *path,
			    const char *how)
{
	if (ports <= TOPO_MAX_PORTS)
		return 0;
	diag_set(d, "", 0, path, "%s would have %" PRIu64 " ports (%s); a node has at most %u",
		 node, ports, how, TOPO_MAX_PORTS);
	return -EINVAL;
}

static int topo_check_size(struct diag *d, uint64_t nodes, uint64_t links, const char *path)
{
	if (nodes <= TOPO_MAX_ELEMS && links <= TOPO_MAX_ELEMS)
		return 0;
	diag_set(d, "", 0, path,
		 "too large: %" PRIu64 " nodes and %" PRIu64 " links (at most %u of each)", nodes,
		 links, TOPO_MAX_ELEMS);
	return -EINVAL;
}

static int topo_range(struct diag *d, const char *path, uint32_t v, uint32_t max)
{
	diag_set(d, "", 0, path, "%" PRIu32 " is out of range (1 to %" PRIu32 ")", v, max);
	return -EINVAL;
}

static int topo_check_rate(struct diag *d, const struct topo_linkspec *ls, const char *path)
{
	if (ls->rate_bps > 0)
		return 0;
	diag_set(d, "", 0, path, "must be a positive rate (e.g. 100Gbps)");
	return -EINVAL;
}

/* Add @n nodes named <prefix><i>; the index of the first in @first. */
static int topo_add_series(struct topo *t, const char *prefix, uint32_t n, enum topo_node_kind kind,
			   uint32_t *first)
{
	char name[TOPO_NAME_MAX];
	uint32_t i;
	int32_t r;

	*first = t->n_nodes;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%" PRIu32, prefix, i);
		r = topo_add_node(t, name, kind);
		if (r < 0)
			return r;
	}
	return 0;
}

/* NICs and GPUs per server of a generated kind: 0 means the default. */
static uint32_t topo_nics(const struct topo_spec *s)
{
	return s->nics_per_host ? s->nics_per_host : 1;
}

/* Servers h0.. with topology.nics_per_host and gpus_per_host each. */
static int topo_add_servers(struct topo *t, const struct topo_spec *s, uint32_t n)
{
	char name[TOPO_NAME_MAX];
	uint32_t i;
	int32_t r;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%" PRIu32, i);
		r = topo_add_server(t, name, topo_nics(s), s->gpus_per_host);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The NICs of servers h0.. (nodes 0..) on switches first_sw.., @per servers each. */
static int topo_add_host_links(struct topo *t, const struct topo_spec *s, uint32_t n_servers,
			       uint32_t per, uint32_t first_sw)
{
	uint64_t h, n = (uint64_t)n_servers * topo_nics(s);
	int32_t r;

	for (h = 0; h < n; h++) {
		r = topo_add_link(t, (uint32_t)h, first_sw + (uint32_t)(h / topo_nics(s) / per),
				  &s->link);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The key to blame when @servers x nics_per_host host ports overflow a switch. */
static const char *topo_host_key(const struct topo_spec *s, uint64_t servers, const char *key)
{
	return servers <= TOPO_MAX_PORTS && topo_nics(s) > 1 ? "topology.nics_per_host" : key;
}

static int topo_gen_star(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint64_t ports = (uint64_t)s->hosts * topo_nics(s);
	uint32_t sw = 0;
	int err;

	err = topo_need(d, s->hosts, "topology.hosts", "hosts on the switch");
	if (!err)
		err =
		    topo_check_ports(d, ports, "sw0", topo_host_key(s, s->hosts, "topology.hosts"),
				     topo_nics(s) > 1 ? "hosts x nics_per_host" : "one per host");
	if (err)
		return err;
	err = topo_add_servers(t, s, s->hosts);
	if (!err)
		err = topo_add_series(t, "sw", 1, TOPO_SWITCH, &sw);
	if (!err)
		err = topo_add_host_links(t, s, s->hosts, s->hosts, sw);
	return err;
}

/* Every leaf joined to every spine by @par links, leaf by leaf. */
static int topo_add_uplinks(struct topo *t, uint32_t leaves, uint32_t n_leaves, uint32_t spines,
			    uint32_t n_spines, uint32_t par, const struct topo_linkspec *ls)
{
	uint32_t i, j, p;
	int32_t r;

	for (i = 0; i < n_leaves; i++) {
		for (j = 0; j < n_spines; j++) {
			for (p = 0; p < par; p++) {
				r = topo_add_link(t, leaves + i, spines + j, ls);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

static int topo_gen_leaf_spine(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t par = s->parallel ? s->parallel : 1;
	uint64_t n_hosts = (uint64_t)s->leaves * s->hosts_per_leaf * topo_nics(s);
	uint64_t host_ports = (uint64_t)s->hosts_per_leaf * topo_nics(s);
	uint64_t leaf_ports = host_ports + (uint64_t)s->spines * par;
	uint64_t spine_ports = (uint64_t)s->leaves * par;
	uint32_t leaves = 0, spines = 0;
	int err;

	err = topo_need(d, s->leaves, "topology.leaves", "leaf switches");
	if (!err)
		err = topo_need(d, s->spines, "topology.spines", "spine switches");
	if (!err)
		err = topo_need(d, s->hosts_per_leaf, "topology.hosts_per_leaf", "hosts per leaf");
	if (!err)
		err = topo_check_ports(
		    d, leaf_ports, "leaf0",
		    host_ports > TOPO_MAX_PORTS
			? topo_host_key(s, s->hosts_per_leaf, "topology.hosts_per_leaf")
			: "topology.spines",
		    topo_nics(s) > 1 ? "hosts_per_leaf x nics_per_host + spines x parallel"
				     : "hosts_per_leaf + spines x parallel");
	if (!err)
		err = topo_check_ports(d, spine_ports, "spine0", "topology.leaves",
				       "leaves x parallel");
	if (!err)
		err = topo_check_size(d, n_hosts + s->leaves + s->spines,
				      n_hosts + (uint64_t)s->leaves * s->spines * par,
				      "topology.hosts_per_leaf");
	if (!err)
		err = topo_check_rate(d, &s->uplink, "topology.uplink.rate");
	if (err)
		return err;

	err = topo_add_servers(t, s, s->leaves * s->hosts_per_leaf);
	if (!err)
		err = topo_add_series(t, "leaf", s->leaves, TOPO_SWITCH, &leaves);
	if (!err)
		err = topo_add_series(t, "spine", s->spines, TOPO_SWITCH, &spines);
	if (!err)
		err = topo_add_host_links(t, s, s->leaves * s->hosts_per_leaf, s->hosts_per_leaf,
					  leaves);
	if (!err)
		err = topo_add_uplinks(t, leaves, s->leaves, spines, s->spines, par, &s->uplink);
	return err;
}

/*
 * Rail-optimized (as NVIDIA's DGX SuperPOD reference architectures wire
 * it): NIC i of every server on rail i's leaf. Servers form groups of
 * servers_per_leaf, each with its own leaf per rail, leaf<group x K + rail>;
 * every leaf reaches every spine.
 */
static int topo_gen_rail(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t par = s->parallel ? s->parallel : 1, k = topo_nics(s);
	uint32_t per = s->servers_per_leaf ? s->servers_per_leaf : s->servers;
	uint64_t n_hosts = (uint64_t)s->servers * k, groups, n_leaves, h;
	uint64_t leaf_ports = (uint64_t)per + (uint64_t)s->spines * par;
	uint32_t leaves = 0, spines = 0;
	int32_t r;
	int err;

	err = topo_need(d, s->servers, "topology.servers", "servers");
	if (!err)
		err = topo_need(d, s->spines, "topology.spines", "spine switches");
	if (err)
		return err;
	if (per > s->servers || s->servers % per) {
		diag_set(d, "", 0, "topology.servers_per_leaf",
			 "must divide topology.servers (%" PRIu32 ")", s->servers);
		return -EINVAL;
	}
	groups = s->servers / per;
	n_leaves = groups * k;
	err =
	    topo_check_ports(d, leaf_ports, "leaf0",
			     per > TOPO_MAX_PORTS ? "topology.servers_per_leaf" : "topology.spines",
			     "servers_per_leaf + spines x parallel");
	if (!err)
		err = topo_check_ports(d, n_leaves * par, "spine0", "topology.servers",
				       "servers / servers_per_leaf x nics_per_host x parallel");
	if (!err)
		err = topo_check_size(d, n_hosts + n_leaves + s->spines,
				      n_hosts + n_leaves * s->spines * par, "topology.servers");
	if (!err)
		err = topo_check_rate(d, &s->uplink, "topology.uplink.rate");
	if (err)
		return err;

	err = topo_add_servers(t, s, s->servers);
	if (!err)
		err = topo_add_series(t, "leaf", (uint32_t)n_leaves, TOPO_SWITCH, &leaves);
	if (!err)
		err = topo_add_series(t, "spine", s->spines, TOPO_SWITCH, &spines);
	/* host h is NIC h % k of server h / k */
	for (h = 0; !err && h < n_hosts; h++) {
		r = topo_add_link(t, (uint32_t)h, leaves + (uint32_t)(h / k / per * k + h % k),
				  &s->link);
		if (r < 0)
			return r;
	}
	if (!err)
		err = topo_add_uplinks(t, leaves, (uint32_t)n_leaves, spines, s->spines, par,
				       &s->uplink);
	return err;
}

/*
 * k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation
 * switches, (k/2)^2 cores; agg<pod>_<j> reaches cores j*k/2 .. j*k/2+k/2-1.
 */
static int topo_gen_fat_tree(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t k = s->k, half = k / 2, pod, i, j, c;
	uint64_t n_servers = (uint64_t)k * k * k / 4, n_hosts = n_servers * topo_nics(s);
	uint32_t edges, aggs, cores = 0;
	char name[TOPO_NAME_MAX];
	int32_t r;
	int err = 0;

	if (k < 2 || k % 2) {
		diag_set(d, "", 0, "topology.k", "must be even and at least 2 (got %" PRIu32 ")",
			 k);
		return -EINVAL;
	}
	err = topo_check_ports(d, k, "every switch", "topology.k", "k");
	if (!err && topo_nics(s) > 1)
		err = topo_check_ports(d, (uint64_t)half * topo_nics(s) + half, "edge0_0",
				       "topology.nics_per_host", "k/2 x nics_per_host + k/2");
	if (!err)
		err = topo_check_size(d, n_hosts + (uint64_t)k * k + (uint64_t)half * half,
				      n_hosts + 2 * n_servers, "topology.k");
	if (!err)
		err = topo_check_rate(d, &s->uplink, "topology.uplink.rate");
	if (err)
		return err;

	err = topo_add_servers(t, s, (uint32_t)n_servers);
	edges = t->n_nodes;
	for (pod = 0; !err && pod < k; pod++) {
		for (i = 0; i < half; i++) {
			snprintf(name, sizeof(name), "edge%" PRIu32 "_%" PRIu32, pod, i);
			r = topo_add_node(t, name, TOPO_SWITCH);
			if (r < 0)
				return r;
		}
	}
	aggs = t->n_nodes;
	for (pod = 0; !err && pod < k; pod++) {
		for (j = 0; j < half; j++) {
			snprintf(name, sizeof(name), "agg%" PRIu32 "_%" PRIu32, pod, j);
			r = topo_add_node(t, name, TOPO_SWITCH);
			if (r < 0)
				return r;
		}
	}
	if (!err)
		err = topo_add_series(t, "core", half * half, TOPO_SWITCH, &cores);
	if (!err)
		err = topo_add_host_links(t, s, (uint32_t)n_servers, half, edges);
	for (pod = 0; !err && pod < k; pod++) {
		for (i = 0; i < half; i++) {
			for (j = 0; j < half; j++) {
				r = topo_add_link(t, edges + pod * half + i, aggs + pod * half + j,
						  &s->uplink);
				if (r < 0)
					return r;
			}
		}
	}
	for (pod = 0; !err && pod < k; pod++) {
		for (j = 0; j < half; j++) {
			for (c = 0; c < half; c++) {
				r = topo_add_link(t, aggs + pod * half + j, cores + j * half + c,
						  &s->uplink);
				if (r < 0)
					return r;
			}
		}
	}
	return err;
}

static int topo_gen_ring(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t n = s->switches, sws = 0, i, ring_links;
	uint64_t n_servers = (uint64_t)n * s->hosts_per_switch, n_hosts = n_servers * topo_nics(s);
	int32_t r;
	int err;

	ring_links = n < 2 ? 0 : n == 2 ? 1 : n;
	err = topo_need(d, n, "topology.switches", "switches in the ring");
	if (!err)
		err = topo_need(d, s->hosts_per_switch, "topology.hosts_per_switch",
				"hosts per switch");
	if (!err)
		err = topo_check_ports(
		    d, (uint64_t)s->hosts_per_switch * topo_nics(s) + 2, "sw0",
		    topo_host_key(s, s->hosts_per_switch, "topology.hosts_per_switch"),
		    topo_nics(s) > 1 ? "hosts_per_switch x nics_per_host + 2"
				     : "hosts_per_switch + 2");
	if (!err)
		err = topo_check_size(d, n_hosts + n, n_hosts + ring_links,
				      "topology.hosts_per_switch");
	if (!err && ring_links)
		err = topo_check_rate(d, &s->uplink, "topology.uplink.rate");
	if (err)
		return err;

	err = topo_add_servers(t, s, (uint32_t)n_servers);
	if (!err)
		err = topo_add_series(t, "sw", n, TOPO_SWITCH, &sws);
	if (!err)
		err = topo_add_host_links(t, s, (uint32_t)n_servers, s->hosts_per_switch, sws);
	for (i = 0; !err && i < ring_links; i++) {
		r = topo_add_link(t, sws + i, sws + (i + 1) % n, &s->uplink);
		if (r < 0)
			return r;
	}
	return err;
}

static int build_kind(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	struct topo *t;
	int err;

	*out = NULL;
	if (spec->kind == TOPO_FILE || spec->kind == TOPO_HPCC) {
		diag_set(d, "", 0, "topology.kind",
			 "a topology read from a file is built by topo_build (sim/readers)");
		return -EINVAL;
	}
	if (spec->kind == TOPO_SONIC)
		return topo_sonic_load(spec, out, d);
	err = topo_check_rate(d, &spec->link, "topology.link.rate");
	if (!err && spec->nics_per_host > TOPO_MAX_NICS)
		err = topo_range(d, "topology.nics_per_host", spec->nics_per_host, TOPO_MAX_NICS);
	if (!err && spec->gpus_per_host > TOPO_MAX_GPUS)
		err = topo_range(d, "topology.gpus_per_host", spec->gpus_per_host, TOPO_MAX_GPUS);
	if (err)
		return err;
	t = topo_new();
	if (!t) {
		diag_set(d, "", 0, "topology", "out of memory");
		return -ENOMEM;
	}
	switch (spec->kind) {
	case TOPO_STAR:
		err = topo_gen_star(spec, t, d);
		break;
	case TOPO_LEAF_SPINE:
		err = topo_gen_leaf_spine(spec, t, d);
		break;
	case TOPO_FAT_TREE:
		err = topo_gen_fat_tree(spec, t, d);
		break;
	case TOPO_RING:
		err = topo_gen_ring(spec, t, d);
		break;
	case TOPO_RAIL:
		err = topo_gen_rail(spec, t, d);
		break;
	default:
		diag_set(d, "", 0, "topology.kind", "unknown topology kind %d", (int)spec->kind);
		err = -EINVAL;
		break;
	}
	if (err == -ENOMEM)
		diag_set(d, "", 0, "topology", "out of memory");
	if (!err)
		err = topo_finish(t, d);
	if (err) {
		topo_free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* spec->link_sets over the links built: each named link (from either end) takes its values. */
static int set_links(const struct topo_spec *spec, struct topo *t, struct diag *d)
{
	for (uint32_t i = 0; i < spec->n_link_sets; i++) {
		const struct topo_link_set *ls = &spec->link_sets[i];
		int32_t k = topo_find_link(t, ls->name);

		if (k < 0) {
			diag_set(d, "", 0, ls->key,
				 "no link named \"%s\" (links are named by their ends, e.g. %s)",
				 ls->name, t->n_links ? t->links[t->n_links - 1].name : "a-b");
			return -EINVAL;
		}
		if (ls->rate_bps)
			t->links[k].rate_bps = ls->rate_bps;
		if (ls->has_delay)
			t->links[k].delay = ls->delay;
	}
	return 0;
}

int topo_set_links(const struct topo_spec *spec, struct topo **t, struct diag *d)
{
	int err = set_links(spec, *t, d);

	if (err) {
		topo_free(*t);
		*t = NULL;
	}
	return err;
}

int topo_generate(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	int err = build_kind(spec, out, d);

	if (!err)
		err = topo_set_links(spec, out, d);
	return err;
}
