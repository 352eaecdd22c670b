/*
 * Fast-forward's state, shared by its detector (ff.c) and its span
 * (ff_span.c). Internal to them: see ff.h.
 */
#ifndef ROCESIM_FF_IMPL_H
#define ROCESIM_FF_IMPL_H

#include <stdint.h>

#include "sim/engine/checked.h"
#include "models/ff.h"
#include "models/mctx.h"

struct flow;
struct net;
struct ff_group;

/* While draining, how often it looks whether the network is empty. */
#define FF_POLL (500 * SIMTIME_NS)

enum ff_state { FF_WATCH, FF_DRAIN, FF_SPAN };

/* What the detector keeps of a QP. */
struct ff_qp {
	uint32_t last;	 /* epsn at the last window's end */
	uint32_t at0;	 /* ... at the sequence's start */
	uint32_t lo, hi; /* fewest and most packets a window of the sequence delivered */
	/* the sender at the sequence's start: packets sent, and when the last
	 * of them left (its rate is measured between two packets, exactly) */
	uint32_t snd0;
	simtime_t tx0;
	uint64_t rc0; /* its DCQCN rate at the sequence's start */
	/* a collective's QP: how long it waited for its next message in the
	 * sequence (all it had posted sent), and the last such wait, which
	 * ended at wait_at (not the sender's if it sent nothing after) */
	simtime_t wait, wait_last, wait_at;
	/* epsn a window before the hold (when the counters were saved) and
	 * at the hold */
	uint32_t at_s, at_h;
	/* its rate in the last span it ran in, and that span's number */
	uint64_t rp;
	simtime_t rt;
	uint64_t rspan;
	uint64_t cnp_was; /* its CNPs handled when a span ended, before its count moved */
};

/* A span that ran its whole length, whose rates the next sequence finds
 * again, lets the next one run twice as long, up to this many times. */
#define FF_LONGER_MAX 64

/*
 * A QP advanced by a span, at p packets every t ps while it has packets
 * posted. A collective's QP may run dry in a span and wait for its next
 * message, as a ring's does for its neighbour's data: it then goes on
 * from the post, so its timeline is jb packets at time b, and p every t
 * after.
 */
struct ff_run {
	struct flow *f;
	uint32_t x; /* epsn when the span began */
	uint64_t p;
	simtime_t t;
	simtime_t b;	      /* the timeline's base ... */
	uint32_t jb;	      /* ... and the packets delivered by then */
	uint32_t room;	      /* the packets it may deliver, as of its last post */
	simtime_t dry;	      /* when it will have delivered them */
	int waited;	      /* it ran dry and waited in this span */
	simtime_t pipe;	      /* a data packet's latency on its empty path */
	struct evq_timer *ev; /* its next message's completion, pooled */
};

/*
 * A group: QPs and the links they cross, joined wherever two share a link
 * (engine.fast_forward.groups), or the whole fabric as one. It watches,
 * drains and spans on its own; its QPs' and ports' entries in the shared
 * arrays below are its alone.
 */
struct ff_group {
	struct ff *set;
	uint32_t id;
	int whole;	     /* the whole fabric: the run's totals move with it */
	uint32_t *flows, nf; /* its QPs, by flow index */
	uint32_t *ports, np; /* its ports, by topology port index */
	uint32_t *hosts, nh; /* its NICs, by host index */
	struct net *net;
	struct evq *q;
	struct ff_params prm;
	struct ff_stats st;
	enum ff_state state;
	struct evq_timer tick; /* a window's end; while draining, the poll */
	struct evq_timer exit; /* the span's end */
	uint32_t n_windows;    /* windows in the current sequence */
	simtime_t t0, th, td;  /* the sequence's start, the hold, the span's start */
	simtime_t ts;	       /* when s0 was saved in the sequence, or 0 */
	simtime_t drain_max;   /* a hold waits this long for the drain at most */
	simtime_t cap;	       /* the span's longest end (span_seqs) */
	simtime_t coll_dry;    /* when the last collective QP runs dry, or 0 */
	simtime_t plain_dry;   /* the first of the cap and the flows' QPs running dry */
	uint32_t longer;       /* this span may last longer times span_seqs sequences */
	int exit_later;	       /* 1: the end waits for messages completing now; 2: waited */
	uint32_t last_runs;    /* QPs the last span advanced */
	enum ff_end_why last_end;
	uint64_t cnp0;	     /* CNPs handled at the sequence's start */
	struct ff_qp *qp;    /* per flow (shared) */
	uint32_t *run_of;    /* per flow: its index in runs + 1, or 0 (shared) */
	struct ff_run *runs; /* as many as its QPs */
	uint32_t n_runs;
	/* the counters extrapolated over a span, and their values a window
	 * before the hold (at ts), at the hold and at the span's start */
	uint64_t **ctr;
	uint64_t *s0, *sh, *sd;
	size_t n_ctr;
	struct evq_timer **held;
	size_t n_held;
	/* shared, used within one call: */
	uint64_t *load;	       /* per port: the bits/s the span's QPs put on it */
	struct ff_run **order; /* the runs, by collective (pool_rates) */
	uint32_t *path;	       /* a path's ports (ff_traffic.c), as many as ports */
	int8_t *path_tc;       /* ... their classes at switches, or -1 */
};

/* The fast-forward of a run (ff.h): its groups, and what they share. */
struct ff {
	struct net *net;
	struct ff_params prm;
	struct ff_stats st; /* the groups', summed (ff_stats) */
	struct ff_group **g;
	uint32_t n_groups;
	uint32_t *flow_group; /* per flow: its group, or UINT32_MAX */
	uint32_t *port_group; /* per port: its group, or UINT32_MAX */
	struct ff_qp *qp;
	uint32_t *run_of;
	uint64_t *load;
	struct ff_run **order;
	uint32_t *path;
	int8_t *path_tc;
};

/* @a x @b / @c without overflow (c > 0). */
static inline uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((ck_u128)a * b / c);
}

/* Whether a fault at @at strikes within the run (before its stop). */
static inline int ff__strikes(const struct ff_group *f, simtime_t at)
{
	return !f->prm.stop || at < f->prm.stop;
}

/* ff_watch.c: the watch */
void ff__seq_start(struct ff_group *f, simtime_t now);
void ff__hold_nics(struct ff_group *f, int on);
void ff__abandon(struct ff_group *f);
void ff__ctr_save(const struct ff_group *f, uint64_t *to);
/* The CNPs its NICs handled (the run's, for the whole fabric). */
uint64_t ff__cnp_handled(const struct ff_group *f);
/* A full data packet's latency on @fl's empty path (with @back, the way
 * its ACKs take), store and forward; SIMTIME_NEVER when there is none. */
simtime_t ff__path(const struct net *n, const struct flow *fl, int back);
/* The ports that path leaves by, the first @max of them (a longer path's
 * last ones are left out): how many it wrote, 0 when there is none. */
uint32_t ff__path_ports(const struct net *n, const struct flow *fl, int back, uint32_t *ports,
			uint32_t max);

/* ff_span.c: the span */
void ff__span_begin(struct ff_group *f);
void ff__span_end(struct ff_group *f, simtime_t tx, enum ff_end_why why);
void ff__span_post(struct ff_group *f, struct flow *fl);
void ff__on_exit(void *obj, uint64_t arg);

/* ff_traffic.c: a span's packets on the ports they crossed, exactly.
 * ff__traffic_run counts @k packets @fl delivers (from its epsn, before
 * nic_ff_advance) and their ACKs; ff__traffic_save, before the span's
 * extrapolation, and ff__traffic_ctrl, after it, put its CNPs and PAUSE
 * frames on their ports. */
void ff__traffic_run(struct ff_group *f, struct flow *fl, uint32_t k);
void ff__traffic_save(struct ff_group *f);
void ff__traffic_ctrl(struct ff_group *f);

#endif
