/*
 * Tests of the Kubernetes manifest reader (sim/pod.c): the NCCL_* variables
 * of each workload kind with their values and lines, valueFrom, last
 * definition wins, several documents, and a clear error (never a crash)
 * for what is not a workload manifest. Files are read from tests/pod/ and
 * experiments/configs/ under ROCESIM_SRC.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/readers/nccl_hca.h"
#include "sim/readers/pod.h"
#include "support.h"

/* Read tests/pod/@name; asserts success. */
static void read_ok(const char *rel, struct pod_cfg *p)
{
	struct diag d = {0};
	char msg[1024];
	int err = pod_read(ts_src(rel), p, &d);

	cr_assert_eq(err, 0, "%s: %d: %s", rel, err, diag_str(&d, msg, sizeof(msg)));
}

/* Read @rel, assert that it fails with -EINVAL at @line with @words in the message. */
static void read_bad(const char *rel, int line, const char *words)
{
	struct pod_cfg p;
	struct diag d = {0};
	char msg[1024];
	int err = pod_read(ts_src(rel), &p, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%s: expected -EINVAL, got %d (%s)", rel, err, msg);
	cr_assert_eq(d.line, line, "%s: line %d, expected %d (%s)", rel, d.line, line, msg);
	cr_assert(strstr(d.msg, words), "%s: \"%s\" lacks \"%s\"", rel, msg, words);
	cr_assert(strstr(d.file, rel), "%s: diag names %s", rel, d.file);
	cr_assert_null(p.env);
	cr_assert_eq(p.n, 0);
}

static int text_bad(const char *text, struct diag *d)
{
	struct pod_cfg p;
	int err = pod_read_text("inline.yaml", text, strlen(text), &p, d);

	cr_assert_null(p.env);
	return err;
}

static void assert_env(const struct pod_env *e, const char *name, const char *value, int line,
		       const char *container)
{
	cr_assert_not_null(e, "%s missing", name);
	cr_assert_str_eq(e->name, name);
	cr_assert_str_eq(e->value, value, "%s=%s, expected %s", name, e->value, value);
	cr_assert_eq(e->line, line, "%s at line %d, expected %d", name, e->line, line);
	cr_assert_str_eq(e->container, container);
}

Test(pod, pod_values_lines_and_skipped_keys)
{
	struct pod_cfg p;

	read_ok("tests/pod/trainer.yaml", &p);
	cr_assert_str_eq(p.kind, "Pod");
	cr_assert_eq(p.doc, 1);
	cr_assert(strstr(p.file, "tests/pod/trainer.yaml"));
	/* MASTER_ADDR and OMP_NUM_THREADS are not NCCL_*: skipped */
	cr_assert_eq(p.n, 4);
	assert_env(&p.env[0], "NCCL_IB_TC", "104", 36, "trainer");
	assert_env(&p.env[1], "NCCL_IB_GID_INDEX", "3", 38, "trainer");
	assert_env(&p.env[2], "NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1", 42, "trainer");
	/* a YAML number is text like a quoted string */
	assert_env(&p.env[3], "NCCL_IB_TIMEOUT", "22", 44, "trainer");
	for (size_t i = 0; i < p.n; i++)
		cr_assert_eq(p.env[i].value_from, 0);
	cr_assert_eq(p.n_env_from, 0);
	cr_assert_eq(pod_get(&p, "NCCL_IB_TC"), &p.env[0]);
	cr_assert_null(pod_get(&p, "MASTER_ADDR"));
	cr_assert_null(pod_get(&p, "NCCL_IB_SL"));
	pod_free(&p);
	cr_assert_null(p.env);
	cr_assert_eq(p.n, 0);
	pod_free(&p);
}

Test(pod, deployment)
{
	struct pod_cfg p;

	read_ok("tests/pod/deployment.yaml", &p);
	cr_assert_str_eq(p.kind, "Deployment");
	cr_assert_eq(p.n, 2);
	assert_env(&p.env[0], "NCCL_IB_TC", "106", 17, "server");
	assert_env(&p.env[1], "NCCL_DEBUG", "WARN", 18, "server");
	pod_free(&p);
}

Test(pod, statefulset_single_quotes_and_numbers)
{
	struct pod_cfg p;

	read_ok("tests/pod/statefulset.yaml", &p);
	cr_assert_str_eq(p.kind, "StatefulSet");
	cr_assert_eq(p.n, 2);
	assert_env(&p.env[0], "NCCL_IB_GID_INDEX", "3", 13, "worker");
	assert_env(&p.env[1], "NCCL_IB_SL", "3", 15, "worker");
	pod_free(&p);
}

Test(pod, job_with_init_container)
{
	struct pod_cfg p;

	read_ok("tests/pod/job.yaml", &p);
	cr_assert_str_eq(p.kind, "Job");
	cr_assert_eq(p.n, 2);
	assert_env(&p.env[0], "NCCL_DEBUG", "INFO", 15, "wait");
	assert_env(&p.env[1], "NCCL_IB_TC", "104", 21, "bench");
	pod_free(&p);
}

Test(pod, cronjob_nested_template)
{
	struct pod_cfg p;

	read_ok("tests/pod/cronjob.yaml", &p);
	cr_assert_str_eq(p.kind, "CronJob");
	cr_assert_eq(p.n, 2);
	assert_env(&p.env[0], "NCCL_IB_TC", "106", 17, "check");
	assert_env(&p.env[1], "NCCL_IB_RETRY_CNT", "7", 19, "check");
	pod_free(&p);
}

Test(pod, daemonset_and_replicaset)
{
	static const char *const kinds[] = {"DaemonSet", "ReplicaSet"};

	for (size_t i = 0; i < 2; i++) {
		char text[512];
		struct pod_cfg p;
		struct diag d = {0};

		snprintf(text, sizeof(text),
			 "kind: %s\n"
			 "spec:\n"
			 "  selector: {matchLabels: {a: b}}\n"
			 "  template:\n"
			 "    spec:\n"
			 "      containers:\n"
			 "      - name: agent\n"
			 "        env: [{name: NCCL_IB_TC, value: 106}]\n",
			 kinds[i]);
		cr_assert_eq(pod_read_text("inline.yaml", text, strlen(text), &p, &d), 0, "%s: %s",
			     kinds[i], d.msg);
		cr_assert_str_eq(p.kind, kinds[i]);
		cr_assert_eq(p.n, 1);
		assert_env(&p.env[0], "NCCL_IB_TC", "106", 8, "agent");
		pod_free(&p);
	}
}

Test(pod, value_from_is_recorded_unresolved)
{
	struct pod_cfg p;
	const struct pod_env *e;

	read_ok("tests/pod/value-from.yaml", &p);
	cr_assert_eq(p.n, 3);
	assert_env(&p.env[0], "NCCL_IB_TC", "104", 11, "c");
	cr_assert_eq(p.env[0].value_from, 0);
	e = pod_get(&p, "NCCL_IB_HCA");
	assert_env(e, "NCCL_IB_HCA", "", 13, "c");
	cr_assert_eq(e->value_from, 1);
	/* value "" beside valueFrom is what Kubernetes allows */
	e = pod_get(&p, "NCCL_SOCKET_IFNAME");
	assert_env(e, "NCCL_SOCKET_IFNAME", "", 16, "c");
	cr_assert_eq(e->value_from, 1);
	cr_assert_eq(p.n_env_from, 1);
	pod_free(&p);
}

Test(pod, duplicate_name_last_wins)
{
	struct pod_cfg p;
	const struct pod_env *e;

	read_ok("tests/pod/duplicate.yaml", &p);
	cr_assert_eq(p.n, 3);
	e = pod_get(&p, "NCCL_IB_TC");
	assert_env(e, "NCCL_IB_TC", "106", 8, "a");
	cr_assert_eq(e, &p.env[2]);
	pod_free(&p);
}

Test(pod, file_order_across_init_and_main_containers)
{
	struct pod_cfg p;

	read_ok("tests/pod/init-first.yaml", &p);
	cr_assert_eq(p.n, 2);
	assert_env(&p.env[0], "NCCL_IB_TC", "0", 6, "setup");
	assert_env(&p.env[1], "NCCL_IB_TC", "104", 10, "main");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->value, "104");
	pod_free(&p);
}

Test(pod, aliases_expand_at_their_line)
{
	struct pod_cfg p;

	read_ok("tests/pod/aliases.yaml", &p);
	cr_assert_eq(p.n, 3);
	/* env: *nccl on line 8 stands for both entries */
	assert_env(&p.env[0], "NCCL_IB_TC", "104", 8, "a");
	assert_env(&p.env[1], "NCCL_IB_GID_INDEX", "3", 8, "a");
	assert_env(&p.env[2], "NCCL_IB_FIFO_TC", "104", 11, "b");
	pod_free(&p);
}

Test(pod, crlf_lines)
{
	struct pod_cfg p;

	read_ok("tests/pod/crlf.yaml", &p);
	cr_assert_eq(p.n, 1);
	assert_env(&p.env[0], "NCCL_IB_TC", "104", 7, "a");
	pod_free(&p);
}

Test(pod, multi_document_reads_first_workload_with_file_lines)
{
	struct pod_cfg p;

	/* ConfigMap, Service (with UTF-8 before), Job, Pod, then a broken document */
	read_ok("tests/pod/multi.yaml", &p);
	cr_assert_str_eq(p.kind, "Job");
	cr_assert_eq(p.doc, 3);
	cr_assert_eq(p.n, 1);
	assert_env(&p.env[0], "NCCL_IB_TC", "106", 24, "t");
	pod_free(&p);
}

Test(pod, multi_document_workload_errors_name_file_lines)
{
	struct diag d = {0};
	const char *text = "kind: Service\n"
			   "---\n"
			   "kind: Pod\n"
			   "spec:\n"
			   "  containers:\n"
			   "  - name: a\n"
			   "    env: {name: NCCL_IB_TC}\n";

	cr_assert_eq(text_bad(text, &d), -EINVAL);
	cr_assert_eq(d.line, 7, "line %d: %s", d.line, d.msg);
	cr_assert_str_eq(d.path, "spec.containers[0].env");
	cr_assert(strstr(d.msg, "expected a list"), "%s", d.msg);
}

Test(pod, multi_document_without_workload)
{
	read_bad("tests/pod/multi-none.yaml", 2, "none of the 2 documents is a workload");
	read_bad("tests/pod/multi-none.yaml", 2, "the first is a ConfigMap");
}

Test(pod, error_malformed_yaml_names_its_line)
{
	read_bad("tests/pod/malformed.yaml", 9, "malformed YAML");
	read_bad("tests/pod/malformed.yaml", 9, "opened at line 7");
}

Test(pod, error_not_a_workload)
{
	struct diag d = {0};
	char msg[1024];

	read_bad("tests/pod/configmap.yaml", 2, "ConfigMap is not a workload");
	cr_assert_eq(text_bad("apiVersion: v1\nkind: ConfigMap\n", &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(
	    !strncmp(msg, "inline.yaml:2: kind: ConfigMap is not a workload: expected a Pod", 57),
	    "%s", msg);
}

Test(pod, error_no_containers)
{
	struct diag d = {0};

	read_bad("tests/pod/no-containers.yaml", 8, "Deployment has no containers");
	cr_assert_eq(text_bad("kind: Pod\nspec: {}\n", &d), -EINVAL);
	cr_assert_str_eq(d.path, "spec.containers");
	cr_assert_eq(d.line, 2);
	cr_assert_eq(text_bad("kind: Pod\n", &d), -EINVAL);
	cr_assert(strstr(d.msg, "Pod has no containers"), "%s", d.msg);
	cr_assert_eq(
	    text_bad("kind: CronJob\nspec:\n  jobTemplate:\n    spec: {template: {}}\n", &d),
	    -EINVAL);
	cr_assert_str_eq(d.path, "spec.jobTemplate.spec.template.spec.containers");
	cr_assert_eq(d.line, 4);
	/* a Pod's containers under a template are not a Pod's */
	cr_assert_eq(text_bad("kind: Pod\nspec:\n  template:\n    spec:\n      containers: [{name: "
			      "a}]\n",
			      &d),
		     -EINVAL);
}

Test(pod, error_empty_scalar_list_no_kind)
{
	read_bad("tests/pod/empty.yaml", 1, "empty");
	read_bad("tests/pod/scalar.yaml", 1, "expected a mapping of keys, not a single value");
	read_bad("tests/pod/list.yaml", 1, "expected a mapping of keys, not a list");
	read_bad("tests/pod/no-kind.yaml", 1, "no kind");
}

Test(pod, error_env_shapes)
{
	read_bad("tests/pod/env-scalar.yaml", 5, "expected a list, not a single value");
	read_bad("tests/pod/env-no-name.yaml", 8, "missing key \"name\"");
}

Test(pod, error_value_and_value_from)
{
	struct diag d = {0};

	cr_assert_eq(text_bad("kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n"
			      "    - name: NCCL_IB_TC\n      value: \"104\"\n"
			      "      valueFrom: {configMapKeyRef: {name: n, key: k}}\n",
			      &d),
		     -EINVAL);
	cr_assert(strstr(d.msg, "both value and valueFrom"), "%s", d.msg);
	cr_assert_eq(d.line, 7);
}

Test(pod, error_too_long)
{
	char text[1024], big[400];
	struct diag d = {0};

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(
	    text, sizeof(text),
	    "kind: Pod\nspec: {containers: [{name: a, env: [{name: NCCL_IB_HCA, value: %s}]}]}\n",
	    big);
	cr_assert_eq(text_bad(text, &d), -EINVAL);
	cr_assert(strstr(d.msg, "value longer than 255"), "%s", d.msg);
	snprintf(
	    text, sizeof(text),
	    "kind: Pod\nspec: {containers: [{name: a, env: [{name: NCCL_%.80s, value: 1}]}]}\n",
	    big);
	cr_assert_eq(text_bad(text, &d), -EINVAL);
	cr_assert(strstr(d.msg, "name longer than 63"), "%s", d.msg);
	/* a long value of a variable that is not NCCL_* is no concern of ours */
	snprintf(text, sizeof(text),
		 "kind: Pod\nspec: {containers: [{name: a, env: [{name: OTHER, value: %s}]}]}\n",
		 big);
	{
		struct pod_cfg p;

		cr_assert_eq(pod_read_text("inline.yaml", text, strlen(text), &p, &d), 0, "%s",
			     d.msg);
		cr_assert_eq(p.n, 0);
		pod_free(&p);
	}
}

Test(pod, error_alias_bomb_is_refused_quickly)
{
	clock_t t0 = clock();

	read_bad("tests/pod/laughs.yaml", 6, "aliases (*a3) expand to more than");
	cr_assert_lt((double)(clock() - t0) / CLOCKS_PER_SEC, 2.0);
}

Test(pod, error_unknown_alias_names_its_line)
{
	struct diag d = {0};

	cr_assert_eq(text_bad("kind: Pod\nx: [a]\nspec:\n  containers:\n  - name: *nm\n", &d),
		     -EINVAL);
	cr_assert(strstr(d.msg, "alias *nm names no anchor"), "%s", d.msg);
	cr_assert_eq(d.line, 5);
}

Test(pod, error_duplicate_key_is_einval)
{
	struct diag d = {0};

	cr_assert_eq(text_bad("kind: Pod\nkind: Job\n", &d), -EINVAL);
	cr_assert(strstr(d.msg, "duplicate key"), "%s", d.msg);
	cr_assert_eq(d.line, 2);
}

Test(pod, error_unreadable_files)
{
	struct pod_cfg p;
	struct diag d = {0};

	cr_assert_eq(pod_read(ts_src("tests/pod/no-such-file.yaml"), &p, &d), -ENOENT);
	cr_assert(strstr(d.msg, "cannot read"), "%s", d.msg);
	cr_assert_eq(pod_read(ts_src("tests/pod"), &p, &d), -EINVAL);
	cr_assert(strstr(d.msg, "not a regular file"), "%s", d.msg);
}

Test(pod, odd_inputs_fail_cleanly)
{
	static const char *const texts[] = {
	    "",
	    "---\n",
	    "...\n",
	    "---\n---\n",
	    "# only a comment\n",
	    "{",
	    "kind: Pod\nspec: 3\n",
	    "kind: Pod\nspec:\n  containers: 3\n",
	    "kind: Pod\nspec:\n  containers: [3]\n",
	    "kind: Pod\nspec:\n  containers: [{image: x}]\n",
	    "kind: Pod\nspec:\n  containers: [{name: [a]}]\n",
	    "kind: Pod\nspec:\n  containers: [{name: a, env: [3]}]\n",
	    "kind: Pod\nspec:\n  containers: [{name: a, env: [{name: NCCL_A, value: *x}]}]\n",
	    "kind: *a\n",
	    "kind: [Pod]\n",
	    "kind: {a: b}\n",
	    "kind: \"Pod\\0\"\nspec: {}\n",
	    "kind: Pod\n---\nkind: Job\n",
	    "kind: ConfigMap\n---\n- a\n---\nkind: Pod\n",
	    "kind: ConfigMap\n---\nkind: Pod\nspec: [\n",
	    "? [a]\n: b\n",
	    "kind: Pod\nspec: {containers: [{name: a, env: [{name: NCCL_A, value: \xff}]}]}\n",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct pod_cfg p;
		struct diag d = {0};
		int err = pod_read_text("inline.yaml", texts[i], strlen(texts[i]), &p, &d);

		cr_assert_eq(err, -EINVAL, "input %zu: %d", i, err);
		cr_assert(d.msg[0], "input %zu: no message", i);
		cr_assert_str_eq(d.file, "inline.yaml");
		cr_assert_null(p.env);
	}
}

Test(pod, error_utf16)
{
	struct pod_cfg p;
	struct diag d = {0};

	cr_assert_eq(pod_read_text("inline.yaml", "\xff\xfek\0i\0", 6, &p, &d), -EINVAL);
	cr_assert(strstr(d.msg, "UTF-16"), "%s", d.msg);
}

Test(pod, experiment_configs)
{
	struct pod_cfg p;

	read_ok("experiments/configs/pod.yaml", &p);
	cr_assert_str_eq(p.kind, "Pod");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->value, "104");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_GID_INDEX")->value, "3");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TIMEOUT")->value, "20");
	cr_assert_str_eq(pod_get(&p, "NCCL_DEBUG")->value, "INFO");
	cr_assert(!strncmp(pod_get(&p, "NCCL_IB_HCA")->value, "mlx5_0,", 7));
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->container, "trainer");
	cr_assert_null(pod_get(&p, "MASTER_ADDR"));
	pod_free(&p);

	read_ok("experiments/configs/pod-seed.yaml", &p);
	cr_assert_str_eq(p.kind, "Job");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->value, "104");
	cr_assert_eq(pod_get(&p, "NCCL_IB_TC")->line, 47);
	pod_free(&p);

	read_ok("experiments/configs/pod-fixed.yaml", &p);
	cr_assert_str_eq(p.kind, "Job");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->value, "106");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_GID_INDEX")->value, "3");
	pod_free(&p);
}

/* ---- training jobs, ConfigMaps, conflicts ---------------------------------------------- */

/* @e came from @from (src @src) at @src_line, in replica @replica */
static void assert_src(const struct pod_env *e, enum pod_src src, const char *from, int src_line,
		       const char *replica)
{
	cr_assert_eq(e->src, src, "%s: src %d, expected %d", e->name, e->src, src);
	cr_assert_str_eq(e->from, from, "%s from \"%s\", expected \"%s\"", e->name, e->from, from);
	cr_assert_eq(e->src_line, src_line, "%s written at line %d, expected %d", e->name,
		     e->src_line, src_line);
	cr_assert_str_eq(e->replica, replica);
	cr_assert_eq(e->value_from, src == POD_SRC_RUN_TIME);
}

/* The note of @p at @line, asserted present with @kind, @what and @words. */
static const struct pod_note *assert_note(const struct pod_cfg *p, int line,
					  enum pod_note_kind kind, const char *what,
					  const char *words)
{
	for (size_t i = 0; i < p->n_notes; i++) {
		const struct pod_note *n = &p->notes[i];

		if (n->line != line || strcmp(n->what, what))
			continue;
		cr_assert_eq(n->kind, kind, "%d %s: kind %d", line, what, n->kind);
		cr_assert(strstr(n->msg, words), "%d %s: \"%s\" lacks \"%s\"", line, what, n->msg,
			  words);
		return n;
	}
	cr_assert_fail("no note at line %d for %s (%zu notes)", line, what, p->n_notes);
	return NULL;
}

Test(pod, pytorchjob_master_worker_with_a_configmap_of_the_file)
{
	struct pod_cfg p;
	const struct pod_env *e = NULL;

	read_ok("tests/pod/pytorchjob.yaml", &p);
	cr_assert_str_eq(p.kind, "PyTorchJob");
	cr_assert_eq(p.doc, 2);
	cr_assert_eq(p.n_ctr, 2);
	cr_assert_eq(p.n, 12);
	/* Master: envFrom (line 47) takes the ConfigMap's NCCL_* keys, not OMP_NUM_THREADS */
	assert_env(&p.env[0], "NCCL_IB_TC", "106", 47, "pytorch");
	assert_src(&p.env[0], POD_SRC_ENV_FROM, "ConfigMap nccl-roce (envFrom)", 11, "Master");
	assert_env(&p.env[1], "NCCL_IB_GID_INDEX", "3", 47, "pytorch");
	assert_src(&p.env[1], POD_SRC_ENV_FROM, "ConfigMap nccl-roce (envFrom)", 12, "Master");
	assert_env(&p.env[2], "NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1", 47, "pytorch");
	assert_env(&p.env[3], "NCCL_SOCKET_IFNAME", "eth0", 47, "pytorch");
	assert_src(&p.env[3], POD_SRC_ENV_FROM, "ConfigMap nccl-roce (envFrom)", 15, "Master");
	/* env wins over envFrom: the ConfigMap's NCCL_DEBUG=INFO is not the Master's */
	assert_env(&p.env[4], "NCCL_DEBUG", "WARN", 51, "pytorch");
	assert_src(&p.env[4], POD_SRC_VALUE, "", 51, "Master");
	assert_env(&p.env[5], "NCCL_IB_TIMEOUT", "22", 53, "pytorch");
	assert_src(&p.env[5], POD_SRC_CM_KEY, "ConfigMap nccl-roce, key ib-timeout", 17, "Master");
	/* Worker: no env of its own for NCCL_DEBUG, so the ConfigMap's */
	assert_env(&p.env[6], "NCCL_IB_TC", "106", 74, "pytorch");
	assert_src(&p.env[6], POD_SRC_ENV_FROM, "ConfigMap nccl-roce (envFrom)", 11, "Worker");
	assert_env(&p.env[9], "NCCL_DEBUG", "INFO", 74, "pytorch");
	assert_src(&p.env[9], POD_SRC_ENV_FROM, "ConfigMap nccl-roce (envFrom)", 14, "Worker");
	assert_env(&p.env[11], "NCCL_IB_TIMEOUT", "22", 78, "pytorch");
	assert_src(&p.env[11], POD_SRC_CM_KEY, "ConfigMap nccl-roce, key ib-timeout", 17, "Worker");
	for (size_t i = 0; i < p.n; i++)
		cr_assert_eq(p.env[i].ctr, i < 6 ? 0u : 1u);
	e = pod_get(&p, "NCCL_IB_TC");
	cr_assert_eq(e, &p.env[6]);
	cr_assert_str_eq(pod_get(&p, "NCCL_DEBUG")->value, "INFO");
	cr_assert_null(pod_get(&p, "OMP_NUM_THREADS"));
	/* both replicas agree, every ConfigMap is in the file */
	cr_assert_eq(p.n_notes, 0, "%s", p.n_notes ? p.notes[0].msg : "");
	cr_assert_eq(p.n_env_from, 0);
	pod_free(&p);
	cr_assert_null(p.notes);
}

Test(pod, mpijob_v2beta1_launcher_and_worker)
{
	struct pod_cfg p;

	read_ok("tests/pod/mpijob.yaml", &p);
	cr_assert_str_eq(p.kind, "MPIJob");
	cr_assert_eq(p.n_ctr, 2);
	cr_assert_eq(p.n, 6);
	assert_env(&p.env[0], "NCCL_DEBUG", "INFO", 25, "launcher");
	assert_src(&p.env[0], POD_SRC_VALUE, "", 25, "Launcher");
	/* mpirun -x NCCL_DEBUG exports the launcher's; -x NCCL_IB_TC and
	 * NCCL_IB_GID_INDEX, unset there, export nothing */
	assert_env(&p.env[1], "NCCL_DEBUG", "INFO", 29, "launcher");
	assert_src(&p.env[1], POD_SRC_MPIRUN, "mpirun -x, the container's env", 25, "Launcher");
	assert_env(&p.env[2], "NCCL_IB_TC", "106", 42, "worker");
	assert_src(&p.env[2], POD_SRC_VALUE, "", 42, "Worker");
	assert_env(&p.env[3], "NCCL_IB_GID_INDEX", "3", 44, "worker");
	assert_env(&p.env[4], "NCCL_IB_TIMEOUT", "20", 46, "worker");
	assert_env(&p.env[5], "NCCL_IB_HCA", "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 48, "worker");
	cr_assert_eq(p.n_notes, 0);
	pod_free(&p);
}

Test(pod, mpijob_v1_worker_before_launcher)
{
	struct pod_cfg p;

	read_ok("tests/pod/mpijob-v1.yaml", &p);
	cr_assert_str_eq(p.kind, "MPIJob");
	cr_assert_eq(p.n_ctr, 2);
	cr_assert_eq(p.n, 1);
	assert_env(&p.env[0], "NCCL_IB_TC", "104", 20, "mpi-worker");
	assert_src(&p.env[0], POD_SRC_VALUE, "", 20, "Worker");
	pod_free(&p);
}

Test(pod, jobset_replicated_jobs_and_envfrom_precedence)
{
	struct pod_cfg p;

	read_ok("tests/pod/jobset.yaml", &p);
	cr_assert_str_eq(p.kind, "JobSet");
	cr_assert_eq(p.doc, 1);
	/* trainer and its init container (workers), evaluator (eval) */
	cr_assert_eq(p.n_ctr, 3);
	cr_assert_eq(p.n, 5);
	/* nccl-base (line 39): only what neither env nor the later source sets */
	assert_env(&p.env[0], "NCCL_IB_TIMEOUT", "20", 39, "trainer");
	assert_src(&p.env[0], POD_SRC_ENV_FROM, "ConfigMap nccl-base (envFrom)", 68, "workers");
	/* nccl-site behind prefix NCCL_ (line 41) wins over nccl-base's NCCL_IB_TC 104 */
	assert_env(&p.env[1], "NCCL_IB_TC", "106", 41, "trainer");
	assert_src(&p.env[1], POD_SRC_ENV_FROM, "ConfigMap nccl-site (envFrom)", 75, "workers");
	assert_env(&p.env[2], "NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1", 41, "trainer");
	assert_src(&p.env[2], POD_SRC_ENV_FROM, "ConfigMap nccl-site (envFrom)", 76, "workers");
	/* env wins over nccl-base's NCCL_IB_GID_INDEX 0 */
	assert_env(&p.env[3], "NCCL_IB_GID_INDEX", "3", 47, "trainer");
	assert_src(&p.env[3], POD_SRC_VALUE, "", 47, "workers");
	assert_env(&p.env[4], "NCCL_IB_TC", "106", 61, "evaluator");
	assert_src(&p.env[4], POD_SRC_VALUE, "", 61, "eval");
	cr_assert_eq(p.n_notes, 0);
	pod_free(&p);
}

Test(pod, envfrom_and_value_from_not_given_are_notes)
{
	struct pod_cfg p;
	const struct pod_env *e;

	read_ok("tests/pod/envfrom-missing.yaml", &p);
	cr_assert_str_eq(p.kind, "Deployment");
	cr_assert_eq(p.doc, 3);
	cr_assert_eq(p.n, 4);
	e = pod_get(&p, "NCCL_IB_HCA");
	assert_env(e, "NCCL_IB_HCA", "", 43, "server");
	assert_src(e, POD_SRC_RUN_TIME, "ConfigMap rdma, key hca", 43, "");
	e = pod_get(&p, "NCCL_IB_TC");
	assert_env(e, "NCCL_IB_TC", "", 46, "server");
	assert_src(e, POD_SRC_RUN_TIME, "ConfigMap nccl-tc, key tc", 46, "");
	e = pod_get(&p, "NCCL_SOCKET_IFNAME");
	assert_src(e, POD_SRC_RUN_TIME, "Secret nccl-secrets, key ifname", 49, "");
	/* the ConfigMap rdma is in the workload's namespace, prod: read */
	e = pod_get(&p, "NCCL_IB_GID_INDEX");
	assert_env(e, "NCCL_IB_GID_INDEX", "3", 52, "server");
	assert_src(e, POD_SRC_CM_KEY, "ConfigMap rdma, key gid-index", 18, "");
	/* the envFrom ConfigMap (of namespace staging) and Secret are not read */
	cr_assert_eq(p.n_env_from, 2);
	cr_assert_eq(p.n_notes, 5);
	assert_note(&p, 37, POD_NOTE_NOT_GIVEN, "envFrom configMapRef nccl-env",
		    "the ConfigMap nccl-env of ");
	assert_note(&p, 37, POD_NOTE_NOT_GIVEN, "envFrom configMapRef nccl-env",
		    "(line 7) is in namespace staging, the workload in prod");
	assert_note(&p, 39, POD_NOTE_SECRET, "envFrom secretRef nccl-secrets",
		    "rocesim never reads Secrets");
	assert_note(&p, 43, POD_NOTE_NOT_GIVEN, "NCCL_IB_HCA",
		    "which has no key hca: Kubernetes "
		    "does not start the container");
	assert_note(&p, 43, POD_NOTE_NOT_GIVEN, "NCCL_IB_HCA", "envfrom-missing.yaml:15");
	assert_note(&p, 46, POD_NOTE_NOT_GIVEN, "NCCL_IB_TC", "holds no ConfigMap nccl-tc");
	assert_note(&p, 46, POD_NOTE_NOT_GIVEN, "NCCL_IB_TC", "(optional: without it, unset)");
	assert_note(&p, 49, POD_NOTE_SECRET, "NCCL_SOCKET_IFNAME",
		    "comes from Secret nccl-secrets, key ifname: rocesim never reads Secrets");
	for (size_t i = 1; i < p.n_notes; i++)
		cr_assert_leq(p.notes[i - 1].line, p.notes[i].line, "notes in file order");
	cr_assert_str_eq(p.notes[0].code, "NCCL_ENV_NOT_GIVEN");
	cr_assert_str_eq(p.notes[1].code, "NCCL_ENV_SECRET");
	pod_free(&p);
}

Test(pod, conflicting_values_across_containers_are_a_note_naming_both)
{
	struct pod_cfg p;
	const struct pod_note *n;

	read_ok("tests/pod/conflict-tc.yaml", &p);
	cr_assert_eq(p.n, 6);
	/* the model still takes the last in the file */
	assert_env(pod_get(&p, "NCCL_IB_TC"), "NCCL_IB_TC", "104", 41, "pytorch");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->replica, "Worker");
	cr_assert_eq(p.n_notes, 2);
	n = assert_note(&p, 41, POD_NOTE_CONFLICT, "NCCL_IB_TC=104",
			"containers disagree: Worker/pytorch gives 104 (");
	assert_note(&p, 41, POD_NOTE_CONFLICT, "NCCL_IB_TC=104",
		    "tests/pod/conflict-tc.yaml:41), Master/pytorch gives 106 (");
	assert_note(&p, 41, POD_NOTE_CONFLICT, "NCCL_IB_TC=104",
		    "tests/pod/conflict-tc.yaml:28); rocesim takes 104, the last in the file");
	cr_assert_str_eq(n->code, "NCCL_ENV_CONFLICT");
	/* a value from a ConfigMap is named at the ConfigMap's line */
	assert_note(&p, 45, POD_NOTE_CONFLICT, "NCCL_IB_HCA=mlx5_2,mlx5_3",
		    "tests/pod/conflict-tc.yaml:8); rocesim takes mlx5_2,mlx5_3");
	/* NCCL_IB_GID_INDEX: both 3, no note */
	pod_free(&p);
}

Test(pod, a_thousand_containers_one_of_which_disagrees)
{
	size_t cap = 1000 * 80 + 100, len;
	char *text = malloc(cap);
	struct diag d = {0};
	struct pod_cfg p;

	cr_assert(text);
	len = (size_t)snprintf(text, cap, "kind: Pod\nspec:\n  containers:\n");
	for (int i = 0; i < 1000; i++)
		len +=
		    (size_t)snprintf(text + len, cap - len,
				     "  - {name: c%d, env: [{name: NCCL_IB_TC, value: \"%s\"}]}\n",
				     i, i == 500 ? "104" : "106");
	cr_assert_eq(pod_read_text("inline.yaml", text, len, &p, &d), 0, "%s", d.msg);
	cr_assert_eq(p.n, 1000);
	cr_assert_eq(p.n_ctr, 1000);
	cr_assert_eq(p.n_notes, 1);
	/* c999 (line 1003) is taken; c500 (line 504) differs */
	assert_note(&p, 1003, POD_NOTE_CONFLICT, "NCCL_IB_TC=106",
		    "c999 gives 106 (inline.yaml:1003), c500 gives 104 (inline.yaml:504); rocesim "
		    "takes 106");
	pod_free(&p);
	/* and when half disagree, one note says how many */
	len = (size_t)snprintf(text, cap, "kind: Pod\nspec:\n  containers:\n");
	for (int i = 0; i < 1000; i++)
		len +=
		    (size_t)snprintf(text + len, cap - len,
				     "  - {name: c%d, env: [{name: NCCL_IB_TC, value: \"%s\"}]}\n",
				     i, i % 2 ? "106" : "104");
	cr_assert_eq(pod_read_text("inline.yaml", text, len, &p, &d), 0, "%s", d.msg);
	cr_assert_eq(p.n_notes, 1);
	assert_note(&p, 1003, POD_NOTE_CONFLICT, "NCCL_IB_TC=106",
		    "c0 gives 104 (inline.yaml:4), and 499 more containers give other values");
	pod_free(&p);
	free(text);
}

/* @text refused at @line with @path and @words */
static void inline_bad(const char *text, int line, const char *path, const char *words)
{
	struct diag d = {0};

	cr_assert_eq(text_bad(text, &d), -EINVAL, "accepted: %s", text);
	cr_assert_eq(d.line, line, "line %d, expected %d: %s", d.line, line, d.msg);
	cr_assert_str_eq(d.path, path, "path %s, expected %s: %s", d.path, path, d.msg);
	cr_assert(strstr(d.msg, words), "\"%s\" lacks \"%s\"", d.msg, words);
	cr_assert_str_eq(d.file, "inline.yaml");
}

Test(pod, training_jobs_refused_at_their_line_and_key)
{
	read_bad("tests/bad/pod/pytorch-replica-type.yaml", 6,
		 "\"master\" is not a PyTorchJob replica type: expected Master or Worker");
	read_bad("tests/bad/pod/pytorch-replica-list.yaml", 11, "expected a mapping, not a list");
	read_bad("tests/bad/pod/mpijob-no-launcher.yaml", 6, "MPIJob has no Launcher replica");
	read_bad("tests/bad/pod/jobset-no-containers.yaml", 12,
		 "JobSet replicatedJob workers has no containers");
	inline_bad("kind: PyTorchJob\nspec:\n  runPolicy: {}\n", 2, "spec.pytorchReplicaSpecs",
		   "PyTorchJob has no replica specs: expected spec.pytorchReplicaSpecs.Master or");
	inline_bad("kind: PyTorchJob\n", 1, "spec.pytorchReplicaSpecs", "has no replica specs");
	inline_bad("kind: PyTorchJob\nspec:\n  pytorchReplicaSpecs: {}\n", 3,
		   "spec.pytorchReplicaSpecs", "has no replica specs");
	inline_bad("kind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n    Master:\n      template:\n"
		   "        spec: {containers: [{name: pytorch}]}\n    Worker:\n",
		   7, "spec.pytorchReplicaSpecs.Worker.template.spec.containers",
		   "PyTorchJob replica Worker has no containers");
	inline_bad("kind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n    Worker:\n      template:\n"
		   "        spec: {containers: [{name: pytorch}]}\n    Work.er: {}\n",
		   7, "spec.pytorchReplicaSpecs.Work.er",
		   "\"Work\" is not a PyTorchJob replica type");
	inline_bad("kind: MPIJob\nspec:\n  mpiReplicaSpecs:\n    Launcher:\n      template:\n"
		   "        spec: {containers: []}\n",
		   6, "spec.mpiReplicaSpecs.Launcher.template.spec.containers",
		   "MPIJob replica Launcher has no containers");
	inline_bad("kind: MPIJob\nspec:\n  mpiReplicaSpecs:\n    Master: {}\n", 4,
		   "spec.mpiReplicaSpecs.Master", "expected Launcher or Worker");
	inline_bad("kind: JobSet\nspec: {replicatedJobs: []}\n", 2, "spec.replicatedJobs",
		   "JobSet has no replicatedJobs");
	inline_bad("kind: JobSet\nspec:\n  replicatedJobs:\n  - replicas: 2\n", 4,
		   "spec.replicatedJobs[0]", "missing key \"name\"");
	inline_bad(
	    "kind: JobSet\nspec:\n  replicatedJobs:\n"
	    "  - name: w\n    template: {spec: {template: {spec: {containers: [{name: a}]}}}}\n"
	    "  - name: w\n    template: {spec: {template: {spec: {containers: [{name: b}]}}}}\n",
	    6, "spec.replicatedJobs[1].name",
	    "a second replicatedJob named \"w\" (the first is at line 4)");
	inline_bad("kind: JobSet\nspec:\n  replicatedJobs:\n  - name: "
		   "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww\n",
		   4, "spec.replicatedJobs[0].name", "replicatedJob name longer than 63");
	inline_bad("kind: Pod\nspec:\n  containers:\n  - name: a\n    envFrom:\n"
		   "    - configMapRef: nccl\n",
		   6, "spec.containers[0].envFrom[0].configMapRef", "expected a mapping");
	inline_bad(
	    "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: NCCL_IB_TC\n"
	    "      valueFrom: {configMapKeyRef: [n, k]}\n",
	    7, "spec.containers[0].env[0].valueFrom.configMapKeyRef", "expected a mapping");
}

Test(pod, training_kinds_ignore_keys_of_other_kinds)
{
	struct pod_cfg p;
	struct diag d = {0};
	/* a Pod's spec is read as a Pod's: a stray mpiReplicaSpecs is no concern */
	const char *text = "kind: Pod\nspec:\n  mpiReplicaSpecs: 3\n"
			   "  containers: [{name: a, env: [{name: NCCL_IB_TC, value: \"104\"}]}]\n";

	cr_assert_eq(pod_read_text("inline.yaml", text, strlen(text), &p, &d), 0, "%s", d.msg);
	cr_assert_eq(p.n, 1);
	assert_src(&p.env[0], POD_SRC_VALUE, "", 4, "");
	pod_free(&p);
}

/* Read @text, asserting success */
static void inline_ok(const char *text, struct pod_cfg *p)
{
	struct diag d = {0};
	char msg[1024];

	cr_assert_eq(pod_read_text("inline.yaml", text, strlen(text), p, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
}

#define POD_ENV_FROM(refs)                                                                         \
	"kind: Pod\n"                                                                              \
	"metadata: {name: p}\n"                                                                    \
	"spec:\n"                                                                                  \
	"  containers:\n"                                                                          \
	"  - name: a\n"                                                                            \
	"    envFrom: " refs "\n"

Test(pod, configmaps_as_kubernetes_reads_them)
{
	struct pod_cfg p;

	/* an alias of a scalar stands for its value; the later of two same-named wins */
	inline_ok(POD_ENV_FROM(
		      "[{configMapRef: {name: n}}]") "---\n"
						     "kind: ConfigMap\nmetadata: {name: n}\ndata: "
						     "{NCCL_IB_TC: \"96\"}\n"
						     "---\n"
						     "kind: ConfigMap\nmetadata: {name: n}\n"
						     "data:\n  x: &tc \"106\"\n  NCCL_IB_TC: *tc\n",
		  &p);
	cr_assert_eq(p.n, 1);
	assert_env(&p.env[0], "NCCL_IB_TC", "106", 6, "a");
	assert_src(&p.env[0], POD_SRC_ENV_FROM, "ConfigMap n (envFrom)", 16, "");
	pod_free(&p);
	/* data: null holds nothing; a ConfigMap without a name is none to refer to */
	inline_ok(
	    POD_ENV_FROM(
		"[{configMapRef: {name: n}}, {configMapRef: {name: m}}]") "---\n"
									  "kind: "
									  "ConfigMap\nmetadata: "
									  "{name: n}\ndata:\n---\n"
									  "kind: ConfigMap\ndata: "
									  "{NCCL_IB_TC: \"1\"}\n",
	    &p);
	cr_assert_eq(p.n, 0);
	cr_assert_eq(p.n_notes, 1);
	assert_note(&p, 6, POD_NOTE_NOT_GIVEN, "envFrom configMapRef m", "holds no ConfigMap m");
	pod_free(&p);
	/* env wins even when written before envFrom; a later source wins over an earlier */
	inline_ok("kind: Pod\nspec:\n  containers:\n  - name: a\n"
		  "    env: [{name: NCCL_IB_TC, value: \"104\"}]\n"
		  "    envFrom:\n"
		  "    - configMapRef: {name: a}\n"
		  "    - {prefix: NCCL_IB_, configMapRef: {name: b}}\n"
		  "---\nkind: ConfigMap\nmetadata: {name: a}\n"
		  "data: {NCCL_IB_TC: \"1\", NCCL_IB_HCA: mlx5_0, NCCL_IB_SL: \"3\"}\n"
		  "---\nkind: ConfigMap\nmetadata: {name: b}\n"
		  "data: {HCA: mlx5_1, TC: \"2\"}\n",
		  &p);
	cr_assert_eq(p.n, 3);
	assert_env(&p.env[0], "NCCL_IB_TC", "104", 5, "a");
	assert_env(&p.env[1], "NCCL_IB_SL", "3", 7, "a");
	assert_src(&p.env[1], POD_SRC_ENV_FROM, "ConfigMap a (envFrom)", 12, "");
	assert_env(&p.env[2], "NCCL_IB_HCA", "mlx5_1", 8, "a");
	assert_src(&p.env[2], POD_SRC_ENV_FROM, "ConfigMap b (envFrom)", 16, "");
	pod_free(&p);
	/* a ConfigMap past text that is not YAML is not read, and the note says why */
	inline_ok(
	    POD_ENV_FROM(
		"[{configMapRef: {name: n, optional: true}}]") "---\n"
							       "this: [is not\n"
							       "---\nkind: ConfigMap\nmetadata: "
							       "{name: n}\ndata: {NCCL_IB_TC: "
							       "\"1\"}\n",
	    &p);
	cr_assert_eq(p.n, 0);
	assert_note(&p, 6, POD_NOTE_NOT_GIVEN, "envFrom configMapRef n",
		    "holds no ConfigMap n before line 9, where it stops being YAML");
	assert_note(&p, 6, POD_NOTE_NOT_GIVEN, "envFrom configMapRef n",
		    "(optional: without it, none)");
	cr_assert_eq(p.n_env_from, 1);
	pod_free(&p);
	/* a namespace not given matches any; two given must agree */
	inline_ok("kind: Pod\nmetadata: {name: p, namespace: prod}\nspec:\n  containers:\n"
		  "  - {name: a, envFrom: [{configMapRef: {name: n}}, {configMapRef: {name: m}}]}\n"
		  "---\nkind: ConfigMap\nmetadata: {name: n}\ndata: {NCCL_IB_TC: \"106\"}\n"
		  "---\nkind: ConfigMap\nmetadata: {name: m, namespace: staging}\n"
		  "data: {NCCL_IB_HCA: mlx5_0}\n",
		  &p);
	cr_assert_eq(p.n, 1);
	assert_env(&p.env[0], "NCCL_IB_TC", "106", 5, "a");
	assert_note(&p, 5, POD_NOTE_NOT_GIVEN, "envFrom configMapRef m",
		    "(line 12) is in namespace staging, the workload in prod");
	pod_free(&p);
	/* the same missing ConfigMap in two containers: one note */
	inline_ok("kind: Pod\nspec:\n  containers:\n"
		  "  - {name: a, envFrom: [{configMapRef: {name: x}}]}\n"
		  "  - {name: b, envFrom: [{configMapRef: {name: x}}]}\n"
		  "  - {name: c, envFrom: [{configMapRef: {name: x}}]}\n",
		  &p);
	cr_assert_eq(p.n_notes, 1);
	cr_assert_eq(p.notes[0].more, 2);
	assert_note(&p, 4, POD_NOTE_NOT_GIVEN, "envFrom configMapRef x", "(and 2 more times)");
	pod_free(&p);
}

Test(pod, configmaps_refused_at_their_line)
{
	inline_bad(
	    POD_ENV_FROM(
		"[{configMapRef: {name: n}}]") "---\n"
					       "kind: ConfigMap\nmetadata: {name: n}\ndata: 3\n",
	    10, "data", "expected a mapping of keys, not a single value");
	inline_bad(POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							       "kind: ConfigMap\nmetadata: {name: "
							       "n}\ndata:\n  NCCL_IB_TC: {a: b}\n",
		   11, "data.NCCL_IB_TC", "expected a string, not a mapping");
	inline_bad(POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							       "kind: ConfigMap\nx: &m {a: "
							       "b}\nmetadata: {name: n}\n"
							       "data:\n  NCCL_IB_TC: *m\n",
		   12, "data.NCCL_IB_TC", "expected a string, not an alias of a list or mapping");
	inline_bad(
	    POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							"kind: ConfigMap\nx: &m {a: b}\nmetadata: "
							"{name: n}\ndata: *m\n",
	    11, "data", "an alias (write the keys out)");
	inline_bad(
	    POD_ENV_FROM(
		"[{configMapRef: {name: n}}]") "---\n"
					       "kind: ConfigMap\nmetadata: {name: n}\n"
					       "data:\n  NCCL_IB_TC: \"1\"\n  NCCL_IB_TC: \"2\"\n",
	    12, "data.NCCL_IB_TC", "duplicate key");
	inline_bad(
	    POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							"kind: ConfigMap\ndata: {}\nmetadata: "
							"{name: n}\ndata: {}\n",
	    11, "data", "duplicate key");
	inline_bad(POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							       "kind: ConfigMap\nmetadata: {name: "
							       "n}\ndata:\n  [a]: b\n",
		   11, "data", "a key must be a plain word, not a list");
	inline_bad(
	    POD_ENV_FROM(
		"[{configMapRef: {name: n}}]") "---\n"
					       "kind: ConfigMap\nmetadata: {name: n}\ndata: [a]\n",
	    10, "data", "expected a mapping of keys, not a list");
}

Test(pod, configmap_values_too_long_are_refused_at_the_configmap)
{
	char text[2048], big[300], path[100];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "kind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n    - name: NCCL_IB_HCA\n"
		 "      valueFrom: {configMapKeyRef: {name: n, key: hca}}\n"
		 "---\nkind: ConfigMap\nmetadata: {name: n}\ndata:\n  hca: %s\n",
		 big);
	inline_bad(text, 12, "data.hca", "NCCL_IB_HCA: value longer than 255");
	snprintf(text, sizeof(text),
		 POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							     "kind: ConfigMap\nmetadata: {name: "
							     "n}\ndata:\n  NCCL_IB_HCA: %s\n",
		 big);
	inline_bad(text, 11, "data.NCCL_IB_HCA", "NCCL_IB_HCA: value longer than 255");
	snprintf(text, sizeof(text),
		 POD_ENV_FROM("[{configMapRef: {name: n}}]") "---\n"
							     "kind: ConfigMap\nmetadata: {name: "
							     "n}\ndata:\n  NCCL_%.70s: x\n",
		 big);
	snprintf(path, sizeof(path), "data.NCCL_%.70s", big);
	inline_bad(text, 11, path, "variable name longer than 63");
	/* a ConfigMap refused by the scan (an unknown alias) is refused when read */
	inline_bad(POD_ENV_FROM(
		       "[{configMapRef: {name: n}}]") "---\n"
						      "kind: ConfigMap\nmetadata: {name: *nope}\n",
		   9, "", "alias *nope names no anchor");
}

/* ---- NCCL_IB_HCA: which of a server's NICs NCCL uses -------------------------------- */

Test(pod, nccl_ib_hca_picks_nics_as_nccl_matches_hca_names)
{
	char why[160];
	uint64_t m = 0;

	/* exact names with their port: the seed's two HCAs of eight */
	cr_assert_eq(nccl_hca_mask("=mlx5_0:1,mlx5_1:1", 8, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0x3);
	/* a prefix: mlx5_1 is mlx5_1 and mlx5_10..mlx5_15 of sixteen */
	cr_assert_eq(nccl_hca_mask("mlx5_1", 16, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0xfc02);
	cr_assert_eq(nccl_hca_mask("=mlx5_1", 16, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0x2);
	/* all but two; every HCA by its common prefix */
	cr_assert_eq(nccl_hca_mask("^mlx5_2,mlx5_3", 4, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0x3);
	cr_assert_eq(nccl_hca_mask("mlx5", 4, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0xf);
	/* a NIC's only port is 1 */
	cr_assert_eq(nccl_hca_mask("mlx5_0:2,mlx5_1", 2, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0x2);
	cr_assert_eq(nccl_hca_mask("=mlx5_4", 2, &m, why, sizeof(why)), -EINVAL);
	cr_assert_str_eq(why, "NCCL_IB_HCA \"=mlx5_4\" leaves none of a server's 2 NICs "
			      "(mlx5_0..mlx5_1, port 1)");
	/* empty entries are skipped, as NCCL's parser does */
	cr_assert_eq(nccl_hca_mask("mlx5_0:1,,mlx5_1,", 2, &m, why, sizeof(why)), 0);
	cr_assert_eq(m, 0x3);
}
