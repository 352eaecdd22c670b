/*
 * Fast-forward: skip the packets of a fabric in a steady state.
 *
 * Training traffic spends most of its time in steady states: every QP at a
 * constant rate, queues still (DCQCN at its fixed point, or no congestion
 * at all), where a packet-by-packet run computes the same thing over and
 * over. A fast-forward watches the run in windows; when for `windows`
 * windows in a row every QP's delivered packets per window stayed within
 * the tolerance (a QP with packets to deliver and none delivered is not
 * steady: paused, stuck or deadlocked runs are never skipped; nor are
 * QPs under DCQCN while flows are still to start among them,
 * where a span's small error grows), it holds
 * every NIC's data until the network has drained (no packet anywhere, no
 * port paused), sets the network's timers aside (evq_hold), and advances
 * each QP at its measured rate: its messages complete at the times that
 * rate gives, and the collectives and training jobs above them run on as
 * usual, posting more. A collective's QP that has delivered all posted on
 * it waits, as a ring's does for its neighbour's data, and goes on from
 * its next post. The span ends at the first of: a flow's QP has delivered
 * everything posted on it but its last packet, every collective's QP has
 * run dry, a message posted on a QP that was not sending, a flow
 * starting, a fault, span_seqs sequences (the rates are measured again;
 * when the next sequence finds them again, the next span may last twice
 * as long, up to 64 times), the end of the run. Then every QP has moved
 * on by the packets its rate delivered, counters by their measured rates
 * (ports, NICs, the run's totals), every time the network keeps and every
 * timer set aside by the span's length, and packets flow again.
 *
 * With params.groups, each group of QPs whose paths share no link or
 * switch with another's (links either way, with the NICs at their ends)
 * does all of
 * the above on its own; otherwise the fabric is one group.
 *
 * What it costs in accuracy: the senders stop while the network drains
 * and start again into an empty network. Neither delays what follows: a
 * QP's timeline in the span starts at its last delivery before the hold
 * (the drain's last ACKs and looks cost it nothing), and at the span's
 * end the packets its timeline delivers within its path's latency (the
 * latency of a full packet on the empty path) count as delivered, so the
 * next one, sent at the end, arrives when the timeline says; a flow's QP
 * ends its span that latency before its last packet is due. What is left
 * is a QP's packet interval at each end (ff_stats.edge_err, the longest
 * of the span's). A rate measured over p packets is known to about
 * one packet, 1/p of the span (ff_stats.rate_err; a rate averages a
 * QP's waits for its data with its sending, and a span adds its own
 * waits: measured on a training iteration, within that estimate);
 * results report the two summed as the error estimate. Within a span,
 * queues are empty and DCQCN's rate fixed, so ECN marks, CNPs and PAUSE
 * frames are counted at their measured rates (scaled by the share of its
 * time the QPs sent, when some waited), not produced. Switch
 * buffer counters (peaks, drops) keep their values from before the span.
 */
#ifndef ROCESIM_FF_H
#define ROCESIM_FF_H

#include <stdint.h>

#include "sim/engine/simtime.h"

struct net;
struct ff;

struct ff_params {
	int enabled;
	uint32_t tolerance_ppm; /* a QP's packets per window may vary by this much */
	simtime_t window;	/* the detector's window */
	uint32_t windows;	/* steady for this many windows in a row */
	uint32_t span_seqs;	/* a span lasts at most this many sequences */
	simtime_t stop;		/* the run's bound: a fault at or after it never strikes
				   (0: none known) */
	int groups;		/* each group of QPs that share no link or switch with another
				   fast-forwarded on its own (0: the fabric as one) */
};

/* Why a span ended. */
enum ff_end_why {
	FF_END_DRY,   /* a QP delivered all that was posted on it */
	FF_END_POST,  /* a message posted on a QP that was not sending */
	FF_END_TOUCH, /* a fault, a storm: the network changed */
	FF_END_LIMIT, /* span_seqs sequences: its rates are watched again */
	FF_END_RUN,   /* the run's end */
	FF_END_N
};

struct ff_stats {
	uint64_t spans;	    /* steady spans skipped */
	uint64_t abandoned; /* holds given up: new traffic, a fault, no drain */
	simtime_t skipped;  /* simulated time advanced at steady rates */
	simtime_t drained;  /* time senders were held for the network to drain (no cost) */
	/* a span's length over the fewest packets a QP's rate was measured
	 * over, summed: what a rate known to a packet may move */
	simtime_t rate_err;
	/* a QP's packet interval, the longest of the span's, at each end;
	 * and the time senders were held for holds given up */
	simtime_t edge_err;
	uint64_t packets;	 /* data packets delivered without their events */
	uint64_t messages;	 /* messages completed in spans */
	uint64_t capped;	 /* QPs slowed to a port's line rate in a span */
	uint64_t ends[FF_END_N]; /* spans ended, by why */
};

/* The defaults: tolerance 1%, 3 windows of 20 us, spans of at most 64
 * times that. */
void ff_params_default(struct ff_params *p);
/* Watch @n's run (its queue, flows and NICs, made); NULL when out of
 * memory. The net must outlive it. */
struct ff *ff_new(struct net *n, const struct ff_params *p);
/* The run ends at @t (>= now): a span in progress is ended there. */
void ff_end(struct ff *f, simtime_t t);
/* Its groups' statistics, summed, but for the error (rate_err and
 * edge_err), the largest group's (borrowed: valid until the next call). */
const struct ff_stats *ff_stats(struct ff *f);
/* How many groups it watches (1: the whole fabric). */
uint32_t ff_groups(const struct ff *f);
/* Where it stands: watching the run, holding the senders while the
 * network drains, or in a span (the network empty, QPs on timelines);
 * with several groups, each stands where it does. */
enum ff_phase { FF_PHASE_WATCH, FF_PHASE_DRAIN, FF_PHASE_SPAN, FF_PHASE_GROUPS };
enum ff_phase ff_phase(const struct ff *f);
/* When the sequence of windows it watches began: a span extends the
 * steady state measured over the sequence before it. */
simtime_t ff_seq_t0(const struct ff *f);
/* The same of group @g (below ff_groups). */
enum ff_phase ff_group_phase(const struct ff *f, uint32_t g);
simtime_t ff_group_seq_t0(const struct ff *f, uint32_t g);
/* The group topology port @port is in (UINT32_MAX: none, no QP crosses
 * its link), and where that group stands (watching, for none). */
uint32_t ff_port_group(const struct ff *f, uint32_t port);
enum ff_phase ff_port_phase(const struct ff *f, uint32_t port);
void ff_free(struct ff *f);

#endif
