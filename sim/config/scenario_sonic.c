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
 *   PORT_QOS_MAP dscp_to_tc_map   -> dscp_to_tc          (the DSCPs switch.dscp_to_tc names win)
 *   QUEUE scheduler -> SCHEDULER  -> sched, weights      (switch.scheduler, weights)
 * Each port's values are checked as the switch's are, and a refusal names
 * the config's file, line and key.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/config/sonic.h"

/* A port's value refused: at the config's @line and @key, naming the scenario key. */
static int port_fail(const struct loader *l, const struct sonic_cfg *c, int line, const char *key,
		     const char *path, const struct sonic_port *p, const char *what)
{
	diag_set(l->d, c->file, line, key, "%s (%s of %s, from switch.sonic)", what, path, p->name);
	return -EINVAL;
}

/* The port's profile -> its lossless PGs' thresholds and headroom. */
static int port_profile(const struct loader *l, const struct sonic_cfg *c,
			const struct sonic_port *p, const struct scenario *s, struct sw_pfc *pfc)
{
	const struct sonic_profile_use *u;
	char key[sizeof(u->name) + 40], what[160];

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

/* The port's schedulers: DWRR when a queue is WRR or DWRR, a weight per queue. */
static void port_sched(const struct loader *l, const struct sonic_port *p,
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
}

static int pfc_differs(const struct sw_pfc *a, const struct sw_pfc *b)
{
	return a->dynamic != b->dynamic || a->dynamic_th != b->dynamic_th || a->xoff != b->xoff ||
	       a->has_xon != b->has_xon || a->xon != b->xon || a->xon_offset != b->xon_offset ||
	       a->headroom != b->headroom || a->no_headroom != b->no_headroom;
}

static int port_differs(const struct sw_port_params *pp, const struct sw_params *sw)
{
	return pp->lossless != sw->lossless || pfc_differs(&pp->pfc, &sw->pfc) ||
	       memcmp(pp->dscp_to_tc, sw->dscp_to_tc, sizeof(pp->dscp_to_tc)) ||
	       pp->sched != sw->sched || memcmp(pp->weights, sw->weights, sizeof(pp->weights));
}

int scn__sonic_ports(const struct loader *l, struct scenario *s)
{
	const struct sonic_cfg *c = l->raw->cfg.sonic;
	struct sw_port_params *pp;
	int differ = 0, err;

	if (!c)
		return 0;
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
		if (p->has_pfc_enable && !scn__explicit(l, "switch.lossless"))
			q->lossless = p->pfc_enable;
		if (q->lossless && (err = port_profile(l, c, p, s, &q->pfc))) {
			free(pp);
			return err;
		}
		port_map(l, c, p, s, q->dscp_to_tc);
		port_sched(l, p, q);
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
