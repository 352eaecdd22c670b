/*
 * Results: results.json (schema_version 1, described in docs/results.md) built with jansson,
 * written atomically; the short summary printed on stdout; and the
 * `expect:` gates checked against the summary.
 */
#ifndef ROCESIM_RESULTS_H
#define ROCESIM_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "sim/run/sim.h"

/*
 * The ideal FCT of @bytes from host @src to host @dst over @t (routes @r),
 * as FCT slowdowns are reported: the flow alone on an empty path. Its wire
 * bytes (payload plus 62 B headers and 20 B preamble and gap per packet of
 * @mtu) serialized at the path's bottleneck rate, plus the propagation of
 * every link, plus the store-and-forward of its first frame on every link
 * but one bottleneck. ECMP takes the first next hop: in a symmetric fabric
 * every path has the same links. SIMTIME_NEVER when @dst is unreachable.
 */
simtime_t res_ideal_fct(const struct topo *t, const struct topo_routes *r, uint32_t src,
			uint32_t dst, uint64_t bytes, uint32_t mtu);
/* A new reference to the results of a finished run, or NULL (no memory). */
json_t *res_build(const struct sim *sim);
/* results_faults.c: summary.rc_timeouts (the QP that waited longest for RC
 * timeouts) and wire_losses (packets lost on failed links, per port), each
 * only when there is one; 0 or -ENOMEM. */
int res_add_rc_timeouts(json_t *summary, const struct sim *sim);
int res_add_wire_losses(json_t *root, const struct sim *sim);
/* results_training.c: the training jobs' results (jobs[].training, and
 * summary.training for the first), only when there is one; 0 or -ENOMEM;
 * and their lines of the summary. */
int res_add_training(json_t *root, const struct sim *sim);
/* Job @k's iteration time alone (@alone_us, 0: it did not complete) and its
 * interference (its time beside the others over alone, minus 1). */
int res_add_alone(json_t *root, uint32_t k, double alone_us);
void res_print_training(const json_t *j, FILE *f);
/* summary.fast_forward (results_ff.c), when engine.fast_forward is on;
 * 0 or -1 (out of memory); and its line on stdout. */
int res_add_fast_forward(json_t *root, const struct sim *sim);
void res_print_fast_forward(const json_t *j, FILE *f);
/* --verify-fast-forward: @res's summary beside @full's (the same scenario
 * packet by packet) in res.verify_fast_forward; how many gated metrics
 * are outside their tolerance, or -1 (out of memory). And its lines. */
int res_add_verify(json_t *res, const json_t *full);
void res_print_verify(const json_t *res, FILE *f);
/* timeline.csv: every training job's spans (output.timeline), a row each:
 * job,rank,start_us,end_us,what; 0 or -errno. */
int res_write_timeline(const struct sim *sim, FILE *f);
/*
 * Write @j to @f (a temporary file that the caller renames into place when
 * it is complete, outdir.h). 0 or -errno.
 */
int res_write_json(const json_t *j, FILE *f);
void res_print_summary(const json_t *j, FILE *f);
/* Print each failed gate to @f; returns how many failed. */
int res_check_expects(const json_t *j, const struct scenario *s, FILE *f);
/* Look up a summary metric such as "fct_us.p99"; 0 if found. */
int res_metric(const json_t *j, const char *metric, double *out);
/*
 * Add "expect" to the results @j: per gate of @s its metric, op ("<=",
 * ">=", "=="), limit, value (null when the run did not measure it), pass,
 * and where the gate was given. Returns how many gates passed, or -ENOMEM.
 */
int res_add_expects(json_t *j, const struct scenario *s);

/* What a run was given besides the scenario file (provenance.c). */
struct res_prov_in {
	const char *const *overlays; /* --with, in order */
	size_t n_overlays;
	const char *const *sets; /* --set (and --seed as seed=N), in order */
	size_t n_sets;
};

/*
 * results.json's "provenance" (a new reference, or NULL: no memory): the
 * version, the scenario file and every input file @s read with its
 * SHA-256, the overlays and overrides of @in, the seed.
 */
json_t *res_provenance(const struct scenario *s, const struct res_prov_in *in);
/*
 * The effective parameters of @s on @t, as `check --json` and
 * results.json's "effective" show them: {"switch", "ports", "nic"}. A new
 * reference, or NULL (no memory).
 */
json_t *res_effective(const struct scenario *s, const struct topo *t);
/*
 * The thresholds results.json's "config" gives the pictures: {ecn_kmin,
 * ecn_kmax, pfc_xoff} (null when off, or dynamic) of the settings most
 * switches have, with "switches" (by name) and "ports" (by port name) for
 * those whose own differ. A new reference, or NULL (no memory).
 */
json_t *res_thresholds(const struct scenario *s, const struct topo *t);
/* The priorities set in @mask as a JSON array of numbers (new, or NULL). */
json_t *res_prio_array(uint8_t mask);

#endif
