/*
 * Topology graph: assembling nodes, servers and links into the arrays of
 * topo.h (ports laid out per node, links and ports named, the server and
 * GPU tables), and lookups by name. The generators live in topo_gen.c, the
 * file kind in topofile.c.
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
	free(t->servers);
	free(t->server_nics);
	free(t->gpu_server);
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

static int32_t topo_add_node_of(struct topo *t, const char *name, enum topo_node_kind kind,
				uint32_t server, uint32_t nic)
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
	n->server = server;
	n->nic = nic;
	if (kind == TOPO_HOST) {
		n->host_index = t->n_hosts++;
	} else {
		n->host_index = UINT32_MAX;
		t->n_switches++;
	}
	return (int32_t)t->n_nodes++;
}

/* Append server @name; its NICs are the next @n_nics hosts added. */
static int topo_push_server(struct topo *t, const char *name, uint32_t n_nics, uint32_t n_gpus)
{
	struct topo_server *sv;

	if (topo_grow((void **)&t->servers, t->n_servers, sizeof(*t->servers)))
		return -ENOMEM;
	sv = &t->servers[t->n_servers++];
	memset(sv, 0, sizeof(*sv));
	snprintf(sv->name, sizeof(sv->name), "%s", name);
	sv->first_nic = t->n_hosts;
	sv->n_nics = n_nics;
	sv->first_gpu = t->n_gpus;
	sv->n_gpus = n_gpus;
	t->n_gpus += n_gpus;
	return 0;
}

int32_t topo_add_node(struct topo *t, const char *name, enum topo_node_kind kind)
{
	size_t len = name ? strlen(name) : 0;
	int32_t r;

	if (kind != TOPO_HOST)
		return topo_add_node_of(t, name, kind, UINT32_MAX, UINT32_MAX);
	if (len == 0 || len >= TOPO_NAME_MAX)
		return -EINVAL;
	if (t->n_nodes >= TOPO_MAX_ELEMS)
		return -E2BIG;
	if (topo_push_server(t, name, 1, 1))
		return -ENOMEM;
	r = topo_add_node_of(t, name, kind, t->n_servers - 1, 0);
	if (r < 0)
		t->n_gpus -= t->servers[--t->n_servers].n_gpus;
	return r;
}

int32_t topo_add_server(struct topo *t, const char *name, uint32_t n_nics, uint32_t n_gpus)
{
	char nic[TOPO_NAME_MAX];
	size_t len = name ? strlen(name) : 0;
	uint32_t first = t->n_nodes, i;
	int32_t r;

	if (n_nics == 1 && n_gpus <= 1)
		return topo_add_node(t, name, TOPO_HOST);
	if (n_nics == 0 || n_nics > TOPO_MAX_NICS || n_gpus > TOPO_MAX_GPUS || len == 0 ||
	    len >= TOPO_NAME_MAX || (n_nics > 1 && len + sizeof("/nic63") > TOPO_NAME_MAX))
		return -EINVAL;
	if ((uint64_t)t->n_nodes + n_nics > TOPO_MAX_ELEMS)
		return -E2BIG;
	if (topo_push_server(t, name, n_nics, n_gpus ? n_gpus : n_nics))
		return -ENOMEM;
	for (i = 0; i < n_nics; i++) {
		if (n_nics == 1)
			snprintf(nic, sizeof(nic), "%s", name);
		else
			snprintf(nic, sizeof(nic), "%s/nic%" PRIu32, name, i);
		r = topo_add_node_of(t, nic, TOPO_HOST, t->n_servers - 1, i);
		if (r < 0)
			return r; /* -ENOMEM: the topology is freed, not used */
	}
	return (int32_t)first;
}

/* Until topo_finish(), nodes[].n_ports counts the links added so far. */
int32_t topo_add_link(struct topo *t, uint32_t a, uint32_t b, const struct topo_linkspec *spec)
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

/*
 * Node names, and the names of servers with several NICs (a lookup takes
 * such a server's name for its nic0), must be unique; so must link names.
 */
static int topo_check_names(struct topo *t, struct diag *d)
{
	uint32_t n =
	    t->n_nodes + t->n_servers > t->n_links ? t->n_nodes + t->n_servers : t->n_links;
	struct topo_nameref *refs = malloc(((size_t)n + 1) * sizeof(*refs));
	uint32_t i, m, dup, first = 0;
	char path[32];
	int err = 0;

	if (!refs)
		return -ENOMEM;
	for (i = 0; i < t->n_nodes; i++)
		refs[i] = (struct topo_nameref){t->nodes[i].name, i};
	/* a server's ref is n_nodes + its index; reported at its nic0 */
	for (i = 0, m = t->n_nodes; i < t->n_servers; i++)
		if (t->servers[i].n_nics > 1)
			refs[m++] = (struct topo_nameref){t->servers[i].name, t->n_nodes + i};
	dup = topo_first_duplicate(refs, m, &first);
	if (dup != UINT32_MAX) {
		const char *name =
		    dup < t->n_nodes ? t->nodes[dup].name : t->servers[dup - t->n_nodes].name;

		if (dup >= t->n_nodes)
			dup = t->hosts[t->server_nics[t->servers[dup - t->n_nodes].first_nic]];
		if (first >= t->n_nodes)
			first = t->hosts[t->server_nics[t->servers[first - t->n_nodes].first_nic]];
		snprintf(path, sizeof(path), "nodes[%" PRIu32 "].name", dup);
		diag_set(d, "", 0, path, "duplicate node name \"%s\" (nodes[%" PRIu32 "] has it)",
			 name, first);
		err = -EINVAL;
		goto out_free_refs;
	}
	for (i = 0; i < t->n_links; i++)
		refs[i] = (struct topo_nameref){t->links[i].name, i};
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
	free(t->server_nics);
	free(t->gpu_server);
	t->ports = NULL;
	t->hosts = NULL;
	t->server_nics = NULL;
	t->gpu_server = NULL;
	t->n_ports = 2 * t->n_links;
	t->ports = calloc((size_t)t->n_ports + 1, sizeof(*t->ports));
	t->hosts = malloc(((size_t)t->n_hosts + 1) * sizeof(*t->hosts));
	t->server_nics = malloc(((size_t)t->n_hosts + 1) * sizeof(*t->server_nics));
	t->gpu_server = malloc(((size_t)t->n_gpus + 1) * sizeof(*t->gpu_server));
	cursor = calloc((size_t)t->n_nodes + 1, sizeof(*cursor));
	pairs = malloc(((size_t)t->n_links + 1) * sizeof(*pairs));
	if (!t->ports || !t->hosts || !t->server_nics || !t->gpu_server || !cursor || !pairs)
		goto out_free;

	for (i = 0, h = 0; i < t->n_nodes; i++) {
		struct topo_node *n = &t->nodes[i];

		n->first_port = first;
		first += n->n_ports;
		if (n->kind == TOPO_HOST) {
			n->host_index = h;
			t->hosts[h] = i;
			t->server_nics[t->servers[n->server].first_nic + n->nic] = h++;
		}
	}
	for (i = 0; i < t->n_servers; i++)
		for (h = 0; h < t->servers[i].n_gpus; h++)
			t->gpu_server[t->servers[i].first_gpu + h] = i;

	for (i = 0; i < t->n_links; i++) {
		struct topo_link *l = &t->links[i];
		uint32_t pa = t->nodes[l->a].first_port + cursor[l->a]++;
		uint32_t pb = t->nodes[l->b].first_port + cursor[l->b]++;

		l->port_a = pa;
		l->port_b = pb;
		t->ports[pa] =
		    (struct topo_port){.node = l->a, .peer = l->b, .link = i, .peer_port = pb};
		t->ports[pb] =
		    (struct topo_port){.node = l->b, .peer = l->a, .link = i, .peer_port = pa};
		pairs[i] =
		    (struct topo_pair){l->a < l->b ? l->a : l->b, l->a < l->b ? l->b : l->a, i};
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

/*
 * Lookups scan the nodes or links: names are resolved only while a run is
 * set up. Names of generated servers and their NICs ("h17", "h17/nic1") are
 * found at once through the server table, which covers the common case of
 * workloads that name thousands of flows.
 */

/* A decimal index without leading zeros at *@p, moved past it; -1 if none. */
static int64_t topo_parse_index(const char **p)
{
	const char *s = *p;
	uint64_t n = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > UINT32_MAX)
			return -1;
	}
	*p = s;
	return (int64_t)n;
}

/* Node of NIC @nic of server @sv. */
static uint32_t topo_nic_node(const struct topo *t, uint32_t sv, uint32_t nic)
{
	return t->hosts[t->server_nics[t->servers[sv].first_nic + nic]];
}

/* "h<N>" as server N of a generated topology, @rest what follows the digits. */
static int32_t topo_find_generated_server(const struct topo *t, const char *name, const char **rest)
{
	const char *p = name + 1;
	size_t len;
	int64_t n;

	if (name[0] != 'h' || (n = topo_parse_index(&p)) < 0 || (uint64_t)n >= t->n_servers)
		return -1;
	len = (size_t)(p - name);
	if (strncmp(t->servers[n].name, name, len) || t->servers[n].name[len])
		return -1;
	*rest = p;
	return (int32_t)n;
}

/*
 * "<server><part><i>" ("h0/nic1", "h0/gpu3"): the server's index into *@sv
 * and i into *@i; -1 when @name is not of that form or names no server.
 */
static int topo_split_member(const struct topo *t, const char *name, const char *part, int32_t *sv,
			     int64_t *i)
{
	const char *slash = name ? strrchr(name, '/') : NULL, *p;
	size_t len = strlen(part);
	char server[TOPO_NAME_MAX];

	if (!t || !slash || strncmp(slash, part, len) || (size_t)(slash - name) >= sizeof(server))
		return -1;
	p = slash + len;
	if ((*i = topo_parse_index(&p)) < 0 || *p)
		return -1;
	memcpy(server, name, (size_t)(slash - name));
	server[slash - name] = '\0';
	*sv = topo_find_server(t, server);
	return *sv < 0 ? -1 : 0;
}

/* "<server>/nic<M>": the node of that NIC (also "h0/nic0" for a one-NIC h0). */
static int32_t topo_find_nic(const struct topo *t, const char *name)
{
	int32_t sv;
	int64_t m;

	if (topo_split_member(t, name, "/nic", &sv, &m) || (uint64_t)m >= t->servers[sv].n_nics)
		return -1;
	return (int32_t)topo_nic_node(t, (uint32_t)sv, (uint32_t)m);
}

int32_t topo_find_server(const struct topo *t, const char *name)
{
	const char *rest = NULL;
	int32_t sv;
	uint32_t i;

	if (!t || !name || !t->server_nics)
		return -1;
	sv = topo_find_generated_server(t, name, &rest);
	if (sv >= 0 && !*rest)
		return sv;
	for (i = 0; i < t->n_servers; i++)
		if (strcmp(t->servers[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

int32_t topo_find_node(const struct topo *t, const char *name)
{
	const char *rest = NULL;
	int32_t sv;
	uint32_t i;

	if (!t || !name)
		return -1;
	if (t->server_nics && (sv = topo_find_generated_server(t, name, &rest)) >= 0) {
		if (!*rest)
			return (int32_t)topo_nic_node(t, (uint32_t)sv, 0);
		if (!strncmp(rest, "/nic", 4)) {
			const char *p = rest + 4;
			int64_t m = topo_parse_index(&p);

			if (m >= 0 && !*p && (uint64_t)m < t->servers[sv].n_nics)
				return (int32_t)topo_nic_node(t, (uint32_t)sv, (uint32_t)m);
		}
	}
	for (i = 0; i < t->n_nodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return (int32_t)i;
	if (!t->server_nics)
		return -1;
	sv = topo_find_server(t, name);
	if (sv >= 0)
		return (int32_t)topo_nic_node(t, (uint32_t)sv, 0);
	return topo_find_nic(t, name);
}

int32_t topo_find_gpu(const struct topo *t, const char *name)
{
	int32_t sv;
	int64_t g;

	if (topo_split_member(t, name, "/gpu", &sv, &g) || (uint64_t)g >= t->servers[sv].n_gpus)
		return -1;
	return (int32_t)(t->servers[sv].first_gpu + (uint32_t)g);
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
	/* named from its other end: "spine1-leaf0" is leaf0-spine1, "b-a#1" a-b#1 */
	for (i = 0; i < t->n_links; i++) {
		const struct topo_link *l = &t->links[i];
		const char *a = t->nodes[l->a].name, *b = t->nodes[l->b].name;
		size_t na = strlen(a), nb = strlen(b);
		const char *suffix;

		if (strlen(l->name) < na + 1 + nb)
			continue;
		suffix = l->name + na + 1 + nb;
		if (!strncmp(name, b, nb) && name[nb] == '-' && !strncmp(name + nb + 1, a, na) &&
		    !strcmp(name + nb + 1 + na, suffix))
			return (int32_t)i;
	}
	return -1;
}
