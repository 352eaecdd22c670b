/*
 * The checks of `rocesim check` that explain where PFC will come from on a
 * switch's buffer: the buffer size taken when the scenario gives none
 * (BUFFER_DEFAULT), the headroom its lossless priority groups reserve
 * against it (HEADROOM_RESERVED), headroom beyond what each port's cable
 * needs (HEADROOM_EXCESS, with the formula of HEADROOM_SHORT), and a
 * static XOFF that the shared pool cannot give every lossless group at
 * once (XOFF_ABOVE_POOL: the pool runs out first, and PFC comes from that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/link.h"
#include "models/switch.h"
#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "sim/config/scenario.h"

/* One switch's buffer as the model plans it (sw_buffer_plan). */
struct chk_plan {
	uint32_t node;
	uint32_t pgs;	   /* lossless ingress priority groups, over its ports */
	uint64_t headroom; /* reserved for them in all */
	uint64_t shared;   /* what is left to share */
	/* headroom beyond the need of its port's cable: the largest, and in all */
	uint64_t excess_max, excess_sum, need_at_max, have_at_max;
	uint32_t port_at_max, ports_over;
};

/* The need of a lossless PG on link @l (chk_headroom's formula). */
static uint64_t chk_need(const struct scenario *s, const struct topo_link *l)
{
	return pfc_headroom_need(
	    l->rate_bps, l->delay,
	    s->sw.pfc.response ? s->sw.pfc.response : pfc_response_delay(l->rate_bps), s->nic.mtu);
}

/* Whether the switch's headroom is given (the scenario or a config), not computed per link. */
static int chk_headroom_given(const struct scenario *s)
{
	return s->sw.pfc.headroom != 0;
}

/* Plan switch @u; 0, or -1 when run would refuse it (chk_headroom_buffer says so). */
static int chk_plan_switch(const struct scenario *s, const struct topo *t, uint32_t u,
			   struct chk_plan *pl)
{
	const struct topo_node *tn = &t->nodes[u];
	struct diag d = {0};

	memset(pl, 0, sizeof(*pl));
	pl->node = u;
	if (sw_buffer_plan(&s->sw, s->nic.mtu, t, u, &pl->shared, &d))
		return -1;
	for (uint32_t i = 0; i < tn->n_ports; i++) {
		const struct topo_link *l = &t->links[t->ports[tn->first_port + i].link];
		const struct sw_port_params *own =
		    s->sw.port_params && i < s->sw.n_port_params ? &s->sw.port_params[i] : NULL;
		uint8_t lossless = own ? (own->pfc.enabled ? own->lossless : 0)
				       : (s->sw.pfc.enabled ? s->sw.lossless : 0);
		unsigned n = (unsigned)__builtin_popcount(lossless);
		uint64_t h = sw_local_headroom(&s->sw, i, s->nic.mtu, l), need;

		if (!n)
			continue;
		pl->pgs += n;
		if (!s->sw.headroom_pool)
			pl->headroom += n * h;
		need = chk_need(s, l);
		if (s->sw.headroom_pool || !chk_headroom_given(s) || h <= need)
			continue;
		pl->ports_over++;
		pl->excess_sum += n * (h - need);
		if (h - need > pl->excess_max) {
			pl->excess_max = h - need;
			pl->need_at_max = need;
			pl->have_at_max = h;
			pl->port_at_max = tn->first_port + i;
		}
	}
	return 0;
}

/* "sw0", "leaf0, leaf1 and 2 more": the switches of @pl alike to @pl[0] */
static void chk_names(const struct topo *t, const uint32_t *nodes, uint32_t n, char *buf,
		      size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n && i < 3 && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "",
				       t->nodes[nodes[i]].name);
	if (n > 3 && at < size)
		snprintf(buf + at, size - at, " and %u more", n - 3);
}

static void chk_buffer_default(struct chk *c, const struct scenario *s)
{
	char o[300];

	if (strcmp(chk_origin(s, "switch.buffer.size", o, sizeof(o)), "(default)"))
		return;
	chk_add(c, CHK_INFO, "BUFFER_DEFAULT",
		chk_str("switch.buffer.size %llu B (default)", (unsigned long long)s->sw.buffer),
		"no buffer size is given (the scenario, --set or a SONiC BUFFER_POOL): each "
		"switch has %.1f MB, shared by every port; headroom, XOFF and ECN thresholds "
		"are measured against it, so give the switch's own (switch.buffer.size)",
		(double)s->sw.buffer / 1e6);
	chk_loc_key(c, s, "switch.buffer.size");
}

/*
 * The plans of the switches these checks look at, grouped: switches whose
 * numbers agree are said once. Each finding names its first switch.
 */
void chk_buffer(struct chk *c, const struct scenario *s, const struct topo *t)
{
	struct chk_plan *pl = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*pl));
	uint32_t *alike = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*alike));
	uint8_t *said = calloc(t->n_nodes ? t->n_nodes : 1, 1);
	uint32_t n = 0;
	char o1[300], o2[300], names[200];

	if (!pl || !alike || !said) {
		c->oom = 1;
		goto out;
	}
	chk_buffer_default(c, s);
	if (!s->sw.pfc.enabled || !s->sw.lossless)
		goto out;
	for (uint32_t u = 0; u < t->n_nodes; u++)
		if (t->nodes[u].kind == TOPO_SWITCH && (!c->node_in || c->node_in[u]) &&
		    !chk_plan_switch(s, t, u, &pl[n]) && pl[n].pgs)
			n++;
	for (uint32_t i = 0; i < n; i++) {
		const struct chk_plan *p = &pl[i];
		const struct topo_link *l;
		uint32_t k = 0, fit;

		if (said[i])
			continue;
		for (uint32_t j = i; j < n; j++) {
			if (said[j] || pl[j].pgs != p->pgs || pl[j].headroom != p->headroom ||
			    pl[j].shared != p->shared || pl[j].excess_max != p->excess_max)
				continue;
			said[j] = 1;
			alike[k++] = pl[j].node;
		}
		/* with a config per switch, chk_switches names the switches itself */
		names[0] = '\0';
		if (!c->node_in)
			chk_names(t, alike, k, names, sizeof(names) - 2);
		if (names[0])
			strcat(names, ": ");
		if (!s->sw.headroom_pool) {
			chk_add(
			    c, CHK_INFO, "HEADROOM_RESERVED",
			    chk_str("%sswitch.pfc.headroom %s; switch.buffer.size %llu B %s", names,
				    chk_origin(s, "switch.pfc.headroom", o1, sizeof(o1)),
				    (unsigned long long)s->sw.buffer,
				    chk_origin(s, "switch.buffer.size", o2, sizeof(o2))),
			    "%u lossless priority groups reserve %llu B of headroom, %.0f%% of the "
			    "%llu B buffer; %llu B are left to share",
			    p->pgs, (unsigned long long)p->headroom,
			    100.0 * (double)p->headroom / (double)s->sw.buffer,
			    (unsigned long long)s->sw.buffer, (unsigned long long)p->shared);
			chk_loc_key(c, s, "switch.pfc.headroom");
		}
		if (p->ports_over && p->excess_max > p->need_at_max) {
			l = &t->links[t->ports[p->port_at_max].link];
			chk_add(
			    c, CHK_INFO, "HEADROOM_EXCESS",
			    chk_str("%sswitch.pfc.headroom %llu B %s; port %s, link %.0f Gb/s "
				    "%.0f m",
				    names, (unsigned long long)p->have_at_max,
				    chk_origin(s, "switch.pfc.headroom", o1, sizeof(o1)),
				    t->ports[p->port_at_max].name, (double)l->rate_bps / 1e9,
				    (double)l->delay / (double)(1000 * SIMTIME_PS_PER_MM)),
			    "its cable needs %llu B (the formula of HEADROOM_SHORT): %llu B more "
			    "than needed; over the %u ports with more than their cable needs, "
			    "%llu B of the buffer are held back that the shared pool could use",
			    (unsigned long long)p->need_at_max, (unsigned long long)p->excess_max,
			    p->ports_over, (unsigned long long)p->excess_sum);
			chk_loc_key(c, s, "switch.pfc.headroom");
		}
		if (s->sw.pfc.dynamic || !s->sw.pfc.xoff ||
		    (uint64_t)p->pgs * s->sw.pfc.xoff <= p->shared)
			continue;
		fit = (uint32_t)(p->shared / s->sw.pfc.xoff);
		chk_add(c, CHK_WARNING, "XOFF_ABOVE_POOL",
			chk_str("%sswitch.pfc.xoff %llu B %s x %u lossless priority groups", names,
				(unsigned long long)s->sw.pfc.xoff,
				chk_origin(s, "switch.pfc.xoff", o1, sizeof(o1)), p->pgs),
			"%llu B is more than the %llu B shared pool: at most %u groups can reach "
			"XOFF together; when more ports are congested at once (an incast of %u or "
			"more senders) the pool runs out first, and each lossless group that "
			"receives a packet then pauses its sender: PFC comes from the pool "
			"filling, not from XOFF",
			(unsigned long long)p->pgs * s->sw.pfc.xoff, (unsigned long long)p->shared,
			fit, fit + 1);
		chk_loc_key(c, s, "switch.pfc.xoff");
	}
out:
	free(pl);
	free(alike);
	free(said);
}
