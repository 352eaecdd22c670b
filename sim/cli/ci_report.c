/*
 * ci report: JUnit XML reports and atomic report files (ci_report.h).
 * The JUnit layout is the one CI tools read: a testsuites root with
 * tests, failures, errors and time; one testsuite with the same counts
 * (and skipped); a testcase per check with classname, name and time, a
 * failure element (message attribute, details as its text) when it failed,
 * a system-out element saying what a passed check measured.
 */
#include "sim/cli/ci_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* @s with XML's special characters escaped; control characters XML 1.0
 * cannot hold become '?'. */
static void xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&apos;", f);
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			fputc('?', f);
		else
			fputc(c, f);
	}
}

int junit_write(const struct junit *j, const char *path, const char *suite, double time_s)
{
	size_t failures = 0, len = 0;
	char *text = NULL;
	FILE *f;
	int err;

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
	xml_text(f, suite);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
		j->n, failures, time_s);
	for (size_t i = 0; i < j->n; i++) {
		const struct junit_case *c = &j->cases[i];

		fputs("    <testcase classname=\"", f);
		xml_text(f, c->classname);
		fputs("\" name=\"", f);
		xml_text(f, c->name);
		fputs("\" time=\"0\">\n", f);
		if (c->failure) {
			fputs("      <failure message=\"", f);
			xml_text(f, c->failure);
			fputs("\" type=\"failure\">", f);
			xml_text(f, c->text ? c->text : c->failure);
			fputs("</failure>\n", f);
		} else if (c->text) {
			fputs("      <system-out>", f);
			xml_text(f, c->text);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	if (fclose(f) || !text) {
		free(text);
		return -ENOMEM;
	}
	err = ci_write_file(path, text, len);
	free(text);
	return err;
}

int ci_write_file(const char *path, const char *text, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp = malloc(strlen(path) + 16);
	mode_t mask = umask(0);
	int fd, err = 0;

	umask(mask);
	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)dlen, path, path + dlen);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (!err && fchmod(fd, 0666 & ~mask))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
