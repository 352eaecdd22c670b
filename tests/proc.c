/* Test support: running the rocesim binary from a test (proc.h). */
#include "proc.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
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
	static char buf[8][sizeof(tmpdir) + 8192 + 2];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

void ts_spawn(struct ts_child *c, const struct ts_opts *o, const char *const *args)
{
	static unsigned serial;
	const char *argv[64];
	int n = 0;

	argv[n++] = getenv("ROCESIM_BIN");
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	/* by process too: Criterion runs a suite's tests side by side */
	snprintf(c->outf, sizeof(c->outf), "%s/.stdout.%ld.%u", tmpdir, (long)getpid(), serial);
	snprintf(c->errf, sizeof(c->errf), "%s/.stderr.%ld.%u", tmpdir, (long)getpid(), serial++);
	fflush(NULL);
	c->pid = fork();
	cr_assert_neq(c->pid, -1, "fork: %s", strerror(errno));
	if (c->pid == 0) {
		int out = open(c->outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(c->errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		sigset_t mask;

		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		close(out);
		close(err);
		/* the signals the tests send act as they do from a shell */
		sigemptyset(&mask);
		if (sigprocmask(SIG_SETMASK, &mask, NULL) || signal(SIGINT, SIG_DFL) == SIG_ERR ||
		    signal(SIGTERM, SIG_DFL) == SIG_ERR)
			_exit(127);
		if (o && o->env_name && setenv(o->env_name, o->env_value, 1))
			_exit(127);
		if (o && o->max_file_bytes) {
			struct rlimit rl = {(rlim_t)o->max_file_bytes, (rlim_t)o->max_file_bytes};

			/* an ignored signal stays ignored across exec: write fails with EFBIG */
			if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &rl))
				_exit(127);
		}
		/* a pending alarm survives exec and kills a child that hangs */
		if (o && o->timeout_s)
			alarm(o->timeout_s);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
}

void ts_wait(struct ts_child *c, struct ts_proc *p)
{
	int status;

	cr_assert_eq(waitpid(c->pid, &status, 0), c->pid);
	p->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	p->sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	p->out = ts_slurp(c->outf);
	p->err = ts_slurp(c->errf);
	cr_assert(p->out && p->err, "cannot read the output of %s", getenv("ROCESIM_BIN"));
	unlink(c->outf);
	unlink(c->errf);
}

void ts_exec_opts(struct ts_proc *p, const struct ts_opts *o, const char *const *args)
{
	struct ts_child c;

	ts_spawn(&c, o, args);
	ts_wait(&c, p);
}

void ts_exec_env(struct ts_proc *p, const char *name, const char *value, const char *const *args)
{
	struct ts_opts o = {.env_name = name, .env_value = value};

	ts_exec_opts(p, &o, args);
}

void ts_exec(struct ts_proc *p, const char *const *args)
{
	ts_exec_opts(p, NULL, args);
}

void ts_proc_free(struct ts_proc *p)
{
	free(p->out);
	free(p->err);
}

void ts_assert_png(const char *path)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	unsigned char head[8];
	struct stat st;
	FILE *f;

	cr_assert_eq(stat(path, &st), 0, "%s was not written", path);
	cr_assert_gt(st.st_size, 1000, "%s is only %lld bytes", path, (long long)st.st_size);
	f = fopen(path, "rb");
	cr_assert(f);
	cr_assert_eq(fread(head, 1, 8, f), 8);
	fclose(f);
	cr_assert(!memcmp(head, sig, 8), "%s does not start with the PNG signature", path);
}

const char *ts_line_with(const char *out, const char *a, const char *b)
{
	static char line[4096];

	for (const char *p = out; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (strstr(line, a) && strstr(line, b))
			return line;
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int ts_sh(const char *cmd, char **out, char **err)
{
	char line[8192], o[300], e[300];
	int status;

	/* named by the process: Criterion runs a suite's tests side by side */
	snprintf(line, sizeof(line), "sh-%ld.out", (long)getpid());
	snprintf(o, sizeof(o), "%s", ts_tmp(line));
	snprintf(line, sizeof(line), "sh-%ld.err", (long)getpid());
	snprintf(e, sizeof(e), "%s", ts_tmp(line));
	snprintf(line, sizeof(line), "( %s ) >%s 2>%s", cmd, o, e);
	status = system(line);
	if (out)
		*out = ts_slurp(o);
	if (err)
		*err = ts_slurp(e);
	unlink(o);
	unlink(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Each mpirun gets a session folder of its own (Open MPI's and PMIx's,
 * under TMPDIR and orte_tmpdir_base), so that tests run side by side, and
 * MPI programs started on the machine at the same moment, never race to
 * make the same per-host folder ("mkdir ... File exists").
 */
void ts_mpirun(struct ts_proc *p, int np, const char *args)
{
	char cmd[4096], session[300];

	snprintf(session, sizeof(session), "%s", ts_tmp("mpi-XXXXXX"));
	cr_assert(mkdtemp(session), "cannot make %s", session);
	snprintf(cmd, sizeof(cmd),
		 "TMPDIR='%s' OMPI_MCA_orte_tmpdir_base='%s' "
		 "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" timeout 300 "
		 "mpirun %s--oversubscribe -np %d -x ASAN_OPTIONS -x UBSAN_OPTIONS '%s' %s",
		 session, session, getuid() ? "" : "--allow-run-as-root ", np,
		 getenv("ROCESIM_BIN"), args);
	p->code = ts_sh(cmd, &p->out, &p->err);
	p->sig = 0;
	ts_rm_tree(session);
	cr_assert(p->out && p->err);
}
