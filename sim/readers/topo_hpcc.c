/*
 * Topology kind hpcc: the topology files of HPCC's ns-3 simulation
 * (alibaba-edu/High-Precision-Congestion-Control, simulation/mix/
 * topology.txt, read by simulation/scratch/third.cc), which SimAI's ns-3
 * reads too:
 *
 *   5 1 4                     node_num switch_num link_num
 *   4                         the switch ids
 *   0 4 100Gbps 0.001ms 0     src dst rate delay error_rate, a link a line
 *
 * third.cc reads the numbers as a stream and trusts them; here a count
 * the lines do not reach is refused, what follows the announced links is
 * not read (as third.cc does not), and every mistake names the file and
 * its line. Blank lines are skipped.
 */
#include "sim/readers/topo_read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/engine/units.h"

#define HPCC_WORDS 8 /* the most words a link line may hold and still be diagnosed */

/* The lines of a text, one at a time, blank lines skipped. */
struct hp_lines {
	const char *p, *stop;
	int line;
	char buf[512];
	char *w[HPCC_WORDS]; /* the words of the current line */
	int n;		     /* how many (HPCC_WORDS + 1: more) */
};

/* The next non-blank line into @ls->w; 0 at the end, -1 when too long. */
static int hp_next(struct hp_lines *ls)
{
	while (ls->p < ls->stop) {
		size_t n = 0;
		char *q, *save = NULL;

		/* within the text's length: it need not end in a NUL */
		while (ls->p + n < ls->stop && ls->p[n] != '\n' && ls->p[n] != '\0')
			n++;
		ls->line++;
		if (n >= sizeof(ls->buf))
			return -1;
		memcpy(ls->buf, ls->p, n);
		ls->buf[n] = '\0';
		ls->p += n + (ls->p + n < ls->stop);
		ls->n = 0;
		for (q = strtok_r(ls->buf, " \t\r", &save); q; q = strtok_r(NULL, " \t\r", &save)) {
			if (ls->n == HPCC_WORDS) {
				ls->n++;
				break;
			}
			ls->w[ls->n++] = q;
		}
		if (ls->n)
			return 1;
	}
	return 0;
}

/* A decimal count or id of 32 bits; -1 if @s is not one. */
static int hp_u32(const char *s, uint32_t *v)
{
	char *e;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &e, 10);
	if (*e || errno || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

void topo_hpcc_free(struct topo_hpcc *h)
{
	free(h->is_switch);
	free(h->links);
	memset(h, 0, sizeof(*h));
}

void topo_hpcc_name(const struct topo_hpcc *h, uint32_t id, char *buf)
{
	snprintf(buf, TOPO_NAME_MAX, "%c%" PRIu32, h->is_switch[id] ? 's' : 'h', id);
}

/* Link line @ls into @l; -EINVAL with @d set. */
static int hp_link(const char *file, const struct hp_lines *ls, const struct topo_hpcc *h,
		   struct topo_hpcc_link *l, struct diag *d)
{
	double er;
	char *e;
	int err;

	if (ls->n != 5) {
		diag_set(d, file, ls->line, "",
			 "expected \"src dst rate delay error_rate\" (e.g. 0 4 100Gbps 0.001ms 0)");
		return -EINVAL;
	}
	for (int k = 0; k < 2; k++) {
		uint32_t *id = k ? &l->b : &l->a;

		if (hp_u32(ls->w[k], id)) {
			diag_set(d, file, ls->line, "", "%s \"%s\" is not a node id",
				 k ? "dst" : "src", ls->w[k]);
			return -EINVAL;
		}
		if (*id >= h->n_nodes) {
			diag_set(d, file, ls->line, "",
				 "%s %" PRIu32 " is out of range (node ids 0..%" PRIu32 ")",
				 k ? "dst" : "src", *id, h->n_nodes - 1);
			return -EINVAL;
		}
	}
	if (l->a == l->b) {
		diag_set(d, file, ls->line, "", "link from node %" PRIu32 " to itself", l->a);
		return -EINVAL;
	}
	err = units_rate(ls->w[2], &l->rate_bps);
	if (err || l->rate_bps == 0) {
		int plain = !err || err == UNITS_ESYNTAX || err == UNITS_ENOUNIT;

		diag_set(d, file, ls->line, "", "rate \"%s\" is not a rate (e.g. 100Gbps)%s%s",
			 ls->w[2], plain ? "" : ": ", plain ? "" : units_strerror(err));
		return -EINVAL;
	}
	err = units_time(ls->w[3], &l->delay);
	if (err) {
		diag_set(d, file, ls->line, "", "delay \"%s\" is not a time (e.g. 0.001ms)%s%s",
			 ls->w[3], err == UNITS_ESYNTAX ? "" : ": ",
			 err == UNITS_ESYNTAX ? "" : units_strerror(err));
		return -EINVAL;
	}
	er = strtod(ls->w[4], &e);
	if (e == ls->w[4] || *e || !isfinite(er) || er < 0 || er > 1) {
		diag_set(d, file, ls->line, "", "error rate \"%s\" is not a number from 0 to 1",
			 ls->w[4]);
		return -EINVAL;
	}
	if (er != 0) {
		diag_set(d, file, ls->line, "",
			 "error rate %s: random packet loss is not modelled, only 0 is taken",
			 ls->w[4]);
		return -EINVAL;
	}
	l->line = ls->line;
	return 0;
}

/*
 * The next non-blank line as it stands in the text, however long: the
 * switch ids' line holds one id a switch (56 in HPCC's own fat.txt, more in
 * larger fabrics). 1 with @*line and @*len set, 0 at the end.
 */
static int hp_next_raw(struct hp_lines *ls, const char **line, size_t *len)
{
	while (ls->p < ls->stop) {
		const char *s = ls->p;
		size_t n = 0, blank = 0;

		for (; s + n < ls->stop && s[n] != '\n' && s[n] != '\0'; n++)
			blank += s[n] == ' ' || s[n] == '\t' || s[n] == '\r';
		ls->line++;
		ls->p += n + (s + n < ls->stop);
		if (blank < n) {
			*line = s;
			*len = n;
			return 1;
		}
	}
	return 0;
}

/* The next word of @s (@n bytes) from *@at: its start and length; 0 when none is left. */
static size_t hp_word(const char *s, size_t n, size_t *at, const char **w)
{
	size_t k;

	while (*at < n && (s[*at] == ' ' || s[*at] == '\t' || s[*at] == '\r'))
		(*at)++;
	*w = s + *at;
	for (k = 0; *at < n && s[*at] != ' ' && s[*at] != '\t' && s[*at] != '\r'; k++)
		(*at)++;
	return k;
}

/* The switch ids' line (@s, @n bytes), @n_sw ids, into @h->is_switch. */
static int hp_switch_ids(const char *file, int line, const char *s, size_t n, uint32_t n_sw,
			 struct topo_hpcc *h, struct diag *d)
{
	uint32_t count = 0, id, k = 0;
	size_t at = 0, wn;
	const char *w;
	char word[24];
	uint32_t *seen_at;

	while (hp_word(s, n, &at, &w))
		count++;
	if (count != n_sw) {
		diag_set(d, file, line, "",
			 "line 1 announces %" PRIu32 " switches, this line lists %" PRIu32 " ids",
			 n_sw, count);
		return -EINVAL;
	}
	seen_at = calloc(h->n_nodes, sizeof(*seen_at));
	if (!seen_at)
		return -ENOMEM;
	for (at = 0; (wn = hp_word(s, n, &at, &w)); k++) {
		snprintf(word, sizeof(word), "%.*s%s", wn < 20 ? (int)wn : 20, w,
			 wn < 20 ? "" : "...");
		if (wn >= 20 || hp_u32(word, &id)) {
			diag_set(d, file, line, "", "switch id \"%s\" is not a node id", word);
			goto fail;
		}
		if (id >= h->n_nodes) {
			diag_set(d, file, line, "",
				 "switch id %" PRIu32 " is out of range (node ids 0..%" PRIu32 ")",
				 id, h->n_nodes - 1);
			goto fail;
		}
		if (h->is_switch[id]) {
			diag_set(d, file, line, "",
				 "switch id %" PRIu32 " is listed twice (ids %" PRIu32
				 " and %" PRIu32 " of the line)",
				 id, seen_at[id] + 1, k + 1);
			goto fail;
		}
		h->is_switch[id] = 1;
		seen_at[id] = k;
	}
	free(seen_at);
	return 0;
fail:
	free(seen_at);
	return -EINVAL;
}

/* The first line's counts and the switch ids. */
static int hp_head(const char *file, struct hp_lines *ls, struct topo_hpcc *h, uint32_t *n_links,
		   struct diag *d)
{
	const char *line;
	size_t len;
	uint32_t n_sw;
	int err;

	if (hp_next(ls) <= 0 || ls->n != 3 || hp_u32(ls->w[0], &h->n_nodes) ||
	    hp_u32(ls->w[1], &n_sw) || hp_u32(ls->w[2], n_links)) {
		diag_set(d, file, ls->line ? ls->line : 1, "",
			 "expected \"node_num switch_num link_num\" (e.g. 5 1 4)");
		return -EINVAL;
	}
	if (h->n_nodes > TOPO_MAX_ELEMS || *n_links > TOPO_MAX_ELEMS) {
		diag_set(d, file, ls->line, "", "more than %u nodes or links", TOPO_MAX_ELEMS);
		return -EINVAL;
	}
	if (n_sw >= h->n_nodes) {
		diag_set(d, file, ls->line, "",
			 "%" PRIu32 " switches of %" PRIu32 " nodes leave no host", n_sw,
			 h->n_nodes);
		return -EINVAL;
	}
	h->is_switch = calloc(h->n_nodes, 1);
	if (!h->is_switch)
		return -ENOMEM;
	if (n_sw && !hp_next_raw(ls, &line, &len)) {
		diag_set(d, file, ls->line, "",
			 "line 1 announces %" PRIu32 " switches: expected "
			 "their ids on the next line",
			 n_sw);
		return -EINVAL;
	}
	if (n_sw && (err = hp_switch_ids(file, ls->line, line, len, n_sw, h, d)))
		return err;
	h->n_switches = n_sw;
	return 0;
}

/*
 * Every host has exactly one link (its NIC's one port), as run, check and
 * import all take it: the first line of a second link to a host, or line
 * 1 for a host without one. 0 or -EINVAL (said), -ENOMEM.
 */
static int hp_hosts(const char *file, const struct topo_hpcc *h, struct diag *d)
{
	int *first = calloc(h->n_nodes ? h->n_nodes : 1, sizeof(*first));
	int err = 0;

	if (!first)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->n_links && !err; i++) {
		const struct topo_hpcc_link *l = &h->links[i];
		const uint32_t ends[2] = {l->a, l->b};

		for (int e = 0; e < 2 && !err; e++) {
			uint32_t n = ends[e];

			if (h->is_switch[n])
				continue;
			if (first[n]) {
				diag_set(
				    d, file, l->line, "",
				    "host %" PRIu32 " has a second link (its first on line %d): "
				    "a host is one NIC port with one link (a server of several "
				    "NICs is written as a topology file, kind: file)",
				    n, first[n]);
				err = -EINVAL;
			}
			first[n] = l->line;
		}
	}
	for (uint32_t n = 0; n < h->n_nodes && !err; n++)
		if (!h->is_switch[n] && !first[n]) {
			diag_set(d, file, 1, "", "host %" PRIu32 " has no link", n);
			err = -EINVAL;
		}
	free(first);
	return err;
}

int topo_hpcc_parse(const char *file, const char *text, size_t len, struct topo_hpcc *h,
		    struct diag *d)
{
	struct hp_lines ls = {.p = text, .stop = text + len};
	uint32_t n_links = 0;
	int err, more = 0;

	memset(h, 0, sizeof(*h));
	err = hp_head(file, &ls, h, &n_links, d);
	if (err)
		goto fail;
	h->links = calloc(n_links ? n_links : 1, sizeof(*h->links));
	if (!h->links) {
		err = -ENOMEM;
		goto fail;
	}
	err = -EINVAL;
	/* the announced links and no more: what follows them is not read, as
	 * third.cc reads no more (HPCC's own files end in notes) */
	while (h->n_links < n_links && (more = hp_next(&ls)) > 0) {
		if (hp_link(file, &ls, h, &h->links[h->n_links], d))
			goto fail;
		h->n_links++;
	}
	if (more < 0) {
		diag_set(d, file, ls.line, "", "line too long");
		goto fail;
	}
	if (h->n_links < n_links) {
		diag_set(d, file, ls.line ? ls.line : 1, "",
			 "line 1 announces %" PRIu32 " links, the file has %" PRIu32, n_links,
			 h->n_links);
		goto fail;
	}
	if ((err = hp_hosts(file, h, d)))
		goto fail;
	return 0;
fail:
	topo_hpcc_free(h);
	return err;
}

int topo_hpcc_read(const char *file, struct topo_hpcc *h, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(h, 0, sizeof(*h));
	err = textfile_load(file, 0, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = topo_hpcc_parse(file, text, len, h, d);
	free(text);
	return err;
}

/* Add the nodes and links of @h to @t; -EINVAL names the line at fault. */
static int hp_build(const char *file, const struct topo_hpcc *h, struct topo *t, struct diag *d)
{
	char name[TOPO_NAME_MAX];
	int32_t r;

	for (uint32_t i = 0; i < h->n_nodes; i++) {
		topo_hpcc_name(h, i, name);
		r = topo_add_node(t, name, h->is_switch[i] ? TOPO_SWITCH : TOPO_HOST);
		if (r < 0)
			return (int)r;
	}
	for (uint32_t i = 0; i < h->n_links; i++) {
		const struct topo_hpcc_link *l = &h->links[i];
		struct topo_linkspec ls = {.rate_bps = l->rate_bps, .delay = l->delay};

		r = topo_add_link(t, l->a, l->b, &ls);
		if (r == -ENOMEM)
			return -ENOMEM;
		if (r < 0) {
			diag_set(d, file, l->line, "",
				 "node %" PRIu32 " or %" PRIu32 " would have more than %u ports",
				 l->a, l->b, TOPO_MAX_PORTS);
			return -EINVAL;
		}
	}
	return 0; /* every host has one link: hp_hosts */
}

int topo_hpcc_load(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	const char *file = spec->file;
	struct topo_hpcc h;
	struct topo *t = NULL;
	char *text = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = topo_read_spec_file(spec, "hpcc", &text, &len, d)))
		return err;
	err = topo_hpcc_parse(file, text, len, &h, d);
	free(text);
	if (err)
		return err;
	t = topo_new();
	err = t ? hp_build(file, &h, t, d) : -ENOMEM;
	if (!err) {
		err = topo_finish(t, d);
		if (err && d)
			snprintf(d->file, sizeof(d->file), "%s", file);
	}
	if (err == -ENOMEM)
		diag_set(d, file, 0, "", "out of memory");
	topo_hpcc_free(&h);
	if (err) {
		topo_free(t);
		return err;
	}
	*out = t;
	return 0;
}
