/*
 * What a sweep's and a tune's runs share with the program that starts
 * them: the path of rocesim itself, which each run executes (for
 * rocesim-mpi, the rocesim beside it: the runs need no MPI), how many run
 * at once by default, and paths as the terminal may show them in messages.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/engine/textsafe.h"
#include "sim/study/sweep_impl.h"

int sweep_self_path(char *buf, size_t size)
{
	static const char mpi_suffix[] = "-mpi";
	size_t n = strlen(mpi_suffix);
	ssize_t len = readlink("/proc/self/exe", buf, size - 1);

	if (len <= 0 || (size_t)len >= size - 1)
		return -1;
	buf[len] = '\0';
	/* rocesim-mpi (under mpirun): its runs need no MPI, rocesim beside it */
	if ((size_t)len > n && !strcmp(buf + len - n, mpi_suffix)) {
		buf[len - n] = '\0';
		if (access(buf, X_OK))
			buf[len - n] = mpi_suffix[0];
	}
	return 0;
}

const char *sweep_term(const char *s)
{
	static char bufs[4][4 * 4096 + 1];
	static unsigned next;

	return txt_term(bufs[next++ % 4], sizeof(bufs[0]), s);
}

unsigned sweep__default_jobs(long local_ranks)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (cores < 1)
		cores = 1;
	/* under mpirun, the cores shared among this machine's ranks */
	if (local_ranks > 1)
		cores = cores / local_ranks ? cores / local_ranks : 1;
	return (unsigned)cores;
}
