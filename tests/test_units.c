/* Units: sizes, rates, times, lengths and fractions, valid and invalid. */
#include <criterion/criterion.h>

#include "sim/units.h"

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
