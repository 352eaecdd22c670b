/*
 * Where a collective's traffic goes (collective.c's own): ranks are GPUs of
 * the topology's servers, and each of the collective's connections (an
 * edge: a ring's hop from one rank to the next on a channel, or an
 * all-to-all's ordered pair) runs over NVLink when both ends share a
 * server, else over a RoCE QP between two NICs.
 *
 * Rings, as NCCL builds them on servers whose NICs sit on rails (NCCL
 * src/graph/search.cc, rings.cc): a channel's ring visits the ranks in the
 * order given, a server's ranks one after the other over NVLink, rotated
 * so that they start at the GPU next to the channel's NIC; the hop between
 * two servers goes from the channel's NIC of one to the channel's NIC of
 * the next (NIC c mod K of the usable ones: channels spread over the NICs,
 * and on a rail-optimized fabric a channel stays on its rail). All-to-All:
 * between servers, from the NIC next to the sending GPU to the one next to
 * the receiving GPU. A GPU's own NIC is the usable NIC at its place in the
 * server (GPU g of G with K usable NICs: NIC g x K / G, PCIe affinity).
 *
 * Trees (AllReduce with NCCL's tree algorithm, NCCL src/graph/trees.cc and
 * connect.cc): per channel, a binary tree over the servers (in the order
 * their ranks first come), the first tree on the first half of the
 * channels and its mirror (an even count of servers) or its shift by one
 * (odd) on the rest, so
 * that a server that is a leaf in one is inside the other: NCCL's double
 * binary tree. Inside a server its ranks form a chain over NVLink, rotated
 * as a ring's to start at the GPU next to the channel's NIC; that head
 * joins the tree between servers, through the channel's NIC. Each rank but
 * the root has an edge up to its parent and one down from it.
 *
 * Without a topology (topo NULL) every rank is a server of its own
 * with one NIC, whose host index is the rank's number in ranks.
 *
 * A connection between two servers runs over qps QPs
 * (NCCL_IB_QPS_PER_CONNECTION): each a flow of its own, with an ECMP hash
 * of its own as each RoCEv2 QP has a UDP source port of its own.
 */
#ifndef ROCESIM_COLL_LAYOUT_H
#define ROCESIM_COLL_LAYOUT_H

#include <stdint.h>

struct topo;

#define COLL_NVLINK UINT32_MAX /* edge_qp of an edge over NVLink */

/* Who takes part and how: coll_spec.h's coll_place_of(spec) fills it. */
struct coll_place {
	const uint32_t *ranks; /* GPU of each rank, in order */
	uint32_t n_ranks;
	uint32_t channels;	 /* rings: channels; all-to-all: unused */
	int ring;		 /* rings, else all-to-all */
	int tree;		 /* trees (ring is 0 then) */
	const struct topo *topo; /* NULL: rank i is host ranks[i], a server of its own */
	uint64_t nics;		 /* usable NICs by position in a server; 0: all */
	uint32_t qps;		 /* QPs per connection between servers; 0 or 1: one */
};

struct coll_layout {
	uint32_t n, channels;
	uint32_t n_edges;  /* ring: n x channels, at position x channels + channel; a2a: n(n-1);
			      tree: 2 n x channels */
	uint32_t *ring;	   /* ring: [ch x n + i] the rank at position i of channel ch */
	uint32_t *pos;	   /* ring: [ch x n + r] the position of rank r on channel ch */
	uint32_t *edge_qp; /* per edge: its first QP (0 .. n_qps-1, in edge order; its qps QPs
			      follow one another), or COLL_NVLINK */
	uint32_t *qp_edge; /* per QP: its edge */
	uint32_t n_qps;
	uint32_t n_nvlink; /* edges over NVLink */
	/* tree: [ch x n + r] rank r's parent on channel ch (COLL_ROOT: none)
	 * and its children, up to COLL_KIDS (COLL_ROOT: none); its edges are
	 * 2 (ch x n + r) (up) and 2 (ch x n + r) + 1 (down) */
	uint32_t *parent, *kids;
};

#define COLL_ROOT UINT32_MAX
#define COLL_KIDS 3 /* two servers below, the next GPU of the chain */

/* 0, or -ENOMEM. */
int coll_layout_build(const struct coll_place *pl, struct coll_layout *l);
void coll_layout_free(struct coll_layout *l);
/* Edge @e's sending and receiving ranks. */
void coll_layout_ends(const struct coll_place *pl, const struct coll_layout *l, uint32_t e,
		      uint32_t *from, uint32_t *to);
/* A network edge's NICs (host indices). */
void coll_layout_nics(const struct coll_place *pl, const struct coll_layout *l, uint32_t e,
		      uint32_t *src, uint32_t *dst);
/* How many servers @pl's ranks are on (0: out of memory). */
uint32_t coll_layout_servers(const struct coll_place *pl);
/* The GPU (topology numbering) and server of rank @r. */
uint32_t coll_rank_gpu(const struct coll_place *pl, uint32_t r);
uint32_t coll_rank_server(const struct coll_place *pl, uint32_t r);

#endif
