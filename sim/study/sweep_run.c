/*
 * sweep runs: each run of a sweep is `rocesim run SCENARIO -o
 * DIR/points/<id> [--with OVERLAY] --set KEY=VALUE... --seed S --quiet`
 * (--with: the run's variant's overlay) in a child process of its own, so
 * that a run that crashes or runs out of memory takes only itself down.
 * The child runs rocesim's entry already in memory (struct sweep_exec's
 * run_main, no exec: a small run does not pay for loading the program
 * again), or, under mpirun, execs rocesim. At most -j children at
 * once, each in a process group of its own: a Ctrl-C at the terminal
 * reaches the sweep alone, which starts nothing more and forwards the
 * signal once to every child (each then removes its temporaries). A sweep
 * killed outright (SIGKILL) takes its children with it (PR_SET_PDEATHSIG).
 *
 * What a run leaves in points/<id>/: what `rocesim run` writes, stderr.txt
 * (its standard error), and, only once it has ended (not when interrupted),
 * point.json (the overrides, the seed, the scenario's digest, the variant
 * and its overlay's path and digest, "inputs": the provenance the run was
 * started with (sweep_inputs.c: the version and the SHA-256 of every file
 * it reads), and the exit code; for a run that failed, also its error). A
 * later sweep into the same folder skips a run whose results.json exists
 * and whose point.json matches, inputs built anew included, with exit 0 or
 * 1: a killed sweep resumes where it was, and a run whose inputs changed
 * since (an edited cc_params file, another rocesim) runs again.
 */
#define _GNU_SOURCE /* syncfs */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/study/sweep_impl.h"
#include "sim/engine/textsafe.h"

/* The children running (0: a free slot), read by the signal handler. */
static volatile pid_t *slots;
static size_t n_slots;

/*
 * Block (@block 1) or restore the signals the sweep forwards. Blocked from
 * before fork() until the child's pid is in slots[], so that a signal in
 * between is delivered once the child can be found (it sits in a process
 * group of its own: a Ctrl-C at the terminal does not reach it), and while
 * slots[] is freed, so that the handler never reads freed memory.
 */
static void forwarded_signals(int block, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (block)
		sigprocmask(SIG_BLOCK, &set, old);
	else
		sigprocmask(SIG_SETMASK, old, NULL);
}

void sweep_run_forward(int sig)
{
	for (size_t i = 0; slots && i < n_slots; i++)
		if (slots[i] > 0)
			kill(slots[i], sig);
}

volatile sig_atomic_t sweep_stop_sig;
volatile int sweep_stop_flag;

static void on_signal(int sig)
{
	sweep_stop_sig = sig;
	sweep_stop_flag = 1;
	sweep_run_forward(sig);
}

void sweep_catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

static json_t *point_json(const struct sweep_spec *sp, const struct sweep_run *r, char *const *sets,
			  int exit_code, json_t *inputs)
{
	json_t *j = json_object(), *ov = json_array();
	int bad = !j || !ov;

	for (size_t a = 0; a < sp->n_axes; a++)
		bad |= json_array_append_new(ov, txt_json(sets[a]));
	bad |= json_object_set_new(j, "id", json_string(r->id));
	bad |= json_object_set_new(j, "scenario_sha256", json_string(sp->sha256));
	if (sp->n_variants) {
		const struct sweep_variant *v = &sp->variants[r->variant];

		bad |= json_object_set_new(j, "variant", json_string(v->name));
		if (v->path) {
			/* an edited overlay is another input: its runs run again */
			bad |= json_object_set_new(j, "overlay", txt_json(v->path));
			bad |= json_object_set_new(j, "overlay_sha256", json_string(v->sha256));
		}
	}
	bad |= json_object_set_new(j, "overrides", ov);
	if (sp->fluid)
		bad |= json_object_set_new(j, "model", json_string("fluid"));
	bad |= json_object_set_new(j, "seed", json_integer((json_int_t)r->seed));
	bad |= json_object_set_new(j, "exit", json_integer(exit_code));
	if (inputs)
		bad |= json_object_set(j, "inputs", inputs);
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* @dir/@name into @buf (SWEEP_PATH); 0, or -ENAMETOOLONG. */
static int path_of(char *buf, const char *dir, const char *name)
{
	return snprintf(buf, SWEEP_PATH, "%s/%s", dir, name) >= SWEEP_PATH ? -ENAMETOOLONG : 0;
}

/*
 * Does @path (a results.json) end as a JSON object does? A run writes it
 * whole and renames it into place, but without fsync (ROCESIM_NO_SYNC) a
 * machine that stops before the sweep's sync may leave it empty or filled
 * with zeros: such a run is run again. Reads only the file's tail.
 */
static int complete_json(const char *path)
{
	char tail[64];
	ssize_t n;
	off_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	n = size > 0 ? pread(fd, tail, sizeof(tail), size > 64 ? size - 64 : 0) : 0;
	close(fd);
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		n--;
	return n > 0 && tail[n - 1] == '}';
}

/*
 * Did an earlier sweep finish @r with these inputs (the point's overrides
 * @sets, and the provenance a run would record now)? Its exit code, or -1;
 * when it finished with other inputs, why into @r->stale.
 */
static int finished(const char *pdir, const struct sweep_spec *sp, struct sweep_run *r,
		    char *const *sets)
{
	char path[SWEEP_PATH];
	json_t *old, *want, *now;
	int code = -1;

	r->stale[0] = '\0';
	if (path_of(path, pdir, "results.json") || !complete_json(path) ||
	    path_of(path, pdir, "point.json"))
		return -1;
	old = json_load_file(path, 0, NULL);
	if (!old)
		return -1;
	now = sweep_inputs(sp, r->point, r->variant, r->seed);
	want = point_json(sp, r, sets, 0, now);
	if (want) {
		json_t *e = json_object_get(old, "exit");

		json_object_set(want, "exit", e ? e : json_null());
		if (now && json_equal(old, want) && json_is_integer(e) &&
		    (json_integer_value(e) == 0 || json_integer_value(e) == 1))
			code = (int)json_integer_value(e);
		else if (json_is_integer(e) &&
			 (json_integer_value(e) == 0 || json_integer_value(e) == 1))
			sweep_inputs_why(json_object_get(old, "inputs"), now, r->stale,
					 sizeof(r->stale));
	}
	json_decref(old);
	json_decref(want);
	json_decref(now);
	return code;
}

static int mkdir_p(const char *path)
{
	return mkdir(path, 0777) && errno != EEXIST ? -errno : 0;
}

/* The first line of @path (a run's stderr) into @buf, "" if none. */
static void first_line(const char *path, char *buf, size_t size)
{
	FILE *f = *path ? fopen(path, "r") : NULL;

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * The environment of a run's child: the sweep's, less what mpirun sets in
 * its ranks (OMPI_*, PMIX_*), so that a run started by a sweep under
 * mpirun is a run of one process, not a rank of a parallel run; and
 * ROCESIM_NO_SYNC=1: the run does not fsync its outputs, the sweep syncs
 * its folder once when its runs are done (sweep_run_all). A
 * NULL-terminated array of the sweep's own strings (and a static one), or
 * NULL.
 */
static char **child_env(void)
{
	static char nosync[] = "ROCESIM_NO_SYNC=1";
	extern char **environ;
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 2, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "OMPI_", 5) && strncmp(environ[i], "PMIX_", 5) &&
		    strncmp(environ[i], "ROCESIM_NO_SYNC=", 16))
			env[k++] = environ[i];
	env[k] = nosync;
	return env;
}

/* Start a run in a child; its pid, or a negative errno. */
static pid_t launch(const struct sweep_spec *sp, const struct sweep_exec *x, const char *pdir,
		    const struct sweep_run *r)
{
	const size_t n_args = 10 + 2 * (sp->n_withs + 1 + sp->n_sets + sp->n_axes);
	const char **argv = calloc(n_args, sizeof(*argv));
	char path[SWEEP_PATH], seed[24], **env = child_env();
	struct sweep_point_args pa = {0};
	int err_fd, null_fd;
	size_t k = 0;
	pid_t pid, parent;

	if (!argv || !env || sweep_point_args(sp, r->point, r->variant, &pa)) {
		free(argv);
		free(env);
		return -ENOMEM;
	}
	if (path_of(path, pdir, "stderr.txt")) {
		free(argv);
		free(env);
		sweep_point_args_free(&pa);
		return -ENAMETOOLONG;
	}
	err_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (err_fd < 0 || null_fd < 0) {
		int err = -errno;

		if (err_fd >= 0)
			close(err_fd);
		free(argv);
		free(env);
		sweep_point_args_free(&pa);
		return err;
	}
	/* a point.json left from an earlier sweep no longer says how this run ended */
	if (!path_of(path, pdir, "point.json"))
		unlink(path);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)r->seed);
	argv[k++] = x->self;
	argv[k++] = sp->fluid ? "fluid" : "run";
	argv[k++] = sp->scenario;
	argv[k++] = "-o";
	argv[k++] = pdir;
	for (size_t i = 0; i < pa.n_overlays; i++) {
		argv[k++] = "--with";
		argv[k++] = pa.overlays[i];
	}
	for (size_t i = 0; i < pa.n_sets; i++) {
		argv[k++] = "--set";
		argv[k++] = pa.sets[i];
	}
	argv[k++] = "--seed";
	argv[k++] = seed;
	argv[k++] = "--quiet";
	argv[k] = NULL;
	parent = getpid();
	/* a child that runs without exec writes through copies of our buffers */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
		struct sigaction old;
		sigset_t none;

		/* a run dies with the sweep, even one killed by SIGKILL, whose
		 * handler never signals its children (prctl(2); kept across
		 * execve): no orphan keeps its point's folder locked */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		setpgid(0, 0);
		/* not the sweep's handler (it signals the sweep's other children):
		 * the default until exec, ignored signals stay ignored */
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
				signal(sigs[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(null_fd, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		if (x->run_main) {
			extern char **environ;

			/* what exec would do: the run's environment, and none of
			 * the sweep's files open (its folder's lock among them) */
			environ = env;
			close_range(3, ~0U, 0);
			/* top and ps -o comm tell the runs from the sweep */
			prctl(PR_SET_NAME, sp->fluid ? "rocesim fluid" : "rocesim run");
			_exit(x->run_main((int)k, (char **)argv));
		}
		execve(x->self, (char *const *)argv, env);
		dprintf(STDERR_FILENO, "rocesim sweep: cannot run %s: %s\n", x->self,
			strerror(errno));
		_exit(127);
	}
	close(err_fd);
	close(null_fd);
	free(argv);
	free(env);
	sweep_point_args_free(&pa);
	return pid < 0 ? -errno : pid;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* How the child of run @r ended, with @status from waitpid. */
static void reap(const struct sweep_spec *sp, const struct sweep_exec *x, struct sweep_run *r,
		 int status, char *const *sets, json_t *inputs)
{
	char pdir[SWEEP_PATH], path[SWEEP_PATH], line[200];

	if (snprintf(pdir, sizeof(pdir), "%s/points/%s", x->dir, r->id) >= SWEEP_PATH ||
	    path_of(path, pdir, "stderr.txt"))
		path[0] = '\0';
	r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (r->exit_code == 0 || r->exit_code == 1) {
		json_t *j = point_json(sp, r, sets, r->exit_code, inputs);
		char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;

		r->status = r->exit_code ? SWEEP_EXPECT : SWEEP_OK;
		if (!text || sweep_write_file(pdir, "point.json", text, strlen(text), 0)) {
			r->status = SWEEP_FAILED;
			snprintf(r->error, sizeof(r->error), "cannot write point.json");
		}
		free(text);
		json_decref(j);
		return;
	}
	first_line(path, line, sizeof(line));
	if (*x->stop && (r->sig || r->exit_code >= 128)) {
		r->status = SWEEP_NOT_RUN;
		snprintf(r->error, sizeof(r->error), "interrupted");
		return;
	}
	r->status = SWEEP_FAILED;
	if (r->sig)
		snprintf(r->error, sizeof(r->error), "killed by signal %d (%s)%s%s", r->sig,
			 strsignal(r->sig), *line ? ": " : "", line);
	else
		snprintf(r->error, sizeof(r->error), "exit %d%s%s", r->exit_code, *line ? ": " : "",
			 line);
	/* for --collect; never taken as finished (exit neither 0 nor 1) */
	json_t *j = point_json(sp, r, sets, r->exit_code, inputs);
	char *text = j && !json_object_set_new(j, "error", txt_json(r->error))
			 ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS)
			 : NULL;

	if (text)
		sweep_write_file(pdir, "point.json", text, strlen(text), 0);
	free(text);
	json_decref(j);
}

int sweep_run_recorded(const struct sweep_spec *sp, const char *dir, struct sweep_run *r)
{
	char pdir[SWEEP_PATH], path[SWEEP_PATH], *sets[sp->n_axes ? sp->n_axes : 1];
	json_t *old = NULL, *want = NULL;
	int code;

	r->status = SWEEP_NOT_RUN;
	if (snprintf(pdir, sizeof(pdir), "%s/points/%s", dir, r->id) >= SWEEP_PATH ||
	    path_of(path, pdir, "point.json"))
		return 0;
	if (sweep_spec_sets(sp, r->point, sets))
		return -ENOMEM;
	code = finished(pdir, sp, r, sets);
	if (code >= 0) {
		r->status = SWEEP_SKIPPED_OK;
		r->exit_code = code;
		r->resumed = 1;
	} else if ((old = json_load_file(path, 0, NULL)) &&
		   (want = point_json(sp, r, sets, 0, json_object_get(old, "inputs")))) {
		json_t *e = json_object_get(old, "exit");
		const char *error = json_string_value(json_object_get(old, "error"));

		json_object_set(want, "exit", e ? e : json_null());
		json_object_set(want, "error", json_object_get(old, "error"));
		if (json_equal(old, want) && json_is_integer(e) && error) {
			r->status = SWEEP_FAILED;
			r->exit_code = (int)json_integer_value(e);
			snprintf(r->error, sizeof(r->error), "%s", error);
		}
	}
	json_decref(old);
	json_decref(want);
	sweep_sets_free(sets, sp->n_axes);
	return 0;
}

/* Flush the file system holding @dir to disk (syncfs(2)): the outputs of
 * every run of the sweep at once. */
static void sync_folder(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

int sweep_run_all(const struct sweep_spec *sp, struct sweep_run *runs, size_t n,
		  const struct sweep_exec *x)
{
	struct {
		size_t run;
		char **sets;
		json_t *inputs; /* as it was started with */
		double t0;
	} * job;
	char pdir[SWEEP_PATH];
	size_t next = 0, active = 0, done = 0, started = 0;
	sigset_t mask;
	int err = 0;

	job = calloc(x->jobs, sizeof(*job));
	slots = calloc(x->jobs, sizeof(*slots));
	if (!job || !slots) {
		free(job);
		free((void *)slots);
		slots = NULL;
		return -ENOMEM;
	}
	n_slots = x->jobs;
	if ((err = path_of(pdir, x->dir, "points")) || (err = mkdir_p(pdir)))
		goto out;
	while (next < n || active) {
		/* fill the free slots */
		while (!err && !*x->stop && next < n && active < x->jobs) {
			struct sweep_run *r = &runs[next];
			json_t *inputs;
			char **sets = calloc(sp->n_axes ? sp->n_axes : 1, sizeof(*sets));
			size_t s = 0;
			pid_t pid;
			int code;

			if (r->status == SWEEP_REFUSED) {
				free(sets);
				next++;
				done++;
				continue;
			}
			if (!sets || sweep_spec_sets(sp, r->point, sets)) {
				free(sets);
				err = -ENOMEM;
				break;
			}
			if (snprintf(pdir, sizeof(pdir), "%s/points/%s", x->dir, r->id) >=
			    SWEEP_PATH)
				err = -ENAMETOOLONG;
			if (err || (err = mkdir_p(pdir))) {
				sweep_sets_free(sets, sp->n_axes);
				free(sets);
				break;
			}
			next++;
			code = finished(pdir, sp, r, sets);
			if (code >= 0) {
				r->status = SWEEP_SKIPPED_OK;
				r->exit_code = code;
				r->resumed = 1;
				done++;
				sweep_sets_free(sets, sp->n_axes);
				free(sets);
				continue;
			}
			/* NULL when the point does not load now: the run says why */
			inputs = sweep_inputs(sp, r->point, r->variant, r->seed);
			forwarded_signals(1, &mask);
			pid = launch(sp, x, pdir, r);
			if (pid < 0) {
				forwarded_signals(0, &mask);
				json_decref(inputs);
				err = (int)pid;
				sweep_sets_free(sets, sp->n_axes);
				free(sets);
				break;
			}
			while (slots[s])
				s++;
			slots[s] = pid;
			started++;
			forwarded_signals(0, &mask);
			job[s].run = (size_t)(r - runs);
			job[s].sets = sets;
			job[s].inputs = inputs;
			job[s].t0 = now_s();
			active++;
		}
		if (!active)
			break;
		/* wait for one child (a signal interrupts the wait: loop) */
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (size_t s = 0; s < x->jobs; s++) {
			struct sweep_run *r;

			if (slots[s] != pid)
				continue;
			r = &runs[job[s].run];
			slots[s] = 0;
			active--;
			done++;
			reap(sp, x, r, status, job[s].sets, job[s].inputs);
			sweep_sets_free(job[s].sets, sp->n_axes);
			free(job[s].sets);
			json_decref(job[s].inputs);
			if (x->progress)
				fprintf(stderr, "rocesim sweep: [%zu/%zu] %s %s%s%s (%.2f s)\n",
					done, n, r->id,
					r->status == SWEEP_OK	     ? "ok"
					: r->status == SWEEP_EXPECT  ? "expect failed"
					: r->status == SWEEP_NOT_RUN ? "interrupted"
								     : "FAILED",
					*r->error && r->status == SWEEP_FAILED ? ": " : "",
					r->status == SWEEP_FAILED ? r->error : "",
					now_s() - job[s].t0);
			break;
		}
	}
out:
	/* on an error of our own, wait for the children already started */
	for (size_t s = 0; s < x->jobs; s++) {
		if (slots[s] > 0) {
			int status;

			while (waitpid(slots[s], &status, 0) < 0 && errno == EINTR)
				;
			reap(sp, x, &runs[job[s].run], status, job[s].sets, job[s].inputs);
			sweep_sets_free(job[s].sets, sp->n_axes);
			free(job[s].sets);
			json_decref(job[s].inputs);
			slots[s] = 0;
		}
	}
	/* the runs wrote without fsync (ROCESIM_NO_SYNC): one sync for them all */
	if (started)
		sync_folder(x->dir);
	free(job);
	forwarded_signals(1, &mask);
	free((void *)slots);
	slots = NULL;
	n_slots = 0;
	forwarded_signals(0, &mask);
	return err;
}
