/*
 * rocesim calibrate: the values of scenario keys a config does not give
 * (a CNP reaction delay, a PFC response delay, a per-hop latency, a link
 * delay) fitted so that a run's NIC and switch counters match what the lab
 * measured (a folder of measured files, compare_measured.h).
 *
 * The counters paired between the folder and a run are summed by counter
 * over the nodes and ports they were read on (every host's rx_prio3_pause,
 * every switch port's PFC3 Tx, ...), and each sum gives the residual
 * r = ln((simulated + CC_FLOOR) / (measured + CC_FLOOR)); the objective is
 * their weighted mean square, sum(w r^2) / sum(w), every sum weighing 1.
 * Sums, because which of several alike senders a port's PAUSE frames go
 * to turns on races of a few nanoseconds that no model replays event for
 * event: a port's own count wanders by several percent from one value of
 * a key to the next, its sum does not (`compare --measured` sets the
 * counters side by side one by one). The search is tune's (tune_search.c): the keys'
 * ranges scaled to the unit cube (log over a decade), a coarse grid, then
 * GSL's Nelder-Mead simplex (nmsimplex2) restarted with half the step,
 * until the budget of runs is spent or the simplex is finer than the
 * grain. Each point runs in this process through the run layer, on the
 * scenario's seed and the next ones (--seeds), the counters averaged over
 * the seeds: the same point gives the same objective.
 */
#ifndef ROCESIM_CALIBRATE_H
#define ROCESIM_CALIBRATE_H

#include <jansson.h>
#include <stddef.h>

#include "sim/engine/diag.h"
#include "sim/study/compare_measured.h"
#include "sim/study/tune_impl.h"

#define CAL_MAX_SEEDS 16
#define CAL_DEFAULT_BUDGET 60
/* a fit whose root mean square residual is above this is poor (about 10%) */
#define CAL_POOR_RMS 0.10
/* a fitted value within this share of a range's end is at its bound */
#define CAL_AT_BOUND 0.01
/* points whose objective is within this factor of the best one say how
 * well a key is determined */
#define CAL_NEAR 1.25

struct cal_args {
	const char *scenario; /* the scenario file */
	const char *measured; /* the folder of measured files */
	char **fits;	      /* "KEY=LO..HI" */
	size_t n_fits;
	char **sets; /* "KEY=VALUE", fixed for every run */
	size_t n_sets;
	size_t seeds;  /* runs a point: the scenario's seed and the next ones */
	size_t budget; /* runs in all, the scenario's own run included */
};

/* One counter summed over the nodes and ports it was read on (every host's
 * rx_prio3_pause, every port's PFC3 Tx): measured, and simulated before and
 * after the fit. */
struct cal_counter {
	char name[160];	 /* kind and name: "hw-counters np_cnp_sent", "pfcstat PFC3 Tx" */
	char first[140]; /* the first node (and port) summed */
	size_t n;	 /* how many counters summed */
	double measured;
	double before, after;	      /* simulated, NAN when that run did not pair it */
	double res_before, res_after; /* ln((sim + CC_FLOOR) / (measured + CC_FLOOR)) */
};

/* What a key's fit came to. */
struct cal_key {
	double value;		 /* fitted, the key's base unit */
	double near_lo, near_hi; /* the values of the points within CAL_NEAR of the best */
	int at_bound;		 /* -1 at the low end, 1 at the high end, 0 inside */
	int effect; /* tune_verdict's: 1 moves the counters, 0 moved nothing, -1 not known */
};

struct cal_result {
	struct tune_problem pb;
	struct tune_search search;
	struct cal_key keys[TUNE_MAX_PARAMS];
	struct cal_counter *counters;
	size_t n_counters;
	size_t not_compared; /* counters of the folder no run pairs */
	double rms_before, rms_after;
	double worst_after; /* the largest |residual| after the fit */
	long best;	    /* the fitted point's index in search.pts */
	size_t runs;	    /* runs taken, the scenario's own included */
	size_t seeds;
	double wall_s;
	int poor;	/* rms_after above CAL_POOR_RMS */
	char *fragment; /* the YAML to paste into the scenario */
	char scenario[4096], measured[4096];
};

/*
 * Fit @a into @r (cal_free it, also after an error). 0; -EINVAL with @d
 * naming the file, the line or the key (an unknown key, a range that is
 * not one or whose ends are not of the key's unit, a folder without
 * counters, a folder whose nodes are not the scenario's hosts and
 * switches, a scenario that cannot run); -ENOMEM.
 */
int cal_run(const struct cal_args *a, struct cal_result *r, struct diag *d);
/* calibrate.json's document (a new reference), NULL when out of memory. */
json_t *cal_json(const struct cal_result *r);
void cal_free(struct cal_result *r);

/* Key @i of @r as the scenario writes it: fitted, the range, the values
 * within CAL_NEAR of the best. */
struct cal_key_text {
	char value[64], lo[64], hi[64], near_lo[64], near_hi[64];
};
void cal_key_text(const struct cal_result *r, size_t i, struct cal_key_text *t);

#endif
