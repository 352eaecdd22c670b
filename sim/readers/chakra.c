/* Chakra execution traces, one rank's file (see chakra.h). */
#include "sim/readers/chakra.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/readers/chakra_et.pb-c.h"

typedef ChakraProtoMsg__AttributeProto ck_attr;

/* protobuf-c's unpack says NULL for a bad message and for a failed
 * allocation alike: its allocator here tells them apart. */
struct ck_alloc {
	ProtobufCAllocator a;
	int failed;
};

static void *ck_malloc(void *data, size_t size)
{
	void *p = malloc(size);

	if (!p)
		((struct ck_alloc *)data)->failed = 1;
	return p;
}

static void ck_mfree(void *data, void *p)
{
	(void)data;
	free(p);
}

/* The deps of a node as the file names them, until they are resolved. */
struct ck_raw {
	uint64_t *data, *ctrl;
	size_t n_data, n_ctrl;
};

/* What one parse carries along. */
struct ck_ctx {
	const char *path, *key;
	struct diag *d;
	struct ck_alloc alloc;
	struct ck_raw *raw; /* a node each */
	uint32_t room;
};

const char *chakra_type_name(uint32_t type, char *buf, size_t size)
{
	static const char *const names[] = {
	    "INVALID_NODE", "METADATA_NODE",  "MEM_LOAD_NODE",	 "MEM_STORE_NODE",
	    "COMP_NODE",    "COMM_SEND_NODE", "COMM_RECV_NODE",	 "COMM_COLL_NODE",
	    "STORAGE_NODE", "BATCH_NODE",     "CHECKPOINT_NODE",
	};

	if (type < sizeof(names) / sizeof(names[0]))
		return names[type];
	snprintf(buf, size, "NodeType %" PRIu32, type);
	return buf;
}

const char *chakra_coll_name(enum chakra_coll c)
{
	static const char *const names[CHAKRA_COLLS] = {
	    "ALL_REDUCE", "REDUCE",	    "ALL_GATHER",
	    "GATHER",	  "SCATTER",	    "BROADCAST",
	    "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK",
	    "BARRIER",
	};

	return (unsigned)c < CHAKRA_COLLS ? names[c] : "?";
}

/*
 * Copy @s into @dst of @size bytes: cut at a whole UTF-8 character, control
 * bytes as '?', so that a name is one printable line.
 */
static void ck_copy(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size) {
		n = size - 1;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	dst[n] = '\0';
}

/*
 * The length varint at @p (@left bytes) into @v: the bytes it took, 0 when
 * the file ends inside it, -1 past 32 bits (protolib writes a varint32).
 */
static int ck_varint(const uint8_t *p, size_t left, uint64_t *v)
{
	*v = 0;
	for (int i = 0; i < 5; i++) {
		if ((size_t)i == left)
			return 0;
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return *v > UINT32_MAX ? -1 : i + 1;
	}
	return -1;
}

/*
 * The integer of attribute @a, whichever integer field holds it, into @v:
 * 0, -1 when @a holds no integer, -2 when it is negative.
 */
static int ck_int(const ck_attr *a, uint64_t *v)
{
	int64_t s;

	switch (a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
		*v = a->uint32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
		*v = a->uint64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL:
		*v = a->fixed32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
		*v = a->fixed64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
		s = a->int32_val;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
		s = a->int64_val;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
		s = a->sint32_val;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
		s = a->sint64_val;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL:
		s = a->sfixed32_val;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL:
		s = a->sfixed64_val;
		break;
	default:
		return -1;
	}
	if (s < 0)
		return -2;
	*v = (uint64_t)s;
	return 0;
}

/* Integer attribute @a of node @n at byte @at into @v, at most @max. */
static int ck_uint(struct ck_ctx *c, const ChakraProtoMsg__Node *n, size_t at, const ck_attr *a,
		   uint64_t max, uint64_t *v)
{
	int err = ck_int(a, v);

	if (!err && *v <= max)
		return 0;
	diag_set(c->d, c->path, 0, c->key, "node %" PRIu64 " (byte %zu): attribute %s %s", n->id,
		 at, a->name,
		 err == -1   ? "holds no integer"
		 : err == -2 ? "is negative"
			     : "is out of range");
	return -EINVAL;
}

/* Attribute @a of node @n (message at byte @at) into @o. */
static int ck_attr_read(struct ck_ctx *c, const ChakraProtoMsg__Node *n, size_t at,
			const ck_attr *a, struct chakra_node *o, unsigned *seen)
{
	enum { S_TYPE = 1, S_SIZE = 2 };
	uint64_t v;

	if (!strcmp(a->name, "comm_type")) {
		/* a collective's only: MSCCL's converter writes the NodeType
		 * number of sends and receives there */
		if (o->kind != CHAKRA_COMM_COLL)
			return 0;
		if (ck_uint(c, n, at, a, CHAKRA_COLLS - 1, &v))
			return -EINVAL;
		o->coll = (enum chakra_coll)v;
		*seen |= S_TYPE;
	} else if (!strcmp(a->name, "comm_size")) {
		if (ck_uint(c, n, at, a, UINT64_MAX, &o->bytes))
			return -EINVAL;
		*seen |= S_SIZE;
	} else if (!strcmp(a->name, "comm_src") || !strcmp(a->name, "comm_dst") ||
		   !strcmp(a->name, "comm_tag")) {
		if (ck_uint(c, n, at, a, UINT32_MAX, &v))
			return -EINVAL;
		if (a->name[5] == 's')
			o->src = (uint32_t)v, o->has_src = 1;
		else if (a->name[5] == 'd')
			o->dst = (uint32_t)v, o->has_dst = 1;
		else
			o->tag = (uint32_t)v, o->has_tag = 1;
	} else if (!strcmp(a->name, "pg_name")) {
		if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
			diag_set(c->d, c->path, 0, c->key,
				 "node %" PRIu64 " (byte %zu): attribute pg_name holds no string",
				 n->id, at);
			return -EINVAL;
		}
		ck_copy(o->pg_name, sizeof(o->pg_name), a->string_val);
	} else if (!strcmp(a->name, "is_cpu_op")) {
		if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL)
			v = a->bool_val;
		else if (ck_uint(c, n, at, a, 1, &v))
			return -EINVAL;
		o->is_cpu_op = (uint8_t)v;
	} else if (!strcmp(a->name, "involved_dim")) {
		const ChakraProtoMsg__BoolList *l = a->bool_list;

		if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST ||
		    l->n_values > 64) {
			diag_set(c->d, c->path, 0, c->key,
				 "node %" PRIu64
				 " (byte %zu): attribute involved_dim is not a bool_list of at "
				 "most 64 dimensions",
				 n->id, at);
			return -EINVAL;
		}
		o->n_dims = (uint32_t)l->n_values;
		o->dims = 0;
		for (size_t i = 0; i < l->n_values; i++)
			o->dims |= (uint64_t)(l->values[i] != 0) << i;
	}
	return 0;
}

/* What node @n of a comm kind must carry; @seen from ck_attr_read. */
static int ck_comm_check(struct ck_ctx *c, const ChakraProtoMsg__Node *n, size_t at,
			 const struct chakra_node *o, unsigned seen)
{
	const char *miss = NULL;

	if (o->kind == CHAKRA_COMM_COLL && !(seen & 1))
		miss = "comm_type";
	else if (!(seen & 2))
		miss = "comm_size";
	if (!miss)
		return 0;
	diag_set(c->d, c->path, 0, c->key, "node %" PRIu64 " (byte %zu): %s \"%s\" without %s",
		 n->id, at,
		 o->kind == CHAKRA_COMM_COLL   ? "COMM_COLL_NODE"
		 : o->kind == CHAKRA_COMM_SEND ? "COMM_SEND_NODE"
					       : "COMM_RECV_NODE",
		 o->name, miss);
	return -EINVAL;
}

/* Node @n, the message at byte @at, as the next node of @t. */
static int ck_node(struct ck_ctx *c, const ChakraProtoMsg__Node *n, size_t at,
		   struct chakra_trace *t)
{
	struct chakra_node *o;
	struct ck_raw *r;
	unsigned seen = 0;

	if (t->n == c->room) {
		uint32_t room = c->room ? 2 * c->room : 64;
		void *p;

		if (t->n == CHAKRA_NODES_MAX) {
			diag_set(c->d, c->path, 0, c->key, "byte %zu: more than %u nodes", at,
				 CHAKRA_NODES_MAX);
			return -EINVAL;
		}
		p = realloc(t->nodes, room * sizeof(*t->nodes));
		if (!p)
			return -ENOMEM;
		t->nodes = p;
		p = realloc(c->raw, room * sizeof(*c->raw));
		if (!p)
			return -ENOMEM;
		c->raw = p;
		c->room = room;
	}
	o = memset(&t->nodes[t->n], 0, sizeof(*o));
	r = memset(&c->raw[t->n], 0, sizeof(*r));
	t->n++;
	o->id = n->id;
	ck_copy(o->name, sizeof(o->name), n->name);
	o->type = (uint32_t)n->type;
	switch (n->type) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
		o->kind = CHAKRA_COMP;
		break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
		o->kind = CHAKRA_COMM_COLL;
		break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
		o->kind = CHAKRA_COMM_SEND;
		break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
		o->kind = CHAKRA_COMM_RECV;
		break;
	default:
		o->kind = CHAKRA_OTHER;
		t->skipped[o->type < CHAKRA_TYPES ? o->type : CHAKRA_TYPES - 1]++;
		break;
	}
	if (n->duration_micros > UINT64_MAX / SIMTIME_US ||
	    n->start_time_micros > UINT64_MAX / SIMTIME_US) {
		diag_set(c->d, c->path, 0, c->key,
			 "node %" PRIu64 " (byte %zu): a time in microseconds beyond %" PRIu64,
			 n->id, at, UINT64_MAX / SIMTIME_US);
		return -EINVAL;
	}
	o->duration = n->duration_micros * SIMTIME_US;
	o->start = n->start_time_micros * SIMTIME_US;
	o->is_cpu_op = 1;
	for (size_t i = 0; i < n->n_attr; i++)
		if (ck_attr_read(c, n, at, n->attr[i], o, &seen))
			return -EINVAL;
	if (o->kind != CHAKRA_COMP && o->kind != CHAKRA_OTHER && ck_comm_check(c, n, at, o, seen))
		return -EINVAL;
	if (n->n_data_deps) {
		r->data = malloc(n->n_data_deps * sizeof(*r->data));
		if (!r->data)
			return -ENOMEM;
		memcpy(r->data, n->data_deps, n->n_data_deps * sizeof(*r->data));
		r->n_data = n->n_data_deps;
	}
	if (n->n_ctrl_deps) {
		r->ctrl = malloc(n->n_ctrl_deps * sizeof(*r->ctrl));
		if (!r->ctrl)
			return -ENOMEM;
		memcpy(r->ctrl, n->ctrl_deps, n->n_ctrl_deps * sizeof(*r->ctrl));
		r->n_ctrl = n->n_ctrl_deps;
	}
	return 0;
}

/*
 * The metadata message @m into @t. In the oldest published layout the
 * attributes were field 1, where the version is now: bytes of a message,
 * not a version, which starts with a control byte (its first field's tag).
 */
static void ck_meta(const ChakraProtoMsg__GlobalMetadata *m, struct chakra_trace *t)
{
	if ((unsigned char)m->version[0] >= 0x20)
		ck_copy(t->version, sizeof(t->version), m->version);
	for (size_t i = 0; i < m->n_attr; i++)
		if (!strcmp(m->attr[i]->name, "schema") &&
		    m->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
			ck_copy(t->schema, sizeof(t->schema), m->attr[i]->string_val);
}

/* An (id, index) pair, sorted by id to find a node by its id. */
struct ck_id {
	uint64_t id;
	uint32_t i;
};

static int ck_id_cmp(const void *a, const void *b)
{
	const struct ck_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int64_t ck_find(const struct ck_id *ids, uint32_t n, uint64_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].id == id ? (int64_t)ids[lo].i : -1;
}

/*
 * The @n raw deps @raw of node @o into indices (*@out, *@n_out): a data
 * dep (@data) naming no node refused, a control dep dropped and counted.
 */
static int ck_deps(struct ck_ctx *c, struct chakra_trace *t, const struct ck_id *ids,
		   const struct chakra_node *o, const uint64_t *raw, size_t n, int data,
		   uint32_t **out, uint32_t *n_out)
{
	uint32_t *v;

	*out = NULL;
	*n_out = 0;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*out = v;
	for (size_t k = 0; k < n; k++) {
		int64_t i = ck_find(ids, t->n, raw[k]);

		if (i >= 0) {
			v[(*n_out)++] = (uint32_t)i;
		} else if (!data) {
			t->ctrl_unknown++;
		} else {
			diag_set(c->d, c->path, 0, c->key,
				 "node %" PRIu64 " \"%s\": data dep %" PRIu64
				 " names no node of the file",
				 o->id, o->name, raw[k]);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A cycle of data deps (Kahn's order over the nodes): 0, or -EINVAL with
 * @d naming a node on one; -ENOMEM.
 */
static int ck_acyclic(struct ck_ctx *c, const struct chakra_trace *t)
{
	uint32_t *left, *queue, *first, *next, head = 0, tail = 0;
	int err = 0;

	/* children lists as a CSR: first[i]..first[i+1] into next */
	left = calloc(t->n, sizeof(*left));
	queue = malloc(t->n * sizeof(*queue));
	first = calloc((size_t)t->n + 1, sizeof(*first));
	next = NULL;
	if (!left || !queue || !first) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		left[i] = t->nodes[i].n_data_deps;
		for (uint32_t k = 0; k < t->nodes[i].n_data_deps; k++)
			first[t->nodes[i].data_deps[k] + 1]++;
	}
	for (uint32_t i = 0; i < t->n; i++)
		first[i + 1] += first[i];
	next = malloc(((size_t)first[t->n] + 1) * sizeof(*next));
	if (!next) {
		err = -ENOMEM;
		goto out;
	}
	/* fill from the end of each list: queue[] as the cursor for now */
	for (uint32_t i = 0; i < t->n; i++)
		queue[i] = first[i + 1];
	for (uint32_t i = 0; i < t->n; i++)
		for (uint32_t k = 0; k < t->nodes[i].n_data_deps; k++)
			next[--queue[t->nodes[i].data_deps[k]]] = i;
	for (uint32_t i = 0; i < t->n; i++)
		if (!left[i])
			queue[tail++] = i;
	while (head < tail) {
		uint32_t p = queue[head++];

		for (uint32_t k = first[p]; k < first[p + 1]; k++)
			if (!--left[next[k]])
				queue[tail++] = next[k];
	}
	if (tail < t->n) {
		uint32_t i = 0;

		/* a node left waits on a node left: walking up them n times
		 * ends on a cycle */
		while (!left[i])
			i++;
		for (uint32_t s = 0; s < t->n; s++) {
			const struct chakra_node *o = &t->nodes[i];
			uint32_t k = 0;

			while (!left[o->data_deps[k]])
				k++;
			i = o->data_deps[k];
		}
		diag_set(c->d, c->path, 0, c->key,
			 "node %" PRIu64 " \"%s\" is on a cycle of data deps: it can never run",
			 t->nodes[i].id, t->nodes[i].name);
		err = -EINVAL;
	}
out:
	free(left);
	free(queue);
	free(first);
	free(next);
	return err;
}

/* Ids unique, deps into indices, no cycle. */
static int ck_resolve(struct ck_ctx *c, struct chakra_trace *t)
{
	struct ck_id *ids = malloc(t->n * sizeof(*ids));
	int err = 0;

	if (!ids)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++)
		ids[i] = (struct ck_id){t->nodes[i].id, i};
	qsort(ids, t->n, sizeof(*ids), ck_id_cmp);
	for (uint32_t i = 1; i < t->n; i++)
		if (ids[i].id == ids[i - 1].id) {
			diag_set(c->d, c->path, 0, c->key,
				 "node id %" PRIu64 " given twice (\"%s\" and \"%s\")", ids[i].id,
				 t->nodes[ids[i - 1].i].name, t->nodes[ids[i].i].name);
			err = -EINVAL;
			goto out;
		}
	for (uint32_t i = 0; i < t->n && !err; i++) {
		struct chakra_node *o = &t->nodes[i];

		err = ck_deps(c, t, ids, o, c->raw[i].data, c->raw[i].n_data, 1, &o->data_deps,
			      &o->n_data_deps);
		if (!err)
			err = ck_deps(c, t, ids, o, c->raw[i].ctrl, c->raw[i].n_ctrl, 0,
				      &o->ctrl_deps, &o->n_ctrl_deps);
	}
	if (!err)
		err = ck_acyclic(c, t);
out:
	free(ids);
	return err;
}

void chakra_free(struct chakra_trace *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		free(t->nodes[i].data_deps);
		free(t->nodes[i].ctrl_deps);
	}
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

/* Unpack the message of @len bytes at @p (byte @at): the first as the
 * metadata, the others as nodes. */
static int ck_message(struct ck_ctx *c, const uint8_t *p, size_t len, size_t at, int first,
		      struct chakra_trace *t)
{
	ProtobufCMessage *m;
	int err;

	c->alloc.failed = 0;
	m = protobuf_c_message_unpack(first ? &chakra_proto_msg__global_metadata__descriptor
					    : &chakra_proto_msg__node__descriptor,
				      &c->alloc.a, len, p);
	if (!m) {
		if (c->alloc.failed)
			return -ENOMEM;
		diag_set(c->d, c->path, 0, c->key, "byte %zu: not a Chakra %s message (%zu bytes)",
			 at, first ? "GlobalMetadata" : "Node", len);
		return -EINVAL;
	}
	err = 0;
	if (first)
		ck_meta((ChakraProtoMsg__GlobalMetadata *)m, t);
	else
		err = ck_node(c, (ChakraProtoMsg__Node *)m, at, t);
	protobuf_c_message_free_unpacked(m, &c->alloc.a);
	return err;
}

int chakra_parse(const char *path, const uint8_t *data, size_t len, const char *key,
		 struct chakra_trace *t, struct diag *d)
{
	struct ck_ctx c = {.path = path, .key = key, .d = d};
	size_t at = 0;
	int err = 0;

	c.alloc.a = (ProtobufCAllocator){ck_malloc, ck_mfree, &c.alloc};
	memset(t, 0, sizeof(*t));
	if (!len) {
		diag_set(d, path, 0, key,
			 "empty: expected a Chakra trace (GlobalMetadata, then Nodes)");
		return -EINVAL;
	}
	while (at < len && !err) {
		uint64_t n;
		int w = ck_varint(data + at, len - at, &n);

		if (w < 0) {
			diag_set(d, path, 0, key, "byte %zu: a message length beyond 32 bits", at);
			err = -EINVAL;
		} else if (!w) {
			diag_set(d, path, 0, key, "byte %zu: the file ends inside a message length",
				 at);
			err = -EINVAL;
		} else if (n > len - at - (size_t)w) {
			diag_set(d, path, 0, key,
				 "byte %zu: truncated: a message of %" PRIu64
				 " bytes, the file has %zu left",
				 at, n, len - at - (size_t)w);
			err = -EINVAL;
		}
		if (err)
			break;
		err = ck_message(&c, data + at + w, (size_t)n, at, at == 0, t);
		at += (size_t)w + (size_t)n;
	}
	if (!err && !t->n) {
		diag_set(d, path, 0, key, "no node after the GlobalMetadata");
		err = -EINVAL;
	}
	if (!err)
		err = ck_resolve(&c, t);
	for (uint32_t i = 0; i < t->n; i++) {
		free(c.raw[i].data);
		free(c.raw[i].ctrl);
	}
	free(c.raw);
	if (err)
		chakra_free(t);
	return err;
}

int chakra_read(const char *path, const char *key, struct chakra_trace *t, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(t, 0, sizeof(*t));
	err = textfile_load(path, 1, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = chakra_parse(path, (const uint8_t *)text, len, key, t, d);
	free(text);
	return err;
}
