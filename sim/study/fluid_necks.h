/*
 * The DCQCN fluid model (models/fluid.h) on a scenario's bottlenecks, as
 * `rocesim fluid` and `sweep`/`tune --model fluid` use it: the flows the
 * model takes, the switch egress ports where they meet (a bottleneck),
 * each bottleneck's model constants from the scenario, its solution and
 * its verdict. Prints nothing.
 */
#ifndef ROCESIM_FLUID_NECKS_H
#define ROCESIM_FLUID_NECKS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "models/fluid.h"
#include "models/workload.h"
#include "sim/config/scenario.h"
#include "sim/engine/simtime.h"
#include "topologies/topo.h"

/* One bottleneck: its name, the model's parameters and what it gives. */
struct fluid_neck {
	char port[2 * TOPO_NAME_MAX + 8];
	uint32_t *flow_ids; /* the workload's flows that cross it */
	uint32_t n_ids;
	struct fluid_params fp;
	double frame; /* bytes per model packet (queue accounting) */
	double rate_bps;
	struct fluid_point fixed;
	int has_fixed;
	struct fluid_run run;
	enum fluid_verdict verdict;
	unsigned why; /* an unsure verdict's reasons: FLUID_THIN_* */
};

/*
 * The flows the model takes from @s into @wl (free wl->flows): the flow
 * workloads' flows, then each collective's edges between servers, each of
 * its QPs a flow, all at once. 0, or -ENOMEM.
 */
int fluid_neck_flows(const struct scenario *s, struct wl_params *wl);
/*
 * The bottlenecks of the flows @wl on @t into *@out (*@n of them, in port
 * order; fluid_neck_free them): the switch egress ports two flows or more
 * cross whose flows can bring more than the port's rate, each with the
 * model's constants from @s (@step: the shortest feedback delay). 0, or
 * -ENOMEM.
 */
int fluid_neck_find(const struct scenario *s, const struct topo *t, const struct wl_params *wl,
		    simtime_t step, struct fluid_neck **out, size_t *n);
/* Solve @k: its fixed point, the trajectory over @duration in steps of
 * @step, and the verdict. 0, or a negative errno (-ENOMEM; another when
 * the model cannot be integrated). */
int fluid_neck_solve(struct fluid_neck *k, simtime_t duration, simtime_t step);
void fluid_neck_free(struct fluid_neck *k, size_t n);
/* Do the flows fill the port over the settled part (within 1%)? */
int fluid_neck_filling(const struct fluid_neck *k);
/* Why @k's verdict is unsure, for people, into @buf. */
void fluid_neck_unsure_why(const struct fluid_neck *k, char *buf, size_t size);
/* @k solved, as `rocesim fluid --json` lists it (a new reference). */
json_t *fluid_neck_json(const struct fluid_neck *k);
/* The worst verdict of the @n bottlenecks @k: oscillates at one, else
 * unsure at one, else settling at one, else converges. */
enum fluid_verdict fluid_neck_worst(const struct fluid_neck *k, size_t n);

#endif
