/*
 * rocesim check as users and CI meet it: the built binary (ROCESIM_BIN) is
 * run from the source root (ROCESIM_SRC) on the scenarios in tests/check/
 * and the deadlock experiments, and its exit code and output are checked:
 * the ring's five-buffer cycle, no cycle on a healthy leaf-spine, the
 * valley cycles once two links fail (by --fail or by faults at 0), the
 * JSON shape, threshold order, bad input, and a 1024-host fat-tree in time.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proc.h"
#include "sim/engine/units.h"

static void setup(void)
{
	ts_proc_setup("check");
}

TestSuite(check, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(check, ring_cycle)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "tests/check/ring5.yaml", NULL});
	cr_assert_eq(p.code, 1, "exit %d, stderr: %s", p.code, p.err);
	cr_assert(strstr(p.out, "error CBD_CYCLE priority 3: sw0:sw4 -> sw1:sw0 -> sw2:sw1 -> "
				"sw3:sw2 -> sw4:sw3 -> sw0:sw4: "),
		  "%s", p.out);
	cr_assert_eq(count(p.out, "CBD_CYCLE"), 1);
	cr_assert(strstr(p.out, "1 error,"), "summary: %s", p.out);
	cr_assert_str_empty(p.err);
	ts_proc_free(&p);

	/* no PFC, no deadlock */
	ts_exec(&p, (const char *[]){"check", "tests/check/ring5.yaml", "--set",
				     "switch.pfc.enabled=false", NULL});
	cr_assert_eq(p.code, 0, "%s", p.out);
	cr_assert_eq(count(p.out, "CBD_CYCLE"), 0);
	ts_proc_free(&p);
}

Test(check, leaf_spine)
{
	static const char *const valleys[] = {
	    "priority 3: leaf2:spine0 -> spine1:leaf2 -> leaf3:spine1 -> spine0:leaf3 -> "
	    "leaf2:spine0",
	    "priority 3: leaf2:spine1 -> spine0:leaf2 -> leaf3:spine0 -> spine1:leaf3 -> "
	    "leaf2:spine1",
	};
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert_eq(count(p.out, "CBD_CYCLE"), 0);
	cr_assert(strstr(p.out, "0 errors,"), "%s", p.out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--all-pairs", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "all pairs"), "%s", p.out);
	ts_proc_free(&p);

	ts_exec(&p,
		(const char *[]){"check", "tests/check/leafspine.yaml", "--fail", "leaf0-spine1",
				 "--fail", "leaf1-spine0", "--all-pairs", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert_eq(count(p.out, "error CBD_CYCLE"), 2, "%s", p.out);
	for (int i = 0; i < 2; i++)
		cr_assert(strstr(p.out, valleys[i]), "%s missing in %s", valleys[i], p.out);
	ts_proc_free(&p);

	/* the workload crosses both valleys too */
	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--fail",
				     "leaf0-spine1", "--fail", "leaf1-spine0", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	ts_proc_free(&p);

	/* link_down faults at 0 are failed links */
	ts_exec(&p,
		(const char *[]){"check", "experiments/deadlock-leafspine-failures.yaml", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	for (int i = 0; i < 2; i++)
		cr_assert(strstr(p.out, valleys[i]), "%s missing in %s", valleys[i], p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", "experiments/deadlock-leafspine.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert_str_empty(p.err);
	ts_proc_free(&p);

	/* at a later time they are only mentioned */
	ts_exec(&p, (const char *[]){"check", "experiments/link-failure.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "info LINK_DOWN_LATER faults[0]: leaf0-spine1"), "%s", p.out);
	ts_proc_free(&p);
}

static const json_t *get(const json_t *j, const char *path)
{
	char buf[128], *part, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part && j; part = strtok_r(NULL, ".", &save))
		j = json_object_get(j, part);
	cr_assert(j, "no %s", path);
	return j;
}

Test(check, json)
{
	static const char *const keys[] = {
	    "effective.switch.buffer.size",
	    "effective.switch.pfc.enabled",
	    "effective.switch.pfc.xoff",
	    "effective.switch.pfc.xon_offset",
	    "effective.switch.pfc.headroom",
	    "effective.switch.ecn.kmin",
	    "effective.switch.ecn.kmax",
	    "effective.switch.lossless",
	    "effective.switch.cnp_priority",
	    "effective.switch.dscp_to_tc",
	    "effective.nic.mtu",
	    "effective.nic.dscp",
	    "effective.nic.priority",
	    "effective.nic.pfc",
	    "effective.nic.cc",
	    "effective.nic.dcqcn",
	    "deadlock.static_cycles",
	    "deadlock.mode",
	    "deadlock.failed_links",
	    "deadlock.cycles",
	};
	const json_t *f, *cy;
	json_error_t jerr;
	struct ts_proc p;
	json_t *j;

	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--json", "--fail",
				     "leaf0-spine1", "--fail", "leaf1-spine0", "--set",
				     "switch.pfc.xoff=400KB", NULL});
	cr_assert_eq(p.code, 1, "%s", p.err);
	j = json_loads(p.out, 0, &jerr);
	cr_assert(j, "not JSON: %s (line %d): %s", jerr.text, jerr.line, p.out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		get(j, keys[i]);
	cr_assert_eq(json_integer_value(get(j, "effective.switch.pfc.xoff")), 400000);
	cr_assert_eq(json_integer_value(get(j, "effective.nic.mtu")), 4096);
	cr_assert_str_eq(json_string_value(get(j, "effective.nic.cc")), "dcqcn");
	cr_assert_eq(json_integer_value(get(j, "effective.nic.dcqcn.rp_gd")), 11);
	cr_assert_str_eq(json_string_value(get(j, "deadlock.mode")), "workload");
	cr_assert_eq(json_integer_value(get(j, "deadlock.static_cycles")), 2);
	cr_assert_eq(json_array_size(get(j, "deadlock.failed_links")), 2);
	cr_assert_str_eq(json_string_value(json_array_get(get(j, "deadlock.failed_links"), 0)),
			 "leaf0-spine1");
	cy = json_array_get(get(j, "deadlock.cycles"), 0);
	cr_assert_eq(json_integer_value(json_object_get(cy, "priority")), 3);
	cr_assert_eq(json_array_size(json_object_get(cy, "ports")), 4);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(cy, "ports"), 0)),
			 "leaf2:spine0");
	f = json_array_get(get(j, "findings"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(f, "severity")), "error");
	cr_assert_str_eq(json_string_value(json_object_get(f, "code")), "CBD_CYCLE");
	cr_assert(json_string_value(json_object_get(f, "where")));
	cr_assert(json_string_value(json_object_get(f, "message")));
	json_decref(j);
	ts_proc_free(&p);

	ts_exec(&p,
		(const char *[]){"check", "tests/check/ring5.yaml", "--json", "--all-pairs", NULL});
	cr_assert_eq(p.code, 1);
	j = json_loads(p.out, 0, &jerr);
	cr_assert(j, "not JSON: %s", jerr.text);
	cr_assert_str_eq(json_string_value(get(j, "deadlock.mode")), "all_pairs");
	cr_assert_eq(json_integer_value(get(j, "deadlock.static_cycles")), 2);
	cr_assert(json_is_null(get(j, "effective.nic.dcqcn")), "cc none");
	cr_assert_eq(json_integer_value(get(j, "effective.switch.pfc.dynamic_th")), 1);
	json_decref(j);
	ts_proc_free(&p);
}

Test(check, thresholds)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "tests/check/thresholds.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "warning THRESHOLD_ORDER switch.ecn.kmax 1200000 B "
				"(tests/check/thresholds.yaml:9) >= switch.pfc.xoff 1000000 B "
				"(tests/check/thresholds.yaml:8): "),
		  "%s", p.out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"check", "tests/check/thresholds.yaml", "--set",
				     "switch.ecn.kmax=900KB", NULL});
	cr_assert_eq(count(p.out, "THRESHOLD_ORDER"), 0, "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", "tests/check/thresholds.yaml", "--set",
				     "switch.pfc.xoff=100KB", NULL});
	cr_assert(strstr(p.out, "switch.pfc.xoff 100000 B (--set)"), "%s", p.out);
	cr_assert(strstr(p.out, "before ECN marks at all"), "%s", p.out);
	ts_proc_free(&p);
}

/*
 * The headroom need check prints and --json gives, per link: 3 x (MTU + 82)
 * + 84 + (2 x propagation + response) x rate / 8, computed by hand. The
 * 40 km / 10 km / 1 s cases used to wrap in 64 bits.
 */
Test(check, headroom_figure)
{
	static const struct {
		const char *rate, *length, *mtu;
		unsigned long long need;
	} cases[] = {
	    /* 2 x 150 ns + 905 quanta at 400G (1158.4 ns) = 1458.4 ns x 50 B/ns = 72920 B,
	     * + 3 x 4178 + 84 */
	    {"400Gbps", "topology.link.cable=30m", "4096", 85538},
	    /* (20 ns + 394 quanta at 100G, 2017.28 ns) x 12.5 B/ns = 25466 B */
	    {"100Gbps", "topology.link.cable=2m", "4096", 38084},
	    /* (3000 ns + 2017.28 ns) x 12.5 = 62716 B, + 3 x 1106 + 84 */
	    {"100Gbps", "topology.link.cable=300m", "1024", 66118},
	    /* (1000 ns + 80 quanta at 25G, 1638.4 ns) x 3.125 B/ns = 8245 B, + 3 x 2130 + 84 */
	    {"25Gbps", "topology.link.cable=100m", "2048", 14719},
	    /* (50 ns + 67 quanta at 10G, 3430.4 ns) x 1.25 B/ns = 4350.5 -> 4350 B, + 3 x 594 + 84
	     */
	    {"10Gbps", "topology.link.cable=5m", "512", 6216},
	    /* (400 us + 1158.4 ns) x 50 B/ns = 20057920 B, + 12618 */
	    {"400Gbps", "topology.link.cable=40km", "4096", 20070538},
	    /* (100 us + 905 quanta at 1.6T, 289.6 ns) x 200 B/ns = 20057920 B, + 3 x 338 + 84 */
	    {"1600Gbps", "topology.link.cable=10km", "256", 20059018},
	    /* (2 s + 2017.28 ns) x 12.5 B/ns = 25000025216 B, + 12618 */
	    {"100Gbps", "topology.link.delay=1s", "4096", 25000037834ULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rate[64], mtu[64], want[64];
		json_error_t jerr;
		struct ts_proc p;
		const json_t *port = NULL, *pg;
		json_t *j;
		size_t k;

		snprintf(rate, sizeof(rate), "topology.link.rate=%s", cases[i].rate);
		snprintf(mtu, sizeof(mtu), "nic.mtu=%s", cases[i].mtu);
		snprintf(want, sizeof(want), ": needs %llu B: ", cases[i].need);
		ts_exec(&p, (const char *[]){"check", "tests/check/headroom.yaml", "--set", rate,
					     "--set", cases[i].length, "--set", mtu, "--set",
					     "switch.pfc.headroom=1KB", NULL});
		cr_assert_eq(p.code, 1, "%s %s: %s%s", rate, cases[i].length, p.out, p.err);
		cr_assert(strstr(p.out, "error HEADROOM_SHORT switch.pfc.headroom 1000 B (--set)"),
			  "%s", p.out);
		cr_assert(strstr(p.out, want), "%s %s MTU %s: wanted \"%s\" in %s", rate,
			  cases[i].length, cases[i].mtu, want, p.out);
		ts_proc_free(&p);

		ts_exec(&p, (const char *[]){"check", "tests/check/headroom.yaml", "--json",
					     "--set", rate, "--set", cases[i].length, "--set", mtu,
					     "--set", "switch.pfc.headroom=1KB", NULL});
		j = json_loads(p.out, 0, &jerr);
		cr_assert(j, "not JSON: %s: %s", jerr.text, p.out);
		for (k = 0; k < json_array_size(get(j, "effective.ports")); k++) {
			port = json_array_get(get(j, "effective.ports"), k);
			if (!strcmp(json_string_value(json_object_get(port, "port")), "sw0:h0"))
				break;
			port = NULL;
		}
		cr_assert(port, "no port sw0:h0");
		pg = json_array_get(json_object_get(port, "lossless_pgs"), 0);
		cr_assert_eq(json_integer_value(json_object_get(pg, "headroom_needed")),
			     (json_int_t)cases[i].need, "%s %s MTU %s: %lld", rate, cases[i].length,
			     cases[i].mtu,
			     (long long)json_integer_value(json_object_get(pg, "headroom_needed")));
		json_decref(j);
		ts_proc_free(&p);
	}
}

/*
 * A switch whose reserved headroom does not fit its buffer: check reports
 * it (HEADROOM_BUFFER, an error) in the very words run refuses it with,
 * wrapped sums included (4 ports x 2^62 B used to pass both); a headroom
 * that fits passes check and runs.
 */
Test(check, headroom_that_run_refuses)
{
	static const char *const cases[][3] = {
	    {"switch.pfc.headroom=4611686018427387904", "topology.link.cable=2m",
	     "reserve more than 2^64 B"},
	    {"switch.pfc.headroom=10MB", "topology.link.cable=2m", "reserve 40000000 B"},
	    {"switch.pfc.refresh=1ms", "topology.link.cable=40km", "reserve 80285696 B"},
	};
	struct ts_proc p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char msg[1024];
		const char *m;

		ts_exec(&p, (const char *[]){"run", "tests/check/headroom.yaml", "-o", ts_tmp("h"),
					     "--set", "topology.hosts=4", "--set",
					     "topology.link.rate=400Gbps", "--set", cases[i][0],
					     "--set", cases[i][1], NULL});
		cr_assert_eq(p.code, 2, "%s: %s", cases[i][0], p.err);
		m = strstr(p.err, ": sw0: ");
		cr_assert(m && strstr(m, cases[i][2]), "%s: %s", cases[i][0], p.err);
		snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(m + 2, "\n"), m + 2);
		ts_proc_free(&p);

		ts_exec(&p,
			(const char *[]){"check", "tests/check/headroom.yaml", "--set",
					 "topology.hosts=4", "--set", "topology.link.rate=400Gbps",
					 "--set", cases[i][0], "--set", cases[i][1], NULL});
		cr_assert_eq(p.code, 1, "%s: %s%s", cases[i][0], p.out, p.err);
		cr_assert(strstr(p.out, "error HEADROOM_BUFFER switch.pfc.headroom "), "%s", p.out);
		cr_assert(strstr(p.out, msg), "%s: run said \"%s\"; check said %s", cases[i][0],
			  msg, p.out);
		ts_proc_free(&p);
	}

	ts_exec(&p, (const char *[]){"check", "tests/check/headroom.yaml", "--set",
				     "topology.hosts=4", "--set", "switch.pfc.headroom=7MB", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(!strstr(p.out, "HEADROOM_BUFFER"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", "tests/check/headroom.yaml", "-o", ts_tmp("fits"), "-q",
				     "--set", "topology.hosts=4", "--set",
				     "switch.pfc.headroom=7MB", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
}

Test(check, bad_input)
{
	static const char *const usage[][4] = {
	    {"check", NULL},
	    {"check", "tests/check/ring5.yaml", "--bogus", NULL},
	    {"check", "tests/check/ring5.yaml", "--fail", NULL},
	    {"check", "tests/check/ring5.yaml", "--max-cycles", "0"},
	    {"check", "tests/check/ring5.yaml", "tests/check/ring5.yaml", NULL},
	};
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "tests/bad/bad-rate-unit.yaml", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "rocesim: tests/bad/bad-rate-unit.yaml:"), "%s", p.err);
	cr_assert_eq(count(p.err, "\n"), 1, "one line: %s", p.err);
	cr_assert_str_empty(p.out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"check", "tests/bad/odd-fat-tree-k.yaml", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "odd-fat-tree-k.yaml:") && strstr(p.err, "topology.k"), "%s",
		  p.err);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"check", "tests/check/ring5.yaml", "--fail", "sw0-sw9", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "\"sw0-sw9\"") && strstr(p.err, "e.g. sw"), "%s", p.err);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"check", "tests/check/no-such-file.yaml", NULL});
	cr_assert_eq(p.code, 2);
	ts_proc_free(&p);

	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		const char *args[5] = {0};

		memcpy(args, usage[i], sizeof(usage[i]));
		ts_exec(&p, args);
		cr_assert_eq(p.code, 2, "case %zu: %s", i, p.err);
		cr_assert(strstr(p.err, "usage: rocesim check"), "case %zu", i);
		ts_proc_free(&p);
	}

	ts_exec(&p, (const char *[]){"check", "--help", NULL});
	cr_assert_eq(p.code, 0);
	cr_assert(strstr(p.out, "--all-pairs") && strstr(p.out, "workload by default") &&
		      strstr(p.out, "link_down at 0"),
		  "%s", p.out);
	ts_proc_free(&p);
}

Test(check, fat_tree_1024_hosts)
{
	struct timespec a, b;
	struct ts_proc p;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &a);
	ts_exec(&p,
		(const char *[]){"check", "tests/check/fat-tree-k16.yaml", "--all-pairs", NULL});
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	cr_log_info("check --all-pairs on a k=16 fat-tree: %.3f s", secs);
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "5120 ingress buffers"), "%s", p.out);
	cr_assert_lt(secs, 20.0);
	ts_proc_free(&p);
}

Test(check, unreachable_pairs_are_an_error)
{
	struct ts_proc p;

	/* leaf0 cut off: 6 of the workload's 12 pairs, listed */
	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--fail",
				     "leaf0-spine0", "--fail", "leaf0-spine1", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out,
			 "error UNREACHABLE workload: h0 -> h2, h0 -> h4, h0 -> h6, "
			 "h2 -> h0, h4 -> h1, h6 -> h1: 6 of 12 source-destination pairs have "
			 "no route"),
		  "%s", p.out);
	ts_proc_free(&p);

	/* every pair: 24 of 56, the list cut short with a count */
	ts_exec(&p,
		(const char *[]){"check", "tests/check/leafspine.yaml", "--fail", "leaf0-spine0",
				 "--fail", "leaf0-spine1", "--all-pairs", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "error UNREACHABLE all pairs: h0 -> h2, "), "%s", p.out);
	cr_assert(strstr(p.out, ", h1 -> h3 and 16 more: 24 of 56 source-destination pairs"), "%s",
		  p.out);
	/* what the two links down cost, tier by tier */
	cr_assert(strstr(p.out, "info CAPACITY_LOST capacity lost: the 2 links down take, per tier "
				"(one direction): host links 0 of 8 links, 0 of 800 Gb/s (0.0%); "
				"tier 1-2 2 of 8 links, 200 of 800 Gb/s (25.0%)"),
		  "%s", p.out);
	ts_proc_free(&p);

	/* named from the other end, the same links */
	ts_exec(&p,
		(const char *[]){"check", "tests/check/leafspine.yaml", "--fail", "spine0-leaf0",
				 "--fail", "spine1-leaf0", "--all-pairs", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "24 of 56 source-destination pairs have no route over the links "
				"that are up (down: leaf0-spine0, leaf0-spine1)"),
		  "%s", p.out);
	ts_proc_free(&p);

	/* a topology file in two pieces */
	ts_exec(&p, (const char *[]){"check", "tests/check/partition.yaml", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "error UNREACHABLE workload: h0 -> h3, h2 -> h1: 2 of 3 "), "%s",
		  p.out);
	ts_proc_free(&p);
}

/*
 * A spine of 64 leaves down with the leaves' hosts cut off too: the links
 * down are named whole, as many as the line holds, then counted.
 */
Test(check, many_links_down_are_named_whole_then_counted)
{
	struct ts_proc p;
	const char *args[80] = {
	    "check", "tests/check/leafspine.yaml", "--set",	  "topology.leaves=64",
	    "--set", "topology.spines=1",	   "--all-pairs", "--fail",
	    "spine0"};
	const char *line, *end;

	ts_exec(&p, args);
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	line = strstr(p.out, "(down: leaf0-spine0, leaf1-spine0, ");
	cr_assert(line, "%s", p.out);
	end = strstr(line, " more)");
	cr_assert(end, "%s", line);
	/* ", leafN-spine0 and M more)": the last name whole before the count */
	while (end > line && end[-1] != ' ')
		end--;
	cr_assert(!strncmp(end - 5, " and ", 5), "%.*s", (int)(end - line + 8), line);
	cr_assert(!strncmp(end - 12, "-spine0", 7) || !strncmp(end - 13, "-spine0", 7), "%.*s",
		  (int)(end - line + 8), line);
	cr_assert(strstr(p.out, "tier 1-2 64 of 64 links, 6.4 of 6.4 Tb/s (100.0%)"), "%s", p.out);
	ts_proc_free(&p);
}

/* One link of its own cable (topology.links): the headroom is checked against it. */
Test(check, a_longer_link_of_its_own_needs_more_headroom)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--set",
				     "switch.pfc.headroom=100KB", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	ts_proc_free(&p);
	/* 2 km at 100G: 2 x 10 us x 12.5 GB/s = 250,000 B on the wires, + 3 MTU frames,
	 * the PAUSE and the response (394 quanta) = 287,834 B */
	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--set",
				     "switch.pfc.headroom=100KB", "--set",
				     "topology.links.spine1-leaf2.cable=2km", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "error HEADROOM_SHORT switch.pfc.headroom 100000 B (--set); link "
				"leaf2-spine1 100 Gb/s 2000 m: needs 287834 B"),
		  "%s", p.out);
	ts_proc_free(&p);
}

/* rocesim check of a 2 x 2 leaf-spine with a permutation and @faults (the
 * list's lines), written as @name in the temporary folder, into @p. */
static void check_faults(const char *name, const char *faults, struct ts_proc *p)
{
	const char *yaml = ts_tmp(name);
	FILE *f = fopen(yaml, "w");

	cr_assert(f);
	fprintf(f,
		"topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
		"workload: {kind: permutation, size: 1MB}\n"
		"faults:\n%s",
		faults);
	fclose(f);
	ts_exec(p, (const char *[]){"check", yaml, NULL});
}

/* A node down from the start that comes back, and a flap: each said once. */
Test(check, later_faults_are_said_once_per_entry)
{
	struct ts_proc p;
	const char *at;

	check_faults("later.yaml",
		     "  - {kind: node_down, node: spine1}\n"
		     "  - {kind: node_up, node: spine1, at: 1ms}\n"
		     "  - {kind: link_flap, link: spine0-leaf1, at: 2ms, period: 1ms, count: 4}\n",
		     &p);
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(
	    strstr(p.out, "info LINK_UP_LATER faults[1]: spine1: comes back up at 1000.000 us"),
	    "%s", p.out);
	at =
	    strstr(p.out, "info LINK_DOWN_LATER faults[2]: leaf1-spine0: goes down at 2000.000 us");
	cr_assert(at, "%s", p.out);
	cr_assert_null(strstr(at + 20, "LINK_DOWN_LATER"), "the flap once: %s", p.out);
	cr_assert(strstr(p.out, "tier 1-2 2 of 4 links, 200 of 400 Gb/s (50.0%)"), "%s", p.out);
	ts_proc_free(&p);
}

/* A flap from 0: down in this analysis, its first up said once (its own
 * down at 0 comes just before). */
Test(check, a_flap_from_0_is_said_to_come_back_once)
{
	struct ts_proc p;
	const char *at;

	check_faults("flap0.yaml",
		     "  - {kind: link_flap, link: spine0-leaf0, at: 0, period: 1ms, count: 3}\n",
		     &p);
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	at = strstr(p.out,
		    "info LINK_UP_LATER faults[0]: leaf0-spine0: comes back up at 500.000 us");
	cr_assert(at, "%s", p.out);
	cr_assert_null(strstr(at + 20, "LINK_UP_LATER"), "once: %s", p.out);
	ts_proc_free(&p);
}

Test(check, fail_takes_a_node_and_node_down_at_0_is_failed_too)
{
	const char *ov = ts_tmp("spine0-down.yaml");
	FILE *f = fopen(ov, "w");
	struct ts_proc p;

	ts_exec(&p,
		(const char *[]){"check", "tests/check/leafspine.yaml", "--fail", "spine0", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	ts_proc_free(&p);

	/* both spines: every pair across leaves is cut */
	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--fail", "spine0",
				     "--fail", "spine1", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "error UNREACHABLE workload: ") &&
		      strstr(p.out, "12 of 12 source-destination pairs have no route") &&
		      strstr(p.out, "leaf3-spine1"),
		  "%s", p.out);
	ts_proc_free(&p);

	/* a node_down at 0 is down, as --fail takes it */
	cr_assert(f);
	fputs("faults: [{kind: node_down, node: spine0, at: 0us}]\n", f);
	fclose(f);
	ts_exec(&p, (const char *[]){"check", "tests/check/leafspine.yaml", "--with", ov, "--fail",
				     "spine1", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "12 of 12 source-destination pairs have no route"), "%s", p.out);
	ts_proc_free(&p);

	ts_exec(&p,
		(const char *[]){"check", "tests/check/leafspine.yaml", "--fail", "spine9", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "rocesim: --fail: no link or node named \"spine9\""), "%s", p.err);
	cr_assert_eq(count(p.err, "\n"), 1, "one line: %s", p.err);
	ts_proc_free(&p);
}

/*
 * The README's tables of defaults against what check --json says a bare
 * scenario resolves to: every README row below is parsed (key cell, default
 * cell, several keys paired with several defaults in order) and compared
 * with effective.*, so a default changed on either side fails here.
 */
static const char *const documented[] = {
    "switch.buffer.size",
    "switch.buffer.pg_min",
    "switch.lossless",
    "switch.cnp_priority",
    "switch.pfc.enabled",
    "switch.pfc.dynamic_th",
    "switch.pfc.xon_offset",
    "switch.pfc.quanta",
    "switch.ecn.enabled",
    "switch.ecn.kmin",
    "switch.ecn.kmax",
    "switch.ecn.pmax",
    "switch.ecn.mark",
    "switch.scheduler",
    "nic.mtu",
    "nic.dscp",
    "nic.ecn",
    "nic.cc",
    "nic.dcqcn.variant",
    "nic.transport.timeout",
    "nic.transport.ack_every",
    "nic.dcqcn.rp_time_reset",
    "nic.dcqcn.rp_byte_reset",
    "nic.dcqcn.rp_threshold",
    "nic.dcqcn.rp_ai_rate",
    "nic.dcqcn.rp_hai_rate",
    "nic.dcqcn.rp_max_rate",
    "nic.dcqcn.rp_min_rate",
    "nic.dcqcn.rp_min_dec_fac",
    "nic.dcqcn.rp_rate_to_set_on_first_cnp",
    "nic.dcqcn.rp_dce_tcp_g",
    "nic.dcqcn.rp_dce_tcp_rtt",
    "nic.dcqcn.rp_rate_reduce_monitor_period",
    "nic.dcqcn.rp_initial_alpha_value",
    "nic.dcqcn.rp_gd",
    "nic.dcqcn.rp_clamp_tgt_rate",
    "nic.dcqcn.rp_clamp_tgt_rate_ati",
    "nic.dcqcn.np_min_time_between_cnps",
    "nic.dcqcn.np_cnp_dscp",
    "nic.dcqcn.np_cnp_prio",
    "nic.dcqcn.np_cnp_mode",
    "nic.dcqcn.byte_reset_unit",
    "nic.dcqcn.cnp_scope",
};

/* One documented default: the key and the README's words for its value. */
struct doc_default {
	char key[96];
	char value[64];
};

/* @s without spaces around it, in @buf. */
static char *trim(const char *s, size_t n, char *buf, size_t size)
{
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	snprintf(buf, size, "%.*s", (int)n, s);
	return buf;
}

/* README.md and the docs that hold tables of keys, one after the other
 * (free it); NULL if one cannot be read. */
static char *docs_text(void)
{
	static const char *const names[] = {
	    "README.md",       "docs/scenario.md", "docs/models.md", "docs/real-configs.md",
	    "docs/servers.md", "docs/parallel.md", "docs/results.md"};
	char *all = NULL;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *t = ts_slurp(names[i]), *grown;
		size_t n;

		if (!t) {
			free(all);
			return NULL;
		}
		n = strlen(t);
		grown = realloc(all, len + n + 2);
		if (!grown) {
			free(t);
			free(all);
			return NULL;
		}
		all = grown;
		memcpy(all + len, t, n);
		len += n;
		all[len++] = '\n';
		all[len] = '\0';
		free(t);
	}
	return all;
}

/*
 * The rows "| `key`, `key2` | default, default2 | ..." of the docs: a key
 * of the DCQCN table is under nic.dcqcn, a short key ("kmax") under the
 * first key's section, and each key takes the default at its position (or
 * the only one); "0 (port)" is 0.
 */
static size_t readme_defaults(struct doc_default *out, size_t max)
{
	char *text = docs_text(), *line, *save = NULL;
	size_t n = 0;

	cr_assert(text, "no README.md or docs/");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char keys[256], vals[256], first[96] = "", *k, *v, *ks = NULL, *vs = NULL;
		const char *c1, *c2, *c3;
		size_t n_vals = 0, i = 0;
		char val_list[8][64];

		if (strncmp(line, "| `", 3) || !(c1 = strchr(line + 1, '|')) ||
		    !(c2 = strchr(c1 + 1, '|')) || !(c3 = strchr(c2 + 1, '|')))
			continue;
		trim(line + 1, (size_t)(c1 - line - 1), keys, sizeof(keys));
		trim(c1 + 1, (size_t)(c2 - c1 - 1), vals, sizeof(vals));
		for (v = strtok_r(vals, ",", &vs); v && n_vals < 8; v = strtok_r(NULL, ",", &vs)) {
			char *paren = strchr(v, '(');

			if (paren)
				*paren = '\0';
			trim(v, strlen(v), val_list[n_vals++], sizeof(val_list[0]));
		}
		for (k = strtok_r(keys, ",", &ks); k && n < max;
		     k = strtok_r(NULL, ",", &ks), i++) {
			char name[96];
			const char *dot;

			trim(k, strlen(k), name, sizeof(name));
			if (name[0] != '`' || name[strlen(name) - 1] != '`')
				break;
			memmove(name, name + 1, strlen(name));
			name[strlen(name) - 1] = '\0';
			if (!strncmp(name, "rp_", 3) || !strncmp(name, "np_", 3))
				snprintf(out[n].key, sizeof(out[n].key), "nic.dcqcn.%s", name);
			else if (!i || !(dot = strrchr(first, '.')))
				snprintf(out[n].key, sizeof(out[n].key), "%s", name);
			else
				snprintf(out[n].key, sizeof(out[n].key), "%.*s.%s",
					 (int)(dot - first), first, name);
			if (!i)
				snprintf(first, sizeof(first), "%s", out[n].key);
			if (n_vals == 1 && i > 0)
				break; /* one default for the first key only ("strict", weights) */
			if (i >= n_vals)
				break;
			snprintf(out[n].value, sizeof(out[n].value), "%s", val_list[i]);
			n++;
		}
	}
	free(text);
	return n;
}

/* Whether the README's words @doc say the JSON value @j. */
static int same_default(const char *doc, const json_t *j, char *why, size_t size)
{
	char *dumped;
	uint64_t bytes;
	double frac;
	int ok;

	switch (json_typeof(j)) {
	case JSON_INTEGER:
		/* "2496 B offset": the number and its unit */
		{
			char num[64];

			snprintf(num, sizeof(num), "%s", doc);
			if (strstr(num, " B"))
				*strstr(num, " B") = '\0';
			ok = !units_size(num, &bytes) && bytes == (uint64_t)json_integer_value(j);
		}
		break;
	case JSON_REAL:
		ok = !units_fraction(doc, &frac) && fabs(frac - json_real_value(j)) < 1e-12;
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		ok = !strcmp(doc, json_is_true(j) ? "true" : "false");
		break;
	case JSON_STRING:
		ok = !strcmp(doc, json_string_value(j));
		break;
	default:
		dumped = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		ok = dumped && !strcmp(doc, dumped);
		free(dumped);
		break;
	}
	dumped = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	snprintf(why, size, "README says \"%s\", check --json says %s", doc, dumped ? dumped : "?");
	free(dumped);
	return ok;
}

Test(check, the_readme_documents_the_defaults_check_resolves)
{
	static struct doc_default docs[256];
	size_t n_docs = readme_defaults(docs, 256);
	const char *scn = ts_tmp("bare.yaml");
	FILE *f = fopen(scn, "w");
	struct ts_proc p;
	json_error_t jerr;
	json_t *j;

	cr_assert(f);
	fputs("topology: {kind: star, hosts: 2}\n"
	      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n",
	      f);
	fclose(f);
	ts_exec(&p, (const char *[]){"check", scn, "--json", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	j = json_loads(p.out, 0, &jerr);
	cr_assert(j, "not JSON: %s", jerr.text);
	cr_assert_geq(n_docs, 40, "only %zu defaults read from the README", n_docs);
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		const struct doc_default *d = NULL;
		char path[128], why[300];
		const json_t *v;

		for (size_t k = 0; k < n_docs && !d; k++)
			if (!strcmp(docs[k].key, documented[i]))
				d = &docs[k];
		cr_assert(d, "the README's tables give no default for %s", documented[i]);
		snprintf(path, sizeof(path), "effective.%s", documented[i]);
		v = get(j, path);
		cr_expect(same_default(d->value, v, why, sizeof(why)), "%s: %s", documented[i],
			  why);
	}
	json_decref(j);
	ts_proc_free(&p);
}
