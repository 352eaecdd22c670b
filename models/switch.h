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
 */
#ifndef ROCESIM_SWITCH_H
#define ROCESIM_SWITCH_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "sim/engine/simtime.h"

struct diag;
struct mctx;
struct port;
struct sw;
struct topo;
struct topo_link;
struct topo_routes;

enum sw_sched { SW_SCHED_STRICT, SW_SCHED_DWRR };
enum sw_wd_action { SW_WD_DROP, SW_WD_FORWARD, SW_WD_ALERT };

/* PFC on the lossless priority groups of every switch. */
struct sw_pfc {
	/* the XOFF limit's, first: a switch port's copy has them on the line
	 * forwarding reads of every packet */
	uint64_t xoff; /* static: shared bytes a PG may hold before XOFF */
	int dynamic;   /* limit = 2^dynamic_th x free shared buffer */
	int dynamic_th;
	int enabled;
	uint64_t xon; /* absolute XON threshold, if has_xon */
	int has_xon;
	uint64_t xon_offset; /* else XON at the XOFF limit minus this, */
	uint64_t xon_floor;  /* and no lower than this (SAI's XON_TH beside XON_OFFSET_TH) */
	uint64_t headroom;   /* per lossless PG, 0: computed per link (sw_port_headroom) */
	int no_headroom;     /* none at all: a lossless PG whose buffer profile gives none */
	uint32_t quanta;     /* in each PAUSE frame */
	simtime_t refresh;   /* re-send PAUSE this often while XOFF (0: half the quanta) */
	simtime_t response;  /* reaction to a received PAUSE (0: by link speed) */
};

/* RED/ECN marking on the egress queues (sw_red_mark). */
struct sw_ecn {
	int enabled;
	uint64_t kmin, kmax;
	double pmax;
	int at_enqueue;
};

/* The PFC watchdog (SONiC PFC_WD). */
struct sw_watchdog {
	int enabled;
	simtime_t detection, restoration;
	enum sw_wd_action action;
};

/*
 * One port's own settings, where a switch's ports differ (SONiC configures
 * PFC, the lossless PGs' buffer profile, the DSCP map, the schedulers and
 * the queues' WRED profile per port). Complete: whoever fills it copies
 * what the port does not change from its switch's sw_params. @lossless
 * (with pfc.enabled) are the port's lossless priorities: its ingress PGs
 * of those take headroom and send PAUSE, its egress queues of those obey
 * PAUSE; @pfc gives those PGs' thresholds and headroom (quanta, refresh
 * and response stay the switch's); @dscp_to_tc classes what arrives on the
 * port; @sched, @weights and @cnp_weighted schedule what leaves it; @ecn,
 * when @has_ecn, marks its egress queues (else the switch's ecn does).
 */
struct sw_port_params {
	uint8_t lossless;
	struct sw_pfc pfc;
	uint8_t dscp_to_tc[64];
	enum sw_sched sched;
	uint32_t weights[8];
	uint8_t cnp_weighted;
	int has_ecn;
	struct sw_ecn ecn;
};

/*
 * Thresholds for the ports of one link speed (switch.ecn.by_speed,
 * switch.pfc.by_speed), as SONiC's buffer profiles and WRED profiles are
 * per speed: the fields flagged in @ecn_set and @pfc_set replace, on every
 * port of a link of @rate_bps, those the port would take otherwise (the
 * switch's, or its own port_params). ECN marks at egress: the egress
 * port's speed decides; PFC acts at ingress: the ingress port's.
 */
enum { SW_SET_KMIN = 1, SW_SET_KMAX = 2, SW_SET_PMAX = 4 };
enum {
	SW_SET_DYNAMIC_TH = 1,
	SW_SET_XOFF = 2,
	SW_SET_XON = 4,
	SW_SET_XON_OFFSET = 8,
	SW_SET_HEADROOM = 16,
};
struct sw_speed {
	uint64_t rate_bps;
	unsigned ecn_set, pfc_set;
	struct sw_ecn ecn;
	struct sw_pfc pfc;
};

/* What every switch of the fabric is configured with (sizes in bytes). */
struct sw_params {
	uint64_t buffer;	/* total packet buffer, bytes */
	uint64_t per_port;	/* static cap per ingress port, 0 = none */
	uint64_t pg_min;	/* reserved minimum per lossless PG */
	uint64_t headroom_pool; /* shared headroom pool, 0 = headroom reserved per PG */
	uint8_t lossless;	/* bit mask of lossless priorities */
	uint8_t cnp_priority;
	uint8_t dscp_to_tc[64];
	struct sw_pfc pfc;
	struct sw_ecn ecn;
	enum sw_sched sched;
	uint32_t weights[8]; /* dwrr */
	/* dwrr: the cnp_priority's queue takes its DWRR turn with the others
	 * (SONiC: a WRR or DWRR scheduler on it); 0: it is served first */
	uint8_t cnp_weighted;
	struct sw_watchdog wd;
	/*
	 * Ports with settings of their own: port i of the switch (in topology
	 * order) takes port_params[i] when i < n_port_params, the fields
	 * above otherwise. NULL: every port takes the fields above. Borrowed.
	 */
	const struct sw_port_params *port_params;
	uint32_t n_port_params;
	/* Per link speed (sw_speed), at most one entry a rate. Borrowed; NULL: none. */
	const struct sw_speed *by_speed;
	uint32_t n_by_speed;
};

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

/*
 * Whether topology node @node of @t, a switch, fits its buffer under @p
 * with traffic of MTU @mtu: the reserved minimums (pg_min per lossless PG of each
 * port), each lossless PG's headroom (sw_port_headroom) or the shared
 * headroom pool, leaving some buffer to share. 0 with *@shared (if not
 * NULL) the shared pool; or -EINVAL with @d (path and message, no file)
 * saying why, a sum beyond 2^64 included. `run` refuses with it and
 * `rocesim check` reports it: one decision, the same words.
 */
int sw_buffer_plan(const struct sw_params *p, uint32_t mtu, const struct topo *t, uint32_t node,
		   uint64_t *shared, struct diag *d);
/* Headroom of each lossless PG of a switch port on link @l: pfc.headroom,
 * or pfc_headroom_need for the link and @mtu rounded up to 1 KiB. */
uint64_t sw_port_headroom(const struct sw_params *p, uint32_t mtu, const struct topo_link *l);
/* The same for port @local_port of a switch under @p: its own pfc (port_params) if it has one. */
uint64_t sw_local_headroom(const struct sw_params *p, uint32_t local_port, uint32_t mtu,
			   const struct topo_link *l);
/* The PFC thresholds of port @local_port of a switch under @p whose link runs at
 * @rate_bps: its own or the switch's, with its speed's by_speed entry over them. */
void sw_local_pfc(const struct sw_params *p, uint32_t local_port, uint64_t rate_bps,
		  struct sw_pfc *out);
/* The RED/ECN settings of an egress port whose link runs at @rate_bps. */
void sw_local_ecn(const struct sw_params *p, uint64_t rate_bps, struct sw_ecn *out);
/* The same for egress port @local_port of a switch under @p: its own
 * (port_params with has_ecn) or the switch's, its speed's over them. */
void sw_port_ecn(const struct sw_params *p, uint32_t local_port, uint64_t rate_bps,
		 struct sw_ecn *out);
/*
 * All that port @local_port of a switch under @p, on link @l, with traffic
 * of MTU @mtu, is configured with, resolved: what forwarding reads of the
 * port a packet comes in by and of the one it leaves by. Never written
 * while running; a switch keeps one copy of each distinct one.
 */
struct sw_port_cfg {
	/* what ingress reads of every packet, and its XOFF limit: a line */
	const uint8_t *dscp_to_tc; /* classes what arrives on it */
	uint64_t headroom;	   /* of each lossless PG (sw_local_headroom) */
	uint8_t lossless;	   /* its lossless priorities with PFC on */
	struct sw_pfc pfc;	   /* its lossless PGs' thresholds (sw_local_pfc) */
	/* what egress reads of every packet: a line */
	enum sw_sched sched __attribute__((aligned(64)));
	struct sw_ecn ecn;   /* RED on its egress queues (sw_local_ecn) */
	uint32_t quantum[8]; /* DWRR: bytes a round, per queue */
	uint8_t strict;	     /* queues served ahead of DWRR: all (strict), the CNP's, none */
};
void sw_local_port(const struct sw_params *p, uint32_t local_port, uint32_t mtu,
		   const struct topo_link *l, struct sw_port_cfg *out);
/* Whether two ports' settings are the same (the same DSCP map, not only
 * the same table). */
int sw_port_cfg_same(const struct sw_port_cfg *a, const struct sw_port_cfg *b);

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
/*
 * RED's decision for a packet leaving (or joining) an egress queue of @q
 * bytes: 1 to mark it CE. 0 at or below kmin, 1 above kmax, in between
 * pmax (q - kmin) / (kmax - kmin) with one uniform draw from @rng; kmin ==
 * kmax is step marking (0 at or below K, 1 above).
 */
int sw_red_mark(const struct sw_ecn *e, uint64_t q, gsl_rng *rng);

#endif
