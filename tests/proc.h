/*
 * Test support for the suites that run the rocesim binary (cli, check,
 * plot, configs): a temporary folder per suite, and the binary run from
 * the source root with its exit code, stdout and stderr captured; also
 * under a time bound or a file size limit, or in the background to be
 * signalled.
 */
#ifndef ROCESIM_TEST_PROC_H
#define ROCESIM_TEST_PROC_H

#include <stddef.h>

#include <sys/types.h>

struct ts_proc {
	int code; /* exit code, or -1 when killed by a signal */
	int sig;  /* the signal that killed it, or 0 */
	char *out, *err;
};

/* How a child is run beyond its arguments (zero: as ts_exec). */
struct ts_opts {
	const char *env_name, *env_value; /* one variable set in the child */
	unsigned timeout_s;		  /* SIGALRM after this many seconds (0: none) */
	long long max_file_bytes;	  /* RLIMIT_FSIZE, SIGXFSZ ignored (0: none) */
};

/* A child started with ts_spawn, to be reaped by ts_wait. */
struct ts_child {
	pid_t pid;
	char outf[300], errf[300];
};

/* Enter the source root ($ROCESIM_SRC) and make a temporary folder
 * /tmp/rocesim-@name-XXXXXX (a suite's .init). */
void ts_proc_setup(const char *name);
/* Remove the temporary folder (a suite's .fini). */
void ts_proc_teardown(void);
/* A path under the temporary folder (8 rotating buffers). */
const char *ts_tmp(const char *name);
/* Run $ROCESIM_BIN with @args (NULL-terminated, without argv[0]). */
void ts_exec(struct ts_proc *p, const char *const *args);
/* ts_exec with the environment variable @name set to @value in the child
 * (the environment is left as it is when @name is NULL). */
void ts_exec_env(struct ts_proc *p, const char *name, const char *value, const char *const *args);
/* ts_exec with @o: a time bound (a hang fails the test instead of the
 * suite), a file size limit (writes fail with EFBIG, as on a full disk). */
void ts_exec_opts(struct ts_proc *p, const struct ts_opts *o, const char *const *args);
/* Start $ROCESIM_BIN with @args without waiting; its stdout and stderr go
 * to files of its own, so that two children may run at once. */
void ts_spawn(struct ts_child *c, const struct ts_opts *o, const char *const *args);
/* Wait for @c to end and collect its exit code and output into @p. */
void ts_wait(struct ts_child *c, struct ts_proc *p);
void ts_proc_free(struct ts_proc *p);
/* Run @cmd with /bin/sh, its stdout and stderr into *@out and *@err (NULL:
 * dropped); its exit code, or -1 when killed. */
int ts_sh(const char *cmd, char **out, char **err);
/* mpirun with @np ranks on this machine (oversubscribed), the sanitizers'
 * options passed on with leak checks off (Open MPI's own allocations
 * outlive MPI_Finalize), then $ROCESIM_BIN with @args (shell words); into
 * @p as ts_exec. */
void ts_mpirun(struct ts_proc *p, int np, const char *args);
/* All of @path as a NUL-terminated string, or NULL. */
char *ts_slurp(const char *path);
/* Remove @path and, for a folder, all it holds. */
void ts_rm_tree(const char *path);
/* Assert that @path is a PNG of more than 1000 bytes. */
void ts_assert_png(const char *path);
/* The line of @out that holds both @a and @b (a static copy), or NULL. */
const char *ts_line_with(const char *out, const char *a, const char *b);

#endif
