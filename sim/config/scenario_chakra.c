/*
 * A training job from Chakra execution traces (workload kind chakra), one
 * .et file a rank (sim/readers/chakra.h), as ASTRA-sim's feeder runs them:
 * a rank issues a node once the nodes it has data deps on are done.
 *
 * Each rank's nodes become its program (models/train.h) in the file's
 * order, which Chakra's converters write dependencies first: a compute
 * node a compute of its duration; a collective an operation on the
 * gradients' stream (it runs beside the compute that does not need it,
 * in issue order, as NCCL runs a stream), and a node that has a data dep
 * on it waits for it (and the ones issued before it) first; a send goes
 * without waiting, a receive waits for its data; other node types
 * (memory, metadata) take no time and are counted. The communicators:
 * the ranks whose traces run collectives of a process group (pg_name;
 * none: every rank), in rank order, matched operation by operation;
 * a send and a receive by their peers (comm_src, comm_dst). Ranks are
 * placed as a training job's (placement).
 *
 * What is left out, said in the job's notes: sends and receives without
 * a peer (the PyTorch converter writes none), skipped node types, and
 * that the exposed communication of collectives is reported under dp and
 * of sends and receives under pp (a trace does not say a group's
 * dimension).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/config/scenario_impl.h"
#include "sim/readers/chakra.h"

/* A process group: its name and members (bit per rank, ranks < 2^16). */
struct pg {
	char name[CHAKRA_PG_MAX];
	uint8_t *member;
	uint32_t comm; /* its communicator, or UINT32_MAX until made */
};

struct conv {
	const struct chakra_ranks *tr;
	struct train_plan *p;
	struct pg *pgs;
	uint32_t n_pgs;
	uint32_t *p2p;	/* [src x n + dst]: the pair's communicator, or UINT32_MAX */
	uint32_t **seq; /* per communicator, per member: operations so far */
	uint32_t n_ops, cap_ops, cap_comms;
	uint32_t no_peer;
};

static int push(struct conv *c, const struct train_op *o)
{
	if (c->n_ops == c->cap_ops) {
		uint32_t cap = c->cap_ops ? 2 * c->cap_ops : 1024;
		struct train_op *ops = realloc(c->p->ops, (size_t)cap * sizeof(*ops));

		if (!ops || cap < c->cap_ops)
			return -ENOMEM;
		c->p->ops = ops;
		c->cap_ops = cap;
	}
	c->p->ops[c->n_ops++] = *o;
	return 0;
}

/* A communicator of @n job ranks @r (indices into the job's ranks). */
static int comm_new(struct conv *c, const struct coll_spec *knobs, const uint32_t *gpus,
		    const uint32_t *r, uint32_t n, int p2p, uint32_t *out)
{
	struct train_plan *p = c->p;
	uint32_t *ranks;

	if (p->n_comms == c->cap_comms) {
		uint32_t cap = c->cap_comms ? 2 * c->cap_comms : 16;
		struct train_comm *cs = realloc(p->comms, (size_t)cap * sizeof(*cs));
		uint32_t **seq = cs ? realloc(c->seq, (size_t)cap * sizeof(*seq)) : NULL;

		if (cs)
			p->comms = cs;
		if (!seq)
			return -ENOMEM;
		c->seq = seq;
		c->cap_comms = cap;
	}
	if (!(ranks = malloc((size_t)n * sizeof(*ranks))) ||
	    !(c->seq[p->n_comms] = calloc(n, sizeof(**c->seq)))) {
		free(ranks);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++)
		ranks[k] = gpus[r[k]];
	p->comms[p->n_comms] = train_comm_of(knobs, ranks, n, p2p ? TRAIN_PP : TRAIN_DP, 0, p2p);
	*out = p->n_comms++;
	return 0;
}

/* The process groups of the traces, and who is in each. */
static int find_pgs(struct conv *c)
{
	const struct chakra_ranks *tr = c->tr;

	for (uint32_t r = 0; r < tr->n; r++)
		for (uint32_t i = 0; i < tr->ranks[r].n; i++) {
			const struct chakra_node *nd = &tr->ranks[r].nodes[i];
			uint32_t g = 0;

			if (nd->kind != CHAKRA_COMM_COLL)
				continue;
			while (g < c->n_pgs && strcmp(c->pgs[g].name, nd->pg_name))
				g++;
			if (g == c->n_pgs) {
				struct pg *pgs = realloc(c->pgs, (g + 1) * sizeof(*pgs));

				if (!pgs)
					return -ENOMEM;
				c->pgs = pgs;
				memset(&c->pgs[g], 0, sizeof(c->pgs[g]));
				snprintf(c->pgs[g].name, sizeof(c->pgs[g].name), "%s", nd->pg_name);
				c->pgs[g].comm = UINT32_MAX;
				if (!(c->pgs[g].member = calloc(tr->n, 1)))
					return -ENOMEM;
				c->n_pgs++;
			}
			c->pgs[g].member[r] = 1;
		}
	/* no name: every rank (the traces ASTRA-sim's examples hold) */
	for (uint32_t g = 0; g < c->n_pgs; g++)
		if (!c->pgs[g].name[0])
			memset(c->pgs[g].member, 1, tr->n);
	return 0;
}

static const uint8_t chakra_ops[CHAKRA_COLLS] = {
    [CHAKRA_ALL_REDUCE] = COLL_ALLREDUCE + 1,
    [CHAKRA_ALL_GATHER] = COLL_ALLGATHER + 1,
    [CHAKRA_ALL_TO_ALL] = COLL_ALLTOALL + 1,
    [CHAKRA_REDUCE_SCATTER] = COLL_REDUCESCATTER + 1,
    [CHAKRA_REDUCE_SCATTER_BLOCK] = COLL_REDUCESCATTER + 1,
};

/* Rank @r's program. @async_of: per node, its place among the rank's
 * collectives + 1 (0: not one). */
static int rank_program(struct conv *c, const struct coll_spec *knobs, const uint32_t *gpus,
			uint32_t r, uint32_t *async_of, char *why, size_t wsize)
{
	const struct chakra_trace *t = &c->tr->ranks[r];
	uint32_t issued = 0, waited = 0;
	int err = 0;

	for (uint32_t i = 0; i < t->n && !err; i++) {
		const struct chakra_node *nd = &t->nodes[i];
		uint32_t need = 0;

		async_of[i] = 0;
		/* the latest collective it needs: those before it are done too */
		for (uint32_t k = 0; k < nd->n_data_deps; k++)
			if (async_of[nd->data_deps[k]] > need)
				need = async_of[nd->data_deps[k]];
		if (need > waited) {
			err = push(c, &(struct train_op){.kind = TRAIN_WAIT_ASYNC,
							 .dim = TRAIN_DP,
							 .arg = issued - need});
			waited = need;
		}
		if (err)
			break;
		if (nd->kind == CHAKRA_COMP && nd->duration) {
			err = push(c, &(struct train_op){.kind = TRAIN_COMPUTE,
							 .phase = TRAIN_FWD,
							 .arg = nd->duration});
		} else if (nd->kind == CHAKRA_COMM_COLL) {
			uint32_t g = 0, m = 0, comm;

			if (!chakra_ops[nd->coll]) {
				snprintf(why, wsize,
					 "rank %u node %llu: %s is not run (all_reduce, "
					 "all_gather, reduce_scatter, all_to_all are)",
					 r, (unsigned long long)nd->id, chakra_coll_name(nd->coll));
				return -EINVAL;
			}
			while (strcmp(c->pgs[g].name, nd->pg_name))
				g++;
			if (c->pgs[g].comm == UINT32_MAX) {
				uint32_t *mem = malloc((size_t)c->tr->n * sizeof(*mem)), n = 0;

				if (!mem)
					return -ENOMEM;
				for (uint32_t q = 0; q < c->tr->n; q++)
					if (c->pgs[g].member[q])
						mem[n++] = q;
				err = n < 2 ? 0
					    : comm_new(c, knobs, gpus, mem, n, 0, &c->pgs[g].comm);
				free(mem);
				if (err)
					return err;
			}
			if ((comm = c->pgs[g].comm) == UINT32_MAX || !nd->bytes)
				continue; /* a group of one: nothing to send */
			for (uint32_t q = 0; q < r; q++)
				m += c->pgs[g].member[q];
			err = push(c, &(struct train_op){.kind = TRAIN_ASYNC,
							 .dim = TRAIN_DP,
							 .op = (uint8_t)(chakra_ops[nd->coll] - 1),
							 .comm = comm,
							 .member = m,
							 .seq = c->seq[comm][m]++,
							 .arg = nd->bytes});
			async_of[i] = ++issued;
		} else if (nd->kind == CHAKRA_COMM_SEND || nd->kind == CHAKRA_COMM_RECV) {
			int send = nd->kind == CHAKRA_COMM_SEND;
			uint32_t peer = send ? nd->dst : nd->src, src = send ? r : peer;
			uint32_t dst = send ? peer : r, *slot, pair[2] = {src, dst};

			if (!(send ? nd->has_dst : nd->has_src) || peer >= c->tr->n || peer == r) {
				c->no_peer++;
				continue;
			}
			slot = &c->p2p[(size_t)src * c->tr->n + dst];
			if (*slot == UINT32_MAX &&
			    (err = comm_new(c, knobs, gpus, pair, 2, 1, slot)))
				return err;
			err = push(c, &(struct train_op){.kind = send ? TRAIN_SEND : TRAIN_RECV,
							 .dim = TRAIN_PP,
							 .op = COLL_ALLTOALL,
							 .comm = *slot,
							 .member = send ? 0 : 1,
							 .seq = c->seq[*slot][send ? 0 : 1]++,
							 .arg = nd->bytes ? nd->bytes : 1});
		}
	}
	if (!err)
		err = push(c, &(struct train_op){.kind = TRAIN_WAIT_SENDS, .dim = TRAIN_PP});
	if (!err)
		err = push(c, &(struct train_op){.kind = TRAIN_WAIT_ASYNC, .dim = TRAIN_DP});
	return err;
}

int scn__chakra_plan(const struct chakra_ranks *tr, const struct coll_spec *knobs,
		     const uint32_t *gpus, struct train_plan *p, uint32_t *no_peer, char *why,
		     size_t wsize)
{
	struct conv c = {.tr = tr, .p = p};
	uint32_t *async_of = NULL, most = 1;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	why[0] = 0;
	for (uint32_t r = 0; r < tr->n; r++)
		most = tr->ranks[r].n > most ? tr->ranks[r].n : most;
	if (!(p->first = calloc((size_t)tr->n + 1, sizeof(*p->first))) ||
	    !(c.p2p = malloc((size_t)tr->n * tr->n * sizeof(*c.p2p))) ||
	    !(async_of = malloc((size_t)most * sizeof(*async_of))))
		goto out;
	memset(c.p2p, 0xff, (size_t)tr->n * tr->n * sizeof(*c.p2p));
	if ((err = find_pgs(&c)))
		goto out;
	for (uint32_t r = 0; r < tr->n && !err; r++) {
		p->first[r] = c.n_ops;
		err = rank_program(&c, knobs, gpus, r, async_of, why, wsize);
	}
	p->first[tr->n] = c.n_ops;
	p->n_ranks = tr->n;
	p->gpu = gpus;
	p->iterations = knobs->iterations ? knobs->iterations : 1;
	p->start = knobs->start;
	*no_peer = c.no_peer;
out:
	free(async_of);
	free(c.p2p);
	for (uint32_t g = 0; g < c.n_pgs; g++)
		free(c.pgs[g].member);
	free(c.pgs);
	for (uint32_t i = 0; c.seq && i < p->n_comms; i++)
		free(c.seq[i]);
	free(c.seq);
	return err;
}

void scn__chakra_plan_free(struct train_plan *p)
{
	for (uint32_t i = 0; p->comms && i < p->n_comms; i++)
		free(p->comms[i].spec.ranks);
}
