/*
 * rocesim compare --measured: what nccl-tests measured on real gear (its
 * printed output, sim/readers/nccl_tests_out.h) beside what a simulated
 * run of `workload.kind: nccl_tests` gave (its results.json's
 * summary.nccl_tests rows), size by size: the bus bandwidths and their
 * ratio, the times (compare_measured.c); and the NIC and switch counters
 * of a folder of measured files (measured_dir.h) beside the run's hosts[]
 * and switches[].ports[], counter by counter (compare_counters.c).
 */
#ifndef ROCESIM_COMPARE_MEASURED_H
#define ROCESIM_COMPARE_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sim/engine/diag.h"
#include "sim/readers/measured_dir.h"

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

/* ---- the NIC and switch counters (compare_counters.c) ---- */

/*
 * The count floor of a disagreement: counters are set side by side as
 * ln((simulated + CC_FLOOR) / (measured + CC_FLOOR)), so that 0 against 3
 * weighs as 10 against 13 (0.26), not as nothing against something.
 */
#define CC_FLOOR 10.0

/* The readings of a folder, read once (each .before/.after pair subtracted). */
struct cc_measured {
	struct md_dir dir;
	struct mc_set *sets;	       /* one a counter entry of dir (kinds of measured.h) */
	const struct md_entry **entry; /* the entry of each set */
	size_t n;
	size_t n_nccl; /* nccl-tests and NCCL Inspector entries: not counters */
};

enum cc_state {
	CC_PAIRED,	   /* both sides have it */
	CC_NO_COUNTERPART, /* rocesim counts nothing of the kind: not compared */
	CC_NA,		   /* the tool printed N/A: not compared */
	CC_NO_NODE,	   /* the run has no host or switch of that name */
	CC_NO_PORT,	   /* the run's switch has no such port */
	CC_NOT_IN_RUN,	   /* the run's host lacks the counter (results.json has none) */
};

/* One measured counter beside its simulated counterpart. */
struct cc_row {
	char node[64];
	int kind; /* enum mc_kind */
	char scope[64];
	char name[64];
	char rocesim[160]; /* where results.json keeps it, "" when nowhere */
	char port[96];	   /* the run's port it was paired with, "" */
	enum cc_state state;
	double measured;  /* the run's count (after minus before) */
	double simulated; /* CC_PAIRED only */
	double ratio;	  /* simulated / measured; NAN when measured is 0 */
	double score;	  /* |ln((s + CC_FLOOR) / (m + CC_FLOOR))|, CC_PAIRED only */
	char file[256];
	int line;
};

struct cc_table {
	char folder[4096];
	char run[4096];
	struct cc_row *rows; /* in the folder's node and kind order, then the file's */
	size_t n, cap;
	size_t paired; /* rows CC_PAIRED */
};

/*
 * Read the counter files of folder @dir (every NODE.ethtool, .hw-counters,
 * .pfcstat and .queuestat of it, pairs subtracted) into @out (cc_measured_free
 * it, also after an error): 0, -EINVAL with @d (a file that cannot be read,
 * a counter that went back; no counter file at all), -ENOMEM.
 */
int cc_measured_load(const char *dir, struct cc_measured *out, struct diag *d);
void cc_measured_free(struct cc_measured *m);

/*
 * Pair @m with @results (results.json's object; @run names it in messages)
 * into @out (cc_free it, also after an error): a row for every counter
 * read, paired by node name (hosts[].name, switches[].name) and, for the
 * switches, port (ports[].name, or NODE:SCOPE: the port towards the node
 * SCOPE). 0, -EINVAL when @results has no hosts or switches, -ENOMEM.
 */
int cc_pair(const struct cc_measured *m, const json_t *results, const char *run,
	    struct cc_table *out, struct diag *d);
/* cc_pair of folder @dir and run @run (its folder or results.json). */
int cc_compare(const char *dir, const char *run, struct cc_table *out, struct diag *d);
void cc_free(struct cc_table *t);

/* The paired rows of @t by score, largest first, into @idx (t->n entries):
 * how many. Ties in the table's order. */
size_t cc_worst(const struct cc_table *t, size_t *idx);
/* "hosts[].np_cnp_sent", ... as cc_state says it in words. */
const char *cc_state_text(enum cc_state s);
/* The results.json of @run (a file, or a folder holding one) into @path. */
int cm_results_path(const char *run, char *path, size_t size, struct diag *d);

#endif
