/* Flow files of HPCC's ns-3 simulation (see hpcc_flows.h). */
#include "sim/readers/hpcc_flows.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/engine/units.h"

#define HF_WORDS 6

/* A decimal number of digits only into @v (at most @max); -1 if not one. */
static int hf_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *e;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 10);
	return *e || errno || *v > max ? -1 : 0;
}

/* Words of @buf (modified) into @w; how many, HF_WORDS + 1 for more. */
static int hf_words(char *buf, char **w)
{
	char *q, *save = NULL;
	int n = 0;

	for (q = strtok_r(buf, " \t\r", &save); q; q = strtok_r(NULL, " \t\r", &save)) {
		if (n == HF_WORDS)
			return n + 1;
		w[n++] = q;
	}
	return n;
}

/* Flow line @w (@n words) into @f; -EINVAL with @d set. */
static int hf_flow(const char *path, int line, const char *key, char **w, int n,
		   struct hpcc_flow *f, struct diag *d)
{
	char t[64];
	uint64_t v;
	int err;

	if (n != HF_WORDS) {
		diag_set(
		    d, path, line, key,
		    "expected \"src dst pg dport size start_time\" (e.g. 2 1 3 100 200000000 2)");
		return -EINVAL;
	}
	for (int k = 0; k < 2; k++) {
		if (hf_uint(w[k], UINT32_MAX, &v)) {
			diag_set(d, path, line, key, "%s \"%s\" is not a node id",
				 k ? "dst" : "src", w[k]);
			return -EINVAL;
		}
		*(k ? &f->dst : &f->src) = (uint32_t)v;
	}
	if (f->src == f->dst) {
		diag_set(d, path, line, key, "a flow from node %" PRIu32 " to itself", f->src);
		return -EINVAL;
	}
	if (hf_uint(w[2], 7, &v)) {
		diag_set(d, path, line, key, "pg \"%s\" is not a priority group 0..7", w[2]);
		return -EINVAL;
	}
	f->pg = (uint8_t)v;
	if (hf_uint(w[3], UINT32_MAX, &v)) {
		diag_set(d, path, line, key, "dport \"%s\" is not a port number", w[3]);
		return -EINVAL;
	}
	if (hf_uint(w[4], UINT64_MAX, &f->bytes) || f->bytes == 0) {
		diag_set(d, path, line, key, "size \"%s\" is not a size in bytes above 0", w[4]);
		return -EINVAL;
	}
	snprintf(t, sizeof(t), "%ss", w[5]);
	err = strlen(w[5]) + 2 > sizeof(t) || w[5][0] == '-' ? UNITS_ESYNTAX
							     : units_time(t, &f->start);
	if (err) {
		diag_set(d, path, line, key,
			 "start_time \"%s\" is not a time in seconds (e.g. 2.000001)%s%s", w[5],
			 err == UNITS_ESYNTAX ? "" : ": ",
			 err == UNITS_ESYNTAX ? "" : units_strerror(err));
		return -EINVAL;
	}
	f->line = line;
	return 0;
}

void hpcc_flows_free(struct hpcc_flows *f)
{
	free(f->flows);
	memset(f, 0, sizeof(*f));
}

int hpcc_flows_parse(const char *path, const char *text, size_t len, const char *key,
		     struct hpcc_flows *f, struct diag *d)
{
	const char *p = text, *stop = text + len;
	uint64_t count = 0, room = 1;
	int line = 0, have_count = 0, n;
	simtime_t first = 0;
	char buf[512], *w[HF_WORDS];

	memset(f, 0, sizeof(*f));
	while (p < stop) {
		size_t l = 0;

		/* within @len: @text need not end in a NUL */
		while (p + l < stop && p[l] != '\n' && p[l] != '\0')
			l++;

		line++;
		if (l >= sizeof(buf)) {
			diag_set(d, path, line, key, "line too long");
			goto fail;
		}
		memcpy(buf, p, l);
		buf[l] = '\0';
		p += l + (p + l < stop);
		n = hf_words(buf, w);
		if (!n)
			continue;
		if (!have_count) {
			if (n != 1 || hf_uint(w[0], 1u << 26, &count)) {
				diag_set(d, path, line, key,
					 "expected the flow count on the first line (at most %u)",
					 1u << 26);
				goto fail;
			}
			have_count = 1;
			/* a flow a line: a count above the lines left is refused
			 * below, without an array of its size first */
			for (const char *q = p; q < stop && room < count; q++)
				room += *q == '\n' || *q == '\0';
			f->flows = calloc(room < count ? room
					  : count      ? count
						       : 1,
					  sizeof(*f->flows));
			if (!f->flows)
				return -ENOMEM;
			continue;
		}
		if (f->n == count)
			break; /* not read past the announced flows, as HPCC's third.cc
				* does not: its own flow.txt ends in a note */
		if (hf_flow(path, line, key, w, n, &f->flows[f->n], d))
			goto fail;
		if (!f->n || f->flows[f->n].start < first)
			first = f->flows[f->n].start;
		f->n++;
	}
	if (!have_count) {
		diag_set(d, path, 1, key, "empty: expected the flow count on the first line");
		goto fail;
	}
	if (f->n < count) {
		diag_set(d, path, line, key,
			 "the first line announces %" PRIu64 " flows, the file has %" PRIu32, count,
			 f->n);
		goto fail;
	}
	if (!f->n) {
		diag_set(d, path, line, key, "no flow");
		goto fail;
	}
	for (uint32_t i = 0; i < f->n; i++)
		f->flows[i].start -= first;
	return 0;
fail:
	hpcc_flows_free(f);
	return -EINVAL;
}

int hpcc_flows_read(const char *path, const char *key, struct hpcc_flows *f, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(f, 0, sizeof(*f));
	err = textfile_load(path, 0, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = hpcc_flows_parse(path, text, len, key, f, d);
	free(text);
	return err;
}
