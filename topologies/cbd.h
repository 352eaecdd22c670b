/*
 * Cyclic buffer dependencies (CBD): the static deadlock analysis of PFC.
 *
 * For one lossless priority, the nodes are ingress buffers (switch, ingress
 * port), named by the port ("sw1:sw0" is sw1's buffer for what arrives from
 * sw0). A packet held in one buffer waits for the next switch's ingress
 * buffer on its route, so every route that traffic of that priority can
 * take adds edges between consecutive switch ingress buffers (all ECMP
 * choices). A cycle in this graph is a possible PFC deadlock (Hu et al., HotNets 2016).
 */
#ifndef ROCESIM_CBD_H
#define ROCESIM_CBD_H

#include <stddef.h>
#include <stdint.h>

#include "topologies/topo.h"

/* One source-destination pair of a priority's traffic (host indices). */
struct cbd_pair {
	uint32_t src, dst;
	uint8_t prio;
};

struct cbd_cycle {
	uint8_t prio;
	uint32_t n;	 /* number of buffers */
	uint32_t *ports; /* global port indices (topo.ports), in dependency order */
};

struct cbd_result {
	uint32_t n_cycles; /* cycles listed, shortest first */
	struct cbd_cycle *cycles;
	uint32_t n_sccs;	   /* strongly connected components with a cycle */
	int truncated;		   /* more cycles exist than were listed */
	uint32_t n_nodes, n_edges; /* size of the graphs analysed (all priorities) */
};

/*
 * Analyse the routes @r of @t. With @pairs, only their routes count (the
 * scenario's workload); with @pairs NULL, every ordered pair of hosts on
 * every priority of @lossless (the fabric, whatever runs on it). Lists at
 * most @max_cycles elementary cycles per priority. 0 or -ENOMEM.
 */
int cbd_analyze(const struct topo *t, const struct topo_routes *r, uint8_t lossless,
		const struct cbd_pair *pairs, size_t n_pairs, uint32_t max_cycles,
		struct cbd_result *out);
void cbd_result_free(struct cbd_result *res);

/*
 * The cycle search alone, on a graph given by its edges (node ids below
 * @n_nodes; duplicates are ignored): what cbd_analyze runs on the graph of
 * each priority, open to tests. The cycles list node ids and carry @prio.
 * 0, -EINVAL (an edge names a node out of range) or -ENOMEM.
 */
int cbd_cycles(uint32_t n_nodes, const uint32_t (*edges)[2], size_t n_edges, uint8_t prio,
	       uint32_t max_cycles, struct cbd_result *out);

#endif
