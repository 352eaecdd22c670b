/*
 * What the files of the Kubernetes manifest reader share: pod_scan.c scans
 * the text (which document, and is it safe to expand; where the ConfigMaps
 * are), pod_kinds.c knows each kind's layout (its libcyaml schema, where
 * its pod templates are), pod_cm.c reads the ConfigMaps, pod_env.c
 * collects the NCCL_* variables of the containers (and pod_mpirun.c what
 * their commands pass to mpirun -x) into pod_ctx.c's context, pod.c runs
 * it all. What they fill in is pod_cfg.h's.
 */
#ifndef ROCESIM_POD_IMPL_H
#define ROCESIM_POD_IMPL_H

#include <cyaml/cyaml.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/readers/pod_cfg.h"
#include "sim/readers/ydoc.h"

#define POD_DEPTH 64	    /* as ydoc: deeper is refused */
#define POD_MAX_ANCHORS 256 /* per document; libcyaml searches them linearly */

struct pod_frame {
	int is_map;
	size_t kids;	 /* nodes read in this collection (keys and values) */
	uint64_t weight; /* events this collection expands to, so far */
	char *anchor;	 /* its &anchor, or NULL */
};

struct pod_anchor {
	char *name;
	uint64_t weight;
};

/* One document as the scan saw it. */
struct pod_doc {
	int index;	   /* 1-based */
	size_t start, end; /* libyaml character indices: where it starts and ends */
	size_t start_col;
	int start_line; /* 0-based */
	int has_end;	/* 0: runs to the end of the text */
	char kind[32];	/* "" when the root has no scalar kind */
	int bad_line;	/* 1-based line of the refusal below, when bad_msg[0] */
	char bad_msg[160];
};

struct pod_scan {
	struct pod_doc cur, first, pick;
	int ndocs, picked;
	int depth;
	struct pod_frame st[POD_DEPTH];
	struct pod_anchor anchors[POD_MAX_ANCHORS];
	int n_anchors;
	uint64_t expanded;
	/* libyaml's error, when the text is not YAML */
	int yaml_err, yaml_line;
	char yaml_msg[160];
	/* the ConfigMap documents, in file order */
	struct pod_doc *cms;
	size_t n_cms, cap_cms;
	int tail_err_line; /* after the workload, the text is not YAML from here on; 0 */
};

/* ---- the loaded workload document (pod_kinds.c's schemas), innermost first ---- */

struct pod_y_none {
	int unused;
};

/* configMapKeyRef, secretKeyRef, configMapRef, secretRef */
struct pod_y_ref {
	char *name, *key, *optional;
};

struct pod_y_value_from {
	struct pod_y_ref *cm, *secret;
	struct pod_y_none *field, *resource;
};

struct pod_y_env {
	char *name;
	char *value;
	struct pod_y_value_from *value_from;
};

struct pod_y_env_from {
	char *prefix;
	struct pod_y_ref *cm, *secret;
};

struct pod_y_ctr {
	char *name;
	char **command, **args;
	unsigned command_count, args_count;
	struct pod_y_env *env;
	unsigned env_count;
	struct pod_y_env_from *env_from;
	unsigned env_from_count;
};

struct pod_y_podspec {
	struct pod_y_ctr *containers;
	unsigned containers_count;
	struct pod_y_ctr *init;
	unsigned init_count;
};

struct pod_y_tpl {
	struct pod_y_podspec *spec;
};

struct pod_y_jobspec {
	struct pod_y_tpl *template;
};

struct pod_y_jobtpl {
	struct pod_y_jobspec *spec;
};

/* A Kubeflow replica spec: replicas, restartPolicy, template */
struct pod_y_replica {
	struct pod_y_tpl *template;
};

/* pytorchReplicaSpecs {Master, Worker}, mpiReplicaSpecs {Launcher, Worker} */
struct pod_y_replicas {
	struct pod_y_replica *r[2];
};

/* A JobSet replicatedJob: its template is a Job template */
struct pod_y_rjob {
	char *name;
	struct pod_y_jobtpl *template;
};

/* The top spec: a Pod's, or a workload's that holds templates */
struct pod_y_spec {
	struct pod_y_podspec pod;
	struct pod_y_tpl *template;
	struct pod_y_jobtpl *job_template;
	struct pod_y_replicas *replicas;
	struct pod_y_rjob *rjobs;
	unsigned rjobs_count;
};

/* An item of a List (kubectl get ... -o yaml): a Pod or a workload of one template */
struct pod_y_item {
	char *kind;
	struct pod_y_spec *spec;
};

struct pod_y_doc {
	char *kind;
	struct pod_y_spec *spec;
	struct pod_y_item *items; /* a List's */
	unsigned items_count;
};

/* A pod template of the workload: its containers and where they are. */
struct pod_group {
	char replica[64]; /* "" for the kinds of one template */
	char base[192];	  /* the key path of its pod spec */
	const struct pod_y_podspec *ps;
};

/* ---- the ConfigMaps of the file (pod_cm.c) ---- */

struct pod_cm_kv {
	char *key, *value;
	int line;
};

struct pod_cm {
	char *name, *ns; /* ns: "" when metadata.namespace is not given */
	int line;	 /* of metadata.name */
	struct pod_cm_kv *kv;
	size_t n;
};

struct pod_cms {
	struct pod_cm *v;
	size_t n;
	int built;
};

/* ---- collecting the variables (pod_ctx.c, pod_env.c, pod_mpirun.c) ---- */

struct pod_item {
	struct pod_env env;
	size_t seq; /* collection order, to keep it among equal lines */
};

struct pod_ctx {
	const char *file;
	const char *text; /* the whole file, for its ConfigMaps */
	size_t len;
	const struct pod_scan *scan;
	const struct ydoc *y; /* the workload document */
	const char *ns;	      /* its metadata.namespace, or "" */
	struct pod_cms cms;
	struct pod_item *v;
	size_t n, cap;
	struct pod_note *notes;
	size_t n_notes, cap_notes;
	size_t n_env_from;
	unsigned n_ctr;
};

#define POD_KINDS                                                                                  \
	"Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, PyTorchJob, MPIJob, "  \
	"JobSet or List"

/* pod_kinds.c */
int pod_kind(const char *kind);
const cyaml_schema_value_t *pod_kind_schema(int kind);
/* The pod templates of @doc, of kind @kind, into *@out (free()); 0, -ENOMEM,
 * or -EINVAL with @d: a template with no containers, a replica type the
 * operator refuses. */
int pod_kind_groups(const char *file, const struct ydoc *y, int kind, const struct pod_y_doc *doc,
		    struct pod_group **out, size_t *n, struct diag *d);

/* pod_cm.c: 0, -ENOMEM, or -EINVAL with @d (a ConfigMap that is not one) */
int pod_cms_build(struct pod_cms *c, const char *file, const char *text, size_t len,
		  const struct pod_scan *s, struct diag *d);
/* The last ConfigMap @name of namespace @ns (or, either not given, of any),
 * else NULL and *@elsewhere one of another namespace (or NULL). */
const struct pod_cm *pod_cms_find(const struct pod_cms *c, const char *name, const char *ns,
				  const struct pod_cm **elsewhere);
const struct pod_cm_kv *pod_cm_get(const struct pod_cm *cm, const char *key);
void pod_cms_free(struct pod_cms *c);

/* pod_ctx.c: add @e to the variables of @c (0 or -ENOMEM); free what @c
 * holds. */
int pod_push(struct pod_ctx *c, const struct pod_env *e);
void pod_ctx_free(struct pod_ctx *c);

/* pod_env.c */
int pod_collect(struct pod_ctx *c, const struct pod_group *g, struct diag *d);
/* Sort, find the conflicts, and hand the variables and notes to @out. */
int pod_finish(struct pod_ctx *c, struct pod_cfg *out);

/* pod_mpirun.c: what container @i of @base (@ctr, numbered @id) passes to
 * mpirun -x, as entries of source POD_SRC_MPIRUN. 0, -ENOMEM, or -EINVAL
 * with @d (a name or value too long). */
int pod_mpirun(struct pod_ctx *c, const char *base, unsigned i, const char *replica,
	       const struct pod_y_ctr *ctr, unsigned id, struct diag *d);

/* pod_scan.c */
int pod_scan(struct pod_scan *s, const char *text, size_t len);
void pod_scan_free(struct pod_scan *s); /* s->cms and @s */
int pod_slice(const char *text, size_t len, const struct pod_doc *doc, const char **out,
	      size_t *out_len, char **buf);

#endif
