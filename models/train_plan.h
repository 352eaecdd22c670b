/*
 * A training job as a plan of programs (train.h), from its layers and its
 * parallel layout, as Megatron-LM schedules them (Narayanan et al.,
 * "Efficient Large-Scale Language Model Training on GPU Clusters Using
 * Megatron-LM", SC 2021; megatron/core/pipeline_parallel/schedules.py):
 *
 * - Ranks in Megatron's order (tensor fastest, then expert, data,
 *   pipeline): rank = t + tp (d + dp p) for tensor index t, data index d,
 *   stage p. The tensor group of a rank: the same d and p; the data group:
 *   the same t and p; the expert group: ep consecutive data indices of the
 *   same t and p; the expert-data group: the same t, p and d mod ep.
 * - Layers split over pp x vpp model chunks in order (the first chunks
 *   take one more when they do not divide); chunk v of stage p is model
 *   chunk v pp + p.
 * - Per micro-batch, a chunk's forward: receive the activations from the
 *   chunk before (another stage), then each layer's forward compute and
 *   its collective, then send the activations to the chunk after. Its
 *   backward in reverse: receive the gradient, per layer (last first) the
 *   input-gradient compute and collective, the weight-gradient compute and
 *   collective, then send the gradient back. A weight-gradient collective
 *   in the data (or expert-data) group accumulates over the micro-batches
 *   and runs once, on the gradients' stream, during the last micro-batch's
 *   backward (Megatron's overlapped gradient reduction, a layer a bucket);
 *   one in another group runs every micro-batch, on the main stream.
 * - The 1F1B schedule: stage p runs min(pp - p - 1, ga) forwards, then
 *   one forward and one backward in turn, then the backwards left.
 *   With vpp > 1, the interleaved one: ga x vpp virtual micro-batches,
 *   (pp - p - 1) x 2 + (vpp - 1) x pp forwards first (all of them when ga
 *   is pp), the k-th forward on chunk (k mod pp vpp) / pp, the k-th
 *   backward on chunk vpp - 1 - (k mod pp vpp) / pp, both of micro-batch
 *   (k / (pp vpp)) pp + k mod pp; ga must be a multiple of pp.
 * - At the end of the iteration each rank waits for its sends and its
 *   gradients' stream, then runs its chunks' update times.
 */
#ifndef ROCESIM_TRAIN_PLAN_H
#define ROCESIM_TRAIN_PLAN_H

#include <stdint.h>

#include "models/train.h"

struct topo;

/* The group a layer's collective runs in. */
enum train_group { TRAIN_G_NONE, TRAIN_G_TP, TRAIN_G_DP, TRAIN_G_EP, TRAIN_G_DP_EP };

struct train_coll {
	uint8_t group; /* enum train_group; NONE: no collective */
	uint8_t op;    /* enum coll_op */
	uint64_t bytes;
};

/* One layer, as a rank of its chunk runs it per micro-batch. */
struct train_layer {
	simtime_t fwd, ig, wg; /* compute */
	struct train_coll fwd_c, ig_c, wg_c;
	simtime_t update; /* once an iteration */
};

struct train_job {
	uint32_t tp, pp, dp, ep, vpp, ga;
	const struct train_layer *layers;
	uint32_t n_layers;
	uint64_t pp_bytes; /* activations (and their gradients) between stages, per micro-batch */
	const uint32_t *gpus;  /* rank -> GPU (train_place) */
	struct coll_spec coll; /* channels, chunk, steps, qps, dscp, topo, nics... of every
				  collective (its op, bytes, ranks unused) */
	uint32_t iterations;
	simtime_t start;
	uint64_t tokens, samples; /* per iteration */
};

/* Where ranks go: GPU i for rank i (packed), server by server round robin
 * (spread), a shuffle from the seed (random); on rails: train_place_rail. */
enum train_placement { TRAIN_PACKED, TRAIN_SPREAD, TRAIN_RANDOM };

/*
 * The GPUs of @n ranks on @t's servers into @gpus (n of them), among those
 * not @taken (per GPU, nonzero: another job's; NULL: none): 0, -ENOMEM, or
 * -EINVAL when fewer are free.
 */
int train_place(enum train_placement how, const struct topo *t, const uint8_t *taken, uint32_t n,
		uint64_t seed, uint32_t *gpus);

/*
 * The GPUs of a tp x pp x dp job placed on rails into @gpus (tp pp dp of
 * them, by Megatron rank): whole servers not @taken (NULL: none), in
 * order, all with the first one's GPU count g, and every rank on local GPU
 * index k of its server so that the members of a data-parallel group, and
 * two stages of a pipeline on different servers, share k (NIC k of every
 * server on leaf k in a rail-optimised fabric, as NVIDIA's DGX SuperPOD
 * reference architecture cables it). With tp a multiple of g this is
 * packed over whole servers. With g a multiple of tp, a server holds
 * m = g / tp tensor groups: m consecutive stages of one data index, stage
 * p on the tp GPUs from tp (p mod m), that order reversed on every other
 * block of m stages so that the stage pair between two blocks (two
 * servers) keeps its local index; pp must then be a multiple of m.
 * 0, -ENOMEM, -EINVAL (neither divides the other, or pp not a multiple of
 * m), -EDOM (servers with another GPU count), -ENOSPC (too few whole free
 * servers).
 */
int train_place_rail(const struct topo *t, const uint8_t *taken, uint32_t tp, uint32_t pp,
		     uint32_t dp, uint32_t *gpus);

/*
 * A size sweep as nccl-tests runs one (nccl-tests src/common.cu): over
 * @n_ranks ranks on @gpus (borrowed), for each of the @n_sizes sizes in
 * turn, @warmup then @iters collectives @op back to back on one
 * communicator (knobs from @knobs), every rank starting the next when it
 * ended the last. The plan records when each collective ended
 * (train_comm_ends). 0, -ENOMEM, or -EINVAL (fewer than 2 ranks).
 */
int train_plan_sweep(const struct coll_spec *knobs, const uint32_t *gpus, uint32_t n_ranks,
		     enum coll_op op, const uint64_t *sizes, uint32_t n_sizes, uint32_t warmup,
		     uint32_t iters, struct train_plan *p);

/* The plan of @j into @p (train_plan_free it): 0, -ENOMEM, or -EINVAL
 * when the layout does not fit (tp pp dp ranks, ep dividing dp, ga a
 * multiple of pp with vpp > 1, layers fewer than pp vpp). */
int train_plan_build(const struct train_job *j, struct train_plan *p);
void train_plan_free(struct train_plan *p);

#endif
