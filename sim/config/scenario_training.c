/*
 * A training job of the scenario (workload kind training or simai) on the
 * topology: its layout (a SimAI file's header, the scenario's layout
 * filling in or overriding what the file leaves to SimAI's command line),
 * its layers, its ranks placed on GPUs, and the plan the fabric runs
 * (models/train_plan.h). What a SimAI file gives and this model does not
 * run is said in the job's notes, which the results carry.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/chakra.h"
#include "sim/readers/nccl_tests.h"
#include "sim/readers/simai.h"
#include "sim/readers/ydoc.h"

/* A whole number the checks took already (scenario_workloads.c), or @def. */
static uint64_t num(const char *v, uint64_t def)
{
	return v ? strtoull(v, NULL, 10) : def;
}

/* The layout's key @key of @w: the scenario's, or @def. */
static uint32_t layout_key(const struct raw_workload *w, const char *key, uint32_t def)
{
	const char *v = NULL;

	if (w->layout)
		v = !strcmp(key, "tp")	  ? w->layout->tp
		    : !strcmp(key, "pp")  ? w->layout->pp
		    : !strcmp(key, "dp")  ? w->layout->dp
		    : !strcmp(key, "ep")  ? w->layout->ep
		    : !strcmp(key, "vpp") ? w->layout->vpp
					  : w->layout->ga;
	return (uint32_t)num(v, def);
}

/* A note of what the job's input gave and the model does not run. */
__attribute__((format(printf, 2, 3))) static void note(struct scn_job *j, const char *fmt, ...)
{
	size_t n = strlen(j->notes);
	va_list ap;

	if (n + 2 < sizeof(j->notes))
		snprintf(j->notes + n, sizeof(j->notes) - n, "%s", n ? "; " : "");
	n = strlen(j->notes);
	va_start(ap, fmt);
	vsnprintf(j->notes + n, sizeof(j->notes) - n, fmt, ap);
	va_end(ap);
}

/*
 * The NICs NCCL may use (workload.hca, or a pod's NCCL_IB_HCA) over job
 * @j's @n ranks, into @c, which then becomes the knobs of all its
 * collectives.
 */
static int job_knobs(const struct loader *l, const struct topo *t, const struct raw_workload *w,
		     const char *prefix, const struct scenario *s, struct scn_job *j, uint32_t n,
		     struct coll_spec c)
{
	int err;

	c.ranks = j->gpus;
	c.n_ranks = n;
	if ((err = scn__coll_nics(l, t, w, prefix, s, &c)))
		return err;
	c.ranks = NULL;
	c.n_ranks = 0;
	j->job.coll = c;
	return 0;
}

static const uint8_t coll_ops[] = {COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
				   COLL_ALLTOALL};

/* A layer's collective of the scenario (checked already). */
static struct train_coll tcoll_of(const struct raw_tcoll *c)
{
	static const char *const ops[] = {"allreduce", "allgather", "reducescatter", "alltoall"};
	static const char *const groups[] = {"tp", "dp", "ep", "dp_ep"};
	struct train_coll t = {0};

	if (!c)
		return t;
	for (int i = 0; i < 4; i++) {
		if (!strcmp(c->op, ops[i]))
			t.op = coll_ops[i];
		if (!strcmp(c->group, groups[i]))
			t.group = (uint8_t)(TRAIN_G_TP + i);
	}
	units_size(c->size, &t.bytes);
	return t;
}

/* The layers of kind training, repeats unrolled. */
static int layers_of_scenario(const struct raw_workload *w, struct scn_job *j)
{
	uint32_t n = 0;
	uint64_t rep;

	for (unsigned i = 0; i < w->layers_count; i++) {
		rep = num(w->layers[i].repeat, 1);
		if (n + rep > UINT32_MAX / 2)
			return -EINVAL;
		n += (uint32_t)rep;
	}
	if (!(j->layers = calloc(n, sizeof(*j->layers))))
		return -ENOMEM;
	n = 0;
	for (unsigned i = 0; i < w->layers_count; i++) {
		const struct raw_layer *r = &w->layers[i];
		struct train_layer ly = {0};

		if (r->forward)
			units_time(r->forward, &ly.fwd);
		if (r->input_grad)
			units_time(r->input_grad, &ly.ig);
		if (r->weight_grad)
			units_time(r->weight_grad, &ly.wg);
		if (r->update)
			units_time(r->update, &ly.update);
		ly.fwd_c = tcoll_of(r->forward_coll);
		ly.ig_c = tcoll_of(r->input_grad_coll);
		ly.wg_c = tcoll_of(r->weight_grad_coll);
		rep = num(r->repeat, 1);
		for (uint64_t k = 0; k < rep; k++)
			j->layers[n++] = ly;
	}
	j->job.n_layers = n;
	return 0;
}

/*
 * model and gpu: each transformer layer as two layers of the plan, its
 * attention and its MLP, per micro-batch on a tensor-parallel rank
 * (Narayanan et al., SC 2021, section 5.1: a layer's forward is
 * 24 b s h^2 + 4 b s^2 h operations with an MLP of 4h; here 8 b s h^2 +
 * 4 b s^2 h for attention and 4 b s h f for an MLP of f), over tp, at
 * gpu.flops x gpu.efficiency. The input gradient costs the forward; the
 * weight gradient the forward's matrix products (not the attention
 * scores). Each half AllReduces its activations (b s h, bf16) in the
 * tensor group forward and backward (Megatron-LM's f and g operators);
 * each layer's weight gradients ((4 h^2 + 2 h f) / tp parameters, fp32 as
 * Megatron accumulates them) are AllReduced in the data group. The
 * stages exchange b s h bf16 activations. Embedding, logits and the
 * optimizer's step are not modelled (said in the notes).
 */
static int layers_of_model(const struct raw_workload *w, uint32_t tp, struct scn_job *j)
{
	double h = (double)num(w->model->hidden, 1), f = (double)num(w->model->ffn, 0);
	double b = (double)num(w->micro_batch, 1), sl = (double)num(w->seq_len, 1), rate, eff;
	uint32_t n = (uint32_t)num(w->model->layers, 1);
	uint64_t act;
	struct train_coll ar = {.group = TRAIN_G_TP, .op = COLL_ALLREDUCE};
	struct train_coll grads = {.group = TRAIN_G_DP, .op = COLL_ALLREDUCE};
	simtime_t attn, attn_w, mlp;

	f = f > 0 ? f : 4 * h;
	scn__flops(w->gpu->flops, &rate);
	units_fraction(w->gpu->efficiency, &eff);
	rate *= eff * tp;
	attn = (simtime_t)llround((8 * b * sl * h * h + 4 * b * sl * sl * h) / rate * 1e12);
	attn_w = (simtime_t)llround(8 * b * sl * h * h / rate * 1e12);
	mlp = (simtime_t)llround(4 * b * sl * h * f / rate * 1e12);
	act = (uint64_t)(b * sl * h * 2);
	ar.bytes = act;
	if (!(j->layers = calloc(2 * (size_t)n, sizeof(*j->layers))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		grads.bytes = (uint64_t)(4 * h * h / tp * 4);
		j->layers[2 * i] = (struct train_layer){
		    .fwd = attn, .ig = attn, .wg = attn_w, .fwd_c = ar, .ig_c = ar, .wg_c = grads};
		grads.bytes = (uint64_t)(2 * h * f / tp * 4);
		j->layers[2 * i + 1] = (struct train_layer){
		    .fwd = mlp, .ig = mlp, .wg = mlp, .fwd_c = ar, .ig_c = ar, .wg_c = grads};
	}
	j->job.n_layers = 2 * n;
	if (!w->pp_size)
		j->job.pp_bytes = act;
	note(j, "compute from model and gpu: embedding, logits and the optimizer step not "
		"modelled");
	return 0;
}

/* A SimAI phase as a layer's collective; BROADCAST is said, not run. */
static struct train_coll tcoll_of_simai(const struct simai_phase *ph, int *broadcasts)
{
	static const uint8_t groups[] = {[SIMAI_GROUP_NONE] = TRAIN_G_NONE,
					 [SIMAI_GROUP_TP] = TRAIN_G_TP,
					 [SIMAI_GROUP_DP] = TRAIN_G_DP,
					 [SIMAI_GROUP_EP] = TRAIN_G_EP,
					 [SIMAI_GROUP_DP_EP] = TRAIN_G_DP_EP};
	struct train_coll t = {0};

	if (ph->coll == SIMAI_BROADCAST) {
		++*broadcasts;
		return t;
	}
	if (ph->coll == SIMAI_COLL_NONE)
		return t;
	t.op = coll_ops[ph->coll - SIMAI_ALLREDUCE];
	t.group = groups[ph->group];
	t.bytes = ph->bytes;
	return t;
}

/*
 * A SimAI file's layers and layout into @j. SimAI's update time (a delay
 * after each of a layer's collectives) is taken once an iteration, at the
 * end; the pipeline's activations (pp_comm) are sent between stages over
 * the fabric, where SimAI adds them analytically.
 */
static int layers_of_simai(const struct loader *l, const struct raw_workload *w, const char *prefix,
			   struct scn_job *j, uint32_t *tp, uint32_t *pp, uint32_t *ep,
			   uint32_t *vpp, uint32_t *ga, uint32_t *all)
{
	struct simai_workload sw;
	struct diag d = {0};
	char p[200];
	int err, broadcasts = 0;

	scn__wpath(p, sizeof(p), prefix, "file");
	if (!(j->file = scn__config_path(l, p, w->file)))
		return -ENOMEM;
	if ((err = simai_read(j->file, p, &sw, &d))) {
		if (err == -EINVAL)
			*l->d = d;
		return err;
	}
	if (sw.kind != SIMAI_HYBRID_TRANSFORMER &&
	    sw.kind != SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD && sw.kind != SIMAI_DATA &&
	    sw.kind != SIMAI_MICRO) {
		simai_free(&sw);
		return scn__fail(
		    l, p,
		    "%s: a %s workload is not a training iteration this model runs "
		    "(HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, DATA, MICRO)",
		    w->file, simai_kind_name(sw.kind));
	}
	*tp = sw.given & SIMAI_HAS_TP ? sw.tp : *tp;
	*pp = sw.given & SIMAI_HAS_PP ? sw.pp : *pp;
	*ep = sw.given & SIMAI_HAS_EP ? sw.ep : *ep;
	*ga = sw.given & SIMAI_HAS_GA ? sw.ga : *ga;
	*all = sw.given & SIMAI_HAS_ALL_GPUS ? sw.all_gpus : 0;
	/* AICB writes the model's layer count as vpp: chunks of one layer */
	*vpp = sw.given & SIMAI_HAS_VPP && sw.vpp * *pp <= sw.n_layers ? sw.vpp : *vpp;
	j->job.pp_bytes = sw.pp_comm;
	if (!(j->layers = calloc(sw.n_layers ? sw.n_layers : 1, sizeof(*j->layers)))) {
		simai_free(&sw);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < sw.n_layers; i++) {
		const struct simai_layer *s = &sw.layers[i];
		struct train_layer *ly = &j->layers[i];

		ly->fwd = simai_ps(s->fwd.compute);
		ly->ig = simai_ps(s->ig.compute);
		ly->wg = simai_ps(s->wg.compute);
		ly->update = simai_ps(s->update);
		ly->fwd_c = tcoll_of_simai(&s->fwd, &broadcasts);
		ly->ig_c = tcoll_of_simai(&s->ig, &broadcasts);
		ly->wg_c = tcoll_of_simai(&s->wg, &broadcasts);
	}
	j->job.n_layers = sw.n_layers;
	if (broadcasts) {
		note(j, "%d BROADCAST collectives read and not run (SimAI runs none either)",
		     broadcasts);
	}
	if (sw.n_checkpoints || sw.n_checkpoint_initiates)
		note(j, "checkpoints read, not modelled (no recomputation)");
	if (sw.ignored[0])
		note(j, "header words SimAI ignores, ignored: %s", sw.ignored);
	simai_free(&sw);
	return 0;
}

/* placement as a list: the servers (all their GPUs) and GPUs named, in
 * rank order, into j->gpus; exactly @n of them, each once and free. */
static int place_list(const struct loader *l, const struct topo *t, const char *path,
		      const uint8_t *taken, struct scn_job *j, uint32_t n)
{
	uint32_t k = 0, first, count;
	char p[240];
	int err;

	if (!(j->gpus = malloc((size_t)n * sizeof(*j->gpus))))
		return -ENOMEM;
	for (uint32_t i = 0;; i++) {
		const struct ydoc_entry *e;

		snprintf(p, sizeof(p), "%s[%u]", path, i);
		if (!(e = ydoc_find(l->raw->doc, p)))
			break;
		if (!e->value)
			return scn__fail(l, p, "expected a server or a GPU (h0, h0/gpu1)");
		if ((err = scn__gpus_of(l, t, p, e->value, &first, &count)))
			return err;
		for (uint32_t g = first; g < first + count; g++) {
			if (taken[g])
				return scn__fail(l, p, "%s is another job's", e->value);
			for (uint32_t q = 0; q < k; q++)
				if (j->gpus[q] == g)
					return scn__fail(l, p, "%s is already rank %u", e->value,
							 q);
			if (k == n)
				return scn__fail(l, path,
						 "more GPUs than the job's %u ranks (tp x "
						 "pp x dp)",
						 n);
			j->gpus[k++] = g;
		}
	}
	if (k < n)
		return scn__fail(l, path, "%u GPUs for the job's %u ranks (tp x pp x dp)", k, n);
	return 0;
}

/* placement: rail for a tp x pp x dp job into j->gpus (@taken: the jobs
 * before it), or why it cannot be placed so. */
static int place_rail(const struct loader *l, const struct topo *t, const char *path,
		      const uint8_t *taken, int others, struct scn_job *j, uint32_t tp, uint32_t pp,
		      uint32_t dp)
{
	uint32_t g = t->n_servers ? t->servers[0].n_gpus : 0, n = tp * pp * dp, m;
	int err;

	if (!g || (tp % g && g % tp))
		return scn__fail(l, path,
				 "rail: tp %u and the servers' %u GPUs: one must divide the other "
				 "(a tensor group inside a server, or over whole servers)",
				 tp, g);
	m = tp >= g ? 1 : g / tp;
	if (pp % m)
		return scn__fail(
		    l, path,
		    "rail: a server's %u GPUs hold %u tensor groups of tp %u, and pp %u "
		    "is not a multiple of %u (a server holds %u stages of a pipeline)",
		    g, m, tp, pp, m, m);
	if (!(j->gpus = malloc((size_t)n * sizeof(*j->gpus))))
		return -ENOMEM;
	err = train_place_rail(t, taken, tp, pp, dp, j->gpus);
	if (err == -EDOM)
		return scn__fail(l, path, "rail: the servers do not all have %u GPUs", g);
	if (err == -ENOSPC)
		return scn__fail(l, path,
				 "rail: the job's %u ranks need %u whole servers of %u GPUs, "
				 "fewer are free%s",
				 n, n / g, g, others ? " of the jobs before it" : "");
	if (err == -EINVAL)
		return scn__fail(l, path, "rail: %u ranks do not fill servers of %u GPUs", n, g);
	return err;
}

/* The fabric's GPUs for a tp x pp x dp job (@n ranks), by the workload's
 * placement, among those the jobs before (@jobs up to @j) left free. */
static int place(const struct loader *l, const struct topo *t, const char *prefix, uint64_t seed,
		 const struct scn_job *jobs, struct scn_job *j, uint32_t n, uint32_t tp,
		 uint32_t pp, uint32_t dp)
{
	enum train_placement how = TRAIN_PACKED;
	uint8_t *taken = calloc(t->n_gpus ? t->n_gpus : 1, 1);
	const struct ydoc_entry *e;
	uint32_t free_n = t->n_gpus;
	char p[200];
	int err;

	if (!taken)
		return -ENOMEM;
	for (const struct scn_job *o = jobs; o < j; o++)
		for (uint32_t r = 0; r < o->job.tp * o->job.pp * o->job.dp; r++)
			free_n -= !taken[o->gpus[r]]++;
	scn__wpath(p, sizeof(p), prefix, "placement");
	e = ydoc_find(l->raw->doc, p);
	if (e && !e->value) {
		err = place_list(l, t, p, taken, j, n);
		free(taken);
		return err;
	}
	if (e && !strcmp(e->value, "rail")) {
		err = place_rail(l, t, p, taken, free_n < t->n_gpus, j, tp, pp, dp);
		free(taken);
		return err;
	}
	if (e && !strcmp(e->value, "spread"))
		how = TRAIN_SPREAD;
	else if (e && !strcmp(e->value, "random"))
		how = TRAIN_RANDOM;
	if (n > free_n) {
		free(taken);
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "layout"),
				 "the job has %u ranks (tp x pp x dp) and the fabric %u GPUs%s", n,
				 free_n, free_n < t->n_gpus ? " free of the jobs before it" : "");
	}
	if (!(j->gpus = malloc((size_t)n * sizeof(*j->gpus)))) {
		free(taken);
		return -ENOMEM;
	}
	err = train_place(how, t, taken, n, seed, j->gpus);
	free(taken);
	return err;
}

/* What the layout lets through, as train_plan_build wants it. */
static int layout_fail(const struct loader *l, const char *prefix, const struct train_job *j)
{
	char p[200];

	scn__wpath(p, sizeof(p), prefix, "layout");
	if (j->ep && j->dp % j->ep)
		return scn__fail(l, p, "ep %u does not divide dp %u", j->ep, j->dp);
	if (j->n_layers < j->pp * j->vpp)
		return scn__fail(l, p,
				 "%u layers for pp %u x vpp %u model chunks: fewer layers than "
				 "chunks",
				 j->n_layers, j->pp, j->vpp);
	if (j->vpp > 1 && j->ga % j->pp)
		return scn__fail(l, p,
				 "the interleaved schedule (vpp %u) needs ga (%u) a multiple "
				 "of pp (%u), as Megatron-LM does",
				 j->vpp, j->ga, j->pp);
	return scn__fail(l, p, "tp %u x pp %u x dp %u ranks cannot run", j->tp, j->pp, j->dp);
}

/* A new job of @s (its plan zeroed), freed with the scenario; NULL: no memory. */
static struct scn_job *job_add(struct scenario *s, const char *prefix)
{
	struct train_plan *plans = realloc(s->plans, (s->n_jobs + 1) * sizeof(*plans));
	struct scn_job *jobs = plans ? realloc(s->jobs, (s->n_jobs + 1) * sizeof(*jobs)) : NULL;
	struct scn_job *j;

	if (plans)
		s->plans = plans;
	if (!jobs)
		return NULL;
	s->jobs = jobs;
	j = &s->jobs[s->n_jobs];
	memset(j, 0, sizeof(*j));
	memset(&s->plans[s->n_jobs], 0, sizeof(*plans));
	s->n_jobs++;
	snprintf(j->workload, sizeof(j->workload), "%s", prefix);
	return j;
}

/*
 * nccl_tests: the command's size sweep over every GPU of the fabric, as
 * one job whose ranks run the sizes in turn (train_plan_sweep). What the
 * command gives and the model does not use is said in the notes.
 */
static int resolve_nccl_tests(const struct loader *l, const struct topo *t,
			      const struct raw_workload *w, const char *prefix,
			      const struct coll_spec *knobs, struct scenario *s)
{
	static const uint8_t ops[] = {[NCCL_TESTS_ALL_REDUCE] = COLL_ALLREDUCE,
				      [NCCL_TESTS_ALL_GATHER] = COLL_ALLGATHER,
				      [NCCL_TESTS_REDUCE_SCATTER] = COLL_REDUCESCATTER,
				      [NCCL_TESTS_ALLTOALL] = COLL_ALLTOALL};
	struct scn_job *j = job_add(s, prefix);
	struct nccl_tests_cmd cmd;
	struct coll_spec c = *knobs;
	struct diag d = {0};
	uint64_t *sizes;
	char p[200];
	int err;

	if (!j)
		return -ENOMEM;
	scn__wpath(p, sizeof(p), prefix, "command");
	if (!(j->command = strdup(w->command)))
		return -ENOMEM;
	if (nccl_tests_parse_command(w->command, p, &cmd, &d))
		return scn__fail(l, p, "%s", d.msg); /* checked already */
	if (t->n_gpus < 2)
		return scn__fail(l, p, "the fabric has %u GPU: a collective needs 2 ranks or more",
				 t->n_gpus);
	if (!(j->gpus = malloc((size_t)t->n_gpus * sizeof(*j->gpus))))
		return -ENOMEM;
	for (uint32_t g = 0; g < t->n_gpus; g++)
		j->gpus[g] = g;
	if ((err = nccl_tests_sizes(&cmd, t->n_gpus, p, &j->rows, &j->n_rows, &d)))
		return err == -EINVAL ? scn__fail(l, p, "%s", d.msg) : err;
	if ((err = job_knobs(l, t, w, prefix, s, j, t->n_gpus, c)))
		return err;
	c = j->job.coll;
	if (!(sizes = malloc((j->n_rows ? j->n_rows : 1) * sizeof(*sizes))))
		return -ENOMEM;
	for (size_t i = 0; i < j->n_rows; i++)
		sizes[i] = j->rows[i].bytes ? j->rows[i].bytes : 1;
	j->warmup = cmd.warmup_iters > 0 ? (uint32_t)cmd.warmup_iters : 0;
	j->iters = cmd.iters > 0 ? (uint32_t)cmd.iters : 1;
	j->job.tp = j->job.pp = j->job.ep = j->job.vpp = j->job.ga = 1;
	j->job.dp = t->n_gpus;
	err = train_plan_sweep(&c, j->gpus, t->n_gpus, (enum coll_op)ops[cmd.coll], sizes,
			       (uint32_t)j->n_rows, j->warmup, j->iters, &s->plans[s->n_jobs - 1]);
	free(sizes);
	if (err == -EINVAL)
		return scn__fail(l, p,
				 "%zu sizes x %u iterations on %u ranks: too many collectives",
				 j->n_rows, j->warmup + j->iters, t->n_gpus);
	if (cmd.unmodelled[0])
		note(j, "options read, not modelled: %s", cmd.unmodelled);
	return err;
}

/* chakra: a folder of ranks' traces, a rank a GPU placed as a job's. */
static int resolve_chakra(const struct loader *l, const struct topo *t,
			  const struct raw_workload *w, const char *prefix,
			  const struct coll_spec *knobs, struct scenario *s)
{
	struct scn_job *j = job_add(s, prefix);
	struct chakra_ranks tr = {0};
	struct coll_spec c = *knobs;
	struct diag d = {0};
	uint32_t no_peer = 0, skipped = 0, rank, op;
	char p[200], why[300], *dir;
	int err;

	if (!j)
		return -ENOMEM;
	j->source = "chakra";
	j->chakra = 1;
	scn__wpath(p, sizeof(p), prefix, "dir");
	if (!(dir = scn__config_path(l, p, w->dir)))
		return -ENOMEM;
	j->file = dir;
	if ((err = chakra_read_dir(dir, p, &tr, &d))) {
		if (err == -EINVAL)
			*l->d = d;
		return err;
	}
	j->job.tp = j->job.pp = j->job.ep = j->job.vpp = j->job.ga = 1;
	j->job.dp = tr.n;
	if ((err = place(l, t, prefix, s->seed, s->jobs, j, tr.n, 1, 1, tr.n))) {
		chakra_ranks_free(&tr);
		return err;
	}
	if ((err = job_knobs(l, t, w, prefix, s, j, tr.n, c))) {
		chakra_ranks_free(&tr);
		return err;
	}
	c = j->job.coll;
	j->micro_batch = (uint32_t)num(w->micro_batch, 1);
	j->seq_len = (uint32_t)num(w->seq_len, 0);
	j->job.samples = j->micro_batch;
	j->job.tokens = (uint64_t)j->micro_batch * j->seq_len;
	for (uint32_t r = 0; r < tr.n; r++)
		for (uint32_t k = 0; k < CHAKRA_TYPES; k++)
			skipped += tr.ranks[r].skipped[k];
	err = scn__chakra_plan(&tr, &c, j->gpus, &s->plans[s->n_jobs - 1], &no_peer, why,
			       sizeof(why));
	j->job.n_layers = 0;
	chakra_ranks_free(&tr);
	if (err == -EINVAL)
		return scn__fail(l, p, "%s", why);
	if (err)
		return err;
	s->plans[s->n_jobs - 1].timeline = (uint8_t)s->out.timeline;
	s->plans[s->n_jobs - 1].samples = j->job.samples;
	s->plans[s->n_jobs - 1].tokens = j->job.tokens;
	if (train_plan_check(&s->plans[s->n_jobs - 1], &rank, &op))
		return scn__fail(l, p,
				 "rank %u's op %u disagrees with its group's (a collective of "
				 "another size or kind, or one the other ranks do not run)",
				 rank, op);
	if (skipped) {
		note(j, "%u nodes of other types (memory, metadata) taken as no time", skipped);
	}
	if (no_peer) {
		note(j, "%u sends and receives without a peer not run", no_peer);
	}
	note(j, "collectives' exposed time under dp, sends' and receives' under pp");
	return 0;
}

int scn__resolve_training(const struct loader *l, const struct topo *t,
			  const struct raw_workload *w, const char *prefix,
			  const struct coll_spec *knobs, struct scenario *s)
{
	uint32_t tp = layout_key(w, "tp", 1), pp = layout_key(w, "pp", 1);
	uint32_t ep = layout_key(w, "ep", 1), vpp = layout_key(w, "vpp", 1);
	uint32_t ga = layout_key(w, "ga", 1), dp = layout_key(w, "dp", 0), all = 0, n, rank, op;
	struct scn_job *j;
	struct coll_spec c = *knobs;
	char p[200];
	int err;

	if (w->kind - 1 == SCN_WL_NCCL_TESTS)
		return resolve_nccl_tests(l, t, w, prefix, knobs, s);
	if (w->kind - 1 == SCN_WL_CHAKRA)
		return resolve_chakra(l, t, w, prefix, knobs, s);
	if (!(j = job_add(s, prefix))) /* freed with the scenario from here on */
		return -ENOMEM;
	err = w->kind - 1 == SCN_WL_SIMAI
		  ? layers_of_simai(l, w, prefix, j, &tp, &pp, &ep, &vpp, &ga, &all)
	      : w->model ? layers_of_model(w, tp, j)
			 : layers_of_scenario(w, j);
	if (err)
		return err;
	j->source = w->kind - 1 == SCN_WL_SIMAI ? "simai" : w->model ? "model" : "layers";
	/* the scenario's layout wins over the file's where it says so */
	tp = layout_key(w, "tp", tp);
	pp = layout_key(w, "pp", pp);
	ep = layout_key(w, "ep", ep);
	vpp = layout_key(w, "vpp", vpp);
	ga = layout_key(w, "ga", ga);
	/* each at most 2^20 (the checks): their product in 64 bits */
	if ((uint64_t)tp * pp > t->n_gpus)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "layout"),
				 "tp %u x pp %u is more than the fabric's %u GPUs", tp, pp,
				 t->n_gpus);
	if (!dp)
		dp = (all ? all : t->n_gpus) / (tp * pp);
	if (!dp || (uint64_t)tp * pp * dp > t->n_gpus)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "layout"),
				 "the job has %llu ranks (tp x pp x dp) and the fabric %u GPUs",
				 (unsigned long long)tp * pp * (dp ? dp : 1), t->n_gpus);
	n = tp * pp * dp;
	if ((err = place(l, t, prefix, s->seed, s->jobs, j, n, tp, pp, dp)))
		return err;
	j->micro_batch = (uint32_t)num(w->micro_batch, 1);
	j->seq_len = (uint32_t)num(w->seq_len, 0);
	if (w->pp_size)
		units_size(w->pp_size, &j->job.pp_bytes);
	j->job.tp = tp;
	j->job.pp = pp;
	j->job.dp = dp;
	j->job.ep = ep;
	j->job.vpp = vpp;
	j->job.ga = ga;
	j->job.layers = j->layers;
	j->job.gpus = j->gpus;
	j->job.iterations = c.iterations;
	j->job.start = c.start;
	j->job.samples = (uint64_t)j->micro_batch * ga * dp;
	j->job.tokens = j->job.samples * j->seq_len;
	if (pp > 1 && !j->job.pp_bytes)
		note(j, "no pp_size: the stages exchange nothing over the fabric");
	if ((err = job_knobs(l, t, w, prefix, s, j, n, c)))
		return err;
	err = train_plan_build(&j->job, &s->plans[s->n_jobs - 1]);
	s->plans[s->n_jobs - 1].timeline = (uint8_t)s->out.timeline;
	if (err == -EINVAL)
		return layout_fail(l, prefix, &j->job);
	if (err)
		return err;
	if (train_plan_check(&s->plans[s->n_jobs - 1], &rank, &op))
		return scn__fail(l, prefix,
				 "rank %u's op %u disagrees with its group's (a "
				 "collective of another size or kind)",
				 rank, op);
	return 0;
}
