/*
 * The fabric: every switch, NIC and port of one simulation, built from a
 * topology and the models' parameters (struct net_params), plus the totals
 * that the invariants and results read. It joins the models: it fills in
 * the callback tables through which they report upwards (sw_ops, nic_ops)
 * and hands each the shared model context (mctx.h), so that no model
 * needs this header. sim/ builds it, runs the event loop and reads the
 * counters; it does not reach into a model's internals.
 */
#ifndef ROCESIM_NET_H
#define ROCESIM_NET_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "sim/engine/evq.h"
#include "topologies/topo.h"
#include "models/collective.h"
#include "models/dcqcn.h"
#include "models/deadlock.h"
#include "models/link.h"
#include "models/mctx.h"
#include "models/nic.h"
#include "models/nvlink.h"
#include "models/packet.h"
#include "models/switch.h"
#include "models/train.h"
#include "models/workload.h"

struct sw;
struct nic;

enum net_fault_kind {
	NET_FAULT_LINK_DOWN,
	NET_FAULT_PFC_STORM,
	NET_FAULT_LINK_UP,
	NET_FAULT_LINK_RATE
};

/*
 * Something that goes wrong (or is mended) at a time of the run. A link
 * goes down or up at once and the routes follow after the convergence; a
 * link down at 0 was never up. link_rate renegotiates the link's speed.
 */
struct net_fault {
	enum net_fault_kind kind;
	uint32_t link;	    /* link_down, link_up, link_rate: index in topo.links */
	uint64_t rate_bps;  /* link_rate: the new speed */
	uint32_t port;	    /* pfc_storm: index in topo.ports of the sender */
	uint8_t priorities; /* pfc_storm: bit mask of the paused priorities */
	simtime_t at;
	simtime_t duration; /* pfc_storm: 0 = without end */
};

/*
 * Everything the fabric is built from besides the topology. The arrays
 * (flows, collectives, faults) are borrowed: they must outlive the net.
 */
struct net_params {
	uint64_t seed; /* the scenario's: ECMP hashes, each switch's ECN stream */
	struct sw_params sw;
	/* per topology node, that switch's own settings (NULL, or a NULL entry: sw); borrowed */
	const struct sw_params *const *sw_node;
	struct nic_params nic;
	struct wl_params wl;
	const struct coll_spec *colls;
	uint32_t n_colls;
	const struct train_plan *jobs; /* training jobs (train.h), after the collectives */
	uint32_t n_jobs;
	const struct net_fault *faults;
	uint32_t n_faults;
	simtime_t convergence; /* routes follow a link failure after this */
	struct deadlock_params deadlock;
	struct nvlink_params nvlink; /* the servers' GPUs (topology.nvlink) */
};

struct net {
	struct mctx ctx;     /* what the models share: queue, RNG, pool, totals, error */
	struct net_params p; /* a copy: the models point into it */
	struct topo *topo;
	struct topo_routes *routes;

	struct port *ports;   /* one per topo port */
	struct sw **switches; /* per node, NULL for hosts */
	struct nic **nics;    /* per host index */

	struct flow *flows; /* workload flows first, then collective QPs, then the jobs' */
	uint32_t n_flows, flows_done;
	simtime_t last_done; /* when a flow or collective last completed */
	uint32_t n_wl_flows; /* the workload flows among them */
	struct coll **colls;
	uint32_t n_colls, colls_done; /* split fabric: done, this part's ranks */
	uint32_t **rank_parts;	      /* split fabric: per collective, its ranks' parts */
	struct train **jobs;
	uint32_t n_jobs, jobs_done;
	struct nvlink *nvlink;	   /* NULL unless a server has several GPUs */
	struct deadlock *deadlock; /* the detector, or NULL */
	struct storm *storms;
};

/* Build the fabric of @p on @t (routes built here); flows start on time.
 * -EINVAL (with @d) when a switch's reserved headroom exceeds its buffer. */
int net_build(const struct net_params *p, struct topo *t, struct evq *q, struct net **out,
	      struct diag *d);
void net_free(struct net *n);
/*
 * Run only part @me of the fabric, @node_part giving each topology node's
 * part: ports whose peer is elsewhere hand what they send to @hooks, each
 * flow runs the ends that are here, and what starts elsewhere (flows,
 * storms) is not started here, and each collective starts only its ranks
 * that run here (a rank with its server's first NIC). 0 or -ENOMEM.
 */
int net_split(struct net *n, const uint32_t *node_part, uint32_t me, const struct mctx_part *hooks);
/* Payload bytes in queues, being serialized, or on wires right now. */
uint64_t net_inflight_bytes(const struct net *n);
/*
 * At the end of a run whose last event stood at (@t, @key) in the queue's
 * order ((@t, UINT64_MAX): every event up to @t ran), count the ends of
 * the packets lazy ports finished before it (port_settle). Returns the
 * last such end, 0 if none: the time the run's last tx_done would have had.
 */
simtime_t net_settle(struct net *n, simtime_t t, uint64_t key);
int net_done(const struct net *n);

#endif
