/*
 * The effective parameters of a scenario: what the switches, their ports
 * and the NICs run with once every default, real config and override is
 * applied. `rocesim check --json` prints them, and results.json keeps them
 * as "effective" so that a result says what produced it; "config" keeps
 * the thresholds the pictures draw, per switch and port where they differ.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/link.h"
#include "sim/engine/textsafe.h"
#include "sim/run/results.h"

static json_t *eff_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

json_t *res_prio_array(uint8_t mask)
{
	json_t *a = json_array();

	for (int p = 0; a && p < 8; p++)
		if ((mask & (1u << p)) && json_array_append_new(a, json_integer(p))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The settings of topology node @u, a switch: its own (switch.sonic per switch) or the scenario's.
 */
static const struct sw_params *sw_of(const struct scenario *s, uint32_t u)
{
	return s->sw_node && s->sw_node[u] ? s->sw_node[u] : &s->sw;
}

/* The switch parameters @sw (the scenario's, or a switch's own) resolved to. */
static json_t *eff_switch(const struct sw_params *sw)
{
	const struct sw_pfc *p = &sw->pfc;
	const struct sw_ecn *e = &sw->ecn;
	static const char *const actions[] = {"drop", "forward", "alert"};
	json_t *pfc, *map, *j, *wd, *weights;

	/* null: computed per port (headroom), from the pause time or link speed */
	pfc = json_pack("{s:b,s:o,s:o,s:I,s:o,s:o}", "enabled", p->enabled, "headroom",
			p->headroom ? eff_u64(p->headroom) : json_null(), "headroom_computed",
			json_boolean(!p->headroom), "quanta", (json_int_t)p->quanta, "refresh_us",
			p->refresh ? json_real(simtime_to_us(p->refresh)) : json_null(),
			"response_us",
			p->response ? json_real(simtime_to_us(p->response)) : json_null());
	if (!pfc)
		return NULL;
	if ((p->dynamic ? json_object_set_new(pfc, "dynamic_th", json_integer(p->dynamic_th))
			: json_object_set_new(pfc, "xoff", eff_u64(p->xoff))) ||
	    (p->has_xon ? json_object_set_new(pfc, "xon", eff_u64(p->xon))
			: json_object_set_new(pfc, "xon_offset", eff_u64(p->xon_offset))) ||
	    (!p->has_xon && p->xon_floor &&
	     json_object_set_new(pfc, "xon_floor", eff_u64(p->xon_floor)))) {
		json_decref(pfc);
		return NULL;
	}
	map = json_object();
	for (int d = 0; map && d < 64; d++) {
		char key[4];

		if (!sw->dscp_to_tc[d])
			continue;
		snprintf(key, sizeof(key), "%d", d);
		if (json_object_set_new(map, key, json_integer(sw->dscp_to_tc[d]))) {
			json_decref(map);
			map = NULL;
		}
	}
	wd = sw->wd.enabled
		 ? json_pack("{s:f,s:f,s:s}", "detection_us", simtime_to_us(sw->wd.detection),
			     "restoration_us", simtime_to_us(sw->wd.restoration), "action",
			     actions[sw->wd.action])
		 : json_null();
	weights = json_array();
	for (int i = 0; weights && i < 8; i++)
		if (json_array_append_new(weights, json_integer(sw->weights[i]))) {
			json_decref(weights);
			weights = NULL;
		}
	j = json_pack(
	    "{s:{s:I,s:I,s:I,s:I},s:o,s:i,s:o,s:o,s:{s:b,s:I,s:I,s:f,s:s},s:s,s:o,s:o}", "buffer",
	    "size", (json_int_t)sw->buffer, "per_port", (json_int_t)sw->per_port, "pg_min",
	    (json_int_t)sw->pg_min, "headroom_pool", (json_int_t)sw->headroom_pool, "lossless",
	    res_prio_array(sw->lossless), "cnp_priority", sw->cnp_priority, "dscp_to_tc", map,
	    "pfc", pfc, "ecn", "enabled", e->enabled, "kmin", (json_int_t)e->kmin, "kmax",
	    (json_int_t)e->kmax, "pmax", e->pmax, "mark", e->at_enqueue ? "enqueue" : "dequeue",
	    "scheduler", sw->sched == SW_SCHED_DWRR ? "dwrr" : "strict", "weights", weights,
	    "watchdog", wd);
	/* said only when so: the CNP queue takes its DWRR turn instead of going first */
	if (j && sw->sched == SW_SCHED_DWRR && sw->cnp_weighted &&
	    json_object_set_new(j, "cnp_weighted", json_true())) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/*
 * With classes (nic.tc, nic.mlnx_qos's tc lines): each class some priority
 * is in, its priorities, tsa, share (ets) and rate limit (null: none).
 */
static json_t *eff_nic_tc(const struct nic_params *n)
{
	static const char *const tsas[] = {"strict", "ets", "vendor"};
	json_t *a = json_array();

	for (int tc = 0; a && tc < 8; tc++) {
		const struct nic_tc_params *c = &n->tc[tc];
		uint8_t prios = 0;
		json_t *e;

		for (int p = 0; p < 8; p++)
			if (n->prio_tc[p] == tc)
				prios |= (uint8_t)(1u << p);
		if (!prios)
			continue;
		e = json_pack("{s:i,s:o,s:s,s:o,s:o}", "tc", tc, "priorities",
			      res_prio_array(prios), "tsa", tsas[c->tsa % 3], "bw",
			      c->tsa == NIC_TSA_ETS ? json_integer(c->bw) : json_null(),
			      "ratelimit_bps", c->ratelimit ? eff_u64(c->ratelimit) : json_null());
		if (json_array_append_new(a, e)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The NIC parameters, with the DCQCN ones under their cc_params names. */
static json_t *eff_nic(const struct scenario *s)
{
	const struct dcqcn_params *d = &s->nic.dcqcn;
	json_t *pfc = json_array(), *dc, *nic;

	for (int p = 0; pfc && p < 8; p++)
		if (json_array_append_new(pfc, json_integer((s->nic.pfc >> p) & 1))) {
			json_decref(pfc);
			pfc = NULL;
		}
	dc = json_pack(
	    "{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
	    "s:I,s:I,s:I}",
	    "variant", d->variant == DCQCN_PAPER ? "paper" : "mlx5", "rp_time_reset",
	    (json_int_t)d->rp_time_reset, "rp_byte_reset", (json_int_t)d->rp_byte_reset,
	    "rp_threshold", (json_int_t)d->rp_threshold, "rp_ai_rate", (json_int_t)d->rp_ai_rate,
	    "rp_hai_rate", (json_int_t)d->rp_hai_rate, "rp_max_rate", (json_int_t)d->rp_max_rate,
	    "rp_min_rate", (json_int_t)d->rp_min_rate, "rp_min_dec_fac",
	    (json_int_t)d->rp_min_dec_fac, "rp_rate_to_set_on_first_cnp",
	    (json_int_t)d->rp_rate_to_set_on_first_cnp, "rp_dce_tcp_g", (json_int_t)d->rp_dce_tcp_g,
	    "rp_dce_tcp_rtt", (json_int_t)d->rp_dce_tcp_rtt, "rp_rate_reduce_monitor_period",
	    (json_int_t)d->rp_rate_reduce_monitor_period, "rp_initial_alpha_value",
	    (json_int_t)d->rp_initial_alpha_value, "rp_gd", (json_int_t)d->rp_gd,
	    "rp_clamp_tgt_rate", (json_int_t)d->rp_clamp_tgt_rate, "rp_clamp_tgt_rate_ati",
	    (json_int_t)d->rp_clamp_tgt_rate_ati, "np_min_time_between_cnps",
	    (json_int_t)d->np_min_time_between_cnps, "np_cnp_dscp", (json_int_t)d->np_cnp_dscp,
	    "np_cnp_prio", (json_int_t)d->np_cnp_prio);
	json_object_set_new(dc, "np_cnp_prio_mode", json_integer(d->np_cnp_prio_mode));
	json_object_set_new(dc, "rtt_resp_dscp_valid", json_integer(d->rtt_resp_dscp_valid));
	json_object_set_new(dc, "rtt_resp_dscp", json_integer(d->rtt_resp_dscp));
	json_object_set_new(dc, "np_cnp_mode", json_string(d->np_cnp_window ? "window" : "gap"));
	json_object_set_new(dc, "byte_reset_unit",
			    json_string(d->byte_reset_unit == 64 ? "64B" : "1B"));
	json_object_set_new(dc, "cnp_scope", json_string(d->cnp_per_port ? "port" : "qp"));
	/* the device of a cc_params dump taken, when nic.cc_params.device names one */
	if (s->cfg.cc_device)
		json_object_set_new(dc, "cc_params_device", txt_json(s->cfg.cc_device));
	nic = json_pack(
	    "{s:I,s:i,s:i,s:o,s:b,s:s,s:{s:I,s:I,s:I,s:b,s:f},s:o}", "mtu", (json_int_t)s->nic.mtu,
	    "dscp", s->nic.dscp, "priority", s->nic.priority, "pfc", pfc, "ecn", s->nic.ecn, "cc",
	    s->nic.cc == NIC_CC_DCQCN ? "dcqcn" : "none", "transport", "timeout",
	    (json_int_t)s->nic.timeout_exp, "ack_every", (json_int_t)s->nic.ack_every, "retry_cnt",
	    (json_int_t)s->nic.retry_cnt, "adaptive_retrans", s->nic.adaptive_retrans,
	    "adaptive_first_us", simtime_to_us(s->nic.adaptive_first), "dcqcn",
	    s->nic.cc == NIC_CC_DCQCN ? dc : (json_decref(dc), json_null()));
	if (nic && s->nic.tc_on && json_object_set_new(nic, "tc", eff_nic_tc(&s->nic))) {
		json_decref(nic);
		return NULL;
	}
	return nic;
}

/*
 * With thresholds per link speed (sw_params.by_speed), or a port whose own
 * differ from its switch's (switch.sonic's ports): the ECN and PFC
 * thresholds port @local, whose link runs at @rate_bps, works with.
 */
static void eff_port_speed(json_t *port, const struct sw_params *sw, uint32_t local,
			   uint64_t rate_bps)
{
	struct sw_pfc p;
	struct sw_ecn e;
	json_t *pfc;

	sw_local_pfc(sw, local, rate_bps, &p);
	sw_port_ecn(sw, local, rate_bps, &e);
	pfc = p.dynamic ? json_pack("{s:i}", "dynamic_th", p.dynamic_th)
			: json_pack("{s:o}", "xoff", eff_u64(p.xoff));
	if (pfc)
		json_object_set_new(pfc, p.has_xon ? "xon" : "xon_offset",
				    eff_u64(p.has_xon ? p.xon : p.xon_offset));
	if (pfc && !p.has_xon && p.xon_floor)
		json_object_set_new(pfc, "xon_floor", eff_u64(p.xon_floor));
	json_object_set_new(port, "pfc", pfc);
	json_object_set_new(port, "ecn",
			    json_pack("{s:I,s:I,s:f}", "kmin", (json_int_t)e.kmin, "kmax",
				      (json_int_t)e.kmax, "pmax", e.pmax));
	if (e.enabled != sw->ecn.enabled)
		json_object_set_new(json_object_get(port, "ecn"), "enabled",
				    json_boolean(e.enabled));
}

/* Whether a port's own thresholds (@own, may be NULL) differ from its switch's @sw. */
static int own_thresholds(const struct sw_port_params *own, const struct sw_params *sw)
{
	const struct sw_pfc *a, *b = &sw->pfc;

	if (!own)
		return 0;
	a = &own->pfc;
	return own->has_ecn || a->dynamic != b->dynamic || a->dynamic_th != b->dynamic_th ||
	       a->xoff != b->xoff || a->has_xon != b->has_xon || a->xon != b->xon ||
	       a->xon_offset != b->xon_offset || a->xon_floor != b->xon_floor;
}

/*
 * Per switch port: the link, and per lossless priority the headroom each
 * PG has (given, or what the model computes for that link: pfc_headroom's
 * formula) with the need the cable sets, so users see every port's margin.
 */
static json_t *eff_ports(const struct scenario *s, const struct topo *t)
{
	json_t *ports = json_array();

	for (uint32_t i = 0; ports && i < t->n_ports; i++) {
		const struct topo_port *tp = &t->ports[i];
		const struct topo_link *l = &t->links[tp->link];
		uint32_t local = i - t->nodes[tp->node].first_port;
		const struct sw_params *sw = sw_of(s, tp->node);
		/* a port with settings of its own (switch.sonic's ports) */
		const struct sw_port_params *own =
		    sw->port_params && local < sw->n_port_params ? &sw->port_params[local] : NULL;
		uint8_t lossless = own ? own->lossless : sw->lossless;
		simtime_t resp =
		    s->sw.pfc.response ? s->sw.pfc.response : pfc_response_delay(l->rate_bps);
		uint64_t need = pfc_headroom_need(l->rate_bps, l->delay, resp, s->nic.mtu);
		uint64_t given = sw_local_headroom(sw, local, s->nic.mtu, l);
		json_t *pgs, *port;

		if (t->nodes[tp->node].kind != TOPO_SWITCH)
			continue;
		pgs = json_array();
		for (uint8_t prio = 0; s->sw.pfc.enabled && prio < 8; prio++)
			if ((lossless >> prio) & 1)
				json_array_append_new(pgs,
						      json_pack("{s:i,s:o,s:o}", "priority", prio,
								"headroom", eff_u64(given),
								"headroom_needed", eff_u64(need)));
		port = json_pack("{s:o,s:f,s:f,s:o}", "port", txt_json(tp->name), "rate_gbps",
				 (double)l->rate_bps / 1e9, "cable_m",
				 (double)l->delay / (double)(1000 * SIMTIME_PS_PER_MM),
				 "lossless_pgs", pgs);
		if (port && (sw->n_by_speed || own_thresholds(own, sw)))
			eff_port_speed(port, sw, local, l->rate_bps);
		json_array_append_new(ports, port);
	}
	return ports;
}

/*
 * Each switch's block (eff_switch) in @blocks (t->n_nodes long, NULL for
 * hosts); *@common the switch whose block most switches have (ties: the
 * first in topology order), -1 when none. 0 or -ENOMEM; free @blocks
 * either way (eff_blocks_free).
 */
static int eff_blocks(const struct scenario *s, const struct topo *t, json_t **blocks,
		      int64_t *common)
{
	uint32_t *kind = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*kind));
	uint32_t *count = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*count));
	uint32_t n = 0, best = 0;
	int err = kind && count ? 0 : -ENOMEM;

	*common = -1;
	for (uint32_t u = 0; !err && u < t->n_nodes; u++) {
		uint32_t k = 0;

		if (t->nodes[u].kind != TOPO_SWITCH)
			continue;
		if (!(blocks[u] = eff_switch(sw_of(s, u)))) {
			err = -ENOMEM;
			break;
		}
		while (k < n && !json_equal(blocks[kind[k]], blocks[u]))
			k++;
		if (k == n)
			kind[n++] = u;
		if (++count[k] > best) {
			best = count[k];
			*common = kind[k];
		}
	}
	free(kind);
	free(count);
	return err;
}

static void eff_blocks_free(const struct topo *t, json_t **blocks)
{
	for (uint32_t u = 0; blocks && u < t->n_nodes; u++)
		json_decref(blocks[u]);
	free(blocks);
}

/*
 * With a config per switch (switch.sonic a folder or a mapping, topology
 * kind sonic): "switch" is the settings most switches have, and
 * "switches" each switch whose settings differ from them, by name. Else
 * "switch" is the scenario's, as every switch has them.
 */
json_t *res_effective(const struct scenario *s, const struct topo *t)
{
	json_t **blocks, *sw = NULL, *others, *j;
	int64_t common = -1;

	if (!s->n_switches || !s->sw_node)
		return json_pack("{s:o,s:o,s:o}", "switch", eff_switch(&s->sw), "ports",
				 eff_ports(s, t), "nic", eff_nic(s));
	blocks = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*blocks));
	others = json_object();
	if (blocks && others && !eff_blocks(s, t, blocks, &common))
		sw = common >= 0 ? json_incref(blocks[common]) : eff_switch(&s->sw);
	for (uint32_t u = 0; sw && others && u < t->n_nodes; u++)
		if (blocks[u] && !json_equal(blocks[u], sw) &&
		    txt_json_set_new(others, t->nodes[u].name, json_incref(blocks[u]))) {
			json_decref(others);
			others = NULL;
		}
	eff_blocks_free(t, blocks);
	j = json_pack("{s:o,s:o,s:o}", "switch", sw, "ports", eff_ports(s, t), "nic", eff_nic(s));
	if (j &&
	    (!others || (json_object_size(others) && json_object_set(j, "switches", others)))) {
		json_decref(j);
		j = NULL;
	}
	json_decref(others);
	return j;
}

/* The thresholds the pictures draw, of settings @sw (its port @own's, when not NULL). */
static json_t *thresholds(const struct sw_params *sw, const struct sw_port_params *own)
{
	const struct sw_ecn *e = own && own->has_ecn ? &own->ecn : &sw->ecn;
	const struct sw_pfc *p = own ? &own->pfc : &sw->pfc;

	return json_pack("{s:o,s:o,s:o}", "ecn_kmin", e->enabled ? eff_u64(e->kmin) : json_null(),
			 "ecn_kmax", e->enabled ? eff_u64(e->kmax) : json_null(), "pfc_xoff",
			 sw->pfc.enabled && !p->dynamic ? eff_u64(p->xoff) : json_null());
}

json_t *res_thresholds(const struct scenario *s, const struct topo *t)
{
	json_t *top, *sws = json_object(), *ports = json_object(), *sw_t = NULL;
	const struct sw_params *last = NULL;
	int64_t common = -1;
	json_t **blocks;
	int err = !sws || !ports;

	/* the switches' common settings (as effective.switch), else the scenario's */
	blocks = s->n_switches && s->sw_node ? calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*blocks))
					     : NULL;
	if (s->n_switches && s->sw_node && (!blocks || eff_blocks(s, t, blocks, &common)))
		err = 1;
	eff_blocks_free(t, blocks);
	top = thresholds(common >= 0 ? sw_of(s, (uint32_t)common) : &s->sw, NULL);
	for (uint32_t i = 0; top && !err && i < t->n_ports; i++) {
		const struct topo_port *tp = &t->ports[i];
		const struct sw_params *sw = sw_of(s, tp->node);
		uint32_t local = i - t->nodes[tp->node].first_port;
		const struct sw_port_params *own =
		    sw->port_params && local < sw->n_port_params ? &sw->port_params[local] : NULL;
		json_t *pt;

		if (t->nodes[tp->node].kind != TOPO_SWITCH)
			continue;
		if (sw != last) { /* a switch's ports are in a row */
			json_decref(sw_t);
			sw_t = thresholds(sw, NULL);
			err = !sw_t ||
			      (!json_equal(sw_t, top) &&
			       txt_json_set_new(sws, t->nodes[tp->node].name, json_incref(sw_t)));
			last = sw;
		}
		pt = own_thresholds(own, sw) ? thresholds(sw, own) : NULL;
		if (own_thresholds(own, sw) && !pt)
			err = 1;
		else if (pt && !err && !json_equal(pt, sw_t))
			err = txt_json_set_new(ports, tp->name, json_incref(pt)) != 0;
		json_decref(pt);
	}
	json_decref(sw_t);
	if (top && !err && json_object_size(sws))
		err = json_object_set(top, "switches", sws) != 0;
	if (top && !err && json_object_size(ports))
		err = json_object_set(top, "ports", ports) != 0;
	json_decref(sws);
	json_decref(ports);
	if (err) {
		json_decref(top);
		return NULL;
	}
	return top;
}
