/*
 * A collective's statistics and progress, and what a fabric split over
 * processes asks of it: the credits' delays, which ranks run here, the
 * iterations the parts finish at their own pace, and the statistics the
 * parts put together (collective.h).
 */
#include <stdlib.h>
#include <string.h>

#include "models/collective.h"
#include "models/collective_impl.h"
#include "models/mctx.h"
#include "models/nic.h"

void coll_progress(const struct coll *c, uint64_t *done, uint64_t *total)
{
	uint64_t per_peer = c->spec->bytes / c->n, per_iter;

	/* what first_sends and the ring's forwards post, every iteration */
	per_iter = coll__is_tree(c)   ? 2 * (uint64_t)c->channels * (c->n - 1) * c->seg
		   : coll__is_ring(c) ? (uint64_t)c->lay.n_edges * c->steps * c->seg
				      : (uint64_t)c->lay.n_edges * (per_peer ? per_peer : 1);
	*total = per_iter * c->spec->iterations;
	*done = c->nvlink_bytes;
	for (uint32_t i = 0; i < c->n_qps; i++)
		*done += c->qps[i].received;
}

void coll_stats(const struct coll *c, struct coll_stats *out)
{
	out->op = c->spec->op;
	out->algo = coll__is_tree(c) ? COLL_TREE : COLL_RING;
	out->bytes = c->spec->bytes;
	out->ranks = c->n;
	out->iterations = c->spec->iterations;
	out->done = c->done;
	out->times = c->times;
	out->rank_done = c->rank_done;
	out->nvlink_bytes = c->nvlink_bytes;
	out->qps = c->qps;
	out->n_qps = c->n_qps;
	out->qps_per_conn = c->place.qps > 1 ? c->place.qps : 1;
	out->split = c->spec->split && c->place.qps > 1;
	out->network_bytes = 0;
	for (uint32_t i = 0; i < c->n_qps; i++)
		out->network_bytes += c->qps[i].received;
}

/* ---- credits' delays, a split fabric, statistics from the parts ---------------- */

void coll_credit_delay(struct coll *c, uint32_t qp, simtime_t delay)
{
	if (qp < c->n_qps)
		c->credit_delay[qp] = delay;
}

void coll_split(struct coll *c, const uint32_t *rank_part, uint32_t me)
{
	c->rank_part = rank_part;
	c->me = me;
}

int coll_waiting(const struct coll *c, simtime_t *since)
{
	*since = c->waiting_at;
	return c->waiting;
}

simtime_t coll_barrier(const struct coll *c)
{
	return c->env.barrier;
}

void coll_resume(struct coll *c, simtime_t at)
{
	c->waiting = 0;
	mctx_arm(c->ctx, &c->start_timer, at);
}

int coll_credit_in(struct coll *c, simtime_t at, uint64_t arg, uint64_t key)
{
	return evq_post(c->ctx->q, at, coll__on_credit, c, arg, key) ? 0 : -ENOMEM;
}

/* The blob: iterations done, NVLink bytes, each iteration's time, each
 * rank's completion. */
size_t coll_stats_size(const struct coll *c)
{
	return 2 * sizeof(uint64_t) + ((size_t)c->spec->iterations + c->n) * sizeof(simtime_t);
}

void coll_stats_save(const struct coll *c, void *buf)
{
	uint64_t head[2] = {c->done, c->nvlink_bytes};
	char *at = buf;

	memcpy(at, head, sizeof(head));
	at += sizeof(head);
	memcpy(at, c->times, c->spec->iterations * sizeof(*c->times));
	at += c->spec->iterations * sizeof(*c->times);
	memcpy(at, c->rank_done, c->n * sizeof(*c->rank_done));
}

void coll_stats_absorb(struct coll *c, const void *buf)
{
	uint64_t head[2];
	const char *at = buf;
	simtime_t t;

	memcpy(head, at, sizeof(head));
	at += sizeof(head);
	/* done where every part is done; the iteration ends with its last rank */
	if (head[0] < c->done)
		c->done = (uint32_t)head[0];
	c->nvlink_bytes += head[1];
	for (uint32_t i = 0; i < c->spec->iterations; i++, at += sizeof(t)) {
		memcpy(&t, at, sizeof(t));
		if (t > c->times[i])
			c->times[i] = t;
	}
	for (uint32_t r = 0; r < c->n; r++, at += sizeof(t)) {
		memcpy(&t, at, sizeof(t));
		if (t > c->rank_done[r])
			c->rank_done[r] = t;
	}
}
