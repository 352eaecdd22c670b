/*
 * chakra: the reader of MLCommons Chakra execution traces (one
 * "<prefix>.<rank>.et" a rank, length-delimited protobuf messages).
 *
 * Two kinds of samples. Real files, copied byte for byte from
 * github.com/astra-sim/astra-sim (MIT licence), commit cb9c7d30e44e:
 * tests/chakra/all_reduce_4npus/ is examples/workload/microbenchmarks/
 * all_reduce/4npus_1MB/ (GlobalMetadata with version "0.0.4", then one
 * COMM_COLL_NODE a rank with is_cpu_op as bool_val, comm_type and
 * comm_size as int64_val), and tests/chakra/msccl_ring_8npus/ holds rank 0
 * of examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB/
 * (an MSCCL ring converted to sends and receives: a GlobalMetadata
 * without version, its "schema" and "input_file" attributes, then
 * COMM_SEND_NODE and COMM_RECV_NODE nodes with data deps). And traces
 * this file packs with protobuf-c from the same schema, laid out as
 * Chakra's converters write them (src/converter/text_converter.py and
 * pytorch_converter.py of github.com/mlcommons/chakra: each message
 * prefixed by its length as a varint, protolib.py encodeMessage; the
 * attribute names and value fields those converters and Chakra's
 * generator use).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/readers/chakra.h"
#include "sim/readers/chakra_et.pb-c.h"

typedef ChakraProtoMsg__AttributeProto t_attr;
typedef ChakraProtoMsg__Node t_node;

/* A trace being written: the bytes of its messages. */
struct t_buf {
	uint8_t *p;
	size_t len;
};

static void t_put(struct t_buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->len + n + 1);
	cr_assert(b->p);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* protolib.py encodeMessage: the length as a varint, then the message. */
static void t_msg(struct t_buf *b, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m), v = n;
	uint8_t len[10], *body = malloc(n + 1);
	int k = 0;

	cr_assert(body);
	protobuf_c_message_pack(m, body);
	do {
		len[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	t_put(b, len, (size_t)k);
	t_put(b, body, n);
	free(body);
}

/* GlobalMetadata as the text converter writes it: no version, the
 * "schema" and "input_file" attributes. */
static void t_meta(struct t_buf *b, const char *version)
{
	ChakraProtoMsg__GlobalMetadata m = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	t_attr a[2] = {CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT,
		       CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT};
	t_attr *ap[2] = {&a[0], &a[1]};

	a[0].name = "schema";
	a[0].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a[0].string_val = "1.0.2-chakra.1.0.0";
	a[1].name = "input_file";
	a[1].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a[1].string_val = "DATA\n1\nl0 -1 10 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 10\n";
	if (version)
		m.version = (char *)version;
	m.n_attr = 2;
	m.attr = ap;
	t_msg(b, &m.base);
}

/* Attributes of a node being written. */
struct t_attrs {
	t_attr a[8];
	t_attr *ap[8];
	size_t n;
};

static t_attr *t_add(struct t_attrs *s, const char *name)
{
	t_attr *a = &s->a[s->n];

	cr_assert(s->n < 8);
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	s->ap[s->n++] = a;
	return a;
}

static void t_i64(struct t_attrs *s, const char *name, int64_t v)
{
	t_attr *a = t_add(s, name);

	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

static void t_i32(struct t_attrs *s, const char *name, int32_t v)
{
	t_attr *a = t_add(s, name);

	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
	a->int32_val = v;
}

static void t_u64(struct t_attrs *s, const char *name, uint64_t v)
{
	t_attr *a = t_add(s, name);

	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
	a->uint64_val = v;
}

static void t_str(struct t_attrs *s, const char *name, const char *v)
{
	t_attr *a = t_add(s, name);

	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a->string_val = (char *)v;
}

static void t_bool(struct t_attrs *s, const char *name, int v)
{
	t_attr *a = t_add(s, name);

	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	a->bool_val = v;
}

/* A node of @type with its attributes @s and deps. */
static void t_node_put(struct t_buf *b, uint64_t id, const char *name, int type, uint64_t us,
		       struct t_attrs *s, uint64_t *data, size_t n_data, uint64_t *ctrl,
		       size_t n_ctrl)
{
	t_node n = CHAKRA_PROTO_MSG__NODE__INIT;

	n.id = id;
	n.name = (char *)name;
	n.type = (ChakraProtoMsg__NodeType)type;
	n.duration_micros = us;
	n.data_deps = data;
	n.n_data_deps = n_data;
	n.ctrl_deps = ctrl;
	n.n_ctrl_deps = n_ctrl;
	if (s) {
		n.attr = s->ap;
		n.n_attr = s->n;
	}
	t_msg(b, &n.base);
}

/* A collective as the text converter's get_comm_coll_node writes it. */
static void t_coll(struct t_buf *b, uint64_t id, const char *name, int coll, int64_t bytes,
		   uint64_t dep)
{
	struct t_attrs s = {0};

	t_i64(&s, "comm_type", coll);
	t_i64(&s, "comm_size", bytes);
	t_node_put(b, id, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, 0, &s, &dep, 1, NULL,
		   0);
}

static int t_parse(const struct t_buf *b, struct chakra_trace *t, struct diag *d)
{
	memset(d, 0, sizeof(*d));
	return chakra_parse("rank.0.et", b->p, b->len, "workload.trace", t, d);
}

/* The refusal of @b, its message holding @want. */
static void t_refused(const struct t_buf *b, const char *want)
{
	struct chakra_trace t;
	struct diag d;
	int err = t_parse(b, &t, &d);

	cr_assert_eq(err, -EINVAL, "accepted, want \"%s\"", want);
	cr_assert(strstr(d.msg, want), "message \"%s\", want \"%s\"", d.msg, want);
	cr_assert_str_eq(d.file, "rank.0.et");
	cr_assert_str_eq(d.path, "workload.trace");
	cr_assert_eq(t.n, 0);
	cr_assert_null(t.nodes);
}

static const char *t_src(const char *rel, char *buf, size_t size)
{
	const char *root = getenv("ROCESIM_SRC");

	snprintf(buf, size, "%s/%s", root ? root : ".", rel);
	return buf;
}

Test(chakra, astra_sim_all_reduce_folder)
{
	struct chakra_ranks r;
	struct diag d = {0};
	char dir[4096];

	cr_assert_eq(
	    chakra_read_dir(t_src("tests/chakra/all_reduce_4npus", dir, sizeof(dir)), "", &r, &d),
	    0, "%s", d.msg);
	cr_assert_str_eq(r.prefix, "all_reduce");
	cr_assert_eq(r.n, 4);
	for (uint32_t i = 0; i < 4; i++) {
		const struct chakra_trace *t = &r.ranks[i];
		const struct chakra_node *n = &t->nodes[0];

		cr_assert_str_eq(t->version, "0.0.4");
		cr_assert_str_eq(t->schema, "");
		cr_assert_eq(t->n, 1);
		/* the generator numbers nodes across ranks: rank i's is node i */
		cr_assert_eq(n->id, i);
		cr_assert_str_eq(n->name, "all_reduce_4npus_1MB");
		cr_assert_eq(n->kind, CHAKRA_COMM_COLL);
		cr_assert_eq(n->type, 7);
		cr_assert_eq(n->coll, CHAKRA_ALL_REDUCE);
		cr_assert_eq(n->bytes, 1048576);
		cr_assert_eq(n->is_cpu_op, 0);
		cr_assert_eq(n->duration, 0);
		cr_assert_eq(n->n_data_deps + n->n_ctrl_deps, 0);
		cr_assert_eq(n->has_src + n->has_dst + n->has_tag, 0);
		cr_assert_str_eq(n->pg_name, "");
		for (int k = 0; k < CHAKRA_TYPES; k++)
			cr_assert_eq(t->skipped[k], 0);
	}
	chakra_ranks_free(&r);
	cr_assert_null(r.ranks);
}

Test(chakra, astra_sim_msccl_sends_and_receives)
{
	struct chakra_trace t;
	struct diag d = {0};
	char path[4096];
	uint32_t kinds[5] = {0};

	cr_assert_eq(chakra_read(t_src("tests/chakra/msccl_ring_8npus/custom_allreduce.0.et", path,
				       sizeof(path)),
				 "", &t, &d),
		     0, "%s", d.msg);
	/* the metadata of the layout without version */
	cr_assert_str_eq(t.version, "");
	cr_assert_str_eq(t.schema, "1.0.2-chakra.0.0.4");
	cr_assert_eq(t.n, 35);
	for (uint32_t i = 0; i < t.n; i++) {
		const struct chakra_node *n = &t.nodes[i];

		kinds[n->kind]++;
		cr_assert_eq(n->id, i);
		/* a chain: each node waits on the one before */
		cr_assert_eq(n->n_data_deps, i ? 1 : 0);
		if (i)
			cr_assert_eq(n->data_deps[0], i - 1);
		/* no is_cpu_op attribute: 1, as the feeder */
		cr_assert_eq(n->is_cpu_op, 1);
		if (n->kind == CHAKRA_COMP) {
			cr_assert_eq(n->duration, 7 * SIMTIME_US, "%s", n->name);
			cr_assert_eq(n->bytes, 0);
			continue;
		}
		/* rank 0 of the ring sends to 1 and receives from 7, 1 MB in
		 * 8 chunks, tag 0; comm_type holds the NodeType number there */
		cr_assert(n->kind == CHAKRA_COMM_SEND || n->kind == CHAKRA_COMM_RECV, "%s",
			  n->name);
		cr_assert_eq(n->bytes, 131072);
		cr_assert(n->has_tag && n->tag == 0);
		if (n->kind == CHAKRA_COMM_SEND)
			cr_assert(n->has_dst && n->dst == 1 && !n->has_src, "%s", n->name);
		else
			cr_assert(n->has_src && n->src == 7 && !n->has_dst, "%s", n->name);
	}
	cr_assert_eq(kinds[CHAKRA_COMP], 7);
	cr_assert_eq(kinds[CHAKRA_COMM_SEND], 14);
	cr_assert_eq(kinds[CHAKRA_COMM_RECV], 14);
	cr_assert_str_eq(t.nodes[2].name, "COMP_NODE_tb0_step1");
	chakra_free(&t);
}

/*
 * Two layers of data parallelism as text_converter.py's
 * convert_data_parallel writes them for one rank: forward computations in
 * a chain, then per layer backward the weight gradient, its All-Reduce and
 * the input gradient; ids from 0 in writing order.
 */
static void t_data_parallel(struct t_buf *b)
{
	uint64_t d0 = 0, d1 = 1, d2 = 2, d4 = 4;

	t_meta(b, NULL);
	t_node_put(b, 0, "COMP_NODE_l0_FWD", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 10, NULL, NULL,
		   0, NULL, 0);
	t_node_put(b, 1, "COMP_NODE_l1_FWD", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 20, NULL, &d0,
		   1, NULL, 0);
	t_node_put(b, 2, "COMP_NODE_l1_BWD_WG", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 30, NULL,
		   &d1, 1, NULL, 0);
	t_coll(b, 3, "COMM_COLL_NODE_l1_ALLREDUCE", CHAKRA_ALL_REDUCE, 1048576, d2);
	t_node_put(b, 4, "COMP_NODE_l1_BWD_IG", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 40, NULL,
		   &d2, 1, NULL, 0);
	t_node_put(b, 5, "COMP_NODE_l0_BWD_WG", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 50, NULL,
		   &d4, 1, NULL, 0);
	t_coll(b, 6, "COMM_COLL_NODE_l0_REDUCESCATTER", CHAKRA_REDUCE_SCATTER, 524288, 5);
}

Test(chakra, text_converter_layout)
{
	struct t_buf b = {0};
	struct chakra_trace t;
	struct diag d;
	static const simtime_t us[] = {10, 20, 30, 0, 40, 50, 0};
	static const int dep[] = {-1, 0, 1, 2, 2, 4, 5};

	t_data_parallel(&b);
	cr_assert_eq(t_parse(&b, &t, &d), 0, "%s", d.msg);
	cr_assert_str_eq(t.version, "");
	cr_assert_str_eq(t.schema, "1.0.2-chakra.1.0.0");
	cr_assert_eq(t.n, 7);
	for (uint32_t i = 0; i < t.n; i++) {
		const struct chakra_node *n = &t.nodes[i];

		cr_assert_eq(n->id, i);
		cr_assert_eq(n->duration, us[i] * SIMTIME_US);
		cr_assert_eq(n->kind, i == 3 || i == 6 ? CHAKRA_COMM_COLL : CHAKRA_COMP);
		cr_assert_eq(n->n_data_deps, dep[i] < 0 ? 0 : 1);
		if (dep[i] >= 0)
			cr_assert_eq(n->data_deps[0], (uint32_t)dep[i]);
		cr_assert_eq(n->n_ctrl_deps, 0);
	}
	cr_assert_str_eq(t.nodes[3].name, "COMM_COLL_NODE_l1_ALLREDUCE");
	cr_assert_eq(t.nodes[3].coll, CHAKRA_ALL_REDUCE);
	cr_assert_eq(t.nodes[3].bytes, 1048576);
	cr_assert_eq(t.nodes[6].coll, CHAKRA_REDUCE_SCATTER);
	cr_assert_eq(t.nodes[6].bytes, 524288);
	cr_assert_str_eq(chakra_coll_name(t.nodes[6].coll), "REDUCE_SCATTER");
	chakra_free(&t);
	free(b.p);
}

/*
 * What a PyTorch trace carries (pytorch_converter.py): the metadata
 * attributes schema, pid, time, start_ts, finish_ts; a METADATA_NODE
 * "## process_group:init ##"; nodes with ctrl_deps on their caller (some
 * callers removed as dangling), is_cpu_op, rf_id; GPU collectives with
 * comm_type, comm_size and pg_name, sends and receives with comm_size and
 * pg_name only. Plus what other writers use: comm_size as uint64_val,
 * comm_src as int32_val, involved_dim as a bool_list, a data dep on a
 * node written later, and a node type past the schema's.
 */
Test(chakra, pytorch_layout)
{
	ChakraProtoMsg__GlobalMetadata m = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	struct t_attrs ma = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0};
	protobuf_c_boolean dims[3] = {1, 0, 1};
	ChakraProtoMsg__BoolList bl = CHAKRA_PROTO_MSG__BOOL_LIST__INIT;
	uint64_t ctrl_gone = 999, ctrl_meta = 10, dep_later = 14, dep_send = 12;
	struct t_buf b = {0};
	struct chakra_trace t;
	struct diag d;
	t_attr *dim;
	char buf[32];

	t_str(&ma, "schema", "1.1.1-chakra.0.0.4");
	t_u64(&ma, "pid", 4242);
	t_str(&ma, "time", "2024-07-01 10:00:00");
	t_u64(&ma, "start_ts", 100);
	t_u64(&ma, "finish_ts", 900);
	m.n_attr = ma.n;
	m.attr = ma.ap;
	t_msg(&b, &m.base);
	t_node_put(&b, 10, "## process_group:init ##", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE,
		   0, NULL, NULL, 0, NULL, 0);
	t_i64(&a1, "rf_id", 7);
	t_bool(&a1, "is_cpu_op", 1);
	t_node_put(&b, 11, "aten::mm", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 3, &a1, NULL, 0,
		   &ctrl_gone, 1);
	t_bool(&a2, "is_cpu_op", 0);
	t_u64(&a2, "comm_size", 4096);
	t_str(&a2, "pg_name", "1");
	t_node_put(&b, 12, "ncclDevKernel_SendRecv", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 2,
		   &a2, NULL, 0, &ctrl_meta, 1);
	t_i64(&a3, "comm_size", 4096);
	t_i32(&a3, "comm_src", 3);
	t_i32(&a3, "comm_tag", 9);
	t_node_put(&b, 13, "ncclDevKernel_SendRecv", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, 2,
		   &a3, &dep_later, 1, NULL, 0);
	t_bool(&a4, "is_cpu_op", 0);
	t_i64(&a4, "comm_type", CHAKRA_ALL_GATHER);
	t_i64(&a4, "comm_size", 65536);
	t_str(&a4, "pg_name", "0");
	dim = t_add(&a4, "involved_dim");
	bl.n_values = 3;
	bl.values = dims;
	dim->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST;
	dim->bool_list = &bl;
	t_node_put(&b, 14, "ncclDevKernel_AllGather_RING_LL",
		   CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, 25, &a4, &dep_send, 1, NULL, 0);
	t_node_put(&b, 15, "checkpoint", CHAKRA_PROTO_MSG__NODE_TYPE__CHECKPOINT_NODE, 0, &a5,
		   &dep_send, 1, NULL, 0);
	t_node_put(&b, 16, "from a newer schema", 42, 0, NULL, NULL, 0, NULL, 0);

	cr_assert_eq(t_parse(&b, &t, &d), 0, "%s", d.msg);
	cr_assert_str_eq(t.schema, "1.1.1-chakra.0.0.4");
	cr_assert_eq(t.n, 7);
	/* kept as CHAKRA_OTHER and counted by type */
	cr_assert_eq(t.nodes[0].kind, CHAKRA_OTHER);
	cr_assert_eq(t.nodes[0].type, 1);
	cr_assert_eq(t.skipped[1], 1);
	cr_assert_eq(t.skipped[10], 1);
	cr_assert_eq(t.skipped[CHAKRA_TYPES - 1], 1);
	cr_assert_eq(t.nodes[6].type, 42);
	cr_assert_str_eq(chakra_type_name(1, buf, sizeof(buf)), "METADATA_NODE");
	cr_assert_str_eq(chakra_type_name(42, buf, sizeof(buf)), "NodeType 42");
	/* the control dep on a removed caller dropped, the other kept */
	cr_assert_eq(t.ctrl_unknown, 1);
	cr_assert_eq(t.nodes[1].n_ctrl_deps, 0);
	cr_assert_eq(t.nodes[2].n_ctrl_deps, 1);
	cr_assert_eq(t.nodes[2].ctrl_deps[0], 0);
	cr_assert_eq(t.nodes[1].kind, CHAKRA_COMP);
	cr_assert_eq(t.nodes[1].is_cpu_op, 1);
	cr_assert_eq(t.nodes[1].duration, 3 * SIMTIME_US);
	/* a send naming no peer, as PyTorch's */
	cr_assert_eq(t.nodes[2].kind, CHAKRA_COMM_SEND);
	cr_assert_eq(t.nodes[2].bytes, 4096);
	cr_assert_str_eq(t.nodes[2].pg_name, "1");
	cr_assert_eq(t.nodes[2].is_cpu_op, 0);
	cr_assert_eq(t.nodes[2].has_src + t.nodes[2].has_dst + t.nodes[2].has_tag, 0);
	cr_assert_eq(t.nodes[3].kind, CHAKRA_COMM_RECV);
	cr_assert(t.nodes[3].has_src && t.nodes[3].src == 3 && !t.nodes[3].has_dst);
	cr_assert(t.nodes[3].has_tag && t.nodes[3].tag == 9);
	/* a data dep on the node written after it */
	cr_assert_eq(t.nodes[3].n_data_deps, 1);
	cr_assert_eq(t.nodes[3].data_deps[0], 4);
	cr_assert_eq(t.nodes[4].coll, CHAKRA_ALL_GATHER);
	cr_assert_eq(t.nodes[4].bytes, 65536);
	cr_assert_str_eq(t.nodes[4].pg_name, "0");
	cr_assert_eq(t.nodes[4].n_dims, 3);
	cr_assert_eq(t.nodes[4].dims, 5);
	cr_assert_eq(t.nodes[4].duration, 25 * SIMTIME_US);
	cr_assert_eq(t.nodes[4].data_deps[0], 2);
	cr_assert_eq(t.nodes[5].data_deps[0], 2);
	chakra_free(&t);
	free(b.p);
}

/* A trace of one collective, with attributes @s, for the refusals. */
static void t_one(struct t_buf *b, int type, struct t_attrs *s)
{
	t_meta(b, "0.0.4");
	t_node_put(b, 1, "op", type, 0, s, NULL, 0, NULL, 0);
}

Test(chakra, refuses_missing_and_wrong_attributes)
{
	struct {
		int type;
		const char *want;
	} cases[] = {
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE,
	     "COMM_COLL_NODE \"op\" without comm_type"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE,
	     "COMM_COLL_NODE \"op\" without comm_size"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE,
	     "COMM_SEND_NODE \"op\" without comm_size"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE,
	     "COMM_RECV_NODE \"op\" without comm_size"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "attribute comm_size holds no integer"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "attribute comm_size is negative"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "attribute comm_type is out of range"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, "attribute comm_dst is out of range"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "attribute pg_name holds no string"},
	    {CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "involved_dim is not a bool_list"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct t_attrs s = {0};
		struct t_buf b = {0};

		if (i != 0)
			t_i64(&s, "comm_type", i == 6 ? 10 : CHAKRA_BROADCAST);
		if (i == 4)
			t_str(&s, "comm_size", "1MB");
		else if (i == 5)
			t_i64(&s, "comm_size", -1);
		else if (i != 1 && i != 2 && i != 3)
			t_u64(&s, "comm_size", 8);
		if (i == 7)
			t_u64(&s, "comm_dst", (uint64_t)UINT32_MAX + 1);
		if (i == 8)
			t_i64(&s, "pg_name", 0);
		if (i == 9)
			t_i64(&s, "involved_dim", 1);
		t_one(&b, cases[i].type, &s);
		t_refused(&b, cases[i].want);
		/* the message names the node and where its message starts:
		 * after the metadata's 1 + 110 bytes */
		t_refused(&b, "node 1 (byte 111)");
		free(b.p);
	}
}

Test(chakra, refuses_broken_streams)
{
	struct t_buf b = {0}, cut = {0};
	static const uint8_t garbage[] = {0x03, 0x08, 0x80, 0x80};
	static const uint8_t long_len[] = {0xff, 0xff, 0xff, 0xff, 0x7f};

	t_refused(&cut, "empty");
	t_meta(&b, "0.0.4");
	t_refused(&b, "no node after the GlobalMetadata");
	t_coll(&b, 1, "ar", CHAKRA_ALL_REDUCE, 64, 0);
	/* every cut of the node's message: its length or its bytes */
	for (size_t n = b.len - 1; n > b.len - 20; n--) {
		cut.p = b.p;
		cut.len = n;
		t_refused(&cut, "truncated: a message of");
	}
	free(b.p);
	b = (struct t_buf){0};
	t_meta(&b, "0.0.4");
	t_put(&b, garbage, sizeof(garbage));
	t_refused(&b, "byte 1");
	t_refused(&b, "not a Chakra Node message (3 bytes)");
	cut = (struct t_buf){.p = (uint8_t *)"hello, world", .len = 12};
	/* 'h' is a length of 104 */
	t_refused(&cut, "byte 0: truncated: a message of 104 bytes, the file has 11 left");
	cut = (struct t_buf){.p = (uint8_t *)long_len, .len = sizeof(long_len)};
	t_refused(&cut, "a message length beyond 32 bits");
	cut.len = 2;
	t_refused(&cut, "the file ends inside a message length");
	free(b.p);
}

Test(chakra, refuses_bad_deps)
{
	uint64_t self = 1, two = 2, nobody = 77;
	struct t_buf b = {0};

	t_meta(&b, NULL);
	t_node_put(&b, 1, "a", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, &nobody, 1, NULL,
		   0);
	t_refused(&b, "node 1 \"a\": data dep 77 names no node of the file");
	free(b.p);

	b = (struct t_buf){0};
	t_meta(&b, NULL);
	t_node_put(&b, 1, "a", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, &self, 1, NULL, 0);
	t_refused(&b, "node 1 \"a\" is on a cycle of data deps");
	free(b.p);

	/* 0 waits on 1 and 2, 2 on 1, 1 on 2: 0 is stuck, 1 and 2 the cycle */
	b = (struct t_buf){0};
	t_meta(&b, NULL);
	uint64_t both[2] = {1, 2};
	t_node_put(&b, 0, "x", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, both, 2, NULL, 0);
	t_node_put(&b, 1, "a", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, &two, 1, NULL, 0);
	t_node_put(&b, 2, "b", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, &self, 1, NULL, 0);
	t_refused(&b, "is on a cycle of data deps");
	{
		struct chakra_trace t;
		struct diag d;

		cr_assert_eq(t_parse(&b, &t, &d), -EINVAL);
		cr_assert(strstr(d.msg, "\"a\"") || strstr(d.msg, "\"b\""), "%s", d.msg);
	}
	free(b.p);

	b = (struct t_buf){0};
	t_meta(&b, NULL);
	t_node_put(&b, 5, "a", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, NULL, 0, NULL, 0);
	t_node_put(&b, 5, "b", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, NULL, 0, NULL, 0);
	t_refused(&b, "node id 5 given twice (\"a\" and \"b\")");
	free(b.p);
}

Test(chakra, names_cut_to_one_printable_line)
{
	char name[300];
	struct t_buf b = {0};
	struct chakra_trace t;
	struct diag d;

	/* "a\n", then 2-byte UTF-8 characters: the cut at 127 bytes would
	 * fall inside one, it falls before it */
	name[0] = 'a';
	name[1] = '\n';
	for (int i = 2; i < 298; i += 2)
		name[i] = (char)0xc3, name[i + 1] = (char)0xa9;
	name[298] = '\0';
	t_meta(&b, NULL);
	t_node_put(&b, 1, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1, NULL, NULL, 0, NULL, 0);
	cr_assert_eq(t_parse(&b, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(strlen(t.nodes[0].name), CHAKRA_NAME_MAX - 2);
	cr_assert_eq(strncmp(t.nodes[0].name, "a?\xc3\xa9\xc3\xa9", 6), 0);
	chakra_free(&t);
	free(b.p);
}

/* Write @b as @dir/@name. */
static void t_write(const char *dir, const char *name, const struct t_buf *b)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(b->p, 1, b->len, f), b->len);
	cr_assert_eq(fclose(f), 0);
}

static void t_clear(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(chakra, folder_of_ranks)
{
	char dir[] = "/tmp/chakra-test-XXXXXX", name[64];
	struct chakra_ranks r;
	struct t_buf b = {0};
	struct diag d = {0};

	cr_assert(mkdtemp(dir));
	t_data_parallel(&b);
	/* written out of order, with files that are no rank's trace */
	for (int i = 3; i >= 0; i--) {
		snprintf(name, sizeof(name), "dp.%d.et", i);
		t_write(dir, name, &b);
	}
	t_write(dir, "dp.et", &b);
	t_write(dir, "dp.x.et", &b);
	t_write(dir, "comm_group.json", &b);
	cr_assert_eq(chakra_read_dir(dir, "workload.traces", &r, &d), 0, "%s", d.msg);
	cr_assert_str_eq(r.prefix, "dp");
	cr_assert_eq(r.n, 4);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_eq(r.ranks[i].n, 7);
		cr_assert_eq(r.ranks[i].nodes[3].bytes, 1048576);
	}
	chakra_ranks_free(&r);

	/* a gap */
	snprintf(name, sizeof(name), "%s/dp.2.et", dir);
	cr_assert_eq(unlink(name), 0);
	cr_assert_eq(chakra_read_dir(dir, "workload.traces", &r, &d), -EINVAL);
	cr_assert(strstr(d.msg, "no \"dp.2.et\": the ranks go 0..3 without a gap"), "%s", d.msg);
	cr_assert_str_eq(d.file, dir);
	cr_assert_str_eq(d.path, "workload.traces");
	cr_assert_null(r.ranks);
	t_write(dir, "dp.2.et", &b);

	/* a rank's file at fault: named */
	t_write(dir, "dp.1.et", &(struct t_buf){.p = b.p, .len = b.len - 1});
	cr_assert_eq(chakra_read_dir(dir, "", &r, &d), -EINVAL);
	cr_assert(strstr(d.file, "/dp.1.et"), "%s", d.file);
	cr_assert(strstr(d.msg, "truncated"), "%s", d.msg);
	t_write(dir, "dp.1.et", &b);

	/* two prefixes, a leading zero */
	t_write(dir, "mp.0.et", &b);
	cr_assert_eq(chakra_read_dir(dir, "", &r, &d), -EINVAL);
	cr_assert(strstr(d.msg, "traces of two prefixes"), "%s", d.msg);
	snprintf(name, sizeof(name), "%s/mp.0.et", dir);
	cr_assert_eq(unlink(name), 0);
	t_write(dir, "dp.04.et", &b);
	cr_assert_eq(chakra_read_dir(dir, "", &r, &d), -EINVAL);
	cr_assert(strstr(d.msg, "\"dp.04.et\": a rank is a number"), "%s", d.msg);
	t_clear(dir);

	/* no trace at all, no folder */
	strcpy(dir, "/tmp/chakra-test-XXXXXX");
	cr_assert(mkdtemp(dir));
	cr_assert_eq(chakra_read_dir(dir, "", &r, &d), -EINVAL);
	cr_assert(strstr(d.msg, "no Chakra trace"), "%s", d.msg);
	t_clear(dir);
	cr_assert_eq(chakra_read_dir(dir, "", &r, &d), -EINVAL);
	cr_assert(strstr(d.msg, "cannot read the folder"), "%s", d.msg);
	free(b.p);
}

/*
 * The oldest published layout (et_def/et_def.proto before the version):
 * GlobalMetadata's attributes at field 1. Its nodes read the same; the
 * version is left empty rather than taken from an attribute's bytes.
 */
Test(chakra, oldest_metadata_layout)
{
	t_attr a = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	struct t_attrs s = {0};
	uint8_t inner[64], outer[70];
	struct t_buf b = {0};
	struct chakra_trace t;
	struct diag d;
	size_t n;

	a.name = "schema";
	a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a.string_val = "1.0.2-chakra.0.0.1";
	n = chakra_proto_msg__attribute_proto__pack(&a, inner);
	cr_assert_lt(n, 60);
	outer[0] = (uint8_t)(n + 2); /* the message's length */
	outer[1] = 0x0a;	     /* field 1, length-delimited */
	outer[2] = (uint8_t)n;
	memcpy(outer + 3, inner, n);
	t_put(&b, outer, n + 3);
	t_i64(&s, "comm_type", CHAKRA_ALL_TO_ALL);
	t_i64(&s, "comm_size", 64);
	t_node_put(&b, 1, "a2a", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, 0, &s, NULL, 0, NULL,
		   0);
	cr_assert_eq(t_parse(&b, &t, &d), 0, "%s", d.msg);
	cr_assert_str_eq(t.version, "");
	cr_assert_str_eq(t.schema, "");
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.nodes[0].coll, CHAKRA_ALL_TO_ALL);
	chakra_free(&t);
	free(b.p);
}
