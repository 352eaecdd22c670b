/*
 * A training job's ranks running their programs (train.h): the main
 * stream op by op, the gradients' stream beside it, and the
 * communicators, each a driven collective (collective.h) running one
 * operation at a time in the order every member issues them.
 *
 * What the collectives report (a rank has all it expects, an operation is
 * over) is acted on in an event of its own at the same instant, never
 * inside the collective's callback: the next operation begins on a
 * collective that is at rest.
 */
#include "models/train.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/collective.h"
#include "models/mctx.h"

/* A rank's timers and events (the sub of its keys: job x 4 + this). */
enum { TK_COMPUTE, TK_WAKE, TK_COMM };

/* A communicator's operation, as every member issues it. */
struct tdesc {
	uint64_t bytes;
	uint8_t op; /* enum coll_op */
	uint8_t send;
	uint8_t set; /* a member issued it */
};

struct tcomm {
	struct train *t;
	uint32_t index;
	struct coll *coll;
	struct coll_spec spec; /* the operation under way's op and bytes */
	struct tdesc *desc;    /* per operation of an iteration */
	uint32_t n_desc;
	uint32_t *rank;	  /* per member, its rank in the job */
	uint64_t *issued; /* per member: operations issued (the last one's number + 1) */
	uint64_t *over;	  /* per member: operations over for it */
	uint64_t *joined; /* per member: the operation it joined + 1 */
	uint64_t cur;	  /* the operation under way, or the next */
	int busy, start_posted;
	uint64_t done;	 /* operations completed */
	simtime_t *ends; /* plan.record: when each ended */
	uint64_t cap_ends;
};

struct trank {
	uint32_t pc, iter; /* the main stream's next op, in iteration iter */
	uint8_t waiting;   /* on the op at pc (a compute runs, or a wait) */
	uint8_t async_on;  /* the gradients' stream's first op has begun */
	uint8_t wake_posted, ended;
	simtime_t since; /* when the wait at pc began */
	uint64_t *aq;	 /* the gradients' stream: iteration << 32 | op index, a ring */
	uint32_t aq_head, aq_n, aq_cap;
	uint64_t sends, sends_over;
	struct evq_timer compute;
	simtime_t busy[TRAIN_PHASES];
	simtime_t exposed[TRAIN_DIMS];
	simtime_t end; /* its last iteration's end */
};

struct train {
	struct train_span *spans; /* plan.timeline */
	uint64_t n_spans, cap_spans;
	int spans_cut;
	uint64_t coll_bytes[TRAIN_DIMS];
	simtime_t coll_time[TRAIN_DIMS];
	struct mctx *ctx;
	const struct train_plan *p;
	struct train_env env;
	struct tcomm *comms;
	struct trank *ranks;
	simtime_t *ends; /* per iteration: when its last rank ended it */
	uint32_t ended;	 /* ranks that ended every iteration */
	uint64_t coll_done[TRAIN_DIMS];
	struct train_coll_row *rows; /* per (dimension, operation, size, ranks) */
	uint32_t n_rows, cap_rows;
};

/* Counts collective @c (of @time, from its first rank's start to its last
 * rank's end) in its (dimension, operation, size, ranks) row. */
static int count_row(struct train *t, const struct tcomm *c, simtime_t time)
{
	const struct train_comm *tc = &t->p->comms[c->index];
	struct train_coll_row key = {.dim = tc->dim,
				     .op = (uint8_t)c->spec.op,
				     .p2p = tc->p2p,
				     .ranks = c->spec.n_ranks,
				     .bytes = c->spec.bytes};
	struct train_coll_row *r = NULL;

	for (uint32_t i = 0; i < t->n_rows && !r; i++)
		if (t->rows[i].dim == key.dim && t->rows[i].op == key.op &&
		    t->rows[i].p2p == key.p2p && t->rows[i].ranks == key.ranks &&
		    t->rows[i].bytes == key.bytes)
			r = &t->rows[i];
	if (!r) {
		if (t->n_rows == t->cap_rows) {
			uint32_t cap = t->cap_rows ? 2 * t->cap_rows : 16;
			struct train_coll_row *rows = realloc(t->rows, cap * sizeof(*rows));

			if (!rows)
				return -ENOMEM;
			t->rows = rows;
			t->cap_rows = cap;
		}
		r = &t->rows[t->n_rows++];
		*r = key;
	}
	r->count++;
	r->time += time;
	return 0;
}

static uint64_t rank_key(const struct train *t, uint32_t r, unsigned sub)
{
	return evq_key(MCTX_KEY_TRAIN, r, t->env.job * 4 + sub);
}

static void rank_run(struct train *t, uint32_t r, simtime_t now);

/* plan.timeline: rank @r did @what from @start to @end. */
static void span(struct train *t, uint32_t r, uint8_t what, simtime_t start, simtime_t end)
{
	if (!t->p->timeline || end <= start)
		return;
	if (t->n_spans == t->cap_spans) {
		uint64_t cap = t->cap_spans ? 2 * t->cap_spans : 1024;
		struct train_span *s;

		if (t->n_spans >= TRAIN_SPANS_MAX) {
			t->spans_cut = 1;
			return;
		}
		if (!(s = realloc(t->spans, cap * sizeof(*s)))) {
			mctx_fail(t->ctx, -ENOMEM);
			return;
		}
		t->spans = s;
		t->cap_spans = cap;
	}
	t->spans[t->n_spans++] =
	    (struct train_span){.rank = r, .what = what, .start = start, .end = end};
}

static void on_wake(void *obj, uint64_t arg)
{
	struct train *t = obj;

	t->ranks[arg].wake_posted = 0;
	rank_run(t, (uint32_t)arg, evq_now(t->ctx->q));
}

/* Rank @r looks at its streams again, in an event of its own now. */
static void wake(struct train *t, uint32_t r)
{
	struct trank *k = &t->ranks[r];

	if (k->wake_posted)
		return;
	k->wake_posted = 1;
	if (!evq_post(t->ctx->q, evq_now(t->ctx->q), on_wake, t, r, rank_key(t, r, TK_WAKE)))
		mctx_fail(t->ctx, -ENOMEM);
}

/* ---- communicators ------------------------------------------------------ */

/* Begin operation c->cur if a member issued it, and join every member
 * that did. */
static void comm_start(struct tcomm *c, simtime_t now)
{
	uint32_t n = c->spec.n_ranks;
	const struct tdesc *d;
	int any = 0;
	int err;

	if (c->busy)
		return;
	for (uint32_t m = 0; m < n && !any; m++)
		any = c->issued[m] > c->cur;
	if (!any)
		return;
	d = &c->desc[c->cur % c->n_desc];
	c->spec.op = (enum coll_op)d->op;
	c->spec.bytes = d->bytes;
	if ((err = coll_begin(c->coll, d->send, now))) {
		mctx_fail(c->t->ctx, err);
		return;
	}
	c->busy = 1;
	for (uint32_t m = 0; m < n; m++)
		if (c->issued[m] > c->cur) {
			c->joined[m] = c->cur + 1;
			coll_join(c->coll, m);
		}
}

static void on_comm_start(void *obj, uint64_t arg)
{
	struct tcomm *c = obj;

	(void)arg;
	c->start_posted = 0;
	comm_start(c, evq_now(c->t->ctx->q));
}

/* Member @m issues operation @g of @c. */
static void comm_issue(struct tcomm *c, uint32_t m, uint64_t g, simtime_t now)
{
	c->issued[m] = g + 1;
	if (!c->busy) {
		comm_start(c, now);
	} else if (g == c->cur && c->joined[m] != g + 1) {
		c->joined[m] = g + 1;
		coll_join(c->coll, m);
	}
}

/* The collective: member @m has all it expects of the operation. */
static void on_rank_done(void *up, uint32_t m, simtime_t now)
{
	struct tcomm *c = up;
	struct train *t = c->t;
	uint32_t r = c->rank[m];

	(void)now;
	c->over[m]++;
	if (t->p->comms[c->index].p2p && m == 0)
		t->ranks[r].sends_over++;
	wake(t, r);
}

/* The collective: the operation is over everywhere; the next may begin. */
static void on_comm_finished(void *up)
{
	struct tcomm *c = up;
	struct train *t = c->t;

	c->busy = 0;
	c->cur++;
	if (t->p->record) {
		if (c->done == c->cap_ends) {
			uint64_t cap = c->cap_ends ? 2 * c->cap_ends : 64;
			simtime_t *e = realloc(c->ends, cap * sizeof(*e));

			if (!e) {
				mctx_fail(t->ctx, -ENOMEM);
				return;
			}
			c->ends = e;
			c->cap_ends = cap;
		}
		c->ends[c->done] = evq_now(t->ctx->q);
	}
	c->done++;
	{
		struct coll_stats st;
		uint8_t dim = t->p->comms[c->index].dim;

		coll_stats(c->coll, &st);
		t->coll_done[dim]++;
		t->coll_bytes[dim] += c->spec.bytes;
		t->coll_time[dim] += st.done ? st.times[0] : 0;
		if (count_row(t, c, st.done ? st.times[0] : 0)) {
			mctx_fail(t->ctx, -ENOMEM);
			return;
		}
	}
	if (c->start_posted)
		return;
	c->start_posted = 1;
	if (!evq_post(t->ctx->q, evq_now(t->ctx->q), on_comm_start, c, 0,
		      evq_key(MCTX_KEY_TRAIN, c->index, t->env.job * 4 + TK_COMM)))
		mctx_fail(t->ctx, -ENOMEM);
}

/* ---- ranks ------------------------------------------------------------- */

/* Operation number of @o (its place in the whole run) on its communicator. */
static uint64_t op_number(const struct train *t, const struct train_op *o, uint32_t iter)
{
	return (uint64_t)iter * t->comms[o->comm].n_desc + o->seq;
}

/* Is @o, issued in iteration @iter, over for its member? */
static int op_over(const struct train *t, const struct train_op *o, uint32_t iter)
{
	return t->comms[o->comm].over[o->member] > op_number(t, o, iter);
}

/* The gradients' stream of rank @r, as far as it can go. */
static void run_async(struct train *t, uint32_t r, simtime_t now)
{
	struct trank *k = &t->ranks[r];

	while (k->aq_n) {
		uint64_t x = k->aq[k->aq_head];
		const struct train_op *o = &t->p->ops[(uint32_t)x];
		uint32_t iter = (uint32_t)(x >> 32); /* the iteration that issued it */

		if (!k->async_on) {
			k->async_on = 1;
			comm_issue(&t->comms[o->comm], o->member, op_number(t, o, iter), now);
		}
		if (!op_over(t, o, iter))
			return;
		k->async_on = 0;
		k->aq_head = (k->aq_head + 1) % k->aq_cap;
		k->aq_n--;
	}
}

static void on_compute(void *obj, uint64_t arg)
{
	struct train *t = obj;
	struct trank *k = &t->ranks[arg];
	const struct train_op *o = &t->p->ops[t->p->first[arg] + k->pc];

	k->busy[o->phase] += o->arg;
	span(t, (uint32_t)arg, o->phase, evq_now(t->ctx->q) - o->arg, evq_now(t->ctx->q));
	k->waiting = 0;
	k->pc++;
	rank_run(t, (uint32_t)arg, evq_now(t->ctx->q));
}

/* Rank @r ended an iteration at @now. 1 when it has ended them all. */
static int iteration_end(struct train *t, uint32_t r, simtime_t now)
{
	struct trank *k = &t->ranks[r];

	if (now > t->ends[k->iter])
		t->ends[k->iter] = now;
	k->end = now;
	k->pc = 0;
	if (++k->iter < t->p->iterations)
		return 0;
	k->ended = 1;
	if (++t->ended == t->p->n_ranks && t->env.finished)
		t->env.finished(t->env.up);
	return 1;
}

/* Is the wait of op @o (at pc) over? */
static int wait_over(const struct train *t, const struct trank *k, const struct train_op *o)
{
	switch (o->kind) {
	case TRAIN_COLL:
	case TRAIN_RECV:
		return op_over(t, o, k->iter);
	case TRAIN_WAIT_ASYNC: /* until at most arg of its collectives are left */
		return k->aq_n <= o->arg;
	case TRAIN_WAIT_SENDS:
		return k->sends_over == k->sends;
	default:
		return 1;
	}
}

/* Rank @r's main stream, as far as it can go at @now. */
static void rank_run(struct train *t, uint32_t r, simtime_t now)
{
	const struct train_plan *p = t->p;
	struct trank *k = &t->ranks[r];
	uint32_t n_ops = p->first[r + 1] - p->first[r];

	run_async(t, r, now);
	while (!k->ended) {
		const struct train_op *o;

		if (k->pc == n_ops) {
			if (iteration_end(t, r, now))
				return;
			continue;
		}
		o = &p->ops[p->first[r] + k->pc];
		if (k->waiting) {
			if (o->kind == TRAIN_COMPUTE || !wait_over(t, k, o))
				return;
			k->exposed[o->dim] += now - k->since;
			span(t, r, (uint8_t)(TRAIN_PHASES + o->dim), k->since, now);
			k->waiting = 0;
			k->pc++;
			continue;
		}
		switch (o->kind) {
		case TRAIN_COMPUTE:
			k->waiting = 1;
			mctx_arm(t->ctx, &k->compute, now + (simtime_t)o->arg);
			return;
		case TRAIN_ASYNC:
			if (k->aq_n == k->aq_cap) {
				mctx_fail(t->ctx, -EINVAL); /* train_new sized it */
				return;
			}
			k->aq[(k->aq_head + k->aq_n++) % k->aq_cap] =
			    (uint64_t)k->iter << 32 | (p->first[r] + k->pc);
			k->pc++;
			run_async(t, r, now);
			continue;
		case TRAIN_SEND:
			k->sends++;
			/* fall through */
		case TRAIN_COLL:
		case TRAIN_RECV:
			comm_issue(&t->comms[o->comm], o->member, op_number(t, o, k->iter), now);
			if (o->kind == TRAIN_SEND) {
				k->pc++;
				continue;
			}
			break;
		default:
			break;
		}
		if (wait_over(t, k, o)) {
			k->pc++;
			continue;
		}
		k->waiting = 1;
		k->since = now;
		return;
	}
}

static void on_start(void *obj, uint64_t arg)
{
	struct train *t = obj;

	(void)arg;
	for (uint32_t r = 0; r < t->p->n_ranks; r++)
		rank_run(t, r, evq_now(t->ctx->q));
}

/* ---- the plan ------------------------------------------------------------ */

uint64_t train_qp_count(const struct train_plan *p)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->n_comms; i++)
		n += coll_qp_count(&p->comms[i].spec);
	return n;
}

/* Does @o run on a communicator? */
static int on_comm(const struct train_op *o)
{
	return o->kind == TRAIN_COLL || o->kind == TRAIN_ASYNC || o->kind == TRAIN_SEND ||
	       o->kind == TRAIN_RECV;
}

/*
 * Every communicator's operations, from its members' programs, in one pass
 * over them: d[c] (n[c] of them, the caller frees each) for communicator c,
 * what the first member to issue each says. -ENOMEM, or, when a member
 * disagrees, -EINVAL with its rank and op (ranks in order) in *@rank and
 * *@op.
 */
static int plan_descs(const struct train_plan *p, struct tdesc **d, uint32_t *n, uint32_t *rank,
		      uint32_t *op)
{
	for (uint32_t i = 0; i < p->first[p->n_ranks]; i++)
		if (on_comm(&p->ops[i]) && p->ops[i].seq + 1 > n[p->ops[i].comm])
			n[p->ops[i].comm] = p->ops[i].seq + 1;
	for (uint32_t c = 0; c < p->n_comms; c++)
		if (n[c] && !(d[c] = calloc(n[c], sizeof(**d))))
			return -ENOMEM;
	for (uint32_t r = 0; r < p->n_ranks; r++)
		for (uint32_t i = p->first[r]; i < p->first[r + 1]; i++) {
			const struct train_op *o = &p->ops[i];
			struct tdesc *x,
			    mine = {.bytes = o->arg,
				    .op = o->op,
				    .send = o->kind == TRAIN_SEND || o->kind == TRAIN_RECV,
				    .set = 1};

			if (!on_comm(o))
				continue;
			x = &d[o->comm][o->seq];
			if (!x->set) {
				*x = mine;
			} else if (x->bytes != mine.bytes || x->op != mine.op ||
				   x->send != mine.send) {
				*rank = r;
				*op = i - p->first[r];
				return -EINVAL;
			}
		}
	return 0;
}

int train_plan_check(const struct train_plan *p, uint32_t *rank, uint32_t *op)
{
	struct tdesc **d = calloc(p->n_comms ? p->n_comms : 1, sizeof(*d));
	uint32_t *n = calloc(p->n_comms ? p->n_comms : 1, sizeof(*n));
	int err = d && n ? plan_descs(p, d, n, rank, op) : -ENOMEM;

	for (uint32_t c = 0; d && c < p->n_comms; c++)
		free(d[c]);
	free(d);
	free(n);
	return err;
}

/* Each rank's gradients' stream, as long as its program's async ops. */
static int rank_queues(struct train *t)
{
	const struct train_plan *p = t->p;

	for (uint32_t r = 0; r < p->n_ranks; r++) {
		struct trank *k = &t->ranks[r];

		for (uint32_t i = p->first[r]; i < p->first[r + 1]; i++)
			k->aq_cap += p->ops[i].kind == TRAIN_ASYNC;
		k->aq_cap = k->aq_cap ? k->aq_cap : 1;
		if (!(k->aq = malloc((size_t)k->aq_cap * sizeof(*k->aq))))
			return -ENOMEM;
		evq_timer_init(&k->compute, on_compute, t, rank_key(t, r, TK_COMPUTE));
		k->compute.arg = r;
	}
	return 0;
}

/* The job's communicators, each a driven collective on its QPs. */
static int comms_new(struct train *t, struct flow *flows, uint32_t first)
{
	const struct train_plan *p = t->p;
	uint32_t max_gpu = 0, *gpu_rank;
	int err = 0;

	for (uint32_t r = 0; r < p->n_ranks; r++)
		max_gpu = p->gpu[r] > max_gpu ? p->gpu[r] : max_gpu;
	if (!(gpu_rank = malloc(((size_t)max_gpu + 1) * sizeof(*gpu_rank))))
		return -ENOMEM;
	for (uint32_t r = 0; r < p->n_ranks; r++)
		gpu_rank[p->gpu[r]] = r;
	{
		/* every communicator's operations, in one pass over the programs */
		struct tdesc **d = calloc(p->n_comms ? p->n_comms : 1, sizeof(*d));
		uint32_t *n = calloc(p->n_comms ? p->n_comms : 1, sizeof(*n)), rank, op;

		err = d && n ? plan_descs(p, d, n, &rank, &op) : -ENOMEM;
		for (uint32_t i = 0; d && n && i < p->n_comms; i++) {
			t->comms[i].desc = d[i]; /* freed with the job from here on */
			t->comms[i].n_desc = n[i];
		}
		free(d);
		free(n);
	}
	for (uint32_t i = 0; !err && i < p->n_comms; i++) {
		struct tcomm *c = &t->comms[i];
		uint32_t n = p->comms[i].spec.n_ranks;
		struct coll_env env = {.id = t->env.first_id + i,
				       .nics = t->env.nics,
				       .nvlink = t->env.nvlink,
				       .finished = on_comm_finished,
				       .up = c,
				       .driven = 1,
				       .rank_done = on_rank_done};

		c->t = t;
		c->index = i;
		c->spec = p->comms[i].spec;
		c->spec.iterations = 1;
		c->spec.late_rank = UINT32_MAX;
		c->rank = calloc(n, sizeof(*c->rank));
		c->issued = calloc(n, sizeof(*c->issued));
		c->over = calloc(n, sizeof(*c->over));
		c->joined = calloc(n, sizeof(*c->joined));
		if (!c->rank || !c->issued || !c->over || !c->joined) {
			err = -ENOMEM;
			break;
		}
		for (uint32_t m = 0; m < n; m++)
			c->rank[m] = c->spec.ranks[m] <= max_gpu ? gpu_rank[c->spec.ranks[m]] : 0;
		err = coll_new(t->ctx, &c->spec, flows, first, &env, &c->coll);
		first += (uint32_t)coll_qp_count(&c->spec);
	}
	free(gpu_rank);
	return err;
}

int train_new(struct mctx *ctx, const struct train_plan *p, struct flow *flows, uint32_t first,
	      const struct train_env *env, struct train **out)
{
	struct train *t = calloc(1, sizeof(*t));
	int err = -ENOMEM;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	t->p = p;
	t->env = *env;
	t->comms = calloc(p->n_comms ? p->n_comms : 1, sizeof(*t->comms));
	t->ranks = calloc(p->n_ranks ? p->n_ranks : 1, sizeof(*t->ranks));
	t->ends = calloc(p->iterations ? p->iterations : 1, sizeof(*t->ends));
	if (!t->comms || !t->ranks || !t->ends || (err = rank_queues(t)) ||
	    (err = comms_new(t, flows, first)))
		goto fail;
	if (!evq_post(ctx->q, p->start, on_start, t, 0,
		      evq_key(MCTX_KEY_TRAIN, 0, env->job * 4 + TK_COMM + 1))) {
		err = -ENOMEM;
		goto fail;
	}
	*out = t;
	return 0;
fail:
	train_free(t);
	return err;
}

void train_free(struct train *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; t->comms && i < t->p->n_comms; i++) {
		struct tcomm *c = &t->comms[i];

		coll_free(c->coll);
		free(c->ends);
		free(c->desc);
		free(c->rank);
		free(c->issued);
		free(c->over);
		free(c->joined);
	}
	for (uint32_t r = 0; t->ranks && r < t->p->n_ranks; r++)
		free(t->ranks[r].aq);
	free(t->comms);
	free(t->ranks);
	free(t->ends);
	free(t->spans);
	free(t->rows);
	free(t);
}

struct coll *train_coll(const struct train *t, uint32_t i)
{
	return t->comms[i].coll;
}

const struct train_span *train_timeline(const struct train *t, uint64_t *n, int *cut)
{
	*n = t->n_spans;
	*cut = t->spans_cut;
	return t->spans;
}

const simtime_t *train_comm_ends(const struct train *t, uint32_t i, uint64_t *n)
{
	*n = t->comms[i].ends ? t->comms[i].done : 0;
	return t->comms[i].ends;
}

int train_done(const struct train *t)
{
	return t->ended == t->p->n_ranks;
}

void train_stats(const struct train *t, struct train_stats *out)
{
	const struct trank *crit;
	uint32_t done = t->p->iterations;

	memset(out, 0, sizeof(*out));
	out->iterations = t->p->iterations;
	out->ends = t->ends;
	out->start = t->p->start;
	for (uint32_t r = 0; r < t->p->n_ranks; r++) {
		const struct trank *k = &t->ranks[r];

		done = k->iter < done ? k->iter : done;
		out->stalled += !k->ended;
		if (k->end > t->ranks[out->critical].end)
			out->critical = r;
	}
	out->done = done;
	crit = &t->ranks[out->critical];
	memcpy(out->compute, crit->busy, sizeof(out->compute));
	memcpy(out->exposed, crit->exposed, sizeof(out->exposed));
	memcpy(out->colls, t->coll_done, sizeof(out->colls));
	memcpy(out->coll_bytes, t->coll_bytes, sizeof(out->coll_bytes));
	memcpy(out->coll_time, t->coll_time, sizeof(out->coll_time));
	out->rows = t->rows;
	out->n_rows = t->n_rows;
	for (uint32_t i = 0; i < t->p->n_comms; i++) {
		struct coll_stats st;

		coll_stats(t->comms[i].coll, &st);
		out->network_bytes += st.network_bytes;
		out->nvlink_bytes += st.nvlink_bytes;
	}
}
