/*
 * A training job's results: summary.training (the first job) and
 * jobs[].training (every job), and their lines in the summary on stdout.
 * An iteration's time is from its start (the previous iteration's end,
 * when its last rank ended it) to its last rank's end; tokens/s and
 * samples/s are the iteration's tokens and samples (micro_batch x ga x
 * dp, times seq_len) over the mean iteration time. The exposed
 * communication is the critical rank's (the one that ended last): the
 * time its main stream waited for a collective of that dimension (pp: a
 * pipeline receive or its sends; dp: the gradients' stream at the end of
 * the iteration), over the run's iterations, per iteration.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_cost.h"
#include "models/train.h"
#include "sim/engine/textsafe.h"
#include "sim/readers/nccl_tests.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"

static json_t *us3(simtime_t t)
{
	return json_real((double)llround(simtime_to_us(t) * 1000.0) / 1000.0);
}

/* Rows by dimension, operation (sends last), size, group size. */
static int row_cmp(const void *a, const void *b)
{
	const struct train_coll_row *x = a, *y = b;
	int kx = x->p2p ? 8 : x->op, ky = y->p2p ? 8 : y->op;

	if (x->dim != y->dim)
		return x->dim < y->dim ? -1 : 1;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->ranks < y->ranks ? -1 : x->ranks > y->ranks;
}

/* nccl-tests' bus bandwidth factor (nccl-tests doc/PERFORMANCE.md): a send
 * between two stages is SendRecv's, 1. */
static double row_factor(const struct train_coll_row *r)
{
	return r->p2p ? 1.0 : coll_busbw_factor((enum coll_op)r->op, r->ranks);
}

/*
 * collectives.<dim>: count, bytes, mean_time_us, algbw_GBps (bytes over
 * time), busbw_GBps (each row's bytes times its factor, over time), and
 * rows: one per (operation, size, group size), as nccl-tests reports a
 * size: calls, mean time_us, algbw_GBps, busbw_GBps.
 */
static json_t *colls_json(const struct train_stats *st)
{
	static const char *const dims[] = {"tp", "pp", "dp", "ep"};
	struct train_coll_row *rs = malloc(((size_t)st->n_rows + 1) * sizeof(*rs));
	json_t *cs = json_object();

	if (!rs || !cs) {
		free(rs);
		json_decref(cs);
		return NULL;
	}
	if (st->n_rows)
		memcpy(rs, st->rows, st->n_rows * sizeof(*rs));
	qsort(rs, st->n_rows, sizeof(*rs), row_cmp);
	for (int d = 0; d < TRAIN_DIMS; d++) {
		json_t *rows = json_array(), *o;
		double bus = 0;

		if (!st->colls[d]) {
			json_decref(rows);
			continue;
		}
		for (uint32_t i = 0; rows && i < st->n_rows; i++) {
			const struct train_coll_row *r = &rs[i];
			double sec = simtime_to_s(r->time), algbw;

			if (r->dim != d)
				continue;
			bus += (double)r->bytes * (double)r->count * row_factor(r);
			algbw = sec > 0 ? (double)r->bytes * (double)r->count / sec / 1e9 : 0.0;
			json_array_append_new(
			    rows,
			    json_pack("{s:s,s:i,s:I,s:I,s:o,s:f,s:f}", "op",
				      r->p2p ? "sendrecv" : coll_op_name((enum coll_op)r->op),
				      "ranks", (int)r->ranks, "size", (json_int_t)r->bytes, "calls",
				      (json_int_t)r->count, "time_us", us3(r->time / r->count),
				      "algbw_GBps", algbw, "busbw_GBps", algbw * row_factor(r)));
		}
		o = json_pack("{s:I,s:I,s:o,s:f,s:f,s:o}", "count", (json_int_t)st->colls[d],
			      "bytes", (json_int_t)st->coll_bytes[d], "mean_time_us",
			      us3(st->coll_time[d] / st->colls[d]), "algbw_GBps",
			      st->coll_time[d]
				  ? (double)st->coll_bytes[d] / simtime_to_s(st->coll_time[d]) / 1e9
				  : 0.0,
			      "busbw_GBps",
			      st->coll_time[d] ? bus / simtime_to_s(st->coll_time[d]) / 1e9 : 0.0,
			      "rows", rows ? rows : json_null());
		json_object_set_new(cs, dims[d], o);
	}
	free(rs);
	return cs;
}

static json_t *job_json(const struct scn_job *sj, const struct train *tr)
{
	static const char *const dims[] = {"tp", "pp", "dp", "ep"};
	static const char *const phases[] = {"forward", "input_grad", "weight_grad", "update"};
	const struct train_job *j = &sj->job;
	struct train_stats st;
	json_t *o, *times = json_array(), *exposed = json_object(), *compute = json_object();
	simtime_t prev, sum = 0;
	double mean_s;
	uint32_t per = 1;

	train_stats(tr, &st);
	prev = st.start;
	for (uint32_t i = 0; times && i < st.done; i++) {
		json_array_append_new(times, us3(st.ends[i] - prev));
		sum += st.ends[i] - prev;
		prev = st.ends[i];
	}
	per = st.done ? st.done : 1;
	mean_s = st.done ? simtime_to_s(sum) / st.done : 0;
	for (int d = 0; exposed && d < TRAIN_DIMS; d++)
		json_object_set_new(exposed, dims[d], us3(st.exposed[d] / per));
	for (int p = 0; compute && p < TRAIN_PHASES; p++)
		json_object_set_new(compute, phases[p], us3(st.compute[p] / per));
	o = json_pack(
	    "{s:o,s:{s:i,s:i,s:i,s:i,s:i,s:i},s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:i,s:i,"
	    "s:I,s:I}",
	    "source", json_string(sj->source ? sj->source : "layers"), "layout", "tp", (int)j->tp,
	    "pp", (int)j->pp, "dp", (int)j->dp, "ep", (int)j->ep, "vpp", (int)j->vpp, "ga",
	    (int)j->ga, "ranks", (int)(j->tp * j->pp * j->dp), "iterations", (int)st.done,
	    "iteration_time_us",
	    st.done ? json_real((double)llround(mean_s * 1e9) / 1000.0) : json_null(),
	    "iteration_times_us", times, "tokens_per_s",
	    st.done && j->tokens ? json_real(round((double)j->tokens / mean_s)) : json_null(),
	    "samples_per_s",
	    st.done ? json_real(round((double)j->samples / mean_s * 100) / 100) : json_null(),
	    "exposed_comm_us", exposed, "compute_us", compute, "critical_rank", (int)st.critical,
	    "stalled_ranks", (int)st.stalled, "layers", (int)j->n_layers, "network_bytes",
	    (json_int_t)st.network_bytes, "nvlink_bytes", (json_int_t)st.nvlink_bytes);
	if (!o)
		return NULL;
	json_object_set_new(o, "collectives", colls_json(&st));
	if (sj->file)
		json_object_set_new(o, "file", txt_json(sj->file));
	if (sj->notes[0])
		json_object_set_new(o, "notes", txt_json(sj->notes));
	if (!j->tokens)
		json_object_set_new(o, "tokens_note", json_string("give seq_len for tokens/s"));
	return o;
}

/*
 * nccl_tests: per size, the time of a collective as nccl-tests reports it:
 * from the end of the warm-up (the last warm-up collective's end; the
 * size before's end, or the start, without warm-up) to the last timed
 * collective's end, over the timed ones.
 */
static json_t *sweep_json(const struct scn_job *sj, const struct train *tr, simtime_t start)
{
	struct nccl_tests_cmd cmd;
	struct diag d = {0};
	const simtime_t *ends;
	uint64_t n, per = sj->warmup + sj->iters, done = 0;
	uint32_t ranks = sj->job.dp;
	json_t *rows = json_array(), *o;
	double sum = 0;

	if (!rows || nccl_tests_parse_command(sj->command, "", &cmd, &d)) {
		json_decref(rows);
		return NULL;
	}
	ends = train_comm_ends(tr, 0, &n);
	for (size_t i = 0; i < sj->n_rows; i++) {
		uint64_t last = (i + 1) * per - 1, first = i * per + sj->warmup;
		simtime_t from;
		double us, algbw, busbw;

		if (last >= n)
			break;
		from = first ? ends[first - 1] : start;
		us = simtime_to_us(ends[last] - from) / sj->iters;
		nccl_tests_bw(&cmd, ranks, &sj->rows[i], us, &algbw, &busbw);
		sum += busbw;
		done++;
		json_array_append_new(rows, json_pack("{s:I,s:I,s:f,s:f,s:f}", "size",
						      (json_int_t)sj->rows[i].bytes, "count",
						      (json_int_t)sj->rows[i].count, "time_us",
						      round(us * 1000) / 1000, "algbw_GBps", algbw,
						      "busbw_GBps", busbw));
	}
	o = json_pack("{s:o,s:s,s:i,s:i,s:i,s:o,s:o}", "command", txt_json(sj->command),
		      "collective", nccl_tests_coll_name(cmd.coll), "ranks", (int)ranks, "warmup",
		      (int)sj->warmup, "iters", (int)sj->iters, "rows", rows, "avg_busbw_GBps",
		      done ? json_real(sum / (double)done) : json_null());
	if (o && sj->notes[0])
		json_object_set_new(o, "notes", txt_json(sj->notes));
	return o;
}

int res_add_training(json_t *root, const struct sim *sim)
{
	const struct scenario *s = sim->scn;
	json_t *jobs;

	if (!s->n_jobs)
		return 0;
	if (!(jobs = json_array()))
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_jobs && i < sim->net->n_jobs; i++) {
		const char *kind = s->jobs[i].command ? "nccl_tests" : "training";
		json_t *o = s->jobs[i].command
				? sweep_json(&s->jobs[i], sim->net->jobs[i], s->plans[i].start)
				: job_json(&s->jobs[i], sim->net->jobs[i]);
		json_t *summary = json_object_get(root, "summary");

		if (!o ||
		    json_array_append_new(
			jobs, json_pack("{s:s,s:o}", "workload", s->jobs[i].workload, kind, o)) ||
		    (!json_object_get(summary, kind) && json_object_set(summary, kind, o))) {
			json_decref(jobs);
			return -ENOMEM;
		}
	}
	return json_object_set_new(root, "jobs", jobs) ? -ENOMEM : 0;
}

int res_add_alone(json_t *root, uint32_t k, double alone_us)
{
	json_t *t = json_object_get(json_array_get(json_object_get(root, "jobs"), k), "training");
	const json_t *it = json_object_get(t, "iteration_time_us");

	if (!t)
		return 0;
	if (json_object_set_new(t, "alone_iteration_time_us",
				alone_us > 0 ? json_real(round(alone_us * 1000) / 1000)
					     : json_null()))
		return -ENOMEM;
	return json_object_set_new(
		   t, "interference",
		   alone_us > 0 && json_is_number(it)
		       ? json_real(round((json_number_value(it) / alone_us - 1) * 1e4) / 1e4)
		       : json_null())
		   ? -ENOMEM
		   : 0;
}

int res_write_timeline(const struct sim *sim, FILE *f)
{
	static const char *const what[] = {"forward", "input_grad", "weight_grad", "update",
					   "wait_tp", "wait_pp",    "wait_dp",	   "wait_ep"};

	fputs("job,rank,start_us,end_us,what\n", f);
	for (uint32_t j = 0; j < sim->net->n_jobs; j++) {
		uint64_t n;
		int cut;
		const struct train_span *sp = train_timeline(sim->net->jobs[j], &n, &cut);

		for (uint64_t i = 0; i < n; i++)
			fprintf(f, "%u,%u,%.6f,%.6f,%s\n", j, sp[i].rank,
				simtime_to_us(sp[i].start), simtime_to_us(sp[i].end),
				what[sp[i].what]);
		(void)cut; /* at TRAIN_SPANS_MAX: docs/results.md says so */
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* nccl_tests' table, as nccl-tests prints it, from results.json's rows. */
static void print_sweep(const json_t *t, FILE *f)
{
	const json_t *rows = json_object_get(t, "rows"), *r;
	struct nccl_tests_row *out;
	struct nccl_tests_cmd cmd;
	struct diag d = {0};
	size_t i;

	if (nccl_tests_parse_command(json_string_value(json_object_get(t, "command")), "", &cmd,
				     &d))
		return;
	if (!(out = calloc(json_array_size(rows) + 1, sizeof(*out))))
		return;
	json_array_foreach(rows, i, r) {
		out[i].bytes = (uint64_t)json_integer_value(json_object_get(r, "size"));
		out[i].count = (uint64_t)json_integer_value(json_object_get(r, "count"));
		out[i].time_us = json_number_value(json_object_get(r, "time_us"));
	}
	fprintf(f, "  nccl-tests %s on %lld ranks (in-place columns: the same collective)\n",
		cmd.binary, (long long)json_integer_value(json_object_get(t, "ranks")));
	nccl_tests_print(f, &cmd, (uint32_t)json_integer_value(json_object_get(t, "ranks")), out,
			 json_array_size(rows));
	free(out);
	if (json_object_get(t, "notes")) {
		fputs("  notes      ", f);
		txt_fputs_term(json_string_value(json_object_get(t, "notes")), f);
		fputc('\n', f);
	}
}

/* @v in @width characters as nccl-tests' getFloatStr (src/util.cu) writes it. */
static void nt_float(double v, int width, char *str)
{
	if (snprintf(str, (size_t)width + 1, "%*.2f", width, v) <= width)
		return;
	if (snprintf(str, (size_t)width + 1, "%*.1f", width, v) <= width)
		return;
	if (snprintf(str, (size_t)width + 1, "%*.0f", width, v) <= width)
		return;
	snprintf(str, (size_t)width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/*
 * The collectives of each group kind in nccl-tests' columns (nccl-tests
 * src/common.cu: size, count, type, redop, root, time, algbw, busbw,
 * #wrong; out of place only), a block a (group kind, operation), a row a
 * size: its mean time. count in float elements, nccl-tests' default type;
 * #wrong N/A as nccl-tests prints it without checking (-c 0).
 */
static void print_colls(const json_t *cs, FILE *f)
{
	static const char *const names[][2] = {{"allreduce", "all_reduce"},
					       {"allgather", "all_gather"},
					       {"reducescatter", "reduce_scatter"},
					       {"alltoall", "alltoall"},
					       {"sendrecv", "sendrecv"}};
	const char *dim, *last = "";
	const json_t *c;

	if (!json_object_size(cs))
		return;
	fputs("  collectives by group kind, in nccl-tests' columns (a row a size, its mean)\n", f);
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type",
		"redop", "root", "time", "algbw", "busbw", "#wrong");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "",
		"", "(us)", "(GB/s)", "(GB/s)", "");
	json_object_foreach((json_t *)cs, dim, c) {
		const json_t *r;
		size_t i;

		last = "";
		json_array_foreach(json_object_get(c, "rows"), i, r) {
			const char *op = json_string_value(json_object_get(r, "op"));
			const char *nt = op;
			uint64_t size = (uint64_t)json_integer_value(json_object_get(r, "size"));
			char t[8], a[7], b[7];

			for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
				if (!strcmp(op, names[k][0]))
					nt = names[k][1];
			if (strcmp(op, last))
				fprintf(f, "# %s %s, %lld ranks a group\n", dim, nt,
					(long long)json_integer_value(json_object_get(r, "ranks")));
			last = op;
			nt_float(json_number_value(json_object_get(r, "time_us")), 7, t);
			nt_float(json_number_value(json_object_get(r, "algbw_GBps")), 6, a);
			nt_float(json_number_value(json_object_get(r, "busbw_GBps")), 6, b);
			fprintf(f, "%12llu  %12llu  %8s  %6s  %6i  %7s  %6s  %6s  %6s\n",
				(unsigned long long)size, (unsigned long long)size / 4, "float",
				!strcmp(op, "allgather") || !strcmp(op, "alltoall") ? "none"
										    : "sum",
				-1, t, a, b, "N/A");
		}
	}
}

void res_print_training(const json_t *j, FILE *f)
{
	const json_t *jobs = json_object_get(j, "jobs"), *x;
	size_t i;

	json_array_foreach(jobs, i, x) {
		const json_t *t = json_object_get(x, "training");

		if (json_object_get(x, "nccl_tests")) {
			print_sweep(json_object_get(x, "nccl_tests"), f);
			continue;
		}
		const json_t *lay = json_object_get(t, "layout");
		const json_t *e = json_object_get(t, "exposed_comm_us");
		const json_t *c = json_object_get(t, "compute_us");
		const json_t *tok = json_object_get(t, "tokens_per_s");
		double it = json_number_value(json_object_get(t, "iteration_time_us"));

		fprintf(
		    f,
		    "  training   %lld ranks (tp %lld pp %lld dp %lld ep %lld vpp %lld ga %lld), "
		    "%lld iteration%s\n",
		    (long long)json_integer_value(json_object_get(t, "ranks")),
		    (long long)json_integer_value(json_object_get(lay, "tp")),
		    (long long)json_integer_value(json_object_get(lay, "pp")),
		    (long long)json_integer_value(json_object_get(lay, "dp")),
		    (long long)json_integer_value(json_object_get(lay, "ep")),
		    (long long)json_integer_value(json_object_get(lay, "vpp")),
		    (long long)json_integer_value(json_object_get(lay, "ga")),
		    (long long)json_integer_value(json_object_get(t, "iterations")),
		    json_integer_value(json_object_get(t, "iterations")) == 1 ? "" : "s");
		if (!json_is_number(json_object_get(t, "iteration_time_us"))) {
			fprintf(f, "  iteration  not completed (%lld ranks stalled)\n",
				(long long)json_integer_value(json_object_get(t, "stalled_ranks")));
			continue;
		}
		fprintf(f, "  iteration  %.3f us; ", it);
		if (json_is_number(tok))
			fprintf(f, "%.0f tokens/s, ", json_number_value(tok));
		fprintf(f, "%.2f samples/s\n",
			json_number_value(json_object_get(t, "samples_per_s")));
		fprintf(
		    f,
		    "  exposed    tp %.3f us, pp %.3f us, dp %.3f us, ep %.3f us (communication "
		    "not hidden under compute, the critical rank's)\n",
		    json_number_value(json_object_get(e, "tp")),
		    json_number_value(json_object_get(e, "pp")),
		    json_number_value(json_object_get(e, "dp")),
		    json_number_value(json_object_get(e, "ep")));
		fprintf(f,
			"  compute    forward %.3f us, input grad %.3f us, weight grad %.3f us, "
			"update %.3f us (%.1f%% of the iteration)\n",
			json_number_value(json_object_get(c, "forward")),
			json_number_value(json_object_get(c, "input_grad")),
			json_number_value(json_object_get(c, "weight_grad")),
			json_number_value(json_object_get(c, "update")),
			it > 0 ? 100 *
				     (json_number_value(json_object_get(c, "forward")) +
				      json_number_value(json_object_get(c, "input_grad")) +
				      json_number_value(json_object_get(c, "weight_grad")) +
				      json_number_value(json_object_get(c, "update"))) /
				     it
			       : 0.0);
		print_colls(json_object_get(t, "collectives"), f);
		if (json_is_number(json_object_get(t, "interference")))
			fprintf(f,
				"  alone      %.3f us an iteration alone on the fabric: %+.2f%% "
				"beside the other jobs\n",
				json_number_value(json_object_get(t, "alone_iteration_time_us")),
				100 * json_number_value(json_object_get(t, "interference")));
		if (json_object_get(t, "notes")) {
			fputs("  notes      ", f);
			txt_fputs_term(json_string_value(json_object_get(t, "notes")), f);
			fputc('\n', f);
		}
	}
}
