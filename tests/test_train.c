/*
 * Training iterations (models/train.h, train_plan.h) against hand-computed
 * times: a tensor-parallel job on one server (compute and NVLink
 * AllReduces along one stream), a data-parallel AllReduce hidden under
 * the backward pass (nothing exposed), the same one with nothing to hide
 * under (exposed in full), the 1F1B pipeline's order, and layouts that
 * cannot run.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "models/net.h"
#include "models/nvlink.h"
#include "models/train_plan.h"
#include "topologies/topo.h"

/* 450 GB/s a GPU and direction, no latency: a transfer is bytes / rate */
#define NVL_BPS 3600000000000ULL
#define US SIMTIME_US

struct job {
	struct evq *q;
	struct topo *t;
	struct net *n;
	struct train_plan plan;
	uint32_t gpus[64];
	struct train_stats st;
};

/* @j on a star of @hosts servers of @gpus GPUs each (100G links, 1 us
 * cables), run to its end; NVLink operations replayed (models/coll_memo.c)
 * until @replay (0: none). */
static void run_job_replay(struct job *x, struct train_job *j, uint32_t hosts, uint32_t gpus,
			   simtime_t replay)
{
	const struct topo_spec spec = {
	    .kind = TOPO_STAR,
	    .hosts = hosts,
	    .gpus_per_host = gpus,
	    .link = {.rate_bps = 100000000000ULL, .delay = US},
	};
	struct net_params p = {
	    .seed = 1,
	    .sw = {.buffer = 32000000,
		   .lossless = 1u << 3,
		   .cnp_priority = 6,
		   .pfc = {.enabled = 1, .xoff = 400000, .headroom = 200000, .quanta = 0xffff},
		   .sched = SW_SCHED_STRICT},
	    .nic = {.mtu = 4096,
		    .priority = 3,
		    .dscp = 26,
		    .pfc = 1u << 3,
		    .cc = NIC_CC_NONE,
		    .ack_every = 8,
		    .timeout = 1000 * US},
	    .nvlink = {.rate_bps = NVL_BPS, .latency = 0},
	};
	struct diag d = {0};
	uint32_t n = j->tp * j->pp * j->dp, rank, op;

	memset(x->gpus, 0, sizeof(x->gpus));
	cr_assert(x->q = evq_new());
	for (int i = 0; i < 64; i++)
		p.sw.dscp_to_tc[i] = (uint8_t)(i >> 3);
	cr_assert_eq(topo_generate(&spec, &x->t, &d), 0, "%s", d.msg);
	cr_assert_eq(train_place(TRAIN_PACKED, x->t, NULL, n, 1, x->gpus), 0);
	j->gpus = x->gpus;
	j->coll.topo = x->t;
	j->coll.dscp = 26;
	j->coll.priority = 3;
	cr_assert_eq(train_plan_build(j, &x->plan), 0);
	cr_assert_eq(train_plan_check(&x->plan, &rank, &op), 0, "rank %u op %u", rank, op);
	p.jobs = &x->plan;
	p.n_jobs = 1;
	cr_assert_eq(net_build(&p, x->t, x->q, &x->n, &d), 0, "%s", d.msg);
	x->n->ctx.replay_until = replay;
	for (;;) {
		x->n->ctx.halt = 0;
		if (!evq_run(x->q, SIMTIME_NEVER, UINT64_MAX, &x->n->ctx.halt))
			break;
		cr_assert_eq(x->n->ctx.error, 0);
	}
	cr_assert_eq(x->n->ctx.error, 0);
	cr_assert(net_done(x->n));
	train_stats(x->n->jobs[0], &x->st);
	cr_assert_eq(x->st.stalled, 0);
	cr_assert_eq(x->st.done, x->st.iterations);
}

static void run_job(struct job *x, struct train_job *j, uint32_t hosts, uint32_t gpus)
{
	run_job_replay(x, j, hosts, gpus, 0);
}

static void job_free(struct job *x)
{
	net_free(x->n);
	train_plan_free(&x->plan);
	topo_free(x->t);
	evq_free(x->q);
}

/* A ring collective's knobs: one channel, one piece a step (the chunk
 * holds a step's share), eight slots. */
static struct coll_spec ring_knobs(void)
{
	return (struct coll_spec){.channels = 1, .chunk = 64 << 20, .steps = 8, .qps = 1};
}

/*
 * One server, 4 GPUs, tp 4: per micro-batch 2 layers forward (10 us and a
 * 4 MiB AllReduce each) and backward (10 us, the AllReduce, 5 us), then
 * 3 us of update a layer. Over NVLink without latency, a one-channel ring
 * AllReduce of S on n GPUs takes 2 (n - 1) steps of S / n at the GPU's
 * rate: 6 x 1 MiB / 450 GB/s = 6 x 2,330,169 ps (each rounded up).
 */
Test(train, tensor_parallel_on_one_server_adds_compute_and_allreduces)
{
	const simtime_t step = simtime_tx(1 << 20, NVL_BPS), ar = 6 * step;
	const struct train_coll tp_ar = {
	    .group = TRAIN_G_TP, .op = COLL_ALLREDUCE, .bytes = 4 << 20};
	struct train_layer layers[2];
	struct train_job j = {.tp = 4,
			      .pp = 1,
			      .dp = 1,
			      .ep = 1,
			      .vpp = 1,
			      .ga = 2,
			      .layers = layers,
			      .n_layers = 2,
			      .coll = ring_knobs(),
			      .iterations = 1,
			      .tokens = 4096,
			      .samples = 2};
	struct job x;
	simtime_t want;

	for (int i = 0; i < 2; i++)
		layers[i] = (struct train_layer){.fwd = 10 * US,
						 .ig = 10 * US,
						 .wg = 5 * US,
						 .fwd_c = tp_ar,
						 .ig_c = tp_ar,
						 .update = 3 * US};
	cr_assert_eq(step, 2330169);
	run_job(&x, &j, 1, 4);
	want = 2 * (2 * (10 * US + ar) + 2 * (10 * US + ar + 5 * US)) + 2 * 3 * US;
	cr_assert_eq(x.st.ends[0] - x.st.start, want, "%llu ps, want %llu",
		     (unsigned long long)(x.st.ends[0] - x.st.start), (unsigned long long)want);
	cr_assert_eq(x.st.exposed[TRAIN_TP], 8 * ar);
	cr_assert_eq(x.st.exposed[TRAIN_DP], 0);
	cr_assert_eq(x.st.compute[TRAIN_FWD], 4 * 10 * US);
	cr_assert_eq(x.st.compute[TRAIN_IG], 4 * 10 * US);
	cr_assert_eq(x.st.compute[TRAIN_WG], 4 * 5 * US);
	cr_assert_eq(x.st.compute[TRAIN_UPDATE], 6 * US);
	cr_assert_eq(x.st.colls[TRAIN_TP], 8);
	cr_assert_eq(x.st.network_bytes, 0);
	job_free(&x);
}

/*
 * Two servers of one GPU, dp 2: the last layer's weight gradients (1 MB)
 * are reduced over the network while layer 0's backward computes for
 * 500 us, far longer than the AllReduce (well under 100 us at 100G): the
 * iteration is its compute alone, nothing exposed. Without that compute
 * after it, the whole AllReduce is exposed.
 */
Test(train, a_data_parallel_allreduce_under_backward_is_hidden)
{
	const struct train_coll dp_ar = {
	    .group = TRAIN_G_DP, .op = COLL_ALLREDUCE, .bytes = 1000000};
	struct train_layer layers[2] = {
	    {.fwd = 20 * US, .ig = 250 * US, .wg = 250 * US},
	    {.fwd = 20 * US, .ig = 10 * US, .wg = 10 * US, .wg_c = dp_ar},
	};
	struct train_job j = {.tp = 1,
			      .pp = 1,
			      .dp = 2,
			      .ep = 1,
			      .vpp = 1,
			      .ga = 1,
			      .layers = layers,
			      .n_layers = 2,
			      .coll = ring_knobs(),
			      .iterations = 1};
	struct job x;

	run_job(&x, &j, 2, 1);
	cr_assert_eq(x.st.ends[0] - x.st.start, 560 * US);
	cr_assert_eq(x.st.exposed[TRAIN_DP], 0);
	cr_assert_eq(x.st.colls[TRAIN_DP], 1);
	cr_assert_gt(x.st.network_bytes, 0);
	job_free(&x);

	/* the same gradients on layer 0: reduced after the last compute */
	layers[0].wg_c = dp_ar;
	layers[1].wg_c = (struct train_coll){0};
	run_job(&x, &j, 2, 1);
	cr_assert_gt(x.st.exposed[TRAIN_DP], 10 * US);
	cr_assert_eq(x.st.ends[0] - x.st.start, 560 * US + x.st.exposed[TRAIN_DP]);
	job_free(&x);
}

/*
 * pp 2 on two servers, ga 4, one layer a stage, 10 us forward, 20 us
 * backward, activations of 1 byte (their transfer is the fabric's
 * latency, a few us): 1F1B's critical path is the first micro-batch's
 * forward through both stages, then stage 1's backward and forward in
 * turn, then the last backwards. Its length is at least the compute of
 * one stage (4 x 30 us) plus the fill and drain (10 us + 20 us), and
 * the receives show up as pipeline waits.
 */
Test(train, a_pipeline_of_two_stages_runs_1f1b)
{
	struct train_layer layers[2] = {
	    {.fwd = 10 * US, .ig = 10 * US, .wg = 10 * US},
	    {.fwd = 10 * US, .ig = 10 * US, .wg = 10 * US},
	};
	struct train_job j = {.tp = 1,
			      .pp = 2,
			      .dp = 1,
			      .ep = 1,
			      .vpp = 1,
			      .ga = 4,
			      .layers = layers,
			      .n_layers = 2,
			      .pp_bytes = 1,
			      .coll = ring_knobs(),
			      .iterations = 2};
	struct job x;
	simtime_t it;

	run_job(&x, &j, 2, 1);
	it = x.st.ends[0] - x.st.start;
	cr_assert_geq(it, 4 * 30 * US + 30 * US);
	cr_assert_lt(it, 4 * 30 * US + 30 * US + 20 * US);
	cr_assert_gt(x.st.exposed[TRAIN_PP], 0);
	/* the second iteration repeats the first */
	cr_assert_lt(x.st.ends[1] - x.st.ends[0], it + 20 * US);
	cr_assert_geq(x.st.ends[1] - x.st.ends[0], it - 20 * US);
	job_free(&x);
}

Test(train, layouts_that_cannot_run_are_refused)
{
	struct train_layer layers[4] = {{0}};
	uint32_t gpus[16] = {0};
	struct train_job j = {.tp = 2,
			      .pp = 2,
			      .dp = 2,
			      .ep = 3,
			      .vpp = 1,
			      .ga = 4,
			      .layers = layers,
			      .n_layers = 4,
			      .gpus = gpus};
	struct train_plan p;

	cr_assert_eq(train_plan_build(&j, &p), -EINVAL); /* ep does not divide dp */
	j.ep = 1;
	j.vpp = 2;
	j.ga = 3;
	cr_assert_eq(train_plan_build(&j, &p), -EINVAL); /* interleaving: ga a multiple of pp */
	j.ga = 4;
	j.n_layers = 3;
	cr_assert_eq(train_plan_build(&j, &p), -EINVAL); /* fewer layers than chunks */
	j.n_layers = 4;
	cr_assert_eq(train_plan_build(&j, &p), 0);
	cr_assert_eq(p.n_ranks, 8);
	train_plan_free(&p);
}

/*
 * Every dimension at once on 2 servers of 4 GPUs: tp 2, pp 2 interleaved
 * (vpp 2), dp 2 with ep 2 (an all-to-all a layer, forward and backward),
 * ga 4: the plan's communicators agree and every rank ends both
 * iterations; each dimension's collectives ran.
 */
Test(train, every_dimension_interleaved_ends)
{
	const struct train_coll tp_ar = {
	    .group = TRAIN_G_TP, .op = COLL_ALLREDUCE, .bytes = 1 << 20};
	const struct train_coll ep_a2a = {
	    .group = TRAIN_G_EP, .op = COLL_ALLTOALL, .bytes = 1 << 20};
	const struct train_coll dp_rs = {
	    .group = TRAIN_G_DP, .op = COLL_REDUCESCATTER, .bytes = 2 << 20};
	struct train_layer layers[8];
	struct train_job j = {.tp = 2,
			      .pp = 2,
			      .dp = 2,
			      .ep = 2,
			      .vpp = 2,
			      .ga = 4,
			      .layers = layers,
			      .n_layers = 8,
			      .pp_bytes = 256 << 10,
			      .coll = ring_knobs(),
			      .iterations = 2};
	struct job x;

	for (int i = 0; i < 8; i++)
		layers[i] = (struct train_layer){.fwd = 5 * US,
						 .ig = 5 * US,
						 .wg = 5 * US,
						 .fwd_c = i % 2 ? ep_a2a : tp_ar,
						 .ig_c = i % 2 ? ep_a2a : tp_ar,
						 .wg_c = dp_rs,
						 .update = US};
	run_job(&x, &j, 2, 4);
	cr_assert_gt(x.st.colls[TRAIN_TP], 0);
	cr_assert_gt(x.st.colls[TRAIN_EP], 0);
	cr_assert_gt(x.st.colls[TRAIN_DP], 0);
	cr_assert_gt(x.st.colls[TRAIN_PP], 0);
	cr_assert_gt(x.st.ends[1], x.st.ends[0]);
	job_free(&x);
}

/*
 * @j run without replay and with it: every time and count the job and
 * the GPUs report is the same, to the picosecond and the byte. Returns
 * the operations replayed; its run is in *@out (job_free it).
 */
static uint64_t same_both_ways(struct train_job *j, uint32_t hosts, uint32_t gpus, struct job *out)
{
	struct job a;
	struct job *b = out;

	run_job_replay(&a, j, hosts, gpus, 0);
	run_job_replay(b, j, hosts, gpus, SIMTIME_NEVER);
	cr_assert_eq(a.n->ctx.replayed.ops, 0);
	cr_assert_eq(a.st.done, b->st.done);
	cr_assert_eq(a.st.start, b->st.start);
	for (uint32_t i = 0; i < a.st.done; i++)
		cr_assert_eq(a.st.ends[i], b->st.ends[i], "iteration %u: %llu ps, replayed %llu", i,
			     (unsigned long long)a.st.ends[i], (unsigned long long)b->st.ends[i]);
	cr_assert_eq(a.st.critical, b->st.critical);
	cr_assert_eq(memcmp(a.st.compute, b->st.compute, sizeof(a.st.compute)), 0);
	cr_assert_eq(memcmp(a.st.exposed, b->st.exposed, sizeof(a.st.exposed)), 0);
	cr_assert_eq(memcmp(a.st.colls, b->st.colls, sizeof(a.st.colls)), 0);
	cr_assert_eq(memcmp(a.st.coll_time, b->st.coll_time, sizeof(a.st.coll_time)), 0);
	cr_assert_eq(a.st.n_rows, b->st.n_rows);
	for (uint32_t i = 0; i < a.st.n_rows; i++) {
		cr_assert_eq(a.st.rows[i].count, b->st.rows[i].count);
		cr_assert_eq(a.st.rows[i].time, b->st.rows[i].time);
	}
	cr_assert_eq(a.st.network_bytes, b->st.network_bytes);
	cr_assert_eq(a.st.nvlink_bytes, b->st.nvlink_bytes);
	for (uint32_t g = 0; g < a.t->n_gpus; g++) {
		struct nvlink_gpu_stats x, y;

		nvlink_gpu_stats(a.n->nvlink, g, &x);
		nvlink_gpu_stats(b->n->nvlink, g, &y);
		cr_assert_eq(x.tx_bytes, y.tx_bytes, "GPU %u", g);
		cr_assert_eq(x.rx_bytes, y.rx_bytes, "GPU %u", g);
		cr_assert_eq(x.tx_transfers, y.tx_transfers, "GPU %u", g);
		cr_assert_eq(x.rx_transfers, y.rx_transfers, "GPU %u", g);
	}
	if (b->n->ctx.replayed.ops)
		cr_assert_lt(evq_fired(b->q), evq_fired(a.q));
	job_free(&a);
	return b->n->ctx.replayed.ops;
}

/*
 * The tensor-parallel job of the first test: its 8 AllReduces are alike,
 * every member joins each at its begin; the first is run and measured,
 * the 7 others replayed, and the iteration still takes the hand-computed
 * time.
 */
Test(train, an_operation_replayed_ends_as_it_ran)
{
	const simtime_t ar = 6 * simtime_tx(1 << 20, NVL_BPS);
	const struct train_coll tp_ar = {
	    .group = TRAIN_G_TP, .op = COLL_ALLREDUCE, .bytes = 4 << 20};
	struct train_layer layers[2];
	struct train_job j = {.tp = 4,
			      .pp = 1,
			      .dp = 1,
			      .ep = 1,
			      .vpp = 1,
			      .ga = 2,
			      .layers = layers,
			      .n_layers = 2,
			      .coll = ring_knobs(),
			      .iterations = 1,
			      .tokens = 4096,
			      .samples = 2};
	struct job x;

	for (int i = 0; i < 2; i++)
		layers[i] = (struct train_layer){.fwd = 10 * US,
						 .ig = 10 * US,
						 .wg = 5 * US,
						 .fwd_c = tp_ar,
						 .ig_c = tp_ar,
						 .update = 3 * US};
	cr_assert_eq(same_both_ways(&j, 1, 4, &x), 7);
	cr_assert_eq(x.st.ends[0] - x.st.start,
		     2 * (2 * (10 * US + ar) + 2 * (10 * US + ar + 5 * US)) + 2 * 3 * US);
	cr_assert_eq(x.n->ctx.replayed.time, 7 * ar);
	job_free(&x);
}

/* tp 2 x pp 2, ga 4, 2 iterations: 4 layers of 5 us each way, each with
 * a 1 MiB AllReduce forward and backward, in @layers (4). */
static struct train_job tp2_pp2(struct train_layer *layers)
{
	const struct train_coll tp_ar = {
	    .group = TRAIN_G_TP, .op = COLL_ALLREDUCE, .bytes = 1 << 20};

	for (int i = 0; i < 4; i++)
		layers[i] = (struct train_layer){.fwd = 5 * US,
						 .ig = 5 * US,
						 .wg = 5 * US,
						 .fwd_c = tp_ar,
						 .ig_c = tp_ar,
						 .update = US};
	return (struct train_job){.tp = 2,
				  .pp = 2,
				  .dp = 1,
				  .ep = 1,
				  .vpp = 1,
				  .ga = 4,
				  .layers = layers,
				  .n_layers = 4,
				  .pp_bytes = 256 << 10,
				  .coll = ring_knobs(),
				  .iterations = 2};
}

/*
 * tp2_pp2 on 2 servers of 2 GPUs: a stage's two GPUs receive their
 * activations over the network, one after the other, and join the
 * AllReduce that follows at different times; those operations run for
 * real. The ones in step are replayed; every count is the same.
 */
Test(train, a_member_joining_late_runs_the_operation_for_real)
{
	struct train_layer layers[4];
	struct train_job j = tp2_pp2(layers);
	struct job x;
	uint64_t n;

	n = same_both_ways(&j, 2, 2, &x);
	cr_assert_gt(n, 0);
	cr_assert_lt(n, x.st.colls[TRAIN_TP] - 2, "%llu of %llu replayed", (unsigned long long)n,
		     (unsigned long long)x.st.colls[TRAIN_TP]);
	job_free(&x);
}

/*
 * The same job on one server of 4 GPUs: the pipeline's sends go over
 * NVLink too, to and from the tensor-parallel groups' GPUs, and could
 * meet their transfers there: nothing is replayed.
 */
Test(train, operations_on_gpus_another_collective_uses_are_never_replayed)
{
	struct train_layer layers[4];
	struct train_job j = tp2_pp2(layers);
	struct job x;

	cr_assert_eq(same_both_ways(&j, 1, 4, &x), 0);
	job_free(&x);
}

/*
 * A pipeline of two stages inside one server (tp 1, pp 2, 2 GPUs): its
 * sends go over NVLink, and the communicator is alone on its GPUs. A
 * send's two members join when each reaches it, apart: each send runs
 * for real after its hold, and every count is the same.
 */
Test(train, pipeline_sends_over_nvlink_end_as_they_ran)
{
	struct train_layer layers[2] = {
	    {.fwd = 10 * US, .ig = 10 * US, .wg = 10 * US},
	    {.fwd = 10 * US, .ig = 10 * US, .wg = 10 * US},
	};
	struct train_job j = {.tp = 1,
			      .pp = 2,
			      .dp = 1,
			      .ep = 1,
			      .vpp = 1,
			      .ga = 8,
			      .layers = layers,
			      .n_layers = 2,
			      .pp_bytes = 1 << 20,
			      .coll = ring_knobs(),
			      .iterations = 2};
	struct job x;

	same_both_ways(&j, 1, 2, &x);
	cr_assert_gt(x.st.colls[TRAIN_PP], 0);
	job_free(&x);
}
