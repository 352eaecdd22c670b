/*
 * The DCQCN fluid model: its integration against its closed-form fixed
 * point (CoNEXT 2016, the paper's constants, N = 2, 8, 16 at 40G and
 * 100G), the oscillation the paper reports (about ten flows at 85 us of
 * feedback delay, not two), then `rocesim fluid` as users meet it and the
 * packet model against it: with np_cnp_mode window the packet model's
 * mean queue after the transient is within 15% of the fluid model's, and
 * an oscillating set oscillates in both with periods within 30%.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/fluid.h"
#include "proc.h"

static void setup(void)
{
	ts_proc_setup("fluid");
}

TestSuite(fluid, .init = setup, .fini = ts_proc_teardown, .timeout = 600);

/* The paper's constants at @gbps for @n flows, in 1000-byte model packets. */
static struct fluid_params paper(unsigned n, double gbps, double kmax_kb, double delay_us)
{
	double pkt = 1000;

	return (struct fluid_params){.n = n,
				     .c = gbps * 1e9 / 8 / pkt,
				     .kmin = 5e3 / pkt,
				     .kmax = kmax_kb * 1e3 / pkt,
				     .pmax = 0.01,
				     .g = 1.0 / 256,
				     .tau = 50e-6,
				     .tau_alpha = 55e-6,
				     .t = 55e-6,
				     .b = 10e6 / pkt,
				     .f = 5,
				     .r_ai = 40e6 / 8 / pkt,
				     .r_min = 100e6 / 8 / pkt,
				     .cut_scale = 0.5,
				     .cut_max = 1,
				     .clamp_always = 1,
				     .delay = delay_us * 1e-6};
}

Test(fluid, the_integration_settles_on_the_closed_form_fixed_point)
{
	static const unsigned flows[] = {2, 8, 16};
	static const double speeds[] = {40, 100};

	/* stability.m's Kmax (1000 KB); at 40G, 16 flows need p* = 1.09%, above
	 * pmax: that equilibrium sits at Kmax, where RED jumps to 1 */
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < 3; i++) {
			struct fluid_params fp = paper(flows[i], speeds[s], 1000, 4);
			struct fluid_point pt;
			struct fluid_run r;

			cr_assert_eq(fluid_fixed_point(&fp, &pt), 0);
			cr_assert_eq(fluid_integrate(&fp, 0.2, 1e-6, 1e-5, &r), 0);
			cr_expect_lt(fabs(r.mean.q / pt.q - 1), 0.05,
				     "%.0fG N=%u: %.2f vs %.2f pkts", speeds[s], flows[i], r.mean.q,
				     pt.q);
			cr_expect_lt(fabs(r.mean.rate / pt.rate - 1), 0.01);
			cr_expect_not(r.oscillates);
			/* the fixed point itself: every flow at C/N, p* on RED's line */
			cr_expect_float_eq(pt.rate, fp.c / flows[i], 1e-6);
			if (pt.p <= fp.pmax)
				cr_expect_float_eq(
				    pt.q, fp.kmin + pt.p / fp.pmax * (fp.kmax - fp.kmin), 1e-9);
			else
				cr_expect_float_eq(pt.q, fp.kmax, 1e-9);
			fluid_run_free(&r);
		}
	}
}

Test(fluid, the_queue_grows_with_the_flows_as_the_small_p_approximation_says)
{
	double prev = 0;

	for (unsigned n = 2; n <= 8; n *= 2) {
		struct fluid_params fp = paper(n, 40, 1000, 4);
		struct fluid_point pt;
		double r = fp.c / n, approx = cbrt(fp.r_ai * n * n / (fp.tau_alpha * fp.c * fp.c) *
						   pow(1 / fp.b + n / (fp.t * fp.c), 2));

		cr_assert_eq(fluid_fixed_point(&fp, &pt), 0);
		cr_expect_gt(pt.q, prev);
		prev = pt.q;
		/* p* ~ cbrt(R_AI N^2 / (tau' C^2) (1/B + N/(T C))^2), small p */
		cr_expect_lt(fabs(pt.p / approx - 1), 0.25, "N=%u: %g vs %g", n, pt.p, approx);
		(void)r;
	}
}

Test(fluid, ten_flows_oscillate_at_85_us_of_feedback_delay_two_do_not)
{
	struct fluid_params two = paper(2, 40, 200, 85), ten = paper(10, 40, 200, 85);
	struct fluid_run a, b;

	cr_assert_eq(fluid_integrate(&two, 0.2, 1e-6, 1e-5, &a), 0);
	cr_assert_eq(fluid_integrate(&ten, 0.2, 1e-6, 1e-5, &b), 0);
	cr_expect_not(a.oscillates, "N=2: amplitude %.1f pkts", a.amplitude);
	cr_expect(b.oscillates, "N=10: amplitude %.1f pkts", b.amplitude);
	cr_expect_gt(b.period, 1e-3);
	cr_expect_lt(b.period, 5e-3);
	fluid_run_free(&a);
	fluid_run_free(&b);
}

/*
 * The verdict widened where the packet model disagrees
 * (experiments/fluid-grid/grid.sh): 8 flows at 40G with 50 us of feedback
 * delay, where the packet model drains the queue to zero 12% of the time.
 * The run settles flat at the fixed point and fills the port, which used
 * to read "converges"; but p* is about 0.46% (the small-p approximation
 * above gives 0.44%), under 0.9 x pmax = 0.9%: the fixed point is on RED's
 * slope; and at 10 x 50 us the model oscillates. So: unsure, for both.
 */
Test(fluid, eight_flows_at_50_us_are_unsure_not_converging)
{
	struct fluid_params fp = paper(8, 40, 200, 50);
	struct fluid_point pt;
	struct fluid_run r;
	unsigned why = 0;

	cr_assert_eq(fluid_fixed_point(&fp, &pt), 0);
	cr_expect_lt(pt.p, FLUID_SLOPE_SHARE * fp.pmax, "p* %g", pt.p);
	cr_expect_gt(pt.p, 0.004);
	cr_assert_eq(fluid_integrate(&fp, 0.1, 1e-6, 1e-5, &r), 0);
	/* what the verdict used to be made of: flat, and the port full */
	cr_expect_not(r.oscillates);
	cr_expect_geq(fp.n * r.mean.rate, 0.99 * fp.c);
	cr_expect_eq(fluid_judge(&fp, &pt, &r, 0.1, 1e-6, 1e-5, &why), FLUID_UNSURE);
	cr_expect_eq(why, FLUID_THIN_SLOPE | FLUID_THIN_DELAY);
	cr_expect_str_eq(fluid_verdict_name(FLUID_UNSURE), "unsure");
	fluid_run_free(&r);
}

/* 16 flows at 40G and 4 us: p* = 1.09% is above pmax, the fixed point
 * sits at Kmax (no slope to doubt), and the run converges; at 16 us the
 * model oscillates (it already does at 10 us on the grid), so the margin
 * on the delay alone makes it unsure. No fixed point at all: unsure too. */
Test(fluid, a_thin_delay_margin_alone_makes_the_verdict_unsure)
{
	struct fluid_params fp = paper(16, 40, 200, 4);
	struct fluid_point pt;
	struct fluid_run r;
	unsigned why = 0;

	cr_assert_eq(fluid_fixed_point(&fp, &pt), 0);
	cr_expect_gt(pt.p, fp.pmax);
	cr_expect_float_eq(pt.q, fp.kmax, 1e-9);
	cr_assert_eq(fluid_integrate(&fp, 0.1, 1e-6, 1e-5, &r), 0);
	cr_expect_not(r.oscillates);
	cr_expect_eq(fluid_judge(&fp, &pt, &r, 0.1, 1e-6, 1e-5, &why), FLUID_UNSURE);
	cr_expect_eq(why, FLUID_THIN_DELAY);
	cr_expect_eq(fluid_judge(&fp, NULL, &r, 0.1, 1e-6, 1e-5, &why), FLUID_UNSURE);
	cr_expect_eq(why, FLUID_THIN_SLOPE | FLUID_THIN_DELAY);
	fluid_run_free(&r);
}

Test(fluid, bad_parameters_are_refused)
{
	struct fluid_params fp = paper(2, 40, 200, 4);
	struct fluid_run r;

	cr_expect_eq(fluid_integrate(&fp, 0.01, 0, 1e-5, &r), -EINVAL);
	cr_expect_eq(fluid_integrate(&fp, 0.01, 10e-6, 1e-5, &r), -EINVAL,
		     "a step above the delay");
	/* 1 ms at 1 ps: 10^9 steps, 16 GB of history */
	cr_expect_eq(fluid_integrate(&fp, 1e-3, 1e-12, 1e-6, &r), -E2BIG);
	fp.n = 0;
	cr_expect_eq(fluid_integrate(&fp, 0.01, 1e-6, 1e-5, &r), -EINVAL);
}

/* ---- the verb, and the packet model beside it ---- */

/* A paper-variant incast of @n flows at @gbps over @cable, ECN as the paper. */
static const char *incast(const char *name, unsigned n, unsigned gbps, const char *cable,
			  const char *kmax, const char *mode, const char *stop)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fprintf(f,
		"name: %s\nseed: 1\nstop: %s\n"
		"topology: {kind: star, hosts: %u, link: {rate: %uGbps, cable: %s}}\n"
		"switch:\n  buffer: {size: 256MB}\n  pfc: {xoff: 64MB, headroom: 8MB}\n"
		"  ecn: {kmin: 5KB, kmax: %s, pmax: 1%%}\n"
		"nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper, np_cnp_mode: %s}}\n"
		"workload: {kind: incast, senders: %u, size: 10GB}\n"
		"output: {sample: 10us, timeseries: samples}\n",
		name, stop, n + 1, gbps, cable, kmax, mode, n);
	fclose(f);
	return path;
}

static json_t *fluid_json(const char *scn)
{
	struct ts_proc p;
	json_t *j, *b;

	ts_exec(&p, (const char *[]){"fluid", scn, "--json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "%s", p.out);
	ts_proc_free(&p);
	b = json_incref(json_array_get(json_object_get(j, "bottlenecks"), 0));
	json_decref(j);
	cr_assert(b);
	return b;
}

/* The packet model's queue at port @port: its mean over the last two
 * thirds of the run, and the period of its upward crossings of that mean
 * (the series smoothed over 100 us, crossings closer than 300 us merged);
 * the scenarios sample every 10 us (output.timeseries: samples). */
static double packet_queue(const char *scn, const char *port, unsigned seed, double *period_us)
{
	char dir[300], path[400], line[256], seed_arg[16];
	double *q = NULL, *t = NULL, mean = 0, first = 0, last = 0;
	size_t n = 0, cap = 0, from, crossings = 0;
	struct ts_proc p;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("packet"));
	snprintf(seed_arg, sizeof(seed_arg), "%u", seed);
	ts_exec(&p, (const char *[]){"run", scn, "-o", dir, "--quiet", "--seed", seed_arg, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	cr_assert(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		double tu, qb;
		int prio;

		if (sscanf(line, "%lf,%63[^,],%d,%lf", &tu, name, &prio, &qb) != 4 ||
		    strcmp(name, port))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			q = realloc(q, cap * sizeof(*q));
			t = realloc(t, cap * sizeof(*t));
			cr_assert(q && t);
		}
		t[n] = tu;
		q[n++] = qb;
	}
	fclose(f);
	cr_assert_gt(n, 100);
	from = n / 3;
	for (size_t i = from; i < n; i++)
		mean += q[i];
	mean /= (double)(n - from);
	if (period_us) {
		double prev = 0;

		for (size_t i = from; i < n; i++) {
			double s = 0;
			size_t w = 0;

			for (size_t k = i >= 9 ? i - 9 : 0; k <= i; k++, w++)
				s += q[k];
			s /= (double)w;
			if (i > from && prev < mean && s >= mean &&
			    (!crossings || t[i] - last > 300)) {
				if (!crossings++)
					first = t[i];
				last = t[i];
			}
			prev = s;
		}
		*period_us = crossings > 1 ? (last - first) / (double)(crossings - 1) : 0;
	}
	free(q);
	free(t);
	return mean;
}

Test(fluid, the_packet_model_with_window_cnps_is_within_15_percent_of_the_fluid_model)
{
	static const struct {
		unsigned n, gbps;
		double tolerance;
	} cases[] = {
	    {2, 40, 0.15},
	    {8, 40, 0.15},
	    {2, 100, 0.15},
	    /* +13.5% over seeds 1-3 (+13.6% over seeds 1-8:
	     * experiments/fluid/validate.sh); the packet model's alpha steps
	     * per CNP and its counters reset per cut, which the fluid model
	     * smooths (docs/validation.md) */
	    {8, 100, 0.17},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32], port[32];
		const char *scn;
		json_t *b;
		double fluid, packet;

		snprintf(name, sizeof(name), "w%u-%u.yaml", cases[i].n, cases[i].gbps);
		scn = incast(name, cases[i].n, cases[i].gbps, "2m", "200KB", "window", "100ms");
		b = fluid_json(scn);
		fluid = json_number_value(
		    json_object_get(json_object_get(b, "settled"), "queue_bytes"));
		cr_expect_lt(fabs(fluid / json_number_value(json_object_get(
					      json_object_get(b, "fixed_point"), "queue_bytes")) -
				  1),
			     0.01);
		json_decref(b);
		snprintf(port, sizeof(port), "sw0:h%u", cases[i].n);
		/* one seed's queue moves by 5-20% from the next one's: seeds 1-3 */
		packet = 0;
		for (unsigned seed = 1; seed <= 3; seed++)
			packet += packet_queue(scn, port, seed, NULL) / 3;
		cr_expect_lt(fabs(packet / fluid - 1), cases[i].tolerance,
			     "%uG N=%u: packet %.0f B, fluid %.0f B", cases[i].gbps, cases[i].n,
			     packet, fluid);
	}
}

Test(fluid, an_oscillating_set_oscillates_in_both_models_with_periods_within_30_percent)
{
	/* 5,666 m cables: a mark's loop (bottleneck link twice, the sender's
	 * link once) is 85 us */
	const char *scn = incast("osc.yaml", 10, 40, "5666m", "200KB", "window", "200ms");
	json_t *b = fluid_json(scn);
	double fluid_period = json_number_value(json_object_get(b, "period_us")), packet_period;

	cr_expect(json_is_true(json_object_get(b, "oscillates")));
	cr_expect_lt(fabs(json_number_value(json_object_get(b, "feedback_delay_us")) - 85), 1);
	json_decref(b);
	packet_queue(scn, "sw0:h10", 1, &packet_period);
	cr_assert_gt(packet_period, 0);
	cr_expect_lt(fabs(packet_period / fluid_period - 1), 0.30, "packet %.0f us, fluid %.0f us",
		     packet_period, fluid_period);
}

Test(fluid, the_verb_refuses_what_it_cannot_model)
{
	struct ts_proc p;
	const char *scn = ts_tmp("nodcqcn.yaml");
	FILE *f = fopen(scn, "w");

	cr_assert(f);
	fputs("topology: {kind: star, hosts: 3}\nnic: {cc: none}\n"
	      "workload: {kind: incast, senders: 2, size: 1MB}\n",
	      f);
	fclose(f);
	ts_exec(&p, (const char *[]){"fluid", scn, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "needs DCQCN") != NULL, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"fluid", "experiments/seed-cluster.yaml", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "no bottleneck") != NULL, "%s", p.err);
	ts_proc_free(&p);
	/* 10^9 steps grew past 1 GB: refused, the limit named */
	ts_exec(&p, (const char *[]){"fluid", "experiments/incast-8to1.yaml", "--duration", "1ms",
				     "--step", "1ps", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "--duration is more than 10,000,000 steps of --step") != NULL, "%s",
		  p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"fluid", "experiments/seed-ladder-incast.yaml", "-o",
				     ts_tmp("fl-out"), NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	{
		char path[400];

		snprintf(path, sizeof(path), "%s/fluid-sw0-h8.csv", ts_tmp("fl-out"));
		cr_expect(access(path, F_OK) == 0, "%s", path);
	}
}

/* --model fluid: a sweep's and a tune's points run `rocesim fluid`, whose
 * results.json carries summary.fluid */
Test(fluid, sweeps_and_tunes_run_the_fluid_model_with_model_fluid)
{
	char dir[300], csv[400], *text;
	struct ts_proc p;
	json_t *j;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("fsweep"));
	ts_exec(&p, (const char *[]){"sweep", "experiments/fluid/oscillation.yaml", "--model",
				     "fluid", "--vary", "topology.hosts=3,11", "--zip", "--vary",
				     "workload.senders=2,10", "-o", dir, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	snprintf(csv, sizeof(csv), "%s/sweep.csv", dir);
	text = ts_slurp(csv);
	cr_assert(text);
	cr_expect(strstr(text, "fluid.oscillates") != NULL, "%s", text);
	free(text);
	snprintf(csv, sizeof(csv), "%s/sweep.json", dir);
	j = json_load_file(csv, 0, NULL);
	cr_expect_str_eq(json_string_value(json_object_get(j, "model")), "fluid");
	json_decref(j);

	snprintf(dir, sizeof(dir), "%s", ts_tmp("ftune"));
	ts_exec(&p, (const char *[]){"tune", "experiments/fluid/oscillation.yaml", "--model",
				     "fluid", "--vary", "nic.dcqcn.rp_ai_rate=1..40", "--maximize",
				     "nic.dcqcn.rp_ai_rate", "--subject-to",
				     "fluid.oscillates == 0", "-o", dir, NULL});
	/* ten flows at 85 us: every point that does not oscillate is unsure
	 * (or, at 1 Mb/s, still settling after 100 ms): none is an answer */
	cr_expect_eq(p.code, 1, "%s", p.err);
	cr_expect(strstr(p.err, "where the fluid model gives no verdict") != NULL, "%s", p.err);
	cr_expect(strstr(p.err, "confirm them with --model packet") != NULL, "%s", p.err);
	ts_proc_free(&p);
	/* packet metrics are not the fluid model's */
	ts_exec(&p, (const char *[]){"tune", "experiments/fluid/oscillation.yaml", "--model",
				     "fluid", "--vary", "nic.dcqcn.rp_ai_rate=1..40", "--minimize",
				     "pfc_pause_frames", "-o", ts_tmp("ftune-bad"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "unknown metric (expected a varied key or one of: fluid.") != NULL,
		  "%s", p.err);
	ts_proc_free(&p);
}

/* A cross-leaf permutation over 4:1 oversubscribed uplinks: the uplinks are
 * the bottlenecks (four flows each), not the spine's ports behind them nor
 * the receivers' ports (one flow each). */
Test(fluid, a_permutation_over_oversubscribed_uplinks_finds_the_uplinks)
{
	static const char *const want[] = {"leaf0:spine0", "leaf1:spine0"};
	const char *scn = ts_tmp("ls.yaml");
	FILE *f = fopen(scn, "w");
	struct ts_proc p;
	json_t *j, *b;

	cr_assert(f);
	fputs("name: ls\n"
	      "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4,\n"
	      "  link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
	      "switch: {ecn: {kmin: 20KB, kmax: 200KB}}\n"
	      "nic: {cc: dcqcn}\n"
	      "workload:\n  kind: flows\n  flows:\n",
	      f);
	for (int i = 0; i < 8; i++)
		fprintf(f, "    - {src: h%d, dst: h%d, size: 10MB}\n", i, (i + 4) % 8);
	fclose(f);
	ts_exec(&p, (const char *[]){"fluid", scn, "--json", "--duration", "2ms", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "%s", p.out);
	b = json_object_get(j, "bottlenecks");
	cr_assert_eq(json_array_size(b), 2, "%s", p.out);
	for (size_t i = 0; i < 2; i++) {
		const json_t *e = json_array_get(b, i), *ids = json_object_get(e, "flow_ids");

		cr_expect_str_eq(json_string_value(json_object_get(e, "port")), want[i]);
		cr_expect_eq(json_integer_value(json_object_get(e, "flows")), 4);
		cr_expect_eq(json_array_size(ids), 4);
		/* leaf0's hosts send through leaf0's uplink, leaf1's through leaf1's */
		cr_expect_eq(json_integer_value(json_array_get(ids, 0)), (json_int_t)(4 * i));
		cr_expect_float_eq(json_number_value(json_object_get(e, "rate_bps")), 100e9, 1);
	}
	json_decref(j);
	ts_proc_free(&p);
}

/* The mlx5 variant's fluid mapping does not agree with the packet model (a
 * 60 KB queue against 4.4 MB on the 8:1 incast): a sweep or a tune that
 * would pre-screen with it is refused before anything runs, and says what
 * to use instead. `rocesim fluid` alone still answers, as a sketch. */
Test(fluid, sweeps_and_tunes_refuse_the_mlx5_variant)
{
	struct ts_proc p;
	char dir[300];

	snprintf(dir, sizeof(dir), "%s", ts_tmp("fsweep-mlx5"));
	ts_exec(&p, (const char *[]){"sweep", "experiments/incast-8to1.yaml", "--model", "fluid",
				     "--vary", "nic.dcqcn.rp_ai_rate=5,10", "-o", dir, "--quiet",
				     NULL});
	cr_expect_eq(p.code, 2, "%s", p.err);
	cr_expect(strstr(p.err, "mlx5 variant does not agree with the packet model") != NULL, "%s",
		  p.err);
	cr_expect(strstr(p.err, "run --model packet, or set nic.dcqcn.variant: paper") != NULL,
		  "%s", p.err);
	cr_expect(access(dir, F_OK) != 0, "%s was made", dir);
	ts_proc_free(&p);
	/* a variant axis reaching mlx5 is refused as well */
	ts_exec(&p, (const char *[]){"sweep", "experiments/fluid/oscillation.yaml", "--model",
				     "fluid", "--vary", "nic.dcqcn.variant=paper,mlx5", "-o",
				     ts_tmp("fsweep-mlx5b"), "--quiet", NULL});
	cr_expect_eq(p.code, 2, "%s", p.err);
	cr_expect(strstr(p.err, "p002 (nic.dcqcn.variant=mlx5)") != NULL, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"tune", "experiments/incast-8to1.yaml", "--model", "fluid",
				     "--vary", "nic.dcqcn.rp_ai_rate=1..40", "--maximize",
				     "nic.dcqcn.rp_ai_rate", "--subject-to",
				     "fluid.oscillates == 0", "-o", ts_tmp("ftune-mlx5"), NULL});
	cr_expect_eq(p.code, 2, "%s", p.err);
	cr_expect(strstr(p.err, "mlx5 variant does not agree with the packet model") != NULL, "%s",
		  p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"fluid", "experiments/incast-8to1.yaml", "--quiet", NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
}

/* A star of @n senders at @gbps into one receiver, the paper variant with
 * a mark's loop of about @delay_us (three cables at 5 ns/m): as
 * experiments/fluid-grid/grid.sh writes its points. */
static const char *grid_point(const char *name, unsigned n, unsigned gbps, unsigned delay_us)
{
	const char *scn = ts_tmp(name);
	FILE *f = fopen(scn, "w");

	cr_assert(f);
	fprintf(f,
		"name: %s\nseed: 1\nstop: 60ms\n"
		"topology: {kind: star, hosts: %u, link: {rate: %uGbps, cable: %.0fm}}\n"
		"switch:\n  buffer: {size: 256MB}\n  pfc: {xoff: 64MB, headroom: 1MB}\n"
		"  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%%}\n"
		"nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper}}\n"
		"workload: {kind: incast, senders: %u, size: 100GB}\n",
		name, n + 1, gbps, (delay_us * 1e3 - 1106 * 8.0 / gbps) / 15, n);
	fclose(f);
	return scn;
}

/*
 * sweep --model fluid over the grid's 100G x 32 flows at 4 and 50 us: at
 * 4 us the packet model settles (168 KB, swinging 21%) and the fluid model
 * converges; at 50 us the packet model drains the queue 18% of the time,
 * where the fluid model's run is flat too but oscillates at 500 us. The
 * second is unsure: fluid.converges 0, the table says it is no pass.
 */
Test(fluid, a_fluid_sweep_does_not_pass_an_unsure_point)
{
	const char *scn = grid_point("g32.yaml", 32, 100, 4);
	char dir[300], csv[400], *text, *line;
	struct ts_proc p;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("fsweep-unsure"));
	ts_exec(&p, (const char *[]){"sweep", scn, "--model", "fluid", "--vary",
				     "topology.link.cable=266m,3326m", "-o", dir, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "1 of 2 runs unsure (fluid.unsure 1, from p002-s1)") != NULL, "%s",
		  p.out);
	cr_expect(strstr(p.out, "not a pass: run them with --model packet") != NULL, "%s", p.out);
	ts_proc_free(&p);
	snprintf(csv, sizeof(csv), "%s/sweep.csv", dir);
	text = ts_slurp(csv);
	cr_assert(text);
	line = strstr(text, "p001-s1,");
	cr_assert(line, "%s", text);
	cr_expect(strstr(line, ",converges,1,0,") != NULL, "%s", text);
	line = strstr(text, "p002-s1,");
	cr_assert(line, "%s", text);
	cr_expect(strstr(line, ",0,unsure,0,1,") != NULL, "%s", text);
	free(text);
	/* rocesim fluid says why */
	ts_exec(&p, (const char *[]){"fluid", scn, "--set", "topology.link.cable=3326m", NULL});
	cr_expect_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "unsure (it converges, but it oscillates at 10x the feedback "
				"delay: the packet model may drain the queue or swing; confirm "
				"with rocesim run)") != NULL,
		  "%s", p.out);
	ts_proc_free(&p);
}

/*
 * Collectives: their edges between servers as flows (each QP one, from
 * its NIC). All-to-All over two leaves of four hosts and one spine, 100G
 * everywhere: each host sends 7 flows (3 on its leaf, 4 across), so each
 * brings 100/7 Gb/s; the 16 that leave a leaf share its uplink (228 Gb/s
 * > 100: a bottleneck); a host's port takes 3 x 100/7 + 4 x 100/16 = 68
 * Gb/s: none. A 4-channel ring over the same hosts sends 4 QPs across each
 * uplink, 25 Gb/s each from one NIC: 100 Gb/s fits a 100G uplink, not a
 * 50G one.
 */
Test(fluid, collectives_are_screened_on_the_ports_their_edges_share)
{
	static const char *const want[] = {"leaf0:spine0", "leaf1:spine0"};
	const char *a2a = ts_tmp("a2a.yaml"), *ring = ts_tmp("ring.yaml");
	const char *head =
	    "name: coll\n"
	    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4,\n"
	    "  link: {rate: 100Gbps, cable: 2m}, uplink: {rate: %sGbps, cable: 10m}}\n"
	    "switch: {ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%%}}\n"
	    "nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper}}\n";
	struct ts_proc p;
	json_t *j, *b;
	FILE *f = fopen(a2a, "w");

	cr_assert(f);
	fprintf(f, head, "100");
	fputs("workload: {kind: alltoall, size: 64MB}\n", f);
	fclose(f);
	ts_exec(&p, (const char *[]){"fluid", a2a, "--json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "%s", p.out);
	b = json_object_get(j, "bottlenecks");
	cr_assert_eq(json_array_size(b), 2, "%s", p.out);
	for (size_t i = 0; i < 2; i++) {
		const json_t *e = json_array_get(b, i);

		cr_expect_str_eq(json_string_value(json_object_get(e, "port")), want[i]);
		cr_expect_eq(json_integer_value(json_object_get(e, "flows")), 16);
	}
	json_decref(j);
	ts_proc_free(&p);

	f = fopen(ring, "w");
	cr_assert(f);
	fprintf(f, head, "100");
	fputs("workload: {kind: allreduce, size: 64MB, channels: 4}\n", f);
	fclose(f);
	ts_exec(&p, (const char *[]){"fluid", ring, NULL});
	cr_expect_eq(p.code, 2, "%s", p.err);
	cr_expect(strstr(p.err, "no bottleneck") != NULL, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"fluid", ring, "--set", "topology.uplink.rate=50Gbps",
				     "--json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "%s", p.out);
	b = json_object_get(j, "bottlenecks");
	cr_assert_eq(json_array_size(b), 2, "%s", p.out);
	for (size_t i = 0; i < 2; i++) {
		const json_t *e = json_array_get(b, i);

		cr_expect_str_eq(json_string_value(json_object_get(e, "port")), want[i]);
		cr_expect_eq(json_integer_value(json_object_get(e, "flows")), 4);
	}
	json_decref(j);
	ts_proc_free(&p);
}

/* Two incasts on one switch at 100G and 4 us: 32 flows into h40 (the
 * grid's one converging point: 182 KB at Kmax) and 8 into h41 (35.6 KB on
 * RED's slope: unsure). summary.fluid names the larger queue, h40's, but
 * its verdict is the worst of the two: unsure, not a pass. */
Test(fluid, the_summary_verdict_is_the_worst_of_the_bottlenecks)
{
	const char *scn = ts_tmp("two.yaml");
	char dir[300], path[400];
	FILE *f = fopen(scn, "w");
	struct ts_proc p;
	json_t *j, *fl;

	cr_assert(f);
	fputs("name: two\n"
	      "topology: {kind: star, hosts: 42, link: {rate: 100Gbps, cable: 266m}}\n"
	      "switch:\n  buffer: {size: 256MB}\n  pfc: {xoff: 64MB, headroom: 1MB}\n"
	      "  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}\n"
	      "nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper}}\n"
	      "workload:\n  kind: flows\n  flows:\n",
	      f);
	for (int i = 0; i < 40; i++)
		fprintf(f, "    - {src: h%d, dst: h%d, size: 100GB}\n", i, i < 32 ? 40 : 41);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s", ts_tmp("two-out"));
	ts_exec(&p, (const char *[]){"fluid", scn, "-o", dir, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "bottleneck sw0:h40: 32 flows") != NULL, "%s", p.out);
	cr_expect(strstr(p.out, "Gb/s per flow: converges\n") != NULL, "%s", p.out);
	cr_expect(strstr(p.out, "bottleneck sw0:h41: 8 flows") != NULL, "%s", p.out);
	cr_expect(strstr(p.out, "Gb/s per flow: unsure (") != NULL, "%s", p.out);
	ts_proc_free(&p);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "%s", path);
	fl = json_object_get(json_object_get(j, "summary"), "fluid");
	cr_expect_str_eq(json_string_value(json_object_get(fl, "port")), "sw0:h40");
	cr_expect_str_eq(json_string_value(json_object_get(fl, "verdict")), "unsure");
	cr_expect(json_is_false(json_object_get(fl, "converges")));
	cr_expect(json_is_true(json_object_get(fl, "unsure")));
	json_decref(j);
}
