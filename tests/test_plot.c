/*
 * rocesim plot as users meet it: the built rocesim (ROCESIM_BIN) runs a
 * tiny scenario in which every picture applies (PFC pauses with
 * output.pfc_events on, DCQCN reacting to ECN marks), then draws it from
 * the source root (ROCESIM_SRC), where it finds plots/. Checked: the PNGs
 * (and SVGs) exist and are pictures, the printed list, the thresholds
 * drawn when results.json gives them, and exit 2 with one clear line for a
 * missing OUTDIR, a missing gnuplot, a failing script and bad usage. A
 * tiny collective run (no flows) gets ranks.png, the incast run does not.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct proc {
	int code; /* exit code, or -1 when killed by a signal */
	char *out, *err;
};

static char tmpdir[64];

static const char tiny_yaml[] = "name: tiny\n"
				"topology: {kind: star, hosts: 3}\n"
				"switch:\n"
				"  pfc: {xoff: 40KB}\n"
				"  ecn: {kmin: 20KB, kmax: 200KB}\n"
				"nic: {cc: dcqcn}\n"
				"workload: {kind: incast, senders: 2, size: 1MB}\n"
				"output: {sample: 5us, pfc_events: true}\n";

static const char coll_yaml[] = "name: coll\n"
				"topology: {kind: star, hosts: 4}\n"
				"workload: {kind: allreduce, size: 4MB}\n";

/* Two collectives run together: one panel each in ranks.png. */
static const char two_colls_yaml[] = "name: two\n"
				     "topology: {kind: star, hosts: 4}\n"
				     "workload:\n"
				     "  - {kind: allreduce, size: 2MB}\n"
				     "  - {kind: alltoall, size: 1MB, iterations: 2}\n";

static const char *const pictures[] = {"queues", "pfc", "rates", "flows"};

/* Read all of @path into a NUL-terminated string (NULL if it cannot be read). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *b;

			cap = cap ? cap * 2 : 8192;
			b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Remove @path and, if it is a folder, all it holds. */
static void rm_tree(const char *path)
{
	struct stat st;
	DIR *dir;
	struct dirent *e;
	char sub[4096];

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		rm_tree(sub);
	}
	if (dir)
		closedir(dir);
	rmdir(path);
}

static void setup(void)
{
	const char *src = getenv("ROCESIM_SRC");

	cr_assert(getenv("ROCESIM_BIN"), "ROCESIM_BIN is not set (run through meson test)");
	cr_assert(src, "ROCESIM_SRC is not set (run through meson test)");
	cr_assert_eq(chdir(src), 0, "cannot enter %s", src);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rocesim-plot-XXXXXX");
	cr_assert(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
	if (tmpdir[0])
		rm_tree(tmpdir);
}

TestSuite(plot, .init = setup, .fini = teardown, .timeout = 60);

/* A path under the test's temporary folder. */
static const char *tmp(const char *name)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

/*
 * Run rocesim with @args (NULL-terminated, without argv[0]) from the source
 * root, with the environment variable @env set to @val when @env is given;
 * stdout and stderr go to files in tmpdir and are read back.
 */
static void run_env(struct proc *p, const char *env, const char *val, const char *const *args)
{
	const char *argv[64];
	char outf[300], errf[300];
	int n = 0, status;
	pid_t pid;

	argv[n++] = getenv("ROCESIM_BIN");
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	snprintf(outf, sizeof(outf), "%s/.stdout", tmpdir);
	snprintf(errf, sizeof(errf), "%s/.stderr", tmpdir);
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		int o = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		close(o);
		close(e);
		if (env && setenv(env, val, 1))
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	p->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	p->out = slurp(outf);
	p->err = slurp(errf);
	cr_assert(p->out && p->err, "cannot read the output of %s", argv[0]);
}

static void run(struct proc *p, const char *const *args)
{
	run_env(p, NULL, NULL, args);
}

static void proc_free(struct proc *p)
{
	free(p->out);
	free(p->err);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Run the tiny scenario into tmpdir/out; returns that folder. */
static const char *tiny_run(void)
{
	static char out[512];
	const char *scn = tmp("tiny.yaml");
	struct proc p;
	char *events;

	snprintf(out, sizeof(out), "%s", tmp("out"));
	write_file(scn, tiny_yaml);
	run(&p, (const char *const[]){"run", scn, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "rocesim run failed (%d): %s", p.code, p.err);
	proc_free(&p);
	/* the scenario must make every picture apply */
	events = slurp(tmp("out/pfc_events.csv"));
	cr_assert(events, "no pfc_events.csv");
	cr_assert(strstr(events, ",paused"), "the tiny scenario paused no port");
	free(events);
	events = slurp(tmp("out/qp_rates.csv"));
	cr_assert(events, "no qp_rates.csv");
	cr_assert_gt(count_lines(events), 1, "no QP reacted in the tiny scenario");
	free(events);
	return out;
}

/* Run the scenario @yaml into tmpdir/@name; returns that folder. */
static const char *scenario_run(const char *name, const char *yaml)
{
	static char out[512];
	char scn[300];
	struct proc p;

	snprintf(scn, sizeof(scn), "%s.yaml", tmp(name));
	snprintf(out, sizeof(out), "%s", tmp(name));
	write_file(scn, yaml);
	run(&p, (const char *const[]){"run", scn, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "rocesim run failed (%d): %s", p.code, p.err);
	proc_free(&p);
	return out;
}

/* @path is a non-empty PNG. */
static void assert_png(const char *path)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	unsigned char head[8];
	struct stat st;
	FILE *f;

	cr_assert_eq(stat(path, &st), 0, "%s was not written", path);
	cr_assert_gt(st.st_size, 1000, "%s is only %lld bytes", path, (long long)st.st_size);
	f = fopen(path, "rb");
	cr_assert(f);
	cr_assert_eq(fread(head, 1, 8, f), 8);
	fclose(f);
	cr_assert(!memcmp(head, sig, 8), "%s does not start with the PNG signature", path);
}

/* No temporary .plot-* folder is left in @dir. */
static void assert_no_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert(d);
	while ((e = readdir(d)))
		cr_expect(strncmp(e->d_name, ".plot", 5), "%s/%s was left behind", dir, e->d_name);
	closedir(d);
}

Test(plot, draws_every_picture_of_a_run_as_png_and_lists_them)
{
	const char *out = tiny_run();
	char path[300];
	struct proc p;

	run(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 4, "stdout: %s", p.out);
	for (size_t i = 0; i < sizeof(pictures) / sizeof(*pictures); i++) {
		snprintf(path, sizeof(path), "%s/%s.png", out, pictures[i]);
		assert_png(path);
		cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
		snprintf(path, sizeof(path), "%s/%s.svg", out, pictures[i]);
		cr_expect(access(path, F_OK), "%s written without --svg", path);
	}
	/* no collective: ranks.png is skipped, on one line */
	cr_expect(access(tmp("out/ranks.png"), F_OK),
		  "ranks.png drawn for a run without collective");
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "no collective") && strstr(p.err, "ranks.png skipped"),
		  "stderr: %s", p.err);
	assert_no_leftovers(out);
	proc_free(&p);
}

Test(plot, svg_adds_svg_pictures)
{
	const char *out = tiny_run();
	char path[300], *svg;
	struct proc p;

	run(&p, (const char *const[]){"plot", out, "--svg", "--top", "2", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 8, "stdout: %s", p.out);
	for (size_t i = 0; i < sizeof(pictures) / sizeof(*pictures); i++) {
		snprintf(path, sizeof(path), "%s/%s.svg", out, pictures[i]);
		svg = slurp(path);
		cr_assert(svg, "%s was not written", path);
		cr_expect(strstr(svg, "<svg"), "%s is not an SVG", path);
		free(svg);
	}
	/* the labels of the pictures say what they show */
	svg = slurp(tmp("out/queues.svg"));
	cr_expect(strstr(svg, "sw0:h2 prio 3"), "queues.svg does not name the hot port");
	cr_expect(strstr(svg, "time (us)"));
	free(svg);
	svg = slurp(tmp("out/pfc.svg"));
	cr_expect(strstr(svg, "h0:sw0") || strstr(svg, "h1:sw0"), "pfc.svg names no paused port");
	free(svg);
	svg = slurp(tmp("out/rates.svg"));
	cr_expect(strstr(svg, "flow 0 h0-&gt;h2") || strstr(svg, "flow 0 h0->h2"),
		  "rates.svg does not name flow 0");
	cr_expect(strstr(svg, "rate (Gb/s)"));
	free(svg);
	proc_free(&p);
}

/* Thresholds are drawn when results.json carries them ("config"). */
Test(plot, thresholds_in_results_are_drawn)
{
	const char *out = tiny_run();
	json_error_t je;
	json_t *res;
	struct proc p;
	char *svg;

	res = json_load_file(tmp("out/results.json"), 0, &je);
	cr_assert(res, "results.json: %s", je.text);
	cr_assert_eq(json_object_set_new(json_object_get(res, "summary"), "config",
					 json_pack("{s:i,s:i,s:i}", "ecn_kmin", 20000, "ecn_kmax",
						   200000, "pfc_xoff", 40000)),
		     0);
	cr_assert_eq(json_dump_file(res, tmp("out/results.json"), 0), 0);
	json_decref(res);
	run(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	svg = slurp(tmp("out/queues.svg"));
	cr_assert(svg);
	cr_expect(strstr(svg, "ECN kmin 20 KB"), "no kmin line in queues.svg");
	cr_expect(strstr(svg, "ECN kmax 200 KB"), "no kmax line in queues.svg");
	cr_expect(strstr(svg, "PFC XOFF 40 KB"), "no XOFF line in queues.svg");
	free(svg);
	proc_free(&p);
}

Test(plot, pictures_without_their_csv_are_skipped_with_a_note)
{
	const char *out = tiny_run();
	struct proc p;

	cr_assert_eq(unlink(tmp("out/pfc_events.csv")), 0);
	cr_assert_eq(unlink(tmp("out/qp_rates.csv")), 0);
	run(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	assert_png(tmp("out/queues.png"));
	assert_png(tmp("out/flows.png"));
	cr_expect(access(tmp("out/pfc.png"), F_OK));
	cr_expect(access(tmp("out/rates.png"), F_OK));
	cr_expect(strstr(p.err, "pfc_events.csv"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "qp_rates.csv"), "stderr: %s", p.err);
	cr_expect_eq(count_lines(p.out), 2, "stdout: %s", p.out);
	proc_free(&p);
}

Test(plot, a_missing_outdir_exits_2_on_one_line)
{
	struct proc p;

	run(&p, (const char *const[]){"plot", tmp("nothing-here"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "nothing-here"), "stderr: %s", p.err);
	proc_free(&p);
}

Test(plot, a_folder_without_results_exits_2_on_one_line)
{
	struct proc p;

	cr_assert_eq(mkdir(tmp("empty"), 0755), 0);
	run(&p, (const char *const[]){"plot", tmp("empty"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "results.json"), "stderr: %s", p.err);
	proc_free(&p);
}

Test(plot, without_gnuplot_exits_2_and_says_how_to_install_it)
{
	const char *out = tiny_run();
	struct proc p;

	cr_assert_eq(mkdir(tmp("empty-path"), 0755), 0);
	run_env(&p, "PATH", tmp("empty-path"), (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot is not installed"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot-nox"), "stderr: %s", p.err);
	cr_expect_str_empty(p.out);
	assert_no_leftovers(out);
	proc_free(&p);
}

/* A script that gnuplot refuses: exit 2 with gnuplot's own message. */
Test(plot, a_failing_script_exits_2_with_gnuplots_message)
{
	static const char *const scripts[] = {"queues.gp", "pfc.gp", "rates.gp", "flows.gp",
					      "ranks.gp"};
	const char *out = tiny_run();
	char src[64], *text;
	struct proc p;

	cr_assert_eq(mkdir(tmp("plots"), 0755), 0);
	for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++) {
		snprintf(src, sizeof(src), "plots/%s", scripts[i]);
		text = slurp(src);
		cr_assert(text, "cannot read %s", src);
		write_file(tmp(src), text);
		free(text);
	}
	write_file(tmp("plots/rates.gp"), "plot no_such_function(x)\n");
	run_env(&p, "ROCESIM_PLOTS", tmp("plots"), (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot failed"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "no_such_function"), "stderr: %s", p.err);
	cr_expect(access(tmp("out/rates.png"), F_OK), "rates.png written though gnuplot failed");
	assert_no_leftovers(out);
	proc_free(&p);
}

Test(plot, help_exits_0_and_names_the_options_and_the_script_folders)
{
	struct proc p;

	run(&p, (const char *const[]){"plot", "--help", NULL});
	cr_expect_eq(p.code, 0);
	cr_expect(strstr(p.out, "--svg"));
	cr_expect(strstr(p.out, "--top"));
	cr_expect(strstr(p.out, "ROCESIM_PLOTS"));
	cr_expect(strstr(p.out, "ranks.png"));
	cr_expect(strstr(p.out, "the first 4"), "--help does not say which collectives are drawn");
	proc_free(&p);
}

Test(plot, usage_errors_exit_2)
{
	const char *const *const cases[] = {
	    (const char *const[]){"plot", NULL},
	    (const char *const[]){"plot", "out/x", "--top", "0", NULL},
	    (const char *const[]){"plot", "out/x", "--top", "many", NULL},
	    (const char *const[]){"plot", "out/x", "--top", NULL},
	    (const char *const[]){"plot", "out/x", "--png", NULL},
	    (const char *const[]){"plot", "out/x", "out/y", NULL},
	};
	struct proc p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		run(&p, cases[i]);
		cr_expect_eq(p.code, 2, "case %zu exited %d", i, p.code);
		cr_expect(strstr(p.err, "usage: rocesim plot"), "case %zu: %s", i, p.err);
		proc_free(&p);
	}
}

/* A collective run: ranks.png (and with --svg ranks.svg) says what ran. */
Test(plot, a_collective_run_gets_ranks_png)
{
	const char *out = scenario_run("coll", coll_yaml);
	char *svg;
	struct proc p;

	run(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	assert_png(tmp("coll/ranks.png"));
	cr_expect(strstr(p.out, tmp("coll/ranks.png")), "ranks.png is not in the list: %s", p.out);
	/* a collective has no flows[]: flows.png stays skipped */
	cr_expect(access(tmp("coll/flows.png"), F_OK), "flows.png drawn without flows");
	cr_expect(strstr(p.err, "flows.png skipped"), "stderr: %s", p.err);
	cr_expect_null(strstr(p.err, "ranks.png skipped"), "stderr: %s", p.err);
	assert_no_leftovers(out);
	proc_free(&p);

	run(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	svg = slurp(tmp("coll/ranks.svg"));
	cr_assert(svg, "ranks.svg was not written");
	cr_expect(strstr(svg, "collective progress per rank"), "ranks.svg has no title");
	cr_expect(strstr(svg, "allreduce of 4 MB over 4 ranks, busbw "),
		  "ranks.svg does not name the collective");
	cr_expect(strstr(svg, "the collective took "), "ranks.svg has no completion time");
	free(svg);
	proc_free(&p);
}

Test(plot, several_collectives_get_one_panel_each)
{
	const char *out = scenario_run("two", two_colls_yaml);
	char *svg;
	struct proc p;

	run(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	assert_png(tmp("two/ranks.png"));
	svg = slurp(tmp("two/ranks.svg"));
	cr_assert(svg, "ranks.svg was not written");
	cr_expect(strstr(svg, "allreduce of 2 MB over 4 ranks"), "no allreduce panel");
	cr_expect(strstr(svg, "alltoall of 1 MB over 4 ranks"), "no alltoall panel");
	cr_expect(strstr(svg, "the last of 2 iterations"), "the iterations are not said");
	free(svg);
	proc_free(&p);
}

/* A ranks.png left by an earlier plot goes when results.json has no collective. */
Test(plot, a_stale_ranks_png_is_removed)
{
	const char *out = scenario_run("coll", coll_yaml);
	json_error_t je;
	json_t *res;
	struct proc p;

	run(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	assert_png(tmp("coll/ranks.png"));
	proc_free(&p);
	res = json_load_file(tmp("coll/results.json"), 0, &je);
	cr_assert(res, "results.json: %s", je.text);
	cr_assert_eq(json_object_del(json_object_get(res, "summary"), "collective"), 0);
	cr_assert_eq(json_object_del(json_object_get(res, "summary"), "collectives"), 0);
	cr_assert_eq(json_dump_file(res, tmp("coll/results.json"), 0), 0);
	json_decref(res);
	run(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect(access(tmp("coll/ranks.png"), F_OK), "a stale ranks.png was left");
	cr_expect(access(tmp("coll/ranks.svg"), F_OK), "a stale ranks.svg was left");
	cr_expect(strstr(p.err, "ranks.png skipped"), "stderr: %s", p.err);
	proc_free(&p);
}
