/*
 * Switch: forwards each packet to an egress port on a shortest path (ECMP by
 * flow hash), queues it FIFO per priority in a shared buffer, and serves the
 * queues of a port in strict priority. Buffer admission in this version is
 * tail drop against the shared pool (switch.buffer.size) and an optional
 * static cap per egress port (switch.buffer.per_port).
 */
#ifndef ROCESIM_SWITCH_H
#define ROCESIM_SWITCH_H

#include <stdint.h>

struct net;
struct sw;

struct sw_counters {
	uint64_t buffer_used, buffer_peak; /* frame bytes in the shared pool */
	uint64_t drops, drop_bytes;
	uint64_t unroutable;
};

struct sw *sw_new(struct net *net, uint32_t node);
void sw_free(struct sw *s);
/* Drop what waits for a port whose link went down (counted as drops). */
void sw_port_down(struct sw *s, uint32_t local_port);
const struct sw_counters *sw_counters(const struct sw *s);

#endif
