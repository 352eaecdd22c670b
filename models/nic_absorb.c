/*
 * What the parts of a split fabric add up of a NIC and of a QP: each part
 * counts what it ran, and the parts' counters are joined at the end
 * (sim/run/par.c).
 */
#include "models/nic.h"

#include "models/nic_impl.h"

void nic_absorb(struct nic *n, const struct nic_counters *s)
{
	nic_counters_add(&n->c, s);
}

void nic_counters_add(struct nic_counters *c, const struct nic_counters *s)
{
	c->tx_packets_phy += s->tx_packets_phy;
	c->tx_bytes_phy += s->tx_bytes_phy;
	c->rx_packets_phy += s->rx_packets_phy;
	c->rx_bytes_phy += s->rx_bytes_phy;
	c->rx_discards_phy += s->rx_discards_phy;
	c->np_ecn_marked_roce_packets += s->np_ecn_marked_roce_packets;
	c->np_cnp_sent += s->np_cnp_sent;
	c->rp_cnp_handled += s->rp_cnp_handled;
	c->rp_cnp_ignored += s->rp_cnp_ignored;
	c->out_of_sequence += s->out_of_sequence;
	c->duplicate_request += s->duplicate_request;
	c->packet_seq_err += s->packet_seq_err;
	c->local_ack_timeout_err += s->local_ack_timeout_err;
	c->qp_errors += s->qp_errors;
	c->retransmitted_packets += s->retransmitted_packets;
	c->retransmitted_bytes += s->retransmitted_bytes;
	c->flows_started += s->flows_started;
	c->flows_done += s->flows_done;
}

void flow_absorb(struct flow *dst, const struct flow *src, int requester, int responder)
{
	if (requester) {
		dst->bytes = src->bytes;
		dst->acked = src->acked;
		dst->n_psn = src->n_psn;
		dst->snd_nxt = src->snd_nxt;
		dst->snd_una = src->snd_una;
		dst->snd_max = src->snd_max;
		dst->sent = src->sent;
		dst->rp = src->rp;
		dst->rto_fired = src->rto_fired;
		dst->qp_error = src->qp_error;
		dst->rto_waited = src->rto_waited;
	}
	if (responder) {
		dst->finish = src->finish;
		dst->epsn = src->epsn;
		dst->received = src->received;
		dst->last_cnp = src->last_cnp;
	}
	dst->unroutable += src->unroutable;
}
