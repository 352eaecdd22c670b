/* Units: sizes, rates, times, lengths and fractions, valid and invalid. */
#include <criterion/criterion.h>

#include "models/link.h"
#include "sim/engine/checked.h"
#include "sim/engine/units.h"

/* Link rates from 10G to 1.6T: 8e12 and 512e12 are whole multiples of each. */
static const uint64_t ethernet_rates[] = {
    10000000000ULL,  25000000000ULL,  40000000000ULL,  50000000000ULL,	 100000000000ULL,
    200000000000ULL, 400000000000ULL, 800000000000ULL, 1600000000000ULL,
};
#define N_ETHERNET_RATES (sizeof(ethernet_rates) / sizeof(ethernet_rates[0]))

/* @t is @bits x 1e12 / @rate rounded up: t x rate >= bits x 1e12 > (t - 1) x rate. */
static int is_ceiling(simtime_t t, ck_u128 bits, uint64_t rate)
{
	ck_u128 ps = bits * SIMTIME_S;

	return (ck_u128)t * rate >= ps && (t == 0 || (ck_u128)(t - 1) * rate < ps);
}

Test(units, sizes_si_binary_and_bare)
{
	uint64_t v;

	cr_assert_eq(units_size("150KB", &v), 0);
	cr_assert_eq(v, 150000);
	cr_assert_eq(units_size("150KiB", &v), 0);
	cr_assert_eq(v, 153600);
	cr_assert_eq(units_size("1.2MB", &v), 0);
	cr_assert_eq(v, 1200000);
	cr_assert_eq(units_size("65536", &v), 0);
	cr_assert_eq(v, 65536);
	cr_assert_eq(units_size("1.5KiB", &v), 0);
	cr_assert_eq(v, 1536);
	cr_assert_eq(units_size("32MB", &v), 0);
	cr_assert_eq(v, 32000000);
	cr_assert_eq(units_size("4 MiB", &v), 0);
	cr_assert_eq(v, 4194304);
}

Test(units, sizes_refused)
{
	uint64_t v = 7;

	cr_assert_eq(units_size("1.2XB", &v), UNITS_ESYNTAX);
	cr_assert_eq(units_size("", &v), UNITS_ESYNTAX);
	cr_assert_eq(units_size("-5KB", &v), UNITS_ESYNTAX);
	cr_assert_eq(units_size("0.5B", &v), UNITS_EFRACTION);
	cr_assert_eq(units_size("KB", &v), UNITS_ESYNTAX);
	cr_assert_eq(units_size("1..2MB", &v), UNITS_ESYNTAX);
	cr_assert_eq(units_size("99999999999999999999", &v), UNITS_ERANGE);
	cr_assert_eq(units_size("20000000TB", &v), UNITS_ERANGE);
	cr_assert_eq(v, 7, "a refused value leaves the output alone");
}

Test(units, rates)
{
	uint64_t v;

	cr_assert_eq(units_rate("100Gbps", &v), 0);
	cr_assert_eq(v, 100000000000ULL);
	cr_assert_eq(units_rate("400Gb/s", &v), 0);
	cr_assert_eq(v, 400000000000ULL);
	cr_assert_eq(units_rate("50Mbps", &v), 0);
	cr_assert_eq(v, 50000000);
	cr_assert_eq(units_rate("2.5Gbps", &v), 0);
	cr_assert_eq(v, 2500000000ULL);
	cr_assert_eq(units_rate("100", &v), UNITS_ENOUNIT);
	cr_assert_eq(units_rate("100GB", &v), UNITS_ESYNTAX);
	/* bytes per second: NVLink 4 is quoted as 450 GB/s per direction */
	cr_assert_eq(units_rate("450GB/s", &v), 0);
	cr_assert_eq(v, 3600000000000ULL);
	cr_assert_eq(units_rate("1.5MB/s", &v), 0);
	cr_assert_eq(v, 12000000);
	cr_assert_eq(units_rate("3000000TB/s", &v), UNITS_ERANGE);
}

Test(units, times)
{
	simtime_t t;

	cr_assert_eq(units_time("1us", &t), 0);
	cr_assert_eq(t, 1000000);
	cr_assert_eq(units_time("1.5us", &t), 0);
	cr_assert_eq(t, 1500000);
	cr_assert_eq(units_time("50ms", &t), 0);
	cr_assert_eq(t, 50 * SIMTIME_MS);
	cr_assert_eq(units_time("2s", &t), 0);
	cr_assert_eq(t, 2 * SIMTIME_S);
	cr_assert_eq(units_time("80ps", &t), 0);
	cr_assert_eq(t, 80);
	cr_assert_eq(units_time("\xc2\xb5s", &t), UNITS_ESYNTAX);
	cr_assert_eq(units_time("3\xc2\xb5s", &t), 0);
	cr_assert_eq(t, 3 * SIMTIME_US);
	cr_assert_eq(units_time("0", &t), 0);
	cr_assert_eq(t, 0);
	cr_assert_eq(units_time("10", &t), UNITS_ENOUNIT);
	cr_assert_eq(units_time("0.1ps", &t), UNITS_EFRACTION);
	cr_assert_eq(units_time("5 minutes", &t), UNITS_ESYNTAX);
}

Test(units, lengths)
{
	uint64_t mm;

	cr_assert_eq(units_length("5m", &mm), 0);
	cr_assert_eq(mm, 5000);
	cr_assert_eq(units_length("2km", &mm), 0);
	cr_assert_eq(mm, 2000000);
	cr_assert_eq(units_length("2.5m", &mm), 0);
	cr_assert_eq(mm, 2500);
	cr_assert_eq(units_length("30", &mm), UNITS_ENOUNIT);
}

Test(units, fractions)
{
	double f;

	cr_assert_eq(units_fraction("20%", &f), 0);
	cr_assert_float_eq(f, 0.2, 1e-12);
	cr_assert_eq(units_fraction("0.5%", &f), 0);
	cr_assert_float_eq(f, 0.005, 1e-12);
	cr_assert_eq(units_fraction("0.2", &f), 0);
	cr_assert_float_eq(f, 0.2, 1e-12);
	cr_assert_eq(units_fraction("120%", &f), UNITS_ERANGE);
	cr_assert_eq(units_fraction("1.5", &f), UNITS_ERANGE);
	cr_assert_eq(units_fraction("20%%", &f), UNITS_ESYNTAX);
}

Test(units, serialization_time_is_exact)
{
	cr_assert_eq(simtime_tx(1, 100000000000ULL), 80);
	cr_assert_eq(simtime_tx(1, 400000000000ULL), 20);
	cr_assert_eq(simtime_tx(4178, 100000000000ULL), 334240);
	/* 1 byte at 3 Gb/s is 2666.67 ps: rounded up */
	cr_assert_eq(simtime_tx(1, 3000000000ULL), 2667);
}

Test(units, checked_sums_and_products_refuse_what_does_not_fit)
{
	uint64_t v = 7;

	cr_assert_eq(ck_add(UINT64_MAX - 1, 1, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	v = 7;
	cr_assert_eq(ck_add(UINT64_MAX, 1, &v), -ERANGE);
	cr_assert_eq(ck_add(18446744073709551615ULL, 1000, &v), -ERANGE);
	cr_assert_eq(v, 7, "a refused sum leaves the output alone");
	cr_assert_eq(ck_mul(1ULL << 32, (1ULL << 32) - 1, &v), 0);
	cr_assert_eq(v, 0xffffffff00000000ULL);
	cr_assert_eq(ck_mul(1ULL << 32, 1ULL << 32, &v), -ERANGE);
	cr_assert_eq(ck_mul(4, 4611686018427387904ULL, &v), -ERANGE);
	cr_assert_eq(ck_mul(0, UINT64_MAX, &v), 0);
	cr_assert_eq(v, 0);
	/* the product may pass 2^64 as long as the quotient does not */
	cr_assert_eq(ck_muldiv(UINT64_MAX, 1000, 1000, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(ck_muldiv(UINT64_MAX, 1001, 1000, &v), -ERANGE);
	cr_assert_eq(ck_muldiv(10, 10, 3, &v), 0);
	cr_assert_eq(v, 33);
	cr_assert_eq(ck_muldiv_up(10, 10, 3, &v), 0);
	cr_assert_eq(v, 34);
	cr_assert_eq(ck_muldiv_up(9, 10, 3, &v), 0);
	cr_assert_eq(v, 30);
	cr_assert_eq(ck_muldiv_up(UINT64_MAX, 1, 1, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(ck_muldiv_up(UINT64_MAX, 3, 2, &v), -ERANGE);
	cr_assert_eq(ck_add_sat(UINT64_MAX - 5, 5), UINT64_MAX);
	cr_assert_eq(ck_add_sat(UINT64_MAX - 5, 6), UINT64_MAX);
	cr_assert_eq(ck_add_sat(1, 2), 3);
}

/*
 * Serialization of 1 B to 2^40 B at 1 Gb/s to 1.6 Tb/s (and at rates that
 * do not divide 8e12): exact, rounded up to the picosecond, also above the
 * 2.3 MB where bytes x 8e12 leaves 64 bits.
 */
Test(units, serialization_time_is_exact_over_the_whole_range)
{
	static const uint64_t odd_rates[] = {
	    1, 3, 1000000007ULL, 3000000000ULL, 1000000000ULL, 2500000000ULL, 56000000000ULL};

	/* 2^40 B at 1.6 Tb/s: 2^40 x 5 ps; at 10 Gb/s: 2^40 x 800 ps */
	cr_assert_eq(simtime_tx(1ULL << 40, 1600000000000ULL), 5497558138880ULL);
	cr_assert_eq(simtime_tx(1ULL << 40, 10000000000ULL), 879609302220800ULL);
	/* 2.3 MB at 100G: 184 us, where bytes x 8e12 wrapped */
	cr_assert_eq(simtime_tx(2300000, 100000000000ULL), 184 * SIMTIME_US);
	cr_assert_eq(simtime_tx(2305844, 100000000000ULL), 184467520);
	for (unsigned shift = 0; shift <= 40; shift++) {
		for (int d = -1; d <= 1; d++) {
			uint64_t bytes = (1ULL << shift) + (uint64_t)(int64_t)d;

			for (size_t i = 0; i < N_ETHERNET_RATES; i++) {
				uint64_t r = ethernet_rates[i];

				cr_assert_eq(simtime_tx(bytes, r), bytes * (8 * SIMTIME_S / r),
					     "%llu B at %llu b/s", (unsigned long long)bytes,
					     (unsigned long long)r);
			}
			for (size_t i = 0; i < sizeof(odd_rates) / sizeof(odd_rates[0]); i++) {
				simtime_t t = simtime_tx(bytes, odd_rates[i]);

				if ((ck_u128)bytes * 8 * SIMTIME_S / odd_rates[i] >= UINT64_MAX)
					cr_assert_eq(t, SIMTIME_NEVER);
				else
					cr_assert(is_ceiling(t, (ck_u128)bytes * 8, odd_rates[i]),
						  "%llu B at %llu b/s: %llu ps",
						  (unsigned long long)bytes,
						  (unsigned long long)odd_rates[i],
						  (unsigned long long)t);
			}
		}
	}
	/* more than 2^64 ps: "never" rather than a wrapped short time */
	cr_assert_eq(simtime_tx(1ULL << 40, 1), SIMTIME_NEVER);
	cr_assert_eq(simtime_tx(UINT64_MAX, 1000000000ULL), SIMTIME_NEVER);
}

/*
 * Every PAUSE quanta value at every Ethernet speed: quanta x 512 bit times
 * exactly (a full PAUSE at 100G is 335.5392 us; it used to wrap above
 * 36,028 quanta, to 151 us for 65535).
 */
Test(units, pause_quanta_duration_over_the_whole_range)
{
	cr_assert_eq(pfc_quanta_time(65535, 100000000000ULL), 335539200);
	cr_assert_eq(pfc_quanta_time(65535, 10000000000ULL), 3355392000ULL);
	cr_assert_eq(pfc_quanta_time(65535, 400000000000ULL), 83884800);
	cr_assert_eq(pfc_quanta_time(65535, 1600000000000ULL), 20971200);
	for (size_t i = 0; i < N_ETHERNET_RATES; i++) {
		uint64_t r = ethernet_rates[i], quantum = 512 * SIMTIME_S / r;

		for (uint32_t q = 0; q <= 65535; q++)
			if (pfc_quanta_time(q, r) != q * quantum)
				cr_assert_fail("%u quanta at %llu b/s: %llu ps, expected %llu", q,
					       (unsigned long long)r,
					       (unsigned long long)pfc_quanta_time(q, r),
					       (unsigned long long)(q * quantum));
	}
	/* a rate that does not divide 512e12: rounded up */
	for (uint32_t q = 0; q <= 65535; q += 7)
		cr_assert(
		    is_ceiling(pfc_quanta_time(q, 3000000000ULL), (ck_u128)q * 512, 3000000000ULL));
}

/* Times up to 1 s and cables up to 1000 km read exactly. */
Test(units, long_times_and_cables)
{
	simtime_t t;
	uint64_t mm;

	cr_assert_eq(units_time("1s", &t), 0);
	cr_assert_eq(t, SIMTIME_S);
	cr_assert_eq(units_time("0.999999999999s", &t), 0);
	cr_assert_eq(t, SIMTIME_S - 1);
	cr_assert_eq(units_length("40km", &mm), 0);
	cr_assert_eq(mm * SIMTIME_PS_PER_MM, 200 * SIMTIME_US);
}

/*
 * Times are at most 10^6 s and cables 1000 km: the simulator adds a few
 * of them to the clock (now + a response + a detection time), and those
 * sums must stay within 64 bits of picoseconds.
 */
Test(units, times_and_lengths_have_a_ceiling)
{
	simtime_t t = 7;
	uint64_t mm = 7;

	cr_assert_eq(units_time("1000000s", &t), 0);
	cr_assert_eq(t, UNITS_TIME_MAX);
	cr_assert_eq(UNITS_TIME_MAX, 1000000 * SIMTIME_S);
	cr_assert_eq(units_time("1000000000000000001ps", &t), UNITS_ERANGE);
	cr_assert_eq(units_time("1000001s", &t), UNITS_ERANGE);
	cr_assert_eq(units_time("18446744073709551000ps", &t), UNITS_ERANGE);
	cr_assert_eq(t, UNITS_TIME_MAX, "a refused value leaves the output alone");
	cr_assert(3 * UNITS_TIME_MAX + UNITS_TIME_MAX / 2 < SIMTIME_NEVER / 2);
	cr_assert_eq(units_length("1000km", &mm), 0);
	cr_assert_eq(mm, UNITS_LENGTH_MAX_MM);
	cr_assert_eq(units_length("1000.001km", &mm), UNITS_ERANGE);
	cr_assert_eq(units_length("3689348814741910323m", &mm), UNITS_ERANGE);
	cr_assert_eq(mm, UNITS_LENGTH_MAX_MM);
}
