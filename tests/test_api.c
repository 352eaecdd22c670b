/*
 * The C interface, rocesim.h, as a program of its own uses it: a run in
 * memory gives the results `rocesim run` writes for the same scenario and
 * keys (but for the run block: wall time, host), keys set and overlays
 * merged as --set and --with do, a refused input names file, line and key
 * and leaves the scenario as it was, nothing is written, and the example
 * of experiments/api/ prints what the results say. A check gives the
 * findings `rocesim check --json` prints, in its order.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocesim.h"
#include "tests/proc.h"

#define SMALL "experiments/ci/seed-cluster-small.yaml"

static void setup(void)
{
	ts_proc_setup("api");
}

TestSuite(api, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

/* The results document of @r without its run block. */
static json_t *doc_of(const rs_results *r)
{
	char *text = rs_results_json(r);
	json_t *j;

	cr_assert(text, "rs_results_json");
	j = json_loads(text, 0, NULL);
	cr_assert(j, "rs_results_json gives JSON");
	free(text);
	json_object_del(j, "run");
	return j;
}

/* `rocesim run @file --set @set -o DIR`'s results.json without its run block. */
static json_t *cli_doc(const char *file, const char *set, const char *dir)
{
	char path[400];
	struct ts_proc p;
	json_t *j;

	ts_exec(&p, (const char *[]){"run", file, "--set", set, "-o", dir, "-q", NULL});
	cr_assert_eq(p.code, 0, "rocesim run: %s", p.err);
	ts_proc_free(&p);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "%s", path);
	json_object_del(j, "run");
	return j;
}

static rs_scenario *load(const char *file)
{
	rs_scenario *s = NULL;
	rs_error e;

	cr_assert_eq(rs_scenario_load(file, &s, &e), 0, "%s", e.text);
	return s;
}

static rs_results *run(const rs_scenario *s)
{
	rs_results *r = NULL;
	rs_error e;

	cr_assert_eq(rs_run(s, &r, &e), 0, "%s", e.text);
	return r;
}

/* rs_run of SMALL with @set equals `rocesim run SMALL --set @set`; its collective time. */
static double same_as_cli(const char *set, const char *dir)
{
	rs_scenario *s = load(SMALL);
	rs_error e;
	rs_results *r;
	json_t *mine, *cli;
	double us, cli_us;

	cr_assert_eq(rs_scenario_set(s, set, &e), 0, "%s", e.text);
	r = run(s);
	cr_assert_str_eq(rs_results_end(r), "done");
	cr_assert_str_eq(rs_scenario_name(s), "ci-seed-cluster-small");
	mine = doc_of(r);
	cli = cli_doc(SMALL, set, dir);
	cr_assert(json_equal(mine, cli), "--set %s: the documents differ", set);
	cr_assert_eq(rs_results_number(r, "collective.completion_time_us", &us), 0);
	cr_assert_eq(json_unpack(cli, "{s:{s:{s:F}}}", "summary", "collective",
				 "completion_time_us", &cli_us),
		     0);
	cr_assert_eq(us, cli_us);
	json_decref(mine);
	json_decref(cli);
	rs_results_free(r);
	rs_scenario_free(s);
	return us;
}

Test(api, a_run_in_memory_gives_the_results_rocesim_run_writes)
{
	same_as_cli("switch.ecn.kmin=50KB", ts_tmp("cli"));
	/* sampled: the sampler is an event of the run, its last tick the end */
	same_as_cli("output.sample=1us", ts_tmp("cli-sampled"));
}

Test(api, a_key_changes_the_run_and_two_runs_agree)
{
	rs_scenario *s = load(SMALL);
	rs_results *a = run(s), *b = run(s), *c;
	json_t *ja = doc_of(a), *jb = doc_of(b);
	double ta, tc, ba, bc;
	rs_error e;

	cr_assert(json_equal(ja, jb), "two runs of one scenario differ");
	/* half the bytes: a ring of the same fabric, in about half the time */
	cr_assert_eq(rs_scenario_set(s, "workload.size=8MB", &e), 0, "%s", e.text);
	c = run(s);
	cr_assert_eq(rs_results_number(a, "collective.completion_time_us", &ta), 0);
	cr_assert_eq(rs_results_number(c, "collective.completion_time_us", &tc), 0);
	cr_assert_eq(rs_results_number(a, "collective.bytes", &ba), 0);
	cr_assert_eq(rs_results_number(c, "collective.bytes", &bc), 0);
	cr_assert_eq(ba, 16e6);
	cr_assert_eq(bc, 8e6);
	cr_assert(tc > 0.4 * ta && tc < 0.6 * ta, "8 MB in %g us, 16 MB in %g us", tc, ta);
	json_decref(ja);
	json_decref(jb);
	rs_results_free(a);
	rs_results_free(b);
	rs_results_free(c);
	rs_scenario_free(s);
}

Test(api, a_refused_key_names_it_and_leaves_the_scenario_as_it_was)
{
	rs_scenario *s = load(SMALL);
	rs_results *before = run(s), *after;
	json_t *jb, *ja;
	rs_error e;
	double v;

	cr_assert_eq(rs_scenario_set(s, "switch.ecn.kmin=1.2XB", &e), -EINVAL);
	cr_assert_str_eq(e.key, "switch.ecn.kmin");
	cr_assert(strstr(e.text, "switch.ecn.kmin") && strstr(e.text, "1.2XB"), "%s", e.text);
	cr_assert_null(strchr(e.text, '\n'));
	cr_assert_eq(rs_scenario_set(s, "switch.no_such_key=1", &e), -EINVAL);
	cr_assert(strstr(e.text, "no_such_key"), "%s", e.text);
	/* inverted thresholds */
	cr_assert_eq(rs_scenario_set(s, "switch.ecn.kmin=2MB", &e), -EINVAL);
	cr_assert(strstr(e.text, "kmin") || strstr(e.text, "kmax"), "%s", e.text);
	after = run(s);
	jb = doc_of(before);
	ja = doc_of(after);
	cr_assert(json_equal(jb, ja), "a refused key changed the scenario");
	cr_assert_eq(rs_results_number(after, "no.such.metric", &v), -ENOENT);
	json_decref(jb);
	json_decref(ja);
	rs_results_free(before);
	rs_results_free(after);
	rs_scenario_free(s);
}

Test(api, a_refused_file_names_file_line_and_key)
{
	rs_scenario *s = (rs_scenario *)&s;
	rs_error e;

	cr_assert_eq(rs_scenario_load("tests/bad/bad-size-unit.yaml", &s, &e), -EINVAL);
	cr_assert_eq(s, (rs_scenario *)&s, "*out is set only on success");
	cr_assert_str_eq(e.file, "tests/bad/bad-size-unit.yaml");
	cr_assert_eq(e.line, 9);
	cr_assert_str_eq(e.key, "switch.buffer.size");
	cr_assert(strstr(e.text, "tests/bad/bad-size-unit.yaml:9: switch.buffer.size"), "%s",
		  e.text);
	cr_assert_neq(rs_scenario_load("tests/no-such-file.yaml", &s, &e), 0);
	cr_assert(strstr(e.text, "no-such-file.yaml"), "%s", e.text);
	/* an error argument may be NULL */
	cr_assert_eq(rs_scenario_load("tests/bad/bad-size-unit.yaml", &s, NULL), -EINVAL);
	rs_scenario_free(NULL);
	rs_results_free(NULL);
}

Test(api, an_overlay_merges_as_with_does)
{
	const char *ov = ts_tmp("ov.yaml");
	FILE *f = fopen(ov, "w");
	rs_scenario *a = load(SMALL), *b = load(SMALL);
	rs_results *ra, *rb;
	json_t *ja, *jb;
	rs_error e;

	cr_assert(f);
	fputs("switch:\n  ecn: {kmin: 16KB, kmax: 32KB}\n", f);
	fclose(f);
	cr_assert_eq(rs_scenario_overlay(a, ov, &e), 0, "%s", e.text);
	cr_assert_eq(rs_scenario_set(b, "switch.ecn.kmin=16KB", &e), 0, "%s", e.text);
	cr_assert_eq(rs_scenario_set(b, "switch.ecn.kmax=32KB", &e), 0, "%s", e.text);
	ra = run(a);
	rb = run(b);
	ja = doc_of(ra);
	jb = doc_of(rb);
	/* the same fabric and run; only the provenance says how it was given */
	json_object_del(ja, "provenance");
	json_object_del(jb, "provenance");
	cr_assert(json_equal(ja, jb), "--with and --set give other runs");
	cr_assert_lt(rs_scenario_overlay(a, "tests/no-such-overlay.yaml", &e), 0);
	cr_assert(strstr(e.text, "no-such-overlay.yaml"), "%s", e.text);
	json_decref(ja);
	json_decref(jb);
	rs_results_free(ra);
	rs_results_free(rb);
	rs_scenario_free(a);
	rs_scenario_free(b);
}

Test(api, a_run_writes_nothing)
{
	const char *dir = ts_tmp("empty");
	char cwd[4096];
	rs_scenario *s;
	rs_results *r;
	struct dirent *de;
	DIR *d;
	int n = 0;

	char abs[4200];

	cr_assert(getcwd(cwd, sizeof(cwd)));
	/* a run loads the file again: from the working directory of that call */
	snprintf(abs, sizeof(abs), "%s/" SMALL, cwd);
	s = load(abs);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(chdir(dir), 0);
	r = run(s);
	cr_assert_eq(chdir(cwd), 0);
	d = opendir(dir);
	cr_assert(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	cr_assert_eq(n, 0, "a run in memory wrote %d files", n);
	rs_results_free(r);
	rs_scenario_free(s);
}

Test(api, the_example_prints_the_collective_time)
{
	const char *example = getenv("ROCESIM_API_EXAMPLE");
	char cmd[1200], want[200], *out = NULL, *err = NULL;
	rs_scenario *s = load(SMALL);
	rs_results *r;
	rs_error e;
	double us;

	cr_assert(example, "ROCESIM_API_EXAMPLE is not set");
	cr_assert_eq(rs_scenario_set(s, "switch.ecn.kmin=50KB", &e), 0, "%s", e.text);
	r = run(s);
	cr_assert_eq(rs_results_number(r, "collective.completion_time_us", &us), 0);
	snprintf(want, sizeof(want), "ci-seed-cluster-small: collective %.3f us", us);
	snprintf(cmd, sizeof(cmd), "%s " SMALL " switch.ecn.kmin=50KB", example);
	cr_assert_eq(ts_sh(cmd, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, want), "%s", out);
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s " SMALL " switch.ecn.kmin=1.2XB", example);
	cr_assert_eq(ts_sh(cmd, &out, &err), 2);
	cr_assert(strstr(err, "switch.ecn.kmin") && strchr(err, '\n') == strrchr(err, '\n'), "%s",
		  err);
	free(out);
	free(err);
	rs_results_free(r);
	rs_scenario_free(s);
}

/* One run of SMALL on a thread of its own: its document without the run block. */
static void *run_on_thread(void *arg)
{
	rs_scenario *s = NULL;
	rs_results *r = NULL;
	char *text = NULL;

	(void)arg;
	if (!rs_scenario_load(SMALL, &s, NULL) && !rs_run(s, &r, NULL))
		text = rs_results_json(r);
	rs_results_free(r);
	rs_scenario_free(s);
	return text;
}

Test(api, runs_on_two_threads_at_once_give_one_runs_results)
{
	pthread_t t[2];
	json_t *j[2];
	rs_scenario *s = load(SMALL);
	rs_results *r = run(s);
	json_t *alone = doc_of(r);

	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, run_on_thread, NULL), 0);
	for (int i = 0; i < 2; i++) {
		void *text;

		cr_assert_eq(pthread_join(t[i], &text), 0);
		cr_assert(text, "thread %d: the run failed", i);
		j[i] = json_loads(text, 0, NULL);
		free(text);
		cr_assert(j[i]);
		json_object_del(j[i], "run");
		cr_assert(json_equal(j[i], alone), "thread %d: other results", i);
		json_decref(j[i]);
	}
	json_decref(alone);
	rs_results_free(r);
	rs_scenario_free(s);
}

/* JSON's string @k of @o, or NULL when it is absent or null. */
static const char *str_of(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

Test(api, a_check_gives_the_findings_check_prints)
{
	static const char scn[] = "experiments/configs-seed-mistakes.yaml";
	const rs_finding *f;
	rs_findings *c;
	rs_scenario *s;
	rs_error e;
	struct ts_proc p;
	json_t *j, *all;
	size_t errors = 0;

	/* run refuses it (its cc_params are out of range): check reads it */
	cr_assert_eq(rs_scenario_load(scn, &s, &e), -EINVAL);
	cr_assert_eq(rs_check_file(scn, NULL, 0, NULL, 0, &c, &e), 0, "%s", e.text);
	ts_exec(&p, (const char *const[]){"check", scn, "--json", NULL});
	cr_assert_eq(p.code, 1, "%s", p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j);
	all = json_object_get(j, "findings");
	cr_assert_eq(rs_findings_count(c), json_array_size(all));
	cr_assert_gt(rs_findings_count(c), 5);
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *o = json_array_get(all, i);

		f = rs_findings_get(c, i);
		cr_assert(f);
		cr_expect_str_eq(f->severity, str_of(o, "severity"));
		cr_expect_str_eq(f->code, str_of(o, "code"));
		cr_expect_str_eq(f->where, str_of(o, "where"));
		cr_expect_str_eq(f->message, str_of(o, "message"));
		if (str_of(o, "file"))
			cr_expect_str_eq(f->file, str_of(o, "file"));
		else
			cr_expect_null(f->file);
		cr_expect_eq(f->line, (int)json_integer_value(json_object_get(o, "line")));
		errors += !strcmp(f->severity, "error");
	}
	cr_expect_null(rs_findings_get(c, json_array_size(all)));
	cr_expect_eq(rs_findings_errors(c), errors);
	cr_expect_gt(errors, 0);
	json_decref(j);
	ts_proc_free(&p);
	rs_findings_free(c);
}

Test(api, a_check_with_a_key_set_and_one_that_cannot_run)
{
	rs_findings *c, *c2;
	rs_scenario *s;
	rs_error e;
	const char *set[] = {"switch.pfc.headroom=20KB"};

	cr_assert_eq(rs_scenario_load(SMALL, &s, &e), 0, "%s", e.text);
	cr_assert_eq(rs_check(s, &c, &e), 0, "%s", e.text);
	cr_expect_eq(rs_findings_errors(c), 0, "the shipped scenario checks clean");
	cr_assert_eq(rs_check_file(SMALL, NULL, 0, set, 1, &c2, &e), 0, "%s", e.text);
	/* 20 KB of headroom is short of a round trip on its 400G links */
	cr_expect_eq(rs_findings_errors(c2), 1);
	cr_expect_str_eq(rs_findings_get(c2, 0)->code, "HEADROOM_SHORT");
	rs_findings_free(c2);
	rs_findings_free(c);
	rs_scenario_free(s);
	/* YAML that is no scenario: no findings, the place it fails */
	cr_assert_eq(rs_check_file("tests/bad/alias-expansion.yaml", NULL, 0, NULL, 0, &c, &e),
		     -EINVAL);
	cr_expect_null(c);
	cr_expect_str_eq(e.file, "tests/bad/alias-expansion.yaml");
	cr_expect_eq(e.line, 12);
	rs_findings_free(NULL);
}

Test(api, a_comparison_gives_the_rows_compare_prints)
{
	char a[300], b[300];
	rs_comparison *c;
	rs_error e;
	struct ts_proc p;
	json_t *j, *rows;
	size_t regressions = 0;

	snprintf(a, sizeof(a), "%s", ts_tmp("base"));
	snprintf(b, sizeof(b), "%s", ts_tmp("new"));
	ts_exec(&p, (const char *const[]){"run", SMALL, "-o", a, "-q", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	/* a shallower ECN threshold: another queue, the same collective */
	ts_exec(&p, (const char *const[]){"run", SMALL, "-o", b, "-q", "--set",
					  "switch.ecn.kmax=400KB", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	cr_assert_eq(rs_compare(a, b, &c, &e), 0, "%s", e.text);
	ts_exec(&p, (const char *const[]){"compare", a, b, "--json", NULL});
	cr_assert(p.code == 0 || p.code == 1, "%s", p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j);
	rows = json_object_get(j, "comparisons");
	cr_assert_eq(rs_comparison_count(c), json_array_size(rows));
	cr_assert_gt(rs_comparison_count(c), 3);
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *o = json_array_get(rows, i);
		const rs_compared *r = rs_comparison_get(c, i);
		json_t *base = json_object_get(o, "base");

		cr_assert(r);
		cr_expect_str_eq(r->point, str_of(o, "point"));
		cr_expect_str_eq(r->metric, str_of(o, "metric"));
		cr_expect_str_eq(r->verdict, str_of(o, "verdict"));
		cr_expect_eq(r->n_base, (size_t)json_integer_value(json_object_get(o, "n_base")));
		if (json_is_number(base))
			cr_expect_float_eq(r->base_mean, json_number_value(base),
					   1e-9 * (1 + fabs(r->base_mean)));
		else
			cr_expect(isnan(r->base_mean));
		regressions += (size_t)r->regression;
	}
	cr_expect_eq(rs_comparison_regressions(c), regressions);
	cr_expect_eq(regressions, (size_t)json_integer_value(json_object_get(j, "regressions")));
	cr_expect_eq(p.code, regressions ? 1 : 0);
	cr_expect_null(rs_comparison_get(c, rs_comparison_count(c)));
	json_decref(j);
	ts_proc_free(&p);
	rs_comparison_free(c);
	/* a side that is not there: no comparison, why in words */
	cr_assert_eq(rs_compare(a, ts_tmp("none"), &c, &e), -EINVAL);
	cr_expect_null(c);
	cr_expect(e.text[0], "no reason given");
	rs_comparison_free(NULL);
}
