/*
 * The checks of `rocesim check` on the configuration: threshold order, the
 * real configs (cc_params, the job's NCCL env), the lossless path of RDMA
 * traffic and of CNPs from the NIC through the switch's maps, and headroom
 * against cables and buffers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/link.h"
#include "models/switch.h"
#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "sim/readers/mlnx.h"
#include "sim/readers/pod.h"
#include "sim/config/scenario.h"
#include "topologies/cbd.h"

/* ECN kmin < kmax < static XOFF: PFC should not fire before ECN has marked. */
void chk_thresholds(struct chk *c, const struct scenario *s)
{
	const struct sw_pfc *p = &s->sw.pfc;
	const struct sw_ecn *e = &s->sw.ecn;
	char o1[600], o2[600];

	if (p->enabled && p->dynamic && s->sw.lossless && e->enabled) {
		/*
		 * With a dynamic threshold a single congested PG reaches XOFF at
		 * x = a (S - x), x = a S / (1 + a), a = 2^dynamic_th, S the shared
		 * pool (the buffer less reservations, not known here: take the
		 * whole buffer, an upper bound). Below kmax, PFC fires before ECN
		 * has marked every packet.
		 */
		double a = p->dynamic_th >= 0 ? (double)(1 << p->dynamic_th)
					      : 1.0 / (double)(1 << -p->dynamic_th);
		double x = a * (double)s->sw.buffer / (1 + a);

		if ((double)e->kmax < x)
			return;
		chk_add(c, CHK_WARNING, "THRESHOLD_ORDER",
			chk_str("switch.ecn.kmax %llu B; switch.pfc.dynamic_th %d",
				(unsigned long long)e->kmax, p->dynamic_th),
			"one congested priority group reaches XOFF at no more than %.0f B "
			"(2^%d / (1 + 2^%d) of a %llu B buffer), below ECN's kmax: PFC pauses "
			"before DCQCN has slowed the senders",
			x, p->dynamic_th, p->dynamic_th, (unsigned long long)s->sw.buffer);
		chk_loc_key(c, s, "switch.ecn.kmax");
		return;
	}
	if (!p->enabled || p->dynamic || !s->sw.lossless || !e->enabled || e->kmax < p->xoff)
		return;
	chk_add(
	    c, CHK_WARNING, "THRESHOLD_ORDER",
	    chk_str("switch.ecn.kmax %llu B %s >= switch.pfc.xoff %llu B %s",
		    (unsigned long long)e->kmax, chk_origin(s, "switch.ecn.kmax", o1, sizeof(o1)),
		    (unsigned long long)p->xoff, chk_origin(s, "switch.pfc.xoff", o2, sizeof(o2))),
	    "a lossless queue reaches XOFF and pauses its upstream before ECN marks %s; "
	    "keep switch.ecn.kmin < kmax < switch.pfc.xoff so that DCQCN slows the senders "
	    "before PFC stops the link",
	    e->kmin >= p->xoff ? "at all" : "every packet");
	chk_loc_key(c, s, "switch.ecn.kmax");
}

/* ---- real configs and the lossless path ------------------------------------------- */

/* Where a DCQCN field's value came from. */
static char *chk_dcqcn_where(const struct scenario *s, const char *name, unsigned value)
{
	char path[96], o[600];

	snprintf(path, sizeof(path), "nic.dcqcn.%s", name);
	return chk_str("%s %u %s", path, value, chk_origin(s, path, o, sizeof(o)));
}

/* Legal values that do not do what their writer most likely meant. */
static void chk_cc_suspect(struct chk *c, const struct scenario *s)
{
	const struct dcqcn_params *p = &s->nic.dcqcn;

	if (s->nic.cc != NIC_CC_DCQCN)
		return;
	if (p->rp_max_rate && p->rp_min_rate > p->rp_max_rate) {
		char *lo = chk_dcqcn_where(s, "rp_min_rate", p->rp_min_rate);
		char *hi = chk_dcqcn_where(s, "rp_max_rate", p->rp_max_rate);

		chk_add(c, CHK_ERROR, "CC_PARAM_ORDER", chk_str("%s; %s", lo, hi),
			"the lowest rate a cut leaves a QP (%u Mb/s) is above the highest it is "
			"paced at (%u Mb/s): no rate meets both; run refuses it",
			p->rp_min_rate, p->rp_max_rate);
		chk_loc_key(c, s, "nic.dcqcn.rp_min_rate");
		free(lo);
		free(hi);
	}
	if (p->variant != DCQCN_MLX5)
		return;
	if (p->rp_dce_tcp_g < 512) {
		chk_add(
		    c, CHK_WARNING, "CC_PARAM_SUSPECT",
		    chk_dcqcn_where(s, "rp_dce_tcp_g", p->rp_dce_tcp_g),
		    "rp_dce_tcp_g is the 10-bit weight G of alpha's update, alpha = G/1024 "
		    "alpha + (1024 - G)/1024 per CNP period (default 1019, g = 5/1024): %u makes "
		    "g = %u/1024, so alpha jumps to 1 on every CNP and each cut halves the rate; "
		    "a small number here reads like log2(1/g), a reading no source supports",
		    p->rp_dce_tcp_g, 1024 - p->rp_dce_tcp_g);
		chk_loc_key(c, s, "nic.dcqcn.rp_dce_tcp_g");
	}
	if (p->rp_hai_rate < 50 && p->rp_time_reset) {
		/* hyper increase adds rp_hai_rate per timer period: the time to win back
		 * half of the line rate that way */
		double half = (double)c->line_rate_bps / 2 / 1e6;
		double ms = half / (p->rp_hai_rate ? p->rp_hai_rate : 1) * p->rp_time_reset / 1000;

		chk_add(
		    c, CHK_WARNING, "CC_PARAM_SLOW_RECOVERY",
		    chk_dcqcn_where(s, "rp_hai_rate", p->rp_hai_rate),
		    "hyper increase adds %u Mb/s per %u us: winning back %.0f Gb/s after a cut "
		    "takes about %.0f ms at that pace (the mlx5 default is 50 Mb/s); rates stay "
		    "low long after the congestion is gone",
		    p->rp_hai_rate, p->rp_time_reset, half / 1000, ms);
		chk_loc_key(c, s, "nic.dcqcn.rp_hai_rate");
	}
}

/*
 * A dump of several devices (PCI functions): which one the run takes. They
 * agree: their values for every NIC (info); they differ: an error naming
 * both and the names (run refuses it unless nic.cc_params.device picks
 * one). Leaves @cc with the taken device's entries.
 */
static void chk_cc_devices(struct chk *c, const struct scenario *s, struct cc_params *cc)
{
	const char *dev[64], *a, *b;
	uint32_t k = s->topo.nics_per_host ? s->topo.nics_per_host : 1;
	size_t n = cc_params_devices(cc, dev, 64);
	char diff[600], nics[200];

	if (s->cfg.cc_device) {
		cc_params_keep(cc, s->cfg.cc_device);
		return;
	}
	if (n < 2)
		return;
	if (k > 1)
		snprintf(nics, sizeof(nics),
			 " (%u devices for %u NICs a server: device i would be NIC i, but rocesim "
			 "gives all NICs one set of DCQCN parameters)",
			 (unsigned)n, k);
	else
		snprintf(nics, sizeof(nics), " (one NIC a server)");
	if (cc_params_first_differ(cc, &a, &b)) {
		struct cc_diff df;

		cc_params_diff_str(cc, a, b, diff, sizeof(diff));
		cc_params_diff(cc, a, b, &df, 1);
		if (!df.b)
			df.b = df.a;
		chk_add(c, CHK_ERROR, "CC_PARAM_DEVICES",
			chk_str("%s: devices %s and %s", s->cfg.cc_params, a[0] ? a : "(no device)",
				b[0] ? b : "(no device)"),
			"the dump's devices give different DCQCN parameters: %s%s; run refuses it: "
			"pick one with nic.cc_params: {file: F, device: %s} (check takes %s)",
			diff, nics, b[0] ? b : a, a[0] ? a : "the first");
		chk_loc(c, df.b->file, df.b->line, df.b->name);
	} else {
		chk_add(c, CHK_INFO, "CC_PARAM_DEVICES",
			chk_str("%s: %zu devices, %s and %s%s", s->cfg.cc_params, n, dev[0], dev[1],
				n > 2 ? " and more" : ""),
			"the dump's devices give the same DCQCN parameters: every NIC takes them%s",
			nics);
		chk_loc(c, s->cfg.cc_params, 0, "nic.cc_params");
	}
	cc_params_keep(cc, dev[0]);
}

/* Every nic.cc_params entry that is not a cc_params name or out of range. */
static void chk_cc_params(struct chk *c, const struct scenario *s)
{
	struct dcqcn_params scratch = s->nic.dcqcn;
	struct cc_params cc = {0};
	struct diag d = {0};
	char msg[200];

	if (!s->cfg.cc_params || cc_params_read(s->cfg.cc_params, &cc, &d))
		return; /* the loader refused it already */
	chk_cc_devices(c, s, &cc);
	for (size_t i = 0; i < cc.n; i++) {
		const struct cc_entry *e = &cc.v[i];
		int err = scn_dcqcn_param(e->name, e->value, &scratch, msg, sizeof(msg));

		if (err == -ENOENT)
			chk_add(
			    c, CHK_ERROR, "CC_PARAM_UNKNOWN",
			    chk_str("%s:%d: %s", e->file, e->line, e->name),
			    "%s is not an mlx5 cc_params name: writing it does nothing (DCQCN is "
			    "enabled per priority in sysfs ecn/roce_rp and ecn/roce_np, not here)",
			    e->name);
		else if (err)
			chk_add(c, CHK_ERROR, "CC_PARAM_RANGE",
				chk_str("%s:%d: %s %s", e->file, e->line, e->name, e->value),
				"%s: the NIC refuses or truncates it", msg);
		if (err)
			chk_loc(c, e->file, e->line, e->name);
		else if (!strncmp(e->name, "rtt_resp_dscp", 13)) {
			chk_add(c, CHK_INFO, "CC_PARAM_NOT_MODELLED",
				chk_str("%s:%d: %s %s", e->file, e->line, e->name, e->value),
				"read, with no effect in the model: it marks the NIC's answers to "
				"RTT probes, which rocesim does not send (no RTT-based congestion "
				"control)");
			chk_loc(c, e->file, e->line, e->name);
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(cc.v[j].name, e->name) && strcmp(cc.v[j].value, e->value)) {
				chk_add(c, CHK_WARNING, "CC_PARAM_DUPLICATE",
					chk_str("%s:%d: %s %s; %s:%d: %s %s", cc.v[j].file,
						cc.v[j].line, e->name, cc.v[j].value, e->file,
						e->line, e->name, e->value),
					"%s is given twice with two values: the later (%s) is "
					"used, as writing the entries in order would leave it",
					e->name, e->value);
				chk_loc(c, e->file, e->line, e->name);
			}
		}
	}
	cc_params_free(&cc);
	chk_cc_suspect(c, s);
}

/*
 * The switch's class for @dscp, and where that comes from: the scenario's
 * switch.dscp_to_tc entry, the SONiC map's entry (or the map, which sends
 * what it does not name to TC 0), or the default map.
 */
static const char *chk_map_where(const struct scenario *s, uint8_t dscp, char *buf, size_t size)
{
	const struct scn_origin *o;
	uint8_t tc = s->sw.dscp_to_tc[dscp];
	char path[40], at[500], org[600];

	snprintf(path, sizeof(path), "switch.dscp_to_tc.%u", dscp);
	o = scn_origin(s, path);
	if (o && !strcmp(o->path, path))
		snprintf(buf, size, "%s -> TC %u", chk_at(o, at, sizeof(at)), tc);
	else if (o)
		snprintf(buf, size, "%s (names no DSCP %u) -> TC %u", chk_at(o, at, sizeof(at)),
			 dscp, tc);
	else
		snprintf(buf, size, "switch.dscp_to_tc %u -> TC %u %s", dscp, tc,
			 chk_origin(s, path, org, sizeof(org)));
	return buf;
}

/* Each workload's manifest: what NCCL's env says beyond the DSCP. */
static void chk_pods(struct chk *c, const struct scenario *s)
{
	for (uint32_t i = 0; i < s->cfg.n_pods; i++) {
		struct pod_cfg pc = {0};
		struct diag d = {0};
		const struct pod_env *e;

		if (pod_read(s->cfg.pods[i].file, &pc, &d))
			continue; /* the loader refused it already */
		/* ConfigMaps and Secrets not given, containers that disagree */
		for (size_t k = 0; k < pc.n_notes; k++)
			chk_add(c, CHK_WARNING, pc.notes[k].code,
				chk_str("%s:%d %s", pc.file, pc.notes[k].line, pc.notes[k].what),
				"%s", pc.notes[k].msg);
		e = pod_get(&pc, "NCCL_IB_TC");
		if (e && e->value_from)
			chk_add(
			    c, CHK_INFO, "NCCL_TC_AT_RUN_TIME",
			    chk_str("%s:%d NCCL_IB_TC", pc.file, e->line),
			    "comes from a Secret or ConfigMap (valueFrom): its value is known only "
			    "at run time; %s's traffic is checked with its dscp (or nic.dscp) "
			    "instead",
			    s->cfg.pods[i].workload);
		if (e && e->value_from) /* the finding just added */
			chk_loc(c, pc.file, e->line, e->name);
		if ((e = pod_ib_disabled(&pc))) {
			chk_add(c, CHK_ERROR, "NCCL_IB_DISABLED",
				chk_str("%s:%d NCCL_IB_DISABLE=%s", pc.file, e->src_line, e->value),
				"%s", POD_IB_DISABLED_WHY);
			chk_loc(c, pc.file, e->line, e->name);
		}
		e = pod_get(&pc, "NCCL_IB_GID_INDEX");
		if (e && !e->value_from && strtoul(e->value, NULL, 10) < 2 && e->value[0] != '-') {
			chk_add(
			    c, CHK_WARNING, "NCCL_GID_INDEX",
			    chk_str("%s:%d NCCL_IB_GID_INDEX=%s", pc.file, e->src_line, e->value),
			    "GID index %s is usually a link-local (fe80::) GID: its packets are "
			    "not routed beyond the first switch and may be RoCE v1 (no IP, no "
			    "DSCP); the IPv4-mapped RoCE v2 GID is often 3 (show_gids tells, "
			    "per host), or leave it to NCCL (-1)",
			    e->value);
			chk_loc(c, pc.file, e->line, e->name);
		}
		pod_free(&pc);
	}
}

/* Where a data DSCP comes from: "pod.yaml:47 NCCL_IB_TC=104 -> DSCP 26" or the key. */
static const char *chk_dscp_from(const struct scenario *s, const struct scn_dscp *sd, char *buf,
				 size_t size)
{
	const struct scn_origin *o = scn_origin(s, sd->path);
	char org[600], at[500];

	if (o && o->value[0])
		snprintf(buf, size, "%s=%s -> DSCP %u", chk_at(o, at, sizeof(at)), o->value,
			 sd->dscp);
	else
		snprintf(buf, size, "%s %u %s", sd->path, sd->dscp,
			 chk_origin(s, sd->path, org, sizeof(org)));
	return buf;
}

/*
 * CNPs must reach the senders ahead of the data they report: on a class
 * the switch serves strictly before the data's (with dwrr, only
 * switch.cnp_priority is; with strict, a higher class is served first),
 * and never on a lossless one, which PFC pauses with the data.
 */
static void chk_cnp(struct chk *c, const struct scenario *s, uint8_t data_tcs,
		    const struct mlnx_qos *q)
{
	uint8_t dscp = (uint8_t)(s->nic.dcqcn.np_cnp_dscp & 63), tc = s->sw.dscp_to_tc[dscp];
	uint8_t top = data_tcs ? (uint8_t)(31 - __builtin_clz(data_tcs)) : 0;
	/* the NIC's priority for CNPs (np_cnp_prio_mode 1: the data's) */
	unsigned cnp_prio =
	    s->nic.dcqcn.np_cnp_prio_mode ? s->nic.priority : s->nic.dcqcn.np_cnp_prio;
	char nic[800], map[800], o[600], o2[600], m[32];
	int ahead = s->sw.sched == SW_SCHED_DWRR ? tc == s->sw.cnp_priority : tc > top;

	if (s->nic.cc != NIC_CC_DCQCN)
		return;
	snprintf(nic, sizeof(nic), "nic.dcqcn.np_cnp_dscp %u %s", dscp,
		 chk_origin(s, "nic.dcqcn.np_cnp_dscp", o, sizeof(o)));
	chk_map_where(s, dscp, map, sizeof(map));
	if (s->sw.pfc.enabled && ((s->sw.lossless >> tc) & 1)) {
		chk_add(c, CHK_ERROR, "CNP_LOSSLESS",
			chk_str("%s; %s; switch.lossless %s %s", nic, map,
				chk_prios(s->sw.lossless, m, sizeof(m)),
				chk_origin(s, "switch.lossless", o2, sizeof(o2))),
			"CNPs share a lossless, pausable class: when PFC pauses it, the congestion "
			"notifications that would slow the senders wait behind the pause");
		chk_loc_key(c, s, "nic.dcqcn.np_cnp_dscp");
	} else if (!ahead) {
		chk_add(
		    c, CHK_ERROR, "CNP_CLASS",
		    chk_str("%s; %s; switch.scheduler %s %s, switch.cnp_priority %u %s", nic, map,
			    s->sw.sched == SW_SCHED_DWRR ? "dwrr" : "strict",
			    chk_origin(s, "switch.scheduler", o, sizeof(o)), s->sw.cnp_priority,
			    chk_origin(s, "switch.cnp_priority", o2, sizeof(o2))),
		    "CNPs land on TC %u, which the switch does not serve ahead of the RDMA data "
		    "(TC %u)%s: under congestion the notifications wait behind the very queues "
		    "they report and DCQCN slows the senders late; map DSCP %u to TC %u (or set "
		    "np_cnp_dscp to the DSCP the switch serves strictly)",
		    tc, top,
		    s->sw.sched == SW_SCHED_DWRR ? " (with dwrr only switch.cnp_priority is strict)"
						 : "",
		    dscp, s->sw.cnp_priority);
		chk_loc_key(c, s, "nic.dcqcn.np_cnp_dscp");
	}
	if (cnp_prio != s->sw.cnp_priority && s->nic.dcqcn.np_cnp_prio_mode) {
		chk_add(c, CHK_WARNING, "CNP_PRIORITY",
			chk_str("nic.dcqcn.np_cnp_prio_mode 1 (priority %u, the data's); "
				"switch.cnp_priority %u",
				cnp_prio, s->sw.cnp_priority),
			"the NIC sends each CNP on the priority of the data it answers, not on "
			"the one the switch serves strictly (np_cnp_prio %u is not used)",
			s->nic.dcqcn.np_cnp_prio);
		chk_loc_key(c, s, "nic.dcqcn.np_cnp_prio_mode");
	} else if (cnp_prio != s->sw.cnp_priority) {
		chk_add(c, CHK_WARNING, "CNP_PRIORITY",
			chk_str("nic.dcqcn.np_cnp_prio %u; switch.cnp_priority %u",
				s->nic.dcqcn.np_cnp_prio, s->sw.cnp_priority),
			"the NIC sends CNPs on another priority than the one the switch serves "
			"strictly");
		chk_loc_key(c, s, "nic.dcqcn.np_cnp_prio");
	}
	if (q && q->has_tc) {
		uint8_t cnp_tc = q->prio_tc[cnp_prio & 7];

		if (!strcmp(q->tsa[cnp_tc], "ets")) {
			snprintf(m, sizeof(m), "tc %u", cnp_tc);
			chk_add(c, CHK_WARNING, "CNP_NOT_STRICT",
				chk_str("%s:%d tc %u", q->file, q->tc_line[cnp_tc], cnp_tc),
				"CNPs (priority %u) share an ETS class with data: they wait behind "
				"it, and DCQCN reacts late; give them a strict class",
				cnp_prio);
			chk_loc(c, q->file, q->tc_line[cnp_tc], m);
		}
	}
}

/* NIC PFC findings: at mlnx_qos's "enabled" line when it gave PFC, else nic.pfc. */
static void chk_loc_nic_pfc(struct chk *c, const struct scenario *s, const struct mlnx_qos *q)
{
	if (q && q->has_pfc)
		chk_loc(c, q->file, q->pfc_line, "PFC configuration enabled");
	else
		chk_loc_key(c, s, "nic.pfc");
}

/*
 * The DSCP of RDMA traffic must lead to one lossless class everywhere: the
 * NIC's dscp2prio gives the priority it sends and pauses on, the switch's
 * DSCP_TO_TC_MAP the class (PG and queue) it buffers and pauses with. Each
 * DSCP the workloads use (a pod's NCCL_IB_TC, a workload's dscp, nic.dscp)
 * is followed.
 */
static void chk_lossless_path(struct chk *c, const struct scenario *s)
{
	struct mlnx_qos q;
	struct diag d = {0};
	struct scn_dscp *dscps = NULL;
	size_t n_dscps = 0;
	int have_qos = s->cfg.mlnx_qos && !mlnx_qos_read(s->cfg.mlnx_qos, &q, &d);
	uint8_t used = 0, data_tcs = 0, pfc_off = 0;
	char from[900], sw[800], nic[400], m[32];

	chk_pods(c, s);
	if (scn_data_dscps(s, &dscps, &n_dscps)) {
		c->oom = 1;
		return;
	}
	for (size_t i = 0; i < n_dscps; i++) {
		uint8_t dscp = dscps[i].dscp, prio = s->nic.dscp2prio[dscp],
			tc = s->sw.dscp_to_tc[dscp];

		chk_dscp_from(s, &dscps[i], from, sizeof(from));
		chk_map_where(s, dscp, sw, sizeof(sw));
		if (have_qos && q.has_trust && q.trust_dscp && ((q.dscp_given >> dscp) & 1))
			snprintf(nic, sizeof(nic), "%s:%d dscp2prio %u -> priority %u", q.file,
				 q.dscp_line[dscp], dscp, prio);
		else
			snprintf(nic, sizeof(nic), "NIC dscp2prio %u -> priority %u", dscp, prio);
		if (s->sw.pfc.enabled && !((s->sw.lossless >> tc) & 1)) {
			chk_add(
			    c, CHK_ERROR, "DSCP_NOT_LOSSLESS", chk_str("%s; %s", from, sw),
			    "RDMA traffic lands on lossy TC %u on the switch; PFC is enabled on "
			    "%s: it is tail-dropped under congestion and RoCE pays a "
			    "retransmission timeout for each loss; map DSCP %u to a lossless class",
			    tc, chk_prios(s->sw.lossless, m, sizeof(m)), dscp);
			chk_loc_key(c, s, dscps[i].path);
		}
		if (prio != tc) {
			chk_add(
			    c, CHK_ERROR, "PRIORITY_MISMATCH", chk_str("%s; %s; %s", from, nic, sw),
			    "the NIC sends DSCP %u on priority %u but the switch classes it as %u: "
			    "the switch's PAUSE for priority %u does not stop it, so its headroom "
			    "overflows",
			    dscp, prio, tc, tc);
			chk_loc_key(c, s, dscps[i].path);
		}
		if (!((s->nic.pfc >> prio) & 1) && !((pfc_off >> prio) & 1)) {
			chk_add(c, CHK_ERROR, "NIC_PFC_OFF",
				have_qos && q.has_pfc
				    ? chk_str("%s:%d PFC enabled", q.file, q.pfc_line)
				    : chk_str("nic.pfc"),
				"PFC is off on priority %u, the one RDMA data uses: the NIC "
				"ignores the "
				"switch's PAUSE and lossless packets are dropped",
				prio);
			chk_loc_nic_pfc(c, s, have_qos ? &q : NULL);
		}
		if (!((s->nic.pfc >> prio) & 1))
			pfc_off |= (uint8_t)(1u << prio);
		used |= (uint8_t)(1u << prio);
		data_tcs |= (uint8_t)(1u << tc);
	}
	free(dscps);
	if (have_qos && q.has_trust && !q.trust_dscp) {
		chk_add(c, CHK_WARNING, "NIC_TRUST_PCP", chk_str("%s:%d", q.file, q.trust_line),
			"the NIC trusts PCP, not DSCP: NCCL_IB_TC and the switch's DSCP map do not "
			"decide the priority the NIC sends and pauses on (mlnx_qos --trust dscp)");
		chk_loc(c, q.file, q.trust_line, "Priority trust state");
	}
	if (s->nic.pfc & (uint8_t)~used) {
		chk_add(c, CHK_WARNING, "PFC_EXTRA_PRIORITY",
			have_qos && q.has_pfc ? chk_str("%s:%d PFC enabled", q.file, q.pfc_line)
					      : chk_str("nic.pfc"),
			"PFC is enabled on priorities %s that no RDMA traffic uses: each one is a "
			"class that can be paused, spread a storm and close a deadlock for nothing",
			chk_prios(s->nic.pfc & (uint8_t)~used, m, sizeof(m)));
		chk_loc_nic_pfc(c, s, have_qos ? &q : NULL);
	}
	if (s->sw.pfc.enabled && (s->sw.lossless & (uint8_t)~data_tcs)) {
		/* each list in its own buffer: the arguments are evaluated in any order */
		chk_add(
		    c, CHK_WARNING, "PFC_EXTRA_PRIORITY",
		    chk_str("switch.lossless %s", chk_prios(s->sw.lossless, nic, sizeof(nic))),
		    "the switch keeps headroom and sends PAUSE for classes %s that RDMA traffic "
		    "(TC %s) does not use: buffer reserved for nothing, and more classes that "
		    "can be paused",
		    chk_prios(s->sw.lossless & (uint8_t)~data_tcs, m, sizeof(m)),
		    chk_prios(data_tcs, from, sizeof(from)));
		chk_loc_key(c, s, "switch.lossless");
	}
	chk_cnp(c, s, data_tcs, have_qos ? &q : NULL);
}

/*
 * What `run` refuses when a switch is built: reserved headroom (and
 * pg_min, or the headroom pool) leaving none of the buffer to share. The
 * model decides (sw_buffer_plan) and words it; the first switch run would
 * stop at is reported.
 */
static void chk_headroom_buffer(struct chk *c, const struct scenario *s, const struct topo *t)
{
	char o1[300], o2[300], what[400];
	struct diag d = {0};

	for (uint32_t u = 0; u < t->n_nodes; u++) {
		if (t->nodes[u].kind != TOPO_SWITCH || (c->node_in && !c->node_in[u]) ||
		    !sw_buffer_plan(&s->sw, s->nic.mtu, t, u, NULL, &d))
			continue;
		if (s->sw.headroom_pool)
			snprintf(what, sizeof(what), "switch.buffer.pg_min %llu B %s",
				 (unsigned long long)s->sw.pg_min,
				 chk_origin(s, "switch.buffer.pg_min", o1, sizeof(o1)));
		else if (s->sw.pfc.headroom)
			snprintf(what, sizeof(what), "switch.pfc.headroom %llu B %s",
				 (unsigned long long)s->sw.pfc.headroom,
				 chk_origin(s, "switch.pfc.headroom", o1, sizeof(o1)));
		else
			snprintf(what, sizeof(what), "switch.pfc.headroom computed per port");
		chk_add(c, CHK_ERROR, "HEADROOM_BUFFER",
			chk_str("%s; switch.buffer.size %llu B %s", what,
				(unsigned long long)s->sw.buffer,
				chk_origin(s, "switch.buffer.size", o2, sizeof(o2))),
			"%s", d.msg);
		chk_loc_key(c, s,
			    s->sw.headroom_pool	 ? "switch.buffer.pg_min"
			    : s->sw.pfc.headroom ? "switch.pfc.headroom"
						 : "switch.buffer.size");
		return;
	}
}

/*
 * Whether global port @port of node @u is a switch port these checks look
 * at (c->node_in) that has the switch's headroom and no port of
 * switch.sonic stands for (check_sonic.c checks those by name).
 */
static int switch_headroom_at(const struct chk *c, const struct scenario *s, const struct topo *t,
			      uint32_t u, uint32_t port)
{
	uint32_t local = port - t->nodes[u].first_port;
	const struct sw_port_params *own;

	if (t->nodes[u].kind != TOPO_SWITCH || (c->node_in && !c->node_in[u]) ||
	    local < s->sonic_ports)
		return 0;
	if (!s->sw.port_params || local >= s->sw.n_port_params)
		return 1;
	own = &s->sw.port_params[local];
	return !own->pfc.no_headroom && own->pfc.headroom == s->sw.pfc.headroom;
}

/* Headroom against the longest cable, speed and MTU (pfc_headroom_need). */
static void chk_headroom(struct chk *c, const struct scenario *s, const struct topo *t)
{
	uint64_t need = 0, have = s->sw.pfc.headroom;
	const struct topo_link *worst = NULL;
	char o[600];

	chk_headroom_buffer(c, s, t);
	if (!s->sw.pfc.enabled || !s->sw.lossless || !have)
		return;
	for (uint32_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = &t->links[i];
		uint64_t b;

		/* a link with a port of these switches that has the switch's headroom */
		if (!switch_headroom_at(c, s, t, l->a, l->port_a) &&
		    !switch_headroom_at(c, s, t, l->b, l->port_b))
			continue;
		b = pfc_headroom_need(l->rate_bps, l->delay,
				      s->sw.pfc.response ? s->sw.pfc.response
							 : pfc_response_delay(l->rate_bps),
				      s->nic.mtu);
		if (b > need) {
			need = b;
			worst = l;
		}
	}
	if (!worst || have >= need)
		return;
	chk_add(c, CHK_ERROR, "HEADROOM_SHORT",
		chk_str("switch.pfc.headroom %llu B %s; link %s %.0f Gb/s %.0f m",
			(unsigned long long)have,
			chk_origin(s, "switch.pfc.headroom", o, sizeof(o)), worst->name,
			(double)worst->rate_bps / 1e9,
			(double)worst->delay / (double)(1000 * SIMTIME_PS_PER_MM)),
		"needs %llu B: 3 frames of MTU %u, the PAUSE, the peer's response time and "
		"two propagation delays at line rate (SONiC's formula without the gearbox "
		"and cell terms, plus the frame a PAUSE cannot preempt); after XOFF more "
		"than the headroom arrives and lossless packets are dropped",
		(unsigned long long)need, s->nic.mtu);
	chk_loc_key(c, s, "switch.pfc.headroom");
}

/* Every check of the configs; see the usage text. */
/*
 * Which readings of the cc_params the run takes where the sources disagree
 * (docs/models.md, "DCQCN readings"): said, since they change what DCQCN does
 * more than most values (on the 8:1 incast, the peak queue 2.7 MB with
 * CNPs spaced per QP in 64-byte units, 20.5 MB per port in bytes).
 */
static void chk_dcqcn_readings(struct chk *c, const struct scenario *s)
{
	const struct dcqcn_params *p = &s->nic.dcqcn;

	if (s->nic.cc != NIC_CC_DCQCN || p->variant != DCQCN_MLX5)
		return;
	chk_add(c, CHK_INFO, "DCQCN_READINGS",
		chk_str("nic.dcqcn.cnp_scope %s, nic.dcqcn.byte_reset_unit %s",
			p->cnp_per_port ? "port" : "qp", p->byte_reset_unit == 64 ? "64B" : "1B"),
		"np_min_time_between_cnps (%u us) spaces the CNPs of %s, and rp_byte_reset (%u) "
		"counts %s; NVIDIA's mlxconfig text reads them per port and in bytes, the DCQCN "
		"paper spaces CNPs per flow and an open implementation counts 64-byte units: "
		"the other reading can change the queue and the PAUSE count several-fold, "
		"so run both where it matters",
		p->np_min_time_between_cnps, p->cnp_per_port ? "the whole port" : "each QP",
		p->rp_byte_reset, p->byte_reset_unit == 64 ? "64-byte units" : "bytes");
	chk_loc_key(c, s, "nic.dcqcn.cnp_scope");
}

void chk_configs(struct chk *c, const struct scenario *s, const struct topo *t)
{
	chk_cc_params(c, s);
	chk_dcqcn_readings(c, s);
	chk_lossless_path(c, s);
	chk_headroom(c, s, t);
	chk_buffer(c, s, t);
	chk_sonic(c, s, t);
}
