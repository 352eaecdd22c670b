/* Diagnostics: the one-line error record of diag.h. */
#include "sim/engine/diag.h"

#include <stdarg.h>
#include <string.h>

static void copy(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "";
	snprintf(dst, size, "%s", src);
}

void diag_set(struct diag *d, const char *file, int line, const char *path,
	      const char *fmt, ...)
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

const char *diag_str(const struct diag *d, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (d->file[0] && d->line > 0)
		n += (size_t)snprintf(buf, size, "%s:%d: ", d->file, d->line);
	else if (d->file[0])
		n += (size_t)snprintf(buf, size, "%s: ", d->file);
	if (n < size && d->path[0])
		n += (size_t)snprintf(buf + n, size - n, "%s: ", d->path);
	if (n < size)
		snprintf(buf + n, size - n, "%s", d->msg);
	return buf;
}

void diag_print(const struct diag *d, FILE *f)
{
	char buf[1024];

	fprintf(f, "%s\n", diag_str(d, buf, sizeof(buf)));
}
