/*
 * Out of memory: every allocation the engine and the models make can fail
 * (failalloc.h makes the one asked for fail), and each failure ends in
 * -ENOMEM returned all the way up: no crash, no hang, nothing leaked (the
 * sanitizer build checks that at each worker's exit), no run that goes on
 * as if nothing happened. The event queue and the packet pool leave
 * themselves as they were; the command line says "out of memory" and
 * exits 2.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "failalloc.h"
#include "models/packet.h"
#include "proc.h"
#include "sim/config/scenario.h"
#include "sim/readers/sonic.h"
#include "sim/readers/pod.h"
#include "sim/engine/evq.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"
#include "support.h"
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

static void count(void *obj, uint64_t arg)
{
	(void)arg;
	++*(int *)obj;
}

/* beyond the event queue's calendar, so that events go to its heap */
#define FAR ((simtime_t)1000000000)

Test(oom, an_arm_that_cannot_grow_the_heap_fails_and_changes_nothing)
{
	struct evq *q = evq_new();
	struct evq_timer t[257];
	int fired = 0;

	cr_assert_not_null(q);
	/* the far heap starts with room for 256; 1 ms is beyond the calendar */
	for (int i = 0; i < 257; i++)
		evq_timer_init(&t[i], count, &fired, i);
	for (int i = 0; i < 256; i++)
		cr_assert_eq(evq_arm(q, &t[i], FAR + (simtime_t)i), 0);
	failalloc_set(1, 0);
	cr_assert_eq(evq_arm(q, &t[256], FAR + 1000), -ENOMEM);
	cr_assert_eq(failalloc_failed(), 1);
	cr_assert(!evq_pending(q, &t[256]));
	cr_assert_eq(evq_size(q), 256);
	/* a pending timer moves without allocating */
	cr_assert_eq(evq_arm(q, &t[0], FAR + 500), 0);
	failalloc_set(0, 0);
	cr_assert_eq(evq_arm(q, &t[256], FAR + 1000), 0);
	while (evq_step(q))
		;
	cr_assert_eq(fired, 257);
	cr_assert_eq(evq_now(q), FAR + 1000);
	evq_free(q);
}

Test(oom, a_post_that_cannot_grow_the_pool_or_the_heap_returns_null)
{
	struct evq *q = evq_new();
	int fired = 0;

	cr_assert_not_null(q);
	failalloc_set(1, 0); /* the pool's first chunk */
	cr_assert_null(evq_post(q, 10, count, &fired, 0, 0));
	cr_assert_eq(evq_size(q), 0);
	for (int i = 0; i < 256; i++)
		cr_assert_not_null(evq_post(q, FAR, count, &fired, 0, (uint64_t)i));
	failalloc_set(1, 0); /* the far heap, full at 256 */
	cr_assert_null(evq_post(q, FAR, count, &fired, 0, 256));
	cr_assert_eq(failalloc_failed(), 1);
	cr_assert_eq(evq_size(q), 256);
	failalloc_set(0, 0);
	cr_assert_not_null(evq_post(q, FAR + 20, count, &fired, 0, 0));
	while (evq_step(q))
		;
	cr_assert_eq(fired, 257);
	evq_free(q);
}

Test(oom, a_packet_pool_that_cannot_grow_returns_null)
{
	struct pkt_pool pool = {0};
	struct pkt *p;

	failalloc_set(1, 0);
	cr_assert_null(pkt_alloc(&pool));
	cr_assert_eq(pool.live, 0);
	failalloc_set(0, 0);
	p = pkt_alloc(&pool);
	cr_assert_not_null(p);
	pkt_free(&pool, p);
	pkt_pool_destroy(&pool);
}

/*
 * jansson's parser gives up without a message when it cannot allocate (its
 * loader sets json_error_out_of_memory nowhere in 2.14): the SONiC reader
 * says out of memory, not "malformed JSON". Its first allocations (the
 * lexer's buffer, the top object) are ones it gives up on cleanly.
 */
Test(oom, a_sonic_file_jansson_has_no_memory_for_is_out_of_memory)
{
	static const char text[] = "{\"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}}}";
	struct sonic_cfg c;

	json_set_alloc_funcs(malloc, free); /* failalloc's malloc */
	for (long n = 1; n <= 2; n++) {
		struct diag d = {0};
		int err;

		failalloc_set(n, 0);
		err = sonic_read_text("x.json", text, strlen(text), &c, &d);
		cr_assert_eq(failalloc_failed(), 1);
		failalloc_set(0, 0);
		cr_assert_eq(err, -ENOMEM, "allocation %ld: %d, %s", n, err, d.msg);
		cr_assert_str_eq(d.msg, "out of memory");
	}
	cr_assert_eq(sonic_read_text("x.json", text, strlen(text), &c, &(struct diag){0}), 0);
}

/*
 * A topology file: each allocation of its load fails in turn, and the load
 * says -ENOMEM, not that a node or a link of the file is wrong.
 */
Test(oom, every_allocation_of_a_topology_file_load_can_fail)
{
	struct topo_spec spec = {
	    .kind = TOPO_FILE,
	    .file = ts_src("topologies/triangle.yaml"),
	    .link = {100000000000ULL, 10 * SIMTIME_US},
	    .uplink = {400000000000ULL, 150 * SIMTIME_US},
	};
	struct topo *t = NULL;
	long total, n;
	int err;

	failalloc_set(0, 0);
	cr_assert_eq(topo_file_load(&spec, &t, &(struct diag){0}), 0);
	topo_free(t);
	total = failalloc_seen();
	cr_assert_gt(total, 10, "%ld allocations", total);
	for (n = 1;; n++) {
		struct diag d = {0};
		long failed;

		t = NULL;
		failalloc_set(n, 0);
		err = topo_file_load(&spec, &t, &d);
		failed = failalloc_failed();
		failalloc_set(0, 0);
		topo_free(t);
		if (!failed)
			break;
		cr_assert_eq(err, -ENOMEM, "allocation %ld of %ld failed: %d, %s", n, total, err,
			     d.msg);
		cr_assert_null(t);
	}
	cr_assert_eq(err, 0);
	cr_assert_eq(n, total + 1);
}

/* Loads that between them reach the loader's allocations that input steers. */
static const struct {
	const char *yaml, *set;
} loads[] = {
    /* a --set into a section the scenario does not have: the loader makes it */
    {"topology: {kind: star, hosts: 2}\n"
     "workload: {kind: incast, senders: 1, size: 64KB}\n",
     "topology.link.rate=40Gbps"},
};

/*
 * Each allocation of each scenario load fails in turn, and the load says
 * -ENOMEM, never that the scenario is wrong.
 */
Test(oom, every_allocation_of_a_scenario_load_can_fail)
{
	for (size_t k = 0; k < sizeof(loads) / sizeof(loads[0]); k++) {
		const char *const sets[] = {loads[k].set};
		size_t n_sets = loads[k].set ? 1 : 0;
		size_t len = strlen(loads[k].yaml);
		struct scenario *s = NULL;
		long total, n;
		int err;

		failalloc_set(0, 0);
		cr_assert_eq(scn_load_text("oom.yaml", loads[k].yaml, len, sets, n_sets, &s,
					   &(struct diag){0}),
			     0, "load %zu", k);
		scn_free(s);
		total = failalloc_seen();
		for (n = 1;; n++) {
			struct diag d = {0};
			long failed;

			s = NULL;
			failalloc_set(n, 0);
			err = scn_load_text("oom.yaml", loads[k].yaml, len, sets, n_sets, &s, &d);
			failed = failalloc_failed();
			failalloc_set(0, 0);
			scn_free(s);
			if (!failed)
				break;
			cr_assert_eq(err, -ENOMEM, "load %zu, allocation %ld of %ld failed: %d, %s",
				     k, n, total, err, d.msg);
		}
		cr_assert_eq(err, 0);
		cr_assert_eq(n, total + 1);
	}
}

/* Small runs that between them reach every allocation site of the
 * engine and the models. */
static const char *const scenarios[] = {
    /* DCQCN incast under PFC, with every output the run writes */
    "topology: {kind: star, hosts: 4}\n"
    "switch: {pfc: {xoff: 50KB}, ecn: {kmin: 5KB, kmax: 50KB}}\n"
    "nic: {cc: dcqcn}\n"
    "workload: {kind: incast, senders: 3, size: 256KB}\n"
    "output: {sample: 5us, pfc_events: true}\n",
    /* a collective with a late rank beside a flow; a link that fails and
     * routes that follow; a storm, the watchdog and deadlock detection */
    "stop: 3ms\n"
    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 3,\n"
    "           convergence: 10us}\n"
    "switch: {watchdog: {detection: 100us, restoration: 50us, action: drop}}\n"
    "deadlock: {window: 200us}\n"
    "workload:\n"
    "  - {kind: allreduce, size: 256KB, ranks: [h0, h1, h3, h4], late: {host: h1, by: 20us}}\n"
    "  - {kind: flows, flows: [{src: h2, dst: h5, size: 256KB}]}\n"
    "faults:\n"
    "  - {kind: link_down, link: leaf0-spine1, at: 10us}\n"
    "  - {kind: pfc_storm, host: h5, at: 30us, duration: 400us}\n",
    /* a receiver slower than the link, pausing through its NIC */
    "topology: {kind: star, hosts: 3}\n"
    "nic: {rx_buffer: 256KB, rx_rate: 50Gbps, cc: none}\n"
    "workload: {kind: incast, senders: 2, size: 512KB}\n",
};

/* Load, build, run and report @yaml as `rocesim run` does: 0 or the
 * first error. */
static int run_one(const char *yaml)
{
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;
	FILE *series, *rates, *pfc;
	json_t *j;
	int err;

	err = scn_load_text("oom.yaml", yaml, strlen(yaml), NULL, 0, &s, &d);
	if (err)
		return err;
	err = sim_init(&sim, s, &d);
	if (!err) {
		series = fopen("/dev/null", "w");
		rates = fopen("/dev/null", "w");
		pfc = fopen("/dev/null", "w");
		cr_assert(series && rates && pfc);
		err = sim_run(&sim, series, rates, pfc, 0);
		fclose(series);
		fclose(rates);
		fclose(pfc);
	}
	if (!err) {
		j = res_build(&sim);
		if (j)
			json_decref(j);
		else
			err = -ENOMEM;
	}
	sim_fini(&sim);
	return err;
}

/*
 * Each allocation of each run fails in turn, alone (@persist 0) or with
 * every one after it (@persist 1), until the run makes fewer allocations
 * than that and succeeds.
 */
static void every_allocation_fails_cleanly(int persist)
{
	/* jansson's allocations too (malloc here is failalloc's), for results */
	json_set_alloc_funcs(malloc, free);
	for (size_t k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++) {
		long total, n;
		int err;

		failalloc_set(0, 0);
		cr_assert_eq(run_one(scenarios[k]), 0, "scenario %zu runs", k);
		total = failalloc_seen();
		cr_assert_gt(total, 50, "scenario %zu: %ld allocations", k, total);
		for (n = 1;; n++) {
			failalloc_set(n, persist);
			err = run_one(scenarios[k]);
			if (!failalloc_failed())
				break;
			cr_assert_eq(err, -ENOMEM,
				     "scenario %zu, allocation %ld of %ld failed%s: returned %d", k,
				     n, total, persist ? " (and all after it)" : "", err);
		}
		failalloc_set(0, 0);
		cr_assert_eq(err, 0);
		cr_assert_eq(n, total + 1, "scenario %zu: %ld allocations, then %ld", k, total,
			     n - 1);
	}
}

Test(oom, every_allocation_of_a_run_can_fail_alone)
{
	every_allocation_fails_cleanly(0);
}

Test(oom, every_allocation_of_a_run_can_fail_with_all_after_it)
{
	every_allocation_fails_cleanly(1);
}

/*
 * The Kubernetes manifest reader: each allocation of reading a training job
 * with its ConfigMaps, notes and conflicts fails in turn, alone and with
 * every one after it: -ENOMEM, nothing left to free (the sanitizer build
 * finds what leaks).
 */
Test(oom, every_allocation_of_a_training_manifest_can_fail)
{
	static const char *const files[] = {
	    "tests/pod/pytorchjob.yaml",
	    "tests/pod/jobset.yaml",
	    "tests/pod/envfrom-missing.yaml",
	    "tests/pod/conflict-tc.yaml",
	};

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		for (int persist = 0; persist < 2; persist++) {
			struct pod_cfg p;
			struct diag d = {0};
			long total, n;
			int err;

			failalloc_set(0, 0);
			cr_assert_eq(pod_read(ts_src(files[k]), &p, &d), 0, "%s: %s", files[k],
				     d.msg);
			total = failalloc_seen();
			pod_free(&p);
			for (n = 1;; n++) {
				failalloc_set(n, persist);
				err = pod_read(ts_src(files[k]), &p, &d);
				if (!failalloc_failed())
					break;
				cr_assert_eq(err, -ENOMEM,
					     "%s: allocation %ld of %ld failed: %d (%s)", files[k],
					     n, total, err, d.msg);
				cr_assert_null(p.env);
				cr_assert_null(p.notes);
			}
			failalloc_set(0, 0);
			cr_assert_eq(err, 0);
			pod_free(&p);
		}
	}
}

/*
 * Run the rocesim of failalloc with every allocation from the @n-th on
 * failing: 0 if it ran, else 2 (asserting that the one line on stderr says
 * out of memory and that no results.json was written).
 */
static int cli_fails_from(long n)
{
	char nth[32];
	struct ts_proc p;
	struct stat st;
	int code;

	snprintf(nth, sizeof(nth), "%ld+", n);
	ts_exec_env(
	    &p, "ROCESIM_FAIL_ALLOC", nth,
	    (const char *[]){"run", "tests/good/two-flows.yaml", "-o", ts_tmp("out"), "-q", NULL});
	code = p.code;
	if (code) {
		cr_assert_eq(code, 2, "allocation %ld on: exit %d, stderr: %s", n, code, p.err);
		cr_assert(!strncmp(p.err, "rocesim: out of memory", 22), "allocation %ld on: %s", n,
			  p.err);
		cr_assert_eq(strchr(p.err, '\n'), p.err + strlen(p.err) - 1, "one line: %s", p.err);
		cr_assert_eq(stat(ts_tmp("out/results.json"), &st), -1, "allocation %ld on", n);
	} else {
		ts_rm_tree(ts_tmp("out"));
	}
	ts_proc_free(&p);
	return code;
}

static void setup(void)
{
	ts_proc_setup("oom");
}

/*
 * The command line: allocations fail from the 1st, 2nd, 4th, ... on until
 * the run needs fewer; the last allocation it makes is then found by
 * bisection, and the last 16 (the run's own and the results') fail in
 * turn. Each ends with exit 2 and one line that says out of memory.
 */
Test(oom, the_command_line_says_out_of_memory_and_exits_2, .init = setup, .fini = ts_proc_teardown)
{
	long lo = 1, hi = 1; /* fails from lo on; runs from hi on */

	while (cli_fails_from(hi)) {
		lo = hi;
		hi *= 2;
	}
	cr_assert_gt(hi, 64, "the run made fewer than %ld allocations", hi);
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (cli_fails_from(mid))
			lo = mid;
		else
			hi = mid;
	}
	for (long n = lo; n > lo - 16; n--)
		cr_assert_eq(cli_fails_from(n), 2);
}
