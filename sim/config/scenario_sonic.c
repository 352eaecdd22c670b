/*
 * switch.sonic's ports -> the switch's ports. SONiC configures PFC, the
 * lossless PGs' buffer profile, the DSCP map and the schedulers port by
 * port; scenario_configs.c gave the switch the values most ports have, and
 * here each port that differs gets its own (sw_params.port_params).
 *
 * Which port is which: without DEVICE_NEIGHBOR nothing in config_db.json
 * says where a port is cabled, so the ports of PORT are taken in the order
 * of the numbers in their names (Ethernet0, Ethernet4, Ethernet8, ...) and
 * the i-th is port i of each switch in topology order (a leaf's hosts,
 * then its spines). A config with fewer ports than a switch leaves that
 * switch's last ports with the switch's values; one with more leaves its
 * last ports unused; `rocesim check` says both (SONIC_PORTS).
 *
 * A port takes from the config only what the config gives for it, and
 * only for keys the scenario does not give itself (its file or --set):
 *   PORT_QOS_MAP pfc_enable       -> lossless            (switch.lossless)
 *   its lowest lossless PG's BUFFER_PROFILE:
 *     xoff (none: no headroom)    -> pfc.headroom        (switch.pfc.headroom)
 *     "NULL" (dynamic model)      -> pfc.headroom computed by rocesim
 *     dynamic_th | static_th      -> pfc.dynamic_th | xoff (switch.pfc.dynamic_th, xoff)
 *     xon_offset                  -> pfc.xon_offset      (switch.pfc.xon, xon_offset)
 *     xon                         -> pfc.xon_floor       (switch.pfc.xon, xon_offset)
 *   PORT_QOS_MAP dscp_to_tc_map   -> dscp_to_tc          (the DSCPs switch.dscp_to_tc names win)
 *   QUEUE scheduler -> SCHEDULER  -> sched, weights      (switch.scheduler, weights)
 *     WRR or DWRR on the CNP's queue -> cnp_weighted     (switch.scheduler, weights)
 *   its lowest lossless queue's QUEUE wred_profile -> WRED_PROFILE:
 *     green_min/max_threshold, green_drop_probability, ecn -> ecn (switch.ecn.*)
 * XON follows SAI's two thresholds (saibuffer.h: SAI_BUFFER_PROFILE_ATTR_XON_TH
 * and XON_OFFSET_TH): XON when the PG's shared bytes fall below the XOFF
 * limit minus xon_offset, or below xon, whichever is higher; an xon the
 * XOFF limit can never exceed is refused. Each port's values are checked
 * as the switch's are, and a refusal names the config's file, line and key.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/readers/sonic.h"
#include "sim/engine/checked.h"

/* A port's value refused: at the config's @line and @key, naming the scenario key. */
static int port_fail(const struct loader *l, const struct sonic_cfg *c, int line, const char *key,
		     const char *path, const struct sonic_port *p, const char *what)
{
	diag_set(l->d, c->file, line, key, "%s (%s of %s, from switch.sonic)", what, path, p->name);
	return -EINVAL;
}

/*
 * The profile's xon -> the port's XON floor: refused when no XOFF limit can
 * exceed it (a static one, or 2^dynamic_th x the whole buffer), as the PG
 * would then resume at once.
 */
static int port_xon(const struct loader *l, const struct sonic_cfg *c, const struct sonic_port *p,
		    const struct scenario *s, const struct sonic_profile_use *u, struct sw_pfc *pfc)
{
	char key[sizeof(u->name) + 40], what[200];
	uint64_t most = pfc->xoff;

	pfc->has_xon = 0;
	pfc->xon_floor = u->xon;
	if (pfc->dynamic && pfc->dynamic_th < 0)
		most = s->sw.buffer >> -pfc->dynamic_th;
	else if (pfc->dynamic && ck_mul(s->sw.buffer, 1ULL << pfc->dynamic_th, &most))
		most = UINT64_MAX;
	if (u->xon < most)
		return 0;
	snprintf(key, sizeof(key), "BUFFER_PROFILE|%s|xon", u->name);
	if (pfc->dynamic)
		snprintf(what, sizeof(what),
			 "xon (%llu B) must be below the largest XOFF limit, 2^%d x the %llu B "
			 "buffer: the PG would resume as soon as it paused",
			 (unsigned long long)u->xon, pfc->dynamic_th,
			 (unsigned long long)s->sw.buffer);
	else
		snprintf(what, sizeof(what),
			 "xon (%llu B) must be below the XOFF threshold (%llu B): the PG would "
			 "resume as soon as it paused",
			 (unsigned long long)u->xon, (unsigned long long)pfc->xoff);
	return port_fail(l, c, u->xon_line, key, "switch.pfc.xon", p, what);
}

/*
 * The port's lowest lossless queue's WRED profile -> its ECN marking, where
 * it differs from the switch's (the keys the scenario gives win); checked
 * as check_ecn checks the switch's.
 */
static int port_ecn(const struct loader *l, const struct sonic_cfg *c, const struct sonic_port *p,
		    const struct scenario *s, struct sw_port_params *q)
{
	const struct sonic_wred_use *w;
	struct sw_ecn *e = &q->ecn;
	char key[sizeof(w->name) + 40], what[160];

	q->ecn = s->sw.ecn;
	if (p->wred < 0)
		return 0;
	w = &c->wreds[p->wred];
	if (!scn__explicit(l, "switch.ecn.enabled"))
		e->enabled = w->ecn_marking != 0;
	if (!scn__explicit(l, "switch.ecn.kmin"))
		e->kmin = w->kmin;
	if (!scn__explicit(l, "switch.ecn.kmax"))
		e->kmax = w->kmax;
	if (!scn__explicit(l, "switch.ecn.pmax"))
		e->pmax = w->pmax;
	q->has_ecn = e->enabled != s->sw.ecn.enabled || e->kmin != s->sw.ecn.kmin ||
		     e->kmax != s->sw.ecn.kmax || e->pmax != s->sw.ecn.pmax;
	if (!q->has_ecn)
		return 0;
	if (e->kmax == 0 || e->kmin > e->kmax) {
		snprintf(key, sizeof(key), "WRED_PROFILE|%s|green_max_threshold", w->name);
		snprintf(what, sizeof(what), "kmin (%llu B) must not be above kmax (%llu B)%s",
			 (unsigned long long)e->kmin, (unsigned long long)e->kmax,
			 e->kmax ? "" : ", which must be more than 0");
		return port_fail(l, c, w->kmax_line, key, "switch.ecn.kmax", p, what);
	}
	if (e->pmax <= 0) {
		snprintf(key, sizeof(key), "WRED_PROFILE|%s|green_drop_probability", w->name);
		return port_fail(l, c, w->pmax_line, key, "switch.ecn.pmax", p,
				 "\"0%\" is not a probability above 0 (e.g. 20%, 0.2)");
	}
	return 0;
}

/* The port's profile -> its lossless PGs' thresholds and headroom. */
static int port_profile(const struct loader *l, const struct sonic_cfg *c,
			const struct sonic_port *p, const struct scenario *s, struct sw_pfc *pfc)
{
	const struct sonic_profile_use *u;
	char key[sizeof(u->name) + 40], what[160];
	int err;

	if (p->pg_null && !scn__explicit(l, "switch.pfc.headroom"))
		pfc->headroom = 0; /* SONiC would compute it: rocesim does */
	if (p->profile < 0)
		return 0;
	u = &c->profiles[p->profile];
	if (!scn__explicit(l, "switch.pfc.headroom")) {
		pfc->headroom = u->has_xoff ? u->xoff : 0;
		pfc->no_headroom = !u->has_xoff || !u->xoff;
	}
	if (!scn__explicit(l, "switch.pfc.xoff") && !scn__explicit(l, "switch.pfc.dynamic_th")) {
		if (u->has_dynamic_th) {
			pfc->dynamic = 1;
			pfc->dynamic_th = u->dynamic_th;
		} else if (u->has_static_th) {
			pfc->dynamic = 0;
			pfc->xoff = u->static_th;
		}
	}
	if (u->has_xon_offset && !scn__explicit(l, "switch.pfc.xon") &&
	    !scn__explicit(l, "switch.pfc.xon_offset")) {
		pfc->has_xon = 0;
		pfc->xon_offset = u->xon_offset;
	}
	if (!scn__explicit(l, "switch.pfc.xon") && !scn__explicit(l, "switch.pfc.xon_offset")) {
		pfc->xon_floor = 0;
		if (u->has_xon && (err = port_xon(l, c, p, s, u, pfc)))
			return err;
	}
	/* as check_pfc checks the switch's */
	if (pfc->dynamic && (pfc->dynamic_th < -7 || pfc->dynamic_th > 7)) {
		snprintf(key, sizeof(key), "BUFFER_PROFILE|%s|dynamic_th", u->name);
		snprintf(what, sizeof(what), "%d is out of range (-7 to 7)", pfc->dynamic_th);
		return port_fail(l, c, u->th_line, key, "switch.pfc.dynamic_th", p, what);
	}
	if (!pfc->dynamic && pfc->xoff > s->sw.buffer) {
		snprintf(key, sizeof(key), "BUFFER_PROFILE|%s|static_th", u->name);
		return port_fail(l, c, u->th_line, key, "switch.pfc.xoff", p,
				 "is larger than switch.buffer.size");
	}
	if (!pfc->dynamic && !pfc->has_xon && pfc->xon_offset >= pfc->xoff) {
		snprintf(key, sizeof(key), "BUFFER_PROFILE|%s|xon_offset", u->name);
		snprintf(what, sizeof(what),
			 "the XON offset (%llu B) must be smaller than xoff (%llu B)",
			 (unsigned long long)pfc->xon_offset, (unsigned long long)pfc->xoff);
		return port_fail(l, c, u->xon_offset_line, key, "switch.pfc.xon_offset", p, what);
	}
	if (s->sw.per_port && pfc->headroom > s->sw.per_port) {
		snprintf(key, sizeof(key), "BUFFER_PROFILE|%s|xoff", u->name);
		return port_fail(l, c, u->xoff_line, key, "switch.pfc.headroom", p,
				 "is larger than switch.buffer.per_port");
	}
	return 0;
}

/* The port's DSCP map, with the DSCPs the scenario maps itself. */
static void port_map(const struct loader *l, const struct sonic_cfg *c, const struct sonic_port *p,
		     const struct scenario *s, uint8_t *map)
{
	const struct sonic_map_use *m;
	char path[32];

	if (p->dscp_map < 0)
		return;
	m = &c->maps[p->dscp_map];
	for (int d = 0; d < 64; d++) {
		snprintf(path, sizeof(path), "switch.dscp_to_tc.%d", d);
		if (scn__explicit(l, path))
			map[d] = s->sw.dscp_to_tc[d];
		else
			map[d] = (m->given >> d) & 1 ? m->to_tc[d] : 0;
	}
}

/* Whether @p's queue of class @tc is scheduled by WRR or DWRR. */
static int queue_weighted(const struct sonic_port *p, uint8_t tc)
{
	uint8_t type = p->sched[p->tc_to_queue[tc & 7] & 7];

	return type == SONIC_SCHED_WRR || type == SONIC_SCHED_DWRR;
}

/*
 * The port's schedulers: DWRR when a queue is WRR or DWRR, a weight per
 * queue; the CNP class's queue among the weighted ones when it is WRR or
 * DWRR (else it goes first).
 */
static void port_sched(const struct loader *l, const struct sonic_port *p, const struct scenario *s,
		       struct sw_port_params *pp)
{
	int any = 0;

	for (int q = 0; q < 8; q++)
		any |= p->sched[q] != SONIC_SCHED_NONE;
	if (!any || scn__explicit(l, "switch.scheduler") || scn__explicit(l, "switch.weights"))
		return;
	pp->sched = p->dwrr ? SW_SCHED_DWRR : SW_SCHED_STRICT;
	for (int q = 0; q < 8; q++)
		pp->weights[q] = p->weight[q] ? p->weight[q] : 1;
	pp->cnp_weighted = p->dwrr && queue_weighted(p, s->sw.cnp_priority);
}

static int pfc_differs(const struct sw_pfc *a, const struct sw_pfc *b)
{
	return a->dynamic != b->dynamic || a->dynamic_th != b->dynamic_th || a->xoff != b->xoff ||
	       a->has_xon != b->has_xon || a->xon != b->xon || a->xon_offset != b->xon_offset ||
	       a->xon_floor != b->xon_floor || a->headroom != b->headroom ||
	       a->no_headroom != b->no_headroom;
}

static int port_differs(const struct sw_port_params *pp, const struct sw_params *sw)
{
	return pp->lossless != sw->lossless || pfc_differs(&pp->pfc, &sw->pfc) ||
	       memcmp(pp->dscp_to_tc, sw->dscp_to_tc, sizeof(pp->dscp_to_tc)) ||
	       pp->sched != sw->sched || memcmp(pp->weights, sw->weights, sizeof(pp->weights)) ||
	       pp->cnp_weighted != sw->cnp_weighted || pp->has_ecn;
}

int scn__sonic_ports(const struct loader *l, struct scenario *s)
{
	const struct sonic_cfg *c = l->raw->cfg.sonic;
	struct sw_port_params *pp;
	int differ = 0, err;

	if (!c)
		return 0;
	/* the switch's CNP queue: that of the port whose schedulers it took */
	if (c->has_sched && s->sw.sched == SW_SCHED_DWRR && !scn__explicit(l, "switch.scheduler") &&
	    !scn__explicit(l, "switch.weights"))
		s->sw.cnp_weighted =
		    (uint8_t)queue_weighted(&c->ports[c->sched_port], s->sw.cnp_priority);
	pp = calloc(c->n_ports, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->n_ports; i++) {
		const struct sonic_port *p = &c->ports[i];
		struct sw_port_params *q = &pp[i];

		q->lossless = s->sw.lossless;
		q->pfc = s->sw.pfc;
		memcpy(q->dscp_to_tc, s->sw.dscp_to_tc, sizeof(q->dscp_to_tc));
		q->sched = s->sw.sched;
		memcpy(q->weights, s->sw.weights, sizeof(q->weights));
		q->cnp_weighted = s->sw.cnp_weighted;
		if (p->has_pfc_enable && !scn__explicit(l, "switch.lossless"))
			q->lossless = p->pfc_enable;
		if (q->lossless && (err = port_profile(l, c, p, s, &q->pfc))) {
			free(pp);
			return err;
		}
		port_map(l, c, p, s, q->dscp_to_tc);
		port_sched(l, p, s, q);
		if ((err = port_ecn(l, c, p, s, q))) {
			free(pp);
			return err;
		}
		differ |= port_differs(q, &s->sw);
	}
	if (!differ) {
		free(pp);
		return 0;
	}
	s->sw_ports = pp;
	s->sw.port_params = pp;
	s->sw.n_port_params = c->n_ports;
	return 0;
}
