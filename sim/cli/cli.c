/*
 * cli: helpers shared by the verbs of the command line.
 */
#include "sim/cli/cli.h"
#include "sim/study/sweep_impl.h"
#include "sim/engine/textsafe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_usage_error(const char *prefix, const char *usage, const char *fmt, const char *arg)
{
	fputs(prefix, stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", usage);
	return ROCESIM_EXIT_INPUT;
}

int cli_scenario_arg(const char *o, const char *prefix, const char *usage, const char **scenario)
{
	if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (o[0] == '-')
		return cli_usage_error(prefix, usage, "unknown option \"%s\"", o);
	if (*scenario)
		return cli_usage_error(prefix, usage, "one scenario at a time (also got \"%s\")",
				       o);
	*scenario = o;
	return -1;
}

int cli_parse_count(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*s || *end || errno || s[0] == '-' || !*v || *v > max;
}

int cli_runs_option(int argc, char **argv, int *i, struct study_runs *r, const char *prefix,
		    const char *usage)
{
	const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (!strcmp(o, "--set")) {
		if (!v || !strchr(v, '=') || *v == '=')
			return cli_usage_error(prefix, usage, "%s needs KEY=VALUE", o);
		r->sets[r->n_sets++] = argv[++*i];
	} else if (!strcmp(o, "--model")) {
		if (!v || (strcmp(v, "packet") && strcmp(v, "fluid")))
			return cli_usage_error(prefix, usage, "%s needs packet or fluid", o);
		r->fluid = !strcmp(v, "fluid");
		++*i;
	} else if (!strcmp(o, "-j") || !strcmp(o, "--jobs") || (!strncmp(o, "-j", 2) && o[2])) {
		/* -jN as make takes it, too */
		const char *n = o[2] && o[1] == 'j' ? o + 2 : v;

		if (!n || cli_parse_count(n, 4096, &r->jobs))
			return cli_usage_error(prefix, usage, "%s needs a count (1 to 4096)",
					       o[2] && o[1] == 'j' ? "-j" : o);
		r->jobs_given = 1;
		*i += n == v;
	} else if (!strcmp(o, "-o") || !strcmp(o, "--out")) {
		if (!v)
			return cli_usage_error(prefix, usage, "%s needs a folder", o);
		r->outdir = argv[++*i];
	} else if (!strcmp(o, "--progress")) {
		r->progress = 1;
	} else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) {
		r->quiet = 1;
	} else {
		return 0;
	}
	return -1;
}
