/* Diagnostics: the one-line error record of diag.h. */
#include "sim/engine/diag.h"

#include <stdarg.h>
#include <string.h>

#include "sim/engine/textsafe.h"

static void copy(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "";
	snprintf(dst, size, "%s", src);
}

void diag_set(struct diag *d, const char *file, int line, const char *path, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	copy(d->file, sizeof(d->file), file);
	copy(d->path, sizeof(d->path), path);
	d->line = line;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

/*
 * Append @s to @buf at *@n in its terminal form (textsafe.h): a value
 * quoted as written (a newline inside a YAML string, a raw byte in a file
 * name, an escape code in a name) cannot break the one-line form.
 */
static void put(char *buf, size_t size, size_t *n, const char *s)
{
	txt_term(buf + *n, size - *n, s);
	*n += strlen(buf + *n);
}

const char *diag_str(const struct diag *d, char *buf, size_t size)
{
	char line[16];
	size_t n = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	if (d->file[0]) {
		put(buf, size, &n, d->file);
		if (d->line > 0)
			snprintf(line, sizeof(line), ":%d", d->line);
		else
			line[0] = '\0';
		put(buf, size, &n, line);
		put(buf, size, &n, ": ");
	}
	if (d->path[0]) {
		put(buf, size, &n, d->path);
		put(buf, size, &n, ": ");
	}
	put(buf, size, &n, d->msg);
	return buf;
}

void diag_print(const struct diag *d, FILE *f)
{
	char buf[1024];

	fprintf(f, "%s\n", diag_str(d, buf, sizeof(buf)));
}
