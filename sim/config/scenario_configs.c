/*
 * Real node configs a scenario names: switch.sonic (SONiC config_db.json),
 * nic.mlnx_qos (what mlnx_qos prints), nic.cc_params (mlx5 cc_params) and a
 * workload's pod (the NCCL_* environment of a Kubernetes manifest). They are
 * merged after --set and before the checks: a value a config gives becomes
 * the value of its scenario key unless the file or --set gives that key, and
 * what no scalar key carries is kept in struct raw_configs for the checks.
 * Each value merged keeps its origin (struct scn_origin: the file, its line
 * and what the file calls it), so that a refusal names the config's line,
 * not the scenario's, and `rocesim check` says where each value came from.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/mlnx.h"
#include "sim/config/pod.h"
#include "sim/config/scenario_impl.h"
#include "sim/config/sonic.h"
#include "sim/engine/ydoc.h"

/* ---- real configs: switch.sonic, nic.mlnx_qos, nic.cc_params, workload.pod ---- */

/* Whether the scenario itself (file or --set) gives @path: then it wins. */
static int explicit_key(const struct loader *l, const char *path)
{
	return ydoc_find(l->raw->doc, path) || scn__set_by_user(l->raw, path);
}

/* @o filled: the config named by @via gave a value at @file:@line, as @key. */
static const struct scn_origin *origin(struct scn_origin *o, const char *via, const char *file,
				       int line, const char *key, const char *value)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->via, sizeof(o->via), "%s", via);
	snprintf(o->file, sizeof(o->file), "%s", file);
	o->line = line;
	snprintf(o->key, sizeof(o->key), "%s", key);
	snprintf(o->value, sizeof(o->value), "%s", value ? value : "");
	return o;
}

/* Record that @o gave @path. 0 or -ENOMEM. */
static int note(struct loader *l, const struct scn_origin *o, const char *path)
{
	struct scn_origin c = *o;

	snprintf(c.path, sizeof(c.path), "%s", path);
	return scn__origin_add(l->raw, &c);
}

/* Give scalar key @path the value a real config says at @o, unless explicit. */
static int give(struct loader *l, const struct scn_origin *o, const char *path, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));
static int give(struct loader *l, const struct scn_origin *o, const char *path, const char *fmt,
		...)
{
	char kv[400];
	size_t n;
	va_list ap;
	int err;

	if (explicit_key(l, path))
		return 0;
	n = (size_t)snprintf(kv, sizeof(kv), "%s=", path);
	va_start(ap, fmt);
	vsnprintf(kv + n, sizeof(kv) - n, fmt, ap);
	va_end(ap);
	err = scn__apply_set(l, l->raw->top, kv);
	return err ? err : note(l, o, path);
}

/* A config file named by @key, relative to the scenario's folder. */
static char *config_path(const struct loader *l, const char *key, const char *value)
{
	const char *slash = strrchr(l->file, '/');
	size_t len;
	char *p;

	if (value[0] == '/' || !slash || scn__set_by_user(l->raw, key))
		return strdup(value);
	len = (size_t)(slash - l->file) + strlen(value) + 2;
	p = malloc(len);
	if (p)
		snprintf(p, len, "%.*s/%s", (int)(slash - l->file), l->file, value);
	return p;
}

/* A reader's error, said from the scenario key that named the file. */
static int config_fail(const struct loader *l, const char *key, struct diag *d)
{
	char buf[800];

	diag_str(d, buf, sizeof(buf));
	return scn__fail(l, key, "%s", buf);
}

/* SONiC's value at @a, as an origin. */
static const struct scn_origin *sonic_origin(struct scn_origin *o, const struct sonic_cfg *c,
					     const struct sonic_at *a)
{
	return origin(o, "switch.sonic", c->file, a->line, a->where, NULL);
}

/* config_db.json is read here from its text, so that values keep their lines. */
static int merge_sonic(struct loader *l, struct scenario *s, const char *value)
{
	struct scn_origin o;
	struct sonic_cfg c;
	struct diag d = {0};
	char where[SONIC_WHERE + 8];
	int err;

	if (!(s->cfg.sonic = config_path(l, "switch.sonic", value)))
		return -ENOMEM;
	if ((err = sonic_read(s->cfg.sonic, &c, &d)))
		return err == -ENOMEM ? err : config_fail(l, "switch.sonic", &d);
	if (c.has_pool &&
	    (err = give(l, sonic_origin(&o, &c, &c.pool_size_at), "switch.buffer.size", "%llu",
			(unsigned long long)c.buffer_size)))
		return err;
	if (c.has_pool && c.pool_xoff &&
	    (err = give(l, sonic_origin(&o, &c, &c.pool_xoff_at), "switch.buffer.headroom_pool",
			"%llu", (unsigned long long)c.pool_xoff)))
		return err;
	if (c.has_profile) {
		if (c.has_xoff &&
		    (err = give(l, sonic_origin(&o, &c, &c.xoff_at), "switch.pfc.headroom", "%llu",
				(unsigned long long)c.xoff)))
			return err;
		if (c.has_xon_offset && !explicit_key(l, "switch.pfc.xon") &&
		    (err = give(l, sonic_origin(&o, &c, &c.xon_offset_at), "switch.pfc.xon_offset",
				"%llu", (unsigned long long)c.xon_offset)))
			return err;
		if (c.has_dynamic_th && !explicit_key(l, "switch.pfc.xoff") &&
		    (err = give(l, sonic_origin(&o, &c, &c.dynamic_th_at), "switch.pfc.dynamic_th",
				"%d", c.dynamic_th)))
			return err;
		if (c.has_static_th && !c.has_dynamic_th &&
		    !explicit_key(l, "switch.pfc.dynamic_th") &&
		    (err = give(l, sonic_origin(&o, &c, &c.static_th_at), "switch.pfc.xoff", "%llu",
				(unsigned long long)c.static_th)))
			return err;
	}
	if (c.has_wred && ((err = give(l, sonic_origin(&o, &c, &c.ecn_at), "switch.ecn.enabled",
				       "%s", c.ecn_marking ? "true" : "false")) ||
			   (err = give(l, sonic_origin(&o, &c, &c.kmin_at), "switch.ecn.kmin",
				       "%llu", (unsigned long long)c.kmin)) ||
			   (err = give(l, sonic_origin(&o, &c, &c.kmax_at), "switch.ecn.kmax",
				       "%llu", (unsigned long long)c.kmax)) ||
			   (err = give(l, sonic_origin(&o, &c, &c.pmax_at), "switch.ecn.pmax",
				       "%g%%", c.pmax * 100))))
		return err;
	if (c.has_watchdog &&
	    ((err = give(l, sonic_origin(&o, &c, &c.wd_detection_at), "switch.watchdog.detection",
			 "%ums", c.wd_detection_ms)) ||
	     (err = give(l, sonic_origin(&o, &c, &c.wd_restoration_at),
			 "switch.watchdog.restoration", "%ums", c.wd_restoration_ms)) ||
	     (err = give(l, sonic_origin(&o, &c, &c.wd_action_at), "switch.watchdog.action", "%s",
			 c.wd_action))))
		return err;
	if (c.has_pfc_enable && !explicit_key(l, "switch.lossless")) {
		l->raw->cfg.has_lossless = 1;
		l->raw->cfg.lossless = c.pfc_enable;
		if ((err =
			 note(l, origin(&o, "switch.sonic", c.file, c.pfc_line, c.pfc_where, NULL),
			      "switch.lossless")))
			return err;
	}
	if (c.has_dscp_map) {
		l->raw->cfg.dscp_given = c.dscp_given;
		memcpy(l->raw->cfg.dscp_to_tc, c.dscp_to_tc, sizeof(c.dscp_to_tc));
		/* the map as a whole (what it does not name goes to TC 0), then each entry */
		if ((err = note(l, sonic_origin(&o, &c, &c.dscp_map_at), "switch.dscp_to_tc")))
			return err;
		for (int dscp = 0; dscp < 64; dscp++) {
			char path[32];

			if (!((c.dscp_given >> dscp) & 1))
				continue;
			snprintf(path, sizeof(path), "switch.dscp_to_tc.%d", dscp);
			snprintf(where, sizeof(where), "%s|%d", c.dscp_map_at.where, dscp);
			if ((err = note(
				 l,
				 origin(&o, "switch.sonic", c.file, c.dscp_line[dscp], where, NULL),
				 path)))
				return err;
		}
	}
	return 0;
}

static int merge_mlnx_qos(struct loader *l, struct scenario *s, const char *value)
{
	struct scn_origin o;
	struct mlnx_qos q;
	struct diag d = {0};
	int err;

	if (!(s->cfg.mlnx_qos = config_path(l, "nic.mlnx_qos", value)))
		return -ENOMEM;
	if ((err = mlnx_qos_read(s->cfg.mlnx_qos, &q, &d)))
		return err == -ENOMEM ? err : config_fail(l, "nic.mlnx_qos", &d);
	if (q.has_pfc && !explicit_key(l, "nic.pfc")) {
		l->raw->cfg.has_nic_pfc = 1;
		l->raw->cfg.nic_pfc = q.pfc_enabled;
		if ((err = note(l,
				origin(&o, "nic.mlnx_qos", q.file, q.pfc_line, "PFC enabled", NULL),
				"nic.pfc")))
			return err;
	}
	if (q.has_trust && q.trust_dscp) {
		l->raw->cfg.has_dscp2prio = 1;
		/* the NIC's whole map (trust dscp), then each DSCP the mapping lists */
		if ((err = note(l,
				origin(&o, "nic.mlnx_qos", q.file, q.trust_line,
				       "Priority trust state", "dscp"),
				"nic.dscp2prio")))
			return err;
		for (int dscp = 0; dscp < 64; dscp++) {
			char path[32], key[32];

			l->raw->cfg.dscp2prio[dscp] =
				(q.dscp_given >> dscp) & 1 ? q.dscp2prio[dscp] : (uint8_t)(dscp >> 3);
			if (!((q.dscp_given >> dscp) & 1))
				continue;
			snprintf(path, sizeof(path), "nic.dscp2prio.%d", dscp);
			snprintf(key, sizeof(key), "dscp2prio %d", dscp);
			if ((err = note(
				 l,
				 origin(&o, "nic.mlnx_qos", q.file, q.dscp_line[dscp], key, NULL),
				 path)))
				return err;
		}
	}
	return 0;
}

/* Every entry is the origin of its nic.dcqcn key (the last one wins, as applied). */
static int merge_cc_params(struct loader *l, struct scenario *s, const char *value)
{
	struct scn_origin o;
	struct diag d = {0};
	int err;

	if (!(s->cfg.cc_params = config_path(l, "nic.cc_params", value)))
		return -ENOMEM;
	if ((err = cc_params_read(s->cfg.cc_params, &l->raw->cfg.cc, &d)))
		return err == -ENOMEM ? err : config_fail(l, "nic.cc_params", &d);
	for (size_t i = 0; i < l->raw->cfg.cc.n; i++) {
		const struct cc_entry *e = &l->raw->cfg.cc.v[i];
		char path[96];

		snprintf(path, sizeof(path), "nic.dcqcn.%s", e->name);
		if (!explicit_key(l, path) &&
		    (err = note(l, origin(&o, "nic.cc_params", e->file, e->line, e->name, e->value),
				path)))
			return err;
	}
	return 0;
}

/*
 * The pod of workload @prefix: NCCL_IB_TC is the IP traffic class, DSCP in
 * its upper 6 bits; NCCL_IB_TIMEOUT the transport timeout. A manifest that
 * turns RDMA off (NCCL_IB_DISABLE) is refused, but for `check` (lenient),
 * which reports it.
 */
static int merge_pod(struct loader *l, struct scenario *s, const char *prefix, const char *value)
{
	char key[64], path[96];
	const struct pod_env *e;
	struct scn_origin o;
	struct scn_pod *pods;
	struct pod_cfg pc;
	struct diag d = {0};
	unsigned long v;
	char *end, *file;
	int err = 0;

	snprintf(key, sizeof(key), "%s.pod", prefix);
	pods = realloc(s->cfg.pods, (s->cfg.n_pods + 1) * sizeof(*pods));
	if (!pods)
		return -ENOMEM;
	s->cfg.pods = pods;
	if (!(file = config_path(l, key, value)))
		return -ENOMEM;
	pods[s->cfg.n_pods].file = file;
	snprintf(pods[s->cfg.n_pods].workload, sizeof(pods[0].workload), "%s", prefix);
	s->cfg.n_pods++;
	if ((err = pod_read(file, &pc, &d)))
		return err == -ENOMEM ? err : config_fail(l, key, &d);
	if ((e = pod_ib_disabled(&pc)) && !(l->raw->cfg.flags & SCN_LOAD_LENIENT)) {
		diag_set(l->d, pc.file, e->line, "NCCL_IB_DISABLE",
			 "%s: %s; there is no RoCE traffic to simulate (%s)", e->value,
			 POD_IB_DISABLED_WHY, key);
		err = -EINVAL;
	}
	/* a value from a Secret or ConfigMap is only known at run time: not used */
	if (!err && (e = pod_get(&pc, "NCCL_IB_TC")) && !e->value_from) {
		v = strtoul(e->value, &end, 10);
		if (end == e->value || *end || v > 255) {
			diag_set(l->d, pc.file, e->line, "NCCL_IB_TC",
				 "\"%s\" is not a traffic class (0 to 255) (%s)", e->value, key);
			err = -EINVAL;
		}
		snprintf(path, sizeof(path), "%s.dscp", prefix);
		err = err ? err
			  : give(l, origin(&o, key, pc.file, e->line, "NCCL_IB_TC", e->value), path,
				 "%lu", v >> 2);
	}
	if (!err && (e = pod_get(&pc, "NCCL_IB_TIMEOUT")) && !e->value_from) {
		v = strtoul(e->value, &end, 10);
		if (end == e->value || *end || v > 31) {
			diag_set(l->d, pc.file, e->line, "NCCL_IB_TIMEOUT",
				 "\"%s\" is not 0 to 31 (%s)", e->value, key);
			err = -EINVAL;
		}
		err = err ? err
			  : give(l, origin(&o, key, pc.file, e->line, "NCCL_IB_TIMEOUT", e->value),
				 "nic.transport.timeout", "%lu", v);
	}
	pod_free(&pc);
	return err;
}

int scn__merge_configs(struct loader *l, struct scenario *s)
{
	struct raw_top *r = l->raw->top;
	char prefix[32];
	int err;

	if (r->sw && r->sw->sonic && (err = merge_sonic(l, s, r->sw->sonic)))
		return err;
	if (r->nic && r->nic->mlnx_qos && (err = merge_mlnx_qos(l, s, r->nic->mlnx_qos)))
		return err;
	if (r->nic && r->nic->cc_params && (err = merge_cc_params(l, s, r->nic->cc_params)))
		return err;
	if (r->workload && r->workload->pod && (err = merge_pod(l, s, "workload", r->workload->pod)))
		return err;
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if (r->workloads[i].pod && (err = merge_pod(l, s, prefix, r->workloads[i].pod)))
			return err;
	}
	return 0;
}
