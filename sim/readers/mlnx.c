/*
 * mlnx: readers for two NVIDIA/Mellanox host configs (mlnx.h): the text
 * `mlnx_qos -i IF` prints (mlnx-tools' mlnx_qos) and the mlx5 DCQCN cc_params, as a
 * copied debugfs folder or as `grep . cc_params/[a-z]*` lines.
 *
 * Both read text line by line, as people paste it: leading and trailing
 * blanks, tabs and CR/LF endings do not matter, lines that are not known are
 * skipped. What is known is checked hard: a value that is not a number, a
 * row that is not eight values, a dscp2prio line cut short, or bytes that
 * are not text are errors naming the file and the line, so a truncated copy
 * is refused instead of read as a different configuration.
 *
 * This file reads mlnx_qos and holds the text helpers both use;
 * cc_params.c reads cc_params.
 */
#include "sim/readers/mlnx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx_impl.h"
#include "sim/engine/textfile.h"

/* a message quotes at most this much of the offending line */
#define QUOTE_MAX 72

/* ---- shared helpers ---- */

int mlnx__is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

int mlnx__words(char *s, char **w, int max)
{
	int n = 0;

	for (;;) {
		while (mlnx__is_blank((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && !mlnx__is_blank((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static const char *skip_blanks(const char *s)
{
	while (mlnx__is_blank((unsigned char)*s))
		s++;
	return s;
}

/* Trim blanks at both ends of @s in place; returns the new start. */
char *mlnx__trim(char *s)
{
	size_t n;

	s = (char *)skip_blanks(s);
	n = strlen(s);
	while (n && mlnx__is_blank((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/*
 * If @s starts with the keyword @kw, the rest of @s after it, else NULL.
 * Letters compare without case and a space in @kw matches any run of
 * blanks, so "Priority  trust\tstate:" is "Priority trust state:".
 */
static const char *skip_kw(const char *s, const char *kw)
{
	while (*kw) {
		if (*kw == ' ') {
			if (!mlnx__is_blank((unsigned char)*s))
				return NULL;
			s = skip_blanks(s);
			kw++;
			continue;
		}
		if (lower((unsigned char)*s) != lower((unsigned char)*kw))
			return NULL;
		s++;
		kw++;
	}
	return s;
}

/*
 * A whole number at *@s: the count of digits read (0: none) and *@s moved
 * past them. Saturates at 10^12, far above any value read here, so a long
 * run of digits is "out of range", never an overflow.
 */
static int read_num(const char **s, unsigned long long *v)
{
	const char *p = *s;
	int n = 0;

	*v = 0;
	while (is_digit((unsigned char)*p)) {
		if (*v < 1000000000000ULL)
			*v = *v * 10 + (unsigned long long)(*p - '0');
		p++;
		n++;
	}
	*s = p;
	return n;
}

/*
 * @s as a message can quote it: at most QUOTE_MAX characters (then "..."),
 * bytes that are not printable ASCII as \xNN. Returns @buf.
 */
const char *mlnx__quote(char *buf, size_t size, const char *s, size_t len)
{
	size_t o = 0, i;

	for (i = 0; i < len && s[i] && i < QUOTE_MAX && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (i < len && s[i] && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* The word at @s (up to a blank, comma or the end), quoted. */
static const char *quote_word(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	while (s[n] && !mlnx__is_blank((unsigned char)s[n]) && s[n] != ',')
		n++;
	return mlnx__quote(buf, size, s, n ? n : strlen(s));
}

/*
 * The first byte of @s[0..@len) that has no place in a text file (a control
 * character other than tab, vertical tab, form feed and CR, NUL included),
 * or -1.
 */
int mlnx__find_binary(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t' && c != '\v' && c != '\f' && c != '\r') || c == 0x7f)
			return c;
	}
	return -1;
}

/* A NUL-terminated copy of @len bytes of @text that the line splitter may cut. */
char *mlnx__text_copy(const char *text, size_t len, const char *file, struct diag *d)
{
	char *buf = malloc(len + 1);

	if (!buf) {
		diag_set(d, file, 0, "", "out of memory");
		return NULL;
	}
	if (len)
		memcpy(buf, text, len);
	buf[len] = '\0';
	return buf;
}

void lines_init(struct lines *ls, char *buf, size_t len)
{
	ls->p = buf;
	ls->end = buf + len;
	ls->no = 0;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		ls->p += 3;
}

char *lines_next(struct lines *ls, size_t *len)
{
	char *s = ls->p, *nl;
	size_t n;

	if (s >= ls->end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(ls->end - s));
	n = nl ? (size_t)(nl - s) : (size_t)(ls->end - s);
	ls->p = s + n + 1;
	s[n] = '\0'; /* the '\n', or the buffer's terminating NUL */
	if (n && s[n - 1] == '\r')
		s[--n] = '\0';
	ls->no++;
	*len = n;
	return s;
}

/* ---- mlnx_qos ---- */

enum qos_section { QOS_NONE, QOS_DSCP, QOS_DEFAULT_PRIO, QOS_PFC, QOS_TC };

struct qos_parser {
	struct mlnx_qos *q;
	struct diag *d;
	const char *file;
	int line;	  /* the line being read */
	const char *text; /* its text, trimmed */
	enum qos_section sec;
	int seen; /* a known section was met: this is mlnx_qos output */
	int prio; /* dscp2prio: the prio of the last prio: line, or -1 */
	int tc;	  /* the tc block being read, or -1 */
	int dscp_hdr_line, rx_line, buf_row_line, prio_row_line, cable_line;
	int prio_tc_line[8]; /* the line that put priority p in a tc */
};

/* Fill the diag for the current line under @path ("dscp2prio", ...); -EINVAL. */
static int qos_fail(struct qos_parser *qp, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int qos_fail(struct qos_parser *qp, const char *path, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(qp->d, qp->file, qp->line, path, "%s", msg);
	return -EINVAL;
}

/* A section met a second time: one mlnx_qos output per file. */
static int qos_again(struct qos_parser *qp, const char *path, int first)
{
	return qos_fail(qp, path, "given twice (first on line %d): one mlnx_qos output per file",
			first);
}

/* "Priority trust state: dscp" */
static int qos_trust(struct qos_parser *qp, const char *s)
{
	const char *path = "Priority trust state";
	char w[100];
	const char *e;

	if (qp->q->has_trust)
		return qos_again(qp, path, qp->q->trust_line);
	s = skip_blanks(s);
	if ((e = skip_kw(s, "dscp")) && !*skip_blanks(e))
		qp->q->trust_dscp = 1;
	else if ((e = skip_kw(s, "pcp")) && !*skip_blanks(e))
		qp->q->trust_dscp = 0;
	else if ((e = skip_kw(s, "none")) && !*skip_blanks(e))
		qp->q->trust_none = 1; /* after "... is not supported on your system" */
	else
		return qos_fail(qp, path, "\"%s\" is neither dscp, pcp nor none",
				mlnx__quote(w, sizeof(w), s, strlen(s)));
	qp->q->has_trust = 1;
	qp->q->trust_line = qp->line;
	return 0;
}

/*
 * The DSCP list of a dscp2prio line for prio @prio: "07,06,05,04,"; every
 * value is followed by a comma, so a list that ends in a bare number was
 * cut short (mlnx_qos prints "%02d," per DSCP).
 */
static int qos_dscp_list(struct qos_parser *qp, int prio, const char *s)
{
	const char *path = "dscp2prio";
	struct mlnx_qos *q = qp->q;
	unsigned long long v;
	char w[100], l[100];

	for (;;) {
		const char *start;

		s = skip_blanks(s);
		if (!*s)
			return 0;
		start = s;
		if (*s == ',')
			return qos_fail(qp, path, "an empty DSCP between two commas");
		if (!read_num(&s, &v))
			return qos_fail(qp, path, "\"%s\" is not a DSCP (a number 0-63)",
					quote_word(w, sizeof(w), start));
		if (*s && *s != ',' && !mlnx__is_blank((unsigned char)*s))
			return qos_fail(qp, path, "\"%s\" is not a DSCP (a number 0-63)",
					quote_word(w, sizeof(w), start));
		if (v > 63)
			return qos_fail(qp, path, "DSCP %llu is out of range (0-63)", v);
		s = skip_blanks(s);
		if (!*s)
			return qos_fail(qp, path,
					"\"%s\" is cut short: \"%s\" has no comma after it "
					"(mlnx_qos ends every DSCP with one)",
					mlnx__quote(l, sizeof(l), qp->text, strlen(qp->text)),
					quote_word(w, sizeof(w), start));
		if (*s != ',')
			return qos_fail(qp, path, "no comma after DSCP %llu, before \"%s\"", v,
					quote_word(w, sizeof(w), s));
		s++;
		if ((q->dscp_given >> v) & 1)
			return qos_fail(qp, path,
					"DSCP %llu is mapped twice (to prio %d on line %d)", v,
					q->dscp2prio[v], q->dscp_line[v]);
		q->dscp_given |= 1ULL << v;
		q->dscp2prio[v] = (uint8_t)prio;
		q->dscp_line[v] = qp->line;
	}
}

/* "prio:3 dscp:31,30,29,28,27,26,25,24," (@s is past "prio:") */
static int qos_prio_line(struct qos_parser *qp, const char *s)
{
	const char *path = "dscp2prio";
	unsigned long long v;
	const char *start, *list;
	char w[100], l[100];

	qp->seen = 1;
	qp->sec = QOS_DSCP;
	start = s = skip_blanks(s);
	if (!read_num(&s, &v)) {
		if (!*start)
			return qos_fail(qp, path, "\"%s\" is cut short: no prio number",
					mlnx__quote(l, sizeof(l), qp->text, strlen(qp->text)));
		return qos_fail(qp, path, "prio \"%s\" is not a number",
				quote_word(w, sizeof(w), start));
	}
	if (*s && !mlnx__is_blank((unsigned char)*s))
		return qos_fail(qp, path, "prio \"%s\" is not a number",
				quote_word(w, sizeof(w), start));
	if (v > 7)
		return qos_fail(qp, path, "prio %llu is out of range (0-7)", v);
	s = skip_blanks(s);
	list = skip_kw(s, "dscp:");
	if (!list) {
		if (!*s || skip_kw("dscp:", s))
			return qos_fail(qp, path, "\"%s\" is cut short: no dscp: list",
					mlnx__quote(l, sizeof(l), qp->text, strlen(qp->text)));
		return qos_fail(qp, path, "\"%s\" where \"dscp:\" should follow prio:%llu",
				quote_word(w, sizeof(w), s), v);
	}
	qp->prio = (int)v;
	return qos_dscp_list(qp, (int)v, list);
}

/* Does @s start a "name=value" field ("total_size=1027728")? */
static int is_field(const char *s)
{
	while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')
		s++;
	return *s == '=';
}

/*
 * Up to @max numbers at @s, separated by blanks or commas (a trailing comma
 * is fine); each at most @vmax. Stops at a "name=value" field (the receive
 * buffer line ends in total_size=N, or max_buffer_size=N in older
 * versions: not per priority). The count read, or -EINVAL with the diag
 * set for a word that is not a number or a value out of range.
 */
static int qos_numbers(struct qos_parser *qp, const char *path, const char *s,
		       unsigned long long *out, int max, unsigned long long vmax)
{
	unsigned long long v;
	int n = 0;
	char w[100];

	for (;;) {
		const char *start;

		while (mlnx__is_blank((unsigned char)*s) || *s == ',')
			s++;
		if (!*s || is_field(s))
			return n;
		start = s;
		if (!read_num(&s, &v) || (*s && *s != ',' && !mlnx__is_blank((unsigned char)*s)))
			return qos_fail(qp, path, "\"%s\" is not a number",
					quote_word(w, sizeof(w), start));
		if (v > vmax)
			return qos_fail(qp, path, "%llu is out of range (0-%llu)", v, vmax);
		if (n < max)
			out[n] = v;
		n++;
	}
}

/* "Receive buffer size (bytes): 20016,156096,0,0,0,0,0,0,total_size=1027728"; older
 * versions end in max_buffer_size=N, or in the comma (sizes read from sysfs) */
static int qos_rx_buffer(struct qos_parser *qp, const char *s)
{
	const char *path = "Receive buffer size";
	unsigned long long v[8];
	int n;

	qp->seen = 1;
	qp->sec = QOS_NONE;
	if (qp->rx_line)
		return qos_again(qp, path, qp->rx_line);
	n = qos_numbers(qp, path, s, v, 8, UINT32_MAX);
	if (n < 0)
		return n;
	if (n != 8)
		return qos_fail(qp, path, "%d sizes where mlnx_qos prints 8 (bytes per buffer)", n);
	for (int i = 0; i < 8; i++)
		qp->q->rx_buffer[i] = (uint32_t)v[i];
	qp->q->has_buffer = 1;
	for (const char *f = s; (f = strchr(f, '=')); f++) {
		const char *t = f + 1;
		unsigned long long total;

		/* the total, whatever the version calls it; other fields are not modelled */
		if ((f - s >= 10 && !strncmp(f - 10, "total_size", 10)) ||
		    (f - s >= 15 && !strncmp(f - 15, "max_buffer_size", 15))) {
			if (!read_num(&t, &total) || *skip_blanks(t))
				return qos_fail(qp, path, "\"%s\" is not a size in bytes",
						quote_word((char[100]){0}, 100, f + 1));
			qp->q->rx_total = total;
		}
	}
	qp->rx_line = qp->line;
	qp->q->rx_line = qp->line;
	return 0;
}

/* "Cable len: 7" */
static int qos_cable(struct qos_parser *qp, const char *s)
{
	const char *path = "Cable len";
	unsigned long long v;
	const char *start;
	char w[100];

	qp->seen = 1;
	qp->sec = QOS_NONE;
	if (qp->cable_line)
		return qos_again(qp, path, qp->cable_line);
	start = s = skip_blanks(s);
	if (!read_num(&s, &v) || *skip_blanks(s))
		return qos_fail(qp, path, "\"%s\" is not a number of metres",
				mlnx__quote(w, sizeof(w), start, strlen(start)));
	if (v > 100000)
		return qos_fail(qp, path, "%llu m is out of range (0-100000)", v);
	qp->q->has_cable = 1;
	qp->q->cable_len = (int)v;
	qp->cable_line = qp->line;
	qp->q->cable_line = qp->line;
	return 0;
}

/*
 * A row of the PFC table: "priority 0 1 ... 7", "enabled 0 0 0 1 0 0 0 0"
 * or "buffer 0 0 0 1 0 0 0 0": exactly eight values, one per priority.
 */
static int qos_pfc_row(struct qos_parser *qp, const char *row, const char *s)
{
	const char *path = "PFC configuration";
	unsigned long long v[8];
	struct mlnx_qos *q = qp->q;
	int n;

	if (!strcmp(row, "priority")) {
		if (qp->prio_row_line)
			return qos_again(qp, path, qp->prio_row_line);
		n = qos_numbers(qp, path, s, v, 8, 7);
		if (n < 0)
			return n;
		for (int i = 0; i < 8; i++) {
			if (n != 8 || v[i] != (unsigned long long)i)
				return qos_fail(qp, path,
						"the priority row should be 0 1 2 3 4 5 6 7 (the "
						"columns of the rows below)");
		}
		qp->prio_row_line = qp->line;
		return 0;
	}
	if (!strcmp(row, "enabled")) {
		if (q->has_pfc)
			return qos_again(qp, path, q->pfc_line);
		n = qos_numbers(qp, path, s, v, 8, 1);
		if (n < 0)
			return n;
		if (n != 8)
			return qos_fail(
			    qp, path, "the enabled row has %d values, not 8 (0 or 1 per priority)",
			    n);
		q->pfc_enabled = 0;
		for (int i = 0; i < 8; i++)
			q->pfc_enabled |= (uint8_t)(v[i] << i);
		q->has_pfc = 1;
		q->pfc_line = qp->line;
		return 0;
	}
	/* buffer */
	if (qp->buf_row_line)
		return qos_again(qp, path, qp->buf_row_line);
	n = qos_numbers(qp, path, s, v, 8, 7);
	if (n < 0)
		return n;
	if (n != 8)
		return qos_fail(
		    qp, path, "the buffer row has %d values, not 8 (a buffer 0-7 per priority)", n);
	for (int i = 0; i < 8; i++)
		q->prio_buffer[i] = (uint8_t)v[i];
	q->has_buffer = 1;
	qp->buf_row_line = qp->line;
	q->prio_buffer_line = qp->line;
	return 0;
}

/*
 * The rate limit of a tc line, at @s past "ratelimit:": "unlimited," or
 * "150.0 Gbps," (mlnx_qos prints the kernel's maxrate, kbit/s, as "%.1f
 * Gbps"), into *@bps (0: unlimited). 0 or -EINVAL with the diag set.
 */
static int qos_ratelimit(struct qos_parser *qp, const char *path, const char *s, uint64_t *bps)
{
	unsigned long long whole, frac = 0, scale = 1000000000ULL;
	const char *start = s = skip_blanks(s), *e;
	char w[100];

	*bps = 0;
	if ((e = skip_kw(s, "unlimited")) &&
	    (!*e || *e == ',' || mlnx__is_blank((unsigned char)*e)))
		return 0;
	if (!read_num(&s, &whole))
		return qos_fail(qp, path,
				"ratelimit \"%s\" is neither unlimited nor a rate in Gbps",
				quote_word(w, sizeof(w), start));
	if (*s == '.') {
		s++;
		if (!is_digit((unsigned char)*s))
			return qos_fail(qp, path, "ratelimit \"%s\" is not a rate in Gbps",
					quote_word(w, sizeof(w), start));
		for (; is_digit((unsigned char)*s); s++) {
			if (scale >= 10) {
				scale /= 10;
				frac += (unsigned long long)(*s - '0') * scale;
			}
		}
	}
	e = skip_kw(skip_blanks(s), "Gbps");
	if (!e || (*e && *e != ',' && !mlnx__is_blank((unsigned char)*e)))
		return qos_fail(qp, path, "ratelimit \"%s\" is not a rate in Gbps (\"150.0 Gbps\")",
				quote_word(w, sizeof(w), start));
	if (whole > 100000)
		return qos_fail(qp, path, "ratelimit %llu Gbps is out of range (at most 100000)",
				whole);
	*bps = whole * 1000000000ULL + frac;
	return 0;
}

/* "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%" (@s is past "tc:") */
static int qos_tc(struct qos_parser *qp, const char *s)
{
	static const char *const tsas[] = {"ets", "strict", "vendor"};
	struct mlnx_qos *q = qp->q;
	unsigned long long tc, bw = 0;
	const char *start, *t, *b;
	char path[16], w[100];
	size_t i;

	qp->seen = 1;
	qp->sec = QOS_TC;
	qp->tc = -1;
	start = s = skip_blanks(s);
	if (!read_num(&s, &tc) || (*s && !mlnx__is_blank((unsigned char)*s)))
		return qos_fail(qp, "tc", "\"%s\" is not a traffic class number",
				quote_word(w, sizeof(w), start));
	if (tc > 7)
		return qos_fail(qp, "tc", "tc %llu is out of range (0-7)", tc);
	snprintf(path, sizeof(path), "tc %llu", tc);
	if (q->tsa[tc][0])
		return qos_again(qp, path, q->tc_line[tc]);
	t = strstr(s, "ratelimit:");
	if (t && (t = skip_blanks(t + 10)) && qos_ratelimit(qp, path, t, &q->ratelimit[tc]))
		return -EINVAL;
	t = strstr(s, "tsa:");
	if (!t)
		return qos_fail(qp, path, "no \"tsa:\" (ets, strict, vendor or unknown)");
	t = skip_blanks(t + 4);
	for (i = 0; i < sizeof(tsas) / sizeof(tsas[0]); i++) {
		const char *e = skip_kw(t, tsas[i]);

		if (e && (!*e || *e == ',' || mlnx__is_blank((unsigned char)*e)))
			break;
	}
	/* mlnx_qos prints "unknown" for another algorithm (the credit-based
	 * shaper), and nothing after "tsa: " when it could not read it */
	if (i == sizeof(tsas) / sizeof(tsas[0]) && *t && !skip_kw(t, "unknown"))
		return qos_fail(qp, path, "tsa \"%s\" is not ets, strict, vendor or unknown",
				quote_word(w, sizeof(w), t));
	if (i < sizeof(tsas) / sizeof(tsas[0]) && !strcmp(tsas[i], "ets")) {
		b = strstr(t, "bw:");
		if (!b)
			return qos_fail(qp, path, "tsa ets without \"bw: N%%\"");
		start = b = skip_blanks(b + 3);
		if (!read_num(&b, &bw) ||
		    (*b && *b != '%' && *b != ',' && !mlnx__is_blank((unsigned char)*b)))
			return qos_fail(qp, path, "bw \"%s\" is not a percentage",
					quote_word(w, sizeof(w), start));
		if (bw > 100)
			return qos_fail(qp, path, "bw %llu%% is out of range (0-100)", bw);
	}
	snprintf(q->tsa[tc], sizeof(q->tsa[tc]), "%s",
		 i < sizeof(tsas) / sizeof(tsas[0]) ? tsas[i] : "unknown");
	q->bw[tc] = (uint8_t)bw;
	q->tc_line[tc] = qp->line;
	q->has_tc = 1;
	qp->tc = (int)tc;
	return 0;
}

/* "priority:  3" under a tc block: one or more priorities of that tc */
static int qos_tc_prio(struct qos_parser *qp, const char *s)
{
	unsigned long long v[8];
	struct mlnx_qos *q = qp->q;
	char path[16];
	int n;

	if (qp->tc < 0)
		return qos_fail(qp, "tc", "a priority: line outside a tc block (\"tc: N ...\")");
	snprintf(path, sizeof(path), "tc %d", qp->tc);
	n = qos_numbers(qp, path, s, v, 8, 7);
	if (n < 0)
		return n;
	if (n == 0)
		return qos_fail(qp, path, "priority: without a priority (0-7)");
	if (n > 8)
		return qos_fail(qp, path, "%d priorities on one line: there are 8", n);
	for (int i = 0; i < n; i++) {
		unsigned p = (unsigned)v[i];

		if (qp->prio_tc_line[p])
			return qos_fail(qp, path, "priority %u is already in tc %u (line %d)", p,
					q->prio_tc[p], qp->prio_tc_line[p]);
		q->prio_tc[p] = (uint8_t)qp->tc;
		qp->prio_tc_line[p] = qp->line;
		q->prio_tc_line[p] = qp->line;
	}
	return 0;
}

/* "prio:0" under "default priority:": the priority of non-IP traffic */
static int qos_default_prio(struct qos_parser *qp, const char *s)
{
	const char *path = "default priority";
	unsigned long long v;
	const char *start;
	char w[100];

	start = s = skip_blanks(s);
	if (!read_num(&s, &v) || *skip_blanks(s))
		return qos_fail(qp, path, "\"%s\" is not a priority (0-7)",
				quote_word(w, sizeof(w), start));
	if (v > 7)
		return qos_fail(qp, path, "prio %llu is out of range (0-7)", v);
	qp->q->has_default_prio = 1;
	qp->q->default_prio = (uint8_t)v;
	qp->q->default_prio_line = qp->line;
	return 0;
}

/* One trimmed, non-empty line. */
static int qos_line(struct qos_parser *qp, const char *s)
{
	const char *r;
	static const char *const rows[] = {"priority", "enabled", "buffer"};

	if ((r = skip_kw(s, "Priority trust state:"))) {
		qp->seen = 1;
		qp->sec = QOS_NONE;
		return qos_trust(qp, r);
	}
	if ((r = skip_kw(s, "dscp2prio mapping:"))) {
		qp->seen = 1;
		if (qp->dscp_hdr_line)
			return qos_again(qp, "dscp2prio", qp->dscp_hdr_line);
		qp->dscp_hdr_line = qp->line;
		qp->sec = QOS_DSCP;
		qp->prio = -1;
		return 0;
	}
	if (skip_kw(s, "default priority:")) {
		qp->seen = 1;
		qp->sec = QOS_DEFAULT_PRIO;
		return 0;
	}
	if ((r = skip_kw(s, "prio:")) && qp->sec == QOS_DEFAULT_PRIO)
		return qos_default_prio(qp, r);
	if ((r = skip_kw(s, "prio:")))
		return qos_prio_line(qp, r);
	if ((r = skip_kw(s, "Receive buffer size (bytes):")))
		return qos_rx_buffer(qp, r);
	if ((r = skip_kw(s, "Cable len:")))
		return qos_cable(qp, r);
	if (skip_kw(s, "PFC configuration:")) {
		qp->seen = 1;
		qp->sec = QOS_PFC;
		return 0;
	}
	if ((r = skip_kw(s, "tc:")))
		return qos_tc(qp, r);
	if ((r = skip_kw(s, "priority")) && *(r = skip_blanks(r)) == ':')
		return qos_tc_prio(qp, r + 1);
	if (qp->sec == QOS_PFC) {
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			r = skip_kw(s, rows[i]);
			if (r && (!*r || mlnx__is_blank((unsigned char)*r)))
				return qos_pfc_row(qp, rows[i], r);
		}
	}
	/* a wrapped DSCP list printed without its "prio:N dscp:" prefix */
	if (qp->sec == QOS_DSCP && qp->prio >= 0 && is_digit((unsigned char)*s))
		return qos_dscp_list(qp, qp->prio, s);
	/* not a line this reader knows ("DCBX mode:", "default priority:"): it ends a
	 * dscp2prio list, so digits after it are not taken for DSCPs */
	if (qp->sec == QOS_DSCP)
		qp->sec = QOS_NONE;
	return 0;
}

int mlnx_qos_parse(const char *text, size_t len, const char *file, struct mlnx_qos *out,
		   struct diag *d)
{
	struct qos_parser qp = {0};
	struct lines ls;
	char *buf, *s;
	size_t n;
	int err = 0, any = 0;

	memset(out, 0, sizeof(*out));
	if (!file)
		file = "";
	snprintf(out->file, sizeof(out->file), "%s", file);
	buf = mlnx__text_copy(text, len, file, d);
	if (!buf)
		return -ENOMEM;
	qp.q = out;
	qp.d = d;
	qp.file = file;
	qp.prio = -1;
	qp.tc = -1;
	lines_init(&ls, buf, len);
	while ((s = lines_next(&ls, &n))) {
		int c = mlnx__find_binary(s, n);

		qp.line = ls.no;
		if (c >= 0) {
			err = qos_fail(&qp, "", "binary data (byte 0x%02x), not mlnx_qos text", c);
			goto out_free;
		}
		s = mlnx__trim(s);
		if (!*s)
			continue;
		any = 1;
		qp.text = s;
		if ((err = qos_line(&qp, s)))
			goto out_free;
	}
	if (!qp.seen) {
		diag_set(d, file, 0, "",
			 "%snot mlnx_qos output (no \"Priority trust state:\", \"dscp2prio "
			 "mapping:\", \"PFC configuration:\" or \"tc:\" line)",
			 any ? "" : "empty file, ");
		err = -EINVAL;
	}
out_free:
	free(buf);
	return err;
}

int mlnx_qos_read(const char *file, struct mlnx_qos *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	err = textfile_load(file, 1, &text, &len, d); /* NULs: named at their line */
	if (err)
		return err;
	err = mlnx_qos_parse(text, len, file, out, d);
	free(text);
	return err;
}
