/*
 * Scenario checks of one value (scenario_check.c takes the sections): whole
 * numbers, sizes, times, links, booleans and lists of priorities, each
 * refusal naming the key, its line and what was expected.
 */
#include "sim/config/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"

/* ---- values: numbers, sizes, times, links ------------------------------------ */

int scn__get_uint(const struct loader *l, const char *path, const char *s, uint64_t def,
		  uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)s[0]) || *end || errno)
		return scn__fail(l, path, "\"%s\" is not a whole number", s);
	if (v < min || v > max)
		return scn__fail(l, path, "%llu is out of range (%llu to %llu)", v,
				 (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int scn__get_u32(const struct loader *l, const char *path, const char *s, uint32_t def,
		 uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v = def;
	int err =
	    scn__get_uint(l, path, s, scn__from_config(l->raw, path) ? *out : def, min, max, &v);

	if (!err)
		*out = (uint32_t)v;
	return err;
}

int scn__get_size(const struct loader *l, const char *path, const char *s, uint64_t def,
		  int positive, uint64_t *out)
{
	int err;

	if (!s && !scn__from_config(l->raw, path)) {
		*out = def;
		return 0;
	}
	err = s ? units_size(s, out) : 0; /* else a real config's, in *@out already */
	if (err == UNITS_EFRACTION)
		return scn__fail(l, path, "\"%s\" is not a whole number of bytes", s);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a size (e.g. 1.2MB, 150KiB, 65536)", s);
	if (positive && !*out)
		return scn__fail(l, path, "must be more than 0");
	return 0;
}

int scn__get_time(const struct loader *l, const char *path, const char *s, simtime_t def,
		  int positive, simtime_t *out)
{
	int err;

	if (!s && !scn__from_config(l->raw, path)) {
		*out = def;
		return 0;
	}
	err = s ? units_time(s, out) : 0; /* else a real config's, in *@out already */
	if (err == UNITS_EFRACTION)
		return scn__fail(l, path, "\"%s\" is finer than a picosecond", s);
	if (err == UNITS_ERANGE)
		return scn__fail(l, path, "\"%s\" is out of range (at most 1000000s)", s);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a time (e.g. 1us, 2.5ms, 100ns)", s);
	if (positive && !*out)
		return scn__fail(l, path, "must be more than 0");
	return 0;
}

int scn__get_link(const struct loader *l, const char *path, const struct raw_link *r,
		  const struct topo_linkspec *def, struct topo_linkspec *out)
{
	char p[160];
	uint64_t mm;
	int err;

	*out = *def;
	if (!r)
		return 0;
	if (r->rate) {
		snprintf(p, sizeof(p), "%s.rate", path);
		err = units_rate(r->rate, &out->rate_bps);
		if (err)
			return scn__fail(l, p, "\"%s\" is not a rate (e.g. 100Gbps, 400Gb/s)",
					 r->rate);
		if (!out->rate_bps)
			return scn__fail(l, p, "must be more than 0");
	}
	if (r->cable && r->delay) {
		snprintf(p, sizeof(p), "%s.delay", path);
		return scn__fail(l, p, "give either cable or delay, not both");
	}
	if (r->cable) {
		snprintf(p, sizeof(p), "%s.cable", path);
		err = units_length(r->cable, &mm);
		if (err == UNITS_ERANGE)
			return scn__fail(l, p, "\"%s\" is out of range (at most 1000km)", r->cable);
		if (err)
			return scn__fail(l, p, "\"%s\" is not a cable length (e.g. 2m, 300m, 2km)",
					 r->cable);
		out->delay = mm * SIMTIME_PS_PER_MM;
	}
	if (r->delay) {
		snprintf(p, sizeof(p), "%s.delay", path);
		return scn__get_time(l, p, r->delay, 0, 0, &out->delay);
	}
	return 0;
}

int scn__get_bool(const struct loader *l, const char *path, const char *s, int def, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", NULL};
	static const char *const no[] = {"false", "no", "off", "0", NULL};

	if (!s && scn__from_config(l->raw, path))
		return 0; /* a real config's, in *@out already */
	*out = def;
	if (!s)
		return 0;
	for (int i = 0; yes[i]; i++) {
		if (!strcmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return scn__fail(l, path, "\"%s\" is not true or false", s);
}

int scn__get_int(const struct loader *l, const char *path, const char *s, int def, int min, int max,
		 int *out)
{
	char *end;
	long v = *out; /* a real config's, unless the scenario gives one */

	if (!s && !scn__from_config(l->raw, path)) {
		*out = def;
		return 0;
	}
	if (s) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || *end || errno)
			return scn__fail(l, path, "\"%s\" is not a whole number", s);
	}
	if (v < min || v > max)
		return scn__fail(l, path, "%ld is out of range (%d to %d)", v, min, max);
	*out = (int)v;
	return 0;
}

/* A list of priorities ("[3, 4]") as a bit mask. */
int scn__get_prio_list(const struct loader *l, const char *path, char **v, unsigned n,
		       uint8_t *mask)
{
	char p[200];

	*mask = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t prio;
		int err;

		snprintf(p, sizeof(p), "%s[%u]", path, i);
		err = scn__get_u32(l, p, v[i], 0, 0, 7, &prio);
		if (err)
			return err;
		*mask |= (uint8_t)(1u << prio);
	}
	return 0;
}

/* A key that the chosen kind does not use is a mistake worth naming. */
int scn__unused(const struct loader *l, const char *path, const char *v, const char *kind)
{
	if (v)
		return scn__fail(l, path, "does not apply to %s", kind);
	return 0;
}
