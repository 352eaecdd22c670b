/*
 * Topology: the fabric as a graph of hosts and switches joined by
 * full-duplex links, the generators that build the usual shapes, and the
 * names users and tests refer to (docs/scenario.md, "Names"):
 *   servers h0, h1, ... in order; star: sw0; leaf_spine: leaf<i>, spine<j>
 *   (servers numbered leaf by leaf); fat_tree: edge<pod>_<i>, agg<pod>_<i>,
 *   core<i>; ring: sw0.. in ring order; rail: leaf<group x K + rail>,
 *   spine<j>. A link is named "a-b" by its ends ("a-b#1" for a second
 *   parallel link); a port "node:peer" ("node:peer#1").
 *
 * Servers: a topology host (TOPO_HOST node) is one NIC port of a server. A
 * server with one NIC is the node named as the server ("h0"); one with K > 1
 * NICs is K consecutive host nodes "h0/nic0".."h0/nic<K-1>", each with one
 * link. GPUs are not nodes: "h0/gpu<g>" names an entry of the GPU table,
 * numbered server by server.
 *
 * Ports: the ports of a node are its links in the order the generator added
 * them; port p of node u is t->ports[t->nodes[u].first_port + p].
 */
#ifndef ROCESIM_TOPO_H
#define ROCESIM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"

enum topo_kind {
	TOPO_STAR,
	TOPO_LEAF_SPINE,
	TOPO_FAT_TREE,
	TOPO_RING,
	TOPO_FILE,
	TOPO_SONIC,
	TOPO_HPCC,
	TOPO_RAIL
};
enum topo_node_kind { TOPO_HOST, TOPO_SWITCH };

#define TOPO_NAME_MAX 48

/* One end of a link as seen from a node. */
struct topo_port {
	uint32_t node;	    /* owner */
	uint32_t peer;	    /* node at the other end */
	uint32_t link;	    /* index in topo.links */
	uint32_t peer_port; /* global index (in topo.ports) of the far end */
	char name[2 * TOPO_NAME_MAX + 8];
};

struct topo_node {
	char name[TOPO_NAME_MAX];
	enum topo_node_kind kind;
	uint32_t first_port; /* index in topo.ports */
	uint32_t n_ports;
	uint32_t host_index; /* position among hosts (hosts only) */
	uint32_t server;     /* hosts: its server, else UINT32_MAX */
	uint32_t nic;	     /* hosts: its position among the server's NICs, else UINT32_MAX */
};

/* A server: its NIC ports (topology hosts, "endpoints") and its GPUs. */
struct topo_server {
	char name[TOPO_NAME_MAX]; /* "h0" */
	uint32_t first_nic;	  /* index in topo.server_nics of its nic0 */
	uint32_t n_nics;
	uint32_t first_gpu; /* global index of its gpu0 (GPUs numbered server by server) */
	uint32_t n_gpus;
};

struct topo_link {
	uint32_t a, b;		 /* node indices */
	uint32_t port_a, port_b; /* global port indices */
	uint64_t rate_bps;
	simtime_t delay; /* propagation, one way */
	int up;		 /* 0 once failed */
	char name[2 * TOPO_NAME_MAX + 8];
};

/* Link parameters: rate, and delay from the cable (5 ns/m) or given. */
struct topo_linkspec {
	uint64_t rate_bps;
	simtime_t delay;
};

/*
 * kind sonic: the fabric as the switches' SONiC configs describe it
 * (DEVICE_NEIGHBOR, PORT speed, CABLE_LENGTH), plain data the scenario
 * reads from their config_db.json files (topo_sonic.c builds it).
 */
struct topo_sonic_port {
	const char *name;  /* "Ethernet16" */
	uint64_t rate_bps; /* PORT speed; 0: not given */
	simtime_t delay;   /* from CABLE_LENGTH, when has_delay */
	int has_delay;
	const char *nbr, *nbr_port; /* DEVICE_NEIGHBOR name and port */
	int line;		    /* of its DEVICE_NEIGHBOR row */
	uint32_t index;		    /* among its switch's ports, in its config's order */
};

struct topo_sonic_switch {
	const char *name;		     /* its hostname */
	const char *file;		     /* its config_db.json, for messages */
	const struct topo_sonic_port *ports; /* those with a neighbour, in order */
	uint32_t n_ports;
};

struct topo_sonic {
	const struct topo_sonic_switch *switches; /* in order */
	uint32_t n_switches;
};

/* What the scenario asks for; counts not used by a kind are ignored. */
/* topology.links: one link's own rate (0: keep) and delay (has_delay). */
struct topo_link_set {
	const char *name; /* from either end, "leaf0-spine1" */
	const char *key;  /* what errors name: "topology.links.leaf0-spine1" */
	uint64_t rate_bps;
	simtime_t delay;
	int has_delay;
};

struct topo_spec {
	enum topo_kind kind;
	uint32_t hosts;					   /* star */
	uint32_t leaves, spines, hosts_per_leaf, parallel; /* leaf_spine */
	uint32_t k;					   /* fat_tree (even, >= 2) */
	uint32_t switches, hosts_per_switch;		   /* ring */
	uint32_t nics_per_host, gpus_per_host; /* 0: defaults (1 NIC; as many GPUs as NICs) */
	uint32_t servers, servers_per_leaf;    /* kind rail (with spines, parallel) */
	uint64_t nvlink_bps;
	simtime_t nvlink_latency; /* carried for the models, not used by topo */
	const char *file;	  /* file: path to the topology YAML; hpcc: to the HPCC file */
	const struct topo_sonic *sonic; /* sonic: the switches' configs */
	struct topo_linkspec link;	/* host links */
	struct topo_linkspec uplink;	/* switch-switch links */
	/* links of their own rate or cable, over what the kind built; borrowed */
	const struct topo_link_set *link_sets;
	uint32_t n_link_sets;
};

struct topo {
	struct topo_node *nodes;
	uint32_t n_nodes;
	struct topo_link *links;
	uint32_t n_links;
	struct topo_port *ports;
	uint32_t n_ports;
	uint32_t *hosts; /* node index of host i (h0, h1, ...) */
	uint32_t n_hosts;
	uint32_t n_switches;
	struct topo_server *servers; /* in node order */
	uint32_t n_servers;
	uint32_t *server_nics; /* host indices of the NICs, server by server, nic0 first */
	uint32_t n_gpus;       /* all servers' GPUs */
	uint32_t *gpu_server;  /* per GPU, its server */
	/* kind sonic: per port, a switch port's index among its config's ports
	 * (topo_sonic_port.index), UINT32_MAX for a host's; NULL for other kinds */
	uint32_t *port_cfg;
};

/*
 * Build @spec of a generated kind (star, leaf_spine, fat_tree, ring, rail)
 * or of kind sonic into a new topology, with its link sets. Returns 0, or a
 * negative error with @d saying what is impossible (key path relative to
 * "topology"). The kinds read from a file (file, hpcc) are built by the
 * readers' topo_build (sim/readers/topo_read.h), which takes every kind.
 */
int topo_generate(const struct topo_spec *spec, struct topo **out, struct diag *d);
/* @spec's link sets (topology.links) over *@t, which is freed and NULL
 * on an error: what topo_generate and topo_build apply last. */
int topo_set_links(const struct topo_spec *spec, struct topo **t, struct diag *d);
void topo_free(struct topo *t);

/*
 * Assembling a topology by hand, as the generators and the file loader do:
 * topo_new(), nodes and links in the order their ports should take, then
 * topo_finish() lays out the ports, names links and ports and fills the
 * host, server NIC and GPU tables. Indices returned are final. Negative errors: -EINVAL (bad
 * name, unknown node, link to itself, rate 0), -E2BIG (a node with more
 * than TOPO_MAX_PORTS ports, or more than TOPO_MAX_ELEMS nodes or links),
 * -ENOMEM. topo_finish() refuses duplicate node or link names, with the
 * path "nodes[i].name" or "links[i]" of the later one.
 */
#define TOPO_MAX_PORTS 65535u	  /* next hops are uint16_t local ports */
#define TOPO_MAX_ELEMS (1u << 22) /* nodes, and links, per topology */

struct topo *topo_new(void);
/* A host added here is a server of its own: one NIC, one GPU. */
int32_t topo_add_node(struct topo *t, const char *name, enum topo_node_kind kind);
/*
 * Add server @name with @n_nics host nodes (1..TOPO_MAX_NICS, consecutive,
 * named @name when one, else "<name>/nic<i>") and @n_gpus GPUs (0: as many
 * as NICs, at most TOPO_MAX_GPUS). Returns the node index of its nic0.
 */
#define TOPO_MAX_NICS 64u
#define TOPO_MAX_GPUS 64u
int32_t topo_add_server(struct topo *t, const char *name, uint32_t n_nics, uint32_t n_gpus);
int32_t topo_add_link(struct topo *t, uint32_t a, uint32_t b, const struct topo_linkspec *spec);
int topo_finish(struct topo *t, struct diag *d);

/*
 * kind sonic: build the fabric @spec->sonic describes. Nodes: the hosts
 * (neighbours that are no switch of the description, named as
 * DEVICE_NEIGHBOR names them, one link each) in the order first met, then
 * the switches in order. Links: the hosts' (the switch port's speed and
 * cable, else topology.link's), then between switches, each once, in the
 * order the switches and their ports come (the speed both ends give, the
 * longer of their cables, else topology.uplink's). Both ends of a link
 * between switches must name each other; errors name the switch's file,
 * the line and "DEVICE_NEIGHBOR|port", and the other file.
 */
int topo_sonic_load(const struct topo_spec *spec, struct topo **out, struct diag *d);

/*
 * Lookups by name; return the index or -1. A node or host may be named by
 * its server when the server has several NICs: "h0" is then "h0/nic0".
 */
int32_t topo_find_node(const struct topo *t, const char *name);
int32_t topo_find_host(const struct topo *t, const char *name);	  /* host index */
int32_t topo_find_server(const struct topo *t, const char *name); /* server index */
int32_t topo_find_gpu(const struct topo *t, const char *name);	  /* "h0/gpu3": GPU index */
/* A link by its name, from either end ("spine1-leaf0" is leaf0-spine1); -1 if none. */
int32_t topo_find_link(const struct topo *t, const char *name);

/*
 * Routes: for every node and destination host, the set of ports on shortest
 * paths over the links that are up (ECMP). Hosts never forward, so paths run
 * through switches only. An empty set means unreachable.
 */
struct topo_routes;

int topo_routes_build(const struct topo *t, struct topo_routes **out);
void topo_routes_free(struct topo_routes *r);
/* Ports (local indices, 0..n_ports-1 of @node) towards host @dst_host. */
const uint16_t *topo_next_hops(const struct topo_routes *r, uint32_t node, uint32_t dst_host,
			       uint32_t *count);
/* Hop count from @node to host @dst_host, or UINT32_MAX if unreachable. */
uint32_t topo_distance(const struct topo_routes *r, uint32_t node, uint32_t dst_host);
/* The most hops any reachable (node, host) pair is apart: at least the
 * longest path between two hosts over the links that are up. */
uint32_t topo_routes_diameter(const struct topo_routes *r);

/*
 * The propagation delay of the path a packet of a flow with ECMP hash
 * @hash takes from host @src to host @dst (host indices) over @r, the
 * choice at each switch made as the switches make it (topo_ecmp_pick),
 * plus, for a @frame of more than 0 bytes on the wire, its serialization
 * on each link (store and forward: the latency of that frame on the empty
 * path); SIMTIME_NEVER when no route leads there.
 */
simtime_t topo_path_delay(const struct topo *t, const struct topo_routes *r, uint32_t src,
			  uint32_t dst, uint64_t hash, uint32_t frame);

/* The ports (their global indices) that the path of topo_path_delay
 * leaves by, in order: the first @max of them written to @ports; returns
 * how many there are, UINT32_MAX when no route leads there. */
uint32_t topo_path_ports(const struct topo *t, const struct topo_routes *r, uint32_t src,
			 uint32_t dst, uint64_t hash, uint32_t *ports, uint32_t max);

/* Deterministic per-flow ECMP choice among @count ports at @node (a
 * fat-tree's k/2 uplinks are a power of 2: a mask then, the same answer
 * as the division, which costs 20 cycles or more). */
static inline uint32_t topo_ecmp_pick(uint64_t flow_hash, uint32_t node, uint32_t count)
{
	uint64_t x = flow_hash ^ ((uint64_t)node * 0x9e3779b97f4a7c15ULL);
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	if (!(count & (count - 1)))
		return (uint32_t)(x & (count - 1));
	return (uint32_t)(x % count);
}

#endif
