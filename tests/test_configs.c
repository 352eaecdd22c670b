/*
 * Real node configs end to end: check finds the seed's mistakes in its
 * SONiC config_db, mlnx_qos output, cc_params and Pod manifest, and is
 * silent on the fixed set; run refuses a cc_params entry the NIC would
 * refuse, naming its file and line; import prints what it understood.
 * Through the C API: a value merged from a config keeps its origin up to
 * the check that refuses it, and an explicit key wins over it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "sim/config/scenario.h"

static void setup(void)
{
	ts_proc_setup("configs");
}

TestSuite(configs, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

/* A scenario in the temporary folder naming the configs of experiments/. */
static const char *scenario(const char *name, const char *sonic, const char *qos, const char *cc,
			    const char *pod)
{
	const char *path = ts_tmp(name);
	char cwd[1024];
	FILE *f = fopen(path, "w");

	cr_assert(f && getcwd(cwd, sizeof(cwd)));
	fprintf(f,
		"topology: {kind: star, hosts: 4, link: {rate: 100Gbps, cable: 5m}}\n"
		"switch: {sonic: %s/experiments/configs/%s}\n"
		"nic: {mlnx_qos: %s/experiments/configs/%s, cc_params: %s/experiments/configs/%s}\n"
		"workload: {kind: allreduce, size: 4MB, pod: %s/experiments/configs/%s}\n",
		cwd, sonic, cwd, qos, cwd, cc, cwd, pod);
	fclose(f);
	return path;
}

static int has(const char *out, const char *text)
{
	return strstr(out, text) != NULL;
}

Test(configs, the_default_sonic_dscp_map_makes_rdma_lossy)
{
	struct ts_proc p;
	const char *s = scenario("lossy.yaml", "config_db.json", "mlnx_qos.txt", "cc_params.txt",
				 "pod-seed.yaml");

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error DSCP_NOT_LOSSLESS"), "%s", p.out);
	/* both sides, each where it says it */
	cr_assert(has(p.out, "pod-seed.yaml:"), "%s", p.out);
	cr_assert(has(p.out, "NCCL_IB_TC=104 -> DSCP 26"), "%s", p.out);
	/* the switch's side at its table, key and line */
	cr_assert(has(p.out, "config_db.json:209 DSCP_TO_TC_MAP|AZURE|26 -> TC 1"), "%s", p.out);
	ts_proc_free(&p);
}

Test(configs, the_fixed_map_passes)
{
	struct ts_proc p;
	const char *s = scenario("fixed.yaml", "config_db-seed.json", "mlnx_qos.txt",
				 "cc_params.txt", "pod.yaml");

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(!has(p.out, "error "), "%s", p.out);
	ts_proc_free(&p);
}

Test(configs, every_seed_cc_params_mistake_is_named)
{
	static const char *const names[] = {"rp_gd 50",		"rp_initial_alpha_value 1024",
					    "rp_dce_tcp_g 4",	"rp_hai_rate 15",
					    "np_cnp_enable",	"rp_enable",
					    "rp_rf_reset_ratio"};
	struct ts_proc p;
	const char *s = scenario("cc.yaml", "config_db-seed.json", "mlnx_qos.txt",
				 "cc_params-seed.txt", "pod.yaml");

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_assert(has(p.out, names[i]), "%s not named:\n%s", names[i], p.out);
	cr_assert(has(p.out, "cc_params-seed.txt:"), "findings name the file and line");
	ts_proc_free(&p);
}

Test(configs, run_refuses_a_cc_params_entry_the_nic_would_refuse)
{
	struct ts_proc p;
	const char *s = scenario("run.yaml", "config_db-seed.json", "mlnx_qos.txt",
				 "cc_params-seed.txt", "pod.yaml");

	ts_exec(&p, (const char *[]){"run", s, "-o", ts_tmp("out"), NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(has(p.err, "cc_params-seed.txt:"), "%s", p.err);
	cr_assert(has(p.err, "(nic.cc_params)"), "%s", p.err);
	ts_proc_free(&p);
}

Test(configs, the_seed_nic_mistakes_are_warned)
{
	struct ts_proc p;
	const char *s = scenario("nic.yaml", "config_db-seed.json", "mlnx_qos-seed.txt",
				 "cc_params.txt", "pod.yaml");

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert(has(p.out, "NIC_TRUST_PCP"), "%s", p.out);
	cr_assert(has(p.out, "PFC_EXTRA_PRIORITY"), "%s", p.out);
	ts_proc_free(&p);
}

Test(configs, explicit_keys_win_over_the_files)
{
	struct ts_proc p;
	const char *s = scenario("win.yaml", "config_db.json", "mlnx_qos.txt", "cc_params.txt",
				 "pod-seed.yaml");

	/* the scenario maps DSCP 26 itself: the SONiC map is overridden */
	ts_exec(&p, (const char *[]){"check", s, "--set", "switch.dscp_to_tc.26=3", NULL});
	cr_assert(!has(p.out, "DSCP_NOT_LOSSLESS"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", s, "--set", "nic.dcqcn.rp_gd=9", "--json", NULL});
	cr_assert(has(p.out, "\"rp_gd\": 9"), "%s", p.out);
	ts_proc_free(&p);
}

Test(configs, import_prints_scenario_fragments)
{
	static const struct {
		const char *kind, *file, *want;
	} cases[] = {
	    {"sonic", "experiments/configs/config_db.json", "dscp_to_tc:"},
	    {"mlnx-qos", "experiments/configs/mlnx_qos.txt", "pfc: [0, 0, 0, 1"},
	    {"cc-params", "experiments/configs/cc_params.txt", "rp_gd: 11"},
	    {"cc-params", "experiments/configs/cc_params", "rp_gd: 11"},
	    {"pod", "experiments/configs/pod-seed.yaml", "dscp: 26"},
	};
	struct ts_proc p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ts_exec(&p, (const char *[]){"import", cases[i].kind, cases[i].file, NULL});
		cr_assert_eq(p.code, 0, "%s %s: %s", cases[i].kind, cases[i].file, p.err);
		cr_assert(has(p.out, cases[i].want), "%s: %s", cases[i].kind, p.out);
		ts_proc_free(&p);
	}
	ts_exec(&p, (const char *[]){"import", "sonic", "tests/good/two-flows.yaml", NULL});
	cr_assert_eq(p.code, 2, "a YAML file is not a config_db");
	cr_assert(has(p.err, "rocesim: "), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "nosuch", "x", NULL});
	cr_assert_eq(p.code, 2);
	ts_proc_free(&p);
	/* a pool whose size + xoff passes 2^64: refused at the pool, not wrapped */
	ts_exec(&p, (const char *[]){"import", "sonic", "tests/bad/sonic/pool-wraps.json", NULL});
	cr_assert_eq(p.code, 2, "%s%s", p.out, p.err);
	cr_assert(has(p.err, "tests/bad/sonic/pool-wraps.json:5: BUFFER_POOL|ingress_lossless_pool|"
			     "xoff: size 18446744073709551615 B + xoff 1000 B does not fit"),
		  "%s", p.err);
	cr_assert_str_empty(p.out);
	ts_proc_free(&p);
	/* the same file named by a scenario: the pool is blamed, not a scenario key */
	ts_exec(&p, (const char *[]){"check", "tests/bad/sonic-pool-wraps.yaml", NULL});
	cr_assert_eq(p.code, 2, "%s%s", p.out, p.err);
	cr_assert(has(p.err, "BUFFER_POOL|ingress_lossless_pool|xoff"), "%s", p.err);
	cr_assert(!has(p.err, "switch.buffer"), "%s", p.err);
	ts_proc_free(&p);
}

Test(configs, check_on_the_seed_cluster_takes_under_a_second)
{
	struct ts_proc p;
	struct timespec a, b;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &a);
	ts_exec(&p, (const char *[]){"check", "experiments/seed-cluster.yaml", NULL});
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	cr_assert_neq(p.code, 2, "%s", p.err);
	/* loose under sanitizers; the release figure is in docs/run.md */
	cr_assert_lt(s, 10.0, "%.2f s", s);
	ts_proc_free(&p);
}

Test(configs, the_job_env_is_checked)
{
	static const char pod[] = "apiVersion: v1\n"
				  "kind: Pod\n"
				  "metadata: {name: trainer}\n"
				  "spec:\n"
				  "  containers:\n"
				  "    - name: t\n"
				  "      image: x\n"
				  "      env:\n"
				  "        - {name: NCCL_IB_TC, value: \"104\"}\n"
				  "        - {name: NCCL_IB_GID_INDEX, value: \"0\"}\n"
				  "        - {name: NCCL_IB_DISABLE, value: \"1\"}\n";
	struct ts_proc p;
	const char *pod_file = ts_tmp("pod.yaml"), *scn = ts_tmp("env.yaml");
	FILE *f = fopen(pod_file, "w");

	cr_assert(f);
	fputs(pod, f);
	fclose(f);
	f = fopen(scn, "w");
	cr_assert(f);
	fprintf(f,
		"topology: {kind: star, hosts: 4}\n"
		"workload: {kind: allreduce, size: 4MB, pod: %s}\n",
		pod_file);
	fclose(f);
	ts_exec(&p, (const char *[]){"check", scn, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error NCCL_IB_DISABLED"), "%s", p.out);
	cr_assert(has(p.out, "warning NCCL_GID_INDEX"), "%s", p.out);
	ts_proc_free(&p);
}

/* @text into the temporary file @name; returns its path. */
static const char *put(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

/* A Pod manifest whose container sets @env (YAML flow items), line 9 onwards. */
static const char *pod_with(const char *name, const char *env)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "apiVersion: v1\n"
		 "kind: Pod\n"
		 "metadata: {name: trainer}\n"
		 "spec:\n"
		 "  containers:\n"
		 "    - name: t\n"
		 "      image: x\n"
		 "      env:\n"
		 "%s",
		 env);
	return put(name, text);
}

Test(configs, run_refuses_a_job_without_rdma_at_the_manifest_line)
{
	struct ts_proc p;
	const char *pod = pod_with("off.yaml", "        - {name: NCCL_IB_TC, value: \"104\"}\n"
					       "        - {name: NCCL_IB_DISABLE, value: \"1\"}\n");
	char scn[1200], want[600];

	snprintf(scn, sizeof(scn),
		 "topology: {kind: star, hosts: 4}\n"
		 "workload: {kind: allreduce, size: 1MB, pod: %s}\n",
		 pod);
	put("off-scn.yaml", scn);
	ts_exec(&p, (const char *[]){"run", ts_tmp("off-scn.yaml"), "-o", ts_tmp("off-out"), NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s%s", p.code, p.out, p.err);
	snprintf(want, sizeof(want), "rocesim: %s:10: NCCL_IB_DISABLE: 1: NCCL does not use RDMA",
		 pod);
	cr_assert(!strncmp(p.err, want, strlen(want)), "%s", p.err);
	cr_assert(has(p.err, "(workload.pod)"), "%s", p.err);
	cr_assert_eq(access(ts_tmp("off-out"), F_OK), -1, "nothing written");
	ts_proc_free(&p);

	/* check reports it with the same decision; 0 and non-numbers leave RDMA on */
	ts_exec(&p, (const char *[]){"check", ts_tmp("off-scn.yaml"), NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error NCCL_IB_DISABLED"), "%s", p.out);
	cr_assert(has(p.out, ":10 NCCL_IB_DISABLE=1: NCCL does not use RDMA"), "%s", p.out);
	ts_proc_free(&p);
	pod_with("off.yaml", "        - {name: NCCL_IB_DISABLE, value: \"0\"}\n");
	ts_exec(&p, (const char *[]){"run", ts_tmp("off-scn.yaml"), "-o", ts_tmp("on-out"), NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
}

Test(configs, each_workload_takes_its_own_pod)
{
	struct ts_proc p;
	const char *a = pod_with("a.yaml", "        - {name: NCCL_IB_TC, value: \"104\"}\n");
	const char *b = pod_with("b.yaml", "        - {name: NCCL_IB_TC, value: \"96\"}\n");
	char scn[1400], want[600], *res;

	snprintf(scn, sizeof(scn),
		 "topology: {kind: star, hosts: 4}\n"
		 "output: {sample: 0}\n"
		 "workload:\n"
		 "  - {kind: flows, flows: [{src: h0, dst: h1, size: 100KB}], pod: %s}\n"
		 "  - {kind: flows, flows: [{src: h2, dst: h3, size: 100KB}], pod: %s}\n",
		 a, b);
	put("two-pods.yaml", scn);

	/* the run: h2's flow is DSCP 24 (96 >> 2), which the default map sends to TC 0 */
	ts_exec(&p, (const char *[]){"run", ts_tmp("two-pods.yaml"), "-o", ts_tmp("two-pods"),
				     "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	res = ts_slurp(ts_tmp("two-pods/results.json"));
	cr_assert(res);
	{
		json_error_t je;
		json_t *j = json_loads(res, 0, &je), *ports, *port, *q;
		size_t i, k;
		int to_h1 = -1, to_h3 = -1;

		cr_assert(j, "%s", je.text);
		ports = json_object_get(json_array_get(json_object_get(j, "switches"), 0), "ports");
		json_array_foreach(ports, i, port) {
			const char *name = json_string_value(json_object_get(port, "name"));

			json_array_foreach(json_object_get(port, "queues"), k, q) {
				if (json_integer_value(json_object_get(q, "tx_packets")) < 25)
					continue;
				if (!strcmp(name, "sw0:h1"))
					to_h1 =
					    (int)json_integer_value(json_object_get(q, "queue"));
				if (!strcmp(name, "sw0:h3"))
					to_h3 =
					    (int)json_integer_value(json_object_get(q, "queue"));
			}
		}
		cr_assert_eq(to_h1, 3, "workload 0 (NCCL_IB_TC 104) on TC %d", to_h1);
		cr_assert_eq(to_h3, 0, "workload 1 (NCCL_IB_TC 96) on TC %d", to_h3);
		json_decref(j);
	}
	free(res);

	/* check follows each pod's DSCP, named at its own manifest */
	ts_exec(&p, (const char *[]){"check", ts_tmp("two-pods.yaml"), NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	snprintf(want, sizeof(want), "error DSCP_NOT_LOSSLESS %s:9 NCCL_IB_TC=96 -> DSCP 24; ", b);
	cr_assert(has(p.out, want), "%s", p.out);
	snprintf(want, sizeof(want), "%s:9 NCCL_IB_TC=104", a);
	cr_assert(!has(p.out, want), "DSCP 26 is lossless: %s", p.out);
	ts_proc_free(&p);
}

/* config_db.json with @wred as its lossless queue's WRED profile. */
static const char *sonic_with_wred(const char *name, const char *min, const char *max)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "{\n"
		 "  \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\", \"mtu\": \"9100\"}},\n"
		 "  \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}},\n"
		 "  \"QUEUE\": {\"Ethernet0|3\": {\"wred_profile\": \"LOSSLESS\"}},\n"
		 "  \"WRED_PROFILE\": {\n"
		 "    \"LOSSLESS\": {\n"
		 "      \"ecn\": \"ecn_all\",\n"
		 "      \"green_drop_probability\": \"5\",\n"
		 "      \"green_max_threshold\": \"%s\",\n"
		 "      \"green_min_threshold\": \"%s\"\n"
		 "    }\n"
		 "  }\n"
		 "}\n",
		 max, min);
	return put(name, text);
}

Test(configs, a_refused_sonic_value_is_named_at_its_table_key_and_line)
{
	const char *verbs[] = {"run", "check"};
	const char *db = sonic_with_wred("wred.json", "2000000", "1000000");
	char scn[1200], want[600];
	struct ts_proc p;

	snprintf(scn, sizeof(scn),
		 "topology: {kind: star, hosts: 4}\n"
		 "switch: {sonic: %s}\n"
		 "workload: {kind: allreduce, size: 1MB}\n",
		 db);
	put("wred-scn.yaml", scn);
	snprintf(want, sizeof(want),
		 "rocesim: %s:9: WRED_PROFILE|LOSSLESS|green_max_threshold: kmin (2000000 B) must "
		 "not be above kmax (1000000 B) (switch.ecn.kmax, from switch.sonic)\n",
		 db);
	for (size_t i = 0; i < 2; i++) {
		ts_exec(&p, (const char *[]){verbs[i], ts_tmp("wred-scn.yaml"), "-o",
					     ts_tmp("wred-out"), NULL});
		if (i == 1) {
			ts_proc_free(&p);
			ts_exec(&p, (const char *[]){verbs[i], ts_tmp("wred-scn.yaml"), NULL});
		}
		cr_assert_eq(p.code, 2, "%s: %s%s", verbs[i], p.out, p.err);
		cr_assert_str_eq(p.err, want, "%s", verbs[i]);
		ts_proc_free(&p);
	}

	/* the scenario's own kmax wins, and is then the one named */
	ts_exec(&p, (const char *[]){"check", ts_tmp("wred-scn.yaml"), "--set",
				     "switch.ecn.kmax=1.5MB", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(has(p.err, "rocesim: --set: switch.ecn.kmax: kmin (2000000 B)"), "%s", p.err);
	ts_proc_free(&p);
}

Test(configs, check_says_where_each_value_came_from)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "experiments/configs-seed-mistakes.yaml", NULL});
	cr_assert_eq(p.code, 1, "%s", p.err);
	/* a SONiC value at its table and line, not "the file or the default" */
	cr_assert(has(p.out, "); experiments/configs/config_db.json:89 "
			     "BUFFER_PROFILE|pg_lossless_100000_5m_profile|xoff 43008 B; link 400 "
			     "Gb/s 30 m: needs "),
		  "%s", p.out);
	/* a cc_params value at its line */
	cr_assert(has(p.out, "nic.dcqcn.rp_dce_tcp_g 4 (experiments/configs/cc_params-seed.txt:"),
		  "%s", p.out);
	cr_assert(!has(p.out, "or the default"), "%s", p.out);
	ts_proc_free(&p);
}

Test(configs, cnps_on_a_class_the_switch_does_not_serve_first_are_an_error)
{
	struct ts_proc p;
	char scn[1200], cwd[1024];

	/* the default map follows np_cnp_dscp: nothing to say */
	ts_exec(&p, (const char *[]){"check", "tests/good/two-flows.yaml", "--set",
				     "nic.dcqcn.np_cnp_dscp=46", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(!has(p.out, "CNP_"), "%s", p.out);
	ts_proc_free(&p);

	/* a map that sends DSCP 46 to TC 0: CNPs wait behind the data */
	ts_exec(&p, (const char *[]){"check", "tests/good/two-flows.yaml", "--set",
				     "nic.dcqcn.np_cnp_dscp=46", "--set", "switch.dscp_to_tc.46=0",
				     NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error CNP_CLASS nic.dcqcn.np_cnp_dscp 46 (--set); "
			     "switch.dscp_to_tc 46 -> TC 0 (--set); switch.scheduler strict "
			     "(default), switch.cnp_priority 6 (default): CNPs land on TC 0"),
		  "%s", p.out);
	ts_proc_free(&p);

	/* SONiC's map sends 46 to TC 5: ahead of TC 3 when strict, not with dwrr */
	snprintf(scn, sizeof(scn),
		 "topology: {kind: star, hosts: 4}\n"
		 "switch: {sonic: %s/experiments/configs/config_db.json, scheduler: dwrr}\n"
		 "nic:\n"
		 "  dcqcn: {np_cnp_dscp: 46}\n"
		 "workload: {kind: allreduce, size: 1MB}\n",
		 getcwd(cwd, sizeof(cwd)));
	put("cnp.yaml", scn);
	ts_exec(&p, (const char *[]){"check", ts_tmp("cnp.yaml"), "--set", "switch.dscp_to_tc.26=3",
				     NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error CNP_CLASS nic.dcqcn.np_cnp_dscp 46 ("), "%s", p.out);
	cr_assert(has(p.out, "cnp.yaml:4); "), "%s", p.out);
	cr_assert(has(p.out, "experiments/configs/config_db.json:231 DSCP_TO_TC_MAP|AZURE|46 -> "
			     "TC 5; switch.scheduler dwrr ("),
		  "%s", p.out);
	/* the classes RDMA data does not use, and only those */
	cr_assert(has(p.out, "PAUSE for classes 4 that RDMA traffic (TC 3) does not use"), "%s",
		  p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", ts_tmp("cnp.yaml"), "--set", "switch.dscp_to_tc.26=3",
				     "--set", "switch.scheduler=strict", NULL});
	cr_assert(!has(p.out, "CNP_CLASS"), "%s", p.out);
	ts_proc_free(&p);
}

/* config_db.json: a WRED profile (@min, @max) and a PFC watchdog; see the lines. */
static const char *sonic_wred_wd(const char *name, const char *min, const char *max)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "{\n"
		 "  \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\", \"mtu\": \"9100\"}},\n"
		 "  \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}},\n"
		 "  \"QUEUE\": {\"Ethernet0|3\": {\"wred_profile\": \"LOSSLESS\"}},\n"
		 "  \"WRED_PROFILE\": {\n"
		 "    \"LOSSLESS\": {\n"
		 "      \"ecn\": \"ecn_all\",\n"
		 "      \"green_drop_probability\": \"5\",\n"
		 "      \"green_max_threshold\": \"%s\",\n" /* line 9 */
		 "      \"green_min_threshold\": \"%s\"\n"  /* line 10 */
		 "    }\n"
		 "  },\n"
		 "  \"PFC_WD\": {\n"
		 "    \"Ethernet0\": {\n"
		 "      \"action\": \"forward\",\n"
		 "      \"detection_time\": \"300\",\n" /* line 16 */
		 "      \"restoration_time\": \"400\"\n"
		 "    }\n"
		 "  }\n"
		 "}\n",
		 max, min);
	return put(name, text);
}

/* scn_load_text of a star whose switch is @db, with @extra switch keys. */
static int load_with(const char *db, const char *extra, const char *const *sets, size_t n_sets,
		     struct scenario **s, struct diag *d)
{
	char text[1200];

	snprintf(text, sizeof(text),
		 "topology: {kind: star, hosts: 4}\n"
		 "switch:\n"
		 "  sonic: %s\n"
		 "%s"
		 "workload: {kind: allreduce, size: 1MB}\n",
		 db, extra);
	memset(d, 0, sizeof(*d));
	return scn_load_text(ts_tmp("api.yaml"), text, strlen(text), sets, n_sets, s, d);
}

Test(configs, a_merged_value_keeps_its_origin_up_to_the_check_that_refuses_it)
{
	const char *db = sonic_wred_wd("api-ok.json", "150000", "1000000");
	const struct scn_origin *o;
	struct scenario *s = NULL;
	struct diag d;

	/* merged, typed, each value with its file, line and key */
	cr_assert_eq(load_with(db, "", NULL, 0, &s, &d), 0, "%s:%d: %s: %s", d.file, d.line, d.path,
		     d.msg);
	cr_assert_eq(s->sw.ecn.kmin, 150000);
	cr_assert_eq(s->sw.ecn.kmax, 1000000);
	cr_assert_eq(s->sw.ecn.pmax, 0.05);
	cr_assert(s->sw.wd.enabled);
	cr_assert_eq(s->sw.wd.detection, 300 * SIMTIME_MS);
	cr_assert_eq(s->sw.wd.restoration, 400 * SIMTIME_MS);
	cr_assert_eq(s->sw.wd.action, SW_WD_FORWARD);
	cr_assert_eq(s->sw.lossless, 1u << 3);
	o = scn_origin(s, "switch.ecn.kmax");
	cr_assert(o, "switch.ecn.kmax has no origin");
	cr_assert_str_eq(o->file, db);
	cr_assert_eq(o->line, 9);
	cr_assert_str_eq(o->key, "WRED_PROFILE|LOSSLESS|green_max_threshold");
	cr_assert_str_eq(o->via, "switch.sonic");
	o = scn_origin(s, "switch.watchdog.detection");
	cr_assert(o && o->line == 16, "%d", o ? o->line : -1);
	scn_free(s);

	/* a merged value the checks refuse: named at the config's line and key */
	db = sonic_wred_wd("api-bad.json", "2000000", "1000000");
	cr_assert_eq(load_with(db, "", NULL, 0, &s, &d), -EINVAL);
	cr_assert_null(s);
	cr_assert_str_eq(d.file, db);
	cr_assert_eq(d.line, 9);
	cr_assert_str_eq(d.path, "WRED_PROFILE|LOSSLESS|green_max_threshold");
	cr_assert_str_eq(d.msg, "kmin (2000000 B) must not be above kmax (1000000 B) "
				"(switch.ecn.kmax, from switch.sonic)");

	/* and one refused against a scenario key it is checked with */
	db = sonic_wred_wd("api-kmax.json", "150000", "1000000");
	cr_assert_eq(load_with(db, "  ecn: {kmin: 1.5MB}\n", NULL, 0, &s, &d), -EINVAL);
	cr_assert_str_eq(d.file, db);
	cr_assert_eq(d.line, 9);
	cr_assert_str_eq(d.msg, "kmin (1500000 B) must not be above kmax (1000000 B) "
				"(switch.ecn.kmax, from switch.sonic)");
}

Test(configs, an_explicit_key_wins_over_a_merged_value)
{
	const char *db = sonic_wred_wd("api-win.json", "150000", "1000000");
	const char *sets[] = {"switch.ecn.kmin=100KB", "switch.watchdog.action=drop"};
	struct scenario *s = NULL;
	struct diag d;

	/* the file's own key and --set win, with no origin; the rest still merges */
	cr_assert_eq(load_with(db, "  ecn: {kmax: 1.5MB}\n  lossless: [3, 4]\n", sets, 2, &s, &d),
		     0, "%s:%d: %s: %s", d.file, d.line, d.path, d.msg);
	cr_assert_eq(s->sw.ecn.kmax, 1500000);
	cr_assert_null(scn_origin(s, "switch.ecn.kmax"));
	cr_assert_eq(s->sw.ecn.kmin, 100000);
	cr_assert_null(scn_origin(s, "switch.ecn.kmin"));
	cr_assert_eq(s->sw.wd.action, SW_WD_DROP);
	cr_assert_null(scn_origin(s, "switch.watchdog.action"));
	cr_assert_eq(s->sw.lossless, (1u << 3) | (1u << 4));
	cr_assert_null(scn_origin(s, "switch.lossless"));
	cr_assert_eq(s->sw.wd.detection, 300 * SIMTIME_MS);
	cr_assert(scn_origin(s, "switch.watchdog.detection"));
	cr_assert_eq(s->sw.ecn.pmax, 0.05);
	scn_free(s);

	/* a refused explicit value is named where it was given, not at the config */
	cr_assert_eq(load_with(db, "  ecn: {kmax: 0}\n", NULL, 0, &s, &d), -EINVAL);
	cr_assert_str_eq(d.file, ts_tmp("api.yaml"));
	cr_assert_eq(d.line, 4);
	cr_assert_str_eq(d.path, "switch.ecn.kmax");
	cr_assert_str_eq(d.msg, "must be more than 0");
}

Test(configs, a_pods_dscp_is_merged_unless_the_workload_gives_one)
{
	const char *pod =
	    pod_with("api-pod.yaml", "        - {name: NCCL_IB_TC, value: \"104\"}\n");
	struct scenario *s = NULL;
	struct scn_dscp *ds = NULL;
	const struct scn_origin *o;
	struct diag d = {0};
	char text[1200];
	size_t n = 0;

	snprintf(text, sizeof(text),
		 "topology: {kind: star, hosts: 4}\n"
		 "workload:\n"
		 "  - {kind: allreduce, size: 1MB, pod: %s}\n"
		 "  - {kind: allreduce, size: 1MB, pod: %s, dscp: 10}\n",
		 pod, pod);
	cr_assert_eq(scn_load_text(ts_tmp("pods.yaml"), text, strlen(text), NULL, 0, &s, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(scn_data_dscps(s, &ds, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(ds[0].dscp, 26, "NCCL_IB_TC 104 >> 2");
	cr_assert_str_eq(ds[0].path, "workload[0].dscp");
	cr_assert_eq(ds[1].dscp, 10, "the workload's own dscp wins");
	o = scn_origin(s, "workload[0].dscp");
	cr_assert(o && o->line == 9 && !strcmp(o->value, "104") && !strcmp(o->file, pod));
	cr_assert_null(scn_origin(s, "workload[1].dscp"));
	free(ds);
	scn_free(s);
}

/* A scenario naming tests/mlnx/@cc as nic.cc_params (DCQCN on). */
static const char *cc_scenario(const char *name, const char *cc)
{
	const char *path = ts_tmp(name);
	char cwd[1024];
	FILE *f = fopen(path, "w");

	cr_assert(f && getcwd(cwd, sizeof(cwd)));
	fprintf(f,
		"topology: {kind: star, hosts: 4, link: {rate: 100Gbps, cable: 5m}}\n"
		"nic: {cc: dcqcn, cc_params: %s/tests/mlnx/%s}\n"
		"workload: {kind: incast, senders: 3, size: 1MB}\n"
		"output: {sample: 0}\n",
		cwd, cc);
	fclose(f);
	return path;
}

/*
 * `grep -r . cc_params` of a ConnectX-6 Dx as it prints, with every name
 * the Linux mlx5 driver lists (np_cnp_prio_mode, rtt_resp_dscp_valid,
 * rtt_resp_dscp among them): read whole, the RTT response DSCP said to
 * have no effect, np_cnp_prio_mode 1 taken (CNPs on the data's priority).
 */
Test(configs, a_verbatim_cc_params_dump_is_read_whole)
{
	const char *s = cc_scenario("cc-dump.yaml", "cc-grep-r-cx6dx.txt");
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert_not(has(p.out, "CC_PARAM_UNKNOWN"), "%s", p.out);
	cr_assert(has(p.out, "CC_PARAM_NOT_MODELLED"), "%s", p.out);
	cr_assert(has(p.out, "cc-grep-r-cx6dx.txt:21: rtt_resp_dscp_valid 0"), "%s", p.out);
	cr_assert(has(p.out, "cc-grep-r-cx6dx.txt:22: rtt_resp_dscp 0"), "%s", p.out);
	cr_assert(has(p.out, "nic.dcqcn.np_cnp_prio_mode 1 (priority 3, the data's)"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", s, "--json", NULL});
	cr_assert(has(p.out, "\"np_cnp_prio_mode\": 1"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", s, "-o", ts_tmp("cc-dump"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p,
		(const char *[]){"import", "cc-params", "tests/mlnx/cc-grep-r-cx6dx.txt", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(has(p.out, "    np_cnp_prio_mode: 1\n"), "%s", p.out);
	cr_assert(has(p.out, "    rtt_resp_dscp: 0\n"), "%s", p.out);
	ts_proc_free(&p);
}

/* rp_gd twice with two values: a warning naming both lines; import keeps
 * one key (the later, as writing them in order leaves it). */
Test(configs, a_cc_params_entry_given_twice_is_warned_and_imported_once)
{
	const char *s = cc_scenario("cc-twice.yaml", "cc-grep-r-twice.txt");
	struct ts_proc p;
	char *first;

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert(has(p.out, "CC_PARAM_DUPLICATE"), "%s", p.out);
	cr_assert(has(p.out, "cc-grep-r-twice.txt:16: rp_gd 11;"), "%s", p.out);
	cr_assert(has(p.out, "cc-grep-r-twice.txt:23: rp_gd 9"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p,
		(const char *[]){"import", "cc-params", "tests/mlnx/cc-grep-r-twice.txt", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	first = strstr(p.out, "\n    rp_gd:");
	cr_assert(first, "%s", p.out);
	cr_assert(has(first, "    rp_gd: 9\n"), "%s", p.out);
	cr_assert_null(strstr(first + 1, "\n    rp_gd:"), "rp_gd twice in:\n%s", p.out);
	cr_assert(has(p.out, "    # rp_gd: 11    # tests/mlnx/cc-grep-r-twice.txt:16: given again "
			     "at line 23, which wins\n"),
		  "%s", p.out);
	ts_proc_free(&p);
}

/* nic.dcqcn takes units as every other number does, converted to the
 * cc_params unit; bare numbers are already in it. */
Test(configs, dcqcn_keys_take_units_converted_to_the_cc_params_unit)
{
	const char *path = ts_tmp("units.yaml");
	const char *sets[] = {"nic.dcqcn.byte_reset_unit=1B",
			      "nic.dcqcn.np_min_time_between_cnps=4us",
			      "nic.dcqcn.rp_ai_rate=5Mbps",
			      "nic.dcqcn.rp_time_reset=0.3ms",
			      "nic.dcqcn.rp_hai_rate=1Gbps",
			      "nic.dcqcn.rp_byte_reset=2MB",
			      "nic.dcqcn.rp_rate_reduce_monitor_period=7",
			      "nic.dcqcn.rp_gd=9"};
	struct scenario *s = NULL;
	struct diag d = {0};
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs("topology: {kind: star, hosts: 3}\nnic: {cc: dcqcn}\n"
	      "workload: {kind: incast, senders: 2, size: 64KB}\n",
	      f);
	fclose(f);
	cr_assert_eq(scn_load(path, sets, sizeof(sets) / sizeof(sets[0]), &s, &d), 0, "%s: %s",
		     d.path, d.msg);
	cr_assert_eq(s->nic.dcqcn.np_min_time_between_cnps, 4);
	cr_assert_eq(s->nic.dcqcn.rp_ai_rate, 5);
	cr_assert_eq(s->nic.dcqcn.rp_time_reset, 300);
	cr_assert_eq(s->nic.dcqcn.rp_hai_rate, 1000);
	cr_assert_eq(s->nic.dcqcn.rp_byte_reset, 2000000, "in bytes");
	cr_assert_eq(s->nic.dcqcn.rp_rate_reduce_monitor_period, 7, "bare: microseconds already");
	cr_assert_eq(s->nic.dcqcn.rp_gd, 9);
	scn_free(s);

	/* in 64-byte units (nic.dcqcn.byte_reset_unit: 64B) a size converts to them */
	{
		const char *u64[] = {"nic.dcqcn.byte_reset_unit=64B",
				     "nic.dcqcn.rp_byte_reset=2MB"};
		const char *odd[] = {"nic.dcqcn.byte_reset_unit=64B",
				     "nic.dcqcn.rp_byte_reset=100B"};

		s = NULL;
		cr_assert_eq(scn_load(path, u64, 2, &s, &d), 0, "%s: %s", d.path, d.msg);
		cr_assert_eq(s->nic.dcqcn.byte_reset_unit, 64);
		cr_assert_eq(s->nic.dcqcn.rp_byte_reset, 31250, "2,000,000 B in 64-byte units");
		scn_free(s);
		s = NULL;
		cr_assert_eq(scn_load(path, odd, 2, &s, &d), -EINVAL);
		cr_assert(strstr(d.msg, "not a whole number of 64-byte units"), "%s", d.msg);
		cr_assert_str_eq(d.path, "nic.dcqcn.rp_byte_reset");
	}

	{
		const char *bad[][2] = {
		    {"nic.dcqcn.np_min_time_between_cnps=1500ns",
		     "not a whole number of microseconds"},
		    {"nic.dcqcn.rp_min_rate=1500Kbps", "not a whole number of Mb/s"},
		    {"nic.dcqcn.rp_gd=11us", "rp_gd takes no unit"},
		    {"nic.dcqcn.rp_time_reset=5Mbps", "is not a time"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			s = NULL;
			cr_assert_eq(scn_load(path, &bad[i][0], 1, &s, &d), -EINVAL, "%s",
				     bad[i][0]);
			cr_assert(strstr(d.msg, bad[i][1]), "%s: %s", bad[i][0], d.msg);
			cr_assert(strstr(bad[i][0], d.path), "%s names %s", bad[i][0], d.path);
		}
	}
}

/* A scenario in the temporary folder whose workload.pod is tests/pod/@pod. */
static const char *pod_scenario(const char *name, const char *sonic, const char *pod)
{
	char cwd[1024], text[3000];

	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(text, sizeof(text),
		 "topology: {kind: star, hosts: 4}\n"
		 "switch: {sonic: %s/experiments/configs/%s}\n"
		 "workload: {kind: allreduce, size: 1MB, pod: %s/tests/pod/%s}\n",
		 cwd, sonic, cwd, pod);
	return put(name, text);
}

Test(configs, a_training_job_takes_its_dscp_from_the_configmap_line)
{
	struct ts_proc p;
	const char *s = pod_scenario("ptj.yaml", "config_db.json", "pytorchjob.yaml");

	/* NCCL_IB_TC=106 comes from the ConfigMap (line 11) through envFrom */
	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error DSCP_NOT_LOSSLESS "), "%s", p.out);
	cr_assert(has(p.out, "tests/pod/pytorchjob.yaml:11 NCCL_IB_TC=106 -> DSCP 26;"), "%s",
		  p.out);
	cr_assert(!has(p.out, "NCCL_ENV_"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "pod", "tests/pod/pytorchjob.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(has(p.out, "# from tests/pod/pytorchjob.yaml (PyTorchJob)\n"), "%s", p.out);
	cr_assert(has(p.out, "# NCCL_IB_TC=106    # line 47, container Master/pytorch, from "
			     "ConfigMap nccl-roce (envFrom) at line 11\n"),
		  "%s", p.out);
	cr_assert(has(p.out, "# NCCL_DEBUG=WARN    # line 51, container Master/pytorch\n"), "%s",
		  p.out);
	cr_assert(has(p.out, "# NCCL_IB_TIMEOUT=22    # line 78, container Worker/pytorch, from "
			     "ConfigMap nccl-roce, key ib-timeout at line 17\n"),
		  "%s", p.out);
	cr_assert(has(p.out, "workload:\n  dscp: 26    # NCCL_IB_TC 106"), "%s", p.out);
	cr_assert(has(p.out, "nic:\n  transport: {timeout: 22}"), "%s", p.out);
	ts_proc_free(&p);
}

Test(configs, check_warns_of_conflicts_and_of_configmaps_not_given)
{
	struct ts_proc p;
	const char *s = pod_scenario("conflict.yaml", "config_db-seed.json", "conflict-tc.yaml");

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "warning NCCL_ENV_CONFLICT "), "%s", p.out);
	cr_assert(has(p.out, "tests/pod/conflict-tc.yaml:41 NCCL_IB_TC=104: containers disagree: "
			     "Worker/pytorch gives 104 ("),
		  "%s", p.out);
	cr_assert(has(p.out, "tests/pod/conflict-tc.yaml:28); rocesim takes 104"), "%s", p.out);
	/* and CNP_WEIGHTED: the seed's queue 6 is DWRR */
	cr_assert(has(p.out, "0 errors, 3 warnings"), "%s", p.out);
	ts_proc_free(&p);

	s = pod_scenario("missing.yaml", "config_db-seed.json", "envfrom-missing.yaml");
	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "warning NCCL_ENV_NOT_GIVEN "), "%s", p.out);
	cr_assert(has(p.out, "tests/pod/envfrom-missing.yaml:37 envFrom configMapRef nccl-env: "),
		  "%s", p.out);
	cr_assert(has(p.out, "warning NCCL_ENV_SECRET "), "%s", p.out);
	cr_assert(has(p.out, "tests/pod/envfrom-missing.yaml:49 NCCL_SOCKET_IFNAME: comes from "
			     "Secret nccl-secrets"),
		  "%s", p.out);
	cr_assert(has(p.out, "0 errors, 6 warnings"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "pod", "tests/pod/envfrom-missing.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(has(p.out, "# NCCL_IB_HCA=    # line 43, container server (valueFrom ConfigMap "
			     "rdma, key hca: set at run time)\n"),
		  "%s", p.out);
	cr_assert(has(p.out, "# warning NCCL_ENV_SECRET tests/pod/envfrom-missing.yaml:39 envFrom "
			     "secretRef nccl-secrets: "),
		  "%s", p.out);
	ts_proc_free(&p);
}
