/*
 * rocesim: the command line. Parses the verb and its options, loads and
 * checks the scenario before anything is written, runs it, writes the
 * results atomically into the output folder it owns (outdir.h) and turns
 * the outcome into the exit code: 0 ok, 1 an expect: gate failed, 2 bad
 * input or usage, 3 an I/O failure after a good run, 128 + the signal when
 * interrupted.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/cli/run_ci.h"
#include "sim/engine/textsafe.h"
#include "sim/lint/lint.h"
#include "sim/run/outdir.h"
#include "sim/run/par.h"
#include "sim/run/par_mpi.h"
#include "sim/run/partition.h"
#include "sim/run/results.h"
#include "sim/config/scenario.h"
#include "sim/run/sim.h"

#define EXIT_GATE 1
#define EXIT_INPUT ROCESIM_EXIT_INPUT
#define EXIT_IO ROCESIM_EXIT_IO

static const char usage[] =
    "usage: rocesim run SCENARIO.yaml [-o OUTDIR] [--with OVERLAY.yaml]...\n"
    "                    [--set KEY=VALUE]... [--seed N] [--progress] [--quiet] [--alone]\n"
    "                    [--verify-fast-forward]\n"
    "                    [--baseline DIR [--tolerance M=X]...] [--junit FILE]\n"
    "       rocesim run SCENARIO.yaml --partition N [--with ...] [--set ...]\n"
    "       mpirun -np N rocesim run SCENARIO.yaml [...]   (one fabric on N processes)\n"
    "       rocesim sweep SCENARIO.yaml [--vary KEY=V1,V2,...|KEY=LO..HI:N|KEY=LO..HI:xF]...\n"
    "                    [--zip] [--variant NAME=OVERLAY.yaml]... [--set KEY=VALUE]...\n"
    "                    [--with OVERLAY.yaml]...\n"
    "                    [--seeds N | --seed-list S1,...] [-j N] [-o DIR]\n"
    "                    [--progress] [--quiet] [--slurm [--mem SIZE]] [--model packet|fluid]\n"
    "       rocesim sweep --task K DIR\n"
    "       rocesim sweep --collect DIR\n"
    "       rocesim tune SCENARIO.yaml --vary KEY=LO..HI... (--minimize M | --maximize M)...\n"
    "                    [--subject-to 'M OP V']... [--set KEY=VALUE]... [--seeds N]\n"
    "                    [--budget N] [-j N] [-o DIR] [--model packet|fluid]\n"
    "       rocesim fluid SCENARIO.yaml [--json] [-o DIR] [--set KEY=VALUE]...\n"
    "       rocesim check SCENARIO.yaml [--json] [--fail LINK|NODE]... [--with FILE]...\n"
    "                     [--all-pairs] [--junit FILE] [--sarif FILE]\n"
    "       rocesim plot OUTDIR|SWEEPDIR|TUNEDIR [--svg] [--top N]\n"
    "       rocesim import sonic|mlnx-qos|cc-params|pod|hpcc-topology|hpcc-flows FILE\n"
    "       rocesim import ethtool|hw-counters|pfcstat|queuestat|nccl-tests|nccl-inspector\n"
    "                      [--json] FILE [AFTER]      (measured [--json] DIR)\n"
    "       rocesim compare BASE NEW [--tolerance METRIC=PCT%|METRIC=ABS]...\n"
    "                       [--metrics M,...] [--junit FILE] [--markdown FILE]\n"
    "                       [--json] [--force]\n"
    "       rocesim compare --measured DIR RUN [--json] [--junit FILE] [--markdown FILE]\n"
    "       rocesim calibrate SCENARIO.yaml --measured DIR --fit KEY=LO..HI...\n"
    "                         [--set KEY=VALUE]... [--seeds N] [--budget N] [--out DIR]\n"
    "       rocesim --help | --version          (rocesim VERB --help for each verb)\n";

/* The rest of `rocesim --help` (and of `rocesim run --help`). */
static const char run_help[] =
    "\n"
    "Simulates the RoCEv2 fabric described by SCENARIO.yaml and writes\n"
    "OUTDIR/results.json (default OUTDIR: out/<scenario name>), unless\n"
    "output.sample is 0 OUTDIR/timeseries.csv (egress queue, ingress PG and\n"
    "headroom bytes per switch port and priority as they change), with\n"
    "DCQCN OUTDIR/qp_rates.csv (Rc, Rt and alpha of each reacting QP), with\n"
    "output.pfc_events: true OUTDIR/pfc_events.csv (every PFC event).\n"
    "\n"
    "options:\n"
    "  -o, --out DIR      where to write the results (default out/<scenario name>;\n"
    "                     with --with or --set, out/<scenario name>+<the changes>,\n"
    "                     so that a what-if never replaces the scenario's results)\n"
    "  --with FILE        merge the partial scenario FILE onto SCENARIO (repeatable,\n"
    "                     in order, before --set): its mappings merge key by key, a\n"
    "                     list or value replaces the scenario's, KEY+: [...] appends\n"
    "                     to the list KEY (faults+: [...]); files it names are\n"
    "                     relative to its own folder\n"
    "  --set KEY=VALUE    override a scenario key, e.g. --set topology.link.rate=400Gbps\n"
    "                     or --set expect.drops=0 (repeatable)\n"
    "  --seed N           same as --set seed=N\n"
    "  --progress         report on stderr every second the workload's progress (its\n"
    "                     payload delivered, flows and collectives done), events/s\n"
    "                     and the time left, and a last line when the run ends\n"
    "  --quiet            print nothing on stdout\n"
    "  --alone            run each training job also alone on the fabric and report\n"
    "                     how much the others slow it (interference in results.json)\n"
    "  --verify-fast-forward  run with engine.fast_forward on, then again packet by\n"
    "                     packet, and print both: completion times and bytes\n"
    "                     received (within 1%), PAUSE frames, drops and lossless\n"
    "                     drops (within 5% or 2); exit 1 if outside\n"
    "  --partition N      show how the fabric splits into N parts for a parallel run\n"
    "                     (switches, hosts and ports per part, the links cut, the\n"
    "                     lookahead they allow) and stop: nothing is run or written\n" RUN_CI_USAGE
    "\n"
    "A run owns these four files in OUTDIR and the pictures `rocesim plot` draws\n"
    "from them, and removes those it did not write this time. It locks OUTDIR\n"
    "(OUTDIR/.rocesim.lock): a second run into it is refused. Outputs are\n"
    "temporaries renamed only when all are complete: a failed write or an\n"
    "interruption (SIGINT, SIGTERM, SIGHUP) leaves the previous outputs whole.\n"
    "\n"
    "exit codes: 0 ok; 1 the run worked but an expect: gate failed, or it\n"
    "              regressed against --baseline;\n"
    "            2 bad input or usage (the message names file, line and key),\n"
    "              or OUTDIR in use by another run or not writable;\n"
    "            3 an I/O failure after a good run (disk full): the previous\n"
    "              outputs are left as they were;\n"
    "            128 + the signal (130 SIGINT, 143 SIGTERM) when interrupted\n";

struct run_args {
	const char *scenario;
	const char *outdir;
	const char **sets;
	size_t n_sets;
	const char **withs; /* overlays, in order */
	size_t n_withs;
	int progress, quiet;
	uint32_t partition; /* --partition N: show the split, run nothing */
	int alone;	    /* --alone: each training job also run alone */
	int verify_ff;	    /* --verify-fast-forward */
	struct run_ci ci;   /* --baseline, --tolerance, --junit */
};

/* The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/*
 * From here on a signal stops the run where the event loop polls the flag,
 * and the run removes its temporaries. SA_RESETHAND: a second signal ends
 * the process at once (the next run into the folder removes what is left).
 * A signal ignored when rocesim started (nohup, `&` in a script) stays so.
 */
static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	/* a file size limit (ulimit -f) then fails a write as a full disk does */
	signal(SIGXFSZ, SIG_IGN);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* Say where a run stopped by a signal was; returns 128 + the signal. */
static int report_interrupt(const struct sim *sim, const char *dir)
{
	int sig = interrupted;

	if (sim->end == SIM_END_INTERRUPTED)
		fprintf(
		    stderr,
		    "rocesim: interrupted by %s at t=%.1fus (%.0f%% of stop); no results written, "
		    "%s left as it was\n",
		    signal_name(sig), simtime_to_us(sim->end_time),
		    100.0 * (double)sim->end_time / (double)sim->scn->stop, dir);
	else
		fprintf(stderr,
			"rocesim: interrupted by %s while writing the results; no results written, "
			"%s left as it was\n",
			signal_name(sig), dir);
	return 128 + sig;
}

/* --partition N: the split of @sim's fabric into @n parts, on stdout. */
static int show_partition(const struct sim *sim, uint32_t n)
{
	const struct topo *t = sim->topo;
	struct partition p;
	struct diag d = {0};
	char cut[4 * sizeof(t->links[0].name)];
	int err = part_build(t, n, &p, &d);

	if (err == -ENOMEM) {
		fputs("rocesim: out of memory\n", stderr);
		return EXIT_INPUT;
	}
	if (err) {
		scn_locate(sim->scn, &d);
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
		return EXIT_INPUT;
	}
	fputs("partition of ", stdout);
	txt_fputs_term(sim->scn->name, stdout);
	printf(" into %u part%s (%s", n, n == 1 ? "" : "s", part_method_str(p.method));
	if (p.method == PART_GROUPS)
		printf(": %u groups", p.n_groups);
	printf(")\n  %-6s %9s %7s %7s %10s\n", "part", "switches", "hosts", "ports", "cut links");
	for (uint32_t k = 0; k < n; k++) {
		struct part_load l;

		part_load(&p, t, k, &l);
		printf("  %-6u %9u %7u %7u %10u\n", k, l.switches, l.hosts, l.ports, l.cut);
	}
	if (p.n_cut)
		printf("  cut        %u of %u links; lookahead %.3f ns (%s, the cut link with the "
		       "least propagation delay)\n",
		       p.n_cut, t->n_links, simtime_to_us(p.lookahead) * 1e3,
		       txt_term(cut, sizeof(cut), t->links[p.cut_min].name));
	else
		printf("  cut        no link; the part runs alone\n");
	part_free(&p);
	return 0;
}

/* Is output @i written by a run of @s? */
static int writes(const struct scenario *s, enum outdir_file i)
{
	switch (i) {
	case OUTDIR_RESULTS:
		return 1;
	case OUTDIR_TIMESERIES:
		return s->out.sample != 0;
	case OUTDIR_QP_RATES:
		return s->out.sample && s->nic.cc == NIC_CC_DCQCN;
	case OUTDIR_PFC_EVENTS:
		return s->out.pfc_events;
	case OUTDIR_TIMELINE:
		return s->out.timeline && s->n_jobs;
	default:
		return 0;
	}
}

/* Whether any process of @comm failed (@err != 0 there): every process
 * learns it, so that all stop together. */
static int agree(const struct par_comm *comm, int err)
{
	uint64_t bad = err != 0;

	if (comm->size > 1 && comm->allreduce(comm->ctx, &bad, 1, PAR_MAX))
		return 1;
	return bad != 0;
}

/* The "run" block's account of a parallel run. */
static int add_par_stats(json_t *res, const struct par_stats *st)
{
	json_t *run = json_object_get(res, "run");

	return !run ||
	       json_object_set_new(
		   run, "parallel",
		   json_pack("{s:i,s:f,s:I,s:I,s:f}", "processes", (int)st->ranks, "lookahead_ns",
			     st->lookahead == SIMTIME_NEVER ? 0.0
							    : simtime_to_us(st->lookahead) * 1e3,
			     "windows", (json_int_t)st->windows, "cross_messages",
			     (json_int_t)st->messages, "wait_s", st->wait_s));
}

/*
 * What `rocesim check` finds wrong with the scenario the run took, when it
 * finds an error: their count and the first, so that a run never hides
 * them (results.json does not change).
 */
static void print_check_errors(const struct run_args *a)
{
	char first[1200];
	int n =
	    chk_errors(a->scenario, a->withs, a->n_withs, a->sets, a->n_sets, first, sizeof(first));

	if (n > 0) {
		printf("  check      %d error%s (rocesim check ", n, n == 1 ? "" : "s");
		txt_fputs_term(a->scenario, stdout);
		fputs("), the first: ", stdout);
		txt_fputs_term(first, stdout);
		putchar('\n');
	}
}

/* Load @a's scenario and build its fabric into @sim; 0, or the exit code
 * having said why (@sim then needs no sim_fini). */
static int build_run(const struct run_args *a, struct sim *sim)
{
	char shown[4 * OUTDIR_PATH];
	struct scenario *s;
	struct diag d = {0};
	int err;

	err = scn_load_with(a->scenario,
			    &(struct scn_load_opts){.overlays = a->withs,
						    .n_overlays = a->n_withs,
						    .sets = a->sets,
						    .n_sets = a->n_sets},
			    &s, &d);
	if (err == -ENOMEM) {
		fprintf(stderr, "rocesim: out of memory loading %s\n",
			txt_term(shown, sizeof(shown), a->scenario));
		return EXIT_INPUT;
	}
	if (err) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
		return EXIT_INPUT;
	}
	err = sim_init(sim, s, &d);
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr, "rocesim: out of memory building the fabric\n");
		else {
			fprintf(stderr, "rocesim: ");
			diag_print(&d, stderr);
		}
		sim_fini(sim);
		return EXIT_INPUT;
	}
	return 0;
}

/*
 * The run's output folder into @dir (-o, or the default from the
 * scenario's name and changes), locked and with every output @s writes
 * created there as a temporary by the lead process (@lead) into @od and
 * @files. 0 with *@err the failure to agree on across the processes
 * (said), or the exit code when there is no folder name.
 */
static int open_outputs(const struct run_args *a, const struct scenario *s, int lead, char *dir,
			struct outdir *od, FILE **files, int *err)
{
	static const char busy[] = "rocesim: %s is in use by another run (pid %ld): wait for it "
				   "to end or give another -o\n";
	char shown[4 * OUTDIR_PATH];

	*err = 0;
	if (a->outdir) {
		snprintf(dir, OUTDIR_PATH, "%s", a->outdir);
	} else if (outdir_default(dir, s->name, a->withs, a->n_withs, a->sets, a->n_sets)) {
		fprintf(stderr, "rocesim: the default output folder for %s is too long: give -o\n",
			txt_term(shown, sizeof(shown), s->name));
		return EXIT_INPUT;
	}
	catch_signals();
	if (lead && (*err = outdir_open(od, dir))) {
		if (*err == -EBUSY)
			fprintf(stderr, busy, txt_term(shown, sizeof(shown), dir),
				(long)od->holder);
		else
			fprintf(stderr, "rocesim: cannot write in %s: %s\n",
				txt_term(shown, sizeof(shown), od->where), strerror(-*err));
	}
	/* a sweep's or tune's run: the sweep syncs its folder once, at its end */
	od->nosync = getenv("ROCESIM_NO_SYNC") && !strcmp(getenv("ROCESIM_NO_SYNC"), "1");
	for (int i = 0; lead && !*err && i < OUTDIR_FILES; i++) {
		if (writes(s, (enum outdir_file)i) &&
		    !(files[i] = outdir_create(od, (enum outdir_file)i))) {
			fprintf(stderr, "rocesim: cannot write in %s: %s\n",
				txt_term(shown, sizeof(shown), od->where), strerror(errno));
			*err = -EIO;
		}
	}
	return 0;
}

/*
 * Simulate @sim, split over @comm's processes when there are several (their
 * account into @pst), the time series into @files. -1 to go on to the
 * results, or the exit code having said why (the lead process speaks;
 * another returns its own code here).
 */
static int simulate(struct sim *sim, const struct par_comm *comm, struct par_stats *pst,
		    FILE **files, int progress, const char *dir)
{
	char shown[4 * OUTDIR_PATH];
	struct diag d = {0};
	int err;

	sim->interrupt = &interrupted;
	if (comm->size > 1) {
		err = par_run(sim, comm, pst, &d, files[OUTDIR_TIMESERIES], files[OUTDIR_QP_RATES],
			      files[OUTDIR_PFC_EVENTS], progress);
		if (err == -EINVAL) {
			fprintf(stderr, "rocesim: ");
			diag_print(&d, stderr);
			return EXIT_INPUT;
		}
	} else {
		err = sim_run(sim, files[OUTDIR_TIMESERIES], files[OUTDIR_QP_RATES],
			      files[OUTDIR_PFC_EVENTS], progress);
	}
	if (comm->rank) /* the lead process says how it went */
		return err ? EXIT_IO : 0;
	if (sim->end == SIM_END_INTERRUPTED)
		return report_interrupt(sim, txt_term(shown, sizeof(shown), dir));
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr,
				"rocesim: out of memory at %.3f us simulated; no results written\n",
				simtime_to_us(sim->end_time));
		else
			fprintf(stderr, "rocesim: the run failed at %.3f us simulated: %s\n",
				simtime_to_us(sim->end_time), strerror(-err));
		return EXIT_INPUT;
	}
	return -1;
}

/* The run's scenario loaded again, as the command line gives it (the
 * second runs of --alone and --verify-fast-forward). */
static int load_again(const struct run_args *a, struct scenario **s, struct diag *d)
{
	return scn_load_with(a->scenario,
			     &(struct scn_load_opts){.overlays = a->withs,
						     .n_overlays = a->n_withs,
						     .sets = a->sets,
						     .n_sets = a->n_sets},
			     s, d);
}

/* --alone: each training job of @sim's scenario run alone, into @res. 0, or
 * the exit code having said why. */
static int add_alone(const struct run_args *a, const struct sim *sim, json_t *res)
{
	for (uint32_t k = 0; k < sim->scn->n_jobs; k++) {
		struct scenario *s;
		struct diag d = {0};
		double us;
		int err;

		if (sim->scn->jobs[k].command)
			continue; /* an nccl-tests sweep: no iteration */
		err = load_again(a, &s, &d);
		if (!err)
			err = sim_alone(s, k, &us, &d);
		if (!err)
			err = res_add_alone(res, k, us);
		if (err) {
			fprintf(stderr, "rocesim: --alone: %s\n",
				err == -ENOMEM ? "out of memory" : d.msg);
			return EXIT_INPUT;
		}
	}
	return 0;
}

/* --verify-fast-forward: the scenario again, packet by packet, beside
 * @res; 0, EXIT_GATE when a metric is outside, or the exit code having
 * said why it could not run. */
static int add_verify(const struct run_args *a, json_t *res)
{
	struct scenario *s;
	struct diag d = {0};
	json_t *full = NULL;
	int err, outside;

	err = load_again(a, &s, &d);
	if (!err)
		err = sim_full(s, &full, &d);
	if (err) {
		fprintf(stderr, "rocesim: --verify-fast-forward: %s\n",
			err == -ENOMEM ? "out of memory" : d.msg);
		json_decref(full);
		return EXIT_INPUT;
	}
	outside = res_add_verify(res, full);
	json_decref(full);
	if (outside < 0) {
		fprintf(stderr, "rocesim: out of memory\n");
		return EXIT_INPUT;
	}
	return outside ? EXIT_GATE : 0;
}

/*
 * results.json of @sim's run, with @prov and, for a split run, @pst: built,
 * written to @out, committed with the folder @od and summed up; the exit
 * code (the expectations' gate, the CI report's).
 */
static int keep_results(const struct run_args *a, struct sim *sim, json_t *prov,
			const struct par_stats *pst, FILE *out, const char *dir, struct outdir *od)
{
	const struct scenario *s = sim->scn;
	char shown[4 * OUTDIR_PATH];
	json_t *res = res_build(sim);
	int err, met = 0, partial, rc, verify_rc = 0;

	/* what produced the result, and its gates (new top-level blocks) */
	if (res && ((pst && add_par_stats(res, pst)) || json_object_set(res, "provenance", prov) ||
		    json_object_set_new(res, "effective", res_effective(sim->scn, sim->topo)) ||
		    (met = res_add_expects(res, sim->scn)) < 0)) {
		json_decref(res);
		res = NULL;
	}
	if (!res) {
		fprintf(stderr, "rocesim: out of memory building the results\n");
		return EXIT_INPUT;
	}
	if (a->alone && (rc = add_alone(a, sim, res))) {
		json_decref(res);
		return rc;
	}
	if (a->verify_ff && (verify_rc = add_verify(a, res)) == EXIT_INPUT) {
		json_decref(res);
		return verify_rc;
	}
	/* from here on the run was good: a failure to keep its results is exit 3 */
	rc = EXIT_IO;
	if ((err = res_write_json(res, out))) {
		fprintf(stderr,
			"rocesim: cannot write %s/results.json: %s; the previous outputs are left "
			"as they were\n",
			txt_term(shown, sizeof(shown), dir), strerror(-err));
		goto out;
	}
	if (interrupted) {
		rc = report_interrupt(sim, txt_term(shown, sizeof(shown), dir));
		goto out;
	}
	if ((err = outdir_commit(od, &partial))) {
		fprintf(stderr, "rocesim: cannot write %s: %s; %s\n",
			txt_term(shown, sizeof(shown), od->where), strerror(-err),
			partial ? "the folder now mixes the outputs of two runs"
				: "the previous outputs are left as they were");
		goto out;
	}
	if (!a->quiet) {
		res_print_summary(res, stdout);
		res_print_verify(res, stdout);
		if (s->n_expects)
			printf("  expect     %d of %u expectations met\n", met, s->n_expects);
		print_check_errors(a);
		printf("  results    %s/results.json\n", txt_term(shown, sizeof(shown), dir));
	}
	if (res_check_expects(res, s, stderr))
		fprintf(stderr, "rocesim: %u expectation%s failed\n", s->n_expects - (unsigned)met,
			s->n_expects - (unsigned)met > 1 ? "s" : "");
	rc = met < (int)s->n_expects || verify_rc ? EXIT_GATE : 0;
	if (verify_rc)
		fprintf(stderr, "rocesim: fast-forward moved a result beyond its tolerance\n");
	err = run_ci_finish(&a->ci, res, s, dir, a->quiet, sim->wall_s);
	rc = err > rc ? err : rc;
out:
	json_decref(res);
	return rc;
}

/*
 * Load and check the scenario and build the fabric before anything is
 * written; then lock the output folder and create every output there as a
 * temporary (outdir.h), so that a folder in use or not writable is found
 * before simulating; then run, write the results and commit them.
 */
static int cmd_run(const struct run_args *a, const struct par_comm *comm)
{
	FILE *files[OUTDIR_FILES] = {0};
	struct outdir od = {.lock_fd = -1};
	char dir[OUTDIR_PATH];
	struct diag d = {0};
	struct sim sim;
	json_t *prov = NULL;
	int err, rc, split = comm->size > 1, lead = !comm->rank; /* lead: the process that writes */
	int ff_default;
	struct par_stats pst = {0};

	if ((rc = build_run(a, &sim)))
		return rc;
	if (a->partition) {
		rc = lead ? show_partition(&sim, a->partition) : 0;
		sim_fini(&sim);
		return rc;
	}
	ff_default = sim.scn->fast_forward.enabled && !sim.scn->fast_forward_given;
	if (split && par_check(&sim, comm->size, &d)) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	if (split && ff_default && lead)
		fprintf(stderr,
			"rocesim: note: split over %u processes, the run goes packet by packet "
			"(engine.fast_forward, on by default, holds the whole fabric at once): "
			"its results are one process's with engine.fast_forward.enabled false\n",
			comm->size);
	/* the inputs' digests as they were loaded, not as they are after the run */
	prov = res_provenance(sim.scn, &(struct res_prov_in){.overlays = a->withs,
							     .n_overlays = a->n_withs,
							     .sets = a->sets,
							     .n_sets = a->n_sets});
	if (!prov) {
		fprintf(stderr, "rocesim: out of memory\n");
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	/* the input is good: only now touch the output folder */
	rc = open_outputs(a, sim.scn, lead, dir, &od, files, &err);
	if (!rc && agree(comm, err))
		rc = EXIT_INPUT;
	if (!rc && (rc = simulate(&sim, comm, &pst, files, a->progress, dir)) < 0) {
		if (files[OUTDIR_TIMELINE] &&
		    (err = res_write_timeline(&sim, files[OUTDIR_TIMELINE]))) {
			fprintf(stderr, "rocesim: cannot write %s/timeline.csv: %s\n", dir,
				strerror(-err));
			rc = EXIT_IO;
		} else {
			rc = keep_results(a, &sim, prov, split ? &pst : NULL, files[OUTDIR_RESULTS],
					  dir, &od);
		}
	}
	json_decref(prov);
	outdir_close(&od);
	sim_fini(&sim);
	return rc;
}

/*
 * A run, under mpirun split over its processes (par.h): only the first
 * process speaks and writes; the others' output goes nowhere.
 */
static int run_launch(const struct run_args *a)
{
	struct par_comm one = {.rank = 0, .size = 1};
	int rc;

	if (!par_mpi_launched())
		return cmd_run(a, &one);
	if (!par_mpi_built()) {
		fputs("rocesim: started under mpirun but built without MPI (no rocesim-mpi "
		      "beside it); rebuild with libopenmpi-dev installed (meson -Dmpi=enabled) "
		      "or run without mpirun\n",
		      stderr);
		return EXIT_INPUT;
	}
	if (par_mpi_init(&one)) {
		fputs("rocesim: MPI_Init failed\n", stderr);
		return EXIT_INPUT;
	}
	if (one.rank && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
		par_mpi_abort(EXIT_IO);
	rc = cmd_run(a, &one);
	par_mpi_finalize();
	return rc;
}

/*
 * Under mpirun, a rocesim built without MPI (it does not load Open MPI's
 * libraries: a run alone starts sooner and takes less memory) gives way
 * to rocesim-mpi, the same program with MPI, from the same folder. Returns
 * only when there is none (or it cannot start): the callers then say that
 * this rocesim has no MPI.
 */
static void start_mpi_program(char **argv)
{
	static const char name[] = "rocesim-mpi";
	char path[4096];
	ssize_t len;
	char *slash;

	if (!par_mpi_launched() || par_mpi_built())
		return;
	len = readlink("/proc/self/exe", path, sizeof(path) - sizeof(name) - 1);
	if (len <= 0 || (size_t)len >= sizeof(path) - sizeof(name) - 1)
		return;
	path[len] = '\0';
	if (!(slash = strrchr(path, '/')))
		return;
	memcpy(slash + 1, name, sizeof(name));
	execv(path, argv);
}

/*
 * The options of `rocesim run` (argv[2] on) into @a; each --seed S becomes
 * a "seed=S" of @seeds (*@n_seeds of them, to free) among the --set. -1 to
 * go on, or the exit code (0 after --help).
 */
static int run_options(int argc, char **argv, struct run_args *a, char **seeds, size_t *n_seeds)
{
	int rc = -1, ci;

	for (int i = 2; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(o, "-o") || !strcmp(o, "--out")) {
			if (!has_next || !argv[i + 1][0])
				rc = cli_usage_error("rocesim: ", usage, "%s needs a folder", o);
			else
				a->outdir = argv[++i];
		} else if (!strcmp(o, "--set")) {
			if (!has_next || !strchr(argv[i + 1], '='))
				rc = cli_usage_error("rocesim: ", usage, "%s needs KEY=VALUE", o);
			else
				a->sets[a->n_sets++] = argv[++i];
		} else if (!strcmp(o, "--with")) {
			if (!has_next)
				rc = cli_usage_error("rocesim: ", usage, "%s needs an overlay file",
						     o);
			else
				a->withs[a->n_withs++] = argv[++i];
		} else if (!strcmp(o, "--seed")) {
			if (!has_next) {
				rc = cli_usage_error("rocesim: ", usage, "%s needs a number", o);
			} else {
				size_t len = strlen(argv[++i]) + 6;

				seeds[*n_seeds] = malloc(len);
				if (!seeds[*n_seeds]) {
					fputs("rocesim: out of memory\n", stderr);
					rc = EXIT_INPUT;
				} else {
					snprintf(seeds[*n_seeds], len, "seed=%s", argv[i]);
					a->sets[a->n_sets++] = seeds[(*n_seeds)++];
				}
			}
		} else if (!strcmp(o, "--progress")) {
			a->progress = 1;
		} else if (!strcmp(o, "--partition")) {
			char *end;
			unsigned long n = has_next ? strtoul(argv[i + 1], &end, 10) : 0;

			if (!n || *end || n > 65536 || argv[i + 1][0] == '-')
				rc = cli_usage_error("rocesim: ", usage,
						     "%s needs a number of parts from 1 to 65536",
						     o);
			else
				a->partition = (uint32_t)n;
			i++;
		} else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) {
			a->quiet = 1;
		} else if (!strcmp(o, "--alone")) {
			a->alone = 1;
		} else if (!strcmp(o, "--verify-fast-forward")) {
			if (!a->verify_ff)
				a->sets[a->n_sets++] = "engine.fast_forward.enabled=true";
			a->verify_ff = 1;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			fputs(run_help, stdout);
			rc = 0;
		} else if ((ci = run_ci_arg(&a->ci, argc, argv, &i, usage)) >= 0) {
			rc = ci ? ci : -1;
		} else {
			rc = cli_scenario_arg(o, "rocesim: ", usage, &a->scenario);
		}
	}
	return rc;
}

int cli_main(int argc, char **argv)
{
	struct run_args a = {0};
	char **seeds;
	size_t n_seeds = 0;
	int rc;

	if (argc < 2)
		return cli_usage_error("rocesim: ", usage, "%s", "a verb is needed");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		fputs(run_help, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rocesim %s\n", ROCESIM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "sweep"))
		return cmd_sweep(argc - 2, argv + 2, cli_main);
	if (!strcmp(argv[1], "tune"))
		return cmd_tune(argc - 2, argv + 2, cli_main);
	if (!strcmp(argv[1], "fluid"))
		return cmd_fluid(argc - 2, argv + 2);
	if (!strcmp(argv[1], "plot"))
		return cmd_plot(argc - 2, argv + 2);
	if (!strcmp(argv[1], "import"))
		return cmd_import(argc - 2, argv + 2);
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc - 2, argv + 2);
	if (!strcmp(argv[1], "calibrate"))
		return cmd_calibrate(argc - 2, argv + 2);
	if (strcmp(argv[1], "run"))
		return cli_usage_error("rocesim: ", usage, "unknown verb \"%s\"", argv[1]);
	a.sets = calloc((size_t)argc, sizeof(char *));
	a.withs = calloc((size_t)argc, sizeof(char *));
	seeds = calloc((size_t)argc, sizeof(char *));
	if (!a.sets || !a.withs || !seeds) {
		fputs("rocesim: out of memory\n", stderr);
		free(a.sets);
		free(a.withs);
		free(seeds);
		return EXIT_INPUT;
	}
	rc = run_options(argc, argv, &a, seeds, &n_seeds);
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error("rocesim: ", usage, "%s", "run needs a scenario file");
	if (rc < 0 && !(rc = run_ci_prepare(&a.ci)))
		rc = run_launch(&a);
	run_ci_free(&a.ci);
	for (size_t i = 0; i < n_seeds; i++)
		free(seeds[i]);
	free(seeds);
	free(a.sets);
	free(a.withs);
	return rc;
}

int main(int argc, char **argv)
{
	/* GSL's default handler aborts, on an allocation that fails too: the
	 * callers check what GSL returns */
	gsl_set_error_handler_off();
	start_mpi_program(argv);
	return cli_main(argc, argv);
}
