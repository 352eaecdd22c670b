/*
 * Deadlock detection during a run: a wait-for graph of switch egress
 * queues that are paused by PFC, hold packets and have not sent one for
 * `deadlock.window`. Such a queue at switch A towards B waits for B's
 * ingress buffer (B's port facing A) to drain, which waits for the stuck
 * egress queues of B that hold packets from it. A cycle of these is a PFC
 * deadlock: nothing in it can move again by itself (Hu et al., HotNets 2016).
 */
#ifndef ROCESIM_DEADLOCK_H
#define ROCESIM_DEADLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/simtime.h"

struct mctx;
struct port;
struct topo;

/* Whether to watch for deadlocks during the run, and how. */
struct deadlock_params {
	int enabled;
	simtime_t window;   /* paused with no dequeue this long: stuck */
	int stop_on_detect; /* the run ends at the first deadlock */
};

struct deadlock_report {
	int detected;
	simtime_t detected_at; /* when the detector saw it */
	simtime_t formed_at;   /* when the last queue of the cycle stopped */
	uint8_t prio;
	uint32_t n;	 /* ports in the cycle */
	uint32_t *ports; /* global port indices of the ingress buffers, in order */
};

struct deadlock;

/*
 * Watch the switch ports of @t every window/4 while the run goes on:
 * @ports are the fabric's, one per topology port (borrowed). On a
 * deadlock with stop_on_detect, ctx->stop asks the run to end. 0 or
 * -ENOMEM.
 */
int deadlock_start(struct mctx *ctx, const struct topo *t, const struct port *ports,
		   const struct deadlock_params *p, struct deadlock **out);
void deadlock_free(struct deadlock *d);
const struct deadlock_report *deadlock_report(const struct deadlock *d);

/*
 * A tick at @now in two halves, for a fabric split over processes (each
 * sees its own switches; the wait-for graph spans them): deadlock_collect
 * appends to @out the stuck queues of the switches of part @me (@node_part
 * per topology node; NULL: every switch) with what the search needs of
 * each; deadlock_decide searches the snapshot of all parts, fills the
 * report and sets ctx->stop as a tick does. 0, 1 when a deadlock was found
 * (decide), or -ENOMEM.
 */
struct deadlock_snap {
	uint32_t *w;
	size_t n, cap;
};
/* Append @n words from @words (another part's snapshot). 0 or -ENOMEM. */
int deadlock_snap_add(struct deadlock_snap *s, const void *words, size_t n);
int deadlock_collect(struct deadlock *d, simtime_t now, const uint32_t *node_part, uint32_t me,
		     struct deadlock_snap *out);
int deadlock_decide(struct deadlock *d, simtime_t now, const struct deadlock_snap *snap);
/* Ticks then come from the caller: every deadlock_period while anything
 * is left to happen and no deadlock has been found. */
void deadlock_detach(struct deadlock *d);
simtime_t deadlock_period(const struct deadlock *d);

#endif
