/* Test support: running the rocesim binary from a test (proc.h). */
#include "proc.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[64];

char *ts_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *b;

			cap = cap ? cap * 2 : 8192;
			b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

void ts_rm_tree(const char *path)
{
	struct stat st;
	DIR *dir;
	struct dirent *e;
	char sub[4096];

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		ts_rm_tree(sub);
	}
	if (dir)
		closedir(dir);
	rmdir(path);
}

void ts_proc_setup(const char *name)
{
	const char *src = getenv("ROCESIM_SRC");

	cr_assert(getenv("ROCESIM_BIN"), "ROCESIM_BIN is not set (run through meson test)");
	cr_assert(src, "ROCESIM_SRC is not set (run through meson test)");
	cr_assert_eq(chdir(src), 0, "cannot enter %s", src);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rocesim-%.20s-XXXXXX", name);
	cr_assert(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

void ts_proc_teardown(void)
{
	if (tmpdir[0])
		ts_rm_tree(tmpdir);
}

const char *ts_tmp(const char *name)
{
	static char buf[8][256];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

void ts_exec_env(struct ts_proc *p, const char *name, const char *value, const char *const *args)
{
	const char *argv[64];
	char outf[300], errf[300];
	int n = 0, status;
	pid_t pid;

	argv[n++] = getenv("ROCESIM_BIN");
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	snprintf(outf, sizeof(outf), "%s/.stdout", tmpdir);
	snprintf(errf, sizeof(errf), "%s/.stderr", tmpdir);
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		int o = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		close(o);
		close(e);
		if (name && setenv(name, value, 1))
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	p->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	p->out = ts_slurp(outf);
	p->err = ts_slurp(errf);
	cr_assert(p->out && p->err, "cannot read the output of %s", argv[0]);
}

void ts_exec(struct ts_proc *p, const char *const *args)
{
	ts_exec_env(p, NULL, NULL, args);
}

void ts_proc_free(struct ts_proc *p)
{
	free(p->out);
	free(p->err);
}
