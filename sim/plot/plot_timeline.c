/*
 * timeline.png: ranks of the first training job, a bar for each compute
 * and each wait of their main streams (timeline.csv, written with
 * output.timeline: true): every rank up to TIMELINE_ROWS of them, else
 * ranks evenly spaced (0, stride, 2 stride, ...: every pipeline stage
 * shows when the layout puts stages on consecutive ranks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"

#define TIMELINE_ROWS 32 /* ranks drawn */

int plot_timeline(const struct plot *p)
{
	static const char *const names[] = {"job", "rank", "start_us", "end_us", "what"};
	static const char *const kinds[] = {"forward", "input_grad", "weight_grad", "update",
					    "wait_tp", "wait_pp",    "wait_dp",	    "wait_ep"};
	char csv_path[PLOT_PATH], bars_path[PLOT_PATH], var[32], label[32];
	long nbars = 0, most = -1, n_ranks, stride;
	const json_t *job = json_object_get(
	    json_object_get(json_array_get(json_object_get(p->res, "jobs"), 0), "training"),
	    "ranks");
	struct buf v = {0};
	int col[5], res, err = -1, opened;
	struct csv c;
	FILE *bars;

	if (plot__join(csv_path, sizeof(csv_path), p->outdir, "timeline.csv"))
		return -1;
	if (access(csv_path, F_OK)) {
		plot__drop_old(p, "timeline", NULL);
		return 0; /* no training job, or output.timeline not asked for */
	}
	n_ranks = json_is_integer(job) ? (long)json_integer_value(job) : TIMELINE_ROWS;
	stride = n_ranks > TIMELINE_ROWS ? (n_ranks + TIMELINE_ROWS - 1) / TIMELINE_ROWS : 1;
	if (!(bars = tmp_open(p, "timeline-bars.dat", bars_path, sizeof(bars_path))))
		return -1;
	res = csv_open(&c, csv_path, names, col, 5);
	opened = res > 0;
	while (res > 0 && (res = csv_next(&c)) > 0) {
		double job, rank, start, end;
		const char *what = csv_str(&c, col[4]);
		int k = 0;

		if (!what || csv_num(&c, col[0], &job) || csv_num(&c, col[1], &rank) ||
		    csv_num(&c, col[2], &start) || csv_num(&c, col[3], &end)) {
			res = -1;
			break;
		}
		while (k < 8 && strcmp(kinds[k], what))
			k++;
		if (k == 8) {
			fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a span kind\n", csv_path,
				c.lineno, what);
			res = -1;
			break;
		}
		if (job != 0 || rank < 0)
			continue;
		if ((long)rank > most)
			most = (long)rank;
		if ((long)rank % stride == 0 && (long)rank / stride < TIMELINE_ROWS) {
			fprintf(bars, "%.6f %ld %.6f %d\n", start, (long)rank / stride, end, k);
			nbars++;
		}
	}
	if (opened)
		csv_close(&c);
	if (tmp_close(bars, bars_path) || res < 0)
		goto out;
	{
		long rows = most / stride + 1;

		rows = rows < TIMELINE_ROWS ? rows : TIMELINE_ROWS;
		buf_int(&v, "rows", rows > 0 ? rows : 1);
		buf_int(&v, "more", most + 1 > rows ? most + 1 - rows : 0);
		for (long i = 0; i < (rows > 0 ? rows : 1); i++) {
			snprintf(var, sizeof(var), "r%ld", i + 1);
			snprintf(label, sizeof(label), "rank %ld", i * stride);
			buf_str(&v, var, label);
		}
	}
	buf_str(&v, "bars", bars_path);
	buf_int(&v, "nbars", nbars);
	err = plot__draw(p, "timeline", &v);
out:
	free(v.s);
	return err;
}
