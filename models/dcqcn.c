/*
 * DCQCN reaction point: the per-QP rate state machine of a RoCE sender, in
 * two variants (mlx5 ConnectX and the SIGCOMM 2015 paper), see dcqcn.h.
 * Pure integer arithmetic on rates (bit/s) and alpha (20 fractional bits;
 * the cc_params fields are in 1/1024 units); alpha decays lazily, a whole
 * number of periods at a time, when it is read.
 *
 * Where the sources disagree (HPCC's ns-3 DCQCN against Google Isekai's;
 * NVIDIA's documentation against mlxconfig's help text) the reading taken is
 * marked [choice] at the code that implements it. Sources: Zhu et al.,
 * SIGCOMM 2015 (the algorithm); Linux mlx5 cong.c (the cc_params); mstflint
 * mlxcfg_param_lib.cpp and a ConnectX-6 Dx mstconfig query (defaults);
 * NVIDIA's "DCQCN CC Parameters" (units); Isekai rdma_roce_cc_dcqcn.cc.
 *
 * Overflow: rc <= line rate, which may be any 64-bit rate. rc * alpha
 * passes 2^64 above 17.6 Tb/s and rc * (100 - min_dec_fac) above 184 Pb/s:
 * both are taken in 128 bits. Rates in Mb/s from 32-bit fields times 1e6
 * stay below 4.3e15; the increases add them saturating, before the cap at
 * the max rate.
 */
#include "models/dcqcn.h"

#include <string.h>

#include "sim/engine/checked.h"

#define DCQCN_MBPS 1000000ULL
#define DCQCN_ALPHA_Q10_ONE 1024U
#define DCQCN_ALPHA_Q20_ONE (1U << 20)
/* The paper's byte counter B, in bytes (Zhu et al., and the authors' MATLAB model). */
#define DCQCN_PAPER_B 10000000U

void dcqcn_params_default(struct dcqcn_params *p, enum dcqcn_variant v)
{
	memset(p, 0, sizeof(*p));
	p->variant = v;
	/*
	 * [choice] rp_byte_reset in bytes and one CNP spacing for the whole
	 * port, as mlxconfig's help and the firmware layout in mstflint
	 * describe the fields (the SIGCOMM'15 paper spaces CNPs per flow,
	 * Isekai counts 64-byte units): nic.dcqcn.byte_reset_unit and
	 * cnp_scope choose the other readings.
	 */
	p->byte_reset_unit = 1;
	p->cnp_per_port = 1;
	if (v == DCQCN_PAPER) {
		/*
		 * SIGCOMM'15 constants (Zhu et al., and the authors' MATLAB
		 * model). [choice] The paper variant reads g, the cut shift and the initial alpha
		 * from the mlx5 fields (so users can override them), with defaults that give the
		 * paper's values exactly. Used: T, B, F, R_AI, R_HAI, max/min rate, tau'
		 * (rp_dce_tcp_rtt), g (rp_dce_tcp_g: 1020/1024 gives g = 4/1024 = 1/256), the
		 * initial alpha (1024 = 1.0) and the cut shift (rp_gd 11: Rc * alpha / 2). Ignored
		 * by the paper variant, set to their paper-equivalent values for the record:
		 * rp_min_dec_fac (alpha <= 1 never cuts more than half), rp_clamp_tgt_rate(_ati)
		 * (Rt <- Rc on every cut), rp_rate_reduce_monitor_period (every CNP cuts, the NP
		 * spaces them), rp_rate_to_set_on_first_cnp.
		 */
		p->rp_time_reset = 55;
		p->rp_byte_reset = DCQCN_PAPER_B; /* in bytes; dcqcn_paper_byte_reset */
		p->rp_threshold = 5;
		p->rp_ai_rate = 40;
		p->rp_hai_rate = 200; /* [U] author simulator */
		p->rp_max_rate = 0;
		p->rp_min_rate = 100; /* author simulator */
		p->rp_min_dec_fac = 50;
		p->rp_rate_to_set_on_first_cnp = 0;
		p->rp_dce_tcp_g = 1020;
		p->rp_dce_tcp_rtt = 55;
		p->rp_rate_reduce_monitor_period = 0;
		p->rp_initial_alpha_value = 1024;
		p->rp_gd = 11;
		p->rp_clamp_tgt_rate = 1;
		p->rp_clamp_tgt_rate_ati = 1;
		p->np_min_time_between_cnps = 50;
		p->cnp_per_port = 0; /* the paper's NP: at most one CNP per flow every 50 us */
		p->np_cnp_dscp = 48;
		p->np_cnp_prio = 6;
		return;
	}
	/* ConnectX-6 Dx mstconfig defaults (mstflint's mlxconfig parameters). */
	p->rp_time_reset = 300;
	p->rp_byte_reset = 32767;
	p->rp_threshold = 1;
	p->rp_ai_rate = 5;
	p->rp_hai_rate = 50;
	p->rp_max_rate = 0;
	p->rp_min_rate = 1;
	p->rp_min_dec_fac = 50;
	p->rp_rate_to_set_on_first_cnp = 0;
	p->rp_dce_tcp_g = 1019;
	p->rp_dce_tcp_rtt = 1;
	p->rp_rate_reduce_monitor_period = 4;
	p->rp_initial_alpha_value = 1023;
	p->rp_gd = 11;
	p->rp_clamp_tgt_rate = 0;
	p->rp_clamp_tgt_rate_ati = 1;
	p->np_min_time_between_cnps = 4;
	p->np_cnp_dscp = 48;
	p->np_cnp_prio = 6;
}

uint32_t dcqcn_paper_byte_reset(uint32_t unit)
{
	return DCQCN_PAPER_B / (unit ? unit : 1);
}

/*
 * [choice] Parameter readings with out-of-range values made harmless (the
 * scenario loader validates; these keep the module total): G <= 1024, a
 * zero period or timer counts as 1 us, shifts stay below 64,
 * min_dec_fac <= 100.
 */
static uint32_t dcqcn_g(const struct dcqcn_params *p)
{
	return p->rp_dce_tcp_g > DCQCN_ALPHA_Q10_ONE ? DCQCN_ALPHA_Q10_ONE : p->rp_dce_tcp_g;
}

static simtime_t dcqcn_us(uint32_t us)
{
	return (us ? us : 1) * SIMTIME_US;
}

static uint32_t dcqcn_shift(uint32_t s)
{
	return s > 63 ? 63 : s;
}

/*
 * Rc x alpha >> @shift: the product passes 2^64 above 17.6 Tb/s (alpha has
 * 20 fractional bits), so it is taken in 128 bits; UINT64_MAX when the
 * result does not fit (the cut's other bound then decides).
 */
static uint64_t dcqcn_scale(uint64_t rc, uint32_t alpha, uint32_t shift)
{
	ck_u128 r = (ck_u128)rc * alpha >> shift;

	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

static uint32_t dcqcn_initial_alpha(const struct dcqcn_params *p)
{
	uint32_t a = p->rp_initial_alpha_value;

	if (a > DCQCN_ALPHA_Q10_ONE)
		a = DCQCN_ALPHA_Q10_ONE;
	/* the field is in 1/1024 units; alpha is held with 20 fractional bits */
	return a << 10;
}

static uint64_t dcqcn_clamp_rate(const struct dcqcn_rp *rp, uint64_t r)
{
	if (r > rp->max_rate)
		r = rp->max_rate;
	if (r < rp->min_rate)
		r = rp->min_rate;
	return r;
}

void dcqcn_rp_init(struct dcqcn_rp *rp, const struct dcqcn_params *p, uint64_t line_rate_bps)
{
	memset(rp, 0, sizeof(*rp));
	rp->p = p;
	rp->line_rate = line_rate_bps;
	/* [choice] rp_max_rate above the port speed means the port speed. */
	rp->max_rate = line_rate_bps;
	if (p->rp_max_rate && (uint64_t)p->rp_max_rate * DCQCN_MBPS < line_rate_bps)
		rp->max_rate = (uint64_t)p->rp_max_rate * DCQCN_MBPS;
	/* [choice] A floor above the ceiling is lowered to the ceiling. */
	rp->min_rate = (uint64_t)p->rp_min_rate * DCQCN_MBPS;
	if (rp->min_rate > rp->max_rate)
		rp->min_rate = rp->max_rate;
	/* Flows start at the maximum rate, with no timers (Zhu et al.: no slow start). */
	rp->rc = rp->max_rate;
	rp->rt = rp->max_rate;
	/*
	 * [choice] Before the first CNP alpha holds its initial value and does
	 * not decay (no timers run): 1.0 for the paper (author simulator),
	 * rp_initial_alpha_value for mlx5, which the first CNP sets anyway.
	 */
	rp->alpha = dcqcn_initial_alpha(p);
	rp->last_cut = SIMTIME_NEVER; /* no cut yet: the first one is not delayed */
	rp->next_increase = SIMTIME_NEVER;
}

/* Alpha after one period: EWMA towards 1 if a CNP arrived in it, else towards 0. */
static uint32_t dcqcn_alpha_step(const struct dcqcn_rp *rp, uint32_t a, int cnp)
{
	uint64_t g = dcqcn_g(rp->p);

	uint64_t next = a - (((uint64_t)a * (DCQCN_ALPHA_Q10_ONE - g)) >> 10);

	/*
	 * alpha = G/1024 alpha (+ (1024 - G)/1024 with a CNP), i.e. g =
	 * (1024 - G)/1024 per period: the reading of rp_dce_tcp_g in NVIDIA's
	 * DCQCN parameters document and in Isekai (mlxconfig's text reads it the
	 * other way round). For
	 * the paper, G = 1020 gives exactly g = 1/256: alpha -= alpha >> 8.
	 *
	 * [choice] alpha is held with 20 fractional bits, not the 10 of the
	 * cc_params fields. At 10 bits, (G * alpha) >> 10 loses a whole unit
	 * per period below alpha = 205, so alpha falls by 1/1024 every period
	 * instead of by 0.5%: with a CNP every 5 periods (+5) it can then
	 * never rise again, a truncation artefact no NIC documents. Known
	 * weakness kept: below 256/2^20 (2.4e-4) the decay step rounds to 0
	 * and alpha stays there.
	 */
	if (cnp)
		next += (DCQCN_ALPHA_Q10_ONE - g) << 10;
	return (uint32_t)next;
}

/*
 * Advance alpha over the whole periods that ended by @now. Periods have
 * rp_dce_tcp_rtt us; mlx5 aligns them to the first CNP and marks the one a
 * CNP falls in, the paper restarts them at every cut. Once a period without
 * a CNP leaves alpha unchanged (0, the paper's floor, or G = 1024), every
 * later one does too, so we jump to @now's period: at most ~2000 steps
 * however long the idle time.
 */
static void dcqcn_alpha_advance(struct dcqcn_rp *rp, simtime_t now)
{
	simtime_t period = dcqcn_us(rp->p->rp_dce_tcp_rtt);
	uint64_t n;

	if (!rp->active || now <= rp->alpha_epoch)
		return;
	n = (now - rp->alpha_epoch) / period;
	while (n > 0) {
		uint32_t next = dcqcn_alpha_step(rp, rp->alpha, rp->cnp_in_period);

		if (!rp->cnp_in_period && next == rp->alpha) {
			rp->alpha_epoch += n * period;
			return;
		}
		rp->alpha = next;
		rp->cnp_in_period = 0;
		rp->alpha_epoch += period;
		n--;
	}
}

uint32_t dcqcn_rp_alpha(struct dcqcn_rp *rp, simtime_t now)
{
	dcqcn_alpha_advance(rp, now);
	return rp->alpha;
}

double dcqcn_rp_alpha_frac(struct dcqcn_rp *rp, simtime_t now)
{
	return (double)dcqcn_rp_alpha(rp, now) / DCQCN_ALPHA_Q20_ONE;
}

/* The first CNP (or a cut without one): timers start, alpha takes its initial value. */
static void dcqcn_activate(struct dcqcn_rp *rp, simtime_t now)
{
	rp->active = 1;
	rp->alpha = dcqcn_initial_alpha(rp->p);
	rp->alpha_epoch = now;
	rp->cnp_in_period = 0;
	rp->time_stage = 0;
	rp->byte_stage = 0;
	rp->byte_count = 0;
	rp->next_increase = now + dcqcn_us(rp->p->rp_time_reset);
}

simtime_t dcqcn_rp_cnp(struct dcqcn_rp *rp, simtime_t now)
{
	const struct dcqcn_params *p = rp->p;
	simtime_t period;

	rp->cnp_handled++;
	if (p->variant == DCQCN_PAPER) {
		/*
		 * [choice] Every CNP cuts at once (the NP spaces CNPs by
		 * np_min_time_between_cnps); the whole update, alpha included,
		 * happens in dcqcn_rp_cut so that it uses alpha before this CNP.
		 * Two CNPs at the same instant make one cut.
		 */
		if (rp->cut_pending)
			return SIMTIME_NEVER;
		rp->cut_pending = 1;
		return now;
	}
	if (!rp->active) {
		/*
		 * [choice] Isekai/Mellanox first CNP (where the implementations
		 * diverge: HPCC's ns-3 cuts at the first check): no cut, alpha takes
		 * rp_initial_alpha_value, Rc = rp_rate_to_set_on_first_cnp
		 * (0 = leave Rc, i.e. the max rate), Rt unchanged (Isekai sets
		 * Rt too), and this CNP does not count for alpha's period.
		 */
		uint64_t first = (uint64_t)p->rp_rate_to_set_on_first_cnp * DCQCN_MBPS;

		dcqcn_activate(rp, now);
		if (first)
			rp->rc = dcqcn_clamp_rate(rp, first);
		return SIMTIME_NEVER;
	}
	dcqcn_alpha_advance(rp, now);
	rp->cnp_in_period = 1;
	if (rp->cut_pending)
		return SIMTIME_NEVER;
	/*
	 * [choice] At most one cut per rp_rate_reduce_monitor_period since the
	 * last cut, the first one at once (Isekai instead checks on a fixed
	 * grid of periods from the first CNP). cut_pending is set for an
	 * immediate cut too, so a second CNP before the caller runs the cut
	 * does not ask for another.
	 */
	rp->cut_pending = 1;
	period = (simtime_t)p->rp_rate_reduce_monitor_period * SIMTIME_US;
	if (rp->last_cut == SIMTIME_NEVER || now >= rp->last_cut + period)
		return now;
	return rp->last_cut + period;
}

static void dcqcn_cut_mlx5(struct dcqcn_rp *rp)
{
	const struct dcqcn_params *p = rp->p;
	uint32_t fac = p->rp_min_dec_fac > 100 ? 100 : p->rp_min_dec_fac;
	/* alpha has 20 fractional bits: Rc alpha_q10 >> rp_gd = Rc alpha >> (rp_gd + 10) */
	uint64_t by_alpha =
	    dcqcn_scale(rp->rc, rp->alpha, dcqcn_shift(p->rp_gd > 53 ? 63 : p->rp_gd + 10));
	uint64_t by_fac = (uint64_t)((ck_u128)rp->rc * (100 - fac) / 100); /* <= rc */
	uint64_t reduction = by_alpha < by_fac ? by_alpha : by_fac;

	/*
	 * [choice] Isekai's clamp rule: Rt <- Rc unless no
	 * byte stage was reached and (clamp_ati off or no timer stage).
	 */
	if (p->rp_clamp_tgt_rate || rp->byte_stage > 0 ||
	    (p->rp_clamp_tgt_rate_ati && rp->time_stage > 0))
		rp->rt = rp->rc;
	rp->rc -= reduction;
	if (rp->rc < rp->min_rate)
		rp->rc = rp->min_rate;
}

static void dcqcn_cut_paper(struct dcqcn_rp *rp, simtime_t now)
{
	/* Rc <- Rc (1 - alpha / 2): Q20 alpha, shift rp_gd + 10 = 21. */
	uint64_t reduction =
	    dcqcn_scale(rp->rc, rp->alpha, dcqcn_shift(rp->p->rp_gd > 53 ? 63 : rp->p->rp_gd + 10));

	rp->rt = rp->rc;
	rp->rc -= reduction < rp->rc ? reduction : rp->rc;
	if (rp->rc < rp->min_rate)
		rp->rc = rp->min_rate;
	/* alpha <- (1 - g) alpha + g, and tau' restarts at the CNP. */
	rp->alpha = dcqcn_alpha_step(rp, rp->alpha, 1);
	rp->alpha_epoch = now;
}

void dcqcn_rp_cut(struct dcqcn_rp *rp, simtime_t now)
{
	/* A cut without a CNP before it (not expected): start as a first CNP would. */
	if (!rp->active)
		dcqcn_activate(rp, now);
	dcqcn_alpha_advance(rp, now);
	rp->last_cut = now;
	if (rp->p->variant == DCQCN_PAPER)
		dcqcn_cut_paper(rp, now);
	else
		dcqcn_cut_mlx5(rp);
	rp->time_stage = 0;
	rp->byte_stage = 0;
	rp->byte_count = 0;
	rp->next_increase = now + dcqcn_us(rp->p->rp_time_reset);
	rp->cut_pending = 0;
	rp->cuts++;
}

/*
 * One increase event, after the counter that fired has advanced its stage.
 * Returns 1 if the RP is now quiet (Rc == Rt == max rate).
 */
static int dcqcn_increase(struct dcqcn_rp *rp)
{
	const struct dcqcn_params *p = rp->p;
	uint32_t f = p->rp_threshold;
	uint32_t lo = rp->time_stage < rp->byte_stage ? rp->time_stage : rp->byte_stage;
	uint32_t hi = rp->time_stage < rp->byte_stage ? rp->byte_stage : rp->time_stage;

	if (p->variant == DCQCN_PAPER) {
		/* FR while max < F; AI while min < F; HAI by i * R_HAI, i = min - F + 1. */
		if (lo >= f) {
			uint64_t step;

			if (ck_mul((uint64_t)(lo - f + 1), (uint64_t)p->rp_hai_rate * DCQCN_MBPS,
				   &step))
				step = UINT64_MAX;
			rp->rt = ck_add_sat(rp->rt, step);
		} else if (hi >= f) {
			rp->rt = ck_add_sat(rp->rt, (uint64_t)p->rp_ai_rate * DCQCN_MBPS);
		}
	} else {
		/* Isekai: HAI (a constant step) if min > F, AI if max >= F, else FR. */
		if (lo > f)
			rp->rt = ck_add_sat(rp->rt, (uint64_t)p->rp_hai_rate * DCQCN_MBPS);
		else if (hi >= f)
			rp->rt = ck_add_sat(rp->rt, (uint64_t)p->rp_ai_rate * DCQCN_MBPS);
	}
	/* [choice] Rt is capped at the max rate in both variants. */
	if (rp->rt > rp->max_rate)
		rp->rt = rp->max_rate;
	/*
	 * [choice] Rc moves half way to Rt rounded towards Rt (Isekai floors
	 * (Rc + Rt) / 2, which sticks 1 bit/s below Rt and never lets the RP
	 * go quiet; the difference is below 1 bit/s per step).
	 */
	if (rp->rc <= rp->rt)
		rp->rc = rp->rt - (rp->rt - rp->rc) / 2;
	else
		rp->rc = rp->rt + (rp->rc - rp->rt) / 2;
	if (rp->rc > rp->max_rate)
		rp->rc = rp->max_rate;
	rp->increases++;
	return rp->rc == rp->max_rate && rp->rt == rp->max_rate;
}

/*
 * The increase timer. A call before rp->next_increase (a stale timer the
 * caller did not cancel) or while no timer is armed is ignored.
 * [choice] The stage advances before the increase (time_stage 1 on the
 * first event: with rp_threshold 1 it is AI at once), as the brief and the
 * paper's description have it; Isekai increments after.
 */
void dcqcn_rp_timer(struct dcqcn_rp *rp, simtime_t now)
{
	if (!rp->active || now < rp->next_increase)
		return;
	if (rp->time_stage < UINT32_MAX)
		rp->time_stage++;
	/*
	 * [choice] At Rc == Rt == max rate the timer stops (both variants);
	 * the RP stays active and the next cut re-arms it.
	 */
	if (dcqcn_increase(rp))
		rp->next_increase = SIMTIME_NEVER;
	else
		rp->next_increase = now + dcqcn_us(rp->p->rp_time_reset);
}

/*
 * The byte counter: one stage and one increase per rp_byte_reset *
 * byte_reset_unit bytes sent while active. It does not touch the timer except to stop it
 * when the RP goes quiet. A product of 0 (rp_byte_reset or its unit 0,
 * which the loader refuses; a model built by hand may give it) disables
 * the counter.
 */
void dcqcn_rp_sent(struct dcqcn_rp *rp, uint64_t bytes, simtime_t now)
{
	uint64_t unit = (uint64_t)rp->p->rp_byte_reset * rp->p->byte_reset_unit;

	(void)now; /* the byte counter does not depend on time */
	if (!rp->active || unit == 0)
		return;
	rp->byte_count += bytes;
	while (rp->byte_count >= unit) {
		rp->byte_count -= unit;
		if (rp->byte_stage < UINT32_MAX)
			rp->byte_stage++;
		if (dcqcn_increase(rp))
			rp->next_increase = SIMTIME_NEVER;
	}
}

void dcqcn_rp_shift(struct dcqcn_rp *rp, simtime_t dt)
{
	if (rp->next_increase != SIMTIME_NEVER)
		rp->next_increase += dt;
	rp->alpha_epoch += dt;
	if (rp->last_cut != SIMTIME_NEVER)
		rp->last_cut += dt;
}
