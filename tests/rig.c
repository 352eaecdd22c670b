/* The models' rig (rig.h). */
#include "rig.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"

const char *ts_src(const char *rel)
{
	static char buf[4][4096];
	static int next;
	const char *src = getenv("ROCESIM_SRC");
	char *b = buf[next++ % 4];

	cr_assert(src, "ROCESIM_SRC is not set (run through meson test)");
	snprintf(b, sizeof(buf[0]), "%s/%s", src, rel);
	return b;
}

struct topo *rig_pair(uint64_t rate_bps, simtime_t delay)
{
	const struct topo_linkspec l = {.rate_bps = rate_bps, .delay = delay};
	struct topo *t = topo_new();
	struct diag d = {0};

	cr_assert_not_null(t);
	cr_assert_eq(topo_add_node(t, "h0", TOPO_HOST), 0);
	cr_assert_eq(topo_add_node(t, "h1", TOPO_HOST), 1);
	cr_assert_eq(topo_add_link(t, 0, 1, &l), 0);
	cr_assert_eq(topo_finish(t, &d), 0);
	return t;
}

struct topo *rig_star(uint32_t hosts, uint64_t rate_bps, simtime_t delay)
{
	const struct topo_spec spec = {
	    .kind = TOPO_STAR,
	    .hosts = hosts,
	    .link = {.rate_bps = rate_bps, .delay = delay},
	};
	struct topo *t;
	struct diag d = {0};

	cr_assert_eq(topo_generate(&spec, &t, &d), 0);
	return t;
}

struct topo_spec ts_topo_spec(enum topo_kind kind, uint64_t link_bps, uint64_t uplink_bps,
			      uint64_t uplink_mm)
{
	struct topo_spec s = {.kind = kind};

	s.link = (struct topo_linkspec){link_bps, 2000 * SIMTIME_PS_PER_MM};
	s.uplink = (struct topo_linkspec){uplink_bps, uplink_mm * SIMTIME_PS_PER_MM};
	return s;
}

struct topo *ts_topo_with(ts_topo_fn build, const char *name, const struct topo_spec *s)
{
	struct topo *t = NULL;
	struct diag d = {0};
	char buf[1024];
	int err = build(s, &t, &d);

	cr_assert_eq(err, 0, "%s: %d %s", name, err, diag_str(&d, buf, sizeof(buf)));
	cr_assert_not_null(t);
	return t;
}

struct topo *ts_topo_build(const struct topo_spec *s)
{
	return ts_topo_with(topo_generate, "topo_generate", s);
}

void rig_init(struct rig *r, struct topo *t)
{
	memset(r, 0, sizeof(*r));
	r->topo = t;
	r->q = evq_new();
	r->ctx.q = r->q;
	r->ctx.seed = 1;
	r->ports = mem_zalloc_lines(t->n_ports, sizeof(*r->ports)); /* as the fabric's */
	cr_assert(r->q && r->ports);
	cr_assert_eq(topo_routes_build(t, &r->routes), 0);
	for (uint32_t i = 0; i < t->n_ports; i++) {
		const struct topo_port *tp = &t->ports[i];
		const struct topo_link *l = &t->links[tp->link];

		port_init(&r->ports[i], &r->ctx, i, l->rate_bps, l->delay);
		port_connect(&r->ports[i], &r->ports[tp->peer_port]);
		r->ports[i].local = i - t->nodes[tp->node].first_port;
	}
}

void rig_run(struct rig *r, simtime_t until)
{
	while (evq_peek(r->q) != SIMTIME_NEVER && evq_peek(r->q) <= until && !r->ctx.error)
		evq_step(r->q);
	cr_assert_eq(r->ctx.error, 0, "an event failed: %d", r->ctx.error);
}

void rig_fini(struct rig *r)
{
	pkt_pool_destroy(&r->ctx.pool);
	mem_arena_free(&r->ctx.mem);
	evq_free(r->q);
	topo_routes_free(r->routes);
	free(r->ports);
	topo_free(r->topo);
}

uint32_t rig_port(const struct rig *r, const char *name)
{
	for (uint32_t i = 0; i < r->topo->n_ports; i++)
		if (!strcmp(r->topo->ports[i].name, name))
			return i;
	cr_assert_fail("no port %s", name);
	return 0;
}

static struct pkt *rig_host_next(struct port *p)
{
	struct rig_host *h = p->owner;
	struct pkt *pkt;

	if (!h->to_send || (p->paused & (1u << h->prio)) || evq_now(p->ctx->q) < h->start.when)
		return NULL;
	pkt = pkt_alloc(&p->ctx->pool);
	cr_assert_not_null(pkt);
	*pkt = (struct pkt){.kind = PKT_DATA,
			    .flow = 0,
			    .psn = h->sent,
			    .dst = h->dst,
			    .payload = h->payload,
			    .frame = (uint16_t)(h->payload + PKT_HEADER_BYTES),
			    .prio = h->prio,
			    .dscp = h->dscp,
			    .ecn = PKT_NOT_ECT};
	h->to_send--;
	h->sent++;
	p->ctx->tot.sent_bytes += pkt->payload;
	return pkt;
}

static void rig_host_rx(struct port *p, struct pkt *pkt)
{
	struct rig_host *h = p->owner;

	if (pkt->kind == PKT_DATA) {
		h->rx_packets++;
		h->rx_bytes += pkt->frame;
		h->last_rx = evq_now(p->ctx->q);
		p->ctx->tot.received_bytes += pkt->payload;
	}
	pkt_free(&p->ctx->pool, pkt);
}

static void rig_host_start(void *obj, uint64_t arg)
{
	struct rig_host *h = obj;

	(void)arg;
	port_kick(h->port);
}

static const struct port_ops rig_host_ops = {.next = rig_host_next, .rx = rig_host_rx};

void rig_host_init(struct rig_host *h, struct rig *r, uint32_t port)
{
	memset(h, 0, sizeof(*h));
	h->port = &r->ports[port];
	h->port->ops = &rig_host_ops;
	h->port->owner = h;
	evq_timer_init(&h->start, rig_host_start, h, evq_key(MCTX_KEY_RUN, port, 100));
}

void rig_host_send(struct rig_host *h, simtime_t at, uint32_t n, uint16_t payload, uint32_t dst,
		   uint8_t dscp, uint8_t prio)
{
	h->to_send = n;
	h->payload = payload;
	h->dst = dst;
	h->dscp = dscp;
	h->prio = prio;
	h->port->pfc_obey |= (uint8_t)(1u << prio);
	cr_assert_eq(evq_arm(h->port->ctx->q, &h->start, at), 0);
}
