/*
 * The parallel run's engine (see par.h): windows, what crosses between
 * parts, and gathering the parts' counters into process 0.
 */
#include "sim/run/par.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/run/par_series.h"
#include "sim/run/partition.h"
#include "sim/run/series.h"

/* What crosses between parts: a record kind, then its body. */
enum rec_kind {
	REC_PKT = 1, /* port id, the packet: it enters that port's wire */
	REC_POST,    /* flow id, a message its responder will receive */
	REC_PORT,    /* at the end: port id, the part's copy of the port */
	REC_SWITCH,  /* node, blob size, sw_stats_save's blob */
	REC_NIC,     /* host, its counters */
	REC_FLOW,    /* flow id, the part's side of it, its copy */
	REC_CREDIT,  /* collective, its credit's time, arg and key */
	REC_COLL,    /* at the end: collective, blob size, coll_stats_save's blob */
};

struct part_run {
	const struct par_comm *comm;
	struct sim *sim;
	struct partition part;
	struct par_buf *out, *in;
	struct par_stats *st;
	simtime_t tick;	  /* the deadlock detector's next look, SIMTIME_NEVER: none */
	simtime_t sample; /* the time series' next sample, SIMTIME_NEVER: none */
	simtime_t looked; /* the last look or sample (events of their own in one process) */
	uint64_t looks;
	int progress;	       /* --progress: process 0 says how far the run is */
	double started, shown; /* wall times: the run's start, the last line */
};

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* @n bytes of @p onto @b (NULL: room for them, left as it is). */
static int put(struct par_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *d;

		while (cap < b->len + n)
			cap *= 2;
		if (!(d = realloc(b->data, cap)))
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	if (p)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

static int put_rec(struct par_buf *b, uint32_t kind, uint32_t id, const void *body, size_t n)
{
	uint32_t hdr[2] = {kind, id};

	return put(b, hdr, sizeof(hdr)) ? -ENOMEM : put(b, body, n);
}

/* A record of a blob of @size bytes (its size first), its room in @b for
 * the caller to fill; NULL when @b cannot grow. */
static void *put_blob(struct par_buf *b, uint32_t kind, uint32_t id, size_t size)
{
	uint32_t sz = (uint32_t)size;

	if (put_rec(b, kind, id, &sz, sizeof(sz)) || put(b, NULL, size))
		return NULL;
	return b->data + b->len - size;
}

static void on_cross(void *ctx, const struct port *p, const struct pkt *pkt)
{
	struct part_run *x = ctx;
	uint32_t to = x->part.node_part[x->sim->topo->ports[p->id].peer];

	mctx_fail(&x->sim->net->ctx, put_rec(&x->out[to], REC_PKT, p->id, pkt, sizeof(*pkt)));
	x->st->messages++;
}

static void on_post(void *ctx, const struct flow *f, const struct qp_msg *m)
{
	struct part_run *x = ctx;
	const struct topo *t = x->sim->topo;
	uint32_t to = x->part.node_part[t->hosts[f->dst]];

	mctx_fail(&x->sim->net->ctx, put_rec(&x->out[to], REC_POST, f->id, m, sizeof(*m)));
	x->st->messages++;
}

static void on_credit(void *ctx, uint32_t to, uint32_t coll, simtime_t at, uint64_t arg,
		      uint64_t key)
{
	struct part_run *x = ctx;
	uint64_t body[3] = {at, arg, key};

	mctx_fail(&x->sim->net->ctx, put_rec(&x->out[to], REC_CREDIT, coll, body, sizeof(body)));
	x->st->messages++;
}

/* Read the records of @b one by one: 1 and the next's kind and id (its
 * body then read with take or take_blob), 0 at the end, -EIO when @b is
 * cut short. */
static int next_rec(const struct par_buf *b, size_t *at, uint32_t *kind, uint32_t *id)
{
	uint32_t hdr[2];

	if (*at == b->len)
		return 0;
	if (b->len - *at < sizeof(hdr))
		return -EIO;
	memcpy(hdr, b->data + *at, sizeof(hdr));
	*kind = hdr[0];
	*id = hdr[1];
	*at += sizeof(hdr);
	return 1;
}

/* A record's body of @n bytes into @dst (the buffer need not be aligned). */
static int take(const struct par_buf *b, size_t *at, void *dst, size_t n)
{
	if (b->len - *at < n)
		return -EIO;
	memcpy(dst, b->data + *at, n);
	*at += n;
	return 0;
}

/* A blob's body (put_blob), which must be @size bytes; NULL if not. */
static const char *take_blob(const struct par_buf *b, size_t *at, size_t size)
{
	uint32_t sz;

	if (take(b, at, &sz, sizeof(sz)) || sz != size || b->len - *at < size)
		return NULL;
	*at += size;
	return b->data + *at - size;
}

/* The window's crossings, from every part in turn (one sender per wire
 * and per flow: each keeps its order). */
static int deliver(struct part_run *x)
{
	struct net *n = x->sim->net;

	for (uint32_t r = 0; r < x->comm->size; r++) {
		const struct par_buf *b = &x->in[r];
		size_t at = 0;
		uint32_t kind, id;
		int more, err = 0;

		while (!err && (more = next_rec(b, &at, &kind, &id)) > 0) {
			struct pkt p;
			struct qp_msg m;
			uint64_t v[3];

			if (kind == REC_PKT && id < x->sim->topo->n_ports)
				err = take(b, &at, &p, sizeof(p)) ? -EIO
								  : port_wire_in(&n->ports[id], &p);
			else if (kind == REC_POST && id < n->n_flows)
				err = take(b, &at, &m, sizeof(m)) ? -EIO
								  : nic_msg_in(&n->flows[id], &m);
			else if (kind == REC_CREDIT && id < n->n_colls)
				err = take(b, &at, v, sizeof(v))
					  ? -EIO
					  : coll_credit_in(n->colls[id], v[0], v[1], v[2]);
			else
				err = -EIO;
		}
		if (err || more < 0)
			return err ? err : -EIO;
	}
	return 0;
}

static int reduce(struct part_run *x, uint64_t *v, int k, enum par_red op)
{
	double t0 = wall();
	int err = x->comm->allreduce(x->comm->ctx, v, k, op);

	x->st->wait_s += wall() - t0;
	return err ? -EIO : 0;
}

/*
 * Send the window's crossings and take in the others'. A transport that
 * fails is -EIO; a crossing that cannot be taken in fails the run as an
 * event does (every part sees it at the next window).
 */
static int swap(struct part_run *x)
{
	double t0 = wall();
	int err = x->comm->exchange(x->comm->ctx, x->out, x->in);

	x->st->wait_s += wall() - t0;
	for (uint32_t r = 0; r < x->comm->size; r++)
		x->out[r].len = 0;
	if (!err)
		mctx_fail(&x->sim->net->ctx, deliver(x));
	for (uint32_t r = 0; r < x->comm->size; r++) {
		free(x->in[r].data);
		x->in[r] = (struct par_buf){0};
	}
	return err ? -EIO : 0;
}

/*
 * The deadlock detector's look at @now, between windows (every part has run
 * its events before @now, none at it: the look is the first event of its
 * instant in a run of one process too): each part's stuck queues to process
 * 0, which searches them all; every part learns whether it found one and
 * whether anything is left to happen, for the next look.
 */
static int look_for_deadlock(struct part_run *x, simtime_t now)
{
	struct net *n = x->sim->net;
	struct deadlock_snap snap = {0};
	struct par_buf mine = {0}, *all = NULL;
	uint64_t found[2] = {0, 0}, left[1] = {evq_size(x->sim->q) + (x->sample != SIMTIME_NEVER)};
	int err = deadlock_collect(n->deadlock, now, x->part.node_part, x->comm->rank, &snap);

	if (!err && snap.n)
		err = put(&mine, snap.w, snap.n * sizeof(*snap.w));
	if (!err && !x->comm->rank && !(all = calloc(x->comm->size, sizeof(*all))))
		err = -ENOMEM;
	mctx_fail(&n->ctx, err);
	if (x->comm->gather(x->comm->ctx, &mine, all))
		err = -EIO;
	snap.n = 0;
	for (uint32_t r = 0; all && !err && r < x->comm->size; r++)
		err = deadlock_snap_add(&snap, all[r].data, all[r].len / sizeof(uint32_t));
	if (all && !err) {
		int got = deadlock_decide(n->deadlock, now, &snap);

		if (got < 0)
			mctx_fail(&n->ctx, got);
		found[0] = got > 0;
		found[1] = n->ctx.stop;
	}
	for (uint32_t r = 0; all && r < x->comm->size; r++)
		free(all[r].data);
	free(all);
	free(mine.data);
	free(snap.w);
	if (err == -EIO || (err = reduce(x, found, 2, PAR_MAX)) ||
	    (err = reduce(x, left, 1, PAR_SUM)))
		return -EIO;
	n->ctx.stop = (int)found[1];
	x->tick = found[0] || !left[0] ? SIMTIME_NEVER : now + deadlock_period(n->deadlock);
	x->looked = now;
	x->looks++;
	return 0;
}

/*
 * The time series' sample at @now, between windows as the deadlock
 * detector's look: each part writes its rows; sampling goes on while
 * anything is left to happen in any part (the detector's next look
 * included), as one process's sampler does.
 */
static int take_sample(struct part_run *x, simtime_t now)
{
	struct sim *sim = x->sim;
	uint64_t left[1] = {evq_size(sim->q) + (x->tick != SIMTIME_NEVER)};
	int err;

	series_write(sim, now);
	if ((err = reduce(x, left, 1, PAR_SUM)))
		return err;
	x->sample = left[0] && now + sim->scn->out.sample <= sim->scn->stop
			? now + sim->scn->out.sample
			: SIMTIME_NEVER;
	x->looked = now;
	x->looks++;
	return 0;
}

/*
 * A collective's next iteration starts when every rank has finished the
 * last (collective.c's barrier): once every part's ranks have, at the end
 * of the latest one plus the barrier, which is at least the lookahead, so
 * at or after this window's end in every part.
 */
static int next_iterations(struct part_run *x)
{
	struct net *n = x->sim->net;
	int err;

	for (uint32_t i = 0; i < n->n_colls; i++) {
		uint64_t sm[1], mx[1];
		simtime_t since;

		if (n->p.colls[i].iterations < 2) /* every part asks the same */
			continue;
		sm[0] = (uint64_t)coll_waiting(n->colls[i], &since);
		mx[0] = sm[0] ? since : 0;
		if ((err = reduce(x, sm, 1, PAR_SUM)) || (err = reduce(x, mx, 1, PAR_MAX)))
			return err;
		if (sm[0] == x->comm->size)
			coll_resume(n->colls[i], mx[0] + coll_barrier(n->colls[i]));
	}
	return 0;
}

/*
 * --progress, every 64 windows: process 0 says whether a second has gone
 * by since its last line, and if so every part adds what its ranks and
 * flows received (a flow's size and a collective's total are every part's
 * alike: the largest), and process 0 prints the line one process does.
 */
static int show_progress(struct part_run *x)
{
	struct sim *sim = x->sim;
	struct sim_progress p;
	double now = wall();
	uint64_t due[1] = {!x->comm->rank && now - x->shown >= 1.0}, sm[4], mx[2];
	int err;

	if (!x->progress || x->st->windows % 64)
		return 0;
	if ((err = reduce(x, due, 1, PAR_MAX)))
		return err;
	if (!due[0])
		return 0;
	sim_progress(sim, &p);
	sm[0] = p.bytes_done;
	sm[1] = p.flows_done;
	sm[2] = p.colls_done;
	sm[3] = evq_fired(sim->q);
	mx[0] = p.bytes_total;
	mx[1] = evq_now(sim->q);
	if ((err = reduce(x, sm, 4, PAR_SUM)) || (err = reduce(x, mx, 2, PAR_MAX)))
		return err;
	p.bytes_done = sm[0];
	p.flows_done = (uint32_t)sm[1];
	p.colls_done = (uint32_t)(sm[2] / x->comm->size); /* done where every part is */
	p.bytes_total = mx[0];
	p.coll_iter = p.coll_iters = 0;
	if (!x->comm->rank)
		sim_print_progress(sim, &p, mx[1], now - x->started, sm[3], 0, stderr);
	x->shown = now;
	return 0;
}

/*
 * The windows. Each starts from what every part reports (the earliest
 * event, the workload's completions, an error or an interruption), as a
 * run of one process looks before each event, and runs this part's events
 * up to one lookahead after the earliest.
 */
static int windows(struct part_run *x)
{
	struct sim *sim = x->sim;
	struct net *n = sim->net;
	struct evq *q = sim->q;
	simtime_t look = x->part.lookahead;
	int err;

	sim->end = SIM_END_IDLE;
	sim->until = sim->scn->stop;
	for (;;) {
		uint64_t mx[4] = {UINT64_MAX - evq_peek(q), n->last_done, n->ctx.error != 0,
				  sim->interrupt && *sim->interrupt};
		uint64_t sm[2] = {n->flows_done, n->colls_done};
		simtime_t next, cap;

		if ((err = reduce(x, mx, 4, PAR_MAX)) || (err = reduce(x, sm, 2, PAR_SUM)))
			return err;
		next = UINT64_MAX - mx[0];
		if (mx[2]) {
			sim->end = SIM_END_ERROR;
			return n->ctx.error ? n->ctx.error : -ECANCELED;
		}
		if (mx[3]) {
			sim->end = SIM_END_INTERRUPTED;
			sim->end_time = next < SIMTIME_NEVER ? next : evq_now(q); /* what it says */
			return 0;
		}
		if (n->ctx.stop) {
			sim->end = SIM_END_DEADLOCK;
			return 0;
		}
		/* every part tells when the ranks it runs are done */
		if (sim->end != SIM_END_DONE && sm[0] == n->n_wl_flows &&
		    sm[1] == (uint64_t)n->n_colls * x->comm->size)
			sim_workload_done(sim, mx[1]);
		if (x->tick < next)
			next = x->tick;
		if (x->sample < next)
			next = x->sample;
		if (next == SIMTIME_NEVER)
			return 0;
		if (next > sim->until) {
			if (sim->end != SIM_END_DONE)
				sim->end = SIM_END_STOP;
			return 0;
		}
		if (next == x->sample) { /* the sampler first: its key is the least */
			if ((err = take_sample(x, next)))
				return err;
			continue;
		}
		if (next == x->tick) {
			if ((err = look_for_deadlock(x, next)))
				return err;
			continue;
		}
		cap = look > SIMTIME_NEVER - next ? SIMTIME_NEVER - 1 : next + look - 1;
		if (cap > sim->until)
			cap = sim->until;
		if (cap >= x->tick)
			cap = x->tick - 1;
		if (cap >= x->sample)
			cap = x->sample - 1;
		if (!n->ctx.error)
			evq_run(q, cap, UINT64_MAX, &n->ctx.error);
		x->st->windows++;
		if ((err = swap(x)) || (err = next_iterations(x)) || (err = show_progress(x)))
			return err;
	}
}

/* This part's counters, for process 0 (what each part ran, it alone counted). */
static int pack(struct part_run *x, struct par_buf *b)
{
	const struct topo *t = x->sim->topo;
	const struct net *n = x->sim->net;
	const uint32_t *at = x->part.node_part, me = x->comm->rank;
	int err = 0;

	for (uint32_t i = 0; !err && i < t->n_ports; i++) {
		const struct port *p = &n->ports[i];

		if (at[t->ports[i].node] == me || p->lost_packets)
			err = put_rec(b, REC_PORT, i, p, sizeof(*p));
	}
	for (uint32_t u = 0; !err && u < t->n_nodes; u++) {
		const struct sw *s = n->switches[u];
		void *blob;

		if (!s || at[u] != me)
			continue;
		if (!(blob = put_blob(b, REC_SWITCH, u, sw_stats_size(s))))
			return -ENOMEM;
		sw_stats_save(s, blob);
	}
	for (uint32_t h = 0; !err && h < t->n_hosts; h++)
		if (at[t->hosts[h]] == me)
			err = put_rec(b, REC_NIC, h, nic_counters(n->nics[h]),
				      sizeof(struct nic_counters));
	for (uint32_t i = 0; !err && i < n->n_flows; i++) {
		const struct flow *f = &n->flows[i];

		if (f->side != NIC_SIDE_NONE || f->unroutable)
			err = put_rec(b, REC_FLOW, i, f, sizeof(*f));
	}
	for (uint32_t i = 0; !err && i < n->n_colls; i++) {
		void *blob = put_blob(b, REC_COLL, i, coll_stats_size(n->colls[i]));

		if (!blob)
			return -ENOMEM;
		coll_stats_save(n->colls[i], blob);
	}
	return err;
}

/* Process 0 takes in another part's counters. */
static int absorb(struct part_run *x, const struct par_buf *b)
{
	const struct topo *t = x->sim->topo;
	struct net *n = x->sim->net;
	size_t at = 0;
	uint32_t kind, id;
	int more, err = 0;

	while (!err && (more = next_rec(b, &at, &kind, &id)) > 0) {
		const char *blob = NULL;

		if (kind == REC_PORT && id < t->n_ports) {
			struct port p;

			if (!(err = take(b, &at, &p, sizeof(p))))
				port_absorb(&n->ports[id], &p);
		} else if (kind == REC_SWITCH && id < t->n_nodes && n->switches[id]) {
			if ((blob = take_blob(b, &at, sw_stats_size(n->switches[id]))))
				sw_stats_absorb(n->switches[id], blob);
			err = blob ? 0 : -EIO;
		} else if (kind == REC_COLL && id < n->n_colls) {
			if ((blob = take_blob(b, &at, coll_stats_size(n->colls[id]))))
				coll_stats_absorb(n->colls[id], blob);
			err = blob ? 0 : -EIO;
		} else if (kind == REC_NIC && id < t->n_hosts) {
			struct nic_counters c;

			if (!(err = take(b, &at, &c, sizeof(c))))
				nic_absorb(n->nics[id], &c);
		} else if (kind == REC_FLOW && id < n->n_flows) {
			struct flow f;

			if (!(err = take(b, &at, &f, sizeof(f))))
				flow_absorb(&n->flows[id], &f,
					    f.side == NIC_SIDE_BOTH || f.side == NIC_SIDE_REQUESTER,
					    f.side == NIC_SIDE_BOTH ||
						f.side == NIC_SIDE_RESPONDER);
		} else {
			err = -EIO;
		}
	}
	return err || more < 0 ? -EIO : 0;
}

/*
 * The run's totals over all parts (every process: the end and the counts
 * of what each ran), then every part's counters into process 0.
 */
static int gather(struct part_run *x)
{
	struct sim *sim = x->sim;
	struct net *n = sim->net;
	enum { TOT = sizeof(struct mctx_totals) / sizeof(uint64_t) };
	uint64_t sm[TOT + 5], mx[1] = {evq_now(sim->q) > x->looked ? evq_now(sim->q) : x->looked};
	struct par_buf mine = {0}, *all = NULL;
	int err;

	_Static_assert(sizeof(struct mctx_totals) % sizeof(uint64_t) == 0, "64-bit totals");
	memcpy(sm, &n->ctx.tot, sizeof(n->ctx.tot));
	sm[TOT] = n->flows_done;
	sm[TOT + 1] = n->colls_done;
	sm[TOT + 2] = net_inflight_bytes(n);
	sm[TOT + 3] = evq_fired(sim->q);
	sm[TOT + 4] = x->st->messages;
	if ((err = reduce(x, sm, TOT + 5, PAR_SUM)) || (err = reduce(x, mx, 1, PAR_MAX)))
		return err;
	memcpy(&n->ctx.tot, sm, sizeof(n->ctx.tot));
	n->flows_done = (uint32_t)sm[TOT];
	n->colls_done = (uint32_t)(sm[TOT + 1] / x->comm->size); /* done in every part */
	sim->inflight = sm[TOT + 2];
	sim->events = sm[TOT + 3] + x->looks; /* every process looked */
	x->st->messages = sm[TOT + 4];
	sim->end_time = sim->end == SIM_END_STOP ? sim->scn->stop : mx[0];
	if (x->comm->rank != 0 && (err = pack(x, &mine)))
		goto out;
	if (!x->comm->rank && !(all = calloc(x->comm->size, sizeof(*all)))) {
		err = -ENOMEM;
		goto out;
	}
	{
		double t0 = wall();

		err = x->comm->gather(x->comm->ctx, &mine, all) ? -EIO : 0;
		x->st->wait_s += wall() - t0;
	}
	for (uint32_t r = 1; !err && all && r < x->comm->size; r++)
		err = absorb(x, &all[r]);
out:
	for (uint32_t r = 0; all && r < x->comm->size; r++)
		free(all[r].data);
	free(all);
	free(mine.data);
	return err;
}

/* Whether @sim can run on @size processes: its partition into @p. */
static int split_check(struct sim *sim, uint32_t size, struct partition *p, struct diag *d)
{
	int err;

	if (sim->scn->n_jobs) {
		diag_set(d, "", 0, sim->scn->jobs[0].workload,
			 "a training job runs in one process: a run split over %u processes does "
			 "not model it (run it without mpirun)",
			 size);
		scn_locate(sim->scn, d);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < sim->scn->n_colls; i++) {
		if (sim->scn->colls[i].qps <= 1)
			continue;
		diag_set(d, "", 0, "workload.qps_per_connection",
			 "%u QPs per connection: a run split over %u processes models one (run it "
			 "in one process)",
			 sim->scn->colls[i].qps, size);
		scn_locate(sim->scn, d);
		return -EINVAL;
	}
	if (sim->scn->fast_forward.enabled && sim->scn->fast_forward_given) {
		diag_set(d, "", 0, "engine.fast_forward.enabled",
			 "a span holds every NIC of the fabric at once: a run split over %u "
			 "processes cannot fast-forward (run it in one process, or set it false)",
			 size);
	} else if (sim->scn->max_events) {
		diag_set(d, "", 0, "max_events",
			 "counts the events of one process: a run split over %u processes cannot "
			 "stop at the same event (leave max_events out)",
			 size);
	} else {
		err = part_build(sim->topo, size, p, d);
		/* on by default only: the split run goes packet by packet,
		 * as one process does with it off (par.h) */
		if (!err)
			sim_ff_off(sim);
		if (err != -EINVAL)
			return err;
	}
	scn_locate(sim->scn, d);
	return -EINVAL;
}

int par_check(struct sim *sim, uint32_t size, struct diag *d)
{
	struct partition p;
	int err = split_check(sim, size, &p, d);

	if (!err)
		part_free(&p);
	return err;
}

/*
 * Each part's rows of @mine (its own file, then closed) into process 0's
 * @out, merged (par_series.c).
 */
static int series_out(struct part_run *x, FILE *mine, FILE *out, size_t tag)
{
	struct par_buf buf = {0}, *all = NULL;
	int err = par_series_read(mine, &buf), bad;

	if (!x->comm->rank && !(all = calloc(x->comm->size, sizeof(*all))))
		err = err ? err : -ENOMEM;
	bad = x->comm->gather(x->comm->ctx, &buf, all) ? -EIO : 0;
	if (!err)
		err = bad;
	if (!err && all && out)
		err = par_series_merge(all, x->comm->size, out, tag);
	for (uint32_t r = 0; all && r < x->comm->size; r++)
		free(all[r].data);
	free(all);
	free(buf.data);
	if (mine)
		fclose(mine);
	return err;
}

int par_run(struct sim *sim, const struct par_comm *comm, struct par_stats *st, struct diag *d,
	    FILE *series, FILE *qp_rates, FILE *pfc_events, int progress)
{
	struct part_run x = {.comm = comm, .sim = sim, .st = st, .progress = progress};
	struct mctx_part hooks = {
	    .cross = on_cross, .post = on_post, .credit = on_credit, .ctx = &x};
	double start = wall();
	int err;

	x.started = x.shown = start;
	memset(st, 0, sizeof(*st));
	st->ranks = comm->size;
	if ((err = split_check(sim, comm->size, &x.part, d)))
		return err;
	st->lookahead = x.part.lookahead;
	err = net_split(sim->net, x.part.node_part, comm->rank, &hooks);
	x.tick = x.sample = SIMTIME_NEVER;
	if (!err && sim->net->deadlock) { /* its looks come from the windows */
		deadlock_detach(sim->net->deadlock);
		x.tick = deadlock_period(sim->net->deadlock);
	}
	if (!err && sim->scn->out.sample) { /* each part's rows into a file of its own */
		series_restrict(sim, x.part.node_part, comm->rank);
		sim->series = tmpfile();
		sim->qp_rates = sim->scn->nic.cc == NIC_CC_DCQCN ? tmpfile() : NULL;
		if (!sim->series || (sim->scn->nic.cc == NIC_CC_DCQCN && !sim->qp_rates))
			err = -EIO;
		x.sample = 0;
		if (series)
			fprintf(series,
				"time_us,port,priority,queue_bytes,pg_bytes,headroom_bytes\n");
		if (qp_rates)
			fprintf(qp_rates, "time_us,flow,src,dst,rc_gbps,rt_gbps,alpha\n");
	}
	if (!err && sim->scn->out.pfc_events) { /* each part's events, in the run's order */
		if (!(sim->pfc_events = tmpfile()))
			err = -EIO;
		sim_log_pfc_tagged(sim);
		if (pfc_events)
			fprintf(pfc_events, "time_us,port,priority,event\n");
	}
	x.out = calloc(comm->size, sizeof(*x.out));
	x.in = calloc(comm->size, sizeof(*x.in));
	if (!err && (!x.out || !x.in))
		err = -ENOMEM;
	if (!err && !(err = windows(&x)) && sim->end != SIM_END_INTERRUPTED) {
		err = gather(&x);
		if (!err && progress && !comm->rank && sim->end != SIM_END_ERROR)
			sim_show_progress(sim, wall() - start, sim->events, 1, stderr);
		if (!err && sim->scn->out.sample)
			err = series_out(&x, sim->series, series, 10);
		sim->series = NULL;
		if (!err && sim->scn->out.sample && sim->scn->nic.cc == NIC_CC_DCQCN)
			err = series_out(&x, sim->qp_rates, qp_rates, 10);
		sim->qp_rates = NULL;
		if (!err && sim->scn->out.pfc_events)
			err = series_out(&x, sim->pfc_events, pfc_events, SIM_PFC_TAG);
		sim->pfc_events = NULL;
	}
	if (sim->pfc_events)
		fclose(sim->pfc_events);
	sim->pfc_events = NULL;
	if (sim->series)
		fclose(sim->series);
	if (sim->qp_rates)
		fclose(sim->qp_rates);
	sim->series = sim->qp_rates = NULL;
	sim->wall_s = wall() - start;
	for (uint32_t r = 0; x.out && r < comm->size; r++)
		free(x.out[r].data);
	free(x.out);
	free(x.in);
	part_free(&x.part);
	return err;
}
