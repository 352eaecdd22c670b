/*
 * The checks of the configuration for every switch (chk_switches, rules.h):
 * with a config_db.json per switch (switch.sonic a folder or a mapping),
 * chk_thresholds, chk_configs and chk_sonic run once per config on its
 * switches, and each finding is said once, prefixed with the switches it
 * concerns unless it concerns them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "topologies/topo.h"

/* One run of the checks: on the switches of @node_in, with the settings of @s. */
struct chk_part {
	struct chk c;
	uint8_t *node_in;
	uint32_t n_in;
};

/* "leaf0, leaf1: ", the switches of a finding (at most 4 named). */
static char *chk_switch_names(const struct topo *t, const uint8_t *in)
{
	char buf[256] = "";
	size_t off = 0;
	uint32_t n = 0;

	for (uint32_t u = 0; u < t->n_nodes; u++) {
		if (!in[u])
			continue;
		if (n++ < 4)
			off +=
			    (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0,
					     "%s%s", n > 1 ? ", " : "", t->nodes[u].name);
	}
	if (n > 4)
		return chk_str("%s and %u more: ", buf, n - 4);
	return chk_str("%s: ", buf);
}

static int same_finding(const struct chk_finding *a, const struct chk_finding *b)
{
	return a->severity == b->severity && !strcmp(a->code, b->code) &&
	       !strcmp(a->where, b->where) && !strcmp(a->message, b->message);
}

void chk_switches(struct chk *c, const struct scenario *s, const struct topo *t)
{
	struct chk_part *parts;
	uint32_t n_parts = 1, n_switches = 0;
	uint8_t *in;

	if (!s->n_switches || !s->sw_node) {
		chk_thresholds(c, s);
		chk_configs(c, s, t);
		return;
	}
	/* part 0: the switches no file names, with the scenario's settings; then one per file */
	parts = calloc((size_t)s->n_switches + 1, sizeof(*parts));
	in = calloc(t->n_nodes ? t->n_nodes : 1, 1);
	if (!parts || !in) {
		free(parts);
		free(in);
		c->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < s->n_switches; i++)
		if (s->switches[i].owns)
			n_parts++;
	for (uint32_t k = 0; k < n_parts; k++) {
		parts[k].c.line_rate_bps = c->line_rate_bps;
		if (!(parts[k].node_in = calloc(t->n_nodes ? t->n_nodes : 1, 1)))
			c->oom = 1;
	}
	for (uint32_t u = 0; !c->oom && u < t->n_nodes; u++) {
		uint32_t k = 0;

		if (t->nodes[u].kind != TOPO_SWITCH)
			continue;
		n_switches++;
		for (uint32_t i = 0, part = 1; s->sw_node[u] && i < s->n_switches; i++) {
			if (&s->switches[i].sw == s->sw_node[u]) {
				k = part;
				break;
			}
			part += (uint32_t)s->switches[i].owns;
		}
		parts[k].node_in[u] = 1;
		parts[k].n_in++;
	}
	for (uint32_t k = 0, i = 0; !c->oom && k < n_parts; k++) {
		const struct scenario *ks = s;

		if (k) {
			while (!s->switches[i].owns)
				i++;
			ks = s->switches[i++].cfg;
		}
		parts[k].c.node_in = parts[k].node_in;
		if (parts[k].n_in) {
			chk_thresholds(&parts[k].c, ks);
			chk_configs(&parts[k].c, ks, t);
		}
		c->oom |= parts[k].c.oom;
	}
	/* each finding once, with the switches of the parts that found it */
	for (uint32_t k = 0; !c->oom && k < n_parts; k++) {
		for (size_t f = 0; f < parts[k].c.n; f++) {
			const struct chk_finding *fi = &parts[k].c.f[f];
			uint32_t count = 0;
			int seen = 0;
			char *prefix;

			for (uint32_t j = 0; j < k && !seen; j++)
				for (size_t g = 0; g < parts[j].c.n && !seen; g++)
					seen = same_finding(fi, &parts[j].c.f[g]);
			if (seen)
				continue;
			memset(in, 0, t->n_nodes);
			for (uint32_t j = k; j < n_parts; j++)
				for (size_t g = 0; g < parts[j].c.n; g++)
					if (same_finding(fi, &parts[j].c.f[g])) {
						for (uint32_t u = 0; u < t->n_nodes; u++)
							in[u] |= parts[j].node_in[u];
						break;
					}
			for (uint32_t u = 0; u < t->n_nodes; u++)
				count += in[u];
			prefix = count == n_switches ? chk_str("%s", "") : chk_switch_names(t, in);
			chk_add(c, fi->severity, fi->code,
				prefix ? chk_str("%s%s", prefix, fi->where) : NULL, "%s",
				fi->message);
			if (fi->file || fi->key) /* its location for SARIF and --json */
				chk_loc(c, fi->file, fi->line, fi->key);
			free(prefix);
		}
	}
	for (uint32_t k = 0; k < n_parts; k++) {
		for (size_t f = 0; f < parts[k].c.n; f++) {
			free(parts[k].c.f[f].where);
			free(parts[k].c.f[f].message);
			free(parts[k].c.f[f].file);
			free(parts[k].c.f[f].key);
		}
		free(parts[k].c.f);
		free(parts[k].node_in);
	}
	free(parts);
	free(in);
}
