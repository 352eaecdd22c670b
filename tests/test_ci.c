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

TestSuite(ci, .init = setup, .fini = ts_proc_teardown, .timeout = 60);

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
