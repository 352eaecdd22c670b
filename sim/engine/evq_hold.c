/*
 * evq_hold (evq.h): a class of timers set aside, taken out of the far
 * heap, the calendar and the ring of arms alike, to be re-armed later.
 * Apart from evq.c, whose hot paths it does not touch.
 */
#include "sim/engine/evq.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/engine/evq_impl.h"

static int in_classes(void *ctx, uint64_t key)
{
	return (*(const unsigned *)ctx >> (key >> 60)) & 1;
}

int evq_hold(struct evq *q, unsigned classes, struct evq_timer ***out, size_t *n)
{
	return evq_hold_if(q, in_classes, &classes, out, n);
}

int evq_hold_if(struct evq *q, int (*held)(void *ctx, uint64_t key), void *ctx,
		struct evq_timer ***out, size_t *n)
{
	struct evq_timer **held_t;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	evq__ring_drain(q);
	if (!q->n)
		return 0;
	held_t = malloc(q->n * sizeof(*held_t));
	if (!held_t)
		return -ENOMEM;
	for (size_t i = 0; i < q->n_heap; i++)
		if (held(ctx, q->heap[i].t->key))
			held_t[k++] = q->heap[i].t;
	for (size_t i = 0; i < q->nb; i++) {
		struct evq_timer *t = q->bucket[i];

		if (!t)
			continue;
		do {
			if (held(ctx, t->key))
				held_t[k++] = t;
			t = t->next;
		} while (t != q->bucket[i]);
	}
	for (size_t i = 0; i < k; i++) {
		q->n--;
		evq__unqueue(q, held_t[i]);
	}
	if (!k) {
		free(held_t);
		return 0;
	}
	*out = held_t;
	*n = k;
	return 0;
}
