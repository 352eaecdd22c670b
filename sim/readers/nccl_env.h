/*
 * The names of NCCL's environment variables, to tell a misspelt one (the
 * NCCL_GID_INDEX that was meant as NCCL_IB_GID_INDEX) from one NCCL reads.
 * NCCL ignores a name it does not know without a word, so the setting it
 * was meant to change silently keeps its default.
 */
#ifndef ROCESIM_NCCL_ENV_H
#define ROCESIM_NCCL_ENV_H

/* 1 when NCCL reads @name (or it belongs to nccl-tests, NCCL_TESTS_*), else 0. */
int nccl_env_known(const char *name);
/* The known name nearest to @name (fewest edits; a known name that
 * @name begins, or that begins with @name, first). Never NULL. */
const char *nccl_env_nearest(const char *name);

#endif
