/*
 * ydoc: index every scalar of a YAML file by key path, with its line (see
 * ydoc.h). Built on libyaml's event parser; a hash of paths serves lookups
 * and catches duplicate keys, which YAML forbids but libyaml lets through.
 * Also the one translator of libcyaml's error log into a diag, which needs
 * the index for its lines.
 */
#include "sim/readers/ydoc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YDOC_DEPTH 64
/*
 * What aliases may add, in YAML nodes, to what the text itself holds:
 * libcyaml replays an alias node by node, so ten levels of ten aliases
 * (a few hundred bytes) would be 10^10 nodes to load. A scenario or a
 * topology file has no use for more than a few hundred.
 */
#define YDOC_MAX_EXPANDED (1u << 16)
#define YDOC_SAT (1ull << 62)

struct ydoc {
	char *file;
	struct ydoc_entry *v;
	size_t n, cap;
	uint32_t *hash; /* open addressing: entry index + 1, 0 = empty */
	size_t hcap;
	char **files; /* the files ydoc_set_origin named */
	size_t n_files;
};

struct frame {
	int is_seq;
	char *path;
	char *key; /* mapping: pending key, NULL when a key is expected */
	int key_line;
	size_t index;	 /* sequence: next item */
	char *anchor;	 /* &name on this mapping or sequence, or NULL */
	uint64_t weight; /* the nodes it expands to, its aliases replayed */
};

/* The anchors met so far and the nodes each expands to (open addressing). */
struct anchors {
	char **name;
	uint64_t *weight;
	size_t n, cap;
	uint64_t expanded; /* nodes that aliases add to the text's own */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > YDOC_SAT - b ? YDOC_SAT : a + b;
}

static size_t anchor_slot(const struct anchors *a, const char *name)
{
	size_t i = (size_t)hash_str(name) & (a->cap - 1);

	while (a->name[i] && strcmp(a->name[i], name))
		i = (i + 1) & (a->cap - 1);
	return i;
}

/* Remember that &@name expands to @weight nodes (a later one replaces it). */
static int anchor_set(struct anchors *a, const char *name, uint64_t weight)
{
	size_t i;

	if ((a->n + 1) * 2 > a->cap) {
		struct anchors b = {.cap = a->cap ? a->cap * 2 : 16};

		b.name = calloc(b.cap, sizeof(*b.name));
		b.weight = calloc(b.cap, sizeof(*b.weight));
		if (!b.name || !b.weight) {
			free(b.name);
			free(b.weight);
			return -ENOMEM;
		}
		for (size_t k = 0; k < a->cap; k++) {
			if (!a->name[k])
				continue;
			i = anchor_slot(&b, a->name[k]);
			b.name[i] = a->name[k];
			b.weight[i] = a->weight[k];
		}
		free(a->name);
		free(a->weight);
		a->name = b.name;
		a->weight = b.weight;
		a->cap = b.cap;
	}
	i = anchor_slot(a, name);
	if (!a->name[i]) {
		if (!(a->name[i] = strdup(name)))
			return -ENOMEM;
		a->n++;
	}
	a->weight[i] = weight;
	return 0;
}

/* The nodes *@name stands for: 1 when no anchor has that name (libcyaml
 * refuses it later, with its own words). */
static uint64_t anchor_weight(const struct anchors *a, const char *name)
{
	size_t i;

	if (!a->cap)
		return 1;
	i = anchor_slot(a, name);
	return a->name[i] ? a->weight[i] : 1;
}

static void anchors_free(struct anchors *a)
{
	for (size_t k = 0; k < a->cap; k++)
		free(a->name[k]);
	free(a->name);
	free(a->weight);
}

static size_t slot_of(const struct ydoc *y, const char *path)
{
	size_t i = (size_t)hash_str(path) & (y->hcap - 1);

	while (y->hash[i] && strcmp(y->v[y->hash[i] - 1].path, path))
		i = (i + 1) & (y->hcap - 1);
	return i;
}

static int rehash(struct ydoc *y)
{
	size_t cap = y->hcap ? y->hcap * 2 : 64;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	free(y->hash);
	y->hash = h;
	y->hcap = cap;
	for (size_t k = 0; k < y->n; k++)
		y->hash[slot_of(y, y->v[k].path)] = (uint32_t)(k + 1);
	return 0;
}

/* Add an entry; takes ownership of @path. -EEXIST on a duplicate path. */
static int add(struct ydoc *y, char *path, const char *value, int line)
{
	size_t slot;

	if ((y->n + 1) * 2 > y->hcap && rehash(y))
		goto nomem;
	slot = slot_of(y, path);
	if (y->hash[slot])
		return -EEXIST; /* @path stays the caller's */
	if (y->n == y->cap) {
		size_t cap = y->cap ? y->cap * 2 : 64;
		struct ydoc_entry *v = realloc(y->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		y->v = v;
		y->cap = cap;
	}
	y->v[y->n].path = path;
	y->v[y->n].value = value ? strdup(value) : NULL;
	y->v[y->n].line = line;
	y->v[y->n].file = y->file;
	if (value && !y->v[y->n].value)
		goto nomem;
	y->hash[slot] = (uint32_t)(++y->n);
	return 0;
nomem:
	free(path);
	return -ENOMEM;
}

static char *join(const struct frame *parent, char **keyp)
{
	char *p;
	size_t len;

	if (!parent)
		return strdup("");
	if (parent->is_seq) {
		len = strlen(parent->path) + 24;
		p = malloc(len);
		if (p)
			snprintf(p, len, "%s[%zu]", parent->path, parent->index);
		return p;
	}
	len = strlen(parent->path) + strlen(*keyp) + 2;
	p = malloc(len);
	if (p)
		snprintf(p, len, "%s%s%s", parent->path, parent->path[0] ? "." : "", *keyp);
	free(*keyp);
	*keyp = NULL;
	return p;
}

void ydoc_free(struct ydoc *y)
{
	if (!y)
		return;
	for (size_t i = 0; i < y->n; i++) {
		free(y->v[i].path);
		free(y->v[i].value);
	}
	free(y->v);
	free(y->hash);
	for (size_t i = 0; i < y->n_files; i++)
		free(y->files[i]);
	free(y->files);
	free(y->file);
	free(y);
}

int ydoc_parse(const char *file, const char *text, size_t len, struct ydoc **out, struct diag *d)
{
	struct frame st[YDOC_DEPTH];
	struct anchors an = {0};
	int depth = 0, err = 0, done = 0, seen_doc = 0;
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ydoc *y;

	*out = NULL;
	y = calloc(1, sizeof(*y));
	if (!y || !(y->file = strdup(file ? file : ""))) {
		free(y);
		return -ENOMEM;
	}
	if (!yaml_parser_initialize(&parser)) {
		ydoc_free(y);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !err) {
		struct frame *top = depth ? &st[depth - 1] : NULL;
		int line;

		if (!yaml_parser_parse(&parser, &ev)) {
			char opened[48] = "";

			/* an unclosed bracket is found lines later: say where it opened */
			if (parser.context && parser.context_mark.line != parser.problem_mark.line)
				snprintf(opened, sizeof(opened), " (opened at line %d)",
					 (int)parser.context_mark.line + 1);
			diag_set(d, file, (int)parser.problem_mark.line + 1, "",
				 "malformed YAML: %s%s%s%s",
				 parser.problem ? parser.problem : "syntax error",
				 parser.context ? " " : "", parser.context ? parser.context : "",
				 opened);
			err = -EINVAL;
			break;
		}
		line = (int)ev.start_mark.line + 1;
		if (top && !top->is_seq && !top->key && ev.type != YAML_SCALAR_EVENT &&
		    ev.type != YAML_MAPPING_END_EVENT) {
			/* "? [a, b]: x" or "*alias: x": libyaml allows it, we have no path for it
			 */
			diag_set(d, file, line, top->path, "a key must be a plain word, not %s",
				 ev.type == YAML_ALIAS_EVENT		? "an alias"
				 : ev.type == YAML_SEQUENCE_START_EVENT ? "a list"
									: "a mapping");
			err = -EINVAL;
			yaml_event_delete(&ev);
			break;
		}
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			if (top && !top->is_seq && !top->key) {
				top->key = strdup((const char *)ev.data.scalar.value);
				top->key_line = line;
				top->weight = sat_add(top->weight, 1);
				if (!top->key)
					err = -ENOMEM;
				break;
			}
			/* a value */
			__attribute__((fallthrough));
		case YAML_ALIAS_EVENT:
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT: {
			const char *val = NULL;
			char *path;

			if (!top && ev.type != YAML_MAPPING_START_EVENT) {
				diag_set(d, file, line, "", "expected a mapping of keys, not %s",
					 ev.type == YAML_SEQUENCE_START_EVENT ? "a list"
									      : "a single value");
				err = -EINVAL;
				break;
			}
			if (top && !top->is_seq)
				line = top->key_line;
			path = join(top, top ? &top->key : NULL);
			if (!path) {
				err = -ENOMEM;
				break;
			}
			if (ev.type == YAML_SCALAR_EVENT)
				val = (const char *)ev.data.scalar.value;
			else if (ev.type == YAML_ALIAS_EVENT)
				val = "*";
			if (ev.type == YAML_SCALAR_EVENT && ev.data.scalar.anchor)
				err = anchor_set(&an, (const char *)ev.data.scalar.anchor, 1);
			if (ev.type == YAML_SCALAR_EVENT && top)
				top->weight = sat_add(top->weight, 1);
			if (ev.type == YAML_ALIAS_EVENT) {
				const char *name = (const char *)ev.data.alias.anchor;
				uint64_t w = anchor_weight(&an, name);

				/* inside its own anchor: a node that holds itself, which
				 * a loader would copy for ever */
				for (int k = 0; k < depth && !err; k++) {
					if (st[k].anchor && !strcmp(st[k].anchor, name)) {
						diag_set(d, file, (int)ev.start_mark.line + 1, "",
							 "alias *%s inside its own anchor &%s: a "
							 "value cannot hold itself",
							 name, name);
						err = -EINVAL;
					}
				}

				an.expanded = sat_add(an.expanded, w - 1);
				if (!err && an.expanded > YDOC_MAX_EXPANDED) {
					diag_set(d, file, (int)ev.start_mark.line + 1, "",
						 "aliases (*%s) expand to more than %u YAML nodes: "
						 "write the values out",
						 name, YDOC_MAX_EXPANDED);
					err = -EINVAL;
				}
				if (top)
					top->weight = sat_add(top->weight, w);
			}
			if (err) {
				free(path);
				break;
			}
			if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT) {
				err = add(y, path, val, line);
				if (err == -EEXIST) {
					diag_set(d, file, line, path, "duplicate key");
					free(path);
				}
			} else {
				char *copy = NULL;

				if (depth == YDOC_DEPTH) {
					diag_set(d, file, line, "", "nesting deeper than %d levels",
						 YDOC_DEPTH);
					free(path);
					err = -EINVAL;
					break;
				}
				if (top) {
					copy = strdup(path);
					err = copy ? add(y, copy, NULL, line) : -ENOMEM;
					if (err == -EEXIST) {
						diag_set(d, file, line, path, "duplicate key");
						free(copy);
					}
				}
				st[depth].is_seq = ev.type == YAML_SEQUENCE_START_EVENT;
				st[depth].path = path;
				st[depth].key = NULL;
				st[depth].index = 0;
				st[depth].weight = 2; /* its start and end */
				st[depth].anchor = NULL;
				val = (const char *)(ev.type == YAML_SEQUENCE_START_EVENT
							 ? ev.data.sequence_start.anchor
							 : ev.data.mapping_start.anchor);
				depth++;
				if (val && !(st[depth - 1].anchor = strdup(val)))
					err = -ENOMEM;
				top = NULL;
			}
			if (top && top->is_seq)
				top->index++;
			break;
		}
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			if (st[depth].anchor)
				err = anchor_set(&an, st[depth].anchor, st[depth].weight);
			if (depth)
				st[depth - 1].weight =
				    sat_add(st[depth - 1].weight, st[depth].weight);
			free(st[depth].anchor);
			free(st[depth].path);
			free(st[depth].key);
			if (depth && st[depth - 1].is_seq)
				st[depth - 1].index++;
			break;
		case YAML_DOCUMENT_START_EVENT:
			/* libcyaml reads the first document only: refuse what it would ignore */
			if (seen_doc++) {
				diag_set(
				    d, file, line, "",
				    "a second YAML document (---): one file holds one document");
				err = -EINVAL;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	while (depth--) {
		free(st[depth].anchor);
		free(st[depth].path);
		free(st[depth].key);
	}
	anchors_free(&an);
	yaml_parser_delete(&parser);
	if (err) {
		ydoc_free(y);
		return err;
	}
	*out = y;
	return 0;
}

const struct ydoc_entry *ydoc_find(const struct ydoc *y, const char *path)
{
	size_t slot;

	if (!y || !y->hcap)
		return NULL;
	slot = slot_of(y, path);
	return y->hash[slot] ? &y->v[y->hash[slot] - 1] : NULL;
}

int ydoc_line(const struct ydoc *y, const char *path)
{
	const struct ydoc_entry *e = ydoc_find(y, path);

	return e ? e->line : 0;
}

size_t ydoc_count(const struct ydoc *y)
{
	return y ? y->n : 0;
}

const struct ydoc_entry *ydoc_at(const struct ydoc *y, size_t i)
{
	return i < y->n ? &y->v[i] : NULL;
}

const char *ydoc_file(const struct ydoc *y)
{
	return y->file;
}

/* The entry of @path or of the nearest enclosing key that has a line. */
static const struct ydoc_entry *find_near(const struct ydoc *y, const char *path)
{
	const struct ydoc_entry *e;
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		char *cut = buf + strlen(buf);

		if (((e = ydoc_find(y, buf)) && e->line) || !buf[0])
			return e && e->line ? e : NULL;
		while (cut > buf && *cut != '.' && *cut != '[')
			cut--;
		*cut = '\0';
	}
}

int ydoc_line_near(const struct ydoc *y, const char *path)
{
	const struct ydoc_entry *e = find_near(y, path);

	return e ? e->line : 0;
}

const char *ydoc_file_near(const struct ydoc *y, const char *path)
{
	const struct ydoc_entry *e = find_near(y, path);

	return e ? e->file : y ? y->file : "";
}

int ydoc_set_origin(struct ydoc *y, const char *path, const char *file, int line)
{
	struct ydoc_entry *e = (struct ydoc_entry *)ydoc_find(y, path);
	size_t i;

	if (!e)
		return -ENOENT;
	for (i = 0; i < y->n_files && strcmp(y->files[i], file); i++)
		;
	if (i == y->n_files) {
		char **all = realloc(y->files, (y->n_files + 1) * sizeof(*all));

		if (!all)
			return -ENOMEM;
		y->files = all;
		if (!(y->files[y->n_files] = strdup(file)))
			return -ENOMEM;
		y->n_files++;
	}
	e->file = y->files[i];
	e->line = line;
	return 0;
}

/* ---- libcyaml's log turned into one diag ------------------------------------ */

/* Parse one backtrace line into @f; 0 if it is none. */
static int cy_parse_frame(const char *ln, struct ydoc_cyframe *f)
{
	memset(f, 0, sizeof(*f));
	if (sscanf(ln, "  in mapping field '%63[^']' (line: %d", f->key, &f->line) >= 1) {
		f->kind = YDOC_CY_KEY;
		return 1;
	}
	if (sscanf(ln, "  in sequence entry '%u' (line: %d", &f->index, &f->line) >= 1) {
		/* entry 0: the sequence had no entry yet */
		f->kind = f->index ? YDOC_CY_INDEX : YDOC_CY_NONE;
		f->index = f->index ? f->index - 1 : 0;
		return 1;
	}
	if (sscanf(ln, "  in mapping (line: %d", &f->line) == 1) {
		f->kind = YDOC_CY_NONE;
		return 1;
	}
	return 0;
}

void ydoc_cyaml_log(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct ydoc_cylog *l = ctx;
	char line[256];

	if (level < CYAML_LOG_ERROR)
		return;
	vsnprintf(line, sizeof(line), fmt, args);
	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(line, "Load: ", 6) && strncmp(line, "Load: Backtrace", 15)) {
		if (!l->msg[0])
			snprintf(l->msg, sizeof(l->msg), "%s", line + 6);
		return;
	}
	if (l->n < YDOC_CY_FRAMES && cy_parse_frame(line, &l->frame[l->n]))
		l->n++;
}

/* The schema of the value that @fr[0..@n) (outermost last) leads to, or NULL. */
static const cyaml_schema_value_t *cy_schema_at(const cyaml_schema_value_t *v,
						const struct ydoc_cyframe *fr, int n)
{
	const cyaml_schema_field_t *f;

	for (int i = n - 1; i >= 0 && v; i--) {
		if (fr[i].kind == YDOC_CY_INDEX) {
			v = v->type == CYAML_SEQUENCE ? v->sequence.entry : NULL;
		} else if (fr[i].kind == YDOC_CY_KEY) {
			if (v->type != CYAML_MAPPING)
				return NULL;
			for (f = v->mapping.fields; f->key && strcmp(f->key, fr[i].key); f++)
				;
			v = f->key ? &f->value : NULL;
		}
	}
	return v;
}

/* ", "-separated keys of a mapping, or values of an enum, into @buf. */
static void cy_schema_words(const cyaml_schema_value_t *v, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (v && v->type == CYAML_MAPPING) {
		for (const cyaml_schema_field_t *f = v->mapping.fields; f->key && n < size; f++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", f->key);
	} else if (v && v->type == CYAML_ENUM) {
		for (uint32_t i = 0; i < v->enumeration.count && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      v->enumeration.strings[i].str);
	}
}

/* "Expecting MAPPING, got event: SCALAR" in words. */
static const char *cy_event_words(const char *ev, int expected, unsigned words)
{
	if (!strncmp(ev, "MAPPING", 7))
		return expected && (words & YDOC_CY_KEYS) ? "a mapping of keys" : "a mapping";
	if (!strncmp(ev, "SEQUENCE", 8))
		return "a list";
	return "a single value";
}

static void cy_append(char *path, size_t size, const struct ydoc_cyframe *f)
{
	size_t n = strlen(path);

	if (f->kind == YDOC_CY_KEY)
		snprintf(path + n, size - n, "%s%s", n ? "." : "", f->key);
	else if (f->kind == YDOC_CY_INDEX)
		snprintf(path + n, size - n, "[%u]", f->index);
}

int ydoc_cyaml_diag(const struct ydoc *y, const cyaml_schema_value_t *schema,
		    const struct ydoc_cylog *log, cyaml_err_t err, unsigned words, struct diag *d)
{
	char text[1024], keys[512], path[sizeof(d->path)] = "", expect[32], event[32];
	const char *msg = log->msg, *arg, *unknown = NULL;
	struct ydoc_cyframe fr[YDOC_CY_FRAMES];
	size_t len;
	int n = log->n, line = 0, at_cyaml_line = 0;

	memcpy(fr, log->frame, sizeof(fr));
	for (int i = 0; i < n && !line; i++)
		line = fr[i].line;
	snprintf(text, sizeof(text), "%s", msg[0] ? msg : cyaml_strerror(err));
	if ((arg = strstr(msg, "Unexpected key: ")) == msg) {
		arg += strlen("Unexpected key: ");
		/* an innermost key is the last field read, not the one refused */
		if (n && fr[0].kind == YDOC_CY_KEY)
			fr[0].kind = YDOC_CY_NONE;
		cy_schema_words(cy_schema_at(schema, fr, n), keys, sizeof(keys));
		unknown = arg;
		if (words & YDOC_CY_NAME_KEY)
			snprintf(text, sizeof(text), "unknown key \"%s\" (expected %s)", arg,
				 keys[0] ? keys : "no other key");
		else
			snprintf(text, sizeof(text), "unknown key (expected one of: %s)", keys);
	} else if ((arg = strstr(msg, "Missing required mapping field: ")) == msg) {
		arg += strlen("Missing required mapping field: ");
		/* reported inside the mapping's last field: name the mapping */
		if (n && fr[0].kind == YDOC_CY_KEY)
			fr[0].kind = YDOC_CY_NONE;
		snprintf(text, sizeof(text), "missing key \"%s\"", arg);
	} else if ((arg = strstr(msg, "Invalid ENUM value: ")) == msg) {
		arg += strlen("Invalid ENUM value: ");
		cy_schema_words(cy_schema_at(schema, fr, n), keys, sizeof(keys));
		snprintf(text, sizeof(text), "\"%s\" is not one of: %s", arg, keys);
	} else if ((arg = strstr(msg, "Mapping field already seen: ")) == msg) {
		arg += strlen("Mapping field already seen: ");
		snprintf(text, sizeof(text), "key \"%s\" given twice", arg);
		at_cyaml_line = 1;
	} else if (sscanf(msg, "Expecting %31s got event: %31s", expect, event) == 2) {
		snprintf(text, sizeof(text), "expected %s, %s %s", cy_event_words(expect, 1, words),
			 words & YDOC_CY_FOUND ? "found" : "not", cy_event_words(event, 0, words));
	} else if ((arg = strstr(msg, "libyaml: ")) == msg) {
		snprintf(text, sizeof(text), "malformed YAML: %s", arg + strlen("libyaml: "));
		at_cyaml_line = 1;
	}
	for (int i = n - 1; i >= 0; i--)
		cy_append(path, sizeof(path), &fr[i]);
	len = strlen(path);
	if (unknown)
		snprintf(path + len, sizeof(path) - len, "%s%s", len ? "." : "", unknown);
	if (!at_cyaml_line && ydoc_line_near(y, path))
		line = ydoc_line_near(y, path);
	diag_set(d, ydoc_file_near(y, path), line, path, "%s", text);
	return err == CYAML_ERR_OOM ? -ENOMEM : -EINVAL;
}
