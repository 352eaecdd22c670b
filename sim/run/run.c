/*
 * The run: builds everything one simulation needs and drives the event
 * loop (see sim.h). The time-series sampler, one re-armed timer, is in
 * series.c.
 */
#include "sim/run/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/run/series.h"
#include "sim/readers/topo_read.h"

/* events between two looks at an interrupt and at the progress line */
#define RUN_BATCH ((uint64_t)1 << 18)

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *sim_end_str(enum sim_end e)
{
	switch (e) {
	case SIM_END_DONE:
		return "workload done";
	case SIM_END_STOP:
		return "time bound (stop) reached";
	case SIM_END_EVENTS:
		return "event cap (max_events) reached";
	case SIM_END_IDLE:
		return "nothing left to happen, workload unfinished";
	case SIM_END_DEADLOCK:
		return "deadlock detected (deadlock.stop_on_detect)";
	case SIM_END_INTERRUPTED:
		return "interrupted";
	default:
		return "error";
	}
}

/*
 * A topology host is one NIC port of a server (a server with several links
 * has a host node per link): a NIC model drives exactly one link.
 */
static int check_hosts(const struct sim *sim, struct diag *d)
{
	const struct topo *t = sim->topo;

	for (uint32_t h = 0; h < t->n_hosts; h++) {
		const struct topo_node *n = &t->nodes[t->hosts[h]];

		if (n->n_ports != 1) {
			diag_set(d, "", 0, "topology",
				 "NIC %s has %u links; a NIC port has exactly one", n->name,
				 n->n_ports);
			scn_locate(sim->scn, d);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The static deadlock analysis of what this run will send: the routes of
 * every workload flow and collective QP, on the traffic class its DSCP
 * maps to (only lossless classes count). Links that fail at time 0 were
 * never up (net_build), as `check` takes them.
 */
static int static_deadlock(struct sim *sim)
{
	const struct scenario *s = sim->scn;
	struct cbd_pair *pairs;
	size_t n_pairs;
	int err;

	if (!scn_lossless(s))
		return 0;
	if (scn_pairs(s, &pairs, &n_pairs))
		return -ENOMEM;
	err = cbd_analyze(sim->topo, sim->net->routes, scn_lossless(s), pairs, n_pairs, 16,
			  &sim->cbd);
	free(pairs);
	return err;
}

/* What the fabric is built from: the scenario's model sections. */
static void net_params_of(const struct scenario *s, struct net_params *p)
{
	*p = (struct net_params){
	    .seed = s->seed,
	    .sw = s->sw,
	    .sw_node = s->sw_node,
	    .nic = s->nic,
	    .wl = s->wl,
	    .colls = s->colls,
	    .n_colls = s->n_colls,
	    .jobs = s->plans,
	    .n_jobs = s->n_jobs,
	    .faults = s->faults,
	    .n_faults = s->n_faults,
	    .convergence = s->convergence,
	    .deadlock = s->deadlock,
	    .nvlink = {.rate_bps = s->topo.nvlink_bps, .latency = s->topo.nvlink_latency},
	};
	if (s->solo && s->solo <= s->n_jobs) { /* one job alone: no other workload */
		p->jobs = &s->plans[s->solo - 1];
		p->n_jobs = 1;
		p->wl = (struct wl_params){0};
		p->colls = NULL;
		p->n_colls = 0;
	}
}

/*
 * What one hop can hold back an ACK or a CNP at most once the data has
 * landed: the longest propagation delay, and the slowest link's
 * serialisation of a full data frame it may queue behind and of itself.
 */
static simtime_t hop_bound(const struct topo *t, uint32_t mtu)
{
	uint64_t frame =
	    (uint64_t)mtu + PKT_HEADER_BYTES + PKT_CNP_FRAME_BYTES + 2 * PKT_PREAMBLE_IFG_BYTES;
	simtime_t delay = 0, tx = 0;

	for (uint32_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];

		if (k->delay > delay)
			delay = k->delay;
		if (k->rate_bps && simtime_tx(frame, k->rate_bps) > tx)
			tx = simtime_tx(frame, k->rate_bps);
	}
	return delay + tx;
}

int sim_init(struct sim *sim, struct scenario *s, struct diag *d)
{
	struct net_params p;
	int err;

	memset(sim, 0, sizeof(*sim));
	sim->scn = s;
	err = topo_build(&s->topo, &sim->topo, d);
	if (err) {
		scn_locate(s, d);
		return err;
	}
	if ((err = check_hosts(sim, d)) || (err = scn_resolve(s, sim->topo, d)))
		return err;
	sim->q = evq_new();
	if (!sim->q)
		return -ENOMEM;
	net_params_of(s, &p);
	sim->hop_bound = hop_bound(sim->topo, s->nic.mtu);
	err = net_build(&p, sim->topo, sim->q, &sim->net, d);
	if (err == -EINVAL)
		scn_locate(s, d);
	if (!err && s->out.sample)
		err = series_init(sim);
	s->fast_forward.stop = s->stop;
	if (!err && s->fast_forward.enabled && !(sim->ff = ff_new(sim->net, &s->fast_forward)))
		err = -ENOMEM;
	/* NVLink operations replayed (exact), unless the run may end in the
	 * middle of one: at a deadlock, or at max_events (a replay fires far
	 * fewer events: the cap would fall elsewhere) */
	if (!err && s->fast_forward.enabled && !s->deadlock.stop_on_detect && !s->max_events)
		sim->net->ctx.replay_until = s->stop ? s->stop : SIMTIME_NEVER;
	return err ? err : static_deadlock(sim);
}

/*
 * A split run's part logs each line after where its event stands in the
 * run's order (time in ps, the event's key, its lines so far): process 0
 * merges the parts' lines by it (par.c).
 */
static void log_pfc_tagged(void *ctx, simtime_t t, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	struct sim *sim = ctx;
	uint64_t key = evq_key_now(sim->q);

	if (t != sim->log_at || key != sim->log_key) {
		sim->log_at = t;
		sim->log_key = key;
		sim->log_lines = 0;
	}
	fprintf(sim->pfc_events, "%020llu%020llu%010u\t%.6f,%s,%u,%s\n", (unsigned long long)t,
		(unsigned long long)key, sim->log_lines++, simtime_to_us(t),
		sim->topo->ports[port].name, prio, pfc_event_str(ev));
}

void sim_log_pfc_tagged(struct sim *sim)
{
	sim->net->ctx.pfc_log = log_pfc_tagged;
	sim->net->ctx.pfc_log_ctx = sim;
}

static void log_pfc(void *ctx, simtime_t t, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	struct sim *sim = ctx;

	fprintf(sim->pfc_events, "%.6f,%s,%u,%s\n", simtime_to_us(t), sim->topo->ports[port].name,
		prio, pfc_event_str(ev));
}

void sim_workload_done(struct sim *sim, simtime_t at)
{
	sim->end = SIM_END_DONE;
	sim->done_at = at;
	/* the last ACKs and CNPs cross the longest path back */
	sim->settle = sim->hop_bound * topo_routes_diameter(sim->net->routes);
	if (sim->settle < sim->scn->stop - at)
		sim->until = at + sim->settle;
}

int sim_run(struct sim *sim, FILE *series, FILE *qp_rates, FILE *pfc_events, int progress)
{
	static volatile sig_atomic_t never;
	const struct scenario *s = sim->scn;
	struct evq *q = sim->q;
	struct mctx *ctx = &sim->net->ctx;
	/* the loop's checks, each one load: no limit is the largest */
	uint64_t max_events = s->max_events ? s->max_events : UINT64_MAX;
	volatile sig_atomic_t *interrupt = sim->interrupt ? sim->interrupt : &never;
	double start = wall_now(), last = start;
	int drained = 0; /* every event due by sim->until ran */
	simtime_t settled;

	sim->pfc_events = pfc_events;
	if (pfc_events) {
		fprintf(pfc_events, "time_us,port,priority,event\n");
		sim->net->ctx.pfc_log = log_pfc;
		sim->net->ctx.pfc_log_ctx = sim;
	}
	sim->series = series;
	sim->qp_rates = qp_rates;
	if (qp_rates)
		fprintf(qp_rates, "time_us,flow,src,dst,rc_gbps,rt_gbps,alpha\n");
	if (series) {
		fprintf(series, "time_us,port,priority,queue_bytes,pg_bytes,headroom_bytes\n");
		if (s->out.sample) {
			evq_timer_init(&sim->sampler, series_sample, sim,
				       evq_key(MCTX_KEY_RUN, 0, 0));
			mctx_fail(&sim->net->ctx, evq_arm(q, &sim->sampler, 0));
		}
	}
	sim->end = SIM_END_IDLE;
	sim->until = s->stop;
	mctx_finished(ctx); /* a workload of nothing is done before any event */
	for (;;) {
		simtime_t next;
		uint64_t limit;

		/* what models flag, after the event that flagged it (evq_run
		 * returns then): an event that failed (mctx_fail) or asked to
		 * stop ends the run; one that finished a flow or a collective
		 * may have finished the workload */
		if (ctx->halt) {
			if (ctx->error | ctx->stop) {
				sim->end = ctx->error ? SIM_END_ERROR : SIM_END_DEADLOCK;
				break;
			}
			ctx->halt = 0;
			if (sim->end != SIM_END_DONE && net_done(sim->net))
				sim_workload_done(sim, evq_now(q));
		}
		/* the event limit and an interrupt count only while an event is
		 * due; otherwise the next one is run if it is due by the stop */
		if ((evq_fired(q) >= max_events || *interrupt) &&
		    (next = evq_peek(q)) != SIMTIME_NEVER && next <= sim->until) {
			sim->end =
			    evq_fired(q) >= max_events ? SIM_END_EVENTS : SIM_END_INTERRUPTED;
			break;
		}
		/* events up to the limit and to the next progress line (and a
		 * look at an interrupt) */
		limit = (evq_fired(q) | (RUN_BATCH - 1)) + 1;
		if (limit > max_events)
			limit = max_events;
		if (!evq_run(q, sim->until, limit, &ctx->halt)) {
			/* nothing due by the stop; nothing at all: done, or idle
			 * with the workload unfinished */
			if (evq_peek(q) != SIMTIME_NEVER && sim->end != SIM_END_DONE)
				sim->end = SIM_END_STOP;
			drained = 1;
			break;
		}
		if (progress && !(evq_fired(q) & (RUN_BATCH - 1))) {
			double now = wall_now();

			if (now - last >= 1.0) {
				sim_show_progress(sim, now - start, evq_fired(q), 0, stderr);
				last = now;
			}
		}
	}
	/* a span in progress ends where the run does */
	if (sim->ff)
		ff_end(sim->ff, drained ? sim->until : evq_now(q));
	/* the packets lazy ports finished by then are counted as sent */
	settled = drained ? net_settle(sim->net, sim->until, UINT64_MAX)
			  : net_settle(sim->net, evq_now(q), evq_key_now(q));
	if (settled < evq_now(q))
		settled = evq_now(q);
	sim->end_time = sim->end == SIM_END_STOP ? s->stop : settled;
	sim->wall_s = wall_now() - start;
	sim->events = evq_fired(q);
	sim->inflight = net_inflight_bytes(sim->net);
	if (progress && sim->end != SIM_END_INTERRUPTED && sim->end != SIM_END_ERROR)
		sim_show_progress(sim, sim->wall_s, sim->events, 1, stderr);
	return sim->end == SIM_END_ERROR ? sim->net->ctx.error : 0;
}

void sim_ff_off(struct sim *sim)
{
	ff_free(sim->ff);
	sim->ff = NULL;
	sim->net->ctx.replay_until = 0;
	sim->scn->fast_forward.enabled = 0;
}

void sim_fini(struct sim *sim)
{
	cbd_result_free(&sim->cbd);
	ff_free(sim->ff);
	net_free(sim->net);
	evq_free(sim->q);
	series_fini(sim);
	topo_free(sim->topo);
	scn_free(sim->scn);
	memset(sim, 0, sizeof(*sim));
}

int sim_alone(struct scenario *s, uint32_t k, double *iteration_us, struct diag *d)
{
	struct train_stats st;
	struct sim sim;
	int err;

	*iteration_us = 0;
	s->solo = k + 1;   /* its jobs are resolved by sim_init */
	s->out.sample = 0; /* nothing written: no samples taken */
	if ((err = sim_init(&sim, s, d))) {
		sim_fini(&sim);
		return err;
	}
	err = sim_run(&sim, NULL, NULL, NULL, 0);
	if (!err && sim.net->n_jobs) {
		train_stats(sim.net->jobs[0], &st);
		if (st.done)
			*iteration_us = simtime_to_us(st.ends[st.done - 1] - st.start) / st.done;
	}
	sim_fini(&sim);
	return err;
}
