/*
 * rocesim.h compiles alone: this file includes it with no other include
 * folder than its own (tests/meson.build), at the project's warning level,
 * and names every type and function it declares.
 */
#include "rocesim.h"

int api_alone(void);

int api_alone(void)
{
	rs_scenario *s = NULL;
	rs_results *r = NULL;
	rs_error e;
	double v = 0;
	char *text;

	if (rs_scenario_load("x.yaml", &s, &e) || rs_scenario_overlay(s, "o.yaml", &e) ||
	    rs_scenario_set(s, "seed=1", &e) || rs_run(s, &r, &e))
		return e.line;
	text = rs_results_json(r);
	(void)text;
	(void)rs_results_number(r, "fct_us.p99", &v);
	(void)rs_results_end(r);
	(void)rs_scenario_name(s);
	(void)rs_version();
	rs_results_free(r);
	rs_scenario_free(s);
	return (int)v;
}
