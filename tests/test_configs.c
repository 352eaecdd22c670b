/*
 * Real node configs end to end: check finds the seed's mistakes in its
 * SONiC config_db, mlnx_qos output, cc_params and Pod manifest, and is
 * silent on the fixed set; run refuses a cc_params entry the NIC would
 * refuse, naming its file and line; import prints what it understood.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("configs");
}

TestSuite(configs, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

/* A scenario in the temporary folder naming the configs of experiments/. */
static const char *scenario(const char *name, const char *sonic, const char *qos,
			    const char *cc, const char *pod)
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
	cr_assert(has(p.out, "config_db.json DSCP_TO_TC_MAP"), "%s", p.out);
	cr_assert(has(p.out, "26 -> TC 1"), "%s", p.out);
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
	static const char *const names[] = {"rp_gd 50", "rp_initial_alpha_value 1024",
					    "rp_dce_tcp_g 4", "rp_hai_rate 15", "np_cnp_enable",
					    "rp_enable", "rp_rf_reset_ratio"};
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
	cr_assert(has(p.err, "tests/bad/sonic/pool-wraps.json: BUFFER_POOL|ingress_lossless_pool|"
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
	/* loose under sanitizers; the release figure is in the README */
	cr_assert_lt(s, 10.0, "%.2f s", s);
	ts_proc_free(&p);
}

Test(configs, the_job_env_is_checked)
{
	static const char pod[] =
		"apiVersion: v1\n"
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
	fprintf(f, "topology: {kind: star, hosts: 4}\n"
		   "workload: {kind: allreduce, size: 4MB, pod: %s}\n", pod_file);
	fclose(f);
	ts_exec(&p, (const char *[]){"check", scn, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	cr_assert(has(p.out, "error NCCL_IB_DISABLED"), "%s", p.out);
	cr_assert(has(p.out, "warning NCCL_GID_INDEX"), "%s", p.out);
	ts_proc_free(&p);
}
