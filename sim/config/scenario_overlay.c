/*
 * Overlays (`run --with FILE`, scn_load_with): partial scenarios merged onto
 * the scenario at the YAML level, before the schema load, so that every
 * check sees the merged result. Mappings merge key by key, any other value
 * (a list, a scalar) replaces the scenario's, and a key written `KEY+`
 * appends its list to the list KEY holds (`faults+: [...]`).
 *
 * Each file is indexed by ydoc first (its syntax, duplicate keys, alias
 * limits are refused naming that file), loaded as libyaml nodes, merged
 * into a tree whose every node keeps the file and line it came from, and
 * written out as one YAML text for libcyaml. The ydoc of that text then
 * gets each entry's file and line back (ydoc_set_origin), so that errors
 * name the overlay's line for a value the overlay gave.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/textfile.h"
#include "sim/readers/ydoc.h"

/* A YAML node of the merged tree, with where it was written. */
struct onode {
	yaml_node_type_t type;
	const char *file; /* borrowed: a file name of the load */
	int line;	  /* of its key, or of the item */
	char *value;	  /* scalar */
	size_t len;
	char *tag; /* scalar: its resolved tag */
	yaml_scalar_style_t style;
	size_t n;
	char **keys;	     /* mapping: keys[i] gives kids[i] */
	struct onode **kids; /* mapping values or sequence items */
};

static void onode_free(struct onode *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		if (o->keys)
			free(o->keys[i]);
		onode_free(o->kids[i]);
	}
	free(o->keys);
	free(o->kids);
	free(o->value);
	free(o->tag);
	free(o);
}

static struct onode *onode_new(yaml_node_type_t type, const char *file, int line)
{
	struct onode *o = calloc(1, sizeof(*o));

	if (o) {
		o->type = type;
		o->file = file;
		o->line = line;
	}
	return o;
}

/* Append @kid (taken, freed on failure) under @key (copied; NULL in a sequence). */
static int onode_push(struct onode *o, const char *key, struct onode *kid)
{
	struct onode **kids = realloc(o->kids, (o->n + 1) * sizeof(*kids));
	char **keys;

	if (!kids) {
		onode_free(kid);
		return -ENOMEM;
	}
	o->kids = kids;
	if (o->type == YAML_MAPPING_NODE) {
		keys = realloc(o->keys, (o->n + 1) * sizeof(*keys));
		if (!keys || !(keys[o->n] = strdup(key))) {
			if (keys)
				o->keys = keys;
			onode_free(kid);
			return -ENOMEM;
		}
		o->keys = keys;
	}
	o->kids[o->n++] = kid;
	return 0;
}

static struct onode *onode_get(const struct onode *o, const char *key, size_t *at)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key)) {
			*at = i;
			return o->kids[i];
		}
	return NULL;
}

/* A copy of node @id of @doc, as written in @file at @line. */
static struct onode *from_doc(yaml_document_t *doc, int id, const char *file, int line)
{
	yaml_node_t *n = yaml_document_get_node(doc, id);
	struct onode *o;

	if (!n || !(o = onode_new(n->type, file, line)))
		return NULL;
	if (n->type == YAML_SCALAR_NODE) {
		o->len = n->data.scalar.length;
		o->value = malloc(o->len + 1);
		o->tag = strdup(n->tag ? (const char *)n->tag : YAML_DEFAULT_SCALAR_TAG);
		o->style = n->data.scalar.style;
		if (!o->value || !o->tag)
			goto fail;
		memcpy(o->value, n->data.scalar.value, o->len);
		o->value[o->len] = '\0';
	} else if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			yaml_node_t *item = yaml_document_get_node(doc, *i);
			struct onode *kid;

			kid = from_doc(doc, *i, file, item ? (int)item->start_mark.line + 1 : line);
			if (!kid || onode_push(o, NULL, kid))
				goto fail;
		}
	} else {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			struct onode *kid;

			/* ydoc refused any key but a scalar */
			if (!k || k->type != YAML_SCALAR_NODE)
				goto fail;
			kid = from_doc(doc, p->value, file, (int)k->start_mark.line + 1);
			if (!kid || onode_push(o, (const char *)k->data.scalar.value, kid))
				goto fail;
		}
	}
	return o;
fail:
	onode_free(o);
	return NULL;
}

struct merge {
	yaml_document_t *doc; /* the overlay */
	const char *file;
	struct diag *d;
};

static const char *kind_words(yaml_node_type_t t)
{
	return t == YAML_MAPPING_NODE	 ? "a mapping"
	       : t == YAML_SEQUENCE_NODE ? "a list"
					 : "a single value";
}

static int merge_map(struct merge *m, struct onode *dst, yaml_node_t *src, const char *path);

/*
 * The overlay's node @id (at @line) as a new tree: its mappings merged
 * into nothing, so that KEY+ within them is resolved too.
 */
static int copy_in(struct merge *m, int id, int line, const char *path, struct onode **out)
{
	yaml_node_t *n = yaml_document_get_node(m->doc, id);
	char sub[420];
	int err;

	*out = NULL;
	if (n->type == YAML_SCALAR_NODE) {
		*out = from_doc(m->doc, id, m->file, line);
		return *out ? 0 : -ENOMEM;
	}
	if (!(*out = onode_new(n->type, m->file, line)))
		return -ENOMEM;
	if (n->type == YAML_MAPPING_NODE)
		return merge_map(m, *out, n, path);
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		struct onode *kid;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, (*out)->n);
		err = copy_in(m, *i, (int)yaml_document_get_node(m->doc, *i)->start_mark.line + 1,
			      sub, &kid);
		if (!err)
			err = onode_push(*out, NULL, kid);
		else
			onode_free(kid);
		if (err)
			return err;
	}
	return 0;
}

/* Merge the overlay's mapping @src into @dst (at key path @path). */
static int merge_map(struct merge *m, struct onode *dst, yaml_node_t *src, const char *path)
{
	char sub[400], key[160];
	int err;

	for (yaml_node_pair_t *p = src->data.mapping.pairs.start; p < src->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(m->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(m->doc, p->value);
		int line = (int)k->start_mark.line + 1;
		size_t len = k->data.scalar.length, at = 0;
		int append = len > 1 && k->data.scalar.value[len - 1] == '+';
		struct onode *old, *kid;

		if (len >= sizeof(key)) {
			diag_set(m->d, m->file, line, path, "a key of more than %zu bytes",
				 sizeof(key) - 1);
			return -EINVAL;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(len - (size_t)append),
			 (const char *)k->data.scalar.value);
		snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", key);
		old = onode_get(dst, key, &at);
		if (append && v->type != YAML_SEQUENCE_NODE) {
			diag_set(m->d, m->file, line, sub,
				 "%s+ appends a list: expected a list, not %s", key,
				 kind_words(v->type));
			return -EINVAL;
		}
		if (append && old && old->type != YAML_SEQUENCE_NODE) {
			diag_set(m->d, m->file, line, sub,
				 "%s+ appends to a list, but %s is %s (%s:%d)", key, sub,
				 kind_words(old->type), old->file, old->line);
			return -EINVAL;
		}
		if (append && old) {
			for (yaml_node_item_t *i = v->data.sequence.items.start;
			     i < v->data.sequence.items.top; i++) {
				char item[sizeof(sub) + 24];

				snprintf(item, sizeof(item), "%s[%zu]", sub, old->n);
				err = copy_in(
				    m, *i,
				    (int)yaml_document_get_node(m->doc, *i)->start_mark.line + 1,
				    item, &kid);
				if (!err)
					err = onode_push(old, NULL, kid);
				else
					onode_free(kid);
				if (err)
					return err;
			}
			continue;
		}
		if (old && old->type == YAML_MAPPING_NODE && v->type == YAML_MAPPING_NODE) {
			err = merge_map(m, old, v, sub);
			if (err)
				return err;
			continue;
		}
		err = copy_in(m, p->value, line, sub, &kid);
		if (err) {
			onode_free(kid);
			return err;
		}
		if (old) {
			onode_free(old);
			dst->kids[at] = kid;
		} else if ((err = onode_push(dst, key, kid))) {
			return err;
		}
	}
	return 0;
}

/* ---- writing the merged tree out, and its lines back ------------------------ */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_write(void *data, unsigned char *text, size_t size)
{
	struct buf *b = data;

	if (b->len + size + 1 > b->cap) {
		size_t cap = (b->len + size + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p)
			return 0;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, text, size);
	b->len += size;
	b->p[b->len] = '\0';
	return 1;
}

static int emit_node(yaml_emitter_t *em, const struct onode *o)
{
	yaml_event_t ev;
	int ok;

	if (o->type == YAML_SCALAR_NODE) {
		int implicit = !strcmp(o->tag, YAML_DEFAULT_SCALAR_TAG);

		ok = yaml_scalar_event_initialize(&ev, NULL, (yaml_char_t *)o->tag,
						  (yaml_char_t *)o->value, (int)o->len, implicit,
						  implicit, o->style);
		return ok && yaml_emitter_emit(em, &ev);
	}
	if (o->type == YAML_SEQUENCE_NODE)
		ok = yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  YAML_BLOCK_SEQUENCE_STYLE);
	else
		ok = yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 YAML_BLOCK_MAPPING_STYLE);
	if (!ok || !yaml_emitter_emit(em, &ev))
		return 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->keys) {
			ok =
			    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)o->keys[i],
							 -1, 1, 1, YAML_ANY_SCALAR_STYLE);
			if (!ok || !yaml_emitter_emit(em, &ev))
				return 0;
		}
		if (!emit_node(em, o->kids[i]))
			return 0;
	}
	if (o->type == YAML_SEQUENCE_NODE)
		ok = yaml_sequence_end_event_initialize(&ev);
	else
		ok = yaml_mapping_end_event_initialize(&ev);
	return ok && yaml_emitter_emit(em, &ev);
}

/* @root as YAML text into @b. 0 or -ENOMEM. */
static int emit(const struct onode *root, struct buf *b)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	int ok;

	if (!yaml_emitter_initialize(&em))
		return -ENOMEM;
	yaml_emitter_set_output(&em, buf_write, b);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_unicode(&em, 1);
	ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
	     yaml_emitter_emit(&em, &ev) &&
	     yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
	     yaml_emitter_emit(&em, &ev) && emit_node(&em, root) &&
	     yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
	     yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev) &&
	     yaml_emitter_flush(&em);
	yaml_emitter_delete(&em);
	return ok ? 0 : -ENOMEM;
}

/* Give each entry of @y under @path the file and line its node in @o came from. */
static int set_origins(struct ydoc *y, const struct onode *o, const char *path)
{
	char sub[256];
	int err;

	for (size_t i = 0; i < o->n; i++) {
		if (o->keys)
			snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", o->keys[i]);
		else
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		err = ydoc_set_origin(y, sub, o->kids[i]->file, o->kids[i]->line);
		/* a path longer than the buffer has no entry to set: keep the merged line */
		if (err && err != -ENOENT)
			return err;
		if ((err = set_origins(y, o->kids[i], sub)))
			return err;
	}
	return 0;
}

/* libyaml's nodes of @text, read from @file (which ydoc_parse accepted). */
static int load_doc(const char *file, const char *text, size_t len, yaml_document_t *doc,
		    struct diag *d)
{
	yaml_parser_t parser;
	int ok;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	ok = yaml_parser_load(&parser, doc);
	if (!ok)
		diag_set(d, file, (int)parser.problem_mark.line + 1, "", "malformed YAML: %s",
			 parser.problem ? parser.problem : "syntax error");
	yaml_parser_delete(&parser);
	return ok ? 0 : parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
}

/* Merge overlay @file onto @root. */
static int merge_file(struct onode *root, const char *file, struct diag *d)
{
	struct merge m = {.file = file, .d = d};
	yaml_document_t doc;
	struct ydoc *check;
	yaml_node_t *top;
	char *text;
	size_t len;
	int err;

	err = textfile_read(file, &text, &len);
	if (err == -ENOMEM)
		return err;
	if (err) {
		diag_set(d, file, 0, "", "cannot read overlay: %s", textfile_strerror(err));
		return -EINVAL;
	}
	/* the overlay's own syntax, duplicate keys and aliases, named in it */
	err = ydoc_parse(file, text, len, &check, d);
	if (!err && !ydoc_count(check)) {
		diag_set(
		    d, file, 1, "",
		    "empty overlay: expected a mapping of keys (topology, switch, faults+, ...)");
		err = -EINVAL;
	}
	ydoc_free(check);
	if (!err)
		err = load_doc(file, text, len, &doc, d);
	free(text);
	if (err)
		return err;
	m.doc = &doc;
	top = yaml_document_get_root_node(&doc);
	err = top && top->type == YAML_MAPPING_NODE ? merge_map(&m, root, top, "") : -EINVAL;
	yaml_document_delete(&doc);
	return err;
}

int scn__overlay(const char *file, const char *text, size_t len, const char *const *overlays,
		 size_t n_overlays, struct ydoc **doc, char **merged, size_t *merged_len,
		 struct diag *d)
{
	struct onode *root = NULL;
	struct buf b = {0};
	yaml_document_t base;
	int err;

	*merged = NULL;
	err = load_doc(file, text, len, &base, d);
	if (err)
		return err;
	root = from_doc(&base, 1, file, 1);
	yaml_document_delete(&base);
	if (!root)
		return -ENOMEM;
	for (size_t i = 0; i < n_overlays && !err; i++)
		err = merge_file(root, overlays[i], d);
	if (!err)
		err = emit(root, &b);
	if (!err)
		err = ydoc_parse(file, b.p, b.len, doc, d);
	if (!err && (err = set_origins(*doc, root, ""))) {
		ydoc_free(*doc);
		*doc = NULL;
	}
	onode_free(root);
	if (err) {
		free(b.p);
		return err;
	}
	*merged = b.p;
	*merged_len = b.len;
	return 0;
}
