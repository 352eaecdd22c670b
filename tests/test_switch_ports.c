/*
 * Ports with settings of their own (sw_params.port_params), the switch
 * built from its params struct as net.c builds it: a table that repeats
 * the switch's settings changes nothing; a port without PFC drops what
 * the others pause; a port's own headroom, DSCP map and scheduler are its
 * own; the buffer plan reserves headroom only for the lossless PGs each
 * port has.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "models/switch.h"
#include "topologies/topo.h"

/* The switch of the star, and a fabric built on it. */
struct fab {
	struct topo *t;
	struct evq *q;
	struct net *n;
};

/* 1 MB buffer, PFC on priority 3 with static XOFF 100 KB and 100 KB headroom. */
static void sw_base(struct sw_params *sw)
{
	*sw = (struct sw_params){
	    .buffer = 1000000,
	    .lossless = 1u << 3,
	    .cnp_priority = 6,
	    .pfc = {.enabled = 1, .xoff = 100000, .headroom = 100000, .quanta = 0xffff},
	    .sched = SW_SCHED_STRICT};
	for (int i = 0; i < 64; i++)
		sw->dscp_to_tc[i] = (uint8_t)(i >> 3);
	for (int q = 0; q < 8; q++)
		sw->weights[q] = 1;
}

/* A port's own settings, as the switch has them. */
static struct sw_port_params own_copy(const struct sw_params *sw)
{
	struct sw_port_params pp = {.lossless = sw->lossless, .pfc = sw->pfc, .sched = sw->sched};

	memcpy(pp.dscp_to_tc, sw->dscp_to_tc, sizeof(pp.dscp_to_tc));
	memcpy(pp.weights, sw->weights, sizeof(pp.weights));
	return pp;
}

/*
 * @n_flows flows of @bytes from h0.. to the last of @hosts hosts around
 * sw0 (100G, 10 ns links), at line rate, on DSCP 26 (priority 3); run to
 * the end.
 */
static void fab_run(struct fab *f, const struct sw_params *sw, uint32_t hosts, uint32_t n_flows,
		    uint64_t bytes)
{
	struct wl_flow flows[8];
	struct net_params p = {
	    .seed = 1,
	    .sw = *sw,
	    .nic = {.mtu = 1000,
		    .priority = 3,
		    .dscp = 26,
		    .pfc = 1u << 3,
		    .cc = NIC_CC_NONE,
		    .ack_every = 1000,
		    .timeout = SIMTIME_S},
	    .wl = {.flows = flows, .n_flows = n_flows},
	};
	const struct topo_spec spec = {
	    .kind = TOPO_STAR,
	    .hosts = hosts,
	    .link = {.rate_bps = 100000000000ULL, .delay = 10000},
	};
	struct diag d = {0};

	cr_assert(n_flows <= 8 && n_flows < hosts);
	for (uint32_t i = 0; i < n_flows; i++)
		flows[i] = (struct wl_flow){
		    .src = i, .dst = hosts - 1, .bytes = bytes, .dscp = 26, .priority = 3};
	f->q = evq_new();
	cr_assert(f->q);
	dcqcn_params_default(&p.nic.dcqcn, DCQCN_MLX5);
	cr_assert_eq(topo_generate(&spec, &f->t, &d), 0);
	cr_assert_eq(net_build(&p, f->t, f->q, &f->n, &d), 0, "%s", d.msg);
	while (!net_done(f->n) && evq_step(f->q))
		cr_assert_eq(f->n->ctx.error, 0);
}

static void fab_free(struct fab *f)
{
	net_free(f->n);
	topo_free(f->t);
	evq_free(f->q);
}

static const struct sw *sw0(const struct fab *f)
{
	return f->n->switches[topo_find_node(f->t, "sw0")];
}

/* The PAUSE frames port @name sent. */
static uint64_t pauses_sent(const struct fab *f, const char *name)
{
	for (uint32_t i = 0; i < f->t->n_ports; i++)
		if (!strcmp(f->t->ports[i].name, name))
			return f->n->ports[i].pfc[3].tx_pause;
	cr_assert_fail("no port %s", name);
	return 0;
}

Test(switch_ports, a_table_that_repeats_the_switch_changes_nothing)
{
	struct sw_params sw, own;
	struct sw_port_params pp[4];
	struct fab a, b;

	sw_base(&sw);
	own = sw;
	for (int i = 0; i < 4; i++)
		pp[i] = own_copy(&sw);
	own.port_params = pp;
	own.n_port_params = 4;
	fab_run(&a, &sw, 4, 3, 2000000);
	fab_run(&b, &own, 4, 3, 2000000);
	cr_assert(net_done(a.n) && net_done(b.n));
	cr_assert_gt(pauses_sent(&a, "sw0:h0"), 0, "the incast pauses its senders");
	cr_assert_eq(memcmp(&a.n->ctx.tot, &b.n->ctx.tot, sizeof(a.n->ctx.tot)), 0);
	for (uint32_t i = 0; i < 3; i++)
		cr_assert_eq(a.n->flows[i].finish, b.n->flows[i].finish);
	cr_assert_eq(evq_now(a.q), evq_now(b.q));
	fab_free(&a);
	fab_free(&b);
}

/*
 * Two senders into one receiver: with PFC off on h0's port, h0's packets
 * are lossy there (tail-dropped once the shared pool is full, never
 * paused), while h1's port still pauses h1 and loses nothing.
 */
Test(switch_ports, a_port_without_pfc_drops_what_the_others_pause)
{
	struct sw_params sw;
	struct sw_port_params pp[3];
	struct fab f;

	sw_base(&sw);
	for (int i = 0; i < 3; i++)
		pp[i] = own_copy(&sw);
	pp[0].lossless = 0;
	sw.port_params = pp;
	sw.n_port_params = 3;
	fab_run(&f, &sw, 3, 2, 4000000);
	cr_assert_eq(pauses_sent(&f, "sw0:h0"), 0, "no PFC on h0's port: no PAUSE to h0");
	cr_assert_gt(pauses_sent(&f, "sw0:h1"), 0, "h1's port pauses h1");
	cr_assert_gt(sw_counters(sw0(&f))->drops, 0, "h0's packets find the shared pool full");
	cr_assert_eq(sw_counters(sw0(&f))->lossless_drops, 0, "what is dropped was lossy");
	cr_assert_eq(sw_pg(sw0(&f), 1, 3).lossless_drops, 0);
	cr_assert_eq(sw_pg(sw0(&f), 0, 3).peak_headroom, 0, "a lossy PG takes no headroom");
	cr_assert_gt(sw_pg(sw0(&f), 1, 3).peak_headroom, 0);
	fab_free(&f);
}

/* Headroom: port 1's own; the others the switch's; a port without PFC reserves none. */
Test(switch_ports, headroom_and_the_buffer_plan_are_per_port)
{
	struct sw_params sw;
	struct sw_port_params pp[2];
	struct topo *t;
	struct diag d = {0};
	uint64_t shared;
	const struct topo_spec spec = {
	    .kind = TOPO_STAR, .hosts = 3, .link = {.rate_bps = 100000000000ULL, .delay = 10000}};

	sw_base(&sw);
	cr_assert_eq(topo_generate(&spec, &t, &d), 0);
	pp[0] = own_copy(&sw);
	pp[0].lossless = 0;
	pp[1] = own_copy(&sw);
	pp[1].pfc.headroom = 20480;
	sw.port_params = pp;
	sw.n_port_params = 2; /* port 2 takes the switch's */
	cr_assert_eq(sw_local_headroom(&sw, 1, 1000, &t->links[0]), 20480);
	cr_assert_eq(sw_local_headroom(&sw, 2, 1000, &t->links[0]), 100000);
	cr_assert_eq(sw_port_headroom(&sw, 1000, &t->links[0]), 100000);
	cr_assert_eq(sw_buffer_plan(&sw, 1000, t, topo_find_node(t, "sw0"), &shared, &d), 0);
	cr_assert_eq(shared, 1000000 - 20480 - 100000, "port 0 has no lossless PG");
	/* a port whose own headroom is 0 takes the computed one */
	pp[1].pfc.headroom = 0;
	cr_assert_eq(sw_local_headroom(&sw, 1, 1000, &t->links[0]),
		     pfc_headroom_kib(pfc_headroom_need(
			 100000000000ULL, 10000, pfc_response_delay(100000000000ULL), 1000)));
	topo_free(t);
}

/*
 * The port a packet comes in by classes it: h0's port maps DSCP 26 to the
 * lossy class 1, h1's keeps the switch's (26 -> 3): the receiver's egress
 * queue 1 carries h0's packets, queue 3 h1's.
 */
Test(switch_ports, the_ingress_port_map_classes_a_packet)
{
	struct sw_params sw;
	struct sw_port_params pp[1];
	const struct port *out;
	struct fab f;

	sw_base(&sw);
	pp[0] = own_copy(&sw);
	pp[0].dscp_to_tc[26] = 1;
	sw.port_params = pp;
	sw.n_port_params = 1;
	fab_run(&f, &sw, 3, 2, 100000);
	cr_assert(net_done(f.n));
	out = &f.n->ports[f.t->nodes[topo_find_node(f.t, "sw0")].first_port + 2];
	cr_assert_gt(out->queue[1].tx_packets, 0);
	cr_assert_eq(out->queue[1].tx_bytes, out->queue[3].tx_bytes, "one flow each");
	cr_assert_eq(out->queue[1].tx_packets + out->queue[3].tx_packets, out->tx_packets);
	fab_free(&f);
}

/*
 * The port a packet leaves by schedules it: on the receiver's port, DWRR
 * with weights 1 and 3 for classes 1 and 3 (the switch is strict, which
 * would serve class 3 alone while it has packets). Two senders, h0 on
 * class 1 and h1 on class 3, keep both queues busy: class 3 gets three
 * times the bytes of class 1 while both wait.
 */
Test(switch_ports, the_egress_port_schedules)
{
	struct sw_params sw;
	struct sw_port_params pp[3];
	const struct port *out;
	struct fab f;
	uint64_t b1, b3;

	sw_base(&sw);
	sw.buffer = 32000000;
	sw.pfc.xoff = 4000000;
	sw.pfc.headroom = 1000000;
	sw.lossless = (1u << 3) | (1u << 1);
	for (int i = 0; i < 3; i++)
		pp[i] = own_copy(&sw);
	pp[0].dscp_to_tc[26] = 1;
	pp[2].sched = SW_SCHED_DWRR;
	pp[2].weights[1] = 1;
	pp[2].weights[3] = 3;
	sw.port_params = pp;
	sw.n_port_params = 3;
	fab_run(&f, &sw, 3, 2, 2000000);
	cr_assert(net_done(f.n));
	out = &f.n->ports[f.t->nodes[topo_find_node(f.t, "sw0")].first_port + 2];
	b1 = out->queue[1].tx_bytes;
	b3 = out->queue[3].tx_bytes;
	cr_assert_eq(b1, b3, "both finish: the same bytes in the end");
	cr_assert_lt(f.n->flows[1].finish, f.n->flows[0].finish,
		     "class 3 (weight 3) finishes first; strict would too, but not share");
	cr_assert_gt(f.n->flows[1].finish, (simtime_t)(2000000ULL * 8 * 10) * 4 / 3 * 9 / 10,
		     "while both wait, class 3 gets 3/4 of the link, not all of it: %llu ps",
		     (unsigned long long)f.n->flows[1].finish);
	fab_free(&f);
}
