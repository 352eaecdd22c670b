/*
 * rocesim import of counters measured on real gear (sim/readers/measured.h,
 * nccl_tests_out.h, nccl_inspector.h, measured_dir.h): what was read, as a table on stdout
 * or, with --json, as one JSON document whose counters carry both the name
 * the tool printed and, where rocesim counts the same thing, the place of
 * that counter in results.json. Two readings (before and after a run) are
 * printed as their difference. Text taken from the files is printed in its
 * terminal form (textsafe.h).
 */
#include "sim/cli/import_measured.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/engine/textsafe.h"
#include "sim/readers/measured.h"
#include "sim/readers/measured_dir.h"
#include "sim/readers/nccl_inspector.h"
#include "sim/readers/nccl_tests_out.h"

const char imp_measured_usage[] =
    "Measured counters (a lab run's, to set beside a simulated run's):\n"
    "  ethtool      `ethtool -S IF` of an mlx5 NIC\n"
    "  hw-counters  RDMA hw_counters: `grep . /sys/class/infiniband/DEV/ports/N/\n"
    "               hw_counters/[a-z]*` output, or a copy of that folder\n"
    "  pfcstat      SONiC `show pfc counters` (pfcstat)\n"
    "  queuestat    SONiC `show queue counters` (queuestat)\n"
    "  nccl-tests   what an nccl-tests binary printed (all_reduce_perf ...)\n"
    "  nccl-inspector  NCCL Inspector's JSON records (NCCL 2.27+ profiler plugin)\n"
    "  measured     a folder of NODE.KIND[.before|.after][.EXT] files of the\n"
    "               kinds above (host3.ethtool.txt, leaf0.pfcstat.after.txt), or\n"
    "               named so by the folder's map.yaml (docs/measured.md)\n"
    "    rocesim import KIND [--json] FILE [AFTER]   (measured: [--json] DIR)\n"
    "  With two readings FILE and AFTER (before and after a run), the counts\n"
    "  of the run: AFTER minus FILE. Printed as a table, or with --json as a\n"
    "  JSON document naming each counter as the tool does and, where rocesim\n"
    "  counts it too, where results.json keeps it.\n";

#define SHOWN 1024

int imp_is_measured(const char *kind)
{
	return md_kind_parse(kind) >= 0 || !strcmp(kind, "measured");
}

/* Print the error of a reader and return the exit code. */
static int imp_fail(int err, const struct diag *d)
{
	if (err == -ENOMEM) {
		fprintf(stderr, "rocesim: out of memory\n");
		return ROCESIM_EXIT_INPUT;
	}
	fprintf(stderr, "rocesim: ");
	diag_print(d, stderr);
	return ROCESIM_EXIT_INPUT;
}

/* @path read as @kind, minus @before when it is not "" or NULL. */
static int imp_counters(enum mc_kind kind, const char *before, const char *path, struct mc_set *out,
			struct diag *d)
{
	struct mc_set a, b;
	int err;

	if (!before || !before[0])
		return mc_read(kind, path, out, d);
	if ((err = mc_read(kind, before, &b, d)))
		return err;
	if (!(err = mc_read(kind, path, &a, d))) {
		err = mc_diff(&b, &a, out, d);
		mc_free(&a);
	}
	mc_free(&b);
	return err;
}

static void imp_counters_table(const char *node, const struct mc_set *s, const char *before)
{
	char b[SHOWN], c[SHOWN], r[160];

	printf("# %s: %s", mc_kind_name(s->kind), txt_term(b, sizeof(b), s->file));
	if (before && before[0])
		printf(" minus %s (the counts between the two readings)",
		       txt_term(b, sizeof(b), before));
	if (s->only_before)
		printf("; %zu counters of the first reading not in the second: not counted",
		       s->only_before);
	printf("\n%-10s %-20s %-32s %20s  %s\n", "node", "scope", "counter", "value",
	       "results.json");
	for (size_t i = 0; i < s->n; i++) {
		const struct mc_counter *x = &s->v[i];
		const char *rn = mc_rocesim_name(s->kind, x, r, sizeof(r));
		char v[24];

		snprintf(v, sizeof(v), "%llu", (unsigned long long)x->value);
		txt_term(b, sizeof(b), x->scope[0] ? x->scope : "-");
		printf("%-10s %-20s %-32s %20s  %s\n", node[0] ? node : "-", b,
		       txt_term(c, sizeof(c), x->name), x->na ? "N/A" : v, rn ? rn : "-");
	}
}

static json_t *imp_counters_json(const char *node, const struct mc_set *s, const char *before)
{
	json_t *arr = json_array(), *o;
	char r[160];

	for (size_t i = 0; arr && i < s->n; i++) {
		const struct mc_counter *x = &s->v[i];
		const char *rn = mc_rocesim_name(s->kind, x, r, sizeof(r));

		if (json_array_append_new(
			arr,
			json_pack("{s:o,s:o,s:o,s:o,s:i}", "scope", txt_json(x->scope), "name",
				  txt_json(x->name), "rocesim", rn ? json_string(rn) : json_null(),
				  "value", x->na ? json_null() : json_integer((json_int_t)x->value),
				  "line", x->line)))
			goto out_fail;
	}
	o = json_pack("{s:s,s:o,s:o,s:o,s:o,s:I}", "kind", mc_kind_name(s->kind), "node",
		      txt_json(node), "file", txt_json(s->file), "before",
		      before && before[0] ? txt_json(before) : json_null(), "counters", arr,
		      "only_before", (json_int_t)s->only_before);
	return o;
out_fail:
	json_decref(arr);
	return NULL;
}

static void imp_nccl_table(const char *node, const struct nccl_out *o)
{
	char b[SHOWN];

	printf("# nccl-tests: %s%s%s, %s, %d ranks listed\n", txt_term(b, sizeof(b), o->file),
	       node[0] ? " of " : "", node, o->binary[0] ? o->binary : "binary not named",
	       o->ranks);
	printf("%14s %14s %10s %10s %10s %12s %10s %10s\n", "size", "count", "time_us",
	       "algbw_GBps", "busbw_GBps", "in_time_us", "in_algbw", "in_busbw");
	for (size_t i = 0; i < o->n; i++) {
		const struct nccl_out_row *r = &o->rows[i];

		printf("%14llu %14llu %10.2f %10.2f %10.2f %12.2f %10.2f %10.2f\n",
		       (unsigned long long)r->bytes, (unsigned long long)r->count, r->time_us,
		       r->algbw, r->busbw, r->in_time_us, r->in_algbw, r->in_busbw);
	}
	printf("# avg_busbw_GBps %.4f (\"# Avg bus bandwidth\", line %d)%s\n", o->avg_busbw,
	       o->avg_line,
	       o->extra_cols ? "; the columns after the in-place #wrong are not read" : "");
}

static json_t *imp_wrong(long long w)
{
	return w < 0 ? json_null() : json_integer(w);
}

static json_t *imp_nccl_json(const char *node, const struct nccl_out *o)
{
	json_t *rows = json_array();

	for (size_t i = 0; rows && i < o->n; i++) {
		const struct nccl_out_row *r = &o->rows[i];

		if (json_array_append_new(
			rows,
			json_pack("{s:I,s:I,s:o,s:o,s:o,s:f,s:f,s:f,s:o,s:{s:f,s:f,s:f,s:o},s:i}",
				  "size", (json_int_t)r->bytes, "count", (json_int_t)r->count,
				  "type", txt_json(r->type), "redop", txt_json(r->redop), "root",
				  r->has_root ? json_integer(r->root) : json_null(), "time_us",
				  r->time_us, "algbw_GBps", r->algbw, "busbw_GBps", r->busbw,
				  "wrong", imp_wrong(r->wrong), "in_place", "time_us",
				  r->in_time_us, "algbw_GBps", r->in_algbw, "busbw_GBps",
				  r->in_busbw, "wrong", imp_wrong(r->in_wrong), "line", r->line))) {
			json_decref(rows);
			return NULL;
		}
	}
	return json_pack("{s:s,s:o,s:o,s:o,s:i,s:s,s:o,s:f}", "kind", "nccl-tests", "node",
			 txt_json(node), "file", txt_json(o->file), "binary", txt_json(o->binary),
			 "ranks", o->ranks, "rocesim", "summary.nccl_tests", "rows", rows,
			 "avg_busbw_GBps", o->avg_busbw);
}

static void imp_inspector_table(const char *node, const struct nccl_inspector *ni)
{
	char b[SHOWN], c[SHOWN];

	printf("# nccl-inspector: %s%s%s, %zu records of collectives",
	       txt_term(b, sizeof(b), ni->file), node[0] ? " of " : "", node, ni->n);
	if (ni->skipped)
		printf("; %zu others (p2p_perf, dump_stats) not read", ni->skipped);
	printf("\n");
	printf("%6s %8s %-16s %10s %14s %12s %10s %10s\n", "rank", "n_ranks", "coll", "coll_sn",
	       "bytes", "time_us", "algbw_GBps", "busbw_GBps");
	for (size_t i = 0; i < ni->n; i++) {
		const struct ni_record *r = &ni->v[i];

		printf("%6d %8d %-16s %10llu %14llu %12.3f %10.3f %10.3f\n", r->rank, r->n_ranks,
		       txt_term(c, sizeof(c), r->coll), (unsigned long long)r->coll_sn,
		       (unsigned long long)r->msg_bytes, r->exec_time_us, r->algbw, r->busbw);
	}
}

/* A record with its own names, and under "rocesim" the names of
 * results.json's summary.collective for the same quantities. */
static json_t *imp_inspector_json(const char *node, const struct nccl_inspector *ni)
{
	json_t *recs = json_array();

	for (size_t i = 0; recs && i < ni->n; i++) {
		const struct ni_record *r = &ni->v[i];

		if (json_array_append_new(
			recs,
			json_pack(
			    "{s:o,s:i,s:i,s:i,s:o,s:o,s:I,s:I,s:f,s:f,s:f,s:o,s:{s:I,s:f,"
			    "s:f,s:f},s:i}",
			    "id", txt_json(r->comm_id), "rank", r->rank, "n_ranks", r->n_ranks,
			    "nnodes", r->nnodes, "hostname", txt_json(r->hostname), "coll",
			    txt_json(r->coll), "coll_sn", (json_int_t)r->coll_sn,
			    "coll_msg_size_bytes", (json_int_t)r->msg_bytes, "coll_exec_time_us",
			    r->exec_time_us, "coll_algobw_gbs", r->algbw, "coll_busbw_gbs",
			    r->busbw, "version", txt_json(r->version), "rocesim", "bytes",
			    (json_int_t)r->msg_bytes, "completion_time_us", r->exec_time_us,
			    "algbw_GBps", r->algbw, "busbw_GBps", r->busbw, "line", r->line))) {
			json_decref(recs);
			return NULL;
		}
	}
	return json_pack("{s:s,s:o,s:o,s:s,s:o,s:I}", "kind", "nccl-inspector", "node",
			 txt_json(node), "file", txt_json(ni->file), "rocesim",
			 "summary.collective", "records", recs, "not_read",
			 (json_int_t)ni->skipped);
}

/* nccl-tests output or Inspector records (read alone, never as a pair). */
static int imp_nccl(int kind, const char *node, const char *before, const char *path, json_t **j)
{
	struct diag d = {0};
	int err;

	if (before && before[0]) {
		diag_set(&d, before, 0, "", "%s output is read alone, not as two readings",
			 md_kind_name(kind));
		return imp_fail(-EINVAL, &d);
	}
	if (kind == MD_NCCL_TESTS) {
		struct nccl_out o;

		if ((err = nccl_out_read(path, &o, &d)))
			return imp_fail(err, &d);
		if (j)
			*j = imp_nccl_json(node, &o);
		else
			imp_nccl_table(node, &o);
		nccl_out_free(&o);
	} else {
		struct nccl_inspector ni;

		if ((err = nccl_inspector_read(path, &ni, &d)))
			return imp_fail(err, &d);
		if (j)
			*j = imp_inspector_json(node, &ni);
		else
			imp_inspector_table(node, &ni);
		nccl_inspector_free(&ni);
	}
	return 0;
}

/* One reading (or pair) of @kind: printed, or its JSON into *@j when @j. */
static int imp_one(int kind, const char *node, const char *before, const char *path, json_t **j)
{
	struct diag d = {0};
	int err;

	if (kind == MD_NCCL_TESTS || kind == MD_NCCL_INSPECTOR) {
		if ((err = imp_nccl(kind, node, before, path, j)))
			return err;
	} else {
		struct mc_set s;

		if ((err = imp_counters((enum mc_kind)kind, before, path, &s, &d)))
			return imp_fail(err, &d);
		if (j)
			*j = imp_counters_json(node, &s, before);
		else
			imp_counters_table(node, &s, before);
		mc_free(&s);
	}
	if (j && !*j) {
		fprintf(stderr, "rocesim: out of memory\n");
		return ROCESIM_EXIT_INPUT;
	}
	return 0;
}

static int imp_print_json(json_t *j)
{
	int err;

	if (!j) {
		fprintf(stderr, "rocesim: out of memory\n");
		return ROCESIM_EXIT_INPUT;
	}
	err = json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));

	json_decref(j);
	if (err || putchar('\n') == EOF || fflush(stdout)) {
		fprintf(stderr, "rocesim: import: cannot write the JSON document\n");
		return ROCESIM_EXIT_IO;
	}
	return 0;
}

/* A folder of several nodes' readings (measured_dir.h). */
static int imp_folder(const char *folder, int json)
{
	struct diag d = {0};
	struct md_dir m;
	json_t *nodes = NULL, *skipped = NULL;
	int err, rc = 0;
	char b[SHOWN];

	if ((err = md_read(folder, &m, &d)))
		return imp_fail(err, &d);
	if (json && (!(nodes = json_array()) || !(skipped = json_array())))
		rc = imp_fail(-ENOMEM, &d);
	for (size_t i = 0; i < m.n && !rc; i++) {
		json_t *one = NULL;

		if (i && !json)
			printf("\n");
		rc = imp_one(m.v[i].kind, m.v[i].node, m.v[i].before, m.v[i].path,
			     json ? &one : NULL);
		if (!rc && json && json_array_append_new(nodes, one))
			rc = imp_fail(-ENOMEM, &d);
	}
	for (size_t i = 0; i < m.n_skipped && !rc; i++)
		if (json)
			json_array_append_new(skipped, txt_json(m.skipped[i]));
		else
			printf("%s# not read (not NODE.KIND[.before|.after][.EXT]): %s\n",
			       i ? "" : "\n", txt_term(b, sizeof(b), m.skipped[i]));
	if (!rc && json)
		rc =
		    imp_print_json(json_pack("{s:s,s:o,s:O,s:O}", "kind", "measured", "folder",
					     txt_json(folder), "nodes", nodes, "skipped", skipped));
	json_decref(nodes);
	json_decref(skipped);
	md_free(&m);
	return rc;
}

int imp_measured(const char *kind, int argc, char **argv, const char *usage)
{
	const char *files[2];
	int json = 0, n = 0, k = md_kind_parse(kind), rc;
	json_t *j = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("rocesim: import: ", usage, "unknown option %s",
					       argv[i]);
		else if (n == 2 || (n == 1 && k < 0))
			return cli_usage_error("rocesim: import: ", usage, "%s",
					       k < 0 ? "measured takes one folder"
						     : "at most two readings (before, after)");
		else
			files[n++] = argv[i];
	}
	if (!n)
		return cli_usage_error("rocesim: import: ", usage,
				       k < 0 ? "%s needs a folder" : "%s needs a file", kind);
	if (k < 0)
		return imp_folder(files[0], json);
	rc = imp_one(k, "", n == 2 ? files[0] : NULL, files[n - 1], json ? &j : NULL);
	if (!rc && json)
		rc = imp_print_json(j);
	return rc;
}
