/*
 * collective_time: a scenario's collective completion time, from a
 * program of your own through rocesim.h. Loads SCENARIO, sets each
 * KEY=VALUE as `rocesim run --set` would, runs it in memory (no file is
 * written) and prints the completion time and bus bandwidth of its first
 * collective, and how many PFC PAUSE frames the run sent.
 *
 *   collective_time SCENARIO [KEY=VALUE...]
 *   collective_time experiments/ci/seed-cluster-small.yaml switch.ecn.kmin=50KB
 *
 * Exit status: 0, 2 for a refused input (the error on one line, naming
 * file, line and key), 1 for any other failure or a scenario with no
 * collective.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rocesim.h"

int main(int argc, char **argv)
{
	rs_scenario *s = NULL;
	rs_results *r = NULL;
	double us, busbw, pauses;
	rs_error e;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SCENARIO [KEY=VALUE...]\n", argv[0]);
		return 2;
	}
	if (rs_scenario_load(argv[1], &s, &e))
		goto refused;
	for (int i = 2; i < argc; i++)
		if (rs_scenario_set(s, argv[i], &e))
			goto refused;
	if (rs_run(s, &r, &e)) {
		fprintf(stderr, "collective_time: %s\n", e.text);
		rs_scenario_free(s);
		return 1;
	}
	if (rs_results_number(r, "collective.completion_time_us", &us) ||
	    rs_results_number(r, "collective.busbw_GBps", &busbw)) {
		fprintf(stderr, "collective_time: %s has no collective (the run ended: %s)\n",
			rs_scenario_name(s), rs_results_end(r));
		rc = 1;
	} else {
		if (rs_results_number(r, "pfc_pause_frames", &pauses))
			pauses = 0;
		printf("%s: collective %.3f us, busbw %.3f GB/s, %.0f PAUSE frames (run %s)\n",
		       rs_scenario_name(s), us, busbw, pauses, rs_results_end(r));
	}
	rs_results_free(r);
	rs_scenario_free(s);
	return rc;
refused:
	fprintf(stderr, "collective_time: %s\n", e.text);
	rs_scenario_free(s);
	return 2;
}
