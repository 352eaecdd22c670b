/*
 * sweep on Slurm: DIR/sweep.sbatch, a job array with one task per run of
 * the sweep. Each task runs `rocesim sweep --task $SLURM_ARRAY_TASK_ID DIR`
 * (run K of DIR/sweep.json, K from 0 in the order of sweep.csv's rows), and
 * `rocesim sweep --collect DIR` writes the tables once they are done. The
 * script names the rocesim binary and the folders by absolute paths and
 * starts in the folder the sweep was written from (the scenario's path in
 * sweep.json is relative to it), so that it may be submitted from anywhere.
 * Lines starting with #SBATCH are comments to the shell: the script also
 * runs as it is with SLURM_ARRAY_TASK_ID set.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/cli/sweep_impl.h"

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

int sweep_slurm_write(const struct sweep_spec *sp, const char *dir, const char *self, FILE *out)
{
	char adir[PATH_MAX], cwd[PATH_MAX], logs[SWEEP_PATH], name[64], *text = NULL;
	size_t n = sweep_spec_runs(sp), len = 0;
	char per[64] = "";
	FILE *f;
	int err;

	if (!realpath(dir, adir) || !getcwd(cwd, sizeof(cwd)))
		return -errno;
	if (snprintf(logs, sizeof(logs), "%s/slurm", adir) >= (int)sizeof(logs))
		return -ENAMETOOLONG;
	if (mkdir(logs, 0777) && errno != EEXIST)
		return -errno;
	if (!(f = open_memstream(&text, &len)))
		return -errno;
	job_name(sp->name, name, sizeof(name));
	if (sp->n_variants)
		snprintf(per, sizeof(per), " x %zu variants", sp->n_variants);
	fprintf(f, "#!/bin/sh\n");
	fprintf(f,
		"# rocesim sweep of %s: %zu runs (%zu point%s%s x %zu seed%s), one array task "
		"each.\n",
		sp->scenario, n, sp->n_points, sp->n_points == 1 ? "" : "s", per, sp->n_seeds,
		sp->n_seeds == 1 ? "" : "s");
	fprintf(f, "# Submit with `sbatch %s/sweep.sbatch` (options given to sbatch win over\n",
		adir);
	fprintf(f, "# these), then `rocesim sweep --collect %s` writes the tables.\n", adir);
	fprintf(f, "#SBATCH --job-name=rocesim-%s\n", name);
	fprintf(f, "#SBATCH --array=0-%zu\n", n - 1);
	fprintf(f, "#SBATCH --ntasks=1\n");
	fprintf(f, "#SBATCH --cpus-per-task=1\n");
	sbatch_path(f, "--chdir", cwd, "", 0);
	sbatch_path(f, "--output", logs, "/%A_%a.out", 1);
	sbatch_path(f, "--error", logs, "/%A_%a.err", 1);
	fputs("exec ", f);
	sh_quote(f, self);
	fputs(" sweep --task \"$SLURM_ARRAY_TASK_ID\" ", f);
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
		"  script     %s/sweep.sbatch (task logs in %s/)\n"
		"  submit     sbatch %s/sweep.sbatch\n"
		"  collect    %s sweep --collect %s\n",
		n, sp->n_points, sp->n_points == 1 ? "" : "s", per, sp->n_seeds,
		sp->n_seeds == 1 ? "" : "s", adir, logs, adir, self, adir);
	return 0;
}
