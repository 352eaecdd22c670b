/*
 * rocesim compare --measured: what nccl-tests measured on real gear (its
 * printed output, sim/readers/nccl_tests_out.h) beside what a simulated
 * run of `workload.kind: nccl_tests` gave (its results.json's
 * summary.nccl_tests rows), size by size: the bus bandwidths and their
 * ratio, the times.
 */
#ifndef ROCESIM_COMPARE_MEASURED_H
#define ROCESIM_COMPARE_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"

struct cm_row {
	uint64_t bytes;
	int measured, simulated;		/* which sides have the size */
	double measured_busbw, simulated_busbw; /* GB/s, out of place */
	double measured_time_us, simulated_time_us;
	double ratio; /* simulated / measured busbw; 0 unless both sides have it
			 and the measured busbw is above 0 */
	int line;     /* of the measured row, 0 if none */
};

struct cm_table {
	char measured[4096]; /* the nccl-tests output read */
	char run[4096];	     /* the results.json read */
	char binary[64];     /* the measured binary, "" when its output names none */
	char collective[32]; /* the run's: "all_reduce" */
	int measured_ranks;  /* ranks the output lists, 0 when none */
	int simulated_ranks;
	double measured_avg_busbw; /* "# Avg bus bandwidth" */
	double simulated_avg_busbw;
	struct cm_row *rows; /* in size order */
	size_t n;
};

/*
 * Read the nccl-tests output @measured and the run @run (a results.json,
 * or a run folder holding one) into @out (cm_free it, also after an
 * error): 0, -EINVAL with @d (either cannot be read; the run is no
 * nccl_tests run; the output names a binary of another collective than
 * the run's), -ENOMEM, or a file's errno.
 */
int cm_nccl_tests(const char *measured, const char *run, struct cm_table *out, struct diag *d);
void cm_free(struct cm_table *t);

#endif
