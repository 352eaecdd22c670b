/*
 * A split run's time series: each part samples its own switch ports (and
 * the flows whose requester it runs) into a file of its own, each row
 * after its port's or flow's index, each sample closed by a line "="
 * (series_restrict); process 0 merges the parts' files sample by sample,
 * rows in index order, which is the order one process writes them in.
 */
#include "sim/run/par_series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int par_series_read(FILE *f, struct par_buf *out)
{
	long size;

	if (!f)
		return 0;
	if (fflush(f) || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return -EIO;
	out->data = malloc(size ? (size_t)size : 1);
	if (!out->data)
		return -ENOMEM;
	out->len = out->cap = (size_t)size;
	if (size && fread(out->data, 1, (size_t)size, f) != (size_t)size)
		return -EIO;
	return 0;
}

/* The line at @at in @b, up to its newline (excluded); its length. */
static size_t line_len(const struct par_buf *b, size_t at)
{
	const char *nl = memchr(b->data + at, '\n', b->len - at);

	return nl ? (size_t)(nl - (b->data + at)) : b->len - at;
}

int par_series_merge(const struct par_buf *parts, uint32_t n, FILE *out, size_t tag)
{
	size_t *at = calloc(n, sizeof(*at));

	if (!at)
		return -ENOMEM;
	for (;;) {
		int more = 0;

		/* one sample: every part's rows up to its "=", by their index */
		for (;;) {
			uint32_t best = n;

			for (uint32_t r = 0; r < n; r++) {
				const struct par_buf *b = &parts[r];

				if (at[r] >= b->len || b->data[at[r]] == '=')
					continue;
				if (b->len - at[r] < tag + 1) {
					free(at);
					return -EIO;
				}
				if (best == n ||
				    memcmp(b->data + at[r], parts[best].data + at[best], tag) < 0)
					best = r;
			}
			if (best == n)
				break;
			{
				const struct par_buf *b = &parts[best];
				size_t len = line_len(b, at[best]);

				fwrite(b->data + at[best] + tag + 1, 1, len - tag - 1, out);
				fputc('\n', out);
				at[best] += len + 1;
			}
		}
		for (uint32_t r = 0; r < n; r++)
			if (at[r] < parts[r].len) {
				at[r] += line_len(&parts[r], at[r]) + 1; /* its "=" */
				more = 1;
			}
		if (!more)
			break;
	}
	free(at);
	return ferror(out) ? -EIO : 0;
}
