/*
 * Collectives: the rings and the all-to-all of collective.h, driven by the
 * arrival of whole messages at each rank, over the edges coll_layout.c
 * lays out (RoCE QPs, or NVLink inside a server).
 * Several QPs per connection: coll_qps.h.
 */
#include "models/collective.h"
#include "models/collective_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "models/coll_qps.h"
#include "models/mctx.h"
#include "models/nic.h"
#include "models/nvlink.h"
#include "topologies/topo.h"

/* Rank @r runs here (in this part of a split fabric, or the fabric is whole). */
static int coll_local(const struct coll *c, uint32_t r)
{
	return !c->rank_part || c->rank_part[r] == c->me;
}

/* Bytes of piece @p of a ring step (the last piece takes the rest). */
static uint64_t piece_bytes(const struct coll *c, uint32_t p)
{
	uint64_t chunk = c->chunk;

	return p + 1 < c->pieces ? chunk : c->seg - (uint64_t)(c->pieces - 1) * chunk;
}

static void edge_arrived(struct coll *c, uint32_t e, uint32_t tag, simtime_t now);
static void on_memo_check(void *obj, uint64_t arg);
static void message_in(struct coll *c, uint32_t e, uint32_t tag, simtime_t now);

static uint64_t piece_bytes(const struct coll *c, uint32_t p);

/* The bytes of a message tagged @tag (ring: step x pieces + piece). */
static uint64_t msg_bytes(const struct coll *c, uint32_t tag)
{
	uint64_t per_peer = c->spec->bytes / c->n;

	if (c->send)
		return c->spec->bytes;
	if (c->spec->op == COLL_ALLTOALL)
		return per_peer ? per_peer : 1;
	return piece_bytes(c, tag % c->pieces);
}

static void on_nvlink(void *owner, uint32_t dst, uint64_t cookie, simtime_t now)
{
	struct coll *c = owner;

	(void)dst;
	c->nvlink_bytes += msg_bytes(c, (uint32_t)cookie);
	message_in(c, (uint32_t)(cookie >> 32), (uint32_t)cookie, now);
}

/* Send @bytes on network edge @e, tagged @tag, over its several QPs. */
static void post_qps(struct coll *c, uint32_t e, uint64_t bytes, uint32_t tag)
{
	uint64_t len[128]; /* qps: at most 128, as NCCL takes it (the loader checks) */
	uint32_t first, parts, q = c->place.qps;
	int err = coll_qps_send(c->mq, e, bytes, tag, &first, len, &parts);

	if (err) {
		mctx_fail(c->ctx, err);
		return;
	}
	for (uint32_t k = 0; k < parts; k++) {
		struct flow *f = &c->qps[c->lay.edge_qp[e] + (first + k) % q];

		mctx_fail(c->ctx, nic_post(c->env.nics[f->src], f, len[k], tag));
	}
}

/* A part arrived on QP @x; then the messages of its edge that are whole, in order. */
static void part_in(struct coll *c, uint32_t x, simtime_t now)
{
	uint32_t e = c->lay.qp_edge[x], tag;

	coll_qps_part(c->mq, e, x - c->lay.edge_qp[e], x);
	/* each taken off first: what it sets off may send on this edge again */
	while (coll_qps_whole(c->mq, e, &tag))
		message_in(c, e, tag, now);
}

/* Send @bytes on edge @e, tagged @tag. */
static void post(struct coll *c, uint32_t e, uint64_t bytes, uint32_t tag)
{
	uint32_t qp = c->lay.edge_qp[e], from, to;

	if (qp != COLL_NVLINK && c->mq) {
		post_qps(c, e, bytes, tag);
		return;
	}
	if (qp != COLL_NVLINK) {
		mctx_fail(c->ctx, nic_post(c->env.nics[c->qps[qp].src], &c->qps[qp], bytes, tag));
		return;
	}
	coll_layout_ends(&c->place, &c->lay, e, &from, &to);
	mctx_fail(c->ctx, nvlink_send(c->env.nvlink, coll_rank_gpu(&c->place, from),
				      coll_rank_gpu(&c->place, to), bytes, on_nvlink, c,
				      (uint64_t)e << 32 | tag));
}

/* ---- flow control ------------------------------------------------------- */

static void wake(struct coll *c, uint32_t conn);
static void tree_wake(struct coll *c, uint32_t x);
static void run_work(struct coll *c);
static void tree_work(struct coll *c);

/* Edge @e's sender has a slot back: its program may move on. */
static void credit(struct coll *c, uint32_t e)
{
	uint32_t x = e / 2;

	c->conns[e].unconsumed--;
	if (!coll__is_tree(c))
		wake(c, e);
	else /* a slot up is the child's (x), a slot down its parent's */
		tree_wake(c, e % 2 ? x - x % c->n + c->lay.parent[x] : x);
}

/*
 * The receiver of edge @e consumed a piece: the slot goes back to the
 * sender. Over NVLink at once; over a QP as NCCL's receiver posts its
 * buffer back (the IB transport's RDMA write to the sender's FIFO), after
 * the propagation delay of the QP's path back, as an event of the sender
 * (of its part, in a split fabric) that knows its iteration.
 */
static void give_back(struct coll *c, uint32_t e)
{
	uint32_t qp = c->lay.edge_qp[e], from, to;
	uint64_t arg = (uint64_t)c->iter << 32 | e, key;
	simtime_t at;

	if (qp == COLL_NVLINK) {
		credit(c, e);
		return;
	}
	if (c->credit_delay[qp] == SIMTIME_NEVER)
		return; /* no way back: nor was there a way there */
	at = evq_now(c->ctx->q) + c->credit_delay[qp];
	key = evq_key(MCTX_KEY_CREDIT, (uint64_t)c->env.id << 32 | e, c->credit_seq[e]++);
	coll_layout_ends(&c->place, &c->lay, e, &from, &to);
	if (!coll_local(c, from))
		c->ctx->part->credit(c->ctx->part->ctx, c->rank_part[from], c->env.id, at, arg,
				     key);
	else if (!evq_post(c->ctx->q, at, coll__on_credit, c, arg, key))
		mctx_fail(c->ctx, -ENOMEM);
}

void coll__on_credit(void *obj, uint64_t arg)
{
	struct coll *c = obj;

	if (arg >> 32 != c->iter)
		return; /* for an iteration that is over: its slots were reset */
	credit(c, (uint32_t)arg);
	if (coll__is_tree(c))
		tree_work(c);
	else
		run_work(c);
}

static int flow_ctl(const struct coll *c)
{
	return c->conns != NULL && c->lay.ring != NULL;
}

/* Pieces in loop @L (the last loop may be short). */
static uint32_t loop_pieces(const struct coll *c, uint32_t L)
{
	uint32_t first = L * c->loop;

	return c->pieces - first < c->loop ? c->pieces - first : c->loop;
}

static void wake(struct coll *c, uint32_t conn)
{
	if (c->conns[conn].queued || c->conns[conn].finished)
		return;
	c->conns[conn].queued = 1;
	c->work[c->n_work++] = conn;
}

/*
 * Run the program of connection @i's sender as far as it can go: an op
 * waits for the piece from the predecessor (every step but the first) and,
 * to send, for a free slot. Consuming a piece frees the predecessor's slot,
 * so the predecessor may move on in turn.
 */
static void run_program(struct coll *c, uint32_t i)
{
	uint32_t ch = i % c->channels, at = i / c->channels, r = c->lay.ring[ch * c->n + at];
	uint32_t up = ((at + c->n - 1) % c->n) * c->channels + ch;
	struct coll_conn *cn = &c->conns[i], *in = &c->conns[up];

	if (!c->started[r])
		return;
	while (!cn->finished) {
		uint32_t lp = loop_pieces(c, cn->L), p = cn->L * c->loop + cn->s;

		if (cn->k > 0) {
			/* the predecessor's send of (p, k - 1): sends of earlier
			 * loops, then this loop's steps before k - 1 */
			uint64_t need = (uint64_t)cn->L * c->steps * c->loop +
					(uint64_t)(cn->k - 1) * lp + cn->s + 1;

			if (in->delivered < need)
				return;
		}
		if (cn->k < c->steps) {
			if (cn->unconsumed >= c->spec->steps)
				return;
			cn->unconsumed++;
			post(c, i, piece_bytes(c, p), cn->k * c->pieces + p);
		}
		if (cn->k > 0)
			give_back(c, up);
		if (++cn->s == lp) {
			cn->s = 0;
			if (++cn->k > c->steps) {
				cn->k = 0;
				if (++cn->L * c->loop >= c->pieces)
					cn->finished = 1;
			}
		}
	}
}

static void run_work(struct coll *c)
{
	while (c->n_work) {
		uint32_t i = c->work[--c->n_work];

		c->conns[i].queued = 0;
		run_program(c, i);
	}
}

/* ---- trees: reduce up, broadcast down, chunk by chunk ------------------------ */

static uint32_t tree_depth(const struct coll *c)
{
	uint32_t servers = c->spec->servers ? c->spec->servers : coll_layout_servers(&c->place);

	return coll_tree_depth(servers, servers ? c->n / servers : 1);
}

static void tree_wake(struct coll *c, uint32_t x)
{
	if (c->slots[x].queued)
		return;
	c->slots[x].queued = 1;
	c->work[c->n_work++] = x;
}

/* Every child of slot @x has sent chunk @p up. */
static int kids_have(const struct coll *c, uint32_t x, uint32_t p)
{
	const uint32_t *kid = &c->lay.kids[(size_t)x * COLL_KIDS], base = x - x % c->n;

	for (uint32_t k = 0; k < COLL_KIDS && kid[k] != COLL_ROOT; k++)
		if (c->conns[2 * (base + kid[k])].delivered <= p)
			return 0;
	return 1;
}

/* Every child of slot @x has a free slot on its edge down. */
static int kids_room(const struct coll *c, uint32_t x)
{
	const uint32_t *kid = &c->lay.kids[(size_t)x * COLL_KIDS], base = x - x % c->n;

	for (uint32_t k = 0; k < COLL_KIDS && kid[k] != COLL_ROOT; k++)
		if (c->spec->steps &&
		    c->conns[2 * (base + kid[k]) + 1].unconsumed >= c->spec->steps)
			return 0;
	return 1;
}

/* Slot @x consumed a chunk of each child's (it reduced it): their slots up
 * come back. */
static void consume_kids(struct coll *c, uint32_t x)
{
	const uint32_t *kid = &c->lay.kids[(size_t)x * COLL_KIDS], base = x - x % c->n;

	for (uint32_t k = 0; k < COLL_KIDS && kid[k] != COLL_ROOT; k++)
		give_back(c, 2 * (base + kid[k]));
}

/*
 * Move slot @x on as far as it can: up, chunk by chunk once every child
 * has sent it (a leaf at once) and the edge up has a free slot; down, each
 * chunk the parent sent (the root: each it has reduced) to every child,
 * once each has a free slot. As NCCL's tree kernel does, up and down run at
 * once (src/device/all_reduce.h, runTreeUpDown).
 */
static void tree_run(struct coll *c, uint32_t x)
{
	const uint32_t *kid = &c->lay.kids[(size_t)x * COLL_KIDS], base = x - x % c->n;
	uint32_t par = c->lay.parent[x], w = c->spec->steps ? c->spec->steps : UINT32_MAX;
	struct coll_slot *sl = &c->slots[x];
	int moved = 1;

	if (!c->started[x % c->n])
		return;
	while (moved) {
		moved = 0;
		if (par != COLL_ROOT && sl->up < c->pieces && kids_have(c, x, sl->up) &&
		    c->conns[2 * x].unconsumed < w) {
			c->conns[2 * x].unconsumed++;
			post(c, 2 * x, piece_bytes(c, sl->up), sl->up);
			consume_kids(c, x);
			sl->up++;
			moved = 1;
		}
		if (sl->down < c->pieces &&
		    (par == COLL_ROOT ? kids_have(c, x, sl->down)
				      : c->conns[2 * x + 1].delivered > sl->down) &&
		    kids_room(c, x)) {
			for (uint32_t k = 0; k < COLL_KIDS && kid[k] != COLL_ROOT; k++) {
				c->conns[2 * (base + kid[k]) + 1].unconsumed++;
				post(c, 2 * (base + kid[k]) + 1, piece_bytes(c, sl->down),
				     sl->down);
			}
			if (par == COLL_ROOT) {
				consume_kids(c, x);
			} else {
				give_back(c, 2 * x + 1);
			}
			sl->down++;
			moved = 1;
		}
	}
}

static void tree_work(struct coll *c)
{
	while (c->n_work) {
		uint32_t x = c->work[--c->n_work];

		c->slots[x].queued = 0;
		tree_run(c, x);
	}
}

/* Rank @r's first sends of an iteration: step 0 of every ring, or its
 * share of the all-to-all. */
static void first_sends(struct coll *c, uint32_t r)
{
	if (coll__is_tree(c)) {
		c->started[r] = 1;
		for (uint32_t ch = 0; ch < c->channels; ch++)
			tree_wake(c, ch * c->n + r);
		tree_work(c);
		return;
	}
	if (c->send) {
		if (r == 0)
			post(c, 0, c->spec->bytes, 0);
		return;
	}
	if (!coll__is_ring(c)) {
		uint64_t per_peer = c->spec->bytes / c->n;

		for (uint32_t k = 0; k < c->n - 1; k++)
			post(c, r * (c->n - 1) + k, per_peer ? per_peer : 1, 0);
		return;
	}
	if (flow_ctl(c)) {
		c->started[r] = 1;
		for (uint32_t ch = 0; ch < c->channels; ch++)
			wake(c, c->lay.pos[ch * c->n + r] * c->channels + ch);
		run_work(c);
		return;
	}
	for (uint32_t ch = 0; ch < c->channels; ch++)
		for (uint32_t p = 0; p < c->pieces; p++)
			post(c, c->lay.pos[ch * c->n + r] * c->channels + ch, piece_bytes(c, p), p);
}

/*
 * The ranks (here) have all they expect of this iteration at @now: the
 * next one starts once every rank has learnt it, the barrier later; in a
 * split fabric once every part is done too (coll_resume).
 */
static void iteration_done(struct coll *c, simtime_t now)
{
	if (c->env.driven) { /* its owner begins the next operation */
		c->times[0] = now - c->iter_start;
		c->done = 1;
		c->iter++; /* credits still on their way are the last operation's */
		coll__memo_call(c, COLL_MEMO_END);
		coll__memo_over(c, now);
		c->env.finished(c->env.up);
		return;
	}
	c->times[c->done++] = now - c->iter_start;
	if (++c->iter >= c->spec->iterations) {
		if (c->env.finished)
			c->env.finished(c->env.up);
	} else if (c->rank_part) {
		c->waiting = 1;
		c->waiting_at = now;
	} else {
		mctx_arm(c->ctx, &c->start_timer, now + c->env.barrier);
	}
}

static void on_late(void *obj, uint64_t arg)
{
	struct coll *c = obj;

	first_sends(c, (uint32_t)arg);
}

/* The state of a new iteration at @now: what each rank expects of it. */
static void reset_iteration(struct coll *c, simtime_t now)
{
	c->iter_start = now;
	for (uint32_t r = 0; r < c->n; r++) {
		c->rank_left[r] = c->send	     ? r == 1
				  : coll__is_ring(c) ? (uint64_t)c->channels * c->steps * c->pieces
						     : c->n - 1;
		c->rank_done[r] = 0; /* this iteration's, not the last one's */
	}
	if (coll__is_tree(c)) {
		/* each rank but a channel's root gets every chunk down, and every
		 * parent every chunk from each child */
		for (uint32_t r = 0; r < c->n; r++)
			c->rank_left[r] = 0;
		for (uint32_t x = 0; x < c->n * c->channels; x++) {
			const uint32_t *kid = &c->lay.kids[(size_t)x * COLL_KIDS];

			c->rank_left[x % c->n] +=
			    (c->lay.parent[x] != COLL_ROOT) * (uint64_t)c->pieces;
			for (uint32_t k = 0; k < COLL_KIDS && kid[k] != COLL_ROOT; k++)
				c->rank_left[x % c->n] += c->pieces;
		}
		memset(c->slots, 0, (size_t)c->n * c->channels * sizeof(*c->slots));
	}
	if (flow_ctl(c) || coll__is_tree(c)) {
		memset(c->conns, 0, (size_t)c->lay.n_edges * sizeof(*c->conns));
		memset(c->started, 0, c->n);
	}
	/* the messages its ranks expect (here: in a split fabric, this part's) */
	c->remaining = 0;
	for (uint32_t r = 0; r < c->n; r++)
		c->remaining += coll_local(c, r) ? c->rank_left[r] : 0;
}

static void start_iteration(struct coll *c, simtime_t now)
{
	const struct coll_spec *s = c->spec;

	reset_iteration(c, now);
	if (!c->remaining) { /* none of its ranks here */
		iteration_done(c, now);
		return;
	}
	for (uint32_t r = 0; r < c->n; r++) {
		if (!coll_local(c, r))
			continue;
		if (c->iter == 0 && r == s->late_rank) {
			c->late_timer.arg = r;
			mctx_arm(c->ctx, &c->late_timer, now + s->late_by);
			continue;
		}
		first_sends(c, r);
	}
}

static void on_start(void *obj, uint64_t arg)
{
	struct coll *c = obj;

	(void)arg;
	start_iteration(c, evq_now(c->ctx->q));
}

/* A message arrived whole over edge @e: its receiver forwards it on the
 * next step (or its program moves on), and the iteration may be done. */
static void edge_arrived(struct coll *c, uint32_t e, uint32_t tag, simtime_t now)
{
	uint32_t from, rx;

	coll_layout_ends(&c->place, &c->lay, e, &from, &rx);
	if (!--c->rank_left[rx]) {
		c->rank_done[rx] = now - c->iter_start;
		if (c->env.rank_done) {
			if (c->send) { /* the sender's send is over when it has arrived */
				coll__memo_call(c, 0);
				c->env.rank_done(c->env.up, 0, now);
			}
			coll__memo_call(c, rx);
			c->env.rank_done(c->env.up, rx, now);
		}
	}
	if (coll__is_tree(c)) {
		uint32_t x = e / 2;

		c->conns[e].delivered++;
		tree_wake(c, e % 2 ? x : x - x % c->n + c->lay.parent[x]);
		tree_work(c);
	} else if (flow_ctl(c)) {
		uint32_t ch = e % c->channels, at = e / c->channels;

		c->conns[e].delivered++;
		wake(c, ((at + 1) % c->n) * c->channels + ch);
		run_work(c);
	} else if (coll__is_ring(c)) {
		uint32_t ch = e % c->channels, at = e / c->channels;
		uint32_t step = tag / c->pieces, p = tag % c->pieces;

		/* it forwards the piece on the next step, once it has it */
		if (step + 1 < c->steps)
			post(c, ((at + 1) % c->n) * c->channels + ch, piece_bytes(c, p),
			     (step + 1) * c->pieces + p);
	}
	if (!--c->remaining)
		iteration_done(c, now);
}

/* A message in: its rank acts on it now, or step_latency later. */
static void message_in(struct coll *c, uint32_t e, uint32_t tag, simtime_t now)
{
	uint32_t i;

	if (!c->spec->step_latency) {
		edge_arrived(c, e, tag, now);
		return;
	}
	if (c->seen_count == c->seen_cap) {
		uint32_t cap = c->seen_cap ? 2 * c->seen_cap : 64;
		uint64_t *m = malloc((size_t)cap * sizeof(*m));
		simtime_t *at = malloc((size_t)cap * sizeof(*at));

		if (!m || !at) {
			free(m);
			free(at);
			mctx_fail(c->ctx, -ENOMEM);
			return;
		}
		for (uint32_t k = 0; k < c->seen_count; k++) {
			m[k] = c->seen[(c->seen_head + k) & (c->seen_cap - 1)];
			at[k] = c->seen_at[(c->seen_head + k) & (c->seen_cap - 1)];
		}
		free(c->seen);
		free(c->seen_at);
		c->seen = m;
		c->seen_at = at;
		c->seen_head = 0;
		c->seen_cap = cap;
	}
	i = (c->seen_head + c->seen_count++) & (c->seen_cap - 1);
	c->seen[i] = (uint64_t)e << 32 | tag;
	c->seen_at[i] = now + c->spec->step_latency;
	if (c->seen_count == 1)
		mctx_arm(c->ctx, &c->seen_timer, c->seen_at[i]);
}

static void on_seen(void *obj, uint64_t arg)
{
	struct coll *c = obj;
	uint64_t m = c->seen[c->seen_head];
	simtime_t at = c->seen_at[c->seen_head];

	(void)arg;
	c->seen_head = (c->seen_head + 1) & (c->seen_cap - 1);
	c->seen_count--;
	if (c->seen_count)
		mctx_arm(c->ctx, &c->seen_timer, c->seen_at[c->seen_head]);
	edge_arrived(c, (uint32_t)(m >> 32), (uint32_t)m, at);
}

void coll_msg_done(struct coll *c, struct flow *qp, uint32_t tag, simtime_t now)
{
	if (c->mq)
		part_in(c, (uint32_t)(qp - c->qps), now);
	else
		message_in(c, c->lay.qp_edge[qp - c->qps], tag, now);
}

int coll_new(struct mctx *ctx, const struct coll_spec *spec, struct flow *flows, uint32_t first,
	     const struct coll_env *env, struct coll **out)
{
	struct coll *c = calloc(1, sizeof(*c));
	uint32_t n = spec->n_ranks;
	int err;

	*out = NULL;
	if (!c || !(c->times = calloc(spec->iterations, sizeof(*c->times))) ||
	    !(c->rank_left = calloc(n, sizeof(*c->rank_left))) ||
	    !(c->rank_done = calloc(n, sizeof(*c->rank_done))) ||
	    (c->place = coll_place_of(spec), coll_layout_build(&c->place, &c->lay))) {
		coll_free(c);
		return -ENOMEM;
	}
	c->ctx = ctx;
	c->env = *env;
	c->spec = spec;
	c->qps = &flows[first];
	c->n_qps = c->lay.n_qps; /* coll_qp_count(spec): the loader keeps it in 32 bits */
	c->n = n;
	c->channels = c->lay.channels;
	if (c->lay.n_nvlink && !env->nvlink) {
		coll_free(c);
		return -EINVAL; /* ranks share a server, and there is no NVLink */
	}
	c->chunk = spec->chunk;
	if (c->place.qps > 128) {
		coll_free(c);
		return -EINVAL; /* NCCL takes 1 to 128: the loader refuses more first */
	}
	if (c->place.qps > 1 && c->n_qps &&
	    !(c->mq = coll_qps_new(c->lay.n_edges, c->n_qps, c->place.qps, spec->split))) {
		coll_free(c);
		return -ENOMEM;
	}
	c->credit_delay = calloc(c->n_qps ? c->n_qps : 1, sizeof(*c->credit_delay));
	c->credit_seq = calloc(c->lay.n_edges ? c->lay.n_edges : 1, sizeof(*c->credit_seq));
	if (!c->credit_delay || !c->credit_seq) {
		coll_free(c);
		return -ENOMEM;
	}
	if (coll__is_ring(c)) {
		c->steps = coll_ring_steps(spec);
		if (coll_ring_pieces(spec, &c->seg, &c->pieces)) {
			coll_free(c);
			return -EINVAL; /* the scenario loader refuses it first */
		}
		if (spec->steps) {
			c->loop = spec->steps / 2 ? spec->steps / 2 : 1;
			c->conns = calloc(c->lay.n_edges, sizeof(*c->conns));
			c->work = malloc((size_t)c->lay.n_edges * sizeof(*c->work));
			c->started = calloc(n, 1);
			if (!c->conns || !c->work || !c->started) {
				coll_free(c);
				return -ENOMEM;
			}
		}
	} else if (coll__is_tree(c)) {
		c->steps = 1;
		c->chunk = coll_tree_chunk(spec, tree_depth(c));
		if (coll_tree_pieces(spec, tree_depth(c), &c->seg, &c->pieces)) {
			coll_free(c);
			return -EINVAL; /* the scenario loader refuses it first */
		}
		c->conns = calloc(c->lay.n_edges, sizeof(*c->conns));
		c->slots = calloc((size_t)n * c->channels, sizeof(*c->slots));
		c->work = malloc((size_t)n * c->channels * sizeof(*c->work));
		c->started = calloc(n, 1);
		if (!c->conns || !c->slots || !c->work || !c->started) {
			coll_free(c);
			return -ENOMEM;
		}
	} else {
		c->steps = 1;
		c->pieces = 1;
	}
	for (uint32_t i = 0; i < c->n_qps; i++) {
		struct flow *f = &c->qps[i];

		coll_layout_nics(&c->place, &c->lay, c->lay.qp_edge[i], &f->src, &f->dst);
		f->id = first + i;
		f->coll = c;
		f->dscp = spec->dscp;
		f->prio = spec->priority;
		f->start = spec->start;
		err = nic_open_qp(env->nics[f->src], f);
		if (err) {
			coll_free(c);
			return err;
		}
	}
	evq_timer_init(&c->memo_check, on_memo_check, c, evq_key(MCTX_KEY_REPLAY, env->id, 0));
	if ((err = coll__memo_new(c))) {
		coll_free(c);
		return err;
	}
	evq_timer_init(&c->start_timer, on_start, c, evq_key(MCTX_KEY_COLL, env->id, 0));
	evq_timer_init(&c->late_timer, on_late, c, evq_key(MCTX_KEY_COLL, env->id, 1));
	evq_timer_init(&c->seen_timer, on_seen, c, evq_key(MCTX_KEY_COLL, env->id, 2));
	err = env->driven ? 0 : evq_arm(ctx->q, &c->start_timer, spec->start);
	if (err) {
		coll_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int coll_begin(struct coll *c, int send, simtime_t now)
{
	const struct coll_spec *spec = c->spec;

	c->send = 0;
	if (send) {
		if (coll__is_ring(c) || coll__is_tree(c) || c->n != 2 || !spec->bytes)
			return -EINVAL;
		c->send = 1;
		c->steps = c->pieces = 1;
	} else if (coll__is_ring(c)) {
		if (spec->op == COLL_ALLTOALL)
			return -EINVAL;
		c->steps = coll_ring_steps(spec);
		if (coll_ring_pieces(spec, &c->seg, &c->pieces))
			return -EINVAL;
	} else if (coll__is_tree(c) || spec->op != COLL_ALLTOALL) {
		return -EINVAL; /* a tree's pieces are set once, at coll_new */
	}
	reset_iteration(c, now);
	if (!c->remaining)
		return -EINVAL;
	coll__memo_begin(c, now);
	return 0;
}

/* The members held at an operation's begin send now, in the order they joined. */
static void release(struct coll *c)
{
	const uint32_t *order;
	uint32_t n = coll__memo_release(c, &order);

	for (uint32_t i = 0; i < n; i++)
		first_sends(c, order[i]);
}

static void on_memo_check(void *obj, uint64_t arg)
{
	(void)arg;
	release(obj);
}

static void on_replay(void *obj, uint64_t arg)
{
	struct coll *c = obj;

	if (coll__memo_replay(c, (uint32_t)arg))
		iteration_done(c, evq_now(c->ctx->q));
}

void coll_join(struct coll *c, uint32_t r)
{
	if (!coll_local(c, r))
		return;
	switch (coll__memo_join(c, r)) {
	case COLL_MEMO_SEND:
		first_sends(c, r);
		break;
	case COLL_MEMO_HELD:
		break;
	case COLL_MEMO_RELEASE:
		release(c);
		break;
	case COLL_MEMO_REPLAY:
		mctx_fail(c->ctx, coll__memo_post(c, on_replay));
		break;
	}
}

void coll_free(struct coll *c)
{
	if (!c)
		return;
	coll__memo_free(c);
	free(c->times);
	free(c->rank_left);
	free(c->rank_done);
	free(c->conns);
	free(c->work);
	free(c->started);
	free(c->slots);
	free(c->seen);
	free(c->seen_at);
	free(c->credit_delay);
	free(c->credit_seq);
	coll_qps_free(c->mq);
	coll_layout_free(&c->lay);
	free(c);
}
