/*
 * What faults cost, in results.json: the retransmission timeouts a run
 * waited for, and the packets lost on the wire of a failed link (the drops
 * no switch counts). Each is left out when nothing happened, so that
 * other runs' results are unchanged.
 */
#include "sim/run/results.h"

#include <errno.h>
#include <math.h>

#include "models/link.h"
#include "models/nic.h"
#include "sim/engine/textsafe.h"
#include "sim/run/sim.h"

static json_t *real3(double v)
{
	return json_real((double)llround(v * 1000.0) / 1000.0);
}

static json_t *uint_j(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/*
 * Where retransmission timeouts cost time: the QP that waited longest for
 * its RC timeouts (each one a whole timeout of no progress, 4.096 us x
 * 2^nic.transport.timeout; NCCL_IB_TIMEOUT's default of 20 is 4.29 s), as
 * @summary's "rc_timeouts"; left out when no timeout fired, so that other
 * runs' results are unchanged. 0 or -ENOMEM.
 */
int res_add_rc_timeouts(json_t *summary, const struct sim *sim)
{
	const struct net *n = sim->net;
	const struct topo *t = sim->topo;
	const struct flow *worst = NULL;
	uint64_t fired = 0, failed = 0;
	json_t *o;

	for (uint32_t h = 0; h < t->n_hosts; h++) {
		fired += nic_counters(n->nics[h])->local_ack_timeout_err;
		failed += nic_counters(n->nics[h])->qp_errors;
	}
	for (uint32_t i = 0; fired && i < n->n_flows; i++)
		if (n->flows[i].rto_waited > (worst ? worst->rto_waited : 0))
			worst = &n->flows[i];
	if (!worst)
		return 0;
	o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "timeouts", uint_j(fired), "qp_errors",
		      uint_j(failed), "timeout_us", real3(simtime_to_us(sim->scn->nic.timeout)),
		      "qp_src", txt_json(t->nodes[t->hosts[worst->src]].name), "qp_dst",
		      txt_json(t->nodes[t->hosts[worst->dst]].name), "qp_timeouts",
		      uint_j(worst->rto_fired), "qp_waited_us",
		      real3(simtime_to_us(worst->rto_waited)), "qp_failed", worst->qp_error);
	return json_object_set_new(summary, "rc_timeouts", o) ? -ENOMEM : 0;
}

/*
 * The packets each port lost on its wire when its link failed (data, ACKs,
 * CNPs: PAUSE frames are no flow's and not counted), as "wire_losses":
 * [{port, link, packets, bytes}], so that summary.drops is the switches'
 * drops plus these. 0 or -ENOMEM.
 */
int res_add_wire_losses(json_t *root, const struct sim *sim)
{
	const struct topo *t = sim->topo;
	json_t *a = NULL;

	for (uint32_t i = 0; i < t->n_ports; i++) {
		const struct port *p = &sim->net->ports[i];
		json_t *o;

		if (!p->lost_packets)
			continue;
		if (!a && !(a = json_array()))
			return -ENOMEM;
		o = json_pack("{s:o,s:o,s:o,s:o}", "port", txt_json(t->ports[i].name), "link",
			      txt_json(t->links[t->ports[i].link].name), "packets",
			      uint_j(p->lost_packets), "bytes", uint_j(p->lost_bytes));
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return -ENOMEM;
		}
	}
	return a && json_object_set_new(root, "wire_losses", a) ? -ENOMEM : 0;
}
