#!/bin/sh
# Writes a SimAI workload file (the layout SimAI's Workload.cc reads and
# AICB writes) of GPT-13B under Megatron-LM with tensor parallelism 8:
# 40 transformer layers of hidden size 5120, sequence 2048, micro-batch 1,
# each an attention and an MLP layer with a 20 MiB AllReduce in the tensor
# group forward and backward; the distributed optimizer's parameter
# AllGather (3.25 GB) and gradient ReduceScatter (6.5 GB); the embedding,
# loss and optimizer steps' small AllReduces. Compute times (ns) are those
# AICB profiled on A100 for this model (aicb: workload/simAI/model_workload/
# G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt). Usage:
#   gpt13b.sh [PP GA ALL_GPUS] > gpt13b.txt
# With PP, GA and ALL_GPUS the header says them (and pp_comm, the bytes of
# a micro-batch's activations: 2 x 2048 x 5120 x 1 / 8, as AICB writes it
# under sequence parallelism); without, it says only tp, as AICB's file.
set -eu
pp=${1:-}; ga=${2:-}; all=${3:-}
tab=$(printf '\t')
line() { echo "$1${tab}-1${tab}$2${tab}$3${tab}$4${tab}$5${tab}$6${tab}$7${tab}$8${tab}$9${tab}${10}${tab}100"; }
if [ -n "$pp" ]; then
	echo "HYBRID_TRANSFORMER_FWD_IN_BCKWD${tab}model_parallel_NPU_group: 8 ep: 1 pp: $pp vpp: 1 ga: $ga all_gpus: $all checkpoints: 0 checkpoint_initiates: 0 pp_comm: 2621440"
else
	echo "HYBRID_TRANSFORMER_FWD_IN_BCKWD${tab}model_parallel_NPU_group: 8 checkpoints: 0 checkpoint_initiates: 0"
fi
echo 92
line norm 0 BROADCAST 16384 1 NONE 0 1 NONE 0
line grad_norm 14565000 ALLGATHER 3248619520 13391000 NONE 0 1 REDUCESCATTER 6497239040
line layernorm 1 NONE 0 1 ALLREDUCE 3248619520 1 NONE 0
line embedding_layer 1 ALLREDUCE 20971520 1 ALLREDUCE 20971520 1 NONE 0
i=0
while [ $i -lt 40 ]; do
	line attention_layer 752000 ALLREDUCE 20971520 752000 ALLREDUCE 20971520 752000 NONE 0
	line mlp_layer 750000 ALLREDUCE 20971520 750000 ALLREDUCE 20971520 750000 NONE 0
	i=$((i + 1))
done
line embedding_norm 1 ALLREDUCE 327680000 1 NONE 0 1 NONE 0
for k in 1 2 3; do line cross_entropy$k 1 ALLREDUCE 8192 1 NONE 0 1 NONE 0; done
for k in 1 2 3 4; do line optimizer$k 1 ALLREDUCE 4 1 NONE 0 1 NONE 0; done
