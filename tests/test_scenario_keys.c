/*
 * The scenario reference covers every key the loader accepts: each key
 * path of the loader's schema (scn_keys) is a row of the table of
 * scenario keys in docs/scenario.md, or is named in the row of a
 * key above it (a list's entries, `workload.flows: {src, dst, ...}`). A
 * key added to the loader without a word in the reference fails here.
 *
 * A row's first cell names its keys in backquotes: the first by its whole
 * path, the next ones beside it (`topology.leaves`, `spines`: both under
 * topology), by a whole path of their own when they hold a dot, or as a
 * suffix (`nic.cc_params.file`, `.device`); a trailing * matches any key
 * so begun (`nic.dcqcn.rp_*`).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "proc.h"
#include "support.h"

#define MAX_ROWS 400

struct doc_key {
	char path[336];
	const char *row; /* the whole row's text, in the document's buffer */
	size_t row_len;
};

struct ref {
	struct doc_key keys[4 * MAX_ROWS];
	size_t n;
	char missing[8192];
	size_t n_missing, n_checked;
};

/* @path's parent ("a.b" of "a.b.c"; "" at the top) into @buf. */
static void parent_of(const char *path, char *buf, size_t size)
{
	const char *dot = strrchr(path, '.');

	snprintf(buf, size, "%.*s", dot ? (int)(dot - path) : 0, path);
}

static void add_key(struct ref *r, const char *path, const char *row, size_t row_len)
{
	cr_assert_lt(r->n, sizeof(r->keys) / sizeof(r->keys[0]));
	snprintf(r->keys[r->n].path, sizeof(r->keys[0].path), "%s", path);
	r->keys[r->n].row = row;
	r->keys[r->n].row_len = row_len;
	r->n++;
}

/* The keys of one table row (@row, @len bytes) into @r. */
static void read_row(struct ref *r, const char *row, size_t len)
{
	const char *cell_end = strstr(row + 2, " |"), *p = row;
	char first[160] = "", parent[160] = "", tok[160], full[330];

	if (!cell_end || (size_t)(cell_end - row) > len)
		return;
	while ((p = memchr(p, '`', (size_t)(cell_end - p))) && p < cell_end) {
		const char *q = memchr(p + 1, '`', (size_t)(cell_end - p - 1));

		if (!q)
			break;
		snprintf(tok, sizeof(tok), "%.*s", (int)(q - p - 1), p + 1);
		p = q + 1;
		if (!first[0]) {
			snprintf(first, sizeof(first), "%s", tok);
			parent_of(first, parent, sizeof(parent));
			snprintf(full, sizeof(full), "%s", tok);
		} else if (tok[0] == '.') {
			snprintf(full, sizeof(full), "%s%s", parent, tok);
		} else if (strchr(tok, '.')) {
			snprintf(full, sizeof(full), "%s", tok);
		} else {
			snprintf(full, sizeof(full), "%s%s%s", parent, parent[0] ? "." : "", tok);
		}
		add_key(r, full, row, len);
	}
}

/* Does documented key @d name @path (exactly, or as a prefix with *)? */
static int names(const struct doc_key *d, const char *path)
{
	size_t n = strlen(d->path);

	if (n && d->path[n - 1] == '*')
		return !strncmp(d->path, path, n - 1);
	return !strcmp(d->path, path);
}

/* @path with every "[]" removed into @buf. */
static void plain(const char *path, char *buf, size_t size)
{
	size_t k = 0;

	for (; *path && k + 1 < size; path++)
		if (*path != '[' && *path != ']')
			buf[k++] = *path;
	buf[k] = '\0';
}

static void check_key(const char *path, void *arg)
{
	struct ref *r = arg;
	char flat[256], up[256], last[256];

	r->n_checked++;
	plain(path, flat, sizeof(flat));
	snprintf(last, sizeof(last), "%s", strrchr(flat, '.') ? strrchr(flat, '.') + 1 : flat);
	for (size_t i = 0; i < r->n; i++)
		if (names(&r->keys[i], flat))
			return;
	/* named in the row of a key above it */
	snprintf(up, sizeof(up), "%s", flat);
	for (;;) {
		char *dot = strrchr(up, '.');

		if (!dot)
			break;
		*dot = '\0';
		for (size_t i = 0; i < r->n; i++) {
			char *row;

			if (!names(&r->keys[i], up))
				continue;
			row = strndup(r->keys[i].row, r->keys[i].row_len);
			cr_assert(row);
			if (strstr(row, last)) {
				free(row);
				return;
			}
			free(row);
		}
	}
	r->n_missing++;
	snprintf(r->missing + strlen(r->missing), sizeof(r->missing) - strlen(r->missing), "  %s\n",
		 path);
}

Test(scenario_keys, every_key_the_loader_accepts_is_in_the_reference)
{
	static struct ref r;
	char *readme = ts_slurp(ts_src("docs/scenario.md")), *sec, *line;

	cr_assert(readme, "cannot read docs/scenario.md");
	sec = readme;
	for (line = sec; line && *line; line = strchr(line, '\n')) {
		size_t len;

		line += *line == '\n';
		len = strcspn(line, "\n");
		if (!strncmp(line, "| `", 3))
			read_row(&r, line, len);
	}
	cr_assert_gt(r.n, 50, "the table of keys was not found (%zu keys)", r.n);
	scn_keys(check_key, &r);
	cr_expect_gt(r.n_checked, 100, "the loader gave only %zu keys", r.n_checked);
	cr_expect_eq(r.n_missing, 0, "%zu keys the loader accepts are not in docs/scenario.md:\n%s",
		     r.n_missing, r.missing);
	free(readme);
}
