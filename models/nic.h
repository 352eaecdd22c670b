/*
 * NIC: segments its flows into MTU-sized RoCEv2 packets and sends them at
 * line rate, sharing its port round-robin between active flows (one packet
 * each in turn); obeys PFC PAUSE on the priorities of nic.pfc; receives
 * data and completes a flow when its last byte arrives. This version has
 * no transport (ACKs, retransmission) and no congestion control: a lost
 * packet is lost.
 */
#ifndef ROCESIM_NIC_H
#define ROCESIM_NIC_H

#include <stdint.h>

struct net;
struct nic;
struct flow;

struct nic_counters {
	uint64_t tx_packets_phy, tx_bytes_phy, rx_packets_phy, rx_bytes_phy;
	uint64_t rx_discards_phy;
	uint64_t np_ecn_marked_roce_packets; /* CE-marked data received */
	uint64_t flows_started, flows_done;
};

struct nic *nic_new(struct net *net, uint32_t host);
void nic_free(struct nic *n);
/* Add @f to the NIC's active flows and start sending. */
void nic_start_flow(struct nic *n, struct flow *f);
const struct nic_counters *nic_counters(const struct nic *n);

#endif
