/* rocesim plot: pictures of a run (being written). */
#include <stdio.h>

#include "cli.h"

int cmd_plot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rocesim: plot is not available in this build\n");
	return 2;
}
