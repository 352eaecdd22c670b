/*
 * A parallel run: one fabric split into parts (partition.h), one part per
 * process, run in conservative time windows as the established parallel
 * network simulators run (ns-3's distributed simulator, OMNeT++'s parallel
 * mode; Chandy and Misra's lookahead).
 *
 * Each process builds the whole fabric and runs the events of its part.
 * A window starts at the earliest event of all parts, t0, and ends at t0 +
 * lookahead: nothing sent across a cut link within it can arrive before
 * its end, so every part runs its events below the end without waiting.
 * At the end, the packets (and PFC frames) that crossed a cut go to the
 * part of their far end, with the messages posted on flows whose responder
 * is there; the next window starts at the new earliest event, so a quiet
 * stretch costs one window, not one per lookahead. Equal-time events keep
 * their keys (evq.h) and switches their own random streams, so every part
 * runs its events in the order one process runs them: the results are
 * those of a run of one process, byte for byte.
 *
 * A completed workload is noticed at the end of the window it completed
 * in; the run then goes on to the same bound as a run of one process
 * (sim.settle). At the end the parts' counters are gathered into the
 * first process (each counted only what it ran), which writes the results.
 *
 * Only this file's engine and par_mpi.c's transport know of parts; the
 * transport is MPI (par_mpi.h), or anything with the three operations
 * below.
 */
#ifndef ROCESIM_PAR_H
#define ROCESIM_PAR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/engine/diag.h"
#include "sim/run/par_buf.h"
#include "sim/run/sim.h"

enum par_red { PAR_MAX, PAR_SUM };

/* The processes of a parallel run, and how they talk. */
struct par_comm {
	uint32_t rank, size;
	/* @v[0..n) combined elementwise over every process, in place */
	int (*allreduce)(void *ctx, uint64_t *v, int n, enum par_red op);
	/* out[r] goes to process r (out[rank] too); in[r] gets what r sent
	 * here (data malloc'ed: the caller frees it) */
	int (*exchange)(void *ctx, const struct par_buf *out, struct par_buf *in);
	/* process 0 gets every process's @mine in all[r] (malloc'ed) */
	int (*gather)(void *ctx, const struct par_buf *mine, struct par_buf *all);
	void *ctx;
};

/* Windows, messages and waiting of a parallel run (results.json's "run"). */
struct par_stats {
	uint32_t ranks;
	uint64_t windows;
	uint64_t messages; /* records sent across, all processes */
	double wait_s;	   /* wall time this process spent in the transport */
	simtime_t lookahead;
};

/*
 * Whether @sim (sim_init done) can run split over @size processes: 0, or
 * -EINVAL with @d naming the key (a topology with fewer switches, or a cut
 * link without delay; max_events; fast-forward asked for in the scenario;
 * collectives, not yet), or -ENOMEM. Fast-forward on by default is turned
 * off (sim_ff_off): a split run gives the results of one process with
 * engine.fast_forward.enabled false.
 */
int par_check(struct sim *sim, uint32_t size, struct diag *d);
/*
 * Run @sim (sim_init done, every process with the same scenario) as part
 * comm->rank of comm->size; on process 0, @sim then holds the whole run's
 * counters and end, as sim_run leaves them, and @series, @qp_rates and
 * @pfc_events (process 0's; NULL elsewhere) what sim_run writes there;
 * with @progress, process 0 prints --progress's lines for the whole run. 0; -EINVAL with @d when
 * the fabric cannot be split so or uses what a split run cannot do yet; -EIO when the transport
 * failed; the first event error otherwise.
 */
int par_run(struct sim *sim, const struct par_comm *comm, struct par_stats *st, struct diag *d,
	    FILE *series, FILE *qp_rates, FILE *pfc_events, int progress);

#endif
