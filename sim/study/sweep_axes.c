/*
 * sweep axes: one --vary (or one key of a scenario's sweep.vary) turned
 * into the values passed to `rocesim run --set KEY=VALUE`.
 *
 *   KEY=V1,V2,...   the values as written (units kept, enum words too);
 *   KEY=LO..HI:N    N points from LO to HI, both included: log-spaced when
 *                   HI >= 10 x LO > 0, linear otherwise;
 *   KEY=LO..HI:xF   LO, LO x F, LO x F^2, ... up to HI (F > 1).
 *
 * LO and HI are the same kind of value: a size, a rate, a time, a length
 * (whole numbers of bytes, bit/s, ps, mm: generated points are rounded to
 * them and written back in the largest unit that keeps them exact), a
 * percentage, or a bare number (whole when both ends are). Whether the key
 * takes that kind is the scenario loader's to say: sweep.c loads every
 * point before anything runs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/sweep_impl.h"
#include "sim/engine/units.h"

const char *const sweep_family_name[] = {"whole number", "number", "size",	"rate",
					 "time",	 "length", "percentage"};

struct unit {
	const char *name;
	uint64_t scale;
};

/* Largest first; the first that divides a value exactly writes it. */
static const struct unit size_units[] = {{"TB", 1000000000000ULL},
					 {"GB", 1000000000ULL},
					 {"MB", 1000000ULL},
					 {"KB", 1000ULL},
					 {"GiB", 1ULL << 30},
					 {"MiB", 1ULL << 20},
					 {"KiB", 1ULL << 10},
					 {"B", 1},
					 {NULL, 0}};
static const struct unit rate_units[] = {{"Tbps", 1000000000000ULL},
					 {"Gbps", 1000000000ULL},
					 {"Mbps", 1000000ULL},
					 {"Kbps", 1000ULL},
					 {"bps", 1},
					 {NULL, 0}};
static const struct unit time_units[] = {{"s", 1000000000000ULL},
					 {"ms", 1000000000ULL},
					 {"us", 1000000ULL},
					 {"ns", 1000ULL},
					 {"ps", 1},
					 {NULL, 0}};
static const struct unit length_units[] = {
    {"km", 1000000ULL}, {"m", 1000ULL}, {"mm", 1}, {NULL, 0}};

static int fail(struct diag *d, const char *where, int line, const char *key, const char *fmt,
		const char *a, const char *b)
{
	diag_set(d, where, line, key, fmt, a, b);
	return -EINVAL;
}

/* Is @s a bare number? 1 whole (into *@u), 2 real (into *@r), 0 neither. */
static int bare_number(const char *s, uint64_t *u, double *r)
{
	char *end;

	if (!*s || strchr(" \t+-", *s))
		return 0;
	errno = 0;
	*u = strtoull(s, &end, 10);
	if (!*end && !errno)
		return 1;
	*r = strtod(s, &end);
	if (*end || errno || !isfinite(*r))
		return 0;
	return 2;
}

/* What @s is; -EINVAL with @d set when it is none of the kinds a range takes. */
int sweep_value_parse(const char *where, int line, const char *key, const char *s,
		      struct sweep_end *e, struct diag *d)
{
	simtime_t ps;
	int n = bare_number(s, &e->u, &e->r);

	if (n) {
		e->fam = n == 1 ? SWEEP_FAM_INT : SWEEP_FAM_REAL;
		if (n == 1)
			e->r = (double)e->u;
		return 0;
	}
	if (!units_time(s, &ps)) {
		e->fam = SWEEP_FAM_TIME;
		e->u = ps;
	} else if (!units_rate(s, &e->u)) {
		e->fam = SWEEP_FAM_RATE;
	} else if (!units_size(s, &e->u)) {
		e->fam = SWEEP_FAM_SIZE;
	} else if (!units_length(s, &e->u)) {
		e->fam = SWEEP_FAM_LENGTH;
	} else if (strchr(s, '%') && !units_fraction(s, &e->r)) {
		e->fam = SWEEP_FAM_PERCENT;
		return 0;
	} else {
		return fail(d, where, line, key,
			    "\"%s\" is not a number, size, rate, time, length or percentage%s", s,
			    " (a range needs numbers: e.g. 50KB..400KB:8)");
	}
	e->r = (double)e->u;
	return 0;
}

/* @v in the largest unit of @units that writes it exactly. */
static void format_exact(const struct unit *units, uint64_t v, char *buf, size_t size)
{
	const struct unit *u = units;

	/* 0 takes the base unit, the last */
	while (u[1].name && (v == 0 || v % u->scale))
		u++;
	snprintf(buf, size, "%llu%s", (unsigned long long)(v / u->scale), u->name);
}

int sweep_value_format(enum sweep_family fam, uint64_t u, double r, char *buf, size_t size)
{
	switch (fam) {
	case SWEEP_FAM_INT:
		return snprintf(buf, size, "%llu", (unsigned long long)u);
	case SWEEP_FAM_REAL:
		return snprintf(buf, size, "%.10g", r);
	case SWEEP_FAM_PERCENT:
		return snprintf(buf, size, "%.10g%%", r * 100.0);
	case SWEEP_FAM_SIZE:
		format_exact(size_units, u, buf, size);
		break;
	case SWEEP_FAM_RATE:
		format_exact(rate_units, u, buf, size);
		break;
	case SWEEP_FAM_TIME:
		format_exact(time_units, u, buf, size);
		break;
	case SWEEP_FAM_LENGTH:
		format_exact(length_units, u, buf, size);
		break;
	}
	return 0;
}

int sweep_family_integral(enum sweep_family fam)
{
	return fam != SWEEP_FAM_REAL && fam != SWEEP_FAM_PERCENT;
}

static int add_value(struct sweep_axis *ax, const char *v, size_t len)
{
	char **vals = realloc(ax->values, (ax->n + 1) * sizeof(*vals));

	if (!vals)
		return -ENOMEM;
	ax->values = vals;
	if (!(vals[ax->n] = strndup(v, len)))
		return -ENOMEM;
	ax->n++;
	return 0;
}

static int parse_list(const char *where, int line, const char *key, const char *spec,
		      struct sweep_axis *ax, struct diag *d)
{
	for (const char *p = spec;; p++) {
		size_t len = strcspn(p, ",");
		int err;

		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len)
			return fail(d, where, line, key, "an empty value in \"%s\"%s", spec, "");
		if (ax->n == SWEEP_MAX_VALUES)
			return fail(d, where, line, key, "more than %s values%s", "10000", "");
		if ((err = add_value(ax, p, len)))
			return err;
		p += strcspn(p, ",");
		if (!*p)
			return 0;
	}
}

/* The range "LO..HI:N" or "LO..HI:xF" (@dots points at ".."). */
static int parse_range(const char *where, int line, const char *key, const char *spec,
		       const char *dots, struct sweep_axis *ax, struct diag *d)
{
	const char *colon = strrchr(dots, ':');
	char lo_s[64], hi_s[64], buf[64];
	struct sweep_end lo, hi;
	double f = 0, prev = -1;
	unsigned long long n = 0;
	int err, geometric, logspace;
	char *end;

	if (!colon || (size_t)(dots - spec) >= sizeof(lo_s) ||
	    (size_t)(colon - dots - 2) >= sizeof(hi_s))
		return fail(d, where, line, key, "\"%s\" is not a range (LO..HI:N or LO..HI:xF)%s",
			    spec, "");
	snprintf(lo_s, sizeof(lo_s), "%.*s", (int)(dots - spec), spec);
	snprintf(hi_s, sizeof(hi_s), "%.*s", (int)(colon - dots - 2), dots + 2);
	if ((err = sweep_value_parse(where, line, key, lo_s, &lo, d)) ||
	    (err = sweep_value_parse(where, line, key, hi_s, &hi, d)))
		return err;
	if (lo.fam == SWEEP_FAM_INT && hi.fam == SWEEP_FAM_REAL)
		lo.fam = SWEEP_FAM_REAL;
	if (hi.fam == SWEEP_FAM_INT && lo.fam == SWEEP_FAM_REAL)
		hi.fam = SWEEP_FAM_REAL;
	if (lo.fam != hi.fam) {
		diag_set(d, where, line, key,
			 "\"%s\": the two ends are not the same kind (a %s, a %s)", spec,
			 sweep_family_name[lo.fam], sweep_family_name[hi.fam]);
		return -EINVAL;
	}
	geometric = colon[1] == 'x';
	errno = 0;
	if (geometric) {
		f = strtod(colon + 2, &end);
		if (!colon[2] || *end || errno || !(f > 1.0) || !isfinite(f))
			return fail(d, where, line, key,
				    "\"%s\": the factor after :x must be a number above 1%s", spec,
				    "");
		if (!(lo.r > 0))
			return fail(d, where, line, key,
				    "\"%s\": a geometric range needs LO above 0%s", spec, "");
	} else {
		n = strtoull(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || colon[1] == '-' || colon[1] == '+')
			return fail(d, where, line, key,
				    "\"%s\": the count after : must be a whole number%s", spec, "");
		if (n < 2)
			return fail(d, where, line, key,
				    "\"%s\": a range needs at least 2 points%s", spec, "");
		if (n > SWEEP_MAX_VALUES)
			return fail(d, where, line, key, "\"%s\": more than %s values", spec,
				    "10000");
	}
	if (!(lo.r < hi.r))
		return fail(d, where, line, key, "\"%s\" is an empty range (LO must be below HI)%s",
			    spec, "");
	logspace = !geometric && lo.r > 0 && hi.r >= 10 * lo.r;
	for (unsigned long long i = 0;; i++) {
		double v;
		uint64_t u = 0;

		if (geometric) {
			v = lo.r * pow(f, (double)i);
			if (v > hi.r * (1 + 1e-12))
				break;
			if (ax->n == SWEEP_MAX_VALUES)
				return fail(d, where, line, key, "\"%s\": more than %s values",
					    spec, "10000");
		} else {
			if (i == n)
				break;
			if (logspace)
				v = lo.r * pow(hi.r / lo.r, (double)i / (double)(n - 1));
			else
				v = lo.r + (hi.r - lo.r) * (double)i / (double)(n - 1);
		}
		if (i == 0)
			v = lo.r, u = lo.u;
		else if (!geometric && i == n - 1)
			v = hi.r, u = hi.u;
		else if (sweep_family_integral(lo.fam))
			u = (uint64_t)llround(v), v = (double)u;
		if (sweep_family_integral(lo.fam) && i > 0 && v == prev)
			return fail(d, where, line, key,
				    "\"%s\" gives the same value twice once rounded to whole %ss: "
				    "ask for fewer points",
				    spec,
				    lo.fam == SWEEP_FAM_INT ? "number" : sweep_family_name[lo.fam]);
		prev = v;
		sweep_value_format(lo.fam, u, v, buf, sizeof(buf));
		if ((err = add_value(ax, buf, strlen(buf))))
			return err;
	}
	return 0;
}

int sweep_axis_values(const char *where, int line, const char *key, const char *spec,
		      struct sweep_axis *ax, struct diag *d)
{
	const char *dots = strstr(spec, "..");
	int err;

	memset(ax, 0, sizeof(*ax));
	if (!*key || strchr(key, '=') || strchr(key, ' '))
		err = fail(d, where, line, key, "\"%s\" is not a scenario key%s", key, "");
	else if (!strcmp(key, "seed"))
		err = fail(d, where, line, key, "vary the seed with --seeds or --seed-list%s%s", "",
			   "");
	else if (!(ax->key = strdup(key)))
		err = -ENOMEM;
	else if (!*spec)
		err = fail(d, where, line, key, "no values%s%s", "", "");
	else if (dots && !strchr(spec, ','))
		err = parse_range(where, line, key, spec, dots, ax, d);
	else
		err = parse_list(where, line, key, spec, ax, d);
	if (err)
		sweep_axis_free(ax);
	return err;
}

int sweep_axis_parse(const char *where, int line, const char *arg, struct sweep_axis *ax,
		     struct diag *d)
{
	const char *eq = strchr(arg, '=');
	char key[160];

	memset(ax, 0, sizeof(*ax));
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(key)) {
		diag_set(d, where, line, "", "\"%s\" is not KEY=VALUES", arg);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
	return sweep_axis_values(where, line, key, eq + 1, ax, d);
}

void sweep_axis_free(struct sweep_axis *ax)
{
	for (size_t i = 0; i < ax->n; i++)
		free(ax->values[i]);
	free(ax->values);
	free(ax->key);
	memset(ax, 0, sizeof(*ax));
}
