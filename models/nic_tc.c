/*
 * The NIC's egress per traffic class (nic_params.tc_on), as ConnectX does
 * it. The mlx5 driver (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c,
 * mlx5e_build_tc_group) puts the classes in groups that the port serves in
 * strict order, highest first: the "vendor" classes in the top group (7),
 * each strict class in a group of its own above the ETS ones (a higher
 * class above a lower), the ETS classes with a share in one group, and the
 * ETS classes with a share of 0 in the lowest. In a group the classes share
 * by their bandwidth percentages (equal shares for vendor and 0% classes),
 * byte-accurately: the class that has sent the fewest bytes per share goes
 * next, as deficit round robin converges to; a class that waits (for data,
 * PFC or its rate limit) banks at most two packets of credit meanwhile. A class with a rate
 * limit (mlnx_qos --ratelimit, the kernel's ieee_maxrate) is a token
 * bucket filled at that rate, four full packets deep (NVIDIA's packet
 * pacing lets "a few packets (burst)" go before the rate is evaluated):
 * its QPs together run at most at that rate, each still at its own DCQCN
 * rate. ACKs, NAKs and CNPs go ahead of all classes (nic.c).
 */
#include "models/nic_tc.h"

#include <errno.h>

#include "models/link.h"
#include "models/mctx.h"
#include "models/packet.h"
#include "sim/engine/evq.h"

/* The virtual time a byte costs a class of share 1 (of 100): shares divide it. */
#define TC_COST_UNIT 1000000u
/* A class that waits (idle, paused, held by its rate limit) keeps at most
 * this many full packets of credit, as a deficit round robin's quantum. */
#define TC_CREDIT_PACKETS 2
/* A class's rate limit lets this many full packets go back to back (the
 * depth of its token bucket): then ETS shares below the limit hold. */
#define TC_BURST_PACKETS 4

/* Arm the shaper at the earliest time a limited class is held back to. */
static void arm_shape(struct nic_tcs *t, simtime_t now)
{
	simtime_t first = SIMTIME_NEVER;

	for (int tc = 0; tc < 8; tc++)
		if (t->rate[tc] && t->free_at[tc] > now && t->free_at[tc] < first)
			first = t->free_at[tc];
	if (first == SIMTIME_NEVER)
		return;
	if (!evq_pending(t->ctx->q, &t->shape) || t->shape.when > first)
		mctx_arm(t->ctx, &t->shape, first);
}

/* A limited class may send again: the port may have something to do. */
static void on_shape(void *obj, uint64_t arg)
{
	struct nic_tcs *t = obj;

	(void)arg;
	arm_shape(t, evq_now(t->ctx->q)); /* the next one, for a port busy now */
	port_kick(t->port);
}

/* Add class @tc to a new group of @t. */
static void group_add(struct nic_tcs *t, uint8_t tc, int new_group)
{
	if (new_group || !t->n_groups)
		t->n_groups++;
	t->group_tc[t->n_groups - 1][t->group_n[t->n_groups - 1]++] = tc;
	t->group_of[tc] = (uint8_t)(t->n_groups - 1);
}

int nic__tc_init(struct nic_tcs **out, struct mctx *ctx, struct port *port, uint64_t rate_bps,
		 uint32_t mtu, const uint8_t *prio_tc, const struct nic_tc_params *params)
{
	struct nic_tcs *t = mem_arena_lines(&ctx->mem, 1, sizeof(*t)); /* freed with ctx */
	uint8_t used = 0;
	int first;

	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	t->port = port;
	for (int p = 0; p < 8; p++) {
		t->prio_tc[p] = prio_tc[p] & 7;
		used |= (uint8_t)(1u << t->prio_tc[p]);
	}
	for (int tc = 0; tc < 8; tc++) {
		const struct nic_tc_params *c = &params[tc];

		t->rate[tc] = c->ratelimit < rate_bps ? c->ratelimit : 0;
		if (t->rate[tc])
			t->burst[tc] =
			    simtime_tx((uint64_t)(TC_BURST_PACKETS - 1) *
					   (mtu + PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES),
				       t->rate[tc]);
		t->cost[tc] = c->tsa == NIC_TSA_ETS && c->bw ? TC_COST_UNIT / c->bw : TC_COST_UNIT;
		t->credit[tc] = TC_CREDIT_PACKETS *
				(uint64_t)(mtu + PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES) *
				t->cost[tc];
	}
	/* the groups, highest first; only the classes some priority maps to */
	first = 1;
	for (int tc = 0; tc < 8; tc++)
		if ((used >> tc) & 1 && params[tc].tsa == NIC_TSA_VENDOR) {
			group_add(t, (uint8_t)tc, first);
			first = 0;
		}
	for (int tc = 7; tc >= 0; tc--)
		if ((used >> tc) & 1 && params[tc].tsa == NIC_TSA_STRICT)
			group_add(t, (uint8_t)tc, 1);
	for (int zero = 0; zero < 2; zero++) {
		first = 1;
		for (int tc = 0; tc < 8; tc++)
			if ((used >> tc) & 1 && params[tc].tsa == NIC_TSA_ETS &&
			    (params[tc].bw == 0) == zero) {
				group_add(t, (uint8_t)tc, first);
				first = 0;
			}
	}
	evq_timer_init(&t->shape, on_shape, t, mctx_port_key(port->id, MCTX_PT_NIC_TC_SHAPE));
	*out = t;
	return 0;
}

int nic__tc_waiting(const struct nic_tcs *t, simtime_t now)
{
	for (int tc = 0; tc < 8; tc++)
		if (t->ring[tc].cur && t->free_at[tc] <= now)
			return 1;
	return 0;
}

/*
 * The class of group @g that goes next: of those with QPs in their ring,
 * not held back by their rate limit and not in @tried, the one with the
 * least virtual time (the lower class on a tie); -1 if none.
 */
static int pick(struct nic_tcs *t, int g, uint8_t tried, simtime_t now)
{
	int best = -1;

	for (int i = 0; i < t->group_n[g]; i++) {
		uint8_t tc = t->group_tc[g][i];

		if (!t->ring[tc].cur || ((tried >> tc) & 1) || t->free_at[tc] > now)
			continue;
		if (t->vt[tc] + t->credit[tc] < t->vnow[g])
			t->vt[tc] = t->vnow[g] - t->credit[tc]; /* what it waited for is lost */
		if (best < 0 || t->vt[tc] < t->vt[best])
			best = tc;
	}
	return best;
}

struct pkt *nic__tc_next(struct nic_tcs *t, nic_ring_take_fn take, void *nic, uint8_t paused,
			 simtime_t now)
{
	for (int g = 0; g < t->n_groups; g++) {
		uint8_t tried = 0;
		int tc;

		while ((tc = pick(t, g, tried, now)) >= 0) {
			struct pkt *pkt = take(nic, &t->ring[tc], paused, now);
			uint32_t wire;

			if (!pkt) {
				tried |= (uint8_t)(1u << tc); /* paused, or paced: the next */
				continue;
			}
			wire = pkt_wire_bytes(pkt);
			t->vnow[g] = t->vt[tc];
			t->vt[tc] += (uint64_t)wire * t->cost[tc];
			if (t->rate[tc]) {
				/* GCRA: the bucket empties at the rate, holds TC_BURST_PACKETS */
				t->tat[tc] = (t->tat[tc] > now ? t->tat[tc] : now) +
					     simtime_tx(wire, t->rate[tc]);
				t->free_at[tc] =
				    t->tat[tc] > t->burst[tc] ? t->tat[tc] - t->burst[tc] : 0;
				arm_shape(t, now);
			}
			return pkt;
		}
	}
	return NULL;
}
