/*
 * rocesim: the command line. Parses the verb and its options, loads and
 * checks the scenario before anything is written, runs it, writes the
 * results atomically and turns the outcome into the exit code:
 * 0 ok, 1 an expect: gate failed, 2 bad input or usage.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "results.h"
#include "scenario.h"
#include "sim.h"

#define EXIT_GATE 1
#define EXIT_INPUT CLI_EXIT_INPUT

static const char usage[] =
	"usage: rocesim run SCENARIO.yaml [-o OUTDIR] [--set KEY=VALUE]... [--seed N]\n"
	"                    [--progress | --quiet]\n"
	"       rocesim check SCENARIO.yaml [--json] [--fail LINK]... [--all-pairs]\n"
	"       rocesim plot OUTDIR [--svg] [--top N]\n"
	"       rocesim import sonic|mlnx-qos|cc-params|pod FILE\n"
	"       rocesim --help | --version          (rocesim VERB --help for each verb)\n"
	"\n"
	"Simulates the RoCEv2 fabric described by SCENARIO.yaml and writes\n"
	"OUTDIR/results.json (default OUTDIR: out/<scenario name>), unless\n"
	"output.sample is 0 OUTDIR/timeseries.csv (egress queue, ingress PG and\n"
	"headroom bytes per switch port and priority) and, with DCQCN,\n"
	"OUTDIR/qp_rates.csv (Rc, Rt and alpha of each reacting QP), and with\n"
	"output.pfc_events: true OUTDIR/pfc_events.csv (every PFC event).\n"
	"\n"
	"options:\n"
	"  -o, --out DIR      where to write the results\n"
	"  --set KEY=VALUE    override a scenario key, e.g. --set topology.link.rate=400Gbps\n"
	"                     or --set expect.drops=0 (repeatable)\n"
	"  --seed N           same as --set seed=N\n"
	"  --progress         report simulated time and events/s on stderr every second\n"
	"  --quiet            print nothing on stdout\n"
	"\n"
	"exit codes: 0 ok; 1 the run worked but an expect: gate failed;\n"
	"            2 bad input or usage (the message names file, line and key)\n";

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -errno;
	return 0;
}

struct run_args {
	const char *scenario;
	const char *outdir;
	const char **sets;
	size_t n_sets;
	int progress, quiet;
};

/* An output file written under a temporary name and renamed when complete. */
struct out_file {
	char path[4150];
	char tmp[4200];
	FILE *f;
};

static int out_open(struct out_file *o, const char *dir, const char *name)
{
	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", o->path);
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		fprintf(stderr, "rocesim: cannot write %s: %s\n", o->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* Close and rename (@keep) or throw away; 0 or -1. */
static int out_close(struct out_file *o, int keep)
{
	int err = 0;

	if (!o->f)
		return 0;
	if (fclose(o->f) || (keep && rename(o->tmp, o->path))) {
		fprintf(stderr, "rocesim: cannot write %s: %s\n", o->path, strerror(errno));
		err = -1;
	}
	o->f = NULL;
	if (err || !keep)
		unlink(o->tmp);
	return err;
}

static int cmd_run(const struct run_args *a)
{
	char dir[4096], path[4200];
	struct out_file series = {0}, rates = {0}, pfc = {0};
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;
	json_t *res;
	int err, failed;

	err = scn_load(a->scenario, a->sets, a->n_sets, &s, &d);
	if (err == -ENOMEM) {
		fprintf(stderr, "rocesim: out of memory loading %s\n", a->scenario);
		return EXIT_INPUT;
	}
	if (err) {
		fprintf(stderr, "rocesim: ");
		diag_print(&d, stderr);
		return EXIT_INPUT;
	}
	err = sim_init(&sim, s, &d);
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr, "rocesim: out of memory building the fabric\n");
		else {
			fprintf(stderr, "rocesim: ");
			diag_print(&d, stderr);
		}
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	/* the input is good: only now touch the output folder */
	if (a->outdir)
		snprintf(dir, sizeof(dir), "%s", a->outdir);
	else
		snprintf(dir, sizeof(dir), "out/%s", s->name);
	err = make_dirs(dir);
	if (err) {
		fprintf(stderr, "rocesim: cannot create %s: %s\n", dir, strerror(-err));
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	if ((s->out.sample && out_open(&series, dir, "timeseries.csv")) ||
	    (s->out.sample && s->nic.cc == SCN_CC_DCQCN && out_open(&rates, dir, "qp_rates.csv")) ||
	    (s->out.pfc_events && out_open(&pfc, dir, "pfc_events.csv"))) {
		out_close(&series, 0);
		out_close(&rates, 0);
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	err = sim_run(&sim, series.f, rates.f, pfc.f, a->progress);
	if (out_close(&series, !err) | out_close(&rates, !err) | out_close(&pfc, !err))
		err = err ? err : -EIO;
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr,
				"rocesim: out of memory at %.3f us simulated; no results written\n",
				simtime_to_us(sim.end_time));
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	res = res_build(&sim);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	if (!res) {
		fprintf(stderr, "rocesim: out of memory building %s\n", path);
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	if ((err = res_write_json(res, path))) {
		fprintf(stderr, "rocesim: cannot write %s: %s\n", path, strerror(-err));
		json_decref(res);
		sim_fini(&sim);
		return EXIT_INPUT;
	}
	if (!a->quiet) {
		res_print_summary(res, stdout);
		printf("  results    %s\n", path);
	}
	failed = res_check_expects(res, s, stderr);
	if (failed)
		fprintf(stderr, "rocesim: %d expectation%s failed\n", failed, failed > 1 ? "s" : "");
	json_decref(res);
	sim_fini(&sim);
	return failed ? EXIT_GATE : 0;
}

int main(int argc, char **argv)
{
	struct run_args a = {0};
	char **seeds;
	size_t n_seeds = 0;
	int rc;

	/* GSL's default handler aborts, on an allocation that fails too: the
	 * callers check what GSL returns */
	gsl_set_error_handler_off();
	if (argc < 2)
		return cli_usage_error("rocesim: ", usage, "%s", "a verb is needed");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rocesim %s\n", ROCESIM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "plot"))
		return cmd_plot(argc - 2, argv + 2);
	if (!strcmp(argv[1], "import"))
		return cmd_import(argc - 2, argv + 2);
	if (strcmp(argv[1], "run"))
		return cli_usage_error("rocesim: ", usage, "unknown verb \"%s\"", argv[1]);
	a.sets = calloc((size_t)argc, sizeof(char *));
	seeds = calloc((size_t)argc, sizeof(char *));
	if (!a.sets || !seeds) {
		fputs("rocesim: out of memory\n", stderr);
		free(a.sets);
		free(seeds);
		return EXIT_INPUT;
	}
	rc = -1;
	for (int i = 2; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(o, "-o") || !strcmp(o, "--out")) {
			if (!has_next)
				rc = cli_usage_error("rocesim: ", usage, "%s needs a folder", o);
			else
				a.outdir = argv[++i];
		} else if (!strcmp(o, "--set")) {
			if (!has_next || !strchr(argv[i + 1], '='))
				rc = cli_usage_error("rocesim: ", usage, "%s needs KEY=VALUE", o);
			else
				a.sets[a.n_sets++] = argv[++i];
		} else if (!strcmp(o, "--seed")) {
			if (!has_next) {
				rc = cli_usage_error("rocesim: ", usage, "%s needs a number", o);
			} else {
				size_t len = strlen(argv[++i]) + 6;

				seeds[n_seeds] = malloc(len);
				if (!seeds[n_seeds]) {
					fputs("rocesim: out of memory\n", stderr);
					rc = EXIT_INPUT;
				} else {
					snprintf(seeds[n_seeds], len, "seed=%s", argv[i]);
					a.sets[a.n_sets++] = seeds[n_seeds++];
				}
			}
		} else if (!strcmp(o, "--progress")) {
			a.progress = 1;
		} else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) {
			a.quiet = 1;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			rc = 0;
		} else if (o[0] == '-') {
			rc = cli_usage_error("rocesim: ", usage, "unknown option \"%s\"", o);
		} else if (a.scenario) {
			rc = cli_usage_error("rocesim: ", usage, "one scenario at a time (also got \"%s\")", o);
		} else {
			a.scenario = o;
		}
	}
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error("rocesim: ", usage, "%s", "run needs a scenario file");
	if (rc < 0 && a.progress && a.quiet)
		rc = cli_usage_error("rocesim: ", usage, "%s", "--progress and --quiet exclude each other");
	if (rc < 0)
		rc = cmd_run(&a);
	for (size_t i = 0; i < n_seeds; i++)
		free(seeds[i]);
	free(seeds);
	free(a.sets);
	return rc;
}
