/*
 * The fabric: builds ports, switches and NICs from the topology, joins them
 * (the callback tables through which they report upwards: nic_ops,
 * sw_ops), starts flows on time, and plays the faults (a link goes down at
 * once; routes follow after topology.convergence). A link down at time 0
 * was never up: the routes are built without it, as `rocesim check` takes
 * it.
 */
#include "models/net.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void on_flow_start(void *obj, uint64_t arg)
{
	struct flow *f = obj;

	(void)arg;
	nic_start_flow(f->nic, f);
}

/* A message arrived whole (nic_ops): a workload flow or a collective's step is done. */
static void on_msg_done(void *up, struct flow *qp, uint32_t tag, simtime_t now)
{
	struct net *n = up;

	if (qp->coll) {
		coll_msg_done(qp->coll, qp, tag, now);
	} else {
		n->flows_done++;
		n->last_done = now;
		mctx_finished(&n->ctx);
	}
}

/* A collective completed its last iteration (coll_env). */
static void on_coll_finished(void *up)
{
	struct net *n = up;

	n->colls_done++;
	n->last_done = evq_now(n->ctx.q);
	mctx_finished(&n->ctx);
}

/* A switch dropped a packet of @flow for want of a route (sw_ops). */
static void on_unroutable(void *up, uint32_t flow)
{
	struct net *n = up;

	if (flow < n->n_flows)
		n->flows[flow].unroutable++;
}

static const struct nic_ops net_nic_ops = {.msg_done = on_msg_done};
static const struct sw_ops net_sw_ops = {.unroutable = on_unroutable};

static void on_link_down(void *obj, uint64_t link)
{
	struct net *n = obj;
	const struct topo_link *l = &n->topo->links[link];
	struct port *a = &n->ports[l->port_a], *b = &n->ports[l->port_b];

	mctx_ff_touch(&n->ctx);
	if (!a->up)
		return;
	port_link_down(a);
	if (n->switches[l->a])
		sw_port_down(n->switches[l->a], a->local);
	if (n->switches[l->b])
		sw_port_down(n->switches[l->b], b->local);
}

static void on_link_up(void *obj, uint64_t link)
{
	struct net *n = obj;
	const struct topo_link *l = &n->topo->links[link];

	mctx_ff_touch(&n->ctx);
	if (!n->ports[l->port_a].up)
		port_link_up(&n->ports[l->port_a]);
}

/* Both ends of link @link at @rate_bps (their PFC response follows the speed
 * unless switch.pfc.response fixes it). */
static void set_rate(struct net *n, uint32_t link, uint64_t rate_bps)
{
	const struct topo_link *l = &n->topo->links[link];
	struct port *a = &n->ports[l->port_a];

	port_set_rate(a, rate_bps);
	if (n->p.sw.pfc.response)
		a->response = a->peer->response = n->p.sw.pfc.response;
}

static void on_link_rate(void *obj, uint64_t fault)
{
	struct net *n = obj;

	mctx_ff_touch(&n->ctx);
	set_rate(n, n->p.faults[fault].link, n->p.faults[fault].rate_bps);
}

/*
 * The control plane has converged: routes avoid the failed link, or take
 * the mended one again (@arg: the link, times 2, plus 1 when it came up).
 */
static void on_reroute(void *obj, uint64_t arg)
{
	struct net *n = obj;
	struct topo_routes *r;
	int err = 0;

	mctx_ff_touch(&n->ctx);
	n->topo->links[arg >> 1].up = (int)(arg & 1);
	if (topo_routes_build(n->topo, &r)) {
		mctx_fail(&n->ctx, -ENOMEM);
		return;
	}
	/* every switch takes @r, even after one failed, so none keeps the old */
	for (uint32_t u = 0; u < n->topo->n_nodes; u++)
		if (n->switches[u] && sw_set_routes(n->switches[u], r))
			err = -ENOMEM;
	topo_routes_free(n->routes);
	n->routes = r;
	if (err)
		mctx_fail(&n->ctx, err);
}

/* A port that sends PAUSE without end (a storm), from `at` for `duration`. */
struct storm {
	struct net *net;
	struct port *port;
	uint8_t prios;
	simtime_t end; /* 0: without end */
	struct evq_timer t;
};

static void on_storm(void *obj, uint64_t arg)
{
	struct storm *st = obj;
	struct mctx *c = &st->net->ctx;
	simtime_t now = evq_now(c->q);

	(void)arg;
	mctx_ff_touch(c);
	if (st->end && now >= st->end)
		return;
	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		if (!(st->prios & (1u << prio)))
			continue;
		mctx_fail(c, port_send_pause(st->port, prio, 0xffff));
		mctx_pfc_event(c, st->port->id, prio, PFC_EV_STORM);
	}
	/* refreshed before it expires, as a stuck device keeps doing */
	mctx_arm(c, &st->t, now + pfc_quanta_time(0xffff, st->port->rate_bps) / 2);
}

static uint32_t flow_hash(uint64_t seed, uint32_t id)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + id + 1;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return (uint32_t)(x ^ (x >> 32));
}

/* The QPs of every training job. */
static uint64_t jobs_qps(const struct net_params *p)
{
	uint64_t n = 0;

	for (uint32_t j = 0; j < p->n_jobs; j++)
		n += train_qp_count(&p->jobs[j]);
	return n;
}

/* A training job ended its last iteration (train_env). */
static void on_job_finished(void *up)
{
	struct net *n = up;

	n->jobs_done++;
	n->last_done = evq_now(n->ctx.q);
	mctx_finished(&n->ctx);
}

/*
 * The training jobs, their QPs after the collectives' from @first: each
 * QP's ECMP hash and its credits' delay back, as the collectives' have.
 */
static int jobs_build(struct net *n, uint32_t first)
{
	uint32_t id = n->n_colls;
	int err;

	n->jobs = calloc(n->p.n_jobs ? n->p.n_jobs : 1, sizeof(*n->jobs));
	if (!n->jobs)
		return -ENOMEM;
	for (uint32_t j = 0; j < n->p.n_jobs; j++) {
		const struct train_plan *pl = &n->p.jobs[j];
		const struct train_env env = {.first_id = id,
					      .job = j,
					      .nics = n->nics,
					      .nvlink = n->nvlink,
					      .finished = on_job_finished,
					      .up = n};

		if ((err = train_new(&n->ctx, pl, n->flows, first, &env, &n->jobs[j])))
			return err;
		n->n_jobs++;
		for (uint32_t c = 0; c < pl->n_comms; c++) {
			uint32_t qps = (uint32_t)coll_qp_count(&pl->comms[c].spec);

			for (uint32_t k = 0; k < qps; k++) {
				struct flow *f = &n->flows[first + k];

				f->hash = flow_hash(n->p.seed, first + k);
				coll_credit_delay(train_coll(n->jobs[j], c), k,
						  topo_path_delay(n->topo, n->routes, f->dst,
								  f->src, f->hash, 0));
			}
			first += qps;
		}
		id += pl->n_comms;
	}
	return 0;
}

int net_build(const struct net_params *params, struct topo *t, struct evq *q, struct net **out,
	      struct diag *d)
{
	struct net *n = calloc(1, sizeof(*n));
	const struct net_params *p;
	simtime_t barrier = 0; /* a collective's, between iterations: the longest cable */
	int err = -ENOMEM;

	*out = NULL;
	if (!n)
		return -ENOMEM;
	n->ctx.q = q;
	n->ctx.seed = params->seed;
	n->p = *params;
	p = &n->p;
	n->topo = t;
	/* a link down at 0 was never up: the routes are built without it */
	for (uint32_t i = 0; i < p->n_faults; i++)
		if (p->faults[i].kind == NET_FAULT_LINK_DOWN && !p->faults[i].at)
			t->links[p->faults[i].link].up = 0;
	if (topo_routes_build(t, &n->routes))
		goto fail;
	/* ports start cache lines (link.h): aligned, and zeroed as calloc would */
	n->ports = mem_zalloc_lines(t->n_ports, sizeof(*n->ports));
	n->switches = calloc(t->n_nodes, sizeof(*n->switches));
	n->nics = calloc(t->n_hosts, sizeof(*n->nics));
	n->n_flows = p->wl.n_flows;
	for (uint32_t i = 0; i < p->n_colls; i++)
		n->n_flows += coll_qp_count(&p->colls[i]);
	for (uint32_t j = 0; j < p->n_jobs; j++)
		n->n_flows += train_qp_count(&p->jobs[j]);
	n->flows = mem_zalloc_lines(n->n_flows, sizeof(*n->flows)); /* nic.h: on lines */
	n->colls = calloc(p->n_colls ? p->n_colls : 1, sizeof(*n->colls));
	n->rank_parts = calloc(p->n_colls ? p->n_colls : 1, sizeof(*n->rank_parts));
	if (!n->ports || !n->switches || !n->nics || !n->flows || !n->colls || !n->rank_parts)
		goto fail;
	for (uint32_t i = 0; i < t->n_ports; i++) {
		const struct topo_port *tp = &t->ports[i];
		const struct topo_link *l = &t->links[tp->link];

		port_init(&n->ports[i], &n->ctx, i, l->rate_bps, l->delay);
		if (p->sw.pfc.response)
			n->ports[i].response = p->sw.pfc.response;
		port_connect(&n->ports[i], &n->ports[tp->peer_port]);
		n->ports[i].local = i - t->nodes[tp->node].first_port;
		n->ports[i].up = l->up != 0;
	}
	for (uint32_t i = 0; i < p->n_faults; i++)
		if (p->faults[i].kind == NET_FAULT_LINK_RATE && !p->faults[i].at)
			set_rate(n, p->faults[i].link, p->faults[i].rate_bps);
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		const struct topo_node *tn = &t->nodes[u];

		if (tn->kind == TOPO_SWITCH) {
			err = sw_new(&n->ctx, p->sw_node && p->sw_node[u] ? p->sw_node[u] : &p->sw,
				     p->nic.mtu, t, n->routes, u, &n->ports[tn->first_port],
				     &n->switches[u], d);
			if (err)
				goto fail;
			sw_set_ops(n->switches[u], &net_sw_ops, n);
			err = -ENOMEM;
		} else if (!(n->nics[tn->host_index] =
				 nic_new(&n->ctx, &p->nic, tn->host_index,
					 &n->ports[tn->first_port], n->flows, &net_nic_ops, n))) {
			goto fail;
		}
	}
	n->n_wl_flows = p->wl.n_flows;
	for (uint32_t i = 0; i < n->n_wl_flows; i++) {
		struct flow *f = &n->flows[i];
		const struct wl_flow *sf = &p->wl.flows[i];

		f->id = i;
		f->src = sf->src;
		f->dst = sf->dst;
		f->bytes = sf->bytes;
		f->start = sf->start;
		f->hash = flow_hash(p->seed, i);
		f->dscp = sf->dscp;
		f->prio = sf->priority;
		f->nic = n->nics[f->src];
		evq_timer_init(&f->start_timer, on_flow_start, f,
			       evq_key(MCTX_KEY_FLOW, i, NIC_FLOW_START));
		if ((err = evq_arm(q, &f->start_timer, f->start)))
			goto fail;
	}
	err = -ENOMEM;
	/* NVLink joins the GPUs of servers that have more than one */
	if (t->n_gpus > t->n_servers && !(n->nvlink = nvlink_new(&n->ctx, &p->nvlink, t->n_gpus)))
		goto fail;
	for (uint32_t l = 0; l < t->n_links; l++)
		if (t->links[l].delay > barrier)
			barrier = t->links[l].delay;
	for (uint32_t i = 0, first = n->n_wl_flows; i < p->n_colls; i++) {
		const struct coll_env env = {.id = i,
					     .nics = n->nics,
					     .nvlink = n->nvlink,
					     .finished = on_coll_finished,
					     .up = n,
					     .barrier = barrier};

		if ((err = coll_new(&n->ctx, &p->colls[i], n->flows, first, &env, &n->colls[i])))
			goto fail;
		n->n_colls++;
		for (uint32_t k = 0; k < coll_qp_count(&p->colls[i]); k++) {
			struct flow *f = &n->flows[first + k];

			f->hash = flow_hash(p->seed, first + k);
			/* its credits come back from the responder on the path back */
			coll_credit_delay(
			    n->colls[i], k,
			    topo_path_delay(t, n->routes, f->dst, f->src, f->hash, 0));
		}
		first += coll_qp_count(&p->colls[i]);
	}
	if ((err = jobs_build(n, n->n_flows - (uint32_t)jobs_qps(p))))
		goto fail;
	err = -ENOMEM;
	n->storms = calloc(p->n_faults ? p->n_faults : 1, sizeof(*n->storms));
	if (!n->storms)
		goto fail;
	for (uint32_t i = 0; i < p->n_faults; i++) {
		const struct net_fault *f = &p->faults[i];
		struct storm *st = &n->storms[i];

		err = -ENOMEM;
		if (f->kind == NET_FAULT_PFC_STORM) {
			*st = (struct storm){.net = n,
					     .port = &n->ports[f->port],
					     .prios = f->priorities,
					     .end = f->duration ? f->at + f->duration : 0};
			evq_timer_init(&st->t, on_storm, st, evq_key(MCTX_KEY_FAULT, i, 0));
			if ((err = evq_arm(q, &st->t, f->at)))
				goto fail;
		} else if (f->kind == NET_FAULT_LINK_DOWN && !f->at) {
			continue; /* down from the start (above) */
		} else if (f->kind == NET_FAULT_LINK_RATE && !f->at) {
			continue; /* at that rate from the start (above) */
		} else if (f->kind == NET_FAULT_LINK_RATE) {
			if (!evq_post(q, f->at, on_link_rate, n, i, evq_key(MCTX_KEY_FAULT, i, 1)))
				goto fail;
		} else if (!evq_post(q, f->at,
				     f->kind == NET_FAULT_LINK_UP ? on_link_up : on_link_down, n,
				     f->link, evq_key(MCTX_KEY_FAULT, i, 1)) ||
			   !evq_post(q, f->at + p->convergence, on_reroute, n,
				     (uint64_t)f->link << 1 | (f->kind == NET_FAULT_LINK_UP),
				     evq_key(MCTX_KEY_FAULT, i, 2))) {
			goto fail;
		}
	}
	if (p->deadlock.enabled && p->sw.pfc.enabled && p->sw.lossless && t->n_switches &&
	    (err = deadlock_start(&n->ctx, t, n->ports, &p->deadlock, &n->deadlock)))
		goto fail;
	*out = n;
	return 0;
fail:
	net_free(n);
	return err;
}

void net_free(struct net *n)
{
	if (!n)
		return;
	for (uint32_t u = 0; n->switches && u < n->topo->n_nodes; u++)
		sw_free(n->switches[u]);
	for (uint32_t h = 0; n->nics && h < n->topo->n_hosts; h++)
		nic_free(n->nics[h]);
	free(n->switches);
	free(n->nics);
	free(n->ports);
	for (uint32_t i = 0; n->flows && i < n->n_flows; i++)
		free(n->flows[i].msgs);
	free(n->flows);
	for (uint32_t i = 0; n->colls && i < n->n_colls; i++)
		coll_free(n->colls[i]);
	free(n->colls);
	for (uint32_t j = 0; n->jobs && j < n->n_jobs; j++)
		train_free(n->jobs[j]);
	free(n->jobs);
	for (uint32_t i = 0; n->rank_parts && i < n->p.n_colls; i++)
		free(n->rank_parts[i]);
	free(n->rank_parts);
	nvlink_free(n->nvlink);
	free(n->storms);
	deadlock_free(n->deadlock);
	topo_routes_free(n->routes);
	pkt_pool_destroy(&n->ctx.pool);
	mem_arena_free(&n->ctx.mem);
	free(n);
}

int net_split(struct net *n, const uint32_t *node_part, uint32_t me, const struct mctx_part *hooks)
{
	const struct topo *t = n->topo;

	n->ctx.part = hooks;
	for (uint32_t i = 0; i < n->n_colls; i++) {
		const struct coll_place pl = coll_place_of(&n->p.colls[i]);
		uint32_t *part = malloc((pl.n_ranks ? pl.n_ranks : 1) * sizeof(*part));

		if (!part)
			return -ENOMEM;
		/* a rank runs with its server, which runs with its first NIC */
		for (uint32_t r = 0; r < pl.n_ranks; r++) {
			uint32_t s = coll_rank_server(&pl, r);
			uint32_t host = pl.topo ? t->server_nics[t->servers[s].first_nic] : s;

			part[r] = node_part[t->hosts[host]];
		}
		free(n->rank_parts[i]);
		n->rank_parts[i] = part;
		coll_split(n->colls[i], part, me);
	}
	for (uint32_t i = 0; i < t->n_ports; i++) {
		n->ports[i].remote =
		    node_part[t->ports[i].node] == me && node_part[t->ports[i].peer] != me;
		/* a part hands what leaves it over at a packet's end */
		port_set_lazy(&n->ports[i], 0);
	}
	for (uint32_t i = 0; i < n->n_flows; i++) {
		struct flow *f = &n->flows[i];
		int req = node_part[t->hosts[f->src]] == me,
		    resp = node_part[t->hosts[f->dst]] == me;

		f->side = req && resp ? NIC_SIDE_BOTH
			  : req	      ? NIC_SIDE_REQUESTER
			  : resp      ? NIC_SIDE_RESPONDER
				      : NIC_SIDE_NONE;
		if (!req && i < n->n_wl_flows)
			evq_cancel(n->ctx.q, &f->start_timer);
	}
	for (uint32_t i = 0; i < n->p.n_faults; i++)
		if (n->p.faults[i].kind == NET_FAULT_PFC_STORM &&
		    node_part[t->ports[n->p.faults[i].port].node] != me)
			evq_cancel(n->ctx.q, &n->storms[i].t);
	return 0;
}

uint64_t net_inflight_bytes(const struct net *n)
{
	uint64_t b = 0;

	for (uint32_t i = 0; i < n->topo->n_ports; i++)
		b += port_inflight_payload(&n->ports[i]);
	return b;
}

simtime_t net_settle(struct net *n, simtime_t t, uint64_t key)
{
	simtime_t last = 0;

	for (uint32_t i = 0; i < n->topo->n_ports; i++) {
		simtime_t end = port_settle(&n->ports[i], t, key);

		if (end > last)
			last = end;
	}
	return last;
}

int net_done(const struct net *n)
{
	return n->flows_done == n->n_wl_flows && n->colls_done == n->n_colls &&
	       n->jobs_done == n->n_jobs;
}
