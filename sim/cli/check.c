/*
 * rocesim check: static analysis of a scenario, without simulating. Loads
 * the scenario and its topology as run does, takes down the links given
 * with --fail and those of link_down faults at time 0, and reports
 * findings (severity, code, where, message; DESIGN.md "rocesim check"):
 * the cyclic buffer dependencies of the lossless priorities in the routes
 * of the workload or of all host pairs (topologies/cbd.h), and the first
 * threshold-order rules. People get one line per finding and a summary;
 * --json prints the findings, the effective parameters and the deadlock
 * analysis. Exit 1 when a finding is an error, 2 on bad input or usage.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/link.h"
#include "models/switch.h"
#include "topologies/cbd.h"
#include "sim/cli/cli.h"
#include "sim/config/mlnx.h"
#include "sim/config/pod.h"
#include "sim/config/scenario.h"
#include "sim/config/sonic.h"

#define CHK_MAX_CYCLES 10
#define CHK_MAX_PAIRS 8 /* unreachable pairs listed by name */

static const char chk_usage[] =
    "usage: rocesim check SCENARIO.yaml [--json] [--fail LINK]... [--set KEY=VALUE]...\n"
    "                     [--all-pairs] [--max-cycles N]\n"
    "\n"
    "Analyses SCENARIO.yaml without simulating it and prints its findings:\n"
    "  - cyclic buffer dependencies (CBD_CYCLE, an error): ingress buffers of a\n"
    "    lossless priority whose traffic waits on each other in a loop, where a\n"
    "    PFC deadlock can form;\n"
    "  - threshold order (THRESHOLD_ORDER, a warning): ECN kmax not below a\n"
    "    static PFC xoff, or the XOFF a dynamic_th gives one congested group;\n"
    "  - the job's NCCL env (each workload's pod): NCCL_IB_DISABLED (error),\n"
    "    NCCL_GID_INDEX (warning);\n"
    "  - the lossless path of RDMA traffic, from each workload's NCCL_IB_TC\n"
    "    (pod), dscp or nic.dscp through the NIC's dscp2prio (nic.mlnx_qos) to\n"
    "    the switch's DSCP map (switch.sonic): DSCP_NOT_LOSSLESS,\n"
    "    PRIORITY_MISMATCH, NIC_PFC_OFF (errors), NIC_TRUST_PCP,\n"
    "    PFC_EXTRA_PRIORITY (warnings);\n"
    "  - CNPs (nic.dcqcn.np_cnp_dscp through the switch's map): CNP_LOSSLESS,\n"
    "    CNP_CLASS (a class not served ahead of the data) (errors),\n"
    "    CNP_PRIORITY, CNP_NOT_STRICT (warnings);\n"
    "  - nic.cc_params entries that are no cc_params name or out of range\n"
    "    (CC_PARAM_UNKNOWN, CC_PARAM_RANGE, errors), and legal values that do\n"
    "    not do what they look like (CC_PARAM_SUSPECT, CC_PARAM_SLOW_RECOVERY);\n"
    "  - headroom shorter than the longest cable needs (HEADROOM_SHORT, error),\n"
    "    and headroom that leaves none of a switch's buffer to share\n"
    "    (HEADROOM_BUFFER, error: run refuses it in the same words);\n"
    "  - source-destination pairs no route joins over the links that are up\n"
    "    (UNREACHABLE, an error: a partition).\n"
    "\n"
    "The routes analysed are those of the scenario's workload by default (each\n"
    "flow on the traffic class switch.dscp_to_tc gives its DSCP); --all-pairs\n"
    "takes every ordered pair of hosts on every lossless priority instead: the\n"
    "fabric, whatever runs on it. Links named with --fail, and the links of\n"
    "faults of kind link_down at 0 (at: 0us), are down: the routes avoid them,\n"
    "as after convergence. Later link_down faults are only mentioned.\n"
    "\n"
    "options:\n"
    "  --json            print findings, effective parameters and the deadlock\n"
    "                    analysis as JSON on stdout\n"
    "  --fail LINK       take a link down, e.g. --fail leaf0-spine1 (repeatable)\n"
    "  --set KEY=VALUE   override a scenario key, as run does (repeatable)\n"
    "  --all-pairs       analyse every pair of hosts instead of the workload\n"
    "  --max-cycles N    list at most N cycles per priority, shortest first\n"
    "                    (default 10)\n"
    "\n"
    "exit codes: 0 no finding is an error; 1 a finding is an error (a cycle);\n"
    "            2 bad input or usage\n";

enum chk_severity { CHK_ERROR, CHK_WARNING, CHK_INFO };

static const char *const chk_severity_name[] = {"error", "warning", "info"};

struct chk_finding {
	enum chk_severity severity;
	const char *code;
	char *where, *message;
};

struct chk_args {
	const char *scenario;
	const char **sets, **fails;
	size_t n_sets, n_fails;
	int json, all_pairs;
	uint32_t max_cycles;
};

/* What one check produces: the findings and the deadlock analysis. */
struct chk {
	uint64_t line_rate_bps; /* the fastest NIC link */
	struct chk_finding *f;
	size_t n;
	int oom;
	struct cbd_result cbd;
	uint32_t *failed; /* link indices taken down */
	uint32_t n_failed;
};

static char *chk_vfmt(const char *fmt, va_list ap)
{
	va_list copy;
	char *s;
	int len;

	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0)
		return NULL;
	s = malloc((size_t)len + 1);
	if (s)
		vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

/* Add a finding; @where is taken as it is, the message is formatted. */
static void chk_add(struct chk *c, enum chk_severity sev, const char *code, char *where,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void chk_add(struct chk *c, enum chk_severity sev, const char *code, char *where,
		    const char *fmt, ...)
{
	struct chk_finding *f;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = chk_vfmt(fmt, ap);
	va_end(ap);
	f = realloc(c->f, (c->n + 1) * sizeof(*f));
	if (!where || !msg || !f) {
		free(where);
		free(msg);
		if (f)
			c->f = f;
		c->oom = 1;
		return;
	}
	c->f = f;
	c->f[c->n++] = (struct chk_finding){sev, code, where, msg};
}

static char *chk_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *chk_str(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = chk_vfmt(fmt, ap);
	va_end(ap);
	return s;
}

static void chk_free(struct chk *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].where);
		free(c->f[i].message);
	}
	free(c->f);
	free(c->failed);
	cbd_result_free(&c->cbd);
}

/* "file:line key" of a value a real config gave ("file key" without a line). */
static const char *chk_at(const struct scn_origin *o, char *buf, size_t size)
{
	if (o->line > 0)
		snprintf(buf, size, "%s:%d %s", o->file, o->line, o->key);
	else
		snprintf(buf, size, "%s %s", o->file, o->key);
	return buf;
}

/*
 * Where a key's value comes from: "(file:line)" of the scenario, "(--set)",
 * "(config:line KEY)" of the real config that gave it, or "(default)".
 */
static const char *chk_origin(const struct scenario *s, const char *path, char *buf, size_t size)
{
	const struct scn_origin *o = scn_origin(s, path);
	struct diag d = {0};
	char at[500];

	if (o) {
		snprintf(buf, size, "(%s)", chk_at(o, at, sizeof(at)));
		return buf;
	}
	snprintf(d.path, sizeof(d.path), "%s", path);
	scn_locate(s, &d);
	if (!strcmp(d.file, "--set"))
		snprintf(buf, size, "(--set)");
	else if (d.line > 0)
		snprintf(buf, size, "(%s:%d)", d.file, d.line);
	else
		snprintf(buf, size, "(default)");
	return buf;
}

/* "3,4" for a priority mask. */
static const char *chk_prios(uint8_t mask, char *buf, size_t size)
{
	return cli_prio_list(mask, ",", "none", buf, size);
}

/* ECN kmin < kmax < static XOFF: PFC should not fire before ECN has marked. */
static void chk_thresholds(struct chk *c, const struct scenario *s)
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

		if ((double)e->kmax >= x)
			chk_add(c, CHK_WARNING, "THRESHOLD_ORDER",
				chk_str("switch.ecn.kmax %llu B; switch.pfc.dynamic_th %d",
					(unsigned long long)e->kmax, p->dynamic_th),
				"one congested priority group reaches XOFF at no more than %.0f B "
				"(2^%d / (1 + 2^%d) of a %llu B buffer), below ECN's kmax: PFC pauses "
				"before DCQCN has slowed the senders",
				x, p->dynamic_th, p->dynamic_th, (unsigned long long)s->sw.buffer);
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

	if (s->nic.cc != NIC_CC_DCQCN || p->variant != DCQCN_MLX5)
		return;
	if (p->rp_dce_tcp_g < 512)
		chk_add(c, CHK_WARNING, "CC_PARAM_SUSPECT",
			chk_dcqcn_where(s, "rp_dce_tcp_g", p->rp_dce_tcp_g),
			"rp_dce_tcp_g is the 10-bit weight G of alpha's update, alpha = G/1024 "
			"alpha + (1024 - G)/1024 per CNP period (default 1019, g = 5/1024): %u makes "
			"g = %u/1024, so alpha jumps to 1 on every CNP and each cut halves the rate; "
			"a small number here reads like log2(1/g), a reading no source supports",
			p->rp_dce_tcp_g, 1024 - p->rp_dce_tcp_g);
	if (p->rp_hai_rate < 50 && p->rp_time_reset) {
		/* hyper increase adds rp_hai_rate per timer period: the time to win back
		 * half of the line rate that way */
		double half = (double)c->line_rate_bps / 2 / 1e6;
		double ms = half / (p->rp_hai_rate ? p->rp_hai_rate : 1) * p->rp_time_reset / 1000;

		chk_add(c, CHK_WARNING, "CC_PARAM_SLOW_RECOVERY",
			chk_dcqcn_where(s, "rp_hai_rate", p->rp_hai_rate),
			"hyper increase adds %u Mb/s per %u us: winning back %.0f Gb/s after a cut "
			"takes about %.0f ms at that pace (the mlx5 default is 50 Mb/s); rates stay "
			"low long after the congestion is gone",
			p->rp_hai_rate, p->rp_time_reset, half / 1000, ms);
	}
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
	for (size_t i = 0; i < cc.n; i++) {
		const struct cc_entry *e = &cc.v[i];
		int err = scn_dcqcn_param(e->name, e->value, &scratch, msg, sizeof(msg));

		if (err == -ENOENT)
			chk_add(c, CHK_ERROR, "CC_PARAM_UNKNOWN",
				chk_str("%s:%d: %s", e->file, e->line, e->name),
				"%s is not an mlx5 cc_params name: writing it does nothing (DCQCN is "
				"enabled per priority in sysfs ecn/roce_rp and ecn/roce_np, not here)",
				e->name);
		else if (err)
			chk_add(c, CHK_ERROR, "CC_PARAM_RANGE",
				chk_str("%s:%d: %s %s", e->file, e->line, e->name, e->value),
				"%s: the NIC refuses or truncates it", msg);
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
		e = pod_get(&pc, "NCCL_IB_TC");
		if (e && e->value_from)
			chk_add(
			    c, CHK_INFO, "NCCL_TC_AT_RUN_TIME",
			    chk_str("%s:%d NCCL_IB_TC", pc.file, e->line),
			    "comes from a Secret or ConfigMap (valueFrom): its value is known only "
			    "at run time; %s's traffic is checked with its dscp (or nic.dscp) "
			    "instead",
			    s->cfg.pods[i].workload);
		if ((e = pod_ib_disabled(&pc)))
			chk_add(c, CHK_ERROR, "NCCL_IB_DISABLED",
				chk_str("%s:%d NCCL_IB_DISABLE=%s", pc.file, e->line, e->value),
				"%s", POD_IB_DISABLED_WHY);
		e = pod_get(&pc, "NCCL_IB_GID_INDEX");
		if (e && !e->value_from && strtoul(e->value, NULL, 10) < 2 && e->value[0] != '-')
			chk_add(c, CHK_WARNING, "NCCL_GID_INDEX",
				chk_str("%s:%d NCCL_IB_GID_INDEX=%s", pc.file, e->line, e->value),
				"GID index %s is usually a link-local (fe80::) GID: its packets are "
				"not routed beyond the first switch and may be RoCE v1 (no IP, no "
				"DSCP); the IPv4-mapped RoCE v2 GID is often 3 (show_gids tells, "
				"per host), or leave it to NCCL (-1)",
				e->value);
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
	char nic[800], map[800], o[600], o2[600], m[32];
	int ahead = s->sw.sched == SW_SCHED_DWRR ? tc == s->sw.cnp_priority : tc > top;

	if (s->nic.cc != NIC_CC_DCQCN)
		return;
	snprintf(nic, sizeof(nic), "nic.dcqcn.np_cnp_dscp %u %s", dscp,
		 chk_origin(s, "nic.dcqcn.np_cnp_dscp", o, sizeof(o)));
	chk_map_where(s, dscp, map, sizeof(map));
	if (s->sw.pfc.enabled && ((s->sw.lossless >> tc) & 1))
		chk_add(c, CHK_ERROR, "CNP_LOSSLESS",
			chk_str("%s; %s; switch.lossless %s %s", nic, map,
				chk_prios(s->sw.lossless, m, sizeof(m)),
				chk_origin(s, "switch.lossless", o2, sizeof(o2))),
			"CNPs share a lossless, pausable class: when PFC pauses it, the congestion "
			"notifications that would slow the senders wait behind the pause");
	else if (!ahead)
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
		    s->sw.sched == SW_SCHED_DWRR
			? " (with dwrr only switch.cnp_priority is strict)"
			: "",
		    dscp, s->sw.cnp_priority);
	if (s->nic.dcqcn.np_cnp_prio != s->sw.cnp_priority)
		chk_add(c, CHK_WARNING, "CNP_PRIORITY",
			chk_str("nic.dcqcn.np_cnp_prio %u; switch.cnp_priority %u",
				s->nic.dcqcn.np_cnp_prio, s->sw.cnp_priority),
			"the NIC sends CNPs on another priority than the one the switch serves "
			"strictly");
	if (q && q->has_tc) {
		uint8_t cnp_tc = q->prio_tc[s->nic.dcqcn.np_cnp_prio & 7];

		if (!strcmp(q->tsa[cnp_tc], "ets"))
			chk_add(c, CHK_WARNING, "CNP_NOT_STRICT",
				chk_str("%s:%d tc %u", q->file, q->tc_line[cnp_tc], cnp_tc),
				"CNPs (priority %u) share an ETS class with data: they wait behind "
				"it, and DCQCN reacts late; give them a strict class",
				s->nic.dcqcn.np_cnp_prio);
	}
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
		if (s->sw.pfc.enabled && !((s->sw.lossless >> tc) & 1))
			chk_add(
			    c, CHK_ERROR, "DSCP_NOT_LOSSLESS", chk_str("%s; %s", from, sw),
			    "RDMA traffic lands on lossy TC %u on the switch; PFC is enabled on "
			    "%s: it is tail-dropped under congestion and RoCE pays a "
			    "retransmission timeout for each loss; map DSCP %u to a lossless class",
			    tc, chk_prios(s->sw.lossless, m, sizeof(m)), dscp);
		if (prio != tc)
			chk_add(
			    c, CHK_ERROR, "PRIORITY_MISMATCH", chk_str("%s; %s; %s", from, nic, sw),
			    "the NIC sends DSCP %u on priority %u but the switch classes it as %u: "
			    "the switch's PAUSE for priority %u does not stop it, so its headroom "
			    "overflows",
			    dscp, prio, tc, tc);
		if (!((s->nic.pfc >> prio) & 1) && !((pfc_off >> prio) & 1))
			chk_add(c, CHK_ERROR, "NIC_PFC_OFF",
				have_qos && q.has_pfc
				    ? chk_str("%s:%d PFC enabled", q.file, q.pfc_line)
				    : chk_str("nic.pfc"),
				"PFC is off on priority %u, the one RDMA data uses: the NIC "
				"ignores the "
				"switch's PAUSE and lossless packets are dropped",
				prio);
		if (!((s->nic.pfc >> prio) & 1))
			pfc_off |= (uint8_t)(1u << prio);
		used |= (uint8_t)(1u << prio);
		data_tcs |= (uint8_t)(1u << tc);
	}
	free(dscps);
	if (have_qos && q.has_trust && !q.trust_dscp)
		chk_add(c, CHK_WARNING, "NIC_TRUST_PCP", chk_str("%s:%d", q.file, q.trust_line),
			"the NIC trusts PCP, not DSCP: NCCL_IB_TC and the switch's DSCP map do not "
			"decide the priority the NIC sends and pauses on (mlnx_qos --trust dscp)");
	if (s->nic.pfc & (uint8_t)~used)
		chk_add(c, CHK_WARNING, "PFC_EXTRA_PRIORITY",
			have_qos && q.has_pfc ? chk_str("%s:%d PFC enabled", q.file, q.pfc_line)
					      : chk_str("nic.pfc"),
			"PFC is enabled on priorities %s that no RDMA traffic uses: each one is a "
			"class that can be paused, spread a storm and close a deadlock for nothing",
			chk_prios(s->nic.pfc & (uint8_t)~used, m, sizeof(m)));
	if (s->sw.pfc.enabled && (s->sw.lossless & (uint8_t)~data_tcs))
		/* each list in its own buffer: the arguments are evaluated in any order */
		chk_add(
		    c, CHK_WARNING, "PFC_EXTRA_PRIORITY",
		    chk_str("switch.lossless %s", chk_prios(s->sw.lossless, nic, sizeof(nic))),
		    "the switch keeps headroom and sends PAUSE for classes %s that RDMA traffic "
		    "(TC %s) does not use: buffer reserved for nothing, and more classes that "
		    "can be paused",
		    chk_prios(s->sw.lossless & (uint8_t)~data_tcs, m, sizeof(m)),
		    chk_prios(data_tcs, from, sizeof(from)));
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
		if (t->nodes[u].kind != TOPO_SWITCH ||
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
		return;
	}
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
		uint64_t b = pfc_headroom_need(l->rate_bps, l->delay,
					       s->sw.pfc.response ? s->sw.pfc.response
								  : pfc_response_delay(l->rate_bps),
					       s->nic.mtu);

		if (b > need) {
			need = b;
			worst = l;
		}
	}
	if (worst && have < need)
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
}

/* Every check of the configs; see the usage text. */
static void chk_configs(struct chk *c, const struct scenario *s, const struct topo *t)
{
	chk_cc_params(c, s);
	chk_lossless_path(c, s);
	chk_headroom(c, s, t);
}

/* The cycle as "priority 3: a -> b -> c -> a". */
static char *chk_cycle_where(const struct topo *t, const struct cbd_cycle *cy)
{
	size_t len = 32, off;
	char *buf;

	for (uint32_t i = 0; i < cy->n; i++)
		len += strlen(t->ports[cy->ports[i]].name) + 4;
	len += strlen(t->ports[cy->ports[0]].name);
	buf = malloc(len);
	if (!buf)
		return NULL;
	off = (size_t)snprintf(buf, len, "priority %u: ", cy->prio);
	for (uint32_t i = 0; i <= cy->n; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " -> " : "",
					t->ports[cy->ports[i % cy->n]].name);
	return buf;
}

/* The deadlock analysis and its findings. 0, or -ENOMEM. */
static int chk_deadlock(struct chk *c, const struct scenario *s, const struct topo *t,
			const struct topo_routes *r, const struct chk_args *a)
{
	uint8_t lossless = s->sw.pfc.enabled ? s->sw.lossless : 0;
	struct cbd_pair *pairs = NULL;
	size_t n_pairs = 0, on_lossless = 0;
	char prios[32];
	int err;

	if (!lossless) {
		chk_add(c, CHK_INFO, "CBD_GRAPH", chk_str("deadlock analysis"),
			"no lossless priority (%s): without PFC no buffer waits on another, "
			"no PFC deadlock",
			s->sw.pfc.enabled ? "switch.lossless is empty"
					  : "switch.pfc.enabled is false");
		return 0;
	}
	if (!a->all_pairs) {
		if (scn_pairs(s, &pairs, &n_pairs))
			return -ENOMEM;
		for (size_t i = 0; i < n_pairs; i++)
			on_lossless += (lossless >> pairs[i].prio) & 1;
	}
	err = cbd_analyze(t, r, lossless, a->all_pairs ? NULL : pairs, n_pairs, a->max_cycles,
			  &c->cbd);
	free(pairs);
	if (err)
		return err;

	for (uint32_t i = 0; i < c->cbd.n_cycles; i++) {
		const struct cbd_cycle *cy = &c->cbd.cycles[i];

		chk_add(
		    c, CHK_ERROR, "CBD_CYCLE", chk_cycle_where(t, cy),
		    "cyclic buffer dependency of %u ingress buffers: when they fill together each "
		    "waits on the next and PFC pauses go round for ever, a PFC deadlock; break the "
		    "cycle (routes without down-up turns, bounced traffic on another priority) %s",
		    cy->n,
		    s->sw.wd.enabled ? "or rely on switch.watchdog, which drops or forwards "
				       "the stuck queues"
				     : "or enable switch.watchdog to break it when it happens");
	}
	if (c->cbd.truncated)
		chk_add(
		    c, CHK_WARNING, "CBD_TRUNCATED", chk_str("deadlock analysis"),
		    "more cycles exist than are listed (at most %u per priority, shortest first; "
		    "--max-cycles raises the limit)",
		    a->max_cycles);
	if (a->all_pairs)
		chk_add(c, CHK_INFO, "CBD_GRAPH", chk_str("deadlock analysis: all pairs"),
			"%u ingress buffers, %u dependencies, %u cyclic component%s over lossless "
			"priorities %s, every pair of %u hosts",
			c->cbd.n_nodes, c->cbd.n_edges, c->cbd.n_sccs,
			c->cbd.n_sccs == 1 ? "" : "s", chk_prios(lossless, prios, sizeof(prios)),
			t->n_hosts);
	else
		chk_add(c, CHK_INFO, "CBD_GRAPH", chk_str("deadlock analysis: workload"),
			"%u ingress buffers, %u dependencies, %u cyclic component%s over lossless "
			"priorities %s; %zu of %zu source-destination pairs on them "
			"(--all-pairs: every pair of hosts)",
			c->cbd.n_nodes, c->cbd.n_edges, c->cbd.n_sccs,
			c->cbd.n_sccs == 1 ? "" : "s", chk_prios(lossless, prios, sizeof(prios)),
			on_lossless, n_pairs);
	return 0;
}

static int chk_u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Add "src -> dst" to the list in @buf (@off so far), while it holds fewer than the cap. */
static void chk_pair_name(const struct topo *t, uint64_t key, size_t listed, char *buf, size_t size,
			  size_t *off)
{
	uint32_t src = (uint32_t)(key >> 32), dst = (uint32_t)key;

	if (listed >= CHK_MAX_PAIRS || *off >= size)
		return;
	*off += (size_t)snprintf(buf + *off, size - *off, "%s%s -> %s", listed ? ", " : "",
				 t->nodes[t->hosts[src]].name, t->nodes[t->hosts[dst]].name);
}

/*
 * Source-destination pairs (the workload's, or every pair of hosts) that no
 * route joins over the links that are up: a partition, from failed links or
 * a topology in pieces. What they send is lost at the first switch with no
 * way on, whatever PFC does. 0 or -ENOMEM.
 */
static int chk_reach(struct chk *c, const struct scenario *s, const struct topo *t,
		     const struct topo_routes *r, const struct chk_args *a)
{
	struct cbd_pair *pairs = NULL;
	uint64_t *keys = NULL;
	size_t n_pairs = 0, n = 0, total = 0, bad = 0, off = 0;
	char list[CHK_MAX_PAIRS * (2 * TOPO_NAME_MAX + 8) + 32], down[400] = "";

	if (a->all_pairs) {
		for (uint32_t src = 0; src < t->n_hosts; src++)
			for (uint32_t dst = 0; dst < t->n_hosts; dst++) {
				if (src == dst)
					continue;
				total++;
				if (topo_distance(r, t->hosts[src], dst) != UINT32_MAX)
					continue;
				chk_pair_name(t, (uint64_t)src << 32 | dst, bad++, list,
					      sizeof(list), &off);
			}
	} else {
		if (scn_pairs(s, &pairs, &n_pairs))
			return -ENOMEM;
		keys = malloc((n_pairs ? n_pairs : 1) * sizeof(*keys));
		if (!keys) {
			free(pairs);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n_pairs; i++)
			keys[i] = (uint64_t)pairs[i].src << 32 | pairs[i].dst;
		free(pairs);
		/* a pair once, whatever its classes and channels */
		qsort(keys, n_pairs, sizeof(*keys), chk_u64_cmp);
		for (size_t i = 0; i < n_pairs; i++)
			if (!n || keys[n - 1] != keys[i])
				keys[n++] = keys[i];
		total = n;
		for (size_t i = 0; i < n; i++)
			if (topo_distance(r, t->hosts[keys[i] >> 32], (uint32_t)keys[i]) ==
			    UINT32_MAX)
				chk_pair_name(t, keys[i], bad++, list, sizeof(list), &off);
		free(keys);
	}
	if (!bad)
		return 0;
	for (uint32_t i = 0, k = 0; i < c->n_failed && k < sizeof(down); i++)
		k += (size_t)snprintf(down + k, sizeof(down) - k, "%s%s",
				      i ? ", " : " (down: ", t->links[c->failed[i]].name);
	if (down[0] && strlen(down) + 2 < sizeof(down))
		strcat(down, ")");
	chk_add(c, CHK_ERROR, "UNREACHABLE",
		bad > CHK_MAX_PAIRS
		    ? chk_str("%s: %s, ... (%zu more)", a->all_pairs ? "all pairs" : "workload",
			      list, bad - CHK_MAX_PAIRS)
		    : chk_str("%s: %s", a->all_pairs ? "all pairs" : "workload", list),
		"%zu of %zu source-destination pairs have no route over the links that are up%s: "
		"what they send is dropped at the first switch with no way on, so their traffic "
		"never arrives (run counts it in summary.unroutable_flows and "
		"unroutable_packets)",
		bad, total, down[0] ? down : " (the topology is in pieces)");
	return 0;
}

/* Take a link down by name (--fail); 0 or -EINVAL with the message printed. */
static int chk_fail_link(struct chk *c, struct topo *t, const char *name)
{
	int32_t l = topo_find_link(t, name);

	if (l < 0) {
		fprintf(stderr,
			"rocesim: --fail: no link named \"%s\" (links are named by their ends, "
			"e.g. %s)\n",
			name, t->n_links ? t->links[t->n_links - 1].name : "a-b");
		return -EINVAL;
	}
	if (t->links[l].up) {
		t->links[l].up = 0;
		c->failed[c->n_failed++] = (uint32_t)l;
	}
	return 0;
}

static json_t *chk_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *chk_prio_array(uint8_t mask)
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
static json_t *chk_json_switch(const struct scenario *s)
{
	const struct sw_pfc *p = &s->sw.pfc;
	const struct sw_ecn *e = &s->sw.ecn;
	static const char *const actions[] = {"drop", "forward", "alert"};
	json_t *pfc, *map, *sw, *wd, *weights;

	/* null: computed per port (headroom), from the pause time or link speed */
	pfc = json_pack("{s:b,s:o,s:o,s:I,s:o,s:o}", "enabled", p->enabled, "headroom",
			p->headroom ? chk_u64(p->headroom) : json_null(), "headroom_computed",
			json_boolean(!p->headroom), "quanta", (json_int_t)p->quanta, "refresh_us",
			p->refresh ? json_real(simtime_to_us(p->refresh)) : json_null(),
			"response_us",
			p->response ? json_real(simtime_to_us(p->response)) : json_null());
	if (!pfc)
		return NULL;
	if ((p->dynamic ? json_object_set_new(pfc, "dynamic_th", json_integer(p->dynamic_th))
			: json_object_set_new(pfc, "xoff", chk_u64(p->xoff))) ||
	    (p->has_xon ? json_object_set_new(pfc, "xon", chk_u64(p->xon))
			: json_object_set_new(pfc, "xon_offset", chk_u64(p->xon_offset)))) {
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
	    chk_prio_array(s->sw.lossless), "cnp_priority", s->sw.cnp_priority, "dscp_to_tc", map,
	    "pfc", pfc, "ecn", "enabled", e->enabled, "kmin", (json_int_t)e->kmin, "kmax",
	    (json_int_t)e->kmax, "pmax", e->pmax, "mark", e->at_enqueue ? "enqueue" : "dequeue",
	    "scheduler", s->sw.sched == SW_SCHED_DWRR ? "dwrr" : "strict", "weights", weights,
	    "watchdog", wd);
	return sw;
}

/* The NIC parameters, with the DCQCN ones under their cc_params names. */
static json_t *chk_json_nic(const struct scenario *s)
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
	return json_pack("{s:I,s:i,s:i,s:o,s:b,s:s,s:{s:I,s:I},s:o}", "mtu", (json_int_t)s->nic.mtu,
			 "dscp", s->nic.dscp, "priority", s->nic.priority, "pfc", pfc, "ecn",
			 s->nic.ecn, "cc", s->nic.cc == NIC_CC_DCQCN ? "dcqcn" : "none",
			 "transport", "timeout", (json_int_t)s->nic.timeout_exp, "ack_every",
			 (json_int_t)s->nic.ack_every, "dcqcn",
			 s->nic.cc == NIC_CC_DCQCN ? dc : (json_decref(dc), json_null()));
}

static json_t *chk_json_deadlock(const struct chk *c, const struct scenario *s,
				 const struct topo *t, const struct chk_args *a)
{
	json_t *failed = json_array(), *cycles = json_array();

	for (uint32_t i = 0; failed && i < c->n_failed; i++)
		if (json_array_append_new(failed, json_string(t->links[c->failed[i]].name))) {
			json_decref(failed);
			failed = NULL;
		}
	for (uint32_t i = 0; cycles && i < c->cbd.n_cycles; i++) {
		const struct cbd_cycle *cy = &c->cbd.cycles[i];
		json_t *ports = json_array();

		for (uint32_t k = 0; ports && k < cy->n; k++)
			if (json_array_append_new(ports,
						  json_string(t->ports[cy->ports[k]].name))) {
				json_decref(ports);
				ports = NULL;
			}
		if (json_array_append_new(
			cycles, json_pack("{s:i,s:o}", "priority", cy->prio, "ports", ports))) {
			json_decref(cycles);
			cycles = NULL;
		}
	}
	return json_pack("{s:I,s:s,s:o,s:o,s:I,s:I,s:I,s:b,s:o}", "static_cycles",
			 (json_int_t)c->cbd.n_cycles, "mode",
			 a->all_pairs ? "all_pairs" : "workload", "failed_links", failed,
			 "lossless", chk_prio_array(s->sw.pfc.enabled ? s->sw.lossless : 0),
			 "buffers", (json_int_t)c->cbd.n_nodes, "dependencies",
			 (json_int_t)c->cbd.n_edges, "cyclic_components", (json_int_t)c->cbd.n_sccs,
			 "truncated", c->cbd.truncated, "cycles", cycles);
}

/*
 * Per switch port: the link, and per lossless priority the headroom each
 * PG has (given, or what the model computes for that link: pfc_headroom's
 * formula) with the need the cable sets, so users see every port's margin.
 */
static json_t *chk_json_ports(const struct scenario *s, const struct topo *t)
{
	json_t *ports = json_array();

	for (uint32_t i = 0; ports && i < t->n_ports; i++) {
		const struct topo_port *tp = &t->ports[i];
		const struct topo_link *l = &t->links[tp->link];
		simtime_t resp = s->sw.pfc.response ? s->sw.pfc.response : pfc_response_delay(l->rate_bps);
		uint64_t need = pfc_headroom_need(l->rate_bps, l->delay, resp, s->nic.mtu);
		uint64_t given = s->sw.pfc.headroom ? s->sw.pfc.headroom : pfc_headroom_kib(need);
		json_t *pgs;

		if (t->nodes[tp->node].kind != TOPO_SWITCH)
			continue;
		pgs = json_array();
		for (uint8_t prio = 0; s->sw.pfc.enabled && prio < 8; prio++)
			if ((s->sw.lossless >> prio) & 1)
				json_array_append_new(pgs, json_pack("{s:i,s:o,s:o}", "priority", prio,
								     "headroom", chk_u64(given),
								     "headroom_needed", chk_u64(need)));
		json_array_append_new(ports, json_pack("{s:s,s:f,s:f,s:o}", "port", tp->name,
						       "rate_gbps", (double)l->rate_bps / 1e9,
						       "cable_m",
						       (double)l->delay / (double)(1000 * SIMTIME_PS_PER_MM),
						       "lossless_pgs", pgs));
	}
	return ports;
}

static int chk_print_json(const struct chk *c, const struct scenario *s, const struct topo *t,
			  const struct chk_args *a)
{
	json_t *root, *findings = json_array();
	int err;

	for (size_t i = 0; findings && i < c->n; i++) {
		const struct chk_finding *f = &c->f[i];

		if (json_array_append_new(findings,
					  json_pack("{s:s,s:s,s:s,s:s}", "severity",
						    chk_severity_name[f->severity], "code", f->code,
						    "where", f->where, "message", f->message))) {
			json_decref(findings);
			findings = NULL;
		}
	}
	root = json_pack("{s:o,s:{s:o,s:o,s:o},s:o}", "findings", findings, "effective", "switch",
			 chk_json_switch(s), "ports", chk_json_ports(s, t), "nic", chk_json_nic(s),
			 "deadlock", chk_json_deadlock(c, s, t, a));
	if (!root)
		return -ENOMEM;
	err = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
	json_decref(root);
	if (err || fputc('\n', stdout) == EOF)
		return -EIO;
	return 0;
}

/* Errors first, then warnings, then info; each kind in the order found. */
static void chk_sort(struct chk *c)
{
	for (size_t i = 1; i < c->n; i++) {
		struct chk_finding f = c->f[i];
		size_t k = i;

		for (; k > 0 && c->f[k - 1].severity > f.severity; k--)
			c->f[k] = c->f[k - 1];
		c->f[k] = f;
	}
}

static void chk_print_people(const struct chk *c, const struct scenario *s, double secs)
{
	size_t count[3] = {0};

	for (size_t i = 0; i < c->n; i++) {
		const struct chk_finding *f = &c->f[i];

		printf("%s %s %s: %s\n", chk_severity_name[f->severity], f->code, f->where,
		       f->message);
		count[f->severity]++;
	}
	printf("check %s: %zu error%s, %zu warning%s, %zu info (%.3f s)\n", s->name, count[0],
	       count[0] == 1 ? "" : "s", count[1], count[1] == 1 ? "" : "s", count[2], secs);
}

static int chk_run(const struct chk_args *a)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	struct diag d = {0};
	struct timespec t0, t1;
	int err, rc = CLI_EXIT_INPUT, errors = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = scn_load_ex(a->scenario, a->sets, a->n_sets, SCN_LOAD_LENIENT, &s, &d);
	if (err) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
		return CLI_EXIT_INPUT;
	}
	err = topo_build(&s->topo, &t, &d);
	if (err)
		scn_locate(s, &d);
	else
		err = scn_resolve(s, t, &d);
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr, "rocesim: out of memory\n");
		else {
			fprintf(stderr, "rocesim: ");
			diag_print(&d, stderr);
		}
		goto out;
	}
	c.failed = malloc(((size_t)t->n_links + 1) * sizeof(*c.failed));
	if (!c.failed) {
		fprintf(stderr, "rocesim: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < a->n_fails; i++)
		if (chk_fail_link(&c, t, a->fails[i]))
			goto out;
	for (uint32_t i = 0; i < s->n_faults; i++) {
		const struct net_fault *f = &s->faults[i];
		struct topo_link *l = &t->links[f->link];

		if (f->kind != NET_FAULT_LINK_DOWN)
			continue;
		if (f->at == 0 && l->up) {
			l->up = 0;
			c.failed[c.n_failed++] = f->link;
		} else if (f->at) {
			chk_add(
			    &c, CHK_INFO, "LINK_DOWN_LATER", chk_str("faults[%u]: %s", i, l->name),
			    "goes down at %.3f us; this analysis has it up (--fail %s analyses the "
			    "routes after it)",
			    simtime_to_us(f->at), l->name);
		}
	}
	err = topo_routes_build(t, &r);
	if (!err)
		err = chk_deadlock(&c, s, t, r, a);
	if (!err)
		err = chk_reach(&c, s, t, r, a);
	if (err) {
		fprintf(stderr, "rocesim: %s\n",
			err == -ENOMEM ? "out of memory" : "the topology is too large to route");
		goto out;
	}
	chk_thresholds(&c, s);
	for (uint32_t i = 0; i < t->n_links; i++)
		if ((t->nodes[t->links[i].a].kind == TOPO_HOST ||
		     t->nodes[t->links[i].b].kind == TOPO_HOST) &&
		    t->links[i].rate_bps > c.line_rate_bps)
			c.line_rate_bps = t->links[i].rate_bps;
	chk_configs(&c, s, t);
	if (c.oom) {
		fprintf(stderr, "rocesim: out of memory\n");
		goto out;
	}
	chk_sort(&c);
	for (size_t i = 0; i < c.n; i++)
		errors += c.f[i].severity == CHK_ERROR;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (a->json) {
		if (chk_print_json(&c, s, t, a)) {
			fprintf(stderr, "rocesim: cannot write the JSON output\n");
			goto out;
		}
	} else {
		chk_print_people(&c, s,
				 (double)(t1.tv_sec - t0.tv_sec) +
				     (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	}
	rc = errors ? CLI_EXIT_FOUND : 0;
out:
	chk_free(&c);
	topo_routes_free(r);
	topo_free(t);
	scn_free(s);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct chk_args a = {.max_cycles = CHK_MAX_CYCLES};
	int rc = -1;

	a.sets = calloc((size_t)argc + 1, sizeof(char *));
	a.fails = calloc((size_t)argc + 1, sizeof(char *));
	if (!a.sets || !a.fails) {
		free(a.sets);
		free(a.fails);
		return CLI_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(o, "--json")) {
			a.json = 1;
		} else if (!strcmp(o, "--all-pairs")) {
			a.all_pairs = 1;
		} else if (!strcmp(o, "--fail")) {
			if (!has_next)
				rc = cli_usage_error("rocesim: check: ", chk_usage, "%s needs a link name, e.g. leaf0-spine1", o);
			else
				a.fails[a.n_fails++] = argv[++i];
		} else if (!strcmp(o, "--set")) {
			if (!has_next || !strchr(argv[i + 1], '='))
				rc = cli_usage_error("rocesim: check: ", chk_usage, "%s needs KEY=VALUE", o);
			else
				a.sets[a.n_sets++] = argv[++i];
		} else if (!strcmp(o, "--max-cycles")) {
			char *end = NULL;
			unsigned long v = has_next ? strtoul(argv[i + 1], &end, 10) : 0;

			if (!has_next || !*argv[i + 1] || *end || argv[i + 1][0] == '-' || v < 1 ||
			    v > 1000000)
				rc = cli_usage_error("rocesim: check: ", chk_usage, "%s needs a number of cycles (1 to 1000000)",
						     o);
			else
				a.max_cycles = (uint32_t)v;
			i++;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(chk_usage, stdout);
			rc = 0;
		} else if (o[0] == '-') {
			rc = cli_usage_error("rocesim: check: ", chk_usage, "unknown option \"%s\"", o);
		} else if (a.scenario) {
			rc = cli_usage_error("rocesim: check: ", chk_usage, "one scenario at a time (also got \"%s\")", o);
		} else {
			a.scenario = o;
		}
	}
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error("rocesim: check: ", chk_usage, "%s", "check needs a scenario file");
	if (rc < 0)
		rc = chk_run(&a);
	free(a.sets);
	free(a.fails);
	return rc;
}
