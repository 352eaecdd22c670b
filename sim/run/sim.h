/*
 * One simulation: the scenario, its topology and fabric, the event queue,
 * the seeded random generator, and the loop that runs them until the
 * workload is done, the time bound is reached, or the event cap is hit.
 * Nothing here is global: two simulations can run side by side.
 */
#ifndef ROCESIM_SIM_H
#define ROCESIM_SIM_H

#include <jansson.h>
#include <signal.h>
#include <stdio.h>

#include "models/net.h"
#include "topologies/cbd.h"
#include "sim/engine/diag.h"
#include "sim/engine/evq.h"
#include "sim/config/scenario.h"

/* The time-series sampler's (series.h): a (port, priority)'s last row. */
struct series_last {
	uint64_t queue, pg, headroom;
};

/* A queue non-empty at a sample of a fast-forward's sequence, its rows
 * summed over the sequence's samples, for its spans (series.c). */
struct series_held {
	uint32_t port;
	uint8_t prio;
	uint64_t queue, pg, headroom;
};

/* The queues non-empty at the samples of a fast-forward's sequence
 * (begun at t0; n samples), in port and priority order, whose means its
 * spans' samples show; spare is the list being merged into. */
struct series_keep {
	struct series_held *held, *spare;
	size_t n_held, cap_held;
	simtime_t t0;
	uint32_t n;
};

/* What the sampler keeps between samples. */
struct series {
	uint32_t *ports; /* the switch ports, in port order */
	uint32_t n_ports;
	uint8_t *nonzero;	  /* per port: priorities non-empty at the last sample */
	uint32_t n_nonzero;	  /* ports with any */
	uint32_t *version;	  /* per port: sw_port_version at the last sample (changes) */
	struct series_last *last; /* per port x priority (changes only) */
	int tagged;		  /* a split run's part: rows tagged (series_restrict) */
	/* with a fast-forward: its sequence's queues, for the fabric as one
	 * group, or for each of its groups (as many as n_keeps) */
	struct series_keep keep;
	struct series_keep *keeps;
	uint32_t n_keeps;
	/* the QPs whose DCQCN has seen a CNP (it never forgets one), in flow
	 * order, as of ctx.tot.cnp_handled == rates_cnp - 1 (0: not made):
	 * every activation counts a CNP handled in the same event */
	uint32_t *rate_flows;
	uint32_t n_rate_flows, cap_rate_flows;
	uint64_t rates_cnp;
};

enum sim_end {
	SIM_END_DONE,
	SIM_END_STOP,
	SIM_END_EVENTS,
	SIM_END_IDLE,
	SIM_END_DEADLOCK,
	SIM_END_INTERRUPTED,
	SIM_END_ERROR
};

struct sim {
	struct scenario *scn;
	struct topo *topo;
	struct evq *q;
	struct net *net;
	struct ff *ff; /* the fast-forward (engine.fast_forward), or NULL */

	FILE *series;	    /* time-series CSV, or NULL */
	FILE *pfc_events;   /* PFC event log CSV, or NULL */
	FILE *qp_rates;	    /* per-QP DCQCN rates CSV, or NULL (with series) */
	simtime_t log_at;   /* a split run's PFC log: the event it is at, */
	uint64_t log_key;   /* ... its key, */
	uint32_t log_lines; /* ... and the lines it logged */
	struct evq_timer sampler;
	struct series sampling; /* the sampler's state (series.h) */

	struct cbd_result cbd; /* static deadlock analysis of the workload's routes */

	/*
	 * When the workload completes (done_at), the run goes on for as long
	 * as a packet needs to cross the longest path of the fabric (settle:
	 * its hops times hop_bound, each hop's longest delay and slowest
	 * serialisation), so that what is on the wires lands (the last ACKs,
	 * CNPs, PAUSE frames), then ends: a
	 * bound every process of a parallel run reaches in the same place,
	 * whichever learns of the completion last (see par.h). until is the
	 * last time whose events run: stop, or done_at + settle.
	 */
	simtime_t settle, hop_bound, done_at, until;
	enum sim_end end;
	simtime_t end_time; /* stop; or the last event's time */
	uint64_t inflight;  /* payload bytes queued or on the wires at the end */
	double wall_s;
	uint64_t events;
	int progress;
	/* set by the caller after sim_init: the run stops when it turns non-zero
	 * (a signal handler's flag), ending SIM_END_INTERRUPTED */
	volatile sig_atomic_t *interrupt;
};

/*
 * Build the topology of @s, resolve the scenario against it and build the
 * fabric. Errors are input errors (@d says where) or -ENOMEM. Takes
 * ownership of @s.
 */
int sim_init(struct sim *sim, struct scenario *s, struct diag *d);
/* Run to the end; @series, @qp_rates and @pfc_events (any may be NULL)
 * receive the queue time series, the per-QP rate time series (both
 * sampled every output.sample) and the PFC event log. 0, or the negative
 * errno of the first event that failed (-ENOMEM): the run then ends at
 * once with SIM_END_ERROR. */
int sim_run(struct sim *sim, FILE *series, FILE *qp_rates, FILE *pfc_events, int progress);
void sim_fini(struct sim *sim);
/* Run @sim (sim_init done, not run) without its fast-forward, as with
 * engine.fast_forward.enabled false: a run split over processes, where it
 * was on by default. */
void sim_ff_off(struct sim *sim);
/*
 * Training job @k of @s run alone on the fabric (no other workload, no
 * outputs): its mean iteration time into *@iteration_us (0 when it did
 * not complete). Takes ownership of @s (a scenario loaded as the run's).
 * 0, or an error as sim_init's and sim_run's.
 */
int sim_alone(struct scenario *s, uint32_t k, double *iteration_us, struct diag *d);
/*
 * Run @s (loaded, not yet run) packet by packet, fast-forward off and
 * nothing written, into *@res (results.json's object, the caller's to
 * json_decref): what --verify-fast-forward holds a fast-forwarded run
 * against. 0, or a negative errno with @d.
 */
int sim_full(struct scenario *s, json_t **res, struct diag *d);
/* A split run's PFC event log: each line after a tag of SIM_PFC_TAG
 * characters and a tab (the time in ps, the event's key, its lines so far). */
#define SIM_PFC_TAG 50
void sim_log_pfc_tagged(struct sim *sim);
/* The workload of @sim completed at @at: end within sim.settle of it. */
void sim_workload_done(struct sim *sim, simtime_t at);

/* How far the workload is, for --progress. */
struct sim_progress {
	uint64_t bytes_done, bytes_total; /* payload delivered in order / to deliver */
	uint32_t flows_done, flows;	  /* workload flows */
	uint32_t colls_done, colls;	  /* collectives */
	uint32_t coll_iter, coll_iters;	  /* the first unfinished collective: its iteration
					     (from 1) and how many it runs; 0 0 when none */
};
/* The workload's progress in @sim (before, during or after the run). */
void sim_progress(const struct sim *sim, struct sim_progress *p);
/*
 * One line of --progress on @f: the share of the workload's payload
 * delivered, flows and collectives done, events/s over @elapsed wall
 * seconds (@events so far) and the time left at that pace; @final: the
 * line at the end of the run, with the wall time instead.
 */
void sim_show_progress(const struct sim *sim, double elapsed, uint64_t events, int final, FILE *f);
/* The same line for progress @p at @now (a split run's, summed over its
 * parts). */
void sim_print_progress(const struct sim *sim, const struct sim_progress *p, simtime_t now,
			double elapsed, uint64_t events, int final, FILE *f);

const char *sim_end_str(enum sim_end e);

#endif
