/*
 * compare text: the words of a comparison, shared by the table, --markdown,
 * --json and the JUnit report of compare and of run --baseline: numbers,
 * changes, verdicts, how the seeds were paired, and what differs in what
 * produced the two sides (found here from the provenance that
 * compare_load.c keeps of each side, then said).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/study/compare_impl.h"

int cmp_is_regression(const struct cmp_row *row)
{
	return row->verdict == CMP_WORSE || row->verdict == CMP_LOST || row->verdict == CMP_FAILED;
}

const char *cmp_num(double v, char *buf, size_t size)
{
	size_t len;

	if (!isfinite(v)) {
		snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return buf;
	}
	if (fabs(v) >= 1e15 || (v != 0 && fabs(v) < 1e-3)) {
		snprintf(buf, size, "%.4g", v);
		return buf;
	}
	if (v == floor(v)) {
		snprintf(buf, size, "%.0f", v);
		return buf;
	}
	snprintf(buf, size, "%.3f", v);
	len = strlen(buf);
	while (len > 1 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 1 && buf[len - 1] == '.')
		buf[--len] = '\0';
	return buf;
}

/* A change @d of a metric whose base is @base: "+12.3%", or "+4" when the
 * base is 0; "0" for none. */
static const char *change_of(double d, double base, char *buf, size_t size)
{
	char num[64];

	if (d == 0)
		snprintf(buf, size, "0");
	else if (base != 0 && isfinite(100.0 * d / fabs(base)))
		snprintf(buf, size, "%+.1f%%", 100.0 * d / fabs(base));
	else
		snprintf(buf, size, "%s%s", d > 0 ? "+" : "", cmp_num(d, num, sizeof(num)));
	return buf;
}

const char *cmp_change(const struct cmp_row *row, char *buf, size_t size)
{
	if (!row->n_base || !row->n_new)
		snprintf(buf, size, "-");
	else
		change_of(row->new - row->base, row->base, buf, size);
	return buf;
}

const char *cmp_seed_changes(const struct cmp_row *row, char *buf, size_t size)
{
	size_t n = 0, shown = row->n_pairs < 12 ? row->n_pairs : 12;
	char ch[64];

	buf[0] = '\0';
	for (size_t i = 0; i < shown && n < size; i++) {
		const struct cmp_pair *p = &row->pairs[i];

		n += (size_t)snprintf(buf + n, size - n, "%s%llu %s", i ? ", " : "",
				      (unsigned long long)p->seed,
				      change_of(p->new - p->base, p->base, ch, sizeof(ch)));
	}
	if (row->n_pairs > shown && n < size)
		snprintf(buf + n, size - n, " and %zu more", row->n_pairs - shown);
	return buf;
}

static const char *tol_text(const struct cmp_row *row, char *buf, size_t size)
{
	char num[64];

	snprintf(buf, size, "%s%s", cmp_num(row->tol_given.value, num, sizeof(num)),
		 row->tol_given.pct ? "%" : "");
	return buf;
}

/* The mean paired change and its interval: "+30.5% [-3.2%, +64.2%]". */
static const char *interval(const struct cmp_row *row, char *buf, size_t size)
{
	char c[64], lo[64], hi[64];

	change_of(row->change, row->base, c, sizeof(c));
	if (row->n_pairs < 2) {
		snprintf(buf, size, "%s on 1 seed", c);
		return buf;
	}
	snprintf(buf, size, "%s [%s, %s]", c, change_of(row->lo, row->base, lo, sizeof(lo)),
		 change_of(row->hi, row->base, hi, sizeof(hi)));
	return buf;
}

/* How many pairs got worse: "3 of 5 seeds worse". */
static const char *worse_text(const struct cmp_row *row, char *buf, size_t size)
{
	snprintf(buf, size, "%zu of %zu seed%s %s", row->n_worse, row->n_pairs,
		 row->n_pairs == 1 ? "" : "s", row->dir == CMP_EITHER ? "changed" : "worse");
	return buf;
}

static void paired_text(const struct cmp_row *row, char *buf, size_t size)
{
	char tol[64], iv[160], w[64];
	const char *how = row->certain ? "certain" : "likely";

	tol_text(row, tol, sizeof(tol));
	interval(row, iv, sizeof(iv));
	worse_text(row, w, sizeof(w));
	switch (row->verdict) {
	case CMP_WITHIN:
		snprintf(buf, size, "ok (within %s: %s)", tol, iv);
		break;
	case CMP_BETTER:
		snprintf(buf, size, "better, %s (%s, beyond %s; %s)", how, iv, tol, w);
		break;
	case CMP_WORSE:
		if (row->zero_base)
			snprintf(buf, size, "REGRESSION, %s (0 in BASE, above 0 in NEW: %s; %s)",
				 how, iv, w);
		else
			snprintf(buf, size, "REGRESSION, %s (%s, %s by more than %s%s%s)", how, iv,
				 row->dir == CMP_EITHER ? "changed" : "worse", tol,
				 row->n_pairs > 1 ? "; " : "", row->n_pairs > 1 ? w : "");
		break;
	default:
		snprintf(buf, size, "same");
		break;
	}
}

/* ", unpaired, detects 45.2%": the smallest change Welch's test could find. */
static const char *detect_text(const struct cmp_row *row, char *buf, size_t size)
{
	char d[64];
	const char *t;

	if (row->test != CMP_TEST_WELCH || row->detectable < 0) {
		snprintf(buf, size, "%s", row->test == CMP_TEST_NONE ? "; 1 run, no test" : "");
		return buf;
	}
	t = change_of(row->detectable, row->base, d, sizeof(d));
	snprintf(buf, size, "; unpaired, detects %s", *t == '+' ? t + 1 : t);
	return buf;
}

const char *cmp_verdict_text(const struct cmp_row *row, char *buf, size_t size)
{
	char tol[64], p[32] = "", det[80];

	if (row->test == CMP_TEST_PAIRED && row->verdict != CMP_FAILED) {
		paired_text(row, buf, size);
		return buf;
	}
	tol_text(row, tol, sizeof(tol));
	detect_text(row, det, sizeof(det));
	if (row->p >= 0)
		snprintf(p, sizeof(p), ", p=%.2g", row->p);
	switch (row->verdict) {
	case CMP_SAME:
		snprintf(buf, size, "same");
		break;
	case CMP_WITHIN:
		snprintf(buf, size, "ok (within %s%s)", tol, det);
		break;
	case CMP_NOT_SIGNIFICANT:
		snprintf(buf, size, "ok (beyond %s, not significant%s%s)", tol, p, det);
		break;
	case CMP_BETTER:
		snprintf(buf, size, "better (beyond %s%s%s)", tol, p, det);
		break;
	case CMP_WORSE:
		if (row->zero_base)
			snprintf(buf, size, "REGRESSION (0 in every BASE run, above 0 in NEW%s%s)",
				 p, det);
		else
			snprintf(buf, size, "REGRESSION (%s by more than %s%s%s)",
				 row->dir == CMP_EITHER ? "changed" : "worse", tol, p, det);
		break;
	case CMP_LOST:
		snprintf(buf, size, "REGRESSION (not measured in NEW)");
		break;
	case CMP_NEW:
		snprintf(buf, size, "new (not measured in BASE)");
		break;
	case CMP_FAILED:
		snprintf(buf, size, "REGRESSION (%s)", row->note ? row->note : "runs failed");
		break;
	}
	return buf;
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = {"same",	   "within_tolerance", "not_significant",
					    "improvement", "regression",       "regression",
					    "new",	   "regression"};

	return names[v];
}

const char *cmp_pairing_text(const struct cmp_result *r, const char *point, char *buf, size_t size)
{
	size_t pairs = 0, left = 0;
	int welch = 0, single = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct cmp_row *row = &r->rows[i];

		if (strcmp(row->point, point))
			continue;
		if (row->test == CMP_TEST_PAIRED && row->n_pairs > pairs) {
			pairs = row->n_pairs;
			left = row->left_out;
		}
		welch |= row->test == CMP_TEST_WELCH;
		single |= row->test == CMP_TEST_NONE && row->n_base && row->n_new;
	}
	if (pairs && left)
		snprintf(buf, size,
			 "paired by seed on the %zu seed%s both ran (%zu run%s of one side only "
			 "left out)",
			 pairs, pairs == 1 ? "" : "s", left, left == 1 ? "" : "s");
	else if (pairs)
		snprintf(buf, size, "paired by seed (%zu seed%s)", pairs, pairs == 1 ? "" : "s");
	else if (welch)
		snprintf(buf, size, "unpaired (fewer than 2 seeds in common): Welch's t-test");
	else if (single)
		snprintf(buf, size,
			 "unpaired (no seed in common, 1 run on a side): tolerance alone");
	else
		buf[0] = '\0';
	return buf;
}

/* The sides' sets under @key of @a and @b are equal. */
static int same_set(const json_t *a, const json_t *b)
{
	size_t i, j;
	json_t *x, *y;

	if (json_array_size(a) != json_array_size(b))
		return 0;
	json_array_foreach(a, i, x) {
		int found = 0;

		json_array_foreach(b, j, y)
			found |= json_equal(x, y);
		if (!found)
			return 0;
	}
	return 1;
}

json_t *cmp_prov_diff(const struct cmp_side *b, const struct cmp_side *n)
{
	json_t *d = json_pack("{s:b,s:b,s:b,s:[],s:[],s:[]}", "known", b->prov && n->prov,
			      "base_known", b->prov != NULL, "new_known", n->prov != NULL,
			      "base_versions", "new_versions", "inputs_differ");
	json_t *ib = json_object_get(b->prov, "inputs"), *in = json_object_get(n->prov, "inputs");
	json_t *vb = json_object_get(b->prov, "versions"),
	       *vn = json_object_get(n->prov, "versions");
	json_t *diff = json_object_get(d, "inputs_differ"), *v;
	const char *k;
	int err = !d, all;

	if (!d)
		return NULL;
	err |= vb && json_array_extend(json_object_get(d, "base_versions"), vb) < 0;
	err |= vn && json_array_extend(json_object_get(d, "new_versions"), vn) < 0;
	err |= json_object_set_new(d, "versions_differ",
				   json_boolean(vb && vn && json_array_size(vb) &&
						json_array_size(vn) && !same_set(vb, vn)));
	/* a side without its runs' provenance (a stored sweep.csv) says only
	 * its scenario's digest: the inputs both say are compared */
	all = json_is_true(json_object_get(b->prov, "runs")) &&
	      json_is_true(json_object_get(n->prov, "runs"));
	err |= json_object_set_new(d, "inputs_known", json_boolean(ib && in && all));
	json_object_foreach(ib, k, v) {
		json_t *o = json_object_get(in, k);

		if (in && (o || all) && !same_set(v, o))
			err |= json_array_append_new(diff, json_string(k));
	}
	json_object_foreach(in, k, v)
		if (ib && all && !json_object_get(ib, k))
			err |= json_array_append_new(diff, json_string(k));
	if (err) {
		json_decref(d);
		return NULL;
	}
	return d;
}

/* The strings of array @a, ", "-separated, into @buf. */
static const char *joined(const json_t *a, char *buf, size_t size)
{
	size_t n = 0, i;
	json_t *e;

	buf[0] = '\0';
	json_array_foreach(a, i, e)
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
					      json_string_value(e));
	return buf;
}

const char *cmp_prov_text(const json_t *d, char *buf, size_t size)
{
	char vb[200], vn[200], in[600];
	const json_t *diff = json_object_get(d, "inputs_differ");
	size_t n = 0;

	if (!d)
		return NULL;
	joined(json_object_get(d, "base_versions"), vb, sizeof(vb));
	joined(json_object_get(d, "new_versions"), vn, sizeof(vn));
	joined(diff, in, sizeof(in));
	if (!json_is_true(json_object_get(d, "known"))) {
		int b = json_is_true(json_object_get(d, "base_known"));
		int n = json_is_true(json_object_get(d, "new_known"));

		snprintf(buf, size, "provenance: %s",
			 !b && !n ? "neither side says its version and inputs"
			 : !b	  ? "BASE does not say its version and inputs"
				  : "NEW does not say its version and inputs");
		return buf;
	}
	if (json_is_true(json_object_get(d, "versions_differ")))
		n += (size_t)snprintf(buf, size, "versions differ: BASE %s, NEW %s", vb, vn);
	else
		n += (size_t)snprintf(buf, size, "same version (%s)", *vb ? vb : "not said");
	if (n < size && json_array_size(diff))
		n += (size_t)snprintf(buf + n, size - n, "; inputs differ: %s", in);
	else if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "; same inputs");
	if (n < size && !json_is_true(json_object_get(d, "inputs_known")))
		snprintf(buf + n, size - n,
			 " (of those both sides record: a stored sweep.csv "
			 "records only the scenario's)");
	return buf;
}
