/*
 * Kubernetes manifests: the NCCL_* environment of the containers of a Pod,
 * Deployment, StatefulSet, DaemonSet or Job (FACTS.md 7.1), read with
 * libcyaml (unknown keys allowed: a manifest has many) and ydoc for lines.
 */
#ifndef ROCESIM_POD_H
#define ROCESIM_POD_H

#include <stddef.h>

#include "diag.h"

struct pod_env {
	char name[64];
	char value[256];
	int line;
	char container[64];
};

struct pod_cfg {
	char file[256];
	char kind[32];        /* Pod, Deployment, ... */
	struct pod_env *env;  /* NCCL_* variables only, in file order */
	size_t n;
};

/* Read @file. 0, or -EINVAL with @d (malformed YAML, not a workload
 * manifest, no containers); -ENOMEM. */
int pod_read(const char *file, struct pod_cfg *out, struct diag *d);
/* The last definition of @name, or NULL. */
const struct pod_env *pod_get(const struct pod_cfg *p, const char *name);
void pod_free(struct pod_cfg *p);

#endif
