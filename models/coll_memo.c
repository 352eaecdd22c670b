/*
 * A collective's operations replayed (collective_impl.h): a training job
 * runs the same tensor-parallel AllReduce thousands of times an
 * iteration, each over the same GPUs of one server, each a few thousand
 * NVLink transfers that come out the same every time. When an operation
 * runs over NVLink alone, on GPUs no other collective sends to or from,
 * idle when it begins, and every member joins at the instant it begins,
 * its course is a function of what it is (op, bytes, send) and of the
 * order its members joined in, and nothing else: nothing outside it can
 * touch its GPUs, and nothing it does reaches outside it but what it
 * tells its owner (a rank has all it expects, the operation is over).
 * So the first such operation is run and measured: when each of those
 * calls came, after its begin, and in which event; what it did to its
 * GPUs' counters and sides. The next one that matches on every count is
 * not run: the calls come at the same times after its begin, in events
 * of the same keys (so every equal-time event runs in the same order),
 * and its GPUs are left as the measured run left them. The key is exact:
 * no tolerance, nothing estimated; a replayed run's results are those of
 * the run without replay, to the byte (tests/test_train.c holds it).
 *
 * A member joining later than the begin's instant is found out at that
 * instant's end (an event of the last class, after every rank's): the
 * members that joined are then joined for real, in their order, still at
 * that instant. An operation that would end after the run's stop is not
 * replayed, nor anything in a run that may end at a deadlock or at its
 * event cap (sim/run sets none then): while one is replayed, the NVLink
 * bytes and ranks' times the collective reports (coll_stats,
 * coll_progress) are those before it, until its end (an interrupted run
 * shows them so).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/collective_impl.h"
#include "models/mctx.h"
#include "models/nvlink.h"

/* Operations remembered per collective: one per (op, bytes, send, join order). */
#define MEMO_MAX 32

/* A call the operation made to its owner: rank_done for a member, or its
 * end (COLL_MEMO_END). */
struct memo_call {
	simtime_t off; /* after the begin */
	uint64_t key;  /* the event it was made in */
	uint32_t rank;
};

/* An operation measured. */
struct memo_op {
	uint8_t op, send;
	uint64_t bytes;
	uint32_t *order; /* its members, in the order they joined */
	struct memo_call *call;
	uint32_t n_call;
	simtime_t *rank_done;	      /* per member, as coll.rank_done */
	simtime_t *tx, *rx;	      /* per GPU: its sides free, after the begin (0: by it) */
	struct nvlink_gpu_stats *add; /* per GPU: what its counters moved */
	uint64_t nv_bytes;	      /* NVLink payload it delivered */
	simtime_t len;
};

enum memo_state {
	MEMO_IDLE,   /* no operation, or one that is not replayable */
	MEMO_RUN,    /* an operation runs for real, measured */
	MEMO_HOLD,   /* joins held: an operation of this kind was measured */
	MEMO_REPLAY, /* the calls of a measured operation come back */
};

struct coll_memo {
	uint32_t *gpus; /* the GPUs of its NVLink edges */
	uint32_t n_gpus;
	int alone; /* 1: no other collective claimed them; -1: another did; 0: not known */
	enum memo_state state;
	simtime_t begin;
	uint32_t *order; /* this operation's members, as they joined */
	uint32_t n_joined;
	int at_begin; /* every member so far joined at the begin's instant */
	/* this operation, measured */
	struct memo_call *call;
	uint32_t n_call, cap_call;
	struct nvlink_gpu_stats *st0; /* per GPU, at the begin */
	uint64_t nv0;		      /* c->nvlink_bytes at the begin */
	struct memo_op ops[MEMO_MAX];
	uint32_t n_ops;
	const struct memo_op *cur; /* replaying */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int coll__memo_new(struct coll *c)
{
	struct coll_memo *m;
	uint32_t *g, n = 0;

	for (uint32_t e = 0; e < c->lay.n_edges; e++)
		n += c->lay.edge_qp[e] == COLL_NVLINK; /* (a tree root's own two: never used) */
	if (!n || !c->env.nvlink)
		return 0;
	g = malloc((size_t)2 * n * sizeof(*g));
	if (!g)
		return -ENOMEM;
	n = 0;
	for (uint32_t e = 0; e < c->lay.n_edges; e++) {
		uint32_t from, to;

		if (c->lay.edge_qp[e] != COLL_NVLINK)
			continue;
		coll_layout_ends(&c->place, &c->lay, e, &from, &to);
		g[n++] = coll_rank_gpu(&c->place, from);
		g[n++] = coll_rank_gpu(&c->place, to);
	}
	qsort(g, n, sizeof(*g), cmp_u32);
	{
		uint32_t k = 0;

		for (uint32_t i = 0; i < n; i++)
			if (!k || g[k - 1] != g[i])
				g[k++] = g[i];
		n = k;
	}
	for (uint32_t i = 0; i < n; i++) {
		int err = nvlink_claim(c->env.nvlink, g[i]);

		if (err) {
			free(g);
			return err;
		}
	}
	/* replayable: a training job's communicator over NVLink alone */
	if (!c->env.driven || c->n_qps) {
		free(g);
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->order = malloc((size_t)c->n * sizeof(*m->order))) ||
	    !(m->st0 = malloc((size_t)n * sizeof(*m->st0)))) {
		if (m)
			free(m->order);
		free(m);
		free(g);
		return -ENOMEM;
	}
	m->gpus = g;
	m->n_gpus = n;
	c->memo = m;
	return 0;
}

static void op_free(struct memo_op *o)
{
	free(o->order);
	free(o->call);
	free(o->rank_done);
	free(o->tx);
	free(o->rx);
	free(o->add);
}

void coll__memo_free(struct coll *c)
{
	struct coll_memo *m = c->memo;

	if (!m)
		return;
	evq_cancel(c->ctx->q, &c->memo_check);
	for (uint32_t i = 0; i < m->n_ops; i++)
		op_free(&m->ops[i]);
	free(m->gpus);
	free(m->order);
	free(m->call);
	free(m->st0);
	free(m);
	c->memo = NULL;
}

/* Whether @c's operation beginning at @now may be measured or replayed. */
static int replayable(struct coll *c, simtime_t now)
{
	struct coll_memo *m = c->memo;

	if (!c->ctx->replay_until || c->rank_part)
		return 0;
	if (!m->alone) {
		m->alone = 1;
		for (uint32_t i = 0; i < m->n_gpus; i++)
			if (nvlink_users(c->env.nvlink, m->gpus[i]) != 1)
				m->alone = -1;
	}
	if (m->alone < 0)
		return 0;
	for (uint32_t i = 0; i < m->n_gpus; i++)
		if (!nvlink_idle(c->env.nvlink, m->gpus[i], now))
			return 0;
	return 1;
}

/* A measured operation of the kind under way, joined in @order (NULL: any order). */
static const struct memo_op *find(const struct coll *c, const uint32_t *order)
{
	const struct coll_memo *m = c->memo;

	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct memo_op *o = &m->ops[i];

		if (o->op == c->spec->op && o->bytes == c->spec->bytes && o->send == c->send &&
		    (!order || !memcmp(o->order, order, (size_t)c->n * sizeof(*order))))
			return o;
	}
	return NULL;
}

static void measure(struct coll *c)
{
	struct coll_memo *m = c->memo;

	m->state = MEMO_RUN;
	m->n_call = 0;
	for (uint32_t i = 0; i < m->n_gpus; i++)
		nvlink_gpu_stats(c->env.nvlink, m->gpus[i], &m->st0[i]);
}

void coll__memo_begin(struct coll *c, simtime_t now)
{
	struct coll_memo *m = c->memo;

	if (!m)
		return;
	m->state = MEMO_IDLE;
	if (!replayable(c, now))
		return;
	m->begin = now;
	m->n_joined = 0;
	m->at_begin = 1;
	m->nv0 = c->nvlink_bytes;
	if (!find(c, NULL)) {
		measure(c);
		return;
	}
	m->state = MEMO_HOLD;
	mctx_arm(c->ctx, &c->memo_check, now);
}

enum coll_memo_do coll__memo_join(struct coll *c, uint32_t r)
{
	struct coll_memo *m = c->memo;
	const struct memo_op *o;
	simtime_t now;

	if (!m || (m->state != MEMO_RUN && m->state != MEMO_HOLD))
		return COLL_MEMO_SEND;
	now = evq_now(c->ctx->q);
	if (m->n_joined < c->n)
		m->order[m->n_joined++] = r;
	if (now != m->begin)
		m->at_begin = 0;
	if (m->state == MEMO_RUN)
		return COLL_MEMO_SEND;
	if (m->n_joined < c->n)
		return COLL_MEMO_HELD;
	evq_cancel(c->ctx->q, &c->memo_check);
	o = find(c, m->order);
	if (!o || m->begin + o->len > c->ctx->replay_until)
		return COLL_MEMO_RELEASE;
	m->state = MEMO_REPLAY;
	m->cur = o;
	return COLL_MEMO_REPLAY;
}

uint32_t coll__memo_release(struct coll *c, const uint32_t **order)
{
	struct coll_memo *m = c->memo;

	if (!m || m->state != MEMO_HOLD)
		return 0;
	measure(c); /* it runs for real now */
	*order = m->order;
	return m->n_joined;
}

int coll__memo_post(struct coll *c, evq_fn on_replay)
{
	struct coll_memo *m = c->memo;
	const struct memo_op *o = m->cur;

	for (uint32_t i = 0; i < o->n_call; i++) {
		if (i && o->call[i].off == o->call[i - 1].off &&
		    o->call[i].key == o->call[i - 1].key)
			continue; /* made in the same event as the one before */
		if (!evq_post(c->ctx->q, m->begin + o->call[i].off, on_replay, c, i,
			      o->call[i].key))
			return -ENOMEM;
	}
	return 0;
}

void coll__memo_call(struct coll *c, uint32_t rank)
{
	struct coll_memo *m = c->memo;
	struct memo_call *k;

	if (!m || m->state != MEMO_RUN || !m->at_begin)
		return;
	if (m->n_call == m->cap_call) {
		uint32_t cap = m->cap_call ? 2 * m->cap_call : 64;

		if (!(k = realloc(m->call, (size_t)cap * sizeof(*k)))) {
			m->at_begin = 0; /* not remembered: nothing lost but time */
			return;
		}
		m->call = k;
		m->cap_call = cap;
	}
	k = &m->call[m->n_call++];
	k->off = evq_now(c->ctx->q) - m->begin;
	k->key = evq_key_now(c->ctx->q);
	k->rank = rank;
}

/* A copy of @n items of @size at @p, or NULL. */
static void *copy_of(const void *p, size_t n, size_t size)
{
	void *q = malloc(n ? n * size : 1);

	if (q && n)
		memcpy(q, p, n * size);
	return q;
}

/* Keep the operation just over, measured, if every member joined at its begin. */
static void remember(struct coll *c, simtime_t now)
{
	struct coll_memo *m = c->memo;
	struct memo_op *o;

	if (!m->at_begin || m->n_joined != c->n || m->n_ops == MEMO_MAX || find(c, m->order))
		return;
	for (uint32_t i = 0; i < m->n_gpus; i++)
		if (!nvlink_idle(c->env.nvlink, m->gpus[i], now))
			return; /* something still in flight: not this operation alone */
	o = &m->ops[m->n_ops];
	memset(o, 0, sizeof(*o));
	o->op = (uint8_t)c->spec->op;
	o->send = c->send;
	o->bytes = c->spec->bytes;
	o->len = now - m->begin;
	o->n_call = m->n_call;
	o->nv_bytes = c->nvlink_bytes - m->nv0;
	o->order = copy_of(m->order, c->n, sizeof(*o->order));
	o->call = copy_of(m->call, m->n_call, sizeof(*o->call));
	o->rank_done = copy_of(c->rank_done, c->n, sizeof(*o->rank_done));
	o->tx = malloc((size_t)m->n_gpus * sizeof(*o->tx));
	o->rx = malloc((size_t)m->n_gpus * sizeof(*o->rx));
	o->add = malloc((size_t)m->n_gpus * sizeof(*o->add));
	if (!o->order || !o->call || !o->rank_done || !o->tx || !o->rx || !o->add) {
		op_free(o);
		return;
	}
	for (uint32_t i = 0; i < m->n_gpus; i++) {
		struct nvlink_gpu_stats s;
		simtime_t tx, rx;

		nvlink_gpu_stats(c->env.nvlink, m->gpus[i], &s);
		nvlink_sides(c->env.nvlink, m->gpus[i], &tx, &rx);
		o->tx[i] = tx > m->begin ? tx - m->begin : 0;
		o->rx[i] = rx > m->begin ? rx - m->begin : 0;
		o->add[i].tx_bytes = s.tx_bytes - m->st0[i].tx_bytes;
		o->add[i].rx_bytes = s.rx_bytes - m->st0[i].rx_bytes;
		o->add[i].tx_transfers = s.tx_transfers - m->st0[i].tx_transfers;
		o->add[i].rx_transfers = s.rx_transfers - m->st0[i].rx_transfers;
	}
	m->n_ops++;
}

void coll__memo_over(struct coll *c, simtime_t now)
{
	struct coll_memo *m = c->memo;

	if (!m)
		return;
	if (m->state == MEMO_RUN)
		remember(c, now);
	m->state = MEMO_IDLE;
}

/* The end of a replay: the collective and its GPUs as the measured
 * operation left them. */
static void replayed(struct coll *c)
{
	struct coll_memo *m = c->memo;
	const struct memo_op *o = m->cur;

	c->nvlink_bytes = m->nv0 + o->nv_bytes;
	for (uint32_t i = 0; i < m->n_gpus; i++)
		nvlink_replay(c->env.nvlink, m->gpus[i], &o->add[i], m->begin + o->tx[i],
			      m->begin + o->rx[i]);
	memcpy(c->rank_done, o->rank_done, (size_t)c->n * sizeof(*c->rank_done));
	memset(c->rank_left, 0, (size_t)c->n * sizeof(*c->rank_left));
	c->remaining = 0;
	c->ctx->replayed.ops++;
	c->ctx->replayed.time += o->len;
}

int coll__memo_replay(struct coll *c, uint32_t k)
{
	const struct memo_op *o = c->memo->cur;
	simtime_t now = evq_now(c->ctx->q);

	for (uint32_t i = k; i < o->n_call; i++) {
		if (i > k && (o->call[i].off != o->call[k].off || o->call[i].key != o->call[k].key))
			break;
		if (o->call[i].rank == COLL_MEMO_END) {
			replayed(c);
			return 1;
		}
		c->env.rank_done(c->env.up, o->call[i].rank, now);
	}
	return 0;
}
