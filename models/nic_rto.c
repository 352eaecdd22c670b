/*
 * NIC: what happens when a QP's retransmission deadline passes (the
 * deadlines themselves are pushed out on progress in nic.c, on the ACK
 * path): going back to the oldest unacknowledged PSN, the InfiniBand retry
 * count and ConnectX adaptive retransmission, and a QP that fails.
 */
#include <stdint.h>

#include "models/mctx.h"
#include "models/nic.h"
#include "models/nic_impl.h"

/*
 * Retries exhausted: the QP goes to the error state (IBV_WC_RETRY_EXC_ERR)
 * and sends nothing more, its message and any posted later never complete.
 * snd_una and snd_nxt at their largest keep it out of every path: ACKs and
 * NAKs find nothing to acknowledge, the ring and the timer nothing to send.
 */
static void qp_fail(struct nic *n, struct flow *f)
{
	nic__ring_unlink(n, f);
	f->qp_error = 1;
	f->snd_una = f->snd_nxt = UINT32_MAX;
	f->rto_at = 0;
	n->c.qp_errors++;
}

/*
 * A QP whose deadline passed without progress. The InfiniBand transport:
 * each timeout (4.096 us x 2^nic.transport.timeout) goes back to the oldest
 * unacknowledged PSN, and the QP fails after retry_cnt retries in a row.
 * ConnectX adaptive retransmission (NVIDIA, "Adaptive Retransmission:
 * Algorithm & Profile Description and Formulas"): the first timeout after
 * progress is short (adaptive_first), each one after it doubles, capped by
 * the QP's timeout, and the QP fails when no progress came for its timeout
 * x retry_cnt. [choice] a doubling every timeout and a reset to the first
 * on progress: the profile's ranges and decrement mode are firmware's.
 */
static void rto_fire(struct nic *n, struct flow *f, simtime_t now)
{
	const struct nic_params *prm = n->prm;
	simtime_t first = prm->rto_first ? prm->rto_first : prm->timeout;

	if (!f->rto_run || f->snd_una != f->rto_una) { /* the first since progress */
		f->rto_run = 0;
		f->rto_cur = first;
		f->rto_since = now - first;
	}
	f->rto_run += f->rto_run < UINT8_MAX;
	f->rto_una = f->snd_una;
	n->c.local_ack_timeout_err++;
	f->rto_fired += f->rto_fired < UINT16_MAX;
	f->rto_waited += f->rto_cur;
	if (prm->adaptive_retrans ? now - f->rto_since >= prm->timeout * prm->retry_cnt
				  : f->rto_run > prm->retry_cnt) {
		qp_fail(n, f);
		return;
	}
	nic__go_back(n, f, f->snd_una);
	if (prm->adaptive_retrans)
		f->rto_cur = 2 * f->rto_cur < prm->timeout ? 2 * f->rto_cur : prm->timeout;
	f->rto_at = now + f->rto_cur;
}

void nic__on_rto(void *obj, uint64_t arg)
{
	struct nic *n = obj;
	simtime_t now = evq_now(n->ctx->q), next = SIMTIME_NEVER;

	(void)arg;
	for (uint32_t i = 0; i < n->n_qps; i++) {
		struct flow *f = n->qps[i];

		if (!f->rto_at)
			continue;
		if (f->snd_una >= f->n_psn) {
			f->rto_at = 0; /* nothing outstanding */
			continue;
		}
		if (f->rto_at <= now)
			rto_fire(n, f, now);
		if (f->rto_at && f->rto_at < next)
			next = f->rto_at;
	}
	if (next != SIMTIME_NEVER)
		mctx_arm(n->ctx, &n->rto, next);
}
