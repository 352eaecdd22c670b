/*
 * Names on the built topology (scenario_resolve.c expands the workload,
 * scenario_faults.c places the faults): which host a name means, and a
 * collective's ranks, NICs and algorithm: which GPUs a name in `ranks` or
 * `late` means, the NICs NCCL_IB_HCA leaves (workload.hca or the
 * workload's pod), and what `algorithm: auto` picks from the fabric's own
 * figures.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "models/coll_layout.h"
#include "models/collective.h"
#include "sim/readers/nccl_hca.h"
#include "sim/config/scenario_impl.h"
#include "topologies/topo.h"

/* Host @name (at key @path) of @t, by its index in *@out. */
int scn__host_of(const struct loader *l, const struct topo *t, const char *path, const char *name,
		 uint32_t *out)
{
	int32_t h = topo_find_host(t, name);

	if (h < 0) {
		if (topo_find_node(t, name) >= 0)
			return scn__fail(l, path, "\"%s\" is a switch, not a host", name);
		return scn__fail(l, path, "no host named \"%s\" (hosts are h0..h%u)", name,
				 t->n_servers - 1);
	}
	*out = (uint32_t)h;
	return 0;
}

/*
 * The GPUs named @name at @path for a collective's ranks: a server's (all
 * of them, in order; a one-NIC host of today's topologies is a server of
 * one GPU) or one GPU ("h0/gpu3"). Their first into *@first, how many into
 * *@count.
 */
int scn__gpus_of(const struct loader *l, const struct topo *t, const char *path, const char *name,
		 uint32_t *first, uint32_t *count)
{
	int32_t g = topo_find_gpu(t, name), sv = topo_find_server(t, name);

	if (g >= 0) {
		*first = (uint32_t)g;
		*count = 1;
		return 0;
	}
	if (sv >= 0) {
		*first = t->servers[sv].first_gpu;
		*count = t->servers[sv].n_gpus;
		return 0;
	}
	if (topo_find_host(t, name) >= 0)
		return scn__fail(l, path,
				 "\"%s\" is a NIC; ranks are GPUs (%s/gpu0) or servers (%s)", name,
				 t->servers[t->nodes[topo_find_node(t, name)].server].name,
				 t->servers[t->nodes[topo_find_node(t, name)].server].name);
	if (topo_find_node(t, name) >= 0)
		return scn__fail(l, path, "\"%s\" is a switch, not a server or a GPU", name);
	return scn__fail(l, path, "no server or GPU named \"%s\" (servers are %s..%s)", name,
			 t->servers[0].name, t->servers[t->n_servers - 1].name);
}

/*
 * The NICs collective @c may use: workload.hca, else its pod's NCCL_IB_HCA
 * (nccl_hca.h), checked against every server of its ranks.
 */
int scn__coll_nics(const struct loader *l, const struct topo *t, const struct raw_workload *w,
		   const char *prefix, const struct scenario *s, struct coll_spec *c)
{
	const struct scn_pod *pod = NULL;
	const char *value = w->hca;
	uint32_t most = 1;
	char why[256], p[200];
	int err;

	for (uint32_t r = 0; r < c->n_ranks; r++) {
		const struct topo_server *sv = &t->servers[t->gpu_server[c->ranks[r]]];

		if (sv->n_nics > most)
			most = sv->n_nics;
	}
	/* a pod's list names a real server's HCAs: it applies to servers
	 * modelled with their NICs, not to hosts of one NIC port */
	for (uint32_t i = 0; !value && most > 1 && i < s->cfg.n_pods; i++)
		if (!strcmp(s->cfg.pods[i].workload, prefix) && s->cfg.pods[i].hca[0])
			value = (pod = &s->cfg.pods[i])->hca;
	if (!value)
		return 0;
	err = nccl_hca_mask(value, most, &c->nics, why, sizeof(why));
	for (uint32_t r = 0; !err && r < c->n_ranks; r++) {
		const struct topo_server *sv = &t->servers[t->gpu_server[c->ranks[r]]];

		if (sv->n_nics < 64 && !(c->nics & ((1ULL << sv->n_nics) - 1))) {
			snprintf(why, sizeof(why),
				 "NCCL_IB_HCA \"%.160s\" leaves none of %s's %u NICs", value,
				 sv->name, sv->n_nics);
			err = -EINVAL;
		}
	}
	if (!err)
		return 0;
	if (pod) {
		diag_set(l->d, pod->file, pod->hca_line, "NCCL_IB_HCA", "%s (%s.pod)", why, prefix);
		return -EINVAL;
	}
	return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "hca"), "%s", why);
}

/* Of the n hops of @c's ring (channel 0), those between two servers on one
 * switch into *@near, inside a server into *@nvl. */
static int ring_hops(const struct topo *t, const struct coll_spec *c, uint32_t *near, uint32_t *nvl)
{
	struct coll_spec ring = *c;
	const struct coll_place pl =
	    (ring.algo = COLL_RING, ring.channels = 1, coll_place_of(&ring));
	struct coll_layout lay;

	*near = *nvl = 0;
	if (coll_layout_build(&pl, &lay))
		return -ENOMEM;
	for (uint32_t e = 0; e < lay.n_edges; e++) {
		uint32_t src, dst;

		if (lay.edge_qp[e] == COLL_NVLINK) {
			(*nvl)++;
			continue;
		}
		coll_layout_nics(&pl, &lay, e, &src, &dst);
		*near += t->ports[t->nodes[t->hosts[src]].first_port].peer ==
			 t->ports[t->nodes[t->hosts[dst]].first_port].peer;
	}
	coll_layout_free(&lay);
	return 0;
}

/*
 * workload.algorithm: auto, from the fabric's figures (coll_costs): a step
 * between servers crosses two host links and, unless both are on one
 * switch, two uplinks; one inside a server, NVLink.
 */
int scn__auto_algo(const struct scenario *s, const struct topo *t, struct coll_spec *c)
{
	const struct topo_spec *ts = &s->topo;
	const struct topo_server *sv = &t->servers[t->gpu_server[c->ranks[0]]];
	double frame = (double)s->nic.mtu + 82, link = (double)ts->link.rate_bps;
	double nic_Bps = link / 8 * s->nic.mtu / frame, step = (double)c->step_latency * 1e-12;
	uint32_t usable = 0;
	struct coll_costs k = {.servers = c->servers};

	for (uint32_t i = 0; i < sv->n_nics; i++)
		usable += !c->nics || i >= 64 || (c->nics >> i & 1);
	k.per_server = k.servers ? (c->n_ranks + k.servers - 1) / k.servers : 1;
	/* propagation; what serializes is the pieces' (coll_costs) */
	k.near_lat_s = step + 2 * (double)ts->link.delay * 1e-12;
	k.net_lat_s = k.near_lat_s;
	if (ts->kind != TOPO_STAR)
		k.net_lat_s += 2 * (double)ts->uplink.delay * 1e-12;
	if (ring_hops(t, c, &k.ring_near, &k.ring_nvl))
		return -ENOMEM;
	k.nvl_lat_s = step + (double)ts->nvlink_latency * 1e-12;
	k.busbw_Bps = (usable ? usable : 1) * nic_Bps;
	if (k.per_server > 1 && (double)ts->nvlink_bps / 8 < k.busbw_Bps)
		k.busbw_Bps = (double)ts->nvlink_bps / 8;
	c->algo = coll_auto(c, &k);
	return 0;
}
