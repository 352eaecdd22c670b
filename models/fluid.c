/*
 * The DCQCN fluid model (fluid.h): the fixed point by root finding and
 * the delay-differential equations by a fixed-step Runge-Kutta with a
 * history of the delayed terms [DCQCN-FLUID].
 */
#include "models/fluid.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* RED at queue @q (packets). */
static double red(const struct fluid_params *fp, double q)
{
	if (q <= fp->kmin)
		return 0;
	if (q <= fp->kmax)
		return fp->pmax * (q - fp->kmin) / (fp->kmax - fp->kmin);
	return 1;
}

/* The model's coefficients at marking @p and delayed rate @r (see fluid.h). */
struct coef {
	double a1, a_alpha, b, c, d, e;
};

static void coefficients(const struct fluid_params *fp, double p, double r, struct coef *k)
{
	double lp;

	if (p <= 0) {
		k->a1 = k->a_alpha = 0;
		k->b = k->c = 1 / fp->b;
		k->d = k->e = r > 0 ? 1 / (fp->t * r) : 0;
		return;
	}
	if (p >= 1) {
		k->a1 = k->a_alpha = 1;
		k->b = k->c = k->d = k->e = 0;
		return;
	}
	lp = log1p(-p); /* (1 - p)^x = exp(x lp) */
	k->a1 = -expm1(fp->tau * r * lp);
	k->a_alpha = fp->alpha_per_window ? fmin(1, fp->tau_alpha / fp->tau * k->a1)
					  : -expm1(fp->tau_alpha * r * lp);
	k->b = p / expm1(-fp->b * lp);
	k->c = k->b * exp(fp->f * fp->b * lp);
	k->d = r > 0 ? p / expm1(-fp->t * r * lp) : 0;
	k->e = k->d * exp(fp->f * fp->t * r * lp);
}

/* The fraction of Rc one cut removes at @alpha. */
static double cut(const struct fluid_params *fp, double alpha)
{
	return fmin(fp->cut_scale * alpha, fp->cut_max);
}

/* How often a cut also brings Rt down to Rc (fluid.h). */
static double clamp_weight(const struct fluid_params *fp, double a1, double r)
{
	double l, w;

	if (fp->clamp_always || a1 >= 1)
		return 1;
	if (a1 <= 0)
		return 0;
	l = log1p(-a1);
	w = r > 0 ? exp(fp->b / r / fp->tau * l) : 0;
	if (fp->clamp_after_timer)
		w += exp(fp->t / fp->tau * l);
	return w < 1 ? w : 1;
}

/* ---- the fixed point ---- */

static double fixed_point_gap(double p, void *arg)
{
	const struct fluid_params *fp = arg;
	double r = fp->c / fp->n;
	struct coef k;

	double den, v;

	coefficients(fp, p, r, &k);
	den = (k.b + k.d) * (k.c + k.e);
	v = den > 0 ? 2 * cut(fp, k.a_alpha) * k.a1 * k.a1 / den : INFINITY;
	/* a marking so strong that the increase terms vanish: far above */
	return isfinite(v) ? v - fp->tau * fp->tau * fp->r_ai * r : 1e300;
}

int fluid_fixed_point(const struct fluid_params *fp, struct fluid_point *out)
{
	gsl_function fn = {.function = fixed_point_gap, .params = (void *)fp};
	double lo = 1e-12, hi = 1 - 1e-9, p = 0;
	gsl_root_fsolver *s;
	int status = GSL_CONTINUE;
	struct coef k;

	if (fixed_point_gap(lo, (void *)fp) > 0 || fixed_point_gap(hi, (void *)fp) < 0)
		return -ERANGE;
	if (!(s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent)))
		return -ENOMEM;
	gsl_root_fsolver_set(s, &fn, lo, hi);
	for (int i = 0; i < 200 && status == GSL_CONTINUE; i++) {
		gsl_root_fsolver_iterate(s);
		p = gsl_root_fsolver_root(s);
		status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
						gsl_root_fsolver_x_upper(s), 0, 1e-12);
	}
	gsl_root_fsolver_free(s);
	out->p = p;
	out->rate = fp->c / fp->n;
	coefficients(fp, p, out->rate, &k);
	out->alpha = k.a_alpha;
	/* RED's inverse; above pmax the queue sits at kmax, where p jumps to 1 */
	out->q = p <= fp->pmax ? fp->kmin + p / fp->pmax * (fp->kmax - fp->kmin) : fp->kmax;
	return 0;
}

/* ---- the delay-differential equations ---- */

enum { Y_Q, Y_ALPHA, Y_RT, Y_RC, Y_N };

struct dde {
	const struct fluid_params *fp;
	/* the coefficients of the last two delayed states: RK4 asks for the
	 * same delayed time up to three times (t + h/2 twice, t + h and the
	 * next step's t), and the transcendental functions are the cost */
	struct {
		double qd, rd;
		struct coef k;
		int valid;
	} memo[2];
	int memo_next;
	double h;	  /* step */
	double *hq, *hrc; /* q and Rc at each step, from t = 0 */
	size_t n;	  /* steps stored */
};

/* The value of history @v at time @s (before the start: @initial). */
static double past(const struct dde *z, const double *v, double s, double initial)
{
	double x;
	size_t i;

	if (s <= 0 || !z->n)
		return initial;
	x = s / z->h;
	i = (size_t)x;
	if (i + 1 >= z->n)
		return v[z->n - 1];
	return v[i] + (x - (double)i) * (v[i + 1] - v[i]);
}

static int derivatives(double t, const double y[], double dy[], void *arg)
{
	struct dde *z = arg;
	const struct fluid_params *fp = z->fp;
	double qd = past(z, z->hq, t - fp->delay, 0);
	double rd = past(z, z->hrc, t - fp->delay, fp->c);
	double rc = y[Y_RC], rt = y[Y_RT];
	struct coef k;

	int m = z->memo[0].valid && z->memo[0].qd == qd && z->memo[0].rd == rd	 ? 0
		: z->memo[1].valid && z->memo[1].qd == qd && z->memo[1].rd == rd ? 1
										 : -1;

	if (m < 0) {
		m = z->memo_next;
		z->memo_next ^= 1;
		coefficients(fp, red(fp, qd), rd, &z->memo[m].k);
		z->memo[m].qd = qd;
		z->memo[m].rd = rd;
		z->memo[m].valid = 1;
	}
	k = z->memo[m].k;
	dy[Y_Q] = fp->n * rc - fp->c;
	if (y[Y_Q] <= 0 && dy[Y_Q] < 0)
		dy[Y_Q] = 0; /* an empty queue stays empty */
	dy[Y_ALPHA] = fp->g / fp->tau_alpha * (k.a_alpha - y[Y_ALPHA]);
	dy[Y_RT] =
	    -(rt - rc) / fp->tau * k.a1 * clamp_weight(fp, k.a1, rd) + fp->r_ai * rd * (k.c + k.e);
	dy[Y_RC] = -rc * cut(fp, y[Y_ALPHA]) / fp->tau * k.a1 + (rt - rc) / 2 * rd * (k.b + k.d);
	return GSL_SUCCESS;
}

/* Have q and Rc stayed within a thousandth (or 0.01 packet) over the
 * last tenth of the samples, with the port full? */
static int converged(const struct fluid_params *fp, const struct fluid_run *r)
{
	size_t from = r->n - r->n / 10;
	double qlo = INFINITY, qhi = -INFINITY, rlo = INFINITY, rhi = -INFINITY;

	for (size_t i = from; i < r->n; i++) {
		qlo = fmin(qlo, r->q[i]);
		qhi = fmax(qhi, r->q[i]);
		rlo = fmin(rlo, r->rc[i]);
		rhi = fmax(rhi, r->rc[i]);
	}
	/* and the flows fill the port: an idle port whose rates creep up slowly
	 * is still on its way */
	return qhi - qlo <= fmax(1e-3 * qhi, 1e-2) && rhi - rlo <= 1e-3 * fp->c &&
	       fp->n * rlo >= 0.99 * fp->c;
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void fluid_run_free(struct fluid_run *r)
{
	free(r->t);
	free(r->q);
	free(r->rc);
	free(r->rt);
	free(r->alpha);
	memset(r, 0, sizeof(*r));
}

/* Mean, extremes, amplitude and period of the samples from @from on. */
static void settle(const struct fluid_params *fp, struct fluid_run *r, size_t from)
{
	size_t crossings = 0;
	double sum_q = 0, sum_r = 0, sum_a = 0, first = 0, last = 0;

	r->q_min = INFINITY;
	r->q_max = -INFINITY;
	for (size_t i = from; i < r->n; i++) {
		sum_q += r->q[i];
		sum_r += r->rc[i];
		sum_a += r->alpha[i];
		r->q_min = fmin(r->q_min, r->q[i]);
		r->q_max = fmax(r->q_max, r->q[i]);
	}
	r->mean.q = sum_q / (double)(r->n - from);
	r->mean.rate = sum_r / (double)(r->n - from);
	r->mean.alpha = sum_a / (double)(r->n - from);
	r->mean.p = red(fp, r->mean.q);
	r->amplitude = (r->q_max - r->q_min) / 2;
	for (size_t i = from + 1; i < r->n; i++) {
		if (r->q[i - 1] < r->mean.q && r->q[i] >= r->mean.q) {
			if (!crossings++)
				first = r->t[i];
			last = r->t[i];
		}
	}
	r->period = crossings > 1 ? (last - first) / (double)(crossings - 1) : 0;
	r->oscillates = r->period > 0 && r->amplitude > fmax(0.05 * r->mean.q, 1);
}

int fluid_integrate(const struct fluid_params *fp, double duration, double step, double sample,
		    struct fluid_run *out)
{
	size_t steps, every, cap;
	struct dde z = {.fp = fp, .h = step};
	gsl_odeiv2_system sys = {.function = derivatives, .dimension = Y_N, .params = &z};
	gsl_odeiv2_step *st = NULL;
	double y[Y_N] = {0, 1, fp->c, fp->c}, err[Y_N], t = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!(step > 0) || step > fp->delay || !(duration > step) || !(sample >= step) || !fp->n ||
	    !(fp->c > 0))
		return -EINVAL;
	if (duration / step > FLUID_MAX_STEPS)
		return -E2BIG;
	steps = (size_t)(duration / step);
	every = (size_t)(sample / step + 0.5);
	cap = steps / every + 1;
	z.hq = malloc((steps + 1) * sizeof(*z.hq));
	z.hrc = malloc((steps + 1) * sizeof(*z.hrc));
	out->t = malloc(cap * sizeof(double));
	out->q = malloc(cap * sizeof(double));
	out->rc = malloc(cap * sizeof(double));
	out->rt = malloc(cap * sizeof(double));
	out->alpha = malloc(cap * sizeof(double));
	st = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk4, Y_N);
	if (!z.hq || !z.hrc || !out->t || !out->q || !out->rc || !out->rt || !out->alpha || !st) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i <= steps; i++) {
		z.hq[i] = y[Y_Q];
		z.hrc[i] = y[Y_RC];
		z.n = i + 1;
		if (i % every == 0 && out->n < cap) {
			out->t[out->n] = t;
			out->q[out->n] = y[Y_Q];
			out->rc[out->n] = y[Y_RC];
			out->rt[out->n] = y[Y_RT];
			out->alpha[out->n] = y[Y_ALPHA];
			out->n++;
		}
		if (i == steps)
			break;
		/* settled: the queue and the rate have held still for the last
		 * tenth of the run so far, past the first tenth of the whole */
		if (i % every == 0 && out->n % 256 == 0 && t > duration / 10 &&
		    converged(fp, out)) {
			out->converged_early = 1;
			break;
		}
		if (gsl_odeiv2_step_apply(st, t, step, y, err, NULL, NULL, &sys) != GSL_SUCCESS) {
			rc = -EINVAL;
			goto out;
		}
		t = (double)(i + 1) * step;
		y[Y_Q] = fmax(y[Y_Q], 0);
		y[Y_ALPHA] = clamp(y[Y_ALPHA], 0, 1);
		y[Y_RC] = clamp(y[Y_RC], fp->r_min, fp->c);
		y[Y_RT] = clamp(y[Y_RT], fp->r_min, fp->c);
	}
	settle(fp, out, out->converged_early ? out->n - out->n / 10 : out->n - out->n * 2 / 5);
out:
	if (st)
		gsl_odeiv2_step_free(st);
	free(z.hq);
	free(z.hrc);
	if (rc)
		fluid_run_free(out);
	return rc;
}

/* Do the flows fill the port over the settled part of @r (within 1%)? */
static int fills(const struct fluid_params *fp, const struct fluid_run *r)
{
	return fp->n * r->mean.rate >= 0.99 * fp->c;
}

int fluid_judge(const struct fluid_params *fp, const struct fluid_point *fixed,
		const struct fluid_run *run, double duration, double step, double sample,
		unsigned *why)
{
	struct fluid_params longer = *fp;
	struct fluid_run again;
	int err;

	*why = 0;
	if (run->oscillates)
		return FLUID_OSCILLATES;
	if (!fills(fp, run))
		return FLUID_SETTLING;
	if (!fixed || fixed->p < FLUID_SLOPE_SHARE * fp->pmax)
		*why |= FLUID_THIN_SLOPE;
	longer.delay = fp->delay * FLUID_DELAY_MARGIN;
	if ((err = fluid_integrate(&longer, duration, step, sample, &again)))
		return err;
	if (again.oscillates || !fills(&longer, &again))
		*why |= FLUID_THIN_DELAY;
	fluid_run_free(&again);
	return *why ? FLUID_UNSURE : FLUID_CONVERGES;
}

const char *fluid_verdict_name(enum fluid_verdict v)
{
	switch (v) {
	case FLUID_CONVERGES:
		return "converges";
	case FLUID_OSCILLATES:
		return "oscillates";
	case FLUID_SETTLING:
		return "settling";
	default:
		return "unsure";
	}
}
