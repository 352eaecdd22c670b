/*
 * evq: a two-level event queue ordered by (when, key), plus a pool of
 * one-off events.
 *
 * Near events sit in a calendar (Brown, "Calendar queues", CACM 1988): a
 * ring of buckets of 2^shift ps covering bucket numbers [cur, cur + nb)
 * from the clock's; a bucket is a list sorted by (when, key) (an event
 * walks back past at most KEY_WALK larger keys of its time; a bucket whose
 * events of one time came further out of key order is sorted once, when
 * reached: sort_bucket), and a two-level bitmap finds the next non-empty
 * one. Events beyond the window wait in a binary min-heap (the far heap)
 * and move into the calendar as the window reaches them, so every calendar
 * event is earlier than every heap event. Every 4096 events the width is
 * set to about twice the mean gap between events, and the count to twice
 * the events it is sized for (sized_for) and enough for the window to hold
 * nine arms in ten (adapt); an insertion that walks past more than CROWDED
 * later entries makes the buckets 16x narrower at once. A bucket then
 * holds one or two events, insertion and removal cost O(1) whatever the
 * number pending, and only timers far ahead (DCQCN, retransmission,
 * sampling) pay the heap's O(log n). Sized for many events, the calendar's
 * buckets are misses to memory: an arm then waits in a short ring while
 * its bucket is prefetched (ring_push) and a pop prefetches the buckets
 * after its own. Known weaknesses: a width set for one phase of a run is
 * wrong for the next until the next check; beyond about a million pending
 * the misses the ring overlaps still bound the speed, as the heap's lower
 * levels do; many events of one time armed out of key order (a symmetric
 * fabric's) cost a sort, each read once more when reached.
 *
 * Built with -DEVQ_WHEEL=0 (experiments/bench/evq_bench_heap), everything
 * goes to the heap: the binary heap alone, for comparison; with
 * -DEVQ_RING_FROM=0 (tests/test_evq_ring), every arm goes through the ring.
 */
#include "sim/engine/evq.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/evq_impl.h"
#include "sim/engine/evq_pool.h"
#include "sim/engine/evq_sort.h"
#include "sim/engine/mem.h"

#ifndef EVQ_WHEEL
#define EVQ_WHEEL 1
#endif

#define ADAPT_EVERY 4096
#define NB_MIN ((size_t)1 << 8)
#define NB_MAX ((size_t)1 << 24)       /* 128 MiB of buckets, for 8 M pending */
#define WIDE_PENDING ((size_t)1 << 17) /* beyond: one event a bucket (adapt), not two */
#define SHIFT_INIT 16		       /* 65.5 ns until the first measurement */
#define SHIFT_MAX 40
#define CROWDED 512 /* later entries one insertion passes that call for narrower buckets */
#define KEY_WALK 8  /* larger keys of its time an insertion walks past, then sorts */
#ifndef EVQ_RING_FROM
#define EVQ_RING_FROM ((size_t)1 << 17) /* sized for more: arms go through the ring */
#endif
#define POP_AHEAD 2 /* with the ring, a pop prefetches the first this many buckets on */

/* ---- the far heap ---- */

static inline int entry_before(const struct evq_entry *a, const struct evq_entry *b)
{
	return a->when < b->when || (a->when == b->when && a->t->key < b->t->key);
}

static inline void place(struct evq *q, size_t i, struct evq_entry e)
{
	q->heap[i] = e;
	e.t->slot = (uint32_t)(i + 1);
}

static void sift_up(struct evq *q, size_t i, struct evq_entry e)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!entry_before(&e, &q->heap[parent]))
			break;
		place(q, i, q->heap[parent]);
		i = parent;
	}
	place(q, i, e);
}

static void sift_down(struct evq *q, size_t i, struct evq_entry e)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->n_heap)
			break;
		if (c + 1 < q->n_heap && entry_before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!entry_before(&q->heap[c], &e))
			break;
		place(q, i, q->heap[c]);
		i = c;
	}
	place(q, i, e);
}

/* The heap's first changed: its bucket number, which migrate compares. */
static inline void heap_first_moved(struct evq *q)
{
	q->heap_from = q->n_heap ? q->heap[0].when >> q->shift : UINT64_MAX;
}

/* What the calendar is sized for: its events and the heap's up to as many
 * (a million DCQCN timers far ahead would spread the near ones thin). */
static inline size_t sized_for(const struct evq *q)
{
	return q->n_wheel + (q->n_heap < q->n_wheel ? q->n_heap : q->n_wheel);
}

/* hi from what it stands for (evq_arm's slow path); its buckets' part is a
 * hint: adapt looks again every ADAPT_EVERY events. */
static void set_hi(struct evq *q)
{
	size_t hi = q->peak < q->room ? q->peak : q->room, sf = sized_for(q);
	size_t to_nb = q->n + (2 * q->nb > sf ? 2 * q->nb - sf : 1);

	if (q->nb && q->nb < NB_MAX && to_nb < hi)
		hi = to_nb;
	q->hi = hi;
}

static void heap_remove(struct evq *q, struct evq_timer *t)
{
	size_t i = t->slot - 1;
	struct evq_entry last;

	t->slot = 0;
	last = q->heap[--q->n_heap];
	if (i != q->n_heap) {
		if (i > 0 && entry_before(&last, &q->heap[(i - 1) / 2]))
			sift_up(q, i, last);
		else
			sift_down(q, i, last);
	}
	if (!i)
		heap_first_moved(q);
}

/* The heap has room (evq_arm grows it first). */
static void heap_push(struct evq *q, struct evq_timer *t)
{
	struct evq_entry e = {t->when, t};

	sift_up(q, q->n_heap++, e);
	if (q->heap[0].t == t)
		heap_first_moved(q);
}

static int heap_reserve(struct evq *q, size_t n)
{
	size_t cap = q->cap;
	struct evq_entry *h;

	if (n <= cap)
		return 0;
	while (cap < n)
		cap *= 2;
	h = realloc(q->heap, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	q->heap = h;
	q->cap = cap;
	return 0;
}

/* ---- the calendar ---- */

static inline size_t wheel_index(const struct evq *q, simtime_t when)
{
	return (size_t)(when >> q->shift) & (q->nb - 1);
}

static inline int in_window(const struct evq *q, simtime_t when)
{
	return (when >> q->shift) - q->cur < q->nb;
}

/* Bucket @i holds events of one time out of key order (the count first:
 * it is mostly 0). */
static inline int is_unsorted(const struct evq *q, size_t i)
{
	return q->n_unsorted && (q->unsorted[i >> 6] & (1ULL << (i & 63)));
}

/* @t into a list after @p. */
static inline void link_after(struct evq_timer *t, struct evq_timer *p)
{
	t->prev = p;
	t->next = p->next;
	p->next->prev = t;
	p->next = t;
}

/* File @t in its bucket; returns the list steps it took past later times
 * (crowding). */
static inline __attribute__((always_inline)) unsigned wheel_put(struct evq *q, struct evq_timer *t)
{
	size_t i = wheel_index(q, t->when);
	struct evq_timer *h = q->bucket[i], *p;
	unsigned steps = 0;

	t->wheel = 1;
	q->n_wheel++;
	if (!h) {
		t->next = t->prev = t;
		q->bucket[i] = t;
		q->bits[i >> 6] |= 1ULL << (i & 63);
		q->sum[i >> 12] |= 1ULL << ((i >> 6) & 63);
		return 0;
	}
	/* From the last, past later times only (new events are mostly the
	 * latest); past at most KEY_WALK larger keys of its time, else last,
	 * the bucket sorted once when popped (sort_bucket): many events of one
	 * time (a symmetric fabric's) come in any key order, and a walk each
	 * would cost their number squared. Narrower buckets part later times
	 * (crowding), never one time. */
	for (p = h->prev; p->when > t->when; p = p->prev) {
		steps++;
		if (p == h)
			goto first;
	}
	if (p->when == t->when && p->key > t->key && !is_unsorted(q, i)) {
		struct evq_timer *x = p;
		unsigned k = 0;

		do {
			if (x == h)
				goto first;
			x = x->prev;
		} while (++k <= KEY_WALK && x->when == t->when && x->key > t->key);
		if (k <= KEY_WALK) {
			p = x;
		} else {
			q->unsorted[i >> 6] |= 1ULL << (i & 63);
			q->n_unsorted++;
		}
	}
	assert((p->when != t->when || p->key != t->key) &&
	       "two pending timers share a time and key");
	link_after(t, p);
	return steps;
first:
	/* the new earliest: after the last, i.e. first */
	q->bucket[i] = t;
	link_after(t, h->prev);
	return steps;
}

/* @t out of the list of bucket @i, its own (@head: t is its first). */
static inline void bucket_unlink(struct evq *q, struct evq_timer *t, size_t i, int head)
{
	t->wheel = 0;
	q->n_wheel--;
	if (t->next == t) {
		q->bucket[i] = NULL;
		q->bits[i >> 6] &= ~(1ULL << (i & 63));
		if (!q->bits[i >> 6])
			q->sum[i >> 12] &= ~(1ULL << ((i >> 6) & 63));
		return;
	}
	t->prev->next = t->next;
	t->next->prev = t->prev;
	if (head || q->bucket[i] == t)
		q->bucket[i] = t->next;
}

static void wheel_remove(struct evq *q, struct evq_timer *t)
{
	bucket_unlink(q, t, wheel_index(q, t->when), 0);
}

/*
 * Sort bucket @i's list by (when, key): its timers into the scratch array
 * (each read once; the list walked from both ends at once so that two
 * misses are outstanding, not one; evq_arm keeps the array as large as
 * the events pending), sorted there, linked again.
 */
static __attribute__((noinline)) void sort_list(struct evq *q, size_t i)
{
	struct evq_timer *f = q->bucket[i], *b = f->prev;
	struct sort_entry *v = q->scratch, *tmp;
	size_t lo = 0, hi = q->n_scratch, n, k;

	q->unsorted[i >> 6] &= ~(1ULL << (i & 63));
	q->n_unsorted--;
	/* forward into v[0..lo); beyond SORT_SMALL, from both ends: forward
	 * on, backward into v[hi..), until they meet */
	do {
		v[lo++] = (struct sort_entry){f->when, f->key, f};
		f = f->next;
	} while (f != q->bucket[i] && lo < SORT_SMALL);
	n = lo;
	if (f != q->bucket[i]) {
		for (;;) {
			v[lo++] = (struct sort_entry){f->when, f->key, f};
			if (f == b)
				break;
			v[--hi] = (struct sort_entry){b->when, b->key, b};
			f = f->next;
			if (f == b)
				break;
			b = b->prev;
		}
		n = lo + q->n_scratch - hi;
		memmove(v + lo, v + hi, (n - lo) * sizeof(*v));
	}
	/* merged through the rest of the array when it has room (a bucket of
	 * at most half the events pending), else sorted in place; by key alone
	 * when every event has the same time (the crowded buckets do: a list
	 * is always in time order, so its first and last tell) */
	tmp = 2 * n <= q->n_scratch ? v + n : NULL;
	v = v[0].when == v[0].t->prev->when ? sort_entries(v, tmp, n, 1)
					    : sort_entries(v, tmp, n, 0);
	for (k = 0; k + 1 < n; k++) {
		v[k].t->next = v[k + 1].t;
		v[k + 1].t->prev = v[k].t;
	}
	v[n - 1].t->next = v[0].t;
	v[0].t->prev = v[n - 1].t;
	q->bucket[i] = v[0].t;
}

/* Bucket @i sorted if it is out of order (the check inline, the sort not:
 * the pop path stays small). */
static inline void sort_bucket(struct evq *q, size_t i)
{
	if (is_unsorted(q, i))
		sort_list(q, i);
}

/* First non-empty bucket at or after @i, or nb. */
static __attribute__((noinline)) size_t next_bucket_from(const struct evq *q, size_t i)
{
	size_t w = i >> 6, s;
	uint64_t m;

	m = q->bits[w] & (~0ULL << (i & 63));
	if (m)
		return (w << 6) | (size_t)__builtin_ctzll(m);
	w++;
	if ((w << 6) >= q->nb)
		return q->nb;
	s = w >> 6;
	m = q->sum[s] & (~0ULL << (w & 63));
	for (;;) {
		if (m) {
			w = (s << 6) | (size_t)__builtin_ctzll(m);
			return (w << 6) | (size_t)__builtin_ctzll(q->bits[w]);
		}
		if (++s << 12 >= q->nb)
			return q->nb;
		m = q->sum[s];
	}
}

/* The earliest bucket of the calendar (which is not empty), sorted; the
 * clock's word of the bitmap looked at inline (it mostly holds it). */
static inline size_t first_bucket(struct evq *q)
{
	size_t start = (size_t)q->cur & (q->nb - 1), i;
	uint64_t m = q->bits[start >> 6] & (~0ULL << (start & 63));

	if (m) {
		i = (start & ~(size_t)63) | (size_t)__builtin_ctzll(m);
	} else {
		i = next_bucket_from(q, start);
		if (i >= q->nb)
			i = next_bucket_from(q, 0);
	}
	sort_bucket(q, i);
	return i;
}

/* The window moved: bring in the heap's events it now covers. */
static inline void migrate(struct evq *q)
{
	while (q->heap_from - q->cur < q->nb) {
		struct evq_timer *t = q->heap[0].t;

		heap_remove(q, t);
		wheel_put(q, t);
	}
}

/*
 * Set the calendar to @nb buckets of 2^@shift ps and re-file every event.
 * Keeps the old calendar when memory runs short (only speed suffers).
 */
static void rebuild(struct evq *q, size_t nb, unsigned shift)
{
	size_t nsum = (nb + 4095) >> 12, onb = q->nb, first = (size_t)q->cur & (onb - 1);
	struct evq_timer **bucket = mem_zalloc_lines(nb, sizeof(*bucket)), **obucket = q->bucket;
	uint64_t *bits = calloc(nb / 64, sizeof(*bits)), *sum = calloc(nsum, sizeof(*sum));
	uint64_t *unsorted = calloc(nb / 64, sizeof(*unsorted));
	size_t left = q->n_wheel;

	if (!bucket || !bits || !sum || !unsorted || heap_reserve(q, q->n_heap + q->n_wheel)) {
		free(bucket);
		free(bits);
		free(sum);
		free(unsorted);
		return;
	}
	free(q->bits);
	free(q->sum);
	free(q->unsorted);
	q->bucket = bucket;
	q->bits = bits;
	q->sum = sum;
	q->unsorted = unsorted;
	q->n_unsorted = 0;
	q->nb = nb;
	q->arm_nb = q->ring_on ? 0 : nb;
	q->shift = shift;
	heap_first_moved(q);
	q->cur = q->now >> shift;
	q->n_wheel = 0;
	/* The old events in (time, key) order (buckets from the clock's on,
	 * each list in order): each goes last in its new bucket, or to the heap
	 * when beyond the new window. */
	for (size_t k = 0; left && k < onb; k++) {
		struct evq_timer *h = obucket[(first + k) & (onb - 1)], *t, *nx;

		if (!h)
			continue;
		h->prev->next = NULL;
		for (t = h; t; t = nx) {
			nx = t->next;
			t->wheel = 0;
			left--;
			if (in_window(q, t->when))
				wheel_put(q, t);
			else
				heap_push(q, t);
		}
	}
	free(obucket);
	migrate(q);
	set_hi(q);
}

/* ---- the ring: arms filed late, their misses overlapped ---- */

/* The ring's oldest arm (unless cancelled) into the calendar, or the far
 * heap if the window shrank meanwhile. */
static void ring_file(struct evq *q)
{
	struct evq_timer *t = q->ring[q->ring_r++ & (RING - 1)];

	if (q->ring_r == q->ring_w)
		q->ring_min = SIMTIME_NEVER;
	if (!t)
		return;
	t->wheel = 0;
	t->slot = 0;
	if (!in_window(q, t->when))
		heap_push(q, t);
	else if (wheel_put(q, t) > CROWDED && q->shift > 0)
		rebuild(q, q->nb, q->shift > 4 ? q->shift - 4 : 0); /* buckets 16x narrower */
}

static void ring_drain(struct evq *q)
{
	while (q->ring_r != q->ring_w)
		ring_file(q);
}

/*
 * @t (in the window) into the ring. With many events pending, filing one
 * costs a miss to memory for its bucket's slot, one for the bucket's first
 * and one for its last, each waiting for the one before; in the ring they
 * are prefetched RING_STEP arms apart and the arm filed 3 RING_STEP arms
 * later, so that the misses of a dozen arms overlap. The order is the same:
 * a pop first files them all if the earliest could come before its event.
 */
static inline void ring_push(struct evq *q, struct evq_timer *t)
{
	uint64_t w = q->ring_w++;
	struct evq_timer *x, *h;

	q->ring[w & (RING - 1)] = t;
	t->wheel = 2;
	t->slot = (uint32_t)(w & (RING - 1)) + 1;
	if (t->when < q->ring_min)
		q->ring_min = t->when;
	__builtin_prefetch(&q->bucket[wheel_index(q, t->when)]);
	if (w - q->ring_r < RING_STEP)
		return;
	x = q->ring[(w - RING_STEP) & (RING - 1)];
	if (x && (h = q->bucket[wheel_index(q, x->when)]))
		__builtin_prefetch(h);
	if (w - q->ring_r < 2 * RING_STEP)
		return;
	x = q->ring[(w - 2 * RING_STEP) & (RING - 1)];
	if (x && (h = q->bucket[wheel_index(q, x->when)]))
		__builtin_prefetch(h->prev);
	if (w - q->ring_r >= 3 * RING_STEP)
		ring_file(q);
}

/* The ring on or off (off: what it holds filed); an arm in the window
 * compares with arm_nb, so that one comparison also tells the ring is on. */
static void ring_set(struct evq *q, int on)
{
	q->ring_on = on;
	q->arm_nb = on ? 0 : q->nb;
	if (!on)
		ring_drain(q);
}

static unsigned log2_floor(uint64_t x)
{
	return x ? 63u - (unsigned)__builtin_clzll(x) : 0;
}

/*
 * Every ADAPT_EVERY events: the width from the mean gap between events
 * (two events a bucket; one beyond WIDE_PENDING pending, whose list
 * neighbours are misses to memory); the span covered doubled while more than
 * one arm in ten lands beyond it (in the heap) and halved while fewer than
 * one in 200 do; the count from the two, and at least two buckets an event
 * it is sized for. Rebuilt only when the width is off by 8x, too few
 * buckets or 8x too many.
 */
static void adapt(struct evq *q)
{
	simtime_t gap = (q->now - q->adapt_from) / ADAPT_EVERY;
	size_t nb = NB_MIN;
	size_t sf = sized_for(q);
	unsigned shift = log2_floor((sf > WIDE_PENDING ? gap : 2 * gap) + 1);

	if (q->far * 10 > q->armed && q->window < 62)
		q->window++;
	else if (q->far * 200 < q->armed && q->window > 10)
		q->window--;
	q->adapt_from = q->now;
	q->armed = q->far = 0;
	ring_set(q, EVQ_RING_FROM == 0 || sf > EVQ_RING_FROM);
	if (shift > SHIFT_MAX)
		shift = SHIFT_MAX;
	while (nb < NB_MAX && (nb < 2 * sf || (shift + log2_floor(nb) < q->window)))
		nb *= 2;
	if (shift + 3 <= q->shift || shift >= q->shift + 3 || nb > q->nb || 8 * nb <= q->nb)
		rebuild(q, nb, shift);
}

/* ---- the queue ---- */

struct evq *evq_new(void)
{
	struct evq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->cap = 256;
	q->heap = malloc(q->cap * sizeof(*q->heap));
	if (!q->heap) {
		free(q);
		return NULL;
	}
	q->shift = SHIFT_INIT;
	q->heap_from = UINT64_MAX;
	q->window = SHIFT_INIT + 8;
	q->ring_min = SIMTIME_NEVER;
	if (EVQ_WHEEL) {
		q->nb = NB_MIN;
		q->bucket = mem_zalloc_lines(q->nb, sizeof(*q->bucket));
		q->bits = calloc(q->nb / 64, sizeof(*q->bits));
		q->unsorted = calloc(q->nb / 64, sizeof(*q->unsorted));
		q->sum = calloc(1, sizeof(*q->sum));
		if (!q->bucket || !q->bits || !q->sum || !q->unsorted) {
			evq_free(q);
			return NULL;
		}
	}
	ring_set(q, EVQ_RING_FROM == 0);
	return q;
}

void evq_free(struct evq *q)
{
	if (!q)
		return;
	evq_pool_release(&q->pool);
	free(q->bucket);
	free(q->bits);
	free(q->sum);
	free(q->unsorted);
	free(q->scratch);
	free(q->heap);
	free(q);
}

static void unqueue(struct evq *q, struct evq_timer *t)
{
	if (t->wheel == 2) {
		q->ring[t->slot - 1] = NULL; /* a hole, skipped when filed */
		t->wheel = 0;
		t->slot = 0;
	} else if (t->wheel) {
		wheel_remove(q, t);
	} else if (t->slot)
		heap_remove(q, t);
}

/*
 * Room for one more pending event: the heap and the scratch array are kept
 * at least as large as the events pending (the heap may hold them all, a
 * bucket to sort too), so that only an arm that adds one checks, and a
 * failure leaves everything as it was.
 */
static __attribute__((noinline)) int grow(struct evq *q)
{
	size_t cap = q->room ? 2 * q->room : 256;
	struct sort_entry *x;

	if (heap_reserve(q, cap))
		return -ENOMEM;
	if (q->n_scratch < cap) {
		x = realloc(q->scratch, cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		q->scratch = x;
		q->n_scratch = cap;
	}
	q->room = cap;
	return 0;
}

/*
 * An arm is about to add the (n + 1)th pending event and n reached hi:
 * room for it, the peak, and more buckets when the events sized for are
 * more than twice as many (re-filed now, before the new one is filed).
 */
static __attribute__((noinline)) int arm_slow(struct evq *q)
{
	if (q->n >= q->room && grow(q))
		return -ENOMEM;
	if (q->n + 1 > q->peak)
		q->peak = q->n + 1;
	if (q->nb && q->nb < NB_MAX && sized_for(q) + 1 > 2 * q->nb)
		rebuild(q, 4 * q->nb < NB_MAX ? 4 * q->nb : NB_MAX, q->shift); /* more buckets */
	set_hi(q);
	return 0;
}

int evq_arm(struct evq *q, struct evq_timer *t, simtime_t when)
{
	assert(when >= q->now && "an event may not be scheduled in the past");
	if (t->wheel | t->slot) {
		unqueue(q, t);
	} else {
		if (q->n >= q->hi && arm_slow(q))
			return -ENOMEM;
		q->n++;
	}
	t->when = when;
	q->armed++;
	if ((when >> q->shift) - q->cur >= q->arm_nb) {
		/* beyond the window, or the ring on (or no calendar) */
		if (q->nb && in_window(q, when)) {
			ring_push(q, t);
			return 0;
		}
		q->far++;
		heap_push(q, t);
		return 0;
	}
	if (wheel_put(q, t) > CROWDED && q->shift > 0)
		rebuild(q, q->nb, q->shift > 4 ? q->shift - 4 : 0); /* buckets 16x narrower */
	return 0;
}

void evq_cancel(struct evq *q, struct evq_timer *t)
{
	if (t->wheel || t->slot)
		q->n--;
	unqueue(q, t);
	if (t->pooled)
		evq_pool_put(&q->pool, t);
}

struct evq_timer *evq_post(struct evq *q, simtime_t when, evq_fn fn, void *obj, uint64_t arg,
			   uint64_t key)
{
	struct evq_timer *t = evq_pool_get(&q->pool);

	if (!t)
		return NULL;
	t->fn = fn;
	t->obj = obj;
	t->arg = arg;
	t->key = key;
	if (evq_arm(q, t, when)) {
		evq_pool_put(&q->pool, t);
		return NULL;
	}
	return t;
}

simtime_t evq_peek(struct evq *q)
{
	ring_drain(q);
	if (q->n_wheel)
		return q->bucket[first_bucket(q)]->when;
	return q->n_heap ? q->heap[0].when : SIMTIME_NEVER;
}

/*
 * The earliest event if it is due at or before @until, taken out of the
 * queue (the window moved to its bucket); NULL if there is none.
 */
static inline __attribute__((always_inline)) struct evq_timer *take_first(struct evq *q,
									  simtime_t until, int ring)
{
	struct evq_timer *t;
	uint64_t b;
	size_t i;

	if (!q->n_wheel && q->ring_r != q->ring_w)
		ring_drain(q);
	if (!q->n_wheel) {
		if (!q->n_heap || q->heap[0].when > until)
			return NULL;
		if (!q->nb) {
			t = q->heap[0].t;
			heap_remove(q, t);
			return t;
		}
		q->cur = q->heap[0].when >> q->shift;
		migrate(q);
	}
	i = first_bucket(q);
	t = q->bucket[i];
	if (ring) {
		if (q->ring_min <= t->when) {
			ring_drain(q); /* one in the ring may come first */
			i = first_bucket(q);
			t = q->bucket[i];
		}
		/* prefetched: the first of the bucket POP_AHEAD non-empty ones on
		 * (in i's word of the bitmap), the second of the next (inline: a
		 * function of prefetches alone, the compiler drops as no effect) */
		uint64_t m = q->bits[i >> 6] & (~1ULL << (i & 63));
		size_t base = i & ~(size_t)63;

		if (m) {
			__builtin_prefetch(q->bucket[base | (size_t)__builtin_ctzll(m)]->next);
			for (int k = 1; k < POP_AHEAD && m; k++)
				m &= m - 1;
			if (m)
				__builtin_prefetch(q->bucket[base | (size_t)__builtin_ctzll(m)]);
		}
	}
	if (t->when > until)
		return NULL;
	b = t->when >> q->shift;
	if (b != q->cur) {
		/* what comes in from the heap is later than t: t stays first */
		q->cur = b;
		migrate(q);
	}
	bucket_unlink(q, t, i, 1);
	/* the next event's arg fetched while this one runs (evq_timer.h): on
	 * a large fabric, a miss to memory that takes about as long as an
	 * event; a prefetch never faults, so an arg that is no address costs
	 * nothing */
	if (q->bucket[i])
		__builtin_prefetch((const void *)(uintptr_t)q->bucket[i]->arg);
	return t;
}

/* Run @t, taken from the queue. */
static inline __attribute__((always_inline)) void fire(struct evq *q, struct evq_timer *t)
{
	q->n--;
	assert(t->when >= q->now && "time went backwards");
	q->now = t->when;
	q->key_now = t->key;
	if (!(++q->fired % ADAPT_EVERY) && q->nb)
		adapt(q);
	if (t->pooled) {
		evq_fn fn = t->fn;
		void *obj = t->obj;
		uint64_t arg = t->arg;

		evq_pool_put(&q->pool, t);
		fn(obj, arg);
		return;
	}
	t->fn(t->obj, t->arg);
}

int evq_step_until(struct evq *q, simtime_t until)
{
	struct evq_timer *t = q->ring_on ? take_first(q, until, 1) : take_first(q, until, 0);

	if (!t)
		return 0;
	fire(q, t);
	return 1;
}

/* Events until @to have fired: 1, or 0 if one flagged @halt or none was
 * due; @ring: the ring is on (a constant: two copies of the loop). */
static inline __attribute__((always_inline)) int run_batch(struct evq *q, simtime_t until,
							   uint64_t to, const int *halt, int ring)
{
	struct evq_timer *t;

	while (q->fired < to) {
		if (!(t = take_first(q, until, ring)))
			return 0;
		fire(q, t);
		if (*halt)
			return 0;
	}
	return 1;
}

uint64_t evq_run(struct evq *q, simtime_t until, uint64_t max_fired, const int *halt)
{
	uint64_t from = q->fired;

	/* in batches up to the next width check, which may turn the ring on or
	 * off: each batch runs a loop compiled for one, without the other's
	 * checks */
	while (q->fired < max_fired) {
		uint64_t to = (q->fired | (ADAPT_EVERY - 1)) + 1;
		int more;

		if (to > max_fired)
			to = max_fired;
		more = q->ring_on ? run_batch(q, until, to, halt, 1)
				  : run_batch(q, until, to, halt, 0);

		if (!more)
			break;
	}
	return q->fired - from;
}

int evq_step(struct evq *q)
{
	return evq_step_until(q, SIMTIME_NEVER);
}

simtime_t evq_now(const struct evq *q)
{
	return q->now;
}

uint64_t evq_key_now(const struct evq *q)
{
	return q->key_now;
}

size_t evq_size(const struct evq *q)
{
	return q->n;
}

uint64_t evq_fired(const struct evq *q)
{
	return q->fired;
}

size_t evq_peak(const struct evq *q)
{
	return q->peak;
}

int evq_pending(const struct evq *q, const struct evq_timer *t)
{
	(void)q;
	return t->wheel || t->slot;
}

void evq__ring_drain(struct evq *q)
{
	ring_drain(q);
}

void evq__unqueue(struct evq *q, struct evq_timer *t)
{
	unqueue(q, t);
}
