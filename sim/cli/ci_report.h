/*
 * Reports for CI systems: JUnit XML (the layout Jenkins, GitLab and the
 * GitHub test-report actions read: testsuites > testsuite > testcase, a
 * failed case holding a failure), and the atomic write every report file
 * of the command line goes through.
 */
#ifndef ROCESIM_CI_REPORT_H
#define ROCESIM_CI_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* One testcase; strings owned by the report. */
struct junit_case {
	char *classname, *name;
	char *failure; /* the failure's message, or NULL: the case passed */
	char *text;    /* the failure's body, or what a passed case says (system-out) */
};

/* A JUnit report of one testsuite, built case by case. */
struct junit {
	struct junit_case *cases;
	size_t n;
	int oom; /* an add failed: junit_write says so */
};

/*
 * Add a testcase (the strings are copied; @failure NULL for a pass, @text
 * may be NULL). An allocation that fails is remembered in @j->oom.
 */
void junit_add(struct junit *j, const char *classname, const char *name, const char *failure,
	       const char *text);
/*
 * Write @j as the testsuite @suite (its run took @time_s seconds) to
 * @path, atomically. 0 or a negative errno (-ENOMEM after a failed add).
 */
int junit_write(const struct junit *j, const char *path, const char *suite, double time_s);
void junit_free(struct junit *j);

/*
 * Write @len bytes of @text to @path atomically: a temporary beside it
 * (.NAME.XXXXXX) renamed into place once complete. 0 or a negative errno.
 */
int ci_write_file(const char *path, const char *text, size_t len);

/*
 * Close @f, an open_memstream over *@text and *@len, and write what it
 * holds to @path as ci_write_file does; *@text is freed. 0, -ENOMEM (the
 * stream failed), or ci_write_file's error.
 */
int ci_write_memstream(const char *path, FILE *f, char **text, const size_t *len);

/* A Markdown table cell ("| text "): @s in its terminal form (one line, no
 * control character), '|' escaped. */
void ci_md_cell(FILE *f, const char *s);

#endif
