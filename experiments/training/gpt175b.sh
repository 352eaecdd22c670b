#!/bin/sh
# Writes a SimAI workload file (the layout SimAI's Workload.cc reads and
# AICB writes) of GPT-175B under Megatron-LM with tensor parallelism 8 and
# no pipeline, as AICB's model workload of it is laid out (aicb:
# workload/simAI/model_workload/G175B-M1-C03_GPT175B_megatron_tp8_pp1_mbs1_A100.txt):
# hidden size 12288, sequence 2048, micro-batch 1; the distributed
# optimizer's gradient ReduceScatter (11.2 GB) and parameter AllGather;
# the layer norms' and embedding's AllReduces; 12 attention and 12 MLP
# layers, each with a 48 MiB AllReduce in the tensor group forward. The
# compute times (ns) are those AICB profiled on A100. Usage:
#   gpt175b.sh > gpt175b.txt
# The data-parallel size is the GPUs the scenario gives the job over 8.
set -eu
tab=$(printf '\t')
line() { echo "$1${tab}-1${tab}$2${tab}$3${tab}$4${tab}$5${tab}$6${tab}$7${tab}$8${tab}$9${tab}${10}${tab}100"; }
echo "HYBRID_TRANSFORMER_FWD_IN_BCKWD${tab}model_parallel_NPU_group: 8 checkpoints: 0 checkpoint_initiates: 0"
echo 33
line grad_gather 1 NONE 0 13848000 NONE 0 1 ALLGATHER 1
line grad_param 1 NONE 0 13740000 NONE 0 1 REDUCESCATTER 11175321600
line layernorm 1 NONE 0 1 ALLREDUCE 5587660800 1 NONE 0
line embedding_grads 1 NONE 0 1 ALLREDUCE 150994944 1 NONE 0
line embedding_layer 523895 ALLREDUCE 150994944 1 NONE 0 1 NONE 0
i=0
while [ $i -lt 12 ]; do
	line attention_norm 2571000 ALLREDUCE 50331648 2454000 NONE 0 2454000 NONE 0
	line mlp_norm 1584000 ALLREDUCE 50331648 2081000 NONE 0 2081000 NONE 0
	i=$((i + 1))
done
line embedding_norm 1 ALLREDUCE 786432000 1 NONE 0 1 NONE 0
for k in 1 2 3; do line cross_entropy$k 1 ALLREDUCE 8192 1 NONE 0 1 NONE 0; done
