/*
 * DCQCN reaction point: hand-computed sequences of cuts, alpha updates and
 * increases for the mlx5 and paper variants, and the direction of each
 * knob. Every expected integer is derived in the comment above it.
 */
#include <criterion/criterion.h>

#include "models/dcqcn.h"

#define G100 100000000000ULL
#define G40 40000000000ULL
#define US SIMTIME_US

/* An mlx5 RP on a 100G port that saw its first CNP at 5 us. */
static const simtime_t t0 = 5 * US;

static void first_cnp(struct dcqcn_rp *rp, const struct dcqcn_params *p, uint64_t line)
{
	dcqcn_rp_init(rp, p, line);
	cr_assert_eq(dcqcn_rp_cnp(rp, t0), SIMTIME_NEVER);
}

/* First CNP at t0, a second at t0 + 10 us that cuts at once. */
static simtime_t first_cut(struct dcqcn_rp *rp, const struct dcqcn_params *p, uint64_t line)
{
	simtime_t t1 = t0 + 10 * US;

	first_cnp(rp, p, line);
	cr_assert_eq(dcqcn_rp_cnp(rp, t1), t1);
	dcqcn_rp_cut(rp, t1);
	return t1;
}

Test(dcqcn, mlx5_defaults)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_MLX5);
	cr_assert_eq(p.variant, DCQCN_MLX5);
	cr_assert_eq(p.rp_time_reset, 300);
	cr_assert_eq(p.rp_byte_reset, 32767);
	cr_assert_eq(p.rp_threshold, 1);
	cr_assert_eq(p.rp_ai_rate, 5);
	cr_assert_eq(p.rp_hai_rate, 50);
	cr_assert_eq(p.rp_max_rate, 0);
	cr_assert_eq(p.rp_min_rate, 1);
	cr_assert_eq(p.rp_min_dec_fac, 50);
	cr_assert_eq(p.rp_rate_to_set_on_first_cnp, 0);
	cr_assert_eq(p.rp_dce_tcp_g, 1019);
	cr_assert_eq(p.rp_dce_tcp_rtt, 1);
	cr_assert_eq(p.rp_rate_reduce_monitor_period, 4);
	cr_assert_eq(p.rp_initial_alpha_value, 1023);
	cr_assert_eq(p.rp_gd, 11);
	cr_assert_eq(p.rp_clamp_tgt_rate, 0);
	cr_assert_eq(p.rp_clamp_tgt_rate_ati, 1);
	cr_assert_eq(p.np_min_time_between_cnps, 4);
	cr_assert_eq(p.np_cnp_dscp, 48);
	cr_assert_eq(p.np_cnp_prio, 6);
	cr_assert_eq(p.byte_reset_unit, 1, "rp_byte_reset in bytes (mlxconfig)");
	cr_assert_eq(p.cnp_per_port, 1, "CNPs spaced from the port (mlxconfig)");
}

Test(dcqcn, paper_defaults)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_PAPER);
	cr_assert_eq(p.variant, DCQCN_PAPER);
	cr_assert_eq(p.rp_time_reset, 55);
	cr_assert_eq((uint64_t)p.rp_byte_reset * p.byte_reset_unit, 10000000, "B = 10 MB");
	cr_assert_eq(dcqcn_paper_byte_reset(1), 10000000, "in bytes");
	cr_assert_eq(dcqcn_paper_byte_reset(64), 156250, "in 64-byte units");
	cr_assert_eq(p.rp_threshold, 5);
	cr_assert_eq(p.rp_ai_rate, 40);
	cr_assert_eq(p.rp_hai_rate, 200);
	cr_assert_eq(p.rp_min_rate, 100);
	cr_assert_eq(p.rp_dce_tcp_rtt, 55);
	cr_assert_eq(p.rp_dce_tcp_g, 1020, "g = (1024 - 1020) / 1024 = 1/256");
	cr_assert_eq(p.np_min_time_between_cnps, 50);
	cr_assert_eq(p.cnp_per_port, 0, "the paper's NP spaces CNPs per flow");
}

Test(dcqcn, mlx5_quiet_before_first_cnp)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	dcqcn_rp_init(&rp, &p, G100);
	cr_assert_eq(rp.rc, G100);
	cr_assert_eq(rp.rt, G100);
	cr_assert_eq(dcqcn_rp_rate(&rp), G100);
	cr_assert_eq(rp.active, 0);
	cr_assert_eq(rp.next_increase, SIMTIME_NEVER);
	/* Nothing counts or fires while inactive. */
	dcqcn_rp_sent(&rp, 100000000, 1 * US);
	dcqcn_rp_timer(&rp, 300 * US);
	cr_assert_eq(rp.byte_count, 0);
	cr_assert_eq(rp.byte_stage, 0);
	cr_assert_eq(rp.time_stage, 0);
	cr_assert_eq(rp.increases, 0);
	cr_assert_eq(rp.rc, G100);
}

Test(dcqcn, mlx5_first_cnp_no_cut)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	first_cnp(&rp, &p, G100);
	cr_assert_eq(rp.active, 1);
	/* rp_initial_alpha_value 1023 (/1024) held with 20 bits: 1023 << 10 = 1047552 */
	cr_assert_eq(rp.alpha, 1047552);
	cr_assert_eq(rp.rc, G100);
	cr_assert_eq(rp.rt, G100);
	cr_assert_eq(rp.cuts, 0);
	cr_assert_eq(rp.cnp_handled, 1);
	cr_assert_eq(rp.alpha_epoch, t0);
	cr_assert_eq(rp.next_increase, t0 + 300 * US);
}

/*
 * alpha (1.0 = 2^20) per 1 us period without a CNP:
 * a = a - (a * (1024 - 1019) >> 10) = a - (5 a >> 10). From 1023 << 10:
 * 1047552 (-5115) -> 1042437 (-5090) -> 1037347 (-5065) -> 1032282 (-5040)
 * -> 1027242 (-5015) -> 1022227 (-4991) -> 1017236 (-4966) -> 1012270
 * (-4942) -> 1007328 (-4918) -> 1002410 (-4894) -> 997516 (10 periods).
 * At t0 + 10 us the 10 periods [t0, t0 + 10) are over, none had a CNP (the
 * first one does not count): alpha 997516.
 * reduction = min(100e9 * 997516 >> (11 + 10), 100e9 * 50 / 100)
 *           = min(99751600e9 / 2097152 = 47565269470, 50e9) = 47565269470
 * rc = 100e9 - 47565269470 = 52434730530. Stages are 0 and
 * clamp_tgt_rate 0: rt stays at 100e9.
 */
Test(dcqcn, mlx5_second_cnp_cuts_at_once)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1;

	dcqcn_params_default(&p, DCQCN_MLX5);
	t1 = first_cut(&rp, &p, G100);
	cr_assert_eq(rp.alpha, 997516);
	cr_assert_eq(rp.rc, 52434730530ULL);
	cr_assert_eq(rp.rt, G100);
	cr_assert_eq(rp.cuts, 1);
	cr_assert_eq(rp.cnp_handled, 2);
	cr_assert_eq(rp.last_cut, t1);
	cr_assert_eq(rp.cut_pending, 0);
	cr_assert_eq(rp.next_increase, t1 + 300 * US);
}

/*
 * The cut's rc x alpha (alpha in 2^-20 units) passes 2^64 above 17.6 Tb/s:
 * at 100 Tb/s the first cut is rc - (rc x 997516 >> 21) = 1e14 -
 * 47565269470214 = 52434730529786, the 100G figure scaled, not a wrapped
 * remainder; the paper variant halves 1e14 exactly. At the largest rate
 * a link can have (2^64 - 1 b/s) the cut is 18446744073709551615 -
 * 8774243527140835327 = 9672500546568716288.
 */
Test(dcqcn, cut_at_rates_beyond_2_to_the_44)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	first_cut(&rp, &p, 100000000000000ULL);
	cr_assert_eq(rp.rc, 52434730529786ULL, "%llu", (unsigned long long)rp.rc);
	first_cut(&rp, &p, UINT64_MAX);
	cr_assert_eq(rp.rc, 9672500546568716288ULL, "%llu", (unsigned long long)rp.rc);
	/* the additive increase saturates at the max rate: Rt stays 2^64 - 1 and
	 * Rc goes half way to it, rounded towards it (it used to wrap Rt to 5 Mb/s) */
	cr_assert_eq(rp.rt, UINT64_MAX);
	dcqcn_rp_timer(&rp, rp.next_increase);
	cr_assert_eq(rp.rt, UINT64_MAX, "%llu", (unsigned long long)rp.rt);
	cr_assert_eq(rp.rc, UINT64_MAX - (UINT64_MAX - 9672500546568716288ULL) / 2, "%llu",
		     (unsigned long long)rp.rc);
	dcqcn_params_default(&p, DCQCN_PAPER);
	dcqcn_rp_init(&rp, &p, 100000000000000ULL);
	cr_assert_eq(dcqcn_rp_cnp(&rp, t0), t0);
	dcqcn_rp_cut(&rp, t0);
	cr_assert_eq(rp.rc, 50000000000000ULL, "%llu", (unsigned long long)rp.rc);
}

/*
 * rp_gd 0: rc * alpha >> (0 + 10) (about 97e12 here) is huge, the
 * min_dec_fac bound decides:
 * 50 -> rc = 100e9 - 100e9 * 50 / 100 = 50e9;
 * 80 -> rc = 100e9 - 100e9 * 20 / 100 = 80e9.
 */
Test(dcqcn, mlx5_min_dec_fac_bounds_the_cut)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_gd = 0;
	first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 50000000000ULL);

	p.rp_min_dec_fac = 80;
	first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 80000000000ULL);
}

/*
 * t1 = t0 + 10 us cuts at once (rc 52434730530, alpha 997516, as above).
 * The CNP at t1 falls in period [t0+10, t0+11): that period ends with a
 * CNP. CNP at t1 + 1 us: 1 us since the cut < 4 us: pending, cut at
 * t1 + 4 us. CNP at t1 + 2 us: a cut is pending: SIMTIME_NEVER.
 * alpha at t0 + 14 us, per period (CNP: a = a - (5 a >> 10) + (5 << 10)):
 *   [10,11) CNP: 997516 - 4870 + 5120 = 997766;
 *   [11,12) CNP: 997766 - 4871 + 5120 = 998015;
 *   [12,13) CNP: 998015 - 4873 + 5120 = 998262;
 *   [13,14) none: 998262 - 4874 = 993388.
 * reduction = min(52434730530 * 993388 >> 21, 52434730530 * 50 / 100)
 *           = min(52088032091735640 / 2097152 = 24837509199, 26217365265)
 * rc = 52434730530 - 24837509199 = 27597221331.
 */
Test(dcqcn, mlx5_monitor_period_spaces_cuts)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1;

	dcqcn_params_default(&p, DCQCN_MLX5);
	t1 = first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 52434730530ULL);
	cr_assert_eq(dcqcn_rp_cnp(&rp, t1 + 1 * US), t1 + 4 * US);
	cr_assert_eq(rp.cut_pending, 1);
	cr_assert_eq(dcqcn_rp_cnp(&rp, t1 + 2 * US), SIMTIME_NEVER);
	cr_assert_eq(rp.cuts, 1, "no cut before the monitor period");
	dcqcn_rp_cut(&rp, t1 + 4 * US);
	cr_assert_eq(rp.alpha, 993388);
	cr_assert_eq(rp.rc, 27597221331ULL);
	cr_assert_eq(rp.cuts, 2);
	cr_assert_eq(rp.cnp_handled, 4);
	cr_assert_eq(rp.cut_pending, 0);
	/* A CNP exactly one monitor period after the last cut cuts at once. */
	cr_assert_eq(dcqcn_rp_cnp(&rp, t1 + 8 * US), t1 + 8 * US);
}

/*
 * Decay from 1023 << 10 with a = a - (5 a >> 10) (values above): 1 period
 * 1042437, 2 periods 1037347, 10 periods 997516. Iterated further, the
 * step 5 a >> 10 is 1 down to a = 205 (1025 >> 10) and 0 at 204
 * (1020 >> 10): a reaches 205 after 1862 periods and 204 after 1863, and
 * stays there (the integer floor of the Q20 decay). One picosecond before a
 * period ends it has not decayed yet.
 */
Test(dcqcn, mlx5_alpha_decay_per_period)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	first_cnp(&rp, &p, G100);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 1 * US), 1042437);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 2 * US - 1), 1042437);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 2 * US), 1037347);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 10 * US), 997516);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 1862 * US), 205);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 1863 * US), 204);

	/* Lazy in one step from the first CNP, as well as period by period. */
	first_cnp(&rp, &p, G100);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 10 * US), 997516);
	/* 997516 / 2^20 = 0.95130538940429... */
	cr_assert_float_eq(dcqcn_rp_alpha_frac(&rp, t0 + 10 * US), 997516.0 / 1048576.0, 1e-12);

	/* Seconds of idle: alpha 204, the epoch on the period that holds now. */
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 3 * SIMTIME_S + 500 * SIMTIME_NS), 204);
	cr_assert_eq(rp.alpha_epoch, t0 + 3 * SIMTIME_S);
}

/*
 * rp_dce_tcp_g 512 (g = 1/2) makes the CNP term visible, with
 * a = a - (512 a >> 10) (+ (512 << 10) = 524288 after a CNP):
 * 1047552 - 523776 = 523776 -> 523776 - 261888 = 261888 at t0 + 2 us;
 * a CNP at t0 + 2.5 us marks [2,3): at t0 + 3 us
 * a = 261888 - 130944 + 524288 = 655232; the next period has no CNP:
 * 655232 - 327616 = 327616.
 */
Test(dcqcn, mlx5_alpha_rises_after_a_period_with_cnp)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_dce_tcp_g = 512;
	first_cnp(&rp, &p, G100);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 2 * US), 261888);
	dcqcn_rp_cnp(&rp, t0 + 2 * US + 500 * SIMTIME_NS);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 3 * US - 1), 261888);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 3 * US), 655232);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 4 * US), 327616);
}

/*
 * Threshold 1, byte counter 16 * 64 = 1024 bytes, rp_gd 0 (50% cut),
 * clamp_tgt_rate 1, rate_to_set_on_first_cnp 40000 (40 Gb/s):
 *   first CNP: rc 40e9, rt 100e9; cut: rt = 40e9, rc = 20e9.
 *   timer (ts 1, bs 0): max 1 >= 1: AI rt = 40.005e9,
 *       rc = (20e9 + 40.005e9) / 2 = 30002500000
 *   bytes (ts 1, bs 1): min 1 not > 1, AI rt = 40.010e9,
 *       rc = (30002500000 + 40010000000) / 2 = 35006250000
 *   bytes (ts 1, bs 2): min 1, AI rt = 40.015e9, rc = 37510625000
 *   timer (ts 2, bs 2): min 2 > 1: HAI rt = 40.065e9,
 *       rc = (37510625000 + 40065000000) / 2 = 38787812500
 *   bytes (ts 2, bs 3): HAI rt = 40.115e9,
 *       rc = (38787812500 + 40115000000) / 2 = 39451406250
 */
Test(dcqcn, mlx5_increase_ai_then_hai)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1, t;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_byte_reset = 16;
	p.byte_reset_unit = 64; /* 1024 bytes a stage */
	p.rp_gd = 0;
	p.rp_clamp_tgt_rate = 1;
	p.rp_rate_to_set_on_first_cnp = 40000;
	first_cnp(&rp, &p, G100);
	cr_assert_eq(rp.rc, G40);
	cr_assert_eq(rp.rt, G100);
	t1 = t0 + 10 * US;
	dcqcn_rp_cnp(&rp, t1);
	dcqcn_rp_cut(&rp, t1);
	cr_assert_eq(rp.rc, 20000000000ULL);
	cr_assert_eq(rp.rt, G40);

	t = rp.next_increase;
	cr_assert_eq(t, t1 + 300 * US);
	dcqcn_rp_timer(&rp, t);
	cr_assert_eq(rp.time_stage, 1);
	cr_assert_eq(rp.rt, 40005000000ULL);
	cr_assert_eq(rp.rc, 30002500000ULL);
	cr_assert_eq(rp.next_increase, t + 300 * US);

	dcqcn_rp_sent(&rp, 1000, t);
	cr_assert_eq(rp.byte_stage, 0);
	cr_assert_eq(rp.byte_count, 1000);
	dcqcn_rp_sent(&rp, 24, t);
	cr_assert_eq(rp.byte_stage, 1);
	cr_assert_eq(rp.byte_count, 0);
	cr_assert_eq(rp.rt, 40010000000ULL);
	cr_assert_eq(rp.rc, 35006250000ULL);
	cr_assert_eq(rp.next_increase, t + 300 * US, "bytes leave the timer alone");

	dcqcn_rp_sent(&rp, 1024, t);
	cr_assert_eq(rp.rt, 40015000000ULL);
	cr_assert_eq(rp.rc, 37510625000ULL);

	t = rp.next_increase;
	dcqcn_rp_timer(&rp, t);
	cr_assert_eq(rp.rt, 40065000000ULL);
	cr_assert_eq(rp.rc, 38787812500ULL);

	dcqcn_rp_sent(&rp, 1024, t);
	cr_assert_eq(rp.byte_stage, 3);
	cr_assert_eq(rp.rt, 40115000000ULL);
	cr_assert_eq(rp.rc, 39451406250ULL);
	cr_assert_eq(rp.increases, 5);
}

/*
 * Same set-up, threshold 2, so fast recovery shows:
 *   cut: rc 20e9, rt 40e9
 *   timer (ts 1, bs 0): FR, rc = 30e9
 *   timer (ts 2, bs 0): AI rt 40.005e9, rc = (30e9 + 40.005e9) / 2 = 35002500000
 *   bytes (ts 2, bs 1): AI rt 40.010e9, rc = 37506250000
 *   bytes (ts 2, bs 2): min 2 not > 2, AI rt 40.015e9, rc = 38760625000
 *   timer (ts 3, bs 2): min 2, AI rt 40.020e9, rc = 39390312500
 *   bytes (ts 3, bs 3): min 3 > 2, HAI rt 40.070e9, rc = 39730156250
 */
Test(dcqcn, mlx5_fast_recovery_then_ai_then_hai)
{
	static const struct {
		char ev;
		uint64_t rc, rt;
	} seq[] = {
	    {'t', 30000000000ULL, 40000000000ULL}, {'t', 35002500000ULL, 40005000000ULL},
	    {'b', 37506250000ULL, 40010000000ULL}, {'b', 38760625000ULL, 40015000000ULL},
	    {'t', 39390312500ULL, 40020000000ULL}, {'b', 39730156250ULL, 40070000000ULL},
	};
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_byte_reset = 16;
	p.byte_reset_unit = 64; /* 1024 bytes a stage */
	p.rp_gd = 0;
	p.rp_clamp_tgt_rate = 1;
	p.rp_rate_to_set_on_first_cnp = 40000;
	p.rp_threshold = 2;
	first_cnp(&rp, &p, G100);
	t1 = t0 + 10 * US;
	dcqcn_rp_cnp(&rp, t1);
	dcqcn_rp_cut(&rp, t1);
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		if (seq[i].ev == 't')
			dcqcn_rp_timer(&rp, rp.next_increase);
		else
			dcqcn_rp_sent(&rp, 1024, t1);
		cr_assert_eq(rp.rc, seq[i].rc, "step %zu", i);
		cr_assert_eq(rp.rt, seq[i].rt, "step %zu", i);
	}
}

/*
 * rp_min_rate 30000 Mb/s, rp_gd 0, first CNP sets 40 Gb/s: the 50% cut
 * would give 20e9, the floor keeps 30e9; a second cut stays at 30e9.
 */
Test(dcqcn, mlx5_min_rate_floor)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_min_rate = 30000;
	p.rp_gd = 0;
	p.rp_rate_to_set_on_first_cnp = 40000;
	t1 = first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 30000000000ULL);
	cr_assert_eq(dcqcn_rp_cnp(&rp, t1 + 10 * US), t1 + 10 * US);
	dcqcn_rp_cut(&rp, t1 + 10 * US);
	cr_assert_eq(rp.rc, 30000000000ULL);

	/* The default 1 Mb/s floor: repeated cuts end at exactly 1e6. */
	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_gd = 0;
	t1 = first_cut(&rp, &p, G100);
	for (int i = 1; i <= 20; i++) {
		dcqcn_rp_cnp(&rp, t1 + i * 10 * US);
		dcqcn_rp_cut(&rp, t1 + i * 10 * US);
	}
	/* 100e9 / 2^21 = 47683 bit/s < 1e6 */
	cr_assert_eq(rp.rc, 1000000ULL);
}

/*
 * rp_max_rate 25000 Mb/s on a 100G port: rc = rt = 25e9 from the start.
 * Cut at t0 + 10 us (alpha 997516): 25e9 * 997516 >> 21
 * = 24937900000e6 / 2097152 = 11891317367 (< 12.5e9), rc = 13108682633,
 * rt 25e9. Timer AIs are capped at 25e9 and rc = rt - (rt - rc) / 2 halves
 * the 11891317367 gap (2^33 <= gap < 2^34): after 34 events rc == rt ==
 * 25e9 and the timer stops (next_increase NEVER), the RP stays active.
 */
Test(dcqcn, mlx5_max_rate_ceiling_and_quiet)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t = 0;
	int n = 0;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_max_rate = 25000;
	dcqcn_rp_init(&rp, &p, G100);
	cr_assert_eq(rp.rc, 25000000000ULL);
	cr_assert_eq(rp.rt, 25000000000ULL);
	first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 13108682633ULL);
	cr_assert_eq(rp.rt, 25000000000ULL);
	while (rp.next_increase != SIMTIME_NEVER && n < 1000) {
		t = rp.next_increase;
		dcqcn_rp_timer(&rp, t);
		cr_assert_leq(rp.rc, 25000000000ULL);
		cr_assert_eq(rp.rt, 25000000000ULL);
		n++;
	}
	cr_assert_eq(n, 34);
	cr_assert_eq(rp.rc, 25000000000ULL);
	cr_assert_eq(rp.active, 1);
	/* Bytes keep counting while quiet but the rate stays at the ceiling. */
	dcqcn_rp_sent(&rp, 32767ULL * p.byte_reset_unit * 3, t);
	cr_assert_eq(rp.byte_stage, 3);
	cr_assert_eq(rp.rc, 25000000000ULL);
	cr_assert_eq(rp.next_increase, SIMTIME_NEVER);
	/*
	 * The next CNP cuts and re-arms the timer. Since the cut at t0 + 10 us,
	 * 34 * 300 + 1 = 10201 periods have passed: the first had that cut's
	 * CNP (997516 - 4870 + 5120 = 997766), then 1853 periods of decay take
	 * alpha to its floor 204 (5 * 204 >> 10 = 0), far fewer than 10200.
	 * At that floor the cut is tiny, not nothing:
	 * 25e9 * 204 >> 21 = 5100e9 / 2097152 = 2431869 (< 12.5e9),
	 * rc = 25e9 - 2431869 = 24997568131.
	 */
	cr_assert_eq(dcqcn_rp_cnp(&rp, t + 1 * US), t + 1 * US);
	dcqcn_rp_cut(&rp, t + 1 * US);
	cr_assert_eq(rp.alpha, 204);
	cr_assert_eq(rp.rc, 24997568131ULL);
	cr_assert_eq(rp.cuts, 2);
	cr_assert_eq(rp.next_increase, t + 301 * US);

	/* rp_max_rate above the port speed means the port speed. */
	p.rp_max_rate = 400000;
	dcqcn_rp_init(&rp, &p, G100);
	cr_assert_eq(rp.rc, G100);
	cr_assert_eq(rp.max_rate, G100);
}

Test(dcqcn, mlx5_rate_to_set_on_first_cnp)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_rate_to_set_on_first_cnp = 40000;
	first_cnp(&rp, &p, G100);
	cr_assert_eq(rp.rc, G40);
	cr_assert_eq(rp.rt, G100, "rt unchanged");
	cr_assert_eq(rp.cuts, 0);

	/* Above the port speed: the port speed. */
	p.rp_rate_to_set_on_first_cnp = 200000;
	first_cnp(&rp, &p, G100);
	cr_assert_eq(rp.rc, G100);

	/* 0 leaves rc alone. */
	p.rp_rate_to_set_on_first_cnp = 0;
	first_cnp(&rp, &p, G100);
	cr_assert_eq(rp.rc, G100);
}

/*
 * G 1024 freezes alpha at 1023 << 10 = 1047552 (a - (0 * a >> 10) + 0)
 * and rp_gd 0 makes every cut exactly 50% (rc * 1047552 >> 10 > rc / 2);
 * first CNP sets rc 40e9 (rt 100e9); first cut at t0 + 10 us -> rc 20e9.
 *  - clamp 0 / ati 1, stages 0: rt stays 100e9; the next cut: rc 10e9.
 *  - clamp 1: rt = 40e9 at the first cut, 20e9 at the next.
 *  - ati 1, one timer AI (rt capped 100e9, rc = 60e9), cut: rt = 60e9, rc 30e9.
 *  - ati 0, same timer AI, cut: rt stays 100e9, rc 30e9.
 *  - ati 0, one byte stage (AI, rc 60e9), cut: rt = 60e9, rc 30e9.
 */
static void clamp_case(uint32_t clamp, uint32_t ati, char ev, uint64_t rt1, uint64_t rt2,
		       uint64_t rc2)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1, t2;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_dce_tcp_g = 1024;
	p.rp_gd = 0;
	p.rp_byte_reset = 16;
	p.byte_reset_unit = 64; /* 1024 bytes a stage */
	p.rp_rate_to_set_on_first_cnp = 40000;
	p.rp_clamp_tgt_rate = clamp;
	p.rp_clamp_tgt_rate_ati = ati;
	t1 = first_cut(&rp, &p, G100);
	cr_assert_eq(rp.alpha, 1047552);
	cr_assert_eq(rp.rc, 20000000000ULL);
	cr_assert_eq(rp.rt, rt1);
	t2 = t1 + 20 * US;
	if (ev == 't') {
		t2 = rp.next_increase;
		dcqcn_rp_timer(&rp, t2);
		cr_assert_eq(rp.rc, 60000000000ULL);
		t2 += 1 * US;
	} else if (ev == 'b') {
		dcqcn_rp_sent(&rp, 1024, t2);
		cr_assert_eq(rp.rc, 60000000000ULL);
	}
	cr_assert_eq(dcqcn_rp_cnp(&rp, t2), t2);
	dcqcn_rp_cut(&rp, t2);
	cr_assert_eq(rp.rc, rc2);
	cr_assert_eq(rp.rt, rt2);
}

Test(dcqcn, mlx5_clamp_flags)
{
	clamp_case(0, 1, 0, G100, G100, 10000000000ULL);
	clamp_case(1, 1, 0, G40, 20000000000ULL, 10000000000ULL);
	clamp_case(0, 1, 't', G100, 60000000000ULL, 30000000000ULL);
	clamp_case(0, 0, 't', G100, G100, 30000000000ULL);
	clamp_case(0, 0, 'b', G100, 60000000000ULL, 30000000000ULL);
}

/* A timer call before next_increase (a stale timer) changes nothing. */
Test(dcqcn, mlx5_stale_timer_ignored)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t1;
	uint64_t rc;

	dcqcn_params_default(&p, DCQCN_MLX5);
	t1 = first_cut(&rp, &p, G100);
	rc = rp.rc;
	dcqcn_rp_timer(&rp, t0 + 300 * US); /* armed by the first CNP, moved by the cut */
	cr_assert_eq(rp.rc, rc);
	cr_assert_eq(rp.time_stage, 0);
	cr_assert_eq(rp.next_increase, t1 + 300 * US);
}

/*
 * The byte counter's unit: rp_byte_reset 32767 after the first cut. In
 * bytes, 100,000 bytes sent are 3 stages (98,301 bytes)
 * and 1,699 counted towards the fourth. In 64-byte units a stage is
 * 2,097,088 bytes: 100,000 bytes reach no stage; 1,997,088 more make the
 * first, with nothing left over.
 */
Test(dcqcn, mlx5_byte_reset_counts_bytes_or_64_byte_units)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.byte_reset_unit = 1;
	first_cut(&rp, &p, G100);
	dcqcn_rp_sent(&rp, 100000, t0 + 11 * US);
	cr_assert_eq(rp.byte_stage, 3);
	cr_assert_eq(rp.byte_count, 1699);

	p.byte_reset_unit = 64;
	first_cut(&rp, &p, G100);
	dcqcn_rp_sent(&rp, 100000, t0 + 11 * US);
	cr_assert_eq(rp.byte_stage, 0);
	cr_assert_eq(rp.byte_count, 100000);
	dcqcn_rp_sent(&rp, 1997087, t0 + 12 * US);
	cr_assert_eq(rp.byte_stage, 0, "one byte short");
	dcqcn_rp_sent(&rp, 1, t0 + 12 * US);
	cr_assert_eq(rp.byte_stage, 1);
	cr_assert_eq(rp.byte_count, 0);
}

/* rp_byte_reset 0 disables the byte counter. */
Test(dcqcn, mlx5_byte_reset_zero_disables)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	uint64_t rc;

	dcqcn_params_default(&p, DCQCN_MLX5);
	p.rp_byte_reset = 0;
	first_cut(&rp, &p, G100);
	rc = rp.rc;
	dcqcn_rp_sent(&rp, 1000000000, t0 + 11 * US);
	cr_assert_eq(rp.byte_stage, 0);
	cr_assert_eq(rp.rc, rc);
}

/*
 * Paper, 40G: alpha starts at 1 (1 << 20). A CNP cuts at once:
 * rt = 40e9, rc = 40e9 - (40e9 * 2^20 >> 21) = 20e9,
 * alpha = 2^20 - (2^20 >> 8) + (1 << 12) = 2^20.
 */
Test(dcqcn, paper_cut_halves_at_alpha_one)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_PAPER);
	dcqcn_rp_init(&rp, &p, G40);
	cr_assert_eq(rp.alpha, 1U << 20);
	cr_assert_eq(rp.rc, G40);
	cr_assert_eq(dcqcn_rp_cnp(&rp, t0), t0);
	dcqcn_rp_cut(&rp, t0);
	cr_assert_eq(rp.rc, 20000000000ULL);
	cr_assert_eq(rp.rt, G40);
	cr_assert_eq(rp.alpha, 1U << 20);
	cr_assert_float_eq(dcqcn_rp_alpha_frac(&rp, t0), 1.0, 1e-12);
	cr_assert_eq(rp.next_increase, t0 + 55 * US);
	/* No monitor period: a CNP 1 us later cuts at once too. */
	cr_assert_eq(dcqcn_rp_cnp(&rp, t0 + 1 * US), t0 + 1 * US);
	/* A second CNP before that cut ran does not ask for another. */
	cr_assert_eq(dcqcn_rp_cnp(&rp, t0 + 1 * US), SIMTIME_NEVER);
	dcqcn_rp_cut(&rp, t0 + 1 * US);
	cr_assert_eq(rp.rc, 10000000000ULL);
	cr_assert_eq(rp.cuts, 2);
	cr_assert_eq(rp.cnp_handled, 3);
}

/*
 * alpha -= alpha >> 8 per 55 us without a CNP, from 2^20:
 * 1048576 -> 1044480 (-4096) -> 1040400 (-4080) -> 1036336 -> 1032288 ->
 * 1028256 -> 1024240 -> 1020240 -> 1016255 -> 1012286 -> 1008332 (10).
 * Periods restart at the CNP: a CNP at t0 + 150 us (two periods decayed,
 * alpha 1040400) cuts rc = 20e9 - (20e9 * 1040400 >> 21)
 *   = 20e9 - 9922027587 = 10077972413,
 * alpha = 1040400 - 4064 + 4096 = 1040432, unchanged until t0 + 205 us,
 * then 1040432 - 4064 = 1036368.
 * The integer decay stops at 255 (255 >> 8 = 0), reached after 2273 periods.
 */
Test(dcqcn, paper_alpha_decay)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_PAPER);
	dcqcn_rp_init(&rp, &p, G40);
	dcqcn_rp_cnp(&rp, t0);
	dcqcn_rp_cut(&rp, t0);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 55 * US - 1), 1048576);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 55 * US), 1044480);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 110 * US), 1040400);
	cr_assert_eq(dcqcn_rp_cnp(&rp, t0 + 150 * US), t0 + 150 * US);
	dcqcn_rp_cut(&rp, t0 + 150 * US);
	cr_assert_eq(rp.rc, 10077972413ULL);
	cr_assert_eq(rp.rt, 20000000000ULL);
	cr_assert_eq(rp.alpha, 1040432);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 204 * US), 1040432);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 205 * US), 1036368);

	dcqcn_rp_init(&rp, &p, G40);
	dcqcn_rp_cnp(&rp, t0);
	dcqcn_rp_cut(&rp, t0);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 10 * 55 * US), 1008332);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 2273 * 55 * US), 255);
	cr_assert_eq(dcqcn_rp_alpha(&rp, t0 + 10 * SIMTIME_S), 255);
}

/*
 * Paper, 40G, CNPs at t0 and t0 + 50 us (alpha stays 1): rc 10e9, rt 20e9.
 * F = 5, B = 10 MB, R_AI 40 Mb/s, R_HAI 200 Mb/s; rc = (rc + rt) / 2:
 *   t ts1..4 FR: rc 15e9, 17.5e9, 18.75e9, 19.375e9 (rt 20e9)
 *   t ts5: AI rt 20.04e9, rc = (19.375e9 + 20.04e9) / 2 = 19707500000
 *   b bs1..4 (max 5, min < 5): AI each, rt 20.08, 20.12, 20.16, 20.20e9;
 *       rc 19893750000, 20006875000, 20083437500, 20141718750
 *   b bs5: min 5: HAI i = 1, rt 20.4e9, rc 20270859375
 *   t ts6: min 5, i = 1, rt 20.6e9, rc = 40870859375 / 2 rounded up
 *       towards rt = 20435429688
 *   b bs6: min 6, i = 2, rt 21.0e9, rc = 41435429688 / 2 = 20717714844
 *   t ts7: min 6, i = 2, rt 21.4e9, rc = 42117714844 / 2 = 21058857422
 */
Test(dcqcn, paper_fast_recovery_ai_hai)
{
	static const struct {
		char ev;
		uint64_t rc, rt;
	} seq[] = {
	    {'t', 15000000000ULL, 20000000000ULL}, {'t', 17500000000ULL, 20000000000ULL},
	    {'t', 18750000000ULL, 20000000000ULL}, {'t', 19375000000ULL, 20000000000ULL},
	    {'t', 19707500000ULL, 20040000000ULL}, {'b', 19893750000ULL, 20080000000ULL},
	    {'b', 20006875000ULL, 20120000000ULL}, {'b', 20083437500ULL, 20160000000ULL},
	    {'b', 20141718750ULL, 20200000000ULL}, {'b', 20270859375ULL, 20400000000ULL},
	    {'t', 20435429688ULL, 20600000000ULL}, {'b', 20717714844ULL, 21000000000ULL},
	    {'t', 21058857422ULL, 21400000000ULL},
	};
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	simtime_t t = t0 + 50 * US;

	dcqcn_params_default(&p, DCQCN_PAPER);
	dcqcn_rp_init(&rp, &p, G40);
	dcqcn_rp_cnp(&rp, t0);
	dcqcn_rp_cut(&rp, t0);
	dcqcn_rp_cnp(&rp, t);
	dcqcn_rp_cut(&rp, t);
	cr_assert_eq(rp.rc, 10000000000ULL);
	cr_assert_eq(rp.rt, 20000000000ULL);
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		if (seq[i].ev == 't') {
			cr_assert_eq(rp.next_increase, t + 55 * US, "step %zu", i);
			t = rp.next_increase;
			dcqcn_rp_timer(&rp, t);
		} else {
			dcqcn_rp_sent(&rp, 10000000, t);
		}
		cr_assert_eq(rp.rc, seq[i].rc, "step %zu", i);
		cr_assert_eq(rp.rt, seq[i].rt, "step %zu", i);
	}
	cr_assert_eq(rp.time_stage, 7);
	cr_assert_eq(rp.byte_stage, 6);
}

/*
 * Paper, 40G, a CNP every 50 us keeps alpha at 1, so each cut halves:
 * 20e9, 10e9, 5e9, 2.5e9, 1.25e9, 625e6, 312.5e6, 156.25e6, then
 * 78.125e6 < 100e6: the floor, 100e6, and again at the 10th cut.
 */
Test(dcqcn, paper_min_rate_floor)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_PAPER);
	dcqcn_rp_init(&rp, &p, G40);
	for (int i = 0; i < 10; i++) {
		simtime_t t = t0 + i * 50 * US;

		cr_assert_eq(dcqcn_rp_cnp(&rp, t), t);
		dcqcn_rp_cut(&rp, t);
		cr_assert_eq(rp.alpha, 1U << 20);
		if (i == 7)
			cr_assert_eq(rp.rc, 156250000ULL);
	}
	cr_assert_eq(rp.rc, 100000000ULL);
}

/*
 * Larger rp_gd, smaller cut. At alpha 997516: rp_gd 11 -> rc 52434730530;
 * rp_gd 12 -> 100e9 - (99751600e9 >> (12 + 10) = 23782634735)
 * = 76217365265.
 */
Test(dcqcn, direction_gd)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;

	dcqcn_params_default(&p, DCQCN_MLX5);
	first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 52434730530ULL);
	p.rp_gd = 12;
	first_cut(&rp, &p, G100);
	cr_assert_eq(rp.rc, 76217365265ULL);
}

/*
 * Larger rp_ai_rate, faster recovery: after the 50% cut to 20e9 (rt 40e9),
 * three timer AIs: ai 5 -> rt 40.015e9, rc 37510625000;
 * ai 50 -> rt 40.15e9, rc 37606250000.
 */
Test(dcqcn, direction_ai_rate)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	uint64_t rc[2];
	const uint32_t ai[2] = {5, 50};

	for (int i = 0; i < 2; i++) {
		dcqcn_params_default(&p, DCQCN_MLX5);
		p.rp_ai_rate = ai[i];
		p.rp_clamp_tgt_rate = 1;
		p.rp_gd = 0;
		p.rp_rate_to_set_on_first_cnp = 40000;
		first_cut(&rp, &p, G100);
		for (int k = 0; k < 3; k++)
			dcqcn_rp_timer(&rp, rp.next_increase);
		rc[i] = rp.rc;
	}
	cr_assert_eq(rc[0], 37510625000ULL);
	cr_assert_eq(rc[1], 37606250000ULL);
	cr_assert_gt(rc[1], rc[0]);
}

/*
 * Larger rp_time_reset, slower recovery: 1200 us after the cut (20e9,
 * rt 40e9) rp_time_reset 300 has had 4 AIs, rc 38765312500; 600 has had
 * 2, rc 35006250000.
 */
Test(dcqcn, direction_time_reset)
{
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	uint64_t rc[2];
	const uint32_t tr[2] = {300, 600};

	for (int i = 0; i < 2; i++) {
		simtime_t t1;

		dcqcn_params_default(&p, DCQCN_MLX5);
		p.rp_time_reset = tr[i];
		p.rp_clamp_tgt_rate = 1;
		p.rp_gd = 0;
		p.rp_rate_to_set_on_first_cnp = 40000;
		t1 = first_cut(&rp, &p, G100);
		while (rp.next_increase <= t1 + 1200 * US)
			dcqcn_rp_timer(&rp, rp.next_increase);
		rc[i] = rp.rc;
	}
	cr_assert_eq(rc[0], 38765312500ULL);
	cr_assert_eq(rc[1], 35006250000ULL);
	cr_assert_lt(rc[1], rc[0]);
}
