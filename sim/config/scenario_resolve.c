/*
 * Scenario resolving: what needs the built topology. Host, link and port
 * names are looked up, each workload is expanded into its flows (flows,
 * incast, permutation, poisson) or its collective's ranks; the faults are
 * resolved in scenario_faults.c.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_layout.h"
#include "models/collective.h"
#include "models/workload.h"
#include "topologies/cbd.h"
#include "sim/engine/checked.h"
#include "sim/readers/nccl_hca.h"
#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

/* ---- resolving names against the topology ---------------------------------------- */

/*
 * Flows and collective QPs are numbered in 32 bits (net->flows): the
 * workload at @prefix, adding @more to those so far, must keep the total
 * within them.
 */
static int check_count(const struct loader *l, const char *prefix, const struct scenario *s,
		       uint64_t more)
{
	uint64_t total = s->wl.n_flows;
	int err = ck_add(total, more, &total);

	for (uint32_t i = 0; !err && i < s->n_colls; i++)
		err = ck_add(total, coll_qp_count(&s->colls[i]), &total);
	if (!err && total <= UINT32_MAX)
		return 0;
	if (err)
		return scn__fail(l, prefix, "more than 2^64 flows and queue pairs in all");
	return scn__fail(l, prefix, "%llu flows and queue pairs in all, more than %u",
			 (unsigned long long)total, UINT32_MAX);
}

/* Append @n flows to the scenario's flows; they take the workload's DSCP. */
static int add_flows(const struct loader *l, const char *prefix, struct scenario *s,
		     struct wl_flow *f, uint32_t n, uint8_t dscp, uint8_t prio)
{
	struct wl_flow *all;
	int err = check_count(l, prefix, s, n);

	if (err || !n) { /* a Poisson workload may draw no flow in a short time */
		free(f);
		return err;
	}
	all = realloc(s->wl.flows, ((size_t)s->wl.n_flows + n) * sizeof(*all));
	if (!all) {
		free(f);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		f[i].dscp = dscp;
		f[i].priority = prio;
	}
	memcpy(all + s->wl.n_flows, f, n * sizeof(*f));
	s->wl.flows = all;
	s->wl.n_flows += n;
	free(f);
	return 0;
}

/* The DSCP key @text (checked already) as a number; -1 when not given. */
static int dscp_of(const char *text)
{
	return text ? (int)(strtoul(text, NULL, 10) & 63) : -1;
}

/*
 * The DSCP workload @w (@prefix) gives its data: its own dscp, else the one
 * its pod gives (scenario_configs.c); -1 when neither does.
 */
static int wl_own_dscp(const struct scenario *s, const struct raw_workload *w, const char *prefix)
{
	if (w->dscp)
		return dscp_of(w->dscp);
	for (uint32_t i = 0; i < s->cfg.n_pods; i++)
		if (!strcmp(s->cfg.pods[i].workload, prefix))
			return s->cfg.pods[i].dscp;
	return -1;
}

/* DSCP and priority of a workload or flow: @own (-1: none), else the NIC's. */
static void wl_dscp(const struct scenario *s, int own, uint8_t *dscp, uint8_t *prio)
{
	*dscp = s->nic.dscp;
	*prio = s->nic.priority;
	if (own >= 0) {
		*dscp = (uint8_t)own;
		if (*dscp != s->nic.dscp)
			*prio = s->nic.dscp2prio[*dscp];
	}
}

/*
 * A message of @bytes (a flow, or the most a collective sends at once)
 * numbers its packets of nic.mtu in 32 bits: at most 2^32 - 1 of them.
 */
static int check_packets(const struct loader *l, const char *path, uint64_t bytes, uint32_t mtu)
{
	uint64_t packets = bytes / mtu + (bytes % mtu != 0);

	if (packets <= UINT32_MAX)
		return 0;
	return scn__fail(l, path,
			 "%llu B is %llu packets of nic.mtu %u B, more than %u (a message's "
			 "packets are numbered in 32 bits)",
			 (unsigned long long)bytes, (unsigned long long)packets, mtu, UINT32_MAX);
}

/*
 * QPs per connection and how messages use them: the workload's keys, else
 * what its pod's NCCL_IB_QPS_PER_CONNECTION and NCCL_IB_SPLIT_DATA_ON_QPS
 * say, else NCCL's defaults (1; round robin, NCCL 2.20 on).
 */
static void wl_qps(const struct loader *l, const struct scenario *s, const struct raw_workload *w,
		   const char *prefix, struct coll_spec *c)
{
	uint64_t v = 1;
	int split = 0;

	for (uint32_t i = 0; i < s->cfg.n_pods; i++) {
		if (strcmp(s->cfg.pods[i].workload, prefix))
			continue;
		if (s->cfg.pods[i].qps)
			v = s->cfg.pods[i].qps;
		if (s->cfg.pods[i].split >= 0)
			split = s->cfg.pods[i].split;
	}
	/* checked already (scenario_workloads.c) */
	if (w->qps_per_connection)
		scn__get_uint(l, "", w->qps_per_connection, 1, 1, 128, &v);
	if (w->split_data_on_qps)
		scn__get_bool(l, "", w->split_data_on_qps, 0, &split);
	c->qps = (uint32_t)v;
	c->split = (uint8_t)(split == 1);
}

static int resolve_coll(const struct loader *l, const struct topo *t, const struct raw_workload *w,
			const char *prefix, struct scenario *s)
{
	const struct ydoc_entry *e;
	struct coll_spec *c;
	char p[200] = "";
	uint64_t v;
	int err = 0;

	c = realloc(s->colls, (s->n_colls + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->colls = c;
	c = &s->colls[s->n_colls];
	memset(c, 0, sizeof(*c));
	c->op = (enum coll_op)(w->kind - 1 - SCN_WL_COLL);
	units_size(w->size, &c->bytes);
	scn__get_uint(l, p, w->channels, 4, 1, 64, &v);
	c->channels = (uint32_t)v;
	c->chunk = COLL_CHUNK_DEFAULT;
	if (w->chunk)
		units_size(w->chunk, &c->chunk);
	scn__get_uint(l, p, w->steps, COLL_STEPS_DEFAULT, 0, 1024, &v);
	c->steps = (uint32_t)v;
	c->algo = w->algorithm && !strcmp(w->algorithm, "tree") ? COLL_TREE : COLL_RING;
	if (w->step_latency)
		units_time(w->step_latency, &c->step_latency);
	scn__get_uint(l, p, w->iterations, 1, 1, 100000, &v);
	c->iterations = (uint32_t)v;
	wl_qps(l, s, w, prefix, c);
	if (w->start)
		units_time(w->start, &c->start);
	wl_dscp(s, wl_own_dscp(s, w, prefix), &c->dscp, &c->priority);
	c->late_rank = UINT32_MAX;
	snprintf(p, sizeof(p), "%s.ranks", prefix);
	e = ydoc_find(l->raw->doc, p);
	c->topo = t;
	if (e && e->value && strcmp(e->value, "all"))
		return scn__fail(
		    l, p, "\"%s\" is not all or a list of servers or GPUs (e.g. [h0, h1/gpu2])",
		    e->value);
	if (!e || e->value) {
		c->n_ranks = t->n_gpus;
		c->ranks = malloc((c->n_ranks ? c->n_ranks : 1) * sizeof(*c->ranks));
		for (uint32_t i = 0; c->ranks && i < c->n_ranks; i++)
			c->ranks[i] = i;
	} else {
		uint32_t items = 0, cap = 0;

		while (snprintf(p, sizeof(p), "%s.ranks[%u]", prefix, items),
		       ydoc_find(l->raw->doc, p))
			items++;
		for (uint32_t i = 0; i < items && !err; i++) {
			uint32_t first, count, *r;

			snprintf(p, sizeof(p), "%s.ranks[%u]", prefix, i);
			e = ydoc_find(l->raw->doc, p);
			if (!e->value) {
				err = scn__fail(l, p, "expected a server or a GPU (h0, h0/gpu1)");
				break;
			}
			if ((err = scn__gpus_of(l, t, p, e->value, &first, &count)))
				break;
			if (c->n_ranks + count > cap) {
				cap = 2 * (c->n_ranks + count);
				if (!(r = realloc(c->ranks, cap * sizeof(*r)))) {
					err = -ENOMEM;
					break;
				}
				c->ranks = r;
			}
			for (uint32_t g = first; g < first + count && !err; g++) {
				for (uint32_t k = 0; !err && k < c->n_ranks; k++)
					if (c->ranks[k] == g)
						err = scn__fail(l, p, "%s is already rank %u",
								e->value, k);
				c->ranks[c->n_ranks++] = g;
			}
		}
		if (!c->ranks && !err)
			c->ranks = malloc(sizeof(*c->ranks));
	}
	s->n_colls++; /* freed with the scenario from here on */
	if (err)
		return err;
	if (!c->ranks)
		return -ENOMEM;
	if (c->n_ranks < 2)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "ranks"),
				 "a collective needs 2 ranks or more");
	/* the NICs and the algorithm before the QPs are counted */
	if ((err = scn__coll_nics(l, t, w, prefix, s, c)))
		return err;
	{
		const struct coll_place pl = coll_place_of(c);

		if (!(c->servers = coll_layout_servers(&pl)))
			return -ENOMEM;
	}
	if (w->algorithm && !strcmp(w->algorithm, "auto") && (err = scn__auto_algo(s, t, c)))
		return err;
	if ((err = check_count(l, prefix, s, 0)) ||
	    (err =
		 check_packets(l, scn__wpath(p, sizeof(p), prefix, "size"), c->bytes, s->nic.mtu)))
		return err;
	if (c->op != COLL_ALLTOALL && coll_ring_pieces(c, &v, &(uint32_t){0})) {
		uint64_t per = (uint64_t)c->n_ranks * c->channels;

		v = c->bytes / per + (c->bytes % per != 0);
		return scn__fail(
		    l, scn__wpath(p, sizeof(p), prefix, w->chunk ? "chunk" : "size"),
		    "%llu B a rank and channel in chunks of %llu B cuts each of the %u "
		    "ring steps into %llu pieces, more than %u (pieces are numbered "
		    "in 32 bits over the steps); give a larger chunk",
		    (unsigned long long)v, (unsigned long long)c->chunk, coll_ring_steps(c),
		    (unsigned long long)(v / c->chunk + (v % c->chunk != 0)),
		    UINT32_MAX / (coll_ring_steps(c) + 1));
	}
	if (w->late) {
		uint32_t h = 0, count;

		snprintf(p, sizeof(p), "%s.late.host", prefix);
		if ((err = scn__gpus_of(l, t, p, w->late->host, &h, &count)))
			return err;
		for (uint32_t i = 0; i < c->n_ranks; i++)
			if (c->ranks[i] == h)
				c->late_rank = i;
		if (c->late_rank == UINT32_MAX)
			return scn__fail(l, p, "%s is not one of the ranks", w->late->host);
		units_time(w->late->by, &c->late_by);
	}
	return 0;
}

/*
 * The hosts of a poisson workload (@prefix.hosts): all, or a list of two
 * or more distinct hosts. *@out is a new array (free it).
 */
static int poisson_hosts(const struct loader *l, const struct topo *t, const char *prefix,
			 uint32_t **out, uint32_t *n)
{
	const struct ydoc_entry *e;
	uint32_t *h;
	char p[200];
	int err = 0;

	*n = 0;
	snprintf(p, sizeof(p), "%s.hosts", prefix);
	e = ydoc_find(l->raw->doc, p);
	if (e && e->value && strcmp(e->value, "all"))
		return scn__fail(l, p, "\"%s\" is not all or a list of hosts (e.g. [h0, h1, h2])",
				 e->value);
	if (!e || e->value) {
		if (!(h = malloc(t->n_hosts * sizeof(*h))))
			return -ENOMEM;
		for (uint32_t i = 0; i < t->n_hosts; i++)
			h[i] = i;
		*out = h;
		*n = t->n_hosts;
		return 0;
	}
	while (snprintf(p, sizeof(p), "%s.hosts[%u]", prefix, *n), ydoc_find(l->raw->doc, p))
		(*n)++;
	if (!(h = malloc((*n ? *n : 1) * sizeof(*h))))
		return -ENOMEM;
	for (uint32_t i = 0; i < *n && !err; i++) {
		snprintf(p, sizeof(p), "%s.hosts[%u]", prefix, i);
		e = ydoc_find(l->raw->doc, p);
		if (!e->value) {
			err = scn__fail(l, p, "expected a host name");
			break;
		}
		err = scn__host_of(l, t, p, e->value, &h[i]);
		for (uint32_t k = 0; !err && k < i; k++)
			if (h[k] == h[i])
				err =
				    scn__fail(l, p, "%s is listed twice (hosts[%u])", e->value, k);
	}
	if (!err && *n < 2)
		err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "hosts"),
				"traffic needs 2 hosts or more");
	if (err) {
		free(h);
		return err;
	}
	*out = h;
	return 0;
}

/*
 * A poisson workload (@index: its place among the workloads, so that two
 * of them draw different streams from one seed): Poisson arrivals per
 * host of its list, at its link's rate.
 */
static int resolve_poisson(const struct loader *l, const struct topo *t,
			   const struct raw_workload *w, const char *prefix, unsigned index,
			   struct scenario *s)
{
	const struct scn_traffic *tr = NULL;
	struct wl_poisson_spec sp = {0};
	struct wl_flow *flows = NULL;
	uint64_t *rate, offered;
	uint32_t *hosts = NULL, n_hosts = 0, n = 0;
	uint8_t dscp, prio;
	char p[200];
	int err;

	for (uint32_t i = 0; i < s->n_traffic && !tr; i++)
		if (!strcmp(s->traffic[i].workload, prefix))
			tr = &s->traffic[i];
	if (!tr)
		return -EINVAL; /* checked when loaded */
	wl_dscp(s, wl_own_dscp(s, w, prefix), &dscp, &prio);
	if ((err = check_packets(l, scn__wpath(p, sizeof(p), prefix, "cdf"),
				 (uint64_t)tr->cdf.size[tr->cdf.n - 1], s->nic.mtu)) ||
	    (err = poisson_hosts(l, t, prefix, &hosts, &n_hosts)))
		return err;
	rate = malloc(n_hosts * sizeof(*rate));
	if (!rate) {
		free(hosts);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n_hosts; i++) {
		const struct topo_node *node = &t->nodes[t->hosts[hosts[i]]];

		rate[i] = node->n_ports ? t->links[t->ports[node->first_port].link].rate_bps : 0;
		s->wl.offered_capacity +=
		    (double)rate[i] / 8.0 * (double)tr->duration / (double)SIMTIME_S;
	}
	sp.cdf = &tr->cdf;
	sp.load = tr->load;
	sp.duration = tr->duration;
	sp.drop_last = tr->drop_last;
	if (w->start)
		units_time(w->start, &sp.start);
	sp.hosts = hosts;
	sp.n_hosts = n_hosts;
	sp.rate_bps = rate;
	sp.seed = s->seed + (uint64_t)index * 0x9e3779b97f4a7c15ULL;
	err = wl_poisson(&sp, &flows, &n, &offered);
	free(rate);
	free(hosts);
	if (err)
		return err;
	s->wl.offered_bytes += offered;
	return add_flows(l, prefix, s, flows, n, dscp, prio);
}

/*
 * Node @id of an HPCC flow file as a host index: on an hpcc topology the
 * host h<id>, on any other the host index itself. Errors name the flow
 * file and @line.
 */
static int hpcc_host(const struct loader *l, const struct topo *t, const struct scn_hpcc *h,
		     const char *key, uint32_t id, int line, uint32_t *out)
{
	char name[32];
	int32_t x;

	if (l->raw->top->topology && l->raw->top->topology->kind - 1 != TOPO_HPCC) {
		if (id >= t->n_hosts) {
			diag_set(l->d, h->file, line, key,
				 "host %u is out of range (hosts 0..%u: on a topology of another "
				 "kind than hpcc, node ids are host indices)",
				 id, t->n_hosts - 1);
			return -EINVAL;
		}
		*out = id;
		return 0;
	}
	snprintf(name, sizeof(name), "h%u", id);
	x = topo_find_host(t, name);
	if (x >= 0) {
		*out = (uint32_t)x;
		return 0;
	}
	snprintf(name, sizeof(name), "s%u", id);
	if (topo_find_node(t, name) >= 0)
		diag_set(l->d, h->file, line, key, "node %u is a switch (s%u), not a host", id, id);
	else
		diag_set(l->d, h->file, line, key, "node %u is not in the topology (nodes 0..%u)",
			 id, t->n_nodes - 1);
	return -EINVAL;
}

/*
 * An hpcc workload: the flows of its file, from its start on, between the
 * hosts its node ids name, each on the priority its pg gives: the workload's DSCP when it
 * maps to that priority, else the lowest DSCP the NIC maps to it.
 */
static int resolve_hpcc(const struct loader *l, const struct topo *t, const struct raw_workload *w,
			const char *prefix, struct scenario *s)
{
	const struct scn_hpcc *h = NULL;
	struct wl_flow *flows;
	uint32_t base = s->wl.n_flows;
	simtime_t start = 0;
	uint8_t dscp, prio;
	char key[200];
	int err = 0;

	for (uint32_t i = 0; i < s->n_hpcc && !h; i++)
		if (!strcmp(s->hpcc[i].workload, prefix))
			h = &s->hpcc[i];
	if (!h)
		return -EINVAL; /* checked when loaded */
	scn__wpath(key, sizeof(key), prefix, "file");
	wl_dscp(s, wl_own_dscp(s, w, prefix), &dscp, &prio);
	if (w->start)
		units_time(w->start, &start);
	flows = calloc(h->flows.n, sizeof(*flows));
	if (!flows)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->flows.n && !err; i++) {
		const struct hpcc_flow *hf = &h->flows.flows[i];

		err = hpcc_host(l, t, h, key, hf->src, hf->line, &flows[i].src);
		err = err ? err : hpcc_host(l, t, h, key, hf->dst, hf->line, &flows[i].dst);
		if (!err && hf->bytes > (uint64_t)UINT32_MAX * s->nic.mtu) {
			diag_set(l->d, h->file, hf->line, key,
				 "size %llu B is more than 2^32 - 1 packets of nic.mtu %u B",
				 (unsigned long long)hf->bytes, s->nic.mtu);
			err = -EINVAL;
		}
		flows[i].bytes = hf->bytes;
		flows[i].start = start + hf->start;
	}
	if (err) {
		free(flows);
		return err;
	}
	if ((err = add_flows(l, prefix, s, flows, h->flows.n, dscp, prio)))
		return err;
	for (uint32_t i = 0; i < h->flows.n; i++) {
		struct wl_flow *f = &s->wl.flows[base + i];
		uint8_t pg = h->flows.flows[i].pg;
		int d = pg == prio ? dscp : -1;

		for (int k = 0; d < 0 && k < 64; k++)
			if (s->nic.dscp2prio[k] == pg)
				d = k;
		if (d < 0) {
			diag_set(l->d, h->file, h->flows.flows[i].line, key,
				 "pg %u: no DSCP maps to priority %u on the NIC (nic.dscp2prio)",
				 pg, pg);
			return -EINVAL;
		}
		f->dscp = (uint8_t)d;
		f->priority = pg;
	}
	return 0;
}

/* A training job: its collectives' knobs as a collective's, then the job. */
static int resolve_training(const struct loader *l, const struct topo *t,
			    const struct raw_workload *w, const char *prefix, struct scenario *s)
{
	struct coll_spec c = {
	    .algo = COLL_RING, .chunk = COLL_CHUNK_DEFAULT, .late_rank = UINT32_MAX, .topo = t};
	uint64_t v;

	scn__get_uint(l, "", w->channels, 4, 1, 64, &v);
	c.channels = (uint32_t)v;
	if (w->chunk)
		units_size(w->chunk, &c.chunk);
	scn__get_uint(l, "", w->steps, COLL_STEPS_DEFAULT, 0, 1024, &v);
	c.steps = (uint32_t)v;
	if (w->step_latency)
		units_time(w->step_latency, &c.step_latency);
	scn__get_uint(l, "", w->iterations, 1, 1, 100000, &v);
	c.iterations = (uint32_t)v;
	wl_qps(l, s, w, prefix, &c);
	if (w->start)
		units_time(w->start, &c.start);
	wl_dscp(s, wl_own_dscp(s, w, prefix), &c.dscp, &c.priority);
	return scn__resolve_training(l, t, w, prefix, &c, s);
}

static int resolve_workload(const struct loader *l, const struct topo *t,
			    const struct raw_workload *w, const char *prefix, unsigned index,
			    struct scenario *s)
{
	struct wl_flow *flows = NULL;
	uint32_t n = 0;
	uint8_t dscp, prio;
	uint64_t size = 0, senders = 0;
	simtime_t start = 0;
	char p[200];
	int err = 0;

	if (SCN_WL_IS_COLL(w->kind - 1))
		return resolve_coll(l, t, w, prefix, s);
	if (SCN_WL_IS_JOB(w->kind - 1))
		return resolve_training(l, t, w, prefix, s);
	if (w->kind - 1 == SCN_WL_POISSON)
		return resolve_poisson(l, t, w, prefix, index, s);
	if (w->kind - 1 == SCN_WL_HPCC)
		return resolve_hpcc(l, t, w, prefix, s);
	wl_dscp(s, wl_own_dscp(s, w, prefix), &dscp, &prio);
	if (w->size)
		units_size(w->size, &size);
	if (w->size &&
	    (err = check_packets(l, scn__wpath(p, sizeof(p), prefix, "size"), size, s->nic.mtu)))
		return err;
	if (w->start)
		units_time(w->start, &start);
	switch (w->kind - 1) {
	case SCN_WL_FLOWS:
		flows = calloc(w->flows_count, sizeof(*flows));
		if (!flows)
			return -ENOMEM;
		for (unsigned i = 0; i < w->flows_count && !err; i++) {
			const struct raw_flow *rf = &w->flows[i];
			struct wl_flow *f = &flows[i];

			snprintf(p, sizeof(p), "%s.flows[%u].src", prefix, i);
			err = scn__host_of(l, t, p, rf->src, &f->src);
			snprintf(p, sizeof(p), "%s.flows[%u].dst", prefix, i);
			err = err ? err : scn__host_of(l, t, p, rf->dst, &f->dst);
			if (!err && f->src == f->dst)
				err = scn__fail(l, p,
						"a flow from %s to itself never touches the fabric",
						rf->src);
			units_size(rf->size, &f->bytes);
			snprintf(p, sizeof(p), "%s.flows[%u].size", prefix, i);
			err = err ? err : check_packets(l, p, f->bytes, s->nic.mtu);
			f->start = start;
			if (rf->start)
				units_time(rf->start, &f->start);
		}
		if (err) {
			free(flows);
			return err;
		}
		err = add_flows(l, prefix, s, flows, w->flows_count, dscp, prio);
		/* a flow's own dscp wins over the workload's */
		for (unsigned i = 0; !err && i < w->flows_count; i++)
			if (w->flows[i].dscp)
				wl_dscp(s, dscp_of(w->flows[i].dscp),
					&s->wl.flows[s->wl.n_flows - w->flows_count + i].dscp,
					&s->wl.flows[s->wl.n_flows - w->flows_count + i].priority);
		return err;
	case SCN_WL_INCAST: {
		uint32_t recv = t->n_hosts - 1;

		units_size(w->senders, &senders);
		if (w->receiver)
			err = scn__host_of(l, t, scn__wpath(p, sizeof(p), prefix, "receiver"),
					   w->receiver, &recv);
		if (!err && senders > t->n_hosts - 1)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "senders"),
					"%llu senders need %llu hosts, the topology has %u",
					(unsigned long long)senders,
					(unsigned long long)senders + 1, t->n_hosts);
		if (!err)
			err =
			    wl_incast(t->n_hosts, (uint32_t)senders, recv, size, start, &flows, &n);
		break;
	}
	default:
		err = wl_permutation(t->n_hosts, size, start, s->seed, &flows, &n);
		break;
	}
	return err ? err : add_flows(l, prefix, s, flows, n, dscp, prio);
}

int scn_resolve(struct scenario *s, const struct topo *t, struct diag *d)
{
	struct loader l = {.file = s->file, .raw = s->raw, .d = d};
	const struct raw_top *r = s->raw->top;
	char p[160];
	int err = 0;

	free(s->wl.flows);
	s->wl.flows = NULL;
	s->wl.n_flows = 0;
	s->wl.offered_bytes = 0;
	s->wl.offered_capacity = 0;
	s->n_faults = 0;
	if (t->n_hosts < 2 && t->n_gpus < 2)
		return scn__fail(&l, "topology", "has %u host: traffic needs at least 2",
				 t->n_hosts);
	if ((err = scn__resolve_switches(s, t, d)))
		return err;
	if (r->workload)
		err = resolve_workload(&l, t, r->workload, "workload", 0, s);
	for (unsigned i = 0; !err && i < r->workloads_count; i++) {
		snprintf(p, sizeof(p), "workload[%u]", i);
		err = resolve_workload(&l, t, &r->workloads[i], p, i, s);
	}
	if (err)
		return err;
	return scn__resolve_faults(&l, t, r, s);
}

/* Add @dscp, given by @path, unless it is there already. */
static void add_dscp(struct scn_dscp *d, size_t *n, uint8_t dscp, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (d[i].dscp == dscp)
			return;
	d[*n].dscp = dscp;
	snprintf(d[*n].path, sizeof(d[*n].path), "%s", path);
	(*n)++;
}

/* The DSCPs of workload @w (@prefix): its flows' own, else its own or its pod's, else the
 * NIC's. */
static void wl_dscps(const struct scenario *s, const struct raw_workload *w, const char *prefix,
		     struct scn_dscp *d, size_t *n)
{
	char p[96];
	int all_own = w->kind - 1 == SCN_WL_FLOWS && w->flows_count > 0, own;

	for (unsigned i = 0; w->kind - 1 == SCN_WL_FLOWS && i < w->flows_count; i++) {
		if (!w->flows[i].dscp) {
			all_own = 0;
			continue;
		}
		snprintf(p, sizeof(p), "%s.flows[%u].dscp", prefix, i);
		add_dscp(d, n, (uint8_t)dscp_of(w->flows[i].dscp), p);
	}
	if (all_own)
		return;
	if ((own = wl_own_dscp(s, w, prefix)) >= 0)
		add_dscp(d, n, (uint8_t)own, scn__wpath(p, sizeof(p), prefix, "dscp"));
	else
		add_dscp(d, n, s->nic.dscp, "nic.dscp");
}

int scn_data_dscps(const struct scenario *s, struct scn_dscp **out, size_t *n)
{
	const struct raw_top *r = s->raw->top;
	struct scn_dscp *d = calloc(64, sizeof(*d));
	char p[32];

	*n = 0;
	if (!d)
		return -ENOMEM;
	if (r->workload)
		wl_dscps(s, r->workload, "workload", d, n);
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(p, sizeof(p), "workload[%u]", i);
		wl_dscps(s, &r->workloads[i], p, d, n);
	}
	if (!*n)
		add_dscp(d, n, s->nic.dscp, "nic.dscp");
	*out = d;
	return 0;
}
