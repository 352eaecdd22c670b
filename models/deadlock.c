/*
 * Deadlock detection: the periodic wait-for graph of stuck, paused egress
 * queues (see deadlock.h).
 */
#include "models/deadlock.h"

#include <errno.h>
#include <stdlib.h>

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
	uint8_t *state;  /* DFS: 0 new, 1 on the path, 2 done */
	uint32_t *path;
};

/* Egress queue @prio of switch port @p is paused, holds packets, and has
 * not sent one for the window. */
static int stuck(const struct deadlock *d, const struct port *p, uint8_t prio, simtime_t now)
{
	const struct port_queue *q = &p->queue[prio];

	return (p->paused & (1u << prio)) && q->q.head && now - q->last_dequeue >= d->window;
}

/* Does egress queue @prio of @y hold a packet that came in through the
 * switch port with local index @in? */
static int holds_from(const struct port *y, uint8_t prio, uint32_t in)
{
	for (const struct pkt *k = y->queue[prio].q.head; k; k = k->next)
		if (k->in_port == in)
			return 1;
	return 0;
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

		if (w < 0 || !holds_from(&d->ports[y], prio, in))
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
					t->ports[d->nodes[d->path[start + i]] / PKT_PRIORITIES].peer_port;
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

static void on_tick(void *obj, uint64_t arg)
{
	struct deadlock *d = obj;
	struct mctx *c = d->ctx;
	const struct topo *t = d->topo;
	simtime_t now = evq_now(c->q);
	uint32_t count = 0;
	int found = 0;

	(void)arg;
	for (uint32_t i = 0; i < t->n_ports; i++) {
		const struct port *p = &d->ports[i];
		int sw = t->nodes[t->ports[i].node].kind == TOPO_SWITCH;

		for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
			int32_t *slot = &d->node[i * PKT_PRIORITIES + prio];

			*slot = -1;
			if (sw && p->paused && stuck(d, p, prio, now)) {
				*slot = (int32_t)count;
				d->nodes[count++] = i * PKT_PRIORITIES + prio;
			}
		}
	}
	for (uint32_t v = 0; v < count; v++)
		d->state[v] = 0;
	for (uint32_t v = 0; v < count && !found; v++)
		if (d->state[v] == 0)
			found = dfs(d, v, 0);
	if (found < 0) {
		mctx_fail(c, found);
		return;
	}
	if (found) {
		d->rep.detected = 1;
		d->rep.detected_at = now;
		d->rep.formed_at = 0;
		for (uint32_t i = 0; i < d->rep.n; i++) {
			/* the egress queue feeding the buffer: its peer */
			const struct port *x = d->ports[d->rep.ports[i]].peer;
			simtime_t last = x->queue[d->rep.prio].last_dequeue;

			if (last > d->rep.formed_at)
				d->rep.formed_at = last;
		}
		if (d->stop_on_detect)
			c->stop = 1;
		return; /* the first deadlock is the one reported */
	}
	if (evq_size(c->q) > 0)
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
	if (!d->node || !d->nodes || !d->state || !d->path) {
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
	free(d);
}

const struct deadlock_report *deadlock_report(const struct deadlock *d)
{
	return &d->rep;
}
