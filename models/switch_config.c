/*
 * Switch configuration: what each port of a switch is configured with
 * (its own settings or the switch's, its link speed's over them), the
 * headroom its lossless PGs need, and whether the switch's buffer holds
 * what its ports reserve (see switch_config.h).
 */
#include "models/switch_config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "sim/engine/diag.h"
#include "topologies/topo.h"
#include "models/link.h"

/* DWRR: the smallest weight gets one maximum-size frame per round. */
#define SW_DWRR_UNIT 4200

_Static_assert(offsetof(struct sw_port_cfg, pfc.enabled) < 64,
	       "the XOFF settings on ingress's line");

/* The settings of port @i of a switch under @p: its own, or NULL for the switch's. */
static const struct sw_port_params *sw_port_own(const struct sw_params *p, uint32_t i)
{
	return p->port_params && i < p->n_port_params ? &p->port_params[i] : NULL;
}

/* Headroom of a lossless PG under @pfc on link @l. */
static uint64_t pfc_port_headroom(const struct sw_pfc *pfc, uint32_t mtu, const struct topo_link *l)
{
	simtime_t response;

	if (pfc->no_headroom)
		return 0;
	if (pfc->headroom)
		return pfc->headroom;
	/* the far end's response: the same for both ends of a link (net_build) */
	response = pfc->response ? pfc->response : pfc_response_delay(l->rate_bps);
	return pfc_headroom_kib(pfc_headroom_need(l->rate_bps, l->delay, response, mtu));
}

uint64_t sw_port_headroom(const struct sw_params *p, uint32_t mtu, const struct topo_link *l)
{
	return pfc_port_headroom(&p->pfc, mtu, l);
}

/* The by_speed entry of links of @rate_bps, or NULL. */
static const struct sw_speed *speed_of(const struct sw_params *p, uint64_t rate_bps)
{
	for (uint32_t i = 0; i < p->n_by_speed; i++)
		if (p->by_speed[i].rate_bps == rate_bps)
			return &p->by_speed[i];
	return NULL;
}

void sw_local_pfc(const struct sw_params *p, uint32_t local_port, uint64_t rate_bps,
		  struct sw_pfc *out)
{
	const struct sw_port_params *own = sw_port_own(p, local_port);
	const struct sw_speed *e = speed_of(p, rate_bps);

	*out = own ? own->pfc : p->pfc;
	if (!e)
		return;
	if (e->pfc_set & (SW_SET_DYNAMIC_TH | SW_SET_XOFF)) {
		out->dynamic = e->pfc.dynamic;
		out->dynamic_th = e->pfc.dynamic_th;
		out->xoff = e->pfc.xoff;
	}
	if (e->pfc_set & (SW_SET_XON | SW_SET_XON_OFFSET)) {
		out->has_xon = e->pfc.has_xon;
		out->xon = e->pfc.xon;
		out->xon_offset = e->pfc.xon_offset;
	}
	if (e->pfc_set & SW_SET_HEADROOM) {
		out->headroom = e->pfc.headroom;
		out->no_headroom = 0;
	}
}

void sw_local_ecn(const struct sw_params *p, uint64_t rate_bps, struct sw_ecn *out)
{
	sw_port_ecn(p, UINT32_MAX, rate_bps, out);
}

void sw_port_ecn(const struct sw_params *p, uint32_t local_port, uint64_t rate_bps,
		 struct sw_ecn *out)
{
	const struct sw_port_params *own = sw_port_own(p, local_port);
	const struct sw_speed *e = speed_of(p, rate_bps);

	*out = own && own->has_ecn ? own->ecn : p->ecn;
	if (!e)
		return;
	if (e->ecn_set & SW_SET_KMIN)
		out->kmin = e->ecn.kmin;
	if (e->ecn_set & SW_SET_KMAX)
		out->kmax = e->ecn.kmax;
	if (e->ecn_set & SW_SET_PMAX)
		out->pmax = e->ecn.pmax;
}

uint64_t sw_local_headroom(const struct sw_params *p, uint32_t local_port, uint32_t mtu,
			   const struct topo_link *l)
{
	struct sw_pfc pfc;

	sw_local_pfc(p, local_port, l->rate_bps, &pfc);
	return pfc_port_headroom(&pfc, mtu, l);
}

/* Lossless priorities of port @i with PFC on. */
static uint8_t sw_local_lossless(const struct sw_params *p, uint32_t i)
{
	const struct sw_port_params *own = sw_port_own(p, i);

	if (own)
		return own->pfc.enabled ? own->lossless : 0;
	return p->pfc.enabled ? p->lossless : 0;
}

int sw_buffer_plan(const struct sw_params *p, uint32_t mtu, const struct topo *t, uint32_t node,
		   uint64_t *shared, struct diag *d)
{
	const struct topo_node *tn = &t->nodes[node];
	uint8_t lossless = p->pfc.enabled ? p->lossless : 0;
	unsigned n_lossless = (unsigned)__builtin_popcount(lossless);
	uint64_t reserved = 0, x, most = 0;
	char total[48];
	int err = 0;

	/* every sum checked: 4 ports x 2^62 B of headroom must not wrap to 0 */
	for (uint32_t i = 0; !err && i < tn->n_ports; i++) {
		const struct topo_link *l = &t->links[t->ports[tn->first_port + i].link];
		unsigned n = (unsigned)__builtin_popcount(sw_local_lossless(p, i));
		uint64_t h = sw_local_headroom(p, i, mtu, l);

		err = ck_mul(n, p->pg_min, &x);
		err = err ? err : ck_add(reserved, x, &reserved);
		if (err || p->headroom_pool)
			continue;
		most = h > most ? h : most;
		err = ck_mul(n, h, &x);
		err = err ? err : ck_add(reserved, x, &reserved);
	}
	err = err ? err : ck_add(reserved, p->headroom_pool, &reserved);
	if (!err && reserved < p->buffer) {
		if (shared)
			*shared = p->buffer - reserved;
		return 0;
	}
	if (err)
		snprintf(total, sizeof(total), "more than 2^64 B");
	else
		snprintf(total, sizeof(total), "%llu B", (unsigned long long)reserved);
	if (p->headroom_pool)
		diag_set(d, "", 0, "switch.buffer.pg_min",
			 "%s: %u ports x %u lossless priorit%s of pg_min and the headroom pool "
			 "(%llu B) reserve %s, and switch.buffer.size is %llu B: nothing is left "
			 "to share; lower pg_min or the headroom pool",
			 tn->name, tn->n_ports, n_lossless, n_lossless == 1 ? "y" : "ies",
			 (unsigned long long)p->headroom_pool, total,
			 (unsigned long long)p->buffer);
	else if (p->pfc.headroom)
		diag_set(d, "", 0, "switch.pfc.headroom",
			 "%s: %u ports x %u lossless priorit%s of headroom%s reserve %s, and "
			 "switch.buffer.size is %llu B: nothing is left to share; lower the "
			 "headroom, or share it with switch.buffer.headroom_pool",
			 tn->name, tn->n_ports, n_lossless, n_lossless == 1 ? "y" : "ies",
			 p->pg_min ? " and pg_min" : "", total, (unsigned long long)p->buffer);
	else /* computed for the links: the buffer is what is short */
		diag_set(
		    d, "", 0, "switch.buffer.size",
		    "%s: %u ports x %u lossless priorit%s of headroom (computed for each "
		    "port's link, up to %llu B)%s reserve %s, and switch.buffer.size is %llu B: "
		    "nothing is left to share; give a larger buffer, a smaller "
		    "switch.pfc.headroom, or share it with switch.buffer.headroom_pool",
		    tn->name, tn->n_ports, n_lossless, n_lossless == 1 ? "y" : "ies",
		    (unsigned long long)most, p->pg_min ? " and pg_min" : "", total,
		    (unsigned long long)p->buffer);
	return -EINVAL;
}

void sw_local_port(const struct sw_params *p, uint32_t local_port, uint32_t mtu,
		   const struct topo_link *l, struct sw_port_cfg *out)
{
	const struct sw_port_params *own = sw_port_own(p, local_port);
	const uint32_t *weights = own ? own->weights : p->weights;
	uint64_t wmin = UINT32_MAX;

	memset(out, 0, sizeof(*out));
	out->dscp_to_tc = own ? own->dscp_to_tc : p->dscp_to_tc;
	out->headroom = sw_local_headroom(p, local_port, mtu, l);
	out->lossless = sw_local_lossless(p, local_port);
	sw_local_pfc(p, local_port, l->rate_bps, &out->pfc);
	out->sched = own ? own->sched : p->sched;
	if (out->sched == SW_SCHED_STRICT)
		out->strict = 0xff;
	else if (!(own ? own->cnp_weighted : p->cnp_weighted))
		out->strict = (uint8_t)(1u << p->cnp_priority);
	sw_port_ecn(p, local_port, l->rate_bps, &out->ecn);
	for (int q = 0; q < PKT_PRIORITIES; q++)
		if (weights[q] && weights[q] < wmin)
			wmin = weights[q];
	for (int q = 0; q < PKT_PRIORITIES; q++)
		out->quantum[q] = (uint32_t)((uint64_t)SW_DWRR_UNIT * weights[q] / wmin);
}

static int pfc_same(const struct sw_pfc *a, const struct sw_pfc *b)
{
	return a->xoff == b->xoff && a->dynamic == b->dynamic && a->dynamic_th == b->dynamic_th &&
	       a->enabled == b->enabled && a->xon == b->xon && a->has_xon == b->has_xon &&
	       a->xon_offset == b->xon_offset && a->xon_floor == b->xon_floor &&
	       a->headroom == b->headroom && a->no_headroom == b->no_headroom &&
	       a->quanta == b->quanta && a->refresh == b->refresh && a->response == b->response;
}

static int ecn_same(const struct sw_ecn *a, const struct sw_ecn *b)
{
	return a->enabled == b->enabled && a->kmin == b->kmin && a->kmax == b->kmax &&
	       a->pmax == b->pmax && a->at_enqueue == b->at_enqueue;
}

int sw_port_cfg_same(const struct sw_port_cfg *a, const struct sw_port_cfg *b)
{
	return !memcmp(a->dscp_to_tc, b->dscp_to_tc, 64) && a->headroom == b->headroom &&
	       a->lossless == b->lossless && pfc_same(&a->pfc, &b->pfc) && a->sched == b->sched &&
	       ecn_same(&a->ecn, &b->ecn) && !memcmp(a->quantum, b->quantum, sizeof(a->quantum)) &&
	       a->strict == b->strict;
}
