/*
 * Running gnuplot for `rocesim plot`: one script of plots/ per picture, with
 * posix_spawnp (never a shell), its variables passed as -e; the picture is
 * drawn in the temporary folder and renamed into OUTDIR when gnuplot succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"

extern char **environ;

/* ---- running gnuplot ---------------------------------------------------- */

/*
 * The line of gnuplot's stderr that says what went wrong: the first
 * "... line N: ..." that is not a warning, else the first non-empty line.
 */
static void first_error_line(const char *path, char *out, size_t size)
{
	char line[512];
	FILE *f = fopen(path, "r");

	snprintf(out, size, "(no message)");
	if (!f)
		return;
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || strspn(line, " \t^") == strlen(line))
			continue;
		if (strstr(line, " line ") && strstr(line, ": ") && !strstr(line, "warning:")) {
			snprintf(out, size, "%s", line + strspn(line, " \t"));
			break;
		}
		if (!out[0])
			snprintf(out, size, "%s", line + strspn(line, " \t"));
	}
	fclose(f);
	if (!out[0])
		snprintf(out, size, "(no message)");
}

/* Run gnuplot -e @vars @script; 0, or -1 after saying why. */
static int run_gnuplot(const struct plot *p, const char *script, const char *vars)
{
	char prog[] = "gnuplot", opt_e[] = "-e";
	char errpath[PLOT_PATH], msg[512];
	char *argv[5];
	posix_spawn_file_actions_t fa;
	int err, status;
	pid_t pid;

	if (plot__join(errpath, sizeof(errpath), p->tmp, "gnuplot.err"))
		return -1;
	argv[0] = prog;
	argv[1] = opt_e;
	argv[2] = (char *)vars;
	argv[3] = (char *)script;
	argv[4] = NULL;
	err = posix_spawn_file_actions_init(&fa);
	if (!err)
		err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!err)
		err = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!err)
		err = posix_spawn_file_actions_addopen(&fa, 2, errpath,
						       O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!err)
		err = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err == ENOENT) {
		fprintf(stderr, "rocesim: gnuplot is not installed: apt-get install gnuplot-nox\n");
		return -1;
	}
	if (err) {
		fprintf(stderr, "rocesim: cannot run gnuplot: %s\n", strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rocesim: waiting for gnuplot: %s\n", strerror(errno));
			return -1;
		}
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "rocesim: gnuplot was killed by signal %d running %s\n",
			WTERMSIG(status), script);
		return -1;
	}
	if (WEXITSTATUS(status)) {
		first_error_line(errpath, msg, sizeof(msg));
		fprintf(stderr, "rocesim: gnuplot failed on %s: %s\n", script, msg);
		return -1;
	}
	return 0;
}

/*
 * Remove OUTDIR/@pic.@ext left by an earlier plot when this one does not
 * draw it (all extensions when @ext is NULL), so that the pictures in
 * OUTDIR always match the run they sit beside.
 */
void plot__drop_old(const struct plot *p, const char *pic, const char *ext)
{
	static const char *const exts[] = {"png", "svg"};
	char name[64], path[PLOT_PATH];

	for (int i = 0; i < 2; i++) {
		if (ext && strcmp(ext, exts[i]))
			continue;
		snprintf(name, sizeof(name), "%s.%s", pic, exts[i]);
		if (!plot__join(path, sizeof(path), p->outdir, name))
			unlink(path);
	}
}

/*
 * Draw picture @pic (e.g. "queues") with plots/@gp.gp and the variables
 * @vars, as PNG and, with --svg, SVG: drawn in the temporary folder, then
 * renamed into OUTDIR and its path printed.
 */
int plot__draw_as(const struct plot *p, const char *gp, const char *pic, const struct buf *vars)
{
	static const char *const exts[] = {"png", "svg"};
	char script[PLOT_PATH], name[64], tmp[PLOT_PATH], dst[PLOT_PATH];
	int err = 0;

	if (vars->oom) {
		fprintf(stderr, "rocesim: out of memory drawing %s\n", pic);
		return -1;
	}
	snprintf(name, sizeof(name), "%s.gp", gp);
	if (plot__join(script, sizeof(script), p->scripts, name))
		return -1;
	if (!p->svg)
		plot__drop_old(p, pic, "svg");
	for (int i = 0; i < 1 + !!p->svg && !err; i++) {
		struct buf all = {0};

		snprintf(name, sizeof(name), "%s.%s", pic, exts[i]);
		if (plot__join(tmp, sizeof(tmp), p->tmp, name) ||
		    plot__join(dst, sizeof(dst), p->outdir, name))
			return -1;
		buf_printf(&all, "%s", vars->s ? vars->s : "");
		buf_str(&all, "term", exts[i]);
		buf_str(&all, "out", tmp);
		buf_str(&all, "name", p->name);
		buf_num(&all, "xmax", p->end_us > 0 ? p->end_us : 1);
		if (all.oom) {
			fprintf(stderr, "rocesim: out of memory drawing %s\n", pic);
			err = -1;
		} else {
			err = run_gnuplot(p, script, all.s);
		}
		free(all.s);
		if (!err && rename(tmp, dst)) {
			fprintf(stderr, "rocesim: cannot write %s: %s\n", dst, strerror(errno));
			err = -1;
		}
		if (!err)
			printf("%s\n", dst);
	}
	return err;
}

/* Draw picture @pic with plots/@pic.gp. */
int plot__draw(const struct plot *p, const char *pic, const struct buf *vars)
{
	return plot__draw_as(p, pic, pic, vars);
}
