/*
 * Topology graph: assembling nodes and links into the arrays of topo.h
 * (ports laid out per node, links and ports named), the generators for the
 * usual shapes (star, leaf-spine, k-ary fat-tree, ring) with the names the
 * README gives ("Names"), and lookups by name. The file kind lives in topofile.c.
 *
 * Generated topologies put the hosts first (node i is host h<i>) and their
 * links first (link i is the link of h<i>), then the switches and the
 * switch-switch links, so a switch lists its host ports before its uplinks.
 */
#include "topologies/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"

/* Room for "#65535", the suffix of the last possible parallel link. */
#define TOPO_SUFFIX_MAX 8

struct topo *topo_new(void)
{
	return calloc(1, sizeof(struct topo));
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->links);
	free(t->ports);
	free(t->hosts);
	free(t->port_cfg);
	free(t);
}

/*
 * Arrays grow by doubling; the capacity is implied by the count (16, then
 * powers of two), so struct topo needs no capacity fields.
 */
static int topo_grow(void **arr, uint32_t n, size_t elem)
{
	size_t cap;
	void *p;

	if (n != 0 && (n < 16 || (n & (n - 1)) != 0))
		return 0;
	cap = n == 0 ? 16 : (size_t)n * 2;
	p = realloc(*arr, cap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

int32_t topo_add_node(struct topo *t, const char *name, enum topo_node_kind kind)
{
	struct topo_node *n;
	size_t len = name ? strlen(name) : 0;

	if (len == 0 || len >= TOPO_NAME_MAX)
		return -EINVAL;
	if (t->n_nodes >= TOPO_MAX_ELEMS)
		return -E2BIG;
	if (topo_grow((void **)&t->nodes, t->n_nodes, sizeof(*t->nodes)))
		return -ENOMEM;
	n = &t->nodes[t->n_nodes];
	memset(n, 0, sizeof(*n));
	memcpy(n->name, name, len + 1);
	n->kind = kind;
	if (kind == TOPO_HOST) {
		n->host_index = t->n_hosts++;
	} else {
		n->host_index = UINT32_MAX;
		t->n_switches++;
	}
	return (int32_t)t->n_nodes++;
}

/* Until topo_finish(), nodes[].n_ports counts the links added so far. */
int32_t topo_add_link(struct topo *t, uint32_t a, uint32_t b,
		      const struct topo_linkspec *spec)
{
	struct topo_link *l;

	if (a >= t->n_nodes || b >= t->n_nodes || a == b || spec->rate_bps == 0)
		return -EINVAL;
	if (t->n_links >= TOPO_MAX_ELEMS || t->nodes[a].n_ports >= TOPO_MAX_PORTS ||
	    t->nodes[b].n_ports >= TOPO_MAX_PORTS)
		return -E2BIG;
	if (topo_grow((void **)&t->links, t->n_links, sizeof(*t->links)))
		return -ENOMEM;
	l = &t->links[t->n_links];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	l->rate_bps = spec->rate_bps;
	l->delay = spec->delay;
	l->up = 1;
	t->nodes[a].n_ports++;
	t->nodes[b].n_ports++;
	return (int32_t)t->n_links++;
}

/* Links between the same two nodes, in order: the first keeps the plain name. */
struct topo_pair {
	uint32_t lo, hi, link;
};

static int topo_pair_cmp(const void *x, const void *y)
{
	const struct topo_pair *p = x, *q = y;

	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	if (p->hi != q->hi)
		return p->hi < q->hi ? -1 : 1;
	return p->link < q->link ? -1 : p->link > q->link;
}

/* Sort keys for the duplicate-name checks: the name and whose it is. */
struct topo_nameref {
	const char *name;
	uint32_t index;
};

static int topo_nameref_cmp(const void *x, const void *y)
{
	const struct topo_nameref *p = x, *q = y;
	int c = strcmp(p->name, q->name);

	if (c)
		return c;
	return p->index < q->index ? -1 : p->index > q->index;
}

/*
 * Sort @refs by name and return the smallest index that repeats an earlier
 * name (the first duplicate in input order), or UINT32_MAX.
 */
static uint32_t topo_first_duplicate(struct topo_nameref *refs, uint32_t n, uint32_t *first)
{
	uint32_t i, dup = UINT32_MAX;

	qsort(refs, n, sizeof(*refs), topo_nameref_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(refs[i].name, refs[i - 1].name) == 0 && refs[i].index < dup) {
			uint32_t j = i - 1;

			while (j > 0 && strcmp(refs[j - 1].name, refs[i].name) == 0)
				j--;
			dup = refs[i].index;
			*first = refs[j].index;
		}
	}
	return dup;
}

static int topo_check_names(struct topo *t, struct diag *d)
{
	uint32_t n = t->n_nodes > t->n_links ? t->n_nodes : t->n_links;
	struct topo_nameref *refs = malloc(((size_t)n + 1) * sizeof(*refs));
	uint32_t i, dup, first = 0;
	char path[32];
	int err = 0;

	if (!refs)
		return -ENOMEM;
	for (i = 0; i < t->n_nodes; i++)
		refs[i] = (struct topo_nameref){ t->nodes[i].name, i };
	dup = topo_first_duplicate(refs, t->n_nodes, &first);
	if (dup != UINT32_MAX) {
		snprintf(path, sizeof(path), "nodes[%" PRIu32 "].name", dup);
		diag_set(d, "", 0, path, "duplicate node name \"%s\" (nodes[%" PRIu32 "] has it)",
			 t->nodes[dup].name, first);
		err = -EINVAL;
		goto out_free_refs;
	}
	for (i = 0; i < t->n_links; i++)
		refs[i] = (struct topo_nameref){ t->links[i].name, i };
	dup = topo_first_duplicate(refs, t->n_links, &first);
	if (dup != UINT32_MAX) {
		snprintf(path, sizeof(path), "links[%" PRIu32 "]", dup);
		diag_set(d, "", 0, path,
			 "link name \"%s\" is ambiguous (links[%" PRIu32 "] has it too): "
			 "rename a node so that \"a-b\" names one link",
			 t->links[dup].name, first);
		err = -EINVAL;
	}
out_free_refs:
	free(refs);
	return err;
}

/* Lay out the ports, name links and ports, number parallel links. */
int topo_finish(struct topo *t, struct diag *d)
{
	struct topo_pair *pairs = NULL;
	uint32_t *cursor = NULL;
	uint32_t i, h, ord, first = 0;
	int err = -ENOMEM;

	free(t->ports);
	free(t->hosts);
	t->ports = NULL;
	t->hosts = NULL;
	t->n_ports = 2 * t->n_links;
	t->ports = calloc((size_t)t->n_ports + 1, sizeof(*t->ports));
	t->hosts = malloc(((size_t)t->n_hosts + 1) * sizeof(*t->hosts));
	cursor = calloc((size_t)t->n_nodes + 1, sizeof(*cursor));
	pairs = malloc(((size_t)t->n_links + 1) * sizeof(*pairs));
	if (!t->ports || !t->hosts || !cursor || !pairs)
		goto out_free;

	for (i = 0, h = 0; i < t->n_nodes; i++) {
		t->nodes[i].first_port = first;
		first += t->nodes[i].n_ports;
		if (t->nodes[i].kind == TOPO_HOST) {
			t->nodes[i].host_index = h;
			t->hosts[h++] = i;
		}
	}

	for (i = 0; i < t->n_links; i++) {
		struct topo_link *l = &t->links[i];
		uint32_t pa = t->nodes[l->a].first_port + cursor[l->a]++;
		uint32_t pb = t->nodes[l->b].first_port + cursor[l->b]++;

		l->port_a = pa;
		l->port_b = pb;
		t->ports[pa] = (struct topo_port){ .node = l->a, .peer = l->b, .link = i,
						   .peer_port = pb };
		t->ports[pb] = (struct topo_port){ .node = l->b, .peer = l->a, .link = i,
						   .peer_port = pa };
		pairs[i] = (struct topo_pair){ l->a < l->b ? l->a : l->b,
					       l->a < l->b ? l->b : l->a, i };
	}

	qsort(pairs, t->n_links, sizeof(*pairs), topo_pair_cmp);
	for (i = 0, ord = 0; i < t->n_links; i++) {
		struct topo_link *l = &t->links[pairs[i].link];
		const char *na = t->nodes[l->a].name, *nb = t->nodes[l->b].name;
		char suffix[TOPO_SUFFIX_MAX] = "";

		if (i > 0 && pairs[i].lo == pairs[i - 1].lo && pairs[i].hi == pairs[i - 1].hi)
			ord++;
		else
			ord = 0;
		/* ord < TOPO_MAX_PORTS: the modulo only bounds the width */
		if (ord > 0)
			snprintf(suffix, sizeof(suffix), "#%" PRIu32, ord % 100000);
		snprintf(l->name, sizeof(l->name), "%s-%s%s", na, nb, suffix);
		snprintf(t->ports[l->port_a].name, sizeof(t->ports[0].name), "%s:%s%s", na, nb,
			 suffix);
		snprintf(t->ports[l->port_b].name, sizeof(t->ports[0].name), "%s:%s%s", nb, na,
			 suffix);
	}
	err = topo_check_names(t, d);
out_free:
	if (err == -ENOMEM)
		diag_set(d, "", 0, "", "out of memory for %" PRIu32 " links", t->n_links);
	free(pairs);
	free(cursor);
	return err;
}

/* Scenario checks shared by the generators. */
static int topo_need(struct diag *d, uint32_t v, const char *path, const char *what)
{
	if (v > 0)
		return 0;
	diag_set(d, "", 0, path, "must be at least 1 (%s)", what);
	return -EINVAL;
}

static int topo_check_ports(struct diag *d, uint64_t ports, const char *node,
			    const char *path, const char *how)
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
		 "too large: %" PRIu64 " nodes and %" PRIu64 " links (at most %u of each)",
		 nodes, links, TOPO_MAX_ELEMS);
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
static int topo_add_series(struct topo *t, const char *prefix, uint32_t n,
			   enum topo_node_kind kind, uint32_t *first)
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

/* Hosts h0.. (nodes 0..) on switches first_sw.., @per hosts each, in order. */
static int topo_add_host_links(struct topo *t, uint32_t n_hosts, uint32_t per,
			       uint32_t first_sw, const struct topo_linkspec *ls)
{
	uint32_t h;
	int32_t r;

	for (h = 0; h < n_hosts; h++) {
		r = topo_add_link(t, h, first_sw + h / per, ls);
		if (r < 0)
			return r;
	}
	return 0;
}

static int topo_gen_star(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t hosts = 0, sw = 0;
	int err;

	err = topo_need(d, s->hosts, "topology.hosts", "hosts on the switch");
	if (!err)
		err = topo_check_ports(d, s->hosts, "sw0", "topology.hosts", "one per host");
	if (err)
		return err;
	err = topo_add_series(t, "h", s->hosts, TOPO_HOST, &hosts);
	if (!err)
		err = topo_add_series(t, "sw", 1, TOPO_SWITCH, &sw);
	if (!err)
		err = topo_add_host_links(t, s->hosts, s->hosts, sw, &s->link);
	return err;
}

static int topo_gen_leaf_spine(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t par = s->parallel ? s->parallel : 1;
	uint64_t n_hosts = (uint64_t)s->leaves * s->hosts_per_leaf;
	uint64_t leaf_ports = (uint64_t)s->hosts_per_leaf + (uint64_t)s->spines * par;
	uint64_t spine_ports = (uint64_t)s->leaves * par;
	uint32_t hosts = 0, leaves = 0, spines = 0, i, j, p;
	int32_t r;
	int err;

	err = topo_need(d, s->leaves, "topology.leaves", "leaf switches");
	if (!err)
		err = topo_need(d, s->spines, "topology.spines", "spine switches");
	if (!err)
		err = topo_need(d, s->hosts_per_leaf, "topology.hosts_per_leaf", "hosts per leaf");
	if (!err)
		err = topo_check_ports(d, leaf_ports, "leaf0",
				       s->hosts_per_leaf > TOPO_MAX_PORTS ?
					       "topology.hosts_per_leaf" : "topology.spines",
				       "hosts_per_leaf + spines x parallel");
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

	err = topo_add_series(t, "h", (uint32_t)n_hosts, TOPO_HOST, &hosts);
	if (!err)
		err = topo_add_series(t, "leaf", s->leaves, TOPO_SWITCH, &leaves);
	if (!err)
		err = topo_add_series(t, "spine", s->spines, TOPO_SWITCH, &spines);
	if (!err)
		err = topo_add_host_links(t, (uint32_t)n_hosts, s->hosts_per_leaf, leaves,
					  &s->link);
	for (i = 0; !err && i < s->leaves; i++) {
		for (j = 0; j < s->spines; j++) {
			for (p = 0; p < par; p++) {
				r = topo_add_link(t, leaves + i, spines + j, &s->uplink);
				if (r < 0)
					return r;
			}
		}
	}
	return err;
}

/*
 * k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation
 * switches, (k/2)^2 cores; agg<pod>_<j> reaches cores j*k/2 .. j*k/2+k/2-1.
 */
static int topo_gen_fat_tree(const struct topo_spec *s, struct topo *t, struct diag *d)
{
	uint32_t k = s->k, half = k / 2, pod, i, j, c;
	uint64_t n_hosts = (uint64_t)k * k * k / 4;
	uint32_t hosts = 0, edges, aggs, cores = 0;
	char name[TOPO_NAME_MAX];
	int32_t r;
	int err = 0;

	if (k < 2 || k % 2) {
		diag_set(d, "", 0, "topology.k", "must be even and at least 2 (got %" PRIu32 ")", k);
		return -EINVAL;
	}
	err = topo_check_ports(d, k, "every switch", "topology.k", "k");
	if (!err)
		err = topo_check_size(d, n_hosts + (uint64_t)k * k + (uint64_t)half * half,
				      3 * n_hosts, "topology.k");
	if (!err)
		err = topo_check_rate(d, &s->uplink, "topology.uplink.rate");
	if (err)
		return err;

	err = topo_add_series(t, "h", (uint32_t)n_hosts, TOPO_HOST, &hosts);
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
		err = topo_add_host_links(t, (uint32_t)n_hosts, half, edges, &s->link);
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
	uint32_t n = s->switches, hosts = 0, sws = 0, i, ring_links;
	uint64_t n_hosts = (uint64_t)n * s->hosts_per_switch;
	int32_t r;
	int err;

	ring_links = n < 2 ? 0 : n == 2 ? 1 : n;
	err = topo_need(d, n, "topology.switches", "switches in the ring");
	if (!err)
		err = topo_need(d, s->hosts_per_switch, "topology.hosts_per_switch",
				"hosts per switch");
	if (!err)
		err = topo_check_ports(d, (uint64_t)s->hosts_per_switch + 2, "sw0",
				       "topology.hosts_per_switch", "hosts_per_switch + 2");
	if (!err)
		err = topo_check_size(d, n_hosts + n, n_hosts + ring_links,
				      "topology.hosts_per_switch");
	if (!err && ring_links)
		err = topo_check_rate(d, &s->uplink, "topology.uplink.rate");
	if (err)
		return err;

	err = topo_add_series(t, "h", (uint32_t)n_hosts, TOPO_HOST, &hosts);
	if (!err)
		err = topo_add_series(t, "sw", n, TOPO_SWITCH, &sws);
	if (!err)
		err = topo_add_host_links(t, (uint32_t)n_hosts, s->hosts_per_switch, sws, &s->link);
	for (i = 0; !err && i < ring_links; i++) {
		r = topo_add_link(t, sws + i, sws + (i + 1) % n, &s->uplink);
		if (r < 0)
			return r;
	}
	return err;
}

int topo_build(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	struct topo *t;
	int err;

	*out = NULL;
	if (spec->kind == TOPO_FILE)
		return topo_file_load(spec, out, d);
	if (spec->kind == TOPO_SONIC)
		return topo_sonic_load(spec, out, d);
	if (spec->kind == TOPO_HPCC)
		return topo_hpcc_load(spec, out, d);
	err = topo_check_rate(d, &spec->link, "topology.link.rate");
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

/*
 * Lookups scan the nodes or links: names are resolved only while a run is
 * set up. Host names of generated topologies ("h17") are found at once
 * through the host table, which covers the common case of workloads that
 * name thousands of flows.
 */
static int32_t topo_find_generated_host(const struct topo *t, const char *name)
{
	const char *p = name + 1;
	uint64_t n = 0;

	if (name[0] != 'h' || *p < '0' || *p > '9' || (p[0] == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n > UINT32_MAX)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (!t->hosts || n >= t->n_hosts || strcmp(t->nodes[t->hosts[n]].name, name))
		return -1;
	return (int32_t)t->hosts[n];
}

int32_t topo_find_node(const struct topo *t, const char *name)
{
	int32_t r;
	uint32_t i;

	if (!t || !name)
		return -1;
	r = topo_find_generated_host(t, name);
	if (r >= 0)
		return r;
	for (i = 0; i < t->n_nodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

int32_t topo_find_host(const struct topo *t, const char *name)
{
	int32_t n = topo_find_node(t, name);

	if (n < 0 || t->nodes[n].kind != TOPO_HOST)
		return -1;
	return (int32_t)t->nodes[n].host_index;
}

int32_t topo_find_link(const struct topo *t, const char *name)
{
	uint32_t i;

	if (!t || !name)
		return -1;
	for (i = 0; i < t->n_links; i++)
		if (strcmp(t->links[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

int topo_read_spec_file(const struct topo_spec *spec, const char *kind, char **text,
			size_t *len, struct diag *d)
{
	const char *file = spec->file;
	int err;

	if (!file || !file[0]) {
		diag_set(d, "", 0, "topology.file", "kind %s needs the path of a topology file",
			 kind);
		return -EINVAL;
	}
	err = textfile_read(file, text, len);
	if (err)
		/* the scenario's topology.file is at fault: its caller names that line */
		diag_set(d, "", 0, "topology.file", "cannot read \"%s\": %s", file,
			 textfile_strerror(err));
	return err;
}
