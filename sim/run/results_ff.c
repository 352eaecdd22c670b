/*
 * summary.fast_forward (engine.fast_forward, models/ff.h): the settings,
 * how much of the run was skipped at steady rates, and an estimate of
 * what that may have moved the completions by: the time the senders were
 * held for drains, plus each span's length over the packets its least
 * measured rate was counted on (a rate is known to about one packet);
 * with groups (engine.fast_forward.groups), the time skipped summed over
 * them (its share over the run's time times their number), the error
 * the largest group's (a completion is one group's).
 * And the collectives' operations over NVLink replayed (exact: see
 * models/coll_memo.c), with the time they covered (summed over
 * collectives: it may exceed the run's).
 * And --verify-fast-forward's block: the summary's times (1%) and PAUSE
 * frames (5%, or 2 frames) of the run beside those of the same scenario
 * run packet by packet.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/ff.h"
#include "sim/config/scenario.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"

static json_t *us3(simtime_t t)
{
	return json_real((double)llround(simtime_to_us(t) * 1000.0) / 1000.0);
}

static json_t *share(simtime_t part, double whole)
{
	return json_real(whole > 0 ? (double)llround((double)part / whole * 1e6) / 1e6 : 0.0);
}

int res_add_fast_forward(json_t *root, const struct sim *sim)
{
	const struct ff_stats *st;
	json_t *ff;

	if (!sim->ff)
		return 0;
	st = ff_stats(sim->ff);
	ff = json_pack(
	    "{s:f,s:o,s:I,s:I,s:I,s:I,s:o,s:o,s:I,s:I,s:I,s:o,s:o}", "tolerance",
	    sim->scn->fast_forward.tolerance_ppm / 1e6, "window_us",
	    us3(sim->scn->fast_forward.window), "windows",
	    (json_int_t)sim->scn->fast_forward.windows, "groups", (json_int_t)ff_groups(sim->ff),
	    "spans", (json_int_t)st->spans, "abandoned", (json_int_t)st->abandoned, "skipped_us",
	    us3(st->skipped), "skipped_share",
	    share(st->skipped, (double)sim->end_time * ff_groups(sim->ff)), "packets_skipped",
	    (json_int_t)st->packets, "messages_completed", (json_int_t)st->messages, "capped_qps",
	    (json_int_t)st->capped, "error_estimate_us", us3(st->edge_err + st->rate_err),
	    "error_estimate_share", share(st->edge_err + st->rate_err, (double)sim->end_time));
	if (ff && json_object_set_new(ff, "replayed",
				      json_pack("{s:I,s:o}", "operations",
						(json_int_t)sim->net->ctx.replayed.ops, "time_us",
						us3(sim->net->ctx.replayed.time)))) {
		json_decref(ff);
		return -1;
	}
	if (ff && json_object_set_new(ff, "ended_by",
				      json_pack("{s:I,s:I,s:I,s:I,s:I}", "dry",
						(json_int_t)st->ends[FF_END_DRY], "post",
						(json_int_t)st->ends[FF_END_POST], "change",
						(json_int_t)st->ends[FF_END_TOUCH], "limit",
						(json_int_t)st->ends[FF_END_LIMIT], "run_end",
						(json_int_t)st->ends[FF_END_RUN]))) {
		json_decref(ff);
		return -1;
	}
	return ff ? json_object_set_new(json_object_get(root, "summary"), "fast_forward", ff) : -1;
}

static json_int_t ff_end_count(const json_t *ff, const char *why)
{
	return json_integer_value(json_object_get(json_object_get(ff, "ended_by"), why));
}

void res_print_fast_forward(const json_t *j, FILE *f)
{
	const json_t *ff = json_object_get(json_object_get(j, "summary"), "fast_forward");

	if (!ff)
		return;
	if (json_integer_value(json_object_get(ff, "groups")) > 1)
		fprintf(
		    f,
		    "  fast-fwd   %lld groups of QPs sharing no link or switch, each on its own\n",
		    (long long)json_integer_value(json_object_get(ff, "groups")));
	fprintf(f,
		"  fast-fwd   %lld spans skipped %.3f us (%.1f%% of the run, %lld packets); "
		"error estimate %.3f us (%.3f%%)\n",
		(long long)json_integer_value(json_object_get(ff, "spans")),
		json_real_value(json_object_get(ff, "skipped_us")),
		100 * json_real_value(json_object_get(ff, "skipped_share")),
		(long long)json_integer_value(json_object_get(ff, "packets_skipped")),
		json_real_value(json_object_get(ff, "error_estimate_us")),
		100 * json_real_value(json_object_get(ff, "error_estimate_share")));
	if (json_integer_value(json_object_get(ff, "spans")))
		fprintf(f,
			"             spans ended: %lld a QP ran dry, %lld a post to an idle QP, "
			"%lld a fault or storm, %lld the length limit, %lld the run's end\n",
			(long long)ff_end_count(ff, "dry"), (long long)ff_end_count(ff, "post"),
			(long long)ff_end_count(ff, "change"), (long long)ff_end_count(ff, "limit"),
			(long long)ff_end_count(ff, "run_end"));
	if (json_integer_value(json_object_get(json_object_get(ff, "replayed"), "operations")))
		fprintf(
		    f,
		    "             %lld NVLink operations replayed, %.3f us (exact: measured "
		    "once, the same again)\n",
		    (long long)json_integer_value(
			json_object_get(json_object_get(ff, "replayed"), "operations")),
		    json_real_value(json_object_get(json_object_get(ff, "replayed"), "time_us")));
}

/* A metric of summary: its dotted path, and how near it must come. */
struct vmetric {
	const char *path;
	int count; /* frames or packets: 5% or 2; otherwise a time or bytes: 1% */
};

static const struct vmetric vmetrics[] = {
    {"done_us", 0},
    {"fct_us.p50", 0},
    {"fct_us.p99", 0},
    {"fct_us.max", 0},
    {"training.iteration_time_us", 0},
    {"bytes.received", 0},
    {"pfc_pause_frames", 1},
    {"drops", 1},
    {"lossless_drops", 1},
};

static const json_t *at_path(const json_t *j, const char *path)
{
	char part[64];

	while (j && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(part))
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		j = json_object_get(j, part);
		path += n + (path[n] == '.');
	}
	return j;
}

/* One row: @name's value with (@a) and without (@b) fast-forward. */
static int vrow(json_t *rows, const char *name, double a, double b, int count)
{
	double diff = b ? (a - b) / b : (a ? 1.0 : 0.0);
	int within = count ? fabs(a - b) <= 2 || fabs(diff) <= 0.05 : fabs(diff) <= 0.01;

	if (json_array_append_new(rows,
				  json_pack("{s:s,s:f,s:f,s:f,s:b}", "metric", name, "with", a,
					    "without", b, "diff_share", diff, "within", within)))
		return -1;
	return !within;
}

int res_add_verify(json_t *res, const json_t *full)
{
	const json_t *sa = json_object_get(res, "summary"), *sb = json_object_get(full, "summary");
	const json_t *ca = json_object_get(sa, "collectives"),
		     *cb = json_object_get(sb, "collectives");
	json_t *rows = json_array(), *v;
	int outside = 0, r;
	char name[64];

	if (!rows)
		return -1;
	for (size_t i = 0; i < sizeof(vmetrics) / sizeof(vmetrics[0]); i++) {
		const json_t *a = at_path(sa, vmetrics[i].path), *b = at_path(sb, vmetrics[i].path);

		if (!json_is_number(a) || !json_is_number(b))
			continue;
		if ((r = vrow(rows, vmetrics[i].path, json_number_value(a), json_number_value(b),
			      vmetrics[i].count)) < 0)
			goto fail;
		outside += r;
	}
	for (size_t i = 0; i < json_array_size(ca) && i < json_array_size(cb); i++) {
		const json_t *a = json_object_get(json_array_get(ca, i), "completion_time_us");
		const json_t *b = json_object_get(json_array_get(cb, i), "completion_time_us");

		if (!json_is_number(a) || !json_is_number(b))
			continue;
		snprintf(name, sizeof(name), "collectives[%zu].completion_time_us", i);
		if ((r = vrow(rows, name, json_number_value(a), json_number_value(b), 0)) < 0)
			goto fail;
		outside += r;
	}
	v = json_pack("{s:o,s:I,s:I,s:b}", "metrics", rows, "events_with",
		      json_integer_value(json_object_get(json_object_get(res, "run"), "events")),
		      "events_without",
		      json_integer_value(json_object_get(json_object_get(full, "run"), "events")),
		      "within", !outside);
	rows = NULL;
	if (!v || json_object_set_new(res, "verify_fast_forward", v))
		return -1;
	return outside;
fail:
	json_decref(rows);
	return -1;
}

void res_print_verify(const json_t *res, FILE *f)
{
	const json_t *v = json_object_get(res, "verify_fast_forward");
	const json_t *rows = json_object_get(v, "metrics");

	if (!v)
		return;
	fprintf(f,
		"  verify     fast-forward against the packet-by-packet run (%lld events "
		"against %lld):\n",
		(long long)json_integer_value(json_object_get(v, "events_with")),
		(long long)json_integer_value(json_object_get(v, "events_without")));
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i);

		fprintf(f, "    %-36s %14.3f %14.3f %+8.3f%%  %s\n",
			json_string_value(json_object_get(r, "metric")),
			json_real_value(json_object_get(r, "with")),
			json_real_value(json_object_get(r, "without")),
			100 * json_real_value(json_object_get(r, "diff_share")),
			json_is_true(json_object_get(r, "within")) ? "ok" : "OUTSIDE");
	}
}
