/*
 * A load's second stage, merge: the values of the real node configs the
 * scenario names written into struct scenario, each with its origin
 * (scenario_configs.c says which field of each format goes where), before
 * the checks see them: switch.sonic (one file, or one per switch:
 * scenario_switches.c), nic.mlnx_qos, nic.cc_params and each workload's
 * pod.
 */
#include <stdio.h>

#include "sim/config/scenario.h"
#include "sim/config/scenario_impl.h"

int scn__merge_configs(struct loader *l, struct scenario *s)
{
	struct raw_top *r = l->raw->top;
	char prefix[32];
	int err;

	if ((err = scn__merge_sonic(l, s)))
		return err;
	if (r->nic && r->nic->mlnx_qos && (err = scn__merge_mlnx_qos(l, s, r->nic->mlnx_qos)))
		return err;
	if ((err = scn__merge_cc_params(l, s)))
		return err;
	if (r->workload && r->workload->pod &&
	    (err = scn__merge_pod(l, s, "workload", r->workload->pod, r->workload->kind)))
		return err;
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if (r->workloads[i].pod &&
		    (err = scn__merge_pod(l, s, prefix, r->workloads[i].pod, r->workloads[i].kind)))
			return err;
	}
	return 0;
}
