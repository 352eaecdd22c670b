/*
 * Deadlock detection: the periodic wait-for graph of stuck, paused egress
 * queues (see deadlock.h).
 */
#include "models/deadlock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"
#include "models/link.h"
#include "models/mctx.h"

struct deadlock {
	struct mctx *ctx;
	const struct topo *topo;
	const struct port *ports; /* the fabric's, one per topo port */
	simtime_t window;
	int stop_on_detect;
	struct evq_timer tick;
	struct deadlock_report rep;
	/* scratch, per port and priority: index of the stuck node, or -1 */
	int32_t *node;
	uint32_t *nodes; /* node -> port * 8 + prio */
	uint8_t *state;	 /* DFS: 0 new, 1 on the path, 2 done */
	uint32_t *path;
	const uint32_t **rec;	   /* node -> its record in the snapshot */
	struct deadlock_snap snap; /* what a tick saw (deadlock_collect) */
};

/*
 * A snapshot record of a stuck queue: port, priority, the time it last
 * sent (two words), the number of its ingress ports, then those ports
 * (local indices at its switch) of the packets it holds.
 */
enum { REC_PORT, REC_PRIO, REC_LAST_LO, REC_LAST_HI, REC_N_IN, REC_IN };

/* Egress queue @prio of switch port @p is paused, holds packets, and has
 * not sent one for the window. */
static int stuck(const struct deadlock *d, const struct port *p, uint8_t prio, simtime_t now)
{
	const struct port_queue *q = &p->queue[prio];

	return (p->paused & (1u << prio)) && q->q.head && now - q->last_dequeue >= d->window;
}

/* Does stuck queue @w hold a packet that came in through the switch port
 * with local index @in? */
static int holds_from(const struct deadlock *d, uint32_t w, uint32_t in)
{
	const uint32_t *r = d->rec[w];

	for (uint32_t i = 0; i < r[REC_N_IN]; i++)
		if (r[REC_IN + i] == in)
			return 1;
	return 0;
}

int deadlock_snap_add(struct deadlock_snap *s, const void *words, size_t n)
{
	if (!n)
		return 0;
	if (s->n + n > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		uint32_t *x;

		while (cap < s->n + n)
			cap *= 2;
		if (!(x = realloc(s->w, cap * sizeof(*x))))
			return -ENOMEM;
		s->w = x;
		s->cap = cap;
	}
	memcpy(s->w + s->n, words, n * sizeof(*s->w));
	s->n += n;
	return 0;
}

static int snap_put(struct deadlock_snap *s, uint32_t w)
{
	return deadlock_snap_add(s, &w, 1);
}

int deadlock_collect(struct deadlock *d, simtime_t now, const uint32_t *node_part, uint32_t me,
		     struct deadlock_snap *out)
{
	const struct topo *t = d->topo;
	int err = 0;

	for (uint32_t i = 0; !err && i < t->n_ports; i++) {
		const struct port *p = &d->ports[i];
		uint32_t node = t->ports[i].node;

		if (t->nodes[node].kind != TOPO_SWITCH || !p->paused ||
		    (node_part && node_part[node] != me))
			continue;
		for (uint8_t prio = 0; !err && prio < PKT_PRIORITIES; prio++) {
			simtime_t last = p->queue[prio].last_dequeue;
			size_t at_n;
			uint32_t n_in = 0;

			if (!stuck(d, p, prio, now))
				continue;
			err = snap_put(out, i) || snap_put(out, prio) ||
			      snap_put(out, (uint32_t)last) ||
			      snap_put(out, (uint32_t)(last >> 32));
			at_n = out->n;
			err = err || snap_put(out, 0);
			/* each ingress port once, in the order its packets wait */
			for (const struct pkt *k = p->queue[prio].q.head; !err && k; k = k->next) {
				uint32_t j = 0;

				while (j < n_in && out->w[at_n + 1 + j] != k->in_port)
					j++;
				if (j == n_in) {
					err = snap_put(out, k->in_port);
					n_in++;
				}
			}
			if (!err)
				out->w[at_n] = n_in;
		}
	}
	return err ? -ENOMEM : 0;
}

/* Start a cycle at its lowest port index, so that it reads the same
 * whichever of its queues the search met first. */
static void rotate_to_lowest(uint32_t *v, uint32_t n)
{
	uint32_t lo = 0;

	for (uint32_t i = 1; i < n; i++)
		if (v[i] < v[lo])
			lo = i;
	while (lo--) {
		uint32_t first = v[0];

		for (uint32_t i = 0; i + 1 < n; i++)
			v[i] = v[i + 1];
		v[n - 1] = first;
	}
}

/* The stuck queues a stuck queue @x waits for: those of the switch at the
 * far end holding packets that entered through the port facing @x. */
static int dfs(struct deadlock *d, uint32_t v, uint32_t depth)
{
	const struct topo *t = d->topo;
	uint32_t pid = d->nodes[v] / PKT_PRIORITIES;
	uint8_t prio = (uint8_t)(d->nodes[v] % PKT_PRIORITIES);
	const struct topo_port *tp = &t->ports[pid];
	uint32_t far_node = tp->peer, in = tp->peer_port - t->nodes[far_node].first_port;

	d->state[v] = 1;
	d->path[depth] = v;
	for (uint32_t k = 0; k < t->nodes[far_node].n_ports; k++) {
		uint32_t y = t->nodes[far_node].first_port + k;
		int32_t w = d->node[y * PKT_PRIORITIES + prio];

		if (w < 0 || !holds_from(d, (uint32_t)w, in))
			continue;
		if (d->state[w] == 1) {
			/* a cycle: from w's place on the path to here */
			uint32_t start = depth;

			while (d->path[start] != (uint32_t)w)
				start--;
			d->rep.ports = malloc((depth - start + 1) * sizeof(*d->rep.ports));
			if (!d->rep.ports)
				return -ENOMEM;
			d->rep.n = depth - start + 1;
			d->rep.prio = prio;
			for (uint32_t i = 0; i < d->rep.n; i++)
				/* name the ingress buffer it waits for: the far port */
				d->rep.ports[i] =
				    t->ports[d->nodes[d->path[start + i]] / PKT_PRIORITIES]
					.peer_port;
			rotate_to_lowest(d->rep.ports, d->rep.n);
			return 1;
		}
		if (d->state[w] == 0) {
			int r = dfs(d, (uint32_t)w, depth + 1);

			if (r)
				return r;
		}
	}
	d->state[v] = 2;
	return 0;
}

int deadlock_decide(struct deadlock *d, simtime_t now, const struct deadlock_snap *snap)
{
	const struct topo *t = d->topo;
	uint32_t count = 0;
	int found = 0;

	for (size_t i = 0; i < (size_t)t->n_ports * PKT_PRIORITIES; i++)
		d->node[i] = -1;
	/* in port order, as the records of several parts may not be */
	for (size_t at = 0; at + (size_t)REC_IN <= snap->n;
	     at += (size_t)REC_IN + snap->w[at + REC_N_IN]) {
		uint32_t key = snap->w[at + REC_PORT] * PKT_PRIORITIES + snap->w[at + REC_PRIO];

		d->node[key] = (int32_t)count;
		d->rec[count++] = &snap->w[at];
	}
	count = 0;
	for (size_t i = 0; i < (size_t)t->n_ports * PKT_PRIORITIES; i++)
		if (d->node[i] >= 0) {
			const uint32_t *r = d->rec[d->node[i]];

			d->node[i] = (int32_t)count;
			d->nodes[count] = (uint32_t)i;
			d->path[count++] = (uint32_t)(r - snap->w); /* the record, for a moment */
		}
	for (uint32_t v = 0; v < count; v++) {
		d->rec[v] = &snap->w[d->path[v]];
		d->state[v] = 0;
	}
	for (uint32_t v = 0; v < count && !found; v++)
		if (d->state[v] == 0)
			found = dfs(d, v, 0);
	if (found <= 0)
		return found;
	d->rep.detected = 1;
	d->rep.detected_at = now;
	d->rep.formed_at = 0;
	for (uint32_t i = 0; i < d->rep.n; i++) {
		/* when the egress queue feeding the buffer (its peer) last sent */
		uint32_t x = t->ports[d->rep.ports[i]].peer_port * PKT_PRIORITIES + d->rep.prio;
		const uint32_t *r = d->rec[d->node[x]];
		simtime_t last = (simtime_t)r[REC_LAST_HI] << 32 | r[REC_LAST_LO];

		if (last > d->rep.formed_at)
			d->rep.formed_at = last;
	}
	if (d->stop_on_detect)
		mctx_stop(d->ctx);
	return 1; /* the first deadlock is the one reported */
}

simtime_t deadlock_period(const struct deadlock *d)
{
	return d->window / 4;
}

void deadlock_detach(struct deadlock *d)
{
	evq_cancel(d->ctx->q, &d->tick);
}

static void on_tick(void *obj, uint64_t arg)
{
	struct deadlock *d = obj;
	struct mctx *c = d->ctx;
	simtime_t now = evq_now(c->q);
	int found;

	(void)arg;
	d->snap.n = 0;
	found = deadlock_collect(d, now, NULL, 0, &d->snap);
	if (!found)
		found = deadlock_decide(d, now, &d->snap);
	if (found < 0) {
		mctx_fail(c, found);
		return;
	}
	if (!found && evq_size(c->q) > 0)
		mctx_arm(c, &d->tick, now + d->window / 4);
}

int deadlock_start(struct mctx *ctx, const struct topo *t, const struct port *ports,
		   const struct deadlock_params *p, struct deadlock **out)
{
	struct deadlock *d = calloc(1, sizeof(*d));
	size_t slots = (size_t)t->n_ports * PKT_PRIORITIES;
	int err;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->ctx = ctx;
	d->topo = t;
	d->ports = ports;
	d->window = p->window;
	d->stop_on_detect = p->stop_on_detect;
	d->node = malloc(slots * sizeof(*d->node));
	d->nodes = malloc(slots * sizeof(*d->nodes));
	d->state = malloc(slots);
	d->path = malloc(slots * sizeof(*d->path));
	d->rec = malloc(slots * sizeof(*d->rec));
	if (!d->node || !d->nodes || !d->state || !d->path || !d->rec) {
		deadlock_free(d);
		return -ENOMEM;
	}
	evq_timer_init(&d->tick, on_tick, d, evq_key(MCTX_KEY_RUN, 0, 1));
	err = evq_arm(ctx->q, &d->tick, d->window / 4);
	if (err) {
		deadlock_free(d);
		return err;
	}
	*out = d;
	return 0;
}

void deadlock_free(struct deadlock *d)
{
	if (!d)
		return;
	free(d->rep.ports);
	free(d->node);
	free(d->nodes);
	free(d->state);
	free(d->path);
	free(d->rec);
	free(d->snap.w);
	free(d);
}

const struct deadlock_report *deadlock_report(const struct deadlock *d)
{
	return &d->rep;
}
