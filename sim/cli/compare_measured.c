/*
 * rocesim compare --measured DIR RUN: the bus bandwidth nccl-tests measured
 * (DIR: its output, or a folder of measured files, measured_dir.h, whose
 * nccl-tests files are each compared) beside a simulated nccl_tests run,
 * size by size, with their ratio (sim/study/compare_measured.h). A table,
 * or --json. Exit 0, 2 bad input or usage.
 */
#include "sim/cli/compare_measured.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cli/cli.h"
#include "sim/engine/textsafe.h"
#include "sim/readers/measured_dir.h"
#include "sim/study/compare_measured.h"

const char cmp_measured_usage[] =
    "\n"
    "rocesim compare --measured DIR RUN [--json] [--junit FILE] [--markdown FILE]\n"
    "                [--tolerance PCT%]\n"
    "  What the lab measured beside RUN, a simulated run (its folder or\n"
    "  results.json). DIR is a folder of measured files (NODE.KIND[.before|.after],\n"
    "  docs/measured.md) or one nccl-tests output. The NIC counters (ethtool -S,\n"
    "  hw_counters) are paired with the run's host NODE, the switch counters\n"
    "  (pfcstat, queuestat) with switch NODE's port of that name (or the port\n"
    "  NODE:PEER): measured, simulated, their ratio, then the largest\n"
    "  disagreements (by |ln((sim+10)/(measured+10))|), then every counter not\n"
    "  compared and why. nccl-tests output beside a workload.kind: nccl_tests run:\n"
    "  per size, the measured and simulated busbw (out of place, GB/s), their\n"
    "  ratio simulated/measured, and the times; sizes one side alone has are\n"
    "  listed as such.\n"
    "  --junit FILE, --markdown FILE  reports, as compare writes them (counters)\n"
    "  --tolerance PCT%  a counter further apart than PCT% (with the floor of 10)\n"
    "                    fails its JUnit case and makes the exit code 1\n"
    "  exit codes: 0; 1 a counter beyond --tolerance; 2 bad input or usage;\n"
    "              3 a report that cannot be written\n";

#define P "rocesim: compare: "
#define SHOWN 1024

static void cm_print(const struct cm_table *t)
{
	char a[SHOWN], b[SHOWN];

	printf("# measured %s (%s, %d ranks listed) beside %s (%s, %d ranks)\n",
	       txt_term(a, sizeof(a), t->measured), t->binary[0] ? t->binary : "binary not named",
	       t->measured_ranks, txt_term(b, sizeof(b), t->run), t->collective,
	       t->simulated_ranks);
	printf("%14s %15s %16s %13s %17s %18s\n", "size", "measured_busbw", "simulated_busbw",
	       "sim/measured", "measured_time_us", "simulated_time_us");
	for (size_t i = 0; i < t->n; i++) {
		const struct cm_row *r = &t->rows[i];
		char mb[32] = "-", sb[32] = "-", ra[32] = "-", mt[32] = "-", st[32] = "-";

		if (r->measured) {
			snprintf(mb, sizeof(mb), "%.2f", r->measured_busbw);
			snprintf(mt, sizeof(mt), "%.2f", r->measured_time_us);
		}
		if (r->simulated) {
			snprintf(sb, sizeof(sb), "%.2f", r->simulated_busbw);
			snprintf(st, sizeof(st), "%.2f", r->simulated_time_us);
		}
		if (r->ratio > 0)
			snprintf(ra, sizeof(ra), "%.3f", r->ratio);
		printf("%14llu %15s %16s %13s %17s %18s\n", (unsigned long long)r->bytes, mb, sb,
		       ra, mt, st);
	}
	printf("# avg busbw: measured %.4f (\"# Avg bus bandwidth\"), simulated %.4f\n",
	       t->measured_avg_busbw, t->simulated_avg_busbw);
}

static json_t *cm_side(int has, double busbw, double us)
{
	return has ? json_pack("{s:f,s:f}", "busbw_GBps", busbw, "time_us", us) : json_null();
}

static json_t *cm_json(const struct cm_table *t)
{
	json_t *rows = json_array();

	for (size_t i = 0; rows && i < t->n; i++) {
		const struct cm_row *r = &t->rows[i];

		if (json_array_append_new(
			rows,
			json_pack("{s:I,s:o,s:o,s:o}", "size", (json_int_t)r->bytes, "measured",
				  cm_side(r->measured, r->measured_busbw, r->measured_time_us),
				  "simulated",
				  cm_side(r->simulated, r->simulated_busbw, r->simulated_time_us),
				  "ratio", r->ratio > 0 ? json_real(r->ratio) : json_null()))) {
			json_decref(rows);
			return NULL;
		}
	}
	return json_pack("{s:o,s:o,s:o,s:s,s:i,s:i,s:f,s:f,s:o}", "measured", txt_json(t->measured),
			 "run", txt_json(t->run), "binary", txt_json(t->binary), "collective",
			 t->collective, "measured_ranks", t->measured_ranks, "simulated_ranks",
			 t->simulated_ranks, "measured_avg_busbw_GBps", t->measured_avg_busbw,
			 "simulated_avg_busbw_GBps", t->simulated_avg_busbw, "rows", rows);
}

/* Compare @file with @run: printed, or appended to @arr. */
static int cm_one(const char *file, const char *run, json_t *arr)
{
	struct cm_table t;
	struct diag d = {0};
	int err = cm_nccl_tests(file, run, &t, &d);

	if (err) {
		if (err == -ENOMEM)
			fputs(P "out of memory\n", stderr);
		else {
			fputs(P, stderr);
			diag_print(&d, stderr);
		}
		return ROCESIM_EXIT_INPUT;
	}
	if (!arr)
		cm_print(&t);
	else if (json_array_append_new(arr, cm_json(&t))) {
		cm_free(&t);
		fputs(P "out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	cm_free(&t);
	return 0;
}

/* Does the run @run (its folder or results.json) have hosts[] and
 * switches[] (*@counters), summary.nccl_tests (*@nccl)? Unreadable: both 0. */
static void cm_run_has(const char *run, int *counters, int *nccl)
{
	struct diag d = {0};
	char path[4096];
	json_t *root;

	*counters = *nccl = 0;
	if (cm_results_path(run, path, sizeof(path), &d) || !(root = json_load_file(path, 0, NULL)))
		return;
	*counters = json_is_array(json_object_get(root, "hosts")) &&
		    json_is_array(json_object_get(root, "switches"));
	*nccl = json_is_object(json_object_get(json_object_get(root, "summary"), "nccl_tests"));
	json_decref(root);
}

/*
 * Folder @dir beside @run: its NIC and switch counters when the run has
 * hosts and switches, its nccl-tests files when the run is an nccl_tests
 * run; what cannot be compared said, an error when nothing can.
 */
static int cm_folder(const char *dir, const char *run, const struct cmc_opts *o, json_t *arr)
{
	struct md_dir m;
	struct diag d = {0};
	int err = md_read(dir, &m, &d), rc = 0, any = 0, counters = 0, nccl = 0;
	int run_counters, run_nccl;
	char a[SHOWN];

	if (err) {
		fputs(P, stderr);
		diag_print(&d, stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (size_t i = 0; i < m.n; i++) {
		nccl += m.v[i].kind == MD_NCCL_TESTS;
		counters += m.v[i].kind != MD_NCCL_TESTS && m.v[i].kind != MD_NCCL_INSPECTOR;
	}
	cm_run_has(run, &run_counters, &run_nccl);
	if (counters && (run_counters || !nccl)) {
		rc = cmc_counters(dir, run, o, arr);
		any = rc != ROCESIM_EXIT_INPUT;
	} else if (counters && !arr) {
		printf("# %d NIC and switch readings not compared: %s has no hosts[] and "
		       "switches[]\n",
		       counters, txt_term(a, sizeof(a), run));
	}
	for (size_t i = 0; i < m.n && rc != ROCESIM_EXIT_INPUT && rc != ROCESIM_EXIT_IO; i++) {
		int r;

		if (m.v[i].kind != MD_NCCL_TESTS)
			continue;
		if (any && !run_nccl) {
			if (!arr)
				printf(
				    "# %s not compared: the run is no workload.kind: nccl_tests\n",
				    txt_term(a, sizeof(a), m.v[i].path));
			continue;
		}
		if (any++ && !arr)
			printf("\n");
		if ((r = cm_one(m.v[i].path, run, arr)))
			rc = r;
	}
	if (!rc && !any) {
		fprintf(stderr,
			P "%s: no NODE.nccl-tests file nor NIC or switch counters to compare\n",
			txt_term(a, sizeof(a), dir));
		rc = ROCESIM_EXIT_INPUT;
	}
	md_free(&m);
	return rc;
}

int cmp_measured(int argc, char **argv, const char *usage)
{
	const char *dir = NULL, *run = NULL;
	struct cmc_opts o = {.tol = -1};
	json_t *arr = NULL;
	struct stat st;
	int json = 0, rc;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--measured") && i + 1 < argc && !dir) {
			dir = argv[++i];
		} else if ((!strcmp(argv[i], "--junit") || !strcmp(argv[i], "--markdown"))) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return cli_usage_error(P, usage, "%s needs a file", argv[i]);
			*(argv[i][2] == 'j' ? &o.junit : &o.markdown) = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "--tolerance")) {
			char *end;

			if (i + 1 >= argc)
				return cli_usage_error(P, usage, "%s needs PCT%%", argv[i]);
			o.tol = strtod(argv[++i], &end) / 100;
			if (end == argv[i] || strcmp(end, "%") || !(o.tol >= 0) || o.tol > 1e6)
				return cli_usage_error(
				    P, usage, "--tolerance \"%s\" is not a percentage (25%%)",
				    argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error(
			    P, usage, "%s is not an option of compare --measured", argv[i]);
		} else if (!run) {
			run = argv[i];
		} else {
			return cli_usage_error(P, usage, "%s", "--measured DIR takes one RUN");
		}
	}
	if (!dir || !run)
		return cli_usage_error(P, usage, "%s", "--measured DIR RUN: both are needed");
	if (json && !(arr = json_array())) {
		fputs(P "out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		rc = cm_folder(dir, run, &o, arr);
	else
		rc = cm_one(dir, run, arr);
	if ((!rc || rc == ROCESIM_EXIT_FOUND) && arr) {
		if (json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) ||
		    putchar('\n') == EOF || fflush(stdout)) {
			fputs(P "cannot write the JSON document\n", stderr);
			rc = ROCESIM_EXIT_IO;
		}
	}
	json_decref(arr);
	return rc;
}
