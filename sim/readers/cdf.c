/* Flow-size CDF files (see cdf.h). */
#include "sim/readers/cdf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"

/* A number that ends at a space or the end of @s: *@end after it. */
static int number(const char *s, double *v, const char **end)
{
	char *e;

	*v = strtod(s, &e);
	if (e == s || !isfinite(*v) || (*e && *e != ' ' && *e != '\t'))
		return -1;
	*end = e;
	return 0;
}

int cdf_parse(const char *path, const char *text, size_t len, const char *key, struct wl_cdf *c,
	      struct diag *d)
{
	const char *p = text, *stop = text + len;
	uint32_t cap = 0;
	int line = 0, last_line = 1;
	char buf[128];

	memset(c, 0, sizeof(*c));
	while (p < stop) {
		size_t n = strcspn(p, "\n");
		const char *q = buf, *e;
		double size, pct;

		line++;
		if (n >= sizeof(buf)) {
			diag_set(d, path, line, key,
				 "line too long for \"size_bytes cumulative_percent\"");
			goto fail;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (n && buf[n - 1] == '\r')
			buf[n - 1] = '\0';
		p += n + (p + n < stop);
		q += strspn(q, " \t");
		if (!*q || *q == '#')
			continue;
		if (number(q, &size, &e) || (q = e + strspn(e, " \t"), number(q, &pct, &e)) ||
		    e[strspn(e, " \t")]) {
			diag_set(d, path, line, key,
				 "expected two numbers, \"size_bytes cumulative_percent\" (e.g. "
				 "10000 15)");
			goto fail;
		}
		if (size < 0 || pct < 0 || pct > 100) {
			diag_set(d, path, line, key, "%s %g is out of range (%s)",
				 size < 0 ? "size" : "percent", size < 0 ? size : pct,
				 size < 0 ? "bytes, 0 or more" : "0 to 100");
			goto fail;
		}
		if (c->n && size < c->size[c->n - 1]) {
			diag_set(d, path, line, key, "sizes decrease (%g after %g)", size,
				 c->size[c->n - 1]);
			goto fail;
		}
		if (c->n && pct / 100 < c->prob[c->n - 1]) {
			diag_set(d, path, line, key, "percents decrease (%g after %g)", pct,
				 c->prob[c->n - 1] * 100);
			goto fail;
		}
		if (!c->n && pct != 0) {
			diag_set(d, path, line, key,
				 "the first point is at %g %%, not 0 %% (e.g. \"0 0\")", pct);
			goto fail;
		}
		if (c->n == cap) {
			double *s2, *p2;

			cap = cap ? 2 * cap : 32;
			s2 = realloc(c->size, cap * sizeof(*s2));
			if (s2)
				c->size = s2;
			p2 = realloc(c->prob, cap * sizeof(*p2));
			if (p2)
				c->prob = p2;
			if (!s2 || !p2) {
				wl_cdf_free(c);
				return -ENOMEM;
			}
		}
		c->size[c->n] = size;
		c->prob[c->n++] = pct / 100;
		last_line = line;
	}
	if (!c->n) {
		diag_set(d, path, 1, key,
			 "no points: expected \"size_bytes cumulative_percent\" lines from 0 %% to "
			 "100 %%");
		goto fail;
	}
	if (c->prob[c->n - 1] != 1) {
		diag_set(d, path, last_line, key, "the last point is at %g %%, not 100 %%",
			 c->prob[c->n - 1] * 100);
		goto fail;
	}
	if (!(wl_cdf_mean(c) > 0)) {
		diag_set(d, path, last_line, key,
			 "every size is 0: the mean flow size must be above 0");
		goto fail;
	}
	return 0;
fail:
	wl_cdf_free(c);
	return -EINVAL;
}

int cdf_read(const char *path, const char *key, struct wl_cdf *c, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(c, 0, sizeof(*c));
	err = textfile_load(path, 0, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = cdf_parse(path, text, len, key, c, d);
	free(text);
	return err;
}
