/*
 * Scenario checks: every section of what libcyaml loaded (topology, switch,
 * nic with its transport and DCQCN, workloads, faults, expect: gates, output,
 * deadlock) checked and turned into the integers of struct scenario, each
 * refusal naming the key, its line and what was expected. Defaults are
 * applied here (Debian's libcyaml has none). What needs the topology (host
 * and link names) is left to scenario_resolve.c. Also scn_dcqcn_param, the
 * mlx5 cc_params names and ranges that nic.dcqcn, nic.cc_params, `rocesim
 * check` and `rocesim import` share.
 */
#include "sim/config/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/mlnx.h"
#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/engine/ydoc.h"

/* ---- values: numbers, sizes, times, links ------------------------------------ */

int scn__get_uint(const struct loader *l, const char *path, const char *s, uint64_t def,
		  uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)s[0]) || *end || errno)
		return scn__fail(l, path, "\"%s\" is not a whole number", s);
	if (v < min || v > max)
		return scn__fail(l, path, "%llu is out of range (%llu to %llu)", v,
				 (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

static int get_u32(const struct loader *l, const char *path, const char *s, uint32_t def,
		   uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v = def;
	int err =
	    scn__get_uint(l, path, s, scn__from_config(l->raw, path) ? *out : def, min, max, &v);

	if (!err)
		*out = (uint32_t)v;
	return err;
}

static int get_size(const struct loader *l, const char *path, const char *s, uint64_t def,
		    int positive, uint64_t *out)
{
	int err;

	if (!s && !scn__from_config(l->raw, path)) {
		*out = def;
		return 0;
	}
	err = s ? units_size(s, out) : 0; /* else a real config's, in *@out already */
	if (err == UNITS_EFRACTION)
		return scn__fail(l, path, "\"%s\" is not a whole number of bytes", s);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a size (e.g. 1.2MB, 150KiB, 65536)", s);
	if (positive && !*out)
		return scn__fail(l, path, "must be more than 0");
	return 0;
}

static int get_time(const struct loader *l, const char *path, const char *s, simtime_t def,
		    int positive, simtime_t *out)
{
	int err;

	if (!s && !scn__from_config(l->raw, path)) {
		*out = def;
		return 0;
	}
	err = s ? units_time(s, out) : 0; /* else a real config's, in *@out already */
	if (err == UNITS_EFRACTION)
		return scn__fail(l, path, "\"%s\" is finer than a picosecond", s);
	if (err == UNITS_ERANGE)
		return scn__fail(l, path, "\"%s\" is out of range (at most 1000000s)", s);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a time (e.g. 1us, 2.5ms, 100ns)", s);
	if (positive && !*out)
		return scn__fail(l, path, "must be more than 0");
	return 0;
}

static int get_link(const struct loader *l, const char *path, const struct raw_link *r,
		    const struct topo_linkspec *def, struct topo_linkspec *out)
{
	char p[160];
	uint64_t mm;
	int err;

	*out = *def;
	if (!r)
		return 0;
	if (r->rate) {
		snprintf(p, sizeof(p), "%s.rate", path);
		err = units_rate(r->rate, &out->rate_bps);
		if (err)
			return scn__fail(l, p, "\"%s\" is not a rate (e.g. 100Gbps, 400Gb/s)",
					 r->rate);
		if (!out->rate_bps)
			return scn__fail(l, p, "must be more than 0");
	}
	if (r->cable && r->delay) {
		snprintf(p, sizeof(p), "%s.delay", path);
		return scn__fail(l, p, "give either cable or delay, not both");
	}
	if (r->cable) {
		snprintf(p, sizeof(p), "%s.cable", path);
		err = units_length(r->cable, &mm);
		if (err == UNITS_ERANGE)
			return scn__fail(l, p, "\"%s\" is out of range (at most 1000km)", r->cable);
		if (err)
			return scn__fail(l, p, "\"%s\" is not a cable length (e.g. 2m, 300m, 2km)",
					 r->cable);
		out->delay = mm * SIMTIME_PS_PER_MM;
	}
	if (r->delay) {
		snprintf(p, sizeof(p), "%s.delay", path);
		return get_time(l, p, r->delay, 0, 0, &out->delay);
	}
	return 0;
}

static int get_bool(const struct loader *l, const char *path, const char *s, int def, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", NULL};
	static const char *const no[] = {"false", "no", "off", "0", NULL};

	if (!s && scn__from_config(l->raw, path))
		return 0; /* a real config's, in *@out already */
	*out = def;
	if (!s)
		return 0;
	for (int i = 0; yes[i]; i++) {
		if (!strcmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return scn__fail(l, path, "\"%s\" is not true or false", s);
}

static int get_int(const struct loader *l, const char *path, const char *s, int def, int min,
		   int max, int *out)
{
	char *end;
	long v = *out; /* a real config's, unless the scenario gives one */

	if (!s && !scn__from_config(l->raw, path)) {
		*out = def;
		return 0;
	}
	if (s) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || *end || errno)
			return scn__fail(l, path, "\"%s\" is not a whole number", s);
	}
	if (v < min || v > max)
		return scn__fail(l, path, "%ld is out of range (%d to %d)", v, min, max);
	*out = (int)v;
	return 0;
}

/* A list of priorities ("[3, 4]") as a bit mask. */
static int get_prio_list(const struct loader *l, const char *path, char **v, unsigned n,
			 uint8_t *mask)
{
	char p[200];

	*mask = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t prio;
		int err;

		snprintf(p, sizeof(p), "%s[%u]", path, i);
		err = get_u32(l, p, v[i], 0, 0, 7, &prio);
		if (err)
			return err;
		*mask |= (uint8_t)(1u << prio);
	}
	return 0;
}

/* ---- topology ---------------------------------------------------------------- */

/* A key that the chosen kind does not use is a mistake worth naming. */
static int unused(const struct loader *l, const char *path, const char *v, const char *kind)
{
	if (v)
		return scn__fail(l, path, "does not apply to %s", kind);
	return 0;
}

static int check_topology(const struct loader *l, const struct raw_topology *r,
			  struct scenario *s)
{
	static const struct topo_linkspec def_link = {100000000000ULL, 2000 * SIMTIME_PS_PER_MM};
	struct topo_spec *t = &s->topo;
	const char *kind;
	int err = 0;

	if (!r)
		return scn__fail(l, "topology", "missing (e.g. topology: {kind: star, hosts: 9})");
	if (!r->kind)
		return scn__fail(l, "topology.kind",
				 "missing (star, leaf_spine, fat_tree, ring or file)");
	t->kind = (enum topo_kind)(r->kind - 1);
	kind = scn__topo_kinds[t->kind].str;
	switch (t->kind) {
	case TOPO_STAR:
		err = get_u32(l, "topology.hosts", r->hosts, 0, 1, 65535, &t->hosts);
		if (!err && !r->hosts)
			err = scn__fail(l, "topology.hosts", "missing for a star");
		break;
	case TOPO_LEAF_SPINE:
		err = get_u32(l, "topology.leaves", r->leaves, 0, 1, 4096, &t->leaves);
		err = err ? err : get_u32(l, "topology.spines", r->spines, 0, 1, 4096, &t->spines);
		err = err ? err : get_u32(l, "topology.hosts_per_leaf", r->hosts_per_leaf, 0, 1,
					  4096, &t->hosts_per_leaf);
		err = err ? err : get_u32(l, "topology.parallel", r->parallel, 1, 1, 64, &t->parallel);
		if (!err && (!r->leaves || !r->spines || !r->hosts_per_leaf))
			err = scn__fail(
			    l,
			    !r->leaves	 ? "topology.leaves"
			    : !r->spines ? "topology.spines"
					 : "topology.hosts_per_leaf",
			    "missing for a leaf_spine (it needs leaves, spines and hosts_per_leaf)");
		break;
	case TOPO_FAT_TREE:
		err = get_u32(l, "topology.k", r->k, 0, 2, 64, &t->k);
		if (!err && !r->k)
			err = scn__fail(l, "topology.k", "missing for a fat_tree");
		if (!err && t->k % 2)
			err = scn__fail(l, "topology.k", "must be even (k-ary fat-tree), not %u",
					t->k);
		break;
	case TOPO_RING:
		err = get_u32(l, "topology.switches", r->switches, 0, 2, 4096, &t->switches);
		err = err ? err : get_u32(l, "topology.hosts_per_switch", r->hosts_per_switch, 1, 1,
					  4096, &t->hosts_per_switch);
		if (!err && !r->switches)
			err = scn__fail(l, "topology.switches", "missing for a ring");
		break;
	case TOPO_FILE:
		if (!r->file) {
			err = scn__fail(l, "topology.file", "missing for kind file");
			break;
		}
		/* relative to the scenario's folder, as users write it; from --set,
		 * relative to where the command runs */
		if (r->file[0] != '/' && strrchr(l->file, '/') &&
		    !scn__set_by_user(l->raw, "topology.file")) {
			int dir = (int)(strrchr(l->file, '/') - l->file);
			size_t len = (size_t)dir + strlen(r->file) + 2;

			s->topo_file = malloc(len);
			if (!s->topo_file)
				return -ENOMEM;
			snprintf(s->topo_file, len, "%.*s/%s", dir, l->file, r->file);
		} else if (!(s->topo_file = strdup(r->file))) {
			return -ENOMEM;
		}
		t->file = s->topo_file;
		break;
	}
	if (err)
		return err;
	if (t->kind != TOPO_STAR && (err = unused(l, "topology.hosts", r->hosts, kind)))
		return err;
	if (t->kind != TOPO_LEAF_SPINE &&
	    ((err = unused(l, "topology.leaves", r->leaves, kind)) ||
	     (err = unused(l, "topology.spines", r->spines, kind)) ||
	     (err = unused(l, "topology.hosts_per_leaf", r->hosts_per_leaf, kind)) ||
	     (err = unused(l, "topology.parallel", r->parallel, kind))))
		return err;
	if (t->kind != TOPO_FAT_TREE && (err = unused(l, "topology.k", r->k, kind)))
		return err;
	if (t->kind != TOPO_RING && ((err = unused(l, "topology.switches", r->switches, kind)) ||
				     (err = unused(l, "topology.hosts_per_switch",
						   r->hosts_per_switch, kind))))
		return err;
	if (t->kind != TOPO_FILE && (err = unused(l, "topology.file", r->file, kind)))
		return err;
	if ((err = get_link(l, "topology.link", r->link, &def_link, &t->link)) ||
	    (err = get_link(l, "topology.uplink", r->uplink, &t->link, &t->uplink)))
		return err;
	return get_time(l, "topology.convergence", r->convergence, SIMTIME_MS, 0, &s->convergence);
}

/* ---- nic: transport and DCQCN ------------------------------------------------ */

/* v >= min, without a comparison the compiler finds always true for 0 */
static int in_min(unsigned long long v, long long min)
{
	return min <= 0 || v >= (unsigned long long)min;
}

int scn_dcqcn_param(const char *name, const char *value, struct dcqcn_params *p, char *msg,
		    size_t size)
{
	unsigned long long v;
	char *end;

#define DCQCN_SET(field, min, max)                                                         \
	if (!strcmp(name, #field)) {                                                       \
		errno = 0;                                                                 \
		v = strtoull(value, &end, 10);                                             \
		if (!isdigit((unsigned char)value[0]) || *end || errno) {                  \
			snprintf(msg, size, "\"%s\" is not a whole number", value);        \
			return -EINVAL;                                                    \
		}                                                                          \
		if (v > (max) || !in_min(v, min)) {                                       \
			snprintf(msg, size, "%llu is out of range (%d to %d)", v, min, max); \
			return -EINVAL;                                                    \
		}                                                                          \
		p->field = (uint32_t)v;                                                    \
		return 0;                                                                  \
	}
	DCQCN_KEYS(DCQCN_SET)
#undef DCQCN_SET
	snprintf(msg, size, "no such mlx5 cc_params name");
	return -ENOENT;
}

/* nic.cc_params over the defaults; a bad entry is fatal unless lenient. */
static int apply_cc_params(const struct loader *l, struct dcqcn_params *p)
{
	const struct cc_params *cc = &l->raw->cfg.cc;
	char msg[200];

	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_entry *e = &cc->v[i];

		if (!scn_dcqcn_param(e->name, e->value, p, msg, sizeof(msg)))
			continue;
		if (l->raw->cfg.flags & SCN_LOAD_LENIENT)
			continue;
		diag_set(l->d, e->file, e->line, e->name, "%s (nic.cc_params)", msg);
		return -EINVAL;
	}
	return 0;
}

/* nic.transport and nic.dcqcn */
static int check_transport(const struct loader *l, const struct raw_nic *r, struct scenario *s)
{
	const struct raw_transport *t = r->transport;
	const struct raw_dcqcn *dc = r->dcqcn;
	struct dcqcn_params *p = &s->nic.dcqcn;
	int err;

	/* NCCL_IB_TIMEOUT: 4.096 us x 2^t, NCCL's default t = 20 (4.3 s) */
	if ((err = get_u32(l, "nic.transport.timeout", t ? t->timeout : NULL, 20, 0, 31,
			   &s->nic.timeout_exp)) ||
	    (err = get_u32(l, "nic.transport.ack_every", t ? t->ack_every : NULL, 8, 1, 65535,
			   &s->nic.ack_every)))
		return err;
	s->nic.timeout = (4096 * SIMTIME_NS) << s->nic.timeout_exp;
	dcqcn_params_default(p, dc && dc->variant ? (enum dcqcn_variant)(dc->variant - 1)
						  : DCQCN_MLX5);
	if ((err = apply_cc_params(l, p)))
		return err;
	if (!dc)
		return 0;
#define DCQCN_CHECK(name, min, max)                                                       \
	if ((err = get_u32(l, "nic.dcqcn." #name, dc->name, p->name, min, max, &p->name))) \
		return err;
	DCQCN_KEYS(DCQCN_CHECK)
#undef DCQCN_CHECK
	if (s->nic.cc != NIC_CC_DCQCN)
		return scn__fail(l, "nic.dcqcn", "only applies to nic.cc: dcqcn");
	return 0;
}

static int check_nic(const struct loader *l, const struct raw_nic *r, struct scenario *s)
{
	static const struct raw_nic none;
	uint32_t v;
	int err;

	if (!r)
		r = &none;
	err = get_u32(l, "nic.mtu", r->mtu, 4096, 0, UINT32_MAX, &s->nic.mtu);
	if (err)
		return err;
	if (s->nic.mtu != 256 && s->nic.mtu != 512 && s->nic.mtu != 1024 &&
	    s->nic.mtu != 2048 && s->nic.mtu != 4096)
		return scn__fail(l, "nic.mtu",
				 "%u is not a RoCE path MTU (256, 512, 1024, 2048, 4096)",
				 s->nic.mtu);
	if ((err = get_u32(l, "nic.dscp", r->dscp, 26, 0, 63, &v)))
		return err;
	s->nic.dscp = (uint8_t)v;
	/* the NIC's dscp2prio: mlnx_qos's when given, else mlx5's default DSCP >> 3 */
	for (int d = 0; d < 64 && !scn__from_config(l->raw, "nic.dscp2prio"); d++)
		s->nic.dscp2prio[d] = (uint8_t)(d >> 3);
	if ((err = get_u32(l, "nic.priority", r->priority, s->nic.dscp2prio[s->nic.dscp], 0, 7,
			   &v)))
		return err;
	s->nic.priority = (uint8_t)v;
	if (!scn__from_config(l->raw, "nic.pfc"))
		s->nic.pfc = (uint8_t)(1u << s->nic.priority);
	if (r->pfc) {
		/* as mlnx_qos prints it: eight 0/1 flags, priority 0 first */
		if (r->pfc_count != 8)
			return scn__fail(
			    l, "nic.pfc",
			    "needs 8 flags, one per priority (e.g. [0,0,0,1,0,0,0,0]), not %u",
			    r->pfc_count);
		s->nic.pfc = 0;
		for (unsigned i = 0; i < 8; i++) {
			char p[32];
			int on;

			snprintf(p, sizeof(p), "nic.pfc[%u]", i);
			if ((err = get_bool(l, p, r->pfc[i], 0, &on)))
				return err;
			s->nic.pfc |= (uint8_t)(on << i);
		}
	}
	if ((err = get_bool(l, "nic.ecn", r->ecn, 1, &s->nic.ecn)))
		return err;
	s->nic.cc = r->cc ? (enum nic_cc)(r->cc - 1) : NIC_CC_DCQCN;
	if ((err = get_size(l, "nic.rx_buffer", r->rx_buffer, 0, 1, &s->nic.rx_buffer)))
		return err;
	if (!r->rx_buffer != !r->rx_rate)
		return scn__fail(l, r->rx_buffer ? "nic.rx_buffer" : "nic.rx_rate",
				 "a slow receiver needs both rx_buffer and rx_rate");
	if (r->rx_rate) {
		err = units_rate(r->rx_rate, &s->nic.rx_rate);
		if (err || !s->nic.rx_rate)
			return scn__fail(l, "nic.rx_rate",
					 "\"%s\" is not a rate above 0 (e.g. 50Gbps)", r->rx_rate);
		if (s->nic.rx_buffer < 2 * ((uint64_t)s->nic.mtu + 62))
			return scn__fail(l, "nic.rx_buffer",
					 "must hold at least two packets of the MTU");
	}
	return check_transport(l, r, s);
}

/* ---- switch ------------------------------------------------------------------ */

static int set_dscp_entry(const struct loader *l, struct scenario *s, const char *path,
			  const char *value)
{
	const char *key = path + strlen("switch.dscp_to_tc.");
	uint64_t dscp = 0;
	uint32_t tc;
	int err;

	err = scn__get_uint(l, path, key, 0, 0, 63, &dscp);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a DSCP value (0 to 63)", key);
	if (!value)
		return scn__fail(l, path, "expected a traffic class (0 to 7)");
	err = get_u32(l, path, value, 0, 0, 7, &tc);
	if (!err)
		s->sw.dscp_to_tc[dscp] = (uint8_t)tc;
	return err;
}

/* switch.dscp_to_tc: defaults, then the file's entries, then --set ones. */
static int check_dscp_map(const struct loader *l, struct scenario *s, const char *const *sets,
			  size_t n_sets)
{
	const size_t plen = strlen("switch.dscp_to_tc.");
	char path[160];
	int err;

	/* RDMA data on the first lossless class, CNPs (the DSCP the NICs give
	 * them) on the class served strictly; unless a SONiC map gave them all */
	if (!l->raw->cfg.dscp_map) {
		memset(s->sw.dscp_to_tc, 0, sizeof(s->sw.dscp_to_tc));
		if (s->sw.lossless)
			s->sw.dscp_to_tc[s->nic.dscp] = (uint8_t)__builtin_ctz(s->sw.lossless);
		s->sw.dscp_to_tc[s->nic.dcqcn.np_cnp_dscp & 63] = s->sw.cnp_priority;
	}
	for (size_t i = 0; i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);

		if (!strcmp(e->path, "switch.dscp_to_tc") && e->value && e->value[0])
			return scn__fail(
			    l, e->path,
			    "expected a mapping of DSCP: traffic class (e.g. {26: 3, 48: 6})");
		if (strncmp(e->path, "switch.dscp_to_tc.", plen))
			continue;
		if ((err = set_dscp_entry(l, s, e->path, e->value)))
			return err;
	}
	for (size_t i = 0; i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (strncmp(sets[i], "switch.dscp_to_tc.", plen) || !eq ||
		    (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		memcpy(path, sets[i], (size_t)(eq - sets[i]));
		path[eq - sets[i]] = '\0';
		if ((err = set_dscp_entry(l, s, path, eq + 1)))
			return err;
	}
	return 0;
}

static int check_pfc(const struct loader *l, const struct raw_pfc *r, struct scenario *s)
{
	static const struct raw_pfc none;
	struct sw_pfc *p = &s->sw.pfc;
	uint32_t quanta;
	int err;

	if (!r)
		r = &none;
	if ((err = get_bool(l, "switch.pfc.enabled", r->enabled, 1, &p->enabled)))
		return err;
	if (r->xoff && r->dynamic_th)
		return scn__fail(l, "switch.pfc.dynamic_th",
				 "give either xoff (static) or dynamic_th, not both");
	if (r->xon && r->xon_offset)
		return scn__fail(l, "switch.pfc.xon_offset",
				 "give either xon or xon_offset, not both");
	p->dynamic = !r->xoff && !scn__from_config(l->raw, "switch.pfc.xoff");
	/* 1: SONiC's lossless PG profile */
	if ((err = get_int(l, "switch.pfc.dynamic_th", r->dynamic_th, 1, -7, 7, &p->dynamic_th)))
		return err;
	if ((err = get_size(l, "switch.pfc.xoff", r->xoff, 0, 1, &p->xoff)) ||
	    (err = get_size(l, "switch.pfc.xon", r->xon, 0, 0, &p->xon)) ||
	    (err = get_size(l, "switch.pfc.xon_offset", r->xon_offset, 2496, 0, &p->xon_offset)) ||
	    (err = get_size(l, "switch.pfc.headroom", r->headroom, 0, 1, &p->headroom)) ||
	    (err = get_u32(l, "switch.pfc.quanta", r->quanta, 65535, 1, 65535, &quanta)) ||
	    (err = get_time(l, "switch.pfc.refresh", r->refresh, 0, 1, &p->refresh)) ||
	    (err = get_time(l, "switch.pfc.response", r->response, 0, 1, &p->response)))
		return err;
	p->has_xon = r->xon != NULL;
	p->quanta = quanta;
	if (!p->dynamic && p->xoff > s->sw.buffer)
		return scn__fail(l, "switch.pfc.xoff", "is larger than switch.buffer.size");
	if (!p->dynamic && p->has_xon && p->xon >= p->xoff)
		return scn__fail(l, "switch.pfc.xon", "must be below xoff (%llu B), not %llu B",
				 (unsigned long long)p->xoff, (unsigned long long)p->xon);
	if (!p->dynamic && p->xon_offset >= p->xoff)
		return scn__fail(l,
				 r->xon_offset || scn__from_config(l->raw, "switch.pfc.xon_offset")
				     ? "switch.pfc.xon_offset"
				     : "switch.pfc.xoff",
				 "the XON offset (%llu B) must be smaller than xoff (%llu B)",
				 (unsigned long long)p->xon_offset, (unsigned long long)p->xoff);
	if (s->sw.per_port && p->headroom > s->sw.per_port)
		return scn__fail(l, "switch.pfc.headroom", "is larger than switch.buffer.per_port");
	return 0;
}

static int check_ecn(const struct loader *l, const struct raw_ecn *r, struct scenario *s)
{
	static const struct raw_ecn none;
	struct sw_ecn *e = &s->sw.ecn;
	int err;

	if (!r)
		r = &none;
	if ((err = get_bool(l, "switch.ecn.enabled", r->enabled, 1, &e->enabled)) ||
	    (err = get_size(l, "switch.ecn.kmin", r->kmin, 150000, 0, &e->kmin)) ||
	    (err = get_size(l, "switch.ecn.kmax", r->kmax, 1200000, 1, &e->kmax)))
		return err;
	if (r->pmax) {
		err = units_fraction(r->pmax, &e->pmax);
		if (err || e->pmax <= 0)
			return scn__fail(l, "switch.ecn.pmax",
					 "\"%s\" is not a probability above 0 (e.g. 20%%, 0.2)",
					 r->pmax);
	} else if (!scn__from_config(l->raw, "switch.ecn.pmax")) {
		e->pmax = 0.2;
	} else if (e->pmax <= 0) { /* a real config's: SONiC gives a percentage */
		return scn__fail(l, "switch.ecn.pmax",
				 "\"%g%%\" is not a probability above 0 (e.g. 20%%, 0.2)",
				 e->pmax * 100);
	}
	/* kmin == kmax is step marking (DCTCP's K): all above K, none at or below */
	if (e->kmin > e->kmax)
		return scn__fail(l,
				 r->kmax || scn__from_config(l->raw, "switch.ecn.kmax")
				     ? "switch.ecn.kmax"
				     : "switch.ecn.kmin",
				 "kmin (%llu B) must not be above kmax (%llu B)",
				 (unsigned long long)e->kmin, (unsigned long long)e->kmax);
	e->at_enqueue = r->mark == 2;
	return 0;
}

static int check_switch(const struct loader *l, const struct raw_switch *r, struct scenario *s,
			const char *const *sets, size_t n_sets)
{
	static const struct raw_switch none;
	const struct raw_buffer *b;
	uint32_t v;
	int err;

	if (!r)
		r = &none;
	b = r->buffer;
	if ((err = get_size(l, "switch.buffer.size", b ? b->size : NULL, 32000000, 1, &s->sw.buffer)) ||
	    (err = get_size(l, "switch.buffer.per_port", b ? b->per_port : NULL, 0, 1,
			    &s->sw.per_port)) ||
	    (err = get_size(l, "switch.buffer.pg_min", b ? b->pg_min : NULL, 0, 0, &s->sw.pg_min)) ||
	    (err = get_size(l, "switch.buffer.headroom_pool", b ? b->headroom_pool : NULL, 0, 1,
			    &s->sw.headroom_pool)))
		return err;
	if (s->sw.per_port > s->sw.buffer)
		return scn__fail(l, "switch.buffer.per_port", "is larger than switch.buffer.size");
	if (s->sw.headroom_pool >= s->sw.buffer)
		return scn__fail(l, "switch.buffer.headroom_pool",
				 "leaves nothing of switch.buffer.size");
	if (!scn__from_config(l->raw, "switch.lossless"))
		s->sw.lossless = 1u << 3;
	if (r->lossless &&
	    (err = get_prio_list(l, "switch.lossless", r->lossless, r->lossless_count, &s->sw.lossless)))
		return err;
	if ((err = get_u32(l, "switch.cnp_priority", r->cnp_priority, 6, 0, 7, &v)))
		return err;
	s->sw.cnp_priority = (uint8_t)v;
	if ((err = check_pfc(l, r->pfc, s)) || (err = check_ecn(l, r->ecn, s)) ||
	    (err = check_dscp_map(l, s, sets, n_sets)))
		return err;
	s->sw.sched = r->scheduler ? (enum sw_sched)(r->scheduler - 1) : SW_SCHED_STRICT;
	for (int q = 0; q < 8; q++)
		s->sw.weights[q] = 1;
	if (r->weights) {
		if (s->sw.sched != SW_SCHED_DWRR)
			return scn__fail(l, "switch.weights", "only apply to scheduler: dwrr");
		if (r->weights_count != 8)
			return scn__fail(l, "switch.weights",
					 "needs 8 weights, one per traffic class, not %u",
					 r->weights_count);
		for (unsigned q = 0; q < 8; q++) {
			char p[32];

			snprintf(p, sizeof(p), "switch.weights[%u]", q);
			if ((err = get_u32(l, p, r->weights[q], 1, 1, 1000, &s->sw.weights[q])))
				return err;
		}
	}
	/* on when the scenario or a real config (SONiC's PFC_WD) gives it */
	s->sw.wd.enabled = r->watchdog || scn__from_config(l->raw, "switch.watchdog.detection");
	if (s->sw.wd.enabled) {
		static const struct raw_watchdog no_wd;
		const struct raw_watchdog *w = r->watchdog ? r->watchdog : &no_wd;

		if ((err = get_time(l, "switch.watchdog.detection", w->detection, 200 * SIMTIME_MS, 1,
				    &s->sw.wd.detection)) ||
		    (err = get_time(l, "switch.watchdog.restoration", w->restoration, 200 * SIMTIME_MS,
				    1, &s->sw.wd.restoration)))
			return err;
		if (w->action)
			s->sw.wd.action = (enum sw_wd_action)(w->action - 1);
		else if (!scn__from_config(l->raw, "switch.watchdog.action"))
			s->sw.wd.action = SW_WD_DROP;
	}
	return 0;
}

/* ---- workloads --------------------------------------------------------------- */

/* Keys of a collective that a flow pattern does not take, and back. */
static int check_unused_keys(const struct loader *l, const struct raw_workload *r,
			     const char *prefix, int coll, const char *kind)
{
	const struct {
		const char *key;
		const void *v;
		int coll; /* 1: collective only, 0: patterns only */
	} keys[] = {
		{"channels", r->channels, 1}, {"chunk", r->chunk, 1},
		{"iterations", r->iterations, 1}, {"late", r->late, 1},    {"senders", r->senders, 0},
		{"receiver", r->receiver, 0},  {"flows", r->flows, 0},
	};
	char p[200];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].v && keys[i].coll != coll)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, keys[i].key),
					 "does not apply to %s", kind);
	return 0;
}

static int check_coll(const struct loader *l, const struct raw_workload *r, const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err;

	if (!r->size)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
				 "missing: bytes per rank, as nccl-tests counts them (e.g. 256MB)");
	if ((err = get_size(l, scn__wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "channels"), r->channels, 4, 1,
				 64, &v)) ||
	    (err = get_size(l, scn__wpath(p, sizeof(p), prefix, "chunk"), r->chunk, 0, 1, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "iterations"), r->iterations,
				 1, 1, 100000, &v)))
		return err;
	if (r->late) {
		snprintf(p, sizeof(p), "%s.late", prefix);
		if (!r->late->host || !r->late->by)
			return scn__fail(l, p, "needs host and by (e.g. {host: h3, by: 20us})");
		snprintf(p, sizeof(p), "%s.late.by", prefix);
		if ((err = get_time(l, p, r->late->by, 0, 0, &t)))
			return err;
	}
	return 0;
}

static int check_workload(const struct loader *l, const struct raw_workload *r,
			  const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err = 0, kind;

	if (!r->kind)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "kind"),
				 "missing (flows, incast, permutation, allreduce, allgather, "
				 "reducescatter or alltoall)");
	kind = r->kind - 1;
	if ((err = get_time(l, scn__wpath(p, sizeof(p), prefix, "start"), r->start, 0, 0, &t)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "dscp"), r->dscp, 0, 0, 63,
				 &v)) ||
	    (err = check_unused_keys(l, r, prefix, kind >= SCN_WL_COLL, scn__wl_kinds[kind].str)))
		return err;
	if (kind >= SCN_WL_COLL)
		return check_coll(l, r, prefix);
	switch (kind) {
	case SCN_WL_FLOWS:
		if (!r->flows_count)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "flows"),
					 "missing: a list of {src, dst, size, start}");
		for (unsigned i = 0; i < r->flows_count && !err; i++) {
			const struct raw_flow *f = &r->flows[i];

			snprintf(p, sizeof(p), "%s.flows[%u]", prefix, i);
			if (!f->src || !f->dst || !f->size)
				return scn__fail(l, p, "a flow needs src, dst and size");
			snprintf(p, sizeof(p), "%s.flows[%u].size", prefix, i);
			err = get_size(l, p, f->size, 0, 1, &v);
			snprintf(p, sizeof(p), "%s.flows[%u].start", prefix, i);
			err = err ? err : get_time(l, p, f->start, 0, 0, &t);
			snprintf(p, sizeof(p), "%s.flows[%u].dscp", prefix, i);
			err = err ? err : scn__get_uint(l, p, f->dscp, 0, 0, 63, &v);
		}
		if (!err && r->size)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
					"does not apply to flows (give it per flow)");
		return err;
	case SCN_WL_INCAST:
		err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "senders"), r->senders, 0,
				    1, 65535, &v);
		if (!err && !r->senders)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "senders"),
					"missing for an incast");
		break;
	case SCN_WL_PERMUTATION:
		if ((err = unused(l, scn__wpath(p, sizeof(p), prefix, "senders"), r->senders,
				  "a permutation")) ||
		    (err = unused(l, scn__wpath(p, sizeof(p), prefix, "receiver"), r->receiver,
				  "a permutation")))
			return err;
		break;
	}
	if (err)
		return err;
	if (!r->size)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
				 "missing: bytes per flow (e.g. 8MB)");
	return get_size(l, scn__wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v);
}

/* The workload, one mapping or a list of them. */
static int check_workloads(const struct loader *l, const struct raw_top *r)
{
	char prefix[32];
	int err;

	if (r->workload)
		return check_workload(l, r->workload, "workload");
	if (!r->workloads_count)
		return scn__fail(l, "workload",
				 "missing (e.g. workload: {kind: allreduce, size: 256MB})");
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if ((err = check_workload(l, &r->workloads[i], prefix)))
			return err;
	}
	return 0;
}

/* ---- expect: gates ----------------------------------------------------------- */

const char *const scn_expect_metrics[] = {
	"pfc_pause_frames", "pfc_pause_rate_per_s", "pfc_paused_time_us",
	"ecn_marked_packets", "cnp_sent", "cnp_handled", "drops", "lossless_drops",
	"retransmitted_packets", "max_queue_bytes", "max_headroom_bytes", "watchdog_drops",
	"unroutable_flows", "unroutable_packets",
	"flows_done", "fct_us.p50", "fct_us.p99",
	"fct_us.max", "collective.completion_time_us", "collective.algbw_GBps",
	"collective.busbw_GBps", "paused_ports", "watchdog_triggers", "deadlock",
	"deadlock.static_cycles", NULL,
};

/* scn__fail() for an expect: gate from the file or (@where "--set ...") the command line. */
static int expect_fail(const struct loader *l, const char *where, const char *path,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int expect_fail(const struct loader *l, const char *where, const char *path,
		       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strncmp(where, "--set", 5))
		diag_set(l->d, "--set", 0, path, "%s", msg);
	else
		diag_set(l->d, l->file, scn__line_of(l->raw->doc, path), path, "%s", msg);
	return -EINVAL;
}

/* Add (or replace) the gate @path = @value; @value NULL: a list or mapping was given. */
static int add_expect(struct loader *l, struct scenario *s, const char *path, const char *value,
		      const char *where)
{
	const char *rest = path + strlen("expect.");
	enum scn_expect_op op = SCN_EXPECT_EQ;
	char metric[64], *end;
	size_t len = strlen(rest);
	double v;
	int known = 0;
	struct scn_expect *e;

	if (len > 4 && (!strcmp(rest + len - 4, ".min") || !strcmp(rest + len - 4, ".max"))) {
		op = rest[len - 2] == 'i' ? SCN_EXPECT_MIN : SCN_EXPECT_MAX;
		len -= 4;
	}
	if (len >= sizeof(metric))
		len = sizeof(metric) - 1;
	memcpy(metric, rest, len);
	metric[len] = '\0';
	for (const char *const *m = scn_expect_metrics; *m; m++)
		known |= !strcmp(*m, metric);
	if (!known) {
		char keys[700];
		size_t n = 0;

		for (const char *const *m = scn_expect_metrics; *m && n < sizeof(keys); m++)
			n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", n ? ", " : "", *m);
		return expect_fail(l, where, path, "unknown metric (expected one of: %s)", keys);
	}
	if (!value)
		return expect_fail(l, where, path, "expected a number%s", op == SCN_EXPECT_EQ ?
				   " or {min: N, max: N}" : "");
	if (!strcmp(value, "false") || !strcmp(value, "no")) {
		v = 0;
	} else if (!strcmp(value, "true") || !strcmp(value, "yes")) {
		v = 1;
	} else {
		v = strtod(value, &end);
		if (end == value || *end || v != v)
			return expect_fail(l, where, path, "\"%s\" is not a number", value);
	}
	for (uint32_t i = 0; i < s->n_expects; i++) {
		if (!strcmp(s->expects[i].metric, metric) && s->expects[i].op == op) {
			s->expects[i].value = v;
			snprintf(s->expects[i].where, sizeof(s->expects[i].where), "%s", where);
			return 0;
		}
	}
	e = realloc(s->expects, (s->n_expects + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	s->expects = e;
	e = &s->expects[s->n_expects++];
	snprintf(e->metric, sizeof(e->metric), "%s", metric);
	e->op = op;
	e->value = v;
	snprintf(e->where, sizeof(e->where), "%s", where);
	return 0;
}

static int check_expects(struct loader *l, struct scenario *s, const char *const *sets,
			 size_t n_sets)
{
	char where[300], path[160];
	int err;

	for (size_t i = 0; i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);

		if (!strcmp(e->path, "expect") && e->value && e->value[0] && strcmp(e->value, "~") &&
		    strcmp(e->value, "null"))
			return scn__fail(
			    l, "expect",
			    "expected a mapping of metrics (e.g. drops: 0), not a single value");
		if (!strncmp(e->path, "expect[", 7))
			return scn__fail(
			    l, "expect",
			    "expected a mapping of metrics (e.g. drops: 0), not a list");
		if (strncmp(e->path, "expect.", 7))
			continue;
		if (strchr(e->path, '[')) {
			snprintf(path, sizeof(path), "%.*s", (int)strcspn(e->path, "["), e->path);
			return scn__fail(l, path,
					 "expected a number or {min: N, max: N}, not a list");
		}
		if (!e->value) {
			const char *rest = e->path + 7;
			int range = 0;

			for (const char *const *m = scn_expect_metrics; *m; m++)
				range |= !strcmp(*m, rest);
			if (range)
				continue; /* {min: .., max: ..}: its scalars follow */
		}
		snprintf(where, sizeof(where), "%s:%d", l->file, e->line);
		err = add_expect(l, s, e->path, e->value, where);
		if (err)
			return err;
	}
	for (size_t i = 0; i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (strncmp(sets[i], "expect.", 7) || !eq || (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		memcpy(path, sets[i], (size_t)(eq - sets[i]));
		path[eq - sets[i]] = '\0';
		snprintf(where, sizeof(where), "--set %s", sets[i]);
		err = add_expect(l, s, path, eq + 1, where);
		if (err)
			return err;
	}
	return 0;
}

/* ---- faults ------------------------------------------------------------------ */

static int check_faults(const struct loader *l, const struct raw_top *r, struct scenario *s)
{
	char p[160];

	for (unsigned i = 0; i < r->faults_count; i++) {
		const struct raw_fault *f = &r->faults[i];
		simtime_t t;
		uint8_t mask;
		int err;

		snprintf(p, sizeof(p), "faults[%u].kind", i);
		if (!f->kind)
			return scn__fail(l, p, "missing (link_down or pfc_storm)");
		snprintf(p, sizeof(p), "faults[%u].at", i);
		if (!f->at)
			return scn__fail(l, p, "missing: when the fault starts, e.g. 1ms");
		if ((err = get_time(l, p, f->at, 0, 0, &t)))
			return err;
		if (f->kind - 1 == NET_FAULT_LINK_DOWN) {
			snprintf(p, sizeof(p), "faults[%u].link", i);
			if (!f->link)
				return scn__fail(l, p,
						 "missing: the link's name, e.g. leaf0-spine1");
			snprintf(p, sizeof(p), "faults[%u].%s", i,
				 f->host ? "host" : f->port ? "port" : f->duration ? "duration"
										: "priorities");
			if (f->host || f->port || f->duration || f->priorities)
				return scn__fail(l, p, "does not apply to link_down");
			continue;
		}
		snprintf(p, sizeof(p), "faults[%u]", i);
		if (!f->host == !f->port)
			return scn__fail(
			    l, p,
			    "a pfc_storm needs either host (its NIC storms) or port (a switch port, e.g. sw0:h3)");
		if (f->link) {
			snprintf(p, sizeof(p), "faults[%u].link", i);
			return scn__fail(l, p, "does not apply to pfc_storm");
		}
		snprintf(p, sizeof(p), "faults[%u].duration", i);
		if ((err = get_time(l, p, f->duration, 0, 1, &t)))
			return err;
		snprintf(p, sizeof(p), "faults[%u].priorities", i);
		if ((err = get_prio_list(l, p, f->priorities, f->priorities_count, &mask)))
			return err;
	}
	s->n_faults = 0;
	return 0;
}

/* ---- top level, output, deadlock; every section in turn ---------------------- */

/* The longest name a folder takes (POSIX NAME_MAX on Linux and the BSDs). */
#define SCN_NAME_MAX 255

/*
 * The scenario's name is printed and, without -o, names the results folder
 * out/<name>: it must be one safe path component. Refuse "", "." and "..",
 * a '/', control characters (quoted as \xNN, never printed raw) and what no
 * file system takes. @derived: the name came from the file's name.
 */
static int check_name(const struct loader *l, const char *name, int derived)
{
	const char *why = NULL, *from = derived ? " (from the file name)" : "";
	const unsigned char *p = (const unsigned char *)name;
	char q[80], byte[8] = "";
	size_t n = 0, len = strlen(name);

	for (; *p && n + 8 < sizeof(q); p++) {
		if (*p < 0x20 || *p == 0x7f) {
			n += (size_t)snprintf(q + n, sizeof(q) - n, "\\x%02x", *p);
		} else {
			if (*p == '"' || *p == '\\')
				q[n++] = '\\';
			q[n++] = (char)*p;
		}
	}
	snprintf(q + n, sizeof(q) - n, "%s", *p ? "..." : "");
	for (p = (const unsigned char *)name; *p && !byte[0]; p++)
		if (*p < 0x20 || *p == 0x7f)
			snprintf(byte, sizeof(byte), "0x%02x", *p);
	if (!len)
		return scn__fail(l, "name",
				 "empty; the name also names the results folder out/<name>");
	if (len > SCN_NAME_MAX)
		return scn__fail(l, "name", "is %zu bytes long, more than a folder name takes (%d)",
				 len, SCN_NAME_MAX);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		why = "is not a folder name";
	else if (strchr(name, '/'))
		why = "holds a '/'";
	if (why)
		return scn__fail(l, "name", "\"%s\"%s %s: the results go to one folder, out/<name>",
				 q, from, why);
	if (byte[0])
		return scn__fail(l, "name", "\"%s\"%s holds a control character (byte %s)", q, from,
				 byte);
	return 0;
}

int scn__check_all(struct loader *l, struct scenario *s, const char *const *sets, size_t n_sets)
{
	const struct raw_top *r = l->raw->top;
	const char *base;
	int err;

	base = strrchr(l->file, '/');
	base = base ? base + 1 : l->file;
	s->name = strdup(r->name ? r->name : base);
	if (!s->name)
		return -ENOMEM;
	if (!r->name) {
		char *dot = strrchr(s->name, '.');

		if (dot && dot != s->name)
			*dot = '\0';
	}
	if ((err = check_name(l, s->name, !r->name)))
		return err;
	if ((err = scn__get_uint(l, "seed", r->seed, 1, 0, UINT64_MAX, &s->seed)) ||
	    (err = get_time(l, "stop", r->stop, SIMTIME_S, 1, &s->stop)) ||
	    (err =
		 scn__get_uint(l, "max_events", r->max_events, 0, 0, UINT64_MAX, &s->max_events)) ||
	    (err = check_topology(l, r->topology, s)) || (err = check_nic(l, r->nic, s)) ||
	    (err = check_switch(l, r->sw, s, sets, n_sets)) || (err = check_workloads(l, r)) ||
	    (err = check_faults(l, r, s)) || (err = check_expects(l, s, sets, n_sets)))
		return err;
	if ((err = get_bool(l, "output.pfc_events", r->output ? r->output->pfc_events : NULL, 0,
			    &s->out.pfc_events)) ||
	    (err = get_bool(l, "deadlock.enabled", r->deadlock ? r->deadlock->enabled : NULL, 1,
			    &s->deadlock.enabled)) ||
	    (err = get_time(l, "deadlock.window", r->deadlock ? r->deadlock->window : NULL,
			    10 * SIMTIME_MS, 1, &s->deadlock.window)) ||
	    (err = get_bool(l, "deadlock.stop_on_detect",
			    r->deadlock ? r->deadlock->stop_on_detect : NULL, 0,
			    &s->deadlock.stop_on_detect)))
		return err;
	return get_time(l, "output.sample", r->output ? r->output->sample : NULL, 10 * SIMTIME_US,
			0, &s->out.sample);
}
