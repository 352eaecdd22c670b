/*
 * SONiC's counter tables (measured.h), as sonic-utilities prints them with
 * tabulate's "simple" format: a header line, a line of dashes a column,
 * then a row a port (or a port and queue), columns apart by blanks.
 *
 *  - pfcstat (`show pfc counters`, scripts/pfcstat): a table "Port Rx
 *    PFC0 .. PFC7", a blank line, a table "Port Tx PFC0 .. PFC7"; each
 *    value the PFC frames of that priority (tests/pfcstat_test.py holds
 *    the outputs it prints).
 *  - queuestat (`show queue counters`, scripts/queuestat): "Port TxQ
 *    Counter/pkts Counter/bytes Drop/pkts Drop/bytes" (newer versions add
 *    columns: each is read under its header's name), a table a port, each
 *    after a "For namespace ...:" line on a multi-ASIC build
 *    (tests/queue_counter_test.py).
 *
 * Values may carry thousands separators ("1,200", as newer sonic-utilities
 * print them) or be N/A. "Last cached time was ..." (printed when the
 * counters were cleared before) and "For namespace" lines are skipped;
 * another table (pfcstat's history, queuestat's VOQ or watermark tables)
 * is refused: its numbers are of another kind.
 */
#include "sim/readers/measured.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/readers/mlnx_impl.h"

#define ST_MAX_COLS 32

struct st_table {
	int kind; /* MC_PFCSTAT, MC_QUEUESTAT */
	char cols[ST_MAX_COLS][32];
	int n_cols;  /* columns of the table (pfcstat's "Port Rx" is one) */
	int keys;    /* leading columns that name the row: 1 (port) or 2 (port, queue) */
	char dir[4]; /* pfcstat: "Rx" or "Tx" */
	int line;    /* the header's line */
	int dashes;  /* its line of dashes was seen */
	int rows;
	int seen_rx, seen_tx;
};

static int st_fail(struct diag *d, const char *file, int line, const char *key, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));

static int st_fail(struct diag *d, const char *file, int line, const char *key, const char *fmt,
		   ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(d, file, line, key, "%s", msg);
	return -EINVAL;
}

/* A header line of the table @t's kind: 1 when it is one, 0 when not. */
static int st_header(struct st_table *t, char **w, int n, int line)
{
	int first;

	if (n < 3 || strcmp(w[0], "Port"))
		return 0;
	if (t->kind == MC_PFCSTAT) {
		if (strcmp(w[1], "Rx") && strcmp(w[1], "Tx"))
			return 0;
		snprintf(t->dir, sizeof(t->dir), "%s", w[1]);
		snprintf(t->cols[0], sizeof(t->cols[0]), "Port %s", w[1]);
		first = 2;
		t->keys = 1;
	} else {
		if (strcmp(w[1], "TxQ"))
			return 0;
		snprintf(t->cols[0], sizeof(t->cols[0]), "Port");
		snprintf(t->cols[1], sizeof(t->cols[1]), "TxQ");
		first = 2;
		t->keys = 2;
	}
	t->n_cols = t->keys;
	for (int i = first; i < n && t->n_cols < ST_MAX_COLS; i++)
		snprintf(t->cols[t->n_cols++], sizeof(t->cols[0]), "%s", w[i]);
	t->line = line;
	t->dashes = 0;
	t->rows = 0;
	return 1;
}

/* A row of @t: its keys, then a value a column. */
static int st_row(struct st_table *t, char **w, int n, const char *file, int line,
		  struct mc_set *out, struct diag *d)
{
	char scope[64], name[64];
	int err;

	if (n != t->n_cols)
		return st_fail(d, file, line, w[0],
			       "%d columns, the header (line %d) has %d: a row cut short?", n,
			       t->line, t->n_cols);
	if (t->keys == 2)
		snprintf(scope, sizeof(scope), "%.30s %.30s", w[0], w[1]);
	else
		snprintf(scope, sizeof(scope), "%.60s", w[0]);
	for (int i = t->keys; i < n; i++) {
		uint64_t v;
		int na;

		if (t->kind == MC_PFCSTAT)
			snprintf(name, sizeof(name), "%.20s %s", t->cols[i], t->dir);
		else
			snprintf(name, sizeof(name), "%s", t->cols[i]);
		if (mc__number(w[i], 1, 1, &v, &na))
			return st_fail(d, file, line, scope,
				       "%s: \"%.40s\" is not a counter value (1,200 or N/A)", name,
				       w[i]);
		if (mc_find(out, scope, name))
			return st_fail(d, file, line, scope, "%s given twice", name);
		if ((err = mc__add(out, file, line, scope, name, v, na, d)))
			return err;
	}
	t->rows++;
	return 0;
}

/* The end of table @t (a blank line, another header, the end of the file). */
static int st_end(struct st_table *t, const char *file, int line, struct diag *d)
{
	if (!t->line)
		return 0;
	if (!t->rows)
		return st_fail(d, file, line, t->cols[0],
			       "the table of line %d has no rows: the output cut short?", t->line);
	if (t->kind == MC_PFCSTAT)
		*(strcmp(t->dir, "Rx") ? &t->seen_tx : &t->seen_rx) = 1;
	t->line = 0;
	return 0;
}

/* One line of the output; @w room for ST_MAX_COLS + 1 words. */
static int st_line(struct st_table *t, char *s, const char *file, int line, struct mc_set *out,
		   struct diag *d)
{
	char *w[ST_MAX_COLS + 1], q[100];
	int n, err;

	s = mlnx__trim(s);
	if (!*s)
		return st_end(t, file, line, d);
	if (!strncmp(s, "Last cached time was", 20) || !strncmp(s, "For namespace", 13))
		return 0;
	mlnx__quote(q, sizeof(q), s, strlen(s));
	n = mlnx__words(s, w, ST_MAX_COLS);
	if (n > ST_MAX_COLS)
		return st_fail(d, file, line, "", "more than %d columns: \"%s\"", ST_MAX_COLS, q);
	if (!strcmp(w[0], "Port")) {
		if ((err = st_end(t, file, line, d)))
			return err;
		if (!st_header(t, w, n, line))
			return st_fail(d, file, line, "",
				       "not a %s table: \"%s\" (expected \"%s\")",
				       t->kind == MC_PFCSTAT ? "pfcstat" : "queuestat", q,
				       t->kind == MC_PFCSTAT ? "Port Rx PFC0 ... PFC7"
							     : "Port TxQ Counter/pkts ...");
		return 0;
	}
	if (!t->line)
		return st_fail(d, file, line, "", "\"%s\" outside a table (not %s output)", q,
			       t->kind == MC_PFCSTAT ? "pfcstat" : "queuestat");
	if (!t->dashes) {
		if (n != t->n_cols || strspn(w[0], "-") != strlen(w[0]))
			return st_fail(d, file, line, "",
				       "expected the line of dashes under the header of line %d, "
				       "got \"%s\"",
				       t->line, q);
		t->dashes = 1;
		return 0;
	}
	return st_row(t, w, n, file, line, out, d);
}

static int st_parse(int kind, const char *text, size_t len, const char *file, struct mc_set *out,
		    struct diag *d)
{
	struct st_table t = {.kind = kind};
	struct lines ls;
	int err = 0;
	size_t n;
	char *buf, *s;

	if (!(buf = mc__start(out, (enum mc_kind)kind, &file, text, len, d)))
		return -ENOMEM;
	lines_init(&ls, buf, len);
	while (!err && (s = lines_next(&ls, &n))) {
		int c = mlnx__find_binary(s, n);

		if (c >= 0)
			err =
			    st_fail(d, file, ls.no, "", "binary data (byte 0x%02x), not %s output",
				    c, kind == MC_PFCSTAT ? "pfcstat" : "queuestat");
		else
			err = st_line(&t, s, file, ls.no, out, d);
	}
	if (!err)
		err = st_end(&t, file, ls.no, d);
	if (!err && kind == MC_PFCSTAT && t.seen_rx != t.seen_tx)
		err = st_fail(d, file, ls.no, "",
			      "a \"Port %s\" table and no \"Port %s\" table: the output cut short?",
			      t.seen_rx ? "Rx" : "Tx", t.seen_rx ? "Tx" : "Rx");
	if (!err && !out->n)
		err = st_fail(d, file, 0, "", "no counters table: not %s output",
			      kind == MC_PFCSTAT ? "pfcstat" : "queuestat");
	free(buf);
	if (err)
		mc_free(out);
	return err;
}

int mc_pfcstat_parse(const char *text, size_t len, const char *file, struct mc_set *out,
		     struct diag *d)
{
	return st_parse(MC_PFCSTAT, text, len, file, out, d);
}

int mc_queuestat_parse(const char *text, size_t len, const char *file, struct mc_set *out,
		       struct diag *d)
{
	return st_parse(MC_QUEUESTAT, text, len, file, out, d);
}

static int st_read(int kind, const char *path, struct mc_set *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = textfile_load(path, 1, &text, &len, d)))
		return err;
	err = st_parse(kind, text, len, path, out, d);
	free(text);
	return err;
}

int mc_pfcstat_read(const char *path, struct mc_set *out, struct diag *d)
{
	return st_read(MC_PFCSTAT, path, out, d);
}

int mc_queuestat_read(const char *path, struct mc_set *out, struct diag *d)
{
	return st_read(MC_QUEUESTAT, path, out, d);
}
