/*
 * nccl-tests (github.com/NVIDIA/nccl-tests): its command line, the sizes
 * it runs, and its results table, as nccl-tests 2.19 has them
 * (src/common.cu: main's getopt_long, parsesize, TimeTest, setupArgs;
 * src/util.cu: writeResultHeader, writeBenchmarkLinePreamble,
 * writeBenchmarkLineBody, getFloatStr, writeResultFooter; the
 * <collective>.cu files: GetCollByteCount and GetBw; doc/PERFORMANCE.md
 * for the bus bandwidth).
 *
 * The command: the first word whose file name is a test binary,
 * all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
 * broadcast_perf, reduce_perf or sendrecv_perf (also with the Makefile's
 * NAME_SUFFIX, all_reduce_perf_mpi), names the collective; the words before
 * it (mpirun and its options, VAR=value) are the launcher's and skipped;
 * the words after it are its options, short (-b 8, -b8) or long
 * (--minbytes 8, --minbytes=8, or a prefix of one name, as getopt_long
 * takes them). Words are split at blanks; '...' and "..." quote, and a
 * backslash escapes the next character (a backslash-newline joins lines).
 *
 * The options and their defaults (common.cu):
 *   -b,--minbytes 32M  -e,--maxbytes 32M  -i,--stepbytes 1M  -f,--stepfactor 1
 *     sizes as parsesize reads them: a number (a decimal fraction too),
 *     then K, M or G (either case; powers of 1024: 128M = 134217728), any
 *     character after the suffix ignored (128MB = 128M), the product cut to
 *     whole bytes;
 *   -n,--iters 20  -w,--warmup_iters 1  -m,--agg_iters 1
 *   -d,--datatype float: int8 uint8 int32 uint32 int64 uint64 half float
 *     double bfloat16 f8e4m3 f8e5m2 (only its element size changes what is
 *     sent: the table prints its name);
 *   -o,--op sum: sum prod max min avg mulsum (printed; the collectives
 *     without a reduction print "none");
 *   -r,--root 0 (broadcast and reduce; the others print -1);
 *   -t,--nthreads 1  -g,--ngpus 1: threads a process and GPUs a thread;
 *     ranks = processes * threads * GPUs, given here by the caller;
 *   -c,--check 1 (data checks after the timing; 0 prints N/A for #wrong),
 *   -N,--run_cycles 1, -p,--parallel_init 0, -z,--blocking 0,
 *   -y,--stream_null 0, -T,--timeout 0, -G,--cudagraph 0,
 *   -C,--report_cputime 0, -S,--report_timestamps 0, -J,--output_file,
 *   -a,--average 1, -R,--local_register 0, -x,--cta_policy,
 *   -D,--device_implementation 0 (above 0 only with -R 2),
 *   -V,--device_cta_count 16, -M,--memory 0,
 *   -u,--unalign 0, -I,--per_iter_timing 0, -K,--per_iter_skip 0:
 *     read and kept, changing nothing a simulation of the network shows;
 *     those given are listed in .unmodelled ("-c 0 -z 1") so that the
 *     caller can say so (-t and -g too: the ranks are the caller's).
 * Integer values are read as strtol(optarg, NULL, 0) reads them (0x10 is
 * 16), but a word that is not wholly a number is refused where nccl-tests
 * takes 0. Refused too: an option nccl-tests does not know (it prints its
 * usage and runs nothing; -h likewise), a word that is no option, "-d all"
 * and "-o all" (every type or operation in turn), an unknown type or
 * operation (nccl-tests falls back to float and sum), minbytes above
 * maxbytes, -D above 0 without -R 2, a step that never ends (-f above 1
 * from 0 bytes; -i 0), and a list of more than NCCL_TESTS_MAX_SIZES sizes.
 *
 * The sizes (TimeTest): from minbytes while at most maxbytes, times
 * stepfactor when it is above 1, else plus stepbytes. Each gives an element
 * count, size / element size, which setupArgs passes to the collective's
 * GetCollByteCount: all_reduce, broadcast, reduce and sendrecv use it
 * whole; all_gather, reduce_scatter and alltoall a count a rank,
 * (count / ranks) rounded down to a multiple of 16 bytes' worth of
 * elements. The table's size column is the larger of the bytes sent and
 * received a rank (for the last three: count a rank * ranks * element
 * size), its count column the count a rank.
 *
 * Bandwidths (GetBw): algbw = size / time (GB/s, 10^9 bytes), busbw =
 * algbw * factor: 2 (n - 1) / n for all_reduce, (n - 1) / n for all_gather,
 * reduce_scatter and alltoall, 1 for broadcast, reduce and sendrecv.
 *
 * The table: nccl-tests times each size out of place, then in place; a
 * simulation of the network does not tell the two apart, so both column
 * groups print the one time (a row may give an in-place time of its own,
 * as a measured table does). #wrong prints 0 (no data is checked), N/A
 * with -c 0. The footer's average bus bandwidth is the mean of every busbw
 * printed; the "Out of bounds values" are 0 OK. The preamble nccl-tests
 * prints before the table (its version, the options line, the devices) is
 * not printed.
 */
#ifndef ROCESIM_NCCL_TESTS_H
#define ROCESIM_NCCL_TESTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/engine/diag.h"

enum nccl_tests_coll {
	NCCL_TESTS_ALL_REDUCE,
	NCCL_TESTS_ALL_GATHER,
	NCCL_TESTS_REDUCE_SCATTER,
	NCCL_TESTS_ALLTOALL,
	NCCL_TESTS_BROADCAST,
	NCCL_TESTS_REDUCE,
	NCCL_TESTS_SENDRECV,
};

/* The most sizes a command may run (nccl_tests_sizes). */
#define NCCL_TESTS_MAX_SIZES 4096

struct nccl_tests_cmd {
	enum nccl_tests_coll coll;
	char binary[64]; /* its file name, "all_reduce_perf_mpi" */
	uint64_t minbytes, maxbytes, stepbytes, stepfactor;
	int32_t iters, warmup_iters, agg_iters;
	char type[16];	   /* "float" */
	uint32_t elt_size; /* bytes of an element of .type */
	char op[8];	   /* "sum" */
	int32_t root;
	/* read, not modelled (see above) */
	int32_t nthreads, ngpus, check, run_cycles, parallel_init, blocking, stream_null, timeout,
	    cudagraph, report_cputime, report_timestamps, average, local_register, cta_policy,
	    device_implementation, device_cta_count, memory, unalign, per_iter_timing,
	    per_iter_skip;
	char output_file[256];
	/* the options given that are not modelled, each as "-c 0", joined by
	 * blanks, "..." at the end when cut; "" for none */
	char unmodelled[256];
};

/* A size nccl-tests runs, and the time measured (or simulated) for it. */
struct nccl_tests_row {
	uint64_t bytes;	   /* the size column */
	uint64_t count;	   /* the count column: elements a rank */
	double time_us;	   /* the time column, a collective, out of place */
	double time_in_us; /* in place; 0: time_us */
};

/*
 * Parse command line @cmd into @out: 0, or -EINVAL with @d naming @key
 * (the scenario key that holds the command, or "") and the option.
 */
int nccl_tests_parse_command(const char *cmd, const char *key, struct nccl_tests_cmd *out,
			     struct diag *d);

/*
 * The sizes @c runs with @n_ranks ranks, in order, into a new array *@rows
 * of *@n (free() it; times 0): 0, -EINVAL with @d (n_ranks 0, the root not
 * a rank) or -ENOMEM.
 */
int nccl_tests_sizes(const struct nccl_tests_cmd *c, uint32_t n_ranks, const char *key,
		     struct nccl_tests_row **rows, size_t *n, struct diag *d);

/* busbw / algbw of @coll over @n_ranks ranks. */
double nccl_tests_busbw_factor(enum nccl_tests_coll coll, uint32_t n_ranks);
/* algbw and busbw (GB/s) of @r's count in @time_us, as GetBw computes them. */
void nccl_tests_bw(const struct nccl_tests_cmd *c, uint32_t n_ranks, const struct nccl_tests_row *r,
		   double time_us, double *algbw, double *busbw);

/*
 * The results table of @n rows as nccl-tests prints it for @c over
 * @n_ranks ranks: the header lines, a line a row, the footer (out of
 * bounds values, average bus bandwidth, the "Collective test concluded"
 * lines).
 */
void nccl_tests_print(FILE *f, const struct nccl_tests_cmd *c, uint32_t n_ranks,
		      const struct nccl_tests_row *rows, size_t n);

/* "all_reduce" for NCCL_TESTS_ALL_REDUCE: the binary's name without _perf. */
const char *nccl_tests_coll_name(enum nccl_tests_coll coll);

#endif
