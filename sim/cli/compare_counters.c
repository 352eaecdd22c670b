/*
 * rocesim compare --measured DIR RUN, the NIC and switch counters: the
 * table of the counters paired (sim/study/compare_counters.c), the largest
 * disagreements first in a section of their own, every counter not
 * compared listed with why; or the same as JSON, and as Markdown and JUnit
 * (ci_report.h) as compare writes them.
 */
#include "sim/cli/compare_measured.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/ci_report.h"
#include "sim/cli/cli.h"
#include "sim/engine/textsafe.h"
#include "sim/study/compare_measured.h"

#define SHOWN 1024
#define WORST 10 /* disagreements listed in the text and Markdown */

/* Where @r is: "h0 ethtool", "leaf0 pfcstat Ethernet0". */
static const char *cmc_where(const struct cc_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s%s%s", r->node, mc_kind_name((enum mc_kind)r->kind),
		 r->scope[0] ? " " : "", r->scope);
	return buf;
}

static const char *cmc_num(double v, char *buf, size_t size)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.3f", v);
	return buf;
}

/* What a disagreement is, in words: "measured 1770, simulated 0 (rocesim counted none)". */
static const char *cmc_says(const struct cc_row *r, char *buf, size_t size)
{
	char m[40], s[40];

	cmc_num(r->measured, m, sizeof(m));
	cmc_num(r->simulated, s, sizeof(s));
	if (r->measured == 0 && r->simulated == 0)
		snprintf(buf, size, "measured 0, simulated 0");
	else if (r->simulated == 0)
		snprintf(buf, size, "measured %s, simulated 0 (rocesim counted none)", m);
	else if (r->measured == 0)
		snprintf(buf, size, "measured 0 (the lab counted none), simulated %s", s);
	else
		snprintf(buf, size, "measured %s, simulated %s, sim/measured %.3f", m, s, r->ratio);
	return buf;
}

/* Is @r beyond the tolerance @tol (a fraction; < 0: none given)? */
static int cmc_beyond(const struct cc_row *r, double tol)
{
	return tol >= 0 && r->state == CC_PAIRED && r->score > log1p(tol);
}

/* The rows not compared, a line a node, kind and reason. */
static void cmc_print_skipped(const struct cc_table *t, FILE *f)
{
	char a[SHOWN], b[SHOWN];
	size_t i = 0, n = 0;

	for (size_t k = 0; k < t->n; k++)
		n += t->rows[k].state != CC_PAIRED;
	if (!n)
		return;
	fprintf(f, "# not compared: %zu counters\n", n);
	while (i < t->n) {
		const struct cc_row *r = &t->rows[i];
		size_t col;

		if (r->state == CC_PAIRED) {
			i++;
			continue;
		}
		col = (size_t)fprintf(f, "  %s %s (%s):", txt_term(a, sizeof(a), r->node),
				      mc_kind_name((enum mc_kind)r->kind), cc_state_text(r->state));
		for (; i < t->n && t->rows[i].state == r->state &&
		       !strcmp(t->rows[i].node, r->node) && t->rows[i].kind == r->kind;
		     i++) {
			const struct cc_row *q = &t->rows[i];

			snprintf(b, sizeof(b), " %s%s%s", q->scope, q->scope[0] ? " " : "",
				 q->name);
			if (col + strlen(b) > 100) {
				fputs("\n   ", f);
				col = 3;
			}
			col += strlen(b);
			txt_fputs_term(b, f);
		}
		fputc('\n', f);
	}
}

static void cmc_print(const struct cc_table *t, const size_t *worst, size_t n_worst, double tol,
		      FILE *f)
{
	char a[SHOWN], b[SHOWN], m[40], s[40];
	size_t shown = 0;

	fprintf(f, "# measured counters of %s beside %s: %zu compared\n",
		txt_term(a, sizeof(a), t->folder), txt_term(b, sizeof(b), t->run), t->paired);
	fprintf(f, "%-8s %-11s %-22s %-30s %14s %14s %12s\n", "node", "kind", "scope", "counter",
		"measured", "simulated", "sim/measured");
	for (size_t i = 0; i < t->n; i++) {
		const struct cc_row *r = &t->rows[i];
		char ra[32] = "-";

		if (r->state != CC_PAIRED)
			continue;
		if (!isnan(r->ratio))
			snprintf(ra, sizeof(ra), "%.3f", r->ratio);
		fprintf(f, "%-8s %-11s %-22s %-30s %14s %14s %12s%s\n",
			txt_term(a, sizeof(a), r->node), mc_kind_name((enum mc_kind)r->kind),
			txt_term(b, sizeof(b), r->scope[0] ? r->scope : "-"), r->name,
			cmc_num(r->measured, m, sizeof(m)), cmc_num(r->simulated, s, sizeof(s)), ra,
			cmc_beyond(r, tol) ? "  beyond tolerance" : "");
	}
	fprintf(f,
		"# largest disagreements (|ln((simulated+%g)/(measured+%g))|, a floor of %g "
		"counts):\n",
		CC_FLOOR, CC_FLOOR, CC_FLOOR);
	for (size_t k = 0; k < n_worst && shown < WORST; k++) {
		const struct cc_row *r = &t->rows[worst[k]];
		char where[200], says[200];

		if (r->score < 1e-9)
			break;

		fprintf(f, "  %5.2f  %s %s: %s\n", r->score,
			txt_term(a, sizeof(a), cmc_where(r, where, sizeof(where))),
			txt_term(b, sizeof(b), r->name), cmc_says(r, says, sizeof(says)));
		shown++;
	}
	if (!shown)
		fputs("  none: every counter compared is the same on both sides\n", f);
	cmc_print_skipped(t, f);
}

static json_t *cmc_row_json(const struct cc_row *r, double tol)
{
	json_t *o = json_pack("{s:o,s:s,s:o,s:o,s:o,s:o,s:f,s:s,s:o,s:i}", "node",
			      txt_json(r->node), "kind", mc_kind_name((enum mc_kind)r->kind),
			      "scope", txt_json(r->scope), "counter", txt_json(r->name), "rocesim",
			      r->rocesim[0] ? json_string(r->rocesim) : json_null(), "port",
			      r->port[0] ? txt_json(r->port) : json_null(), "measured", r->measured,
			      "state", r->state == CC_PAIRED ? "compared" : "not_compared", "file",
			      txt_json(r->file), "line", r->line);

	if (!o)
		return NULL;
	if (r->state == CC_PAIRED) {
		if (json_object_set_new(o, "simulated", json_real(r->simulated)) ||
		    json_object_set_new(o, "ratio",
					isnan(r->ratio) ? json_null() : json_real(r->ratio)) ||
		    json_object_set_new(o, "disagreement", json_real(r->score)) ||
		    json_object_set_new(o, "beyond_tolerance", json_boolean(cmc_beyond(r, tol)))) {
			json_decref(o);
			return NULL;
		}
	} else if (json_object_set_new(o, "why", json_string(cc_state_text(r->state)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *cmc_json(const struct cc_table *t, const size_t *worst, size_t n_worst, double tol)
{
	json_t *rows = json_array(), *dis = json_array();
	int err = !rows || !dis;

	for (size_t i = 0; !err && i < t->n; i++)
		err = json_array_append_new(rows, cmc_row_json(&t->rows[i], tol));
	for (size_t k = 0; !err && k < n_worst; k++)
		if (t->rows[worst[k]].score >= 1e-9)
			err = json_array_append_new(dis, json_integer((json_int_t)worst[k]));
	if (err) {
		json_decref(rows);
		json_decref(dis);
		return NULL;
	}
	return json_pack("{s:s,s:o,s:o,s:I,s:f,s:o,s:o,s:o}", "kind", "counters", "measured",
			 txt_json(t->folder), "run", txt_json(t->run), "compared",
			 (json_int_t)t->paired, "floor", CC_FLOOR, "tolerance",
			 tol >= 0 ? json_real(tol) : json_null(), "counters", rows,
			 "largest_disagreements", dis);
}

static int cmc_markdown(const char *path, const struct cc_table *t, const size_t *worst,
			size_t n_worst, double tol)
{
	char *text = NULL, a[SHOWN], m[40], s[40];
	size_t len = 0, beyond = 0, skipped = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		beyond += cmc_beyond(&t->rows[i], tol);
		skipped += t->rows[i].state != CC_PAIRED;
	}
	fprintf(f, "### rocesim compare --measured: %zu counters compared", t->paired);
	if (tol >= 0)
		fprintf(f, ", %zu beyond %g%%", beyond, 100 * tol);
	fprintf(f, "\n\nMeasured `%s`, run `%s`; %zu counters not compared.\n\n",
		txt_term(a, sizeof(a), t->folder), txt_term(a + SHOWN / 2, SHOWN / 2, t->run),
		skipped);
	fputs("Largest disagreements:\n\n| node | kind | scope | counter | measured | simulated | "
	      "sim/measured |\n|---|---|---|---|--:|--:|--:|\n",
	      f);
	for (size_t k = 0; k < n_worst && k < WORST; k++) {
		const struct cc_row *r = &t->rows[worst[k]];
		char ra[32] = "-";

		if (r->score < 1e-9)
			break;
		if (!isnan(r->ratio))
			snprintf(ra, sizeof(ra), "%.3f", r->ratio);
		ci_md_cell(f, r->node);
		ci_md_cell(f, mc_kind_name((enum mc_kind)r->kind));
		ci_md_cell(f, r->scope[0] ? r->scope : "-");
		ci_md_cell(f, r->name);
		ci_md_cell(f, cmc_num(r->measured, m, sizeof(m)));
		ci_md_cell(f, cmc_num(r->simulated, s, sizeof(s)));
		ci_md_cell(f, ra);
		fputs("|\n", f);
	}
	return ci_write_memstream(path, f, &text, &len);
}

static int cmc_junit(const char *path, const struct cc_table *t, double tol)
{
	struct junit j = {0};
	char cls[300], name[200], text[600], where[200], says[200];
	int err;

	for (size_t i = 0; i < t->n; i++) {
		const struct cc_row *r = &t->rows[i];

		if (r->state != CC_PAIRED)
			continue;
		snprintf(name, sizeof(name), "%s%s%s", r->scope, r->scope[0] ? " " : "", r->name);
		snprintf(text, sizeof(text), "%s %s: %s", cmc_where(r, where, sizeof(where)),
			 r->name, cmc_says(r, says, sizeof(says)));
		snprintf(cls, sizeof(cls), "rocesim.compare.measured.%s.%s", r->node,
			 mc_kind_name((enum mc_kind)r->kind));
		junit_add(&j, cls, name, cmc_beyond(r, tol) ? "beyond the tolerance" : NULL, text);
	}
	err = junit_write(&j, path, "rocesim compare --measured", 0);
	junit_free(&j);
	return err;
}

int cmc_counters(const char *dir, const char *run, const struct cmc_opts *o, json_t *arr)
{
	struct cc_table t;
	struct diag d = {0};
	size_t *worst = NULL, n_worst;
	int err = cc_compare(dir, run, &t, &d), rc = 0;
	char msg[SHOWN];

	if (err) {
		fprintf(stderr, "rocesim: compare: %s\n",
			err == -ENOMEM ? "out of memory" : diag_str(&d, msg, sizeof(msg)));
		return ROCESIM_EXIT_INPUT;
	}
	if (!(worst = calloc(t.n + 1, sizeof(*worst)))) {
		cc_free(&t);
		fputs("rocesim: compare: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	n_worst = cc_worst(&t, worst);
	if (arr) {
		if (json_array_append_new(arr, cmc_json(&t, worst, n_worst, o->tol))) {
			fputs("rocesim: compare: out of memory\n", stderr);
			rc = ROCESIM_EXIT_INPUT;
		}
	} else {
		cmc_print(&t, worst, n_worst, o->tol, stdout);
	}
	if (!rc && o->markdown && (err = cmc_markdown(o->markdown, &t, worst, n_worst, o->tol))) {
		fprintf(stderr, "rocesim: compare: cannot write %s: %s\n",
			txt_term(msg, sizeof(msg), o->markdown), strerror(-err));
		rc = ROCESIM_EXIT_IO;
	}
	if (!rc && o->junit && (err = cmc_junit(o->junit, &t, o->tol))) {
		fprintf(stderr, "rocesim: compare: cannot write %s: %s\n",
			txt_term(msg, sizeof(msg), o->junit), strerror(-err));
		rc = ROCESIM_EXIT_IO;
	}
	for (size_t i = 0; !rc && i < t.n; i++)
		if (cmc_beyond(&t.rows[i], o->tol))
			rc = ROCESIM_EXIT_FOUND;
	free(worst);
	cc_free(&t);
	return rc;
}
