/* Event queue: ordering, ties by key, cancel, re-arm, the pool, and 1M events. */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "sim/engine/evq.h"

struct log {
	struct evq *q;
	uint64_t seen[64];
	simtime_t at[64];
	size_t n;
};

static void record(void *obj, uint64_t arg)
{
	struct log *l = obj;

	l->at[l->n] = evq_now(l->q);
	l->seen[l->n++] = arg;
}

Test(evq, runs_in_time_order)
{
	struct log l = {.q = evq_new()};

	cr_assert_not_null(evq_post(l.q, 30, record, &l, 3, 1));
	cr_assert_not_null(evq_post(l.q, 10, record, &l, 1, 3));
	cr_assert_not_null(evq_post(l.q, 20, record, &l, 2, 2));
	while (evq_step(l.q))
		;
	cr_assert_eq(l.n, 3);
	cr_assert_eq(l.seen[0], 1);
	cr_assert_eq(l.seen[1], 2);
	cr_assert_eq(l.seen[2], 3);
	cr_assert_eq(l.at[2], 30);
	cr_assert_eq(evq_fired(l.q), 3);
	evq_free(l.q);
}

/* Equal times run by key, not in the order they were scheduled: a later
 * post with a smaller key runs first. */
Test(evq, equal_times_run_in_key_order)
{
	struct log l = {.q = evq_new()};

	for (uint64_t i = 0; i < 40; i++)
		cr_assert_not_null(evq_post(l.q, i % 2 ? 100 : 50, record, &l, i,
					    evq_key(1, i, (unsigned)(40 - i))));
	while (evq_step(l.q))
		;
	cr_assert_eq(l.n, 40);
	for (size_t i = 0; i < 20; i++) {
		cr_assert_eq(l.seen[i], 38 - 2 * i, "tie %zu broken out of key order", i);
		cr_assert_eq(l.seen[20 + i], 39 - 2 * i);
	}
	evq_free(l.q);
}

/* A key compares by class, then timer, then owner; each field is masked to
 * its width. */
Test(evq, keys_compare_by_class_timer_owner)
{
	cr_assert_lt(evq_key(0, (1ULL << 44) - 1, 0xffff), evq_key(1, 0, 0));
	cr_assert_lt(evq_key(3, (1ULL << 44) - 1, 1), evq_key(3, 0, 2));
	cr_assert_lt(evq_key(3, 5, 1), evq_key(3, 6, 1));
	cr_assert_eq(evq_key(3, 1ULL << 44, 0), evq_key(3, 0, 0));
	cr_assert_eq(evq_key(17, 0, 0), evq_key(1, 0, 0));
}

Test(evq, cancel_removes_without_running)
{
	struct log l = {.q = evq_new()};
	struct evq_timer *a, *b;

	a = evq_post(l.q, 10, record, &l, 1, 1);
	b = evq_post(l.q, 20, record, &l, 2, 2);
	cr_assert_not_null(evq_post(l.q, 30, record, &l, 3, 3));
	evq_cancel(l.q, b);
	evq_cancel(l.q, a);
	cr_assert_eq(evq_size(l.q), 1);
	while (evq_step(l.q))
		;
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.seen[0], 3);
	evq_free(l.q);
}

/* Nothing runs past @until and the clock stays; an event armed afterwards
 * before the refused one (another part's packet, say) still runs first,
 * from the calendar or from the far heap alike. */
Test(evq, step_until_runs_nothing_later)
{
	struct log l = {.q = evq_new()};

	cr_assert_not_null(evq_post(l.q, 1000, record, &l, 1, 1));
	cr_assert_not_null(evq_post(l.q, 5000000000ULL, record, &l, 2, 2));
	cr_assert_eq(evq_step_until(l.q, 999), 0);
	cr_assert_eq(evq_now(l.q), 0);
	cr_assert_not_null(evq_post(l.q, 500, record, &l, 3, 3));
	cr_assert_eq(evq_step_until(l.q, 1000), 1);
	cr_assert_eq(evq_step_until(l.q, 1000), 1);
	cr_assert_eq(evq_step_until(l.q, 1000), 0);
	cr_assert_eq(evq_now(l.q), 1000);
	cr_assert_eq(evq_step_until(l.q, 4999999999ULL), 0);
	cr_assert_not_null(evq_post(l.q, 4000000000ULL, record, &l, 4, 4));
	while (evq_step_until(l.q, SIMTIME_NEVER))
		;
	cr_assert_eq(l.n, 4);
	cr_assert_eq(l.seen[0], 3);
	cr_assert_eq(l.seen[1], 1);
	cr_assert_eq(l.seen[2], 4);
	cr_assert_eq(l.seen[3], 2);
	cr_assert_eq(l.at[3], 5000000000ULL);
	evq_free(l.q);
}

/* An event that sets the halt flag, as a model flags the run loop. */
struct halting {
	struct log l;
	int halt;
	uint64_t halt_on; /* the arg whose event sets the flag */
};

static void record_and_halt(void *obj, uint64_t arg)
{
	struct halting *h = obj;

	record(&h->l, arg);
	if (arg == h->halt_on)
		h->halt = 1;
}

/*
 * evq_run runs events in order up to the stop time, returns after the
 * event that set the flag (the next one not run), and never runs more
 * than the limit on fired events allows.
 */
Test(evq, run_stops_after_the_flagging_event_at_the_limit_or_the_stop)
{
	struct halting h = {.l = {.q = evq_new()}, .halt_on = 3};
	struct evq *q = h.l.q;

	for (uint64_t i = 1; i <= 8; i++)
		cr_assert_not_null(evq_post(q, 100 * i, record_and_halt, &h, i, i));
	cr_assert_eq(evq_run(q, SIMTIME_NEVER, UINT64_MAX, &h.halt), 3);
	cr_assert_eq(h.l.n, 3);
	cr_assert_eq(evq_now(q), 300);
	h.halt = 0;
	cr_assert_eq(evq_run(q, SIMTIME_NEVER, evq_fired(q) + 2, &h.halt), 2, "the limit");
	cr_assert_eq(evq_fired(q), 5);
	cr_assert_eq(evq_run(q, 650, UINT64_MAX, &h.halt), 1, "the stop");
	cr_assert_eq(evq_now(q), 600);
	cr_assert_eq(evq_run(q, 650, UINT64_MAX, &h.halt), 0, "nothing due by the stop");
	cr_assert_eq(evq_run(q, SIMTIME_NEVER, UINT64_MAX, &h.halt), 2);
	cr_assert_eq(evq_run(q, SIMTIME_NEVER, UINT64_MAX, &h.halt), 0, "nothing left");
	cr_assert_eq(h.l.n, 8);
	for (size_t i = 0; i < 8; i++)
		cr_assert_eq(h.l.seen[i], i + 1);
	cr_assert_eq(evq_size(q), 0);
	evq_free(q);
}

/*
 * The peak is the most events pending at once, through growth of the
 * arrays and of the calendar's buckets, cancels and re-arms (an arm that
 * adds an event compares the count with one threshold).
 */
Test(evq, peak_is_the_most_pending_at_once)
{
	static struct evq_timer t[20000];
	struct log l = {.q = evq_new()};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t most = 0;

	for (size_t i = 0; i < 20000; i++)
		evq_timer_init(&t[i], NULL, NULL, i);
	for (size_t round = 0; round < 200000; round++) {
		size_t k = gsl_rng_uniform_int(r, round < 100000 ? 20000 : 5000);

		if (evq_pending(l.q, &t[k]) && gsl_rng_uniform_int(r, 3) == 0)
			evq_cancel(l.q, &t[k]);
		else
			cr_assert_eq(evq_arm(l.q, &t[k], gsl_rng_uniform_int(r, 1000000)), 0);
		if (evq_size(l.q) > most)
			most = evq_size(l.q);
	}
	cr_assert_eq(evq_peak(l.q), most);
	gsl_rng_free(r);
	evq_free(l.q);
}

Test(evq, rearm_moves_a_pending_timer)
{
	struct log l = {.q = evq_new()};
	struct evq_timer t;

	evq_timer_init(&t, record, &l, 0);
	t.arg = 9;
	cr_assert_eq(evq_arm(l.q, &t, 100), 0);
	cr_assert_not_null(evq_post(l.q, 50, record, &l, 1, 1));
	cr_assert_eq(evq_arm(l.q, &t, 10), 0); /* earlier */
	cr_assert_eq(evq_size(l.q), 2);
	cr_assert_eq(evq_peek(l.q), 10);
	evq_step(l.q);
	cr_assert_eq(l.seen[0], 9);
	cr_assert(!evq_pending(l.q, &t));
	cr_assert_eq(evq_arm(l.q, &t, 60), 0);
	cr_assert_eq(evq_arm(l.q, &t, 70), 0); /* later */
	while (evq_step(l.q))
		;
	cr_assert_eq(l.n, 3);
	cr_assert_eq(l.seen[1], 1);
	cr_assert_eq(l.at[2], 70);
	evq_free(l.q);
}

struct chk {
	struct evq *q;
	simtime_t last;
	uint64_t last_key;
	size_t n;
	int bad;
};

static void check_order(void *obj, uint64_t arg)
{
	struct chk *c = obj;
	simtime_t now = evq_now(c->q);

	if (now < c->last || (now == c->last && arg < c->last_key))
		c->bad++;
	c->last = now;
	c->last_key = arg;
	c->n++;
}

Test(evq, million_random_events_pop_in_order, .timeout = 60)
{
	struct chk c = {.q = evq_new()};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	const size_t n = 1000000;

	gsl_rng_set(r, 42);
	/* arg is the key, falling as they are posted: among equal times it
	 * must increase */
	for (size_t i = 0; i < n; i++)
		cr_assert_not_null(
		    evq_post(c.q, gsl_rng_uniform_int(r, 100000), check_order, &c, n - i, n - i));
	cr_assert_eq(evq_size(c.q), n);
	while (evq_step(c.q))
		;
	cr_assert_eq(c.n, n);
	cr_assert_eq(c.bad, 0, "%d events out of (time, key) order", c.bad);
	gsl_rng_free(r);
	evq_free(c.q);
}

struct churn {
	struct evq *q;
	gsl_rng *r;
	struct evq_timer t[64];
	size_t fired, bad;
};

static void churn_fire(void *obj, uint64_t arg)
{
	struct churn *c = obj;

	if (evq_now(c->q) != c->t[arg].when)
		c->bad++;
	if (++c->fired < 200000)
		c->bad += evq_arm(c->q, &c->t[arg],
				  evq_now(c->q) + 1 + gsl_rng_uniform_int(c->r, 1000)) != 0;
	/* move or cancel a random other timer */
	size_t k = gsl_rng_uniform_int(c->r, 64);
	if (evq_pending(c->q, &c->t[k]) && gsl_rng_uniform_int(c->r, 2))
		evq_cancel(c->q, &c->t[k]);
	else if (c->fired < 200000)
		c->bad +=
		    evq_arm(c->q, &c->t[k], evq_now(c->q) + gsl_rng_uniform_int(c->r, 500)) != 0;
}

Test(evq, rearm_and_cancel_churn_keeps_heap_valid)
{
	struct churn c = {.q = evq_new(), .r = gsl_rng_alloc(gsl_rng_mt19937)};

	for (size_t i = 0; i < 64; i++) {
		evq_timer_init(&c.t[i], churn_fire, &c, i);
		c.t[i].arg = i;
		cr_assert_eq(evq_arm(c.q, &c.t[i], i), 0);
	}
	while (evq_step(c.q))
		;
	cr_assert_eq(c.bad, 0);
	cr_assert_geq(c.fired, 200000);
	cr_assert_eq(evq_size(c.q), 0);
	gsl_rng_free(c.r);
	evq_free(c.q);
}

struct self {
	struct evq *q;
	struct evq_timer t;
	int fired, pending_inside;
};

static void self_fire(void *obj, uint64_t arg)
{
	struct self *s = obj;

	(void)arg;
	s->fired++;
	s->pending_inside += evq_pending(s->q, &s->t);
	if (s->fired < 3)
		cr_assert_eq(evq_arm(s->q, &s->t, evq_now(s->q) + 5), 0);
}

Test(evq, a_timer_rearmed_from_its_callback_fires_again)
{
	struct self s = {.q = evq_new()};
	struct log other = {.q = s.q};

	evq_timer_init(&s.t, self_fire, &s, 0);
	cr_assert_eq(evq_arm(s.q, &s.t, 10), 0);
	cr_assert_not_null(evq_post(s.q, 12, record, &other, 0, 1));
	while (evq_step(s.q))
		;
	cr_assert_eq(s.fired, 3);
	cr_assert_eq(s.pending_inside, 0, "a running timer is not pending");
	cr_assert_eq(evq_now(s.q), 20);
	cr_assert_eq(evq_size(s.q), 0);
	evq_free(s.q);
}

/*
 * The queue's two levels (calendar buckets near, a heap beyond) and its
 * resizing must not change the order: phases of very dense events (gaps of
 * a few ps), sparse ones (ms apart) and near events mixed with far timers
 * (1 s ahead), with moves and cancels, always fire in (time, key) order:
 * among events of one time, by key, except that one armed for the present
 * instant by an event of it runs after that event, whatever its key.
 */
struct phases {
	struct evq *q;
	gsl_rng *r;
	struct evq_timer t[1000];
	simtime_t armed_at[1000];
	simtime_t last;
	uint64_t last_key;
	size_t fired, bad;
};

static simtime_t phase_delay(struct phases *p)
{
	switch ((p->fired / 40000) % 3) {
	case 0:
		return gsl_rng_uniform_int(p->r, 100);
	case 1:
		return gsl_rng_uniform_int(p->r, 1000000) * 10000; /* up to 10 ms */
	default:
		return gsl_rng_uniform_int(p->r, 16) ? gsl_rng_uniform_int(p->r, 1000000)
						     : 1000000000000UL;
	}
}

static void phase_fire(void *obj, uint64_t arg)
{
	struct phases *p = obj;
	simtime_t now = evq_now(p->q);

	if (now < p->last ||
	    (now == p->last && p->t[arg].key < p->last_key && p->armed_at[arg] < now) ||
	    now != p->t[arg].when)
		p->bad++;
	p->last = now;
	p->last_key = p->t[arg].key;
	if (++p->fired >= 300000)
		return;
	p->armed_at[arg] = now;
	p->bad += evq_arm(p->q, &p->t[arg], now + phase_delay(p)) != 0;
	if (!gsl_rng_uniform_int(p->r, 8)) {
		size_t k = gsl_rng_uniform_int(p->r, 1000);

		if (evq_pending(p->q, &p->t[k]) && gsl_rng_uniform_int(p->r, 2))
			evq_cancel(p->q, &p->t[k]);
		else {
			p->armed_at[k] = now;
			p->bad += evq_arm(p->q, &p->t[k], now + phase_delay(p)) != 0;
		}
	}
}

Test(evq, dense_sparse_and_far_phases_keep_time_and_key_order)
{
	struct phases p = {.q = evq_new(), .r = gsl_rng_alloc(gsl_rng_mt19937)};
	size_t pending = 0;

	for (size_t i = 0; i < 1000; i++) {
		evq_timer_init(&p.t[i], phase_fire, &p, (i * 7919) % 1000); /* keys shuffled */
		p.t[i].arg = i;
		cr_assert_eq(evq_arm(p.q, &p.t[i], gsl_rng_uniform_int(p.r, 50)), 0);
	}
	while (evq_step(p.q))
		;
	cr_assert_eq(p.bad, 0, "%zu events out of order", p.bad);
	cr_assert_geq(p.fired, 300000);
	for (size_t i = 0; i < 1000; i++)
		pending += evq_pending(p.q, &p.t[i]);
	cr_assert_eq(pending, 0);
	cr_assert_eq(evq_size(p.q), 0);
	gsl_rng_free(p.r);
	evq_free(p.q);
}

/*
 * Many events of one time armed in any key order (a symmetric fabric's),
 * some while their time is being popped: each comes out in key order, and
 * the bucket they share is sorted when it is reached, not walked per arm.
 */
struct crowd {
	struct evq *q;
	struct evq_timer t[4096];
	uint64_t last_key;
	simtime_t last;
	size_t fired, bad, rearmed;
};

static void crowd_fire(void *obj, uint64_t arg)
{
	struct crowd *c = obj;
	simtime_t now = evq_now(c->q);

	if (now < c->last || (now == c->last && c->t[arg].key < c->last_key))
		c->bad++;
	c->last = now;
	c->last_key = c->t[arg].key;
	c->fired++;
	/* one in eight arms another of the crowd for this same instant, after it */
	if (arg % 8 == 0 && arg + 1 < 4096 && !evq_pending(c->q, &c->t[arg + 1]) &&
	    c->t[arg + 1].key > c->t[arg].key && c->rearmed < 100) {
		c->rearmed++;
		c->bad += evq_arm(c->q, &c->t[arg + 1], now) != 0;
	}
}

Test(evq, a_crowd_of_one_time_in_any_key_order_pops_in_key_order)
{
	struct crowd c = {.q = evq_new()};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t order[4096];

	for (size_t i = 0; i < 4096; i++) {
		evq_timer_init(&c.t[i], crowd_fire, &c, evq_key(3, i, 0));
		c.t[i].arg = i;
		order[i] = i;
	}
	gsl_ran_shuffle(r, order, 4096, sizeof(order[0]));
	/* three instants 1 ps apart, each timer in one, armed in shuffled order */
	for (size_t i = 0; i < 4096; i++)
		cr_assert_eq(evq_arm(c.q, &c.t[order[i]], 1000 + order[i] % 3), 0);
	while (evq_step(c.q))
		;
	cr_assert_eq(c.bad, 0, "%zu events out of (time, key) order", c.bad);
	cr_assert_eq(c.fired, 4096 + c.rearmed);
	gsl_rng_free(r);
	evq_free(c.q);
}

/*
 * The events of one time armed in a few ascending runs of keys (each kind
 * of event arms its own in key order, as a fabric does), one bucket of
 * them small enough for insertion sort and others merged: each pops in key
 * order.
 */
Test(evq, a_bucket_of_ascending_runs_pops_in_key_order)
{
	static const size_t runs[] = {2, 3, 7, 40};

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct crowd *c = calloc(1, sizeof(*c));
		size_t n = k ? 4096 : 12; /* 12: below the insertion sort's bound */

		cr_assert_not_null(c);
		c->q = evq_new();
		for (size_t i = 0; i < n; i++) {
			evq_timer_init(&c->t[i], crowd_fire, c, evq_key(3, i, 0));
			c->t[i].arg = i;
		}
		for (size_t r = 0; r < runs[k]; r++)
			for (size_t i = r; i < n; i += runs[k])
				cr_assert_eq(evq_arm(c->q, &c->t[i], 5000 + (i & 1)), 0);
		while (evq_step(c->q))
			;
		cr_assert_eq(c->bad, 0, "%zu runs: %zu events out of (time, key) order", runs[k],
			     c->bad);
		cr_assert_eq(c->fired, n + c->rearmed);
		evq_free(c->q);
		free(c);
	}
}

static void record_when(void *obj, uint64_t arg)
{
	struct log *l = obj;

	l->at[l->n] = evq_now(l->q);
	l->seen[l->n++] = arg;
}

/* Held timers (near, far and pooled alike) leave the queue unrun and come
 * back, moved on, in the order of their new times. */
Test(evq, hold_sets_a_class_aside_and_it_comes_back_moved_on)
{
	struct log l = {.q = evq_new()};
	struct evq_timer t[40], **held = NULL;
	size_t n = 0;

	for (unsigned i = 0; i < 40; i++) {
		evq_timer_init(&t[i], record_when, &l, evq_key(1 + i % 2, i, 0));
		t[i].arg = i;
		/* spread over the calendar and far beyond it */
		cr_assert_eq(evq_arm(l.q, &t[i], (simtime_t)(i + 1) * (i % 3 ? 1000 : 10000000)),
			     0);
	}
	cr_assert_not_null(evq_post(l.q, 5, record_when, &l, 100, evq_key(2, 99, 1)));
	cr_assert_eq(evq_hold(l.q, 1u << 2, &held, &n), 0);
	cr_assert_eq(n, 21);
	cr_assert_eq(evq_size(l.q), 20);
	while (evq_step(l.q))
		;
	cr_assert_eq(l.n, 20);
	for (size_t i = 0; i < l.n; i++)
		cr_assert_eq(l.seen[i] % 2, 0, "only class 1 ran");
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(evq_arm(l.q, held[i], held[i]->when + 1000000000), 0);
	free(held);
	l.n = 0;
	while (evq_step(l.q))
		;
	cr_assert_eq(l.n, 21);
	cr_assert_eq(l.seen[0], 100, "the pooled one, earliest");
	cr_assert_eq(l.at[0], 1000000005);
	for (size_t i = 1; i < l.n; i++) {
		cr_assert(l.at[i] > l.at[i - 1]);
		cr_assert_eq(l.seen[i] % 2, 1);
		cr_assert_eq(l.at[i],
			     (l.seen[i] + 1) * (l.seen[i] % 3 ? 1000 : 10000000) + 1000000000);
	}
	cr_assert_eq(evq_hold(l.q, 1u << 2, &held, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_null(held);
	evq_free(l.q);
}
