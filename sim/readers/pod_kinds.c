/*
 * The workload kinds the Kubernetes manifest reader knows, the libcyaml
 * schema of each (unknown keys ignored: a manifest has hundreds), and
 * where each keeps its pod templates:
 *
 *   Pod                          spec.containers
 *   Deployment, StatefulSet,     spec.template.spec.containers
 *   DaemonSet, ReplicaSet, Job
 *   CronJob                      spec.jobTemplate.spec.template.spec.containers
 *   PyTorchJob (kubeflow.org/v1) spec.pytorchReplicaSpecs.{Master,Worker}
 *                                .template.spec.containers
 *   MPIJob (kubeflow.org/v2beta1 spec.mpiReplicaSpecs.{Launcher,Worker}
 *   and v1)                      .template.spec.containers
 *   JobSet (jobset.x-k8s.io/     spec.replicatedJobs[].template.spec
 *   v1alpha2)                    .template.spec.containers
 *   List (v1, what `kubectl get  items[].spec.containers of each Pod item,
 *   pods -o yaml` prints)        items[] of the other kinds of one template
 *                                as above; items of other kinds are skipped
 *
 * A replica type other than those is refused, as the Kubeflow training
 * operator's validation refuses it (PyTorchReplicaType "is %v but must be
 * one of [Master Worker]"), and so is an MPIJob without its Launcher, which
 * the MPI operator requires.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/pod_impl.h"

enum pod_level {
	POD_LVL_POD,	  /* spec.containers */
	POD_LVL_TEMPLATE, /* spec.template.spec.containers */
	POD_LVL_CRONJOB,  /* spec.jobTemplate.spec.template.spec.containers */
	POD_LVL_PYTORCH,  /* spec.pytorchReplicaSpecs.<type>.template.spec.containers */
	POD_LVL_MPI,	  /* spec.mpiReplicaSpecs.<type>.template.spec.containers */
	POD_LVL_JOBSET,	  /* spec.replicatedJobs[i].template.spec.template.spec.containers */
	POD_LVL_LIST,	  /* items[i]: a Pod, or a kind of one template */
};

static const struct {
	const char *kind;
	enum pod_level level;
} pod_kinds[] = {
    {"Pod", POD_LVL_POD},
    {"Deployment", POD_LVL_TEMPLATE},
    {"StatefulSet", POD_LVL_TEMPLATE},
    {"DaemonSet", POD_LVL_TEMPLATE},
    {"ReplicaSet", POD_LVL_TEMPLATE},
    {"Job", POD_LVL_TEMPLATE},
    {"CronJob", POD_LVL_CRONJOB},
    {"PyTorchJob", POD_LVL_PYTORCH},
    {"MPIJob", POD_LVL_MPI},
    {"JobSet", POD_LVL_JOBSET},
    {"List", POD_LVL_LIST},
};

static const char *const pod_spec_path[] = {
    [POD_LVL_POD] = "spec",
    [POD_LVL_TEMPLATE] = "spec.template.spec",
    [POD_LVL_CRONJOB] = "spec.jobTemplate.spec.template.spec",
};

/* The replica types of the Kubeflow kinds, in the order of struct pod_y_replicas. */
static const char *const pod_pytorch_types[2] = {"Master", "Worker"};
static const char *const pod_mpi_types[2] = {"Launcher", "Worker"};

int pod_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(pod_kinds) / sizeof(pod_kinds[0]); i++)
		if (!strcmp(pod_kinds[i].kind, kind))
			return (int)i;
	return -1;
}

/* ---- the libcyaml schemas, innermost first ------------------------------------------ */

#define POD_OPT (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER_NULL)
#define POD_OPT_STR (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER)

/* A mapping whose keys are all ignored: only its presence counts. */
static const cyaml_schema_field_t pod_none_fields[] = {
    CYAML_FIELD_END,
};

/* optional: kept as text (true, yes, on, ... as sigs.k8s.io/yaml reads YAML 1.1) */
static const cyaml_schema_field_t pod_ref_fields[] = {
    CYAML_FIELD_STRING_PTR("name", POD_OPT_STR, struct pod_y_ref, name, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("key", POD_OPT_STR, struct pod_y_ref, key, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("optional", POD_OPT_STR, struct pod_y_ref, optional, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_value_from_fields[] = {
    CYAML_FIELD_MAPPING_PTR("configMapKeyRef", POD_OPT, struct pod_y_value_from, cm,
			    pod_ref_fields),
    CYAML_FIELD_MAPPING_PTR("secretKeyRef", POD_OPT, struct pod_y_value_from, secret,
			    pod_ref_fields),
    CYAML_FIELD_MAPPING_PTR("fieldRef", POD_OPT, struct pod_y_value_from, field, pod_none_fields),
    CYAML_FIELD_MAPPING_PTR("resourceFieldRef", POD_OPT, struct pod_y_value_from, resource,
			    pod_none_fields),
    CYAML_FIELD_END,
};

/*
 * value: plain CYAML_FLAG_POINTER, not POINTER_NULL_STR, which would also
 * turn the quoted string "null" into NULL; `value:` loads as "".
 */
static const cyaml_schema_field_t pod_env_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct pod_y_env, name, 0, CYAML_UNLIMITED),
    CYAML_FIELD_STRING_PTR("value", POD_OPT_STR, struct pod_y_env, value, 0, CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("valueFrom", POD_OPT, struct pod_y_env, value_from,
			    pod_value_from_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_env_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_env, pod_env_fields),
};

static const cyaml_schema_field_t pod_env_from_fields[] = {
    CYAML_FIELD_STRING_PTR("prefix", POD_OPT_STR, struct pod_y_env_from, prefix, 0,
			   CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("configMapRef", POD_OPT, struct pod_y_env_from, cm, pod_ref_fields),
    CYAML_FIELD_MAPPING_PTR("secretRef", POD_OPT, struct pod_y_env_from, secret, pod_ref_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_env_from_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_env_from, pod_env_from_fields),
};

static const cyaml_schema_value_t pod_arg_value = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t pod_ctr_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct pod_y_ctr, name, 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("command", POD_OPT, struct pod_y_ctr, command, &pod_arg_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("args", POD_OPT, struct pod_y_ctr, args, &pod_arg_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("env", POD_OPT, struct pod_y_ctr, env, &pod_env_value, 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("envFrom", POD_OPT, struct pod_y_ctr, env_from, &pod_env_from_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_ctr_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_ctr, pod_ctr_fields),
};

static const cyaml_schema_field_t pod_podspec_fields[] = {
    CYAML_FIELD_SEQUENCE("containers", POD_OPT, struct pod_y_podspec, containers, &pod_ctr_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("initContainers", POD_OPT, struct pod_y_podspec, init, &pod_ctr_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_tpl_fields[] = {
    CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_tpl, spec, pod_podspec_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_jobspec_fields[] = {
    CYAML_FIELD_MAPPING_PTR("template", POD_OPT, struct pod_y_jobspec, template, pod_tpl_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_jobtpl_fields[] = {
    CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_jobtpl, spec, pod_jobspec_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_replica_fields[] = {
    CYAML_FIELD_MAPPING_PTR("template", POD_OPT, struct pod_y_replica, template, pod_tpl_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_pytorch_fields[] = {
    CYAML_FIELD_MAPPING_PTR("Master", POD_OPT, struct pod_y_replicas, r[0], pod_replica_fields),
    CYAML_FIELD_MAPPING_PTR("Worker", POD_OPT, struct pod_y_replicas, r[1], pod_replica_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_mpi_fields[] = {
    CYAML_FIELD_MAPPING_PTR("Launcher", POD_OPT, struct pod_y_replicas, r[0], pod_replica_fields),
    CYAML_FIELD_MAPPING_PTR("Worker", POD_OPT, struct pod_y_replicas, r[1], pod_replica_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_rjob_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct pod_y_rjob, name, 0, CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("template", POD_OPT, struct pod_y_rjob, template, pod_jobtpl_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_rjob_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_rjob, pod_rjob_fields),
};

/* The top spec of the kinds of one template: a Pod's, or a workload's that holds a template */
static const cyaml_schema_field_t pod_spec_fields[] = {
    CYAML_FIELD_SEQUENCE("containers", POD_OPT, struct pod_y_spec, pod.containers, &pod_ctr_value,
			 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("initContainers", POD_OPT, struct pod_y_spec, pod.init, &pod_ctr_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("template", POD_OPT, struct pod_y_spec, template, pod_tpl_fields),
    CYAML_FIELD_MAPPING_PTR("jobTemplate", POD_OPT, struct pod_y_spec, job_template,
			    pod_jobtpl_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_pytorch_spec_fields[] = {
    CYAML_FIELD_MAPPING_PTR("pytorchReplicaSpecs", POD_OPT, struct pod_y_spec, replicas,
			    pod_pytorch_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_mpi_spec_fields[] = {
    CYAML_FIELD_MAPPING_PTR("mpiReplicaSpecs", POD_OPT, struct pod_y_spec, replicas,
			    pod_mpi_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pod_jobset_spec_fields[] = {
    CYAML_FIELD_SEQUENCE("replicatedJobs", POD_OPT, struct pod_y_spec, rjobs, &pod_rjob_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

#define POD_DOC_FIELDS(spec_fields)                                                                \
	{                                                                                          \
		CYAML_FIELD_STRING_PTR("kind", CYAML_FLAG_POINTER, struct pod_y_doc, kind, 0,      \
				       CYAML_UNLIMITED),                                           \
		    CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_doc, spec, spec_fields), \
		    CYAML_FIELD_END,                                                               \
	}

static const cyaml_schema_field_t pod_doc_fields[] = POD_DOC_FIELDS(pod_spec_fields);
static const cyaml_schema_field_t pod_pytorch_doc_fields[] =
    POD_DOC_FIELDS(pod_pytorch_spec_fields);
static const cyaml_schema_field_t pod_mpi_doc_fields[] = POD_DOC_FIELDS(pod_mpi_spec_fields);
static const cyaml_schema_field_t pod_jobset_doc_fields[] = POD_DOC_FIELDS(pod_jobset_spec_fields);

static const cyaml_schema_field_t pod_item_fields[] = {
    CYAML_FIELD_STRING_PTR("kind", POD_OPT_STR, struct pod_y_item, kind, 0, CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("spec", POD_OPT, struct pod_y_item, spec, pod_spec_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_item_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct pod_y_item, pod_item_fields),
};

static const cyaml_schema_field_t pod_list_doc_fields[] = {
    CYAML_FIELD_STRING_PTR("kind", CYAML_FLAG_POINTER, struct pod_y_doc, kind, 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("items", POD_OPT, struct pod_y_doc, items, &pod_item_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t pod_doc_values[] = {
    {CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct pod_y_doc, pod_doc_fields)},
    {CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct pod_y_doc, pod_pytorch_doc_fields)},
    {CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct pod_y_doc, pod_mpi_doc_fields)},
    {CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct pod_y_doc, pod_jobset_doc_fields)},
    {CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct pod_y_doc, pod_list_doc_fields)},
};

/* The schema of kind @kind (a pod_kind index; -1: the first) */
const cyaml_schema_value_t *pod_kind_schema(int kind)
{
	switch (kind >= 0 ? pod_kinds[kind].level : POD_LVL_POD) {
	case POD_LVL_PYTORCH:
		return &pod_doc_values[1];
	case POD_LVL_MPI:
		return &pod_doc_values[2];
	case POD_LVL_JOBSET:
		return &pod_doc_values[3];
	case POD_LVL_LIST:
		return &pod_doc_values[4];
	default:
		return &pod_doc_values[0];
	}
}

/* ---- the pod templates of a loaded document ------------------------------------------ */

struct pod_groups {
	struct pod_group *v;
	size_t n;
};

static int pod_group_add(struct pod_groups *g, const char *replica, const char *base,
			 const struct pod_y_podspec *ps)
{
	struct pod_group *v = realloc(g->v, (g->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	g->v = v;
	snprintf(v[g->n].replica, sizeof(v[g->n].replica), "%s", replica);
	snprintf(v[g->n].base, sizeof(v[g->n].base), "%s", base);
	v[g->n].ps = ps;
	g->n++;
	return 0;
}

/* The line of @path or of its nearest enclosing key, else of kind: */
static int pod_line(const struct ydoc *y, const char *path)
{
	int line = ydoc_line_near(y, path);

	return line ? line : ydoc_line(y, "kind");
}

/* A template with no containers: "Deployment has no containers" at its line. */
static int pod_no_containers(const char *file, const struct ydoc *y, const char *base,
			     const char *what, struct diag *d)
{
	char path[224];

	snprintf(path, sizeof(path), "%s.containers", base);
	diag_set(d, file, ydoc_line_near(y, path), path, "%s has no containers", what);
	return -EINVAL;
}

/*
 * The replica types under @key (spec.pytorchReplicaSpecs): each key the file
 * gives must be one of @types. The replica specs themselves, in @r.
 */
static int pod_replicas(const char *file, const struct ydoc *y, const char *kind, const char *key,
			const char *const types[2], const struct pod_y_replicas *r,
			struct pod_groups *g, struct diag *d)
{
	size_t klen = strlen(key);
	char base[192], what[96];
	int err = 0;

	if (!r) {
		diag_set(d, file, pod_line(y, key), key,
			 "%s has no replica specs: expected %s.%s or %s.%s", kind, key, types[0],
			 key, types[1]);
		return -EINVAL;
	}
	for (size_t i = 0; i < ydoc_count(y); i++) {
		const struct ydoc_entry *e = ydoc_at(y, i);
		const char *t;
		size_t tlen;

		if (strncmp(e->path, key, klen) || e->path[klen] != '.')
			continue;
		t = e->path + klen + 1;
		tlen = strcspn(t, ".[");
		if ((tlen == strlen(types[0]) && !strncmp(t, types[0], tlen)) ||
		    (tlen == strlen(types[1]) && !strncmp(t, types[1], tlen)))
			continue;
		diag_set(d, file, e->line, e->path,
			 "\"%.*s\" is not a %s replica type: expected %s or %s (the Kubeflow "
			 "operator refuses it)",
			 (int)(tlen < 64 ? tlen : 64), t, kind, types[0], types[1]);
		return -EINVAL;
	}
	if (!r->r[0] && !r->r[1]) {
		diag_set(d, file, pod_line(y, key), key,
			 "%s has no replica specs: expected %s.%s or %s.%s", kind, key, types[0],
			 key, types[1]);
		return -EINVAL;
	}
	if (!strcmp(kind, "MPIJob") && !r->r[0]) {
		snprintf(base, sizeof(base), "%s.%s", key, types[0]);
		diag_set(d, file, ydoc_line_near(y, base), base,
			 "MPIJob has no %s replica: the MPI operator requires one", types[0]);
		return -EINVAL;
	}
	for (int t = 0; !err && t < 2; t++) {
		const struct pod_y_replica *rs = r->r[t];
		const struct pod_y_podspec *ps = rs && rs->template ? rs->template->spec : NULL;

		/* a type the file gives (Worker:) with nothing in it counts as given */
		snprintf(base, sizeof(base), "%s.%s", key, types[t]);
		if (!rs && !ydoc_find(y, base))
			continue;
		snprintf(base, sizeof(base), "%s.%s.template.spec", key, types[t]);
		if (!ps || !ps->containers_count) {
			snprintf(what, sizeof(what), "%s replica %s", kind, types[t]);
			return pod_no_containers(file, y, base, what, d);
		}
		err = pod_group_add(g, types[t], base, ps);
	}
	return err;
}

/* The replicatedJobs of a JobSet: each with a name of its own and containers. */
static int pod_rjobs(const char *file, const struct ydoc *y, const struct pod_y_spec *spec,
		     struct pod_groups *g, struct diag *d)
{
	char base[192], what[160];
	int err = 0;

	if (!spec || !spec->rjobs_count) {
		diag_set(d, file, pod_line(y, "spec.replicatedJobs"), "spec.replicatedJobs",
			 "JobSet has no replicatedJobs");
		return -EINVAL;
	}
	for (unsigned i = 0; !err && i < spec->rjobs_count; i++) {
		const struct pod_y_rjob *rj = &spec->rjobs[i];
		const struct pod_y_podspec *ps = NULL;

		snprintf(base, sizeof(base), "spec.replicatedJobs[%u].name", i);
		if (strlen(rj->name) >= sizeof(g->v->replica)) {
			diag_set(d, file, ydoc_line_near(y, base), base,
				 "replicatedJob name longer than %zu characters",
				 sizeof(g->v->replica) - 1);
			return -EINVAL;
		}
		for (unsigned j = 0; j < i; j++) {
			if (strcmp(spec->rjobs[j].name, rj->name))
				continue;
			snprintf(what, sizeof(what), "spec.replicatedJobs[%u].name", j);
			diag_set(d, file, ydoc_line_near(y, base), base,
				 "a second replicatedJob named \"%s\" (the first is at line %d): "
				 "JobSet refuses it",
				 rj->name, ydoc_line_near(y, what));
			return -EINVAL;
		}
		if (rj->template && rj->template->spec && rj->template->spec->template)
			ps = rj->template->spec->template->spec;
		snprintf(base, sizeof(base), "spec.replicatedJobs[%u].template.spec.template.spec",
			 i);
		if (!ps || !ps->containers_count) {
			snprintf(what, sizeof(what), "JobSet replicatedJob %s", rj->name);
			return pod_no_containers(file, y, base, what, d);
		}
		err = pod_group_add(g, rj->name, base, ps);
	}
	return err;
}

/* The pod spec of a workload of kind @level whose top spec is @spec, or NULL. */
static const struct pod_y_podspec *pod_one_template(enum pod_level level,
						    const struct pod_y_spec *spec)
{
	if (!spec)
		return NULL;
	if (level == POD_LVL_POD)
		return &spec->pod;
	if (level == POD_LVL_TEMPLATE && spec->template)
		return spec->template->spec;
	if (level == POD_LVL_CRONJOB && spec->job_template && spec->job_template->spec &&
	    spec->job_template->spec->template)
		return spec->job_template->spec->template->spec;
	return NULL;
}

/*
 * The items of a List: each Pod, or workload of one template, a group named
 * by its metadata.name (a Pod's name says which it is); other kinds skipped.
 */
static int pod_items(const char *file, const struct ydoc *y, const struct pod_y_doc *doc,
		     struct pod_groups *g, struct diag *d)
{
	char base[192], path[224], what[160];
	int err = 0;

	for (unsigned i = 0; !err && i < doc->items_count; i++) {
		const struct pod_y_item *it = &doc->items[i];
		int k = it->kind ? pod_kind(it->kind) : -1;
		enum pod_level level = k >= 0 ? pod_kinds[k].level : POD_LVL_LIST;
		const struct ydoc_entry *name;
		const struct pod_y_podspec *ps;

		if (level != POD_LVL_POD && level != POD_LVL_TEMPLATE && level != POD_LVL_CRONJOB)
			continue;
		snprintf(path, sizeof(path), "items[%u].metadata.name", i);
		name = ydoc_find(y, path);
		snprintf(what, sizeof(what), "%.63s", name && name->value ? name->value : path);
		snprintf(base, sizeof(base), "items[%u].%s", i, pod_spec_path[level]);
		ps = pod_one_template(level, it->spec);
		if (!ps || !ps->containers_count) {
			snprintf(path, sizeof(path), "%s %s", it->kind, what);
			return pod_no_containers(file, y, base, path, d);
		}
		err = pod_group_add(g, what, base, ps);
	}
	if (!err && !g->n) {
		diag_set(d, file, pod_line(y, "items"), "items",
			 "List holds no Pod or workload of one pod template (Deployment, "
			 "StatefulSet, DaemonSet, ReplicaSet, Job, CronJob)");
		return -EINVAL;
	}
	return err;
}

int pod_kind_groups(const char *file, const struct ydoc *y, int kind, const struct pod_y_doc *doc,
		    struct pod_group **out, size_t *n, struct diag *d)
{
	enum pod_level level = pod_kinds[kind].level;
	const struct pod_y_podspec *ps = NULL;
	const struct pod_y_spec *spec = doc->spec;
	struct pod_groups g = {0};
	int err = 0;

	switch (level) {
	case POD_LVL_PYTORCH:
		err = pod_replicas(file, y, doc->kind, "spec.pytorchReplicaSpecs",
				   pod_pytorch_types, spec ? spec->replicas : NULL, &g, d);
		break;
	case POD_LVL_MPI:
		err = pod_replicas(file, y, doc->kind, "spec.mpiReplicaSpecs", pod_mpi_types,
				   spec ? spec->replicas : NULL, &g, d);
		break;
	case POD_LVL_JOBSET:
		err = pod_rjobs(file, y, spec, &g, d);
		break;
	case POD_LVL_LIST:
		err = pod_items(file, y, doc, &g, d);
		break;
	default:
		ps = pod_one_template(level, spec);
		if (!ps || !ps->containers_count)
			err = pod_no_containers(file, y, pod_spec_path[level], doc->kind, d);
		else
			err = pod_group_add(&g, "", pod_spec_path[level], ps);
		break;
	}
	if (err) {
		free(g.v);
		return err;
	}
	*out = g.v;
	*n = g.n;
	return 0;
}
