/*
 * What the files of `rocesim plot` share (plot.c is the verb): the run being
 * drawn, the growing string of gnuplot variables, the temporary folder, CSV
 * input, series of points and the call of gnuplot.
 */
#ifndef ROCESIM_PLOT_IMPL_H
#define ROCESIM_PLOT_IMPL_H

#include <jansson.h>
#include <stdio.h>

#define PLOT_PATH 4096
#define CSV_FIELDS 16
#define NAME_MAX_LEN 128

/* A growing string; on allocation failure @oom is set and appends stop. */
struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

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

/*
 * A CSV file read whole (summary.csv, tune.csv), RFC 4180 quotes understood:
 * the header and the rows, each a list of fields.
 */
struct plot_row {
	char *line; /* the fields point into it */
	char **f;
	int n;
	unsigned long lineno;
};

struct plot_table {
	const char *path;
	struct plot_row hdr;
	struct plot_row *row;
	size_t n, cap;
};

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

/* plot_data.c */
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_str(struct buf *b, const char *name, const char *val);
void buf_num(struct buf *b, const char *name, double v);
void buf_int(struct buf *b, const char *name, long v);
int plot__join(char *dst, size_t size, const char *dir, const char *name);
FILE *tmp_open(const struct plot *p, const char *name, char *path, size_t size);
int tmp_close(FILE *f, const char *path);
void tmp_remove(const struct plot *p);
int csv_next(struct csv *c);
void csv_close(struct csv *c);
int csv_open(struct csv *c, const char *path, const char *const *names, int *col, int n);
const char *csv_str(const struct csv *c, int i);
int csv_num(const struct csv *c, int i, double *v);
int series_add_pt(struct series *s, double t, double a, double b, double c);
struct series *set_get(struct series_set *set, const char *key, long id, int rank);
void set_free(struct series_set *set);
int plot__write_blocks(const struct plot *p, const char *name, const struct series_set *set,
		       int col, char *path, size_t size);
double plot__json_num(const json_t *o, const char *key, double dflt);
double plot__threshold(const json_t *res, const char *key);
int plot__table_read(struct plot_table *t, const char *path, const char *missing);
void plot__table_free(struct plot_table *t);
int plot__table_col(const struct plot_table *t, const char *name);
const char *plot__table_field(const struct plot_table *t, const struct plot_row *r, int col);
void plot__metric_unit(const char *metric, double hi, char *label, size_t size, double *scale);

/* plot_gnuplot.c */
void plot__drop_old(const struct plot *p, const char *pic, const char *ext);
int plot__draw(const struct plot *p, const char *pic, const struct buf *vars);
int plot__draw_as(const struct plot *p, const char *gp, const char *pic, const struct buf *vars);

/* plot_ports.c */
int plot_queues(const struct plot *p);
int plot_pfc(const struct plot *p);

/* plot_hosts.c */
int plot_rates(const struct plot *p);
int plot_flows(const struct plot *p);
int plot_ranks(const struct plot *p);

/* plot_timeline.c: timeline.png, a training job's ranks (timeline.csv) */
int plot_timeline(const struct plot *p);

/* plot_slowdown.c: slowdown.png, FCT slowdown against flow size */
int plot_slowdown(const struct plot *p);

/* plot_fluid.c: fluid.png; @only on a fluid model's folder (no packet run) */
int plot_fluid(const struct plot *p, int only);

/* plot_sweep.c */
int plot_sweep(struct plot *p);

/* plot_tune.c, plot_tune_read.c: a tune's folder as read from tune.json */
#define TN_MAX_KEYS 8
#define TN_LABEL 256

/* An axis of a picture: what it shows, in which unit, on which scale. */
struct tn_axis {
	char label[TN_LABEL];
	double scale;	   /* the values are divided by it (1e3 for KB, ...) */
	const char *ticks; /* "\"1 KB\" 1000, ...": set, or gnuplot's own */
	int log;
};

/* A varied key of tune.json: its range in the base unit, its axis. */
struct tn_param {
	const char *key, *unit; /* borrowed from tune.json */
	double lo, hi;
	struct tn_axis axis;
	char *ticks; /* its axis's, owned */
};

struct tn_cons {
	const char *metric, *op;
	double value;
};

enum tn_state { TN_RAN, TN_REFUSED, TN_FAILED, TN_UNFINISHED };

struct tn_point {
	const char *id;
	double x[TN_MAX_KEYS];
	double obj[2];
	enum tn_state state;
	int feasible;
};

struct tn_plot {
	struct plot *p;
	json_t *j;
	char path[PLOT_PATH], csv[PLOT_PATH];
	struct tn_param par[TN_MAX_KEYS];
	size_t n_par;
	const char *obj[2], *goal[2];
	int obj_par[2]; /* the key an objective names, or -1 */
	size_t n_obj;
	struct tn_cons *cons;
	size_t n_cons;
	struct tn_point *pt, *route, *front; /* every point; the path; the front */
	size_t n_pt, n_route, n_front;
	long best;		 /* index into pt, or -1 */
	long cur;		 /* the scenario's own point (tune.json "current"), or -1 */
	long rec;		 /* the recommendation's point, or -1 */
	int keep;		 /* the recommendation: keep the current values */
	const json_t *no_effect; /* the keys that moved nothing (borrowed), or NULL */
	size_t seeds, refused, failed;
	const char *method;
	char name[NAME_MAX_LEN];
};

/* plot_tune_read.c */
int plot_tune__load(struct tn_plot *t);
void plot_tune__free(struct tn_plot *t);
/* The index of the varied key @name, or -1. */
int plot_tune__param_of(const struct tn_plot *t, const char *name);
/* The worst seed's value of constraint @c's metric at each point, from
 * tune.csv, into @y (NAN where no run gave one); -1 after saying why. */
int plot_tune__worst(struct tn_plot *t, const struct tn_cons *c, double *y);

/* plot_tune.c */
int plot_tune(struct plot *p);

#endif
