/*
 * calibrate and compare --measured on counters: a round trip. A small 8:1
 * incast with PFC and DCQCN runs at known values of two keys (the CNP
 * spacing nic.dcqcn.np_min_time_between_cnps and the host links'
 * topology.link.delay); its counters are written out as the lab's tools
 * print them (ethtool -S, `grep . hw_counters/[a-z]*`, SONiC pfcstat, as the
 * samples of tests/measured/lab/ are); the scenario is given other values
 * of both keys, and calibrate must find the known ones again within 5%
 * from those files alone. Also: compare --measured's table, its largest
 * disagreements and the counters it does not compare; calibrate's bad
 * input, refused with exit 2 and nothing written.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc.h"
#include "sim/study/calibrate.h"
#include "support.h"

static void setup(void)
{
	ts_proc_setup("calibrate");
}

TestSuite(calibrate, .init = setup, .fini = ts_proc_teardown, .timeout = 300);

/* 8 senders of 2 MB into h8 at 100G: PAUSE frames from the switch and CNPs
 * from h8 (one CNP spacing for the port) in about 1.4 ms simulated */
#define SCENARIO(cnp, delay)                                                                       \
	"name: roundtrip\n"                                                                        \
	"seed: 1\n"                                                                                \
	"stop: 20ms\n"                                                                             \
	"topology:\n"                                                                              \
	"  kind: star\n"                                                                           \
	"  hosts: 9\n"                                                                             \
	"  link: {rate: 100Gbps, delay: " delay "}\n"                                              \
	"switch:\n"                                                                                \
	"  buffer: {size: 4MB}\n"                                                                  \
	"  pfc: {xoff: 300KB}\n"                                                                   \
	"  ecn: {kmin: 50KB, kmax: 400KB, pmax: 20%}\n"                                            \
	"nic:\n"                                                                                   \
	"  mtu: 4096\n"                                                                            \
	"  dcqcn: {np_min_time_between_cnps: " cnp "}\n"                                           \
	"workload:\n"                                                                              \
	"  kind: incast\n"                                                                         \
	"  senders: 8\n"                                                                           \
	"  size: 2MB\n"                                                                            \
	"output: {sample: 0}\n"

/* the lab's values, which calibrate must find */
#define TRUE_CNP 24.0	  /* us */
#define TRUE_DELAY 1.5e-6 /* s */

static const char *const ethtool_names[] = {
    "rx_packets_phy",
    "tx_packets_phy",
    "rx_bytes_phy",
    "tx_bytes_phy",
    "rx_discards_phy",
    "rx_prio3_pause",
    "rx_prio3_pause_duration",
    "tx_prio3_pause",
};
static const char *const hw_names[] = {
    "np_cnp_sent",	     "np_ecn_marked_roce_packets",
    "rp_cnp_handled",	     "rp_cnp_ignored",
    "out_of_sequence",	     "packet_seq_err",
    "local_ack_timeout_err",
};

static unsigned long long num(const json_t *o, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(o, key));
}

/* @v as newer sonic-utilities print it: "12,345" */
static const char *commas(unsigned long long v, char *buf, size_t size)
{
	char raw[32];
	size_t n, o = 0;

	n = (size_t)snprintf(raw, sizeof(raw), "%llu", v);
	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Host @h's counters as `ethtool -S eth2` prints them (with counters
 * rocesim has no counterpart of); @base added to each (a reading taken
 * before, or after a run of @base more). */
static void write_ethtool(const char *path, const json_t *h, unsigned long long base)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	fprintf(f, "NIC statistics:\n     rx_packets: %llu\n     tx_packets: %llu\n",
		base + num(h, "rx_packets_phy"), base + num(h, "tx_packets_phy"));
	for (size_t i = 0; i < sizeof(ethtool_names) / sizeof(*ethtool_names); i++)
		fprintf(f, "     %s: %llu\n", ethtool_names[i], base + num(h, ethtool_names[i]));
	fprintf(f, "     rx_prio3_pause_transition: %llu\n", base + num(h, "rx_prio3_pause") / 2);
	cr_assert_eq(fclose(f), 0);
}

/* Host @h's RDMA counters as `grep . .../hw_counters/[a-z]*` prints them. */
static void write_hw(const char *path, const json_t *h, unsigned long long base)
{
	static const char dir[] = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/";
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	fprintf(f, "%slifespan:10\n", dir);
	for (size_t i = 0; i < sizeof(hw_names) / sizeof(*hw_names); i++)
		fprintf(f, "%s%s:%llu\n", dir, hw_names[i], base + num(h, hw_names[i]));
	fprintf(f, "%sroce_adp_retrans:%llu\n", dir, base);
	cr_assert_eq(fclose(f), 0);
}

/* One pfcstat table (Rx or Tx) of @sw's ports, named by their peer. */
static void pfc_table(FILE *f, const json_t *sw, int tx)
{
	const json_t *ports = json_object_get(sw, "ports"), *p;
	size_t i;

	fprintf(f,
		"  Port %s    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
		"---------  ------  ------  ------  ------  ------  ------  ------  ------\n",
		tx ? "Tx" : "Rx");
	json_array_foreach(ports, i, p) {
		unsigned long long v[8] = {0};
		const json_t *e;
		size_t k;
		char c[8][32];

		json_array_foreach(json_object_get(p, "pfc"), k, e) {
			int prio = (int)json_integer_value(json_object_get(e, "priority"));

			v[prio] = tx ? num(e, "tx_pause") + num(e, "tx_resume")
				     : num(e, "rx_pause") + num(e, "rx_resume");
		}
		fprintf(f, "%9s", json_string_value(json_object_get(p, "peer")));
		for (int q = 0; q < 8; q++)
			fprintf(f, "  %6s", commas(v[q], c[q], sizeof(c[q])));
		fputc('\n', f);
	}
}

/* Switch @sw's PFC counters as `show pfc counters` prints them. */
static void write_pfcstat(const char *path, const json_t *sw)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	pfc_table(f, sw, 0);
	fputc('\n', f);
	pfc_table(f, sw, 1);
	cr_assert_eq(fclose(f), 0);
}

/* The lab: the scenario run at the true values, its counters written into
 * folder @dir (h0 as a before/after pair); the results kept in @run. */
static void make_lab(const char *dir, const char *run)
{
	char path[600];
	struct sim sim;
	const json_t *h;
	json_t *res, *none = json_object();
	size_t i;
	FILE *f;

	cr_assert(none);
	ts_load(SCENARIO("24", "1500ns"), NULL, 0, &sim);
	res = ts_finish(&sim);
	sim_fini(&sim);
	cr_assert_eq(mkdir(dir, 0777), 0, "%s", dir);
	json_array_foreach(json_object_get(res, "hosts"), i, h) {
		const char *name = json_string_value(json_object_get(h, "name"));

		if (!strcmp(name, "h0")) {
			snprintf(path, sizeof(path), "%s/h0.ethtool.before.txt", dir);
			write_ethtool(path, none, 1000000);
			snprintf(path, sizeof(path), "%s/h0.ethtool.after.txt", dir);
			write_ethtool(path, h, 1000000);
		} else {
			snprintf(path, sizeof(path), "%s/%s.ethtool.txt", dir, name);
			write_ethtool(path, h, 0);
		}
		snprintf(path, sizeof(path), "%s/%s.hw-counters.txt", dir, name);
		write_hw(path, h, 0);
	}
	snprintf(path, sizeof(path), "%s/sw0.pfcstat.txt", dir);
	write_pfcstat(path, json_array_get(json_object_get(res, "switches"), 0));
	f = fopen(run, "w");
	cr_assert(f);
	cr_assert_eq(json_dumpf(res, f, JSON_INDENT(1)), 0);
	cr_assert_eq(fclose(f), 0);
	json_decref(res);
	json_decref(none);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

Test(calibrate, round_trip)
{
	char lab[600], run[600], scn[600], msg[1200];
	char *fits[] = {"nic.dcqcn.np_min_time_between_cnps=4..64",
			"topology.link.delay=300ns..10us"};
	struct cal_args a = {.fits = fits, .n_fits = 2};
	struct cal_result r;
	struct diag d = {0};
	double cnp, delay;

	snprintf(lab, sizeof(lab), "%s", ts_tmp("lab"));
	snprintf(run, sizeof(run), "%s", ts_tmp("lab-run.json"));
	snprintf(scn, sizeof(scn), "%s", ts_tmp("roundtrip.yaml"));
	make_lab(lab, run);
	/* the scenario as written before calibration: both keys wrong */
	write_text(scn, SCENARIO("8", "5us"));
	a.scenario = scn;
	a.measured = lab;
	cr_assert_eq(cal_run(&a, &r, &d), 0, "%s", diag_str(&d, msg, sizeof(msg)));
	cnp = r.keys[0].value; /* whole us, as cc_params takes it */
	delay = r.keys[1].value * 1e-12;
	cr_log_info("calibrate: %zu counters, %zu runs, %zu points, %.2f s: cnp %.3f us (true "
		    "%.0f), delay %.1f ns (true %.0f); rms %.4f -> %.4f",
		    r.n_counters, r.runs, r.search.n, r.wall_s, cnp, TRUE_CNP, delay * 1e9,
		    TRUE_DELAY * 1e9, r.rms_before, r.rms_after);
	cr_assert(fabs(cnp / TRUE_CNP - 1) < 0.05, "CNP spacing %.3f us, true %.0f", cnp, TRUE_CNP);
	cr_assert(fabs(delay / TRUE_DELAY - 1) < 0.05, "link delay %.1f ns, true %.0f", delay * 1e9,
		  TRUE_DELAY * 1e9);
	cr_assert(r.rms_before > 0.2, "the wrong values disagree: %.3f", r.rms_before);
	cr_assert(r.rms_after < r.rms_before / 4, "%.3f -> %.3f", r.rms_before, r.rms_after);
	cr_assert(!r.poor);
	cr_assert(r.runs <= CAL_DEFAULT_BUDGET + 1, "%zu runs", r.runs);
	cr_assert(strstr(r.fragment, "np_min_time_between_cnps:"), "%s", r.fragment);
	cr_assert(r.keys[0].effect == 1 && r.keys[1].effect == 1);
	cal_free(&r);
}

Test(calibrate, compare_counters)
{
	char lab[600], run[600];
	struct ts_proc p;
	json_error_t je;
	json_t *j;

	snprintf(lab, sizeof(lab), "%s", ts_tmp("lab2"));
	snprintf(run, sizeof(run), "%s", ts_tmp("lab2-run.json"));
	make_lab(lab, run);
	/* the lab beside its own run: every counter the same */
	ts_exec(&p, (const char *[]){"compare", "--measured", lab, run, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(strstr(p.out, "none: every counter compared is the same"), "%s", p.out);
	cr_assert(ts_line_with(p.out, "sw0", "h8"), "%s", p.out);
	cr_assert(strstr(p.out, "rocesim counts nothing of the kind"), "%s", p.out);
	cr_assert(strstr(p.out, "roce_adp_retrans"), "%s", p.out);
	ts_proc_free(&p);
	/* beside a run of other values: the disagreements, largest first */
	{
		char other[600], scn[600];
		struct sim sim;
		json_t *res;
		FILE *f;

		snprintf(scn, sizeof(scn), "%s", SCENARIO("8", "1500ns"));
		ts_load(scn, NULL, 0, &sim);
		res = ts_finish(&sim);
		sim_fini(&sim);
		snprintf(other, sizeof(other), "%s", ts_tmp("other.json"));
		f = fopen(other, "w");
		cr_assert(f);
		json_dumpf(res, f, 0);
		fclose(f);
		json_decref(res);
		ts_exec(&p, (const char *[]){"compare", "--measured", lab, other, "--tolerance",
					     "25%", "--junit", ts_tmp("cmp.xml"), "--markdown",
					     ts_tmp("cmp.md"), NULL});
		cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
		cr_assert(strstr(p.out, "# largest disagreements"), "%s", p.out);
		cr_assert(strstr(strstr(p.out, "# largest disagreements"), "np_cnp_sent"), "%s",
			  p.out);
		{
			char *xml = ts_slurp(ts_tmp("cmp.xml")), *md = ts_slurp(ts_tmp("cmp.md"));

			cr_assert(xml && strstr(xml, "<failure"));
			cr_assert(md && strstr(md, "np_cnp_sent"), "%s", md);
			free(xml);
			free(md);
		}
		ts_proc_free(&p);
		ts_exec(&p, (const char *[]){"compare", "--json", "--measured", lab, other, NULL});
		cr_assert_eq(p.code, 0, "%s", p.err);
		j = json_loads(p.out, 0, &je);
		cr_assert(j, "%s", je.text);
		cr_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 0), "kind")),
				 "counters");
		cr_assert(json_array_size(
			      json_object_get(json_array_get(j, 0), "largest_disagreements")) > 0);
		json_decref(j);
		ts_proc_free(&p);
	}
}

Test(calibrate, bad_input)
{
	char lab[600], run[600], scn[600], out[600];
	struct ts_proc p;
	struct stat st;
	static const struct {
		const char *fit, *says;
	} bad[] = {
	    {"nic.dcqcn.no_such_key=1..5", "no_such_key"},
	    {"topology.link.delay=5us..1us", "empty range"},
	    {"topology.link.delay=1..5", "topology.link.delay"},
	    {"topology.link.delay=1us", "not a range"},
	};

	snprintf(lab, sizeof(lab), "%s", ts_tmp("lab3"));
	snprintf(run, sizeof(run), "%s", ts_tmp("lab3-run.json"));
	snprintf(scn, sizeof(scn), "%s", ts_tmp("bad.yaml"));
	snprintf(out, sizeof(out), "%s", ts_tmp("cal-out"));
	make_lab(lab, run);
	write_text(scn, SCENARIO("8", "5us"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		ts_exec(&p, (const char *[]){"calibrate", scn, "--measured", lab, "--fit",
					     bad[i].fit, "--out", out, NULL});
		cr_assert_eq(p.code, 2, "%s: %s", bad[i].fit, p.err);
		cr_assert(strstr(p.err, bad[i].says), "%s: %s", bad[i].fit, p.err);
		cr_assert_eq(strchr(p.err, '\n'), p.err + strlen(p.err) - 1, "one line: %s", p.err);
		cr_assert(stat(out, &st), "nothing written");
		ts_proc_free(&p);
	}
	/* a folder of another fabric's names */
	{
		char other[600], path[700];

		snprintf(other, sizeof(other), "%s", ts_tmp("lab-other"));
		cr_assert_eq(mkdir(other, 0777), 0);
		snprintf(path, sizeof(path), "%s/gpu07.ethtool.txt", other);
		write_text(path, "NIC statistics:\n     rx_prio3_pause: 12\n");
		ts_exec(&p, (const char *[]){"calibrate", scn, "--measured", other, "--fit",
					     "topology.link.delay=1us..5us", "--out", out, NULL});
		cr_assert_eq(p.code, 2, "%s", p.err);
		cr_assert(strstr(p.err, "gpu07.ethtool.txt") && strstr(p.err, "gpu07"), "%s",
			  p.err);
		cr_assert(stat(out, &st), "nothing written");
		ts_proc_free(&p);
		ts_exec(&p, (const char *[]){"calibrate", scn, "--measured", "tests/measured/lab",
					     "--fit", "topology.link.delay=1us..5us", NULL});
		cr_assert_eq(p.code, 2, "%s", p.err);
		ts_proc_free(&p);
	}
}
