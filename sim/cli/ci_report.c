/*
 * ci report: JUnit XML reports and atomic report files (ci_report.h).
 * The JUnit layout is the one CI tools read: a testsuites root with
 * tests, failures, errors and time; one testsuite with the same counts
 * (and skipped); a testcase per check with classname, name and time, a
 * failure element (message attribute, details as its text) when it failed,
 * a system-out element saying what a passed check measured. Names and
 * messages go in through textsafe's XML form: a control character or an
 * invalid UTF-8 byte in a path or a name (which XML 1.0 cannot hold, even
 * as a reference) shows as \xNN, so the report stays well-formed.
 */
#include "sim/cli/ci_report.h"
#include "sim/engine/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/engine/textsafe.h"

static char *dup_or_null(const char *s, int *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	*oom |= !d;
	return d;
}

void junit_add(struct junit *j, const char *classname, const char *name, const char *failure,
	       const char *text)
{
	struct junit_case *c = realloc(j->cases, (j->n + 1) * sizeof(*c));
	int oom = 0;

	if (!c) {
		j->oom = 1;
		return;
	}
	j->cases = c;
	c = &j->cases[j->n++];
	c->classname = dup_or_null(classname, &oom);
	c->name = dup_or_null(name, &oom);
	c->failure = dup_or_null(failure, &oom);
	c->text = dup_or_null(text, &oom);
	j->oom |= oom;
}

void junit_free(struct junit *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->cases[i].classname);
		free(j->cases[i].name);
		free(j->cases[i].failure);
		free(j->cases[i].text);
	}
	free(j->cases);
	memset(j, 0, sizeof(*j));
}

int junit_write(const struct junit *j, const char *path, const char *suite, double time_s)
{
	size_t failures = 0, len = 0;
	char *text = NULL;
	FILE *f;

	if (j->oom)
		return -ENOMEM;
	for (size_t i = 0; i < j->n; i++)
		failures += j->cases[i].failure != NULL;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites name=\"rocesim\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"time=\"%.3f\">\n",
		j->n, failures, time_s);
	fputs("  <testsuite name=\"", f);
	txt_fputs_xml(suite, f);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
		j->n, failures, time_s);
	for (size_t i = 0; i < j->n; i++) {
		const struct junit_case *c = &j->cases[i];

		fputs("    <testcase classname=\"", f);
		txt_fputs_xml(c->classname, f);
		fputs("\" name=\"", f);
		txt_fputs_xml(c->name, f);
		fputs("\" time=\"0\">\n", f);
		if (c->failure) {
			fputs("      <failure message=\"", f);
			txt_fputs_xml(c->failure, f);
			fputs("\" type=\"failure\">", f);
			txt_fputs_xml(c->text ? c->text : c->failure, f);
			fputs("</failure>\n", f);
		} else if (c->text) {
			fputs("      <system-out>", f);
			txt_fputs_xml(c->text, f);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ci_write_memstream(path, f, &text, &len);
}

int ci_write_file(const char *path, const char *text, size_t len)
{
	return textfile_replace(path, text, len, 0);
}

int ci_write_memstream(const char *path, FILE *f, char **text, const size_t *len)
{
	int err;

	if (fclose(f) || !*text) {
		free(*text);
		return -ENOMEM;
	}
	err = ci_write_file(path, *text, *len);
	free(*text);
	return err;
}

void ci_md_cell(FILE *f, const char *s)
{
	char t[1024];

	fputs("| ", f);
	for (s = txt_term(t, sizeof(t), s); *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc(' ', f);
}
