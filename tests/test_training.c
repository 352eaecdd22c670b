/*
 * Training jobs as scenarios give them (workload kinds training and
 * simai): the hand-computed iteration of a tensor-parallel job on one
 * NVLink server, through the scenario and results.json; a SimAI file read
 * as it is (SimAI's own example, aliyun/SimAI example/microAllReduce.txt,
 * in tests/simai/); two identical jobs on disjoint halves of a
 * non-blocking fabric as fast as one alone; nccl-tests' size sweep from
 * its command line, at the ring's bound; placement rail by hand; each
 * group's collectives on stdout in nccl-tests' columns; and the
 * refusals, each naming its file, line and key.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "sim/config/scenario.h"
#include "proc.h"
#include "support.h"

/* One server of 4 GPUs at 450 GB/s without latency: a one-channel ring
 * AllReduce of 4 MiB is 6 steps of 1 MiB, 6 x 2,330,169 ps. */
static const char tp_job[] =
    "name: tp\n"
    "topology: {kind: star, hosts: 1, gpus_per_host: 4, nvlink: 3600Gbps, "
    "nvlink_latency: 0us}\n"
    "workload:\n"
    "  kind: training\n"
    "  layout: {tp: 4, ga: 2}\n"
    "  channels: 1\n"
    "  chunk: 64MiB\n"
    "  seq_len: 2048\n"
    "  micro_batch: 2\n"
    "  layers:\n"
    "    - {repeat: 2, forward: 10us, input_grad: 10us, weight_grad: 5us, update: 3us,\n"
    "       forward_coll: {op: allreduce, group: tp, size: 4MiB},\n"
    "       input_grad_coll: {op: allreduce, group: tp, size: 4MiB}}\n";

Test(training, tensor_parallel_iteration_is_compute_plus_allreduces)
{
	const double ar_us = 6 * 2330169e-6;
	const double want = 2 * (2 * (10 + ar_us) + 2 * (10 + ar_us + 5)) + 2 * 3;
	struct sim sim;
	json_t *r = ts_run(tp_job, &sim);

	cr_assert_float_eq(ts_metric(r, "training.iteration_time_us"), want, 1e-3);
	cr_assert_float_eq(ts_metric(r, "training.exposed_comm_us.tp"), 8 * ar_us, 1e-3);
	cr_assert_float_eq(ts_metric(r, "training.exposed_comm_us.dp"), 0, 1e-9);
	cr_assert_float_eq(ts_metric(r, "training.compute_us.forward"), 40, 1e-9);
	/* micro_batch 2 x ga 2 x dp 1 samples of 2048 tokens an iteration */
	cr_assert_float_eq(ts_metric(r, "training.samples_per_s"), 4 / (want * 1e-6), 0.01);
	cr_assert_float_eq(ts_metric(r, "training.tokens_per_s"), 4 * 2048 / (want * 1e-6), 1);
	cr_assert_eq(ts_metric(r, "training.network_bytes"), 0);
	cr_assert_eq(json_array_size(json_object_get(r, "jobs")), 1);
	/* the tensor group's 8 AllReduces, each 6 NVLink steps */
	cr_assert_eq(ts_metric(r, "training.collectives.tp.count"), 8);
	cr_assert_eq(ts_metric(r, "training.collectives.tp.bytes"), 8 * (4 << 20));
	cr_assert_float_eq(ts_metric(r, "training.collectives.tp.mean_time_us"), ar_us, 1e-3);
	/* busbw: algbw x 2 (n - 1) / n, nccl-tests' AllReduce factor: the NVLink's 450 GB/s */
	cr_assert_float_eq(ts_metric(r, "training.collectives.tp.busbw_GBps"),
			   1.5 * (4 << 20) / ar_us / 1e3, 0.01);
	cr_assert_float_eq(ts_metric(r, "training.collectives.tp.busbw_GBps"), 450, 0.01);
	{
		const json_t *rows = json_object_get(
		    json_object_get(
			json_object_get(json_object_get(json_object_get(r, "summary"), "training"),
					"collectives"),
			"tp"),
		    "rows");
		const json_t *row = json_array_get(rows, 0);

		cr_assert_eq(json_array_size(rows), 1);
		cr_assert_str_eq(json_string_value(json_object_get(row, "op")), "allreduce");
		cr_assert_eq(json_integer_value(json_object_get(row, "size")), 4 << 20);
		cr_assert_eq(json_integer_value(json_object_get(row, "calls")), 8);
		cr_assert_eq(json_integer_value(json_object_get(row, "ranks")), 4);
		cr_assert_float_eq(json_number_value(json_object_get(row, "busbw_GBps")), 450,
				   0.01);
	}
	json_decref(r);
	sim_fini(&sim);
}

/*
 * SimAI's microAllReduce.txt: tp 8 over all 8 GPUs, two layers of 556 us
 * forward compute, each then an AllReduce of 16 MiB and 64 MiB in the
 * tensor group; on 8 hosts at 100G. A ring AllReduce of S over n ranks
 * moves 2 (n - 1) / n x S from each rank: at line rate that alone is
 * 1.75 x 80 MiB x 8 / 100 Gb/s = 11,744 us of exposed tensor-parallel time.
 */
Test(training, a_simai_file_is_read_as_it_is)
{
	char yaml[1024];
	struct sim sim;
	json_t *r;

	snprintf(yaml, sizeof(yaml),
		 "name: simai-micro\n"
		 "topology: {kind: star, hosts: 8, link: {rate: 100Gbps, cable: 2m}}\n"
		 "workload: {kind: simai, file: %s}\n",
		 ts_src("tests/simai/microAllReduce.txt"));
	r = ts_run(yaml, &sim);
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(json_object_get(r, "summary"), "training"), "source")),
			 "simai");
	cr_assert_eq(ts_metric(r, "training.layout.tp"), 8);
	cr_assert_eq(ts_metric(r, "training.layout.dp"), 1);
	cr_assert_gt(ts_metric(r, "training.exposed_comm_us.tp"), 1.75 * 83886080 * 8 / 100e3);
	/* within 10% of the line-rate bound: the ring runs near line rate */
	cr_assert_lt(ts_metric(r, "training.exposed_comm_us.tp"),
		     1.1 * 1.75 * 83886080 * 8 / 100e3);
	cr_assert_float_eq(ts_metric(r, "training.compute_us.forward"), 2 * 556, 1e-9);
	cr_assert_gt(ts_metric(r, "training.network_bytes"), 0);
	json_decref(r);
	sim_fini(&sim);
}

/*
 * A data-parallel job of 4 ranks alone on a leaf-spine of 8 hosts (2
 * leaves, 2 spines at twice the host rate: non-blocking), and two of them
 * on the two leaves' halves: each runs as fast as alone.
 */
Test(training, two_jobs_on_disjoint_halves_run_as_fast_as_one)
{
	static const char fabric[] =
	    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4,\n"
	    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 200Gbps, cable: 10m}}\n";
	static const char job[] =
	    "  - kind: training\n"
	    "    layout: {dp: 4}\n"
	    "    layers:\n"
	    "      - {forward: 50us, input_grad: 50us, weight_grad: 50us,\n"
	    "         weight_grad_coll: {op: allreduce, group: dp, size: 8MB}}\n";
	char yaml[2048];
	struct sim sim;
	json_t *one, *two;
	double alone;

	snprintf(yaml, sizeof(yaml), "name: one\n%sworkload:\n%s", fabric, job);
	one = ts_run(yaml, &sim);
	alone = ts_metric(one, "training.iteration_time_us");
	json_decref(one);
	sim_fini(&sim);
	snprintf(yaml, sizeof(yaml), "name: two\n%sworkload:\n%s%s", fabric, job, job);
	two = ts_run(yaml, &sim);
	cr_assert_eq(json_array_size(json_object_get(two, "jobs")), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *t =
		    json_object_get(json_array_get(json_object_get(two, "jobs"), i), "training");

		cr_assert_float_eq(json_number_value(json_object_get(t, "iteration_time_us")),
				   alone, alone * 0.01, "job %zu", i);
	}
	cr_assert_gt(alone, 150);
	json_decref(two);
	sim_fini(&sim);
}

/* A scenario's load error: its key path and message. */
static void refused(const char *yaml, const char *path, const char *msg)
{
	struct scenario *s = NULL;
	struct sim sim;
	struct diag d = {0};
	int err = scn_load_text("t.yaml", yaml, strlen(yaml), NULL, 0, &s, &d);

	if (!err) {
		err = sim_init(&sim, s, &d);
		sim_fini(&sim); /* it owns the scenario, built or not */
	}
	cr_assert_eq(err, -EINVAL, "%s was taken", path);
	cr_assert_str_eq(d.path, path);
	cr_assert(strstr(d.msg, msg), "%s: \"%s\" lacks \"%s\"", path, d.msg, msg);
	cr_assert_gt(d.line, 0, "%s: no line", path);
}

Test(training, bad_jobs_are_refused_at_their_key)
{
	static const char top[] =
	    "topology: {kind: star, hosts: 2, gpus_per_host: 4}\nworkload:\n  kind: training\n";
	char y[1024];

	snprintf(y, sizeof(y), "%s  layout: {tp: 0}\n  layers: [{forward: 1us}]\n", top);
	refused(y, "workload.layout.tp", "");
	snprintf(y, sizeof(y), "%s  layout: {tp: 2, pp: 2, dp: 4}\n  layers: [{forward: 1us}]\n",
		 top);
	refused(y, "workload.layout", "16 ranks");
	snprintf(y, sizeof(y),
		 "%s  layout: {tp: 1048576, pp: 1048576}\n  layers: [{forward: 1us}]\n", top);
	refused(y, "workload.layout", "more than the fabric's 8 GPUs");
	snprintf(y, sizeof(y), "%s  layout: {tp: 1024, dp: 1048576}\n  layers: [{forward: 1us}]\n",
		 top);
	refused(y, "workload.layout", "more than the fabric's 8 GPUs");
	snprintf(y, sizeof(y), "%s  layout: {pp: 2}\n  layers: [{forward: 1us}]\n", top);
	refused(y, "workload.layout", "fewer layers than chunks");
	snprintf(y, sizeof(y),
		 "%s  layers: [{forward_coll: {op: alltoall, group: tp, size: 1MB}}]\n", top);
	refused(y, "workload.layers[0].forward_coll.group", "ep or dp_ep");
	snprintf(y, sizeof(y), "%s  layers: [{forward_coll: {op: allreduce, group: tp}}]\n", top);
	refused(y, "workload.layers[0].forward_coll.size", "missing");
	snprintf(y, sizeof(y), "%s  layers: [{forward: 3 parsecs}]\n", top);
	refused(y, "workload.layers[0].forward", "");
	snprintf(y, sizeof(y), "%s  placement: anywhere\n  layers: [{forward: 1us}]\n", top);
	refused(y, "workload.placement", "packed, spread, random, rail or a list");
	snprintf(
	    y, sizeof(y),
	    "%s  layout: {dp: 2}\n  placement: [h0/gpu0, h0/gpu0]\n  layers: [{forward: 1us}]\n",
	    top);
	refused(y, "workload.placement[1]", "already rank 0");
	snprintf(y, sizeof(y),
		 "%s  layout: {dp: 2}\n  placement: [h0]\n  layers: [{forward: 1us}]\n", top);
	refused(y, "workload.placement", "more GPUs than");
	snprintf(y, sizeof(y), "%s  size: 1MB\n  layers: [{forward: 1us}]\n", top);
	refused(y, "workload.size", "does not apply to training");
	snprintf(y, sizeof(y), "%s", top);
	refused(y, "workload.layers", "missing");
	refused("topology: {kind: star, hosts: 2}\nworkload: {kind: simai}\n", "workload.file",
		"missing");
	refused("topology: {kind: star, hosts: 2}\nworkload: {kind: allreduce, size: 1MB, "
		"layout: {tp: 2}}\n",
		"workload.layout", "does not apply to allreduce");
}

/* The GPUs placement gives the ranks of a job on 4 servers of 4 GPUs, into
 * @gpus (@n of them). */
static void placed(const char *layout, const char *placement, uint32_t *gpus, uint32_t n)
{
	struct scenario *s = NULL;
	struct sim sim;
	struct diag d = {0};
	char y[512];

	snprintf(y, sizeof(y),
		 "topology: {kind: star, hosts: 4, gpus_per_host: 4}\n"
		 "workload:\n  kind: training\n  layout: %s\n  placement: %s\n"
		 "  layers: [{repeat: 4, forward: 1us}]\n",
		 layout, placement);
	cr_assert_eq(scn_load_text("t.yaml", y, strlen(y), NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(sim_init(&sim, s, &d), 0, "%s", d.msg);
	cr_assert_eq(sim.scn->jobs[0].job.tp * sim.scn->jobs[0].job.pp * sim.scn->jobs[0].job.dp,
		     n);
	memcpy(gpus, sim.scn->jobs[0].gpus, n * sizeof(*gpus));
	sim_fini(&sim);
}

/*
 * rail: rank = t + tp (d + dp p). tp 2 on 4-GPU servers: a server holds
 * the two stages of one data index (stage p on GPUs 2p, 2p + 1), so the
 * data-parallel group of (t, p) is GPU 2p + t of every server, one rail.
 * With pp 4 the second block of two stages (servers h2, h3) takes the
 * slots in reverse: stage 1 (h0/gpu2) hands over to stage 2 on h2/gpu2,
 * the same rail. With tp 4 it is packed.
 */
Test(training, rail_placement_keeps_data_groups_and_stage_pairs_on_a_rail)
{
	static const uint32_t pp2[8] = {0, 1, 4, 5, 2, 3, 6, 7};
	static const uint32_t pp4[16] = {0, 1, 4, 5, 2, 3, 6, 7, 10, 11, 14, 15, 8, 9, 12, 13};
	uint32_t g[16];

	placed("{tp: 2, pp: 2, dp: 2}", "rail", g, 8);
	cr_assert_arr_eq(g, pp2, sizeof(pp2));
	placed("{tp: 2, pp: 2, dp: 2}", "packed", g, 8);
	for (uint32_t r = 0; r < 8; r++)
		cr_assert_eq(g[r], r);
	placed("{tp: 2, pp: 4, dp: 2}", "rail", g, 16);
	cr_assert_arr_eq(g, pp4, sizeof(pp4));
	for (uint32_t r = 0; r < 16; r++) /* data group (t, p): one local GPU */
		cr_assert_eq(g[r] % 4, g[r % 2 + 4 * (r / 4)] % 4, "rank %u", r);
	placed("{tp: 4, pp: 2, dp: 2}", "rail", g, 16);
	for (uint32_t r = 0; r < 16; r++)
		cr_assert_eq(g[r], r);
}

Test(training, rail_placement_that_cannot_be_made_is_refused)
{
	static const char top[] = "topology: {kind: star, hosts: 4, gpus_per_host: 4}\n";
	char y[1024];

	snprintf(y, sizeof(y),
		 "%sworkload:\n  kind: training\n  layout: {tp: 2, dp: 4}\n  placement: rail\n"
		 "  layers: [{forward: 1us}]\n",
		 top);
	refused(y, "workload.placement", "pp 1 is not a multiple of 2");
	snprintf(y, sizeof(y),
		 "%sworkload:\n  kind: training\n  layout: {tp: 3, dp: 1}\n  placement: rail\n"
		 "  layers: [{forward: 1us}]\n",
		 top);
	refused(y, "workload.placement", "one must divide the other");
	snprintf(y, sizeof(y),
		 "%sworkload:\n  - {kind: training, layout: {dp: 2}, layers: [{forward: 1us}]}\n"
		 "  - {kind: training, layout: {tp: 4, dp: 4}, placement: rail,\n"
		 "     layers: [{forward: 1us}]}\n",
		 top);
	refused(y, "workload[1].placement",
		"need 4 whole servers of 4 GPUs, fewer are free of "
		"the jobs before it");
}

/*
 * nccl_tests: all_reduce_perf's size sweep on 8 GPUs, one a host of a
 * 100G star. For large sizes a ring AllReduce's busbw is the link's rate
 * times the payload's share of the wire (4,096 B of a 4,178 B frame with
 * its headers, preamble and gap): 12.5 GB/s x 4096 / 4178 = 12.25 GB/s.
 */
Test(training, nccl_tests_sweep_reaches_the_ring_bound)
{
	static const char yaml[] =
	    "name: nccl\n"
	    "topology: {kind: star, hosts: 8, link: {rate: 100Gbps, cable: 2m}}\n"
	    "nic: {mtu: 4096}\n"
	    "workload: {kind: nccl_tests, command: \"all_reduce_perf -b 1M -e 64M -f 4 -n 2 "
	    "-w 1 -g 1\"}\n";
	const double bound = 12.5 * 4096 / 4178;
	struct sim sim;
	json_t *r = ts_run(yaml, &sim), *t, *rows, *last;

	t = json_object_get(json_object_get(r, "summary"), "nccl_tests");
	cr_assert_not_null(t);
	rows = json_object_get(t, "rows");
	cr_assert_eq(json_array_size(rows), 4); /* 1, 4, 16 and 64 MiB */
	last = json_array_get(rows, 3);
	cr_assert_eq(json_integer_value(json_object_get(last, "size")), 64 << 20);
	cr_assert_eq(json_integer_value(json_object_get(last, "count")), 16 << 20);
	cr_assert_float_eq(json_number_value(json_object_get(last, "busbw_GBps")), bound,
			   bound * 0.01, "busbw %.3f against the ring bound %.3f",
			   json_number_value(json_object_get(last, "busbw_GBps")), bound);
	/* busbw = algbw x 2 (n - 1) / n */
	cr_assert_float_eq(json_number_value(json_object_get(last, "busbw_GBps")),
			   json_number_value(json_object_get(last, "algbw_GBps")) * 14 / 8, 1e-9);
	cr_assert_str_eq(json_string_value(json_object_get(t, "collective")), "all_reduce");
	json_decref(r);
	sim_fini(&sim);
}

Test(training, nccl_tests_commands_that_cannot_run_are_refused)
{
	refused("topology: {kind: star, hosts: 4}\n"
		"workload: {kind: nccl_tests, command: \"broadcast_perf -b 8 -e 1M\"}\n",
		"workload.command", "broadcast");
	refused("topology: {kind: star, hosts: 4}\n"
		"workload: {kind: nccl_tests, command: \"all_reduce_perf -q 3\"}\n",
		"workload.command", "");
	refused("topology: {kind: star, hosts: 4}\nworkload: {kind: nccl_tests}\n",
		"workload.command", "missing");
}

/* A new folder from the template @dir (its XXXXXX replaced) holding
 * scenario @yaml, whose path goes into @path; rm -rf it after. */
static void scenario_in_tmp(char *dir, const char *yaml, char *path, size_t size)
{
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, size, "%s/scenario.yaml", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs(yaml, f);
	cr_assert_eq(fclose(f), 0);
}

/*
 * Two data-parallel jobs interleaved over the two leaves of a 2:1
 * oversubscribed leaf-spine (4 hosts at 100G a leaf, one 200G uplink):
 * each ring crosses the uplink at every hop, so the two jobs share it and
 * `rocesim run --alone` reports each slowed against its run alone.
 */
Test(training, interleaved_jobs_on_an_oversubscribed_fabric_interfere)
{
	static const char yaml[] =
	    "name: two-jobs\n"
	    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4,\n"
	    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 200Gbps, cable: 10m}}\n"
	    "workload:\n"
	    "  - {kind: training, layout: {dp: 4}, placement: [h0, h4, h1, h5],\n"
	    "     layers: [{forward: 50us, input_grad: 50us, weight_grad: 50us,\n"
	    "               weight_grad_coll: {op: allreduce, group: dp, size: 8MB}}]}\n"
	    "  - {kind: training, layout: {dp: 4}, placement: [h2, h6, h3, h7],\n"
	    "     layers: [{forward: 50us, input_grad: 50us, weight_grad: 50us,\n"
	    "               weight_grad_coll: {op: allreduce, group: dp, size: 8MB}}]}\n";
	char dir[] = "/tmp/rocesim-training-XXXXXX", cmd[1024], path[512], *out = NULL;
	json_error_t e;
	json_t *r, *jobs;

	scenario_in_tmp(dir, yaml, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "\"$ROCESIM_BIN\" run %s -o %s/out --alone", path, dir);
	cr_assert_eq(ts_sh(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "beside the other jobs"), "%s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/out/results.json", dir);
	cr_assert_not_null(r = json_load_file(path, 0, &e), "%s", e.text);
	jobs = json_object_get(r, "jobs");
	cr_assert_eq(json_array_size(jobs), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *t = json_object_get(json_array_get(jobs, i), "training");
		double it = json_number_value(json_object_get(t, "iteration_time_us"));
		double alone = json_number_value(json_object_get(t, "alone_iteration_time_us"));

		cr_assert_gt(alone, 150, "job %zu alone: %.3f us", i, alone);
		cr_assert_gt(json_number_value(json_object_get(t, "interference")), 0.1,
			     "job %zu: %.3f us beside, %.3f us alone", i, it, alone);
	}
	json_decref(r);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(ts_sh(cmd, NULL, NULL), 0);
}

/*
 * Compute from the model and the GPU: 2 layers of hidden 1024 and MLP
 * 4096, sequence 1024, micro-batch 1, at 100 TFLOP/s x 50%. Attention:
 * 8 b s h^2 + 4 b s^2 h = 8.59e9 + 4.29e9 operations forward and input
 * gradient, 8.59e9 weight gradient; MLP: 4 b s h f = 1.72e10 each phase.
 */
Test(training, compute_from_the_model_and_the_gpu)
{
	static const char yaml[] =
	    "name: model\n"
	    "topology: {kind: star, hosts: 2}\n"
	    "workload: {kind: training, seq_len: 1024, model: {layers: 2, hidden: 1024, ffn: "
	    "4096},\n"
	    "           gpu: {flops: 100TFLOPS, efficiency: 50%}, layout: {dp: 1}}\n";
	const double h = 1024, s = 1024, f = 4096, rate = 50e12;
	const double attn = (8 * s * h * h + 4 * s * s * h) / rate * 1e6;
	const double attn_w = 8 * s * h * h / rate * 1e6, mlp = 4 * s * h * f / rate * 1e6;
	const double want = 2 * (2 * attn + attn_w + 3 * mlp);
	struct sim sim;
	json_t *r = ts_run(yaml, &sim);

	cr_assert_float_eq(ts_metric(r, "training.iteration_time_us"), want, 1e-3);
	cr_assert_float_eq(ts_metric(r, "training.tokens_per_s"), 1024 / (want * 1e-6), 1);
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(json_object_get(r, "summary"), "training"), "source")),
			 "model");
	json_decref(r);
	sim_fini(&sim);
	refused("topology: {kind: star, hosts: 2}\n"
		"workload: {kind: training, seq_len: 8, model: {layers: 2, hidden: 64},\n"
		"           gpu: {flops: fast, efficiency: 50%}}\n",
		"workload.gpu.flops", "is not FLOP/s");
	refused("topology: {kind: star, hosts: 2}\n"
		"workload: {kind: training, model: {layers: 2, hidden: 64},\n"
		"           gpu: {flops: 1T, efficiency: 50%}}\n",
		"workload.seq_len", "missing");
}

/*
 * Chakra traces read as they are: ASTRA-sim's example of a 1 MiB
 * All-Reduce on 4 ranks (tests/chakra/all_reduce_4npus, one .et a rank),
 * on 4 hosts at 100G. A ring AllReduce moves 2 (n - 1) / n of it from
 * each rank: at line rate 1.5 x 1 MiB x 8 / 100 Gb/s = 125.8 us at least.
 */
Test(training, chakra_traces_are_read_as_they_are)
{
	char yaml[1024];
	struct sim sim;
	json_t *r;
	double it;

	snprintf(yaml, sizeof(yaml),
		 "name: chakra\n"
		 "topology: {kind: star, hosts: 4, link: {rate: 100Gbps, cable: 2m}}\n"
		 "workload: {kind: chakra, dir: %s}\n",
		 ts_src("tests/chakra/all_reduce_4npus"));
	r = ts_run(yaml, &sim);
	it = ts_metric(r, "training.iteration_time_us");
	cr_assert_gt(it, 1.5 * 1048576 * 8 / 100e3);
	cr_assert_lt(it, 1.1 * 1.5 * 1048576 * 8 / 100e3);
	cr_assert_eq(ts_metric(r, "training.collectives.dp.count"), 1);
	cr_assert_eq(ts_metric(r, "training.collectives.dp.bytes"), 1048576);
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(json_object_get(r, "summary"), "training"), "source")),
			 "chakra");
	json_decref(r);
	sim_fini(&sim);
	refused("topology: {kind: star, hosts: 4}\nworkload: {kind: chakra}\n", "workload.dir",
		"missing");
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 2}\nworkload: {kind: chakra, dir: %s}\n",
		 ts_src("tests/chakra/all_reduce_4npus"));
	refused(yaml, "workload.layout", "4 ranks");
	refused("topology: {kind: star, hosts: 4}\n"
		"workload: {kind: chakra, dir: x, layout: {tp: 2}}\n",
		"workload.layout", "does not apply to chakra");
}

/*
 * output.timeline: the tensor-parallel job's timeline.csv has, per rank,
 * 13 computes (2 micro-batches of 2 layers' forward, input and weight
 * gradients, then the update) and 8 waits for its AllReduces: 84 rows;
 * `rocesim plot` draws timeline.png from it.
 */
/*
 * stdout prints each group kind's collectives in nccl-tests' columns
 * (nccl-tests src/common.cu, out of place): tp_job's 4 MiB AllReduce over
 * 4 GPUs, 6 x 2,330,169 ps = 13.98 us, algbw 4,194,304 B / 13.98 us =
 * 300.00 GB/s, busbw x 1.5 = 450.00 GB/s (the NVLink); count in floats.
 */
Test(training, stdout_prints_each_group_in_nccl_tests_columns)
{
	char dir[] = "/tmp/rocesim-ncclcols-XXXXXX", cmd[1024], path[512], *out = NULL;

	scenario_in_tmp(dir, tp_job, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "\"$ROCESIM_BIN\" run %s -o %s/out", path, dir);
	cr_assert_eq(ts_sh(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "#       size         count      type   redop    root     time   "
			      "algbw   busbw  #wrong\n"),
		  "%s", out);
	cr_assert(strstr(out, "#        (B)    (elements)                               (us)  "
			      "(GB/s)  (GB/s)        \n"),
		  "%s", out);
	cr_assert(strstr(out, "# tp all_reduce, 4 ranks a group\n"
			      "     4194304       1048576     float     sum      -1    13.98  "
			      "300.00  450.00     N/A\n"),
		  "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(ts_sh(cmd, NULL, NULL), 0);
}

Test(training, the_timeline_has_every_span_and_is_drawn)
{
	char dir[] = "/tmp/rocesim-timeline-XXXXXX", cmd[1024], path[512], *out = NULL;
	size_t rows = 0, waits = 0;
	char line[256];
	FILE *f;

	scenario_in_tmp(dir, tp_job, path, sizeof(path));
	snprintf(cmd, sizeof(cmd),
		 "\"$ROCESIM_BIN\" run %s -o %s/out -q --set output.timeline=true", path, dir);
	cr_assert_eq(ts_sh(cmd, NULL, NULL), 0);
	snprintf(path, sizeof(path), "%s/out/timeline.csv", dir);
	cr_assert_not_null(f = fopen(path, "r"));
	cr_assert_not_null(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "job,rank,start_us,end_us,what\n");
	cr_assert_not_null(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "0,0,0.000000,10.000000,forward\n");
	rows = 1;
	while (fgets(line, sizeof(line), f)) {
		rows++;
		waits += strstr(line, ",wait_tp") != NULL;
	}
	fclose(f);
	cr_assert_eq(rows, 84);
	cr_assert_eq(waits, 32);
	snprintf(cmd, sizeof(cmd), "\"$ROCESIM_BIN\" plot %s/out", dir);
	cr_assert_eq(ts_sh(cmd, &out, NULL), 0, "%s", out ? out : "");
	free(out);
	snprintf(path, sizeof(path), "%s/out/timeline.png", dir);
	cr_assert_eq(access(path, F_OK), 0, "no timeline.png");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(ts_sh(cmd, NULL, NULL), 0);
}
