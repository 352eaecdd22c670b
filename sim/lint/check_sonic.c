/*
 * The checks of `rocesim check` on a SONiC config_db.json port by port:
 * SONiC configures PFC, the lossless PGs' buffer profile and the DSCP map
 * of each port, and a port that differs from the others can break the
 * lossless path or lack headroom while the switch as a whole looks right.
 * Findings name the port (Ethernet8) and the switch ports it stands for
 * (port i of each switch: the i-th port of PORT by number, as
 * scenario_sonic.c maps them); ports with the same fault are one finding.
 * Also: how the config's ports map to the switches' (SONIC_PORTS), the
 * buffer model SONiC would compute headroom with (SONIC_DYNAMIC_BUFFER),
 * lossless PGs with no BUFFER_PG row (SONIC_PG_UNSET), ports whose PFC
 * the config does not give (SONIC_PORT_UNSET), CNPs on a weighted queue
 * (CNP_WEIGHTED) and ports that are down (SONIC_ADMIN_DOWN).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/link.h"
#include "models/switch.h"
#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "sim/config/scenario.h"
#include "sim/readers/sonic.h"

/* The switches one config_db.json configures, and their settings. */
struct chk_sonic {
	const struct sonic_cfg *cfg;
	const struct sw_params *sw;
	const uint32_t *nodes; /* switch nodes */
	uint32_t n_nodes;
};

/* Findings of one kind, ports with the same cause joined. */
struct chk_group {
	char *cause, *message;
	char *ports; /* "Ethernet16 (sw0:h4), Ethernet20 (sw0:h5)" */
	/* where the cause is written, for SARIF and --json: file NULL when not known */
	const char *file;
	int line;
	char *key;
};

struct chk_groups {
	struct chk_group *v;
	size_t n;
	int oom;
};

/*
 * Add port @label to the group of @cause (taking @cause, @message and
 * @key), written at @file:@line under @key (@file NULL: not known).
 */
static void group_add_at(struct chk_groups *g, const char *label, char *cause, char *message,
			 const char *file, int line, char *key)
{
	struct chk_group *v;
	char *ports;

	if (!cause || !message || (file && !key))
		goto oom;
	for (size_t i = 0; i < g->n; i++) {
		if (strcmp(g->v[i].cause, cause))
			continue;
		ports = chk_str("%s, %s", g->v[i].ports, label);
		if (!ports)
			goto oom;
		free(g->v[i].ports);
		g->v[i].ports = ports;
		free(cause);
		free(message);
		free(key);
		return;
	}
	v = realloc(g->v, (g->n + 1) * sizeof(*v));
	ports = chk_str("%s", label);
	if (v)
		g->v = v;
	if (!v || !ports) {
		free(ports);
		goto oom;
	}
	g->v[g->n++] = (struct chk_group){cause, message, ports, file, line, key};
	return;
oom:
	free(cause);
	free(message);
	free(key);
	g->oom = 1;
}

static void group_add(struct chk_groups *g, const char *label, char *cause, char *message)
{
	group_add_at(g, label, cause, message, NULL, 0, NULL);
}

/* One finding per group; the groups are freed. */
static void group_emit(struct chk *c, struct chk_groups *g, enum chk_severity sev, const char *code)
{
	for (size_t i = 0; i < g->n; i++) {
		chk_add(c, sev, code, chk_str("%s; %s", g->v[i].ports, g->v[i].cause), "%s",
			g->v[i].message);
		if (g->v[i].file)
			chk_loc(c, g->v[i].file, g->v[i].line, g->v[i].key);
		free(g->v[i].key);
		free(g->v[i].cause);
		free(g->v[i].message);
		free(g->v[i].ports);
	}
	free(g->v);
	c->oom |= g->oom;
	*g = (struct chk_groups){0};
}

/*
 * The global port of node @node that config port @i stands for, or -1: the
 * i-th, or (kind sonic) the one the topology says it is.
 */
static int64_t port_of(const struct topo *t, uint32_t node, uint32_t i)
{
	const struct topo_node *tn = &t->nodes[node];

	if (!t->port_cfg)
		return i < tn->n_ports ? (int64_t)tn->first_port + i : -1;
	for (uint32_t j = 0; j < tn->n_ports; j++)
		if (t->port_cfg[tn->first_port + j] == i)
			return (int64_t)tn->first_port + j;
	return -1;
}

/* "Ethernet8 (sw0:h2)": the port and the switch ports it is, or "(no switch has port 9)". */
static const char *port_label(const struct topo *t, const struct chk_sonic *u, uint32_t i,
			      char *buf, size_t size)
{
	uint32_t shown = 0;
	size_t off = (size_t)snprintf(buf, size, "%s (", u->cfg->ports[i].name);

	for (uint32_t k = 0; k < u->n_nodes && off < size; k++) {
		int64_t gp = port_of(t, u->nodes[k], i);

		if (gp < 0)
			continue;
		if (shown < 2)
			off += (size_t)snprintf(buf + off, size - off, "%s%s", shown ? ", " : "",
						t->ports[gp].name);
		shown++;
	}
	if (off < size && !shown)
		off += (size_t)snprintf(buf + off, size - off, "%s",
					t->port_cfg ? "no link" : "unused");
	else if (off < size && shown > 2)
		off += (size_t)snprintf(buf + off, size - off, " and %u more", shown - 2);
	if (off < size)
		snprintf(buf + off, size - off, ")");
	return buf;
}

/* Port @i's settings in the switch model: its own, or the switch's. */
static void port_settings(const struct chk_sonic *u, uint32_t i, uint8_t *lossless,
			  const struct sw_pfc **pfc, const uint8_t **map)
{
	const struct sw_params *sw = u->sw;

	if (sw->port_params && i < sw->n_port_params) {
		*lossless = sw->port_params[i].lossless;
		*pfc = &sw->port_params[i].pfc;
		*map = sw->port_params[i].dscp_to_tc;
	} else {
		*lossless = sw->lossless;
		*pfc = &sw->pfc;
		*map = sw->dscp_to_tc;
	}
	if (!sw->pfc.enabled)
		*lossless = 0;
}

/* "file:line KEY" of a config value (the line when known). */
static const char *at(const struct sonic_cfg *cfg, int line, char *buf, size_t size)
{
	if (line > 0)
		snprintf(buf, size, "%s:%d", cfg->file, line);
	else
		snprintf(buf, size, "%s", cfg->file);
	return buf;
}

/*
 * The lossless path on each port that differs from the switch: the data
 * DSCPs through the port's own map to a class the port's own pfc_enable
 * makes lossless, and that class the priority the NIC sends on.
 */
static void chk_port_paths(struct chk *c, const struct scenario *s, const struct topo *t,
			   const struct chk_sonic *u)
{
	const struct sonic_cfg *cfg = u->cfg;
	struct chk_groups lossy = {0}, mism = {0};
	struct scn_dscp *dscps = NULL;
	size_t n_dscps = 0;
	char label[300], a[300], m[32];

	if (scn_data_dscps(s, &dscps, &n_dscps)) {
		c->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < cfg->n_ports && i < u->sw->n_port_params; i++) {
		const struct sonic_port *p = &cfg->ports[i];
		const struct sw_pfc *pfc;
		const uint8_t *map;
		uint8_t lossless;

		port_settings(u, i, &lossless, &pfc, &map);
		port_label(t, u, i, label, sizeof(label));
		for (size_t k = 0; k < n_dscps; k++) {
			uint8_t dscp = dscps[k].dscp, tc = map[dscp], prio = s->nic.dscp2prio[dscp];
			int own_map = memcmp(map, u->sw->dscp_to_tc, 64) != 0;
			const char *mname = p->dscp_map >= 0 ? cfg->maps[p->dscp_map].name : "";
			int mline = p->dscp_map >= 0 ? cfg->maps[p->dscp_map].dscp_line[dscp] : 0;

			if (!u->sw->pfc.enabled)
				break;
			if (!((lossless >> tc) & 1) &&
			    (lossless != (u->sw->pfc.enabled ? u->sw->lossless : 0) || own_map))
				group_add(
				    &lossy, label,
				    lossless != u->sw->lossless
					? chk_str("%s PORT_QOS_MAP|%s|pfc_enable \"%s\"",
						  at(cfg, p->pfc_line, a, sizeof(a)), p->name,
						  chk_prio_list(lossless, ",", "", m, sizeof(m)))
					: chk_str("%s DSCP_TO_TC_MAP|%s|%u -> TC %u",
						  at(cfg, mline, a, sizeof(a)), mname, dscp, tc),
				    chk_str(
					"RDMA traffic (DSCP %u -> TC %u) is lossy on this port: "
					"PFC is enabled on %s of its priorities, while the "
					"switch's other ports keep it lossless; it is "
					"tail-dropped here under congestion and RoCE pays a "
					"retransmission timeout for each loss",
					dscp, tc,
					lossless ? chk_prios(lossless, m, sizeof(m)) : "none"));
			if (own_map && prio != tc)
				group_add(
				    &mism, label,
				    chk_str("%s DSCP_TO_TC_MAP|%s|%u -> TC %u",
					    at(cfg, mline, a, sizeof(a)), mname, dscp, tc),
				    chk_str("the NIC sends DSCP %u on priority %u but this "
					    "port classes it as %u: its PAUSE for priority %u "
					    "does not stop the sender",
					    dscp, prio, tc, tc));
		}
	}
	free(dscps);
	group_emit(c, &lossy, CHK_ERROR, "DSCP_NOT_LOSSLESS");
	group_emit(c, &mism, CHK_ERROR, "PRIORITY_MISMATCH");
}

/* What sets a port's headroom need: its own speed and cable, or a link it stands for. */
struct need {
	uint64_t bytes, rate;
	simtime_t delay;
	int own; /* the config's PORT speed and CABLE_LENGTH */
};

static void need_of(struct need *n, const struct sw_pfc *pfc, uint32_t mtu, uint64_t rate,
		    simtime_t delay, int own)
{
	uint64_t b;

	if (!rate)
		return;
	b = pfc_headroom_need(rate, delay, pfc->response ? pfc->response : pfc_response_delay(rate),
			      mtu);
	if (b > n->bytes)
		*n = (struct need){b, rate, delay, own};
}

/*
 * Each port's headroom against what it needs: for its own speed and cable
 * (PORT speed, CABLE_LENGTH) and for each link of the switch ports it
 * stands for, the larger: the profile on its lowest lossless PG.
 */
static void chk_port_headroom(struct chk *c, const struct scenario *s, const struct topo *t,
			      const struct chk_sonic *u)
{
	const struct sonic_cfg *cfg = u->cfg;
	struct chk_groups short_ = {0}, unset = {0};
	char label[300], a[300], m[32], by[120];

	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		const struct sonic_port *p = &cfg->ports[i];
		const struct sw_pfc *pfc;
		const uint8_t *map;
		struct need need = {0};
		uint8_t lossless;
		uint64_t have;
		char *key = NULL;
		int line = 0;

		port_settings(u, i, &lossless, &pfc, &map);
		if (!lossless)
			continue;
		port_label(t, u, i, label, sizeof(label));
		if (p->lossless_pgs && p->profile < 0 && !p->pg_null && cfg->n_profiles) {
			group_add_at(
			    &unset, label,
			    chk_str("%s PORT_QOS_MAP|%s|pfc_enable \"%s\"",
				    at(cfg, p->pfc_line, a, sizeof(a)), p->name,
				    chk_prio_list(p->pfc_enable, ",", "", m, sizeof(m))),
			    chk_str("PFC is on, but BUFFER_PG binds no profile to the PGs it "
				    "reaches: SONiC gives them no headroom; rocesim gives them "
				    "the switch's"),
			    cfg->file, p->pfc_line, chk_str("PORT_QOS_MAP|%s|pfc_enable", p->name));
			continue;
		}
		if (pfc->headroom == 0 && !pfc->no_headroom)
			continue; /* rocesim computes its headroom */
		if (p->speed_bps && p->has_cable)
			need_of(&need, pfc, s->nic.mtu, p->speed_bps,
				p->cable_mm * SIMTIME_PS_PER_MM, 1);
		for (uint32_t k = 0; k < u->n_nodes; k++) {
			int64_t gp = port_of(t, u->nodes[k], i);
			const struct topo_link *l;

			if (gp < 0)
				continue;
			l = &t->links[t->ports[gp].link];
			need_of(&need, pfc, s->nic.mtu, l->rate_bps, l->delay, 0);
		}
		have = pfc->no_headroom ? 0 : pfc->headroom;
		if (!need.bytes || have >= need.bytes)
			continue;
		if (need.own)
			snprintf(by, sizeof(by), "PORT speed %.0f Gb/s, CABLE_LENGTH %.0f m",
				 (double)need.rate / 1e9,
				 (double)need.delay / (double)(1000 * SIMTIME_PS_PER_MM));
		else
			snprintf(by, sizeof(by), "link %.0f Gb/s %.0f m", (double)need.rate / 1e9,
				 (double)need.delay / (double)(1000 * SIMTIME_PS_PER_MM));
		if (p->profile >= 0) {
			const struct sonic_profile_use *pu = &cfg->profiles[p->profile];

			/* where: the profile's xoff, else the BUFFER_PG row that binds it */
			line = pu->has_xoff ? pu->xoff_line : p->pg_line;
			key = pu->has_xoff ? chk_str("BUFFER_PROFILE|%s|xoff", pu->name)
					   : chk_str("BUFFER_PG|%s|profile", p->pg_row);
		}
		group_add_at(
		    &short_, label,
		    p->profile >= 0
			? chk_str("%s BUFFER_PROFILE|%s|xoff %s%llu B; %s",
				  at(cfg, line, a, sizeof(a)), cfg->profiles[p->profile].name,
				  cfg->profiles[p->profile].has_xoff ? "" : "(none) ",
				  (unsigned long long)have, by)
			: chk_str("switch.pfc.headroom %llu B; %s", (unsigned long long)have, by),
		    have ? chk_str("needs %llu B: 3 frames of MTU %u, the PAUSE, the peer's "
				   "response time and two propagation delays at that speed; after "
				   "XOFF more than the headroom arrives and lossless packets are "
				   "dropped",
				   (unsigned long long)need.bytes, s->nic.mtu)
			 : chk_str("its lossless PG (BUFFER_PG|%s) has a profile without xoff: no "
				   "headroom at all, so every packet in flight after XOFF is "
				   "dropped; it needs %llu B",
				   p->pg_row, (unsigned long long)need.bytes),
		    key ? cfg->file : NULL, line, key);
	}
	group_emit(c, &short_, CHK_ERROR, "HEADROOM_SHORT");
	group_emit(c, &unset, CHK_WARNING, "SONIC_PG_UNSET");
}

/* How the config's ports map to the switches' ports, when their numbers differ. */
static void chk_port_map(struct chk *c, const struct topo *t, const struct chk_sonic *u)
{
	const struct sonic_cfg *cfg = u->cfg;

	/* kind sonic: the topology says which port is which */
	for (uint32_t k = 0; !t->port_cfg && k < u->n_nodes; k++) {
		const struct topo_node *tn = &t->nodes[u->nodes[k]];
		uint32_t same = 0, n = tn->n_ports;
		int first = 1;
		char *where;

		if (n == cfg->n_ports)
			continue;
		/* once per number of ports, naming the first switch that has it */
		for (uint32_t j = 0; j < k; j++)
			first &= t->nodes[u->nodes[j]].n_ports != n;
		if (!first)
			continue;
		for (uint32_t j = k; j < u->n_nodes; j++)
			same += t->nodes[u->nodes[j]].n_ports == n;
		where = chk_str("%s (%u ports%s); %s PORT (%u ports)", tn->name, n,
				same > 1 ? ", and the other switches with as many" : "", cfg->file,
				cfg->n_ports);
		if (n < cfg->n_ports)
			chk_add(c, CHK_INFO, "SONIC_PORTS", where,
				"by the numbers in their names, %s..%s are the switch's ports "
				"%s..%s in topology order; %s..%s are not used",
				cfg->ports[0].name, cfg->ports[n - 1].name,
				t->ports[tn->first_port].name,
				t->ports[tn->first_port + n - 1].name, cfg->ports[n].name,
				cfg->ports[cfg->n_ports - 1].name);
		else
			chk_add(c, CHK_INFO, "SONIC_PORTS", where,
				"by the numbers in their names, %s..%s are the switch's ports "
				"%s..%s in topology order; its ports %s..%s take the settings most "
				"of the config's ports have",
				cfg->ports[0].name, cfg->ports[cfg->n_ports - 1].name,
				t->ports[tn->first_port].name,
				t->ports[tn->first_port + cfg->n_ports - 1].name,
				t->ports[tn->first_port + cfg->n_ports].name,
				t->ports[tn->first_port + n - 1].name);
	}
}

/* The buffer model SONiC computes headroom with, and ports whose PFC it leaves unsaid. */
static void chk_port_model(struct chk *c, const struct chk_sonic *u)
{
	const struct sonic_cfg *cfg = u->cfg;
	uint32_t nulls = 0, unset = 0, first_null = 0;
	char a[300], names[200] = "";

	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		const struct sonic_port *p = &cfg->ports[i];

		if (p->pg_null && !nulls++)
			first_null = i;
		if (cfg->has_pfc_enable && !p->has_pfc_enable && unset++ < 4)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 unset > 1 ? ", " : "", p->name);
	}
	if (nulls || cfg->buffer_model_dynamic)
		chk_add(c, CHK_INFO, "SONIC_DYNAMIC_BUFFER",
			nulls ? chk_str("%s BUFFER_PG|%s profile \"NULL\"",
					at(cfg, cfg->ports[first_null].pg_line, a, sizeof(a)),
					cfg->ports[first_null].pg_row)
			      : chk_str("%s DEVICE_METADATA|localhost|buffer_model dynamic",
					at(cfg, cfg->buffer_model_line, a, sizeof(a))),
			"the dynamic buffer model: SONiC's buffermgrd computes the headroom of "
			"%u port%s lossless PGs from each port's speed, cable and MTU at run "
			"time, and the config does not hold it; rocesim computes it per port "
			"with its own formula (docs/models.md, headroom), which may "
			"differ from the switch's by its gearbox and cell terms",
			nulls, nulls == 1 ? "'s" : "s'");
	if (unset)
		chk_add(
		    c, CHK_INFO, "SONIC_PORT_UNSET",
		    chk_str("%s%s: %s PORT_QOS_MAP", names, unset > 4 ? ", ..." : "", cfg->file),
		    "%u port%s no pfc_enable: rocesim gives %s the switch's (that of most "
		    "ports); SONiC enables no PFC on a port its PORT_QOS_MAP does not name",
		    unset, unset == 1 ? " has" : "s have", unset == 1 ? "it" : "them");
}

/*
 * CNPs on a weighted queue: a port whose CNP class's queue QUEUE gives a
 * WRR or DWRR scheduler serves CNPs in DWRR turns with the data (as the
 * model does, sw_params.cnp_weighted), not first.
 */
static void chk_port_cnp(struct chk *c, const struct scenario *s, const struct topo *t,
			 const struct chk_sonic *u)
{
	const struct sonic_cfg *cfg = u->cfg;
	static const char *const types[] = {"", "STRICT", "WRR", "DWRR"};
	struct chk_groups weighted = {0};
	uint8_t tc = u->sw->cnp_priority;
	char label[300], a[300];

	if (s->nic.cc != NIC_CC_DCQCN)
		return;
	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		const struct sonic_port *p = &cfg->ports[i];
		const struct sw_params *sw = u->sw;
		int own = sw->port_params && i < sw->n_port_params;
		uint8_t q = p->tc_to_queue[tc & 7] & 7;
		uint32_t first = 0, used = 0;

		if (!(own ? sw->port_params[i].sched == SW_SCHED_DWRR &&
				sw->port_params[i].cnp_weighted
			  : sw->sched == SW_SCHED_DWRR && sw->cnp_weighted) ||
		    (p->sched[q] != SONIC_SCHED_WRR && p->sched[q] != SONIC_SCHED_DWRR))
			continue;
		for (uint32_t k = 0; k < u->n_nodes; k++)
			used += port_of(t, u->nodes[k], i) >= 0;
		if (!used)
			continue; /* it stands for no port of the fabric */
		/* ports with the same scheduler are one finding, at the first one's row */
		while (first < i && !(cfg->ports[first].sched[q] == p->sched[q] &&
				      cfg->ports[first].weight[q] == p->weight[q]))
			first++;
		port_label(t, u, i, label, sizeof(label));
		group_add(&weighted, label,
			  chk_str("%s QUEUE|%s|%u|scheduler %s, weight %u",
				  at(cfg, cfg->ports[first].queue_line[q], a, sizeof(a)),
				  cfg->ports[first].name, q, types[p->sched[q]], p->weight[q]),
			  chk_str("CNPs (TC %u, switch.cnp_priority) share a weighted queue: the "
				  "switch serves them in %s turns with the data queues instead "
				  "of first, so under congestion they wait behind data and DCQCN "
				  "slows the senders late; give queue %u a STRICT scheduler",
				  tc, types[p->sched[q]], q));
	}
	group_emit(c, &weighted, CHK_WARNING, "CNP_WEIGHTED");
}

/*
 * Ports PORT gives admin_status down: SONiC keeps them down, and traffic
 * routed over them in the model would be lost on the switch; rocesim
 * carries it, so say which links to fail.
 */
static void chk_port_down(struct chk *c, const struct topo *t, const struct chk_sonic *u)
{
	const struct sonic_cfg *cfg = u->cfg;
	char label[300], a[300], links[200];

	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		const struct sonic_port *p = &cfg->ports[i];
		size_t off = 0;
		uint32_t n = 0;

		if (!p->admin_down)
			continue;
		links[0] = '\0';
		for (uint32_t k = 0; k < u->n_nodes; k++) {
			int64_t gp = port_of(t, u->nodes[k], i);

			if (gp < 0 || n++ >= 2 || off >= sizeof(links))
				continue;
			off +=
			    (size_t)snprintf(links + off, sizeof(links) - off, "%s%s",
					     n > 1 ? ", " : "", t->links[t->ports[gp].link].name);
		}
		if (n > 2 && off < sizeof(links))
			snprintf(links + off, sizeof(links) - off, " and %u more", n - 2);
		port_label(t, u, i, label, sizeof(label));
		chk_add(c, CHK_WARNING, "SONIC_ADMIN_DOWN",
			chk_str("%s; %s PORT|%s|admin_status down", label,
				at(cfg, p->line, a, sizeof(a)), p->name),
			n ? "SONiC keeps this port down, but rocesim carries traffic over it as "
			    "if up; to model it, fail its link from the start: faults: [{kind: "
			    "link_down, link: %s}]"
			  : "SONiC keeps this port down; it stands for no port of the topology%s",
			links);
		chk_loc(c, cfg->file, p->line, "admin_status");
	}
}

/* The switch.sonic of @s on every switch of @t. */
void chk_sonic(struct chk *c, const struct scenario *s, const struct topo *t)
{
	struct sonic_cfg *cfg;
	struct diag d = {0};
	struct chk_sonic u = {.sw = &s->sw};
	uint32_t *nodes;

	if (!s->cfg.sonic)
		return;
	cfg = malloc(sizeof(*cfg));
	nodes = malloc(((size_t)t->n_switches + 1) * sizeof(*nodes));
	if (!cfg || !nodes) {
		c->oom = 1;
		goto out;
	}
	if (sonic_read(s->cfg.sonic, cfg, &d))
		goto out; /* the loader refused it already */
	u.cfg = cfg;
	u.nodes = nodes;
	for (uint32_t v = 0; v < t->n_nodes; v++)
		if (t->nodes[v].kind == TOPO_SWITCH && (!c->node_in || c->node_in[v]))
			nodes[u.n_nodes++] = v;
	chk_port_map(c, t, &u);
	chk_port_model(c, &u);
	chk_port_paths(c, s, t, &u);
	chk_port_headroom(c, s, t, &u);
	chk_port_cnp(c, s, t, &u);
	chk_port_down(c, t, &u);
out:
	free(nodes);
	free(cfg);
}
