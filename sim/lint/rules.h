/*
 * The check rules (sim/lint): what a check is asked, and the rules each
 * file holds, each adding its findings (findings.h) to a check. lint.c
 * runs them all on a scenario.
 */
#ifndef ROCESIM_LINT_RULES_H
#define ROCESIM_LINT_RULES_H

#include "sim/config/scenario.h"
#include "sim/lint/findings.h"
#include "topologies/topo.h"

#define CHK_MAX_CYCLES 10 /* cycles listed per priority unless asked for more */

/* What a check is asked: the scenario and its changes, the links down, the
 * pairs and cycles analysed. */
struct chk_args {
	const char *scenario;
	const char **sets, **fails, **withs;
	size_t n_sets, n_fails, n_withs;
	int all_pairs;
	uint32_t max_cycles;
};

/* check_config.c */
void chk_thresholds(struct chk *c, const struct scenario *s);
void chk_configs(struct chk *c, const struct scenario *s, const struct topo *t);

/* check_nccl.c: the jobs' NCCL_IB_HCA against the servers' NICs */
void chk_nccl(struct chk *c, const struct scenario *s, const struct topo *t);
/* check_buffer.c: the buffer's size, headroom and shared pool against XOFF */
void chk_buffer(struct chk *c, const struct scenario *s, const struct topo *t);

/* check_sonic.c: switch.sonic port by port */
void chk_sonic(struct chk *c, const struct scenario *s, const struct topo *t);
/*
 * switches.c: the checks of the configuration (chk_thresholds, chk_configs) for every
 * switch: with a config_db.json per switch (switch.sonic a folder or a
 * mapping), once per config on its switches, each finding said once and
 * prefixed with the switches it concerns unless it concerns them all.
 */
void chk_switches(struct chk *c, const struct scenario *s, const struct topo *t);

/* check_nic.c: the NIC's classes, and what nic.mlnx_qos gives that is not modelled */
void chk_nic(struct chk *c, const struct scenario *s);

/* check_fabric.c */
int chk_deadlock(struct chk *c, const struct scenario *s, const struct topo *t,
		 const struct topo_routes *r, const struct chk_args *a);
int chk_reach(struct chk *c, const struct scenario *s, const struct topo *t,
	      const struct topo_routes *r, const struct chk_args *a);
/* --fail NAME: a link, or a node (all its links), down. */
int chk_fail_link(struct chk *c, struct topo *t, const char *name, struct diag *why);

#endif
