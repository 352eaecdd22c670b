/*
 * rocesim sweep: the axes (lists with units, linear, log and geometric
 * ranges, refusals), the order and ids of a grid's points and a zip's, the
 * scenario digest, the `sweep:` section; then the verb as users meet it,
 * through the built rocesim (ROCESIM_BIN) on a tiny scenario (two hosts, a
 * 64 KB flow): sweep.csv and summary.csv (statistics checked by hand on
 * known values), resume (only the runs not finished run again), a failing
 * run recorded with exit 1, and bad inputs refused with exit 2 and one line
 * before anything runs (the scenarios in tests/bad/sweep/ too); then the
 * sweep spread over machines: the Slurm job array's tasks run as the
 * sbatch script writes them, then --collect, give the tables of a local
 * sweep byte for byte.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "sim/run/par_mpi.h"
#include "sim/study/sweep_impl.h"
#include "sim/config/scenario.h"

static const char tiny_yaml[] = "name: tiny\n"
				"topology: {kind: star, hosts: 2}\n"
				"workload:\n"
				"  kind: flows\n"
				"  flows:\n"
				"    - {src: h0, dst: h1, size: 64KB}\n";

static void setup(void)
{
	ts_proc_setup("sweep");
}

TestSuite(sweep, .init = setup, .fini = ts_proc_teardown, .timeout = 600);

static void axis_is(const char *arg, const char *const *want)
{
	struct sweep_axis ax;
	struct diag d = {0};
	size_t n = 0;

	cr_assert_eq(sweep_axis_parse("--vary", 0, arg, &ax, &d), 0, "%s: %s", arg, d.msg);
	while (want[n])
		n++;
	cr_assert_eq(ax.n, n, "%s: %zu values, expected %zu", arg, ax.n, n);
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(ax.values[i], want[i], "%s: value %zu", arg, i);
	sweep_axis_free(&ax);
}

static void axis_refused(const char *arg, const char *words)
{
	struct sweep_axis ax;
	struct diag d = {0};
	char line[1200];

	cr_assert_eq(sweep_axis_parse("--vary", 0, arg, &ax, &d), -EINVAL, "%s was taken", arg);
	diag_str(&d, line, sizeof(line));
	cr_expect(strstr(line, words), "%s: \"%s\" does not say \"%s\"", arg, line, words);
	cr_expect(!strchr(line, '\n'), "%s: not one line", arg);
}

/* A summary's metrics flattened with dots; the slowdown buckets by name,
 * their flows and percentiles (not their bounds, nor nulls). */
Test(sweep, summary_flattens_slowdown_buckets_by_name)
{
	json_error_t e;
	json_t *sum = json_loads(
	    "{\"drops\": 0, \"fct_us\": {\"p99\": 12.5}, \"ok\": true,"
	    " \"fct_slowdown\": [{\"bucket\": \"<10KB\", \"min_bytes\": 0, \"max_bytes\": 10000,"
	    " \"n\": 0, \"p50\": null, \"p95\": null, \"p99\": null},"
	    " {\"bucket\": \"1MB-10MB\", \"min_bytes\": 1000000, \"max_bytes\": 10000000,"
	    " \"n\": 8, \"p50\": 9.9, \"p95\": 10.4, \"p99\": 10.44}],"
	    " \"iteration_times_us\": [1, 2]}",
	    0, &e);
	json_t *flat = json_object();

	cr_assert_not_null(sum, "%s", e.text);
	cr_assert_eq(sweep_flatten(flat, "", sum), 0);
	cr_expect_eq(json_integer_value(json_object_get(flat, "drops")), 0);
	cr_expect_float_eq(json_real_value(json_object_get(flat, "fct_us.p99")), 12.5, 1e-12);
	cr_expect_eq(json_integer_value(json_object_get(flat, "ok")), 1);
	cr_expect_eq(json_integer_value(json_object_get(flat, "fct_slowdown.<10KB.n")), 0);
	cr_expect_null(json_object_get(flat, "fct_slowdown.<10KB.p99"));
	cr_expect_eq(json_integer_value(json_object_get(flat, "fct_slowdown.1MB-10MB.n")), 8);
	cr_expect_float_eq(json_real_value(json_object_get(flat, "fct_slowdown.1MB-10MB.p99")),
			   10.44, 1e-12);
	cr_expect_null(json_object_get(flat, "fct_slowdown.1MB-10MB.min_bytes"));
	cr_expect_null(json_object_get(flat, "fct_slowdown.1MB-10MB.bucket"));
	cr_expect_eq(json_object_size(flat), 8, "flattened: %zu keys", json_object_size(flat));
	json_decref(flat);
	json_decref(sum);
}

Test(sweep, list_keeps_values_and_units)
{
	axis_is("switch.ecn.kmin=50KB,150KB,400KB",
		(const char *[]){"50KB", "150KB", "400KB", NULL});
	axis_is("nic.cc=dcqcn, none", (const char *[]){"dcqcn", "none", NULL});
	axis_is("switch.ecn.kmin=150KiB", (const char *[]){"150KiB", NULL});
}

Test(sweep, linear_range_within_a_factor_ten)
{
	axis_is("switch.ecn.kmin=100KB..200KB:3",
		(const char *[]){"100KB", "150KB", "200KB", NULL});
	axis_is("k=1us..5us:5", (const char *[]){"1us", "2us", "3us", "4us", "5us", NULL});
	/* 1us..2us in 3: 1.5us written exactly in ns */
	axis_is("k=1us..2us:3", (const char *[]){"1us", "1500ns", "2us", NULL});
	/* a range that starts at 0 is linear whatever its span */
	axis_is("k=0..100:3", (const char *[]){"0", "50", "100", NULL});
	axis_is("k=0.1..0.5:3", (const char *[]){"0.1", "0.3", "0.5", NULL});
	axis_is("k=10%..30%:3", (const char *[]){"10%", "20%", "30%", NULL});
	axis_is("k=100Gbps..400Gbps:4",
		(const char *[]){"100Gbps", "200Gbps", "300Gbps", "400Gbps", NULL});
	/* 9x is not a factor 10: linear */
	axis_is("k=1KB..9KB:3", (const char *[]){"1KB", "5KB", "9KB", NULL});
}

Test(sweep, log_range_over_a_factor_ten)
{
	axis_is("topology.link.cable=2m..2km:4",
		(const char *[]){"2m", "20m", "200m", "2km", NULL});
	/* 10x exactly is log-spaced; whole bytes: 1000 x sqrt(10) = 3162.28 -> 3162B */
	axis_is("k=1KB..10KB:3", (const char *[]){"1KB", "3162B", "10KB", NULL});
}

Test(sweep, geometric_range)
{
	axis_is("k=1KB..10KB:x2", (const char *[]){"1KB", "2KB", "4KB", "8KB", NULL});
	axis_is("k=50KB..800KB:x2",
		(const char *[]){"50KB", "100KB", "200KB", "400KB", "800KB", NULL});
	axis_is("k=1us..1ms:x10", (const char *[]){"1us", "10us", "100us", "1ms", NULL});
}

Test(sweep, bad_axes_refused)
{
	axis_refused("k=5KB..1KB:3", "empty range");
	axis_refused("k=1KB..1KB:3", "empty range");
	axis_refused("k=1KB..2KB:1", "at least 2 points");
	axis_refused("k=1KB..2KB:x1", "above 1");
	axis_refused("k=1KB..2KB", "not a range");
	axis_refused("k=1KB..2KB:", "whole number");
	axis_refused("k=2m..5KB:3", "not the same kind (a length, a size)");
	axis_refused("k=1XB..2XB:3", "is not a number, size");
	axis_refused("k=1..3:8", "same value twice");
	axis_refused("k=a,,b", "an empty value");
	axis_refused("k=", "no values");
	axis_refused("seed=1,2", "--seeds");
	axis_refused("=1,2", "not KEY=VALUES");
}

static struct sweep_spec spec2(int zip, size_t n_b)
{
	static const char *const b[] = {"x", "y", "z"};
	struct sweep_spec sp = {.scenario = "s.yaml", .zip = zip};

	sp.axes = calloc(2, sizeof(*sp.axes));
	cr_assert(sp.axes);
	sp.n_axes = 2;
	sp.axes[0].key = strdup("a");
	sp.axes[0].values = calloc(2, sizeof(char *));
	sp.axes[0].values[0] = strdup("1");
	sp.axes[0].values[1] = strdup("2");
	sp.axes[0].n = 2;
	sp.axes[1].key = strdup("b");
	sp.axes[1].values = calloc(n_b, sizeof(char *));
	for (size_t i = 0; i < n_b; i++)
		sp.axes[1].values[i] = strdup(b[i]);
	sp.axes[1].n = n_b;
	return sp;
}

Test(sweep, grid_order_first_axis_outermost)
{
	struct sweep_spec sp = spec2(0, 3);
	struct diag d = {0};
	char *sets[2], id[SWEEP_ID_SIZE];
	static const char *const want[][2] = {{"a=1", "b=x"}, {"a=1", "b=y"}, {"a=1", "b=z"},
					      {"a=2", "b=x"}, {"a=2", "b=y"}, {"a=2", "b=z"}};

	cr_assert_eq(sweep_spec_points(&sp, &d), 0, "%s", d.msg);
	cr_assert_eq(sp.n_points, 6);
	for (size_t p = 0; p < 6; p++) {
		cr_assert_eq(sweep_spec_sets(&sp, p, sets), 0);
		cr_expect_str_eq(sets[0], want[p][0], "point %zu", p);
		cr_expect_str_eq(sets[1], want[p][1], "point %zu", p);
		sweep_sets_free(sets, 2);
	}
	sweep_spec_id(&sp, 3, 0, 7, id);
	cr_expect_str_eq(id, "p004-s7");
	sweep_spec_free(&sp);
}

Test(sweep, zip_pairs_axes_and_refuses_unequal_lengths)
{
	struct sweep_spec sp = spec2(1, 2), bad = spec2(1, 3);
	struct diag d = {0};
	char *sets[2];

	cr_assert_eq(sweep_spec_points(&sp, &d), 0, "%s", d.msg);
	cr_assert_eq(sp.n_points, 2);
	cr_assert_eq(sweep_spec_sets(&sp, 1, sets), 0);
	cr_expect_str_eq(sets[0], "a=2");
	cr_expect_str_eq(sets[1], "b=y");
	sweep_sets_free(sets, 2);
	cr_assert_eq(sweep_spec_points(&bad, &d), -EINVAL);
	cr_expect(strstr(d.msg, "has 3 values and a has 2"), "%s", d.msg);
	sweep_spec_free(&sp);
	sweep_spec_free(&bad);
}

Test(sweep, ids_widen_past_999_points)
{
	struct sweep_spec sp = {.scenario = "s.yaml"};
	struct sweep_axis ax;
	struct diag d = {0};
	char id[SWEEP_ID_SIZE];

	cr_assert_eq(sweep_axis_parse("--vary", 0, "k=0..1199:1200", &ax, &d), 0, "%s", d.msg);
	sp.axes = &ax;
	sp.n_axes = 1;
	cr_assert_eq(sweep_spec_points(&sp, &d), 0);
	sweep_spec_id(&sp, 41, 0, 3, id);
	cr_expect_str_eq(id, "p0042-s3");
	sweep_axis_free(&ax);
}

Test(sweep, sha256_known_vectors)
{
	char hex[65];

	sha256_hex("abc", 3, hex);
	cr_expect_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("", 0, hex);
	cr_expect_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	cr_expect_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static const char section_yaml[] =
    "name: sec\n"
    "topology: {kind: star, hosts: 2}\n"
    "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 64KB}]}\n"
    "sweep:\n"
    "  vary:\n"
    "    switch.ecn.kmin: \"50KB,150KB\"\n"
    "    topology.link.cable: [2m, 20m, 200m]\n"
    "  zip: false\n"
    "  seeds: 3\n";

Test(sweep, scenario_section_loads_and_reads)
{
	struct sweep_spec sp = {.scenario = "sec.yaml", .zip = 0};
	struct scenario *s;
	struct diag d = {0};
	FILE *f = fopen(ts_tmp("sec.yaml"), "w");

	cr_assert(f);
	fputs(section_yaml, f);
	fclose(f);
	/* the loader takes the section (run and check ignore it) */
	cr_assert_eq(scn_load(ts_tmp("sec.yaml"), NULL, 0, &s, &d), 0, "%s", d.msg);
	scn_free(s);
	cr_assert_eq(
	    sweep_spec_from_scenario(&sp, section_yaml, strlen(section_yaml), 0, 0, 0, 0, &d), 0,
	    "%s", d.msg);
	cr_assert_eq(sp.n_axes, 2);
	cr_expect_str_eq(sp.axes[0].key, "switch.ecn.kmin");
	cr_expect_eq(sp.axes[0].n, 2);
	cr_expect_str_eq(sp.axes[1].key, "topology.link.cable");
	cr_assert_eq(sp.axes[1].n, 3);
	cr_expect_str_eq(sp.axes[1].values[2], "200m");
	cr_expect_eq(sp.seed_count, 3);
	sweep_spec_free(&sp);
}

/* ---- the verb ------------------------------------------------------------------ */

static const char *write_tiny(void)
{
	const char *path = ts_tmp("tiny.yaml");
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(tiny_yaml, f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* The line of @csv whose first field is @id, copied into @buf. */
static const char *csv_row(const char *csv, const char *id, char *buf, size_t size)
{
	size_t len = strlen(id);

	for (const char *l = csv; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, id, len) && l[len] == ',') {
			snprintf(buf, size, "%.*s", (int)strcspn(l, "\n"), l);
			return buf;
		}
	}
	cr_assert_fail("no row %s in\n%s", id, csv);
	return NULL;
}

/* Field @col (from 0) of @line, by the header @hdr's name @name. */
static void field(const char *hdr, const char *line, const char *name, char *buf, size_t size)
{
	int col = -1, i = 0;

	for (const char *h = hdr; *h && *h != '\n'; i++) {
		size_t len = strcspn(h, ",\n");

		if (len == strlen(name) && !strncmp(h, name, len)) {
			col = i;
			break;
		}
		h += len + (h[len] == ',');
	}
	cr_assert_geq(col, 0, "no column %s", name);
	for (i = 0; i < col; i++)
		line = strchr(line, ',') + 1;
	snprintf(buf, size, "%.*s", (int)strcspn(line, ",\n"), line);
}

static int count_progress(const char *err)
{
	int n = 0;

	for (const char *p = err; (p = strstr(p, "rocesim sweep: [")); p++)
		n++;
	return n;
}

/* Set summary.fct_us.p99 of a run's results.json to @v. */
static void set_p99(const char *dir, const char *id, double v)
{
	char path[600];
	json_t *j;

	snprintf(path, sizeof(path), "%s/points/%s/results.json", dir, id);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "cannot read %s", path);
	json_object_set_new(json_object_get(json_object_get(j, "summary"), "fct_us"), "p99",
			    json_real(v));
	cr_assert_eq(json_dump_file(j, path, JSON_INDENT(2)), 0);
	json_decref(j);
}

Test(sweep, end_to_end_tables)
{
	const char *scn = write_tiny(), *out = ts_tmp("e2e");
	struct ts_proc p;
	char *csv, *sum, row[4096], v[64], hdr[8192];

	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "topology.link.cable=2m,200m",
					  "--seeds", "3", "-j", "2", "-o", out, NULL});
	cr_assert_eq(p.code, 0, "sweep failed (%d): %s", p.code, p.err);
	cr_expect(strstr(p.out, "fct_us.p99"), "no table on stdout:\n%s", p.out);
	cr_expect(strstr(p.out, "p002   200m"), "table:\n%s", p.out);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("e2e/sweep.csv"));
	cr_assert(csv);
	cr_expect_eq(count_lines(csv), 7, "a header and 6 runs:\n%s", csv);
	cr_expect(!strncmp(csv, "id,point,seed,topology.link.cable,status,error,", 47), "%s", csv);
	snprintf(hdr, sizeof(hdr), "%.*s", (int)strcspn(csv, "\n"), csv);
	csv_row(csv, "p002-s3", row, sizeof(row));
	cr_expect(!strncmp(row, "p002-s3,p002,3,200m,ok,,", 24), "%s", row);
	field(hdr, row, "fct_us.p99", v, sizeof(v));
	/* 64 KB over 200 m: 2 x 1 us more propagation than over 2 m */
	csv_row(csv, "p001-s1", row, sizeof(row));
	field(hdr, row, "fct_us.p99", hdr + 4000, 64);
	cr_expect(atof(v) > atof(hdr + 4000) + 1.9, "p99 200m %s vs 2m %s", v, hdr + 4000);
	free(csv);
	cr_expect(!access(ts_tmp("e2e/points/p001-s2/results.json"), F_OK));
	cr_expect(!access(ts_tmp("e2e/points/p001-s2/point.json"), F_OK));
	cr_expect(!access(ts_tmp("e2e/points/p001-s2/stderr.txt"), F_OK));
	cr_expect(!access(ts_tmp("e2e/sweep.json"), F_OK));

	/* known values in, by hand out: p99 = 1, 2, 6 over the three seeds of p001 */
	set_p99(out, "p001-s1", 1);
	set_p99(out, "p001-s2", 2);
	set_p99(out, "p001-s3", 6);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "topology.link.cable=2m,200m",
					  "--seeds", "3", "-o", out, "--progress", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 0, "a finished run ran again:\n%s", p.err);
	ts_proc_free(&p);
	sum = ts_slurp(ts_tmp("e2e/summary.csv"));
	cr_assert(sum);
	cr_expect_eq(count_lines(sum), 3, "%s", sum);
	snprintf(hdr, sizeof(hdr), "%.*s", (int)strcspn(sum, "\n"), sum);
	csv_row(sum, "p001", row, sizeof(row));
	field(hdr, row, "runs", v, sizeof(v));
	cr_expect_str_eq(v, "3");
	field(hdr, row, "fct_us.p99.mean", v, sizeof(v));
	cr_expect_float_eq(atof(v), 3.0, 1e-9);
	field(hdr, row, "fct_us.p99.std", v, sizeof(v)); /* sqrt((4 + 1 + 9) / 2) */
	cr_expect_float_eq(atof(v), sqrt(7.0), 1e-8, "%s", v);
	field(hdr, row, "fct_us.p99.min", v, sizeof(v));
	cr_expect_str_eq(v, "1");
	field(hdr, row, "fct_us.p99.max", v, sizeof(v));
	cr_expect_str_eq(v, "6");
	/* t(0.975, 2) = 4.302652730 */
	field(hdr, row, "fct_us.p99.ci95", v, sizeof(v));
	cr_expect_float_eq(atof(v), 4.302652730 * sqrt(7.0) / sqrt(3.0), 1e-6, "%s", v);
	/* identical seeds: std 0 */
	csv_row(sum, "p002", row, sizeof(row));
	field(hdr, row, "fct_us.p99.std", v, sizeof(v));
	cr_expect_str_eq(v, "0");
	field(hdr, row, "pfc_pause_frames.mean", v, sizeof(v));
	cr_expect_str_eq(v, "0");
	free(sum);
}

Test(sweep, resume_reruns_only_what_is_missing)
{
	const char *scn = write_tiny(), *out = ts_tmp("resume");
	const char *const args[] = {"sweep", scn, "--vary",	"switch.ecn.kmin=50KB,100KB,150KB",
				    "-o",    out, "--progress", NULL};
	struct ts_proc p;
	char cmd[600];

	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 3, "%s", p.err);
	ts_proc_free(&p);
	snprintf(cmd, sizeof(cmd), "%s/points/p002-s1", out);
	ts_rm_tree(cmd);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 1, "only p002 runs again:\n%s", p.err);
	cr_expect(strstr(p.err, "p002-s1 ok"), "%s", p.err);
	ts_proc_free(&p);
	/* another seed is another run; the others are kept */
	ts_exec(&p,
		(const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB,150KB",
				      "--seed-list", "1,9", "-o", out, "--progress", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 3, "the three s9 runs:\n%s", p.err);
	ts_proc_free(&p);
	/* an edited scenario (another digest) runs everything again */
	{
		FILE *f = fopen(scn, "a");

		cr_assert(f);
		fputs("# edited\n", f);
		fclose(f);
	}
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 3, "%s", p.err);
	ts_proc_free(&p);
}

/* The file @path holds exactly @want. */
static void same_file(const char *want, const char *path)
{
	char *got = ts_slurp(path);

	cr_assert(got, "no %s", path);
	cr_expect_str_eq(got, want, "%s differs", path);
	free(got);
}

Test(sweep, failing_run_recorded_and_exit_1)
{
	const char *scn = write_tiny(), *out = ts_tmp("fail");
	struct ts_proc p;
	char path[600], row[4096], *csv;

	/* results.json as a folder: that run cannot keep its results (exit 3) */
	snprintf(path, sizeof(path), "%s/points/p002-s1/results.json", out);
	cr_assert_eq(mkdir(out, 0777), 0);
	snprintf(row, sizeof(row), "%s/points", out);
	cr_assert_eq(mkdir(row, 0777), 0);
	snprintf(row, sizeof(row), "%s/points/p002-s1", out);
	cr_assert_eq(mkdir(row, 0777), 0);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(row, sizeof(row), "%s/x", path);
	fclose(fopen(row, "w")); /* not empty: rename() cannot replace it */
	ts_exec(&p,
		(const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB,150KB",
				      "-j", "1", "-o", out, "--quiet", NULL});
	cr_expect_eq(p.code, 1, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "1 of 3 runs failed"), "%s", p.err);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("fail/sweep.csv"));
	cr_assert(csv);
	csv_row(csv, "p002-s1", row, sizeof(row));
	cr_expect(strstr(row, ",failed,exit 3: rocesim: cannot write"), "%s", row);
	csv_row(csv, "p003-s1", row, sizeof(row));
	cr_expect(strstr(row, ",ok,,"), "the sweep went on: %s", row);
	free(csv);
	snprintf(path, sizeof(path), "%s/points/p002-s1/stderr.txt", out);
	csv = ts_slurp(path);
	cr_expect(csv && strstr(csv, "cannot write"), "its stderr kept");
	free(csv);
	/* --collect finds the failure in the folder: the same table, exit 1 */
	csv = ts_slurp(ts_tmp("fail/sweep.csv"));
	cr_assert(csv);
	cr_assert_eq(unlink(ts_tmp("fail/sweep.csv")), 0);
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, "--quiet", NULL});
	cr_expect_eq(p.code, 1, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "1 of 3 runs failed"), "%s", p.err);
	cr_expect(!strstr(p.err, "missing"), "%s", p.err);
	ts_proc_free(&p);
	same_file(csv, ts_tmp("fail/sweep.csv"));
	free(csv);
}

static void refused(const char *const *args, const char *out, const char *words)
{
	struct ts_proc p;

	ts_exec(&p, args);
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_lines(p.err), 1, "not one line:\n%s", p.err);
	cr_expect(strstr(p.err, words), "\"%s\" not in: %s", words, p.err);
	cr_expect(access(ts_tmp("bad/points"), F_OK), "a run ran: %s", out);
	ts_proc_free(&p);
}

Test(sweep, bad_inputs_exit_2_before_anything_runs)
{
	const char *scn = write_tiny(), *out = ts_tmp("bad");
	char spec[700];
	FILE *f;

	refused((const char *const[]){"sweep", scn, "--vary", "switch.ecn.kminn=1KB,2KB", "-o", out,
				      NULL},
		out, "switch.ecn.kminn: unknown key");
	cr_expect(access(out, F_OK), "the folder was made");
	refused((const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,2m", "-o", out,
				      NULL},
		out, "p002 (switch.ecn.kmin=2m): --set: switch.ecn.kmin: \"2m\" is not a size");
	refused((const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=400KB..50KB:3", "-o",
				      out, NULL},
		out, "empty range");
	refused((const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=1KB,2KB", "--vary",
				      "topology.link.cable=1m,2m,3m", "--zip", "-o", out, NULL},
		out, "zipped axes need as many each");
	refused((const char *const[]){"sweep", scn, "--seed-list", "1,x", "-o", out, NULL}, out,
		"not a list of seeds");
	/* a folder holding another sweep's spec */
	cr_assert_eq(mkdir(out, 0777), 0);
	snprintf(spec, sizeof(spec), "%s/sweep.json", out);
	f = fopen(spec, "w");
	cr_assert(f);
	fputs("{\"scenario\": {\"path\": \"other.yaml\"}, \"axes\": []}\n", f);
	fclose(f);
	refused((const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=1KB,2KB", "-o", out,
				      NULL},
		out, "holds the sweep of another scenario");
}

Test(sweep, bad_sweep_sections_refused)
{
	DIR *d = opendir("tests/bad/sweep");
	struct dirent *e;
	int n = 0;

	cr_assert(d, "no tests/bad/sweep");
	while ((e = readdir(d))) {
		char path[400];
		struct ts_proc p;

		if (!strstr(e->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "tests/bad/sweep/%s", e->d_name);
		ts_exec(&p, (const char *const[]){"sweep", path, "-o", ts_tmp("badsec"), NULL});
		cr_expect_eq(p.code, 2, "%s: (%d) %s", path, p.code, p.err);
		cr_expect_eq(count_lines(p.err), 1, "%s: not one line:\n%s", path, p.err);
		cr_expect(!strncmp(p.err, "rocesim: tests/bad/sweep/", 25) &&
			      strstr(p.err, ".yaml:") && strstr(p.err, ": sweep"),
			  "%s: names no file, line and key: %s", path, p.err);
		ts_proc_free(&p);
		n++;
	}
	closedir(d);
	cr_expect_geq(n, 3);
	cr_expect(access(ts_tmp("badsec"), F_OK), "the folder was made");
}

/* Runs of a tenth of a second or more (seconds under the sanitizers). */
static const char slow_yaml[] = "name: slow\n"
				"topology: {kind: star, hosts: 8}\n"
				"nic: {cc: dcqcn}\n"
				"workload: {kind: incast, senders: 7, size: 256MB}\n"
				"output: {sample: 0}\n";

static int count_status(const char *csv, const char *status)
{
	int n = 0;

	for (const char *p = csv; (p = strstr(p, status)); p++)
		n++;
	return n;
}

Test(sweep, sigterm_keeps_finished_runs_and_resumes)
{
	const char *scn = ts_tmp("slow.yaml"), *out = ts_tmp("sig");
	const char *const args[] = {"sweep",	  scn, "--vary", "switch.ecn.kmin=10KB..200KB:6",
				    "-j",	  "1", "-o",	 out,
				    "--progress", NULL};
	char first[600];
	struct ts_child c;
	struct ts_proc p;
	char *csv;
	int ok, not_run;
	FILE *f = fopen(scn, "w");

	cr_assert(f);
	fputs(slow_yaml, f);
	fclose(f);
	ts_spawn(&c, NULL, args);
	/* once the first run has finished (not after a fixed time: a fast
	 * machine would finish them all first) */
	snprintf(first, sizeof(first), "%s/points/p001-s1/point.json", out);
	for (int i = 0; i < 6000 && access(first, F_OK); i++)
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	kill(c.pid, SIGTERM);
	ts_wait(&c, &p);
	cr_expect_eq(p.code, 143, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "interrupted by SIGTERM"), "%s", p.err);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("sig/sweep.csv"));
	cr_assert(csv, "no tables after the signal");
	ok = count_status(csv, ",ok,");
	not_run = count_status(csv, ",not-run,");
	cr_expect_eq(ok + not_run, 6, "%s", csv);
	cr_expect_gt(not_run, 0, "the sweep did not stop: %s", csv);
	free(csv);
	/* again: only the runs not finished */
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), not_run, "%s", p.err);
	ts_proc_free(&p);
}

/*
 * The shipped sweep of XOFF against headroom over 2 km says what it
 * shows: the 300 m profile's headroom drops lossless packets at every
 * XOFF, 300 KB and more drop none.
 */
Test(sweep, shipped_headroom_sweep_shows_what_it_says)
{
	const char *out = ts_tmp("shipped");
	char hdr[8192], row[8192], v[64], id[16];
	struct ts_proc p;
	char *sum;

	ts_exec(&p,
		(const char *const[]){"sweep", "experiments/sweeps/xoff-headroom-long-cables.yaml",
				      "-j", "2", "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "sweep failed (%d): %s", p.code, p.err);
	ts_proc_free(&p);
	sum = ts_slurp(ts_tmp("shipped/summary.csv"));
	cr_assert(sum);
	snprintf(hdr, sizeof(hdr), "%.*s", (int)strcspn(sum, "\n"), sum);
	cr_assert_eq(count_lines(sum), 13, "12 points and a header:\n%s", sum);
	for (int i = 1; i <= 12; i++) {
		snprintf(id, sizeof(id), "p%03d", i);
		field(hdr, csv_row(sum, id, row, sizeof(row)), "lossless_drops.mean", v, sizeof(v));
		/* headroom is the inner axis: 165888, 300KB, 450KB, 600KB */
		if (i % 4 == 1)
			cr_expect_gt(atof(v), 1000, "%s: %s lossless drops", id, v);
		else
			cr_expect_eq(atof(v), 0, "%s: %s lossless drops", id, v);
	}
	free(sum);
}

/* ---- beyond one machine --------------------------------------------------------- */

/* A local sweep of the tiny scenario at -j 1 into @dir (the reference). */
static void local_sweep(const char *scn, const char *dir)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "--seeds", "2", "-j", "1", "-o", dir, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
}

/* @dir's tables (and spec) are @ref's, byte for byte. */
static void same_tables(const char *ref, const char *dir)
{
	static const char *const names[] = {"sweep.csv", "summary.csv", "sweep.json"};

	for (size_t i = 0; i < 3; i++) {
		char a[600], b[600], *want;

		snprintf(a, sizeof(a), "%s/%s", ref, names[i]);
		snprintf(b, sizeof(b), "%s/%s", dir, names[i]);
		want = ts_slurp(a);
		cr_assert(want, "no %s", a);
		same_file(want, b);
		free(want);
	}
}

/* The value of the line of @text starting with @key, up to its end, into @buf. */
static void line_after(const char *text, const char *key, char *buf, size_t size)
{
	const char *l = strstr(text, key);

	cr_assert(l, "no \"%s\" in:\n%s", key, text);
	l += strlen(key);
	snprintf(buf, size, "%.*s", (int)strcspn(l, "\n"), l);
}

/*
 * Task @k of the job array of the script @sbatch, as Slurm runs it: by
 * /bin/sh with SLURM_ARRAY_TASK_ID set (and ROCESIM_TASK_OFFSET to
 * @offset), started in / rather than in its --chdir, as `sbatch
 * --chdir=/` would.
 */
static void run_task_at(const char *sbatch, int k, int offset)
{
	char line[4096];
	char *err = NULL;
	int code;

	snprintf(line, sizeof(line),
		 "cd / && SLURM_ARRAY_TASK_ID=%d ROCESIM_TASK_OFFSET=%d sh \"%s\"", k, offset,
		 sbatch);
	code = ts_sh(line, NULL, &err);
	cr_assert_eq(code, 0, "task %d (%d): %s\n%s", k, code, line, err);
	free(err);
}

static void run_task(const char *sbatch, int k)
{
	run_task_at(sbatch, k, 0);
}

/*
 * The #SBATCH directives of @script as sbatch(1) reads them: from the
 * second line, every line starting with "#SBATCH" until the first line
 * that is neither a comment nor blank; joined by '\n' into @buf.
 */
static void sbatch_directives(const char *script, char *buf, size_t size)
{
	const char *l = strchr(script, '\n');
	size_t at = 0;

	buf[0] = '\0';
	for (; l && *++l; l = strchr(l, '\n')) {
		size_t len = strcspn(l, "\n"), blank = strspn(l, " \t");

		if (!strncmp(l, "#SBATCH", 7))
			at += (size_t)snprintf(buf + at, size - at, "%.*s\n", (int)len, l);
		else if (l[0] != '#' && blank < len)
			break;
		cr_assert_lt(at, size);
	}
}

Test(sweep, slurm_array_tasks_then_collect_match_a_local_sweep)
{
	char scn[300], ref[300], out[300], *sbatch, array[64], cmd[4096], dir[600], want[700];
	char script[700], directives[2048];
	struct ts_proc p;
	int n;

	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(ref, sizeof(ref), "%s", ts_tmp("slurm-ref"));
	snprintf(out, sizeof(out), "%s", ts_tmp("slurm"));

	local_sweep(scn, ref);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "--seeds", "2", "-o", out, "--slurm", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "sbatch "), "no word of how to submit:\n%s", p.out);
	cr_expect(strstr(p.out, "--collect "), "no word of how to collect:\n%s", p.out);
	ts_proc_free(&p);
	cr_expect(access(ts_tmp("slurm/points"), F_OK), "--slurm ran something");
	cr_expect(!access(ts_tmp("slurm/slurm"), F_OK), "no folder for the task logs");
	sbatch = ts_slurp(ts_tmp("slurm/sweep.sbatch"));
	cr_assert(sbatch, "no sweep.sbatch");
	cr_expect(!strncmp(sbatch, "#!/bin/sh\n", 10), "%s", sbatch);
	line_after(sbatch, "#SBATCH --array=", array, sizeof(array));
	cr_assert_str_eq(array, "0-3", "one task per run (2 points x 2 seeds)");
	n = 4;
	cr_expect(strstr(sbatch, "#SBATCH --job-name=rocesim-tiny\n"), "%s", sbatch);
	cr_assert(realpath(out, dir));
	snprintf(want, sizeof(want), "#SBATCH --output=\"%s/slurm/%%A_%%a.out\"\n", dir);
	cr_expect(strstr(sbatch, want), "%s", sbatch);
	line_after(sbatch, "\nexec ", cmd, sizeof(cmd));
	/* the binary by its absolute path, then the folder */
	snprintf(want, sizeof(want),
		 "'%s' sweep --task \"$((SLURM_ARRAY_TASK_ID + ${ROCESIM_TASK_OFFSET:-0}))\" '%s'",
		 getenv("ROCESIM_BIN"), dir);
	if (getenv("ROCESIM_BIN")[0] == '/')
		cr_expect_str_eq(cmd, want);
	line_after(sbatch, "#SBATCH --chdir=", want, sizeof(want));
	/* in quotes in the script (no quote or backslash in these test paths) */
	cr_assert(want[0] == '"' && want[strlen(want) - 1] == '"', "%s", want);
	/* every directive before the first command, as sbatch reads them */
	sbatch_directives(sbatch, directives, sizeof(directives));
	cr_expect(strstr(directives, "#SBATCH --array=0-3\n"), "%s", directives);
	cr_expect(strstr(directives, "#SBATCH --error="), "%s", directives);
	snprintf(script, sizeof(script), "%s/sweep.sbatch", dir);

	/* nothing run yet: every run missing */
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, "--quiet", NULL});
	cr_expect_eq(p.code, 1, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "4 of 4 runs missing (p001-s1, p001-s2, p002-s1, p002-s2)"), "%s",
		  p.err);
	cr_expect_eq(count_lines(p.err), 1, "%s", p.err);
	ts_proc_free(&p);
	/* all tasks but one: the partial tables name the one missing */
	for (int k = 0; k < n; k++)
		if (k != 1)
			run_task(script, k);
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, NULL});
	cr_expect_eq(p.code, 1, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "1 of 4 runs missing (p001-s2)"), "%s", p.err);
	cr_expect(strstr(p.out, "p001   50KB"), "no table:\n%s", p.out);
	ts_proc_free(&p);
	{
		char *csv = ts_slurp(ts_tmp("slurm/sweep.csv"));

		cr_assert(csv);
		cr_expect(strstr(csv, "\np001-s2,p001,2,50KB,not-run,,"), "%s", csv);
		free(csv);
	}
	/* the last task, then the same tables as the local sweep */
	run_task(script, 1);
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, "--quiet", NULL});
	cr_expect_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_str_eq(p.err, "");
	ts_proc_free(&p);
	same_tables(ref, out);
	free(sbatch);
}

Test(sweep, task_and_collect_refuse_bad_input)
{
	char scn[300], out[300], num[32];
	struct ts_proc p;
	FILE *f;

	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(out, sizeof(out), "%s", ts_tmp("task"));

	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "-o", out, "--slurm", "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	refused((const char *const[]){"sweep", "--task", "2", out, NULL}, out, "--task 2: ");
	ts_exec(&p, (const char *const[]){"sweep", "--task", "2", out, NULL});
	cr_expect(strstr(p.err, "holds 2 runs (tasks 0 to 1)"), "%s", p.err);
	ts_proc_free(&p);
	snprintf(num, sizeof(num), "%d", SWEEP_MAX_RUNS);
	refused((const char *const[]){"sweep", "--task", num, out, NULL}, out, "holds 2 runs");
	cr_expect(access(ts_tmp("task/points"), F_OK), "a run ran");
	/* a folder without a spec */
	refused((const char *const[]){"sweep", "--task", "0", ts_tmp("nothing"), NULL}, out,
		"sweep.json: cannot read (No such file or directory): not a sweep folder");
	refused((const char *const[]){"sweep", "--collect", ts_tmp("nothing"), NULL}, out,
		"not a sweep folder");
	/* a spec that is not ours */
	cr_assert_eq(mkdir(ts_tmp("junk"), 0777), 0);
	f = fopen(ts_tmp("junk/sweep.json"), "w");
	cr_assert(f);
	fputs("{\"schema_version\": 1, \"axes\": []}\n", f);
	fclose(f);
	refused((const char *const[]){"sweep", "--task", "0", ts_tmp("junk"), NULL}, out,
		"scenario.path: missing or not what rocesim sweep writes");
	/* the scenario edited since the spec was written */
	f = fopen(scn, "a");
	cr_assert(f);
	fputs("# edited\n", f);
	fclose(f);
	refused((const char *const[]){"sweep", "--task", "0", out, NULL}, out, "has changed since");
	cr_expect(access(ts_tmp("task/points"), F_OK), "a run ran");
	/* usage */
	ts_exec(&p, (const char *const[]){"sweep", "--task", "-1", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--task needs a run number"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, "--vary", "a=1,2", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--collect takes only the sweep folder"), "%s", p.err);
	ts_proc_free(&p);
}

static void need_mpi(void)
{
	if (!par_mpi_built())
		cr_skip("rocesim was built without MPI (-Dmpi found none)");
	if (ts_sh("command -v mpirun", NULL, NULL))
		cr_skip("no mpirun");
}

Test(sweep, mpi_ranks_write_the_tables_of_a_local_sweep)
{
	char scn[300], ref[300], out[300], args[1200];
	struct ts_proc p;
	char *want;

	need_mpi();
	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(ref, sizeof(ref), "%s", ts_tmp("mpi-ref"));
	snprintf(out, sizeof(out), "%s", ts_tmp("mpi"));
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "--seeds", "2", "-j", "1", "-o", ref, NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	want = strdup(p.out);
	ts_proc_free(&p);
	snprintf(args, sizeof(args),
		 "sweep '%s' --vary switch.ecn.kmin=50KB,100KB --seeds 2 -j 1 -o '%s' --progress",
		 scn, out);
	ts_mpirun(&p, 2, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	/* each run once, on one rank or the other */
	cr_expect_eq(count_progress(p.err), 4, "%s", p.err);
	/* the same table on stdout, once (the folder's name apart) */
	*strstr(want, "  tables ") = '\0';
	cr_expect(!strncmp(p.out, want, strlen(want)), "rank 0's table:\n%s\nlocal:\n%s", p.out,
		  want);
	cr_expect(!strstr(p.out + 1, "point  "), "the table twice:\n%s", p.out);
	ts_proc_free(&p);
	free(want);
	same_tables(ref, out);
}

Test(sweep, mpi_bad_input_one_message_exit_2)
{
	char scn[300], out[300], args[1200];
	struct ts_proc p;

	need_mpi();
	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(out, sizeof(out), "%s", ts_tmp("mpi-bad"));
	snprintf(args, sizeof(args), "sweep '%s' --vary switch.ecn.kminn=1KB,2KB -o '%s'", scn,
		 out);
	ts_mpirun(&p, 2, args);
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	{
		const char *e = strstr(p.err, "switch.ecn.kminn: unknown key");

		cr_expect(e, "%s", p.err);
		cr_expect(!e || !strstr(e + 1, "switch.ecn.kminn: unknown key"), "twice: %s",
			  p.err);
	}
	ts_proc_free(&p);
	cr_expect(access(out, F_OK), "the folder was made");
}

Test(sweep, mpirun_without_mpi_built_in_refuses)
{
	struct ts_proc p;

	if (par_mpi_built())
		cr_skip("rocesim was built with MPI");
	/* what mpirun sets in each rank's environment */
	ts_exec_env(&p, "OMPI_COMM_WORLD_SIZE", "2",
		    (const char *const[]){"sweep", write_tiny(), "-o", ts_tmp("nompi"), NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect_str_eq(p.err, "rocesim: started under mpirun but built without MPI (no "
				"rocesim-mpi beside it); rebuild "
				"with libopenmpi-dev installed\n");
	ts_proc_free(&p);
	cr_expect(access(ts_tmp("nompi"), F_OK), "the sweep ran");
}

/* ---- variants ----------------------------------------------------------------- */

/* @text into the file @name under the test's folder; its path. */
static const char *write_tmp(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

Test(sweep, variant_ids_carry_the_name)
{
	struct sweep_spec sp = spec2(0, 2);
	struct diag d = {0};
	char id[SWEEP_ID_SIZE], sha[65];
	const char *ov = write_tmp("long.yaml", "topology: {link: {cable: 200m}}\n");

	cr_assert_eq(sweep_spec_add_variant(&sp, "spines-3", ov, "--variant", 0, &d), 0, "%s",
		     d.msg);
	cr_assert_eq(sweep_spec_points(&sp, &d), 0, "%s", d.msg);
	/* the implied base first, then the one given */
	cr_assert_eq(sp.n_variants, 2);
	cr_expect_str_eq(sp.variants[0].name, "base");
	cr_expect_null(sp.variants[0].path);
	cr_expect_str_eq(sp.variants[1].path, ov);
	sha256_hex("topology: {link: {cable: 200m}}\n", 32, sha);
	cr_expect_str_eq(sp.variants[1].sha256, sha);
	sp.n_seeds = 3; /* points x variants x seeds */
	cr_expect_eq(sweep_spec_runs(&sp), 4 * 2 * 3);
	sp.n_seeds = 0;
	sweep_spec_id(&sp, 2, 1, 7, id);
	cr_expect_str_eq(id, "p003-spines-3-s7");
	sweep_spec_id(&sp, 0, 0, 1, id);
	cr_expect_str_eq(id, "p001-base-s1");
	/* refused: a name that is not safe, a name given twice, no such file */
	cr_expect_eq(sweep_spec_add_variant(&sp, "a/b", ov, "--variant", 0, &d), -EINVAL);
	cr_expect(strstr(d.msg, "not a variant name"), "%s", d.msg);
	cr_expect_eq(sweep_spec_add_variant(&sp, "", ov, "--variant", 0, &d), -EINVAL);
	cr_expect_eq(sweep_spec_add_variant(&sp, "spines-3", ov, "--variant", 0, &d), -EINVAL);
	cr_expect(strstr(d.msg, "given twice"), "%s", d.msg);
	cr_expect_eq(sweep_spec_add_variant(&sp, "x", ts_tmp("none.yaml"), "--variant", 0, &d),
		     -EINVAL);
	cr_expect(strstr(d.msg, "none.yaml: cannot read"), "%s", d.msg);
	/* a base given replaces the implied one, and stays first */
	cr_assert_eq(sweep_spec_add_variant(&sp, "base", ov, "--variant", 0, &d), 0, "%s", d.msg);
	cr_assert_eq(sp.n_variants, 2);
	cr_expect_str_eq(sp.variants[0].name, "base");
	cr_expect_str_eq(sp.variants[0].path, ov);
	cr_expect_eq(sweep_spec_add_variant(&sp, "base", ov, "--variant", 0, &d), -EINVAL);
	sweep_spec_free(&sp);
}

static const char long_yaml[] = "# 200 m of cable\ntopology: {link: {cable: 200m}}\n";
static const char fast_yaml[] = "topology: {link: {rate: 400Gbps}}\n";

Test(sweep, variants_multiply_runs_and_appear_in_the_tables)
{
	char *csv, *sum, *spec, hdr[8192], row[4096], v[64], base[64], sha[65], ov[300], arg[400],
	    scn[300], out[300];
	struct ts_proc p;
	json_t *j, *vars;

	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(out, sizeof(out), "%s", ts_tmp("var"));
	snprintf(ov, sizeof(ov), "%s", write_tmp("long.yaml", long_yaml));
	snprintf(arg, sizeof(arg), "long=%s", ov);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "--variant", arg, "--seeds", "2", "-j", "2", "-o", out,
					  NULL});
	cr_assert_eq(p.code, 0, "sweep failed (%d): %s", p.code, p.err);
	/* the table: a row per point and variant, base first */
	cr_expect(strstr(p.out, "point  variant"), "table:\n%s", p.out);
	cr_expect(strstr(p.out, "\np001   base     50KB"), "table:\n%s", p.out);
	cr_expect(strstr(p.out, "\np002   long     100KB"), "table:\n%s", p.out);
	cr_expect(strstr(p.out, "runs       8 (2 points x 2 variants x 2 seeds): 8 ran, 0 reused"),
		  "%s", p.out);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("var/sweep.csv"));
	cr_assert(csv);
	cr_expect_eq(count_lines(csv), 9, "a header and 2 points x 2 variants x 2 seeds:\n%s", csv);
	cr_expect(!strncmp(csv, "id,point,variant,seed,switch.ecn.kmin,status,error,", 51), "%s",
		  csv);
	cr_expect(strstr(csv, "\np001-base-s1,p001,base,1,50KB,ok,,"), "%s", csv);
	cr_expect(strstr(csv, "\np001-base-s1,") < strstr(csv, "\np001-long-s1,"), "base first");
	snprintf(hdr, sizeof(hdr), "%.*s", (int)strcspn(csv, "\n"), csv);
	csv_row(csv, "p002-long-s2", row, sizeof(row));
	cr_expect(!strncmp(row, "p002-long-s2,p002,long,2,100KB,ok,,", 35), "%s", row);
	/* the overlay was applied: 2 x 1 us more propagation over 200 m */
	field(hdr, row, "fct_us.p99", v, sizeof(v));
	csv_row(csv, "p002-base-s2", row, sizeof(row));
	field(hdr, row, "fct_us.p99", base, sizeof(base));
	cr_expect(atof(v) > atof(base) + 1.9, "p99 long %s vs base %s", v, base);
	free(csv);
	sum = ts_slurp(ts_tmp("var/summary.csv"));
	cr_assert(sum);
	cr_expect_eq(count_lines(sum), 5, "%s", sum);
	cr_expect(!strncmp(sum, "point,variant,switch.ecn.kmin,runs,failed,", 42), "%s", sum);
	cr_expect(strstr(sum, "\np001,long,50KB,2,0,"), "%s", sum);
	free(sum);
	/* sweep.json names each variant with its overlay's digest */
	spec = ts_slurp(ts_tmp("var/sweep.json"));
	cr_assert(spec);
	sha256_hex(long_yaml, strlen(long_yaml), sha);
	j = json_loads(spec, 0, NULL);
	vars = json_object_get(j, "variants");
	cr_assert_eq(json_array_size(vars), 2, "%s", spec);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(vars, 0), "name")),
			 "base");
	cr_expect(json_is_null(json_object_get(json_array_get(vars, 0), "path")));
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(vars, 1), "path")), ov);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(vars, 1), "sha256")),
			 sha);
	json_decref(j);
	free(spec);
	spec = ts_slurp(ts_tmp("var/points/p001-long-s1/point.json"));
	cr_assert(spec);
	cr_expect(strstr(spec, sha), "point.json has no overlay digest:\n%s", spec);
	free(spec);
}

Test(sweep, resume_after_editing_one_overlay_reruns_only_that_variant)
{
	char va[400], vb[400], *ovb, scn[300], out[300];
	struct ts_proc p;
	FILE *f;

	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(out, sizeof(out), "%s", ts_tmp("varres"));
	snprintf(va, sizeof(va), "long=%s", write_tmp("long.yaml", long_yaml));
	ovb = strdup(write_tmp("fast.yaml", fast_yaml));
	snprintf(vb, sizeof(vb), "fast=%s", ovb);
	const char *const args[] = {"sweep",	 scn, "--vary",	    "switch.ecn.kmin=50KB,100KB",
				    "--variant", va,  "--variant",  vb,
				    "-o",	 out, "--progress", NULL};

	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 6, "2 points x 3 variants:\n%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 0, "nothing changed:\n%s", p.err);
	ts_proc_free(&p);
	f = fopen(ovb, "a");
	cr_assert(f);
	fputs("switch: {ecn: {kmax: 2MB}}\n", f);
	fclose(f);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect_eq(count_progress(p.err), 2, "only the fast variant's runs:\n%s", p.err);
	cr_expect(strstr(p.err, "p001-fast-s1 ok") && strstr(p.err, "p002-fast-s1 ok"), "%s",
		  p.err);
	ts_proc_free(&p);
	free(ovb);
}

Test(sweep, a_bad_overlay_refuses_the_sweep_before_anything_runs)
{
	DIR *dir = opendir("tests/bad/overlay");
	char out[300], scn[300];
	struct dirent *e;
	int n = 0;

	snprintf(out, sizeof(out), "%s", ts_tmp("bad"));
	snprintf(scn, sizeof(scn), "%s", write_tiny());

	cr_assert(dir, "no tests/bad/overlay");
	while ((e = readdir(dir))) {
		char file[300], arg[400], *text, *want;
		size_t len = strlen(e->d_name);

		if (len <= 5 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		snprintf(file, sizeof(file), "tests/bad/overlay/%s", e->d_name);
		snprintf(arg, sizeof(arg), "bad=%s", file);
		text = ts_slurp(file);
		cr_assert(text && !strncmp(text, "# error: :", 10), "%s", file);
		want = text + 9;
		want[strcspn(want, "\n")] = '\0';
		/* as refused() checks: exit 2, one line, no run, the folder not made */
		refused((const char *const[]){"sweep", "tests/good/permutation.yaml", "--vary",
					      "topology.link.cable=1m,2m", "--variant", arg, "-o",
					      out, NULL},
			out, want);
		refused((const char *const[]){"sweep", "tests/good/permutation.yaml", "--variant",
					      arg, "-o", out, NULL},
			out, "(variant bad): tests/bad/overlay/");
		cr_expect(access(out, F_OK), "%s: the folder was made", file);
		free(text);
		n++;
	}
	closedir(dir);
	cr_expect_geq(n, 8);
	/* the names and files themselves */
	refused((const char *const[]){"sweep", scn, "--variant", "a.b=x.yaml", "-o", out, NULL},
		out, "--variant: a.b: \"a.b\" is not a variant name");
	refused((const char *const[]){"sweep", scn, "--variant", "x=tests/bad/overlay/no-such.yaml",
				      "-o", out, NULL},
		out, "no-such.yaml: cannot read");
	refused((const char *const[]){"sweep", scn, "--variant", "x=tests/bad/overlay/empty.yaml",
				      "--variant", "x=tests/bad/overlay/empty.yaml", "-o", out,
				      NULL},
		out, "x: variant given twice");
	{
		struct ts_proc p; /* a usage error: the usage follows */

		ts_exec(&p, (const char *const[]){"sweep", scn, "--variant", "x", "-o", out, NULL});
		cr_expect_eq(p.code, 2);
		cr_expect(strstr(p.err, "--variant needs NAME=OVERLAY.yaml"), "%s", p.err);
		ts_proc_free(&p);
	}
	cr_expect(access(out, F_OK), "the folder was made");
}

Test(sweep, variants_in_the_sweep_section)
{
	char scn[400], long_ov[400], arg[500], out[300], *csv;
	struct ts_proc p;

	snprintf(out, sizeof(out), "%s", ts_tmp("varsec"));
	cr_assert_eq(mkdir(ts_tmp("scn"), 0777), 0);
	cr_assert_eq(mkdir(ts_tmp("scn/ov"), 0777), 0);
	snprintf(long_ov, sizeof(long_ov), "%s", write_tmp("scn/ov/long.yaml", long_yaml));
	write_tmp("scn/ov/fast.yaml", fast_yaml);
	snprintf(scn, sizeof(scn), "%s", ts_tmp("scn/sec.yaml"));
	{
		FILE *f = fopen(scn, "w");

		cr_assert(f);
		fprintf(f, "%ssweep:\n  variants: {long: ov/long.yaml, fast: ov/fast.yaml}\n",
			tiny_yaml);
		fclose(f);
	}
	/* paths relative to the scenario's folder, in the order written */
	ts_exec(&p, (const char *const[]){"sweep", scn, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("varsec/sweep.csv"));
	cr_assert(csv);
	cr_expect_eq(count_lines(csv), 4, "%s", csv);
	cr_expect(strstr(csv, "\np001-base-s1,p001,base,1,ok,") &&
		      strstr(csv, "\np001-long-s1,p001,long,1,ok,") &&
		      strstr(csv, "\np001-fast-s1,p001,fast,1,ok,") &&
		      strstr(csv, "-long-s1,") < strstr(csv, "-fast-s1,"),
		  "%s", csv);
	free(csv);
	csv = ts_slurp(ts_tmp("varsec/sweep.json"));
	cr_assert(csv);
	cr_expect(strstr(csv, "/scn/ov/long.yaml\""), "%s", csv);
	free(csv);
	/* --variant replaces the section's */
	snprintf(arg, sizeof(arg), "far=%s", long_ov);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--variant", arg, "-o", ts_tmp("varsec2"),
					  "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("varsec2/sweep.csv"));
	cr_assert(csv);
	cr_expect_eq(count_lines(csv), 3, "%s", csv);
	cr_expect(strstr(csv, "\np001-far-s1,") && !strstr(csv, "-long-"), "%s", csv);
	free(csv);
}

Test(sweep, slurm_tasks_of_a_sweep_with_variants_match_a_local_sweep)
{
	char scn[300], ref[300], out[300], arg[400], ov[300], num[8];
	struct ts_proc p;
	FILE *f;

	snprintf(scn, sizeof(scn), "%s", write_tiny());
	snprintf(ref, sizeof(ref), "%s", ts_tmp("vslurm-ref"));
	snprintf(out, sizeof(out), "%s", ts_tmp("vslurm"));
	snprintf(ov, sizeof(ov), "%s", write_tmp("long.yaml", long_yaml));
	snprintf(arg, sizeof(arg), "long=%s", ov);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "--variant", arg, "-j", "1", "-o", ref, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmin=50KB,100KB",
					  "--variant", arg, "-o", out, "--slurm", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "runs       4 (2 points x 2 variants x 1 seed)"), "%s", p.out);
	ts_proc_free(&p);
	for (int k = 0; k < 4; k++) {
		snprintf(num, sizeof(num), "%d", k);
		ts_exec(&p, (const char *const[]){"sweep", "--task", num, out, "--quiet", NULL});
		cr_assert_eq(p.code, 0, "task %d (%d): %s", k, p.code, p.err);
		ts_proc_free(&p);
	}
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, "--quiet", NULL});
	cr_expect_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	same_tables(ref, out);
	/* an overlay edited since --slurm: its tasks refuse to run */
	f = fopen(ov, "a");
	cr_assert(f);
	fputs("# edited\n", f);
	fclose(f);
	refused((const char *const[]){"sweep", "--task", "0", out, NULL}, out,
		"(variant long) has changed since");
}

/*
 * Paths that would break out of the job script: a newline in -o is
 * refused before anything is written; a newline in the scenario's folder
 * (D=$'d\ntouch PWNED\n#') reaches the script only as '?' in a comment,
 * every directive stays before the first command, and the task runs the
 * sweep's run and nothing else; a backslash in -o is refused (sbatch
 * would expand no %A_%a).
 */
Test(sweep, slurm_scripts_carry_no_path_that_breaks_out)
{
	char dir[300], scn[400], out[300], script[400], directives[2048], *sbatch;
	struct ts_proc p;
	FILE *f;

	snprintf(out, sizeof(out), "%s", ts_tmp("nl\nout"));
	ts_exec(&p, (const char *const[]){"sweep", write_tiny(), "-o", out, "--slurm", NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "the output folder's path (-o) holds a control character (byte "
				"0x0a"),
		  "%s", p.err);
	cr_expect(access(out, F_OK), "the folder was made");
	ts_proc_free(&p);
	snprintf(out, sizeof(out), "%s", ts_tmp("back\\slash"));
	ts_exec(&p, (const char *const[]){"sweep", write_tiny(), "-o", out, "--slurm", NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "holds a backslash: sbatch then expands no %A or %a"), "%s", p.err);
	cr_expect(access(out, F_OK), "the folder was made");
	ts_proc_free(&p);

	snprintf(dir, sizeof(dir), "%s", ts_tmp("d\ntouch PWNED\n#"));
	cr_assert_eq(mkdir(dir, 0777), 0);
	snprintf(scn, sizeof(scn), "%s/s.yaml", dir);
	f = fopen(scn, "w");
	cr_assert(f);
	fputs(tiny_yaml, f);
	cr_assert_eq(fclose(f), 0);
	snprintf(out, sizeof(out), "%s", ts_tmp("inj"));
	ts_exec(&p, (const char *const[]){"sweep", scn, "-o", out, "--slurm", "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	snprintf(script, sizeof(script), "%s/sweep.sbatch", out);
	sbatch = ts_slurp(script);
	cr_assert(sbatch);
	cr_expect(!strstr(sbatch, "\ntouch PWNED"), "%s", sbatch);
	cr_expect(strstr(sbatch, "d?touch PWNED?#/s.yaml"), "%s", sbatch);
	sbatch_directives(sbatch, directives, sizeof(directives));
	cr_expect(strstr(directives, "#SBATCH --array=0-0\n"), "%s", directives);
	cr_expect(strstr(directives, "#SBATCH --output="), "%s", directives);
	run_task(script, 0);
	cr_expect(access("PWNED", F_OK) && access("/PWNED", F_OK), "the injected line ran");
	cr_expect(!access(ts_tmp("inj/points/p001-s1/results.json"), F_OK), "the run did not run");
	free(sbatch);
}

/*
 * Past Slurm's default MaxArraySize (1001) the script's array is 0-1000,
 * the sweep says so, and the script tells how to submit the rest in
 * chunks: task 0 with ROCESIM_TASK_OFFSET 1001 is run 1001 (seed 1002).
 */
Test(sweep, slurm_arrays_past_max_array_size_go_in_chunks)
{
	char out[300], script[400], line[512], *sbatch;
	struct ts_proc p;

	snprintf(out, sizeof(out), "%s", ts_tmp("chunks"));
	ts_exec(&p, (const char *const[]){"sweep", write_tiny(), "--seeds", "1002", "-o", out,
					  "--slurm", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "1002 runs are past Slurm's default MaxArraySize (1001): submit "
				"them in chunks"),
		  "%s", p.err);
	cr_expect(strstr(p.out, "submit     in chunks of 1001 tasks"), "%s", p.out);
	cr_expect(strstr(p.out, "for off in $(seq 0 1001 1001); do sbatch --array=0-$(( 1001 - "
				"off < 1000 ? 1001 - off : 1000 )) "
				"--export=ALL,ROCESIM_TASK_OFFSET=$off '"),
		  "%s", p.out);
	ts_proc_free(&p);
	snprintf(script, sizeof(script), "%s/sweep.sbatch", out);
	sbatch = ts_slurp(script);
	cr_assert(sbatch);
	line_after(sbatch, "#SBATCH --array=", line, sizeof(line));
	cr_expect_str_eq(line, "0-1000");
	run_task_at(script, 0, 1001);
	cr_expect(!access(ts_tmp("chunks/points/p001-s1002/results.json"), F_OK),
		  "task 0 + 1001 is not seed 1002");
	free(sbatch);
}

/* The children of process @pid (pgrep -P), up to @max, into @kids; how many. */
static int children_of(pid_t pid, pid_t *kids, int max)
{
	char cmd[64], *out = NULL, *p, *end;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "pgrep -P %d", (int)pid);
	ts_sh(cmd, &out, NULL);
	for (p = out; p && n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		kids[n++] = (pid_t)v;
	}
	free(out);
	return n;
}

/* Whether process @pid still runs (not gone, not a zombie). */
static int running(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' &&
	       close_paren[2] != 'X';
}

static void nap_100ms(void)
{
	struct timespec t = {0, 100000000};

	nanosleep(&t, NULL);
}

/*
 * A sweep killed outright (SIGKILL: no handler runs) takes its runs with
 * it: none keeps going as an orphan holding its point's folder.
 */
Test(sweep, a_sweep_killed_by_sigkill_leaves_no_run_behind)
{
	static const char slow[] = "stop: 100s\n"
				   "topology: {kind: star, hosts: 9, link: {rate: 100Gbps}}\n"
				   "nic: {cc: none}\n"
				   "workload: {kind: incast, senders: 8, size: 40GB}\n";
	char scn[300], out[300];
	pid_t kids[8];
	struct ts_child c;
	struct ts_proc p;
	int n = 0, alive = 0;

	snprintf(scn, sizeof(scn), "%s", write_tmp("slow.yaml", slow));
	snprintf(out, sizeof(out), "%s", ts_tmp("killed"));
	ts_spawn(&c, NULL,
		 (const char *const[]){"sweep", scn, "--seeds", "4", "-j", "2", "-o", out, NULL});
	/* both runs started (each a 16 s run at least): the sweep's children */
	for (int i = 0; i < 300 && (n = children_of(c.pid, kids, 8)) < 2; i++)
		nap_100ms();
	cr_assert_eq(n, 2, "the sweep's two runs did not start");
	kill(c.pid, SIGKILL);
	ts_wait(&c, &p);
	ts_proc_free(&p);
	for (int i = 0; i < 50; i++) {
		alive = 0;
		for (int k = 0; k < n; k++)
			alive += running(kids[k]);
		if (!alive)
			break;
		nap_100ms();
	}
	cr_expect_eq(alive, 0, "%d runs outlived the sweep", alive);
	for (int k = 0; alive && k < n; k++)
		kill(kids[k], SIGKILL);
}

/*
 * One sweep per folder: a second sweep into it (here --slurm, which writes
 * sweep.json and runs nothing, as a sweep killed before its tables would
 * leave it) removes the first's tables instead of leaving them beside its
 * own sweep.json, and compare refuses a folder whose sweep.csv is of
 * another sweep than its sweep.json.
 */
Test(sweep, a_folder_never_holds_the_tables_of_another_sweep)
{
	char out[300], other[300], cmd[1400];
	struct ts_proc p;

	snprintf(out, sizeof(out), "%s", ts_tmp("twice"));
	snprintf(other, sizeof(other), "%s", ts_tmp("twice-3"));
	ts_exec(&p, (const char *const[]){"sweep", write_tiny(), "--seeds", "2", "-o", out,
					  "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	/* another sweep's sweep.json beside this one's sweep.csv: refused */
	ts_exec(&p, (const char *const[]){"sweep", write_tiny(), "--seeds", "3", "-o", other,
					  "--slurm", "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	snprintf(cmd, sizeof(cmd), "cp '%s/sweep.json' '%s/sweep.json' && cp -r '%s' '%s-mixed'",
		 other, out, out, out);
	cr_assert_eq(ts_sh(cmd, NULL, NULL), 0);
	snprintf(cmd, sizeof(cmd), "%s-mixed", out);
	ts_exec(&p, (const char *const[]){"compare", cmd, cmd, NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "2 runs where sweep.json has 3: the two files are of two sweeps"),
		  "%s", p.err);
	ts_proc_free(&p);
	/* the second sweep into the folder drops the first's tables */
	ts_exec(&p, (const char *const[]){"sweep", write_tiny(), "--seeds", "4", "-o", out,
					  "--slurm", "--quiet", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	snprintf(cmd, sizeof(cmd), "%s/sweep.csv", out);
	cr_expect(access(cmd, F_OK), "the earlier sweep's sweep.csv is still there");
	snprintf(cmd, sizeof(cmd), "%s/summary.csv", out);
	cr_expect(access(cmd, F_OK), "the earlier sweep's summary.csv is still there");
}

/* The shipped what-if of the seed cluster's spines: its variants load (checked
 * as a sweep checks them, nothing run) and come in the order written. */
Test(sweep, shipped_spine_variants_load)
{
	static const char *const names[] = {"base", "spines-3", "spines-2", "spine-failure"};
	struct ts_proc p;
	json_t *j, *vars;

	ts_exec(&p, (const char *const[]){"sweep", "experiments/sweeps/seed-cluster-spines.yaml",
					  "-o", ts_tmp("spines"), "--slurm", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "runs       4 (1 point x 4 variants x 1 seed)"), "%s", p.out);
	ts_proc_free(&p);
	j = json_load_file(ts_tmp("spines/sweep.json"), 0, NULL);
	vars = json_object_get(j, "variants");
	cr_assert_eq(json_array_size(vars), 4);
	for (size_t i = 0; i < 4; i++)
		cr_expect_str_eq(
		    json_string_value(json_object_get(json_array_get(vars, i), "name")), names[i]);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(vars, 3), "path")),
			 "experiments/sweeps/seed-cluster/spine-failure.yaml");
	json_decref(j);
}

/* A scenario valid only once an axis is applied (a star without its host
 * count) sweeps: the name and the first seed come from the first point. */
Test(sweep, scenario_valid_only_with_the_axis_applied)
{
	const char *scn = ts_tmp("hostless.yaml"), *out = ts_tmp("hostless");
	struct ts_proc p;
	char *csv;
	FILE *f = fopen(scn, "w");

	cr_assert(f);
	fputs("name: hostless\nseed: 5\ntopology: {kind: star}\n"
	      "workload:\n  kind: flows\n  flows:\n    - {src: h0, dst: h1, size: 64KB}\n",
	      f);
	cr_assert_eq(fclose(f), 0);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "topology.hosts=2,3", "-o", out,
					  "--quiet", NULL});
	cr_assert_eq(p.code, 0, "refused (%d): %s", p.code, p.err);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("hostless/sweep.csv"));
	cr_assert(csv);
	cr_expect(strstr(csv, "\np001-s5,p001,5,2,ok,"), "%s", csv);
	cr_expect(strstr(csv, "\np002-s5,p002,5,3,ok,"), "%s", csv);
	free(csv);
}

/* A key with an index under sweep: vary: is an axis like any other (only
 * the items of a list of values are not keys). */
Test(sweep, section_takes_indexed_keys)
{
	static const char yaml[] = "name: idx\n"
				   "topology: {kind: star, hosts: 2}\n"
				   "workload:\n"
				   "  kind: flows\n"
				   "  flows:\n"
				   "    - {src: h0, dst: h1, size: 64KB}\n"
				   "sweep:\n"
				   "  vary:\n"
				   "    \"workload.flows[0].size\": \"64KB,128KB\"\n"
				   "    \"workload.flows[0].src\": [h0, h1]\n"
				   "    switch.ecn.kmin: [50KB, 150KB, 400KB]\n";
	struct sweep_spec sp = {.scenario = "idx.yaml"};
	struct diag d = {0};

	cr_assert_eq(sweep_spec_from_scenario(&sp, yaml, strlen(yaml), 0, 0, 0, 0, &d), 0, "%s",
		     d.msg);
	cr_assert_eq(sp.n_axes, 3);
	cr_expect_str_eq(sp.axes[0].key, "workload.flows[0].size");
	cr_assert_eq(sp.axes[0].n, 2);
	cr_expect_str_eq(sp.axes[0].values[1], "128KB");
	cr_expect_str_eq(sp.axes[1].key, "workload.flows[0].src");
	cr_assert_eq(sp.axes[1].n, 2);
	cr_expect_str_eq(sp.axes[1].values[1], "h1");
	cr_expect_str_eq(sp.axes[2].key, "switch.ecn.kmin");
	cr_expect_eq(sp.axes[2].n, 3);
	sweep_spec_free(&sp);
}

/* Seeds are recorded as JSON integers (signed 64 bits): a seed above
 * 2^63 - 1, given or reached by counting from the scenario's, is refused
 * before anything runs, not recorded negative nor wrapped round. */
Test(sweep, seeds_above_int64_refused)
{
	const char *scn = write_tiny(), *big = ts_tmp("big.yaml"), *out = ts_tmp("bad");
	FILE *f = fopen(big, "w");

	cr_assert(f);
	fprintf(f, "%sseed: 9223372036854775806\n", tiny_yaml);
	cr_assert_eq(fclose(f), 0);
	refused((const char *const[]){"sweep", scn, "--seed-list", "1,9223372036854775808", "-o",
				      out, NULL},
		out, "seed 9223372036854775808 is above");
	refused((const char *const[]){"sweep", scn, "--seed-list", "18446744073709551615",
				      "--slurm", "-o", out, NULL},
		out, "seed 18446744073709551615 is above");
	refused((const char *const[]){"sweep", big, "--seeds", "3", "-o", out, NULL}, out,
		"seed 9223372036854775808 is above");
	cr_expect(access(out, F_OK), "the folder was made");
}
