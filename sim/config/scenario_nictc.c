/*
 * nic.tc: the NIC's egress per traffic class, as mlnx_qos sets it
 * (--tsa, --tcbw, --ratelimit), e.g.
 *
 *   nic:
 *     tc: {0: {tsa: ets, bw: 40%}, 3: {tsa: ets, bw: 60%, ratelimit: 150Gbps}}
 *
 * An entry takes tsa (strict, ets or vendor), bw (a whole percent, for ets
 * only) and ratelimit (a rate, or unlimited). Free-form keys (the class
 * numbers), so read through ydoc, and --set nic.tc.3.ratelimit=150Gbps as
 * well. A key given here wins over nic.mlnx_qos's value for it
 * (scenario_configs.c writes those first, with their origins); a class
 * neither describes is strict and unlimited. Priority p is in class p
 * unless nic.mlnx_qos's "priority:" lines say otherwise.
 */
#include "sim/config/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

/* One key @key = @value of class @tc's entry, at @path. */
static int tc_key(const struct loader *l, struct scenario *s, const char *path, unsigned tc,
		  const char *key, const char *value)
{
	struct nic_tc_params *c = &s->nic.tc[tc];
	uint64_t v;

	if (!strcmp(key, "tsa")) {
		if (!strcmp(value, "strict"))
			c->tsa = NIC_TSA_STRICT;
		else if (!strcmp(value, "ets"))
			c->tsa = NIC_TSA_ETS;
		else if (!strcmp(value, "vendor"))
			c->tsa = NIC_TSA_VENDOR;
		else
			return scn__fail(l, path, "\"%s\" is not one of: strict, ets, vendor",
					 value);
		return 0;
	}
	if (!strcmp(key, "bw")) {
		char num[16];
		size_t n = strlen(value);

		if (n && value[n - 1] == '%')
			n--;
		if (!n || n >= sizeof(num))
			return scn__fail(l, path, "\"%s\" is not a percentage (e.g. 60%%)", value);
		memcpy(num, value, n);
		num[n] = '\0';
		if (scn__get_uint(l, path, num, 0, 0, 100, &v))
			return scn__fail(
			    l, path, "\"%s\" is not a whole percentage 0-100 (e.g. 60%%)", value);
		c->bw = (uint8_t)v;
		return 0;
	}
	if (!strcmp(key, "ratelimit")) {
		if (!strcmp(value, "unlimited")) {
			c->ratelimit = 0;
			return 0;
		}
		if (units_rate(value, &v) || !v)
			return scn__fail(
			    l, path,
			    "\"%s\" is neither a rate above 0 (e.g. 150Gbps) nor unlimited", value);
		c->ratelimit = v;
		return 0;
	}
	return scn__fail(l, path, "unknown key (expected one of: tsa, bw, ratelimit)");
}

/* One ydoc entry or --set key @path (@value NULL: a mapping) under nic.tc. */
static int read_one(const struct loader *l, struct scenario *s, const char *path, const char *value)
{
	const char *rest = path + strlen(TC_PFX), *dot;
	char num[8];
	uint64_t tc;
	size_t n;

	if (*rest == '[' || (!*rest && value && *value))
		return scn__fail(
		    l, TC_PFX,
		    "expected a mapping of class: {tsa, bw, ratelimit} (e.g. {3: {tsa: "
		    "ets, bw: 60%%, ratelimit: 150Gbps}})");
	if (!*rest)
		return 0;
	rest++;
	dot = strchr(rest, '.');
	n = dot ? (size_t)(dot - rest) : strlen(rest);
	if (!n || n >= sizeof(num))
		return scn__fail(l, path, "\"%.*s\" is not a traffic class (0 to 7)", (int)n, rest);
	memcpy(num, rest, n);
	num[n] = '\0';
	if (scn__get_uint(l, path, num, 0, 0, 7, &tc))
		return scn__fail(l, path, "\"%s\" is not a traffic class (0 to 7)", num);
	s->nic.tc_on = 1;
	if (!dot)
		return value && *value
			   ? scn__fail(l, path, "expected a mapping (e.g. {tsa: ets, bw: 60%%})")
			   : 0;
	if (!value)
		return scn__fail(l, path, "expected a value, not a mapping");
	return tc_key(l, s, path, (unsigned)tc, dot + 1, value);
}

int scn__check_nic_tc(const struct loader *l, struct scenario *s, const char *const *sets,
		      size_t n_sets)
{
	char path[160];
	int err = 0;

	/* the defaults, where nic.mlnx_qos gave nothing: priority p in class p,
	 * a class strict and unlimited */
	for (int p = 0; p < 8; p++) {
		snprintf(path, sizeof(path), "nic.prio_tc.%d", p);
		if (!scn__from_config(l->raw, path))
			s->nic.prio_tc[p] = (uint8_t)p;
	}
	for (size_t i = 0; !err && i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);
		char c;

		if (strncmp(e->path, TC_PFX, strlen(TC_PFX)))
			continue;
		c = e->path[strlen(TC_PFX)];
		if (!c || c == '.' || c == '[')
			err = read_one(l, s, e->path, e->value);
	}
	for (size_t i = 0; !err && i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (!scn__set_is_nic_tc(sets[i]) || !eq || (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)(eq - sets[i]), sets[i]);
		err = read_one(l, s, path, eq + 1);
	}
	for (int tc = 0; !err && tc < 8; tc++) {
		const struct nic_tc_params *c = &s->nic.tc[tc];

		snprintf(path, sizeof(path), TC_PFX ".%d.bw", tc);
		/* mlnx_qos --tcbw: "values set to TCs that are not configured to ETS
		 * algorithm must be zero" */
		if (c->bw && c->tsa != NIC_TSA_ETS && scn__explicit(l, path))
			err = scn__fail(l, path, "a share applies to tsa: ets only");
	}
	return err;
}
