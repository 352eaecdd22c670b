/*
 * nccl-tests' command line, sizes and table (sim/readers/nccl_tests.h),
 * against nccl-tests' source (NVIDIA/nccl-tests src/common.cu, src/util.cu,
 * the <collective>.cu files) and real outputs:
 *   tests/nccl_tests/dgx-spark-all_gather.txt: the table of
 *     all_gather_perf (nccl-tests 2.17.6, 2 ranks, minBytes = maxBytes =
 *     16G) pasted in NVIDIA/dgx-spark-playbooks issue #25, its blanks kept,
 *     up to the line the paste gives whole ("Out of bounds values");
 *   tests/nccl_tests/mooncake-all_reduce-rows.txt: the rows of
 *     all_reduce_perf (nccl-tests 2.19.7, 8 ranks, -b 64 -e 1G -f 2 -w 10
 *     -n 100) pasted in kvcache-ai/Mooncake pull request #3484.
 * The printed times carry two decimals at most; the times fed here carry
 * one more, chosen inside the printed rounding so that algbw and busbw
 * come out as printed (the real times had more digits).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/nccl_tests.h"
#include "rig.h"

#define KEY "workload.command"

static void parse_ok(const char *cmd, struct nccl_tests_cmd *c)
{
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(nccl_tests_parse_command(cmd, KEY, c, &d), 0, "%s: %s", cmd,
		     diag_str(&d, buf, sizeof(buf)));
}

static void refused(const char *cmd, const char *want)
{
	struct nccl_tests_cmd c;
	struct diag d = {0};
	char buf[1024];

	cr_expect_eq(nccl_tests_parse_command(cmd, KEY, &c, &d), -EINVAL, "%s", cmd);
	cr_expect_str_eq(diag_str(&d, buf, sizeof(buf)), want, "%s", cmd);
}

/* The whole text of @rel. */
static char *slurp(const char *rel)
{
	FILE *f = fopen(ts_src(rel), "r");
	char *text;
	long n;

	cr_assert_not_null(f, "%s", rel);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	cr_assert_not_null(text);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* What nccl_tests_print writes for these rows. */
static char *print(const struct nccl_tests_cmd *c, uint32_t n_ranks,
		   const struct nccl_tests_row *rows, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	nccl_tests_print(f, c, n_ranks, rows, n);
	fclose(f);
	return text;
}

/* @got and @want the same, line by line, for @want's lines. */
static void same_lines(const char *got, const char *want)
{
	int line = 1;

	while (*want) {
		size_t lw = strcspn(want, "\n"), lg = strcspn(got, "\n");

		cr_expect(lw == lg && !memcmp(got, want, lw),
			  "line %d:\n got  [%.*s]\n want [%.*s]", line, (int)lg, got, (int)lw,
			  want);
		want += lw + (want[lw] == '\n');
		got += lg + (got[lg] == '\n');
		line++;
	}
}

Test(nccl_tests, defaults_are_common_cu_s)
{
	struct nccl_tests_cmd c;

	parse_ok("./build/all_reduce_perf", &c);
	cr_expect_eq(c.coll, NCCL_TESTS_ALL_REDUCE);
	cr_expect_str_eq(c.binary, "all_reduce_perf");
	cr_expect_eq(c.minbytes, 33554432, "32M");
	cr_expect_eq(c.maxbytes, 33554432);
	cr_expect_eq(c.stepbytes, 1048576, "1M");
	cr_expect_eq(c.stepfactor, 1);
	cr_expect_eq(c.iters, 20);
	cr_expect_eq(c.warmup_iters, 1);
	cr_expect_eq(c.agg_iters, 1);
	cr_expect_str_eq(c.type, "float");
	cr_expect_eq(c.elt_size, 4);
	cr_expect_str_eq(c.op, "sum");
	cr_expect_eq(c.root, 0);
	cr_expect_eq(c.nthreads, 1);
	cr_expect_eq(c.ngpus, 1);
	cr_expect_eq(c.check, 1);
	cr_expect_eq(c.run_cycles, 1);
	cr_expect_eq(c.blocking, 0);
	cr_expect_eq(c.cudagraph, 0);
	cr_expect_eq(c.average, 1);
	cr_expect_eq(c.cta_policy, -1);
	cr_expect_eq(c.device_cta_count, 16);
	cr_expect_str_eq(c.unmodelled, "");
	cr_expect_str_eq(nccl_tests_coll_name(c.coll), "all_reduce");
}

Test(nccl_tests, every_option_short)
{
	struct nccl_tests_cmd c;

	parse_ok("all_gather_perf_mpi -t 2 -g 4 -b 1K -e 1G -i 2M -f 4 -n 50 -m 2 -w 10 -N 3 -p 1 "
		 "-c 0 -o max -d half -r 3 -z 1 -y 1 -T 60 -G 2 -C 1 -S 1 -J out.json -a 2 -R 1 "
		 "-x 1 -D 1 -V 32 -M 1 -u 1 -I 1 -K 2 -R 2",
		 &c);
	cr_expect_eq(c.coll, NCCL_TESTS_ALL_GATHER);
	cr_expect_str_eq(c.binary, "all_gather_perf_mpi", "with the Makefile's NAME_SUFFIX");
	cr_expect_eq(c.nthreads, 2);
	cr_expect_eq(c.ngpus, 4);
	cr_expect_eq(c.minbytes, 1024);
	cr_expect_eq(c.maxbytes, 1073741824);
	cr_expect_eq(c.stepbytes, 2097152);
	cr_expect_eq(c.stepfactor, 4);
	cr_expect_eq(c.iters, 50);
	cr_expect_eq(c.agg_iters, 2);
	cr_expect_eq(c.warmup_iters, 10);
	cr_expect_eq(c.run_cycles, 3);
	cr_expect_eq(c.parallel_init, 1);
	cr_expect_eq(c.check, 0);
	cr_expect_str_eq(c.op, "max");
	cr_expect_str_eq(c.type, "half");
	cr_expect_eq(c.elt_size, 2);
	cr_expect_eq(c.root, 3);
	cr_expect_eq(c.blocking, 1);
	cr_expect_eq(c.stream_null, 1);
	cr_expect_eq(c.timeout, 60);
	cr_expect_eq(c.cudagraph, 2);
	cr_expect_eq(c.report_cputime, 1);
	cr_expect_eq(c.report_timestamps, 1);
	cr_expect_str_eq(c.output_file, "out.json");
	cr_expect_eq(c.average, 2);
	cr_expect_eq(c.local_register, 2, "the last -R");
	cr_expect_eq(c.cta_policy, 1);
	cr_expect_eq(c.device_implementation, 1);
	cr_expect_eq(c.device_cta_count, 32);
	cr_expect_eq(c.memory, 1);
	cr_expect_eq(c.unalign, 1);
	cr_expect_eq(c.per_iter_timing, 1);
	cr_expect_eq(c.per_iter_skip, 2);
	cr_expect_str_eq(c.unmodelled, "-t 2 -g 4 -m 2 -N 3 -p 1 -c 0 -z 1 -y 1 -T 60 -G 2 -C 1 "
				       "-S 1 -J out.json -a 2 -R 1 -x 1 -D 1 -V 32 -M 1 -u 1 -I 1 "
				       "-K 2 -R 2");
}

Test(nccl_tests, long_options_prefixes_attached_values_and_a_launcher)
{
	struct nccl_tests_cmd c;

	parse_ok("mpirun -np 16 -N 8 -x NCCL_IB_HCA=mlx5_0,mlx5_1 --bind-to none \\\n"
		 "  /opt/nccl-tests/build/reduce_scatter_perf --minbytes=1.5K --maxbytes 2G "
		 "--stepf 2 --datatype=bfloat16 --op avg --iters=5 -w0 -b'8 K' --check=0",
		 &c);
	cr_expect_eq(c.coll, NCCL_TESTS_REDUCE_SCATTER);
	cr_expect_eq(c.minbytes, 8192, "the last -b, 8 K");
	cr_expect_eq(c.maxbytes, 2147483648);
	cr_expect_eq(c.stepfactor, 2);
	cr_expect_str_eq(c.type, "bfloat16");
	cr_expect_eq(c.elt_size, 2);
	cr_expect_str_eq(c.op, "avg");
	cr_expect_eq(c.iters, 5);
	cr_expect_eq(c.warmup_iters, 0);
	cr_expect_eq(c.check, 0);
	cr_expect_str_eq(c.unmodelled, "-c 0");
	parse_ok("all_reduce_perf -J /a/path/of/more/than/forty/characters/out.json -z 1", &c);
	cr_expect_str_eq(c.unmodelled, "-J -z 1", "a long path named by its option alone");
	/* parsesize: K, M, G in either case, powers of 1024, a fraction, what
	 * follows the suffix ignored; strtol base 0 for the integers */
	parse_ok("alltoall_perf -b 1.5k -e 128MB -i 0x10 -n 0x14 -f 2", &c);
	cr_expect_eq(c.minbytes, 1536);
	cr_expect_eq(c.maxbytes, 134217728);
	cr_expect_eq(c.stepbytes, 16);
	cr_expect_eq(c.iters, 20);
	parse_ok("broadcast_perf -e 1g -r 2", &c);
	cr_expect_eq(c.coll, NCCL_TESTS_BROADCAST);
	cr_expect_eq(c.maxbytes, 1073741824);
	parse_ok("NCCL_DEBUG=INFO ./sendrecv_perf", &c);
	cr_expect_eq(c.coll, NCCL_TESTS_SENDRECV);
	parse_ok("reduce_perf", &c);
	cr_expect_eq(c.coll, NCCL_TESTS_REDUCE);
}

Test(nccl_tests, refusals_name_the_option)
{
	refused("all_reduce_perf -q 1", KEY ": -q is not an option of nccl-tests");
	refused("all_reduce_perf --foo 1", KEY ": --foo is not an option of nccl-tests");
	refused("all_reduce_perf --p 1", KEY ": --p is an ambiguous option of nccl-tests");
	refused("all_reduce_perf -- 8", KEY ": -- is not an option of nccl-tests");
	refused("all_reduce_perf 8", KEY ": \"8\" is not an option of nccl-tests");
	refused("all_reduce_perf -h", KEY ": -h (--help): nccl-tests prints its usage and runs "
					  "nothing");
	refused("all_reduce_perf -b 8X",
		KEY ": -b (--minbytes) \"8X\" is not a size (bytes, or with K, M or G: powers of "
		    "1024)");
	refused("all_reduce_perf -e -1",
		KEY ": -e (--maxbytes) \"-1\" is not a size (bytes, or with K, M or G: powers of "
		    "1024)");
	refused("all_reduce_perf -e", KEY ": -e (--maxbytes) without its value");
	refused("all_reduce_perf -n 0", KEY ": -n (--iters) \"0\" is not a whole number "
					    "1..2147483647");
	refused("all_reduce_perf -w many",
		KEY ": -w (--warmup_iters) \"many\" is not a whole number 0..2147483647");
	refused("all_reduce_perf -z 4", KEY ": -z (--blocking) \"4\" is not a whole number 0..3");
	refused("all_reduce_perf -f -2", KEY ": -f (--stepfactor) \"-2\" is not a whole factor");
	refused("all_reduce_perf -d all",
		KEY ": -d (--datatype) \"all\" is not one type (int8, uint8, int32, uint32, int64, "
		    "uint64, half, float, double, bfloat16, f8e4m3, f8e5m2): \"all\" runs every "
		    "type in turn");
	refused("all_reduce_perf -d fp32",
		KEY ": -d (--datatype) \"fp32\" is not one type (int8, uint8, int32, uint32, "
		    "int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2)");
	refused("all_reduce_perf -o all", KEY ": -o (--op) \"all\" is not one operation (sum, "
					      "prod, max, min, avg, mulsum): \"all\" runs every "
					      "one in turn");
	refused("all_reduce_perf -b 1G -e 1M", KEY ": minbytes 1073741824 above maxbytes 1048576");
	refused("all_reduce_perf -b 0 -e 1M -f 2", KEY ": -f from 0 bytes: the sizes never end");
	refused("all_reduce_perf -i 0", KEY ": -i 0: the sizes never end");
	refused("all_reduce_perf -D 1 -R 1", KEY ": -D (--device_implementation) 1 needs -R 2");
	refused("all_reduce_perf -b 1 -e 1G -i 1", KEY ": more than 4096 sizes");
	refused("mpirun -np 2 ./a.out -b 8", KEY ": no nccl-tests binary (all_reduce_perf, "
						 "all_gather_perf, reduce_scatter_perf, "
						 "alltoall_perf, broadcast_perf, reduce_perf, "
						 "sendrecv_perf)");
	refused("./build/alltoallv_perf", KEY
		": alltoallv_perf: not modelled (all_reduce_perf, all_gather_perf, "
		"reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf, sendrecv_perf "
		"are)");
	refused("all_reduce_perf -b '8", KEY ": a ' quote is not closed");
}

/* The sizes of @cmd over @n ranks: @want_n of them, bytes and counts. */
static void sizes_are(const char *cmd, uint32_t n, size_t want_n, const uint64_t *bytes,
		      const uint64_t *counts)
{
	struct nccl_tests_cmd c;
	struct nccl_tests_row *rows;
	struct diag d = {0};
	size_t got;

	parse_ok(cmd, &c);
	cr_assert_eq(nccl_tests_sizes(&c, n, KEY, &rows, &got, &d), 0, "%s", d.msg);
	cr_assert_eq(got, want_n, "%s: %zu sizes", cmd, got);
	for (size_t i = 0; bytes && i < got; i++) {
		cr_expect_eq(rows[i].bytes, bytes[i], "%s [%zu]: %lu bytes", cmd, i,
			     (unsigned long)rows[i].bytes);
		cr_expect_eq(rows[i].count, counts[i], "%s [%zu]: count %lu", cmd, i,
			     (unsigned long)rows[i].count);
	}
	free(rows);
}

Test(nccl_tests, size_lists_multiplicative_and_additive)
{
	struct nccl_tests_cmd c;
	struct nccl_tests_row *rows;
	struct diag d = {0};
	size_t n;

	/* README's first example: 8 B to 128 MiB doubling, 2^3 .. 2^27 */
	parse_ok("all_reduce_perf -b 8 -e 128M -f 2 -g 8", &c);
	cr_assert_eq(nccl_tests_sizes(&c, 8, KEY, &rows, &n, &d), 0);
	cr_assert_eq(n, 25);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(rows[i].bytes, 8ull << i);
		cr_expect_eq(rows[i].count, 2ull << i, "float: bytes / 4");
	}
	free(rows);
	sizes_are("all_reduce_perf -b 1M -e 4M -i 1M", 2, 4,
		  (const uint64_t[]){1048576, 2097152, 3145728, 4194304},
		  (const uint64_t[]){262144, 524288, 786432, 1048576});
	sizes_are("all_reduce_perf -b 1M -e 4.5M -i 1M", 2, 4, NULL, NULL);
	sizes_are("all_reduce_perf -b 1K -e 1M -f 4", 2, 6, NULL, NULL);
	sizes_are("all_reduce_perf", 2, 1, (const uint64_t[]){33554432},
		  (const uint64_t[]){8388608});
	/* a size not a whole number of elements: its count rounded down */
	sizes_are("all_reduce_perf -b 10 -e 10 -d double", 2, 1, (const uint64_t[]){8},
		  (const uint64_t[]){1});
}

Test(nccl_tests, counts_a_rank_rounded_to_16_bytes)
{
	/* all_gather, float, 8 ranks: (count / 8) & ~3 */
	sizes_are("all_gather_perf -b 8 -e 1K -f 2", 8, 8,
		  (const uint64_t[]){0, 0, 0, 0, 128, 256, 512, 1024},
		  (const uint64_t[]){0, 0, 0, 0, 4, 8, 16, 32});
	/* 1000 B = 250 floats; 250 / 8 = 31, to 28: 28 * 8 * 4 = 896 B */
	sizes_are("reduce_scatter_perf -b 1000 -e 1000", 8, 1, (const uint64_t[]){896},
		  (const uint64_t[]){28});
	/* alltoall, half, 3 ranks: 1000 halves / 3 = 333, to a multiple of 8: 328 */
	sizes_are("alltoall_perf -b 2000 -e 2000 -d half", 3, 1, (const uint64_t[]){1968},
		  (const uint64_t[]){328});
	/* int8: multiples of 16 elements (333 to 320); int64: of 2 (41 to 40) */
	sizes_are("all_gather_perf -b 1000 -e 1000 -d int8", 3, 1, (const uint64_t[]){960},
		  (const uint64_t[]){320});
	sizes_are("all_gather_perf -b 1000 -e 1000 -d int64", 3, 1, (const uint64_t[]){960},
		  (const uint64_t[]){40});
	/* broadcast and sendrecv: the whole count */
	sizes_are("broadcast_perf -b 1000 -e 1000", 3, 1, (const uint64_t[]){1000},
		  (const uint64_t[]){250});
}

Test(nccl_tests, busbw_factors_of_performance_md)
{
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_ALL_REDUCE, 8), 1.75, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_ALL_GATHER, 8), 0.875, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_REDUCE_SCATTER, 2), 0.5, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_ALLTOALL, 4), 0.75, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_BROADCAST, 8), 1, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_REDUCE, 8), 1, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_SENDRECV, 8), 1, 1e-15);
	cr_expect_float_eq(nccl_tests_busbw_factor(NCCL_TESTS_ALL_REDUCE, 1), 0, 1e-15);
}

Test(nccl_tests, root_and_rank_count_refused_for_the_sizes)
{
	struct nccl_tests_cmd c;
	struct nccl_tests_row *rows;
	struct diag d = {0};
	size_t n;
	char buf[512];

	parse_ok("broadcast_perf -r 8", &c);
	cr_expect_eq(nccl_tests_sizes(&c, 8, KEY, &rows, &n, &d), -EINVAL);
	cr_expect_str_eq(diag_str(&d, buf, sizeof(buf)),
			 KEY ": -r (--root) 8 is not one of the 8 ranks");
	cr_expect_null(rows);
	cr_expect_eq(nccl_tests_sizes(&c, 0, KEY, &rows, &n, &d), -EINVAL);
	cr_expect_str_eq(diag_str(&d, buf, sizeof(buf)), KEY ": broadcast_perf over no rank");
}

Test(nccl_tests, all_gather_table_of_dgx_spark_issue_25)
{
	struct nccl_tests_cmd c;
	struct nccl_tests_row *rows;
	struct diag d = {0};
	size_t n;
	char *want = slurp("tests/nccl_tests/dgx-spark-all_gather.txt"), *got;

	parse_ok("all_gather_perf -b 16G -e 16G -f 2", &c);
	cr_assert_eq(nccl_tests_sizes(&c, 2, KEY, &rows, &n, &d), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(rows[0].bytes, 17179869184);
	cr_expect_eq(rows[0].count, 2147483648, "16 GiB / 4 / 2 ranks");
	rows[0].time_us = 453650;
	rows[0].time_in_us = 410049;
	got = print(&c, 2, rows, n);
	same_lines(got, want);
	/* the lines the paste cut: (18.935158 + 20.948556) / 2 GB/s */
	cr_expect(strstr(got, "# Out of bounds values : 0 OK\n"
			      "# Avg bus bandwidth    : 19.9419 \n"
			      "#\n"
			      "# Collective test concluded: all_gather_perf\n"
			      "#\n"
			      "\n"),
		  "%s", got);
	free(got);
	free(rows);
	free(want);
}

Test(nccl_tests, all_reduce_rows_of_mooncake_pr_3484)
{
	/* out-of-place and in-place times, one digit more than printed */
	static const double t[][2] = {
	    {18.66, 17.947},	{18.95, 18.251},     {19.253, 18.433},	  {19.538, 19.267},
	    {20.39, 20.476},	{27.757, 27.487},    {40.657, 40.356},	  {53.239, 52.852},
	    {81.159, 80.46},	{121.325, 120.472},  {195.402, 195.396},  {700.247, 701.01},
	    {1366.17, 1367.43}, {2671.596, 2670.98}, {5252.64, 5234.827},
	};
	/* their sizes: 2^15 .. 2^25 and 2^27 .. 2^30 of -b 64 -e 1G -f 2 */
	static const int at[] = {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24};
	struct nccl_tests_cmd c;
	struct nccl_tests_row *rows, pick[15];
	struct diag d = {0};
	size_t n;
	char *want = slurp("tests/nccl_tests/mooncake-all_reduce-rows.txt"), *got, *body;
	double sum = 0;

	parse_ok("all_reduce_perf -b 64 -e 1G -f 2 -w 10 -n 100", &c);
	cr_assert_eq(nccl_tests_sizes(&c, 8, KEY, &rows, &n, &d), 0);
	cr_assert_eq(n, 25, "2^6 .. 2^30");
	for (int i = 0; i < 15; i++) {
		pick[i] = rows[at[i]];
		pick[i].time_us = t[i][0];
		pick[i].time_in_us = t[i][1];
		for (int k = 0; k < 2; k++)
			sum += (double)pick[i].bytes / 1.0E9 / (t[i][k] / 1.0E6) * 2 * 7 / 8;
	}
	got = print(&c, 8, pick, 15);
	body = got;
	for (int skip = 0; skip < 4; skip++)
		body = strchr(body, '\n') + 1; /* past the header lines */
	same_lines(body, want);
	/* the mean of the 30 busbw of these rows (the paste's 102.829 is
	 * over all of its 25 rows) */
	cr_expect(strstr(got, "# Avg bus bandwidth    : 166.631 \n"), "%s (mean %g)", got,
		  sum / 30);
	free(got);
	free(rows);
	free(want);
}

Test(nccl_tests, check_0_prints_n_a_and_roots_and_redops)
{
	struct nccl_tests_cmd c;
	struct nccl_tests_row r = {.bytes = 1048576, .count = 262144, .time_us = 100};
	char *got;

	parse_ok("reduce_perf -b 1M -e 1M -c 0 -r 2 -o max", &c);
	got = print(&c, 4, &r, 1);
	/* 1 MiB in 100 us: 10.49 GB/s, busbw the same (reduce: factor 1) */
	cr_expect(strstr(got, "\n     1048576        262144     float     max       2   100.00   "
			      "10.49   10.49    N/A   100.00   10.49   10.49    N/A\n"),
		  "%s", got);
	free(got);
	parse_ok("alltoall_perf -o max", &c);
	r = (struct nccl_tests_row){.bytes = 0, .count = 0, .time_us = 5.7};
	got = print(&c, 4, &r, 1);
	cr_expect(strstr(got, "\n           0             0     float    none      -1     5.70    "
			      "0.00    0.00       0     5.70    0.00    0.00       0\n"),
		  "%s", got);
	free(got);
	/* a time too wide for %7.2f: one decimal, then none, then %.1e */
	parse_ok("sendrecv_perf", &c);
	r = (struct nccl_tests_row){.bytes = 1, .count = 1, .time_us = 123456789.0};
	got = print(&c, 2, &r, 1);
	cr_expect(strstr(got, "  1.2e+08    0.00    0.00       0"), "%s", got);
	free(got);
	r.time_us = 1234567.4;
	got = print(&c, 2, &r, 1);
	cr_expect(strstr(got, "     sum      -1  1234567    0.00"), "%s", got);
	free(got);
}
