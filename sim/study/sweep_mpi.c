/*
 * sweep under mpirun: the runs of a sweep split across the ranks, run i on
 * rank i mod size (sweep.c says who does what). Only this file speaks MPI;
 * built without it (ROCESIM_HAVE_MPI undefined: meson's -Dmpi found no
 * MPI), the same functions say so and act as the one rank of one.
 *
 * A rank that waits (for rank 0 to check the sweep, for the slowest rank
 * to finish its share) does not spin in MPI's progress loop, which would
 * take a core from the runs: it starts the collective without blocking and
 * tests it every 5 ms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>
#endif

#include "sim/study/sweep_impl.h"
#include "sim/run/par_mpi.h"

#ifdef ROCESIM_HAVE_MPI

/* Wait for @req without spinning. */
static void wait_for(MPI_Request *req)
{
	int done = 0;

	while (MPI_Test(req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
		nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
}

void sweep_mpi_bcast(const struct sweep_mpi *m, void *buf, size_t len)
{
	MPI_Request req;

	if (m->size < 2)
		return;
	MPI_Ibcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
	wait_for(&req);
}

/* The runs of rank @r's share: @r, @r + size, ... */
static size_t share_of(const struct sweep_mpi *m, int r, size_t n)
{
	return (size_t)r < n ? (n - (size_t)r + (size_t)m->size - 1) / (size_t)m->size : 0;
}

void sweep_mpi_gather(const struct sweep_mpi *m, struct sweep_run *runs, size_t n, int *err,
		      int *sig)
{
	int mine[2] = {-*err, *sig}, all[2];
	size_t most = share_of(m, 0, n);
	struct sweep_run *buf;
	MPI_Datatype run_type;
	MPI_Request req;

	if (m->size < 2)
		return;
	/* everyone done (waiting here), the worst error and the signal */
	MPI_Iallreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
	wait_for(&req);
	*err = -all[0];
	*sig = all[1];
	if (!(buf = calloc(most ? most : 1, sizeof(*buf))))
		MPI_Abort(MPI_COMM_WORLD, 3);
	MPI_Type_contiguous((int)sizeof(*buf), MPI_BYTE, &run_type);
	MPI_Type_commit(&run_type);
	if (m->rank) {
		size_t k = 0;

		for (size_t i = (size_t)m->rank; i < n; i += (size_t)m->size)
			buf[k++] = runs[i];
		MPI_Send(buf, (int)k, run_type, 0, 0, MPI_COMM_WORLD);
	} else {
		for (int r = 1; r < m->size; r++) {
			size_t k = 0;

			MPI_Recv(buf, (int)share_of(m, r, n), run_type, r, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (size_t i = (size_t)r; i < n; i += (size_t)m->size)
				runs[i] = buf[k++];
		}
	}
	MPI_Type_free(&run_type);
	free(buf);
}

#else

void sweep_mpi_bcast(const struct sweep_mpi *m, void *buf, size_t len)
{
	(void)m, (void)buf, (void)len;
}

void sweep_mpi_gather(const struct sweep_mpi *m, struct sweep_run *runs, size_t n, int *err,
		      int *sig)
{
	(void)m, (void)runs, (void)n, (void)err, (void)sig;
}

#endif

int sweep_mpi_start(struct sweep_mpi *m)
{
	struct par_comm c;

	if (!par_mpi_built()) {
		if (!par_mpi_env_rank())
			fputs("rocesim: started under mpirun but built without MPI (no "
			      "rocesim-mpi beside it); rebuild with libopenmpi-dev installed\n",
			      stderr);
		return -1;
	}
	if (par_mpi_init(&c)) {
		fputs("rocesim: cannot start MPI\n", stderr);
		return -1;
	}
	m->rank = (int)c.rank;
	m->size = (int)c.size;
	return 0;
}
