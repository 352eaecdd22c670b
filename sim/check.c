/* rocesim check: static analysis of a scenario (being written). */
#include <stdio.h>

#include "cli.h"

int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rocesim: check is not available in this build\n");
	return 2;
}
