/*
 * Units: exact decimal parsing of sizes, rates, times, lengths and
 * fractions (see units.h). A number is read as an integer mantissa and a
 * count of decimal places, then scaled by the unit's integer factor; the
 * result must be a whole number of the base unit.
 */
#include "sim/engine/units.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/checked.h"

struct unit {
	const char *suffix;
	uint64_t factor;
};

static const struct unit size_units[] = {
    {"B", 1},	     {"KB", 1000},	   {"kB", 1000},
    {"MB", 1000000}, {"GB", 1000000000},   {"TB", 1000000000000},
    {"KiB", 1024},   {"MiB", 1024 * 1024}, {"GiB", 1024 * 1024 * 1024},
    {NULL, 0},
};

static const struct unit rate_units[] = {
    {"bps", 1},
    {"b/s", 1},
    {"Kbps", 1000},
    {"kbps", 1000},
    {"Kb/s", 1000},
    {"kb/s", 1000},
    {"Mbps", 1000000},
    {"Mb/s", 1000000},
    {"Gbps", 1000000000},
    {"Gb/s", 1000000000},
    {"Tbps", 1000000000000},
    {"Tb/s", 1000000000000},
    /* bytes per second, as GPU interconnects are quoted (NVLink 450GB/s) */
    {"B/s", 8},
    {"KB/s", 8000},
    {"MB/s", 8000000},
    {"GB/s", 8000000000},
    {"TB/s", 8000000000000},
    {NULL, 0},
};

static const struct unit time_units[] = {
    {"ps", 1},		{"ns", SIMTIME_NS}, {"us", SIMTIME_US}, {"\xc2\xb5s", SIMTIME_US}, /* µs */
    {"ms", SIMTIME_MS}, {"s", SIMTIME_S},   {NULL, 0},
};

static const struct unit length_units[] = {
    {"mm", 1}, {"cm", 10}, {"m", 1000}, {"km", 1000000}, {NULL, 0},
};

/*
 * Read "[digits][.digits]" from @s: mantissa and decimal places. Returns
 * the end, NULL when there is no number, or @s itself on overflow.
 */
static const char *read_decimal(const char *s, uint64_t *mant, unsigned *places)
{
	const char *start = s;

	uint64_t m = 0;
	unsigned p = 0, digits = 0;
	int dot = 0;

	for (;; s++) {
		if (*s == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			break;
		if (m == 0 && *s == '0' && !dot) {
			digits++;
			continue;
		}
		if (__builtin_mul_overflow(m, 10, &m) ||
		    __builtin_add_overflow(m, (uint64_t)(*s - '0'), &m))
			return start;
		digits++;
		if (dot)
			p++;
	}
	if (digits == 0)
		return NULL;
	*mant = m;
	*places = p;
	return s;
}

static uint64_t pow10u(unsigned n)
{
	uint64_t r = 1;

	while (n--)
		r *= 10;
	return r;
}

/*
 * Parse @s as a decimal number followed by one of @units. @bare is the
 * factor for a number with no unit, or 0 when a unit is required.
 */
static int parse(const char *s, const struct unit *units, uint64_t bare, uint64_t *out)
{
	uint64_t mant, factor = 0, v, div;
	unsigned places;
	const char *end;
	size_t len;

	if (!s)
		return UNITS_ESYNTAX;
	while (isspace((unsigned char)*s))
		s++;
	end = read_decimal(s, &mant, &places);
	if (!end)
		return UNITS_ESYNTAX;
	if (end == s || places > 18)
		return UNITS_ERANGE;
	if (*end == ' ')
		end++;
	len = strlen(end);
	while (len && isspace((unsigned char)end[len - 1]))
		len--;
	if (len == 0) {
		if (!bare && mant != 0)
			return UNITS_ENOUNIT;
		factor = bare ? bare : 1;
	} else {
		for (const struct unit *u = units; u->suffix; u++) {
			if (strlen(u->suffix) == len && !strncmp(u->suffix, end, len)) {
				factor = u->factor;
				break;
			}
		}
		if (!factor)
			return UNITS_ESYNTAX;
	}
	/* mantissa x factor may pass 2^64 before the decimal places divide it */
	div = pow10u(places);
	if ((ck_u128)mant * factor % div)
		return UNITS_EFRACTION;
	if (ck_muldiv(mant, factor, div, &v))
		return UNITS_ERANGE;
	*out = v;
	return UNITS_OK;
}

int units_size(const char *s, uint64_t *bytes)
{
	return parse(s, size_units, 1, bytes);
}

int units_rate(const char *s, uint64_t *bps)
{
	return parse(s, rate_units, 0, bps);
}

/* parse() with a ceiling: above @max is UNITS_ERANGE, *@out untouched. */
static int parse_max(const char *s, const struct unit *units, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int err = parse(s, units, 0, &v);

	if (!err && v > max)
		err = UNITS_ERANGE;
	if (!err)
		*out = v;
	return err;
}

int units_time(const char *s, simtime_t *ps)
{
	return parse_max(s, time_units, UNITS_TIME_MAX, ps);
}

int units_length(const char *s, uint64_t *mm)
{
	return parse_max(s, length_units, UNITS_LENGTH_MAX_MM, mm);
}

int units_fraction(const char *s, double *frac)
{
	uint64_t mant;
	unsigned places;
	const char *end;
	double v;
	int percent = 0;

	if (!s)
		return UNITS_ESYNTAX;
	while (isspace((unsigned char)*s))
		s++;
	end = read_decimal(s, &mant, &places);
	if (!end || end == s || places > 18)
		return UNITS_ESYNTAX;
	if (*end == ' ')
		end++;
	if (*end == '%') {
		percent = 1;
		end++;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return UNITS_ESYNTAX;
	v = (double)mant / (double)pow10u(places);
	if (percent)
		v /= 100.0;
	if (v > 1.0)
		return UNITS_ERANGE;
	*frac = v;
	return UNITS_OK;
}

/* @v in the first of @names (each @step times the one before) that keeps it
 * at 1 or more, to three significant digits. */
static const char *show(double v, const char *const *names, size_t n, double step, char *buf,
			size_t size)
{
	size_t i = 0;
	double a = v < 0 ? -v : v;

	while (i + 1 < n && a >= step) {
		v /= step;
		a /= step;
		i++;
	}
	if (a == 0 || a >= 100 || (i == 0 && a == (double)(long long)a))
		snprintf(buf, size, "%.0f %s", v, names[i]);
	else
		snprintf(buf, size, "%.*f %s", a >= 10 ? 1 : 2, v, names[i]);
	return buf;
}

const char *units_show_time(double us, char *buf, size_t size)
{
	static const char *const names[] = {"ns", "us", "ms", "s"};

	if (us != 0 && us < 1 && us > -1)
		return show(us * 1e3, names, 1, 1e3, buf, size);
	return show(us, names + 1, 3, 1e3, buf, size);
}

const char *units_show_size(double bytes, char *buf, size_t size)
{
	static const char *const names[] = {"B", "KB", "MB", "GB", "TB"};

	return show(bytes, names, 5, 1e3, buf, size);
}

const char *units_strerror(int err)
{
	switch (err) {
	case UNITS_OK:
		return "ok";
	case UNITS_ENOUNIT:
		return "needs a unit";
	case UNITS_ERANGE:
		return "is out of range";
	case UNITS_EFRACTION:
		return "is not a whole number of the base unit";
	default:
		return "is not a number with a known unit";
	}
}
