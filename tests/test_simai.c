/*
 * SimAI workload files (sim/readers/simai.h), read as SimAI's
 * Workload::initialize_workload (aliyun/SimAI, astra-sim-alibabacloud/
 * astra-sim/workload/Workload.cc) reads them, to every field; and every
 * refusal at its file and line.
 *
 * The samples in tests/simai/ are real files or excerpts of them, byte for
 * byte (tabs, spaces, a missing final newline included):
 *   microAllReduce.txt: aliyun/SimAI example/microAllReduce.txt, whole;
 *   analytical-excerpt.txt: aliyun/SimAI example/workload_analytical.txt,
 *     its header and its first 12 layer lines (the count line says 12);
 *   micro-all_reduce.txt: aliyun/aicb workload/simAI/micro_test/
 *     all_reduce.txt, whole;
 *   gpt13b-excerpt.txt: aliyun/aicb workload/simAI/model_workload/
 *     G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt, its header and
 *     first 6 layer lines;
 *   llama7b-zero3-excerpt.txt: aliyun/aicb workload/simAI/model_workload/
 *     L7B-D1-C02_Llama7B_deepspeed_zero3_A100.txt, its header and first 3
 *     layer lines (blanks and tabs mixed, as AICB wrote them).
 * The headers written inline are those of AICB's writer
 * (workload_generator/SimAI_training_workload_generator.py, dump_file).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/simai.h"
#include "rig.h"

#define KEY "workload.file"

static void read_ok(const char *rel, struct simai_workload *w)
{
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(simai_read(ts_src(rel), KEY, w, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
}

static void parse_ok(const char *text, struct simai_workload *w)
{
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(simai_parse("w.txt", text, strlen(text), KEY, w, &d), 0, "%s",
		     diag_str(&d, buf, sizeof(buf)));
}

static void phase_is(const struct simai_phase *p, uint64_t compute, enum simai_coll coll,
		     enum simai_group group, uint64_t bytes, const char *what)
{
	cr_expect_eq(p->compute, compute, "%s: compute %lu", what, (unsigned long)p->compute);
	cr_expect_eq(p->coll, coll, "%s: coll %s", what, simai_coll_name(p->coll));
	cr_expect_eq(p->group, group, "%s: group %s", what, simai_group_name(p->group));
	cr_expect_eq(p->bytes, bytes, "%s: bytes %lu", what, (unsigned long)p->bytes);
}

Test(simai, simai_micro_allreduce_example_to_every_field)
{
	struct simai_workload w;

	read_ok("tests/simai/microAllReduce.txt", &w);
	cr_expect_eq(w.kind, SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
	cr_expect_eq(w.given, SIMAI_HAS_TP | SIMAI_HAS_EP | SIMAI_HAS_PP | SIMAI_HAS_VPP |
				  SIMAI_HAS_GA | SIMAI_HAS_ALL_GPUS | SIMAI_HAS_CHECKPOINTS |
				  SIMAI_HAS_CHECKPOINT_INITIATES);
	cr_expect_eq(w.tp, 8);
	cr_expect_eq(w.ep, 1);
	cr_expect_eq(w.pp, 1);
	cr_expect_eq(w.vpp, 8);
	cr_expect_eq(w.ga, 1);
	cr_expect_eq(w.all_gpus, 8);
	cr_expect_eq(w.pp_comm, 0);
	cr_expect_eq(w.n_checkpoints, 0);
	cr_expect_eq(w.n_checkpoint_initiates, 0);
	cr_expect_str_eq(w.ignored, "");
	cr_assert_eq(w.n_layers, 2);
	for (uint32_t i = 0; i < 2; i++) {
		const struct simai_layer *l = &w.layers[i];

		cr_expect_str_eq(l->name, "embedding_layer");
		cr_expect_eq(l->reserved, -1);
		phase_is(&l->fwd, 556000, SIMAI_ALLREDUCE, SIMAI_GROUP_TP, i ? 67108864 : 16777216,
			 "fwd");
		phase_is(&l->ig, 1, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "ig");
		phase_is(&l->wg, 1, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "wg");
		cr_expect_eq(l->update, 1);
		cr_expect_eq(l->custom, SIMAI_KIND_NONE);
		cr_expect_eq(l->line, (int)i + 3);
	}
	cr_expect_eq(simai_ps(w.layers[0].fwd.compute), 556000000, "556000 ns = 556 us");
	simai_free(&w);
	cr_expect_null(w.layers);
}

/* One layer line of the expected table: the file's words, read back. */
struct row {
	const char *name;
	uint64_t c[3];
	enum simai_coll coll[3];
	enum simai_group group[3];
	uint64_t bytes[3];
};

Test(simai, simai_analytical_example_groups_from_suffix_and_phase)
{
	static const struct row rows[] = {
	    {"grad_gather",
	     {1, 1, 1},
	     {SIMAI_COLL_NONE, SIMAI_COLL_NONE, SIMAI_ALLGATHER},
	     {SIMAI_GROUP_NONE, SIMAI_GROUP_NONE, SIMAI_GROUP_DP},
	     {0, 0, 2807758848}},
	    {"grad_param_comm",
	     {1, 1, 1},
	     {SIMAI_COLL_NONE, SIMAI_COLL_NONE, SIMAI_REDUCESCATTER},
	     {SIMAI_GROUP_NONE, SIMAI_GROUP_NONE, SIMAI_GROUP_DP},
	     {0, 0, 5615517696}},
	    {"grad_param_compute",
	     {1, 29700224, 1},
	     {SIMAI_COLL_NONE, SIMAI_COLL_NONE, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_NONE, SIMAI_GROUP_NONE, SIMAI_GROUP_NONE},
	     {0, 0, 0}},
	    {"embedding_grads",
	     {1, 1, 1},
	     {SIMAI_COLL_NONE, SIMAI_ALLREDUCE, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_NONE, SIMAI_GROUP_TP, SIMAI_GROUP_NONE},
	     {0, 50331648, 0}},
	    {"moe_grad_norm1",
	     {1, 1, 1},
	     {SIMAI_COLL_NONE, SIMAI_COLL_NONE, SIMAI_ALLGATHER},
	     {SIMAI_GROUP_NONE, SIMAI_GROUP_NONE, SIMAI_GROUP_DP_EP},
	     {0, 0, 19327352832}},
	    {"moe_grad_norm2",
	     {1, 1, 1},
	     {SIMAI_COLL_NONE, SIMAI_COLL_NONE, SIMAI_REDUCESCATTER},
	     {SIMAI_GROUP_NONE, SIMAI_GROUP_NONE, SIMAI_GROUP_DP_EP},
	     {0, 0, 38654705664}},
	    {"embedding_layer",
	     {622731, 1, 15091072},
	     {SIMAI_ALLREDUCE, SIMAI_COLL_NONE, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_TP, SIMAI_GROUP_NONE, SIMAI_GROUP_NONE},
	     {50331648, 0, 0}},
	    {"attention_column",
	     {1750840, 875420, 875420},
	     {SIMAI_ALLGATHER, SIMAI_REDUCESCATTER, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_TP, SIMAI_GROUP_TP, SIMAI_GROUP_NONE},
	     {50331648, 0, 0}},
	    {"attention_row",
	     {1750840, 875420, 875420},
	     {SIMAI_REDUCESCATTER, SIMAI_ALLGATHER, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_TP, SIMAI_GROUP_TP, SIMAI_GROUP_NONE},
	     {50331648, 50331648, 0}},
	    {"mlp_moelayer",
	     {7956367, 7956367, 1},
	     {SIMAI_ALLGATHER, SIMAI_ALLGATHER, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_TP, SIMAI_GROUP_TP, SIMAI_GROUP_NONE},
	     {1572864, 1572864, 0}},
	    {"mlp_moelayer",
	     {1, 1, 1},
	     {SIMAI_ALLTOALL, SIMAI_ALLTOALL, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_TP, SIMAI_GROUP_TP, SIMAI_GROUP_NONE},
	     {25165824, 25165824, 0}},
	    {"mlp_moelayer",
	     {1, 1, 1},
	     {SIMAI_ALLTOALL, SIMAI_ALLTOALL, SIMAI_COLL_NONE},
	     {SIMAI_GROUP_EP, SIMAI_GROUP_EP, SIMAI_GROUP_NONE},
	     {100663296, 100663296, 0}},
	};
	struct simai_workload w;

	read_ok("tests/simai/analytical-excerpt.txt", &w);
	cr_expect_eq(w.kind, SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
	cr_expect_eq(w.tp, 2);
	cr_expect_eq(w.ep, 16);
	cr_expect_eq(w.pp, 12);
	cr_expect_eq(w.vpp, 8);
	cr_expect_eq(w.ga, 24);
	cr_expect_eq(w.all_gpus, 9216, "DP = 9216 / (2 * 12) = 384, DP_EP = 384 / 16 = 24");
	cr_expect(w.given & SIMAI_HAS_PP_COMM);
	cr_expect_eq(w.pp_comm, 50331648, "\"pp_comm 50331648\", without the colon");
	cr_expect_str_eq(w.ignored, "");
	cr_assert_eq(w.n_layers, 12);
	for (uint32_t i = 0; i < 12; i++) {
		const struct simai_layer *l = &w.layers[i];
		const struct simai_phase *ph[] = {&l->fwd, &l->ig, &l->wg};
		char what[64];

		cr_expect_str_eq(l->name, rows[i].name, "line %u", i + 3);
		cr_expect_eq(l->reserved, -1);
		cr_expect_eq(l->update, 100);
		cr_expect_eq(l->line, (int)i + 3);
		for (int p = 0; p < 3; p++) {
			snprintf(what, sizeof(what), "line %u phase %d", i + 3, p);
			phase_is(ph[p], rows[i].c[p], rows[i].coll[p], rows[i].group[p],
				 rows[i].bytes[p], what);
		}
	}
	simai_free(&w);
}

Test(simai, aicb_micro_test_runs_its_allreduces_in_the_dp_group)
{
	struct simai_workload w;

	read_ok("tests/simai/micro-all_reduce.txt", &w);
	cr_expect_eq(w.kind, SIMAI_MICRO);
	cr_expect_eq(w.given, 0, "MICRO: no key");
	cr_expect_eq(w.tp, 0, "not given");
	cr_expect_eq(w.all_gpus, 0, "not given");
	cr_expect_eq(w.ep, 1);
	cr_expect_eq(w.pp, 1);
	cr_expect_eq(w.vpp, 1);
	cr_expect_eq(w.ga, 1);
	cr_assert_eq(w.n_layers, 19);
	for (uint32_t i = 0; i < 19; i++) {
		const struct simai_layer *l = &w.layers[i];

		cr_expect_str_eq(l->name, "micro_test");
		phase_is(&l->fwd, 1, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "fwd");
		phase_is(&l->ig, 1, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "ig");
		phase_is(&l->wg, 1, SIMAI_ALLREDUCE, SIMAI_GROUP_DP, 4096ull << i, "wg");
		cr_expect_eq(l->update, 1);
		cr_expect_eq(l->line, (int)i + 3);
	}
	cr_expect_eq(w.layers[18].wg.bytes, 1073741824, "4 KiB doubled 18 times: 1 GiB");
	simai_free(&w);
}

Test(simai, aicb_gpt13b_broadcast_is_read_and_keys_left_out_keep_defaults)
{
	struct simai_workload w;

	read_ok("tests/simai/gpt13b-excerpt.txt", &w);
	cr_expect_eq(w.kind, SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
	cr_expect_eq(w.given,
		     SIMAI_HAS_TP | SIMAI_HAS_CHECKPOINTS | SIMAI_HAS_CHECKPOINT_INITIATES);
	cr_expect_eq(w.tp, 8);
	cr_expect_eq(w.ep, 1);
	cr_expect_eq(w.pp, 1);
	cr_expect_eq(w.vpp, 1);
	cr_expect_eq(w.ga, 1);
	cr_expect_eq(w.all_gpus, 0);
	cr_assert_eq(w.n_layers, 6);
	cr_expect_str_eq(w.layers[0].name, "norm");
	phase_is(&w.layers[0].fwd, 0, SIMAI_BROADCAST, SIMAI_GROUP_NONE, 16384, "norm fwd");
	cr_expect_str_eq(w.layers[1].name, "grad_norm");
	phase_is(&w.layers[1].fwd, 14565000, SIMAI_ALLGATHER, SIMAI_GROUP_TP, 3248619520,
		 "grad_norm fwd");
	phase_is(&w.layers[1].ig, 13391000, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "grad_norm ig");
	phase_is(&w.layers[1].wg, 1, SIMAI_REDUCESCATTER, SIMAI_GROUP_DP, 6497239040,
		 "grad_norm wg");
	phase_is(&w.layers[2].ig, 1, SIMAI_ALLREDUCE, SIMAI_GROUP_TP, 3248619520, "layernorm ig");
	cr_expect_str_eq(w.layers[4].name, "attention_layer");
	phase_is(&w.layers[4].fwd, 752000, SIMAI_ALLREDUCE, SIMAI_GROUP_TP, 20971520, "attn fwd");
	phase_is(&w.layers[4].ig, 752000, SIMAI_ALLREDUCE, SIMAI_GROUP_TP, 20971520, "attn ig");
	phase_is(&w.layers[4].wg, 752000, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "attn wg");
	cr_expect_str_eq(w.layers[5].name, "mlp_layer");
	phase_is(&w.layers[5].fwd, 750000, SIMAI_ALLREDUCE, SIMAI_GROUP_TP, 20971520, "mlp fwd");
	cr_expect_eq(w.layers[5].update, 100);
	cr_expect_eq(w.layers[5].line, 8);
	simai_free(&w);
}

Test(simai, aicb_llama7b_blanks_and_tabs_mixed)
{
	struct simai_workload w;

	read_ok("tests/simai/llama7b-zero3-excerpt.txt", &w);
	cr_expect_eq(w.tp, 1);
	cr_assert_eq(w.n_layers, 3);
	cr_expect_str_eq(w.layers[0].name, "Llama_layer1");
	phase_is(&w.layers[0].fwd, 14356000, SIMAI_COLL_NONE, SIMAI_GROUP_NONE, 0, "fwd");
	phase_is(&w.layers[0].ig, 4756000, SIMAI_ALLGATHER, SIMAI_GROUP_TP, 357468, "ig");
	phase_is(&w.layers[0].wg, 1, SIMAI_REDUCESCATTER, SIMAI_GROUP_DP, 1889785610, "wg");
	phase_is(&w.layers[2].ig, 13844000, SIMAI_ALLGATHER, SIMAI_GROUP_TP, 317843, "ig 3");
	simai_free(&w);
}

Test(simai, header_words_simai_does_not_read_are_listed)
{
	struct simai_workload w;

	/* AICB's multi-all-reduce writer: a backslash-newline inside its
	 * f-string keeps the next line's indent, and it spells ep
	 * "expert_parallel_npu_group:", which SimAI does not read */
	parse_ok(
	    "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 "
	    "                        expert_parallel_npu_group: 2 pp: 1 "
	    "                        ga: 1 all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0\n"
	    "1\n"
	    "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE_EP\t4096\t1\n",
	    &w);
	cr_expect_str_eq(w.ignored, "expert_parallel_npu_group: 2");
	cr_expect_eq(w.ep, 1, "not read");
	cr_expect_eq(w.tp, 8);
	phase_is(&w.layers[0].wg, 1, SIMAI_ALLREDUCE, SIMAI_GROUP_EP, 4096, "wg _EP");
	simai_free(&w);

	/* the group sizes are read for the two transformer kinds only, the
	 * checkpoints for HYBRID_TRANSFORMER_FWD_IN_BCKWD only */
	parse_ok(
	    "DATA model_parallel_NPU_group: 8 all_gpus: 16\n1\nl -1 5 NONE 0 6 NONE 0 7 ALLREDUCE "
	    "64 8\n",
	    &w);
	cr_expect_eq(w.kind, SIMAI_DATA);
	cr_expect_eq(w.given, 0);
	cr_expect_str_eq(w.ignored, "model_parallel_NPU_group: 8 all_gpus: 16");
	simai_free(&w);
	parse_ok("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 checkpoints: 1 0 "
		 "checkpoint_initiates: 0\n1\nl -1 5 NONE 0 6 NONE 0 7 NONE 0 8\n",
		 &w);
	cr_expect_eq(w.kind, SIMAI_HYBRID_TRANSFORMER);
	cr_expect_eq(w.given, SIMAI_HAS_TP);
	cr_expect_str_eq(w.ignored, "checkpoints: 1 0 checkpoint_initiates: 0");
	cr_expect_eq(w.n_checkpoints, 0);
	simai_free(&w);
}

Test(simai, a_long_list_of_ignored_words_is_cut_with_dots)
{
	struct simai_workload w;
	char text[4096];
	size_t n;

	/* 100 words "wNN:": 50 fit with their blanks (249 characters), then
	 * " ..." (253 of the 255) */
	n = (size_t)snprintf(text, sizeof(text), "MICRO");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " w%02d:", i);
	snprintf(text + n, sizeof(text) - n,
		 "\n1\n"
		 "l -1 5 NONE 0 6 NONE 0 7 NONE 0 8\n");
	parse_ok(text, &w);
	cr_expect_lt(strlen(w.ignored), sizeof(w.ignored));
	cr_expect_eq(strncmp(w.ignored, "w00: w01: w02:", 14), 0, "%s", w.ignored);
	cr_expect_str_eq(w.ignored + strlen(w.ignored) - 8, "w49: ...", "%s", w.ignored);
	simai_free(&w);
}

Test(simai, checkpoints_pp_comm_dlrm_and_customized_layers)
{
	struct simai_workload w;

	parse_ok("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 2 pp: 2 vpp: 4 "
		 "ga: 8 all_gpus: 32 checkpoints: 2 0 2 checkpoint_initiates: 1 1 pp_comm: "
		 "6291456.0\n"
		 "3\n"
		 "a -1 10 ALLGATHER_EP 1 20 REDUCESCATTER_DP_EP 2 30 ALLTOALL_DP_EP 3 40\n"
		 "b 7 0 NONE 0 0 NONE 0 0 NONE 0 0\n"
		 "c -1 1 ALLREDUCE_DP_EP 4 2 ALLTOALL_EP 5 3 ALLGATHER_EP 6 4\n",
		 &w);
	cr_expect_eq(w.pp_comm, 6291456, "AICB writes a Python float");
	cr_assert_eq(w.n_checkpoints, 2);
	cr_expect_eq(w.checkpoints[0], 0);
	cr_expect_eq(w.checkpoints[1], 2);
	cr_assert_eq(w.n_checkpoint_initiates, 1);
	cr_expect_eq(w.checkpoint_initiates[0], 1);
	phase_is(&w.layers[0].fwd, 10, SIMAI_ALLGATHER, SIMAI_GROUP_EP, 1, "a fwd");
	phase_is(&w.layers[0].ig, 20, SIMAI_REDUCESCATTER, SIMAI_GROUP_DP_EP, 2, "a ig");
	phase_is(&w.layers[0].wg, 30, SIMAI_ALLTOALL, SIMAI_GROUP_DP_EP, 3, "a wg");
	cr_expect_eq(w.layers[0].update, 40);
	cr_expect_eq(w.layers[1].reserved, 7);
	phase_is(&w.layers[2].fwd, 1, SIMAI_ALLREDUCE, SIMAI_GROUP_DP_EP, 4, "c fwd");
	phase_is(&w.layers[2].ig, 2, SIMAI_ALLTOALL, SIMAI_GROUP_EP, 5, "c ig");
	phase_is(&w.layers[2].wg, 3, SIMAI_ALLGATHER, SIMAI_GROUP_EP, 6, "c wg");
	simai_free(&w);

	parse_ok("HYBRID_DLRM DLRM_LAST_BOTTOM_LAYER: 0 pp_comm: 0\n1\nl -1 5 NONE 0 6 NONE 0 7 "
		 "ALLTOALL 64 8\n",
		 &w);
	cr_expect_eq(w.kind, SIMAI_HYBRID_DLRM);
	cr_expect_eq(w.given, SIMAI_HAS_DLRM_LAST_BOTTOM_LAYER | SIMAI_HAS_PP_COMM);
	cr_expect_eq(w.dlrm_last_bottom_layer, 0);
	simai_free(&w);

	parse_ok("HYBRID_CUSTOMIZED\n2\nl -1 5 NONE 0 6 NONE 0 7 ALLREDUCE 64 8 DATA\n"
		 "m -1 5 ALLREDUCE 64 6 NONE 0 7 NONE 0 8 MODEL\n",
		 &w);
	cr_expect_eq(w.layers[0].custom, SIMAI_DATA);
	cr_expect_eq(w.layers[1].custom, SIMAI_MODEL);
	simai_free(&w);
}

Test(simai, blank_lines_crlf_and_long_times)
{
	struct simai_workload w;

	parse_ok(
	    "MICRO\r\n2\r\n\r\nx -1 18446744073709551 NONE 0 0 NONE 0 0 ALLREDUCE "
	    "18446744073709551615 0\r\n\n  \ny\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tNONE\t0\t1 \r\n\n",
	    &w);
	cr_assert_eq(w.n_layers, 2);
	cr_expect_eq(w.layers[0].line, 4);
	cr_expect_eq(w.layers[1].line, 7);
	cr_expect_eq(w.layers[0].fwd.compute, 18446744073709551ull, "UINT64_MAX / 1000 ns");
	cr_expect_eq(simai_ps(w.layers[0].fwd.compute), 18446744073709551000ull);
	cr_expect_eq(w.layers[0].wg.bytes, UINT64_MAX);
	simai_free(&w);
	cr_expect_str_eq(simai_kind_name(SIMAI_HYBRID_DLRM_ENHANCED), "HYBRID_DLRM_ENHANCED");
	cr_expect_str_eq(simai_coll_name(SIMAI_REDUCESCATTER), "REDUCESCATTER");
	cr_expect_str_eq(simai_group_name(SIMAI_GROUP_DP_EP), "DP_EP");
}

/* @text is refused with exactly @want ("w.txt:LINE: workload.file: ..."). */
static void refused(const char *text, const char *want)
{
	struct simai_workload w;
	struct diag d = {0};
	char buf[1024];

	cr_expect_eq(simai_parse("w.txt", text, strlen(text), KEY, &w, &d), -EINVAL, "%s", text);
	cr_expect_str_eq(diag_str(&d, buf, sizeof(buf)), want);
	cr_expect_null(w.layers, "a refusal leaves nothing to free");
	cr_expect_null(w.checkpoints);
}

#define HDR "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
#define L "l -1 5 NONE 0 6 NONE 0 7 NONE 0 8\n"

Test(simai, header_refusals_name_line_one)
{
	refused("", "w.txt:1: workload.file: expected the parallelism kind on the first line (e.g. "
		    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ...)");
	refused("HYBRID\n1\n" L,
		"w.txt:1: workload.file: \"HYBRID\" is not a parallelism kind of SimAI (DATA, "
		"HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM, "
		"HYBRID_DLRM_ENHANCED, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, "
		"HYBRID_CUSTOMIZED, MICRO, DISTRIBUTED_INFERENCE)");
	refused(HDR "ep:\n1\n" L, "w.txt:1: workload.file: ep: without its value");
	refused(HDR "pp: x\n1\n" L,
		"w.txt:1: workload.file: pp: \"x\" is not a whole number above 0");
	refused(HDR "ga: -2\n1\n" L,
		"w.txt:1: workload.file: ga: \"-2\" is not a whole number above 0");
	refused(HDR "vpp: 0\n1\n" L,
		"w.txt:1: workload.file: vpp: \"0\" is not a whole number above 0");
	refused(HDR "model_parallel_NPU_group: 4\n1\n" L,
		"w.txt:1: workload.file: model_parallel_NPU_group: given twice");
	refused(HDR "pp: 2\n1\n" L,
		"w.txt:1: workload.file: pp: 2 without pp_comm (the bytes between stages)");
	refused(HDR "pp: 1 pp_comm: 4096\n1\n" L,
		"w.txt:1: workload.file: pp_comm 4096 with a single pipeline stage");
	refused(HDR "pp_comm: 1.5\n1\n" L,
		"w.txt:1: workload.file: pp_comm \"1.5\" is not a size in bytes");
	refused(HDR "pp: 2 pp_comm 8 all_gpus: 6\n1\n" L,
		"w.txt:1: workload.file: model_parallel_NPU_group 2 times pp 2 does not divide "
		"all_gpus 6");
	refused(HDR "ep: 3 all_gpus: 8\n1\n" L,
		"w.txt:1: workload.file: ep 3 does not divide the data-parallel size 4 (all_gpus "
		"/ (model_parallel_NPU_group * pp))");
	refused(HDR "checkpoints: 2 0\n1\n" L,
		"w.txt:1: workload.file: checkpoints: 2 is followed by 1 layer indices");
	refused(HDR "checkpoints: two\n1\n" L,
		"w.txt:1: workload.file: checkpoints: \"two\" is not a count of layers");
	refused(HDR "checkpoint_initiates: 1 x\n1\n" L,
		"w.txt:1: workload.file: checkpoint_initiates: \"x\" is not a layer index");
	refused(HDR "checkpoints: 1 1\n1\n" L,
		"w.txt:1: workload.file: checkpoints: layer 1 past the 1 layers (indices from 0)");
}

Test(simai, count_and_layer_refusals_name_their_line)
{
	const char *counts = "w.txt:2: workload.file: expected the number of layer lines on the "
			     "second line (1 to 1048576)";

	refused("MICRO", "w.txt:2: workload.file: expected the number of layer lines on the "
			 "second line");
	refused("MICRO\n\n1\n" L, counts);
	refused("MICRO\nx\n" L, counts);
	refused("MICRO\n0\n", counts);
	refused("MICRO\n1 2\n" L, counts);
	refused("MICRO\n2\n" L "\n",
		"w.txt:4: workload.file: the second line announces 2 layers, the file has 1");
	refused("MICRO\n1\n" L L, "w.txt:4: workload.file: a layer line past the 1 the second "
				  "line announces");
	refused("MICRO\n1\nl -1 5 NONE 0 6 NONE 0 7 NONE 0\n",
		"w.txt:3: workload.file: missing words: expected 12, \"name reserved fwd_compute "
		"fwd_coll fwd_bytes ig_compute ig_coll ig_bytes wg_compute wg_coll wg_bytes "
		"update\"");
	refused("MICRO\n1\nl -1 5 NONE 0 6 NONE 0 7 NONE 0 8 DATA\n",
		"w.txt:3: workload.file: too many words: expected 12, \"name reserved "
		"fwd_compute fwd_coll fwd_bytes ig_compute ig_coll ig_bytes wg_compute wg_coll "
		"wg_bytes update\"");
	refused("HYBRID_CUSTOMIZED\n1\n" L,
		"w.txt:3: workload.file: missing words: expected 13, \"name reserved fwd_compute "
		"fwd_coll fwd_bytes ig_compute ig_coll ig_bytes wg_compute wg_coll wg_bytes update "
		"kind\"");
	refused("HYBRID_CUSTOMIZED\n1\nl -1 5 NONE 0 6 NONE 0 7 NONE 0 8 TP\n",
		"w.txt:3: workload.file: kind \"TP\" is not a parallelism kind of SimAI");
	refused("MICRO\n1\nl x 5 NONE 0 6 NONE 0 7 NONE 0 8\n",
		"w.txt:3: workload.file: reserved \"x\" is not a whole number (AICB writes -1)");
	refused("MICRO\n1\nl -1 -5 NONE 0 6 NONE 0 7 NONE 0 8\n",
		"w.txt:3: workload.file: fwd_compute \"-5\" is not a time in ns (0 or more)");
	refused("MICRO\n1\nl -1 5 NONE 0 6.5 NONE 0 7 NONE 0 8\n",
		"w.txt:3: workload.file: ig_compute \"6.5\" is not a time in ns (0 or more)");
	refused("MICRO\n1\nl -1 5 NONE 0 6 NONE 0 18446744073709552 NONE 0 8\n",
		"w.txt:3: workload.file: wg_compute \"18446744073709552\" is not a time in ns (0 "
		"or more)");
	refused("MICRO\n1\nl -1 5 NONE 0 6 NONE 0 7 NONE 0 -8\n",
		"w.txt:3: workload.file: update \"-8\" is not a time in ns (0 or more)");
	refused("MICRO\n1\nl -1 5 NONE 1e6 6 NONE 0 7 NONE 0 8\n",
		"w.txt:3: workload.file: fwd_bytes \"1e6\" is not a size in bytes (0 or more)");
	refused("MICRO\n1\nl -1 5 NONE 0 6 NONE 18446744073709551616 7 NONE 0 8\n",
		"w.txt:3: workload.file: ig_bytes \"18446744073709551616\" is not a size in bytes "
		"(0 or more)");
	refused("MICRO\n1\nl -1 5 NONE 0 6 NONE 0 7 ALLREDUCEALLTOALL 8 8\n",
		"w.txt:3: workload.file: wg_coll \"ALLREDUCEALLTOALL\" is not a collective of "
		"SimAI (NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, bare or with _EP or "
		"_DP_EP)");
	refused("MICRO\n1\nl -1 5 ALLREDUCE_TP 8 6 NONE 0 7 NONE 0 8\n",
		"w.txt:3: workload.file: fwd_coll \"ALLREDUCE_TP\" is not a collective of SimAI "
		"(NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, bare or with _EP or "
		"_DP_EP)");
	refused("MICRO\n1\nl -1 5 NONE 0 6 allreduce 8 7 NONE 0 8\n",
		"w.txt:3: workload.file: ig_coll \"allreduce\" is not a collective of SimAI "
		"(NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, bare or with _EP or "
		"_DP_EP)");
	refused("MICRO\n1\nabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd -1 5 "
		"NONE 0 6 NONE 0 7 NONE 0 8\n",
		"w.txt:3: workload.file: layer name longer than 63 characters");
}

Test(simai, a_missing_file_is_refused_with_its_path)
{
	struct simai_workload w;
	struct diag d = {0};

	cr_expect_eq(simai_read("/nonexistent/w.txt", KEY, &w, &d), -EINVAL);
	cr_expect_str_eq(d.file, "/nonexistent/w.txt");
	cr_expect_null(w.layers);
}
