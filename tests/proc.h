/*
 * Test support for the suites that run the rocesim binary (cli, check,
 * plot, configs): a temporary folder per suite, and the binary run from
 * the source root with its exit code, stdout and stderr captured.
 */
#ifndef ROCESIM_TEST_PROC_H
#define ROCESIM_TEST_PROC_H

#include <stddef.h>

struct ts_proc {
	int code; /* exit code, or -1 when killed by a signal */
	char *out, *err;
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
void ts_proc_free(struct ts_proc *p);
/* All of @path as a NUL-terminated string, or NULL. */
char *ts_slurp(const char *path);
/* Remove @path and, for a folder, all it holds. */
void ts_rm_tree(const char *path);

#endif
