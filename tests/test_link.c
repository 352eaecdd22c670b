/*
 * A port's transmitter and a NIC's lazy packet ends (port_set_lazy): a
 * NIC port with nothing else to send puts a packet on the wire as it
 * starts and arms no tx_done for its end. The same fabric run with every
 * port on the tx_done path must give the same counters, times and flows,
 * at the end and at any stop, a link that fails under a packet
 * included, with fewer events.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "models/net.h"
#include "rig.h"

#define SENDERS 4
#define HOSTS (SENDERS + 1)

/* What a run shows, for comparing one with lazy ends and one without. */
struct shot {
	uint64_t events;
	simtime_t end;
	struct mctx_totals tot;
	uint64_t tx_packets[2 * HOSTS], tx_bytes[2 * HOSTS], rx_packets[2 * HOSTS];
	uint64_t lost[2 * HOSTS], busy[2 * HOSTS];
	simtime_t finish[SENDERS];
	uint64_t inflight;
};

/*
 * A DCQCN incast of SENDERS x 200 KB onto the last host of a star at
 * 100G, 10 ns links, ECN marking from 20 KB: the senders soon pace below
 * line rate. Lazy ends on the NICs or not (@lazy), the events due by
 * @until run, then what lazy ports finished by then counted, as the run
 * loop does. @down: a link taken down at that time (0: none).
 */
static void run_incast(int lazy, simtime_t until, simtime_t down, struct shot *s)
{
	struct wl_flow flows[SENDERS];
	struct net_fault fault = {.kind = NET_FAULT_LINK_DOWN, .link = 0, .at = down};
	struct net_params p = {
	    .seed = 1,
	    .sw = {.buffer = 4000000,
		   .lossless = 1u << 3,
		   .cnp_priority = 6,
		   .pfc = {.enabled = 1, .xoff = 400000, .headroom = 200000, .quanta = 0xffff},
		   .ecn = {.enabled = 1, .kmin = 20000, .kmax = 200000, .pmax = 0.2},
		   .sched = SW_SCHED_STRICT},
	    .nic = {.mtu = 1000,
		    .priority = 3,
		    .dscp = 26,
		    .pfc = 1u << 3,
		    .cc = NIC_CC_DCQCN,
		    .ecn = 1,
		    .ack_every = 4,
		    .timeout = 100 * SIMTIME_US},
	    .wl = {.flows = flows, .n_flows = SENDERS},
	    .faults = &fault,
	    .n_faults = down ? 1 : 0,
	};
	const struct topo_spec spec = {
	    .kind = TOPO_STAR,
	    .hosts = HOSTS,
	    .link = {.rate_bps = 100000000000ULL, .delay = 10000},
	};
	struct evq *q = evq_new();
	struct diag d = {0};
	struct topo *t;
	struct net *n;
	simtime_t settled;

	cr_assert(q);
	for (uint32_t i = 0; i < SENDERS; i++)
		flows[i] = (struct wl_flow){
		    .src = i, .dst = SENDERS, .bytes = 200000, .dscp = 26, .priority = 3};
	for (int i = 0; i < 64; i++)
		p.sw.dscp_to_tc[i] = (uint8_t)(i >> 3);
	dcqcn_params_default(&p.nic.dcqcn, DCQCN_MLX5);
	/* CNPs spaced per QP, the byte counter in 64-byte units: DCQCN paces
	 * the senders here, which is what the lazy ends are measured on */
	p.nic.dcqcn.cnp_per_port = 0;
	p.nic.dcqcn.byte_reset_unit = 64;
	cr_assert_eq(topo_generate(&spec, &t, &d), 0);
	cr_assert_eq(net_build(&p, t, q, &n, &d), 0, "%s", d.msg);
	cr_assert_eq(t->n_ports, 2 * HOSTS);
	if (!lazy)
		for (uint32_t i = 0; i < t->n_ports; i++)
			port_set_lazy(&n->ports[i], 0);
	for (;;) {
		n->ctx.halt = 0;
		if (!evq_run(q, until, UINT64_MAX, &n->ctx.halt))
			break;
		cr_assert_eq(n->ctx.error, 0);
	}
	settled = net_settle(n, until, UINT64_MAX);
	memset(s, 0, sizeof(*s));
	s->events = evq_fired(q);
	s->end = settled > evq_now(q) ? settled : evq_now(q);
	s->tot = n->ctx.tot;
	for (uint32_t i = 0; i < t->n_ports; i++) {
		s->tx_packets[i] = n->ports[i].tx_packets;
		s->tx_bytes[i] = n->ports[i].tx_bytes;
		s->rx_packets[i] = n->ports[i].rx_packets;
		s->lost[i] = n->ports[i].lost_packets;
		s->busy[i] = n->ports[i].busy_time;
	}
	for (uint32_t i = 0; i < SENDERS; i++)
		s->finish[i] = n->flows[i].finish;
	s->inflight = net_inflight_bytes(n);
	cr_assert_eq(s->tot.sent_bytes, s->tot.received_bytes + s->tot.dropped_bytes + s->inflight);
	net_free(n);
	topo_free(t);
	evq_free(q);
}

static void assert_same(const struct shot *a, const struct shot *b, simtime_t until)
{
	cr_assert_eq(a->end, b->end, "until %llu", (unsigned long long)until);
	cr_assert(!memcmp(&a->tot, &b->tot, sizeof(a->tot)), "totals, until %llu",
		  (unsigned long long)until);
	for (int i = 0; i < 2 * HOSTS; i++) {
		cr_assert_eq(a->tx_packets[i], b->tx_packets[i], "port %d until %llu", i,
			     (unsigned long long)until);
		cr_assert_eq(a->tx_bytes[i], b->tx_bytes[i]);
		cr_assert_eq(a->rx_packets[i], b->rx_packets[i]);
		cr_assert_eq(a->lost[i], b->lost[i]);
		cr_assert_eq(a->busy[i], b->busy[i]);
	}
	for (int i = 0; i < SENDERS; i++)
		cr_assert_eq(a->finish[i], b->finish[i]);
	cr_assert_eq(a->inflight, b->inflight);
}

Test(link, lazy_ends_give_the_results_of_a_tx_done_each_with_fewer_events)
{
	struct shot a, b;

	run_incast(1, SIMTIME_S, 0, &a);
	run_incast(0, SIMTIME_S, 0, &b);
	assert_same(&a, &b, SIMTIME_S);
	for (int i = 0; i < SENDERS; i++)
		cr_assert_neq(a.finish[i], 0, "flow %d finished", i);
	cr_assert_eq(a.inflight, 0);
	/* the paced senders' and the ACKs' ends were no events */
	cr_assert_lt(a.events, b.events * 95 / 100, "%llu events against %llu",
		     (unsigned long long)a.events, (unsigned long long)b.events);
}

/*
 * Stopped anywhere, a packet still being serialized is not yet counted
 * as sent, one whose last bit left is: 84 ns of wire a 1,062 B packet,
 * so stops 13 ns apart fall inside packets and on their ends.
 */
Test(link, a_run_stopped_under_a_packet_counts_it_as_its_tx_done_would)
{
	for (simtime_t until = 2 * SIMTIME_US; until < 2 * SIMTIME_US + 40 * 13000;
	     until += 13000) {
		struct shot a, b;

		run_incast(1, until, 0, &a);
		run_incast(0, until, 0, &b);
		assert_same(&a, &b, until);
	}
}

/* A host link that fails while a lazy packet is on its way or still
 * being serialized loses it as the tx_done path does, when it does. */
Test(link, a_link_down_under_a_lazy_packet_loses_it_as_a_tx_done_would)
{
	for (simtime_t down = 3 * SIMTIME_US; down < 3 * SIMTIME_US + 20 * 17000; down += 17000) {
		struct shot a, b;

		run_incast(1, 200 * SIMTIME_US, down, &a);
		run_incast(0, 200 * SIMTIME_US, down, &b);
		assert_same(&a, &b, down);
		cr_assert_gt(a.tot.dropped_packets + a.lost[0] + a.lost[1], 0);
	}
}
