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
    "rocesim compare --measured DIR RUN [--json]\n"
    "  What nccl-tests measured (DIR: its printed output, or a\n"
    "  folder of measured files, NODE.nccl-tests[.EXT] among them) beside RUN, a\n"
    "  simulated run of workload.kind: nccl_tests (its folder or results.json):\n"
    "  per size, the measured and simulated busbw (out of place, GB/s), their\n"
    "  ratio simulated/measured, and the times. Sizes one side alone has are\n"
    "  listed as such.\n";

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

/* The nccl-tests files of folder @dir, each beside @run. */
static int cm_folder(const char *dir, const char *run, json_t *arr)
{
	struct md_dir m;
	struct diag d = {0};
	int err = md_read(dir, &m, &d), rc = 0, any = 0;

	if (err) {
		fputs(P, stderr);
		diag_print(&d, stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (size_t i = 0; i < m.n && !rc; i++) {
		if (m.v[i].kind != MD_NCCL_TESTS)
			continue;
		if (any++ && !arr)
			printf("\n");
		rc = cm_one(m.v[i].path, run, arr);
	}
	if (!rc && !any) {
		fprintf(stderr,
			P "%s: no NODE.nccl-tests file to compare (compare --measured reads "
			  "nccl-tests output only)\n",
			dir);
		rc = ROCESIM_EXIT_INPUT;
	}
	md_free(&m);
	return rc;
}

int cmp_measured(int argc, char **argv, const char *usage)
{
	const char *dir = NULL, *run = NULL;
	json_t *arr = NULL;
	struct stat st;
	int json = 0, rc;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--measured") && i + 1 < argc && !dir)
			dir = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error(
			    P, usage, "%s is not an option of compare --measured", argv[i]);
		else if (!run)
			run = argv[i];
		else
			return cli_usage_error(P, usage, "%s", "--measured DIR takes one RUN");
	}
	if (!dir || !run)
		return cli_usage_error(P, usage, "%s", "--measured DIR RUN: both are needed");
	if (json && !(arr = json_array())) {
		fputs(P "out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		rc = cm_folder(dir, run, arr);
	else
		rc = cm_one(dir, run, arr);
	if (!rc && arr) {
		if (json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) ||
		    putchar('\n') == EOF || fflush(stdout)) {
			fputs(P "cannot write the JSON document\n", stderr);
			rc = ROCESIM_EXIT_IO;
		}
	}
	json_decref(arr);
	return rc;
}
