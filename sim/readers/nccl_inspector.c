/*
 * NCCL Inspector's records (nccl_inspector.h): JSON objects one after the
 * other, each checked for the keys a comparison needs, with its line.
 */
#include "sim/readers/nccl_inspector.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"

struct ni_ctx {
	const char *file;
	int line;
	struct diag *d;
};

static int ni_fail(struct ni_ctx *c, const char *key, const char *what)
{
	diag_set(c->d, c->file, c->line, key, "%s", what);
	return -EINVAL;
}

/* @key of @o, a whole number of 0..@max, into *@v. */
static int ni_uint(struct ni_ctx *c, json_t *o, const char *obj, const char *key, uint64_t max,
		   uint64_t *v)
{
	json_t *j = json_object_get(o, key);
	char path[80];

	snprintf(path, sizeof(path), "%s.%s", obj, key);
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (uint64_t)json_integer_value(j) > max)
		return ni_fail(c, path, j ? "not a whole number in range" : "missing");
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

static int ni_num(struct ni_ctx *c, json_t *o, const char *key, double *v)
{
	json_t *j = json_object_get(o, key);
	char path[80];

	snprintf(path, sizeof(path), "coll_perf.%s", key);
	if (!json_is_number(j) || json_number_value(j) < 0)
		return ni_fail(c, path, j ? "not a number of 0 or more" : "missing");
	*v = json_number_value(j);
	return 0;
}

/* @key of @o, a string if given, into @buf; missing is "" unless @need. */
static int ni_str(struct ni_ctx *c, json_t *o, const char *obj, const char *key, int need,
		  char *buf, size_t size)
{
	json_t *j = json_object_get(o, key);
	char path[80];

	snprintf(path, sizeof(path), "%s.%s", obj, key);
	buf[0] = '\0';
	if (!j && !need)
		return 0;
	if (!json_is_string(j))
		return ni_fail(c, path, j ? "not a string" : "missing");
	if (strlen(json_string_value(j)) >= size)
		return ni_fail(c, path, "longer than rocesim keeps");
	memcpy(buf, json_string_value(j), strlen(json_string_value(j)) + 1);
	return 0;
}

static int ni_record(struct ni_ctx *c, json_t *rec, struct ni_record *r)
{
	json_t *h = json_object_get(rec, "header"), *m = json_object_get(rec, "metadata");
	json_t *p = json_object_get(rec, "coll_perf");
	uint64_t rank, n_ranks, nnodes = 0;
	int err;

	memset(r, 0, sizeof(*r));
	r->line = c->line;
	if (!json_is_object(rec))
		return ni_fail(c, "", "not a JSON object: not an NCCL Inspector record");
	if (!json_is_object(h) || !json_is_object(m) || !json_is_object(p))
		return ni_fail(c,
			       !json_is_object(h)   ? "header"
			       : !json_is_object(m) ? "metadata"
						    : "coll_perf",
			       "missing or not an object: not an NCCL Inspector record");
	if ((err = ni_str(c, h, "header", "id", 0, r->comm_id, sizeof(r->comm_id))) ||
	    (err = ni_uint(c, h, "header", "rank", 1 << 24, &rank)) ||
	    (err = ni_uint(c, h, "header", "n_ranks", 1 << 24, &n_ranks)) ||
	    (json_object_get(h, "nnodes") &&
	     (err = ni_uint(c, h, "header", "nnodes", 1 << 24, &nnodes))) ||
	    (err = ni_str(c, m, "metadata", "inspector_output_format_version", 0, r->version,
			  sizeof(r->version))) ||
	    (err = ni_str(c, m, "metadata", "hostname", 0, r->hostname, sizeof(r->hostname))) ||
	    (err = ni_str(c, p, "coll_perf", "coll", 1, r->coll, sizeof(r->coll))) ||
	    (err = ni_uint(c, p, "coll_perf", "coll_sn", UINT64_MAX, &r->coll_sn)) ||
	    (err = ni_uint(c, p, "coll_perf", "coll_msg_size_bytes", UINT64_MAX, &r->msg_bytes)) ||
	    (err = ni_num(c, p, "coll_exec_time_us", &r->exec_time_us)) ||
	    (err = ni_str(c, p, "coll_perf", "coll_timing_source", 0, r->timing_source,
			  sizeof(r->timing_source))) ||
	    (err = ni_num(c, p, "coll_algobw_gbs", &r->algbw)) ||
	    (err = ni_num(c, p, "coll_busbw_gbs", &r->busbw)))
		return err;
	if (rank >= n_ranks)
		return ni_fail(c, "header.rank", "not below header.n_ranks");
	r->rank = (int)rank;
	r->n_ranks = (int)n_ranks;
	r->nnodes = (int)nnodes;
	return 0;
}

static int ni_push(struct nccl_inspector *ni, size_t *cap, const struct ni_record *r,
		   struct ni_ctx *c)
{
	if (ni->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct ni_record *v = realloc(ni->v, ncap * sizeof(*v));

		if (!v) {
			diag_set(c->d, c->file, c->line, "", "out of memory");
			return -ENOMEM;
		}
		ni->v = v;
		*cap = ncap;
	}
	ni->v[ni->n++] = *r;
	return 0;
}

int nccl_inspector_parse(const char *text, size_t len, const char *file, struct nccl_inspector *out,
			 struct diag *d)
{
	struct ni_ctx c = {.file = file ? file : "", .line = 1, .d = d};
	size_t off = 0, cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->file, sizeof(out->file), "%s", c.file);
	if (memchr(text, '\0', len))
		return ni_fail(&c, "", "binary data (a NUL byte), not NCCL Inspector JSON");
	while (!err) {
		struct ni_record r;
		json_error_t je;
		json_t *rec;

		/* the blanks between records, counting lines */
		while (off < len && strchr(" \t\r\n", text[off]))
			c.line += text[off++] == '\n';
		if (off == len)
			break;
		rec = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
		if (!rec) {
			c.line += je.line > 1 ? je.line - 1 : 0;
			diag_set(d, c.file, c.line, "", "not JSON (%s): the file cut short?",
				 je.text);
			err = -EINVAL;
			break;
		}
		if (json_is_object(rec) && !json_object_get(rec, "coll_perf") &&
		    (json_object_get(rec, "p2p_perf") || json_object_get(rec, "dump_stats")))
			out->skipped++;
		else if (!(err = ni_record(&c, rec, &r)))
			err = ni_push(out, &cap, &r, &c);
		json_decref(rec);
		for (size_t i = 0; i < (size_t)je.position && off + i < len; i++)
			c.line += text[off + i] == '\n';
		off += (size_t)je.position;
	}
	if (!err && !out->n)
		err = ni_fail(&c, "", "no record: not NCCL Inspector output");
	if (err)
		nccl_inspector_free(out);
	return err;
}

int nccl_inspector_read(const char *path, struct nccl_inspector *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = textfile_load(path, 1, &text, &len, d)))
		return err;
	err = nccl_inspector_parse(text, len, path, out, d);
	free(text);
	return err;
}

void nccl_inspector_free(struct nccl_inspector *ni)
{
	free(ni->v);
	ni->v = NULL;
	ni->n = 0;
}
