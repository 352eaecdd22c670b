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
 * priority always strict; a queue paused by PFC is skipped.
 *
 * PFC watchdog (SONiC PFC_WD): a lossless queue paused without pause for
 * `detection` is declared stormed; drop flushes it and drops what arrives
 * for it or on its PG, forward ignores further PAUSE, alert only counts;
 * after `restoration` without a PFC frame the queue is restored.
 */
#ifndef ROCESIM_SWITCH_H
#define ROCESIM_SWITCH_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "sim/engine/simtime.h"

struct diag;
struct net;
struct port;
struct scenario;
struct scn_ecn;
struct sw;
struct topo;
struct topo_link;

struct sw_counters {
	uint64_t shared_size;              /* shared pool after reservations */
	uint64_t shared_used, shared_peak; /* frame bytes */
	uint64_t headroom_used, headroom_peak;
	uint64_t drops, drop_bytes, lossless_drops;
	uint64_t unroutable;
	uint64_t watchdog_triggers, watchdog_drops;
};

/* One ingress priority group: occupancy now and its peaks. */
struct sw_pg_stats {
	uint64_t bytes;          /* min + shared + headroom now */
	uint64_t headroom;       /* headroom bytes now */
	uint64_t peak_bytes;
	uint64_t peak_headroom;
	uint64_t lossless_drops;
	int xoff;                /* PAUSE asserted upstream now */
};

/*
 * Whether topology node @node of @t, a switch, fits its buffer under
 * scenario @s: the reserved minimums (pg_min per lossless PG of each
 * port), each lossless PG's headroom (sw_port_headroom) or the shared
 * headroom pool, leaving some buffer to share. 0 with *@shared (if not
 * NULL) the shared pool; or -EINVAL with @d (path and message, no file)
 * saying why, a sum beyond 2^64 included. `run` refuses with it and
 * `rocesim check` reports it: one decision, the same words.
 */
int sw_buffer_plan(const struct scenario *s, const struct topo *t, uint32_t node, uint64_t *shared,
		   struct diag *d);
/* Headroom of each lossless PG of a switch port on link @l: switch.pfc.headroom,
 * or pfc_headroom_need for the link rounded up to 1 KiB. */
uint64_t sw_port_headroom(const struct scenario *s, const struct topo_link *l);
/* Build the switch of topology node @node. -EINVAL with @d when it does not
 * fit its buffer (sw_buffer_plan: the scenario is wrong), or -ENOMEM. */
int sw_new(struct net *net, uint32_t node, struct sw **out, struct diag *d);
void sw_free(struct sw *s);
/* Drop what waits for a port whose link went down (counted as drops). */
void sw_port_down(struct sw *s, uint32_t local_port);
const struct sw_counters *sw_counters(const struct sw *s);
const struct sw_pg_stats *sw_pg(const struct sw *s, uint32_t local_port, uint8_t prio);
/* Whether the PFC watchdog holds queue @prio of @local_port as stormed. */
int sw_watchdog_storm(const struct sw *s, uint32_t local_port, uint8_t prio);
/* Headroom of each lossless PG of @local_port (sw_port_headroom). */
uint64_t sw_headroom(const struct sw *s, uint32_t local_port);
/*
 * RED's decision for a packet leaving (or joining) an egress queue of @q
 * bytes: 1 to mark it CE. 0 at or below kmin, 1 above kmax, in between
 * pmax (q - kmin) / (kmax - kmin) with one uniform draw from @rng; kmin ==
 * kmax is step marking (0 at or below K, 1 above).
 */
int sw_red_mark(const struct scn_ecn *e, uint64_t q, gsl_rng *rng);

#endif
