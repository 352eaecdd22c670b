/*
 * topology.links: links of their own rate or cable over what the topology
 * kind builds (topology.link for host links, topology.uplink for the
 * others), e.g. one faster uplink or one longer cable:
 *
 *   topology:
 *     links: {leaf0-spine1: {rate: 100Gbps, cable: 50m}, h3-leaf0: {delay: 2us}}
 *
 * An entry takes rate, and cable or delay; a link is named by its ends in
 * either order. Free-form keys (the link names), so read through ydoc, and
 * --set topology.links.leaf0-spine1.cable=50m as well. The names are looked
 * up when the topology is built (topo_build), which refuses one it lacks.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

/* What an entry was given: cable or delay, for "not both". */
struct links_read {
	struct topo_link_set *v;
	uint32_t n;
	unsigned char *given; /* per entry: 1 cable, 2 delay */
};

/* The entry of link @name, added if new; NULL on -ENOMEM. */
static struct topo_link_set *entry_of(struct links_read *r, const char *name, size_t len,
				      unsigned char **given)
{
	struct topo_link_set *v;
	unsigned char *g;
	char *nm, *key;

	for (uint32_t i = 0; i < r->n; i++)
		if (strlen(r->v[i].name) == len && !strncmp(r->v[i].name, name, len)) {
			*given = &r->given[i];
			return &r->v[i];
		}
	if (!(v = realloc(r->v, (r->n + 1) * sizeof(*v))))
		return NULL;
	r->v = v;
	if (!(g = realloc(r->given, r->n + 1)))
		return NULL;
	r->given = g;
	nm = strndup(name, len);
	key = malloc(strlen(LINKS_PFX) + len + 2);
	if (!nm || !key) {
		free(nm);
		free(key);
		return NULL;
	}
	sprintf(key, "%s.%s", LINKS_PFX, nm);
	r->v[r->n] = (struct topo_link_set){.name = nm, .key = key};
	r->given[r->n] = 0;
	*given = &r->given[r->n];
	return &r->v[r->n++];
}

/* One key @key = @value of an entry, at @path. */
static int link_key(const struct loader *l, const char *path, const char *key, const char *value,
		    struct topo_link_set *e, unsigned char *given)
{
	uint64_t mm;
	int err;

	if (!strcmp(key, "rate")) {
		if (units_rate(value, &e->rate_bps))
			return scn__fail(l, path, "\"%s\" is not a rate (e.g. 100Gbps, 400Gb/s)",
					 value);
		if (!e->rate_bps)
			return scn__fail(l, path, "must be more than 0");
		return 0;
	}
	if (strcmp(key, "cable") && strcmp(key, "delay"))
		return scn__fail(l, path, "unknown key (expected one of: rate, cable, delay)");
	*given |= key[0] == 'c' ? 1 : 2;
	if (*given == 3)
		return scn__fail(l, path, "give either cable or delay, not both");
	e->has_delay = 1;
	if (key[0] == 'd')
		return scn__get_time(l, path, value, 0, 0, &e->delay);
	err = units_length(value, &mm);
	if (err == UNITS_ERANGE)
		return scn__fail(l, path, "\"%s\" is out of range (at most 1000km)", value);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a cable length (e.g. 2m, 300m, 2km)",
				 value);
	e->delay = mm * SIMTIME_PS_PER_MM;
	return 0;
}

/* One ydoc entry or --set key @path (@value NULL: a mapping) under topology.links. */
static int read_one(const struct loader *l, struct links_read *r, const char *path,
		    const char *value)
{
	const char *name = path + strlen(LINKS_PFX), *dot;
	struct topo_link_set *e;
	unsigned char *given;

	if (*name == '[' || (!*name && value))
		return scn__fail(l, LINKS_PFX,
				 "expected a mapping of link: {rate, cable} (e.g. {leaf0-spine1: "
				 "{rate: 100Gbps, cable: 50m}})");
	if (!*name)
		return 0;
	name++;
	/* the keys have no dot: what is before the last one is the link's name */
	dot = value ? strrchr(name, '.') : NULL;
	if (value && !dot)
		return scn__fail(l, path, "expected a mapping (e.g. {rate: 100Gbps, cable: 50m})");
	if (!(e = entry_of(r, name, dot ? (size_t)(dot - name) : strlen(name), &given)))
		return -ENOMEM;
	if (!ydoc_find(l->raw->doc, e->key)) {
		/* only --set gives it: errors name that key */
		char *key = strdup(path);

		if (!key)
			return -ENOMEM;
		free((char *)e->key);
		e->key = key;
	}
	return value ? link_key(l, path, dot + 1, value, e, given) : 0;
}

void scn__free_links(struct scenario *s)
{
	for (uint32_t i = 0; s->link_sets && i < s->topo.n_link_sets; i++) {
		free((char *)s->link_sets[i].name);
		free((char *)s->link_sets[i].key);
	}
	free(s->link_sets);
	s->link_sets = NULL;
	s->topo.link_sets = NULL;
	s->topo.n_link_sets = 0;
}

int scn__check_links(const struct loader *l, struct scenario *s, const char *const *sets,
		     size_t n_sets)
{
	struct links_read r = {0};
	char path[512];
	int err = 0;

	for (size_t i = 0; !err && i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);
		char c;

		if (strncmp(e->path, LINKS_PFX, strlen(LINKS_PFX)))
			continue;
		c = e->path[strlen(LINKS_PFX)];
		if (!c || c == '.' || c == '[')
			err = read_one(l, &r, e->path, e->value);
	}
	for (size_t i = 0; !err && i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (!scn__set_is_links(sets[i]) || !eq || (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)(eq - sets[i]), sets[i]);
		err = read_one(l, &r, path, eq + 1);
	}
	scn__free_links(s);
	free(r.given);
	s->link_sets = r.v;
	s->topo.link_sets = r.v;
	s->topo.n_link_sets = r.n;
	return err;
}
