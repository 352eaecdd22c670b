/*
 * summary.fast_forward (engine.fast_forward, models/ff.h): the settings,
 * how much of the run was skipped at steady rates, and an estimate of
 * what that may have moved the completions by: the time the senders were
 * held for drains, plus each span's length over the packets its least
 * measured rate was counted on (a rate is known to about one packet).
 */
#include <math.h>

#include "models/ff.h"
#include "sim/config/scenario.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"

static json_t *us3(simtime_t t)
{
	return json_real((double)llround(simtime_to_us(t) * 1000.0) / 1000.0);
}

static json_t *share(simtime_t part, simtime_t whole)
{
	return json_real(whole ? (double)llround((double)part / (double)whole * 1e6) / 1e6 : 0.0);
}

int res_add_fast_forward(json_t *root, const struct sim *sim)
{
	const struct ff_stats *st;
	json_t *ff;

	if (!sim->ff)
		return 0;
	st = ff_stats(sim->ff);
	ff = json_pack("{s:f,s:o,s:I,s:I,s:I,s:o,s:o,s:I,s:I,s:o,s:o}", "tolerance",
		       sim->scn->fast_forward.tolerance_ppm / 1e6, "window_us",
		       us3(sim->scn->fast_forward.window), "windows",
		       (json_int_t)sim->scn->fast_forward.windows, "spans", (json_int_t)st->spans,
		       "abandoned", (json_int_t)st->abandoned, "skipped_us", us3(st->skipped),
		       "skipped_share", share(st->skipped, sim->end_time), "packets_skipped",
		       (json_int_t)st->packets, "messages_completed", (json_int_t)st->messages,
		       "error_estimate_us", us3(st->drained + st->rate_err), "error_estimate_share",
		       share(st->drained + st->rate_err, sim->end_time));
	return ff ? json_object_set_new(json_object_get(root, "summary"), "fast_forward", ff) : -1;
}

void res_print_fast_forward(const json_t *j, FILE *f)
{
	const json_t *ff = json_object_get(json_object_get(j, "summary"), "fast_forward");

	if (!ff)
		return;
	fprintf(f,
		"  fast-fwd   %lld spans skipped %.3f us (%.1f%% of the run, %lld packets); "
		"error estimate %.3f us (%.3f%%)\n",
		(long long)json_integer_value(json_object_get(ff, "spans")),
		json_real_value(json_object_get(ff, "skipped_us")),
		100 * json_real_value(json_object_get(ff, "skipped_share")),
		(long long)json_integer_value(json_object_get(ff, "packets_skipped")),
		json_real_value(json_object_get(ff, "error_estimate_us")),
		100 * json_real_value(json_object_get(ff, "error_estimate_share")));
}
