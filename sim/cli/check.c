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
 * This file is the verb: its options and the findings printed for people;
 * the checks themselves are sim/lint's, check_json.c prints --json and
 * check_report.c writes --junit and --sarif.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/cli/check_out.h"
#include "sim/cli/cli.h"
#include "sim/lint/lint.h"
#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"
#include "topologies/cbd.h"

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

/* What `rocesim check` is asked: the check, and what to print and write. */
struct chk_verb {
	struct chk_args chk;
	int json;
	const char *junit, *sarif; /* report files to write, or NULL */
};

static int chk_run(const struct chk_verb *v)
{
	const struct chk_args *a = &v->chk;
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct chk c = {0};
	struct diag why = {0};
	struct timespec t0, t1;
	int err, rc, errors = 0;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = chk_analyse(a, &c, &s, &t, &r, &why))) {
		fprintf(stderr, "rocesim: ");
		diag_print(&why, stderr);
		goto out;
	}
	rc = ROCESIM_EXIT_INPUT;
	for (size_t i = 0; i < c.n; i++)
		errors += c.f[i].severity == CHK_ERROR;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (v->json) {
		if (chk_print_json(&c, s, t, a)) {
			fprintf(stderr, "rocesim: cannot write the JSON output\n");
			goto out;
		}
	} else {
		chk_print_people(&c, s, secs);
	}
	for (int k = 0; k < 2; k++) {
		const char *file = k ? v->junit : v->sarif;

		if (!file)
			continue;
		err = k ? chk_write_junit(&c, s, file, secs) : chk_write_sarif(&c, s, file);
		if (err) {
			fputs("rocesim: check: cannot write ", stderr);
			txt_fputs_term(file, stderr);
			fprintf(stderr, ": %s\n", strerror(-err));
			rc = ROCESIM_EXIT_IO;
			goto out;
		}
	}
	rc = errors ? ROCESIM_EXIT_FOUND : 0;
out:
	chk_free(&c);
	topo_routes_free(r);
	topo_free(t);
	scn_free(s);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct chk_verb v = {.chk.max_cycles = CHK_MAX_CYCLES};
	struct chk_args *a = &v.chk;
	int rc = -1;

	a->sets = calloc((size_t)argc + 1, sizeof(char *));
	a->fails = calloc((size_t)argc + 1, sizeof(char *));
	a->withs = calloc((size_t)argc + 1, sizeof(char *));
	if (!a->sets || !a->fails || !a->withs) {
		free(a->sets);
		free(a->fails);
		free(a->withs);
		return ROCESIM_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(o, "--json")) {
			v.json = 1;
		} else if (!strcmp(o, "--junit") || !strcmp(o, "--sarif")) {
			if (!has_next || !argv[i + 1][0])
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs a file", o);
			else if (!strcmp(o, "--junit"))
				v.junit = argv[++i];
			else
				v.sarif = argv[++i];
		} else if (!strcmp(o, "--all-pairs")) {
			a->all_pairs = 1;
		} else if (!strcmp(o, "--fail")) {
			if (!has_next)
				rc = cli_usage_error(
				    "rocesim: check: ", chk_usage,
				    "%s needs a link or node name, e.g. leaf0-spine1", o);
			else
				a->fails[a->n_fails++] = argv[++i];
		} else if (!strcmp(o, "--with")) {
			if (!has_next)
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs an overlay file", o);
			else
				a->withs[a->n_withs++] = argv[++i];
		} else if (!strcmp(o, "--set")) {
			if (!has_next || !strchr(argv[i + 1], '='))
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs KEY=VALUE", o);
			else
				a->sets[a->n_sets++] = argv[++i];
		} else if (!strcmp(o, "--max-cycles")) {
			char *end = NULL;
			unsigned long v = has_next ? strtoul(argv[i + 1], &end, 10) : 0;

			if (!has_next || !*argv[i + 1] || *end || argv[i + 1][0] == '-' || v < 1 ||
			    v > 1000000)
				rc = cli_usage_error("rocesim: check: ", chk_usage,
						     "%s needs a number of cycles (1 to 1000000)",
						     o);
			else
				a->max_cycles = (uint32_t)v;
			i++;
		} else {
			rc = cli_scenario_arg(o, "rocesim: check: ", chk_usage, &a->scenario);
		}
	}
	if (rc < 0 && !a->scenario)
		rc = cli_usage_error("rocesim: check: ", chk_usage, "%s",
				     "check needs a scenario file");
	if (rc < 0)
		rc = chk_run(&v);
	free(a->sets);
	free(a->fails);
	free(a->withs);
	return rc;
}
