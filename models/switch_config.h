/*
 * What a switch is configured with (struct sw_params, filled from the
 * scenario and SONiC's config_db), and what each of its ports resolves
 * to: its own settings or the switch's, its link speed's over them, the
 * headroom of its lossless PGs, and whether the buffer holds what the
 * ports reserve (switch_config.c). The switch that runs with it: switch.h.
 */
#ifndef ROCESIM_SWITCH_CONFIG_H
#define ROCESIM_SWITCH_CONFIG_H

#include <stdint.h>

#include "sim/engine/simtime.h"

struct diag;
struct topo;
struct topo_link;

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

#endif
