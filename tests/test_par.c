/*
 * One fabric on several processes (mpirun -np N rocesim run): the results
 * are those of one process, byte for byte apart from "run", on a
 * leaf-spine incast where PFC and DCQCN both act, on a fat-tree
 * permutation and through a link failure; what cannot be split is refused
 * with one message and exit 2.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/ff.h"
#include "sim/run/par_mpi.h"
#include "tests/proc.h"

static void setup(void)
{
	ts_proc_setup("par");
}

TestSuite(par, .init = setup, .fini = ts_proc_teardown, .timeout = 600);

static void need_mpi(void)
{
	if (!par_mpi_built())
		cr_skip("rocesim was built without MPI (-Dmpi found none)");
	if (ts_sh("command -v mpirun", NULL, NULL))
		cr_skip("no mpirun");
}

static const char *write_scn(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static json_t *load(const char *dir)
{
	char path[400];
	json_t *j;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	cr_assert(j = json_load_file(path, 0, NULL), "no %s", path);
	return j;
}

/* @name in folders @a and @b: the same bytes. */
static void same_file(const char *a, const char *b, const char *name)
{
	char pa[400], pb[400];
	char *x, *y;

	snprintf(pa, sizeof(pa), "%s/%s", a, name);
	snprintf(pb, sizeof(pb), "%s/%s", b, name);
	x = ts_slurp(pa);
	y = ts_slurp(pb);
	cr_assert(x && y, "%s", name);
	cr_assert(strlen(x) > 200, "%s has rows", name);
	cr_assert_str_eq(x, y, "%s differs", name);
	free(x);
	free(y);
}

/* @scn run by one process, then by @np, each with @sets (--set KEY=VALUE
 * words, or ""): the same results.json but "run". The one process runs
 * without fast-forward, as a split run does when it is on by default. */
static json_t *same_on(const char *path, int np, const char *sets)
{
	char scn[300], one[300], many[300], args[1200];
	struct ts_proc p;
	struct ff_params ff;
	json_t *a, *b, *run;

	snprintf(scn, sizeof(scn), "%s", path);
	snprintf(one, sizeof(one), "%s", ts_tmp("one"));
	snprintf(many, sizeof(many), "%s", ts_tmp("many"));
	snprintf(args, sizeof(args),
		 "'%s' run '%s' -o '%s' --quiet --set engine.fast_forward.enabled=false %s",
		 getenv("ROCESIM_BIN"), scn, one, sets);
	cr_assert_eq(ts_sh(args, NULL, NULL), 0, "%s", args);
	snprintf(args, sizeof(args), "run '%s' -o '%s' %s", scn, many, sets);
	ts_mpirun(&p, np, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_assert(strstr(p.out, "results    "), "the summary, once:\n%s", p.out);
	ff_params_default(&ff);
	if (ff.enabled)
		cr_assert(strstr(p.err, "the run goes packet by packet"), "%s", p.err);
	cr_assert_null(strstr(strstr(p.out, "results    ") + 1, "results    "), "%s", p.out);
	ts_proc_free(&p);
	a = load(one);
	b = load(many);
	run = json_incref(json_object_get(b, "run"));
	json_object_del(a, "run");
	json_object_del(b, "run");
	json_object_del(json_object_get(a, "provenance"), "overrides");
	json_object_del(json_object_get(b, "provenance"), "overrides");
	cr_assert(json_equal(a, b), "%d processes differ from one", np);
	json_decref(a);
	json_decref(b);
	return run;
}

static const char incast[] =
    "name: par-incast\n"
    "seed: 3\n"
    "stop: 20ms\n"
    "topology: {kind: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 4,\n"
    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
    "switch:\n"
    "  buffer: {size: 8MB}\n"
    "  pfc: {xoff: 200KB}\n"
    "  ecn: {kmin: 50KB, kmax: 400KB, pmax: 20%}\n"
    "nic: {cc: dcqcn}\n"
    "workload: {kind: incast, senders: 12, size: 2MB}\n"
    "output: {sample: 0}\n";

Test(par, a_leaf_spine_incast_with_pfc_and_dcqcn_is_the_same_on_2_and_4_processes)
{
	char scn[300];
	json_t *run, *par, *seq;
	struct ts_proc p;

	need_mpi();
	snprintf(scn, sizeof(scn), "%s", write_scn("incast.yaml", incast));
	/* both at work: PAUSE frames and CNPs */
	ts_exec(&p, (const char *const[]){"run", scn, "-o", ts_tmp("check"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	seq = load(ts_tmp("check"));
	cr_assert_gt(json_integer_value(
			 json_object_get(json_object_get(seq, "summary"), "pfc_pause_frames")),
		     0);
	cr_assert_gt(
	    json_integer_value(json_object_get(json_object_get(seq, "summary"), "cnp_sent")), 0);
	json_decref(seq);
	for (int np = 2; np <= 4; np += 2) {
		run = same_on(scn, np, "");
		par = json_object_get(run, "parallel");
		cr_assert(par, "run.parallel");
		cr_assert_eq(json_integer_value(json_object_get(par, "processes")), np);
		cr_assert_gt(json_integer_value(json_object_get(par, "windows")), 100);
		cr_assert_gt(json_integer_value(json_object_get(par, "cross_messages")), 1000);
		cr_assert_eq(json_real_value(json_object_get(par, "lookahead_ns")), 50.0,
			     "10 m uplinks cut, hosts with their leaf");
		json_decref(run);
	}
}

Test(par, a_fat_tree_permutation_is_the_same_on_4_processes)
{
	static const char scn[] =
	    "seed: 5\n"
	    "stop: 10ms\n"
	    "topology: {kind: fat_tree, k: 4, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch: {pfc: {xoff: 100KB}}\n"
	    "nic: {cc: dcqcn}\n"
	    "workload: {kind: permutation, size: 1MB}\n"
	    "output: {sample: 0}\n";

	need_mpi();
	json_decref(same_on(write_scn("fat.yaml", scn), 4, ""));
}

/* What was on a cut wire when its link failed is lost there as well. */
Test(par, a_link_failure_mid_run_is_the_same_on_2_processes)
{
	static const char scn[] =
	    "seed: 2\n"
	    "stop: 10ms\n"
	    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4,\n"
	    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 100m}}\n"
	    "workload: {kind: permutation, size: 2MB}\n"
	    "faults: [{kind: link_down, link: leaf0-spine1, at: 50us}]\n"
	    "output: {sample: 0}\n";
	json_t *a;

	need_mpi();
	json_decref(same_on(write_scn("fail.yaml", scn), 2, ""));
	a = load(ts_tmp("one"));
	cr_assert_gt(json_integer_value(json_object_get(json_object_get(a, "summary"), "drops")), 0,
		     "packets on the failed link's wires were lost");
	json_decref(a);
}

/*
 * A ring AllReduce under DCQCN on a fat-tree: its QPs cross the parts, each
 * part runs its own ranks' programs, and NCCL's flow control returns a
 * sender's slot over the QP's path back, crossing the parts too.
 */
Test(par, a_fat_tree_allreduce_with_dcqcn_is_the_same_on_2_and_4_processes)
{
	static const char scn[] =
	    "seed: 7\n"
	    "stop: 50ms\n"
	    "topology: {kind: fat_tree, k: 4, link: {rate: 100Gbps, cable: 2m},\n"
	    "           uplink: {rate: 100Gbps, cable: 10m}}\n"
	    "switch: {ecn: {kmin: 1KB, kmax: 10KB, pmax: 20%}}\n"
	    "nic: {cc: dcqcn}\n"
	    "workload: {kind: allreduce, size: 8MB, channels: 2, chunk: 256KiB}\n"
	    "output: {sample: 0}\n";
	char path[300];
	json_t *a, *c;

	need_mpi();
	snprintf(path, sizeof(path), "%s", write_scn("ar.yaml", scn));
	json_decref(same_on(path, 2, ""));
	json_decref(same_on(path, 4, ""));
	a = load(ts_tmp("one"));
	c = json_object_get(json_object_get(a, "summary"), "collective");
	cr_assert_gt(json_real_value(json_object_get(c, "busbw_GBps")), 1.0, "it completed");
	cr_assert_gt(json_integer_value(
			 json_object_get(json_object_get(a, "summary"), "ecn_marked_packets")),
		     0, "DCQCN at work");
	json_decref(a);
}

/* Three iterations: the next starts once every part's ranks have finished
 * the last, the barrier after the last of them. */
Test(par, an_allreduce_of_three_iterations_is_the_same_on_2_and_3_processes)
{
	static const char scn[] =
	    "seed: 4\n"
	    "stop: 100ms\n"
	    "topology: {kind: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2,\n"
	    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
	    "nic: {cc: dcqcn}\n"
	    "workload: {kind: allreduce, size: 4MB, channels: 2, iterations: 3}\n";
	char path[300];
	json_t *a;

	need_mpi();
	snprintf(path, sizeof(path), "%s", write_scn("iter.yaml", scn));
	json_decref(same_on(path, 2, ""));
	json_decref(same_on(path, 3, ""));
	same_file(ts_tmp("one"), ts_tmp("many"), "timeseries.csv");
	a = load(ts_tmp("one"));
	cr_assert_eq(
	    json_integer_value(json_object_get(
		json_object_get(json_object_get(a, "summary"), "collective"), "iterations_done")),
	    3);
	json_decref(a);
}

/* A spine that fails mid-AllReduce: what was on its cut wires is lost in
 * the part that held them, the go-back-N that follows crosses the parts. */
Test(par, a_link_failure_mid_allreduce_is_the_same_on_2_and_4_processes)
{
	static const char scn[] =
	    "seed: 3\n"
	    "stop: 200ms\n"
	    "topology: {kind: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2,\n"
	    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
	    "nic: {transport: {timeout: 8}}\n"
	    "workload: {kind: allreduce, size: 4MB, channels: 2}\n"
	    "faults: [{kind: link_down, link: leaf1-spine0, at: 30us}]\n"
	    "output: {sample: 0}\n";
	char path[300];
	json_t *a;

	need_mpi();
	snprintf(path, sizeof(path), "%s", write_scn("arfail.yaml", scn));
	json_decref(same_on(path, 2, ""));
	json_decref(same_on(path, 4, ""));
	a = load(ts_tmp("one"));
	cr_assert(json_is_number(json_object_get(json_object_get(a, "summary"), "done_us")),
		  "it completed");
	json_decref(a);
}

/*
 * The deadlocking ring of experiments/ (its PFC log on): five switches, cut
 * into two, three and four parts, so that the cycle spans them. The
 * detector looks between windows at the stuck queues of every part: the
 * same cycle, found at the same look, and the run stops there when asked
 * to.
 */
Test(par, the_deadlocking_ring_is_found_across_parts_and_stops_the_run)
{
	char scn[400];
	json_t *run, *a;

	need_mpi();
	snprintf(scn, sizeof(scn), "%s/experiments/deadlock-ring.yaml", getenv("ROCESIM_SRC"));
	for (int np = 2; np <= 4; np++) {
		run = same_on(scn, np, "--set deadlock.stop_on_detect=true");
		cr_assert_str_eq(json_string_value(json_object_get(run, "end")),
				 "deadlock detected (deadlock.stop_on_detect)");
		json_decref(run);
		same_file(ts_tmp("one"), ts_tmp("many"), "pfc_events.csv");
	}
	a = load(ts_tmp("one"));
	cr_assert(json_is_true(json_object_get(
	    json_object_get(json_object_get(a, "summary"), "deadlock"), "detected")));
	json_decref(a);
}

/*
 * The time series (every 10 us, as by default), DCQCN's rates and the PFC
 * event log: each part samples its own switches and flows between windows
 * and logs its own ports' events, and the first process merges the rows
 * into one process's order.
 */
Test(par, the_time_series_rates_and_pfc_log_are_the_same_on_3_processes)
{
	char scn[300], one[300], many[300];
	json_t *run;

	need_mpi();
	snprintf(scn, sizeof(scn), "%s", write_scn("ts.yaml", incast));
	run = same_on(scn, 3, "--set output.sample=10us --set output.pfc_events=true");
	json_decref(run);
	snprintf(one, sizeof(one), "%s", ts_tmp("one"));
	snprintf(many, sizeof(many), "%s", ts_tmp("many"));
	same_file(one, many, "timeseries.csv");
	same_file(one, many, "qp_rates.csv");
	same_file(one, many, "pfc_events.csv");
}

/* --progress: the first process's lines, for the whole run, the last once. */
Test(par, progress_is_said_once_for_the_whole_run)
{
	char args[1200];
	struct ts_proc p;
	const char *last;

	need_mpi();
	snprintf(args, sizeof(args), "run '%s' -o '%s' --quiet --progress",
		 write_scn("prog.yaml", incast), ts_tmp("prog"));
	ts_mpirun(&p, 2, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	last = strstr(p.err, "rocesim: par-incast done at t=");
	cr_assert(last, "%s", p.err);
	cr_assert(strstr(last, "100.0% of 24.0 MB delivered (12/12 flows done)"), "%s", p.err);
	cr_assert_null(strstr(last + 30, "done at t="), "said twice: %s", p.err);
	ts_proc_free(&p);
}

/* One message (not one per process) and exit 2; nothing written. */
static void refused(const char *path, int np, const char *says)
{
	char args[1200], out[300], scn[300];
	struct ts_proc p;
	const char *at;

	snprintf(scn, sizeof(scn), "%s", path);
	snprintf(out, sizeof(out), "%s", ts_tmp("refused"));
	snprintf(args, sizeof(args), "run '%s' -o '%s'", scn, out);
	ts_mpirun(&p, np, args);
	cr_assert_eq(p.code, 2, "(%d) %s", p.code, p.err);
	at = strstr(p.err, says);
	cr_assert(at, "%s", p.err);
	cr_assert_null(strstr(at + 1, says), "said twice: %s", p.err);
	ts_proc_free(&p);
	cr_assert_eq(access(out, F_OK), -1, "%s was made", out);
}

Test(par, what_cannot_be_split_is_refused_once)
{
	need_mpi();
	refused(write_scn("star.yaml", "topology: {kind: star, hosts: 4}\n"
				       "workload: {kind: incast, senders: 3, size: 1MB}\n"
				       "output: {sample: 0}\n"),
		2, "star.yaml:1: topology: 2 parts for 1 switch: a switch is never split");
	refused(write_scn("cap.yaml", "topology: {kind: leaf_spine, leaves: 2, spines: 1, "
				      "hosts_per_leaf: 2}\n"
				      "workload: {kind: incast, senders: 3, size: 1MB}\n"
				      "max_events: 1000\n"),
		2, "max_events: counts the events of one process");
	refused(write_scn("ff.yaml", "topology: {kind: leaf_spine, leaves: 2, spines: 1, "
				     "hosts_per_leaf: 2}\n"
				     "workload: {kind: incast, senders: 3, size: 1MB}\n"
				     "engine: {fast_forward: {enabled: true}}\n"),
		2, "engine.fast_forward.enabled: a span holds every NIC");
}
