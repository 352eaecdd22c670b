/*
 * What an nccl-tests binary prints (github.com/NVIDIA/nccl-tests, src/util.cu
 * writeResultHeader, writeBenchmarkLine*, writeResultFooter): the preamble's
 * '#' lines ("# nThread 1 nGpus 1 minBytes 8 ...", a "#  Rank  N Group ..."
 * line a rank), the column header
 *
 *   #       size         count      type   redop    root     time   algbw   busbw #wrong     time
 * algbw   busbw #wrong
 *
 * (older versions print no redop or root column, "error" for "#wrong";
 * RCCL's rccl-tests adds algo, proto and nchannels, read and not used),
 * a row a size (out of place, then in place: time in us, algbw and busbw
 * in GB/s, #wrong a count or N/A), and the footer: "# Out of bounds
 * values : N OK" and "# Avg bus bandwidth    : X". The lines NCCL itself
 * prints between them with NCCL_DEBUG ("host:pid:tid [0] NCCL INFO ...")
 * are skipped. Bandwidths as doc/PERFORMANCE.md defines them.
 *
 * The command line of such a binary is nccl_tests.h's.
 */
#ifndef ROCESIM_NCCL_TESTS_OUT_H
#define ROCESIM_NCCL_TESTS_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"

struct nccl_out_row {
	uint64_t bytes;		  /* size (B) */
	uint64_t count;		  /* count (elements) */
	char type[16], redop[16]; /* "" when the version prints no redop */
	int has_root, root;
	double time_us, algbw, busbw;	       /* out of place */
	long long wrong;		       /* -1: N/A */
	double in_time_us, in_algbw, in_busbw; /* in place */
	long long in_wrong;
	int line;
};

struct nccl_out {
	char file[256];
	char binary[64]; /* from "# Collective test starting: all_reduce_perf", or "" */
	int ranks;	 /* "#  Rank" lines of the preamble; 0 when none */
	int extra_cols;	 /* columns after the in-place #wrong (rccl-tests), not read */
	struct nccl_out_row *rows;
	size_t n;
	int has_avg;
	double avg_busbw; /* "# Avg bus bandwidth" */
	int avg_line;
	int has_oob;
	uint64_t oob; /* "# Out of bounds values" */
};

/*
 * Read @path into @out (nccl_out_free it, also after an error): 0, -EINVAL
 * with @d naming the file, the line and the column (a row cut short, a
 * value that is no number, a row before the header, a table without its
 * "# Avg bus bandwidth" footer: the output cut short), -ENOMEM, or the
 * errno of a file that cannot be read.
 */
int nccl_out_read(const char *path, struct nccl_out *out, struct diag *d);
int nccl_out_parse(const char *text, size_t len, const char *file, struct nccl_out *out,
		   struct diag *d);
void nccl_out_free(struct nccl_out *o);

#endif
