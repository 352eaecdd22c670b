/*
 * NVLink transfers (nvlink.h): per GPU, when its send side and its receive
 * side are next free, and the transfers coming in, in the order their last
 * bytes land (always the order they were posted in, per receiver: see
 * nvlink_send), with one timer for the first of them.
 */
#include "models/nvlink.h"

#include <errno.h>
#include <stdlib.h>

#include "models/mctx.h"

struct nv_delivery {
	simtime_t at;
	uint64_t bytes, cookie;
	nvlink_done_fn fn;
	void *owner;
};

struct nv_gpu {
	simtime_t tx_free, rx_free; /* when each side is done with what it has */
	struct nv_delivery *fifo;   /* a ring: head, count, cap (a power of two) */
	uint32_t head, count, cap;
	struct evq_timer timer; /* the head's delivery */
	struct nvlink_gpu_stats st;
	uint32_t users; /* collectives that claimed it */
};

struct nvlink {
	struct mctx *ctx;
	struct nvlink_params p;
	struct nv_gpu *gpus;
	uint32_t n_gpus;
	uint64_t inflight;
};

static void on_delivery(void *obj, uint64_t arg)
{
	struct nvlink *nv = obj;
	struct nv_gpu *g = &nv->gpus[arg];
	struct nv_delivery d = g->fifo[g->head];

	g->head = (g->head + 1) & (g->cap - 1);
	g->count--;
	g->st.rx_bytes += d.bytes;
	g->st.rx_transfers++;
	nv->inflight -= d.bytes;
	d.fn(d.owner, (uint32_t)arg, d.cookie, d.at);
	/* the callback may have posted to this GPU and armed it already */
	if (g->count && !evq_pending(nv->ctx->q, &g->timer))
		mctx_arm(nv->ctx, &g->timer, g->fifo[g->head].at);
}

struct nvlink *nvlink_new(struct mctx *ctx, const struct nvlink_params *p, uint32_t n_gpus)
{
	struct nvlink *nv = calloc(1, sizeof(*nv));

	if (!nv || !(nv->gpus = calloc(n_gpus ? n_gpus : 1, sizeof(*nv->gpus)))) {
		free(nv);
		return NULL;
	}
	nv->ctx = ctx;
	nv->p = *p;
	nv->n_gpus = n_gpus;
	for (uint32_t i = 0; i < n_gpus; i++) {
		evq_timer_init(&nv->gpus[i].timer, on_delivery, nv, evq_key(MCTX_KEY_GPU, i, 0));
		nv->gpus[i].timer.arg = i;
	}
	return nv;
}

void nvlink_free(struct nvlink *nv)
{
	if (!nv)
		return;
	/* as every model's, its timers go with the run's queue */
	for (uint32_t i = 0; i < nv->n_gpus; i++)
		free(nv->gpus[i].fifo);
	free(nv->gpus);
	free(nv);
}

static int fifo_push(struct nv_gpu *g, const struct nv_delivery *d)
{
	if (g->count == g->cap) {
		uint32_t cap = g->cap ? 2 * g->cap : 8;
		struct nv_delivery *f = malloc((size_t)cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		for (uint32_t i = 0; i < g->count; i++)
			f[i] = g->fifo[(g->head + i) & (g->cap - 1)];
		free(g->fifo);
		g->fifo = f;
		g->head = 0;
		g->cap = cap;
	}
	g->fifo[(g->head + g->count) & (g->cap - 1)] = *d;
	g->count++;
	return 0;
}

/*
 * The sender's side starts when it is done with earlier sends; the first
 * byte reaches the receiver `latency` later, or when the receiver is done
 * with earlier transfers; the last byte lands `bytes / rate` after the
 * receiver starts. Each receiver's deliveries are thus strictly later than
 * the ones posted to it before (each takes at least 1 ps).
 */
int nvlink_send(struct nvlink *nv, uint32_t src, uint32_t dst, uint64_t bytes, nvlink_done_fn fn,
		void *owner, uint64_t cookie)
{
	struct nv_gpu *s = &nv->gpus[src], *r = &nv->gpus[dst];
	simtime_t now = evq_now(nv->ctx->q), ser = simtime_tx(bytes, nv->p.rate_bps);
	simtime_t tx_start = s->tx_free > now ? s->tx_free : now;
	simtime_t rx_start = ck_add_sat(tx_start, nv->p.latency);
	struct nv_delivery d = {.bytes = bytes, .cookie = cookie, .fn = fn, .owner = owner};
	int err;

	if (r->rx_free > rx_start)
		rx_start = r->rx_free;
	d.at = ck_add_sat(rx_start, ser);
	if ((err = fifo_push(r, &d)))
		return err;
	s->tx_free = ck_add_sat(tx_start, ser);
	r->rx_free = d.at;
	s->st.tx_bytes += bytes;
	s->st.tx_transfers++;
	nv->inflight += bytes;
	if (r->count == 1 && !evq_pending(nv->ctx->q, &r->timer))
		return evq_arm(nv->ctx->q, &r->timer, d.at);
	return 0;
}

void nvlink_gpu_stats(const struct nvlink *nv, uint32_t gpu, struct nvlink_gpu_stats *out)
{
	*out = nv->gpus[gpu].st;
}

uint64_t nvlink_inflight_bytes(const struct nvlink *nv)
{
	return nv->inflight;
}

int nvlink_claim(struct nvlink *nv, uint32_t gpu)
{
	if (gpu >= nv->n_gpus)
		return -EINVAL;
	nv->gpus[gpu].users++;
	return 0;
}

uint32_t nvlink_users(const struct nvlink *nv, uint32_t gpu)
{
	return nv->gpus[gpu].users;
}

int nvlink_idle(const struct nvlink *nv, uint32_t gpu, simtime_t now)
{
	const struct nv_gpu *g = &nv->gpus[gpu];

	return !g->count && g->tx_free <= now && g->rx_free <= now;
}

void nvlink_sides(const struct nvlink *nv, uint32_t gpu, simtime_t *tx_free, simtime_t *rx_free)
{
	*tx_free = nv->gpus[gpu].tx_free;
	*rx_free = nv->gpus[gpu].rx_free;
}

void nvlink_replay(struct nvlink *nv, uint32_t gpu, const struct nvlink_gpu_stats *add,
		   simtime_t tx_free, simtime_t rx_free)
{
	struct nv_gpu *g = &nv->gpus[gpu];

	g->st.tx_bytes += add->tx_bytes;
	g->st.rx_bytes += add->rx_bytes;
	g->st.tx_transfers += add->tx_transfers;
	g->st.rx_transfers += add->rx_transfers;
	if (tx_free > g->tx_free)
		g->tx_free = tx_free;
	if (rx_free > g->rx_free)
		g->rx_free = rx_free;
}
