/*
 * The MPI transport of a parallel run (par.h): MPI_Allreduce, a count
 * exchange then MPI_Alltoallv for a window's crossings, MPI_Gatherv for
 * the end; and MPI started, ended and aborted, for the parallel run and
 * for a sweep or tune under mpirun alike. Built without MPI (meson -Dmpi
 * found none), par_mpi_built says so and par_mpi_init fails.
 */
#ifndef ROCESIM_PAR_MPI_H
#define ROCESIM_PAR_MPI_H

#include "sim/run/par.h"

/* Whether this process was started by mpirun (Open MPI or PMIx sets their
 * variables); a sweep's runs are started without them. */
int par_mpi_launched(void);
/* This process's rank by the launcher's environment (0 when unknown). */
int par_mpi_env_rank(void);
/* Ranks of this job on this machine (OMPI_COMM_WORLD_LOCAL_SIZE), else 1. */
unsigned par_mpi_local_ranks(void);
int par_mpi_built(void);
/* MPI_Init, and @c over MPI_COMM_WORLD. 0 or -EIO. */
int par_mpi_init(struct par_comm *c);
void par_mpi_finalize(void);
/* End every process of the run (a process that cannot go on alone). */
void par_mpi_abort(int code);

#endif
