/*
 * The context of the Kubernetes manifest reader while it collects the
 * variables (struct pod_ctx, pod_impl.h): the entries found so far, which
 * pod_env.c (env, envFrom) and pod_mpirun.c (mpirun -x) add, and freeing
 * it with the ConfigMaps it read.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/readers/pod_impl.h"

int pod_push(struct pod_ctx *c, const struct pod_env *e)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct pod_item *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].env = *e;
	c->v[c->n].seq = c->n;
	c->n++;
	return 0;
}

void pod_ctx_free(struct pod_ctx *c)
{
	pod_cms_free(&c->cms);
	free(c->v);
	free(c->notes);
	c->v = NULL;
	c->notes = NULL;
	c->n = c->cap = c->n_notes = c->cap_notes = 0;
}
