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
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proc.h"

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
