/*
 * rocesim import: print what a real config says as the scenario YAML
 * fragment that carries it, so users see and edit what was understood.
 * Lines that carry no scenario key are comments. Text taken from the file
 * (names, paths, values quoted in comments) is printed in its terminal form
 * (textsafe.h): a newline in a name cannot start a YAML line of its own,
 * an escape code cannot reach the terminal raw.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/cli/import_measured.h"
#include "sim/readers/hpcc_flows.h"
#include "sim/readers/mlnx.h"
#include "sim/readers/pod.h"
#include "sim/config/scenario.h"
#include "sim/readers/sonic.h"
#include "sim/engine/textsafe.h"
#include "sim/lint/lint.h"
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

static const char imp_config_usage[] =
    "usage: rocesim import sonic|mlnx-qos|cc-params|pod|hpcc-topology|hpcc-flows FILE\n"
    "       rocesim import ethtool|hw-counters|pfcstat|queuestat|nccl-tests|nccl-inspector\n"
    "                      [--json] FILE [AFTER]\n"
    "       rocesim import measured [--json] DIR\n"
    "\n"
    "Prints the scenario YAML fragment equivalent to a real config:\n"
    "  sonic      a SONiC config_db.json            -> switch: ...\n"
    "  mlnx-qos   the output of `mlnx_qos -i IF`     -> nic: pfc, priority\n"
    "  cc-params  mlx5 cc_params (a folder, or `grep -r . cc_params` output)\n"
    "                                                -> nic: dcqcn: ...\n"
    "  pod        a Kubernetes Pod, Deployment, StatefulSet, DaemonSet or Job\n"
    "             manifest (its NCCL_* environment)  -> workload: dscp, nic: timeout\n"
    "  hpcc-topology  an HPCC ns-3 topology file    -> a topology file (kind: file)\n"
    "  hpcc-flows     an HPCC ns-3 flow file        -> workload: {kind: flows, ...}\n"
    "A scenario can also name the files directly (switch.sonic, nic.mlnx_qos,\n"
    "nic.cc_params, workload.pod, topology and workload {kind: hpcc, file: F});\n"
    "keys it sets itself win over the files.\n"
    "\n";

static const char imp_exit_usage[] = "\nexit codes: 0 ok; 2 bad input or usage; 3 output failed\n";

/* Room for the usage: the real configs, then the measured counters. */
#define SHOWN_USAGE (sizeof(imp_config_usage) + 2048 + sizeof(imp_exit_usage))

/* Room for a name or a path from the file in its terminal form. */
#define SHOWN 1024

/* @s in its terminal form, in @buf of SHOWN bytes. */
static const char *sh(char *buf, const char *s)
{
	return txt_term(buf, SHOWN, s);
}

/* What port @i of @c has that most ports do not, into @line; 0 if nothing. */
static size_t imp_sonic_port(const struct sonic_cfg *c, uint32_t i, char *line, size_t size)
{
	const struct sonic_port *p = &c->ports[i];
	char m[32];
	size_t off = 0;

#define ADD(...) off += (size_t)snprintf(line + off, off < size ? size - off : 0, __VA_ARGS__)
	if (p->speed_bps && p->speed_bps != c->port_speed_bps)
		ADD(", %.0f Gb/s", (double)p->speed_bps / 1e9);
	if (p->has_pfc_enable && (!c->has_pfc_enable || p->pfc_enable != c->pfc_enable))
		ADD(", lossless [%s] (PORT_QOS_MAP|%s|pfc_enable)",
		    chk_prio_list(p->pfc_enable, ", ", "", m, sizeof(m)), p->name);
	if (p->dscp_map >= 0 && strcmp(c->maps[p->dscp_map].name, c->dscp_map))
		ADD(", DSCP_TO_TC_MAP %s (26 -> TC %u)", c->maps[p->dscp_map].name,
		    c->maps[p->dscp_map].to_tc[26]);
	if (p->profile >= 0 && strcmp(c->profiles[p->profile].name, c->profile)) {
		const struct sonic_profile_use *u = &c->profiles[p->profile];

		if (u->has_xoff)
			ADD(", headroom %llu", (unsigned long long)u->xoff);
		else
			ADD(", no headroom (no xoff)");
		if (u->has_dynamic_th)
			ADD(", dynamic_th %d", u->dynamic_th);
		else if (u->has_static_th)
			ADD(", xoff %llu", (unsigned long long)u->static_th);
		ADD(" (BUFFER_PROFILE %s on BUFFER_PG|%s)", u->name, p->pg_row);
	} else if (p->pg_null && c->has_profile) {
		ADD(", headroom computed (BUFFER_PG|%s profile NULL)", p->pg_row);
	}
	if (p->wred >= 0 && strcmp(c->wreds[p->wred].name, c->wred))
		ADD(", ecn kmin %llu, kmax %llu (WRED_PROFILE %s on QUEUE|%s)",
		    (unsigned long long)c->wreds[p->wred].kmin,
		    (unsigned long long)c->wreds[p->wred].kmax, c->wreds[p->wred].name,
		    p->wred_row);
	if (c->has_sched && (p->sched_line || p->dwrr)) {
		uint32_t w[8];
		int differ = p->dwrr != c->sched_dwrr;

		for (int q = 0; q < 8; q++) {
			w[q] = p->weight[q] ? p->weight[q] : 1;
			differ |= w[q] != c->sched_weights[q];
		}
		if (differ && p->dwrr)
			ADD(", dwrr [%u, %u, %u, %u, %u, %u, %u, %u]", w[0], w[1], w[2], w[3], w[4],
			    w[5], w[6], w[7]);
		else if (differ)
			ADD(", strict");
	}
#undef ADD
	return off;
}

/* What a config_db.json gives that becomes comments: where it comes from,
 * the ports, the cable, and what SONiC computes that rocesim computes too. */
static void imp_sonic_notes(const struct sonic_cfg *c)
{
	char b[SHOWN];

	printf("# from %s\n", sh(b, c->file));
	if (c->hostname[0])
		printf("# hostname %s\n", sh(b, c->hostname));
	if (c->n_ports)
		printf("# %u ports, most at %.0f Gb/s, MTU %u%s\n", c->n_ports,
		       (double)c->port_speed_bps / 1e9, c->port_mtu,
		       c->cable_mm ? "" : "; no CABLE_LENGTH");
	if (c->cable_mm)
		printf("# longest cable %.1f m (topology.link.cable)\n",
		       (double)c->cable_mm / 1000);
	if (c->buffer_model_dynamic || c->pg_null)
		printf(
		    "# buffer_model dynamic (BUFFER_PG profile NULL): SONiC computes the headroom "
		    "at run time; rocesim computes it per port (switch.pfc.headroom unset)\n");
	if (c->has_pool && !c->has_pool_size)
		printf("# the lossless pool has no size (SONiC computes it): switch.buffer.size "
		       "keeps its default\n");
}

/* switch.pfc from the lossless PGs' BUFFER_PROFILE. */
static void imp_sonic_profile(const struct sonic_cfg *c)
{
	char b[SHOWN];
	const char *sep = "";

	if (!c->has_xoff && !c->has_xon_offset && !c->has_dynamic_th && !c->has_static_th)
		printf("  # BUFFER_PROFILE %s gives no xoff, xon_offset or threshold\n",
		       sh(b, c->profile));
	else {
		printf("  pfc: {");
		if (c->has_xoff) {
			printf("headroom: %llu", (unsigned long long)c->xoff);
			sep = ", ";
		}
		if (c->has_xon_offset) {
			printf("%sxon_offset: %llu", sep, (unsigned long long)c->xon_offset);
			sep = ", ";
		}
		if (c->has_dynamic_th)
			printf("%sdynamic_th: %d", sep, c->dynamic_th);
		else if (c->has_static_th)
			printf("%sxoff: %llu", sep, (unsigned long long)c->static_th);
		printf("}    # BUFFER_PROFILE %s%s\n", sh(b, c->profile),
		       c->has_xoff ? "" : " (no xoff: no headroom)");
	}
	if (c->has_xon)
		printf("  # xon %llu: XON no lower than this beside xon_offset (no scenario "
		       "key: switch.sonic gives it)\n",
		       (unsigned long long)c->xon);
}

/* The TC maps rocesim does not model, and the ports that differ. */
static void imp_sonic_ports(const struct sonic_cfg *c)
{
	char b[SHOWN], b2[SHOWN];
	int header = 0;

	for (int tc = 0; tc < 8; tc++)
		if (c->tc_to_pg[tc] != tc || c->tc_to_queue[tc] != tc)
			printf("# TC %d -> PG %u, queue %u: rocesim maps TC = PG = queue\n", tc,
			       c->tc_to_pg[tc], c->tc_to_queue[tc]);
	for (uint32_t i = 0; i < c->n_ports; i++) {
		char line[600];

		if (!imp_sonic_port(c, i, line, sizeof(line)))
			continue;
		if (!header++)
			printf("# ports that differ (port i of each switch is the i-th by number; "
			       "switch.sonic gives each its own, no scenario key does):\n");
		printf("# %s (port %u):%s\n", sh(b, c->ports[i].name), i, sh(b2, line + 1));
	}
}

static void imp_sonic(const struct sonic_cfg *c)
{
	char m[32], b[SHOWN];

	imp_sonic_notes(c);
	printf("switch:\n");
	if (c->has_pool && c->has_pool_size) {
		printf("  buffer: {size: %llu", (unsigned long long)c->buffer_size);
		if (c->pool_xoff)
			printf(", headroom_pool: %llu", (unsigned long long)c->pool_xoff);
		printf("}    # ingress lossless pool%s\n",
		       c->pool_xoff ? " + shared headroom" : "");
	}
	if (c->has_pfc_enable)
		printf("  lossless: [%s]    # %s\n",
		       chk_prio_list(c->pfc_enable, ", ", "", m, sizeof(m)), sh(b, c->pfc_where));
	if (c->has_dscp_map) {
		int first = 1;

		printf("  dscp_to_tc: {");
		for (int d = 0; d < 64; d++) {
			if (!((c->dscp_given >> d) & 1))
				continue;
			printf("%s%d: %u", first ? "" : ", ", d, c->dscp_to_tc[d]);
			first = 0;
		}
		printf("}    # DSCP_TO_TC_MAP %s\n", sh(b, c->dscp_map));
	}
	if (c->has_profile)
		imp_sonic_profile(c);
	if (c->has_sched && c->sched_dwrr)
		printf("  scheduler: dwrr\n  weights: [%u, %u, %u, %u, %u, %u, %u, %u]    # %s\n",
		       c->sched_weights[0], c->sched_weights[1], c->sched_weights[2],
		       c->sched_weights[3], c->sched_weights[4], c->sched_weights[5],
		       c->sched_weights[6], c->sched_weights[7], sh(b, c->sched_at.where));
	else if (c->has_sched)
		printf("  scheduler: strict    # %s\n", sh(b, c->sched_at.where));
	if (c->has_wred)
		printf("  ecn: {enabled: %s, kmin: %llu, kmax: %llu, pmax: %g%%}    # WRED_PROFILE "
		       "%s\n",
		       c->ecn_marking ? "true" : "false", (unsigned long long)c->kmin,
		       (unsigned long long)c->kmax, c->pmax * 100, sh(b, c->wred));
	if (c->has_watchdog)
		printf("  watchdog: {detection: %ums, restoration: %ums, action: %s}    # PFC_WD\n",
		       c->wd_detection_ms, c->wd_restoration_ms, sh(b, c->wd_action));
	imp_sonic_ports(c);
}

/* The classes of mlnx_qos's tc lines, as nic.tc (and the priorities of each). */
static void imp_mlnx_tcs(const struct mlnx_qos *q)
{
	int moved = 0;

	for (int p = 0; p < 8; p++)
		moved |= q->prio_tc_line[p] && q->prio_tc[p] != p;
	printf("  tc:%s\n", moved ? "    # priorities in another class than their number "
				    "need nic.mlnx_qos itself: no scenario key maps them"
				  : "");
	for (int tc = 0; tc < 8; tc++) {
		unsigned long long r = q->ratelimit[tc];
		char rate[32], prios[32];
		size_t o = 0;

		if (!q->tsa[tc][0])
			continue;
		prios[0] = '\0';
		for (int p = 0; p < 8; p++)
			if (q->prio_tc_line[p] && q->prio_tc[p] == tc)
				o += (size_t)snprintf(prios + o, sizeof(prios) - o, "%s%d",
						      o ? "," : "", p);
		if (!r)
			snprintf(rate, sizeof(rate), "unlimited");
		else if (r % 1000000000ULL)
			snprintf(rate, sizeof(rate), "%lluMbps", r / 1000000ULL);
		else
			snprintf(rate, sizeof(rate), "%lluGbps", r / 1000000000ULL);
		if (!strcmp(q->tsa[tc], "unknown"))
			printf(
			    "    %d: {ratelimit: %s}    # line %d: tsa unknown, served as strict",
			    tc, rate, q->tc_line[tc]);
		else if (!strcmp(q->tsa[tc], "ets"))
			printf("    %d: {tsa: ets, bw: %u%%, ratelimit: %s}    # line %d", tc,
			       q->bw[tc], rate, q->tc_line[tc]);
		else
			printf("    %d: {tsa: %s, ratelimit: %s}    # line %d", tc, q->tsa[tc],
			       rate, q->tc_line[tc]);
		printf(o ? "; priorities %s\n" : "; no priority\n", prios);
	}
}

static void imp_mlnx_qos(const struct mlnx_qos *q)
{
	char b[SHOWN];

	printf("# from %s\n", sh(b, q->file));
	if (q->has_trust && q->trust_none)
		printf("# trust none: the NIC cannot trust DSCP, priorities come from PCP\n");
	else if (q->has_trust)
		printf("# trust %s%s\n", q->trust_dscp ? "dscp" : "pcp",
		       q->trust_dscp ? "" : ": the DSCP map below does not decide priorities");
	if (q->has_buffer) {
		printf("# receive buffers (bytes):");
		for (int b = 0; b < 8; b++)
			printf("%s%u", b ? ", " : " ", q->rx_buffer[b]);
		if (q->rx_total)
			printf("; %llu in all", (unsigned long long)q->rx_total);
		printf(" (read, not modelled)\n");
	}
	if (q->has_default_prio)
		printf("# default priority %u (non-IP traffic; RoCEv2 is IP: not used)\n",
		       q->default_prio);
	printf("nic:\n");
	if (q->has_pfc) {
		printf("  pfc: [");
		for (int p = 0; p < 8; p++)
			printf("%s%d", p ? ", " : "", (q->pfc_enabled >> p) & 1);
		printf("]    # PFC enabled, line %d\n", q->pfc_line);
	}
	if (q->has_trust && q->trust_dscp && ((q->dscp_given >> 26) & 1))
		printf("  priority: %u    # dscp2prio of DSCP 26 (NCCL_IB_TC 104), line %d\n",
		       q->dscp2prio[26], q->dscp_line[26]);
	for (int d = 0; d < 64; d++)
		if (((q->dscp_given >> d) & 1) && q->dscp2prio[d] != d >> 3)
			printf("# DSCP %d -> priority %u (the mlx5 default is %d)\n", d,
			       q->dscp2prio[d], d >> 3);
	if (q->has_tc)
		imp_mlnx_tcs(q);
}

/*
 * One device's entries as nic.dcqcn keys, each line after @pre ("" or "# "
 * for a device the scenario does not take); how many are left out.
 */
static int imp_cc_block(const struct cc_params *cc, const char *pre)
{
	struct dcqcn_params p;
	char msg[200], b[SHOWN], b2[SHOWN], b3[SHOWN], b4[SHOWN];
	int bad = 0;

	dcqcn_params_default(&p, DCQCN_MLX5);
	printf("%snic:\n%s  cc: dcqcn\n%s  dcqcn:\n", pre, pre, pre);
	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_entry *e = &cc->v[i];
		int err = scn_dcqcn_param(e->name, e->value, &p, msg, sizeof(msg));
		const struct cc_entry *later = NULL;

		/* a name given twice: the later entry wins, the earlier is a comment,
		 * so that the YAML never holds a key twice */
		for (size_t j = i + 1; j < cc->n && !later; j++)
			if (!strcmp(cc->v[j].name, e->name))
				later = &cc->v[j];
		if (later) {
			printf("%s    # %s: %s    # %s:%d: given again at line %d, which wins\n",
			       pre, sh(b, e->name), sh(b2, e->value), sh(b3, e->file), e->line,
			       later->line);
			continue;
		}
		if (err) {
			printf("%s    # %s: %s    # %s:%d: %s\n", pre, sh(b, e->name),
			       sh(b2, e->value), sh(b3, e->file), e->line, sh(b4, msg));
			bad++;
		} else {
			printf("%s    %s: %s\n", pre, e->name, e->value);
		}
	}
	return bad;
}

/*
 * cc_params as nic.dcqcn. A dump of several devices shows each: the first
 * as YAML, the others as comments with what differs from the first and the
 * nic.cc_params that takes them. A file without one cc_params name (an
 * hw_counters dump, say) is refused: nothing of it is DCQCN.
 */
static int imp_cc_params(const struct cc_params *cc, const char *file)
{
	const char *dev[64];
	size_t n = cc_params_devices(cc, dev, 64), known = 0;
	struct dcqcn_params p;
	char msg[200], diff[600], b[SHOWN], b2[SHOWN], b3[SHOWN];
	int bad = 0;

	dcqcn_params_default(&p, DCQCN_MLX5);
	for (size_t i = 0; i < cc->n; i++)
		known +=
		    scn_dcqcn_param(cc->v[i].name, cc->v[i].value, &p, msg, sizeof(msg)) != -ENOENT;
	if (!known) {
		fprintf(stderr,
			"rocesim: %s: no cc_params name found: none of its %zu name:value lines "
			"(\"%s\" at line %d, ...) is an mlx5 cc_params name such as rp_gd or "
			"np_min_time_between_cnps (grep . /sys/kernel/debug/mlx5/<PCI>/cc_params/* "
			"prints them)\n",
			sh(b, file), cc->n, sh(b2, cc->v[0].name), cc->v[0].line);
		return ROCESIM_EXIT_INPUT;
	}
	if (n > 64)
		n = 64;
	if (n > 1)
		printf("# %s: %zu devices; rocesim gives every NIC one set of DCQCN parameters,\n"
		       "# nic.cc_params: {file: %s, device: PCI} takes one\n",
		       sh(b, file), n, sh(b, file));
	for (size_t k = 0; k < n; k++) {
		struct cc_params one = {.v = malloc(cc->n * sizeof(*one.v)), .n = cc->n};

		if (!one.v) {
			fprintf(stderr, "rocesim: out of memory\n");
			return ROCESIM_EXIT_INPUT;
		}
		memcpy(one.v, cc->v, cc->n * sizeof(*one.v));
		cc_params_keep(&one, dev[k]);
		if (n > 1 && !k)
			printf("# device %s (line %d on)\n", sh(b, dev[k]), one.v[0].line);
		else if (n > 1 && !cc_params_diff_str(cc, dev[0], dev[k], diff, sizeof(diff)))
			printf("# device %s (line %d on): the same as %s\n", sh(b, dev[k]),
			       one.v[0].line, sh(b2, dev[0]));
		else if (n > 1)
			printf("# device %s (line %d on) differs from %s: %s\n", sh(b, dev[k]),
			       one.v[0].line, sh(b2, dev[0]), sh(b3, diff));
		bad += imp_cc_block(&one, k ? "# " : "");
		free(one.v);
	}
	if (bad)
		fprintf(stderr, "rocesim: %d cc_params entr%s left out as comments\n", bad,
			bad == 1 ? "y" : "ies");
	return 0;
}

/*
 * Each NCCL_* variable with where it comes from: its line in the workload,
 * the container (Master/pytorch for a replica), and the ConfigMap that
 * gives the value at its own line; then what check warns about.
 */
static void imp_pod(const struct pod_cfg *pc)
{
	const struct pod_env *tc = pod_get(pc, "NCCL_IB_TC");
	const struct pod_env *to = pod_get(pc, "NCCL_IB_TIMEOUT");
	const struct pod_env *rc = pod_get(pc, "NCCL_IB_RETRY_CNT");
	const struct pod_env *qps = pod_get(pc, "NCCL_IB_QPS_PER_CONNECTION");
	const struct pod_env *split = pod_get(pc, "NCCL_IB_SPLIT_DATA_ON_QPS");
	char b[SHOWN], b2[SHOWN], b3[SHOWN], b4[SHOWN];

	printf("# from %s (%s)\n", sh(b, pc->file), pc->kind);
	for (size_t i = 0; i < pc->n; i++) {
		const struct pod_env *e = &pc->env[i];

		printf("# %s=%s    # line %d%s%s%s%s", sh(b, e->name), sh(b2, e->value), e->line,
		       e->container[0] ? ", container " : "", sh(b3, e->replica),
		       e->replica[0] ? "/" : "", sh(b4, e->container));
		sh(b, e->from);
		if (e->value_from && e->src == POD_SRC_MPIRUN)
			printf(", %s of a shell expansion: known at run time\n", b);
		else if (e->value_from && e->from[0])
			printf(" (valueFrom %s: set at run time)\n", b);
		else if (e->value_from)
			printf(" (valueFrom: set at run time)\n");
		else if (e->src == POD_SRC_CM_KEY || e->src == POD_SRC_ENV_FROM)
			printf(", from %s at line %d\n", b, e->src_line);
		else if (e->src == POD_SRC_MPIRUN && e->src_line != e->line)
			printf(", %s at line %d (every rank's)\n", b, e->src_line);
		else if (e->src == POD_SRC_MPIRUN)
			printf(", %s (every rank's)\n", b);
		else
			printf("\n");
	}
	for (size_t i = 0; i < pc->n_notes; i++)
		printf("# warning %s %s:%d %s: %s\n", pc->notes[i].code, sh(b, pc->file),
		       pc->notes[i].line, sh(b2, pc->notes[i].what), sh(b3, pc->notes[i].msg));
	if (tc && tc->value_from)
		tc = NULL;
	if (to && to->value_from)
		to = NULL;
	if (rc && rc->value_from)
		rc = NULL;
	if (qps && qps->value_from)
		qps = NULL;
	if (split && split->value_from)
		split = NULL;
	if (tc || qps || split)
		printf("workload:\n");
	if (tc) {
		unsigned long v = strtoul(tc->value, NULL, 10);

		printf("  dscp: %lu    # NCCL_IB_TC %s = DSCP %lu << 2 | ECN %lu\n", (v >> 2) & 63,
		       sh(b, tc->value), (v >> 2) & 63, v & 3);
	}
	if (qps)
		printf("  qps_per_connection: %s    # NCCL_IB_QPS_PER_CONNECTION\n",
		       sh(b, qps->value));
	if (split)
		printf("  split_data_on_qps: %s    # NCCL_IB_SPLIT_DATA_ON_QPS %s\n",
		       strtol(split->value, NULL, 10) == 1 ? "true" : "false", sh(b, split->value));
	if (to && rc)
		printf("nic:\n  transport: {timeout: %s, retry_cnt: %s}    # NCCL_IB_TIMEOUT: "
		       "4.096 us x 2^%s, NCCL_IB_RETRY_CNT\n",
		       sh(b, to->value), sh(b2, rc->value), b);
	else if (to)
		printf("nic:\n  transport: {timeout: %s}    # NCCL_IB_TIMEOUT: 4.096 us x 2^%s\n",
		       sh(b, to->value), b);
	else if (rc)
		printf("nic:\n  transport: {retry_cnt: %s}    # NCCL_IB_RETRY_CNT\n",
		       sh(b, rc->value));
}

/* A time in the largest unit that keeps it exact. */
static const char *imp_time(simtime_t t, char *buf, size_t size)
{
	static const struct {
		simtime_t ps;
		const char *unit;
	} u[] = {{SIMTIME_S, "s"}, {SIMTIME_S / 1000, "ms"}, {1000000, "us"}, {1000, "ns"}};

	if (!t)
		return "0us";
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (t % u[i].ps == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(t / u[i].ps), u[i].unit);
			return buf;
		}
	snprintf(buf, size, "%llups", (unsigned long long)t);
	return buf;
}

/* A rate in Gb/s, Mb/s or b/s, exact. */
static const char *imp_rate(uint64_t bps, char *buf, size_t size)
{
	if (bps % 1000000000 == 0)
		snprintf(buf, size, "%lluGbps", (unsigned long long)(bps / 1000000000));
	else if (bps % 1000000 == 0)
		snprintf(buf, size, "%lluMbps", (unsigned long long)(bps / 1000000));
	else
		snprintf(buf, size, "%llubps", (unsigned long long)bps);
	return buf;
}

static void imp_hpcc_topology(const char *file, const struct topo_hpcc *h)
{
	char a[TOPO_NAME_MAX], b[TOPO_NAME_MAX], r[32], t[32], f[SHOWN];

	printf("# %s: %u nodes (%u switches), %u links; a topology file for\n"
	       "# topology: {kind: file, file: ...}, as {kind: hpcc, file: %s} reads it\n",
	       sh(f, file), h->n_nodes, h->n_switches, h->n_links, f);
	printf("nodes:\n");
	for (uint32_t i = 0; i < h->n_nodes; i++) {
		topo_hpcc_name(h, i, a);
		printf("  - {name: %s, kind: %s}\n", a, h->is_switch[i] ? "switch" : "host");
	}
	printf("links:\n");
	for (uint32_t i = 0; i < h->n_links; i++) {
		topo_hpcc_name(h, h->links[i].a, a);
		topo_hpcc_name(h, h->links[i].b, b);
		printf("  - {a: %s, b: %s, rate: %s, delay: %s}\n", a, b,
		       imp_rate(h->links[i].rate_bps, r, sizeof(r)),
		       imp_time(h->links[i].delay, t, sizeof(t)));
	}
}

static void imp_hpcc_flows(const char *file, const struct hpcc_flows *f)
{
	char t[32], b[SHOWN];

	printf("# %s: %u flows, node ids as hosts h<id> of an hpcc topology; starts after\n"
	       "# the earliest; pg is the priority (a flow's dscp must map to it)\n",
	       sh(b, file), f->n);
	printf("workload:\n  kind: flows\n  flows:\n");
	for (uint32_t i = 0; i < f->n; i++) {
		const struct hpcc_flow *x = &f->flows[i];

		printf("    - {src: h%u, dst: h%u, size: %llu, start: %s}    # pg %u\n", x->src,
		       x->dst, (unsigned long long)x->bytes, imp_time(x->start, t, sizeof(t)),
		       x->pg);
	}
}

int cmd_import(int argc, char **argv)
{
	struct diag d = {0};
	const char *kind, *file;
	char imp_usage[SHOWN_USAGE];
	int err = 0;

	snprintf(imp_usage, sizeof(imp_usage), "%s%s%s", imp_config_usage, imp_measured_usage,
		 imp_exit_usage);
	if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		fputs(imp_usage, stdout);
		return 0;
	}
	if (argc >= 1 && imp_is_measured(argv[0]))
		return imp_measured(argv[0], argc - 1, argv + 1, imp_usage);
	if (argc != 2) {
		return cli_usage_error("rocesim: ", imp_usage, "%s",
				       "import needs a kind and a file");
	}
	kind = argv[0];
	file = argv[1];
	if (!strcmp(kind, "sonic")) {
		struct sonic_cfg c;

		if (!(err = sonic_read(file, &c, &d)))
			imp_sonic(&c);
	} else if (!strcmp(kind, "mlnx-qos")) {
		struct mlnx_qos q;

		if (!(err = mlnx_qos_read(file, &q, &d)))
			imp_mlnx_qos(&q);
	} else if (!strcmp(kind, "cc-params")) {
		struct cc_params cc = {0};

		int rc = 0;

		if (!(err = cc_params_read(file, &cc, &d)))
			rc = imp_cc_params(&cc, file);
		cc_params_free(&cc);
		if (rc)
			return rc;
	} else if (!strcmp(kind, "pod")) {
		struct pod_cfg pc = {0};

		if (!(err = pod_read(file, &pc, &d))) {
			imp_pod(&pc);
			pod_free(&pc);
		}
	} else if (!strcmp(kind, "hpcc-topology")) {
		struct topo_hpcc h;

		if (!(err = topo_hpcc_read(file, &h, &d))) {
			imp_hpcc_topology(file, &h);
			topo_hpcc_free(&h);
		}
	} else if (!strcmp(kind, "hpcc-flows")) {
		struct hpcc_flows f;

		if (!(err = hpcc_flows_read(file, "", &f, &d))) {
			imp_hpcc_flows(file, &f);
			hpcc_flows_free(&f);
		}
	} else {
		return cli_usage_error("rocesim: import: ", imp_usage, "unknown kind \"%s\"", kind);
	}
	if (err == -ENOMEM) {
		fprintf(stderr, "rocesim: out of memory\n");
		return ROCESIM_EXIT_INPUT;
	}
	if (err) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
		return ROCESIM_EXIT_INPUT;
	}
	return 0;
}
