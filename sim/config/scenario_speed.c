/*
 * switch.ecn.by_speed and switch.pfc.by_speed: thresholds per link speed,
 * as SONiC's buffer and WRED profiles are per speed and cable length and
 * as HPCC's configuration scales ECN's kmin/kmax and the dynamic PFC
 * threshold with the port speed:
 *
 *   switch:
 *     ecn: {kmin: 150KB, kmax: 1.2MB,           # ports of any other speed
 *           by_speed: {100Gbps: {kmin: 400KB, kmax: 1600KB, pmax: 20%},
 *                      400Gbps: {kmin: 1600KB, kmax: 6400KB}}}
 *     pfc: {by_speed: {100Gbps: {dynamic_th: -3}, 400Gbps: {dynamic_th: -1}}}
 *
 * ecn entries take kmin, kmax, pmax; pfc entries dynamic_th or xoff, xon or
 * xon_offset, headroom. A port takes its link speed's entry for the keys the
 * entry gives, over the switch's value and over its own SONiC port profile
 * (a key the scenario gives wins, as everywhere else); the keys the entry
 * does not give, and ports of a speed without an entry, keep what they had.
 * Free-form keys (the speeds), so read through ydoc, and --set
 * switch.ecn.by_speed.100Gbps.kmin=300KB as well.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

struct speed_read {
	struct sw_speed *v;
	uint32_t n;
	/* how each entry's speed was written, per section: two spellings of one rate are refused */
	char (*name)[2][32];
};

/* The entry of @rate_bps, added if new; NULL on -ENOMEM. */
static struct sw_speed *entry_of(struct speed_read *r, uint64_t rate_bps, uint32_t *idx)
{
	struct sw_speed *v;
	char(*nm)[2][32];

	for (uint32_t i = 0; i < r->n; i++)
		if (r->v[i].rate_bps == rate_bps) {
			*idx = i;
			return &r->v[i];
		}
	v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->v = v;
	nm = realloc(r->name, (r->n + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	r->name = nm;
	memset(&r->v[r->n], 0, sizeof(r->v[r->n]));
	memset(r->name[r->n], 0, sizeof(r->name[r->n]));
	r->v[r->n].rate_bps = rate_bps;
	*idx = r->n;
	return &r->v[r->n++];
}

static int ecn_key(const struct loader *l, const char *path, const char *key, const char *value,
		   struct sw_speed *e)
{
	int err;

	if (!strcmp(key, "kmin")) {
		err = scn__get_size(l, path, value, 0, 0, &e->ecn.kmin);
		e->ecn_set |= SW_SET_KMIN;
	} else if (!strcmp(key, "kmax")) {
		err = scn__get_size(l, path, value, 0, 1, &e->ecn.kmax);
		e->ecn_set |= SW_SET_KMAX;
	} else if (!strcmp(key, "pmax")) {
		err = units_fraction(value, &e->ecn.pmax);
		if (err || e->ecn.pmax <= 0)
			return scn__fail(
			    l, path, "\"%s\" is not a probability above 0 (e.g. 20%%, 0.2)", value);
		e->ecn_set |= SW_SET_PMAX;
	} else {
		return scn__fail(l, path, "unknown key (expected one of: kmin, kmax, pmax)");
	}
	return err;
}

static int pfc_key(const struct loader *l, const char *path, const char *key, const char *value,
		   struct sw_speed *e)
{
	int err;

	if (!strcmp(key, "dynamic_th")) {
		err = scn__get_int(l, path, value, 0, -7, 7, &e->pfc.dynamic_th);
		e->pfc.dynamic = 1;
		e->pfc_set |= SW_SET_DYNAMIC_TH;
	} else if (!strcmp(key, "xoff")) {
		err = scn__get_size(l, path, value, 0, 1, &e->pfc.xoff);
		e->pfc_set |= SW_SET_XOFF;
	} else if (!strcmp(key, "xon")) {
		err = scn__get_size(l, path, value, 0, 0, &e->pfc.xon);
		e->pfc.has_xon = 1;
		e->pfc_set |= SW_SET_XON;
	} else if (!strcmp(key, "xon_offset")) {
		err = scn__get_size(l, path, value, 0, 0, &e->pfc.xon_offset);
		e->pfc_set |= SW_SET_XON_OFFSET;
	} else if (!strcmp(key, "headroom")) {
		err = scn__get_size(l, path, value, 0, 1, &e->pfc.headroom);
		e->pfc_set |= SW_SET_HEADROOM;
	} else {
		return scn__fail(l, path,
				 "unknown key (expected one of: dynamic_th, xoff, xon, xon_offset, "
				 "headroom)");
	}
	if (!err && (e->pfc_set & SW_SET_DYNAMIC_TH) && (e->pfc_set & SW_SET_XOFF))
		return scn__fail(l, path, "give either xoff (static) or dynamic_th, not both");
	if (!err && (e->pfc_set & SW_SET_XON) && (e->pfc_set & SW_SET_XON_OFFSET))
		return scn__fail(l, path, "give either xon or xon_offset, not both");
	return err;
}

/*
 * One scalar @path = @value under section @pfx (ECN_PFX or PFC_PFX), or the
 * section or a speed itself (@value NULL: a mapping).
 */
static int read_one(const struct loader *l, struct speed_read *r, const char *pfx, const char *path,
		    const char *value)
{
	const int pfc = pfx[7] == 'p';
	const char *speed = path + strlen(pfx) + 1, *dot;
	char name[32];
	uint64_t rate;
	uint32_t i;
	struct sw_speed *e;

	if (!path[strlen(pfx)]) {
		if (value)
			return scn__fail(l, path,
					 "expected a mapping of link speed: thresholds (e.g. "
					 "{100Gbps: {kmin: 400KB}})");
		return 0;
	}
	dot = strrchr(speed, '.');
	/* a speed written with a dot (2.5Gbps) has a key after it, or is the mapping */
	if (!value) {
		if (dot && units_rate(speed, &rate))
			return scn__fail(l, path,
					 "unknown key (expected a key of a speed's entry)");
		dot = NULL;
	} else if (!dot) {
		return scn__fail(l, path, "expected a mapping of thresholds (e.g. {kmin: 400KB})");
	}
	if ((size_t)((dot ? dot : speed + strlen(speed)) - speed) >= sizeof(name))
		return scn__fail(l, path, "is not a rate (e.g. 100Gbps)");
	snprintf(name, sizeof(name), "%.*s", (int)((dot ? dot : speed + strlen(speed)) - speed),
		 speed);
	if (units_rate(name, &rate) || !rate) {
		char p[192];

		snprintf(p, sizeof(p), "%s.%s", pfx, name);
		return scn__fail(l, p, "\"%s\" is not a rate (e.g. 100Gbps, 400Gbps)", name);
	}
	e = entry_of(r, rate, &i);
	if (!e)
		return -ENOMEM;
	if (!r->name[i][pfc][0]) {
		snprintf(r->name[i][pfc], sizeof(r->name[i][pfc]), "%s", name);
	} else if (strcmp(r->name[i][pfc], name)) {
		char p[192];

		snprintf(p, sizeof(p), "%s.%s", pfx, name);
		return scn__fail(l, p, "is the same speed as %s: give it once", r->name[i][pfc]);
	}
	if (!dot)
		return 0;
	return pfc ? pfc_key(l, path, dot + 1, value, e) : ecn_key(l, path, dot + 1, value, e);
}

/* Each entry over the switch's values: their thresholds in order, as check_ecn and check_pfc. */
static int check_entries(const struct loader *l, struct speed_read *r, const struct scenario *s)
{
	char p[192];

	for (uint32_t i = 0; i < r->n; i++) {
		struct sw_speed *e = &r->v[i];
		struct sw_ecn ecn = s->sw.ecn;
		struct sw_pfc pfc = s->sw.pfc;

		if (e->ecn_set) {
			ecn.kmin = e->ecn_set & SW_SET_KMIN ? e->ecn.kmin : ecn.kmin;
			ecn.kmax = e->ecn_set & SW_SET_KMAX ? e->ecn.kmax : ecn.kmax;
			if (ecn.kmin > ecn.kmax) {
				snprintf(p, sizeof(p), "%s.%s.%s", ECN_PFX, r->name[i][0],
					 e->ecn_set & SW_SET_KMIN ? "kmin" : "kmax");
				return scn__fail(
				    l, p, "kmin (%llu B) must not be above kmax (%llu B)",
				    (unsigned long long)ecn.kmin, (unsigned long long)ecn.kmax);
			}
		}
		if (!e->pfc_set)
			continue;
		if (e->pfc_set & SW_SET_XOFF) {
			pfc.dynamic = 0;
			pfc.xoff = e->pfc.xoff;
		} else if (e->pfc_set & SW_SET_DYNAMIC_TH) {
			pfc.dynamic = 1;
		}
		if (e->pfc_set & (SW_SET_XON | SW_SET_XON_OFFSET)) {
			pfc.has_xon = e->pfc.has_xon;
			pfc.xon = e->pfc.xon;
			if (e->pfc_set & SW_SET_XON_OFFSET)
				pfc.xon_offset = e->pfc.xon_offset;
		}
		/* what the entry does not give comes from the switch */
		e->pfc.xon_offset = pfc.xon_offset;
		e->pfc.has_xon = pfc.has_xon;
		e->pfc.xon = pfc.xon;
		if (!(e->pfc_set & (SW_SET_XOFF | SW_SET_DYNAMIC_TH))) {
			e->pfc.dynamic = pfc.dynamic;
			e->pfc.dynamic_th = pfc.dynamic_th;
			e->pfc.xoff = pfc.xoff;
		}
		snprintf(p, sizeof(p), "%s.%s.%s", PFC_PFX, r->name[i][1],
			 e->pfc_set & SW_SET_XOFF ? "xoff" : "xon");
		if (!pfc.dynamic && pfc.xoff > s->sw.buffer)
			return scn__fail(l, p, "is larger than switch.buffer.size");
		if (!pfc.dynamic && pfc.has_xon && pfc.xon >= pfc.xoff)
			return scn__fail(l, p, "xon (%llu B) must be below xoff (%llu B)",
					 (unsigned long long)pfc.xon, (unsigned long long)pfc.xoff);
		if (!pfc.dynamic && !pfc.has_xon && pfc.xon_offset >= pfc.xoff)
			return scn__fail(
			    l, p, "the XON offset (%llu B) must be smaller than xoff (%llu B)",
			    (unsigned long long)pfc.xon_offset, (unsigned long long)pfc.xoff);
		snprintf(p, sizeof(p), "%s.%s.headroom", PFC_PFX, r->name[i][1]);
		if ((e->pfc_set & SW_SET_HEADROOM) && s->sw.per_port &&
		    e->pfc.headroom > s->sw.per_port)
			return scn__fail(l, p, "is larger than switch.buffer.per_port");
	}
	return 0;
}

int scn__check_by_speed(const struct loader *l, struct scenario *s, const char *const *sets,
			size_t n_sets)
{
	struct speed_read r = {0};
	char path[192];
	int err = 0;

	for (size_t i = 0; !err && i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);
		const char *pfx = !strncmp(e->path, ECN_PFX, strlen(ECN_PFX))	? ECN_PFX
				  : !strncmp(e->path, PFC_PFX, strlen(PFC_PFX)) ? PFC_PFX
										: NULL;

		if (pfx && e->path[strlen(pfx)] == '[')
			err = scn__fail(l, pfx,
					"expected a mapping of link speed: thresholds (e.g. "
					"{100Gbps: {kmin: 400KB}})");
		else if (pfx && (e->path[strlen(pfx)] == '.' || !e->path[strlen(pfx)]))
			err = read_one(l, &r, pfx, e->path, e->value);
	}
	for (size_t i = 0; !err && i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (!scn__set_is_by_speed(sets[i]) || !eq || (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)(eq - sets[i]), sets[i]);
		err = read_one(l, &r, sets[i][7] == 'p' ? PFC_PFX : ECN_PFX, path, eq + 1);
	}
	err = err ? err : check_entries(l, &r, s);
	free(r.name);
	free(s->speeds);
	s->speeds = NULL;
	s->sw.by_speed = NULL;
	s->sw.n_by_speed = 0;
	if (err || !r.n) {
		free(r.v);
		return err;
	}
	s->speeds = r.v;
	s->sw.by_speed = r.v;
	s->sw.n_by_speed = r.n;
	return 0;
}
