/*
 * Scenario checks: every section of what libcyaml loaded (topology, switch,
 * nic with its transport and DCQCN, workloads, faults, expect: gates, output,
 * deadlock) checked and turned into the integers of struct scenario, each
 * refusal naming the key, its line and what was expected. Defaults are
 * applied here (Debian's libcyaml has none). What needs the topology (host
 * and link names) is left to scenario_resolve.c.
 *
 * This file takes the sections in turn and checks the top level, topology,
 * faults and expect: gates; scenario_values.c checks one value (number,
 * size, time, link), scenario_devices.c the switch: and nic: sections, and
 * scenario_workloads.c the workloads.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

/* ---- topology ---------------------------------------------------------------- */

/*
 * NICs and GPUs per server (generated kinds; a topology file gives each
 * server its own), and the NVLink joining a server's GPUs: 450 GB/s per GPU
 * and direction (NVLink 4 on an H100, 900 GB/s both ways) after 1 us.
 */
static int check_servers(const struct loader *l, const struct raw_topology *r, struct topo_spec *t)
{
	const char *kind = scn__topo_kinds[t->kind].str;
	int err;

	if (t->kind == TOPO_FILE || t->kind == TOPO_SONIC || t->kind == TOPO_HPCC) {
		if ((err = scn__unused(l, "topology.nics_per_host", r->nics_per_host, kind)) ||
		    (err = scn__unused(l, "topology.gpus_per_host", r->gpus_per_host, kind)))
			return err;
	}
	if ((err = scn__get_u32(l, "topology.nics_per_host", r->nics_per_host, 1, 1, TOPO_MAX_NICS,
				&t->nics_per_host)) ||
	    (err = scn__get_u32(l, "topology.gpus_per_host", r->gpus_per_host, t->nics_per_host, 1,
				TOPO_MAX_GPUS, &t->gpus_per_host)))
		return err;
	t->nvlink_bps = 3600000000000ULL;
	if (r->nvlink) {
		err = units_rate(r->nvlink, &t->nvlink_bps);
		if (err)
			return scn__fail(l, "topology.nvlink",
					 "\"%s\" is not a rate (e.g. 3600Gbps, 450GB/s)",
					 r->nvlink);
		if (!t->nvlink_bps)
			return scn__fail(l, "topology.nvlink", "must be more than 0");
	}
	return scn__get_time(l, "topology.nvlink_latency", r->nvlink_latency, SIMTIME_US, 0,
			     &t->nvlink_latency);
}

static int check_topology(const struct loader *l, const struct raw_topology *r, struct scenario *s)
{
	static const struct topo_linkspec def_link = {100000000000ULL, 2000 * SIMTIME_PS_PER_MM};
	struct topo_spec *t = &s->topo;
	const char *kind;
	int err = 0;

	if (!r)
		return scn__fail(l, "topology", "missing (e.g. topology: {kind: star, hosts: 9})");
	if (!r->kind)
		return scn__fail(
		    l, "topology.kind",
		    "missing (star, leaf_spine, fat_tree, ring, rail, file, sonic or hpcc)");
	t->kind = (enum topo_kind)(r->kind - 1);
	kind = scn__topo_kinds[t->kind].str;
	switch (t->kind) {
	case TOPO_STAR:
		err = scn__get_u32(l, "topology.hosts", r->hosts, 0, 1, 65535, &t->hosts);
		if (!err && !r->hosts)
			err = scn__fail(l, "topology.hosts", "missing for a star");
		break;
	case TOPO_LEAF_SPINE:
		err = scn__get_u32(l, "topology.leaves", r->leaves, 0, 1, 4096, &t->leaves);
		err = err ? err
			  : scn__get_u32(l, "topology.spines", r->spines, 0, 1, 4096, &t->spines);
		err = err ? err
			  : scn__get_u32(l, "topology.hosts_per_leaf", r->hosts_per_leaf, 0, 1,
					 4096, &t->hosts_per_leaf);
		err =
		    err ? err
			: scn__get_u32(l, "topology.parallel", r->parallel, 1, 1, 64, &t->parallel);
		if (!err && (!r->leaves || !r->spines || !r->hosts_per_leaf))
			err = scn__fail(l,
					!r->leaves   ? "topology.leaves"
					: !r->spines ? "topology.spines"
						     : "topology.hosts_per_leaf",
					"missing for a leaf_spine (it needs leaves, spines and "
					"hosts_per_leaf)");
		break;
	case TOPO_FAT_TREE:
		err = scn__get_u32(l, "topology.k", r->k, 0, 2, 64, &t->k);
		if (!err && !r->k)
			err = scn__fail(l, "topology.k", "missing for a fat_tree");
		if (!err && t->k % 2)
			err = scn__fail(l, "topology.k", "must be even (k-ary fat-tree), not %u",
					t->k);
		break;
	case TOPO_RING:
		err = scn__get_u32(l, "topology.switches", r->switches, 0, 2, 4096, &t->switches);
		err = err ? err
			  : scn__get_u32(l, "topology.hosts_per_switch", r->hosts_per_switch, 1, 1,
					 4096, &t->hosts_per_switch);
		if (!err && !r->switches)
			err = scn__fail(l, "topology.switches", "missing for a ring");
		break;
	case TOPO_RAIL:
		err = scn__get_u32(l, "topology.servers", r->servers, 0, 1, 65535, &t->servers);
		err = err ? err
			  : scn__get_u32(l, "topology.spines", r->spines, 0, 1, 4096, &t->spines);
		err = err ? err
			  : scn__get_u32(l, "topology.servers_per_leaf", r->servers_per_leaf, 0, 1,
					 65535, &t->servers_per_leaf);
		err =
		    err ? err
			: scn__get_u32(l, "topology.parallel", r->parallel, 1, 1, 64, &t->parallel);
		if (!err && (!r->servers || !r->spines))
			err = scn__fail(l, !r->servers ? "topology.servers" : "topology.spines",
					"missing for a rail (it needs servers and spines)");
		if (!err && t->servers_per_leaf && t->servers % t->servers_per_leaf)
			err = scn__fail(l, "topology.servers_per_leaf",
					"must divide topology.servers (%u)", t->servers);
		break;
	case TOPO_FILE:
	case TOPO_HPCC:
		if (!r->file) {
			err = scn__fail(l, "topology.file", "missing for kind %s", kind);
			break;
		}
		/* relative to the scenario's folder, as users write it; from --set,
		 * relative to where the command runs */
		if (r->file[0] != '/' && strrchr(scn__key_file(l, "topology.file"), '/') &&
		    !scn__set_by_user(l->raw, "topology.file")) {
			const char *in = scn__key_file(l, "topology.file");
			int dir = (int)(strrchr(in, '/') - in);
			size_t len = (size_t)dir + strlen(r->file) + 2;

			s->topo_file = malloc(len);
			if (!s->topo_file)
				return -ENOMEM;
			snprintf(s->topo_file, len, "%.*s/%s", dir, in, r->file);
		} else if (!(s->topo_file = strdup(r->file))) {
			return -ENOMEM;
		}
		t->file = s->topo_file;
		break;
	case TOPO_SONIC:
		/* its folder was read with the configs (scenario_switches.c) */
		if (!r->dir)
			err = scn__fail(l, "topology.dir",
					"missing for kind sonic (a folder of config_db.json files, "
					"one per switch)");
		t->sonic = &s->sonic_desc;
		break;
	}
	if (err)
		return err;
	if (t->kind != TOPO_STAR && (err = scn__unused(l, "topology.hosts", r->hosts, kind)))
		return err;
	if (t->kind != TOPO_LEAF_SPINE &&
	    ((err = scn__unused(l, "topology.leaves", r->leaves, kind)) ||
	     (err = scn__unused(l, "topology.hosts_per_leaf", r->hosts_per_leaf, kind))))
		return err;
	if (t->kind != TOPO_LEAF_SPINE && t->kind != TOPO_RAIL &&
	    ((err = scn__unused(l, "topology.spines", r->spines, kind)) ||
	     (err = scn__unused(l, "topology.parallel", r->parallel, kind))))
		return err;
	if (t->kind != TOPO_RAIL &&
	    ((err = scn__unused(l, "topology.servers", r->servers, kind)) ||
	     (err = scn__unused(l, "topology.servers_per_leaf", r->servers_per_leaf, kind))))
		return err;
	if (t->kind != TOPO_FAT_TREE && (err = scn__unused(l, "topology.k", r->k, kind)))
		return err;
	if (t->kind != TOPO_RING &&
	    ((err = scn__unused(l, "topology.switches", r->switches, kind)) ||
	     (err = scn__unused(l, "topology.hosts_per_switch", r->hosts_per_switch, kind))))
		return err;
	if (t->kind != TOPO_FILE && t->kind != TOPO_HPCC &&
	    (err = scn__unused(l, "topology.file", r->file, kind)))
		return err;
	if (t->kind != TOPO_SONIC && (err = scn__unused(l, "topology.dir", r->dir, kind)))
		return err;
	if ((err = check_servers(l, r, t)))
		return err;
	if ((err = scn__get_link(l, "topology.link", r->link, &def_link, &t->link)) ||
	    (err = scn__get_link(l, "topology.uplink", r->uplink, &t->link, &t->uplink)))
		return err;
	return scn__get_time(l, "topology.convergence", r->convergence, SIMTIME_MS, 0,
			     &s->convergence);
}

/* ---- expect: gates ----------------------------------------------------------- */

const char *const scn_expect_metrics[] = {
    "pfc_pause_frames",
    "pfc_pause_rate_per_s",
    "pfc_paused_time_us",
    "ecn_marked_packets",
    "cnp_sent",
    "cnp_handled",
    "drops",
    "lossless_drops",
    "retransmitted_packets",
    "max_queue_bytes",
    "max_headroom_bytes",
    "watchdog_drops",
    "unroutable_flows",
    "unroutable_packets",
    "flows_done",
    "fct_us.p50",
    "fct_us.p99",
    "fct_us.max",
    "collective.completion_time_us",
    "collective.algbw_GBps",
    "collective.busbw_GBps",
    "paused_ports",
    "watchdog_triggers",
    "deadlock",
    "deadlock.static_cycles",
    NULL,
};

/* scn__fail() for an expect: gate from the file or (@where "--set ...") the command line. */
static int expect_fail(const struct loader *l, const char *where, const char *path, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));
static int expect_fail(const struct loader *l, const char *where, const char *path, const char *fmt,
		       ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strncmp(where, "--set", 5))
		diag_set(l->d, "--set", 0, path, "%s", msg);
	else
		diag_set(l->d, ydoc_file_near(l->raw->doc, path), scn__line_of(l->raw->doc, path),
			 path, "%s", msg);
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
			n +=
			    (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", n ? ", " : "", *m);
		return expect_fail(l, where, path, "unknown metric (expected one of: %s)", keys);
	}
	if (!value)
		return expect_fail(l, where, path, "expected a number%s",
				   op == SCN_EXPECT_EQ ? " or {min: N, max: N}" : "");
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

		if (!strcmp(e->path, "expect") && e->value && e->value[0] &&
		    strcmp(e->value, "~") && strcmp(e->value, "null"))
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
		snprintf(where, sizeof(where), "%s:%d", e->file, e->line);
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

/* The keys of a faults: entry, in the order errors name them. */
enum {
	FK_LINK,
	FK_NODE,
	FK_HOST,
	FK_PORT,
	FK_DURATION,
	FK_PRIORITIES,
	FK_RATE,
	FK_PERIOD,
	FK_COUNT
};

static const char *const fault_keys[] = {"link",       "node", "host",	 "port", "duration",
					 "priorities", "rate", "period", "count"};

/* Per kind (1 + its value), the keys it takes besides kind and at. */
static const struct {
	const char *name;
	unsigned keys;
} fault_kinds_of[] = {
    [1 + NET_FAULT_LINK_DOWN] = {"link_down", 1u << FK_LINK},
    [1 + NET_FAULT_LINK_UP] = {"link_up", 1u << FK_LINK},
    [1 + NET_FAULT_PFC_STORM] = {"pfc_storm", 1u << FK_HOST | 1u << FK_PORT | 1u << FK_DURATION |
						  1u << FK_PRIORITIES},
    [1 + NET_FAULT_LINK_RATE] = {"link_rate", 1u << FK_LINK | 1u << FK_RATE},
    [1 + SCN_FAULT_NODE_DOWN] = {"node_down", 1u << FK_NODE},
    [1 + SCN_FAULT_NODE_UP] = {"node_up", 1u << FK_NODE},
    [1 + SCN_FAULT_LINK_FLAP] = {"link_flap", 1u << FK_LINK | 1u << FK_PERIOD | 1u << FK_COUNT |
						  1u << FK_DURATION},
};

/* The keys faults[i] gives, as a mask of FK_*. */
static unsigned fault_given(const struct raw_fault *f)
{
	return (f->link ? 1u << FK_LINK : 0) | (f->node ? 1u << FK_NODE : 0) |
	       (f->host ? 1u << FK_HOST : 0) | (f->port ? 1u << FK_PORT : 0) |
	       (f->duration ? 1u << FK_DURATION : 0) | (f->priorities ? 1u << FK_PRIORITIES : 0) |
	       (f->rate ? 1u << FK_RATE : 0) | (f->period ? 1u << FK_PERIOD : 0) |
	       (f->count ? 1u << FK_COUNT : 0);
}

/* A link_flap's period, count and time down each time (duration, default half the period). */
static int check_flap(const struct loader *l, unsigned i, const struct raw_fault *f, simtime_t at)
{
	char p[160];
	simtime_t period, down, last;
	uint64_t count;
	int err;

	snprintf(p, sizeof(p), "faults[%u].period", i);
	if (!f->period)
		return scn__fail(l, p,
				 "missing: the time from one going down to the next, e.g. 1ms");
	if ((err = scn__get_time(l, p, f->period, 0, 1, &period)))
		return err;
	snprintf(p, sizeof(p), "faults[%u].count", i);
	if (!f->count)
		return scn__fail(l, p, "missing: how many times the link goes down, e.g. 3");
	if ((err = scn__get_uint(l, p, f->count, 1, 1, 10000, &count)))
		return err;
	snprintf(p, sizeof(p), "faults[%u].duration", i);
	if ((err = scn__get_time(l, p, f->duration, period / 2, 1, &down)))
		return err;
	if (down >= period)
		return scn__fail(l, p,
				 "\"%s\" is not shorter than the period (%s): the link would "
				 "never come up",
				 f->duration, f->period);
	if (!down)
		return scn__fail(l, p, "is 0: give a time the link stays down, e.g. 50us");
	snprintf(p, sizeof(p), "faults[%u].period", i);
	if (__builtin_mul_overflow(count - 1, period, &last) ||
	    __builtin_add_overflow(last, at + down, &last) || at + down < at ||
	    last > UNITS_TIME_MAX)
		return scn__fail(l, p, "\"%s\" x %s flaps end past the time a run can reach",
				 f->period, f->count);
	return 0;
}

static int check_faults(const struct loader *l, const struct raw_top *r, struct scenario *s)
{
	char p[160];

	for (unsigned i = 0; i < r->faults_count; i++) {
		const struct raw_fault *f = &r->faults[i];
		unsigned given = fault_given(f), extra;
		simtime_t t;
		uint64_t rate;
		uint8_t mask;
		int err;

		snprintf(p, sizeof(p), "faults[%u].kind", i);
		if (!f->kind)
			return scn__fail(l, p,
					 "missing (link_down, link_up, link_flap, link_rate, "
					 "node_down, node_up or pfc_storm)");
		/* no at: from the start, before any traffic */
		snprintf(p, sizeof(p), "faults[%u].at", i);
		if ((err = scn__get_time(l, p, f->at, 0, 0, &t)))
			return err;
		extra = given & ~fault_kinds_of[f->kind].keys;
		if (extra) {
			unsigned k = (unsigned)__builtin_ctz(extra);

			snprintf(p, sizeof(p), "faults[%u].%s", i, fault_keys[k]);
			return scn__fail(l, p, "does not apply to %s",
					 fault_kinds_of[f->kind].name);
		}
		switch (f->kind - 1) {
		case SCN_FAULT_NODE_DOWN:
		case SCN_FAULT_NODE_UP:
			snprintf(p, sizeof(p), "faults[%u].node", i);
			if (!f->node)
				return scn__fail(
				    l, p, "missing: the switch's or host's name, e.g. spine0");
			continue;
		case NET_FAULT_PFC_STORM:
			break;
		default:
			snprintf(p, sizeof(p), "faults[%u].link", i);
			if (!f->link)
				return scn__fail(l, p,
						 "missing: the link's name, e.g. leaf0-spine1");
			if (f->kind - 1 == SCN_FAULT_LINK_FLAP && (err = check_flap(l, i, f, t)))
				return err;
			if (f->kind - 1 != NET_FAULT_LINK_RATE)
				continue;
			snprintf(p, sizeof(p), "faults[%u].rate", i);
			if (!f->rate)
				return scn__fail(l, p,
						 "missing: the link's new speed, e.g. 200Gbps");
			if (units_rate(f->rate, &rate))
				return scn__fail(
				    l, p, "\"%s\" is not a rate (e.g. 100Gbps, 400Gb/s)", f->rate);
			if (!rate)
				return scn__fail(
				    l, p, "must be more than 0 (link_down takes a link down)");
			continue;
		}
		snprintf(p, sizeof(p), "faults[%u]", i);
		if (!f->host == !f->port)
			return scn__fail(l, p,
					 "a pfc_storm needs either host (its NIC storms) or port "
					 "(a switch port, e.g. sw0:h3)");
		snprintf(p, sizeof(p), "faults[%u].duration", i);
		if ((err = scn__get_time(l, p, f->duration, 0, 1, &t)))
			return err;
		snprintf(p, sizeof(p), "faults[%u].priorities", i);
		if ((err = scn__get_prio_list(l, p, f->priorities, f->priorities_count, &mask)))
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

/*
 * output.fct_buckets: the sizes between the buckets of summary.fct_slowdown,
 * increasing; by default those FCT slowdowns are usually reported in
 * (10 KB, 100 KB, 1 MB, 10 MB).
 */
/* engine.fast_forward (models/ff.h). */
static int check_engine(const struct loader *l, const struct raw_top *r, struct scenario *s)
{
	const struct raw_fast_forward *f = r->engine ? r->engine->fast_forward : NULL;
	struct ff_params *p = &s->fast_forward;
	double tol;
	int err;

	ff_params_default(p);
	if (!f)
		return 0;
	s->fast_forward_given = f->enabled != NULL;
	/* a block without `enabled` tunes the default, it does not turn it off */
	if ((err = scn__get_bool(l, "engine.fast_forward.enabled", f->enabled, p->enabled,
				 &p->enabled)) ||
	    (err = scn__get_time(l, "engine.fast_forward.window", f->window, p->window, 1,
				 &p->window)) ||
	    (err = scn__get_u32(l, "engine.fast_forward.windows", f->windows, p->windows, 2, 100,
				&p->windows)) ||
	    (err = scn__get_bool(l, "engine.fast_forward.groups", f->groups, 0, &p->groups)))
		return err;
	if (f->tolerance) {
		if (units_fraction(f->tolerance, &tol) || tol <= 0 || tol > 0.5)
			return scn__fail(
			    l, "engine.fast_forward.tolerance",
			    "\"%s\" is not a tolerance above 0 and at most 50%% (e.g. 1%%)",
			    f->tolerance);
		p->tolerance_ppm = (uint32_t)(tol * 1e6 + 0.5);
	}
	return 0;
}

static int check_fct_buckets(const struct loader *l, const struct raw_output *r, struct scenario *s)
{
	static const uint64_t def[] = {10000, 100000, 1000000, 10000000};
	char p[64];
	int err;

	if (!r || !r->fct_buckets) {
		memcpy(s->out.fct_buckets, def, sizeof(def));
		s->out.n_fct_buckets = sizeof(def) / sizeof(def[0]);
		return 0;
	}
	if (r->fct_buckets_count > SCN_FCT_BUCKETS_MAX)
		return scn__fail(l, "output.fct_buckets", "%u sizes, at most %d",
				 r->fct_buckets_count, SCN_FCT_BUCKETS_MAX);
	for (unsigned i = 0; i < r->fct_buckets_count; i++) {
		snprintf(p, sizeof(p), "output.fct_buckets[%u]", i);
		if ((err = scn__get_size(l, p, r->fct_buckets[i], 0, 1, &s->out.fct_buckets[i])))
			return err;
		if (i && s->out.fct_buckets[i] <= s->out.fct_buckets[i - 1])
			return scn__fail(l, p,
					 "%s is not above the size before it (%s): the sizes "
					 "between buckets increase",
					 r->fct_buckets[i], r->fct_buckets[i - 1]);
	}
	s->out.n_fct_buckets = r->fct_buckets_count;
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
	    (err = scn__get_time(l, "stop", r->stop, SIMTIME_S, 1, &s->stop)) ||
	    (err =
		 scn__get_uint(l, "max_events", r->max_events, 0, 0, UINT64_MAX, &s->max_events)) ||
	    (err = check_topology(l, r->topology, s)) ||
	    (err = scn__check_links(l, s, sets, n_sets)) || (err = scn__check_nic(l, r->nic, s)) ||
	    (err = scn__check_nic_tc(l, s, sets, n_sets)) ||
	    (err = scn__check_switch(l, r->sw, s, sets, n_sets)) ||
	    (err = scn__check_workloads(l, r, s)) || (err = check_faults(l, r, s)) ||
	    (err = check_expects(l, s, sets, n_sets)))
		return err;
	if ((err = scn__get_bool(l, "output.pfc_events", r->output ? r->output->pfc_events : NULL,
				 0, &s->out.pfc_events)) ||
	    (err = scn__get_bool(l, "output.timeline", r->output ? r->output->timeline : NULL, 0,
				 &s->out.timeline)) ||
	    (err = scn__get_bool(l, "deadlock.enabled", r->deadlock ? r->deadlock->enabled : NULL,
				 1, &s->deadlock.enabled)) ||
	    (err = scn__get_time(l, "deadlock.window", r->deadlock ? r->deadlock->window : NULL,
				 10 * SIMTIME_MS, 1, &s->deadlock.window)) ||
	    (err = scn__get_bool(l, "deadlock.stop_on_detect",
				 r->deadlock ? r->deadlock->stop_on_detect : NULL, 0,
				 &s->deadlock.stop_on_detect)))
		return err;
	if ((err = check_fct_buckets(l, r->output, s)) || (err = check_engine(l, r, s)))
		return err;
	if (r->output && r->output->timeseries)
		s->out.series = (enum scn_series)(r->output->timeseries - 1);
	return scn__get_time(l, "output.sample", r->output ? r->output->sample : NULL,
			     10 * SIMTIME_US, 0, &s->out.sample);
}
