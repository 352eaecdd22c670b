/*
 * The command line as users and CI meet it: the built rocesim (ROCESIM_BIN)
 * is run from the source root (ROCESIM_SRC) with fork/exec, and its exit
 * code, stderr and output folder are checked. Every scenario in tests/bad/
 * must be refused with exit 2 and one line on stderr naming the file, the
 * line and the text its "# error:" comment gives, without writing anything.
 * Also: --set, --seed, --help, usage errors, atomic results.json.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("cli");
}

TestSuite(cli, .init = setup, .fini = ts_proc_teardown, .timeout = 60);

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

/* Does @dir hold a file whose name ends in ".tmp"? */
static int has_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		found |= len >= 4 && !strcmp(e->d_name + len - 4, ".tmp");
	}
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
		snprintf(prefix, sizeof(prefix), "rocesim: %.*s", (int)strcspn(want, ":") + 1, want);
	cr_expect(starts(p->err, prefix), "%s: stderr does not start with \"%s\": %s", file,
		  prefix, p->err);
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
		cr_assert(!strncmp(text, "# error: ", 9), "%s does not open with \"# error: \"", file);
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
	cr_expect(starts(p.err, "rocesim: --set: expect.dropz: unknown metric"),
		  "stderr: %s", p.err);
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
	static const char *const words[] = {"run",	 "-o",	       "--out",	 "--set",
					    "--seed",	 "--progress", "--quiet", "--help",
					    "--version", "exit codes", NULL};
	const char *forms[] = {"--help", "-h", "help"};

	for (size_t i = 0; i < 3; i++) {
		struct ts_proc p;

		ts_exec(&p, (const char *[]){forms[i], NULL});
		cr_expect_eq(p.code, 0, "%s: exit %d", forms[i], p.code);
		cr_expect_str_empty(p.err, "%s: stderr: %s", forms[i], p.err);
		for (const char *const *w = words; *w; w++)
			cr_expect(strstr(p.out, *w), "%s does not mention %s", forms[i], *w);
		ts_proc_free(&p);
	}
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
		{"run", "tests/good/two-flows.yaml", "--progress", "--quiet", NULL},
	};
	static const char *const says[] = {
		"unknown verb \"frobnicate\"", "a verb is needed", "needs a scenario file",
		"unknown option \"--bogus\"", "--set needs KEY=VALUE", "-o needs a folder",
		"one scenario at a time", "exclude each other",
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

/* Run rocesim with @args, killed by SIGALRM if it is still there after 5 s. */
static void exec_bounded(struct ts_proc *p, const char *const *args)
{
	const struct ts_opts o = {.timeout_s = 5};

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

/* up to 16 runs of 5 s each when they hang */
Test(cli, a_fifo_is_refused_at_once_wherever_it_is_named, .timeout = 120)
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
