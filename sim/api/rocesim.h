/*
 * rocesim.h: the C interface of rocesim, the simulator of lossless RoCEv2
 * fabrics (PFC, ECN, DCQCN) behind the `rocesim` program.
 *
 * A program loads a scenario (the YAML file `rocesim run` takes), merges
 * overlays onto it and sets keys as `--with` and `--set` do, runs it in
 * memory and reads the results: the document `rocesim run` writes as
 * results.json (docs/results.md), and any number of its summary by name.
 * It can also check a scenario as `rocesim check` does and read the
 * findings one by one (rs_check, rs_findings), and compare two runs or
 * sweeps as `rocesim compare` does (rs_compare).
 *
 *	rs_scenario *s;
 *	rs_results *r;
 *	rs_error e;
 *	double us;
 *
 *	if (rs_scenario_load("fabric.yaml", &s, &e) ||
 *	    rs_scenario_set(s, "switch.ecn.kmin=200KB", &e) || rs_run(s, &r, &e)) {
 *		fprintf(stderr, "%s\n", e.text);
 *		...
 *	}
 *	if (!rs_results_number(r, "collective.completion_time_us", &us))
 *		printf("%.3f us\n", us);
 *	rs_results_free(r);
 *	rs_scenario_free(s);
 *
 * Conventions, for every function here:
 * - A function that can fail returns 0, or a negative errno: -EINVAL when
 *   the input is wrong (the rs_error says where), -ENOMEM when memory ran
 *   out, -EIO (or the errno of the system call) when a file cannot be
 *   read or written. An rs_error argument may be NULL; when given, it is
 *   filled on every failure and left as it was on success.
 * - Objects are opaque and owned by the caller from the call that makes
 *   them to the rs_*_free that ends them; rs_*_free(NULL) does nothing.
 *   Strings returned as `const char *` belong to the object they come
 *   from and live as long as it; strings returned as `char *` are the
 *   caller's, to release with free().
 * - Nothing is global: objects can be used from several threads as long
 *   as one object is not used by two threads at once. A run allocates its
 *   own fabric, event queue and random streams; two runs of one scenario
 *   with the same seed give the same results.
 * - Files are read again at each change and at each run: rs_scenario_set,
 *   rs_scenario_overlay and rs_run load the scenario whole, its file, its
 *   overlays and the real configs they name, as `rocesim run` would at that
 *   moment. A relative path is taken from the working directory of that
 *   call (give absolute paths to a program that changes directory), and a
 *   file edited in between is run as it is then; results.json's provenance
 *   holds the digest of what was run.
 * - Names: rs_ (and RS_) are this interface; rs__ is reserved for the
 *   library's own use.
 *
 * In the source tree a program links the meson dependency `rocesim_api_dep`
 * (experiments/api/ holds an example); the header is installed with the
 * program, a shared library is not yet.
 */
#ifndef ROCESIM_H
#define ROCESIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where an input is wrong, as `rocesim` says it on one line. */
typedef struct rs_error {
	char file[256];	 /* the file at fault, "" when not a file */
	int line;	 /* its line (from 1), 0 when unknown */
	char key[160];	 /* the scenario key, "switch.ecn.kmin", "" when none */
	char text[1024]; /* the whole message on one line: "FILE:LINE: KEY: what" */
} rs_error;

/* A scenario: a file, the overlays merged onto it and the keys set. */
typedef struct rs_scenario rs_scenario;

/* The results of one run. */
typedef struct rs_results rs_results;

/* The version of the library, as `rocesim --version` says it. */
const char *rs_version(void);

/*
 * Load the scenario file @path into a new *@out. The file is read and
 * checked whole, as `rocesim run` checks it (keys, units, thresholds,
 * topology, the real configs it names); -EINVAL with @err when it is
 * refused. *@out is set only on success.
 */
int rs_scenario_load(const char *path, rs_scenario **out, rs_error *err);

/*
 * Merge the partial scenario file @path onto @s, after the overlays
 * already merged (as `rocesim run --with`): mappings key by key, lists
 * replaced, KEY+ appending to list KEY. Keys set with rs_scenario_set
 * still apply after it. On failure @s is as it was.
 */
int rs_scenario_overlay(rs_scenario *s, const char *path, rs_error *err);

/*
 * Set one key, "KEY=VALUE" in @assignment, as `rocesim run --set` does
 * ("switch.ecn.kmin=200KB", "seed=7", "workload.bytes=64MB"), after the
 * keys already set. On failure (an unknown key, a value of the wrong unit,
 * a threshold that inverts another) @s is as it was.
 */
int rs_scenario_set(rs_scenario *s, const char *assignment, rs_error *err);

/* The scenario's name: its `name:` key, else its file name without .yaml. */
const char *rs_scenario_name(const rs_scenario *s);

void rs_scenario_free(rs_scenario *s);

/*
 * Run @s to its end in memory into a new *@out: no file is written (the
 * time series, PFC log and per-QP rates a scenario asks for are not kept).
 * The results are those `rocesim run` writes for the same scenario,
 * overlays, keys and seed. A run that ends early (its `stop:` time, its
 * event cap, a deadlock) still succeeds: rs_results_end says how it
 * ended. Fails with -EINVAL when the fabric cannot be built from @s, and
 * -ENOMEM when memory runs out before or during the run.
 */
int rs_run(const rs_scenario *s, rs_results **out, rs_error *err);

/*
 * How the run ended: "done" (the workload completed), "stop" (its time
 * bound), "events" (its event cap), "idle" (nothing left to happen, the
 * workload unfinished: flows that cannot be routed, say), "deadlock" (one
 * was detected and `deadlock.stop_on_detect` ended the run). results.json
 * says the same in words at run.end.
 */
const char *rs_results_end(const rs_results *r);

/*
 * A number of the results' summary by its dotted name, as `expect:` gates
 * name them ("collective.completion_time_us", "fct_us.p99",
 * "pfc_pause_frames", "deadlock"; docs/results.md lists them), into
 * *@out: a count, a time, a rate, or 0 and 1 for a yes or no. -ENOENT
 * when the summary has no number by that name (the run did not measure
 * it); *@out is then unchanged.
 */
int rs_results_number(const rs_results *r, const char *name, double *out);

/*
 * The results as the text of results.json (docs/results.md), byte for byte
 * as `rocesim run` writes the file but for its "run" block (the wall time
 * and the host it ran on): the caller's, to free(). NULL when memory runs
 * out.
 */
char *rs_results_json(const rs_results *r);

void rs_results_free(rs_results *r);

/* ---- checking a scenario, as `rocesim check` does ---------------------- */

/* The findings of one check. */
typedef struct rs_findings rs_findings;

/* One finding, as `rocesim check --json` gives it. */
typedef struct rs_finding {
	const char *severity; /* "error", "warning" or "info" */
	const char *code;     /* the rule: "HEADROOM_SHORT", "CC_PARAM_RANGE", ... */
	const char *where;    /* what it concerns: a switch, a port, a priority, a key */
	const char *message;  /* the finding in words */
	const char *file;     /* where it comes from; NULL: --set, or no file */
	int line;	      /* the line in @file (from 1), 0 when not known */
	const char *key;      /* the key written there, NULL when none */
} rs_finding;

/*
 * Check the scenario file @path, with the overlays @overlays (@n_overlays
 * of them, merged in order as `--with`) and the keys @sets ("KEY=VALUE",
 * as `--set`), as `rocesim check` does, into a new *@out: its buffers,
 * thresholds, real configs, NCCL environment, routes and cyclic buffer
 * dependencies, with the links its faults take down at time 0 down. The
 * scenario is loaded leniently: a value `rocesim run` refuses is a
 * finding (an error), not a failure, so a scenario rs_scenario_load
 * refuses can be checked. Fails (-EINVAL, @err saying where) only when
 * the scenario cannot be checked at all: YAML that does not parse, an
 * unknown key, a topology that cannot be built; -ENOMEM.
 */
int rs_check_file(const char *path, const char *const *overlays, size_t n_overlays,
		  const char *const *sets, size_t n_sets, rs_findings **out, rs_error *err);

/* The same for @s: its file, overlays and keys. */
int rs_check(const rs_scenario *s, rs_findings **out, rs_error *err);

/* How many findings @c holds; how many of them are errors (they fail `rocesim check`). */
size_t rs_findings_count(const rs_findings *c);
size_t rs_findings_errors(const rs_findings *c);

/*
 * Finding @i of @c, from 0: errors first, then warnings, then info, each
 * in the order found. NULL when @i is past the end. It and its strings
 * live as long as @c.
 */
const rs_finding *rs_findings_get(const rs_findings *c, size_t i);

void rs_findings_free(rs_findings *c);

/* ---- comparing two runs or sweeps, as `rocesim compare` does ----------- */

/* A comparison of two sides, metric by metric and point by point. */
typedef struct rs_comparison rs_comparison;

/* One metric at one point, as `rocesim compare --json` gives it. */
typedef struct rs_compared {
	const char *point;   /* the sweep's point ("p003"), "" for two runs */
	const char *metric;  /* "collective.completion_time_us", "fct_us.p99", ... */
	double base_mean;    /* BASE's mean (over the pairs when paired), NAN: not measured */
	double new_mean;     /* NEW's, likewise */
	size_t n_base;	     /* the runs (seeds) behind BASE's mean */
	size_t n_new;	     /* ... and NEW's */
	double p;	     /* the test's two-sided p, -1 when not tested */
	const char *verdict; /* "regression", "within_tolerance", "improvement", ... */
	int regression;	     /* 1 when it fails the gate */
} rs_compared;

/*
 * Compare @base with @new_side, each a run's folder (or its results.json)
 * or a sweep's folder, as `rocesim compare BASE NEW` does with its default
 * tolerances, into a new *@out: runs of the same seed paired, others by
 * Welch's test. Fails with -EINVAL (@err's text says why: a side that
 * cannot be read, sides of other scenarios, points or workloads, nothing
 * to compare) or -ENOMEM.
 */
int rs_compare(const char *base, const char *new_side, rs_comparison **out, rs_error *err);

/* How many metrics at points @c compares; how many of them are regressions. */
size_t rs_comparison_count(const rs_comparison *c);
size_t rs_comparison_regressions(const rs_comparison *c);

/*
 * Comparison @i of @c, from 0, in the order `compare` prints them (point
 * by point). NULL when @i is past the end. It lives as long as @c.
 */
const rs_compared *rs_comparison_get(const rs_comparison *c, size_t i);

void rs_comparison_free(rs_comparison *c);

#ifdef __cplusplus
}
#endif

#endif
