/*
 * SimAI workload files (the text files AICB writes for SimAI), read as
 * SimAI's own parser reads them: Workload::initialize_workload in
 * astra-sim-alibabacloud/astra-sim/workload/Workload.cc of aliyun/SimAI.
 * Samples: example/workload_analytical.txt and example/microAllReduce.txt
 * of aliyun/SimAI; the files of workload/simAI/model_workload/ and
 * workload/simAI/micro_test/ of aliyun/aicb, whose writer is
 * workload_generator/SimAI_training_workload_generator.py (dump_file).
 *
 * Line 1, the header: the parallelism kind, then "key: value" words in any
 * order, e.g.
 *   HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 2
 *   vpp: 20 ga: 16 all_gpus: 128 checkpoints: 0 checkpoint_initiates: 0
 *   pp_comm: 50331648
 * (one line). The kinds (decode_parallelsim): DATA, HYBRID_TRANSFORMER,
 * HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM, HYBRID_DLRM_ENHANCED, MODEL,
 * HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, MICRO and
 * DISTRIBUTED_INFERENCE; any other word SimAI refuses. The keys:
 *   model_parallel_NPU_group: the tensor-parallel (TP) group size;
 *   ep: the expert-parallel group size; pp: the pipeline stages;
 *   vpp: the virtual pipeline chunks (AICB writes the model's layer count);
 *   ga: the gradient-accumulation steps (micro-batches an iteration);
 *   all_gpus: the GPUs of the job;
 *     these six SimAI reads for HYBRID_TRANSFORMER and
 *     HYBRID_TRANSFORMER_FWD_IN_BCKWD only, and ignores in the other kinds.
 *   checkpoints: N l1 .. lN, checkpoint_initiates: N l1 .. lN: the layers
 *     (0-based indices of the layer lines) where activation recomputation
 *     restarts and the layers whose input-gradient pass starts it; read for
 *     HYBRID_TRANSFORMER_FWD_IN_BCKWD only. SimAI's loop takes the token
 *     after N for every one of the N ids (its index is reset in the loop),
 *     so it only marks l1; here the N ids are given as written.
 *   pp_comm: (or "pp_comm" without the colon, as example/
 *     workload_analytical.txt writes it): the bytes a pipeline stage sends
 *     the next one per micro-batch (AICB: 2 * micro_batch * seq_length *
 *     hidden_size, divided by the TP size under sequence parallelism, and
 *     then written as a Python float, "6291456.0"); read for every kind.
 *     SimAI sends none of it through the network: its report adds an
 *     exposed pipeline time from 2 * vpp * ga * pp_comm, and a bubble of
 *     (pp - 1) / (ga * vpp) of the layers' time (Layer::report in Layer.cc).
 *   DLRM_LAST_BOTTOM_LAYER: read for the two DLRM kinds only.
 * SimAI ignores any other word of the header (AICB's multi-all-reduce
 * writer spells ep "expert_parallel_npu_group:", which SimAI does not
 * read); the words ignored are given in .ignored so that the caller can
 * say so. A key left out SimAI leaves unset and warns "Input workload
 * format mismatch" (it also warns for a value 0, and for pp above 1
 * without pp_comm or pp 1 with one): here a key left out has its bit
 * clear in .given and the value below; 0 and those pp_comm mismatches are
 * refused.
 *
 * Line 2: the number of layer lines (std::stoi of the whole second line:
 * no blank line before it).
 *
 * Then a layer a line, twelve words separated by blanks or tabs (SimAI
 * reads them with operator>>, so blank lines are skipped; AICB writes tabs):
 *   name  reserved  fwd_compute fwd_coll fwd_bytes  ig_compute ig_coll
 *   ig_bytes  wg_compute wg_coll wg_bytes  update
 * e.g. "attention_layer -1 752000 ALLREDUCE 20971520 752000 ALLREDUCE
 * 20971520 752000 NONE 0 100". The reserved word is an int SimAI reads and
 * never uses (AICB writes -1). HYBRID_CUSTOMIZED files carry a 13th word, a
 * kind for that layer. The three phases are the forward pass (fwd), the
 * input gradient (ig) and the weight gradient (wg), each a compute time
 * then a collective of so many bytes: forward layer by layer, then from
 * the last layer down the input gradient (its collective blocking) and the
 * weight gradient (its collective not blocking the next layer's; the next
 * iteration's forward pass of a layer waits for it).
 *
 * Times are in ticks of SimAI's clock (system/Common.hh: CLOCK_PERIOD 1,
 * Sys::generate_time multiplies by it) and its ns-3 frontend schedules a
 * tick as a nanosecond (NanoSeconds() in network_frontend/ns3/
 * AstraSimNetwork.cc): nanoseconds, simai_ps() converts to simtime_t. AICB
 * writes them so: its compute profiles time kernels in microseconds (CUDA
 * events' milliseconds times 1000, utils/utils.py of aliyun/aicb), which it
 * multiplies by 1000 when it reads them back for the workload file.
 * (SimAI passes a delay through an int: a delay of 2^31 ns or more it
 * truncates; it is taken exactly here.) update is a delay SimAI adds after
 * each of the layer's three collectives ends (Layer::call).
 *
 * Collectives (the prefix decides the kind, the suffix the group):
 *   NONE; ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, each bare or with
 *   the suffix _EP or _DP_EP. Bare, the forward and input-gradient
 *   collectives run in the TP group and the weight-gradient one in the
 *   data-parallel (DP) group; _EP in the expert-parallel group (size ep);
 *   _DP_EP in the data-parallel group of the experts (size DP / ep), where
 *   DP = all_gpus / (tp * pp).
 *   BROADCAST (in AICB's GPT-13B file): no prefix of SimAI's matches it, so
 *   SimAI runs no collective there; read as SIMAI_BROADCAST, group NONE, so
 *   that the caller can say it is not run.
 * Refused: any other word, and the names SimAI turns into a collective
 * without a group (another suffix, "ALLREDUCE_TP"; ALLREDUCEALLTOALL, whose
 * ALLREDUCE prefix SimAI tests first).
 * Not in the file: SimAI's compute_scale and comm_scale multiply every
 * compute time and size (its command line), and its forward pass raises a
 * collective of 1 to 4095 bytes to 4096 (HYBRID_TRANSFORMER_FWD_IN_BCKWD);
 * the values here are the file's.
 *
 * Refused, at their line: a kind SimAI does not know, a key without its
 * value or given twice, a value that is not a whole number (or 0, or
 * negative), tp * pp not dividing all_gpus or ep not dividing the DP size, a
 * checkpoint index past the layers, a count line that is not a number, a
 * layer line with a missing or extra word, a negative or non-numeric time
 * or size, an unknown collective, more or fewer layer lines than the count.
 */
#ifndef ROCESIM_SIMAI_H
#define ROCESIM_SIMAI_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"

/* Parallelism kinds, as SimAI's ParallelismPolicy; NONE: not given. */
enum simai_kind {
	SIMAI_KIND_NONE,
	SIMAI_DATA,
	SIMAI_HYBRID_TRANSFORMER,
	SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD,
	SIMAI_HYBRID_DLRM,
	SIMAI_HYBRID_DLRM_ENHANCED,
	SIMAI_MODEL,
	SIMAI_HYBRID_DATA_MODEL,
	SIMAI_HYBRID_MODEL_DATA,
	SIMAI_HYBRID_CUSTOMIZED,
	SIMAI_MICRO,
	SIMAI_DISTRIBUTED_INFERENCE,
};

enum simai_coll {
	SIMAI_COLL_NONE,
	SIMAI_ALLREDUCE,
	SIMAI_ALLGATHER,
	SIMAI_REDUCESCATTER,
	SIMAI_ALLTOALL,
	SIMAI_BROADCAST, /* read; SimAI runs none */
};

/* The group a collective runs in (MockNccl::GroupType); NONE: none runs. */
enum simai_group {
	SIMAI_GROUP_NONE,
	SIMAI_GROUP_TP,
	SIMAI_GROUP_DP,
	SIMAI_GROUP_EP,
	SIMAI_GROUP_DP_EP,
};

/* Bits of simai_workload.given: the header keys the file gives. */
enum {
	SIMAI_HAS_TP = 1u << 0,
	SIMAI_HAS_EP = 1u << 1,
	SIMAI_HAS_PP = 1u << 2,
	SIMAI_HAS_VPP = 1u << 3,
	SIMAI_HAS_GA = 1u << 4,
	SIMAI_HAS_ALL_GPUS = 1u << 5,
	SIMAI_HAS_CHECKPOINTS = 1u << 6,
	SIMAI_HAS_CHECKPOINT_INITIATES = 1u << 7,
	SIMAI_HAS_PP_COMM = 1u << 8,
	SIMAI_HAS_DLRM_LAST_BOTTOM_LAYER = 1u << 9,
};

#define SIMAI_NAME_MAX 64

/* One phase of a layer: compute, then a collective. */
struct simai_phase {
	uint64_t compute; /* ns (simai_ps) */
	enum simai_coll coll;
	enum simai_group group;
	uint64_t bytes; /* as written, also for NONE and BROADCAST */
};

struct simai_layer {
	char name[SIMAI_NAME_MAX];
	int32_t reserved; /* the second word, unused by SimAI */
	struct simai_phase fwd, ig, wg;
	uint64_t update;	/* ns after each of the three collectives */
	enum simai_kind custom; /* HYBRID_CUSTOMIZED: the 13th word; else NONE */
	int line;		/* in the file, for messages */
};

struct simai_workload {
	enum simai_kind kind;
	uint32_t given; /* SIMAI_HAS_* */
	/* absent: tp 0 and all_gpus 0 (the caller's fabric decides), the
	 * others 1 (pp_comm and dlrm_last_bottom_layer 0) */
	uint32_t tp, ep, pp, vpp, ga, all_gpus;
	uint64_t pp_comm; /* bytes */
	uint32_t dlrm_last_bottom_layer;
	uint32_t *checkpoints, n_checkpoints;			/* layer indices */
	uint32_t *checkpoint_initiates, n_checkpoint_initiates; /* layer indices */
	/* the header's words SimAI ignores, space-separated, "..." at the end
	 * when cut; "" for none */
	char ignored[256];
	struct simai_layer *layers;
	uint32_t n_layers;
};

/*
 * Parse @text of @len bytes, named @path in errors, into @w (free it with
 * simai_free): 0, -EINVAL with @d naming the file, the line and @key (the
 * scenario key naming the file, or ""), or -ENOMEM. A refusal leaves @w
 * empty.
 */
int simai_parse(const char *path, const char *text, size_t len, const char *key,
		struct simai_workload *w, struct diag *d);
/* Read @path (sim/engine/textfile.h) and parse it. */
int simai_read(const char *path, const char *key, struct simai_workload *w, struct diag *d);
void simai_free(struct simai_workload *w);

/* The words of the file: "HYBRID_TRANSFORMER", "ALLGATHER", and "TP". */
const char *simai_kind_name(enum simai_kind k);
const char *simai_coll_name(enum simai_coll c);
const char *simai_group_name(enum simai_group g);

/* A time of the file (ns) in picoseconds; the parser keeps times in range. */
static inline simtime_t simai_ps(uint64_t ns)
{
	return ns * SIMTIME_NS;
}

#endif
