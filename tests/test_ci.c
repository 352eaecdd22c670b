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
 * @alpha (the suite's file says 1023). Returns the scenario's path.
 */
static const char *write_incast(const char *sub, const char *alpha)
{
	static char path[400];
	char dir[300], *scn, *cc, *at;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", ts_tmp(sub));
	mkdir(dir, 0777);
	scn = ts_slurp("experiments/ci/incast.yaml");
	cc = ts_slurp("experiments/ci/cc_params.txt");
	cr_assert(scn && cc, "experiments/ci/incast.yaml or cc_params.txt missing");
	at = strstr(cc, "rp_initial_alpha_value:1023\n");
	cr_assert(at, "cc_params.txt has no rp_initial_alpha_value:1023");
	snprintf(path, sizeof(path), "%s/cc_params.txt", dir);
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "%.*srp_initial_alpha_value:%s\n%s", (int)(at - cc), cc, alpha,
		at + strlen("rp_initial_alpha_value:1023\n"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/incast.yaml", dir);
	/*
	 * With CNPs spaced per QP and the byte counter in 64-byte units the
	 * incast's cuts follow RED's draws (seeds differ) and a smaller initial
	 * alpha pauses about 50% more; spaced per port, every seed marks every
	 * packet alike and alpha hardly matters. The test is about compare.
	 */
	at = strstr(scn, "  cc_params: cc_params.txt\n");
	cr_assert(at, "experiments/ci/incast.yaml does not read cc_params.txt");
	at += strlen("  cc_params: cc_params.txt\n");
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "%.*s  dcqcn: {byte_reset_unit: 64B, cnp_scope: qp}\n%s", (int)(at - scn), scn,
		at);
	fclose(f);
	free(scn);
	free(cc);
	return path;
}

/* write_incast, then swept over seeds 1..5 into @out. */
static void sweep_incast(const char *sub, const char *alpha, const char *out)
{
	const char *scn = write_incast(sub, alpha);
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"sweep", scn, "--seeds", "5", "-j", "2", "-o", out,
					  "--quiet", NULL});
	cr_assert_eq(p.code, 0, "sweep: %s", p.err);
	ts_proc_free(&p);
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
	/* other seeds than BASE's: unpaired, Welch's test decides */
	const char *worse = fake_sweep("ww", "s",
				       "id,point,seed,status,error,pfc_pause_frames,flows\n"
				       "p001-s11,p001,11,ok,,22,8\n"
				       "p001-s12,p001,12,ok,,23,8\n"
				       "p001-s13,p001,13,expect-failed,,12,8\n"
				       "p001-s14,p001,14,ok,,21,8\n"
				       "p001-s15,p001,15,ok,,27,8\n");
	const char *noisy = fake_sweep("wn", "s",
				       "id,point,seed,status,error,pfc_pause_frames,flows\n"
				       "p001-s11,p001,11,ok,,9,8\n"
				       "p001-s12,p001,12,ok,,20,8\n"
				       "p001-s13,p001,13,ok,,12,8\n"
				       "p001-s14,p001,14,ok,,18,8\n");
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

/* ---- run --baseline, run --junit --------------------------------------------------- */

/* A python3 script printing a JUnit file's totals and its testcases:
 * "TESTS FAILURES" then one "name|failed" line each. */
static const char junit_py[] =
    "import sys, xml.etree.ElementTree as E\n"
    "r = E.parse(sys.argv[1]).getroot()\n"
    "assert r.tag == \"testsuites\", r.tag\n"
    "s = r.find(\"testsuite\")\n"
    "c = s.findall(\"testcase\")\n"
    "assert int(s.get(\"tests\")) == len(c) == int(r.get(\"tests\"))\n"
    "print(s.get(\"tests\"), s.get(\"failures\"))\n"
    "for t in c: print(t.get(\"name\") + \"|\" + str(int(t.find(\"failure\") is not None)))\n";

Test(ci, run_baseline_gates_a_run_against_stored_results_and_junit_lists_gates_and_metrics)
{
	char base[300], scn[400], xml[300], *out;
	struct ts_proc p;

	snprintf(base, sizeof(base), "%s", ts_tmp("base"));
	snprintf(scn, sizeof(scn), "%s", ts_tmp("a/incast.yaml"));
	snprintf(xml, sizeof(xml), "%s", ts_tmp("run.xml"));
	sweep_incast("a", "1023", base);

	/* unchanged: the baseline's run of seed 3 is this run, to the byte */
	ts_exec(&p, (const char *const[]){"run", scn, "--seed", "3", "--baseline", base, "-o",
					  ts_tmp("r1"), "--junit", xml, NULL});
	cr_expect_eq(p.code, 0, "stdout: %s\nstderr: %s", p.out, p.err);
	cr_expect(strstr(p.out, "compare: 0 regressions"), "%s", p.out);
	ts_proc_free(&p);
	out = python(junit_py, xml);
	cr_expect(!strncmp(out,
			   "22 0\nrun|0\nexpect lossless_drops == 0|0\n"
			   "expect flows_done == 8|0\npfc_pause_frames|0\n",
			   strlen("22 0\nrun|0\nexpect lossless_drops == 0|0\n"
				  "expect flows_done == 8|0\npfc_pause_frames|0\n")),
		  "junit: %s", out);
	free(out);

	/* the cc_params change: exit 1, the metric named; a missed gate is a failure too */
	write_incast("a", "800");
	ts_exec(&p, (const char *const[]){"run", scn, "--seed", "3", "--baseline", base, "-o",
					  ts_tmp("r2"), "--junit", xml, "--quiet", "--set",
					  "expect.flows_done=9", NULL});
	cr_expect_eq(p.code, 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "rocesim: baseline: regression: pfc_pause_rate_per_s"), "%s",
		  p.err);
	cr_expect(strstr(p.err, "regressions against the baseline"), "%s", p.err);
	cr_expect_str_empty(p.out, "--quiet: %s", p.out);
	ts_proc_free(&p);
	out = python(junit_py, xml);
	cr_expect(strstr(out, "expect flows_done == 9|1\n"), "junit: %s", out);
	cr_expect(strstr(out, "pfc_pause_rate_per_s|1\n"), "junit: %s", out);
	cr_expect(strstr(out, "fct_us.p99|0\n"), "junit: %s", out);
	free(out);

	/* a tolerance that allows it (ECN marks and CNPs rise as well) */
	{
		static const char *const allow[] = {
		    "pfc_pause_rate_per_s=100%", "pfc_pause_frames=100%",
		    "pfc_paused_time_us=100%",	 "max_headroom_bytes=100%",
		    "ecn_marked_packets=100%",	 "cnp_sent=100%",
		    "cnp_handled=100%"};
		const char *args[32] = {"run", scn,  "--seed",	   "3",	     "--baseline",
					base,  "-o", ts_tmp("r3"), "--quiet"};
		size_t k = 9;

		for (size_t i = 0; i < sizeof(allow) / sizeof(allow[0]); i++) {
			args[k++] = "--tolerance";
			args[k++] = allow[i];
		}
		ts_exec(&p, args);
	}
	cr_expect_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
}

Test(ci, run_baseline_of_another_scenario_or_bad_options_exit_2)
{
	const char *scn = small_scenario("other.yaml", "");
	const char *base = fake_sweep("ob", "ci-incast",
				      "id,point,seed,status,error,drops\n"
				      "p001-s1,p001,1,ok,,0\n");
	static const char *const bad[][6] = {
	    {"run", "x.yaml", "--baseline", NULL},
	    {"run", "x.yaml", "--tolerance", "drops=3x", NULL},
	    {"run", "x.yaml", "--junit", NULL},
	};
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"run", scn, "--baseline", base, "-o", ts_tmp("o1"),
					  "--quiet", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "not the same scenario") && !strstr(p.err, "--force"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"run", scn, "--tolerance", "drops=1", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--tolerance needs --baseline"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"run", scn, "--baseline", ts_tmp("nothing"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--baseline: "), "%s", p.err);
	cr_expect(!strstr(p.out, "scenario"), "refused before the run: %s", p.out);
	ts_proc_free(&p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ts_exec(&p, bad[i]);
		cr_expect_eq(p.code, 2, "%s %s", bad[i][2], bad[i][3] ? bad[i][3] : "");
		ts_proc_free(&p);
	}
}

/* ---- check --json, --sarif, --junit ------------------------------------------------ */

/* Line @line of @file (1-based), or "" when it has none. */
static char *line_of(const char *file, int line, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");

	buf[0] = '\0';
	for (int i = 1; f && fgets(buf, (int)size, f); i++)
		if (i == line)
			break;
		else
			buf[0] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* The last part of a key ("BUFFER_PROFILE|p|xoff" -> "xoff", "nic.pfc" ->
 * "pfc", "PFC configuration enabled" -> "enabled"), which its line holds. */
static const char *key_tail(const char *key)
{
	const char *t = key;

	for (const char *k = key; *k; k++)
		if (*k == '|' || *k == '.' || *k == ' ')
			t = k + 1;
	return t;
}

static json_t *check_json(const char *scn)
{
	struct ts_proc p;
	json_error_t jerr;
	json_t *j;

	ts_exec(&p, (const char *const[]){"check", scn, "--json", NULL});
	cr_assert(p.code == 0 || p.code == 1, "%s", p.err);
	j = json_loads(p.out, 0, &jerr);
	cr_assert(j, "check --json: %s", jerr.text);
	ts_proc_free(&p);
	return j;
}

Test(ci, check_json_findings_have_file_line_and_key_apart)
{
	json_t *j = check_json("experiments/configs-seed-mistakes.yaml"), *f;
	char buf[600];
	size_t i, located = 0;

	json_array_foreach(json_object_get(j, "findings"), i, f) {
		json_t *file = json_object_get(f, "file"), *line = json_object_get(f, "line");
		const char *key = json_string_value(json_object_get(f, "key"));

		cr_assert(file && line && json_object_get(f, "key") && json_object_get(f, "where"),
			  "finding %zu lacks file, line, key or where", i);
		if (!json_is_string(file) || !json_is_integer(line) || !key)
			continue;
		/* the line holds the key, or holds the value of an env entry whose
		 * name is on the line before (a manifest's "- name: K" / "value: V") */
		line_of(json_string_value(file), (int)json_integer_value(line), buf, sizeof(buf));
		if (!strstr(buf, key_tail(key)) && strstr(buf, "value:"))
			line_of(json_string_value(file), (int)json_integer_value(line) - 1, buf,
				sizeof(buf));
		cr_expect(strstr(buf, key_tail(key)), "%s: %s:%lld holds no %s: \"%s\"",
			  json_string_value(json_object_get(f, "code")), json_string_value(file),
			  (long long)json_integer_value(line), key, buf);
		located++;
	}
	cr_expect_geq(located, 10, "only %zu findings located", located);
	f = json_array_get(json_object_get(j, "findings"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(f, "file")),
			 "experiments/configs/cc_params-seed.txt");
	cr_expect_eq(json_integer_value(json_object_get(f, "line")), 9);
	cr_expect_str_eq(json_string_value(json_object_get(f, "key")), "np_cnp_enable");
	json_decref(j);
}

Test(ci, check_sarif_is_2_1_0_with_rule_ids_and_each_findings_file_and_line)
{
	const char *scn = "experiments/configs-seed-mistakes.yaml";
	json_t *chk = check_json(scn), *sarif, *run, *rules, *results, *f;
	char path[300];
	struct ts_proc p;
	size_t i;

	snprintf(path, sizeof(path), "%s", ts_tmp("check.sarif"));
	ts_exec(&p, (const char *const[]){"check", scn, "--sarif", path, NULL});
	cr_expect_eq(p.code, 1, "errors found: exit 1 (%s)", p.err);
	ts_proc_free(&p);
	sarif = load_json(path);
	cr_expect_str_eq(json_string_value(json_object_get(sarif, "version")), "2.1.0");
	cr_expect(strstr(json_string_value(json_object_get(sarif, "$schema")),
			 "sarif-schema-2.1.0.json"));
	run = json_array_get(json_object_get(sarif, "runs"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_object_get(json_object_get(run, "tool"), "driver"), "name")),
			 "rocesim");
	cr_expect_str_eq(
	    json_string_value(json_object_get(json_object_get(run, "automationDetails"), "id")),
	    "rocesim-check/configs-seed-mistakes/");
	rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
	results = json_object_get(run, "results");
	cr_assert_eq(json_array_size(results), json_array_size(json_object_get(chk, "findings")));
	json_array_foreach(json_object_get(chk, "findings"), i, f) {
		json_t *r = json_array_get(results, i), *rule, *loc;
		const char *sev = json_string_value(json_object_get(f, "severity"));
		const char *level = json_string_value(json_object_get(r, "level"));

		cr_expect_str_eq(json_string_value(json_object_get(r, "ruleId")),
				 json_string_value(json_object_get(f, "code")));
		rule = json_array_get(rules,
				      (size_t)json_integer_value(json_object_get(r, "ruleIndex")));
		cr_expect_str_eq(json_string_value(json_object_get(rule, "id")),
				 json_string_value(json_object_get(f, "code")));
		cr_expect_str_eq(level, !strcmp(sev, "info") ? "note" : sev);
		cr_expect_str_eq(
		    json_string_value(json_object_get(json_object_get(r, "message"), "text")),
		    json_string_value(json_object_get(f, "message")));
		loc = json_object_get(json_array_get(json_object_get(r, "locations"), 0),
				      "physicalLocation");
		if (!json_is_string(json_object_get(f, "file"))) {
			cr_expect(!loc, "a result without a file has no location");
			continue;
		}
		cr_expect_str_eq(json_string_value(json_object_get(
				     json_object_get(loc, "artifactLocation"), "uri")),
				 json_string_value(json_object_get(f, "file")));
		cr_expect_eq(json_integer_value(
				 json_object_get(json_object_get(loc, "region"), "startLine")),
			     json_integer_value(json_object_get(f, "line")));
	}
	/* a rule per code, each once */
	for (i = 0; i < json_array_size(rules); i++)
		for (size_t k = i + 1; k < json_array_size(rules); k++)
			cr_expect_str_neq(
			    json_string_value(json_object_get(json_array_get(rules, i), "id")),
			    json_string_value(json_object_get(json_array_get(rules, k), "id")));
	json_decref(sarif);
	json_decref(chk);
}

Test(ci, check_junit_has_a_testcase_per_finding_and_a_failure_per_error)
{
	const char *scn = "experiments/configs-seed-mistakes.yaml";
	json_t *chk = check_json(scn), *f;
	char xml[300], head[64];
	struct ts_proc p;
	size_t i, errors = 0;
	char *out;

	snprintf(xml, sizeof(xml), "%s", ts_tmp("check.xml"));
	ts_exec(&p, (const char *const[]){"check", scn, "--junit", xml, NULL});
	cr_expect_eq(p.code, 1, "%s", p.err);
	ts_proc_free(&p);
	json_array_foreach(json_object_get(chk, "findings"), i, f)
		errors += !strcmp(json_string_value(json_object_get(f, "severity")), "error");
	out = python(junit_py, xml);
	snprintf(head, sizeof(head), "%zu %zu\n", json_array_size(json_object_get(chk, "findings")),
		 errors);
	cr_expect(!strncmp(out, head, strlen(head)), "want %s got %s", head, out);
	cr_expect(strstr(out, "CC_PARAM_UNKNOWN experiments/configs/cc_params-seed.txt:9|1\n"),
		  "%s", out);
	free(out);
	json_decref(chk);

	/* no finding: one passing testcase */
	ts_exec(&p, (const char *const[]){"check", "experiments/ci/seed-cluster-small.yaml",
					  "--junit", xml, "--set", "switch.pfc.enabled=false",
					  "--set", "nic.cc=none", NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	out = python(junit_py, xml);
	cr_expect(!strncmp(out, "1 0\n", 4), "%s", out);
	free(out);
}
