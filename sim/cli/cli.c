/*
 * cli: helpers shared by the verbs of the command line.
 */
#include "sim/cli/cli.h"
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
