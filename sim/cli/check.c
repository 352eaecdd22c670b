/*
 * rocesim check: static analysis of a scenario, without simulating. Loads
 * the scenario and its topology as run does, takes down the links given
 * with --fail and those of link_down faults at time 0, and reports
 * findings (severity, code, where, message; docs/run.md's "rocesim check"):
 * the cyclic buffer dependencies of the lossless priorities in the routes
 * of the workload or of all host pairs (topologies/cbd.h), and the first
 * threshold-order rules. People get one line per finding and a summary;
 * --json prints the findings, the effective parameters and the deadlock
 * analysis. Exit 1 when a finding is an error, 2 on bad input or usage.
 *
 * This file is the verb and how findings are kept; check_config.c holds the
 * checks of the configuration, check_fabric.c those of the fabric (cyclic
 * buffer dependencies, reachability), check_json.c the --json output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/cli/check_impl.h"
#include "sim/cli/cli.h"
#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"
#include "topologies/cbd.h"

#define CHK_MAX_CYCLES 10
static const char chk_usage[] =
    "usage: rocesim check SCENARIO.yaml [--json] [--fail LINK|NODE]... [--with OVERLAY.yaml]...\n"
    "                     [--set KEY=VALUE]... [--all-pairs] [--max-cycles N]\n"
    "                     [--junit FILE] [--sarif FILE]\n"
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
    "  - nic.cc_params: unknown, out of range, rp_min_rate over\n"
    "    rp_max_rate, devices differing (CC_PARAM_UNKNOWN, _RANGE, _ORDER,\n"
    "    _DEVICES: errors), misleading values (CC_PARAM_SUSPECT, _SLOW_RECOVERY);\n"
    "  - headroom short of the longest cable (HEADROOM_SHORT) or leaving no\n"
    "    buffer to share (HEADROOM_BUFFER): errors; where PFC comes from\n"
    "    (BUFFER_DEFAULT, HEADROOM_RESERVED, HEADROOM_EXCESS, XOFF_ABOVE_POOL);\n"
    "  - switch.sonic port by port (its i-th port by number is port i of each\n"
    "    switch): a port whose pfc_enable or DSCP map breaks the lossless path\n"
    "    (DSCP_NOT_LOSSLESS, PRIORITY_MISMATCH) or whose profile lacks headroom\n"
    "    for its own speed and cable (HEADROOM_SHORT), named \"Ethernet8 (sw0:h2)\";\n"
    "    lossless PGs no BUFFER_PG row covers (SONIC_PG_UNSET, a warning); how\n"
    "    the ports map when a switch has another number of them (SONIC_PORTS),\n"
    "    the dynamic buffer model (SONIC_DYNAMIC_BUFFER) and ports without\n"
    "    pfc_enable (SONIC_PORT_UNSET) (info); with a config per switch\n"
    "    (switch.sonic a folder or a mapping, or topology kind sonic), each\n"
    "    finding is said once, prefixed with the switches it concerns unless\n"
    "    it concerns them all;\n"
    "  - source-destination pairs no route joins over the links that are up\n"
    "    (UNREACHABLE, an error), and what links down cost per tier (info).\n"
    "\n"
    "The routes analysed are those of the scenario's workload by default (each\n"
    "flow on the traffic class switch.dscp_to_tc gives its DSCP); --all-pairs\n"
    "takes every ordered pair of hosts on every lossless priority instead: the\n"
    "fabric, whatever runs on it. Links named with --fail (a node: all its\n"
    "links; a link from either end), and those of faults of kind node_down or\n"
    "link_down at 0 (or no at), are down. Later faults are only mentioned.\n"
    "\n"
    "options:\n"
    "  --json            print findings, effective parameters and the deadlock\n"
    "                    analysis as JSON on stdout (each finding with its file,\n"
    "                    line and key where it has one)\n"
    "  --junit FILE      write a JUnit XML report: a testcase per finding, a\n"
    "                    failure per error\n"
    "  --sarif FILE      write the findings as SARIF 2.1.0 (a result per finding at\n"
    "                    its file and line), for code scanning annotations\n"
    "  --fail LINK|NODE  take a link down, e.g. --fail leaf0-spine1, or every link\n"
    "                    of a switch or host, e.g. --fail spine0 (repeatable)\n"
    "  --with FILE       merge the partial scenario FILE onto SCENARIO, as run\n"
    "                    does (repeatable, in order, before --set)\n"
    "  --set KEY=VALUE   override a scenario key, as run does (repeatable)\n"
    "  --all-pairs       analyse every pair of hosts instead of the workload\n"
    "  --max-cycles N    list at most N cycles per priority, shortest first\n"
    "                    (default 10)\n"
    "\n"
    "exit codes: 0 no finding is an error; 1 a finding is an error (a cycle);\n"
    "            2 bad input or usage; 3 a report file that cannot be written\n";

const char *const chk_severity_name[] = {"error", "warning", "info"};

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

void chk_add(struct chk *c, enum chk_severity sev, const char *code, char *where, const char *fmt,
	     ...)
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
	c->f[c->n++] = (struct chk_finding){sev, code, where, msg, NULL, NULL, 0};
}

void chk_loc(struct chk *c, const char *file, int line, const char *key)
{
	struct chk_finding *f = c->n ? &c->f[c->n - 1] : NULL;

	if (c->oom || !f)
		return; /* the finding was not added: the check stops there */
	free(f->file);
	free(f->key);
	f->file = file && *file ? strdup(file) : NULL;
	f->key = key ? strdup(key) : NULL;
	f->line = line > 0 ? line : 0;
	c->oom |= (file && *file && !f->file) || (key && !f->key);
}

void chk_loc_key(struct chk *c, const struct scenario *s, const char *path)
{
	const struct scn_origin *o = scn_origin(s, path);
	struct diag d = {0};

	if (o) {
		chk_loc(c, o->file, o->line, o->key);
		return;
	}
	snprintf(d.path, sizeof(d.path), "%s", path);
	scn_locate(s, &d);
	chk_loc(c, strcmp(d.file, "--set") ? d.file : NULL, d.line, path);
}

char *chk_str(const char *fmt, ...)
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
		free(c->f[i].file);
		free(c->f[i].key);
	}
	free(c->f);
	free(c->failed);
	cbd_result_free(&c->cbd);
}

/* "file:line key" of a value a real config gave ("file key" without a line). */
const char *chk_at(const struct scn_origin *o, char *buf, size_t size)
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
const char *chk_origin(const struct scenario *s, const char *path, char *buf, size_t size)
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
const char *chk_prios(uint8_t mask, char *buf, size_t size)
{
	return cli_prio_list(mask, ",", "none", buf, size);
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

		printf("%s %s ", chk_severity_name[f->severity], f->code);
		txt_fputs_term(f->where, stdout);
		fputs(": ", stdout);
		txt_fputs_term(f->message, stdout);
		putchar('\n');
		count[f->severity]++;
	}
	fputs("check ", stdout);
	txt_fputs_term(s->name, stdout);
	printf(": %zu error%s, %zu warning%s, %zu info (%.3f s)\n", count[0],
	       count[0] == 1 ? "" : "s", count[1], count[1] == 1 ? "" : "s", count[2], secs);
}

/* "faults[i]", the key of a faults: entry. */
static const char *fault_key(char *buf, size_t size, uint32_t entry)
{
	snprintf(buf, size, "faults[%u]", entry);
	return buf;
}

/*
 * Load @a's scenario leniently and run every check on it into @c (sorted),
 * leaving the scenario, topology and routes in *@sp, *@tp, *@rp for the
 * caller to free. 0, or CLI_EXIT_INPUT having said why on stderr unless
 * @quiet.
 */
static int chk_analyse(const struct chk_args *a, struct chk *cp, struct scenario **sp,
		       struct topo **tp, struct topo_routes **rp, int quiet)
{
	char key[32];
	uint32_t said_up; /* the faults: entry last said to come back up */
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	struct diag d = {0};
	int err, rc = CLI_EXIT_INPUT;

	err = scn_load_with(a->scenario,
			    &(struct scn_load_opts){.overlays = a->withs,
						    .n_overlays = a->n_withs,
						    .sets = a->sets,
						    .n_sets = a->n_sets,
						    .flags = SCN_LOAD_LENIENT},
			    &s, &d);
	if (err && !quiet) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
	}
	if (err)
		return CLI_EXIT_INPUT;
	err = topo_build(&s->topo, &t, &d);
	if (err)
		scn_locate(s, &d);
	else
		err = scn_resolve(s, t, &d);
	if (err && quiet)
		goto out;
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
		if (!quiet)
			fprintf(stderr, "rocesim: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < a->n_fails; i++)
		if (chk_fail_link(&c, t, a->fails[i]))
			goto out;
	said_up = UINT32_MAX;
	for (uint32_t i = 0; i < s->n_faults; i++) {
		const struct net_fault *f = &s->faults[i];
		struct topo_link *l = &t->links[f->link];

		const char *node = scn_fault_node(s, s->fault_of[i]);

		if (f->kind == NET_FAULT_LINK_UP && !l->up && s->fault_of[i] != said_up) {
			/* a link down at 0 that comes back: said once per node_up, link_up
			 * or flap (whose own down at 0 comes just before its first up) */
			said_up = s->fault_of[i];
			chk_add(
			    &c, CHK_INFO, "LINK_UP_LATER",
			    chk_str("faults[%u]: %s", s->fault_of[i], node ? node : l->name),
			    "comes back up at %.3f us; this analysis has it down, as before then",
			    simtime_to_us(f->at));
			chk_loc_key(&c, s, fault_key(key, sizeof(key), s->fault_of[i]));
		}
		if (f->kind != NET_FAULT_LINK_DOWN)
			continue;
		if (f->at == 0 && l->up) {
			l->up = 0;
			c.failed[c.n_failed++] = f->link;
		} else if (f->at && i && s->fault_of[i - 1] == s->fault_of[i]) {
			continue; /* once for a node or a flap, not for each link or time */
		} else if (f->at && node) {
			chk_add(&c, CHK_INFO, "NODE_DOWN_LATER",
				chk_str("faults[%u]: %s", s->fault_of[i], node),
				"goes down at %.3f us with all its links; this analysis has it up "
				"(--fail %s analyses the routes after it)",
				simtime_to_us(f->at), node);
			chk_loc_key(&c, s, fault_key(key, sizeof(key), s->fault_of[i]));
		} else if (f->at) {
			chk_add(
			    &c, CHK_INFO, "LINK_DOWN_LATER",
			    chk_str("faults[%u]: %s", s->fault_of[i], l->name),
			    "goes down at %.3f us; this analysis has it up (--fail %s analyses the "
			    "routes after it)",
			    simtime_to_us(f->at), l->name);
			chk_loc_key(&c, s, fault_key(key, sizeof(key), s->fault_of[i]));
		}
	}
	err = topo_routes_build(t, &r);
	if (!err)
		err = chk_deadlock(&c, s, t, r, a);
	if (!err)
		err = chk_reach(&c, s, t, r, a);
	if (err) {
		if (!quiet)
			fprintf(stderr, "rocesim: %s\n",
				err == -ENOMEM ? "out of memory"
					       : "the topology is too large to route");
		goto out;
	}
	for (uint32_t i = 0; i < t->n_links; i++)
		if ((t->nodes[t->links[i].a].kind == TOPO_HOST ||
		     t->nodes[t->links[i].b].kind == TOPO_HOST) &&
		    t->links[i].rate_bps > c.line_rate_bps)
			c.line_rate_bps = t->links[i].rate_bps;
	chk_switches(&c, s, t);
	chk_nic(&c, s);
	chk_nccl(&c, s, t);
	if (c.oom) {
		if (!quiet)
			fprintf(stderr, "rocesim: out of memory\n");
		goto out;
	}
	chk_sort(&c);
	rc = 0;
out:
	*cp = c;
	*sp = s;
	*tp = t;
	*rp = r;
	return rc;
}

static int chk_run(const struct chk_args *a)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	struct timespec t0, t1;
	int err, rc, errors = 0;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = chk_analyse(a, &c, &s, &t, &r, 0)))
		goto out;
	rc = CLI_EXIT_INPUT;
	for (size_t i = 0; i < c.n; i++)
		errors += c.f[i].severity == CHK_ERROR;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (a->json) {
		if (chk_print_json(&c, s, t, a)) {
			fprintf(stderr, "rocesim: cannot write the JSON output\n");
			goto out;
		}
	} else {
		chk_print_people(&c, s, secs);
	}
	for (int k = 0; k < 2; k++) {
		const char *file = k ? a->junit : a->sarif;

		if (!file)
			continue;
		err = k ? chk_write_junit(&c, s, file, secs) : chk_write_sarif(&c, s, file);
		if (err) {
			fputs("rocesim: check: cannot write ", stderr);
			txt_fputs_term(file, stderr);
			fprintf(stderr, ": %s\n", strerror(-err));
			rc = CLI_EXIT_IO;
			goto out;
		}
	}
	rc = errors ? CLI_EXIT_FOUND : 0;
out:
	chk_free(&c);
	topo_routes_free(r);
	topo_free(t);
	scn_free(s);
	return rc;
}

int chk_errors(const char *scenario, const char *const *withs, size_t n_withs,
	       const char *const *sets, size_t n_sets, char *first, size_t size)
{
	struct chk_args a = {.scenario = scenario,
			     .withs = (const char **)withs,
			     .n_withs = n_withs,
			     .sets = (const char **)sets,
			     .n_sets = n_sets,
			     .max_cycles = CHK_MAX_CYCLES};
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	char line[2048];
	int n = 0;

	first[0] = '\0';
	if (chk_analyse(&a, &c, &s, &t, &r, 1))
		n = -1;
	for (size_t i = 0; !n && i < c.n; i++) {
		if (c.f[i].severity != CHK_ERROR)
			continue;
		if (!first[0]) {
			snprintf(line, sizeof(line), "%s %s: %s", c.f[i].code, c.f[i].where,
				 c.f[i].message);
			txt_term(first, size, line);
		}
		n++;
	}
	chk_free(&c);
	topo_routes_free(r);
	topo_free(t);
	scn_free(s);
	return n;
}

int cmd_check(int argc, char **argv)
{
	struct chk_args a = {.max_cycles = CHK_MAX_CYCLES};
	int rc = -1;

	a.sets = calloc((size_t)argc + 1, sizeof(char *));
	a.fails = calloc((size_t)argc + 1, sizeof(char *));
	a.withs = calloc((size_t)argc + 1, sizeof(char *));
	if (!a.sets || !a.fails || !a.withs) {
		free(a.sets);
		free(a.fails);
		free(a.withs);
		return CLI_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(o, "--json")) {
			a.json = 1;
		} else if (!strcmp(o, "--junit") || !strcmp(o, "--sarif")) {
			if (!has_next || !argv[i + 1][0])
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs a file", o);
			else if (!strcmp(o, "--junit"))
				a.junit = argv[++i];
			else
				a.sarif = argv[++i];
		} else if (!strcmp(o, "--all-pairs")) {
			a.all_pairs = 1;
		} else if (!strcmp(o, "--fail")) {
			if (!has_next)
				rc = cli_usage_error(
				    "rocesim: check: ", chk_usage,
				    "%s needs a link or node name, e.g. leaf0-spine1", o);
			else
				a.fails[a.n_fails++] = argv[++i];
		} else if (!strcmp(o, "--with")) {
			if (!has_next)
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs an overlay file", o);
			else
				a.withs[a.n_withs++] = argv[++i];
		} else if (!strcmp(o, "--set")) {
			if (!has_next || !strchr(argv[i + 1], '='))
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs KEY=VALUE", o);
			else
				a.sets[a.n_sets++] = argv[++i];
		} else if (!strcmp(o, "--max-cycles")) {
			char *end = NULL;
			unsigned long v = has_next ? strtoul(argv[i + 1], &end, 10) : 0;

			if (!has_next || !*argv[i + 1] || *end || argv[i + 1][0] == '-' || v < 1 ||
			    v > 1000000)
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs a number of cycles (1 to 1000000)",
						     o);
			else
				a.max_cycles = (uint32_t)v;
			i++;
		} else {
			rc = cli_scenario_arg(o, "rocesim: check: ", chk_usage, &a.scenario);
		}
	}
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error("rocesim: check: ", chk_usage, "%s",
				     "check needs a scenario file");
	if (rc < 0)
		rc = chk_run(&a);
	free(a.sets);
	free(a.fails);
	free(a.withs);
	return rc;
}
