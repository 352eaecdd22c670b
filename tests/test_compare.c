/*
 * rocesim compare as a CI gate: runs of the same seed are paired (the
 * change per seed, the mean paired change with its 95% interval, certain
 * or likely), other seeds are compared unpaired and say so, a count that
 * leaves 0 is a regression, any numeric summary field can be gated, a
 * comparison of nothing and a results file that is not what it claims are
 * refused, failed runs of NEW are regressions, and the sides' versions and
 * inputs are compared. Most sides are written by hand (sweep.json and
 * sweep.csv, or a results.json) so that each figure is known; the last
 * test sweeps a small AllReduce whose DCQCN change makes 3 of 5 seeds
 * slower. The built rocesim (ROCESIM_BIN) is run from the source root.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("compare");
}

TestSuite(compare, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* A sweep folder @name written by hand: sweep.json naming scenario "s",
 * and @csv as its sweep.csv. Returns its path (8 rotating buffers). */
static const char *fake_sweep(const char *name, const char *csv)
{
	static char dir[8][300];
	static int k;
	char path[400];
	char *d = dir[k++ % 8];

	snprintf(d, 300, "%s", ts_tmp(name));
	mkdir(d, 0777);
	snprintf(path, sizeof(path), "%s/sweep.json", d);
	write_file(path, "{\"schema_version\": 1, \"scenario\": {\"path\": \"x.yaml\", \"name\": "
			 "\"s\"}}\n");
	snprintf(path, sizeof(path), "%s/sweep.csv", d);
	write_file(path, csv);
	return d;
}

/* A results.json @name with @summary (JSON text) and @extra keys. */
static const char *fake_results(const char *name, const char *summary, const char *extra)
{
	static char path[8][300];
	static int k;
	char text[4000];
	char *p = path[k++ % 8];

	snprintf(p, 300, "%s", ts_tmp(name));
	snprintf(text, sizeof(text),
		 "{\"schema_version\": 1, \"scenario\": \"s\", \"seed\": 1, \"summary\": %s%s}\n",
		 summary, extra);
	write_file(p, text);
	return p;
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	cr_assert(j, "not JSON (%s): %s", e.text, text);
	return j;
}

/* The row of --json output @j for @metric. */
static json_t *row_of(json_t *j, const char *metric)
{
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(j, "comparisons"), i, row)
		if (!strcmp(json_string_value(json_object_get(row, "metric")), metric))
			return row;
	cr_assert_fail("no row for %s", metric);
	return NULL;
}

#define HDR "id,point,seed,status,error,collective.completion_time_us,flows\n"

/* seeds 1..5 take 100..500 us; NEW is 10% slower on each */
static const char base_csv[] = HDR "p001-s1,p001,1,ok,,100,0\n"
				   "p001-s2,p001,2,ok,,200,0\n"
				   "p001-s3,p001,3,ok,,300,0\n"
				   "p001-s4,p001,4,ok,,400,0\n"
				   "p001-s5,p001,5,ok,,500,0\n";
static const char slower_csv[] = HDR "p001-s1,p001,1,ok,,110,0\n"
				     "p001-s2,p001,2,ok,,220,0\n"
				     "p001-s3,p001,3,ok,,330,0\n"
				     "p001-s4,p001,4,ok,,440,0\n"
				     "p001-s5,p001,5,ok,,550,0\n";

Test(compare, same_seeds_are_paired_with_the_interval_of_the_mean_change)
{
	const char *base = fake_sweep("pb", base_csv), *new = fake_sweep("pn", slower_csv);
	struct ts_proc p;
	json_t *j, *row, *pr;

	/*
	 * Differences 10, 20, 30, 40, 50: mean 30 (+10% of 300), sd 15.811,
	 * t(0.975, 4) = 2.7764: 30 -/+ 19.632 = [10.368, 49.632]. Against 5%
	 * (15 us) the mean is past, the low end is not: likely.
	 */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--json", NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	j = parse(p.out);
	row = row_of(j, "collective.completion_time_us");
	pr = json_object_get(row, "paired");
	cr_expect_str_eq(json_string_value(json_object_get(row, "test")), "paired");
	cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "regression");
	cr_expect_str_eq(json_string_value(json_object_get(row, "confidence")), "likely");
	cr_expect_float_eq(json_number_value(json_object_get(pr, "mean_change")), 30, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(pr, "mean_change_pct")), 10, 1e-9);
	cr_expect_float_eq(json_number_value(json_array_get(json_object_get(pr, "ci95"), 0)),
			   10.368, 2e-3);
	cr_expect_float_eq(json_number_value(json_array_get(json_object_get(pr, "ci95"), 1)),
			   49.632, 2e-3);
	cr_expect_eq(json_integer_value(json_object_get(pr, "worse")), 5);
	cr_expect_eq(json_array_size(json_object_get(pr, "seeds")), 5);
	json_decref(j);
	ts_proc_free(&p);

	ts_exec(&p, (const char *const[]){"compare", base, new, NULL});
	cr_expect_eq(p.code, 1);
	cr_expect(strstr(p.out, "paired by seed (5 seeds)"), "%s", p.out);
	cr_expect(strstr(p.out, "REGRESSION, likely (+10.0% [+3.5%, +16.5%]"), "%s", p.out);
	cr_expect(strstr(p.out, "5 of 5 seeds worse"), "%s", p.out);
	cr_expect(strstr(p.out, "per seed: 1 +10.0%, 2 +10.0%, 3 +10.0%, 4 +10.0%, 5 +10.0%"), "%s",
		  p.out);
	cr_expect(strstr(p.err, "regression: collective.completion_time_us 300 -> 330 (+10.0%, "
				"likely)"),
		  "%s", p.err);
	ts_proc_free(&p);

	/* 3% (9 us): the whole interval is past it */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--tolerance",
					  "collective.completion_time_us=3%", NULL});
	cr_expect_eq(p.code, 1);
	cr_expect(strstr(p.out, "REGRESSION, certain"), "%s", p.out);
	ts_proc_free(&p);

	/* 20% allows it */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--tolerance",
					  "collective.completion_time_us=20%", NULL});
	cr_expect_eq(p.code, 0, "%s", p.out);
	cr_expect(strstr(p.out, "ok (within 20%: +10.0% [+3.5%, +16.5%])"), "%s", p.out);
	ts_proc_free(&p);

	/* the other way round: better, certain at 3% */
	ts_exec(&p, (const char *const[]){"compare", new, base, "--tolerance",
					  "collective.completion_time_us=3%", NULL});
	cr_expect_eq(p.code, 0);
	cr_expect(strstr(p.out, "better, certain"), "%s", p.out);
	ts_proc_free(&p);
}

Test(compare, other_seeds_are_unpaired_and_say_what_they_could_detect)
{
	const char *base = fake_sweep("ub", base_csv);
	const char *other = fake_sweep("un", HDR "p001-s11,p001,11,ok,,110,0\n"
						 "p001-s12,p001,12,ok,,220,0\n"
						 "p001-s13,p001,13,ok,,330,0\n"
						 "p001-s14,p001,14,ok,,440,0\n"
						 "p001-s15,p001,15,ok,,550,0\n");
	const char *some = fake_sweep("us", HDR "p001-s3,p001,3,ok,,330,0\n"
						"p001-s4,p001,4,ok,,440,0\n"
						"p001-s5,p001,5,ok,,550,0\n"
						"p001-s6,p001,6,ok,,10,0\n"
						"p001-s7,p001,7,ok,,20,0\n");
	char lone[300];
	struct ts_proc p;
	json_t *j, *row;

	snprintf(lone, sizeof(lone), "%s", ts_tmp("lone.json"));
	write_file(lone, "{\"schema_version\": 1, \"scenario\": \"s\", \"seed\": 3, \"summary\": "
			 "{\"collective\": {\"completion_time_us\": 330}, \"flows\": 0}}\n");

	/*
	 * The same values on other seeds: Welch's test sees 300 against 330
	 * with standard errors 70.7 and 77.8 (t = 0.285, 7.93 degrees of
	 * freedom): not significant, and only a change of 2.309 x 105.1 = 242.7
	 * us (80.9%) would have been.
	 */
	ts_exec(&p, (const char *const[]){"compare", base, other, "--json", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	j = parse(p.out);
	row = row_of(j, "collective.completion_time_us");
	cr_expect_str_eq(json_string_value(json_object_get(row, "test")), "welch");
	cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "not_significant");
	cr_expect(json_is_null(json_object_get(row, "paired")));
	cr_expect_float_eq(json_number_value(json_object_get(row, "detectable_change")), 243, 2.0);
	json_decref(j);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", base, other, NULL});
	cr_expect(strstr(p.out, "unpaired (fewer than 2 seeds in common): Welch's t-test"), "%s",
		  p.out);
	cr_expect(strstr(p.out, "not significant, p=0.78; unpaired, detects 80.9%"), "%s", p.out);
	ts_proc_free(&p);

	/* seeds 3, 4, 5 in common: those are paired, 4 runs left out */
	ts_exec(&p, (const char *const[]){"compare", base, some, NULL});
	cr_expect_eq(p.code, 1, "%s", p.out);
	cr_expect(strstr(p.out, "paired by seed on the 3 seeds both ran (4 runs of one side only "
				"left out)"),
		  "%s", p.out);
	cr_expect(strstr(p.out, "400            440    +10.0%"), "means of the pairs: %s", p.out);
	ts_proc_free(&p);

	/* a lone run is paired with the sweep's run of its seed */
	ts_exec(&p, (const char *const[]){"compare", base, lone, NULL});
	cr_expect_eq(p.code, 1, "%s", p.out);
	cr_expect(strstr(p.out, "paired by seed on the 1 seed both ran (4 runs of one side only "
				"left out)"),
		  "%s", p.out);
	cr_expect(strstr(p.out, "REGRESSION, likely (+10.0% on 1 seed, worse by more than 5%)"),
		  "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", other, lone, NULL});
	cr_expect_eq(p.code, 0, "%s", p.out);
	cr_expect(strstr(p.out, "unpaired (no seed in common, 1 run on a side): tolerance alone"),
		  "%s", p.out);
	ts_proc_free(&p);
}

Test(compare, a_count_that_leaves_zero_is_a_regression_whatever_the_percentage)
{
	const char *hdr =
	    "id,point,seed,status,error,pfc_pause_frames,ecn_marked_packets,cnp_sent\n";
	char csv[1000];
	const char *base, *paired, *other;
	struct ts_proc p;

	snprintf(csv, sizeof(csv),
		 "%sp001-s1,p001,1,ok,,0,0,0\np001-s2,p001,2,ok,,0,0,0\np001-s3,p001,3,ok,,0,0,0\n"
		 "p001-s4,p001,4,ok,,0,0,0\np001-s5,p001,5,ok,,0,0,0\n",
		 hdr);
	base = fake_sweep("zb", csv);
	snprintf(csv, sizeof(csv),
		 "%sp001-s1,p001,1,ok,,0,0,0\np001-s2,p001,2,ok,,2,0,0\np001-s3,p001,3,ok,,0,0,0\n"
		 "p001-s4,p001,4,ok,,0,0,0\np001-s5,p001,5,ok,,0,0,0\n",
		 hdr);
	paired = fake_sweep("zp", csv);
	snprintf(csv, sizeof(csv),
		 "%sp001-s6,p001,6,ok,,0,3,1\np001-s7,p001,7,ok,,2,0,0\np001-s8,p001,8,ok,,0,0,0\n"
		 "p001-s9,p001,9,ok,,0,0,0\np001-s10,p001,10,ok,,0,0,0\n",
		 hdr);
	other = fake_sweep("zo", csv);

	/* 0 -> 0.4 PAUSE frames on the same seeds: likely (the interval holds 0) */
	ts_exec(&p, (const char *const[]){"compare", base, paired, NULL});
	cr_expect_eq(p.code, 1, "%s", p.out);
	cr_expect(strstr(p.out, "REGRESSION, likely (0 in BASE, above 0 in NEW: +0.4 "), "%s",
		  p.out);
	cr_expect(strstr(p.out, "1 of 5 seeds worse"), "%s", p.out);
	ts_proc_free(&p);

	/* on other seeds Welch's p is 0.37, yet 0 -> above 0 is a regression; so
	 * are ECN marks and CNPs that leave 0 */
	ts_exec(&p, (const char *const[]){"compare", base, other, NULL});
	cr_expect_eq(p.code, 1, "%s", p.out);
	cr_expect(strstr(p.err, "regression: pfc_pause_frames 0 -> 0.4"), "%s", p.err);
	cr_expect(strstr(p.err, "regression: ecn_marked_packets 0 -> 0.6"), "%s", p.err);
	cr_expect(strstr(p.err, "regression: cnp_sent 0 -> 0.2"), "%s", p.err);
	cr_expect(strstr(p.out, "REGRESSION (0 in every BASE run, above 0 in NEW, p=0.37"), "%s",
		  p.out);
	ts_proc_free(&p);

	/* a percentage of 0 is 0; an absolute tolerance allows some */
	ts_exec(&p, (const char *const[]){"compare", base, paired, "--tolerance",
					  "pfc_pause_frames=50%", NULL});
	cr_expect_eq(p.code, 1, "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", base, paired, "--tolerance",
					  "pfc_pause_frames=1", NULL});
	cr_expect_eq(p.code, 0, "%s", p.out);
	ts_proc_free(&p);
}

Test(compare, ecn_cnp_retransmissions_and_any_summary_field_are_gated_by_name)
{
	const char *hdr = "id,point,seed,status,error,ecn_marked_packets,cnp_sent,cnp_handled,"
			  "retransmitted_packets,bytes.sent,collective.op\n";
	char csv[1000];
	const char *base, *new;
	struct ts_proc p;

	snprintf(csv, sizeof(csv),
		 "%sp001-s1,p001,1,ok,,100,50,50,10,1000,allreduce\n"
		 "p001-s2,p001,2,ok,,100,50,50,10,1000,allreduce\n",
		 hdr);
	base = fake_sweep("gb", csv);
	snprintf(csv, sizeof(csv),
		 "%sp001-s1,p001,1,ok,,130,60,60,12,900,allreduce\n"
		 "p001-s2,p001,2,ok,,130,60,60,12,900,allreduce\n",
		 hdr);
	new = fake_sweep("gn", csv);

	/* compared by default: +30% marks, +20% CNPs and retransmissions */
	ts_exec(&p, (const char *const[]){"compare", base, new, NULL});
	cr_expect_eq(p.code, 1);
	cr_expect(strstr(p.err, "regression: ecn_marked_packets 100 -> 130 (+30.0%, certain)"),
		  "%s", p.err);
	cr_expect(strstr(p.err, "regression: cnp_sent 50 -> 60"), "%s", p.err);
	cr_expect(strstr(p.err, "regression: cnp_handled 50 -> 60"), "%s", p.err);
	cr_expect(strstr(p.err, "regression: retransmitted_packets 10 -> 12"), "%s", p.err);
	cr_expect(!strstr(p.out, "bytes.sent"), "not a default metric: %s", p.out);
	ts_proc_free(&p);

	/* named, with tolerances: bytes.sent has no direction, -10% is a change */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--metrics",
					  "ecn_marked_packets,cnp_sent,bytes.sent", "--tolerance",
					  "ecn_marked_packets=30%", "--tolerance", "cnp_sent=10",
					  NULL});
	cr_expect_eq(p.code, 1, "%s", p.out);
	cr_expect(strstr(p.out, "compare: 1 regression, 0 improvements in 3 comparisons"), "%s",
		  p.out);
	cr_expect(strstr(p.err, "regression: bytes.sent 1000 -> 900 (-10.0%, certain)"), "%s",
		  p.err);
	cr_expect(strstr(p.out, "changed by more than 5%"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", base, new, "--metrics", "bytes.sent",
					  "--tolerance", "bytes.sent=10%", NULL});
	cr_expect_eq(p.code, 0, "%s", p.out);
	ts_proc_free(&p);

	/* unknown names: refused with the list, which has the results' fields */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--metrics", "ecn_fancy", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--metrics: unknown metric \"ecn_fancy\" (one of: "
				"pfc_pause_frames, "),
		  "%s", p.err);
	cr_expect(strstr(p.err, " bytes.sent"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", base, new, "--tolerance", "nosuch=5%", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--tolerance: unknown metric \"nosuch\""), "%s", p.err);
	ts_proc_free(&p);
	/* a string column is no metric */
	ts_exec(&p,
		(const char *const[]){"compare", base, new, "--metrics", "collective.op", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "unknown metric \"collective.op\""), "%s", p.err);
	ts_proc_free(&p);
}

Test(compare, a_comparison_of_nothing_exits_2_with_the_reason)
{
	const char *a = fake_sweep("na", "id,point,seed,status,error,drops\n"
					 "p001-s1,p001,1,ok,,0\n");
	const char *b = fake_sweep("nb", "id,point,seed,status,error,drops,bytes.sent\n"
					 "p001-s1,p001,1,ok,,0,5\n");
	const char *c = fake_sweep("nc", "id,point,seed,switch.ecn.kmin,status,error,drops\n"
					 "p001-s1,p001,1,50KB,ok,,0\n");
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"compare", a, b, "--metrics", "bytes.sent", NULL});
	cr_expect_eq(p.code, 2, "%s", p.out);
	cr_expect(strstr(p.err, "nothing compared: none of the metrics of --metrics was measured "
				"on both sides"),
		  "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, c, "--force", NULL});
	cr_expect_eq(p.code, 2, "%s", p.out);
	cr_expect(strstr(p.err, "nothing compared: BASE and NEW have no point in common"), "%s",
		  p.err);
	ts_proc_free(&p);
}

Test(compare, failed_runs_of_new_are_a_regression_also_under_force)
{
	const char *hdr = "id,point,seed,status,error,drops\n";
	char csv[600], xml[300];
	const char *base, *all, *some;
	struct ts_proc p;
	char *text;

	snprintf(csv, sizeof(csv), "%sp001-s1,p001,1,ok,,0\np001-s2,p001,2,ok,,0\n", hdr);
	base = fake_sweep("fb", csv);
	snprintf(csv, sizeof(csv),
		 "%sp001-s1,p001,1,failed,exit 2: x.yaml:3: bad,\np001-s2,p001,2,failed,exit 2,\n",
		 hdr);
	all = fake_sweep("fa", csv);
	snprintf(csv, sizeof(csv), "%sp001-s1,p001,1,ok,,0\np001-s2,p001,2,failed,killed,\n", hdr);
	some = fake_sweep("fs", csv);
	snprintf(xml, sizeof(xml), "%s", ts_tmp("failed.xml"));

	for (int force = 0; force < 2; force++) {
		ts_exec(&p, (const char *const[]){"compare", base, all, "--junit", xml,
						  force ? "--force" : NULL, NULL});
		cr_expect_eq(p.code, 1, "%s%s", p.out, p.err);
		cr_expect(strstr(p.out, "REGRESSION (every run failed in NEW: 2 of 2 runs failed "
					"in NEW (seed 1: exit 2: x.yaml:3: bad))"),
			  "%s", p.out);
		ts_proc_free(&p);
		text = ts_slurp(xml);
		cr_assert(text);
		cr_expect(strstr(text, "name=\"runs\"") && strstr(text, "<failure"), "%s", text);
		free(text);
	}
	ts_exec(&p, (const char *const[]){"compare", base, some, NULL});
	cr_expect_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_expect(strstr(p.err, "regression: 1 of 2 runs failed in NEW (seed 2: killed)"), "%s",
		  p.err);
	ts_proc_free(&p);
	/* runs that failed in BASE too are no regression of NEW */
	ts_exec(&p, (const char *const[]){"compare", some, some, NULL});
	cr_expect_eq(p.code, 0, "%s%s", p.out, p.err);
	ts_proc_free(&p);
}

Test(compare, files_that_are_not_what_they_claim_are_refused_naming_file_and_key)
{
	const char *ok = fake_results("ok.json", "{\"drops\": 0, \"fct_us\": {\"p99\": 5}}", "");
	const char *str =
	    fake_results("str.json", "{\"drops\": 0, \"fct_us\": {\"p99\": \"fast\"}}", "");
	const char *obj = fake_results("obj.json", "{\"drops\": {\"n\": 1}}", "");
	const char *notobj = fake_results("notobj.json", "{\"drops\": 0, \"fct_us\": 7}", "");
	const char *jnan = fake_results("jnan.json", "{\"drops\": NaN}", "");
	/* no key before the word: a quote opened lines above (found by fuzzing) */
	const char *jnl = fake_results("jnl.json", "{\"drops\": 1,\n \" :-Infinity}", "");
	const char *nan = fake_sweep("nan", "id,point,seed,status,error,drops\n"
					    "p001-s1,p001,1,ok,,nan\n");
	const char *word = fake_sweep("word", "id,point,seed,status,error,drops\n"
					      "p001-s1,p001,1,ok,,many\n");
	char v2_path[300], sweep_json[400];
	const char *v2 = v2_path;
	struct ts_proc p;
	const char *old_sweep = fake_sweep("v7", "id,point,seed,status,error,drops\n"
						 "p001-s1,p001,1,ok,,0\n");
	const struct {
		const char *const *side;
		const char *say;
	} * c, cases[] = {
		   {&str, "str.json: summary.fct_us.p99: a string where a number is expected"},
		   {&obj, "obj.json: summary.drops: an object where a number is expected"},
		   {&notobj, "notobj.json: summary.fct_us: a number where an object is expected"},
		   {&nan, "nan/sweep.csv:2: drops: \"nan\" is not a number"},
		   {&jnan, "jnan.json:1: drops: NaN where a number is expected"},
		   {&jnl, "jnl.json:2: not a results.json: "},
		   {&word, "word/sweep.csv:2: drops: \"many\" is not a number"},
		   {&v2, "v2.json: schema_version: 2, this rocesim reads schema_version 1"},
		   {&old_sweep, "v7/sweep.json: schema_version: not one it knows"},
	       };

	snprintf(v2_path, sizeof(v2_path), "%s", ts_tmp("v2.json"));
	write_file(v2, "{\"schema_version\": 2, \"scenario\": \"s\", \"seed\": 1, \"summary\": "
		       "{\"drops\": 0}}\n");
	snprintf(sweep_json, sizeof(sweep_json), "%s/sweep.json", old_sweep);
	write_file(sweep_json, "{\"schema_version\": 7, \"scenario\": {\"name\": \"s\"}}\n");
	for (c = cases; c < cases + sizeof(cases) / sizeof(cases[0]); c++) {
		ts_exec(&p, (const char *const[]){"compare", ok, *c->side, NULL});
		cr_expect_eq(p.code, 2, "%s: exit %d %s", *c->side, p.code, p.out);
		cr_expect(strstr(p.err, c->say), "want %s: %s", c->say, p.err);
		cr_expect(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "not one line: %s",
			  p.err);
		ts_proc_free(&p);
	}
	/* as a baseline of run too */
	ts_exec(&p, (const char *const[]){"run", "experiments/ci/incast.yaml", "--baseline", str,
					  "-o", ts_tmp("r"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "summary.fct_us.p99: a string"), "%s", p.err);
	ts_proc_free(&p);
}

Test(compare, huge_values_print_and_exit_as_any_other)
{
	const char *one = fake_results("one.json", "{\"fct_us\": {\"p99\": 1}}", "");
	const char *huge = fake_results("huge.json", "{\"fct_us\": {\"p99\": 1e308}}", "");
	struct ts_proc p;
	json_t *j;

	ts_exec(&p, (const char *const[]){"compare", huge, huge, NULL});
	cr_expect_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out, "1e+308         1e+308         0  same"), "%s", p.out);
	cr_expect(!strstr(p.out, "0."), "no trailing dot: %s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", huge, huge, "--json", NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	json_decref(parse(p.out));
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", one, huge, "--json", NULL});
	cr_expect_eq(p.code, 1, "%s", p.err);
	j = parse(p.out);
	cr_expect_float_eq(json_number_value(json_object_get(row_of(j, "fct_us.p99"), "new")),
			   1e308, 1e296);
	json_decref(j);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", one, huge, NULL});
	cr_expect_eq(p.code, 1);
	cr_expect(strstr(p.out, "1e+308"), "%s", p.out);
	ts_proc_free(&p);
}

Test(compare, says_when_versions_or_inputs_differ)
{
	const char *sum = "{\"drops\": 0}";
	const char *a = fake_results(
	    "pa.json", sum,
	    ", \"provenance\": {\"version\": \"0.1.0\", \"scenario\": {\"path\": \"/a/s.yaml\", "
	    "\"sha256\": \"aa\"}, \"inputs\": [{\"path\": \"/a/cc_params.txt\", \"sha256\": "
	    "\"11\", \"via\": \"nic.cc_params\"}], \"overrides\": [\"seed=1\"]}");
	const char *b = fake_results(
	    "pb.json", sum,
	    ", \"provenance\": {\"version\": \"0.2.0\", \"scenario\": {\"path\": \"/b/s.yaml\", "
	    "\"sha256\": \"aa\"}, \"inputs\": [{\"path\": \"/b/cc_params.txt\", \"sha256\": "
	    "\"22\", \"via\": \"nic.cc_params\"}], \"overrides\": [\"seed=1\"]}");
	const char *bare = fake_results("bare.json", sum, "");
	struct ts_proc p;
	json_t *j, *d;

	ts_exec(&p, (const char *const[]){"compare", a, b, NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "versions differ: BASE 0.1.0, NEW 0.2.0; inputs differ: "
				"nic.cc_params cc_params.txt\n"),
		  "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, a, NULL});
	cr_expect(strstr(p.out, "same version (0.1.0); same inputs\n"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, bare, NULL});
	cr_expect(strstr(p.out, "provenance: NEW does not say its version and inputs"), "%s",
		  p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, b, "--json", NULL});
	j = parse(p.out);
	d = json_object_get(j, "provenance");
	cr_expect(json_is_true(json_object_get(d, "versions_differ")));
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(d, "inputs_differ"), 0)),
			 "nic.cc_params cc_params.txt");
	cr_expect_eq(json_array_size(json_object_get(d, "inputs_differ")), 1,
		     "the scenario is the same file in another folder");
	json_decref(j);
	ts_proc_free(&p);
}

Test(compare, flows_of_another_size_are_another_workload)
{
	const char *hdr = "id,point,seed,status,error,drops,flows,workload_bytes\n";
	char csv[400];
	const char *a, *half, *old;
	struct ts_proc p;

	snprintf(csv, sizeof(csv), "%sp001-s1,p001,1,ok,,0,8,8000000\n", hdr);
	a = fake_sweep("wa", csv);
	snprintf(csv, sizeof(csv), "%sp001-s1,p001,1,ok,,0,8,4000000\n", hdr);
	half = fake_sweep("wh", csv);
	old = fake_sweep("wo", "id,point,seed,status,error,drops,flows\np001-s1,p001,1,ok,,0,8\n");
	ts_exec(&p, (const char *const[]){"compare", a, half, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "the workload differs: workload_bytes is 8000000 in BASE, 4000000 "
				"in NEW (--force compares them anyway)"),
		  "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"compare", a, half, "--force", NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	/* a baseline from before workload_bytes: compared on the count alone */
	ts_exec(&p, (const char *const[]){"compare", old, half, NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
}

/* ---- the case seen: a DCQCN change that slows 3 of 5 seeds -------------------------- */

/*
 * experiments/tune/dcqcn-allreduce.yaml (64 hosts, 4:1 oversubscribed
 * uplinks) with its AllReduce cut to 4 MB so that 5 seeds sweep in about
 * a second, as @name in the temporary folder; @dcqcn ("" or ", KEY: V")
 * added to its nic.dcqcn mapping. Returns its path.
 */
static const char *allreduce(const char *name, const char *dcqcn)
{
	static char path[2][300];
	static int k;
	static const char map_end[] = "cnp_scope: qp}\n";
	char *scn = ts_slurp("experiments/tune/dcqcn-allreduce.yaml"), *size, *end, *text;
	char *p = path[k++ % 2];
	size_t len;

	cr_assert(scn, "experiments/tune/dcqcn-allreduce.yaml missing");
	size = strstr(scn, "  size: 32MB\n");
	end = strstr(scn, map_end);
	cr_assert(size && end && end < size, "the scenario changed: %s", scn);
	len = strlen(scn) + strlen(dcqcn) + 16;
	text = malloc(len);
	cr_assert(text);
	snprintf(text, len, "%.*scnp_scope: qp%s}\n%.*s  size: 4MB\n%s", (int)(end - scn), scn,
		 dcqcn, (int)(size - end - strlen(map_end)), end + strlen(map_end),
		 size + strlen("  size: 32MB\n"));
	snprintf(p, 300, "%s", ts_tmp(name));
	write_file(p, text);
	free(text);
	free(scn);
	return p;
}

static void sweep(const char *scn, const char *seeds, const char *out)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"sweep", scn, "--seed-list", seeds, "-j", "2", "-o", out,
					  "--quiet", NULL});
	cr_assert_eq(p.code, 0, "sweep %s: %s", scn, p.err);
	ts_proc_free(&p);
}

Test(compare, a_dcqcn_change_that_slows_most_seeds_fails_paired_and_identical_sweeps_pass)
{
	char base[300], again[300], new[300], other[300];
	const char *b = allreduce("base.yaml", "");
	const char *n = allreduce("new.yaml", ", rp_time_reset: 900");
	struct ts_proc p;

	snprintf(base, sizeof(base), "%s", ts_tmp("base"));
	snprintf(again, sizeof(again), "%s", ts_tmp("again"));
	snprintf(new, sizeof(new), "%s", ts_tmp("new"));
	snprintf(other, sizeof(other), "%s", ts_tmp("other"));
	sweep(b, "1,2,3,4,5", base);
	sweep(b, "1,2,3,4,5", again);
	sweep(n, "1,2,3,4,5", new);
	sweep(n, "6,7,8,9,10", other);

	/* seeds 1-3 take 32-73% longer, 4 and 5 the same: paired, a regression */
	ts_exec(&p, (const char *const[]){"compare", base, new, "--tolerance",
					  "collective.completion_time_us=1%", NULL});
	cr_expect_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out, "paired by seed (5 seeds)"), "%s", p.out);
	cr_expect(strstr(p.out, "inputs differ: scenario"), "%s", p.out);
	cr_expect(strstr(p.err, "regression: collective.completion_time_us ") &&
		      (strstr(p.err, "%, likely)") || strstr(p.err, "%, certain)")),
		  "%s", p.err);
	cr_expect(strstr(p.out, "3 of 5 seeds worse"), "%s", p.out);
	ts_proc_free(&p);

	/* the same sweep twice: every metric the same */
	ts_exec(&p, (const char *const[]){"compare", base, again, NULL});
	cr_expect_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out, "compare: 0 regressions, 0 improvements"), "%s", p.out);
	cr_expect(strstr(p.out, "same version (" ROCESIM_VERSION "); same inputs"), "%s", p.out);
	ts_proc_free(&p);

	/* other seeds: said to be unpaired */
	ts_exec(&p, (const char *const[]){"compare", base, other, NULL});
	cr_expect(p.code == 0 || p.code == 1, "%s", p.err);
	cr_expect(strstr(p.out, "unpaired (fewer than 2 seeds in common)"), "%s", p.out);
	cr_expect(strstr(p.out, "unpaired, detects"), "%s", p.out);
	ts_proc_free(&p);
}

/*
 * Welch's test and the paired interval at @scale: the sweeps of seeds 1-3
 * (paired) or 1-2 against 11-12 (unpaired) with values 1, 2, 3 against
 * 1.1, 2.3, 3.0 (paired) or 1, 2 against 1, 3 (unpaired), times @scale.
 * Returns the --json row's verdict into @verdict and its p-value.
 */
static double verdict_at(double scale, int paired, char *verdict, size_t size)
{
	static const double base[] = {1, 2, 3}, paired_new[] = {1.1, 2.3, 3.0}, apart[] = {1, 3};
	char b[600], n[600];
	size_t lb, ln;
	struct ts_proc p;
	json_t *j, *row;
	double pv;

	lb = (size_t)snprintf(b, sizeof(b), "%s", HDR);
	ln = (size_t)snprintf(n, sizeof(n), "%s", HDR);
	for (int i = 0; i < (paired ? 3 : 2); i++) {
		lb += (size_t)snprintf(b + lb, sizeof(b) - lb, "p001-s%d,p001,%d,ok,,%.17g,0\n",
				       i + 1, i + 1, base[i] * scale);
		ln += (size_t)snprintf(n + ln, sizeof(n) - ln, "p001-s%d,p001,%d,ok,,%.17g,0\n",
				       paired ? i + 1 : i + 11, paired ? i + 1 : i + 11,
				       (paired ? paired_new[i] : apart[i]) * scale);
	}
	ts_exec(&p, (const char *const[]){"compare", fake_sweep("scale-b", b),
					  fake_sweep("scale-n", n), "--json", NULL});
	cr_assert(p.code == 0 || p.code == 1, "%s%s", p.out, p.err);
	j = parse(p.out);
	row = row_of(j, "collective.completion_time_us");
	snprintf(verdict, size, "%s", json_string_value(json_object_get(row, "verdict")));
	pv = json_number_value(json_object_get(row, "p_value"));
	cr_assert(json_is_number(json_object_get(row, "p_value")), "p_value at %g: %s", scale,
		  p.out);
	json_decref(j);
	ts_proc_free(&p);
	return pv;
}

/*
 * The tests are the same at any scale: far from 1 the variances' squares
 * left double's range, and Welch's test said "detects nan" and a
 * regression at 1e-160, the paired one "certain" at 1e160 (found by
 * fuzzing: the degrees of freedom came out infinite).
 */
Test(compare, verdicts_do_not_depend_on_the_scale_of_the_values)
{
	static const double scales[] = {1e-300, 1e-160, 1e-120, 1e120, 1e160, 1e300};
	char at1[64], at[64];

	for (int paired = 0; paired < 2; paired++) {
		double p1 = verdict_at(1, paired, at1, sizeof(at1));

		for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
			double p = verdict_at(scales[i], paired, at, sizeof(at));

			cr_expect_str_eq(at, at1, "%s at %g", paired ? "paired" : "welch",
					 scales[i]);
			cr_expect_float_eq(p, p1, 1e-9, "%s p at %g: %g against %g",
					   paired ? "paired" : "welch", scales[i], p, p1);
		}
	}
}
