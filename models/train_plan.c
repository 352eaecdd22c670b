/*
 * A training job's plan: the communicators of its groups and every rank's
 * program, scheduled as train_plan.h says.
 */
#include "models/train_plan.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "models/mctx.h"
#include "topologies/topo.h"

int train_place(enum train_placement how, const struct topo *t, const uint8_t *taken, uint32_t n,
		uint64_t seed, uint32_t *gpus)
{
	uint32_t k = 0, free_n = 0, *all;
	gsl_rng *rng;

	for (uint32_t g = 0; g < t->n_gpus; g++)
		free_n += !taken || !taken[g];
	if (n > free_n)
		return -EINVAL;
	if (!(all = malloc(((size_t)free_n + 1) * sizeof(*all))))
		return -ENOMEM;
	if (how == TRAIN_SPREAD) { /* GPU g of every server before GPU g + 1 of any */
		for (uint32_t g = 0; k < free_n; g++)
			for (uint32_t s = 0; s < t->n_servers && k < free_n; s++) {
				uint32_t x = t->servers[s].first_gpu + g;

				if (g < t->servers[s].n_gpus && (!taken || !taken[x]))
					all[k++] = x;
			}
	} else {
		for (uint32_t g = 0; g < t->n_gpus; g++)
			if (!taken || !taken[g])
				all[k++] = g;
	}
	if (how == TRAIN_RANDOM) {
		if (!(rng = gsl_rng_alloc(gsl_rng_taus2))) {
			free(all);
			return -ENOMEM;
		}
		gsl_rng_set(rng, mctx_stream_seed(seed, 0x7a1));
		gsl_ran_shuffle(rng, all, free_n, sizeof(*all));
		gsl_rng_free(rng);
	}
	memcpy(gpus, all, (size_t)n * sizeof(*gpus));
	free(all);
	return 0;
}

int train_place_rail(const struct topo *t, const uint8_t *taken, uint32_t tp, uint32_t pp,
		     uint32_t dp, uint32_t *gpus)
{
	uint32_t g = 0, m, n_servers, k = 0, *list;
	uint64_t n = (uint64_t)tp * pp * dp;

	for (uint32_t s = 0; s < t->n_servers && !g; s++)
		g = t->servers[s].n_gpus;
	if (!g || !tp || !pp || !dp || (tp % g && g % tp))
		return -EINVAL;
	m = tp >= g ? 1 : g / tp;
	if (pp % m || n % g)
		return -EINVAL;
	n_servers = (uint32_t)(n / g);
	if (!(list = malloc(((size_t)n_servers + 1) * sizeof(*list))))
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_servers && k < n_servers; s++) {
		const struct topo_server *sv = &t->servers[s];
		uint32_t busy = 0;

		for (uint32_t x = 0; taken && x < sv->n_gpus; x++)
			busy += taken[sv->first_gpu + x] != 0;
		if (busy)
			continue;
		if (sv->n_gpus != g) {
			free(list);
			return -EDOM;
		}
		list[k++] = s;
	}
	if (k < n_servers) {
		free(list);
		return -ENOSPC;
	}
	for (uint64_t r = 0; r < n; r++) {
		uint32_t tt = (uint32_t)(r % tp), d = (uint32_t)(r / tp % dp);
		uint32_t p = (uint32_t)(r / ((uint64_t)tp * dp)), b = p / m, i = p % m;
		uint32_t slot = b % 2 ? m - 1 - i : i;

		if (m == 1) /* tp whole servers: packed over them */
			gpus[r] = t->servers[list[r / g]].first_gpu + (uint32_t)(r % g);
		else
			gpus[r] = t->servers[list[d + dp * b]].first_gpu + slot * tp + tt;
	}
	free(list);
	return 0;
}

/* ---- building ------------------------------------------------------------ */

/* What the builder keeps while it writes the programs. */
struct builder {
	const struct train_job *j;
	struct train_plan *p;
	uint32_t n_ops, cap_ops, cap_comms;
	/* communicators by group: [kind][group index] (UINT32_MAX: none yet);
	 * kinds: tp, dp, ep ring, ep a2a, dp_ep, and the p2p ones */
	uint32_t *by_group[8];
	uint32_t n_groups[8];
	uint32_t **seq;	 /* per communicator, per member: operations so far */
	uint32_t *ranks; /* every communicator's ranks, as GPUs, one after the other */
	uint32_t n_rank_ids, cap_rank_ids;
};

enum { K_TP, K_DP, K_EP, K_EP_A2A, K_DP_EP, K_DP_EP_A2A, K_P2P_FWD, K_P2P_BWD };

static uint32_t rank_of(const struct train_job *j, uint32_t t, uint32_t d, uint32_t p)
{
	return t + j->tp * (d + j->dp * p);
}

static int push_op(struct builder *b, const struct train_op *o)
{
	struct train_plan *p = b->p;

	if (b->n_ops == UINT32_MAX)
		return -ENOMEM;
	if (b->n_ops == b->cap_ops) {
		uint32_t cap = b->cap_ops ? 2 * b->cap_ops : 1024;
		struct train_op *ops = realloc(p->ops, (size_t)cap * sizeof(*ops));

		if (!ops || cap < b->cap_ops)
			return -ENOMEM;
		p->ops = ops;
		b->cap_ops = cap;
	}
	p->ops[b->n_ops++] = *o;
	return 0;
}

/* The members of group @kind of rank @r (t, d, p), in ring order, into
 * @out; their count. */
static uint32_t members(const struct train_job *j, int kind, uint32_t t, uint32_t d, uint32_t p,
			uint32_t *out, uint32_t *group)
{
	uint32_t n = 0, ep = j->ep ? j->ep : 1;

	switch (kind) {
	case K_TP:
		for (uint32_t k = 0; k < j->tp; k++)
			out[n++] = rank_of(j, k, d, p);
		*group = d + j->dp * p;
		break;
	case K_DP:
		for (uint32_t k = 0; k < j->dp; k++)
			out[n++] = rank_of(j, t, k, p);
		*group = t + j->tp * p;
		break;
	case K_EP:
	case K_EP_A2A:
		for (uint32_t k = d - d % ep; k < d - d % ep + ep; k++)
			out[n++] = rank_of(j, t, k, p);
		*group = t + j->tp * (d / ep + (j->dp / ep) * p);
		break;
	default: /* the expert-data group */
		for (uint32_t k = d % ep; k < j->dp; k += ep)
			out[n++] = rank_of(j, t, k, p);
		*group = t + j->tp * (d % ep + ep * p);
		break;
	}
	return n;
}

/* A new communicator over @n ranks @r (job ranks), of dimension @dim. */
static int comm_add(struct builder *b, const uint32_t *r, uint32_t n, int a2a, int p2p, uint8_t dim,
		    uint32_t *out)
{
	struct train_plan *p = b->p;
	struct train_comm *c;

	if (p->n_comms == b->cap_comms) {
		uint32_t cap = b->cap_comms ? 2 * b->cap_comms : 64;
		struct train_comm *cs = realloc(p->comms, (size_t)cap * sizeof(*cs));
		uint32_t **seq = realloc(b->seq, (size_t)cap * sizeof(*seq));

		if (cs)
			p->comms = cs;
		if (seq)
			b->seq = seq;
		if (!cs || !seq)
			return -ENOMEM;
		b->cap_comms = cap;
	}
	if (b->n_rank_ids + n > b->cap_rank_ids) {
		/* the specs point into this array only once it is whole (fix_ranks) */
		uint32_t cap = 2 * (b->n_rank_ids + n);
		uint32_t *ids = realloc(b->ranks, (size_t)cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		b->ranks = ids;
		b->cap_rank_ids = cap;
	}
	if (!(b->seq[p->n_comms] = calloc(n, sizeof(**b->seq))))
		return -ENOMEM;
	c = &p->comms[p->n_comms];
	/* ranks: an offset into b->ranks until the array is whole */
	*c = train_comm_of(&b->j->coll, (uint32_t *)(uintptr_t)b->n_rank_ids, n, dim, a2a, p2p);
	c->spec.start = b->j->start;
	for (uint32_t k = 0; k < n; k++)
		b->ranks[b->n_rank_ids++] = b->j->gpus[r[k]];
	*out = p->n_comms++;
	return 0;
}

/* The communicator of group @kind for rank (t, d, p), made on first use;
 * this rank's member index into *@member. */
static int comm_of(struct builder *b, int kind, uint32_t t, uint32_t d, uint32_t p, uint32_t *comm,
		   uint32_t *member)
{
	static const uint8_t dims[] = {
	    [K_TP] = TRAIN_TP,	   [K_DP] = TRAIN_DP,	 [K_EP] = TRAIN_EP,
	    [K_EP_A2A] = TRAIN_EP, [K_DP_EP] = TRAIN_DP, [K_DP_EP_A2A] = TRAIN_DP};
	const struct train_job *j = b->j;
	uint32_t r[4096], n, g, self = rank_of(j, t, d, p), *slot;
	int err;

	if (j->tp > 4096 || j->dp > 4096)
		return -EINVAL;
	n = members(j, kind, t, d, p, r, &g);
	slot = &b->by_group[kind][g];
	if (*slot == UINT32_MAX &&
	    (err = comm_add(b, r, n, kind == K_EP_A2A || kind == K_DP_EP_A2A, 0, dims[kind], slot)))
		return err;
	*comm = *slot;
	for (uint32_t k = 0; k < n; k++)
		if (r[k] == self)
			*member = k;
	return 0;
}

/* A layer's collective @c, in its phase: on the main stream, or on the
 * gradients' stream (@async). Skipped when its group has one rank. */
static int put_coll(struct builder *b, const struct train_coll *c, uint32_t t, uint32_t d,
		    uint32_t p, int async)
{
	static const int kinds[] = {[TRAIN_G_TP] = K_TP,
				    [TRAIN_G_DP] = K_DP,
				    [TRAIN_G_EP] = K_EP,
				    [TRAIN_G_DP_EP] = K_DP_EP};
	const struct train_job *j = b->j;
	uint32_t ep = j->ep ? j->ep : 1, size, comm, member;
	int kind, err;

	if (c->group == TRAIN_G_NONE || !c->bytes)
		return 0;
	size = c->group == TRAIN_G_TP	? j->tp
	       : c->group == TRAIN_G_DP ? j->dp
	       : c->group == TRAIN_G_EP ? ep
					: j->dp / ep;
	if (size < 2)
		return 0;
	kind = kinds[c->group];
	if (c->op == COLL_ALLTOALL)
		kind = kind == K_EP ? K_EP_A2A : kind == K_DP_EP ? K_DP_EP_A2A : -1;
	if (kind < 0)
		return -EINVAL; /* all-to-all in the tensor or data group: not Megatron's */
	if ((err = comm_of(b, kind, t, d, p, &comm, &member)))
		return err;
	return push_op(b, &(struct train_op){.kind = async ? TRAIN_ASYNC : TRAIN_COLL,
					     .dim = b->p->comms[comm].dim,
					     .op = c->op,
					     .comm = comm,
					     .member = member,
					     .seq = b->seq[comm][member]++,
					     .arg = c->bytes});
}

static int put_compute(struct builder *b, simtime_t dur, uint8_t phase)
{
	if (!dur)
		return 0;
	return push_op(b, &(struct train_op){.kind = TRAIN_COMPUTE, .phase = phase, .arg = dur});
}

/* A send (@send) or receive of the activations between model chunks @from
 * and @from + 1 (forward, @fwd) or their gradients (backward). */
static int put_p2p(struct builder *b, uint32_t t, uint32_t d, uint32_t from, int fwd, int send)
{
	const struct train_job *j = b->j;
	uint32_t chunks = j->pp * j->vpp, ps = from % j->pp, pr = (from + 1) % j->pp;
	uint32_t kind = fwd ? K_P2P_FWD : K_P2P_BWD, r[2], g, *slot, member;
	int err;

	if (from + 1 >= chunks)
		return -EINVAL;
	if (ps == pr || !j->pp_bytes)
		return 0; /* one stage: nothing crosses */
	/* forward: stage ps sends to pr; backward: pr sends to ps */
	r[0] = fwd ? rank_of(j, t, d, ps) : rank_of(j, t, d, pr);
	r[1] = fwd ? rank_of(j, t, d, pr) : rank_of(j, t, d, ps);
	g = t + j->tp * (d + j->dp * ps);
	slot = &b->by_group[kind][g];
	if (*slot == UINT32_MAX && (err = comm_add(b, r, 2, 1, 1, TRAIN_PP, slot)))
		return err;
	member = send ? 0 : 1;
	return push_op(b, &(struct train_op){.kind = send ? TRAIN_SEND : TRAIN_RECV,
					     .dim = TRAIN_PP,
					     .op = COLL_ALLTOALL,
					     .comm = *slot,
					     .member = member,
					     .seq = b->seq[*slot][member]++,
					     .arg = j->pp_bytes});
}

/* The layers of model chunk @m: [*lo, *hi). */
static void chunk_layers(const struct train_job *j, uint32_t m, uint32_t *lo, uint32_t *hi)
{
	uint32_t chunks = j->pp * j->vpp, per = j->n_layers / chunks, extra = j->n_layers % chunks;

	*lo = m * per + (m < extra ? m : extra);
	*hi = *lo + per + (m < extra);
}

/* Forward (@fwd) or backward of micro-batch @mb on chunk @v of rank (t, d, p). */
static int put_pass(struct builder *b, uint32_t t, uint32_t d, uint32_t p, uint32_t v, uint32_t mb,
		    int fwd)
{
	const struct train_job *j = b->j;
	uint32_t m = v * j->pp + p, chunks = j->pp * j->vpp, lo, hi;
	int err = 0, last_mb = mb + 1 == j->ga;

	chunk_layers(j, m, &lo, &hi);
	if (fwd) {
		if (m > 0 && (err = put_p2p(b, t, d, m - 1, 1, 0)))
			return err;
		for (uint32_t l = lo; !err && l < hi; l++)
			if (!(err = put_compute(b, j->layers[l].fwd, TRAIN_FWD)))
				err = put_coll(b, &j->layers[l].fwd_c, t, d, p, 0);
		if (!err && m + 1 < chunks)
			err = put_p2p(b, t, d, m, 1, 1);
		return err;
	}
	if (m + 1 < chunks && (err = put_p2p(b, t, d, m, 0, 0)))
		return err;
	for (uint32_t l = hi; !err && l-- > lo;) {
		const struct train_layer *ly = &j->layers[l];
		int grads = ly->wg_c.group == TRAIN_G_DP || ly->wg_c.group == TRAIN_G_DP_EP;

		if (!(err = put_compute(b, ly->ig, TRAIN_IG)) &&
		    !(err = put_coll(b, &ly->ig_c, t, d, p, 0)) &&
		    !(err = put_compute(b, ly->wg, TRAIN_WG)) && (!grads || last_mb))
			err = put_coll(b, &ly->wg_c, t, d, p, grads);
	}
	if (!err && m > 0)
		err = put_p2p(b, t, d, m - 1, 0, 1);
	return err;
}

/* The k-th forward or backward of stage @p: its chunk and micro-batch. */
static void virtual_mb(const struct train_job *j, uint32_t k, int fwd, uint32_t *v, uint32_t *mb)
{
	uint32_t group = j->pp * j->vpp, in = k % group;

	*v = fwd ? in / j->pp : j->vpp - 1 - in / j->pp;
	*mb = (k / group) * j->pp + in % j->pp;
}

/* Rank (t, d, p)'s program of one iteration. */
static int put_program(struct builder *b, uint32_t t, uint32_t d, uint32_t p)
{
	const struct train_job *j = b->j;
	uint32_t total = j->ga * j->vpp, warm, v, mb;
	simtime_t update = 0;
	int err = 0;

	if (j->vpp == 1)
		warm = j->pp - p - 1;
	else
		warm = j->ga == j->pp ? total : (j->pp - p - 1) * 2 + (j->vpp - 1) * j->pp;
	warm = warm < total ? warm : total;
	for (uint32_t k = 0; !err && k < warm; k++) {
		virtual_mb(j, k, 1, &v, &mb);
		err = put_pass(b, t, d, p, v, mb, 1);
	}
	for (uint32_t k = 0; !err && k < total - warm; k++) {
		virtual_mb(j, warm + k, 1, &v, &mb);
		if (!(err = put_pass(b, t, d, p, v, mb, 1))) {
			virtual_mb(j, k, 0, &v, &mb);
			err = put_pass(b, t, d, p, v, mb, 0);
		}
	}
	for (uint32_t k = total - warm; !err && k < total; k++) {
		virtual_mb(j, k, 0, &v, &mb);
		err = put_pass(b, t, d, p, v, mb, 0);
	}
	if (err)
		return err;
	for (uint32_t v2 = 0; v2 < j->vpp; v2++) {
		uint32_t lo, hi;

		chunk_layers(j, v2 * j->pp + p, &lo, &hi);
		for (uint32_t l = lo; l < hi; l++)
			update += j->layers[l].update;
	}
	if ((err = push_op(b, &(struct train_op){.kind = TRAIN_WAIT_SENDS, .dim = TRAIN_PP})) ||
	    (err = push_op(b, &(struct train_op){.kind = TRAIN_WAIT_ASYNC, .dim = TRAIN_DP})))
		return err;
	return put_compute(b, update, TRAIN_UPDATE);
}

static int layout_ok(const struct train_job *j)
{
	uint32_t ep = j->ep ? j->ep : 1;

	return j->tp && j->pp && j->dp && j->vpp && j->ga && j->dp % ep == 0 &&
	       j->n_layers >= j->pp * j->vpp && (j->vpp == 1 || j->ga % j->pp == 0) &&
	       (uint64_t)j->tp * j->pp * j->dp <= UINT32_MAX / 2;
}

int train_plan_build(const struct train_job *j, struct train_plan *p)
{
	struct builder b = {.j = j, .p = p};
	uint32_t n = j->tp * j->pp * j->dp;
	uint32_t groups = n + 1;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	if (!layout_ok(j))
		return -EINVAL;
	p->n_ranks = 0;
	p->iterations = j->iterations ? j->iterations : 1;
	p->start = j->start;
	p->tokens = j->tokens;
	p->samples = j->samples;
	p->gpu = j->gpus;
	if (!(p->first = calloc((size_t)n + 1, sizeof(*p->first))))
		return -ENOMEM;
	for (int k = 0; k < 8; k++) {
		if (!(b.by_group[k] = malloc((size_t)groups * sizeof(*b.by_group[k]))))
			goto out;
		memset(b.by_group[k], 0xff, (size_t)groups * sizeof(*b.by_group[k]));
	}
	err = 0;
	/* rank by rank, in rank order: first[r] is where its program starts */
	for (uint32_t r = 0; !err && r < n; r++) {
		uint32_t t = r % j->tp, d = (r / j->tp) % j->dp, s = r / (j->tp * j->dp);

		p->first[r] = b.n_ops;
		err = put_program(&b, t, d, s);
	}
	p->first[n] = b.n_ops;
	p->n_ranks = n;
	/* every communicator's ranks point into the array, now whole */
	for (uint32_t c = 0; !err && c < p->n_comms; c++)
		p->comms[c].spec.ranks = b.ranks + (uintptr_t)p->comms[c].spec.ranks;
out:
	for (int k = 0; k < 8; k++)
		free(b.by_group[k]);
	for (uint32_t c = 0; b.seq && c < p->n_comms; c++)
		free(b.seq[c]);
	free(b.seq);
	p->rank_ids = b.ranks;
	if (err)
		train_plan_free(p);
	return err;
}

void train_plan_free(struct train_plan *p)
{
	free(p->comms);
	free(p->ops);
	free(p->first);
	free(p->rank_ids);
	memset(p, 0, sizeof(*p));
}

int train_plan_sweep(const struct coll_spec *knobs, const uint32_t *gpus, uint32_t n_ranks,
		     enum coll_op op, const uint64_t *sizes, uint32_t n_sizes, uint32_t warmup,
		     uint32_t iters, struct train_plan *p)
{
	uint64_t per = (uint64_t)n_sizes * (warmup + iters), n_ops = per * n_ranks;

	memset(p, 0, sizeof(*p));
	if (n_ranks < 2 || !per || n_ops > UINT32_MAX / 2)
		return -EINVAL;
	p->comms = calloc(1, sizeof(*p->comms));
	p->rank_ids = malloc((size_t)n_ranks * sizeof(*p->rank_ids));
	p->first = calloc((size_t)n_ranks + 1, sizeof(*p->first));
	p->ops = calloc(n_ops, sizeof(*p->ops));
	if (!p->comms || !p->rank_ids || !p->first || !p->ops) {
		train_plan_free(p);
		return -ENOMEM;
	}
	memcpy(p->rank_ids, gpus, (size_t)n_ranks * sizeof(*gpus));
	p->comms[0] = train_comm_of(knobs, p->rank_ids, n_ranks, TRAIN_DP, op == COLL_ALLTOALL, 0);
	p->n_comms = 1;
	p->n_ranks = n_ranks;
	p->gpu = p->rank_ids;
	p->iterations = 1;
	p->start = knobs->start;
	p->record = 1;
	for (uint32_t r = 0; r < n_ranks; r++) {
		p->first[r] = (uint32_t)(r * per);
		for (uint64_t k = 0; k < per; k++)
			p->ops[r * per + k] = (struct train_op){.kind = TRAIN_COLL,
								.op = (uint8_t)op,
								.member = r,
								.seq = (uint32_t)k,
								.arg = sizes[k / (warmup + iters)]};
	}
	p->first[n_ranks] = (uint32_t)n_ops;
	return 0;
}
