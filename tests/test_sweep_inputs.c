/*
 * rocesim sweep, what it reuses and what it runs, through the built
 * rocesim (ROCESIM_BIN): a finished run is reused only when every input
 * it read is unchanged (the cc_params file of experiments/ci/incast.yaml
 * edited, a file added to a cc_params folder, another version, a run
 * recorded by an older rocesim); --set and --with applied to every run and
 * recorded; a point the scenario's checks refuse recorded as refused while
 * the others run; the table in units for people.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("sweep-inputs");
}

TestSuite(sweep_inputs, .init = setup, .fini = ts_proc_teardown, .timeout = 300);

/* The temporary @name's path, in one of 32 buffers (ts_tmp's 8 rotate
 * too soon for a test's paths). */
static const char *tmp_path(const char *name)
{
	static char paths[32][600];
	static unsigned next;
	char *path = paths[next++ % 32];

	snprintf(path, sizeof(paths[0]), "%s", ts_tmp(name));
	return path;
}

static const char *write_tmp(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return tmp_path(name);
}

/* Copy the file @from to the temporary @name; its path. */
static const char *copy_tmp(const char *from, const char *name)
{
	char *text = ts_slurp(from);
	const char *path;

	cr_assert(text, "cannot read %s", from);
	path = write_tmp(name, text);
	free(text);
	return path;
}

static int count_progress(const char *err)
{
	int n = 0;

	for (const char *p = err; (p = strstr(p, "rocesim sweep: [")); p++)
		n++;
	return n;
}

/* Field @name of the row of @csv whose id is @id (a static copy). */
static const char *cell(const char *csv, const char *id, const char *name)
{
	static char buf[512];
	const char *row = NULL;
	int col = -1, i = 0;
	size_t len = strlen(id);

	for (const char *h = csv; *h && *h != '\n'; i++) {
		size_t l = strcspn(h, ",\n");

		if (l == strlen(name) && !strncmp(h, name, l)) {
			col = i;
			break;
		}
		h += l + (h[l] == ',');
	}
	cr_assert_geq(col, 0, "no column %s in\n%s", name, csv);
	for (const char *l = csv; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, id, len) && l[len] == ',')
			row = l;
	cr_assert(row, "no row %s in\n%s", id, csv);
	for (i = 0; i < col; i++) {
		if (*row == '"') /* a quoted field: to its closing quote */
			row = strchr(row + 1, '"') + 1;
		row = strchr(row, ',') + 1;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(row, ",\n"), row);
	return buf;
}

/* Replace the first @from in the file @path by @to. */
static void edit(const char *path, const char *from, const char *to)
{
	char *text = ts_slurp(path), *at;
	FILE *f;

	cr_assert(text, "cannot read %s", path);
	at = strstr(text, from);
	cr_assert(at, "no \"%s\" in %s", from, path);
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	cr_assert_eq(fclose(f), 0);
	free(text);
}

/*
 * The case seen: sweep experiments/ci/incast.yaml into a folder, change
 * rp_gd in the cc_params.txt it names, sweep into the same folder. Every
 * run ran again and the table shows the new figures: 48 and 50 PAUSE
 * frames on seeds 1 and 2 with rp_gd 11, 236 on both with rp_gd 15; a
 * third sweep reuses both. With the cc_params read as that report read
 * them (CNPs spaced per QP, rp_byte_reset in 64-byte units), given with
 * --set: the figures of the report.
 */
Test(sweep_inputs, cc_params_edit_reruns_every_run)
{
	const char *scn = copy_tmp("experiments/ci/incast.yaml", "incast.yaml");
	const char *cc = copy_tmp("experiments/ci/cc_params.txt", "cc_params.txt");
	const char *out = tmp_path("incast");
	const char *const args[] = {"sweep",
				    scn,
				    "--seeds",
				    "2",
				    "-j",
				    "2",
				    "-o",
				    out,
				    "--progress",
				    "--set",
				    "nic.dcqcn.cnp_scope=qp",
				    "--set",
				    "nic.dcqcn.byte_reset_unit=64B",
				    NULL};
	struct ts_proc p;
	char *csv;

	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "runs       2 (1 point x 2 seeds): 2 ran, 0 reused"), "%s", p.out);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("incast/sweep.csv"));
	cr_assert(csv);
	cr_expect_str_eq(cell(csv, "p001-s1", "pfc_pause_frames"), "48");
	cr_expect_str_eq(cell(csv, "p001-s2", "pfc_pause_frames"), "50");
	free(csv);

	edit(cc, "rp_gd:11", "rp_gd:15");
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_progress(p.err), 2, "every run runs again:\n%s", p.err);
	cr_expect(strstr(p.out, "2 ran, 0 reused"), "%s", p.out);
	cr_expect(strstr(p.out, "rerun      2 finished before with other inputs (nic.cc_params"),
		  "%s", p.out);
	cr_expect(strstr(p.out, "cc_params.txt changed)"), "%s", p.out);
	cr_expect(ts_line_with(p.out, "p001   2/2 ", " 236 ± 0 "), "the table:\n%s", p.out);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("incast/sweep.csv"));
	cr_assert(csv);
	cr_expect_str_eq(cell(csv, "p001-s1", "pfc_pause_frames"), "236");
	cr_expect_str_eq(cell(csv, "p001-s2", "pfc_pause_frames"), "236");
	free(csv);

	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_progress(p.err), 0, "nothing changed:\n%s", p.err);
	cr_expect(strstr(p.out, "0 ran, 2 reused"), "%s", p.out);
	ts_proc_free(&p);
}

static const char tiny_cc_yaml[] = "name: tinycc\n"
				   "topology: {kind: star, hosts: 2}\n"
				   "nic: {cc_params: ccdir}\n"
				   "workload:\n"
				   "  kind: flows\n"
				   "  flows:\n"
				   "    - {src: h0, dst: h1, size: 64KB}\n";

/* Set "inputs.version" of a run's point.json to @v (NULL: drop "inputs",
 * as an older rocesim wrote it). */
static void set_version(const char *dir, const char *id, const char *v)
{
	char path[600];
	json_t *j;

	snprintf(path, sizeof(path), "%s/points/%s/point.json", dir, id);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "cannot read %s", path);
	cr_assert(json_is_object(json_object_get(j, "inputs")), "no inputs in %s", path);
	if (v)
		json_object_set_new(json_object_get(j, "inputs"), "version", json_string(v));
	else
		json_object_del(j, "inputs");
	cr_assert_eq(json_dump_file(j, path, JSON_INDENT(2)), 0);
	json_decref(j);
}

/* A cc_params folder: a file added to it is an input; so are the version
 * and a run recorded without digests. */
Test(sweep_inputs, folder_version_and_old_records_rerun)
{
	const char *scn = write_tmp("tinycc.yaml", tiny_cc_yaml), *out = tmp_path("tinycc");
	const char *const args[] = {"sweep",	  scn, "--vary", "switch.ecn.kmin=50KB,100KB",
				    "-j",	  "2", "-o",	 out,
				    "--progress", NULL};
	struct ts_proc p;
	char *pj;

	cr_assert_eq(mkdir(ts_tmp("ccdir"), 0777), 0);
	write_tmp("ccdir/rp_gd", "11\n");
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_progress(p.err), 2, "%s", p.err);
	ts_proc_free(&p);
	/* point.json holds the provenance the run recorded: the folder's file */
	pj = ts_slurp(ts_tmp("tinycc/points/p001-s1/point.json"));
	cr_assert(pj);
	cr_expect(strstr(pj, "ccdir/rp_gd"), "%s", pj);
	cr_expect(strstr(pj, "\"version\""), "%s", pj);
	free(pj);

	write_tmp("ccdir/rp_ai_rate", "5\n");
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_progress(p.err), 2, "%s", p.err);
	cr_expect(strstr(p.out, "ccdir/rp_ai_rate is a new input"), "%s", p.out);
	ts_proc_free(&p);

	set_version(out, "p002-s1", "0.0.1");
	set_version(out, "p001-s1", NULL);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_progress(p.err), 2, "%s", p.err);
	cr_expect(strstr(p.out, "2 ran, 0 reused"), "%s", p.out);
	cr_expect(strstr(p.out, "no input digests recorded"), "%s", p.out);
	ts_proc_free(&p);
	set_version(out, "p002-s1", "0.0.1");
	ts_exec(&p, args);
	cr_expect(strstr(p.out, "1 ran, 1 reused"), "%s", p.out);
	cr_expect(strstr(p.out, "rocesim's version changed (0.0.1 -> "), "%s", p.out);
	ts_proc_free(&p);
}

static const char tiny_yaml[] = "name: tiny\n"
				"topology: {kind: star, hosts: 2}\n"
				"switch: {ecn: {kmin: 100KB, kmax: 400KB}}\n"
				"workload:\n"
				"  kind: flows\n"
				"  flows:\n"
				"    - {src: h0, dst: h1, size: 64KB}\n";

/* --set and --with reach every run, are recorded, and are inputs. */
Test(sweep_inputs, set_and_with_apply_to_every_run)
{
	const char *scn = write_tmp("tiny.yaml", tiny_yaml), *out = tmp_path("sw");
	const char *ov = write_tmp("long.yaml", "topology: {link: {cable: 200m}}\n");
	const char *const base[] = {
	    "sweep",	       scn,	  "--vary", "switch.ecn.pmax=10%,20%", "-o",
	    tmp_path("plain"), "--quiet", NULL};
	const char *const args[] = {"sweep",  scn, "--vary",	 "switch.ecn.pmax=10%,20%",
				    "--with", ov,  "--set",	 "nic.mtu=1024",
				    "-o",     out, "--progress", NULL};
	struct ts_proc p;
	char *csv, *plain, *spec, *pj;
	json_t *j;

	ts_exec(&p, base);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect_eq(count_progress(p.err), 2, "%s", p.err);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("sw/sweep.csv"));
	plain = ts_slurp(ts_tmp("plain/sweep.csv"));
	cr_assert(csv && plain);
	/* 200 m of cable each way: 2 x 1 us more than 2 m */
	cr_expect_gt(atof(cell(csv, "p002-s1", "fct_us.p99")),
		     atof(cell(plain, "p002-s1", "fct_us.p99")) + 1.9, "%s\n%s", csv, plain);
	free(csv);
	free(plain);
	spec = ts_slurp(ts_tmp("sw/sweep.json"));
	j = json_loads(spec, 0, NULL);
	cr_assert(j, "%s", spec);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(j, "set"), 0)),
			 "nic.mtu=1024");
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_array_get(json_object_get(j, "with"), 0), "path")),
			 ov);
	json_decref(j);
	free(spec);
	pj = ts_slurp(ts_tmp("sw/points/p001-s1/point.json"));
	cr_assert(pj);
	cr_expect(strstr(pj, "\"nic.mtu=1024\""), "%s", pj);
	cr_expect(strstr(pj, "long.yaml"), "%s", pj);
	free(pj);
	/* the overlay edited: every run again */
	edit(ov, "200m", "300m");
	ts_exec(&p, args);
	cr_expect_eq(count_progress(p.err), 2, "%s", p.err);
	cr_expect(strstr(p.out, "long.yaml changed"), "%s", p.out);
	ts_proc_free(&p);
	/* another --set: every run again */
	ts_exec(&p,
		(const char *const[]){"sweep", scn, "--vary", "switch.ecn.pmax=10%,20%", "--with",
				      ov, "--set", "nic.mtu=2048", "-o", out, "--progress", NULL});
	cr_expect_eq(count_progress(p.err), 2, "%s", p.err);
	ts_proc_free(&p);
	/* a key both set and varied is refused */
	ts_exec(&p,
		(const char *const[]){"sweep", scn, "--vary", "switch.ecn.pmax=10%,20%", "--set",
				      "switch.ecn.pmax=5%", "-o", tmp_path("both"), NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "--set: switch.ecn.pmax: is also an axis"), "%s", p.err);
	cr_expect(access(ts_tmp("both"), F_OK), "the folder was made");
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--with", tmp_path("none.yaml"), "-o",
					  tmp_path("both"), NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "none.yaml: cannot read (--with)"), "%s", p.err);
	ts_proc_free(&p);
}

/* kmax 50 KB is below the scenario's kmin 100 KB: that point is refused
 * with its reason, the others run; all refused refuses the sweep. */
Test(sweep_inputs, refused_point_recorded_and_the_rest_run)
{
	const char *scn = write_tmp("tiny.yaml", tiny_yaml), *out = tmp_path("ref");
	struct ts_proc p;
	char *csv, *sum, *spec;
	json_t *j;

	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmax=50KB,200KB,1MB",
					  "-j", "2", "-o", out, NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "sweep point p001 (switch.ecn.kmax=50KB) refused, the others "
				"run: --set: switch.ecn.kmax: kmin (100000 B) must not be "
				"above kmax (50000 B)"),
		  "%s", p.err);
	cr_expect(strstr(p.out, "\np001   50KB          0/1    refused: --set: switch.ecn.kmax"),
		  "%s", p.out);
	cr_expect(strstr(p.out, "runs       3 (3 points x 1 seed): 2 ran, 0 reused, 1 refused"),
		  "%s", p.out);
	ts_proc_free(&p);
	csv = ts_slurp(ts_tmp("ref/sweep.csv"));
	cr_assert(csv);
	cr_expect_str_eq(cell(csv, "p001-s1", "status"), "refused");
	cr_expect(strstr(cell(csv, "p001-s1", "error"), "must not be above kmax"), "%s", csv);
	cr_expect_str_eq(cell(csv, "p002-s1", "status"), "ok");
	cr_expect_str_eq(cell(csv, "p003-s1", "status"), "ok");
	free(csv);
	sum = ts_slurp(ts_tmp("ref/summary.csv"));
	cr_assert(sum);
	cr_expect(!strncmp(sum, "point,switch.ecn.kmax,runs,failed,refused,", 42), "%s", sum);
	cr_expect(strstr(sum, "\np001,50KB,0,0,--set: switch.ecn.kmax: kmin"), "%s", sum);
	cr_expect(strstr(sum, "\np002,200KB,1,0,,"), "%s", sum);
	free(sum);
	spec = ts_slurp(ts_tmp("ref/sweep.json"));
	j = json_loads(spec, 0, NULL);
	cr_assert(j, "%s", spec);
	cr_expect(strstr(json_string_value(json_object_get(
			     json_array_get(json_object_get(j, "points"), 0), "refused")),
			 "must not be above kmax"),
		  "%s", spec);
	cr_expect(!json_object_get(json_array_get(json_object_get(j, "points"), 1), "refused"));
	json_decref(j);
	free(spec);
	/* --collect reads the refusal back from sweep.json */
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, NULL});
	cr_expect_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "refused: --set: switch.ecn.kmax"), "%s", p.out);
	ts_proc_free(&p);
	/* every point refused: nothing runs */
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmax=50KB,60KB", "-o",
					  tmp_path("allref"), NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "every point is refused"), "%s", p.err);
	cr_expect(access(ts_tmp("allref"), F_OK), "the folder was made");
	ts_proc_free(&p);
}

/* The table for people: sizes and times in units, counts that agree. */
Test(sweep_inputs, table_in_units)
{
	const char *scn = write_tmp("tiny.yaml", tiny_yaml);
	struct ts_proc p;

	ts_exec(&p,
		(const char *const[]){"sweep", scn, "--vary", "switch.ecn.pmax=10%,20%,30%",
				      "--seeds", "2", "-j", "2", "-o", tmp_path("units"), NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(!strstr(p.out, "e+"), "%s", p.out);
	cr_expect(strstr(p.out, " KB"), "max_queue_bytes in KB:\n%s", p.out);
	cr_expect(strstr(p.out, " us\n"), "fct_us.p99 in us:\n%s", p.out);
	cr_expect(strstr(p.out, "0 ± 0 us"), "%s", p.out);
	cr_expect(strstr(p.out, "runs       6 (3 points x 2 seeds): 6 ran, 0 reused"), "%s", p.out);
	ts_proc_free(&p);
}

static const char ci_yaml[] = "name: tinyci\n"
			      "topology: {kind: star, hosts: 3}\n"
			      "nic: {cc_params: cc_params.txt}\n"
			      "workload:\n"
			      "  kind: incast\n"
			      "  senders: 2\n"
			      "  size: 128KB\n";

/*
 * experiments/ci/run.sh copied into another folder (no repository around
 * it) with a scenario of its own, called from elsewhere: --update stores
 * the baseline beside the script, the next call passes against it, and
 * the outputs land where -o says, from where it was called.
 */
Test(sweep_inputs, ci_script_works_when_copied)
{
	char cmd[2000], *out = NULL, *err = NULL, *md;
	const char *bin = getenv("ROCESIM_BIN"), *repo = tmp_path("repo");
	int rc;

	cr_assert(bin);
	cr_assert_eq(mkdir(repo, 0777), 0);
	cr_assert_eq(mkdir(tmp_path("repo/ci"), 0777), 0);
	cr_assert_eq(mkdir(tmp_path("elsewhere"), 0777), 0);
	copy_tmp("experiments/ci/run.sh", "repo/ci/run.sh");
	write_tmp("repo/ci/tinyci.yaml", ci_yaml);
	write_tmp("repo/ci/cc_params.txt", "rp_gd:11\n");
	snprintf(cmd, sizeof(cmd), "cd %s && JOBS=2 sh ../repo/ci/run.sh -o o --update %s",
		 tmp_path("elsewhere"), bin);
	rc = ts_sh(cmd, &out, &err);
	cr_assert_eq(rc, 0, "(%d) %s\n%s", rc, out, err);
	cr_expect(strstr(out, "tinyci: baseline updated"), "%s", out);
	free(out);
	free(err);
	cr_expect(!access(tmp_path("repo/ci/baseline/tinyci/sweep.csv"), F_OK));
	cr_expect(!access(tmp_path("repo/ci/baseline/tinyci/sweep.json"), F_OK));
	snprintf(cmd, sizeof(cmd), "cd / && sh %s/ci/run.sh -o %s %s", repo,
		 tmp_path("elsewhere/o2"), bin);
	rc = ts_sh(cmd, &out, &err);
	cr_assert_eq(rc, 0, "(%d) %s\n%s", rc, out, err);
	cr_expect(strstr(out, "the DCQCN regression suite passed (tinyci)"), "%s", out);
	free(out);
	free(err);
	md = ts_slurp(tmp_path("elsewhere/o2/summary.md"));
	cr_assert(md, "no summary.md");
	cr_expect(strstr(md, "tinyci: 0 regressions"), "%s", md);
	free(md);
	cr_expect(!access(tmp_path("elsewhere/o2/tinyci.sarif"), F_OK));
	cr_expect(!access(tmp_path("elsewhere/o/tinyci/sweep.csv"), F_OK));
	/* another baseline folder (-b) without the sweep: said, exit 2 */
	snprintf(cmd, sizeof(cmd), "sh %s/ci/run.sh -o %s -b %s %s", repo, tmp_path("elsewhere/o3"),
		 tmp_path("elsewhere/none"), bin);
	rc = ts_sh(cmd, &out, &err);
	cr_expect_eq(rc, 2, "(%d) %s\n%s", rc, out, err);
	cr_expect(strstr(err, "no baseline in"), "%s", err);
	free(out);
	free(err);
}

/*
 * --slurm: each array task reads sweep.task.json (the spec without the
 * point list, the refused points alone), never sweep.json, whose size
 * grows with the runs; the memory each task asks for with --mem.
 */
Test(sweep_inputs, slurm_tasks_read_their_own_spec_and_ask_for_memory)
{
	const char *scn = write_tmp("tiny.yaml", tiny_yaml), *out = tmp_path("sl");
	char script[700], line[1400], *sbatch, *task, *err = NULL;
	struct ts_proc p;
	json_t *j, *pts;

	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmax=50KB,200KB,1MB",
					  "-o", out, "--slurm", "--mem", "512MiB", NULL});
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "  memory     512 MiB per task (--mem)\n"), "%s", p.out);
	ts_proc_free(&p);
	sbatch = ts_slurp(ts_tmp("sl/sweep.sbatch"));
	cr_assert(sbatch);
	cr_expect(strstr(sbatch, "\n#SBATCH --mem=512M\n"), "%s", sbatch);
	free(sbatch);
	task = ts_slurp(ts_tmp("sl/sweep.task.json"));
	cr_assert(task, "no sweep.task.json");
	j = json_loads(task, 0, NULL);
	cr_assert(j, "%s", task);
	cr_expect_eq(json_integer_value(json_object_get(j, "n_points")), 3);
	pts = json_object_get(j, "points");
	cr_assert_eq(json_array_size(pts), 1, "only the refused point: %s", task);
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(pts, 0), "index")), 0);
	cr_expect(!strstr(task, "\"overrides\""), "a point list: %s", task);
	json_decref(j);
	free(task);
	/* the tasks run with sweep.json out of the way: they do not read it */
	cr_assert_eq(rename(ts_tmp("sl/sweep.json"), ts_tmp("sl/sweep.json.away")), 0);
	snprintf(script, sizeof(script), "%s/sweep.sbatch", out);
	for (int k = 0; k < 3; k++) {
		snprintf(line, sizeof(line), "cd / && SLURM_ARRAY_TASK_ID=%d sh \"%s\"", k, script);
		cr_expect_eq(ts_sh(line, NULL, &err), 0, "task %d: %s", k, err);
		free(err);
		err = NULL;
	}
	cr_assert_eq(rename(ts_tmp("sl/sweep.json.away"), ts_tmp("sl/sweep.json")), 0);
	cr_expect(access(ts_tmp("sl/points/p001-s1"), F_OK), "the refused point ran");
	cr_expect(!access(ts_tmp("sl/points/p002-s1/results.json"), F_OK), "p002 did not run");
	ts_exec(&p, (const char *const[]){"sweep", "--collect", out, "--quiet", NULL});
	cr_expect_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	/* a task spec whose point count its axes do not give is refused */
	write_tmp("sl/sweep.task.json",
		  "{\"schema_version\": 1, \"scenario\": {\"path\": \"x.yaml\", \"sha256\": "
		  "\"0000000000000000000000000000000000000000000000000000000000000000\", "
		  "\"name\": \"x\"}, \"axes\": [], \"zip\": false, \"seeds\": [1], "
		  "\"n_points\": 7, \"points\": []}\n");
	ts_exec(&p, (const char *const[]){"sweep", "--task", "0", out, NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "sweep.task.json: n_points: 7 points, while its axes give 1"), "%s",
		  p.err);
	ts_proc_free(&p);
	/* a scenario path that is not UTF-8 cannot reach the tasks exactly */
	cr_assert_eq(mkdir(tmp_path("u\xff"), 0777), 0);
	write_tmp("u\xff/tiny.yaml", tiny_yaml);
	ts_exec(&p, (const char *const[]){"sweep", tmp_path("u\xff/tiny.yaml"), "--vary",
					  "switch.ecn.kmax=200KB,1MB", "-o", tmp_path("slu"),
					  "--slurm", NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "\\xff/tiny.yaml is not UTF-8"), "%s", p.err);
	cr_expect(access(ts_tmp("slu"), F_OK), "the folder was made");
	ts_proc_free(&p);
	/* --mem belongs to --slurm, and is a size */
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmax=200KB,1MB", "-o",
					  tmp_path("nosl"), "--mem", "2GB", NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "--mem goes with --slurm"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"sweep", scn, "--vary", "switch.ecn.kmax=200KB,1MB", "-o",
					  tmp_path("nosl"), "--slurm", "--mem", "12", NULL});
	cr_expect_eq(p.code, 2, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.err, "--mem needs a size of at least 1MiB"), "%s", p.err);
	ts_proc_free(&p);
}

/*
 * A sweep's runs write without fsync (ROCESIM_NO_SYNC=1 in their
 * environment) and the sweep syncs its folder once at its end; a machine
 * that stops before then may leave a results.json of zeros in place. Such
 * a run is not reused: it runs again.
 */
Test(sweep_inputs, a_results_json_of_zeros_runs_again)
{
	const char *scn = write_tmp("tiny.yaml", tiny_yaml), *out = tmp_path("zeros");
	const char *args[] = {"sweep", scn, "--vary", "switch.ecn.kmax=200KB,1MB", "-o", out, NULL};
	struct ts_proc p;
	struct stat st;
	char cmd[1400], *text;

	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	ts_proc_free(&p);
	cr_assert_eq(stat(ts_tmp("zeros/points/p001-s1/results.json"), &st), 0);
	snprintf(cmd, sizeof(cmd), "head -c %lld /dev/zero > '%s'", (long long)st.st_size,
		 ts_tmp("zeros/points/p001-s1/results.json"));
	cr_assert_eq(ts_sh(cmd, NULL, NULL), 0);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(strstr(p.out, "runs       2 (2 points x 1 seed): 1 ran, 1 reused"), "%s", p.out);
	ts_proc_free(&p);
	text = ts_slurp(ts_tmp("zeros/points/p001-s1/results.json"));
	cr_expect(text && text[0] == '{', "not written again");
	free(text);
}
