/*
 * Scenario checks of the workload (a mapping) or workloads (a list):
 * (scenario_check.c takes the sections in turn): the keys each kind uses,
 * the collectives, and a poisson workload's load and CDF file (read here).
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/cdf.h"
#include "sim/readers/nccl_tests.h"
#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

/* ---- workloads --------------------------------------------------------------- */

/* The kinds a key applies to (check_unused_keys). */
#define WK_COLL 1    /* collectives */
#define WK_PATTERN 2 /* flows, incast, permutation */
#define WK_POISSON 4
#define WK_HPCC 8
#define WK_TRAIN 16 /* training, simai */
#define WK_SIMAI 32
#define WK_LAYERS 64  /* training: its layers given */
#define WK_NCCL 128   /* nccl_tests */
#define WK_LAYOUT 256 /* training, simai: a layout */
#define WK_CHAKRA 512

/* Keys of a collective that a flow pattern does not take, and back. */
static int check_unused_keys(const struct loader *l, const struct raw_workload *r,
			     const char *prefix, int kind)
{
	const struct {
		const char *key;
		const void *v;
		int kinds; /* WK_* that take it */
	} keys[] = {
	    {"channels", r->channels, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"chunk", r->chunk, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"iterations", r->iterations, WK_COLL | WK_TRAIN},
	    {"late", r->late, WK_COLL},
	    {"steps", r->steps, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"hca", r->hca, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"algorithm", r->algorithm, WK_COLL},
	    {"step_latency", r->step_latency, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"senders", r->senders, WK_PATTERN},
	    {"receiver", r->receiver, WK_PATTERN},
	    {"flows", r->flows, WK_PATTERN},
	    {"size", r->size, WK_COLL | WK_PATTERN},
	    {"cdf", r->cdf, WK_POISSON},
	    {"load", r->load, WK_POISSON},
	    {"duration", r->duration, WK_POISSON},
	    {"file", r->file, WK_HPCC | WK_SIMAI},
	    {"generator", r->generator, WK_POISSON},
	    {"qps_per_connection", r->qps_per_connection, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"split_data_on_qps", r->split_data_on_qps, WK_COLL | WK_TRAIN | WK_NCCL},
	    {"layout", r->layout, WK_LAYOUT},
	    {"pp_size", r->pp_size, WK_LAYOUT},
	    {"micro_batch", r->micro_batch, WK_TRAIN},
	    {"seq_len", r->seq_len, WK_TRAIN},
	    {"layers", r->layers, WK_LAYERS},
	    {"command", r->command, WK_NCCL},
	    {"dir", r->dir, WK_CHAKRA},
	    {"model", r->model, WK_LAYERS},
	    {"gpu", r->gpu, WK_LAYERS},
	};
	int is = SCN_WL_IS_COLL(kind)	     ? WK_COLL
		 : kind == SCN_WL_TRAINING   ? WK_TRAIN | WK_LAYERS | WK_LAYOUT
		 : kind == SCN_WL_SIMAI	     ? WK_TRAIN | WK_SIMAI | WK_LAYOUT
		 : kind == SCN_WL_CHAKRA     ? WK_TRAIN | WK_CHAKRA
		 : kind == SCN_WL_NCCL_TESTS ? WK_NCCL
		 : kind == SCN_WL_POISSON    ? WK_POISSON
		 : kind == SCN_WL_HPCC	     ? WK_HPCC
					     : WK_PATTERN;
	char p[200];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].v && !(keys[i].kinds & is))
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, keys[i].key),
					 "does not apply to %s", scn__wl_kinds[kind].str);
	scn__wpath(p, sizeof(p), prefix, "hosts");
	if (is != WK_POISSON && ydoc_find(l->raw->doc, p))
		return scn__fail(l, p, "does not apply to %s%s", scn__wl_kinds[kind].str,
				 is == WK_COLL ? " (a collective takes ranks)" : "");
	scn__wpath(p, sizeof(p), prefix, "placement");
	if (!(is & WK_TRAIN) && ydoc_find(l->raw->doc, p))
		return scn__fail(l, p, "does not apply to %s", scn__wl_kinds[kind].str);
	scn__wpath(p, sizeof(p), prefix, "ranks");
	if ((is & WK_NCCL) && ydoc_find(l->raw->doc, p))
		return scn__fail(l, p,
				 "does not apply to nccl_tests (every GPU of the fabric is a "
				 "rank)");
	if ((is & WK_TRAIN) && ydoc_find(l->raw->doc, p))
		return scn__fail(l, p, "does not apply to %s (its ranks are placed: placement)",
				 scn__wl_kinds[kind].str);
	return 0;
}

/* A poisson workload: its load, duration and CDF file, read into @s->traffic. */
static int check_poisson(const struct loader *l, const struct raw_workload *r, const char *prefix,
			 struct scenario *s)
{
	struct scn_traffic *tr;
	struct diag d = {0};
	char p[200];
	double load = 0;
	simtime_t duration;
	int err;

	if (!r->cdf)
		return scn__fail(
		    l, scn__wpath(p, sizeof(p), prefix, "cdf"),
		    "missing: a flow-size CDF file (e.g. experiments/traffic/websearch.cdf)");
	if (!r->load)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "load"),
				 "missing: the share of each host's link to offer (e.g. 30%%)");
	if (units_fraction(r->load, &load) || !(load > 0) || load > 1)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "load"),
				 "\"%s\" is not a load above 0 and at most 100%% (e.g. 30%%, 0.3)",
				 r->load);
	if (!r->duration)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "duration"),
				 "missing: how long flows keep arriving (e.g. 5ms)");
	if ((err = scn__get_time(l, scn__wpath(p, sizeof(p), prefix, "duration"), r->duration, 0, 1,
				 &duration)))
		return err;
	if (r->generator && strcmp(r->generator, "poisson") && strcmp(r->generator, "traffic_gen"))
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "generator"),
				 "\"%s\" is not poisson or traffic_gen", r->generator);
	tr = realloc(s->traffic, (s->n_traffic + 1) * sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	s->traffic = tr;
	tr = &tr[s->n_traffic];
	memset(tr, 0, sizeof(*tr));
	snprintf(tr->workload, sizeof(tr->workload), "%s", prefix);
	scn__wpath(p, sizeof(p), prefix, "cdf");
	if (!(tr->file = scn__config_path(l, p, r->cdf)))
		return -ENOMEM;
	s->n_traffic++; /* freed with the scenario from here on */
	tr->load = load;
	tr->duration = duration;
	tr->drop_last = r->generator && !strcmp(r->generator, "traffic_gen");
	err = cdf_read(tr->file, p, &tr->cdf, &d);
	if (err == -EINVAL && !d.line) /* cannot read it: said at the scenario's key */
		return scn__fail(l, p, "%s: %s", tr->file, d.msg);
	if (err == -EINVAL)
		*l->d = d;
	return err;
}

/* An hpcc workload: its flow file, read into @s->hpcc. */
static int check_hpcc(const struct loader *l, const struct raw_workload *r, const char *prefix,
		      struct scenario *s)
{
	struct scn_hpcc *h;
	struct diag d = {0};
	char p[200];
	int err;

	scn__wpath(p, sizeof(p), prefix, "file");
	if (!r->file)
		return scn__fail(l, p, "missing: an HPCC ns-3 flow file (e.g. flow.txt)");
	h = realloc(s->hpcc, (s->n_hpcc + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	s->hpcc = h;
	h = &h[s->n_hpcc];
	memset(h, 0, sizeof(*h));
	snprintf(h->workload, sizeof(h->workload), "%s", prefix);
	if (!(h->file = scn__config_path(l, p, r->file)))
		return -ENOMEM;
	s->n_hpcc++; /* freed with the scenario from here on */
	err = hpcc_flows_read(h->file, p, &h->flows, &d);
	if (err == -EINVAL && !d.line) /* cannot read it: said at the scenario's key */
		return scn__fail(l, p, "%s: %s", h->file, d.msg);
	if (err == -EINVAL)
		*l->d = d;
	return err;
}

static int check_coll(const struct loader *l, const struct raw_workload *r, const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err;

	if (!r->size)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
				 "missing: bytes per rank, as nccl-tests counts them (e.g. 256MB)");
	if ((err = scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "channels"), r->channels, 4, 1,
				 64, &v)) ||
	    (err =
		 scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "chunk"), r->chunk, 0, 1, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "iterations"), r->iterations,
				 1, 1, 100000, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "steps"), r->steps,
				 COLL_STEPS_DEFAULT, 0, 1024, &v)))
		return err;
	if (v == 1)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "steps"),
				 "1 slot deadlocks a ring (a rank must send its next step before "
				 "its predecessor's slot comes back): 2 or more, or 0 for no flow "
				 "control");
	if (r->algorithm) {
		scn__wpath(p, sizeof(p), prefix, "algorithm");
		if (strcmp(r->algorithm, "ring") && strcmp(r->algorithm, "tree") &&
		    strcmp(r->algorithm, "auto"))
			return scn__fail(l, p, "\"%s\" is not ring, tree or auto", r->algorithm);
		if (!strcmp(r->algorithm, "tree") && r->kind - 1 != SCN_WL_COLL + COLL_ALLREDUCE)
			return scn__fail(l, p,
					 "tree: only AllReduce has a tree in NCCL; %s is a ring",
					 scn__wl_kinds[r->kind - 1].str);
	}
	if ((err = scn__get_time(l, scn__wpath(p, sizeof(p), prefix, "step_latency"),
				 r->step_latency, 0, 0, &t)) ||
	    /* NCCL takes 1 to 128 (its Environment Variables page) */
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "qps_per_connection"),
				 r->qps_per_connection, 1, 1, 128, &v)) ||
	    (err = scn__get_bool(l, scn__wpath(p, sizeof(p), prefix, "split_data_on_qps"),
				 r->split_data_on_qps, 0, &(int){0})))
		return err;
	if (r->hca && !r->hca[0])
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "hca"),
				 "empty: NCCL_IB_HCA's list of HCAs (e.g. \"=mlx5_0:1,mlx5_1:1\")");
	if (r->late) {
		snprintf(p, sizeof(p), "%s.late", prefix);
		if (!r->late->host || !r->late->by)
			return scn__fail(l, p, "needs host and by (e.g. {host: h3, by: 20us})");
		snprintf(p, sizeof(p), "%s.late.by", prefix);
		if ((err = scn__get_time(l, p, r->late->by, 0, 0, &t)))
			return err;
	}
	return 0;
}

/* ---- training jobs -------------------------------------------------------- */

/* A layer's collective at @p: op, group and size, all three. */
static int check_tcoll(const struct loader *l, const struct raw_tcoll *c, const char *p)
{
	static const char *const ops[] = {"allreduce", "allgather", "reducescatter", "alltoall"};
	static const char *const groups[] = {"tp", "dp", "ep", "dp_ep"};
	char k[240];
	uint64_t v;
	int op = -1, group = -1;

	if (!c)
		return 0;
	for (int i = 0; c->op && i < 4; i++)
		op = strcmp(c->op, ops[i]) ? op : i;
	for (int i = 0; c->group && i < 4; i++)
		group = strcmp(c->group, groups[i]) ? group : i;
	if (op < 0)
		return scn__fail(l, scn__wpath(k, sizeof(k), p, "op"),
				 c->op ? "\"%s\" is not allreduce, allgather, reducescatter or "
					 "alltoall"
				       : "missing: allreduce, allgather, reducescatter or alltoall",
				 c->op);
	if (group < 0)
		return scn__fail(l, scn__wpath(k, sizeof(k), p, "group"),
				 c->group ? "\"%s\" is not tp, dp, ep or dp_ep"
					  : "missing: tp, dp, ep or dp_ep (the group it runs in)",
				 c->group);
	if (op == 3 && group < 2)
		return scn__fail(l, scn__wpath(k, sizeof(k), p, "group"),
				 "an all-to-all runs in ep or dp_ep (the experts' groups), not %s",
				 c->group);
	if (!c->size)
		return scn__fail(l, scn__wpath(k, sizeof(k), p, "size"),
				 "missing: bytes per rank, as nccl-tests counts them (e.g. 16MiB)");
	return scn__get_size(l, scn__wpath(k, sizeof(k), p, "size"), c->size, 0, 0, &v);
}

/* "989T", "989e12", "312TFLOPS": floating-point operations a second. */
int scn__flops(const char *s, double *out)
{
	static const struct {
		char c;
		double x;
	} si[] = {{'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}, {'P', 1e15}};
	char *end;
	double v = strtod(s, &end);

	for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++)
		if (*end == si[i].c) {
			v *= si[i].x;
			end++;
			break;
		}
	if (!strcmp(end, "FLOPS") || !strcmp(end, "flops") || !strcmp(end, "FLOP/s"))
		end += strlen(end);
	*out = v;
	return *end || !(v >= 1e9) || v > 1e18 ? -EINVAL : 0;
}

/* model and gpu, which give the layers' compute (instead of layers). */
static int check_model(const struct loader *l, const struct raw_workload *r, const char *prefix)
{
	char p[200];
	uint64_t v;
	double x;
	int err;

	if (r->layers_count)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "layers"),
				 "given with model: one or the other");
	if (!r->model || !r->gpu)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, r->model ? "gpu" : "model"),
				 "missing: model {layers, hidden} and gpu {flops, efficiency} "
				 "go together");
	if (!r->seq_len)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "seq_len"),
				 "missing: the model's compute needs the sequence length");
	if (!r->model->layers || !r->model->hidden)
		return scn__fail(l,
				 scn__wpath(p, sizeof(p), prefix,
					    r->model->layers ? "model.hidden" : "model.layers"),
				 "missing");
	if ((err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "model.layers"),
				 r->model->layers, 0, 1, 100000, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "model.hidden"),
				 r->model->hidden, 0, 1, 1u << 20, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "model.ffn"), r->model->ffn, 0,
				 1, 1u << 24, &v)))
		return err;
	if (!r->gpu->flops || scn__flops(r->gpu->flops, &x))
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "gpu.flops"),
				 "%s%s%s: the GPU's peak for the model's type, e.g. 989TFLOPS "
				 "(H100 SXM, dense BF16)",
				 r->gpu->flops ? "\"" : "missing",
				 r->gpu->flops ? r->gpu->flops : "",
				 r->gpu->flops ? "\" is not FLOP/s" : "");
	if (!r->gpu->efficiency || units_fraction(r->gpu->efficiency, &x) || !(x > 0))
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "gpu.efficiency"),
				 "%s: the share of the peak the layers reach, e.g. 45%%",
				 r->gpu->efficiency ? "not a fraction above 0" : "missing");
	return 0;
}

/* A training job's layout, placement, sizes and (kind training) layers. */
int scn__check_training(const struct loader *l, const struct raw_workload *r, const char *prefix)
{
	static const struct {
		const char *key;
		size_t at;
	} dims[] = {
	    {"tp", offsetof(struct raw_layout, tp)},   {"pp", offsetof(struct raw_layout, pp)},
	    {"dp", offsetof(struct raw_layout, dp)},   {"ep", offsetof(struct raw_layout, ep)},
	    {"vpp", offsetof(struct raw_layout, vpp)}, {"ga", offsetof(struct raw_layout, ga)}};
	const struct ydoc_entry *pl;
	char p[200], q[240];
	uint64_t v;
	simtime_t t;
	int err = 0;

	for (size_t i = 0; r->layout && i < sizeof(dims) / sizeof(dims[0]) && !err; i++) {
		snprintf(q, sizeof(q), "%s.layout.%s", prefix, dims[i].key);
		err = scn__get_uint(l, q, *(char *const *)((const char *)r->layout + dims[i].at), 1,
				    1, 1u << 20, &v);
	}
	scn__wpath(p, sizeof(p), prefix, "placement");
	pl = ydoc_find(l->raw->doc, p);
	if (!err && pl && pl->value && strcmp(pl->value, "packed") && strcmp(pl->value, "spread") &&
	    strcmp(pl->value, "random") && strcmp(pl->value, "rail"))
		err = scn__fail(l, p,
				"\"%s\" is not packed, spread, random, rail or a list of servers "
				"and GPUs ([h0, h1/gpu2])",
				pl->value);
	if (err ||
	    (err = scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "pp_size"), r->pp_size, 0, 0,
				 &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "micro_batch"), r->micro_batch,
				 1, 1, 1u << 24, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "seq_len"), r->seq_len, 0, 1,
				 1u << 30, &v)))
		return err;
	if (r->kind - 1 == SCN_WL_CHAKRA) {
		if (!r->dir)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "dir"),
					 "missing: a folder of Chakra traces, <prefix>.<rank>.et");
		return 0;
	}
	if (r->kind - 1 == SCN_WL_SIMAI) {
		if (!r->file)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "file"),
					 "missing: a SimAI/AICB workload file");
		return 0;
	}
	if (r->model || r->gpu)
		return check_model(l, r, prefix);
	if (!r->layers_count)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "layers"),
				 "missing: a list of {forward, input_grad, weight_grad, "
				 "forward_coll, ...}, or model and gpu");
	for (unsigned i = 0; i < r->layers_count && !err; i++) {
		const struct raw_layer *ly = &r->layers[i];

		snprintf(p, sizeof(p), "%s.layers[%u]", prefix, i);
		if ((err = scn__get_uint(l, scn__wpath(q, sizeof(q), p, "repeat"), ly->repeat, 1, 1,
					 1u << 20, &v)) ||
		    (err = scn__get_time(l, scn__wpath(q, sizeof(q), p, "forward"), ly->forward, 0,
					 0, &t)) ||
		    (err = scn__get_time(l, scn__wpath(q, sizeof(q), p, "input_grad"),
					 ly->input_grad, 0, 0, &t)) ||
		    (err = scn__get_time(l, scn__wpath(q, sizeof(q), p, "weight_grad"),
					 ly->weight_grad, 0, 0, &t)) ||
		    (err = scn__get_time(l, scn__wpath(q, sizeof(q), p, "update"), ly->update, 0, 0,
					 &t)) ||
		    (err = check_tcoll(l, ly->forward_coll,
				       scn__wpath(q, sizeof(q), p, "forward_coll"))) ||
		    (err = check_tcoll(l, ly->input_grad_coll,
				       scn__wpath(q, sizeof(q), p, "input_grad_coll"))))
			break;
		err = check_tcoll(l, ly->weight_grad_coll,
				  scn__wpath(q, sizeof(q), p, "weight_grad_coll"));
	}
	return err;
}

/* nccl_tests: its command line, as nccl-tests takes it. */
static int check_nccl_tests(const struct loader *l, const struct raw_workload *r,
			    const char *prefix)
{
	struct nccl_tests_cmd c;
	struct diag d = {0};
	char p[200];

	scn__wpath(p, sizeof(p), prefix, "command");
	if (!r->command)
		return scn__fail(l, p,
				 "missing: an nccl-tests command line (e.g. \"all_reduce_perf "
				 "-b 8 -e 8G -f 2\")");
	if (nccl_tests_parse_command(r->command, p, &c, &d))
		return scn__fail(l, p, "%s", d.msg);
	if (c.coll != NCCL_TESTS_ALL_REDUCE && c.coll != NCCL_TESTS_ALL_GATHER &&
	    c.coll != NCCL_TESTS_REDUCE_SCATTER && c.coll != NCCL_TESTS_ALLTOALL)
		return scn__fail(l, p,
				 "%s: runs all_reduce, all_gather, reduce_scatter and "
				 "alltoall (not %s)",
				 c.binary, nccl_tests_coll_name(c.coll));
	return 0;
}

static int check_workload(const struct loader *l, const struct raw_workload *r, const char *prefix,
			  struct scenario *s)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err = 0, kind;

	if (!r->kind)
		return scn__fail(
		    l, scn__wpath(p, sizeof(p), prefix, "kind"),
		    "missing (flows, incast, permutation, poisson, hpcc, allreduce, "
		    "allgather, reducescatter, alltoall, training, simai, chakra or nccl_tests)");
	kind = r->kind - 1;
	if ((err =
		 scn__get_time(l, scn__wpath(p, sizeof(p), prefix, "start"), r->start, 0, 0, &t)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "dscp"), r->dscp, 0, 0, 63,
				 &v)) ||
	    (err = check_unused_keys(l, r, prefix, kind)))
		return err;
	if (SCN_WL_IS_COLL(kind))
		return check_coll(l, r, prefix);
	if (SCN_WL_IS_TRAIN(kind))
		return scn__check_training(l, r, prefix);
	if (kind == SCN_WL_NCCL_TESTS)
		return check_nccl_tests(l, r, prefix);
	if (kind == SCN_WL_POISSON)
		return check_poisson(l, r, prefix, s);
	if (kind == SCN_WL_HPCC)
		return check_hpcc(l, r, prefix, s);
	switch (kind) {
	case SCN_WL_FLOWS:
		if (!r->flows_count)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "flows"),
					 "missing: a list of {src, dst, size, start}");
		for (unsigned i = 0; i < r->flows_count && !err; i++) {
			const struct raw_flow *f = &r->flows[i];

			snprintf(p, sizeof(p), "%s.flows[%u]", prefix, i);
			if (!f->src || !f->dst || !f->size)
				return scn__fail(l, p, "a flow needs src, dst and size");
			snprintf(p, sizeof(p), "%s.flows[%u].size", prefix, i);
			err = scn__get_size(l, p, f->size, 0, 1, &v);
			snprintf(p, sizeof(p), "%s.flows[%u].start", prefix, i);
			err = err ? err : scn__get_time(l, p, f->start, 0, 0, &t);
			snprintf(p, sizeof(p), "%s.flows[%u].dscp", prefix, i);
			err = err ? err : scn__get_uint(l, p, f->dscp, 0, 0, 63, &v);
		}
		if (!err && r->size)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
					"does not apply to flows (give it per flow)");
		return err;
	case SCN_WL_INCAST:
		err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "senders"), r->senders, 0,
				    1, 65535, &v);
		if (!err && !r->senders)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "senders"),
					"missing for an incast");
		break;
	case SCN_WL_PERMUTATION:
		if ((err = scn__unused(l, scn__wpath(p, sizeof(p), prefix, "senders"), r->senders,
				       "a permutation")) ||
		    (err = scn__unused(l, scn__wpath(p, sizeof(p), prefix, "receiver"), r->receiver,
				       "a permutation")))
			return err;
		break;
	}
	if (err)
		return err;
	if (!r->size)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
				 "missing: bytes per flow (e.g. 8MB)");
	return scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v);
}

/* The workload, one mapping or a list of them. */
int scn__check_workloads(const struct loader *l, const struct raw_top *r, struct scenario *s)
{
	char prefix[32];
	int err;

	if (r->workload)
		return check_workload(l, r->workload, "workload", s);
	if (!r->workloads_count)
		return scn__fail(l, "workload",
				 "missing (e.g. workload: {kind: allreduce, size: 256MB})");
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if ((err = check_workload(l, &r->workloads[i], prefix, s)))
			return err;
	}
	return 0;
}
