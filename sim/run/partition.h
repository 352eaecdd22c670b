/*
 * Splitting a fabric into parts, one per process of a parallel run, along
 * switch boundaries: a server (its NICs and GPUs) stays with the switch of
 * its first NIC, a switch is never split, and the links whose ends land in
 * different parts (the cut) are as few as the fabric's structure allows.
 *
 * Where the switches form tiers (leaf-spine, fat-tree, rail), the groups
 * below the top tier (a fat-tree's pods, each leaf of a leaf-spine, a rail
 * group's leaves with their servers) go whole to parts of about equal
 * weight, in order, and the top tier's switches are spread evenly; this is
 * how ns-3's and OMNeT++'s users split such fabrics by hand. Otherwise
 * (rings, stars of stars, files) parts are grown breadth first over the
 * switch graph from a switch next to the parts already made, each to its
 * share of the weight. A switch weighs its ports (a packet's hop costs
 * about the same events at either end).
 *
 * The lookahead is the smallest propagation delay of a cut link: a packet
 * (or PAUSE frame) that finishes leaving one part at t cannot arrive in
 * another before t + lookahead, so each part may run that far ahead of the
 * others without waiting for them.
 */
#ifndef ROCESIM_PARTITION_H
#define ROCESIM_PARTITION_H

#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"
#include "topologies/topo.h"

enum part_method {
	PART_SINGLE, /* one part: the whole fabric */
	PART_GROUPS, /* groups below the top tier, the top tier spread */
	PART_GRAPH,  /* breadth-first growing over the switch graph */
};

struct partition {
	uint32_t n_parts;
	enum part_method method;
	uint32_t *node_part; /* per topology node, its part */
	uint32_t n_groups;   /* PART_GROUPS: the groups found below the top tier */
	uint32_t n_cut;	     /* links with ends in different parts */
	uint32_t cut_min;    /* the cut link with the smallest delay (UINT32_MAX: none) */
	simtime_t lookahead; /* its delay; SIMTIME_NEVER when nothing is cut */
};

/* Per part: what it holds. */
struct part_load {
	uint32_t switches, hosts, ports;
	uint32_t cut; /* cut links with an end in it */
};

/*
 * Split @t into @n_parts (>= 1). -EINVAL, said in @d, when it cannot be
 * done: more parts than switches, or a cut link without propagation delay
 * (nothing could run ahead); -ENOMEM.
 */
int part_build(const struct topo *t, uint32_t n_parts, struct partition *p, struct diag *d);
void part_free(struct partition *p);
/* The load of part @k of @p on @t. */
void part_load(const struct partition *p, const struct topo *t, uint32_t k, struct part_load *out);
const char *part_method_str(enum part_method m);

#endif
