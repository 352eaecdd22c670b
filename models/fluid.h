/*
 * The DCQCN fluid model (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay:
 * Lessons Learnt from Analysis of DCQCN and TIMELY", ACM CoNEXT 2016, and
 * its published MATLAB scripts): N identical long-lived flows through one
 * bottleneck of capacity C, each with its current rate Rc, target rate Rt
 * and alpha, the bottleneck queue q marked by RED, and the feedback
 * delay tau* between a mark and the sender's reaction. Rates and the
 * queue are in packets (per second); times in seconds.
 *
 *   dq/dt  = N Rc - C
 *   da/dt  = g/tau' [A' - a]
 *   dRt/dt = -(Rt - Rc)/tau a1 + R_AI R~ c + R_AI R~ e
 *   dRc/dt = -Rc k(a)/tau a1 + (Rt - Rc)/2 R~ b + (Rt - Rc)/2 R~ d
 *
 * with p~ = p(q(t - tau*)), R~ = Rc(t - tau*), a1 = 1 - (1 - p~)^(tau R~)
 * (a CNP in a tau window), A' = 1 - (1 - p~)^(tau' R~) (the paper; for a
 * reaction point whose alpha period is shorter than the CNP spacing,
 * tau'/tau a1), b = p~/((1 - p~)^-B - 1), c = b (1 - p~)^(F B),
 * d = p~/((1 - p~)^(-T R~) - 1), e = d (1 - p~)^(F T R~); k(a) = a/2 in
 * the paper, min(a 2^(10 - rp_gd), 1 - rp_min_dec_fac/100) for mlx5. The
 * flows are symmetric (same start), so one flow's state stands for all.
 * Hyper increase is not in the model (as in the paper's).
 */
#ifndef ROCESIM_FLUID_H
#define ROCESIM_FLUID_H

#include <stddef.h>

struct fluid_params {
	unsigned n;		   /* flows */
	double c;		   /* bottleneck capacity, packets/s */
	double kmin, kmax, pmax;   /* RED: packets, packets, probability at kmax */
	double g;		   /* alpha gain */
	double tau;		   /* CNP spacing (the NP's window), s */
	double tau_alpha;	   /* alpha period tau', s */
	double t;		   /* rate increase timer T, s */
	double b;		   /* byte counter B, packets */
	double f;		   /* fast recovery stages F */
	double r_ai;		   /* additive increase, packets/s */
	double r_min;		   /* rate floor, packets/s */
	double cut_scale, cut_max; /* k(a) = min(cut_scale a, cut_max) */
	int alpha_per_window;	   /* A' = tau'/tau a1 (mlx5), else the paper's */
	/* Rt takes Rc at every cut (the paper; rp_clamp_tgt_rate), or only when
	 * a timer stage (@clamp_after_timer: rp_clamp_tgt_rate_ati) or a byte
	 * stage was reached since the last cut: then the -(Rt - Rc)/tau a1 term
	 * is weighted by the chance of that, (1 - a1)^(T/tau) + (1 - a1)^(B/R~/tau) */
	int clamp_always, clamp_after_timer;
	double delay; /* tau*, s */
};

/* The equilibrium: all flows at C/N, the marking that holds them there. */
struct fluid_point {
	double p;    /* marking probability */
	double q;    /* queue, packets */
	double rate; /* per flow, packets/s */
	double alpha;
};

/*
 * The fixed point in closed form: p* solves a1^2 a* / ((b + d)(c + e)) =
 * tau^2 R_AI Rc* with Rc* = C/N and a* = A'(p*) (CoNEXT 2016, section 4),
 * found by Brent's method (GSL); q* from RED's inverse. 0, or -ERANGE
 * when no p in (0, 1) holds (the flows cannot reach C: no queue).
 */
int fluid_fixed_point(const struct fluid_params *fp, struct fluid_point *out);

/* What an integration gives: the samples and the last part's behaviour. */
struct fluid_run {
	double *t, *q, *rc, *rt, *alpha; /* every @sample s, from 0 */
	size_t n;
	struct fluid_point mean; /* over the last 40% of the run */
	double q_min, q_max;	 /* over the last 40% (the last tenth when
				    it converged early) */
	double amplitude;	 /* (q_max - q_min) / 2, packets */
	double period;		 /* mean time between the queue's upward
				    crossings of its mean, s (0: none) */
	int oscillates;		 /* amplitude above 5% of the mean queue
				    and 1 packet, with a period */
	int converged_early;	 /* stopped before @duration: q and Rc
				    still over the last tenth of the run
				    (the figures are of that tenth) */
};

/*
 * Integrate from every flow at line rate (Rc = Rt = C, alpha 1, an empty
 * queue) for @duration s with GSL's fourth-order Runge-Kutta stepper
 * (gsl_odeiv2_step_rk4) at @step s, the delayed terms read from a
 * history of earlier steps (linear between two), Rc and Rt clamped to
 * [r_min, C] and q to >= 0 after each step as the authors' scripts do;
 * a sample every @sample s. The run stops early once the queue and the
 * rate hold still (within a thousandth) over the last tenth of it, past a
 * tenth of @duration. 0 or -ENOMEM / -EINVAL / -E2BIG. fluid_run_free it.
 */
int fluid_integrate(const struct fluid_params *fp, double duration, double step, double sample,
		    struct fluid_run *out);
/* The most steps fluid_integrate takes (-E2BIG past it): it keeps 16 bytes
 * of history a step, 160 MB at the bound. */
#define FLUID_MAX_STEPS 10000000.0
void fluid_run_free(struct fluid_run *r);

/*
 * What the model says of a bottleneck, widened where the grid of
 * experiments/fluid-grid/grid.sh found the packet model disagreeing:
 * oscillates (the integrated queue swings), settling (the flows do not
 * fill the port by the end of the run), converges, or unsure: the run
 * converges but the packet model may drain the queue or swing by more
 * than half its mean, because
 *  - FLUID_THIN_SLOPE: the fixed point sits on RED's slope (p* below
 *    FLUID_SLOPE_SHARE of pmax), or has none: the marking then rises
 *    slowly with the queue, and the packet model's cuts, one flow at a
 *    time, swing the queue by more than half its mean at every such point
 *    of the grid, where the fluid model averages them into a flat line;
 *    near Kmax, where marking jumps to 1, the queue is held;
 *  - FLUID_THIN_DELAY: integrated again at FLUID_DELAY_MARGIN times the
 *    feedback delay it oscillates or does not fill the port: the packet
 *    model loses its stability at shorter delays than the fluid model
 *    (on the grid, 100G x 32 flows swing from 10 us with a CNP per
 *    window, 25 us with the NIC's spacing, where the fluid model holds to
 *    50 us).
 */
enum fluid_verdict { FLUID_CONVERGES, FLUID_OSCILLATES, FLUID_SETTLING, FLUID_UNSURE };
#define FLUID_THIN_SLOPE 1u
#define FLUID_THIN_DELAY 2u
#define FLUID_SLOPE_SHARE 0.9
#define FLUID_DELAY_MARGIN 10.0

/*
 * The verdict on @run, integrated from @fp for @duration at @step (@sample)
 * and its fixed point @fixed (NULL: none); the reasons of an unsure one in
 * *@why (0 otherwise). The delay margin integrates the model once more.
 * The verdict (>= 0), or -ENOMEM / -EINVAL / -E2BIG as fluid_integrate.
 */
int fluid_judge(const struct fluid_params *fp, const struct fluid_point *fixed,
		const struct fluid_run *run, double duration, double step, double sample,
		unsigned *why);
/* "converges", "oscillates", "settling" or "unsure". */
const char *fluid_verdict_name(enum fluid_verdict v);

#endif
