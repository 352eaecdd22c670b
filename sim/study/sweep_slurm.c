/*
 * sweep on Slurm: DIR/sweep.sbatch, a job array with one task per run of
 * the sweep. Each task runs `rocesim sweep --task $SLURM_ARRAY_TASK_ID DIR`
 * (run K of DIR/sweep.json, K from 0 in the order of sweep.csv's rows), and
 * `rocesim sweep --collect DIR` writes the tables once they are done. The
 * script names the rocesim binary and the folders by absolute paths and
 * starts in the folder the sweep was written from (the scenario's path in
 * sweep.json is relative to it), so that it may be submitted from anywhere.
 * Lines starting with #SBATCH are comments to the shell: the script also
 * runs as it is with SLURM_ARRAY_TASK_ID set. It changes to that folder
 * itself (besides --chdir), so that `sbatch --chdir=...` does not break it.
 *
 * A path with a control character (a newline would end sbatch's scan of
 * the #SBATCH lines and start a command of its own) is refused, as is a
 * backslash in the folder's: sbatch then expands no %A or %a in the log
 * names (sbatch(1), "filename pattern"). Past Slurm's default
 * MaxArraySize (1001, slurm.conf(5)), the array is submitted in chunks of
 * 1001 tasks, each with ROCESIM_TASK_OFFSET, its first run.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/study/sweep_impl.h"
#include "sim/engine/textsafe.h"

/* @s single-quoted for the shell onto @f. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * An #SBATCH option whose value is the path @dir (then @tail): in double
 * quotes, so that sbatch does not split it at a space; in a file name
 * pattern (--output, --error) a '%' of the path is written '%%', so that
 * Slurm does not read it as a pattern of its own.
 */
static void sbatch_path(FILE *f, const char *opt, const char *dir, const char *tail, int pattern)
{
	fprintf(f, "#SBATCH %s=\"", opt);
	for (const char *c = dir; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		if (*c == '%' && pattern)
			fputc('%', f);
		fputc(*c, f);
	}
	fprintf(f, "%s\"\n", tail);
}

/* The first control character of @s (below 0x20, or DEL), or NULL. */
static const char *control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

/* Refuse @path (@what names it) with a control character, or with a
 * backslash when @logs; 0 or ROCESIM_EXIT_INPUT, said. */
static int slurm_path_ok(const char *what, const char *path, int logs)
{
	const char *c = control_char(path);

	if (c) {
		fprintf(
		    stderr,
		    "rocesim: sweep --slurm: %s holds a control character (byte 0x%02x at "
		    "offset %zu): a job script cannot carry it safely; use a path without one\n",
		    what, (unsigned char)*c, (size_t)(c - path));
		return ROCESIM_EXIT_INPUT;
	}
	if (logs && strchr(path, '\\')) {
		fprintf(stderr,
			"rocesim: sweep --slurm: %s holds a backslash: sbatch then expands no %%A "
			"or %%a in the task logs' names; use a path without one\n",
			what);
		return ROCESIM_EXIT_INPUT;
	}
	return 0;
}

int sweep_slurm_paths_ok(const struct sweep_spec *sp, const char *dir, const char *self)
{
	char cwd[PATH_MAX];
	int rc;

	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "rocesim: sweep --slurm: cannot read the current folder: %s\n",
			strerror(errno));
		return ROCESIM_EXIT_IO;
	}
	if ((rc = slurm_path_ok("the output folder's path (-o)", dir, 1)) ||
	    (rc = slurm_path_ok("the current folder's path", cwd, 1)) ||
	    (rc = slurm_path_ok("the rocesim executable's path", self, 0)))
		return rc;
	/* a task finds the files by the paths sweep.task.json holds, which
	 * JSON holds exactly only as UTF-8 (other bytes are written \xNN) */
	for (size_t v = 0; v <= sp->n_variants + sp->n_withs; v++) {
		const char *path = !v			 ? sp->scenario
				   : v <= sp->n_variants ? sp->variants[v - 1].path
							 : sp->withs[v - 1 - sp->n_variants].path;
		char shown[SWEEP_PATH];

		if (path && !txt_utf8_valid(path)) {
			fprintf(stderr,
				"rocesim: sweep --slurm: %s is not UTF-8: sweep.json cannot carry "
				"it to the tasks exactly; use a path of UTF-8 text\n",
				txt_term(shown, sizeof(shown), path));
			return ROCESIM_EXIT_INPUT;
		}
	}
	return 0;
}

/* @s onto @f with control characters as '?' (a comment line of the script). */
static void comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

/* @name with what a job name should not hold replaced by '_'. */
static void job_name(const char *name, char *buf, size_t size)
{
	size_t i = 0;

	for (; name[i] && i + 1 < size; i++) {
		char c = name[i];

		buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
			     ? c
			     : '_';
	}
	buf[i] = '\0';
}

/*
 * The shell loop that submits @n runs in chunks of SLURM_MAX_ARRAY tasks
 * (the script in @adir), into @buf.
 */
static const char *chunks_cmd(size_t n, const char *adir, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	if (!f)
		return "(out of memory)";
	fprintf(f,
		"for off in $(seq 0 %d %zu); do sbatch --array=0-$(( %zu - off < %d ? %zu - off : "
		"%d )) --export=ALL,ROCESIM_TASK_OFFSET=$off ",
		SLURM_MAX_ARRAY, n - 1, n - 1, SLURM_MAX_ARRAY - 1, n - 1, SLURM_MAX_ARRAY - 1);
	sh_quote(f, adir);
	fputs("/sweep.sbatch; done", f);
	fclose(f);
	return buf;
}

int sweep_slurm_write(const struct sweep_spec *sp, const char *dir, const char *self, uint64_t mem,
		      FILE *out)
{
	char adir[PATH_MAX], cwd[PATH_MAX], logs[SWEEP_PATH], name[64], *text = NULL;
	size_t n = sweep_spec_runs(sp), len = 0;
	char per[64] = "", chunks[PATH_MAX + 256] = "";
	FILE *f;
	int err;

	if (!realpath(dir, adir) || !getcwd(cwd, sizeof(cwd)))
		return -errno;
	/* a symbolic link on the way may hold what the path given did not */
	if (control_char(adir) || strchr(adir, '\\'))
		return -EINVAL;
	if (snprintf(logs, sizeof(logs), "%s/slurm", adir) >= (int)sizeof(logs))
		return -ENAMETOOLONG;
	if (mkdir(logs, 0777) && errno != EEXIST)
		return -errno;
	if (!(f = open_memstream(&text, &len)))
		return -errno;
	job_name(sp->name, name, sizeof(name));
	if (sp->n_variants)
		snprintf(per, sizeof(per), " x %zu variants", sp->n_variants);
	fprintf(f, "#!/bin/sh\n# rocesim sweep of ");
	comment_text(f, sp->scenario);
	fprintf(f, ": %zu runs (%zu point%s%s x %zu seed%s), one array task each.\n", n,
		sp->n_points, sp->n_points == 1 ? "" : "s", per, sp->n_seeds,
		sp->n_seeds == 1 ? "" : "s");
	if (n <= SLURM_MAX_ARRAY)
		fprintf(f,
			"# Submit with `sbatch %s/sweep.sbatch` (options given to sbatch win "
			"over\n# these), ",
			adir);
	else
		fprintf(f,
			"# Slurm's default MaxArraySize is %d: submit the runs in chunks,\n"
			"#   %s\n# (options given to sbatch win over these), ",
			SLURM_MAX_ARRAY, chunks_cmd(n, adir, chunks, sizeof(chunks)));
	fprintf(f, "then `rocesim sweep --collect %s` writes the tables.\n", adir);
	fprintf(f, "#SBATCH --job-name=rocesim-%s\n", name);
	fprintf(f, "#SBATCH --array=0-%zu\n", (n < SLURM_MAX_ARRAY ? n : SLURM_MAX_ARRAY) - 1);
	fprintf(f, "#SBATCH --ntasks=1\n");
	fprintf(f, "#SBATCH --cpus-per-task=1\n");
	/* Slurm's M is MiB (sbatch(1), --mem); rounded up */
	if (mem)
		fprintf(f, "#SBATCH --mem=%lluM\n",
			(unsigned long long)((mem + (1ULL << 20) - 1) >> 20));
	else
		fputs("# No --mem: Slurm's default memory per CPU applies (DefMemPerCPU).\n"
		      "# A task reads sweep.task.json (the spec without its point list) and\n"
		      "# then needs what one run needs: run.peak_rss_kb in its results.json.\n",
		      f);
	sbatch_path(f, "--chdir", cwd, "", 0);
	sbatch_path(f, "--output", logs, "/%A_%a.out", 1);
	sbatch_path(f, "--error", logs, "/%A_%a.err", 1);
	fputs("cd ", f);
	sh_quote(f, cwd);
	fputs(" || exit 2\nexec ", f);
	sh_quote(f, self);
	fputs(" sweep --task \"$((SLURM_ARRAY_TASK_ID + ${ROCESIM_TASK_OFFSET:-0}))\" ", f);
	sh_quote(f, adir);
	fputc('\n', f);
	if (fclose(f)) {
		err = -errno;
		free(text);
		return err;
	}
	err = sweep_write_file(dir, "sweep.sbatch", text, len, 1);
	free(text);
	if (err || !out)
		return err;
	fprintf(out,
		"  runs       %zu (%zu point%s%s x %zu seed%s), one Slurm array task each\n"
		"  script     %s/sweep.sbatch (task logs in %s/)\n",
		n, sp->n_points, sp->n_points == 1 ? "" : "s", per, sp->n_seeds,
		sp->n_seeds == 1 ? "" : "s", adir, logs);
	if (n <= SLURM_MAX_ARRAY)
		fprintf(out, "  submit     sbatch %s/sweep.sbatch\n", adir);
	else
		fprintf(out,
			"  submit     in chunks of %d tasks (Slurm's default MaxArraySize):\n"
			"             %s\n",
			SLURM_MAX_ARRAY, chunks);
	if (mem)
		fprintf(out, "  memory     %llu MiB per task (--mem)\n",
			(unsigned long long)((mem + (1ULL << 20) - 1) >> 20));
	else
		fputs("  memory     the cluster's default per CPU (no --mem given); one run's\n"
		      "             need is run.peak_rss_kb in its results.json\n",
		      out);
	fprintf(out, "  collect    %s sweep --collect %s\n", self, adir);
	return 0;
}
