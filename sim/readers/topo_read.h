/*
 * Topologies read from a file (sim/readers): a topology YAML file (kind
 * file, topofile.c) and HPCC's ns-3 topology.txt (kind hpcc, topo_hpcc.c),
 * both from the file a scenario names (topo_read.c), and topo_build
 * (topo_build.c), which builds a topology of any kind: these read, the
 * others generated (topologies/topo.h: topo_generate).
 */
#ifndef ROCESIM_TOPO_READ_H
#define ROCESIM_TOPO_READ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"
#include "topologies/topo.h"

/* Build @spec into a new topology, of whatever kind. Returns 0, or a
 * negative error with @d saying what is impossible (key path relative to
 * "topology"). */
int topo_build(const struct topo_spec *spec, struct topo **out, struct diag *d);

/* kind file: load @spec->file (topofile.c). Errors
 * name the topology file, its line and the key path ("links[3].b"); a file
 * that cannot be read is reported at "topology.file" with file "". */
int topo_file_load(const struct topo_spec *spec, struct topo **out, struct diag *d);
/*
 * topo_read.c: the text of @spec's topology.file for topology kind @kind
 * (a file kind needs one) into *@text (@len bytes, free it): 0, or the
 * error with @d naming topology.file (the scenario's line is its caller's
 * to add).
 */
int topo_read_spec_file(const struct topo_spec *spec, const char *kind, char **text, size_t *len,
			struct diag *d);

/*
 * kind hpcc: the topology file of HPCC's ns-3 simulation (simulation/mix/
 * topology.txt, read by scratch/third.cc): a line "node_num switch_num
 * link_num", a line of the switch ids, then "src dst rate delay error_rate"
 * a link ("0 4 100Gbps 0.001ms 0"). Node ids run 0..node_num-1; a host is
 * named h<id>, a switch s<id>, nodes come in id order (hosts numbered in
 * it) and ports in the order of the links. Only error rate 0 is taken.
 */
struct topo_hpcc_link {
	uint32_t a, b;
	uint64_t rate_bps;
	simtime_t delay;
	int line;
};

struct topo_hpcc {
	uint32_t n_nodes, n_switches;
	uint8_t *is_switch; /* per node id */
	struct topo_hpcc_link *links;
	uint32_t n_links;
};

/* Parse @text (@len bytes) named @file in errors, which give its line. */
int topo_hpcc_parse(const char *file, const char *text, size_t len, struct topo_hpcc *h,
		    struct diag *d);
/* Read @file (sim/engine/textfile.h) and parse it; -EINVAL, -ENOMEM. */
int topo_hpcc_read(const char *file, struct topo_hpcc *h, struct diag *d);
void topo_hpcc_free(struct topo_hpcc *h);
/* Node @id's name into @buf (TOPO_NAME_MAX bytes). */
void topo_hpcc_name(const struct topo_hpcc *h, uint32_t id, char *buf);
/* kind hpcc: build @spec->file; a file that cannot be read is reported at
 * "topology.file" with file "", as kind file does. */
int topo_hpcc_load(const struct topo_spec *spec, struct topo **out, struct diag *d);

#endif
