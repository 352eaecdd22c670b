/*
 * Several QPs per connection (coll_qps.h).
 */
#include "models/coll_qps.h"

#include <errno.h>
#include <stdlib.h>

/* A message: parts on QPs first .. first + parts - 1 (mod qps), left to arrive. */
struct coll_mq_msg {
	uint32_t tag;
	uint32_t first, parts, left;
};

/* A connection's messages in flight, a ring buffer; seq0 numbers the head. */
struct coll_mq {
	struct coll_mq_msg *v;
	uint32_t head, count, cap;
	uint64_t seq0, sent;
};

struct coll_qps {
	uint32_t n_edges, qps;
	int split;
	struct coll_mq *mq; /* per edge */
	uint64_t *next;	    /* per QP: the next message it carries */
};

struct coll_qps *coll_qps_new(uint32_t n_edges, uint32_t n_qps, uint32_t qps, int split)
{
	struct coll_qps *m = calloc(1, sizeof(*m));

	if (!m || !(m->mq = calloc(n_edges ? n_edges : 1, sizeof(*m->mq))) ||
	    !(m->next = calloc(n_qps ? n_qps : 1, sizeof(*m->next)))) {
		coll_qps_free(m);
		return NULL;
	}
	m->n_edges = n_edges;
	m->qps = qps;
	m->split = split;
	return m;
}

void coll_qps_free(struct coll_qps *m)
{
	if (!m)
		return;
	for (uint32_t e = 0; m->mq && e < m->n_edges; e++)
		free(m->mq[e].v);
	free(m->mq);
	free(m->next);
	free(m);
}

int coll_qps_send(struct coll_qps *m, uint32_t e, uint64_t bytes, uint32_t tag, uint32_t *first,
		  uint64_t *len, uint32_t *parts)
{
	struct coll_mq *q = &m->mq[e];
	struct coll_mq_msg msg = {.tag = tag};

	if (q->count == q->cap) {
		uint32_t cap = q->cap ? 2 * q->cap : 8;
		struct coll_mq_msg *v = malloc((size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (uint32_t k = 0; k < q->count; k++)
			v[k] = q->v[(q->head + k) % q->cap];
		free(q->v);
		q->v = v;
		q->head = 0;
		q->cap = cap;
	}
	if (m->split) {
		uint64_t chunk = ((bytes + m->qps - 1) / m->qps + COLL_QP_ALIGN - 1) /
				 COLL_QP_ALIGN * COLL_QP_ALIGN,
			 off = 0;

		for (; msg.parts < m->qps && off < bytes; msg.parts++) {
			len[msg.parts] = bytes - off < chunk ? bytes - off : chunk;
			off += len[msg.parts];
		}
	} else {
		msg.first = (uint32_t)(q->sent % m->qps);
		msg.parts = 1;
		len[0] = bytes;
	}
	msg.left = msg.parts;
	q->v[(q->head + q->count++) % q->cap] = msg;
	q->sent++;
	*first = msg.first;
	*parts = msg.parts;
	return 0;
}

/* A QP delivers in order: its part is of the next message after its last that has one on it. */
void coll_qps_part(struct coll_qps *m, uint32_t e, uint32_t i, uint32_t x)
{
	struct coll_mq *q = &m->mq[e];
	uint64_t seq = m->next[x] > q->seq0 ? m->next[x] : q->seq0;

	for (; seq < q->seq0 + q->count; seq++) {
		struct coll_mq_msg *msg = &q->v[(q->head + (seq - q->seq0)) % q->cap];

		if ((i + m->qps - msg->first) % m->qps < msg->parts) {
			msg->left--;
			break;
		}
	}
	m->next[x] = seq + 1;
}

int coll_qps_whole(struct coll_qps *m, uint32_t e, uint32_t *tag)
{
	struct coll_mq *q = &m->mq[e];

	if (!q->count || q->v[q->head].left)
		return 0;
	*tag = q->v[q->head].tag;
	q->head = (q->head + 1) % q->cap;
	q->count--;
	q->seq0++;
	return 1;
}
