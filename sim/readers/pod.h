/*
 * Kubernetes manifests: the NCCL_* environment of the containers of a Pod,
 * Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob, of every
 * replica of a Kubeflow PyTorchJob (Master, Worker) or MPIJob (Launcher,
 * Worker), of every replicatedJob of a JobSet, and of every item of a List
 * (`kubectl get pods -o yaml`) (NCCL's "Environment Variables"
 * documentation), with what a container's command passes to mpirun -x
 * (pod_mpirun.c), read with libcyaml (unknown keys allowed: a
 * manifest has many) and ydoc for lines. A file of several documents (---)
 * is read at its first workload document; envFrom configMapRef and
 * valueFrom configMapKeyRef are resolved against the ConfigMaps of the same
 * file, with Kubernetes' precedence (env over envFrom, a later envFrom
 * source over an earlier one). Secrets are never read. What is read, and
 * the look-ups on it: pod_cfg.h.
 */
#ifndef ROCESIM_POD_H
#define ROCESIM_POD_H

#include <stddef.h>

#include "sim/engine/diag.h"
#include "sim/readers/pod_cfg.h"

/* Read @file. 0, or -EINVAL with @d (malformed YAML, not a workload
 * manifest, no containers, a malformed replica spec or ConfigMap); -ENOMEM;
 * the negative errno of a file that cannot be read, with @d. */
int pod_read(const char *file, struct pod_cfg *out, struct diag *d);
/* pod_read of @len bytes of @text (NUL not needed), named @name in @d. */
int pod_read_text(const char *name, const char *text, size_t len, struct pod_cfg *out,
		  struct diag *d);

#endif
