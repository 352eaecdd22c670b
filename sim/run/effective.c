/*
 * The effective parameters of a scenario: what the switches, their ports
 * and the NICs run with once every default, real config and override is
 * applied. `rocesim check --json` prints them, and results.json keeps them
 * as "effective" so that a result says what produced it.
 */
#include <jansson.h>
#include <stdio.h>

#include "models/link.h"
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

/* The switch parameters the scenario resolved to. */
static json_t *eff_switch(const struct scenario *s)
{
	const struct sw_pfc *p = &s->sw.pfc;
	const struct sw_ecn *e = &s->sw.ecn;
	static const char *const actions[] = {"drop", "forward", "alert"};
	json_t *pfc, *map, *sw, *wd, *weights;

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
			: json_object_set_new(pfc, "xon_offset", eff_u64(p->xon_offset)))) {
		json_decref(pfc);
		return NULL;
	}
	map = json_object();
	for (int d = 0; map && d < 64; d++) {
		char key[4];

		if (!s->sw.dscp_to_tc[d])
			continue;
		snprintf(key, sizeof(key), "%d", d);
		if (json_object_set_new(map, key, json_integer(s->sw.dscp_to_tc[d]))) {
			json_decref(map);
			map = NULL;
		}
	}
	wd = s->sw.wd.enabled
		 ? json_pack("{s:f,s:f,s:s}", "detection_us", simtime_to_us(s->sw.wd.detection),
			     "restoration_us", simtime_to_us(s->sw.wd.restoration), "action",
			     actions[s->sw.wd.action])
		 : json_null();
	weights = json_array();
	for (int i = 0; weights && i < 8; i++)
		if (json_array_append_new(weights, json_integer(s->sw.weights[i]))) {
			json_decref(weights);
			weights = NULL;
		}
	sw = json_pack(
	    "{s:{s:I,s:I,s:I,s:I},s:o,s:i,s:o,s:o,s:{s:b,s:I,s:I,s:f,s:s},s:s,s:o,s:o}", "buffer",
	    "size", (json_int_t)s->sw.buffer, "per_port", (json_int_t)s->sw.per_port, "pg_min",
	    (json_int_t)s->sw.pg_min, "headroom_pool", (json_int_t)s->sw.headroom_pool, "lossless",
	    res_prio_array(s->sw.lossless), "cnp_priority", s->sw.cnp_priority, "dscp_to_tc", map,
	    "pfc", pfc, "ecn", "enabled", e->enabled, "kmin", (json_int_t)e->kmin, "kmax",
	    (json_int_t)e->kmax, "pmax", e->pmax, "mark", e->at_enqueue ? "enqueue" : "dequeue",
	    "scheduler", s->sw.sched == SW_SCHED_DWRR ? "dwrr" : "strict", "weights", weights,
	    "watchdog", wd);
	return sw;
}

/* The NIC parameters, with the DCQCN ones under their cc_params names. */
static json_t *eff_nic(const struct scenario *s)
{
	const struct dcqcn_params *d = &s->nic.dcqcn;
	json_t *pfc = json_array(), *dc;

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
		json_object_set_new(dc, "cc_params_device", json_string(s->cfg.cc_device));
	return json_pack("{s:I,s:i,s:i,s:o,s:b,s:s,s:{s:I,s:I,s:I,s:b,s:f},s:o}", "mtu",
			 (json_int_t)s->nic.mtu, "dscp", s->nic.dscp, "priority", s->nic.priority,
			 "pfc", pfc, "ecn", s->nic.ecn, "cc",
			 s->nic.cc == NIC_CC_DCQCN ? "dcqcn" : "none", "transport", "timeout",
			 (json_int_t)s->nic.timeout_exp, "ack_every", (json_int_t)s->nic.ack_every,
			 "retry_cnt", (json_int_t)s->nic.retry_cnt, "adaptive_retrans",
			 s->nic.adaptive_retrans, "adaptive_first_us",
			 simtime_to_us(s->nic.adaptive_first), "dcqcn",
			 s->nic.cc == NIC_CC_DCQCN ? dc : (json_decref(dc), json_null()));
}

/*
 * With thresholds per link speed (sw_params.by_speed): the ECN and PFC
 * thresholds port @local, whose link runs at @rate_bps, works with.
 */
static void eff_port_speed(json_t *port, const struct sw_params *sw, uint32_t local,
			   uint64_t rate_bps)
{
	struct sw_pfc p;
	struct sw_ecn e;
	json_t *pfc;

	sw_local_pfc(sw, local, rate_bps, &p);
	sw_local_ecn(sw, rate_bps, &e);
	pfc = p.dynamic ? json_pack("{s:i}", "dynamic_th", p.dynamic_th)
			: json_pack("{s:o}", "xoff", eff_u64(p.xoff));
	if (pfc)
		json_object_set_new(pfc, p.has_xon ? "xon" : "xon_offset",
				    eff_u64(p.has_xon ? p.xon : p.xon_offset));
	json_object_set_new(port, "pfc", pfc);
	json_object_set_new(port, "ecn",
			    json_pack("{s:I,s:I,s:f}", "kmin", (json_int_t)e.kmin, "kmax",
				      (json_int_t)e.kmax, "pmax", e.pmax));
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
		const struct sw_params *sw =
		    s->sw_node && s->sw_node[tp->node] ? s->sw_node[tp->node] : &s->sw;
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
		port = json_pack("{s:s,s:f,s:f,s:o}", "port", tp->name, "rate_gbps",
				 (double)l->rate_bps / 1e9, "cable_m",
				 (double)l->delay / (double)(1000 * SIMTIME_PS_PER_MM),
				 "lossless_pgs", pgs);
		if (port && sw->n_by_speed)
			eff_port_speed(port, sw, local, l->rate_bps);
		json_array_append_new(ports, port);
	}
	return ports;
}

json_t *res_effective(const struct scenario *s, const struct topo *t)
{
	return json_pack("{s:o,s:o,s:o}", "switch", eff_switch(s), "ports", eff_ports(s, t), "nic",
			 eff_nic(s));
}
