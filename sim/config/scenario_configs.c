/*
 * Real node configs a scenario names: switch.sonic (SONiC config_db.json),
 * nic.mlnx_qos (what mlnx_qos prints), nic.cc_params (mlx5 cc_params) and a
 * workload's pod (the NCCL_* environment of a Kubernetes manifest). Each
 * reader gives plain typed data (struct sonic_cfg, mlnx_qos, cc_params,
 * pod_cfg); one function per format below says which of its fields becomes
 * which field of struct scenario, and writes it there, typed, with its
 * origin (struct scn_origin: the file, its line and what the file calls it).
 *
 * A value a config gives counts unless the scenario gives that key itself
 * (its file or --set): the explicit key wins. The merge runs after --set and
 * before the checks (scenario_check.c), which take a config's value in place
 * of their default and check it as they check the file's; a value they
 * refuse is named at the config's file, line and key (scn__fail). The path
 * of a value, for example SONiC's static_th:
 *
 *   config_db.json -> sonic_read -> sonic_cfg.static_th -> sonic_to_switch
 *     -> scenario.sw.pfc.xoff (origin: file, line, BUFFER_PROFILE|..|static_th)
 *     -> check_pfc -> the switch model
 *
 * The cc_params entries are text in their file: they are read as they are
 * by the checks (scn_dcqcn_param over the DCQCN defaults of the variant),
 * and recorded here as the origins of their nic.dcqcn keys.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx.h"
#include "sim/readers/pod.h"
#include "sim/config/scenario_impl.h"
#include "sim/readers/sonic.h"
#include "sim/readers/ydoc.h"

/* One config being merged: the loader, the config's key and file, the first error. */
struct merge {
	struct loader *l;
	const char *via;  /* the scenario key that names the config: "switch.sonic" */
	const char *file; /* the config's file, as its reader names it */
	int err;	  /* 0, or -ENOMEM: later calls do nothing */
};

/*
 * Record that the config of @m gave @path, at @line of its file where it is
 * called @key (and written @value, when worth keeping). 1, or 0 on an error.
 */
static int note(struct merge *m, const char *path, int line, const char *key, const char *value)
{
	struct scn_origin o = {.line = line};

	if (m->err)
		return 0;
	snprintf(o.path, sizeof(o.path), "%s", path);
	snprintf(o.via, sizeof(o.via), "%s", m->via);
	snprintf(o.file, sizeof(o.file), "%s", m->file);
	snprintf(o.key, sizeof(o.key), "%s", key);
	snprintf(o.value, sizeof(o.value), "%s", value ? value : "");
	m->err = scn__origin_add(m->l->raw, &o);
	return !m->err;
}

/*
 * Whether the config of @m gives scalar key @path: not when the scenario
 * gives it. When it does, its origin is recorded (note) and the caller
 * writes the value into struct scenario.
 */
static int gives(struct merge *m, const char *path, int line, const char *key, const char *value)
{
	return !m->err && !scn__explicit(m->l, path) && note(m, path, line, key, value);
}

/* A SONiC value's line and "TABLE|key|field", for note() and gives(). */
#define AT(a) (a).line, (a).where, NULL

/* SONiC's PFC_WD action (drop, forward or alert: sonic_read refuses others). */
static enum sw_wd_action wd_action(const char *action)
{
	if (!strcmp(action, "forward"))
		return SW_WD_FORWARD;
	return strcmp(action, "alert") ? SW_WD_DROP : SW_WD_ALERT;
}

/*
 * config_db.json -> switch. The lossless profile's xoff is the PG's
 * headroom; its threshold is dynamic_th or static_th (xoff), each given
 * unless the scenario chooses the other kind; its xon_offset unless the
 * scenario gives an absolute xon. A DSCP_TO_TC_MAP is the whole map: the
 * DSCPs it does not name go to TC 0 (the scenario's own entries still win,
 * scenario_check.c).
 */
static void sonic_to_switch(struct merge *m, const struct sonic_cfg *c, struct scenario *s)
{
	struct loader *l = m->l;
	char path[32], where[SONIC_WHERE + 8];

	if (c->has_pool && c->has_pool_size && gives(m, "switch.buffer.size", AT(c->pool_size_at)))
		s->sw.buffer = c->buffer_size;
	if (c->has_pool && c->pool_xoff &&
	    gives(m, "switch.buffer.headroom_pool", AT(c->pool_xoff_at)))
		s->sw.headroom_pool = c->pool_xoff;
	if (c->has_profile && c->has_xoff && gives(m, "switch.pfc.headroom", AT(c->xoff_at)))
		s->sw.pfc.headroom = c->xoff;
	if (c->has_profile && c->has_xon_offset && !scn__explicit(l, "switch.pfc.xon") &&
	    gives(m, "switch.pfc.xon_offset", AT(c->xon_offset_at)))
		s->sw.pfc.xon_offset = c->xon_offset;
	/* XON no lower than xon (SAI's XON_TH beside XON_OFFSET_TH; scenario_sonic.c) */
	if (c->has_profile && c->has_xon && !scn__explicit(l, "switch.pfc.xon") &&
	    !scn__explicit(l, "switch.pfc.xon_offset") &&
	    note(m, "switch.pfc.xon_floor", AT(c->xon_at)))
		s->sw.pfc.xon_floor = c->xon;
	if (c->has_profile && c->has_dynamic_th && !scn__explicit(l, "switch.pfc.xoff") &&
	    gives(m, "switch.pfc.dynamic_th", AT(c->dynamic_th_at)))
		s->sw.pfc.dynamic_th = c->dynamic_th;
	if (c->has_profile && c->has_static_th && !c->has_dynamic_th &&
	    !scn__explicit(l, "switch.pfc.dynamic_th") &&
	    gives(m, "switch.pfc.xoff", AT(c->static_th_at)))
		s->sw.pfc.xoff = c->static_th;
	if (c->has_wred && gives(m, "switch.ecn.enabled", AT(c->ecn_at)))
		s->sw.ecn.enabled = c->ecn_marking != 0;
	if (c->has_wred && gives(m, "switch.ecn.kmin", AT(c->kmin_at)))
		s->sw.ecn.kmin = c->kmin;
	if (c->has_wred && gives(m, "switch.ecn.kmax", AT(c->kmax_at)))
		s->sw.ecn.kmax = c->kmax;
	if (c->has_wred && gives(m, "switch.ecn.pmax", AT(c->pmax_at)))
		s->sw.ecn.pmax = c->pmax;
	if (c->has_watchdog && gives(m, "switch.watchdog.detection", AT(c->wd_detection_at)))
		s->sw.wd.detection = c->wd_detection_ms * SIMTIME_MS;
	if (c->has_watchdog && gives(m, "switch.watchdog.restoration", AT(c->wd_restoration_at)))
		s->sw.wd.restoration = c->wd_restoration_ms * SIMTIME_MS;
	if (c->has_watchdog && gives(m, "switch.watchdog.action", AT(c->wd_action_at)))
		s->sw.wd.action = wd_action(c->wd_action);
	if (c->has_pfc_enable && gives(m, "switch.lossless", c->pfc_line, c->pfc_where, NULL))
		s->sw.lossless = c->pfc_enable;
	if (c->has_sched && !scn__explicit(l, "switch.weights") &&
	    gives(m, "switch.scheduler", AT(c->sched_at))) {
		s->sw.sched = c->sched_dwrr ? SW_SCHED_DWRR : SW_SCHED_STRICT;
		memcpy(s->sw.weights, c->sched_weights, sizeof(s->sw.weights));
	}
	if (!c->has_dscp_map || !note(m, "switch.dscp_to_tc", AT(c->dscp_map_at)))
		return;
	/* a map that names no DSCP leaves the default map */
	l->raw->cfg.dscp_map = c->dscp_given != 0;
	for (int dscp = 0; dscp < 64; dscp++) {
		int named = (c->dscp_given >> dscp) & 1;

		s->sw.dscp_to_tc[dscp] = named ? c->dscp_to_tc[dscp] : 0;
		snprintf(path, sizeof(path), "switch.dscp_to_tc.%d", dscp);
		snprintf(where, sizeof(where), "%s|%d", c->dscp_map_at.where, dscp);
		if (named)
			note(m, path, c->dscp_line[dscp], where, NULL);
	}
}

int scn__merge_sonic_file(struct loader *l, struct scenario *s, const char *key, const char *path)
{
	struct merge m = {.l = l, .via = key};
	struct sonic_cfg *c;
	struct diag d = {0};
	int err;

	if (!(s->cfg.sonic = strdup(path)) || !(c = l->raw->cfg.sonic = malloc(sizeof(*c))))
		return -ENOMEM;
	if ((err = sonic_read(s->cfg.sonic, c, &d)))
		return err == -ENOMEM ? err : scn__config_fail(l, key, &d);
	m.file = c->file;
	s->sonic_ports = c->n_ports;
	sonic_to_switch(&m, c, s);
	return m.err;
}

/*
 * mlnx_qos's tc lines -> nic.tc: each class printed gives its tsa, its
 * share (ets) and its rate limit, and each "priority:" line its class.
 * "unknown" (another algorithm, or none printed) is left strict, as check
 * says.
 */
static void mlnx_qos_tcs(struct merge *m, const struct mlnx_qos *q, struct scenario *s)
{
	char path[32], key[32], val[32];

	s->nic.tc_on = 1;
	for (int tc = 0; tc < 8; tc++) {
		struct nic_tc_params *c = &s->nic.tc[tc];
		int line = q->tc_line[tc];

		if (!q->tsa[tc][0])
			continue;
		snprintf(key, sizeof(key), "tc %d", tc);
		snprintf(path, sizeof(path), "nic.tc.%d.tsa", tc);
		if (strcmp(q->tsa[tc], "unknown") && gives(m, path, line, key, q->tsa[tc]))
			c->tsa = !strcmp(q->tsa[tc], "ets")	 ? NIC_TSA_ETS
				 : !strcmp(q->tsa[tc], "vendor") ? NIC_TSA_VENDOR
								 : NIC_TSA_STRICT;
		snprintf(path, sizeof(path), "nic.tc.%d.bw", tc);
		snprintf(val, sizeof(val), "%u%%", q->bw[tc]);
		if (!strcmp(q->tsa[tc], "ets") && gives(m, path, line, key, val))
			c->bw = q->bw[tc];
		snprintf(path, sizeof(path), "nic.tc.%d.ratelimit", tc);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)q->ratelimit[tc]);
		if (gives(m, path, line, key, q->ratelimit[tc] ? val : "unlimited"))
			c->ratelimit = q->ratelimit[tc];
	}
	for (int p = 0; p < 8; p++) {
		snprintf(path, sizeof(path), "nic.prio_tc.%d", p);
		snprintf(key, sizeof(key), "priority %d", p);
		if (q->prio_tc_line[p] && note(m, path, q->prio_tc_line[p], key, NULL))
			s->nic.prio_tc[p] = q->prio_tc[p];
	}
}

/*
 * `mlnx_qos -i IF` -> nic: the PFC row gives nic.pfc; with trust dscp, its
 * dscp2prio is the NIC's map (what it does not list keeps mlx5's default,
 * DSCP >> 3); its tc lines the classes (mlnx_qos_tcs).
 */
static void mlnx_qos_to_nic(struct merge *m, const struct mlnx_qos *q, struct scenario *s)
{
	char path[32], key[32];

	if (q->has_tc)
		mlnx_qos_tcs(m, q, s);
	if (q->has_pfc && gives(m, "nic.pfc", q->pfc_line, "PFC enabled", NULL))
		s->nic.pfc = q->pfc_enabled;
	if (!q->has_trust || !q->trust_dscp ||
	    !note(m, "nic.dscp2prio", q->trust_line, "Priority trust state", "dscp"))
		return;
	for (int dscp = 0; dscp < 64; dscp++) {
		int listed = (q->dscp_given >> dscp) & 1;

		s->nic.dscp2prio[dscp] = listed ? q->dscp2prio[dscp] : (uint8_t)(dscp >> 3);
		snprintf(path, sizeof(path), "nic.dscp2prio.%d", dscp);
		snprintf(key, sizeof(key), "dscp2prio %d", dscp);
		if (listed)
			note(m, path, q->dscp_line[dscp], key, NULL);
	}
}

int scn__merge_mlnx_qos(struct loader *l, struct scenario *s, const char *value)
{
	struct merge m = {.l = l, .via = "nic.mlnx_qos"};
	struct mlnx_qos q;
	struct diag d = {0};
	int err;

	if (!(s->cfg.mlnx_qos = scn__config_path(l, "nic.mlnx_qos", value)))
		return -ENOMEM;
	if ((err = mlnx_qos_read(s->cfg.mlnx_qos, &q, &d)))
		return err == -ENOMEM ? err : scn__config_fail(l, "nic.mlnx_qos", &d);
	m.file = q.file;
	mlnx_qos_to_nic(&m, &q, s);
	return m.err;
}

/*
 * cc_params -> nic.dcqcn: every entry is the origin of its nic.dcqcn key
 * (the last one wins, as applied); the values are applied by the checks.
 */
int scn__merge_cc_params(struct loader *l, struct scenario *s)
{
	struct merge m = {.l = l, .via = "nic.cc_params"};
	char path[96];
	int err;

	if ((err = scn__cc_params_read(l, s)))
		return err;
	for (size_t i = 0; i < l->raw->cfg.cc.n; i++) {
		const struct cc_entry *e = &l->raw->cfg.cc.v[i];

		snprintf(path, sizeof(path), "nic.dcqcn.%s", e->name);
		m.file = e->file;
		gives(&m, path, e->line, e->name, e->value);
	}
	return m.err;
}

/* @e's value as a whole number up to @max into *@v; 0 or -EINVAL. */
static int pod_number(const struct pod_env *e, unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(e->value, &end, 10);
	return end == e->value || *end || *v > max ? -EINVAL : 0;
}

/* A pod's NCCL variable @name (0 to @max), when given, into the transport
 * key @path (*@out) unless the scenario gives it. 0 or -EINVAL. */
static int pod_transport(struct merge *m, const struct pod_cfg *pc, const char *name,
			 unsigned long max, const char *path, const char *key, uint32_t *out)
{
	const struct pod_env *e = pod_get(pc, name);
	unsigned long v;

	if (!e || e->value_from)
		return 0;
	if (pod_number(e, max, &v)) {
		diag_set(m->l->d, pc->file, e->src_line, name, "\"%s\" is not 0 to %lu (%s)",
			 e->value, max, key);
		return -EINVAL;
	}
	if (gives(m, path, e->src_line, name, e->value))
		*out = (uint32_t)v;
	return 0;
}

/*
 * A workload's pod -> the workload and nic: NCCL_IB_TC is the IP traffic
 * class, the workload's DSCP in its upper 6 bits;
 * NCCL_IB_QPS_PER_CONNECTION and NCCL_IB_SPLIT_DATA_ON_QPS its
 * qps_per_connection and split_data_on_qps; NCCL_IB_TIMEOUT the
 * transport timeout, NCCL_IB_RETRY_CNT its retry count. A value from a Secret, or from a ConfigMap
 * the file does not hold, is only known at run time: not used. Each value is named where it is
 * written (src_line: a ConfigMap's line when it comes from one). @key is the scenario key that
 * names the pod.
 */
static int pod_to_workload(struct merge *m, const struct pod_cfg *pc, const char *key,
			   struct scn_pod *pod, struct scenario *s)
{
	const struct pod_env *e;
	unsigned long v;
	char path[96];
	int err;

	if ((e = pod_get(pc, "NCCL_IB_TC")) && !e->value_from) {
		if (pod_number(e, 255, &v)) {
			diag_set(m->l->d, pc->file, e->src_line, "NCCL_IB_TC",
				 "\"%s\" is not a traffic class (0 to 255) (%s)", e->value, key);
			return -EINVAL;
		}
		if (gives(m, scn__wpath(path, sizeof(path), pod->workload, "dscp"), e->src_line,
			  "NCCL_IB_TC", e->value))
			pod->dscp = (int)(v >> 2);
	}
	if ((e = pod_get(pc, "NCCL_IB_QPS_PER_CONNECTION")) && !e->value_from) {
		/* NCCL takes 1 to 128 */
		if (pod_number(e, 128, &v) || !v) {
			diag_set(m->l->d, pc->file, e->src_line, "NCCL_IB_QPS_PER_CONNECTION",
				 "\"%s\" is not 1 to 128 (%s)", e->value, key);
			return -EINVAL;
		}
		pod->qps_line = e->src_line;
		if (gives(m, scn__wpath(path, sizeof(path), pod->workload, "qps_per_connection"),
			  e->src_line, "NCCL_IB_QPS_PER_CONNECTION", e->value))
			pod->qps = (uint32_t)v;
	}
	if ((e = pod_get(pc, "NCCL_IB_SPLIT_DATA_ON_QPS")) && !e->value_from) {
		/* an integer to NCCL, split mode only when 1 */
		if (pod_number(e, 1000000, &v)) {
			diag_set(m->l->d, pc->file, e->src_line, "NCCL_IB_SPLIT_DATA_ON_QPS",
				 "\"%s\" is not a number (0: round robin, 1: split) (%s)", e->value,
				 key);
			return -EINVAL;
		}
		pod->split_line = e->src_line;
		if (gives(m, scn__wpath(path, sizeof(path), pod->workload, "split_data_on_qps"),
			  e->src_line, "NCCL_IB_SPLIT_DATA_ON_QPS", e->value))
			pod->split = v == 1;
	}
	if ((e = pod_get(pc, "NCCL_IB_HCA")) && !e->value_from) {
		/* which NICs: checked against the servers when the ranks are known */
		snprintf(pod->hca, sizeof(pod->hca), "%s", e->value);
		pod->hca_line = e->src_line;
	}
	if ((err = pod_transport(m, pc, "NCCL_IB_TIMEOUT", 31, "nic.transport.timeout", key,
				 &s->nic.timeout_exp)) ||
	    (err = pod_transport(m, pc, "NCCL_IB_RETRY_CNT", 7, "nic.transport.retry_cnt", key,
				 &s->nic.retry_cnt)))
		return err;
	return m->err;
}

/*
 * The pod of workload @prefix. A manifest that turns RDMA off
 * (NCCL_IB_DISABLE) is refused, but for `check` (lenient), which reports it.
 */
int scn__merge_pod(struct loader *l, struct scenario *s, const char *prefix, const char *value,
		   int kind)
{
	struct merge m = {.l = l};
	const struct pod_env *e;
	struct scn_pod *pods, *pod;
	struct pod_cfg pc;
	struct diag d = {0};
	char key[64], *file;
	int err;

	snprintf(key, sizeof(key), "%s.pod", prefix);
	pods = realloc(s->cfg.pods, (s->cfg.n_pods + 1) * sizeof(*pods));
	if (!pods)
		return -ENOMEM;
	s->cfg.pods = pods;
	if (!(file = scn__config_path(l, key, value)))
		return -ENOMEM;
	pod = &pods[s->cfg.n_pods++];
	memset(pod, 0, sizeof(*pod));
	pod->file = file;
	pod->dscp = -1;
	pod->split = -1;
	pod->coll = SCN_WL_IS_COLL(kind - 1) || SCN_WL_IS_JOB(kind - 1);
	snprintf(pod->workload, sizeof(pod->workload), "%s", prefix);
	if ((err = pod_read(file, &pc, &d)))
		return err == -ENOMEM ? err : scn__config_fail(l, key, &d);
	m.via = key;
	m.file = pc.file;
	if ((e = pod_ib_disabled(&pc)) && !(l->raw->cfg.flags & SCN_LOAD_LENIENT)) {
		diag_set(l->d, pc.file, e->src_line, "NCCL_IB_DISABLE",
			 "%s: %s; there is no RoCE traffic to simulate (%s)", e->value,
			 POD_IB_DISABLED_WHY, key);
		err = -EINVAL;
	}
	if (!err)
		err = pod_to_workload(&m, &pc, key, pod, s);
	pod_free(&pc);
	return err;
}
