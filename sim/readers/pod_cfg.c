/*
 * The look-ups on what a Kubernetes manifest was read into (pod_cfg.h):
 * the value a variable takes, whether NCCL_IB_DISABLE turns RDMA off, and
 * freeing it.
 */
#include "sim/readers/pod_cfg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct pod_env *pod_get(const struct pod_cfg *p, const char *name)
{
	for (size_t i = p->n; i-- > 0;)
		if (p->env[i].src == POD_SRC_MPIRUN && !strcmp(p->env[i].name, name))
			return &p->env[i];
	for (size_t i = p->n; i-- > 0;)
		if (!strcmp(p->env[i].name, name))
			return &p->env[i];
	return NULL;
}

const struct pod_env *pod_ib_disabled(const struct pod_cfg *p)
{
	const struct pod_env *e = pod_get(p, "NCCL_IB_DISABLE");
	long long v;
	char *end;

	if (!e || e->value_from || !e->value[0])
		return NULL;
	errno = 0;
	v = strtoll(e->value, &end, 0);
	return *end || errno || v == 0 ? NULL : e;
}

void pod_free(struct pod_cfg *p)
{
	if (!p)
		return;
	free(p->env);
	free(p->notes);
	p->env = NULL;
	p->notes = NULL;
	p->n = p->n_notes = 0;
}
