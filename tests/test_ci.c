/*
 * Regression in CI, as a CI job meets it: results.json says what produced
 * it (provenance: every input file with the SHA-256 sha256sum gives, the
 * overrides, the seed; effective: the parameters the run used; expect:
 * each gate's outcome), and a run prints how many gates it met. The built
 * rocesim (ROCESIM_BIN) is run from the source root (ROCESIM_SRC).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("ci");
}

TestSuite(ci, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static json_t *load_json(const char *path)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);

	cr_assert(j, "%s: %s", path, jerr.text);
	return j;
}

/* What sha256sum prints for @path: its 64 hex digits. */
static void sha256sum(const char *path, char hex[65])
{
	char cmd[4200];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p, "cannot run sha256sum");
	cr_assert_eq(fscanf(p, "%64s", hex), 1, "no output from sha256sum %s", path);
	cr_assert_eq(pclose(p), 0, "sha256sum %s failed", path);
}

/* A small two-host scenario in the temporary folder that names a topology
 * file and an mlnx_qos dump by absolute path; @extra is appended. */
static const char *small_scenario(const char *name, const char *extra)
{
	static char path[300];
	char text[2000];
	const char *src = getenv("ROCESIM_SRC");

	snprintf(path, sizeof(path), "%s", ts_tmp(name));
	snprintf(text, sizeof(text),
		 "name: prov\n"
		 "topology: {kind: file, file: %s/topologies/two-tier-8.yaml}\n"
		 "nic: {mlnx_qos: %s/experiments/configs/mlnx_qos.txt}\n"
		 "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 64KB}]}\n"
		 "output: {sample: 0}\n"
		 "%s",
		 src, src, extra);
	write_file(path, text);
	return path;
}

Test(ci, provenance_digests_equal_sha256sum_of_every_input)
{
	const char *src = getenv("ROCESIM_SRC");
	char ov[300], text[600], hex[65], want_dir[4200];
	const char *scn = small_scenario("prov.yaml", "");
	struct ts_proc p;
	json_t *j, *prov, *in, *e;
	size_t i, n_cc = 0, n_cc_files = 0;
	int saw_topo = 0, saw_qos = 0, saw_ov = 0;
	struct dirent *de;
	DIR *dp;

	snprintf(ov, sizeof(ov), "%s", ts_tmp("cc.yaml"));
	snprintf(text, sizeof(text), "nic: {cc_params: %s/experiments/configs/cc_params}\n", src);
	write_file(ov, text);
	ts_exec(&p, (const char *const[]){"run", scn, "--with", ov, "--set", "expect.drops=0",
					  "--seed", "4", "-o", ts_tmp("out"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	j = load_json(ts_tmp("out/results.json"));
	prov = json_object_get(j, "provenance");
	cr_assert(json_is_object(prov), "no provenance block");
	cr_expect_str_eq(json_string_value(json_object_get(prov, "version")), ROCESIM_VERSION);
	cr_expect_eq(json_integer_value(json_object_get(prov, "seed")), 4);
	sha256sum(scn, hex);
	cr_expect_str_eq(
	    json_string_value(json_object_get(json_object_get(prov, "scenario"), "path")), scn);
	cr_expect_str_eq(
	    json_string_value(json_object_get(json_object_get(prov, "scenario"), "sha256")), hex);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(prov, "overlays"), 0)),
			 ov);
	cr_expect_eq(json_array_size(json_object_get(prov, "overrides")), 2);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(prov, "overrides"), 0)),
			 "expect.drops=0");
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(prov, "overrides"), 1)),
			 "seed=4");
	in = json_object_get(prov, "inputs");
	snprintf(want_dir, sizeof(want_dir), "%s/experiments/configs/cc_params/", src);
	json_array_foreach(in, i, e) {
		const char *path = json_string_value(json_object_get(e, "path"));
		const char *via = json_string_value(json_object_get(e, "via"));

		cr_assert(path && via, "an input without path or via");
		sha256sum(path, hex);
		cr_expect_str_eq(json_string_value(json_object_get(e, "sha256")), hex, "%s", path);
		saw_topo |=
		    !strcmp(via, "topology.file") && strstr(path, "topologies/two-tier-8.yaml");
		saw_qos |= !strcmp(via, "nic.mlnx_qos") && strstr(path, "mlnx_qos.txt");
		saw_ov |= !strcmp(via, "--with") && !strcmp(path, ov);
		if (!strcmp(via, "nic.cc_params")) {
			cr_expect(!strncmp(path, want_dir, strlen(want_dir)), "%s", path);
			n_cc++;
		}
	}
	cr_expect(saw_topo && saw_qos && saw_ov, "inputs lack the topology, mlnx_qos or overlay");
	/* a cc_params folder: each parameter file is an input of its own */
	dp = opendir(want_dir);
	cr_assert(dp);
	while ((de = readdir(dp)))
		n_cc_files += de->d_name[0] != '.';
	closedir(dp);
	cr_expect_eq(n_cc, n_cc_files, "%zu cc_params inputs for %zu files", n_cc, n_cc_files);
	json_decref(j);
	ts_proc_free(&p);
}

Test(ci, expect_block_records_each_gate_and_a_run_prints_how_many_were_met)
{
	const char *scn = small_scenario("gates.yaml", "expect:\n"
						       "  drops: 0\n"
						       "  flows_done: {min: 1}\n"
						       "  fct_us.max: {max: 1000000}\n");
	struct ts_proc p;
	json_t *j, *ex, *g;

	ts_exec(&p, (const char *const[]){"run", scn, "-o", ts_tmp("g1"), NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	cr_expect(strstr(p.out, "3 of 3 expectations met"), "stdout: %s", p.out);
	j = load_json(ts_tmp("g1/results.json"));
	ex = json_object_get(j, "expect");
	cr_assert_eq(json_array_size(ex), 3);
	g = json_array_get(ex, 1);
	cr_expect_str_eq(json_string_value(json_object_get(g, "metric")), "flows_done");
	cr_expect_str_eq(json_string_value(json_object_get(g, "op")), ">=");
	cr_expect_eq(json_number_value(json_object_get(g, "limit")), 1);
	cr_expect_eq(json_number_value(json_object_get(g, "value")), 1);
	cr_expect(json_is_true(json_object_get(g, "pass")));
	cr_expect(strstr(json_string_value(json_object_get(g, "where")), "gates.yaml:"));
	json_decref(j);
	ts_proc_free(&p);

	/* one gate missed: exit 1, and the block says which and by what */
	ts_exec(&p, (const char *const[]){"run", scn, "-o", ts_tmp("g2"), "--set",
					  "expect.fct_us.max.max=1", NULL});
	cr_assert_eq(p.code, 1, "stderr: %s", p.err);
	cr_expect(strstr(p.out, "2 of 3 expectations met"), "stdout: %s", p.out);
	cr_expect(strstr(p.err, "1 expectation failed"), "stderr: %s", p.err);
	j = load_json(ts_tmp("g2/results.json"));
	g = json_array_get(json_object_get(j, "expect"), 2);
	cr_expect_str_eq(json_string_value(json_object_get(g, "op")), "<=");
	cr_expect(json_is_false(json_object_get(g, "pass")));
	cr_expect_gt(json_number_value(json_object_get(g, "value")), 1);
	json_decref(j);
	ts_proc_free(&p);
}

Test(ci, effective_block_is_what_check_json_shows)
{
	const char *scn = small_scenario("eff.yaml", "");
	struct ts_proc p;
	json_error_t jerr;
	json_t *run, *chk;

	ts_exec(&p, (const char *const[]){"run", scn, "-o", ts_tmp("eff"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	run = load_json(ts_tmp("eff/results.json"));
	ts_exec(&p, (const char *const[]){"check", scn, "--json", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	chk = json_loads(p.out, 0, &jerr);
	cr_assert(chk, "check --json: %s", jerr.text);
	cr_assert(json_is_object(json_object_get(run, "effective")), "no effective block");
	cr_expect(json_equal(json_object_get(run, "effective"), json_object_get(chk, "effective")),
		  "results.json's effective differs from check --json's");
	cr_expect(
	    json_object_get(json_object_get(json_object_get(run, "effective"), "nic"), "dcqcn"));
	json_decref(run);
	json_decref(chk);
	ts_proc_free(&p);
}

/* ---- rocesim compare ------------------------------------------------------------ */

/*
 * The suite's incast (experiments/ci/incast.yaml) in the temporary folder
 * @sub with its cc_params.txt, where rp_initial_alpha_value is set to
 * @alpha (the suite's file says 1023), swept over seeds 1..5 into @out.
 */
static void sweep_incast(const char *sub, const char *alpha, const char *out)
{
	char dir[300], path[400], *scn, *cc, *at;
	struct ts_proc p;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", ts_tmp(sub));
	mkdir(dir, 0777);
	scn = ts_slurp("experiments/ci/incast.yaml");
	cc = ts_slurp("experiments/ci/cc_params.txt");
	cr_assert(scn && cc, "experiments/ci/incast.yaml or cc_params.txt missing");
	at = strstr(cc, "rp_initial_alpha_value:1023\n");
	cr_assert(at, "cc_params.txt has no rp_initial_alpha_value:1023");
	snprintf(path, sizeof(path), "%s/incast.yaml", dir);
	write_file(path, scn);
	snprintf(path, sizeof(path), "%s/cc_params.txt", dir);
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "%.*srp_initial_alpha_value:%s\n%s", (int)(at - cc), cc, alpha,
		at + strlen("rp_initial_alpha_value:1023\n"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/incast.yaml", dir);
	ts_exec(&p, (const char *const[]){"sweep", path, "--seeds", "5", "-j", "2", "-o", out,
					  "--quiet", NULL});
	cr_assert_eq(p.code, 0, "sweep: %s", p.err);
	ts_proc_free(&p);
	free(scn);
	free(cc);
}

/* Run python3 (meson's own interpreter, so always there) on @script with
 * @arg; its stdout. */
static char *python(const char *script, const char *arg)
{
	char cmd[8000], *out;
	size_t len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "python3 -c '%s' '%s'", script, arg);
	p = popen(cmd, "r");
	cr_assert(p, "cannot run python3");
	out = calloc(1, 4096);
	cr_assert(out);
	len = fread(out, 1, 4095, p);
	out[len] = '\0';
	cr_assert_eq(pclose(p), 0, "python3 failed on %s: %s", arg, out);
	return out;
}

Test(ci, a_cc_params_change_that_raises_pause_rate_fails_compare_naming_the_metric)
{
	char base[300], new[300], xml[300], md[300], *out, *text;
	struct ts_proc p;
	json_error_t jerr;
	json_t *j, *row;
	size_t i;
	double pct = 0;

	snprintf(base, sizeof(base), "%s", ts_tmp("base"));
	snprintf(new, sizeof(new), "%s", ts_tmp("new"));
	snprintf(xml, sizeof(xml), "%s", ts_tmp("compare.xml"));
	snprintf(md, sizeof(md), "%s", ts_tmp("compare.md"));
	sweep_incast("a", "1023", base);
	sweep_incast("b", "800", new);
	ts_exec(&p, (const char *const[]){"compare", base, new, "--junit", xml, "--markdown", md,
					  NULL});
	cr_assert_eq(p.code, 1, "exit %d; stdout: %s\nstderr: %s", p.code, p.out, p.err);
	cr_expect(strstr(p.err, "regression: pfc_pause_rate_per_s"), "stderr: %s", p.err);
	cr_expect(strstr(p.out, "pfc_pause_rate_per_s") &&
		      strstr(strstr(p.out, "pfc_pause_rate_per_s"), "REGRESSION"),
		  "stdout: %s", p.out);
	ts_proc_free(&p);

	/* the change is the one the test is about: about +50% in pause rate */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--json", NULL});
	cr_assert_eq(p.code, 1, "%s", p.err);
	j = json_loads(p.out, 0, &jerr);
	cr_assert(j, "--json: %s", jerr.text);
	json_array_foreach(json_object_get(j, "comparisons"), i, row) {
		if (strcmp(json_string_value(json_object_get(row, "metric")),
			   "pfc_pause_rate_per_s"))
			continue;
		pct = json_number_value(json_object_get(row, "change_pct"));
		cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "regression");
		cr_expect_lt(json_number_value(json_object_get(row, "p_value")), 0.05);
		cr_expect_eq(json_integer_value(json_object_get(row, "n_base")), 5);
	}
	cr_expect(pct > 35 && pct < 70, "pause rate changed by %.1f%%, not about 50%%", pct);
	json_decref(j);
	ts_proc_free(&p);

	/* the JUnit file parses as XML: a testcase per metric, a failure per regression */
	out =
	    python("import sys, xml.etree.ElementTree as E\n"
		   "r = E.parse(sys.argv[1]).getroot()\n"
		   "s = r.find(\"testsuite\")\n"
		   "c = s.findall(\"testcase\")\n"
		   "f = [t.get(\"name\") for t in c if t.find(\"failure\") is not None]\n"
		   "print(r.tag, s.get(\"tests\"), s.get(\"failures\"), len(c), len(f),\n"
		   "      all(t.get(\"classname\") and t.get(\"time\") for t in c), \" \".join(f))",
		   xml);
	cr_expect(!strncmp(out, "testsuites ", 11), "root: %s", out);
	{
		char root[32], names[1000] = "";
		int tests, failures, n_cases, n_failed, ok = 0;
		char attrs[8];

		cr_assert_geq(sscanf(out, "%31s %d %d %d %d %7s %999[^\n]", root, &tests, &failures,
				     &n_cases, &n_failed, attrs, names),
			      6, "%s", out);
		ok = tests == n_cases && failures == n_failed && n_cases >= 10 && n_failed >= 1;
		cr_expect(ok, "tests %d, failures %d, testcases %d, failed %d", tests, failures,
			  n_cases, n_failed);
		cr_expect_str_eq(attrs, "True", "a testcase lacks classname or time");
		cr_expect(strstr(names, "pfc_pause_rate_per_s"), "failed: %s", names);
	}
	free(out);
	text = ts_slurp(md);
	cr_assert(text, "no markdown file");
	cr_expect(strstr(text, "| pfc_pause_rate_per_s |") && strstr(text, "**REGRESSION"),
		  "markdown: %s", text);
	free(text);
}

Test(ci, an_unchanged_config_passes_compare_with_5_seeds)
{
	char base[300], new[300];
	struct ts_proc p;

	snprintf(base, sizeof(base), "%s", ts_tmp("base"));
	snprintf(new, sizeof(new), "%s", ts_tmp("new"));
	sweep_incast("a", "1023", base);
	sweep_incast("b", "1023", new);
	ts_exec(&p, (const char *const[]){"compare", base, new, NULL});
	cr_expect_eq(p.code, 0, "stdout: %s\nstderr: %s", p.out, p.err);
	cr_expect(strstr(p.out, "5 runs in BASE, 5 in NEW"), "%s", p.out);
	cr_expect(strstr(p.out, "compare: 0 regressions"), "%s", p.out);
	ts_proc_free(&p);

	/* a run folder against a results.json: one run each */
	snprintf(base, sizeof(base), "%s", ts_tmp("base/points/p001-s3"));
	snprintf(new, sizeof(new), "%s", ts_tmp("new/points/p001-s3/results.json"));
	ts_exec(&p, (const char *const[]){"compare", base, new, NULL});
	cr_expect_eq(p.code, 0, "stdout: %s\nstderr: %s", p.out, p.err);
	cr_expect(strstr(p.out, "1 run in BASE, 1 in NEW"), "%s", p.out);
	ts_proc_free(&p);
}

/* A sweep folder @name written by hand: sweep.json naming scenario @scn,
 * and @csv as its sweep.csv. */
static const char *fake_sweep(const char *name, const char *scn, const char *csv)
{
	static char dir[4][300];
	static int k;
	char path[400], json[300];
	char *d = dir[k++ % 4];

	snprintf(d, 300, "%s", ts_tmp(name));
	mkdir(d, 0777);
	snprintf(path, sizeof(path), "%s/sweep.json", d);
	snprintf(
	    json, sizeof(json),
	    "{\"schema_version\": 1, \"scenario\": {\"path\": \"x.yaml\", \"name\": \"%s\"}}\n",
	    scn);
	write_file(path, json);
	snprintf(path, sizeof(path), "%s/sweep.csv", d);
	write_file(path, csv);
	return d;
}

Test(ci, welch_t_test_decides_with_several_seeds_and_its_p_is_right)
{
	const char *base = fake_sweep("wb", "s",
				      "id,point,seed,status,error,pfc_pause_frames,flows\n"
				      "p001-s1,p001,1,ok,,13,8\n"
				      "p001-s2,p001,2,ok,,15,8\n"
				      "p001-s3,p001,3,ok,,11,8\n"
				      "p001-s4,p001,4,ok,,13,8\n"
				      "p001-s5,p001,5,ok,,13,8\n"
				      "p001-s6,p001,6,failed,\"exit 2, \"\"x\"\"\",,\n");
	const char *worse = fake_sweep("ww", "s",
				       "id,point,seed,status,error,pfc_pause_frames,flows\n"
				       "p001-s1,p001,1,ok,,22,8\n"
				       "p001-s2,p001,2,ok,,23,8\n"
				       "p001-s3,p001,3,expect-failed,,12,8\n"
				       "p001-s4,p001,4,ok,,21,8\n"
				       "p001-s5,p001,5,ok,,27,8\n");
	const char *noisy = fake_sweep("wn", "s",
				       "id,point,seed,status,error,pfc_pause_frames,flows\n"
				       "p001-s1,p001,1,ok,,9,8\n"
				       "p001-s2,p001,2,ok,,20,8\n"
				       "p001-s3,p001,3,ok,,12,8\n"
				       "p001-s4,p001,4,ok,,18,8\n");
	struct ts_proc p;
	json_error_t jerr;
	json_t *j, *row;

	/* means 13 and 21; t = 3.138 on 4.52 degrees of freedom: p = 0.0295 */
	ts_exec(&p, (const char *const[]){"compare", base, worse, "--json", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	j = json_loads(p.out, 0, &jerr);
	cr_assert(j, "%s", jerr.text);
	row = json_array_get(json_object_get(j, "comparisons"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(row, "metric")), "pfc_pause_frames");
	cr_expect_eq(json_integer_value(json_object_get(row, "n_base")), 5,
		     "a failed run is no sample");
	cr_expect_float_eq(json_number_value(json_object_get(row, "base")), 13, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(row, "new")), 21, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(row, "p_value")), 0.02951, 2e-4);
	cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "regression");
	json_decref(j);
	ts_proc_free(&p);

	/* +25% on the mean, but the seeds scatter: not significant at 95%, no regression */
	ts_exec(&p, (const char *const[]){"compare", base, noisy, NULL});
	cr_expect_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out, "not significant"), "%s", p.out);
	ts_proc_free(&p);

	/* a tolerance given wins: 80% allows the +61.5% */
	ts_exec(&p, (const char *const[]){"compare", base, worse, "--tolerance",
					  "pfc_pause_frames=80%", NULL});
	cr_expect_eq(p.code, 0, "%s%s", p.out, p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", base, worse, "--tolerance",
					  "pfc_pause_frames=9", NULL});
	cr_expect_eq(p.code, 0, "an absolute 9 allows 13 -> 21: %s%s", p.out, p.err);
	ts_proc_free(&p);
}

Test(ci, compare_matches_sweep_points_by_axis_values_and_variant)
{
	const char *hdr = "id,point,variant,seed,switch.ecn.kmin,switch.lossless,status,error,"
			  "drops,collective.op\n";
	const char *base =
	    fake_sweep("pb", "s",
		       "id,point,variant,seed,switch.ecn.kmin,switch.lossless,status,"
		       "error,drops,collective.op\n"
		       "p001-base-s1,p001,base,1,50KB,\"[3,4]\",ok,,0,allreduce\n"
		       "p002-base-s1,p002,base,1,100KB,\"[3,4]\",ok,,0,allreduce\n"
		       "p002-wide-s1,p002,wide,1,100KB,\"[3,4]\",ok,,5,allreduce\n");
	char csv[1000];
	const char *new;
	struct ts_proc p;

	/* NEW numbers its points otherwise: matched by value, not by id */
	snprintf(csv, sizeof(csv),
		 "%sp001-base-s1,p001,base,1,100KB,\"[3,4]\",ok,,0,allreduce\n"
		 "p001-wide-s1,p001,wide,1,100KB,\"[3,4]\",ok,,9,allreduce\n"
		 "p002-base-s1,p002,base,1,200KB,\"[3,4]\",ok,,0,allreduce\n",
		 hdr);
	new = fake_sweep("pn", "s", csv);
	ts_exec(&p, (const char *const[]){"compare", base, new, NULL});
	cr_expect_eq(p.code, 2, "%s%s", p.out, p.err);
	cr_expect(strstr(p.err, "switch.ecn.kmin=50KB, switch.lossless=[3,4], variant=base"),
		  "the point is named: %s", p.err);
	cr_expect(strstr(p.err, "--force"), "%s", p.err);
	ts_proc_free(&p);

	ts_exec(&p, (const char *const[]){"compare", base, new, "--force", NULL});
	cr_expect_eq(p.code, 1, "drops 5 -> 9 at the wide variant: %s%s", p.out, p.err);
	cr_expect(strstr(p.err, "regression: drops at switch.ecn.kmin=100KB, "
				"switch.lossless=[3,4], variant=wide 5 -> 9"),
		  "%s", p.err);
	cr_expect(strstr(p.out, "skipped (BASE only: switch.ecn.kmin=50KB"), "%s", p.out);
	cr_expect(strstr(p.out, "skipped (NEW only: switch.ecn.kmin=200KB"), "%s", p.out);
	ts_proc_free(&p);
}

Test(ci, compare_refuses_other_scenarios_and_workloads_unless_forced)
{
	const char *a = fake_sweep("sa", "one",
				   "id,point,seed,status,error,drops,flows\n"
				   "p001-s1,p001,1,ok,,0,8\n");
	const char *b = fake_sweep("sb", "two",
				   "id,point,seed,status,error,drops,flows\n"
				   "p001-s1,p001,1,ok,,0,8\n");
	const char *c = fake_sweep("sc", "one",
				   "id,point,seed,status,error,drops,flows\n"
				   "p001-s1,p001,1,ok,,0,16\n");
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"compare", a, b, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "BASE is scenario \"one\", NEW is scenario \"two\""), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, b, "--force", NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, c, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "the workload differs: flows is 8 in BASE, 16 in NEW"), "%s",
		  p.err);
	ts_proc_free(&p);
}

Test(ci, compare_bad_input_and_usage_exit_2)
{
	const char *a = fake_sweep("ba", "one",
				   "id,point,seed,status,error,drops\n"
				   "p001-s1,p001,1,ok,,0\n");
	const char *half = fake_sweep("bh", "one",
				      "id,point,seed,status,error,drops\n"
				      "p001-s1,p001,1,ok,,\"0\n");
	const char *notjson = small_scenario("notjson.json", "");
	static const char *const bad[][6] = {
	    {"compare", NULL},
	    {"compare", "x", NULL},
	    {"compare", "/nonexistent/folder", "/nonexistent/folder", NULL},
	    {"compare", "--tolerance", "drops=5kg", "a", "b", NULL},
	    {"compare", "--tolerance", "nosuchmetric=5%", "a", "b", NULL},
	    {"compare", "--metrics", "drops,ecn_fancy", "a", "b", NULL},
	    {"compare", "--bogus", "a", "b", NULL},
	};
	struct ts_proc p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ts_exec(&p, bad[i]);
		cr_expect_eq(p.code, 2, "%s %s: exit %d", bad[i][1], bad[i][2] ? bad[i][2] : "",
			     p.code);
		cr_expect(strstr(p.err, "rocesim: compare: "), "%s", p.err);
		ts_proc_free(&p);
	}
	ts_exec(&p, (const char *const[]){"compare", a, notjson, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "not a results.json"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, half, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "sweep.csv: a quoted field is not closed"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, ts_tmp(""), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "neither a run folder"), "%s", p.err);
	ts_proc_free(&p);
}
