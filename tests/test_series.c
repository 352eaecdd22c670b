/*
 * timeseries.csv: by default a sample writes a (port, priority) row only
 * when its values changed since its last row; output.timeseries: samples
 * writes every non-empty one at every sample. Holding each row's values
 * until the next row of its (port, priority) must give back every row of
 * the full series, and zero where the full series has none.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("series");
}

TestSuite(series, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

struct row {
	double t;
	char key[64]; /* "port,priority" */
	unsigned long long q, pg, hr;
};

struct rows {
	struct row *r;
	size_t n;
};

static struct rows read_rows(const char *path)
{
	struct rows rs = {0};
	size_t cap = 0;
	char line[256], port[48];
	FILE *f = fopen(path, "r");
	unsigned prio;

	cr_assert(f, "cannot open %s", path);
	cr_assert(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "time_us,port,priority,queue_bytes,pg_bytes,headroom_bytes\n");
	while (fgets(line, sizeof(line), f)) {
		struct row *r;

		if (rs.n == cap) {
			cap = cap ? 2 * cap : 1024;
			rs.r = realloc(rs.r, cap * sizeof(*rs.r));
			cr_assert(rs.r);
		}
		r = &rs.r[rs.n++];
		cr_assert_eq(sscanf(line, "%lf,%47[^,],%u,%llu,%llu,%llu", &r->t, port, &prio,
				    &r->q, &r->pg, &r->hr),
			     6, "bad row: %s", line);
		snprintf(r->key, sizeof(r->key), "%s,%u", port, prio);
	}
	fclose(f);
	return rs;
}

/* The values of @key at @t in a changes series: its last row at or
 * before @t (the rows are in time order). */
static const struct row *held(const struct rows *c, const char *key, double t)
{
	const struct row *last = NULL;

	for (size_t i = 0; i < c->n && c->r[i].t <= t; i++)
		if (!strcmp(c->r[i].key, key))
			last = &c->r[i];
	return last;
}

static void run(const char *out, const char *mode)
{
	struct ts_proc p;
	char set[64];

	snprintf(set, sizeof(set), "output.timeseries=%s", mode);
	ts_exec(&p, (const char *[]){"run", "experiments/bench/incast-32to1.yaml", "--set",
				     "workload.size=1MB", "--set", "output.sample=5us", "--set",
				     set, "-o", out, "-q", NULL});
	cr_assert_eq(p.code, 0, "stderr: %s", p.err);
	ts_proc_free(&p);
}

Test(series, changes_rebuild_every_row_of_the_full_series)
{
	struct rows full, ch;
	size_t checked = 0, zeros = 0;

	run(ts_tmp("samples"), "samples");
	run(ts_tmp("changes"), "changes");
	full = read_rows(ts_tmp("samples/timeseries.csv"));
	ch = read_rows(ts_tmp("changes/timeseries.csv"));
	cr_assert_gt(full.n, 1000, "a PFC incast samples many rows (%zu)", full.n);
	cr_assert_lt(ch.n * 2, full.n, "changes wrote %zu rows of %zu", ch.n, full.n);
	/* every row of the full series is what the changes hold then */
	for (size_t i = 0; i < full.n; i += 7) {
		const struct row *f = &full.r[i], *h = held(&ch, f->key, f->t);

		cr_assert(h, "%s at %.3f: no row before", f->key, f->t);
		cr_assert(h->q == f->q && h->pg == f->pg && h->hr == f->hr,
			  "%s at %.3f: %llu,%llu,%llu held, %llu,%llu,%llu sampled", f->key, f->t,
			  h->q, h->pg, h->hr, f->q, f->pg, f->hr);
		checked++;
	}
	/* a changes row differs from the last row of its key */
	for (size_t i = 0; i < ch.n; i++) {
		const struct row *c = &ch.r[i], *prev = NULL;

		for (size_t j = i; j-- > 0;)
			if (!strcmp(ch.r[j].key, c->key)) {
				prev = &ch.r[j];
				break;
			}
		cr_assert(!prev || prev->q != c->q || prev->pg != c->pg || prev->hr != c->hr,
			  "%s at %.3f repeats its last row", c->key, c->t);
		zeros += !c->q && !c->pg && !c->hr;
	}
	cr_assert_gt(checked, 100);
	cr_assert_gt(zeros, 0, "a drained queue writes one zero row");
	free(full.r);
	free(ch.r);
}

/* In the full series a non-empty (port, priority) is written at every
 * sample until its zero row. */
Test(series, samples_mode_writes_a_non_empty_queue_at_every_sample)
{
	struct rows full;
	size_t prev = 0, cur, next, carried = 0;

	run(ts_tmp("samples2"), "samples");
	full = read_rows(ts_tmp("samples2/timeseries.csv"));
	cr_assert_gt(full.n, 0);
	for (cur = 0; cur < full.n && full.r[cur].t == full.r[0].t; cur++)
		;
	while (cur < full.n) {
		for (next = cur; next < full.n && full.r[next].t == full.r[cur].t; next++)
			;
		for (size_t i = prev; i < cur; i++) {
			int found = 0;

			if (!full.r[i].q && !full.r[i].pg && !full.r[i].hr)
				continue;
			for (size_t j = cur; j < next && !found; j++)
				found = !strcmp(full.r[j].key, full.r[i].key);
			cr_assert(found, "%s non-empty at %.3f, no row at %.3f", full.r[i].key,
				  full.r[i].t, full.r[cur].t);
			carried++;
		}
		prev = cur;
		cur = next;
	}
	cr_assert_gt(carried, 1000);
	free(full.r);
}
