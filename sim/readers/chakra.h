/*
 * Chakra execution traces (MLCommons Chakra, github.com/mlcommons/chakra):
 * one file a rank, a stream of length-delimited protobuf messages (a
 * varint byte count, then the message, as Chakra's protolib.py
 * encodeMessage writes them): first a GlobalMetadata, then the Nodes of
 * schema/protobuf/et_def.proto (sim/readers/chakra_et.proto). Files are
 * named "<prefix>.<rank>.et", as Chakra's converters write them and
 * ASTRA-sim's workload option reads them (chakra_read_dir).
 *
 * What is kept of a node is what Chakra's own feeder (src/feeder/
 * et_feeder_node.cpp) reads: id, name, type, duration_micros, the data and
 * control deps and the attributes comm_type, comm_size, comm_src,
 * comm_dst, comm_tag, pg_name, involved_dim and is_cpu_op. An integer
 * attribute is taken from whichever integer field of AttributeProto holds
 * it (the converters write comm_size as int64_val, others as uint64_val).
 *
 * Computation (COMP_NODE), collectives (COMM_COLL_NODE) and point-to-point
 * sends and receives (COMM_SEND_NODE, COMM_RECV_NODE) are read; a node of
 * any other type (METADATA_NODE, MEM_LOAD_NODE, ... or a number the schema
 * does not name) is kept as CHAKRA_OTHER, so that the deps through it
 * hold, and counted by type in chakra_trace.skipped for the caller to say
 * so.
 *
 * Deps are resolved to node indices, as the feeder resolves them: a data
 * dep may name a node later in the file, and one naming no node of the
 * file is refused (the feeder would wait on it forever). Control deps
 * (the caller-callee relation of PyTorch traces, which the feeder does
 * not follow) that name no node are dropped and counted (ctrl_unknown):
 * Chakra's PyTorch converter leaves some behind when it removes dangling
 * nodes. A cycle of data deps is refused; cycles of control deps are not
 * looked for.
 *
 * Refused: an empty file, a length running past the end of the file, a
 * message protobuf cannot unpack, two nodes with one id, a collective
 * without comm_type or comm_size, a send or receive without comm_size, an
 * attribute of the wrong kind (a string for comm_size, a comm_type the
 * schema does not name), a file with no node. A send or receive need not
 * name its peer: the PyTorch converter writes comm_size and pg_name only
 * (has_src, has_dst, has_tag say which were there).
 */
#ifndef ROCESIM_CHAKRA_H
#define ROCESIM_CHAKRA_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"

/* Names longer than these are truncated (to a valid NUL-ended string). */
#define CHAKRA_NAME_MAX 128
#define CHAKRA_PG_MAX 64
/* NodeType numbers counted one by one; higher ones share the last count. */
#define CHAKRA_TYPES 12
/* The most nodes of one file, and of ranks in one folder. */
#define CHAKRA_NODES_MAX (1u << 24)
#define CHAKRA_RANKS_MAX 65536u

enum chakra_kind {
	CHAKRA_COMP,
	CHAKRA_COMM_COLL,
	CHAKRA_COMM_SEND,
	CHAKRA_COMM_RECV,
	CHAKRA_OTHER,
};

/* CollectiveCommType of et_def.proto, same numbers. */
enum chakra_coll {
	CHAKRA_ALL_REDUCE,
	CHAKRA_REDUCE,
	CHAKRA_ALL_GATHER,
	CHAKRA_GATHER,
	CHAKRA_SCATTER,
	CHAKRA_BROADCAST,
	CHAKRA_ALL_TO_ALL,
	CHAKRA_REDUCE_SCATTER,
	CHAKRA_REDUCE_SCATTER_BLOCK,
	CHAKRA_BARRIER,
	CHAKRA_COLLS
};

struct chakra_node {
	uint64_t id;
	char name[CHAKRA_NAME_MAX];
	enum chakra_kind kind;
	uint32_t type;		/* the NodeType number of the file */
	simtime_t duration;	/* duration_micros, in ps */
	simtime_t start;	/* start_time_micros, in ps (0 when not recorded) */
	enum chakra_coll coll;	/* comm_type, of a CHAKRA_COMM_COLL only */
	uint64_t bytes;		/* comm_size, 0 when not given */
	uint32_t src, dst, tag; /* comm_src, comm_dst, comm_tag */
	uint8_t has_src, has_dst, has_tag;
	uint8_t is_cpu_op;	     /* 1 unless the attribute says 0, as the feeder */
	char pg_name[CHAKRA_PG_MAX]; /* "" when not given */
	/* involved_dim: bit i for dimension i (at most 64), of n_dims */
	uint64_t dims;
	uint32_t n_dims;
	/* deps as indices into chakra_trace.nodes, in the file's order */
	uint32_t *data_deps, n_data_deps;
	uint32_t *ctrl_deps, n_ctrl_deps;
};

struct chakra_trace {
	char version[32];	   /* GlobalMetadata.version, "" when none or old */
	char schema[64];	   /* the metadata's "schema" attribute, "" when none */
	struct chakra_node *nodes; /* in the file's order */
	uint32_t n;
	/* nodes kept as CHAKRA_OTHER, by NodeType number */
	uint32_t skipped[CHAKRA_TYPES];
	uint32_t ctrl_unknown; /* control deps naming no node, dropped */
};

/* A folder of ranks' traces, ordered by rank. */
struct chakra_ranks {
	char prefix[256]; /* the files' "<prefix>" */
	struct chakra_trace *ranks;
	uint32_t n;
};

/*
 * Parse the @len bytes of @data, named @path in errors, into @t (free it
 * with chakra_free): 0, -EINVAL with @d naming the file, the byte offset
 * of the message at fault and @key (the scenario key naming the file, or
 * ""), or -ENOMEM.
 */
int chakra_parse(const char *path, const uint8_t *data, size_t len, const char *key,
		 struct chakra_trace *t, struct diag *d);
/* Read @path (sim/engine/textfile.h) and parse it. */
int chakra_read(const char *path, const char *key, struct chakra_trace *t, struct diag *d);
void chakra_free(struct chakra_trace *t);

/*
 * Read every "<prefix>.<rank>.et" of folder @dir into @r (free it with
 * chakra_ranks_free), ordered by rank: the files must share one prefix and
 * number the ranks 0..n-1 without a gap (decimal, no leading zero). Other
 * files are not looked at. 0, -EINVAL with @d (the folder, or the file at
 * fault), or -ENOMEM.
 */
int chakra_read_dir(const char *dir, const char *key, struct chakra_ranks *r, struct diag *d);
void chakra_ranks_free(struct chakra_ranks *r);

/* "COMP_NODE", ... for a NodeType number; "NodeType N" past the schema's. */
const char *chakra_type_name(uint32_t type, char *buf, size_t size);
/* "ALL_REDUCE", ... */
const char *chakra_coll_name(enum chakra_coll c);

#endif
