/*
 * Switch: a shared-buffer ASIC as SONiC configures it.
 *
 * Ingress: the packet's DSCP picks its traffic class (TC = priority group
 * = egress queue, identity maps). Every packet is charged to its ingress
 * (port, PG) and released when its last bit leaves. A lossless PG holds a
 * reserved minimum, then shared buffer up to its XOFF limit (static, or
 * dynamic: 2^dynamic_th x free shared buffer); the packet that would cross
 * the limit and every later one go to the PG's headroom and a PAUSE goes
 * upstream, refreshed while the PG stays congested; when the headroom is
 * empty again and the PG's shared bytes fall to XON, a RESUME goes out. A
 * packet that finds the headroom full is dropped: a lossless drop. Lossy
 * traffic uses the shared pool and is tail-dropped when it is full.
 *
 * Egress: shortest-path routing with ECMP by flow hash; a FIFO per queue;
 * RED/ECN marking of ECN-capable packets on the egress queue depth (at
 * dequeue, or at enqueue); strict priority or DWRR between queues, the CNP
 * priority strict unless its queue takes DWRR turns with the others
 * (cnp_weighted); a queue paused by PFC is skipped.
 *
 * PFC watchdog (SONiC PFC_WD): a lossless queue paused without pause for
 * `detection` is declared stormed; drop flushes it and drops what arrives
 * for it or on its PG, forward ignores further PAUSE, alert only counts;
 * after `restoration` without a PFC frame the queue is restored.
 *
 * What a switch and each of its ports are configured with: switch_config.h
 * (included here).
 */
#ifndef ROCESIM_SWITCH_H
#define ROCESIM_SWITCH_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "sim/engine/simtime.h"
#include "models/switch_config.h"

struct diag;
struct mctx;
struct port;
struct sw;
struct topo;
struct topo_routes;

struct sw_counters {
	uint64_t shared_size;		   /* shared pool after reservations */
	uint64_t shared_used, shared_peak; /* frame bytes */
	uint64_t headroom_used, headroom_peak;
	uint64_t drops, drop_bytes, lossless_drops;
	uint64_t unroutable;
	uint64_t watchdog_triggers, watchdog_drops;
};

/* One ingress priority group: occupancy now and its peaks. */
struct sw_pg_stats {
	uint64_t bytes;	   /* min + shared + headroom now */
	uint64_t headroom; /* headroom bytes now */
	uint64_t peak_bytes;
	uint64_t peak_headroom;
	uint64_t lossless_drops;
	int xoff; /* PAUSE asserted upstream now */
};

/* What a switch reports upwards; the fabric fills it in (net.c). */
struct sw_ops {
	/* a packet of QP @flow was dropped: no route leads on from here */
	void (*unroutable)(void *up, uint32_t flow);
};

/*
 * Build the switch of topology node @node of @t with @prm (borrowed, as
 * are the others): @ports are the node's ports in topology order, already
 * joined to their peers (port_init); @routes the fabric's routes; @mtu the
 * traffic's, for the computed headroom. -EINVAL with @d when it does not
 * fit its buffer (sw_buffer_plan: the configuration is wrong), or -ENOMEM.
 * Its ports' state is @ctx's (ctx->mem), freed with it, not by sw_free.
 */
int sw_new(struct mctx *ctx, const struct sw_params *prm, uint32_t mtu, const struct topo *t,
	   const struct topo_routes *routes, uint32_t node, struct port *ports, struct sw **out,
	   struct diag *d);
/*
 * Route by @r from now on (the control plane converged after a failure);
 * -ENOMEM when the switch's forwarding table could not be rebuilt (it
 * routes by @r all the same, asking it for every packet).
 */
int sw_set_routes(struct sw *s, const struct topo_routes *r);
/* Report through @ops with @up (optional: without, nothing is reported). */
void sw_set_ops(struct sw *s, const struct sw_ops *ops, void *up);
void sw_free(struct sw *s);
/* Move the times @s keeps of its port @port on by @dt (a fast-forward
 * set the port aside). */
void sw_shift_port(struct sw *s, uint32_t port, simtime_t dt);
/* Drop what waits for a port whose link went down (counted as drops). */
void sw_port_down(struct sw *s, uint32_t local_port);
const struct sw_counters *sw_counters(const struct sw *s);
/*
 * A switch's counters and PG statistics as a blob of sw_stats_size bytes
 * (sw_stats_save), and another part's blob of the same switch added to
 * them (sw_stats_absorb: counters summed, peaks the larger): how the parts
 * of a split fabric gather what each counted (sim/run/par.h).
 */
size_t sw_stats_size(const struct sw *s);
void sw_stats_save(const struct sw *s, void *buf);
void sw_stats_absorb(struct sw *s, const void *buf);
struct sw_pg_stats sw_pg(const struct sw *s, uint32_t local_port, uint8_t prio);
/* A count that moves whenever a byte joins or leaves an egress queue or an
 * ingress PG of @local_port: unchanged, nothing there has changed. */
uint32_t sw_port_version(const struct sw *s, uint32_t local_port);
/* The PGs of @local_port holding bytes now, a bit per priority. */
uint8_t sw_pg_busy(const struct sw *s, uint32_t local_port);
/* The bytes held for @local_port's ingress, every PG and headroom. */
uint64_t sw_ingress_bytes(const struct sw *s, uint32_t local_port);
/* Whether the PFC watchdog holds queue @prio of @local_port as stormed. */
int sw_watchdog_storm(const struct sw *s, uint32_t local_port, uint8_t prio);
/* Headroom of each lossless PG of @local_port (sw_port_headroom). */
uint64_t sw_headroom(const struct sw *s, uint32_t local_port);
/* The class (PG in, egress queue out) of a packet of @dscp that comes in
 * by @local_port: that port's DSCP_TO_TC_MAP. */
uint8_t sw_tc_of(const struct sw *s, uint32_t local_port, uint8_t dscp);
/*
 * RED's decision for a packet leaving (or joining) an egress queue of @q
 * bytes: 1 to mark it CE. 0 at or below kmin, 1 above kmax, in between
 * pmax (q - kmin) / (kmax - kmin) with one uniform draw from @rng; kmin ==
 * kmax is step marking (0 at or below K, 1 above).
 */
int sw_red_mark(const struct sw_ecn *e, uint64_t q, gsl_rng *rng);

#endif
