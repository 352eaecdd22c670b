/*
 * The MPI transport of a parallel run (see par_mpi.h). Only this file
 * speaks MPI.
 */
#include "sim/run/par_mpi.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>
#endif

int par_mpi_launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
}

int par_mpi_env_rank(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");

	if (!r)
		r = getenv("PMIX_RANK");
	return r ? atoi(r) : 0;
}

unsigned par_mpi_local_ranks(void)
{
	const char *s = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	int n = s ? atoi(s) : 1;

	return n > 0 ? (unsigned)n : 1;
}

#ifdef ROCESIM_HAVE_MPI

int par_mpi_built(void)
{
	return 1;
}

static int allreduce(void *ctx, uint64_t *v, int n, enum par_red op)
{
	(void)ctx;
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, op == PAR_SUM ? MPI_SUM : MPI_MAX,
			     MPI_COMM_WORLD) != MPI_SUCCESS;
}

/* Counts and displacements for @size buffers of @len bytes. */
static int layout(const long long *len, int size, int *count, int *displ, long long *total)
{
	*total = 0;
	for (int r = 0; r < size; r++) {
		if (len[r] > INT_MAX || *total > INT_MAX - len[r])
			return -EOVERFLOW; /* beyond what MPI's int counts carry */
		count[r] = (int)len[r];
		displ[r] = (int)*total;
		*total += len[r];
	}
	return 0;
}

/* Cut @all (laid out by @count, @displ) into @size buffers of their own. */
static int split(char *all, const int *count, const int *displ, int size, struct par_buf *in)
{
	for (int r = 0; r < size; r++) {
		in[r].len = in[r].cap = (size_t)count[r];
		in[r].data = NULL;
		if (count[r] && !(in[r].data = malloc((size_t)count[r])))
			return -ENOMEM;
		if (count[r])
			memcpy(in[r].data, all + displ[r], (size_t)count[r]);
	}
	return 0;
}

static int exchange(void *ctx, const struct par_buf *out, struct par_buf *in)
{
	int size, err = -ENOMEM;
	long long *olen, *ilen, ototal, itotal;
	int *oc, *od, *ic, *id;
	char *send = NULL, *recv = NULL;

	(void)ctx;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	olen = malloc(2 * (size_t)size * sizeof(*olen));
	oc = malloc(4 * (size_t)size * sizeof(*oc));
	if (!olen || !oc)
		goto out;
	ilen = olen + size;
	od = oc + size;
	ic = od + size;
	id = ic + size;
	for (int r = 0; r < size; r++)
		olen[r] = (long long)out[r].len;
	err = -EIO;
	if (MPI_Alltoall(olen, 1, MPI_LONG_LONG, ilen, 1, MPI_LONG_LONG, MPI_COMM_WORLD) !=
		MPI_SUCCESS ||
	    layout(olen, size, oc, od, &ototal) || layout(ilen, size, ic, id, &itotal))
		goto out;
	err = -ENOMEM;
	send = malloc(ototal ? (size_t)ototal : 1);
	recv = malloc(itotal ? (size_t)itotal : 1);
	if (!send || !recv)
		goto out;
	for (int r = 0; r < size; r++)
		if (oc[r])
			memcpy(send + od[r], out[r].data, (size_t)oc[r]);
	err = -EIO;
	if (MPI_Alltoallv(send, oc, od, MPI_BYTE, recv, ic, id, MPI_BYTE, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		goto out;
	err = split(recv, ic, id, size, in);
out:
	free(send);
	free(recv);
	free(olen);
	free(oc);
	return err;
}

static int gather(void *ctx, const struct par_buf *mine, struct par_buf *all)
{
	int size, rank, err = -ENOMEM;
	long long len = (long long)mine->len, *lens = NULL, total = 0;
	int *count = NULL, *displ = NULL;
	char *recv = NULL;

	(void)ctx;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (len > INT_MAX)
		return -EOVERFLOW;
	if (!rank) {
		lens = malloc((size_t)size * sizeof(*lens));
		count = malloc(2 * (size_t)size * sizeof(*count));
		if (!lens || !count)
			goto out;
		displ = count + size;
	}
	err = -EIO;
	if (MPI_Gather(&len, 1, MPI_LONG_LONG, lens, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		goto out;
	if (!rank) {
		if (layout(lens, size, count, displ, &total))
			goto out;
		err = -ENOMEM;
		if (!(recv = malloc(total ? (size_t)total : 1)))
			goto out;
	}
	err = -EIO;
	if (MPI_Gatherv(mine->data, (int)len, MPI_BYTE, recv, count, displ, MPI_BYTE, 0,
			MPI_COMM_WORLD) != MPI_SUCCESS)
		goto out;
	err = rank ? 0 : split(recv, count, displ, size, all);
out:
	free(recv);
	free(lens);
	free(count);
	return err;
}

int par_mpi_init(struct par_comm *c)
{
	int rank, size;

	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return -EIO;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	*c = (struct par_comm){.rank = (uint32_t)rank,
			       .size = (uint32_t)size,
			       .allreduce = allreduce,
			       .exchange = exchange,
			       .gather = gather};
	return 0;
}

void par_mpi_finalize(void)
{
	MPI_Finalize();
}

void par_mpi_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

#else

int par_mpi_built(void)
{
	return 0;
}

int par_mpi_init(struct par_comm *c)
{
	(void)c;
	return -EIO;
}

void par_mpi_finalize(void)
{
}

void par_mpi_abort(int code)
{
	exit(code);
}

#endif
