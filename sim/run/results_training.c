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
#include <math.h>
#include <string.h>

#include "models/train.h"
#include "sim/engine/textsafe.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"

static json_t *us3(simtime_t t)
{
	return json_real((double)llround(simtime_to_us(t) * 1000.0) / 1000.0);
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
	    "source", json_string(sj->file ? "simai" : "layers"), "layout", "tp", (int)j->tp, "pp",
	    (int)j->pp, "dp", (int)j->dp, "ep", (int)j->ep, "vpp", (int)j->vpp, "ga", (int)j->ga,
	    "ranks", (int)(j->tp * j->pp * j->dp), "iterations", (int)st.done, "iteration_time_us",
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
	if (sj->file)
		json_object_set_new(o, "file", txt_json(sj->file));
	if (sj->notes[0])
		json_object_set_new(o, "notes", txt_json(sj->notes));
	if (!j->tokens)
		json_object_set_new(o, "tokens_note", json_string("give seq_len for tokens/s"));
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
		json_t *o = job_json(&s->jobs[i], sim->net->jobs[i]);

		if (!o ||
		    json_array_append_new(jobs, json_pack("{s:s,s:o}", "workload",
							  s->jobs[i].workload, "training", o))) {
			json_decref(jobs);
			return -ENOMEM;
		}
	}
	if (json_array_size(jobs) &&
	    json_object_set(json_object_get(root, "summary"), "training",
			    json_object_get(json_array_get(jobs, 0), "training"))) {
		json_decref(jobs);
		return -ENOMEM;
	}
	return json_object_set_new(root, "jobs", jobs) ? -ENOMEM : 0;
}

void res_print_training(const json_t *j, FILE *f)
{
	const json_t *jobs = json_object_get(j, "jobs"), *x;
	size_t i;

	json_array_foreach(jobs, i, x) {
		const json_t *t = json_object_get(x, "training");
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
		if (json_object_get(t, "notes")) {
			fputs("  notes      ", f);
			txt_fputs_term(json_string_value(json_object_get(t, "notes")), f);
			fputc('\n', f);
		}
	}
}
