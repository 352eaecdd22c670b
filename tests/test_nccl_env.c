/*
 * Tests of NCCL's environment as jobs pass it and as the fabric feels it:
 * mpirun -x in a Launcher's command (sim/config/pod_mpirun.c), what
 * `kubectl get pods -o yaml` prints (a List), NCCL_* names NCCL does not
 * read (nccl_env.c), NCCL_IB_HCA entries that match no NIC (nccl_hca.c,
 * check), and several QPs per connection (NCCL_IB_QPS_PER_CONNECTION,
 * models/coll_qps.c): read, used, reported and said.
 *
 * The manifests of tests/pod/ follow the real layouts: the MPI operator's
 * examples/v2beta1/nccl-tests/nccl-tests.yaml and examples/v2beta1/pi/
 * pi.yaml (github.com/kubeflow/mpi-operator) for the MPIJobs, and
 * kubectl's own output for kubectl-pods.yaml (apiVersion, items of whole
 * Pods with metadata, spec and status, their keys sorted, then kind: List
 * and metadata.resourceVersion "", as `kubectl get pods -o yaml` prints).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_layout.h"
#include "models/collective.h"
#include "models/net.h"
#include "sim/config/nccl_env.h"
#include "sim/config/nccl_hca.h"
#include "sim/config/pod.h"
#include "proc.h"
#include "support.h"

static void read_ok(const char *rel, struct pod_cfg *p)
{
	struct diag d = {0};
	char msg[1024];
	int err = pod_read(ts_src(rel), p, &d);

	cr_assert_eq(err, 0, "%s: %d: %s", rel, err, diag_str(&d, msg, sizeof(msg)));
}

/* The entry of @p for @name at @line, asserted present with @value and @src. */
static const struct pod_env *entry(const struct pod_cfg *p, const char *name, int line,
				   const char *value, enum pod_src src)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct pod_env *e = &p->env[i];

		if (strcmp(e->name, name) || e->line != line)
			continue;
		cr_assert_str_eq(e->value, value, "%s at %d: %s, expected %s", name, line, e->value,
				 value);
		cr_assert_eq(e->src, src, "%s at %d: src %d, expected %d", name, line, e->src, src);
		return e;
	}
	cr_assert_fail("no %s at line %d", name, line);
	return NULL;
}

static const struct pod_note *note(const struct pod_cfg *p, int line, enum pod_note_kind kind,
				   const char *what, const char *words)
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

/* ---- read: mpirun -x, kubectl's List, names NCCL does not read ----------------------- */

Test(nccl_env, mpirun_x_of_a_bash_script_wins_over_the_workers_env)
{
	struct pod_cfg p;
	const struct pod_env *e;

	read_ok("tests/pod/mpijob-mpirun.yaml", &p);
	cr_assert_str_eq(p.kind, "MPIJob");
	/* the Launcher's env, 8 exported by mpirun, the Worker's env */
	cr_assert_eq(p.n, 10);
	entry(&p, "NCCL_IB_GID_INDEX", 32, "3", POD_SRC_VALUE);
	/* -x NAME: what the script exported (line 37), else the container's env */
	e = entry(&p, "NCCL_DEBUG", 40, "INFO", POD_SRC_MPIRUN);
	cr_assert_eq(e->src_line, 37);
	cr_assert_str_eq(e->from, "mpirun -x, set by the script");
	cr_assert_str_eq(e->replica, "Launcher");
	e = entry(&p, "NCCL_IB_GID_INDEX", 40, "3", POD_SRC_MPIRUN);
	cr_assert_eq(e->src_line, 32);
	cr_assert_str_eq(e->from, "mpirun -x, the container's env");
	/* -x NAME=VALUE, quotes removed as the shell removes them */
	entry(&p, "NCCL_IB_TC", 41, "104", POD_SRC_MPIRUN);
	entry(&p, "NCCL_IB_QPS_PER_CONNECTION", 41, "4", POD_SRC_MPIRUN);
	entry(&p, "NCCL_IB_HCA", 42, "=mlx5_0,mlx5_1", POD_SRC_MPIRUN);
	entry(&p, "NCCL_SOCKET_IFNAME", 43, "eth0", POD_SRC_MPIRUN);
	/* a shell expansion is known only at run time */
	e = entry(&p, "NCCL_IB_TIMEOUT", 43, "$TIMEOUT", POD_SRC_MPIRUN);
	cr_assert_eq(e->value_from, 1);
	/* the Worker's own NCCL_IB_TC is read, but mpirun's reaches the ranks */
	entry(&p, "NCCL_IB_TC", 68, "106", POD_SRC_VALUE);
	e = pod_get(&p, "NCCL_IB_TC");
	cr_assert_str_eq(e->value, "104");
	cr_assert_eq(e->line, 41);
	cr_assert_eq(p.n_notes, 2);
	note(&p, 42, POD_NOTE_UNKNOWN, "NCCL_GID_INDEX", "did you mean NCCL_IB_GID_INDEX?");
	cr_assert_str_eq(p.notes[0].code, "NCCL_ENV_UNKNOWN");
	note(&p, 68, POD_NOTE_OVERRIDDEN, "NCCL_IB_TC=106",
	     "Worker/nccl gives 106, but mpirun -x (Launcher/nccl, ");
	cr_assert_str_eq(p.notes[1].code, "NCCL_ENV_OVERRIDDEN");
	pod_free(&p);
}

Test(nccl_env, mpirun_x_as_an_argv_list_and_under_sh_c)
{
	struct pod_cfg p;

	read_ok("tests/pod/mpijob-argv.yaml", &p);
	/* 3 of the argv list, 2 of the sh -c string; not the echo after ';' */
	cr_assert_eq(p.n, 5);
	entry(&p, "NCCL_IB_TC", 30, "106", POD_SRC_MPIRUN);
	entry(&p, "NCCL_IB_SPLIT_DATA_ON_QPS", 32, "1", POD_SRC_MPIRUN);
	entry(&p, "NCCL_IB_QPS", 34, "2", POD_SRC_MPIRUN);
	entry(&p, "NCCL_IB_TC", 40, "106", POD_SRC_MPIRUN);
	entry(&p, "NCCL_DEBUG", 40, "WARN", POD_SRC_MPIRUN);
	/* two mpiruns that agree are no conflict */
	cr_assert_eq(p.n_notes, 1);
	note(&p, 34, POD_NOTE_UNKNOWN, "NCCL_IB_QPS", "did you mean NCCL_IB_QPS_PER_CONNECTION?");
	pod_free(&p);
}

Test(nccl_env, two_mpiruns_that_disagree_are_a_conflict)
{
	static const char text[] =
	    "apiVersion: v1\n"
	    "kind: Pod\n"
	    "metadata: {name: two}\n"
	    "spec:\n"
	    "  containers:\n"
	    "  - name: a\n"
	    "    command: [mpirun, -x, NCCL_IB_TC=104, ./all_reduce_perf]\n"
	    "  - name: b\n"
	    "    command: [/bin/sh, -ec, 'NCCL_IB_TC=96 mpirun -x NCCL_IB_TC ./a.out']\n";
	struct pod_cfg p;
	struct diag d = {0};

	cr_assert_eq(pod_read_text("two.yaml", text, strlen(text), &p, &d), 0, "%s", d.msg);
	cr_assert_eq(p.n, 2);
	entry(&p, "NCCL_IB_TC", 7, "104", POD_SRC_MPIRUN);
	entry(&p, "NCCL_IB_TC", 9, "96", POD_SRC_MPIRUN);
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->value, "96");
	cr_assert_eq(p.n_notes, 1);
	note(&p, 7, POD_NOTE_CONFLICT, "NCCL_IB_TC=104", "rocesim takes 96, the last in the file");
	pod_free(&p);
}

Test(nccl_env, kubectl_get_pods_list_reads_every_pod)
{
	struct pod_cfg p;
	const struct pod_env *e;

	read_ok("tests/pod/kubectl-pods.yaml", &p);
	cr_assert_str_eq(p.kind, "List");
	/* two Pods; the Service item has no containers and is skipped */
	cr_assert_eq(p.n_ctr, 2);
	cr_assert_eq(p.n, 4);
	e = entry(&p, "NCCL_IB_TC", 27, "104", POD_SRC_VALUE);
	cr_assert_str_eq(e->replica, "nccl-worker-0");
	cr_assert_str_eq(e->container, "trainer");
	e = entry(&p, "NCCL_IB_TC", 88, "106", POD_SRC_VALUE);
	cr_assert_str_eq(e->replica, "nccl-worker-1");
	entry(&p, "NCCL_IB_HCA", 29, "mlx5_0,mlx5_1,mlx5_2,mlx5_3", POD_SRC_VALUE);
	entry(&p, "NCCL_IB_HCA", 90, "mlx5_0,mlx5_1,mlx5_2,mlx5_3", POD_SRC_VALUE);
	/* Pods that disagree: as containers that disagree */
	cr_assert_eq(p.n_notes, 1);
	note(&p, 88, POD_NOTE_CONFLICT, "NCCL_IB_TC=106", "nccl-worker-0/trainer gives 104 (");
	cr_assert_str_eq(pod_get(&p, "NCCL_IB_TC")->value, "106");
	pod_free(&p);
}

Test(nccl_env, a_list_without_pods_is_refused_at_items)
{
	static const char text[] = "apiVersion: v1\n"
				   "items:\n"
				   "- apiVersion: v1\n"
				   "  kind: Service\n"
				   "  metadata: {name: s}\n"
				   "kind: List\n"
				   "metadata:\n"
				   "  resourceVersion: \"\"\n";
	struct pod_cfg p;
	struct diag d = {0};

	cr_assert_eq(pod_read_text("svc.yaml", text, strlen(text), &p, &d), -EINVAL);
	cr_assert_eq(d.line, 2);
	cr_assert(strstr(d.msg, "List holds no Pod"), "%s", d.msg);
}

Test(nccl_env, names_nccl_reads_and_the_nearest_to_a_typo)
{
	cr_assert(nccl_env_known("NCCL_IB_TC"));
	cr_assert(nccl_env_known("NCCL_IB_QPS_PER_CONNECTION"));
	cr_assert(nccl_env_known("NCCL_IB_SPLIT_DATA_ON_QPS"));
	cr_assert(nccl_env_known("NCCL_IB_USE_INLINE")); /* read by the source, not documented */
	cr_assert(nccl_env_known("NCCL_NET_GDR_LEVEL"));
	cr_assert(nccl_env_known("NCCL_TESTS_SPLIT_MASK"));
	cr_assert_not(nccl_env_known("NCCL_GID_INDEX"));
	cr_assert_not(nccl_env_known("NCCL_IB_QPS"));
	cr_assert_str_eq(nccl_env_nearest("NCCL_GID_INDEX"), "NCCL_IB_GID_INDEX");
	cr_assert_str_eq(nccl_env_nearest("NCCL_IB_QPS"), "NCCL_IB_QPS_PER_CONNECTION");
	cr_assert_str_eq(nccl_env_nearest("NCCL_MNNVLS_ENABLE"), "NCCL_MNNVL_ENABLE");
	cr_assert_str_eq(nccl_env_nearest("NCCL_IB_TIMOUT"), "NCCL_IB_TIMEOUT");
}

Test(nccl_env, hca_entries_that_match_no_nic)
{
	char bad[128];

	cr_assert_eq(nccl_hca_unmatched("mlx5_0,mlx5_1,mlx5_2,mlx5_3", 4, bad, sizeof(bad)), 0);
	cr_assert_str_eq(bad, "");
	cr_assert_eq(nccl_hca_unmatched("mlx5_0,mlx5_5:1,mlx5_8", 4, bad, sizeof(bad)), 2);
	cr_assert_str_eq(bad, "mlx5_5:1,mlx5_8");
	/* a prefix matches mlx5_0..: only an exact list names a missing one */
	cr_assert_eq(nccl_hca_unmatched("mlx5", 4, bad, sizeof(bad)), 0);
	cr_assert_eq(nccl_hca_unmatched("^=mlx5_4", 4, bad, sizeof(bad)), 1);
	cr_assert_str_eq(bad, "mlx5_4");
	cr_assert_eq(nccl_hca_unmatched("mlx5_0:2", 4, bad, sizeof(bad)), 1);
}

/* ---- said: check and import ------------------------------------------------------------ */

static void nccl_cli_setup(void)
{
	ts_proc_setup("nccl");
}

TestSuite(nccl_cli, .init = nccl_cli_setup, .fini = ts_proc_teardown);

/* Write @text to @name in the suite's folder; its path. */
static const char *put(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

Test(nccl_cli, check_names_hcas_the_servers_do_not_have)
{
	struct ts_proc p;
	const char *pod =
	    put("pod.yaml", "apiVersion: v1\n"
			    "kind: Pod\n"
			    "metadata: {name: w}\n"
			    "spec:\n"
			    "  containers:\n"
			    "  - name: t\n"
			    "    env:\n"
			    "    - {name: NCCL_IB_HCA, value: \"=mlx5_0,mlx5_1,mlx5_4\"}\n");
	char yaml[512];

	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2,\n"
		 "           nics_per_host: 2, gpus_per_host: 2}\n"
		 "workload: {kind: allreduce, size: 1MB, pod: %s}\n",
		 pod);
	ts_exec(&p, (const char *const[]){"check", put("hca.yaml", yaml), NULL});
	cr_assert(strstr(p.out, "warning NCCL_HCA_UNKNOWN"), "%s", p.out);
	cr_assert(strstr(p.out, "pod.yaml:8 NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_4: mlx5_4 matches "
				"none of the servers' NICs (at most 2 a server, mlx5_0..mlx5_1"),
		  "%s", p.out);
	ts_proc_free(&p);
	/* hosts of one NIC: the choice is not modelled, and said so */
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 4}\n"
		 "workload: {kind: allreduce, size: 1MB, pod: %s}\n",
		 pod);
	ts_exec(&p, (const char *const[]){"check", put("one.yaml", yaml), NULL});
	cr_assert(strstr(p.out, "info NCCL_HCA_NOT_MODELLED"), "%s", p.out);
	ts_proc_free(&p);
}

Test(nccl_cli, import_pod_prints_mpiruns_values_as_the_workloads_keys)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"import", "pod", "tests/pod/mpijob-mpirun.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(strstr(p.out, "# NCCL_IB_TC=104    # line 41, container Launcher/nccl, mpirun -x "
				"(every rank's)"),
		  "%s", p.out);
	cr_assert(strstr(p.out, "# warning NCCL_ENV_UNKNOWN"), "%s", p.out);
	cr_assert(strstr(p.out, "workload:\n  dscp: 26    # NCCL_IB_TC 104"), "%s", p.out);
	cr_assert(strstr(p.out, "  qps_per_connection: 4    # NCCL_IB_QPS_PER_CONNECTION\n"), "%s",
		  p.out);
	ts_proc_free(&p);
}

