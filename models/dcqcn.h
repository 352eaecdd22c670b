/*
 * DCQCN reaction point (RP): the per-QP rate state machine of a RoCE
 * sender, as a pure module (no event queue, no packets). The NIC calls it
 * when a CNP arrives, when bytes are sent and when its timers fire, and
 * paces the QP at dcqcn_rp_rate().
 *
 * Two variants:
 *  - DCQCN_MLX5 follows a ConnectX NIC with the mlx5 cc_params names,
 *    units and defaults of ConnectX-6 Dx firmware (mstflint, NVIDIA's DCQCN
 *    parameters document; readings chosen where the sources
 *    disagree are marked [choice] in dcqcn.c and in docs/models.md);
 *  - DCQCN_PAPER follows the SIGCOMM 2015 algorithm (Zhu et al.).
 *
 * Rates are bit/s, times picoseconds, alpha in 1/2^20 units (the cc_params
 * fields are in 1/1024 units); all integer arithmetic.
 */
#ifndef ROCESIM_DCQCN_H
#define ROCESIM_DCQCN_H

#include <stdint.h>

#include "sim/engine/simtime.h"

enum dcqcn_variant { DCQCN_MLX5, DCQCN_PAPER };

/* The mlx5 cc_params, in their own units (us, Mb/s, raw counts). */
struct dcqcn_params {
	enum dcqcn_variant variant;
	uint32_t rp_time_reset;			/* us between timer increases (300) */
	uint32_t rp_byte_reset;			/* byte counter, in byte_reset_unit (32767) */
	uint32_t rp_threshold;			/* stages before AI/HAI (1) */
	uint32_t rp_ai_rate;			/* Mb/s (5) */
	uint32_t rp_hai_rate;			/* Mb/s (50) */
	uint32_t rp_max_rate;			/* Mb/s, 0 = port speed (0) */
	uint32_t rp_min_rate;			/* Mb/s (1) */
	uint32_t rp_min_dec_fac;		/* %: a cut keeps at least this much (50) */
	uint32_t rp_rate_to_set_on_first_cnp;	/* Mb/s, 0 = port speed (0) */
	uint32_t rp_dce_tcp_g;			/* alpha weight, /1024 (1019) */
	uint32_t rp_dce_tcp_rtt;		/* us per alpha update (1) */
	uint32_t rp_rate_reduce_monitor_period; /* us between cuts (4) */
	uint32_t rp_initial_alpha_value;	/* /1024 (1023) */
	uint32_t rp_gd;				/* log2 of the decrease divisor (11) */
	uint32_t rp_clamp_tgt_rate;		/* (0) */
	uint32_t rp_clamp_tgt_rate_ati;		/* (1) */
	uint32_t np_min_time_between_cnps;	/* us, per QP (4) */
	uint32_t np_cnp_dscp;			/* (48) */
	uint32_t np_cnp_prio;			/* (6) */
	uint32_t np_cnp_prio_mode;		/* 0: CNPs on np_cnp_prio; 1: on the
						   priority of the marked packet (0) */
	uint32_t rtt_resp_dscp_valid;		/* read, not modelled: RTT responses (0) */
	uint32_t rtt_resp_dscp;			/* (0) */
	/* not a cc_params entry: 0 (gap) a CNP on a mark at least
	 * np_min_time_between_cnps after the QP's last; 1 (window) the first
	 * mark of each aligned window of that length sends one, as the fluid
	 * model and the authors' simulator assume */
	uint32_t np_cnp_window;
	/*
	 * Readings the sources disagree on (not cc_params entries): bytes per
	 * unit of rp_byte_reset, 1 (mlxconfig's and the firmware layout's
	 * "given in bytes") or 64 (Google Isekai); and whether
	 * np_min_time_between_cnps spaces the CNPs of the whole port (1,
	 * mlxconfig's "from the port") or of each QP (0).
	 */
	uint32_t byte_reset_unit;
	uint32_t cnp_per_port;
};

/* The defaults of @v: ConnectX-6 Dx firmware's for mlx5; for the paper variant its
 * constants (g 1/256, 55 us timers, B 10 MB, F 5, R_AI 40 Mb/s, R_HAI
 * 200 Mb/s, minimum 100 Mb/s, CNPs at most every 50 us), expressed in the
 * same fields where they have one. */
void dcqcn_params_default(struct dcqcn_params *p, enum dcqcn_variant v);
/* The paper's byte counter (10 MB) in units of @unit bytes (1 or 64). */
uint32_t dcqcn_paper_byte_reset(uint32_t unit);

struct dcqcn_rp {
	/* what every packet sent reads and writes, first (one cache line) */
	const struct dcqcn_params *p;
	uint64_t rc;		 /* current rate, bit/s */
	uint64_t byte_count;	 /* bytes towards the next byte stage */
	simtime_t next_increase; /* when the increase timer fires, or NEVER */
	int active;		 /* a CNP has been seen (timers run) */
	uint32_t time_stage, byte_stage;
	uint32_t alpha;				/* 1.0 = 1 << 20 */
	uint64_t rt;				/* target rate, bit/s */
	uint64_t line_rate, max_rate, min_rate; /* bit/s */
	simtime_t alpha_epoch;			/* start of the current alpha period */
	simtime_t last_cut;
	int cnp_in_period; /* a CNP arrived in the current alpha period */
	int cut_pending;   /* a CNP waits for the next allowed cut */
	uint64_t cnp_handled, cuts, increases;
};

void dcqcn_rp_init(struct dcqcn_rp *rp, const struct dcqcn_params *p, uint64_t line_rate_bps);
/*
 * A CNP arrived at @now. Returns when the caller must call dcqcn_rp_cut:
 * @now, a later time (the monitor period has not passed since the last
 * cut), or SIMTIME_NEVER (no cut: the first CNP on mlx5, or one already
 * pending).
 */
simtime_t dcqcn_rp_cnp(struct dcqcn_rp *rp, simtime_t now);
/* Apply the pending cut at @now. */
void dcqcn_rp_cut(struct dcqcn_rp *rp, simtime_t now);
/* The increase timer fired at @now (rp->next_increase). */
void dcqcn_rp_timer(struct dcqcn_rp *rp, simtime_t now);
/* @bytes were sent at @now: the byte counter may cause increases. */
void dcqcn_rp_sent(struct dcqcn_rp *rp, uint64_t bytes, simtime_t now);
/* Move the times @rp keeps on by @dt (a fast-forward set it aside). */
void dcqcn_rp_shift(struct dcqcn_rp *rp, simtime_t dt);
/* Alpha as of @now (decays lazily between CNPs), 1.0 = 1 << 20. */
uint32_t dcqcn_rp_alpha(struct dcqcn_rp *rp, simtime_t now);
/* Alpha as a fraction, for output. */
double dcqcn_rp_alpha_frac(struct dcqcn_rp *rp, simtime_t now);

static inline uint64_t dcqcn_rp_rate(const struct dcqcn_rp *rp)
{
	return rp->rc;
}

#endif
