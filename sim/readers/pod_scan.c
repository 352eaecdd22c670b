/*
 * Pass 1 of the Kubernetes manifest reader (pod.c): a libyaml scan of the
 * whole text picks the document to read (the first whose kind is a
 * workload) and bounds what YAML aliases expand to, before ydoc and libcyaml
 * see it; the picked document is then cut out with its lines kept.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/readers/pod_impl.h"

/*
 * Events replayed for aliases, per document. libcyaml records them one
 * realloc at a time, quadratic under ASan; an env list shared by a few
 * containers is a few hundred.
 */
#define POD_MAX_EXPANDED (1u << 14)
#define POD_SAT (1ull << 62)

/* ---- pass 1: which document, and is it safe to expand ----------------------- */

static uint64_t pod_sat_add(uint64_t a, uint64_t b)
{
	return a + b > POD_SAT ? POD_SAT : a + b;
}

static void pod_bad(struct pod_doc *doc, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pod_bad(struct pod_doc *doc, int line, const char *fmt, ...)
{
	va_list ap;

	if (doc->bad_msg[0])
		return;
	doc->bad_line = line;
	va_start(ap, fmt);
	vsnprintf(doc->bad_msg, sizeof(doc->bad_msg), fmt, ap);
	va_end(ap);
}

static void pod_scan_reset(struct pod_scan *s)
{
	while (s->depth > 0) {
		s->depth--;
		if (s->depth < POD_DEPTH) {
			free(s->st[s->depth].anchor);
			s->st[s->depth].anchor = NULL;
		}
	}
	for (int i = 0; i < s->n_anchors; i++)
		free(s->anchors[i].name);
	s->n_anchors = 0;
	s->expanded = 0;
}

/* Remember @name as an anchor of @weight events; takes @name. */
static void pod_anchor_add(struct pod_scan *s, char *name, uint64_t weight, int line)
{
	if (s->n_anchors == POD_MAX_ANCHORS) {
		pod_bad(&s->cur, line, "more than %d anchors (&name) in one document",
			POD_MAX_ANCHORS);
		free(name);
		return;
	}
	s->anchors[s->n_anchors].name = name;
	s->anchors[s->n_anchors++].weight = weight;
}

/* A node of @weight events ends inside the current collection. */
static void pod_node(struct pod_scan *s, uint64_t weight)
{
	if (s->depth > 0 && s->depth <= POD_DEPTH) {
		struct pod_frame *f = &s->st[s->depth - 1];

		f->weight = pod_sat_add(f->weight, weight);
		f->kids++;
	}
}

/* Keep the current document, a ConfigMap, for pod_cm_index. */
static int pod_cm_doc_add(struct pod_scan *s)
{
	if (s->n_cms == s->cap_cms) {
		size_t cap = s->cap_cms ? s->cap_cms * 2 : 4;
		struct pod_doc *v = realloc(s->cms, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->cms = v;
		s->cap_cms = cap;
	}
	s->cms[s->n_cms++] = s->cur;
	return 0;
}

/* Is the node about to be read the value of the root key "kind"? */
static int pod_at_kind_value(const struct pod_scan *s, const char *last_root_key)
{
	return s->depth == 1 && s->st[0].is_map && (s->st[0].kids & 1) &&
	       !strcmp(last_root_key, "kind");
}

static int pod_handle(struct pod_scan *s, const yaml_event_t *ev, char *root_key, size_t keysz)
{
	int line = (int)ev->start_mark.line + 1;
	const char *anchor = NULL;

	/* a root key that is not a plain scalar: not "kind" */
	if (s->depth == 1 && s->st[0].is_map && !(s->st[0].kids & 1) &&
	    ev->type != YAML_SCALAR_EVENT)
		root_key[0] = '\0';

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		pod_scan_reset(s);
		memset(&s->cur, 0, sizeof(s->cur));
		s->cur.index = ++s->ndocs;
		s->cur.start = ev->start_mark.index;
		s->cur.start_col = ev->start_mark.column;
		s->cur.start_line = (int)ev->start_mark.line;
		root_key[0] = '\0';
		break;
	case YAML_DOCUMENT_END_EVENT:
		s->cur.end = ev->end_mark.index;
		s->cur.has_end = 1;
		if (s->cur.index == 1)
			s->first = s->cur;
		if (!s->picked && pod_kind(s->cur.kind) >= 0) {
			s->pick = s->cur;
			s->picked = 1;
		} else if (!strcmp(s->cur.kind, "ConfigMap")) {
			return pod_cm_doc_add(s);
		}
		break;
	case YAML_SCALAR_EVENT: {
		const char *v = (const char *)ev->data.scalar.value;

		if (pod_at_kind_value(s, root_key))
			snprintf(s->cur.kind, sizeof(s->cur.kind), "%s",
				 strlen(v) < sizeof(s->cur.kind) ? v : "");
		if (s->depth == 1 && s->st[0].is_map && !(s->st[0].kids & 1))
			snprintf(root_key, keysz, "%s", strlen(v) < keysz ? v : "");
		if (ev->data.scalar.anchor) {
			char *name = strdup((const char *)ev->data.scalar.anchor);

			if (!name)
				return -ENOMEM;
			pod_anchor_add(s, name, 1, line);
		}
		pod_node(s, 1);
		break;
	}
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		uint64_t w = 0;

		for (int i = s->n_anchors - 1; i >= 0 && !w; i--)
			if (!strcmp(s->anchors[i].name, name))
				w = s->anchors[i].weight;
		if (!w) {
			/* libcyaml refuses it too, but names no line */
			pod_bad(&s->cur, line, "alias *%s names no anchor (&%s) before it", name,
				name);
			w = 1;
		}
		s->expanded = pod_sat_add(s->expanded, w);
		if (s->expanded > POD_MAX_EXPANDED)
			pod_bad(&s->cur, line,
				"aliases (*%s) expand to more than %u YAML nodes: write the "
				"values out",
				name, POD_MAX_EXPANDED);
		pod_node(s, w);
		break;
	}
	case YAML_MAPPING_START_EVENT:
		anchor = (const char *)ev->data.mapping_start.anchor;
		__attribute__((fallthrough));
	case YAML_SEQUENCE_START_EVENT:
		if (ev->type == YAML_SEQUENCE_START_EVENT)
			anchor = (const char *)ev->data.sequence_start.anchor;
		if (s->depth >= POD_DEPTH) {
			pod_bad(&s->cur, line, "nesting deeper than %d levels", POD_DEPTH);
			s->depth++;
			break;
		}
		s->st[s->depth].is_map = ev->type == YAML_MAPPING_START_EVENT;
		s->st[s->depth].kids = 0;
		s->st[s->depth].weight = 2; /* its start and end events */
		s->st[s->depth].anchor = NULL;
		if (anchor && !(s->st[s->depth].anchor = strdup(anchor)))
			return -ENOMEM;
		s->depth++;
		break;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		if (s->depth > POD_DEPTH) {
			s->depth--;
			break;
		}
		s->depth--;
		if (s->st[s->depth].anchor) {
			pod_anchor_add(s, s->st[s->depth].anchor, s->st[s->depth].weight, line);
			s->st[s->depth].anchor = NULL;
		}
		pod_node(s, s->st[s->depth].weight);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Scan @text: s->pick is the first workload document, else the first
 * document, else (a file that is not YAML) the one where libyaml stopped.
 * The ConfigMap documents, before and after the workload, go to s->cms;
 * text that is not YAML after the workload ends the scan there, and only
 * says so (s->tail_err_line).
 */
int pod_scan(struct pod_scan *s, const char *text, size_t len)
{
	char root_key[16] = "";
	yaml_parser_t parser;
	yaml_event_t ev;
	int err = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			if (s->picked) {
				s->tail_err_line = (int)parser.problem_mark.line + 1;
				break;
			}
			s->yaml_err = 1;
			s->yaml_line = (int)parser.problem_mark.line + 1;
			snprintf(s->yaml_msg, sizeof(s->yaml_msg), "%s",
				 parser.problem ? parser.problem : "syntax error");
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		err = pod_handle(s, &ev, root_key, sizeof(root_key));
		yaml_event_delete(&ev);
		if (err)
			break;
	}
	yaml_parser_delete(&parser);
	pod_scan_reset(s);
	if (err)
		return err;
	if (s->picked)
		return 0;
	if (s->yaml_err) {
		/* the document that is not YAML, from its start to the end of the text */
		s->pick = s->cur;
		s->pick.has_end = 0;
		if (!s->ndocs)
			memset(&s->pick, 0, sizeof(s->pick));
	} else {
		s->pick = s->first; /* all zero when the file holds no document */
	}
	return 0;
}

void pod_scan_free(struct pod_scan *s)
{
	free(s->cms);
	free(s);
}

/* Byte offset of libyaml's character index @idx (code points after a BOM). */
static size_t pod_byte_at(const char *text, size_t len, size_t idx)
{
	size_t b = 0;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		b = 3;
	for (; b < len; b++) {
		if (((unsigned char)text[b] & 0xc0) == 0x80)
			continue;
		if (!idx--)
			break;
	}
	return b;
}

/*
 * The text of document @doc for ydoc and libcyaml: @text itself for the
 * first, else a copy that starts with the lines before it made blank.
 * *@buf is what to free().
 */
int pod_slice(const char *text, size_t len, const struct pod_doc *doc, const char **out,
	      size_t *out_len, char **buf)
{
	size_t from, to;

	*buf = NULL;
	to = doc->has_end ? pod_byte_at(text, len, doc->end) : len;
	if (doc->index <= 1) {
		*out = text;
		*out_len = to;
		return 0;
	}
	from = pod_byte_at(text, len, doc->start - doc->start_col);
	if (to < from)
		to = from;
	*buf = malloc((size_t)doc->start_line + (to - from) + 1);
	if (!*buf)
		return -ENOMEM;
	memset(*buf, '\n', (size_t)doc->start_line);
	memcpy(*buf + doc->start_line, text + from, to - from);
	(*buf)[(size_t)doc->start_line + (to - from)] = '\0';
	*out = *buf;
	*out_len = (size_t)doc->start_line + (to - from);
	return 0;
}
