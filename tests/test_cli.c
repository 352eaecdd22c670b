/*
 * The command line as users and CI meet it: the built rocesim (ROCESIM_BIN)
 * is run from the source root (ROCESIM_SRC) with fork/exec, and its exit
 * code, stderr and output folder are checked. Every scenario in tests/bad/
 * must be refused with exit 2 and one line on stderr naming the file, the
 * line and the text its "# error:" comment gives, without writing anything.
 * Also: --set, --seed, --help, usage errors, atomic results.json; input
 * files that are not regular files (a FIFO must be refused, not waited on:
 * those runs are under a time bound); the output folder a run owns (stale
 * outputs, the lock, temporaries after SIGINT, SIGTERM and SIGKILL, a
 * folder that cannot be written, a full disk).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("cli");
}

/*
 * 300 s: every_bad_scenario_is_refused_on_one_line_naming_file_and_line runs
 * rocesim once per file of tests/bad (147 today), 55 to 60 s under the
 * sanitizers on a loaded 2-core machine. A budget per suite, not per test:
 * with a test's own .timeout, LeakSanitizer once found 48 bytes that
 * Criterion's runner had allocated still held at its exit.
 */
TestSuite(cli, .init = setup, .fini = ts_proc_teardown, .timeout = 300);

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A summary metric ("fct_us.max") of OUTDIR/results.json. */
static double metric(const char *outdir, const char *name)
{
	char path[300], buf[64], *part, *save = NULL;
	json_error_t jerr;
	json_t *root, *v;
	double x;

	snprintf(path, sizeof(path), "%s/results.json", outdir);
	root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	v = json_object_get(root, "summary");
	snprintf(buf, sizeof(buf), "%s", name);
	for (part = strtok_r(buf, ".", &save); part && v; part = strtok_r(NULL, ".", &save))
		v = json_object_get(v, part);
	if (!v)
		v = json_object_get(root, name); /* "seed" and other top-level keys */
	cr_assert(json_is_number(v), "%s: no number at %s", path, name);
	x = json_number_value(v);
	json_decref(root);
	return x;
}

/*
 * Is @name a temporary file of a run: ".OUTPUT.XXXXXX" for one of the
 * files a run writes, or the "OUTPUT.tmp" of earlier versions?
 */
static int is_temp(const char *name)
{
	static const char *const outputs[] = {"results.json", "timeseries.csv", "qp_rates.csv",
					      "pfc_events.csv"};
	size_t len = strlen(name);

	if (len >= 4 && !strcmp(name + len - 4, ".tmp"))
		return 1;
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		size_t n = strlen(outputs[i]);

		const char *x = name + n + 2;

		/* the XXXXXX of mkstemp: six letters or digits */
		if (name[0] == '.' && !strncmp(name + 1, outputs[i], n) && name[n + 1] == '.' &&
		    strlen(x) == 6 &&
		    strspn(x, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
			6)
			return 1;
	}
	return 0;
}

/* Does @dir hold a temporary file of a run? */
static int has_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)))
		found |= is_temp(e->d_name);
	if (d)
		closedir(d);
	return found;
}

/*
 * Check the one-line error of a refused tests/bad/ file: "rocesim: ", then
 * "FILE:LINE:" where FILE is the scenario (when @want starts with ":LINE:")
 * or the file @want names first (a topology file), then @want somewhere.
 */
static void check_refusal(const char *file, const char *want, const struct ts_proc *p)
{
	char prefix[600];
	const char *rest;

	cr_expect_eq(p->code, 2, "%s: exit %d, expected 2 (stderr: %s)", file, p->code, p->err);
	cr_expect_eq(count_lines(p->err), 1, "%s: stderr is not one line: %s", file, p->err);
	cr_expect(strlen(p->err) > 0 && p->err[strlen(p->err) - 1] == '\n',
		  "%s: stderr does not end the line: %s", file, p->err);
	cr_expect(strstr(p->err, want), "%s: stderr lacks \"%s\": %s", file, want, p->err);
	if (want[0] == ':')
		snprintf(prefix, sizeof(prefix), "rocesim: %s:", file);
	else
		snprintf(prefix, sizeof(prefix), "rocesim: %.*s", (int)strcspn(want, ":") + 1,
			 want);
	cr_expect(starts(p->err, prefix), "%s: stderr does not start with \"%s\": %s", file, prefix,
		  p->err);
	rest = p->err + strlen(prefix);
	if (starts(p->err, prefix))
		cr_expect(rest[0] >= '1' && rest[0] <= '9' && strchr(rest, ':') &&
			      rest + strspn(rest, "0123456789") == strchr(rest, ':'),
			  "%s: no \":LINE:\" after the file name: %s", file, p->err);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(cli, every_bad_scenario_is_refused_on_one_line_naming_file_and_line)
{
	DIR *dir = opendir("tests/bad");
	struct dirent *e;
	char *names[256];
	size_t n = 0;

	cr_assert(dir, "no tests/bad folder");
	while ((e = readdir(dir)) && n < 256) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
			names[n++] = strdup(e->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(names[0]), by_name);
	cr_assert_geq(n, 20, "tests/bad holds %zu scenarios, expected at least 20", n);
	for (size_t i = 0; i < n; i++) {
		char file[300], *text, *want, outdir[300];
		struct ts_proc p;

		snprintf(file, sizeof(file), "tests/bad/%s", names[i]);
		snprintf(outdir, sizeof(outdir), "%s", ts_tmp(names[i]));
		text = ts_slurp(file);
		cr_assert(text, "cannot read %s", file);
		cr_assert(!strncmp(text, "# error: ", 9), "%s does not open with \"# error: \"",
			  file);
		want = text + 9;
		want[strcspn(want, "\n")] = '\0';
		ts_exec(&p, (const char *[]){"run", file, "-o", outdir, NULL});
		check_refusal(file, want, &p);
		cr_expect(!exists(outdir), "%s: the run created %s", file, outdir);
		ts_proc_free(&p);
		free(text);
		free(names[i]);
	}
}

Test(cli, an_empty_file_is_refused)
{
	const char *file = ts_tmp("empty.yaml");
	FILE *f = fopen(file, "w");
	struct ts_proc p;

	cr_assert(f);
	fclose(f);
	ts_exec(&p, (const char *[]){"run", file, "-o", ts_tmp("out"), NULL});
	check_refusal(file, ":1: empty scenario", &p);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

Test(cli, set_overrides_a_key_and_changes_the_result)
{
	struct ts_proc p;
	double fast, slow;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("100g"), "-q",
				     NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("40g"), "-q",
				     "--set", "topology.link.rate=40Gbps", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	fast = metric(ts_tmp("100g"), "fct_us.max");
	slow = metric(ts_tmp("40g"), "fct_us.max");
	/* 1 MB alone on a link: the FCT scales with 1/rate, 2.5x from 100G to 40G */
	cr_expect(fast > 80 && fast < 90, "fct at 100G: %g us", fast);
	cr_expect(slow / fast > 2.4 && slow / fast < 2.6, "fct %g us at 40G, %g us at 100G", slow,
		  fast);
}

Test(cli, set_of_an_unknown_key_names_set_and_the_key)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"),
				     "--set", "topology.lnk.rate=1", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(starts(p.err, "rocesim: --set: topology.lnk"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "unknown key"), "stderr: %s", p.err);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

Test(cli, set_of_a_bad_value_names_set_not_the_file)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"),
				     "--set", "topology.link.rate=100Gbsp", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(starts(p.err, "rocesim: --set: topology.link.rate: \"100Gbsp\" is not a rate"),
		  "stderr: %s", p.err);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

Test(cli, set_expect_makes_a_gate_fail_with_exit_1)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"), "-q",
				     "--set", "expect.drops=5", NULL});
	cr_expect_eq(p.code, 1, "exit %d, stderr: %s", p.code, p.err);
	cr_expect(strstr(p.err, "--set expect.drops=5"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "expect drops == 5: FAILED, got 0"), "stderr: %s", p.err);
	/* the run worked: its results are there for the user to look at */
	cr_expect(exists(ts_tmp("out/results.json")));
	ts_proc_free(&p);
}

Test(cli, set_expect_of_an_unknown_metric_names_set)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"),
				     "--set", "expect.dropz=0", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(starts(p.err, "rocesim: --set: expect.dropz: unknown metric"), "stderr: %s",
		  p.err);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

Test(cli, seed_is_reported_and_changes_a_random_workload)
{
	struct ts_proc p;
	char *a, *b, *c, path[300];

	ts_exec(&p, (const char *[]){"run", "tests/good/permutation.yaml", "-o", ts_tmp("s5"), "-q",
				     "--seed", "5", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", "tests/good/permutation.yaml", "-o", ts_tmp("s6"), "-q",
				     "--seed", "6", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", "tests/good/permutation.yaml", "-o", ts_tmp("s5b"),
				     "-q", "--set", "seed=5", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	cr_expect_eq(metric(ts_tmp("s5"), "seed"), 5);
	cr_expect_eq(metric(ts_tmp("s6"), "seed"), 6);
	snprintf(path, sizeof(path), "%s/results.json", ts_tmp("s5"));
	a = ts_slurp(path);
	snprintf(path, sizeof(path), "%s/results.json", ts_tmp("s6"));
	b = ts_slurp(path);
	snprintf(path, sizeof(path), "%s/results.json", ts_tmp("s5b"));
	c = ts_slurp(path);
	cr_assert(a && b && c);
	/* the flows come after "run" (which holds wall time): compare from there */
	cr_expect(strstr(a, "\"flows\"") && strstr(b, "\"flows\"") && strstr(c, "\"flows\""));
	cr_expect_str_neq(strstr(a, "\"flows\""), strstr(b, "\"flows\""),
			  "seeds 5 and 6 gave the same permutation");
	cr_expect_str_eq(strstr(a, "\"flows\""), strstr(c, "\"flows\""),
			 "--seed 5 and --set seed=5 differ");
	free(a);
	free(b);
	free(c);
}

Test(cli, seed_that_is_not_a_number_is_refused)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"),
				     "--seed", "abc", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(starts(p.err, "rocesim: --set: seed: \"abc\" is not a whole number"),
		  "stderr: %s", p.err);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

Test(cli, help_exits_0_and_names_every_option)
{
	static const char *const words[] = {"run",	 "-o",	       "--out",	  "--set",
					    "--seed",	 "--progress", "--quiet", "--help",
					    "--version", "exit codes", NULL};
	/* what a run does to its folder, and the exit codes beyond 2 */
	static const char *const folder[] = {"removes those it did not write",
					     ".rocesim.lock",
					     "3 an I/O failure after a good run",
					     "130 SIGINT",
					     "143 SIGTERM",
					     NULL};
	const char *forms[] = {"--help", "-h", "help"};

	for (size_t i = 0; i < 3; i++) {
		struct ts_proc p;

		ts_exec(&p, (const char *[]){forms[i], NULL});
		cr_expect_eq(p.code, 0, "%s: exit %d", forms[i], p.code);
		cr_expect_str_empty(p.err, "%s: stderr: %s", forms[i], p.err);
		for (const char *const *w = words; *w; w++)
			cr_expect(strstr(p.out, *w), "%s does not mention %s", forms[i], *w);
		for (const char *const *w = folder; *w; w++)
			cr_expect(strstr(p.out, *w), "%s does not mention %s", forms[i], *w);
		ts_proc_free(&p);
	}
}

/* --progress reports on stderr, --quiet silences stdout: the two go together. */
Test(cli, progress_and_quiet_combine_and_progress_counts_the_workload)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"run", "tests/good/two-flows.yaml", "--progress",
					  "--quiet", "-o", ts_tmp("pq"), NULL});
	cr_expect_eq(p.code, 0, "stderr: %s", p.err);
	cr_expect_str_empty(p.out, "--quiet: %s", p.out);
	cr_expect(starts(p.err, "rocesim: two-flows done at t="), "stderr: %s", p.err);
	cr_expect(strstr(p.err, ": 100.0% of 2.0 MB delivered (2/2 flows done), "), "stderr: %s",
		  p.err);
	cr_expect(strstr(p.err, " s wall\n"), "stderr: %s", p.err);
	ts_proc_free(&p);
}

Test(cli, version_exits_0)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"--version", NULL});
	cr_expect_eq(p.code, 0);
	cr_expect(starts(p.out, "rocesim "), "stdout: %s", p.out);
	ts_proc_free(&p);
}

Test(cli, usage_errors_exit_2)
{
	static const char *const cases[][5] = {
	    {"frobnicate", "x.yaml", NULL},
	    {NULL},
	    {"run", NULL},
	    {"run", "tests/good/two-flows.yaml", "--bogus", NULL},
	    {"run", "tests/good/two-flows.yaml", "--set", "noequals", NULL},
	    {"run", "tests/good/two-flows.yaml", "-o", NULL},
	    {"run", "tests/good/two-flows.yaml", "tests/good/permutation.yaml", NULL},
	};
	static const char *const says[] = {
	    "unknown verb \"frobnicate\"", "a verb is needed",	    "needs a scenario file",
	    "unknown option \"--bogus\"",  "--set needs KEY=VALUE", "-o needs a folder",
	    "one scenario at a time",
	};

	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++) {
		struct ts_proc p;

		ts_exec(&p, (const char *const *)cases[i]);
		cr_expect_eq(p.code, 2, "case %zu: exit %d", i, p.code);
		cr_expect(starts(p.err, "rocesim: "), "case %zu: stderr: %s", i, p.err);
		cr_expect(strstr(p.err, says[i]), "case %zu: stderr lacks \"%s\": %s", i, says[i],
			  p.err);
		cr_expect(strstr(p.err, "usage:"), "case %zu: no usage after the error", i);
		cr_expect_str_empty(p.out, "case %zu: stdout: %s", i, p.out);
		ts_proc_free(&p);
	}
}

Test(cli, a_missing_scenario_file_exits_2)
{
	struct ts_proc p;

	ts_exec(&p,
		(const char *[]){"run", "tests/good/no-such-file.yaml", "-o", ts_tmp("out"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_str_eq(p.err, "rocesim: tests/good/no-such-file.yaml: cannot read: No such file "
				"or directory\n");
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

Test(cli, results_are_written_atomically)
{
	struct ts_proc p;

	ts_exec(&p,
		(const char *[]){"run", "experiments/incast-8to1.yaml", "-o", ts_tmp("out"), NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	cr_expect_str_empty(p.err);
	cr_expect(strstr(p.out, "results.json"), "stdout: %s", p.out);
	cr_expect(exists(ts_tmp("out/results.json")));
	cr_expect(exists(ts_tmp("out/timeseries.csv")));
	cr_expect(!has_tmp(ts_tmp("out")), "a *.tmp file is left in the out folder");
	cr_expect_eq(metric(ts_tmp("out"), "drops"), 0);
	ts_proc_free(&p);
}

Test(cli, bad_input_leaves_earlier_results_untouched)
{
	struct ts_proc p;
	char *before, *after, path[300];
	struct stat st1, st2;

	snprintf(path, sizeof(path), "%s/results.json", ts_tmp("out"));
	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"), "-q",
				     NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	before = ts_slurp(path);
	cr_assert(before && !stat(path, &st1));
	ts_exec(&p,
		(const char *[]){"run", "tests/bad/bad-rate-unit.yaml", "-o", ts_tmp("out"), NULL});
	cr_expect_eq(p.code, 2);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"),
				     "--set", "workload.flows[0].dst=h99", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "rocesim: --set: workload.flows[0].dst: no host named \"h99\""),
		  "stderr: %s", p.err);
	ts_proc_free(&p);
	after = ts_slurp(path);
	cr_assert(after && !stat(path, &st2));
	cr_expect_str_eq(after, before, "results.json changed");
	cr_expect_eq(st1.st_ino, st2.st_ino, "results.json was replaced");
	cr_expect_eq(st1.st_mtim.tv_sec, st2.st_mtim.tv_sec);
	cr_expect_eq(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
	cr_expect(!has_tmp(ts_tmp("out")));
	free(before);
	free(after);
}

Test(cli, a_device_or_folder_is_not_read_as_a_scenario)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "/dev/zero", "-o", ts_tmp("out"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_str_eq(p.err, "rocesim: /dev/zero: cannot read: not a regular file\n");
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", "tests", "-o", ts_tmp("out"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
}

/* Run rocesim with @args, killed by SIGALRM if it is still there after 3 s. */
static void exec_bounded(struct ts_proc *p, const char *const *args)
{
	const struct ts_opts o = {.timeout_s = 3};

	ts_exec_opts(p, &o, args);
}

/* Expect @p refused at once (no hang), on one line, saying "not a regular file". */
static void check_not_regular(const char *what, const struct ts_proc *p)
{
	cr_expect_eq(p->sig, 0, "%s: killed by signal %d (a hang?)", what, p->sig);
	cr_expect_eq(p->code, 2, "%s: exit %d, stderr: %s", what, p->code, p->err);
	cr_expect(strstr(p->err, "not a regular file"), "%s: stderr: %s", what, p->err);
	cr_expect_eq(count_lines(p->err), 1, "%s: stderr: %s", what, p->err);
}

/* 16 runs of at most 3 s each: the suite's time bound holds even if all hang */
Test(cli, a_fifo_is_refused_at_once_wherever_it_is_named)
{
	static const char *const imports[] = {"sonic", "mlnx-qos", "cc-params", "pod"};
	/* the scenario around the FIFO's path, and the key that names it */
	static const char *const keys[][3] = {
	    {"topology: {kind: file, file: ", "}\n", "topology.file"},
	    {"topology: {kind: star, hosts: 4}\nswitch: {sonic: ", "}\n", "switch.sonic"},
	    {"topology: {kind: star, hosts: 4}\nnic: {mlnx_qos: ", "}\n", "nic.mlnx_qos"},
	    {"topology: {kind: star, hosts: 4}\nnic: {cc_params: ", "}\n", "nic.cc_params"},
	    {"topology: {kind: star, hosts: 4}\nworkload: {kind: allreduce, size: 1MB, pod: ",
	     "}\n", "workload.pod"},
	};
	char fifo[300], what[100];
	struct ts_proc p;

	snprintf(fifo, sizeof(fifo), "%s", ts_tmp("fifo"));
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo %s", fifo);
	exec_bounded(&p, (const char *[]){"run", fifo, "-o", ts_tmp("out"), NULL});
	check_not_regular("run FIFO", &p);
	cr_expect(!exists(ts_tmp("out")));
	ts_proc_free(&p);
	exec_bounded(&p, (const char *[]){"check", fifo, NULL});
	check_not_regular("check FIFO", &p);
	ts_proc_free(&p);
	for (size_t i = 0; i < sizeof(imports) / sizeof(imports[0]); i++) {
		snprintf(what, sizeof(what), "import %s FIFO", imports[i]);
		exec_bounded(&p, (const char *[]){"import", imports[i], fifo, NULL});
		check_not_regular(what, &p);
		ts_proc_free(&p);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *scn = ts_tmp("fifo-key.yaml");
		FILE *f = fopen(scn, "w");

		cr_assert(f);
		fprintf(f, "%s%s%s", keys[i][0], fifo, keys[i][1]);
		if (!strstr(keys[i][0], "workload"))
			fprintf(f, "workload: {kind: allreduce, size: 1MB}\n");
		fclose(f);
		snprintf(what, sizeof(what), "run, %s: FIFO", keys[i][2]);
		exec_bounded(&p, (const char *[]){"run", scn, "-o", ts_tmp("out"), NULL});
		check_not_regular(what, &p);
		cr_expect(!exists(ts_tmp("out")), "%s: the run created its folder", what);
		ts_proc_free(&p);
		snprintf(what, sizeof(what), "check, %s: FIFO", keys[i][2]);
		exec_bounded(&p, (const char *[]){"check", scn, NULL});
		check_not_regular(what, &p);
		ts_proc_free(&p);
	}
	unlink(fifo);
}

Test(cli, a_folder_is_not_a_config_file)
{
	static const char *const imports[] = {"sonic", "mlnx-qos", "pod"};

	for (size_t i = 0; i < sizeof(imports) / sizeof(imports[0]); i++) {
		struct ts_proc p;
		char what[100];

		snprintf(what, sizeof(what), "import %s tests/", imports[i]);
		exec_bounded(&p, (const char *[]){"import", imports[i], "tests", NULL});
		check_not_regular(what, &p);
		ts_proc_free(&p);
	}
}

Test(cli, a_name_taken_from_the_file_name_is_checked_too)
{
	const char *file = ts_tmp("..yaml");
	FILE *f = fopen(file, "w");
	struct ts_proc p;

	cr_assert(f);
	fputs("topology: {kind: star, hosts: 4}\nworkload: {kind: permutation, size: 1MB}\n", f);
	fclose(f);
	/* no name: and no -o: the results would go to out/. */
	ts_exec(&p, (const char *[]){"run", file, NULL});
	cr_expect_eq(p.code, 2, "exit %d, stderr: %s", p.code, p.err);
	cr_expect(strstr(p.err, "name: \".\" (from the file name) is not a folder name"),
		  "stderr: %s", p.err);
	ts_proc_free(&p);
}

/* ---- the output folder: what a run owns, the lock, temporaries, failures ---- */

/* A run of experiments/incast-8to1.yaml that takes minutes unless stopped. */
#define LONG_RUN                                                                                   \
	"run", "experiments/incast-8to1.yaml", "-q", "--set", "workload.size=100GB", "--set",      \
	    "stop=100s"

/* Wait up to 20 s for @dir to hold a temporary file (the run has started). */
static int wait_for_temp(const char *dir)
{
	const struct timespec ms10 = {0, 10000000};

	for (int i = 0; i < 2000; i++) {
		if (has_tmp(dir))
			return 1;
		nanosleep(&ms10, NULL);
	}
	return 0;
}

/* Write @text into @dir/@name. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static int exists_in(const char *dir, const char *name)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return exists(path);
}

/* What a folder's results.json is: its bytes and its inode. */
struct snap {
	char *text;
	ino_t ino;
};

static struct snap snap_of(const char *dir, const char *name)
{
	char path[400];
	struct stat st;
	struct snap s;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	s.text = ts_slurp(path);
	cr_assert(s.text && !stat(path, &st), "no %s", path);
	s.ino = st.st_ino;
	return s;
}

/* Expect @dir/@name to be exactly as @s saw it, and free @s. */
static void expect_unchanged(const char *dir, const char *name, struct snap *s)
{
	struct snap now = snap_of(dir, name);

	cr_expect_eq(now.ino, s->ino, "%s/%s was replaced", dir, name);
	cr_expect(!strcmp(now.text, s->text), "%s/%s changed", dir, name);
	free(now.text);
	free(s->text);
}

Test(cli, a_rerun_removes_the_outputs_it_does_not_write_this_time)
{
	const char *out = ts_tmp("owned");
	struct ts_proc p;

	ts_exec(&p,
		(const char *[]){"run", "experiments/incast-8to1.yaml", "-o", out, "-q", "--set",
				 "output.pfc_events=true", "--set", "switch.pfc.xoff=100KB", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	cr_assert(exists_in(out, "timeseries.csv") && exists_in(out, "qp_rates.csv") &&
		  exists_in(out, "pfc_events.csv"));
	/* pictures of that run, and files of the user's own */
	put(out, "pfc.png", "old picture");
	put(out, "queues.svg", "old picture");
	put(out, "slowdown.png", "old picture");
	put(out, "notes.txt", "mine");
	put(out, "results.json.bak", "mine");
	put(out, "my.csv", "mine");
	put(out, ".results.json.keep", "mine");
	ts_exec(&p, (const char *[]){"run", "experiments/incast-8to1.yaml", "-o", out, "-q",
				     "--set", "output.sample=0", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	cr_expect(exists_in(out, "results.json"));
	cr_expect(!exists_in(out, "timeseries.csv"), "a stale timeseries.csv is left");
	cr_expect(!exists_in(out, "qp_rates.csv"), "a stale qp_rates.csv is left");
	cr_expect(!exists_in(out, "pfc_events.csv"), "a stale pfc_events.csv is left");
	cr_expect(!exists_in(out, "pfc.png"), "a stale pfc.png is left");
	cr_expect(!exists_in(out, "queues.svg"), "a stale queues.svg is left");
	cr_expect(!exists_in(out, "slowdown.png"), "a stale slowdown.png is left");
	cr_expect(exists_in(out, "notes.txt") && exists_in(out, "results.json.bak") &&
		      exists_in(out, "my.csv") && exists_in(out, ".results.json.keep"),
		  "the run removed a file it does not own");
}

/* Take the run lock of @dir as another run would; returns the descriptor. */
static int hold_lock(const char *dir)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/.rocesim.lock", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(fcntl(fd, F_SETLK, &fl), 0, "lock %s: %s", path, strerror(errno));
	return fd;
}

Test(cli, a_run_into_a_folder_in_use_is_refused_at_once_touching_nothing)
{
	const struct ts_opts bounded = {.timeout_s = 10};
	const char *out = ts_tmp("locked");
	char pid[64];
	struct ts_proc p;
	struct snap before;
	int fd;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", out, "-q", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	put(out, ".results.json.a1B2c3", "a temporary of the run that holds the lock");
	before = snap_of(out, "results.json");
	fd = hold_lock(out);
	ts_exec_opts(&p, &bounded, (const char *[]){LONG_RUN, "-o", out, NULL});
	close(fd);
	snprintf(pid, sizeof(pid), "(pid %ld)", (long)getpid());
	cr_expect_eq(p.sig, 0, "killed by signal %d: the run did not stop at the lock", p.sig);
	cr_expect_eq(p.code, 2, "exit %d, stderr: %s", p.code, p.err);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "is in use by another run") && strstr(p.err, pid), "stderr: %s",
		  p.err);
	ts_proc_free(&p);
	expect_unchanged(out, "results.json", &before);
	cr_expect(exists_in(out, ".results.json.a1B2c3"),
		  "the temporary of the run holding the lock was removed");
}

Test(cli, two_runs_into_one_folder_the_second_is_refused_and_the_first_finishes)
{
	const struct ts_opts bounded = {.timeout_s = 60};
	const char *out = ts_tmp("two");
	struct ts_child first;
	struct ts_proc p, q;
	char pid[64];

	ts_spawn(&first, &bounded, (const char *[]){LONG_RUN, "-o", out, NULL});
	cr_assert(wait_for_temp(out), "the first run never started");
	ts_exec_opts(&q, &bounded,
		     (const char *[]){"run", "tests/good/two-flows.yaml", "-o", out, "-q", NULL});
	snprintf(pid, sizeof(pid), "(pid %ld)", (long)first.pid);
	cr_expect_eq(q.code, 2, "second run: exit %d, stderr: %s", q.code, q.err);
	cr_expect(strstr(q.err, pid), "second run: stderr: %s", q.err);
	ts_proc_free(&q);
	kill(first.pid, SIGTERM);
	ts_wait(&first, &p);
	cr_expect_eq(p.code, 143, "first run: exit %d, stderr: %s", p.code, p.err);
	ts_proc_free(&p);
	cr_expect(!has_tmp(out));
}

/* Interrupt a long run into @out (holding an earlier run's results) with @sig. */
static void interrupt_with(int sig, const char *name, int code)
{
	const struct ts_opts bounded = {.timeout_s = 60};
	const char *out = ts_tmp(name);
	struct ts_child c;
	struct ts_proc p;
	struct snap before;

	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", out, "-q", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	before = snap_of(out, "results.json");
	ts_spawn(&c, &bounded, (const char *[]){LONG_RUN, "-o", out, NULL});
	cr_assert(wait_for_temp(out), "the run never started");
	kill(c.pid, sig);
	ts_wait(&c, &p);
	cr_expect_eq(p.sig, 0, "%s: killed by signal %d", name, p.sig);
	cr_expect_eq(p.code, code, "%s: exit %d, stderr: %s", name, p.code, p.err);
	cr_expect_eq(count_lines(p.err), 1, "%s: stderr: %s", name, p.err);
	cr_expect(starts(p.err, "rocesim: interrupted") && strstr(p.err, " at t=") &&
		      strstr(p.err, "no results written"),
		  "%s: stderr: %s", name, p.err);
	ts_proc_free(&p);
	cr_expect(!has_tmp(out), "%s: temporary files are left", name);
	expect_unchanged(out, "results.json", &before);
}

Test(cli, sigint_and_sigterm_remove_the_temporaries_and_say_what_was_interrupted)
{
	interrupt_with(SIGINT, "sigint", 130);
	interrupt_with(SIGTERM, "sigterm", 143);
}

Test(cli, the_temporaries_of_a_killed_run_are_removed_by_the_next_run)
{
	const struct ts_opts bounded = {.timeout_s = 60};
	const char *out = ts_tmp("killed");
	struct ts_child c;
	struct ts_proc p;

	ts_spawn(&c, &bounded, (const char *[]){LONG_RUN, "-o", out, NULL});
	cr_assert(wait_for_temp(out), "the run never started");
	kill(c.pid, SIGKILL);
	ts_wait(&c, &p);
	ts_proc_free(&p);
	put(out, "results.json.tmp", "left by an earlier version");
	cr_assert(has_tmp(out), "SIGKILL left no temporary file: nothing to test");
	put(out, ".results.json.mine", "mine");
	ts_exec(&p, (const char *[]){"run", "tests/good/two-flows.yaml", "-o", out, "-q", NULL});
	cr_expect_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	cr_expect(!has_tmp(out), "temporary files are left");
	cr_expect(exists_in(out, ".results.json.mine"), "a file of the user's was removed");
}

Test(cli, an_output_folder_that_cannot_be_written_is_refused_before_the_run)
{
	const struct ts_opts bounded = {.timeout_s = 10};
	/* output.sample=0: results.json is the one file, written after the run */
	const char *file = ts_tmp("a-file"), *ro = ts_tmp("read-only");
	char sub[400];
	struct ts_proc p;

	put(ts_tmp(""), "a-file", "not a folder");
	snprintf(sub, sizeof(sub), "%s/sub", file);
	ts_exec_opts(&p, &bounded,
		     (const char *[]){LONG_RUN, "--set", "output.sample=0", "-o", file, NULL});
	cr_expect_eq(p.sig, 0, "-o FILE: killed by signal %d: the run started", p.sig);
	cr_expect_eq(p.code, 2, "-o FILE: exit %d, stderr: %s", p.code, p.err);
	cr_expect(starts(p.err, "rocesim: ") && strstr(p.err, file), "stderr: %s", p.err);
	ts_proc_free(&p);
	ts_exec_opts(&p, &bounded,
		     (const char *[]){LONG_RUN, "--set", "output.sample=0", "-o", sub, NULL});
	cr_expect_eq(p.sig, 0, "-o FILE/sub: killed by signal %d: the run started", p.sig);
	cr_expect_eq(p.code, 2, "-o FILE/sub: exit %d, stderr: %s", p.code, p.err);
	ts_proc_free(&p);
	/* root (CAP_DAC_OVERRIDE) writes into a read-only folder: nothing to test then */
	cr_assert_eq(mkdir(ro, 0555), 0);
	snprintf(sub, sizeof(sub), "%s/probe", ro);
	if (mkdir(sub, 0777) == 0)
		return;
	ts_exec_opts(&p, &bounded,
		     (const char *[]){LONG_RUN, "--set", "output.sample=0", "-o", ro, NULL});
	chmod(ro, 0755);
	cr_expect_eq(p.sig, 0, "read-only folder: killed by signal %d: the run started", p.sig);
	cr_expect_eq(p.code, 2, "read-only folder: exit %d, stderr: %s", p.code, p.err);
	cr_expect(strstr(p.err, "Permission denied"), "stderr: %s", p.err);
	ts_proc_free(&p);
}

/*
 * A full disk, portably: RLIMIT_FSIZE makes every write past the limit fail
 * with EFBIG (SIGXFSZ ignored), as ENOSPC does. The earlier outputs must stay
 * whole, no temporary is left, and the exit code is 3.
 */
Test(cli, a_full_disk_after_the_run_leaves_the_earlier_outputs_whole_and_exits_3)
{
	const struct ts_opts full = {.timeout_s = 60, .max_file_bytes = 8192};
	const char *out = ts_tmp("full");
	struct snap results, series;
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "experiments/incast-8to1.yaml", "-o", out, "-q", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
	results = snap_of(out, "results.json");
	series = snap_of(out, "timeseries.csv");
	cr_assert_gt(strlen(results.text), 8192, "results.json fits the limit: nothing to test");
	/* the time series fills the disk while the run goes on */
	ts_exec_opts(&p, &full,
		     (const char *[]){"run", "experiments/incast-8to1.yaml", "-o", out, "-q",
				      "--seed", "2", NULL});
	cr_expect_eq(p.code, 3, "exit %d, stderr: %s", p.code, p.err);
	cr_expect(starts(p.err, "rocesim: cannot write ") && strstr(p.err, "File too large"),
		  "stderr: %s", p.err);
	cr_expect(strstr(p.err, "left as they were"), "stderr: %s", p.err);
	ts_proc_free(&p);
	cr_expect(!has_tmp(out), "temporary files are left");
	/* only results.json, which does not fit: the time series must stay too */
	ts_exec_opts(&p, &full,
		     (const char *[]){"run", "experiments/incast-8to1.yaml", "-o", out, "-q",
				      "--seed", "2", "--set", "output.sample=0", NULL});
	cr_expect_eq(p.code, 3, "exit %d, stderr: %s", p.code, p.err);
	cr_expect(strstr(p.err, "results.json") && strstr(p.err, "File too large"), "stderr: %s",
		  p.err);
	ts_proc_free(&p);
	cr_expect(!has_tmp(out), "temporary files are left");
	expect_unchanged(out, "results.json", &results);
	expect_unchanged(out, "timeseries.csv", &series);
}

/* -o "": no folder named is a usage error, not a walk past the path */
Test(cli, an_empty_output_folder_is_a_usage_error)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", "experiments/incast-8to1.yaml", "-o", "", NULL});
	cr_expect_eq(p.code, 2, "exit %d, stderr: %s", p.code, p.err);
	cr_expect(starts(p.err, "rocesim: -o needs a folder"), "stderr: %s", p.err);
	ts_proc_free(&p);
}
