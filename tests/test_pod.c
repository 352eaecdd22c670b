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

#include "sim/config/pod.h"
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
	cr_assert(!strncmp(msg, "inline.yaml:2: kind: ConfigMap is not a workload: expected a Pod",
			   57),
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
	cr_assert_eq(text_bad("kind: CronJob\nspec:\n  jobTemplate:\n    spec: {template: {}}\n",
			      &d),
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
	snprintf(text, sizeof(text),
		 "kind: Pod\nspec: {containers: [{name: a, env: [{name: NCCL_IB_HCA, value: %s}]}]}\n",
		 big);
	cr_assert_eq(text_bad(text, &d), -EINVAL);
	cr_assert(strstr(d.msg, "value longer than 255"), "%s", d.msg);
	snprintf(text, sizeof(text),
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
