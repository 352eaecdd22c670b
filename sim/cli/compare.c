/*
 * rocesim compare BASE NEW: did NEW get worse than BASE? Each side is a
 * results.json, a run folder or a sweep folder (compare_load.c); the
 * metrics are compared point by point, each with its direction and
 * tolerance, runs of the same seed paired, else with Welch's t-test
 * (compare_stats.c). Prints a table (or --json), and writes --markdown
 * (for a pull request comment) and --junit (a testcase per metric and
 * point). Exit 0 no regression, 1 a regression, 2 bad input or usage
 * (sides of different scenarios, points or workloads, unless --force;
 * nothing compared), 3 a report that cannot be written. Paths and names
 * (of points, metrics, scenarios) go out through textsafe.h: escaped for
 * the terminal and Markdown, valid UTF-8 in JSON, well-formed in JUnit.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/ci_report.h"
#include "sim/cli/cli.h"
#include "sim/cli/compare_measured.h"
#include "sim/study/compare_impl.h"
#include "sim/engine/textsafe.h"

static const char cmp_usage[] =
    "usage: rocesim compare BASE NEW [--tolerance METRIC=PCT%|METRIC=ABS]... [--metrics M,...]\n"
    "                       [--junit FILE] [--markdown FILE] [--json] [--force]\n"
    "       rocesim compare --measured DIR RUN [--json] [--junit F] [--markdown F] (below)\n"
    "\n"
    "Compares the results NEW with BASE, metric by metric, and exits 1 when one\n"
    "got worse. BASE and NEW are each a results.json, a run folder (-o of run)\n"
    "or a sweep folder (-o of sweep: read from its sweep.json and sweep.csv);\n"
    "two sweeps are compared point by point, points matched by their axis\n"
    "values and variant, the seeds of a point being its samples.\n"
    "\n"
    "Runs of the same seed on both sides are paired: a seed is the same random\n"
    "draws (ECMP, arrivals, RED), so the change per seed is what the change did.\n"
    "A metric regresses when its mean paired change is worse than its tolerance:\n"
    "\"certain\" when the whole 95% interval of that mean (Student's t on the\n"
    "differences) is past the tolerance, else \"likely\"; the table shows the\n"
    "interval, how many seeds got worse and the change of each. Seeds that one\n"
    "side alone ran are left out and said (a lone run is paired with the other\n"
    "side's run of its seed). With fewer than two seeds in common the\n"
    "comparison is unpaired (said so): the mean must be worse by more than\n"
    "the tolerance and Welch's t-test find it significant at 95%, and the\n"
    "smallest change the test could have found is printed.\n"
    "\n"
    "Compared by default, lower is better: pfc_pause_frames,\n"
    "pfc_pause_rate_per_s, pfc_paused_time_us, paused_ports, ecn_marked_packets,\n"
    "cnp_sent, cnp_handled, drops, lossless_drops, retransmitted_packets,\n"
    "unroutable_flows, watchdog_triggers, max_queue_bytes, max_headroom_bytes,\n"
    "fct_us.p50/p99/max, collective.completion_time_us, deadlock.detected;\n"
    "higher: flows_done, collective.algbw_GBps, collective.busbw_GBps. The\n"
    "tolerance is 5% of BASE's mean (none at all for lossless_drops,\n"
    "unroutable_flows, flows_done, deadlock.detected). A count (PAUSE frames,\n"
    "ECN marks, CNPs, drops, retransmissions, ...) that is 0 in every BASE run\n"
    "and above 0 in NEW is a regression whatever the percentage, unless an\n"
    "absolute --tolerance allows it. Any other numeric summary field can be\n"
    "named (--metrics, --tolerance): a change beyond its tolerance either way\n"
    "is one. A metric BASE measured and NEW did not, and a run of NEW that\n"
    "failed (where BASE's run of that seed did not), are regressions too.\n"
    "\n"
    "The table's second line says whether the sides' versions and inputs (the\n"
    "SHA-256 of the scenario and of every file it read, and the --set\n"
    "overrides, from results.json's provenance) differ.\n"
    "\n"
    "options:\n"
    "  --tolerance M=X   how much worse M may get: 10% (of BASE's mean) or an\n"
    "                    amount in M's unit, e.g. fct_us.p99=50 (repeatable)\n"
    "  --metrics M,...   compare these metrics only (default: those above that\n"
    "                    the results have)\n"
    "  --junit FILE      write a JUnit XML report: a testcase per metric and\n"
    "                    point, a failure per regression\n"
    "  --markdown FILE   write the table as Markdown, for a pull request comment\n"
    "  --json            print the comparisons as JSON instead of the table\n"
    "  --force           compare sides of different scenarios or workloads,\n"
    "                    and the points both sides have\n"
    "\n"
    "exit codes: 0 no regression; 1 a regression; 2 bad input or usage (a side\n"
    "            that cannot be read, a schema_version not known, a metric that\n"
    "            is not a number, an unknown metric, sides that do not match\n"
    "            without --force: other scenarios, points, or workloads, flow\n"
    "            sizes included; a comparison of nothing); 3 a report file that\n"
    "            cannot be written\n";

#define P "rocesim: compare: "

static size_t count_runs(const struct cmp_side *s, const char *point)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		k += !strcmp(s->runs[i].point, point);
	return k;
}

void cmp_print_table(const struct cmp_result *r, const struct cmp_side *b, const struct cmp_side *n,
		     FILE *f)
{
	char vb[64], vn[64], ch[64], verdict[400], how[200], seeds[600], t1[1024], t2[1024];
	const char *point = NULL, *prov;

	fputs("compare ", f);
	txt_fputs_term(b->path, f);
	fprintf(f, " (%s) -> ", txt_term(t1, sizeof(t1), b->scenario));
	txt_fputs_term(n->path, f);
	fprintf(f, " (%s)\n", txt_term(t1, sizeof(t1), n->scenario));
	if ((prov = cmp_prov_text(r->prov, verdict, sizeof(verdict))))
		fprintf(f, "%s\n", prov);
	for (size_t i = 0; i < r->n; i++) {
		const struct cmp_row *row = &r->rows[i];

		if (!point || strcmp(point, row->point)) {
			point = row->point;
			cmp_pairing_text(r, point, how, sizeof(how));
			if (*point)
				fprintf(f, "point %s: %zu run%s in BASE, %zu in NEW%s%s\n",
					txt_term(t1, sizeof(t1), point), count_runs(b, point),
					count_runs(b, point) == 1 ? "" : "s", count_runs(n, point),
					*how ? "; " : "", how);
			else
				fprintf(f, "%zu run%s in BASE, %zu in NEW%s%s\n",
					count_runs(b, point), count_runs(b, point) == 1 ? "" : "s",
					count_runs(n, point), *how ? "; " : "", how);
			fprintf(f, "  %-30s %14s %14s %9s  %s\n", "metric", "base", "new", "change",
				"verdict");
		}
		fprintf(f, "  %-30s %14s %14s %9s  %s\n", txt_term(t1, sizeof(t1), row->metric),
			row->n_base ? cmp_num(row->base, vb, sizeof(vb)) : "-",
			row->n_new ? cmp_num(row->new, vn, sizeof(vn)) : "-",
			cmp_change(row, ch, sizeof(ch)),
			cmp_verdict_text(row, verdict, sizeof(verdict)));
		if (row->test == CMP_TEST_PAIRED && row->n_pairs > 1 &&
		    (row->verdict == CMP_WORSE || row->verdict == CMP_BETTER))
			fprintf(f, "  %-30s per seed: %s\n", "",
				cmp_seed_changes(row, seeds, sizeof(seeds)));
	}
	for (size_t i = 0; i < r->n_skipped; i++)
		fprintf(f, "skipped (%s)\n", txt_term(t2, sizeof(t2), r->skipped[i]));
	fprintf(f, "compare: %zu regression%s, %zu improvement%s in %zu comparison%s\n",
		r->regressions, r->regressions == 1 ? "" : "s", r->improvements,
		r->improvements == 1 ? "" : "s", r->n, r->n == 1 ? "" : "s");
}

void cmp_print_regressions(const struct cmp_result *r, FILE *f, const char *prefix)
{
	char vb[64], vn[64], ch[64], t1[1024], t2[1024];

	for (size_t i = 0; i < r->n; i++) {
		const struct cmp_row *row = &r->rows[i];

		if (!cmp_is_regression(row))
			continue;
		txt_term(t2, sizeof(t2), row->point);
		if (row->verdict == CMP_FAILED) {
			fprintf(f, "%sregression: %s%s%s\n", prefix,
				txt_term(t1, sizeof(t1), row->note), *row->point ? " at " : "", t2);
			continue;
		}
		fprintf(f, "%sregression: %s%s%s %s -> %s (%s%s)\n", prefix,
			txt_term(t1, sizeof(t1), row->metric), *row->point ? " at " : "", t2,
			row->n_base ? cmp_num(row->base, vb, sizeof(vb)) : "-",
			row->n_new ? cmp_num(row->new, vn, sizeof(vn)) : "not measured",
			cmp_change(row, ch, sizeof(ch)),
			row->test != CMP_TEST_PAIRED ? ""
			: row->certain		     ? ", certain"
						     : ", likely");
	}
}

int cmp_junit_add(struct junit *j, const struct cmp_result *r, const char *scenario)
{
	char cls[600], vb[64], vn[64], ch[64], verdict[400], text[1000];

	for (size_t i = 0; i < r->n; i++) {
		const struct cmp_row *row = &r->rows[i];
		int bad = cmp_is_regression(row);

		snprintf(cls, sizeof(cls), "rocesim.compare.%s%s%s", scenario,
			 *row->point ? "." : "", row->point);
		snprintf(text, sizeof(text),
			 "%s: base %s (%zu run%s), new %s (%zu run%s), change %s: %s", row->metric,
			 row->n_base ? cmp_num(row->base, vb, sizeof(vb)) : "-", row->n_base,
			 row->n_base == 1 ? "" : "s",
			 row->n_new ? cmp_num(row->new, vn, sizeof(vn)) : "-", row->n_new,
			 row->n_new == 1 ? "" : "s", cmp_change(row, ch, sizeof(ch)),
			 cmp_verdict_text(row, verdict, sizeof(verdict)));
		junit_add(j, cls, row->metric, bad ? text : NULL, text);
	}
	return j->oom ? -ENOMEM : 0;
}

static int write_markdown(const char *path, const struct cmp_result *r, const struct cmp_side *b,
			  const struct cmp_side *n)
{
	char *text = NULL, vb[64], vn[64], ch[64], verdict[400], line[400], t1[1024], t2[1024];
	size_t len = 0;
	int points = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		points |= *r->rows[i].point != '\0';
	fprintf(f, "### rocesim compare: %s: %zu regression%s\n\n",
		txt_term(t1, sizeof(t1), n->scenario), r->regressions,
		r->regressions == 1 ? "" : "s");
	fprintf(f, "BASE `%s`, NEW `%s`; %zu comparisons, %zu improvement%s.\n\n",
		txt_term(t1, sizeof(t1), b->path), txt_term(t2, sizeof(t2), n->path), r->n,
		r->improvements, r->improvements == 1 ? "" : "s");
	if (cmp_prov_text(r->prov, line, sizeof(line)))
		fprintf(f, "%c%s.\n\n", toupper((unsigned char)line[0]), line + 1);
	if (!points && r->n && *cmp_pairing_text(r, "", line, sizeof(line)))
		fprintf(f, "Seeds: %s.\n\n", line);
	fputs(
	    points
		? "| point | metric | base | new | change | verdict |\n|---|---|--:|--:|--:|---|\n"
		: "| metric | base | new | change | verdict |\n|---|--:|--:|--:|---|\n",
	    f);
	for (size_t i = 0; i < r->n; i++) {
		const struct cmp_row *row = &r->rows[i];
		int bad = cmp_is_regression(row);

		if (points)
			ci_md_cell(f, *row->point ? row->point : "-");
		ci_md_cell(f, row->metric);
		ci_md_cell(f, row->n_base ? cmp_num(row->base, vb, sizeof(vb)) : "-");
		ci_md_cell(f, row->n_new ? cmp_num(row->new, vn, sizeof(vn)) : "-");
		ci_md_cell(f, cmp_change(row, ch, sizeof(ch)));
		fputs(bad ? "| **" : "| ", f);
		fputs(cmp_verdict_text(row, verdict, sizeof(verdict)), f);
		fputs(bad ? "** |\n" : " |\n", f);
	}
	for (size_t i = 0; i < r->n_skipped; i++)
		fprintf(f, "\nSkipped (%s).\n", txt_term(t1, sizeof(t1), r->skipped[i]));
	return ci_write_memstream(path, f, &text, &len);
}

static json_t *side_json(const struct cmp_side *s)
{
	return json_pack("{s:o,s:o,s:b,s:I}", "path", txt_json(s->path), "scenario",
			 txt_json(s->scenario), "sweep", s->sweep, "runs", (json_int_t)s->n);
}

/* A number for JSON: null when not finite (jansson writes no NaN or inf). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* @v as a percentage of @base, null when base is 0. */
static json_t *pct(double v, double base)
{
	return base != 0 ? num(100.0 * v / fabs(base)) : json_null();
}

static json_t *paired_json(const struct cmp_row *row)
{
	json_t *seeds = json_array(), *base = json_array(), *new = json_array();
	int err = !seeds || !base || !new;

	for (size_t i = 0; !err && i < row->n_pairs; i++)
		err = json_array_append_new(seeds, json_integer((json_int_t)row->pairs[i].seed)) ||
		      json_array_append_new(base, num(row->pairs[i].base)) ||
		      json_array_append_new(new, num(row->pairs[i].new));
	if (err) {
		json_decref(seeds);
		json_decref(base);
		json_decref(new);
		return NULL;
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:[o,o],s:[o,o],s:I,s:I}", "seeds", seeds, "base",
			 base, "new", new, "mean_change", num(row->change), "mean_change_pct",
			 pct(row->change, row->base), "ci95", num(row->lo), num(row->hi),
			 "ci95_pct", pct(row->lo, row->base), pct(row->hi, row->base), "worse",
			 (json_int_t)row->n_worse, "left_out", (json_int_t)row->left_out);
}

static json_t *row_json(const struct cmp_row *row)
{
	static const char *const dirs[] = {"lower_is_better", "higher_is_better", "either"};
	static const char *const tests[] = {"none", "paired", "welch"};
	int judged = row->verdict == CMP_WORSE || row->verdict == CMP_BETTER;

	return json_pack(
	    "{s:o,s:o,s:s,s:o,s:o,s:I,s:I,s:o,s:{s:f,s:b},s:s,s:o,s:s,s:o,s:b,s:o,s:o,s:o,s:o}",
	    "point", txt_json(row->point), "metric", txt_json(row->metric), "direction",
	    dirs[row->dir], "base", row->n_base ? num(row->base) : json_null(), "new",
	    row->n_new ? num(row->new) : json_null(), "n_base", (json_int_t)row->n_base, "n_new",
	    (json_int_t)row->n_new, "change_pct",
	    row->n_base && row->n_new ? pct(row->new - row->base, row->base) : json_null(),
	    "tolerance", "value", row->tol_given.value, "relative", row->tol_given.pct, "test",
	    tests[row->test], "p_value", row->p >= 0 ? num(row->p) : json_null(), "verdict",
	    cmp_verdict_name(row->verdict), "confidence",
	    row->test == CMP_TEST_PAIRED && judged
		? json_string(row->certain ? "certain" : "likely")
		: json_null(),
	    "zero_base", row->zero_base, "paired",
	    row->test == CMP_TEST_PAIRED ? paired_json(row) : json_null(), "detectable_change",
	    row->detectable >= 0 ? num(row->detectable) : json_null(), "detectable_change_pct",
	    row->detectable >= 0 ? pct(row->detectable, row->base) : json_null(), "note",
	    txt_json(row->note));
}

static int print_json(const struct cmp_result *r, const struct cmp_side *b,
		      const struct cmp_side *n)
{
	json_t *rows = json_array(), *skipped = json_array(), *root;
	int err = !rows || !skipped;

	for (size_t i = 0; !err && i < r->n; i++)
		err = json_array_append_new(rows, row_json(&r->rows[i]));
	for (size_t i = 0; !err && i < r->n_skipped; i++)
		err = json_array_append_new(skipped, txt_json(r->skipped[i]));
	if (err) {
		json_decref(rows);
		json_decref(skipped);
		return -ENOMEM;
	}
	root = json_pack("{s:o,s:o,s:O,s:I,s:I,s:o,s:o}", "base", side_json(b), "new", side_json(n),
			 "provenance", r->prov ? r->prov : json_null(), "regressions",
			 (json_int_t)r->regressions, "improvements", (json_int_t)r->improvements,
			 "comparisons", rows, "skipped", skipped);
	if (!root)
		return -ENOMEM;
	err = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
	json_decref(root);
	if (err || fputc('\n', stdout) == EOF)
		return -EIO;
	return 0;
}

/* "M1,M2" of --metrics into a new array *@list (of names in the new
 * string *@copy); the names are checked against the results once read. */
static int parse_metrics(const char *arg, char **copy, const char ***list, size_t *n)
{
	char *save = NULL, *m;

	*copy = strdup(arg);
	*list = calloc(strlen(arg) + 1, sizeof(**list));
	if (!*copy || !*list) {
		fputs(P "out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (m = strtok_r(*copy, ",", &save); m; m = strtok_r(NULL, ",", &save))
		(*list)[(*n)++] = m;
	if (!*n)
		return cli_usage_error(P, cmp_usage, "%s", "--metrics needs a list of metrics");
	return -1;
}

struct cmp_args {
	const char *base, *new, *junit, *markdown;
	struct cmp_tol *tols;
	size_t n_tols;
	const char **metrics;
	size_t n_metrics;
	int json, force;
};

static int cmp_run(const struct cmp_args *a)
{
	struct cmp_side b = {0}, n = {0};
	struct cmp_result r = {0};
	struct cmp_opts o = {.tols = a->tols,
			     .n_tols = a->n_tols,
			     .metrics = a->metrics,
			     .n_metrics = a->n_metrics,
			     .force = a->force};
	char err[CMP_ERR];
	int e, rc = ROCESIM_EXIT_INPUT;

	if ((e = cmp_side_load(a->base, &b, err, sizeof(err))) ||
	    (e = cmp_side_load(a->new, &n, err, sizeof(err))) ||
	    (e = cmp_compare(&b, &n, &o, &r, err, sizeof(err)))) {
		fputs(P, stderr);
		txt_fputs_term(e == -ENOMEM ? "out of memory" : err, stderr);
		fputc('\n', stderr);
		goto out;
	}
	if (a->json ? print_json(&r, &b, &n) : (cmp_print_table(&r, &b, &n, stdout), 0)) {
		fputs(P "cannot write the JSON output\n", stderr);
		rc = ROCESIM_EXIT_IO;
		goto out;
	}
	rc = ROCESIM_EXIT_IO;
	if (a->markdown && (e = write_markdown(a->markdown, &r, &b, &n))) {
		fprintf(stderr, P "cannot write %s: %s\n", txt_term(err, sizeof(err), a->markdown),
			strerror(-e));
		goto out;
	}
	if (a->junit) {
		struct junit j = {0};
		char suite[300];

		snprintf(suite, sizeof(suite), "rocesim compare %s", n.scenario);
		e = cmp_junit_add(&j, &r, n.scenario);
		if (!e)
			e = junit_write(&j, a->junit, suite, 0);
		junit_free(&j);
		if (e) {
			fprintf(stderr, P "cannot write %s: %s\n",
				txt_term(err, sizeof(err), a->junit), strerror(-e));
			goto out;
		}
	}
	cmp_print_regressions(&r, stderr, P);
	rc = r.regressions ? ROCESIM_EXIT_FOUND : 0;
out:
	cmp_result_free(&r);
	cmp_side_free(&b);
	cmp_side_free(&n);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_args a = {0};
	char *metrics_copy = NULL, err[CMP_ERR];
	int rc = -1;

	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--measured"))
			return cmp_measured(argc, argv, cmp_usage);
	a.tols = calloc((size_t)argc + 1, sizeof(*a.tols));
	if (!a.tols) {
		fputs(P "out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(cmp_usage, stdout);
			fputs(cmp_measured_usage, stdout);
			rc = 0;
		} else if (!strcmp(o, "--json")) {
			a.json = 1;
		} else if (!strcmp(o, "--force")) {
			a.force = 1;
		} else if (!strcmp(o, "--tolerance")) {
			if (!has_next)
				rc = cli_usage_error(P, cmp_usage,
						     "%s needs METRIC=PCT%% or METRIC=ABS", o);
			else if (cmp_tol_parse(argv[++i], &a.tols[a.n_tols++], err, sizeof(err)))
				rc = cli_usage_error(P, cmp_usage, "%s", err);
		} else if (!strcmp(o, "--metrics")) {
			if (!has_next)
				rc = cli_usage_error(P, cmp_usage, "%s needs a list of metrics", o);
			else if (a.metrics)
				rc = cli_usage_error(P, cmp_usage, "%s", "--metrics is given once");
			else
				rc = parse_metrics(argv[++i], &metrics_copy, &a.metrics,
						   &a.n_metrics);
		} else if (!strcmp(o, "--junit") || !strcmp(o, "--markdown")) {
			if (!has_next || !argv[i + 1][0])
				rc = cli_usage_error(P, cmp_usage, "%s needs a file", o);
			else if (!strcmp(o, "--junit"))
				a.junit = argv[++i];
			else
				a.markdown = argv[++i];
		} else if (o[0] == '-' && o[1]) {
			rc = cli_usage_error(P, cmp_usage, "unknown option \"%s\"", o);
		} else if (!a.base) {
			a.base = o;
		} else if (!a.new) {
			a.new = o;
		} else {
			rc = cli_usage_error(P, cmp_usage, "one BASE and one NEW (also got \"%s\")",
					     o);
		}
	}
	if (rc < 0 && !a.new)
		rc = cli_usage_error(P, cmp_usage, "%s", "compare needs BASE and NEW");
	if (rc < 0)
		rc = cmp_run(&a);
	free(a.tols);
	free(a.metrics);
	free(metrics_copy);
	return rc;
}
