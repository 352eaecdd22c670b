/*
 * The results an nccl-tests binary prints (nccl_tests_out.h): the column
 * header names the columns, each row is checked against it, the footer
 * closes the table.
 */
#include "sim/readers/nccl_tests_out.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/readers/mlnx_impl.h"

#define NO_MAX_COLS 24

/* The columns the header gave, in order. */
enum no_col { C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT, C_TIME, C_ALGBW, C_BUSBW, C_WRONG };

struct no_ctx {
	struct nccl_out *o;
	struct diag *d;
	const char *file;
	int line;
	size_t cap;
	enum no_col cols[NO_MAX_COLS];
	int n_cols;   /* the columns read: up to the in-place #wrong */
	int all_cols; /* with the ones after it (rccl-tests) */
	int header_line;
};

static int no_fail(struct no_ctx *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int no_fail(struct no_ctx *c, const char *key, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(c->d, c->file, c->line, key, "%s", msg);
	return -EINVAL;
}

/* The column header, its words after the '#': the columns each group has. */
static int no_header(struct no_ctx *c, char **w, int n)
{
	static const struct {
		const char *name;
		enum no_col col;
	} names[] = {{"size", C_SIZE},	 {"count", C_COUNT}, {"type", C_TYPE},
		     {"redop", C_REDOP}, {"root", C_ROOT},   {"time", C_TIME},
		     {"algbw", C_ALGBW}, {"busbw", C_BUSBW}, {"#wrong", C_WRONG},
		     {"error", C_WRONG}};
	int wrongs = 0, i;

	c->n_cols = 0;
	for (i = 0; i < n && wrongs < 2; i++) {
		size_t k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(w[i], names[k].name))
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			return no_fail(c, "",
				       "column \"%.30s\" of the header is not one of "
				       "nccl-tests' (size count type redop root time algbw "
				       "busbw #wrong)",
				       w[i]);
		c->cols[c->n_cols++] = names[k].col;
		wrongs += names[k].col == C_WRONG;
	}
	if (wrongs < 2 || c->cols[0] != C_SIZE || c->cols[1] != C_COUNT || c->cols[2] != C_TYPE)
		return no_fail(c, "",
			       "the column header lacks \"size count type ... time algbw "
			       "busbw #wrong\" twice (out of place, in place)");
	c->all_cols = n;
	c->o->extra_cols = n - i;
	c->header_line = c->line;
	return 0;
}

static int no_double(struct no_ctx *c, const char *s, const char *col, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (end == s || *end || !isfinite(*v) || *v < 0)
		return no_fail(c, col, "\"%.30s\" is not a number", s);
	return 0;
}

static int no_uint(struct no_ctx *c, const char *s, const char *col, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return no_fail(c, col, "\"%.30s\" is not a whole number", s);
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end || errno)
		return no_fail(c, col, "\"%.30s\" is not a whole number", s);
	return 0;
}

/* One value of column @k (@in: of the in-place group) into @r. */
static int no_value(struct no_ctx *c, struct nccl_out_row *r, enum no_col k, int in, const char *s)
{
	uint64_t u;
	int err = 0;

	switch (k) {
	case C_SIZE:
		return no_uint(c, s, "size", &r->bytes);
	case C_COUNT:
		return no_uint(c, s, "count", &r->count);
	case C_TYPE:
		snprintf(r->type, sizeof(r->type), "%s", s);
		return 0;
	case C_REDOP:
		snprintf(r->redop, sizeof(r->redop), "%s", s);
		return 0;
	case C_ROOT: {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || *end || v < -1 || v > 1 << 24)
			return no_fail(c, "root", "\"%.30s\" is not a rank", s);
		r->has_root = 1;
		r->root = (int)v;
		return 0;
	}
	case C_TIME:
		return no_double(c, s, in ? "in-place time" : "time",
				 in ? &r->in_time_us : &r->time_us);
	case C_ALGBW:
		return no_double(c, s, in ? "in-place algbw" : "algbw",
				 in ? &r->in_algbw : &r->algbw);
	case C_BUSBW:
		return no_double(c, s, in ? "in-place busbw" : "busbw",
				 in ? &r->in_busbw : &r->busbw);
	case C_WRONG:
		if (!strcmp(s, "N/A"))
			u = (uint64_t)-1;
		else if ((err = no_uint(c, s, in ? "in-place #wrong" : "#wrong", &u)))
			return err;
		*(in ? &r->in_wrong : &r->wrong) = u > (uint64_t)INT64_MAX ? -1 : (long long)u;
		return 0;
	}
	return 0;
}

static int no_row(struct no_ctx *c, char **w, int n)
{
	struct nccl_out_row r = {.wrong = -1, .in_wrong = -1};
	int in = 0;

	if (!c->header_line)
		return no_fail(c, "",
			       "a row before the column header (\"#  size  count  type ...\")");
	if (n != c->all_cols)
		return no_fail(c, "",
			       "size %.30s: %d columns, the header (line %d) has %d: a row "
			       "cut short?",
			       w[0], n, c->header_line, c->all_cols);
	r.line = c->line;
	for (int i = 0; i < c->n_cols; i++) {
		int err = no_value(c, &r, c->cols[i], in, w[i]);

		if (err)
			return err;
		in |= c->cols[i] == C_WRONG;
	}
	if (c->o->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 32;
		struct nccl_out_row *v = realloc(c->o->rows, ncap * sizeof(*v));

		if (!v) {
			diag_set(c->d, c->file, c->line, "", "out of memory");
			return -ENOMEM;
		}
		c->o->rows = v;
		c->cap = ncap;
	}
	c->o->rows[c->o->n++] = r;
	return 0;
}

/* A '#' line: the preamble's ranks and collective, the header, the footer. */
static int no_comment(struct no_ctx *c, char *s)
{
	char *w[NO_MAX_COLS + 1], *v;
	int n;

	s = mlnx__trim(s + 1);
	if ((v = strstr(s, "Collective test starting:")) == s) {
		snprintf(c->o->binary, sizeof(c->o->binary), "%.60s", mlnx__trim(s + 25));
		return 0;
	}
	if (!strncmp(s, "Rank ", 5) && strstr(s, " Group ")) {
		c->o->ranks++;
		return 0;
	}
	if (!strncmp(s, "Avg bus bandwidth", 17) && (v = strchr(s, ':'))) {
		c->o->avg_line = c->line;
		c->o->has_avg = 1;
		return no_double(c, mlnx__trim(v + 1), "Avg bus bandwidth", &c->o->avg_busbw);
	}
	if (!strncmp(s, "Out of bounds values", 20) && (v = strchr(s, ':'))) {
		char *end;

		v = mlnx__trim(v + 1);
		c->o->oob = strtoull(v, &end, 10);
		c->o->has_oob = end != v;
		return 0;
	}
	n = mlnx__words(s, w, NO_MAX_COLS);
	if (n >= 3 && n <= NO_MAX_COLS && !strcmp(w[0], "size") && !strcmp(w[1], "count"))
		return no_header(c, w, n);
	return 0; /* the rest of the preamble, the units line */
}

static int no_line(struct no_ctx *c, char *s)
{
	char *w[NO_MAX_COLS + 1], q[100];
	int n;

	s = mlnx__trim(s);
	if (!*s)
		return 0;
	if (*s == '#')
		return no_comment(c, s);
	if (strstr(s, " NCCL INFO ") || strstr(s, " NCCL WARN ") || strstr(s, " NCCL TRACE "))
		return 0;
	mlnx__quote(q, sizeof(q), s, strlen(s));
	if (*s < '0' || *s > '9')
		return no_fail(c, "", "\"%s\" is neither a '#' line nor a row of sizes", q);
	n = mlnx__words(s, w, NO_MAX_COLS);
	if (n > NO_MAX_COLS)
		return no_fail(c, "", "more than %d columns: \"%s\"", NO_MAX_COLS, q);
	return no_row(c, w, n);
}

void nccl_out_free(struct nccl_out *o)
{
	free(o->rows);
	o->rows = NULL;
	o->n = 0;
}

int nccl_out_parse(const char *text, size_t len, const char *file, struct nccl_out *out,
		   struct diag *d)
{
	struct no_ctx c = {.o = out, .d = d};
	struct lines ls;
	int err = 0;
	size_t n;
	char *buf, *s;

	memset(out, 0, sizeof(*out));
	c.file = file ? file : "";
	snprintf(out->file, sizeof(out->file), "%s", c.file);
	if (!(buf = mlnx__text_copy(text, len, c.file, d)))
		return -ENOMEM;
	lines_init(&ls, buf, len);
	while (!err && (s = lines_next(&ls, &n))) {
		int b = mlnx__find_binary(s, n);

		c.line = ls.no;
		if (b >= 0)
			err =
			    no_fail(&c, "", "binary data (byte 0x%02x), not nccl-tests output", b);
		else
			err = no_line(&c, s);
	}
	c.line = 0;
	if (!err && !c.header_line)
		err = no_fail(&c, "",
			      "no column header (\"#  size  count  type ...\"): not the "
			      "output of an nccl-tests binary");
	else if (!err && !out->n)
		err = no_fail(&c, "", "no row under the column header: the output cut short?");
	else if (!err && !out->has_avg)
		err = no_fail(&c, "",
			      "no \"# Avg bus bandwidth\" line after the %zu rows: the "
			      "output cut short?",
			      out->n);
	free(buf);
	if (err)
		nccl_out_free(out);
	return err;
}

int nccl_out_read(const char *path, struct nccl_out *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = textfile_load(path, 1, &text, &len, d)))
		return err;
	err = nccl_out_parse(text, len, path, out, d);
	free(text);
	return err;
}
