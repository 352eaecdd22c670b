/*
 * rocesim plot OUTDIR: pictures of a finished run. Reads OUTDIR/results.json
 * (jansson) and the CSVs the run wrote (plain stdio), writes the few points
 * each picture needs into small data files in a temporary folder
 * OUTDIR/.plot-XXXXXX, and runs gnuplot on the scripts in plots/ with
 * posix_spawnp (never a shell), passing the rest as -e variables. Each
 * picture is drawn in the temporary folder and renamed into OUTDIR when
 * gnuplot succeeded; the temporary folder is removed in every case.
 *
 *   queues.png  egress queue and ingress PG occupancy of the hottest ports
 *   pfc.png     when each port was paused (needs pfc_events.csv)
 *   rates.png   DCQCN Rc, Rt and alpha of up to 8 QPs (needs qp_rates.csv)
 *   flows.png   completion time of every flow, sorted
 *   ranks.png   when each rank of a collective had all its data
 *
 * Plot knows nothing of the scenario: what it draws comes from OUTDIR alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "sim/cli/cli.h"

#define EXIT_INPUT CLI_EXIT_INPUT
#define PLOT_PATH 4096
#define TOP_DEFAULT 4
#define TOP_MAX 8      /* one colour each in queues.png */
#define RATE_QPS 8     /* QPs drawn in rates.png */
#define PFC_ROWS 48    /* ports drawn in pfc.png */
#define FLOW_LABELS 40 /* flows.png labels each bar up to this many flows */
#define COLL_PANELS 4  /* collectives drawn in ranks.png, one panel each */
#define CSV_FIELDS 16
#define NAME_MAX_LEN 128

extern char **environ;

static const char usage[] =
	"usage: rocesim plot OUTDIR [--svg] [--top N]\n"
	"\n"
	"Draws the pictures of a run from the files `rocesim run -o OUTDIR` wrote,\n"
	"with gnuplot, into OUTDIR (PNG; with --svg also SVG):\n"
	"  queues.png  egress queue and ingress PG occupancy over time on the N\n"
	"              hottest switch ports (from timeseries.csv), with the ECN\n"
	"              kmin/kmax and the PFC XOFF thresholds when results.json\n"
	"              gives them (\"config\": {ecn_kmin, ecn_kmax, pfc_xoff})\n"
	"  pfc.png     PFC timeline: when each port was paused, storms and the\n"
	"              watchdog (only when OUTDIR has pfc_events.csv)\n"
	"  rates.png   DCQCN current rate Rc, target rate Rt and alpha of the\n"
	"              first 8 QPs (only when OUTDIR has qp_rates.csv)\n"
	"  flows.png   completion time of every flow, fastest first (only when the\n"
	"              run had flows)\n"
	"  ranks.png   collective progress per rank: when each rank had received all\n"
	"              its data in the last iteration, one bar per rank, with the time\n"
	"              the iteration took; one panel per collective, the first 4 when\n"
	"              the run had more (only when the run had a collective)\n"
	"and prints the path of each file written.\n"
	"\n"
	"options:\n"
	"  --svg       also write queues.svg, pfc.svg, rates.svg, flows.svg, ranks.svg\n"
	"  --top N     number of hottest ports in queues.png (default 4, at most 8)\n"
	"\n"
	"The gnuplot scripts (queues.gp, pfc.gp, rates.gp, flows.gp, ranks.gp) are\n"
	"looked for in this order: $ROCESIM_PLOTS; ./plots; <folder of the rocesim\n"
	"executable>/../plots (a build folder inside the source tree); <that\n"
	"folder>/../share/rocesim/plots.\n"
	"\n"
	"exit codes: 0 ok; 2 bad usage, OUTDIR without results.json, unreadable\n"
	"            input, gnuplot missing or failing\n";

/* A growing string; on allocation failure @oom is set and appends stop. */
struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->len + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Append the gnuplot assignment NAME='VALUE'; (a quote doubled inside). */
static void buf_str(struct buf *b, const char *name, const char *val)
{
	buf_printf(b, "%s='", name);
	for (const char *c = val; *c; c++) {
		if (*c == '\'')
			buf_printf(b, "''");
		else
			buf_printf(b, "%c", *c);
	}
	buf_printf(b, "'; ");
}

/* A real, always with a point or exponent: gnuplot divides integers as integers. */
static void buf_num(struct buf *b, const char *name, double v)
{
	char num[64];

	snprintf(num, sizeof(num), "%.10g", v);
	buf_printf(b, "%s=%s%s; ", name, num, strpbrk(num, ".eEn") ? "" : ".0");
}

static void buf_int(struct buf *b, const char *name, long v)
{
	buf_printf(b, "%s=%ld; ", name, v);
}

/* What every picture needs to know about the run and where to draw. */
struct plot {
	const char *outdir;
	char scripts[PLOT_PATH]; /* the folder of the .gp files */
	char tmp[PLOT_PATH];	 /* OUTDIR/.plot-XXXXXX */
	json_t *res;
	const char *name; /* the scenario's name */
	double end_us;	  /* simulated end of the run */
	int svg, top;
};

/* @dir/@name into @dst; -1 (after saying so) when it does not fit. */
static int join(char *dst, size_t size, const char *dir, const char *name)
{
	if ((size_t)snprintf(dst, size, "%s/%s", dir, name) >= size) {
		fprintf(stderr, "rocesim: plot: path too long: %s/%s\n", dir, name);
		return -1;
	}
	return 0;
}

/* Open a data file in the temporary folder for writing. */
static FILE *tmp_open(const struct plot *p, const char *name, char *path, size_t size)
{
	FILE *f;

	if (join(path, size, p->tmp, name))
		return NULL;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "rocesim: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* Close a data file; -1 (after saying so) when a write failed. */
static int tmp_close(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		fprintf(stderr, "rocesim: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* Remove the temporary folder and all it holds (only files are made there). */
static void tmp_remove(const struct plot *p)
{
	char path[PLOT_PATH];
	struct dirent *e;
	DIR *dir;

	if (!p->tmp[0])
		return;
	dir = opendir(p->tmp);
	while (dir && (e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!join(path, sizeof(path), p->tmp, e->d_name))
			unlink(path);
	}
	if (dir)
		closedir(dir);
	rmdir(p->tmp);
}

/* ---- CSV input ---------------------------------------------------------- */

/* A CSV file read a row at a time; fields point into the row. */
struct csv {
	FILE *f;
	const char *path;
	char *line, *header;
	size_t cap;
	unsigned long lineno;
	char *field[CSV_FIELDS];
	int n;
};

/* Cut @line at commas into @field; returns the number of fields. */
static int csv_split(char *line, char **field)
{
	int n = 0;
	char *c;

	line[strcspn(line, "\r\n")] = '\0';
	field[n++] = line;
	for (c = line; *c && n < CSV_FIELDS; c++) {
		if (*c == ',') {
			*c = '\0';
			field[n++] = c + 1;
		}
	}
	return n;
}

/* Next row into c->field; 1 a row, 0 the end, -1 an error (said). */
static int csv_next(struct csv *c)
{
	ssize_t len;

	do {
		errno = 0;
		len = getline(&c->line, &c->cap, c->f);
		if (len < 0) {
			if (ferror(c->f) || errno == ENOMEM) {
				fprintf(stderr, "rocesim: cannot read %s: %s\n", c->path,
					strerror(errno ? errno : EIO));
				return -1;
			}
			return 0;
		}
		c->lineno++;
	} while (c->line[0] == '\n' || c->line[0] == '\0');
	c->n = csv_split(c->line, c->field);
	return 1;
}

static void csv_close(struct csv *c)
{
	if (c->f)
		fclose(c->f);
	free(c->line);
	free(c->header);
	memset(c, 0, sizeof(*c));
}

/*
 * Open @path and map the @n column @names to their indexes in @col from the
 * header. Returns 1 when open, 0 when the file does not exist, -1 an error
 * (said).
 */
static int csv_open(struct csv *c, const char *path, const char *const *names, int *col, int n)
{
	char *hdr[CSV_FIELDS];
	int nh;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->f = fopen(path, "r");
	if (!c->f) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "rocesim: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (getline(&c->header, &c->cap, c->f) < 0) {
		if (ferror(c->f))
			fprintf(stderr, "rocesim: cannot read %s: %s\n", path, strerror(errno));
		else
			fprintf(stderr, "rocesim: %s: empty file (no header)\n", path);
		csv_close(c);
		return -1;
	}
	c->cap = 0; /* the rows get a buffer of their own */
	c->lineno = 1;
	nh = csv_split(c->header, hdr);
	for (int i = 0; i < n; i++) {
		col[i] = -1;
		for (int j = 0; j < nh; j++)
			if (!strcmp(hdr[j], names[i]))
				col[i] = j;
		if (col[i] < 0) {
			fprintf(stderr, "rocesim: %s: no column \"%s\" in the header\n", path,
				names[i]);
			csv_close(c);
			return -1;
		}
	}
	return 1;
}

/* Field @i of the row; NULL (after saying so) when the row is too short. */
static const char *csv_str(const struct csv *c, int i)
{
	if (i >= c->n) {
		fprintf(stderr, "rocesim: %s:%lu: %d fields, expected at least %d\n", c->path,
			c->lineno, c->n, i + 1);
		return NULL;
	}
	return c->field[i];
}

/* Field @i as a number into @v; -1 (after saying so) when it is not one. */
static int csv_num(const struct csv *c, int i, double *v)
{
	const char *s = csv_str(c, i);
	char *end;

	if (!s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || errno) {
		fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a number\n", c->path, c->lineno, s);
		return -1;
	}
	return 0;
}

/* ---- series of points --------------------------------------------------- */

struct pt {
	double t, a, b, c;
};

/* The samples of one port and priority, or of one QP. */
struct series {
	char key[NAME_MAX_LEN]; /* port name, or "src->dst" of a QP */
	long id;		/* priority, or flow id */
	int rank;		/* order of the port among the hottest */
	double peak, peak_b;	/* largest a and b */
	struct pt *pt;
	size_t n, cap;
};

struct series_set {
	struct series *s;
	size_t n, cap;
};

static int series_add_pt(struct series *s, double t, double a, double b, double c)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct pt *pt = realloc(s->pt, cap * sizeof(*pt));

		if (!pt)
			return -ENOMEM;
		s->pt = pt;
		s->cap = cap;
	}
	s->pt[s->n++] = (struct pt){t, a, b, c};
	if (a > s->peak)
		s->peak = a;
	if (b > s->peak_b)
		s->peak_b = b;
	return 0;
}

/* The series of (@key, @id), made when missing; NULL when out of memory. */
static struct series *set_get(struct series_set *set, const char *key, long id, int rank)
{
	struct series *s;

	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].id == id && !strcmp(set->s[i].key, key))
			return &set->s[i];
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;

		s = realloc(set->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		set->s = s;
		set->cap = cap;
	}
	s = &set->s[set->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->id = id;
	s->rank = rank;
	return s;
}

static void set_free(struct series_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->s[i].pt);
	free(set->s);
	memset(set, 0, sizeof(*set));
}

/*
 * Write value @col (0 a, 1 b, 2 c) of each series as a gnuplot data block
 * of "time value" lines, blocks apart by two blank lines so that `index i`
 * picks one. The pictures draw steps, so a point that repeats the value
 * before it adds nothing and is left out (which also keeps dashed lines
 * dashed: gnuplot restarts the dash pattern at every point).
 */
static int write_blocks(const struct plot *p, const char *name, const struct series_set *set,
			int col, char *path, size_t size)
{
	FILE *f = tmp_open(p, name, path, size);

	if (!f)
		return -1;
	for (size_t i = 0; i < set->n; i++) {
		const struct series *s = &set->s[i];
		double last = 0;

		if (i)
			fputs("\n\n", f);
		for (size_t k = 0; k < s->n; k++) {
			const struct pt *q = &s->pt[k];
			double v = col == 0 ? q->a : col == 1 ? q->b : q->c;

			if (k && k + 1 < s->n && v == last)
				continue;
			fprintf(f, "%.3f %.10g\n", q->t, v);
			last = v;
		}
	}
	return tmp_close(f, path);
}

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

	if (join(errpath, sizeof(errpath), p->tmp, "gnuplot.err"))
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
static void drop_old(const struct plot *p, const char *pic, const char *ext)
{
	static const char *const exts[] = {"png", "svg"};
	char name[64], path[PLOT_PATH];

	for (int i = 0; i < 2; i++) {
		if (ext && strcmp(ext, exts[i]))
			continue;
		snprintf(name, sizeof(name), "%s.%s", pic, exts[i]);
		if (!join(path, sizeof(path), p->outdir, name))
			unlink(path);
	}
}

/*
 * Draw picture @pic (e.g. "queues") with plots/@pic.gp and the variables
 * @vars, as PNG and, with --svg, SVG: drawn in the temporary folder, then
 * renamed into OUTDIR and its path printed.
 */
static int draw(const struct plot *p, const char *pic, const struct buf *vars)
{
	static const char *const exts[] = {"png", "svg"};
	char script[PLOT_PATH], name[64], tmp[PLOT_PATH], dst[PLOT_PATH];
	int err = 0;

	if (vars->oom) {
		fprintf(stderr, "rocesim: out of memory drawing %s\n", pic);
		return -1;
	}
	snprintf(name, sizeof(name), "%s.gp", pic);
	if (join(script, sizeof(script), p->scripts, name))
		return -1;
	if (!p->svg)
		drop_old(p, pic, "svg");
	for (int i = 0; i < 1 + !!p->svg && !err; i++) {
		struct buf all = {0};

		snprintf(name, sizeof(name), "%s.%s", pic, exts[i]);
		if (join(tmp, sizeof(tmp), p->tmp, name) || join(dst, sizeof(dst), p->outdir, name))
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

/* ---- reading results.json ----------------------------------------------- */

static double json_num(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/*
 * A threshold (bytes) from "config" or "thresholds", at the top level of
 * results.json or in its summary; -1 when none gives it.
 */
static double threshold(const json_t *res, const char *key)
{
	static const char *const objs[] = {"config", "thresholds"};
	const json_t *where[2] = {res, json_object_get(res, "summary")};

	for (int w = 0; w < 2; w++)
		for (int o = 0; o < 2; o++) {
			const json_t *v = json_object_get(json_object_get(where[w], objs[o]), key);

			if (json_is_number(v) && json_number_value(v) >= 0)
				return json_number_value(v);
		}
	return -1;
}

/* ---- queues.png --------------------------------------------------------- */

struct hot {
	const char *port;
	double bytes;
	size_t order; /* position in results.json: ties keep it */
};

static int hot_cmp(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The rank of @port among the @n hottest, or -1. */
static int hot_rank(const struct hot *h, int n, const char *port)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(h[i].port, port))
			return i;
	return -1;
}

/*
 * Collect the switch ports of results.json into @eg (by max_queue_bytes)
 * and @in (by the largest PG peak), hottest first, keeping those above 0;
 * their counts in @neg, @nin (at most @top each).
 */
static int hottest(const json_t *res, int top, struct hot **eg, int *neg, struct hot **in, int *nin)
{
	size_t n = 0, k = 0, i, j;
	const json_t *sw, *port;
	struct hot *a, *b;

	json_array_foreach(json_object_get(res, "switches"), i, sw) n +=
	    json_array_size(json_object_get(sw, "ports"));
	a = calloc(n ? n : 1, sizeof(*a));
	b = calloc(n ? n : 1, sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		fprintf(stderr, "rocesim: out of memory\n");
		return -1;
	}
	json_array_foreach(json_object_get(res, "switches"), i, sw)
	{
		json_array_foreach(json_object_get(sw, "ports"), j, port)
		{
			const char *name = json_string_value(json_object_get(port, "name"));
			const json_t *pg;
			size_t g;

			if (!name)
				continue;
			a[k] = (struct hot){name, json_num(port, "max_queue_bytes", 0), k};
			b[k] = (struct hot){name, 0, k};
			json_array_foreach(json_object_get(port, "pgs"), g, pg)
			{
				double v = json_num(pg, "peak_bytes", 0);

				if (v > b[k].bytes)
					b[k].bytes = v;
			}
			k++;
		}
	}
	qsort(a, k, sizeof(*a), hot_cmp);
	qsort(b, k, sizeof(*b), hot_cmp);
	for (*neg = 0; *neg < top && (size_t)*neg < k && a[*neg].bytes > 0; (*neg)++)
		;
	for (*nin = 0; *nin < top && (size_t)*nin < k && b[*nin].bytes > 0; (*nin)++)
		;
	*eg = a;
	*in = b;
	return 0;
}

/* Drop the series below 1% of the set's peak, order the rest by port rank. */
static double keep_visible(struct series_set *set)
{
	double max = 0;
	size_t k = 0;

	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].peak > max)
			max = set->s[i].peak;
	for (size_t i = 0; i < set->n; i++) {
		if (set->s[i].peak > 0 && set->s[i].peak >= max / 100)
			set->s[k++] = set->s[i];
		else
			free(set->s[i].pt);
	}
	set->n = k;
	/* few series: insertion sort by (rank, priority) */
	for (size_t i = 1; i < set->n; i++) {
		struct series s = set->s[i];
		size_t j = i;

		while (j > 0 && (set->s[j - 1].rank > s.rank ||
				 (set->s[j - 1].rank == s.rank && set->s[j - 1].id > s.id))) {
			set->s[j] = set->s[j - 1];
			j--;
		}
		set->s[j] = s;
	}
	return max;
}

/* Read timeseries.csv: the series of the hottest egress and ingress ports. */
static int read_timeseries(const char *path, const struct hot *eg, int neg, const struct hot *in,
			   int nin, struct series_set *qs, struct series_set *pgs)
{
	static const char *const names[] = {"time_us",	   "port",     "priority",
					    "queue_bytes", "pg_bytes", "headroom_bytes"};
	int col[6], r, err = 0;
	struct csv c;

	r = csv_open(&c, path, names, col, 6);
	if (r <= 0)
		return r;
	while (!err && (r = csv_next(&c)) > 0) {
		const char *port = csv_str(&c, col[1]);
		double t, prio, q, pg, hr;
		int re, ri;

		if (!port) {
			err = -1;
			break;
		}
		re = hot_rank(eg, neg, port);
		ri = hot_rank(in, nin, port);
		if (re < 0 && ri < 0)
			continue;
		if (csv_num(&c, col[0], &t) || csv_num(&c, col[2], &prio) ||
		    csv_num(&c, col[3], &q) || csv_num(&c, col[4], &pg) ||
		    csv_num(&c, col[5], &hr)) {
			err = -1;
			break;
		}
		if (re >= 0) {
			struct series *s = set_get(qs, port, (long)prio, re);

			err = s ? series_add_pt(s, t, q, 0, 0) : -ENOMEM;
		}
		if (!err && ri >= 0) {
			struct series *s = set_get(pgs, port, (long)prio, ri);

			err = s ? series_add_pt(s, t, pg, hr, 0) : -ENOMEM;
		}
		if (err == -ENOMEM)
			fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	}
	csv_close(&c);
	return err || r < 0 ? -1 : 1;
}

/* Title variables PREFIX1.. of a set of port series: "sw0:h8 prio 3". */
static void series_titles(struct buf *v, const char *prefix, const struct series_set *set)
{
	char var[32], title[NAME_MAX_LEN + 32];

	for (size_t i = 0; i < set->n; i++) {
		snprintf(var, sizeof(var), "%s%zu", prefix, i + 1);
		snprintf(title, sizeof(title), "%s prio %ld", set->s[i].key, set->s[i].id);
		buf_str(v, var, title);
	}
}

static int plot_queues(const struct plot *p)
{
	char csv[PLOT_PATH], qpath[PLOT_PATH], pgpath[PLOT_PATH], hrpath[PLOT_PATH];
	struct series_set qs = {0}, pgs = {0};
	double kmin, kmax, xoff, max, pgmax, hdrm = 0;
	struct hot *eg = NULL, *in = NULL;
	struct buf v = {0};
	int neg, nin, r, err = -1;

	if (join(csv, sizeof(csv), p->outdir, "timeseries.csv"))
		return -1;
	if (hottest(p->res, p->top, &eg, &neg, &in, &nin))
		return -1;
	r = read_timeseries(csv, eg, neg, in, nin, &qs, &pgs);
	if (r < 0)
		goto out;
	if (r == 0) {
		fprintf(stderr, "rocesim: no %s (output.sample was 0): queues.png skipped\n", csv);
		drop_old(p, "queues", NULL);
		err = 0;
		goto out;
	}
	max = keep_visible(&qs);
	pgmax = keep_visible(&pgs);
	if (pgmax > max)
		max = pgmax;
	for (size_t i = 0; i < pgs.n; i++)
		if (pgs.s[i].peak_b > hdrm)
			hdrm = pgs.s[i].peak_b;
	kmin = threshold(p->res, "ecn_kmin");
	kmax = threshold(p->res, "ecn_kmax");
	xoff = threshold(p->res, "pfc_xoff");
	if (kmax > max)
		max = kmax;
	if (xoff > max)
		max = xoff;
	if (write_blocks(p, "queues-q.dat", &qs, 0, qpath, sizeof(qpath)) ||
	    write_blocks(p, "queues-pg.dat", &pgs, 0, pgpath, sizeof(pgpath)) ||
	    write_blocks(p, "queues-hr.dat", &pgs, 1, hrpath, sizeof(hrpath)))
		goto out;
	buf_str(&v, "qdata", qpath);
	buf_int(&v, "qn", (long)qs.n);
	series_titles(&v, "qt", &qs);
	buf_str(&v, "pgdata", pgpath);
	buf_str(&v, "hrdata", hrpath);
	buf_int(&v, "pgn", (long)pgs.n);
	series_titles(&v, "pgt", &pgs);
	buf_int(&v, "hdrm", hdrm > 0);
	buf_int(&v, "ntop", p->top);
	buf_str(&v, "unit", max >= 1e6 ? "MB" : "KB");
	buf_num(&v, "scale", max >= 1e6 ? 1e6 : 1e3);
	if (kmin >= 0)
		buf_num(&v, "kmin", kmin);
	if (kmax >= 0)
		buf_num(&v, "kmax", kmax);
	if (xoff >= 0)
		buf_num(&v, "xoff", xoff);
	err = draw(p, "queues", &v);
out:
	free(v.s);
	set_free(&qs);
	set_free(&pgs);
	free(eg);
	free(in);
	return err;
}

/* ---- pfc.png ------------------------------------------------------------ */

/* A port and priority of the PFC timeline. */
struct pfc_row {
	char port[NAME_MAX_LEN];
	long prio;
	double since; /* paused since, or < 0 */
};

/* Rows found by (port, priority) through an open-addressing hash. */
struct pfc_rows {
	struct pfc_row *row;
	size_t n, cap;
	int32_t *slot; /* row index + 1, 0 empty */
	size_t nslot;
};

static uint64_t row_hash(const char *port, long prio)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)prio;

	for (const char *c = port; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return h;
}

static int rows_grow(struct pfc_rows *r)
{
	size_t nslot = r->nslot ? r->nslot * 2 : 64;
	int32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		size_t k = row_hash(r->row[i].port, r->row[i].prio) & (nslot - 1);

		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = (int32_t)i + 1;
	}
	free(r->slot);
	r->slot = slot;
	r->nslot = nslot;
	return 0;
}

/* The row of (@port, @prio): its index, made when missing if @make; -1 none, -2 no memory. */
static long rows_get(struct pfc_rows *r, const char *port, long prio, int make)
{
	size_t k;

	if (r->n + 1 > r->nslot / 2 && rows_grow(r))
		return -2;
	k = row_hash(port, prio) & (r->nslot - 1);
	while (r->slot[k]) {
		const struct pfc_row *x = &r->row[r->slot[k] - 1];

		if (x->prio == prio && !strcmp(x->port, port))
			return r->slot[k] - 1;
		k = (k + 1) & (r->nslot - 1);
	}
	if (!make)
		return -1;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct pfc_row *row;

		if (r->n >= INT32_MAX - 1)
			return -2;
		row = realloc(r->row, cap * sizeof(*row));
		if (!row)
			return -2;
		r->row = row;
		r->cap = cap;
	}
	snprintf(r->row[r->n].port, sizeof(r->row[0].port), "%s", port);
	r->row[r->n].prio = prio;
	r->row[r->n].since = -1;
	r->slot[k] = (int32_t)r->n + 1;
	return (long)r->n++;
}

/* The data files of pfc.png: paused bars, storm and watchdog marks. */
struct pfc_out {
	FILE *bars, *storm, *wd;
	char bars_path[PLOT_PATH], storm_path[PLOT_PATH], wd_path[PLOT_PATH];
	long nbars, nstorm, nwd;
};

/* Take one PFC event of row @i at @t into the data files. */
static void pfc_event(struct pfc_rows *r, struct pfc_out *o, long i, double t, const char *ev)
{
	struct pfc_row *x = &r->row[i];
	int shown = i < PFC_ROWS;

	if (!strcmp(ev, "paused")) {
		if (x->since < 0)
			x->since = t;
	} else if (!strcmp(ev, "unpaused")) {
		if (x->since >= 0 && shown) {
			fprintf(o->bars, "%.6f %ld %.6f\n", x->since, i, t);
			o->nbars++;
		}
		x->since = -1;
	} else if (!strcmp(ev, "storm") && shown) {
		fprintf(o->storm, "%.6f %ld\n", t, i);
		o->nstorm++;
	} else if (!strncmp(ev, "watchdog_", 9) && shown) {
		fprintf(o->wd, "%.6f %ld %d\n", t, i, strcmp(ev, "watchdog_trigger") ? 1 : 0);
		o->nwd++;
	}
}

/* Read pfc_events.csv into the data files; 1 done, 0 no file, -1 error. */
static int read_pfc(const struct plot *p, const char *path, struct pfc_rows *r, struct pfc_out *o)
{
	static const char *const names[] = {"time_us", "port", "priority", "event"};
	int col[4], res, err = 0;
	struct csv c;

	res = csv_open(&c, path, names, col, 4);
	if (res <= 0)
		return res;
	while (!err && (res = csv_next(&c)) > 0) {
		const char *port = csv_str(&c, col[1]), *ev = csv_str(&c, col[3]);
		double t, prio;
		int make;
		long i;

		if (!port || !ev || csv_num(&c, col[0], &t) || csv_num(&c, col[2], &prio)) {
			err = -1;
			break;
		}
		make = !strcmp(ev, "paused") || !strcmp(ev, "storm");
		if (!make && strcmp(ev, "unpaused") && strncmp(ev, "watchdog_", 9))
			continue; /* xoff, refresh, xon, rx_pause, rx_resume */
		i = rows_get(r, port, (long)prio, make);
		if (i == -2) {
			fprintf(stderr, "rocesim: out of memory reading %s\n", path);
			err = -1;
		} else if (i >= 0) {
			pfc_event(r, o, i, t, ev);
		}
	}
	csv_close(&c);
	/* still paused at the end of the run */
	for (size_t i = 0; i < r->n && i < PFC_ROWS && !err; i++) {
		if (r->row[i].since >= 0) {
			fprintf(o->bars, "%.6f %zu %.6f\n", r->row[i].since, i,
				p->end_us > r->row[i].since ? p->end_us : r->row[i].since);
			o->nbars++;
		}
	}
	return err || res < 0 ? -1 : 1;
}

static int plot_pfc(const struct plot *p)
{
	char csv[PLOT_PATH], var[32], label[NAME_MAX_LEN + 16];
	struct pfc_rows r = {0};
	struct pfc_out o = {0};
	struct buf v = {0};
	int res, err = -1, prios = 0;
	size_t shown;

	if (join(csv, sizeof(csv), p->outdir, "pfc_events.csv"))
		return -1;
	if (access(csv, F_OK)) {
		fprintf(stderr,
			"rocesim: no %s (run with output.pfc_events: true): pfc.png skipped\n",
			csv);
		drop_old(p, "pfc", NULL);
		return 0;
	}
	o.bars = tmp_open(p, "pfc-bars.dat", o.bars_path, sizeof(o.bars_path));
	o.storm = o.bars ? tmp_open(p, "pfc-storm.dat", o.storm_path, sizeof(o.storm_path)) : NULL;
	o.wd = o.storm ? tmp_open(p, "pfc-wd.dat", o.wd_path, sizeof(o.wd_path)) : NULL;
	res = o.wd ? read_pfc(p, csv, &r, &o) : -1;
	if (o.bars && tmp_close(o.bars, o.bars_path))
		res = -1;
	if (o.storm && tmp_close(o.storm, o.storm_path))
		res = -1;
	if (o.wd && tmp_close(o.wd, o.wd_path))
		res = -1;
	if (res < 0)
		goto out;
	shown = r.n < PFC_ROWS ? r.n : PFC_ROWS;
	for (size_t i = 1; i < shown; i++)
		if (r.row[i].prio != r.row[0].prio)
			prios = 1;
	buf_int(&v, "rows", (long)shown);
	buf_int(&v, "more", (long)(r.n - shown));
	for (size_t i = 0; i < shown; i++) {
		snprintf(var, sizeof(var), "r%zu", i + 1);
		if (prios)
			snprintf(label, sizeof(label), "%s prio %ld", r.row[i].port, r.row[i].prio);
		else
			snprintf(label, sizeof(label), "%s", r.row[i].port);
		buf_str(&v, var, label);
	}
	buf_str(&v, "bars", o.bars_path);
	buf_int(&v, "nbars", o.nbars);
	buf_str(&v, "storm", o.storm_path);
	buf_int(&v, "nstorm", o.nstorm);
	buf_str(&v, "wd", o.wd_path);
	buf_int(&v, "nwd", o.nwd);
	if (shown && !prios)
		buf_str(&v, "prio", (snprintf(label, sizeof(label), "%ld", r.row[0].prio), label));
	err = draw(p, "pfc", &v);
out:
	free(v.s);
	free(r.row);
	free(r.slot);
	return err;
}

/* ---- rates.png ---------------------------------------------------------- */

/* Read qp_rates.csv: the series of the RATE_QPS smallest flow ids. */
static int read_rates(const char *path, struct series_set *set, long *more)
{
	static const char *const names[] = {"time_us", "flow",	  "src",  "dst",
					    "rc_gbps", "rt_gbps", "alpha"};
	unsigned char *seen = NULL;
	size_t nseen = 0, distinct = 0;
	int col[7], r, err = 0;
	struct csv c;

	r = csv_open(&c, path, names, col, 7);
	if (r <= 0)
		return r;
	while (!err && (r = csv_next(&c)) > 0) {
		const char *src = csv_str(&c, col[2]), *dst = csv_str(&c, col[3]);
		double t, id, rc, rt, alpha;
		struct series *s = NULL;
		char key[NAME_MAX_LEN];
		size_t far = 0;

		if (!src || !dst || csv_num(&c, col[0], &t) || csv_num(&c, col[1], &id) ||
		    csv_num(&c, col[4], &rc) || csv_num(&c, col[5], &rt) ||
		    csv_num(&c, col[6], &alpha)) {
			err = -1;
			break;
		}
		if (id < 0 || id >= 1 << 30) {
			fprintf(stderr, "rocesim: %s:%lu: flow %.0f is out of range\n", path,
				c.lineno, id);
			err = -1;
			break;
		}
		if ((size_t)id >= nseen) {
			size_t n = ((size_t)id + 1) * 2;
			unsigned char *b = realloc(seen, n);

			if (!b) {
				err = -ENOMEM;
				break;
			}
			memset(b + nseen, 0, n - nseen);
			seen = b;
			nseen = n;
		}
		distinct += !seen[(size_t)id];
		seen[(size_t)id] = 1;
		for (size_t i = 0; i < set->n && !s; i++)
			if (set->s[i].id == (long)id)
				s = &set->s[i];
		if (!s && set->n == RATE_QPS) {
			/* a smaller id evicts the largest one kept */
			for (size_t i = 1; i < set->n; i++)
				if (set->s[i].id > set->s[far].id)
					far = i;
			if (set->s[far].id < (long)id)
				continue;
			free(set->s[far].pt);
			set->s[far] = set->s[--set->n];
		}
		if (!s) {
			snprintf(key, sizeof(key), "%s->%s", src, dst);
			s = set_get(set, key, (long)id, 0);
		}
		err = s ? series_add_pt(s, t, rc, rt, alpha) : -ENOMEM;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	csv_close(&c);
	free(seen);
	*more = (long)(distinct - set->n);
	return err || r < 0 ? -1 : 1;
}

static int series_id_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int plot_rates(const struct plot *p)
{
	char csv[PLOT_PATH], path[PLOT_PATH], var[32], title[NAME_MAX_LEN + 32];
	struct series_set set = {0};
	struct buf v = {0};
	long more = 0;
	int r, err = -1;

	if (join(csv, sizeof(csv), p->outdir, "qp_rates.csv"))
		return -1;
	r = read_rates(csv, &set, &more);
	if (r < 0)
		goto out;
	if (r == 0) {
		fprintf(stderr,
			"rocesim: no %s (DCQCN off or output.sample 0): rates.png skipped\n", csv);
		drop_old(p, "rates", NULL);
		err = 0;
		goto out;
	}
	if (set.n)
		qsort(set.s, set.n, sizeof(*set.s), series_id_cmp);
	if (write_blocks(p, "rates-rc.dat", &set, 0, path, sizeof(path)))
		goto out;
	buf_str(&v, "rc", path);
	if (write_blocks(p, "rates-rt.dat", &set, 1, path, sizeof(path)))
		goto out;
	buf_str(&v, "rt", path);
	if (write_blocks(p, "rates-alpha.dat", &set, 2, path, sizeof(path)))
		goto out;
	buf_str(&v, "alpha", path);
	buf_int(&v, "n", (long)set.n);
	buf_int(&v, "more", more);
	for (size_t i = 0; i < set.n; i++) {
		snprintf(var, sizeof(var), "t%zu", i + 1);
		snprintf(title, sizeof(title), "flow %ld %s", set.s[i].id, set.s[i].key);
		buf_str(&v, var, title);
	}
	err = draw(p, "rates", &v);
out:
	free(v.s);
	set_free(&set);
	return err;
}

/* ---- flows.png ---------------------------------------------------------- */

struct fct {
	long id;
	double us;  /* completion time, or how long it ran when not done */
	double pct; /* of the bytes received */
	int done;
	const char *src, *dst;
};

/* Completed flows first, fastest first; then those not done. */
static int fct_cmp(const void *a, const void *b)
{
	const struct fct *x = a, *y = b;

	if (x->done != y->done)
		return y->done - x->done;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* @s for a gnuplot data file: no quote, no comment sign, no blank. */
static void data_word(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '"' || *s == '#' || *s == ' ' || *s == '\t' ? '_' : *s, f);
}

static int plot_flows(const struct plot *p)
{
	const json_t *flows = json_object_get(p->res, "flows"), *fl;
	const json_t *pct = json_object_get(json_object_get(p->res, "summary"), "fct_us");
	size_t n = json_array_size(flows), i, ndone = 0;
	char path[PLOT_PATH];
	struct buf v = {0};
	struct fct *a;
	int err = -1;
	FILE *f;

	if (!n) {
		fprintf(stderr, "rocesim: no flows in %s/results.json: flows.png skipped\n",
			p->outdir);
		drop_old(p, "flows", NULL);
		return 0;
	}
	a = calloc(n, sizeof(*a));
	if (!a) {
		fprintf(stderr, "rocesim: out of memory\n");
		return -1;
	}
	json_array_foreach(flows, i, fl)
	{
		const json_t *fct = json_object_get(fl, "fct_us");
		double start = json_num(fl, "start_us", 0);

		a[i].id = (long)json_num(fl, "id", (double)i);
		a[i].done = json_is_number(fct);
		a[i].us = a[i].done ? json_number_value(fct)
				    : (p->end_us > start ? p->end_us - start : 0);
		a[i].pct = json_num(fl, "bytes", 0) > 0
			       ? 100.0 * json_num(fl, "received", 0) / json_num(fl, "bytes", 0)
			       : 100.0;
		a[i].src = json_string_value(json_object_get(fl, "src"));
		a[i].dst = json_string_value(json_object_get(fl, "dst"));
		ndone += (size_t)a[i].done;
	}
	qsort(a, n, sizeof(*a), fct_cmp);
	f = tmp_open(p, "flows.dat", path, sizeof(path));
	if (!f)
		goto out;
	for (i = 0; i < n; i++) {
		fprintf(f, "%zu %.3f %d \"f%ld ", i, a[i].us, a[i].done, a[i].id);
		data_word(f, a[i].src ? a[i].src : "?");
		fputs("->", f);
		data_word(f, a[i].dst ? a[i].dst : "?");
		fprintf(f, "\" %.1f\n", a[i].pct);
	}
	if (tmp_close(f, path))
		goto out;
	buf_str(&v, "data", path);
	buf_int(&v, "n", (long)n);
	buf_int(&v, "ndone", (long)ndone);
	buf_int(&v, "labels", n <= FLOW_LABELS);
	if (json_is_number(json_object_get(pct, "p50")))
		buf_num(&v, "p50", json_number_value(json_object_get(pct, "p50")));
	if (json_is_number(json_object_get(pct, "p99")))
		buf_num(&v, "p99", json_number_value(json_object_get(pct, "p99")));
	err = draw(p, "flows", &v);
out:
	free(v.s);
	free(a);
	return err;
}

/* ---- ranks.png ---------------------------------------------------------- */

/*
 * The collectives of results.json: summary.collectives, or the one
 * summary.collective of a results.json that has no list.
 */
static size_t collectives(const json_t *res, const json_t **list, const json_t **one)
{
	const json_t *sum = json_object_get(res, "summary");

	*list = json_object_get(sum, "collectives");
	*one = json_object_get(sum, "collective");
	if (json_array_size(*list))
		return json_array_size(*list);
	*list = NULL;
	return json_is_object(*one) ? 1 : 0;
}

/*
 * Write the ranks of collective @c as a data block of "rank us done last"
 * lines (last: 1 for the ranks that had their data last, when the ranks
 * differ by 1% or more: less is no straggler), the variables of panel @k
 * into @v.
 */
static void ranks_panel(FILE *f, struct buf *v, const json_t *c, size_t k)
{
	const json_t *done = json_object_get(c, "rank_done_us"), *t;
	const json_t *times = json_object_get(c, "iteration_times_us");
	const char *op = json_string_value(json_object_get(c, "op"));
	double iters = json_num(c, "iterations", 1), idone = json_num(c, "iterations_done", 0);
	double slow = -1, fast = -1, busbw = json_num(c, "busbw_GBps", -1), line = -1;
	size_t n = json_array_size(done), i, ndone = 0, nslow = 0, slowest = 0;
	char var[32], title[256], label[128];
	int mark;

	json_array_foreach(done, i, t)
	{
		if (!json_is_number(t))
			continue;
		ndone++;
		if (fast < 0 || json_number_value(t) < fast)
			fast = json_number_value(t);
		if (json_number_value(t) > slow) {
			slow = json_number_value(t);
			slowest = i;
			nslow = 0;
		}
		nslow += json_number_value(t) == slow;
	}
	mark = nslow < ndone && slow - fast >= slow / 100;
	json_array_foreach(done, i, t)
	{
		int ok = json_is_number(t);
		double us = ok ? json_number_value(t) : 0;

		fprintf(f, "%zu %.3f %d %d\n", i, us, ok, ok && mark && us == slow);
	}
	fputs("\n\n", f);
	/* the time the last iteration took, when it completed */
	if (idone >= iters && idone > 0) {
		t = json_array_get(times, json_array_size(times) - 1);
		line = json_is_number(t) ? json_number_value(t)
					 : json_num(c, "completion_time_us", -1);
	}
	snprintf(title, sizeof(title), "%s of %g MB over %zu ranks, busbw ", op ? op : "collective",
		 json_num(c, "bytes", 0) / 1e6, n);
	if (busbw >= 0)
		snprintf(title + strlen(title), sizeof(title) - strlen(title), "%.3g GB/s", busbw);
	else
		snprintf(title + strlen(title), sizeof(title) - strlen(title), "n/a");
	if (idone < iters)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 "; iteration %.0f of %.0f, not done at the end", idone + 1, iters);
	else if (iters > 1)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 "; the last of %.0f iterations", iters);
	snprintf(var, sizeof(var), "t%zu", k);
	buf_str(v, var, title);
	snprintf(var, sizeof(var), "r%zu", k);
	buf_int(v, var, (long)n);
	snprintf(var, sizeof(var), "nn%zu", k);
	buf_int(v, var, (long)(n - ndone));
	snprintf(var, sizeof(var), "bt%zu", k);
	if (ndone && !mark && fast == slow)
		snprintf(label, sizeof(label), "had all its data, all at %.1f us", slow);
	else if (ndone && !mark)
		snprintf(label, sizeof(label), "had all its data, all within %.1f to %.1f us", fast,
			 slow);
	else
		snprintf(label, sizeof(label), "had all its data");
	buf_str(v, var, label);
	if (mark) {
		snprintf(var, sizeof(var), "sl%zu", k);
		if (nslow == 1)
			snprintf(label, sizeof(label), "last: rank %zu at %.1f us", slowest, slow);
		else
			snprintf(label, sizeof(label), "last: %zu ranks at %.1f us", nslow, slow);
		buf_str(v, var, label);
	}
	/*
	 * When the ranks differ by less than half the time, the y axis starts
	 * below the first rank, at a round number, so that the differences show.
	 */
	if (mark && fast > slow / 2) {
		double step = pow(10, floor(log10(slow - fast)));

		snprintf(var, sizeof(var), "y%zu", k);
		buf_num(v, var, floor((fast - (slow - fast) / 2) / step) * step);
	}
	if (line >= 0) {
		snprintf(var, sizeof(var), "l%zu", k);
		buf_num(v, var, line);
		snprintf(var, sizeof(var), "ll%zu", k);
		snprintf(label, sizeof(label), "%s took %.1f us",
			 iters > 1 ? "the iteration" : "the collective", line);
		buf_str(v, var, label);
	}
}

static int plot_ranks(const struct plot *p)
{
	const json_t *list, *one;
	size_t n = collectives(p->res, &list, &one), shown = n < COLL_PANELS ? n : COLL_PANELS;
	char path[PLOT_PATH];
	struct buf v = {0};
	int err = -1;
	FILE *f;

	if (!n) {
		fprintf(stderr, "rocesim: no collective in %s/results.json: ranks.png skipped\n",
			p->outdir);
		drop_old(p, "ranks", NULL);
		return 0;
	}
	for (size_t i = 0; i < shown; i++) {
		const json_t *c = list ? json_array_get(list, i) : one;

		if (!json_is_array(json_object_get(c, "rank_done_us"))) {
			fprintf(stderr,
				"rocesim: no rank_done_us in the collectives of %s/results.json "
				"(written by an older rocesim): ranks.png skipped\n",
				p->outdir);
			drop_old(p, "ranks", NULL);
			return 0;
		}
	}
	f = tmp_open(p, "ranks.dat", path, sizeof(path));
	if (!f)
		return -1;
	for (size_t i = 0; i < shown; i++)
		ranks_panel(f, &v, list ? json_array_get(list, i) : one, i + 1);
	if (tmp_close(f, path))
		goto out;
	buf_str(&v, "data", path);
	buf_int(&v, "n", (long)shown);
	buf_int(&v, "more", (long)(n - shown));
	err = draw(p, "ranks", &v);
out:
	free(v.s);
	return err;
}

/* ---- the verb ----------------------------------------------------------- */

static int has_scripts(const char *dir)
{
	char path[PLOT_PATH];

	if ((size_t)snprintf(path, sizeof(path), "%s/queues.gp", dir) >= sizeof(path))
		return 0;
	return !access(path, R_OK);
}

/* Find the gnuplot scripts (the order is in the usage text). */
static int find_scripts(struct plot *p)
{
	const char *env = getenv("ROCESIM_PLOTS");
	char exe[PLOT_PATH], *slash;
	ssize_t len;

	if (env && *env) {
		if (!has_scripts(env)) {
			fprintf(stderr, "rocesim: ROCESIM_PLOTS=%s: no queues.gp there\n", env);
			return -1;
		}
		snprintf(p->scripts, sizeof(p->scripts), "%s", env);
		return 0;
	}
	if (has_scripts("plots")) {
		snprintf(p->scripts, sizeof(p->scripts), "plots");
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(p->scripts, sizeof(p->scripts), "%s/../plots", exe) <
				sizeof(p->scripts) &&
			    has_scripts(p->scripts))
				return 0;
			if ((size_t)snprintf(p->scripts, sizeof(p->scripts),
					     "%s/../share/rocesim/plots",
					     exe) < sizeof(p->scripts) &&
			    has_scripts(p->scripts))
				return 0;
		}
	}
	fprintf(stderr, "rocesim: cannot find the gnuplot scripts (plots/queues.gp); "
			"set ROCESIM_PLOTS to the plots/ folder of rocesim's source\n");
	return -1;
}

/* Load OUTDIR/results.json into p->res; -1 after saying what is wrong. */
static int load_results(struct plot *p)
{
	char path[PLOT_PATH];
	json_error_t je;
	struct stat st;

	if (stat(p->outdir, &st)) {
		fprintf(stderr, "rocesim: plot: %s: %s\n", p->outdir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rocesim: plot: %s is not a folder (give the -o folder of a run)\n",
			p->outdir);
		return -1;
	}
	if (join(path, sizeof(path), p->outdir, "results.json"))
		return -1;
	if (access(path, F_OK)) {
		fprintf(stderr,
			"rocesim: plot: %s has no results.json (is it the -o folder of a run?)\n",
			p->outdir);
		return -1;
	}
	p->res = json_load_file(path, 0, &je);
	if (!p->res) {
		fprintf(stderr, "rocesim: %s:%d: %s\n", path, je.line, je.text);
		return -1;
	}
	if (!json_is_object(p->res)) {
		fprintf(stderr, "rocesim: %s: not a JSON object\n", path);
		return -1;
	}
	p->name = json_string_value(json_object_get(p->res, "scenario"));
	if (!p->name)
		p->name = "run";
	p->end_us = json_num(json_object_get(p->res, "summary"), "sim_time_us", 0);
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct plot p = {0};
	char tmpl[PLOT_PATH];
	int err;

	p.top = TOP_DEFAULT;
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(o, "--svg")) {
			p.svg = 1;
		} else if (!strcmp(o, "--top")) {
			char *end;
			long n;

			if (i + 1 >= argc)
				return cli_usage_error("rocesim: plot: ", usage, "%s needs a number", o);
			errno = 0;
			n = strtol(argv[++i], &end, 10);
			if (end == argv[i] || *end || errno || n < 1 || n > TOP_MAX)
				return cli_usage_error("rocesim: plot: ", usage, "--top: \"%s\" is not a number from 1 to 8",
						   argv[i]);
			p.top = (int)n;
		} else if (o[0] == '-' && o[1]) {
			return cli_usage_error("rocesim: plot: ", usage, "unknown option \"%s\"", o);
		} else if (p.outdir) {
			return cli_usage_error("rocesim: plot: ", usage, "one OUTDIR at a time (also got \"%s\")", o);
		} else {
			p.outdir = o;
		}
	}
	if (!p.outdir)
		return cli_usage_error("rocesim: plot: ", usage, "%s", "OUTDIR is needed (the -o folder of a run)");
	if (load_results(&p) || find_scripts(&p)) {
		json_decref(p.res);
		return EXIT_INPUT;
	}
	if (join(tmpl, sizeof(tmpl), p.outdir, ".plot-XXXXXX")) {
		json_decref(p.res);
		return EXIT_INPUT;
	}
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "rocesim: cannot create a folder in %s: %s\n", p.outdir,
			strerror(errno));
		json_decref(p.res);
		return EXIT_INPUT;
	}
	snprintf(p.tmp, sizeof(p.tmp), "%s", tmpl);
	fflush(stdout);
	err = plot_queues(&p);
	if (!err)
		err = plot_pfc(&p);
	if (!err)
		err = plot_rates(&p);
	if (!err)
		err = plot_flows(&p);
	if (!err)
		err = plot_ranks(&p);
	tmp_remove(&p);
	json_decref(p.res);
	return err ? EXIT_INPUT : 0;
}
