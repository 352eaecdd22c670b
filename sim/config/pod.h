/*
 * Kubernetes manifests: the NCCL_* environment of the containers of a Pod,
 * Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob (NCCL's
 * "Environment Variables" documentation), read with libcyaml (unknown keys
 * allowed: a manifest has many) and ydoc for lines. A file of several
 * documents (---) is read at its first workload document.
 */
#ifndef ROCESIM_POD_H
#define ROCESIM_POD_H

#include <stddef.h>

#include "sim/engine/diag.h"

struct pod_env {
	char name[64];
	char value[256];
	int line;
	char container[64];
	int value_from;       /* valueFrom (Secret, ConfigMap, field): value "" is unknown here */
};

struct pod_cfg {
	char file[256];
	char kind[32];        /* Pod, Deployment, ... */
	struct pod_env *env;  /* NCCL_* variables only, in file order */
	size_t n;
	int doc;              /* 1-based document of the file that was read */
	size_t n_env_from;    /* envFrom sources: they may set NCCL_* not seen here */
};

/* Read @file. 0, or -EINVAL with @d (malformed YAML, not a workload
 * manifest, no containers); -ENOMEM; the negative errno of a file that
 * cannot be read, with @d. */
int pod_read(const char *file, struct pod_cfg *out, struct diag *d);
/* pod_read of @len bytes of @text (NUL not needed), named @name in @d. */
int pod_read_text(const char *name, const char *text, size_t len, struct pod_cfg *out,
		  struct diag *d);
/* The last definition of @name, or NULL. */
const struct pod_env *pod_get(const struct pod_cfg *p, const char *name);
/*
 * NCCL_IB_DISABLE, when it turns RDMA off: set (not from a Secret or
 * ConfigMap) to a non-zero integer, as NCCL reads it (strtoll, base 0; a
 * value that is not a number leaves NCCL's default, 0). NULL otherwise.
 * What that means, for messages: POD_IB_DISABLED_WHY.
 */
const struct pod_env *pod_ib_disabled(const struct pod_cfg *p);
#define POD_IB_DISABLED_WHY                                                                        \
	"NCCL does not use RDMA at all (it falls back to TCP sockets): none of this "              \
	"fabric's RoCE settings apply to the job"
void pod_free(struct pod_cfg *p);

#endif
