/*
 * A measured nccl-tests output beside a simulated nccl_tests run
 * (compare_measured.h): the run's summary.nccl_tests rows read from its
 * results.json, the sizes of both sides merged in size order.
 */
#include "sim/study/compare_measured.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/readers/nccl_tests_out.h"

void cm_free(struct cm_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

/* The row of @t for @bytes, added in size order when it has none. */
static struct cm_row *cm_row(struct cm_table *t, uint64_t bytes, size_t *cap)
{
	size_t i;

	for (i = 0; i < t->n && t->rows[i].bytes < bytes; i++)
		;
	if (i < t->n && t->rows[i].bytes == bytes)
		return &t->rows[i];
	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct cm_row *v = realloc(t->rows, ncap * sizeof(*v));

		if (!v)
			return NULL;
		t->rows = v;
		*cap = ncap;
	}
	memmove(&t->rows[i + 1], &t->rows[i], (t->n - i) * sizeof(*t->rows));
	t->n++;
	memset(&t->rows[i], 0, sizeof(t->rows[i]));
	t->rows[i].bytes = bytes;
	return &t->rows[i];
}

int cm_results_path(const char *run, char *path, size_t size, struct diag *d)
{
	struct stat st;

	if (stat(run, &st)) {
		int err = -errno;

		diag_set(d, run, 0, "", "cannot open: %s", strerror(errno));
		return err;
	}
	if ((size_t)snprintf(path, size, S_ISDIR(st.st_mode) ? "%s/results.json" : "%s", run) >=
	    size) {
		diag_set(d, run, 0, "", "path too long");
		return -EINVAL;
	}
	return 0;
}

/* summary.nccl_tests of the run into @t's simulated side. */
static int cm_simulated(json_t *nt, struct cm_table *t, size_t *cap, struct diag *d)
{
	json_t *rows = json_object_get(nt, "rows"), *r;
	const char *coll = json_string_value(json_object_get(nt, "collective"));
	size_t i;

	if (!json_is_array(rows) || !coll) {
		diag_set(d, t->run, 0, "summary.nccl_tests",
			 "no rows or collective: not results.json of an nccl_tests run");
		return -EINVAL;
	}
	snprintf(t->collective, sizeof(t->collective), "%s", coll);
	t->simulated_ranks = (int)json_integer_value(json_object_get(nt, "ranks"));
	t->simulated_avg_busbw = json_number_value(json_object_get(nt, "avg_busbw_GBps"));
	json_array_foreach(rows, i, r) {
		json_t *size = json_object_get(r, "size"), *bw = json_object_get(r, "busbw_GBps");
		json_t *us = json_object_get(r, "time_us");
		struct cm_row *row;

		if (!json_is_integer(size) || json_integer_value(size) < 0 || !json_is_number(bw) ||
		    !json_is_number(us)) {
			diag_set(d, t->run, 0, "summary.nccl_tests.rows",
				 "row %zu has no size, time_us or busbw_GBps", i);
			return -EINVAL;
		}
		if (!(row = cm_row(t, (uint64_t)json_integer_value(size), cap))) {
			diag_set(d, t->run, 0, "", "out of memory");
			return -ENOMEM;
		}
		row->simulated = 1;
		row->simulated_busbw = json_number_value(bw);
		row->simulated_time_us = json_number_value(us);
	}
	return 0;
}

/* The measured rows into @t; the binary must be of the run's collective. */
static int cm_measured(const struct nccl_out *o, struct cm_table *t, size_t *cap, struct diag *d)
{
	size_t n = strlen(t->collective);

	snprintf(t->binary, sizeof(t->binary), "%s", o->binary);
	if (o->binary[0] &&
	    (strncmp(o->binary, t->collective, n) || strncmp(o->binary + n, "_perf", 5))) {
		diag_set(d, t->measured, 0, "", "the output of %s, the run's collective is %s",
			 o->binary, t->collective);
		return -EINVAL;
	}
	t->measured_ranks = o->ranks;
	t->measured_avg_busbw = o->avg_busbw;
	for (size_t i = 0; i < o->n; i++) {
		struct cm_row *row = cm_row(t, o->rows[i].bytes, cap);

		if (!row) {
			diag_set(d, t->measured, 0, "", "out of memory");
			return -ENOMEM;
		}
		if (row->measured) {
			diag_set(d, t->measured, o->rows[i].line, "",
				 "size %llu measured twice (line %d too): one table a file",
				 (unsigned long long)o->rows[i].bytes, row->line);
			return -EINVAL;
		}
		row->measured = 1;
		row->measured_busbw = o->rows[i].busbw;
		row->measured_time_us = o->rows[i].time_us;
		row->line = o->rows[i].line;
	}
	return 0;
}

int cm_nccl_tests(const char *measured, const char *run, struct cm_table *out, struct diag *d)
{
	struct nccl_out o = {0};
	json_error_t je;
	json_t *root = NULL, *nt;
	size_t cap = 0;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(out->measured, sizeof(out->measured), "%s", measured);
	if ((err = cm_results_path(run, out->run, sizeof(out->run), d)))
		return err;
	if (!(root = json_load_file(out->run, 0, &je))) {
		diag_set(d, out->run, je.line > 0 ? je.line : 0, "", "not JSON: %s", je.text);
		return -EINVAL;
	}
	nt = json_object_get(json_object_get(root, "summary"), "nccl_tests");
	if (!json_is_object(nt)) {
		diag_set(d, out->run, 0, "summary.nccl_tests",
			 "missing: the run is no workload.kind: nccl_tests");
		err = -EINVAL;
	}
	if (!err)
		err = cm_simulated(nt, out, &cap, d);
	if (!err && !(err = nccl_out_read(measured, &o, d)))
		err = cm_measured(&o, out, &cap, d);
	for (size_t i = 0; !err && i < out->n; i++) {
		struct cm_row *r = &out->rows[i];

		if (r->measured && r->simulated && r->measured_busbw > 0)
			r->ratio = r->simulated_busbw / r->measured_busbw;
	}
	nccl_out_free(&o);
	json_decref(root);
	if (err)
		cm_free(out);
	return err;
}
