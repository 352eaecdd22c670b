/*
 * Tests of NCCL's environment as jobs pass it and as the fabric feels it:
 * mpirun -x in a Launcher's command (sim/readers/pod_mpirun.c), what
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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_layout.h"
#include "models/collective.h"
#include "models/net.h"
#include "sim/readers/nccl_env.h"
#include "sim/readers/nccl_hca.h"
#include "sim/readers/pod.h"
#include "sim/run/par_mpi.h"
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

/* Odd commands: read as far as a shell would, or refused with a line; never a crash. */
Test(nccl_env, odd_commands_fail_cleanly)
{
	static const char *const cmds[] = {
	    "[sh, -c, 'mpirun -x \"NCCL_IB_TC=1']",	     /* unterminated quote */
	    "[sh, -c, 'mpirun -x NCCL_IB_TC=1 \\']",	     /* a trailing backslash */
	    "[mpirun, -x]",				     /* -x with nothing after */
	    "[sh, -c]",					     /* -c without a script */
	    "[bash, --login, -c, 'mpirun -x NCCL_IB_TC=8']", /* a long option first */
	    "[sh, -c, '# mpirun -x NCCL_IB_TC=8']",	     /* a comment */
	    "[sh, -c, 'mpirun -x NCCL_A=1;;;|| -x NCCL_B=2']",
	    "[sh, -c, 'export; export NCCL_IB_TC; mpirun -x NCCL_IB_TC']",
	    "[mpirun, -x, '=104', -x, NCCL_=1]",
	    "[\"\"]",
	};
	char text[1024];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct pod_cfg p;
		struct diag d = {0};
		int err;

		snprintf(text, sizeof(text),
			 "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n"
			 "  containers:\n  - name: c\n    command: %s\n",
			 cmds[i]);
		err = pod_read_text("odd.yaml", text, strlen(text), &p, &d);
		cr_assert(err == 0 || (err == -EINVAL && d.line > 0), "%s: %d %s", cmds[i], err,
			  d.msg);
		for (size_t k = 0; !err && k < p.n; k++)
			cr_assert_eq(strncmp(p.env[k].name, "NCCL_", 5), 0);
		if (!err)
			pod_free(&p);
	}
	{
		/* a value longer than a variable holds is refused at its line */
		struct pod_cfg p;
		struct diag d = {0};
		char big[400];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		snprintf(text, sizeof(text),
			 "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n"
			 "  containers:\n  - name: c\n    command: [mpirun, -x, NCCL_IB_HCA=%s]\n",
			 big);
		cr_assert_eq(pod_read_text("big.yaml", text, strlen(text), &p, &d), -EINVAL);
		cr_assert_eq(d.line, 7);
		cr_assert(strstr(d.msg, "value longer than"), "%s", d.msg);
	}
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

/*
 * The JobSet of kubernetes-sigs/jobset's examples/pytorch/resnet.yaml
 * (jobset.x-k8s.io/v1alpha2) as it is, with two NCCL variables in its
 * env: its bash -xc script runs torchrun, not mpirun, so the script's
 * NCCL_DEBUG=INFO prefix is no variable of the ranks read here.
 */
Test(nccl_env, a_real_jobset_and_its_bash_script)
{
	struct pod_cfg p;
	const struct pod_env *e;

	read_ok("tests/pod/jobset-resnet.yaml", &p);
	cr_assert_str_eq(p.kind, "JobSet");
	cr_assert_eq(p.n_ctr, 1);
	cr_assert_eq(p.n, 2);
	e = entry(&p, "NCCL_IB_TC", 29, "106", POD_SRC_VALUE);
	cr_assert_str_eq(e->replica, "workers");
	cr_assert_str_eq(e->container, "pytorch");
	entry(&p, "NCCL_IB_QPS_PER_CONNECTION", 31, "2", POD_SRC_VALUE);
	cr_assert_eq(p.n_notes, 0);
	pod_free(&p);
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

/* ---- used: QPs per connection in the collectives -------------------------------------- */

Test(nccl_env, a_connection_of_four_qps_in_the_layout)
{
	uint32_t ranks[4] = {0, 1, 2, 3};
	struct coll_spec spec = {
	    .op = COLL_ALLREDUCE, .ranks = ranks, .n_ranks = 4, .channels = 2, .qps = 4};
	const struct coll_place pl = coll_place_of(&spec);
	struct coll_layout lay;

	cr_assert_eq(coll_layout_build(&pl, &lay), 0);
	cr_assert_eq(lay.n_edges, 8);
	cr_assert_eq(lay.n_qps, 32);
	cr_assert_eq(coll_qp_count(&spec), 32);
	for (uint32_t e = 0; e < lay.n_edges; e++)
		for (uint32_t q = 0; q < 4; q++)
			cr_assert_eq(lay.qp_edge[lay.edge_qp[e] + q], e);
	coll_layout_free(&lay);
	spec.qps = 0;
	cr_assert_eq(coll_qp_count(&spec), 8);
}

/* 2 leaves of 2 hosts and 4 spines: a ring's hops between the leaves can take 8 uplinks */
#define QPS_FABRIC                                                                                 \
	"seed: 3\n"                                                                                \
	"topology: {kind: leaf_spine, leaves: 2, spines: 4, hosts_per_leaf: 2,\n"                  \
	"           link: {rate: 100Gbps}, uplink: {rate: 100Gbps}}\n"                             \
	"nic: {cc: none}\n"

static json_t *run_qps(const char *workload_keys, struct sim *sim)
{
	char yaml[1024];

	snprintf(yaml, sizeof(yaml),
		 QPS_FABRIC "workload: {kind: allreduce, size: 8MiB, channels: 1%s}\n",
		 workload_keys);
	return ts_run(yaml, sim);
}

/* Leaf-to-spine ports that carried more than 1% of the collective's bytes. */
static unsigned busy_uplinks(const json_t *j)
{
	const json_t *sw, *port;
	double total = ts_metric(j, "collective.network_bytes");
	size_t i, k;
	unsigned busy = 0;

	json_array_foreach(json_object_get(j, "switches"), i, sw) {
		if (strncmp(json_string_value(json_object_get(sw, "name")), "leaf", 4))
			continue;
		json_array_foreach(json_object_get(sw, "ports"), k, port) {
			const char *peer = json_string_value(json_object_get(port, "peer"));

			busy += peer && !strncmp(peer, "spine", 5) &&
				(double)json_integer_value(json_object_get(port, "tx_bytes")) >
				    0.01 * total;
		}
	}
	return busy;
}

/* The collective's QPs and what each received. */
static void qp_bytes(const struct sim *sim, uint32_t *n, uint64_t *bytes)
{
	struct coll_stats st;

	coll_stats(sim->net->colls[0], &st);
	*n = st.n_qps;
	for (uint32_t i = 0; i < st.n_qps; i++)
		bytes[i] = st.qps[i].received;
}

Test(nccl_env, four_qps_per_connection_four_times_the_flows_same_bytes_more_uplinks)
{
	struct sim one, four;
	json_t *j1 = run_qps("", &one), *j4 = run_qps(", qps_per_connection: 4", &four);
	uint64_t b1[64], b4[64];
	uint32_t n1, n4;

	qp_bytes(&one, &n1, b1);
	qp_bytes(&four, &n4, b4);
	/* 4 ranks, each a host of its own: the ring's 4 hops are all between servers */
	cr_assert_eq(n1, 4);
	cr_assert_eq(n4, 16);
	cr_assert_eq(ts_metric(j4, "collective.network_bytes"),
		     ts_metric(j1, "collective.network_bytes"));
	cr_assert_eq(ts_metric(j4, "collective.iterations_done"), 1);
	/* round robin: a ring step of 8 MB / 4 is 4 pieces of 512 KiB, one a QP */
	for (uint32_t q = 0; q < n4; q++)
		cr_assert_eq(b4[q] * 4, b1[q / 4], "QP %u: %llu B of %llu", q,
			     (unsigned long long)b4[q], (unsigned long long)b1[q / 4]);
	/* reported: one QP per connection leaves results.json as it was */
	cr_assert_null(json_object_get(
	    json_object_get(json_object_get(j1, "summary"), "collective"), "qps_per_connection"));
	cr_assert_eq(ts_metric(j4, "collective.qps_per_connection"), 4);
	cr_assert_eq(ts_metric(j4, "collective.network_qps"), 16);
	cr_assert(json_is_false(json_object_get(
	    json_object_get(json_object_get(j4, "summary"), "collective"), "split_data_on_qps")));
	/* the hops between the leaves: 1 uplink each with one QP, more with four */
	cr_assert_eq(busy_uplinks(j1), 2, "%u", busy_uplinks(j1));
	cr_assert_gt(busy_uplinks(j4), 2, "%u", busy_uplinks(j4));
	json_decref(j1);
	json_decref(j4);
	sim_fini(&one);
	sim_fini(&four);
}

Test(nccl_env, split_data_on_qps_cuts_each_message_over_the_qps)
{
	struct sim one, split;
	json_t *j1 = run_qps("", &one),
	       *js = run_qps(", qps_per_connection: 3, split_data_on_qps: true", &split);
	uint64_t b1[64], bs[64];
	uint32_t n1, ns;

	qp_bytes(&one, &n1, b1);
	qp_bytes(&split, &ns, bs);
	cr_assert_eq(ns, 3 * n1);
	cr_assert_eq(ts_metric(js, "collective.network_bytes"),
		     ts_metric(j1, "collective.network_bytes"));
	/* 512 KiB pieces over 3 QPs: 174848 B (ceil(524288 / 3) up to 128 B),
	 * 174848 B and 174592 B */
	for (uint32_t e = 0; e < n1; e++) {
		uint64_t pieces = b1[e] / 524288;

		cr_assert_eq(b1[e] % 524288, 0);
		cr_assert_eq(bs[3 * e], pieces * 174848);
		cr_assert_eq(bs[3 * e + 1], pieces * 174848);
		cr_assert_eq(bs[3 * e + 2], pieces * 174592);
	}
	cr_assert(json_is_true(json_object_get(
	    json_object_get(json_object_get(js, "summary"), "collective"), "split_data_on_qps")));
	json_decref(j1);
	json_decref(js);
	sim_fini(&one);
	sim_fini(&split);
}

Test(nccl_env, tree_and_alltoall_run_over_several_qps)
{
	static const char *const keys[] = {
	    ", algorithm: tree, qps_per_connection: 2",
	    ", algorithm: tree, qps_per_connection: 2, split_data_on_qps: true",
	};

	for (size_t i = 0; i < 2; i++) {
		struct sim sim;
		json_t *j = run_qps(keys[i], &sim);

		cr_assert_eq(ts_metric(j, "collective.iterations_done"), 1, "%s", keys[i]);
		json_decref(j);
		sim_fini(&sim);
	}
	{
		struct sim sim;
		json_t *j = ts_run(QPS_FABRIC "workload: {kind: alltoall, size: 4MB, "
					      "qps_per_connection: 4, split_data_on_qps: true}\n",
				   &sim);

		cr_assert_eq(ts_metric(j, "collective.iterations_done"), 1);
		cr_assert_eq(ts_metric(j, "collective.network_qps"), 4 * 12);
		json_decref(j);
		sim_fini(&sim);
	}
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

Test(nccl_cli, check_says_what_a_jobs_mpirun_passes)
{
	char yaml[1024];
	struct ts_proc p;

	/* servers of 2 NICs: the manifest's =mlx5_0,mlx5_1 matches both */
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2,\n"
		 "           nics_per_host: 2, gpus_per_host: 2}\n"
		 "workload: {kind: allreduce, size: 1MB, pod: %s/tests/pod/mpijob-mpirun.yaml}\n",
		 getenv("ROCESIM_SRC"));
	ts_exec(&p, (const char *const[]){"check", put("mpirun.yaml", yaml), NULL});
	cr_assert(strstr(p.out, "warning NCCL_ENV_UNKNOWN tests/pod/mpijob-mpirun.yaml:42 "
				"NCCL_GID_INDEX") ||
		      strstr(p.out, "mpijob-mpirun.yaml:42 NCCL_GID_INDEX"),
		  "%s", p.out);
	cr_assert(strstr(p.out, "did you mean NCCL_IB_GID_INDEX?"), "%s", p.out);
	cr_assert(strstr(p.out, "NCCL_ENV_OVERRIDDEN"), "%s", p.out);
	cr_assert_null(strstr(p.out, "NCCL_HCA_UNKNOWN"), "%s", p.out);
	ts_proc_free(&p);
	/* the run takes mpirun's 4 QPs a connection and DSCP 104 >> 2 */
	ts_exec(&p, (const char *const[]){"run", ts_tmp("mpirun.yaml"), "-o", ts_tmp("out"), "-q",
					  NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	{
		json_t *j = json_load_file(ts_tmp("out/results.json"), 0, NULL);

		cr_assert_not_null(j);
		cr_assert_eq(ts_metric(j, "collective.qps_per_connection"), 4);
		json_decref(j);
	}
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

Test(nccl_cli, qps_per_connection_is_a_workload_key_the_pod_gives_unless_set)
{
	struct ts_proc p;
	const char *pod =
	    put("qpod.yaml", "apiVersion: v1\n"
			     "kind: Pod\n"
			     "metadata: {name: w}\n"
			     "spec:\n"
			     "  containers:\n"
			     "  - name: t\n"
			     "    command: [mpirun, -x, NCCL_IB_QPS_PER_CONNECTION=2, a.out]\n");
	char yaml[512];
	json_t *j;

	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 4}\n"
		 "workload: {kind: allreduce, size: 1MB, channels: 1, pod: %s}\n",
		 pod);
	put("q.yaml", yaml);
	ts_exec(&p, (const char *const[]){"run", ts_tmp("q.yaml"), "-o", ts_tmp("q1"), "-q", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	j = json_load_file(ts_tmp("q1/results.json"), 0, NULL);
	cr_assert_eq(ts_metric(j, "collective.qps_per_connection"), 2);
	cr_assert_eq(ts_metric(j, "collective.network_qps"), 8);
	json_decref(j);
	/* the scenario's key wins */
	ts_exec(&p, (const char *const[]){"run", ts_tmp("q.yaml"), "-o", ts_tmp("q2"), "-q",
					  "--set", "workload.qps_per_connection=3", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	j = json_load_file(ts_tmp("q2/results.json"), 0, NULL);
	cr_assert_eq(ts_metric(j, "collective.network_qps"), 12);
	json_decref(j);
	/* out of NCCL's range, or on a workload that is no collective */
	ts_exec(&p, (const char *const[]){"check", ts_tmp("q.yaml"), "--set",
					  "workload.qps_per_connection=129", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "workload.qps_per_connection"), "%s", p.err);
	ts_proc_free(&p);
	put("f.yaml", "topology: {kind: star, hosts: 2}\n"
		      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}],\n"
		      "           split_data_on_qps: true}\n");
	ts_exec(&p, (const char *const[]){"check", ts_tmp("f.yaml"), NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "workload.split_data_on_qps: does not apply to flows"), "%s",
		  p.err);
	ts_proc_free(&p);
}

Test(nccl_cli, qps_a_job_sets_where_they_change_nothing_are_said)
{
	struct ts_proc p;
	char yaml[512];
	const char *pod =
	    put("spod.yaml", "apiVersion: v1\n"
			     "kind: Pod\n"
			     "metadata: {name: w}\n"
			     "spec:\n"
			     "  containers:\n"
			     "  - name: t\n"
			     "    env:\n"
			     "    - {name: NCCL_IB_SPLIT_DATA_ON_QPS, value: \"1\"}\n");

	/* flows: one QP each */
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 2}\n"
		 "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}], pod: %s}\n",
		 pod);
	ts_exec(&p, (const char *const[]){"check", put("fl.yaml", yaml), NULL});
	cr_assert(strstr(p.out, "info NCCL_QPS_NOT_USED"), "%s", p.out);
	cr_assert(strstr(p.out, "spod.yaml:8 NCCL_IB_SPLIT_DATA_ON_QPS: workload is no collective"),
		  "%s", p.out);
	ts_proc_free(&p);
	/* a collective of one QP a connection: split changes nothing */
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 2}\n"
		 "workload: {kind: allreduce, size: 1MB, pod: %s}\n",
		 pod);
	ts_exec(&p, (const char *const[]){"check", put("c1.yaml", yaml), NULL});
	cr_assert(strstr(p.out, "one QP per connection"), "%s", p.out);
	ts_proc_free(&p);
	/* ... unless the scenario gives several */
	ts_exec(&p, (const char *const[]){"check", ts_tmp("c1.yaml"), "--set",
					  "workload.qps_per_connection=2", NULL});
	cr_assert_null(strstr(p.out, "NCCL_QPS_NOT_USED"), "%s", p.out);
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

Test(nccl_cli, a_run_split_over_processes_refuses_several_qps)
{
	char args[600];
	struct ts_proc p;

	if (!par_mpi_built() || ts_sh("command -v mpirun", NULL, NULL))
		cr_skip("no MPI");
	put("par.yaml", "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
			"workload: {kind: allreduce, size: 1MB, qps_per_connection: 2}\n");
	snprintf(args, sizeof(args), "run '%s' -o '%s' -q", ts_tmp("par.yaml"), ts_tmp("par"));
	ts_mpirun(&p, 2, args);
	cr_assert_eq(p.code, 2, "%s", p.err);
	cr_assert(strstr(p.err, "workload.qps_per_connection: 2 QPs per connection: a run split "
				"over 2 processes models one"),
		  "%s", p.err);
	ts_proc_free(&p);
}
