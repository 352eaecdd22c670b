/*
 * NIC: RoCEv2 reliable-connection (RC) queue pairs over one port.
 *
 * Requester: each flow is one QP; its message is cut into MTU packets with
 * PSNs. QPs share the port round-robin, one packet each in turn, each paced
 * at its DCQCN rate (line rate with nic.cc: none); a QP whose priority is
 * paused by PFC waits. ACKs (cumulative, every nic.transport.ack_every
 * packets and on the last) complete the message; a NAK (sequence error)
 * makes the QP go back to the PSN it names (go-back-N); with no progress
 * for the retransmission timeout (4.096 us x 2^nic.transport.timeout) the
 * QP goes back to its oldest unacknowledged PSN.
 *
 * Responder: accepts packets in PSN order, drops any other (one NAK per
 * gap, a re-ACK for duplicates), and as DCQCN notification point answers a
 * CE-marked packet with a CNP, at most one per QP every
 * np_min_time_between_cnps, on the CNP DSCP/priority. ACKs, NAKs and CNPs
 * go out ahead of data.
 *
 * Traffic classes (nic_params.tc_on): a QP is of the class its priority
 * maps to; the port serves the classes as ConnectX does (nic_tc.c):
 * vendor classes first, then strict ones (the higher class first), then
 * ETS ones sharing what is left by their bandwidth percentages; a class
 * with a rate limit sends no faster than that, the sum of its QPs.
 *
 * Slow receiver (nic.rx_buffer with nic.rx_rate): data waits in a receive
 * buffer that the host empties at rx_rate; the NIC sends PAUSE on its PFC
 * priorities when the buffer reaches its size less the link's headroom,
 * refreshes it, and resumes two frames lower; a packet that finds the
 * buffer full is discarded (rx_discards_phy).
 */
#ifndef ROCESIM_NIC_H
#define ROCESIM_NIC_H

#include <stdint.h>

#include "sim/engine/evq.h"
#include "sim/engine/simtime.h"
#include "models/dcqcn.h"
#include "models/nic_tc.h"

/*
 * ConnectX adaptive retransmission (NVIDIA, "Adaptive Retransmission:
 * Parameters Control"): the firmware's smallest base timeout is 4 us; the
 * first timeout of its default profile is not published, 262.144 us
 * (4.096 us x 2^6) is this model's assumption (nic.transport.adaptive_first).
 */
#define NIC_ADAPTIVE_MIN (4 * SIMTIME_US)
#define NIC_ADAPTIVE_FIRST (262144 * SIMTIME_NS)

struct coll;
struct mctx;
struct nic;
struct port;

enum nic_cc { NIC_CC_NONE, NIC_CC_DCQCN };

/* What every NIC of the fabric is configured with. */
struct nic_params {
	uint32_t mtu;	       /* payload bytes per packet */
	uint8_t priority;      /* 802.1p priority of RDMA data */
	uint8_t dscp;	       /* DSCP of RDMA data */
	uint8_t pfc;	       /* priorities whose PAUSE the NIC obeys */
	uint8_t dscp2prio[64]; /* the NIC's map (mlx5 default: DSCP >> 3) */
	int ecn;	       /* data packets are ECN-capable (ECT) */
	enum nic_cc cc;
	uint64_t rx_buffer;   /* receive buffer of a slow host, 0 = none */
	uint64_t rx_rate;     /* ... and the rate the host empties it */
	uint32_t ack_every;   /* ACK every this many packets (and the last) */
	uint32_t timeout_exp; /* retransmission timeout 4.096 us x 2^this */
	simtime_t timeout;
	uint32_t retry_cnt;	  /* timeouts retried without progress before the QP fails */
	int adaptive_retrans;	  /* ConnectX adaptive retransmission (see nic.c) */
	simtime_t adaptive_first; /* its first timeout after progress */
	simtime_t rto_first;	  /* the first timeout after progress: either of the two */
	struct dcqcn_params dcqcn;
	/* egress per traffic class (nic.tc, mlnx_qos's tc lines); with tc_on 0
	 * (the default) every QP is of one class and the port serves them alike */
	int tc_on;
	uint8_t prio_tc[8]; /* the class of each priority */
	struct nic_tc_params tc[8];
};

/* A message posted on a queue pair. */
struct qp_msg {
	uint64_t bytes;
	uint32_t first_psn, n_psn;
	uint32_t tag; /* the poster's own id (a collective's step and piece) */
};

/* The timers of a flow (MCTX_KEY_FLOW): its start, its DCQCN rate cut
 * and increase, and a fast-forward's next message completion (ff.h). */
enum nic_flow_timer { NIC_FLOW_START, NIC_FLOW_CUT, NIC_FLOW_INC, NIC_FLOW_FF };

/* Which ends of a flow this part of a split fabric runs (both when whole). */
enum nic_side { NIC_SIDE_BOTH, NIC_SIDE_REQUESTER, NIC_SIDE_RESPONDER, NIC_SIDE_NONE };

/*
 * A flow: one RC queue pair from src to dst, with the requester's state
 * (at src) and the responder's (at dst). A workload flow carries one
 * message; a collective's QP carries one message per step it takes part in,
 * posted as its data dependencies are met.
 */
struct flow {
	/* who it is, and the requester's cursor: every packet sent reads this
	 * line, an ACK or CNP built at the responder its first half (the
	 * groups below each start a line: the flows array is aligned) */
	uint32_t id;
	uint32_t src, dst;
	uint32_t hash;
	uint8_t dscp, prio;
	uint8_t side; /* enum nic_side */
	uint8_t in_ring;
	uint32_t wait_slot; /* position + 1 in the NIC's pacing heap, 0 = not there */
	struct qp_msg *msgs;
	uint32_t tx_msg;		    /* requester: message holding snd_nxt (a cursor) */
	uint32_t tx_first, tx_end;	    /* requester: PSNs of msgs[tx_msg] as last read */
	uint32_t n_psn;			    /* requester: packets posted so far */
	uint32_t snd_nxt, snd_una, snd_max; /* next, oldest unacked, highest sent + 1 */
	uint32_t last_wire;		    /* pacing: the wire bytes of the last data packet */

	/* the rest of the requester's */
	simtime_t last_tx
	    __attribute__((aligned(64))); /* pacing: when the last data packet started */
	uint64_t sent;			  /* payload bytes sent, first transmissions */
	simtime_t rto_at;		  /* retransmission deadline, 0 = none (nic.c) */
	simtime_t inc_armed;		  /* inc_timer's time while pending, else NEVER:
					     what a packet sent checks, not the timer */
	simtime_t wait_key;		  /* when it may send, as last computed */
	struct flow *next_active;	  /* the NIC's round-robin ring */
	struct nic *nic;		  /* the requester's NIC (nic_open_qp) */
	struct coll *coll;  /* the collective this QP belongs to, or NULL (opaque here) */
	struct dcqcn_rp rp; /* its first line what a packet sent touches */

	/* responder */
	uint32_t epsn __attribute__((aligned(64))); /* next PSN expected */
	uint32_t unacked;			    /* accepted since the last ACK */
	uint64_t received;			    /* payload bytes accepted in order */
	uint32_t rx_msg;			    /* next message to complete */
	uint8_t nak_sent;			    /* one NAK per gap */
	uint8_t cnp_sent_once;
	uint16_t rto_fired; /* requester: retransmission timeouts (saturates);
			       in the padding before last_cnp */
	simtime_t last_cnp; /* NP: when the last CNP left for this QP */
	simtime_t finish;   /* workload flow: last byte received in order, 0 until then */
	uint32_t n_msgs, cap_msgs;
	uint64_t bytes;	 /* posted so far */
	simtime_t rx_at; /* when the last packet was accepted in order (ff.c) */
	simtime_t start;

	simtime_t acked;     /* workload flow: the requester saw the last ACK, 0 until then */
	uint64_t unroutable; /* its packets (data, ACK, CNP) dropped for want of a route */
	/* timers last: a packet's path does not read them */
	struct evq_timer start_timer;
	struct evq_timer cut_timer, inc_timer; /* DCQCN */
	/* retransmission timeouts in a row (nic.c: on_rto), in the padding */
	simtime_t rto_cur;    /* the timeout the pending deadline was set with */
	simtime_t rto_since;  /* the last progress before the first of them */
	simtime_t rto_waited; /* all its timeouts' time, for results */
	uint32_t rto_una;     /* snd_una when the last fired: progress since? */
	uint8_t rto_run;      /* how many in a row without progress */
	uint8_t qp_error;     /* retries exhausted: the QP is in the error state */
} __attribute__((aligned(64)));

/*
 * Named as ethtool -S and the RDMA hw_counters name them (Linux mlx5
 * counters.rst and drivers/infiniband/hw/mlx5/counters.c).
 */
struct nic_counters {
	uint64_t tx_packets_phy, tx_bytes_phy, rx_packets_phy, rx_bytes_phy;
	uint64_t rx_discards_phy;
	uint64_t np_ecn_marked_roce_packets; /* CE-marked data received */
	uint64_t np_cnp_sent;
	uint64_t rp_cnp_handled;
	uint64_t rp_cnp_ignored;	/* CNPs for a QP without DCQCN */
	uint64_t out_of_sequence;	/* data beyond the expected PSN, dropped */
	uint64_t duplicate_request;	/* data below the expected PSN */
	uint64_t packet_seq_err;	/* NAKs (sequence error) received */
	uint64_t local_ack_timeout_err; /* retransmission timeouts */
	uint64_t qp_errors;		/* QPs failed: retry count exceeded */
	uint64_t retransmitted_packets, retransmitted_bytes;
	uint64_t flows_started, flows_done;
};

/* What a NIC reports upwards; the fabric fills it in (net.c). */
struct nic_ops {
	/* a message posted with @tag arrived whole at @qp's responder */
	void (*msg_done)(void *up, struct flow *qp, uint32_t tag, simtime_t now);
};

/*
 * The NIC of host @host with @prm (borrowed, as are the others), on
 * @port (already joined to its peer, see port_init). @flows is the
 * fabric's table of QPs, by the id packets carry; @ops (required) with
 * @up is told of every message that arrives. NULL when out of memory.
 * The NIC's struct is @ctx's (ctx->mem): nic_free frees the rest.
 */
struct nic *nic_new(struct mctx *ctx, const struct nic_params *prm, uint32_t host,
		    struct port *port, struct flow *flows, const struct nic_ops *ops, void *up);
void nic_free(struct nic *n);
/* Open @f's QP and send its one message of f->bytes (a workload flow); an
 * event: a failure ends the run (mctx_fail). */
void nic_start_flow(struct nic *n, struct flow *f);
/* Open @f's QP with nothing to send yet (a collective's QP). 0 or -ENOMEM. */
__attribute__((warn_unused_result)) int nic_open_qp(struct nic *n, struct flow *f);
/* Post a message of @bytes on @f's QP; @tag comes back when it is received
 * (nic_ops.msg_done). 0 or -ENOMEM. */
__attribute__((warn_unused_result)) int nic_post(struct nic *n, struct flow *f, uint64_t bytes,
						 uint32_t tag);
const struct nic_counters *nic_counters(const struct nic *n);
/* A message posted on @f by its requester in another part (mctx_part.post)
 * reaches this part's responder. 0 or -ENOMEM. */
__attribute__((warn_unused_result)) int nic_msg_in(struct flow *f, const struct qp_msg *m);
/* Add @src, counted by another part of a split fabric, to @n's counters. */
void nic_absorb(struct nic *n, const struct nic_counters *src);
/* Add counters @src to @dst (nic_absorb's sum). */
void nic_counters_add(struct nic_counters *dst, const struct nic_counters *src);
/*
 * Take into @dst what another part knows of it (@src, that part's copy):
 * the requester's side when that part ran the requester, the responder's
 * when it ran the responder; packets dropped for want of a route, counted
 * wherever they were dropped, are summed.
 */
void flow_absorb(struct flow *dst, const struct flow *src, int requester, int responder);

/*
 * What a fast-forward (models/ff.h) does to a NIC and its QPs
 * (nic_ff.c): hold the NIC's data (@on 1: it sends control packets only,
 * so that the network drains) and let it go (0: it sends again); its
 * counters, to extrapolate; move the times the NIC and a QP keep on by
 * @dt; advance @f, drained (snd_nxt == epsn), by @k packets delivered at
 * its steady rate (both ends), returning their payload bytes; and
 * complete its responder's next message at @now, as the last packet's
 * arrival would.
 */
void nic_ff_hold(struct nic *n, int on);
struct nic_counters *nic_ff_counters(struct nic *n);
/* Whether its QPs react to congestion (DCQCN). */
int nic_ff_dcqcn(const struct nic *n);
void nic_ff_shift(struct nic *n, simtime_t dt);
void nic_ff_flow_shift(struct flow *f, simtime_t dt);
uint64_t nic_ff_advance(struct flow *f, uint32_t k, uint32_t mtu);
void nic_ff_msg_done(struct nic *resp, struct flow *f, simtime_t now);

/* Packets of one size among those a span delivers (nic_ff_walk). */
struct nic_ff_size {
	uint32_t frame; /* bytes, headers included, preamble not */
	uint64_t count;
};
#define NIC_FF_SIZES 8

/*
 * The next @k packets @f delivers, from its epsn, before nic_ff_advance
 * moves it on: told to @fn in groups of one frame size (at most
 * NIC_FF_SIZES groups a call, in no particular order). Returns the ACKs
 * its responder sends for them, one every @ack_every packets and one at
 * each message's end, as responder_data does, and moves its count of
 * packets since the last ACK on to match.
 */
uint64_t nic_ff_walk(struct flow *f, uint32_t k, uint32_t mtu, uint32_t ack_every,
		     void (*fn)(void *ctx, const struct nic_ff_size *sz, uint32_t n), void *ctx);
/* The DSCP of the CNPs @n sends (np_cnp_dscp). */
uint8_t nic_ff_cnp_dscp(const struct nic *n);

#endif
